/* strided.kernels._halfkernel: float16 elementwise arithmetic in one pass, NumPy's bits; bfloat16's
 * (bf16, below), PyTorch's bits.
 *
 * NumPy's float16 add/sub/mul/div loops convert each element to float32 (npy_half_to_float),
 * compute in float32 and round back (npy_float_to_half), one scalar call per conversion: about
 * 8 ms for 1M elements, 40x PyTorch's vectorised loop. The conversions here are the same
 * functions written as branch-free integer and float steps the compiler vectorises
 * (F. Giesen's half_to_float / float_to_half_rtne, with NumPy's NaN rule: the payload's top
 * bits kept, a NaN that would lose its payload made 0x7c01 / 0xfc01), so every result is
 * NumPy's: float16 -> float32 is exact, float32 -> float16 rounds to nearest even (subnormals
 * by a float add that rounds once in the default rounding mode), overflow is inf.
 * tests/test_native_half.py compares both conversions with NumPy's on every float16 and on
 * float32 edges, and each op with NumPy's ufunc.
 *
 * fma: ``out = fmaf(alpha, b, c)`` rounded to float16 (PyTorch's vectorised add/sub with
 * alpha= on float16: ``fmadd(b, alpha, a)`` in float32): fmaf is correctly rounded on every
 * machine (libm's, or the FMA instruction in the AVX2+FMA copy), so both copies give the same bits.
 *
 * On x86-64 (GCC or clang) the loops are compiled twice, baseline and AVX2+FMA, the copy
 * picked at import. No -ffast-math, -ffp-contract=off: no contraction into fused ops.
 * The GIL is released around the loops: the caller holds the arrays.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

static inline float bits_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t f_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static inline float h2f(uint16_t h)
{
    uint32_t o = (uint32_t)(h & 0x7fffu) << 13;
    uint32_t exp = o & 0x0f800000u;
    o += (uint32_t)(127 - 15) << 23;
    uint32_t inf_nan = o + ((uint32_t)(128 - 16) << 23);
    /* subnormal: 2**-14 * m/1024 = (1.m' * 2**-14) - 2**-14 exactly */
    float sub = bits_f(o + (1u << 23)) - bits_f(113u << 23);
    uint32_t r = exp == 0x0f800000u ? inf_nan : (exp == 0 ? f_bits(sub) : o);
    return bits_f(r | ((uint32_t)(h & 0x8000u) << 16));
}

static inline uint16_t f2h(float f)
{
    uint32_t x = f_bits(f);
    uint32_t sign = x & 0x80000000u;
    x ^= sign;
    /* NaN as NumPy: 0x7c00 + (significand >> 13), made 0x7c01 when that is 0x7c00 */
    uint32_t nan = 0x7c00u + ((x & 0x7fffffu) >> 13);
    nan += nan == 0x7c00u;
    uint32_t big = x > 0x7f800000u ? nan : 0x7c00u; /* NaN, else inf (overflow) */
    /* below 2**-14: the float add rounds the value to a multiple of 2**-24 (nearest even) */
    const uint32_t magic = ((127 - 15) + (23 - 10) + 1) << 23;
    uint32_t small = f_bits(bits_f(x) + bits_f(magic)) - magic;
    /* normal: rebias, round to nearest even on the 13 dropped bits */
    uint32_t odd = (x >> 13) & 1u;
    uint32_t normal = (x + ((uint32_t)(15 - 127) << 23) + 0xfffu + odd) >> 13;
    uint32_t o = x >= (uint32_t)(127 + 16) << 23 ? big : (x < 113u << 23 ? small : normal);
    return (uint16_t)(o | (sign >> 16));
}

/* NumPy's add and multiply of two NaNs give the second operand's NaN (its compiled loop adds
 * y + x; the compiler may order a commutative op either way): chosen here explicitly. */
static inline float both_nan(float a, float b, float r)
{
    return (a != a) & (b != b) ? bits_f(f_bits(b) | 0x00400000u) : r;
}

