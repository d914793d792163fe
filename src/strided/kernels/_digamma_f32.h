/* PyTorch's float32 digamma (calc_digamma of float, _torch_special.h's digamma_f) sixteen lanes at a
 * time (AVX-512F with FMA; eight with AVX2 + FMA: digamma_float32_avx2), for _specialkernel.c's torch_special; included after _i0_f32.h. For
 * x > 0 and finite, lane by lane, the scalar steps: while x < 10, result -= 1 / x and x += 1 (a
 * lane leaves the loop as its x reaches 10); x == 10: result + PSI_10; else, with y = z * polevl(z)
 * (z = 1 / (x * x), polevl's fused steps) where x < 1e17 and 0 beyond,
 * ((result + logf(x)) - 0.5f / x) - y, each float operation one IEEE operation as in the scalar
 * code (-ffp-contract=off; only polevl's fmas are fused). logf is glibc's (sysdeps/ieee754/flt-32/
 * e_logf.c, the variant its x86-64 ifunc picks with FMA: r = z * invc - 1, y0 = logc + k ln 2 and
 * the polynomial's three multiply-adds each one fused step), rebuilt in double lanes for x >= 10
 * (no special case there). Lanes with x <= 0 (the reflection, the poles, -0.0), infinite or NaN are
 * computed by digamma_f itself. digamma_f32_ok compares the form with digamma_f at first use. */
#ifndef STRIDED_DIGAMMA_F32_H
#define STRIDED_DIGAMMA_F32_H

static const double LOGF_INVC[16] = {
    0x1.661ec79f8f3bep+0, 0x1.571ed4aaf883dp+0, 0x1.49539f0f010bp+0, 0x1.3c995b0b80385p+0,
    0x1.30d190c8864a5p+0, 0x1.25e227b0b8eap+0, 0x1.1bb4a4a1a343fp+0, 0x1.12358f08ae5bap+0,
    0x1.0953f419900a7p+0, 0x1p+0, 0x1.e608cfd9a47acp-1, 0x1.ca4b31f026aap-1,
    0x1.b2036576afce6p-1, 0x1.9c2d163a1aa2dp-1, 0x1.886e6037841edp-1, 0x1.767dcf5534862p-1};
static const double LOGF_LOGC[16] = {
    -0x1.57bf7808caadep-2, -0x1.2bef0a7c06ddbp-2, -0x1.01eae7f513a67p-2, -0x1.b31d8a68224e9p-3,
    -0x1.6574f0ac07758p-3, -0x1.1aa2bc79c81p-3, -0x1.a4e76ce8c0e5ep-4, -0x1.1973c5a611cccp-4,
    -0x1.252f438e10c1ep-5, 0x0p+0, 0x1.aa5aa5df25984p-5, 0x1.c5e53aa362eb4p-4,
    0x1.526e57720db08p-3, 0x1.bc2860d22477p-3, 0x1.1058bc8a07ee1p-2, 0x1.4043057b6ee09p-2};
#define LOGF_LN2 0x1.62e42fefa39efp-1
#define LOGF_A0 -0x1.00ea348b88334p-2
#define LOGF_A1 0x1.5575b0be00b6ap-2
#define LOGF_A2 -0x1.ffffef20a4123p-2

