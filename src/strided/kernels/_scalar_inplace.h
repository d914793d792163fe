/* scalar_inplace(x, v, op) -> bool: x[i] = x[i] OP (T)v over a C-contiguous, writable float32 ("f")
 * or float64 ("d") buffer x, for a Python float v and op 0 add, 1 subtract, 2 multiply, 3 divide:
 * what NumPy's np.add / np.subtract / np.multiply / np.true_divide(x, v, out=x) compute for a weak
 * Python float (v rounded once to the buffer's type, as the dtype's constructor rounds it, then one
 * IEEE operation per element: the same bits). It is an in-place optimizer's m.mul_(beta1) or
 * denom.add_(eps) (strided.ops.elementwise.binary._inplace_flat) without the ufunc's scalar
 * conversion, a third of such a call on a small tensor.
 *
 * False (nothing written) when v is NaN (with a NaN element too, which NaN comes out is the loop's
 * choice: NumPy's loop then decides), when v does not convert to float32 without overflow (the
 * caller passes only numbers that do: NumPy would warn), for an op other than 0-3, or for any other
 * buffer. Without a NaN v, no operation meets two NaNs, so the order of the operands cannot matter.
 * No floating-point flag is looked at (the caller's NumPy calls ignore them: QUIET). */

#define SCALAR_INPLACE_LOOP(T)                                                                     \
    ERF_CLONES static void scalar_inplace_##T(T *restrict x, Py_ssize_t n, T v, int op)           \
    {                                                                                              \
        switch (op) {                                                                              \
        case 0:                                                                                    \
            for (Py_ssize_t i = 0; i < n; i++) x[i] = x[i] + v;                                    \
            break;                                                                                 \
        case 1:                                                                                    \
            for (Py_ssize_t i = 0; i < n; i++) x[i] = x[i] - v;                                    \
            break;                                                                                 \
        case 2:                                                                                    \
            for (Py_ssize_t i = 0; i < n; i++) x[i] = x[i] * v;                                    \
            break;                                                                                 \
        default:                                                                                   \
            for (Py_ssize_t i = 0; i < n; i++) x[i] = x[i] / v;                                    \
            break;                                                                                 \
        }                                                                                          \
    }
SCALAR_INPLACE_LOOP(float)
SCALAR_INPLACE_LOOP(double)
#undef SCALAR_INPLACE_LOOP

static PyObject *py_scalar_inplace(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "scalar_inplace(x, v, op) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    if (!PyFloat_CheckExact(args[1]))
        Py_RETURN_FALSE;
    double v = PyFloat_AS_DOUBLE(args[1]);
    long op = PyLong_AsLong(args[2]);
    if (op == -1 && PyErr_Occurred())
        return NULL;
    if (v != v || op < 0 || op > 3)
        Py_RETURN_FALSE;
    Py_buffer b;
    if (PyObject_GetBuffer(args[0], &b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyErr_Clear(); /* (a read-only or strided buffer: the caller's NumPy call) */
        Py_RETURN_FALSE;
    }
    char kind = format_kind(&b);
    PyObject *answer = Py_False;
    int f32 = kind == 'f' && b.itemsize == 4 && (uintptr_t)b.buf % 4 == 0 && v > -3.4e38 && v < 3.4e38;
    if (f32 || (kind == 'd' && b.itemsize == 8 && (uintptr_t)b.buf % 8 == 0)) {
        Py_ssize_t n = b.len / b.itemsize;
        PyThreadState *save = n >= MIN_RELEASE ? PyEval_SaveThread() : NULL; /* (the caller holds x) */
        if (f32)
            scalar_inplace_float(b.buf, n, (float)v, (int)op);
        else
            scalar_inplace_double(b.buf, n, v, (int)op);
        if (save != NULL)
            PyEval_RestoreThread(save);
        answer = Py_True;
    }
    PyBuffer_Release(&b);
    Py_INCREF(answer);
    return answer;
}

#define SCALAR_INPLACE_METHODS                                                                     \
    {"scalar_inplace", (PyCFunction)(void (*)(void))py_scalar_inplace, METH_FASTCALL,               \
     "scalar_inplace(x, v, op) -> bool: x = x OP v in place for a C-contiguous float32/float64 x, a Python "  \
     "float v (rounded to x's type first) and op 0 add, 1 subtract, 2 multiply, 3 divide: NumPy's bits "      \
     "(False, nothing written: a NaN v, an op outside 0-3, any other buffer)"},
