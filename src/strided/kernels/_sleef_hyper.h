/* SLEEF's float and double sinh, cosh and atanh with 1-ulp accuracy (sleefsimdsp.c's xsinhf, xcoshf,
 * xatanhf; sleefsimddp.c's xsinh, xcosh, xatanh: one lane and four AVX2 lanes):
 * what ATen's Vectorized<float>::sinh() / cosh() / atanh() call, Sleef_sinhf8_u10 (...) under the AVX2
 * capability, Sleef_sinhf16_u10 (...) under AVX512: the same steps per lane, every vmla / vfma /
 * vfmapn / vfmanp of df.h one fused step. One lane in plain C (fmaf), eight lanes in AVX2 with FMA
 * and sixteen in AVX-512F: the same bits (tests/test_hyp39.py and tests/test_trans41.py compare every
 * form against torch). xatanhf's logk2f takes the exponent by vilogbk in the AVX2 build (the
 * eight-lane form here) and by vgetexp in the AVX512 one (the sixteen-lane form): equal for the
 * positive normal quotients it sees; a lane where they differ, |x| >= 1, is replaced by the
 * selects. (The sixteen-lane form is ATen's speed on an AVX-512 CPU: the eight-lane one took
 * 1.23-1.41x torch's time there.)
 *
 * sinh |x| = (E - 1/E) / 2 and cosh |x| = (E + 1/E) / 2 with E = exp |x| in double-float arithmetic
 * (expk2f, as _sleef_tanh.h's tanh), 1/E by dfrec; |x| > 89 or a NaN sum gives inf; sinh puts x's
 * sign on. atanh |x| = log((1 + |x|) / (1 - |x|)) / 2 with logk2f, a double-float log; |x| > 1 (and
 * +-inf) gives the all-ones word with x's sign bit flipped in (SLEEF's vmulsign of the or-ed mask:
 * 0xFFFFFFFF for x > 1, 0x7FFFFFFF for x < -1), |x| == 1 +-inf. A NaN x gives the all-ones word
 * (each function ors the isnan mask in last). The includer has included _sleef_tanh.h. */
#ifndef STRIDED_SLEEF_HYPER_H
#define STRIDED_SLEEF_HYPER_H

