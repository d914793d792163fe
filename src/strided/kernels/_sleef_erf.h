/* SLEEF's erf of double with 1-ulp accuracy (sleefsimddp.c's xerf_u1, SLEEF >= 3.5.2's "faster erf":
 * what ATen's Vectorized<double>::erf() calls, Sleef_erfd8_u10 under the AVX512 capability,
 * Sleef_erfd4_u10 under AVX2: the same steps per lane, every vmla / vfmapn / vfmanp of dd.h one fused
 * step), one lane in plain C (fma: one instruction in the includer's FMA clone, the C library's exact
 * software routine otherwise: the same bits).
 *
 * |a| <= 2.5: erf |a| = 1 - 1 / (1 + x P(x))^16 (Abramowitz and Stegun's form: P a degree-21
 * polynomial, its low three terms double-double, the power by four double-double squarings);
 * 2.5 < |a| < 6: 1 - exp(Q(x)) with Q another such polynomial and SLEEF's double-double expk; the
 * vector code takes the first form for every lane of a vector whose lanes are all <= 2.5 and
 * otherwise selects the same coefficients per lane, so each lane's bits are its own form's.
 * |a| < 1e-8: a * 2/sqrt(pi); |a| >= 6 or +-inf: +-1; +-0 itself; the sign of a put on (xor). A NaN
 * gives a NaN (its word is not ported: gelu's product takes x's NaN first). The includer has
 * included <math.h>, <stdint.h> and <string.h>. */
#ifndef STRIDED_SLEEF_ERF_H
#define STRIDED_SLEEF_ERF_H

/* (every step inlined into the includer's FMA clone, whose fma is then one instruction: a call per
 * fma otherwise, 4x slower) */
#if defined(__GNUC__) && !defined(__clang__)
#define SE_INLINE inline __attribute__((always_inline))
#else
#define SE_INLINE inline
#endif

typedef struct { double x, y; } se_d2;

SE_INLINE static se_d2 se_make(double x, double y)
{
    se_d2 r = {x, y};
    return r;
}

/* ddadd_vd2_vd2_vd2 (|x| >= |y|) */
SE_INLINE static se_d2 se_add_d2d2(se_d2 x, se_d2 y)
{
    double s = x.x + y.x;
    return se_make(s, (((x.x - s) + y.x) + x.y) + y.y);
}

/* ddadd_vd2_vd_vd2 (|x| >= |y|) */
SE_INLINE static se_d2 se_add_dd2(double x, se_d2 y)
{
    double s = x + y.x;
    return se_make(s, ((x - s) + y.x) + y.y);
}

/* ddadd2_vd2_vd2_vd */
SE_INLINE static se_d2 se_add2_d2d(se_d2 x, double y)
{
    double s = x.x + y, v = s - x.x;
    double w = (x.x - (s - v)) + (y - v);
    return se_make(s, w + x.y);
}

/* ddmul_vd2_vd2_vd */
SE_INLINE static se_d2 se_mul_d2d(se_d2 x, double y)
{
    double s = x.x * y;
    return se_make(s, fma(x.y, y, fma(x.x, y, -s)));
}

/* ddsqu_vd2_vd2 */
SE_INLINE static se_d2 se_squ(se_d2 x)
{
    double s = x.x * x.x;
    return se_make(s, fma(x.x + x.x, x.y, fma(x.x, x.x, -s)));
}

/* ddrec_vd2_vd2 */
SE_INLINE static se_d2 se_rec(se_d2 d)
{
    double s = 1.0 / d.x;
    return se_make(s, s * fma(-d.y, s, fma(-d.x, s, 1.0)));
}

/* ddmla_vd2_vd_vd2_vd2(x, y, z) = z + y x */
SE_INLINE static se_d2 se_mla(double x, se_d2 y, se_d2 z) { return se_add_d2d2(z, se_mul_d2d(y, x)); }

/* poly4dd: x^2 (c3 x + c2) + (c1 x + c0), each step double-double */
SE_INLINE static se_d2 se_poly4dd(double x, double c3, se_d2 c2, se_d2 c1, se_d2 c0)
{
    return se_mla(x * x, se_mla(x, se_make(c3, 0.0), c2), se_mla(x, c1, c0));
}

/* 2^q for q in the normal range (vpow2i_vd_vi) */
SE_INLINE static double se_pow2i(int32_t q)
{
    uint64_t b = (uint64_t)(int64_t)(q + 0x3ff) << 52;
    double r;
    memcpy(&r, &b, sizeof r);
    return r;
}

#define SE_MLA(x, y, z) fma((x), (y), (z))
#define SE_POLY2(x, c1, c0) SE_MLA(x, c1, c0)
#define SE_POLY4(x, x2, c3, c2, c1, c0) SE_MLA(x2, SE_MLA(x, c3, c2), SE_MLA(x, c1, c0))
#define SE_POLY5(x, x2, x4, c4, c3, c2, c1, c0) SE_MLA(x4, c4, SE_POLY4(x, x2, c3, c2, c1, c0))
#define SE_POLY8(x, x2, x4, c7, c6, c5, c4, c3, c2, c1, c0) \
    SE_MLA(x4, SE_POLY4(x, x2, c7, c6, c5, c4), SE_POLY4(x, x2, c3, c2, c1, c0))
#define SE_POLY10(x, x2, x4, x8, c9, c8, c7, c6, c5, c4, c3, c2, c1, c0) \
    SE_MLA(x8, SE_POLY2(x, c9, c8), SE_POLY8(x, x2, x4, c7, c6, c5, c4, c3, c2, c1, c0))
