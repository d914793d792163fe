/* walk_products(op, kind, values, rows, n, out) -> bool: the loops of strided.kernels.reduce's
 * torch_walk_products (PyTorch's prod of float16 / bfloat16 / complex64 / complex128 in its own
 * steps), compiled: the same products in the same order as that module's NumPy steps, which stay
 * its reference (tests/test_walk_products.py compares the two bit for bit).
 *
 * kind: 0 float16, 1 bfloat16 (values are the dtype's raw 2-byte elements, read as NumPy /
 * ml_dtypes convert them to float32; out is float32; each product is the float32 product of two
 * such values, exact, rounded to the dtype as NumPy / ml_dtypes convert:
 * round to nearest even, NumPy's float16 NaN keeps the top of its payload, ml_dtypes' bfloat16 NaN
 * is sign | 0x7fc0), 2 complex64, 3 complex128 (values and out in the dtype; the products in the
 * forms of strided.kernels.complex_forms' MUL: "vec" ac - bd, ad + bc each rounded, "one" fused
 * fma(a, c, -(bd)), fma(a, d, bc); "last" and "strided" are vec for complex64, one for complex128;
 * for the 2-byte kinds every form is the one rounded product).
 *
 * values: a C-contiguous (rows, n) buffer (2-byte elements for kinds 0, 1, else the dtype); out: the
 * running products (float32 for kinds 0, 1), updated
 * in place. op 0: _walk_line (out[rows]: each row's lane fold of its whole blocks of 4 vectors,
 * then its rest one by one), op 1: _chained_rows (out[0]: one product through every row in turn),
 * op 2: _walk_columns' vector form (values (n, m) as rows = n, n = m: out[m]), op 3: the strided
 * walk (out[rows] times each column of values in turn, the strided form), op 4: the running
 * product down the columns from the first row (out[n]; NumPy's multiply.reduce over axis 0 of the
 * dtype: the 2-byte kinds only). False where op or kind is not one of these.
 *
 * Lanes: 32-byte vectors (16 float16 / bfloat16, 4 complex64, 2 complex128), as reduce's
 * _TORCH_VECTOR_BYTES. Included once, by _sumkernel.c (its flags: no contraction, no fast-math:
 * every unfused product is one IEEE multiply and add; fma/fmaf are the fused forms).
 */
#include <complex.h>
#include <math.h>

#define WP_LANES_BYTES 32

/* ---- float16 / bfloat16: a float32 rounded to the dtype and read back */

static inline uint32_t wp_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float wp_float(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* NumPy's npy_floatbits_to_halfbits (round to nearest even; a NaN keeps its payload's top bits) */
static inline uint16_t wp_to_half(uint32_t f)
{
    uint16_t sgn = (uint16_t)((f & 0x80000000u) >> 16);
    uint32_t exp = f & 0x7f800000u, sig;
    if (exp >= 0x47800000u) {
        if (exp == 0x7f800000u && (f & 0x007fffffu)) {
            uint16_t ret = (uint16_t)(0x7c00u + ((f & 0x007fffffu) >> 13));
            if (ret == 0x7c00u) ret++;
            return (uint16_t)(sgn + ret);
        }
        return (uint16_t)(sgn + 0x7c00u);
    }
    if (exp <= 0x38000000u) {
        if (exp < 0x33000000u) return sgn;
        exp >>= 23;
        sig = 0x00800000u + (f & 0x007fffffu);
        sig >>= (113 - exp);
        if (((sig & 0x00003fffu) != 0x00001000u) || (f & 0x000007ffu)) sig += 0x00001000u;
        return (uint16_t)(sgn + (uint16_t)(sig >> 13));
    }
    uint16_t hexp = (uint16_t)((exp - 0x38000000u) >> 13);
    sig = f & 0x007fffffu;
    if ((sig & 0x00003fffu) != 0x00001000u) sig += 0x00001000u;
    uint16_t hsig = (uint16_t)(sig >> 13);
    return (uint16_t)(sgn + hexp + hsig);  /* (a carry out of hsig increments the exponent: right) */
}