static inline float hy_f(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* xsinhf (sign 1) / xcoshf (sign 0), one lane */
static SLEEF_AI float sleef_sinhcoshf(float x, int sinh)
{
    float y = fabsf(x);
    if (!(y <= 89.0f))  /* (beyond 89: inf with x's sign for sinh; NaN: the all-ones word) */
        return x != x ? hy_f(0xFFFFFFFFu) : sinh && signbit(x) ? -INFINITY : INFINITY;
    sleef_tf2 d = tf_expk2(y);
    float rs = 1.0f / d.x;  /* e = dfrec(d) */
    sleef_tf2 e = {rs, rs * fmaf(-d.y, rs, fmaf(-d.x, rs, 1.0f))};
    float sx, sy;
    if (sinh) {  /* dfsub_vf2_vf2_vf2(d, e) */
        sx = d.x - e.x;
        sy = (((d.x - sx) - e.x) + d.y) - e.y;
    } else {  /* dfadd_vf2_vf2_vf2(d, e) */
        sx = d.x + e.x;
        sy = (((d.x - sx) + e.x) + d.y) + e.y;
    }
    float r = (sx + sy) * 0.5f;
    if (r != r) r = INFINITY;  /* (an overflowing E near 89) */
    return sinh && signbit(x) ? -r : r;
}

/* dfdiv_vf2_vf2_vf2 (FMA) */
static inline sleef_tf2 hy_div(sleef_tf2 n, sleef_tf2 d)
{
    float t = 1.0f / d.x, s = n.x * t;
    float u = fmaf(t, n.x, -s);
    float v = fmaf(-d.y, t, fmaf(-d.x, t, 1.0f));
    sleef_tf2 r = {s, fmaf(s, v, fmaf(n.y, t, u))};
    return r;
}

/* dfadd2_vf2_vf_vf */
static inline sleef_tf2 hy_add2_ff(float x, float y)
{
    float s = x + y, v = s - x;
    sleef_tf2 r = {s, (x - (s - v)) + (y - v)};
    return r;
}

/* xatanhf, one lane */
static SLEEF_AI float sleef_atanhf(float x)
{
    float y = fabsf(x);
    if (!(y < 1.0f)) {  /* |x| > 1, +-inf, NaN: the or-ed masks; |x| == 1: +-inf */
        uint32_t b;
        memcpy(&b, &x, sizeof b);
        if (y == 1.0f) return hy_f((b & 0x80000000u) | 0x7F800000u);
        return hy_f(x != x ? 0xFFFFFFFFu : 0xFFFFFFFFu ^ (b & 0x80000000u));
    }
    sleef_tf2 d = hy_div(hy_add2_ff(1.0f, y), hy_add2_ff(1.0f, -y));
    /* logk2f(d): d >= 1 here, a positive normal double-float */
    uint32_t db;
    float dd = d.x * (1.0f / 0.75f);
    memcpy(&db, &dd, sizeof db);
    int32_t e = (int32_t)((db >> 23) & 0xff) - 0x7f;  /* (vilogbk: dd is far above its 5.4e-20 cut) */
    float sc = tf_pow2i(-e);
    sleef_tf2 m = {d.x * sc, d.y * sc};
    sleef_tf2 xx = hy_div(tf_add2_f2f(m, -1.0f), tf_add2_f2f(m, 1.0f));
    sleef_tf2 x2 = tf_squ(xx);
    float t = 0.2392828464508056640625f;
    t = fmaf(t, x2.x, 0.28518211841583251953125f);
    t = fmaf(t, x2.x, 0.400005877017974853515625f);
    t = fmaf(t, x2.x, 0.666666686534881591796875f);
    sleef_tf2 c = {0.69314718246459960938f, -1.904654323148236017e-09f};
    sleef_tf2 s = tf_mul_f2f(c, (float)e);
    sleef_tf2 x2s = {xx.x * 2.0f, xx.y * 2.0f};
    s = tf_add_f2f2(s, x2s);
    s = tf_add_f2f2(s, tf_mul_f2f(tf_mul_f2f2(x2, xx), t));
    float r = (s.x + s.y) * 0.5f;
    if (r != r) return hy_f(0xFFFFFFFFu);  /* (isnan(y): the or-ed mask; not reached for |x| < 1) */
    return signbit(x) ? -r : r;
}

/* ---- double: sleefsimddp.c's xsinh, xcosh, xatanh (Sleef_sinhd4_u10 ... under AVX2, Sleef_sinhd8_u10
 * under AVX512; one lane here, four AVX2 lanes and eight AVX-512F lanes below, the same bits) ---- */
static inline double hy_d(uint64_t b)
{
    double f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* xsinh (sign 1) / xcosh (sign 0), one lane: |x| > 710 or a NaN sum gives inf */
static SLEEF_AI double sleef_sinhcosh(double x, int sinh)
{
    double y = fabs(x);
    if (!(y <= 710.0))
        return x != x ? hy_d(0xFFFFFFFFFFFFFFFFull) : sinh && signbit(x) ? -INFINITY : INFINITY;
    sleef_td2 d = td_expk2(y);
    double rs = 1.0 / d.x;  /* e = ddrec(d) */
    sleef_td2 e = {rs, rs * fma(-d.y, rs, fma(-d.x, rs, 1.0))};
    double sx, sy;
    if (sinh) {  /* ddsub_vd2_vd2_vd2(d, e) */
        sx = d.x - e.x;
        sy = (((d.x - sx) - e.x) + d.y) - e.y;
    } else {  /* ddadd_vd2_vd2_vd2(d, e) */
        sx = d.x + e.x;
        sy = (((d.x - sx) + e.x) + d.y) + e.y;
    }
    double r = (sx + sy) * 0.5;
    if (r != r) r = INFINITY;
    return sinh && signbit(x) ? -r : r;
}

/* dddiv_vd2_vd2_vd2 (FMA) */
static inline sleef_td2 hy_div_d(sleef_td2 n, sleef_td2 d)
{
    double t = 1.0 / d.x, s = n.x * t;
    double u = fma(t, n.x, -s);
    double v = fma(-d.y, t, fma(-d.x, t, 1.0));
    sleef_td2 r = {s, fma(s, v, fma(n.y, t, u))};
    return r;
}

/* ddadd2_vd2_vd_vd */
static inline sleef_td2 hy_add2_dd(double x, double y)
{
    double s = x + y, v = s - x;
    sleef_td2 r = {s, (x - (s - v)) + (y - v)};
    return r;
}

/* xatanh, one lane: |x| > 1, +-inf and NaN give the all-ones word (double's order: the sign is put
 * on before the isnan mask is or-ed in, so x < -1 too), |x| == 1 +-inf */
static SLEEF_AI double sleef_atanh(double x)
{
    double y = fabs(x);
    if (!(y < 1.0))
        return y == 1.0 ? (signbit(x) ? -INFINITY : INFINITY) : hy_d(0xFFFFFFFFFFFFFFFFull);
    sleef_td2 d = hy_div_d(hy_add2_dd(1.0, y), hy_add2_dd(1.0, -y));
    /* logk2(d): d >= 1, a positive normal double-double */
    uint64_t db;
    double dd = d.x * (1.0 / 0.75);
    memcpy(&db, &dd, sizeof db);
    int32_t e = (int32_t)((db >> 52) & 0x7ff) - 0x3ff;  /* (vilogbk: dd is far above its 4.9e-91 cut) */
    int32_t ne = -e, h = ne >> 1;  /* (vldexp2: two factors) */
    sleef_td2 m = {d.x * td_pow2i(h) * td_pow2i(ne - h), d.y * td_pow2i(h) * td_pow2i(ne - h)};
    sleef_td2 xx = hy_div_d(td_add2_d2d(m, -1.0), td_add2_d2d(m, 1.0));
    sleef_td2 x2 = td_squ(xx);
    double x1 = x2.x, x4 = x1 * x1, x8 = x4 * x4;
    double t = fma(x8, fma(x4, 0.13860436390467167910856, fma(x1, 0.131699838841615374240845, 0.153914168346271945653214)),
                   fma(x4, fma(x1, 0.181816523941564611721589, 0.22222224632662035403996),
                       fma(x1, 0.285714285511134091777308, 0.400000000000914013309483)));
    t = fma(t, x1, 0.666666666666664853302393);
    sleef_td2 c = {0.693147180559945286226764, 2.319046813846299558417771e-17};
    sleef_td2 s = td_mul_d2d(c, (double)e);
    sleef_td2 x2s = {xx.x * 2.0, xx.y * 2.0};
    s = td_add_d2d2(s, x2s);
    s = td_add_d2d2(s, td_mul_d2d(td_mul_d2d2(x2, xx), t));
    double r = (s.x + s.y) * 0.5;
    if (r != r) return hy_d(0xFFFFFFFFFFFFFFFFull);
    return signbit(x) ? -r : r;
}

#if defined(__GNUC__) && defined(__x86_64__)
/* dfadd2_vf2_vf2_vf, eight lanes */
#define HY8_ADD2_F2F(sx, sy, xx, xy, yv) do { __m256 s_ = _mm256_add_ps(xx, yv), v_ = _mm256_sub_ps(s_, xx); \
    sy = _mm256_add_ps(_mm256_add_ps(_mm256_sub_ps(xx, _mm256_sub_ps(s_, v_)), _mm256_sub_ps(yv, v_)), xy); sx = s_; } while (0)

/* sleef_sinhcoshf, eight lanes: the same bits */
__attribute__((target("avx2,fma"))) static __m256 sleef_sinhcoshf8(__m256 x, int sinh)
{
    const __m256 sign = _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000u)), one = _mm256_set1_ps(1.0f);
    __m256 y = _mm256_andnot_ps(sign, x), dx, dy;
    tf8_expk2(y, &dx, &dy);
    __m256 rs = _mm256_div_ps(one, dx);
    __m256 ey = _mm256_mul_ps(rs, _mm256_fnmadd_ps(dy, rs, _mm256_fnmadd_ps(dx, rs, one)));
    __m256 sx, sy;
    if (sinh) {
        sx = _mm256_sub_ps(dx, rs);
        sy = _mm256_sub_ps(_mm256_add_ps(_mm256_sub_ps(_mm256_sub_ps(dx, sx), rs), dy), ey);
    } else {
        sx = _mm256_add_ps(dx, rs);
        sy = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_sub_ps(dx, sx), rs), dy), ey);
    }
    __m256 r = _mm256_mul_ps(_mm256_add_ps(sx, sy), _mm256_set1_ps(0.5f));
    __m256 big = _mm256_or_ps(_mm256_cmp_ps(y, _mm256_set1_ps(89.0f), _CMP_GT_OQ), _mm256_cmp_ps(r, r, _CMP_UNORD_Q));
    r = _mm256_blendv_ps(r, _mm256_set1_ps(INFINITY), big);
    if (sinh) r = _mm256_xor_ps(r, _mm256_and_ps(x, sign));
    return _mm256_or_ps(r, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

/* dfadd2_vf2_vf_vf, eight lanes (no low part added: HY8_ADD2_F2F's + 0 would make a -0 low part +0) */
#define HY8_ADD2_FF(sx, sy, xv, yv) do { __m256 s_ = _mm256_add_ps(xv, yv), v_ = _mm256_sub_ps(s_, xv); \
    sy = _mm256_add_ps(_mm256_sub_ps(xv, _mm256_sub_ps(s_, v_)), _mm256_sub_ps(yv, v_)); sx = s_; } while (0)

