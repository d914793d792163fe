/* SLEEF's tanh of float and double with 1-ulp accuracy (sleefsimdsp.c's xtanhf, sleefsimddp.c's xtanh:
 * what ATen's Vectorized<float>::tanh() / Vectorized<double>::tanh() call, Sleef_tanhf16_u10 /
 * Sleef_tanhd8_u10 under the AVX512 capability, Sleef_tanhf8_u10 / Sleef_tanhd4_u10 under AVX2: the same
 * steps per lane, every vmla / vfma / vfmapn / vfmanp of df.h / dd.h one fused step). One lane in plain
 * C (fmaf / fma) and sixteen float / eight double lanes in AVX-512F: the same bits (tests/test_mish35.py
 * compares both forms against torch).
 *
 * tanh |x| = (E - 1/E) / (E + 1/E) with E = exp |x| in double-float (double-double) arithmetic
 * (expk2f / expk2: q = rint(|x| / ln 2), s = |x| - q ln 2 in two double-float steps, a polynomial, then
 * 2^q in two factors), 1/E by dfrec, the quotient by dfdiv, rounded once; |x| > 8.664339742 (18.714973875
 * for double) gives 1; then x's sign is put on. A NaN x gives the all-ones word (SLEEF ors the isnan
 * mask into the result: 0xFFFFFFFF, 0xFFFF...). The includer has included <math.h>, <stdint.h>,
 * <string.h> and, where x86-64, <immintrin.h>. */
#ifndef STRIDED_SLEEF_TANH_H
#define STRIDED_SLEEF_TANH_H

#define SLEEF_TANHF_BOUND 8.664339742f
#define SLEEF_TANH_BOUND 18.714973875

typedef struct { float x, y; } sleef_tf2;
typedef struct { double x, y; } sleef_td2;

/* ---- float: df.h's FMA forms ---- */
static inline sleef_tf2 tf_add2_f2f(sleef_tf2 x, float y)  /* dfadd2_vf2_vf2_vf */
{
    float s = x.x + y, v = s - x.x;
    sleef_tf2 r = {s, ((x.x - (s - v)) + (y - v)) + x.y};
    return r;
}

static inline sleef_tf2 tf_add2_f2f2(sleef_tf2 x, sleef_tf2 y)  /* dfadd2_vf2_vf2_vf2 */
{
    float s = x.x + y.x, v = s - x.x;
    sleef_tf2 r = {s, ((x.x - (s - v)) + (y.x - v)) + (x.y + y.y)};
    return r;
}

static inline sleef_tf2 tf_add_f2f2(sleef_tf2 x, sleef_tf2 y)  /* dfadd_vf2_vf2_vf2 (|x| >= |y|) */
{
    float s = x.x + y.x;
    sleef_tf2 r = {s, (((x.x - s) + y.x) + x.y) + y.y};
    return r;
}

static inline sleef_tf2 tf_mul_f2f(sleef_tf2 x, float y)  /* dfmul_vf2_vf2_vf */
{
    float s = x.x * y;
    sleef_tf2 r = {s, fmaf(x.y, y, fmaf(x.x, y, -s))};
    return r;
}

static inline sleef_tf2 tf_mul_f2f2(sleef_tf2 x, sleef_tf2 y)  /* dfmul_vf2_vf2_vf2 */
{
    float s = x.x * y.x;
    sleef_tf2 r = {s, fmaf(x.x, y.y, fmaf(x.y, y.x, fmaf(x.x, y.x, -s)))};
    return r;
}

static inline sleef_tf2 tf_squ(sleef_tf2 x)  /* dfsqu_vf2_vf2 */
{
    float s = x.x * x.x;
    sleef_tf2 r = {s, fmaf(x.x + x.x, x.y, fmaf(x.x, x.x, -s))};
    return r;
}

