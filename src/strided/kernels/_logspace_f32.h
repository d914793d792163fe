/* float32 logspace, eight lanes at a time (AVX-512F), for _specialkernel.c's logspace_fill.
 *
 * PyTorch's float32 logspace is (float)pow(base, e) with e the double exponent and pow the C
 * library's (glibc's: within 0.52 ulp of the exact power, so its float rounding is the exact
 * power's except where that lies within about an ulp of double of a float tie). Here the power
 * is computed as exp(e * ln base), with e * ln base a double-double (ln base from the long-double
 * logl, split in two doubles; the product's error term by a fused step), SLEEF's exp of the high
 * part (_sleef_exp.h, within an ulp) times 1 + the low part: relative error under 2^-49. That
 * value rounds to the float glibc's does wherever it is further than 2^-40 of its magnitude (2^12
 * ulps of double) from a float tie, since both are then on the same side of it; the lanes within
 * that band (about one in 65536), and those whose |e * ln base| exceeds 87 (float overflow and
 * subnormal results, where ties sit elsewhere), or whose e is not finite, are computed by pow
 * itself. The exponents are the scalar loop's (start + step * i before n / 2, end - step *
 * (n - 1 - i) after; a product and a sum, each rounded). Used only where long double has a 64-bit
 * mantissa and base is finite and positive (else the scalar loop runs). */
#ifndef STRIDED_LOGSPACE_F32_H
#define STRIDED_LOGSPACE_F32_H
#if defined(__GNUC__) && defined(__x86_64__)
#include <float.h>

/* o[i] = (float)pow(base, c + sgn * step * j) for the n lanes i = 0..n-1 with j = j0 + dj * i (the
 * caller's first half: c start, sgn +1, j = i; second half: c end, sgn -1, j = n - 1 - i) */
__attribute__((target("avx512f,avx512vl"))) static void logspace_f32_run(float *o, Py_ssize_t n, double c, double step,
                                                               int sub, double j0, double dj, double base,
                                                               double lhi, double llo)
{
    const __m512d lanes = _mm512_set_pd(7, 6, 5, 4, 3, 2, 1, 0);
    const __m512d vdj = _mm512_set1_pd(dj), vc = _mm512_set1_pd(c), vstep = _mm512_set1_pd(step);
    const __m512d vhi = _mm512_set1_pd(lhi), vlo = _mm512_set1_pd(llo), lim = _mm512_set1_pd(87.0);
    for (Py_ssize_t i = 0; i < n; i += 8) {
        __mmask8 k = n - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - i)) - 1);
        /* j exact in double (|j| < 2^53), then e as the scalar loop rounds it */
        __m512d j = _mm512_fmadd_pd(_mm512_add_pd(_mm512_set1_pd((double)i), lanes), vdj, _mm512_set1_pd(j0));
        __m512d prod = _mm512_mul_pd(vstep, j);
        __m512d e = sub ? _mm512_sub_pd(vc, prod) : _mm512_add_pd(vc, prod);
        __m512d p = _mm512_mul_pd(e, vhi);
        __m512d pl = _mm512_fmadd_pd(e, vlo, _mm512_fmsub_pd(e, vhi, p));
        __m512d y = sleef_exp8(p);
        y = _mm512_fmadd_pd(y, pl, y);
        /* doubt: |p| > 87 or NaN, or y's low 29 bits within 2^12 of a float tie (0x10000000) */
        __mmask8 doubt = k & ~_mm512_cmp_pd_mask(_mm512_abs_pd(p), lim, _CMP_LE_OQ);
        __m512i lo = _mm512_and_si512(_mm512_castpd_si512(y), _mm512_set1_epi64(0x1fffffff));
        __m512i dist = _mm512_abs_epi64(_mm512_sub_epi64(lo, _mm512_set1_epi64(0x10000000)));
        doubt |= _mm512_mask_cmplt_epi64_mask(k, dist, _mm512_set1_epi64(1 << 12));
        _mm256_mask_storeu_ps(o + i, k, _mm512_cvtpd_ps(y));
        if (doubt) {
            double ev[8];
            _mm512_storeu_pd(ev, e);
            for (int q = 0; q < 8; q++)
                if (doubt & (1u << q)) o[i + q] = (float)pow(base, ev[q]);
        }
    }
}

/* whether logspace_f32_run serves this base on this machine: AVX-512F, a 64-bit long double
 * mantissa (ln base to ~2^-63), base finite and positive; then *lhi + *llo = ln base */
static int logspace_f32_wide(double base, double *lhi, double *llo)
{
#if LDBL_MANT_DIG >= 64
    static int cpu = -1;
    if (cpu < 0) {
        __builtin_cpu_init();
        cpu = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
    }
    if (!cpu || !(base > 0.0) || !(base <= DBL_MAX)) return 0;
    long double l = logl((long double)base);
    *lhi = (double)l;
    *llo = (double)(l - (long double)*lhi);
    return 1;
#else
    (void)base, (void)lhi, (void)llo;
    return 0;
#endif
}
#else
static int logspace_f32_wide(double base, double *lhi, double *llo) { (void)base, (void)lhi, (void)llo; return 0; }
static void logspace_f32_run(float *o, Py_ssize_t n, double c, double step, int sub, double j0, double dj,
                             double base, double lhi, double llo)
{ /* (never called: logspace_f32_wide answers 0) */
    (void)o, (void)n, (void)c, (void)step, (void)sub, (void)j0, (void)dj, (void)base, (void)lhi, (void)llo;
}
#endif
#endif
