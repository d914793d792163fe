/* PyTorch's CPU pow of float32 (and float64) tensors, bit for bit on an AVX-512 CPU: included once by
 * _sleefkernel.c (after its helpers), which lists pow_run in its method table.
 *
 * PyTorch 2.13's PowKernel.cpp runs pow as a cpu_kernel_vec loop:
 *   tensor ** tensor (and number ** tensor, the number a 0-d operand in the tensor's dtype):
 *     vectorized  base.pow(exp) = Vectorized<float>::pow = Sleef_powf16_u10 (AVX512; Sleef_powd8_u10 for double)
 *     scalar      std::pow(base, exp): the C library's powf (pow for double)
 *   tensor ** number (an exponent other than the 0.5, -0.5, -1, 2, 3, -2 of its own kernels):
 *     vectorized  base.pow(Vec(exp)): the exponent converted to the element type first
 *     scalar      std::pow(base, (double)exp): in double, rounded to the element type
 * so tensor([-5., 2., 0., inf]) ** 1e-50 is 1 at every vectorized element (1e-50 is 0.0f) and nan, 1, 0,
 * inf in the scalar loop. Which elements take which: strided.kernels.torch_pow (the row in steps of
 * 2 * Vectorized<T>::size(), its tail scalar, per parallel chunk).
 *
 * sleef_powf16 is sleefsimdsp.c's xpowf (logkf, expkf in double-float arithmetic, dfmul and friends as
 * df.h's ENABLE_FMA_SP forms, getexp/getmant as the AVX512F build compiles logkf) written again with the
 * same AVX-512 operations in the same order: the same bits at every lane, NaN payloads included (SLEEF
 * marks a NaN operand's result with all bits set, a negative NaN). */

#if HAVE_X86

#define PW_AVX512 __attribute__((target("avx512f,avx512dq")))

/* df.h / dd.h's double-float (double-double) steps in their ENABLE_FMA forms, for one vector type: P the
 * names' prefix (P_2 the pair type), VT the vector type, W its width (256, 512), S ps or pd, ATTR its
 * target. add2_ss: dfadd2_vf2_vf_vf; add_pp: dfadd_vf2_vf2_vf2 (|x| >= |y|); add2_pp, add2_ps, add_sp:
 * dfadd2_vf2_vf2_vf2, dfadd2_vf2_vf2_vf, dfadd_vf2_vf_vf2; mul_ps, mul_pp: dfmul_vf2_vf2_vf(2);
 * div_pp: dfdiv_vf2_vf2_vf2; squ: dfsqu_vf2_vf2 (p a pair, s a single vector). */