/* glibc's logf of eight positive normal floats, given iz's float (z), the table index and k */
L512 __m256 logf_lanes512(__m256 zf, __m256i idx, __m256i k)
{
    const __m512d i0 = _mm512_loadu_pd(LOGF_INVC), i1 = _mm512_loadu_pd(LOGF_INVC + 8);
    const __m512d l0 = _mm512_loadu_pd(LOGF_LOGC), l1 = _mm512_loadu_pd(LOGF_LOGC + 8);
    __m512i j = _mm512_cvtepi32_epi64(idx);
    __m512d invc = _mm512_permutex2var_pd(i0, j, i1), logc = _mm512_permutex2var_pd(l0, j, l1);
    __m512d z = _mm512_cvtps_pd(zf);
    __m512d r = _mm512_fmsub_pd(z, invc, _mm512_set1_pd(1.0));
    __m512d y0 = _mm512_fmadd_pd(_mm512_cvtepi32_pd(k), _mm512_set1_pd(LOGF_LN2), logc);
    __m512d r2 = _mm512_mul_pd(r, r);
    __m512d y = _mm512_fmadd_pd(_mm512_set1_pd(LOGF_A1), r, _mm512_set1_pd(LOGF_A2));
    y = _mm512_fmadd_pd(_mm512_set1_pd(LOGF_A0), r2, y);
    y = _mm512_fmadd_pd(y, r2, _mm512_add_pd(y0, r));
    return _mm512_cvtpd_ps(y);
}

/* glibc's logf of sixteen positive normal floats (here x >= 10) */
L512 __m512 logf16(__m512 x)
{
    __m512i ix = _mm512_castps_si512(x);
    __m512i tmp = _mm512_sub_epi32(ix, _mm512_set1_epi32(0x3f330000));
    __m512i idx = _mm512_and_si512(_mm512_srli_epi32(tmp, 19), _mm512_set1_epi32(15));
    __m512i k = _mm512_srai_epi32(tmp, 23);
    __m512 z = _mm512_castsi512_ps(_mm512_sub_epi32(ix, _mm512_and_si512(tmp, _mm512_set1_epi32(0x1ff << 23))));
    __m256 a = logf_lanes512(_mm512_castps512_ps256(z), _mm512_castsi512_si256(idx), _mm512_castsi512_si256(k));
    __m256 b = logf_lanes512(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(z), 1)),
                             _mm512_extracti64x4_epi64(idx, 1), _mm512_extracti64x4_epi64(k, 1));
    return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(a)), _mm256_castps_pd(b), 1));
}

__attribute__((target("avx512f,avx2,fma"))) static void digamma_float32_avx512(const float *in, float *out, Py_ssize_t n)
{
    const __m512 ten = _mm512_set1_ps(10.0f), one = _mm512_set1_ps(1.0f);
    for (Py_ssize_t i = 0; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m512 x = _mm512_maskz_loadu_ps(k, in + i);
        /* the lanes done here: 0 < x < inf (NaN fails both) */
        __mmask16 fine = k & _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ)
                         & _mm512_cmp_ps_mask(x, _mm512_set1_ps(INFINITY), _CMP_LT_OQ);
        x = _mm512_mask_mov_ps(_mm512_set1_ps(20.0f), fine, x); /* (the others: a harmless 20) */
        __m512 result = _mm512_setzero_ps();
        for (__mmask16 low = _mm512_cmp_ps_mask(x, ten, _CMP_LT_OQ); low; low = _mm512_cmp_ps_mask(x, ten, _CMP_LT_OQ)) {
            result = _mm512_mask_sub_ps(result, low, result, _mm512_div_ps(one, x));
            x = _mm512_mask_add_ps(x, low, x, one);
        }
        __m512 z = _mm512_div_ps(one, _mm512_mul_ps(x, x));
        __m512 p = _mm512_set1_ps(DIGAMMA_A_F[0]); /* (polevl's first step, fma(0, z, a[0]), is a[0]) */
        for (int q = 1; q <= 6; q++) p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(DIGAMMA_A_F[q]));
        __m512 y = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(1.0e17f), _CMP_LT_OQ), _mm512_mul_ps(z, p));
        __m512 r = _mm512_sub_ps(_mm512_sub_ps(_mm512_add_ps(result, logf16(x)), _mm512_div_ps(_mm512_set1_ps(0.5f), x)), y);
        r = _mm512_mask_add_ps(r, _mm512_cmp_ps_mask(x, ten, _CMP_EQ_OQ), result, _mm512_set1_ps(PSI_10_F));
        _mm512_mask_storeu_ps(out + i, k, r);
        for (__mmask16 rest = k & (__mmask16)~fine; rest; rest &= (__mmask16)(rest - 1)) {
            int j = __builtin_ctz(rest);
            out[i + j] = digamma_f_fma3(in[i + j]);
        }
    }
}