/* dfdiv_vf2_vf2_vf2, eight lanes */
#define HY8_DIV(rx, ry, nx, ny, dx, dy) do { __m256 t_ = _mm256_div_ps(one, dx), s_ = _mm256_mul_ps(nx, t_); \
    __m256 u_ = _mm256_fmsub_ps(t_, nx, s_); \
    __m256 v_ = _mm256_fnmadd_ps(dy, t_, _mm256_fnmadd_ps(dx, t_, one)); \
    ry = _mm256_fmadd_ps(s_, v_, _mm256_fmadd_ps(ny, t_, u_)); rx = s_; } while (0)

/* sleef_atanhf, eight lanes: the same bits */
__attribute__((target("avx2,fma"))) static __m256 sleef_atanhf8(__m256 x)
{
    const __m256 sign = _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000u)), one = _mm256_set1_ps(1.0f);
    __m256 y = _mm256_andnot_ps(sign, x);
    __m256 ax, ay, bx, by, dx, dy;
    HY8_ADD2_FF(ax, ay, one, y);
    HY8_ADD2_FF(bx, by, one, _mm256_xor_ps(y, sign));
    HY8_DIV(dx, dy, ax, ay, bx, by);
    /* logk2f(d): e = vilogbk(d.x / 0.75) */
    __m256 dd = _mm256_mul_ps(dx, _mm256_set1_ps(1.0f / 0.75f));
    __m256 o = _mm256_cmp_ps(dd, _mm256_set1_ps(5.421010862427522E-20f), _CMP_LT_OQ);
    dd = _mm256_blendv_ps(dd, _mm256_mul_ps(dd, _mm256_set1_ps(1.8446744073709552E19f)), o);
    __m256i e = _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(dd), 23), _mm256_set1_epi32(0xff));
    e = _mm256_sub_epi32(e, _mm256_blendv_epi8(_mm256_set1_epi32(0x7f), _mm256_set1_epi32(64 + 0x7f), _mm256_castps_si256(o)));
    __m256 sc = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(_mm256_setzero_si256(), e),
                                                                        _mm256_set1_epi32(0x7f)), 23));
    __m256 mx = _mm256_mul_ps(dx, sc), my = _mm256_mul_ps(dy, sc);
    __m256 nx, ny, px, py, xx, xy;
    HY8_ADD2_F2F(nx, ny, mx, my, _mm256_set1_ps(-1.0f));
    HY8_ADD2_F2F(px, py, mx, my, one);
    HY8_DIV(xx, xy, nx, ny, px, py);
    __m256 x2x = _mm256_mul_ps(xx, xx);
    __m256 x2y = _mm256_fmadd_ps(_mm256_add_ps(xx, xx), xy, _mm256_fmsub_ps(xx, xx, x2x));
    __m256 t = _mm256_set1_ps(0.2392828464508056640625f);
    t = _mm256_fmadd_ps(t, x2x, _mm256_set1_ps(0.28518211841583251953125f));
    t = _mm256_fmadd_ps(t, x2x, _mm256_set1_ps(0.400005877017974853515625f));
    t = _mm256_fmadd_ps(t, x2x, _mm256_set1_ps(0.666666686534881591796875f));
    __m256 ef = _mm256_cvtepi32_ps(e), c1 = _mm256_set1_ps(0.69314718246459960938f);
    __m256 sx = _mm256_mul_ps(c1, ef);  /* s = dfmul((c1, c2), e) */
    __m256 sy = _mm256_fmadd_ps(_mm256_set1_ps(-1.904654323148236017e-09f), ef, _mm256_fmsub_ps(c1, ef, sx));
    {  /* s = dfadd(s, 2x) */
        __m256 zx = _mm256_add_ps(xx, xx), zy = _mm256_add_ps(xy, xy), s_ = _mm256_add_ps(sx, zx);
        sy = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_sub_ps(sx, s_), zx), sy), zy);
        sx = s_;
    }
    {  /* s = dfadd(s, dfmul(dfmul(x2, x), t)) */
        __m256 wx = _mm256_mul_ps(x2x, xx);
        __m256 wy = _mm256_fmadd_ps(x2x, xy, _mm256_fmadd_ps(x2y, xx, _mm256_fmsub_ps(x2x, xx, wx)));
        __m256 zx = _mm256_mul_ps(wx, t), zy = _mm256_fmadd_ps(wy, t, _mm256_fmsub_ps(wx, t, zx));
        __m256 s_ = _mm256_add_ps(sx, zx);
        sy = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_sub_ps(sx, s_), zx), sy), zy);
        sx = s_;
    }
    __m256 r = _mm256_mul_ps(_mm256_add_ps(sx, sy), _mm256_set1_ps(0.5f));
    r = _mm256_blendv_ps(r, _mm256_set1_ps(INFINITY), _mm256_cmp_ps(y, one, _CMP_EQ_OQ));
    r = _mm256_or_ps(r, _mm256_cmp_ps(y, one, _CMP_GT_OQ));
    __m256 isinf = _mm256_cmp_ps(y, _mm256_set1_ps(INFINITY), _CMP_EQ_OQ);
    r = _mm256_or_ps(r, _mm256_or_ps(isinf, _mm256_cmp_ps(r, r, _CMP_UNORD_Q)));
    r = _mm256_xor_ps(r, _mm256_and_ps(x, sign));
    return _mm256_or_ps(r, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}