#define SLEEF_PAIR_OPS(P, VT, W, S, ATTR)                                                                  \
    typedef struct { VT x, y; } P##_2;                                                                    \
    ATTR static inline P##_2 P##_add2_ss(VT x, VT y)                                                      \
    {                                                                                                     \
        VT s = _mm##W##_add_##S(x, y), v = _mm##W##_sub_##S(s, x);                                        \
        P##_2 r = {s, _mm##W##_add_##S(_mm##W##_sub_##S(x, _mm##W##_sub_##S(s, v)), _mm##W##_sub_##S(y, v))}; \
        return r;                                                                                         \
    }                                                                                                     \
    ATTR static inline P##_2 P##_div_pp(P##_2 n, P##_2 d)                                                 \
    {                                                                                                     \
        VT t = _mm##W##_div_##S(_mm##W##_set1_##S(1.0), d.x);                                             \
        VT s = _mm##W##_mul_##S(n.x, t);                                                                  \
        VT u = _mm##W##_fmsub_##S(t, n.x, s);                                                             \
        VT v = _mm##W##_fnmadd_##S(d.y, t, _mm##W##_fnmadd_##S(d.x, t, _mm##W##_set1_##S(1.0)));          \
        P##_2 r = {s, _mm##W##_fmadd_##S(s, v, _mm##W##_fmadd_##S(n.y, t, u))};                           \
        return r;                                                                                         \
    }                                                                                                     \
    ATTR static inline P##_2 P##_squ(P##_2 x)                                                             \
    {                                                                                                     \
        VT s = _mm##W##_mul_##S(x.x, x.x);                                                                \
        P##_2 r = {s, _mm##W##_fmadd_##S(_mm##W##_add_##S(x.x, x.x), x.y, _mm##W##_fmsub_##S(x.x, x.x, s))}; \
        return r;                                                                                         \
    }                                                                                                     \
    ATTR static inline P##_2 P##_mul_ps(P##_2 x, VT y)                                                    \
    {                                                                                                     \
        VT s = _mm##W##_mul_##S(x.x, y);                                                                  \
        P##_2 r = {s, _mm##W##_fmadd_##S(x.y, y, _mm##W##_fmsub_##S(x.x, y, s))};                         \
        return r;                                                                                         \
    }                                                                                                     \
    ATTR static inline P##_2 P##_mul_pp(P##_2 x, P##_2 y)                                                 \
    {                                                                                                     \
        VT s = _mm##W##_mul_##S(x.x, y.x);                                                                \
        P##_2 r = {s, _mm##W##_fmadd_##S(x.x, y.y, _mm##W##_fmadd_##S(x.y, y.x, _mm##W##_fmsub_##S(x.x, y.x, s)))}; \
        return r;                                                                                         \
    }                                                                                                     \
    ATTR static inline P##_2 P##_add_pp(P##_2 x, P##_2 y)                                                 \
    {                                                                                                     \
        VT s = _mm##W##_add_##S(x.x, y.x);                                                                \
        P##_2 r = {s, _mm##W##_add_##S(_mm##W##_add_##S(_mm##W##_add_##S(_mm##W##_sub_##S(x.x, s), y.x), x.y), y.y)}; \
        return r;                                                                                         \
    }                                                                                                     \
    ATTR static inline P##_2 P##_add2_pp(P##_2 x, P##_2 y)                                                \
    {                                                                                                     \
        VT s = _mm##W##_add_##S(x.x, y.x), v = _mm##W##_sub_##S(s, x.x);                                  \
        VT t = _mm##W##_add_##S(_mm##W##_sub_##S(x.x, _mm##W##_sub_##S(s, v)), _mm##W##_sub_##S(y.x, v)); \
        P##_2 r = {s, _mm##W##_add_##S(t, _mm##W##_add_##S(x.y, y.y))};                                   \
        return r;                                                                                         \
    }                                                                                                     \
    ATTR static inline P##_2 P##_add2_ps(P##_2 x, VT y)                                                   \
    {                                                                                                     \
        VT s = _mm##W##_add_##S(x.x, y), v = _mm##W##_sub_##S(s, x.x);                                    \
        VT t = _mm##W##_add_##S(_mm##W##_sub_##S(x.x, _mm##W##_sub_##S(s, v)), _mm##W##_sub_##S(y, v));   \
        P##_2 r = {s, _mm##W##_add_##S(t, x.y)};                                                          \
        return r;                                                                                         \
    }                                                                                                     \
    ATTR static inline P##_2 P##_add_sp(VT x, P##_2 y)                                                    \
    {                                                                                                     \
        VT s = _mm##W##_add_##S(x, y.x);                                                                  \
        P##_2 r = {s, _mm##W##_add_##S(_mm##W##_add_##S(_mm##W##_sub_##S(x, s), y.x), y.y)};              \
        return r;                                                                                         \
    }

SLEEF_PAIR_OPS(pw, __m512, 512, ps, PW_AVX512)
SLEEF_PAIR_OPS(pd, __m512d, 512, pd, PW_AVX512)

PW_AVX512 static inline __m512 pw_set(float v) { return _mm512_set1_ps(v); }
PW_AVX512 static inline __m512 pw_abs(__m512 v)
{
    return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7fffffff)));
}
/* x with its sign flipped where y's sign bit is set (SLEEF's vmulsign) */
PW_AVX512 static inline __m512 pw_mulsign(__m512 x, __m512 y)
{
    __m512i s = _mm512_and_si512(_mm512_castps_si512(y), _mm512_set1_epi32((int)0x80000000u));
    return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x), s));
}
/* o ? a : b */
PW_AVX512 static inline __m512 pw_sel(__mmask16 o, __m512 a, __m512 b) { return _mm512_mask_blend_ps(o, b, a); }

