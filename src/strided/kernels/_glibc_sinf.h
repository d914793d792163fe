/* The C library's sinf, eight lanes at a time (AVX-512F; AVX2 + FMA: four twice), for _specialkernel.c's sinc of float32.
 *
 * PyTorch's sinc (sinc_cpu) is a scalar loop calling std::sin, the C library's sinf: ~8 ns an element
 * with the call. glibc's sinf (sysdeps/ieee754/flt-32/s_sinf.c, from Arm's optimized-routines) is,
 * for |y| < 120, double arithmetic only, so its steps are rebuilt here lane by lane:
 *   - |y| < 0x1p-12 (by the top 12 bits of the float, sign cleared: < 0x398): y itself;
 *   - |y| < 0.75 (top 12 bits < 0x3f4, glibc's compare with pi/4 rounded to float): the sine
 *     polynomial of x = y;
 *   - |y| < 120 (< 0x42f): n = ((int32)(x * hpi_inv) + 0x800000) >> 24 (hpi_inv = 2/pi * 2^24),
 *     x = x - n * pi/2, then the sine polynomial where n is even, the cosine one where odd, the
 *     result negated where n & 2 (glibc picks a negated table and a sign: the same bits, every step
 *     being sign-symmetric). For |y| < 0.75 this n is 0 and x stays y, so one path serves both.
 * Each "a + b * c" is one fused multiply-add, as GCC contracts them in the variant glibc's x86-64
 * ifunc picks on a CPU with FMA and AVX2 (s_sinf-fma.c); the products that feed another product
 * (x3, x4, x6, x7) are rounded. Lanes at 120 or more, infinite or NaN are left to the caller (the
 * mask returned), which calls sinf for them. The caller also checks this form against the process's
 * sinf at first use (another C library, or glibc's plain variant on a CPU without FMA, may round
 * differently: then the plain loop runs). */
#ifndef STRIDED_GLIBC_SINF_H
#define STRIDED_GLIBC_SINF_H
#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>

#define SINF_HPI_INV 0x1.45F306DC9C883p+23
#define SINF_HPI 0x1.921FB54442D18p0
/* the cosine polynomial c0..c4 and the sine one s1..s3 (glibc's __sincosf_table[0]) */
#define SINF_C0 0x1p0
#define SINF_C1 -0x1.ffffffd0c621cp-2
#define SINF_C2 0x1.55553e1068f19p-5
#define SINF_C3 -0x1.6c087e89a359dp-10
#define SINF_C4 0x1.99343027bf8c3p-16
#define SINF_S1 -0x1.555545995a603p-3
#define SINF_S2 0x1.1107605230bc4p-7
#define SINF_S3 -0x1.994eb3774cf24p-13

/* glibc's steps on the float lanes widened to the doubles x (P: their intrinsics' prefix, _mm512 or _mm256;
 * Q: the int32 lanes', _mm256 or _mm): the quadrant into n, x reduced, then the sine and cosine polynomials
 * of x into SIN and COS (the eight- and four-lane forms below differ only in width) */
#define SINF_STEPS(P, Q, x, n, SIN, COS)                                                            \
    do {                                                                                          \
        /* the quadrant: the product truncated to int32, + 2^23, arithmetic shift by 24 */          \
        n = Q##_srai_epi32(Q##_add_epi32(P##_cvttpd_epi32(P##_mul_pd(x, P##_set1_pd(SINF_HPI_INV))),  \
                                         Q##_set1_epi32(0x800000)), 24);                          \
        x = P##_fnmadd_pd(P##_cvtepi32_pd(n), P##_set1_pd(SINF_HPI), x);                          \
        __typeof__(x) x2 = P##_mul_pd(x, x);                                                      \
        /* sine: s + x7 * s1 with s = x + x3 * S1, s1 = S2 + x2 * S3 */                            \
        __typeof__(x) x3 = P##_mul_pd(x, x2);                                                     \
        __typeof__(x) s1 = P##_fmadd_pd(x2, P##_set1_pd(SINF_S3), P##_set1_pd(SINF_S2));          \
        __typeof__(x) x7 = P##_mul_pd(x3, x2);                                                    \
        __typeof__(x) s = P##_fmadd_pd(x3, P##_set1_pd(SINF_S1), x);                              \
        SIN = P##_fmadd_pd(x7, s1, s);                                                            \
        /* cosine: c + x6 * c2 with c = c1 + x4 * C2, c1 = C0 + x2 * C1, c2 = C3 + x2 * C4 */       \
        __typeof__(x) x4 = P##_mul_pd(x2, x2);                                                    \
        __typeof__(x) c2 = P##_fmadd_pd(x2, P##_set1_pd(SINF_C4), P##_set1_pd(SINF_C3));          \
        __typeof__(x) c1 = P##_fmadd_pd(x2, P##_set1_pd(SINF_C1), P##_set1_pd(SINF_C0));          \
        __typeof__(x) x6 = P##_mul_pd(x4, x2);                                                    \
        __typeof__(x) c = P##_fmadd_pd(x4, P##_set1_pd(SINF_C2), c1);                             \
        COS = P##_fmadd_pd(x6, c2, c);                                                            \
    } while (0)