#undef HY8_ADD2_F2F
#undef HY8_ADD2_FF
#undef HY8_DIV
/* ---- sixteen float lanes (AVX-512F; Sleef_sinhf16_u10 / coshf16 / atanhf16 under ATen's AVX512
 * capability): the eight-lane forms' steps per lane, the same bits (logic ops on the integer
 * words: _mm512_or_ps and its kin need AVX512DQ) ---- */
#define HY16_I(v) _mm512_castps_si512(v)
#define HY16_F(v) _mm512_castsi512_ps(v)
#define HY16_ADD2_F2F(sx, sy, xx, xy, yv) do { __m512 s_ = _mm512_add_ps(xx, yv), v_ = _mm512_sub_ps(s_, xx); \
    sy = _mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(xx, _mm512_sub_ps(s_, v_)), _mm512_sub_ps(yv, v_)), xy); sx = s_; } while (0)
#define HY16_ADD2_FF(sx, sy, xv, yv) do { __m512 s_ = _mm512_add_ps(xv, yv), v_ = _mm512_sub_ps(s_, xv); \
    sy = _mm512_add_ps(_mm512_sub_ps(xv, _mm512_sub_ps(s_, v_)), _mm512_sub_ps(yv, v_)); sx = s_; } while (0)
#define HY16_DIV(rx, ry, nx, ny, dx, dy) do { __m512 t_ = _mm512_div_ps(one, dx), s_ = _mm512_mul_ps(nx, t_); \
    __m512 u_ = _mm512_fmsub_ps(t_, nx, s_); \
    __m512 v_ = _mm512_fnmadd_ps(dy, t_, _mm512_fnmadd_ps(dx, t_, one)); \
    ry = _mm512_fmadd_ps(s_, v_, _mm512_fmadd_ps(ny, t_, u_)); rx = s_; } while (0)

/* sleef_sinhcoshf8, sixteen lanes */
__attribute__((target("avx512f"))) static __m512 sleef_sinhcoshf16(__m512 x, int sinh)
{
    const __m512i sign = _mm512_set1_epi32((int)0x80000000u);
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 y = HY16_F(_mm512_andnot_si512(sign, HY16_I(x))), dx, dy;
    tf16_expk2(y, &dx, &dy);
    __m512 rs = _mm512_div_ps(one, dx);
    __m512 ey = _mm512_mul_ps(rs, _mm512_fnmadd_ps(dy, rs, _mm512_fnmadd_ps(dx, rs, one)));
    __m512 sx, sy;
    if (sinh) {
        sx = _mm512_sub_ps(dx, rs);
        sy = _mm512_sub_ps(_mm512_add_ps(_mm512_sub_ps(_mm512_sub_ps(dx, sx), rs), dy), ey);
    } else {
        sx = _mm512_add_ps(dx, rs);
        sy = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(dx, sx), rs), dy), ey);
    }
    __m512 r = _mm512_mul_ps(_mm512_add_ps(sx, sy), _mm512_set1_ps(0.5f));
    __mmask16 big = _mm512_cmp_ps_mask(y, _mm512_set1_ps(89.0f), _CMP_GT_OQ) | _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q);
    __m512i rb = HY16_I(_mm512_mask_mov_ps(r, big, _mm512_set1_ps(INFINITY)));
    if (sinh) rb = _mm512_xor_si512(rb, _mm512_and_si512(HY16_I(x), sign));
    return HY16_F(_mm512_mask_mov_epi32(rb, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), _mm512_set1_epi32(-1)));
}