/* sleefsimdsp.c's logkf, the AVX512F branch: log(d) as a double-float */
PW_AVX512 static inline pw_2 pw_logkf(__m512 d)
{
    __m512 e = _mm512_getexp_ps(_mm512_mul_ps(d, pw_set(1.0f / 0.75f)));
    e = pw_sel(_mm512_cmp_ps_mask(e, pw_set(INFINITY), _CMP_EQ_OQ), pw_set(128.0f), e);
    __m512 m = _mm512_getmant_ps(d, _MM_MANT_NORM_p75_1p5, _MM_MANT_SIGN_nan);
    pw_2 x = pw_div_pp(pw_add2_ss(pw_set(-1.0f), m), pw_add2_ss(pw_set(1.0f), m));
    pw_2 x2 = pw_squ(x);
    __m512 t = pw_set(0.240320354700088500976562f);
    t = _mm512_fmadd_ps(t, x2.x, pw_set(0.285112679004669189453125f));
    t = _mm512_fmadd_ps(t, x2.x, pw_set(0.400007992982864379882812f));
    pw_2 c = {pw_set(0.66666662693023681640625f), pw_set(3.69183861259614332084311e-09f)};
    pw_2 l2 = {pw_set(0.69314718246459960938f), pw_set(-1.904654323148236017e-09f)};
    pw_2 s = pw_mul_ps(l2, e);
    pw_2 x2s = {_mm512_mul_ps(x.x, pw_set(2.0f)), _mm512_mul_ps(x.y, pw_set(2.0f))};
    s = pw_add_pp(s, x2s);
    s = pw_add_pp(s, pw_mul_pp(pw_mul_pp(x2, x), pw_add2_pp(pw_mul_ps(x2, t), c)));
    return s;
}

/* sleefsimdsp.c's vldexp_vf_vf_vi2: x * 2^q in five products (no overflow on the way) */
PW_AVX512 static inline __m512 pw_ldexp(__m512 x, __m512i q)
{
    __m512i m = _mm512_srai_epi32(q, 31);
    m = _mm512_slli_epi32(_mm512_sub_epi32(_mm512_srai_epi32(_mm512_add_epi32(m, q), 6), m), 4);
    q = _mm512_sub_epi32(q, _mm512_slli_epi32(m, 2));
    m = _mm512_add_epi32(m, _mm512_set1_epi32(0x7f));
    m = _mm512_max_epi32(m, _mm512_setzero_si512());     /* vand(vgt(m, 0), m) */
    m = _mm512_min_epi32(m, _mm512_set1_epi32(0xff));    /* m > 0xff ? 0xff : m */
    __m512 u = _mm512_castsi512_ps(_mm512_slli_epi32(m, 23));
    x = _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(x, u), u), u), u);
    u = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(q, _mm512_set1_epi32(0x7f)), 23));
    return _mm512_mul_ps(x, u);
}

#define PW_R_LN2f 1.442695040888963407359924681001892137426645954152985934135449406931f
#define PW_L2Uf 0.693145751953125f
#define PW_L2Lf 1.428606765330187045e-06f

/* sleefsimdsp.c's expkf: exp of a double-float */
PW_AVX512 static inline __m512 pw_expkf(pw_2 d)
{
    __m512 u = _mm512_mul_ps(_mm512_add_ps(d.x, d.y), pw_set(PW_R_LN2f));
    __m512i q = _mm512_cvtps_epi32(u);
    __m512 qf = _mm512_cvtepi32_ps(q);
    pw_2 s = pw_add2_ps(d, _mm512_mul_ps(qf, pw_set(-PW_L2Uf)));
    s = pw_add2_ps(s, _mm512_mul_ps(qf, pw_set(-PW_L2Lf)));
    {
        __m512 sum = _mm512_add_ps(s.x, s.y);
        s.y = _mm512_add_ps(_mm512_sub_ps(s.x, sum), s.y);
        s.x = sum;
    }
    u = pw_set(0.00136324646882712841033936f);
    u = _mm512_fmadd_ps(u, s.x, pw_set(0.00836596917361021041870117f));
    u = _mm512_fmadd_ps(u, s.x, pw_set(0.0416710823774337768554688f));
    u = _mm512_fmadd_ps(u, s.x, pw_set(0.166665524244308471679688f));
    u = _mm512_fmadd_ps(u, s.x, pw_set(0.499999850988388061523438f));
    pw_2 t = pw_add_pp(s, pw_mul_ps(pw_squ(s), u));
    t = pw_add_sp(pw_set(1.0f), t);
    u = pw_ldexp(_mm512_add_ps(t.x, t.y), q);
    __mmask16 tiny = _mm512_cmp_ps_mask(d.x, pw_set(-104.0f), _CMP_LT_OQ);
    return _mm512_mask_blend_ps(tiny, u, _mm512_setzero_ps());
}

