/* PyTorch's float32 i0 and i1 (calc_i0, calc_i1 of float: _torch_special.h's bessel_f, which 0 and 1), sixteen lanes
 * at a time (AVX-512F with FMA; eight with AVX2 + FMA: i0_float32_avx2), for _specialkernel.c's torch_special. Included after table512 and
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

/* chb16 on eight lanes (AVX2 + FMA): the same steps */
#define L256 __attribute__((target("avx2,fma"), always_inline)) static inline
L256 __m256 chb8(__m256 y, const float *a, int n)
{
    __m256 b0 = _mm256_fmadd_ps(y, _mm256_set1_ps(a[0]), _mm256_set1_ps(a[1])), b1 = _mm256_set1_ps(a[0]);
    __m256 b2 = _mm256_setzero_ps();
    for (int i = 2; i < n; i++) {
        b2 = b1;
        b1 = b0;
        b0 = _mm256_add_ps(_mm256_fmsub_ps(y, b1, b2), _mm256_set1_ps(a[i]));
    }
    return _mm256_mul_ps(_mm256_set1_ps(0.5f), _mm256_sub_ps(b0, b2));
}

/* i0_float32_avx512 on a CPU with AVX2 and FMA but no AVX-512: eight lanes a vector (expf_lanes'
 * four twice), blends for its masks, a zero-padded last vector; lane by lane the same IEEE
 * operations, so the same bits (i0_f32_avx2_ok checks them against bessel_f at first use). */
__attribute__((target("avx2,fma"))) static void i0_float32_avx2(const float *in, float *out, Py_ssize_t n, int which)
{
    const __m256 eight = _mm256_set1_ps(8.0f), two = _mm256_set1_ps(2.0f);
    const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)), sign = _mm256_set1_ps(-0.0f);
    const float *ca = which ? TI1A_F : TI0A_F, *cb = which ? TI1B_F : TI0B_F;
    const int na = which ? 17 : 30, nb = which ? 7 : 25;
    for (Py_ssize_t i = 0; i < n; i += 8) {
        int m = n - i >= 8 ? 8 : (int)(n - i), k = (1 << m) - 1;
        float pad[8] = {0};
        if (m < 8) memcpy(pad, in + i, (size_t)m * sizeof(float));
        __m256 v = _mm256_loadu_ps(m < 8 ? pad : in + i), x = _mm256_and_ps(v, absm);
        __m128 ea = expf_lanes(_mm256_cvtps_pd(_mm256_castps256_ps128(x)));
        __m128 eb = expf_lanes(_mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)));
        __m256 e = _mm256_set_m128(eb, ea);
        __m256 big_lanes = _mm256_cmp_ps(x, eight, _CMP_NLE_UQ); /* (not x <= 8: NaN too, redone below) */
        int bm = _mm256_movemask_ps(big_lanes) & k, sm = ~bm & k;
        __m256 res = _mm256_setzero_ps();
        if (sm) { /* i0: expf(x) * chb; i1: expf(x) * x * chb */
            __m256 y = _mm256_sub_ps(_mm256_div_ps(x, two), two);
            res = _mm256_mul_ps(which ? _mm256_mul_ps(e, x) : e, chb8(y, ca, na));
        }
        if (bm) { /* expf(x) * chb / sqrtf(x) */
            __m256 y = _mm256_sub_ps(_mm256_div_ps(_mm256_set1_ps(32.0f), x), two);
            __m256 big = _mm256_div_ps(_mm256_mul_ps(e, chb8(y, cb, nb)), _mm256_sqrt_ps(x));
            res = _mm256_blendv_ps(res, big, big_lanes);
        }
        if (which) /* i1 is odd: negated where v < 0 */
            res = _mm256_xor_ps(res, _mm256_and_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ), sign));
        if (m == 8) {
            _mm256_storeu_ps(out + i, res);
        } else {
            _mm256_storeu_ps(pad, res);
            memcpy(out + i, pad, (size_t)m * sizeof(float));
        }
        /* x >= 88 (the exponent field's top bits above 88.0f's) or NaN: bessel_f's own */
        __m256i top = _mm256_srli_epi32(_mm256_castps_si256(x), 20);
        int special = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(top, _mm256_set1_epi32(0x42a)))) & k;
        for (int j = 0; special; j++, special >>= 1)
            if (special & 1) out[i + j] = bessel_f_fma3(in[i + j], which);
    }
}

/* whether run (i0_float32_avx512 or i0_float32_avx2) gives bessel_f's bits for which (0 i0, 1 i1) on
 * 2^14 floats over every sign and exponent with spread mantissas, and on the floats about 8 and 88 */
static int i0_f32_agrees(void (*run)(const float *, float *, Py_ssize_t, int), int which)
{
    float in[64], out[64];
    for (uint32_t b = 0; b < 260; b++) {
        for (uint32_t j = 0; j < 64; j++) {
            uint32_t jj = (b - 256) * 64 + j; /* (the last four rows: the 128 floats about 8, then about 88) */
            uint32_t u = b < 256 ? (b << 24) | (j << 18) | ((j * 40503u + b * 9973u) & 0x3ffff)
                                 : (jj < 128 ? 0x41000000u - 64u + jj : 0x42b00000u - 192u + jj);
            memcpy(&in[j], &u, sizeof u);
        }
        run(in, out, 64, which);
        for (int j = 0; j < 64; j++) {
            float e = bessel_f_fma3(in[j], which);
            if (memcmp(&e, &out[j], sizeof e) != 0) return 0;
        }
    }
    /* (and a run of each length 1..17: the last vector's padding) */
    for (int len = 1; len <= 17; len++) {
        for (int j = 0; j < len; j++) in[j] = (float)(j * 1.75 - 14.0);
        run(in, out, len, which);
        for (int j = 0; j < len; j++) {
            float e = bessel_f_fma3(in[j], which);
            if (memcmp(&e, &out[j], sizeof e) != 0) return 0;
        }
    }
    return 1;
}

/* whether i0_float32_avx512 runs for which: AVX-512F and FMA, and i0_f32_agrees (asked once) */
static int i0_f32_ok(int which)
{
    static int decided[2] = {-1, -1};
    if (decided[which] >= 0) return decided[which];
    __builtin_cpu_init();
    int ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    decided[which] = ok && i0_f32_agrees(i0_float32_avx512, which);
    return decided[which];
}

/* whether i0_float32_avx2 runs for which (where i0_f32_ok does not): AVX2 and FMA, and i0_f32_agrees */
static int i0_f32_avx2_ok(int which)
{
    static int decided[2] = {-1, -1};
    if (decided[which] >= 0) return decided[which];
    __builtin_cpu_init();
    int ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    decided[which] = ok && i0_f32_agrees(i0_float32_avx2, which);
    return decided[which];
}
#endif
