/* strided.kernels._randdist: the in-place samplers' common call (a C-contiguous float32/float64
 * target, the default generator) drawn and finished in one C call, through NumPy's own
 * distribution functions (numpy/random/lib/libnpyrandom.a, the object code numpy.random.Generator
 * runs: the same ziggurats, the same calls into the bit generator in the same order, so the same
 * numbers and the same stream afterwards).
 *
 * Each ``*_fill(capsule, out, ...) -> bool`` writes what strided's Python path writes into ``out``
 * (numbered below by that path's NumPy steps); False, nothing drawn, where ``out`` is not an
 * aligned C-contiguous float32 ("f") or float64 ("d") buffer (the caller then takes the Python
 * path). The float arithmetic is the ufuncs' own: one IEEE operation per step in the target's
 * type (a float32 target's Python-float operand rounded to float32 first, as NumPy's weak scalar
 * is), no contraction (-ffp-contract=off). The callers give only arguments under which no step
 * can overflow or produce a NaN from numbers (so no ufunc would have warned): see random.py.
 *
 * Why: Generator.standard_normal/standard_exponential/geometric/standard_cauchy spend ~1 us a
 * call on argument handling, and each following ufunc ~0.4 us, against ~0.05 us of drawing for a
 * (3, 4) target. The caller holds strided's lock of the generator.
 */
#define PY_SSIZE_T_CLEAN
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <math.h>

#include "_rand_target.h"
#include <numpy/random/distributions.h>
#include <numpy/ndarraytypes.h>
#include <numpy/ufuncobject.h>

static int start(const char *name, Py_ssize_t want, PyObject *const *args, Py_ssize_t nargs, bitgen_t **b,
                 Py_buffer *view, double *x)
{
    if (nargs != want) {
        PyErr_Format(PyExc_TypeError, "%s takes %zd arguments, not %zd", name, want, nargs);
        return -1;
    }
    for (Py_ssize_t i = 2; i < nargs; i++) {
        x[i - 2] = PyFloat_AsDouble(args[i]);
        if (x[i - 2] == -1.0 && PyErr_Occurred()) return -1;
    }
    *b = (bitgen_t *)PyCapsule_GetPointer(args[0], "BitGenerator");
    if (*b == NULL) return -1;
    return float_target(args[1], view);
}

#define BEGIN(NAME, N)                                                   \
    (void)self;                                                          \
    bitgen_t *b;                                                         \
    Py_buffer view;                                                      \
    double x[3];                                                         \
    int kind = start(NAME, N, args, nargs, &b, &view, x);                \
    if (kind < 0) return NULL;                                           \
    if (kind == 0) Py_RETURN_FALSE;                                      \
    Py_ssize_t n = view.len / view.itemsize;

#define END                 \
    PyBuffer_Release(&view); \
    Py_RETURN_TRUE;

/* exponential_fill(capsule, out, rate): exponential_'s fill, (1) Generator.standard_exponential(
 * dtype=out's, out=out), (2) out /= rate where rate != 1. */
static void exponential_loop(bitgen_t *b, int kind, void *out, Py_ssize_t n, double r)
{
    if (kind == 'f') {
        float *o = (float *)out, rf = (float)r;
        random_standard_exponential_fill_f(b, n, o);
        if (r != 1.0)
            for (Py_ssize_t i = 0; i < n; i++) o[i] = o[i] / rf;
    } else {
        double *o = (double *)out;
        random_standard_exponential_fill(b, n, o);
        if (r != 1.0)
            for (Py_ssize_t i = 0; i < n; i++) o[i] = o[i] / r;
    }
}

static PyObject *py_exponential_fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    BEGIN("exponential_fill", 3)
    exponential_loop(b, kind, view.buf, n, x[0]);
    END
}

/* geometric_fill(capsule, out, p): geometric_'s sample, (1) Generator.geometric(p, shape) (int64),
 * (2) cast into out (C's int64 -> float conversion, NumPy's cast). */
