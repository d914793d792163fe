/* SLEEF's log of float and double with 1-ulp accuracy (sleefsimdsp.c's xlogf_u1, sleefsimddp.c's
 * xlog_u1: what ATen's Vectorized<float>::log() / Vectorized<double>::log() call, Sleef_logf16_u10 /
 * Sleef_logd8_u10 under the AVX512 capability), one lane in plain C with every fused step of the
 * vector code a fma / fmaf, for a positive normal argument: ATen's log_softmax takes the log of
 * each row's sum of exponentials with it (a sum >= 1: the row's maximum contributes exp(0)), so the
 * zero, negative, infinite and subnormal cases of the vector code's fix-up are not ported (the
 * caller passes those to the C library's log). The AVX-512 form's argument reduction: e is the
 * exponent of d / 0.75 (vgetexp), m the mantissa of d in [0.75, 1.5) (vgetmant), so d = m 2^e;
 * x = (m - 1) / (m + 1) in double-float (double-double) arithmetic, log d = e ln 2 + 2x + x^3 P(x^2).
 * The includer has included <math.h>, <stdint.h> and <string.h>. */
#ifndef STRIDED_SLEEF_LOG_H
#define STRIDED_SLEEF_LOG_H
/* (the steps inlined into sleef_logf_or_libm / sleef_log_or_libm, whose FMA clone then runs them
 * with the fused instructions: see there) */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define SLEEF_LOG_CLONES __attribute__((target_clones("fma", "default")))
#define SLEEF_LOG_INLINE inline __attribute__((always_inline))
#else
#define SLEEF_LOG_CLONES
#define SLEEF_LOG_INLINE inline
#endif

typedef struct { float x, y; } sleef_f2;
typedef struct { double x, y; } sleef_d2;

/* vgetmant(d, [0.75, 1.5)) of a positive normal float: its fraction with the exponent of 1, halved
 * where that is 1.5 or more */
SLEEF_LOG_INLINE static float sleef_mant_f(float d)
{
    uint32_t b;
    memcpy(&b, &d, sizeof b);
    b = (b & 0x007FFFFFu) | ((b & 0x00400000u) ? 0x3F000000u : 0x3F800000u);
    float m;
    memcpy(&m, &b, sizeof m);
    return m;
}

SLEEF_LOG_INLINE static double sleef_mant_d(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    b = (b & 0x000FFFFFFFFFFFFFull) | ((b & 0x0008000000000000ull) ? 0x3FE0000000000000ull : 0x3FF0000000000000ull);
    double m;
    memcpy(&m, &b, sizeof m);
    return m;
}

/* the double-float steps of xlogf_u1 (df.h's, the FMA forms) */
SLEEF_LOG_INLINE static sleef_f2 sleef_dfadd2_ff(float x, float y)
{
    float s = x + y, v = s - x;
    sleef_f2 r = {s, (x - (s - v)) + (y - v)};
    return r;
}

SLEEF_LOG_INLINE static sleef_f2 sleef_dfdiv(sleef_f2 n, sleef_f2 d)
{
    float t = 1.0f / d.x, s = n.x * t;
    float u = fmaf(t, n.x, -s);
    float v = fmaf(-d.y, t, fmaf(-d.x, t, 1.0f));
    sleef_f2 r = {s, fmaf(s, v, fmaf(n.y, t, u))};
    return r;
}

/* the last steps of xlogf_u1 and xlog1pf (of xlog_u1 and xlog1p): s + 2x + x^3 t in double-float
 * arithmetic (dfadd_vf2_vf2_vf2(s, dfscale(x, 2)), dfadd_vf2_vf2_vf(s, x2 x t)), rounded to one float */
SLEEF_LOG_INLINE static float sleef_log_tail_f(sleef_f2 s, sleef_f2 x, float x2, float t)
{
    float yx = x.x * 2.0f, yy = x.y * 2.0f, sum = s.x + yx;
    s.y = (((s.x - sum) + yx) + s.y) + yy;
    s.x = sum;
    float w = (x2 * x.x) * t;
    sum = s.x + w;
    s.y = ((s.x - sum) + w) + s.y;
    s.x = sum;
    return s.x + s.y;
}

