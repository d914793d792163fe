/* walk_products(op, kind, values, rows, n, out) -> bool: the loops of strided.kernels.reduce's
 * torch_walk_products (PyTorch's prod of float16 / bfloat16 / complex64 / complex128 in its own
 * steps), compiled: the same products in the same order as that module's NumPy steps, which stay
 * its reference (tests/test_walk_products.py compares the two bit for bit).
 *
 * kind: 0 float16, 1 bfloat16 (values and out are float32 working copies; each product is the
 * float32 product of two such values, exact, rounded to the dtype as NumPy / ml_dtypes convert:
 * round to nearest even, NumPy's float16 NaN keeps the top of its payload, ml_dtypes' bfloat16 NaN
 * is sign | 0x7fc0), 2 complex64, 3 complex128 (values and out in the dtype; the products in the
 * forms of strided.kernels.complex_forms' MUL: "vec" ac - bd, ad + bc each rounded, "one" fused
 * fma(a, c, -(bd)), fma(a, d, bc); "last" and "strided" are vec for complex64, one for complex128;
 * for the 2-byte kinds every form is the one rounded product).
 *
 * values: a C-contiguous (rows, n) buffer in the working dtype; out: the running products, updated
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

static inline float wp_round2(int kind, float p)
{
    uint32_t u = wp_bits(p);
    return kind == 0 ? wp_float(wp_from_half(wp_to_half(u))) : wp_float((uint32_t)wp_to_bf16(u) << 16);
}

static inline float wp_mul2(int kind, float a, float b) { return wp_round2(kind, a * b); }

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

/* The loops, one copy per working type: MUL(form, x, y) with form 0 vec, 1 one, 2 last, 3 strided */
#define WP_LOOPS(NAME, T, MUL)                                                                     \
    static void wp_line_##NAME(int kind, const T *v, Py_ssize_t rows, Py_ssize_t n, T *out,         \
                               int chain, Py_ssize_t q)                                             \
    {                                                                                               \
        Py_ssize_t block = 4 * q, count = n / block, done = count * block;                          \
        T acc[64], part[64];                                                                        \
        for (Py_ssize_t r = 0; r < rows; r++) {                                                     \
            const T *line = v + r * n;                                                              \
            T *o = chain ? out : out + r;                                                           \
            if (count) {                                                                            \
                for (Py_ssize_t j = 0; j < block; j++) acc[j] = line[j];                            \
                for (Py_ssize_t c = 1; c < count; c++)                                              \
                    for (Py_ssize_t j = 0; j < block; j++) acc[j] = MUL(0, acc[j], line[c * block + j]); \
                for (Py_ssize_t j = 0; j < q; j++)                                                  \
                    part[j] = MUL(0, MUL(0, acc[j], acc[q + j]), MUL(0, acc[2 * q + j], acc[3 * q + j])); \
                T fold = part[0];                                                                   \
                for (Py_ssize_t k = 1; k < q; k++) fold = MUL(k == q - 1 ? 2 : 1, fold, part[k]);   \
                *o = MUL(2, *o, fold);                                                              \
            }                                                                                       \
            for (Py_ssize_t k = done; k < n; k++) *o = MUL(1, *o, line[k]);                         \
        }                                                                                           \
    }                                                                                               \
    static void wp_columns_##NAME(int kind, const T *v, Py_ssize_t n, Py_ssize_t m, T *out,         \
                                  Py_ssize_t q)                                                     \
    {                                                                                               \
        Py_ssize_t wide = (m / (4 * q)) * 4 * q;                                                    \
        for (Py_ssize_t j = 0; j < wide; j++) {                                                     \
            T acc = v[j];                                                                           \
            for (Py_ssize_t i = 1; i < n; i++) acc = MUL(0, acc, v[i * m + j]);                     \
            out[j] = MUL(0, acc, (T)1);                                                             \
        }                                                                                           \
        for (Py_ssize_t j = wide; j < m; j++) {                                                     \
            T acc = (T)1;                                                                           \
            for (Py_ssize_t i = 0; i < n; i++) acc = MUL(1, acc, v[i * m + j]);                     \
            out[j] = acc;                                                                           \
        }                                                                                           \
    }                                                                                               \
    static void wp_strided_##NAME(int kind, const T *v, Py_ssize_t rows, Py_ssize_t n, T *out)      \
    {                                                                                               \
        for (Py_ssize_t r = 0; r < rows; r++) {                                                     \
            T o = out[r];                                                                           \
            for (Py_ssize_t k = 0; k < n; k++) o = MUL(3, o, v[r * n + k]);                         \
            out[r] = o;                                                                             \
        }                                                                                           \
    }

