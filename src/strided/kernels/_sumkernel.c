/* strided.kernels._sumkernel: PyTorch's CPU float sum (ATen's SumKernel.cpp, cascade_sum), bit for bit.
 *
 * cascade(source, kind, sizes, in_strides, out_strides, out[, divisor]) -> None
 *
 *   `sizes`, `in_strides`, `out_strides` (byte strides) are TensorIterator's dims after its
 *   reordering and coalescing, fastest first (strided.kernels.torch_sum.iterator_dims computes
 *   them); `source` is a buffer whose first byte is the input's element [0, ..., 0], `out` a
 *   zero-filled writable buffer, the result's element [0, ..., 0] first. kind 0: float32,
 *   1: float64, 2: complex64, 3: complex128, 4: float32 values read as PyTorch reads float16 /
 *   bfloat16 (its 16-lane vector loads, each the sum of its two 8-float halves; the strides are
 *   those of the float32 copy, the choice of loop PyTorch's for 2-byte elements); 5, 6: float32,
 *   float64 with each NaN read as 0 (PyTorch's nansum: the same loops and adds). The caller
 *   (torch_sum.py) guarantees every element addressed lies in the buffers and the output does
 *   not overlap the input.
 *
 * The loops are TensorIterator's serial_for_each (outer dims counted, dim 2 fastest) around
 * cascade_sum's 2-d loop: its choice of vectorized_inner_sum (the reduced dim contiguous, 8 float32
 * / 4 float64 / 4 complex64 / 2 complex128 lanes: 32-byte vectors, PyTorch's AVX2 build, which
 * its sum kernel runs on AVX-512 machines too, measured), vectorized_outer_sum, scalar_inner_sum
 * and scalar_outer_sum, their row_sum (four interleaved accumulators) and multi_row_sum (the
 * 4-level cascade), and the store that adds each partial into the output (out = out + partial).
 * Every add is one IEEE add in the element type, in PyTorch's order: no -ffast-math, no
 * contraction. Complex elements are added componentwise (a pair of lanes).
 *
 * (Two steps' level-0 sums side by side, each starting from 0 and so independent chains, measured
 * slower: 1M float64 98 -> 145 us, 16M float32 2.5 -> 5.5 ms; one step at a time is PyTorch's loop.)
 *
 * Why compiled: the NumPy steps of torch_sum.row_sums cost ~6 ms for 1M float32 (Python loops
 * over the cascade's blocks); PyTorch's own kernel ~50 us. The GIL is released around the loops.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_AVX2_CLONE 1
#define AVX2 __attribute__((target("avx2")))
#else
#define HAVE_AVX2_CLONE 0
#endif
#define BASELINE

#define MAX_DIMS 64
/* From this many rows the outer sum reads row by row (NAME##_mrs_cols); below, down each group of
 * columns as PyTorch does (100 x 10000 float32 over dim 0: 64 us that way, ~100 row by row, the
 * groups' sums then spilling out of L1). */
#define COLS_MIN_ROWS 256

typedef float v8f __attribute__((vector_size(32)));
typedef double v4d __attribute__((vector_size(32)));
typedef float v2f __attribute__((vector_size(8)));
typedef double v2d __attribute__((vector_size(16)));

/* utils::CeilLog2: 1 for n <= 2, else ceil(log2(n)). */
static inline int64_t ceil_log2(int64_t n)
{
    if (n <= 2) return 1;
    int64_t k = 0;
    uint64_t m = (uint64_t)n - 1;
    while (m) { k++; m >>= 1; }
    return k;
}

/* multi_row_sum<A, 4>: rows i = 0 .. size-1 at in + i * row_stride, four columns k at k * col_stride
 * each, LOAD reading one accumulator's worth; the 4-level cascade (level 0 summed over 2^p rows,
 * then added into level 1, into 2 every 2^(2p) rows, into 3 every 2^(3p)); at the end level 0 plus
 * levels 1, 2, 3 in order. */
