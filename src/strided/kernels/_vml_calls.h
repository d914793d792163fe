/* MKL VML's unary functions called as PyTorch's CPU kernels call them (ATen/cpu/vml.h's
 * IMPLEMENT_VML_MKL: mode VML_HA | VML_FTZDAZ_OFF | VML_ERRMODE_IGNORE), for
 * strided.kernels.vml_route. Included by _matkernel.c.
 *
 * vml_setup(addresses, mode): the ILP64 entries (vms<Op>_64, vmd<Op>_64: a 64-bit n, so no
 * chunking at 2^31 as PyTorch's LP64 calls need; VML's results are elementwise, so the cut does
 * not change a bit) in vml_route.OPS order, float32 then float64 per op; () switches the route off.
 *
 * vml_run(x, out, op): op of the 1-D contiguous float run x into out (a unary front's kernel
 * entry, strided.ops._support.front.kernel_entry); False (nothing written) when the route is off.
 *
 * vml_apply(x, out, op): op of any strided x into any strided out of the same shape and float
 * dtype (x may hold stride-0 dims): rows contiguous in both go to VML as they are; other rows are
 * gathered into a buffer of 8 KB, computed in place there and scattered, as PyTorch's
 * IMPLEMENT_ITERATOR_LAMBDA does. False when the route is off or the buffers do not fit. The GIL
 * is released around large calls. */

#define VML_OPS 15
#define VML_MIN_UNLOCKED 16384 /* elements: below, releasing the GIL costs more than it lends */

typedef void (*vml_fn)(int64_t n, const void *a, void *r, int64_t mode);

static vml_fn vml_fns[VML_OPS][2];
static int64_t vml_mode;
static int vml_on;

static PyObject *py_vml_setup(PyObject *self, PyObject *args)
{
    PyObject *addrs;
    long long mode;
    if (!PyArg_ParseTuple(args, "O!L:vml_setup", &PyTuple_Type, &addrs, &mode))
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(addrs);
    if (n == 0) {
        vml_on = 0;
        Py_RETURN_NONE;
    }
    if (n != 2 * VML_OPS) {
        PyErr_Format(PyExc_ValueError, "vml_setup: %d addresses expected, got %zd", 2 * VML_OPS, n);
        return NULL;
    }
    vml_fn fns[VML_OPS][2];
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned long long a = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(addrs, i));
        if (PyErr_Occurred())
            return NULL;
        if (a == 0) {
            PyErr_SetString(PyExc_ValueError, "vml_setup: a null address");
            return NULL;
        }
        fns[i / 2][i % 2] = (vml_fn)(uintptr_t)a;
    }
    memcpy(vml_fns, fns, sizeof fns);
    vml_mode = (int64_t)mode;
    vml_on = 1;
    Py_RETURN_NONE;
}

/* The function for op and an element size (4: float32, 8: float64), or NULL. */
static vml_fn vml_pick(int op, Py_ssize_t itemsize, const char *format)
{
    if (!vml_on || op < 0 || op >= VML_OPS || format == NULL || format[1] != '\0')
        return NULL;
    if (itemsize == 4 && format[0] == 'f')
        return vml_fns[op][0];
    if (itemsize == 8 && format[0] == 'd')
        return vml_fns[op][1];
    return NULL;
}

static void vml_call(vml_fn f, int64_t n, const void *a, void *r)
{
    if (n >= VML_MIN_UNLOCKED) {
        Py_BEGIN_ALLOW_THREADS
        f(n, a, r, vml_mode);
        Py_END_ALLOW_THREADS
    } else if (n > 0) {
        f(n, a, r, vml_mode);
    }
}

/* The arguments (x, out, op) of vml_run / vml_apply: 1 with both buffers held (``flags``: their
 * layout request), the op's function in *f (NULL: not for this dtype) and *ok whether x and out
 * are of one float dtype and aligned; 0 to answer False (off, or not buffers of that layout:
 * nothing held); -1 on an error. */
static int vml_args(PyObject *const *args, Py_ssize_t nargs, const char *usage, int flags, Py_buffer *x,
                    Py_buffer *out, vml_fn *f, int *ok)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, usage);
        return -1;
    }
    int op = (int)PyLong_AsLong(args[2]);
    if (op == -1 && PyErr_Occurred())
        return -1;
    if (!vml_on)
        return 0;
    if (PyObject_GetBuffer(args[0], x, flags | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        return 0;
    }
    if (PyObject_GetBuffer(args[1], out, flags | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyErr_Clear();
        PyBuffer_Release(x);
        return 0;
    }
    *f = vml_pick(op, x->itemsize, x->format);
    *ok = *f != NULL && out->itemsize == x->itemsize && out->format != NULL && out->format[0] == x->format[0]
          && ((uintptr_t)x->buf % x->itemsize) == 0 && ((uintptr_t)out->buf % x->itemsize) == 0;
    return 1;
}

static PyObject *py_vml_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer x, out;
    vml_fn f;
    int ok, got = vml_args(args, nargs, "vml_run(x, out, op)", PyBUF_C_CONTIGUOUS, &x, &out, &f, &ok);
    if (got <= 0)
        return got < 0 ? NULL : Py_NewRef(Py_False);
    ok = ok && out.len == x.len;
    if (ok)
        vml_call(f, x.len / x.itemsize, x.buf, out.buf);
    PyBuffer_Release(&out);
    PyBuffer_Release(&x);
    return PyBool_FromLong(ok);
}