#define WP_MUL2(form, x, y) wp_mul2(kind, (x), (y))
#define WP_MUL64(form, x, y) ((form) == 1 ? wp_one_float((x), (y)) : wp_vec_float((x), (y)))
#define WP_MUL128(form, x, y) ((form) == 0 ? wp_vec_double((x), (y)) : wp_one_double((x), (y)))

WP_LOOPS(h, float, WP_MUL2)
WP_LOOPS(c64, float _Complex, WP_MUL64)
WP_LOOPS(c128, double _Complex, WP_MUL128)

/* op 4 (2-byte kinds): out[j] = v[0, j] * v[1, j] * ... in order, each product rounded */
static void wp_running_columns(int kind, const float *v, Py_ssize_t rows, Py_ssize_t n, float *out)
{
    for (Py_ssize_t j = 0; j < n; j++) out[j] = v[j];
    for (Py_ssize_t i = 1; i < rows; i++)
        for (Py_ssize_t j = 0; j < n; j++) out[j] = wp_mul2(kind, out[j], v[i * n + j]);
}

static PyObject *py_walk_products(PyObject *self, PyObject *args)
{
    int op, kind;
    Py_ssize_t rows, n;
    Py_buffer vb, ob;
    if (!PyArg_ParseTuple(args, "iiy*nnw*", &op, &kind, &vb, &rows, &n, &ob)) return NULL;
    static const Py_ssize_t size[4] = {4, 4, 8, 16}, align[4] = {4, 4, 4, 8};
    int ok = op >= 0 && op <= 4 && kind >= 0 && kind <= 3 && rows >= 0 && n >= 0 && !(op == 4 && kind > 1);
    Py_ssize_t outs = 0;
    if (ok) {
        outs = op == 0 || op == 3 ? rows : op == 1 ? 1 : n;
        ok = vb.len >= rows * n * size[kind] && ob.len >= outs * size[kind] &&
             ((uintptr_t)vb.buf % align[kind]) == 0 && ((uintptr_t)ob.buf % align[kind]) == 0;
    }
    if (ok) {
        Py_ssize_t q = WP_LANES_BYTES / (kind < 2 ? 2 : size[kind]);
        Py_BEGIN_ALLOW_THREADS
        if (kind < 2) {
            const float *v = (const float *)vb.buf;
            float *o = (float *)ob.buf;
            if (op == 0 || op == 1) wp_line_h(kind, v, rows, n, o, op == 1, q);
            else if (op == 2) wp_columns_h(kind, v, rows, n, o, q);
            else if (op == 3) wp_strided_h(kind, v, rows, n, o);
            else wp_running_columns(kind, v, rows, n, o);
        } else if (kind == 2) {
            const float _Complex *v = (const float _Complex *)vb.buf;
            float _Complex *o = (float _Complex *)ob.buf;
            if (op == 0 || op == 1) wp_line_c64(kind, v, rows, n, o, op == 1, q);
            else if (op == 2) wp_columns_c64(kind, v, rows, n, o, q);
            else wp_strided_c64(kind, v, rows, n, o);
        } else {
            const double _Complex *v = (const double _Complex *)vb.buf;
            double _Complex *o = (double _Complex *)ob.buf;
            if (op == 0 || op == 1) wp_line_c128(kind, v, rows, n, o, op == 1, q);
            else if (op == 2) wp_columns_c128(kind, v, rows, n, o, q);
            else wp_strided_c128(kind, v, rows, n, o);
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&vb);
    PyBuffer_Release(&ob);
    return PyBool_FromLong(ok);
}