#define DEFINE_MRS(A, NAME, LOAD, ATTR)                                                           \
    /* after a step ending at row i: level 1 into 2 unless i is not a multiple of 2^(2p), 2 into 3 \
     * unless not of 2^(3p) (level 0 into 1 is the caller's) */                                   \
    ATTR static inline void NAME##_levels(A acc[3][4], Py_ssize_t i, Py_ssize_t mask, int64_t p)  \
    {                                                                                             \
        const A zero = {0};                                                                       \
        for (int j = 1; j < 3; ++j) {                                                             \
            if ((i & (mask << (j * p))) != 0) break;                                              \
            for (int k = 0; k < 4; ++k) { acc[j][k] += acc[j - 1][k]; acc[j - 1][k] = zero; }     \
        }                                                                                         \
    }                                                                                             \
    ATTR static inline void NAME(const char *in, Py_ssize_t row_stride, Py_ssize_t col_stride,    \
                                 Py_ssize_t size, A *res)                                         \
    {                                                                                             \
        int64_t p = ceil_log2(size) / 4;                                                          \
        if (p < 4) p = 4;                                                                         \
        const Py_ssize_t step = (Py_ssize_t)1 << p, mask = step - 1;                              \
        const A zero = {0};                                                                       \
        A a00 = zero, a01 = zero, a02 = zero, a03 = zero;                                         \
        A acc[3][4] = {{zero, zero, zero, zero}, {zero, zero, zero, zero}, {zero, zero, zero, zero}}; \
        Py_ssize_t i = 0;                                                                         \
        for (; i + step <= size;) {                                                               \
            for (Py_ssize_t j = 0; j < step; ++j, ++i) {                                          \
                const char *b = in + i * row_stride;                                              \
                a00 += LOAD(b); a01 += LOAD(b + col_stride);                                      \
                a02 += LOAD(b + 2 * col_stride); a03 += LOAD(b + 3 * col_stride);                 \
            }                                                                                     \
            acc[0][0] += a00; acc[0][1] += a01; acc[0][2] += a02; acc[0][3] += a03;               \
            a00 = zero; a01 = zero; a02 = zero; a03 = zero;                                       \
            NAME##_levels(acc, i, mask, p);                                                       \
        }                                                                                         \
        for (; i < size; ++i) {                                                                   \
            const char *b = in + i * row_stride;                                                  \
            a00 += LOAD(b); a01 += LOAD(b + col_stride);                                          \
            a02 += LOAD(b + 2 * col_stride); a03 += LOAD(b + 3 * col_stride);                     \
        }                                                                                         \
        A r[4] = {a00, a01, a02, a03};                                                            \
        for (int j = 0; j < 3; ++j)                                                               \
            for (int k = 0; k < 4; ++k) r[k] += acc[j][k];                                        \
        for (int k = 0; k < 4; ++k) res[k] = r[k];                                                \
    }

/* row_sum<A>: the row (size elements at in + i * stride) as rows of four, multi_row_sum'd; the
 * leftover size % 4 elements into the first sum, then the first plus the other three. */
#define DEFINE_ROW_SUM(A, NAME, MRS, LOAD, ATTR)                                                  \
    ATTR static inline A NAME(const char *in, Py_ssize_t stride, Py_ssize_t size)                 \
    {                                                                                             \
        const Py_ssize_t ilp = size / 4;                                                          \
        A p[4];                                                                                   \
        MRS(in, stride * 4, stride, ilp, p);                                                      \
        for (Py_ssize_t i = ilp * 4; i < size; ++i) p[0] += LOAD(in + i * stride);                \
        p[0] += p[1]; p[0] += p[2]; p[0] += p[3];                                                 \
        return p[0];                                                                              \
    }

/* One element type: T its real type, E an element (T, or a pair of T for complex), V a 32-byte
 * vector of W elements; HALF 1: the float32 copy of 2-byte floats (vector loads of 2 V summed). */
#define DEFINE_KIND(T, E, V, W, NAME, HALF, ATTR) DEFINE_KIND_NAN(T, E, V, W, NAME, HALF, 0, ATTR)
/* NANZ 1: each NaN read as 0 (nansum: cascade_sum<ignore_nan=true>, whose loads blend a NaN lane
 * to 0 before the same adds; real element types only) */
