/* SLEEF's log1p of float and double with 1-ulp accuracy (sleefsimdsp.c's xlog1pf, sleefsimddp.c's
 * xlog1p: what ATen's Vectorized<float>::log1p() / Vectorized<double>::log1p() call, Sleef_log1pf16_u10 /
 * Sleef_log1pd8_u10 under the AVX512 capability, the same steps per lane under AVX2), one lane in
 * plain C with every fused step of the vector code a fma / fmaf, and PyTorch's log_sigmoid forward
 * over it (log_sigmoid_cpu_kernel: every element, its tail a partial vector, takes
 * min(x, 0) - log1p(exp(-|x|)) with SLEEF's exp and log1p).
 *
 * xlog1pf's reduction: e = getexp((d + 1) / 0.75) (the exponent of d + 1 over 0.75; its AVX2 form's
 * ilogb gives the same integer for every normal d + 1), t = 2^-e, m = d t + (t - 1) (one fused
 * step: (d + 1) 2^-e - 1 in [-0.25, 0.5)), x = m / (2 + m) in double-float arithmetic,
 * log1p d = e ln 2 + 2x + x^3 P(x^2) (its last steps _sleef_log.h's sleef_log_tail_f / _d). SLEEF's
 * other cases (beyond 1e38 / 1e307 its log, at -1 -inf, below -1 NaN, -0 itself) are not ported:
 * log_sigmoid's argument exp(-|x|) is in [0, 1]. The includer has included <math.h>, <stdint.h>,
 * <string.h>, _sleef_log.h, _sleef_expf.h and _sleef_exp.h. */
#ifndef STRIDED_SLEEF_LOG1P_H
#define STRIDED_SLEEF_LOG1P_H

/* vgetexp of a positive y as a float: floor(log2 y); +inf's 128 (1024 for double), as the vector
 * code sets it */
SLEEF_LOG_INLINE static float sleef_getexp_f(float y)
{
    int ex;
    if (isinf(y)) return 128.0f;
    (void)frexpf(y, &ex);
    return (float)(ex - 1);
}

SLEEF_LOG_INLINE static double sleef_getexp_d(double y)
{
    int ex;
    if (isinf(y)) return 1024.0;
    (void)frexp(y, &ex);
    return (double)(ex - 1);
}

/* xlog1pf's core, one lane, for d > -1 and d <= 1e38 */
SLEEF_LOG_INLINE static float sleef_log1pf_core(float d)
{
    float e = sleef_getexp_f((d + 1.0f) * (1.0f / 0.75f));
    float t = ldexpf(1.0f, -(int)e);  /* (vldexp3: 2^-e exactly, e in [-127, 127] here) */
    float m = fmaf(d, t, t - 1.0f);
    const float l2h = 0.69314718246459960938f, l2l = -1.904654323148236017e-09f;
    float sx = l2h * e;
    sleef_f2 s = {sx, fmaf(l2l, e, fmaf(l2h, e, -sx))};  /* dfmul_vf2_vf2_vf */
    float ds = 2.0f + m;  /* dfadd_vf2_vf_vf(2, m): the fast two-sum, |2| >= |m| */
    sleef_f2 den = {ds, (2.0f - ds) + m}, num = {m, 0.0f};
    sleef_f2 x = sleef_dfdiv(num, den);
    float x2 = x.x * x.x;
    float p = 0.3027294874e+0f;
    p = fmaf(p, x2, 0.3996108174e+0f);
    p = fmaf(p, x2, 0.6666694880e+0f);
    return sleef_log_tail_f(s, x, x2, p);
}