/* sleef_atanhf8, sixteen lanes */
__attribute__((target("avx512f"))) static __m512 sleef_atanhf16(__m512 x)
{
    const __m512i sign = _mm512_set1_epi32((int)0x80000000u);
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 y = HY16_F(_mm512_andnot_si512(sign, HY16_I(x)));
    __m512 ax, ay, bx, by, dx, dy;
    HY16_ADD2_FF(ax, ay, one, y);
    HY16_ADD2_FF(bx, by, one, HY16_F(_mm512_xor_si512(HY16_I(y), sign)));
    HY16_DIV(dx, dy, ax, ay, bx, by);
    /* logk2f(d): e = vrint(vgetexp(d.x / 0.75)), as SLEEF's AVX-512 build takes it (vilogbk's value for
     * the normal d >= 1 of the lanes kept; the others are replaced below) */
    __m512i e = _mm512_cvtps_epi32(_mm512_getexp_ps(_mm512_mul_ps(dx, _mm512_set1_ps(1.0f / 0.75f))));
    __m512 sc = HY16_F(_mm512_slli_epi32(_mm512_add_epi32(_mm512_sub_epi32(_mm512_setzero_si512(), e),
                                                           _mm512_set1_epi32(0x7f)), 23));
    __m512 mx = _mm512_mul_ps(dx, sc), my = _mm512_mul_ps(dy, sc);
    __m512 nx, ny, px, py, xx, xy;
    HY16_ADD2_F2F(nx, ny, mx, my, _mm512_set1_ps(-1.0f));
    HY16_ADD2_F2F(px, py, mx, my, one);
    HY16_DIV(xx, xy, nx, ny, px, py);
    __m512 x2x = _mm512_mul_ps(xx, xx);
    __m512 x2y = _mm512_fmadd_ps(_mm512_add_ps(xx, xx), xy, _mm512_fmsub_ps(xx, xx, x2x));
    __m512 t = _mm512_set1_ps(0.2392828464508056640625f);
    t = _mm512_fmadd_ps(t, x2x, _mm512_set1_ps(0.28518211841583251953125f));
    t = _mm512_fmadd_ps(t, x2x, _mm512_set1_ps(0.400005877017974853515625f));
    t = _mm512_fmadd_ps(t, x2x, _mm512_set1_ps(0.666666686534881591796875f));
    __m512 ef = _mm512_cvtepi32_ps(e), c1 = _mm512_set1_ps(0.69314718246459960938f);
    __m512 sx = _mm512_mul_ps(c1, ef);  /* s = dfmul((c1, c2), e) */
    __m512 sy = _mm512_fmadd_ps(_mm512_set1_ps(-1.904654323148236017e-09f), ef, _mm512_fmsub_ps(c1, ef, sx));
    {  /* s = dfadd(s, 2x) */
        __m512 zx = _mm512_add_ps(xx, xx), zy = _mm512_add_ps(xy, xy), s_ = _mm512_add_ps(sx, zx);
        sy = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(sx, s_), zx), sy), zy);
        sx = s_;
    }
    {  /* s = dfadd(s, dfmul(dfmul(x2, x), t)) */
        __m512 wx = _mm512_mul_ps(x2x, xx);
        __m512 wy = _mm512_fmadd_ps(x2x, xy, _mm512_fmadd_ps(x2y, xx, _mm512_fmsub_ps(x2x, xx, wx)));
        __m512 zx = _mm512_mul_ps(wx, t), zy = _mm512_fmadd_ps(wy, t, _mm512_fmsub_ps(wx, t, zx));
        __m512 s_ = _mm512_add_ps(sx, zx);
        sy = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(sx, s_), zx), sy), zy);
        sx = s_;
    }
    __m512 r = _mm512_mul_ps(_mm512_add_ps(sx, sy), _mm512_set1_ps(0.5f));
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(y, one, _CMP_EQ_OQ), _mm512_set1_ps(INFINITY));
    __mmask16 ones = _mm512_cmp_ps_mask(y, one, _CMP_GT_OQ) | _mm512_cmp_ps_mask(y, _mm512_set1_ps(INFINITY), _CMP_EQ_OQ)
                     | _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q);
    __m512i rb = _mm512_mask_mov_epi32(HY16_I(r), ones, _mm512_set1_epi32(-1));
    rb = _mm512_xor_si512(rb, _mm512_and_si512(HY16_I(x), sign));
    return HY16_F(_mm512_mask_mov_epi32(rb, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), _mm512_set1_epi32(-1)));
}
#undef HY16_I
#undef HY16_F
#undef HY16_ADD2_F2F
#undef HY16_ADD2_FF
#undef HY16_DIV
/* ---- double, four lanes (AVX2 with FMA, Sleef_sinhd4_u10 / coshd4 / atanhd4): the one-lane forms'
 * steps per lane, the same bits; every lane computed, the edge lanes (|x| > 710, >= 1, NaN) then
 * replaced by the selects, as SLEEF's vector code does ---- */
#define HD4(c) _mm256_set1_pd(c)
/* ddadd2_vd2_vd_vd (no low part), ddadd2_vd2_vd2_vd (low part xy added last) */
#define HD4_ADD2_DD(sx, sy, xv, yv) do { __m256d s_ = _mm256_add_pd(xv, yv), v_ = _mm256_sub_pd(s_, xv); \
    sy = _mm256_add_pd(_mm256_sub_pd(xv, _mm256_sub_pd(s_, v_)), _mm256_sub_pd(yv, v_)); sx = s_; } while (0)
#define HD4_ADD2_D2D(sx, sy, xx, xy, yv) do { __m256d s_ = _mm256_add_pd(xx, yv), v_ = _mm256_sub_pd(s_, xx); \
    sy = _mm256_add_pd(_mm256_add_pd(_mm256_sub_pd(xx, _mm256_sub_pd(s_, v_)), _mm256_sub_pd(yv, v_)), xy); sx = s_; } while (0)
/* ddadd_vd2_vd2_vd2 (|x| >= |y|) */
#define HD4_ADD_D2D2(sx, sy, yx, yy) do { __m256d s_ = _mm256_add_pd(sx, yx); \
    sy = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_sub_pd(sx, s_), yx), sy), yy); sx = s_; } while (0)
/* ddadd_vd2_vd_vd2 with x a constant */
#define HD4_ADD_DD2(tx, ty, c, ax, ay) do { tx = _mm256_add_pd(c, ax); \
    ty = _mm256_add_pd(_mm256_add_pd(_mm256_sub_pd(c, tx), ax), ay); } while (0)
/* dddiv_vd2_vd2_vd2 */
#define HD4_DIV(rx, ry, nx, ny, dx, dy) do { __m256d t_ = _mm256_div_pd(one, dx), s_ = _mm256_mul_pd(nx, t_); \
    __m256d u_ = _mm256_fmsub_pd(t_, nx, s_); \
    __m256d v_ = _mm256_fnmadd_pd(dy, t_, _mm256_fnmadd_pd(dx, t_, one)); \
    ry = _mm256_fmadd_pd(s_, v_, _mm256_fmadd_pd(ny, t_, u_)); rx = s_; } while (0)

/* 2^q for four int32 q (as td_pow2i) */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256d hd4_pow2i(__m128i q)
{
    __m256i b = _mm256_add_epi64(_mm256_cvtepi32_epi64(q), _mm256_set1_epi64x(0x3ff));
    return _mm256_castsi256_pd(_mm256_slli_epi64(b, 52));
}