/* NumPy's npy_halfbits_to_floatbits */
static inline uint32_t wp_from_half(uint16_t h)
{
    uint16_t hexp = h & 0x7c00u;
    uint32_t sgn = ((uint32_t)h & 0x8000u) << 16;
    if (hexp == 0) {
        uint16_t hsig = h & 0x03ffu;
        if (hsig == 0) return sgn;
        hsig <<= 1;
        while ((hsig & 0x0400u) == 0) { hsig <<= 1; hexp++; }
        return sgn + (((uint32_t)(127 - 15 - hexp)) << 23) + (((uint32_t)(hsig & 0x03ffu)) << 13);
    }
    if (hexp == 0x7c00u) return sgn + 0x7f800000u + (((uint32_t)(h & 0x03ffu)) << 13);
    return sgn + (((uint32_t)(h & 0x7fffu) + 0x1c000u) << 13);
}

/* ml_dtypes' (Eigen's) float -> bfloat16: round to nearest even, a NaN sign | 0x7fc0 */
static inline uint16_t wp_to_bf16(uint32_t f)
{
    if ((f & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((f >> 16 & 0x8000u) | 0x7fc0u);
    return (uint16_t)((f + 0x7fffu + ((f >> 16) & 1u)) >> 16);
}

/* float16 -> float32 as NumPy converts (every payload kept): a table, filled on the first call */
static float wp_half_table[65536];
static int wp_table_ready = 0;

static void wp_fill_table(void)
{
    for (uint32_t h = 0; h < 65536; h++) wp_half_table[h] = wp_float(wp_from_half((uint16_t)h));
    wp_table_ready = 1;
}

static inline float wp_round_half(float p) { return wp_half_table[wp_to_half(wp_bits(p))]; }
static inline float wp_round_bf16(float p) { return wp_float((uint32_t)wp_to_bf16(wp_bits(p)) << 16); }

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define WP_HAVE_F16C 1
#define WP_F16C __attribute__((target("f16c")))
/* the F16C conversion rounds a number as NumPy's does (to nearest even, subnormals and overflow
 * alike); a NaN takes NumPy's payload rule instead (the instruction quiets it) */
WP_F16C static inline float wp_round_half_hw(float p)
{
    if (p != p) return wp_round_half(p);
    return _cvtsh_ss(_cvtss_sh(p, _MM_FROUND_TO_NEAREST_INT));
}
#endif

/* ---- complex: the forms */

#define WP_COMPLEX(T, C, FMA)                                                                       \
    static inline C wp_vec_##T(C x, C y)                                                            \
    {                                                                                               \
        T a = creal##FMA(x), b = cimag##FMA(x), c = creal##FMA(y), d = cimag##FMA(y);               \
        T ac = a * c, bd = b * d, ad = a * d, bc = b * -c;                                          \
        T re = ac - bd, im = ad - bc;                                                               \
        C r;                                                                                        \
        __real__ r = re;                                                                            \
        __imag__ r = im;                                                                            \
        return r;                                                                                   \
    }                                                                                               \
    static inline C wp_one_##T(C x, C y)                                                            \
    {                                                                                               \
        T a = creal##FMA(x), b = cimag##FMA(x), c = creal##FMA(y), d = cimag##FMA(y);               \
        C r;                                                                                        \
        __real__ r = fma##FMA(a, c, -(b * d));                                                      \
        __imag__ r = fma##FMA(a, d, b * c);                                                         \
        return r;                                                                                   \
    }

WP_COMPLEX(float, float _Complex, f)
WP_COMPLEX(double, double _Complex, )

/* The loops, one copy per kind: IT the stored element, T the working value, LOAD(x) one element's
 * value, MUL(form, x, y) with form 0 vec, 1 one, 2 last, 3 strided; ATTR a target attribute */
#define WP_LOOPS(NAME, IT, T, LOAD, MUL, ATTR)                                                     \
    ATTR static void wp_line_##NAME(const IT *v, Py_ssize_t rows, Py_ssize_t n, T *out, int chain,  \
                                    Py_ssize_t q)                                                   \
    {                                                                                               \
        Py_ssize_t block = 4 * q, count = n / block, done = count * block;                          \
        T acc[64], part[64];                                                                        \
        for (Py_ssize_t r = 0; r < rows; r++) {                                                     \
            const IT *line = v + r * n;                                                             \
            T *o = chain ? out : out + r;                                                           \
            if (count) {                                                                            \
                for (Py_ssize_t j = 0; j < block; j++) acc[j] = LOAD(line[j]);                      \
                for (Py_ssize_t c = 1; c < count; c++)                                              \
                    for (Py_ssize_t j = 0; j < block; j++) acc[j] = MUL(0, acc[j], LOAD(line[c * block + j])); \
                for (Py_ssize_t j = 0; j < q; j++)                                                  \
                    part[j] = MUL(0, MUL(0, acc[j], acc[q + j]), MUL(0, acc[2 * q + j], acc[3 * q + j])); \
                T fold = part[0];                                                                   \
                for (Py_ssize_t k = 1; k < q; k++) fold = MUL(k == q - 1 ? 2 : 1, fold, part[k]);   \
                *o = MUL(2, *o, fold);                                                              \
            }                                                                                       \
            for (Py_ssize_t k = done; k < n; k++) *o = MUL(1, *o, LOAD(line[k]));                   \
        }                                                                                           \
    }                                                                                               \
    ATTR static void wp_columns_##NAME(const IT *v, Py_ssize_t n, Py_ssize_t m, T *out, Py_ssize_t q) \
    {                                                                                               \
        Py_ssize_t wide = (m / (4 * q)) * 4 * q;                                                    \
        for (Py_ssize_t j = 0; j < wide; j++) {                                                     \
            T acc = LOAD(v[j]);                                                                     \
            for (Py_ssize_t i = 1; i < n; i++) acc = MUL(0, acc, LOAD(v[i * m + j]));               \
            out[j] = MUL(0, acc, (T)1);                                                             \
        }                                                                                           \
        for (Py_ssize_t j = wide; j < m; j++) {                                                     \
            T acc = (T)1;                                                                           \
            for (Py_ssize_t i = 0; i < n; i++) acc = MUL(1, acc, LOAD(v[i * m + j]));               \
            out[j] = acc;                                                                           \
        }                                                                                           \
    }                                                                                               \
    ATTR static void wp_strided_##NAME(const IT *v, Py_ssize_t rows, Py_ssize_t n, T *out)          \
    {                                                                                               \
        for (Py_ssize_t r = 0; r < rows; r++) {                                                     \
            T o = out[r];                                                                           \
            for (Py_ssize_t k = 0; k < n; k++) o = MUL(3, o, LOAD(v[r * n + k]));                   \
            out[r] = o;                                                                             \
        }                                                                                           \
    }                                                                                               \
    /* op 4: out[j] = v[0, j] * v[1, j] * ... in order (the 2-byte kinds' one form) */              \
    ATTR static void wp_running_##NAME(const IT *v, Py_ssize_t rows, Py_ssize_t n, T *out)          \
    {                                                                                               \
        for (Py_ssize_t j = 0; j < n; j++) out[j] = LOAD(v[j]);                                     \
        for (Py_ssize_t i = 1; i < rows; i++)                                                       \
            for (Py_ssize_t j = 0; j < n; j++) out[j] = MUL(0, out[j], LOAD(v[i * n + j]));         \
    }                                                                                               \
    ATTR static void wp_run_##NAME(int op, const void *values, Py_ssize_t rows, Py_ssize_t n, void *o, \
                                   Py_ssize_t q)                                                    \
    {                                                                                               \
        const IT *v = (const IT *)values;                                                           \
        T *out = (T *)o;                                                                            \
        if (op == 0 || op == 1) wp_line_##NAME(v, rows, n, out, op == 1, q);                        \
        else if (op == 2) wp_columns_##NAME(v, rows, n, out, q);                                    \
        else if (op == 3) wp_strided_##NAME(v, rows, n, out);                                       \
        else wp_running_##NAME(v, rows, n, out);                                                    \
    }