/* xlog1p's core, one lane, for d > -1 and d <= 1e307 (its POLY7 in Estrin's scheme, as _sleef_log.h's) */
SLEEF_LOG_INLINE static double sleef_log1p_core(double d)
{
    double e = sleef_getexp_d((d + 1.0) * (1.0 / 0.75));
    double t = ldexp(1.0, -(int)e);
    double m = fma(d, t, t - 1.0);
    const double l2h = 0.693147180559945286226764, l2l = 2.319046813846299558417771e-17;
    double sx = l2h * e;
    sleef_d2 s = {sx, fma(l2l, e, fma(l2h, e, -sx))};
    double ds = 2.0 + m;
    sleef_d2 den = {ds, (2.0 - ds) + m}, num = {m, 0.0};
    sleef_d2 x = sleef_dddiv(num, den);
    double x2 = x.x * x.x, x4 = x2 * x2, x8 = x4 * x4;
    double p3 = fma(x4, 0.1532076988502701353e+0, fma(x2, 0.1525629051003428716e+0, 0.1818605932937785996e+0));
    double p4 = fma(x4, fma(x2, 0.2222214519839380009e+0, 0.2857142932794299317e+0),
                    fma(x2, 0.3999999999635251990e+0, 0.6666666666667333541e+0));
    double p = fma(x8, p3, p4);
    return sleef_log_tail_d(s, x, x2, p);
}

/* PyTorch's log_sigmoid of one float32 / float64 lane: vec::minimum(x, 0) (a NaN x: the all-ones
 * word, _mm512_min_ps's answer or-ed with the unordered mask, which the subtraction keeps: its first
 * operand's NaN), SLEEF's exp of -|x| (in [0, 1]: log1p's core, its -0 case never met), the
 * difference. */
#define SLEEF_ALL_ONES_F 0xFFFFFFFFu
#define SLEEF_ALL_ONES_D 0xFFFFFFFFFFFFFFFFull

SLEEF_LOG_INLINE static float sleef_log_sigmoid_f(float v)
{
    if (v != v) {
        uint32_t b = SLEEF_ALL_ONES_F;
        float r;
        memcpy(&r, &b, sizeof r);
        return r;
    }
    float lo = v < 0.0f ? v : 0.0f;  /* (_mm512_min_ps(v, 0): +0 for either zero) */
    return lo - sleef_log1pf_core(sleef_expf(-fabsf(v)));
}

SLEEF_LOG_INLINE static double sleef_log_sigmoid_d(double v)
{
    if (v != v) {
        uint64_t b = SLEEF_ALL_ONES_D;
        double r;
        memcpy(&r, &b, sizeof r);
        return r;
    }
    double lo = v < 0.0 ? v : 0.0;
    return lo - sleef_log1p_core(sleef_exp(-fabs(v)));
}

#if defined(__GNUC__) && defined(__x86_64__)
/* xlog1pf's AVX-512 core, sixteen lanes, for d in [0, 1] (log_sigmoid's exp(-|x|)): vgetexp,
 * vcvtps2dq and vldexp3's exponent addition, then the steps of sleef_log1pf_core */
__attribute__((target("avx512f"))) static __m512 sleef_log1pf16_unit(__m512 d)
{
    const __m512 one = _mm512_set1_ps(1.0f), two = _mm512_set1_ps(2.0f);
    __m512 e = _mm512_getexp_ps(_mm512_mul_ps(_mm512_add_ps(d, one), _mm512_set1_ps(1.0f / 0.75f)));
    __m512i q = _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_cvtps_epi32(e));
    __m512 t = _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(one), _mm512_slli_epi32(q, 23)));
    __m512 m = _mm512_fmadd_ps(d, t, _mm512_sub_ps(t, one));
    const __m512 l2h = _mm512_set1_ps(0.69314718246459960938f), l2l = _mm512_set1_ps(-1.904654323148236017e-09f);
    __m512 sx = _mm512_mul_ps(l2h, e);
    __m512 sy = _mm512_fmadd_ps(l2l, e, _mm512_fmsub_ps(l2h, e, sx));
    __m512 dx = _mm512_add_ps(two, m), dy = _mm512_add_ps(_mm512_sub_ps(two, dx), m);
    __m512 r = _mm512_div_ps(one, dx), xx = _mm512_mul_ps(m, r);  /* dfdiv((m, 0), (dx, dy)) */
    __m512 u = _mm512_fmsub_ps(r, m, xx);
    __m512 v = _mm512_fnmadd_ps(dy, r, _mm512_fnmadd_ps(dx, r, one));
    __m512 xy = _mm512_fmadd_ps(xx, v, _mm512_fmadd_ps(_mm512_setzero_ps(), r, u));
    __m512 x2 = _mm512_mul_ps(xx, xx);
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(0.3027294874e+0f), x2, _mm512_set1_ps(0.3996108174e+0f));
    p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(0.6666694880e+0f));
    __m512 yx = _mm512_mul_ps(xx, two), yy = _mm512_mul_ps(xy, two), sum = _mm512_add_ps(sx, yx);
    sy = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(sx, sum), yx), sy), yy);
    sx = sum;
    __m512 w = _mm512_mul_ps(_mm512_mul_ps(x2, xx), p);
    sum = _mm512_add_ps(sx, w);
    sy = _mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(sx, sum), w), sy);
    return _mm512_add_ps(sum, sy);
}

