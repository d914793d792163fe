/* PyTorch's float32 / float64 pow lanes under ATen's AVX2 capability: SLEEF's Sleef_powf8_u10 and
 * Sleef_powd4_u10 (sleefsimdsp.c's xpowf, sleefsimddp.c's xpow as helperavx2.h builds them: every vmla
 * a fused multiply-add, df.h / dd.h's ENABLE_FMA forms), eight float32 / four float64 lanes with AVX2 +
 * FMA. Included by _sleef_pow.h inside its HAVE_X86 part, after the AVX-512 forms.
 *
 * The AVX2 build differs from the AVX-512 one (_sleef_pow.h) in logkf / logk's argument reduction
 * only: no vgetexp / vgetmant, but e = the exponent field of d * (1 / 0.75) and m = d with e taken off
 * its exponent field (vilogb2k, vldexp3), a subnormal d first scaled by 2^64 (e then less 64). For every
 * finite d > 0 that gives the e and m of the AVX-512 form (d * (1 / 0.75) never rounds across a power
 * of two that d / 0.75 is below; a subnormal's product, on a coarser grid, neither), and at d = 0, inf
 * or NaN the result is xpow's fix-up, not the log's: so each lane has the AVX-512 form's bits too
 * (tested against torch on an AVX2 CPU; the AVX-512 form against torch on an AVX-512 one). The rest is
 * the same steps in the same order, written here with the 256-bit operations, the masks as vectors. */

#define P8_AVX2 __attribute__((target("avx2,fma")))

SLEEF_PAIR_OPS(p8, __m256, 256, ps, P8_AVX2)  /* (_sleef_pow.h) */
SLEEF_PAIR_OPS(p4, __m256d, 256, pd, P8_AVX2)

P8_AVX2 static inline __m256 p8_set(float v) { return _mm256_set1_ps(v); }
P8_AVX2 static inline __m256 p8_abs(__m256 v) { return _mm256_andnot_ps(p8_set(-0.0f), v); }
/* x with its sign flipped where y's sign bit is set (SLEEF's vmulsign) */
P8_AVX2 static inline __m256 p8_mulsign(__m256 x, __m256 y) { return _mm256_xor_ps(x, _mm256_and_ps(y, p8_set(-0.0f))); }
/* o ? a : b (o a lane mask: all bits set or none) */
P8_AVX2 static inline __m256 p8_sel(__m256 o, __m256 a, __m256 b) { return _mm256_blendv_ps(b, a, o); }
P8_AVX2 static inline __m256 p8_cmp_lt(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
P8_AVX2 static inline __m256 p8_cmp_eq(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }

/* sleefsimdsp.c's logkf, the branch without AVX-512 (vilogb2k_vi2_vf, vldexp3_vf_vf_vi2) */
P8_AVX2 static inline p8_2 p8_logkf(__m256 d)
{
    __m256 o = p8_cmp_lt(d, p8_set(0x1p-126f));  /* FLT_MIN */
    d = p8_sel(o, _mm256_mul_ps(d, p8_set(0x1p64f)), d);
    __m256i bits = _mm256_castps_si256(_mm256_mul_ps(d, p8_set(1.0f / 0.75f)));
    __m256i e = _mm256_sub_epi32(_mm256_and_si256(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(0xff)),
                                 _mm256_set1_epi32(0x7f));
    __m256 m = _mm256_castsi256_ps(_mm256_sub_epi32(_mm256_castps_si256(d), _mm256_slli_epi32(e, 23)));
    e = _mm256_sub_epi32(e, _mm256_and_si256(_mm256_castps_si256(o), _mm256_set1_epi32(64)));
    p8_2 x = p8_div_pp(p8_add2_ss(p8_set(-1.0f), m), p8_add2_ss(p8_set(1.0f), m));
    p8_2 x2 = p8_squ(x);
    __m256 t = p8_set(0.240320354700088500976562f);
    t = _mm256_fmadd_ps(t, x2.x, p8_set(0.285112679004669189453125f));
    t = _mm256_fmadd_ps(t, x2.x, p8_set(0.400007992982864379882812f));
    p8_2 c = {p8_set(0.66666662693023681640625f), p8_set(3.69183861259614332084311e-09f)};
    p8_2 l2 = {p8_set(0.69314718246459960938f), p8_set(-1.904654323148236017e-09f)};
    p8_2 s = p8_mul_ps(l2, _mm256_cvtepi32_ps(e));
    p8_2 x2s = {_mm256_mul_ps(x.x, p8_set(2.0f)), _mm256_mul_ps(x.y, p8_set(2.0f))};
    s = p8_add_pp(s, x2s);
    s = p8_add_pp(s, p8_mul_pp(p8_mul_pp(x2, x), p8_add2_pp(p8_mul_ps(x2, t), c)));
    return s;
}

/* sleefsimdsp.c's vldexp_vf_vf_vi2: x * 2^q in five products (no overflow on the way) */
P8_AVX2 static inline __m256 p8_ldexp(__m256 x, __m256i q)
{
    __m256i m = _mm256_srai_epi32(q, 31);
    m = _mm256_slli_epi32(_mm256_sub_epi32(_mm256_srai_epi32(_mm256_add_epi32(m, q), 6), m), 4);
    q = _mm256_sub_epi32(q, _mm256_slli_epi32(m, 2));
    m = _mm256_add_epi32(m, _mm256_set1_epi32(0x7f));
    m = _mm256_max_epi32(m, _mm256_setzero_si256());     /* vand(vgt(m, 0), m) */
    m = _mm256_min_epi32(m, _mm256_set1_epi32(0xff));    /* m > 0xff ? 0xff : m */
    __m256 u = _mm256_castsi256_ps(_mm256_slli_epi32(m, 23));
    x = _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(x, u), u), u), u);
    u = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(q, _mm256_set1_epi32(0x7f)), 23));
    return _mm256_mul_ps(x, u);
}

