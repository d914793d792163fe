/* extreme_rows_at(storage, offset, count, stride, length, out, mode) -> int (included once by
 * _rowkernel.c, before its method table).
 *
 * The smallest (mode 0) or largest (1) element of each of `count` rows of `length` >= 1 contiguous
 * elements, row i starting at element offset + i * stride of the C-contiguous float32 ('f') or
 * float64 ('d') buffer `storage`, into out[i] (a writable C-contiguous buffer of the same type
 * holding at least `count` elements), as extreme_rows computes them (z_extreme_rows, or the AVX2 /
 * baseline loops). Returns how many results are a zero or NaN (0: every result is the one answer,
 * NumPy's and PyTorch's bits; else the caller settles those), or -1 where the call is not taken
 * (another type, an address not aligned to the element, count < 1, a negative offset or stride,
 * a row outside the buffer, out too small: the caller's other path).
 *
 * Why: amax/amin along the unit-stride dim of a large 2-d tensor (t.amax(1) of a row-major matrix,
 * t.amax(0) of its transpose) in one call that reads the tensor's storage as it is: the path
 * through NumPy's view, the rows' plan and the results' zero and NaN tests in Python cost ~12 us
 * over the kernel's ~42 us (1M float32), PyTorch's whole call being ~50.
 */
static PyObject *py_extreme_rows_at(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "extreme_rows_at(storage, offset, count, stride, length, out, mode) "
                                         "takes 7 arguments");
        return NULL;
    }
    Py_ssize_t num[4];
    for (int j = 0; j < 4; j++) {
        num[j] = PyLong_Check(args[1 + j]) ? PyLong_AsSsize_t(args[1 + j]) : -1;
        if (num[j] == -1 && PyErr_Occurred())
            return NULL;
    }
    Py_ssize_t offset = num[0], count = num[1], stride = num[2], length = num[3];
    int mode = PyLong_Check(args[6]) ? (int)PyLong_AsLong(args[6]) : -1;
    if (mode != 0 && mode != 1) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "extreme_rows_at: mode must be 0 (smallest) or 1 (largest)");
        return NULL;
    }
    Py_buffer xb, ob;
    int itemsize, floats = float_buffers(args[0], args[5], &xb, &ob, &itemsize);
    if (floats < 0)
        return NULL;
    long answer = -1;
    Py_ssize_t n = floats ? xb.len / itemsize : 0;
    /* (the last row's end, in elements, checked without overflow: each term below n) */
    if (floats && count >= 1 && length >= 1 && offset >= 0 && stride >= 0 && offset < n && length <= n - offset
        && (count == 1 || stride <= (n - offset - length) / (count - 1)) && ob.len / itemsize >= count) {
        const char *a = (const char *)xb.buf + offset * itemsize;
        Py_ssize_t bstride = stride * itemsize;
        int release = (double)count * (double)length >= (double)(1 << 16);
        PyThreadState *ts = release ? PyEval_SaveThread() : NULL;
        extreme_rows_any(itemsize, a, count, bstride, length, ob.buf, mode);
        answer = (long)count_unsure((const char *)ob.buf, itemsize, count, 1);
        if (release)
            PyEval_RestoreThread(ts);
    }
    PyBuffer_Release(&ob);
    PyBuffer_Release(&xb);
    return PyLong_FromLong(answer);
}
