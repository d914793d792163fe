/* strided.kernels._rowkernel: NumPy's float32/float64 pairwise sum, bit for bit, at the memory's speed.
 *
 * rows(address, itemsize, count, row_stride, length, out_address) -> None
 * nll_sum(logp, target, classes) -> float or None   nll_loss's sum of picks (see there)
 * nll_cascade(values, weights, skip) -> (total, weight total) or None   PyTorch's nll_loss sum order
 * cdist2(x1, x2, out) -> bool   cdist's p = 2 distances of small point sets (see there)
 * arg_cols(x, out, outer, rows, inner, largest) -> bool   argmax/argmin along an outer dim (see there)
 * variance_one(x, denominator, root) -> float or None   one float32 variance (_variance_one.h)
 * lse_shift(x, work, m) -> bool   logsumexp's row max and x - max in one pass (see there)
 *
 *   For each of `count` rows (row i starts at address + i * row_stride, a byte stride of any
 *   sign; its `length` elements are contiguous), writes 0 + pairwise_sum(row) into the i-th
 *   element of the contiguous output. itemsize 4: float32, 8: float64. The caller
 *   (strided.kernels.rows) guarantees that every row lies inside a live, aligned buffer it holds
 *   a reference to, and that the output is a fresh contiguous array of `count` elements.
 *
 * Why: np.add.reduce over a contiguous run calls NumPy's pairwise sum (loops_utils.h.src,
 * `@TYPE@_pairwise_sum`): runs of at most PW_BLOCKSIZE = 128 elements summed in eight
 * accumulators (element k into accumulator k % 8), combined as ((r0 + r1) + (r2 + r3)) + ((r4 +
 * r5) + (r6 + r7)) and the last n % 8 elements added one by one; longer runs split at
 * n / 2 rounded down to a multiple of 8, the halves summed recursively and added. NumPy runs the
 * eight accumulators as scalars, one dependency chain of adds per block: about 2 elements a
 * cycle, so a 4 MB float32 sum costs 1.2x PyTorch's. Here the eight accumulators are one vector
 * (each lane is one accumulator: the same additions in the same order, so the same bits), and
 * where a run splits into four equal blocks the four chains run interleaved. On x86-64 (GCC or
 * clang) the code is compiled twice, for the baseline and for AVX2 (float64 sums a third time,
 * for AVX-512), and the module picks the widest copy at import that the CPU has; other machines
 * run the baseline copy with the
 * compiler's own vectors. (GCC's target_clones was tried: it clones only the function it marks,
 * so the recursion stayed baseline.) No -ffast-math: nothing reassociates.
 * tests/test_native_rows.py compares the bits with np.add.reduce on every run length up to
 * several thousand and on large ones.
 *
 * The GIL is released around the sums: the caller holds the arrays.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PW_BLOCKSIZE 128 /* NumPy's */

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_AVX2_CLONE 1
#define AVX2 __attribute__((target("avx2")))
#include <immintrin.h>
#else
#define HAVE_AVX2_CLONE 0
#endif
#define BASELINE

/* NumPy's combine of a block's eight accumulators. */
#define PAIRWISE8(r) (((r)[0] + (r)[1]) + ((r)[2] + (r)[3])) + (((r)[4] + (r)[5]) + ((r)[6] + (r)[7]))

typedef float v8f __attribute__((vector_size(32)));
typedef double v8d __attribute__((vector_size(64)));
typedef int32_t v8i __attribute__((vector_size(32)));
typedef int64_t v8l __attribute__((vector_size(64)));

/* One pairwise sum for element type T, with V an 8-lane vector of T (32 bytes for float, 64 for
 * double: the compiler splits it into the machine's registers, lane by lane), every function
 * compiled for the target ATTR (BASELINE or AVX2: the recursion too, so each instantiation runs
 * its own instructions all the way down). */
/* NZ 1: every NaN element read as 0 (nansum: np.add.reduce(np.where(np.isnan(x), 0, x))'s
 * additions, without the temporary); VI is V's integer twin (the lanes' masks). */
#define DEFINE_PAIRWISE(T, V, VI, NAME, ATTR, COMBINE4, NZ)                                    \
    ATTR static inline V NAME##_load(const T *p)                                                  \
    {                                                                                             \
        V v;                                                                                      \
        memcpy(&v, p, sizeof(V));                                                                 \
        if (NZ) v = (V)((VI)v & (VI)(v == v)); /* (a NaN's lane: all bits cleared, +0.0) */       \
        return v;                                                                                 \
    }                                                                                             \
    ATTR static inline T NAME##_at(const T *p) { T e = *p; return NZ && e != e ? (T)0 : e; }      \
    ATTR static inline T NAME##_combine(V v)                                                           \
    {                                                                                             \
        T r[8];                                                                                   \
        memcpy(r, &v, sizeof(V));                                                                 \
        return PAIRWISE8(r);                                                                      \
    }                                                                                             \
    /* A block of n <= PW_BLOCKSIZE elements, as NumPy sums it. */                                \
    ATTR static inline T NAME##_block(const T *a, Py_ssize_t n)                                        \
    {                                                                                             \
        if (n < 8) {                                                                              \
            T res = 0;                                                                            \
            for (Py_ssize_t i = 0; i < n; i++) res += NAME##_at(a + i);                          \
            return res;                                                                           \
        }                                                                                         \
        V r = NAME##_load(a);                                                                     \
        Py_ssize_t i;                                                                             \
        for (i = 8; i < n - (n % 8); i += 8) r += NAME##_load(a + i);                            \
        T res = NAME##_combine(r);                                                                \
        for (; i < n; i++) res += NAME##_at(a + i);                                               \
        return res;                                                                               \
    }                                                                                             \
    /* Four blocks of n elements each (8 <= n <= PW_BLOCKSIZE, n % 8 == 0), s apart: four       \
     * independent chains, each summed as NAME##_block sums it. */                                \
    ATTR static inline void NAME##_block4(const T *a, Py_ssize_t s, Py_ssize_t n, T *res)              \
    {                                                                                             \
        V r0 = NAME##_load(a), r1 = NAME##_load(a + s), r2 = NAME##_load(a + 2 * s),              \
          r3 = NAME##_load(a + 3 * s);                                                            \
        for (Py_ssize_t i = 8; i < n; i += 8) {                                                   \
            r0 += NAME##_load(a + i);                                                             \
            r1 += NAME##_load(a + s + i);                                                         \
            r2 += NAME##_load(a + 2 * s + i);                                                     \
            r3 += NAME##_load(a + 3 * s + i);                                                     \
        }                                                                                         \
        COMBINE4(r0, r1, r2, r3, res);                                                            \
    }                                                                                             \
    /* q where a run of n splits into two equal halves, each longer than a block and split again  \
     * into two blocks of q (a multiple of 8, at most a block): NumPy's tree over four equal      \
     * blocks; 0 where it does not. */                                                            \
    ATTR static inline Py_ssize_t NAME##_four(Py_ssize_t n)                                       \
    {                                                                                             \
        Py_ssize_t n2 = n / 2;                                                                    \
        n2 -= n2 % 8;                                                                             \
        Py_ssize_t q = n2 / 2;                                                                    \
        q -= q % 8;                                                                               \
        return n - n2 == n2 && n2 > PW_BLOCKSIZE && 2 * q == n2 && q <= PW_BLOCKSIZE ? q : 0;     \
    }                                                                                             \
    /* A run of `groups` * 4 blocks (groups a power of two): NumPy's tree over it is perfect, \
     * down to nodes of four blocks (each node's halves equal), so the node sums are made left \
     * to right and merged as a binary counter merges: when a group's sum completes a pair, the  \
     * pair's left sum (on the stack) plus its right one, again while pairs complete. The same   \
     * adds in the same order as the recursion, without its calls and splits (a third of a 4 MB \
     * sum's time went there). */                                                               \
    ATTR static T NAME##_perfect(const T *a, Py_ssize_t groups)                                   \
    {                                                                                             \
        T stack[64];                                                                              \
        int depth = 0;                                                                            \
        for (Py_ssize_t g = 0; g < groups; g++) {                                                 \
            T r[4];                                                                               \
            NAME##_block4(a + g * 4 * PW_BLOCKSIZE, PW_BLOCKSIZE, PW_BLOCKSIZE, r);               \
            T sum = (r[0] + r[1]) + (r[2] + r[3]);                                                \
            for (Py_ssize_t k = g; k & 1; k >>= 1) sum = stack[--depth] + sum;                    \
            stack[depth++] = sum;                                                                 \
        }                                                                                         \
        return stack[0];                                                                          \
    }                                                                                             \
    ATTR static T NAME##_pairwise(const T *a, Py_ssize_t n)                                            \
    {                                                                                             \
        if (n <= PW_BLOCKSIZE) return NAME##_block(a, n);                                         \
        if (n % (4 * PW_BLOCKSIZE) == 0) {                                                        \
            Py_ssize_t groups = n / (4 * PW_BLOCKSIZE);                                           \
            if ((groups & (groups - 1)) == 0) return NAME##_perfect(a, groups);                   \
        }                                                                                         \
        Py_ssize_t n2 = n / 2;                                                                    \
        n2 -= n2 % 8;                                                                             \
        Py_ssize_t q = NAME##_four(n);                                                            \
        if (q) { /* four equal blocks, summed side by side */                                     \
            T r[4];                                                                               \
            NAME##_block4(a, q, q, r);                                                            \
            return (r[0] + r[1]) + (r[2] + r[3]);                                                 \
        }                                                                                         \
        return NAME##_pairwise(a, n2) + NAME##_pairwise(a + n2, n - n2);                          \
    }                                                                                             \
    ATTR static void NAME##_rows(const char *a, Py_ssize_t count, Py_ssize_t stride,              \
                                 Py_ssize_t length, T *out)                                       \
    {                                                                                             \
        Py_ssize_t i = 0;                                                                         \
        if (length >= 8 && length <= PW_BLOCKSIZE && stride % (Py_ssize_t)sizeof(T) == 0) {      \
            /* rows of one block each: four rows side by side (NAME##_block's chains, their tails \
             * added after, as it adds them) */                                                   \
            Py_ssize_t m = length - length % 8, s = stride / (Py_ssize_t)sizeof(T);               \
            for (; i + 4 <= count; i += 4) {                                                      \
                const T *row = (const T *)(a + i * stride);                                       \
                T r[4];                                                                           \
                NAME##_block4(row, s, m, r);                                                      \
                for (int k = 0; k < 4; k++) {                                                     \
                    for (Py_ssize_t j = m; j < length; j++) r[k] += NAME##_at(row + k * s + j);  \
                    out[i + k] = (T)0 + r[k];                                                     \
                }                                                                                 \
            }                                                                                     \
        }                                                                                         \
        for (; i < count; i++)                                                                    \
            out[i] = (T)0 + NAME##_pairwise((const T *)(a + i * stride), length);                 \
    }

/* ---- extremes: the largest (or smallest) element of each row */

typedef double v4d __attribute__((vector_size(32)));
typedef int64_t v4l __attribute__((vector_size(32)));

/* `v > m ? v : m` (and `v < m ? v : m`) lane by lane: the max/min instructions' own select (m,
 * the second operand, where either is NaN or the two are equal). The baseline build spells it
 * with masks; the AVX2 build calls the instructions (GCC makes a slower blend of the masks). */
#define DEFINE_SELECT(V, VI, NAME, ATTR)                                                          \
    ATTR static inline V NAME##_larger(V v, V m) { VI t = (VI)(v > m); return (V)(((VI)v & t) | ((VI)m & ~t)); } \
    ATTR static inline V NAME##_smaller(V v, V m) { VI t = (VI)(v < m); return (V)(((VI)v & t) | ((VI)m & ~t)); }
DEFINE_SELECT(v8f, v8i, f32, BASELINE)
DEFINE_SELECT(v4d, v4l, f64, BASELINE)
#if HAVE_AVX2_CLONE
AVX2 static inline v8f f32_avx2_larger(v8f v, v8f m) { return (v8f)_mm256_max_ps((__m256)v, (__m256)m); }
AVX2 static inline v8f f32_avx2_smaller(v8f v, v8f m) { return (v8f)_mm256_min_ps((__m256)v, (__m256)m); }
AVX2 static inline v4d f64_avx2_larger(v4d v, v4d m) { return (v4d)_mm256_max_pd((__m256d)v, (__m256d)m); }
AVX2 static inline v4d f64_avx2_smaller(v4d v, v4d m) { return (v4d)_mm256_min_pd((__m256d)v, (__m256d)m); }
#endif