/* random_geometric_search(b, p) (NumPy's draw for p >= 1/3) over a whole fill: its loop's sums
 * p, p + p q, p + p q + p q**2, ... (q = 1 - p) are the same for every draw, so the first
 * GEO_TABLE are made once, by the same float steps in the same order, and each draw's X is 1 +
 * how many of them its U exceeds, counted without branches (the sums never decrease, so the loop
 * stops at the first one >= U: a branch on it mispredicts about once a draw); a U beyond them
 * goes on with the loop's steps from there. One next_double per draw, as NumPy's: the same X, the
 * same stream. (16x16 float32, p = 0.5: ~17 -> ~7 ns a draw.) */
#define GEO_TABLE 8

#define GEOMETRIC_SEARCH(T)                                                                     \
    {                                                                                           \
        T *o = (T *)out;                                                                        \
        for (Py_ssize_t i = 0; i < n; i++) {                                                    \
            double u = b->next_double(b->state);                                                \
            int64_t x = 1;                                                                      \
            for (int k = 0; k < GEO_TABLE; k++)                                                 \
                x += u > sums[k];                                                               \
            if (u > sums[GEO_TABLE - 1]) { /* (x is GEO_TABLE + 1: the loop's next steps) */    \
                double pr = prod, sum = sums[GEO_TABLE - 1];                                    \
                for (;;) {                                                                      \
                    pr *= q;                                                                    \
                    sum += pr;                                                                  \
                    if (!(u > sum))                                                             \
                        break;                                                                  \
                    x++;                                                                        \
                }                                                                               \
            }                                                                                   \
            o[i] = (T)x;                                                                        \
        }                                                                                       \
    }

static void geometric_search_loop(bitgen_t *b, int kind, void *out, Py_ssize_t n, double p)
{
    double sums[GEO_TABLE], q = 1.0 - p, prod = p;
    sums[0] = p;
    for (int k = 1; k < GEO_TABLE; k++) {
        prod *= q;
        sums[k] = sums[k - 1] + prod;
    }
    /* (prod: p q**(GEO_TABLE - 1), the loop's product at its last sum in the table) */
    if (kind == 'f')
        GEOMETRIC_SEARCH(float)
    else
        GEOMETRIC_SEARCH(double)
}

static void geometric_loop(bitgen_t *b, int kind, void *out, Py_ssize_t n, double p)
{
    if (p >= 0.333333333333333333333333) { /* (random_geometric's own test and constant) */
        geometric_search_loop(b, kind, out, n, p);
        return;
    }
    if (kind == 'f') {
        float *o = (float *)out;
        for (Py_ssize_t i = 0; i < n; i++) o[i] = (float)random_geometric(b, p);
    } else {
        double *o = (double *)out;
        for (Py_ssize_t i = 0; i < n; i++) o[i] = (double)random_geometric(b, p);
    }
}

static PyObject *py_geometric_fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    BEGIN("geometric_fill", 3)
    geometric_loop(b, kind, view.buf, n, x[0]);
    END
}

/* cauchy_fill(capsule, out, median, sigma): cauchy_'s sample, (1) Generator.standard_cauchy(shape)
 * (float64), (2) *= sigma where sigma != 1, (3) += median, in float64, (4) cast into out. */
static void cauchy_loop(bitgen_t *b, int kind, void *out, Py_ssize_t n, double m, double s)
{
    int scaled = s != 1.0;
    if (kind == 'f') {
        float *o = (float *)out;
        for (Py_ssize_t i = 0; i < n; i++) {
            double v = random_standard_cauchy(b);
            if (scaled) v = v * s;
            o[i] = (float)(v + m);
        }
    } else {
        double *o = (double *)out;
        for (Py_ssize_t i = 0; i < n; i++) {
            double v = random_standard_cauchy(b);
            if (scaled) v = v * s;
            o[i] = v + m;
        }
    }
}