enum { ADD, SUB, MUL, DIV, FMA, OPS, ALPHA = OPS, BF_OPS };

#define LOOP_BODY                                                                                  \
    switch (op) {                                                                                  \
    case ADD: for (Py_ssize_t i = 0; i < n; i++) { float a = h2f(x[i]), b = h2f(y[i]); out[i] = f2h(both_nan(a, b, a + b)); } break;       \
    case SUB: for (Py_ssize_t i = 0; i < n; i++) out[i] = f2h(h2f(x[i]) - h2f(y[i])); break;       \
    case MUL: for (Py_ssize_t i = 0; i < n; i++) { float a = h2f(x[i]), b = h2f(y[i]); out[i] = f2h(both_nan(a, b, a * b)); } break;       \
    case DIV: for (Py_ssize_t i = 0; i < n; i++) out[i] = f2h(h2f(x[i]) / h2f(y[i])); break;       \
    case FMA: for (Py_ssize_t i = 0; i < n; i++) out[i] = f2h(fmaf(alpha, h2f(x[i]), h2f(y[i]))); break; \
    }

static void loop_base(int op, const uint16_t *x, const uint16_t *y, uint16_t *out, Py_ssize_t n, float alpha)
{
    LOOP_BODY
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define WIDE __attribute__((target("avx2,fma,f16c")))

/* The vector steps: F16C's conversions (exact one way; nearest-even the other way, NaNs keeping
 * their payload's top bits as NumPy's; a signalling NaN comes out quiet, which NumPy's would keep
 * signalling, but the arithmetic between quiets every NaN first: the same bits). */
WIDE static inline __m256 both_nan8(__m256 a, __m256 b, __m256 r)
{
    __m256 nan = _mm256_and_ps(_mm256_cmp_ps(a, a, _CMP_UNORD_Q), _mm256_cmp_ps(b, b, _CMP_UNORD_Q));
    __m256 qb = _mm256_or_ps(b, _mm256_castsi256_ps(_mm256_set1_epi32(0x00400000)));
    return _mm256_blendv_ps(r, qb, nan);
}

WIDE static void loop_avx2(int op, const uint16_t *x, const uint16_t *y, uint16_t *out, Py_ssize_t n,
                           float alpha)
{
    Py_ssize_t i = 0;
    __m256 al = _mm256_set1_ps(alpha);
    for (; i + 8 <= n; i += 8) {
        __m256 a = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(x + i)));
        __m256 b = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(y + i)));
        __m256 r;
        switch (op) {
        case ADD: r = both_nan8(a, b, _mm256_add_ps(a, b)); break;
        case SUB: r = _mm256_sub_ps(a, b); break;
        case MUL: r = both_nan8(a, b, _mm256_mul_ps(a, b)); break;
        case DIV: r = _mm256_div_ps(a, b); break;
        default: r = _mm256_fmadd_ps(al, a, b); break;
        }
        _mm_storeu_si128((__m128i *)(out + i), _mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT));
    }
    loop_base(op, x + i, y + i, out + i, n - i, alpha); /* (the last n % 8: the same bits) */
}
#endif


/* ---- bfloat16: PyTorch's bits ----
 *
 * PyTorch's CPU add/sub/mul/div of bfloat16 tensors convert each element to float32 (exact: the
 * word shifted up), compute in float32 and round back to nearest even; the two loops differ only
 * in a NaN's bits: its vector loop (2 * Vectorized<BFloat16>::size() = 32 elements a step under
 * the AVX2 capability, cvtfp32_bf16) makes every NaN 0xFFFF, its scalar loop (a chunk's last
 * len % 32 elements, c10::BFloat16's round_to_nearest_even) 0x7FC0 (kernels/reduced_nans.py).
 * fma: fmaf(alpha, x, y) rounded once (PyTorch's vectorised ``fmadd(b, alpha, a)``; alpha * b of
 * two bfloat16 values is exact in float32, so ``a + float(alpha * b)`` is the same number). */