/* The extreme of a row of n >= 1 elements (T, with V a 32-byte vector of L lanes and VI its
 * integer twin, PICK one of the selects above, CMP its comparison): four running vector extremes
 * (four independent chains), and four running ORs of the lanes' NaN tests (v != v), which stay 0
 * until a NaN comes; a row that met one is walked again and gives its first NaN. Which zero a
 * row of -0.0 and 0.0 gives may differ from NumPy's (its SIMD loop's choice): the caller
 * recomputes zero and NaN results with NumPy, every other result being the one value the row's
 * extreme can be. (The NaN test was a running sum of v - v, an add's latency per vector: the OR
 * of a compare is cheaper, and an infinity no longer sends the row to the walk.) */
#define DEFINE_EXTREME(T, V, VI, L, NAME, PICK, CMP, ATTR)                                        \
    ATTR static T NAME(const T *a, Py_ssize_t n)                                                  \
    {                                                                                             \
        Py_ssize_t i = 0;                                                                         \
        T res = a[0];                                                                             \
        int nan = 0;                                                                              \
        if (n >= 4 * L) {                                                                         \
            V m0, m1, m2, m3, v0, v1, v2, v3;                                                     \
            memcpy(&m0, a, sizeof(V)); memcpy(&m1, a + L, sizeof(V));                             \
            memcpy(&m2, a + 2 * L, sizeof(V)); memcpy(&m3, a + 3 * L, sizeof(V));                 \
            VI z0 = (VI)(m0 != m0), z1 = (VI)(m1 != m1), z2 = (VI)(m2 != m2), z3 = (VI)(m3 != m3); \
            for (i = 4 * L; i + 4 * L <= n; i += 4 * L) {                                         \
                memcpy(&v0, a + i, sizeof(V)); memcpy(&v1, a + i + L, sizeof(V));                 \
                memcpy(&v2, a + i + 2 * L, sizeof(V)); memcpy(&v3, a + i + 3 * L, sizeof(V));     \
                m0 = PICK(v0, m0); m1 = PICK(v1, m1); m2 = PICK(v2, m2); m3 = PICK(v3, m3);       \
                z0 |= (VI)(v0 != v0); z1 |= (VI)(v1 != v1); z2 |= (VI)(v2 != v2); z3 |= (VI)(v3 != v3); \
            }                                                                                     \
            V m = PICK(PICK(m0, m1), PICK(m2, m3));                                               \
            VI z = (z0 | z1) | (z2 | z3);                                                         \
            for (int k = 0; k < L; k++) {                                                         \
                res = m[k] CMP res ? m[k] : res;                                                  \
                nan |= z[k] != 0;                                                                 \
            }                                                                                     \
        }                                                                                         \
        for (; i < n; i++) {                                                                      \
            res = a[i] CMP res ? a[i] : res;                                                      \
            nan |= a[i] != a[i];                                                                  \
        }                                                                                         \
        if (nan) /* (a NaN: the first one) */                                                     \
            for (i = 0; i < n; i++)                                                               \
                if (a[i] != a[i]) return a[i];                                                    \
        return res;                                                                               \
    }

/* Both extremes of a row in one pass (aminmax): two chains each, as DEFINE_EXTREME. */
#define DEFINE_MINMAX(T, V, VI, L, NAME, ATTR)                                                    \
    ATTR static void NAME##_minmax(const T *a, Py_ssize_t n, T *lo, T *hi)                        \
    {                                                                                             \
        Py_ssize_t i = 0;                                                                         \
        T rlo = a[0], rhi = a[0];                                                                 \
        int nan = 0;                                                                              \
        if (n >= 2 * L) {                                                                         \
            V v0, v1, l0, l1, h0, h1;                                                             \
            memcpy(&l0, a, sizeof(V)); memcpy(&l1, a + L, sizeof(V));                             \
            h0 = l0; h1 = l1;                                                                     \
            VI z0 = (VI)(l0 != l0), z1 = (VI)(l1 != l1);                                          \
            for (i = 2 * L; i + 2 * L <= n; i += 2 * L) {                                         \
                memcpy(&v0, a + i, sizeof(V)); memcpy(&v1, a + i + L, sizeof(V));                 \
                l0 = NAME##_smaller(v0, l0); l1 = NAME##_smaller(v1, l1);                         \
                h0 = NAME##_larger(v0, h0); h1 = NAME##_larger(v1, h1);                           \
                z0 |= (VI)(v0 != v0); z1 |= (VI)(v1 != v1);                                       \
            }                                                                                     \
            V l = NAME##_smaller(l0, l1), h = NAME##_larger(h0, h1);                              \
            VI z = z0 | z1;                                                                       \
            for (int k = 0; k < L; k++) {                                                         \
                rlo = l[k] < rlo ? l[k] : rlo;                                                    \
                rhi = h[k] > rhi ? h[k] : rhi;                                                    \
                nan |= z[k] != 0;                                                                 \
            }                                                                                     \
        }                                                                                         \
        for (; i < n; i++) {                                                                      \
            rlo = a[i] < rlo ? a[i] : rlo;                                                        \
            rhi = a[i] > rhi ? a[i] : rhi;                                                        \
            nan |= a[i] != a[i];                                                                  \
        }                                                                                         \
        if (nan) /* (a NaN: the first one) */                                                     \
            for (i = 0; i < n; i++)                                                               \
                if (a[i] != a[i]) { rlo = rhi = a[i]; break; }                                    \
        *lo = rlo;                                                                                \
        *hi = rhi;                                                                                \
    }

/* mode 0: each row's smallest element into out[i]; 1: its largest; 2: both, the smallest into
 * out[i] and the largest into out[count + i]. */