/* sleefsimdsp.c's xpowf: Sleef_powf16_u10 */
PW_AVX512 static inline __attribute__((always_inline)) __m512 sleef_powf16(__m512 x, __m512 y)
{
    __m512 ay = pw_abs(y), one = pw_set(1.0f), zero = _mm512_setzero_ps(), inf = pw_set(INFINITY);
    __mmask16 yisint = _mm512_cmp_ps_mask(_mm512_roundscale_ps(y, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC), y, _CMP_EQ_OQ)
                       | _mm512_cmp_ps_mask(ay, pw_set((float)(1 << 24)), _CMP_GT_OQ);
    __m512i ti = _mm512_and_si512(_mm512_cvttps_epi32(y), _mm512_set1_epi32(1));
    __mmask16 yisodd = _mm512_cmpeq_epi32_mask(ti, _mm512_set1_epi32(1)) & yisint
                       & _mm512_cmp_ps_mask(ay, pw_set((float)(1 << 24)), _CMP_LT_OQ);

    __m512 result = pw_expkf(pw_mul_ps(pw_logkf(pw_abs(x)), y));
    result = pw_sel(_mm512_cmp_ps_mask(result, result, _CMP_NEQ_UQ), inf, result);
    __m512 sign = pw_sel(_mm512_cmp_ps_mask(x, zero, _CMP_GT_OQ), one,
                         pw_sel(yisint, pw_sel(yisodd, pw_set(-1.0f), one), pw_set(__builtin_nanf(""))));
    result = _mm512_mul_ps(result, sign);

    __m512 efx = pw_mulsign(_mm512_sub_ps(pw_abs(x), one), y);
    __m512 yinf = pw_sel(_mm512_cmp_ps_mask(efx, zero, _CMP_EQ_OQ), one, inf);
    yinf = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(efx, zero, _CMP_LT_OQ), yinf, zero);
    result = pw_sel(_mm512_cmp_ps_mask(ay, inf, _CMP_EQ_OQ), yinf, result);

    __mmask16 xzero = _mm512_cmp_ps_mask(x, zero, _CMP_EQ_OQ);
    __mmask16 ysign = _mm512_test_epi32_mask(_mm512_castps_si512(y), _mm512_set1_epi32((int)0x80000000u));
    __m512 edge = pw_mulsign(pw_sel((__mmask16)(ysign ^ xzero), zero, inf), pw_sel(yisodd, x, one));
    result = pw_sel(_mm512_cmp_ps_mask(pw_abs(x), inf, _CMP_EQ_OQ) | xzero, edge, result);

    __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_NEQ_UQ) | _mm512_cmp_ps_mask(y, y, _CMP_NEQ_UQ);
    result = _mm512_castsi512_ps(_mm512_mask_blend_epi32(nan, _mm512_castps_si512(result), _mm512_set1_epi32(-1)));

    __mmask16 ones = _mm512_cmp_ps_mask(y, zero, _CMP_EQ_OQ) | _mm512_cmp_ps_mask(x, one, _CMP_EQ_OQ);
    return pw_sel(ones, one, result);
}

/* o[i] = Sleef_powf16_u10(x[i], y[i]) for i < n; xs / ys 0: x[0] / y[0] at every i */
PW_AVX512 static void powf_block16(const float *x, Py_ssize_t xs, const float *y, Py_ssize_t ys, float *o, Py_ssize_t n)
{
    __m512 xb = _mm512_set1_ps(x[0]), yb = _mm512_set1_ps(y[0]);
    Py_ssize_t i = 0;
    for (; i + 32 <= n; i += 32) {  /* (two vectors a step: their long dependency chains overlap) */
        __m512 a0 = xs ? _mm512_loadu_ps(x + i) : xb, b0 = ys ? _mm512_loadu_ps(y + i) : yb;
        __m512 a1 = xs ? _mm512_loadu_ps(x + i + 16) : xb, b1 = ys ? _mm512_loadu_ps(y + i + 16) : yb;
        __m512 r0 = sleef_powf16(a0, b0), r1 = sleef_powf16(a1, b1);
        _mm512_storeu_ps(o + i, r0);
        _mm512_storeu_ps(o + i + 16, r1);
    }
    for (; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m512 a = xs ? _mm512_maskz_loadu_ps(k, x + i) : xb, b = ys ? _mm512_maskz_loadu_ps(k, y + i) : yb;
        _mm512_mask_storeu_ps(o + i, k, sleef_powf16(a, b));
    }
}