#define DEFINE_KIND_NAN(T, E, V, W, NAME, HALF, NANZ, ATTR)                                       \
    ATTR static inline E NAME##_lde(const char *p)                                                \
    {                                                                                             \
        E e;                                                                                      \
        memcpy(&e, p, sizeof e);                                                                  \
        if (NANZ) { T t; memcpy(&t, &e, sizeof t); if (t != t) memset(&e, 0, sizeof e); }         \
        return e;                                                                                 \
    }                                                                                             \
    ATTR static inline V NAME##_zero_nan(V v)                                                     \
    {                                                                                             \
        T lanes[W];                                                                               \
        memcpy(lanes, &v, sizeof v);                                                              \
        for (int k = 0; k < W; k++) lanes[k] = lanes[k] == lanes[k] ? lanes[k] : (T)0;            \
        memcpy(&v, lanes, sizeof v);                                                              \
        return v;                                                                                 \
    }                                                                                             \
    ATTR static inline V NAME##_ldv(const char *p)                                                \
    {                                                                                             \
        V v;                                                                                      \
        memcpy(&v, p, sizeof v);                                                                  \
        return NANZ ? NAME##_zero_nan(v) : v;                                                     \
    }                                                                                             \
    ATTR static inline V NAME##_ldi(const char *p)                                                \
    {                                                                                             \
        V v;                                                                                      \
        memcpy(&v, p, sizeof v);                                                                  \
        if (HALF) { V w; memcpy(&w, p + sizeof v, sizeof w); v = v + w; }                         \
        return NANZ ? NAME##_zero_nan(v) : v;                                                     \
    }                                                                                             \
    DEFINE_MRS(E, NAME##_mrs_e, NAME##_lde, ATTR)                                                 \
    DEFINE_MRS(V, NAME##_mrs_v, NAME##_ldv, ATTR)                                                 \
    DEFINE_MRS(V, NAME##_mrs_i, NAME##_ldi, ATTR)                                                 \
    DEFINE_ROW_SUM(E, NAME##_row_e, NAME##_mrs_e, NAME##_lde, ATTR)                               \
    DEFINE_ROW_SUM(V, NAME##_row_v, NAME##_mrs_v, NAME##_ldv, ATTR)                               \
    DEFINE_ROW_SUM(V, NAME##_row_i, NAME##_mrs_i, NAME##_ldi, ATTR)                               \
    ATTR static inline void NAME##_store(char *out, E v) { E o; memcpy(&o, out, sizeof o); o += v; memcpy(out, &o, sizeof o); } \
    ATTR static inline void NAME##_store_v(char *out, Py_ssize_t stride, V v)                     \
    {                                                                                             \
        E lanes[W];                                                                               \
        memcpy(lanes, &v, sizeof v);                                                              \
        for (int k = 0; k < W; k++) NAME##_store(out + k * stride, lanes[k]);                     \
    }                                                                                             \
    /* NAME##_mrs_v for `groups` groups of four vectors side by side, one run of 4 * groups       \
     * vectors a row (group g's at in + 4 g vectors), each group's sums into res[4 g .. 4 g + 3]: \
     * every group's adds in the order mrs_v makes them, but each row added into all the groups'   \
     * level 0 (held in res) before the next row, so that memory is read row by row, not down     \
     * each group's columns (rows a power of two apart fall in one cache set: 1024 x 1024 float32 \
     * over dim 0 went 161 -> 188 us the other way round). The upper levels live in `lv`. */      \
    ATTR static void NAME##_mrs_cols(const char *in, Py_ssize_t row_stride, Py_ssize_t size,      \
                                     Py_ssize_t groups, V *res, V (*lv)[3][4])                    \
    {                                                                                             \
        int64_t p = ceil_log2(size) / 4;                                                          \
        if (p < 4) p = 4;                                                                         \
        const Py_ssize_t step = (Py_ssize_t)1 << p, mask = step - 1, nv = 4 * groups;             \
        const V zero = {0};                                                                       \
        for (Py_ssize_t g = 0; g < groups; g++)                                                   \
            for (int j = 0; j < 3; j++)                                                           \
                for (int k = 0; k < 4; k++) lv[g][j][k] = zero;                                   \
        for (Py_ssize_t v = 0; v < nv; v++) res[v] = zero;                                        \
        Py_ssize_t i = 0;                                                                         \
        while (i < size) {                                                                        \
            const Py_ssize_t end = i + step <= size ? i + step : size;                            \
            for (; i + 4 <= end; i += 4) { /* (four rows a pass: each sum loaded and stored once) */ \
                const char *b = in + i * row_stride;                                              \
                for (Py_ssize_t v = 0; v < nv; v++) {                                             \
                    const char *c = b + v * (Py_ssize_t)sizeof(V);                                \
                    V x = res[v];                                                                 \
                    x += NAME##_ldv(c); x += NAME##_ldv(c + row_stride);                          \
                    x += NAME##_ldv(c + 2 * row_stride); x += NAME##_ldv(c + 3 * row_stride);     \
                    res[v] = x;                                                                   \
                }                                                                                 \
            }                                                                                     \
            for (; i < end; i++) {                                                                \
                const char *b = in + i * row_stride;                                              \
                for (Py_ssize_t v = 0; v < nv; v++) res[v] += NAME##_ldv(b + v * (Py_ssize_t)sizeof(V)); \
            }                                                                                     \
            if ((i & mask) != 0 || i == 0) break; /* (the rows after the last whole step) */       \
            for (Py_ssize_t g = 0; g < groups; g++) {                                             \
                for (int k = 0; k < 4; k++) { lv[g][0][k] += res[4 * g + k]; res[4 * g + k] = zero; } \
                NAME##_mrs_v_levels(lv[g], i, mask, p);                                           \
            }                                                                                     \
        }                                                                                         \
        for (Py_ssize_t g = 0; g < groups; g++)                                                   \
            for (int j = 0; j < 3; j++)                                                           \
                for (int k = 0; k < 4; k++) res[4 * g + k] += lv[g][j][k];                        \
    }                                                                                             \
    /* cascade_sum's 2-d loop: data (out, in), strides (out0, in0, out1, in1) */                  \
    ATTR static void NAME##_loop(char *out, const char *in, const Py_ssize_t *st, Py_ssize_t size0, Py_ssize_t size1) \
    {                                                                                             \
        Py_ssize_t is0 = st[1], is1 = st[3], os0 = st[0], os1 = st[2];                            \
        const Py_ssize_t es = (Py_ssize_t)sizeof(E), vecn = HALF ? 2 * W : W;                     \
        if (os0 != 0 && os1 == 0) { /* (the reduction into the first dim) */                      \
            Py_ssize_t t;                                                                         \
            t = is0; is0 = is1; is1 = t; t = os0; os0 = os1; os1 = t;                             \
            t = size0; size0 = size1; size1 = t;                                                  \
        }                                                                                         \
        if (os0 != 0 && os1 != 0) { /* not a reduction: out += in, element by element */          \
            for (Py_ssize_t j = 0; j < size1; j++)                                                \
                for (Py_ssize_t i = 0; i < size0; i++)                                            \
                    NAME##_store(out + j * st[2] + i * st[0], NAME##_lde(in + j * st[3] + i * st[1])); \
            return;                                                                               \
        }                                                                                         \
        const Py_ssize_t os = os1;                                                                \
        if (is0 == es && size0 >= vecn) { /* vectorized_inner_sum */                              \
            const Py_ssize_t nvec = size0 / vecn;                                                 \
            for (Py_ssize_t j = 0; j < size1; j++) {                                              \
                const char *row = in + j * is1;                                                   \
                V acc = NAME##_row_i(row, vecn * es, nvec);                                       \
                E fin = {0};                                                                      \
                for (Py_ssize_t k = nvec * vecn; k < size0; k++) fin += NAME##_lde(row + k * es); \
                E lanes[W];                                                                       \
                memcpy(lanes, &acc, sizeof acc);                                                  \
                for (int k = 0; k < W; k++) fin += lanes[k];                                      \
                NAME##_store(out + j * os, fin);                                                  \
            }                                                                                     \
        } else if (is1 == es && size1 >= vecn) { /* vectorized_outer_sum */                       \
            Py_ssize_t j = 0, groups = size1 / (4 * W);                                           \
            void *mem = NULL; /* (32-byte aligned: the vectors are read as such) */                \
            if (groups > 1 && size0 >= COLS_MIN_ROWS && posix_memalign(&mem, 32, groups * (4 * sizeof(V) + sizeof(V[3][4]))) != 0) \
                mem = NULL;                                                                       \
            V *sums = mem;                                                                        \
            if (sums != NULL) { /* (every whole group at once; the same sums) */                   \
                NAME##_mrs_cols(in, is0, size0, groups, sums, (V (*)[3][4])(sums + 4 * groups));  \
                for (; j < groups * 4 * W; j += W) NAME##_store_v(out + j * os, os, sums[j / W]);  \
                free(sums);                                                                       \
            }                                                                                     \
            for (; j + 4 * W <= size1; j += 4 * W) {                                              \
                V s[4];                                                                           \
                NAME##_mrs_v(in + j * es, is0, W * es, size0, s);                                 \
                for (int k = 0; k < 4; k++) NAME##_store_v(out + (j + k * W) * os, os, s[k]);     \
            }                                                                                     \
            for (; j + W <= size1; j += W)                                                        \
                NAME##_store_v(out + j * os, os, NAME##_row_v(in + j * es, is0, size0));          \
            for (; j < size1; j++)                                                                \
                NAME##_store(out + j * os, NAME##_row_e(in + j * es, is0, size0));                \
        } else if (is0 < is1) { /* scalar_inner_sum */                                            \
            for (Py_ssize_t j = 0; j < size1; j++)                                                \
                NAME##_store(out + j * os, NAME##_row_e(in + j * is1, is0, size0));               \
        } else { /* scalar_outer_sum */                                                           \
            Py_ssize_t j = 0;                                                                     \
            for (; j + 3 < size1; j += 4) {                                                       \
                E s[4];                                                                           \
                NAME##_mrs_e(in + j * is1, is0, is1, size0, s);                                   \
                for (int k = 0; k < 4; k++) NAME##_store(out + (j + k) * os, s[k]);               \
            }                                                                                     \
            for (; j < size1; j++)                                                                \
                NAME##_store(out + j * os, NAME##_row_e(in + j * is1, is0, size0));               \
        }                                                                                         \
    }                                                                                             \
    /* serial_for_each: the 2-d loop over dims 0 and 1 for each index of the outer dims */        \
    ATTR static void NAME##_run(const char *in, char *out, int nd, const Py_ssize_t *sizes,       \
                                const Py_ssize_t *is, const Py_ssize_t *os)                       \
    {                                                                                             \
        Py_ssize_t st[4] = {nd > 0 ? os[0] : 0, nd > 0 ? is[0] : 0, nd > 1 ? os[1] : 0, nd > 1 ? is[1] : 0}; \
        Py_ssize_t size0 = nd > 0 ? sizes[0] : 1, size1 = nd > 1 ? sizes[1] : 1;                  \
        Py_ssize_t idx[MAX_DIMS] = {0};                                                           \
        for (;;) {                                                                                \
            NAME##_loop(out, in, st, size0, size1);                                               \
            int d = 2;                                                                            \
            for (; d < nd; d++) {                                                                 \
                in += is[d]; out += os[d];                                                        \
                if (++idx[d] < sizes[d]) break;                                                   \
                in -= is[d] * sizes[d]; out -= os[d] * sizes[d];                                  \
                idx[d] = 0;                                                                       \
            }                                                                                     \
            if (d >= nd) return;                                                                  \
        }                                                                                         \
    }

DEFINE_KIND(float, float, v8f, 8, f32, 0, BASELINE)
DEFINE_KIND(double, double, v4d, 4, f64, 0, BASELINE)
DEFINE_KIND(float, v2f, v8f, 4, c64, 0, BASELINE)
DEFINE_KIND(double, v2d, v4d, 2, c128, 0, BASELINE)
DEFINE_KIND(float, float, v8f, 8, h32, 1, BASELINE)
DEFINE_KIND_NAN(float, float, v8f, 8, n32, 0, 1, BASELINE)
DEFINE_KIND_NAN(double, double, v4d, 4, n64, 0, 1, BASELINE)
#if HAVE_AVX2_CLONE
DEFINE_KIND(float, float, v8f, 8, f32_avx2, 0, AVX2)
DEFINE_KIND(double, double, v4d, 4, f64_avx2, 0, AVX2)
DEFINE_KIND(float, v2f, v8f, 4, c64_avx2, 0, AVX2)
DEFINE_KIND(double, v2d, v4d, 2, c128_avx2, 0, AVX2)
DEFINE_KIND(float, float, v8f, 8, h32_avx2, 1, AVX2)
DEFINE_KIND_NAN(float, float, v8f, 8, n32_avx2, 0, 1, AVX2)
DEFINE_KIND_NAN(double, double, v4d, 4, n64_avx2, 0, 1, AVX2)
static int use_avx2;
#endif

typedef void (*run_fn)(const char *, char *, int, const Py_ssize_t *, const Py_ssize_t *, const Py_ssize_t *);

static int read_dims(PyObject *seq, Py_ssize_t *out, int nd, const char *what)
{
    for (int i = 0; i < nd; i++) {
        Py_ssize_t v = PyLong_AsSsize_t(PyTuple_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) return 0;
        out[i] = v;
    }
    (void)what;
    return 1;
}

static PyObject *py_cascade(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *src, *dst, *sizes_o, *is_o, *os_o;
    int kind;
    Py_ssize_t divisor = 0;
    if (!PyArg_ParseTuple(args, "OiO!O!O!O|n:cascade", &src, &kind, &PyTuple_Type, &sizes_o, &PyTuple_Type, &is_o,
                          &PyTuple_Type, &os_o, &dst, &divisor))
        return NULL;
    if (divisor < 0 || (divisor > 0 && kind != 0 && kind != 1 && kind != 5 && kind != 6)) {
        PyErr_SetString(PyExc_ValueError, "cascade: a divisor must be >= 1, and is for the real kinds 0, 1, 5, 6 only");
        return NULL;
    }
    Py_ssize_t nd = PyTuple_GET_SIZE(sizes_o);
    if (kind < 0 || kind > 6 || nd > MAX_DIMS || PyTuple_GET_SIZE(is_o) != nd || PyTuple_GET_SIZE(os_o) != nd) {
        PyErr_SetString(PyExc_ValueError, "cascade: kind must be 0-6 and sizes, strides of one length <= 64");
        return NULL;
    }
    Py_ssize_t sizes[MAX_DIMS], is[MAX_DIMS], os[MAX_DIMS];
    if (!read_dims(sizes_o, sizes, (int)nd, "sizes") || !read_dims(is_o, is, (int)nd, "in_strides")
        || !read_dims(os_o, os, (int)nd, "out_strides"))
        return NULL;
    for (Py_ssize_t i = 0; i < nd; i++)
        if (sizes[i] < 1) {
            PyErr_SetString(PyExc_ValueError, "cascade: every size must be >= 1 (an empty sum is the caller's)");
            return NULL;
        }
    Py_buffer sb, db;
    if (PyObject_GetBuffer(src, &sb, PyBUF_STRIDES) < 0) return NULL;
    if (PyObject_GetBuffer(dst, &db, PyBUF_STRIDES | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&sb);
        return NULL;
    }
    static const run_fn base[7] = {f32_run, f64_run, c64_run, c128_run, h32_run, n32_run, n64_run};
    run_fn f = base[kind];
#if HAVE_AVX2_CLONE
    static const run_fn wide[7] = {f32_avx2_run, f64_avx2_run, c64_avx2_run, c128_avx2_run, h32_avx2_run,
                                   n32_avx2_run, n64_avx2_run};
    if (use_avx2) f = wide[kind];
#endif
    if (divisor > 0 && !PyBuffer_IsContiguous(&db, 'C')) {
        PyErr_SetString(PyExc_ValueError, "cascade: with a divisor, out must be C-contiguous");
        PyBuffer_Release(&sb);
        PyBuffer_Release(&db);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    f((const char *)sb.buf, (char *)db.buf, (int)nd, sizes, is, os);
    /* mean: each sum divided by the count, a float of the dtype (PyTorch's div_; NumPy's divide of
     * the sums by the Python int, one rounding of the quotient), without that ufunc call (~1 us) */
    if (divisor > 0 && (kind == 0 || kind == 5)) {
        float c = (float)divisor, *o = (float *)db.buf;
        for (Py_ssize_t i = 0, n = db.len / (Py_ssize_t)sizeof(float); i < n; i++) o[i] = o[i] / c;
    } else if (divisor > 0) {
        double c = (double)divisor, *o = (double *)db.buf;
        for (Py_ssize_t i = 0, n = db.len / (Py_ssize_t)sizeof(double); i < n; i++) o[i] = o[i] / c;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&sb);
    PyBuffer_Release(&db);
    Py_RETURN_NONE;
}

#include "_walk_products.h"

static PyMethodDef methods[] = {
    {"walk_products", py_walk_products, METH_VARARGS,
     "walk_products(op, kind, values, rows, n, out) -> bool: torch_walk_products' loops (float16 / bfloat16 in\n"
     "float32 working copies, complex64, complex128), the same products in the same order (_walk_products.h)."},
    {"cascade", py_cascade, METH_VARARGS,
     "cascade(source, kind, sizes, in_strides, out_strides, out): PyTorch's CPU sum (cascade_sum; kinds 5, 6: nansum) of\n"
     "TensorIterator's coalesced dims (fastest first, byte strides) added into the zeroed out; divisor (kinds 0, 1, 5,\n"
     "6, a C-contiguous out): each result then divided by it, a float of the dtype (mean)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "strided.kernels._sumkernel",
    "PyTorch's CPU float sum order (SumKernel.cpp), compiled (see strided.kernels.torch_sum).", -1, methods,
};

PyMODINIT_FUNC PyInit__sumkernel(void)
{
#if HAVE_AVX2_CLONE
    __builtin_cpu_init();
    use_avx2 = __builtin_cpu_supports("avx2");
    const char *isa = getenv("STRIDED_NATIVE_ROWS_ISA");
    if (isa != NULL) use_avx2 = use_avx2 && strcmp(isa, "avx2") == 0;
#endif
    return PyModule_Create(&module);
}