static inline float tf_pow2i(int32_t q)
{
    uint32_t b = (uint32_t)(q + 0x7f) << 23;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* expk2f((y, 0)) for 0 <= y <= 89: E = exp(y) as a double-float (sleefsimdsp.c's steps; tanh,
 * sinh and cosh's kernel, _sleef_hyper.h) */
static SLEEF_AI sleef_tf2 tf_expk2(float y)
{
    int32_t q = (int32_t)nearbyintf(y * 1.442695040888963407359924681001892137426645954152985934135449406931f);
    float qf = (float)q;
    sleef_tf2 s = {y, 0.0f};
    s = tf_add2_f2f(s, qf * -0.693145751953125f);
    s = tf_add2_f2f(s, qf * -1.428606765330187045e-06f);
    float u = +0.1980960224e-3f;
    u = fmaf(u, s.x, +0.1394256484e-2f);
    u = fmaf(u, s.x, +0.8333456703e-2f);
    u = fmaf(u, s.x, +0.4166637361e-1f);
    sleef_tf2 t = tf_add2_f2f(tf_mul_f2f(s, u), +0.166666659414234244790680580464e+0f);
    t = tf_add2_f2f(tf_mul_f2f2(s, t), 0.5f);
    t = tf_add2_f2f2(s, tf_mul_f2f2(tf_squ(s), t));
    { /* dfadd_vf2_vf_vf2(1, t) */
        float a = 1.0f + t.x;
        t.y = ((1.0f - a) + t.x) + t.y;
        t.x = a;
    }
    int32_t h = q >> 1;
    sleef_tf2 d = {t.x * tf_pow2i(h) * tf_pow2i(q - h), t.y * tf_pow2i(h) * tf_pow2i(q - h)};
    return d;
}

/* xtanhf, one lane */
static SLEEF_AI float sleef_tanhf(float x)
{
    float y = fabsf(x);
    if (!(y <= SLEEF_TANHF_BOUND)) {  /* (beyond the bound, or NaN: the lanes' selections) */
        uint32_t b;
        memcpy(&b, &x, sizeof b);
        b = x != x ? 0xFFFFFFFFu : (b & 0x80000000u) | 0x3F800000u;
        float r;
        memcpy(&r, &b, sizeof r);
        return r;
    }
    sleef_tf2 d = tf_expk2(y);
    /* e = dfrec(d) */
    float rs = 1.0f / d.x;
    sleef_tf2 e = {rs, rs * fmaf(-d.y, rs, fmaf(-d.x, rs, 1.0f))};
    sleef_tf2 ne = {-e.x, -e.y};
    sleef_tf2 n = tf_add_f2f2(d, ne), m = tf_add_f2f2(d, e);
    /* dfdiv(n, m) */
    float ti = 1.0f / m.x, sx = n.x * ti;
    float uu = fmaf(ti, n.x, -sx);
    float v = fmaf(-m.y, ti, fmaf(-m.x, ti, 1.0f));
    float r = sx + fmaf(sx, v, fmaf(n.y, ti, uu));
    if (r != r) r = 1.0f;
    return signbit(x) ? -r : r;
}

/* ---- double: dd.h's FMA forms ---- */
static inline sleef_td2 td_add2_d2d(sleef_td2 x, double y)  /* ddadd2_vd2_vd2_vd */
{
    double s = x.x + y, v = s - x.x;
    sleef_td2 r = {s, ((x.x - (s - v)) + (y - v)) + x.y};
    return r;
}

static inline sleef_td2 td_add2_d2d2(sleef_td2 x, sleef_td2 y)  /* ddadd2_vd2_vd2_vd2 */
{
    double s = x.x + y.x, v = s - x.x;
    sleef_td2 r = {s, ((x.x - (s - v)) + (y.x - v)) + (x.y + y.y)};
    return r;
}

static inline sleef_td2 td_add_dd2(double x, sleef_td2 y)  /* ddadd_vd2_vd_vd2 */
{
    double s = x + y.x;
    sleef_td2 r = {s, ((x - s) + y.x) + y.y};
    return r;
}

static inline sleef_td2 td_add_d2d2(sleef_td2 x, sleef_td2 y)  /* ddadd_vd2_vd2_vd2 (|x| >= |y|) */
{
    double s = x.x + y.x;
    sleef_td2 r = {s, (((x.x - s) + y.x) + x.y) + y.y};
    return r;
}

static inline sleef_td2 td_mul_d2d(sleef_td2 x, double y)  /* ddmul_vd2_vd2_vd */
{
    double s = x.x * y;
    sleef_td2 r = {s, fma(x.y, y, fma(x.x, y, -s))};
    return r;
}

static inline sleef_td2 td_mul_d2d2(sleef_td2 x, sleef_td2 y)  /* ddmul_vd2_vd2_vd2 */
{
    double s = x.x * y.x;
    sleef_td2 r = {s, fma(x.x, y.y, fma(x.y, y.x, fma(x.x, y.x, -s)))};
    return r;
}

static inline sleef_td2 td_squ(sleef_td2 x)  /* ddsqu_vd2_vd2 */
{
    double s = x.x * x.x;
    sleef_td2 r = {s, fma(x.x + x.x, x.y, fma(x.x, x.x, -s))};
    return r;
}

static inline double td_pow2i(int32_t q)
{
    uint64_t b = (uint64_t)(q + 0x3ff) << 52;
    double f;
    memcpy(&f, &b, sizeof f);
    return f;
}

#define TD_EXPK2_C9 +0.1602472219709932072e-9
#define TD_EXPK2_C8 +0.2092255183563157007e-8
#define TD_EXPK2_C7 +0.2505230023782644465e-7
#define TD_EXPK2_C6 +0.2755724800902135303e-6
#define TD_EXPK2_C5 +0.2755731892386044373e-5
#define TD_EXPK2_C4 +0.2480158735605815065e-4
#define TD_EXPK2_C3 +0.1984126984148071858e-3
#define TD_EXPK2_C2 +0.1388888888886763255e-2
#define TD_EXPK2_C1 +0.8333333333333347095e-2
#define TD_EXPK2_C0 +0.4166666666666669905e-1
#define TD_L2U .69314718055966295651160180568695068359375
#define TD_L2L .28235290563031577122588448175013436025525412068e-12
#define TD_R_LN2 1.442695040888963407359924681001892137426645954152985934135449406931

/* expk2((y, 0)) for 0 <= y <= 710: E = exp(y) as a double-double (sleefsimddp.c's steps; tanh,
 * sinh and cosh's kernel, _sleef_hyper.h) */
static SLEEF_AI sleef_td2 td_expk2(double y)
{
    double dq = nearbyint(y * TD_R_LN2);
    int32_t q = (int32_t)dq;
    sleef_td2 s = {y, 0.0};
    s = td_add2_d2d(s, dq * -TD_L2U);
    s = td_add2_d2d(s, dq * -TD_L2L);
    sleef_td2 s2 = td_squ(s), s4 = td_squ(s2);
    double x1 = s.x, x2 = s2.x, x4 = s4.x, x8 = s4.x * s4.x;
    double p8 = fma(x4, fma(x2, fma(x1, TD_EXPK2_C7, TD_EXPK2_C6), fma(x1, TD_EXPK2_C5, TD_EXPK2_C4)),
                    fma(x2, fma(x1, TD_EXPK2_C3, TD_EXPK2_C2), fma(x1, TD_EXPK2_C1, TD_EXPK2_C0)));
    double u = fma(x8, fma(x1, TD_EXPK2_C9, TD_EXPK2_C8), p8);
    sleef_td2 t = td_add_dd2(0.5, td_mul_d2d(s, +0.1666666666666666574e+0));
    t = td_add_dd2(1.0, td_mul_d2d2(t, s));
    t = td_add_dd2(1.0, td_mul_d2d2(t, s));
    t = td_add_d2d2(t, td_mul_d2d(s4, u));
    int32_t h = q >> 1;
    sleef_td2 d = {t.x * td_pow2i(h) * td_pow2i(q - h), t.y * td_pow2i(h) * td_pow2i(q - h)};
    return d;
}

/* xtanh, one lane */
static SLEEF_AI double sleef_tanh(double x)
{
    double y = fabs(x);
    if (!(y <= SLEEF_TANH_BOUND)) {
        uint64_t b;
        memcpy(&b, &x, sizeof b);
        b = x != x ? 0xFFFFFFFFFFFFFFFFull : (b & 0x8000000000000000ull) | 0x3FF0000000000000ull;
        double r;
        memcpy(&r, &b, sizeof r);
        return r;
    }
    sleef_td2 d = td_expk2(y);
    double rs = 1.0 / d.x;
    sleef_td2 e = {rs, rs * fma(-d.y, rs, fma(-d.x, rs, 1.0))};
    sleef_td2 ne = {-e.x, -e.y};
    sleef_td2 n = td_add2_d2d2(d, ne), m = td_add2_d2d2(d, e);
    double ti = 1.0 / m.x, sx = n.x * ti;
    double uu = fma(ti, n.x, -sx);
    double v = fma(-m.y, ti, fma(-m.x, ti, 1.0));
    double r = sx + fma(sx, v, fma(n.y, ti, uu));
    if (r != r) r = 1.0;
    return signbit(x) ? -r : r;
}

#if defined(__GNUC__) && defined(__x86_64__)
/* ---- sixteen float lanes (AVX-512F): sleef_tanhf's steps ---- */
#define TF16_ADD2_F2F(sx, sy, xx, xy, yv) do { __m512 s_ = _mm512_add_ps(xx, yv), v_ = _mm512_sub_ps(s_, xx); \
    sy = _mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(xx, _mm512_sub_ps(s_, v_)), _mm512_sub_ps(yv, v_)), xy); sx = s_; } while (0)

