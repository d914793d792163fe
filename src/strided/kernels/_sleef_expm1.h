/* SLEEF's expm1f (sleefsimdsp.c's xexpm1f, what ATen's Vectorized<float>::expm1() calls: Sleef_expm1f16_u10
 * under the AVX512 capability, Sleef_expm1f8_u10 under AVX2, the same steps per lane with every vmla a
 * fused multiply-add and df.h's ENABLE_FMA_SP double-float products): one lane in plain C (fmaf; the
 * build's -ffp-contract=off keeps every other step unfused, as the lanes'). expk2f(a + 0) in double-float
 * arithmetic, q = rint(a / ln 2) (round to nearest even, as cvtps2dq; out of int range: INT32_MIN, the
 * instruction's "integer indefinite"), s = a - q ln 2 in two double-float steps, a degree-3 polynomial
 * in three fused steps and two double-float Horner steps, 1 + s + s^2 t, times 2^q as two halves
 * (vldexp2), then that minus 1 in double-float and the pair summed; a > 88.72283 gives +inf,
 * a < -16.635532 gives -1, -0 gives -0, NaN a NaN. The includer has included <math.h>, <stdint.h>
 * and <string.h>, and defined sleef_pow2i (_sleef_expf.h). */
#ifndef STRIDED_SLEEF_EXPM1_H
#define STRIDED_SLEEF_EXPM1_H
#include <stddef.h>

/* the steps inlined into blocks cloned for FMA (fmaf then one instruction, not a call: a tenth of the
 * time) and for the default target; the same bits either way */
#if defined(__GNUC__) && defined(__x86_64__)
#define EM_INLINE inline __attribute__((always_inline))
#define EM_CLONES __attribute__((target_clones("fma", "default")))
#else
#define EM_INLINE inline
#define EM_CLONES
/* n lanes of each (x and o may be one buffer: each element is read before it is written) */
EM_CLONES static void sleef_expm1f_block(const float *x, float *o, ptrdiff_t n)
{
    for (ptrdiff_t i = 0; i < n; i++) o[i] = sleef_expm1f(x[i]);
}

EM_CLONES static void sleef_expm1_block(const double *x, double *o, ptrdiff_t n)
{
    for (ptrdiff_t i = 0; i < n; i++) o[i] = sleef_expm1(x[i]);
}

#endif

typedef struct {
    float x, y;
} em_f2;

static EM_INLINE em_f2 em_f2_make(float x, float y)
{
    em_f2 r = {x, y};
    return r;
}

/* df.h's dfadd2_vf2_vf2_vf */
static EM_INLINE em_f2 em_add2_f2f(em_f2 x, float y)
{
    float s = x.x + y, v = s - x.x;
    float t = (x.x - (s - v)) + (y - v);
    return em_f2_make(s, t + x.y);
}

/* dfadd2_vf2_vf2_vf2 */
static EM_INLINE em_f2 em_add2_f2f2(em_f2 x, em_f2 y)
{
    float s = x.x + y.x, v = s - x.x;
    float t = (x.x - (s - v)) + (y.x - v);
    return em_f2_make(s, t + (x.y + y.y));
}

/* dfadd_vf2_vf_vf2 (|x| >= |y|) */
static EM_INLINE em_f2 em_add_ff2(float x, em_f2 y)
{
    float s = x + y.x;
    return em_f2_make(s, ((x - s) + y.x) + y.y);
}

/* dfmul_vf2_vf2_vf (ENABLE_FMA_SP: vfmapn is x*y - z, fused) */
static EM_INLINE em_f2 em_mul_f2f(em_f2 x, float y)
{
    float s = x.x * y;
    return em_f2_make(s, fmaf(x.y, y, fmaf(x.x, y, -s)));
}