static PyObject *py_cauchy_fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    BEGIN("cauchy_fill", 4)
    cauchy_loop(b, kind, view.buf, n, x[0], x[1]);
    END
}

/* numpy.exp's float64 loop (the dispatched one NumPy itself runs: its own SIMD exp where the CPU
 * has it, not the C library's), found at import in the ufunc's table; NULL if not found there
 * (log_normal_fill then draws nothing). */
static PyUFuncGenericFunction exp_loop = NULL;
static void *exp_data = NULL;

static void find_exp(void)
{
    PyObject *np = PyImport_ImportModule("numpy");
    PyObject *exp = np ? PyObject_GetAttrString(np, "exp") : NULL;
    Py_XDECREF(np);
    if (exp == NULL) {
        PyErr_Clear();
        return;
    }
    PyUFuncObject *u = (PyUFuncObject *)exp;
    if (PyObject_HasAttrString(exp, "ntypes") && u->nin == 1 && u->nout == 1 && u->nargs == 2 && u->functions)
        for (int i = 0; i < u->ntypes; i++)
            if (u->types[2 * i] == NPY_DOUBLE && u->types[2 * i + 1] == NPY_DOUBLE) {
                exp_loop = u->functions[i];
                exp_data = u->data ? u->data[i] : NULL;
                break;
            }
    Py_DECREF(exp);
}

/* exp in place over n contiguous doubles by NumPy's loop, as np.exp(x, out=x) calls it (the same
 * pointer in and out). */
static void exp_in_place(double *x, Py_ssize_t n)
{
    char *args[2] = {(char *)x, (char *)x};
    npy_intp dims[1] = {(npy_intp)n}, steps[2] = {sizeof(double), sizeof(double)};
    exp_loop(args, dims, steps, exp_data);
}

/* log_normal_fill(capsule, out, mean, std) -> bool: log_normal_'s whole fill, (1)
 * Generator.standard_normal(shape) (float64), (2) *= std, (3) += mean, (4) np.exp in place (NumPy's
 * own float64 loop), (5) cast into out; float32 targets in blocks of 256 (a block's draws, then its
 * exp and cast: the same values, element by element). The caller gives only means and stds with
 * |mean| + 15 std <= 700: a ziggurat draw is within +-15, so every exp argument is within
 * [-700, 700], where exp neither overflows nor underflows (np.exp would not warn). */
static void log_normal_loop(bitgen_t *b, int kind, void *out, Py_ssize_t n, double m, double s)
{
    if (kind == 'd') {
        double *o = (double *)out;
        random_standard_normal_fill(b, n, o);
        for (Py_ssize_t i = 0; i < n; i++) o[i] = o[i] * s;
        for (Py_ssize_t i = 0; i < n; i++) o[i] = o[i] + m;
        exp_in_place(o, n);
    } else {
        float *o = (float *)out;
        double block[256];
        for (Py_ssize_t at = 0; at < n; at += 256) {
            Py_ssize_t k = n - at < 256 ? n - at : 256;
            random_standard_normal_fill(b, k, block);
            for (Py_ssize_t i = 0; i < k; i++) block[i] = block[i] * s;
            for (Py_ssize_t i = 0; i < k; i++) block[i] = block[i] + m;
            exp_in_place(block, k);
            for (Py_ssize_t i = 0; i < k; i++) o[at + i] = (float)block[i];
        }
    }
}

static PyObject *py_log_normal_fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    BEGIN("log_normal_fill", 4)
    if (exp_loop == NULL) {
        PyBuffer_Release(&view);
        Py_RETURN_FALSE;
    }
    log_normal_loop(b, kind, view.buf, n, x[0], x[1]);
    END
}