/* ---- double: sleefsimddp.c's xpow (Sleef_powd8_u10), logk / expk in double-double with dd.h's
 * ENABLE_FMA_DP forms, the polynomials by Estrin's scheme as estrin.h's POLY9 / POLY10 with fused steps */
PW_AVX512 static inline __m512d pd_set(double v) { return _mm512_set1_pd(v); }
PW_AVX512 static inline __m512d pd_abs(__m512d v)
{
    return _mm512_castsi512_pd(_mm512_and_si512(_mm512_castpd_si512(v), _mm512_set1_epi64(0x7fffffffffffffffLL)));
}
PW_AVX512 static inline __m512d pd_mulsign(__m512d x, __m512d y)
{
    __m512i s = _mm512_and_si512(_mm512_castpd_si512(y), _mm512_set1_epi64((long long)0x8000000000000000ULL));
    return _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(x), s));
}
PW_AVX512 static inline __m512d pd_sel(__mmask8 o, __m512d a, __m512d b) { return _mm512_mask_blend_pd(o, b, a); }
PW_AVX512 static inline __m512d pd_rint(__m512d v) { return _mm512_roundscale_pd(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }

#define PD_MLA(a, b, c) _mm512_fmadd_pd((a), (b), (c))
#define PD_POLY2(x, c1, c0) PD_MLA(x, pd_set(c1), pd_set(c0))
#define PD_POLY4(x, x2, c3, c2, c1, c0) PD_MLA(x2, PD_MLA(x, pd_set(c3), pd_set(c2)), PD_MLA(x, pd_set(c1), pd_set(c0)))
#define PD_POLY8(x, x2, x4, c7, c6, c5, c4, c3, c2, c1, c0) \
    PD_MLA(x4, PD_POLY4(x, x2, c7, c6, c5, c4), PD_POLY4(x, x2, c3, c2, c1, c0))

/* sleefsimddp.c's logk, the AVX512F branch */
PW_AVX512 static inline pd_2 pd_logk(__m512d d)
{
    __m512d e = _mm512_getexp_pd(_mm512_mul_pd(d, pd_set(1.0 / 0.75)));
    e = pd_sel(_mm512_cmp_pd_mask(e, pd_set(INFINITY), _CMP_EQ_OQ), pd_set(1024.0), e);
    __m512d m = _mm512_getmant_pd(d, _MM_MANT_NORM_p75_1p5, _MM_MANT_SIGN_nan);
    pd_2 x = pd_div_pp(pd_add2_ss(pd_set(-1.0), m), pd_add2_ss(pd_set(1.0), m));
    pd_2 x2 = pd_squ(x);
    __m512d x4 = _mm512_mul_pd(x2.x, x2.x), x8 = _mm512_mul_pd(x4, x4), x16 = _mm512_mul_pd(x8, x8);
    __m512d t = PD_MLA(x16, pd_set(0.116255524079935043668677),
                       PD_POLY8(x2.x, x4, x8, 0.103239680901072952701192, 0.117754809412463995466069,
                                0.13332981086846273921509, 0.153846227114512262845736, 0.181818180850050775676507,
                                0.222222222230083560345903, 0.285714285714249172087875, 0.400000000000000077715612));
    pd_2 c = {pd_set(0.666666666666666629659233), pd_set(3.80554962542412056336616e-17)};
    pd_2 l2 = {pd_set(0.693147180559945286226764), pd_set(2.319046813846299558417771e-17)};
    pd_2 s = pd_mul_ps(l2, e);
    pd_2 x2s = {_mm512_mul_pd(x.x, pd_set(2.0)), _mm512_mul_pd(x.y, pd_set(2.0))};
    s = pd_add_pp(s, x2s);
    x = pd_mul_pp(x2, x);
    s = pd_add_pp(s, pd_mul_pp(x, c));
    x = pd_mul_pp(x2, x);
    s = pd_add_pp(s, pd_mul_ps(x, t));
    return s;
}

/* commonfuncs.h's vpow2i_vd_vi: 2^q as bits, q an int32 lane */
PW_AVX512 static inline __m512d pd_pow2i(__m256i q)
{
    __m512i b = _mm512_cvtepi32_epi64(_mm256_add_epi32(q, _mm256_set1_epi32(0x3ff)));
    return _mm512_castsi512_pd(_mm512_slli_epi64(b, 52));
}

#define PW_L2U .69314718055966295651160180568695068359375
#define PW_L2L .28235290563031577122588448175013436025525412068e-12
#define PW_R_LN2 1.442695040888963407359924681001892137426645954152985934135449406931
#define PW_LOG_DBL_MAX 0x1.62e42fefa39efp+9

/* sleefsimddp.c's expk */
PW_AVX512 static inline __m512d pd_expk(pd_2 d)
{
    __m512d u = _mm512_mul_pd(_mm512_add_pd(d.x, d.y), pd_set(PW_R_LN2));
    __m512d dq = pd_rint(u);
    __m256i q = _mm512_cvtpd_epi32(dq);
    pd_2 s = pd_add2_ps(d, _mm512_mul_pd(dq, pd_set(-PW_L2U)));
    s = pd_add2_ps(s, _mm512_mul_pd(dq, pd_set(-PW_L2L)));
    {
        __m512d sum = _mm512_add_pd(s.x, s.y);
        s.y = _mm512_add_pd(_mm512_sub_pd(s.x, sum), s.y);
        s.x = sum;
    }
    __m512d s2 = _mm512_mul_pd(s.x, s.x), s4 = _mm512_mul_pd(s2, s2), s8 = _mm512_mul_pd(s4, s4);
    u = PD_MLA(s8, PD_POLY2(s.x, 2.51069683420950419527139e-08, 2.76286166770270649116855e-07),
               PD_POLY8(s.x, s2, s4, 2.75572496725023574143864e-06, 2.48014973989819794114153e-05,
                        0.000198412698809069797676111, 0.0013888888939977128960529, 0.00833333333332371417601081,
                        0.0416666666665409524128449, 0.166666666666666740681535, 0.500000000000000999200722));
    pd_2 t = pd_add_sp(pd_set(1.0), s);
    t = pd_add_pp(t, pd_mul_ps(pd_squ(s), u));
    u = _mm512_add_pd(t.x, t.y);
    __m256i h = _mm256_srai_epi32(q, 1);
    u = _mm512_mul_pd(_mm512_mul_pd(u, pd_pow2i(h)), pd_pow2i(_mm256_sub_epi32(q, h)));
    __mmask8 tiny = _mm512_cmp_pd_mask(d.x, pd_set(-1000.0), _CMP_LT_OQ);
    return _mm512_mask_blend_pd(tiny, u, _mm512_setzero_pd());
}

/* sleefsimddp.c's xpow: Sleef_powd8_u10 */
PW_AVX512 static inline __attribute__((always_inline)) __m512d sleef_pow8(__m512d x, __m512d y)
{
    __m512d one = pd_set(1.0), zero = _mm512_setzero_pd(), inf = pd_set(INFINITY);
    __mmask8 yisint = _mm512_cmp_pd_mask(pd_rint(y), y, _CMP_EQ_OQ);
    __m512d half = _mm512_mul_pd(y, pd_set(0.5));
    __mmask8 yisodd = _mm512_cmp_pd_mask(pd_rint(half), half, _CMP_NEQ_UQ) & yisint;

    pd_2 d = pd_mul_ps(pd_logk(pd_abs(x)), y);
    __m512d result = pd_expk(d);
    result = pd_sel(_mm512_cmp_pd_mask(d.x, pd_set(PW_LOG_DBL_MAX), _CMP_GT_OQ), inf, result);
    __m512d sign = pd_sel(_mm512_cmp_pd_mask(x, zero, _CMP_GT_OQ), one,
                          pd_sel(yisint, pd_sel(yisodd, pd_set(-1.0), one), pd_set(__builtin_nan(""))));
    result = _mm512_mul_pd(result, sign);

    __m512d efx = pd_mulsign(_mm512_sub_pd(pd_abs(x), one), y);
    __m512d yinf = pd_sel(_mm512_cmp_pd_mask(efx, zero, _CMP_EQ_OQ), one, inf);
    yinf = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(efx, zero, _CMP_LT_OQ), yinf, zero);
    result = pd_sel(_mm512_cmp_pd_mask(pd_abs(y), inf, _CMP_EQ_OQ), yinf, result);

    __mmask8 xzero = _mm512_cmp_pd_mask(x, zero, _CMP_EQ_OQ);
    __mmask8 ysign = _mm512_test_epi64_mask(_mm512_castpd_si512(y), _mm512_set1_epi64((long long)0x8000000000000000ULL));
    __m512d edge = pd_mulsign(pd_sel((__mmask8)(ysign ^ xzero), zero, inf), pd_sel(yisodd, x, one));
    result = pd_sel(_mm512_cmp_pd_mask(pd_abs(x), inf, _CMP_EQ_OQ) | xzero, edge, result);

    __mmask8 nan = _mm512_cmp_pd_mask(x, x, _CMP_NEQ_UQ) | _mm512_cmp_pd_mask(y, y, _CMP_NEQ_UQ);
    result = _mm512_castsi512_pd(_mm512_mask_blend_epi64(nan, _mm512_castpd_si512(result), _mm512_set1_epi64(-1)));

    __mmask8 ones = _mm512_cmp_pd_mask(y, zero, _CMP_EQ_OQ) | _mm512_cmp_pd_mask(x, one, _CMP_EQ_OQ);
    return pd_sel(ones, one, result);
}