/* logf_lanes512 on four lanes (AVX2 + FMA): the table read by gathers; the same operations */
L256 __m128 logf_lanes256(__m128 zf, __m128i idx, __m128i k)
{
    __m256d invc = _mm256_i32gather_pd(LOGF_INVC, idx, 8), logc = _mm256_i32gather_pd(LOGF_LOGC, idx, 8);
    __m256d z = _mm256_cvtps_pd(zf);
    __m256d r = _mm256_fmsub_pd(z, invc, _mm256_set1_pd(1.0));
    __m256d y0 = _mm256_fmadd_pd(_mm256_cvtepi32_pd(k), _mm256_set1_pd(LOGF_LN2), logc);
    __m256d r2 = _mm256_mul_pd(r, r);
    __m256d y = _mm256_fmadd_pd(_mm256_set1_pd(LOGF_A1), r, _mm256_set1_pd(LOGF_A2));
    y = _mm256_fmadd_pd(_mm256_set1_pd(LOGF_A0), r2, y);
    y = _mm256_fmadd_pd(y, r2, _mm256_add_pd(y0, r));
    return _mm256_cvtpd_ps(y);
}

/* logf16 on eight lanes (x >= 10) */
L256 __m256 logf8(__m256 x)
{
    __m256i ix = _mm256_castps_si256(x);
    __m256i tmp = _mm256_sub_epi32(ix, _mm256_set1_epi32(0x3f330000));
    __m256i idx = _mm256_and_si256(_mm256_srli_epi32(tmp, 19), _mm256_set1_epi32(15));
    __m256i k = _mm256_srai_epi32(tmp, 23);
    __m256 z = _mm256_castsi256_ps(_mm256_sub_epi32(ix, _mm256_and_si256(tmp, _mm256_set1_epi32(0x1ff << 23))));
    __m128 a = logf_lanes256(_mm256_castps256_ps128(z), _mm256_castsi256_si128(idx), _mm256_castsi256_si128(k));
    __m128 b = logf_lanes256(_mm256_extractf128_ps(z, 1), _mm256_extracti128_si256(idx, 1), _mm256_extracti128_si256(k, 1));
    return _mm256_set_m128(b, a);
}

/* digamma_float32_avx512 on a CPU with AVX2 and FMA but no AVX-512: eight lanes a vector, blends
 * for its masks, a zero-padded last vector (a zero lane is not "fine": digamma_f's own, as there);
 * lane by lane the same IEEE operations, so the same bits (digamma_f32_avx2_ok checks them). */