/* tf_expk2, sixteen lanes (AVX-512F; any y: a lane beyond 89 or NaN gives garbage the callers' selects
 * replace): sleef_tanhf16's and the sixteen-lane sinh / cosh's (_sleef_hyper.h) E = exp y */
__attribute__((target("avx512f"), always_inline)) static inline void tf16_expk2(__m512 y, __m512 *dxo, __m512 *dyo)
{
    __m512i q = _mm512_cvtps_epi32(_mm512_mul_ps(y, _mm512_set1_ps(1.442695040888963407359924681001892137426645954152985934135449406931f)));
    __m512 qf = _mm512_cvtepi32_ps(q);
    __m512 sx, sy;
    TF16_ADD2_F2F(sx, sy, y, _mm512_setzero_ps(), _mm512_mul_ps(qf, _mm512_set1_ps(-0.693145751953125f)));
    TF16_ADD2_F2F(sx, sy, sx, sy, _mm512_mul_ps(qf, _mm512_set1_ps(-1.428606765330187045e-06f)));
    __m512 u = _mm512_set1_ps(+0.1980960224e-3f);
    u = _mm512_fmadd_ps(u, sx, _mm512_set1_ps(+0.1394256484e-2f));
    u = _mm512_fmadd_ps(u, sx, _mm512_set1_ps(+0.8333456703e-2f));
    u = _mm512_fmadd_ps(u, sx, _mm512_set1_ps(+0.4166637361e-1f));
    __m512 tx, ty, ax, ay;
    /* t = dfadd2(dfmul(s, u), 1/6) */
    ax = _mm512_mul_ps(sx, u);
    ay = _mm512_fmadd_ps(sy, u, _mm512_fmsub_ps(sx, u, ax));
    TF16_ADD2_F2F(tx, ty, ax, ay, _mm512_set1_ps(+0.166666659414234244790680580464e+0f));
    /* t = dfadd2(dfmul(s, t), 0.5) */
    ax = _mm512_mul_ps(sx, tx);
    ay = _mm512_fmadd_ps(sx, ty, _mm512_fmadd_ps(sy, tx, _mm512_fmsub_ps(sx, tx, ax)));
    TF16_ADD2_F2F(tx, ty, ax, ay, _mm512_set1_ps(0.5f));
    /* t = dfadd2(s, dfmul(dfsqu(s), t)) */
    __m512 qx = _mm512_mul_ps(sx, sx);
    __m512 qy = _mm512_fmadd_ps(_mm512_add_ps(sx, sx), sy, _mm512_fmsub_ps(sx, sx, qx));
    ax = _mm512_mul_ps(qx, tx);
    ay = _mm512_fmadd_ps(qx, ty, _mm512_fmadd_ps(qy, tx, _mm512_fmsub_ps(qx, tx, ax)));
    {
        __m512 s_ = _mm512_add_ps(sx, ax), v_ = _mm512_sub_ps(s_, sx);
        ty = _mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(sx, _mm512_sub_ps(s_, v_)), _mm512_sub_ps(ax, v_)), _mm512_add_ps(sy, ay));
        tx = s_;
    }
    const __m512 one = _mm512_set1_ps(1.0f);
    { /* dfadd(1, t) */
        __m512 a = _mm512_add_ps(one, tx);
        ty = _mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(one, a), tx), ty);
        tx = a;
    }
    __m512i h = _mm512_srai_epi32(q, 1), bias = _mm512_set1_epi32(0x7f);
    __m512 p1 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(h, bias), 23));
    __m512 p2 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_sub_epi32(q, h), bias), 23));
    *dxo = _mm512_mul_ps(_mm512_mul_ps(tx, p1), p2);
    *dyo = _mm512_mul_ps(_mm512_mul_ps(ty, p1), p2);
}

