/* Included once by _rowkernel.c (after DEFINE_PAIRWISE's float32 sums): the variance of one whole
 * float32 run as strided.kernels.reduce.variance_parts computes it where there is one result
 * (var / std over every element of a float32 tensor, PyTorch's bits there), in one call.
 *
 * variance_parts' NumPy steps for one result, each an IEEE operation NumPy's loops do in this order:
 *   c = (0 + pairwise_f32(x)) / (float)n      np.add.reduce in float32, then centre /= n (float32)
 *   q = 0 + pairwise_f64((double)x_i - c)^2   np.subtract(x, c, dtype=float64), squared in place,
 *                                             np.add.reduce of the float64 run: NumPy's pairwise
 *                                             sum over the whole run (no buffering: its inner loop
 *                                             is the coalesced run, memory order)
 *   v = q / denominator; root: sqrt(v); (float)v
 * The squared deviations here are made lane by lane as they are summed (no 8-byte temporary per
 * element: NumPy writes and reads back 8 MB for 1M elements), in NumPy's pairwise tree: blocks of
 * at most PW_BLOCKSIZE summed in eight accumulators (one vector, lane k taking elements k mod 8),
 * combined ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)), then the tail; longer runs split at
 * n / 2 rounded down to a multiple of 8; where a run splits into four equal blocks, the four chains
 * run side by side (DEFINE_PAIRWISE's block4). Every lane does the same roundings as NumPy's
 * scalar code: the same bits. (-ffp-contract=off: d * d + r must not fuse.) */

/* The eight accumulators as two 4-lane vectors, lo (lanes 0-3) and hi (4-7): GCC keeps an
 * 8-lane double vector in memory on AVX2 (a store and a load per add: 2.5x slower). */
typedef float v4f __attribute__((vector_size(16)));
typedef struct { v4d lo, hi; } acc8;

/* d * d for (double)x - c, eight lanes; and one element. */
#define DEFINE_SQDEV(NAME, ATTR)                                                                  \
    ATTR static inline void NAME##_add8(acc8 *r, const float *p, v4d c, int first)               \
    {                                                                                             \
        v4f f0, f1;                                                                               \
        memcpy(&f0, p, sizeof f0);                                                                \
        memcpy(&f1, p + 4, sizeof f1);                                                            \
        v4d d0 = __builtin_convertvector(f0, v4d) - c, d1 = __builtin_convertvector(f1, v4d) - c;  \
        if (first) {                                                                              \
            r->lo = d0 * d0;                                                                      \
            r->hi = d1 * d1;                                                                      \
        } else {                                                                                  \
            r->lo += d0 * d0;                                                                     \
            r->hi += d1 * d1;                                                                     \
        }                                                                                         \
    }                                                                                             \
    ATTR static inline double NAME##_sq1(const float *p, double c)                               \
    {                                                                                             \
        double d = (double)*p - c;                                                                \
        return d * d;                                                                             \
    }                                                                                             \
    ATTR static inline double NAME##_combine(acc8 v)                                             \
    {                                                                                             \
        double r[8];                                                                              \
        memcpy(r, &v.lo, sizeof v.lo);                                                            \
        memcpy(r + 4, &v.hi, sizeof v.hi);                                                        \
        return PAIRWISE8(r);                                                                      \
    }                                                                                             \
    /* A block of n <= PW_BLOCKSIZE squared deviations, as NumPy sums it. */                     \
    ATTR static inline double NAME##_block(const float *a, Py_ssize_t n, double c)               \
    {                                                                                             \
        if (n < 8) {                                                                              \
            double res = 0;                                                                       \
            for (Py_ssize_t i = 0; i < n; i++) res += NAME##_sq1(a + i, c);                      \
            return res;                                                                           \
        }                                                                                         \
        v4d cv = {c, c, c, c};                                                                    \
        acc8 r;                                                                                   \
        NAME##_add8(&r, a, cv, 1);                                                                \
        Py_ssize_t i;                                                                             \
        for (i = 8; i < n - (n % 8); i += 8) NAME##_add8(&r, a + i, cv, 0);                      \
        double res = NAME##_combine(r);                                                           \
        for (; i < n; i++) res += NAME##_sq1(a + i, c);                                           \
        return res;                                                                               \
    }                                                                                             \
    /* Four blocks of n elements each (n % 8 == 0), s apart, as four NAME##_block chains. */    \
    ATTR static inline void NAME##_block4(const float *a, Py_ssize_t s, Py_ssize_t n, double c,  \
                                          double *res)                                            \
    {                                                                                             \
        v4d cv = {c, c, c, c};                                                                    \
        acc8 r0, r1, r2, r3;                                                                      \
        NAME##_add8(&r0, a, cv, 1);                                                               \
        NAME##_add8(&r1, a + s, cv, 1);                                                           \
        NAME##_add8(&r2, a + 2 * s, cv, 1);                                                       \
        NAME##_add8(&r3, a + 3 * s, cv, 1);                                                       \
        for (Py_ssize_t i = 8; i < n; i += 8) {                                                   \
            NAME##_add8(&r0, a + i, cv, 0);                                                       \
            NAME##_add8(&r1, a + s + i, cv, 0);                                                   \
            NAME##_add8(&r2, a + 2 * s + i, cv, 0);                                               \
            NAME##_add8(&r3, a + 3 * s + i, cv, 0);                                               \
        }                                                                                         \
        res[0] = NAME##_combine(r0); res[1] = NAME##_combine(r1);                                 \
        res[2] = NAME##_combine(r2); res[3] = NAME##_combine(r3);                                 \
    }                                                                                             \
    ATTR static double NAME##_pairwise(const float *a, Py_ssize_t n, double c)                   \
    {                                                                                             \
        if (n <= PW_BLOCKSIZE) return NAME##_block(a, n, c);                                      \
        Py_ssize_t n2 = n / 2;                                                                    \
        n2 -= n2 % 8;                                                                             \
        Py_ssize_t q = n2 / 2;                                                                    \
        q -= q % 8;                                                                               \
        if (n - n2 == n2 && n2 > PW_BLOCKSIZE && 2 * q == n2 && q <= PW_BLOCKSIZE) {              \
            double r[4]; /* (both halves split into two blocks of q: NumPy's tree over four) */  \
            NAME##_block4(a, q, q, c, r);                                                         \
            return (r[0] + r[1]) + (r[2] + r[3]);                                                 \
        }                                                                                         \
        return NAME##_pairwise(a, n2, c) + NAME##_pairwise(a + n2, n - n2, c);                    \
    }