#define DEFINE_EXTREME_ROWS(T, V, VI, L, NAME, ATTR)                                              \
    DEFINE_EXTREME(T, V, VI, L, NAME##_largest, NAME##_larger, >, ATTR)                           \
    DEFINE_EXTREME(T, V, VI, L, NAME##_smallest, NAME##_smaller, <, ATTR)                         \
    DEFINE_MINMAX(T, V, VI, L, NAME, ATTR)                                                        \
    ATTR static void NAME##_extreme_rows(const char *a, Py_ssize_t count, Py_ssize_t stride,      \
                                         Py_ssize_t length, T *out, int mode)                     \
    {                                                                                             \
        for (Py_ssize_t i = 0; i < count; i++) {                                                  \
            const T *row = (const T *)(a + i * stride);                                           \
            if (mode == 2)                                                                        \
                NAME##_minmax(row, length, out + i, out + count + i);                             \
            else                                                                                  \
                out[i] = mode ? NAME##_largest(row, length) : NAME##_smallest(row, length);       \
        }                                                                                         \
    }

/* ---- columns: a reduce over the outer dim of a 2-d array whose rows are contiguous
 *
 * NumPy reduces such an array row by row into its output (its iterator keeps the unit-stride dim
 * innermost): out = identity (0 for a sum), then out[j] = out[j] + row[j] for each row in order,
 * one row a pass, reading and writing the output once per row. Here the same adds, in the same
 * order, four rows a pass over a chunk of the output that stays in L1: the output is read and
 * written once per four rows. Extremes (mode 0: smallest, 1: largest) keep `v CMP m || v != v ?
 * v : m` (a NaN sticks): the caller recomputes with NumPy the columns whose result is a zero
 * (which zero NumPy's loop keeps) or NaN (which payload), as for the rows. The loops are plain C:
 * the compiler vectorises them for each target (elementwise, nothing reassociated). */
#define COL_CHUNK 1024 /* output elements a chunk: 4-8 KB, in L1 with the rows' lines */
#define DEFINE_COLS(T, NAME, ATTR)                                                                \
    ATTR static void NAME##_col_sums(const char *a, Py_ssize_t rows, Py_ssize_t stride,           \
                                     Py_ssize_t cols, T *restrict out)                            \
    {                                                                                             \
        for (Py_ssize_t c = 0; c < cols; c += COL_CHUNK) {                                        \
            Py_ssize_t w = cols - c < COL_CHUNK ? cols - c : COL_CHUNK;                           \
            T *restrict o = out + c;                                                              \
            const T *restrict r0 = (const T *)a + c;                                              \
            for (Py_ssize_t j = 0; j < w; j++) o[j] = (T)0 + r0[j];                               \
            Py_ssize_t i = 1;                                                                     \
            for (; i + 4 <= rows; i += 4) {                                                       \
                const T *restrict p = (const T *)(a + i * stride) + c;                            \
                const T *restrict q = (const T *)(a + (i + 1) * stride) + c;                      \
                const T *restrict u = (const T *)(a + (i + 2) * stride) + c;                      \
                const T *restrict v = (const T *)(a + (i + 3) * stride) + c;                      \
                for (Py_ssize_t j = 0; j < w; j++) o[j] = (((o[j] + p[j]) + q[j]) + u[j]) + v[j]; \
            }                                                                                     \
            for (; i < rows; i++) {                                                               \
                const T *restrict p = (const T *)(a + i * stride) + c;                            \
                for (Py_ssize_t j = 0; j < w; j++) o[j] = o[j] + p[j];                            \
            }                                                                                     \
        }                                                                                         \
    }                                                                                             \
    DEFINE_COL_EXTREMES(T, NAME##_col_largest, >, ATTR)                                           \
    DEFINE_COL_EXTREMES(T, NAME##_col_smallest, <, ATTR)                                          \
    /* mode 0: smallest, 1: largest, 3: sum */                                                    \
    ATTR static void NAME##_cols(const char *a, Py_ssize_t rows, Py_ssize_t stride, Py_ssize_t cols, \
                                 T *out, int mode)                                                \
    {                                                                                             \
        if (mode == 3) NAME##_col_sums(a, rows, stride, cols, out);                               \
        else if (mode == 1) NAME##_col_largest(a, rows, stride, cols, out);                       \
        else NAME##_col_smallest(a, rows, stride, cols, out);                                     \
    }
#define COL_PICK(m, v, CMP) ((v) CMP (m) || (v) != (v) ? (v) : (m))
#define DEFINE_COL_EXTREMES(T, NAME, CMP, ATTR)                                                   \
    ATTR static void NAME(const char *a, Py_ssize_t rows, Py_ssize_t stride, Py_ssize_t cols,     \
                          T *restrict out)                                                        \
    {                                                                                             \
        for (Py_ssize_t c = 0; c < cols; c += COL_CHUNK) {                                        \
            Py_ssize_t w = cols - c < COL_CHUNK ? cols - c : COL_CHUNK;                           \
            T *restrict o = out + c;                                                              \
            const T *restrict r0 = (const T *)a + c;                                              \
            for (Py_ssize_t j = 0; j < w; j++) o[j] = r0[j];                                      \
            Py_ssize_t i = 1;                                                                     \
            for (; i + 4 <= rows; i += 4) {                                                       \
                const T *restrict p = (const T *)(a + i * stride) + c;                            \
                const T *restrict q = (const T *)(a + (i + 1) * stride) + c;                      \
                const T *restrict u = (const T *)(a + (i + 2) * stride) + c;                      \
                const T *restrict v = (const T *)(a + (i + 3) * stride) + c;                      \
                for (Py_ssize_t j = 0; j < w; j++) {                                              \
                    T m = o[j];                                                                   \
                    m = COL_PICK(m, p[j], CMP);                                                   \
                    m = COL_PICK(m, q[j], CMP);                                                   \
                    m = COL_PICK(m, u[j], CMP);                                                   \
                    o[j] = COL_PICK(m, v[j], CMP);                                                \
                }                                                                                 \
            }                                                                                     \
            for (; i < rows; i++) {                                                               \
                const T *restrict p = (const T *)(a + i * stride) + c;                            \
                for (Py_ssize_t j = 0; j < w; j++) o[j] = COL_PICK(o[j], p[j], CMP);              \
            }                                                                                     \
        }                                                                                         \
    }

/* The four combines of a block4, one after the other (the baseline's). */
#define SCALAR_COMBINE4(T, V, NAME)                                                               \
    static inline T NAME##_combine(V v)                                                           \
    {                                                                                             \
        T r[8];                                                                                   \
        memcpy(r, &v, sizeof(V));                                                                 \
        return PAIRWISE8(r);                                                                      \
    }                                                                                             \
    static inline void NAME##_combine4(V a, V b, V c, V d, T *res)                                \
    {                                                                                             \
        res[0] = NAME##_combine(a); res[1] = NAME##_combine(b);                                   \
        res[2] = NAME##_combine(c); res[3] = NAME##_combine(d);                                   \
    }
SCALAR_COMBINE4(float, v8f, f32_scalar)
SCALAR_COMBINE4(double, v8d, f64_scalar)
DEFINE_PAIRWISE(float, v8f, v8i, f32, BASELINE, f32_scalar_combine4, 0)
DEFINE_PAIRWISE(float, v8f, v8i, f32_nz, BASELINE, f32_scalar_combine4, 1)
DEFINE_PAIRWISE(double, v8d, v8l, f64, BASELINE, f64_scalar_combine4, 0)
DEFINE_PAIRWISE(double, v8d, v8l, f64_nz, BASELINE, f64_scalar_combine4, 1)
DEFINE_EXTREME_ROWS(float, v8f, v8i, 8, f32, BASELINE)
DEFINE_EXTREME_ROWS(double, v4d, v4l, 4, f64, BASELINE)
DEFINE_COLS(float, f32, BASELINE)
DEFINE_COLS(double, f64, BASELINE)
#if HAVE_AVX2_CLONE
/* The four combines of a block4 at once, in registers: each vector's
 * ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7)), the same adds with the same operands in the
 * same order as the scalar combine (each level adds the even lanes to the odd ones, first operand
 * first: the same bits, NaN payloads included), three vector adds for the four instead of 28
 * scalar ones and their lane extractions (a sixth of a 4 MB float32 sum's time). */
AVX2 static inline void f32_avx2_combine4(v8f a, v8f b, v8f c, v8f d, float *res)
{
    __m256 A = (__m256)a, B = (__m256)b, C = (__m256)c, D = (__m256)d;
    /* [a0+a1, a2+a3, b0+b1, b2+b3 | a4+a5, a6+a7, b4+b5, b6+b7] and the same of c, d */
    __m256 ab = _mm256_add_ps(_mm256_shuffle_ps(A, B, _MM_SHUFFLE(2, 0, 2, 0)), _mm256_shuffle_ps(A, B, _MM_SHUFFLE(3, 1, 3, 1)));
    __m256 cd = _mm256_add_ps(_mm256_shuffle_ps(C, D, _MM_SHUFFLE(2, 0, 2, 0)), _mm256_shuffle_ps(C, D, _MM_SHUFFLE(3, 1, 3, 1)));
    /* [(a01)+(a23), (b01)+(b23), (c01)+(c23), (d01)+(d23) | the same of lanes 4-7] */
    __m256 q = _mm256_add_ps(_mm256_shuffle_ps(ab, cd, _MM_SHUFFLE(2, 0, 2, 0)), _mm256_shuffle_ps(ab, cd, _MM_SHUFFLE(3, 1, 3, 1)));
    _mm_storeu_ps(res, _mm_add_ps(_mm256_castps256_ps128(q), _mm256_extractf128_ps(q, 1)));
}

AVX2 static inline void f64_avx2_combine4(v8d a, v8d b, v8d c, v8d d, double *res)
{
    __m256d lo[4], hi[4];
    memcpy(&lo[0], &a, 32); memcpy(&hi[0], (const char *)&a + 32, 32);
    memcpy(&lo[1], &b, 32); memcpy(&hi[1], (const char *)&b + 32, 32);
    memcpy(&lo[2], &c, 32); memcpy(&hi[2], (const char *)&c + 32, 32);
    memcpy(&lo[3], &d, 32); memcpy(&hi[3], (const char *)&d + 32, 32);
    /* lanes 0-3 (lo) and 4-7 (hi) of each: [x0+x1, y0+y1, x2+x3, y2+y3] for the pairs (a, b), (c, d) */
    __m256d ab_lo = _mm256_add_pd(_mm256_unpacklo_pd(lo[0], lo[1]), _mm256_unpackhi_pd(lo[0], lo[1]));
    __m256d cd_lo = _mm256_add_pd(_mm256_unpacklo_pd(lo[2], lo[3]), _mm256_unpackhi_pd(lo[2], lo[3]));
    __m256d ab_hi = _mm256_add_pd(_mm256_unpacklo_pd(hi[0], hi[1]), _mm256_unpackhi_pd(hi[0], hi[1]));
    __m256d cd_hi = _mm256_add_pd(_mm256_unpacklo_pd(hi[2], hi[3]), _mm256_unpackhi_pd(hi[2], hi[3]));
    /* [a01, b01, c01, d01] + [a23, b23, c23, d23]: the low half of each sum */
    __m256d l01 = _mm256_permute2f128_pd(ab_lo, cd_lo, 0x20), l23 = _mm256_permute2f128_pd(ab_lo, cd_lo, 0x31);
    __m256d h01 = _mm256_permute2f128_pd(ab_hi, cd_hi, 0x20), h23 = _mm256_permute2f128_pd(ab_hi, cd_hi, 0x31);
    _mm256_storeu_pd(res, _mm256_add_pd(_mm256_add_pd(l01, l23), _mm256_add_pd(h01, h23)));
}
DEFINE_PAIRWISE(float, v8f, v8i, f32_avx2, AVX2, f32_avx2_combine4, 0)
DEFINE_PAIRWISE(float, v8f, v8i, f32_avx2_nz, AVX2, f32_avx2_combine4, 1)
DEFINE_PAIRWISE(double, v8d, v8l, f64_avx2, AVX2, f64_avx2_combine4, 0)
DEFINE_PAIRWISE(double, v8d, v8l, f64_avx2_nz, AVX2, f64_avx2_combine4, 1)
DEFINE_EXTREME_ROWS(float, v8f, v8i, 8, f32_avx2, AVX2)
DEFINE_EXTREME_ROWS(double, v4d, v4l, 4, f64_avx2, AVX2)
DEFINE_COLS(float, f32_avx2, AVX2)
DEFINE_COLS(double, f64_avx2, AVX2)
static int use_avx2; /* set once at import: __builtin_cpu_supports("avx2") */

/* float64 on AVX-512: the 8-lane accumulator vector is one register (AVX2 splits it in two and
 * moves it through memory in the combines). 1M float64 sum and rows of 64 float64: see the
 * commit's figures. */
#define AVX512 __attribute__((target("avx512f")))
AVX512 static inline void f64_avx512_combine4(v8d a, v8d b, v8d c, v8d d, double *res)
{
    __m512d A = (__m512d)a, B = (__m512d)b, C = (__m512d)c, D = (__m512d)d;
    /* [a0+a1, b0+b1, a2+a3, b2+b3, a4+a5, b4+b5, a6+a7, b6+b7] and the same of c, d */
    __m512d ab = _mm512_add_pd(_mm512_unpacklo_pd(A, B), _mm512_unpackhi_pd(A, B));
    __m512d cd = _mm512_add_pd(_mm512_unpacklo_pd(C, D), _mm512_unpackhi_pd(C, D));
    /* [a01, b01, c01, d01, a45, b45, c45, d45] + [a23, b23, c23, d23, a67, b67, c67, d67] */
    __m512d x = _mm512_permutex2var_pd(ab, _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), cd);
    __m512d y = _mm512_permutex2var_pd(ab, _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15), cd);
    __m512d q = _mm512_add_pd(x, y);
    _mm256_storeu_pd(res, _mm256_add_pd(_mm512_castpd512_pd256(q), _mm512_extractf64x4_pd(q, 1)));
}
DEFINE_PAIRWISE(double, v8d, v8l, f64_avx512, AVX512, f64_avx512_combine4, 0)
DEFINE_PAIRWISE(double, v8d, v8l, f64_avx512_nz, AVX512, f64_avx512_combine4, 1)
static int use_avx512; /* set once at import: __builtin_cpu_supports("avx512f") */
#endif
/* Above this many bytes each sum takes the copy one step narrower: float64 AVX2 instead of
 * AVX-512, float32 the baseline (SSE) instead of AVX2. Measured on an AMD EPYC (CI's machine):
 * the wider loads are faster from the caches (1 MB float64: 12 us against 16.5; 4 MB float32: 52
 * against 72) and two to three times slower from memory (32 MB float64: 3.1 ms against 1.2;
 * float32: 2.5 against 1.07; NumPy's scalar loop 1.1-1.35, PyTorch 0.77-0.93); they cross near
 * 8 MB. The same adds in the same order in every copy: the same bits. (The extremes' AVX2 loops
 * keep their speed from memory: no such switch there.) */
#define WIDE_MAX_BYTES (8.0 * 1024 * 1024)
#if HAVE_AVX2_CLONE
static int one_copy; /* STRIDED_NATIVE_ROWS_ISA given: that copy at every size (tests) */
#endif

#include "_variance_one.h" /* variance_one: one float32 variance, NumPy's steps fused */
#include "_extreme_rows_z.h" /* z_extreme_rows: the row extremes' AVX-512 copy */

/* An O& converter: a positive int (an address from NumPy's __array_interface__), or an array
 * (any buffer): the address of its element [0, ..., 0] (the buffer's first element, whatever its
 * strides' signs), read without NumPy's __array_interface__ dict (about 1 us a call). */
static int to_address(PyObject *o, void *out)
{
    if (!PyLong_Check(o) && PyObject_CheckBuffer(o)) {
        Py_buffer view;
        if (PyObject_GetBuffer(o, &view, PyBUF_STRIDES) < 0) return 0;
        *(uintptr_t *)out = (uintptr_t)view.buf;
        PyBuffer_Release(&view);  /* (the caller holds the array: see the module comment) */
        if (*(uintptr_t *)out == 0) {
            PyErr_SetString(PyExc_ValueError, "rows: an array's address must not be 0");
            return 0;
        }
        return 1;
    }
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "rows: an address must be an int, not %.100s", Py_TYPE(o)->tp_name);
        return 0;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if ((v == (unsigned long long)-1 && PyErr_Occurred()) || v == 0 || v > UINTPTR_MAX) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "rows: an address must be an int from 1 to 2**%d - 1, not %R",
                     (int)(8 * sizeof(void *)), o);
        return 0;
    }
    *(uintptr_t *)out = (uintptr_t)v;
    return 1;
}