/* dfmul_vf2_vf2_vf2 */
static EM_INLINE em_f2 em_mul_f2f2(em_f2 x, em_f2 y)
{
    float s = x.x * y.x;
    return em_f2_make(s, fmaf(x.x, y.y, fmaf(x.y, y.x, fmaf(x.x, y.x, -s))));
}

/* dfsqu_vf2_vf2 */
static EM_INLINE em_f2 em_squ(em_f2 x)
{
    float s = x.x * x.x;
    return em_f2_make(s, fmaf(x.x + x.x, x.y, fmaf(x.x, x.x, -s)));
}

/* vrint_vi2_vf: cvtps2dq (nearest even; NaN or out of range: INT32_MIN) */
static EM_INLINE int32_t em_rint(float u)
{
    if (!(fabsf(u) < 2147483648.0f)) return INT32_MIN;
    return (int32_t)nearbyintf(u);
}

/* vldexp2_vf_vf_vi2: d * 2^(q >> 1) * 2^(q - (q >> 1)) */
static EM_INLINE float em_ldexp2(float d, int32_t q)
{
    int32_t h = q >> 1;
    return d * sleef_pow2i(h) * sleef_pow2i(q - h);
}

static EM_INLINE float sleef_expm1f(float a)
{
    if (a != a) return a + a;  /* (the lanes carry a's NaN through every step, quieted) */
    if (a > 88.72283172607421875f) return INFINITY;
    if (a < -16.635532333438687426013570f) return -1.0f;
    if (a == 0.0f && signbit(a)) return -0.0f;
    /* expk2f(a, 0); a lies in [-16.6, 88.8] here, so q fits and d.x >= -104 */
    float u = (a + 0.0f) * 1.442695040888963407359924681001892137426645954152985934135449406931f;
    int32_t q = em_rint(u);
    float qf = (float)q;
    em_f2 s = em_add2_f2f(em_f2_make(a, 0.0f), qf * -0.693145751953125f);
    s = em_add2_f2f(s, qf * -1.428606765330187045e-06f);
    u = 0.1980960224e-3f;
    u = fmaf(u, s.x, 0.1394256484e-2f);
    u = fmaf(u, s.x, 0.8333456703e-2f);
    u = fmaf(u, s.x, 0.4166637361e-1f);
    em_f2 t = em_add2_f2f(em_mul_f2f(s, u), 0.166666659414234244790680580464e+0f);
    t = em_add2_f2f(em_mul_f2f2(s, t), 0.5f);
    t = em_add2_f2f2(s, em_mul_f2f2(em_squ(s), t));
    t = em_add_ff2(1.0f, t);
    t.x = em_ldexp2(t.x, q);
    t.y = em_ldexp2(t.y, q);
    em_f2 d = em_add2_f2f(t, -1.0f);
    return d.x + d.y;
}

/* the double ones: sleefsimddp.c's xexpm1 (expk2 in double-double arithmetic, dd.h's ENABLE_FMA_DP
 * forms), Vectorized<double>::expm1(): Sleef_expm1d8_u10 under AVX512, Sleef_expm1d4_u10 under AVX2.
 * q = rint(a / ln 2) as a double (dq) and as an int, s = a - dq ln 2 in two double-double steps, a
 * degree-9 polynomial u by Estrin's scheme (SLEEF 3.6's POLY10), 1 + s(1 + s(1/2 + s/6)) in three
 * double-double Horner steps plus s^4 u, times 2^q as two halves, minus 1 in double-double; a > 709.78271 gives +inf, a < -36.7368 gives -1, -0 -0.
 * The includer has included _sleef_exp.h (SLEEF_R_LN2, SLEEF_L2U, SLEEF_L2L, sleef_pow2i_d). */
typedef struct {
    double x, y;
} em_d2;

static EM_INLINE em_d2 em_d2_make(double x, double y)
{
    em_d2 r = {x, y};
    return r;
}