/* sleef_log1pf16_unit in eight lanes (AVX2 with FMA), for d in (-1, 1e38] (then (d + 1) / 0.75 is a
 * positive normal float, whose getexp is its biased exponent less 127: AVX2 has no vgetexp); the
 * same steps, the same bits. A lane outside that range answers garbage: the callers redo it. */
__attribute__((target("avx2,fma"), unused)) static __m256 sleef_log1pf8_unit(__m256 d)
{
    const __m256 one = _mm256_set1_ps(1.0f), two = _mm256_set1_ps(2.0f);
    __m256i yb = _mm256_castps_si256(_mm256_mul_ps(_mm256_add_ps(d, one), _mm256_set1_ps(1.0f / 0.75f)));
    __m256i ei = _mm256_sub_epi32(_mm256_srli_epi32(yb, 23), _mm256_set1_epi32(127));
    __m256 e = _mm256_cvtepi32_ps(ei);
    __m256i q = _mm256_sub_epi32(_mm256_setzero_si256(), ei);
    __m256 t = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(one), _mm256_slli_epi32(q, 23)));
    __m256 m = _mm256_fmadd_ps(d, t, _mm256_sub_ps(t, one));
    const __m256 l2h = _mm256_set1_ps(0.69314718246459960938f), l2l = _mm256_set1_ps(-1.904654323148236017e-09f);
    __m256 sx = _mm256_mul_ps(l2h, e);
    __m256 sy = _mm256_fmadd_ps(l2l, e, _mm256_fmsub_ps(l2h, e, sx));
    __m256 dx = _mm256_add_ps(two, m), dy = _mm256_add_ps(_mm256_sub_ps(two, dx), m);
    __m256 r = _mm256_div_ps(one, dx), xx = _mm256_mul_ps(m, r);  /* dfdiv((m, 0), (dx, dy)) */
    __m256 u = _mm256_fmsub_ps(r, m, xx);
    __m256 v = _mm256_fnmadd_ps(dy, r, _mm256_fnmadd_ps(dx, r, one));
    __m256 xy = _mm256_fmadd_ps(xx, v, _mm256_fmadd_ps(_mm256_setzero_ps(), r, u));
    __m256 x2 = _mm256_mul_ps(xx, xx);
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(0.3027294874e+0f), x2, _mm256_set1_ps(0.3996108174e+0f));
    p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(0.6666694880e+0f));
    __m256 yx = _mm256_mul_ps(xx, two), yy = _mm256_mul_ps(xy, two), sum = _mm256_add_ps(sx, yx);
    sy = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_sub_ps(sx, sum), yx), sy), yy);
    sx = sum;
    __m256 w = _mm256_mul_ps(_mm256_mul_ps(x2, xx), p);
    sum = _mm256_add_ps(sx, w);
    sy = _mm256_add_ps(_mm256_add_ps(_mm256_sub_ps(sx, sum), w), sy);
    return _mm256_add_ps(sum, sy);
}

