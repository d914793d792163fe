/* NumPy's own ufunc inner loops, chained in one C call (included by _specialkernel.c where the
 * build found NumPy's headers: STRIDED_NUMPY_HEADERS).
 *
 * A small op whose fast path is a few NumPy ufunc calls on a flat run (polar: np.cos and np.sin of
 * the angles; logit: np.log in place; F.softplus was one, now the SLEEF kernel's) spends most of its time in the
 * calls' set-up, not in their loops. Here the loops themselves are called: the inner loop
 * function NumPy's ufunc holds for the dtype (ufunc->functions[i], the one its dispatch picked at
 * import for this CPU: its own SIMD or SVML loop, not the C library's), with the arguments NumPy's
 * trivial one-dimensional loop passes it (the whole contiguous run at once, the same pointers:
 * an in-place call in place, a fresh output fresh), so every element gets NumPy's bits. The
 * floating-point status flags the loops raise are cleared after them, as NumPy's ufunc call
 * clears them after reading them (the fast paths run quietly: nothing is warned).
 *
 * The loops are looked up by name on the first call (the GIL held); where one is not found (a
 * NumPy without that type's legacy loop) the entries answer False and the Python path runs. Only
 * the ufunc object's ABI-stable head is read (nin, nout, nargs, functions, data, ntypes, types). */

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define NO_IMPORT_UFUNC /* (only the struct is read: no API table) */
#include <numpy/ndarraytypes.h>
#include <numpy/ufuncobject.h>
#include <fenv.h>

typedef struct {
    PyUFuncGenericFunction fn;
    void *data;
} np_loop;

enum { NPL_EXP, NPL_LOG1P, NPL_COS, NPL_SIN, NPL_LOG, NPL_COUNT };
static const char *const np_loop_names[NPL_COUNT] = {"exp", "log1p", "cos", "sin", "log"};
static np_loop np_loops[NPL_COUNT][2]; /* [ufunc][0: float32, 1: float64] */
static int np_loops_state = 0;         /* 0: not looked up, 1: all found, -1: some missing */

/* ufunc `name`'s one-input loop for `type` (in and out of that type); fn NULL where none */
static np_loop np_find_loop(PyObject *numpy, const char *name, int type)
{
    np_loop found = {NULL, NULL};
    PyObject *u = PyObject_GetAttrString(numpy, name);
    if (u == NULL) {
        PyErr_Clear();
        return found;
    }
    PyUFuncObject *uf = (PyUFuncObject *)u;
    if (PyObject_HasAttrString(u, "ntypes") && uf->nin == 1 && uf->nout == 1 && uf->nargs == 2 && uf->functions)
        for (int i = 0; i < uf->ntypes; i++)
            if (uf->types[2 * i] == type && uf->types[2 * i + 1] == type) {
                found.fn = uf->functions[i];
                found.data = uf->data ? uf->data[i] : NULL;
                break;
            }
    Py_DECREF(u);
    return found;
}

static int np_loops_ready(void)
{
    if (np_loops_state) return np_loops_state > 0;
    PyObject *numpy = PyImport_ImportModule("numpy");
    if (numpy == NULL) {
        PyErr_Clear();
        np_loops_state = -1;
        return 0;
    }
    int all = 1;
    for (int k = 0; k < NPL_COUNT; k++)
        for (int f = 0; f < 2; f++) {
            np_loops[k][f] = np_find_loop(numpy, np_loop_names[k], f ? NPY_DOUBLE : NPY_FLOAT);
            all &= np_loops[k][f].fn != NULL;
        }
    Py_DECREF(numpy);
    np_loops_state = all ? 1 : -1;
    return all;
}

/* loop `k` of the float type (f64: double) from `in` to `out`, n contiguous elements, as NumPy's
 * trivial loop calls it */
static void np_call(int k, int f64, const void *in, void *out, Py_ssize_t n)
{
    npy_intp size = f64 ? 8 : 4;
    char *args[2] = {(char *)in, (char *)out};
    npy_intp dims[1] = {(npy_intp)n}, steps[2] = {size, size};
    np_loops[k][f64].fn(args, dims, steps, np_loops[k][f64].data);
}

/* 'f' (1) or 'd' (2) for a C-contiguous buffer of float32 / float64 aligned to its type, else 0 */
static int np_float_kind(const Py_buffer *b)
{
    char kind = format_kind(b);
    Py_ssize_t size = kind == 'f' ? 4 : kind == 'd' ? 8 : 0;
    if (!size || b->itemsize != size || !PyBuffer_IsContiguous(b, 'C') || (uintptr_t)b->buf % size) return 0;
    return kind == 'f' ? 1 : 2;
}

/* logit without eps, unary_more._logit_fresh's calls: out = x / (1 - x) (unary_exact's code 4,
 * logit_ratio), then np.log(out, out=out) (in place); 1 (the caller's Python path, which gives NaN
 * quotients PyTorch's bits: unary_more._logit_nan_bits) where some quotient is NaN or negative */