static EM_INLINE em_d2 em_add2_d2d(em_d2 x, double y)
{
    double s = x.x + y, v = s - x.x;
    double t = (x.x - (s - v)) + (y - v);
    return em_d2_make(s, t + x.y);
}

/* ddadd_vd2_vd_vd2 (|x| >= |y|) */
static EM_INLINE em_d2 em_add_dd2(double x, em_d2 y)
{
    double s = x + y.x;
    return em_d2_make(s, ((x - s) + y.x) + y.y);
}

/* dd.h's ddadd_vd2_vd2_vd2 (|x| >= |y|) */
static EM_INLINE em_d2 em_add_d2d2(em_d2 x, em_d2 y)
{
    double s = x.x + y.x;
    return em_d2_make(s, (((x.x - s) + y.x) + x.y) + y.y);
}

static EM_INLINE em_d2 em_mul_d2d(em_d2 x, double y)
{
    double s = x.x * y;
    return em_d2_make(s, fma(x.y, y, fma(x.x, y, -s)));
}

static EM_INLINE em_d2 em_mul_d2d2(em_d2 x, em_d2 y)
{
    double s = x.x * y.x;
    return em_d2_make(s, fma(x.x, y.y, fma(x.y, y.x, fma(x.x, y.x, -s))));
}

static EM_INLINE em_d2 em_squ_d(em_d2 x)
{
    double s = x.x * x.x;
    return em_d2_make(s, fma(x.x + x.x, x.y, fma(x.x, x.x, -s)));
}

static EM_INLINE double em_ldexp2_d(double d, int32_t q)
{
    int32_t h = q >> 1;
    return d * sleef_pow2i_d(h) * sleef_pow2i_d(q - h);
}

static EM_INLINE double sleef_expm1(double a)
{
    if (a != a) return a + a;
    if (a > 709.782712893383996732223) return INFINITY;
    if (a < -36.736800569677101399113302437) return -1.0;
    if (a == 0.0 && signbit(a)) return -0.0;
    double u = (a + 0.0) * SLEEF_R_LN2;
    double dq = nearbyint(u);  /* (vrint_vd_vd: nearest even; |dq| <= 1025 here) */
    int32_t q = (int32_t)dq;
    em_d2 s = em_add2_d2d(em_d2_make(a, 0.0), dq * -SLEEF_L2U);
    s = em_add2_d2d(s, dq * -SLEEF_L2L);
    /* the polynomial by Estrin's scheme (POLY10 over s, s^2, s^4, s^8: each pair a fused step) */
    em_d2 s2 = em_squ_d(s), s4 = em_squ_d(s2);
    double s8 = s4.x * s4.x;
    double hi = fma(s.x, +0.1602472219709932072e-9, +0.2092255183563157007e-8);
    double mid = fma(s2.x, fma(s.x, +0.2505230023782644465e-7, +0.2755724800902135303e-6),
                     fma(s.x, +0.2755731892386044373e-5, +0.2480158735605815065e-4));
    double lo = fma(s2.x, fma(s.x, +0.1984126984148071858e-3, +0.1388888888886763255e-2),
                    fma(s.x, +0.8333333333333347095e-2, +0.4166666666666669905e-1));
    u = fma(s8, hi, fma(s4.x, mid, lo));
    em_d2 t = em_add_dd2(0.5, em_mul_d2d(s, +0.1666666666666666574e+0));
    t = em_add_dd2(1.0, em_mul_d2d2(t, s));
    t = em_add_dd2(1.0, em_mul_d2d2(t, s));
    t = em_add_d2d2(t, em_mul_d2d(s4, u));
    t.x = em_ldexp2_d(t.x, q);
    t.y = em_ldexp2_d(t.y, q);
    em_d2 d = em_add2_d2d(t, -1.0);
    return d.x + d.y;
}

/* n lanes of each (x and o may be one buffer: each element is read before it is written) */
EM_CLONES static void sleef_expm1f_block(const float *x, float *o, ptrdiff_t n)
{
    for (ptrdiff_t i = 0; i < n; i++) o[i] = sleef_expm1f(x[i]);
}