#define WP_SAME(x) (x)
#define WP_LOAD_HALF(x) wp_half_table[(x)]
#define WP_LOAD_BF16(x) wp_float((uint32_t)(x) << 16)
#define WP_MUL_HALF(form, x, y) wp_round_half((x) * (y))
#define WP_MUL_BF16(form, x, y) wp_round_bf16((x) * (y))
#define WP_MUL64(form, x, y) ((form) == 1 ? wp_one_float((x), (y)) : wp_vec_float((x), (y)))
#define WP_MUL128(form, x, y) ((form) == 0 ? wp_vec_double((x), (y)) : wp_one_double((x), (y)))

WP_LOOPS(h, uint16_t, float, WP_LOAD_HALF, WP_MUL_HALF, )
WP_LOOPS(b, uint16_t, float, WP_LOAD_BF16, WP_MUL_BF16, )
WP_LOOPS(c64, float _Complex, float _Complex, WP_SAME, WP_MUL64, )
WP_LOOPS(c128, double _Complex, double _Complex, WP_SAME, WP_MUL128, )
#if WP_HAVE_F16C
#define WP_MUL_HALF_HW(form, x, y) wp_round_half_hw((x) * (y))
WP_LOOPS(hw, uint16_t, float, WP_LOAD_HALF, WP_MUL_HALF_HW, WP_F16C)
static int wp_f16c = -1;  /* (whether the CPU has F16C: asked on the first call) */
#endif