__attribute__((target("avx512f"))) static __m512 sleef_tanhf16(__m512 x)
{
    const __m512i absm = _mm512_set1_epi32(0x7FFFFFFF);
    __m512 y = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(x), absm));
    __m512 dx, dy;
    tf16_expk2(y, &dx, &dy);
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 rs = _mm512_div_ps(one, dx);
    __m512 ey = _mm512_mul_ps(rs, _mm512_fnmadd_ps(dy, rs, _mm512_fnmadd_ps(dx, rs, one)));
    __m512 nx = _mm512_sub_ps(dx, rs), mx = _mm512_add_ps(dx, rs);
    __m512 ny = _mm512_sub_ps(_mm512_add_ps(_mm512_sub_ps(_mm512_sub_ps(dx, nx), rs), dy), ey);
    __m512 my = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(dx, mx), rs), dy), ey);
    __m512 ti = _mm512_div_ps(one, mx), qq = _mm512_mul_ps(nx, ti);
    __m512 uu = _mm512_fmsub_ps(ti, nx, qq);
    __m512 v = _mm512_fnmadd_ps(my, ti, _mm512_fnmadd_ps(mx, ti, one));
    __m512 r = _mm512_add_ps(qq, _mm512_fmadd_ps(qq, v, _mm512_fmadd_ps(ny, ti, uu)));
    __mmask16 big = _mm512_cmp_ps_mask(y, _mm512_set1_ps(SLEEF_TANHF_BOUND), _CMP_GT_OQ) | _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q);
    r = _mm512_mask_mov_ps(r, big, one);
    const __m512i sign = _mm512_set1_epi32((int)0x80000000u);
    __m512i rb = _mm512_xor_si512(_mm512_castps_si512(r), _mm512_and_si512(_mm512_castps_si512(x), sign));
    __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
    return _mm512_castsi512_ps(_mm512_mask_mov_epi32(rb, nan, _mm512_set1_epi32(-1)));
}

