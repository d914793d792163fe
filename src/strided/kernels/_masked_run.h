/* Included once by _copykernel.c: masked_fill_run, the out-of-place masked_fill of one flat run.
 *
 * masked_fill_run(x, mask, out, fill) -> bool: out[k] = fill[0] where mask[k] is non-zero, else
 * x[k], over three C-contiguous buffers of one length (x and out of one item size, 1, 2, 4 or 8
 * bytes; mask of 1-byte bools; fill one element of out's item size, already in out's dtype).
 * The bits move as they are (no float operation: a NaN's payload and -0.0 kept). out may be x
 * itself (the same buffer exactly: masked_fill_ in place, each element read before it is
 * written); False (nothing written) where the buffers do not qualify, or out overlaps x
 * otherwise, or overlaps mask.
 *
 * Why: NumPy's putmask / copyto(where=) / where branch on every element, and a random mask
 * mispredicts half of them: 2^20 float32 ~4 ms (PyTorch's masked_fill ~4-5 ms); the select
 * written as bit masks compiles to a branchless vector loop, one pass over x and mask. */
#define MASKED_RUN(T)                                                                              \
    {                                                                                              \
        const T *xs = (const T *)xb.buf;                                                           \
        T *os = (T *)ob.buf, f;                                                                    \
        memcpy(&f, fb.buf, sizeof(T));                                                             \
        for (Py_ssize_t k = 0; k < n; k++) {                                                       \
            T keep = (T)((T)(ms[k] != 0) - (T)1); /* all ones where the mask is 0 */               \
            os[k] = (T)((xs[k] & keep) | (f & (T)~keep));                                          \
        }                                                                                          \
    }

static PyObject *py_masked_fill_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "masked_fill_run(x, mask, out, fill) takes 4 arguments, not %zd", nargs);
        return NULL;
    }
    Py_buffer xb, mb, ob, fb;
    if (PyObject_GetBuffer(args[0], &xb, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[1], &mb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&xb);
        return NULL;
    }
    if (PyObject_GetBuffer(args[2], &ob, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&xb);
        PyBuffer_Release(&mb);
        return NULL;
    }
    if (PyObject_GetBuffer(args[3], &fb, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&xb);
        PyBuffer_Release(&mb);
        PyBuffer_Release(&ob);
        return NULL;
    }
    PyObject *answer = Py_False;
    Py_ssize_t sz = xb.itemsize, n = sz ? xb.len / sz : 0;
    const char *olo = (const char *)ob.buf, *ohi = olo + ob.len;
    if ((sz != 1 && sz != 2 && sz != 4 && sz != 8) || ob.itemsize != sz || fb.itemsize != sz || fb.len != sz
        || ob.len != xb.len || mb.itemsize != 1 || mb.len != n || mb.format == NULL || strcmp(mb.format, "?") != 0
        || ((uintptr_t)xb.buf % (uintptr_t)sz) || ((uintptr_t)ob.buf % (uintptr_t)sz)
        || (xb.buf != ob.buf && (const char *)xb.buf < ohi && olo < (const char *)xb.buf + xb.len)
        || ((const char *)mb.buf < ohi && olo < (const char *)mb.buf + mb.len))
        goto done;
    {
        const uint8_t *ms = (const uint8_t *)mb.buf;
        PyThreadState *ts = n >= 4096 ? PyEval_SaveThread() : NULL;
        switch (sz) {
        case 1: MASKED_RUN(uint8_t) break;
        case 2: MASKED_RUN(uint16_t) break;
        case 4: MASKED_RUN(uint32_t) break;
        default: MASKED_RUN(uint64_t) break;
        }
        if (ts != NULL)
            PyEval_RestoreThread(ts);
    }
    answer = Py_True;
done:
    PyBuffer_Release(&xb);
    PyBuffer_Release(&mb);
    PyBuffer_Release(&ob);
    PyBuffer_Release(&fb);
    Py_INCREF(answer);
    return answer;
}
#undef MASKED_RUN