/* sleefsimdsp.c's expkf: exp of a double-float */
P8_AVX2 static inline __m256 p8_expkf(p8_2 d)
{
    __m256 u = _mm256_mul_ps(_mm256_add_ps(d.x, d.y), p8_set(PW_R_LN2f));
    __m256i q = _mm256_cvtps_epi32(u);
    __m256 qf = _mm256_cvtepi32_ps(q);
    p8_2 s = p8_add2_ps(d, _mm256_mul_ps(qf, p8_set(-PW_L2Uf)));
    s = p8_add2_ps(s, _mm256_mul_ps(qf, p8_set(-PW_L2Lf)));
    {
        __m256 sum = _mm256_add_ps(s.x, s.y);
        s.y = _mm256_add_ps(_mm256_sub_ps(s.x, sum), s.y);
        s.x = sum;
    }
    u = p8_set(0.00136324646882712841033936f);
    u = _mm256_fmadd_ps(u, s.x, p8_set(0.00836596917361021041870117f));
    u = _mm256_fmadd_ps(u, s.x, p8_set(0.0416710823774337768554688f));
    u = _mm256_fmadd_ps(u, s.x, p8_set(0.166665524244308471679688f));
    u = _mm256_fmadd_ps(u, s.x, p8_set(0.499999850988388061523438f));
    p8_2 t = p8_add_pp(s, p8_mul_ps(p8_squ(s), u));
    t = p8_add_sp(p8_set(1.0f), t);
    u = p8_ldexp(_mm256_add_ps(t.x, t.y), q);
    return _mm256_andnot_ps(p8_cmp_lt(d.x, p8_set(-104.0f)), u);
}