#define TF8_ADD2_F2F(sx, sy, xx, xy, yv) do { __m256 s_ = _mm256_add_ps(xx, yv), v_ = _mm256_sub_ps(s_, xx); \
    sy = _mm256_add_ps(_mm256_add_ps(_mm256_sub_ps(xx, _mm256_sub_ps(s_, v_)), _mm256_sub_ps(yv, v_)), xy); sx = s_; } while (0)

/* tf_expk2, eight lanes (AVX2 with FMA; any y: a lane beyond 89 or NaN gives garbage the callers'
 * selects replace) */
__attribute__((target("avx2,fma"), always_inline)) static inline void tf8_expk2(__m256 y, __m256 *dxo, __m256 *dyo)
{
    __m256i q = _mm256_cvtps_epi32(_mm256_mul_ps(y, _mm256_set1_ps(1.442695040888963407359924681001892137426645954152985934135449406931f)));
    __m256 qf = _mm256_cvtepi32_ps(q);
    __m256 sx, sy;
    TF8_ADD2_F2F(sx, sy, y, _mm256_setzero_ps(), _mm256_mul_ps(qf, _mm256_set1_ps(-0.693145751953125f)));
    TF8_ADD2_F2F(sx, sy, sx, sy, _mm256_mul_ps(qf, _mm256_set1_ps(-1.428606765330187045e-06f)));
    __m256 u = _mm256_set1_ps(+0.1980960224e-3f);
    u = _mm256_fmadd_ps(u, sx, _mm256_set1_ps(+0.1394256484e-2f));
    u = _mm256_fmadd_ps(u, sx, _mm256_set1_ps(+0.8333456703e-2f));
    u = _mm256_fmadd_ps(u, sx, _mm256_set1_ps(+0.4166637361e-1f));
    __m256 tx, ty, ax, ay;
    ax = _mm256_mul_ps(sx, u);  /* t = dfadd2(dfmul(s, u), 1/6) */
    ay = _mm256_fmadd_ps(sy, u, _mm256_fmsub_ps(sx, u, ax));
    TF8_ADD2_F2F(tx, ty, ax, ay, _mm256_set1_ps(+0.166666659414234244790680580464e+0f));
    ax = _mm256_mul_ps(sx, tx);  /* t = dfadd2(dfmul(s, t), 0.5) */
    ay = _mm256_fmadd_ps(sx, ty, _mm256_fmadd_ps(sy, tx, _mm256_fmsub_ps(sx, tx, ax)));
    TF8_ADD2_F2F(tx, ty, ax, ay, _mm256_set1_ps(0.5f));
    __m256 qx = _mm256_mul_ps(sx, sx);  /* t = dfadd2(s, dfmul(dfsqu(s), t)) */
    __m256 qy = _mm256_fmadd_ps(_mm256_add_ps(sx, sx), sy, _mm256_fmsub_ps(sx, sx, qx));
    ax = _mm256_mul_ps(qx, tx);
    ay = _mm256_fmadd_ps(qx, ty, _mm256_fmadd_ps(qy, tx, _mm256_fmsub_ps(qx, tx, ax)));
    {
        __m256 s_ = _mm256_add_ps(sx, ax), v_ = _mm256_sub_ps(s_, sx);
        ty = _mm256_add_ps(_mm256_add_ps(_mm256_sub_ps(sx, _mm256_sub_ps(s_, v_)), _mm256_sub_ps(ax, v_)), _mm256_add_ps(sy, ay));
        tx = s_;
    }
    const __m256 one = _mm256_set1_ps(1.0f);
    { /* dfadd(1, t) */
        __m256 a = _mm256_add_ps(one, tx);
        ty = _mm256_add_ps(_mm256_add_ps(_mm256_sub_ps(one, a), tx), ty);
        tx = a;
    }
    __m256i h = _mm256_srai_epi32(q, 1), bias = _mm256_set1_epi32(0x7f);
    __m256 p1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(h, bias), 23));
    __m256 p2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(q, h), bias), 23));
    *dxo = _mm256_mul_ps(_mm256_mul_ps(tx, p1), p2);
    *dyo = _mm256_mul_ps(_mm256_mul_ps(ty, p1), p2);
}