EM_CLONES static void sleef_expm1_block(const double *x, double *o, ptrdiff_t n)
{
    for (ptrdiff_t i = 0; i < n; i++) o[i] = sleef_expm1(x[i]);
}

#if defined(__GNUC__) && defined(__x86_64__)
/* The same steps sixteen (float) and eight (double) lanes at a time (AVX-512F): what SLEEF's
 * Sleef_expm1f16_u10 / Sleef_expm1d8_u10 compute, lane for lane the one-lane forms' bits (every
 * special input is selected at the end, as the lanes select it). The includer has included
 * <immintrin.h> and _sleef_exp.h (sleef_exp8_pow2i). */
#define EM_AVX512 __attribute__((target("avx512f"), always_inline)) static inline
typedef struct {
    __m512 x, y;
} em_v2;
typedef struct {
    __m512d x, y;
} em_w2;

EM_AVX512 em_v2 emv(__m512 x, __m512 y)
{
    em_v2 r = {x, y};
    return r;
}
EM_AVX512 em_v2 emv_add2_f2f(em_v2 x, __m512 y)
{
    __m512 s = _mm512_add_ps(x.x, y), v = _mm512_sub_ps(s, x.x);
    __m512 t = _mm512_add_ps(_mm512_sub_ps(x.x, _mm512_sub_ps(s, v)), _mm512_sub_ps(y, v));
    return emv(s, _mm512_add_ps(t, x.y));
}
EM_AVX512 em_v2 emv_add2_f2f2(em_v2 x, em_v2 y)
{
    __m512 s = _mm512_add_ps(x.x, y.x), v = _mm512_sub_ps(s, x.x);
    __m512 t = _mm512_add_ps(_mm512_sub_ps(x.x, _mm512_sub_ps(s, v)), _mm512_sub_ps(y.x, v));
    return emv(s, _mm512_add_ps(t, _mm512_add_ps(x.y, y.y)));
}
EM_AVX512 em_v2 emv_add_ff2(__m512 x, em_v2 y)
{
    __m512 s = _mm512_add_ps(x, y.x);
    return emv(s, _mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(x, s), y.x), y.y));
}
EM_AVX512 em_v2 emv_mul_f2f(em_v2 x, __m512 y)
{
    __m512 s = _mm512_mul_ps(x.x, y);
    return emv(s, _mm512_fmadd_ps(x.y, y, _mm512_fmsub_ps(x.x, y, s)));
}
EM_AVX512 em_v2 emv_mul_f2f2(em_v2 x, em_v2 y)
{
    __m512 s = _mm512_mul_ps(x.x, y.x);
    return emv(s, _mm512_fmadd_ps(x.x, y.y, _mm512_fmadd_ps(x.y, y.x, _mm512_fmsub_ps(x.x, y.x, s))));
}
EM_AVX512 em_v2 emv_squ(em_v2 x)
{
    __m512 s = _mm512_mul_ps(x.x, x.x);
    return emv(s, _mm512_fmadd_ps(_mm512_add_ps(x.x, x.x), x.y, _mm512_fmsub_ps(x.x, x.x, s)));
}
EM_AVX512 __m512 emv_pow2i(__m512i q)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(q, _mm512_set1_epi32(0x7f)), 23));
}
EM_AVX512 __m512 emv_ldexp2(__m512 d, __m512i q)
{
    __m512i h = _mm512_srai_epi32(q, 1);
    return _mm512_mul_ps(_mm512_mul_ps(d, emv_pow2i(h)), emv_pow2i(_mm512_sub_epi32(q, h)));
}