SLEEF_LOG_INLINE static double sleef_log_tail_d(sleef_d2 s, sleef_d2 x, double x2, double t)
{
    double yx = x.x * 2.0, yy = x.y * 2.0, sum = s.x + yx;
    s.y = (((s.x - sum) + yx) + s.y) + yy;
    s.x = sum;
    double w = (x2 * x.x) * t;
    sum = s.x + w;
    s.y = ((s.x - sum) + w) + s.y;
    s.x = sum;
    return s.x + s.y;
}

SLEEF_LOG_INLINE static float sleef_logf_u1(float d)
{
    int ex;
    float y = d * (1.0f / 0.75f);
    (void)frexpf(y, &ex);
    float e = isinf(y) ? 128.0f : (float)(ex - 1), m = sleef_mant_f(d);  /* (vgetexp's +inf: 128) */
    const float l2h = 0.69314718246459960938f, l2l = -1.904654323148236017e-09f;
    float sx = l2h * e;
    sleef_f2 s = {sx, fmaf(l2l, e, fmaf(l2h, e, -sx))};
    sleef_f2 x = sleef_dfdiv(sleef_dfadd2_ff(-1.0f, m), sleef_dfadd2_ff(1.0f, m));
    float x2 = x.x * x.x;
    float t = 0.3027294874e+0f;
    t = fmaf(t, x2, 0.3996108174e+0f);
    t = fmaf(t, x2, 0.6666694880e+0f);
    return sleef_log_tail_f(s, x, x2, t);
}

/* xlog_u1 (dd.h's FMA forms; its POLY7 in Estrin's scheme) */
SLEEF_LOG_INLINE static sleef_d2 sleef_ddadd2_dd(double x, double y)
{
    double s = x + y, v = s - x;
    sleef_d2 r = {s, (x - (s - v)) + (y - v)};
    return r;
}

SLEEF_LOG_INLINE static sleef_d2 sleef_dddiv(sleef_d2 n, sleef_d2 d)
{
    double t = 1.0 / d.x, s = n.x * t;
    double u = fma(t, n.x, -s);
    double v = fma(-d.y, t, fma(-d.x, t, 1.0));
    sleef_d2 r = {s, fma(s, v, fma(n.y, t, u))};
    return r;
}

SLEEF_LOG_INLINE static double sleef_log_u1(double d)
{
    int ex;
    double y = d * (1.0 / 0.75);
    (void)frexp(y, &ex);
    double e = isinf(y) ? 1024.0 : (double)(ex - 1), m = sleef_mant_d(d);  /* (vgetexp's +inf: 1024) */
    sleef_d2 x = sleef_dddiv(sleef_ddadd2_dd(-1.0, m), sleef_ddadd2_dd(1.0, m));
    double x2 = x.x * x.x, x4 = x2 * x2, x8 = x4 * x4;
    double p3 = fma(x4, 0.1532076988502701353e+0, fma(x2, 0.1525629051003428716e+0, 0.1818605932937785996e+0));
    double p4 = fma(x4, fma(x2, 0.2222214519839380009e+0, 0.2857142932794299317e+0),
                    fma(x2, 0.3999999999635251990e+0, 0.6666666666667333541e+0));
    double t = fma(x8, p3, p4);
    const double l2h = 0.693147180559945286226764, l2l = 2.319046813846299558417771e-17;
    double sx = l2h * e;
    sleef_d2 s = {sx, fma(l2l, e, fma(l2h, e, -sx))};
    return sleef_log_tail_d(s, x, x2, t);
}

/* SLEEF's log where it is ported (a positive normal finite argument), the C library's elsewhere.
 * An FMA clone where the CPU has FMA: the steps' fmaf / fma are then one instruction each instead
 * of the C library's software routine (a correctly rounded fused operation either way: the same
 * bits; log_softmax's (16, 16) rows spent half their time in them). */
SLEEF_LOG_CLONES static float sleef_logf_or_libm(float d)
{
    return (d >= 1.17549435e-38f && d <= 3.40282347e+38f) ? sleef_logf_u1(d) : logf(d);
}

SLEEF_LOG_CLONES static double sleef_log_or_libm(double d)
{
    return (d >= 2.2250738585072014e-308 && d <= 1.7976931348623157e+308) ? sleef_log_u1(d) : log(d);
}
#endif