static PyObject *py_rows(PyObject *self, PyObject *args)
{
    (void)self;
    uintptr_t addr, oaddr;
    int itemsize;
    Py_ssize_t count, stride, length;
    int nz = 0;
    if (!PyArg_ParseTuple(args, "O&innnO&|p:rows", to_address, &addr, &itemsize, &count, &stride, &length,
                          to_address, &oaddr, &nz))
        return NULL;
    if (itemsize != 4 && itemsize != 8) {
        PyErr_Format(PyExc_ValueError, "rows: itemsize must be 4 (float32) or 8 (float64), not %d", itemsize);
        return NULL;
    }
    if (count < 0 || length < 0) {
        PyErr_Format(PyExc_ValueError, "rows: count and length must be >= 0, not %zd and %zd", count, length);
        return NULL;
    }
#if HAVE_AVX2_CLONE
    int large = (double)count * (double)length * itemsize > WIDE_MAX_BYTES;
#endif
    /* (the copy: by the CPU, the size and nz; then the same call) */
    void (*f32)(const char *, Py_ssize_t, Py_ssize_t, Py_ssize_t, float *) = nz ? f32_nz_rows : f32_rows;
    void (*f64)(const char *, Py_ssize_t, Py_ssize_t, Py_ssize_t, double *) = nz ? f64_nz_rows : f64_rows;
#if HAVE_AVX2_CLONE
    if (use_avx2 && (one_copy || !large))
        f32 = nz ? f32_avx2_nz_rows : f32_avx2_rows;
    if (use_avx512 && (one_copy || !large))
        f64 = nz ? f64_avx512_nz_rows : f64_avx512_rows;
    else if (use_avx2)
        f64 = nz ? f64_avx2_nz_rows : f64_avx2_rows;
#endif
    Py_BEGIN_ALLOW_THREADS
    if (itemsize == 4)
        f32((const char *)addr, count, stride, length, (float *)oaddr);
    else
        f64((const char *)addr, count, stride, length, (double *)oaddr);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

/* x * -1 as the multiply instruction gives it: -x, or a NaN x itself, quieted (its sign kept). */
#define NEG_BY_MUL(T, U, QUIET)                                                                   \
    static inline T neg_by_mul_##T(T x)                                                           \
    {                                                                                             \
        if (x == x) return -x;                                                                    \
        U u;                                                                                      \
        memcpy(&u, &x, sizeof u);                                                                 \
        u |= (QUIET);                                                                             \
        memcpy(&x, &u, sizeof u);                                                                 \
        return x;                                                                                 \
    }
NEG_BY_MUL(float, uint32_t, 0x00400000u)
NEG_BY_MUL(double, uint64_t, 0x0008000000000000ull)
#undef NEG_BY_MUL

/* PyTorch's nll_loss reduction (LossNLL.cpp, nll_loss_out_frame): the per-sample losses v[b] (and
 * their weights w[b]) added into eight partial sums, each sample into the first; after sample b,
 * for j = 0, 1, ... while b is a multiple of 2^(p (j + 1)), partial j is added into partial j + 1
 * and cleared (p = max(4, ceil(log2 n) / 8), n the batch size); a skipped (ignored) sample adds
 * nothing and moves nothing; the total is 0 + partial 0 + partial 1 + ... + partial 7, in T. PyTorch
 * subtracts each pick (l -= x * w) where v holds -(w * x): the same IEEE result. */
static int ceil_log2(Py_ssize_t n)
{
    int k = 0;
    while (k < 62 && ((Py_ssize_t)1 << k) < n) k++;
    return k;
}
/* The cascade's shared steps: the level width p and its mask for a batch of n; after sample b,
 * partial j carried into partial j + 1 and cleared while b is a multiple of 2^(p (j + 1)); the total
 * 0 + partial 0 + ... + partial 7. */
static Py_ssize_t nll_level_mask(Py_ssize_t n, int *p)
{
    *p = ceil_log2(n) / 8;
    if (*p < 4) *p = 4;
    return ((Py_ssize_t)1 << *p) - 1;
}
#define NLL_STEPS(T)                                                                              \
    static inline void nll_carry_##T(T *partial, Py_ssize_t b, Py_ssize_t mask, int p)            \
    {                                                                                             \
        for (int j = 0; j + 1 < 8; j++) {                                                         \
            if ((b & (mask << (j * p))) != 0) break;                                              \
            partial[j + 1] = partial[j + 1] + partial[j];                                         \
            partial[j] = 0;                                                                       \
        }                                                                                         \
    }                                                                                             \
    static inline T nll_total_##T(const T *partial)                                               \
    {                                                                                             \
        T total = 0;                                                                              \
        for (int j = 0; j < 8; j++) total = total + partial[j];                                   \
        return total;                                                                             \
    }
NLL_STEPS(float)
NLL_STEPS(double)
#undef NLL_STEPS

#define NLL_CASCADE(T)                                                                            \
    static T nll_cascade_##T(const T *v, const T *w, const unsigned char *skip, Py_ssize_t n,     \
                             T *weight_total)                                                     \
    {                                                                                             \
        T loss[8] = {0}, wsum[8] = {0};                                                           \
        int p;                                                                                    \
        Py_ssize_t mask = nll_level_mask(n, &p);                                                  \
        for (Py_ssize_t b = 0; b < n; b++) {                                                      \
            if (skip != NULL && skip[b]) continue;                                                \
            loss[0] = loss[0] + v[b];                                                             \
            if (w != NULL) wsum[0] = wsum[0] + w[b];                                              \
            nll_carry_##T(loss, b, mask, p);                                                      \
            nll_carry_##T(wsum, b, mask, p);                                                      \
        }                                                                                         \
        *weight_total = nll_total_##T(wsum);                                                      \
        return nll_total_##T(loss);                                                               \
    }
NLL_CASCADE(float)
NLL_CASCADE(double)
#undef NLL_CASCADE

/* nll_sum's picks and nll_cascade's sums (no weights, nothing skipped) in one loop, as PyTorch's
 * nll_loss_out_frame runs them: the same additions in the same order, so the same total, but the
 * picks' loads (one per row, rows classes elements apart) now overlap the serial chain of adds into
 * partial 0 instead of all coming first (2^10 rows of 2^10 float32: the kernel ~3.2 -> ~2.6 us,
 * PyTorch's call ~4.1 us in all). Every index is in [0, classes) (the caller checked). */
#define NLL_PICK_SUM(T)                                                                           \
    static T nll_pick_sum_##T(const T *l, const int64_t *t, Py_ssize_t n, Py_ssize_t classes)     \
    {                                                                                             \
        T loss[8] = {0};                                                                          \
        int p;                                                                                    \
        Py_ssize_t mask = nll_level_mask(n, &p);                                                  \
        for (Py_ssize_t b = 0; b < n; b++) {                                                      \
            loss[0] = loss[0] + neg_by_mul_##T(l[b * classes + t[b]]);                            \
            nll_carry_##T(loss, b, mask, p);                                                      \
        }                                                                                         \
        return nll_total_##T(loss);                                                               \
    }
NLL_PICK_SUM(float)
NLL_PICK_SUM(double)
#undef NLL_PICK_SUM

static char buffer_kind(const Py_buffer *b)
{
    const char *f = b->format;
    return f[0] == '<' || f[0] == '=' || f[0] == '@' ? f[1] : f[0];
}

/* nll_cascade(values, weights, skip) -> (total, weight_total) or None: the cascade above over a
 * C-contiguous 1-d float32 or float64 buffer of per-sample losses, with weights (the same type and
 * length, or None: the weight total is then 0) and skip (a bool buffer of that length, or None);
 * None where the buffers are not of that kind. */
static PyObject *py_nll_cascade(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *vo, *wo, *so;
    if (!PyArg_ParseTuple(args, "OOO:nll_cascade", &vo, &wo, &so))
        return NULL;
    Py_buffer bufs[3];
    PyObject *objs[3] = {vo, wo, so};
    int got = 0;
    PyObject *answer = NULL;
    for (; got < 3; got++) {
        if (objs[got] == Py_None) {
            bufs[got].buf = NULL;
            bufs[got].obj = NULL;
            continue;
        }
        if (PyObject_GetBuffer(objs[got], &bufs[got], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
            goto done;
    }
    {
        Py_buffer *v = &bufs[0], *w = &bufs[1], *sk = &bufs[2];
        char k = v->buf ? buffer_kind(v) : 0;
        int size = k == 'f' ? 4 : k == 'd' ? 8 : 0;
        Py_ssize_t n = size && v->itemsize == size ? v->len / size : -1;
        int fits = n >= 0 && (uintptr_t)v->buf % size == 0
            && (w->buf == NULL || (buffer_kind(w) == k && w->itemsize == size && w->len == v->len
                                   && (uintptr_t)w->buf % size == 0))
            && (sk->buf == NULL || (buffer_kind(sk) == '?' && sk->itemsize == 1 && sk->len == n));
        if (!fits) {
            answer = Py_None;
            Py_INCREF(answer);
            goto done;
        }
        if (size == 4) {
            float wt, total = nll_cascade_float(v->buf, w->buf, sk->buf, n, &wt);
            answer = Py_BuildValue("(dd)", (double)total, (double)wt);
        } else {
            double wt, total = nll_cascade_double(v->buf, w->buf, sk->buf, n, &wt);
            answer = Py_BuildValue("(dd)", total, wt);
        }
    }
done:
    for (int i = 0; i < got; i++)
        if (objs[i] != Py_None) PyBuffer_Release(&bufs[i]);
    return answer;
}

/* nll_sum(logp, target, classes) -> float or None: the sum over i of -1 * logp[i, target[i]] for a
 * C-contiguous (n, classes) float32 ("f") or float64 ("d") buffer and a C-contiguous int64 buffer of
 * n >= 1 class indices: strided.nn.functional.losses._nll_rows' steps (the picks times -1, then
 * PyTorch's cascade over them, nll_cascade's, in one loop: nll_pick_sum), as a Python float holding the buffer type's value.
 * None where an index is outside [0, classes), the buffers are not of that kind (the caller's NumPy
 * steps then run, with their errors), or the sum is NaN (the caller's steps pass the same NaN on). */
static PyObject *py_nll_sum(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *lo, *to;
    Py_ssize_t classes;
    if (!PyArg_ParseTuple(args, "OOn:nll_sum", &lo, &to, &classes))
        return NULL;
    Py_buffer lb, tb;
    if (PyObject_GetBuffer(lo, &lb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(to, &tb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&lb);
        return NULL;
    }
    PyObject *answer = NULL;
    const char *lf = lb.format, *tf = tb.format;
    char lk = lf[0] == '<' || lf[0] == '=' || lf[0] == '@' ? lf[1] : lf[0];
    char tk = tf[0] == '<' || tf[0] == '=' || tf[0] == '@' ? tf[1] : tf[0];
    int itemsize = lk == 'f' ? 4 : 8;
    Py_ssize_t n = tb.itemsize == 8 ? tb.len / 8 : 0;
    if ((lk == 'f' || lk == 'd') && lb.itemsize == itemsize && (tk == 'l' || tk == 'q') && tb.itemsize == 8 && n >= 1
        && classes >= 1 && lb.len == n * classes * itemsize && (uintptr_t)lb.buf % itemsize == 0
        && (uintptr_t)tb.buf % 8 == 0) {
        const int64_t *t = tb.buf;
        int ok = 1;
        for (Py_ssize_t i = 0; i < n; i++) ok &= t[i] >= 0 && t[i] < classes;
        if (ok) {
            if (itemsize == 4) {
                float sum = nll_pick_sum_float(lb.buf, t, n, classes);
                if (sum == sum) answer = PyFloat_FromDouble((double)sum);
            } else {
                double sum = nll_pick_sum_double(lb.buf, t, n, classes);
                if (sum == sum) answer = PyFloat_FromDouble(sum);
            }
            if (answer != NULL) goto done;
        }
    }
    answer = Py_None;
    Py_INCREF(answer);
done:
    PyBuffer_Release(&lb);
    PyBuffer_Release(&tb);
    return answer;
}

/* How many of the n results at out are NaN (zeros 1: or a zero of either sign): the results the
 * caller recomputes with NumPy (which zero, which NaN payload is its loop's choice). */
static Py_ssize_t count_unsure(const char *out, int itemsize, Py_ssize_t n, int zeros)
{
    Py_ssize_t unsure = 0;
    if (itemsize == 4)
        for (Py_ssize_t i = 0; i < n; i++) { float v = ((const float *)out)[i]; unsure += (zeros && v == 0) || v != v; }
    else
        for (Py_ssize_t i = 0; i < n; i++) { double v = ((const double *)out)[i]; unsure += (zeros && v == 0) || v != v; }
    return unsure;
}

/* extreme_rows(address, itemsize, count, row_stride, length, out_address, mode) -> int: as rows,
 * the smallest (mode 0) or largest (1) element of each row of length >= 1, or both (2: the
 * smallest into the output's first count elements, the largest into the next count); NaN where a
 * row holds one. Returns how many results are a zero or NaN (the caller's to recompute: 0 spares
 * it NumPy's tests of the results, ~2.5 us). */
static PyObject *py_extreme_rows(PyObject *self, PyObject *args)
{
    (void)self;
    uintptr_t addr, oaddr;
    int itemsize, mode;
    Py_ssize_t count, stride, length;
    if (!PyArg_ParseTuple(args, "O&innnO&i:extreme_rows", to_address, &addr, &itemsize, &count, &stride,
                          &length, to_address, &oaddr, &mode))
        return NULL;
    if (mode < 0 || mode > 2) {
        PyErr_Format(PyExc_ValueError, "extreme_rows: mode must be 0 (smallest), 1 (largest) or 2 (both), not %d",
                     mode);
        return NULL;
    }
    if (itemsize != 4 && itemsize != 8) {
        PyErr_Format(PyExc_ValueError, "extreme_rows: itemsize must be 4 (float32) or 8 (float64), not %d",
                     itemsize);
        return NULL;
    }
    if (count < 0 || length < 1) {
        PyErr_Format(PyExc_ValueError, "extreme_rows: count must be >= 0 and length >= 1, not %zd and %zd",
                     count, length);
        return NULL;
    }
    Py_ssize_t unsure = 0, results = mode == 2 ? 2 * count : count;
    Py_BEGIN_ALLOW_THREADS
    extreme_rows_any(itemsize, (const char *)addr, count, stride, length, (void *)oaddr, mode);
    unsure = count_unsure((const char *)oaddr, itemsize, results, 1);
    Py_END_ALLOW_THREADS
    return PyLong_FromSsize_t(unsure);
}

/* cols(address, itemsize, rows, row_stride, cols, out_address, mode) -> int: the reduce over the outer
 * dim of `rows` contiguous rows of `cols` elements (row i at address + i * row_stride) into a
 * contiguous output of `cols` elements, NumPy's row-by-row order (see DEFINE_COLS); mode 0: the
 * smallest, 1: the largest, 3: the sum. Returns how many results are NaN or (extremes) a zero. The caller guarantees rows >= 1 and that the rows lie in
 * a live buffer it holds and do not overlap the output. */
static PyObject *py_cols(PyObject *self, PyObject *args)
{
    (void)self;
    uintptr_t addr, oaddr;
    int itemsize, mode;
    Py_ssize_t rows, stride, cols;
    if (!PyArg_ParseTuple(args, "O&innnO&i:cols", to_address, &addr, &itemsize, &rows, &stride, &cols,
                          to_address, &oaddr, &mode))
        return NULL;
    if (mode != 0 && mode != 1 && mode != 3) {
        PyErr_Format(PyExc_ValueError, "cols: mode must be 0 (smallest), 1 (largest) or 3 (sum), not %d", mode);
        return NULL;
    }
    if (itemsize != 4 && itemsize != 8) {
        PyErr_Format(PyExc_ValueError, "cols: itemsize must be 4 (float32) or 8 (float64), not %d", itemsize);
        return NULL;
    }
    if (rows < 1 || cols < 0) {
        PyErr_Format(PyExc_ValueError, "cols: rows must be >= 1 and cols >= 0, not %zd and %zd", rows, cols);
        return NULL;
    }
    Py_ssize_t unsure;
    Py_BEGIN_ALLOW_THREADS
#if HAVE_AVX2_CLONE
    if (use_avx2 && itemsize == 4)
        f32_avx2_cols((const char *)addr, rows, stride, cols, (float *)oaddr, mode);
    else if (use_avx2)
        f64_avx2_cols((const char *)addr, rows, stride, cols, (double *)oaddr, mode);
    else
#endif
    if (itemsize == 4)
        f32_cols((const char *)addr, rows, stride, cols, (float *)oaddr, mode);
    else
        f64_cols((const char *)addr, rows, stride, cols, (double *)oaddr, mode);
    unsure = count_unsure((const char *)oaddr, itemsize, cols, mode != 3);
    Py_END_ALLOW_THREADS
    return PyLong_FromSsize_t(unsure);
}

/* extreme_all(x, out, mode[, length]) -> int: extreme_rows over the C-contiguous float32 ('f') or
 * float64 ('d') buffer x read as rows of `length` elements (default: every element, one row; it
 * must divide x's element count), into out (a writable buffer of x's type holding a result per
 * row; mode 2: two per row, the smallest first, then the largest): the smallest (mode 0), largest
 * (1) or both (2). Returns how many results are a zero or NaN (0: every answer is the one answer,
 * NumPy's bits; else the caller recomputes with NumPy), -1 when the call is not taken (x empty,
 * unaligned, another type, a length that does not divide it; out too small or of another type:
 * the caller's NumPy path). The small max()/min()/amax(dim=-1)/aminmax call: one buffer read each
 * side, no address arithmetic or alignment test in Python. */
static PyObject *py_extreme_all(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3 && nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "extreme_all(x, out, mode[, length]) takes 3 or 4 arguments");
        return NULL;
    }
    int mode = PyLong_Check(args[2]) ? (int)PyLong_AsLong(args[2]) : -1;
    if (mode < 0 || mode > 2) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "extreme_all: mode must be 0 (smallest), 1 (largest) or 2 (both)");
        return NULL;
    }
    Py_ssize_t length = -1; /* (-1: every element, one row) */
    if (nargs == 4) {
        length = PyLong_Check(args[3]) ? PyLong_AsSsize_t(args[3]) : -1;
        if (length < 1) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "extreme_all: length must be an int >= 1");
            return NULL;
        }
    }
    Py_buffer xb, ob;
    int itemsize, floats = float_buffers(args[0], args[1], &xb, &ob, &itemsize);
    if (floats < 0)
        return NULL;
    long answer = -1;
    Py_ssize_t n = itemsize ? xb.len / itemsize : 0;
    if (length < 0)
        length = n;
    Py_ssize_t count = n >= 1 && n % length == 0 ? n / length : 0, results = mode == 2 ? 2 * count : count;
    if (floats && count >= 1 && ob.len >= results * itemsize) {
        int release = n >= (1 << 16);
        PyThreadState *ts = release ? PyEval_SaveThread() : NULL;
        extreme_rows_any(itemsize, (const char *)xb.buf, count, length * itemsize, length, ob.buf, mode);
        answer = (long)count_unsure((const char *)ob.buf, itemsize, results, 1);
        if (release)
            PyEval_RestoreThread(ts);
    }
    PyBuffer_Release(&ob);
    PyBuffer_Release(&xb);
    return PyLong_FromLong(answer);
}

