/* SLEEF's exp of double (sleefsimddp.c's xexp, what ATen's Vectorized<double>::exp() calls:
 * Sleef_expd8_u10 under the AVX512 capability, Sleef_expd4_u10 under AVX2, the same steps per lane
 * with every vmla a fused multiply-add): sleef_exp one lane in plain C (fma), sleef_exp8 eight lanes
 * (AVX-512F, where x86-64), the same bits. q = rint(d / ln 2) (round to nearest even), s = d - q ln 2
 * in two fused steps, a degree-10 polynomial by Estrin's scheme (POLY10: the s^8 part, an s^4-split
 * degree-7 part; each pair a fused step), three fused steps u = u s + 0.5, u s + 1, u s + 1, then
 * u * 2^(q >> 1) * 2^(q - (q >> 1)); d > 709.782711149557 gives +inf, d < -1000 +0, NaN the NaN
 * quieted. Checked against torch.sigmoid of float64 (1 / (1 + exp(-x)) in its vectorized loop) bit
 * for bit over -745..710. The includer has included <math.h>, <stdint.h>, <string.h> and, where
 * x86-64, <immintrin.h>. */
#ifndef STRIDED_SLEEF_EXP_H
#define STRIDED_SLEEF_EXP_H
#define SLEEF_R_LN2 1.442695040888963407359924681001892137426645954152985934135449406931
#define SLEEF_L2U .69314718055966295651160180568695068359375
#define SLEEF_L2L .28235290563031577122588448175013436025525412068e-12
#define SLEEF_EXP_OVER 709.78271114955742909217217426
/* the polynomial's coefficients, highest degree first */
#define SLEEF_D9 +0.2081276378237164457e-8
#define SLEEF_D8 +0.2511210703042288022e-7
#define SLEEF_D7 +0.2755762628169491192e-6
#define SLEEF_D6 +0.2755723402025388239e-5
#define SLEEF_D5 +0.2480158687479686264e-4
#define SLEEF_D4 +0.1984126989855865850e-3
#define SLEEF_D3 +0.1388888888914497797e-2
#define SLEEF_D2 +0.8333333333314938210e-2
#define SLEEF_D1 +0.4166666666666602598e-1
#define SLEEF_D0 +0.1666666666666669072e+0