/* special lanes: +inf above hi, -1 below lo, -0 at -0, a + a (a quieted) at NaN */
#define EM_SPECIALS(sfx, T, M, cmp, a, x, hi, lo, signbits, test)                                          \
    do {                                                                                                \
        x = _mm512_mask_mov_##sfx(x, cmp(_mm512_set1_##sfx(hi), a, _CMP_LT_OQ), _mm512_set1_##sfx(INFINITY)); \
        x = _mm512_mask_mov_##sfx(x, cmp(a, _mm512_set1_##sfx(lo), _CMP_LT_OQ), _mm512_set1_##sfx(-1.0)); \
        M negz = cmp(a, _mm512_setzero_##sfx(), _CMP_EQ_OQ) & test(_mm512_cast##sfx##_si512(a), signbits); \
        x = _mm512_mask_mov_##sfx(x, negz, a);                                                          \
        x = _mm512_mask_add_##sfx(x, cmp(a, a, _CMP_UNORD_Q), a, a);                                     \
    } while (0)

__attribute__((target("avx512f"))) static __m512 sleef_expm1f16(__m512 a)
{
    __m512 u = _mm512_mul_ps(_mm512_add_ps(a, _mm512_setzero_ps()),
                             _mm512_set1_ps(1.442695040888963407359924681001892137426645954152985934135449406931f));
    __m512i q = _mm512_cvtps_epi32(u);
    __m512 qf = _mm512_cvtepi32_ps(q);
    em_v2 s = emv_add2_f2f(emv(a, _mm512_setzero_ps()), _mm512_mul_ps(qf, _mm512_set1_ps(-0.693145751953125f)));
    s = emv_add2_f2f(s, _mm512_mul_ps(qf, _mm512_set1_ps(-1.428606765330187045e-06f)));
    u = _mm512_set1_ps(0.1980960224e-3f);
    u = _mm512_fmadd_ps(u, s.x, _mm512_set1_ps(0.1394256484e-2f));
    u = _mm512_fmadd_ps(u, s.x, _mm512_set1_ps(0.8333456703e-2f));
    u = _mm512_fmadd_ps(u, s.x, _mm512_set1_ps(0.4166637361e-1f));
    em_v2 t = emv_add2_f2f(emv_mul_f2f(s, u), _mm512_set1_ps(0.166666659414234244790680580464e+0f));
    t = emv_add2_f2f(emv_mul_f2f2(s, t), _mm512_set1_ps(0.5f));
    t = emv_add2_f2f2(s, emv_mul_f2f2(emv_squ(s), t));
    t = emv_add_ff2(_mm512_set1_ps(1.0f), t);
    t = emv(emv_ldexp2(t.x, q), emv_ldexp2(t.y, q));
    em_v2 d = emv_add2_f2f(t, _mm512_set1_ps(-1.0f));
    __m512 x = _mm512_add_ps(d.x, d.y);
    EM_SPECIALS(ps, float, __mmask16, _mm512_cmp_ps_mask, a, x, 88.72283172607421875f, -16.635532333438687426013570f,
                _mm512_set1_epi32((int)0x80000000), _mm512_test_epi32_mask);
    return x;
}

EM_AVX512 em_w2 emw(__m512d x, __m512d y)
{
    em_w2 r = {x, y};
    return r;
}
EM_AVX512 em_w2 emw_add2_d2d(em_w2 x, __m512d y)
{
    __m512d s = _mm512_add_pd(x.x, y), v = _mm512_sub_pd(s, x.x);
    __m512d t = _mm512_add_pd(_mm512_sub_pd(x.x, _mm512_sub_pd(s, v)), _mm512_sub_pd(y, v));
    return emw(s, _mm512_add_pd(t, x.y));
}
EM_AVX512 em_w2 emw_add_dd2(__m512d x, em_w2 y)
{
    __m512d s = _mm512_add_pd(x, y.x);
    return emw(s, _mm512_add_pd(_mm512_add_pd(_mm512_sub_pd(x, s), y.x), y.y));
}
EM_AVX512 em_w2 emw_add_d2d2(em_w2 x, em_w2 y)
{
    __m512d s = _mm512_add_pd(x.x, y.x);
    return emw(s, _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(_mm512_sub_pd(x.x, s), y.x), x.y), y.y));
}
EM_AVX512 em_w2 emw_mul_d2d(em_w2 x, __m512d y)
{
    __m512d s = _mm512_mul_pd(x.x, y);
    return emw(s, _mm512_fmadd_pd(x.y, y, _mm512_fmsub_pd(x.x, y, s)));
}
EM_AVX512 em_w2 emw_mul_d2d2(em_w2 x, em_w2 y)
{
    __m512d s = _mm512_mul_pd(x.x, y.x);
    return emw(s, _mm512_fmadd_pd(x.x, y.y, _mm512_fmadd_pd(x.y, y.x, _mm512_fmsub_pd(x.x, y.x, s))));
}
EM_AVX512 em_w2 emw_squ(em_w2 x)
{
    __m512d s = _mm512_mul_pd(x.x, x.x);
    return emw(s, _mm512_fmadd_pd(_mm512_add_pd(x.x, x.x), x.y, _mm512_fmsub_pd(x.x, x.x, s)));
}
EM_AVX512 __m512d emw_ldexp2(__m512d d, __m256i q)
{
    __m256i h = _mm256_srai_epi32(q, 1);
    return _mm512_mul_pd(_mm512_mul_pd(d, sleef_exp8_pow2i(h)), sleef_exp8_pow2i(_mm256_sub_epi32(q, h)));
}