/* extreme_one(x, out, mode) -> bool: extreme_all(x, out, mode) (mode 0 or 1, one row) where its
 * answer is 0 (the one answer, NumPy's bits, in out): True; False where it is not (a zero or NaN
 * met, or the call not taken: out holds nothing meaningful). A compiled front's kernel call
 * (max(), min(): strided.ops.reductions.extrema). */
static PyObject *py_extreme_one(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "extreme_one(x, out, mode) takes 3 arguments");
        return NULL;
    }
    if (!PyLong_Check(args[2]) || (PyLong_AsLong(args[2]) != 0 && PyLong_AsLong(args[2]) != 1)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "extreme_one: mode must be 0 (smallest) or 1 (largest)");
        return NULL;
    }
    PyObject *answer = py_extreme_all(self, args, 3);
    if (answer == NULL)
        return NULL;
    long unsure = PyLong_AsLong(answer);
    Py_DECREF(answer);
    if (unsure == -1 && PyErr_Occurred())
        return NULL;
    return PyBool_FromLong(unsure == 0);
}

/* extreme_pair(x, lo, hi) -> bool: extreme_one(x, lo, 0) and extreme_one(x, hi, 1), True where both
 * answers are sure (aminmax(): strided.ops.reductions.nan_reductions' two kernel calls); False
 * (lo and hi meaningless) otherwise. */
static PyObject *py_extreme_pair(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "extreme_pair(x, lo, hi) takes 3 arguments");
        return NULL;
    }
    for (long mode = 0; mode < 2; mode++) {
        PyObject *m = PyLong_FromLong(mode);
        PyObject *a[3] = {args[0], args[1 + mode], m};
        PyObject *sure = m != NULL ? py_extreme_one(self, a, 3) : NULL;
        Py_XDECREF(m);
        if (sure == NULL)
            return NULL;
        int yes = sure == Py_True;
        Py_DECREF(sure);
        if (!yes)
            Py_RETURN_FALSE;
    }
    Py_RETURN_TRUE;
}

/* histc's counting (strided.ops.reductions.counting.histc, PyTorch's histc with the edges given):
 * each element v of x with lo <= v <= hi (NaN fails both) counted in bin
 * min((int64)(((v - lo) * bins) / (hi - lo)), bins - 1), every step in the element type: the
 * NumPy path's operations (subtract, multiply by the dtype's bins, divide by hi - lo, truncate),
 * one pass, no masks. Returns 0 (nothing counted) where a position is not a finite value in
 * [0, 2^63) (hi - lo overflowed: the NumPy path then gives its answer or its error). */
#define HISTC_LOOP(T)                                                                               \
    static int histc_##T(const T *x, Py_ssize_t n, T lo, T hi, Py_ssize_t bins, int64_t *counts)    \
    {                                                                                               \
        const T width = hi - lo, fb = (T)bins, top = (T)9.2e18;                                     \
        for (Py_ssize_t i = 0; i < n; i++) {                                                        \
            T v = x[i];                                                                             \
            if (!(v >= lo && v <= hi))                                                              \
                continue;                                                                           \
            T sc = ((v - lo) * fb) / width;                                                         \
            if (!(sc >= (T)0 && sc < top))                                                          \
                return 0;                                                                           \
            int64_t p = (int64_t)sc;                                                                \
            counts[p > bins - 1 ? bins - 1 : p]++;                                                  \
        }                                                                                           \
        return 1;                                                                                   \
    }
HISTC_LOOP(float)
HISTC_LOOP(double)
#undef HISTC_LOOP

/* histc(x, out, lo, hi) -> bool: the counts of histc_float / histc_double over the C-contiguous
 * float32 ('f') or float64 ('d') buffer x into out (a C-contiguous buffer of x's type: bins =
 * its length, >= 1), each count rounded to the type as NumPy's astype rounds it; lo and hi
 * Python floats holding values of the type (exact). False (out untouched) where the buffers are
 * not of that kind or a position is out of range (see histc_float). */
/* The read buffer of `in` and the writable one of `out`, both C-contiguous with their formats
 * (the shape of histc's, arg_cols' calls); 0 with the error set, nothing held. */