#include "_bf16_bits.h"  /* bf2f, f2bf (shared with _sleefkernel.c's fused exp/tanh) */

#define BF_BODY                                                                                    \
    switch (op) {                                                                                  \
    case ADD: for (Py_ssize_t i = 0; i < n; i++) out[i] = f2bf(bf2f(x[i]) + bf2f(y[i]), nan); break; \
    case SUB: for (Py_ssize_t i = 0; i < n; i++) out[i] = f2bf(bf2f(x[i]) - bf2f(y[i]), nan); break; \
    case MUL: for (Py_ssize_t i = 0; i < n; i++) out[i] = f2bf(bf2f(x[i]) * bf2f(y[i]), nan); break; \
    case DIV: for (Py_ssize_t i = 0; i < n; i++) out[i] = f2bf(bf2f(x[i]) / bf2f(y[i]), nan); break; \
    case FMA: for (Py_ssize_t i = 0; i < n; i++) out[i] = f2bf(fmaf(alpha, bf2f(x[i]), bf2f(y[i])), nan); break; \
    case ALPHA: for (Py_ssize_t i = 0; i < n; i++) out[i] = f2bf(bf2f(y[i]) + bf2f(f2bf(alpha * bf2f(x[i]), nan)), nan); break; \
    }

/* x[i] op s, s a float32 scalar (op 0-3) */
#define BF_SCALAR_BODY                                                                             \
    switch (op) {                                                                                  \
    case ADD: for (Py_ssize_t i = 0; i < n; i++) out[i] = f2bf(bf2f(x[i]) + s, nan); break;       \
    case SUB: for (Py_ssize_t i = 0; i < n; i++) out[i] = f2bf(bf2f(x[i]) - s, nan); break;       \
    case MUL: for (Py_ssize_t i = 0; i < n; i++) out[i] = f2bf(bf2f(x[i]) * s, nan); break;       \
    case DIV: for (Py_ssize_t i = 0; i < n; i++) out[i] = f2bf(bf2f(x[i]) / s, nan); break;       \
    }

static void bf_base(int op, const uint16_t *x, const uint16_t *y, uint16_t *out, Py_ssize_t n, float alpha,
                    uint16_t nan)
{
    BF_BODY
}

#if defined(__x86_64__) && defined(__GNUC__)
WIDE static void bf_avx2(int op, const uint16_t *x, const uint16_t *y, uint16_t *out, Py_ssize_t n, float alpha,
                         uint16_t nan)
{
    BF_BODY
}
#endif

static void bf_sbase(int op, const uint16_t *x, float s, uint16_t *out, Py_ssize_t n, uint16_t nan)
{
    BF_SCALAR_BODY
}

#if defined(__x86_64__) && defined(__GNUC__)
WIDE static void bf_savx2(int op, const uint16_t *x, float s, uint16_t *out, Py_ssize_t n, uint16_t nan)
{
    BF_SCALAR_BODY
}
#endif

static void (*bf_loop)(int, const uint16_t *, const uint16_t *, uint16_t *, Py_ssize_t, float, uint16_t) = bf_base;
static void (*bf_sloop)(int, const uint16_t *, float, uint16_t *, Py_ssize_t, uint16_t) = bf_sbase;

/* One piece of a row: y NULL, x op alpha (the scalar); op ALPHA, PyTorch's vector fmadd in the
 * vector steps (nan 0xFFFF) and its scalar ``self + alpha * other`` (the product rounded to
 * bfloat16 first, c10::BFloat16's operators) in the rest. */
static void bf_piece(int op, const uint16_t *x, const uint16_t *y, uint16_t *out, Py_ssize_t n, float alpha,
                     uint16_t nan)
{
    if (y == NULL)
        bf_sloop(op, x, alpha, out, n, nan);
    else
        bf_loop(op == ALPHA && nan == 0xffffu ? FMA : op, x, y, out, n, alpha, nan);
}