#ifndef SLEEF_LOG1P_CORE_ONLY  /* (log_sigmoid's lanes and loops: unused static functions in _sleefkernel.c, whose softplus takes the cores alone) */
/* log_sigmoid of sixteen float32 lanes: sleef_log_sigmoid_f's steps */
__attribute__((target("avx512f"))) static __m512 sleef_log_sigmoid16(__m512 v)
{
    const __m512 zero = _mm512_setzero_ps();
    __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    __m512 lo = _mm512_min_ps(v, zero);
    __m512 a = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7FFFFFFF)));
    __m512 r = _mm512_sub_ps(lo, sleef_log1pf16_unit(sleef_expf16(_mm512_sub_ps(zero, a))));
    return _mm512_mask_mov_ps(r, nan, _mm512_castsi512_ps(_mm512_set1_epi32(-1)));
}

/* log_sigmoid of eight float32 lanes (AVX2 with FMA): sleef_log_sigmoid_f's steps, the same bits
 * (vminps(v, 0) as its selection, -|v| a sign flip as its negation, a NaN lane the all-ones word) */
__attribute__((target("avx2,fma"))) static __m256 sleef_log_sigmoid8f(__m256 v)
{
    const __m256 sign = _mm256_set1_ps(-0.0f);
    __m256 nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
    __m256 lo = _mm256_min_ps(v, _mm256_setzero_ps());
    __m256 r = _mm256_sub_ps(lo, sleef_log1pf8_unit(sleef_expf8(_mm256_or_ps(sign, v))));
    return _mm256_or_ps(r, nan);
}

/* log_sigmoid_f32_wide in eight lanes: whole vectors, then the tail as one vector over a padded copy */
__attribute__((target("avx2,fma"))) static void log_sigmoid_f32_avx2(const float *x, float *out, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    for (; i + 16 <= n; i += 16) {  /* (two independent chains an iteration) */
        __m256 u = sleef_log_sigmoid8f(_mm256_loadu_ps(x + i)), w = sleef_log_sigmoid8f(_mm256_loadu_ps(x + i + 8));
        _mm256_storeu_ps(out + i, u);
        _mm256_storeu_ps(out + i + 8, w);
    }
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, sleef_log_sigmoid8f(_mm256_loadu_ps(x + i)));
    if (i < n) {
        float buf[8] = {0};
        memcpy(buf, x + i, (size_t)(n - i) * sizeof(float));
        _mm256_storeu_ps(buf, sleef_log_sigmoid8f(_mm256_loadu_ps(buf)));
        memcpy(out + i, buf, (size_t)(n - i) * sizeof(float));
    }
}

#endif  /* SLEEF_LOG1P_CORE_ONLY */

/* xlog1p's AVX-512 core, eight lanes, for d in [0, 1] */
__attribute__((target("avx512f"))) static __m512d sleef_log1p8_unit(__m512d d)
{
    const __m512d one = _mm512_set1_pd(1.0), two = _mm512_set1_pd(2.0);
    __m512d e = _mm512_getexp_pd(_mm512_mul_pd(_mm512_add_pd(d, one), _mm512_set1_pd(1.0 / 0.75)));
    __m512i q = _mm512_sub_epi64(_mm512_setzero_si512(), _mm512_cvtepi32_epi64(_mm512_cvtpd_epi32(e)));
    __m512d t = _mm512_castsi512_pd(_mm512_add_epi64(_mm512_castpd_si512(one), _mm512_slli_epi64(q, 52)));
    __m512d m = _mm512_fmadd_pd(d, t, _mm512_sub_pd(t, one));
    const __m512d l2h = _mm512_set1_pd(0.693147180559945286226764), l2l = _mm512_set1_pd(2.319046813846299558417771e-17);
    __m512d sx = _mm512_mul_pd(l2h, e);
    __m512d sy = _mm512_fmadd_pd(l2l, e, _mm512_fmsub_pd(l2h, e, sx));
    __m512d dx = _mm512_add_pd(two, m), dy = _mm512_add_pd(_mm512_sub_pd(two, dx), m);
    __m512d r = _mm512_div_pd(one, dx), xx = _mm512_mul_pd(m, r);
    __m512d u = _mm512_fmsub_pd(r, m, xx);
    __m512d v = _mm512_fnmadd_pd(dy, r, _mm512_fnmadd_pd(dx, r, one));
    __m512d xy = _mm512_fmadd_pd(xx, v, _mm512_fmadd_pd(_mm512_setzero_pd(), r, u));
    __m512d x2 = _mm512_mul_pd(xx, xx), x4 = _mm512_mul_pd(x2, x2), x8 = _mm512_mul_pd(x4, x4);
    __m512d p3 = _mm512_fmadd_pd(x4, _mm512_set1_pd(0.1532076988502701353e+0),
                                 _mm512_fmadd_pd(x2, _mm512_set1_pd(0.1525629051003428716e+0), _mm512_set1_pd(0.1818605932937785996e+0)));
    __m512d p4 = _mm512_fmadd_pd(x4, _mm512_fmadd_pd(x2, _mm512_set1_pd(0.2222214519839380009e+0), _mm512_set1_pd(0.2857142932794299317e+0)),
                                 _mm512_fmadd_pd(x2, _mm512_set1_pd(0.3999999999635251990e+0), _mm512_set1_pd(0.6666666666667333541e+0)));
    __m512d p = _mm512_fmadd_pd(x8, p3, p4);
    __m512d yx = _mm512_mul_pd(xx, two), yy = _mm512_mul_pd(xy, two), sum = _mm512_add_pd(sx, yx);
    sy = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(_mm512_sub_pd(sx, sum), yx), sy), yy);
    sx = sum;
    __m512d w = _mm512_mul_pd(_mm512_mul_pd(x2, xx), p);
    sum = _mm512_add_pd(sx, w);
    sy = _mm512_add_pd(_mm512_add_pd(_mm512_sub_pd(sx, sum), w), sy);
    return _mm512_add_pd(sum, sy);
}

