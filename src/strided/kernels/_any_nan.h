/* any_nan(run) -> bool | None: whether the C-contiguous float32 ("f") or float64 ("d") buffer run
 * holds a NaN (strided.kernels.reduce.holds_nan's answer, one pass in C: the small reductions ask it
 * of their fresh result, where the Python path read the values into a list); None for any other
 * buffer (another format, not contiguous, misaligned): the caller's own test. */
static PyObject *py_any_nan(PyObject *self, PyObject *run)
{
    (void)self;
    Py_buffer b;
    if (PyObject_GetBuffer(run, &b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    const char *f = b.format ? b.format : "B";
    int kind = (f[0] == 'f' && !f[1] && b.itemsize == 4) ? 4 : (f[0] == 'd' && !f[1] && b.itemsize == 8) ? 8 : 0;
    if (!kind || (uintptr_t)b.buf % (uintptr_t)kind) {
        PyBuffer_Release(&b);
        Py_RETURN_NONE;
    }
    Py_ssize_t n = b.len / kind;
    int found = 0;
    if (kind == 4) {
        const float *p = b.buf;
        for (Py_ssize_t i = 0; i < n; i++)
            found |= p[i] != p[i];
    } else {
        const double *p = b.buf;
        for (Py_ssize_t i = 0; i < n; i++)
            found |= p[i] != p[i];
    }
    PyBuffer_Release(&b);
    return PyBool_FromLong(found);
}
