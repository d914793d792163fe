/* logaddexp_scan_wide(x, out, n, inner) -> bool: PyTorch's float32 logcumsumexp along a dim of n
 * elements, bit for bit: its CPU kernel (ReduceOpsKernel.cpp, logcumsumexp_cpu_kernel) keeps the
 * running value in at::acc_type<float, false>, which is double, and stores each step rounded to
 * float; each step is _log_add_exp_helper(x, running), log1p(exp(min - max)) + max in double, the
 * same bits as NumPy's npy_logaddexp(running, x) of doubles (logaddexp_ref: x == y gives
 * x + ln 2 = log1p(1) + x; otherwise the same difference and the C library's exp and log1p), and
 * the first running value x + 0 (logaddexp(-inf, x)). x and out: C-contiguous float32 ("f")
 * buffers of one length, a multiple of n * inner (the dim's blocks of n * inner elements, inner the
 * elements after it). Rows (inner 1) run eight at a time, as logaddexp_scan's. False (nothing
 * written) where out overlaps x or the scratch of inner doubles cannot be had.
 * (Included once by _specialkernel.c, after logaddexp_ref, overlaps and format_kind.) */

static void lcse_wide_rows(const float *xs, float *os, Py_ssize_t rows, Py_ssize_t n)
{
    Py_ssize_t r = 0;
    for (; r + 8 <= rows; r += 8) { /* eight dependent chains of exp and log1p side by side */
        const float *xl = xs + r * n;
        float *ol = os + r * n;
        double acc[8];
        for (int l = 0; l < 8; l++) {
            acc[l] = (double)xl[l * n] + 0.0;
            ol[l * n] = (float)acc[l];
        }
        for (Py_ssize_t i = 1; i < n; i++)
            for (int l = 0; l < 8; l++) {
                acc[l] = logaddexp_ref(acc[l], (double)xl[l * n + i], 0);
                ol[l * n + i] = (float)acc[l];
            }
    }
    for (; r < rows; r++) {
        const float *xl = xs + r * n;
        float *ol = os + r * n;
        double acc = (double)xl[0] + 0.0;
        ol[0] = (float)acc;
        for (Py_ssize_t i = 1; i < n; i++) {
            acc = logaddexp_ref(acc, (double)xl[i], 0);
            ol[i] = (float)acc;
        }
    }
}

static void lcse_wide_blocks(const float *xs, float *os, Py_ssize_t total, Py_ssize_t n, Py_ssize_t inner,
                             double *acc)
{
    for (Py_ssize_t o = 0; o < total; o += n * inner) {
        const float *xl = xs + o;
        float *ol = os + o;
        for (Py_ssize_t j = 0; j < inner; j++) {
            acc[j] = (double)xl[j] + 0.0;
            ol[j] = (float)acc[j];
        }
        for (Py_ssize_t i = 1; i < n; i++)
            for (Py_ssize_t j = 0; j < inner; j++) {
                acc[j] = logaddexp_ref(acc[j], (double)xl[i * inner + j], 0);
                ol[i * inner + j] = (float)acc[j];
            }
    }
}

static PyObject *py_logaddexp_scan_wide(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "logaddexp_scan_wide(x, out, n, inner) takes 4 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[2]);
    Py_ssize_t inner = PyLong_AsSsize_t(args[3]);
    if ((n == -1 || inner == -1) && PyErr_Occurred()) return NULL;
    Py_buffer xb, ob;
    if (PyObject_GetBuffer(args[0], &xb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &ob, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&xb);
        return NULL;
    }
    PyObject *answer = NULL;
    int known = format_kind(&xb) == 'f' && xb.itemsize == 4 && format_kind(&ob) == 'f' && ob.itemsize == 4;
    Py_ssize_t total = known ? xb.len / 4 : 0;
    if (!known || ob.len != xb.len || n < 1 || inner < 1 || total % (n * inner) != 0) {
        PyErr_Format(PyExc_ValueError, "logaddexp_scan_wide: x and out must be C-contiguous float32 buffers of one "
                     "length, a multiple of n * inner >= 1 (formats %s and %s, %zd and %zd bytes, n %zd, inner %zd)",
                     xb.format, ob.format, xb.len, ob.len, n, inner);
        goto done;
    }
    answer = Py_False;
    if (overlaps(&xb, &ob)) goto done;
    if (inner == 1) {
        Py_BEGIN_ALLOW_THREADS
        lcse_wide_rows(xb.buf, ob.buf, total / n, n);
        Py_END_ALLOW_THREADS
        answer = Py_True;
    } else if (total) {
        double *acc = PyMem_RawMalloc((size_t)inner * sizeof(double));
        if (acc != NULL) {
            Py_BEGIN_ALLOW_THREADS
            lcse_wide_blocks(xb.buf, ob.buf, total, n, inner, acc);
            Py_END_ALLOW_THREADS
            PyMem_RawFree(acc);
            answer = Py_True;
        }
    } else {
        answer = Py_True;
    }
done:
    PyBuffer_Release(&xb);
    PyBuffer_Release(&ob);
    Py_XINCREF(answer);
    return answer;
}

#define LCSE_WIDE_METHODS                                                                          \
    {"logaddexp_scan_wide", (PyCFunction)(void (*)(void))py_logaddexp_scan_wide, METH_FASTCALL,     \
     "logaddexp_scan_wide(x, out, n, inner) -> bool: PyTorch's float32 logcumsumexp along a dim (the running "     \
     "value in double, each step rounded to float; the first value x + 0) (False: an overlap)"},