__attribute__((target("avx2,fma"))) static void digamma_float32_avx2(const float *in, float *out, Py_ssize_t n)
{
    const __m256 ten = _mm256_set1_ps(10.0f), one = _mm256_set1_ps(1.0f);
    for (Py_ssize_t i = 0; i < n; i += 8) {
        int m = n - i >= 8 ? 8 : (int)(n - i), k = (1 << m) - 1;
        float pad[8] = {0};
        if (m < 8) memcpy(pad, in + i, (size_t)m * sizeof(float));
        __m256 x = _mm256_loadu_ps(m < 8 ? pad : in + i);
        /* the lanes done here: 0 < x < inf (NaN fails both) */
        __m256 fine = _mm256_and_ps(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ),
                                    _mm256_cmp_ps(x, _mm256_set1_ps(INFINITY), _CMP_LT_OQ));
        x = _mm256_blendv_ps(_mm256_set1_ps(20.0f), x, fine); /* (the others: a harmless 20) */
        __m256 result = _mm256_setzero_ps();
        for (__m256 low = _mm256_cmp_ps(x, ten, _CMP_LT_OQ); _mm256_movemask_ps(low); low = _mm256_cmp_ps(x, ten, _CMP_LT_OQ)) {
            result = _mm256_blendv_ps(result, _mm256_sub_ps(result, _mm256_div_ps(one, x)), low);
            x = _mm256_blendv_ps(x, _mm256_add_ps(x, one), low);
        }
        __m256 z = _mm256_div_ps(one, _mm256_mul_ps(x, x));
        __m256 p = _mm256_set1_ps(DIGAMMA_A_F[0]); /* (polevl's first step, fma(0, z, a[0]), is a[0]) */
        for (int q = 1; q <= 6; q++) p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(DIGAMMA_A_F[q]));
        __m256 y = _mm256_and_ps(_mm256_cmp_ps(x, _mm256_set1_ps(1.0e17f), _CMP_LT_OQ), _mm256_mul_ps(z, p));
        __m256 r = _mm256_sub_ps(_mm256_sub_ps(_mm256_add_ps(result, logf8(x)), _mm256_div_ps(_mm256_set1_ps(0.5f), x)), y);
        r = _mm256_blendv_ps(r, _mm256_add_ps(result, _mm256_set1_ps(PSI_10_F)), _mm256_cmp_ps(x, ten, _CMP_EQ_OQ));
        if (m == 8) {
            _mm256_storeu_ps(out + i, r);
        } else {
            _mm256_storeu_ps(pad, r);
            memcpy(out + i, pad, (size_t)m * sizeof(float));
        }
        for (int rest = k & ~_mm256_movemask_ps(fine); rest; rest &= rest - 1) {
            int j = __builtin_ctz((unsigned)rest);
            out[i + j] = digamma_f_fma3(in[i + j]);
        }
    }
}

/* whether run (digamma_float32_avx512 or _avx2) gives digamma_f's bits on 2^14 floats over every sign
 * and exponent with spread mantissas, on the 256 floats about 10, and on runs of each length 1..17 */
static int digamma_f32_agrees(void (*run)(const float *, float *, Py_ssize_t))
{
    float in[64], out[64];
    for (uint32_t b = 0; b < 260; b++) {
        for (uint32_t j = 0; j < 64; j++) {
            uint32_t u = b < 256 ? (b << 24) | (j << 18) | ((j * 40503u + b * 9973u) & 0x3ffff)
                                 : 0x41200000u - 128u + (b - 256) * 64 + j; /* (the last four rows: about 10) */
            memcpy(&in[j], &u, sizeof u);
        }
        run(in, out, 64);
        for (int j = 0; j < 64; j++) {
            float e = digamma_f_fma3(in[j]);
            if (memcmp(&e, &out[j], sizeof e) != 0) return 0;
        }
    }
    for (int len = 1; len <= 17; len++) {
        for (int j = 0; j < len; j++) in[j] = (float)(j * 1.25 - 3.5);
        run(in, out, len);
        for (int j = 0; j < len; j++) {
            float e = digamma_f_fma3(in[j]);
            if (memcmp(&e, &out[j], sizeof e) != 0) return 0;
        }
    }
    return 1;
}

/* whether digamma_float32_avx512 runs: AVX-512F and FMA, and digamma_f32_agrees (asked once) */
static int digamma_f32_ok(void)
{
    static int decided = -1;
    if (decided >= 0) return decided;
    __builtin_cpu_init();
    int ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    decided = ok && digamma_f32_agrees(digamma_float32_avx512);
    return decided;
}

/* whether digamma_float32_avx2 runs (where digamma_f32_ok does not): AVX2 and FMA, and digamma_f32_agrees */
static int digamma_f32_avx2_ok(void)
{
    static int decided = -1;
    if (decided >= 0) return decided;
    __builtin_cpu_init();
    int ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    decided = ok && digamma_f32_agrees(digamma_float32_avx2);
    return decided;
}
#endif