static int logit_steps(const void *x, void *out, Py_ssize_t n, int f64)
{
    int special = f64 ? logit_ratio_double(x, out, n) : logit_ratio_float(x, out, n);
    if (special) return 1;
    np_call(NPL_LOG, f64, out, out, n);
    feclearexcept(FE_ALL_EXCEPT);
    return 0;
}

/* NAME(x, out) -> bool: steps(x, out) of a flat float32 / float64 run into out. x and out: one
 * format and length, C-contiguous, aligned, overlapping nowhere. False otherwise (nothing written),
 * where NumPy's loops were not found, or where steps answers 1 (out then holds scratch values the
 * caller drops for its Python path). */
static PyObject *unary_chain(PyObject *const *args, Py_ssize_t nargs, const char *name,
                             int (*steps)(const void *, void *, Py_ssize_t, int))
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "%s(x, out) takes 2 arguments, not %zd", name, nargs);
        return NULL;
    }
    if (!np_loops_ready()) Py_RETURN_FALSE;
    Py_buffer xb, ob;
    if (in_out_buffers(args[0], args[1], &xb, &ob) < 0) return NULL;
    PyObject *answer = Py_False;
    int kind = np_float_kind(&xb);
    if (kind && np_float_kind(&ob) == kind && ob.len == xb.len && !overlaps(&xb, &ob)) {
        Py_ssize_t n = xb.len / (kind == 2 ? 8 : 4);
        answer = n > 0 && steps(xb.buf, ob.buf, n, kind == 2) ? Py_False : Py_True;
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

static PyObject *py_logit_np(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return unary_chain(args, nargs, "logit_np", logit_steps);
}

#define POLAR_NP_MAX 2048 /* (the cosines' and sines' scratch, on the stack) */

/* polar_np(r, t, out) -> bool: polar(r, t) of two flat float32 / float64 runs into the complex run
 * out, complex_ops._polar_fast's calls: c = np.cos(t), s = np.sin(t) (NumPy's loops, each into a
 * fresh scratch run), then polar_parts' pass (out's pairs (r c, r s), NumPy's multiply's bits).
 * r, t: one format and length (at most POLAR_NP_MAX), C-contiguous, aligned; out: C-contiguous
 * complex of twice their bytes, overlapping neither. False (nothing written) otherwise, where
 * NumPy's loops were not found, or where polar_parts declines (an r and its cosine or sine both
 * NaN: NumPy's own calls decide which NaN). */
static PyObject *py_polar_np(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "polar_np(r, t, out) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    if (!np_loops_ready()) Py_RETURN_FALSE;
    Py_buffer rb, tb, ob;
    if (three_buffers(args, &rb, &tb, &ob) < 0) return NULL;
    PyObject *answer = Py_False;
    int kind = np_float_kind(&rb);
    Py_ssize_t size = kind == 2 ? 8 : 4;
    if (kind && np_float_kind(&tb) == kind && tb.len == rb.len && rb.len / size <= POLAR_NP_MAX
        && ob.len == 2 * rb.len && ob.itemsize == 2 * size && PyBuffer_IsContiguous(&ob, 'C')
        && (uintptr_t)ob.buf % size == 0 && !overlaps(&rb, &ob) && !overlaps(&tb, &ob)) {
        int f64 = kind == 2;
        Py_ssize_t n = rb.len / size;
        /* (float32: the first half of each, as floats; 64-byte aligned as a fresh NumPy array may be) */
        double c[POLAR_NP_MAX] __attribute__((aligned(64))), s[POLAR_NP_MAX] __attribute__((aligned(64)));
        int ok = 1;
        if (n > 0) {
            np_call(NPL_COS, f64, tb.buf, c, n);
            np_call(NPL_SIN, f64, tb.buf, s, n);
            feclearexcept(FE_ALL_EXCEPT);
            if (f64) {
                ok = !both_nan_double(rb.buf, c, s, n);
                if (ok) polar_parts_double(rb.buf, c, s, ob.buf, n);
            } else {
                ok = !both_nan_float(rb.buf, (float *)c, (float *)s, n);
                if (ok) polar_parts_float(rb.buf, (float *)c, (float *)s, ob.buf, n);
            }
        }
        answer = ok ? Py_True : Py_False;
    }
    PyBuffer_Release(&rb);
    PyBuffer_Release(&tb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

#define BCE_NP_BLOCK 512 /* (the block of -x and of log1p(-x), on the stack) */

/* Whether every element of the n-element run v lies in [0, 1] (a NaN does not):
 * binary_cross_entropy's range test (losses._bce_fresh: its smallest >= 0 and its largest <= 1). */
#define BCE_IN_UNIT(T, SFX)                                                                        \
    static int bce_in_unit_##SFX(const T *v, Py_ssize_t n)                                         \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++)                                                         \
            if (!(v[i] >= 0 && v[i] <= 1)) return 0;                                               \
        return 1;                                                                                  \
    }
BCE_IN_UNIT(float, float)
BCE_IN_UNIT(double, double)

/* out[i] = -(y * max(out[i], -100) + (1 - y) * max(l1[i], -100)), with out holding log(x) and l1
 * log1p(-x): losses._bce_fresh's NumPy expression after its two logs, each ufunc's one IEEE
 * operation in the run's type, in its order (np.maximum's: a NaN first operand kept, which a log
 * of [0, 1] never is). */
#define BCE_COMBINE(T, SFX)                                                                        \
    static void bce_combine_##SFX(const T *y, const T *l1, T *out, Py_ssize_t n)                   \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) {                                                       \
            T a = out[i] < (T)-100 ? (T)-100 : out[i];                                             \
            T b = l1[i] < (T)-100 ? (T)-100 : l1[i];                                               \
            T p = y[i] * a;                                                                        \
            T q = ((T)1 - y[i]) * b;                                                               \
            out[i] = -(p + q);                                                                     \
        }                                                                                          \
    }