/* PyTorch's loops over one row of n elements cut in chunks of ``chunk`` (at::parallel_for's; n: one
 * chunk): in each, the vector loop's whole steps of ``step``, then the scalar loop's rest (y NULL:
 * ``x op alpha``, alpha the scalar operand). */
static void bf_rows(int op, const uint16_t *x, const uint16_t *y, uint16_t *out, Py_ssize_t n, float alpha,
                    Py_ssize_t chunk, Py_ssize_t step)
{
    if (chunk <= 0)
        chunk = n > 0 ? n : 1;
    for (Py_ssize_t s = 0; s < n; s += chunk) {
        Py_ssize_t len = n - s < chunk ? n - s : chunk;
        Py_ssize_t body = step > 0 ? len - len % step : 0;
        bf_piece(op, x + s, y ? y + s : NULL, out + s, body, alpha, 0xffffu);
        bf_piece(op, x + s + body, y ? y + s + body : NULL, out + s + body, len - body, alpha, 0x7fc0u);
    }
}

static void (*loop)(int, const uint16_t *, const uint16_t *, uint16_t *, Py_ssize_t, float) = loop_base;

/* The C-contiguous buffers of objs[0..n-1], the last one writable (the output): 0, or -1 with
 * the error set and none held. */
static int get_runs(PyObject *const *objs, Py_buffer *b, int n)
{
    for (int i = 0; i < n; i++) {
        if (PyObject_GetBuffer(objs[i], &b[i], PyBUF_C_CONTIGUOUS | (i == n - 1 ? PyBUF_WRITABLE : 0)) < 0) {
            while (i-- > 0)
                PyBuffer_Release(&b[i]);
            return -1;
        }
    }
    return 0;
}

/* binary(op, x, y, out[, alpha]): out[i] = x[i] op y[i] over n float16 elements (op 0-3: add,
 * sub, mul, div; 4: fmaf(alpha, x[i], y[i])); x, y, out C-contiguous buffers of n * 2 bytes (out
 * writable; out may be x or y, element for element). */
static PyObject *binary(PyObject *self, PyObject *args)
{
    int op;
    PyObject *xo, *yo, *oo;
    double alpha = 0.0;
    if (!PyArg_ParseTuple(args, "iOOO|d:binary", &op, &xo, &yo, &oo, &alpha))
        return NULL;
    if (op < 0 || op >= OPS) {
        PyErr_SetString(PyExc_ValueError, "binary: unknown op");
        return NULL;
    }
    Py_buffer b[3];
    PyObject *objs[3] = {xo, yo, oo};
    if (get_runs(objs, b, 3) < 0)
        return NULL;
    PyObject *res = NULL;
    if (b[0].len != b[2].len || b[1].len != b[2].len || b[2].len % 2) {
        PyErr_SetString(PyExc_ValueError, "binary: buffers of different lengths");
    } else {
        float a = (float)alpha;
        Py_ssize_t n = b[2].len / 2;
        Py_BEGIN_ALLOW_THREADS
        loop(op, (const uint16_t *)b[0].buf, (const uint16_t *)b[1].buf, (uint16_t *)b[2].buf, n, a);
        Py_END_ALLOW_THREADS
        Py_INCREF(Py_None);
        res = Py_None;
    }
    for (int i = 0; i < 3; i++)
        PyBuffer_Release(&b[i]);
    return res;
}

/* bf16(x, y, out, op[, alpha, chunk, step]): out[i] = x[i] op y[i] over n bfloat16 elements
 * (op as binary's; 5: PyTorch's add with alpha=, ``y + alpha * x``: fmaf in the vector steps, the
 * product rounded to bfloat16 first in the rest), PyTorch's bits: its rows cut in chunks of
 * ``chunk`` elements (0: one), each NaN 0xFFFF in a chunk's vector steps of ``step`` (default 32),
 * 0x7FC0 in its rest. x, y, out C-contiguous buffers of n * 2 bytes (out writable; out may be x
 * or y, element for element); or y a Python float (op 0-3): ``x[i] op float32(y)``, the scalar
 * operand of PyTorch's loop (the caller rounds it as PyTorch does). Returns True; False (nothing
 * written) where the lengths differ (the caller's other path). */
