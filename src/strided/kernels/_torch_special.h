/* PyTorch's own special functions (ATen/native/Math.h): i0, i1, i0e, i1e, digamma, trigamma,
 * polygamma, included by _specialkernel.c twice: TB(NAME) names this copy's functions, TB_TARGET its target attribute
 * (the FMA instructions inlined, or none: the C library's fma), TB_LANES whether i0e and i1e take
 * their branch-free loop. The coefficient tables (I0A, I0B, TI1A_D, TI1B_D, TI1A_F, TI1B_F, TI0A_F,
 * TI0B_F) are the including file's. */

/* chbevl. GCC unrolls PyTorch's loop and folds the first step's "- 0.0" away, so that step's
 * x * b1 + a[1] is one fma too; every later x * b1 - b2 is one fma, then + a[i]. */
static TB_TARGET double TB(chb_d)(double x, const double *a, int n)
{
    double b0 = __builtin_fma(x, a[0], a[1]), b1 = a[0], b2 = 0.0;
    for (int i = 2; i < n; i++) {
        b2 = b1;
        b1 = b0;
        b0 = __builtin_fma(x, b1, -b2) + a[i];
    }
    return 0.5 * (b0 - b2);
}

static TB_TARGET float TB(chb_f)(float x, const float *a, int n)
{
    float b0 = __builtin_fmaf(x, a[0], a[1]), b1 = a[0], b2 = 0.0f;
    for (int i = 2; i < n; i++) {
        b2 = b1;
        b1 = b0;
        b0 = __builtin_fmaf(x, b1, -b2) + a[i];
    }
    return 0.5f * (b0 - b2);
}

/* which: 0 i0, 1 i1, 2 i0e, 3 i1e; the products and quotients in PyTorch's order */
static TB_TARGET double TB(bessel_d)(double v, int which)
{
    double x = fabs(v), out;
    if (x <= 8.0) {
        double y = x / 2.0 - 2.0;
        if (which == 0) return exp(x) * TB(chb_d)(y, I0A, 30);
        if (which == 2) return TB(chb_d)(y, I0A, 30);
        out = which == 1 ? exp(x) * x * TB(chb_d)(y, TI1A_D, 29) : TB(chb_d)(y, TI1A_D, 29) * x;
    } else {
        double y = 32.0 / x - 2.0;
        if (which == 0) return exp(x) * TB(chb_d)(y, I0B, 25) / sqrt(x);
        if (which == 2) return TB(chb_d)(y, I0B, 25) / sqrt(x);
        out = which == 1 ? exp(x) * TB(chb_d)(y, TI1B_D, 25) / sqrt(x) : TB(chb_d)(y, TI1B_D, 25) / sqrt(x);
    }
    return v < 0.0 ? -out : out;
}

static TB_TARGET float TB(bessel_f)(float v, int which)
{
    float x = fabsf(v), out;
    if (x <= 8.0f) {
        float y = x / 2.0f - 2.0f;
        if (which == 0) return expf(x) * TB(chb_f)(y, TI0A_F, 30);
        if (which == 2) return TB(chb_f)(y, TI0A_F, 30);
        out = which == 1 ? expf(x) * x * TB(chb_f)(y, TI1A_F, 17) : TB(chb_f)(y, TI1A_F, 17) * x;
    } else {
        float y = 32.0f / x - 2.0f;
        if (which == 0) return expf(x) * TB(chb_f)(y, TI0B_F, 25) / sqrtf(x);
        if (which == 2) return TB(chb_f)(y, TI0B_F, 25) / sqrtf(x);
        out = which == 1 ? expf(x) * TB(chb_f)(y, TI1B_F, 7) / sqrtf(x) : TB(chb_f)(y, TI1B_F, 7) / sqrtf(x);
    }
    return v < 0.0f ? -out : out;
}

/* ------------------------------------------------------------ digamma, trigamma, polygamma (n >= 2) */
/* calc_digamma, trigamma, zeta and calc_polygamma, each in PyTorch's types (float32's digamma
 * takes its reflection term in double, its zeta sums in double); GCC's contractions as above:
 * polevl's result * x + A[i] and trigamma's nested c - ixx * (...) are fmas, zeta's s -= half * b
 * too. The C library's log, tan, sin, pow, lgamma and exp, as PyTorch's scalar code calls them. */

static TB_TARGET double TB(polevl_d)(double x, const double *a, int len)
{
    double r = 0.0;
    for (int i = 0; i <= len; i++) r = __builtin_fma(r, x, a[i]);
    return r;
}

static TB_TARGET float TB(polevl_f)(float x, const float *a, int len)
{
    float r = 0.0f;
    for (int i = 0; i <= len; i++) r = __builtin_fmaf(r, x, a[i]);
    return r;
}