/* sleefsimdsp.c's xpowf: Sleef_powf8_u10 */
P8_AVX2 static inline __attribute__((always_inline)) __m256 sleef_powf8(__m256 x, __m256 y)
{
    __m256 ay = p8_abs(y), one = p8_set(1.0f), zero = _mm256_setzero_ps(), inf = p8_set(INFINITY);
    __m256 yisint = _mm256_or_ps(p8_cmp_eq(_mm256_round_ps(y, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC), y),
                                 _mm256_cmp_ps(ay, p8_set((float)(1 << 24)), _CMP_GT_OQ));
    __m256i ti = _mm256_and_si256(_mm256_cvttps_epi32(y), _mm256_set1_epi32(1));
    __m256 yisodd = _mm256_and_ps(_mm256_and_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(ti, _mm256_set1_epi32(1))), yisint),
                                  p8_cmp_lt(ay, p8_set((float)(1 << 24))));

    __m256 result = p8_expkf(p8_mul_ps(p8_logkf(p8_abs(x)), y));
    result = p8_sel(_mm256_cmp_ps(result, result, _CMP_UNORD_Q), inf, result);
    __m256 sign = p8_sel(_mm256_cmp_ps(x, zero, _CMP_GT_OQ), one,
                         p8_sel(yisint, p8_sel(yisodd, p8_set(-1.0f), one), p8_set(__builtin_nanf(""))));
    result = _mm256_mul_ps(result, sign);

    __m256 efx = p8_mulsign(_mm256_sub_ps(p8_abs(x), one), y);
    __m256 yinf = _mm256_andnot_ps(p8_cmp_lt(efx, zero), p8_sel(p8_cmp_eq(efx, zero), one, inf));
    result = p8_sel(p8_cmp_eq(ay, inf), yinf, result);

    __m256 xzero = p8_cmp_eq(x, zero);
    __m256 ysign = _mm256_castsi256_ps(_mm256_srai_epi32(_mm256_castps_si256(y), 31));  /* vsignbit */
    __m256 edge = p8_mulsign(p8_sel(_mm256_xor_ps(ysign, xzero), zero, inf), p8_sel(yisodd, x, one));
    result = p8_sel(_mm256_or_ps(p8_cmp_eq(p8_abs(x), inf), xzero), edge, result);

    result = _mm256_or_ps(_mm256_cmp_ps(x, y, _CMP_UNORD_Q), result);  /* a NaN operand: all bits set */

    return p8_sel(_mm256_or_ps(p8_cmp_eq(y, zero), p8_cmp_eq(x, one)), one, result);
}

/* o[i] = Sleef_powf8_u10(x[i], y[i]) for i < n; xs / ys 0: x[0] / y[0] at every i */
P8_AVX2 static void powf_block8(const float *x, Py_ssize_t xs, const float *y, Py_ssize_t ys, float *o, Py_ssize_t n)
{
    __m256 xb = _mm256_set1_ps(x[0]), yb = _mm256_set1_ps(y[0]);
    Py_ssize_t i = 0;
    for (; i + 16 <= n; i += 16) {  /* (two vectors a step: their long dependency chains overlap) */
        __m256 a0 = xs ? _mm256_loadu_ps(x + i) : xb, b0 = ys ? _mm256_loadu_ps(y + i) : yb;
        __m256 a1 = xs ? _mm256_loadu_ps(x + i + 8) : xb, b1 = ys ? _mm256_loadu_ps(y + i + 8) : yb;
        __m256 r0 = sleef_powf8(a0, b0), r1 = sleef_powf8(a1, b1);
        _mm256_storeu_ps(o + i, r0);
        _mm256_storeu_ps(o + i + 8, r1);
    }
    for (; i < n; i += 8) {  /* (a part vector: its lanes through a buffer, the others 1 ** 1) */
        float a[8], b[8], r[8];
        Py_ssize_t k = n - i < 8 ? n - i : 8;
        for (Py_ssize_t j = 0; j < 8; j++) {
            a[j] = j < k ? x[xs ? i + j : 0] : 1.0f;
            b[j] = j < k ? y[ys ? i + j : 0] : 1.0f;
        }
        _mm256_storeu_ps(r, sleef_powf8(_mm256_loadu_ps(a), _mm256_loadu_ps(b)));
        memcpy(o + i, r, (size_t)k * sizeof(float));
    }
}