#define EM_C8(v) _mm512_set1_pd(v)
__attribute__((target("avx512f"))) static __m512d sleef_expm1d8(__m512d a)
{
    __m512d u = _mm512_mul_pd(_mm512_add_pd(a, _mm512_setzero_pd()), EM_C8(SLEEF_R_LN2));
    __m512d dq = _mm512_roundscale_pd(u, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256i q = _mm512_cvtpd_epi32(dq);
    em_w2 s = emw_add2_d2d(emw(a, _mm512_setzero_pd()), _mm512_mul_pd(dq, EM_C8(-SLEEF_L2U)));
    s = emw_add2_d2d(s, _mm512_mul_pd(dq, EM_C8(-SLEEF_L2L)));
    em_w2 s2 = emw_squ(s), s4 = emw_squ(s2);
    __m512d s8 = _mm512_mul_pd(s4.x, s4.x);
    __m512d hi = _mm512_fmadd_pd(s.x, EM_C8(+0.1602472219709932072e-9), EM_C8(+0.2092255183563157007e-8));
    __m512d mid = _mm512_fmadd_pd(s2.x, _mm512_fmadd_pd(s.x, EM_C8(+0.2505230023782644465e-7), EM_C8(+0.2755724800902135303e-6)),
                                  _mm512_fmadd_pd(s.x, EM_C8(+0.2755731892386044373e-5), EM_C8(+0.2480158735605815065e-4)));
    __m512d lo = _mm512_fmadd_pd(s2.x, _mm512_fmadd_pd(s.x, EM_C8(+0.1984126984148071858e-3), EM_C8(+0.1388888888886763255e-2)),
                                 _mm512_fmadd_pd(s.x, EM_C8(+0.8333333333333347095e-2), EM_C8(+0.4166666666666669905e-1)));
    u = _mm512_fmadd_pd(s8, hi, _mm512_fmadd_pd(s4.x, mid, lo));
    em_w2 t = emw_add_dd2(EM_C8(0.5), emw_mul_d2d(s, EM_C8(+0.1666666666666666574e+0)));
    t = emw_add_dd2(EM_C8(1.0), emw_mul_d2d2(t, s));
    t = emw_add_dd2(EM_C8(1.0), emw_mul_d2d2(t, s));
    t = emw_add_d2d2(t, emw_mul_d2d(s4, u));
    t = emw(emw_ldexp2(t.x, q), emw_ldexp2(t.y, q));
    em_w2 d = emw_add2_d2d(t, EM_C8(-1.0));
    __m512d x = _mm512_add_pd(d.x, d.y);
    EM_SPECIALS(pd, double, __mmask8, _mm512_cmp_pd_mask, a, x, 709.782712893383996732223, -36.736800569677101399113302437,
                _mm512_set1_epi64(INT64_MIN), _mm512_test_epi64_mask);
    return x;
}

/* sleef_expm1f16 in eight lanes (AVX2 with FMA, Sleef_expm1f8_u10): the same steps, the same bits */
#define EM_AVX2 __attribute__((target("avx2,fma"), always_inline)) static inline
typedef struct {
    __m256 x, y;
} em_u2;

EM_AVX2 em_u2 emu(__m256 x, __m256 y)
{
    em_u2 r = {x, y};
    return r;
}
EM_AVX2 em_u2 emu_add2_f2f(em_u2 x, __m256 y)
{
    __m256 s = _mm256_add_ps(x.x, y), v = _mm256_sub_ps(s, x.x);
    __m256 t = _mm256_add_ps(_mm256_sub_ps(x.x, _mm256_sub_ps(s, v)), _mm256_sub_ps(y, v));
    return emu(s, _mm256_add_ps(t, x.y));
}
EM_AVX2 em_u2 emu_add2_f2f2(em_u2 x, em_u2 y)
{
    __m256 s = _mm256_add_ps(x.x, y.x), v = _mm256_sub_ps(s, x.x);
    __m256 t = _mm256_add_ps(_mm256_sub_ps(x.x, _mm256_sub_ps(s, v)), _mm256_sub_ps(y.x, v));
    return emu(s, _mm256_add_ps(t, _mm256_add_ps(x.y, y.y)));
}
EM_AVX2 em_u2 emu_add_ff2(__m256 x, em_u2 y)
{
    __m256 s = _mm256_add_ps(x, y.x);
    return emu(s, _mm256_add_ps(_mm256_add_ps(_mm256_sub_ps(x, s), y.x), y.y));
}
EM_AVX2 em_u2 emu_mul_f2f(em_u2 x, __m256 y)
{
    __m256 s = _mm256_mul_ps(x.x, y);
    return emu(s, _mm256_fmadd_ps(x.y, y, _mm256_fmsub_ps(x.x, y, s)));
}
EM_AVX2 em_u2 emu_mul_f2f2(em_u2 x, em_u2 y)
{
    __m256 s = _mm256_mul_ps(x.x, y.x);
    return emu(s, _mm256_fmadd_ps(x.x, y.y, _mm256_fmadd_ps(x.y, y.x, _mm256_fmsub_ps(x.x, y.x, s))));
}
EM_AVX2 em_u2 emu_squ(em_u2 x)
{
    __m256 s = _mm256_mul_ps(x.x, x.x);
    return emu(s, _mm256_fmadd_ps(_mm256_add_ps(x.x, x.x), x.y, _mm256_fmsub_ps(x.x, x.x, s)));
}
EM_AVX2 __m256 emu_pow2i(__m256i q)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(q, _mm256_set1_epi32(0x7f)), 23));
}
EM_AVX2 __m256 emu_ldexp2(__m256 d, __m256i q)
{
    __m256i h = _mm256_srai_epi32(q, 1);
    return _mm256_mul_ps(_mm256_mul_ps(d, emu_pow2i(h)), emu_pow2i(_mm256_sub_epi32(q, h)));
}

