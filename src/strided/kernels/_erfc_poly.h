/* Included once by _specialkernel.c, after erfc8, erfc8_fused and erfc_unsure: erfc of float32 on
 * AVX-512 (erfc_float32_avx512), with |x| < 2 taken by erf8's polynomials instead of Cody's two
 * sides.
 *
 * erfc8_fused computes both of Cody's sides for all 8 lanes (the small rational with its division;
 * the tail's rational, division, exp steps and two gathers) and selects one per lane. Where all 8
 * lanes have |x| < 2 (the common data: (0.1, 0.9) and the like), erfc8_poly_fused computes
 * 1 -+ erf(|x|) from erf8's quarter polynomials instead: no division, exp or gather, about a third
 * of the operations (2^20 elements of (0.1, 0.9): 2.8 -> ~1.4 ms). Other groups take erfc8_fused,
 * or erfc8 where a lane has |x| > 4 or is NaN (which erfc8_fused never certifies: (-6, 6) 7.7 -> ~5 ms).
 *
 * The bits: every lane's result is one function of its own x, (float)k_erfc(x) (a NaN quieted),
 * whichever form computes it: a lane certified by either fused form is erfc8's float32, which is
 * k_erfc's; a lane neither certifies takes erfc8 (the exact steps), and a lane erfc8 does not
 * certify either (NaN, a tail value at a rounding boundary) takes k_erfc itself (erfc_unsure). All
 * 2^32 float32 patterns compared with the blocked stages (erf_float32_form(0)): identical (Dec
 * 2026); tests/test_erf_float32.py compares a sample on every build, both forms. */

/* erfc for |x| < 2 as 1 -+ erf(|x|), erf as erf8 computes it (_erf_float32_table.h: below 0.25 |x|
 * times the series in x^2, else |x|'s quarter's degree-ERFP_DEG fit in t = |x| - centre; quarters 0
 * to 7 here, one register each), in fused steps. Its distance from k_erfc's double over every
 * float32 with |x| < 2 (both signs, all 2^31 of them, in float64 NumPy with the same formulas): at
 * most 1.08e-13 (the fits' own error; measured per quarter), so the float32 of r is k_erfc's where
 * r - E and r + E round alike, E = 2^-42 (2.3e-13): about 2.4 lanes in 10^6 are not sure. */