/* ---- the compiled samplers' entry (kernels/_front.h, entry_sample) ----
 *
 * sample(op, bitgen, kind, out, n, x): as _randkernel.c's sample (its contract), for the samplers
 * drawn through NumPy's distribution functions, taking the arguments random.py's fast paths
 * give these fills (SCALE_LO, SCALE_HI: its _SCALE_LO, _SCALE_HI):
 *   0 exponential_(lambd): lambd within [SCALE_LO, SCALE_HI];
 *   1 geometric_(p): 0 < p < 1;
 *   2 cauchy_(median, sigma): sigma within [SCALE_LO, SCALE_HI], median 0 or within it in magnitude;
 *   3 log_normal_(mean, std): std >= SCALE_LO and |mean| + 15 std <= 700 (NumPy's exp loop found). */
#define SCALE_LO 1e-20
#define SCALE_HI 1e15

static int scale_ok(double v) { return v >= SCALE_LO && v <= SCALE_HI; }

static int sample(int op, void *bitgen, int kind, void *out, Py_ssize_t n, const double *x)
{
    bitgen_t *b = (bitgen_t *)bitgen;
    switch (op) {
    case 0:
        if (!scale_ok(x[0]))
            return 0;
        exponential_loop(b, kind, out, n, x[0]);
        return 1;
    case 1:
        if (!(x[0] > 0.0 && x[0] < 1.0))
            return 0;
        geometric_loop(b, kind, out, n, x[0]);
        return 1;
    case 2:
        if (!scale_ok(x[1]) || !(x[0] == 0.0 || scale_ok(fabs(x[0]))))
            return 0;
        cauchy_loop(b, kind, out, n, x[0], x[1]);
        return 1;
    case 3:
        if (exp_loop == NULL || !(x[1] >= SCALE_LO && fabs(x[0]) + 15.0 * x[1] <= 700.0))
            return 0;
        log_normal_loop(b, kind, out, n, x[0], x[1]);
        return 1;
    }
    return 0;
}

static PyMethodDef methods[] = {
    {"log_normal_fill", (PyCFunction)(void (*)(void))py_log_normal_fill, METH_FASTCALL,
     "log_normal_fill(capsule, out, mean, std) -> bool: log_normal_'s exp(standard_normal * std + mean) cast into\n"
     "out (NumPy's exp loop); for |mean| + 15 std <= 700 only."},
    {"exponential_fill", (PyCFunction)(void (*)(void))py_exponential_fill, METH_FASTCALL,
     "exponential_fill(capsule, out, rate) -> bool: exponential_'s standard_exponential / rate into out."},
    {"geometric_fill", (PyCFunction)(void (*)(void))py_geometric_fill, METH_FASTCALL,
     "geometric_fill(capsule, out, p) -> bool: geometric_'s Generator.geometric(p) cast into out."},
    {"cauchy_fill", (PyCFunction)(void (*)(void))py_cauchy_fill, METH_FASTCALL,
     "cauchy_fill(capsule, out, median, sigma) -> bool: cauchy_'s float64 standard_cauchy * sigma + median\n"
     "cast into out."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "strided.kernels._randdist",
    "The in-place samplers' draws through NumPy's distribution functions (see strided.kernels.native).", -1,
    methods,
};

#ifndef STRIDED_NUMPY_VERSION
#define STRIDED_NUMPY_VERSION "unknown"
#endif

PyMODINIT_FUNC PyInit__randdist(void)
{
    find_exp();
    PyObject *m = PyModule_Create(&module);
    /* numpy_version: the NumPy whose libnpyrandom this build links (the loader compares it) */
    if (m != NULL && PyModule_AddStringConstant(m, "numpy_version", STRIDED_NUMPY_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    /* sampler: the compiled samplers' entry (sample, above), for kernels/_front.h */
    PyObject *cap = m != NULL ? PyCapsule_New((void *)sample, "strided.sampler", NULL) : NULL;
    if (m != NULL && (cap == NULL || PyModule_AddObject(m, "sampler", cap) < 0)) {
        Py_XDECREF(cap);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