__attribute__((target("avx2,fma"))) static __m256 sleef_expm1f8(__m256 a)
{
    __m256 u = _mm256_mul_ps(_mm256_add_ps(a, _mm256_setzero_ps()),
                             _mm256_set1_ps(1.442695040888963407359924681001892137426645954152985934135449406931f));
    __m256i q = _mm256_cvtps_epi32(u);
    __m256 qf = _mm256_cvtepi32_ps(q);
    em_u2 s = emu_add2_f2f(emu(a, _mm256_setzero_ps()), _mm256_mul_ps(qf, _mm256_set1_ps(-0.693145751953125f)));
    s = emu_add2_f2f(s, _mm256_mul_ps(qf, _mm256_set1_ps(-1.428606765330187045e-06f)));
    u = _mm256_set1_ps(0.1980960224e-3f);
    u = _mm256_fmadd_ps(u, s.x, _mm256_set1_ps(0.1394256484e-2f));
    u = _mm256_fmadd_ps(u, s.x, _mm256_set1_ps(0.8333456703e-2f));
    u = _mm256_fmadd_ps(u, s.x, _mm256_set1_ps(0.4166637361e-1f));
    em_u2 t = emu_add2_f2f(emu_mul_f2f(s, u), _mm256_set1_ps(0.166666659414234244790680580464e+0f));
    t = emu_add2_f2f(emu_mul_f2f2(s, t), _mm256_set1_ps(0.5f));
    t = emu_add2_f2f2(s, emu_mul_f2f2(emu_squ(s), t));
    t = emu_add_ff2(_mm256_set1_ps(1.0f), t);
    t = emu(emu_ldexp2(t.x, q), emu_ldexp2(t.y, q));
    em_u2 d = emu_add2_f2f(t, _mm256_set1_ps(-1.0f));
    __m256 x = _mm256_add_ps(d.x, d.y);
    /* the special lanes in EM_SPECIALS' order: +inf above, -1 below, -0 at -0, a + a at NaN */
    x = _mm256_blendv_ps(x, _mm256_set1_ps(INFINITY), _mm256_cmp_ps(_mm256_set1_ps(88.72283172607421875f), a, _CMP_LT_OQ));
    x = _mm256_blendv_ps(x, _mm256_set1_ps(-1.0f), _mm256_cmp_ps(a, _mm256_set1_ps(-16.635532333438687426013570f), _CMP_LT_OQ));
    __m256 negz = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_castps_si256(a), _mm256_set1_epi32((int)0x80000000)));
    x = _mm256_blendv_ps(x, a, negz);
    return _mm256_blendv_ps(x, _mm256_add_ps(a, a), _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
}