static int in_out_buffers(PyObject *in, PyObject *out, Py_buffer *xb, Py_buffer *ob)
{
    if (PyObject_GetBuffer(in, xb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return 0;
    if (PyObject_GetBuffer(out, ob, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(xb);
        return 0;
    }
    return 1;
}

/* A buffer's element kind: 4 (float32, format "f"), 8 (float64, "d"), 0 for any other format (an
 * unaligned array's "=f" among them). */
static int float_kind(const Py_buffer *b)
{
    const char *f = b->format ? b->format : "B";
    if (!f[0] || f[1])
        return 0;
    return f[0] == 'f' && b->itemsize == 4 ? 4 : f[0] == 'd' && b->itemsize == 8 ? 8 : 0;
}

static PyObject *py_histc(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "histc(x, out, lo, hi) takes 4 arguments");
        return NULL;
    }
    double lo = PyFloat_AsDouble(args[2]);
    if (lo == -1.0 && PyErr_Occurred())
        return NULL;
    double hi = PyFloat_AsDouble(args[3]);
    if (hi == -1.0 && PyErr_Occurred())
        return NULL;
    Py_buffer xb, ob;
    if (!in_out_buffers(args[0], args[1], &xb, &ob))
        return NULL;
    int done = 0;
    Py_ssize_t itemsize = xb.itemsize, bins = itemsize ? ob.len / itemsize : 0;
    if (bins >= 1 && float_kind(&xb) && float_kind(&ob) == float_kind(&xb)
        && (uintptr_t)xb.buf % itemsize == 0 && (uintptr_t)ob.buf % itemsize == 0) {
        int64_t *counts = PyMem_Calloc((size_t)bins, sizeof(int64_t));
        if (counts == NULL) {
            PyBuffer_Release(&ob);
            PyBuffer_Release(&xb);
            return PyErr_NoMemory();
        }
        Py_ssize_t n = xb.len / itemsize;
        if (itemsize == 4) {
            done = histc_float((const float *)xb.buf, n, (float)lo, (float)hi, bins, counts);
            for (Py_ssize_t b = 0; done && b < bins; b++)
                ((float *)ob.buf)[b] = (float)counts[b];
        } else {
            done = histc_double((const double *)xb.buf, n, lo, hi, bins, counts);
            for (Py_ssize_t b = 0; done && b < bins; b++)
                ((double *)ob.buf)[b] = (double)counts[b];
        }
        PyMem_Free(counts);
    }
    PyBuffer_Release(&ob);
    PyBuffer_Release(&xb);
    return PyBool_FromLong(done);
}

/* arg_cols(x, out, outer, rows, inner, largest) -> bool: argmax (largest 1) or argmin (0) along
 * the middle dim of the C-contiguous float32 ('f') or float64 ('d') buffer x read as (outer, rows,
 * inner), into the C-contiguous int64 buffer out (outer, inner): NumPy's (and PyTorch's) answer
 * per line, the first extreme element, or the first NaN where the line has one (NumPy's argmax
 * loop: an element replaces the best where !(x <= best), then stops at a NaN best). NumPy moves
 * such a dim last into a copy and scans each line: 1M float32 along dim 0 ~3.4 ms; here each
 * chunk of columns is walked row by row with its best values and places held in L1 (~0.2 ms).
 * False (out untouched) for other buffers or shapes. */
#define ARG_CHUNK 512
#define ARG_COLS(T, NAME, ATTR)                                                                     \
    ATTR static void NAME(const T *x, int64_t *out, Py_ssize_t outer, Py_ssize_t rows,             \
                          Py_ssize_t inner, int largest)                                            \
    {                                                                                               \
        T best[ARG_CHUNK];                                                                          \
        int64_t at[ARG_CHUNK];                                                                      \
        for (Py_ssize_t o = 0; o < outer; o++) {                                                    \
            const T *block = x + o * rows * inner;                                                  \
            for (Py_ssize_t c = 0; c < inner; c += ARG_CHUNK) {                                     \
                Py_ssize_t w = inner - c < ARG_CHUNK ? inner - c : ARG_CHUNK;                       \
                for (Py_ssize_t j = 0; j < w; j++) {                                                \
                    best[j] = block[c + j];                                                         \
                    at[j] = 0;                                                                      \
                }                                                                                   \
                for (Py_ssize_t i = 1; i < rows; i++) {                                             \
                    const T *row = block + i * inner + c;                                           \
                    if (largest)                                                                    \
                        for (Py_ssize_t j = 0; j < w; j++) {                                        \
                            T v = row[j], b = best[j];                                              \
                            int take = (b == b) & !(v <= b);                                        \
                            best[j] = take ? v : b;                                                 \
                            at[j] = take ? i : at[j];                                               \
                        }                                                                           \
                    else                                                                            \
                        for (Py_ssize_t j = 0; j < w; j++) {                                        \
                            T v = row[j], b = best[j];                                              \
                            int take = (b == b) & !(v >= b);                                        \
                            best[j] = take ? v : b;                                                 \
                            at[j] = take ? i : at[j];                                               \
                        }                                                                           \
                }                                                                                   \
                memcpy(out + o * inner + c, at, (size_t)w * sizeof(int64_t));                       \
            }                                                                                       \
        }                                                                                           \
    }
#define ARG_TUNE __attribute__((optimize("no-trapping-math")))
ARG_COLS(float, arg_cols_f32, BASELINE ARG_TUNE)
ARG_COLS(double, arg_cols_f64, BASELINE ARG_TUNE)
#if HAVE_AVX2_CLONE
ARG_COLS(float, arg_cols_f32_avx2, AVX2 ARG_TUNE)
ARG_COLS(double, arg_cols_f64_avx2, AVX2 ARG_TUNE)
#endif
#undef ARG_COLS
#undef ARG_TUNE

static PyObject *py_arg_cols(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "arg_cols(x, out, outer, rows, inner, largest) takes 6 arguments");
        return NULL;
    }
    Py_ssize_t dims[3];
    for (int k = 0; k < 3; k++) {
        dims[k] = PyLong_AsSsize_t(args[2 + k]);
        if (dims[k] == -1 && PyErr_Occurred())
            return NULL;
    }
    int largest = PyObject_IsTrue(args[5]);
    if (largest < 0)
        return NULL;
    Py_buffer xb, ob;
    if (!in_out_buffers(args[0], args[1], &xb, &ob))
        return NULL;
    int done = 0;
    const char *of = ob.format ? ob.format : "B";
    Py_ssize_t outer = dims[0], rows = dims[1], inner = dims[2];
    int kind = float_kind(&xb);
    int long_out = (of[0] == 'q' || of[0] == 'l') && !of[1] && ob.itemsize == 8;
    if (kind && long_out && outer >= 1 && rows >= 1 && inner >= 1 && (uintptr_t)xb.buf % kind == 0
        && (uintptr_t)ob.buf % 8 == 0 && xb.len / kind / outer / rows == inner && xb.len == outer * rows * inner * kind
        && ob.len == outer * inner * 8) {
        Py_BEGIN_ALLOW_THREADS
#if HAVE_AVX2_CLONE
        if (use_avx2 && kind == 4)
            arg_cols_f32_avx2(xb.buf, ob.buf, outer, rows, inner, largest);
        else if (use_avx2)
            arg_cols_f64_avx2(xb.buf, ob.buf, outer, rows, inner, largest);
        else
#endif
        if (kind == 4)
            arg_cols_f32(xb.buf, ob.buf, outer, rows, inner, largest);
        else
            arg_cols_f64(xb.buf, ob.buf, outer, rows, inner, largest);
        Py_END_ALLOW_THREADS
        done = 1;
    }
    PyBuffer_Release(&ob);
    PyBuffer_Release(&xb);
    return PyBool_FromLong(done);
}

/* cdist's p = 2 distances of small point sets, as its NumPy block computes them
 * (strided.ops.linalg.distance._euclidean_block: d = |a_i - b_j| elementwise, d * d, np.add.reduce
 * over the coordinates, np.sqrt): the same operations in the same order per pair, so the same
 * bits, without the (P, R, M) temporary and five ufunc calls.
 *
 * |d| * |d| is d * d but for a NaN's sign (|d| clears it): the squares are summed without the
 * abs and a NaN sum's sign is cleared at the end (each addition returns one of its NaN operands,
 * the same one either way, so only that sign differs; sqrt keeps a NaN). Every square is +0.0 or
 * more, so 0 + sum is the sum.
 *
 * Up to PW_BLOCKSIZE coordinates NumPy's pairwise sum of a pair is one block (eight accumulators,
 * element k into k % 8, combined ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)), the last M % 8
 * added in order; below 8 elements a plain running sum): cdist2_lanes_* computes eight pairs at
 * once, one per vector lane, from x2 transposed (M rows of R padded to a multiple of 8), each lane
 * making exactly one pair's additions in NumPy's order. Longer rows: one pair at a time into a
 * row buffer, summed by NAME##_pairwise (the recursion). */
#define CDIST2_LANES(T, V, VI, NAME, ATTR, SQRT, SIGN)                                             \
    ATTR static void NAME(const T *a, const T *bt, Py_ssize_t P, Py_ssize_t R, Py_ssize_t Rp,        \
                          Py_ssize_t M, T *out)                                                     \
    {                                                                                               \
        Py_ssize_t m8 = M - M % 8;                                                                  \
        for (Py_ssize_t i = 0; i < P; i++) {                                                        \
            const T *ai = a + i * M;                                                                \
            for (Py_ssize_t j0 = 0; j0 < Rp; j0 += 8) {                                             \
                V total, r[8];                                                                      \
                Py_ssize_t k = 0;                                                                   \
                if (M < 8) {                                                                        \
                    total = (V){0};                                                                 \
                } else {                                                                            \
                    for (int q = 0; q < 8; q++) {                                                   \
                        V b;                                                                        \
                        memcpy(&b, bt + q * Rp + j0, sizeof b);                                     \
                        V d = ai[q] - b;                                                            \
                        r[q] = d * d;                                                               \
                    }                                                                               \
                    for (k = 8; k < m8; k += 8)                                                     \
                        for (int q = 0; q < 8; q++) {                                               \
                            V b;                                                                    \
                            memcpy(&b, bt + (k + q) * Rp + j0, sizeof b);                           \
                            V d = ai[k + q] - b;                                                    \
                            r[q] += d * d;                                                          \
                        }                                                                           \
                    total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));      \
                }                                                                                   \
                for (; k < M; k++) {                                                                \
                    V b;                                                                            \
                    memcpy(&b, bt + k * Rp + j0, sizeof b);                                         \
                    V d = ai[k] - b;                                                                \
                    total += d * d;                                                                 \
                }                                                                                   \
                total = (V){0} + total;                                                             \
                total = (V)((VI)total & ~((VI)(total != total) & SIGN)); /* a NaN's sign cleared */ \
                T lane[8];                                                                          \
                memcpy(lane, &total, sizeof lane);                                                  \
                for (int q = 0; q < 8 && j0 + q < R; q++)                                           \
                    out[i * R + j0 + q] = SQRT(lane[q]);                                            \
            }                                                                                       \
        }                                                                                           \
    }
CDIST2_LANES(float, v8f, v8i, cdist2_lanes_f32, BASELINE, sqrtf, (int32_t)0x80000000)
CDIST2_LANES(double, v8d, v8l, cdist2_lanes_f64, BASELINE, sqrt, (int64_t)0x8000000000000000LL)
#if HAVE_AVX2_CLONE
CDIST2_LANES(float, v8f, v8i, cdist2_lanes_f32_avx2, AVX2, sqrtf, (int32_t)0x80000000)
CDIST2_LANES(double, v8d, v8l, cdist2_lanes_f64_avx2, AVX2, sqrt, (int64_t)0x8000000000000000LL)
#endif
#undef CDIST2_LANES

#define CDIST2_PAIRS(T, SUM, SQRT, CLEAR)                                                           \
    static void cdist2_pairs_##T(const T *a, const T *b, Py_ssize_t P, Py_ssize_t R, Py_ssize_t M,  \
                                 T *d, T *out)                                                      \
    {                                                                                               \
        for (Py_ssize_t i = 0; i < P; i++)                                                          \
            for (Py_ssize_t j = 0; j < R; j++) {                                                    \
                const T *ai = a + i * M, *bj = b + j * M;                                           \
                for (Py_ssize_t k = 0; k < M; k++) {                                                \
                    T v = ai[k] - bj[k];                                                            \
                    d[k] = v * v;                                                                   \
                }                                                                                   \
                T s = (T)0 + SUM(d, M);                                                             \
                out[i * R + j] = SQRT(s == s ? s : CLEAR(s));                                       \
            }                                                                                       \
    }
CDIST2_PAIRS(float, f32_pairwise, sqrtf, fabsf)
CDIST2_PAIRS(double, f64_pairwise, sqrt, fabs)
#undef CDIST2_PAIRS

/* The distances of x1 (P, M) and x2 (R, M), T = float (kind 4) or double (8), into out (P, R);
 * scratch: at least M * Rp elements (Rp = R rounded up to 8), or M for the pairs. */
static void cdist2_run(int kind, const void *a, const void *b, Py_ssize_t P, Py_ssize_t R, Py_ssize_t M,
                       void *scratch, void *out)
{
    Py_ssize_t Rp = (R + 7) / 8 * 8;
    if (M > PW_BLOCKSIZE) {
        if (kind == 4)
            cdist2_pairs_float(a, b, P, R, M, scratch, out);
        else
            cdist2_pairs_double(a, b, P, R, M, scratch, out);
        return;
    }
    /* x2 transposed, its padding lanes 0 (their distances are computed and dropped) */
    for (Py_ssize_t k = 0; k < M; k++)
        for (Py_ssize_t j = 0; j < Rp; j++) {
            if (kind == 4)
                ((float *)scratch)[k * Rp + j] = j < R ? ((const float *)b)[j * M + k] : 0.0f;
            else
                ((double *)scratch)[k * Rp + j] = j < R ? ((const double *)b)[j * M + k] : 0.0;
        }
#if HAVE_AVX2_CLONE
    if (use_avx2) {
        if (kind == 4)
            cdist2_lanes_f32_avx2(a, scratch, P, R, Rp, M, out);
        else
            cdist2_lanes_f64_avx2(a, scratch, P, R, Rp, M, out);
        return;
    }
#endif
    if (kind == 4)
        cdist2_lanes_f32(a, scratch, P, R, Rp, M, out);
    else
        cdist2_lanes_f64(a, scratch, P, R, Rp, M, out);
}

/* cdist2(x1, x2, out) -> bool: the p = 2 distances between the rows of the C-contiguous 2-D
 * float32 ('f') or float64 ('d') buffers x1 (P, M) and x2 (R, M) into the C-contiguous (P, R)
 * buffer out of the same type (see cdist2_run). False (out untouched) where the buffers are not
 * of that kind or their shapes do not agree. */