/* td_expk2, four lanes (any y: a lane beyond 710 or NaN gives garbage the callers replace) */
__attribute__((target("avx2,fma"), always_inline)) static inline void td4_expk2(__m256d y, __m256d *dxo, __m256d *dyo)
{
    const __m256d one = HD4(1.0);
    __m256d dq = _mm256_round_pd(_mm256_mul_pd(y, HD4(TD_R_LN2)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m128i q = _mm256_cvtpd_epi32(dq);
    __m256d sx, sy;
    HD4_ADD2_D2D(sx, sy, y, _mm256_setzero_pd(), _mm256_mul_pd(dq, HD4(-TD_L2U)));
    HD4_ADD2_D2D(sx, sy, sx, sy, _mm256_mul_pd(dq, HD4(-TD_L2L)));
    __m256d s2x = _mm256_mul_pd(sx, sx);
    __m256d s2y = _mm256_fmadd_pd(_mm256_add_pd(sx, sx), sy, _mm256_fmsub_pd(sx, sx, s2x));
    __m256d s4x = _mm256_mul_pd(s2x, s2x);
    __m256d s4y = _mm256_fmadd_pd(_mm256_add_pd(s2x, s2x), s2y, _mm256_fmsub_pd(s2x, s2x, s4x));
    __m256d x8 = _mm256_mul_pd(s4x, s4x);
    __m256d p8 = _mm256_fmadd_pd(s4x, _mm256_fmadd_pd(s2x, _mm256_fmadd_pd(sx, HD4(TD_EXPK2_C7), HD4(TD_EXPK2_C6)),
                                                       _mm256_fmadd_pd(sx, HD4(TD_EXPK2_C5), HD4(TD_EXPK2_C4))),
                                 _mm256_fmadd_pd(s2x, _mm256_fmadd_pd(sx, HD4(TD_EXPK2_C3), HD4(TD_EXPK2_C2)),
                                                 _mm256_fmadd_pd(sx, HD4(TD_EXPK2_C1), HD4(TD_EXPK2_C0))));
    __m256d u = _mm256_fmadd_pd(x8, _mm256_fmadd_pd(sx, HD4(TD_EXPK2_C9), HD4(TD_EXPK2_C8)), p8);
    __m256d tx, ty, ax, ay, c = HD4(+0.1666666666666666574e+0);
    ax = _mm256_mul_pd(sx, c);  /* t = ddadd(0.5, ddmul(s, 1/6)) */
    ay = _mm256_fmadd_pd(sy, c, _mm256_fmsub_pd(sx, c, ax));
    HD4_ADD_DD2(tx, ty, HD4(0.5), ax, ay);
    for (int k = 0; k < 2; k++) {  /* t = ddadd(1, ddmul(t, s)), twice */
        ax = _mm256_mul_pd(tx, sx);
        ay = _mm256_fmadd_pd(tx, sy, _mm256_fmadd_pd(ty, sx, _mm256_fmsub_pd(tx, sx, ax)));
        HD4_ADD_DD2(tx, ty, one, ax, ay);
    }
    ax = _mm256_mul_pd(s4x, u);  /* t = ddadd(t, ddmul(s4, u)) */
    ay = _mm256_fmadd_pd(s4y, u, _mm256_fmsub_pd(s4x, u, ax));
    HD4_ADD_D2D2(tx, ty, ax, ay);
    __m128i h = _mm_srai_epi32(q, 1);
    __m256d p1 = hd4_pow2i(h), p2 = hd4_pow2i(_mm_sub_epi32(q, h));
    *dxo = _mm256_mul_pd(_mm256_mul_pd(tx, p1), p2);
    *dyo = _mm256_mul_pd(_mm256_mul_pd(ty, p1), p2);
}

/* sleef_sinhcosh, four lanes: the same bits */
__attribute__((target("avx2,fma"))) static __m256d sleef_sinhcosh4(__m256d x, int sinh)
{
    const __m256d sign = HD4(-0.0), one = HD4(1.0);
    __m256d y = _mm256_andnot_pd(sign, x), dx, dy;
    td4_expk2(y, &dx, &dy);
    __m256d rs = _mm256_div_pd(one, dx);
    __m256d ey = _mm256_mul_pd(rs, _mm256_fnmadd_pd(dy, rs, _mm256_fnmadd_pd(dx, rs, one)));
    __m256d sx, sy;
    if (sinh) {
        sx = _mm256_sub_pd(dx, rs);
        sy = _mm256_sub_pd(_mm256_add_pd(_mm256_sub_pd(_mm256_sub_pd(dx, sx), rs), dy), ey);
    } else {
        sx = _mm256_add_pd(dx, rs);
        sy = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_sub_pd(dx, sx), rs), dy), ey);
    }
    __m256d r = _mm256_mul_pd(_mm256_add_pd(sx, sy), HD4(0.5));
    __m256d big = _mm256_or_pd(_mm256_cmp_pd(y, HD4(710.0), _CMP_GT_OQ), _mm256_cmp_pd(r, r, _CMP_UNORD_Q));
    r = _mm256_blendv_pd(r, HD4(INFINITY), big);
    if (sinh) r = _mm256_xor_pd(r, _mm256_and_pd(x, sign));
    return _mm256_or_pd(r, _mm256_cmp_pd(x, x, _CMP_UNORD_Q));
}