#define SE_POLY16(x, x2, x4, x8, cf, ce, cd, cc, cb, ca, c9, c8, c7, c6, c5, c4, c3, c2, c1, c0) \
    SE_MLA(x8, SE_POLY8(x, x2, x4, cf, ce, cd, cc, cb, ca, c9, c8), SE_POLY8(x, x2, x4, c7, c6, c5, c4, c3, c2, c1, c0))
#define SE_POLY21(x, x2, x4, x8, x16, d4, d3, d2, d1, d0, cf, ce, cd, cc, cb, ca, c9, c8, c7, c6, c5, c4, c3, c2, c1, c0) \
    SE_MLA(x16, SE_POLY5(x, x2, x4, d4, d3, d2, d1, d0), \
           SE_POLY16(x, x2, x4, x8, cf, ce, cd, cc, cb, ca, c9, c8, c7, c6, c5, c4, c3, c2, c1, c0))

/* SLEEF's expk: exp of a double-double d, rounded once (0 below -1000) */
SE_INLINE static double se_expk(se_d2 d)
{
    const double r_ln2 = 1.442695040888963407359924681001892137426645954152985934135449406931;
    const double l2u = .69314718055966295651160180568695068359375;
    const double l2l = .28235290563031577122588448175013436025525412068e-12;
    double dq = nearbyint((d.x + d.y) * r_ln2);  /* (vrint: to nearest even, the default mode) */
    int32_t q = (int32_t)dq;
    se_d2 s = se_add2_d2d(d, dq * -l2u);
    s = se_add2_d2d(s, dq * -l2l);
    double n = s.x + s.y;  /* ddnormalize */
    s = se_make(n, (s.x - n) + s.y);
    double s2 = s.x * s.x, s4 = s2 * s2, s8 = s4 * s4;
    double u = SE_POLY10(s.x, s2, s4, s8, 2.51069683420950419527139e-08, 2.76286166770270649116855e-07,
                         2.75572496725023574143864e-06, 2.48014973989819794114153e-05, 0.000198412698809069797676111,
                         0.0013888888939977128960529, 0.00833333333332371417601081, 0.0416666666665409524128449,
                         0.166666666666666740681535, 0.500000000000000999200722);
    se_d2 t = se_add_dd2(1.0, s);
    t = se_add_d2d2(t, se_mul_d2d(se_squ(s), u));
    u = t.x + t.y;
    u = u * se_pow2i(q >> 1) * se_pow2i(q - (q >> 1));  /* (vldexp2) */
    return d.x < -1000.0 ? 0.0 : u;
}

SE_INLINE static double sleef_erf(double a)
{
    double x = fabs(a);
    double x2 = x * x, x4 = x2 * x2, x8 = x4 * x4, x16 = x8 * x8;
    se_d2 t2;
    if (x <= 2.5) {
        double t = SE_POLY21(x, x2, x4, x8, x16, -0.2083271002525222097e-14, +0.7151909970790897009e-13,
                             -0.1162238220110999364e-11, +0.1186474230821585259e-10, -0.8499973178354613440e-10,
                             +0.4507647462598841629e-9, -0.1808044474288848915e-8, +0.5435081826716212389e-8,
                             -0.1143939895758628484e-7, +0.1215442362680889243e-7, +0.1669878756181250355e-7,
                             -0.9808074602255194288e-7, +0.1389000557865837204e-6, +0.2945514529987331866e-6,
                             -0.1842918273003998283e-5, +0.3417987836115362136e-5, +0.3860236356493129101e-5,
                             -0.3309403072749947546e-4, +0.1060862922597579532e-3, +0.2323253155213076174e-3,
                             +0.1490149719145544729e-3);
        t2 = se_poly4dd(x, t, se_make(0.0092877958392275604405, 7.9287559463961107493e-19),
                        se_make(0.042275531758784692937, 1.3785226620501016138e-19),
                        se_make(0.07052369794346953491, 9.5846628070792092842e-19));
        t2 = se_add_dd2(1.0, se_mul_d2d(t2, x));
        t2 = se_squ(t2);
        t2 = se_squ(t2);
        t2 = se_squ(t2);
        t2 = se_squ(t2);
        t2 = se_rec(t2);
    } else {  /* (a NaN too, as the vector code's o25 mask leaves it) */
        double t = SE_POLY21(x, x2, x4, x8, x16, -0.4024015130752621932e-18, +0.3847193332817048172e-16,
                             -0.1749316241455644088e-14, +0.5029618322872872715e-13, -0.1025221466851463164e-11,
                             +0.1573695559331945583e-10, -0.1884658558040203709e-9, +0.1798167853032159309e-8,
                             -0.1380745342355033142e-7, +0.8525705726469103499e-7, -0.4160448058101303405e-6,
                             +0.1517272660008588485e-5, -0.3341634127317201697e-5, -0.2515023395879724513e-5,
                             +0.6539731269664907554e-4, -0.3551065097428388658e-3, +0.1210736097958368864e-2,
                             -0.2605566912579998680e-2, +0.1252823202436093193e-2, +0.1820191395263313222e-1,
                             -0.1021557155453465954e+0);
        t2 = se_poly4dd(x, t, se_make(-0.63691044383641748361, -2.4249477526539431839e-17),
                        se_make(-1.1282926061803961737, -6.2970338860410996505e-17),
                        se_make(-1.2261313785184804967e-05, -5.5329707514490107044e-22));
        t2 = se_make(se_expk(t2), 0.0);
    }
    t2 = se_add2_d2d(t2, -1.0);
    double z = -(t2.x + t2.y);
    if (x < 1e-8) z = x * 1.12837916709551262756245475959;
    if (x >= 6.0) z = 1.0;
    if (isinf(a)) z = 1.0;
    if (a == 0.0) z = 0.0;
    return signbit(a) ? -z : z;  /* (vmulsign: a's sign bit xored in) */
}

#endif