/* sleef_log1p8_unit in four lanes (AVX2 with FMA), for d in (-1, 1e307] (then (d + 1) / 0.75 is a
 * positive normal double, whose getexp is its biased exponent less 1023: AVX2 has no vgetexp); the
 * same steps, the same bits. A lane outside that range answers garbage: the callers redo it. */
__attribute__((target("avx2,fma"), unused)) static __m256d sleef_log1p4_unit(__m256d d)
{
    const __m256d one = _mm256_set1_pd(1.0), two = _mm256_set1_pd(2.0);
    __m256i yb = _mm256_castpd_si256(_mm256_mul_pd(_mm256_add_pd(d, one), _mm256_set1_pd(1.0 / 0.75)));
    __m256i ei = _mm256_sub_epi64(_mm256_srli_epi64(yb, 52), _mm256_set1_epi64x(1023));
    __m256d e = _mm256_cvtepi32_pd(_mm256_castsi256_si128(_mm256_permutevar8x32_epi32(ei, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6))));
    __m256i q = _mm256_sub_epi64(_mm256_setzero_si256(), ei);
    __m256d t = _mm256_castsi256_pd(_mm256_add_epi64(_mm256_castpd_si256(one), _mm256_slli_epi64(q, 52)));
    __m256d m = _mm256_fmadd_pd(d, t, _mm256_sub_pd(t, one));
    const __m256d l2h = _mm256_set1_pd(0.693147180559945286226764), l2l = _mm256_set1_pd(2.319046813846299558417771e-17);
    __m256d sx = _mm256_mul_pd(l2h, e);
    __m256d sy = _mm256_fmadd_pd(l2l, e, _mm256_fmsub_pd(l2h, e, sx));
    __m256d dx = _mm256_add_pd(two, m), dy = _mm256_add_pd(_mm256_sub_pd(two, dx), m);
    __m256d r = _mm256_div_pd(one, dx), xx = _mm256_mul_pd(m, r);
    __m256d u = _mm256_fmsub_pd(r, m, xx);
    __m256d v = _mm256_fnmadd_pd(dy, r, _mm256_fnmadd_pd(dx, r, one));
    __m256d xy = _mm256_fmadd_pd(xx, v, _mm256_fmadd_pd(_mm256_setzero_pd(), r, u));
    __m256d x2 = _mm256_mul_pd(xx, xx), x4 = _mm256_mul_pd(x2, x2), x8 = _mm256_mul_pd(x4, x4);
    __m256d p3 = _mm256_fmadd_pd(x4, _mm256_set1_pd(0.1532076988502701353e+0),
                                 _mm256_fmadd_pd(x2, _mm256_set1_pd(0.1525629051003428716e+0), _mm256_set1_pd(0.1818605932937785996e+0)));
    __m256d p4 = _mm256_fmadd_pd(x4, _mm256_fmadd_pd(x2, _mm256_set1_pd(0.2222214519839380009e+0), _mm256_set1_pd(0.2857142932794299317e+0)),
                                 _mm256_fmadd_pd(x2, _mm256_set1_pd(0.3999999999635251990e+0), _mm256_set1_pd(0.6666666666667333541e+0)));
    __m256d p = _mm256_fmadd_pd(x8, p3, p4);
    __m256d yx = _mm256_mul_pd(xx, two), yy = _mm256_mul_pd(xy, two), sum = _mm256_add_pd(sx, yx);
    sy = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_sub_pd(sx, sum), yx), sy), yy);
    sx = sum;
    __m256d w = _mm256_mul_pd(_mm256_mul_pd(x2, xx), p);
    sum = _mm256_add_pd(sx, w);
    sy = _mm256_add_pd(_mm256_add_pd(_mm256_sub_pd(sx, sum), w), sy);
    return _mm256_add_pd(sum, sy);
}