DEFINE_SQDEV(sqdev, BASELINE)
#if HAVE_AVX2_CLONE
DEFINE_SQDEV(sqdev_avx2, AVX2)
#endif
#undef DEFINE_SQDEV

/* variance_one(x, denominator, root) -> float: the float32 variance (root true: standard
 * deviation) of the n >= 1 elements of the C-contiguous, aligned float32 buffer x, as above, read
 * back as a Python float (its float32 value); denominator a float (max(n - correction, 0)).
 * None where x is not such a buffer (empty, another format, unaligned): the caller's NumPy steps. */
static PyObject *py_variance_one(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "variance_one(x, denominator, root) takes 3 arguments");
        return NULL;
    }
    double denominator = PyFloat_AsDouble(args[1]);
    int root = PyObject_IsTrue(args[2]);
    if ((denominator == -1.0 && PyErr_Occurred()) || root < 0) return NULL;
    Py_buffer x;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    Py_ssize_t n = x.len / 4;
    const char *f = x.format;
    if (f[0] == '<' || f[0] == '=' || f[0] == '@') f++;
    if (strcmp(f, "f") != 0 || x.itemsize != 4 || n < 1 || (uintptr_t)x.buf % 4) {
        PyBuffer_Release(&x);
        Py_RETURN_NONE;
    }
    const float *a = x.buf;
    float (*sum)(const float *, Py_ssize_t) = f32_pairwise;
    double (*squares)(const float *, Py_ssize_t, double) = sqdev_pairwise;
#if HAVE_AVX2_CLONE
    /* (the float32 sum: the copy rows() takes for its size; the deviations are made in double, a
     * vector of work per load, so the AVX2 copy at every size) */
    if (use_avx2 && (one_copy || (double)n * 4 <= WIDE_MAX_BYTES))
        sum = f32_avx2_pairwise;
    if (use_avx2)
        squares = sqdev_avx2_pairwise;
#endif
    float v;
    Py_BEGIN_ALLOW_THREADS
    float c = (0.0f + sum(a, n)) / (float)n;
    double q = (0.0 + squares(a, n, (double)c)) / denominator;
    v = (float)(root ? sqrt(q) : q);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&x);
    return PyFloat_FromDouble((double)v);
}