static TB_TARGET double TB(digamma_d)(double x)
{
    if (x == 0) return copysign(INFINITY, -x);
    if (x < 0) {
        if (x == trunc(x)) return NAN;
        double q, r = modf(x, &q);
        return TB(digamma_d)(1 - x) - PI / tan(PI * r);
    }
    double result = 0;
    while (x < 10) {
        result -= 1 / x;
        x += 1;
    }
    if (x == 10) return result + PSI_10_D;
    double y = 0;
    if (x < 1.0e17) {
        double z = 1.0 / (x * x);
        y = z * TB(polevl_d)(z, DIGAMMA_A_D, 6);
    }
    return result + log(x) - (0.5 / x) - y;
}

static TB_TARGET float TB(digamma_f)(float x)
{
    if (x == 0) return copysignf(INFINITY, -x);
    if (x < 0) {
        if (x == truncf(x)) return NAN;
        double q, r = modf((double)x, &q);
        float pi_over_tan = (float)(PI / tan(PI * r));
        return TB(digamma_f)(1 - x) - pi_over_tan;
    }
    float result = 0;
    while (x < 10) {
        result -= 1 / x;
        x += 1;
    }
    if (x == 10) return result + PSI_10_F;
    float y = 0;
    if (x < 1.0e17f) {
        float z = 1 / (x * x);
        y = z * TB(polevl_f)(z, DIGAMMA_A_F, 6);
    }
    return result + logf(x) - (0.5f / x) - y;
}

static TB_TARGET double TB(trigamma_d)(double x)
{
    double sign = +1, result = 0;
    if (x < 0.5) {
        sign = -1;
        const double sin_pi_x = sin(PI * x);
        result -= (PI * PI) / (sin_pi_x * sin_pi_x);
        x = 1 - x;
    }
    for (int i = 0; i < 6; ++i) {
        result += 1 / (x * x);
        x += 1;
    }
    const double ixx = 1 / (x * x);
    double inner = __builtin_fma(-ixx, 1. / 42, 1. / 30);
    inner = __builtin_fma(-ixx, inner, 1. / 6);
    result += __builtin_fma(ixx, inner, 1 + 1 / (2 * x)) / x;
    return sign * result;
}

static TB_TARGET float TB(trigamma_f)(float x)
{
    const float pi = (float)PI;
    float sign = +1, result = 0;
    if (x < 0.5f) {
        sign = -1;
        const float sin_pi_x = sinf(pi * x);
        result -= (pi * pi) / (sin_pi_x * sin_pi_x);
        x = 1 - x;
    }
    for (int i = 0; i < 6; ++i) {
        result += 1 / (x * x);
        x += 1;
    }
    const float ixx = 1 / (x * x);
    float inner = __builtin_fmaf(-ixx, 1.f / 42, 1.f / 30);
    inner = __builtin_fmaf(-ixx, inner, 1.f / 6);
    result += __builtin_fmaf(ixx, inner, 1 + 1 / (2 * x)) / x;
    return sign * result;
}

/* zeta(x, q) summed in double; first_pow: the first term, pow in the tensor's type */
static TB_TARGET double TB(zeta_sum)(double x, double q, double first_pow)
{
    const double MACHEP_Z = 1.11022302462515654042E-16;
    double a, b, k, s, t, w;
    if (x == 1.0) return INFINITY;
    if (x < 1.0) return NAN;
    if (q <= 0.0) {
        if (q == floor(q)) return INFINITY;
        if (x != floor(x)) return NAN;
    }
    s = first_pow;
    a = q;
    int i = 0;
    b = 0.0;
    while ((i < 9) || (a <= 9.0)) {
        i += 1;
        a += 1.0;
        b = pow(a, -x);
        s += b;
        if ((-MACHEP_Z * s < b) && (b < MACHEP_Z * s)) return s;
    }
    w = a;
    s += b * w / (x - 1.0);
    s = __builtin_fma(-0.5, b, s);
    a = 1.0;
    k = 0.0;
    for (i = 0; i < 12; i++) {
        a *= x + k;
        b /= w;
        t = a * b / ZETA_A[i];
        s = s + t;
        t = fabs(t / s);
        if (t < MACHEP_Z) return s;
        k += 1.0;
        a *= x + k;
        b /= w;
        k += 1.0;
    }
    return s;
}

static TB_TARGET double TB(polygamma_d)(double x, int n)
{
    double order = (double)(n + 1);
    double sign = (n % 2) ? 1.0 : -1.0;
    return sign * exp(lgamma((double)n + 1.0)) * TB(zeta_sum)(order, x, pow(x, -order));
}

static TB_TARGET float TB(polygamma_f)(float x, int n)
{
    float order = (float)(n + 1);
    float sign = (n % 2) ? 1.0f : -1.0f;
    float z = (float)TB(zeta_sum)(order, x, (double)powf(x, -order));
    return sign * expf(lgammaf((float)n + 1.0f)) * z;
}

/* ------------------------------------------------------------ the loops */
/* which: 0 i0, 1 i1, 2 i0e, 3 i1e, 4 digamma, 5 trigamma, 6 polygamma of order n (>= 2) */

static TB_TARGET double TB(torch_one_d)(double x, int which, int n)
{
    switch (which) {
    case 4: return TB(digamma_d)(x);
    case 5: return TB(trigamma_d)(x);
    case 6: return TB(polygamma_d)(x, n);
    default: return TB(bessel_d)(x, which);
    }
}

