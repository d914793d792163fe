/* SLEEF's expf (sleefsimdsp.c's xexpf, what ATen's Vectorized<float>::exp() calls: Sleef_expf16_u10
 * under the AVX512 capability, Sleef_expf8_u10 under AVX2, the same steps per lane with every vmla a
 * fused multiply-add): sleef_expf one lane in plain C (fmaf), sleef_expf16 sixteen lanes (AVX-512F,
 * where x86-64), the same bits. q = rint(d / ln 2) (round to nearest even, as cvtps2dq), s = d - q ln 2
 * in two fused steps, a degree-6 polynomial in five fused steps, 1 + fma(s*s, u, s), then
 * u * 2^(q >> 1) * 2^(q - (q >> 1)); d < -104 gives +0, d > 100 +inf, NaN the NaN quieted. Shared by
 * _sleefkernel.c (sigmoid, silu) and _specialkernel.c (the softmax rows); the includer has included
 * <math.h>, <stdint.h>, <string.h> and, where x86-64, <immintrin.h>. */
#ifndef STRIDED_SLEEF_EXPF_H
#define STRIDED_SLEEF_EXPF_H
#define SLEEF_R_LN2F 1.442695040888963407359924681001892137426645954152985934135449406931f
#define SLEEF_L2UF 0.693145751953125f
#define SLEEF_L2LF 1.428606765330187045e-06f
#define SLEEF_C0 0.000198527617612853646278381f
#define SLEEF_C1 0.00139304355252534151077271f
#define SLEEF_C2 0.00833336077630519866943359f
#define SLEEF_C3 0.0416664853692054748535156f
#define SLEEF_C4 0.166666671633720397949219f
/* the one-lane functions inline into their callers always: an FMA clone's caller (target_clones)
 * then runs their fmaf as one instruction (a call would run the plain build's copy: the C library's
 * routine, the same bits at many times the cost) */
#if defined(__GNUC__)
#define SLEEF_AI inline __attribute__((always_inline))
#else
#define SLEEF_AI inline
#endif

static SLEEF_AI float sleef_pow2i(int32_t q)
{
    uint32_t b = (uint32_t)(q + 0x7f) << 23;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* xexpf, one lane */
static SLEEF_AI float sleef_expf(float d)
{
    if (d != d) return d + d;  /* (the lanes' NaN: s = fma(q, -L2U, d) is d quieted, and stays it) */
    if (d < -104.0f) return 0.0f;
    if (d > 100.0f) return INFINITY;
    int32_t q = (int32_t)nearbyintf(d * SLEEF_R_LN2F);
    float qf = (float)q, s, u;
    s = fmaf(qf, -SLEEF_L2UF, d);
    s = fmaf(qf, -SLEEF_L2LF, s);
    u = SLEEF_C0;
    u = fmaf(u, s, SLEEF_C1);
    u = fmaf(u, s, SLEEF_C2);
    u = fmaf(u, s, SLEEF_C3);
    u = fmaf(u, s, SLEEF_C4);
    u = fmaf(u, s, 0.5f);
    u = 1.0f + fmaf(s * s, u, s);
    int32_t h = q >> 1;
    return u * sleef_pow2i(h) * sleef_pow2i(q - h);
}

#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target("avx512f"))) static __m512 sleef_expf16(__m512 d)
{
    __m512i q = _mm512_cvtps_epi32(_mm512_mul_ps(d, _mm512_set1_ps(SLEEF_R_LN2F)));
    __m512 qf = _mm512_cvtepi32_ps(q);
    __m512 s = _mm512_fmadd_ps(qf, _mm512_set1_ps(-SLEEF_L2UF), d);
    s = _mm512_fmadd_ps(qf, _mm512_set1_ps(-SLEEF_L2LF), s);
    __m512 u = _mm512_set1_ps(SLEEF_C0);
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(SLEEF_C1));
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(SLEEF_C2));
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(SLEEF_C3));
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(SLEEF_C4));
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.5f));
    u = _mm512_add_ps(_mm512_set1_ps(1.0f), _mm512_fmadd_ps(_mm512_mul_ps(s, s), u, s));
    __m512i h = _mm512_srai_epi32(q, 1), bias = _mm512_set1_epi32(0x7f);
    __m512 p1 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(h, bias), 23));
    __m512 p2 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_sub_epi32(q, h), bias), 23));
    u = _mm512_mul_ps(_mm512_mul_ps(u, p1), p2);
    __mmask16 under = _mm512_cmp_ps_mask(d, _mm512_set1_ps(-104.0f), _CMP_LT_OQ);
    __mmask16 over = _mm512_cmp_ps_mask(_mm512_set1_ps(100.0f), d, _CMP_LT_OQ);
    u = _mm512_maskz_mov_ps((__mmask16)~under, u);
    return _mm512_mask_mov_ps(u, over, _mm512_set1_ps(INFINITY));
}

/* xexpf, eight lanes (AVX2 with FMA: Sleef_expf8_u10's steps, sleef_expf16's per lane; the same bits) */
__attribute__((target("avx2,fma"), unused)) static __m256 sleef_expf8(__m256 d)
{
    __m256i q = _mm256_cvtps_epi32(_mm256_mul_ps(d, _mm256_set1_ps(SLEEF_R_LN2F)));
    __m256 qf = _mm256_cvtepi32_ps(q);
    __m256 s = _mm256_fmadd_ps(qf, _mm256_set1_ps(-SLEEF_L2UF), d);
    s = _mm256_fmadd_ps(qf, _mm256_set1_ps(-SLEEF_L2LF), s);
    __m256 u = _mm256_set1_ps(SLEEF_C0);
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(SLEEF_C1));
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(SLEEF_C2));
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(SLEEF_C3));
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(SLEEF_C4));
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.5f));
    u = _mm256_add_ps(_mm256_set1_ps(1.0f), _mm256_fmadd_ps(_mm256_mul_ps(s, s), u, s));
    __m256i h = _mm256_srai_epi32(q, 1), bias = _mm256_set1_epi32(0x7f);
    __m256 p1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(h, bias), 23));
    __m256 p2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(q, h), bias), 23));
    u = _mm256_mul_ps(_mm256_mul_ps(u, p1), p2);
    __m256 under = _mm256_cmp_ps(d, _mm256_set1_ps(-104.0f), _CMP_LT_OQ);
    __m256 over = _mm256_cmp_ps(_mm256_set1_ps(100.0f), d, _CMP_LT_OQ);
    u = _mm256_andnot_ps(under, u);
    return _mm256_blendv_ps(u, _mm256_set1_ps(INFINITY), over);
}

#endif
#endif
