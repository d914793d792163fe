/* strided.kernels._specialkernel: the special functions of strided.kernels.special, one element at a time.
 *
 * NAME(src, dst) -> None           for NAME in erf, erfc, erfinv, erfinv_float32, digamma, trigamma, lgamma, i0, i1, i0e, i1e
 * zeta_scaled(src, dst, s, scale)  scale * zeta(s, src) for one order s > 1 (polygamma's n >= 2)
 * fma32(a, b, c, out) -> bool      out = a * b + c rounded once, float32 (strided.kernels.fused.fma_into)
 * cross3(a, b, out[, inner]) -> bool PyTorch's fused cross product, float32/float64 (ops.linalg.products)
 * kron2(a, b, out, m, n, p, q) -> bool  kron of two matrices (outer: n = p = 1), float32/float64 (the same)
 * bmm_loop(x, y, out, n, k, p) -> bool  PyTorch's small baddbmm loop (ops.linalg.fused)
 * fma64(a, b, c, out) -> bool      out = fma(a, b, c), float64: C99's correctly rounded fma (the same)
 * softmax_rows(x, out, n, log)      softmax (log: log_softmax) of each row of n elements (see there)
 * scan(x, out, n, inner, prod[, strict]) cumsum (prod: cumprod) along a dim of n elements (see there)
 * variance_rows(x, var, mean, n, denominator, root, wide=0)   var (root: std) and mean of rows (see there)
 * torch_welford_rows(x, var, mean, n, divisor, root, inner=1)   PyTorch's Welford var and mean (see there)
 * torch_squared_deviations(x, slab, mean) -> float   PyTorch's all-reduce var sum (see there)
 * relu(x, out) -> bool             max(x, 0) with -0.0 and NaN kept (see there)
 * threshold_keep(g, y, out) -> bool  relu's gradient: g where y > 0 or NaN, +0.0 elsewhere (see there)
 * lgamma_float32(src, dst)        lgamma's bits for float32, a vector loop (see there)
 * tri_indices(out, row, col, offset, lower) -> bool  tril/triu_indices' pairs (see there)
 * lerp_runs(a, b, w, out) -> bool  lerp with a number weight, one pass (see there)
 * add_rows(out, bias) -> bool     out[i, j] += bias[j] in place, NumPy's bits (see there)
 * addcdiv_runs(x, y1, y2, value, out) -> bool  addcdiv over flat runs, one pass (see there)
 * addcmul_runs(x, y1, y2, value, out) -> bool  addcmul over flat runs, one pass (see there)
 * outer_scale_add(x, y, base, alpha, beta, out) -> bool  addr's outer product, scaled and summed (see there)
 * interleave(x, y, out) -> bool  complex(real, imag)'s pairs, one pass (see there)
 * greater_select(x, t, y) -> bool  softplus / elu's where(x > t, x, y), in place on y (see there)
 * greater_copy(x, t, y) -> bool  y = x where every x > t (elu's all-positive input; see there)
 * gelu(src, dst) -> bool         F.gelu's exact form, its float64 formula in one pass (see there)
 * running_extreme(x, values, indices, n, inner, is_max)   cummax/cummin along a dim (see there)
 * binary_exact(x, y, out, code)    PyTorch's fmax / fmin / heaviside with their NaN bits (see there)
 * torch_extreme(x, y, out, m, row) PyTorch's maximum / minimum bits, its two loops' ties and NaNs
 * binary_float(x, y, out, code)    float32 fmod / remainder / floor_divide / hypot, NumPy's bits (see there)
 * unary_exact(x, out, code, ...)   sign, nan_to_num, leaky_relu, rsqrt, logit's quotient: one pass (see there)
 *
 *   src, dst: contiguous buffers (C or Fortran order, the same for both: the caller checks) of
 *   float64 ("d") or float32 ("f") elements, of equal length; they may be the same memory. Each
 *   element is read as a double, evaluated in double, and stored once (rounded to float32 for an
 *   "f" destination): the NumPy version computes in float64 and the ops layer rounds once too.
 *
 * Every function is the formula of its NumPy twin in strided/kernels/special.py, operation for
 * operation, with the same constants: the NumPy version's masks and np.where become branches,
 * its loops over coefficient tuples the same loops. Built with -ffp-contract=off and without
 * -ffast-math (setup.py), so that the arithmetic rounds as NumPy's does. Where the NumPy version
 * calls np.exp, np.log, np.tan or np.power, this calls the C library's exp, log, tan, pow; NumPy's
 * own SIMD versions of those (AVX-512 on x86-64) differ from glibc's by at most 1 ulp in a few
 * percent of arguments, so the two paths agree to a few ulps (tests/test_native_special.py
 * measures it) and are exact at the special values (zeros, infinities, NaN, poles). sqrt,
 * floor, trunc, rint, modf and sin (NumPy calls the C library's for float64) are exact or the same.
 *
 * The GIL is released from MIN_RELEASE elements on: the caller holds both arrays.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "_torch_bmm_loop.h"
#include <math.h>
#include <float.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h> /* (AVX intrinsics in functions compiled for them: target attributes) */
#endif

#define MIN_RELEASE 8192
#define BLOCK 64 /* elements per pass of a blocked kernel (erfinv, i1, i1e) */
/* ERF_CLONES: GCC compiles the function three times, for AVX-512, AVX2 and plain x86-64, and picks
 * one at load time by the CPU; the same IEEE operations in more lanes (no FMA: -ffp-contract=off
 * holds), so the same values. "no-trapping-math" only lets the compiler evaluate both sides of a
 * selection; it changes no value. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ERF_CLONES __attribute__((target_clones("avx512f", "avx2", "default"), optimize("no-trapping-math")))
#else
#define ERF_CLONES
#endif
#define PI 3.141592653589793

/* ------------------------------------------------------------------ erf, erfc (Cody) */

static const double A[5] = {3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
                            3.20937758913846947e03, 1.85777706184603153e-1};
static const double B[4] = {2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
                            2.84423683343917062e03};
static const double C[9] = {5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
                            2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03,
                            2.05107837782607147e03, 1.23033935479799725e03, 2.15311535474403846e-8};
static const double D[8] = {1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
                            1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
                            3.43936767414372164e03, 1.23033935480374942e03};
static const double P[6] = {3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
                            1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2};
static const double Q[5] = {2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1,
                            6.05183413124413191e-2, 2.33520497626869185e-3};
#define RSQRTPI 0.56418958354775628695
#define THRESH 0.46875
#define TWO_OVER_SQRTPI 1.1283791670955125739

/* (always inlined: the float32 stages call it inside their vector loops) */
static inline __attribute__((always_inline)) double erf_small(double x)
{
    double z = x * x, num = A[4] * z, den = z;
    for (int i = 0; i < 3; i++) {
        num = (num + A[i]) * z;
        den = (den + B[i]) * z;
    }
    return x * (num + A[3]) / (den + B[3]);
}

static double scaled_tail(double y)
{
    if (y <= 4.0) {
        double num = C[8] * y, den = y;
        for (int i = 0; i < 7; i++) {
            num = (num + C[i]) * y;
            den = (den + D[i]) * y;
        }
        return (num + C[7]) / (den + D[7]);
    }
    double z = 1.0 / (y * y), num = P[5] * z, den = z;
    for (int i = 0; i < 4; i++) {
        num = (num + P[i]) * z;
        den = (den + Q[i]) * z;
    }
    double far = z * (num + P[4]) / (den + Q[4]);
    return (RSQRTPI - far) / y;
}

static double erfc_positive(double y)
{
    y = y < 40.0 ? y : 40.0;
    double scaled = scaled_tail(y);
    double ys = trunc(y * 16.0) / 16.0;
    double delta = (y - ys) * (y + ys);
    return exp(-ys * ys) * exp(-delta) * scaled;
}

static double k_erf(double x)
{
    if (isnan(x)) return x;
    if (fabs(x) <= THRESH) return erf_small(x);
    return copysign(1.0 - erfc_positive(fabs(x)), x);
}

static double k_erfc(double x)
{
    if (isnan(x)) return x;
    if (fabs(x) <= THRESH) return 1.0 - erf_small(x);
    double tail = erfc_positive(fabs(x));
    return x < 0 ? 2.0 - tail : tail;
}

/* ------------------------------------------------------------------ erfinv (Giles + one Halley step)
 *
 * Start: M. Giles, "Approximating the erfinv function", GPU Computing Gems Jade Edition (2011),
 * ch. 10 (coefficients from its published code). With a = |y| and w = -log((1 - a)(1 + a)),
 * erfinv(a) ~ a * p(w - 2.5) for w < 5 and a * p(sqrt(w) - 3) for w < 16 (its single-precision
 * pair, relative error < 1.3e-7), and a * p(sqrt(w) - 5) beyond (its double-precision far branch,
 * ~1e-14: the single pair stops at float32's 1 - 2^-24). The start needs no more than that, so
 * w comes from a short log (erfinv_log: ~1e-10 absolute), not the C library's.
 *
 * Then one Halley step (cubic: 1.3e-7 -> ~1e-20, below float64's rounding): on erf(x) - a for
 * a < 0.5, on erfc(x) - (1 - a) from 0.5 on, where 1 - a is exact (Sterbenz) and erfc keeps its
 * relative accuracy while erf(x) - a would cancel. With f' = +-2/sqrt(pi) exp(-x^2) and
 * f'' = -2x f', the step is s / (1 + x s), s = f / f'. Cody's erf (erf_small: no exp below
 * 0.46875); exp(x^2) only scales the tiny step there, so its Taylor polynomial to t^8 (relative
 * error < 5e-12 for t = x^2 < 0.23) is plenty. Above, erfc(x) = exp(-x^2) scaled_tail(x), whose
 * exp(-x^2) is also the derivative; the rounding of x * x (1e-16 of x^2 <= 36) moves x by that
 * over 2x^2, relative, so Cody's split of exp(-x^2) is not needed.
 *
 * The elements go through in blocks of BLOCK, each stage a loop over the block: the Horner chains
 * and divisions of independent elements then overlap (one element at a time waits on each in
 * turn). The start's three polynomials are padded with leading zeros to one length
 * (0 + 0 * t = 0 exactly: the same roundings as the short Horner). */

static const double GILES_SINGLE[2][9] = {{ /* w < 5, in w - 2.5 */
    2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
    -0.00417768164, 0.246640727, 1.50140941}, { /* w < 16, in sqrt(w) - 3 */
    -0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
    0.00943887047, 1.00167406, 2.83297682}};
static const double GILES_FAR[17] = { /* beyond, in sqrt(w) - 5 */
    -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09, -3.7894654401267369937e-09,
    7.6157012080783393804e-09, -1.4960026627149240478e-08, 2.9147953450901080826e-08, -6.7711997758452339498e-08,
    2.2900482228026654717e-07, -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
    7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026, 1.0103004648645343977,
    4.8499064014085844221};
/* the branch points w = 5 and w = 16 as (1 - a)(1 + a) = exp(-w): the branches are told apart
 * before the log (either polynomial is good to 1.3e-7 at a rounding's distance from them) */
#define EXP_M5 6.737946999085467e-03
#define EXP_M16 1.1253517471925912e-07
/* exp(t) = sum t^k / k!, k <= 8 */
static const double EXP_TAYLOR[9] = {1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5, 1.0, 1.0};
#define LN2 0.6931471805599453094
#define HALF_SQRTPI 0.88622692545275801365
#define SQRT_HALF 0.70710678118654752440

/* v = 2^e f for a normal v > 0, f in [sqrt(1/2), sqrt(2)): frexp's split, moved by one where its
 * fraction is below sqrt(1/2), branch-free (the exponent as a double: (2^52 + its field) - 2^52 -
 * 1022, exact), so that vector loops can inline it (always) */
static inline __attribute__((always_inline)) void split_sqrt_half(double v, double *e_out, double *f_out)
{
    uint64_t bits, ebits;
    memcpy(&bits, &v, 8);
    ebits = (bits >> 52) | 0x4330000000000000ULL;
    double ed, f;
    memcpy(&ed, &ebits, 8);
    double e = (ed - 0x1p52) - 1022.0;
    bits = (bits & 0x000fffffffffffffULL) | 0x3fe0000000000000ULL;
    memcpy(&f, &bits, 8);
    int low = f < SQRT_HALF;
    *f_out = low ? 2.0 * f : f;
    *e_out = low ? e - 1.0 : e;
}

/* e log 2 + log f for f in [sqrt(1/2), sqrt(2)): log f = 2 atanh(s) = 2 (s + s^3/3 + ... + s^11/11),
 * s = (f - 1) / (f + 1), |s| < 0.172 (always inlined: erfinv's float32 loop calls it in its vector loop) */
static inline __attribute__((always_inline)) double log_reduced(double f, double e)
{
    double s = (f - 1.0) / (f + 1.0), z = s * s;
    double p = 1.0 / 11;
    p = 1.0 / 9 + p * z;
    p = 1.0 / 7 + p * z;
    p = 1.0 / 5 + p * z;
    p = 1.0 / 3 + p * z;
    p = 1.0 + p * z;
    return e * LN2 + 2.0 * s * p;
}

/* log(v) for a normal v > 0, to ~1e-10 absolute: v = f 2^e with f in [sqrt(1/2), sqrt(2)) (frexp,
 * exact), log f = 2 atanh(s) = 2 (s + s^3/3 + ... + s^11/11), s = (f - 1) / (f + 1), |s| < 0.172 */
static double erfinv_log(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    int e = (int)(bits >> 52) - 1022;  /* frexp's exponent, inline: v is normal and positive */
    bits = (bits & 0x000fffffffffffffULL) | 0x3fe0000000000000ULL;
    double f;
    memcpy(&f, &bits, 8);
    if (f < SQRT_HALF) {
        f = 2.0 * f;
        e = e - 1;
    }
    return log_reduced(f, e);
}

/* p[j] = x[j] * (c[0] t[j]^(n-1) + ... + c[n-1]) for j in [lo, hi): Horner, lanes innermost */
static void horner_lanes(const double *c, int n, const double *t, double *p, int lo, int hi)
{
    for (int j = lo; j < hi; j++) p[j] = c[0];
    for (int k = 1; k < n; k++)
        for (int j = lo; j < hi; j++) p[j] = c[k] + p[j] * t[j];
}

static void erfinv_block(const double *y, double *out, int m)
{
    /* lanes sorted by branch: [0, n0) a < 0.5 | [n0, n1) w < 5 | [n1, n2) w < 16 | [n2, n) beyond */
    double a[BLOCK], v[BLOCK], t[BLOCK], x[BLOCK], f[BLOCK], g[BLOCK];
    int idx[BLOCK], kind[BLOCK], count[5] = {0, 0, 0, 0, 0};
    for (int j = 0; j < m; j++) {  /* (branch-free: the kinds come in random order) */
        double aj = fabs(y[j]), vj = (1.0 - aj) * (1.0 + aj);
        int inside = aj < 1.0;  /* (not NaN) */
        kind[j] = inside ? (aj >= 0.5) + (vj <= EXP_M5) + (vj <= EXP_M16) : 4;
        count[1] += inside & (aj >= 0.5);
        count[2] += inside & (vj <= EXP_M5);
        count[3] += inside & (vj <= EXP_M16);
        count[4] += !inside;
    }
    /* (a < 0.5 gives v > 0.75: the three tests are nested, so count[k] counts kind >= k) */
    int n = m - count[4], n0 = n - count[1], n1 = n - count[2], n2 = n - count[3];
    int start[5] = {0, n0, n1, n2, n};
    for (int j = 0; j < m; j++) {
        int i = start[kind[j]]++;
        idx[i] = j;
        a[i] = fabs(y[j]);
        v[i] = (1.0 - a[i]) * (1.0 + a[i]);
    }
    for (int i = n; i < m; i++) {
        double yj = y[idx[i]];
        out[idx[i]] = yj == 1.0 ? INFINITY : yj == -1.0 ? -INFINITY : NAN;  /* (and NaN for NaN) */
    }
    for (int i = 0; i < n; i++) {
        double w = -erfinv_log(v[i]);
        t[i] = i < n1 ? w - 2.5 : sqrt(w) - (i < n2 ? 3.0 : 5.0);
    }
    horner_lanes(GILES_SINGLE[0], 9, t, x, 0, n1);
    horner_lanes(GILES_SINGLE[1], 9, t, x, n1, n2);
    horner_lanes(GILES_FAR, 17, t, x, n2, n);
    for (int i = 0; i < n; i++) x[i] = a[i] * x[i];
    for (int i = 0; i < n0; i++) {  /* f = f(x), g = 1 / f'(x) = sqrt(pi)/2 exp(x^2) */
        double e = EXP_TAYLOR[0], u = x[i] * x[i];
        for (int k = 1; k < 9; k++) e = EXP_TAYLOR[k] + e * u;
        f[i] = (x[i] <= THRESH ? erf_small(x[i]) : 1.0 - erfc_positive(x[i])) - a[i];
        g[i] = HALF_SQRTPI * e;
    }
    for (int i = n0; i < n; i++) {  /* (erfc's f is -erf's: so is f') */
        double e = exp(-x[i] * x[i]);
        f[i] = (1.0 - a[i]) - e * scaled_tail(x[i]);
        g[i] = 1.0 / (TWO_OVER_SQRTPI * e);
    }
    for (int i = 0; i < n; i++) {  /* s / (1 + x s) = s - x s^2 + O((x s)^2 s): |x s| < 1e-6 */
        double s = f[i] * g[i];
        out[idx[i]] = copysign(x[i] - (s - x[i] * s * s), y[idx[i]]);
    }
}

/* float32's erfinv: Giles' double-precision polynomials alone (relative error ~1e-15, the short
 * log's 1e-10 in w moves x by < 2e-11 relative), rounded once to float32: within 1 ulp of the
 * correctly rounded value, no Halley step (bench/bench_erfinv.py --exhaustive checks every
 * float32 in [0, 1)). */
static const double GILES_W[23] = { /* w < 6.25, in w - 3.125 */
    -3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18, 1.115787767802518096e-17,
    -1.333171662854620906e-16, 2.0972767875968561637e-17, 6.6376381343583238325e-15, -4.0545662729752068639e-14,
    -8.1519341976054721522e-14, 2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
    1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08, 4.2347877827932403518e-07,
    -1.3654692000834678645e-06, -1.3882523362786468719e-05, 0.0001867342080340571352, -0.00074070253416626697512,
    -0.0060336708714301490533, 0.24015818242558961693, 1.6536545626831027356};
static const double GILES_MID[19] = { /* w < 16, in sqrt(w) - 3.25 */
    2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07, 1.8239629214389227755e-08,
    1.5027403968909827627e-06, -4.013867526981545969e-06, 2.9234449089955446044e-06, 1.2475304481671778723e-05,
    -4.7318229009055733981e-05, 6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
    0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066, -0.0037512085075692412107,
    0.005370914553590063617, 1.0052589676941592334, 3.0838856104922207635};
#define EXP_M625 1.9304541362277093e-03
/* GILES_W economized to degree 17 (tools/gen_erfinv_chain.py: its Chebyshev expansion over
 * |t| <= 3.125 less the terms above degree 17, whose sum, 5.1e-13, bounds the change: < 2^-40
 * relative, as GILES_W >= sqrt(pi)/2), for the certified fused path alone (erfinv8_fused: its bound
 * 2^-38 covers it; the values of every other path stay GILES_W's) */
static const double GILES_W_SHORT[18] = {
    3.2763166372400926e-16, 2.153510343423208e-15, -4.516192737620197e-14, -7.552775967880634e-15,
    2.6754828387600173e-12, -1.3666038164663722e-11, -5.43926237096476e-11, 1.0550537359823316e-09,
    -4.111790400408116e-09, -2.9083055257263356e-08, 4.234769921751876e-07, -1.3654455170096065e-06,
    -1.3882521287762327e-05, 0.00018673418579393634, -0.000740702535272191, -0.006033670863367012,
    0.2401581824257637, 1.6536545626826207};

/* erfinv_float32_block's common block: every element inside (|y| < 1) with w < 6.25 (|y| below
 * ~0.9986), so GILES_W alone; erfinv_log (its split by split_sqrt_half: the same values as its
 * int exponent and branch) and horner_lanes inlined, operation for operation, which vectorizes:
 * the same bits in one pass. */
ERF_CLONES static void erfinv_float32_central(const double *restrict y, double *restrict out, int m)
{
    for (int j = 0; j < m; j++) {
        double a = fabs(y[j]), e, f;
        split_sqrt_half((1.0 - a) * (1.0 + a), &e, &f);
        double t = -log_reduced(f, e) - 3.125, x = GILES_W[0];
#pragma GCC unroll 23
        for (int k = 1; k < 23; k++) x = GILES_W[k] + x * t;
        out[j] = copysign(a * x, y[j]);
    }
}

/* Whether every one of the m elements takes erfinv_float32_central (inside, w < 6.25; not NaN). */
ERF_CLONES static int erfinv_all_central(const double *restrict y, int m)
{
    int other = 0;
    for (int j = 0; j < m; j++) {
        double a = fabs(y[j]);
        other |= !(a < 1.0) | ((1.0 - a) * (1.0 + a) <= EXP_M625);
    }
    return !other;
}

static void erfinv_float32_block(const double *y, double *out, int m)
{
    if (erfinv_all_central(y, m)) {
        erfinv_float32_central(y, out, m);
        return;
    }   /* lanes sorted by branch: [0, n1) w < 6.25 | [n1, n2) w < 16 | [n2, n) beyond | [n, m) edges */
    double a[BLOCK], t[BLOCK], x[BLOCK];
    int idx[BLOCK], kind[BLOCK], count[4] = {0, 0, 0, 0};
    for (int j = 0; j < m; j++) {
        double aj = fabs(y[j]), vj = (1.0 - aj) * (1.0 + aj);
        int inside = aj < 1.0;
        kind[j] = inside ? (vj <= EXP_M625) + (vj <= EXP_M16) : 3;
        count[1] += inside & (vj <= EXP_M625);
        count[2] += inside & (vj <= EXP_M16);
        count[3] += !inside;
    }
    int n = m - count[3], n1 = n - count[1], n2 = n - count[2];
    int start[4] = {0, n1, n2, n};
    for (int j = 0; j < m; j++) {
        int i = start[kind[j]]++;
        idx[i] = j;
        a[i] = fabs(y[j]);
    }
    for (int i = 0; i < n; i++) {
        double w = -erfinv_log((1.0 - a[i]) * (1.0 + a[i]));
        t[i] = i < n1 ? w - 3.125 : sqrt(w) - (i < n2 ? 3.25 : 5.0);
    }
    horner_lanes(GILES_W, 23, t, x, 0, n1);
    horner_lanes(GILES_MID, 19, t, x, n1, n2);
    horner_lanes(GILES_FAR, 17, t, x, n2, n);
    for (int i = 0; i < n; i++) out[idx[i]] = copysign(a[i] * x[i], y[idx[i]]);
    for (int i = n; i < m; i++) {
        double yj = y[idx[i]];
        out[idx[i]] = yj == 1.0 ? INFINITY : yj == -1.0 ? -INFINITY : NAN;
    }
}

/* ------------------------------------------------------------------ digamma, trigamma */

static const double PSI_TERMS[7] = {1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240, 1.0 / 132, -691.0 / 32760, 1.0 / 12};

static double k_digamma(double x)
{
    if (isnan(x)) return x;
    if (x == 0) return copysign(INFINITY, -copysign(1.0, x));
    int pole = x <= 0 && x == floor(x);
    if (pole) return NAN;
    int reflect = x < 0;
    double y = reflect ? 1.0 - x : x, acc = 0.0;
    for (int k = 0; k < 10 && y < 10.0; k++) {  /* (_shifted: at most ten steps) */
        acc += 1.0 / y;
        y += 1.0;
    }
    double inv2 = 1.0 / (y * y), series = 0.0;
    for (int i = 6; i >= 0; i--) series = (series + PSI_TERMS[i]) * inv2;
    double out = log(y) - 0.5 / y - series - acc;
    if (reflect) {
        double whole;
        out = out - PI / tan(PI * modf(x, &whole));
    }
    return out;
}

static double k_trigamma(double x)
{
    int low = x < 0.5;
    double result = 0.0, y = x;
    if (low) {
        double s = sin(PI * x);
        result = -(PI * PI) / (s * s);
        y = 1.0 - x;
    }
    for (int i = 0; i < 6; i++) {
        result = result + 1.0 / (y * y);
        y = y + 1.0;
    }
    double ixx = 1.0 / (y * y);
    result = result + (1.0 + 1.0 / (2.0 * y) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42)))) / y;
    return low ? -result : result;
}

/* ------------------------------------------------------------------ lgamma */

static const double STIRLING[8] = {1.0 / 12, -1.0 / 360, 1.0 / 1260, -1.0 / 1680, 1.0 / 1188, -691.0 / 360360,
                                   1.0 / 156, -3617.0 / 122400};
#define HALF_LOG_2PI 0.91893853320467274178
#define LOG_PI 1.14472988584940017414

static double lgamma_large(double z)
{
    double y = z, prod = 1.0;
    if (z < 15.0) {
        double w = z;
        for (int i = 0; i < 15; i++) {
            prod *= w;
            w += 1.0;
        }
        y = z + 15.0;
    }
    double inv2 = 1.0 / (y * y), series = 0.0;
    for (int i = 7; i >= 0; i--) series = series * inv2 + STIRLING[i];
    return (y - 0.5) * log(y) - y + HALF_LOG_2PI + series / y - log(prod);
}

static double k_lgamma(double x)
{
    if (isnan(x)) return x;
    if (isinf(x)) return INFINITY;
    if (x <= 0 && x == floor(x)) return INFINITY;
    if (x == 1.0 || x == 2.0) return 0.0;
    int neg = x < 0, small = x > 0 && x < 1;
    double z = neg ? 1.0 - x : (small ? x + 1.0 : x);
    double out = lgamma_large(z > 1.0 ? z : 1.0);
    if (small) out = out - log(x);
    if (neg) out = LOG_PI - log(fabs(sin(PI * (x - rint(x))))) - out;
    return out;
}

/* ------------------------------------------------------------------ i0, i1, i0e, i1e */

static const double I0A[30] = {
    -4.4153416464793395e-18, 3.3307945188222384e-17, -2.431279846547955e-16, 1.715391285555133e-15,
    -1.1685332877993451e-14, 7.676185498604936e-14, -4.856446783111929e-13, 2.95505266312964e-12,
    -1.726826291441556e-11, 9.675809035373237e-11, -5.189795601635263e-10, 2.6598237246823866e-09,
    -1.300025009986248e-08, 6.046995022541919e-08, -2.670793853940612e-07, 1.1173875391201037e-06,
    -4.4167383584587505e-06, 1.6448448070728896e-05, -5.754195010082104e-05, 0.00018850288509584165,
    -0.0005763755745385824, 0.0016394756169413357, -0.004324309995050576, 0.010546460394594998,
    -0.02373741480589947, 0.04930528423967071, -0.09490109704804764, 0.17162090152220877,
    -0.3046826723431984, 0.6767952744094761};
static const double I0B[25] = {
    -7.233180487874754e-18, -4.830504485944182e-18, 4.46562142029676e-17, 3.461222867697461e-17,
    -2.8276239805165836e-16, -3.425485619677219e-16, 1.7725601330565263e-15, 3.8116806693526224e-15,
    -9.554846698828307e-15, -4.150569347287222e-14, 1.54008621752141e-14, 3.8527783827421426e-13,
    7.180124451383666e-13, -1.7941785315068062e-12, -1.3215811840447713e-11, -3.1499165279632416e-11,
    1.1889147107846439e-11, 4.94060238822497e-10, 3.3962320257083865e-09, 2.266668990498178e-08,
    2.0489185894690638e-07, 2.8913705208347567e-06, 6.889758346916825e-05, 0.0033691164782556943,
    0.8044904110141088};

static double chbevl(double x, const double *vals, int n)
{   /* NumPy's _chbevl */
    double b0 = vals[0], b1 = 0.0, b2 = 0.0;
    for (int i = 1; i < n; i++) {
        b2 = b1;
        b1 = b0;
        b0 = x * b1 - b2 + vals[i];
    }
    return 0.5 * (b0 - b2);
}

static double np_i0(double x)
{   /* np.i0 of a finite (or NaN) x */
    x = fabs(x);
    if (x <= 8.0) return exp(x) * chbevl(x / 2.0 - 2, I0A, 30);
    return exp(x) * chbevl(32.0 / x - 2.0, I0B, 25) / sqrt(x);
}

static double k_i0(double x)
{
    if (isinf(x)) return NAN;
    return np_i0(x);
}

static double i1_abs(double a)
{   /* i1 of a finite a >= 0 */
    if (a <= 30.0) {
        double half = a / 2.0, term = half, total = half, q = half * half;
        for (int k = 1; k < 80; k++) {
            term = term * q / (double)(k * (k + 1));
            total += term;
        }
        return total;
    }
    double series = 1.0, step = 1.0;
    for (int k = 1; k < 30; k++) {
        step = step * -(4.0 - (double)((2 * k - 1) * (2 * k - 1))) / (8.0 * k * a);
        series += step;
    }
    return exp(a) / sqrt(2 * PI * a) * series;
}

static double scaled_bessel(double x, int order)
{
    if (isnan(x)) return x;
    if (isinf(x)) return order == 0 ? 0.0 : copysign(0.0, x);
    double a = fabs(x), out;
    if (a <= 30.0) {
        double plain = order == 0 ? np_i0(a) : i1_abs(a);
        out = plain * exp(-a);
    } else {
        double mu = 4.0 * order * order, series = 1.0, step = 1.0;
        for (int k = 1; k < 30; k++) {
            step = step * -(mu - (double)((2 * k - 1) * (2 * k - 1))) / (8.0 * k * a);
            series += step;
        }
        out = series / sqrt(2 * PI * a);
    }
    return order == 1 && x < 0 ? -out : out;
}

static double k_i0e(double x) { return scaled_bessel(x, 0); }

/* i1's power series (79 divisions an element) over BLOCK elements at once: the same operations
 * in the same order for each element, laid out so that the compiler runs the lanes side by side
 * (vector divisions; one element's scalar loop was slower than NumPy's vectorized passes). */

static void i1_series_block(const double *a, double *total, int m)
{
    double term[BLOCK], q[BLOCK];
    for (int j = 0; j < m; j++) {
        double half = (a[j] <= 30.0 ? a[j] : 0.0) / 2.0;  /* (far lanes: no overflow, unused) */
        term[j] = half;
        total[j] = half;
        q[j] = half * half;
    }
    for (int k = 1; k < 80; k++) {
        double c = (double)(k * (k + 1));
        for (int j = 0; j < m; j++) {
            term[j] = term[j] * q[j] / c;
            total[j] += term[j];
        }
    }
}

static void i1_block(const double *x, double *y, int m)
{
    double a[BLOCK] = {0}, total[BLOCK] = {0};
    for (int j = 0; j < m; j++) a[j] = isfinite(x[j]) ? fabs(x[j]) : 0.0;
    i1_series_block(a, total, m);
    for (int j = 0; j < m; j++) {
        double out = a[j] <= 30.0 ? total[j] : i1_abs(a[j]);
        y[j] = !isfinite(x[j]) ? NAN : x[j] < 0 ? -out : out;  /* (PyTorch's: -0.0 gives +0.0) */
    }
}

static void i1e_block(const double *x, double *y, int m)
{
    double a[BLOCK] = {0}, total[BLOCK] = {0};
    for (int j = 0; j < m; j++) a[j] = isfinite(x[j]) ? fabs(x[j]) : 0.0;
    i1_series_block(a, total, m);
    for (int j = 0; j < m; j++)
        y[j] = a[j] <= 30.0 && isfinite(x[j]) ? (x[j] < 0 ? -(total[j] * exp(-a[j])) : total[j] * exp(-a[j]))
                                              : scaled_bessel(x[j], 1);
}

/* ------------------------------------------------------------------ Hurwitz zeta (Cephes) */

static const double ZETA_A[12] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
                                  7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
                                  -4.5979787224074726105e15, 1.8152105401943546773e17,
                                  -7.1661652561756670113e18};
#define MACHEP 1.11022302462515654042e-16

static double zeta(double s, double q)
{   /* s > 1. The direct sum steps a = q, q + 1, ... up to 9 one term at a time, as Cephes and
     * PyTorch do: a far-negative non-integer q takes -q steps (polygamma(2, -4988429.2), a value
     * of PyTorch's large-value tests: 0.3 s; -1e10 + 0.5: minutes; up to -2**52: ~4.5e15 steps,
     * effectively a hang, with the GIL released, as in PyTorch). Kept: a faster (reflected) sum
     * would round differently from PyTorch where PyTorch answers. */
    if (isnan(q)) return q;
    int pole = q <= 0 && q == floor(q);
    if (pole) return INFINITY;
    if (q <= 0 && s != floor(s)) return NAN;
    double total = pow(q, -s), a = q, b = 0.0;
    long long i = 0;  /* (an int overflowed after 2**31 steps, q < -2.1e9: undefined behaviour) */
    while (i < 9 || a <= 9.0) {
        i++;
        a = a + 1.0;
        b = pow(a, -s);
        total = total + b;
        if (-MACHEP * total < b && b < MACHEP * total) return total;
    }
    double w = a, fact = 1.0, k = 0.0;
    total = total + b * w / (s - 1.0) - 0.5 * b;
    for (int j = 0; j < 12; j++) {
        fact = fact * (s + k);
        b = b / w;
        double t = fact * b / ZETA_A[j];
        total = total + t;
        if (fabs(t / total) < MACHEP) break;
        k += 1.0;
        fact = fact * (s + k);
        b = b / w;
        k += 1.0;
    }
    return total;
}

/* ------------------------------------------------------------------ the Python entries */

static int get_buffers(PyObject *const *args, Py_buffer *src, Py_buffer *dst, const char *name)
{
    if (PyObject_GetBuffer(args[0], src, PyBUF_ANY_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    if (PyObject_GetBuffer(args[1], dst, PyBUF_ANY_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(src);
        return -1;
    }
    const char *sf = src->format, *df = dst->format;
    int ok_s = (sf[0] == 'd' || sf[0] == 'f') && sf[1] == 0, ok_d = (df[0] == 'd' || df[0] == 'f') && df[1] == 0;
    /* one memory order for both: a row-major src into a column-major dst of the same shape would
     * be walked in step and silently transposed (the ops layer checks too; this guards a direct call) */
    int same_order = (PyBuffer_IsContiguous(src, 'C') && PyBuffer_IsContiguous(dst, 'C'))
                     || (PyBuffer_IsContiguous(src, 'F') && PyBuffer_IsContiguous(dst, 'F'));
    if (ok_s && ok_d && !same_order) {
        PyErr_Format(PyExc_ValueError, "%s: src and dst must be laid out in one memory order (both "
                     "row-major or both column-major)", name);
        PyBuffer_Release(src);
        PyBuffer_Release(dst);
        return -1;
    }
    if (!ok_s || !ok_d || src->len / src->itemsize != dst->len / dst->itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: src and dst must be contiguous float64 or float32 buffers of "
                     "one length (formats %s and %s, %zd and %zd elements)", name, sf, df,
                     src->len / src->itemsize, dst->len / dst->itemsize);
        PyBuffer_Release(src);
        PyBuffer_Release(dst);
        return -1;
    }
    return 0;
}

#define LOOP(EXPR)                                                                                 \
    do {                                                                                           \
        if (src.itemsize == 8 && dst.itemsize == 8) {                                              \
            const double *in_ = src.buf; double *out_ = dst.buf;                                   \
            for (Py_ssize_t i = 0; i < n; i++) { double x = in_[i]; out_[i] = (EXPR); }            \
        } else if (src.itemsize == 4 && dst.itemsize == 4) {                                       \
            const float *in_ = src.buf; float *out_ = dst.buf;                                     \
            for (Py_ssize_t i = 0; i < n; i++) { double x = in_[i]; out_[i] = (float)(EXPR); }     \
        } else if (src.itemsize == 8) {                                                            \
            const double *in_ = src.buf; float *out_ = dst.buf;                                    \
            for (Py_ssize_t i = 0; i < n; i++) { double x = in_[i]; out_[i] = (float)(EXPR); }     \
        } else {                                                                                   \
            const float *in_ = src.buf; double *out_ = dst.buf;                                    \
            for (Py_ssize_t i = 0; i < n; i++) { double x = in_[i]; out_[i] = (EXPR); }            \
        }                                                                                          \
    } while (0)

/* STMT over the n elements, without the GIL from MIN_RELEASE elements on; then both buffers released */
#define RELEASING(STMT)                                                                            \
    do {                                                                                           \
        Py_ssize_t n = src.len / src.itemsize;                                                     \
        if (n >= MIN_RELEASE) {                                                                    \
            Py_BEGIN_ALLOW_THREADS                                                                 \
            STMT;                                                                                  \
            Py_END_ALLOW_THREADS                                                                   \
        } else {                                                                                   \
            STMT;                                                                                  \
        }                                                                                          \
        PyBuffer_Release(&src);                                                                    \
        PyBuffer_Release(&dst);                                                                    \
    } while (0)

#define RUN(EXPR) RELEASING(LOOP(EXPR))

/* (x, out)'s buffers (strides and format), out writable: 0, or -1 with the error set and none held */
static int in_out_buffers(PyObject *x, PyObject *out, Py_buffer *xb, Py_buffer *ob)
{
    if (PyObject_GetBuffer(x, xb, PyBUF_STRIDES | PyBUF_FORMAT) < 0) return -1;
    if (PyObject_GetBuffer(out, ob, PyBUF_STRIDES | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(xb);
        return -1;
    }
    return 0;
}

/* (x, y, out)'s buffers, out writable: 0, or -1 with the error set and none held */
static int three_buffers(PyObject *const *args, Py_buffer *xb, Py_buffer *yb, Py_buffer *ob)
{
    if (PyObject_GetBuffer(args[0], xb, PyBUF_STRIDES | PyBUF_FORMAT) < 0) return -1;
    if (in_out_buffers(args[1], args[2], yb, ob) < 0) {
        PyBuffer_Release(xb);
        return -1;
    }
    return 0;
}

/* NAME(src, dst)'s two arguments, as buffers (-1 with the error set) */
static int two_buffers(PyObject *const *args, Py_ssize_t nargs, Py_buffer *src, Py_buffer *dst, const char *name)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "%s(src, dst) takes 2 arguments, not %zd", name, nargs);
        return -1;
    }
    return get_buffers(args, src, dst, name);
}

typedef void (*block_fn)(const double *, double *, int);

static void run_blocks(Py_buffer *src, Py_buffer *dst, Py_ssize_t n, block_fn f)
{   /* f over BLOCK elements at a time, read as doubles, stored once in dst's type */
    double in[BLOCK], out[BLOCK];
    for (Py_ssize_t i = 0; i < n; i += BLOCK) {
        int m = n - i < BLOCK ? (int)(n - i) : BLOCK;
        for (int j = 0; j < m; j++)
            in[j] = src->itemsize == 8 ? ((const double *)src->buf)[i + j] : ((const float *)src->buf)[i + j];
        f(in, out, m);
        for (int j = 0; j < m; j++) {
            if (dst->itemsize == 8) ((double *)dst->buf)[i + j] = out[j];
            else ((float *)dst->buf)[i + j] = (float)out[j];
        }
    }
}

#define BLOCKED(NAME)                                                                              \
    static PyObject *py_##NAME(PyObject *self, PyObject *const *args, Py_ssize_t nargs)           \
    {                                                                                              \
        (void)self;                                                                                \
        Py_buffer src, dst;                                                                        \
        if (two_buffers(args, nargs, &src, &dst, #NAME) < 0) return NULL;                          \
        RELEASING(run_blocks(&src, &dst, n, NAME##_block));                                        \
        Py_RETURN_NONE;                                                                            \
    }

static int erfinv_float32_avx(Py_buffer *src, Py_buffer *dst, Py_ssize_t n); /* (below: float32 in and out) */

/* erfinv (NAME erfinv) or erfinv_float32: a float32 destination takes erfinv_float32_block (no
 * Halley step: see there), in its AVX-512 form where src is float32 too */
static PyObject *erfinv_entry(PyObject *const *args, Py_ssize_t nargs, const char *name)
{
    Py_buffer src, dst;
    if (two_buffers(args, nargs, &src, &dst, name) < 0) return NULL;
    block_fn f = dst.itemsize == 4 ? erfinv_float32_block : erfinv_block;
    RELEASING(if (!erfinv_float32_avx(&src, &dst, n)) run_blocks(&src, &dst, n, f));
    Py_RETURN_NONE;
}

static PyObject *py_erfinv(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return erfinv_entry(args, nargs, "erfinv");
}

static PyObject *py_erfinv_float32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{   /* (erfinv_float32_block whatever the destination: erfinv's for float32, as it was) */
    (void)self;
    Py_buffer src, dst;
    if (two_buffers(args, nargs, &src, &dst, "erfinv_float32") < 0) return NULL;
    RELEASING(if (!erfinv_float32_avx(&src, &dst, n)) run_blocks(&src, &dst, n, erfinv_float32_block));
    Py_RETURN_NONE;
}
BLOCKED(i1)
BLOCKED(i1e)

#define UNARY(NAME)                                                                                \
    static PyObject *py_##NAME(PyObject *self, PyObject *const *args, Py_ssize_t nargs)            \
    {                                                                                              \
        (void)self;                                                                                \
        Py_buffer src, dst;                                                                        \
        if (two_buffers(args, nargs, &src, &dst, #NAME) < 0) return NULL;                          \
        RUN(k_##NAME(x));                                                                          \
        Py_RETURN_NONE;                                                                            \
    }

UNARY(erf)
UNARY(erfc)
UNARY(digamma)
UNARY(trigamma)
UNARY(lgamma)
UNARY(i0)
UNARY(i0e)

static PyObject *py_zeta_scaled(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Py_buffer src, dst;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "zeta_scaled(src, dst, s, scale) takes 4 arguments, not %zd", nargs);
        return NULL;
    }
    double s = PyFloat_AsDouble(args[2]), scale = PyFloat_AsDouble(args[3]);
    if (PyErr_Occurred()) return NULL;
    if (!(s > 1.0)) {
        PyErr_Format(PyExc_ValueError, "zeta_scaled: the order s must be > 1, not %R", args[2]);
        return NULL;
    }
    if (get_buffers(args, &src, &dst, "zeta_scaled") < 0) return NULL;
    RUN(scale * zeta(s, x));
    Py_RETURN_NONE;
}

/* float32's a * b + c rounded once, from the float64 sum s (the product exact, one float64
 * rounding) cast to r: r is the correctly rounded result except where s lies exactly on a tie
 * between two float32 numbers (its 29 bits beyond float32's precision 1 and 28 zeros) while the
 * exact sum is off it, or where the result is float32-subnormal (fewer bits count): those are
 * "unsure", and fmaf (C99's, exact) gives them. Without the check the double rounding was an ulp
 * off PyTorch's fmadd near ties: add(-1e-30, 1 + 2**-23, alpha=3) gave 3 + 2 ulps, torch 3 + 1
 * (found by the red team: ~1% of float32 elements over wide magnitudes). */
#define FMA32_BLOCK 256
static inline __attribute__((always_inline)) int64_t fma32_unsure(double s, float r, double err)
{
    uint64_t bits;
    memcpy(&bits, &s, 8);
    /* (an exact float64 sum, err == 0, rounds once into float32 whatever its bits: a tie there is a
     * true tie, and a product of a power of two, 0.5 * b + c, makes them often. Every test in 64-bit
     * lanes, |r| as the float64 it converts to exactly: GCC vectorizes the loop then) */
    return (int64_t)(err != 0.0) & ((int64_t)((bits & 0x1FFFFFFFu) == 0x10000000u)
                                    | (int64_t)(fabs((double)r) <= 0x1p-126));
}

/* A NaN result of a * b + c as PyTorch's fmadd gives it (measured: addcmul on x86-64, float32 and
 * float64): the first NaN operand in the order a, b, c, quieted; none (inf * 0): r, the default
 * NaN the steps made (x86's, negative), as the instruction makes it. Which NaN an instruction (or
 * glibc's fma) passes on depends on the compiler's operand order: the rule makes every path agree. */
#define FMA_NAN(NAME, T, U, QUIET)                                                                 \
    static inline T NAME(T a, T b, T c, T r)                                                       \
    {                                                                                              \
        U u;                                                                                       \
        if (a != a)                                                                                \
            memcpy(&u, &a, sizeof u);                                                              \
        else if (b != b)                                                                           \
            memcpy(&u, &b, sizeof u);                                                              \
        else if (c != c)                                                                           \
            memcpy(&u, &c, sizeof u);                                                              \
        else                                                                                       \
            return r;                                                                              \
        u |= (QUIET);                                                                              \
        memcpy(&r, &u, sizeof u);                                                                  \
        return r;                                                                                  \
    }
FMA_NAN(fma32_nan, float, uint32_t, 0x00400000u)
FMA_NAN(fma64_nan, double, uint64_t, 0x0008000000000000ull)
#undef FMA_NAN

/* One block's results into tmp[0..m), each r = EXPR (of j), nan set where any is a NaN (int32_t
 * flags for float lanes, int64_t for double ones: one lane width, so the loop vectorizes) */
#define NAN_FLAGGED_LOOP(T, FLAG, EXPR)                                                            \
    for (int j = 0; j < m; j++) {                                                                  \
        T r = (EXPR);                                                                              \
        tmp[j] = r;                                                                                \
        nan |= (FLAG)(r != r);                                                                     \
    }

/* s = p + c rounded to float64, r its float32 cast, err the exact error of the sum (TwoSum: the
 * product p of two float32 numbers is exact in float64 and far from overflow, so err is exact) */
#define FMA32_STEP(AV)                                                                             \
    double p = (AV) * (double)bv[i0 + j], cc = (double)cv[i0 + j], s = p + cc, bp = s - p;         \
    double err = (p - (s - bp)) + (cc - bp);                                                       \
    float r = (float)s

/* The loops of fma32 / fma64 (below), compiled twice on x86-64 with GCC or clang: for the baseline
 * (SSE2: two float64 lanes) and for AVX2 + FMA (float64's fma() and float32's fmaf() become the
 * vfmadd instruction, four and eight lanes). The same bits either way: both compute a * b + c
 * rounded once. The baseline's float32 loop gets there without an FMA instruction: an exact float64
 * product, one float64 rounding of the sum and one float32 rounding (-ffp-contract=off keeps the
 * multiply and the add apart), the unsure few redone by glibc's fmaf; float64's is C99's
 * correctly rounded fma, which the instruction computes as glibc's fma() does. The copy is picked
 * once, at the first call (__builtin_cpu_supports). */
#define FMA_LOOPS_BODY(HARDWARE_FMA)                                                               \
    if (itemsize == 4 && (HARDWARE_FMA)) { /* (fmaf is then the vfmadd instruction: exact, 8 lanes) */ \
        const float *bv = b, *cv = c, *av = a_arr;                                                 \
        float *ov = out, af = (float)a, tmp[FMA32_BLOCK];                                          \
        for (Py_ssize_t i0 = 0; i0 < n; i0 += FMA32_BLOCK) {                                       \
            int m = n - i0 < FMA32_BLOCK ? (int)(n - i0) : FMA32_BLOCK;                            \
            int32_t nan = 0;                                                                       \
            if (av)                                                                                \
                NAN_FLAGGED_LOOP(float, int32_t, fmaf(av[i0 + j], bv[i0 + j], cv[i0 + j]))                         \
            else                                                                                   \
                NAN_FLAGGED_LOOP(float, int32_t, fmaf(af, bv[i0 + j], cv[i0 + j]))                                 \
            if (nan) /* (which operand's NaN an instruction passes on is the compiler's choice) */ \
                for (int j = 0; j < m; j++)                                                        \
                    if (tmp[j] != tmp[j])                                                          \
                        tmp[j] = fma32_nan(av ? av[i0 + j] : af, bv[i0 + j], cv[i0 + j], tmp[j]);   \
            memcpy(ov + i0, tmp, (size_t)m * sizeof(float)); /* (after the reads: out may be b or c) */ \
        }                                                                                          \
    } else if (itemsize == 4) {                                                                    \
        const float *bv = b, *cv = c, *av = a_arr;                                                 \
        float *ov = out;                                                                           \
        float tmp[FMA32_BLOCK];                                                                    \
        a = (double)(float)a; /* (a number multiplier as the dtype holds it: float32's fmadd) */  \
        for (Py_ssize_t i0 = 0; i0 < n; i0 += FMA32_BLOCK) {                                       \
            int m = n - i0 < FMA32_BLOCK ? (int)(n - i0) : FMA32_BLOCK;                            \
            int64_t suspect = 0;                                                                   \
            if (av) /* (two loops, not a test per element: each vectorizes) */                     \
                for (int j = 0; j < m; j++) {                                                      \
                    FMA32_STEP((double)av[i0 + j]);                                                \
                    tmp[j] = r;                                                                    \
                    suspect |= fma32_unsure(s, r, err) | (int64_t)(s != s);                        \
                }                                                                                  \
            else                                                                                   \
                for (int j = 0; j < m; j++) {                                                      \
                    FMA32_STEP(a);                                                                 \
                    tmp[j] = r;                                                                    \
                    suspect |= fma32_unsure(s, r, err) | (int64_t)(s != s);                        \
                }                                                                                  \
            if (suspect) /* (a rounded float64 sum on a float32 tie, a subnormal result: fmaf; a NaN) */ \
                for (int j = 0; j < m; j++) {                                                      \
                    FMA32_STEP(av ? (double)av[i0 + j] : a);                                       \
                    if (fma32_unsure(s, r, err))                                                   \
                        tmp[j] = fmaf(av ? av[i0 + j] : (float)a, bv[i0 + j], cv[i0 + j]);         \
                    else if (r != r)                                                               \
                        tmp[j] = fma32_nan(av ? av[i0 + j] : (float)a, bv[i0 + j], cv[i0 + j], r); \
                }                                                                                  \
            memcpy(ov + i0, tmp, (size_t)m * sizeof(float)); /* (after the reads: out may be b or c) */ \
        }                                                                                          \
    } else {                                                                                       \
        const double *bv = b, *cv = c, *av = a_arr;                                                \
        double *ov = out, tmp[FMA32_BLOCK];                                                        \
        for (Py_ssize_t i0 = 0; i0 < n; i0 += FMA32_BLOCK) {                                       \
            int m = n - i0 < FMA32_BLOCK ? (int)(n - i0) : FMA32_BLOCK;                            \
            int64_t nan = 0;                                                                       \
            if (av == NULL)                                                                        \
                NAN_FLAGGED_LOOP(double, int64_t, fma(a, bv[i0 + j], cv[i0 + j]))                                  \
            else                                                                                   \
                NAN_FLAGGED_LOOP(double, int64_t, fma(av[i0 + j], bv[i0 + j], cv[i0 + j]))                         \
            if (nan)                                                                               \
                for (int j = 0; j < m; j++)                                                        \
                    if (tmp[j] != tmp[j])                                                          \
                        tmp[j] = fma64_nan(av ? av[i0 + j] : a, bv[i0 + j], cv[i0 + j], tmp[j]);    \
            memcpy(ov + i0, tmp, (size_t)m * sizeof(double));                                      \
        }                                                                                          \
    }

static void fma_loops_base(Py_ssize_t itemsize, double a, const void *a_arr, const void *b, const void *c,
                           void *out, Py_ssize_t n)
{
    FMA_LOOPS_BODY(0)
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma")))
static void fma_loops_avx2(Py_ssize_t itemsize, double a, const void *a_arr, const void *b, const void *c,
                           void *out, Py_ssize_t n)
{
    FMA_LOOPS_BODY(1)
}

/* Whether the AVX2 + FMA copies run (asked once; STRIDED_NATIVE_NO_FMA3 forces the baseline: tests) */
static int hardware_fma(void)
{
    static int avx2 = -1;
    if (avx2 < 0) {
        __builtin_cpu_init();
        avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
               && getenv("STRIDED_NATIVE_NO_FMA3") == NULL;
    }
    return avx2;
}

static void fma_loops(Py_ssize_t itemsize, double a, const void *a_arr, const void *b, const void *c,
                      void *out, Py_ssize_t n)
{
    if (hardware_fma())
        fma_loops_avx2(itemsize, a, a_arr, b, c, out, n);
    else
        fma_loops_base(itemsize, a, a_arr, b, c, out, n);
}
#define HAVE_HARDWARE_FMA_COPIES 1
#else
#define fma_loops fma_loops_base
#endif
#undef FMA_LOOPS_BODY

/* fma32(a, b, c, out): out[i] = (float)((double)a_i * (double)b[i] + (double)c[i]) for C-contiguous
 * float32 buffers b, c, out of one length, a_i a Python float (the same for every i) or a[i] of such a
 * buffer. The float64 product of two float32 numbers is exact, the sum rounds once to float64 and the
 * store once to float32: NumPy's np.add(np.multiply(a, b, dtype=np.float64), c, out=out,
 * casting="unsafe") element for element (strided.kernels.fused.fma_into's float32 path), in one pass
 * without the float64 temporary. An input may be out itself (read before the store, element by
 * element); one that overlaps out otherwise returns False with nothing written (the caller's NumPy
 * path buffers such overlaps); True once written.
 *
 * fma64(a, b, c, out): the same contract for float64 buffers ("d"), out[i] = fma(a_i, b[i], c[i]),
 * C99's fma: the exact a_i * b[i] + c[i] rounded once, what an FMA instruction (and so PyTorch's
 * vec::fmadd) gives, subnormal products and overflow included (fma_into's float64 path; its NumPy
 * emulation can be an ulp off where the error terms turn subnormal). -ffp-contract=off does not
 * touch an explicit fma call: glibc computes it exactly with or without FMA hardware. */
static PyObject *fma_run(PyObject *const *args, Py_ssize_t nargs, const char *name, const char *format,
                         Py_ssize_t itemsize)
{
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "%s(a, b, c, out) takes 4 arguments, not %zd", name, nargs);
        return NULL;
    }
    Py_buffer buf[4];
    int first = PyFloat_Check(args[0]) ? 1 : 0, got = first;
    double a = first ? PyFloat_AS_DOUBLE(args[0]) : 0.0;
    PyObject *answer = NULL;
    for (int k = first; k < 4; k++) {
        if (PyObject_GetBuffer(args[k], &buf[k], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (k == 3 ? PyBUF_WRITABLE : 0)) < 0)
            goto done;
        got = k + 1;
        if (strcmp(buf[k].format, format) != 0 || buf[k].itemsize != itemsize || buf[k].len != buf[first].len) {
            PyErr_Format(PyExc_ValueError, "%s: a (unless a float), b, c and out must be C-contiguous %s "
                         "buffers of one length (argument %d: format %s, %zd bytes)", name,
                         itemsize == 4 ? "float32" : "float64", k, buf[k].format, buf[k].len);
            goto done;
        }
    }
    {
        char *o = buf[3].buf;
        Py_ssize_t len = buf[3].len, n = len / itemsize;
        for (int k = first; k < 3; k++) {
            char *p = buf[k].buf;
            if (p != o && p < o + len && o < p + len) {
                answer = Py_False;
                goto done;
            }
        }
        const void *av = first ? NULL : buf[0].buf;
        if (n >= MIN_RELEASE) {
            Py_BEGIN_ALLOW_THREADS
            fma_loops(itemsize, a, av, buf[1].buf, buf[2].buf, buf[3].buf, n);
            Py_END_ALLOW_THREADS
        } else {
            fma_loops(itemsize, a, av, buf[1].buf, buf[2].buf, buf[3].buf, n);
        }
        answer = Py_True;
    }
done:
    for (int k = first; k < got; k++) PyBuffer_Release(&buf[k]);
    Py_XINCREF(answer);
    return answer;
}

static PyObject *py_fma32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return fma_run(args, nargs, "fma32", "f", 4);
}

static PyObject *py_fma64(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return fma_run(args, nargs, "fma64", "d", 8);
}


/* cross3(a, b, out) -> bool: the cross product of float32 ("f") or float64 ("d") arrays a and b
 * of shape (outer, 3, inner), any strides (negative, zero for a broadcast operand), into out of
 * the same shape and format (any strides too): PyTorch's CPU cross kernel, whose a1*b2 - a2*b1
 * the compiler fuses into one fma: c0 = fma(a1, b2, -(a2*b1)), c1 = fma(a2, b0, -(a0*b2)),
 * c2 = fma(a0, b1, -(a1*b0)), the negated product rounded to the format, the fma rounded once.
 * On a CPU with FMA3 the fma is the instruction (a copy compiled for it: about 1 ns a vector
 * against the C library call's 5), elsewhere the C library's fmaf/fma: both correctly rounded,
 * the same bits (-ffp-contract=off keeps the negated product unfused;
 * STRIDED_NATIVE_NO_FMA3 takes the library's copy, for the tests). The NumPy twin is
 * strided.ops.linalg.products._cross3 (STRIDED_NATIVE=0): the same values, NaNs at the same places;
 * a NaN's sign and payload are neither the twin's (NumPy's SIMD loops pick a NaN operand by array
 * length) nor PyTorch's, as the twin's are not. False with nothing written where out's memory
 * overlaps an input's (the caller's NumPy path runs instead); True once written. */
#define CROSS_ONE(T, FMA, x, y, z) /* one vector: x, y, z point at element 0 of its three */           \
    {                                                                                              \
        T a0 = *(const T *)(x), a1 = *(const T *)((x) + sx[1]), a2 = *(const T *)((x) + 2 * sx[1]); \
        T b0 = *(const T *)(y), b1 = *(const T *)((y) + sy[1]), b2 = *(const T *)((y) + 2 * sy[1]); \
        T m0 = -(a2 * b1), m1 = -(a0 * b2), m2 = -(a1 * b0);                                       \
        *(T *)(z) = FMA(a1, b2, m0);                                                               \
        *(T *)((z) + sz[1]) = FMA(a2, b0, m1);                                                     \
        *(T *)((z) + 2 * sz[1]) = FMA(a0, b1, m2);                                                 \
    }
#define DEFINE_CROSS(NAME, T, FMA, ATTR)                                                           \
    ATTR static void NAME(const char *xa, const Py_ssize_t *sx, const char *ya, const Py_ssize_t *sy,  \
                          char *za, const Py_ssize_t *sz, Py_ssize_t outer, Py_ssize_t inner)      \
    {                                                                                              \
        if (inner == 1) { /* (the dim innermost: one loop, the compiler's best) */                 \
            for (Py_ssize_t o = 0; o < outer; o++)                                                 \
                CROSS_ONE(T, FMA, xa + o * sx[0], ya + o * sy[0], za + o * sz[0])                  \
            return;                                                                                \
        }                                                                                          \
        for (Py_ssize_t o = 0; o < outer; o++)                                                     \
            for (Py_ssize_t j = 0; j < inner; j++)                                                 \
                CROSS_ONE(T, FMA, xa + o * sx[0] + j * sx[2], ya + o * sy[0] + j * sy[2],          \
                          za + o * sz[0] + j * sz[2])                                              \
    }
DEFINE_CROSS(cross_f_plain, float, fmaf, )
DEFINE_CROSS(cross_d_plain, double, fma, )
#if defined(__x86_64__) && defined(__GNUC__)
DEFINE_CROSS(cross_f_fma3, float, __builtin_fmaf, __attribute__((target("avx2,fma"))))
DEFINE_CROSS(cross_d_fma3, double, __builtin_fma, __attribute__((target("avx2,fma"))))
#define CROSS_FMA3() (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") \
                      && getenv("STRIDED_NATIVE_NO_FMA3") == NULL)
#else
#define cross_f_fma3 cross_f_plain
#define cross_d_fma3 cross_d_plain
#define CROSS_FMA3() 0
#endif

/* The lowest and one past the highest byte a strided buffer's elements touch. */
static void buffer_extent(const Py_buffer *b, const char **lo, const char **hi)
{
    const char *l = b->buf, *h = (const char *)b->buf + b->itemsize;
    for (int d = 0; d < b->ndim; d++) {
        if (b->shape[d] == 0) { *lo = *hi = b->buf; return; }
        Py_ssize_t span = (b->shape[d] - 1) * b->strides[d];
        if (span < 0) l += span; else h += span;
    }
    *lo = l;
    *hi = h;
}

/* cross3's flat form, cross3(a, b, out, inner): a, b and out C-contiguous 1-D runs of one length n,
 * read as (n / (3 * inner), 3, inner) row-major blocks (a row-major tensor's flat run, the vectors
 * along a dim whose later dims hold ``inner`` elements): the small-op fast path's call without
 * three reshapes. False with nothing written where a run is not native-aligned "f"/"d" memory (a
 * from_numpy buffer at an odd address exports "=f") or out overlaps an input (the caller's general
 * path runs); a ValueError where the lengths or ``inner`` do not fit. */
static PyObject *cross3_flat(PyObject *const *args)
{
    Py_ssize_t inner = PyLong_AsSsize_t(args[3]);
    if (inner == -1 && PyErr_Occurred())
        return NULL;
    Py_buffer buf[3];
    int got = 0;
    PyObject *answer = NULL;
    for (int k = 0; k < 3; k++) {
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (k == 2 ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(args[k], &buf[k], flags) < 0)
            goto done;
        got = k + 1;
    }
    Py_ssize_t itemsize = buf[0].itemsize, n = buf[0].ndim == 1 ? buf[0].shape[0] : -1;
    for (int k = 0; k < 3; k++) {
        if (buf[k].ndim != 1 || buf[k].shape[0] != n || buf[k].itemsize != itemsize) {
            PyErr_SetString(PyExc_ValueError, "cross3: a, b and out must be 1-D runs of one length and item size");
            goto done;
        }
    }
    if (inner < 1 || n % (3 * inner) != 0) {
        PyErr_Format(PyExc_ValueError, "cross3: inner %zd does not divide the runs of %zd elements into vectors",
                     inner, n);
        goto done;
    }
    const char *format = itemsize == 4 ? "f" : itemsize == 8 ? "d" : NULL;
    for (int k = 0; k < 3; k++) {
        if (format == NULL || strcmp(buf[k].format, format) != 0 || (uintptr_t)buf[k].buf % (uintptr_t)itemsize) {
            answer = Py_False; /* (misaligned or not float32/float64: the general path) */
            goto done;
        }
    }
    for (int k = 0; k < 2; k++) {
        const char *lo = buf[k].buf, *olo = buf[2].buf;
        if (n > 0 && lo < olo + n * itemsize && olo < lo + n * itemsize) {
            answer = Py_False;
            goto done;
        }
    }
    {
        static int fma3 = -1;
        if (fma3 < 0) fma3 = CROSS_FMA3();
        void (*run)(const char *, const Py_ssize_t *, const char *, const Py_ssize_t *, char *,
                    const Py_ssize_t *, Py_ssize_t, Py_ssize_t)
            = itemsize == 4 ? (fma3 ? cross_f_fma3 : cross_f_plain) : (fma3 ? cross_d_fma3 : cross_d_plain);
        Py_ssize_t strides[3] = {3 * inner * itemsize, inner * itemsize, itemsize}, outer = n / (3 * inner);
        if (n / 3 >= MIN_RELEASE) {
            Py_BEGIN_ALLOW_THREADS
            run(buf[0].buf, strides, buf[1].buf, strides, buf[2].buf, strides, outer, inner);
            Py_END_ALLOW_THREADS
        } else {
            run(buf[0].buf, strides, buf[1].buf, strides, buf[2].buf, strides, outer, inner);
        }
    }
    answer = Py_True;
done:
    for (int k = 0; k < got; k++) PyBuffer_Release(&buf[k]);
    Py_XINCREF(answer);
    return answer;
}

static PyObject *py_cross3(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs == 4)
        return cross3_flat(args);
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "cross3(a, b, out[, inner]) takes 3 or 4 arguments, not %zd", nargs);
        return NULL;
    }
    Py_buffer buf[3];
    int got = 0;
    PyObject *answer = NULL;
    for (int k = 0; k < 3; k++) {
        if (PyObject_GetBuffer(args[k], &buf[k], PyBUF_STRIDES | PyBUF_FORMAT | (k == 2 ? PyBUF_WRITABLE : 0)) < 0)
            goto done;
        got = k + 1;
    }
    Py_ssize_t itemsize = buf[0].itemsize;
    const char *format = itemsize == 4 ? "f" : "d";
    for (int k = 0; k < 3; k++) {
        int same = buf[k].ndim == 3 && buf[0].ndim == 3;
        for (int d = 0; same && d < 3; d++) same = buf[k].shape[d] == buf[0].shape[d];
        if ((itemsize != 4 && itemsize != 8) || strcmp(buf[k].format, format) != 0 || buf[k].itemsize != itemsize
            || !same || buf[k].shape[1] != 3) {
            PyErr_Format(PyExc_ValueError, "cross3: a, b and out must be float32 or float64 arrays of one format "
                         "and one shape (outer, 3, inner) (argument %d: format %s, %d dims)", k, buf[k].format,
                         buf[k].ndim);
            goto done;
        }
    }
    {
        const char *olo, *ohi;
        buffer_extent(&buf[2], &olo, &ohi);
        for (int k = 0; k < 2; k++) {
            const char *lo, *hi;
            buffer_extent(&buf[k], &lo, &hi);
            if (lo < ohi && olo < hi) {
                answer = Py_False;
                goto done;
            }
        }
    }
    {
        Py_ssize_t outer = buf[0].shape[0], inner = buf[0].shape[2];
        static int fma3 = -1;
        if (fma3 < 0) fma3 = CROSS_FMA3();
        void (*run)(const char *, const Py_ssize_t *, const char *, const Py_ssize_t *, char *,
                    const Py_ssize_t *, Py_ssize_t, Py_ssize_t)
            = itemsize == 4 ? (fma3 ? cross_f_fma3 : cross_f_plain) : (fma3 ? cross_d_fma3 : cross_d_plain);
        if (outer * inner >= MIN_RELEASE) {
            Py_BEGIN_ALLOW_THREADS
            run(buf[0].buf, buf[0].strides, buf[1].buf, buf[1].strides, buf[2].buf, buf[2].strides, outer, inner);
            Py_END_ALLOW_THREADS
        } else {
            run(buf[0].buf, buf[0].strides, buf[1].buf, buf[1].strides, buf[2].buf, buf[2].strides, outer, inner);
        }
    }
    answer = Py_True;
done:
    for (int k = 0; k < got; k++) PyBuffer_Release(&buf[k]);
    Py_XINCREF(answer);
    return answer;
}
#undef CROSS_ONE
#undef DEFINE_CROSS


/* kron2(a, b, out, m, n, p, q) -> bool: the Kronecker product of the C-contiguous (m, n) matrix a
 * and (p, q) matrix b, float32 ("f") or float64 ("d"), into the C-contiguous (m*p, n*q) out:
 * out[i*p + k, j*q + l] = a[i, j] * b[k, l], one IEEE product each, a's element first, as the
 * NumPy twin (strided.ops.linalg.products: one broadcast np.multiply of the interleaved views,
 * whose per-row iterator overhead, with inner runs of q elements, is most of its time). outer
 * is kron2 with n = p = 1. A product of two numbers has one correctly rounded result whatever
 * the loop or the SIMD width (-0.0's sign, inf * 0's default NaN included); only a NaN operand's
 * payload could depend on the operand order the compiler picks, so an input holding a NaN, or
 * an out overlapping an input, returns False with nothing written (the NumPy twin runs). */
/* the product's loops: z[i*p + k, j*q + l] = x[i, j] * y[k, l] (AVX-512 / AVX2 clones: one IEEE
 * product each, the same values at any width; a long outer row is bound by its stores, 16 bytes
 * a cycle in SSE2) */
#define DEFINE_KRON_ALL(T)                                                                         \
    ERF_CLONES static void kron_all_##T(const T *restrict x, const T *restrict y, T *restrict z,   \
                                        Py_ssize_t m, Py_ssize_t n, Py_ssize_t p, Py_ssize_t q)    \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < m; i++)                                                         \
            for (Py_ssize_t k = 0; k < p; k++) {                                                   \
                T *row = z + (i * p + k) * n * q;                                                  \
                const T *brow = y + k * q, *arow = x + i * n;                                      \
                for (Py_ssize_t j = 0; j < n; j++) {                                               \
                    T s = arow[j];                                                                 \
                    T *dst = row + j * q;                                                          \
                    for (Py_ssize_t l = 0; l < q; l++)                                             \
                        dst[l] = s * brow[l];                                                      \
                }                                                                                  \
            }                                                                                      \
    }
DEFINE_KRON_ALL(float)
DEFINE_KRON_ALL(double)

#define KRON_LOOP(T)                                                                               \
    {                                                                                              \
        const T *x = buf[0].buf, *y = buf[1].buf;                                                  \
        T *z = buf[2].buf;                                                                         \
        for (Py_ssize_t i = 0; i < m * n; i++)                                                     \
            if (x[i] != x[i])                                                                      \
                goto done;                                                                         \
        for (Py_ssize_t i = 0; i < p * q; i++)                                                     \
            if (y[i] != y[i])                                                                      \
                goto done;                                                                         \
        int release = m * n * p * q >= MIN_RELEASE;                                                \
        PyThreadState *state = release ? PyEval_SaveThread() : NULL;                               \
        kron_all_##T(x, y, z, m, n, p, q);                                                         \
        if (release)                                                                               \
            PyEval_RestoreThread(state);                                                           \
    }
static PyObject *py_kron2(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 7) {
        PyErr_Format(PyExc_TypeError, "kron2(a, b, out, m, n, p, q) takes 7 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t dims[4];
    for (int k = 0; k < 4; k++) {
        dims[k] = PyLong_AsSsize_t(args[3 + k]);
        if (dims[k] == -1 && PyErr_Occurred())
            return NULL;
        if (dims[k] <= 0) {
            PyErr_Format(PyExc_ValueError, "kron2: dims must be positive, got %zd", dims[k]);
            return NULL;
        }
    }
    Py_ssize_t m = dims[0], n = dims[1], p = dims[2], q = dims[3];
    Py_buffer buf[3];
    int got = 0;
    PyObject *answer = NULL;
    for (int k = 0; k < 3; k++) {
        if (PyObject_GetBuffer(args[k], &buf[k], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (k == 2 ? PyBUF_WRITABLE : 0)) < 0)
            goto done;
        got = k + 1;
    }
    Py_ssize_t itemsize = buf[0].itemsize;
    const char *format = itemsize == 4 ? "f" : "d";
    Py_ssize_t want[3] = {m * n, p * q, m * n * p * q};
    for (int k = 0; k < 3; k++) {
        if ((itemsize != 4 && itemsize != 8) || strcmp(buf[k].format, format) != 0 || buf[k].itemsize != itemsize
            || buf[k].len != want[k] * itemsize) {
            PyErr_Format(PyExc_ValueError, "kron2: a (m*n), b (p*q) and out (m*n*p*q) must be C-contiguous float32 "
                         "or float64 buffers of one format (argument %d: format %s, %zd bytes)", k,
                         buf[k].format, buf[k].len);
            goto done;
        }
    }
    answer = Py_False;
    {
        char *o = buf[2].buf;
        Py_ssize_t len = buf[2].len;
        for (int k = 0; k < 2; k++) {
            char *b0 = buf[k].buf;
            if (b0 < o + len && o < b0 + buf[k].len)
                goto done;
        }
    }
    if (itemsize == 4)
        KRON_LOOP(float)
    else
        KRON_LOOP(double)
    answer = Py_True;
done:
    for (int k = 0; k < got; k++) PyBuffer_Release(&buf[k]);
    Py_XINCREF(answer);
    return answer;
}
#undef KRON_LOOP


/* bmm_loop(x, y, out, n, k, p) -> bool: PyTorch's small baddbmm loop (below 400 multiply-adds a
 * matrix) over C-contiguous float32 ("f") or float64 ("d") buffers x (B, n, k), y (B, k, p) and
 * out (B, n, p): acc = x[0] * y[0] + 0, then acc += x[i] * y[i] in order over the contraction,
 * each product and each sum rounded in the format (-ffp-contract=off: nothing fused), as the NumPy
 * twin strided.ops.linalg.fused._kernel_bmm (STRIDED_NATIVE=0) computes it; a NaN's sign and
 * payload may differ from the twin's (NumPy's SIMD loops pick a NaN operand by array length).
 * False with nothing written where out overlaps an input; True once written. */
#define BMM_LOOP(T)                                                                                \
    {                                                                                              \
        const T *x = buf[0].buf, *y = buf[1].buf;                                                  \
        T *z = buf[2].buf;                                                                         \
        TORCH_BMM_LOOP(T, x, y, z, batch, n, k, p)                                                 \
    }
static PyObject *py_bmm_loop(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "bmm_loop(x, y, out, n, k, p) takes 6 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[3]), k = PyLong_AsSsize_t(args[4]), p = PyLong_AsSsize_t(args[5]);
    if (PyErr_Occurred())
        return NULL;
    Py_buffer buf[3];
    int got = 0;
    PyObject *answer = NULL;
    for (int q = 0; q < 3; q++) {
        if (PyObject_GetBuffer(args[q], &buf[q], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (q == 2 ? PyBUF_WRITABLE : 0)) < 0)
            goto done;
        got = q + 1;
    }
    Py_ssize_t itemsize = buf[0].itemsize;
    const char *format = itemsize == 4 ? "f" : "d";
    for (int q = 0; q < 3; q++) {
        if ((itemsize != 4 && itemsize != 8) || strcmp(buf[q].format, format) != 0 || buf[q].itemsize != itemsize) {
            PyErr_Format(PyExc_ValueError, "bmm_loop: x, y and out must be C-contiguous buffers of one format, "
                         "float32 or float64 (argument %d: format %s)", q, buf[q].format);
            goto done;
        }
    }
    if (n <= 0 || k <= 0 || p <= 0 || buf[0].len % (n * k * itemsize) != 0) {
        PyErr_Format(PyExc_ValueError, "bmm_loop: sizes n=%zd k=%zd p=%zd do not fit x", n, k, p);
        goto done;
    }
    Py_ssize_t batch = buf[0].len / (n * k * itemsize);
    if (buf[1].len != batch * k * p * itemsize || buf[2].len != batch * n * p * itemsize) {
        PyErr_Format(PyExc_ValueError, "bmm_loop: y or out is not (%zd, %zd, %zd) / (%zd, %zd, %zd)",
                     batch, k, p, batch, n, p);
        goto done;
    }
    {
        char *o = buf[2].buf;
        Py_ssize_t len = buf[2].len;
        for (int q = 0; q < 2; q++) {
            char *s = buf[q].buf;
            if (s < o + len && o < s + buf[q].len) {
                answer = Py_False;
                goto done;
            }
        }
    }
    if (itemsize == 4)
        BMM_LOOP(float)
    else
        BMM_LOOP(double)
    answer = Py_True;
done:
    for (int q = 0; q < got; q++) PyBuffer_Release(&buf[q]);
    Py_XINCREF(answer);
    return answer;
}
#undef BMM_LOOP


/* softmax_rows(x, out, n, log) -> bool: softmax (log true: log_softmax) of each row of n elements of
 * x into out; x and out are C-contiguous buffers of one format ("f": float32 or "d": float64) and one
 * length, a multiple of n >= 1. PyTorch's CPU kernel along a contiguous last dim
 * (_vec_softmax_lastdim, _vec_log_softmax_lastdim) step for step, in the input's type:
 *   m = the row's maximum (a NaN anywhere gives NaN);
 *   softmax:     e_i = exp(x_i - m), s = the sum of the e_i, out_i = e_i * (1 / s);
 *   log_softmax: s = the sum of exp(x_i - m), out_i = (x_i - m) - log(s).
 * The sums are ATen's reduce_all: `lanes` running sums over the row (one vector of the widest
 * instruction set PyTorch's CPU dispatch picks on this machine: 64 bytes with AVX-512 F/BW/DQ/VL,
 * else 32 bytes), a shorter tail added into the first lanes, the lanes then added pairwise (float: lane
 * j + lane j+w for w = lanes/2, ..., 1; double: lane 0 plus each next lane in turn); a row shorter than
 * `lanes` is summed left to right. float32's exp is
 * SLEEF's expf, PyTorch's own (ROWS_EXPF; the C library's where ATen's capability is DEFAULT);
 * float64's SLEEF's expd alike (ROWS_EXP), each a vector at a time where SLEEF's vector form runs (AVX-512:
 * sleef_rows16 / sleef_rows8, AVX2: sleef_rows8f / sleef_rows4; the same bits as one lane at a time); the
 * logs SLEEF's (ROWS_LOGF / ROWS_LOG; a NaN sum's log under AVX2 SLEEF's +NaN). Every row of an all -inf
 * (or +inf) input is NaN, as in PyTorch (-inf - -inf); a row holding a NaN is written by its model
 * (nan_row_f under AVX-512's softmax, NAN_ROW_AVX2 under AVX2). A buffer overlapping the other answers False
 * with nothing written (the caller's NumPy path runs then); True once written. This is the only
 * computation of these rows where it is built (strided.kernels.reduce.softmax_into): the NumPy
 * formula (STRIDED_NATIVE=0) is a few ulps away, not bit-identical. */
static int vector_bytes(void)
{   /* ATen's CPU capability: AVX512 where the CPU has F, BW, DQ and VL, else AVX2 or DEFAULT (32 bytes) */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")
        && __builtin_cpu_supports("avx512vl"))
        return 64;
#endif
    return 32;
}

/* o[i] = expf(x[i] - m) for i < n, glibc's expf bit for bit, eight at a time (defined at the end of
 * the file: shifted_expf); answers 0 with nothing written where that is not available here. */
static int shifted_expf(const float *x, float m, float *o, Py_ssize_t n);
#define SHIFTED_EXPF(xr, m, o, n) (use_shifted_expf && shifted_expf((const float *)(xr), (float)(m), (float *)(o), n))

/* o[i] = SLEEF's expf(x[i] - m) (_sleef_expf.h: the float subtraction, then the AVX-512 form where the
 * CPU has AVX512F, else the plain one, the same bits) for i < n: PyTorch's float32 rows, whose
 * (x - max).exp() is SLEEF's wherever ATen's capability is AVX2 or AVX512 (use_sleef_rows; under
 * DEFAULT Vectorized<float>::exp is std::exp, the C library's: SHIFTED_EXPF or expf then). */
#include "_sleef_expf.h"
#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target("avx512f"))) static void sleef_rows16(const float *x, float m, float *o, Py_ssize_t n)
{
    const __m512 mv = _mm512_set1_ps(m);
    for (Py_ssize_t i = 0; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(o + i, k, sleef_expf16(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), mv)));
    }
}
#endif
#if defined(__GNUC__) && defined(__x86_64__)
/* sleef_rows16 and the row's sum in the same pass (the sum's order the one SOFTMAX_ROWS takes with
 * sixteen lanes: lane j adds o[j], o[16 + j], ... left to right, the tail into the first lanes, then
 * the lanes pairwise: w = 8, 4, 2, 1), so the exponentials are not read back; n >= 16. */
__attribute__((target("avx512f"))) static float sleef_rows16_sum(const float *x, float m, float *o, Py_ssize_t n)
{
    const __m512 mv = _mm512_set1_ps(m);
    __m512 acc = sleef_expf16(_mm512_sub_ps(_mm512_loadu_ps(x), mv));
    _mm512_storeu_ps(o, acc);
    Py_ssize_t i = 16;
    for (; i + 16 <= n; i += 16) {
        __m512 e = sleef_expf16(_mm512_sub_ps(_mm512_loadu_ps(x + i), mv));
        _mm512_storeu_ps(o + i, e);
        acc = _mm512_add_ps(acc, e);
    }
    if (i < n) {
        __mmask16 k = (__mmask16)((1u << (n - i)) - 1);
        __m512 e = sleef_expf16(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), mv));
        _mm512_mask_storeu_ps(o + i, k, e);
        acc = _mm512_mask_add_ps(acc, k, acc, e);
    }
    float a[16];
    _mm512_storeu_ps(a, acc);
    for (int w = 8; w >= 1; w /= 2)
        for (int j = 0; j < w; j++) a[j] = a[j] + a[j + w];
    return a[0];
}

/* o[i] *= inv, sixteen lanes at a time (the same IEEE product per element) */
__attribute__((target("avx512f"))) static void scale_rows16(float *o, float inv, Py_ssize_t n)
{
    const __m512 v = _mm512_set1_ps(inv);
    Py_ssize_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(o + i, _mm512_mul_ps(_mm512_loadu_ps(o + i), v));
    for (; i < n; i++) o[i] = o[i] * inv;
}
#endif
#if defined(__GNUC__) && defined(__x86_64__)
/* The AVX2 forms of the rows (ATen's capability AVX2), one definition for both types: W lanes of T
 * (__m256 / __m256d: S ps / pd), EXPV SLEEF's vector exp of W lanes (the same bits per lane as the
 * AVX-512 form's and the one-lane function's), ON(k) the first k of W lanes on (a mask), HSUM the
 * lanes' sum in ATen's order. Each makes:
 *   ROWS(x, m, o, n):      o[i] = exp(x[i] - m) for i < n, W lanes at a time (the tail's lanes masked);
 *   ROWS_SUM(x, m, o, n):  ROWS and the row's sum in the same pass (n >= W), in the order SOFTMAX_ROWS
 *                          takes (ATen's reduce_all: lane j adds o[j], o[W + j], ... left to right, the
 *                          tail into the first lanes (Vec::set), then HSUM), the exponentials not read back;
 *   SCALE(o, inv, n):      o[i] *= inv, W lanes at a time (the same IEEE product per element). */
#define AVX2_ROW_FORMS(T, V, S, W, EXPV, ON, HSUM, ROWS, ROWS_SUM, SCALE)                          \
    __attribute__((target("avx2,fma"))) static void ROWS(const T *x, T m, T *o, Py_ssize_t n)       \
    {                                                                                              \
        const V mv = _mm256_set1_##S(m);                                                           \
        Py_ssize_t i = 0;                                                                          \
        for (; i + W <= n; i += W) _mm256_storeu_##S(o + i, EXPV(_mm256_sub_##S(_mm256_loadu_##S(x + i), mv))); \
        if (i < n) {                                                                               \
            __m256i k = ON(n - i);                                                                 \
            _mm256_maskstore_##S(o + i, k, EXPV(_mm256_sub_##S(_mm256_maskload_##S(x + i, k), mv))); \
        }                                                                                          \
    }                                                                                              \
    __attribute__((target("avx2,fma"))) static T ROWS_SUM(const T *x, T m, T *o, Py_ssize_t n)      \
    {                                                                                              \
        const V mv = _mm256_set1_##S(m);                                                           \
        V acc = EXPV(_mm256_sub_##S(_mm256_loadu_##S(x), mv));                                     \
        _mm256_storeu_##S(o, acc);                                                                 \
        Py_ssize_t i = W;                                                                          \
        for (; i + W <= n; i += W) {                                                               \
            V e = EXPV(_mm256_sub_##S(_mm256_loadu_##S(x + i), mv));                               \
            _mm256_storeu_##S(o + i, e);                                                           \
            acc = _mm256_add_##S(acc, e);                                                          \
        }                                                                                          \
        if (i < n) {                                                                               \
            __m256i k = ON(n - i);                                                                 \
            V e = EXPV(_mm256_sub_##S(_mm256_maskload_##S(x + i, k), mv));                         \
            _mm256_maskstore_##S(o + i, k, e);                                                     \
            acc = _mm256_blendv_##S(acc, _mm256_add_##S(acc, e), _mm256_castsi256_##S(k));         \
        }                                                                                          \
        T a[W];                                                                                    \
        _mm256_storeu_##S(a, acc);                                                                 \
        return HSUM(a);                                                                            \
    }                                                                                              \
    __attribute__((target("avx2"))) static void SCALE(T *o, T inv, Py_ssize_t n)                    \
    {                                                                                              \
        const V v = _mm256_set1_##S(inv);                                                          \
        Py_ssize_t i = 0;                                                                          \
        for (; i + W <= n; i += W) _mm256_storeu_##S(o + i, _mm256_mul_##S(_mm256_loadu_##S(o + i), v)); \
        for (; i < n; i++) o[i] = o[i] * inv;                                                      \
    }

/* float: eight lanes (Vectorized<float>, Sleef_expf8_u10), summed as VecReduceAllSIMD's shuffles do:
 * lane j + lane j+w for w = 4, 2, 1 */
__attribute__((target("avx2"))) static inline __m256i lanes_on8(Py_ssize_t k)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
static inline float hsum8f(float *a)
{
    for (int w = 4; w >= 1; w /= 2)
        for (int j = 0; j < w; j++) a[j] = a[j] + a[j + w];
    return a[0];
}
AVX2_ROW_FORMS(float, __m256, ps, 8, sleef_expf8, lanes_on8, hsum8f, sleef_rows8f, sleef_rows8f_sum, scale_rows8f)
#endif
static int use_sleef_rows = -1; /* 2: the AVX-512 form, 1: the AVX2 one, 0: not SLEEF (ATen's DEFAULT) */
static int sleef_rows_expf(const float *x, float m, float *o, Py_ssize_t n)
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (use_sleef_rows == 2) {
        sleef_rows16(x, m, o, n);
        return 1;
    }
    if (use_sleef_rows == 1) {
        sleef_rows8f(x, m, o, n);
        return 1;
    }
#endif
    for (Py_ssize_t i = 0; i < n; i++) o[i] = sleef_expf(x[i] - m);
    return 1;
}
static void decide_sleef_rows(void)
{
    if (use_sleef_rows >= 0) return;
#if defined(__GNUC__) && defined(__x86_64__)
    __builtin_cpu_init();
    int aten_vec = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    use_sleef_rows = !aten_vec ? 0 : __builtin_cpu_supports("avx512f") ? 2 : 1;
#else
    use_sleef_rows = 0;
#endif
}
#define ROWS_EXPF(xr, m, o, n) \
    (use_sleef_rows ? sleef_rows_expf((const float *)(xr), (float)(m), (float *)(o), n) : SHIFTED_EXPF(xr, m, o, n))

/* o[i] = SLEEF's exp(x[i] - m) of double (_sleef_exp.h, eight lanes where the CPU has AVX512F, the
 * same bits): PyTorch's float64 rows, whose (x - max).exp() is Vectorized<double>::exp, SLEEF's expd
 * under AVX2 and AVX512 (use_sleef_rows; under DEFAULT it is std::exp, the C library's exp, which
 * SOFTMAX_ROWS calls then: ROWS_EXP answers 0) */
#include "_sleef_exp.h"
#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target("avx512f"))) static void sleef_rows8(const double *x, double m, double *o, Py_ssize_t n)
{
    const __m512d mv = _mm512_set1_pd(m);
    for (Py_ssize_t i = 0; i < n; i += 8) {
        __mmask8 k = n - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - i)) - 1);
        _mm512_mask_storeu_pd(o + i, k, sleef_exp8(_mm512_sub_pd(_mm512_maskz_loadu_pd(k, x + i), mv)));
    }
}
#endif
#if defined(__GNUC__) && defined(__x86_64__)
/* sleef_rows8 and the row's sum in the same pass (the order SOFTMAX_ROWS takes with eight lanes:
 * lane j adds o[j], o[8 + j], ... left to right, the tail into the first lanes, then lane 0 plus
 * each next lane in turn), so the exponentials are not read back; n >= 8. */
__attribute__((target("avx512f"))) static double sleef_rows8_sum(const double *x, double m, double *o, Py_ssize_t n)
{
    const __m512d mv = _mm512_set1_pd(m);
    __m512d acc = sleef_exp8(_mm512_sub_pd(_mm512_loadu_pd(x), mv));
    _mm512_storeu_pd(o, acc);
    Py_ssize_t i = 8;
    for (; i + 8 <= n; i += 8) {
        __m512d e = sleef_exp8(_mm512_sub_pd(_mm512_loadu_pd(x + i), mv));
        _mm512_storeu_pd(o + i, e);
        acc = _mm512_add_pd(acc, e);
    }
    if (i < n) {
        __mmask8 k = (__mmask8)((1u << (n - i)) - 1);
        __m512d e = sleef_exp8(_mm512_sub_pd(_mm512_maskz_loadu_pd(k, x + i), mv));
        _mm512_mask_storeu_pd(o + i, k, e);
        acc = _mm512_mask_add_pd(acc, k, acc, e);
    }
    double a[8];
    _mm512_storeu_pd(a, acc);
    double s = a[0];
    for (int j = 1; j < 8; j++) s = s + a[j];
    return s;
}

/* o[i] *= inv, eight lanes at a time (the same IEEE product per element) */
__attribute__((target("avx512f"))) static void scale_rows8(double *o, double inv, Py_ssize_t n)
{
    const __m512d v = _mm512_set1_pd(inv);
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) _mm512_storeu_pd(o + i, _mm512_mul_pd(_mm512_loadu_pd(o + i), v));
    for (; i < n; i++) o[i] = o[i] * inv;
}
#endif
#if defined(__GNUC__) && defined(__x86_64__)
/* double: four lanes (Vectorized<double>, Sleef_expd4_u10: sleef_exp4), summed as the generic
 * vec_reduce_all does: lane 0 plus each next lane in turn */
__attribute__((target("avx2"))) static inline __m256i lanes_on4(Py_ssize_t k)
{
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)k), _mm256_setr_epi64x(0, 1, 2, 3));
}
static inline double hsum4(double *a) { return ((a[0] + a[1]) + a[2]) + a[3]; }
AVX2_ROW_FORMS(double, __m256d, pd, 4, sleef_exp4, lanes_on4, hsum4, sleef_rows4, sleef_rows4_sum, scale_rows4)
#undef AVX2_ROW_FORMS
#endif
static int sleef_rows_exp(const double *x, double m, double *o, Py_ssize_t n)
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (use_sleef_rows == 2) {
        sleef_rows8(x, m, o, n);
        return 1;
    }
    if (use_sleef_rows == 1) {
        sleef_rows4(x, m, o, n);
        return 1;
    }
#endif
    for (Py_ssize_t i = 0; i < n; i++) o[i] = sleef_exp(x[i] - m);
    return 1;
}
#define ROWS_EXP(xr, m, o, n) (use_sleef_rows && sleef_rows_exp((const double *)(xr), (double)(m), (double *)(o), n))

/* log of a row's sum as ATen's log_softmax takes it: Vectorized<T>::log(), SLEEF's logf_u10 / log_u10
 * under AVX2 and AVX512 (_sleef_log.h), std::log under DEFAULT */
#include "_sleef_log.h"
#define ROWS_LOGF(s) (use_sleef_rows ? sleef_logf_or_libm(s) : logf(s))
#define ROWS_LOG(s) (use_sleef_rows ? sleef_log_or_libm(s) : log(s))
static int use_shifted_expf;
static void decide_shifted_expf(void);

/* The row's maximum as the softmax loop uses it: the first NaN (its bits) where the row has one,
 * else the largest value. A row without NaN is scanned eight lanes at a time (vectorized; the order
 * does not matter: a maximum of non-NaN values is one value but for the sign of a zero, and a zero
 * maximum's sign changes no result: exp(+-0) is 1, and (x - m) - log(s) with s >= 2 there, two
 * elements being 0); a NaN sends the row to the scalar loop, which keeps its first NaN. */
#define ROW_MAX_OF(NAME, T)                                                                        \
    static T NAME(const T *xr, Py_ssize_t n)                                                       \
    {                                                                                              \
        int nan = 0;                                                                               \
        for (Py_ssize_t i = 0; i < n; i++) nan |= xr[i] != xr[i];                                  \
        T m = xr[0];                                                                               \
        if (nan || n < 16) {                                                                       \
            for (Py_ssize_t i = 1; i < n; i++)                                                     \
                if (xr[i] > m || xr[i] != xr[i]) m = m != m ? m : xr[i];                           \
            return m;                                                                              \
        }                                                                                          \
        T acc[8];                                                                                  \
        Py_ssize_t i = 8;                                                                          \
        for (int j = 0; j < 8; j++) acc[j] = xr[j];                                                \
        for (; i + 8 <= n; i += 8)                                                                 \
            for (int j = 0; j < 8; j++) acc[j] = xr[i + j] > acc[j] ? xr[i + j] : acc[j];          \
        for (; i < n; i++) m = xr[i] > m ? xr[i] : m;                                              \
        for (int j = 0; j < 8; j++) m = acc[j] > m ? acc[j] : m;                                   \
        return m;                                                                                  \
    }
ROW_MAX_OF(row_max_f_scalar, float)
ROW_MAX_OF(row_max_d, double)
#if defined(__SSE2__)
#include <emmintrin.h>
/* row_max_f with SSE: _mm_max_ps(v, acc) is v > acc ? v : acc lane by lane (the loop above, which
 * GCC does not vectorize); a NaN anywhere sends the row to the scalar loop, as there. */
static float row_max_f(const float *xr, Py_ssize_t n)
{
    if (n < 16) return row_max_f_scalar(xr, n);
    __m128 a0 = _mm_loadu_ps(xr), a1 = _mm_loadu_ps(xr + 4), nan = _mm_setzero_ps();
    nan = _mm_or_ps(_mm_cmpunord_ps(a0, a0), _mm_cmpunord_ps(a1, a1));
    Py_ssize_t i = 8;
    for (; i + 8 <= n; i += 8) {
        __m128 v0 = _mm_loadu_ps(xr + i), v1 = _mm_loadu_ps(xr + i + 4);
        nan = _mm_or_ps(nan, _mm_or_ps(_mm_cmpunord_ps(v0, v0), _mm_cmpunord_ps(v1, v1)));
        a0 = _mm_max_ps(v0, a0);
        a1 = _mm_max_ps(v1, a1);
    }
    int any_nan = _mm_movemask_ps(nan) != 0;
    for (Py_ssize_t k = i; k < n; k++) any_nan |= xr[k] != xr[k];
    if (any_nan) return row_max_f_scalar(xr, n);
    float acc[8], m = xr[0];
    _mm_storeu_ps(acc, a0);
    _mm_storeu_ps(acc + 4, a1);
    for (; i < n; i++) m = xr[i] > m ? xr[i] : m;
    for (int j = 0; j < 8; j++) m = acc[j] > m ? acc[j] : m;
    return m;
}
#else
#define row_max_f row_max_f_scalar
#endif
#undef ROW_MAX_OF
#define ROW_MAX(T, xr, n) (sizeof(T) == 4 ? (T)row_max_f((const float *)(xr), n) : (T)row_max_d((const double *)(xr), n))

/* FUSED: rows of one vector or more where SLEEF's vector form runs (sixteen float / eight double
 * lanes under AVX-512, eight / four under AVX2: LANES, ATen's vector width): the exponentials and
 * their sum in one pass (sleef_rows16_sum, sleef_rows8_sum, sleef_rows8f_sum, sleef_rows4_sum), the
 * scaling a vector at a time (SCALE_ROW, the form FUSED took) */
#if defined(__GNUC__) && defined(__x86_64__)
#define FUSED(T, xr, m, o, n, LANES, s)                                                            \
    (sizeof(T) == 4 && use_sleef_rows == 2 && LANES == 16 && n >= 16                               \
         ? ((s) = (T)sleef_rows16_sum((const float *)(xr), (float)(m), (float *)(o), n), 1)        \
     : sizeof(T) == 8 && use_sleef_rows == 2 && LANES == 8 && n >= 8                               \
         ? ((s) = (T)sleef_rows8_sum((const double *)(xr), (double)(m), (double *)(o), n), 1)      \
     : sizeof(T) == 4 && use_sleef_rows >= 1 && LANES == 8 && n >= 8                                \
         ? ((s) = (T)sleef_rows8f_sum((const float *)(xr), (float)(m), (float *)(o), n), 1)        \
     : sizeof(T) == 8 && use_sleef_rows >= 1 && LANES == 4 && n >= 4                                \
         ? ((s) = (T)sleef_rows4_sum((const double *)(xr), (double)(m), (double *)(o), n), 1) : 0)
#define SCALE_ROW(o, inv, n, LANES)                                                                \
    (sizeof(*(o)) == 4 ? (LANES == 16 ? scale_rows16((float *)(o), (float)(inv), n)                 \
                                      : scale_rows8f((float *)(o), (float)(inv), n))                \
                       : (LANES == 8 ? scale_rows8((double *)(o), (double)(inv), n)                 \
                                     : scale_rows4((double *)(o), (double)(inv), n)), 1)
#else
#define FUSED(T, xr, m, o, n, LANES, s) 0
#define SCALE_ROW(o, inv, n, LANES) 0
#endif
/* A float32 softmax row with a NaN, as PyTorch's AVX-512 _vec_softmax_lastdim writes it: every
 * element the one NaN its vectorized maximum ends with, which is the input's NaN (quieted) at one
 * lane position, 0 in a row shorter than 16, else 11 of the last whole vector or, where the tail
 * has 12 or more elements, of the tail; any other NaN meets vec::maximum's unordered compare, whose
 * all-ones mask makes it 0xffffffff (measured against torch 2.13 over rows of 1 to 200 elements,
 * one to three NaNs of any payload and sign: tests/test_red22.py). */
static void nan_row_f(const float *xr, float *o, Py_ssize_t n)
{
    Py_ssize_t at = n < 16 ? 0 : (n % 16 < 12 ? 11 : n - n % 16 + 11);
    uint32_t bits = 0xffffffffu;
    if (xr[at] != xr[at]) {
        memcpy(&bits, xr + at, 4);
        bits |= 0x00400000u;
    }
    float v;
    memcpy(&v, &bits, 4);
    for (Py_ssize_t i = 0; i < n; i++) o[i] = v;
}

/* A row with a NaN as PyTorch's AVX2 build writes it (ATen's capability AVX2; measured against
 * torch 2.13 on an AVX2 CPU over rows of 1 to 70 elements, one to three NaNs of any payload and sign
 * among finite and infinite values: tests/test_softmax39.py). Its vec::maximum is _mm256_max_ps OR'ed
 * with the unordered compare's all-ones mask, so the row's maximum m is the all-ones word wherever
 * two elements meet (n >= 2), the row's one element where n is 1; e_i = exp(x_i - m) is then x_i's
 * NaN (quieted) where x_i is a NaN, else m's. log_softmax's (x - m) - log(s) keeps that NaN, and so
 * does softmax in a row shorter than one vector and in the scalar-loaded tail of a longer one; in the
 * whole vectors softmax's e * (1 / s) takes the sum's NaN instead (the product's operands as PyTorch's
 * build compiled them), which is one element's: float (eight lanes) e_7, the lane its running sums
 * keep and VecReduceAllSIMD's shuffles carry to lane 0; double (four lanes, the generic
 * vec_reduce_all: lane 0 first) e_0, or where a tail is added, its first element's. Written here
 * rather than computed: this compiler's choice of a commutative operation's operand order is not
 * PyTorch's build's. */
#define NAN_ROW_AVX2(T, xr, o, n, LANES, log_)                                                     \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < (n); i++) {                                                     \
            T v = (xr)[i];                                                                         \
            if (v != v)                                                                            \
                v = v + v; /* (quieted, its sign and payload kept) */                              \
            else                                                                                   \
                memset(&v, 0xff, sizeof v);                                                        \
            (o)[i] = v;                                                                            \
        }                                                                                          \
        if (!(log_) && (n) >= (LANES)) {                                                           \
            Py_ssize_t body = (n) - (n) % (LANES);                                                 \
            T sum = (o)[sizeof(T) == 4 ? 7 : ((n) % (LANES) ? body : 0)];                          \
            for (Py_ssize_t i = 0; i < body; i++) (o)[i] = sum;                                    \
        }                                                                                          \
    }

#define SOFTMAX_ROWS(T, EXP, LOG, FAST)                                                                \
    const Py_ssize_t LANES = vbytes / (Py_ssize_t)sizeof(T);                                       \
    for (Py_ssize_t r = 0; r < rows; r++) {                                                        \
        const T *xr = (const T *)xb + r * n;                                                      \
        T *o = (T *)ob + r * n;                                                                    \
        T m = ROW_MAX(T, xr, n);                                                                   \
        if (sizeof(T) == 4 && m != m && !log_ && LANES == 16) {                                    \
            nan_row_f((const float *)xr, (float *)o, n);                                           \
            continue;                                                                              \
        }                                                                                          \
        if (m != m && vbytes == 32 && use_sleef_rows) {                                            \
            NAN_ROW_AVX2(T, xr, o, n, LANES, log_);                                                \
            continue;                                                                              \
        }                                                                                          \
        T s;                                                                                       \
        int fused = FUSED(T, xr, m, o, n, LANES, s);                                               \
        if (!fused && !FAST(xr, m, o, n))                                                          \
            for (Py_ssize_t i = 0; i < n; i++) o[i] = EXP((T)(xr[i] - m));                        \
        if (fused) {                                                                               \
        } else if (n < LANES) {                                                                    \
            s = o[0];                                                                              \
            for (Py_ssize_t i = 1; i < n; i++) s = s + o[i];                                       \
        } else {                                                                                   \
            T acc[16];                                                                             \
            Py_ssize_t d = LANES;                                                                  \
            for (Py_ssize_t j = 0; j < LANES; j++) acc[j] = o[j];                                  \
            for (; d + LANES <= n; d += LANES)                                                     \
                for (Py_ssize_t j = 0; j < LANES; j++) acc[j] = acc[j] + o[d + j];                 \
            for (Py_ssize_t j = 0; d + j < n; j++) acc[j] = acc[j] + o[d + j];                     \
            if (sizeof(T) == 4) { /* (float: ATen's VecReduceAllSIMD, the lanes pairwise) */         \
                for (Py_ssize_t w = LANES / 2; w >= 1; w /= 2)                                     \
                    for (Py_ssize_t j = 0; j < w; j++) acc[j] = acc[j] + acc[j + w];               \
                s = acc[0];                                                                        \
            } else { /* (double: the generic vec_reduce_all, lane 0 plus each next lane in turn) */ \
                s = acc[0];                                                                        \
                for (Py_ssize_t j = 1; j < LANES; j++) s = s + acc[j];                             \
            }                                                                                      \
        }                                                                                          \
        if (log_) {                                                                                \
            /* (AVX2: SLEEF's log of a NaN sum is its +NaN, not the sum's NaN as the C library's) */ \
            T l = s != s && vbytes == 32 && use_sleef_rows ? (T)NAN : LOG(s);                    \
            for (Py_ssize_t i = 0; i < n; i++) o[i] = (T)(xr[i] - m) - l;                          \
        } else {                                                                                   \
            T inv = (T)1 / s;                                                                      \
            if (!(fused && SCALE_ROW(o, inv, n, LANES)))                                                    \
                for (Py_ssize_t i = 0; i < n; i++) o[i] = o[i] * inv;                              \
        }                                                                                          \
    }

/* ROWS_LOGF of 16 floats at once where ATen's capability is AVX512 (use_sleef_rows 2): SLEEF's
 * logf_u1 (sleef_logf_u1's operations in its order on sixteen lanes, its fmaf the fused
 * instruction, frexpf's exponent vgetexp's for the normal y it sees) for lanes in [FLT_MIN,
 * FLT_MAX], the C library's logf for the others (NaN, infinities, zero, subnormals, negatives),
 * as sleef_logf_or_libm: the same bits lane by lane (rows_logf_mismatches counts any difference:
 * tests/test_small25.py runs it over every float32 exponent). in and out: 16 floats. */
#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target("avx512f,avx512dq"))) static void sleef_logf16(const float *in, float *out)
{
    __m512 d = _mm512_loadu_ps(in);
    __mmask16 normal = _mm512_cmp_ps_mask(d, _mm512_set1_ps(1.17549435e-38f), _CMP_GE_OQ)
                       & _mm512_cmp_ps_mask(d, _mm512_set1_ps(3.40282347e+38f), _CMP_LE_OQ);
    __m512 y = _mm512_mul_ps(d, _mm512_set1_ps(1.0f / 0.75f));
    __mmask16 yinf = _mm512_cmp_ps_mask(y, _mm512_set1_ps(INFINITY), _CMP_EQ_OQ);
    __m512 e = _mm512_mask_blend_ps(yinf, _mm512_getexp_ps(y), _mm512_set1_ps(128.0f));
    __m512i b = _mm512_castps_si512(d);
    __mmask16 half = _mm512_test_epi32_mask(b, _mm512_set1_epi32(0x00400000));
    __m512i top = _mm512_mask_blend_epi32(half, _mm512_set1_epi32(0x3F800000), _mm512_set1_epi32(0x3F000000));
    __m512 m = _mm512_castsi512_ps(_mm512_or_si512(_mm512_and_si512(b, _mm512_set1_epi32(0x007FFFFF)), top));
    const __m512 l2h = _mm512_set1_ps(0.69314718246459960938f), l2l = _mm512_set1_ps(-1.904654323148236017e-09f);
    __m512 sx = _mm512_mul_ps(l2h, e);
    __m512 sy = _mm512_fmadd_ps(l2l, e, _mm512_fmsub_ps(l2h, e, sx));
    const __m512 one = _mm512_set1_ps(1.0f), mone = _mm512_set1_ps(-1.0f);
    /* n = dfadd2_ff(-1, m), q = dfadd2_ff(1, m) */
    __m512 ns = _mm512_add_ps(mone, m), nv = _mm512_sub_ps(ns, mone);
    __m512 ny = _mm512_add_ps(_mm512_sub_ps(mone, _mm512_sub_ps(ns, nv)), _mm512_sub_ps(m, nv));
    __m512 qs = _mm512_add_ps(one, m), qv = _mm512_sub_ps(qs, one);
    __m512 qy = _mm512_add_ps(_mm512_sub_ps(one, _mm512_sub_ps(qs, qv)), _mm512_sub_ps(m, qv));
    /* x = dfdiv(n, q) */
    __m512 t = _mm512_div_ps(one, qs), s = _mm512_mul_ps(ns, t);
    __m512 u = _mm512_fmsub_ps(t, ns, s);
    __m512 v = _mm512_fnmadd_ps(qy, t, _mm512_fnmadd_ps(qs, t, one));
    __m512 xx = s, xy = _mm512_fmadd_ps(s, v, _mm512_fmadd_ps(ny, t, u));
    __m512 x2 = _mm512_mul_ps(xx, xx);
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(0.3027294874e+0f), x2, _mm512_set1_ps(0.3996108174e+0f));
    p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(0.6666694880e+0f));
    __m512 yx = _mm512_mul_ps(xx, _mm512_set1_ps(2.0f)), yy = _mm512_mul_ps(xy, _mm512_set1_ps(2.0f));
    __m512 sum = _mm512_add_ps(sx, yx);
    sy = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(sx, sum), yx), sy), yy);
    sx = sum;
    __m512 w = _mm512_mul_ps(_mm512_mul_ps(x2, xx), p);
    sum = _mm512_add_ps(sx, w);
    sy = _mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(sx, sum), w), sy);
    _mm512_storeu_ps(out, _mm512_add_ps(sum, sy));
    for (int j = 0; j < 16; j++)
        if (!(normal >> j & 1)) out[j] = logf(in[j]);
}

/* rows_logf_mismatches(x) -> int: how many float32 elements of x (C-contiguous) sleef_logf16
 * answers with other bits than ROWS_LOGF's sleef_logf_or_libm (0 expected; -1: not used here) */
static PyObject *py_rows_logf_mismatches(PyObject *self, PyObject *arg)
{
    (void)self;
    Py_buffer x;
    if (PyObject_GetBuffer(arg, &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (strcmp(x.format, "f") != 0 || x.itemsize != 4) {
        PyBuffer_Release(&x);
        PyErr_SetString(PyExc_ValueError, "rows_logf_mismatches: x must be a C-contiguous float32 buffer");
        return NULL;
    }
    decide_sleef_rows();
    long bad = -1;
    if (use_sleef_rows == 2) {
        bad = 0;
        const float *v = x.buf;
        Py_ssize_t n = x.len / 4;
        for (Py_ssize_t i = 0; i < n; i += 16) {
            float in[16], got[16];
            for (int j = 0; j < 16; j++) in[j] = i + j < n ? v[i + j] : 1.0f;
            sleef_logf16(in, got);
            for (int j = 0; j < 16 && i + j < n; j++) {
                float want = sleef_logf_or_libm(in[j]);
                bad += memcmp(&want, &got[j], 4) != 0;
            }
        }
    }
    PyBuffer_Release(&x);
    return PyLong_FromLong(bad);
}

/* log_softmax of float32 rows under AVX-512 (use_sleef_rows 2, 16 lanes): SOFTMAX_ROWS's steps for
 * each row (its maximum, its exponentials and sum: sleef_rows16_sum for 16 or more, else
 * sleef_rows16 and the sum left to right), the logs of 16 rows' sums at once (sleef_logf16: ROWS_LOGF's
 * bits), then out = (x - m) - l row by row: the same bits as SOFTMAX_ROWS(float, ..., log). */
__attribute__((target("avx512f,avx512dq"))) static void log_softmax_rows16(const float *xb, float *ob, Py_ssize_t rows,
                                                                         Py_ssize_t n)
{
    for (Py_ssize_t r0 = 0; r0 < rows; r0 += 16) {
        int g = rows - r0 < 16 ? (int)(rows - r0) : 16;
        float m[16], s[16], l[16];
        for (int q = 0; q < 16; q++) s[q] = 1.0f;
        for (int q = 0; q < g; q++) {
            const float *xr = xb + (r0 + q) * n;
            float *o = ob + (r0 + q) * n;
            m[q] = row_max_f(xr, n);
            if (n >= 16) {
                s[q] = sleef_rows16_sum(xr, m[q], o, n);
            } else {
                sleef_rows16(xr, m[q], o, n);
                float t = o[0];
                for (Py_ssize_t i = 1; i < n; i++) t = t + o[i];
                s[q] = t;
            }
        }
        sleef_logf16(s, l);
        for (int q = 0; q < g; q++) {
            const float *xr = xb + (r0 + q) * n;
            float *o = ob + (r0 + q) * n;
            const __m512 mv = _mm512_set1_ps(m[q]), lv = _mm512_set1_ps(l[q]);
            for (Py_ssize_t i = 0; i < n; i += 16) {
                __mmask16 k = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
                _mm512_mask_storeu_ps(o + i, k, _mm512_sub_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, xr + i), mv), lv));
            }
        }
    }
}
#endif

static PyObject *py_softmax_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "softmax_rows(x, out, n, log) takes 4 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[2]);
    int log_ = PyObject_IsTrue(args[3]);
    if ((n == -1 || log_ < 0) && PyErr_Occurred()) return NULL;
    Py_buffer x, out;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    PyObject *answer = NULL;
    int f32 = strcmp(x.format, "f") == 0 && x.itemsize == 4, f64 = strcmp(x.format, "d") == 0 && x.itemsize == 8;
    if (!(f32 || f64) || strcmp(out.format, x.format) != 0 || out.len != x.len || n < 1
        || (x.len / x.itemsize) % n != 0) {
        PyErr_Format(PyExc_ValueError, "softmax_rows: x and out must be C-contiguous float32 or float64 buffers "
                     "of one format and length, a multiple of n >= 1 (formats %s and %s, %zd and %zd bytes, n %zd)",
                     x.format, out.format, x.len, out.len, n);
        goto done;
    }
    {
        const char *xb = x.buf;
        char *ob = out.buf;
        if (x.len && xb < ob + out.len && ob < xb + x.len) {
            answer = Py_False;
            goto done;
        }
        static int vbytes = 0;
        if (!vbytes) vbytes = vector_bytes();  /* (a race computes the same value twice: harmless) */
        decide_shifted_expf();  /* (once: a race decides the same twice, harmlessly) */
        decide_sleef_rows();
        Py_ssize_t total = x.len / x.itemsize, rows = total / n;
#if defined(__GNUC__) && defined(__x86_64__)
        if (f32 && log_ && use_sleef_rows == 2 && vbytes == 64) { /* (the same bits, the logs sixteen at once) */
            if (total >= MIN_RELEASE) {
                Py_BEGIN_ALLOW_THREADS
                log_softmax_rows16((const float *)xb, (float *)ob, rows, n);
                Py_END_ALLOW_THREADS
            } else {
                log_softmax_rows16((const float *)xb, (float *)ob, rows, n);
            }
            answer = Py_True;
            goto done;
        }
#endif
        if (total >= MIN_RELEASE) {
            Py_BEGIN_ALLOW_THREADS
            if (f32) { SOFTMAX_ROWS(float, expf, ROWS_LOGF, ROWS_EXPF) } else { SOFTMAX_ROWS(double, exp, ROWS_LOG, ROWS_EXP) }
            Py_END_ALLOW_THREADS
        } else {
            if (f32) { SOFTMAX_ROWS(float, expf, ROWS_LOGF, ROWS_EXPF) } else { SOFTMAX_ROWS(double, exp, ROWS_LOG, ROWS_EXP) }
        }
        answer = Py_True;
    }
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    Py_XINCREF(answer);
    return answer;
}
#undef SOFTMAX_ROWS
#undef SHIFTED_EXPF
#undef ROWS_EXPF
#undef ROWS_EXP
#undef ROWS_LOGF
#undef ROWS_LOG


/* scan(x, out, n, inner, prod[, strict]) -> bool: the running sum (prod true: product) of x along a dim of n
 * elements whose elements lie `inner` apart (x read as (outer, n, inner), C order) into out; x and out
 * are C-contiguous buffers of one format ("f" or "d") and one length, a multiple of n * inner.
 * strided.ops.reductions.scans.scan_values' NumPy computation operation for operation, so the bits
 * are the same: the running value is a double (float32 accumulates in float64, as PyTorch), r_0 = x_0
 * and r_k = r_{k-1} + x_k (or * x_k), NumPy's accumulate; each stored once rounded to out's type, a
 * product as r_k, a sum as r_k + 0.0 (PyTorch's running sum starts from +0.0: a leading run of -0.0
 * gives +0.0). One exception mirrors scan_values: a float64 sum longer than SCAN_MAX elements adds
 * the 0.0 only where some leading element (k = 0) is -0.0 (NumPy's path searches for one instead of
 * adding everywhere), so a signaling NaN at k = 0 is then stored as it is, not quieted. (Every other
 * stored value is unchanged by + 0.0: a later -0.0 needs a leading one, a later NaN is quiet.)
 * Independent lines run interleaved, SCAN_LANES at a time, each line's operations in its own order.
 * False (nothing written) where the buffers overlap (the caller's NumPy path runs then). Returns 2 where
 * a line ends in NaN (out written: its caller's NumPy path decides which NaN), or False with strict
 * true (a compiled front's kernel call, whose False hands the call to the Python path). */
#define SCAN_MAX 4096
#define SCAN_LANES 8
#define SCAN_LINES(T, OP, STORE, LEAD, W)                                                          \
    for (; o + W <= outer; o += W) { /* W lines of n contiguous elements, one chain each */        \
        const T *xl = (const T *)xb + o * n;                                                       \
        T *ol = (T *)ob + o * n;                                                                   \
        double r[W];                                                                               \
        for (int l = 0; l < W; l++) {                                                              \
            r[l] = (double)xl[l * n];                                                              \
            ol[l * n] = LEAD(T, r[l]);                                                             \
        }                                                                                          \
        for (Py_ssize_t k = 1; k < n; k++)                                                         \
            for (int l = 0; l < W; l++) {                                                          \
                r[l] = r[l] OP (double)xl[l * n + k];                                              \
                ol[l * n + k] = STORE(T, r[l]);                                                    \
            }                                                                                      \
    }
#define SCAN_COLUMNS(T, OP, STORE, LEAD)                                                           \
    for (Py_ssize_t o = 0; o < outer; o++) {                                                       \
        const T *xo = (const T *)xb + o * n * inner;                                               \
        T *oo = (T *)ob + o * n * inner;                                                           \
        for (Py_ssize_t j = 0; j < inner; j++) {                                                   \
            run[j] = (double)xo[j];                                                                \
            oo[j] = LEAD(T, run[j]);                                                               \
        }                                                                                          \
        for (Py_ssize_t k = 1; k < n; k++) {                                                       \
            const T *xk = xo + k * inner;                                                          \
            T *ok = oo + k * inner;                                                                \
            for (Py_ssize_t j = 0; j < inner; j++) {                                               \
                run[j] = run[j] OP (double)xk[j];                                                  \
                ok[j] = STORE(T, run[j]);                                                          \
            }                                                                                      \
        }                                                                                          \
    }
#define SCAN_SUM_STORE(T, v) ((T)((v) + 0.0))
#define SCAN_RAW_STORE(T, v) ((T)(v))
#define SCAN_SUM_LEAD(T, v) (plus_lead ? (T)((v) + 0.0) : (T)(v))
#define SCAN_KIND(T, OP, STORE, LEAD)                                                              \
    if (inner == 1) {                                                                              \
        Py_ssize_t o = 0;                                                                          \
        SCAN_LINES(T, OP, STORE, LEAD, SCAN_LANES)                                                 \
        SCAN_LINES(T, OP, STORE, LEAD, 1)                                                          \
    } else {                                                                                       \
        SCAN_COLUMNS(T, OP, STORE, LEAD)                                                           \
    }
#define SCAN_LOOP(T)                                                                               \
    if (prod) {                                                                                    \
        SCAN_KIND(T, *, SCAN_RAW_STORE, SCAN_RAW_STORE)                                            \
    } else {                                                                                       \
        SCAN_KIND(T, +, SCAN_SUM_STORE, SCAN_SUM_LEAD)                                             \
    }

static int overlaps(const Py_buffer *a, const Py_buffer *b);

/* Whether a leading element (k = 0) of the (outer, n, inner) doubles at xb is -0.0. */
static int leading_negative_zero(const double *xv, Py_ssize_t outer, Py_ssize_t n, Py_ssize_t inner)
{
    for (Py_ssize_t o = 0; o < outer; o++)
        for (Py_ssize_t j = 0; j < inner; j++) {
            double v = xv[o * n * inner + j];
            if (v == 0.0 && signbit(v)) return 1;
        }
    return 0;
}

static PyObject *py_scan(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5 && nargs != 6) {
        PyErr_Format(PyExc_TypeError, "scan(x, out, n, inner, prod[, strict]) takes 5 or 6 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[2]), inner = PyLong_AsSsize_t(args[3]);
    int prod = PyObject_IsTrue(args[4]), strict = nargs == 6 ? PyObject_IsTrue(args[5]) : 0;
    if ((n == -1 || inner == -1 || prod < 0 || strict < 0) && PyErr_Occurred()) return NULL;
    Py_buffer x, out;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    PyObject *answer = NULL;
    double *run = NULL;
    int nan_end = 0;
    int f32 = strcmp(x.format, "f") == 0 && x.itemsize == 4, f64 = strcmp(x.format, "d") == 0 && x.itemsize == 8;
    if (!(f32 || f64) || strcmp(out.format, x.format) != 0 || out.len != x.len || n < 1 || inner < 1
        || n > PY_SSIZE_T_MAX / inner || (x.len / x.itemsize) % (n * inner) != 0) {
        PyErr_Format(PyExc_ValueError, "scan: x and out must be C-contiguous float32 or float64 buffers of one "
                     "format and length, a multiple of n * inner >= 1 (formats %s and %s, %zd and %zd bytes, "
                     "n %zd, inner %zd)", x.format, out.format, x.len, out.len, n, inner);
        goto done;
    }
    {
        const char *xb = x.buf;
        char *ob = out.buf;
        Py_ssize_t total = x.len / x.itemsize, outer = total / (n * inner);
        if (overlaps(&x, &out)) {
            answer = Py_False;
            goto done;
        }
        if (inner > 1 && !(run = PyMem_Malloc((size_t)inner * sizeof(double)))) {
            PyErr_NoMemory();
            goto done;
        }
        int plus_lead = f32 || total <= SCAN_MAX || prod || leading_negative_zero((const double *)xb, outer, n, inner);
        if (total >= MIN_RELEASE) {
            Py_BEGIN_ALLOW_THREADS
            if (f32) { SCAN_LOOP(float) } else { SCAN_LOOP(double) }
            Py_END_ALLOW_THREADS
        } else {
            if (f32) { SCAN_LOOP(float) } else { SCAN_LOOP(double) }
        }
        answer = Py_True;
        /* (a NaN anywhere in a running sum or product stays to its line's end: the line ends
         * alone tell whether the result holds one) */
        for (Py_ssize_t o = 0; o < outer && !nan_end; o++) {
            Py_ssize_t at = o * n * inner + (n - 1) * inner;
            for (Py_ssize_t j = 0; j < inner; j++) {
                double v = f32 ? (double)((const float *)ob)[at + j] : ((const double *)ob)[at + j];
                if (v != v) {
                    nan_end = 1;
                    break;
                }
            }
        }
    }
done:
    PyMem_Free(run);
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    if (answer == Py_True && nan_end) {
        if (strict) Py_RETURN_FALSE;
        return PyLong_FromLong(2);
    }
    Py_XINCREF(answer);
    return answer;
}

/* vander_rows(x, out, n, increasing) -> bool: torch.vander's rows of the rows elements of x into
 * out (rows, n) row-major, n >= 2: column 0 (increasing; else n - 1) is 1, and the others, from
 * there on, x's running product along the row, as scan() makes it down the columns of x repeated
 * (strided.ops.linalg.products._fast_vander's general route): the running value a double (float32
 * widened, as PyTorch accumulates), r_1 = x, r_k = r_{k-1} * x, each stored once rounded to out's
 * type. x and out are C-contiguous buffers of one format ("f" or "d"), out of rows * n elements.
 * False (nothing written) where an element of x is NaN (scan()'s result would end in NaN: its
 * caller's NumPy path decides which NaN) or the buffers overlap. Rows run VANDER_LANES at a time,
 * their chains interleaved, each in its own order. */
#define VANDER_LANES 8
#define VANDER_ROWS(T)                                                                             \
    {                                                                                              \
        const T *xv = (const T *)x.buf;                                                            \
        T *ov = (T *)out.buf;                                                                      \
        Py_ssize_t first = increasing ? 0 : n - 1, step = increasing ? 1 : -1, i = 0;              \
        for (; i + VANDER_LANES <= rows; i += VANDER_LANES) {                                      \
            double r[VANDER_LANES], v[VANDER_LANES];                                               \
            for (int l = 0; l < VANDER_LANES; l++) {                                               \
                r[l] = v[l] = (double)xv[i + l];                                                   \
                ov[(i + l) * n + first] = (T)1;                                                    \
                ov[(i + l) * n + first + step] = (T)r[l];                                          \
            }                                                                                      \
            for (Py_ssize_t k = 2; k < n; k++)                                                     \
                for (int l = 0; l < VANDER_LANES; l++) {                                           \
                    r[l] = r[l] * v[l];                                                            \
                    ov[(i + l) * n + first + k * step] = (T)r[l];                                  \
                }                                                                                  \
        }                                                                                          \
        for (; i < rows; i++) {                                                                    \
            double r = (double)xv[i], v = r;                                                       \
            ov[i * n + first] = (T)1;                                                              \
            ov[i * n + first + step] = (T)r;                                                       \
            for (Py_ssize_t k = 2; k < n; k++) {                                                   \
                r = r * v;                                                                         \
                ov[i * n + first + k * step] = (T)r;                                               \
            }                                                                                      \
        }                                                                                          \
    }

static PyObject *py_vander_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "vander_rows(x, out, n, increasing) takes 4 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[2]);
    int increasing = PyObject_IsTrue(args[3]);
    if ((n == -1 || increasing < 0) && PyErr_Occurred()) return NULL;
    Py_buffer x, out;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    PyObject *answer = NULL;
    int f32 = strcmp(x.format, "f") == 0 && x.itemsize == 4, f64 = strcmp(x.format, "d") == 0 && x.itemsize == 8;
    Py_ssize_t rows = (f32 || f64) ? x.len / x.itemsize : 0;
    if (!(f32 || f64) || strcmp(out.format, x.format) != 0 || n < 2 || rows > PY_SSIZE_T_MAX / n
        || out.len != rows * n * x.itemsize) {
        PyErr_Format(PyExc_ValueError, "vander_rows: x and out must be C-contiguous float32 or float64 buffers of "
                     "one format, out of n >= 2 elements per element of x (formats %s and %s, %zd and %zd bytes, "
                     "n %zd)", x.format, out.format, x.len, out.len, n);
        goto done;
    }
    answer = Py_False;
    if (overlaps(&x, &out))
        goto done;
    for (Py_ssize_t i = 0; i < rows; i++) {
        double v = f32 ? (double)((const float *)x.buf)[i] : ((const double *)x.buf)[i];
        if (v != v)
            goto done;
    }
    if (rows * n >= MIN_RELEASE) {
        Py_BEGIN_ALLOW_THREADS
        if (f32) VANDER_ROWS(float) else VANDER_ROWS(double)
        Py_END_ALLOW_THREADS
    } else {
        if (f32) VANDER_ROWS(float) else VANDER_ROWS(double)
    }
    answer = Py_True;
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    Py_XINCREF(answer);
    return answer;
}
#undef VANDER_ROWS
#undef SCAN_LOOP
#undef SCAN_KIND
#undef SCAN_LINES
#undef SCAN_COLUMNS
#undef SCAN_SUM_STORE
#undef SCAN_RAW_STORE
#undef SCAN_SUM_LEAD


/* variance_rows(x, var, mean, n, denominator, root, wide=0) -> True, 2 or False: the variance (root true: its square
 * root) and the mean of each row of n >= 1 elements of x, into var and mean (one element per row);
 * x, var and mean C-contiguous buffers of one format ("f" or "d"), x's length a multiple of n, at
 * most VAR_MAX elements; denominator a float (n - correction). strided.kernels.reduce.variance_parts'
 * NumPy computation operation for operation, in x's type, so the bits are the same:
 *   s = 0 + pairwise(x)                 np.add.reduce over a contiguous row: NumPy's pairwise_sum
 *                                       (below 8 elements left to right from 0; up to 128 eight
 *                                       running sums, added ((0+1)+(2+3))+((4+5)+(6+7)), then the
 *                                       tail; longer rows split at n/2 rounded down to a multiple of
 *                                       8), added to the reduction's identity 0
 *   c = s / n                           (centre /= n: a Python int, so in x's type)
 *   q = 0 + pairwise((x_i - c) * (x_i - c))
 *   v = q / denominator                 (np.float64: in double, float32 rounded once)
 *   root: v = sqrt(v)
 * False (nothing written) where x is longer than VAR_MAX or a result overlaps x or the other; 2
 * (all written) where a mean is +-inf (var_mean redoes those as PyTorch's Welford mean gives them). */
#define VAR_MAX 8192
#define PAIRWISE(NAME, E, T)                                                                       \
    static T NAME(const E *a, Py_ssize_t n, int sq, T c)                                           \
    {                                                                                              \
        if (n < 8) {                                                                               \
            T res = 0;                                                                             \
            for (Py_ssize_t i = 0; i < n; i++) {                                                   \
                T d = (T)a[i] - c;                                                                 \
                res = res + (sq ? d * d : (T)a[i]);                                                \
            }                                                                                      \
            return res;                                                                            \
        }                                                                                          \
        if (n <= 128) {                                                                            \
            T r[8], res;                                                                           \
            Py_ssize_t i;                                                                          \
            for (int j = 0; j < 8; j++) {                                                          \
                T d = (T)a[j] - c;                                                                 \
                r[j] = sq ? d * d : (T)a[j];                                                       \
            }                                                                                      \
            for (i = 8; i < n - (n % 8); i += 8)                                                   \
                for (int j = 0; j < 8; j++) {                                                      \
                    T d = (T)a[i + j] - c;                                                         \
                    r[j] = r[j] + (sq ? d * d : (T)a[i + j]);                                      \
                }                                                                                  \
            res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));               \
            for (; i < n; i++) {                                                                   \
                T d = (T)a[i] - c;                                                                 \
                res = res + (sq ? d * d : (T)a[i]);                                                \
            }                                                                                      \
            return res;                                                                            \
        }                                                                                          \
        Py_ssize_t n2 = n / 2;                                                                     \
        n2 -= n2 % 8;                                                                              \
        return NAME(a, n2, sq, c) + NAME(a + n2, n - n2, sq, c);                                   \
    }

PAIRWISE(pairwise_f, float, float)
PAIRWISE(pairwise_d, double, double)
/* float32 elements read as doubles, the sums in double (np.add.reduce(x, dtype=float64) of a
 * contiguous float32 row, and the float64 deviations of variance_parts' wide mode) */
PAIRWISE(pairwise_fd, float, double)
#undef PAIRWISE

/* var_mean's float32 mean as PyTorch's WelfordOps makes it for one row in memory order (its
 * binary_kernel_reduce below GRAIN_SIZE: mean += (x - mean) / k in double, k = 1, 2, ...), rounded
 * once, where the float64 mean wide (pairwise) lies within 2**-36 of itself of a float32 tie (the
 * two means' errors, n * 2**-53 of the row's largest magnitude, are below that unless the row
 * cancels to a mean 2**17 / n times smaller than its largest element); elsewhere wide rounded. */
static float torch_welford_mean_f(const float *row, Py_ssize_t n, double wide)
{
    float f = (float)wide;
    if (!isfinite(wide) || !isfinite(f) || (float)(wide * (1.0 - 0x1p-36)) == (float)(wide * (1.0 + 0x1p-36)))
        return f;
    double mean = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) {
        double delta = (double)row[i] - mean;
        mean = mean + delta / (double)(i + 1);
    }
    return (float)mean;
}

#define VARIANCE_LOOP(T, PW, SQRT, DIVIDE)                                                         \
    for (Py_ssize_t r = 0; r < rows; r++) {                                                        \
        const T *row = (const T *)xb + r * n;                                                      \
        T c = ((T)0 + PW(row, n, 0, 0)) / (T)n;                                                    \
        T q = (T)0 + PW(row, n, 1, c);                                                             \
        T v = DIVIDE;                                                                              \
        ((T *)vb)[r] = root ? SQRT(v) : v;                                                         \
        ((T *)mb)[r] = c;                                                                          \
        infinite |= isinf(c);                                                                      \
    }

static int overlaps(const Py_buffer *a, const Py_buffer *b)
{
    const char *p = a->buf, *q = b->buf;
    return a->len && b->len && p < q + b->len && q < p + a->len;
}

/* A buffer's struct type letter without its byte-order prefix ("<d" and "d": 'd'). */
static char format_kind(const Py_buffer *b)
{
    const char *f = b->format;
    return f[0] == '<' || f[0] == '=' || f[0] == '@' ? f[1] : f[0];
}

static PyObject *py_variance_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6 && nargs != 7) {
        PyErr_Format(PyExc_TypeError, "variance_rows(x, var, mean, n, denominator, root, wide=0) takes 6 or 7 "
                     "arguments, not %zd", nargs);
        return NULL;
    }
    int wide = 0;  /* 0: in x's type; 1: float32 in double (PAIRWISE fd); 2: also var_mean's float64 mean */
    if (nargs == 7) {
        wide = (int)PyLong_AsLong(args[6]);
        if (wide == -1 && PyErr_Occurred()) return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[3]);
    double denominator = PyFloat_AsDouble(args[4]);
    int root = PyObject_IsTrue(args[5]);
    if (((n == -1 || denominator == -1.0) && PyErr_Occurred()) || root < 0) return NULL;
    Py_buffer buf[3];
    int got = 0;
    PyObject *answer = NULL;
    for (; got < 3; got++)
        if (PyObject_GetBuffer(args[got], &buf[got], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (got ? PyBUF_WRITABLE : 0)) < 0)
            goto done;
    {
        Py_buffer *x = &buf[0], *var = &buf[1], *mean = &buf[2];
        int f32 = strcmp(x->format, "f") == 0 && x->itemsize == 4, f64 = strcmp(x->format, "d") == 0 && x->itemsize == 8;
        Py_ssize_t total = x->len / (x->itemsize ? x->itemsize : 1), rows = n >= 1 ? total / n : 0;
        if (!(f32 || f64) || strcmp(var->format, x->format) != 0 || strcmp(mean->format, x->format) != 0 || n < 1
            || total % n != 0 || var->len != rows * x->itemsize || mean->len != var->len) {
            PyErr_Format(PyExc_ValueError, "variance_rows: x, var and mean must be C-contiguous float32 or float64 "
                         "buffers of one format, x's length a multiple of n >= 1, var and mean one element per row "
                         "(formats %s, %s, %s; %zd, %zd, %zd bytes; n %zd)", x->format, var->format, mean->format,
                         x->len, var->len, mean->len, n);
            goto done;
        }
        if (total > VAR_MAX || overlaps(x, var) || overlaps(x, mean) || overlaps(var, mean)) {
            answer = Py_False;
            goto done;
        }
        const char *xb = x->buf;
        char *vb = var->buf, *mb = mean->buf;
        int infinite = 0; /* a mean of +-inf: var_mean's caller redoes it as PyTorch's Welford mean */
        if (f32 && wide) {
            /* variance_parts' float32 computation (PyTorch's: float64 accumulation): the centre is
             * the float32 mean where there is one result (std_var_all_cpu centres on self.mean()),
             * else the float64 mean; the deviations, their squares, sum, quotient and root in
             * double, rounded once to float32; the mean returned is the float64 one rounded once
             * (var_mean's: PyTorch's Welford mean in double), where wide is 2 (else 0 for a single
             * row: var alone needs no float64 mean there) */
            for (Py_ssize_t r = 0; r < rows; r++) {
                const float *row = (const float *)xb + r * n;
                float c = rows == 1 ? (0.0f + pairwise_f(row, n, 0, 0)) / (float)n : 0.0f;
                double wide_mean = rows > 1 || wide > 1 ? (0.0 + pairwise_fd(row, n, 0, 0)) / (double)n : 0.0;
                double v = (0.0 + pairwise_fd(row, n, 1, rows == 1 ? (double)c : wide_mean)) / denominator;
                ((float *)vb)[r] = (float)(root ? sqrt(v) : v);
                ((float *)mb)[r] = wide > 1 ? torch_welford_mean_f(row, n, wide_mean) : (float)wide_mean;
                infinite |= isinf(wide_mean);
            }
        } else if (f32) {
            VARIANCE_LOOP(float, pairwise_f, sqrtf, (float)((double)q / denominator))
        } else {
            VARIANCE_LOOP(double, pairwise_d, sqrt, q / denominator)
        }
        static PyObject *two = NULL; /* (kept for good: the XINCREF below hands out a reference) */
        if (infinite && !two && !(two = PyLong_FromLong(2)))
            goto done;
        answer = infinite ? two : Py_True;
    }
done:
    for (int k = 0; k < got; k++) PyBuffer_Release(&buf[k]);
    Py_XINCREF(answer);
    return answer;
}
#undef VARIANCE_LOOP


/* torch_welford_rows(x, var, mean, n, divisor, root, inner=1) -> bool: PyTorch 2.13's CPU var/std
 * and mean by Welford's updates in double (WelfordOps<scalar_t, double>, one thread:
 * binary_kernel_reduce's serial loop), each element of a result in its order:
 *   count += 1; delta = v - mean; mean += delta / count; m2 += delta * (v - mean)
 * then var = m2 / divisor (the caller's max(count - correction, 0)) (its square root where root is
 * true), both rounded once to x's type. x holds (outer, n, inner) elements, C-contiguous: one result
 * per (outer, inner) pair over its n elements (inner 1: rows; a reduced leading dim: columns, all
 * of a row's columns updated together, the same operations per column); var and mean hold the
 * (outer, inner) results. One format for all three ("f" or "d"). False: an overlap, nothing
 * written. (No fused multiply-add: the module is built with -ffp-contract=off, as PyTorch's kernel
 * computes the product and the sum apart: checked bit for bit against torch.) */
#define WELFORD_LOOP(T)                                                                            \
    for (Py_ssize_t o = 0; inner == 1 && o < outer; o++) { /* (rows: the state in registers) */    \
        const T *a = (const T *)xb + o * n;                                                        \
        double mu1 = 0.0, m21 = 0.0;                                                               \
        for (Py_ssize_t i = 0; i < n; i++) {                                                       \
            double v = (double)a[i], nf = (double)(i + 1);                                         \
            double delta = v - mu1;                                                                \
            mu1 = mu1 + delta / nf;                                                                \
            m21 = m21 + delta * (v - mu1);                                                         \
        }                                                                                          \
        double var = m21 / divisor;                                                                \
        ((T *)vb)[o] = (T)(root ? sqrt(var) : var);                                                \
        ((T *)mb)[o] = (T)mu1;                                                                     \
    }                                                                                              \
    for (Py_ssize_t o = 0; inner > 1 && o < outer; o++) {                                          \
        const T *a = (const T *)xb + o * n * inner;                                                \
        for (Py_ssize_t j = 0; j < inner; j++) { mu[j] = 0.0; m2[j] = 0.0; }                       \
        for (Py_ssize_t i = 0; i < n; i++) {                                                       \
            double nf = (double)(i + 1);                                                           \
            const T *row = a + i * inner;                                                          \
            for (Py_ssize_t j = 0; j < inner; j++) {                                               \
                double v = (double)row[j];                                                         \
                double delta = v - mu[j];                                                          \
                mu[j] = mu[j] + delta / nf;                                                        \
                m2[j] = m2[j] + delta * (v - mu[j]);                                               \
            }                                                                                      \
        }                                                                                          \
        for (Py_ssize_t j = 0; j < inner; j++) {                                                   \
            double var = m2[j] / divisor;                                                          \
            ((T *)vb)[o * inner + j] = (T)(root ? sqrt(var) : var);                                \
            ((T *)mb)[o * inner + j] = (T)mu[j];                                                   \
        }                                                                                          \
    }

static PyObject *py_torch_welford_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6 && nargs != 7) {
        PyErr_Format(PyExc_TypeError, "torch_welford_rows(x, var, mean, n, divisor, root, inner=1) takes 6 or 7 "
                     "arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[3]), inner = nargs == 7 ? PyLong_AsSsize_t(args[6]) : 1;
    double divisor = PyFloat_AsDouble(args[4]);
    int root = PyObject_IsTrue(args[5]);
    if (((n == -1 || inner == -1 || divisor == -1.0) && PyErr_Occurred()) || root < 0) return NULL;
    Py_buffer buf[3];
    int got = 0;
    PyObject *answer = NULL;
    double *mu = NULL;
    for (; got < 3; got++)
        if (PyObject_GetBuffer(args[got], &buf[got], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (got ? PyBUF_WRITABLE : 0)) < 0)
            goto done;
    {
        Py_buffer *x = &buf[0], *var = &buf[1], *mean = &buf[2];
        char kind = format_kind(x);
        int f32 = kind == 'f' && x->itemsize == 4, f64 = kind == 'd' && x->itemsize == 8;
        Py_ssize_t total = x->len / (x->itemsize ? x->itemsize : 1);
        Py_ssize_t outer = n >= 1 && inner >= 1 && n <= PY_SSIZE_T_MAX / inner ? total / (n * inner) : 0;
        if (!(f32 || f64) || format_kind(var) != kind || format_kind(mean) != kind || n < 1 || inner < 1
            || outer * n * inner != total || var->len != outer * inner * x->itemsize || mean->len != var->len) {
            PyErr_Format(PyExc_ValueError, "torch_welford_rows: x, var and mean must be C-contiguous float32 or "
                         "float64 buffers of one format, x's length a multiple of n * inner >= 1, var and mean one "
                         "element per (outer, inner) pair (formats %s, %s, %s; %zd, %zd, %zd bytes; n %zd, inner %zd)",
                         x->format, var->format, mean->format, x->len, var->len, mean->len, n, inner);
            goto done;
        }
        if (overlaps(x, var) || overlaps(x, mean) || overlaps(var, mean)) {
            answer = Py_False;
            goto done;
        }
        if (!(mu = PyMem_Malloc(2 * (size_t)inner * sizeof(double)))) {
            PyErr_NoMemory();
            goto done;
        }
        double *m2 = mu + inner;
        const char *xb = x->buf;
        char *vb = var->buf, *mb = mean->buf;
        if (total >= MIN_RELEASE) {
            Py_BEGIN_ALLOW_THREADS
            if (f32) { WELFORD_LOOP(float) } else { WELFORD_LOOP(double) }
            Py_END_ALLOW_THREADS
        } else {
            if (f32) { WELFORD_LOOP(float) } else { WELFORD_LOOP(double) }
        }
        answer = Py_True;
    }
done:
    PyMem_Free(mu);
    for (int k = 0; k < got; k++) PyBuffer_Release(&buf[k]);
    Py_XINCREF(answer);
    return answer;
}
#undef WELFORD_LOOP


/* torch_squared_deviations(x, slab, mean) -> float: PyTorch 2.13's std_var_all_cpu sum (one
 * thread) over x, a C-contiguous float32/float64 buffer holding the elements in its iterator's
 * order, cut in slabs of `slab` elements (one call of its 2-d loop each): each slab's
 * sum of (v - mean)^2 in double from 0, then the slabs' sums added in order from 0. */
#define DEVIATIONS_LOOP(T)                                                                         \
    for (Py_ssize_t start = 0; start < total; start += slab) {                                     \
        const T *a = (const T *)x.buf + start;                                                     \
        double local = 0.0;                                                                        \
        for (Py_ssize_t i = 0; i < slab; i++) {                                                    \
            double d = (double)a[i] - mean;                                                        \
            local = local + d * d;                                                                 \
        }                                                                                          \
        sum = sum + local;                                                                         \
    }

static PyObject *py_torch_squared_deviations(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "torch_squared_deviations(x, slab, mean) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t slab = PyLong_AsSsize_t(args[1]);
    double mean = PyFloat_AsDouble(args[2]);
    if ((slab == -1 || mean == -1.0) && PyErr_Occurred()) return NULL;
    Py_buffer x;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    char kind = format_kind(&x);
    int f32 = kind == 'f' && x.itemsize == 4, f64 = kind == 'd' && x.itemsize == 8;
    Py_ssize_t total = x.len / (x.itemsize ? x.itemsize : 1);
    if (!(f32 || f64) || slab < 1 || total % slab != 0) {
        PyErr_Format(PyExc_ValueError, "torch_squared_deviations: x must be a C-contiguous float32 or float64 "
                     "buffer whose length is a multiple of slab >= 1 (format %s, %zd bytes, slab %zd)",
                     x.format, x.len, slab);
        PyBuffer_Release(&x);
        return NULL;
    }
    double sum = 0.0;
    if (total >= MIN_RELEASE) {
        Py_BEGIN_ALLOW_THREADS
        if (f32) { DEVIATIONS_LOOP(float) } else { DEVIATIONS_LOOP(double) }
        Py_END_ALLOW_THREADS
    } else {
        if (f32) { DEVIATIONS_LOOP(float) } else { DEVIATIONS_LOOP(double) }
    }
    PyBuffer_Release(&x);
    return PyFloat_FromDouble(sum);
}
#undef DEVIATIONS_LOOP


/* torch_norm2_rows(x, out, n) -> bool: PyTorch 2.13's CPU 2-norm of each n-element row of x (its
 * last-dim kernel; strided.kernels.torch_sum.norm2_rows is the same in NumPy): W lanes (8 float32,
 * 4 float64) each summing the squares of its elements of the whole W-steps, the lanes added in
 * order, then the leftover t = n % W elements, the first t - t % 4 as s + x * x, the last t % 4
 * fused (fma: PyTorch's compiler contracts them), the square root in the dtype. x (any shape, its
 * elements read in row-major order) and out: C-contiguous; False where either is not, or is
 * misaligned for its items, or they overlap. */
#include "_norm2_rows4.h" /* norm2_rows4_f32 / _f64: four rows side by side */
#define TORCH_NORM2_LOOP(T, W, FMA, SQRT)                                                         \
    for (Py_ssize_t r = 0; r < rows; r++) {                                                        \
        const T *a = (const T *)xb + r * n;                                                        \
        T acc[W];                                                                                  \
        for (int l = 0; l < W; l++) acc[l] = 0;                                                    \
        Py_ssize_t whole = n - n % W, d;                                                           \
        for (d = 0; d < whole; d += W)                                                             \
            for (int l = 0; l < W; l++) acc[l] = acc[l] + a[d + l] * a[d + l];                     \
        T total = acc[0];                                                                          \
        for (int l = 1; l < W; l++) total = total + acc[l];                                        \
        Py_ssize_t plain = n - (n - whole) % 4;                                                    \
        for (d = whole; d < n; d++) total = d < plain ? total + a[d] * a[d] : FMA(a[d], a[d], total); \
        ((T *)ob)[r] = SQRT(total);                                                                \
    }

static PyObject *py_torch_norm2_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "torch_norm2_rows(x, out, n) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[2]);
    if (n == -1 && PyErr_Occurred()) return NULL;
    Py_buffer buf[2];
    int got = 0;
    PyObject *answer = NULL;
    for (; got < 2; got++)
        if (PyObject_GetBuffer(args[got], &buf[got], PyBUF_STRIDES | PyBUF_FORMAT | (got ? PyBUF_WRITABLE : 0)) < 0)
            goto done;
    {
        Py_buffer *x = &buf[0], *out = &buf[1];
        if (!PyBuffer_IsContiguous(x, 'C') || !PyBuffer_IsContiguous(out, 'C') || x->itemsize < 1
            || (uintptr_t)x->buf % (uintptr_t)x->itemsize || (uintptr_t)out->buf % (uintptr_t)x->itemsize) {
            answer = Py_False; /* (a strided or misaligned run, whose format reads "=f": the NumPy loop's) */
            goto done;
        }
        int f32 = strcmp(x->format, "f") == 0 && x->itemsize == 4, f64 = strcmp(x->format, "d") == 0 && x->itemsize == 8;
        Py_ssize_t total = x->len / (x->itemsize ? x->itemsize : 1), rows = n >= 1 ? total / n : 0;
        if (!(f32 || f64) || strcmp(out->format, x->format) != 0 || n < 1 || total % n != 0
            || out->len != rows * x->itemsize) {
            PyErr_Format(PyExc_ValueError, "torch_norm2_rows: x and out must be C-contiguous float32 or float64 "
                         "buffers of one format, x's length a multiple of n >= 1, out one element per row");
            goto done;
        }
        if (overlaps(x, out)) {
            answer = Py_False;
            goto done;
        }
        const char *xb = x->buf;
        char *ob = out->buf;
        /* (rows four at a time, the rest below: the same loop) */
        Py_ssize_t first = f32 ? norm2_rows4_f32((const float *)xb, rows, n, (float *)ob)
                               : norm2_rows4_f64((const double *)xb, rows, n, (double *)ob);
        xb += first * n * x->itemsize;
        ob += first * x->itemsize;
        rows -= first;
        if (f32) {
            TORCH_NORM2_LOOP(float, 8, fmaf, sqrtf)
        } else {
            TORCH_NORM2_LOOP(double, 4, fma, sqrt)
        }
        answer = Py_True;
    }
done:
    for (int k = 0; k < got; k++) PyBuffer_Release(&buf[k]);
    Py_XINCREF(answer);
    return answer;
}
#undef TORCH_NORM2_LOOP


/* relu's loops: compare and select, which "no-trapping-math" (ERF_CLONES) lets GCC turn into
 * vector blends (AVX-512 / AVX2 / SSE2 clones): the same values (a NaN compares false and is
 * kept, as is -0.0). Without it the loop stayed scalar: 1M float32 in 260 us, a copy takes 100. */
ERF_CLONES static void relu_float(const float *restrict x, float *restrict o, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) o[i] = x[i] < 0 ? 0.0f : x[i];
}

ERF_CLONES static void relu_double(const double *restrict x, double *restrict o, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) o[i] = x[i] < 0 ? 0.0 : x[i];
}

/* relu(x, out) -> bool: out = 0 where x < 0, else x itself (its bits: -0.0 and every NaN, signaling
 * or not, copied as they are), for C-contiguous buffers of one format ("f" or "d") and length.
 * strided.kernels.elementwise.relu_array's bits (NumPy's maximum(x, 0), which returns a NaN operand
 * unchanged, with the zeros copied back from x). False (nothing written) where out overlaps x. */
static PyObject *py_relu(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Py_buffer src, dst;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "relu(x, out) takes 2 arguments, not %zd", nargs);
        return NULL;
    }
    if (PyObject_GetBuffer(args[0], &src, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &dst, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&src);
        return NULL;
    }
    PyObject *answer = NULL;
    int f32 = strcmp(src.format, "f") == 0 && src.itemsize == 4, f64 = strcmp(src.format, "d") == 0 && src.itemsize == 8;
    if (!(f32 || f64) || strcmp(dst.format, src.format) != 0 || dst.len != src.len) {
        PyErr_Format(PyExc_ValueError, "relu: x and out must be C-contiguous float32 or float64 buffers of one "
                     "format and length (formats %s and %s, %zd and %zd bytes)", src.format, dst.format, src.len,
                     dst.len);
    } else if (overlaps(&src, &dst)) {
        answer = Py_False;
    } else {
        Py_ssize_t n = src.len / src.itemsize;
        if (f32)
            relu_float(src.buf, dst.buf, n);
        else
            relu_double(src.buf, dst.buf, n);
        answer = Py_True;
    }
    PyBuffer_Release(&src);
    PyBuffer_Release(&dst);
    Py_XINCREF(answer);
    return answer;
}

/* threshold_keep's loops: g's bits where y > 0 or y is NaN (the compare is false), all zero bits
 * (+0.0) where y <= 0 (-0.0 too): integer selects on the bits, so every payload passes as it is. */
#define THRESHOLD_KEEP(T, U, NAME)                                                                 \
    ERF_CLONES static void NAME(const U *restrict g, const T *restrict y, U *restrict o, Py_ssize_t n) \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) o[i] = y[i] <= 0 ? 0 : g[i];                            \
    }
THRESHOLD_KEEP(float, uint32_t, threshold_keep_float)
THRESHOLD_KEEP(double, uint64_t, threshold_keep_double)
#undef THRESHOLD_KEEP

/* threshold_keep(g, y, out) -> bool: relu's gradient, PyTorch's threshold_backward(g, y, 0): out = g
 * where y > 0 or y is NaN (g's bits, NaN payloads and -0.0 kept), +0.0 where y <= 0, for C-contiguous
 * buffers of one format ("f" or "d") and length; out may be g itself, not y. strided.ops._support.
 * gradtools.threshold_grad's NumPy steps (g's bits AND a mask of all ones or zeros) in one pass,
 * without the bool-to-integer cast. False (nothing written) for other buffers or an overlap. */
static PyObject *py_threshold_keep(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "threshold_keep(g, y, out) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    Py_buffer b[3];
    int got = 0;
    PyObject *answer = NULL;
    for (; got < 3; got++)
        if (PyObject_GetBuffer(args[got], &b[got], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (got == 2 ? PyBUF_WRITABLE : 0)) < 0)
            goto done;
    {
        char kind = format_kind(&b[0]);
        Py_ssize_t size = kind == 'f' ? 4 : 8;
        int ok = (kind == 'f' || kind == 'd') && b[0].itemsize == size;
        for (int k = 1; k < 3 && ok; k++)
            ok = format_kind(&b[k]) == kind && b[k].itemsize == size && b[k].len == b[0].len;
        answer = Py_False;
        if (ok && !overlaps(&b[1], &b[2]) && (b[0].buf == b[2].buf || !overlaps(&b[0], &b[2]))) {
            Py_ssize_t n = b[0].len / size;
            if (b[0].buf == b[2].buf) { /* (in place on g: element by element, read before written) */
                if (kind == 'f') {
                    uint32_t *o = b[2].buf;
                    const float *y = b[1].buf;
                    for (Py_ssize_t i = 0; i < n; i++) if (y[i] <= 0) o[i] = 0;
                } else {
                    uint64_t *o = b[2].buf;
                    const double *y = b[1].buf;
                    for (Py_ssize_t i = 0; i < n; i++) if (y[i] <= 0) o[i] = 0;
                }
            } else if (kind == 'f') {
                threshold_keep_float(b[0].buf, b[1].buf, b[2].buf, n);
            } else {
                threshold_keep_double(b[0].buf, b[1].buf, b[2].buf, n);
            }
            answer = Py_True;
        }
    }
done:
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
    Py_XINCREF(answer);
    return answer;
}

/* The NaN-free fast pass of fmax / fmin (binary_exact): out = x where x >= y (fmin: x <= y), else y,
 * over one block of m elements, as selects the compiler turns into vector code; returns whether a NaN
 * was in x or y, and then the block is redone element by element (the selects are exact wherever
 * neither operand is NaN: a tie keeps x, as the exact loop). "no-trapping-math" lets GCC if-convert
 * the selects (they raise no exception the exact loop would not); it changes no value. */
#define EXTREME_BLOCK 1024
/* VECTOR_CLONES: GCC compiles the function twice, for plain x86-64 (SSE2) and for AVX2, and picks
 * one at load time by the CPU (the build stays portable). The same IEEE operations, twice as many
 * lanes: the same values (no FMA: "avx2" does not enable it, and -ffp-contract=off holds). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default"), optimize("no-trapping-math")))
#else
#define VECTOR_CLONES
#endif
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("no-trapping-math")
#endif
VECTOR_CLONES static int extreme_pass_float(const float *restrict a, const float *restrict b, float *restrict o, Py_ssize_t m,
                              int is_max)
{
    int32_t nan = 0;
    if (is_max)
        for (Py_ssize_t i = 0; i < m; i++) {
            float p = a[i], q = b[i];
            o[i] = p >= q ? p : q;
            nan |= (p != p) | (q != q);
        }
    else
        for (Py_ssize_t i = 0; i < m; i++) {
            float p = a[i], q = b[i];
            o[i] = p <= q ? p : q;
            nan |= (p != p) | (q != q);
        }
    return nan != 0;
}

VECTOR_CLONES static int extreme_pass_double(const double *restrict a, const double *restrict b, double *restrict o,
                               Py_ssize_t m, int is_max)
{
    int nan = 0;
    if (is_max)
        for (Py_ssize_t i = 0; i < m; i++) o[i] = a[i] >= b[i] ? a[i] : b[i];
    else
        for (Py_ssize_t i = 0; i < m; i++) o[i] = a[i] <= b[i] ? a[i] : b[i];
    for (Py_ssize_t i = 0; i < m; i++) nan |= (a[i] != a[i]) | (b[i] != b[i]); /* (SSE2: no vector form) */
    return nan != 0;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

/* binary_exact(x, y, out, code) -> bool: an exact op of two C-contiguous buffers of one format ("f"
 * or "d") and length, into a third, one pass, PyTorch's bits:
 * code 2: heaviside, y where x is a zero (either), else 1.0 where x > 0, else +0.0 (NaN too), as
 * strided.ops.elementwise.binary_math._heaviside;
 * code 3: copysign, x's magnitude and y's sign bit (np.copysign's bits, NaNs too);
 * code 0, 1: fmax, fmin, as strided.ops.elementwise.binary_math._fmax/_fmin. Two numbers: a tie keeps x
 * (fmax(-0.0, 0.0) is -0.0). NaNs, as PyTorch's kernel returns them: y quieted where y is NaN and
 * x is NaN too or y is signalling; x quieted where x is signalling and y a number; a quiet NaN
 * loses to a number. Quieting sets the top mantissa bit, keeping sign and payload. False (nothing
 * written) where the three are not native float32 ("f") or float64 ("d") buffers of one format, out
 * overlaps x or y, or one of them is not C-contiguous or not aligned. */
#define EXTREME_LOOP(T, UT, QUIET, CMP)                                                        \
    {                                                                                          \
        const T *a = xb.buf, *b = yb.buf;                                                      \
        T *o = ob.buf;                                                                         \
        for (Py_ssize_t s = 0; s < n; s += EXTREME_BLOCK) {                                    \
            Py_ssize_t e = n - s < EXTREME_BLOCK ? n : s + EXTREME_BLOCK;                      \
            if (!extreme_pass_##T(a + s, b + s, o + s, e - s, which == 0))                     \
                continue; /* no NaN in the block: the plain select is exact */                 \
            for (Py_ssize_t i = s; i < e; i++) {                                               \
                T p = a[i], q = b[i];                                                          \
                UT pb, qb;                                                                     \
                if (p CMP q) {                                                                 \
                    o[i] = p;                                                                  \
                    continue;                                                                  \
                }                                                                              \
                memcpy(&pb, &p, sizeof pb);                                                    \
                memcpy(&qb, &q, sizeof qb);                                                    \
                if (q != q) {                                                                  \
                    if (p != p || !(qb & QUIET)) qb |= QUIET; /* y, quieted */                 \
                    else qb = pb;                             /* a number beats a quiet NaN */ \
                } else if (p != p && !(pb & QUIET)) {                                          \
                    qb = pb | QUIET; /* a signalling x beats a number */                       \
                }                                                                              \
                memcpy(&o[i], &qb, sizeof qb);                                                 \
            }                                                                                  \
        }                                                                                      \
    }

#define HEAVISIDE_LOOP(T)                                                                      \
    {                                                                                          \
        const T *a = xb.buf, *b = yb.buf;                                                      \
        T *o = ob.buf;                                                                         \
        for (Py_ssize_t i = 0; i < n; i++) o[i] = a[i] == 0 ? b[i] : a[i] > 0 ? (T)1 : (T)0;   \
    }

/* copysign (code 3): x's magnitude with y's sign bit, NaNs included (bit operations: NumPy's
 * npy_copysign, the C library's); one vector loop (AVX-512 / AVX2 clones) */
ERF_CLONES static void copysign_float(const float *restrict a, const float *restrict b, float *restrict o, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) o[i] = copysignf(a[i], b[i]);
}

ERF_CLONES static void copysign_double(const double *restrict a, const double *restrict b, double *restrict o,
                                       Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) o[i] = copysign(a[i], b[i]);
}

/* numpy.empty_like(x) for a plain ndarray x (the fresh-output entries below: a small op's output
 * made here, without a second Python call for it), the function looked up once; Py_None (a new
 * reference) for x of another class (a memmap's run: the caller's NumPy path, whose np.empty makes
 * a plain array); NULL with the error set */
static PyObject *empty_like_fn = NULL, *ndarray_type = NULL;

static PyObject *empty_like(PyObject *x)
{
    if (empty_like_fn == NULL) {
        PyObject *numpy = PyImport_ImportModule("numpy");
        if (numpy == NULL) return NULL;
        PyObject *fn = PyObject_GetAttrString(numpy, "empty_like");
        ndarray_type = PyObject_GetAttrString(numpy, "ndarray");
        Py_DECREF(numpy);
        if (fn == NULL || ndarray_type == NULL) {
            Py_XDECREF(fn);
            Py_CLEAR(ndarray_type);
            return NULL;
        }
        empty_like_fn = fn;
    }
    if ((PyObject *)Py_TYPE(x) != ndarray_type) Py_RETURN_NONE;
    return PyObject_CallOneArg(empty_like_fn, x);
}

/* relu_fresh(x) -> array | None: relu(x, out) into a fresh numpy.empty_like(x), for an ndarray x that is a
 * C-contiguous, aligned, native float32 / float64 buffer (kernels.elementwise.relu_array's compiled case,
 * its checks here: one call where that function's were a third of a recorded (16, 16) relu); None for
 * any other x (the caller's NumPy formula decides it). */
static PyObject *py_relu_fresh(PyObject *self, PyObject *x)
{
    (void)self;
    PyObject *res = empty_like(x); /* (None: not an ndarray; also initialises ndarray_type) */
    if (res == NULL || res == Py_None) return res;
    Py_buffer src, dst;
    if (PyObject_GetBuffer(x, &src, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        Py_DECREF(res);
        Py_RETURN_NONE;
    }
    int f32 = strcmp(src.format, "f") == 0 && src.itemsize == 4, f64 = strcmp(src.format, "d") == 0 && src.itemsize == 8;
    if (!(f32 || f64) || ((uintptr_t)src.buf % (uintptr_t)src.itemsize) != 0) {
        PyBuffer_Release(&src);
        Py_DECREF(res);
        Py_RETURN_NONE;
    }
    if (PyObject_GetBuffer(res, &dst, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&src);
        Py_DECREF(res);
        return NULL;
    }
    if (strcmp(dst.format, src.format) != 0 || dst.len != src.len) { /* (empty_like keeps both: never) */
        PyBuffer_Release(&src);
        PyBuffer_Release(&dst);
        Py_DECREF(res);
        Py_RETURN_NONE;
    }
    Py_ssize_t n = src.len / src.itemsize;
    if (f32)
        relu_float(src.buf, dst.buf, n);
    else
        relu_double(src.buf, dst.buf, n);
    PyBuffer_Release(&src);
    PyBuffer_Release(&dst);
    return res;
}

static PyObject *py_binary_exact(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Py_buffer xb, yb, ob;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "binary_exact(x, y, out, code) takes 4 arguments, not %zd", nargs);
        return NULL;
    }
    long which = PyLong_AsLong(args[3]);
    if (which == -1 && PyErr_Occurred()) return NULL;
    if (three_buffers(args, &xb, &yb, &ob) < 0) return NULL;
    PyObject *answer = NULL;
    int f32 = strcmp(xb.format, "f") == 0 && xb.itemsize == 4, f64 = strcmp(xb.format, "d") == 0 && xb.itemsize == 8;
    if (yb.len != xb.len || ob.len != xb.len || which < 0 || which > 3) {
        PyErr_Format(PyExc_ValueError, "binary_exact: x, y and out must be buffers of one length, code 0 (fmax), 1 "
                     "(fmin), 2 (heaviside) or 3 (copysign) (%zd, %zd and %zd bytes; code %ld)", xb.len, yb.len, ob.len,
                     which);
    } else if (!(f32 || f64) || strcmp(yb.format, xb.format) != 0 || strcmp(ob.format, xb.format) != 0
               || overlaps(&xb, &ob) || overlaps(&yb, &ob) || !PyBuffer_IsContiguous(&xb, 'C')
               || !PyBuffer_IsContiguous(&yb, 'C') || !PyBuffer_IsContiguous(&ob, 'C')
               || (uintptr_t)xb.buf % xb.itemsize || (uintptr_t)yb.buf % xb.itemsize
               || (uintptr_t)ob.buf % xb.itemsize) {
        answer = Py_False;
    } else {
        Py_ssize_t n = xb.len / xb.itemsize;
        if (which == 3 && f32) copysign_float(xb.buf, yb.buf, ob.buf, n);
        else if (which == 3) copysign_double(xb.buf, yb.buf, ob.buf, n);
        else if (which == 2 && f32) HEAVISIDE_LOOP(float)
        else if (which == 2) HEAVISIDE_LOOP(double)
        else if (f32 && which == 0) EXTREME_LOOP(float, uint32_t, 0x00400000u, >=)
        else if (f32) EXTREME_LOOP(float, uint32_t, 0x00400000u, <=)
        else if (which == 0) EXTREME_LOOP(double, uint64_t, 0x0008000000000000ull, >=)
        else EXTREME_LOOP(double, uint64_t, 0x0008000000000000ull, <=)
        answer = Py_True;
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    PyBuffer_Release(&ob);
    Py_XINCREF(answer);
    return answer;
}
/* binary_exact_fresh(x, y, code) -> array | None: binary_exact into a fresh numpy.empty_like(x)
 * (x and y of one length); None where binary_exact answers False. */
static PyObject *py_binary_exact_fresh(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "binary_exact_fresh(x, y, code) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    PyObject *res = empty_like(args[0]);
    if (res == NULL || res == Py_None) return res;
    PyObject *call[4] = {args[0], args[1], res, args[2]};
    PyObject *ran = py_binary_exact(self, call, 4);
    if (ran != Py_True) {
        Py_DECREF(res);
        if (ran == NULL) return NULL;
        Py_DECREF(ran);
        Py_RETURN_NONE;
    }
    Py_DECREF(ran);
    return res;
}

/* gcd_fresh's loops: PyTorch's calc_gcd (aten/src/ATen/native/Math.h) and lcm kernel, written
 * with C's wrap-around made explicit (unsigned arithmetic: no undefined overflow):
 *   gcd: a = |x|, b = |y| in the dtype (|INT_MIN| wraps to itself), then while (a != 0) {c = a;
 *        a = b % a; b = c;} with C's truncating remainder (x % -1 is 0: the one case a bare %
 *        would trap on);
 *   lcm: g = gcd(x, y); 0 where g == 0, else |x / g * y| in C's int arithmetic (int for the
 *        1- and 2-byte dtypes, whose product then fits; 32 and 64 bits wrapping), cast to the dtype.
 * U is T's unsigned type of the same width (the 1- and 2-byte dtypes compute in int, as C promotes).
 * Where both |x| and |y| are >= 0 (no wrapped minimum) Euclid's answer is the greatest common
 * divisor itself (0 for two zeros), which Stein's binary algorithm finds without a division per
 * step (the remainders' divisions were most of a (16, 16) gcd); the loop runs where one wrapped. */
static inline uint64_t binary_gcd(uint64_t a, uint64_t b)
{
    if (a == 0) return b;
    if (b == 0) return a;
    int shift = __builtin_ctzll(a | b);
    a >>= __builtin_ctzll(a);
    do {
        /* (the smaller and the difference as selects, not a swap behind a branch that mispredicts
         * on random operands: 1M int32 pairs in [0, 8), thread CPU, 8.1 -> 6.6 ms standalone) */
        b >>= __builtin_ctzll(b);
        uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
        a = lo;
        b = hi - lo;
    } while (b != 0);
    return a << shift;
}

#define GCD_LCM_LOOPS(T, U, NAME)                                                                  \
    static inline T NAME##_abs(T v) { return v < 0 ? (T)(U)(0 - (U)v) : v; }                       \
    static inline T NAME##_gcd(T x, T y)                                                           \
    {                                                                                              \
        T a = NAME##_abs(x), b = NAME##_abs(y);                                                    \
        if (a >= 0 && b >= 0) return (T)binary_gcd((uint64_t)a, (uint64_t)b);                     \
        while (a != 0) {                                                                           \
            T c = a;                                                                               \
            a = a == -1 ? 0 : (T)(b % a);                                                          \
            b = c;                                                                                 \
        }                                                                                          \
        return b;                                                                                  \
    }                                                                                              \
    static void NAME##_loop(const T *x, const T *y, T *o, Py_ssize_t n, int lcm)                   \
    {                                                                                              \
        if (!lcm) {                                                                                \
            for (Py_ssize_t i = 0; i < n; i++) o[i] = NAME##_gcd(x[i], y[i]);                      \
            return;                                                                                \
        }                                                                                          \
        for (Py_ssize_t i = 0; i < n; i++) {                                                       \
            T g = NAME##_gcd(x[i], y[i]);                                                          \
            if (g == 0) {                                                                          \
                o[i] = 0;                                                                          \
                continue;                                                                          \
            }                                                                                      \
            T q = g == -1 ? (T)(U)(0 - (U)x[i]) : (T)(x[i] / g); /* (INT_MIN / -1 wraps) */        \
            o[i] = NAME##_abs((T)(U)((U)q * (U)y[i]));                                             \
        }                                                                                          \
    }
GCD_LCM_LOOPS(int32_t, uint32_t, gcd_i32)
GCD_LCM_LOOPS(int64_t, uint64_t, gcd_i64)
#undef GCD_LCM_LOOPS

/* The 1- and 2-byte dtypes: C promotes them to int, where nothing overflows (|x / g * y| <= 2^30):
 * gcd's |x| and remainders in int, each stored back to the dtype (|-128| is -128 in int8, as
 * PyTorch's scalar_t a = abs(a_in)); lcm's product in int, then cast. */
#define GCD_LCM_SMALL(T, NAME)                                                                     \
    static inline T NAME##_gcd(T x, T y)                                                           \
    {                                                                                              \
        T a = (T)abs((int)x), b = (T)abs((int)y);                                                  \
        if (a >= 0 && b >= 0) return (T)binary_gcd((uint64_t)a, (uint64_t)b);                     \
        while (a != 0) {                                                                           \
            T c = a;                                                                               \
            a = (T)((int)b % (int)a);                                                              \
            b = c;                                                                                 \
        }                                                                                          \
        return b;                                                                                  \
    }                                                                                              \
    static void NAME##_loop(const T *x, const T *y, T *o, Py_ssize_t n, int lcm)                   \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) {                                                       \
            T g = NAME##_gcd(x[i], y[i]);                                                          \
            o[i] = !lcm ? g : g == 0 ? (T)0 : (T)abs((int)x[i] / (int)g * (int)y[i]);              \
        }                                                                                          \
    }
GCD_LCM_SMALL(int8_t, gcd_i8)
GCD_LCM_SMALL(uint8_t, gcd_u8)
GCD_LCM_SMALL(int16_t, gcd_i16)
#undef GCD_LCM_SMALL

/* gcd_fresh(x, y, lcm) -> array | None: PyTorch's gcd (lcm false) or lcm of two C-contiguous
 * aligned buffers of one integer format and length (int8 "b", uint8 "B", int16 "h", int32 "i",
 * int64 "l"/"q"; native order) into a fresh numpy.empty_like(x); None for anything else (the
 * caller's formulas run). */
static PyObject *py_gcd_fresh(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "gcd_fresh(x, y, lcm) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    int lcm = PyObject_IsTrue(args[2]);
    if (lcm < 0) return NULL;
    PyObject *res = empty_like(args[0]);
    if (res == NULL || res == Py_None) return res;
    PyObject *call[3] = {args[0], args[1], res};
    Py_buffer xb, yb, ob;
    if (three_buffers(call, &xb, &yb, &ob) < 0) {
        Py_DECREF(res);
        return NULL;
    }
    char f = xb.format[0];
    int kind = f == 'b' ? 1 : f == 'B' ? 2 : f == 'h' ? 3 : f == 'i' ? 4 : f == 'l' || f == 'q' ? 5 : 0;
    static const Py_ssize_t sizes[6] = {0, 1, 1, 2, 4, 8};
    int fits = kind && xb.format[1] == 0 && xb.itemsize == sizes[kind] && strcmp(yb.format, xb.format) == 0
               && strcmp(ob.format, xb.format) == 0 && yb.len == xb.len && ob.len == xb.len
               && PyBuffer_IsContiguous(&xb, 'C') && PyBuffer_IsContiguous(&yb, 'C')
               && !((uintptr_t)xb.buf % xb.itemsize) && !((uintptr_t)yb.buf % xb.itemsize)
               && !((uintptr_t)ob.buf % xb.itemsize);
    if (fits) {
        Py_ssize_t n = xb.len / xb.itemsize;
        if (kind == 1) gcd_i8_loop(xb.buf, yb.buf, ob.buf, n, lcm);
        else if (kind == 2) gcd_u8_loop(xb.buf, yb.buf, ob.buf, n, lcm);
        else if (kind == 3) gcd_i16_loop(xb.buf, yb.buf, ob.buf, n, lcm);
        else if (kind == 4) gcd_i32_loop(xb.buf, yb.buf, ob.buf, n, lcm);
        else gcd_i64_loop(xb.buf, yb.buf, ob.buf, n, lcm);
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    PyBuffer_Release(&ob);
    if (!fits) {
        Py_DECREF(res);
        Py_RETURN_NONE;
    }
    return res;
}
#undef EXTREME_LOOP
#undef EXTREME_BLOCK
#undef HEAVISIDE_LOOP

/* torch_extreme(x, y, out, is_max, row) -> bool: PyTorch's CPU maximum (is_max) / minimum of two
 * C-contiguous buffers of one format ("f" or "d") and length, into a third, bits and all. Its
 * kernel runs over pieces of ``row`` elements (the last one shorter: the rows TensorIterator's
 * parallel split cuts), each piece's whole 64-byte steps in the vectorized loop and the rest in the
 * scalar loop (strided.kernels.torch_extremes): the vectorized loop's tie keeps y (maximum(0.0,
 * -0.0) is -0.0) and its NaN is all ones; the scalar loop's tie keeps x and its NaN is the
 * canonical quiet NaN. False (nothing written) for other buffers, an overlap, misalignment. */
/* (VECTOR_CLONES, the AVX2 copy, not ERF_CLONES' AVX-512 one: a memory-bound pass into a fresh
 * result, measured on Zen 4: 1M float32 ~185 us in 64-byte vectors, ~162 in 32-byte ones, PyTorch's
 * maximum ~212; the same C, so the same words) */
#define TORCH_EXTREME_VEC(T, UT, NAME, CMP)                                                       \
    VECTOR_CLONES static void NAME(const T *restrict a, const T *restrict b, T *restrict o, Py_ssize_t m) \
    {                                                                                             \
        for (Py_ssize_t i = 0; i < m; i++) {                                                      \
            T p = a[i], q = b[i];                                                                 \
            T r = p CMP q ? p : q;                                                                \
            UT rb, nan = (p != p) | (q != q) ? ~(UT)0 : 0;                                        \
            memcpy(&rb, &r, sizeof rb);                                                           \
            rb |= nan;                                                                            \
            memcpy(&o[i], &rb, sizeof rb);                                                        \
        }                                                                                         \
    }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("no-trapping-math")
#endif
TORCH_EXTREME_VEC(float, uint32_t, torch_max_vec_float, >)
TORCH_EXTREME_VEC(float, uint32_t, torch_min_vec_float, <)
TORCH_EXTREME_VEC(double, uint64_t, torch_max_vec_double, >)
TORCH_EXTREME_VEC(double, uint64_t, torch_min_vec_double, <)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
#undef TORCH_EXTREME_VEC

#define TORCH_EXTREME_LOOP(T, UT, CANON, VMAX, VMIN)                                              \
    {                                                                                             \
        const T *a = xb.buf, *b = yb.buf;                                                         \
        T *o = ob.buf;                                                                            \
        const Py_ssize_t step = 64 / (Py_ssize_t)sizeof(T);                                       \
        for (Py_ssize_t s = 0; s < n; s += row) {                                                 \
            Py_ssize_t e = n - s < row ? n : s + row;                                             \
            Py_ssize_t v = s + (e - s) / step * step;                                             \
            if (is_max) VMAX(a + s, b + s, o + s, v - s);                                         \
            else VMIN(a + s, b + s, o + s, v - s);                                                \
            for (Py_ssize_t i = v; i < e; i++) {                                                  \
                T p = a[i], q = b[i];                                                             \
                if (p != p || q != q) {                                                           \
                    UT c = CANON;                                                                 \
                    memcpy(&o[i], &c, sizeof c);                                                  \
                } else if (is_max) {                                                              \
                    o[i] = p < q ? q : p; /* std::max */                                          \
                } else {                                                                          \
                    o[i] = q < p ? q : p; /* std::min */                                          \
                }                                                                                 \
            }                                                                                     \
        }                                                                                         \
    }

/* the loop of torch_extreme over three acquired buffers: 1 where it ran, 0 (nothing written) where
 * the buffers do not fit (not one float format and length, an overlap, not contiguous, misaligned) */
static int torch_extreme_buffers(Py_buffer *xbp, Py_buffer *ybp, Py_buffer *obp, int is_max, Py_ssize_t row)
{
    Py_buffer xb = *xbp, yb = *ybp, ob = *obp;
    int f32 = strcmp(xb.format, "f") == 0 && xb.itemsize == 4, f64 = strcmp(xb.format, "d") == 0 && xb.itemsize == 8;
    if (!((f32 || f64) && yb.len == xb.len && ob.len == xb.len && strcmp(yb.format, xb.format) == 0
        && strcmp(ob.format, xb.format) == 0 && !overlaps(&xb, &ob) && !overlaps(&yb, &ob)
        && PyBuffer_IsContiguous(&xb, 'C') && PyBuffer_IsContiguous(&yb, 'C') && PyBuffer_IsContiguous(&ob, 'C')
        && !((uintptr_t)xb.buf % xb.itemsize) && !((uintptr_t)yb.buf % xb.itemsize)
        && !((uintptr_t)ob.buf % xb.itemsize)))
        return 0;
    Py_ssize_t n = xb.len / xb.itemsize;
    if (f32) TORCH_EXTREME_LOOP(float, uint32_t, 0x7FC00000u, torch_max_vec_float, torch_min_vec_float)
    else TORCH_EXTREME_LOOP(double, uint64_t, 0x7FF8000000000000ull, torch_max_vec_double, torch_min_vec_double)
    return 1;
}

static PyObject *py_torch_extreme(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Py_buffer xb, yb, ob;
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "torch_extreme(x, y, out, is_max, row) takes 5 arguments, not %zd", nargs);
        return NULL;
    }
    int is_max = PyObject_IsTrue(args[3]);
    if (is_max < 0) return NULL;
    Py_ssize_t row = PyLong_AsSsize_t(args[4]);
    if (row == -1 && PyErr_Occurred()) return NULL;
    if (row < 1) {
        PyErr_Format(PyExc_ValueError, "torch_extreme: row must be positive, not %zd", row);
        return NULL;
    }
    if (three_buffers(args, &xb, &yb, &ob) < 0) return NULL;
    PyObject *answer = torch_extreme_buffers(&xb, &yb, &ob, is_max, row) ? Py_True : Py_False;
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

/* torch_extreme_fresh(x, y, is_max) -> array | None: torch_extreme of two 1-D arrays of one length
 * and float format read as one row (the caller's piece: under PyTorch's grain, one row), into a
 * fresh numpy.empty_like(x); None where torch_extreme would answer False. */

static PyObject *py_torch_extreme_fresh(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "torch_extreme_fresh(x, y, is_max) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    int is_max = PyObject_IsTrue(args[2]);
    if (is_max < 0) return NULL;
    Py_buffer xb, yb, ob;
    if (PyObject_GetBuffer(args[0], &xb, PyBUF_STRIDES | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &yb, PyBUF_STRIDES | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&xb);
        return NULL;
    }
    PyObject *res = NULL;
    if (xb.ndim != 1 || yb.ndim != 1 || xb.len == 0) {  /* (an empty row: torch_extreme's caller's own answer) */
        res = Py_None;
        Py_INCREF(res);
        goto done;
    }
    res = empty_like(args[0]);
    if (res == NULL || res == Py_None) goto done;
    if (PyObject_GetBuffer(res, &ob, PyBUF_STRIDES | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        Py_CLEAR(res);
        goto done;
    }
    int ran = torch_extreme_buffers(&xb, &yb, &ob, is_max, xb.len / xb.itemsize);
    PyBuffer_Release(&ob);
    if (!ran) {
        Py_DECREF(res);
        res = Py_None;
        Py_INCREF(res);
    }
done:
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    return res;
}
#undef TORCH_EXTREME_LOOP

/* leaky_relu's loop (unary_exact code 2), defined at the end of the file */
static void leaky_relu_float(const float *a, float *o, Py_ssize_t n, float k);
static void leaky_relu_double(const double *a, double *o, Py_ssize_t n, double k);
#define LEAKY_RELU_float leaky_relu_float
#define LEAKY_RELU_double leaky_relu_double
/* nan_to_num's loop (unary_exact code 1), defined at the end of the file */
static void nan_to_num_float(const float *a, float *o, Py_ssize_t n, float vn, float vp, float vm);
static void nan_to_num_double(const double *a, double *o, Py_ssize_t n, double vn, double vp, double vm);
#define NAN_TO_NUM_float nan_to_num_float
#define NAN_TO_NUM_double nan_to_num_double

/* rsqrt's loop (unary_exact code 3): 1 / sqrt(x), NumPy's two ufuncs' roundings (sqrt, then the
 * quotient), both correctly rounded IEEE operations, so any lane width gives the same bits: by hand
 * (GCC keeps sqrt a call, for errno, in its own loops), eight or four lanes with AVX where the CPU
 * has it (picked once), else SSE2's four or two. */
#define RSQRT_LOOPS(T, VEC, LANES, SET1, LOAD, STORE, SQRT, DIV, SCALAR_SQRT)                     \
    {                                                                                              \
        Py_ssize_t i = 0;                                                                          \
        const VEC one = SET1((T)1);                                                                \
        for (; i + (LANES) <= n; i += (LANES)) STORE(o + i, DIV(one, SQRT(LOAD(a + i))));          \
        for (; i < n; i++) o[i] = (T)1 / SCALAR_SQRT(a[i]);                                         \
    }
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx"))) static void rsqrt_float_avx(const float *a, float *o, Py_ssize_t n)
RSQRT_LOOPS(float, __m256, 8, _mm256_set1_ps, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_sqrt_ps, _mm256_div_ps, sqrtf)
__attribute__((target("avx"))) static void rsqrt_double_avx(const double *a, double *o, Py_ssize_t n)
RSQRT_LOOPS(double, __m256d, 4, _mm256_set1_pd, _mm256_loadu_pd, _mm256_storeu_pd, _mm256_sqrt_pd, _mm256_div_pd, sqrt)
/* (float32 sixteen lanes where the CPU has AVX-512F: 1M ~303 -> ~288 us in a C loop, Zen 4) */
__attribute__((target("avx512f"))) static void rsqrt_float_avx512(const float *a, float *o, Py_ssize_t n)
RSQRT_LOOPS(float, __m512, 16, _mm512_set1_ps, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_sqrt_ps, _mm512_div_ps, sqrtf)

static int has_avx(void)
{
    static int avx = -1;
    if (avx < 0) {
        __builtin_cpu_init();
        avx = __builtin_cpu_supports("avx");
    }
    return avx;
}
#endif

static int has_avx512f_rsqrt(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    static int w = -1;
    if (w < 0) {
        __builtin_cpu_init();
        w = __builtin_cpu_supports("avx512f");
    }
    return w;
#else
    return 0;
#endif
}

/* STRIDED_NATIVE_SPECIAL_ISA=avx2|base (tests only, read at first use): the widest hand-written copy
 * of hardsigmoid's / hardswish's vector loops, of sinc's float32 sine lanes and of the float32
 * fmod / remainder / floor_divide lanes (fmod_family_avx512: AVX-512 or the C loops) that may run, so that
 * an AVX-512 machine also runs the AVX (AVX2 + FMA for sinc) forms, or none of them (the C loops).
 * 2 (unset or anything else): the widest the CPU has; 1: avx2; 0: base. The same bits each way. */
#if defined(__x86_64__) && defined(__GNUC__)
static int special_isa_cap(void)
{
    static int cap = -1;
    if (cap < 0) {
        const char *isa = getenv("STRIDED_NATIVE_SPECIAL_ISA");
        cap = !isa ? 2 : strcmp(isa, "avx2") == 0 ? 1 : strcmp(isa, "base") == 0 ? 0 : 2;
    }
    return cap;
}
#endif

static void rsqrt_float(const float *a, float *o, Py_ssize_t n)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (has_avx512f_rsqrt()) {
        rsqrt_float_avx512(a, o, n);
        return;
    }
    if (has_avx()) {
        rsqrt_float_avx(a, o, n);
        return;
    }
#endif
#if defined(__SSE2__)
    RSQRT_LOOPS(float, __m128, 4, _mm_set1_ps, _mm_loadu_ps, _mm_storeu_ps, _mm_sqrt_ps, _mm_div_ps, sqrtf)
#else
    for (Py_ssize_t i = 0; i < n; i++) o[i] = 1.0f / sqrtf(a[i]);
#endif
}

static void rsqrt_double(const double *a, double *o, Py_ssize_t n)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (has_avx()) {
        rsqrt_double_avx(a, o, n);
        return;
    }
#endif
#if defined(__SSE2__)
    RSQRT_LOOPS(double, __m128d, 2, _mm_set1_pd, _mm_loadu_pd, _mm_storeu_pd, _mm_sqrt_pd, _mm_div_pd, sqrt)
#else
    for (Py_ssize_t i = 0; i < n; i++) o[i] = 1.0 / sqrt(a[i]);
#endif
}
#undef RSQRT_LOOPS
#define RSQRT_float rsqrt_float
#define RSQRT_double rsqrt_double

/* logit's quotient (unary_exact code 4): x / (1 - x), NumPy's subtract and divide, one vector loop;
 * it answers whether some quotient is NaN or negative (x outside [0, 1], or NaN: an or-reduction, which
 * costs ~2% here where a select writing +NaN over negative quotients cost ~9%): the caller then gives
 * those elements PyTorch's NaN bits (strided.ops.elementwise.unary_more._logit_nan_bits) */
#define LOGIT_RATIO(T)                                                                              \
    ERF_CLONES static int logit_ratio_##T(const T *restrict a, T *restrict o, Py_ssize_t n)       \
    {                                                                                              \
        int special = 0;                                                                           \
        for (Py_ssize_t i = 0; i < n; i++) {                                                       \
            T q = a[i] / ((T)1 - a[i]);                                                            \
            special |= !(q >= (T)0);                                                               \
            o[i] = q;                                                                              \
        }                                                                                          \
        return special;                                                                            \
    }
LOGIT_RATIO(float)
LOGIT_RATIO(double)
#undef LOGIT_RATIO
#define LOGIT_RATIO_float logit_ratio_float
#define LOGIT_RATIO_double logit_ratio_double

/* sinc's loop (unary_exact code 5): PyTorch's scalar kernel (sinc_cpu): 1 at 0, else sin(p) / p with
 * p = pi * x in the element type and the C library's sinf / sin (NumPy's float32 sine is its own
 * SIMD approximation, an ulp off glibc's on ~13% of inputs). No clones: the calls stay the C
 * library's scalar ones, as PyTorch's. */
#include "_glibc_sinf.h" /* sinc_float_avx512, sinc_float_avx2, glibc_sinf_ok, glibc_sinf_avx2_ok */

/* A form switch's setter (lanes_form, erf_float32_form): *slot = form (-1: the fast form where the CPU
 * has it, 0: the reference loops; the same bits either way), the previous value returned; any other form is
 * NAME's ValueError. */
static PyObject *swap_form(int *slot, const char *name, PyObject *arg)
{
    long form = PyLong_AsLong(arg);
    if (form == -1 && PyErr_Occurred()) return NULL;
    if (form != -1 && form != 0) {
        PyErr_Format(PyExc_ValueError, "%s: form must be -1 or 0 (got %ld)", name, form);
        return NULL;
    }
    int before = *slot;
    *slot = (int)form;
    return PyLong_FromLong(before);
}

/* -1: the float32 lane forms of sinc (_glibc_sinf.h), logspace (_logspace_f32.h), i0, i1 (_i0_f32.h) and
 * digamma (_digamma_f32.h) where the CPU has them and their first-use checks pass; 0: the scalar loops
 * (py_lanes_form: the tests compare the two) */
static int lanes_form = -1;

static void sinc_float(const float *restrict a, float *restrict o, Py_ssize_t n)
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (lanes_form != 0 && special_isa_cap() >= 2 && glibc_sinf_ok()) { /* (the same bits, ~8x faster) */
        sinc_float_avx512(a, o, n);
        return;
    }
    if (lanes_form != 0 && special_isa_cap() >= 1 && glibc_sinf_avx2_ok()) { /* (the same bits, four lanes twice) */
        sinc_float_avx2(a, o, n);
        return;
    }
#endif
    const float pi = 3.14159265358979323846f;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (a[i] == 0.0f) {
            o[i] = 1.0f;
        } else {
            float p = pi * a[i];
            o[i] = sinf(p) / p;
        }
    }
}

static void sinc_double(const double *restrict a, double *restrict o, Py_ssize_t n)
{
    const double pi = 3.14159265358979323846;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (a[i] == 0.0) {
            o[i] = 1.0;
        } else {
            double p = pi * a[i];
            o[i] = sin(p) / p;
        }
    }
}
#define SINC_float sinc_float
#define SINC_double sinc_double

/* lanes_form(form) -> int: the float32 lane forms' switch from now on (-1: each where the CPU has it and
 * its first-use check passes, 0: the scalar loops; the same bits: the tests run both), the previous
 * one returned */
static PyObject *py_lanes_form(PyObject *self, PyObject *arg)
{
    (void)self;
    return swap_form(&lanes_form, "lanes_form", arg);
}

/* sign's loop (unary_exact code 0): (x > 0) - (x < 0) as the dtype's 1.0 / 0.0, +0.0 for both zeros
 * and NaN: the same values as the element-by-element select, in a form GCC vectorizes (the compares
 * raise no exception the select would not: "no-trapping-math" changes no value); AVX2 where the
 * CPU has it (1M float32: ~90 us against the select's ~200, PyTorch's ~135, thread time). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("no-trapping-math")
#endif
VECTOR_CLONES static void sign_float(const float *restrict a, float *restrict o, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) o[i] = (float)(a[i] > 0) - (float)(a[i] < 0);
}
VECTOR_CLONES static void sign_double(const double *restrict a, double *restrict o, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) o[i] = (double)(a[i] > 0) - (double)(a[i] < 0);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
#define SIGN_float sign_float
#define SIGN_double sign_double

/* The piecewise activations of strided.ops.elementwise.activations_more (unary_exact codes 6-10),
 * NumPy's ufunc sequences there, in one pass: every arithmetic operation the same correctly rounded
 * IEEE operation in the same order, every selection the ufunc's (a NaN kept where NumPy's
 * maximum/minimum/clip keep it, a tie of signed zeros resolved as np.clip resolves it: x kept), the
 * parameters rounded to the dtype first (NumPy's float32(v)). ERF_CLONES' "no-trapping-math" lets
 * the compiler compute both sides of a selection in vector lanes: the same values selected.
 *   code 6, hardsigmoid: min(max(x + 3, 0), 6) / 6;
 *   code 7, hardswish: (x * min(max(x + 3, 0), 6)) / 6;
 *   code 8, hardshrink(l): 0 where |x| <= l, else x (x >= -l && x <= l: the same test, NaN false);
 *   code 9, softshrink(l, st): x - clip(x, -l, l), and x * 0 where that is 0 in the last n % st
 *           elements (every element where st is 0): PyTorch's scalar tail (_scalar_places' slice);
 *   code 10, threshold(th, v): v where x <= th, else x.
 * hardsigmoid and hardswish take (st, half) after: a NaN x in the first n - n % st elements gets the
 * all-ones word, PyTorch's Vectorized maximum's NaN (half: only in the first st / 2 of each block of
 * st; st 0: nowhere), see activations_more._vector_nans. */
/* min(max(x + 3, 0), 6) with NumPy's NaN-keeping maximum / minimum: the two hard rows' clip, of
 * type T through the scratch variable v. A macro, not a function: GCC inlines no function whose
 * optimize attribute differs from its caller's (ERF_CLONES'), and a call per element kept both
 * loops scalar (1M float32 ~1.5-3 ms; vectorized ~0.2 ms). Each bound is written `c > v ? c : v`
 * (`c < v ? c : v`), the form of the x86 maxps / minps (the second operand, v, where either is NaN
 * or both are zeros): one instruction per bound, where `v != v ? v : (v > 0 ? v : 0)` compiled to
 * four compares and three blends (1M float32: 220 -> 145 us, same bits: a NaN v is kept by both
 * forms, and v = x + 3 is never -0, so the zero tie cannot tell them apart). */
#define MAX_KEEP_NAN(c, v) ((c) > (v) ? (c) : (v))
#define MIN_KEEP_NAN(c, v) ((c) < (v) ? (c) : (v))
#define CLIP_X3(T, x, v) (v = (x) + (T)3, v = MAX_KEEP_NAN((T)0, v), MIN_KEEP_NAN((T)6, v))
/* hardsigmoid's and hardswish's vector loops by hand: given CLIP_X3 in C, GCC moves the division
 * by 6 into the selection's arms (v / 6 blended with 1) and so compiles no maxps / minps (1M
 * float32 ~250 us under AVX2; by hand ~180 us, PyTorch's ~175 us). MAX(c, v) / MIN(c, v) are the
 * instructions MAX_KEEP_NAN / MIN_KEEP_NAN stand for (v where either is NaN or both are zeros), the
 * division a true one: the C loop's bits in every lane. Each writes the first n - n % LANES elements,
 * sets *done to that count and answers whether those held a NaN (the C loop takes the rest). */
#define HARD_VEC_LOOP(T, V, LANES, SWISH, SET1, LOAD, STORE, ADD, MUL, DIV, MAX, MIN, ANY_NAN) \
    {                                                                                          \
        const V three = SET1((T)3), zero = SET1((T)0), six = SET1((T)6);                       \
        int any = 0;                                                                           \
        Py_ssize_t i = 0;                                                                      \
        for (; i + (LANES) <= n; i += (LANES)) {                                               \
            V x = LOAD(a + i);                                                                 \
            any |= ANY_NAN(x);                                                                 \
            V c = MIN(six, MAX(zero, ADD(x, three)));                                          \
            STORE(o + i, DIV((SWISH) ? MUL(x, c) : c, six));                                   \
        }                                                                                      \
        *done = i;                                                                             \
        return any != 0;                                                                       \
    }
#if defined(__x86_64__) && defined(__GNUC__)
#define NAN_MASK_PS256(x) _mm256_movemask_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q))
#define NAN_MASK_PD256(x) _mm256_movemask_pd(_mm256_cmp_pd(x, x, _CMP_UNORD_Q))
#define NAN_MASK_PS512(x) (int)_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q)
#define NAN_MASK_PD512(x) (int)_mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q)
#define HARD_VEC(T, ISA, TARGET, V, LANES, SFX, W)                                                  \
    __attribute__((target(TARGET))) static int hard_##T##_##ISA(const T *a, T *o, Py_ssize_t n, int swish, \
                                                              Py_ssize_t *done)                     \
    {                                                                                              \
        if (swish)                                                                                 \
            HARD_VEC_LOOP(T, V, LANES, 1, _mm##W##_set1_##SFX, _mm##W##_loadu_##SFX, _mm##W##_storeu_##SFX, \
                          _mm##W##_add_##SFX, _mm##W##_mul_##SFX, _mm##W##_div_##SFX, _mm##W##_max_##SFX, \
                          _mm##W##_min_##SFX, NAN_MASK_##SFX##W)                                     \
        HARD_VEC_LOOP(T, V, LANES, 0, _mm##W##_set1_##SFX, _mm##W##_loadu_##SFX, _mm##W##_storeu_##SFX, \
                      _mm##W##_add_##SFX, _mm##W##_mul_##SFX, _mm##W##_div_##SFX, _mm##W##_max_##SFX,   \
                      _mm##W##_min_##SFX, NAN_MASK_##SFX##W)                                         \
    }
#define NAN_MASK_ps256 NAN_MASK_PS256
#define NAN_MASK_pd256 NAN_MASK_PD256
#define NAN_MASK_ps512 NAN_MASK_PS512
#define NAN_MASK_pd512 NAN_MASK_PD512
HARD_VEC(float, avx, "avx", __m256, 8, ps, 256)
HARD_VEC(double, avx, "avx", __m256d, 4, pd, 256)
HARD_VEC(float, avx512, "avx512f", __m512, 16, ps, 512)
HARD_VEC(double, avx512, "avx512f", __m512d, 8, pd, 512)
#undef HARD_VEC
#endif
#undef HARD_VEC_LOOP
/* the widest of those loops the CPU runs (AVX-512F, else AVX; at most special_isa_cap's), *done 0 and
 * no NaN where none */
#define HARD_VEC_PICK(T)                                                                           \
    static int hard_vec_##T(const T *a, T *o, Py_ssize_t n, int swish, Py_ssize_t *done)           \
    {                                                                                              \
        *done = 0;                                                                                 \
        HARD_VEC_CALLS(T)                                                                          \
        return 0;                                                                                  \
    }
#if defined(__x86_64__) && defined(__GNUC__)
#define HARD_VEC_CALLS(T)                                                                          \
    if (special_isa_cap() >= 2 && has_avx512f_rsqrt()) return hard_##T##_avx512(a, o, n, swish, done); \
    if (special_isa_cap() >= 1 && has_avx()) return hard_##T##_avx(a, o, n, swish, done);
#else
#define HARD_VEC_CALLS(T) (void)a; (void)o; (void)n; (void)swish;
#endif
HARD_VEC_PICK(float)
HARD_VEC_PICK(double)
#undef HARD_VEC_PICK
#undef HARD_VEC_CALLS
#define PIECEWISE_ACT(T)                                                                           \
    /* (any: the pass's own NaN flag over the whole run, an or-reduction fused into it: no second \
       pass over x in the common case; the rare NaN input takes the blocks) */                     \
    static void lane_nans_##T(const T *restrict a, T *restrict o, Py_ssize_t n, Py_ssize_t st, int half, int any) \
    {                                                                                              \
        if (st <= 0 || !any) return;                                                               \
        T ones;                                                                                    \
        memset(&ones, 0xFF, sizeof ones);                                                          \
        Py_ssize_t w = half ? st / 2 : st;                                                         \
        for (Py_ssize_t b = 0; b + st <= n; b += st)                                               \
            for (Py_ssize_t j = b; j < b + w; j++) o[j] = a[j] != a[j] ? ones : o[j];              \
    }                                                                                              \
    /* (both answer whether x holds a NaN: lane_nans' flag) */                                  \
    ERF_CLONES static int hardsigmoid_run_##T(const T *restrict a, T *restrict o, Py_ssize_t n)    \
    {                                                                                              \
        int any = 0;                                                                               \
        for (Py_ssize_t i = 0; i < n; i++) {                                                       \
            T v;                                                                                   \
            any |= a[i] != a[i];                                                                   \
            o[i] = CLIP_X3(T, a[i], v) / (T)6;                                                     \
        }                                                                                          \
        return any;                                                                                \
    }                                                                                              \
    ERF_CLONES static int hardswish_run_##T(const T *restrict a, T *restrict o, Py_ssize_t n)      \
    {                                                                                              \
        int any = 0;                                                                               \
        for (Py_ssize_t i = 0; i < n; i++) {                                                       \
            T v;                                                                                   \
            any |= a[i] != a[i];                                                                   \
            T p = a[i] * CLIP_X3(T, a[i], v);                                                      \
            o[i] = p / (T)6;                                                                       \
        }                                                                                          \
        return any;                                                                                \
    }                                                                                              \
    /* (the vector loop where the CPU has one, this C loop on the rest) */                       \
    static int hardsigmoid_##T(const T *a, T *o, Py_ssize_t n)                                     \
    {                                                                                              \
        Py_ssize_t i;                                                                              \
        int any = hard_vec_##T(a, o, n, 0, &i);                                                    \
        return hardsigmoid_run_##T(a + i, o + i, n - i) | any;                                     \
    }                                                                                              \
    static int hardswish_##T(const T *a, T *o, Py_ssize_t n)                                       \
    {                                                                                              \
        Py_ssize_t i;                                                                              \
        int any = hard_vec_##T(a, o, n, 1, &i);                                                    \
        return hardswish_run_##T(a + i, o + i, n - i) | any;                                      \
    }                                                                                              \
    ERF_CLONES static void hardshrink_##T(const T *restrict a, T *restrict o, Py_ssize_t n, T l)   \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) o[i] = (a[i] >= -l && a[i] <= l) ? (T)0 : a[i];         \
    }                                                                                              \
    ERF_CLONES static void softshrink_run_##T(const T *restrict a, T *restrict o, Py_ssize_t n, T l) \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) {                                                       \
            T x = a[i];                                                                            \
            /* (np.clip(x, -l, l): x where NaN or at a bound, as maxps / minps keep it: see CLIP_X3) */ \
            T c = MIN_KEEP_NAN(l, MAX_KEEP_NAN(-l, x));                                            \
            o[i] = x - c;                                                                          \
        }                                                                                          \
    }                                                                                              \
    static void softshrink_##T(const T *a, T *o, Py_ssize_t n, T l, Py_ssize_t st)                 \
    {                                                                                              \
        softshrink_run_##T(a, o, n, l);                                                            \
        for (Py_ssize_t i = st > 0 ? n - n % st : 0; i < n; i++)                                   \
            if (o[i] == 0) o[i] = a[i] * (T)0;                                                     \
    }                                                                                              \
    ERF_CLONES static void threshold_##T(const T *restrict a, T *restrict o, Py_ssize_t n, T th, T v) \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) o[i] = a[i] <= th ? v : a[i];                           \
    }
PIECEWISE_ACT(float)
PIECEWISE_ACT(double)
#undef PIECEWISE_ACT
#undef CLIP_X3
#undef MAX_KEEP_NAN
#undef MIN_KEEP_NAN

/* code 11, elu's selection (pos, neg): o = x > 0 ? x * pos : o * neg, o holding expm1 of x's
 * scaled values on entry (selu's and celu's NumPy forward: the products e * neg and x * pos, then
 * where(x > 0, ...): the same IEEE products, each element's selected one). */
#define ELU_SELECT(T)                                                                              \
    ERF_CLONES static void elu_select_##T(const T *restrict a, T *restrict o, Py_ssize_t n, T pos, T neg) \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) o[i] = a[i] > (T)0 ? a[i] * pos : o[i] * neg;           \
    }
ELU_SELECT(float)
ELU_SELECT(double)
#undef ELU_SELECT

/* unary_exact(x, out, code[, params...]) -> bool: an exact elementwise op (no rounding
 * beyond the dtype's own) of a C-contiguous, aligned, native float32 ("f") or float64 ("d") buffer
 * into another of the same format and length, one pass, the bits of the NumPy kernels of
 * strided.ops.elementwise.unary_more:
 *   code 0, sign: 1.0 where x > 0, -1.0 where x < 0, else +0.0 (both zeros and NaN), as
 *           PyTorch's (0 < x) - (x < 0);
 *   code 1, nan_to_num: NaN -> nan, +inf -> posinf, -inf -> neginf (three Python floats,
 *           rounded to the dtype as NumPy's float32(v) rounds them), every other element copied;
 *   code 2, leaky_relu: x where x > 0, else x * k (k, a Python float, rounded to the dtype first,
 *           as NumPy's weak scalar; a signalling NaN comes out of the product quieted, as PyTorch's);
 *   code 3, rsqrt: 1 / sqrt(x), each rounded (NumPy's sqrt then divide: the same IEEE operations);
 *   code 4, logit's quotient: x / (1 - x), each rounded (its log is NumPy's, after); it answers
 *           the int 2 instead of True where some quotient is NaN or negative (see logit_ratio_float);
 *   code 5, sinc: PyTorch's sinc_cpu with the C library's sine (see sinc_float).
 *   codes 6-10, hardsigmoid(st, half), hardswish(st, half), hardshrink(l), softshrink(l, st), threshold(th, v): see
 *           PIECEWISE_ACT above; code 11, elu's selection (pos, neg), out read and written: see ELU_SELECT.
 * False (nothing written) where the buffers are not of that kind or overlap. */
#define UNARY_EXACT_LOOP(T)                                                                    \
    {                                                                                          \
        const T *a = xb.buf;                                                                   \
        T *o = ob.buf;                                                                         \
        if (code == 0) {                                                                       \
            SIGN_##T(a, o, n); /* (vectorized: see sign_float) */                              \
        } else if (code == 2) {                                                                \
            LEAKY_RELU_##T(a, o, n, (T)p[0]); /* (vectorized: see leaky_relu_float) */          \
        } else if (code == 3) {                                                                \
            RSQRT_##T(a, o, n);                                                                \
        } else if (code == 4) {                                                                \
            special = LOGIT_RATIO_##T(a, o, n);                                                \
        } else if (code == 5) {                                                                \
            SINC_##T(a, o, n);                                                                 \
        } else if (code == 6) {                                                                \
            int any = hardsigmoid_##T(a, o, n);                                                \
            lane_nans_##T(a, o, n, (Py_ssize_t)p[0], p[1] != 0, any);                          \
        } else if (code == 7) {                                                                \
            int any = hardswish_##T(a, o, n);                                                  \
            lane_nans_##T(a, o, n, (Py_ssize_t)p[0], p[1] != 0, any);                          \
        } else if (code == 8) {                                                                \
            hardshrink_##T(a, o, n, (T)p[0]);                                                  \
        } else if (code == 9) {                                                                \
            softshrink_##T(a, o, n, (T)p[0], (Py_ssize_t)p[1]);                                \
        } else if (code == 10) {                                                               \
            threshold_##T(a, o, n, (T)p[0], (T)p[1]);                                          \
        } else if (code == 11) {                                                               \
            elu_select_##T(a, o, n, (T)p[0], (T)p[1]);                                         \
        } else {                                                                               \
            NAN_TO_NUM_##T(a, o, n, (T)p[0], (T)p[1], (T)p[2]); /* (vectorized: see there) */  \
        }                                                                                      \
    }

/* x and out (in_out_buffers') of one format and length, C-contiguous, aligned to their elements,
 * apart (the caller has checked x's format is float32 or float64) */
static int float_twins(const Py_buffer *xb, const Py_buffer *ob)
{
    return strcmp(ob->format, xb->format) == 0 && ob->len == xb->len && !overlaps(xb, ob)
        && PyBuffer_IsContiguous(xb, 'C') && PyBuffer_IsContiguous(ob, 'C')
        && !((uintptr_t)xb->buf % xb->itemsize) && !((uintptr_t)ob->buf % xb->itemsize);
}

/* log_sigmoid_run(x, out[, form]) -> bool: PyTorch's float32 / float64 log_sigmoid forward of x into out
 * (_sleef_log1p.h: min(x, 0) - log1p(exp(-|x|)) with SLEEF's exp and log1p at every element, as
 * log_sigmoid_cpu_kernel's vectorized loop and its partial-vector tail take them under AVX2 and
 * AVX512; the caller runs NumPy's forward under ATen's DEFAULT capability). False (nothing
 * written): not C-contiguous aligned native float32 / float64 buffers of one format and length, or
 * an overlap, or form 1 (the AVX-512 form; 0: the one-lane form, -1: AVX-512 where the CPU has
 * AVX512F, else float32's AVX2 form where the CPU has AVX2 and FMA; 2: that AVX2 form, float64 the
 * one-lane form) on a CPU without it. */
#include "_sleef_log1p.h"

/* log_sigmoid_run's form (0, 1, 2 or -1) as the loop to take: 0 the one-lane loops, 1 the AVX-512
 * ones, 2 float32's AVX2 one (float64: one-lane); -1 (with nothing set) where the form asks for a
 * loop this CPU lacks. */
static int log_sigmoid_loop(long form)
{
    int wide = form == 0 ? 0 : has_avx512f_rsqrt();
    if (form == 1 && !wide) return -1;
#if defined(__GNUC__) && defined(__x86_64__)
    int avx2 = (form == -1 || form == 2) && !wide && hardware_fma();  /* (form 2: the AVX2 form, float32) */
#else
    int avx2 = 0;
#endif
    if (form == 2 && !avx2) return -1;
    return wide ? 1 : avx2 ? 2 : 0;
}

/* log_sigmoid of n elements by log_sigmoid_loop's loop (f32: float32, else float64); no GIL needed */
static void log_sigmoid_by(int loop, int f32, const void *x, void *out, Py_ssize_t n)
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (loop == 1 && f32) log_sigmoid_f32_wide((const float *)x, (float *)out, n);
    else if (loop == 1) log_sigmoid_f64_wide((const double *)x, (double *)out, n);
    else if (loop == 2 && f32) log_sigmoid_f32_avx2((const float *)x, (float *)out, n);
    else
#endif
    if (f32) log_sigmoid_f32((const float *)x, (float *)out, n);
    else log_sigmoid_f64((const double *)x, (double *)out, n);
}

static PyObject *py_log_sigmoid_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Py_buffer xb, ob;
    if (nargs != 2 && nargs != 3) {
        PyErr_Format(PyExc_TypeError, "log_sigmoid_run(x, out[, form]) takes 2 or 3 arguments, not %zd", nargs);
        return NULL;
    }
    long form = nargs == 3 ? PyLong_AsLong(args[2]) : -1;
    if (form == -1 && PyErr_Occurred()) return NULL;
    int loop = log_sigmoid_loop(form);
    if (loop < 0) Py_RETURN_FALSE;
    if (in_out_buffers(args[0], args[1], &xb, &ob) < 0) return NULL;
    PyObject *answer = Py_False;
    int f32 = strcmp(xb.format, "f") == 0 && xb.itemsize == 4, f64 = strcmp(xb.format, "d") == 0 && xb.itemsize == 8;
    if ((f32 || f64) && float_twins(&xb, &ob)) {
        Py_ssize_t n = xb.len / xb.itemsize;
        Py_BEGIN_ALLOW_THREADS
        log_sigmoid_by(loop, f32, xb.buf, ob.buf, n);
        Py_END_ALLOW_THREADS
        answer = Py_True;
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

/* bce_logits_run(x, y, out) -> bool: binary_cross_entropy_with_logits' per-element loss, PyTorch's
 * steps (1 - y) * x - log_sigmoid(x) in one call: log_sigmoid_run's default form into out, then per
 * element the three IEEE operations in that order (no contraction: -ffp-contract=off), where
 * log_sigmoid is NaN (a NaN x) its own NaN word (PyTorch's sub_, a fused multiply-add of that
 * operand, keeps it; NumPy's difference would keep the first operand's). The bits of losses.py's
 * NumPy steps over log_sigmoid_run. False (nothing written): not three C-contiguous aligned native
 * float32 / float64 buffers of one format and length, out apart from x and y. */
#define BCE_LOGITS_TAIL(T)                                                                         \
    static void bce_logits_tail_##T(const T *restrict x, const T *restrict y, T *restrict o, Py_ssize_t n) \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) {                                                       \
            T ls = o[i], p = ((T)1 - y[i]) * x[i];                                                 \
            o[i] = ls != ls ? ls : p - ls;                                                         \
        }                                                                                          \
    }
BCE_LOGITS_TAIL(float)
BCE_LOGITS_TAIL(double)
#undef BCE_LOGITS_TAIL

static PyObject *py_bce_logits_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Py_buffer xb, yb, ob;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "bce_logits_run(x, y, out) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    int loop = log_sigmoid_loop(-1);
    if (three_buffers(args, &xb, &yb, &ob) < 0) return NULL;
    PyObject *answer = Py_False;
    int f32 = strcmp(xb.format, "f") == 0 && xb.itemsize == 4, f64 = strcmp(xb.format, "d") == 0 && xb.itemsize == 8;
    if ((f32 || f64) && float_twins(&xb, &ob) && float_twins(&yb, &ob)) {
        Py_ssize_t n = xb.len / xb.itemsize;
        Py_BEGIN_ALLOW_THREADS
        log_sigmoid_by(loop, f32, xb.buf, ob.buf, n);
        if (f32) bce_logits_tail_float((const float *)xb.buf, (const float *)yb.buf, (float *)ob.buf, n);
        else bce_logits_tail_double((const double *)xb.buf, (const double *)yb.buf, (double *)ob.buf, n);
        Py_END_ALLOW_THREADS
        answer = Py_True;
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

static PyObject *py_unary_exact(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Py_buffer xb, ob;
    double p[3] = {0.0, 0.0, 0.0};
    if (nargs < 3) {
        PyErr_Format(PyExc_TypeError, "unary_exact(x, out, code, *params) takes at least 3 arguments, not %zd", nargs);
        return NULL;
    }
    long code = PyLong_AsLong(args[2]);
    if (code == -1 && PyErr_Occurred()) return NULL;
    if (code < 0 || code > 11) {
        PyErr_Format(PyExc_ValueError, "unary_exact: code must be 0 (sign), 1 (nan_to_num), 2 (leaky_relu), 3 "
                     "(rsqrt), 4 (logit's quotient), 5 (sinc), 6 (hardsigmoid), 7 (hardswish), 8 (hardshrink), "
                     "9 (softshrink), 10 (threshold) or 11 (elu's selection), not %ld", code);
        return NULL;
    }
    static const Py_ssize_t n_params[12] = {0, 3, 1, 0, 0, 0, 2, 2, 1, 2, 2, 2};
    if (nargs != 3 + n_params[code]) {
        PyErr_Format(PyExc_TypeError, "unary_exact: code %ld takes %zd parameters after x, out and code, not %zd", code,
                     n_params[code], nargs - 3);
        return NULL;
    }
    for (Py_ssize_t k = 3; k < nargs; k++) {
        p[k - 3] = PyFloat_AsDouble(args[k]);
        if (p[k - 3] == -1.0 && PyErr_Occurred()) return NULL;
    }
    if (in_out_buffers(args[0], args[1], &xb, &ob) < 0) return NULL;
    PyObject *answer = Py_False;
    int f32 = strcmp(xb.format, "f") == 0 && xb.itemsize == 4, f64 = strcmp(xb.format, "d") == 0 && xb.itemsize == 8;
    if ((f32 || f64) && float_twins(&xb, &ob)) {
        Py_ssize_t n = xb.len / xb.itemsize;
        int special = 0;
        if (f32) UNARY_EXACT_LOOP(float)
        else UNARY_EXACT_LOOP(double)
        answer = Py_True;
        if (special) {
            PyBuffer_Release(&xb);
            PyBuffer_Release(&ob);
            return PyLong_FromLong(2);
        }
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}
#undef UNARY_EXACT_LOOP

/* pair_loss(x, y, out, code, param) -> bool: the per-element loss of two C-contiguous, aligned,
 * native float32 ("f") or float64 ("d") buffers of one format and length into a third, one pass, the
 * bits of the losses' NumPy fresh paths (strided.nn.functional: _huber_fresh, _smooth_l1_fresh),
 * each Python float NumPy's weak scalar (rounded to the dtype first), the same IEEE operations in the
 * same order and operand order (x - y: the first operand's NaN), np.where's selection of values both
 * computed (ERF_CLONES' "no-trapping-math": the compiler computes both sides in vector lanes):
 *   code 0, huber (delta): d = x - y, z = |d|, z < delta ? (d * 0.5) * d : (z - 0.5 delta) * delta;
 *   code 1, smooth_l1 (beta): d = |x - y|, d < beta ? ((0.5 * d) * d) / (beta or 1) : d - 0.5 beta;
 *   code 2, mse (param unused): d = x - y, d * d.
 * False (nothing written) where the buffers are not of that kind or out overlaps x or y. Seven
 * NumPy passes (five temporaries) were ~4-5 ms at 1M float32 against PyTorch's ~1.2 ms. */
#define PAIR_LOSS(T, ABS)                                                                          \
    ERF_CLONES static void huber_##T(const T *restrict x, const T *restrict y, T *restrict o,      \
                                     Py_ssize_t n, T dl, T hd)                                     \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) {                                                       \
            T d = x[i] - y[i];                                                                     \
            T z = ABS(d);                                                                          \
            T sq = (d * (T)0.5) * d;                                                               \
            T lin = (z - hd) * dl;                                                                 \
            o[i] = z < dl ? sq : lin;                                                              \
        }                                                                                          \
    }                                                                                              \
    ERF_CLONES static void smooth_l1_##T(const T *restrict x, const T *restrict y, T *restrict o,  \
                                         Py_ssize_t n, T b, T div, T hb)                           \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) {                                                       \
            T d = ABS(x[i] - y[i]);                                                                \
            T sq = (((T)0.5 * d) * d) / div;                                                       \
            T lin = d - hb;                                                                        \
            o[i] = d < b ? sq : lin;                                                               \
        }                                                                                          \
    }                                                                                              \
    ERF_CLONES static void mse_##T(const T *restrict x, const T *restrict y, T *restrict o, Py_ssize_t n) \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) {                                                       \
            T d = x[i] - y[i];                                                                     \
            o[i] = d * d;                                                                          \
        }                                                                                          \
    }
PAIR_LOSS(float, fabsf)
PAIR_LOSS(double, fabs)
#undef PAIR_LOSS

static PyObject *py_pair_loss(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "pair_loss(x, y, out, code, param) takes 5 arguments, not %zd", nargs);
        return NULL;
    }
    long code = PyLong_AsLong(args[3]);
    if (code == -1 && PyErr_Occurred()) return NULL;
    if (code < 0 || code > 2) {
        PyErr_Format(PyExc_ValueError, "pair_loss: code must be 0 (huber), 1 (smooth_l1) or 2 (mse), not %ld", code);
        return NULL;
    }
    double p = PyFloat_AsDouble(args[4]);
    if (p == -1.0 && PyErr_Occurred()) return NULL;
    Py_buffer xb, yb, ob;
    if (in_out_buffers(args[0], args[2], &xb, &ob) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &yb, PyBUF_STRIDES | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&xb);
        PyBuffer_Release(&ob);
        return NULL;
    }
    PyObject *answer = Py_False;
    int f32 = strcmp(xb.format, "f") == 0 && xb.itemsize == 4, f64 = strcmp(xb.format, "d") == 0 && xb.itemsize == 8;
    if ((f32 || f64) && float_twins(&xb, &ob) && float_twins(&yb, &ob)) {
        Py_ssize_t n = xb.len / xb.itemsize;
        /* (the weak scalars: delta / beta and 0.5 * delta / 0.5 * beta as Python computes them, then the dtype's) */
        double div = p != 0.0 ? p : 1.0;
        if (code == 2 && f32) mse_float(xb.buf, yb.buf, ob.buf, n);
        else if (code == 2) mse_double(xb.buf, yb.buf, ob.buf, n);
        else if (f32 && code == 0) huber_float(xb.buf, yb.buf, ob.buf, n, (float)p, (float)(0.5 * p));
        else if (code == 0) huber_double(xb.buf, yb.buf, ob.buf, n, p, 0.5 * p);
        else if (f32) smooth_l1_float(xb.buf, yb.buf, ob.buf, n, (float)p, (float)div, (float)(0.5 * p));
        else smooth_l1_double(xb.buf, yb.buf, ob.buf, n, p, div, 0.5 * p);
        answer = Py_True;
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

/* div_rows(x, d, out) -> bool: out[i, j] = x[i, j] / d[i] over C-contiguous, aligned, native
 * float32 ("f") or float64 ("d") buffers, x and out of one format and length, d of that format with
 * one element per row (its length divides x's: the row length): NumPy's x / d.reshape(-1, 1), each
 * quotient IEEE's (the same bits), in one pass. NumPy's broadcast division takes ~2x its division by
 * one scalar (1M float32 ~300 us against ~155; F.normalize's second step). False (nothing written)
 * where the buffers are not of that kind, d is empty while x is not, or out overlaps x or d. */
#define DIV_ROWS(T)                                                                                \
    ERF_CLONES static void div_rows_##T(const T *restrict x, const T *restrict d, T *restrict o,   \
                                        Py_ssize_t rows, Py_ssize_t m)                             \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < rows; i++) {                                                    \
            const T q = d[i];                                                                      \
            const T *restrict xr = x + i * m;                                                      \
            T *restrict orow = o + i * m;                                                          \
            for (Py_ssize_t j = 0; j < m; j++) orow[j] = xr[j] / q;                                \
        }                                                                                          \
    }
DIV_ROWS(float)
DIV_ROWS(double)
#undef DIV_ROWS

static PyObject *py_div_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "div_rows(x, d, out) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    Py_buffer xb, db, ob;
    if (in_out_buffers(args[0], args[2], &xb, &ob) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &db, PyBUF_STRIDES | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&xb);
        PyBuffer_Release(&ob);
        return NULL;
    }
    PyObject *answer = Py_False;
    int f32 = strcmp(xb.format, "f") == 0 && xb.itemsize == 4, f64 = strcmp(xb.format, "d") == 0 && xb.itemsize == 8;
    Py_ssize_t n = xb.itemsize ? xb.len / xb.itemsize : 0, rows = db.itemsize ? db.len / db.itemsize : 0;
    if ((f32 || f64) && float_twins(&xb, &ob) && strcmp(db.format, xb.format) == 0 && db.itemsize == xb.itemsize
        && PyBuffer_IsContiguous(&db, 'C') && !((uintptr_t)db.buf % db.itemsize) && !overlaps(&db, &ob)
        && (rows ? n % rows == 0 : n == 0)) {
        Py_ssize_t m = rows ? n / rows : 0;
        if (f32) div_rows_float(xb.buf, db.buf, ob.buf, rows, m);
        else div_rows_double(xb.buf, db.buf, ob.buf, rows, m);
        answer = Py_True;
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&db);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

/* activation_inplace's loops: leaky_relu written over its input (one pointer: the element is read,
 * then its result stored, the same IEEE product and selection as leaky_relu_float's), and elu's
 * test that every element is > 0 (where elu(x) is x itself for any alpha: nothing to write; NaN
 * fails it). */
#define ACT_INPLACE(T)                                                                             \
    ERF_CLONES static void leaky_relu_inplace_##T(T *x, Py_ssize_t n, T k)                         \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) x[i] = x[i] > 0 ? x[i] : x[i] * k;                      \
    }                                                                                              \
    /* (blocks of 256 counted, a count the compiler vectorises: a test that stops at the first \
       failing element is a scalar loop, 1M float32 ~150 us against ~40) */                        \
    ERF_CLONES static int all_positive_##T(const T *x, Py_ssize_t n)                               \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i += 256) {                                                  \
            Py_ssize_t end = i + 256 < n ? i + 256 : n;                                            \
            int count = 0;                                                                         \
            for (Py_ssize_t j = i; j < end; j++) count += x[j] > 0;                                \
            if (count != end - i) return 0;                                                        \
        }                                                                                          \
        return 1;                                                                                  \
    }
ACT_INPLACE(float)
ACT_INPLACE(double)
#undef ACT_INPLACE

/* relu written over its input (one pointer: each element read, then its result stored): relu_float's
 * compare and select, so the same bits (-0.0 and every NaN kept as they are). */
#define RELU_INPLACE(T)                                                                            \
    ERF_CLONES static void relu_inplace_##T(T *x, Py_ssize_t n)                                    \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) x[i] = x[i] < 0 ? (T)0 : x[i];                          \
    }
RELU_INPLACE(float)
RELU_INPLACE(double)
#undef RELU_INPLACE

/* activation_inplace(arr, start, n, code, param) -> bool | None: an in-place activation of the n elements
 * arr[start:start + n] of a 1-D, C-contiguous, aligned, writable, native float32 ("f") or float64
 * ("d") buffer (a storage's array: the slice is taken here, not in Python):
 *   code 0, leaky_relu with slope param (rounded to the dtype first, as unary_exact's code 2): the
 *           elements written, True;
 *   code 1, elu: True where every element is > 0 (elu leaves them as they are, whatever alpha:
 *           nothing written), False otherwise (nothing written: the caller computes it);
 *   code 2, relu (param unused): relu_inplace, the elements written, True (relu_kernel's in-place
 *           write of a row-major or permuted dense tensor: the in-place capsule's op 0).
 * None (nothing written) where the buffer is not of that kind or the run falls outside it. */
static PyObject *py_activation_inplace(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "activation_inplace(arr, start, n, code, param) takes 5 arguments, not %zd",
                     nargs);
        return NULL;
    }
    Py_ssize_t start = PyLong_AsSsize_t(args[1]), n = PyLong_AsSsize_t(args[2]);
    long code = PyLong_AsLong(args[3]);
    double k = PyFloat_AsDouble(args[4]);
    if (PyErr_Occurred()) return NULL;
    if (code < 0 || code > 2) {
        PyErr_Format(PyExc_ValueError, "activation_inplace: code must be 0 (leaky_relu), 1 (elu) or 2 (relu), not %ld",
                     code);
        return NULL;
    }
    Py_buffer xb;
    if (PyObject_GetBuffer(args[0], &xb, PyBUF_STRIDES | PyBUF_FORMAT) < 0) return NULL;
    PyObject *answer = Py_None;
    int f32 = strcmp(xb.format, "f") == 0 && xb.itemsize == 4, f64 = strcmp(xb.format, "d") == 0 && xb.itemsize == 8;
    if ((f32 || f64) && !xb.readonly && xb.ndim == 1 && PyBuffer_IsContiguous(&xb, 'C')
        && !((uintptr_t)xb.buf % xb.itemsize) && start >= 0 && n >= 0 && start <= xb.len / xb.itemsize - n) {
        int all = 1;
        if (f32) {
            float *x = (float *)xb.buf + start;
            if (code == 0) {
                if (n >= MIN_RELEASE) {
                    Py_BEGIN_ALLOW_THREADS leaky_relu_inplace_float(x, n, (float)k);
                    Py_END_ALLOW_THREADS
                } else
                    leaky_relu_inplace_float(x, n, (float)k);
            } else if (code == 2) {
                if (n >= MIN_RELEASE) {
                    Py_BEGIN_ALLOW_THREADS relu_inplace_float(x, n);
                    Py_END_ALLOW_THREADS
                } else
                    relu_inplace_float(x, n);
            } else
                all = all_positive_float(x, n);
        } else {
            double *x = (double *)xb.buf + start;
            if (code == 0) {
                if (n >= MIN_RELEASE) {
                    Py_BEGIN_ALLOW_THREADS leaky_relu_inplace_double(x, n, k);
                    Py_END_ALLOW_THREADS
                } else
                    leaky_relu_inplace_double(x, n, k);
            } else if (code == 2) {
                if (n >= MIN_RELEASE) {
                    Py_BEGIN_ALLOW_THREADS relu_inplace_double(x, n);
                    Py_END_ALLOW_THREADS
                } else
                    relu_inplace_double(x, n);
            } else
                all = all_positive_double(x, n);
        }
        answer = all ? Py_True : Py_False;
    }
    PyBuffer_Release(&xb);
    Py_INCREF(answer);
    return answer;
}


/* threshold written over its input: unary_exact's code 10 (threshold_float) with one pointer (its
 * restrict pair cannot alias), the same compare and select: v where x <= th, else x (NaN kept). */
#define THRESHOLD_INPLACE(T)                                                                       \
    ERF_CLONES static void threshold_inplace_##T(T *x, Py_ssize_t n, T th, T v)                    \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) x[i] = x[i] <= th ? v : x[i];                           \
    }
THRESHOLD_INPLACE(float)
THRESHOLD_INPLACE(double)
#undef THRESHOLD_INPLACE

/* The "strided.inplace" capsule's function (kernels/_front.h, entry_inplace): op's values written
 * over the n elements x of kind 'f' (float32) or 'd' (float64), aligned, given the np parameters p:
 *   op 0, relu (no parameter): relu_inplace, relu's bits;
 *   op 1, rrelu in evaluation mode (p: lower, upper): leaky_relu with the slope (lower + upper) / 2
 *         (in double, as strided.ops.elementwise.activations_more._slope), rounded to the dtype
 *         (activation_inplace's code 0: the general path's leaky_relu bits); refused where
 *         lower > upper, the slope is not finite, or beyond float32's range for float32 (the
 *         forward's errors);
 *   op 2, threshold (p: threshold, value): v where x <= th, else x, both rounded to the dtype once
 *         (activations_more._c); refused for float32 where either is beyond float32's finite range
 *         or NaN (the forward's overflow error, or its own rounding of inf / NaN);
 *   op 3, leaky_relu (p: negative_slope): activation_inplace's code 0 (the slope rounded to the
 *         dtype, the general path's leaky_relu bits); refused for float32 where the slope is beyond
 *         float32's finite range or NaN (leaky_relu_'s fast path declines those too: the forward).
 * 1 written, 0 refused (nothing written); the GIL released from MIN_RELEASE elements on. ival: unused. */
static int special_inplace(int op, int kind, void *x, Py_ssize_t n, const double *p, Py_ssize_t np_, Py_ssize_t ival)
{
    (void)ival;
    if (op == 0 && np_ == 0) {
        PyThreadState *save = n >= MIN_RELEASE ? PyEval_SaveThread() : NULL; /* (the caller holds the buffer) */
        if (kind == 'f')
            relu_inplace_float((float *)x, n);
        else
            relu_inplace_double((double *)x, n);
        if (save != NULL)
            PyEval_RestoreThread(save);
        return 1;
    }
    if (op == 1 && np_ == 2) {
        if (!(p[0] <= p[1]))
            return 0;
        double slope = (p[0] + p[1]) / 2;
        if (!isfinite(slope) || (kind == 'f' && fabs(slope) > FLT_MAX))
            return 0;
        PyThreadState *save = n >= MIN_RELEASE ? PyEval_SaveThread() : NULL;
        if (kind == 'f')
            leaky_relu_inplace_float((float *)x, n, (float)slope);
        else
            leaky_relu_inplace_double((double *)x, n, slope);
        if (save != NULL)
            PyEval_RestoreThread(save);
        return 1;
    }
    if (op == 2 && np_ == 2) {
        if (kind == 'f' && !(fabs(p[0]) <= FLT_MAX && fabs(p[1]) <= FLT_MAX))
            return 0;
        PyThreadState *save = n >= MIN_RELEASE ? PyEval_SaveThread() : NULL;
        if (kind == 'f')
            threshold_inplace_float((float *)x, n, (float)p[0], (float)p[1]);
        else
            threshold_inplace_double((double *)x, n, p[0], p[1]);
        if (save != NULL)
            PyEval_RestoreThread(save);
        return 1;
    }
    if (op == 3 && np_ == 1) {
        if (kind == 'f' && !(fabs(p[0]) <= FLT_MAX))
            return 0;
        PyThreadState *save = n >= MIN_RELEASE ? PyEval_SaveThread() : NULL;
        if (kind == 'f')
            leaky_relu_inplace_float((float *)x, n, (float)p[0]);
        else
            leaky_relu_inplace_double((double *)x, n, p[0]);
        if (save != NULL)
            PyEval_RestoreThread(save);
        return 1;
    }
    return 0;
}

#define ENTRY(NAME) {#NAME, (PyCFunction)(void (*)(void))py_##NAME, METH_FASTCALL, #NAME "(src, dst): elementwise, as strided.kernels.special." #NAME}

/* ---------------------------------------------------------------- PyTorch's CPU sort order
 *
 * stl_argsort(x, idx, n, comparator) -> bool: for each row of n elements of x (a C-contiguous
 * buffer of format "f", "d", "q" or "Q", read only), the permutation PyTorch's CPU kernels leave
 * after sorting the row's (value, position) pairs with GCC's std::sort (bits/stl_algo.h:
 * introsort with the median of three moved to the front, heapsort past 2 * floor(log2(n))
 * levels, runs of 16 left to one final insertion sort), written to idx (C-contiguous int64, as
 * many elements as x), and the sorted keys to values (optional: x's format and length). The
 * comparator reads values only: 0, "ascending" (NaN largest:
 * aten's KeyValueCompAsc, sort/argsort/msort), 1, "descending" (NaN first: KeyValueCompDesc),
 * 2, "less" (a plain <, under which NaN is neither less nor greater than anything: the mode
 * kernel's). std::sort is not stable, so among equal values (ties, -0.0 and 0.0, NaN) the
 * positions come back in introsort's order, which is the order this reproduces step for step;
 * strided.ops._support.stl_select is the same algorithm in Python (the fallback).
 *
 * The "unguarded" loops of libstdc++ rely on the ordering being a strict weak order to stop at
 * the range's ends; "less" with NaN is not one, so every loop here also stops at the range's
 * ends (where GCC's would read outside the row: a difference only where PyTorch's result is
 * undefined). False (nothing written) where idx overlaps x. */

/* NAME##_top below k: the row's k + 1 first in the comparator's order kept by one scan (an element
 * enters only where it sorts strictly before the last kept one), O(n k) instead of the whole sort:
 * where those k + 1 keys are strictly monotone (the only case answered), they and the k positions
 * are the sorted row's first, whatever sort made it (an equal key among them, or one equal to a
 * kept key arriving later, leaves two equal keys in the window: answered False, as the sort's) */
#define TOP_SCAN_K 16
#define DEFINE_STL_SORT(NAME, T, LT)                                                               \
    typedef struct { T k; int64_t i; } NAME##_pair;                                                \
    static inline int NAME##_lt(const NAME##_pair *a, const NAME##_pair *b) { T x = a->k, y = b->k; return LT; } \
    static void NAME##_swap(NAME##_pair *a, NAME##_pair *b) { NAME##_pair t = *a; *a = *b; *b = t; } \
    static void NAME##_linear_insert(NAME##_pair *q, Py_ssize_t lo, Py_ssize_t last)               \
    {   /* __unguarded_linear_insert (bounded at lo) */                                            \
        NAME##_pair v = q[last];                                                                   \
        Py_ssize_t next = last - 1;                                                                \
        while (next >= lo && NAME##_lt(&v, &q[next])) { q[last] = q[next]; last = next; next--; }  \
        q[last] = v;                                                                               \
    }                                                                                              \
    static void NAME##_insertion(NAME##_pair *q, Py_ssize_t first, Py_ssize_t last)                \
    {   /* __insertion_sort */                                                                     \
        if (first == last) return;                                                                 \
        for (Py_ssize_t i = first + 1; i < last; i++) {                                            \
            if (NAME##_lt(&q[i], &q[first])) {                                                     \
                NAME##_pair v = q[i];                                                              \
                memmove(q + first + 1, q + first, (size_t)(i - first) * sizeof(NAME##_pair));      \
                q[first] = v;                                                                      \
            } else {                                                                               \
                NAME##_linear_insert(q, first, i);                                                 \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_adjust_heap(NAME##_pair *b, Py_ssize_t hole, Py_ssize_t len, NAME##_pair v) \
    {   /* __adjust_heap then __push_heap, over the range starting at b */                         \
        Py_ssize_t top = hole, child = hole;                                                       \
        while (child < (len - 1) / 2) {                                                            \
            child = 2 * (child + 1);                                                               \
            if (NAME##_lt(&b[child], &b[child - 1])) child--;                                      \
            b[hole] = b[child];                                                                    \
            hole = child;                                                                          \
        }                                                                                          \
        if ((len & 1) == 0 && child == (len - 2) / 2) {                                            \
            child = 2 * (child + 1);                                                               \
            b[hole] = b[child - 1];                                                                \
            hole = child - 1;                                                                      \
        }                                                                                          \
        Py_ssize_t parent = (hole - 1) / 2;                                                        \
        while (hole > top && NAME##_lt(&b[parent], &v)) {                                          \
            b[hole] = b[parent];                                                                   \
            hole = parent;                                                                         \
            parent = (hole - 1) / 2;                                                               \
        }                                                                                          \
        b[hole] = v;                                                                               \
    }                                                                                              \
    static void NAME##_heapsort(NAME##_pair *b, Py_ssize_t len)                                    \
    {   /* __partial_sort(first, last, last): __make_heap, then __sort_heap */                     \
        if (len >= 2)                                                                              \
            for (Py_ssize_t parent = (len - 2) / 2;; parent--) {                                   \
                NAME##_adjust_heap(b, parent, len, b[parent]);                                     \
                if (parent == 0) break;                                                            \
            }                                                                                      \
        for (Py_ssize_t end = len; end > 1;) {                                                     \
            end--;                                                                                 \
            NAME##_pair v = b[end];                                                                \
            b[end] = b[0];                                                                         \
            NAME##_adjust_heap(b, 0, end, v);                                                      \
        }                                                                                          \
    }                                                                                              \
    static Py_ssize_t NAME##_partition_pivot(NAME##_pair *q, Py_ssize_t first, Py_ssize_t last)   \
    {   /* __unguarded_partition_pivot: __move_median_to_first, then __unguarded_partition */      \
        Py_ssize_t a = first + 1, m = first + (last - first) / 2, c = last - 1, pick;              \
        if (NAME##_lt(&q[a], &q[m])) {                                                             \
            if (NAME##_lt(&q[m], &q[c])) pick = m;                                                 \
            else if (NAME##_lt(&q[a], &q[c])) pick = c;                                            \
            else pick = a;                                                                         \
        } else if (NAME##_lt(&q[a], &q[c])) pick = a;                                              \
        else if (NAME##_lt(&q[m], &q[c])) pick = c;                                                \
        else pick = m;                                                                             \
        NAME##_swap(&q[first], &q[pick]);                                                          \
        Py_ssize_t f = first + 1, l = last;                                                        \
        for (;;) {                                                                                 \
            while (f < last && NAME##_lt(&q[f], &q[first])) f++;                                   \
            l--;                                                                                   \
            while (l > first && NAME##_lt(&q[first], &q[l])) l--;                                  \
            if (!(f < l)) return f;                                                                \
            NAME##_swap(&q[f], &q[l]);                                                             \
            f++;                                                                                   \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_introsort(NAME##_pair *q, Py_ssize_t first, Py_ssize_t last, int depth)     \
    {                                                                                              \
        while (last - first > 16) {                                                                \
            if (depth == 0) { NAME##_heapsort(q + first, last - first); return; }                  \
            depth--;                                                                               \
            Py_ssize_t cut = NAME##_partition_pivot(q, first, last);                               \
            NAME##_introsort(q, cut, last, depth);                                                 \
            last = cut;                                                                            \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_sort(NAME##_pair *q, Py_ssize_t n)                                          \
    {   /* std::sort */                                                                            \
        if (n < 2) return;                                                                         \
        int lg = 0;                                                                                \
        for (Py_ssize_t m = n; m > 1; m >>= 1) lg++;                                               \
        NAME##_introsort(q, 0, n, 2 * lg);                                                         \
        if (n > 16) {                                                                              \
            NAME##_insertion(q, 0, 16);                                                            \
            for (Py_ssize_t i = 16; i < n; i++) NAME##_linear_insert(q, 0, i);                     \
        } else {                                                                                   \
            NAME##_insertion(q, 0, n);                                                             \
        }                                                                                          \
    }                                                                                              \
    static inline void NAME##_nth(NAME##_pair *q, Py_ssize_t n, Py_ssize_t nth)                        \
    {   /* std::nth_element: __introselect, __heap_select past the depth limit */                  \
        if (nth >= n) return;                                                                      \
        Py_ssize_t first = 0, last = n;                                                            \
        int depth = 0;                                                                             \
        for (Py_ssize_t m = n; m > 1; m >>= 1) depth++;                                            \
        depth *= 2;                                                                                \
        while (last - first > 3) {                                                                 \
            if (depth == 0) {                                                                      \
                Py_ssize_t len = nth + 1 - first;                                                  \
                NAME##_pair *b = q + first;                                                        \
                if (len >= 2)                                                                      \
                    for (Py_ssize_t parent = (len - 2) / 2;; parent--) {                           \
                        NAME##_adjust_heap(b, parent, len, b[parent]);                             \
                        if (parent == 0) break;                                                    \
                    }                                                                              \
                for (Py_ssize_t i = nth + 1; i < last; i++)                                        \
                    if (NAME##_lt(&q[i], &q[first])) {                                             \
                        NAME##_pair v = q[i];                                                      \
                        q[i] = q[first];                                                           \
                        NAME##_adjust_heap(b, 0, len, v);                                          \
                    }                                                                              \
                NAME##_swap(&q[first], &q[nth]);                                                   \
                return;                                                                            \
            }                                                                                      \
            depth--;                                                                               \
            Py_ssize_t cut = NAME##_partition_pivot(q, first, last);                               \
            if (cut <= nth) first = cut; else last = cut;                                          \
        }                                                                                          \
        NAME##_insertion(q, first, last);                                                          \
    }                                                                                              \
    static inline int64_t NAME##_select(const T *x, Py_ssize_t n, Py_ssize_t nth)                    \
    {   /* the position std::nth_element leaves at nth; -2: out of memory */                        \
        NAME##_pair *q = PyMem_RawMalloc((size_t)(n ? n : 1) * sizeof(NAME##_pair));               \
        if (q == NULL) return -2;                                                                  \
        for (Py_ssize_t j = 0; j < n; j++) { q[j].k = x[j]; q[j].i = j; }                          \
        NAME##_nth(q, n, nth);                                                                     \
        int64_t at = q[nth].i;                                                                     \
        PyMem_RawFree(q);                                                                          \
        return at;                                                                                 \
    }                                                                                              \
    static inline int NAME##_mode(const T *x, T *values, int64_t *idx, Py_ssize_t rows, Py_ssize_t n) \
    {   /* PyTorch's mode kernel per row: the pairs sorted, the last pair of the first longest run  \
           of == values (NaN != NaN: runs of one); 0: out of memory */                               \
        NAME##_pair *q = PyMem_RawMalloc((size_t)(n ? n : 1) * sizeof(NAME##_pair));               \
        if (q == NULL) return 0;                                                                   \
        for (Py_ssize_t r = 0; r < rows; r++, x += n) {                                            \
            for (Py_ssize_t j = 0; j < n; j++) { q[j].k = x[j]; q[j].i = j; }                      \
            NAME##_sort(q, n);                                                                     \
            Py_ssize_t best = 0, run = 0, at = 0;                                                  \
            for (Py_ssize_t j = 0; j < n; j++) {                                                   \
                run++;                                                                             \
                if (j == n - 1 || q[j].k != q[j + 1].k) {                                          \
                    if (run > best) { best = run; at = j; }                                        \
                    run = 0;                                                                       \
                }                                                                                  \
            }                                                                                      \
            values[r] = q[at].k;                                                                   \
            idx[r] = q[at].i;                                                                      \
        }                                                                                          \
        PyMem_RawFree(q);                                                                          \
        return 1;                                                                                  \
    }                                                                                              \
    static int NAME##_rows(const T *x, int64_t *idx, Py_ssize_t rows, Py_ssize_t n, T *values)     \
    {   /* 0: out of memory; values (NULL: not asked) gets the sorted keys */                      \
        NAME##_pair *q = PyMem_RawMalloc((size_t)(n ? n : 1) * sizeof(NAME##_pair));               \
        if (q == NULL) return 0;                                                                   \
        for (Py_ssize_t r = 0; r < rows; r++, x += n, idx += n) {                                  \
            for (Py_ssize_t j = 0; j < n; j++) { q[j].k = x[j]; q[j].i = j; }                      \
            NAME##_sort(q, n);                                                                     \
            for (Py_ssize_t j = 0; j < n; j++) idx[j] = q[j].i;                                    \
            if (values != NULL) {                                                                  \
                for (Py_ssize_t j = 0; j < n; j++) values[j] = q[j].k;                             \
                values += n;                                                                       \
            }                                                                                      \
        }                                                                                          \
        PyMem_RawFree(q);                                                                          \
        return 1;                                                                                  \
    }                                                                                              \
    static inline int NAME##_torch_top(const T *x, int64_t *idx, Py_ssize_t rows, Py_ssize_t n,              \
                                       Py_ssize_t k, T *values)                                                         \
    {   /* PyTorch's topk per row (TopKImpl.h): std::partial_sort of the first k where k * 64 <= n \
           (__heap_select, then __sort_heap), else std::nth_element at k - 1 and std::sort of the \
           first k - 1; the first k pairs written (idx, values: k per row). 0: out of memory */     \
        NAME##_pair *q = PyMem_RawMalloc((size_t)(n ? n : 1) * sizeof(NAME##_pair));               \
        if (q == NULL) return 0;                                                                   \
        for (Py_ssize_t r = 0; r < rows; r++, x += n, idx += k, values += k) {                     \
            for (Py_ssize_t j = 0; j < n; j++) { q[j].k = x[j]; q[j].i = j; }                      \
            if (k * 64 <= n) {                                                                     \
                if (k >= 2)                                                                        \
                    for (Py_ssize_t parent = (k - 2) / 2;; parent--) {                             \
                        NAME##_adjust_heap(q, parent, k, q[parent]);                               \
                        if (parent == 0) break;                                                    \
                    }                                                                              \
                for (Py_ssize_t i = k; i < n; i++)                                                 \
                    if (NAME##_lt(&q[i], &q[0])) {                                                 \
                        NAME##_pair v = q[i];                                                      \
                        q[i] = q[0];                                                               \
                        NAME##_adjust_heap(q, 0, k, v);                                            \
                    }                                                                              \
                for (Py_ssize_t end = k; end > 1;) {                                               \
                    end--;                                                                         \
                    NAME##_pair v = q[end];                                                        \
                    q[end] = q[0];                                                                 \
                    NAME##_adjust_heap(q, 0, end, v);                                              \
                }                                                                                  \
            } else {                                                                               \
                NAME##_nth(q, n, k - 1);                                                           \
                NAME##_sort(q, k - 1);                                                             \
            }                                                                                      \
            for (Py_ssize_t j = 0; j < k; j++) { idx[j] = q[j].i; values[j] = q[j].k; }            \
        }                                                                                          \
        PyMem_RawFree(q);                                                                          \
        return 1;                                                                                  \
    }                                                                                              \
    static inline int NAME##_top(const T *x, int64_t *idx, Py_ssize_t rows, Py_ssize_t n, Py_ssize_t k, \
                                 T *values, int desc)                                              \
    {   /* -1: out of memory; 0: a row's first k + 1 sorted keys not strictly monotone (equal keys, \
           -0.0 and 0.0, or a NaN: the pick is not the one answer; the rest unwritten); 1: the     \
           first k of each sorted row written (idx, values: k per row) */                          \
        if (k < TOP_SCAN_K) { /* the k + 1 first of the sorted row by one scan (see TOP_SCAN_K) */  \
            NAME##_pair w[TOP_SCAN_K + 1];                                                         \
            for (Py_ssize_t r = 0; r < rows; r++, x += n, idx += k, values += k) {                 \
                Py_ssize_t m = 0;                                                                  \
                for (Py_ssize_t j = 0; j < n; j++) {                                               \
                    NAME##_pair v = {x[j], j};                                                     \
                    if (m == k + 1 && !NAME##_lt(&v, &w[k])) continue;                             \
                    Py_ssize_t at = m < k + 1 ? m++ : k;                                           \
                    while (at > 0 && NAME##_lt(&v, &w[at - 1])) { w[at] = w[at - 1]; at--; }       \
                    w[at] = v;                                                                     \
                }                                                                                  \
                for (Py_ssize_t j = 0; j < k; j++) {                                               \
                    T a = w[j].k, b = w[j + 1].k;                                                  \
                    if (!(desc ? b < a : b > a)) return 0;                                         \
                }                                                                                  \
                for (Py_ssize_t j = 0; j < k; j++) { idx[j] = w[j].i; values[j] = w[j].k; }        \
            }                                                                                      \
            return 1;                                                                              \
        }                                                                                          \
        NAME##_pair *q = PyMem_RawMalloc((size_t)(n ? n : 1) * sizeof(NAME##_pair));               \
        if (q == NULL) return -1;                                                                  \
        for (Py_ssize_t r = 0; r < rows; r++, x += n, idx += k, values += k) {                     \
            for (Py_ssize_t j = 0; j < n; j++) { q[j].k = x[j]; q[j].i = j; }                      \
            NAME##_sort(q, n);                                                                     \
            for (Py_ssize_t j = 0; j < k; j++) {                                                   \
                T a = q[j].k, b = q[j + 1].k;                                                      \
                if (!(desc ? b < a : b > a)) { PyMem_RawFree(q); return 0; }                       \
            }                                                                                      \
            for (Py_ssize_t j = 0; j < k; j++) { idx[j] = q[j].i; values[j] = q[j].k; }            \
        }                                                                                          \
        PyMem_RawFree(q);                                                                          \
        return 1;                                                                                  \
    }

DEFINE_STL_SORT(asc_f, float, (!isnan(x) && isnan(y)) || x < y)
DEFINE_STL_SORT(desc_f, float, (isnan(x) && !isnan(y)) || x > y)
DEFINE_STL_SORT(less_f, float, x < y)
DEFINE_STL_SORT(asc_d, double, (!isnan(x) && isnan(y)) || x < y)
DEFINE_STL_SORT(desc_d, double, (isnan(x) && !isnan(y)) || x > y)
DEFINE_STL_SORT(less_d, double, x < y)
DEFINE_STL_SORT(asc_q, int64_t, x < y)
DEFINE_STL_SORT(desc_q, int64_t, x > y)
DEFINE_STL_SORT(asc_u, uint64_t, x < y)
DEFINE_STL_SORT(desc_u, uint64_t, x > y)
#undef DEFINE_STL_SORT

static PyObject *py_stl_argsort(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4 && nargs != 5) {
        PyErr_Format(PyExc_TypeError, "stl_argsort(x, idx, n, comparator[, values]) takes 4 or 5 arguments, not %zd",
                     nargs);
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[2]);
    long comparator = PyLong_AsLong(args[3]);
    if ((n == -1 || comparator == -1) && PyErr_Occurred()) return NULL;
    Py_buffer x, idx;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &idx, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    PyObject *answer = NULL;
    Py_buffer v;
    int has_values = 0;
    if (nargs == 5 && args[4] != Py_None) {
        if (PyObject_GetBuffer(args[4], &v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
            PyBuffer_Release(&x);
            PyBuffer_Release(&idx);
            return NULL;
        }
        has_values = 1;
    }
    char kind = format_kind(&x);
    int known = (kind == 'f' && x.itemsize == 4) || (kind == 'd' && x.itemsize == 8)
                || ((kind == 'q' || kind == 'l') && x.itemsize == 8) || ((kind == 'Q' || kind == 'L') && x.itemsize == 8);
    char ikind = format_kind(&idx);
    Py_ssize_t count = x.itemsize ? x.len / x.itemsize : 0;
    if (!known || !((ikind == 'q' || ikind == 'l') && idx.itemsize == 8) || idx.len != count * 8 || n < 1
        || count % n != 0 || comparator < 0 || comparator > 2 || (comparator == 2 && kind != 'f' && kind != 'd')
        || (has_values && (strcmp(v.format, x.format) != 0 || v.len != x.len))) {
        PyErr_Format(PyExc_ValueError, "stl_argsort: x must be a C-contiguous float32, float64, int64 or uint64 "
                     "buffer and idx an int64 one of as many elements, a multiple of n >= 1; comparator 0, 1 or 2 "
                     "(2 for floats only); values, if given, x's format and length (formats %s and %s, %zd and "
                     "%zd bytes, n %zd, comparator %ld)", x.format, idx.format, x.len, idx.len, n, comparator);
        goto done;
    }
    if (overlaps(&x, &idx) || (has_values && (overlaps(&v, &x) || overlaps(&v, &idx)))) {
        answer = Py_False;
        goto done;
    }
    {
        Py_ssize_t rows = count / n;
        int ok = 1;
        Py_BEGIN_ALLOW_THREADS
        void *vals = has_values ? v.buf : NULL;
        if (kind == 'f')
            ok = comparator == 0 ? asc_f_rows(x.buf, idx.buf, rows, n, vals)
                 : comparator == 1 ? desc_f_rows(x.buf, idx.buf, rows, n, vals) : less_f_rows(x.buf, idx.buf, rows, n, vals);
        else if (kind == 'd')
            ok = comparator == 0 ? asc_d_rows(x.buf, idx.buf, rows, n, vals)
                 : comparator == 1 ? desc_d_rows(x.buf, idx.buf, rows, n, vals) : less_d_rows(x.buf, idx.buf, rows, n, vals);
        else if (kind == 'q' || kind == 'l')
            ok = comparator == 0 ? asc_q_rows(x.buf, idx.buf, rows, n, vals) : desc_q_rows(x.buf, idx.buf, rows, n, vals);
        else
            ok = comparator == 0 ? asc_u_rows(x.buf, idx.buf, rows, n, vals) : desc_u_rows(x.buf, idx.buf, rows, n, vals);
        Py_END_ALLOW_THREADS
        if (!ok) {
            PyErr_NoMemory();
            goto done;
        }
        answer = Py_True;
    }
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&idx);
    if (has_values) PyBuffer_Release(&v);
    Py_XINCREF(answer);
    return answer;
}

/* stl_topk(x, idx, values, n, k, comparator) -> bool: topk of each row of n elements of x
 * (C-contiguous "f", "d" or "q", read only) as stl_argsort's sort leaves it (comparator 0:
 * ascending, the k smallest; 1: descending, the k largest): the first k positions of each sorted
 * row to idx (C-contiguous int64, k per row) and their keys to values (x's format, k per row),
 * where every row's first k + 1 sorted keys are strictly monotone (no equal keys, -0.0 and 0.0
 * or NaN among the k picked and the next one: the pick and its order are then the one answer,
 * PyTorch's). False where a row is not (idx and values then hold nothing meaningful), the
 * buffers overlap, or (stl_topk, not stl_topk_exact) one is misaligned for its items (memory
 * from_numpy borrowed at an odd address); 0 < k < n. */
static PyObject *stl_topk_call(PyObject *const *args, Py_ssize_t nargs, int exact)
{
    const char *name = exact ? "stl_topk_exact" : "stl_topk";
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "%s(x, idx, values, n, k, comparator) takes 6 arguments, not %zd", name, nargs);
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[3]);
    Py_ssize_t k = PyLong_AsSsize_t(args[4]);
    long comparator = PyLong_AsLong(args[5]);
    if ((n == -1 || k == -1 || comparator == -1) && PyErr_Occurred()) return NULL;
    Py_buffer x, idx, v;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &idx, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    if (PyObject_GetBuffer(args[2], &v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        PyBuffer_Release(&idx);
        return NULL;
    }
    PyObject *answer = NULL;
    if (!exact && x.itemsize > 0 && ((uintptr_t)x.buf % (uintptr_t)x.itemsize || (uintptr_t)v.buf % (uintptr_t)x.itemsize
                                     || (uintptr_t)idx.buf % 8)) {
        answer = Py_False; /* (stl_topk: misaligned memory, whose format reads "=f": the caller's other path) */
        goto done;
    }
    char kind = format_kind(&x);
    int known = (kind == 'f' && x.itemsize == 4) || (kind == 'd' && x.itemsize == 8)
                || ((kind == 'q' || kind == 'l') && x.itemsize == 8);
    char ikind = format_kind(&idx);
    Py_ssize_t count = x.itemsize ? x.len / x.itemsize : 0;
    Py_ssize_t rows = n > 0 ? count / n : 0;
    if (!known || !((ikind == 'q' || ikind == 'l') && idx.itemsize == 8) || n < 1 || k < 1 || k >= n
        || count % n != 0 || comparator < 0 || comparator > 1 || idx.len != rows * k * 8
        || strcmp(v.format, x.format) != 0 || v.len != rows * k * x.itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: x must be a C-contiguous float32, float64 or int64 buffer of rows "
                     "of n, idx an int64 one and values one of x's format, each of k elements per row, 0 < k < n, "
                     "comparator 0 or 1 (formats %s, %s and %s, %zd, %zd and %zd bytes, n %zd, k %zd, comparator %ld)",
                     name, x.format, idx.format, v.format, x.len, idx.len, v.len, n, k, comparator);
        goto done;
    }
    if (overlaps(&x, &idx) || overlaps(&v, &x) || overlaps(&v, &idx)) {
        answer = Py_False;
        goto done;
    }
    {
        int ok;
        Py_BEGIN_ALLOW_THREADS
        if (exact) { /* (every row answered: out of memory is the only failure) */
            int done = kind == 'f' ? (comparator == 0 ? asc_f_torch_top(x.buf, idx.buf, rows, n, k, v.buf)
                                                      : desc_f_torch_top(x.buf, idx.buf, rows, n, k, v.buf))
                       : kind == 'd' ? (comparator == 0 ? asc_d_torch_top(x.buf, idx.buf, rows, n, k, v.buf)
                                                        : desc_d_torch_top(x.buf, idx.buf, rows, n, k, v.buf))
                       : (comparator == 0 ? asc_q_torch_top(x.buf, idx.buf, rows, n, k, v.buf)
                                          : desc_q_torch_top(x.buf, idx.buf, rows, n, k, v.buf));
            ok = done ? 1 : -1;
        }
        else if (kind == 'f')
            ok = comparator == 0 ? asc_f_top(x.buf, idx.buf, rows, n, k, v.buf, 0) : desc_f_top(x.buf, idx.buf, rows, n, k, v.buf, 1);
        else if (kind == 'd')
            ok = comparator == 0 ? asc_d_top(x.buf, idx.buf, rows, n, k, v.buf, 0) : desc_d_top(x.buf, idx.buf, rows, n, k, v.buf, 1);
        else
            ok = comparator == 0 ? asc_q_top(x.buf, idx.buf, rows, n, k, v.buf, 0) : desc_q_top(x.buf, idx.buf, rows, n, k, v.buf, 1);
        Py_END_ALLOW_THREADS
        if (ok < 0) {
            PyErr_NoMemory();
            goto done;
        }
        answer = ok ? Py_True : Py_False;
    }
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&idx);
    PyBuffer_Release(&v);
    Py_XINCREF(answer);
    return answer;
}

static PyObject *py_stl_topk(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return stl_topk_call(args, nargs, 0);
}

/* stl_topk_exact(x, idx, values, n, k, comparator) -> bool: stl_topk's arguments, and PyTorch's CPU
 * topk on every row, step for step (NAME##_torch_top: libstdc++'s partial_sort, or nth_element and
 * sort, over the (value, position) pairs with aten's comparator), so among equal values (ties, -0.0
 * and 0.0, NaN) the positions PyTorch returns, in its order; True, or False where the buffers
 * overlap. */
static PyObject *py_stl_topk_exact(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return stl_topk_call(args, nargs, 1);
}

/* pow_base(base, exps, out) -> bool: out[i] = pow(base, exps[i]) with the C library's pow (glibc's,
 * the one PyTorch's CPU logspace kernel calls through std::pow), for C-contiguous float64 buffers of
 * one length. NumPy's float64 power is its own SIMD code, which differs from glibc's in the last bit.
 * False (nothing written) where out overlaps exps. */
static PyObject *py_pow_base(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "pow_base(base, exps, out) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    double base = PyFloat_AsDouble(args[0]);
    if (base == -1.0 && PyErr_Occurred()) return NULL;
    Py_buffer e, out;
    if (PyObject_GetBuffer(args[1], &e, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[2], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&e);
        return NULL;
    }
    PyObject *answer = NULL;
    if (strcmp(e.format, "d") != 0 || strcmp(out.format, "d") != 0 || e.len != out.len) {
        PyErr_Format(PyExc_ValueError, "pow_base: exps and out must be C-contiguous float64 buffers of one length "
                     "(formats %s and %s, %zd and %zd bytes)", e.format, out.format, e.len, out.len);
        goto done;
    }
    if (overlaps(&e, &out) && e.buf != out.buf) {  /* (in place, element for element: fine) */
        answer = Py_False;
        goto done;
    }
    {
        const double *x = e.buf;
        double *o = out.buf;
        Py_ssize_t n = e.len / 8;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n; i++) o[i] = pow(base, x[i]);
        Py_END_ALLOW_THREADS
        answer = Py_True;
    }
done:
    PyBuffer_Release(&e);
    PyBuffer_Release(&out);
    Py_XINCREF(answer);
    return answer;
}

/* norm_p_rows(x, p, out, chunks) -> bool: PyTorch's CPU vector norm of a general order p
 * (NormOps in binary_kernel_reduce, ReduceOpsKernel.cpp / SharedReduceOps.h) of each row of the
 * 2-D x (any strides; rows = len(out), each row's elements in PyTorch's iteration order): acc = 0,
 * then acc += pow(|x|, p) element by element in the element type (powf / pow: the C library's, as
 * std::pow calls them), and out = pow(acc, 1 / p) with 1 / p rounded to that type; p == 1 is
 * NormOneOps (acc += |x|, the sum itself), p == 2 NormTwoOps (acc += x * x, then its square root). chunks > 1 (one row only): at::parallel_for's split of
 * the row, each chunk summed from 0 on its own and the chunks' sums added to 0 in order. Each
 * row's sum is serial, as PyTorch's; several rows run side by side (independent sums: the
 * adds' latency overlaps), or, where the rows are closer in memory than a row's elements, the
 * sums advance together element by element. x and out (C-contiguous) both float32 or both
 * float64; False (nothing written) otherwise. */
/* acc[i] += |c[i]| (the column step of norm_one_*: each sum advanced by one element) */
static __attribute__((noinline)) void add_abs_float(float *restrict acc, const float *restrict c, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) acc[i] = acc[i] + fabsf(c[i]);
}
static __attribute__((noinline)) void add_abs_double(double *restrict acc, const double *restrict c, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) acc[i] = acc[i] + fabs(c[i]);
}

#define NORM_SUMS(T, NAME, TERM)                                                                   \
    static void NAME(const char *x, T *o, Py_ssize_t rows, Py_ssize_t n, Py_ssize_t rs, Py_ssize_t cs, T p, \
                     Py_ssize_t chunks)                                                            \
    {                                                                                              \
        (void)p;                                                                                   \
        if (rows == 1) {                                                                           \
            Py_ssize_t size = (n + chunks - 1) / chunks;                                           \
            T total = 0;                                                                           \
            for (Py_ssize_t begin = 0; begin < n; begin += size) {                                 \
                Py_ssize_t end = begin + size < n ? begin + size : n;                              \
                T acc = 0;                                                                         \
                for (Py_ssize_t i = begin; i < end; i++) acc = acc + TERM(*(const T *)(x + i * cs)); \
                total = total + acc;                                                               \
            }                                                                                      \
            o[0] = total;                                                                          \
        } else if ((rs < 0 ? -rs : rs) < (cs < 0 ? -cs : cs)) {                                    \
            for (Py_ssize_t r = 0; r < rows; r++) o[r] = 0;                                        \
            for (Py_ssize_t i = 0; i < n; i++) {                                                   \
                const char *col = x + i * cs;                                                      \
                if (rs == (Py_ssize_t)sizeof(T) && p == 1) { /* (unit stride: a vectorized loop) */   \
                    add_abs_##T(o, (const T *)col, rows);                                          \
                } else {                                                                           \
                    for (Py_ssize_t r = 0; r < rows; r++) o[r] = o[r] + TERM(*(const T *)(col + r * rs)); \
                }                                                                                  \
            }                                                                                      \
        } else {                                                                                   \
            Py_ssize_t r = 0;                                                                      \
            for (; r + 4 <= rows; r += 4) {                                                        \
                const char *r0 = x + r * rs, *r1 = r0 + rs, *r2 = r1 + rs, *r3 = r2 + rs;          \
                T a0 = 0, a1 = 0, a2 = 0, a3 = 0;                                                  \
                for (Py_ssize_t i = 0; i < n; i++) {                                               \
                    a0 = a0 + TERM(*(const T *)(r0 + i * cs));                                     \
                    a1 = a1 + TERM(*(const T *)(r1 + i * cs));                                     \
                    a2 = a2 + TERM(*(const T *)(r2 + i * cs));                                     \
                    a3 = a3 + TERM(*(const T *)(r3 + i * cs));                                     \
                }                                                                                  \
                o[r] = a0, o[r + 1] = a1, o[r + 2] = a2, o[r + 3] = a3;                            \
            }                                                                                      \
            for (; r < rows; r++) {                                                                \
                T acc = 0;                                                                         \
                for (Py_ssize_t i = 0; i < n; i++) acc = acc + TERM(*(const T *)(x + r * rs + i * cs)); \
                o[r] = acc;                                                                        \
            }                                                                                      \
        }                                                                                          \
    }
#define TWO_F(v) ((v) * (v))
#define TWO_D(v) ((v) * (v))
#define ONE_F(v) fabsf(v)
#define POW_F(v) powf(fabsf(v), p)
#define ONE_D(v) fabs(v)
#define POW_D(v) pow(fabs(v), p)
NORM_SUMS(float, norm_one_float, ONE_F)
NORM_SUMS(float, norm_pow_float, POW_F)
NORM_SUMS(double, norm_one_double, ONE_D)
NORM_SUMS(double, norm_pow_double, POW_D)
NORM_SUMS(float, norm_two_float, TWO_F)
NORM_SUMS(double, norm_two_double, TWO_D)
#undef NORM_SUMS
#undef TWO_F
#undef TWO_D
#undef ONE_F
#undef POW_F
#undef ONE_D
#undef POW_D

/* the whole norm: NormOneOps' sums as they are, NormOps' raised to 1 / p (rounded to T) */
#define NORM_P_ROWS(T, POW, SQRT)                                                                  \
    static void norm_p_rows_##T(const char *x, T *o, Py_ssize_t rows, Py_ssize_t n, Py_ssize_t rs, \
                                Py_ssize_t cs, T p, Py_ssize_t chunks)                             \
    {                                                                                              \
        if (p == 1) {                                                                              \
            norm_one_##T(x, o, rows, n, rs, cs, p, chunks);                                        \
            return;                                                                                \
        }                                                                                          \
        if (p == 2) { /* (NormTwoOps: acc + x * x, never fused; the square root) */                \
            norm_two_##T(x, o, rows, n, rs, cs, p, chunks);                                        \
            for (Py_ssize_t r = 0; r < rows; r++) o[r] = SQRT(o[r]);                               \
            return;                                                                                \
        }                                                                                          \
        norm_pow_##T(x, o, rows, n, rs, cs, p, chunks);                                            \
        const T inv = (T)1 / p;                                                                    \
        for (Py_ssize_t r = 0; r < rows; r++) o[r] = POW(o[r], inv);                               \
    }
NORM_P_ROWS(float, powf, sqrtf)
NORM_P_ROWS(double, pow, sqrt)
#undef NORM_P_ROWS

static PyObject *py_norm_p_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "norm_p_rows(x, p, out, chunks) takes 4 arguments, not %zd", nargs);
        return NULL;
    }
    double p = PyFloat_AsDouble(args[1]);
    if (p == -1.0 && PyErr_Occurred()) return NULL;
    Py_ssize_t chunks = PyLong_AsSsize_t(args[3]);
    if (chunks == -1 && PyErr_Occurred()) return NULL;
    Py_buffer xb, ob;
    if (PyObject_GetBuffer(args[0], &xb, PyBUF_STRIDES | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[2], &ob, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&xb);
        return NULL;
    }
    PyObject *answer = Py_False;
    int f32 = strcmp(xb.format, "f") == 0, f64 = strcmp(xb.format, "d") == 0;
    if ((f32 || f64) && strcmp(ob.format, xb.format) == 0 && xb.ndim == 2 && xb.shape[0] > 0 && xb.shape[1] >= chunks
        && ob.len == xb.shape[0] * xb.itemsize && chunks >= 1 && (chunks == 1 || xb.shape[0] == 1)
        && xb.strides[0] % xb.itemsize == 0 && xb.strides[1] % xb.itemsize == 0 && !overlaps(&xb, &ob)) {
        Py_ssize_t rows = xb.shape[0], n = xb.shape[1], rs = xb.strides[0], cs = xb.strides[1];
        Py_BEGIN_ALLOW_THREADS
        if (f32) norm_p_rows_float(xb.buf, ob.buf, rows, n, rs, cs, (float)p, chunks);
        else norm_p_rows_double(xb.buf, ob.buf, rows, n, rs, cs, p, chunks);
        Py_END_ALLOW_THREADS
        answer = Py_True;
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

#include "_logspace_f32.h" /* logspace_f32_run, logspace_f32_wide */

/* logspace_fill(start, end, step, base, out) -> bool: PyTorch's CPU logspace kernel for a float32
 * ("f") or float64 ("d") C-contiguous out of n >= 2 elements, in one pass: the exponents two-sided in
 * double (start + step * i for i < n / 2, end - step * (n - 1 - i) after; each operation rounded,
 * never fused: -ffp-contract=off), the C library's pow(base, exponent) in double, rounded to out's
 * type. The same operations, in the same order, as creation._logspace_values' NumPy steps and
 * pow_base (whose bits it gives), without their four temporary arrays. False: another format. */
static PyObject *py_logspace_fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "logspace_fill(start, end, step, base, out) takes 5 arguments, not %zd", nargs);
        return NULL;
    }
    double v[4];
    for (int k = 0; k < 4; k++) {
        v[k] = PyFloat_AsDouble(args[k]);
        if (v[k] == -1.0 && PyErr_Occurred()) return NULL;
    }
    const double start = v[0], end = v[1], step = v[2], base = v[3];
    Py_buffer out;
    if (PyObject_GetBuffer(args[4], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) return NULL;
    int single = strcmp(out.format, "f") == 0;
    if (!single && strcmp(out.format, "d") != 0) {
        PyBuffer_Release(&out);
        Py_RETURN_FALSE;
    }
    Py_ssize_t n = out.len / (single ? 4 : 8), half = n / 2;
    Py_BEGIN_ALLOW_THREADS
    double lhi, llo;
    if (single && lanes_form != 0 && logspace_f32_wide(base, &lhi, &llo)) { /* (the same bits: see _logspace_f32.h) */
        float *o = out.buf;
        logspace_f32_run(o, half, start, step, 0, 0.0, 1.0, base, lhi, llo);
        logspace_f32_run(o + half, n - half, end, step, 1, (double)(n - 1 - half), -1.0, base, lhi, llo);
    } else if (single) {
        float *o = out.buf;
        for (Py_ssize_t i = 0; i < half; i++) o[i] = (float)pow(base, start + step * (double)i);
        for (Py_ssize_t i = half; i < n; i++) o[i] = (float)pow(base, end - step * (double)(n - 1 - i));
    } else {
        double *o = out.buf;
        for (Py_ssize_t i = 0; i < half; i++) o[i] = pow(base, start + step * (double)i);
        for (Py_ssize_t i = half; i < n; i++) o[i] = pow(base, end - step * (double)(n - 1 - i));
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&out);
    Py_RETURN_TRUE;
}

/* ramp32_fill(start, end, step, out) -> bool: strided.creation._ramp_float32's values (PyTorch's
 * float32 linspace of a finite step, at most 2**24 steps: the caller's preconditions) into the
 * float32 out of n elements: out[i] = (float)(start + step * i) for i < n / 2, else (float)(end -
 * step * (n - 1 - i)), in double, each rounded once to double and then to float32. step is a
 * float32 value and i < 2**24, so step * i is exact in double (at most 48 significant bits) and
 * no contraction into an FMA could change it (the build has -ffp-contract=off all the same); the
 * NumPy blocks computed the same exact products and the same two roundings. False (nothing
 * written) for another out (or more than 2**24 elements). 2^20 steps, thread CPU time: NumPy's blocks
 * ~0.6 ms (PyTorch ~0.63) -> one pass. */
/* iota64_fill(out, start, step) -> bool: out[i] = start + i * step for every element of the int64
 * out, in two's complement wrap-around (NumPy's int64 multiply and add, which arange_values made:
 * the same low 64 bits), by a running sum the compiler keeps in vectors. False (nothing written)
 * for another out. 2^20 elements, thread CPU time: np.arange's scalar fill ~290 us -> ~150. */
VECTOR_CLONES static void iota64_loop(uint64_t *restrict o, Py_ssize_t n, uint64_t start, uint64_t step)
{
    for (Py_ssize_t i = 0; i < n; i++) o[i] = start + (uint64_t)i * step;
}

static PyObject *py_iota64_fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "iota64_fill(out, start, step) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    long long start = PyLong_AsLongLong(args[1]), step = PyLong_AsLongLong(args[2]);
    if ((start == -1 || step == -1) && PyErr_Occurred()) return NULL;
    Py_buffer out;
    if (PyObject_GetBuffer(args[0], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) return NULL;
    char kind = format_kind(&out);
    if ((kind != 'l' && kind != 'q') || out.itemsize != 8) {
        PyBuffer_Release(&out);
        Py_RETURN_FALSE;
    }
    Py_ssize_t n = out.len / 8;
    Py_BEGIN_ALLOW_THREADS
    iota64_loop(out.buf, n, (uint64_t)start, (uint64_t)step);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&out);
    Py_RETURN_TRUE;
}

/* ramp32_fill's two loops; the counts as doubles (exact below 2**53), so that they run in vectors. */
VECTOR_CLONES static void ramp32_loops(float *restrict o, Py_ssize_t n, double start, double end, double step)
{
    Py_ssize_t half = n / 2;
    for (Py_ssize_t i = 0; i < half; i++) o[i] = (float)(start + step * (double)(int32_t)i);
    for (Py_ssize_t i = half; i < n; i++) o[i] = (float)(end - step * (double)(int32_t)(n - 1 - i));
}

static PyObject *py_ramp32_fill(PyObject *self, PyObject *args)
{
    (void)self;
    double start, end, step;
    PyObject *target;
    Py_buffer out;
    if (!PyArg_ParseTuple(args, "dddO:ramp32_fill", &start, &end, &step, &target)) return NULL;
    if (PyObject_GetBuffer(target, &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) return NULL;
    if (strcmp(out.format, "f") != 0 || out.itemsize != 4 || out.len / 4 > (1 << 24)) {
        PyBuffer_Release(&out);
        Py_RETURN_FALSE;
    }
    Py_ssize_t n = out.len / 4;
    Py_BEGIN_ALLOW_THREADS
    ramp32_loops(out.buf, n, start, end, step);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&out);
    Py_RETURN_TRUE;
}

/* stl_nth(x, nth, comparator) -> int: the position of the element GCC's std::nth_element leaves at
 * nth after running over x's values in order (x a C-contiguous float32 or float64 buffer, 0 <= nth <
 * len): PyTorch's median() (comparator 2, a plain <) and nanmedian() (0, NaN largest) of all
 * elements run it over their clone's memory, and which of -0.0 and 0.0 it leaves there is the sign
 * of the median. */
static PyObject *py_stl_nth(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "stl_nth(x, nth, comparator) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t nth = PyLong_AsSsize_t(args[1]);
    long comparator = PyLong_AsLong(args[2]);
    if ((nth == -1 || comparator == -1) && PyErr_Occurred()) return NULL;
    Py_buffer x;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    PyObject *answer = NULL;
    int f32 = strcmp(x.format, "f") == 0, f64 = strcmp(x.format, "d") == 0;
    Py_ssize_t n = x.itemsize ? x.len / x.itemsize : 0;
    if (!(f32 || f64) || nth < 0 || nth >= n || (comparator != 0 && comparator != 2)) {
        PyErr_Format(PyExc_ValueError, "stl_nth: x must be a C-contiguous float32 or float64 buffer, 0 <= nth < its "
                     "length, comparator 0 or 2 (format %s, %zd elements, nth %zd, comparator %ld)",
                     x.format, n, nth, comparator);
        goto done;
    }
    {
        int64_t at;
        Py_BEGIN_ALLOW_THREADS
        if (f32) at = comparator == 0 ? asc_f_select(x.buf, n, nth) : less_f_select(x.buf, n, nth);
        else at = comparator == 0 ? asc_d_select(x.buf, n, nth) : less_d_select(x.buf, n, nth);
        Py_END_ALLOW_THREADS
        if (at == -2) {
            PyErr_NoMemory();
            goto done;
        }
        answer = PyLong_FromLongLong(at);
    }
done:
    PyBuffer_Release(&x);
    return answer;
}

/* flat_median(x, out) -> bool: the lower median of all n elements of x (a C-contiguous, aligned
 * float32 "f" or float64 "d" buffer, n >= 1) into out[0] (one element of x's format), where no
 * element is NaN and that median is not a zero: then it is the one value every element order and
 * selection gives (median and nanmedian alike; the general path's steps only decide between NaN
 * bits and between -0.0 and 0.0), found by std::nth_element's steps (stl_nth's plain <) at
 * (n - 1) / 2 over a copy. False (out meaningless) otherwise: a NaN, a zero median, another
 * buffer (strided.ops.reductions.order_stats._fast_flat_median's and the general path's call). */
#define FLAT_MEDIAN(T, SELECT)                                                                         {                                                                                                      const T *v = x.buf;                                                                                int nan = 0;                                                                                       for (Py_ssize_t j = 0; j < n; j++) nan |= v[j] != v[j];                                            if (!nan) {                                                                                            int64_t at = SELECT(v, n, (n - 1) / 2);                                                            if (at == -2) oom = 1;                                                                             else if (v[at] != 0) { *(T *)out.buf = v[at]; sure = 1; }                                      }                                                                                              }
static PyObject *py_flat_median(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "flat_median(x, out) takes 2 arguments, not %zd", nargs);
        return NULL;
    }
    Py_buffer x, out;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_SIMPLE | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &out, PyBUF_SIMPLE | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    int f32 = strcmp(x.format, "f") == 0 && x.itemsize == 4, f64 = strcmp(x.format, "d") == 0 && x.itemsize == 8;
    Py_ssize_t n = x.itemsize ? x.len / x.itemsize : 0;
    int sure = 0, oom = 0;
    if ((f32 || f64) && n >= 1 && strcmp(out.format, x.format) == 0 && out.len >= x.itemsize
        && (uintptr_t)x.buf % (uintptr_t)x.itemsize == 0 && (uintptr_t)out.buf % (uintptr_t)x.itemsize == 0) {
        Py_BEGIN_ALLOW_THREADS
        if (f32) FLAT_MEDIAN(float, less_f_select) else FLAT_MEDIAN(double, less_d_select)
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    if (oom) return PyErr_NoMemory();
    return PyBool_FromLong(sure);
}
#undef FLAT_MEDIAN

/* PyTorch's CPU kthvalue (aten/src/ATen/native/Sorting.cpp, SortingUtils.h quick_select_template),
 * step for step: each row copied with its positions 0..n-1, a median-of-three quickselect (Hoare
 * partition; comparator "x above y, NaN above all but NaN") swapping values and positions together,
 * and the pair left at k - 1 read out. Which of several equal values (ties, -0.0 and 0.0, NaN)
 * comes back is the one PyTorch's kernel leaves there (ops/_support/quick_select.py is the same
 * steps in Python). */
#define KTH_GT_FLOAT(x, y) ((((x) != (x)) && !((y) != (y))) || ((x) > (y)))
#define KTH_GT_INT(x, y) ((x) > (y))
#define DEFINE_KTH(name, T, GT)                                                                          \
    static void name(const T *x, T *out_v, int64_t *out_i, Py_ssize_t rows, Py_ssize_t n, Py_ssize_t k,  \
                     T *v, int64_t *ix)                                                                 \
    {                                                                                                   \
        for (Py_ssize_t r = 0; r < rows; r++) {                                                         \
            memcpy(v, x + r * n, (size_t)n * sizeof(T));                                                \
            for (Py_ssize_t j = 0; j < n; j++) ix[j] = j;                                               \
            Py_ssize_t L = 0, R = n - 1;                                                                \
            for (;;) {                                                                                  \
                if (R <= L) break;                                                                      \
                if (R == L + 1) {                                                                       \
                    if (GT(v[L], v[R])) KTH_SWAP(T, L, R);                                              \
                    break;                                                                              \
                }                                                                                       \
                Py_ssize_t P = L + (R - L) / 2;                                                         \
                KTH_SWAP(T, P, L + 1);                                                                  \
                if (GT(v[L + 1], v[R])) KTH_SWAP(T, L + 1, R);                                          \
                if (GT(v[L], v[R])) KTH_SWAP(T, L, R);                                                  \
                if (GT(v[L + 1], v[L])) KTH_SWAP(T, L + 1, L);                                          \
                Py_ssize_t i = L + 1, j = R;                                                            \
                T piv = v[L];                                                                           \
                for (;;) {                                                                              \
                    do i++; while (GT(piv, v[i]));                                                      \
                    do j--; while (GT(v[j], piv));                                                      \
                    if (j < i) break;                                                                   \
                    KTH_SWAP(T, i, j);                                                                  \
                }                                                                                       \
                KTH_SWAP(T, L, j);                                                                      \
                if (j <= k) L = i;                                                                      \
                if (j >= k) R = j - 1;                                                                  \
            }                                                                                           \
            out_v[r] = v[k];                                                                            \
            out_i[r] = ix[k];                                                                           \
        }                                                                                               \
    }
#define KTH_SWAP(T, a, b)                                                                               \
    do {                                                                                                \
        T t_ = v[a]; v[a] = v[b]; v[b] = t_;                                                            \
        int64_t u_ = ix[a]; ix[a] = ix[b]; ix[b] = u_;                                                  \
    } while (0)
DEFINE_KTH(kth_f, float, KTH_GT_FLOAT)
DEFINE_KTH(kth_d, double, KTH_GT_FLOAT)
DEFINE_KTH(kth_q, int64_t, KTH_GT_INT)
DEFINE_KTH(kth_i, int32_t, KTH_GT_INT)
#undef KTH_SWAP
#undef DEFINE_KTH
#undef KTH_GT_INT
#undef KTH_GT_FLOAT

/* torch_kthvalue(x, values, idx, n, k) -> bool: PyTorch's CPU kthvalue (k 1-based) of each row of n
 * elements of x (C-contiguous "f", "d", "q" or "i", read only): values (x's format) and idx (int64),
 * one element per row, C-contiguous. False (nothing written) where an output overlaps x. */
static PyObject *py_torch_kthvalue(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "torch_kthvalue(x, values, idx, n, k) takes 5 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[3]);
    Py_ssize_t k = PyLong_AsSsize_t(args[4]);
    if ((n == -1 || k == -1) && PyErr_Occurred()) return NULL;
    Py_buffer x, v, idx;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    if (PyObject_GetBuffer(args[2], &idx, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        PyBuffer_Release(&v);
        return NULL;
    }
    PyObject *answer = NULL;
    char kind = format_kind(&x), ikind = format_kind(&idx);
    int known = (kind == 'f' && x.itemsize == 4) || (kind == 'd' && x.itemsize == 8)
                || ((kind == 'q' || kind == 'l') && x.itemsize == 8) || (kind == 'i' && x.itemsize == 4);
    Py_ssize_t count = x.itemsize ? x.len / x.itemsize : 0;
    Py_ssize_t rows = n > 0 ? count / n : 0;
    if (!known || !((ikind == 'q' || ikind == 'l') && idx.itemsize == 8) || n < 1 || k < 1 || k > n
        || count % n != 0 || strcmp(v.format, x.format) != 0 || v.len != rows * x.itemsize || idx.len != rows * 8) {
        PyErr_Format(PyExc_ValueError, "torch_kthvalue: x must be a C-contiguous float32, float64, int64 or int32 "
                     "buffer of rows of n, values one of x's format and idx an int64 one, one element per row, "
                     "1 <= k <= n (formats %s, %s and %s, %zd, %zd and %zd bytes, n %zd, k %zd)",
                     x.format, v.format, idx.format, x.len, v.len, idx.len, n, k);
        goto done;
    }
    if (overlaps(&x, &v) || overlaps(&x, &idx) || overlaps(&v, &idx)) {
        answer = Py_False;
        goto done;
    }
    {
        /* (the row's scratch: on the stack for short rows, the common small call) */
        double stack_v[64];
        int64_t stack_i[64];
        void *tv = stack_v;
        int64_t *ti = stack_i;
        if (n > 64) {
            tv = PyMem_RawMalloc((size_t)n * 8);
            ti = PyMem_RawMalloc((size_t)n * 8);
            if (!tv || !ti) {
                PyMem_RawFree(tv);
                PyMem_RawFree(ti);
                PyErr_NoMemory();
                goto done;
            }
        }
        Py_BEGIN_ALLOW_THREADS
        if (kind == 'f') kth_f(x.buf, v.buf, idx.buf, rows, n, k - 1, tv, ti);
        else if (kind == 'd') kth_d(x.buf, v.buf, idx.buf, rows, n, k - 1, tv, ti);
        else if (kind == 'i') kth_i(x.buf, v.buf, idx.buf, rows, n, k - 1, tv, ti);
        else kth_q(x.buf, v.buf, idx.buf, rows, n, k - 1, tv, ti);
        Py_END_ALLOW_THREADS
        if (n > 64) {
            PyMem_RawFree(tv);
            PyMem_RawFree(ti);
        }
        answer = Py_True;
    }
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&v);
    PyBuffer_Release(&idx);
    Py_XINCREF(answer);
    return answer;
}

/* stable_median(x, values, idx, n, inner, skip_nan) -> bool: the lower median of each line of n
 * elements of x (C-contiguous "f", "d", "q" or "i"; lines along a dim of n with inner elements
 * after it, blocks of n * inner) as a stable argsort reads it (ops/reductions/order_stats.py's
 * _middle): the element at position k of the line's stable ascending order, NaN last, k = (m - 1)
 * / 2 with m the line's size (skip_nan: its count of non-NaN, a line of NaN only: its first
 * element); without skip_nan a line with a NaN gives its first NaN. The value is the element at
 * that index (its own bits: which of -0.0 and 0.0, which NaN). values (x's format) and idx (int64),
 * one element per line in (outer, inner) order. Found by a selection of the k-th value v and a
 * scan: the index is the (k - #{x < v})-th element equal to v, in order (a stable sort keeps
 * equal elements, -0.0 and 0.0 too, in their order). False (nothing written) where an output
 * overlaps x. */
#define MED_SWAP(T, a, b) do { T t_ = t[a]; t[a] = t[b]; t[b] = t_; } while (0)
#define DEFINE_MEDIAN(name, T, ISNAN)                                                                    \
    static void name(const T *x, T *out_v, int64_t *out_i, Py_ssize_t lines_outer, Py_ssize_t n,          \
                     Py_ssize_t inner, int skip_nan, T *t)                                              \
    {                                                                                                   \
        for (Py_ssize_t o = 0; o < lines_outer; o++)                                                    \
            for (Py_ssize_t j = 0; j < inner; j++) {                                                    \
                const T *line = x + o * n * inner + j;                                                  \
                Py_ssize_t m = 0, first_nan = -1;                                                       \
                for (Py_ssize_t i = 0; i < n; i++) {                                                    \
                    T e = line[i * inner];                                                              \
                    if (ISNAN(e)) {                                                                     \
                        if (first_nan < 0) first_nan = i;                                               \
                    } else t[m++] = e;                                                                  \
                }                                                                                       \
                Py_ssize_t at;                                                                          \
                if (first_nan >= 0 && (!skip_nan || m == 0)) at = skip_nan ? 0 : first_nan;             \
                else {                                                                                  \
                    Py_ssize_t k = (m - 1) / 2, less = 0;                                               \
                    T v = t[0];                                                                         \
                    if (m <= 32) { /* short: the element whose rank range holds k (no branches to miss) */ \
                        for (Py_ssize_t a = 0; a < m; a++) {                                            \
                            T e = t[a];                                                                 \
                            Py_ssize_t lt = 0, le = 0;                                                  \
                            for (Py_ssize_t b = 0; b < m; b++) {                                        \
                                lt += t[b] < e;                                                         \
                                le += t[b] <= e;                                                        \
                            }                                                                           \
                            if (lt <= k && k < le) {                                                    \
                                v = e;                                                                  \
                                less = lt;                                                              \
                                break;                                                                  \
                            }                                                                           \
                        }                                                                               \
                    } else { /* quickselect (Lomuto, middle pivot): only the value counts */            \
                        Py_ssize_t lo = 0, hi = m - 1;                                                  \
                        while (lo < hi) {                                                               \
                            Py_ssize_t mid = lo + (hi - lo) / 2, s = lo;                                \
                            MED_SWAP(T, mid, hi);                                                       \
                            T p = t[hi];                                                                \
                            for (Py_ssize_t i = lo; i < hi; i++)                                        \
                                if (t[i] < p) {                                                         \
                                    MED_SWAP(T, i, s);                                                  \
                                    s++;                                                                \
                                }                                                                       \
                            MED_SWAP(T, s, hi);                                                         \
                            if (s == k) break;                                                          \
                            if (s < k) lo = s + 1; else hi = s - 1;                                     \
                        }                                                                               \
                        v = t[k];                                                                       \
                        for (Py_ssize_t i = 0; i < n; i++) less += line[i * inner] < v;                 \
                    }                                                                                   \
                    Py_ssize_t r = k - less;                                                            \
                    at = 0;                                                                             \
                    for (Py_ssize_t i = 0; i < n; i++)                                                  \
                        if (line[i * inner] == v && r-- == 0) { at = i; break; }                        \
                }                                                                                       \
                Py_ssize_t w = o * inner + j;                                                           \
                out_v[w] = line[at * inner];                                                            \
                out_i[w] = at;                                                                          \
            }                                                                                           \
    }
#define MED_FLOAT_NAN(e) ((e) != (e))
#define MED_INT_NAN(e) 0
DEFINE_MEDIAN(median_f, float, MED_FLOAT_NAN)
DEFINE_MEDIAN(median_d, double, MED_FLOAT_NAN)
DEFINE_MEDIAN(median_q, int64_t, MED_INT_NAN)
DEFINE_MEDIAN(median_i, int32_t, MED_INT_NAN)
#undef MED_INT_NAN
#undef MED_FLOAT_NAN
#undef DEFINE_MEDIAN
#undef MED_SWAP

static PyObject *py_stable_median(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "stable_median(x, values, idx, n, inner, skip_nan) takes 6 arguments, not %zd",
                     nargs);
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[3]);
    Py_ssize_t inner = PyLong_AsSsize_t(args[4]);
    int skip_nan = PyObject_IsTrue(args[5]);
    if (((n == -1 || inner == -1) && PyErr_Occurred()) || skip_nan < 0) return NULL;
    Py_buffer x, v, idx;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    if (PyObject_GetBuffer(args[2], &idx, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        PyBuffer_Release(&v);
        return NULL;
    }
    PyObject *answer = NULL;
    char kind = format_kind(&x), ikind = format_kind(&idx);
    int known = (kind == 'f' && x.itemsize == 4) || (kind == 'd' && x.itemsize == 8)
                || ((kind == 'q' || kind == 'l') && x.itemsize == 8) || (kind == 'i' && x.itemsize == 4);
    Py_ssize_t count = x.itemsize ? x.len / x.itemsize : 0;
    Py_ssize_t block = n * inner, outer = block > 0 ? count / block : 0;
    if (!known || !((ikind == 'q' || ikind == 'l') && idx.itemsize == 8) || n < 1 || inner < 1
        || count % block != 0 || strcmp(v.format, x.format) != 0 || v.len != outer * inner * x.itemsize
        || idx.len != outer * inner * 8) {
        PyErr_Format(PyExc_ValueError, "stable_median: x must be a C-contiguous float32, float64, int64 or int32 "
                     "buffer of blocks of n * inner, values one of x's format and idx an int64 one, one element per "
                     "line (formats %s, %s and %s, %zd, %zd and %zd bytes, n %zd, inner %zd)",
                     x.format, v.format, idx.format, x.len, v.len, idx.len, n, inner);
        goto done;
    }
    if (overlaps(&x, &v) || overlaps(&x, &idx) || overlaps(&v, &idx)) {
        answer = Py_False;
        goto done;
    }
    {
        double stack_t[64];  /* (a line's scratch: on the stack for short lines) */
        void *t = n > 64 ? PyMem_RawMalloc((size_t)n * 8) : stack_t;
        if (!t) {
            PyErr_NoMemory();
            goto done;
        }
        Py_BEGIN_ALLOW_THREADS
        if (kind == 'f') median_f(x.buf, v.buf, idx.buf, outer, n, inner, skip_nan, t);
        else if (kind == 'd') median_d(x.buf, v.buf, idx.buf, outer, n, inner, skip_nan, t);
        else if (kind == 'i') median_i(x.buf, v.buf, idx.buf, outer, n, inner, skip_nan, t);
        else median_q(x.buf, v.buf, idx.buf, outer, n, inner, skip_nan, t);
        Py_END_ALLOW_THREADS
        if (n > 64) PyMem_RawFree(t);
        answer = Py_True;
    }
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&v);
    PyBuffer_Release(&idx);
    Py_XINCREF(answer);
    return answer;
}

/* stl_mode(x, values, idx, n) -> bool: PyTorch's CPU mode of each row of n elements of x (C-contiguous
 * "f", "d" or "q"): its kernel's std::sort of the row's (value, position) pairs by a plain < (floats;
 * int64 by <), then the value and position of the last pair of the first longest run of equal values
 * (NaN, equal to nothing, are runs of one). values (x's format) and idx (int64): one element per row.
 * False (nothing written) where an output overlaps x. */
static PyObject *py_stl_mode(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "stl_mode(x, values, idx, n) takes 4 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[3]);
    if (n == -1 && PyErr_Occurred()) return NULL;
    Py_buffer x, v, idx;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    if (PyObject_GetBuffer(args[2], &idx, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        PyBuffer_Release(&v);
        return NULL;
    }
    PyObject *answer = NULL;
    char kind = format_kind(&x);
    char ikind = format_kind(&idx);
    int known = (kind == 'f' && x.itemsize == 4) || (kind == 'd' && x.itemsize == 8)
                || ((kind == 'q' || kind == 'l') && x.itemsize == 8);
    Py_ssize_t count = x.itemsize ? x.len / x.itemsize : 0;
    Py_ssize_t rows = n > 0 ? count / n : 0;
    if (!known || n < 1 || count % n != 0 || strcmp(v.format, x.format) != 0 || v.len != rows * x.itemsize
        || !((ikind == 'q' || ikind == 'l') && idx.itemsize == 8) || idx.len != rows * 8) {
        PyErr_Format(PyExc_ValueError, "stl_mode: x must be a C-contiguous float32, float64 or int64 buffer of rows of "
                     "n >= 1, values of x's format and idx of int64 with one element per row (formats %s, %s and %s; "
                     "%zd, %zd and %zd bytes; n %zd)", x.format, v.format, idx.format, x.len, v.len, idx.len, n);
        goto done;
    }
    if (overlaps(&x, &v) || overlaps(&x, &idx) || overlaps(&v, &idx)) {
        answer = Py_False;
        goto done;
    }
    {
        int ok;
        Py_BEGIN_ALLOW_THREADS
        if (kind == 'f') ok = less_f_mode(x.buf, v.buf, idx.buf, rows, n);
        else if (kind == 'd') ok = less_d_mode(x.buf, v.buf, idx.buf, rows, n);
        else ok = asc_q_mode(x.buf, v.buf, idx.buf, rows, n);
        Py_END_ALLOW_THREADS
        if (!ok) {
            PyErr_NoMemory();
            goto done;
        }
        answer = Py_True;
    }
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&v);
    PyBuffer_Release(&idx);
    Py_XINCREF(answer);
    return answer;
}

/* running_extreme(x, values, indices, n, inner, is_max) -> bool: cummax (is_max true) or cummin
 * along a dim of n elements lying `inner` apart (x read as (outer, n, inner), C order): PyTorch's
 * cummax_cummin_helper step for step. Per line, out = x_0, idx = 0; for each i in 0..n-1 with
 * cur = x_i: if (isnan(cur) || (!isnan(out) && cur >= out)) (<= for cummin) then out = cur,
 * idx = i; values_i = out, indices_i = idx. So the index is the last position (so far) of an
 * element equal to the running extreme or of a NaN, and a value is that element's bits (the
 * latest NaN's sign and payload, the latest zero's sign). x and values: C-contiguous buffers of one
 * format (float32 "f", float64 "d", int32 "i", int64 "l"/"q") and length; indices: int64 of as
 * many elements; a length that is a multiple of n * inner. The running state of a line is the
 * previous output element, so there is no scratch. False (nothing written) where a result
 * overlaps x or the other result, or a buffer is misaligned for its items (from_numpy's memory
 * at an odd address). */
#define EXTREME_LOOP(T, NAN)                                                                       \
    for (Py_ssize_t o = 0; o < outer; o++) {                                                       \
        const T *xo = (const T *)xb + o * n * inner;                                               \
        T *vo = (T *)vb + o * n * inner;                                                           \
        long long *io = (long long *)ib + o * n * inner;                                           \
        for (Py_ssize_t j = 0; j < inner; j++) {                                                   \
            vo[j] = xo[j];                                                                         \
            io[j] = 0;                                                                             \
        }                                                                                          \
        for (Py_ssize_t k = 1; k < n; k++) {                                                       \
            const T *xk = xo + k * inner, *vp = vo + (k - 1) * inner;                              \
            T *vk = vo + k * inner;                                                                \
            const long long *ip = io + (k - 1) * inner;                                            \
            long long *ik = io + k * inner;                                                        \
            if (is_max)                                                                            \
                for (Py_ssize_t j = 0; j < inner; j++) {                                           \
                    T cur = xk[j], out = vp[j];                                                    \
                    int take = NAN(cur) || (!NAN(out) && cur >= out);                              \
                    vk[j] = take ? cur : out;                                                      \
                    ik[j] = take ? k : ip[j];                                                      \
                }                                                                                  \
            else                                                                                   \
                for (Py_ssize_t j = 0; j < inner; j++) {                                           \
                    T cur = xk[j], out = vp[j];                                                    \
                    int take = NAN(cur) || (!NAN(out) && cur <= out);                              \
                    vk[j] = take ? cur : out;                                                      \
                    ik[j] = take ? k : ip[j];                                                      \
                }                                                                                  \
        }                                                                                          \
    }
/* inner == 1 (the dim is each line's contiguous run): each line walked on its own, in runs: while
 * no element takes over (the common case once a line is under way: the running extreme changes
 * O(log n) times on random data), the step is two stores of the unchanged state and one compare,
 * its branch predicted, no dependency from one element to the next (the select form, a compare
 * and two selects chained through the state, cost twice PyTorch's branchy loop); an element that
 * takes over starts the next run. Each step decides as EXTREME_LOOP's does. */
#define EXTREME_LINES(T, NAN)                                                                      \
    for (; outer > 0; outer--, xb += n * sizeof(T), vb += n * sizeof(T), ib += n * 8) {            \
        const T *xo = (const T *)xb;                                                               \
        T *vo = (T *)vb;                                                                           \
        long long *io = (long long *)ib;                                                           \
        T run = vo[0] = xo[0];                                                                     \
        long long at = io[0] = 0;                                                                  \
        Py_ssize_t k = 1;                                                                          \
        while (k < n) {                                                                            \
            if (NAN(run)) { /* (only a NaN takes over from a NaN) */                               \
                for (; k < n && !NAN(xo[k]); k++) { vo[k] = run; io[k] = at; }                     \
            } else if (is_max) {                                                                   \
                for (; k < n && !(NAN(xo[k]) || xo[k] >= run); k++) { vo[k] = run; io[k] = at; }  \
            } else {                                                                               \
                for (; k < n && !(NAN(xo[k]) || xo[k] <= run); k++) { vo[k] = run; io[k] = at; }  \
            }                                                                                      \
            if (k < n) { /* xo[k] takes over */                                                    \
                run = vo[k] = xo[k];                                                               \
                at = io[k] = k;                                                                    \
                k++;                                                                               \
            }                                                                                      \
        }                                                                                          \
    }
#define FLOAT_NAN(v) ((v) != (v))
#define INT_NAN(v) 0

static PyObject *py_running_extreme(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "running_extreme(x, values, indices, n, inner, is_max) takes 6 arguments, "
                     "not %zd", nargs);
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[3]), inner = PyLong_AsSsize_t(args[4]);
    int is_max = PyObject_IsTrue(args[5]);
    if ((n == -1 || inner == -1 || is_max < 0) && PyErr_Occurred()) return NULL;
    Py_buffer x, v, ix;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    if (PyObject_GetBuffer(args[2], &ix, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        PyBuffer_Release(&v);
        return NULL;
    }
    PyObject *answer = NULL;
    if (x.itemsize < 1 || (uintptr_t)x.buf % (uintptr_t)x.itemsize || (uintptr_t)v.buf % (uintptr_t)x.itemsize
        || (uintptr_t)ix.buf % 8) {
        answer = Py_False; /* (misaligned memory, whose format reads "=f": the caller's aligned copy) */
        goto done;
    }
    const char *f = x.format;
    int kind = strcmp(f, "f") == 0 && x.itemsize == 4 ? 1 : strcmp(f, "d") == 0 && x.itemsize == 8 ? 2
             : strcmp(f, "i") == 0 && x.itemsize == 4 ? 3 : (strcmp(f, "l") == 0 || strcmp(f, "q") == 0) && x.itemsize == 8 ? 4 : 0;
    int index64 = (strcmp(ix.format, "l") == 0 || strcmp(ix.format, "q") == 0) && ix.itemsize == 8;
    Py_ssize_t total = x.itemsize ? x.len / x.itemsize : 0;
    if (!kind || !index64 || strcmp(v.format, x.format) != 0 || v.len != x.len || ix.len / 8 != total || n < 1
        || inner < 1 || n > PY_SSIZE_T_MAX / inner || total % (n * inner) != 0) {
        PyErr_Format(PyExc_ValueError, "running_extreme: x and values must be C-contiguous float32, float64, int32 "
                     "or int64 buffers of one format and length, indices int64 of as many elements, a multiple of "
                     "n * inner >= 1 (formats %s, %s and %s; n %zd, inner %zd)", x.format, v.format, ix.format, n,
                     inner);
        goto done;
    }
    if (overlaps(&x, &v) || overlaps(&x, &ix) || overlaps(&v, &ix)) {
        answer = Py_False;
        goto done;
    }
    {
        const char *xb = x.buf;
        char *vb = v.buf, *ib = ix.buf;
        Py_ssize_t outer = total / (n * inner);
        Py_BEGIN_ALLOW_THREADS
        if (inner == 1) {
            if (kind == 1) { EXTREME_LINES(float, FLOAT_NAN) }
            else if (kind == 2) { EXTREME_LINES(double, FLOAT_NAN) }
            else if (kind == 3) { EXTREME_LINES(int, INT_NAN) }
            else { EXTREME_LINES(long long, INT_NAN) }
        }
        if (kind == 1) { EXTREME_LOOP(float, FLOAT_NAN) }
        else if (kind == 2) { EXTREME_LOOP(double, FLOAT_NAN) }
        else if (kind == 3) { EXTREME_LOOP(int, INT_NAN) }
        else { EXTREME_LOOP(long long, INT_NAN) }
        Py_END_ALLOW_THREADS
        answer = Py_True;
    }
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&v);
    PyBuffer_Release(&ix);
    Py_XINCREF(answer);
    return answer;
}
#undef EXTREME_LOOP
#undef EXTREME_LINES
#undef FLOAT_NAN
#undef INT_NAN

/* ------------------------------------------------------------------ PyTorch's Bessel i0, i1, i0e, i1e */
/* ATen/native/Math.h's calc_i0, calc_i1, calc_i0e, calc_i1e (Cephes' Chebyshev expansions) step for
 * step, in the tensor's own type: float32 computes in float with PyTorch's float coefficient tables
 * (i1's are shorter), so the bits are PyTorch's, not a float64 result rounded once. PyTorch's x86
 * kernels are built for AVX2/AVX-512 with GCC's default contraction, which fuses chbevl's
 * x * b1 - b2 into one fma (checked against torch: tests/test_torch_special.py). */

static const double TI1A_D[29] = {
    2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
    -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
    3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
    -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
    -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
    4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
    -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
    2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
    -1.76416518357834055153E-1, 2.52587186443633654823E-1};
static const double TI1B_D[25] = {
    7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17,
    -3.20952592199342395980E-17, 2.96262899764595013876E-16, 3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
    4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11,
    3.25260358301548823856E-11, -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
    -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
    7.78576235018280120474E-1};
static const float TI1A_F[17] = {
    9.38153738649577178388E-9f, -4.44505912879632808065E-8f, 2.00329475355213526229E-7f,
    -8.56872026469545474066E-7f, 3.47025130813767847674E-6f, -1.32731636560394358279E-5f,
    4.78156510755005422638E-5f, -1.61760815825896745588E-4f, 5.12285956168575772895E-4f,
    -1.51357245063125314899E-3f, 4.15642294431288815669E-3f, -1.05640848946261981558E-2f,
    2.47264490306265168283E-2f, -5.29459812080949914269E-2f, 1.02643658689847095384E-1f,
    -1.76416518357834055153E-1f, 2.52587186443633654823E-1f};
static const float TI1B_F[7] = {
    -3.83538038596423702205E-9f, -2.63146884688951950684E-8f, -2.51223623787020892529E-7f,
    -3.88256480887769039346E-6f, -1.10588938762623716291E-4f, -9.76109749136146840777E-3f,
    7.78576235018280120474E-1f};
static float TI0A_F[30], TI0B_F[25]; /* I0A, I0B (above) as float: filled once at import */

/* calc_digamma's constants, in double and in float */
static const double PSI_10_D = 2.25175258906672110764;
static const float PSI_10_F = 2.25175258906672110764f;
static const double DIGAMMA_A_D[7] = {8.33333333333333333333E-2, -2.10927960927960927961E-2,
                                      7.57575757575757575758E-3, -4.16666666666666666667E-3,
                                      3.96825396825396825397E-3, -8.33333333333333333333E-3,
                                      8.33333333333333333333E-2};
static const float DIGAMMA_A_F[7] = {8.33333333333333333333E-2f, -2.10927960927960927961E-2f,
                                     7.57575757575757575758E-3f, -4.16666666666666666667E-3f,
                                     3.96825396825396825397E-3f, -8.33333333333333333333E-3f,
                                     8.33333333333333333333E-2f};

/* The kernels (_torch_special.h) twice: with the FMA instructions inlined (target "fma", chosen at
 * run time on a CPU that has them) and with the C library's fma (any x86-64: the same bits, slower;
 * there i0e and i1e go element by element: both branches of each would cost two fma calls more). */
#define TB(NAME) NAME##_plain
#define TB_TARGET
#define TB_LANES 0 /* (i0e/i1e's branch-free loop: only where fma is an instruction) */
#include "_torch_special.h"
#undef TB
#undef TB_TARGET
#undef TB_LANES
#if defined(__x86_64__) || defined(__i386__)
#define TB(NAME) NAME##_fma3
#define TB_TARGET __attribute__((target("fma")))
#define TB_LANES 1
#include "_torch_special.h"
#undef TB
#undef TB_TARGET
#undef TB_LANES
/* (STRIDED_NATIVE_NO_FMA3 set: the C library's fma, as on a CPU without the instructions; the tests
 * check that copy gives the same bits) */
#define HAS_FMA3() (__builtin_cpu_supports("fma") && getenv("STRIDED_NATIVE_NO_FMA3") == NULL)
#else  /* (another architecture: its fma is the C library's, or the compiler's own instruction) */
#define torch_special_d_fma3 torch_special_d_plain
#define torch_special_f_fma3 torch_special_f_plain
#define HAS_FMA3() 0
#endif

#if defined(__GNUC__) && defined(__x86_64__)
/* float32 i0 and i1 sixteen lanes at a time (_i0_f32.h, below), where it gives bessel_f's bits */
static void i0_float32_avx512(const float *in, float *out, Py_ssize_t n, int which);
static int i0_f32_ok(int which);
#define I0_F32_WIDE(cond, which) ((cond) && lanes_form != 0 && i0_f32_ok(which))
/* (and eight lanes at a time where the CPU has AVX2 + FMA but not AVX-512) */
static void i0_float32_avx2(const float *in, float *out, Py_ssize_t n, int which);
static int i0_f32_avx2_ok(int which);
#define I0_F32_AVX2(cond, which) ((cond) && lanes_form != 0 && i0_f32_avx2_ok(which))
/* float32 digamma likewise (_digamma_f32.h, below) */
static void digamma_float32_avx512(const float *in, float *out, Py_ssize_t n);
static int digamma_f32_ok(void);
#define DIGAMMA_F32_WIDE(cond) ((cond) && lanes_form != 0 && digamma_f32_ok())
static void digamma_float32_avx2(const float *in, float *out, Py_ssize_t n);
static int digamma_f32_avx2_ok(void);
#define DIGAMMA_F32_AVX2(cond) ((cond) && lanes_form != 0 && digamma_f32_avx2_ok())
#else
#define I0_F32_WIDE(cond, which) 0
#define i0_float32_avx512(in, out, n, which) ((void)0)
#define I0_F32_AVX2(cond, which) 0
#define i0_float32_avx2(in, out, n, which) ((void)0)
#define DIGAMMA_F32_WIDE(cond) 0
#define digamma_float32_avx512(in, out, n) ((void)0)
#define DIGAMMA_F32_AVX2(cond) 0
#define digamma_float32_avx2(in, out, n) ((void)0)
#endif

static PyObject *py_torch_special(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{   /* torch_special(src, dst, which, n) -> bool: one of PyTorch's own special functions (which: 0 i0,
     * 1 i1, 2 i0e, 3 i1e, 4 digamma, 5 trigamma, 6 polygamma of order n >= 2) in the
     * buffers' type; False (nothing written) unless both are one format, one length, one memory
     * order, and do not overlap */
    (void)self;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "torch_special(src, dst, which, n) takes 4 arguments, not %zd", nargs);
        return NULL;
    }
    int which = (int)PyLong_AsLong(args[2]), n = (int)PyLong_AsLong(args[3]);
    if (PyErr_Occurred()) return NULL;
    if (which < 0 || which > 6 || (which == 6 && n < 2)) {
        PyErr_Format(PyExc_ValueError, "torch_special: which is 0..6 (6: polygamma, n >= 2), not %d (n %d)",
                     which, n);
        return NULL;
    }
    Py_buffer src, dst;
    if (get_buffers(args, &src, &dst, "torch_special") < 0) return NULL;
    if (src.itemsize != dst.itemsize || overlaps(&src, &dst)) {
        PyBuffer_Release(&src);
        PyBuffer_Release(&dst);
        Py_RETURN_FALSE;
    }
    Py_ssize_t count = src.len / src.itemsize;
    int fma3 = HAS_FMA3();
    Py_BEGIN_ALLOW_THREADS
    if (I0_F32_WIDE(src.itemsize == 4 && which <= 1 && fma3, which)) i0_float32_avx512(src.buf, dst.buf, count, which);
    else if (I0_F32_AVX2(src.itemsize == 4 && which <= 1 && fma3, which)) i0_float32_avx2(src.buf, dst.buf, count, which);
    else if (DIGAMMA_F32_WIDE(src.itemsize == 4 && which == 4 && fma3)) digamma_float32_avx512(src.buf, dst.buf, count);
    else if (DIGAMMA_F32_AVX2(src.itemsize == 4 && which == 4 && fma3)) digamma_float32_avx2(src.buf, dst.buf, count);
    else if (src.itemsize == 8) (fma3 ? torch_special_d_fma3 : torch_special_d_plain)(src.buf, dst.buf, count, which, n);
    else (fma3 ? torch_special_f_fma3 : torch_special_f_plain)(src.buf, dst.buf, count, which, n);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&src);
    PyBuffer_Release(&dst);
    Py_RETURN_TRUE;
}

/* binary_float(x, y, out, code) -> bool: a float32 op of two C-contiguous, aligned native float32 ("f")
 * buffers of one length into a third, NumPy's bits (strided's: PyTorch's wherever they are the same):
 *   code 0, fmod: C's fmodf (exact: its result is x - trunc(x / y) * y without rounding);
 *   code 1, remainder: PyTorch's fmod(x, y) + y where it is nonzero and its sign is not y's (a zero
 *           keeps fmod's sign, x's), as NumPy's npy_remainderf but for that sign of zero; two NaNs
 *           give NumPy's NaN (remainder_of_nans);
 *   code 2, floor_divide: NumPy's npy_floor_divide (npy_divmodf's quotient, PyTorch's div_floor):
 *           x / y where y is 0; else div = (x - fmod(x, y)) / y, less 1 where fmod's sign is not
 *           y's, then floor(div), one up where div - floor(div) > 0.5; a zero div: 0 with x / y's sign;
 *   code 3, hypot: glibc's hypotf, (float)sqrt((double)x * x + (double)y * y) for finite x and y
 *           (both squares exact in double: the sum and the sqrt round once each), the C library's
 *           hypotf for an infinite or NaN operand.
 * fmod's fast form: for finite x, normal finite y and an exponent of x at most 25 above y's, the
 * quotient |x| / |y| < 2^26 is rounded in double less than 2^-27 from the true one, which is an
 * integer or at least 2^-24 from one (both are multiples of y's last place), so its truncation m is
 * the true trunc(|x| / |y|); m * |y| (at most 50 bits) and |x| - m * |y| (a float32 multiple of
 * that place) are exact in double. Every other element (a zero, subnormal, infinite or NaN operand,
 * a larger ratio) is the C library's fmodf, as NumPy calls it. Blocks of FLOAT_BLOCK elements: an
 * integer test of the operands' bits says whether a block needs any fmodf. Codes 0-2 run sixteen
 * lanes where the CPU has AVX-512F (fmod_family_avx512: the same operations, the same bits).
 * False (nothing written) where the buffers are not of that kind or out overlaps x or y. Built
 * without contraction into fma (setup.py); "no-trapping-math" lets GCC turn the selects into vector
 * code (it changes no value); hypot's sqrt is SSE2's, by hand. */
#define FLOAT_BLOCK 512
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("no-trapping-math")
#endif
/* Whether an element is outside the fast form of fmod (see binary_float): x infinite or NaN; y zero,
 * subnormal, infinite or NaN; x's exponent more than 25 above y's. */
static inline uint32_t fmod_needs_libm1(float x, float y)
{
    uint32_t ux, uy;
    memcpy(&ux, &x, 4);
    memcpy(&uy, &y, 4);
    ux &= 0x7fffffffu;
    uy &= 0x7fffffffu;
    return (ux >= 0x7f800000u) | (uy - 0x00800000u >= 0x7f000000u) | ((int32_t)(ux >> 23) - (int32_t)(uy >> 23) > 25);
}

/* Whether any element of the block needs the C library's fmodf. */
VECTOR_CLONES static int fmod_needs_libm(const float *restrict a, const float *restrict b, int m)
{
    uint32_t bad = 0;
    for (int i = 0; i < m; i++) bad |= fmod_needs_libm1(a[i], b[i]);
    return bad != 0;
}

/* fmod's fast form (exact where fmod_needs_libm1 is 0; a finite placeholder elsewhere) */
static inline float fmod_fast1(float x, float y)
{
    double X = fabs((double)x), Y = fabs((double)y);
    double q = X / Y;
    double qc = q < 0x1p27 ? q : 0.0; /* (a NaN or huge quotient is not converted to an int) */
    double r = X - (double)(int32_t)qc * Y;
    return copysignf((float)r, x);
}

/* remainder from fmod: + y where fmod is nonzero (NaN too) and its sign is not y's */
static inline float remainder_from_fmod1(float r, float y)
{
    return (r != 0 && ((y < 0) != (r < 0))) ? r + y : r;
}

/* floor_divide from fmod, for a nonzero y (NumPy's npy_divmodf after its fmod) */
static inline float floor_divide_from_fmod1(float x, float y, float mod)
{
    float div = (x - mod) / y;
    div = (mod != 0 && ((y < 0) != (mod < 0))) ? div - 1.0f : div;
    /* floor(div): below 2^23 through an int (truncated, then one down for a negative fraction);
     * from 2^23 on, and for inf and NaN, div itself (floorf's answers) */
    int small = fabsf(div) < 0x1p23f;
    float t = (float)(int32_t)(small ? div : 0.0f);
    float fl = small ? (t > div ? t - 1.0f : t) : div;
    fl = (div - fl > 0.5f) ? fl + 1.0f : fl;
    /* a zero div: 0 with the sign of x / y, the xor of their signs (x / y is NaN only for a NaN
     * operand or 0 / 0, where div is NaN or y is 0: not here) */
    uint32_t ux, uy;
    memcpy(&ux, &x, 4);
    memcpy(&uy, &y, 4);
    uint32_t zb = (ux ^ uy) & 0x80000000u;
    float zero;
    memcpy(&zero, &zb, 4);
    return div != 0 ? fl : zero;
}

/* The three ops over a block in their fast form (the caller redoes the elements fmod_needs_libm1
 * marks): fmod's vector loop, then remainder's or floor_divide's over its results (two loops run
 * faster than one fused: measured, floor_divide 2.8 against 3.6 ms for 2^20 elements) */
static void fmod_fast(const float *restrict a, const float *restrict b, float *restrict o, int m)
{
    for (int i = 0; i < m; i++) o[i] = fmod_fast1(a[i], b[i]);
}

static void remainder_fast(const float *restrict a, const float *restrict b, float *restrict o, int m)
{
    fmod_fast(a, b, o, m);
    for (int i = 0; i < m; i++) o[i] = remainder_from_fmod1(o[i], b[i]);
}

static void floor_divide_fast(const float *restrict a, const float *restrict b, float *restrict o, int m)
{
    fmod_fast(a, b, o, m);
    for (int i = 0; i < m; i++) o[i] = floor_divide_from_fmod1(a[i], b[i], o[i]);
}

#if defined(__GNUC__) && defined(__x86_64__)
/* fmod_fast and remainder's / floor_divide's formulas after it, sixteen lanes (AVX-512F), the same
 * operations in the same order (GCC vectorizes the C loops four lanes wide at most: wider, the
 * mixed float / double selects defeat it): fmod's quotient of the |x| and |y| widened to double,
 * its truncation (the lanes at or above 2^27, and NaN, 0 as in fmod_fast1; those are redone by
 * the caller anyway), |x| - t * |y| (no fma) rounded to float with x's sign; then remainder's
 * + y or floor_divide's (x - mod) / y, less 1, floor by truncation, the 0.5 test and the zero's
 * sign, each a select of the scalar form's. Returns the elements done (a multiple of 16; the
 * caller runs the rest in the C loops). 2^20 elements, thread CPU time, Zen 4: floor_divide
 * 2142 -> 1004 us (PyTorch's ~2100), remainder 1180 -> 630, fmod 981 -> 558. */
__attribute__((target("avx512f"))) static inline __m256 fmod_half_avx512(__m256 x, __m256 y)
{
    __m512d X = _mm512_abs_pd(_mm512_cvtps_pd(x)), Y = _mm512_abs_pd(_mm512_cvtps_pd(y));
    __m512d q = _mm512_div_pd(X, Y);
    __m512d qc = _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(q, _mm512_set1_pd(0x1p27), _CMP_LT_OQ), q);
    __m512d t = _mm512_cvtepi32_pd(_mm512_cvttpd_epi32(qc));
    return _mm512_cvtpd_ps(_mm512_sub_pd(X, _mm512_mul_pd(t, Y)));
}

__attribute__((target("avx512f"))) static inline __m256 upper_ps_avx512(__m512 v)
{
    return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
}

__attribute__((target("avx512f"))) static int fmod_family_avx512(const float *restrict a, const float *restrict b,
                                                               float *restrict o, int m, long code)
{
    const __m512i sign = _mm512_set1_epi32((int)0x80000000u);
    const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f);
    int i = 0;
    for (; i + 16 <= m; i += 16) {
        __m512 x = _mm512_loadu_ps(a + i), y = _mm512_loadu_ps(b + i);
        __m256 rlo = fmod_half_avx512(_mm512_castps512_ps256(x), _mm512_castps512_ps256(y));
        __m256 rhi = fmod_half_avx512(upper_ps_avx512(x), upper_ps_avx512(y));
        __m512i rb = _mm512_castpd_si512(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(rlo)),
                                                            _mm256_castps_pd(rhi), 1));
        /* copysignf(r, x) */
        __m512 mod = _mm512_castsi512_ps(_mm512_or_si512(_mm512_andnot_si512(sign, rb),
                                                         _mm512_and_si512(sign, _mm512_castps_si512(x))));
        __m512 res = mod;
        if (code != 0) {
            /* mod != 0 (NaN too: C's !=) and its sign not y's */
            __mmask16 flip = _mm512_cmp_ps_mask(mod, zero, _CMP_NEQ_UQ)
                             & (_mm512_cmp_ps_mask(y, zero, _CMP_LT_OQ) ^ _mm512_cmp_ps_mask(mod, zero, _CMP_LT_OQ));
            if (code == 1) {
                res = _mm512_mask_add_ps(mod, flip, mod, y);
            } else {
                __m512 div = _mm512_div_ps(_mm512_sub_ps(x, mod), y);
                div = _mm512_mask_sub_ps(div, flip, div, one);
                __mmask16 small = _mm512_cmp_ps_mask(_mm512_abs_ps(div), _mm512_set1_ps(0x1p23f), _CMP_LT_OQ);
                __m512 t = _mm512_cvtepi32_ps(_mm512_cvttps_epi32(_mm512_maskz_mov_ps(small, div)));
                t = _mm512_mask_sub_ps(t, _mm512_cmp_ps_mask(t, div, _CMP_GT_OQ), t, one);
                __m512 fl = _mm512_mask_blend_ps(small, div, t);
                fl = _mm512_mask_add_ps(fl, _mm512_cmp_ps_mask(_mm512_sub_ps(div, fl), _mm512_set1_ps(0.5f),
                                                               _CMP_GT_OQ), fl, one);
                __m512 z = _mm512_castsi512_ps(_mm512_and_si512(
                    sign, _mm512_xor_si512(_mm512_castps_si512(x), _mm512_castps_si512(y))));
                res = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(div, zero, _CMP_NEQ_UQ), z, fl);
            }
        }
        _mm512_storeu_ps(o + i, res);
    }
    return i;
}

/* Whether fmod_family_avx512 runs: AVX-512F, and STRIDED_NATIVE_SPECIAL_ISA (tests) does not ask
 * for a narrower copy (avx2 or base: the C loops, as there is no hand-written AVX2 copy) */
static int fmod_lanes_avx512(void)
{
    static int w = -1;
    if (w < 0) {
        __builtin_cpu_init();
        w = __builtin_cpu_supports("avx512f") && special_isa_cap() >= 2;
    }
    return w;
}

/* hypot_block's vector loop with 32-byte registers (the same operations, eight elements a step):
 * 1M float32, thread CPU time, 1279 -> 642 us (the double square root's throughput per element
 * doubles; PyTorch's hypot ~1170). Returns the elements done (a multiple of 8). */
__attribute__((target("avx2"))) static int hypot_avx2(const float *restrict a, const float *restrict b,
                                                      float *restrict o, int m)
{
    int i = 0;
    for (; i + 8 <= m; i += 8) {
        __m256d xl = _mm256_cvtps_pd(_mm_loadu_ps(a + i)), xh = _mm256_cvtps_pd(_mm_loadu_ps(a + i + 4));
        __m256d yl = _mm256_cvtps_pd(_mm_loadu_ps(b + i)), yh = _mm256_cvtps_pd(_mm_loadu_ps(b + i + 4));
        __m256d sl = _mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(xl, xl), _mm256_mul_pd(yl, yl)));
        __m256d sh = _mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(xh, xh), _mm256_mul_pd(yh, yh)));
        _mm_storeu_ps(o + i, _mm256_cvtpd_ps(sl));
        _mm_storeu_ps(o + i + 4, _mm256_cvtpd_ps(sh));
    }
    return i;
}
static int hypot_has_avx2 = -1;
#endif

static void hypot_block(const float *restrict a, const float *restrict b, float *restrict o, int m)
{
    uint32_t bad = 0;
    int i = 0;
#if defined(__GNUC__) && defined(__x86_64__)
    if (hypot_has_avx2 < 0)
        hypot_has_avx2 = __builtin_cpu_supports("avx2") != 0;
    if (hypot_has_avx2)
        i = hypot_avx2(a, b, o, m);
#endif
#if defined(__SSE2__)
    /* (GCC keeps sqrt a call, for errno, in a loop it would vectorize: the SSE2 form by hand, the
     * same operations -- square, add, sqrt in double, round to float -- four elements at a time) */
    for (; i + 4 <= m; i += 4) {
        __m128 x4 = _mm_loadu_ps(a + i), y4 = _mm_loadu_ps(b + i);
        __m128d xl = _mm_cvtps_pd(x4), xh = _mm_cvtps_pd(_mm_movehl_ps(x4, x4));
        __m128d yl = _mm_cvtps_pd(y4), yh = _mm_cvtps_pd(_mm_movehl_ps(y4, y4));
        __m128d sl = _mm_sqrt_pd(_mm_add_pd(_mm_mul_pd(xl, xl), _mm_mul_pd(yl, yl)));
        __m128d sh = _mm_sqrt_pd(_mm_add_pd(_mm_mul_pd(xh, xh), _mm_mul_pd(yh, yh)));
        _mm_storeu_ps(o + i, _mm_movelh_ps(_mm_cvtpd_ps(sl), _mm_cvtpd_ps(sh)));
    }
#endif
    for (; i < m; i++) {
        double x = a[i], y = b[i];
        o[i] = (float)sqrt(x * x + y * y);
    }
    for (int i = 0; i < m; i++) {
        uint32_t ux, uy;
        memcpy(&ux, a + i, 4);
        memcpy(&uy, b + i, 4);
        bad |= ((ux & 0x7f800000u) == 0x7f800000u) | ((uy & 0x7f800000u) == 0x7f800000u);
    }
    if (bad)
        for (int i = 0; i < m; i++)
            if (!isfinite(a[i]) || !isfinite(b[i])) o[i] = hypotf(a[i], b[i]);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

/* NumPy's remainder of two NaNs (read off its results, as the x87 picks a NaN of two): the one whose
 * payload (the 22 bits below the quiet bit) is larger, quieted; of equal payloads, a negative sign only
 * where both are negative. */
static float remainder_of_nans(float x, float y)
{
    uint32_t ux, uy, r;
    memcpy(&ux, &x, 4);
    memcpy(&uy, &y, 4);
    uint32_t px = ux & 0x003fffffu, py = uy & 0x003fffffu;
    r = px > py ? ux : py > px ? uy : (ux & uy & 0x80000000u) | (ux & 0x7fffffffu);
    r |= 0x00400000u;
    float f;
    memcpy(&f, &r, 4);
    return f;
}

/* One element outside the fast form, as NumPy computes it: the C library's fmodf, then remainder's
 * or floor_divide's formula (floor_divide by zero: x / y; remainder of two NaNs: remainder_of_nans) */
static float fmod_family_libm1(float x, float y, long code)
{
    float mod = fmodf(x, y);
    if (code == 0) return mod;
    if (code == 1) return x != x && y != y ? remainder_of_nans(x, y) : remainder_from_fmod1(mod, y);
    return y == 0 ? x / y : floor_divide_from_fmod1(x, y, mod);
}

static void binary_float_run(const float *a, const float *b, float *o, Py_ssize_t n, long code)
{
    for (Py_ssize_t s = 0; s < n; s += FLOAT_BLOCK) {
        int m = n - s < FLOAT_BLOCK ? (int)(n - s) : FLOAT_BLOCK;
        const float *x = a + s, *y = b + s;
        float *out = o + s;
        if (code == 3) {
            hypot_block(x, y, out, m);
            continue;
        }
        int done = 0;
#if defined(__GNUC__) && defined(__x86_64__)
        if (fmod_lanes_avx512()) done = fmod_family_avx512(x, y, out, m, code);
#endif
        if (code == 0) fmod_fast(x + done, y + done, out + done, m - done);
        else if (code == 1) remainder_fast(x + done, y + done, out + done, m - done);
        else floor_divide_fast(x + done, y + done, out + done, m - done);
        if (fmod_needs_libm(x, y, m))
            for (int i = 0; i < m; i++)
                if (fmod_needs_libm1(x[i], y[i])) out[i] = fmod_family_libm1(x[i], y[i], code);
    }
}

/* x, y, out (args[0], [1], [2]) as C-contiguous, aligned, native float32 ("f") buffers of one
 * length, out overlapping neither: run(x, y, out, n, code), without the GIL from MIN_RELEASE
 * elements on, and True; False (nothing written) where they are not. */
typedef void (*float32_binary_fn)(const float *, const float *, float *, Py_ssize_t, long);

static PyObject *float32_binary(PyObject *const *args, float32_binary_fn run, long code)
{
    Py_buffer xb, yb, ob;
    if (three_buffers(args, &xb, &yb, &ob) < 0) return NULL;
    PyObject *answer = Py_False;
    if (strcmp(xb.format, "f") == 0 && xb.itemsize == 4 && strcmp(yb.format, "f") == 0 && strcmp(ob.format, "f") == 0
        && yb.len == xb.len && ob.len == xb.len && !overlaps(&xb, &ob) && !overlaps(&yb, &ob)
        && PyBuffer_IsContiguous(&xb, 'C') && PyBuffer_IsContiguous(&yb, 'C') && PyBuffer_IsContiguous(&ob, 'C')
        && (uintptr_t)xb.buf % 4 == 0 && (uintptr_t)yb.buf % 4 == 0 && (uintptr_t)ob.buf % 4 == 0) {
        Py_ssize_t n = xb.len / 4;
        if (n >= MIN_RELEASE) {
            Py_BEGIN_ALLOW_THREADS
            run(xb.buf, yb.buf, ob.buf, n, code);
            Py_END_ALLOW_THREADS
        } else {
            run(xb.buf, yb.buf, ob.buf, n, code);
        }
        answer = Py_True;
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

static PyObject *py_binary_float(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "binary_float(x, y, out, code) takes 4 arguments, not %zd", nargs);
        return NULL;
    }
    long code = PyLong_AsLong(args[3]);
    if (code == -1 && PyErr_Occurred()) return NULL;
    if (code < 0 || code > 3) {
        PyErr_Format(PyExc_ValueError, "binary_float: code must be 0 (fmod), 1 (remainder), 2 (floor_divide) or 3 "
                     "(hypot), not %ld", code);
        return NULL;
    }
    return float32_binary(args, binary_float_run, code);
}
#undef FLOAT_BLOCK

/* ---------------------------------------------------------------- erf, erfc: float32, in blocks
 *
 * erf_float32(src, dst), erfc_float32(src, dst): the bits of erf(src, dst) and erfc(src, dst)
 * (k_erf / k_erfc in double, rounded once to float32) for float32 buffers, about 3x faster
 * (strided.kernels.special.into takes them for float32 in and out); erf_float32 about 3.5x faster
 * again where the CPU has AVX-512 (erf_float32_avx512, below: polynomials and a certification).
 *
 * Where the scalar loop's time went (perf, 2^20 random elements, ~14 ns each): mispredicted
 * branches (|x| <= 0.46875, y <= 4: random data takes either side) stalling the dependent Horner
 * chains and divisions, and two calls to the C library's exp per element. Here:
 *  - every stage is a branch-free loop over a block of ERF_BLOCK elements (both sides computed,
 *    one selected), which the compiler vectorizes (AVX-512 / AVX2 clones picked at load time,
 *    else SSE2); the operations of each element are k_erf's, in its order: IEEE arithmetic in a
 *    vector lane rounds as the scalar one (-ffp-contract=off: no FMA; "no-trapping-math" only
 *    lets the compiler evaluate both sides of a selection, it changes no value). Cody's far
 *    interval (y > 4, three divisions) runs only for blocks that hold such an element;
 *  - exp(-ys * ys): ys = trunc(16 y) / 16 with y <= 40 is one of 641 values, whose exp is
 *    computed once, by the same call on the same (exact) argument: the same bits;
 *  - exp(-delta), delta in [0, 5): a table step times a short polynomial (ERF_EXP_STEP: < 2^-50
 *    relative), not the C library's exp. So the double result r may differ from k_erf's by a few
 *    ulps of double; the float32 it rounds to is k_erf's whenever r - eps and r + eps round to
 *    the same float32, with eps = (|t| + |r|) 2^-42 + 2^-1000 (t the tail product; > 100x the
 *    error). Every other element (about one in 10^5) and every NaN is recomputed by k_erf /
 *    k_erfc itself; below 0.46875 no exp is involved and the value is k_erf's exactly.
 * All 2^32 float32 patterns were compared bit for bit with k_erf and k_erfc (a C loop over both,
 * Dec 2026); tests/test_erf_float32.py compares a sample on every build. */

#define ERF_BLOCK 256

/* exp(-i / 64), i = 0..320 (the C library's), and 1 / k!, k = 0..6: exp(-delta) for delta in
 * [0, 5) is ERF_EXP_STEP[floor(64 delta)] * exp(-r), r = delta - floor(64 delta) / 64 in [0, 1 / 64)
 * (exact: Sterbenz), exp(-r) its Taylor polynomial to degree 6 (remainder < 5e-17): < 2^-50
 * relative in all. */
static double ERF_EXP_STEP[321];
static const double ERF_INV_FACT[7] = {1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720};

static double erf_exp_table[641]; /* exp(-(k / 16)^2), k = 0..640: k_erf's exp(-ys * ys) */
static int erf_table_ready = 0;

static void erf_table_init(void)
{   /* (called with the GIL held, before the first block) */
    if (erf_table_ready) return;
    for (int k = 0; k <= 640; k++) {
        double ys = k / 16.0;
        erf_exp_table[k] = exp(-ys * ys);
    }
    for (int i = 0; i <= 320; i++) ERF_EXP_STEP[i] = exp(-i / 64.0);
    erf_table_ready = 1;
}

/* (ERF_CLONES: defined at the top, before the erfinv loops) */

/* Below 0.46875: k_erf's erf_small (complement: 1 - it), exact, for m elements x (doubles). */
ERF_CLONES static void erf_small_stage(const double *restrict x, float *restrict res, int m, int complement)
{
    for (int j = 0; j < m; j++) {
        double z = x[j] * x[j], num = A[4] * z, den = z;
#pragma GCC unroll 8
        for (int i = 0; i < 3; i++) {
            num = (num + A[i]) * z;
            den = (den + B[i]) * z;
        }
        double small = x[j] * (num + A[3]) / (den + B[3]);
        res[j] = (float)(complement ? 1.0 - small : small);
    }
}

/* Above: tail = Cody's middle interval scaled_tail(y) (y = min(|x|, 40)), ys = trunc(16 y) / 16
 * (exp(-ys^2)'s table index / 16), e2 ~ exp(-delta), for m elements x. */
ERF_CLONES static void erf_mid_stage(const double *restrict x, int m, double *restrict tail, double *restrict ys,
                                     double *restrict e2, double *restrict steps)
{
    for (int j = 0; j < m; j++) {
        double a = fabs(x[j]);
        double y = a < 40.0 ? a : 40.0;
        double num = C[8] * y, den = y;
#pragma GCC unroll 8
        for (int i = 0; i < 7; i++) {
            num = (num + C[i]) * y;
            den = (den + D[i]) * y;
        }
        tail[j] = (num + C[7]) / (den + D[7]);
        double s = trunc(y * 16.0) / 16.0;
        ys[j] = s;
        double delta = (y - s) * (y + s), step = floor(delta * 64.0), v = step / 64.0 - delta;
        double p = ERF_INV_FACT[6];
#pragma GCC unroll 8
        for (int i = 5; i >= 0; i--) p = p * v + ERF_INV_FACT[i];
        e2[j] = p; /* exp(-delta) = ERF_EXP_STEP[steps[j]] * p */
        steps[j] = step;
    }
}

/* Cody's far interval where y > 4 (run only for blocks that hold such an element). */
ERF_CLONES static void erf_far_stage(const double *restrict x, int m, double *restrict tail)
{
    for (int j = 0; j < m; j++) {
        double a = fabs(x[j]);
        double y = a < 40.0 ? a : 40.0;
        double z = 1.0 / (y * y), fn = P[5] * z, fd = z;
#pragma GCC unroll 8
        for (int i = 0; i < 4; i++) {
            fn = (fn + P[i]) * z;
            fd = (fd + Q[i]) * z;
        }
        double far = z * (fn + P[4]) / (fd + Q[4]);
        far = (RSQRTPI - far) / y;
        tail[j] = y <= 4.0 ? tail[j] : far;
    }
}

/* res[j] = k_erf(x) (complement 0) or k_erfc(x) (1) for x above 0.46875, rounded to float32;
 * sure[j] = 0 where that rounding is not certain (res[j] is then to be recomputed). */
ERF_CLONES static void erf_tail_finish(const double *restrict x, int m, const double *restrict tail,
                                       const double *restrict e1, const double *restrict e2, float *restrict res,
                                       int32_t *restrict sure, int complement)
{
    for (int j = 0; j < m; j++) {
        double t = e1[j] * e2[j] * tail[j];
        double r = complement ? (x[j] < 0 ? 2.0 - t : t) : copysign(1.0 - t, x[j]);
        double eps = (fabs(t) + fabs(r)) * 0x1p-42 + 0x1p-1000;
        float f = (float)r;
        res[j] = f;
        /* (a NaN x has y = 40 and a finite r: not sure, k_erf returns the NaN itself) */
        sure[j] = (float)(r - eps) == f && (float)(r + eps) == f && x[j] == x[j];
    }
}

/* The tables' factors: e1 = exp(-ys^2), e2 *= exp(-floor(64 delta) / 64) (gathers: vectorized on AVX2/AVX-512). */
ERF_CLONES static void erf_gather_stage(int m, const double *restrict ys, const double *restrict steps,
                                        double *restrict e1, double *restrict e2)
{
    for (int k = 0; k < m; k++) { /* (NaN x: y = 40, delta = 0) */
        e1[k] = erf_exp_table[(int)(ys[k] * 16.0)];
        e2[k] *= ERF_EXP_STEP[(int)steps[k]];
    }
}

/* The block's x as doubles; whether any |x| > 4 (Cody's far interval). */
ERF_CLONES static int erf_load_stage(const float *restrict in, int m, double *restrict x)
{
    int far = 0;
    for (int j = 0; j < m; j++) {
        x[j] = in[j];
        far |= fabsf(in[j]) > 4.0f;
    }
    return far;
}

/* out[j]: the small result where |x| <= 0.46875 (exact), the tail's where its rounding is sure;
 * sure[j] = 0 elsewhere (NaN, or a tail value too close to a rounding boundary). */
ERF_CLONES static void erf_select_stage(const double *restrict x, int m, const float *restrict rs,
                                        const float *restrict rt, int32_t *restrict sure, float *restrict out)
{
    for (int j = 0; j < m; j++) {
        int small = fabs(x[j]) <= THRESH;
        out[j] = small ? rs[j] : rt[j];
        sure[j] = small | sure[j];
    }
}

/* One block of m <= ERF_BLOCK elements: every stage over all of them (both of Cody's sides, one
 * selected: vector lanes, no branches), then k_erf / k_erfc for the few unsure ones. */
static void erf_float32_block(const float *in, float *out, int m, int complement)
{
    double x[ERF_BLOCK], tail[ERF_BLOCK], ys[ERF_BLOCK], e1[ERF_BLOCK], e2[ERF_BLOCK], steps[ERF_BLOCK];
    float rs[ERF_BLOCK], rt[ERF_BLOCK];
    int32_t sure[ERF_BLOCK]; /* (32-bit flags: AVX-512F has no byte vectors) */
    int far = erf_load_stage(in, m, x);
    erf_small_stage(x, rs, m, complement);
    erf_mid_stage(x, m, tail, ys, e2, steps);
    if (far) erf_far_stage(x, m, tail);
    erf_gather_stage(m, ys, steps, e1, e2);
    erf_tail_finish(x, m, tail, e1, e2, rt, sure, complement);
    erf_select_stage(x, m, rs, rt, sure, out);
    for (int j = 0; j < m; j++)
        if (!sure[j]) out[j] = (float)(complement ? k_erfc(x[j]) : k_erf(x[j]));
}

/* erf of float32, AVX-512: the same bits, about 4x faster (2^20 elements of (0.1, 0.9): 4.7 -> 1.1 ms,
 * then ~0.8 ms with the one family below, Dec 2026).
 * r ~ erf(x) in double: x q(|x|), q(a) = erf(a) / a from |x|'s quarter's degree-8 Chebyshev fit in
 * u = 4 |x| - k over u in [0, 1) (ERFQ_TAB, _erf_float32_table.h, generated by tools/gen_erf_table.py:
 * 16 quarters, one Horner loop whose coefficients vpermt2pd picks from two registers' worth, indexed
 * by the low bits of floor(4 |x|) + 2^52); |x| is clamped to ERF_CLAMP below 4 first (erf there is
 * within 1.6e-8 of 1, below float32's half ulp 2^-25: k_erf rounds to +-1.0f from there on, inf
 * included, and so does r). Each r is within 5.6e-14 relative of erf and so of k_erf (Cody's, itself
 * ~1e-16), and (float)r is k_erf's float32 whenever no float32 rounding boundary lies within
 * 2^14 double ulps (>= 2^-39 |r|) of r: its double mantissa's low 29 bits, less 2^28 - 2^14, keep a
 * bit set among bits 15..28. Every other element (about one in 6.5 10^4), every subnormal input
 * (so every subnormal result: erf(x) > x for normal x > 0) and every NaN is k_erf itself. All float32 in [0, 4] and a sample of
 * bit patterns compared with k_erf (tests/test_erf_float32.py, tests/test_large34.py). About 30
 * vector operations per 8 lanes, where the quarter-centred form with a Taylor series below 0.25
 * (ERFP_TAB, which erfc's form keeps) took about 42: the selection of the series, its x^2 and the
 * limit's compare and blend go. */
#include "_erf_float32_table.h"
#if defined(__GNUC__) && defined(__x86_64__)
#define ERF_CLAMP (4.0 - 0x1p-20)
/* erf of 8 float32 lanes as doubles, rounded to float32; *sure: the lanes certified (see above) */
__attribute__((target("avx512f,avx512dq,avx512vl"), always_inline)) static inline __m256
erf8(__m256 xf, const __m512d *lo, const __m512d *hi, __mmask8 *sure)
{
    __m512d x = _mm512_cvtps_pd(xf);
    /* a = min(|x|, ERF_CLAMP) (vrangepd: min of magnitudes, sign cleared; a NaN stays NaN) */
    __m512d a = _mm512_range_pd(x, _mm512_set1_pd(ERF_CLAMP), 0x0A);
    /* s = 2^52 + floor(4a) (exact: the sum rounded down), its low 4 bits the quarter; u = 4a - k, exact */
    const __m512d magic = _mm512_set1_pd(0x1p52);
    __m512d s = _mm512_fmadd_round_pd(a, _mm512_set1_pd(4.0), magic, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512d u = _mm512_fmsub_pd(a, _mm512_set1_pd(4.0), _mm512_sub_pd(s, magic));
    __m512i idx = _mm512_castpd_si512(s);
    __m512d q = _mm512_permutex2var_pd(lo[ERFP_DEG], idx, hi[ERFP_DEG]);
    for (int d = ERFP_DEG - 1; d >= 0; d--) q = _mm512_fmadd_pd(q, u, _mm512_permutex2var_pd(lo[d], idx, hi[d]));
    /* r = a q with x's sign (vpternlogq: r's bits where the mask is clear, x's where set) */
    const __m512i sign = _mm512_set1_epi64(INT64_MIN);
    __m512d r = _mm512_castsi512_pd(_mm512_ternarylogic_epi64(_mm512_castpd_si512(_mm512_mul_pd(q, a)),
                                                              _mm512_castpd_si512(x), sign, 0xD8));
    /* sure: (low 29 bits - (2^28 - 2^14)) mod 2^29 >= 2^15, i.e. the rounding boundary 2^28 is not
     * within [-2^14, 2^14) of them; and x neither a subnormal float32 (whose erf may be subnormal:
     * fewer bits) nor NaN (vfpclassps: QNaN 0x01, denormal 0x20, SNaN 0x80). Zeros are sure: r = x. */
    __m512i off = _mm512_sub_epi64(_mm512_castpd_si512(r), _mm512_set1_epi64((1 << 28) - (1 << 14)));
    __mmask8 far = _mm512_test_epi64_mask(off, _mm512_set1_epi64((1 << 29) - (1 << 15)));
    *sure = _kandn_mask8(_mm256_fpclass_ps_mask(xf, 0x01 | 0x20 | 0x80), far);
    return _mm512_cvtpd_ps(r);
}

/* k_erf of the lanes of v (8 float32, the inputs as read: out may be in) not in sure, into o */
static void erf_unsure(const float *v, float *o, unsigned unsure)
{
    while (unsure) {
        int j = __builtin_ctz(unsure);
        float u = v[j];  /* (NaN: u quieted, as the blocked stages' conversion to double gives) */
        o[j] = u != u ? u + u : (float)k_erf((double)u);
        unsure &= unsure - 1;
    }
}

__attribute__((target("avx512f,avx512dq,avx512vl"))) static void erf_float32_avx512(const float *in, float *out, Py_ssize_t n)
{
    __m512d lo[ERFP_DEG + 1], hi[ERFP_DEG + 1];
    for (int d = 0; d <= ERFP_DEG; d++) {
        lo[d] = _mm512_loadu_pd(ERFQ_TAB[d]);
        hi[d] = _mm512_loadu_pd(ERFQ_TAB[d] + 8);
    }
    float v[16];
    Py_ssize_t i = 0;
    for (; i + 16 <= n; i += 16) {  /* (two independent chains: the Horner steps' latency overlaps) */
        __mmask8 s0, s1;
        __m256 x0 = _mm256_loadu_ps(in + i), x1 = _mm256_loadu_ps(in + i + 8);
        __m256 f0 = erf8(x0, lo, hi, &s0), f1 = erf8(x1, lo, hi, &s1);
        if ((__mmask8)(s0 & s1) != 0xff) {  /* (rare) */
            _mm256_storeu_ps(v, x0);
            _mm256_storeu_ps(v + 8, x1);
        }
        _mm256_storeu_ps(out + i, f0);
        _mm256_storeu_ps(out + i + 8, f1);
        if ((__mmask8)(s0 & s1) != 0xff) {
            erf_unsure(v, out + i, (__mmask8)~s0);
            erf_unsure(v + 8, out + i + 8, (__mmask8)~s1);
        }
    }
    for (; i < n; i += 8) {
        __mmask8 k = n - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - i)) - 1), s;
        __m256 x = _mm256_maskz_loadu_ps(k, in + i);
        __m256 f = erf8(x, lo, hi, &s);
        _mm256_storeu_ps(v, x);
        _mm256_mask_storeu_ps(out + i, k, f);
        erf_unsure(v, out + i, k & (__mmask8)~s);
    }
}

/* erfc of float32, AVX-512: the blocked stages' operations (erf_small_stage, erf_mid_stage,
 * erf_far_stage, erf_gather_stage, erf_tail_finish, erf_select_stage with complement 1), each in
 * the same order on 8 double lanes held in registers (no FMA, the same tables): every double they
 * compute is the blocked stages' own, so is every float32 result and every certification; the
 * lanes not sure (NaN, a tail value near a rounding boundary) are k_erfc itself, as there. The far
 * interval runs only for 8 lanes holding some |x| > 4, as the blocked form's per block (its
 * selection is per element). erfc_float32_avx512 (_erfc_poly.h) tries erfc8_poly_fused (|x| < 2)
 * or erfc8_fused (below: certified fused chains) first and takes erfc8 for the lanes they are not
 * sure of. 256 elements 1.22 -> 0.80 us; all 2^32 float32 patterns compared with the blocked form: identical
 * (tests/test_erf_float32.py: a sample on every build, both forms). */
__attribute__((target("avx512f,avx512dq,avx512vl"), always_inline)) static inline __m256
erfc8(__m256 xf, __mmask8 *sure)
{
    const __m512d abs_mask = _mm512_castsi512_pd(_mm512_set1_epi64(INT64_MAX));
    __m512d x = _mm512_cvtps_pd(xf);
    __m512d a = _mm512_and_pd(x, abs_mask);
    /* small: 1 - x P(z) / Q(z), z = x^2 (erf_small_stage, complement) */
    __m512d z = _mm512_mul_pd(x, x);
    __m512d num = _mm512_mul_pd(_mm512_set1_pd(A[4]), z), den = z;
    for (int i = 0; i < 3; i++) {
        num = _mm512_mul_pd(_mm512_add_pd(num, _mm512_set1_pd(A[i])), z);
        den = _mm512_mul_pd(_mm512_add_pd(den, _mm512_set1_pd(B[i])), z);
    }
    __m512d small = _mm512_div_pd(_mm512_mul_pd(x, _mm512_add_pd(num, _mm512_set1_pd(A[3]))),
                                  _mm512_add_pd(den, _mm512_set1_pd(B[3])));
    __m256 rs = _mm512_cvtpd_ps(_mm512_sub_pd(_mm512_set1_pd(1.0), small));
    /* the tail (erf_mid_stage): y = a < 40 ? a : 40 (a NaN: 40, as the comparison is false) */
    __m512d y = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, _mm512_set1_pd(40.0), _CMP_LT_OQ), _mm512_set1_pd(40.0), a);
    __m512d tn = _mm512_mul_pd(_mm512_set1_pd(C[8]), y), td = y;
    for (int i = 0; i < 7; i++) {
        tn = _mm512_mul_pd(_mm512_add_pd(tn, _mm512_set1_pd(C[i])), y);
        td = _mm512_mul_pd(_mm512_add_pd(td, _mm512_set1_pd(D[i])), y);
    }
    __m512d tail = _mm512_div_pd(_mm512_add_pd(tn, _mm512_set1_pd(C[7])), _mm512_add_pd(td, _mm512_set1_pd(D[7])));
    __m512d s16 = _mm512_roundscale_pd(_mm512_mul_pd(y, _mm512_set1_pd(16.0)), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __m512d s = _mm512_mul_pd(s16, _mm512_set1_pd(0.0625)); /* (/ 16 and / 64: exact, as the products) */
    __m512d delta = _mm512_mul_pd(_mm512_sub_pd(y, s), _mm512_add_pd(y, s));
    __m512d step = _mm512_roundscale_pd(_mm512_mul_pd(delta, _mm512_set1_pd(64.0)), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512d v = _mm512_sub_pd(_mm512_mul_pd(step, _mm512_set1_pd(0.015625)), delta);
    __m512d p = _mm512_set1_pd(ERF_INV_FACT[6]);
    for (int i = 5; i >= 0; i--) p = _mm512_add_pd(_mm512_mul_pd(p, v), _mm512_set1_pd(ERF_INV_FACT[i]));
    /* Cody's far interval (erf_far_stage) where some lane's |x| > 4 (the blocked form's test, on the float) */
    if (_mm256_cmp_ps_mask(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), xf), _mm256_set1_ps(4.0f), _CMP_GT_OQ)) {
        __m512d zf = _mm512_div_pd(_mm512_set1_pd(1.0), _mm512_mul_pd(y, y));
        __m512d fn = _mm512_mul_pd(_mm512_set1_pd(P[5]), zf), fd = zf;
        for (int i = 0; i < 4; i++) {
            fn = _mm512_mul_pd(_mm512_add_pd(fn, _mm512_set1_pd(P[i])), zf);
            fd = _mm512_mul_pd(_mm512_add_pd(fd, _mm512_set1_pd(Q[i])), zf);
        }
        __m512d far = _mm512_div_pd(_mm512_mul_pd(zf, _mm512_add_pd(fn, _mm512_set1_pd(P[4]))),
                                    _mm512_add_pd(fd, _mm512_set1_pd(Q[4])));
        far = _mm512_div_pd(_mm512_sub_pd(_mm512_set1_pd(RSQRTPI), far), y);
        tail = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(y, _mm512_set1_pd(4.0), _CMP_LE_OQ), far, tail);
    }
    /* the tables' factors (erf_gather_stage) and the result (erf_tail_finish, complement) */
    __m512d e1 = _mm512_i64gather_pd(_mm512_cvttpd_epi64(s16), erf_exp_table, 8);
    __m512d e2 = _mm512_mul_pd(p, _mm512_i64gather_pd(_mm512_cvttpd_epi64(step), ERF_EXP_STEP, 8));
    __m512d t = _mm512_mul_pd(_mm512_mul_pd(e1, e2), tail);
    __mmask8 neg = _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_LT_OQ);
    __m512d r = _mm512_mask_sub_pd(t, neg, _mm512_set1_pd(2.0), t);
    __m512d eps = _mm512_add_pd(_mm512_mul_pd(_mm512_add_pd(_mm512_and_pd(t, abs_mask), _mm512_and_pd(r, abs_mask)),
                                              _mm512_set1_pd(0x1p-42)), _mm512_set1_pd(0x1p-1000));
    __m256 rt = _mm512_cvtpd_ps(r);
    __mmask8 certain = _mm256_cmp_ps_mask(_mm512_cvtpd_ps(_mm512_sub_pd(r, eps)), rt, _CMP_EQ_OQ)
                       & _mm256_cmp_ps_mask(_mm512_cvtpd_ps(_mm512_add_pd(r, eps)), rt, _CMP_EQ_OQ)
                       & _mm512_cmp_pd_mask(x, x, _CMP_ORD_Q);
    /* (erf_select_stage) */
    __mmask8 is_small = _mm512_cmp_pd_mask(a, _mm512_set1_pd(THRESH), _CMP_LE_OQ);
    *sure = is_small | certain;
    return _mm256_mask_blend_ps(is_small, rt, rs);
}

/* erfc8's value by fused multiply-adds (its Horner chains fused: fewer operations and less
 * latency), certified: every double here is within a few of its ulps of erfc8's (the same
 * polynomials, each step one rounding instead of two), so a lane is sure where its float32 is
 * erfc8's for sure: a small lane (|x| <= 0.46875) where r - e and r + e round alike, e = |r| 2^-40;
 * a tail lane where r - E and r + E round alike, E = (|t| + |r|) (2^-42 + 2^-43) + 2^-1000: erfc8's
 * own certification interval (2^-42) widened by the distance between the two r. Lanes with some
 * |x| > 4 (the far interval) or NaN are not sure. Unsure lanes take erfc8. All 2^32 float32
 * patterns compared with the blocked form (small25). */
__attribute__((target("avx512f,avx512dq,avx512vl"), always_inline)) static inline __m256
erfc8_fused(__m256 xf, __mmask8 *sure)
{
    const __m512d abs_mask = _mm512_castsi512_pd(_mm512_set1_epi64(INT64_MAX));
    __m512d x = _mm512_cvtps_pd(xf);
    __m512d a = _mm512_and_pd(x, abs_mask);
    __m512d z = _mm512_mul_pd(x, x);
    __m512d num = _mm512_fmadd_pd(_mm512_set1_pd(A[4]), z, _mm512_set1_pd(A[0])), den = _mm512_add_pd(z, _mm512_set1_pd(B[0]));
    num = _mm512_fmadd_pd(num, z, _mm512_set1_pd(A[1]));
    den = _mm512_fmadd_pd(den, z, _mm512_set1_pd(B[1]));
    num = _mm512_fmadd_pd(num, z, _mm512_set1_pd(A[2]));
    den = _mm512_fmadd_pd(den, z, _mm512_set1_pd(B[2]));
    num = _mm512_fmadd_pd(num, z, _mm512_set1_pd(A[3]));
    den = _mm512_fmadd_pd(den, z, _mm512_set1_pd(B[3]));
    __m512d rsd = _mm512_sub_pd(_mm512_set1_pd(1.0), _mm512_div_pd(_mm512_mul_pd(x, num), den));
    __m512d es = _mm512_mul_pd(_mm512_and_pd(rsd, abs_mask), _mm512_set1_pd(0x1p-40));
    __m256 rs = _mm512_cvtpd_ps(rsd);
    __mmask8 small_sure = _mm256_cmp_ps_mask(_mm512_cvtpd_ps(_mm512_sub_pd(rsd, es)), rs, _CMP_EQ_OQ)
                          & _mm256_cmp_ps_mask(_mm512_cvtpd_ps(_mm512_add_pd(rsd, es)), rs, _CMP_EQ_OQ);
    /* the middle interval (|x| <= 4 here: no clamp to 40 needed) */
    __m512d y = a;
    __m512d tn = _mm512_fmadd_pd(_mm512_set1_pd(C[8]), y, _mm512_set1_pd(C[0])), td = _mm512_add_pd(y, _mm512_set1_pd(D[0]));
    for (int i = 1; i < 8; i++) {
        tn = _mm512_fmadd_pd(tn, y, _mm512_set1_pd(C[i]));
        td = _mm512_fmadd_pd(td, y, _mm512_set1_pd(D[i]));
    }
    __m512d tail = _mm512_div_pd(tn, td);
    __m512d s16 = _mm512_roundscale_pd(_mm512_mul_pd(y, _mm512_set1_pd(16.0)), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __m512d s = _mm512_mul_pd(s16, _mm512_set1_pd(0.0625));
    __m512d delta = _mm512_mul_pd(_mm512_sub_pd(y, s), _mm512_add_pd(y, s));
    __m512d step = _mm512_roundscale_pd(_mm512_mul_pd(delta, _mm512_set1_pd(64.0)), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512d v = _mm512_fmsub_pd(step, _mm512_set1_pd(0.015625), delta);
    __m512d p = _mm512_set1_pd(ERF_INV_FACT[6]);
    for (int i = 5; i >= 0; i--) p = _mm512_fmadd_pd(p, v, _mm512_set1_pd(ERF_INV_FACT[i]));
    __mmask8 mid = _mm512_cmp_pd_mask(a, _mm512_set1_pd(4.0), _CMP_LE_OQ);  /* (not NaN) */
    __m512i i1 = _mm512_maskz_cvttpd_epi64(mid, s16), i2 = _mm512_maskz_cvttpd_epi64(mid, step);
    __m512d e1 = _mm512_i64gather_pd(i1, erf_exp_table, 8);
    __m512d e2 = _mm512_mul_pd(p, _mm512_i64gather_pd(i2, ERF_EXP_STEP, 8));
    __m512d t = _mm512_mul_pd(_mm512_mul_pd(e1, e2), tail);
    __mmask8 neg = _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_LT_OQ);
    __m512d r = _mm512_mask_sub_pd(t, neg, _mm512_set1_pd(2.0), t);
    __m512d eps = _mm512_add_pd(_mm512_mul_pd(_mm512_add_pd(_mm512_and_pd(t, abs_mask), _mm512_and_pd(r, abs_mask)),
                                              _mm512_set1_pd(0x1p-42 + 0x1p-43)), _mm512_set1_pd(0x1p-1000));
    __m256 rt = _mm512_cvtpd_ps(r);
    __mmask8 tail_sure = mid & _mm256_cmp_ps_mask(_mm512_cvtpd_ps(_mm512_sub_pd(r, eps)), rt, _CMP_EQ_OQ)
                         & _mm256_cmp_ps_mask(_mm512_cvtpd_ps(_mm512_add_pd(r, eps)), rt, _CMP_EQ_OQ);
    __mmask8 is_small = _mm512_cmp_pd_mask(a, _mm512_set1_pd(THRESH), _CMP_LE_OQ);
    *sure = (is_small & small_sure) | (~is_small & tail_sure);
    return _mm256_mask_blend_ps(is_small, rt, rs);
}

/* k_erfc of the lanes of v (8 float32, the inputs as read: out may be in) not in sure, into o */
static void erfc_unsure(const float *v, float *o, unsigned unsure)
{
    while (unsure) {
        int j = __builtin_ctz(unsure);
        float u = v[j];  /* (NaN: u quieted, as the blocked stages' conversion to double gives; GCC
                          * folds (float)(double)u to u, so the quieting is written out) */
        o[j] = u != u ? u + u : (float)k_erfc((double)u);
        unsure &= unsure - 1;
    }
}

#include "_erfc_poly.h" /* erfc_float32_avx512 (erfc8_fused, erfc8_poly_fused) */

static int erf_float32_wide(void)
{
    static int w = -1;
    if (w < 0) {
        __builtin_cpu_init();
        w = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
    }
    return w;
}
#endif

static int erf_float32_form = -1; /* -1: AVX-512 where the CPU has it (erf8, erfc8), 0: the blocked stages (py_erf_float32_form) */

#if defined(__GNUC__) && defined(__x86_64__)
/* erfinv of float32, AVX-512 (erfinv_float32_avx512): erfinv8_fused first (below: certified fused
 * chains), erfinv8 for lanes it is not sure of, erfinv_float32_block for lanes outside the central
 * branch. erfinv8: erfinv_float32_central's operations (split_sqrt_half, log_reduced, GILES_W's
 * Horner chain, copysign), each in the same order on 8 double lanes in registers (no FMA): the same
 * doubles, so the same float32 results; *central: the lanes inside the central branch (|y| below
 * ~0.9986, not NaN); the others go to erfinv_float32_block as in the blocked form (each element's
 * value is its own, whatever its block). All 2^32 float32 patterns compared with the blocked form
 * (small25): identical; 256 elements 1.19 -> 0.84 us. */
/* erfinv8's first steps, shared with erfinv8_fused: y as doubles, a = |y|, v = (1 - a)(1 + a),
 * *central (a < 1 and v > exp(-6.25)), split_sqrt_half(v)'s exponent e and log_reduced's
 * s = (f - 1) / (f + 1), each operation as theirs */
__attribute__((target("avx512f,avx512dq,avx512vl"), always_inline)) static inline void
erfinv8_split(__m256 yf, __m512d *y_out, __m512d *a_out, __m512d *e_out, __m512d *s_out, __mmask8 *central)
{
    const __m512d abs_mask = _mm512_castsi512_pd(_mm512_set1_epi64(INT64_MAX));
    __m512d y = _mm512_cvtps_pd(yf);
    __m512d a = _mm512_and_pd(y, abs_mask);
    __m512d one = _mm512_set1_pd(1.0);
    __m512d v = _mm512_mul_pd(_mm512_sub_pd(one, a), _mm512_add_pd(one, a));
    *central = _mm512_cmp_pd_mask(a, one, _CMP_LT_OQ) & _mm512_cmp_pd_mask(v, _mm512_set1_pd(EXP_M625), _CMP_NLE_UQ);
    /* v = f 2^e, f in [0.5, 1) (split_sqrt_half's before its step; exact, for the normal v > 0 that
     * central lanes have: getexp is floor(log2 v), getmant v's mantissa with exponent -1) */
    __m512d e = _mm512_add_pd(_mm512_getexp_pd(v), one);
    __m512d f = _mm512_getmant_pd(v, _MM_MANT_NORM_p5_1, _MM_MANT_SIGN_src);
    __mmask8 low = _mm512_cmp_pd_mask(f, _mm512_set1_pd(SQRT_HALF), _CMP_LT_OQ);
    f = _mm512_mask_mul_pd(f, low, _mm512_set1_pd(2.0), f);
    *e_out = _mm512_mask_sub_pd(e, low, e, one);
    *s_out = _mm512_div_pd(_mm512_sub_pd(f, one), _mm512_add_pd(f, one));
    *y_out = y;
    *a_out = a;
}

/* erfinv8's and erfinv8_mid's first steps: w = -log_reduced(f, e) (erfinv_log's value, negated),
 * y and a = |y| as doubles, *central as erfinv8_split's */
__attribute__((target("avx512f,avx512dq,avx512vl"), always_inline)) static inline __m512d
erfinv8_neglog(__m256 yf, __m512d *y, __m512d *a, __mmask8 *central)
{
    __m512d e, s, one = _mm512_set1_pd(1.0);
    erfinv8_split(yf, y, a, &e, &s, central);
    __m512d z = _mm512_mul_pd(s, s);
    __m512d p = _mm512_set1_pd(1.0 / 11);
    p = _mm512_add_pd(_mm512_set1_pd(1.0 / 9), _mm512_mul_pd(p, z));
    p = _mm512_add_pd(_mm512_set1_pd(1.0 / 7), _mm512_mul_pd(p, z));
    p = _mm512_add_pd(_mm512_set1_pd(1.0 / 5), _mm512_mul_pd(p, z));
    p = _mm512_add_pd(_mm512_set1_pd(1.0 / 3), _mm512_mul_pd(p, z));
    p = _mm512_add_pd(one, _mm512_mul_pd(p, z));
    __m512d lg = _mm512_add_pd(_mm512_mul_pd(e, _mm512_set1_pd(LN2)), _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(2.0), s), p));
    return _mm512_xor_pd(lg, _mm512_set1_pd(-0.0));
}

__attribute__((target("avx512f,avx512dq,avx512vl"), always_inline)) static inline __m256
erfinv8(__m256 yf, __mmask8 *central)
{
    const __m512d abs_mask = _mm512_castsi512_pd(_mm512_set1_epi64(INT64_MAX));
    __m512d y, a;
    /* t = -log - 3.125, GILES_W's chain, copysign(a x, y) */
    __m512d t = _mm512_sub_pd(erfinv8_neglog(yf, &y, &a, central), _mm512_set1_pd(3.125));
    __m512d x = _mm512_set1_pd(GILES_W[0]);
#pragma GCC unroll 22
    for (int k = 1; k < 23; k++) x = _mm512_add_pd(_mm512_set1_pd(GILES_W[k]), _mm512_mul_pd(x, t));
    __m512d r = _mm512_or_pd(_mm512_and_pd(_mm512_mul_pd(a, x), abs_mask), _mm512_andnot_pd(abs_mask, y));
    return _mm512_cvtpd_ps(r);
}

/* erfinv_float32_block's middle branch (w = -log v in [6.25, 16): |y| from ~0.9986 to ~1 - 5.6e-8) on 8
 * lanes: erfinv8's steps to the log (erfinv_log's value), then sqrt(w) - 3.25 and GILES_MID's chain,
 * each operation the blocked form's, in its order (no FMA; IEEE sqrt): the same doubles, so the
 * same float32. *mid: the lanes in that branch (a < 1, v <= exp(-6.25), v > exp(-16): the blocked
 * form's kind 1); the others are not computed here. */
__attribute__((target("avx512f,avx512dq,avx512vl"), always_inline)) static inline __m256
erfinv8_mid(__m256 yf, __mmask8 *mid)
{
    const __m512d abs_mask = _mm512_castsi512_pd(_mm512_set1_epi64(INT64_MAX));
    __m512d y, a, one = _mm512_set1_pd(1.0);
    __mmask8 central;
    __m512d w = erfinv8_neglog(yf, &y, &a, &central);
    __m512d v = _mm512_mul_pd(_mm512_sub_pd(one, a), _mm512_add_pd(one, a));
    *mid = _mm512_cmp_pd_mask(a, one, _CMP_LT_OQ) & _mm512_cmp_pd_mask(v, _mm512_set1_pd(EXP_M625), _CMP_LE_OQ)
           & _mm512_cmp_pd_mask(v, _mm512_set1_pd(EXP_M16), _CMP_GT_OQ);
    __m512d t = _mm512_sub_pd(_mm512_sqrt_pd(w), _mm512_set1_pd(3.25));
    __m512d x = _mm512_set1_pd(GILES_MID[0]);
#pragma GCC unroll 18
    for (int k = 1; k < 19; k++) x = _mm512_add_pd(_mm512_set1_pd(GILES_MID[k]), _mm512_mul_pd(x, t));
    __m512d r = _mm512_or_pd(_mm512_and_pd(_mm512_mul_pd(a, x), abs_mask), _mm512_andnot_pd(abs_mask, y));
    return _mm512_cvtpd_ps(r);
}

/* erfinv8's value by fused multiply-adds (its Horner chains fused: about half the operations and
 * latency), certified: the double r differs from erfinv8's by far less than eps = |r| 2^-38 (its
 * chains are the same polynomials, each step one rounding instead of two; GILES_W economized to
 * GILES_W_SHORT, < 2^-40 relative; v, the split of v and the series' last steps in fewer
 * operations, each within a few ulps), so where r - eps and r + eps round to the same float32 that
 * float32 is erfinv8's; *sure holds those lanes (and only central ones: the others are
 * erfinv_float32_block's). About one lane in 10^4 is not sure and takes erfinv8 itself. All 2^32
 * float32 patterns compared with the blocked form (small25); every float32 in [-1, 1] again with
 * the shorter steps (erf33: none differ; 2^20 elements of (0.1, 0.9), thread time ~2.27 -> ~1.75 ms). */
/* erfinv8_fused's steps before GILES_W_SHORT's chain: its variable t, and a = |y|, *central */
__attribute__((target("avx512f,avx512dq,avx512vl"), always_inline)) static inline __m512d
erfinv8_fused_t(__m256 yf, __m512d *a_out, __mmask8 *central)
{
    /* erfinv8_split's steps but v = 1 - a * a, one fused step (a float32's a * a is exact, so v is
     * (1 - a)(1 + a) rounded once, as there, wherever 1 - a and 1 + a are exact: a >= 2^-29; below,
     * both are 1 or within an ulp of it, and central alike) */
    const __m512d abs_mask = _mm512_castsi512_pd(_mm512_set1_epi64(INT64_MAX));
    __m512d one = _mm512_set1_pd(1.0);
    __m512d a = _mm512_and_pd(_mm512_cvtps_pd(yf), abs_mask);
    __m512d v = _mm512_fnmadd_pd(a, a, one);
    /* (v > exp(-6.25) alone: a >= 1 gives v <= 0, a NaN no lane; erfinv8_split's two compares'
     * lanes) */
    *central = _mm512_cmp_pd_mask(v, _mm512_set1_pd(EXP_M625), _CMP_GT_OQ);
    /* v = f 2^e with f in [sqrt(1/2), sqrt(2)), split_sqrt_half's split: e = floor(log2(v sqrt(2)))
     * (getexp of the rounded product), f = v 2^-e (exact). Its boundary is split_sqrt_half's
     * (f < SQRT_HALF) but for the v within an ulp or so of 2^k SQRT_HALF, where the two splits
     * could differ (and so the short log, by ~3e-11); none of the v of the float32 y in [-1, 1]
     * gives a different result (all of them compared with the blocked form, erf33) */
    __m512d e = _mm512_getexp_pd(_mm512_mul_pd(v, _mm512_set1_pd(1.4142135623730951)));
    __m512d f = _mm512_scalef_pd(v, _mm512_xor_pd(e, _mm512_set1_pd(-0.0)));
    __m512d s = _mm512_div_pd(_mm512_sub_pd(f, one), _mm512_add_pd(f, one));
    *a_out = a;
    /* t = -3.125 - (e log 2 + s p2), p2 = 2 p (the series' coefficients doubled: exact) */
    __m512d z = _mm512_mul_pd(s, s);
    __m512d p = _mm512_fmadd_pd(_mm512_set1_pd(2.0 / 11), z, _mm512_set1_pd(2.0 / 9));
    p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(2.0 / 7));
    p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(2.0 / 5));
    p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(2.0 / 3));
    p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(2.0));
    return _mm512_fnmadd_pd(e, _mm512_set1_pd(LN2), _mm512_fnmadd_pd(s, p, _mm512_set1_pd(-3.125)));
}

/* erfinv8_fused's steps after the chain (x its value): the float32 with y's sign, *sure */
__attribute__((target("avx512f,avx512dq,avx512vl"), always_inline)) static inline __m256
erfinv8_fused_end(__m256 yf, __m512d a, __m512d x, __mmask8 central, __mmask8 *sure)
{
    __m512d r = _mm512_mul_pd(a, x);  /* (>= 0 in central lanes: a >= 0, x ~ sqrt(pi) / 2 > 0) */
    /* sure: every double within eps = r 2^-38 of r rounds to r's float32, read off r's bits: eps is
     * under 2^15 of r's double ulps (r < 2^(k+1) in binade k), and a float32 rounding boundary (a
     * midpoint) lies where the low 29 bits of r's mantissa are 2^28; more than 2^15 from it, r and
     * all those doubles round alike (across a power of two too, far from any midpoint). A float32
     * subnormal r (whose boundaries lie elsewhere) is never sure. (Replaces r -+ eps rounded and
     * compared: the same lanes but for a few at the edge, and those take erfinv8: the same bits.) */
    /* (as erf8's test: (low 29 bits - (2^28 - 2^15)) mod 2^29 >= 2^16, a bit set among bits 16..28:
     * the boundary more than 2^15 ulps below or at least 2^15 above, eps being under 2^15 of them) */
    __m512i off = _mm512_sub_epi64(_mm512_castpd_si512(r), _mm512_set1_epi64((1 << 28) - (1 << 15)));
    __m256 rf = _mm512_cvtpd_ps(r);
    *sure = _mm512_mask_cmp_pd_mask(_mm512_mask_test_epi64_mask(central, off, _mm512_set1_epi64((1 << 29) - (1 << 16))),
                                    r, _mm512_set1_pd(0x1p-126), _CMP_GE_OQ);
    return _mm256_or_ps(rf, _mm256_and_ps(yf, _mm256_set1_ps(-0.0f)));  /* (copysign: y's sign) */
}

__attribute__((target("avx512f,avx512dq,avx512vl"), always_inline)) static inline __m256
erfinv8_fused(__m256 yf, __mmask8 *sure)
{
    __m512d a;
    __mmask8 central;
    __m512d t = erfinv8_fused_t(yf, &a, &central);
    __m512d x = _mm512_set1_pd(GILES_W_SHORT[0]);
    for (int k = 1; k < 18; k++) x = _mm512_fmadd_pd(x, t, _mm512_set1_pd(GILES_W_SHORT[k]));
    return erfinv8_fused_end(yf, a, x, central, sure);
}

/* erfinv8_fused of eight groups of 8 (yf[g] -> f[g], sure[g]), each lane's operations erfinv8_fused's,
 * in its order, so the same doubles. Why: with four erfinv8_fused calls one after the other, GCC
 * emitted each call's 22 dependent chain steps in turn (as a loop, ~88 cycles of latency apiece,
 * which the core did not overlap with the next call's); here step k of all eight chains comes
 * together, so their latencies overlap (2^20 elements of (0.1, 0.9), thread time: ~2.9 ms with the
 * four calls, ~2.2 with four chains interleaved, ~1.76 with eight; PyTorch's ~1.93). */
__attribute__((target("avx512f,avx512dq,avx512vl"), always_inline)) static inline void
erfinv8_fused8(const __m256 *yf, __m256 *f, __mmask8 *sure)
{
    __m512d a[8], t[8], x[8];
    __mmask8 central[8];
    for (int g = 0; g < 8; g++) t[g] = erfinv8_fused_t(yf[g], &a[g], &central[g]);
    for (int g = 0; g < 8; g++) x[g] = _mm512_set1_pd(GILES_W_SHORT[0]);
#pragma GCC unroll 17
    for (int k = 1; k < 18; k++) {
        __m512d w = _mm512_set1_pd(GILES_W_SHORT[k]);
#pragma GCC unroll 8
        for (int g = 0; g < 8; g++) x[g] = _mm512_fmadd_pd(x[g], t[g], w);
    }
    for (int g = 0; g < 8; g++) f[g] = erfinv8_fused_end(yf[g], a[g], x[g], central[g], &sure[g]);
}

/* erfinv_float32_block's values of m <= 32 floats at in, into o (in may be o) */
__attribute__((noinline)) static void erfinv_float32_lanes(const float *in, float *o, int m)
{
    double y[32], r[32];
    for (int j = 0; j < m; j++) y[j] = in[j];
    erfinv_float32_block(y, r, m);
    for (int j = 0; j < m; j++) o[j] = (float)r[j];
}

/* 8 lanes' results into o: f where sure (erfinv8_fused's), else erfinv8's where central, else (the
 * lanes outside the central branch, NaN) the blocked form's, computed for those lanes alone
 * (compressed, then expanded back): each element's value is its own, whatever its neighbours.
 * y: the 8 inputs as read (o may be where they were read from). */
__attribute__((target("avx512f,avx512dq,avx512vl"), noinline)) static void
erfinv8_settle(__m256 y, __m256 f, __mmask8 sure, float *o)
{
    __mmask8 central;
    __m256 e = _mm256_mask_blend_ps(sure, erfinv8(y, &central), f);
    __mmask8 rest = (__mmask8)~(sure | central);
    if (rest) {
        float buf[8];
        _mm256_mask_compressstoreu_ps(buf, rest, y);
        erfinv_float32_lanes(buf, buf, __builtin_popcount(rest));
        e = _mm256_mask_expandloadu_ps(e, rest, buf);
    }
    _mm256_storeu_ps(o, e);
}

__attribute__((target("avx512f,avx512dq,avx512vl"))) static void erfinv_float32_avx512(const float *in, float *out, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    for (; i + 64 <= n; i += 64) {  /* (eight chains interleaved: erfinv8_fused8) */
        __mmask8 c[8];
        __m256 yv[8], f[8];
        for (int g = 0; g < 8; g++) yv[g] = _mm256_loadu_ps(in + i + 8 * g);
        erfinv8_fused8(yv, f, c);
        if ((__mmask8)(c[0] & c[1] & c[2] & c[3] & c[4] & c[5] & c[6] & c[7]) == 0xff) {
            for (int g = 0; g < 8; g++) _mm256_storeu_ps(out + i + 8 * g, f[g]);
            continue;
        }
        /* (rare in (0.1, 0.9); common where |y| comes near 1, e.g. tanh of normal data): erfinv8 for
         * the groups not all sure, and the lanes outside the central branch of all eight groups
         * gathered (compressed) for one call of the blocked form, then expanded back */
        __mmask8 rest[8];
        float buf[64];
        int cnt = 0;
        for (int g = 0; g < 8; g++) {
            rest[g] = 0;
            if (c[g] == 0xff) continue;
            /* (central lanes not sure, about one in 10^4: erfinv8's; erfinv8_fused_t's test) */
            __m512d a = _mm512_abs_pd(_mm512_cvtps_pd(yv[g]));
            __mmask8 central = _mm512_cmp_pd_mask(_mm512_fnmadd_pd(a, a, _mm512_set1_pd(1.0)),
                                                  _mm512_set1_pd(EXP_M625), _CMP_GT_OQ);
            if (central & (__mmask8)~c[g]) f[g] = _mm256_mask_blend_ps(c[g], erfinv8(yv[g], &central), f[g]);
            rest[g] = (__mmask8)~(c[g] | central);
            if (rest[g]) {  /* (the middle branch in vector lanes too: most of the rest) */
                __mmask8 mid;
                __m256 fm = erfinv8_mid(yv[g], &mid);
                mid &= rest[g];
                f[g] = _mm256_mask_blend_ps(mid, f[g], fm);
                rest[g] &= (__mmask8)~mid;
            }
            _mm256_mask_compressstoreu_ps(buf + cnt, rest[g], yv[g]);
            cnt += __builtin_popcount(rest[g]);
        }
        if (cnt) {
            double yd[64], rd[64];
            for (int j = 0; j < cnt; j++) yd[j] = buf[j];
            erfinv_float32_block(yd, rd, cnt);
            for (int j = 0; j < cnt; j++) buf[j] = (float)rd[j];
        }
        cnt = 0;
        for (int g = 0; g < 8; g++) {
            if (rest[g]) {
                f[g] = _mm256_mask_expandloadu_ps(f[g], rest[g], buf + cnt);
                cnt += __builtin_popcount(rest[g]);
            }
            _mm256_storeu_ps(out + i + 8 * g, f[g]);
        }
    }
    for (; i + 8 <= n; i += 8) {  /* (the last 8 to 63) */
        __mmask8 c;
        __m256 y = _mm256_loadu_ps(in + i), f = erfinv8_fused(y, &c);
        if (c == 0xff) _mm256_storeu_ps(out + i, f);
        else erfinv8_settle(y, f, c, out + i);
    }
    for (; i < n; i += 8) {
        int m = n - i >= 8 ? 8 : (int)(n - i);
        __mmask8 k = (__mmask8)((1u << m) - 1), c;
        __m256 x = _mm256_maskz_loadu_ps(k, in + i), f = erfinv8_fused(x, &c);
        if ((c & k) != k)
            f = erfinv8(x, &c);
        if ((c & k) == k) _mm256_mask_storeu_ps(out + i, k, f);
        else erfinv_float32_lanes(in + i, out + i, m);  /* (before any write of these m) */
    }
}

/* erfinv_float32's values for float32 src and dst (one memory order, the same memory or none):
 * the AVX-512 form where the CPU has it and erf_float32_form allows (1), else 0 (nothing done:
 * run_blocks runs) */
static int erfinv_float32_avx(Py_buffer *src, Py_buffer *dst, Py_ssize_t n)
{
    if (src->itemsize != 4 || dst->itemsize != 4 || erf_float32_form == 0 || !erf_float32_wide()) return 0;
    erfinv_float32_avx512(src->buf, dst->buf, n);
    return 1;
}
#else
static int erfinv_float32_avx(Py_buffer *src, Py_buffer *dst, Py_ssize_t n)
{
    (void)src, (void)dst, (void)n;
    return 0;
}
#endif

static void erf_float32_run(const float *in, float *out, Py_ssize_t n, int complement)
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (erf_float32_form != 0 && erf_float32_wide()) {
        /* (each 8 read before written: in and out may be the same memory) */
        if (complement) erfc_float32_avx512(in, out, n);
        else erf_float32_avx512(in, out, n);
        return;
    }
#endif   /* (each block reads all its elements before it writes one: in and out may be the same memory) */
    for (Py_ssize_t i = 0; i < n; i += ERF_BLOCK)
        erf_float32_block(in + i, out + i, n - i < ERF_BLOCK ? (int)(n - i) : ERF_BLOCK, complement);
}

/* erf_float32 / erfc_float32 (src, dst): float32 buffers only (else ValueError), one memory order;
 * src and dst may be the same memory (each block reads its elements before writing them), not
 * partly overlapping ones. */
static PyObject *erf_float32_entry(PyObject *const *args, Py_ssize_t nargs, int complement, const char *name)
{
    Py_buffer src, dst;
    if (two_buffers(args, nargs, &src, &dst, name) < 0) return NULL;
    if (src.itemsize != 4 || dst.itemsize != 4) {
        PyErr_Format(PyExc_ValueError, "%s: src and dst must be float32 buffers", name);
        PyBuffer_Release(&src);
        PyBuffer_Release(&dst);
        return NULL;
    }
    erf_table_init();
    RELEASING(erf_float32_run(src.buf, dst.buf, n, complement));
    Py_RETURN_NONE;
}

/* erf_float32_form(form) -> int: erf_float32's and erfc_float32's form from now on (-1: the AVX-512 one where the CPU
 * has it, 0: the blocked stages, both the same bits: the tests run both), the previous one returned */
static PyObject *py_erf_float32_form(PyObject *self, PyObject *arg)
{
    (void)self;
    return swap_form(&erf_float32_form, "erf_float32_form", arg);
}

static PyObject *py_erf_float32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return erf_float32_entry(args, nargs, 0, "erf_float32");
}

static PyObject *py_erfc_float32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return erf_float32_entry(args, nargs, 1, "erfc_float32");
}

/* ---------------------------------------------------------------- gelu (exact form), fused
 *
 * gelu(src, dst) -> bool: dst = (0.5 x) (1 + erf(x sqrt(1/2))) with k_erf in double and every
 * operation in double, rounded once to dst's type: the ops layer's float64 formula
 * (strided.ops.elementwise.special.gelu: 0.5 * x64 * (1.0 + erf(x64 * _SQRT_HALF)), erf the
 * compiled k_erf) operation for operation, in one pass instead of six NumPy passes and two
 * temporaries. float64: k_erf per element (the same bits). float32: erf_float32's stages (above)
 * on u = x sqrt(1/2) give 1 - t with t ~ k_erf's tail to 2^-42 relative; the gelu value g computed
 * from it is within eps = 0.5 |x| (|t| 2^-42 + 2^-50) + |g| 2^-42 + 2^-1000 of the one from k_erf
 * (t's error, the roundings of 1 - t and 1 + e, each below 2^-52, and of the product: > 100x
 * margin), so where g - eps and g + eps round to the same float32 that float32 is the formula's;
 * every other element (near a rounding boundary, x far below -5 where 1 + e cancels, NaN, inf)
 * is recomputed by k_erf itself. Below |u| = 0.46875 erf_small is k_erf's exactly. src and dst:
 * contiguous buffers of one format ("f" or "d") and memory order; they may be the same memory
 * (each block reads its elements before writing them). False (nothing written): formats differ. */
#define GELU_SQRT_HALF 0.70710678118654752440 /* (math.sqrt(0.5), the ops layer's _SQRT_HALF) */

static double gelu_exact(double x)
{
    return (0.5 * x) * (1.0 + k_erf(x * GELU_SQRT_HALF));
}

/* The block's x as doubles and u = x sqrt(1/2); whether any |u| > 4 (Cody's far interval). */
ERF_CLONES static int gelu_load_stage(const float *restrict in, int m, double *restrict x, double *restrict u)
{
    int far = 0;
    for (int j = 0; j < m; j++) {
        x[j] = in[j];
        u[j] = x[j] * GELU_SQRT_HALF;
        far |= fabs(u[j]) > 4.0;
    }
    return far;
}

/* out[j] = gelu(x[j]) rounded to float32 (erf_small where |u| <= 0.46875, exact; else from the
 * tail factors); sure[j] = 0 where that rounding is not certain (see above). */
ERF_CLONES static void gelu_finish_stage(const double *restrict x, const double *restrict u, int m,
                                         const double *restrict tail, const double *restrict e1,
                                         const double *restrict e2, float *restrict out, int32_t *restrict sure)
{
    for (int j = 0; j < m; j++) {
        double small = erf_small(u[j]); /* (inlined: a vector loop) */
        double t = e1[j] * e2[j] * tail[j];
        int is_small = fabs(u[j]) <= THRESH;
        double e = is_small ? small : copysign(1.0 - t, u[j]);
        double g = (0.5 * x[j]) * (1.0 + e);
        double eps = is_small ? 0.0 : 0.5 * fabs(x[j]) * (fabs(t) * 0x1p-42 + 0x1p-50) + fabs(g) * 0x1p-42 + 0x1p-1000;
        float f = (float)g;
        out[j] = f;
        sure[j] = (float)(g - eps) == f && (float)(g + eps) == f && x[j] == x[j];
    }
}

static void gelu_float32_block(const float *in, float *out, int m)
{
    double x[ERF_BLOCK], u[ERF_BLOCK], tail[ERF_BLOCK], ys[ERF_BLOCK], e1[ERF_BLOCK], e2[ERF_BLOCK], steps[ERF_BLOCK];
    int32_t sure[ERF_BLOCK];
    int far = gelu_load_stage(in, m, x, u);
    erf_mid_stage(u, m, tail, ys, e2, steps);
    if (far) erf_far_stage(u, m, tail);
    erf_gather_stage(m, ys, steps, e1, e2);
    gelu_finish_stage(x, u, m, tail, e1, e2, out, sure);
    for (int j = 0; j < m; j++)
        if (!sure[j]) out[j] = (float)gelu_exact(x[j]);
}

static void gelu_run(const void *in, void *out, Py_ssize_t n, int f32)
{
    if (f32) {
        for (Py_ssize_t i = 0; i < n; i += ERF_BLOCK)
            gelu_float32_block((const float *)in + i, (float *)out + i, n - i < ERF_BLOCK ? (int)(n - i) : ERF_BLOCK);
    } else {
        const double *a = in;
        double *o = out;
        for (Py_ssize_t i = 0; i < n; i++) o[i] = gelu_exact(a[i]);
    }
}

static PyObject *py_gelu(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Py_buffer src, dst;
    if (two_buffers(args, nargs, &src, &dst, "gelu") < 0) return NULL;
    if (src.itemsize != dst.itemsize) {
        PyBuffer_Release(&src);
        PyBuffer_Release(&dst);
        Py_RETURN_FALSE;
    }
    int f32 = src.itemsize == 4;
    erf_table_init();
    RELEASING(gelu_run(src.buf, dst.buf, n, f32));
    Py_RETURN_TRUE;
}
#undef GELU_SQRT_HALF

/* atanh(s) / s = 1 + z/3 + z^2/5 + ... + z^9/19 (z = s^2): for |s| < 0.172, 2^-54 relative
 * (lgamma's float32 loop: its logs as 2 atanh((f - 1) / (f + 1))) */
static inline __attribute__((always_inline)) double atanh_series(double z)
{
    double p = 1.0 / 19;
    p = 1.0 / 17 + p * z;
    p = 1.0 / 15 + p * z;
    p = 1.0 / 13 + p * z;
    p = 1.0 / 11 + p * z;
    p = 1.0 / 9 + p * z;
    p = 1.0 / 7 + p * z;
    p = 1.0 / 5 + p * z;
    p = 1.0 / 3 + p * z;
    return 1.0 + p * z;
}


/* ---------------------------------------------------------------- lgamma: float32, in blocks
 *
 * lgamma_float32(src, dst): the bits of lgamma(src, dst) (k_lgamma in double, rounded once to
 * float32) for float32 buffers, in one vector loop per block of LG_BLOCK (AVX-512 / AVX2 clones)
 * for the positive finite elements: k_lgamma's recurrence and Stirling series (up past 8, not 15:
 * the series' next term there is below 1e-16; 1 / y once), its three C library logs replaced by two of
 * this file's (~2^-50 relative: log(y), and log(prod x) for log(prod) + log(x) below 1), the two
 * logs' quotients and 1 / y from one division (three divisions cost more than the rest together).
 * The result r then differs from k_lgamma's by less than eps = (|(y - 0.5) log y| + y + |log(prod x)|
 * + 220) 2^-46 (the logs' errors, 2^-49 of each of |log prod|, |log x| <= 104 and the first term, and
 * an ulp of each of six partial sums: > 8x margin), so where r - eps and r + eps round to the same
 * float32, that float32 is k_lgamma's. Every other element (near the zeros at 1 and 2, where r
 * cancels; zero, negative, infinite and NaN x, whose reflection needs sin) is k_lgamma's own. */
#define LG_BLOCK 256
#define LG_LN2_HI 6.93147180369123816490e-01 /* (log 2's leading bits: e LN2_HI exact) */
#define LG_LN2_LO 1.90821492927058770002e-10

/* v = 2^e f (a normal v > 0), f in [sqrt(1/2), sqrt(2)): e, and f - 1 and f + 1 for
 * log(v) = e log 2 + 2 atanh((f - 1) / (f + 1)) (lg_log_finish, after one shared division) */
static inline __attribute__((always_inline)) void lg_log_reduce(double v, double *e_out, double *num, double *den)
{
    double f;
    split_sqrt_half(v, e_out, &f);
    *num = f - 1.0;
    *den = f + 1.0;
}

/* e log 2 + 2 atanh(s), s = (f - 1) / (f + 1) in [-0.172, 0.172], to s^19 (2^-54 relative) */
static inline __attribute__((always_inline)) double lg_log_finish(double e, double s)
{
    return e * LG_LN2_HI + (e * LG_LN2_LO + 2.0 * s * atanh_series(s * s));
}

ERF_CLONES static void lgamma_stage(const float *restrict in, float *restrict out, int32_t *restrict sure, int m)
{
    for (int j = 0; j < m; j++) {
        double xin = in[j];
        int fine = xin > 0.0 && xin <= 3.4028234663852886e38 && xin != 1.0 && xin != 2.0;
        double x = fine ? xin : 0.5; /* (k_lgamma's own below: any value keeps the lanes finite) */
        int small = x < 1.0;
        double z = small ? x + 1.0 : x;
        z = z > 1.0 ? z : 1.0;
        int lowz = z < 8.0; /* (k_lgamma moves up past 15; past 8 the series' next term is < 1e-16) */
        double w = lowz ? z : 1.0, step = lowz ? 1.0 : 0.0, prod = 1.0;
#pragma GCC unroll 8
        for (int i = 0; i < 8; i++) {
            prod *= w;
            w += step;
        }
        double y = lowz ? z + 8.0 : z, ey, ny, dy, ep, np_, dp;
        lg_log_reduce(y, &ey, &ny, &dy);
        lg_log_reduce(small ? prod * x : prod, &ep, &np_, &dp);
        /* one division for 1 / y and both logs' quotients (each then ~2^-51 relative) */
        double q = 1.0 / (dy * dp * y), inv = dy * dp * q, inv2 = inv * inv, series = 0.0;
#pragma GCC unroll 8
        for (int i = 7; i >= 0; i--) series = series * inv2 + STIRLING[i];
        double ly = lg_log_finish(ey, ny * dp * y * q), lpx = lg_log_finish(ep, np_ * dy * y * q);
        double first = (y - 0.5) * ly;
        double r = first - y + HALF_LOG_2PI + series * inv - lpx;
        double eps = (fabs(first) + y + fabs(lpx) + 220.0) * 0x1p-46;
        float f = (float)r;
        out[j] = f;
        sure[j] = fine & ((float)(r - eps) == f) & ((float)(r + eps) == f);
    }
}

static void lgamma_float32_run(const float *in, float *out, Py_ssize_t n)
{   /* (each block reads all its elements before it writes one: in and out may be the same memory) */
    float res[LG_BLOCK];
    int32_t sure[LG_BLOCK];
    for (Py_ssize_t i = 0; i < n; i += LG_BLOCK) {
        int m = n - i < LG_BLOCK ? (int)(n - i) : LG_BLOCK;
        lgamma_stage(in + i, res, sure, m);
        for (int j = 0; j < m; j++) res[j] = sure[j] ? res[j] : (float)k_lgamma(in[i + j]);
        memcpy(out + i, res, (size_t)m * sizeof(float));
    }
}

/* lgamma_float32(src, dst): float32 buffers only (else ValueError), one memory order; src and dst
 * may be the same memory, not partly overlapping ones. */
static PyObject *py_lgamma_float32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Py_buffer src, dst;
    if (two_buffers(args, nargs, &src, &dst, "lgamma_float32") < 0) return NULL;
    if (src.itemsize != 4 || dst.itemsize != 4) {
        PyErr_Format(PyExc_ValueError, "lgamma_float32: src and dst must be float32 buffers");
        PyBuffer_Release(&src);
        PyBuffer_Release(&dst);
        return NULL;
    }
    RELEASING(lgamma_float32_run(src.buf, dst.buf, n));
    Py_RETURN_NONE;
}
#undef LG_BLOCK
#undef LG_LN2_HI
#undef LG_LN2_LO

/* ---------------------------------------------------------------- tril_indices / triu_indices
 *
 * tri_indices(out, row, col, offset, lower) -> bool: the (row, column) pairs of the lower
 * (c <= r + offset) or upper (c >= r + offset) triangle of a row x col matrix, row by row (each
 * row's columns one run: [0, min(col, r + offset + 1)) below, [max(0, r + offset), col) above),
 * written into out, a C-contiguous (2, N) buffer of int64 ("l" or "q") or int32 ("i", each value
 * converted as NumPy's unsafe cast converts it: the low 32 bits). The same pairs as
 * strided.ops.shape.triangles._fill_index_pairs (two passes of writes instead of its five NumPy
 * passes). False (nothing written) where out is not such a buffer or N is not the triangle's size. */
#define TRI_FILL(T)                                                                                \
    {                                                                                              \
        T *rows = out.buf, *cols = (T *)out.buf + total;                                           \
        Py_ssize_t i = 0;                                                                          \
        for (long long r = 0; r < row; r++) {                                                      \
            long long lo, hi;                                                                      \
            tri_run(r, col, offset, lower, &lo, &hi);                                              \
            for (long long c = lo; c < hi; c++, i++) {                                             \
                rows[i] = (T)r;                                                                    \
                cols[i] = (T)c;                                                                    \
            }                                                                                      \
        }                                                                                          \
    }

/* row r's run of columns [lo, hi) */
static void tri_run(long long r, long long col, long long offset, int lower, long long *lo, long long *hi)
{
    long long edge = lower ? r + offset + 1 : r + offset;
    edge = edge < 0 ? 0 : edge > col ? col : edge;
    *lo = lower ? 0 : edge;
    *hi = lower ? edge : col;
}

/* The walk gather_nd and scatter_nd share: start (args[1]), strides (args[2]), shape (args[5]),
 * dim (args[6]) and size (args[7]) read into the caller's arrays; returns the dim count, or 0 with
 * an exception set. moves[c]: the storage step of the outer dim c (0 for dim, which the index
 * replaces); *total the index's element count. */
static int walk_args(PyObject *const *args, const char *name, Py_ssize_t *start, Py_ssize_t *dim, Py_ssize_t *size,
                     Py_ssize_t *shp, Py_ssize_t *xs, Py_ssize_t *moves, Py_ssize_t *total)
{
    *start = PyLong_AsSsize_t(args[1]);
    *dim = PyLong_AsSsize_t(args[6]);
    *size = PyLong_AsSsize_t(args[7]);
    if (PyErr_Occurred()) return 0;
    if (!PyTuple_Check(args[2]) || !PyTuple_Check(args[5]) || PyTuple_GET_SIZE(args[2]) != PyTuple_GET_SIZE(args[5])
        || PyTuple_GET_SIZE(args[5]) < 1 || PyTuple_GET_SIZE(args[5]) > 64 || *dim < 0
        || *dim >= PyTuple_GET_SIZE(args[5])) {
        PyErr_Format(PyExc_ValueError, "%s: strides and shape must be tuples of one length (1 to 64), dim one of "
                     "their dims", name);
        return 0;
    }
    int nd = (int)PyTuple_GET_SIZE(args[5]);
    *total = 1;
    for (int c = 0; c < nd; c++) {
        shp[c] = PyLong_AsSsize_t(PyTuple_GET_ITEM(args[5], c));
        xs[c] = PyLong_AsSsize_t(PyTuple_GET_ITEM(args[2], c));
        if (PyErr_Occurred()) return 0;
        *total *= shp[c];
        moves[c] = c == *dim ? 0 : xs[c];
    }
    return nd;
}

/* gather_nd(x, start, strides, idx, out, shape, dim, size) -> int: out[e] = x[start + sum over the
 * dims c != dim of i_c * strides[c] + idx[e] * strides[dim]] for every element e (multi-index i)
 * of the C-contiguous int64 idx of the given shape, in row-major order, into the C-contiguous out
 * of x's element size (1, 2, 4, 8 or 16 bytes); x is the whole storage (a 1-D buffer), start and
 * strides in elements. Returns -1 when done, the flat position in idx of the first value outside
 * [0, size) (out then partly written; the caller raises), or -2 (nothing written) where the buffers
 * do not fit: the caller has checked that every position the layout reaches lies in x. */
#define GATHER_LOOP(T)                                                                             \
    {                                                                                              \
        const T *xv = (const T *)xb.buf;                                                           \
        T *ov = (T *)ob.buf;                                                                       \
        for (Py_ssize_t e = 0; e < total; e += last) {                                             \
            /* (branch-free: an index outside reads position 0 of its line, found after the row) */ \
            uint64_t outside = 0;                                                                  \
            const T *line = xv + base;                                                             \
            const int64_t *row = iv + e;                                                           \
            T *o = ov + e;                                                                         \
            if (step == 0 && sd == 1)                                                              \
                for (Py_ssize_t j = 0; j < last; j++) {                                            \
                    uint64_t v = (uint64_t)row[j], in = v < (uint64_t)size;                        \
                    outside |= in ^ 1;                                                             \
                    o[j] = line[in ? v : 0];                                                       \
                }                                                                                  \
            else                                                                                   \
                for (Py_ssize_t j = 0; j < last; j++) {                                            \
                    uint64_t v = (uint64_t)row[j], in = v < (uint64_t)size;                        \
                    outside |= in ^ 1;                                                             \
                    o[j] = line[j * step + (Py_ssize_t)(in ? v : 0) * sd];                         \
                }                                                                                  \
            if (outside) {                                                                         \
                for (Py_ssize_t j = 0; j < last; j++)                                              \
                    if ((uint64_t)row[j] >= (uint64_t)size) { bad = e + j; break; }                \
                goto gathered;                                                                     \
            }                                                                                      \
            for (int c = nd - 2; c >= 0; c--) { /* the next row: the counter over the outer dims */ \
                if (++counter[c] < shp[c]) { base += moves[c]; break; }                            \
                base -= moves[c] * (shp[c] - 1);                                                   \
                counter[c] = 0;                                                                    \
            }                                                                                      \
        }                                                                                          \
    }
static PyObject *py_gather_nd(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 8) {
        PyErr_Format(PyExc_TypeError, "gather_nd(x, start, strides, idx, out, shape, dim, size) takes 8 arguments, "
                     "not %zd", nargs);
        return NULL;
    }
    Py_ssize_t start, dim, size, shp[64], xs[64], counter[64] = {0}, moves[64], total;
    int nd = walk_args(args, "gather_nd", &start, &dim, &size, shp, xs, moves, &total);
    if (!nd) return NULL;
    Py_buffer xb, ib, ob;
    if (PyObject_GetBuffer(args[0], &xb, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (PyObject_GetBuffer(args[3], &ib, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&xb);
        return NULL;
    }
    if (PyObject_GetBuffer(args[4], &ob, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&xb);
        PyBuffer_Release(&ib);
        return NULL;
    }
    Py_ssize_t bad = -2, isz = xb.itemsize;
    char ik = format_kind(&ib);
    if (total > 0 && (ik == 'l' || ik == 'q') && ib.itemsize == 8 && ib.len == total * 8 && ob.itemsize == isz
        && ob.len == total * isz && (isz == 1 || isz == 2 || isz == 4 || isz == 8 || isz == 16)
        && !overlaps(&ob, &xb) && !overlaps(&ob, &ib)) {
        const int64_t *iv = ib.buf;
        Py_ssize_t sd = xs[dim], last = shp[nd - 1], step = dim == nd - 1 ? 0 : xs[nd - 1], base = start;
        bad = -1;
        int release = total >= (1 << 14);
        PyThreadState *ts = release ? PyEval_SaveThread() : NULL;
        switch (isz) {
        case 1: GATHER_LOOP(uint8_t) break;
        case 2: GATHER_LOOP(uint16_t) break;
        case 4: GATHER_LOOP(uint32_t) break;
        case 8: GATHER_LOOP(uint64_t) break;
        default: {
            typedef struct { uint64_t a, b; } pair;
            GATHER_LOOP(pair)
        }
        }
    gathered:
        if (release) PyEval_RestoreThread(ts);
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&ib);
    PyBuffer_Release(&ob);
    return PyLong_FromSsize_t(bad);
}
#undef GATHER_LOOP

/* scatter_nd(x, start, strides, idx, vals, shape, dim, size, add) -> bool: for every element e
 * (multi-index i) of the C-contiguous int64 idx of the given shape, in row-major order, the
 * position p = start + sum over the dims c != dim of i_c * strides[c] + idx[e] * strides[dim] of
 * the storage buffer x gets vals[e] (vals one element: that one, every time): written (add 0: a
 * repeated position's last write wins, as np.put / PyTorch's serial loop), or added (add 1: x[p] =
 * x[p] + vals[e] in x's type, float32 / float64 / int32 / int64 (wrapping), in the index's order,
 * as np.add.at). The caller has checked every index value and that every position lies in x; one
 * outside [0, size) is skipped all the same. False (nothing written): buffers of other kinds or
 * sizes, or vals overlapping x.
 *
 * scatter_nd(..., add, report) with report true answers as gather_nd does instead: -1 when done,
 * else the flat position in idx of the first value outside [0, size) (the writes before it made:
 * for a caller whose x is a fresh copy it throws away, so the index needs no pass of its own
 * first), or -2 where False would be answered.
 *
 * A row of the index with its values read 4 at a time, their range tested together, and the 4
 * writes made in order (a repeated position's last write is still the last one): 1M float32
 * along the last dim of (1024, 1024), thread CPU time, the one-at-a-time loop 740-830 us against
 * 540-580 (PyTorch's scatter_ 690-740). */
#define SCATTER_ONE(T, OP, j)                                                                      \
    do {                                                                                           \
        uint64_t v = (uint64_t)row[j];                                                             \
        if (v < (uint64_t)size) OP(line + (j) * step + (Py_ssize_t)v * sd, vals[(j) * vstep]);     \
        else if (report) { bad = e + (j); goto scattered; }                                        \
    } while (0)
#define SCATTER_LOOP(T, OP)                                                                        \
    {                                                                                              \
        T *restrict xv = (T *)xb.buf;                                                              \
        const T *restrict vv = (const T *)vb.buf;                                                  \
        Py_ssize_t vstep = one ? 0 : 1;                                                            \
        int unit = step == 0 && sd == 1 && !one;                                                   \
        for (Py_ssize_t e = 0; e < total; e += last) {                                             \
            T *restrict line = xv + base;                                                          \
            const int64_t *restrict row = iv + e;                                                  \
            const T *restrict vals = vv + e * vstep;                                               \
            Py_ssize_t j = 0;                                                                      \
            if (unit) /* (along the last dim, one value per index element: the plain offsets) */   \
                for (; j + 4 <= last; j += 4) {                                                    \
                    uint64_t v0 = (uint64_t)row[j], v1 = (uint64_t)row[j + 1];                     \
                    uint64_t v2 = (uint64_t)row[j + 2], v3 = (uint64_t)row[j + 3];                 \
                    if (!((v0 < (uint64_t)size) & (v1 < (uint64_t)size) & (v2 < (uint64_t)size)    \
                          & (v3 < (uint64_t)size)))                                                \
                        break; /* (the general loop below takes this row's rest) */               \
                    OP(line + v0, vals[j]);                                                        \
                    OP(line + v1, vals[j + 1]);                                                    \
                    OP(line + v2, vals[j + 2]);                                                    \
                    OP(line + v3, vals[j + 3]);                                                    \
                }                                                                                  \
            for (; j + 4 <= last; j += 4) {                                                        \
                uint64_t v0 = (uint64_t)row[j], v1 = (uint64_t)row[j + 1];                         \
                uint64_t v2 = (uint64_t)row[j + 2], v3 = (uint64_t)row[j + 3];                     \
                if ((v0 < (uint64_t)size) & (v1 < (uint64_t)size) & (v2 < (uint64_t)size)          \
                    & (v3 < (uint64_t)size)) {                                                     \
                    OP(line + j * step + (Py_ssize_t)v0 * sd, vals[j * vstep]);                    \
                    OP(line + (j + 1) * step + (Py_ssize_t)v1 * sd, vals[(j + 1) * vstep]);        \
                    OP(line + (j + 2) * step + (Py_ssize_t)v2 * sd, vals[(j + 2) * vstep]);        \
                    OP(line + (j + 3) * step + (Py_ssize_t)v3 * sd, vals[(j + 3) * vstep]);        \
                } else {                                                                           \
                    SCATTER_ONE(T, OP, j);                                                         \
                    SCATTER_ONE(T, OP, j + 1);                                                     \
                    SCATTER_ONE(T, OP, j + 2);                                                     \
                    SCATTER_ONE(T, OP, j + 3);                                                     \
                }                                                                                  \
            }                                                                                      \
            for (; j < last; j++)                                                                  \
                SCATTER_ONE(T, OP, j);                                                             \
            for (int c = nd - 2; c >= 0; c--) {                                                    \
                if (++counter[c] < shp[c]) { base += moves[c]; break; }                            \
                base -= moves[c] * (shp[c] - 1);                                                   \
                counter[c] = 0;                                                                    \
            }                                                                                      \
        }                                                                                          \
    }
#define SCATTER_SET(at, v) (*(at) = (v))
#define SCATTER_ADD(at, v) (*(at) = *(at) + (v))
static PyObject *py_scatter_nd(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 9 && nargs != 10) {
        PyErr_Format(PyExc_TypeError, "scatter_nd(x, start, strides, idx, vals, shape, dim, size, add[, report]) "
                     "takes 9 or 10 arguments, not %zd", nargs);
        return NULL;
    }
    int add = PyObject_IsTrue(args[8]);
    if (add < 0) return NULL;
    int report = nargs == 10 ? PyObject_IsTrue(args[9]) : 0;
    if (report < 0) return NULL;
    Py_ssize_t bad = -2;
    Py_ssize_t start, dim, size, shp[64], xs[64], counter[64] = {0}, moves[64], total;
    int nd = walk_args(args, "scatter_nd", &start, &dim, &size, shp, xs, moves, &total);
    if (!nd) return NULL;
    Py_buffer xb, ib, vb;
    if (PyObject_GetBuffer(args[0], &xb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) return NULL;
    if (PyObject_GetBuffer(args[3], &ib, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&xb);
        return NULL;
    }
    if (PyObject_GetBuffer(args[4], &vb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&xb);
        PyBuffer_Release(&ib);
        return NULL;
    }
    PyObject *answer = Py_False;
    Py_ssize_t isz = xb.itemsize;
    char ik = format_kind(&ib), xk = format_kind(&xb);
    int one = vb.len == isz;
    int adds = xk == 'f' || xk == 'd' || ((xk == 'i' || xk == 'l' || xk == 'q') && (isz == 4 || isz == 8));
    if (total > 0 && (ik == 'l' || ik == 'q') && ib.itemsize == 8 && ib.len == total * 8 && vb.itemsize == isz
        && strcmp(vb.format, xb.format) == 0 && (one || vb.len == total * isz)
        && (isz == 1 || isz == 2 || isz == 4 || isz == 8) && (!add || adds) && !overlaps(&vb, &xb)
        && !overlaps(&ib, &xb)) {
        const int64_t *iv = ib.buf;
        Py_ssize_t sd = xs[dim], last = shp[nd - 1], step = dim == nd - 1 ? 0 : xs[nd - 1], base = start;
        int release = total >= (1 << 14);
        bad = -1;
        PyThreadState *ts = release ? PyEval_SaveThread() : NULL;
        if (!add) {
            switch (isz) {
            case 1: SCATTER_LOOP(uint8_t, SCATTER_SET) break;
            case 2: SCATTER_LOOP(uint16_t, SCATTER_SET) break;
            case 4: SCATTER_LOOP(uint32_t, SCATTER_SET) break;
            default: SCATTER_LOOP(uint64_t, SCATTER_SET) break;
            }
        } else if (xk == 'f') SCATTER_LOOP(float, SCATTER_ADD)
        else if (xk == 'd') SCATTER_LOOP(double, SCATTER_ADD)
        else if (isz == 4) SCATTER_LOOP(uint32_t, SCATTER_ADD)  /* (unsigned: two's complement wrapping) */
        else SCATTER_LOOP(uint64_t, SCATTER_ADD)
    scattered:
        if (release) PyEval_RestoreThread(ts);
        answer = Py_True;
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&ib);
    PyBuffer_Release(&vb);
    if (report)
        return PyLong_FromSsize_t(bad);
    Py_INCREF(answer);
    return answer;
}
#undef SCATTER_ONE
#undef SCATTER_LOOP
#undef SCATTER_SET
#undef SCATTER_ADD

/* tri_copy(src, out, n, m, k, lower) -> bool: tril (lower) / triu of every (n, m) matrix of the
 * C-contiguous buffers, row by row: each row's kept columns (c <= r + k; triu: c >= r + k) copied
 * from src (None: left as they are in out, the in-place form), the others set to zero bytes (the
 * zero of every dtype tril takes: +0.0, 0, False). k is clamped to [-n, m] by the caller. Bytes
 * move as they are (NaN payloads, -0.0 kept). False (nothing written): formats or sizes differ, a
 * partial overlap, or out not a whole number of (n, m) matrices. */
static PyObject *py_tri_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "tri_copy(src, out, n, m, k, lower) takes 6 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[2]), m = PyLong_AsSsize_t(args[3]), k = PyLong_AsSsize_t(args[4]);
    int lower = PyObject_IsTrue(args[5]);
    if (PyErr_Occurred() || lower < 0) return NULL;
    int has_src = args[0] != Py_None;
    Py_buffer src = {0}, out;
    if (PyObject_GetBuffer(args[1], &out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) return NULL;
    if (has_src && PyObject_GetBuffer(args[0], &src, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&out);
        return NULL;
    }
    PyObject *answer = Py_False;
    Py_ssize_t size = out.itemsize, row = m * size, mat = n * row;
    if (n > 0 && m > 0 && size > 0 && k >= -n && k <= m && mat > 0 && out.len % mat == 0
        && (!has_src || (src.len == out.len && src.itemsize == size
                         && (src.buf == out.buf || !overlaps(&src, &out))))) {
        Py_ssize_t count = out.len / mat;
        int release = out.len >= (1 << 16);
        PyThreadState *ts = release ? PyEval_SaveThread() : NULL;
        for (Py_ssize_t b = 0; b < count; b++)
            for (Py_ssize_t r = 0; r < n; r++) {
                char *o = (char *)out.buf + b * mat + r * row;
                const char *x = has_src ? (const char *)src.buf + b * mat + r * row : NULL;
                /* kept columns [lo, hi) */
                Py_ssize_t lo = lower ? 0 : r + k, hi = lower ? r + k + 1 : m;
                lo = lo < 0 ? 0 : (lo > m ? m : lo);
                hi = hi < lo ? lo : (hi > m ? m : hi);
                if (lo) memset(o, 0, (size_t)(lo * size));
                if (x && x != o && hi > lo) memcpy(o + lo * size, x + lo * size, (size_t)((hi - lo) * size));
                if (hi < m) memset(o + hi * size, 0, (size_t)((m - hi) * size));
            }
        if (release) PyEval_RestoreThread(ts);
        answer = Py_True;
    }
    if (has_src) PyBuffer_Release(&src);
    PyBuffer_Release(&out);
    Py_INCREF(answer);
    return answer;
}

static PyObject *py_tri_indices(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "tri_indices(out, row, col, offset, lower) takes 5 arguments, not %zd", nargs);
        return NULL;
    }
    long long row = PyLong_AsLongLong(args[1]), col = PyLong_AsLongLong(args[2]), offset = PyLong_AsLongLong(args[3]);
    int lower = PyObject_IsTrue(args[4]);
    if (PyErr_Occurred() || lower < 0) return NULL;
    Py_buffer out;
    if (PyObject_GetBuffer(args[0], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) return NULL;
    char kind = format_kind(&out);
    int i64 = (kind == 'l' || kind == 'q') && out.itemsize == 8, i32 = kind == 'i' && out.itemsize == 4;
    long long size = 0;
    for (long long r = 0; r < row; r++) {
        long long lo, hi;
        tri_run(r, col, offset, lower, &lo, &hi);
        size += hi - lo;
    }
    Py_ssize_t total = out.len / (out.itemsize ? out.itemsize : 1) / 2;
    PyObject *answer = Py_False;
    if ((i64 || i32) && row >= 0 && col >= 0 && out.len == 2 * total * out.itemsize && size == (long long)total) {
        Py_BEGIN_ALLOW_THREADS
        if (i64) TRI_FILL(int64_t)
        else TRI_FILL(int32_t)
        Py_END_ALLOW_THREADS
        answer = Py_True;
    }
    PyBuffer_Release(&out);
    Py_INCREF(answer);
    return answer;
}
#undef TRI_FILL

/* ---------------------------------------------------------------- lerp with a number weight
 *
 * lerp_runs(a, b, w, out) -> bool: out = lerp(a, b, w) for a Python float w (already a value of
 * the buffers' type), PyTorch's kernel as strided.kernels.fused.lerp_into computes it, in one pass
 * instead of two: d = b - a rounded to the type, then from the nearer end, |w| < 0.5: w d + a, else
 * (w - 1) d + b (w - 1 in the type), rounded as fma32 / fma64 round (float32: the exact float64
 * product, the float64 sum, one cast; float64: C99's fma). a, b, out: C-contiguous aligned buffers
 * of one format ("f" or "d") and length; a or b may be out itself (element for element), not
 * partly overlap it. False (nothing written) otherwise. */
ERF_CLONES static void lerp_float(const float *a, const float *b, float *o, Py_ssize_t n, float w)
{   /* (no restrict: o may be a or b, element for element; each block read whole before it is stored) */
    int low = fabsf(w) < 0.5f;
    float wf = low ? w : w - 1.0f;
    double wk = (double)wf;
    float tmp[FMA32_BLOCK];
    for (Py_ssize_t i0 = 0; i0 < n; i0 += FMA32_BLOCK) {
        int m = n - i0 < FMA32_BLOCK ? (int)(n - i0) : FMA32_BLOCK;
        int64_t suspect = 0;
        for (int j = 0; j < m; j++) {
            float d = b[i0 + j] - a[i0 + j];
            double p = wk * (double)d, e = (double)(low ? a[i0 + j] : b[i0 + j]), s = p + e, bp = s - p;
            double err = (p - (s - bp)) + (e - bp);  /* (TwoSum, as in FMA32_STEP) */
            tmp[j] = (float)s;
            suspect |= fma32_unsure(s, tmp[j], err) | (int64_t)(s != s);
        }
        if (suspect)  /* (fma32's fix-ups, the same: the two passes lerp_into would run agree) */
            for (int j = 0; j < m; j++) {
                float d = b[i0 + j] - a[i0 + j];
                double p = wk * (double)d, e = (double)(low ? a[i0 + j] : b[i0 + j]), s = p + e, bp = s - p;
                double err = (p - (s - bp)) + (e - bp);
                if (fma32_unsure(s, tmp[j], err))
                    tmp[j] = fmaf(wf, d, low ? a[i0 + j] : b[i0 + j]);
                else if (s != s)
                    tmp[j] = fma32_nan(wf, d, low ? a[i0 + j] : b[i0 + j], tmp[j]);
            }
        memcpy(o + i0, tmp, (size_t)m * sizeof(float));
    }
}

/* lerp_double's loop (both copies): fma's NaNs by fma64_nan, as fma64's */
#define LERP_DOUBLE_BODY                                                                           \
    int low = fabs(w) < 0.5;                                                                       \
    double wk = low ? w : w - 1.0, tmp[FMA32_BLOCK];                                               \
    for (Py_ssize_t i0 = 0; i0 < n; i0 += FMA32_BLOCK) {                                           \
        int m = n - i0 < FMA32_BLOCK ? (int)(n - i0) : FMA32_BLOCK;                                \
        int64_t nan = 0;                                                                           \
        if (low)                                                                                   \
            NAN_FLAGGED_LOOP(double, int64_t, fma(wk, b[i0 + j] - a[i0 + j], a[i0 + j]))                       \
        else                                                                                       \
            NAN_FLAGGED_LOOP(double, int64_t, fma(wk, b[i0 + j] - a[i0 + j], b[i0 + j]))                       \
        if (nan)                                                                                   \
            for (int j = 0; j < m; j++)                                                            \
                if (tmp[j] != tmp[j])                                                              \
                    tmp[j] = fma64_nan(wk, b[i0 + j] - a[i0 + j], low ? a[i0 + j] : b[i0 + j], tmp[j]); \
        memcpy(o + i0, tmp, (size_t)m * sizeof(double));                                           \
    }

static void lerp_double(const double *a, const double *b, double *o, Py_ssize_t n, double w)
{
    LERP_DOUBLE_BODY
}

#ifdef HAVE_HARDWARE_FMA_COPIES
/* lerp_float and lerp_double where the CPU has FMA (fma_loops' test): fmaf / fma are then the
 * vfmadd instruction, vectorized, the same bits (one rounding of w d + a), NaNs by fma32_nan. */
/* The elements of an output at out (n of them, size bytes each, aligned to their size) before its next
 * 64-byte line: a vector loop run from there stores whole lines. NumPy's large buffers start 16 bytes
 * past a line, where every 64-byte store of the AVX-512 clones straddled two lines: 1M float32
 * clamp_min into such a buffer 98-100 us, into a line-aligned one 85-89 (a memcpy 87). */
static Py_ssize_t aligned_head(const void *out, size_t size, Py_ssize_t n)
{
    uintptr_t miss = (64 - ((uintptr_t)out & 63)) & 63;
    Py_ssize_t head = miss % size ? 0 : (Py_ssize_t)(miss / size);
    return head < n ? head : n;
}

/* One block of m <= FMA32_BLOCK elements of lerp_float_fma into dst (a block buffer, or out itself
 * where out is neither input), its NaNs then fixed as fma32's. */
__attribute__((target("avx2,fma")))
static inline void lerp_block_fma(const float *a, const float *b, float *restrict tmp, int m, float wf, int low)
{
    int32_t nan = 0;
    if (low)
        NAN_FLAGGED_LOOP(float, int32_t, fmaf(wf, b[j] - a[j], a[j]))
    else
        NAN_FLAGGED_LOOP(float, int32_t, fmaf(wf, b[j] - a[j], b[j]))
    if (nan)
        for (int j = 0; j < m; j++)
            if (tmp[j] != tmp[j])
                tmp[j] = fma32_nan(wf, b[j] - a[j], low ? a[j] : b[j], tmp[j]);
}

/* lerp_float_fma's blocks from element 0 to n; apart (out is neither input): straight into out. */
__attribute__((target("avx2,fma")))
static void lerp_blocks_fma(const float *a, const float *b, float *o, Py_ssize_t n, float wf, int low, int apart)
{
    float tmp[FMA32_BLOCK];
    for (Py_ssize_t i0 = 0; i0 < n; i0 += FMA32_BLOCK) {
        int m = n - i0 < FMA32_BLOCK ? (int)(n - i0) : FMA32_BLOCK;
        lerp_block_fma(a + i0, b + i0, apart ? o + i0 : tmp, m, wf, low);
        if (!apart)
            memcpy(o + i0, tmp, (size_t)m * sizeof(float));
    }
}

/* (apart, out is written directly from its next 64-byte line on, the elements before it alone: no
 * block buffer to copy out of, and whole-line stores; 1M float32 into a NumPy buffer, warm: 155 ->
 * 138 us, NumPy's add of two arrays 146; one array as both inputs 137 -> 85, NumPy's add 100) */
__attribute__((target("avx2,fma")))
static void lerp_float_fma(const float *a, const float *b, float *o, Py_ssize_t n, float w)
{
    int low = fabsf(w) < 0.5f;
    float wf = low ? w : w - 1.0f;
    if (o != a && o != b) {  /* (the caller refuses a partial overlap: apart here) */
        Py_ssize_t head = aligned_head(o, sizeof(float), n);
        lerp_blocks_fma(a, b, o, head, wf, low, 1);
        lerp_blocks_fma(a + head, b + head, o + head, n - head, wf, low, 1);
        return;
    }
    lerp_blocks_fma(a, b, o, n, wf, low, 0);
}

__attribute__((target("avx2,fma")))
static void lerp_double_fma(const double *a, const double *b, double *o, Py_ssize_t n, double w)
{
    LERP_DOUBLE_BODY
}
#endif
#undef LERP_DOUBLE_BODY

static PyObject *py_lerp_runs(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "lerp_runs(a, b, w, out) takes 4 arguments, not %zd", nargs);
        return NULL;
    }
    double w = PyFloat_AsDouble(args[2]);
    if (w == -1.0 && PyErr_Occurred()) return NULL;
    Py_buffer ab, bb, ob;
    if (PyObject_GetBuffer(args[0], &ab, PyBUF_STRIDES | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &bb, PyBUF_STRIDES | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&ab);
        return NULL;
    }
    if (PyObject_GetBuffer(args[3], &ob, PyBUF_STRIDES | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&ab);
        PyBuffer_Release(&bb);
        return NULL;
    }
    PyObject *answer = Py_False;
    char kind = format_kind(&ab);
    Py_ssize_t size = kind == 'f' ? 4 : 8;
    if ((kind == 'f' || kind == 'd') && ab.itemsize == size && format_kind(&bb) == kind && format_kind(&ob) == kind
        && bb.len == ab.len && ob.len == ab.len && PyBuffer_IsContiguous(&ab, 'C') && PyBuffer_IsContiguous(&bb, 'C')
        && PyBuffer_IsContiguous(&ob, 'C') && (ab.buf == ob.buf || !overlaps(&ab, &ob))
        && (bb.buf == ob.buf || !overlaps(&bb, &ob)) && (uintptr_t)ab.buf % size == 0
        && (uintptr_t)bb.buf % size == 0 && (uintptr_t)ob.buf % size == 0) {
        Py_ssize_t n = ab.len / size;
        Py_BEGIN_ALLOW_THREADS
#ifdef HAVE_HARDWARE_FMA_COPIES
        if (hardware_fma()) {
            if (kind == 'f') lerp_float_fma(ab.buf, bb.buf, ob.buf, n, (float)w);
            else lerp_double_fma(ab.buf, bb.buf, ob.buf, n, w);
        } else
#endif
        if (kind == 'f') lerp_float(ab.buf, bb.buf, ob.buf, n, (float)w);
        else lerp_double(ab.buf, bb.buf, ob.buf, n, w);
        Py_END_ALLOW_THREADS
        answer = Py_True;
    }
    PyBuffer_Release(&ab);
    PyBuffer_Release(&bb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

/* ---------------------------------------------------------------- a bias added to each row
 *
 * add_rows(out, bias) -> bool: out[i, j] += bias[j] in place, for out a C-contiguous aligned buffer of
 * m * n elements (row-major (m, n)) and bias a C-contiguous aligned buffer of n > 0, one format ("f"
 * or "d"), not overlapping: NumPy's np.add(out, bias, out=out) on the (m, n) array and the (n,) bias
 * (F.linear's bias added to its fresh product), each element one IEEE addition of the same two
 * operands, so the same bits; NumPy's broadcast loop pays a call per row (128 rows of 128: 3.6 us,
 * this 1 us). False (nothing written) where the buffers are not of that kind, n does not divide
 * out's length, or the bias holds a NaN: an addition of two NaNs keeps one of them (sign and
 * payload) and which one is the compiler's operand order, so NumPy's loop then adds; with at most
 * one NaN operand the sum is that NaN (quieted) whatever the order. */
ERF_CLONES static void add_rows_float(float *restrict o, const float *restrict b, Py_ssize_t m, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < m; i++) {
        float *row = o + i * n;
        for (Py_ssize_t j = 0; j < n; j++) row[j] = row[j] + b[j];
    }
}

ERF_CLONES static void add_rows_double(double *restrict o, const double *restrict b, Py_ssize_t m, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < m; i++) {
        double *row = o + i * n;
        for (Py_ssize_t j = 0; j < n; j++) row[j] = row[j] + b[j];
    }
}

static PyObject *py_add_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "add_rows(out, bias) takes 2 arguments, not %zd", nargs);
        return NULL;
    }
    Py_buffer ob, bb;
    if (PyObject_GetBuffer(args[0], &ob, PyBUF_STRIDES | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &bb, PyBUF_STRIDES | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&ob);
        return NULL;
    }
    PyObject *answer = Py_False;
    char kind = format_kind(&ob);
    Py_ssize_t size = kind == 'f' ? 4 : 8;
    if ((kind == 'f' || kind == 'd') && ob.itemsize == size && format_kind(&bb) == kind && bb.itemsize == size
        && bb.len > 0 && ob.len % bb.len == 0 && PyBuffer_IsContiguous(&ob, 'C') && PyBuffer_IsContiguous(&bb, 'C')
        && !overlaps(&ob, &bb) && (uintptr_t)ob.buf % size == 0 && (uintptr_t)bb.buf % size == 0) {
        Py_ssize_t n = bb.len / size, m = ob.len / bb.len;
        int nan = 0;
        if (kind == 'f') {
            const float *b = bb.buf;
            for (Py_ssize_t j = 0; j < n; j++) nan |= b[j] != b[j];
            if (!nan) add_rows_float(ob.buf, bb.buf, m, n);
        } else {
            const double *b = bb.buf;
            for (Py_ssize_t j = 0; j < n; j++) nan |= b[j] != b[j];
            if (!nan) add_rows_double(ob.buf, bb.buf, m, n);
        }
        answer = nan ? Py_False : Py_True;
    }
    PyBuffer_Release(&ob);
    PyBuffer_Release(&bb);
    Py_INCREF(answer);
    return answer;
}

/* ---------------------------------------------------------------- addcdiv over flat runs
 *
 * addcdiv_runs(x, y1, y2, [value,] out) -> bool (value left out: None): out = x + (y1 * value) / y2 (y1 itself where value
 * is None: a value of 1), each operation rounded in the buffers' type, value first rounded to it
 * (NumPy's weak scalar): strided.ops.elementwise.binary_more._addc_kernel's three ufuncs in one
 * pass. x, y1, y2, out: C-contiguous aligned buffers of one format ("f" or "d") and length, out
 * overlapping none of them (a fresh result) or x itself (in place: addcdiv_'s Adam update) and
 * neither y. False (nothing written) otherwise, and False (out partly written) where the product
 * or the quotient met two NaN operands: x86 keeps one of them (sign and payload) and which one is
 * the loop's choice, so NumPy's loop then decides; with at most one NaN operand the result is that
 * NaN whatever the order. The sum of a NaN x and a NaN quotient is the quotient's NaN: PyTorch's
 * float32 / float64 kernel gives it in its vector and scalar loops alike (AVX512, AVX2 and default
 * capabilities, measured with torch 2.13; x86 would keep x's in the order written, NumPy's loop
 * did), so the C loop writes q itself wherever q is NaN. In place, a NaN in x, y1, y2 or value returns False before anything is
 * written (a run could not be redone): without one, no operation meets two NaNs (only y1 * value
 * can make one, inf * 0, and it meets y2 and x, which hold none). */
ERF_CLONES static int addcdiv_float(const float *restrict x, const float *restrict y1, const float *restrict y2,
                                    float *restrict o, Py_ssize_t n, int scale, float v)
{
    int32_t both = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        float s = scale ? y1[i] * v : y1[i], q = s / y2[i];
        both |= ((y1[i] != y1[i]) & (v != v)) | ((s != s) & (y2[i] != y2[i]));
        o[i] = q != q ? q : x[i] + q; /* (a NaN quotient: its word, as PyTorch's, whatever x holds) */
    }
    return both != 0;
}

ERF_CLONES static int addcdiv_double(const double *restrict x, const double *restrict y1, const double *restrict y2,
                                     double *restrict o, Py_ssize_t n, int scale, double v)
{
    int64_t both = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        double s = scale ? y1[i] * v : y1[i], q = s / y2[i];
        both |= ((y1[i] != y1[i]) & (v != v)) | ((s != s) & (y2[i] != y2[i]));
        o[i] = q != q ? q : x[i] + q; /* (a NaN quotient: its word, as PyTorch's, whatever x holds) */
    }
    return both != 0;
}

#define ADDCDIV_INTO(T, NAME)                                                                      \
    ERF_CLONES static void NAME(T *restrict x, const T *restrict y1, const T *restrict y2, Py_ssize_t n, \
                                int scale, T v)                                                    \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) {                                                       \
            T s = scale ? y1[i] * v : y1[i];                                                       \
            x[i] = x[i] + s / y2[i];                                                               \
        }                                                                                          \
    }                                                                                              \
    /* (whether any of a, b, c holds a NaN: the three runs tested in one pass, one loop and one  \
       reduction where three were) */                                                              \
    ERF_CLONES static int NAME##_nan3(const T *a, const T *b, const T *c, Py_ssize_t n)            \
    {                                                                                              \
        int nan = 0;                                                                               \
        for (Py_ssize_t i = 0; i < n; i++) nan |= (a[i] != a[i]) | (b[i] != b[i]) | (c[i] != c[i]); \
        return nan;                                                                                \
    }
ADDCDIV_INTO(float, addcdiv_float_into)
ADDCDIV_INTO(double, addcdiv_double_into)
#undef ADDCDIV_INTO

/* addcdiv_runs' and addcmul_runs' fresh results (out overlapping no operand) on an AVX2 + FMA copy,
 * 8 float32 / 4 float64 lanes, each result stored straight into out (addcmul's AVX2 loops went
 * through a stack block and a memcpy, addcdiv's C loop tested every element for two NaN operands).
 * 32-byte vectors, not 64: these passes are memory-bound, and on Zen 4 the 64-byte stores into a
 * fresh result were slower (1M float32 fresh, measured: addcmul 286-307 us in 64-byte vectors,
 * 250-261 in 32-byte ones, PyTorch's 299-352; addcdiv 311-317 / 260-264 / 290-342). The same IEEE operations in the same
 * order, so the same bits: addcdiv x + (s / y2), addcmul the fused s * y2 + x (vfmadd: one
 * rounding, as fmaf / fma), s = y1 * v (y1 itself where no value). Only the results are tested
 * for NaN (an operation with a NaN operand has a NaN result, so a NaN-free run met none): where
 * one came out, addcdiv's C loop runs the whole run again (its exact test for two NaN operands,
 * the same values) and addcmul gives each NaN element fma32_nan's / fma64_nan's word (the operands
 * are as they were: out is none of them). addc_direct(): the CPU has AVX2 and FMA (hardware_fma:
 * not under STRIDED_NATIVE_NO_FMA3) and STRIDED_NATIVE_ROWS_ISA (tests) does not ask for the base copy. */
#if defined(__x86_64__) && defined(__GNUC__) && defined(HAVE_HARDWARE_FMA_COPIES)
static int addc_direct(void)
{
    static int w = -1;
    if (w < 0) {
        const char *isa = getenv("STRIDED_NATIVE_ROWS_ISA");
        w = hardware_fma() && !(isa != NULL && strcmp(isa, "base") == 0);
    }
    return w;
}

/* one pass of addc_direct_T: r = VR in the vector lanes, SR in the tail (s: y1, times v where scale),
 * stored into o; any: whether a NaN came out */
#define ADDC_DIRECT_PASS(T, V, LANES, SFX, VR, SR)                                                   \
    {                                                                                              \
        const V vv = _mm256_set1_##SFX(v);                                                         \
        int nan = 0;                                                                               \
        Py_ssize_t i = 0;                                                                          \
        for (; i + (LANES) <= n; i += (LANES)) {                                                   \
            V s = _mm256_loadu_##SFX(y1 + i);                                                      \
            if (scale) s = _mm256_mul_##SFX(s, vv);                                                \
            V r = VR;                                                                              \
            nan |= _mm256_movemask_##SFX(_mm256_cmp_##SFX(r, r, _CMP_UNORD_Q));                    \
            _mm256_storeu_##SFX(o + i, r);                                                         \
        }                                                                                          \
        any = nan != 0;                                                                            \
        for (; i < n; i++) {                                                                       \
            T s = scale ? y1[i] * v : y1[i], r = SR;                                               \
            any |= r != r;                                                                         \
            o[i] = r;                                                                              \
        }                                                                                          \
    }
/* addcdiv (div) or addcmul of n elements into o; addcdiv answers whether a NaN came out (its C
 * loop then runs again), addcmul gives each NaN element its word here and answers 0 */
#define ADDC_DIRECT(T, V, LANES, SFX, FMA, FMA_NAN_FN)                                               \
    __attribute__((target("avx2,fma"))) static int addc_direct_##T(                               \
        const T *x, const T *y1, const T *y2, T *o, Py_ssize_t n, int scale, T v, int div)         \
    {                                                                                              \
        int any;                                                                                   \
        if (div) {                                                                                 \
            ADDC_DIRECT_PASS(T, V, LANES, SFX,                                                       \
                           _mm256_add_##SFX(_mm256_loadu_##SFX(x + i), _mm256_div_##SFX(s, _mm256_loadu_##SFX(y2 + i))), \
                           x[i] + s / y2[i])                                                       \
            return any;                                                                            \
        }                                                                                          \
        ADDC_DIRECT_PASS(T, V, LANES, SFX, _mm256_fmadd_##SFX(s, _mm256_loadu_##SFX(y2 + i), _mm256_loadu_##SFX(x + i)), \
                       FMA(s, y2[i], x[i]))                                                        \
        if (any)                                                                                   \
            for (Py_ssize_t j = 0; j < n; j++)                                                     \
                if (o[j] != o[j]) o[j] = FMA_NAN_FN(scale ? y1[j] * v : y1[j], y2[j], x[j], o[j]); \
        return 0;                                                                                  \
    }
ADDC_DIRECT(float, __m256, 8, ps, fmaf, fma32_nan)
ADDC_DIRECT(double, __m256d, 4, pd, fma, fma64_nan)
#undef ADDC_DIRECT
#undef ADDC_DIRECT_PASS
#else
#define addc_direct() 0
#define addc_direct_float(x, y1, y2, o, n, scale, v, div) 0
#define addc_direct_double(x, y1, y2, o, n, scale, v, div) 0
#endif

/* The five arguments (x, y1, y2, value, out) of addcdiv_runs / addcmul_runs: args itself, or for the
 * four-argument form (x, y1, y2, out) (a value of 1: a compiled front's kernel call) ``unit`` filled
 * with value None; NULL with a TypeError for any other count. */
static PyObject *const *addc_args(PyObject *const *args, Py_ssize_t nargs, PyObject **unit, const char *name)
{
    if (nargs == 5)
        return args;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "%s(x, y1, y2, [value,] out) takes 4 or 5 arguments, not %zd", name, nargs);
        return NULL;
    }
    unit[0] = args[0], unit[1] = args[1], unit[2] = args[2], unit[3] = Py_None, unit[4] = args[3];
    return unit;
}

static PyObject *py_addcdiv_runs(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    PyObject *unit[5];
    if ((args = addc_args(args, nargs, unit, "addcdiv_runs")) == NULL)
        return NULL;
    int scale = args[3] != Py_None;
    double v = scale ? PyFloat_AsDouble(args[3]) : 1.0;
    if (v == -1.0 && PyErr_Occurred()) return NULL;
    Py_buffer b[4];
    PyObject *const srcs[4] = {args[0], args[1], args[2], args[4]};
    int got = 0;
    PyObject *answer = NULL;
    for (; got < 4; got++)
        if (PyObject_GetBuffer(srcs[got], &b[got], PyBUF_STRIDES | PyBUF_FORMAT | (got == 3 ? PyBUF_WRITABLE : 0)) < 0)
            goto done;
    {
        char kind = format_kind(&b[0]);
        Py_ssize_t size = kind == 'f' ? 4 : 8;
        int ok = (kind == 'f' || kind == 'd') && b[0].itemsize == size;
        int into = b[0].buf == b[3].buf; /* (in place: out is x itself) */
        for (int k = 0; k < 4 && ok; k++)
            ok = format_kind(&b[k]) == kind && b[k].len == b[0].len && PyBuffer_IsContiguous(&b[k], 'C')
                 && (uintptr_t)b[k].buf % size == 0 && (k == 3 || (k == 0 && into) || !overlaps(&b[k], &b[3]));
        answer = Py_False;
        if (ok && into) {
            Py_ssize_t n = b[0].len / size;
            int nan;
            Py_BEGIN_ALLOW_THREADS
            if (kind == 'f') {
                nan = v != v || addcdiv_float_into_nan3(b[0].buf, b[1].buf, b[2].buf, n);
                if (!nan) addcdiv_float_into(b[3].buf, b[1].buf, b[2].buf, n, scale, (float)v);
            } else {
                nan = v != v || addcdiv_double_into_nan3(b[0].buf, b[1].buf, b[2].buf, n);
                if (!nan) addcdiv_double_into(b[3].buf, b[1].buf, b[2].buf, n, scale, v);
            }
            Py_END_ALLOW_THREADS
            answer = nan ? Py_False : Py_True;
        } else if (ok) {
            Py_ssize_t n = b[0].len / size;
            int both;
            Py_BEGIN_ALLOW_THREADS
            /* (the direct AVX2 copy first, where the CPU has it: the C loop only where a NaN came out) */
            int direct = addc_direct(), nan = 1;
            if (kind == 'f') {
                if (direct) nan = addc_direct_float(b[0].buf, b[1].buf, b[2].buf, b[3].buf, n, scale, (float)v, 1);
                both = nan && addcdiv_float(b[0].buf, b[1].buf, b[2].buf, b[3].buf, n, scale, (float)v);
            } else {
                if (direct) nan = addc_direct_double(b[0].buf, b[1].buf, b[2].buf, b[3].buf, n, scale, v, 1);
                both = nan && addcdiv_double(b[0].buf, b[1].buf, b[2].buf, b[3].buf, n, scale, v);
            }
            Py_END_ALLOW_THREADS
            answer = both ? Py_False : Py_True;
        }
    }
done:
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
    Py_XINCREF(answer);
    return answer;
}

/* addcmul_runs(x, y1, y2, [value,] out) -> bool (value left out: None): out = fma(y1 * value, y2, x), the product y1 * value
 * (y1 itself where value is None: a value of 1) rounded in the buffers' type, value first rounded
 * to it (NumPy's weak scalar), then fma32's / fma64's loops: strided.ops.elementwise.binary_more.
 * _addc_kernel's multiply and fma_into in one pass, without the product's temporary array (its
 * blocks live on the stack). x, y1, y2, out: C-contiguous float32 ("f") or float64 ("d") buffers of
 * one format and length; out may be any of them itself (each block is read before it is written).
 * False (nothing written) where one overlaps out otherwise, or value is NaN (NumPy's multiply picks
 * between it and a NaN of y1); True once written. */
#ifdef HAVE_HARDWARE_FMA_COPIES
/* addcmul_runs' float32 loop with a value, on the AVX2 + FMA copy: fma_loops_avx2's float32 loop
 * with its first operand the product y1 * v made in the same pass (rounded to float32 before the
 * fmaf, -ffp-contract=off), not in a block of its own first: the same operations, so the same bits
 * (NaNs too: fma32_nan on the same three operands). o may be x, y1 or y2 (each block is read
 * before it is written). */
__attribute__((target("avx2,fma")))
static void addcmul32_scaled_avx2(const float *x, const float *y1, const float *y2, float *o, Py_ssize_t n, float v)
{
    float tmp[FMA32_BLOCK];
    for (Py_ssize_t i0 = 0; i0 < n; i0 += FMA32_BLOCK) {
        int m = n - i0 < FMA32_BLOCK ? (int)(n - i0) : FMA32_BLOCK;
        int32_t nan = 0;
        for (int j = 0; j < m; j++) {
            float p = y1[i0 + j] * v, r = fmaf(p, y2[i0 + j], x[i0 + j]);
            tmp[j] = r;
            nan |= (int32_t)(r != r);
        }
        if (nan)
            for (int j = 0; j < m; j++)
                if (tmp[j] != tmp[j]) tmp[j] = fma32_nan(y1[i0 + j] * v, y2[i0 + j], x[i0 + j], tmp[j]);
        memcpy(o + i0, tmp, (size_t)m * sizeof(float));
    }
}
#endif

static PyObject *py_addcmul_runs(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    PyObject *unit[5];
    if ((args = addc_args(args, nargs, unit, "addcmul_runs")) == NULL)
        return NULL;
    int scale = args[3] != Py_None;
    double v = scale ? PyFloat_AsDouble(args[3]) : 1.0;
    if (v == -1.0 && PyErr_Occurred()) return NULL;
    if (v != v) Py_RETURN_FALSE;
    Py_buffer b[4];
    PyObject *const srcs[4] = {args[0], args[1], args[2], args[4]};
    int got = 0;
    PyObject *answer = NULL;
    for (; got < 4; got++)
        if (PyObject_GetBuffer(srcs[got], &b[got], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (got == 3 ? PyBUF_WRITABLE : 0)) < 0)
            goto done;
    {
        char kind = format_kind(&b[0]);
        Py_ssize_t size = kind == 'f' ? 4 : 8;
        int ok = (kind == 'f' || kind == 'd') && b[0].itemsize == size;
        for (int k = 0; k < 4 && ok; k++)
            ok = format_kind(&b[k]) == kind && b[k].itemsize == size && b[k].len == b[0].len
                 && (k == 3 || b[k].buf == b[3].buf || !overlaps(&b[k], &b[3]));
        answer = Py_False;
        if (ok) {
            Py_ssize_t n = b[0].len / size;
            const char *x = b[0].buf, *y1 = b[1].buf, *y2 = b[2].buf;
            char *o = b[3].buf;
            /* (a fresh out, apart from the operands, on the direct AVX2 copy: straight stores) */
            int apart = addc_direct() && !overlaps(&b[0], &b[3]) && !overlaps(&b[1], &b[3]) && !overlaps(&b[2], &b[3]);
            Py_BEGIN_ALLOW_THREADS
            if (apart && kind == 'f')
                addc_direct_float((const float *)x, (const float *)y1, (const float *)y2, (float *)o, n, scale, (float)v, 0);
            else if (apart)
                addc_direct_double((const double *)x, (const double *)y1, (const double *)y2, (double *)o, n, scale, v, 0);
            else
#ifdef HAVE_HARDWARE_FMA_COPIES
            if (scale && kind == 'f' && hardware_fma()) /* (the product in the fma's pass) */
                addcmul32_scaled_avx2((const float *)x, (const float *)y1, (const float *)y2, (float *)o, n, (float)v);
            else
#endif
            for (Py_ssize_t i0 = 0; i0 < n; i0 += FMA32_BLOCK) {
                Py_ssize_t m = n - i0 < FMA32_BLOCK ? n - i0 : FMA32_BLOCK, at = i0 * size;
                double tmp[FMA32_BLOCK]; /* (the product's block: float32's in its first half) */
                const void *prod = y1 + at;
                if (scale && kind == 'f') {
                    float *t = (float *)tmp, vf = (float)v;
                    const float *y = (const float *)(y1 + at);
                    for (Py_ssize_t j = 0; j < m; j++) t[j] = y[j] * vf;
                    prod = t;
                } else if (scale) {
                    const double *y = (const double *)(y1 + at);
                    for (Py_ssize_t j = 0; j < m; j++) tmp[j] = y[j] * v;
                    prod = tmp;
                }
                fma_loops(size, 0.0, prod, y2 + at, x + at, o + at, m);
            }
            Py_END_ALLOW_THREADS
            answer = Py_True;
        }
    }
done:
    for (int k = 0; k < got; k++) PyBuffer_Release(&b[k]);
    Py_XINCREF(answer);
    return answer;
}

/* ---------------------------------------------------------------- addr's outer product, scaled and summed
 *
 * outer_scale_add(x, y, base, alpha, beta, out) -> bool: out[i, j] = x[i] y[j], times alpha unless
 * alpha is None, plus base[i, j] (times beta unless None) unless base is None, each operation
 * rounded in the buffers' type: strided.ops.linalg.fused._scale_add on np.multiply.outer's product
 * (the same operations in the same order), in one pass instead of three. alpha, beta: Python floats
 * holding values of the type. x (m), y (n), base and out (m n, row-major): C-contiguous aligned
 * buffers of one format ("f" or "d"), out overlapping none of them. False (nothing written) otherwise,
 * and False (out partly written) where an operation met two NaN operands: with at most one, an IEEE
 * product or sum is that NaN whatever the operands' order, so the bits are NumPy's. */
#define OUTER_LOOP(T)                                                                              \
    {                                                                                              \
        const T *xv = b[0].buf, *yv = b[1].buf, *bv = has_base ? b[2].buf : NULL;                  \
        T *ov = b[3].buf, av = (T)alpha, be = (T)beta;                                             \
        for (Py_ssize_t i = 0; i < m && !both; i++)                                                \
            both = outer_row_##T(xv[i], yv, bv ? bv + i * n : NULL, ov + i * n, n, has_alpha, av, has_beta, be); \
    }

/* one row; returns whether an operation met two NaN operands (x86 keeps one of them, sign and
 * payload, and which one is the loop's choice: NumPy's then decides). The vector loop tests only
 * its results for NaN (two NaN operands of one operation make its result NaN, so the exact test
 * can hold only in a row holding one, which is read again for it): one test an element, not four
 * (a 1024 x 1024 float32 addr of a transposed input ~165 -> ~120 us, as _matkernel's addr rows). */
ERF_CLONES static int outer_row_float(float xi, const float *restrict y, const float *restrict base, float *restrict o,
                                      Py_ssize_t n, int has_alpha, float alpha, int has_beta, float beta)
{
    int32_t nan = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        float p = xi * y[j];
        p = has_alpha ? p * alpha : p;
        float t = base ? (has_beta ? base[j] * beta : base[j]) : 0.0f;
        float r = base ? p + t : p;
        nan |= r != r;
        o[j] = r;
    }
    if (!nan)
        return 0;
    for (Py_ssize_t j = 0; j < n; j++) { /* (a row holding a NaN: the exact two-NaN test) */
        float p = xi * y[j];
        p = has_alpha ? p * alpha : p;
        float t = base ? (has_beta ? base[j] * beta : base[j]) : 0.0f;
        if (((xi != xi) & (y[j] != y[j])) | ((p != p) & (t != t)))
            return 1;
    }
    return 0;
}

ERF_CLONES static int outer_row_double(double xi, const double *restrict y, const double *restrict base, double *restrict o,
                                      Py_ssize_t n, int has_alpha, double alpha, int has_beta, double beta)
{
    int64_t nan = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        double p = xi * y[j];
        p = has_alpha ? p * alpha : p;
        double t = base ? (has_beta ? base[j] * beta : base[j]) : 0.0;
        double r = base ? p + t : p;
        nan |= r != r;
        o[j] = r;
    }
    if (!nan)
        return 0;
    for (Py_ssize_t j = 0; j < n; j++) { /* (a row holding a NaN: the exact two-NaN test) */
        double p = xi * y[j];
        p = has_alpha ? p * alpha : p;
        double t = base ? (has_beta ? base[j] * beta : base[j]) : 0.0;
        if (((xi != xi) & (y[j] != y[j])) | ((p != p) & (t != t)))
            return 1;
    }
    return 0;
}

static PyObject *py_outer_scale_add(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "outer_scale_add(x, y, base, alpha, beta, out) takes 6 arguments, not %zd", nargs);
        return NULL;
    }
    int has_base = args[2] != Py_None, has_alpha = args[3] != Py_None, has_beta = args[4] != Py_None;
    double alpha = has_alpha ? PyFloat_AsDouble(args[3]) : 1.0, beta = has_beta ? PyFloat_AsDouble(args[4]) : 1.0;
    if (PyErr_Occurred()) return NULL;
    Py_buffer b[4];
    PyObject *const srcs[4] = {args[0], args[1], args[2], args[5]};
    int got = 0;
    PyObject *answer = NULL;
    for (; got < 4; got++) {
        if (got == 2 && !has_base) {
            b[2].buf = NULL;
            continue;
        }
        if (PyObject_GetBuffer(srcs[got], &b[got], PyBUF_STRIDES | PyBUF_FORMAT | (got == 3 ? PyBUF_WRITABLE : 0)) < 0)
            goto done;
    }
    {
        char kind = format_kind(&b[3]);
        Py_ssize_t size = kind == 'f' ? 4 : 8, m = b[0].len / size, n = b[1].len / size;
        int ok = (kind == 'f' || kind == 'd') && b[3].itemsize == size && b[3].len == m * n * size;
        for (int k = 0; k < 4 && ok; k++) {
            if (k == 2 && !has_base) continue;
            ok = format_kind(&b[k]) == kind && b[k].itemsize == size && PyBuffer_IsContiguous(&b[k], 'C')
                 && (uintptr_t)b[k].buf % size == 0 && (k == 3 || !overlaps(&b[k], &b[3]));
        }
        ok = ok && (!has_base || b[2].len == b[3].len);
        answer = Py_False;
        if (ok) {
            int both = 0;
            Py_BEGIN_ALLOW_THREADS
            if (kind == 'f') OUTER_LOOP(float)
            else OUTER_LOOP(double)
            Py_END_ALLOW_THREADS
            answer = both ? Py_False : Py_True;
        }
    }
done:
    for (int k = 0; k < got; k++)
        if (k != 2 || has_base) PyBuffer_Release(&b[k]);
    Py_XINCREF(answer);
    return answer;
}
#undef OUTER_LOOP

/* ---------------------------------------------------------------- complex(real, imag)
 *
 * interleave(x, y, out) -> bool: out[2i] = x[i], out[2i + 1] = y[i], the elements' bits moved as
 * integers (a signalling NaN stays one), for C-contiguous aligned x and y of one itemsize (4:
 * float32 into complex64's pairs; 8: float64 into complex128's) and out of twice their bytes:
 * strided.ops.elementwise.complex_ops.complex's two copies into the real and imaginary views, in
 * one pass. False (nothing written) where they are not such buffers or out overlaps x or y. */
ERF_CLONES static void interleave32(const uint32_t *restrict x, const uint32_t *restrict y, uint32_t *restrict o,
                                    Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        o[2 * i] = x[i];
        o[2 * i + 1] = y[i];
    }
}

ERF_CLONES static void interleave64(const uint64_t *restrict x, const uint64_t *restrict y, uint64_t *restrict o,
                                    Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        o[2 * i] = x[i];
        o[2 * i + 1] = y[i];
    }
}

static PyObject *py_interleave(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "interleave(x, y, out) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    Py_buffer xb, yb, ob;
    if (PyObject_GetBuffer(args[0], &xb, PyBUF_STRIDES) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &yb, PyBUF_STRIDES) < 0) {
        PyBuffer_Release(&xb);
        return NULL;
    }
    if (PyObject_GetBuffer(args[2], &ob, PyBUF_STRIDES | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&xb);
        PyBuffer_Release(&yb);
        return NULL;
    }
    PyObject *answer = Py_False;
    Py_ssize_t size = xb.itemsize;
    if ((size == 4 || size == 8) && yb.itemsize == size && yb.len == xb.len && ob.len == 2 * xb.len
        && PyBuffer_IsContiguous(&xb, 'C') && PyBuffer_IsContiguous(&yb, 'C') && PyBuffer_IsContiguous(&ob, 'C')
        && (uintptr_t)xb.buf % size == 0 && (uintptr_t)yb.buf % size == 0 && (uintptr_t)ob.buf % size == 0
        && !overlaps(&xb, &ob) && !overlaps(&yb, &ob)) {
        Py_ssize_t n = xb.len / size;
        Py_BEGIN_ALLOW_THREADS
        if (size == 4) interleave32(xb.buf, yb.buf, ob.buf, n);
        else interleave64(xb.buf, yb.buf, ob.buf, n);
        Py_END_ALLOW_THREADS
        answer = Py_True;
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

/* polar_parts's loops: out's pairs (r c, r s), each product NumPy's multiply(r, c): the IEEE
 * product, a NaN operand's NaN quieted. Where both operands of a product are NaN, which one NumPy's
 * loops return depends on the loop (its vector body takes the first, its float64 tail the second):
 * such an input is declined before anything is written (both_nan), and NumPy's own calls run. */
#define POLAR_PARTS(T, UT, QUIET_BIT)                                                              \
    static inline T polar_mul_##T(T a, T b)                                                        \
    {                                                                                              \
        T p = a * b;                                                                               \
        if (p != p && (a != a || b != b)) {                                                        \
            UT bits;                                                                               \
            T nan = a != a ? a : b;                                                                \
            memcpy(&bits, &nan, sizeof bits);                                                      \
            bits |= QUIET_BIT;                                                                     \
            memcpy(&p, &bits, sizeof p);                                                           \
        }                                                                                          \
        return p;                                                                                  \
    }                                                                                              \
    static int both_nan_##T(const T *a, const T *b, const T *c, Py_ssize_t n)                      \
    {   /* (c may be NULL) */                                                                      \
        int any = 0;                                                                               \
        for (Py_ssize_t i = 0; i < n; i++) any |= a[i] != a[i] && (b[i] != b[i] || (c && c[i] != c[i])); \
        return any;                                                                                \
    }                                                                                              \
    static void polar_parts_##T(const T *r, const T *c, const T *s, T *o, Py_ssize_t n)            \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) {                                                       \
            o[2 * i] = polar_mul_##T(r[i], c[i]);                                                  \
            o[2 * i + 1] = polar_mul_##T(r[i], s[i]);                                              \
        }                                                                                          \
    }
POLAR_PARTS(float, uint32_t, 0x00400000u)
POLAR_PARTS(double, uint64_t, 0x0008000000000000ull)
#undef POLAR_PARTS

/* polar_parts(r, c, s, out) -> bool: out's real parts r * c and imaginary parts r * s (polar's
 * np.multiply(r, cos(t), out=o.real) and np.multiply(r, sin(t), out=o.imag) in one pass): r, c, s
 * C-contiguous aligned buffers of one format ("f" or "d") and length, out a C-contiguous complex
 * buffer of twice their bytes overlapping none. False (nothing written) otherwise, or where some r
 * and its cosine or sine are both NaN (both_nan). */
static PyObject *py_polar_parts(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "polar_parts(r, c, s, out) takes 4 arguments, not %zd", nargs);
        return NULL;
    }
    Py_buffer rb, sb, cb, ob;
    PyObject *first[3] = {args[0], args[1], args[3]};
    if (three_buffers(first, &rb, &cb, &ob) < 0) return NULL;
    if (PyObject_GetBuffer(args[2], &sb, PyBUF_STRIDES | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&rb);
        PyBuffer_Release(&cb);
        PyBuffer_Release(&ob);
        return NULL;
    }
    PyObject *answer = Py_False;
    int f32 = strcmp(rb.format, "f") == 0 && rb.itemsize == 4, f64 = strcmp(rb.format, "d") == 0 && rb.itemsize == 8;
    Py_ssize_t size = rb.itemsize;
    if ((f32 || f64) && strcmp(cb.format, rb.format) == 0 && strcmp(sb.format, rb.format) == 0
        && cb.len == rb.len && sb.len == rb.len && ob.len == 2 * rb.len && ob.itemsize == 2 * size
        && PyBuffer_IsContiguous(&rb, 'C') && PyBuffer_IsContiguous(&cb, 'C') && PyBuffer_IsContiguous(&sb, 'C')
        && PyBuffer_IsContiguous(&ob, 'C') && (uintptr_t)rb.buf % size == 0 && (uintptr_t)cb.buf % size == 0
        && (uintptr_t)sb.buf % size == 0 && (uintptr_t)ob.buf % size == 0 && !overlaps(&rb, &ob)
        && !overlaps(&cb, &ob) && !overlaps(&sb, &ob)) {
        Py_ssize_t n = rb.len / size;
        if (f32 ? !both_nan_float(rb.buf, cb.buf, sb.buf, n) : !both_nan_double(rb.buf, cb.buf, sb.buf, n)) {
            if (f32) polar_parts_float(rb.buf, cb.buf, sb.buf, ob.buf, n);
            else polar_parts_double(rb.buf, cb.buf, sb.buf, ob.buf, n);
            answer = Py_True;
        }
    }
    PyBuffer_Release(&rb);
    PyBuffer_Release(&cb);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

/* select_runs(cond, x, y, out) -> bool: out[i] = cond[i] ? x[i] : y[i], the elements' bits moved
 * (np.where's pure selection), for a C-contiguous bool ("?") cond and C-contiguous aligned x, y, out
 * of one format with itemsize 4 or 8 and cond's length, out overlapping none. False (nothing
 * written) otherwise. */
#define SELECT_LOOP(T)                                                                             \
    ERF_CLONES static void select_##T(const unsigned char *restrict c, const T *restrict x,        \
                                      const T *restrict y, T *restrict o, Py_ssize_t n)            \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) o[i] = c[i] ? x[i] : y[i];                              \
    }
SELECT_LOOP(uint32_t)
SELECT_LOOP(uint64_t)
#undef SELECT_LOOP

static PyObject *py_select_runs(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "select_runs(cond, x, y, out) takes 4 arguments, not %zd", nargs);
        return NULL;
    }
    Py_buffer cb, xb, yb, ob;
    if (PyObject_GetBuffer(args[0], &cb, PyBUF_STRIDES | PyBUF_FORMAT) < 0) return NULL;
    if (three_buffers(args + 1, &xb, &yb, &ob) < 0) {
        PyBuffer_Release(&cb);
        return NULL;
    }
    PyObject *answer = Py_False;
    Py_ssize_t size = xb.itemsize;
    if (strcmp(cb.format, "?") == 0 && cb.itemsize == 1 && (size == 4 || size == 8) && strcmp(yb.format, xb.format) == 0
        && strcmp(ob.format, xb.format) == 0 && yb.itemsize == size && ob.itemsize == size && xb.len == cb.len * size
        && yb.len == xb.len && ob.len == xb.len && PyBuffer_IsContiguous(&cb, 'C') && PyBuffer_IsContiguous(&xb, 'C')
        && PyBuffer_IsContiguous(&yb, 'C') && PyBuffer_IsContiguous(&ob, 'C') && (uintptr_t)xb.buf % size == 0
        && (uintptr_t)yb.buf % size == 0 && (uintptr_t)ob.buf % size == 0 && !overlaps(&ob, &cb)
        && !overlaps(&ob, &xb) && !overlaps(&ob, &yb)) {
        Py_ssize_t n = cb.len;
        if (size == 4) select_uint32_t(cb.buf, xb.buf, yb.buf, ob.buf, n);
        else select_uint64_t(cb.buf, xb.buf, yb.buf, ob.buf, n);
        answer = Py_True;
    }
    PyBuffer_Release(&cb);
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

/* xlogy_finish(x, y, l) -> bool: l[i] = 0 where x[i] == 0 and y[i] is not NaN, else x[i] * l[i]
 * (NumPy's multiply's bits: polar_parts' product), written over l, the log of y NumPy computed:
 * binary_math._xlogy's product, compare and selection in one pass. x, y, l: C-contiguous aligned
 * buffers of one format ("f" or "d") and length, l overlapping neither. False (nothing written)
 * otherwise, or where some x and its log are both NaN (NumPy's multiply picks between them by loop). */
#define XLOGY_LOOP(T)                                                                              \
    static void xlogy_finish_##T(const T *x, const T *y, T *l, Py_ssize_t n)                       \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) l[i] = x[i] == 0 && y[i] == y[i] ? (T)0 : polar_mul_##T(x[i], l[i]); \
    }
XLOGY_LOOP(float)
XLOGY_LOOP(double)
#undef XLOGY_LOOP

static PyObject *py_xlogy_finish(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "xlogy_finish(x, y, l) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    Py_buffer xb, yb, lb;
    if (three_buffers(args, &xb, &yb, &lb) < 0) return NULL;
    PyObject *answer = Py_False;
    int f32 = strcmp(xb.format, "f") == 0 && xb.itemsize == 4, f64 = strcmp(xb.format, "d") == 0 && xb.itemsize == 8;
    Py_ssize_t size = xb.itemsize;
    if ((f32 || f64) && strcmp(yb.format, xb.format) == 0 && strcmp(lb.format, xb.format) == 0 && yb.len == xb.len
        && lb.len == xb.len && PyBuffer_IsContiguous(&xb, 'C') && PyBuffer_IsContiguous(&yb, 'C')
        && PyBuffer_IsContiguous(&lb, 'C') && (uintptr_t)xb.buf % size == 0 && (uintptr_t)yb.buf % size == 0
        && (uintptr_t)lb.buf % size == 0 && !overlaps(&lb, &xb) && !overlaps(&lb, &yb)) {
        Py_ssize_t n = xb.len / size;
        if (f32 ? !both_nan_float(xb.buf, lb.buf, NULL, n) : !both_nan_double(xb.buf, lb.buf, NULL, n)) {
            if (f32) xlogy_finish_float(xb.buf, yb.buf, lb.buf, n);
            else xlogy_finish_double(xb.buf, yb.buf, lb.buf, n);
            answer = Py_True;
        }
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    PyBuffer_Release(&lb);
    Py_INCREF(answer);
    return answer;
}

/* ---------------------------------------------------------------- softplus / elu's selection
 *
 * greater_select(x, t, y) -> bool: y[i] = x[i] where x[i] > t (t, a Python float, rounded to the
 * type first, as NumPy's weak scalar), else y[i] itself: np.where(np.greater(x, t), x, y) written
 * over y (NaN x keeps y's element, as the comparison is false), in one pass instead of three. x,
 * y: C-contiguous aligned buffers of one format ("f" or "d") and length, y overlapping x nowhere.
 * False (nothing written) otherwise. */
ERF_CLONES static void greater_select_float(const float *restrict x, float *restrict y, Py_ssize_t n, float t)
{
    for (Py_ssize_t i = 0; i < n; i++) y[i] = x[i] > t ? x[i] : y[i];
}

ERF_CLONES static void greater_select_double(const double *restrict x, double *restrict y, Py_ssize_t n, double t)
{
    for (Py_ssize_t i = 0; i < n; i++) y[i] = x[i] > t ? x[i] : y[i];
}

/* greater_copy(x, t, y) -> bool: y = x where every x[i] > t (True), else False at the first
 * block of 64 holding an element that is not (NaN included), y then partly written (the caller's
 * scratch): elu's all-positive input, whose result is x itself, in one pass with no exp. The
 * buffers as greater_select's. */
#define GREATER_COPY_BLOCK 2048
#define GREATER_COPY(NAME, T)                                                                    \
    ERF_CLONES static int NAME(const T *restrict x, T *restrict y, Py_ssize_t n, T t)            \
    {                                                                                            \
        for (Py_ssize_t i = 0; i < n; i += GREATER_COPY_BLOCK) {                                 \
            Py_ssize_t m = n - i < GREATER_COPY_BLOCK ? n - i : GREATER_COPY_BLOCK;              \
            int all = 1;                                                                         \
            for (Py_ssize_t j = 0; j < m; j++) {                                                 \
                y[i + j] = x[i + j];                                                             \
                all &= x[i + j] > t;                                                             \
            }                                                                                    \
            if (!all) return 0;                                                                  \
        }                                                                                        \
        return 1;                                                                                \
    }
GREATER_COPY(greater_copy_float, float)
GREATER_COPY(greater_copy_double, double)
#undef GREATER_COPY

static PyObject *greater_pass(PyObject *const *args, Py_ssize_t nargs, int copy)
{
    const char *name = copy ? "greater_copy" : "greater_select";
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "%s(x, t, y) takes 3 arguments, not %zd", name, nargs);
        return NULL;
    }
    double t = PyFloat_AsDouble(args[1]);
    if (t == -1.0 && PyErr_Occurred()) return NULL;
    Py_buffer xb, yb;
    if (in_out_buffers(args[0], args[2], &xb, &yb) < 0) return NULL;
    PyObject *answer = Py_False;
    char kind = format_kind(&xb);
    Py_ssize_t size = kind == 'f' ? 4 : 8;
    if ((kind == 'f' || kind == 'd') && xb.itemsize == size && format_kind(&yb) == kind && yb.len == xb.len
        && PyBuffer_IsContiguous(&xb, 'C') && PyBuffer_IsContiguous(&yb, 'C') && (uintptr_t)xb.buf % size == 0
        && (uintptr_t)yb.buf % size == 0 && !overlaps(&xb, &yb)) {
        Py_ssize_t n = xb.len / size;
        int done = 1;
        Py_BEGIN_ALLOW_THREADS
        if (copy) done = kind == 'f' ? greater_copy_float(xb.buf, yb.buf, n, (float)t)
                                     : greater_copy_double(xb.buf, yb.buf, n, t);
        else if (kind == 'f') greater_select_float(xb.buf, yb.buf, n, (float)t);
        else greater_select_double(xb.buf, yb.buf, n, t);
        Py_END_ALLOW_THREADS
        answer = done ? Py_True : Py_False;
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    Py_INCREF(answer);
    return answer;
}

static PyObject *py_greater_select(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return greater_pass(args, nargs, 0);
}

static PyObject *py_greater_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return greater_pass(args, nargs, 1);
}

/* greater_copy_into(x, y, t) -> bool: greater_copy(x, t, y), its arguments in a compiled front's
 * kernel order (run(x, out, *extra): F.elu's all-positive input) */
static PyObject *py_greater_copy_into(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "greater_copy_into(x, y, t) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    PyObject *ordered[3] = {args[0], args[2], args[1]};
    return greater_pass(ordered, 3, 1);
}

/* ---------------------------------------------------------------- leaky_relu, vectorized
 *
 * o = a > 0 ? a : a * k (unary_exact's code 2) over contiguous runs. The scalar loop branched
 * per element (random signs: a mispredict every other element, ~6 ns each); here the product is
 * computed for every lane and one side selected (AVX-512 / AVX2 clones; "no-trapping-math" only
 * lets the compiler compute both sides: the selected value is the same IEEE product or a
 * itself, a signalling NaN quieted by the product as before). */
ERF_CLONES static void leaky_relu_float(const float *restrict a, float *restrict o, Py_ssize_t n, float k)
{
    for (Py_ssize_t i = 0; i < n; i++) o[i] = a[i] > 0 ? a[i] : a[i] * k;
}

ERF_CLONES static void leaky_relu_double(const double *restrict a, double *restrict o, Py_ssize_t n, double k)
{
    for (Py_ssize_t i = 0; i < n; i++) o[i] = a[i] > 0 ? a[i] : a[i] * k;
}

/* nan_to_num (unary_exact code 1): NaN -> vn, +inf -> vp, -inf -> vm, every other element itself,
 * as selections over every lane (AVX-512 / AVX2 clones; "no-trapping-math" lets the compiler
 * compare NaNs in vector code: the same selections, the same bits). The scalar loop ran ~0.47 ms
 * a million float32. A block of NTN_BLOCK elements that are all finite (|v| <= max: one compare
 * a lane, false for NaN and both infinities) is copied as it is, the selections' result there:
 * the three selections' compares into AVX-512 mask registers share one port (~1.5x a copy's time,
 * 2^20 float32 0.147 -> 0.10 ms into existing memory). */
#define NTN_BLOCK 64
#define NAN_TO_NUM_LOOP(T, MAX)                                                                  \
    Py_ssize_t i = 0;                                                                            \
    for (; i + NTN_BLOCK <= n; i += NTN_BLOCK) {                                                 \
        int finite = 1;                                                                          \
        for (int j = 0; j < NTN_BLOCK; j++) finite &= (a[i + j] <= (MAX)) & (a[i + j] >= -(MAX)); \
        if (finite) {                                                                            \
            for (int j = 0; j < NTN_BLOCK; j++) o[i + j] = a[i + j];                             \
            continue;                                                                            \
        }                                                                                        \
        for (int j = 0; j < NTN_BLOCK; j++) {                                                    \
            T v = a[i + j];                                                                      \
            o[i + j] = v != v ? vn : v == (T)INFINITY ? vp : v == -(T)INFINITY ? vm : v;         \
        }                                                                                        \
    }                                                                                            \
    for (; i < n; i++) {                                                                         \
        T v = a[i];                                                                              \
        o[i] = v != v ? vn : v == (T)INFINITY ? vp : v == -(T)INFINITY ? vm : v;                 \
    }

ERF_CLONES static void nan_to_num_float(const float *restrict a, float *restrict o, Py_ssize_t n, float vn, float vp,
                                        float vm)
{
    NAN_TO_NUM_LOOP(float, 0x1.fffffep127f)
}

ERF_CLONES static void nan_to_num_double(const double *restrict a, double *restrict o, Py_ssize_t n, double vn,
                                         double vp, double vm)
{
    NAN_TO_NUM_LOOP(double, 0x1.fffffffffffffp1023)
}
#undef NAN_TO_NUM_LOOP

/* ---------------------------------------------------------------- frac, one pass
 *
 * frac(x, out) -> bool: out = x - trunc(x) over contiguous float32/float64 buffers of one format
 * and length (row-major both, or column-major both), x and out the same memory or disjoint;
 * False (nothing written) otherwise. NumPy's np.subtract(x, np.trunc(x)) is two passes and a
 * temporary (0.6 ms at 2^20 float32, each pass ~0.3 ms of memory traffic); this one pass gives
 * the same bits: trunc is exact, the subtraction one IEEE rounding with x first (a NaN x keeps
 * its payload, quieted, as NumPy's SIMD subtraction keeps it; inf - inf is the default NaN of
 * the same instruction). AVX-512 / AVX2 clones (vround: trunc inline). */
ERF_CLONES static void frac_float(const float *restrict a, float *restrict o, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) o[i] = a[i] - truncf(a[i]);
}

ERF_CLONES static void frac_double(const double *restrict a, double *restrict o, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) o[i] = a[i] - trunc(a[i]);
}

ERF_CLONES static void frac_float_inplace(float *a, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) a[i] = a[i] - truncf(a[i]);
}

ERF_CLONES static void frac_double_inplace(double *a, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) a[i] = a[i] - trunc(a[i]);
}

static PyObject *py_frac(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Py_buffer xb, ob;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "frac(x, out) takes 2 arguments, not %zd", nargs);
        return NULL;
    }
    if (in_out_buffers(args[0], args[1], &xb, &ob) < 0) return NULL;
    PyObject *answer = Py_False;
    int f32 = strcmp(xb.format, "f") == 0 && xb.itemsize == 4, f64 = strcmp(xb.format, "d") == 0 && xb.itemsize == 8;
    int same = xb.buf == ob.buf;
    int order = (PyBuffer_IsContiguous(&xb, 'C') && PyBuffer_IsContiguous(&ob, 'C'))
                || (PyBuffer_IsContiguous(&xb, 'F') && PyBuffer_IsContiguous(&ob, 'F'));
    if ((f32 || f64) && strcmp(ob.format, xb.format) == 0 && ob.len == xb.len && order
        && (same || !overlaps(&xb, &ob))
        && !((uintptr_t)xb.buf % xb.itemsize) && !((uintptr_t)ob.buf % xb.itemsize)) {
        Py_ssize_t n = xb.len / xb.itemsize;
        Py_BEGIN_ALLOW_THREADS
        if (same) {
            if (f32) frac_float_inplace(ob.buf, n);
            else frac_double_inplace(ob.buf, n);
        } else {
            if (f32) frac_float(xb.buf, ob.buf, n);
            else frac_double(xb.buf, ob.buf, n);
        }
        Py_END_ALLOW_THREADS
        answer = Py_True;
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

/* norm2(x, out, n, inner, absolute) -> bool: the Euclidean norm along a dim of n elements whose
 * elements lie `inner` apart (x read as (outer, n, inner), C order) into out ((outer, inner), C order);
 * x and out C-contiguous buffers of one format ("f" or "d"). strided.kernels.reduce.euclidean_norms'
 * NumPy computation operation for operation, in x's type, so the bits are the same:
 *   a = |x| (absolute; else a = x), a * a  (np.abs, then np.multiply; without: matrix_norm's x * x,
 *                                        whose NaN keeps its sign)
 *   inner 1: q = 0 + pairwise(a * a)     np.add.reduce along a contiguous axis: NumPy's pairwise_sum
 *                                        (see variance_rows' PAIRWISE), on the reduction's identity
 *   inner > 1: q = (0 + t_0) + t_1 ...   along an outer axis NumPy's reduction adds row after row
 *                                        (a square is never -0.0: a start from t_0 or from 0 is alike)
 *   sqrt(q)                             (np.sqrt in place)
 * False (nothing written) where out overlaps x. */
#define PAIRWISE_SQ(NAME, T, ABS)                                                                  \
    static T NAME(const T *a, Py_ssize_t n)                                                        \
    {                                                                                              \
        if (n < 8) {                                                                               \
            T res = 0;                                                                             \
            for (Py_ssize_t i = 0; i < n; i++) res = res + ABS(a[i]) * ABS(a[i]);                  \
            return res;                                                                            \
        }                                                                                          \
        if (n <= 128) {                                                                            \
            T r[8], res;                                                                           \
            Py_ssize_t i;                                                                          \
            for (int j = 0; j < 8; j++) r[j] = ABS(a[j]) * ABS(a[j]);                              \
            for (i = 8; i < n - (n % 8); i += 8)                                                   \
                for (int j = 0; j < 8; j++) r[j] = r[j] + ABS(a[i + j]) * ABS(a[i + j]);           \
            res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));               \
            for (; i < n; i++) res = res + ABS(a[i]) * ABS(a[i]);                                  \
            return res;                                                                            \
        }                                                                                          \
        Py_ssize_t n2 = n / 2;                                                                     \
        n2 -= n2 % 8;                                                                              \
        return NAME(a, n2) + NAME(a + n2, n - n2);                                                 \
    }
#define SAME(v) (v)
PAIRWISE_SQ(pairwise_sq_f, float, fabsf)
PAIRWISE_SQ(pairwise_sq_d, double, fabs)
PAIRWISE_SQ(pairwise_sqs_f, float, SAME)
PAIRWISE_SQ(pairwise_sqs_d, double, SAME)
#undef PAIRWISE_SQ

/* |v| for a NaN v, by its bits. GCC folds fabs(x) * fabs(x) into x * x (the same value but for a NaN's
 * sign), so a negative NaN input leaves a negative NaN in the sums; NumPy's |x| makes every NaN there
 * positive, and a NaN sum is then always positive (squares are never -inf: no inf - inf), with the
 * payload of the NaN the same additions propagate. Clearing the sign of a NaN result gives its bits. */
#define NORM2_POSITIVE_NAN(T, UT, v)                                                               \
    do {                                                                                           \
        if ((v) != (v)) {                                                                          \
            UT bits_;                                                                              \
            memcpy(&bits_, &(v), sizeof bits_);                                                    \
            bits_ &= ~((UT)1 << (8 * sizeof(UT) - 1));                                             \
            memcpy(&(v), &bits_, sizeof bits_);                                                    \
        }                                                                                          \
    } while (0)
#define NORM2_LOOP(T, UT, PW, ABS, SQRT)                                                           \
    for (Py_ssize_t o = 0; o < outer; o++) {                                                       \
        const T *xo = (const T *)xb + o * n * inner;                                               \
        T *oo = (T *)ob + o * inner;                                                               \
        if (inner == 1) {                                                                          \
            oo[0] = SQRT((T)0 + PW(xo, n));                                                        \
            if (absolute) NORM2_POSITIVE_NAN(T, UT, oo[0]);                                        \
            continue;                                                                              \
        }                                                                                          \
        for (Py_ssize_t j = 0; j < inner; j++) oo[j] = (T)0 + ABS(xo[j]) * ABS(xo[j]);             \
        for (Py_ssize_t k = 1; k < n; k++) {                                                       \
            const T *xk = xo + k * inner;                                                          \
            for (Py_ssize_t j = 0; j < inner; j++) oo[j] = oo[j] + ABS(xk[j]) * ABS(xk[j]);        \
        }                                                                                          \
        for (Py_ssize_t j = 0; j < inner; j++) {                                                   \
            oo[j] = SQRT(oo[j]);                                                                   \
            if (absolute) NORM2_POSITIVE_NAN(T, UT, oo[j]);                                        \
        }                                                                                          \
    }

static PyObject *py_norm2(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "norm2(x, out, n, inner, absolute) takes 5 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[2]), inner = PyLong_AsSsize_t(args[3]);
    int absolute = PyObject_IsTrue(args[4]);
    if ((n == -1 || inner == -1 || absolute < 0) && PyErr_Occurred()) return NULL;
    Py_buffer x, out;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    PyObject *answer = NULL;
    char kind = format_kind(&x);
    if ((kind != 'f' && kind != 'd') || format_kind(&out) != kind || n < 1 || inner < 1
        || n > PY_SSIZE_T_MAX / inner || (x.len / x.itemsize) % (n * inner) != 0
        || out.len / out.itemsize != (x.len / x.itemsize) / n) {
        PyErr_Format(PyExc_ValueError, "norm2: x and out must be C-contiguous float32 or float64 buffers of one "
                     "format, x a multiple of n * inner >= 1 elements and out x's count / n (formats %s and %s, "
                     "%zd and %zd bytes, n %zd, inner %zd)", x.format, out.format, x.len, out.len, n, inner);
        goto done;
    }
    if (overlaps(&x, &out)) {
        answer = Py_False;
        goto done;
    }
    {
        const char *xb = x.buf;
        char *ob = out.buf;
        Py_ssize_t total = x.len / x.itemsize, outer = total / (n * inner);
#define NORM2_ALL                                                                                  \
    if (kind == 'f') {                                                                             \
        if (absolute) { NORM2_LOOP(float, uint32_t, pairwise_sq_f, fabsf, sqrtf) }                           \
        else { NORM2_LOOP(float, uint32_t, pairwise_sqs_f, SAME, sqrtf) }                                    \
    } else {                                                                                       \
        if (absolute) { NORM2_LOOP(double, uint64_t, pairwise_sq_d, fabs, sqrt) }                            \
        else { NORM2_LOOP(double, uint64_t, pairwise_sqs_d, SAME, sqrt) }                                    \
    }
        if (total >= MIN_RELEASE) {
            Py_BEGIN_ALLOW_THREADS
            NORM2_ALL
            Py_END_ALLOW_THREADS
        } else {
            NORM2_ALL
        }
#undef NORM2_ALL
        answer = Py_True;
    }
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    Py_XINCREF(answer);
    return answer;
}
#undef NORM2_LOOP
#undef NORM2_POSITIVE_NAN
#undef SAME


/* PROD_ALL(T): the product of each row of n >= 1 elements of xb into ob (one element per row; in
 * torch_prod_rows, rows shorter than PyTorch's four vectors). np.multiply.reduce
 * along a contiguous axis operation for operation, in x's type, so the bits are the same: from the
 * identity, r = ((1 * x_0) * x_1) * ... (the 1 * x_0 quiets a signaling NaN, as NumPy's), the
 * running product the left operand (a NaN meeting a NaN keeps the running one). Rows run
 * interleaved, PROD_LANES at a time (each its own chain: the latency of one multiply per element of
 * a row is what bounds NumPy's loop). */
#define PROD_LANES 8
#define PROD_ROWS(T, W)                                                                            \
    for (; r + W <= rows; r += W) {                                                                \
        const T *xr = (const T *)xb + r * n;                                                       \
        T acc[W];                                                                                  \
        for (int l = 0; l < W; l++) acc[l] = (T)1;                                                 \
        for (Py_ssize_t k = 0; k < n; k++)                                                         \
            for (int l = 0; l < W; l++) acc[l] = acc[l] * xr[l * n + k];                           \
        for (int l = 0; l < W; l++) ((T *)ob)[r + l] = acc[l];                                     \
    }
#define PROD_ALL(T)                                                                                \
    {                                                                                              \
        Py_ssize_t r = 0;                                                                          \
        PROD_ROWS(T, PROD_LANES)                                                                   \
        PROD_ROWS(T, 1)                                                                            \
    }

/* torch_prod_rows(x, out, n[, strict]) -> bool: PyTorch's CPU product (binary_kernel_reduce_vec in ATen's
 * Reduce.h, 32-byte vectors: V = 8 float32 / 4 float64 lanes, measured on PyTorch 2.13 with its
 * AVX-512 capability) of each row of n elements of x into out; x and out C-contiguous buffers of one
 * format ("f" or "d"). A row of at least 4 V elements: four vector accumulators loaded from its first
 * 4 V elements, each then multiplied by the next 4 V elements' vector in turn (count = n / 4 V
 * blocks); the four combined as (a0 * a1) * (a2 * a3), its V lanes multiplied in order from the
 * first, and that into the output's identity (1 * p); then the row's last n % 4 V elements one by
 * one. A shorter row is the running product from 1 in order (PROD_ALL, NumPy's bits). The
 * operations are IEEE float multiplies in x's type (no FMA can enter: nothing adds); only a NaN's
 * payload may depend on which operand the compiler puts first (the caller recomputes NaN results).
 * False (nothing written) where out overlaps x; with strict true, False too where a result is NaN
 * (out written). n 0: one row of every element (False for none). */
#define TPROD_ROW(T, V)                                                                            \
    VECTOR_CLONES static T torch_prod_row_##T(const T *restrict xr, Py_ssize_t n)                  \
    {                                                                                              \
        Py_ssize_t count = n / (4 * V), k = 0;                                                     \
        T res = (T)1;                                                                              \
        if (count > 0) {                                                                           \
            T acc[4 * V], a0[V];                                                                   \
            for (int l = 0; l < 4 * V; l++) acc[l] = xr[l];                                        \
            for (Py_ssize_t i = 1; i < count; i++) {                                               \
                const T *b = xr + i * 4 * V;                                                       \
                for (int l = 0; l < 4 * V; l++) acc[l] = acc[l] * b[l];                            \
            }                                                                                      \
            for (int l = 0; l < V; l++) a0[l] = (acc[l] * acc[V + l]) * (acc[2 * V + l] * acc[3 * V + l]); \
            T p = a0[0];                                                                           \
            for (int l = 1; l < V; l++) p = p * a0[l];                                             \
            res = res * p;                                                                         \
            k = count * 4 * V;                                                                     \
        }                                                                                          \
        for (; k < n; k++) res = res * xr[k];                                                      \
        return res;                                                                                \
    }                                                                                              \
    /* Two rows at once (xr and xr + n into o[0], o[1]), each by torch_prod_row's operations in its  \
     * order: eight accumulator chains in flight, where one row's four leave the multiplier waiting \
     * on their latency (1M float32 in rows of 1024, thread CPU time: 73 -> ~55 us; PyTorch's 62). */ \
    VECTOR_CLONES static void torch_prod_row2_##T(const T *restrict xr, Py_ssize_t n, T *restrict o) \
    {                                                                                              \
        Py_ssize_t count = n / (4 * V), k = 0;                                                     \
        const T *xs = xr + n;                                                                      \
        T res = (T)1, ret = (T)1;                                                                  \
        if (count > 0) {                                                                           \
            T acc[4 * V], acd[4 * V], a0[V], b0[V];                                                \
            for (int l = 0; l < 4 * V; l++) { acc[l] = xr[l]; acd[l] = xs[l]; }                    \
            for (Py_ssize_t i = 1; i < count; i++) {                                               \
                const T *b = xr + i * 4 * V, *c = xs + i * 4 * V;                                  \
                for (int l = 0; l < 4 * V; l++) { acc[l] = acc[l] * b[l]; acd[l] = acd[l] * c[l]; } \
            }                                                                                      \
            for (int l = 0; l < V; l++) {                                                          \
                a0[l] = (acc[l] * acc[V + l]) * (acc[2 * V + l] * acc[3 * V + l]);                 \
                b0[l] = (acd[l] * acd[V + l]) * (acd[2 * V + l] * acd[3 * V + l]);                 \
            }                                                                                      \
            T p = a0[0], q = b0[0];                                                                \
            for (int l = 1; l < V; l++) { p = p * a0[l]; q = q * b0[l]; }                          \
            res = res * p;                                                                         \
            ret = ret * q;                                                                         \
            k = count * 4 * V;                                                                     \
        }                                                                                          \
        for (Py_ssize_t j = k; j < n; j++) res = res * xr[j];                                      \
        for (Py_ssize_t j = k; j < n; j++) ret = ret * xs[j];                                      \
        o[0] = res;                                                                                \
        o[1] = ret;                                                                                \
    }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("no-trapping-math")
#endif
TPROD_ROW(float, 8)
TPROD_ROW(double, 4)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
#undef TPROD_ROW
#include "_prod_rows_z.h" /* z_prod_rows: the same rows by AVX-512 */

static PyObject *py_torch_prod_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3 && nargs != 4) {
        PyErr_Format(PyExc_TypeError, "torch_prod_rows(x, out, n[, strict]) takes 3 or 4 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[2]);
    int strict = nargs == 4 ? PyObject_IsTrue(args[3]) : 0;
    if ((n == -1 || strict < 0) && PyErr_Occurred()) return NULL;
    Py_buffer x, out;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    PyObject *answer = NULL;
    char kind = format_kind(&x);
    if (n == 0 && x.itemsize > 0) { /* (one row: every element; none: the caller's empty product) */
        n = x.len / x.itemsize;
        if (n == 0) {
            answer = Py_False;
            goto done;
        }
    }
    if ((kind != 'f' && kind != 'd') || format_kind(&out) != kind || n < 1 || (x.len / x.itemsize) % n != 0
        || out.len / out.itemsize != (x.len / x.itemsize) / n) {
        PyErr_Format(PyExc_ValueError, "torch_prod_rows: x and out must be C-contiguous float32 or float64 "
                     "buffers of one format, x a multiple of n >= 1 elements and out one per row (formats %s "
                     "and %s, %zd and %zd bytes, n %zd)", x.format, out.format, x.len, out.len, n);
        goto done;
    }
    if (overlaps(&x, &out)) {
        answer = Py_False;
        goto done;
    }
    {
        const char *xb = x.buf;
        char *ob = out.buf;
        Py_ssize_t total = x.len / x.itemsize, rows = total / n;
        int release = total >= MIN_RELEASE;
        PyThreadState *ts = release ? PyEval_SaveThread() : NULL;
        if (z_prod_rows(kind, xb, rows, n, ob))
            ;
        else if (kind == 'f') {
            if (n < 32) PROD_ALL(float)  /* (PyTorch's loop: the running product from 1, in order) */
            else {
                Py_ssize_t r = 0;
                for (; r + 2 <= rows; r += 2) torch_prod_row2_float((const float *)xb + r * n, n, (float *)ob + r);
                for (; r < rows; r++) ((float *)ob)[r] = torch_prod_row_float((const float *)xb + r * n, n);
            }
        } else {
            if (n < 16) PROD_ALL(double)
            else {
                Py_ssize_t r = 0;
                for (; r + 2 <= rows; r += 2) torch_prod_row2_double((const double *)xb + r * n, n, (double *)ob + r);
                for (; r < rows; r++) ((double *)ob)[r] = torch_prod_row_double((const double *)xb + r * n, n);
            }
        }
        if (release) PyEval_RestoreThread(ts);
        answer = Py_True;
        for (Py_ssize_t r = 0; strict && r < rows; r++) /* (a NaN's payload: the caller's NumPy path) */
            if (kind == 'f' ? ((float *)ob)[r] != ((float *)ob)[r] : ((double *)ob)[r] != ((double *)ob)[r]) {
                answer = Py_False;
                break;
            }
    }
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    Py_XINCREF(answer);
    return answer;
}
#undef PROD_ROWS
#undef PROD_ALL


/* torch_prod_cols(x, out, size, inner) -> bool: the product over the middle dim of x read as (outer,
 * size, inner) (a C-contiguous float32 / float64 buffer) into out (outer, inner) of its format: each
 * out element the running product from 1 over the reduced dim in order, the running product the
 * left operand (NumPy's multiply.reduce along a non-innermost axis, PyTorch's outer reduction: the
 * same sequence of multiplies), a row of the reduced dim at a time so that the inner dim runs in
 * vectors. False (out may be written) where a result is NaN (its payload: the caller's NumPy path)
 * or the buffers do not fit. 1024 x 1024 float32 over dim 0, thread CPU time: NumPy's reduce
 * ~72-79 us with ~8 us of declining fast paths before it -> ~50. */
#define PROD_COLS(T)                                                                               \
    VECTOR_CLONES static int prod_cols_##T(const T *restrict x, T *restrict out, Py_ssize_t outer,    \
                                           Py_ssize_t size, Py_ssize_t inner)                       \
    {                                                                                              \
        int nan = 0;                                                                               \
        for (Py_ssize_t o = 0; o < outer; o++) {                                                   \
            T *restrict acc = out + o * inner;                                                     \
            for (Py_ssize_t j = 0; j < inner; j++) acc[j] = (T)1;                                  \
            for (Py_ssize_t i = 0; i < size; i++) {                                                \
                const T *restrict row = x + (o * size + i) * inner;                                \
                for (Py_ssize_t j = 0; j < inner; j++) acc[j] = acc[j] * row[j];                   \
            }                                                                                      \
            for (Py_ssize_t j = 0; j < inner; j++) nan |= acc[j] != acc[j];                        \
        }                                                                                          \
        return nan;                                                                                \
    }
PROD_COLS(float)
PROD_COLS(double)
#undef PROD_COLS

static PyObject *py_torch_prod_cols(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *xo, *oo;
    Py_ssize_t size, inner;
    if (!PyArg_ParseTuple(args, "OOnn:torch_prod_cols", &xo, &oo, &size, &inner)) return NULL;
    Py_buffer x, out;
    if (PyObject_GetBuffer(xo, &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(oo, &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    char kind = format_kind(&x);
    Py_ssize_t n = x.itemsize ? x.len / x.itemsize : 0, m = out.itemsize ? out.len / out.itemsize : 0;
    int fits = (kind == 'f' || kind == 'd') && format_kind(&out) == kind && size >= 1 && inner >= 1
               && n % (size * inner) == 0 && m == n / size && m > 0 && !overlaps(&x, &out);
    int nan = 0;
    if (fits) {
        Py_ssize_t outer = n / (size * inner);
        Py_BEGIN_ALLOW_THREADS
        nan = kind == 'f' ? prod_cols_float(x.buf, out.buf, outer, size, inner)
                          : prod_cols_double(x.buf, out.buf, outer, size, inner);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    if (fits && !nan) Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

/* fill_value(out, one) -> bool: every element of the C-contiguous buffer out set to the bytes of
 * one (a buffer of one element of out's itemsize: 1, 2, 4, 8 or 16 bytes), the value written as it
 * is. A plain store loop that GCC vectorizes, in an AVX-512 or AVX2 clone where the CPU has it
 * (64- or 32-byte stores), from the first 64-byte boundary on (a NumPy array starts 16 bytes past
 * one: its unaligned 64-byte stores each split over two cache lines). 1M float32 into warm memory,
 * thread time: 42 us from the boundary, 53 from the array's start, PyTorch's fill_ 44; NumPy's
 * fill, an element at a time, ~130, np.copyto of a scalar ~73. False (nothing written) for another
 * itemsize. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define FILL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define FILL_CLONES
#endif
#define FILL_LOOP(T)                                                                               \
    FILL_CLONES static void fill_##T(T *restrict o, Py_ssize_t n, T v)                             \
    {                                                                                              \
        Py_ssize_t head = (Py_ssize_t)((64 - ((uintptr_t)o & 63)) & 63) / (Py_ssize_t)sizeof(T), i = 0; \
        for (; i < head && i < n; i++) o[i] = v;                                                   \
        for (; i < n; i++) o[i] = v;                                                               \
    }
FILL_LOOP(uint8_t)
FILL_LOOP(uint16_t)
FILL_LOOP(uint32_t)
FILL_LOOP(uint64_t)
#undef FILL_LOOP
#undef FILL_CLONES

static PyObject *py_fill_value(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "fill_value(out, one) takes 2 arguments, not %zd", nargs);
        return NULL;
    }
    Py_buffer out, one;
    if (PyObject_GetBuffer(args[0], &out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &one, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&out);
        return NULL;
    }
    PyObject *answer = Py_False;
    Py_ssize_t size = one.len, n = size ? out.len / size : 0;
    if (size == out.itemsize && (size == 1 || size == 2 || size == 4 || size == 8 || size == 16) && n * size == out.len) {
        uint64_t w[2] = {0, 0};
        memcpy(w, one.buf, (size_t)size);
        int release = out.len >= (1 << 16);
        PyThreadState *ts = release ? PyEval_SaveThread() : NULL;
        switch (size) {
        case 1: fill_uint8_t(out.buf, n, (uint8_t)w[0]); break;
        case 2: { uint16_t v; memcpy(&v, w, 2); fill_uint16_t(out.buf, n, v); break; }
        case 4: { uint32_t v; memcpy(&v, w, 4); fill_uint32_t(out.buf, n, v); break; }
        case 8: fill_uint64_t(out.buf, n, w[0]); break;
        default: {
            /* 16 bytes (complex128): the two halves alternate, a 64-bit pattern where they are equal */
            if (w[0] == w[1]) fill_uint64_t(out.buf, 2 * n, w[0]);
            else for (Py_ssize_t i = 0; i < n; i++) memcpy((char *)out.buf + 16 * i, w, 16);
        }
        }
        if (release) PyEval_RestoreThread(ts);
        answer = Py_True;
    }
    PyBuffer_Release(&out);
    PyBuffer_Release(&one);
    Py_INCREF(answer);
    return answer;
}

/* shifted_expf: glibc's expf (sysdeps/ieee754/flt-32/e_expf.c, the variant its ifunc picks on a CPU
 * with FMA and AVX2: GCC contracts z + SHIFT and z - kd into fused multiply-adds there) on x[i] - m,
 * four lanes of doubles at a time. exp(x) = 2^(k/32) * 2^(r/32) with k = round(x * 32 / ln 2):
 * the 2^(k/32) from a 32-entry table (its bits less k << 47), 2^(r/32) a cubic. Inputs with
 * |v| >= 88 or NaN (glibc's special cases: overflow, underflow, -inf, NaN) are recomputed by libm's
 * expf itself. It runs only where the CPU has AVX2 and FMA and a check at the first use finds it
 * equal to this process's expf on 2^16 spread inputs (otherwise the scalar expf loop runs, as
 * before): checked equal to glibc 2.3x's expf on all 2^32 floats on an AVX-512 Xeon. */
#if defined(__GNUC__) && defined(__x86_64__)
#include "_glibc_expf.h"  /* EXPF_TABLE */

__attribute__((target("avx2,fma"))) static __m128 expf_lanes(__m256d d)
{
    const __m256d invln2n = _mm256_set1_pd(EXPF_INVLN2N), shift = _mm256_set1_pd(EXPF_SHIFT);
    __m256d kd = _mm256_fmadd_pd(invln2n, d, shift);  /* kd = z + SHIFT, z = InvLn2N * x, fused */
    __m256i ki = _mm256_castpd_si256(kd);
    kd = _mm256_sub_pd(kd, shift);
    __m256d r = _mm256_fmsub_pd(invln2n, d, kd);       /* r = z - kd, fused */
    __m256i t = _mm256_i64gather_epi64((const long long *)EXPF_TABLE, _mm256_and_si256(ki, _mm256_set1_epi64x(31)), 8);
    t = _mm256_add_epi64(t, _mm256_slli_epi64(ki, 47));
    __m256d s = _mm256_castsi256_pd(t);
    __m256d z = _mm256_fmadd_pd(_mm256_set1_pd(EXPF_C0), r,
                                _mm256_set1_pd(EXPF_C1));
    __m256d r2 = _mm256_mul_pd(r, r);
    __m256d y = _mm256_fmadd_pd(_mm256_set1_pd(EXPF_C2), r, _mm256_set1_pd(1.0));
    y = _mm256_fmadd_pd(z, r2, y);
    return _mm256_cvtpd_ps(_mm256_mul_pd(y, s));
}

__attribute__((target("avx2,fma"))) static void shifted_expf_avx2(const float *x, float m, float *o, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    const __m256 mv = _mm256_set1_ps(m);
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_sub_ps(_mm256_loadu_ps(x + i), mv);
        __m128 lo = expf_lanes(_mm256_cvtps_pd(_mm256_castps256_ps128(v)));
        __m128 hi = expf_lanes(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
        _mm256_storeu_ps(o + i, _mm256_set_m128(hi, lo));
        __m256i top = _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(v), 20), _mm256_set1_epi32(0x7ff));
        __m256i special = _mm256_cmpgt_epi32(top, _mm256_set1_epi32(0x42a));  /* |v| >= 88 or NaN */
        if (!_mm256_testz_si256(special, special))
            for (int j = 0; j < 8; j++) {
                float w = x[i + j] - m;
                uint32_t u;
                memcpy(&u, &w, sizeof u);
                if (((u >> 20) & 0x7ff) >= 0x42b) o[i + j] = expf(w);
            }
    }
    for (; i < n; i++) o[i] = expf(x[i] - m);
}

static int shifted_expf(const float *x, float m, float *o, Py_ssize_t n)
{
    shifted_expf_avx2(x, m, o, n);
    return 1;
}

static void decide_shifted_expf(void)
{
    static int decided = 0;
    if (decided) return;
    __builtin_cpu_init();
    int ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (ok) {  /* 2^16 inputs spread over every sign, exponent and mantissa region, against libm */
        float in[256], out[256];
        for (uint32_t b = 0; ok && b < 256; b++) {
            for (uint32_t j = 0; j < 256; j++) {
                uint32_t u = (b << 24) | (j << 16) | ((j * 40503u + b * 9973u) & 0xffff);
                memcpy(&in[j], &u, sizeof u);
            }
            shifted_expf_avx2(in, 0.0f, out, 256);
            for (int j = 0; j < 256; j++) {
                float e = expf(in[j] - 0.0f);
                if (memcmp(&e, &out[j], sizeof e) != 0) ok = 0;
            }
        }
        /* The two floats (of all 2^32) where glibc 2.36's plain expf (its ifunc's pick without FMA,
         * e.g. GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA on this CPU) differs from its FMA variant,
         * which this port follows; the spread inputs above miss both (found by red14a). */
        static const float rare[8] = {0x1.04845ep+5f, -0x1.f8cbb2p+5f, 0x1.04845ep+5f, -0x1.f8cbb2p+5f,
                                      -1.5f, -0x1.8p-3f, -20.25f, -0x1.fffffep+4f};
        shifted_expf_avx2(rare, 0.0f, out, 8);
        for (int j = 0; ok && j < 8; j++) {
            float e = expf(rare[j]);
            if (memcmp(&e, &out[j], sizeof e) != 0) ok = 0;
        }
    }
    use_shifted_expf = ok;
    decided = 1;
}
#else
static int shifted_expf(const float *x, float m, float *o, Py_ssize_t n)
{
    (void)x; (void)m; (void)o; (void)n;
    return 0;
}
static void decide_shifted_expf(void) { use_shifted_expf = 0; }
#endif


/* shifted_expf(x, m, out) -> bool: out[i] = expf(x[i] - m) for float32 C-contiguous x and out of one
 * length by shifted_expf (glibc's expf bit for bit, vectorized); False (nothing written) where that
 * is not used here (no AVX2/FMA, or its first-use check against libm failed) or the buffers overlap.
 * (The softmax rows' exponentials where ATen's capability is DEFAULT, SLEEF's expf elsewhere: ROWS_EXPF;
 * exposed for the tests that compare it with libm's expf.) */
static PyObject *py_shifted_expf(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "shifted_expf(x, m, out) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    double m = PyFloat_AsDouble(args[1]);
    if (m == -1.0 && PyErr_Occurred()) return NULL;
    Py_buffer x, out;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[2], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    PyObject *answer = NULL;
    if (format_kind(&x) != 'f' || format_kind(&out) != 'f' || x.len != out.len) {
        PyErr_Format(PyExc_ValueError, "shifted_expf: x and out must be C-contiguous float32 buffers of one length "
                     "(formats %s and %s, %zd and %zd bytes)", x.format, out.format, x.len, out.len);
        goto done;
    }
    decide_shifted_expf();
    if (!use_shifted_expf || overlaps(&x, &out)) {
        answer = Py_False;
        goto done;
    }
    shifted_expf(x.buf, (float)m, out.buf, x.len / 4);
    answer = Py_True;
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    Py_XINCREF(answer);
    return answer;
}

/* ---------------------------------------------------------------- logaddexp / logaddexp2 of float32
 *
 * logaddexp_float32(x, y, out, base2[, form[, step]]) -> bool: out[i] = NumPy's npy_logaddexpf(x[i], y[i])
 * (base2 0) or npy_logaddexp2f (base2 1) bit for bit: x == y gives x + ln 2 (x + 1); otherwise
 * with tmp = x - y, max + log1pf(expf(-|tmp|)) (max + LOG2E * log1pf(exp2f(-|tmp|))), the larger
 * operand by tmp's sign; a NaN tmp is itself. These are the C library's expf/exp2f/log1pf, which
 * NumPy's float32 loop calls one element at a time; here 8 or 16 lanes run at once: expf and exp2f
 * as glibc's (sysdeps/ieee754/flt-32/e_expf.c, e_exp2f.c: a 32-entry table and a cubic in double,
 * fused where the ifunc's FMA variant fuses), log1pf as glibc's float s_log1pf.c (fdlibm: its
 * float operations one by one, none fused; the division is IEEE's). Lanes outside the ported
 * paths (|tmp| >= 88 or 128, infinities, log1pf's f == 0 branch near tmp = 0) are recomputed by
 * the scalar formula calling libm itself (logaddexpf_ref). Two forms, AVX2 (eight lanes) and
 * AVX-512 (sixteen), each used only where the CPU has it (and FMA) and a first-use check over 2^16
 * spread pairs (logaddexp_decide) finds it equal to logaddexpf_ref; form -1 (the default) takes
 * AVX-512 where it passed, else AVX2; 0 or 1 asks for one (the tests run both). Then also
 * strided.kernels.elementwise checks the default once against NumPy's own loop. Every NaN result
 * then gets its sign bit set: PyTorch's float32 logaddexp/logaddexp2 return NumPy's NaN (payload
 * and all) negative, at every length and position (logaddexp(nan, 1.0) is 0xffc00000), but for an
 * AVX2 PyTorch's vector lanes, whose NaNs are the default NaN: step > 0 marks them (one row of its
 * loop, steps of 16). False (nothing written) where the form is not used here, or out overlaps x or y. */
#define NPY_LOGE2F 0.693147180559945309417232121458176568f
#define NPY_LOG2EF 1.442695040888963407359924681001892137f

/* NumPy's npy_logaddexp / npy_logaddexp2 (npy_math_internal.h.src) of type T, the C library's calls */
#define LOGADDEXP_REF(NAME, T, LOGE2, LOG2E, EXP, EXP2, LOG1P)                                            \
    static T NAME(T x, T y, int base2)                                                                 \
    {                                                                                                  \
        if (x == y) return base2 ? x + (T)1 : x + LOGE2;                                               \
        T tmp = x - y;                                                                                 \
        if (tmp > 0) return base2 ? x + LOG2E * LOG1P(EXP2(-tmp)) : x + LOG1P(EXP(-tmp));              \
        if (tmp <= 0) return base2 ? y + LOG2E * LOG1P(EXP2(tmp)) : y + LOG1P(EXP(tmp));               \
        return tmp;                                                                                    \
    }
LOGADDEXP_REF(logaddexpf_ref, float, NPY_LOGE2F, NPY_LOG2EF, expf, exp2f, log1pf)

#if defined(__GNUC__) && defined(__x86_64__)
/* -1: not decided; 0: not used; 1: used, exp2f unfused (glibc's generic build); 2: used, exp2f fused */
static int logaddexp_mode[2][2] = {{-1, -1}, {-1, -1}}; /* [base2][form: 0 AVX2, 1 AVX-512] */

/* exp2f(d) for four doubles d (float values) as glibc's e_exp2f.c: k/32 + r, 2^(k/32) from the
 * expf table (EXPF_TABLE, its bits less k << 47), 2^r a cubic; fused: the FMA variant's three fmas */
__attribute__((target("avx2,fma"))) static __m128 exp2f_lanes(__m256d xd, int fused)
{
    const __m256d shift = _mm256_set1_pd(0x1.8p+52 / 32);
    __m256d kd = _mm256_add_pd(xd, shift);
    __m256i ki = _mm256_castpd_si256(kd);
    kd = _mm256_sub_pd(kd, shift);
    __m256d r = _mm256_sub_pd(xd, kd);
    __m256i t = _mm256_i64gather_epi64((const long long *)EXPF_TABLE, _mm256_and_si256(ki, _mm256_set1_epi64x(31)), 8);
    t = _mm256_add_epi64(t, _mm256_slli_epi64(ki, 47));
    __m256d s = _mm256_castsi256_pd(t);
    const __m256d c0 = _mm256_set1_pd(0x1.c6af84b912394p-5), c1 = _mm256_set1_pd(0x1.ebfce50fac4f3p-3),
                  c2 = _mm256_set1_pd(0x1.62e42ff0c52d6p-1), one = _mm256_set1_pd(1.0);
    __m256d r2 = _mm256_mul_pd(r, r), z, y;
    if (fused) {
        z = _mm256_fmadd_pd(c0, r, c1);
        y = _mm256_fmadd_pd(c2, r, one);
        y = _mm256_fmadd_pd(z, r2, y);
    } else {
        z = _mm256_add_pd(_mm256_mul_pd(c0, r), c1);
        y = _mm256_add_pd(_mm256_mul_pd(c2, r), one);
        y = _mm256_add_pd(_mm256_mul_pd(z, r2), y);
    }
    return _mm256_cvtpd_ps(_mm256_mul_pd(y, s));
}

/* glibc's s_log1pf for t in [0, 1], lane by lane, its float operations in its order; *odd gets the
 * lanes of its hu == 0 branch (1 + t a power of two: t within an ulp of 1), which the caller
 * recomputes by libm. all_big: every lane is t >= 0.41422 (its k != 0 path; the other paths' work
 * and blends left out) */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256 log1pf_lanes(__m256 t, __m256i *odd, int all_big)
{
    const __m256 one = _mm256_set1_ps(1.0f), half = _mm256_set1_ps(0.5f);
    __m256i hx = _mm256_castps_si256(t);
    __m256i tiny = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x31000000), hx);   /* t < 2^-29 */
    __m256i tinier = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x24800000), hx); /* t < 2^-54 */
    __m256i big = _mm256_cmpgt_epi32(hx, _mm256_set1_epi32(0x3ed413d6));     /* t >= 0.41422 */
    /* the k != 0 path: u = 1 + t, its exponent k, the correction c = (k > 0 ? 1 - (u - t) : t - (u - 1)) / u */
    __m256 u = _mm256_add_ps(one, t);
    __m256i hu = _mm256_castps_si256(u);
    __m256i k = _mm256_sub_epi32(_mm256_srli_epi32(hu, 23), _mm256_set1_epi32(127));
    __m256 c = _mm256_blendv_ps(_mm256_sub_ps(t, _mm256_sub_ps(u, one)), _mm256_sub_ps(one, _mm256_sub_ps(u, t)),
                                _mm256_castsi256_ps(_mm256_cmpgt_epi32(k, _mm256_setzero_si256())));
    c = _mm256_div_ps(c, u);
    hu = _mm256_and_si256(hu, _mm256_set1_epi32(0x007fffff));
    __m256i low = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x3504f7), hu);       /* hu < 0x3504f7: u in [1, sqrt 2) */
    __m256 un = _mm256_castsi256_ps(_mm256_or_si256(hu, _mm256_blendv_epi8(_mm256_set1_epi32(0x3f000000),
                                                                           _mm256_set1_epi32(0x3f800000), low)));
    k = _mm256_sub_epi32(k, _mm256_andnot_si256(low, _mm256_set1_epi32(-1)));  /* k += 1 where not low */
    __m256i hu2 = _mm256_blendv_epi8(_mm256_srli_epi32(_mm256_sub_epi32(_mm256_set1_epi32(0x00800000), hu), 2), hu, low);
    *odd = _mm256_cmpeq_epi32(hu2, _mm256_setzero_si256());
    __m256 f = _mm256_sub_ps(un, one);
    if (!all_big) {
        *odd = _mm256_and_si256(big, *odd);
        k = _mm256_and_si256(k, big);                 /* k = 0 on the small path (f = t) */
        f = _mm256_blendv_ps(t, f, _mm256_castsi256_ps(big));
        c = _mm256_and_ps(c, _mm256_castsi256_ps(big));
    }
    __m256 hfsq = _mm256_mul_ps(_mm256_mul_ps(half, f), f);
    __m256 s = _mm256_div_ps(f, _mm256_add_ps(_mm256_set1_ps(2.0f), f));
    __m256 z = _mm256_mul_ps(s, s);
    __m256 R = _mm256_set1_ps(1.4798198640e-01f);
    R = _mm256_add_ps(_mm256_set1_ps(1.5313838422e-01f), _mm256_mul_ps(z, R));
    R = _mm256_add_ps(_mm256_set1_ps(1.8183572590e-01f), _mm256_mul_ps(z, R));
    R = _mm256_add_ps(_mm256_set1_ps(2.2222198546e-01f), _mm256_mul_ps(z, R));
    R = _mm256_add_ps(_mm256_set1_ps(2.8571429849e-01f), _mm256_mul_ps(z, R));
    R = _mm256_add_ps(_mm256_set1_ps(4.0000000596e-01f), _mm256_mul_ps(z, R));
    R = _mm256_add_ps(_mm256_set1_ps(6.6666668653e-01f), _mm256_mul_ps(z, R));
    R = _mm256_mul_ps(z, R);
    __m256 sr = _mm256_mul_ps(s, _mm256_add_ps(hfsq, R));
    __m256 r0 = _mm256_sub_ps(f, _mm256_sub_ps(hfsq, sr));                 /* k == 0 */
    __m256 kf = _mm256_cvtepi32_ps(k);
    __m256 r1 = _mm256_sub_ps(_mm256_mul_ps(kf, _mm256_set1_ps(6.9313812256e-01f)),
                              _mm256_sub_ps(_mm256_sub_ps(hfsq, _mm256_add_ps(sr, _mm256_add_ps(
                                  _mm256_mul_ps(kf, _mm256_set1_ps(9.0580006145e-06f)), c))), f));
    __m256 r = _mm256_blendv_ps(r1, r0, _mm256_castsi256_ps(_mm256_cmpeq_epi32(k, _mm256_setzero_si256())));
    if (all_big) return r;
    /* t < 2^-29: t - t * t * 0.5, or t itself below 2^-54 */
    __m256 rt = _mm256_blendv_ps(_mm256_sub_ps(t, _mm256_mul_ps(_mm256_mul_ps(t, t), half)), t,
                                 _mm256_castsi256_ps(tinier));
    return _mm256_blendv_ps(r, rt, _mm256_castsi256_ps(tiny));
}

/* mode 1 / 2: as logaddexp_mode; base2 picks exp2f and the LOG2E scale. Blocks of LAE_BLOCK
 * elements in two passes (the exponentials, then log1pf and the sums): each pass's chain of
 * dependent operations is long (log1pf's Horner polynomial), and short independent iterations let
 * the processor overlap more of them than one long one (1M pairs on an AMD EPYC, Zen 4: 4.1 ms in one pass,
 * 2.3-2.6 in two over blocks of 64; blocks of 256: AVX-512 1.45-1.5 -> 1.33-1.35 ms). m: a multiple of 16 */
#define LAE_BLOCK 256
__attribute__((target("avx2,fma"))) static inline void logaddexp_block(const float *x, const float *y, float *o,
                                                                        int m, int base2, int mode)
{
    const __m256 sign = _mm256_set1_ps(-0.0f), zero = _mm256_setzero_ps();
    const __m256 same = _mm256_set1_ps(base2 ? 1.0f : NPY_LOGE2F);
    const __m256i limit = _mm256_set1_epi32(base2 ? 0x42f : 0x42a); /* |d| >= 128 (exp2f), 88 (expf) */
    const __m256 low = _mm256_set1_ps(base2 ? -128.0f : -88.0f);    /* (the same limits as floats) */
    const __m256i big = _mm256_set1_epi32(0x3ed413d6);
    float tb[LAE_BLOCK] __attribute__((aligned(32)));
    for (int j = 0; j < m; j += 8) {
        __m256 d = _mm256_or_ps(_mm256_sub_ps(_mm256_loadu_ps(x + j), _mm256_loadu_ps(y + j)), sign);
        __m256 t;  /* d = -|tmp|: -tmp where tmp > 0, tmp where tmp <= 0 */
        if (base2)
            t = _mm256_set_m128(exp2f_lanes(_mm256_cvtps_pd(_mm256_extractf128_ps(d, 1)), mode == 2),
                                exp2f_lanes(_mm256_cvtps_pd(_mm256_castps256_ps128(d)), mode == 2));
        else
            t = _mm256_set_m128(expf_lanes(_mm256_cvtps_pd(_mm256_extractf128_ps(d, 1))),
                                expf_lanes(_mm256_cvtps_pd(_mm256_castps256_ps128(d))));
        _mm256_store_ps(tb + j, t);
    }
    for (int j = 0; j < m; j += 8) {
        __m256 a = _mm256_loadu_ps(x + j), b = _mm256_loadu_ps(y + j);
        __m256 tmp = _mm256_sub_ps(a, b);
        __m256 mx = _mm256_blendv_ps(b, a, _mm256_cmp_ps(tmp, zero, _CMP_GT_OQ));
        __m256i odd;
        __m256 t = _mm256_load_ps(tb + j);
        __m256 l = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_castps_si256(t), big))) == 0xff
                       ? log1pf_lanes(t, &odd, 1) : log1pf_lanes(t, &odd, 0);
        __m256 r = _mm256_add_ps(mx, base2 ? _mm256_mul_ps(_mm256_set1_ps(NPY_LOG2EF), l) : l);
        /* every lane ordinary: |tmp| under the exponential's limit (so no NaN) and log1pf's usual
         * path (x == y, tmp = 0, is log1pf(1): an odd lane) */
        __m256 fine = _mm256_andnot_ps(_mm256_castsi256_ps(odd), _mm256_cmp_ps(_mm256_or_ps(tmp, sign), low, _CMP_GT_OQ));
        if (_mm256_movemask_ps(fine) == 0xff) {
            _mm256_storeu_ps(o + j, r);
            continue;
        }
        __m256 nan = _mm256_cmp_ps(tmp, tmp, _CMP_UNORD_Q), eq = _mm256_cmp_ps(a, b, _CMP_EQ_OQ);
        r = _mm256_blendv_ps(r, tmp, nan);
        r = _mm256_blendv_ps(r, _mm256_add_ps(a, same), eq);
        _mm256_storeu_ps(o + j, r);
        __m256i top = _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(_mm256_or_ps(tmp, sign)), 20),
                                       _mm256_set1_epi32(0x7ff));
        __m256i bad = _mm256_or_si256(_mm256_cmpgt_epi32(top, limit), odd);
        bad = _mm256_andnot_si256(_mm256_castps_si256(_mm256_or_ps(nan, eq)), bad);
        unsigned redo = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(bad));
        for (int l = 0; redo; l++, redo >>= 1)  /* lanes outside the ported paths: libm's own (see above) */
            if (redo & 1) o[j + l] = logaddexpf_ref(x[j + l], y[j + l], base2);
    }
}

/* The same with AVX-512 (F): sixteen lanes a vector, the table read by two permutes of its halves
 * instead of a gather; the same operations lane by lane, so the same bits (the first-use check runs
 * this form where the CPU has it). 1M pairs: 2.3-2.6 -> 1.45-1.5 ms on an AMD EPYC (Zen 4). */
#define L512 __attribute__((target("avx512f,avx2,fma"), always_inline)) static inline
L512 __m512d table512(__m512i ki)
{
    const __m512d t0 = _mm512_loadu_pd((const double *)EXPF_TABLE), t1 = _mm512_loadu_pd((const double *)EXPF_TABLE + 8),
                  t2 = _mm512_loadu_pd((const double *)EXPF_TABLE + 16), t3 = _mm512_loadu_pd((const double *)EXPF_TABLE + 24);
    __m512d lo = _mm512_permutex2var_pd(t0, ki, t1), hi = _mm512_permutex2var_pd(t2, ki, t3);  /* (index bits 0-3) */
    __m512i t = _mm512_castpd_si512(_mm512_mask_blend_pd(_mm512_test_epi64_mask(ki, _mm512_set1_epi64(16)), lo, hi));
    return _mm512_castsi512_pd(_mm512_add_epi64(t, _mm512_slli_epi64(ki, 47)));
}

L512 __m256 expf_lanes512(__m512d d)
{   /* expf_lanes, eight lanes */
    const __m512d invln2n = _mm512_set1_pd(0x1.71547652b82fep+0 * 32), shift = _mm512_set1_pd(0x1.8p+52);
    __m512d kd = _mm512_fmadd_pd(invln2n, d, shift);
    __m512i ki = _mm512_castpd_si512(kd);
    kd = _mm512_sub_pd(kd, shift);
    __m512d r = _mm512_fmsub_pd(invln2n, d, kd);
    __m512d s = table512(ki);
    __m512d z = _mm512_fmadd_pd(_mm512_set1_pd(0x1.c6af84b912394p-5 / 32 / 32 / 32), r,
                                _mm512_set1_pd(0x1.ebfce50fac4f3p-3 / 32 / 32));
    __m512d r2 = _mm512_mul_pd(r, r);
    __m512d y = _mm512_fmadd_pd(_mm512_set1_pd(0x1.62e42ff0c52d6p-1 / 32), r, _mm512_set1_pd(1.0));
    y = _mm512_fmadd_pd(z, r2, y);
    return _mm512_cvtpd_ps(_mm512_mul_pd(y, s));
}

L512 __m256 exp2f_lanes512(__m512d xd, int fused)
{   /* exp2f_lanes, eight lanes */
    const __m512d shift = _mm512_set1_pd(0x1.8p+52 / 32);
    __m512d kd = _mm512_add_pd(xd, shift);
    __m512i ki = _mm512_castpd_si512(kd);
    kd = _mm512_sub_pd(kd, shift);
    __m512d r = _mm512_sub_pd(xd, kd);
    __m512d s = table512(ki);
    const __m512d c0 = _mm512_set1_pd(0x1.c6af84b912394p-5), c1 = _mm512_set1_pd(0x1.ebfce50fac4f3p-3),
                  c2 = _mm512_set1_pd(0x1.62e42ff0c52d6p-1), one = _mm512_set1_pd(1.0);
    __m512d r2 = _mm512_mul_pd(r, r), z, y;
    if (fused) {
        z = _mm512_fmadd_pd(c0, r, c1);
        y = _mm512_fmadd_pd(c2, r, one);
        y = _mm512_fmadd_pd(z, r2, y);
    } else {
        z = _mm512_add_pd(_mm512_mul_pd(c0, r), c1);
        y = _mm512_add_pd(_mm512_mul_pd(c2, r), one);
        y = _mm512_add_pd(_mm512_mul_pd(z, r2), y);
    }
    return _mm512_cvtpd_ps(_mm512_mul_pd(y, s));
}

#include "_i0_f32.h" /* i0_float32_avx512, i0_f32_ok */
#include "_digamma_f32.h" /* digamma_float32_avx512, digamma_f32_ok */

L512 __m512 log1pf_lanes512(__m512 t, __mmask16 *odd, int all_big)
{   /* log1pf_lanes, sixteen lanes */
    const __m512 one = _mm512_set1_ps(1.0f), half = _mm512_set1_ps(0.5f);
    const __m512i zero = _mm512_setzero_si512();
    __m512i hx = _mm512_castps_si512(t);
    __mmask16 big = _mm512_cmpgt_epi32_mask(hx, _mm512_set1_epi32(0x3ed413d6));
    __m512 u = _mm512_add_ps(one, t);
    __m512i hu = _mm512_castps_si512(u);
    __m512i k = _mm512_sub_epi32(_mm512_srli_epi32(hu, 23), _mm512_set1_epi32(127));
    __m512 c = _mm512_mask_blend_ps(_mm512_cmpgt_epi32_mask(k, zero), _mm512_sub_ps(t, _mm512_sub_ps(u, one)),
                                    _mm512_sub_ps(one, _mm512_sub_ps(u, t)));
    c = _mm512_div_ps(c, u);
    hu = _mm512_and_si512(hu, _mm512_set1_epi32(0x007fffff));
    __mmask16 low = _mm512_cmplt_epi32_mask(hu, _mm512_set1_epi32(0x3504f7));
    __m512 un = _mm512_castsi512_ps(_mm512_or_si512(hu, _mm512_mask_blend_epi32(low, _mm512_set1_epi32(0x3f000000),
                                                                              _mm512_set1_epi32(0x3f800000))));
    k = _mm512_mask_add_epi32(k, (__mmask16)~low, k, _mm512_set1_epi32(1));
    __m512i hu2 = _mm512_mask_blend_epi32(low, _mm512_srli_epi32(_mm512_sub_epi32(_mm512_set1_epi32(0x00800000), hu), 2), hu);
    *odd = _mm512_cmpeq_epi32_mask(hu2, zero);
    __m512 f = _mm512_sub_ps(un, one);
    if (!all_big) {
        *odd &= big;
        k = _mm512_maskz_mov_epi32(big, k);
        f = _mm512_mask_blend_ps(big, t, f);
        c = _mm512_maskz_mov_ps(big, c);
    }
    __m512 hfsq = _mm512_mul_ps(_mm512_mul_ps(half, f), f);
    __m512 s = _mm512_div_ps(f, _mm512_add_ps(_mm512_set1_ps(2.0f), f));
    __m512 z = _mm512_mul_ps(s, s);
    __m512 R = _mm512_set1_ps(1.4798198640e-01f);
    R = _mm512_add_ps(_mm512_set1_ps(1.5313838422e-01f), _mm512_mul_ps(z, R));
    R = _mm512_add_ps(_mm512_set1_ps(1.8183572590e-01f), _mm512_mul_ps(z, R));
    R = _mm512_add_ps(_mm512_set1_ps(2.2222198546e-01f), _mm512_mul_ps(z, R));
    R = _mm512_add_ps(_mm512_set1_ps(2.8571429849e-01f), _mm512_mul_ps(z, R));
    R = _mm512_add_ps(_mm512_set1_ps(4.0000000596e-01f), _mm512_mul_ps(z, R));
    R = _mm512_add_ps(_mm512_set1_ps(6.6666668653e-01f), _mm512_mul_ps(z, R));
    R = _mm512_mul_ps(z, R);
    __m512 sr = _mm512_mul_ps(s, _mm512_add_ps(hfsq, R));
    __m512 r0 = _mm512_sub_ps(f, _mm512_sub_ps(hfsq, sr));
    __m512 kf = _mm512_cvtepi32_ps(k);
    __m512 r1 = _mm512_sub_ps(_mm512_mul_ps(kf, _mm512_set1_ps(6.9313812256e-01f)),
                              _mm512_sub_ps(_mm512_sub_ps(hfsq, _mm512_add_ps(sr, _mm512_add_ps(
                                  _mm512_mul_ps(kf, _mm512_set1_ps(9.0580006145e-06f)), c))), f));
    __m512 r = _mm512_mask_blend_ps(_mm512_cmpeq_epi32_mask(k, zero), r1, r0);
    if (all_big) return r;
    __m512 rt = _mm512_mask_blend_ps(_mm512_cmplt_epi32_mask(hx, _mm512_set1_epi32(0x24800000)),
                                     _mm512_sub_ps(t, _mm512_mul_ps(_mm512_mul_ps(t, t), half)), t);
    return _mm512_mask_blend_ps(_mm512_cmplt_epi32_mask(hx, _mm512_set1_epi32(0x31000000)), r, rt);
}

__attribute__((target("avx512f,avx2,fma"))) static void logaddexp_block512(const float *x, const float *y, float *o,
                                                                             int m, int base2, int mode)
{
    const __m512i sign = _mm512_set1_epi32((int)0x80000000);
    const __m512 zero = _mm512_setzero_ps();
    const __m512 same = _mm512_set1_ps(base2 ? 1.0f : NPY_LOGE2F);
    const __m512 low = _mm512_set1_ps(base2 ? -128.0f : -88.0f);
    const __m512i big = _mm512_set1_epi32(0x3ed413d6);
    float tb[LAE_BLOCK] __attribute__((aligned(64)));
    for (int j = 0; j < m; j += 16) {
        __m512 d = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(_mm512_sub_ps(_mm512_loadu_ps(x + j), _mm512_loadu_ps(y + j))), sign));
        __m256 dl = _mm512_castps512_ps256(d), dh = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(d), 1));
        __m256 tl, th;
        if (base2) {
            tl = exp2f_lanes512(_mm512_cvtps_pd(dl), mode == 2);
            th = exp2f_lanes512(_mm512_cvtps_pd(dh), mode == 2);
        } else {
            tl = expf_lanes512(_mm512_cvtps_pd(dl));
            th = expf_lanes512(_mm512_cvtps_pd(dh));
        }
        _mm256_store_ps(tb + j, tl);
        _mm256_store_ps(tb + j + 8, th);
    }
    for (int j = 0; j < m; j += 16) {
        __m512 a = _mm512_loadu_ps(x + j), b = _mm512_loadu_ps(y + j);
        __m512 tmp = _mm512_sub_ps(a, b);
        __m512 mx = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(tmp, zero, _CMP_GT_OQ), b, a);
        __mmask16 odd;
        __m512 t = _mm512_load_ps(tb + j);
        __m512 l = _mm512_cmpgt_epi32_mask(_mm512_castps_si512(t), big) == 0xffff
                       ? log1pf_lanes512(t, &odd, 1) : log1pf_lanes512(t, &odd, 0);
        __m512 r = _mm512_add_ps(mx, base2 ? _mm512_mul_ps(_mm512_set1_ps(NPY_LOG2EF), l) : l);
        __mmask16 fine = _mm512_cmp_ps_mask(_mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(tmp), sign)), low, _CMP_GT_OQ) & ~odd;
        if (fine != 0xffff) {
            __mmask16 nan = _mm512_cmp_ps_mask(tmp, tmp, _CMP_UNORD_Q), eq = _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ);
            r = _mm512_mask_blend_ps(nan, r, tmp);
            r = _mm512_mask_blend_ps(eq, r, _mm512_add_ps(a, same));
            _mm512_storeu_ps(o + j, r);
            unsigned redo = (uint16_t)(~fine & ~nan & ~eq);
            for (int l = 0; redo; l++, redo >>= 1)  /* lanes outside the ported paths: libm's own (see above) */
                if (redo & 1) o[j + l] = logaddexpf_ref(x[j + l], y[j + l], base2);
            continue;
        }
        _mm512_storeu_ps(o + j, r);
    }
}
#undef L512

/* wide: the AVX-512 blocks */
__attribute__((target("avx2,fma"))) static void logaddexp_lanes(const float *x, const float *y, float *o,
                                                                 Py_ssize_t n, int base2, int mode, int wide)
{
    Py_ssize_t i = 0;
    for (; i + LAE_BLOCK <= n; i += LAE_BLOCK)
        if (wide) logaddexp_block512(x + i, y + i, o + i, LAE_BLOCK, base2, mode);
        else logaddexp_block(x + i, y + i, o + i, LAE_BLOCK, base2, mode);
    if (i < n) {  /* the tail, through a block padded with zeros to a multiple of 16 */
        float a[LAE_BLOCK] = {0}, b[LAE_BLOCK] = {0}, r[LAE_BLOCK];
        int m = (int)(n - i), padded = (m + 15) & ~15;
        memcpy(a, x + i, (size_t)m * sizeof *a);
        memcpy(b, y + i, (size_t)m * sizeof *b);
        if (wide) logaddexp_block512(a, b, r, padded, base2, mode);
        else logaddexp_block(a, b, r, padded, base2, mode);
        memcpy(o + i, r, (size_t)m * sizeof *r);
    }
}

static void logaddexp_decide(int base2)
{
    if (__atomic_load_n(&logaddexp_mode[base2][0], __ATOMIC_ACQUIRE) >= 0) return;
    __builtin_cpu_init();
    int cpu = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    for (int w = 1; w >= 0; w--) {  /* each form (AVX-512, AVX2): exp2f fused (glibc's FMA variant), then plain */
        int mode = 0;
        if (cpu && (!w || __builtin_cpu_supports("avx512f")))
            for (int fused = base2; fused >= 0 && !mode; fused--) {
                int ok = 1;
                float a[256], b[256], out[256];
                for (uint32_t blk = 0; ok && blk < 256; blk++) {
                    /* pairs spread over every sign and exponent, and near pairs (small differences) */
                    for (uint32_t j = 0; j < 256; j++) {
                        uint32_t u = (blk << 24) | (j << 16) | ((j * 40503u + blk * 9973u) & 0xffff);
                        uint32_t v = (j & 1) ? u ^ ((j * 2654435761u + blk) & 0x00ffffffu)
                                             : (j << 24) | (blk << 16) | (j * 977u & 0xffff);
                        memcpy(&a[j], &u, sizeof u);
                        memcpy(&b[j], &v, sizeof v);
                        if (j % 4) {  /* and (three in four) ordinary numbers, |a - b| from 2^-20 to 64: the main paths */
                            a[j] = (float)(u >> 8) * 0x1p-19f - 16.0f;
                            b[j] = a[j] - (float)(v >> 8) * 0x1p-24f * ldexpf(1.0f, (int)(j / 4 % 27) - 20);
                        }
                    }
                    logaddexp_lanes(a, b, out, 256, base2, fused + 1, w);
                    for (int j = 0; j < 256; j++) {
                        float e = logaddexpf_ref(a[j], b[j], base2);
                        if (memcmp(&e, &out[j], sizeof e) != 0) ok = 0;
                    }
                }
                if (ok) mode = fused + 1;
            }
        /* (the AVX2 entry last, released: a thread that finds it decided finds both; a race decides twice) */
        __atomic_store_n(&logaddexp_mode[base2][w], mode, w ? __ATOMIC_RELAXED : __ATOMIC_RELEASE);
    }
}

/* PyTorch's float32 logaddexp NaNs: NumPy's with the sign bit set (see logaddexp_float32). Branch-free,
 * AVX2 (a form ran: the CPU has it; VEX code after the lanes' AVX-512 has no transition cost) and -O3,
 * so that it vectorizes: the module's -O2 SSE loop cost 0.5 us for 1000 elements. */
__attribute__((target("avx2"), optimize("O3"))) static void nan_signs_f32(float *of, Py_ssize_t n)
{
    uint32_t *o = (uint32_t *)of;
    for (Py_ssize_t i = 0; i < n; i++)
        o[i] |= (uint32_t)((int32_t)(o[i] & 0x7fffffffu) > 0x7f800000) << 31;
}

/* form -1: the AVX-512 form where it passed its check, else the AVX2 one; 0 / 1: that one only */
static int logaddexp_float32_run(const float *x, const float *y, float *o, Py_ssize_t n, int base2, int form)
{
    logaddexp_decide(base2);
    int w = form >= 0 ? form : logaddexp_mode[base2][1] ? 1 : 0;
    if (!logaddexp_mode[base2][w]) return 0;
    logaddexp_lanes(x, y, o, n, base2, logaddexp_mode[base2][w], w);
    nan_signs_f32(o, n);
    return 1;
}
#else
static int logaddexp_float32_run(const float *x, const float *y, float *o, Py_ssize_t n, int base2, int form)
{
    (void)x; (void)y; (void)o; (void)n; (void)base2; (void)form;
    return 0;
}
#endif

/* ---------------------------------------------------------------- logaddexp / logaddexp2 of float64
 *
 * logaddexp_float64(x, y, out, base2) -> bool: NumPy's npy_logaddexp / npy_logaddexp2 of doubles
 * bit for bit, as logaddexp_float32 for floats: max + log1p(exp(-|tmp|)) (LOG2E * log1p(exp2(..)))
 * with glibc's exp and exp2 (sysdeps/ieee754/dbl-64/e_exp.c, e_exp2.c: 2^(k/128) from a 128-entry
 * table, a quartic or quintic; the FMA variant's fused form first, then the plain one) and glibc's
 * double log1p (fdlibm's s_log1p.c with its pairwise polynomial; none fused), eight lanes at a time
 * with AVX-512 only (no AVX2 form: without AVX-512 NumPy's loop runs). Lanes outside the ported
 * paths (|tmp| < 2^-54 or >= 512, x == y, infinities, NaN, log1p's hu == 0 branch) are recomputed
 * by logaddexp_ref, which calls libm itself. Used where the CPU has AVX-512F and a first-use check
 * over 2^16 spread pairs finds the lanes equal to logaddexp_ref; strided.kernels.elementwise checks
 * it once against NumPy's own loop. False (nothing written) where not used, or out overlaps. */
#define NPY_LOGE2 0.693147180559945309417232121458176568
#define NPY_LOG2E 1.442695040888963407359924681001892137

LOGADDEXP_REF(logaddexp_ref, double, NPY_LOGE2, NPY_LOG2E, exp, exp2, log1p)
#undef LOGADDEXP_REF

#if defined(__GNUC__) && defined(__x86_64__)
/* 2^(k/128) = H (1 + T), k = 0..127, as (bits of T, bits of H less k << 45): H the nearest double,
 * T the nearest double to the exact remainder (generated with Python's decimal at 80 digits, which
 * tests/test_logaddexp_native.py does again: the table glibc's exp and exp2 read) */
static const uint64_t EXP_TABLE[256] = {
    0x0000000000000000, 0x3ff0000000000000,
    0x3c9b3b4f1a88bf6e, 0x3feff63da9fb3335,
    0xbc7160139cd8dc5d, 0x3fefec9a3e778061,
    0xbc905e7a108766d1, 0x3fefe315e86e7f85,
    0x3c8cd2523567f613, 0x3fefd9b0d3158574,
    0xbc8bce8023f98efa, 0x3fefd06b29ddf6de,
    0x3c60f74e61e6c861, 0x3fefc74518759bc8,
    0x3c90a3e45b33d399, 0x3fefbe3ecac6f383,
    0x3c979aa65d837b6d, 0x3fefb5586cf9890f,
    0x3c8eb51a92fdeffc, 0x3fefac922b7247f7,
    0x3c3ebe3d702f9cd1, 0x3fefa3ec32d3d1a2,
    0xbc6a033489906e0b, 0x3fef9b66affed31b,
    0xbc9556522a2fbd0e, 0x3fef9301d0125b51,
    0xbc5080ef8c4eea55, 0x3fef8abdc06c31cc,
    0xbc91c923b9d5f416, 0x3fef829aaea92de0,
    0x3c80d3e3e95c55af, 0x3fef7a98c8a58e51,
    0xbc801b15eaa59348, 0x3fef72b83c7d517b,
    0xbc8f1ff055de323d, 0x3fef6af9388c8dea,
    0x3c8b898c3f1353bf, 0x3fef635beb6fcb75,
    0xbc96d99c7611eb26, 0x3fef5be084045cd4,
    0x3c9aecf73e3a2f60, 0x3fef54873168b9aa,
    0xbc8fe782cb86389d, 0x3fef4d5022fcd91d,
    0x3c8a6f4144a6c38d, 0x3fef463b88628cd6,
    0x3c807a05b0e4047d, 0x3fef3f49917ddc96,
    0x3c968efde3a8a894, 0x3fef387a6e756238,
    0x3c875e18f274487d, 0x3fef31ce4fb2a63f,
    0x3c80472b981fe7f2, 0x3fef2b4565e27cdd,
    0xbc96b87b3f71085e, 0x3fef24dfe1f56381,
    0x3c82f7e16d09ab31, 0x3fef1e9df51fdee1,
    0xbc3d219b1a6fbffa, 0x3fef187fd0dad990,
    0x3c8b3782720c0ab4, 0x3fef1285a6e4030b,
    0x3c6e149289cecb8f, 0x3fef0cafa93e2f56,
    0x3c834d754db0abb6, 0x3fef06fe0a31b715,
    0x3c864201e2ac744c, 0x3fef0170fc4cd831,
    0x3c8fdd395dd3f84a, 0x3feefc08b26416ff,
    0xbc86a3803b8e5b04, 0x3feef6c55f929ff1,
    0xbc924aedcc4b5068, 0x3feef1a7373aa9cb,
    0xbc9907f81b512d8e, 0x3feeecae6d05d866,
    0xbc71d1e83e9436d2, 0x3feee7db34e59ff7,
    0xbc991919b3ce1b15, 0x3feee32dc313a8e5,
    0x3c859f48a72a4c6d, 0x3feedea64c123422,
    0xbc9312607a28698a, 0x3feeda4504ac801c,
    0xbc58a78f4817895b, 0x3feed60a21f72e2a,
    0xbc7c2c9b67499a1b, 0x3feed1f5d950a897,
    0x3c4363ed60c2ac11, 0x3feece086061892d,
    0x3c9666093b0664ef, 0x3feeca41ed1d0057,
    0x3c6ecce1daa10379, 0x3feec6a2b5c13cd0,
    0x3c93ff8e3f0f1230, 0x3feec32af0d7d3de,
    0x3c7690cebb7aafb0, 0x3feebfdad5362a27,
    0x3c931dbdeb54e077, 0x3feebcb299fddd0d,
    0xbc8f94340071a38e, 0x3feeb9b2769d2ca7,
    0xbc87deccdc93a349, 0x3feeb6daa2cf6642,
    0xbc78dec6bd0f385f, 0x3feeb42b569d4f82,
    0xbc861246ec7b5cf6, 0x3feeb1a4ca5d920f,
    0x3c93350518fdd78e, 0x3feeaf4736b527da,
    0x3c7b98b72f8a9b05, 0x3feead12d497c7fd,
    0x3c9063e1e21c5409, 0x3feeab07dd485429,
    0x3c34c7855019c6ea, 0x3feea9268a5946b7,
    0x3c9432e62b64c035, 0x3feea76f15ad2148,
    0xbc8ce44a6199769f, 0x3feea5e1b976dc09,
    0xbc8c33c53bef4da8, 0x3feea47eb03a5585,
    0xbc845378892be9ae, 0x3feea34634ccc320,
    0xbc93cedd78565858, 0x3feea23882552225,
    0x3c5710aa807e1964, 0x3feea155d44ca973,
    0xbc93b3efbf5e2228, 0x3feea09e667f3bcd,
    0xbc6a12ad8734b982, 0x3feea012750bdabf,
    0xbc6367efb86da9ee, 0x3fee9fb23c651a2f,
    0xbc80dc3d54e08851, 0x3fee9f7df9519484,
    0xbc781f647e5a3ecf, 0x3fee9f75e8ec5f74,
    0xbc86ee4ac08b7db0, 0x3fee9f9a48a58174,
    0xbc8619321e55e68a, 0x3fee9feb564267c9,
    0x3c909ccb5e09d4d3, 0x3feea0694fde5d3f,
    0xbc7b32dcb94da51d, 0x3feea11473eb0187,
    0x3c94ecfd5467c06b, 0x3feea1ed0130c132,
    0x3c65ebe1abd66c55, 0x3feea2f336cf4e62,
    0xbc88a1c52fb3cf42, 0x3feea427543e1a12,
    0xbc9369b6f13b3734, 0x3feea589994cce13,
    0xbc805e843a19ff1e, 0x3feea71a4623c7ad,
    0xbc94d450d872576e, 0x3feea8d99b4492ed,
    0x3c90ad675b0e8a00, 0x3feeaac7d98a6699,
    0x3c8db72fc1f0eab4, 0x3feeace5422aa0db,
    0xbc65b6609cc5e7ff, 0x3feeaf3216b5448c,
    0x3c7bf68359f35f44, 0x3feeb1ae99157736,
    0xbc93091fa71e3d83, 0x3feeb45b0b91ffc6,
    0xbc5da9b88b6c1e29, 0x3feeb737b0cdc5e5,
    0xbc6c23f97c90b959, 0x3feeba44cbc8520f,
    0xbc92434322f4f9aa, 0x3feebd829fde4e50,
    0xbc85ca6cd7668e4b, 0x3feec0f170ca07ba,
    0x3c71affc2b91ce27, 0x3feec49182a3f090,
    0x3c6dd235e10a73bb, 0x3feec86319e32323,
    0xbc87c50422622263, 0x3feecc667b5de565,
    0x3c8b1c86e3e231d5, 0x3feed09bec4a2d33,
    0xbc91bbd1d3bcbb15, 0x3feed503b23e255d,
    0x3c90cc319cee31d2, 0x3feed99e1330b358,
    0x3c8469846e735ab3, 0x3feede6b5579fdbf,
    0xbc82dfcd978e9db4, 0x3feee36bbfd3f37a,
    0x3c8c1a7792cb3387, 0x3feee89f995ad3ad,
    0xbc907b8f4ad1d9fa, 0x3feeee07298db666,
    0xbc55c3d956dcaeba, 0x3feef3a2b84f15fb,
    0xbc90a40e3da6f640, 0x3feef9728de5593a,
    0xbc68d6f438ad9334, 0x3feeff76f2fb5e47,
    0xbc91eee26b588a35, 0x3fef05b030a1064a,
    0x3c74ffd70a5fddcd, 0x3fef0c1e904bc1d2,
    0xbc91bdfbfa9298ac, 0x3fef12c25bd71e09,
    0x3c736eae30af0cb3, 0x3fef199bdd85529c,
    0x3c8ee3325c9ffd94, 0x3fef20ab5fffd07a,
    0x3c84e08fd10959ac, 0x3fef27f12e57d14b,
    0x3c63cdaf384e1a67, 0x3fef2f6d9406e7b5,
    0x3c676b2c6c921968, 0x3fef3720dcef9069,
    0xbc808a1883ccb5d2, 0x3fef3f0b555dc3fa,
    0xbc8fad5d3ffffa6f, 0x3fef472d4a07897c,
    0xbc900dae3875a949, 0x3fef4f87080d89f2,
    0x3c74a385a63d07a7, 0x3fef5818dcfba487,
    0xbc82919e2040220f, 0x3fef60e316c98398,
    0x3c8e5a50d5c192ac, 0x3fef69e603db3285,
    0x3c843a59ac016b4b, 0x3fef7321f301b460,
    0xbc82d52107b43e1f, 0x3fef7c97337b9b5f,
    0xbc892ab93b470dc9, 0x3fef864614f5a129,
    0x3c74b604603a88d3, 0x3fef902ee78b3ff6,
    0x3c83c5ec519d7271, 0x3fef9a51fbc74c83,
    0xbc8ff7128fd391f0, 0x3fefa4afa2a490da,
    0xbc8dae98e223747d, 0x3fefaf482d8e67f1,
    0x3c8ec3bc41aa2008, 0x3fefba1bee615a27,
    0x3c842b94c3a9eb32, 0x3fefc52b376bba97,
    0x3c8a64a931d185ee, 0x3fefd0765b6e4540,
    0xbc8e37bae43be3ed, 0x3fefdbfdad9cbe14,
    0x3c77893b4d91cd9d, 0x3fefe7c1819e90d8,
    0x3c5305c14160cc89, 0x3feff3c22b8f71f1
};
/* [base2]: -1 undecided, 0 not used, else 4 | (log1p fused) << 1 | (exp or exp2 fused) */
static int logaddexp64_mode[2] = {-1, -1};

#define L512D __attribute__((target("avx512f,avx2,fma"), always_inline)) static inline
/* the scale and tail of 2^(k/128) for the k in ki's low bits (k << 45 added to H's bits) */
L512D __m512d exp_table512(__m512i ki, __m512d *tail)
{
    __m512i idx = _mm512_slli_epi64(_mm512_and_si512(ki, _mm512_set1_epi64(127)), 1);
    *tail = _mm512_castsi512_pd(_mm512_i64gather_epi64(idx, (const long long *)EXP_TABLE, 8));
    __m512i h = _mm512_i64gather_epi64(_mm512_add_epi64(idx, _mm512_set1_epi64(1)), (const long long *)EXP_TABLE, 8);
    return _mm512_castsi512_pd(_mm512_add_epi64(h, _mm512_slli_epi64(ki, 45)));
}

#define FMA_OR(fused, a, b, c) ((fused) ? _mm512_fmadd_pd(a, b, c) : _mm512_add_pd(_mm512_mul_pd(a, b), c))

/* exp(d) as glibc's e_exp.c for 2^-54 <= |d| < 512 (other lanes: the caller's libm) */
L512D __m512d exp_lanes512(__m512d x, int fused)
{
    const __m512d shift = _mm512_set1_pd(0x1.8p52), invln2n = _mm512_set1_pd(0x1.71547652b82fep0 * 128);
    __m512d kd = FMA_OR(fused, invln2n, x, shift);
    __m512i ki = _mm512_castpd_si512(kd);
    kd = _mm512_sub_pd(kd, shift);
    __m512d r = FMA_OR(fused, kd, _mm512_set1_pd(-0x1.62e42fefa0000p-8), x);
    r = FMA_OR(fused, kd, _mm512_set1_pd(-0x1.cf79abc9e3b3ap-47), r);
    __m512d tail, scale = exp_table512(ki, &tail);
    __m512d r2 = _mm512_mul_pd(r, r);
    __m512d p23 = FMA_OR(fused, r, _mm512_set1_pd(0x1.555555555543cp-3), _mm512_set1_pd(0x1.ffffffffffdbdp-2));
    __m512d p45 = FMA_OR(fused, r, _mm512_set1_pd(0x1.1111167a4d017p-7), _mm512_set1_pd(0x1.55555cf172b91p-5));
    __m512d tmp = FMA_OR(fused, r2, p23, _mm512_add_pd(tail, r));
    tmp = FMA_OR(fused, _mm512_mul_pd(r2, r2), p45, tmp);
    return FMA_OR(fused, scale, tmp, scale);
}

/* exp2(d) as glibc's e_exp2.c, the same range */
L512D __m512d exp2_lanes512(__m512d x, int fused)
{
    const __m512d shift = _mm512_set1_pd(0x1.8p52 / 128);
    __m512d kd = _mm512_add_pd(x, shift);
    __m512i ki = _mm512_castpd_si512(kd);
    kd = _mm512_sub_pd(kd, shift);
    __m512d r = _mm512_sub_pd(x, kd);
    __m512d tail, scale = exp_table512(ki, &tail);
    __m512d r2 = _mm512_mul_pd(r, r);
    __m512d p23 = FMA_OR(fused, r, _mm512_set1_pd(0x1.c6b08d70cf4b5p-5), _mm512_set1_pd(0x1.ebfbdff82c424p-3));
    __m512d p45 = FMA_OR(fused, r, _mm512_set1_pd(0x1.5d7e09b4e3a84p-10), _mm512_set1_pd(0x1.3b2abd24650ccp-7));
    __m512d tmp = FMA_OR(fused, r, _mm512_set1_pd(0x1.62e42fefa39efp-1), tail);
    tmp = FMA_OR(fused, r2, p23, tmp);
    tmp = FMA_OR(fused, _mm512_mul_pd(r2, r2), p45, tmp);
    return FMA_OR(fused, scale, tmp, scale);
}
#undef FMA_OR

/* glibc's double log1p for t in [0, 1], lane by lane; *odd: its hu == 0 lanes. fused: as its FMA
 * variant (x86-64 multiarch s_log1p-fma: R2, R3, R4 and the sums of R fused, z * Lp1 into the first;
 * k * ln2_lo + c and k * ln2_hi - (...) fused), else none (the generic build) */
L512D __m512d log1p_lanes512(__m512d t, __mmask8 *odd, int fused)
{
    const __m512d one = _mm512_set1_pd(1.0), half = _mm512_set1_pd(0.5);
    const __m512i zero = _mm512_setzero_si512(), low32 = _mm512_set1_epi64(0xffffffffLL);
    __m512i hx = _mm512_srli_epi64(_mm512_castpd_si512(t), 32);
    __mmask8 big = _mm512_cmpgt_epi64_mask(hx, _mm512_set1_epi64(0x3FDA8279));
    __m512d u = _mm512_add_pd(one, t);
    __m512i ub = _mm512_castpd_si512(u), hu = _mm512_srli_epi64(ub, 32);
    __m512i k = _mm512_sub_epi64(_mm512_srli_epi64(hu, 20), _mm512_set1_epi64(1023));
    __m512d c = _mm512_mask_blend_pd(_mm512_cmpgt_epi64_mask(k, zero), _mm512_sub_pd(t, _mm512_sub_pd(u, one)),
                                     _mm512_sub_pd(one, _mm512_sub_pd(u, t)));
    c = _mm512_div_pd(c, u);
    hu = _mm512_and_si512(hu, _mm512_set1_epi64(0x000fffff));
    __mmask8 low = _mm512_cmplt_epi64_mask(hu, _mm512_set1_epi64(0x6a09e));
    __m512i high = _mm512_or_si512(hu, _mm512_mask_blend_epi64(low, _mm512_set1_epi64(0x3fe00000),
                                                               _mm512_set1_epi64(0x3ff00000)));
    __m512d un = _mm512_castsi512_pd(_mm512_or_si512(_mm512_and_si512(ub, low32), _mm512_slli_epi64(high, 32)));
    k = _mm512_mask_add_epi64(k, (__mmask8)~low, k, _mm512_set1_epi64(1));
    __m512i hu2 = _mm512_mask_blend_epi64(low, _mm512_srli_epi64(_mm512_sub_epi64(_mm512_set1_epi64(0x00100000), hu), 2), hu);
    *odd = _mm512_cmpeq_epi64_mask(hu2, zero) & big;
    k = _mm512_maskz_mov_epi64(big, k);
    __m512d f = _mm512_mask_blend_pd(big, t, _mm512_sub_pd(un, one));
    c = _mm512_maskz_mov_pd(big, c);
    __m512d hfsq = _mm512_mul_pd(_mm512_mul_pd(half, f), f);
    __m512d s = _mm512_div_pd(f, _mm512_add_pd(_mm512_set1_pd(2.0), f));
    __m512d z = _mm512_mul_pd(s, s);
    const __m512d lp1 = _mm512_set1_pd(6.666666666666735130e-01), lp2 = _mm512_set1_pd(3.999999999940941908e-01),
                  lp3 = _mm512_set1_pd(2.857142874366239149e-01), lp4 = _mm512_set1_pd(2.222219843214978396e-01),
                  lp5 = _mm512_set1_pd(1.818357216161805012e-01), lp6 = _mm512_set1_pd(1.531383769920937332e-01),
                  lp7 = _mm512_set1_pd(1.479819860511658591e-01), ln2_hi = _mm512_set1_pd(6.93147180369123816490e-01),
                  ln2_lo = _mm512_set1_pd(1.90821492927058770002e-10);
    __m512d z2 = _mm512_mul_pd(z, z), z4 = _mm512_mul_pd(z2, z2), z6 = _mm512_mul_pd(z4, z2), R;
    __m512d kf = _mm512_cvtepi32_pd(_mm512_cvtepi64_epi32(k));  /* (k: 0 to 2; AVX-512F has no int64 conversion) */
    __m512d sr, r1;
    if (fused) {
        __m512d R2 = _mm512_fmadd_pd(z, lp3, lp2), R3 = _mm512_fmadd_pd(z, lp5, lp4), R4 = _mm512_fmadd_pd(z, lp7, lp6);
        R = _mm512_fmadd_pd(z6, R4, _mm512_fmadd_pd(z4, R3, _mm512_fmadd_pd(z, lp1, _mm512_mul_pd(z2, R2))));
        sr = _mm512_mul_pd(s, _mm512_add_pd(hfsq, R));
        r1 = _mm512_fmsub_pd(kf, ln2_hi, _mm512_sub_pd(_mm512_sub_pd(hfsq, _mm512_add_pd(sr, _mm512_fmadd_pd(kf, ln2_lo, c))), f));
    } else {
        __m512d R2 = _mm512_add_pd(lp2, _mm512_mul_pd(z, lp3)), R3 = _mm512_add_pd(lp4, _mm512_mul_pd(z, lp5));
        __m512d R4 = _mm512_add_pd(lp6, _mm512_mul_pd(z, lp7));
        R = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(z, lp1), _mm512_mul_pd(z2, R2)), _mm512_mul_pd(z4, R3)),
                          _mm512_mul_pd(z6, R4));
        sr = _mm512_mul_pd(s, _mm512_add_pd(hfsq, R));
        r1 = _mm512_sub_pd(_mm512_mul_pd(kf, ln2_hi), _mm512_sub_pd(_mm512_sub_pd(hfsq, _mm512_add_pd(sr, _mm512_add_pd(
                 _mm512_mul_pd(kf, ln2_lo), c))), f));
    }
    __m512d r0 = _mm512_sub_pd(f, _mm512_sub_pd(hfsq, sr));
    __m512d r = _mm512_mask_blend_pd(_mm512_cmpeq_epi64_mask(k, zero), r1, r0);
    __m512d rt = _mm512_mask_blend_pd(_mm512_cmplt_epi64_mask(hx, _mm512_set1_epi64(0x3c900000)),
                                      _mm512_sub_pd(t, _mm512_mul_pd(_mm512_mul_pd(t, t), half)), t);
    return _mm512_mask_blend_pd(_mm512_cmplt_epi64_mask(hx, _mm512_set1_epi64(0x3e200000)), r, rt);
}
#undef L512D

__attribute__((target("avx512f,avx2,fma"))) static void logaddexp64_lanes(const double *x, const double *y, double *o,
                                                                            Py_ssize_t n, int base2, int mode)
{
    int fused = mode & 1, log_fused = mode >> 1 & 1;  /* (exp or exp2 fused; log1p fused) */
    const __m512i sign = _mm512_set1_epi64((long long)0x8000000000000000ULL);
    const __m512d zero = _mm512_setzero_pd(), same = _mm512_set1_pd(base2 ? 1.0 : NPY_LOGE2);
    Py_ssize_t i = 0;
    for (; i < n; i += 8) {
        __m512d a, b;
        __mmask8 live = n - i >= 8 ? 0xff : (__mmask8)((1u << (n - i)) - 1);
        a = _mm512_maskz_loadu_pd(live, x + i);
        b = _mm512_maskz_loadu_pd(live, y + i);
        __m512d tmp = _mm512_sub_pd(a, b);
        __m512d d = _mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(tmp), sign));
        __m512d t = base2 ? exp2_lanes512(d, fused) : exp_lanes512(d, fused);
        __mmask8 odd;
        __m512d l = log1p_lanes512(t, &odd, log_fused);
        __m512d mx = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(tmp, zero, _CMP_GT_OQ), b, a);
        __m512d r = _mm512_add_pd(mx, base2 ? _mm512_mul_pd(_mm512_set1_pd(NPY_LOG2E), l) : l);
        /* ordinary lanes: 2^-54 <= |tmp| < 512 (exp's main path, so no NaN) and log1p's usual path */
        __mmask8 fine = _mm512_cmp_pd_mask(d, _mm512_set1_pd(-512.0), _CMP_GT_OQ)
                        & _mm512_cmp_pd_mask(d, _mm512_set1_pd(-0x1p-54), _CMP_LE_OQ) & ~odd;
        __mmask8 redo = 0;
        if ((fine & live) != live) {
            __mmask8 nan = _mm512_cmp_pd_mask(tmp, tmp, _CMP_UNORD_Q), eq = _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ);
            r = _mm512_mask_blend_pd(nan, r, tmp);
            r = _mm512_mask_blend_pd(eq, r, _mm512_add_pd(a, same));
            redo = ~fine & ~nan & ~eq & live;
        }
        _mm512_mask_storeu_pd(o + i, live, r);
        for (int l2 = 0; redo; l2++, redo >>= 1)  /* lanes outside the ported paths: libm's own */
            if (redo & 1) o[i + l2] = logaddexp_ref(x[i + l2], y[i + l2], base2);
    }
}

static void logaddexp64_decide(int base2)
{
    if (__atomic_load_n(&logaddexp64_mode[base2], __ATOMIC_ACQUIRE) >= 0) return;
    __builtin_cpu_init();
    int mode = 0;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        for (int form = 3; form >= 0 && !mode; form--) {  /* (each function fused as glibc's FMA variant, or plain) */
            int ok = 1;
            double a[256], b[256], out[256];
            for (uint32_t blk = 0; ok && blk < 256; blk++) {
                /* pairs spread over every sign and exponent, and near pairs (small differences) */
                for (uint32_t j = 0; j < 256; j++) {
                    uint64_t u = ((uint64_t)blk << 56) | ((uint64_t)j << 48) | ((j * 40503ull + blk * 9973ull) * 0x9e3779b97f4a7c15ull >> 16);
                    uint64_t v = (j & 1) ? u ^ ((j * 2654435761ull + blk) * 0x2545f4914f6cdd1dull >> (12 + j % 40))
                                         : ((uint64_t)j << 56) | ((uint64_t)blk << 48) | (j * 977ull * 0x9e3779b97f4a7c15ull >> 16);
                    memcpy(&a[j], &u, sizeof u);
                    memcpy(&b[j], &v, sizeof v);
                    if (j % 4) {  /* and (three in four) ordinary numbers, |a - b| from 2^-40 to 64: the main paths */
                        a[j] = (double)(u >> 11) * 0x1p-48 - 16.0;
                        b[j] = a[j] - (double)(v >> 11) * 0x1p-53 * ldexp(1.0, (int)(j / 4 % 47) - 40);
                    }
                }
                logaddexp64_lanes(a, b, out, 256, base2, form);
                for (int j = 0; j < 256; j++) {
                    double e = logaddexp_ref(a[j], b[j], base2);
                    if (memcmp(&e, &out[j], sizeof e) != 0) ok = 0;
                }
            }
            if (ok) mode = 4 | form;
        }
    __atomic_store_n(&logaddexp64_mode[base2], mode, __ATOMIC_RELEASE);
}

static int logaddexp_float64_run(const double *x, const double *y, double *o, Py_ssize_t n, int base2)
{
    logaddexp64_decide(base2);
    if (!logaddexp64_mode[base2]) return 0;
    logaddexp64_lanes(x, y, o, n, base2, logaddexp64_mode[base2] & 3);
    return 1;
}
#else
static int logaddexp_float64_run(const double *x, const double *y, double *o, Py_ssize_t n, int base2)
{
    (void)x; (void)y; (void)o; (void)n; (void)base2;
    return 0;
}
#endif

/* An AVX2 PyTorch's vector lanes (logaddexp_float32's step): every NaN they compute is the default
 * NaN, +0x7fc00000, whatever the operands' words (strided.kernels.elementwise.torch_lane_nans).
 * Branch-free, AVX2 and -O3 as nan_signs_f32 (called only after a form ran: the CPU has AVX2) */
#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target("avx2"), optimize("O3")))
#endif
static void default_nans_f32(float *of, Py_ssize_t n)
{
    uint32_t *o = (uint32_t *)of;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t w = o[i];
        o[i] = (int32_t)(w & 0x7fffffffu) > 0x7f800000 ? 0x7fc00000u : w;
    }
}

/* logaddexp_float32 / logaddexp_float64: kind 'f' or 'd' (the buffers' format); float32's optional
 * step (> 0): the buffers are one row of an AVX2 PyTorch's loop (below its parallel grain), whose
 * first n - n % step elements its vector lanes compute: their NaNs become the default NaN */
static PyObject *logaddexp_entry(PyObject *const *args, Py_ssize_t nargs, char kind, const char *name)
{
    if (nargs < 4 || nargs > (kind == 'f' ? 6 : 5)) {
        PyErr_Format(PyExc_TypeError, "%s(x, y, out, base2[, form%s]) takes 4 to %d arguments, not %zd", name,
                     kind == 'f' ? "[, step]" : "", kind == 'f' ? 6 : 5, nargs);
        return NULL;
    }
    int base2 = PyObject_IsTrue(args[3]);
    if (base2 < 0) return NULL;
    long form = nargs >= 5 ? PyLong_AsLong(args[4]) : -1;
    if (form == -1 && PyErr_Occurred()) return NULL;
    if (form < -1 || form > 1) {
        PyErr_Format(PyExc_ValueError, "%s: form must be -1 (the best), 0 (AVX2) or 1 (AVX-512), not %ld", name, form);
        return NULL;
    }
    long step = nargs == 6 ? PyLong_AsLong(args[5]) : 0;
    if (step == -1 && PyErr_Occurred()) return NULL;
    if (step < 0) {
        PyErr_Format(PyExc_ValueError, "%s: step must be >= 0, not %ld", name, step);
        return NULL;
    }
    Py_buffer xb, yb, ob;
    if (PyObject_GetBuffer(args[0], &xb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &yb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&xb);
        return NULL;
    }
    if (PyObject_GetBuffer(args[2], &ob, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&xb);
        PyBuffer_Release(&yb);
        return NULL;
    }
    PyObject *answer = NULL;
    Py_ssize_t size = kind == 'f' ? 4 : 8;
    if (format_kind(&xb) != kind || format_kind(&yb) != kind || format_kind(&ob) != kind || yb.len != xb.len
        || ob.len != xb.len) {
        PyErr_Format(PyExc_ValueError, "%s: x, y and out must be C-contiguous %s buffers of one length (formats %s, "
                     "%s and %s; %zd, %zd and %zd bytes)", name, kind == 'f' ? "float32" : "float64", xb.format,
                     yb.format, ob.format, xb.len, yb.len, ob.len);
    } else if (overlaps(&xb, &ob) || overlaps(&yb, &ob) || (uintptr_t)xb.buf % size || (uintptr_t)yb.buf % size
               || (uintptr_t)ob.buf % size || (kind == 'd' && form == 0)) {
        answer = Py_False;  /* (float64 has no AVX2 form) */
    } else {
        Py_ssize_t n = xb.len / size;
        int done;
#define LAE_RUN (kind == 'f' ? logaddexp_float32_run(xb.buf, yb.buf, ob.buf, n, base2, (int)form) \
                             : logaddexp_float64_run(xb.buf, yb.buf, ob.buf, n, base2))
        if (n >= MIN_RELEASE) {
            Py_BEGIN_ALLOW_THREADS
            done = LAE_RUN;
            Py_END_ALLOW_THREADS
        } else {
            done = LAE_RUN;
        }
#undef LAE_RUN
        if (done && step > 0) default_nans_f32(ob.buf, n - n % step);
        answer = done ? Py_True : Py_False;
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    PyBuffer_Release(&ob);
    Py_XINCREF(answer);
    return answer;
}

static PyObject *py_logaddexp_float32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return logaddexp_entry(args, nargs, 'f', "logaddexp_float32");
}

static PyObject *py_logaddexp_float64(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return logaddexp_entry(args, nargs, 'd', "logaddexp_float64");
}

/* logaddexp_scan(x, out, n, inner) -> bool: NumPy's np.logaddexp.accumulate along a dim of n elements
 * (x and out C-contiguous float32 "f" or float64 "d" of one format and length, a multiple of
 * n * inner; the dim's blocks of n * inner elements, inner the elements after it), each running
 * value npy_logaddexp(previous, x) (logaddexpf_ref / logaddexp_ref: the C library's exp and log1p
 * as NumPy's scalar loop calls them, in its operand order), and the first value of each line
 * x + 0 (PyTorch's logaddexp(-inf, x): a -0.0 there is +0.0), as strided's logcumsumexp gives.
 * One pass, no ufunc machinery (NumPy's accumulate costs ~1 us a call and ~30 ns an element).
 * The second step reads the first value after its + 0, where NumPy's reads x: the two differ only
 * for -0.0 (+0.0) and a signalling NaN (quieted), and logaddexp gives the same bits for each (a zero
 * against y: the same x - y, and x == y for a zero y; a NaN: its payload quieted either way).
 * Rows (inner 1) run eight at a time: their dependent chains of exp and log1p overlap ((16, 16)
 * float32 along dim 1: 8.4 -> 3.6 us); each element is still its one logaddexp.
 * False (nothing written) where out overlaps x. */
#define LAE_SCAN(T, REF)                                                                                 \
    {                                                                                                  \
        const T *xs = xb.buf;                                                                          \
        T *os = ob.buf;                                                                                \
        if (inner == 1) { /* rows: eight at a time, whose chains of exp and log1p overlap */          \
            Py_ssize_t rows = total / n, r = 0;                                                        \
            for (; r + 8 <= rows; r += 8) {                                                            \
                const T *xl = xs + r * n;                                                              \
                T *ol = os + r * n;                                                                    \
                for (int l = 0; l < 8; l++) ol[l * n] = xl[l * n] + (T)0;                              \
                for (Py_ssize_t i = 1; i < n; i++)                                                     \
                    for (int l = 0; l < 8; l++)                                                        \
                        ol[l * n + i] = REF(ol[l * n + i - 1], xl[l * n + i], 0);                      \
            }                                                                                          \
            for (; r < rows; r++) {                                                                    \
                const T *xl = xs + r * n;                                                              \
                T *ol = os + r * n;                                                                    \
                ol[0] = xl[0] + (T)0;                                                                  \
                for (Py_ssize_t i = 1; i < n; i++) ol[i] = REF(ol[i - 1], xl[i], 0);                   \
            }                                                                                          \
        } else {                                                                                       \
            for (Py_ssize_t o = 0; o < total; o += n * inner) {                                        \
                const T *xl = xs + o;                                                                  \
                T *ol = os + o;                                                                        \
                for (Py_ssize_t j = 0; j < inner; j++) ol[j] = xl[j] + (T)0;                           \
                for (Py_ssize_t i = 1; i < n; i++)                                                     \
                    for (Py_ssize_t j = 0; j < inner; j++)                                             \
                        ol[i * inner + j] = REF(ol[(i - 1) * inner + j], xl[i * inner + j], 0);        \
            }                                                                                          \
        }                                                                                              \
    }
static PyObject *py_logaddexp_scan(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "logaddexp_scan(x, out, n, inner) takes 4 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[2]);
    Py_ssize_t inner = PyLong_AsSsize_t(args[3]);
    if ((n == -1 || inner == -1) && PyErr_Occurred()) return NULL;
    Py_buffer xb, ob;
    if (PyObject_GetBuffer(args[0], &xb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &ob, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&xb);
        return NULL;
    }
    PyObject *answer = NULL;
    char kind = format_kind(&xb);
    int known = (kind == 'f' && xb.itemsize == 4) || (kind == 'd' && xb.itemsize == 8);
    Py_ssize_t total = known ? xb.len / xb.itemsize : 0;
    if (!known || format_kind(&ob) != kind || ob.len != xb.len || n < 1 || inner < 1 || total % (n * inner) != 0) {
        PyErr_Format(PyExc_ValueError, "logaddexp_scan: x and out must be C-contiguous float32 or float64 buffers of "
                     "one format and length, a multiple of n * inner >= 1 (formats %s and %s, %zd and %zd bytes, "
                     "n %zd, inner %zd)", xb.format, ob.format, xb.len, ob.len, n, inner);
        goto done;
    }
    if (overlaps(&xb, &ob)) {
        answer = Py_False;
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    if (kind == 'f') LAE_SCAN(float, logaddexpf_ref)
    else LAE_SCAN(double, logaddexp_ref)
    Py_END_ALLOW_THREADS
    answer = Py_True;
done:
    PyBuffer_Release(&xb);
    PyBuffer_Release(&ob);
    Py_XINCREF(answer);
    return answer;
}
#undef LAE_SCAN

#include "_lcse_wide.h" /* logaddexp_scan_wide: LCSE_WIDE_METHODS (PyTorch's float32 logcumsumexp) */

/* ---------------------------------------------------------------- complex angle
 *
 * complex_angle(z, out) -> bool: out[i] = atan2(imag, real) of z[i] by the C library (atan2f for
 * complex64, atan2 for complex128): PyTorch's scalar loop's std::arg bit for bit, where NumPy's
 * arctan2 (SVML on AVX-512 machines) differs in 40% (float32) / 8% (float64) of elements. z:
 * a C-contiguous aligned complex64 ("Zf") or complex128 ("Zd") buffer; out: C-contiguous aligned
 * float32 / float64 of as many elements, overlapping z nowhere. False (nothing written) otherwise. */
static void complex_angle_float(const float *restrict z, float *restrict o, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) o[i] = atan2f(z[2 * i + 1], z[2 * i]);
}

static void complex_angle_double(const double *restrict z, double *restrict o, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) o[i] = atan2(z[2 * i + 1], z[2 * i]);
}

/* ---------------------------------------------------------------- arange of float32 / float64
 *
 * float_range(out, start, step) -> bool: PyTorch's CPU arange values (strided.kernels.fill.float_range,
 * whose NumPy steps this is, bit for bit: tests/test_arange_float_torch.py) into out, a C-contiguous
 * aligned float32 ("f") or float64 ("d") buffer of n elements, computed in float64: whole pairs of
 * 32-byte vectors from the start, vector v's lanes j = 0.. from its base b = T(fma(step, v L, start))
 * as T(fma(j, step, b)) (lane 0 is b itself), the last n % (2 L) elements T(fma(step, i, start)).
 * fma is C99's (exact: the instruction where the CPU has FMA). False: another buffer. */
#define FLOAT_RANGE_BODY(T)                                                                        \
    {                                                                                              \
        const Py_ssize_t lanes = 32 / (Py_ssize_t)sizeof(T), whole = n - n % (2 * lanes);          \
        for (Py_ssize_t i0 = 0; i0 < whole; i0 += lanes) {                                         \
            T b = (T)fma(step, (double)i0, start);                                                 \
            o[i0] = b;                                                                             \
            for (Py_ssize_t j = 1; j < lanes; j++) o[i0 + j] = (T)fma((double)j, step, (double)b); \
        }                                                                                          \
        for (Py_ssize_t i = whole; i < n; i++) o[i] = (T)fma(step, (double)i, start);              \
    }
static void float_range_f(float *o, Py_ssize_t n, double start, double step) FLOAT_RANGE_BODY(float)
static void float_range_d(double *o, Py_ssize_t n, double start, double step) FLOAT_RANGE_BODY(double)
#ifdef HAVE_HARDWARE_FMA_COPIES
__attribute__((target("avx2,fma"))) static void float_range_f_fma(float *o, Py_ssize_t n, double start, double step)
FLOAT_RANGE_BODY(float)
__attribute__((target("avx2,fma"))) static void float_range_d_fma(double *o, Py_ssize_t n, double start, double step)
FLOAT_RANGE_BODY(double)
#endif
#undef FLOAT_RANGE_BODY

static PyObject *py_float_range(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "float_range(out, start, step) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    double start = PyFloat_AsDouble(args[1]), step = PyFloat_AsDouble(args[2]);
    if (PyErr_Occurred()) return NULL;
    Py_buffer ob;
    if (PyObject_GetBuffer(args[0], &ob, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) return NULL;
    char kind = format_kind(&ob);
    PyObject *answer = Py_False;
    if ((kind == 'f' && ob.itemsize == 4 && (uintptr_t)ob.buf % 4 == 0)
        || (kind == 'd' && ob.itemsize == 8 && (uintptr_t)ob.buf % 8 == 0)) {
        Py_ssize_t n = ob.len / ob.itemsize;
        int hw = 0;
#ifdef HAVE_HARDWARE_FMA_COPIES
        hw = hardware_fma();
#endif
        Py_BEGIN_ALLOW_THREADS
#ifdef HAVE_HARDWARE_FMA_COPIES
        if (hw) {
            if (kind == 'f') float_range_f_fma(ob.buf, n, start, step);
            else float_range_d_fma(ob.buf, n, start, step);
        } else
#endif
        if (kind == 'f') float_range_f(ob.buf, n, start, step);
        else float_range_d(ob.buf, n, start, step);
        Py_END_ALLOW_THREADS
        (void)hw;
        answer = Py_True;
    }
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

/* The buffers of a complex-to-real kernel NAME(z, out): C-contiguous complex64 ("Zf") or
 * complex128 ("Zd") z and float32 / float64 out of as many elements, aligned, apart. 1: taken (kind
 * 'f' or 'd'), the caller runs and releases; 0: refused (nothing held); -1: an error set. */
static int complex_to_real_buffers(PyObject *const *args, Py_ssize_t nargs, const char *name, Py_buffer *src,
                                   Py_buffer *dst, char *kind)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "%s(z, out) takes 2 arguments, not %zd", name, nargs);
        return -1;
    }
    if (in_out_buffers(args[0], args[1], src, dst) < 0) return -1;
    int single = strcmp(src->format, "Zf") == 0 && src->itemsize == 8 && strcmp(dst->format, "f") == 0;
    int twice = strcmp(src->format, "Zd") == 0 && src->itemsize == 16 && strcmp(dst->format, "d") == 0;
    if (!(single || twice) || src->len != 2 * dst->len || !PyBuffer_IsContiguous(src, 'C')
        || !PyBuffer_IsContiguous(dst, 'C') || (uintptr_t)src->buf % dst->itemsize
        || (uintptr_t)dst->buf % dst->itemsize || overlaps(src, dst)) {
        PyBuffer_Release(src);
        PyBuffer_Release(dst);
        return 0;
    }
    *kind = single ? 'f' : 'd';
    return 1;
}

/* complex64_abs(z, out) -> bool: |z| of C-contiguous complex64 elements into float32 out, the C
 * library's hypotf of each element's parts bit for bit (strided.kernels.elementwise.complex_abs;
 * PyTorch's scalar loop). glibc's hypotf (2.35 on) is the float64 square root of the float64 sum
 * x * x + y * y rounded once to float32 for finite parts: the AVX2 loop computes exactly that four
 * elements at a time and hands any group holding a non-finite part to hypotf itself. It runs only
 * where a check at the first use finds it equal to this process's hypotf on 2^16 spread inputs
 * (another C library: hypotf element by element, as before). False: other buffers, nothing written. */
static void cabs_float_libm(const float *z, float *o, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) o[i] = hypotf(z[2 * i], z[2 * i + 1]);
}

#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target("avx2"))) static void cabs_float_avx2(const float *z, float *o, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256 inf = _mm256_set1_ps(INFINITY);
    for (; i + 4 <= n; i += 4) {
        __m256 v = _mm256_loadu_ps(z + 2 * i);
        if (_mm256_movemask_ps(_mm256_cmp_ps(_mm256_and_ps(v, magnitude), inf, _CMP_LT_OQ)) != 0xFF) {
            cabs_float_libm(z + 2 * i, o + i, 4);  /* (an infinite or NaN part: the C library's rules) */
            continue;
        }
        __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(v)), hi = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
        lo = _mm256_mul_pd(lo, lo);
        hi = _mm256_mul_pd(hi, hi);
        __m256d sq = _mm256_hadd_pd(lo, hi); /* x * x + y * y of elements 0, 2, 1, 3 */
        sq = _mm256_sqrt_pd(_mm256_permute4x64_pd(sq, 0xD8));
        _mm_storeu_ps(o + i, _mm256_cvtpd_ps(sq));
    }
    cabs_float_libm(z + 2 * i, o + i, n - i);
}

static int cabs_avx2_agrees(void)
{
    static int state = -1;
    if (state >= 0) return state;
    __builtin_cpu_init();
    state = 0;
    if (!__builtin_cpu_supports("avx2")) return state;
    enum { N = 1 << 16 };
    float *z = malloc(sizeof(float) * 2 * N), *a = malloc(sizeof(float) * N), *b = malloc(sizeof(float) * N);
    if (z && a && b) {
        uint32_t x = 12345u;
        for (int i = 0; i < 2 * N; i++) { /* spread bit patterns: every exponent, subnormals, some specials */
            x = x * 1664525u + 1013904223u;
            uint32_t bits = x ^ (x >> 13);
            memcpy(&z[i], &bits, 4);
        }
        cabs_float_avx2(z, a, N);
        cabs_float_libm(z, b, N);
        state = memcmp(a, b, sizeof(float) * N) == 0;
    }
    free(z);
    free(a);
    free(b);
    return state;
}
#endif

static PyObject *py_complex64_abs(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Py_buffer src, dst;
    char kind;
    int taken = complex_to_real_buffers(args, nargs, "complex64_abs", &src, &dst, &kind);
    if (taken < 0) return NULL;
    if (taken && kind != 'f') {  /* (complex128: the caller's np.hypot, the C library's hypot, stays) */
        PyBuffer_Release(&src);
        PyBuffer_Release(&dst);
        taken = 0;
    }
    if (!taken) Py_RETURN_FALSE;
#if defined(__GNUC__) && defined(__x86_64__)
    int fast = cabs_avx2_agrees();
    RELEASING(if (fast) cabs_float_avx2(src.buf, dst.buf, n); else cabs_float_libm(src.buf, dst.buf, n));
#else
    RELEASING(cabs_float_libm(src.buf, dst.buf, n));
#endif
    Py_RETURN_TRUE;
}

/* complex_sgn's loops: z / |z| by parts, |z| strided's complex abs (kernels.elementwise.complex_abs:
 * the C library's hypot; complex64's in blocks through complex64_abs's loop, hypotf's bits), each
 * part divided by it (NumPy's divide: a NaN part's own NaN first, as the quotient's first operand),
 * 0 + 0j where |z| is 0. */
#define SGN_PARTS(T)                                                                               \
    static void sgn_parts_##T(const T *z, const T *size, T *o, Py_ssize_t m)                       \
    {                                                                                              \
        for (Py_ssize_t j = 0; j < m; j++) {                                                       \
            T s = size[j];                                                                         \
            if (s == 0) {                                                                          \
                o[2 * j] = 0;                                                                      \
                o[2 * j + 1] = 0;                                                                  \
            } else {                                                                               \
                o[2 * j] = z[2 * j] / s;                                                           \
                o[2 * j + 1] = z[2 * j + 1] / s;                                                   \
            }                                                                                      \
        }                                                                                          \
    }
SGN_PARTS(float)
SGN_PARTS(double)
#undef SGN_PARTS

static void complex_sgn_float(const float *z, float *o, Py_ssize_t n)
{
    float size[256];
#if defined(__GNUC__) && defined(__x86_64__)
    int fast = cabs_avx2_agrees();
#endif
    for (; n > 0; n -= 256, z += 512, o += 512) {
        Py_ssize_t m = n < 256 ? n : 256;
#if defined(__GNUC__) && defined(__x86_64__)
        if (fast) cabs_float_avx2(z, size, m);
        else cabs_float_libm(z, size, m);
#else
        cabs_float_libm(z, size, m);
#endif
        sgn_parts_float(z, size, o, m);
    }
}

static void complex_sgn_double(const double *z, double *o, Py_ssize_t n)
{
    double size[256];
    for (; n > 0; n -= 256, z += 512, o += 512) {
        Py_ssize_t m = n < 256 ? n : 256;
        for (Py_ssize_t j = 0; j < m; j++) size[j] = hypot(z[2 * j], z[2 * j + 1]);
        sgn_parts_double(z, size, o, m);
    }
}

/* PyTorch's scalar loop of sgn (unary_more._sgn_scalar_loop): z / c10::complex(|z|, 0), c10's
 * complex division with d = 0 (rat = 0 / |z|, scl = 1 / (|z| + 0 * rat), parts (a + b rat) scl and
 * (b - a rat) scl), 0 where z is 0; |z| the C library's hypot, as complex_abs. Each operation keeps
 * its first NaN operand's NaN, as NumPy's loops do on x86-64 (the compiler may swap the operands of
 * a + b: written out so that it cannot). */
#define SGN_SCALAR(T, HYPOT)                                                                       \
    static inline T sgn_add_##T(T x, T y) { return x != x ? x + x : y != y ? y + y : x + y; }      \
    static inline T sgn_sub_##T(T x, T y) { return x != x ? x + x : y != y ? y + y : x - y; }      \
    static inline T sgn_mul_##T(T x, T y) { return x != x ? x + x : y != y ? y + y : x * y; }      \
    static void sgn_scalar_##T(const T *z, T *o, Py_ssize_t m)                                     \
    {                                                                                              \
        for (Py_ssize_t j = 0; j < m; j++) {                                                       \
            T a = z[2 * j], b = z[2 * j + 1];                                                      \
            if (a == 0 && b == 0) {                                                                \
                o[2 * j] = 0;                                                                      \
                o[2 * j + 1] = 0;                                                                  \
                continue;                                                                          \
            }                                                                                      \
            T h = HYPOT(a, b);                                                                     \
            T rat = h != h ? h + h : (T)0 / h;                                                     \
            T scl = (T)1 / sgn_add_##T(h, sgn_mul_##T((T)0, rat));                                 \
            o[2 * j] = sgn_mul_##T(sgn_add_##T(a, sgn_mul_##T(b, rat)), scl);                      \
            o[2 * j + 1] = sgn_mul_##T(sgn_sub_##T(b, sgn_mul_##T(a, rat)), scl);                  \
        }                                                                                          \
    }
SGN_SCALAR(float, hypotf)
SGN_SCALAR(double, hypot)
#undef SGN_SCALAR

/* complex_sgn(z, out, step=0) -> bool: PyTorch's sgn of a complex64 ("Zf") or complex128 ("Zd")
 * buffer into another of its format and length, as unary_more._sign computes it (|z| = hypot of the
 * parts, each part divided by it, 0 where it is 0: its vectorized loop); with a loop ``step``
 * (unary_more._sgn_step) and fewer than 32768 elements (PyTorch's one chunk, one row), the last
 * n % step elements by its scalar loop (sgn_scalar); from 32768 on the caller finds the chunks'
 * tails. False (nothing written): other buffers, not C-contiguous or aligned, an overlap, or a
 * negative step. */
static PyObject *py_complex_sgn(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2 && nargs != 3) {
        PyErr_Format(PyExc_TypeError, "complex_sgn(z, out, step=0) takes 2 or 3 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t step = 0;
    if (nargs == 3) {
        step = PyLong_AsSsize_t(args[2]);
        if (step == -1 && PyErr_Occurred()) return NULL;
    }
    Py_buffer zb, ob;
    if (in_out_buffers(args[0], args[1], &zb, &ob) < 0) return NULL;
    PyObject *answer = Py_False;
    int c64 = strcmp(zb.format, "Zf") == 0 && zb.itemsize == 8, c128 = strcmp(zb.format, "Zd") == 0 && zb.itemsize == 16;
    if ((c64 || c128) && strcmp(ob.format, zb.format) == 0 && ob.len == zb.len && PyBuffer_IsContiguous(&zb, 'C')
        && PyBuffer_IsContiguous(&ob, 'C') && (uintptr_t)zb.buf % (zb.itemsize / 2) == 0
        && (uintptr_t)ob.buf % (zb.itemsize / 2) == 0 && !overlaps(&zb, &ob)) {
        Py_ssize_t n = zb.len / zb.itemsize;
        Py_ssize_t tail = step > 0 && n < 32768 ? n % step : 0;
        if (step >= 0) {
            if (c64) {
                complex_sgn_float(zb.buf, ob.buf, n - tail);
                sgn_scalar_float((const float *)zb.buf + 2 * (n - tail), (float *)ob.buf + 2 * (n - tail), tail);
            } else {
                complex_sgn_double(zb.buf, ob.buf, n - tail);
                sgn_scalar_double((const double *)zb.buf + 2 * (n - tail), (double *)ob.buf + 2 * (n - tail), tail);
            }
            answer = Py_True;
        }
    }
    PyBuffer_Release(&zb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

/* complex_pow(x, y, out) -> bool: out = x ** y elementwise by the C library's cpowf (complex64,
 * "Zf") or cpow (complex128, "Zd"): PyTorch's std::pow of two complex numbers, libstdc++'s
 * __builtin_cpow, glibc's cexp(y * clog(x)) (so 0 ** 0 is NaN, (-1e10) ** 1 has an imaginary
 * part): the same function on the same numbers, its bits. ``y`` has x's length, or one element (a
 * scalar exponent, taken for every x). False (nothing written): other buffers, not C-contiguous or
 * aligned, lengths that differ, or out overlapping an input. */
float _Complex cpowf(float _Complex, float _Complex);
double _Complex cpow(double _Complex, double _Complex);

static PyObject *py_complex_pow(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "complex_pow(x, y, out) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    Py_buffer xb, yb, ob;
    if (three_buffers(args, &xb, &yb, &ob) < 0) return NULL;
    PyObject *answer = Py_False;
    int c64 = strcmp(xb.format, "Zf") == 0 && xb.itemsize == 8, c128 = strcmp(xb.format, "Zd") == 0 && xb.itemsize == 16;
    Py_ssize_t n = xb.itemsize ? xb.len / xb.itemsize : 0, m = yb.itemsize ? yb.len / yb.itemsize : 0;
    if ((c64 || c128) && strcmp(yb.format, xb.format) == 0 && strcmp(ob.format, xb.format) == 0
        && ob.len == xb.len && (m == n || m == 1) && PyBuffer_IsContiguous(&xb, 'C')
        && PyBuffer_IsContiguous(&yb, 'C') && PyBuffer_IsContiguous(&ob, 'C')
        && (uintptr_t)xb.buf % (xb.itemsize / 2) == 0 && (uintptr_t)yb.buf % (xb.itemsize / 2) == 0
        && (uintptr_t)ob.buf % (xb.itemsize / 2) == 0 && !overlaps(&ob, &xb) && !overlaps(&ob, &yb)) {
        Py_ssize_t step = m == 1 ? 0 : 1;
        if (c64) {
            const float _Complex *x = xb.buf, *y = yb.buf;
            float _Complex *o = ob.buf;
            for (Py_ssize_t i = 0; i < n; i++) o[i] = cpowf(x[i], y[i * step]);
        } else {
            const double _Complex *x = xb.buf, *y = yb.buf;
            double _Complex *o = ob.buf;
            for (Py_ssize_t i = 0; i < n; i++) o[i] = cpow(x[i], y[i * step]);
        }
        answer = Py_True;
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

/* complex_forms(op, x, y, out, modes) -> bool: PyTorch's complex quotients and small powers with
 * its bits (ops.elementwise.complex_forms). c10::complex's division is Smith's (NumPy's
 * algorithm): |c| >= |d|: rat = d / c, scl = 1 / (c + d * rat), re = (a + b * rat) * scl,
 * im = (b - a * rat) * scl (else the mirror: rat = c / d, scl = 1 / (d + c * rat), re = (a * rat +
 * b) * scl, im = (b * rat - a) * scl; 0 / 0: a / |c|, b / |d|); PyTorch's compiler contracts
 * each ``p + q * r`` of it to an fma or not by where the element falls in its loops, and its
 * complex product is ac - bd, ad + bc rounded (its vector operator*) or fma(a, c, -(bd)),
 * fma(a, d, bc) (its scalar loops, contracted). ``modes`` (uint8, one per element or one for all)
 * picks each element's form: bit 0 the first step's fma form, bit 1 the second's, bit 2 the
 * third's (a quotient of 1 by 0 is inf + nanj with a positive NaN: PyTorch's compiler folds the
 * constant 0 / |0|). ``op``: 0 x / y (bits: scl, re, im); 1 1 / y (bit 0: scl; x unused); 2 y * y (bit 0);
 * 3 (y * y) * y (bits 0, 1: each product); 4 1 / (y * y) (bit 0 the product, bit 1 scl); 5
 * 1 / csqrt(y) (bit 0: scl); and c10's complex functions whose forms are one everywhere (modes
 * unread): 6 log1p(y), 7 expm1(y), 8 the C library's cacos(y) (bit 0: (pi/2, 0) - casin(y),
 * complex128's vector loop), 9 log10(y), 10 log2(y) (bit 3: the parts over log 2, the vector loop's;
 * else c10's division by (log 2, 0), bits 0-2 its forms); 11 x * y (bit 0). Buffers complex64 ("Zf") or complex128 ("Zd") of one format,
 * C-contiguous and aligned; x and y of out's length or one element; out may be x or y itself (each
 * element read before it is written), no other overlap. False (nothing written) otherwise. Built
 * with -ffp-contract=off: an unfused form is rounded. */
float _Complex csqrtf(float _Complex);
double _Complex csqrt(double _Complex);
float _Complex clogf(float _Complex);
double _Complex clog(double _Complex);
float _Complex cacosf(float _Complex);
double _Complex cacos(double _Complex);
float _Complex casinf(float _Complex);
double _Complex casin(double _Complex);
/* (an fma clone: the fmaf calls below become one instruction, ~2x the libm call's speed; the
 * unfused forms stay unfused, -ffp-contract=off) */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define FMA_CLONES __attribute__((target_clones("fma", "default")))
#else
#define FMA_CLONES
#endif
#define COMPLEX_FORMS(T, FMA, ABS, CSQRT, CLOG, CACOS, CASIN, SIN, COS, EXPM1, EXP)                                                          \
    static inline T fused_##T(int on, T p, T q, T r) { return on ? FMA(p, q, r) : p * q + r; }       \
    static inline void div_##T(T a, T b, T c, T d, int m, T *re, T *im)                            \
    {                                                                                              \
        if (ABS(c) >= ABS(d)) {                                                                    \
            if (ABS(c) == 0 && ABS(d) == 0) { /* (a complex infinity or NaN, c10's) */              \
                if (m & 8) { /* (1 / 0: PyTorch's compiler folds 0 / |0| to a positive NaN) */      \
                    *re = (T)INFINITY;                                                             \
                    *im = (T)NAN;                                                                  \
                    return;                                                                        \
                }                                                                                  \
                *re = a / ABS(c);                                                                  \
                *im = b / ABS(d);                                                                  \
                return;                                                                            \
            }                                                                                      \
            T rat = d / c, scl = (T)1 / fused_##T(m & 1, d, rat, c);                               \
            *re = fused_##T(m & 2, b, rat, a) * scl;                                               \
            *im = fused_##T(m & 4, -a, rat, b) * scl;                                              \
        } else {                                                                                   \
            T rat = c / d, scl = (T)1 / fused_##T(m & 1, c, rat, d);                               \
            *re = fused_##T(m & 2, a, rat, b) * scl;                                               \
            *im = fused_##T(m & 4, b, rat, -a) * scl;                                              \
        }                                                                                          \
    }                                                                                              \
    static inline void mul_##T(T a, T b, T c, T d, int fused, T *re, T *im)                        \
    {                                                                                              \
        if (fused) {                                                                               \
            *re = FMA(a, c, -(b * d));                                                             \
            *im = FMA(a, d, b * c);                                                                \
        } else {                                                                                   \
            T ac = a * c, bd = b * d, ad = a * d, bc = b * -c;                                     \
            *re = ac - bd;                                                                         \
            *im = ad - bc;                                                                         \
        }                                                                                          \
    }                                                                                              \
    /* c10's CPU log1p: u = z + 1; z where u == 1; else log(u), times z / (u - 1) unless u - 1 == z \
     * (the product and the quotient contracted throughout: map(std::log1p) in both loops) */      \
    static inline void complex_log1p_##T(T c, T d, T *re, T *im)                                   \
    {                                                                                              \
        T ur = c + 1, qr, qi;                                                                      \
        if (ur == 1 && d == 0) {                                                                   \
            *re = c;                                                                               \
            *im = d;                                                                               \
            return;                                                                                \
        }                                                                                          \
        T _Complex u, lu;                                                                          \
        __real__ u = ur;                                                                           \
        __imag__ u = d;                                                                            \
        lu = CLOG(u);                                                                              \
        if (ur - 1 == c && d == d) { /* (u - 1 == z: the same imaginary part, not NaN) */                  \
            *re = __real__ lu;                                                                     \
            *im = __imag__ lu;                                                                     \
            return;                                                                                \
        }                                                                                          \
        div_##T(c, d, ur - 1, d, 7, &qr, &qi);                                                     \
        mul_##T(__real__ lu, __imag__ lu, qr, qi, 1, re, im);                                      \
    }                                                                                              \
    FMA_CLONES static void complex_forms_##T(int op, const T *x, Py_ssize_t xs, const T *y,        \
                                             Py_ssize_t ys,                                        \
                                  T *o, const uint8_t *modes, Py_ssize_t ms, Py_ssize_t n)          \
    {                                                                                              \
        for (Py_ssize_t i = 0; i < n; i++) {                                                       \
            T c = y[2 * i * ys], d = y[2 * i * ys + 1], re, im, r2, i2;                            \
            int m = modes[i * ms];                                                                 \
            switch (op) {                                                                          \
            case 0: div_##T(x[2 * i * xs], x[2 * i * xs + 1], c, d, m, &re, &im); break;           \
            case 1: div_##T(1, 0, c, d, m | 8, &re, &im); break;                                       \
            case 2: mul_##T(c, d, c, d, m & 1, &re, &im); break;                                   \
            case 11: mul_##T(x[2 * i * xs], x[2 * i * xs + 1], c, d, m & 1, &re, &im); break;      \
            case 3:                                                                                \
                mul_##T(c, d, c, d, m & 1, &r2, &i2);                                              \
                mul_##T(r2, i2, c, d, m & 2, &re, &im);                                            \
                break;                                                                             \
            case 4:                                                                                \
                mul_##T(c, d, c, d, m & 1, &r2, &i2);                                              \
                div_##T(1, 0, r2, i2, ((m >> 1) & 1) | 8, &re, &im);                                     \
                break;                                                                             \
            case 5: {                                                                              \
                T _Complex z, root;                                                                \
                __real__ z = c;                                                                    \
                __imag__ z = d;                                                                    \
                root = CSQRT(z);                                                                   \
                div_##T(1, 0, __real__ root, __imag__ root, (m & 1) | 8, &re, &im);                \
                break;                                                                             \
            }                                                                                      \
            case 6: complex_log1p_##T(c, d, &re, &im); break;                                      \
            case 9: /* log10: clog(z) parts over log(10) (libstdc++'s, and the vector loop's) */   \
            case 10: { /* log2: over log(2) (vector loop) or c10's division by (log 2, 0) */       \
                T _Complex z, w;                                                                   \
                __real__ z = c;                                                                    \
                __imag__ z = d;                                                                    \
                w = CLOG(z);                                                                       \
                T base = op == 9 ? (T)2.302585092994045684 : (T)0.693147180559945309;              \
                if (op == 9 || (m & 8)) {                                                          \
                    re = __real__ w / base;                                                        \
                    im = __imag__ w / base;                                                        \
                } else {                                                                           \
                    div_##T(__real__ w, __imag__ w, base, 0, m & 7, &re, &im);                     \
                }                                                                                  \
                break;                                                                             \
            }                                                                                      \
            case 7: { /* expm1: c10's (expm1(x) cos(y) - 2 sin(y/2)^2, e^x sin(y)), contracted */  \
                T a = SIN(d / 2);                                                                  \
                re = FMA(EXPM1(c), COS(d), -((T)2 * a * a));                                       \
                im = EXP(c) * SIN(d);                                                              \
                break;                                                                             \
            }                                                                                      \
            default: {                                                                             \
                T _Complex z, w;                                                                   \
                __real__ z = c;                                                                    \
                __imag__ z = d;                                                                    \
                if (m & 1) { /* (complex128's vector loop: (pi/2, 0) - casin(z)) */                \
                    w = CASIN(z);                                                                  \
                    __real__ w = (T)1.5707963267948966 - __real__ w;                               \
                    __imag__ w = (T)0 - __imag__ w;                                                \
                } else {                                                                           \
                    w = CACOS(z);                                                                  \
                }                                                                                  \
                re = __real__ w;                                                                   \
                im = __imag__ w;                                                                   \
            }                                                                                      \
            }                                                                                      \
            o[2 * i] = re;                                                                         \
            o[2 * i + 1] = im;                                                                     \
        }                                                                                          \
    }
COMPLEX_FORMS(float, fmaf, fabsf, csqrtf, clogf, cacosf, casinf, sinf, cosf, expm1f, expf)
COMPLEX_FORMS(double, fma, fabs, csqrt, clog, cacos, casin, sin, cos, expm1, exp)
#undef COMPLEX_FORMS

static PyObject *py_complex_forms(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "complex_forms(op, x, y, out, modes) takes 5 arguments, not %zd", nargs);
        return NULL;
    }
    long op = PyLong_AsLong(args[0]);
    if (op == -1 && PyErr_Occurred()) return NULL;
    Py_buffer b[4];
    int flags[4] = {PyBUF_STRIDES | PyBUF_FORMAT, PyBUF_STRIDES | PyBUF_FORMAT,
                    PyBUF_STRIDES | PyBUF_FORMAT | PyBUF_WRITABLE, PyBUF_STRIDES | PyBUF_FORMAT};
    for (int k = 0; k < 4; k++) {
        if (PyObject_GetBuffer(args[k + 1], &b[k], flags[k]) < 0) {
            while (k--) PyBuffer_Release(&b[k]);
            return NULL;
        }
    }
    PyObject *answer = Py_False;
    const char *f = b[2].format;
    int c64 = strcmp(f, "Zf") == 0 && b[2].itemsize == 8, c128 = strcmp(f, "Zd") == 0 && b[2].itemsize == 16;
    Py_ssize_t n = b[2].itemsize ? b[2].len / b[2].itemsize : 0;
    Py_ssize_t nx = b[0].itemsize ? b[0].len / b[0].itemsize : 0, ny = b[1].itemsize ? b[1].len / b[1].itemsize : 0;
    Py_ssize_t nm = b[3].itemsize == 1 ? b[3].len : 0;
    int ok = (c64 || c128) && op >= 0 && op <= 11 && n > 0 && strcmp(b[0].format, f) == 0 && strcmp(b[1].format, f) == 0
             && (strcmp(b[3].format, "B") == 0 || strcmp(b[3].format, "?") == 0)
             && (nx == n || nx == 1) && (ny == n || ny == 1) && (nm == n || nm == 1);
    for (int k = 0; ok && k < 4; k++)
        ok = PyBuffer_IsContiguous(&b[k], 'C') && (k == 3 || (uintptr_t)b[k].buf % (b[2].itemsize / 2) == 0);
    /* (out may be an operand itself: each element is read before it is written) */
    for (int k = 0; ok && k < 2; k++)
        ok = (b[2].buf == b[k].buf && b[2].len == b[k].len) || !overlaps(&b[2], &b[k]);
    if (ok && overlaps(&b[2], &b[3])) ok = 0;
    if (ok) {
        Py_ssize_t xs = nx == 1 ? 0 : 1, ys = ny == 1 ? 0 : 1, ms = nm == 1 ? 0 : 1;
        Py_BEGIN_ALLOW_THREADS
        if (c64) complex_forms_float((int)op, b[0].buf, xs, b[1].buf, ys, b[2].buf, b[3].buf, ms, n);
        else complex_forms_double((int)op, b[0].buf, xs, b[1].buf, ys, b[2].buf, b[3].buf, ms, n);
        Py_END_ALLOW_THREADS
        answer = Py_True;
    }
    for (int k = 0; k < 4; k++) PyBuffer_Release(&b[k]);
    Py_INCREF(answer);
    return answer;
}

#include "_complex_lerp.h" /* complex_lerp: COMPLEX_LERP_METHODS (uses mul_float / mul_double) */

/* complex_cumprod(x, out, n) -> bool: PyTorch's CPU running product of complex numbers in complex128
 * (at::acc_type of both complex dtypes) along rows of n elements of a flat C-contiguous complex128
 * ("Zd") x: acc = 1 + 0j, then acc = acc * x[i] with the compiled scalar loop's fused product,
 * fma(a, c, -(bd)) and fma(a, d, bc) (so the first element of 1 + infj is nan + infj: (1, 0) times
 * it), out[i] = acc. out: complex128 of x's length, x itself allowed. False (nothing written) for
 * other buffers. */
FMA_CLONES static void complex_cumprod_double(const double *x, double *o, Py_ssize_t len, Py_ssize_t n)
{
    for (Py_ssize_t r = 0; r < len; r += n) {
        double ar = 1.0, ai = 0.0;
        for (Py_ssize_t i = r; i < r + n; i++) {
            double c = x[2 * i], d = x[2 * i + 1];
            double re = fma(ar, c, -(ai * d)), im = fma(ar, d, ai * c);
            ar = re;
            ai = im;
            o[2 * i] = ar;
            o[2 * i + 1] = ai;
        }
    }
}

static PyObject *py_complex_cumprod(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "complex_cumprod(x, out, n) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[2]);
    if (n == -1 && PyErr_Occurred()) return NULL;
    Py_buffer xb, ob;
    if (in_out_buffers(args[0], args[1], &xb, &ob) < 0) return NULL;
    PyObject *answer = Py_False;
    Py_ssize_t len = xb.itemsize == 16 ? xb.len / 16 : 0;
    if (strcmp(xb.format, "Zd") == 0 && strcmp(ob.format, "Zd") == 0 && xb.itemsize == 16 && ob.len == xb.len
        && n > 0 && len % n == 0 && PyBuffer_IsContiguous(&xb, 'C') && PyBuffer_IsContiguous(&ob, 'C')
        && (uintptr_t)xb.buf % 8 == 0 && (uintptr_t)ob.buf % 8 == 0
        && ((ob.buf == xb.buf) || !overlaps(&ob, &xb))) {
        Py_BEGIN_ALLOW_THREADS
        complex_cumprod_double(xb.buf, ob.buf, len, n);
        Py_END_ALLOW_THREADS
        answer = Py_True;
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

/* complex_mul_run(x, y, out, piece, rule) -> bool: out = x * y over flat complex64 ("Zf") or
 * complex128 ("Zd") runs with PyTorch's bits (ops.elementwise.binary._complex_mul_into): its
 * vectorized loop's rounded form, re = ac - bd, im = ad - b(-c), on whole blocks of
 * 2 * Vectorized<complex>::size() (8 complex64, 4 complex128) of each piece (the run cut every
 * ``piece`` elements: parallel_for's chunks), and in each piece's tail the compiler's forms: fma(a,
 * c, -(bd)) and fma(a, d, bc) where ``rule`` says (0: two tensors, complex64 in pairs with an odd
 * last element rounded; 1: y one element, a number, complex64 at tail places 1 to 4 of tails of 5
 * to 7; complex128 fma in every tail). ``y`` has x's length or one element; out may be x itself,
 * no other overlap. False (nothing written) for other buffers. Built with -ffp-contract=off: the
 * rounded form is rounded. */
#define COMPLEX_MUL_RUN(T, FMA)                                                                    \
    static void complex_mul_run_##T(const T *x, const T *y, T *o, Py_ssize_t n, Py_ssize_t ys,     \
                                    Py_ssize_t piece, int rule, Py_ssize_t block, int wide)        \
    {                                                                                              \
        for (Py_ssize_t s0 = 0; s0 < n; s0 += piece) {                                             \
            Py_ssize_t len = n - s0 < piece ? n - s0 : piece, tail = len % block;                  \
            Py_ssize_t start = s0 + len - tail;                                                    \
            for (Py_ssize_t i = s0; i < start; i++) { /* (the vector blocks: no branch) */          \
                T a = x[2 * i], b = x[2 * i + 1], c = y[2 * i * ys], d = y[2 * i * ys + 1];         \
                T ac = a * c, bd = b * d, ad = a * d, bc = b * -c;                                 \
                o[2 * i] = ac - bd;                                                                \
                o[2 * i + 1] = ad - bc;                                                            \
            }                                                                                      \
            for (Py_ssize_t i = start; i < s0 + len; i++) {                                        \
                T a = x[2 * i], b = x[2 * i + 1], c = y[2 * i * ys], d = y[2 * i * ys + 1];         \
                Py_ssize_t k = i - start;                                                          \
                int fused = wide ? 1 : rule == 0 ? k < tail - tail % 2 : (tail >= 5 && k >= 1 && k <= 4); \
                if (fused) {                                                                       \
                    o[2 * i] = FMA(a, c, -(b * d));                                                \
                    o[2 * i + 1] = FMA(a, d, b * c);                                               \
                } else {                                                                           \
                    T ac = a * c, bd = b * d, ad = a * d, bc = b * -c;                             \
                    o[2 * i] = ac - bd;                                                            \
                    o[2 * i + 1] = ad - bc;                                                        \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }
COMPLEX_MUL_RUN(float, fmaf)
COMPLEX_MUL_RUN(double, fma)
#undef COMPLEX_MUL_RUN

static PyObject *py_complex_mul_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "complex_mul_run(x, y, out, piece, rule) takes 5 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t piece = PyLong_AsSsize_t(args[3]);
    if (piece == -1 && PyErr_Occurred()) return NULL;
    long rule = PyLong_AsLong(args[4]);
    if (rule == -1 && PyErr_Occurred()) return NULL;
    Py_buffer xb, yb, ob;
    if (three_buffers(args, &xb, &yb, &ob) < 0) return NULL;
    PyObject *answer = Py_False;
    int c64 = strcmp(xb.format, "Zf") == 0 && xb.itemsize == 8, c128 = strcmp(xb.format, "Zd") == 0 && xb.itemsize == 16;
    Py_ssize_t n = xb.itemsize ? xb.len / xb.itemsize : 0, m = yb.itemsize ? yb.len / yb.itemsize : 0;
    int same_x = ob.buf == xb.buf && ob.len == xb.len;
    if ((c64 || c128) && piece > 0 && (rule == 0 || rule == 1) && strcmp(yb.format, xb.format) == 0
        && strcmp(ob.format, xb.format) == 0 && ob.len == xb.len && (m == n || m == 1)
        && PyBuffer_IsContiguous(&xb, 'C') && PyBuffer_IsContiguous(&yb, 'C') && PyBuffer_IsContiguous(&ob, 'C')
        && (uintptr_t)xb.buf % (xb.itemsize / 2) == 0 && (uintptr_t)yb.buf % (xb.itemsize / 2) == 0
        && (uintptr_t)ob.buf % (xb.itemsize / 2) == 0 && (same_x || !overlaps(&ob, &xb)) && !overlaps(&ob, &yb)) {
        Py_ssize_t ys = m == 1 ? 0 : 1;
        if (c64) complex_mul_run_float(xb.buf, yb.buf, ob.buf, n, ys, piece, (int)rule, 8, 0);
        else complex_mul_run_double(xb.buf, yb.buf, ob.buf, n, ys, piece, (int)rule, 4, 1);
        answer = Py_True;
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

static PyObject *py_complex_angle(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Py_buffer src, dst;
    char kind;
    int taken = complex_to_real_buffers(args, nargs, "complex_angle", &src, &dst, &kind);
    if (taken < 0) return NULL;
    if (!taken) Py_RETURN_FALSE;
    RELEASING(if (kind == 'f') complex_angle_float(src.buf, dst.buf, n); else complex_angle_double(src.buf, dst.buf, n));
    Py_RETURN_TRUE;
}

/* diff_blocks' loops: out's block b (m - step elements) = x's block b (m elements) shifted by step minus
 * itself, o[k] = x[k + step] - x[k]; int64 in unsigned arithmetic (NumPy's and PyTorch's wrap-around). */
#define DIFF_BLOCKS(T, NAME)                                                                       \
    ERF_CLONES static void NAME(const T *restrict x, T *restrict o, Py_ssize_t blocks, Py_ssize_t m,    \
                                Py_ssize_t step)                                                   \
    {                                                                                              \
        Py_ssize_t w = m - step;                                                                   \
        for (Py_ssize_t b = 0; b < blocks; b++) {                                                  \
            const T *xb = x + b * m;                                                               \
            T *ob = o + b * w;                                                                     \
            for (Py_ssize_t k = 0; k < w; k++) ob[k] = xb[k + step] - xb[k];                       \
        }                                                                                          \
    }
DIFF_BLOCKS(float, diff_blocks_float)
DIFF_BLOCKS(double, diff_blocks_double)
DIFF_BLOCKS(uint64_t, diff_blocks_u64)
#undef DIFF_BLOCKS

/* diff_blocks(x, out, m, step) -> bool: the first forward difference of a C-contiguous (outer, n, inner)
 * array along its middle dim, m = n * inner and step = inner: out, C-contiguous (outer, n - 1, inner), gets
 * x[:, 1:] - x[:, :-1], one subtraction per element (NumPy's np.subtract of the two narrowed views, bit for
 * bit) in one pass, where NumPy's iterator walks the narrowed views row by row. Buffers of one format:
 * float32 "f", float64 "d" or int64 "l"/"q" (wrapping); x's length a multiple of m, out's of m - step.
 * False (nothing written) for other buffers or an overlap. */
static PyObject *py_diff_blocks(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "diff_blocks(x, out, m, step) takes 4 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t m = PyLong_AsSsize_t(args[2]), step = PyLong_AsSsize_t(args[3]);
    if ((m == -1 || step == -1) && PyErr_Occurred()) return NULL;
    Py_buffer src, dst;
    if (PyObject_GetBuffer(args[0], &src, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &dst, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&src);
        return NULL;
    }
    const char *f = src.format;
    int kind = strcmp(f, "f") == 0 && src.itemsize == 4 ? 1 : strcmp(f, "d") == 0 && src.itemsize == 8 ? 2
             : (strcmp(f, "l") == 0 || strcmp(f, "q") == 0) && src.itemsize == 8 ? 3 : 0;
    Py_ssize_t len = src.itemsize ? src.len / src.itemsize : 0, blocks = m > 0 ? len / m : 0;
    int fits = kind && strcmp(dst.format, f) == 0 && dst.itemsize == src.itemsize && step > 0 && m > step
               && blocks * m == len && dst.len / dst.itemsize == blocks * (m - step) && !overlaps(&src, &dst);
    if (fits) {
        RELEASING(if (kind == 1) diff_blocks_float(src.buf, dst.buf, blocks, m, step);
                  else if (kind == 2) diff_blocks_double(src.buf, dst.buf, blocks, m, step);
                  else diff_blocks_u64(src.buf, dst.buf, blocks, m, step));
    }
    PyBuffer_Release(&src);
    PyBuffer_Release(&dst);
    if (fits) Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

/* pair_sums' loops: out's block b (m - step elements) = (x[k] + x[k + step]) * scale of x's block b (m
 * elements), each add and multiply one IEEE operation in the element type (NumPy's np.add of the two
 * narrowed views, then np.multiply by a Python float, weak: the float rounded to the type first). */
#define PAIR_SUMS(T, NAME)                                                                         \
    static void NAME(const T *restrict x, T *restrict o, Py_ssize_t blocks, Py_ssize_t m, Py_ssize_t step, \
                     T scale)                                                                      \
    {                                                                                              \
        Py_ssize_t w = m - step;                                                                   \
        for (Py_ssize_t b = 0; b < blocks; b++) {                                                  \
            const T *xb = x + b * m;                                                               \
            T *ob = o + b * w;                                                                     \
            for (Py_ssize_t k = 0; k < w; k++) {                                                   \
                T p = xb[k] + xb[k + step];                                                        \
                ob[k] = p * scale;                                                                 \
            }                                                                                      \
        }                                                                                          \
    }
PAIR_SUMS(float, pair_sums_float)
PAIR_SUMS(double, pair_sums_double)
#undef PAIR_SUMS

/* pair_sums(x, out, m, step, scale) -> bool: cumulative_trapezoid's terms of a C-contiguous (outer, n,
 * inner) float32 "f" or float64 "d" array along its middle dim (m = n * inner, step = inner): out,
 * C-contiguous (outer, n - 1, inner) of x's format, gets (x[:, :-1] + x[:, 1:]) * scale, scale a
 * number rounded to the format (a float32 scale beyond its range: False). False (nothing written)
 * for other buffers or an overlap. */
static PyObject *py_pair_sums(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "pair_sums(x, out, m, step, scale) takes 5 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t m = PyLong_AsSsize_t(args[2]), step = PyLong_AsSsize_t(args[3]);
    double scale = PyFloat_AsDouble(args[4]);
    if (PyErr_Occurred()) return NULL;
    Py_buffer src, dst;
    if (PyObject_GetBuffer(args[0], &src, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &dst, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&src);
        return NULL;
    }
    const char *f = src.format;
    int kind = strcmp(f, "f") == 0 && src.itemsize == 4 ? 1 : strcmp(f, "d") == 0 && src.itemsize == 8 ? 2 : 0;
    Py_ssize_t len = src.itemsize ? src.len / src.itemsize : 0, blocks = m > 0 ? len / m : 0;
    int fits = kind && strcmp(dst.format, f) == 0 && dst.itemsize == src.itemsize && step > 0 && m > step
               && blocks * m == len && dst.len / dst.itemsize == blocks * (m - step) && !overlaps(&src, &dst)
               && (kind == 2 || !(fabs(scale) > 0x1.fffffep127));
    if (fits) {
        if (kind == 1) pair_sums_float(src.buf, dst.buf, blocks, m, step, (float)scale);
        else pair_sums_double(src.buf, dst.buf, blocks, m, step, scale);
    }
    PyBuffer_Release(&src);
    PyBuffer_Release(&dst);
    if (fits) Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

/* index_accumulate's loops: for each outer block a and index position k in order, the row idx[k] of out's
 * block a gets the row k of vals' block a added (op 0) or multiplied in (op 1), elementwise; integers in
 * unsigned arithmetic (the wrap-around of NumPy's and PyTorch's signed loops, the same low bits). */
#define INDEX_ACCUMULATE(T, NAME)                                                                  \
    ERF_CLONES static void NAME(T *restrict out, const int64_t *restrict idx, const T *restrict vals, \
                                Py_ssize_t outer, Py_ssize_t size, Py_ssize_t n, Py_ssize_t inner, int op) \
    {                                                                                              \
        for (Py_ssize_t a = 0; a < outer; a++)                                                     \
            for (Py_ssize_t k = 0; k < n; k++) {                                                   \
                T *row = out + (a * size + idx[k]) * inner;                                        \
                const T *src = vals + (a * n + k) * inner;                                         \
                if (op == 0)                                                                       \
                    for (Py_ssize_t j = 0; j < inner; j++) row[j] = row[j] + src[j];               \
                else                                                                               \
                    for (Py_ssize_t j = 0; j < inner; j++) row[j] = row[j] * src[j];               \
            }                                                                                      \
    }
INDEX_ACCUMULATE(float, index_accumulate_float)
INDEX_ACCUMULATE(double, index_accumulate_double)
INDEX_ACCUMULATE(uint64_t, index_accumulate_u64)
INDEX_ACCUMULATE(uint32_t, index_accumulate_u32)
#undef INDEX_ACCUMULATE
/* The float loops above with a watch for a NaN among vals (the caller's ufunc.at decides where two
 * NaN operands meet): returns whether one was met, every update made all the same. The test rides
 * on the pass (an unordered compare per element, in the vectors), where the caller's own test was
 * a whole pass of np.min over vals before it (1M float32: ~30-60 us of ~300). */
#define INDEX_ACCUMULATE_WATCHED(T, NAME)                                                          \
    ERF_CLONES static int NAME(T *restrict out, const int64_t *restrict idx, const T *restrict vals, \
                               Py_ssize_t outer, Py_ssize_t size, Py_ssize_t n, Py_ssize_t inner, int op) \
    {                                                                                              \
        int nan = 0;                                                                               \
        for (Py_ssize_t a = 0; a < outer; a++)                                                     \
            for (Py_ssize_t k = 0; k < n; k++) {                                                   \
                T *row = out + (a * size + idx[k]) * inner;                                        \
                const T *src = vals + (a * n + k) * inner;                                         \
                int seen = 0;                                                                      \
                if (op == 0)                                                                       \
                    for (Py_ssize_t j = 0; j < inner; j++) { row[j] = row[j] + src[j]; seen |= src[j] != src[j]; } \
                else                                                                               \
                    for (Py_ssize_t j = 0; j < inner; j++) { row[j] = row[j] * src[j]; seen |= src[j] != src[j]; } \
                nan |= seen;                                                                       \
            }                                                                                      \
        return nan;                                                                                \
    }
INDEX_ACCUMULATE_WATCHED(float, index_accumulate_float_watched)
INDEX_ACCUMULATE_WATCHED(double, index_accumulate_double_watched)
#undef INDEX_ACCUMULATE_WATCHED

/* index_accumulate(out, idx, vals, outer, size, inner, op) -> bool: ufunc.at(out3, (:, idx, :), vals3) of
 * out3 = out as (outer, size, inner) and vals3 = vals as (outer, len(idx), inner), ufunc np.add (op 0) or
 * np.multiply (op 1): each element's updates in the index's order, one rounding each (index_add's and
 * index_reduce's slice-by-slice NumPy loop, in one call). out and vals C-contiguous of one format: float32
 * "f", float64 "d", int64 "l"/"q" or int32 "i"; idx C-contiguous int64, every entry in [0, size). False
 * (nothing written) for other buffers, an index out of range or an overlap of out with vals or idx.
 * With watch true (a float out the caller may throw away): None where vals held a NaN (every update
 * made, the caller's NaN-exact path to redo them from the start), else as above. */
static PyObject *py_index_accumulate(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 7 && nargs != 8) {
        PyErr_Format(PyExc_TypeError, "index_accumulate(out, idx, vals, outer, size, inner, op[, watch]) takes 7 or 8 "
                     "arguments, not %zd", nargs);
        return NULL;
    }
    int watch = nargs == 8 ? PyObject_IsTrue(args[7]) : 0;
    if (watch < 0) return NULL;
    Py_ssize_t outer = PyLong_AsSsize_t(args[3]), size = PyLong_AsSsize_t(args[4]), inner = PyLong_AsSsize_t(args[5]);
    long op = PyLong_AsLong(args[6]);
    if (PyErr_Occurred()) return NULL;
    Py_buffer dst, ix, src;
    if (PyObject_GetBuffer(args[0], &dst, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &ix, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&dst);
        return NULL;
    }
    if (PyObject_GetBuffer(args[2], &src, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&dst);
        PyBuffer_Release(&ix);
        return NULL;
    }
    const char *f = dst.format;
    int kind = strcmp(f, "f") == 0 && dst.itemsize == 4 ? 1 : strcmp(f, "d") == 0 && dst.itemsize == 8 ? 2
             : (strcmp(f, "l") == 0 || strcmp(f, "q") == 0) && dst.itemsize == 8 ? 3
             : strcmp(f, "i") == 0 && dst.itemsize == 4 ? 4 : 0;
    int index64 = (strcmp(ix.format, "l") == 0 || strcmp(ix.format, "q") == 0) && ix.itemsize == 8;
    Py_ssize_t count = index64 ? ix.len / 8 : 0;  /* (not n: RELEASING's) */
    int fits = kind && index64 && (op == 0 || op == 1) && outer >= 0 && size >= 0 && inner >= 0
               && strcmp(src.format, f) == 0 && src.itemsize == dst.itemsize
               && dst.len / dst.itemsize == outer * size * inner && src.len / src.itemsize == outer * count * inner
               && !overlaps(&dst, &src) && !overlaps(&dst, &ix);
    const int64_t *idx = ix.buf;
    for (Py_ssize_t k = 0; fits && k < count; k++)
        if (idx[k] < 0 || idx[k] >= size) fits = 0;
    int nan = 0;
    if (fits) {
        int o = (int)op;
        RELEASING(if (watch && kind == 1) nan = index_accumulate_float_watched(dst.buf, idx, src.buf, outer, size, count, inner, o);
                  else if (watch && kind == 2) nan = index_accumulate_double_watched(dst.buf, idx, src.buf, outer, size, count, inner, o);
                  else if (kind == 1) index_accumulate_float(dst.buf, idx, src.buf, outer, size, count, inner, o);
                  else if (kind == 2) index_accumulate_double(dst.buf, idx, src.buf, outer, size, count, inner, o);
                  else if (kind == 3) index_accumulate_u64(dst.buf, idx, src.buf, outer, size, count, inner, o);
                  else index_accumulate_u32(dst.buf, idx, src.buf, outer, size, count, inner, o));
    }
    PyBuffer_Release(&dst);
    PyBuffer_Release(&ix);
    PyBuffer_Release(&src);
    if (nan) Py_RETURN_NONE;
    if (fits) Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

/* clamp_scalar's loops: PyTorch's clamp of number bounds, x < lo ? lo : x, then > hi ? hi : x (a NaN x fails
 * both compares: kept as it is, payload and all; a tie keeps x, its zero's sign too). */
#define CLAMP_SCALAR(T, NAME)                                                                      \
    ERF_CLONES static void NAME##_run(const T *restrict x, T *restrict o, Py_ssize_t n, T lo, T hi, int which) \
    {                                                                                              \
        if (which == 1)                                                                            \
            for (Py_ssize_t i = 0; i < n; i++) o[i] = x[i] < lo ? lo : x[i];                       \
        else if (which == 2)                                                                       \
            for (Py_ssize_t i = 0; i < n; i++) o[i] = x[i] > hi ? hi : x[i];                       \
        else                                                                                       \
            for (Py_ssize_t i = 0; i < n; i++) {                                                   \
                T v = x[i] < lo ? lo : x[i];                                                       \
                o[i] = v > hi ? hi : v;                                                            \
            }                                                                                      \
    }                                                                                              \
    static void NAME(const T *x, T *o, Py_ssize_t n, T lo, T hi, int which)                        \
    {                                                                                              \
        Py_ssize_t head = aligned_head(o, sizeof(T), n);                                           \
        NAME##_run(x, o, head, lo, hi, which);                                                     \
        NAME##_run(x + head, o + head, n - head, lo, hi, which);                                   \
    }
CLAMP_SCALAR(float, clamp_scalar_float)
CLAMP_SCALAR(double, clamp_scalar_double)
#undef CLAMP_SCALAR

/* clamp_scalar(x, out, lo, hi, which) -> bool: out = clamp(x, lo, hi) of C-contiguous float32 "f" or float64
 * "d" buffers of one format and length, which = 1 (lo only), 2 (hi only) or 3 (both); lo and hi are Python
 * floats holding values of x's dtype exactly. NumPy's maximum/minimum/clip with PyTorch's signed zero on a tie
 * (strided.kernels.elementwise.tied_zeros), in one pass. False (nothing written) for a NaN bound (the result
 * is all NaN there: NumPy's), other buffers or an overlap. */
static PyObject *py_clamp_scalar(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "clamp_scalar(x, out, lo, hi, which) takes 5 arguments, not %zd", nargs);
        return NULL;
    }
    double lo = PyFloat_AsDouble(args[2]), hi = PyFloat_AsDouble(args[3]);
    long which = PyLong_AsLong(args[4]);
    if (PyErr_Occurred()) return NULL;
    Py_buffer src, dst;
    if (PyObject_GetBuffer(args[0], &src, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &dst, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&src);
        return NULL;
    }
    int f32 = strcmp(src.format, "f") == 0 && src.itemsize == 4, f64 = strcmp(src.format, "d") == 0 && src.itemsize == 8;
    int fits = (f32 || f64) && strcmp(dst.format, src.format) == 0 && dst.len == src.len && which >= 1 && which <= 3
               && !isnan(lo) && !isnan(hi) && !overlaps(&src, &dst);
    int w = (int)which;
    if (fits) {
        RELEASING(if (f32) clamp_scalar_float(src.buf, dst.buf, n, (float)lo, (float)hi, w);
                  else clamp_scalar_double(src.buf, dst.buf, n, lo, hi, w));
    }
    PyBuffer_Release(&src);
    PyBuffer_Release(&dst);
    if (fits) Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

/* ------------------------------------------------------------------ bincount of int64 values */
/* The smallest and largest of n int64 values (n >= 1), in vectors. */
VECTOR_CLONES static void int64_range(const int64_t *restrict x, Py_ssize_t n, int64_t *lo, int64_t *hi)
{
    int64_t a = x[0], b = x[0];
    for (Py_ssize_t i = 0; i < n; i++) {
        a = x[i] < a ? x[i] : a;
        b = x[i] > b ? x[i] : b;
    }
    *lo = a;
    *hi = b;
}

/* counts[x[i]] += 1 for every i (every value in [0, size)): four partial tables taken in turn where
 * the table is short, so that a run of one value is four chains of increments, not one chain
 * through memory (1M values in 16 bins, thread CPU time: NumPy's bincount ~950 us, PyTorch's ~900,
 * this with its range pass ~610). */
static void int64_count(const int64_t *restrict x, Py_ssize_t n, int64_t *restrict counts, Py_ssize_t size,
                        int64_t *restrict parts)
{
    if (parts == NULL) {
        for (Py_ssize_t i = 0; i < n; i++) counts[x[i]]++;
        return;
    }
    int64_t *p0 = parts, *p1 = parts + size, *p2 = parts + 2 * size, *p3 = parts + 3 * size;
    Py_ssize_t i = 0;
    for (; i + 4 <= n; i += 4) {
        p0[x[i]]++;
        p1[x[i + 1]]++;
        p2[x[i + 2]]++;
        p3[x[i + 3]]++;
    }
    for (; i < n; i++) p0[x[i]]++;
    for (Py_ssize_t j = 0; j < size; j++) counts[j] = p0[j] + p1[j] + p2[j] + p3[j];
}

/* int64_bincount(x, minlength) -> (size, None) | (size, bytes): np.bincount of the C-contiguous int64
 * buffer x (n >= 1 values) without weights: the occurrences of each value 0 .. size - 1, size = max(x)
 * + 1 or minlength if larger, as int64 counts in a bytes object of size * 8 bytes (the caller's
 * np.frombuffer(...).copy() or adopt); (-1, None) where a value is negative (nothing counted: the
 * caller's error path), (0, None) for another buffer or a table past 2**20 entries (the caller's
 * np.bincount). */
static PyObject *py_int64_bincount(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *target;
    Py_ssize_t minlength;
    if (!PyArg_ParseTuple(args, "On:int64_bincount", &target, &minlength)) return NULL;
    Py_buffer xb;
    if (PyObject_GetBuffer(target, &xb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    char kind = format_kind(&xb);
    Py_ssize_t n = xb.itemsize == 8 ? xb.len / 8 : 0;
    if ((kind != 'l' && kind != 'q') || n < 1 || minlength < 0) {
        PyBuffer_Release(&xb);
        return Py_BuildValue("(nO)", (Py_ssize_t)0, Py_None);
    }
    const int64_t *x = xb.buf;
    int64_t lo, hi;
    Py_BEGIN_ALLOW_THREADS
    int64_range(x, n, &lo, &hi);
    Py_END_ALLOW_THREADS
    if (lo < 0) {
        PyBuffer_Release(&xb);
        return Py_BuildValue("(nO)", (Py_ssize_t)-1, Py_None);
    }
    Py_ssize_t size = (Py_ssize_t)hi + 1 > minlength ? (Py_ssize_t)hi + 1 : minlength;
    if (hi >= (1 << 20) || size > (1 << 20)) {
        PyBuffer_Release(&xb);
        return Py_BuildValue("(nO)", (Py_ssize_t)0, Py_None);
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, size * 8);
    if (out == NULL) {
        PyBuffer_Release(&xb);
        return NULL;
    }
    int64_t *counts = (int64_t *)PyBytes_AS_STRING(out);
    memset(counts, 0, (size_t)size * 8);
    int64_t *parts = size <= (1 << 14) && n >= 4 * size ? calloc((size_t)size * 4, 8) : NULL;
    Py_BEGIN_ALLOW_THREADS
    int64_count(x, n, counts, size, parts);
    Py_END_ALLOW_THREADS
    free(parts);
    PyBuffer_Release(&xb);
    PyObject *answer = Py_BuildValue("(nN)", size, out);
    return answer;
}

#include "_scalar_inplace.h" /* scalar_inplace: SCALAR_INPLACE_METHODS */
#include "_fp_tests.h"       /* fp_test: FP_TEST_METHODS */

#ifdef STRIDED_NUMPY_HEADERS
#include "_ufunc_chain.h"
#else
#define UFUNC_CHAIN_METHODS
#endif

#include "_fma_f64.h" /* fma_f64: explicit fused multiply-adds (complex logcumsumexp) */

static PyMethodDef methods[] = {
    {"fma_f64", (PyCFunction)py_fma_f64, METH_VARARGS,
     "fma_f64(x, y, z, out) -> bool: out = fma(x, y, z) over C-contiguous float64 buffers of one length"},
    UFUNC_CHAIN_METHODS
    SCALAR_INPLACE_METHODS
    FP_TEST_METHODS
    COMPLEX_LERP_METHODS
    LCSE_WIDE_METHODS
    {"torch_norm2_rows", (PyCFunction)(void (*)(void))py_torch_norm2_rows, METH_FASTCALL, NULL},
    ENTRY(erf), ENTRY(erfc), ENTRY(erfinv), ENTRY(erfinv_float32), ENTRY(digamma), ENTRY(trigamma), ENTRY(lgamma),
    ENTRY(i0), ENTRY(i1), ENTRY(i0e), ENTRY(i1e),
    {"zeta_scaled", (PyCFunction)(void (*)(void))py_zeta_scaled, METH_FASTCALL,
     "zeta_scaled(src, dst, s, scale): scale * zeta(s, src) elementwise, s > 1"},
    {"diff_blocks", (PyCFunction)(void (*)(void))py_diff_blocks, METH_FASTCALL,
     "diff_blocks(x, out, m, step) -> bool: out = x[:, 1:] - x[:, :-1] of a C-contiguous (outer, n, inner) "
     "float32/float64/int64 x, m = n * inner, step = inner (False: other buffers or an overlap)"},
    {"pair_sums", (PyCFunction)(void (*)(void))py_pair_sums, METH_FASTCALL,
     "pair_sums(x, out, m, step, scale) -> bool: (x[:, :-1] + x[:, 1:]) * scale along the middle of (outer, n, inner) "
     "(False: other buffers, an overlap)"},
    {"index_accumulate", (PyCFunction)(void (*)(void))py_index_accumulate, METH_FASTCALL,
     "index_accumulate(out, idx, vals, outer, size, inner, op) -> bool: np.add.at (op 0) or np.multiply.at "
     "(op 1) of (outer, len(idx), inner) vals into out's (outer, size, inner) rows idx, in the index's order"},
    {"clamp_scalar", (PyCFunction)(void (*)(void))py_clamp_scalar, METH_FASTCALL,
     "clamp_scalar(x, out, lo, hi, which) -> bool: PyTorch's clamp of float32/float64 x by number bounds "
     "(which: 1 lo, 2 hi, 3 both; False: a NaN bound, other buffers or an overlap)"},
    {"fma32", (PyCFunction)(void (*)(void))py_fma32, METH_FASTCALL,
     "fma32(a, b, c, out) -> bool: out = a * b + c rounded once, float32 (False: an overlap, nothing written)"},
    {"cross3", (PyCFunction)(void (*)(void))py_cross3, METH_FASTCALL,
     "cross3(a, b, out[, inner]) -> bool: PyTorch's fused cross product of (outer, 3, inner) float32/float64 "
     "arrays, or of 1-D runs read as such blocks"},
    {"kron2", (PyCFunction)(void (*)(void))py_kron2, METH_FASTCALL,
     "kron2(a, b, out, m, n, p, q) -> bool: the Kronecker product of (m, n) and (p, q) float32/float64 buffers"},
    {"bmm_loop", (PyCFunction)(void (*)(void))py_bmm_loop, METH_FASTCALL,
     "bmm_loop(x, y, out, n, k, p) -> bool: PyTorch's small baddbmm loop over float32/float64 buffers"},
    {"fma64", (PyCFunction)(void (*)(void))py_fma64, METH_FASTCALL,
     "fma64(a, b, c, out) -> bool: out = fma(a, b, c), float64 (False: an overlap, nothing written)"},
#if defined(__GNUC__) && defined(__x86_64__)
    {"rows_logf_mismatches", py_rows_logf_mismatches, METH_O,
     "rows_logf_mismatches(x) -> int: how many float32 elements of x the sixteen-lane log of log_softmax's row sums "
     "answers with other bits than the one-at-a-time form (0 expected; -1: not used on this machine)"},
#endif
    {"bce_logits_run", (PyCFunction)(void (*)(void))py_bce_logits_run, METH_FASTCALL,
     "bce_logits_run(x, y, out) -> bool: binary_cross_entropy_with_logits' losses, (1 - y) * x - log_sigmoid(x) "
     "(False: not run)"},
    {"log_sigmoid_run", (PyCFunction)(void (*)(void))py_log_sigmoid_run, METH_FASTCALL,
     "log_sigmoid_run(x, out[, form]) -> bool: PyTorch's float32 / float64 log_sigmoid, SLEEF's exp and log1p (False: not run)"},
    {"softmax_rows", (PyCFunction)(void (*)(void))py_softmax_rows, METH_FASTCALL,
     "softmax_rows(x, out, n, log) -> bool: (log_)softmax of each row of n elements (False: an overlap)"},
    {"vander_rows", (PyCFunction)(void (*)(void))py_vander_rows, METH_FASTCALL,
     "vander_rows(x, out, n, increasing) -> bool: torch.vander's rows (running products in a double)"},
    {"scan", (PyCFunction)(void (*)(void))py_scan, METH_FASTCALL,
     "scan(x, out, n, inner, prod[, strict]) -> True or 2: cumsum (cumprod) along a dim, as NumPy computes it "
     "(2: a line ends in NaN, False with strict; False: not run)"},
    {"variance_rows", (PyCFunction)(void (*)(void))py_variance_rows, METH_FASTCALL,
     "variance_rows(x, var, mean, n, denominator, root) -> bool: var (std) and mean of each row, as NumPy "
     "computes them (False: not run)"},
    {"torch_welford_rows", (PyCFunction)(void (*)(void))py_torch_welford_rows, METH_FASTCALL,
     "torch_welford_rows(x, var, mean, n, divisor, root, inner=1) -> bool: PyTorch's Welford var (std) and mean of each "
     "row (False: an overlap)"},
    {"torch_squared_deviations", (PyCFunction)(void (*)(void))py_torch_squared_deviations, METH_FASTCALL,
     "torch_squared_deviations(x, slab, mean) -> float: PyTorch's std_var_all_cpu sum of squared deviations"},
    {"relu", (PyCFunction)(void (*)(void))py_relu, METH_FASTCALL,
     "relu(x, out) -> bool: max(x, 0) keeping -0.0 and NaN bits (False: an overlap)"},
    {"relu_fresh", py_relu_fresh, METH_O,
     "relu_fresh(x) -> array | None: relu into a fresh empty_like(x) for a C-contiguous aligned native float32 / "
     "float64 ndarray; None otherwise"},
    {"threshold_keep", (PyCFunction)(void (*)(void))py_threshold_keep, METH_FASTCALL,
     "threshold_keep(g, y, out) -> bool: g where y > 0 or NaN, +0.0 where y <= 0, g's bits (False: an overlap)"},
    {"torch_extreme", (PyCFunction)(void (*)(void))py_torch_extreme, METH_FASTCALL,
     "torch_extreme(x, y, out, is_max, row) -> bool: PyTorch's CPU maximum / minimum bits (ties of "
     "opposite zeros, NaNs) over pieces of row elements; False where the buffers do not fit"},
    {"torch_extreme_fresh", (PyCFunction)(void (*)(void))py_torch_extreme_fresh, METH_FASTCALL,
     "torch_extreme_fresh(x, y, is_max) -> array | None: torch_extreme of two 1-D arrays as one row into a "
     "fresh numpy.empty_like(x); None where the buffers do not fit"},
    {"binary_exact", (PyCFunction)(void (*)(void))py_binary_exact, METH_FASTCALL,
     "binary_exact(x, y, out, code) -> bool: PyTorch's fmax (code 0), fmin (1), heaviside (2), copysign (3), NaN "
     "bits included "
     "(False: not contiguous native float32/float64 buffers of one format, or an overlap)"},
    {"binary_exact_fresh", (PyCFunction)(void (*)(void))py_binary_exact_fresh, METH_FASTCALL,
     "binary_exact_fresh(x, y, code) -> array | None: binary_exact into a fresh numpy.empty_like(x); None where "
     "binary_exact answers False"},
    {"gcd_fresh", (PyCFunction)(void (*)(void))py_gcd_fresh, METH_FASTCALL,
     "gcd_fresh(x, y, lcm) -> array | None: PyTorch's gcd (lcm false) or lcm of two C-contiguous int8/uint8/int16/"
     "int32/int64 buffers of one format and length into a fresh numpy.empty_like(x), wrapping as C does (None: other "
     "buffers)"},
    {"div_rows", (PyCFunction)(void (*)(void))py_div_rows, METH_FASTCALL,
     "div_rows(x, d, out) -> bool: out = x / d.reshape(-1, 1) of flat float32/float64 buffers, NumPy's bits "
     "(False: not contiguous native buffers of one format, d's length not dividing x's, or an overlap)"},
    {"pair_loss", (PyCFunction)(void (*)(void))py_pair_loss, METH_FASTCALL,
     "pair_loss(x, y, out, code, param) -> bool: huber (code 0, delta), smooth_l1 (1, beta) or mse (2) per element, "
     "the NumPy fresh paths' bits (False: not contiguous native float32/float64 buffers of one format and length)"},
    {"unary_exact", (PyCFunction)(void (*)(void))py_unary_exact, METH_FASTCALL,
     "unary_exact(x, out, code, *params) -> bool: sign (code 0), nan_to_num (1: nan, posinf, neginf), leaky_relu "
     "(2: slope), rsqrt (3) or logit's quotient x / (1 - x) (4), NumPy's bits "
     "(False: not contiguous native float32/float64 buffers of one format and length, or an overlap)"},
    {"activation_inplace", (PyCFunction)(void (*)(void))py_activation_inplace, METH_FASTCALL,
     "activation_inplace(arr, start, n, code, param) -> bool | None: leaky_relu (code 0, slope param) written over "
     "arr[start:start + n] (True), or elu's (code 1) test that every element is > 0 (True: nothing to write; False: "
     "some is not) (None: not a 1-D contiguous aligned writable float32/float64 buffer holding the run)"},
    {"iota64_fill", (PyCFunction)(void (*)(void))py_iota64_fill, METH_FASTCALL,
     "iota64_fill(out, start, step) -> bool: start + i * step (int64, wrapping) into the int64 out"},
    {"torch_prod_cols", (PyCFunction)py_torch_prod_cols, METH_VARARGS,
     "torch_prod_cols(x, out, size, inner) -> bool: the product over the middle dim of (outer, size, inner)"},
    {"int64_bincount", (PyCFunction)py_int64_bincount, METH_VARARGS,
     "int64_bincount(x, minlength) -> (size, bytes or None): np.bincount of a C-contiguous int64 buffer"},
    {"ramp32_fill", (PyCFunction)py_ramp32_fill, METH_VARARGS,
     "ramp32_fill(start, end, step, out) -> bool: float32 linspace values (finite step, <= 2**24 steps) into out"},
    {"logspace_fill", (PyCFunction)(void (*)(void))py_logspace_fill, METH_FASTCALL,
     "logspace_fill(start, end, step, base, out) -> bool: PyTorch's CPU logspace into a float32/float64 out"},
    {"norm_p_rows", (PyCFunction)(void (*)(void))py_norm_p_rows, METH_FASTCALL,
     "norm_p_rows(x, p, out, chunks) -> bool: PyTorch's general-order vector norm of each row, float32/float64"},
    {"pow_base", (PyCFunction)(void (*)(void))py_pow_base, METH_FASTCALL,
     "pow_base(base, exps, out) -> bool: out = pow(base, exps), the C library's pow, float64 (False: an overlap)"},
    {"torch_kthvalue", (PyCFunction)(void (*)(void))py_torch_kthvalue, METH_FASTCALL,
     "torch_kthvalue(x, values, idx, n, k) -> bool: PyTorch's CPU kthvalue (its quickselect) of each row of n "
     "(False: an overlap)"},
    {"stable_median", (PyCFunction)(void (*)(void))py_stable_median, METH_FASTCALL,
     "stable_median(x, values, idx, n, inner, skip_nan) -> bool: the lower median of each line as a stable "
     "argsort reads it, NaN last (False: an overlap)"},
    {"stl_mode", (PyCFunction)(void (*)(void))py_stl_mode, METH_FASTCALL,
     "stl_mode(x, values, idx, n) -> bool: PyTorch's CPU mode of each row of n (False: an overlap)"},
    {"flat_median", (PyCFunction)(void (*)(void))py_flat_median, METH_FASTCALL,
     "flat_median(x, out) -> bool: the lower median of x into out[0] where no element is NaN and it is no zero"},
    {"stl_nth", (PyCFunction)(void (*)(void))py_stl_nth, METH_FASTCALL,
     "stl_nth(x, nth, comparator) -> int: the position std::nth_element leaves at nth (0: NaN largest, 2: plain <)"},
    {"stl_topk_exact", (PyCFunction)(void (*)(void))py_stl_topk_exact, METH_FASTCALL,
     "stl_topk_exact(x, idx, values, n, k, comparator) -> bool: per row of n, PyTorch's CPU topk's k positions and "
     "values, its steps (False: an overlap)"},
    {"stl_topk", (PyCFunction)(void (*)(void))py_stl_topk, METH_FASTCALL,
     "stl_topk(x, idx, values, n, k, comparator) -> bool: per row of n, the first k of stl_argsort's order and "
     "their keys, where the first k + 1 sorted keys are strictly monotone (False otherwise)"},
    {"stl_argsort", (PyCFunction)(void (*)(void))py_stl_argsort, METH_FASTCALL,
     "stl_argsort(x, idx, n, comparator) -> bool: per row of n, the positions in PyTorch's CPU sort order "
     "(GCC's std::sort; comparator 0 ascending, 1 descending, 2 plain <); values (optional): the sorted keys "
     "(False: an overlap)"},
    {"running_extreme", (PyCFunction)(void (*)(void))py_running_extreme, METH_FASTCALL,
     "running_extreme(x, values, indices, n, inner, is_max) -> bool: cummax (cummin) along a dim, PyTorch's "
     "kernel step for step (False: an overlap, nothing written)"},
    {"torch_special", (PyCFunction)(void (*)(void))py_torch_special, METH_FASTCALL,
     "torch_special(src, dst, which, n) -> bool: PyTorch's own i0 (which 0), i1 (1), i0e (2), i1e (3), digamma "
     "(4), trigamma (5), polygamma of order n >= 2 (6) in the buffers' type (False: formats differ, "
     "or an overlap; nothing written)"},
    {"binary_float", (PyCFunction)(void (*)(void))py_binary_float, METH_FASTCALL,
     "binary_float(x, y, out, code) -> bool: float32 fmod (code 0), remainder (1), floor_divide (2), hypot (3), "
     "NumPy's bits (False: not contiguous aligned native float32 buffers of one length, or an overlap)"},
    ENTRY(erf_float32), ENTRY(erfc_float32), ENTRY(lgamma_float32),
    {"lanes_form", py_lanes_form, METH_O,
     "lanes_form(form) -> int: float32 sinc, logspace, i0, i1 and digamma, -1 their AVX-512 forms where the CPU has "
     "them (the same bits), 0 the scalar loops (the previous form)"},
    {"erf_float32_form", py_erf_float32_form, METH_O,
     "erf_float32_form(form) -> int: erf_float32's and erfc_float32's form, -1 the AVX-512 one where the CPU has it, "
     "0 the blocked stages (the previous form)"},
    {"greater_copy_into", (PyCFunction)(void (*)(void))py_greater_copy_into, METH_FASTCALL,
     "greater_copy_into(x, y, t) -> bool: greater_copy(x, t, y), a front's argument order"},
    {"greater_copy", (PyCFunction)(void (*)(void))py_greater_copy, METH_FASTCALL,
     "greater_copy(x, t, y) -> bool: y = x where every x > t (False: some is not, or the buffers as greater_select's)"},
    {"greater_select", (PyCFunction)(void (*)(void))py_greater_select, METH_FASTCALL,
     "greater_select(x, t, y) -> bool: y = where(x > t, x, y) in place, one pass (False: not C-contiguous aligned "
     "float32/float64 buffers of one format and length, or an overlap)"},
    {"interleave", (PyCFunction)(void (*)(void))py_interleave, METH_FASTCALL,
     "interleave(x, y, out) -> bool: out's pairs (x[i], y[i]), bits moved (False: not C-contiguous aligned buffers "
     "of one itemsize 4 or 8 and out of twice their bytes, or an overlap)"},
    {"complex_mul_run", (PyCFunction)(void (*)(void))py_complex_mul_run, METH_FASTCALL,
     "complex_mul_run(x, y, out, piece, rule) -> bool: out = x * y over flat complex runs, PyTorch's forms per "
     "place (rule 0: two tensors, 1: y a number); False: other buffers, or an overlap"},
    {"complex_cumprod", (PyCFunction)(void (*)(void))py_complex_cumprod, METH_FASTCALL,
     "complex_cumprod(x, out, n) -> bool: PyTorch's running complex product (complex128, fused products) "
     "along rows of n elements"},
    {"complex_forms", (PyCFunction)(void (*)(void))py_complex_forms, METH_FASTCALL,
     "complex_forms(op, x, y, out, modes) -> bool: PyTorch's complex x / y (op 0), 1 / y (1), y * y (2), "
     "y * y * y (3), 1 / (y * y) (4), 1 / sqrt(y) (5) with each element's fma forms from modes (its bits)"},
    {"complex_pow", (PyCFunction)(void (*)(void))py_complex_pow, METH_FASTCALL,
     "complex_pow(x, y, out) -> bool: out = cpow(x, y), the C library's (PyTorch's std::pow of complex numbers), "
     "complex64/complex128, y of x's length or one element (False: other buffers, or an overlap)"},
    {"complex_sgn", (PyCFunction)(void (*)(void))py_complex_sgn, METH_FASTCALL,
     "complex_sgn(z, out) -> bool: z / |z| by parts (|z| the C library's hypot), 0 where |z| is 0, complex64/"
     "complex128 (False: not C-contiguous aligned buffers of one format and length, or an overlap)"},
    {"select_runs", (PyCFunction)(void (*)(void))py_select_runs, METH_FASTCALL,
     "select_runs(cond, x, y, out) -> bool: out = where(cond, x, y), bits moved, for a C-contiguous bool cond and "
     "C-contiguous aligned x, y, out of one format, itemsize 4 or 8 (False: other buffers or an overlap)"},
    {"xlogy_finish", (PyCFunction)(void (*)(void))py_xlogy_finish, METH_FASTCALL,
     "xlogy_finish(x, y, l) -> bool: l = 0 where x == 0 and y is not NaN, else x * l (NumPy's multiply's bits), "
     "float32/float64 (False: not C-contiguous aligned buffers of one format and length, l overlapping x or y, or "
     "an x and its log both NaN)"},
    {"polar_parts", (PyCFunction)(void (*)(void))py_polar_parts, METH_FASTCALL,
     "polar_parts(r, c, s, out) -> bool: out's pairs (r * c, r * s), NumPy's multiply's bits (False: not "
     "C-contiguous aligned float32/float64 buffers of one format and length and a complex out of twice their "
     "bytes, an overlap, or a product of two NaNs)"},
    {"outer_scale_add", (PyCFunction)(void (*)(void))py_outer_scale_add, METH_FASTCALL,
     "outer_scale_add(x, y, base, alpha, beta, out) -> bool: outer(x, y) * alpha + base * beta (None: skipped), "
     "each rounded, one pass (False: not C-contiguous aligned float32/float64 buffers of one format, or an overlap)"},
    {"addcmul_runs", (PyCFunction)(void (*)(void))py_addcmul_runs, METH_FASTCALL,
     "addcmul_runs(x, y1, y2, value, out) -> bool: fma(y1 * value, y2, x) (value None: 1), the product rounded, "
     "one pass (False: a partial overlap or a NaN value, nothing written)"},
    {"addcdiv_runs", (PyCFunction)(void (*)(void))py_addcdiv_runs, METH_FASTCALL,
     "addcdiv_runs(x, y1, y2, value, out) -> bool: x + (y1 * value) / y2 (value None: 1) in the buffers' type, one "
     "pass (False: not C-contiguous aligned float32/float64 buffers of one format and length, or a partial overlap)"},
    {"add_rows", (PyCFunction)(void (*)(void))py_add_rows, METH_FASTCALL,
     "add_rows(out, bias) -> bool: out[i, j] += bias[j] in place, NumPy's bits (False: not C-contiguous aligned "
     "float32/float64 buffers of one format, a length bias's does not divide, an overlap, or a NaN in bias)"},
    {"lerp_runs", (PyCFunction)(void (*)(void))py_lerp_runs, METH_FASTCALL,
     "lerp_runs(a, b, w, out) -> bool: lerp with a number weight, fused.lerp_into's roundings in one pass (False: "
     "not C-contiguous aligned float32/float64 buffers of one format and length, or a partial overlap)"},
    {"gather_nd", (PyCFunction)(void (*)(void))py_gather_nd, METH_FASTCALL,
     "gather_nd(x, start, strides, idx, out, shape, dim, size) -> int: out[e] = x[start + the other dims' "
     "strides + idx[e] * strides[dim]] in idx's row-major order (-1 done; the first position holding a value "
     "outside [0, size); -2 not taken, nothing written)"},
    {"scatter_nd", (PyCFunction)(void (*)(void))py_scatter_nd, METH_FASTCALL,
     "scatter_nd(x, start, strides, idx, vals, shape, dim, size, add) -> bool: vals written (add: added) at the "
     "storage positions gather_nd reads, in idx's row-major order (False: not taken, nothing written)"},
    {"tri_copy", (PyCFunction)(void (*)(void))py_tri_copy, METH_FASTCALL,
     "tri_copy(src, out, n, m, k, lower) -> bool: tril (lower) / triu of each (n, m) matrix row by row, kept "
     "columns copied from src (None: in place), the rest zero bytes (False: not taken, nothing written)"},
    {"tri_indices", (PyCFunction)(void (*)(void))py_tri_indices, METH_FASTCALL,
     "tri_indices(out, row, col, offset, lower) -> bool: tril_indices / triu_indices' (2, N) pairs into an int64 "
     "or int32 buffer (False: not such a buffer, or N is not the triangle's size)"},
    {"gelu", (PyCFunction)(void (*)(void))py_gelu, METH_FASTCALL,
     "gelu(src, dst) -> bool: (0.5 x) (1 + erf(x sqrt(1/2))) in double, rounded once: the ops layer's formula "
     "bit for bit, one pass (False: formats differ, nothing written)"},
    {"frac", (PyCFunction)(void (*)(void))py_frac, METH_FASTCALL,
     "frac(x, out) -> bool: out = x - trunc(x), float32/float64, one pass (False: not taken, nothing written)"},
    {"norm2", (PyCFunction)(void (*)(void))py_norm2, METH_FASTCALL,
     "norm2(x, out, n, inner, absolute) -> bool: the Euclidean norms along a dim of n (x as (outer, n, inner)), "
     "NumPy's |x| (absolute), square, add.reduce and sqrt operation for operation (False: an overlap)"},
    {"fill_value", (PyCFunction)(void (*)(void))py_fill_value, METH_FASTCALL,
     "fill_value(out, one) -> bool: every element of the C-contiguous out set to one's bytes (one element of "
     "out's itemsize 1, 2, 4, 8 or 16; False: another, nothing written)"},
    {"torch_prod_rows", (PyCFunction)(void (*)(void))py_torch_prod_rows, METH_FASTCALL,
     "torch_prod_rows(x, out, n[, strict]) -> bool: the product of each row of n, PyTorch's CPU reduction order (four "
     "vectors of 32 bytes, then the row's tail; False: an overlap, nothing written)"},
    {"complex64_abs", (PyCFunction)(void (*)(void))py_complex64_abs, METH_FASTCALL,
     "complex64_abs(z, out) -> bool: |z| of complex64 elements, the C library's hypotf (False: other buffers)"},
    {"float_range", (PyCFunction)(void (*)(void))py_float_range, METH_FASTCALL,
     "float_range(out, start, step) -> bool: PyTorch's CPU arange values into a float32/float64 buffer "
     "(False: another buffer; nothing written)"},
    {"complex_angle", (PyCFunction)(void (*)(void))py_complex_angle, METH_FASTCALL,
     "complex_angle(z, out) -> bool: out = atan2(imag, real) by the C library's atan2f / atan2 (complex64 / "
     "complex128 into float32 / float64; False: not C-contiguous aligned such buffers, or an overlap)"},
    {"logaddexp_float32", (PyCFunction)(void (*)(void))py_logaddexp_float32, METH_FASTCALL,
     "logaddexp_float32(x, y, out, base2[, form[, step]]) -> bool: NumPy's float32 logaddexp (logaddexp2 with base2) "
     "bit for bit, vectorized (form -1 the best here, 0 AVX2, 1 AVX-512; False: that form not used here, or out "
     "overlaps); step > 0: the default NaN at the first n - n % step elements (an AVX2 PyTorch's vector lanes)"},
    {"logaddexp_scan", (PyCFunction)(void (*)(void))py_logaddexp_scan, METH_FASTCALL,
     "logaddexp_scan(x, out, n, inner) -> bool: NumPy's logaddexp.accumulate along a dim, the first value x + 0 "
     "(False: an overlap)"},
    {"logaddexp_float64", (PyCFunction)(void (*)(void))py_logaddexp_float64, METH_FASTCALL,
     "logaddexp_float64(x, y, out, base2[, form]) -> bool: NumPy's float64 logaddexp (logaddexp2 with base2) bit for "
     "bit, AVX-512 only (form 0 answers False; False: not used here, or out overlaps)"},
    {"shifted_expf", (PyCFunction)(void (*)(void))py_shifted_expf, METH_FASTCALL,
     "shifted_expf(x, m, out) -> bool: out = expf(x - m), glibc's expf bit for bit, vectorized (False: not "
     "used on this machine, or an overlap; nothing written)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "strided.kernels._specialkernel",
    "The special functions of strided.kernels.special, compiled (see strided.kernels.native).", -1, methods,
};

PyMODINIT_FUNC PyInit__specialkernel(void)
{
    for (int i = 0; i < 30; i++) TI0A_F[i] = (float)I0A[i];
    for (int i = 0; i < 25; i++) TI0B_F[i] = (float)I0B[i];
    PyObject *m = PyModule_Create(&module);
    /* inplace: the in-place writes' entry (special_inplace), for kernels/_front.h's entry fronts */
    PyObject *cap = m != NULL ? PyCapsule_New((void *)special_inplace, "strided.inplace", NULL) : NULL;
    if (cap == NULL || PyModule_AddObject(m, "inplace", cap) < 0) {
        Py_XDECREF(cap);
        Py_XDECREF(m);
        return NULL;
    }
    return m;
}