__attribute__((target("avx512f,avx512dq,avx512vl"), always_inline)) static inline __m256
erfc8_poly_fused(__m256 xf, __mmask8 *sure)
{
    const __m512d abs_mask = _mm512_castsi512_pd(_mm512_set1_epi64(INT64_MAX));
    __m512d x = _mm512_cvtps_pd(xf);
    __m512d a = _mm512_and_pd(x, abs_mask);
    __m512d kf = _mm512_roundscale_pd(_mm512_mul_pd(a, _mm512_set1_pd(4.0)), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512i idx = _mm512_cvttpd_epi64(kf);  /* (0 to 7: the first eight quarters, one register each) */
    __mmask8 small = _mm512_cmp_pd_mask(a, _mm512_set1_pd(0.25), _CMP_LT_OQ);
    __m512d t = _mm512_sub_pd(a, _mm512_mul_pd(_mm512_add_pd(kf, _mm512_set1_pd(0.5)), _mm512_set1_pd(0.25)));
    t = _mm512_mask_mul_pd(t, small, x, x);
    __m512d e = _mm512_permutexvar_pd(idx, _mm512_load_pd(ERFP_TAB[ERFP_DEG]));
    for (int d = ERFP_DEG - 1; d >= 0; d--) e = _mm512_fmadd_pd(e, t, _mm512_permutexvar_pd(idx, _mm512_load_pd(ERFP_TAB[d])));
    e = _mm512_mask_mul_pd(e, small, e, a);
    __m512d r = _mm512_sub_pd(_mm512_set1_pd(1.0), _mm512_or_pd(e, _mm512_andnot_pd(abs_mask, x)));  /* (e > 0: x's sign) */
    const __m512d eps = _mm512_set1_pd(0x1p-42);
    __m256 rf = _mm512_cvtpd_ps(r);
    *sure = _mm256_cmp_ps_mask(_mm512_cvtpd_ps(_mm512_sub_pd(r, eps)), rf, _CMP_EQ_OQ)
            & _mm256_cmp_ps_mask(_mm512_cvtpd_ps(_mm512_add_pd(r, eps)), rf, _CMP_EQ_OQ);
    return rf;
}


/* the lanes of 8 (inputs xv, results *f) that *sure lacks: erfc8's where it certifies them */
__attribute__((target("avx512f,avx512dq,avx512vl"), always_inline)) static inline void
erfc8_exact_lanes(__m256 xv, __m256 *f, __mmask8 *sure)
{
    __mmask8 s2;
    __m256 f2 = erfc8(xv, &s2);
    *f = _mm256_mask_blend_ps(*sure, f2, *f);
    *sure |= s2;
}

/* erfc8_poly_fused where all 8 lanes have |x| < 2, else erfc8_fused where all have |x| <= 4, else
 * erfc8 itself (erfc8_fused certifies no lane beyond 4 or NaN: it would be computed twice) */
__attribute__((target("avx512f,avx512dq,avx512vl"), always_inline)) static inline __m256
erfc8_either(__m256 xv, __mmask8 *sure)
{
    __m256 a = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), xv);
    if (_mm256_cmp_ps_mask(a, _mm256_set1_ps(2.0f), _CMP_LT_OQ) == 0xff)
        return erfc8_poly_fused(xv, sure);
    if (_mm256_cmp_ps_mask(a, _mm256_set1_ps(4.0f), _CMP_LE_OQ) == 0xff)
        return erfc8_fused(xv, sure);
    return erfc8(xv, sure);
}

__attribute__((target("avx512f,avx512dq,avx512vl"))) static void erfc_float32_avx512(const float *in, float *out, Py_ssize_t n)
{
    float w[32];
    Py_ssize_t i = 0;
    for (; i + 32 <= n; i += 32) {  /* (four independent chains: the latencies overlap) */
        __mmask8 s[4];
        __m256 x[4], f[4];
        for (int g = 0; g < 4; g++) x[g] = _mm256_loadu_ps(in + i + 8 * g);
        for (int g = 0; g < 4; g++) f[g] = erfc8_either(x[g], &s[g]);
        int all = (__mmask8)(s[0] & s[1] & s[2] & s[3]) == 0xff;
        if (!all) {  /* (rare, but for |x| > 4 and NaN) */
            for (int g = 0; g < 4; g++)
                if (s[g] != 0xff) erfc8_exact_lanes(x[g], &f[g], &s[g]);
            all = (__mmask8)(s[0] & s[1] & s[2] & s[3]) == 0xff;
            if (!all)  /* (the inputs, read before out, which may be in, is written) */
                for (int g = 0; g < 4; g++) _mm256_storeu_ps(w + 8 * g, x[g]);
        }
        for (int g = 0; g < 4; g++) _mm256_storeu_ps(out + i + 8 * g, f[g]);
        if (!all)
            for (int g = 0; g < 4; g++) erfc_unsure(w + 8 * g, out + i + 8 * g, (__mmask8)~s[g]);
    }
    for (; i < n; i += 8) {
        __mmask8 k = n - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - i)) - 1), s;
        __m256 x = _mm256_maskz_loadu_ps(k, in + i);
        __m256 f = erfc8_either(x, &s);
        if ((s & k) != k)
            erfc8_exact_lanes(x, &f, &s);
        _mm256_storeu_ps(w, x);
        _mm256_mask_storeu_ps(out + i, k, f);
        erfc_unsure(w, out + i, k & (__mmask8)~s);
    }
}