#ifndef SLEEF_LOG1P_CORE_ONLY  /* (log_sigmoid's lanes and loops: unused static functions in _sleefkernel.c, whose softplus takes the cores alone) */
__attribute__((target("avx512f"))) static __m512d sleef_log_sigmoid8(__m512d v)
{
    const __m512d zero = _mm512_setzero_pd();
    __mmask8 nan = _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q);
    __m512d lo = _mm512_min_pd(v, zero);
    __m512d a = _mm512_castsi512_pd(_mm512_and_si512(_mm512_castpd_si512(v), _mm512_set1_epi64(0x7FFFFFFFFFFFFFFFll)));
    __m512d r = _mm512_sub_pd(lo, sleef_log1p8_unit(sleef_exp8(_mm512_sub_pd(zero, a))));
    return _mm512_mask_mov_pd(r, nan, _mm512_castsi512_pd(_mm512_set1_epi64(-1)));
}

/* the loops' AVX-512 forms: whole vectors, then the tail as one masked vector */
__attribute__((target("avx512f"))) static void log_sigmoid_f32_wide(const float *x, float *out, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, sleef_log_sigmoid16(_mm512_loadu_ps(x + i)));
    if (i < n) {
        __mmask16 k = (__mmask16)((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(out + i, k, sleef_log_sigmoid16(_mm512_maskz_loadu_ps(k, x + i)));
    }
}

__attribute__((target("avx512f"))) static void log_sigmoid_f64_wide(const double *x, double *out, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) _mm512_storeu_pd(out + i, sleef_log_sigmoid8(_mm512_loadu_pd(x + i)));
    if (i < n) {
        __mmask8 k = (__mmask8)((1u << (n - i)) - 1);
        _mm512_mask_storeu_pd(out + i, k, sleef_log_sigmoid8(_mm512_maskz_loadu_pd(k, x + i)));
    }
}
#endif  /* SLEEF_LOG1P_CORE_ONLY */
#endif

#ifndef SLEEF_LOG1P_CORE_ONLY  /* (log_sigmoid's lanes and loops: unused static functions in _sleefkernel.c, whose softplus takes the cores alone) */
/* the one-lane loops (the tests' other form; a CPU without AVX-512F), an FMA clone where the CPU
 * has FMA (the steps' fmaf / fma one instruction each; the C library's exact software routine
 * otherwise: the same bits) */
SLEEF_LOG_CLONES static void log_sigmoid_f32(const float *x, float *out, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) out[i] = sleef_log_sigmoid_f(x[i]);
}

SLEEF_LOG_CLONES static void log_sigmoid_f64(const double *x, double *out, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) out[i] = sleef_log_sigmoid_d(x[i]);
}

#endif  /* SLEEF_LOG1P_CORE_ONLY */

#endif