/* ---- eight float lanes (AVX2 with FMA, Sleef_tanhf8_u10): sleef_tanhf16's steps, the same bits ---- */
__attribute__((target("avx2,fma"), unused)) static __m256 sleef_tanhf8(__m256 x)
{
    const __m256i absm = _mm256_set1_epi32(0x7FFFFFFF);
    __m256 y = _mm256_castsi256_ps(_mm256_and_si256(_mm256_castps_si256(x), absm));
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 dx, dy;
    tf8_expk2(y, &dx, &dy);
    __m256 rs = _mm256_div_ps(one, dx);
    __m256 ey = _mm256_mul_ps(rs, _mm256_fnmadd_ps(dy, rs, _mm256_fnmadd_ps(dx, rs, one)));
    __m256 nx = _mm256_sub_ps(dx, rs), mx = _mm256_add_ps(dx, rs);
    __m256 ny = _mm256_sub_ps(_mm256_add_ps(_mm256_sub_ps(_mm256_sub_ps(dx, nx), rs), dy), ey);
    __m256 my = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_sub_ps(dx, mx), rs), dy), ey);
    __m256 ti = _mm256_div_ps(one, mx), qq = _mm256_mul_ps(nx, ti);
    __m256 uu = _mm256_fmsub_ps(ti, nx, qq);
    __m256 v = _mm256_fnmadd_ps(my, ti, _mm256_fnmadd_ps(mx, ti, one));
    __m256 r = _mm256_add_ps(qq, _mm256_fmadd_ps(qq, v, _mm256_fmadd_ps(ny, ti, uu)));
    __m256 big = _mm256_or_ps(_mm256_cmp_ps(y, _mm256_set1_ps(SLEEF_TANHF_BOUND), _CMP_GT_OQ), _mm256_cmp_ps(r, r, _CMP_UNORD_Q));
    r = _mm256_blendv_ps(r, one, big);
    const __m256 sign = _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000u));
    __m256 rb = _mm256_xor_ps(r, _mm256_and_ps(x, sign));
    __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
    return _mm256_or_ps(rb, nan);  /* (NaN: the all-ones word) */
}