/* sleef_atanh, four lanes: the same bits */
__attribute__((target("avx2,fma"))) static __m256d sleef_atanh4(__m256d x)
{
    const __m256d sign = HD4(-0.0), one = HD4(1.0);
    __m256d y = _mm256_andnot_pd(sign, x);
    __m256d ax, ay, bx, by, dx, dy;
    HD4_ADD2_DD(ax, ay, one, y);
    HD4_ADD2_DD(bx, by, one, _mm256_xor_pd(y, sign));
    HD4_DIV(dx, dy, ax, ay, bx, by);
    /* logk2(d): e = the exponent of d.x / 0.75 (as the one-lane form: d >= 1 in the lanes kept) */
    __m256i db = _mm256_castpd_si256(_mm256_mul_pd(dx, HD4(1.0 / 0.75)));
    __m256i e64 = _mm256_sub_epi64(_mm256_and_si256(_mm256_srli_epi64(db, 52), _mm256_set1_epi64x(0x7ff)),
                                   _mm256_set1_epi64x(0x3ff));
    __m128i e = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(e64, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
    __m128i ne = _mm_sub_epi32(_mm_setzero_si128(), e), h = _mm_srai_epi32(ne, 1);
    __m256d p1 = hd4_pow2i(h), p2 = hd4_pow2i(_mm_sub_epi32(ne, h));
    __m256d mx = _mm256_mul_pd(_mm256_mul_pd(dx, p1), p2), my = _mm256_mul_pd(_mm256_mul_pd(dy, p1), p2);
    __m256d nx, ny, px, py, xx, xy;
    HD4_ADD2_D2D(nx, ny, mx, my, HD4(-1.0));
    HD4_ADD2_D2D(px, py, mx, my, one);
    HD4_DIV(xx, xy, nx, ny, px, py);
    __m256d x1 = _mm256_mul_pd(xx, xx);  /* x2 = ddsqu(x) */
    __m256d x2y = _mm256_fmadd_pd(_mm256_add_pd(xx, xx), xy, _mm256_fmsub_pd(xx, xx, x1));
    __m256d x4 = _mm256_mul_pd(x1, x1), x8 = _mm256_mul_pd(x4, x4);
    __m256d t = _mm256_fmadd_pd(x8, _mm256_fmadd_pd(x4, HD4(0.13860436390467167910856),
                                                    _mm256_fmadd_pd(x1, HD4(0.131699838841615374240845), HD4(0.153914168346271945653214))),
                                _mm256_fmadd_pd(x4, _mm256_fmadd_pd(x1, HD4(0.181816523941564611721589), HD4(0.22222224632662035403996)),
                                                _mm256_fmadd_pd(x1, HD4(0.285714285511134091777308), HD4(0.400000000000914013309483))));
    t = _mm256_fmadd_pd(t, x1, HD4(0.666666666666664853302393));
    __m256d ef = _mm256_cvtepi32_pd(e), c1 = HD4(0.693147180559945286226764);
    __m256d sx = _mm256_mul_pd(c1, ef);  /* s = ddmul((c1, c2), e) */
    __m256d sy = _mm256_fmadd_pd(HD4(2.319046813846299558417771e-17), ef, _mm256_fmsub_pd(c1, ef, sx));
    HD4_ADD_D2D2(sx, sy, _mm256_add_pd(xx, xx), _mm256_add_pd(xy, xy));  /* s = ddadd(s, 2x) */
    {  /* s = ddadd(s, ddmul(ddmul(x2, x), t)) */
        __m256d wx = _mm256_mul_pd(x1, xx);
        __m256d wy = _mm256_fmadd_pd(x1, xy, _mm256_fmadd_pd(x2y, xx, _mm256_fmsub_pd(x1, xx, wx)));
        __m256d zx = _mm256_mul_pd(wx, t), zy = _mm256_fmadd_pd(wy, t, _mm256_fmsub_pd(wx, t, zx));
        HD4_ADD_D2D2(sx, sy, zx, zy);
    }
    __m256d r = _mm256_mul_pd(_mm256_add_pd(sx, sy), HD4(0.5));
    r = _mm256_xor_pd(r, _mm256_and_pd(x, sign));
    /* |x| > 1, NaN or a NaN sum: the all-ones word; |x| == 1: inf with x's sign */
    __m256d bad = _mm256_or_pd(_mm256_cmp_pd(y, one, _CMP_NLT_UQ), _mm256_cmp_pd(r, r, _CMP_UNORD_Q));
    r = _mm256_or_pd(r, bad);
    return _mm256_blendv_pd(r, _mm256_or_pd(HD4(INFINITY), _mm256_and_pd(x, sign)), _mm256_cmp_pd(y, one, _CMP_EQ_OQ));
}
#undef HD4
#undef HD4_ADD2_DD
#undef HD4_ADD2_D2D
#undef HD4_ADD_D2D2
#undef HD4_ADD_DD2
#undef HD4_DIV
/* ---- double, eight lanes (AVX-512F, Sleef_sinhd8_u10 / coshd8 / atanhd8 under ATen's AVX512
 * capability): the four-lane forms' steps per lane, the same bits (logic ops on the integer words:
 * _mm512_or_pd and its kin need AVX512DQ) ---- */
#define HD8(c) _mm512_set1_pd(c)
#define HD8_I(v) _mm512_castpd_si512(v)
#define HD8_F(v) _mm512_castsi512_pd(v)
#define HD8_ADD2_DD(sx, sy, xv, yv) do { __m512d s_ = _mm512_add_pd(xv, yv), v_ = _mm512_sub_pd(s_, xv); \
    sy = _mm512_add_pd(_mm512_sub_pd(xv, _mm512_sub_pd(s_, v_)), _mm512_sub_pd(yv, v_)); sx = s_; } while (0)
#define HD8_ADD2_D2D(sx, sy, xx, xy, yv) do { __m512d s_ = _mm512_add_pd(xx, yv), v_ = _mm512_sub_pd(s_, xx); \
    sy = _mm512_add_pd(_mm512_add_pd(_mm512_sub_pd(xx, _mm512_sub_pd(s_, v_)), _mm512_sub_pd(yv, v_)), xy); sx = s_; } while (0)
#define HD8_ADD_D2D2(sx, sy, yx, yy) do { __m512d s_ = _mm512_add_pd(sx, yx); \
    sy = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(_mm512_sub_pd(sx, s_), yx), sy), yy); sx = s_; } while (0)
#define HD8_DIV(rx, ry, nx, ny, dx, dy) do { __m512d t_ = _mm512_div_pd(one, dx), s_ = _mm512_mul_pd(nx, t_); \
    __m512d u_ = _mm512_fmsub_pd(t_, nx, s_); \
    __m512d v_ = _mm512_fnmadd_pd(dy, t_, _mm512_fnmadd_pd(dx, t_, one)); \
    ry = _mm512_fmadd_pd(s_, v_, _mm512_fmadd_pd(ny, t_, u_)); rx = s_; } while (0)

/* 2^q for eight int32 q (as td_pow2i) */
__attribute__((target("avx512f"), always_inline)) static inline __m512d hd8_pow2i(__m256i q)
{
    return HD8_F(_mm512_slli_epi64(_mm512_add_epi64(_mm512_cvtepi32_epi64(q), _mm512_set1_epi64(0x3ff)), 52));
}