static PyObject *bf16(PyObject *self, PyObject *args)
{
    int op;
    PyObject *xo, *yo, *oo;
    double alpha = 0.0;
    Py_ssize_t chunk = 0, step = 32;
    if (!PyArg_ParseTuple(args, "OOOi|dnn:bf16", &xo, &yo, &oo, &op, &alpha, &chunk, &step))
        return NULL;
    int scalar = PyFloat_CheckExact(yo);
    if (op < 0 || op >= (scalar ? FMA : BF_OPS)) {
        PyErr_SetString(PyExc_ValueError, "bf16: unknown op");
        return NULL;
    }
    if (scalar)
        alpha = PyFloat_AS_DOUBLE(yo);
    Py_buffer b[3];
    PyObject *objs[3] = {xo, scalar ? xo : yo, oo};
    if (get_runs(objs, b, 3) < 0)
        return NULL;
    int ok = b[0].len == b[2].len && b[1].len == b[2].len && b[2].len % 2 == 0;
    if (ok) {
        float a = (float)alpha;
        Py_ssize_t n = b[2].len / 2;
        const uint16_t *x = (const uint16_t *)b[0].buf, *y = scalar ? NULL : (const uint16_t *)b[1].buf;
        if (n < 4096) { /* (a small row: the thread switch would cost more than the loop) */
            bf_rows(op, x, y, (uint16_t *)b[2].buf, n, a, chunk, step);
        } else {
            Py_BEGIN_ALLOW_THREADS
            bf_rows(op, x, y, (uint16_t *)b[2].buf, n, a, chunk, step);
            Py_END_ALLOW_THREADS
        }
    }
    for (int i = 0; i < 3; i++)
        PyBuffer_Release(&b[i]);
    return PyBool_FromLong(ok);
}

/* bf16_widen(x, out): out[i] = float32(x[i]) (exact) of n bfloat16 words x into float32 out;
 * bf16_narrow(x, out): out[i] = x[i] of n float32 rounded to nearest even, every NaN 0xFFFF
 * (PyTorch's vector conversion, cvtfp32_bf16). C-contiguous buffers of n elements (out
 * writable). Return True; False (nothing written) where the lengths differ. */
/* BOTH_COPIES(name, (params), body): the loop ``name_base`` and, on x86-64, its AVX2+FMA copy
 * ``name_avx2`` (the same C, compiled for the wider unit: the same bits). */
#if defined(__x86_64__) && defined(__GNUC__)
#define BOTH_COPIES(name, params, ...)                                                             \
    static void name##_base params { __VA_ARGS__ }                                                 \
    WIDE static void name##_avx2 params { __VA_ARGS__ }
#else
#define BOTH_COPIES(name, params, ...) static void name##_base params { __VA_ARGS__ }
#endif

BOTH_COPIES(widen, (const uint16_t *x, float *out, Py_ssize_t n),
            for (Py_ssize_t i = 0; i < n; i++) out[i] = bf2f(x[i]);)
BOTH_COPIES(narrow, (const float *x, uint16_t *out, Py_ssize_t n),
            for (Py_ssize_t i = 0; i < n; i++) out[i] = f2bf(x[i], 0xffffu);)
static void (*widen_loop)(const uint16_t *, float *, Py_ssize_t) = widen_base;
static void (*narrow_loop)(const float *, uint16_t *, Py_ssize_t) = narrow_base;

/* The two C-contiguous buffers (an input, a writable output) of a call's two arguments (``fmt``:
 * PyArg_ParseTuple's "OO:name"): 0, or -1 with the error set and none held. */