/* sinf of the eight floats y as floats; *big gets the lanes glibc reduces otherwise (|y| >= 120,
 * infinities, NaN), whose results here are meaningless */
__attribute__((target("avx512f,avx512vl"), always_inline)) static inline __m256 glibc_sinf8(__m256 y, __mmask8 *big)
{
    __m256i top = _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(y), 20), _mm256_set1_epi32(0x7ff));
    *big = _mm256_cmpgt_epi32_mask(top, _mm256_set1_epi32(0x42e));
    __mmask8 tiny = _mm256_cmplt_epi32_mask(top, _mm256_set1_epi32(0x398));
    __m512d x = _mm512_cvtps_pd(y), sin, cos;
    __m256i n;
    SINF_STEPS(_mm512, _mm256, x, n, sin, cos);
    __mmask8 odd = _mm256_test_epi32_mask(n, _mm256_set1_epi32(1));
    __mmask8 neg = _mm256_test_epi32_mask(n, _mm256_set1_epi32(2));
    __m256 v = _mm512_cvtpd_ps(_mm512_mask_mov_pd(sin, odd, cos));
    __m256i b = _mm256_mask_xor_epi32(_mm256_castps_si256(v), neg, _mm256_castps_si256(v),
                                      _mm256_set1_epi32((int)0x80000000u));
    return _mm256_mask_mov_ps(_mm256_castsi256_ps(b), tiny, y);
}

/* sinc_float's scalar step: 1 at 0, else sinf(p) / p with p = pi * x rounded to float */
static inline float sinc_by_sinf(float x)
{
    const float p = 3.14159265358979323846f * x;
    return x == 0.0f ? 1.0f : sinf(p) / p;
}

/* the lanes of an eight-lane step that the vector sine leaves (bits: |pi x| >= 120, inf, NaN) by the scalar step */
static inline void sinc_lanes_by_sinf(const float *a, float *o, unsigned bits)
{
    for (int j = 0; bits; j++, bits >>= 1)
        if (bits & 1u) o[j] = sinc_by_sinf(a[j]);
}

/* sinc of the float32 a[0..n) as sinc_float computes it (1 at 0, else sinf(p) / p with p = pi * a
 * rounded to float, the quotient one IEEE float division): eight lanes at a time by glibc_sinf8,
 * the lanes it leaves and the last n % 8 elements by the C library's sinf */
__attribute__((target("avx512f,avx512vl"))) static void sinc_float_avx512(const float *restrict a, float *restrict o,
                                                                       Py_ssize_t n)
{
    const float pi = 3.14159265358979323846f;
    const __m256 vpi = _mm256_set1_ps(pi), one = _mm256_set1_ps(1.0f);
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 x = _mm256_loadu_ps(a + i);
        __m256 p = _mm256_mul_ps(vpi, x);
        __mmask8 big;
        __m256 q = _mm256_div_ps(glibc_sinf8(p, &big), p);
        q = _mm256_mask_mov_ps(q, _mm256_cmp_ps_mask(x, _mm256_setzero_ps(), _CMP_EQ_OQ), one);
        _mm256_storeu_ps(o + i, q);
        sinc_lanes_by_sinf(a + i, o + i, big);
    }
    for (; i < n; i++) o[i] = sinc_by_sinf(a[i]);
}

__attribute__((target("avx512f,avx512vl"))) static void glibc_sinf8_block(const float *in, float *out, int n)
{
    for (int i = 0; i + 8 <= n; i += 8) {
        __mmask8 big;
        __m256 v = glibc_sinf8(_mm256_loadu_ps(in + i), &big);
        _mm256_storeu_ps(out + i, v);
        for (int j = 0; j < 8; j++)
            if (big & (1u << j)) out[i + j] = sinf(in[i + j]);
    }
}

/* glibc_sinf8's steps on four lanes (AVX2 + FMA, no AVX-512: two of these make eight floats): the same
 * conversions, products and fused multiply-adds in the same order (SINF_STEPS), so the same bits; *big gets
 * the lanes left to sinf as all-ones int32 lanes (the caller's movemask) */