#define VML_BUFFER_BYTES 8192

/* One row of n elements: x and out with byte strides xs and os. */
static void vml_row(vml_fn f, Py_ssize_t item, int64_t n, const char *x, Py_ssize_t xs, char *out,
                    Py_ssize_t os, char *buf)
{
    if (xs == item && os == item) {
        f(n, x, out, vml_mode);
        return;
    }
    int64_t width = VML_BUFFER_BYTES / item;
    for (int64_t start = 0; start < n; start += width) {
        int64_t m = n - start < width ? n - start : width;
        const char *p = x + start * xs;
        for (int64_t i = 0; i < m; i++, p += xs)
            memcpy(buf + i * item, p, item);
        f(m, buf, buf, vml_mode);
        char *q = out + start * os;
        for (int64_t i = 0; i < m; i++, q += os)
            memcpy(q, buf + i * item, item);
    }
}

static Py_ssize_t vml_abs(Py_ssize_t v) { return v < 0 ? -v : v; }

/* Whether dim a goes outside dim b: a larger |stride| of out (ties: of x). */
static int vml_outer(Py_buffer *out, Py_buffer *x, int a, int b)
{
    Py_ssize_t oa = vml_abs(out->strides[a]), ob = vml_abs(out->strides[b]);
    if (oa != ob)
        return oa > ob;
    return vml_abs(x->strides[a]) > vml_abs(x->strides[b]);
}

/* Every row of the n-dim views (the last dim a row; a 0-d view is one row of 1), their dims first
 * merged where both views allow (a row-major pair: one call), as TensorIterator coalesces. */
static void vml_rows(vml_fn f, Py_buffer *x, Py_buffer *out, char *buf)
{
    Py_ssize_t item = x->itemsize;
    Py_ssize_t shape[64], xs[64], os[64];
    int order[64], n_order = 0;
    /* the dims in out's memory order (the largest |stride| outermost: a transposed pair becomes
     * one run), size-1 dims left out; the order of an elementwise op's elements changes no bit */
    for (int d = 0; d < x->ndim; d++) {
        if (x->shape[d] == 1)
            continue; /* (a size-1 dim moves nowhere) */
        int i = n_order++;
        while (i > 0 && vml_outer(out, x, d, order[i - 1])) {
            order[i] = order[i - 1];
            i--;
        }
        order[i] = d;
    }
    int nd = 0;
    for (int k = 0; k < n_order; k++) {
        int d = order[k];
        if (nd > 0 && xs[nd - 1] == x->shape[d] * x->strides[d] && os[nd - 1] == x->shape[d] * out->strides[d]) {
            shape[nd - 1] *= x->shape[d]; /* (merged into the dim before) */
            xs[nd - 1] = x->strides[d];
            os[nd - 1] = out->strides[d];
            continue;
        }
        shape[nd] = x->shape[d];
        xs[nd] = x->strides[d];
        os[nd] = out->strides[d];
        nd++;
    }
    if (nd == 0) {
        vml_row(f, item, 1, x->buf, item, out->buf, item, buf);
        return;
    }
    int64_t rows = 1;
    for (int d = 0; d < nd - 1; d++)
        rows *= shape[d];
    Py_ssize_t idx[64] = {0};
    const char *xp = x->buf;
    char *op = out->buf;
    for (int64_t r = 0; r < rows; r++) {
        vml_row(f, item, shape[nd - 1], xp, xs[nd - 1], op, os[nd - 1], buf);
        for (int d = nd - 2; d >= 0; d--) { /* the next row: an odometer over the outer dims */
            xp += xs[d];
            op += os[d];
            if (++idx[d] < shape[d])
                break;
            xp -= xs[d] * shape[d];
            op -= os[d] * shape[d];
            idx[d] = 0;
        }
    }
}

static PyObject *py_vml_apply(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer x, out;
    vml_fn f;
    int ok, got = vml_args(args, nargs, "vml_apply(x, out, op)", PyBUF_STRIDES, &x, &out, &f, &ok);
    if (got <= 0)
        return got < 0 ? NULL : Py_NewRef(Py_False);
    ok = ok && out.ndim == x.ndim && x.ndim <= 64;
    int64_t n = 1;
    for (int d = 0; ok && d < x.ndim; d++) {
        ok = x.shape[d] == out.shape[d] && x.strides[d] % x.itemsize == 0 && out.strides[d] % x.itemsize == 0;
        n *= x.shape[d];
    }
    if (ok && n > 0) {
        char buf[VML_BUFFER_BYTES] __attribute__((aligned(64)));
        if (n >= VML_MIN_UNLOCKED) {
            Py_BEGIN_ALLOW_THREADS
            vml_rows(f, &x, &out, buf);
            Py_END_ALLOW_THREADS
        } else {
            vml_rows(f, &x, &out, buf);
        }
    }
    PyBuffer_Release(&out);
    PyBuffer_Release(&x);
    return PyBool_FromLong(ok);
}
