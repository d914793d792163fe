/* PyTorch's float32 i0 and i1 (calc_i0, calc_i1 of float: _torch_special.h's bessel_f, which 0 and 1), sixteen lanes
 * at a time (AVX-512F with FMA), for _specialkernel.c's torch_special. Included after table512 and
 * expf_lanes512 (glibc's expf, eight lanes). The scalar steps, lane by lane:
 *   x = |v|; x <= 8: expf(x) * chb(x / 2 - 2, I0A as float, 30)  (i1: expf(x) * x * chb(.., TI1A_F, 17))
 *            else:   expf(x) * chb(32 / x - 2, I0B as float, 25) / sqrtf(x)  (i1: TI1B_F, 7)
 * and i1 negated where v < 0
 * with chb Cephes' chbevl as GCC compiles PyTorch's (chb_f: the first step one fma, every later
 * x * b1 - b2 one fma, then + a[i]); each float operation is the same IEEE operation in a lane. A
 * vector whose lanes take both branches computes both. Lanes with x >= 88 (expf's own special
 * cases) or NaN are computed by bessel_f itself. i0_f32_ok compares this form with bessel_f at
 * first use (then it runs wherever the CPU has AVX-512F and FMA). 1M elements: i0 ~26 -> ~3 ms. */
#ifndef STRIDED_I0_F32_H
#define STRIDED_I0_F32_H

L512 __m512 chb16(__m512 y, const float *a, int n)
{
    __m512 b0 = _mm512_fmadd_ps(y, _mm512_set1_ps(a[0]), _mm512_set1_ps(a[1])), b1 = _mm512_set1_ps(a[0]);
    __m512 b2 = _mm512_setzero_ps();
    for (int i = 2; i < n; i++) {
        b2 = b1;
        b1 = b0;
        b0 = _mm512_add_ps(_mm512_fmsub_ps(y, b1, b2), _mm512_set1_ps(a[i]));
    }
    return _mm512_mul_ps(_mm512_set1_ps(0.5f), _mm512_sub_ps(b0, b2));
}

__attribute__((target("avx512f,avx2,fma"))) static void i0_float32_avx512(const float *in, float *out, Py_ssize_t n,
                                                                        int which)
{
    const __m512 eight = _mm512_set1_ps(8.0f), two = _mm512_set1_ps(2.0f);
    const float *ca = which ? TI1A_F : TI0A_F, *cb = which ? TI1B_F : TI0B_F;
    const int na = which ? 17 : 30, nb = which ? 7 : 25;
    for (Py_ssize_t i = 0; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m512 v = _mm512_maskz_loadu_ps(k, in + i), x = _mm512_abs_ps(v);
        __m256 ea = expf_lanes512(_mm512_cvtps_pd(_mm512_castps512_ps256(x)));
        __m256 eb = expf_lanes512(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1))));
        __m512 e = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(ea)), _mm256_castps_pd(eb), 1));
        __mmask16 small = _mm512_cmp_ps_mask(x, eight, _CMP_LE_OQ), r_small = k & small, r_big = k & (__mmask16)~small;
        __m512 res = _mm512_setzero_ps();
        if (r_small) {  /* i0: expf(x) * chb; i1: expf(x) * x * chb */
            __m512 y = _mm512_sub_ps(_mm512_div_ps(x, two), two);
            res = _mm512_mul_ps(which ? _mm512_mul_ps(e, x) : e, chb16(y, ca, na));
        }
        if (r_big) {  /* expf(x) * chb / sqrtf(x) */
            __m512 y = _mm512_sub_ps(_mm512_div_ps(_mm512_set1_ps(32.0f), x), two);
            __m512 big = _mm512_div_ps(_mm512_mul_ps(e, chb16(y, cb, nb)), _mm512_sqrt_ps(x));
            res = _mm512_mask_mov_ps(res, r_big, big);
        }
        if (which) /* i1 is odd: negated where v < 0 (not at -0.0; NaN lanes are redone below) */
            res = _mm512_castsi512_ps(_mm512_mask_xor_epi32(_mm512_castps_si512(res),
                                                            _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ),
                                                            _mm512_castps_si512(res), _mm512_set1_epi32((int)0x80000000u)));
        _mm512_mask_storeu_ps(out + i, k, res);
        /* x >= 88 (the exponent field's top bits at least 88.0f's) or NaN: bessel_f's own */
        __m512i top = _mm512_srli_epi32(_mm512_castps_si512(x), 20);
        __mmask16 special = _mm512_mask_cmpgt_epi32_mask(k, top, _mm512_set1_epi32(0x42a));
        for (int j = 0; special; j++, special >>= 1)
            if (special & 1) out[i + j] = bessel_f_fma3(in[i + j], which);
    }
}

/* whether i0_float32_avx512 runs for which (0 i0, 1 i1): AVX-512F and FMA, and its bits equal bessel_f's (asked once) on 2^14
 * floats over every sign and exponent with spread mantissas, and on the floats about 8 and 88 */
static int i0_f32_ok(int which)
{
    static int decided[2] = {-1, -1};
    if (decided[which] >= 0) return decided[which];
    __builtin_cpu_init();
    int ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    float in[64], out[64];
    for (uint32_t b = 0; ok && b < 260; b++) {
        for (uint32_t j = 0; j < 64; j++) {
            uint32_t jj = (b - 256) * 64 + j; /* (the last four rows: the 128 floats about 8, then about 88) */
            uint32_t u = b < 256 ? (b << 24) | (j << 18) | ((j * 40503u + b * 9973u) & 0x3ffff)
                                 : (jj < 128 ? 0x41000000u - 64u + jj : 0x42b00000u - 192u + jj);
            memcpy(&in[j], &u, sizeof u);
        }
        i0_float32_avx512(in, out, 64, which);
        for (int j = 0; ok && j < 64; j++) {
            float e = bessel_f_fma3(in[j], which);
            if (memcmp(&e, &out[j], sizeof e) != 0) ok = 0;
        }
    }
    decided[which] = ok;
    return ok;
}
#endif