static PyObject *py_cdist2(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "cdist2(x1, x2, out) takes 3 arguments");
        return NULL;
    }
    Py_buffer v[3];
    int flags[3] = {PyBUF_C_CONTIGUOUS | PyBUF_FORMAT, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT,
                    PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE};
    int got = 0, done = 0;
    for (; got < 3; got++)
        if (PyObject_GetBuffer(args[got], &v[got], flags[got]) < 0)
            break;
    if (got == 3) {
        int kind = float_kind(&v[0]);
        for (int k = 1; k < 3; k++)
            kind = float_kind(&v[k]) == kind ? kind : 0;
        for (int k = 0; k < 3; k++)
            kind = kind && (uintptr_t)v[k].buf % (uintptr_t)kind == 0 ? kind : 0;
        if (kind && v[0].ndim == 2 && v[1].ndim == 2 && v[2].ndim == 2 && v[0].shape[1] == v[1].shape[1]
            && v[2].shape[0] == v[0].shape[0] && v[2].shape[1] == v[1].shape[0]) {
            Py_ssize_t P = v[0].shape[0], R = v[1].shape[0], M = v[0].shape[1];
            size_t count = (size_t)(M ? M : 1) * (size_t)((R + 7) / 8 * 8 + 1);
            void *scratch = PyMem_Malloc(count * (size_t)kind);
            if (scratch == NULL) {
                for (int k = 0; k < 3; k++)
                    PyBuffer_Release(&v[k]);
                return PyErr_NoMemory();
            }
            cdist2_run(kind, v[0].buf, v[1].buf, P, R, M, scratch, v[2].buf);
            PyMem_Free(scratch);
            done = 1;
        }
    }
    for (int k = 0; k < got; k++)
        PyBuffer_Release(&v[k]);
    if (got < 3)
        return NULL;
    return PyBool_FromLong(done);
}

#include "_extreme_rows_at.h" /* extreme_rows_at: amax/amin along a large tensor's unit-stride dim */
#include "_pool_windows.h" /* pool_windows: F.max_pool / F.avg_pool's windows, PyTorch's loops */

/* ---------------------------------------------------------------- batch_norm's evaluation, layer_norm's rows
 *
 * bn_eval: the elementwise steps of strided.nn.functional.norms._evaluated_rows, the same IEEE
 * operations in the same order per element as its NumPy ufunc calls (each step rounded to the
 * element type; no contraction: -ffp-contract=off), so the same bits in one pass. ln_rows:
 * PyTorch's layer_norm kernel's steps (see _ln_torch.h):
 *
 *   bn_eval(x, out, rm, rv, w, b, eps) -> bool: over an (N, C) C-contiguous x into out,
 *     ((x - rm[j]) * (1 / sqrt(rv[j] + eps))) * w[j] + b[j]   (w, b: buffers of C, or None)
 *   ln_rows(x, y, mean, r, w, b, eps) -> bool: per row i of x (rows, n) (mean's and r's length: rows)
 *     into y, layer_norm's rows as PyTorch's CPU kernel computes them, its bits (_ln_torch.h): mean[i]
 *     and r[i] = 1 / sqrt(var + eps) from its cascaded Welford moments, then its y steps.
 *
 * eps a Python float rounded to the type as NumPy's scalar conversion rounds it. ln_rows also returns
 * False (its outputs partly written, the caller's NumPy steps rewrite them) at a row whose mean is
 * NaN: two input NaNs' words meet in its sums in the compiler's operand order, not NumPy's. False (nothing
 * written) where a buffer is not of the kind (float32 / float64 alike, C-contiguous, aligned, of
 * the sizes above): the caller's NumPy steps then run. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
/* (an AVX2 clone: the loops vectorise 8 float / 4 double wide; the same operations per element) */
#define BN_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define BN_CLONES
#endif
/* bn_eval's element steps over n rows of c (restrict: o is fresh memory; a loop per kind of
 * (w, b), so that each vectorises). */
#define BN_LOOP(T, EXPR)                                                                             \
    for (Py_ssize_t i = 0; i < n; i++) {                                                            \
        const T *restrict xr = x + i * c;                                                           \
        T *restrict orow = o + i * c;                                                               \
        for (Py_ssize_t j = 0; j < c; j++) orow[j] = EXPR;                                          \
    }
#define NORM_ROWS(T, SQRT)                                                                \
    BN_CLONES static void bn_eval_##T(const T *restrict x, T *restrict o, const T *restrict rm,        \
                                      const T *restrict rv, const T *restrict w, const T *restrict b, \
                                      T eps, Py_ssize_t n, Py_ssize_t c, T *restrict r)            \
    {                                                                                               \
        for (Py_ssize_t j = 0; j < c; j++) r[j] = (T)1 / SQRT(rv[j] + eps);                         \
        if (w && b)                                                                                 \
            BN_LOOP(T, ((xr[j] - rm[j]) * r[j]) * w[j] + b[j])                                         \
        else if (w)                                                                                 \
            BN_LOOP(T, ((xr[j] - rm[j]) * r[j]) * w[j])                                                \
        else if (b)                                                                                 \
            BN_LOOP(T, ((xr[j] - rm[j]) * r[j]) + b[j])                                                \
        else                                                                                        \
            BN_LOOP(T, (xr[j] - rm[j]) * r[j])                                                         \
    }
NORM_ROWS(float, sqrtf)
NORM_ROWS(double, sqrt)
#undef NORM_ROWS
#undef BN_LOOP

#include "_ln_torch.h" /* ln_torch: layer_norm's rows, PyTorch's CPU kernel's bits */
static int use_fma3; /* set once at import: AVX2 and FMA (and STRIDED_NATIVE_ROWS_ISA not "base"): ln_torch_avx2 */

/* The buffers norm_buffers holds, released. */
static void norm_release(Py_buffer *bufs, int count)
{
    for (int i = 0; i < count; i++)
        if (bufs[i].obj != NULL) {
            PyBuffer_Release(&bufs[i]);
            bufs[i].obj = NULL;
        }
}

/* The first `count` buffers of one float kind (args[i] None: no buffer, where `optional` has bit i), each
 * C-contiguous and aligned, the ones in `writable` writable; their lengths in elements into len.
 * Returns the kind (4, 8), 0 (not of the kind: nothing held) or -1 (an error set, nothing held). */
static int norm_buffers(PyObject *const *args, int count, unsigned optional, unsigned writable, Py_buffer *bufs,
                        Py_ssize_t *len)
{
    int kind = 0;
    for (int i = 0; i < count; i++) bufs[i].obj = NULL;
    for (int i = 0; i < count; i++) {
        len[i] = -1;
        if (args[i] == Py_None && (optional >> i & 1))
            continue;
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | ((writable >> i & 1) ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(args[i], &bufs[i], flags) < 0) {
            bufs[i].obj = NULL;
            norm_release(bufs, count);
            if (PyErr_ExceptionMatches(PyExc_BufferError) || PyErr_ExceptionMatches(PyExc_TypeError)
                || PyErr_ExceptionMatches(PyExc_ValueError)) {
                PyErr_Clear(); /* (a read-only (NumPy's ValueError) or non-contiguous buffer: not of the kind) */
                return 0;
            }
            return -1;
        }
        int k = float_kind(&bufs[i]);
        if (!k || (kind && k != kind) || (uintptr_t)bufs[i].buf % k) {
            norm_release(bufs, count);
            return 0;
        }
        kind = k;
        len[i] = bufs[i].len / k;
    }
    return kind;
}

static PyObject *py_bn_eval(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "bn_eval(x, out, rm, rv, w, b, eps) takes 7 arguments");
        return NULL;
    }
    double eps = PyFloat_AsDouble(args[6]);
    if (eps == -1.0 && PyErr_Occurred()) return NULL;
    Py_buffer bufs[6];
    Py_ssize_t len[6];
    int kind = norm_buffers(args, 6, 0x30, 0x2, bufs, len);
    if (kind < 0) return NULL;
    if (kind == 0) Py_RETURN_FALSE;
    Py_ssize_t c = len[2], total = len[0];
    int ok = c >= 1 && total >= 1 && total % c == 0 && len[1] == total && len[3] == c && (len[4] < 0 || len[4] == c)
             && (len[5] < 0 || len[5] == c) && bufs[1].buf != bufs[0].buf;
    void *r = ok ? PyMem_Malloc((size_t)c * kind) : NULL;
    if (ok && r == NULL) {
        norm_release(bufs, 6);
        return PyErr_NoMemory();
    }
    if (ok && kind == 4)
        bn_eval_float(bufs[0].buf, bufs[1].buf, bufs[2].buf, bufs[3].buf, len[4] < 0 ? NULL : bufs[4].buf,
                      len[5] < 0 ? NULL : bufs[5].buf, (float)eps, total / c, c, r);
    else if (ok)
        bn_eval_double(bufs[0].buf, bufs[1].buf, bufs[2].buf, bufs[3].buf, len[4] < 0 ? NULL : bufs[4].buf,
                       len[5] < 0 ? NULL : bufs[5].buf, eps, total / c, c, r);
    PyMem_Free(r);
    norm_release(bufs, 6);
    return PyBool_FromLong(ok);
}

static PyObject *py_ln_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "ln_rows(x, y, mean, r, w, b, eps) takes 7 arguments");
        return NULL;
    }
    double eps = PyFloat_AsDouble(args[6]);
    if (eps == -1.0 && PyErr_Occurred()) return NULL;
    Py_buffer bufs[6];
    Py_ssize_t len[6];
    int kind = norm_buffers(args, 6, 0x30, 0xe, bufs, len);
    if (kind < 0) return NULL;
    if (kind == 0) Py_RETURN_FALSE;
    Py_ssize_t rows = len[2], total = len[0], n = rows >= 1 ? total / rows : 0;
    int ok = n >= 1 && total == rows * n && len[1] == total && len[3] == rows && (len[4] < 0 || len[4] == n)
             && (len[5] < 0 || len[5] == n) && bufs[1].buf != bufs[0].buf;
#if LN_HAVE_AVX2
    if (ok && kind == 4 && use_fma3)
        ln_torch_avx2_float(bufs[0].buf, bufs[1].buf, bufs[2].buf, bufs[3].buf, len[4] < 0 ? NULL : bufs[4].buf,
                            len[5] < 0 ? NULL : bufs[5].buf, (float)eps, rows, n);
    else if (ok && kind == 8 && use_fma3)
        ln_torch_avx2_double(bufs[0].buf, bufs[1].buf, bufs[2].buf, bufs[3].buf, len[4] < 0 ? NULL : bufs[4].buf,
                             len[5] < 0 ? NULL : bufs[5].buf, eps, rows, n);
    else
#endif
    if (ok && kind == 4)
        ln_torch_float(bufs[0].buf, bufs[1].buf, bufs[2].buf, bufs[3].buf, len[4] < 0 ? NULL : bufs[4].buf,
                       len[5] < 0 ? NULL : bufs[5].buf, (float)eps, rows, n);
    else if (ok)
        ln_torch_double(bufs[0].buf, bufs[1].buf, bufs[2].buf, bufs[3].buf, len[4] < 0 ? NULL : bufs[4].buf,
                        len[5] < 0 ? NULL : bufs[5].buf, eps, rows, n);
    norm_release(bufs, 6);
    return PyBool_FromLong(ok);
}

/* lse_shift(x, work, m) -> bool: logsumexp's first two steps over the rows of a C-contiguous float
 * buffer x (rows = len(m), n = len(x) / rows, n >= 1), in one pass per row while the row is in L1:
 * m[i] = the row's largest element (NaN where the row has a NaN; an infinite max made 0, as
 * strided.ops.reductions.nan_reductions.lse_steps does: -inf rows give exp(-inf - 0) = 0,
 * +inf rows +inf), then work[i, j] = x[i, j] - m[i]. Both are exact operations (a max picks an
 * element; one subtraction rounds once), so the bits are NumPy's maximum.reduce and subtract's
 * whatever the vector width, but for a NaN's payload and a zero max's sign: a NaN row's result is
 * NaN whatever the word (the caller makes it the quiet NaN), and a +-0 max changes neither
 * exp(x - m) (x - +0 and x - -0 differ only for x = -0, both exp 1) nor log(sum) + m (the sum is
 * at least 1: log(sum) >= +0, and +0 + -0 is +0). x - m is computed the same in every copy.
 * Three copies (baseline, AVX2, AVX-512: 64-byte GCC vectors, one register on AVX-512), picked at
 * import (STRIDED_NATIVE_ROWS_ISA picks one for the tests). False (nothing written) for other
 * buffers: not one float kind, misaligned, lengths that do not fit, work overlapping x or m. */