static PyObject *py_walk_products(PyObject *self, PyObject *args)
{
    int op, kind, hw = 1;
    Py_ssize_t rows, n;
    Py_buffer vb, ob;
    if (!PyArg_ParseTuple(args, "iiy*nnw*|i", &op, &kind, &vb, &rows, &n, &ob, &hw)) return NULL;
    static const Py_ssize_t in_size[4] = {2, 2, 8, 16}, out_size[4] = {4, 4, 8, 16}, align[4] = {2, 2, 4, 8};
    int ok = op >= 0 && op <= 4 && kind >= 0 && kind <= 3 && rows >= 0 && n >= 0 && !(op == 4 && kind > 1);
    if (ok) {
        Py_ssize_t outs = op == 0 || op == 3 ? rows : op == 1 ? 1 : n;
        ok = vb.len >= rows * n * in_size[kind] && ob.len >= outs * out_size[kind] &&
             ((uintptr_t)vb.buf % align[kind]) == 0 && ((uintptr_t)ob.buf % (kind < 2 ? 4 : align[kind])) == 0;
    }
    if (ok) {
        Py_ssize_t q = WP_LANES_BYTES / in_size[kind];
        if (!wp_table_ready) wp_fill_table();  /* (under the GIL: one filler) */
        void (*run)(int, const void *, Py_ssize_t, Py_ssize_t, void *, Py_ssize_t) =
            kind == 0 ? wp_run_h : kind == 1 ? wp_run_b : kind == 2 ? wp_run_c64 : wp_run_c128;
#if WP_HAVE_F16C
        if (wp_f16c < 0) {
            __builtin_cpu_init();
            wp_f16c = __builtin_cpu_supports("f16c") != 0;
        }
        if (kind == 0 && hw && wp_f16c) run = wp_run_hw;
#endif
        Py_BEGIN_ALLOW_THREADS
        run(op, vb.buf, rows, n, ob.buf, q);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&vb);
    PyBuffer_Release(&ob);
    return PyBool_FromLong(ok);
}