__attribute__((target("avx2,fma"), always_inline)) static inline __m128 glibc_sinf4(__m128 y, __m128i *big)
{
    __m128i top = _mm_and_si128(_mm_srli_epi32(_mm_castps_si128(y), 20), _mm_set1_epi32(0x7ff));
    *big = _mm_cmpgt_epi32(top, _mm_set1_epi32(0x42e));
    __m128i tiny = _mm_cmplt_epi32(top, _mm_set1_epi32(0x398));
    __m256d x = _mm256_cvtps_pd(y), sin, cos;
    __m128i n;
    SINF_STEPS(_mm256, _mm, x, n, sin, cos);
    /* n's bit 0 widened to four 64-bit lanes: cos where odd */
    __m256i odd = _mm256_cvtepi32_epi64(_mm_cmpeq_epi32(_mm_and_si128(n, _mm_set1_epi32(1)), _mm_set1_epi32(1)));
    __m128 v = _mm256_cvtpd_ps(_mm256_blendv_pd(sin, cos, _mm256_castsi256_pd(odd)));
    __m128i neg = _mm_slli_epi32(_mm_srli_epi32(n, 1), 31); /* (n & 2) moved to the sign bit */
    v = _mm_xor_ps(v, _mm_castsi128_ps(neg));
    return _mm_blendv_ps(v, y, _mm_castsi128_ps(tiny));
}

/* sinc_float_avx512's loop on AVX2 + FMA (glibc_sinf4 twice an iteration): the same bits */
__attribute__((target("avx2,fma"))) static void sinc_float_avx2(const float *restrict a, float *restrict o, Py_ssize_t n)
{
    const float pi = 3.14159265358979323846f;
    const __m128 vpi = _mm_set1_ps(pi), one = _mm_set1_ps(1.0f);
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        int bigbits = 0;
        for (int h = 0; h < 8; h += 4) {
            __m128 x = _mm_loadu_ps(a + i + h);
            __m128 p = _mm_mul_ps(vpi, x);
            __m128i big;
            __m128 q = _mm_div_ps(glibc_sinf4(p, &big), p);
            q = _mm_blendv_ps(q, one, _mm_cmpeq_ps(x, _mm_setzero_ps()));
            _mm_storeu_ps(o + i + h, q);
            bigbits |= _mm_movemask_ps(_mm_castsi128_ps(big)) << h;
        }
        sinc_lanes_by_sinf(a + i, o + i, (unsigned)bigbits);
    }
    for (; i < n; i++) o[i] = sinc_by_sinf(a[i]);
}

__attribute__((target("avx2,fma"))) static void glibc_sinf4_block(const float *in, float *out, int n)
{
    for (int i = 0; i + 4 <= n; i += 4) {
        __m128i big;
        _mm_storeu_ps(out + i, glibc_sinf4(_mm_loadu_ps(in + i), &big));
        int bits = _mm_movemask_ps(_mm_castsi128_ps(big));
        for (int j = 0; j < 4; j++)
            if (bits & (1 << j)) out[i + j] = sinf(in[i + j]);
    }
}

/* whether a block form (glibc_sinf8_block, glibc_sinf4_block) gives this process's sinf bits: 2^14 floats
 * over every sign and exponent (the top byte), with mantissas spread, and the ends of glibc's ranges
 * (sinc_float_avx512 was also compared with the C loop on all 2^32 floats) */
static int glibc_sinf_agrees(void (*block)(const float *, float *, int))
{
    float in[64], out[64];
    for (uint32_t b = 0; b < 256; b++) {
        for (uint32_t j = 0; j < 64; j++) {
            uint32_t u = (b << 24) | (j << 18) | ((j * 40503u + b * 9973u) & 0x3ffff);
            memcpy(&in[j], &u, sizeof u);
        }
        block(in, out, 64);
        for (int j = 0; j < 64; j++) {
            float e = sinf(in[j]);
            if (memcmp(&e, &out[j], sizeof e) != 0) return 0;
        }
    }
    static const float ends[8] = {0x1p-12f, 0x1.fffffep-13f, 0.75f, 0x1.7ffffep-1f, 0x1.dffffep+6f, 120.0f,
                                  -0x1.921fb6p+0f, 0x1.921fb6p+1f};
    block(ends, out, 8);
    for (int j = 0; j < 8; j++) {
        float e = sinf(ends[j]);
        if (memcmp(&e, &out[j], sizeof e) != 0) return 0;
    }
    return 1;
}

/* whether glibc_sinf8 runs here and gives this process's sinf bits (asked once) */
static int glibc_sinf_ok(void)
{
    static int decided = -1;
    if (decided >= 0) return decided;
    __builtin_cpu_init();
    decided = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
              glibc_sinf_agrees(glibc_sinf8_block);
    return decided;
}

/* whether glibc_sinf4 runs here (AVX2 and FMA) and gives this process's sinf bits (asked once) */
static int glibc_sinf_avx2_ok(void)
{
    static int decided = -1;
    if (decided >= 0) return decided;
    __builtin_cpu_init();
    decided = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
              glibc_sinf_agrees(glibc_sinf4_block);
    return decided;
}
#endif
#endif