/* n elements eight lanes at a time, the last n % 8 by the one-lane steps (inline here: fmaf one
 * instruction; the same bits) */
__attribute__((target("avx2,fma"))) static void sleef_expm1f_block8(const float *x, float *o, ptrdiff_t n)
{
    ptrdiff_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(o + i, sleef_expm1f8(_mm256_loadu_ps(x + i)));
    for (; i < n; i++) o[i] = sleef_expm1f(x[i]);
}

/* n elements sixteen (eight) lanes at a time, the last partial vector masked */
__attribute__((target("avx512f"))) static void sleef_expm1f_block16(const float *x, float *o, ptrdiff_t n)
{
    ptrdiff_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(o + i, sleef_expm1f16(_mm512_loadu_ps(x + i)));
    if (i < n) {
        __mmask16 k = (__mmask16)((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(o + i, k, sleef_expm1f16(_mm512_maskz_loadu_ps(k, x + i)));
    }
}

__attribute__((target("avx512f"))) static void sleef_expm1d_block8(const double *x, double *o, ptrdiff_t n)
{
    ptrdiff_t i = 0;
    for (; i + 8 <= n; i += 8) _mm512_storeu_pd(o + i, sleef_expm1d8(_mm512_loadu_pd(x + i)));
    if (i < n) {
        __mmask8 k = (__mmask8)((1u << (n - i)) - 1);
        _mm512_mask_storeu_pd(o + i, k, sleef_expm1d8(_mm512_maskz_loadu_pd(k, x + i)));
    }
}
#endif

#endif