/* o[i] = Sleef_powd8_u10(x[i], y[i]) for i < n; xs / ys 0: x[0] / y[0] at every i */
PW_AVX512 static void pow_block8(const double *x, Py_ssize_t xs, const double *y, Py_ssize_t ys, double *o, Py_ssize_t n)
{
    __m512d xb = _mm512_set1_pd(x[0]), yb = _mm512_set1_pd(y[0]);
    Py_ssize_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512d a0 = xs ? _mm512_loadu_pd(x + i) : xb, b0 = ys ? _mm512_loadu_pd(y + i) : yb;
        __m512d a1 = xs ? _mm512_loadu_pd(x + i + 8) : xb, b1 = ys ? _mm512_loadu_pd(y + i + 8) : yb;
        __m512d r0 = sleef_pow8(a0, b0), r1 = sleef_pow8(a1, b1);
        _mm512_storeu_pd(o + i, r0);
        _mm512_storeu_pd(o + i + 8, r1);
    }
    for (; i < n; i += 8) {
        __mmask8 k = n - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - i)) - 1);
        __m512d a = xs ? _mm512_maskz_loadu_pd(k, x + i) : xb, b = ys ? _mm512_maskz_loadu_pd(k, y + i) : yb;
        _mm512_mask_storeu_pd(o + i, k, sleef_pow8(a, b));
    }
}