/* ---- eight double lanes (AVX-512F): sleef_tanh's steps ---- */
/* td_expk2, eight lanes (AVX-512F; any y: a lane beyond 710 or NaN gives garbage the callers' selects
 * replace): sleef_tanh8's and the eight-lane double sinh / cosh's (_sleef_hyper.h) E = exp y */
__attribute__((target("avx512f"), always_inline)) static inline void td8_expk2(__m512d y, __m512d *dxo, __m512d *dyo)
{
    __m512d dq = _mm512_roundscale_pd(_mm512_mul_pd(y, _mm512_set1_pd(TD_R_LN2)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256i q = _mm512_cvtpd_epi32(dq);
    __m512d sx, sy;
    {
        __m512d yv = _mm512_mul_pd(dq, _mm512_set1_pd(-TD_L2U));
        __m512d s_ = _mm512_add_pd(y, yv), v_ = _mm512_sub_pd(s_, y);
        sy = _mm512_add_pd(_mm512_sub_pd(y, _mm512_sub_pd(s_, v_)), _mm512_sub_pd(yv, v_));
        sy = _mm512_add_pd(sy, _mm512_setzero_pd());
        sx = s_;
        yv = _mm512_mul_pd(dq, _mm512_set1_pd(-TD_L2L));
        s_ = _mm512_add_pd(sx, yv), v_ = _mm512_sub_pd(s_, sx);
        sy = _mm512_add_pd(_mm512_add_pd(_mm512_sub_pd(sx, _mm512_sub_pd(s_, v_)), _mm512_sub_pd(yv, v_)), sy);
        sx = s_;
    }
    __m512d s2x = _mm512_mul_pd(sx, sx);
    __m512d s2y = _mm512_fmadd_pd(_mm512_add_pd(sx, sx), sy, _mm512_fmsub_pd(sx, sx, s2x));
    __m512d s4x = _mm512_mul_pd(s2x, s2x);
    __m512d s4y = _mm512_fmadd_pd(_mm512_add_pd(s2x, s2x), s2y, _mm512_fmsub_pd(s2x, s2x, s4x));
    __m512d x8 = _mm512_mul_pd(s4x, s4x);
#define TD8(c) _mm512_set1_pd(c)
    __m512d p8 = _mm512_fmadd_pd(s4x, _mm512_fmadd_pd(s2x, _mm512_fmadd_pd(sx, TD8(TD_EXPK2_C7), TD8(TD_EXPK2_C6)),
                                                       _mm512_fmadd_pd(sx, TD8(TD_EXPK2_C5), TD8(TD_EXPK2_C4))),
                                 _mm512_fmadd_pd(s2x, _mm512_fmadd_pd(sx, TD8(TD_EXPK2_C3), TD8(TD_EXPK2_C2)),
                                                 _mm512_fmadd_pd(sx, TD8(TD_EXPK2_C1), TD8(TD_EXPK2_C0))));
    __m512d u = _mm512_fmadd_pd(x8, _mm512_fmadd_pd(sx, TD8(TD_EXPK2_C9), TD8(TD_EXPK2_C8)), p8);
    __m512d tx, ty, ax, ay, c;
    /* t = ddadd(0.5, ddmul(s, 1/6)) */
    c = TD8(+0.1666666666666666574e+0);
    ax = _mm512_mul_pd(sx, c);
    ay = _mm512_fmadd_pd(sy, c, _mm512_fmsub_pd(sx, c, ax));
    c = TD8(0.5);
    tx = _mm512_add_pd(c, ax);
    ty = _mm512_add_pd(_mm512_add_pd(_mm512_sub_pd(c, tx), ax), ay);
    /* t = ddadd(1, ddmul(t, s)), twice */
    c = TD8(1.0);
    for (int k = 0; k < 2; k++) {
        ax = _mm512_mul_pd(tx, sx);
        ay = _mm512_fmadd_pd(tx, sy, _mm512_fmadd_pd(ty, sx, _mm512_fmsub_pd(tx, sx, ax)));
        tx = _mm512_add_pd(c, ax);
        ty = _mm512_add_pd(_mm512_add_pd(_mm512_sub_pd(c, tx), ax), ay);
    }
    /* t = ddadd(t, ddmul(s4, u)) */
    ax = _mm512_mul_pd(s4x, u);
    ay = _mm512_fmadd_pd(s4y, u, _mm512_fmsub_pd(s4x, u, ax));
    {
        __m512d s_ = _mm512_add_pd(tx, ax);
        ty = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(_mm512_sub_pd(tx, s_), ax), ty), ay);
        tx = s_;
    }
#undef TD8
    __m512i q64 = _mm512_cvtepi32_epi64(q);
    __m512i h = _mm512_srai_epi64(q64, 1), bias = _mm512_set1_epi64(0x3ff);
    __m512d p1 = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_add_epi64(h, bias), 52));
    __m512d p2 = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_add_epi64(_mm512_sub_epi64(q64, h), bias), 52));
    *dxo = _mm512_mul_pd(_mm512_mul_pd(tx, p1), p2);
    *dyo = _mm512_mul_pd(_mm512_mul_pd(ty, p1), p2);
}