/* ---- double: sleefsimddp.c's xpow (Sleef_powd4_u10), logk's branch without AVX-512 (vilogb2k_vi_vd,
 * vldexp3_vd_vd_vi: its int lanes four int32, as helperavx2.h's vint); expk as pd_expk */
P8_AVX2 static inline __m256d p4_set(double v) { return _mm256_set1_pd(v); }
P8_AVX2 static inline __m256d p4_abs(__m256d v) { return _mm256_andnot_pd(p4_set(-0.0), v); }
P8_AVX2 static inline __m256d p4_mulsign(__m256d x, __m256d y) { return _mm256_xor_pd(x, _mm256_and_pd(y, p4_set(-0.0))); }
P8_AVX2 static inline __m256d p4_sel(__m256d o, __m256d a, __m256d b) { return _mm256_blendv_pd(b, a, o); }
P8_AVX2 static inline __m256d p4_cmp_lt(__m256d a, __m256d b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
P8_AVX2 static inline __m256d p4_cmp_eq(__m256d a, __m256d b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }
P8_AVX2 static inline __m256d p4_rint(__m256d v) { return _mm256_round_pd(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }

#define P4_MLA(a, b, c) _mm256_fmadd_pd((a), (b), (c))
#define P4_POLY2(x, c1, c0) P4_MLA(x, p4_set(c1), p4_set(c0))
#define P4_POLY4(x, x2, c3, c2, c1, c0) P4_MLA(x2, P4_MLA(x, p4_set(c3), p4_set(c2)), P4_MLA(x, p4_set(c1), p4_set(c0)))
#define P4_POLY8(x, x2, x4, c7, c6, c5, c4, c3, c2, c1, c0) \
    P4_MLA(x4, P4_POLY4(x, x2, c7, c6, c5, c4), P4_POLY4(x, x2, c3, c2, c1, c0))

/* the four int32 lanes of a four-double lane mask (helperavx2.h's vcast_vo32_vo64) */
P8_AVX2 static inline __m128i p4_mask32(__m256d o)
{
    __m256i p = _mm256_permutevar8x32_epi32(_mm256_castpd_si256(o), _mm256_set_epi32(0, 0, 0, 0, 6, 4, 2, 0));
    return _mm256_castsi256_si128(p);
}

/* sleefsimddp.c's logk, the branch without AVX-512 */
P8_AVX2 static inline p4_2 p4_logk(__m256d d)
{
    __m256d o = p4_cmp_lt(d, p4_set(0x1p-1022));  /* DBL_MIN */
    d = p4_sel(o, _mm256_mul_pd(d, p4_set(0x1p64)), d);
    __m256i bits = _mm256_castpd_si256(_mm256_mul_pd(d, p4_set(1.0 / 0.75)));
    /* vilogb2k_vi_vd: each lane's high word (vcastu_vi_vm), its exponent field less the bias */
    __m128i hi = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(bits, _mm256_set_epi32(0, 0, 0, 0, 7, 5, 3, 1)));
    __m128i e = _mm_sub_epi32(_mm_and_si128(_mm_srli_epi32(hi, 20), _mm_set1_epi32(0x7ff)), _mm_set1_epi32(0x3ff));
    /* vldexp3_vd_vd_vi(d, -e): -e << 20 into each lane's high word, a 64-bit add */
    __m256i sh = _mm256_slli_epi64(_mm256_cvtepi32_epi64(_mm_sub_epi32(_mm_setzero_si128(), e)), 52);
    __m256d m = _mm256_castsi256_pd(_mm256_add_epi64(_mm256_castpd_si256(d), sh));
    e = _mm_sub_epi32(e, _mm_and_si128(p4_mask32(o), _mm_set1_epi32(64)));
    p4_2 x = p4_div_pp(p4_add2_ss(p4_set(-1.0), m), p4_add2_ss(p4_set(1.0), m));
    p4_2 x2 = p4_squ(x);
    __m256d x4 = _mm256_mul_pd(x2.x, x2.x), x8 = _mm256_mul_pd(x4, x4), x16 = _mm256_mul_pd(x8, x8);
    __m256d t = P4_MLA(x16, p4_set(0.116255524079935043668677),
                       P4_POLY8(x2.x, x4, x8, 0.103239680901072952701192, 0.117754809412463995466069,
                                0.13332981086846273921509, 0.153846227114512262845736, 0.181818180850050775676507,
                                0.222222222230083560345903, 0.285714285714249172087875, 0.400000000000000077715612));
    p4_2 c = {p4_set(0.666666666666666629659233), p4_set(3.80554962542412056336616e-17)};
    p4_2 l2 = {p4_set(0.693147180559945286226764), p4_set(2.319046813846299558417771e-17)};
    p4_2 s = p4_mul_ps(l2, _mm256_cvtepi32_pd(e));
    p4_2 x2s = {_mm256_mul_pd(x.x, p4_set(2.0)), _mm256_mul_pd(x.y, p4_set(2.0))};
    s = p4_add_pp(s, x2s);
    x = p4_mul_pp(x2, x);
    s = p4_add_pp(s, p4_mul_pp(x, c));
    x = p4_mul_pp(x2, x);
    s = p4_add_pp(s, p4_mul_ps(x, t));
    return s;
}

/* commonfuncs.h's vpow2i_vd_vi: 2^q as bits, q an int32 lane */
P8_AVX2 static inline __m256d p4_pow2i(__m128i q)
{
    __m256i b = _mm256_cvtepi32_epi64(_mm_add_epi32(q, _mm_set1_epi32(0x3ff)));
    return _mm256_castsi256_pd(_mm256_slli_epi64(b, 52));
}

/* sleefsimddp.c's expk */
P8_AVX2 static inline __m256d p4_expk(p4_2 d)
{
    __m256d u = _mm256_mul_pd(_mm256_add_pd(d.x, d.y), p4_set(PW_R_LN2));
    __m256d dq = p4_rint(u);
    __m128i q = _mm256_cvtpd_epi32(dq);
    p4_2 s = p4_add2_ps(d, _mm256_mul_pd(dq, p4_set(-PW_L2U)));
    s = p4_add2_ps(s, _mm256_mul_pd(dq, p4_set(-PW_L2L)));
    {
        __m256d sum = _mm256_add_pd(s.x, s.y);
        s.y = _mm256_add_pd(_mm256_sub_pd(s.x, sum), s.y);
        s.x = sum;
    }
    __m256d s2 = _mm256_mul_pd(s.x, s.x), s4 = _mm256_mul_pd(s2, s2), s8 = _mm256_mul_pd(s4, s4);
    u = P4_MLA(s8, P4_POLY2(s.x, 2.51069683420950419527139e-08, 2.76286166770270649116855e-07),
               P4_POLY8(s.x, s2, s4, 2.75572496725023574143864e-06, 2.48014973989819794114153e-05,
                        0.000198412698809069797676111, 0.0013888888939977128960529, 0.00833333333332371417601081,
                        0.0416666666665409524128449, 0.166666666666666740681535, 0.500000000000000999200722));
    p4_2 t = p4_add_sp(p4_set(1.0), s);
    t = p4_add_pp(t, p4_mul_ps(p4_squ(s), u));
    u = _mm256_add_pd(t.x, t.y);
    __m128i h = _mm_srai_epi32(q, 1);
    u = _mm256_mul_pd(_mm256_mul_pd(u, p4_pow2i(h)), p4_pow2i(_mm_sub_epi32(q, h)));
    return _mm256_andnot_pd(p4_cmp_lt(d.x, p4_set(-1000.0)), u);
}

/* sleefsimddp.c's xpow: Sleef_powd4_u10 */
P8_AVX2 static inline __attribute__((always_inline)) __m256d sleef_pow4(__m256d x, __m256d y)
{
    __m256d one = p4_set(1.0), zero = _mm256_setzero_pd(), inf = p4_set(INFINITY);
    __m256d yisint = p4_cmp_eq(p4_rint(y), y);
    __m256d half = _mm256_mul_pd(y, p4_set(0.5));
    __m256d yisodd = _mm256_and_pd(_mm256_cmp_pd(p4_rint(half), half, _CMP_NEQ_UQ), yisint);

    p4_2 d = p4_mul_ps(p4_logk(p4_abs(x)), y);
    __m256d result = p4_expk(d);
    result = p4_sel(_mm256_cmp_pd(d.x, p4_set(PW_LOG_DBL_MAX), _CMP_GT_OQ), inf, result);
    __m256d sign = p4_sel(_mm256_cmp_pd(x, zero, _CMP_GT_OQ), one,
                          p4_sel(yisint, p4_sel(yisodd, p4_set(-1.0), one), p4_set(__builtin_nan(""))));
    result = _mm256_mul_pd(result, sign);

    __m256d efx = p4_mulsign(_mm256_sub_pd(p4_abs(x), one), y);
    __m256d yinf = _mm256_andnot_pd(p4_cmp_lt(efx, zero), p4_sel(p4_cmp_eq(efx, zero), one, inf));
    result = p4_sel(p4_cmp_eq(p4_abs(y), inf), yinf, result);

    __m256d xzero = p4_cmp_eq(x, zero);
    __m256d ysign = _mm256_castsi256_pd(_mm256_cmpgt_epi64(_mm256_setzero_si256(), _mm256_castpd_si256(y)));  /* vsignbit */
    __m256d edge = p4_mulsign(p4_sel(_mm256_xor_pd(ysign, xzero), zero, inf), p4_sel(yisodd, x, one));
    result = p4_sel(_mm256_or_pd(p4_cmp_eq(p4_abs(x), inf), xzero), edge, result);

    result = _mm256_or_pd(_mm256_cmp_pd(x, y, _CMP_UNORD_Q), result);  /* a NaN operand: all bits set */

    return p4_sel(_mm256_or_pd(p4_cmp_eq(y, zero), p4_cmp_eq(x, one)), one, result);
}

/* o[i] = Sleef_powd4_u10(x[i], y[i]) for i < n; xs / ys 0: x[0] / y[0] at every i */
P8_AVX2 static void pow_block4(const double *x, Py_ssize_t xs, const double *y, Py_ssize_t ys, double *o, Py_ssize_t n)
{
    __m256d xb = _mm256_set1_pd(x[0]), yb = _mm256_set1_pd(y[0]);
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256d a0 = xs ? _mm256_loadu_pd(x + i) : xb, b0 = ys ? _mm256_loadu_pd(y + i) : yb;
        __m256d a1 = xs ? _mm256_loadu_pd(x + i + 4) : xb, b1 = ys ? _mm256_loadu_pd(y + i + 4) : yb;
        __m256d r0 = sleef_pow4(a0, b0), r1 = sleef_pow4(a1, b1);
        _mm256_storeu_pd(o + i, r0);
        _mm256_storeu_pd(o + i + 4, r1);
    }
    for (; i < n; i += 4) {
        double a[4], b[4], r[4];
        Py_ssize_t k = n - i < 4 ? n - i : 4;
        for (Py_ssize_t j = 0; j < 4; j++) {
            a[j] = j < k ? x[xs ? i + j : 0] : 1.0;
            b[j] = j < k ? y[ys ? i + j : 0] : 1.0;
        }
        _mm256_storeu_pd(r, sleef_pow4(_mm256_loadu_pd(a), _mm256_loadu_pd(b)));
        memcpy(o + i, r, (size_t)k * sizeof(double));
    }
}