#include "_sleef_pow8.h"  /* powf_block8, pow_block4: the AVX2 capability's Sleef_powf8_u10 / Sleef_powd4_u10 */

#endif /* HAVE_X86 */

/* PyTorch's scalar function of double: pow(x, y), or pow(x, e) with a number exponent */
static void pow_scalar_d(const double *x, Py_ssize_t xs, const double *y, Py_ssize_t ys, double *o, Py_ssize_t n,
                         int number, double e)
{
    for (Py_ssize_t i = 0; i < n; i++) o[i] = pow(x[xs ? i : 0], number ? e : y[ys ? i : 0]);
}

/* PyTorch's scalar function: powf(x, y), or with a number exponent pow in double rounded (scalar_exp) */
static void powf_scalar(const float *x, Py_ssize_t xs, const float *y, Py_ssize_t ys, float *o, Py_ssize_t n,
                        int number, double e)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        float a = x[xs ? i : 0];
        o[i] = number ? (float)pow((double)a, e) : powf(a, y[ys ? i : 0]);
    }
}

/* pow_run(x, y, out, mode, step, chunk, e[, form]): PyTorch's pow of C-contiguous float32 buffers into out (n
 * elements; float32 or float64, one dtype; x and y each of n elements or one, the one then at every element; out may be x or y, not
 * partly either). e None: tensor ** tensor; e a float: tensor ** e (y then holds e in the dtype: the
 * vectorized function's exponent). mode 0: the scalar function at every element, 1: the vectorized one
 * at every element, 2: PyTorch's loop over one row: the range cut into chunks of `chunk` (0: one), in
 * each the first len - len % step elements vectorized, the rest scalar (step: the caller's, from ATen's
 * capability: 32 under AVX512, 16 under AVX2, halved for double). form (pick_level's): -1 (the default)
 * the widest vector form the CPU runs, 1 AVX-512's Sleef_powf16_u10 / Sleef_powd8_u10, 2 AVX2's
 * Sleef_powf8_u10 / Sleef_powd4_u10: the same bits lane for lane (_sleef_pow8.h), so the lanes need not
 * be the capability's. Answers False (nothing written) where a vectorized element is asked and the CPU
 * lacks the form (or has neither AVX-512 nor AVX2 + FMA). */