static int two_runs(PyObject *args, const char *fmt, Py_buffer *b)
{
    PyObject *objs[2];
    if (!PyArg_ParseTuple(args, fmt, &objs[0], &objs[1]))
        return -1;
    return get_runs(objs, b, 2);
}

static PyObject *convert(PyObject *args, int widen)
{
    Py_buffer b[2];
    if (two_runs(args, widen ? "OO:bf16_widen" : "OO:bf16_narrow", b) < 0)
        return NULL;
    Py_ssize_t n = b[widen].len / 4; /* (the float32 side) */
    int ok = b[widen].len % 4 == 0 && b[!widen].len == 2 * n;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        if (widen)
            widen_loop((const uint16_t *)b[0].buf, (float *)b[1].buf, n);
        else
            narrow_loop((const float *)b[0].buf, (uint16_t *)b[1].buf, n);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&b[0]);
    PyBuffer_Release(&b[1]);
    return PyBool_FromLong(ok);
}

static PyObject *bf16_widen(PyObject *self, PyObject *args) { return convert(args, 1); }
static PyObject *bf16_narrow(PyObject *self, PyObject *args) { return convert(args, 0); }

/* PyTorch's VML-style bfloat16 kernels (IMPLEMENT_FLOAT_KERNEL: every element, a tail included,
 * through its vector conversion) make every NaN 0xFFFF (kernels/reduced_nans.py). */

BOTH_COPIES(bf_sqrt, (const uint16_t *x, uint16_t *out, Py_ssize_t n),
            for (Py_ssize_t i = 0; i < n; i++) out[i] = f2bf(sqrtf(bf2f(x[i])), 0xffffu);)
BOTH_COPIES(nan_ones, (uint16_t *w, Py_ssize_t n, uint16_t word),
            for (Py_ssize_t i = 0; i < n; i++) w[i] = (w[i] & 0x7fffu) > 0x7f80u ? word : w[i];)

static void (*bf_sqrt)(const uint16_t *, uint16_t *, Py_ssize_t) = bf_sqrt_base;
static void (*nan_ones_loop)(uint16_t *, Py_ssize_t, uint16_t) = nan_ones_base;

/* bf16_sqrt(x, out): out[i] = sqrt(x[i]) of n bfloat16 elements, PyTorch's bits: float32's
 * correctly rounded root rounded to nearest even, every NaN 0xFFFF. x, out C-contiguous buffers
 * of n * 2 bytes (out writable; may be x). Returns True; False (nothing written) where the
 * lengths differ. */
static PyObject *bf16_sqrt(PyObject *self, PyObject *args)
{
    Py_buffer b[2];
    if (two_runs(args, "OO:bf16_sqrt", b) < 0)
        return NULL;
    int ok = b[0].len == b[1].len && b[1].len % 2 == 0;
    if (ok) {
        Py_ssize_t n = b[1].len / 2;
        if (n < 4096) {
            bf_sqrt((const uint16_t *)b[0].buf, (uint16_t *)b[1].buf, n);
        } else {
            Py_BEGIN_ALLOW_THREADS
            bf_sqrt((const uint16_t *)b[0].buf, (uint16_t *)b[1].buf, n);
            Py_END_ALLOW_THREADS
        }
    }
    PyBuffer_Release(&b[0]);
    PyBuffer_Release(&b[1]);
    return PyBool_FromLong(ok);
}

/* nan_ones(a[, word]): every NaN word of the bfloat16 array a (any buffer of 2-byte words; a
 * C-contiguous one) made ``word`` (default 0xFFFF, PyTorch's vector conversion; 0x7FC0 its
 * scalar one), in place; returns a. */