static TB_TARGET float TB(torch_one_f)(float x, int which, int n)
{
    switch (which) {
    case 4: return TB(digamma_f)(x);
    case 5: return TB(trigamma_f)(x);
    case 6: return TB(polygamma_f)(x, n);
    default: return TB(bessel_f)(x, which);
    }
}

static TB_TARGET void TB(torch_special_d)(const double *in, double *out, Py_ssize_t count, int which, int n)
{
    for (Py_ssize_t i = 0; i < count; i++) out[i] = TB(torch_one_d)(in[i], which, n);
}

/* i0e and i1e (which 2, 3) in float32, branch-free: both of bessel_f's branches for every
 * element, one selected; chb_f's steps written out (GCC does not unroll 17 to 30 steps itself),
 * the same operations, so the same bits. Neither has an exp, so PyTorch's own float32 i1e loop is
 * its compiler's vector code of the same; so is this where fma is an instruction (the "fma" copy:
 * 8 lanes; "no-trapping-math" lets both sides be evaluated: it changes no value). The square
 * roots are SSE's, by hand, in a pass of their own (GCC 12 keeps sqrtf a call, for errno, whatever
 * the function's options). 1M float32 element by element: i1e ~7.6 ms, i0e ~18 ms. */
#define BESSEL_E_BLOCK 256
/* OUT = chb_f(X, T, N), its steps unrolled */
#define BESSEL_CHB_F(T, N, X, OUT)                                                                 \
    do {                                                                                           \
        float b0_ = __builtin_fmaf(X, T[0], T[1]), b1_ = T[0], b2_ = 0.0f;                          \
        _Pragma("GCC unroll 32") for (int k_ = 2; k_ < N; k_++) {                                   \
            b2_ = b1_;                                                                             \
            b1_ = b0_;                                                                             \
            b0_ = __builtin_fmaf(X, b1_, -b2_) + T[k_];                                            \
        }                                                                                          \
        OUT = 0.5f * (b0_ - b2_);                                                                  \
    } while (0)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("no-trapping-math")
#endif
/* near[j]: the branch for |x| <= 8 (i1e: times |x|); far[j]: the other's numerator */
static TB_TARGET void TB(bessel_e_series)(const float *restrict in, float *restrict near, float *restrict far, int m,
                                          int odd)
{
    if (odd) {
        for (int j = 0; j < m; j++) {
            float x = fabsf(in[j]), y = x / 2.0f - 2.0f, z = 32.0f / x - 2.0f, c;
            BESSEL_CHB_F(TI1A_F, 17, y, c);
            near[j] = c * x;
            BESSEL_CHB_F(TI1B_F, 7, z, far[j]);
        }
    } else {
        for (int j = 0; j < m; j++) {
            float x = fabsf(in[j]), y = x / 2.0f - 2.0f, z = 32.0f / x - 2.0f;
            BESSEL_CHB_F(TI0A_F, 30, y, near[j]);
            BESSEL_CHB_F(TI0B_F, 25, z, far[j]);
        }
    }
}

/* out[j] = the branch |x| selects (far over sqrt |x|); i1e (odd) negated for a negative x */
static TB_TARGET void TB(bessel_e_select)(const float *restrict in, const float *restrict near,
                                          const float *restrict far, const float *restrict root, float *restrict out,
                                          int m, int odd)
{
    for (int j = 0; j < m; j++) {
        float v = in[j], o = fabsf(v) <= 8.0f ? near[j] : far[j] / root[j];
        out[j] = odd && v < 0.0f ? -o : o;
    }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

static TB_TARGET void TB(bessel_e_lanes)(const float *in, float *out, Py_ssize_t count, int odd)
{
    float near[BESSEL_E_BLOCK], far[BESSEL_E_BLOCK], root[BESSEL_E_BLOCK];
    for (Py_ssize_t i = 0; i < count; i += BESSEL_E_BLOCK) {
        int m = count - i < BESSEL_E_BLOCK ? (int)(count - i) : BESSEL_E_BLOCK, j = 0;
        TB(bessel_e_series)(in + i, near, far, m, odd);
#if defined(__SSE2__)
        const __m128 sign = _mm_set1_ps(-0.0f);
        for (; j + 4 <= m; j += 4) _mm_storeu_ps(root + j, _mm_sqrt_ps(_mm_andnot_ps(sign, _mm_loadu_ps(in + i + j))));
#endif
        for (; j < m; j++) root[j] = sqrtf(fabsf(in[i + j]));
        TB(bessel_e_select)(in + i, near, far, root, out + i, m, odd);
    }
}

static TB_TARGET void TB(torch_special_f)(const float *in, float *out, Py_ssize_t count, int which, int n)
{
    if (TB_LANES && (which == 2 || which == 3)) {
        TB(bessel_e_lanes)(in, out, count, which == 3);
        return;
    }
    for (Py_ssize_t i = 0; i < count; i++) out[i] = TB(torch_one_f)(in[i], which, n);
}