typedef float lse_vf __attribute__((vector_size(64)));
typedef int32_t lse_vfi __attribute__((vector_size(64)));
typedef double lse_vd __attribute__((vector_size(64)));
typedef int64_t lse_vdi __attribute__((vector_size(64)));
#define LSE_SHIFT(T, VT, VI, NAME, ATTR)                                                                \
    ATTR static void NAME(const T *restrict x, T *restrict work, T *restrict mrow, Py_ssize_t rows,    \
                          Py_ssize_t n)                                                                 \
    {                                                                                                   \
        enum { L = 64 / sizeof(T) };                                                                    \
        for (Py_ssize_t i = 0; i < rows; i++) {                                                         \
            const T *r = x + i * n;                                                                     \
            T *o = work + i * n;                                                                        \
            VT acc[4];                                                                                  \
            VI nan = {0};                                                                               \
            acc[0] = (VT){0} - (T)INFINITY;                                                             \
            acc[1] = acc[2] = acc[3] = acc[0];                                                          \
            Py_ssize_t j = 0;                                                                           \
            for (; j + 4 * L <= n; j += 4 * L) /* (four chains: a max's latency per vector otherwise) */ \
                for (int c = 0; c < 4; c++) {                                                           \
                    VT v;                                                                               \
                    memcpy(&v, r + j + c * L, sizeof v);                                                \
                    VI gt = v > acc[c];                                                                 \
                    nan |= v != v;                                                                      \
                    acc[c] = (VT)((gt & (VI)v) | (~gt & (VI)acc[c]));                                   \
                }                                                                                       \
            for (int c = 1; c < 4; c++) {                                                               \
                VI gt = acc[c] > acc[0];                                                                \
                acc[0] = (VT)((gt & (VI)acc[c]) | (~gt & (VI)acc[0]));                                  \
            }                                                                                           \
            for (; j + L <= n; j += L) {                                                                \
                VT v;                                                                                   \
                memcpy(&v, r + j, sizeof v);                                                            \
                VI gt = v > acc[0];                                                                     \
                nan |= v != v;                                                                          \
                acc[0] = (VT)((gt & (VI)v) | (~gt & (VI)acc[0]));                                       \
            }                                                                                           \
            T m = -INFINITY;                                                                            \
            int any_nan = 0;                                                                            \
            for (int k = 0; k < L; k++) {                                                               \
                any_nan |= nan[k] != 0;                                                                 \
                m = acc[0][k] > m ? acc[0][k] : m;                                                         \
            }                                                                                           \
            for (; j < n; j++) {                                                                        \
                T v = r[j];                                                                             \
                any_nan |= v != v;                                                                      \
                m = v > m ? v : m;                                                                      \
            }                                                                                           \
            if (any_nan)                                                                                \
                m = (T)NAN;                                                                             \
            else if (isinf(m))                                                                          \
                m = 0;                                                                                  \
            mrow[i] = m;                                                                                \
            for (j = 0; j < n; j++) o[j] = r[j] - m;                                                    \
        }                                                                                               \
    }
#define LSE_TUNE __attribute__((optimize("no-trapping-math")))
LSE_SHIFT(float, lse_vf, lse_vfi, lse_shift_f32, BASELINE LSE_TUNE)
LSE_SHIFT(double, lse_vd, lse_vdi, lse_shift_f64, BASELINE LSE_TUNE)
#if HAVE_AVX2_CLONE
LSE_SHIFT(float, lse_vf, lse_vfi, lse_shift_f32_avx2, AVX2 LSE_TUNE)
LSE_SHIFT(double, lse_vd, lse_vdi, lse_shift_f64_avx2, AVX2 LSE_TUNE)
LSE_SHIFT(float, lse_vf, lse_vfi, lse_shift_f32_avx512, AVX512 LSE_TUNE)
LSE_SHIFT(double, lse_vd, lse_vdi, lse_shift_f64_avx512, AVX512 LSE_TUNE)
#endif
#undef LSE_SHIFT
#undef LSE_TUNE

/* Whether two buffers' byte ranges meet. */
static int lse_overlap(const Py_buffer *a, const Py_buffer *b)
{
    const char *p = a->buf, *q = b->buf;
    return a->len > 0 && b->len > 0 && p < q + b->len && q < p + a->len;
}

static PyObject *py_lse_shift(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "lse_shift(x, work, m) takes 3 arguments");
        return NULL;
    }
    Py_buffer bufs[3];
    Py_ssize_t len[3];
    int kind = norm_buffers(args, 3, 0, 0x6, bufs, len);
    if (kind < 0) return NULL;
    if (kind == 0) Py_RETURN_FALSE;
    Py_ssize_t rows = len[2], total = len[0], n = rows >= 1 ? total / rows : 0;
    int ok = n >= 1 && total == rows * n && len[1] == total && !lse_overlap(&bufs[1], &bufs[0])
             && !lse_overlap(&bufs[1], &bufs[2]);
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
#if HAVE_AVX2_CLONE
        if (use_avx512 && kind == 4)
            lse_shift_f32_avx512(bufs[0].buf, bufs[1].buf, bufs[2].buf, rows, n);
        else if (use_avx512)
            lse_shift_f64_avx512(bufs[0].buf, bufs[1].buf, bufs[2].buf, rows, n);
        else if (use_avx2 && kind == 4)
            lse_shift_f32_avx2(bufs[0].buf, bufs[1].buf, bufs[2].buf, rows, n);
        else if (use_avx2)
            lse_shift_f64_avx2(bufs[0].buf, bufs[1].buf, bufs[2].buf, rows, n);
        else
#endif
        if (kind == 4)
            lse_shift_f32(bufs[0].buf, bufs[1].buf, bufs[2].buf, rows, n);
        else
            lse_shift_f64(bufs[0].buf, bufs[1].buf, bufs[2].buf, rows, n);
        Py_END_ALLOW_THREADS
    }
    norm_release(bufs, 3);
    return PyBool_FromLong(ok);
}

static PyMethodDef methods[] = {
    {"extreme_rows_at", (PyCFunction)(void (*)(void))py_extreme_rows_at, METH_FASTCALL,
     "extreme_rows_at(storage, offset, count, stride, length, out, mode) -> int: each strided row's smallest (0)\n"
     "or largest (1) element; the number of zero or NaN results, -1 where not taken (see _extreme_rows_at.h)"},
    {"arg_cols", (PyCFunction)(void (*)(void))py_arg_cols, METH_FASTCALL,
     "arg_cols(x, out, outer, rows, inner, largest) -> bool: argmax (largest) or argmin along the middle dim of a\n"
     "C-contiguous float32/float64 buffer read as (outer, rows, inner) into the int64 out (outer, inner): NumPy's\n"
     "first extreme (or first NaN) of each line; False (out untouched) where not taken."},
    {"cdist2", (PyCFunction)(void (*)(void))py_cdist2, METH_FASTCALL,
     "cdist2(x1, x2, out) -> bool: cdist's p = 2 distances between the rows of C-contiguous 2-D float32/float64\n"
     "buffers x1 (P, M) and x2 (R, M) into out (P, R), as NumPy's |a - b| ** 2 summed and square-rooted;\n"
     "False (out untouched) where not taken."},
    {"histc", (PyCFunction)(void (*)(void))py_histc, METH_FASTCALL,
     "histc(x, out, lo, hi) -> bool: the counts of a C-contiguous float32/float64 buffer's elements in\n"
     "len(out) equal bins over [lo, hi] (the last bin closed), computed in the element type, into out;\n"
     "False (out untouched) where not taken."},
    {"extreme_pair", (PyCFunction)(void (*)(void))py_extreme_pair, METH_FASTCALL,
     "extreme_pair(x, lo, hi) -> bool: extreme_one's smallest into lo and largest into hi, True where both are sure"},
    {"extreme_one", (PyCFunction)(void (*)(void))py_extreme_one, METH_FASTCALL,
     "extreme_one(x, out, mode) -> bool: extreme_all's one-row call, True where its answer is sure (0)"},
    {"extreme_all", (PyCFunction)(void (*)(void))py_extreme_all, METH_FASTCALL,
     "extreme_all(x, out, mode[, length]): the smallest (0), largest (1) or both (2) of each row of length\n"
     "elements (default: all) of a C-contiguous float32/float64 buffer into out; returns the number of\n"
     "results that are a zero or NaN (0: sure answers; else recompute) or -1 (not taken)."},
    {"cols", py_cols, METH_VARARGS,
     "cols(address, itemsize, rows, row_stride, cols, out_address, mode): the smallest (mode 0),\n"
     "largest (1) or sum (3) over the outer dim of contiguous rows, in NumPy's row-by-row order.\n"
     "Returns the number of results that are NaN or (extremes) a zero."},
    {"extreme_rows", py_extreme_rows, METH_VARARGS,
     "extreme_rows(address, itemsize, count, row_stride, length, out_address, mode): the smallest\n"
     "(mode 0), largest (1) or both (2: smallest, then largest) of each contiguous row; NaN where a\n"
     "row holds one. Returns the number of results that are a zero or NaN."},
    {"nll_sum", py_nll_sum, METH_VARARGS,
     "nll_sum(logp, target, classes) -> float or None: the sum of -1 * logp[i, target[i]] over the rows of a\n"
     "C-contiguous (n, classes) float buffer, PyTorch's nll_loss cascade; None for an index outside [0, classes)."},
    {"nll_cascade", py_nll_cascade, METH_VARARGS,
     "nll_cascade(values, weights, skip) -> (total, weight_total) or None: PyTorch's nll_loss cascade sum."},
    {"variance_one", (PyCFunction)(void (*)(void))py_variance_one, METH_FASTCALL,
     "variance_one(x, denominator, root) -> float or None: the variance (root: std) of a whole C-contiguous\n"
     "float32 run as strided.kernels.reduce.variance_parts computes one result, bit for bit; None where not taken."},
    {"rows", py_rows, METH_VARARGS,
     "rows(address, itemsize, count, row_stride, length, out_address, nan_zero=False): NumPy's pairwise\n"
     "sum of each contiguous row (float32: itemsize 4, float64: 8), bit for bit, into a contiguous output;\n"
     "nan_zero: each NaN element read as 0 (nansum)."},
    {"bn_eval", (PyCFunction)(void (*)(void))py_bn_eval, METH_FASTCALL,
     "bn_eval(x, out, rm, rv, w, b, eps) -> bool: batch_norm's evaluation of a C-contiguous (N, C) float buffer\n"
     "into out, NumPy's steps' bits; False (nothing written) where not taken."},
    {"ln_rows", (PyCFunction)(void (*)(void))py_ln_rows, METH_FASTCALL,
     "ln_rows(x, y, mean, r, w, b, eps) -> bool: layer_norm's rows of a C-contiguous float buffer into y, their\n"
     "means and 1 / sqrt(var + eps), PyTorch's CPU kernel's bits (_ln_torch.h); False (nothing written) where not taken."},
    {"lse_shift", (PyCFunction)(void (*)(void))py_lse_shift, METH_FASTCALL,
     "lse_shift(x, work, m) -> bool: logsumexp's row max (an infinite one made 0) into m and x - m into work, over\n"
     "the rows of a C-contiguous float buffer; False (nothing written) where not taken (see its C doc)."},
    {"pool_windows", (PyCFunction)(void (*)(void))py_pool_windows, METH_FASTCALL,
     "pool_windows(storage, out, offset, geometry, mode, divisor) -> bool: max (mode 0) or average (1: padding\n"
     "counted, 2: not) of each pooling window, PyTorch's CPU loops, geometry 22 packed Py_ssize_t; False (out\n"
     "untouched) where not taken (see _pool_windows.h)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "strided.kernels._rowkernel",
    "NumPy's pairwise float sum and row extremes, vectorised (see strided.kernels.rows).", -1, methods,
};

PyMODINIT_FUNC PyInit__rowkernel(void)
{
#if HAVE_AVX2_CLONE
    __builtin_cpu_init();
    use_avx2 = __builtin_cpu_supports("avx2");
    use_avx512 = __builtin_cpu_supports("avx512f");
    /* STRIDED_NATIVE_ROWS_ISA=base|avx2|avx512 (tests only): use only that copy of the loops
     * (and the baseline's for what it lacks), where the CPU has it, so that every copy's bits can
     * be compared with NumPy's on one machine. */
    const char *isa = getenv("STRIDED_NATIVE_ROWS_ISA");
    if (isa != NULL) {
        one_copy = 1;
        use_avx2 = use_avx2 && strcmp(isa, "avx2") == 0;
        use_avx512 = use_avx512 && strcmp(isa, "avx512") == 0;
    }
    /* (avx512 counts: that CPU has AVX2 too; only "base" turns ln_torch_avx2 off) */
    use_fma3 = (use_avx2 || use_avx512) && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    return PyModule_Create(&module);
}
