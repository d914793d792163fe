/* fma_f64(x, y, z, out) -> bool: out[i] = fma(x[i], y[i], z[i]), each rounded once (C99's fma),
 * over four C-contiguous float64 buffers of one length (out writable; any alignment: read and
 * written by memcpy; NumPy names an unaligned view's format "=d" or "<d"). False (nothing written) for another format or unequal lengths.
 * PyTorch's CPU build contracts c10's complex division into fused multiply-adds (the complex
 * logcumsumexp step's log1p divides by one): strided.ops.reductions.scans._c10_divide calls this
 * for those steps, where a long-double stand-in rounds twice in rare cases. */
/* "d", or NumPy's spelling for an unaligned view ("=d", "<d" on this little-endian build) */
static int native_double(const char *f)
{
    if (f[0] == '@' || f[0] == '=' || (f[0] == '<' && PY_LITTLE_ENDIAN)) f++;
    return f[0] == 'd' && f[1] == 0;
}

static PyObject *py_fma_f64(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *objs[4];
    if (!PyArg_ParseTuple(args, "OOOO:fma_f64", &objs[0], &objs[1], &objs[2], &objs[3])) return NULL;
    Py_buffer b[4];
    int got = 0, ok = 1;
    for (; got < 4; got++) {
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (got == 3 ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(objs[got], &b[got], flags) < 0) break;
        if (!native_double(b[got].format) || b[got].itemsize != 8 || b[got].len != b[0].len) {
            got++;
            ok = 0;
            break;
        }
    }
    if (got < 4 && ok) { /* (a GetBuffer error: its exception stands) */
        for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
        return NULL;
    }
    if (ok) {
        Py_ssize_t n = b[0].len / 8;
        const char *x = b[0].buf, *y = b[1].buf, *z = b[2].buf;
        char *o = b[3].buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n; i++) {
            double u, v, w, r;
            memcpy(&u, x + 8 * i, 8);
            memcpy(&v, y + 8 * i, 8);
            memcpy(&w, z + 8 * i, 8);
            r = fma(u, v, w);
            memcpy(o + 8 * i, &r, 8);
        }
        Py_END_ALLOW_THREADS
    }
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
    if (ok) Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}