static PyObject *nan_ones_py(PyObject *self, PyObject *args)
{
    Py_buffer b;
    PyObject *arg;
    unsigned int word = 0xffffu;
    if (!PyArg_ParseTuple(args, "O|I:nan_ones", &arg, &word))
        return NULL;
    if (word > 0xffffu) {
        PyErr_SetString(PyExc_ValueError, "nan_ones: word beyond 16 bits");
        return NULL;
    }
    if (PyObject_GetBuffer(arg, &b, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
        return NULL;
    if (b.len % 2) {
        PyBuffer_Release(&b);
        PyErr_SetString(PyExc_ValueError, "nan_ones: not 2-byte words");
        return NULL;
    }
    if (b.len >= 8192) {
        Py_BEGIN_ALLOW_THREADS
        nan_ones_loop((uint16_t *)b.buf, b.len / 2, (uint16_t)word);
        Py_END_ALLOW_THREADS
    } else {
        nan_ones_loop((uint16_t *)b.buf, b.len / 2, (uint16_t)word);
    }
    PyBuffer_Release(&b);
    Py_INCREF(arg);
    return arg;
}

/* Every loop's AVX2+FMA copy where ``wide`` and the CPU has it, else every baseline copy:
 * whether the wide copies run. (One list for select() and the module's import.) */
static int use_copies(int wide)
{
    loop = loop_base;
    bf_loop = bf_base;
    bf_sloop = bf_sbase;
    widen_loop = widen_base;
    narrow_loop = narrow_base;
    bf_sqrt = bf_sqrt_base;
    nan_ones_loop = nan_ones_base;
#if defined(__x86_64__) && defined(__GNUC__)
    if (wide && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c")) {
        loop = loop_avx2;
        bf_loop = bf_avx2;
        bf_sloop = bf_savx2;
        widen_loop = widen_avx2;
        narrow_loop = narrow_avx2;
        bf_sqrt = bf_sqrt_avx2;
        nan_ones_loop = nan_ones_avx2;
        return 1;
    }
#endif
    return 0;
}

/* select(wide): the AVX2+FMA copy (where the CPU has it) or the baseline one; returns which
 * runs ("avx2" or "baseline"). For the tests: both copies give the same bits. */
static PyObject *select_copy(PyObject *self, PyObject *args)
{
    int wide;
    if (!PyArg_ParseTuple(args, "p:select", &wide))
        return NULL;
    return PyUnicode_FromString(use_copies(wide) ? "avx2" : "baseline");
}

static PyMethodDef methods[] = {
    {"select", select_copy, METH_VARARGS, "select(wide): the AVX2+FMA loop copy (where the CPU has it) or the baseline; returns its name"},
    {"binary", binary, METH_VARARGS, "binary(op, x, y, out[, alpha]): float16 add/sub/mul/div/fma in float32, NumPy's bits"},
    {"bf16_sqrt", bf16_sqrt, METH_VARARGS, "bf16_sqrt(x, out): bfloat16 sqrt through float32, PyTorch's bits (NaN 0xFFFF)"},
    {"nan_ones", nan_ones_py, METH_VARARGS, "nan_ones(a[, word]): every bfloat16 NaN of a made word (0xFFFF) in place; returns a"},
    {"bf16", bf16, METH_VARARGS, "bf16(x, y, out, op[, alpha, chunk, step]): bfloat16 add/sub/mul/div/fma/alpha in float32 (y: a run or a float), PyTorch's bits"},
    {"bf16_widen", bf16_widen, METH_VARARGS, "bf16_widen(x, out): bfloat16 words to float32, exact"},
    {"bf16_narrow", bf16_narrow, METH_VARARGS, "bf16_narrow(x, out): float32 to bfloat16, nearest even, NaN 0xFFFF"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "strided.kernels._halfkernel",
    "float16 (NumPy's bits) and bfloat16 (PyTorch's bits) elementwise arithmetic in one vectorised pass", -1, methods,
};

PyMODINIT_FUNC PyInit__halfkernel(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
#endif
    use_copies(1);
    return PyModule_Create(&module);
}