static SLEEF_AI double sleef_pow2i_d(int32_t q)
{
    uint64_t b = (uint64_t)(int64_t)(q + 0x3ff) << 52;
    double f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* xexp, one lane (the range checks first: C's int conversion of a huge q is undefined, and the
 * lanes replace those results anyway) */
static SLEEF_AI double sleef_exp(double d)
{
    if (d != d) return d + d;
    if (d > SLEEF_EXP_OVER) return INFINITY;
    if (d < -1000.0) return 0.0;
    double u = nearbyint(d * SLEEF_R_LN2), s;
    int32_t q = (int32_t)u;
    s = fma(u, -SLEEF_L2U, d);
    s = fma(u, -SLEEF_L2L, s);
    double s2 = s * s, s4 = s2 * s2, s8 = s4 * s4;
    double hi = fma(s, SLEEF_D9, SLEEF_D8);
    double mid = fma(s2, fma(s, SLEEF_D7, SLEEF_D6), fma(s, SLEEF_D5, SLEEF_D4));
    double lo = fma(s2, fma(s, SLEEF_D3, SLEEF_D2), fma(s, SLEEF_D1, SLEEF_D0));
    u = fma(s8, hi, fma(s4, mid, lo));
    u = fma(u, s, 0.5);
    u = fma(u, s, 1.0);
    u = fma(u, s, 1.0);
    int32_t h = q >> 1;
    return u * sleef_pow2i_d(h) * sleef_pow2i_d(q - h);
}

#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target("avx512f"))) static __m512d sleef_exp8_pow2i(__m256i q)
{
    __m512i b = _mm512_add_epi64(_mm512_cvtepi32_epi64(q), _mm512_set1_epi64(0x3ff));
    return _mm512_castsi512_pd(_mm512_slli_epi64(b, 52));
}

#define SLEEF_FMA8(a, b, c) _mm512_fmadd_pd((a), (b), (c))
#define SLEEF_C8(v) _mm512_set1_pd(v)

/* xexp, eight lanes */
__attribute__((target("avx512f"))) static __m512d sleef_exp8(__m512d d)
{
    __m512d u = _mm512_roundscale_pd(_mm512_mul_pd(d, SLEEF_C8(SLEEF_R_LN2)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256i q = _mm512_cvtpd_epi32(u);
    __m512d s = SLEEF_FMA8(u, SLEEF_C8(-SLEEF_L2U), d);
    s = SLEEF_FMA8(u, SLEEF_C8(-SLEEF_L2L), s);
    __m512d s2 = _mm512_mul_pd(s, s), s4 = _mm512_mul_pd(s2, s2), s8 = _mm512_mul_pd(s4, s4);
    __m512d hi = SLEEF_FMA8(s, SLEEF_C8(SLEEF_D9), SLEEF_C8(SLEEF_D8));
    __m512d mid = SLEEF_FMA8(s2, SLEEF_FMA8(s, SLEEF_C8(SLEEF_D7), SLEEF_C8(SLEEF_D6)),
                             SLEEF_FMA8(s, SLEEF_C8(SLEEF_D5), SLEEF_C8(SLEEF_D4)));
    __m512d lo = SLEEF_FMA8(s2, SLEEF_FMA8(s, SLEEF_C8(SLEEF_D3), SLEEF_C8(SLEEF_D2)),
                            SLEEF_FMA8(s, SLEEF_C8(SLEEF_D1), SLEEF_C8(SLEEF_D0)));
    u = SLEEF_FMA8(s8, hi, SLEEF_FMA8(s4, mid, lo));
    u = SLEEF_FMA8(u, s, SLEEF_C8(0.5));
    u = SLEEF_FMA8(u, s, SLEEF_C8(1.0));
    u = SLEEF_FMA8(u, s, SLEEF_C8(1.0));
    __m256i h = _mm256_srai_epi32(q, 1);
    u = _mm512_mul_pd(_mm512_mul_pd(u, sleef_exp8_pow2i(h)), sleef_exp8_pow2i(_mm256_sub_epi32(q, h)));
    __mmask8 over = _mm512_cmp_pd_mask(SLEEF_C8(SLEEF_EXP_OVER), d, _CMP_LT_OQ);
    __mmask8 under = _mm512_cmp_pd_mask(d, SLEEF_C8(-1000.0), _CMP_LT_OQ);
    u = _mm512_mask_mov_pd(u, over, SLEEF_C8(INFINITY));
    return _mm512_maskz_mov_pd((__mmask8)~under, u);
}

/* xexp, four lanes (AVX2 with FMA, Sleef_expd4_u10): sleef_exp8's steps per lane, the same bits */
__attribute__((target("avx2,fma"), unused)) static __m256d sleef_exp4_pow2i(__m128i q)
{
    __m256i b = _mm256_add_epi64(_mm256_cvtepi32_epi64(q), _mm256_set1_epi64x(0x3ff));
    return _mm256_castsi256_pd(_mm256_slli_epi64(b, 52));
}

#define SLEEF_FMA4(a, b, c) _mm256_fmadd_pd((a), (b), (c))
#define SLEEF_C4D(v) _mm256_set1_pd(v)

__attribute__((target("avx2,fma"), unused)) static __m256d sleef_exp4(__m256d d)
{
    __m256d u = _mm256_round_pd(_mm256_mul_pd(d, SLEEF_C4D(SLEEF_R_LN2)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m128i q = _mm256_cvtpd_epi32(u);
    __m256d s = SLEEF_FMA4(u, SLEEF_C4D(-SLEEF_L2U), d);
    s = SLEEF_FMA4(u, SLEEF_C4D(-SLEEF_L2L), s);
    __m256d s2 = _mm256_mul_pd(s, s), s4 = _mm256_mul_pd(s2, s2), s8 = _mm256_mul_pd(s4, s4);
    __m256d hi = SLEEF_FMA4(s, SLEEF_C4D(SLEEF_D9), SLEEF_C4D(SLEEF_D8));
    __m256d mid = SLEEF_FMA4(s2, SLEEF_FMA4(s, SLEEF_C4D(SLEEF_D7), SLEEF_C4D(SLEEF_D6)),
                             SLEEF_FMA4(s, SLEEF_C4D(SLEEF_D5), SLEEF_C4D(SLEEF_D4)));
    __m256d lo = SLEEF_FMA4(s2, SLEEF_FMA4(s, SLEEF_C4D(SLEEF_D3), SLEEF_C4D(SLEEF_D2)),
                            SLEEF_FMA4(s, SLEEF_C4D(SLEEF_D1), SLEEF_C4D(SLEEF_D0)));
    u = SLEEF_FMA4(s8, hi, SLEEF_FMA4(s4, mid, lo));
    u = SLEEF_FMA4(u, s, SLEEF_C4D(0.5));
    u = SLEEF_FMA4(u, s, SLEEF_C4D(1.0));
    u = SLEEF_FMA4(u, s, SLEEF_C4D(1.0));
    __m128i h = _mm_srai_epi32(q, 1);
    u = _mm256_mul_pd(_mm256_mul_pd(u, sleef_exp4_pow2i(h)), sleef_exp4_pow2i(_mm_sub_epi32(q, h)));
    __m256d over = _mm256_cmp_pd(SLEEF_C4D(SLEEF_EXP_OVER), d, _CMP_LT_OQ);
    __m256d under = _mm256_cmp_pd(d, SLEEF_C4D(-1000.0), _CMP_LT_OQ);
    u = _mm256_blendv_pd(u, SLEEF_C4D(INFINITY), over);
    return _mm256_andnot_pd(under, u);
}
#endif
#endif