static PyObject *py_pow_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 7 && nargs != 8) {
        PyErr_Format(PyExc_TypeError, "pow_run(x, y, out, mode, step, chunk, e[, form]) takes 7 or 8 arguments, not %zd",
                     nargs);
        return NULL;
    }
    long mode = PyLong_AsLong(args[3]);
    Py_ssize_t step = PyLong_AsSsize_t(args[4]), chunk = PyLong_AsSsize_t(args[5]);
    int number = args[6] != Py_None;
    double e = number ? PyFloat_AsDouble(args[6]) : 0.0;
    long form = nargs == 8 ? PyLong_AsLong(args[7]) : -1;
    if (PyErr_Occurred()) return NULL;
    if (mode < 0 || mode > 2 || step < 0 || chunk < 0 || (mode == 2 && step == 0)) {
        PyErr_SetString(PyExc_ValueError, "pow_run: mode 0, 1 or 2, step and chunk >= 0 (step > 0 in mode 2)");
        return NULL;
    }
    int wide = pick_level(form);
    if (mode && wide != W512 && wide != W256) Py_RETURN_FALSE;
    Py_buffer x, y, out;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &y, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    if (PyObject_GetBuffer(args[2], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        PyBuffer_Release(&y);
        return NULL;
    }
    PyObject *answer = NULL;
    int dbl = strcmp(out.format, "d") == 0;
    Py_ssize_t size = dbl ? 8 : 4, n = out.len / size;
    if ((!dbl && strcmp(out.format, "f") != 0) || strcmp(x.format, out.format) != 0 || strcmp(y.format, out.format) != 0
        || (x.len != out.len && x.len != size) || (y.len != out.len && y.len != size)) {
        PyErr_SetString(PyExc_ValueError,
                        "pow_run: x, y and out must be C-contiguous float32 (or float64) buffers of n or 1 elements");
        goto done;
    }
    if ((x.len == out.len && !apart_or_same(&x, &out)) || (y.len == out.len && !apart_or_same(&y, &out))) {
        PyErr_SetString(PyExc_ValueError, "pow_run: out overlaps x or y partly");
        goto done;
    }
    if (n) {
        Py_ssize_t xs = x.len == out.len, ys = y.len == out.len;  /* (0: the one element at every i) */
        Py_ssize_t piece = mode == 2 && chunk ? chunk : n;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t a = 0; a < n; a += piece) {
            Py_ssize_t m = n - a < piece ? n - a : piece, v = mode == 2 ? m - m % step : mode == 1 ? m : 0;
            Py_ssize_t xa = xs ? a : 0, ya = ys ? a : 0, xv = xs ? a + v : 0, yv = ys ? a + v : 0;
            if (dbl) {
                const double *xp = x.buf, *yp = y.buf;
                double *op = out.buf;
#if HAVE_X86
                if (v && wide == W512) pow_block8(xp + xa, xs, yp + ya, ys, op + a, v);
                if (v && wide == W256) pow_block4(xp + xa, xs, yp + ya, ys, op + a, v);
#endif
                pow_scalar_d(xp + xv, xs, yp + yv, ys, op + a + v, m - v, number, e);
            } else {
                const float *xp = x.buf, *yp = y.buf;
                float *op = out.buf;
#if HAVE_X86
                if (v && wide == W512) powf_block16(xp + xa, xs, yp + ya, ys, op + a, v);
                if (v && wide == W256) powf_block8(xp + xa, xs, yp + ya, ys, op + a, v);
#endif
                powf_scalar(xp + xv, xs, yp + yv, ys, op + a + v, m - v, number, e);
            }
        }
        Py_END_ALLOW_THREADS
    }
    answer = Py_True;
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&y);
    PyBuffer_Release(&out);
    Py_XINCREF(answer);
    return answer;
}