/* sleef_sinhcosh4, eight lanes */
__attribute__((target("avx512f"))) static __m512d sleef_sinhcosh8(__m512d x, int sinh)
{
    const __m512i sign = _mm512_set1_epi64((long long)0x8000000000000000ull);
    const __m512d one = HD8(1.0);
    __m512d y = HD8_F(_mm512_andnot_si512(sign, HD8_I(x))), dx, dy;
    td8_expk2(y, &dx, &dy);
    __m512d rs = _mm512_div_pd(one, dx);
    __m512d ey = _mm512_mul_pd(rs, _mm512_fnmadd_pd(dy, rs, _mm512_fnmadd_pd(dx, rs, one)));
    __m512d sx, sy;
    if (sinh) {
        sx = _mm512_sub_pd(dx, rs);
        sy = _mm512_sub_pd(_mm512_add_pd(_mm512_sub_pd(_mm512_sub_pd(dx, sx), rs), dy), ey);
    } else {
        sx = _mm512_add_pd(dx, rs);
        sy = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(_mm512_sub_pd(dx, sx), rs), dy), ey);
    }
    __m512d r = _mm512_mul_pd(_mm512_add_pd(sx, sy), HD8(0.5));
    __mmask8 big = _mm512_cmp_pd_mask(y, HD8(710.0), _CMP_GT_OQ) | _mm512_cmp_pd_mask(r, r, _CMP_UNORD_Q);
    __m512i rb = HD8_I(_mm512_mask_mov_pd(r, big, HD8(INFINITY)));
    if (sinh) rb = _mm512_xor_si512(rb, _mm512_and_si512(HD8_I(x), sign));
    return HD8_F(_mm512_mask_mov_epi64(rb, _mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q), _mm512_set1_epi64(-1)));
}

/* sleef_atanh4, eight lanes */
__attribute__((target("avx512f"))) static __m512d sleef_atanh8(__m512d x)
{
    const __m512i sign = _mm512_set1_epi64((long long)0x8000000000000000ull);
    const __m512d one = HD8(1.0);
    __m512d y = HD8_F(_mm512_andnot_si512(sign, HD8_I(x)));
    __m512d ax, ay, bx, by, dx, dy;
    HD8_ADD2_DD(ax, ay, one, y);
    HD8_ADD2_DD(bx, by, one, HD8_F(_mm512_xor_si512(HD8_I(y), sign)));
    HD8_DIV(dx, dy, ax, ay, bx, by);
    /* logk2(d): e = the exponent of d.x / 0.75 (SLEEF's AVX512 build: vgetexp, the same for the
     * normal d >= 1 of the lanes kept) */
    __m256i e = _mm512_cvtpd_epi32(_mm512_getexp_pd(_mm512_mul_pd(dx, HD8(1.0 / 0.75))));
    __m256i ne = _mm256_sub_epi32(_mm256_setzero_si256(), e), h = _mm256_srai_epi32(ne, 1);
    __m512d p1 = hd8_pow2i(h), p2 = hd8_pow2i(_mm256_sub_epi32(ne, h));
    __m512d mx = _mm512_mul_pd(_mm512_mul_pd(dx, p1), p2), my = _mm512_mul_pd(_mm512_mul_pd(dy, p1), p2);
    __m512d nx, ny, px, py, xx, xy;
    HD8_ADD2_D2D(nx, ny, mx, my, HD8(-1.0));
    HD8_ADD2_D2D(px, py, mx, my, one);
    HD8_DIV(xx, xy, nx, ny, px, py);
    __m512d x1 = _mm512_mul_pd(xx, xx);  /* x2 = ddsqu(x) */
    __m512d x2y = _mm512_fmadd_pd(_mm512_add_pd(xx, xx), xy, _mm512_fmsub_pd(xx, xx, x1));
    __m512d x4 = _mm512_mul_pd(x1, x1), x8 = _mm512_mul_pd(x4, x4);
    __m512d t = _mm512_fmadd_pd(x8, _mm512_fmadd_pd(x4, HD8(0.13860436390467167910856),
                                                    _mm512_fmadd_pd(x1, HD8(0.131699838841615374240845), HD8(0.153914168346271945653214))),
                                _mm512_fmadd_pd(x4, _mm512_fmadd_pd(x1, HD8(0.181816523941564611721589), HD8(0.22222224632662035403996)),
                                                _mm512_fmadd_pd(x1, HD8(0.285714285511134091777308), HD8(0.400000000000914013309483))));
    t = _mm512_fmadd_pd(t, x1, HD8(0.666666666666664853302393));
    __m512d ef = _mm512_cvtepi32_pd(e), c1 = HD8(0.693147180559945286226764);
    __m512d sx = _mm512_mul_pd(c1, ef);  /* s = ddmul((c1, c2), e) */
    __m512d sy = _mm512_fmadd_pd(HD8(2.319046813846299558417771e-17), ef, _mm512_fmsub_pd(c1, ef, sx));
    HD8_ADD_D2D2(sx, sy, _mm512_add_pd(xx, xx), _mm512_add_pd(xy, xy));  /* s = ddadd(s, 2x) */
    {  /* s = ddadd(s, ddmul(ddmul(x2, x), t)) */
        __m512d wx = _mm512_mul_pd(x1, xx);
        __m512d wy = _mm512_fmadd_pd(x1, xy, _mm512_fmadd_pd(x2y, xx, _mm512_fmsub_pd(x1, xx, wx)));
        __m512d zx = _mm512_mul_pd(wx, t), zy = _mm512_fmadd_pd(wy, t, _mm512_fmsub_pd(wx, t, zx));
        HD8_ADD_D2D2(sx, sy, zx, zy);
    }
    __m512d r = _mm512_mul_pd(_mm512_add_pd(sx, sy), HD8(0.5));
    __m512i rb = _mm512_xor_si512(HD8_I(r), _mm512_and_si512(HD8_I(x), sign));
    /* |x| > 1, NaN or a NaN sum: the all-ones word; |x| == 1: inf with x's sign */
    __mmask8 bad = _mm512_cmp_pd_mask(y, one, _CMP_NLT_UQ) | _mm512_cmp_pd_mask(r, r, _CMP_UNORD_Q);
    rb = _mm512_mask_mov_epi64(rb, bad, _mm512_set1_epi64(-1));
    __m512i inf = _mm512_or_si512(HD8_I(HD8(INFINITY)), _mm512_and_si512(HD8_I(x), sign));
    return HD8_F(_mm512_mask_mov_epi64(rb, _mm512_cmp_pd_mask(y, one, _CMP_EQ_OQ), inf));
}
#undef HD8
#undef HD8_I
#undef HD8_F
#undef HD8_ADD2_DD
#undef HD8_ADD2_D2D
#undef HD8_ADD_D2D2
#undef HD8_DIV
#endif
#endif