__attribute__((target("avx512f"))) static __m512d sleef_tanh8(__m512d x)
{
    const __m512i absm = _mm512_set1_epi64(0x7FFFFFFFFFFFFFFFll);
    __m512d y = _mm512_castsi512_pd(_mm512_and_si512(_mm512_castpd_si512(x), absm));
    __m512d dx, dy;
    td8_expk2(y, &dx, &dy);
    const __m512d one = _mm512_set1_pd(1.0);
    __m512d rs = _mm512_div_pd(one, dx);
    __m512d ey = _mm512_mul_pd(rs, _mm512_fnmadd_pd(dy, rs, _mm512_fnmadd_pd(dx, rs, one)));
    /* ddadd2(d, -e), ddadd2(d, e) */
    __m512d nx = _mm512_sub_pd(dx, rs), v1 = _mm512_sub_pd(nx, dx);
    __m512d ny = _mm512_add_pd(_mm512_add_pd(_mm512_sub_pd(dx, _mm512_sub_pd(nx, v1)), _mm512_sub_pd(_mm512_sub_pd(_mm512_setzero_pd(), rs), v1)),
                               _mm512_sub_pd(dy, ey));
    __m512d mx = _mm512_add_pd(dx, rs), v2 = _mm512_sub_pd(mx, dx);
    __m512d my = _mm512_add_pd(_mm512_add_pd(_mm512_sub_pd(dx, _mm512_sub_pd(mx, v2)), _mm512_sub_pd(rs, v2)), _mm512_add_pd(dy, ey));
    __m512d ti = _mm512_div_pd(one, mx), qq = _mm512_mul_pd(nx, ti);
    __m512d uu = _mm512_fmsub_pd(ti, nx, qq);
    __m512d v = _mm512_fnmadd_pd(my, ti, _mm512_fnmadd_pd(mx, ti, one));
    __m512d r = _mm512_add_pd(qq, _mm512_fmadd_pd(qq, v, _mm512_fmadd_pd(ny, ti, uu)));
    __mmask8 big = _mm512_cmp_pd_mask(y, _mm512_set1_pd(SLEEF_TANH_BOUND), _CMP_GT_OQ) | _mm512_cmp_pd_mask(r, r, _CMP_UNORD_Q);
    r = _mm512_mask_mov_pd(r, big, one);
    const __m512i sign = _mm512_set1_epi64((long long)0x8000000000000000ull);
    __m512i rb = _mm512_xor_si512(_mm512_castpd_si512(r), _mm512_and_si512(_mm512_castpd_si512(x), sign));
    __mmask8 nan = _mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q);
    return _mm512_castsi512_pd(_mm512_mask_mov_epi64(rb, nan, _mm512_set1_epi64(-1)));
}
#undef TF16_ADD2_F2F
#undef TF8_ADD2_F2F
#endif
#endif