BCE_COMBINE(float, float)
BCE_COMBINE(double, double)

/* binary_cross_entropy's per-element losses of x (probabilities) and y (targets) into out,
 * losses._bce_fresh's calls: np.log(x) (into out), -x, np.log1p of it (each into 64-byte aligned
 * stack scratch, as into a fresh array), then bce_combine; block by block (each element's bits
 * are its own). 1 (nothing written) where some x or y lies outside [0, 1] or is NaN: the caller's
 * forward raises PyTorch's error. */
static int bce_steps(const void *x, const void *y, void *out, Py_ssize_t n, int f64)
{
    if (f64 ? !bce_in_unit_double(x, n) || !bce_in_unit_double(y, n)
            : !bce_in_unit_float(x, n) || !bce_in_unit_float(y, n))
        return 1;
    double neg[BCE_NP_BLOCK] __attribute__((aligned(64))), l1[BCE_NP_BLOCK] __attribute__((aligned(64)));
    Py_ssize_t size = f64 ? 8 : 4;
    for (Py_ssize_t at = 0; at < n; at += BCE_NP_BLOCK) {
        Py_ssize_t k = n - at < BCE_NP_BLOCK ? n - at : BCE_NP_BLOCK;
        const char *xk = (const char *)x + at * size, *yk = (const char *)y + at * size;
        char *ok = (char *)out + at * size;
        np_call(NPL_LOG, f64, xk, ok, k);
        if (f64)
            for (Py_ssize_t i = 0; i < k; i++) neg[i] = -((const double *)xk)[i];
        else
            for (Py_ssize_t i = 0; i < k; i++) ((float *)neg)[i] = -((const float *)xk)[i];
        np_call(NPL_LOG1P, f64, neg, l1, k);
        if (f64) bce_combine_double((const double *)yk, l1, (double *)ok, k);
        else bce_combine_float((const float *)yk, (const float *)l1, (float *)ok, k);
    }
    feclearexcept(FE_ALL_EXCEPT);
    return 0;
}

/* bce_np(x, y, out) -> bool: bce_steps of two flat float32 / float64 runs into out. x, y, out: one
 * format and length, C-contiguous, aligned, out overlapping neither. False (nothing written)
 * otherwise, where NumPy's loops were not found, or where some x or y lies outside [0, 1]. */
static PyObject *py_bce_np(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "bce_np(x, y, out) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    if (!np_loops_ready()) Py_RETURN_FALSE;
    Py_buffer xb, yb, ob;
    if (three_buffers(args, &xb, &yb, &ob) < 0) return NULL;
    PyObject *answer = Py_False;
    int kind = np_float_kind(&xb);
    if (kind && np_float_kind(&yb) == kind && np_float_kind(&ob) == kind && yb.len == xb.len && ob.len == xb.len
        && !overlaps(&xb, &ob) && !overlaps(&yb, &ob)) {
        Py_ssize_t n = xb.len / (kind == 2 ? 8 : 4);
        answer = n > 0 && !bce_steps(xb.buf, yb.buf, ob.buf, n, kind == 2) ? Py_True : Py_False;
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

#define UFUNC_CHAIN_METHODS                                                                        \
    {"logit_np", (PyCFunction)(void (*)(void))py_logit_np, METH_FASTCALL,                          \
     "logit_np(x, out) -> bool: logit(x) (no eps): logit_ratio, then NumPy's own log loop in place, "     \
     "_logit_fresh's bits (False: not aligned C-contiguous float32/float64 runs of one format and length, "  \
     "an overlap, or NumPy's loops not found)"},                                               \
    {"bce_np", (PyCFunction)(void (*)(void))py_bce_np, METH_FASTCALL,                              \
     "bce_np(x, y, out) -> bool: binary_cross_entropy's per-element losses through NumPy's own log and "  \
     "log1p loops, _bce_fresh's bits (False: some x or y outside [0, 1] or NaN, not aligned C-contiguous "  \
     "float32/float64 runs of one format and length, an overlap, or NumPy's loops not found)"},   \
    {"polar_np", (PyCFunction)(void (*)(void))py_polar_np, METH_FASTCALL,                          \
     "polar_np(r, t, out) -> bool: polar through NumPy's own cos and sin loops and polar_parts' pass "  \
     "(False: as polar_parts, more than 2048 elements, or NumPy's loops not found)"},
