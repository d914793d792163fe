/* strided.kernels._sleefkernel: PyTorch's CPU sigmoid, silu and gelu of float32 (sigmoid and silu of float64 too: run_d), bit for bit; exp and tanh
 * of float32 as near PyTorch's (MKL's) as a port allows (the C library's expf, tanh rounded from double).
 *
 * PyTorch's sigmoid_kernel and silu_kernel (aten/src/ATen/native/cpu/UnaryOpsKernel.cpp,
 * Activation.cpp) are cpu_kernel_vec loops: a vectorized function over each inner row in steps of
 * 2 * Vectorized<float>::size() elements, the scalar function over the row's last (len % step)
 * elements, and the scalar function throughout a row that is not contiguous (the caller,
 * strided.kernels.sleef, finds those rows). The vectorized function calls Vectorized<float>::exp(),
 * which is SLEEF's Sleef_expf16_u10 under ATen's AVX512 capability (Sleef_expf8_u10 under AVX2:
 * the same algorithm per lane, sleefsimdsp.c's xexpf with every vmla a fused multiply-add); the
 * scalar function calls std::exp, the C library's expf. So:
 *   vectorized  sigmoid: 1 / (1 + (-x).exp())         silu: x / (1 + (-x).exp())
 *   scalar      sigmoid: 1 / (1 + expf(-x))           silu: x / (1 + expf(-x))
 * (each division IEEE's: Vectorized<float>::reciprocal and operator/ are _mm512_div_ps; a NaN x
 * gives x's NaN quieted with its sign flipped in sigmoid, measured on PyTorch 2.13 in both loops,
 * so its vectorized negation is a sign flip, not 0 - x, which keeps the sign).
 *
 * sleef_expf (_sleef_expf.h) is xexpf as one lane, sleef_expf16 sixteen. The AVX-512 form is used
 * where the CPU has AVX512F (checked at run time; the build needs no -march), the plain C form
 * (fmaf: the C library's where the build has no FMA instructions, exact either way) elsewhere;
 * both give the same bits, and the tests run both.
 *
 * run(x, out, op, run, chunk, step, form): x and out C-contiguous float32 buffers of one length n
 * (out may be x itself); op 0: SLEEF's expf alone, 1: sigmoid, 2: silu, 3: the C library's expf
 * (every element, vectorized where the check below passes: see libm_expf16_block), 4: tanh rounded
 * from double (every element: see tanh_lane), 5: gelu, GeluKernelImpl's two functions (see
 * torch_erf16), 6: gelu, oneDNN's gelu_erf (every element alike: see onednn_gelu16), 7: expm1, SLEEF's
 * expm1f in the vectorized function (Vectorized<float>::expm1(), _sleef_expm1.h), the C library's expm1f
 * in the scalar one (elu's loop; torch.expm1 is vec::map: step -1, every element SLEEF's), 8: elu at alpha 1 (x where
 * x > 0, else op 7's expm1), 9: selu (x * scale where x > 0, else op 7's expm1 * (alpha * scale)), 10: softplus, 11: exp
 * split as a cpu_kernel_vec loop splits it, 12: mish (SLEEF's exp, log1p and tanh, _sleef_tanh.h), 13: mish's
 * tanh(softplus(x)) alone (mish_backward's; mish_grad combines it), 16: log1p (torch.log1p: vec::map of
 * SLEEF's log1pf, step -1 or -2, or 0 under the default capability; see sleef_log1pf_pt), 19: gelu, oneDNN's
 * gelu_erf where the CPU lacks AVX-512 (every element alike: see onednn_gelu_as_lane). The flat range is cut into
 * pieces at every multiple of run and of chunk (chunk 0: none; run 0: n); in each piece the first
 * (len - len % step) elements take the vectorized function and the rest the scalar one; step 0:
 * every element the scalar function, step -1: every element the vectorized one (-2: the same, ATen's AVX2
 * lanes: float32 log1p's NaN words). form -1 picks
 * AVX-512 where the CPU has it, 0 the plain C form, 1 AVX-512 (False where the CPU lacks it).
 * Answers True once written, False (nothing written) where the form is unavailable.
 * capability() -> int: Vectorized<float>::size() under the capability ATen picks on this CPU
 * (16: AVX512F, BW, DQ and VL; 8: AVX2 and FMA; 0: neither, whose Vectorized<float>::exp is
 * std::exp lane by lane, the scalar function's bits). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>  /* strcasecmp */

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define HAVE_X86 1
#else
#define HAVE_X86 0
#endif

static float tanh_lane(float x);

#include "_sleef_expf.h"  /* sleef_expf, sleef_expf16 */
#include "_sleef_exp.h"  /* sleef_exp, sleef_exp8: the double ones */
#include "_sleef_expm1.h"  /* sleef_expm1f, sleef_expm1: Vectorized<float/double>::expm1() */
#include "_sleef_log.h"  /* sleef_logf_or_libm, sleef_log_or_libm and the double-float steps of log1p */
#define SLEEF_LOG1P_CORE_ONLY
#include "_sleef_log1p.h"  /* sleef_log1pf_core, sleef_log1p_core: Vectorized<float/double>::log1p() */
#include "_sleef_erf.h"  /* sleef_erf: Vectorized<double>::erf() */
#include "_sleef_tanh.h"  /* sleef_tanhf, sleef_tanh: Vectorized<float/double>::tanh() */
#include "_sleef_hyper.h"  /* sleef_sinhcoshf, sleef_atanhf: Vectorized<float>::sinh() / cosh() / atanh() */

/* ---- softplus (op 10): softplus_kernel's cpu_kernel_vec loop (aten/src/ATen/native/cpu/Activation.cpp)
 *   vectorized: blendv((a * beta).exp().log1p() / beta, a, (a * beta) > threshold)
 *   scalar:     (a * beta) > threshold ? a : std::log1p(std::exp(a * beta)) / beta
 * beta and threshold rounded to the element type (beta_.to<scalar_t>()); the vectorized exp and log1p
 * SLEEF's (u10), the scalar ones the C library's. SLEEF's xlog1pf / xlog1p take xlogf_u1 / xlog_u1
 * beyond 1e38 / 1e307 (sleef_logf_or_libm: +inf the C library's, the same answer); exp's result is
 * never below 0, so log1p's -1 and -0 cases are never met. A NaN (x, or x * beta as inf * 0): float32
 * gives the product's NaN (x quieted, its sign and payload kept) in both functions; float64's
 * vectorized function gives the positive default NaN (0x7ff8...: measured against torch 2.13 under
 * AVX512), its scalar one the product's. The parameters are per thread (the pass runs without the GIL):
 * run / run_d's optional 8th and 9th arguments set them for the call (default 1 and 20). */
#if defined(__GNUC__)
#define SP_TLS __thread
#else
#define SP_TLS
#endif
static SP_TLS float sp_beta_f = 1.0f, sp_thr_f = 20.0f;
static SP_TLS double sp_beta_d = 1.0, sp_thr_d = 20.0;

static int aten_avx2_lanes(void);

static SLEEF_AI float softplus_vec_f(float x)
{
    float b = sp_beta_f, xb = x * b;
    if (xb > sp_thr_f) return x;
    if (xb != xb) {  /* (AVX512's lanes keep x * beta's NaN; AVX2's give the default word, as float64's) */
        if (!aten_avx2_lanes()) return xb;
        uint32_t w = 0x7FC00000u;
        memcpy(&xb, &w, sizeof xb);
        return xb;
    }
    float e = sleef_expf(xb);
    return (e > 1e38f ? sleef_logf_or_libm(e) : sleef_log1pf_core(e)) / b;
}

static inline float softplus_scalar_f(float x)
{
    float b = sp_beta_f, xb = x * b;
    return xb > sp_thr_f ? x : log1pf(expf(xb)) / b;
}

static SLEEF_AI double softplus_vec_d(double x)
{
    double b = sp_beta_d, xb = x * b;
    if (xb > sp_thr_d) return x;
    if (xb != xb) {
        uint64_t w = 0x7ff8000000000000ull;
        double r;
        memcpy(&r, &w, sizeof r);
        return r;
    }
    double e = sleef_exp(xb);
    return (e > 1e307 ? sleef_log_or_libm(e) : sleef_log1p_core(e)) / b;
}

static inline double softplus_scalar_d(double x)
{
    double b = sp_beta_d, xb = x * b;
    return xb > sp_thr_d ? x : log1p(exp(xb)) / b;
}

/* the vectorized function over a block, one lane at a time (a CPU without AVX-512F), an FMA clone
 * where the CPU has FMA (log1p's fmaf / fma one instruction each instead of the C library's
 * software routine: the same bits) */
SLEEF_LOG_CLONES static void softplus_block_f(const float *x, float *o, Py_ssize_t m)
{
    for (Py_ssize_t i = 0; i < m; i++) o[i] = softplus_vec_f(x[i]);
}

SLEEF_LOG_CLONES static void softplus_block_d(const double *x, double *o, Py_ssize_t m)
{
    for (Py_ssize_t i = 0; i < m; i++) o[i] = softplus_vec_d(x[i]);
}

#if HAVE_X86
/* the same, sixteen float32 / eight float64 lanes at a time (the same bits: the one-lane steps are
 * these, tests/test_bits34.py compares both forms); the tail one masked vector. A lane whose exp is
 * beyond log1p's core (1e38 / 1e307, +inf) or NaN is redone by the one-lane function (rare: a large
 * threshold, a NaN). o may be x itself: each vector is read before it is written. */
__attribute__((target("avx512f"))) static __m512 softplus16(__m512 v, __mmask16 *odd)
{
    const __m512 b = _mm512_set1_ps(sp_beta_f);
    __m512 xb = _mm512_mul_ps(v, b);
    __m512 e = sleef_expf16(xb);
    *odd = _mm512_cmp_ps_mask(e, _mm512_set1_ps(1e38f), _CMP_NLE_UQ);  /* (> 1e38, or NaN) */
    __m512 r = _mm512_div_ps(sleef_log1pf16_unit(e), b);
    return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(xb, _mm512_set1_ps(sp_thr_f), _CMP_GT_OQ), v);
}

__attribute__((target("avx512f"))) static void softplus_block16(const float *x, float *o, Py_ssize_t m)
{
    for (Py_ssize_t i = 0; i < m; i += 16) {
        __mmask16 k = m - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (m - i)) - 1), odd;
        __m512 r = softplus16(_mm512_maskz_loadu_ps(k, x + i), &odd);
        odd &= k;
        float keep[16];
        if (odd) _mm512_storeu_ps(keep, _mm512_maskz_loadu_ps(k, x + i));
        _mm512_mask_storeu_ps(o + i, k, r);
        for (int j = 0; odd; j++, odd >>= 1)
            if (odd & 1) o[i + j] = softplus_vec_f(keep[j]);
    }
}

__attribute__((target("avx512f"))) static __m512d softplus8(__m512d v, __mmask8 *odd)
{
    const __m512d b = _mm512_set1_pd(sp_beta_d);
    __m512d xb = _mm512_mul_pd(v, b);
    __m512d e = sleef_exp8(xb);
    *odd = _mm512_cmp_pd_mask(e, _mm512_set1_pd(1e307), _CMP_NLE_UQ);
    __m512d r = _mm512_div_pd(sleef_log1p8_unit(e), b);
    return _mm512_mask_mov_pd(r, _mm512_cmp_pd_mask(xb, _mm512_set1_pd(sp_thr_d), _CMP_GT_OQ), v);
}

__attribute__((target("avx512f"))) static void softplus_block8(const double *x, double *o, Py_ssize_t m)
{
    for (Py_ssize_t i = 0; i < m; i += 8) {
        __mmask8 k = m - i >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (m - i)) - 1), odd;
        __m512d r = softplus8(_mm512_maskz_loadu_pd(k, x + i), &odd);
        odd &= k;
        double keep[8];
        if (odd) _mm512_storeu_pd(keep, _mm512_maskz_loadu_pd(k, x + i));
        _mm512_mask_storeu_pd(o + i, k, r);
        for (int j = 0; odd; j++, odd >>= 1)
            if (odd & 1) o[i + j] = softplus_vec_d(keep[j]);
    }
}


/* softplus16 / softplus_block16 in eight lanes (AVX2 with FMA): the same steps, the same bits; the
 * odd lanes (exp beyond 1e38 or NaN) and the last m % 8 elements by softplus_vec_f (its fmaf one
 * instruction here) */
__attribute__((target("avx2,fma"))) static void softplus_block8f(const float *x, float *o, Py_ssize_t m)
{
    const __m256 b = _mm256_set1_ps(sp_beta_f), thr = _mm256_set1_ps(sp_thr_f), big = _mm256_set1_ps(1e38f);
    Py_ssize_t i = 0;
    for (; i + 8 <= m; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i), xb = _mm256_mul_ps(v, b), e = sleef_expf8(xb);
        int odd = _mm256_movemask_ps(_mm256_cmp_ps(e, big, _CMP_NLE_UQ));  /* (> 1e38, or NaN) */
        __m256 r = _mm256_div_ps(sleef_log1pf8_unit(e), b);
        r = _mm256_blendv_ps(r, v, _mm256_cmp_ps(xb, thr, _CMP_GT_OQ));
        float keep[8];
        if (odd) _mm256_storeu_ps(keep, v);  /* (o may be x itself) */
        _mm256_storeu_ps(o + i, r);
        for (int j = 0; odd; j++, odd >>= 1)
            if (odd & 1) o[i + j] = softplus_vec_f(keep[j]);
    }
    for (; i < m; i++) o[i] = softplus_vec_f(x[i]);
}

/* softplus8 / softplus_block8 in four lanes (AVX2 with FMA, sleef_exp4 and sleef_log1p4_unit): the
 * same steps, the same bits; the odd lanes (exp beyond 1e307 or NaN) and the last m % 4 elements by
 * softplus_vec_d (its fma one instruction here) */
__attribute__((target("avx2,fma"))) static void softplus_block4d(const double *x, double *o, Py_ssize_t m)
{
    const __m256d b = _mm256_set1_pd(sp_beta_d), thr = _mm256_set1_pd(sp_thr_d), big = _mm256_set1_pd(1e307);
    Py_ssize_t i = 0;
    for (; i + 4 <= m; i += 4) {
        __m256d v = _mm256_loadu_pd(x + i), xb = _mm256_mul_pd(v, b), e = sleef_exp4(xb);
        int odd = _mm256_movemask_pd(_mm256_cmp_pd(e, big, _CMP_NLE_UQ));  /* (> 1e307, or NaN) */
        __m256d r = _mm256_div_pd(sleef_log1p4_unit(e), b);
        r = _mm256_blendv_pd(r, v, _mm256_cmp_pd(xb, thr, _CMP_GT_OQ));
        double keep[4];
        if (odd) _mm256_storeu_pd(keep, v);  /* (o may be x itself) */
        _mm256_storeu_pd(o + i, r);
        for (int j = 0; odd; j++, odd >>= 1)
            if (odd & 1) o[i + j] = softplus_vec_d(keep[j]);
    }
    for (; i < m; i++) o[i] = softplus_vec_d(x[i]);
}
#endif

/* ---- mish (op 12): mish_kernel's cpu_kernel_vec loop (aten/src/ATen/native/cpu/Activation.cpp)
 *   vectorized: x * x.exp().log1p().tanh()        scalar: x * std::tanh(std::log1p(std::exp(x)))
 * SLEEF's exp, log1p and tanh (u10) in the vectorized function (log1p beyond 1e38 / 1e307 its log, +inf
 * the C library's: softplus's), the C library's in the scalar one; no threshold. float16 / bfloat16
 * take the float32 functions (PyTorch converts each half of a Vectorized<Half> to float). A NaN x
 * gives x quieted in the scalar function and in the first Vectorized of each pair the vectorized loop
 * takes, but the all-ones word (SLEEF's tanh of a NaN) in the second (measured on torch 2.13 under
 * AVX512 and AVX2, float32 and float64: its compiled product takes the tanh as its first operand
 * there); mish_half is that Vectorized's length (step / 2, set per call by run_loop), the lanes
 * counted from the start of each vectorized run. */
static SP_TLS Py_ssize_t mish_half = 0;

static inline int mish_second(Py_ssize_t i) { return mish_half > 0 && (i / mish_half) & 1; }

static SLEEF_AI float mish_nan_f(float x, Py_ssize_t i)
{
    if (!mish_second(i)) return x + x;
    uint32_t b = 0xFFFFFFFFu;
    float r;
    memcpy(&r, &b, sizeof r);
    return r;
}

static SLEEF_AI double mish_nan_d(double x, Py_ssize_t i)
{
    if (!mish_second(i)) return x + x;
    uint64_t b = 0xFFFFFFFFFFFFFFFFull;
    double r;
    memcpy(&r, &b, sizeof r);
    return r;
}

static SLEEF_AI float mish_vec_f(float x, int tx)
{
    if (x != x) return x + x;
    float e = sleef_expf(x);
    float t = sleef_tanhf(e > 1e38f ? sleef_logf_or_libm(e) : sleef_log1pf_core(e));
    return tx ? x * t : t;
}

static SLEEF_AI double mish_vec_d(double x, int tx)
{
    if (x != x) return x + x;
    double e = sleef_exp(x);
    double t = sleef_tanh(e > 1e307 ? sleef_log_or_libm(e) : sleef_log1p_core(e));
    return tx ? x * t : t;
}

static inline float mish_scalar_f(float x, int tx)
{
    if (x != x) return x + x;
    float t = tanhf(log1pf(expf(x)));
    return tx ? x * t : t;
}

static inline double mish_scalar_d(double x, int tx)
{
    if (x != x) return x + x;
    double t = tanh(log1p(exp(x)));
    return tx ? x * t : t;
}

SLEEF_LOG_CLONES static void mish_block_f(const float *x, float *o, Py_ssize_t m, int tx)
{
    for (Py_ssize_t i = 0; i < m; i++) o[i] = x[i] != x[i] ? mish_nan_f(x[i], i) : mish_vec_f(x[i], tx);
}

SLEEF_LOG_CLONES static void mish_block_d(const double *x, double *o, Py_ssize_t m, int tx)
{
    for (Py_ssize_t i = 0; i < m; i++) o[i] = x[i] != x[i] ? mish_nan_d(x[i], i) : mish_vec_d(x[i], tx);
}

#if HAVE_X86
/* sixteen float32 / eight float64 lanes at a time, softplus_block16's shape: a lane whose exp is beyond
 * log1p's core (+inf, > 1e38 / 1e307) or NaN redone by the one-lane function */
__attribute__((target("avx512f"))) static void mish_block16(const float *x, float *o, Py_ssize_t m, int tx)
{
    for (Py_ssize_t i = 0; i < m; i += 16) {
        __mmask16 k = m - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (m - i)) - 1);
        __m512 v = _mm512_maskz_loadu_ps(k, x + i), e = sleef_expf16(v);
        __mmask16 odd = _mm512_cmp_ps_mask(e, _mm512_set1_ps(1e38f), _CMP_NLE_UQ) & k;
        __m512 r = sleef_tanhf16(sleef_log1pf16_unit(e));
        if (tx) r = _mm512_mul_ps(v, r);
        float keep[16];
        if (odd) _mm512_storeu_ps(keep, v);
        _mm512_mask_storeu_ps(o + i, k, r);
        for (int j = 0; odd; j++, odd >>= 1)
            if (odd & 1) o[i + j] = keep[j] != keep[j] ? mish_nan_f(keep[j], i + j) : mish_vec_f(keep[j], tx);
    }
}

/* mish_block16 in eight lanes (AVX2 with FMA): the same steps, the same bits; the odd lanes and the
 * last m % 8 elements one at a time (mish_block_f's lanes, their NaN by position too) */
__attribute__((target("avx2,fma"))) static void mish_block8f(const float *x, float *o, Py_ssize_t m, int tx)
{
    const __m256 big = _mm256_set1_ps(1e38f);
    Py_ssize_t i = 0;
    for (; i + 8 <= m; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i), e = sleef_expf8(v);
        int odd = _mm256_movemask_ps(_mm256_cmp_ps(e, big, _CMP_NLE_UQ));
        __m256 r = sleef_tanhf8(sleef_log1pf8_unit(e));
        if (tx) r = _mm256_mul_ps(v, r);
        float keep[8];
        if (odd) _mm256_storeu_ps(keep, v);
        _mm256_storeu_ps(o + i, r);
        for (int j = 0; odd; j++, odd >>= 1)
            if (odd & 1) o[i + j] = keep[j] != keep[j] ? mish_nan_f(keep[j], i + j) : mish_vec_f(keep[j], tx);
    }
    for (; i < m; i++) o[i] = x[i] != x[i] ? mish_nan_f(x[i], i) : mish_vec_f(x[i], tx);
}

__attribute__((target("avx512f"))) static void mish_block8(const double *x, double *o, Py_ssize_t m, int tx)
{
    for (Py_ssize_t i = 0; i < m; i += 8) {
        __mmask8 k = m - i >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (m - i)) - 1);
        __m512d v = _mm512_maskz_loadu_pd(k, x + i), e = sleef_exp8(v);
        __mmask8 odd = _mm512_cmp_pd_mask(e, _mm512_set1_pd(1e307), _CMP_NLE_UQ) & k;
        __m512d r = sleef_tanh8(sleef_log1p8_unit(e));
        if (tx) r = _mm512_mul_pd(v, r);
        double keep[8];
        if (odd) _mm512_storeu_pd(keep, v);
        _mm512_mask_storeu_pd(o + i, k, r);
        for (int j = 0; odd; j++, odd >>= 1)
            if (odd & 1) o[i + j] = keep[j] != keep[j] ? mish_nan_d(keep[j], i + j) : mish_vec_d(keep[j], tx);
    }
}
#endif

/* ---- gelu's tanh form of float64 (run_d's op 14): GeluKernelImpl's cpu_kernel_vec loop
 *   vectorized: 0.5 * x * (1 + (kBeta * (x + kKappa * x^3)).tanh())     scalar: the same with std::tanh
 * kBeta = M_SQRT2 * M_2_SQRTPI * 0.5, kKappa = 0.044715, x^3 = (x * x) * x; x + kKappa * x^3 one fused step
 * in both functions (measured on torch 2.13: its AVX512 / AVX2 builds contract it; op 15: its DEFAULT build,
 * one IEEE step each and std::tanh in every lane, for step 0), the vectorized tanh SLEEF's
 * (_sleef_tanh.h), the scalar one the C library's; a NaN x gives x quieted in both (measured). */
static SLEEF_AI double gelu_tanh_d(double x, int vec, int fused)
{
    const double beta = M_SQRT2 * M_2_SQRTPI * 0.5, kappa = 0.044715;
    if (x != x) return x + x;  /* (x quieted, in both functions: the product's first operand) */
    double cube = x * x * x, inner = beta * (fused ? fma(kappa, cube, x) : x + kappa * cube);
    return 0.5 * x * (1.0 + (vec ? sleef_tanh(inner) : tanh(inner)));
}

SLEEF_LOG_CLONES static void gelu_tanh_block_d(const double *x, double *o, Py_ssize_t m)
{
    for (Py_ssize_t i = 0; i < m; i++) o[i] = gelu_tanh_d(x[i], 1, 1);
}

/* ---- float64 gelu, the exact form (run_d's op 17): GeluKernelImpl's cpu_kernel_vec loop
 *   vectorized: x * 0.5 * (1 + (x * kAlpha).erf())     scalar: x * 0.5 * (1 + std::erf(x * kAlpha))
 * kAlpha = M_SQRT1_2; the vectorized erf SLEEF's xerf_u1 (_sleef_erf.h), the scalar one the C
 * library's; no step to fuse. A NaN x gives x quieted (measured on torch 2.13, both functions). Under ATen's DEFAULT capability Vectorized<double>::erf() is std::erf lane
 * by lane: the scalar function's bits (step 0). */
SLEEF_LOG_INLINE static double gelu_erf_d(double x, int vec)
{
    if (x != x) return x + x;  /* (x quieted, as measured in both functions; the compiler may order the
                                * product's operands either way, so not left to it) */
    double e = x * M_SQRT1_2;
    return x * 0.5 * (1.0 + (vec ? sleef_erf(e) : erf(e)));
}

SLEEF_LOG_CLONES static void gelu_erf_block_d(const double *x, double *o, Py_ssize_t m)
{
    for (Py_ssize_t i = 0; i < m; i++) o[i] = gelu_erf_d(x[i], 1);
}

#if HAVE_X86
__attribute__((target("avx512f"))) static void gelu_tanh_block8(const double *x, double *o, Py_ssize_t m)
{
    const __m512d beta = _mm512_set1_pd(M_SQRT2 * M_2_SQRTPI * 0.5), kappa = _mm512_set1_pd(0.044715);
    const __m512d half = _mm512_set1_pd(0.5), one = _mm512_set1_pd(1.0);
    for (Py_ssize_t i = 0; i < m; i += 8) {
        __mmask8 k = m - i >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (m - i)) - 1);
        __m512d v = _mm512_maskz_loadu_pd(k, x + i);
        __m512d inner = _mm512_mul_pd(beta, _mm512_fmadd_pd(kappa, _mm512_mul_pd(_mm512_mul_pd(v, v), v), v));
        __m512d r = _mm512_mul_pd(_mm512_mul_pd(half, v), _mm512_add_pd(one, sleef_tanh8(inner)));
        r = _mm512_mask_add_pd(r, _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q), v, v);
        _mm512_mask_storeu_pd(o + i, k, r);
    }
}
#endif

/* ---- gelu (op 5): GeluKernelImpl's exact form (aten/src/ATen/native/cpu/Activation.cpp)
 *   vectorized: x * 0.5 * (1 + (x * M_SQRT1_2).erf())     scalar: x * 0.5f * (1 + std::erf(x * M_SQRT1_2))
 * with the float constants (M_SQRT1_2 rounded to float), each product and sum one IEEE float step in
 * that order. Vectorized<float>::erf() (vec512_float.h, vec256_float.h: the same steps) is Abramowitz
 * and Stegun's 7.1.26, t = 1 / fma(p, |x|, 1), r = t's quartic by Horner in fused steps,
 * erf = sign(x) * fma(-exp(-x*x) * t, r, 1) with SLEEF's expf; std::erf is the C library's erff. */
#define GELU_ALPHA 0.70710678118654752440f
#define AS_P 0.3275911f
#define AS_P1 0.254829592f
#define AS_P2 -0.284496736f
#define AS_P3 1.421413741f
#define AS_P4 -1.453152027f
#define AS_P5 1.061405429f

/* ---- atan2 (run2): PyTorch's atan2_kernel (BinaryOpsKernel.cpp), a cpu_kernel_vec loop of
 * Vectorized<float>::atan2 = SLEEF's Sleef_atan2f16_u10 (sleefsimdsp.c's xatan2f_u1 over atan2kf_u1,
 * double-float arithmetic from df.h with ENABLE_FMA_SP: every vmla, vfma, vfmapn, vfmanp one fused
 * step) and std::atan2, the C library's atan2f, in its scalar loop. sleef_atan2f is one lane in plain C
 * (fmaf), sleef_atan2f16 sixteen (AVX-512F): the same steps, the same bits. */
typedef struct { float x, y; } sf2;

static inline uint32_t sf_u(float a)
{
    uint32_t b;
    memcpy(&b, &a, sizeof b);
    return b;
}

static inline float sf_f(uint32_t b)
{
    float a;
    memcpy(&a, &b, sizeof a);
    return a;
}

/* SLEEF's vmulsign: x with y's sign bit xored in */
static inline float sf_mulsign(float x, float y) { return sf_f(sf_u(x) ^ (sf_u(y) & 0x80000000u)); }

/* SLEEF's visinf2_vf_vf_vf(d, m): d infinite ? m with d's sign bit or-ed in : +0 */
static inline float sf_isinf2(float d, float m) { return isinf(d) ? sf_f((sf_u(d) & 0x80000000u) | sf_u(m)) : 0.0f; }

static SLEEF_AI float sleef_atan2f(float y, float x)
{
    if (fabsf(x) < 2.9387372783541830947e-39f) {
        x = x * 16777216.0f;
        y = y * 16777216.0f;
    }
    /* atan2kf_u1((|y|, 0), (x, 0)) */
    float yx = fabsf(y), yy = 0.0f, xx = x, xy = 0.0f;
    int q = xx < 0 ? -2 : 0;
    uint32_t rm = xx < 0 ? 0x80000000u : 0;
    xx = sf_f(sf_u(xx) ^ rm);
    xy = sf_f(sf_u(xy) ^ rm);
    int p = xx < yx;
    q = p ? q + 1 : q;
    sf2 s = p ? (sf2){-xx, -xy} : (sf2){yx, yy}, t = p ? (sf2){yx, yy} : (sf2){xx, xy};
    { /* dfdiv */
        float tr = 1.0f / t.x, sx = s.x * tr;
        float u = fmaf(tr, s.x, -sx);
        float v = fmaf(-t.y, tr, fmaf(-t.x, tr, 1.0f));
        s = (sf2){sx, fmaf(sx, v, fmaf(s.y, tr, u))};
    }
    { /* dfsqu, dfnormalize */
        float sq = s.x * s.x;
        t = (sf2){sq, fmaf(s.x + s.x, s.y, fmaf(s.x, s.x, -sq))};
        float n = t.x + t.y;
        t = (sf2){n, (t.x - n) + t.y};
    }
    float u = -0.00176397908944636583328247f;
    u = fmaf(u, t.x, 0.0107900900766253471374512f);
    u = fmaf(u, t.x, -0.0309564601629972457885742f);
    u = fmaf(u, t.x, 0.0577365085482597351074219f);
    u = fmaf(u, t.x, -0.0838950723409652709960938f);
    u = fmaf(u, t.x, 0.109463557600975036621094f);
    u = fmaf(u, t.x, -0.142626821994781494140625f);
    u = fmaf(u, t.x, 0.199983194470405578613281f);
    { /* t = dfmul(t, dfadd_vf2_vf_vf(-1/3, u * t.x)) */
        float a = -0.333332866430282592773438f, b = u * t.x, ab = a + b;
        sf2 w = {ab, (a - ab) + b};
        float m = t.x * w.x;
        t = (sf2){m, fmaf(t.x, w.y, fmaf(t.y, w.x, fmaf(t.x, w.x, -m)))};
    }
    { /* t = dfmul(s, dfadd_vf2_vf_vf2(1, t)) */
        float o = 1.0f + t.x;
        sf2 w = {o, ((1.0f - o) + t.x) + t.y};
        float m = s.x * w.x;
        t = (sf2){m, fmaf(s.x, w.y, fmaf(s.y, w.x, fmaf(s.x, w.x, -m)))};
    }
    { /* t = dfadd_vf2_vf2_vf2(dfmul_vf2_vf2_vf((pi/2 as two floats), q), t) */
        float qf = (float)q, ch = 1.5707963705062866211f, cl = -4.3711388286737928865e-08f;
        float mh = ch * qf, ml = fmaf(cl, qf, fmaf(ch, qf, -mh));
        float sx = mh + t.x;
        t = (sf2){sx, (((mh - sx) + t.x) + ml) + t.y};
    }
    float r = t.x + t.y;
    const float hpi = (float)(M_PI / 2), qpi = (float)(M_PI / 4);
    r = sf_mulsign(r, x);
    if (isinf(x) || x == 0) r = hpi - sf_isinf2(x, sf_mulsign(hpi, x));
    if (isinf(y)) r = hpi - sf_isinf2(x, sf_mulsign(qpi, x));
    if (y == 0) r = (sf_u(x) & 0x80000000u) ? (float)M_PI : 0.0f;
    if (isnan(x) || isnan(y)) return sf_f(0xffffffffu);
    return sf_mulsign(r, y);
}

/* ---- gelu of a contiguous float32 tensor (op 6): oneDNN's eltwise_gelu_erf, which PyTorch's gelu
 * calls instead of its own kernel where the input is contiguous float32 with more than one element
 * and oneDNN is on (Activation.cpp's use_mkldnn; torch.backends.mkldnn.enabled, the default), every
 * element alike (the JIT kernel's tail lanes run the same steps). On an AVX-512 CPU (avx512_core)
 * oneDNN's jit_uni_eltwise_injector evaluates gelu_erf_minimax_approx: erf(s / sqrt 2) as one of 25
 * quintic minimax polynomials in |s|, picked by |s|'s bits ((bits + 0xc21fffff) >> 21, arithmetic,
 * clamped to 1..24; past 0x40b15cee (5.5425): 23, whose polynomial is 1), Horner in fused steps, the
 * sign of s xored in, then (s * (1 + erf)) * 0.5. */
static const uint32_t ONEDNN_GELU_POL[6][32] = {  /* [degree][interval]: 25 intervals, padded to 32 */
    {0xa6f2cb94, 0x32827792, 0x3381cc0c, 0x34523d4a, 0x351ac44d, 0x35f36d88, 0x36ee8229, 0x37b8a3bb,
     0x3867a213, 0x3940033b, 0x3a2a5a1d, 0x3ae35863, 0x3b7828f2, 0x3c08b14b, 0x3c515ed3, 0xbb503236,
     0xbd8d8e5e, 0xbe8abcd9, 0xbf0c19a2, 0xbeccb328, 0x3e176ced, 0x3f470d99, 0x3f7abb28, 0x3f800000,
     0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x3f4c422a, 0x3f4c421f, 0x3f4c4207, 0x3f4c41cb, 0x3f4c413b, 0x3f4c3fad, 0x3f4c3a2f, 0x3f4c2d40,
     0x3f4c146a, 0x3f4bc341, 0x3f4ad08c, 0x3f48f8cf, 0x3f45fac7, 0x3f404e07, 0x3f3b980f, 0x3f48dff3,
     0x3f78b21b, 0x3fbb0704, 0x40019c32, 0x3fe536d6, 0x3f81331e, 0x3e6c8684, 0x3c98f936, 0x00000000,
     0x3f800000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0xb62173f4, 0x3735e4cf, 0x37f2ff89, 0x388c23be, 0x3917535c, 0x39ab2ab0, 0x3a60fadb, 0x3af9b960,
     0x3b6e5491, 0x3c0a4ec5, 0x3ca5aa8c, 0x3d2138d9, 0x3d8737d4, 0x3ddfb660, 0x3e0f27ab, 0x3d94004b,
     0xbe0efdeb, 0xbf1d96c3, 0xbf89db58, 0xbf6d9897, 0xbef69fb8, 0xbdc4f8a8, 0xbbde6422, 0x00000000,
     0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0xbe081a19, 0xbe084570, 0xbe08639b, 0xbe089837, 0xbe08f409, 0xbe09ab95, 0xbe0b66d0, 0xbe0e400a,
     0xbe124df8, 0xbe1bde02, 0xbe2f19c9, 0xbe4931bf, 0xbe685fbc, 0xbe89c95f, 0xbe96cbca, 0xbe8044aa,
     0xbe0550f2, 0x3dcfd6a1, 0x3e94c826, 0x3e79345f, 0x3decec91, 0x3ca46568, 0x3aa1e00a, 0x00000000,
     0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0xba3d61db, 0x39f097a3, 0x3a5845dc, 0x3ab1fa35, 0x3b0cefb8, 0x3b653ab6, 0x3bcae527, 0x3c221712,
     0x3c6c5840, 0x3cc0a703, 0x3d1dcc19, 0x3d63656d, 0x3d955907, 0x3dbf9910, 0x3dd53f69, 0x3db7dcef,
     0x3d639ebe, 0xba6ede48, 0xbd22be69, 0xbd041cf1, 0xbc64f5ab, 0xbb097a32, 0xb8ebf380, 0x00000000,
     0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x3cb7d80c, 0x3c9b6050, 0x3c978d11, 0x3c92e850, 0x3c8d058b, 0x3c848454, 0x3c6cd623, 0x3c4c824b,
     0x3c2a7935, 0x3be0b390, 0x3b0651ac, 0xbb232f53, 0xbbd42fa0, 0xbc2c5366, 0xbc492c9e, 0xbc2a7aa6,
     0xbbd55d04, 0xba823a76, 0x3b102aa8, 0x3ae25a7e, 0x3a31f792, 0x38b84375, 0x3689bb5a, 0x00000000,
     0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000}};
#define ONEDNN_GELU_BIAS 0xc21fffffu
#define ONEDNN_GELU_RBOUND 0x1.62b9dcp+2f /* (0x40b15cee) */

static SLEEF_AI float onednn_gelu_lane(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    uint32_t ab = b & 0x7fffffffu;
    float a;
    memcpy(&a, &ab, sizeof a);
    int32_t idx = (int32_t)(ab + ONEDNN_GELU_BIAS) >> 21;
    if (idx < 1) idx = 1;
    if (idx > 24) idx = 24;
    if (ONEDNN_GELU_RBOUND < a) idx = 23;
    float c[6];
    for (int d = 0; d < 6; d++) memcpy(&c[d], &ONEDNN_GELU_POL[d][idx], sizeof(float));
    float p = c[5];
    for (int d = 4; d >= 0; d--) p = fmaf(p, a, c[d]);
    uint32_t pb;
    memcpy(&pb, &p, sizeof pb);
    pb ^= b & 0x80000000u;
    memcpy(&p, &pb, sizeof p);
    return x * (p + 1.0f) * 0.5f;
}

/* oneDNN's gelu_erf where the CPU lacks AVX-512 (run's op 19): jit_uni_eltwise_injector's avx2 form,
 * Abramowitz and Stegun's 7.1.26 with oneDNN's own exp (exp_compute_vector_fwd), one lane, each step the
 * JIT's instruction (vminps / vmaxps: the constant where x is NaN; every vfmadd one fmaf); torch's
 * gelu of a contiguous float32 input of more than one element on an AVX2 CPU (measured on an AMD
 * EPYC, torch 2.13: every element alike). The constants are the table's words. */
static inline float f32_of(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static float onednn_exp_lane(float x)
{
    const float lo = f32_of(0xc2aeac50u), hi = f32_of(0x42b17218u);  /* ln FLT_MIN, ln FLT_MAX */
    int zero = x < lo;                     /* (below ln FLT_MIN: 2^(n-1) zeroed) */
    float s = x < hi ? x : hi;             /* vminps(x, hi), then vmaxps(., lo) */
    s = s > lo ? s : lo;
    float fx = floorf(s * f32_of(0x3fb8aa3bu) + 0.5f);  /* (two roundings: vmulps, vaddps) */
    float r = fmaf(-fx, f32_of(0x3f317218u), s);
    uint32_t e = (uint32_t)((int32_t)(fx - 1.0f) + 127) << 23;
    float p2 = zero ? 0.0f : f32_of(e);
    float y = f32_of(0x3c07cfceu);
    y = fmaf(y, r, f32_of(0x3d2b9d0du));
    y = fmaf(y, r, f32_of(0x3e2aad40u));
    y = fmaf(y, r, f32_of(0x3efffee3u));
    y = fmaf(y, r, f32_of(0x3f7ffffbu));
    y = fmaf(y, r, 1.0f);
    return y * p2 * 2.0f;
}

static float onednn_gelu_as_lane(float s)
{
    float x = s * f32_of(0x3f3504f3u);  /* s / sqrt 2 */
    float t = 1.0f / fmaf(f32_of(0x3ea7ba05u), fabsf(x), 1.0f);
    float q = -onednn_exp_lane(-(x * x)) * t;
    float r = f32_of(0x3f87dc22u);
    r = fmaf(r, t, f32_of(0xbfba00e3u));
    r = fmaf(r, t, f32_of(0x3fb5f0e3u));
    r = fmaf(r, t, f32_of(0xbe91a98eu));
    r = fmaf(r, t, f32_of(0x3e827906u));
    uint32_t b, sb;
    float erf = fmaf(q, r, 1.0f);
    memcpy(&b, &erf, sizeof b);
    memcpy(&sb, &s, sizeof sb);
    b ^= sb & 0x80000000u;  /* (vxorps with s's sign: a NaN's sign flipped alike) */
    erf = f32_of(b);
    float half = s * 0.5f;
    return fmaf(erf, half, half);  /* S + S * erf */
}

/* Vectorized<float>::erf(), one lane */
static SLEEF_AI float torch_erf_lane(float x)
{
    float a = fabsf(x);
    float t = 1.0f / fmaf(AS_P, a, 1.0f);
    float r = fmaf(fmaf(fmaf(fmaf(AS_P5, t, AS_P4), t, AS_P3), t, AS_P2), t, AS_P1);
    float e = -sleef_expf(-(x * x));
    float y = fmaf(e * t, r, 1.0f);
    return signbit(x) ? -y : y;  /* (the sign bit xored in: a NaN y keeps x's sign flip as the lanes do) */
}

/* selu's coefficients as PyTorch's elu kernel takes them (op 9): poscoef = scale and negcoef = alpha *
 * scale, each rounded to the dtype first and their product made in it (constant expressions: the
 * same IEEE product, FLT_EVAL_METHOD 0) */
#define SELU_ALPHA_C 1.6732632423543772848170429916717
#define SELU_SCALE_C 1.0507009873554804934193349852946
static const float SELU_POS_F = (float)SELU_SCALE_C, SELU_NEG_F = (float)SELU_ALPHA_C * (float)SELU_SCALE_C;
static const double SELU_POS_D = SELU_SCALE_C, SELU_NEG_D = SELU_ALPHA_C * SELU_SCALE_C;

/* ---- float32 log1p (run's op 16): ATen's log1p of float is vml's vec::map of
 * Vectorized<float>::log1p() (SLEEF's xlog1pf, u10), every element alike, a row's tail too (as
 * float64's op 16 below). Special values as measured on torch 2.13: x < -1 (-inf too) gives the
 * all-ones word (xlog1pf's or-ed mask), -1 -inf, +-0 itself, beyond 1e38 SLEEF's log (+inf +inf),
 * a NaN x quieted under AVX512 but the default NaN 0x7FC00000 under AVX2 (log1p_avx2: run's step -2,
 * set per call by run_loop); ATen's DEFAULT capability std::log1p (the scalar function, log1pf). */
static SP_TLS int log1p_avx2 = 0;

SLEEF_LOG_INLINE static float sleef_log1pf_pt(float d)
{
    if (d > -1.0f && d <= 1e38f) return d == 0.0f ? d : sleef_log1pf_core(d);
    if (d > 1e38f) return sleef_logf_or_libm(d);
    if (d == -1.0f) return -INFINITY;
    if (d != d && !log1p_avx2) return d + d;  /* (x quieted: its own sign and payload) */
    uint32_t b = d != d ? 0x7FC00000u : 0xFFFFFFFFu;
    float r;
    memcpy(&r, &b, sizeof r);
    return r;
}

/* op 16's lanes one at a time (the FMA clone: the core's fmaf one instruction each; the same bits) */
SLEEF_LOG_CLONES static void log1p_block_f(const float *x, float *o, Py_ssize_t m)
{
    for (Py_ssize_t i = 0; i < m; i++) o[i] = sleef_log1pf_pt(x[i]);
}

#if HAVE_X86
/* sixteen lanes by the AVX-512 core (sleef_log1pf16_unit: the one-lane core's steps, any d in
 * (-1, 1e38]); a lane outside that range, or +-0, is redone by sleef_log1pf_pt (rare: the same bits) */
__attribute__((target("avx512f"))) static void log1p_block16_f(const float *x, float *o, Py_ssize_t m)
{
    Py_ssize_t i = 0;
    const __m512 lo = _mm512_set1_ps(-1.0f), hi = _mm512_set1_ps(1e38f), zero = _mm512_setzero_ps();
    for (; i + 16 <= m; i += 16) {
        __m512 d = _mm512_loadu_ps(x + i);
        __mmask16 ok = _mm512_cmp_ps_mask(d, lo, _CMP_GT_OQ) & _mm512_cmp_ps_mask(d, hi, _CMP_LE_OQ)
                       & _mm512_cmp_ps_mask(d, zero, _CMP_NEQ_OQ);
        __m512 r = sleef_log1pf16_unit(_mm512_mask_mov_ps(zero, ok, d));
        if (ok != 0xFFFF) {  /* (from copies of the lanes: o may be x itself, in place) */
            float dv[16], rv[16];
            _mm512_storeu_ps(dv, d);
            _mm512_storeu_ps(rv, r);
            for (int j = 0; j < 16; j++)
                if (!(ok >> j & 1)) rv[j] = sleef_log1pf_pt(dv[j]);
            r = _mm512_loadu_ps(rv);
        }
        _mm512_storeu_ps(o + i, r);
    }
    for (; i < m; i++) o[i] = sleef_log1pf_pt(x[i]);
}

/* log1p_block16_f in eight lanes (AVX2 with FMA, sleef_log1pf8_unit): the same bits */
__attribute__((target("avx2,fma"))) static void log1p_block8_f(const float *x, float *o, Py_ssize_t m)
{
    Py_ssize_t i = 0;
    const __m256 lo = _mm256_set1_ps(-1.0f), hi = _mm256_set1_ps(1e38f), zero = _mm256_setzero_ps();
    for (; i + 8 <= m; i += 8) {
        __m256 d = _mm256_loadu_ps(x + i);
        __m256 okv = _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(d, lo, _CMP_GT_OQ), _mm256_cmp_ps(d, hi, _CMP_LE_OQ)),
                                   _mm256_cmp_ps(d, zero, _CMP_NEQ_OQ));
        int ok = _mm256_movemask_ps(okv);
        __m256 r = sleef_log1pf8_unit(_mm256_and_ps(okv, d));
        if (ok != 0xFF) {  /* (from copies of the lanes: o may be x itself, in place) */
            float dv[8], rv[8];
            _mm256_storeu_ps(dv, d);
            _mm256_storeu_ps(rv, r);
            for (int j = 0; j < 8; j++)
                if (!(ok >> j & 1)) rv[j] = sleef_log1pf_pt(dv[j]);
            r = _mm256_loadu_ps(rv);
        }
        _mm256_storeu_ps(o + i, r);
    }
    for (; i < m; i++) o[i] = sleef_log1pf_pt(x[i]);
}
#endif

static SLEEF_AI float vec_lane(float x, int op)
{
    if (op == 1) return 1.0f / (1.0f + sleef_expf(-x));
    if (op == 2) return x / (1.0f + sleef_expf(-x));
    if (op == 3) return expf(x);
    if (op == 4) return tanh_lane(x);
    if (op == 5) return x != x ? x + x : x * 0.5f * (1.0f + torch_erf_lane(x * GELU_ALPHA));  /* (NaN: x quieted, as the lanes) */
    if (op == 6) return onednn_gelu_lane(x);
    if (op == 19) return onednn_gelu_as_lane(x);
    if (op == 7) return sleef_expm1f(x);
    if (op == 8) return x > 0.0f ? x : sleef_expm1f(x);
    if (op == 9) return x > 0.0f ? x * SELU_POS_F : sleef_expm1f(x) * SELU_NEG_F;
    if (op == 10) return softplus_vec_f(x);
    if (op == 12 || op == 13) return mish_vec_f(x, op == 12);
    if (op == 16) return sleef_log1pf_pt(x);
    if (op == 20 || op == 21) return sleef_sinhcoshf(x, op == 20);
    if (op == 22) return sleef_atanhf(x);
    return sleef_expf(x);
}

static inline float scalar_lane(float x, int op)
{
    if (op == 1) return 1.0f / (1.0f + expf(-x));
    if (op == 2) return x / (1.0f + expf(-x));
    if (op == 3) return expf(x);
    if (op == 4) return tanh_lane(x);
    if (op == 5) return x * 0.5f * (1.0f + erff(x * GELU_ALPHA));
    if (op == 6) return onednn_gelu_lane(x);
    if (op == 19) return onednn_gelu_as_lane(x);
    if (op == 7) return expm1f(x);
    if (op == 8) return x > 0.0f ? x : expm1f(x);  /* (elu at alpha 1: NaN and +-0 take expm1, as greater_select sends them) */
    if (op == 9) return x > 0.0f ? x * SELU_POS_F : expm1f(x) * SELU_NEG_F;
    if (op == 10) return softplus_scalar_f(x);
    if (op == 11) return expf(x);  /* (EXP_SPLIT: std::exp in the scalar function) */
    if (op == 12 || op == 13) return mish_scalar_f(x, op == 12);
    if (op == 16) return log1pf(x);
    if (op == 18) return exp2f(x);  /* (exp2: std::exp2 in the scalar function) */
    if (op == 20) return sinhf(x);  /* (sinh, cosh, atanh: std::sinh ... in the scalar function) */
    if (op == 21) return coshf(x);
    if (op == 22) return atanhf(x);
    return sleef_expf(x);  /* (op 0 has no scalar function of PyTorch's: SLEEF's throughout) */
}

#if HAVE_X86
/* Vectorized<float>::erf(), sixteen lanes (vec512_float.h's steps) */
__attribute__((target("avx512f"))) static __m512 torch_erf16(__m512 x)
{
    const __m512i sign = _mm512_set1_epi32(INT32_MIN);
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512i sgn = _mm512_and_si512(sign, _mm512_castps_si512(x));
    __m512 a = _mm512_abs_ps(x);
    __m512 t = _mm512_div_ps(one, _mm512_fmadd_ps(_mm512_set1_ps(AS_P), a, one));
    __m512 r = _mm512_fmadd_ps(_mm512_set1_ps(AS_P5), t, _mm512_set1_ps(AS_P4));
    r = _mm512_fmadd_ps(r, t, _mm512_set1_ps(AS_P3));
    r = _mm512_fmadd_ps(r, t, _mm512_set1_ps(AS_P2));
    r = _mm512_fmadd_ps(r, t, _mm512_set1_ps(AS_P1));
    __m512 nx2 = _mm512_castsi512_ps(_mm512_xor_si512(sign, _mm512_castps_si512(_mm512_mul_ps(x, x))));
    __m512 e = _mm512_castsi512_ps(_mm512_xor_si512(sign, _mm512_castps_si512(sleef_expf16(nx2))));
    __m512 y = _mm512_fmadd_ps(_mm512_mul_ps(e, t), r, one);
    return _mm512_castsi512_ps(_mm512_xor_si512(sgn, _mm512_castps_si512(y)));
}

/* Vectorized<float>::erf(), eight lanes (AVX2 with FMA): torch_erf16's steps, the same bits */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256 torch_erf8(__m256 x)
{
    const __m256 sign = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
    __m256 sgn = _mm256_and_ps(sign, x);
    __m256 a = _mm256_andnot_ps(sign, x);
    __m256 t = _mm256_div_ps(one, _mm256_fmadd_ps(_mm256_set1_ps(AS_P), a, one));
    __m256 r = _mm256_fmadd_ps(_mm256_set1_ps(AS_P5), t, _mm256_set1_ps(AS_P4));
    r = _mm256_fmadd_ps(r, t, _mm256_set1_ps(AS_P3));
    r = _mm256_fmadd_ps(r, t, _mm256_set1_ps(AS_P2));
    r = _mm256_fmadd_ps(r, t, _mm256_set1_ps(AS_P1));
    __m256 nx2 = _mm256_xor_ps(sign, _mm256_mul_ps(x, x));
    __m256 e = _mm256_xor_ps(sign, sleef_expf8(nx2));
    __m256 y = _mm256_fmadd_ps(_mm256_mul_ps(e, t), r, one);
    return _mm256_xor_ps(sgn, y);
}

/* gelu's vectorized function (op 5), eight lanes: vec16's op 5 steps; a NaN x gives x quieted (x + x),
 * as vec_lane's op 5 (blended: the product's NaN operand is then not left to the compiler's order) */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256 torch_gelu8(__m256 x)
{
    __m256 h = _mm256_mul_ps(x, _mm256_set1_ps(0.5f));
    __m256 y = _mm256_mul_ps(h, _mm256_add_ps(_mm256_set1_ps(1.0f), torch_erf8(_mm256_mul_ps(x, _mm256_set1_ps(GELU_ALPHA)))));
    return _mm256_blendv_ps(y, _mm256_add_ps(x, x), _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

/* onednn_exp_lane, eight lanes (vminps / vmaxps as the lane's selections: the bound where x is NaN) */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256 onednn_exp8(__m256 x)
{
#define ONEDNN_C8(w) _mm256_castsi256_ps(_mm256_set1_epi32((int)(w)))
    const __m256 lo = ONEDNN_C8(0xc2aeac50u), hi = ONEDNN_C8(0x42b17218u), one = _mm256_set1_ps(1.0f);
    __m256 zero = _mm256_cmp_ps(x, lo, _CMP_LT_OQ);
    __m256 s = _mm256_max_ps(_mm256_min_ps(x, hi), lo);
    __m256 fx = _mm256_floor_ps(_mm256_add_ps(_mm256_mul_ps(s, ONEDNN_C8(0x3fb8aa3bu)), _mm256_set1_ps(0.5f)));
    __m256 r = _mm256_fnmadd_ps(fx, ONEDNN_C8(0x3f317218u), s);
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(_mm256_sub_ps(fx, one)), _mm256_set1_epi32(127)), 23);
    __m256 p2 = _mm256_andnot_ps(zero, _mm256_castsi256_ps(e));
    __m256 y = ONEDNN_C8(0x3c07cfceu);
    y = _mm256_fmadd_ps(y, r, ONEDNN_C8(0x3d2b9d0du));
    y = _mm256_fmadd_ps(y, r, ONEDNN_C8(0x3e2aad40u));
    y = _mm256_fmadd_ps(y, r, ONEDNN_C8(0x3efffee3u));
    y = _mm256_fmadd_ps(y, r, ONEDNN_C8(0x3f7ffffbu));
    y = _mm256_fmadd_ps(y, r, one);
    return _mm256_mul_ps(_mm256_mul_ps(y, p2), _mm256_set1_ps(2.0f));
}

/* onednn_gelu_as_lane, eight lanes (op 19: the JIT's avx2 form is this width; the same bits as the lane) */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256 onednn_gelu_as8(__m256 s)
{
    const __m256 sign = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
    __m256 x = _mm256_mul_ps(s, ONEDNN_C8(0x3f3504f3u));
    __m256 t = _mm256_div_ps(one, _mm256_fmadd_ps(ONEDNN_C8(0x3ea7ba05u), _mm256_andnot_ps(sign, x), one));
    __m256 q = _mm256_mul_ps(_mm256_xor_ps(sign, onednn_exp8(_mm256_xor_ps(sign, _mm256_mul_ps(x, x)))), t);
    __m256 r = ONEDNN_C8(0x3f87dc22u);
    r = _mm256_fmadd_ps(r, t, ONEDNN_C8(0xbfba00e3u));
    r = _mm256_fmadd_ps(r, t, ONEDNN_C8(0x3fb5f0e3u));
    r = _mm256_fmadd_ps(r, t, ONEDNN_C8(0xbe91a98eu));
    r = _mm256_fmadd_ps(r, t, ONEDNN_C8(0x3e827906u));
    __m256 erf = _mm256_xor_ps(_mm256_fmadd_ps(q, r, one), _mm256_and_ps(sign, s));
    __m256 half = _mm256_mul_ps(s, _mm256_set1_ps(0.5f));
    return _mm256_fmadd_ps(erf, half, half);
#undef ONEDNN_C8
}

/* op 19 over x[0..m): two vectors an iteration (independent chains), the last m % 8 elements by the lane */
__attribute__((target("avx2,fma"))) static void onednn_gelu_as_block8(const float *x, float *o, Py_ssize_t m)
{
    Py_ssize_t i = 0;
    for (; i + 16 <= m; i += 16) {
        __m256 u = onednn_gelu_as8(_mm256_loadu_ps(x + i)), v = onednn_gelu_as8(_mm256_loadu_ps(x + i + 8));
        _mm256_storeu_ps(o + i, u);
        _mm256_storeu_ps(o + i + 8, v);
    }
    for (; i + 8 <= m; i += 8) _mm256_storeu_ps(o + i, onednn_gelu_as8(_mm256_loadu_ps(x + i)));
    for (; i < m; i++) o[i] = onednn_gelu_as_lane(x[i]);
}

/* sleef_atan2f, sixteen lanes (xatan2f_u1's steps as Sleef_atan2f16_u10 runs them) */
__attribute__((target("avx512f"), always_inline)) static inline __m512 sleef_atan2f16(__m512 y, __m512 x)
{
    const __m512i sgn = _mm512_set1_epi32(INT32_MIN);
    const __m512 one = _mm512_set1_ps(1.0f), zero = _mm512_setzero_ps();
#define F2I(v) _mm512_castps_si512(v)
#define I2F(v) _mm512_castsi512_ps(v)
#define MULSIGN(a, b) I2F(_mm512_xor_si512(F2I(a), _mm512_and_si512(F2I(b), sgn)))
    __mmask16 o = _mm512_cmp_ps_mask(_mm512_abs_ps(x), _mm512_set1_ps(2.9387372783541830947e-39f), _CMP_LT_OQ);
    x = _mm512_mask_mul_ps(x, o, x, _mm512_set1_ps(16777216.0f));
    y = _mm512_mask_mul_ps(y, o, y, _mm512_set1_ps(16777216.0f));
    __m512 yx = _mm512_abs_ps(y), yy = zero, xx = x, xy = zero;
    __mmask16 neg = _mm512_cmp_ps_mask(xx, zero, _CMP_LT_OQ);
    __m512i q = _mm512_maskz_mov_epi32(neg, _mm512_set1_epi32(-2));
    __m512i rm = _mm512_maskz_mov_epi32(neg, sgn);
    xx = I2F(_mm512_xor_si512(F2I(xx), rm));
    xy = I2F(_mm512_xor_si512(F2I(xy), rm));
    __mmask16 p = _mm512_cmp_ps_mask(xx, yx, _CMP_LT_OQ);
    q = _mm512_mask_add_epi32(q, p, q, _mm512_set1_epi32(1));
    __m512 nxx = I2F(_mm512_xor_si512(F2I(xx), sgn)), nxy = I2F(_mm512_xor_si512(F2I(xy), sgn));
    __m512 sx = _mm512_mask_blend_ps(p, yx, nxx), sy = _mm512_mask_blend_ps(p, yy, nxy);
    __m512 tx = _mm512_mask_blend_ps(p, xx, yx), ty = _mm512_mask_blend_ps(p, xy, yy);
    { /* dfdiv */
        __m512 tr = _mm512_div_ps(one, tx), s0 = _mm512_mul_ps(sx, tr);
        __m512 u = _mm512_fmsub_ps(tr, sx, s0);
        __m512 v = _mm512_fnmadd_ps(ty, tr, _mm512_fnmadd_ps(tx, tr, one));
        sy = _mm512_fmadd_ps(s0, v, _mm512_fmadd_ps(sy, tr, u));
        sx = s0;
    }
    { /* dfsqu, dfnormalize */
        __m512 sq = _mm512_mul_ps(sx, sx);
        __m512 lo = _mm512_fmadd_ps(_mm512_add_ps(sx, sx), sy, _mm512_fmsub_ps(sx, sx, sq));
        __m512 n = _mm512_add_ps(sq, lo);
        ty = _mm512_add_ps(_mm512_sub_ps(sq, n), lo);
        tx = n;
    }
    __m512 u = _mm512_set1_ps(-0.00176397908944636583328247f);
    u = _mm512_fmadd_ps(u, tx, _mm512_set1_ps(0.0107900900766253471374512f));
    u = _mm512_fmadd_ps(u, tx, _mm512_set1_ps(-0.0309564601629972457885742f));
    u = _mm512_fmadd_ps(u, tx, _mm512_set1_ps(0.0577365085482597351074219f));
    u = _mm512_fmadd_ps(u, tx, _mm512_set1_ps(-0.0838950723409652709960938f));
    u = _mm512_fmadd_ps(u, tx, _mm512_set1_ps(0.109463557600975036621094f));
    u = _mm512_fmadd_ps(u, tx, _mm512_set1_ps(-0.142626821994781494140625f));
    u = _mm512_fmadd_ps(u, tx, _mm512_set1_ps(0.199983194470405578613281f));
    { /* t = dfmul(t, dfadd_vf2_vf_vf(-1/3, u * t.x)) */
        __m512 a = _mm512_set1_ps(-0.333332866430282592773438f), b = _mm512_mul_ps(u, tx), ab = _mm512_add_ps(a, b);
        __m512 wy = _mm512_add_ps(_mm512_sub_ps(a, ab), b);
        __m512 m = _mm512_mul_ps(tx, ab);
        ty = _mm512_fmadd_ps(tx, wy, _mm512_fmadd_ps(ty, ab, _mm512_fmsub_ps(tx, ab, m)));
        tx = m;
    }
    { /* t = dfmul(s, dfadd_vf2_vf_vf2(1, t)) */
        __m512 ov = _mm512_add_ps(one, tx);
        __m512 wy = _mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(one, ov), tx), ty);
        __m512 m = _mm512_mul_ps(sx, ov);
        ty = _mm512_fmadd_ps(sx, wy, _mm512_fmadd_ps(sy, ov, _mm512_fmsub_ps(sx, ov, m)));
        tx = m;
    }
    { /* t = dfadd_vf2_vf2_vf2(dfmul_vf2_vf2_vf(pi/2 as two floats, q), t) */
        __m512 qf = _mm512_cvtepi32_ps(q), ch = _mm512_set1_ps(1.5707963705062866211f);
        __m512 mh = _mm512_mul_ps(ch, qf);
        __m512 ml = _mm512_fmadd_ps(_mm512_set1_ps(-4.3711388286737928865e-08f), qf, _mm512_fmsub_ps(ch, qf, mh));
        __m512 s1 = _mm512_add_ps(mh, tx);
        ty = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(mh, s1), tx), ml), ty);
        tx = s1;
    }
    __m512 r = _mm512_add_ps(tx, ty);
    const __m512 hpi = _mm512_set1_ps((float)(M_PI / 2)), qpi = _mm512_set1_ps((float)(M_PI / 4));
    r = MULSIGN(r, x);
    __m512 ax = _mm512_abs_ps(x);
    __mmask16 xinf = _mm512_cmp_ps_mask(ax, _mm512_set1_ps(INFINITY), _CMP_EQ_OQ);
    __mmask16 yinf = _mm512_cmp_ps_mask(_mm512_abs_ps(y), _mm512_set1_ps(INFINITY), _CMP_EQ_OQ);
    __m512i xs = _mm512_and_si512(F2I(x), sgn);
    /* visinf2(x, m): x infinite ? m | x's sign : +0 */
    __m512 i2a = I2F(_mm512_maskz_mov_epi32(xinf, _mm512_or_si512(xs, F2I(MULSIGN(hpi, x)))));
    __m512 i2b = I2F(_mm512_maskz_mov_epi32(xinf, _mm512_or_si512(xs, F2I(MULSIGN(qpi, x)))));
    r = _mm512_mask_mov_ps(r, xinf | _mm512_cmp_ps_mask(x, zero, _CMP_EQ_OQ), _mm512_sub_ps(hpi, i2a));
    r = _mm512_mask_mov_ps(r, yinf, _mm512_sub_ps(hpi, i2b));
    __m512 pix = I2F(_mm512_maskz_mov_epi32(_mm512_test_epi32_mask(F2I(x), sgn), F2I(_mm512_set1_ps((float)M_PI))));
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(y, zero, _CMP_EQ_OQ), pix);
    __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q);
    r = MULSIGN(r, y);
    return I2F(_mm512_mask_mov_epi32(F2I(r), nan, _mm512_set1_epi32(-1)));
#undef F2I
#undef I2F
#undef MULSIGN
}

/* sleef_atan2f in eight lanes (AVX2 with FMA: Sleef_atan2f8_u10, which torch's AVX2 build calls):
 * sleef_atan2f16's steps, the masks as compares and blends, every fused step fused: the same bits */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256 sleef_atan2f8(__m256 y, __m256 x)
{
    const __m256 sgn = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
#define F2I(v) _mm256_castps_si256(v)
#define I2F(v) _mm256_castsi256_ps(v)
#define MULSIGN(a, b) _mm256_xor_ps(a, _mm256_and_ps(b, sgn))
#define ABS(a) _mm256_andnot_ps(sgn, a)
    __m256 o = _mm256_cmp_ps(ABS(x), _mm256_set1_ps(2.9387372783541830947e-39f), _CMP_LT_OQ);
    x = _mm256_blendv_ps(x, _mm256_mul_ps(x, _mm256_set1_ps(16777216.0f)), o);
    y = _mm256_blendv_ps(y, _mm256_mul_ps(y, _mm256_set1_ps(16777216.0f)), o);
    __m256 yx = ABS(y), yy = zero, xx = x, xy = zero;
    __m256 neg = _mm256_cmp_ps(xx, zero, _CMP_LT_OQ);
    __m256i q = _mm256_and_si256(F2I(neg), _mm256_set1_epi32(-2));
    __m256 rm = _mm256_and_ps(neg, sgn);
    xx = _mm256_xor_ps(xx, rm);
    xy = _mm256_xor_ps(xy, rm);
    __m256 p = _mm256_cmp_ps(xx, yx, _CMP_LT_OQ);
    q = _mm256_sub_epi32(q, F2I(p));  /* (p's lanes are -1 where set: q + 1) */
    __m256 nxx = _mm256_xor_ps(xx, sgn), nxy = _mm256_xor_ps(xy, sgn);
    __m256 sx = _mm256_blendv_ps(yx, nxx, p), sy = _mm256_blendv_ps(yy, nxy, p);
    __m256 tx = _mm256_blendv_ps(xx, yx, p), ty = _mm256_blendv_ps(xy, yy, p);
    { /* dfdiv */
        __m256 tr = _mm256_div_ps(one, tx), s0 = _mm256_mul_ps(sx, tr);
        __m256 u = _mm256_fmsub_ps(tr, sx, s0);
        __m256 v = _mm256_fnmadd_ps(ty, tr, _mm256_fnmadd_ps(tx, tr, one));
        sy = _mm256_fmadd_ps(s0, v, _mm256_fmadd_ps(sy, tr, u));
        sx = s0;
    }
    { /* dfsqu, dfnormalize */
        __m256 sq = _mm256_mul_ps(sx, sx);
        __m256 lo = _mm256_fmadd_ps(_mm256_add_ps(sx, sx), sy, _mm256_fmsub_ps(sx, sx, sq));
        __m256 n = _mm256_add_ps(sq, lo);
        ty = _mm256_add_ps(_mm256_sub_ps(sq, n), lo);
        tx = n;
    }
    __m256 u = _mm256_set1_ps(-0.00176397908944636583328247f);
    u = _mm256_fmadd_ps(u, tx, _mm256_set1_ps(0.0107900900766253471374512f));
    u = _mm256_fmadd_ps(u, tx, _mm256_set1_ps(-0.0309564601629972457885742f));
    u = _mm256_fmadd_ps(u, tx, _mm256_set1_ps(0.0577365085482597351074219f));
    u = _mm256_fmadd_ps(u, tx, _mm256_set1_ps(-0.0838950723409652709960938f));
    u = _mm256_fmadd_ps(u, tx, _mm256_set1_ps(0.109463557600975036621094f));
    u = _mm256_fmadd_ps(u, tx, _mm256_set1_ps(-0.142626821994781494140625f));
    u = _mm256_fmadd_ps(u, tx, _mm256_set1_ps(0.199983194470405578613281f));
    { /* t = dfmul(t, dfadd_vf2_vf_vf(-1/3, u * t.x)) */
        __m256 a = _mm256_set1_ps(-0.333332866430282592773438f), b = _mm256_mul_ps(u, tx), ab = _mm256_add_ps(a, b);
        __m256 wy = _mm256_add_ps(_mm256_sub_ps(a, ab), b);
        __m256 m = _mm256_mul_ps(tx, ab);
        ty = _mm256_fmadd_ps(tx, wy, _mm256_fmadd_ps(ty, ab, _mm256_fmsub_ps(tx, ab, m)));
        tx = m;
    }
    { /* t = dfmul(s, dfadd_vf2_vf_vf2(1, t)) */
        __m256 ov = _mm256_add_ps(one, tx);
        __m256 wy = _mm256_add_ps(_mm256_add_ps(_mm256_sub_ps(one, ov), tx), ty);
        __m256 m = _mm256_mul_ps(sx, ov);
        ty = _mm256_fmadd_ps(sx, wy, _mm256_fmadd_ps(sy, ov, _mm256_fmsub_ps(sx, ov, m)));
        tx = m;
    }
    { /* t = dfadd_vf2_vf2_vf2(dfmul_vf2_vf2_vf(pi/2 as two floats, q), t) */
        __m256 qf = _mm256_cvtepi32_ps(q), ch = _mm256_set1_ps(1.5707963705062866211f);
        __m256 mh = _mm256_mul_ps(ch, qf);
        __m256 ml = _mm256_fmadd_ps(_mm256_set1_ps(-4.3711388286737928865e-08f), qf, _mm256_fmsub_ps(ch, qf, mh));
        __m256 s1 = _mm256_add_ps(mh, tx);
        ty = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_sub_ps(mh, s1), tx), ml), ty);
        tx = s1;
    }
    __m256 r = _mm256_add_ps(tx, ty);
    const __m256 hpi = _mm256_set1_ps((float)(M_PI / 2)), qpi = _mm256_set1_ps((float)(M_PI / 4));
    r = MULSIGN(r, x);
    __m256 xinf = _mm256_cmp_ps(ABS(x), _mm256_set1_ps(INFINITY), _CMP_EQ_OQ);
    __m256 yinf = _mm256_cmp_ps(ABS(y), _mm256_set1_ps(INFINITY), _CMP_EQ_OQ);
    __m256 xs = _mm256_and_ps(x, sgn);
    /* visinf2(x, m): x infinite ? m | x's sign : +0 */
    __m256 i2a = _mm256_and_ps(xinf, _mm256_or_ps(xs, MULSIGN(hpi, x)));
    __m256 i2b = _mm256_and_ps(xinf, _mm256_or_ps(xs, MULSIGN(qpi, x)));
    r = _mm256_blendv_ps(r, _mm256_sub_ps(hpi, i2a), _mm256_or_ps(xinf, _mm256_cmp_ps(x, zero, _CMP_EQ_OQ)));
    r = _mm256_blendv_ps(r, _mm256_sub_ps(hpi, i2b), yinf);
    __m256 pix = _mm256_and_ps(I2F(_mm256_srai_epi32(F2I(x), 31)), _mm256_set1_ps((float)M_PI));
    r = _mm256_blendv_ps(r, pix, _mm256_cmp_ps(y, zero, _CMP_EQ_OQ));
    __m256 nan = _mm256_or_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q), _mm256_cmp_ps(y, y, _CMP_UNORD_Q));
    r = MULSIGN(r, y);
    return _mm256_or_ps(r, nan);  /* (a NaN lane: all ones, SLEEF's word) */
#undef F2I
#undef I2F
#undef MULSIGN
#undef ABS
}

/* oneDNN's gelu_erf, sixteen lanes (the coefficients gathered by vpermt2ps, as oneDNN's), the
 * table's two halves per degree held in registers (lo, hi) across a block */
__attribute__((target("avx512f"), always_inline)) static inline __m512 onednn_gelu16(__m512 x, const __m512 *lo,
                                                                                     const __m512 *hi)
{
    __m512i b = _mm512_castps_si512(x);
    __m512 a = _mm512_abs_ps(x);
    __m512i idx = _mm512_srai_epi32(_mm512_add_epi32(_mm512_castps_si512(a), _mm512_set1_epi32((int)ONEDNN_GELU_BIAS)), 21);
    idx = _mm512_min_epi32(_mm512_max_epi32(idx, _mm512_set1_epi32(1)), _mm512_set1_epi32(24));
    idx = _mm512_mask_mov_epi32(idx, _mm512_cmp_ps_mask(_mm512_set1_ps(ONEDNN_GELU_RBOUND), a, _CMP_LT_OS),
                                _mm512_set1_epi32(23));
    __m512 p = _mm512_permutex2var_ps(lo[5], idx, hi[5]);
    for (int d = 4; d >= 0; d--) p = _mm512_fmadd_ps(p, a, _mm512_permutex2var_ps(lo[d], idx, hi[d]));
    p = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(p), _mm512_and_si512(b, _mm512_set1_epi32(INT32_MIN))));
    return _mm512_mul_ps(_mm512_mul_ps(x, _mm512_add_ps(p, _mm512_set1_ps(1.0f))), _mm512_set1_ps(0.5f));
}

__attribute__((target("avx512f"))) static void onednn_gelu_block16(const float *x, float *o, Py_ssize_t m)
{
    __m512 lo[6], hi[6];
    for (int d = 0; d < 6; d++) {
        lo[d] = _mm512_loadu_ps((const float *)ONEDNN_GELU_POL[d]);
        hi[d] = _mm512_loadu_ps((const float *)ONEDNN_GELU_POL[d] + 16);
    }
    Py_ssize_t i = 0;
    for (; i + 32 <= m; i += 32) {
        __m512 u = onednn_gelu16(_mm512_loadu_ps(x + i), lo, hi), v = onednn_gelu16(_mm512_loadu_ps(x + i + 16), lo, hi);
        _mm512_storeu_ps(o + i, u);
        _mm512_storeu_ps(o + i + 16, v);
    }
    for (; i < m; i += 16) {
        __mmask16 k = m - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (m - i)) - 1);
        _mm512_mask_storeu_ps(o + i, k, onednn_gelu16(_mm512_maskz_loadu_ps(k, x + i), lo, hi));
    }
}

__attribute__((target("avx512f"), always_inline)) static inline __m512 vec16(__m512 x, int op)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    if (op == 0) return sleef_expf16(x);
    if (op == 5) {
        __m512 h = _mm512_mul_ps(x, _mm512_set1_ps(0.5f));
        return _mm512_mul_ps(h, _mm512_add_ps(one, torch_erf16(_mm512_mul_ps(x, _mm512_set1_ps(GELU_ALPHA)))));
    }
    __m512 e = sleef_expf16(_mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN))));
    return _mm512_div_ps(op == 1 ? one : x, _mm512_add_ps(one, e));
}

/* the vectorized function over x[0..m) (a whole number of 16 or not: the last lanes masked) */
/* four vectors an iteration, op a constant in each copy of the loop: one vector's expf and division
 * are a chain of dependent steps (latency-bound), four independent chains fill the ports; each lane
 * the same operations as one vector at a time, so the same bits */
#define VEC_BLOCK64(OP)                                                                          \
    for (; i + 64 <= m; i += 64) {                                                               \
        __m512 v0 = vec16(_mm512_loadu_ps(x + i), OP), v1 = vec16(_mm512_loadu_ps(x + i + 16), OP); \
        __m512 v2 = vec16(_mm512_loadu_ps(x + i + 32), OP), v3 = vec16(_mm512_loadu_ps(x + i + 48), OP); \
        _mm512_storeu_ps(o + i, v0);                                                             \
        _mm512_storeu_ps(o + i + 16, v1);                                                        \
        _mm512_storeu_ps(o + i + 32, v2);                                                        \
        _mm512_storeu_ps(o + i + 48, v3);                                                        \
    }

__attribute__((target("avx512f"))) static void vec_block16(const float *x, float *o, Py_ssize_t m, int op)
{
    Py_ssize_t i = 0;
    if (op == 1) {
        VEC_BLOCK64(1)
    } else if (op == 2) {
        VEC_BLOCK64(2)
    }
    for (; i + 16 <= m; i += 16) _mm512_storeu_ps(o + i, vec16(_mm512_loadu_ps(x + i), op));
    if (i < m) {
        __mmask16 k = (__mmask16)((1u << (m - i)) - 1);
        _mm512_mask_storeu_ps(o + i, k, vec16(_mm512_maskz_loadu_ps(k, x + i), op));
    }
}

/* vec16's ops 0 to 2 and 5 in eight lanes (AVX2 with FMA): the same steps, the same bits */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256 vec8(__m256 x, int op)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    if (op == 0) return sleef_expf8(x);
    if (op == 5) return torch_gelu8(x);
    __m256 e = sleef_expf8(_mm256_xor_ps(x, _mm256_set1_ps(-0.0f)));
    return _mm256_div_ps(op == 1 ? one : x, _mm256_add_ps(one, e));
}

/* VEC_BLOCK64's eight-lane form: four vectors an iteration (independent chains), op a constant */
#define VEC_BLOCK32(OP)                                                                          \
    for (; i + 32 <= m; i += 32) {                                                               \
        __m256 v0 = vec8(_mm256_loadu_ps(x + i), OP), v1 = vec8(_mm256_loadu_ps(x + i + 8), OP);  \
        __m256 v2 = vec8(_mm256_loadu_ps(x + i + 16), OP), v3 = vec8(_mm256_loadu_ps(x + i + 24), OP); \
        _mm256_storeu_ps(o + i, v0);                                                             \
        _mm256_storeu_ps(o + i + 8, v1);                                                         \
        _mm256_storeu_ps(o + i + 16, v2);                                                        \
        _mm256_storeu_ps(o + i + 24, v3);                                                        \
    }

/* vec_block16's ops 0 to 2 and 5 in eight lanes; the last m % 8 elements by vec_lane (the same steps one
 * lane at a time, its fmaf one instruction in this FMA-targeted function: the same bits) */
__attribute__((target("avx2,fma"))) static void vec_block8(const float *x, float *o, Py_ssize_t m, int op)
{
    Py_ssize_t i = 0;
    if (op == 1) {
        VEC_BLOCK32(1)
    } else if (op == 2) {
        VEC_BLOCK32(2)
    } else if (op == 5) {
        VEC_BLOCK32(5)
    }
    for (; i + 8 <= m; i += 8) _mm256_storeu_ps(o + i, vec8(_mm256_loadu_ps(x + i), op));
    for (; i < m; i++) o[i] = vec_lane(x[i], op);
}

static int has_avx512f(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}

static int capability_lanes(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")
        && __builtin_cpu_supports("avx512vl"))
        return 16;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 8;
    return 0;
}

static int has_avx2_fma(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
static int has_avx512f(void) { return 0; }
static int has_avx2_fma(void) { return 0; }
static int capability_lanes(void) { return 0; }
#endif

/* the vector forms of the loops (their `wide` argument): 0 the plain C lanes, W512 AVX-512F's
 * sixteen float32 (eight float64) lanes, W256 AVX2 with FMA's eight (four); all three the same
 * bits, lane for lane (each vector form is the one-lane steps, every fused step fused). */
#define W512 1
#define W256 2

/* the form a call's `form` argument asks: -1 the widest the CPU runs (AVX-512F, else AVX2 + FMA,
 * else the plain C form), 0 the plain C form, 1 AVX-512F, 2 AVX2 + FMA; -1 where the CPU lacks the
 * form asked (the call then answers False, nothing written) */
static int pick_level(long form)
{
    if (form == 0) return 0;
    if (form == 1) return has_avx512f() ? W512 : -1;
    if (form == 2) return has_avx2_fma() ? W256 : -1;
    return has_avx512f() ? W512 : has_avx2_fma() ? W256 : 0;
}

/* 1 where ATen's vector lanes are its AVX2 build's (an AVX2 CPU without AVX-512, or an AVX-512 one under
 * ATEN_CPU_CAPABILITY=avx2, as strided.kernels.sleef.step reads it): float32 softplus's NaN lanes give the
 * default NaN word there. Read once. */
static int aten_avx2_lanes(void)
{
    static int known = -1;
    if (known < 0) {
        int lanes = capability_lanes();
        const char *cap = getenv("ATEN_CPU_CAPABILITY");
        if (lanes == 16 && cap != NULL && strcasecmp(cap, "avx2") == 0) lanes = 8;
        known = lanes == 8;
    }
    return known;
}

/* ---- the C library's expf, sixteen lanes (op 3)
 *
 * glibc's expf (sysdeps/ieee754/flt-32/e_expf.c, the variant its ifunc picks where the CPU has FMA):
 * in double, k = round(x * 32 / ln 2) through the 0x1.8p52 shift (fused), r = x * 32 / ln 2 - k
 * (fused), 2^(k/32) from a 32-entry table (its bits less k << 47) and 2^(r/32) a cubic (fused),
 * then the product rounded to float. Lanes with |x| >= 88 or NaN (glibc's special cases) are
 * recomputed by the C library's expf itself. libm_expf_ok() compares this form with the C
 * library's expf at first use (2^16 inputs over every sign, exponent and mantissa region, and the
 * floats where glibc's FMA and plain variants differ); where they differ (another C library) the
 * plain loop of expf calls runs instead: the C library's bits either way. */
#if HAVE_X86
#include "_glibc_expf.h"  /* EXPF_TABLE */

__attribute__((target("avx512f"), always_inline)) static inline __m256 libm_expf8(__m512d d, const __m512i *tab)
{
    const __m512d invln2n = _mm512_set1_pd(EXPF_INVLN2N), shift = _mm512_set1_pd(EXPF_SHIFT);
    __m512d kd = _mm512_fmadd_pd(invln2n, d, shift);
    __m512i ki = _mm512_castpd_si512(kd);
    kd = _mm512_sub_pd(kd, shift);
    __m512d r = _mm512_fmsub_pd(invln2n, d, kd);
    __m512i j = _mm512_and_si512(ki, _mm512_set1_epi64(31));
    __m512i lo = _mm512_permutex2var_epi64(tab[0], j, tab[1]), hi = _mm512_permutex2var_epi64(tab[2], j, tab[3]);
    __m512i t = _mm512_mask_mov_epi64(lo, _mm512_test_epi64_mask(j, _mm512_set1_epi64(16)), hi);
    __m512d s = _mm512_castsi512_pd(_mm512_add_epi64(t, _mm512_slli_epi64(ki, 47)));
    __m512d z = _mm512_fmadd_pd(_mm512_set1_pd(EXPF_C0), r,
                                _mm512_set1_pd(EXPF_C1));
    __m512d r2 = _mm512_mul_pd(r, r);
    __m512d y = _mm512_fmadd_pd(_mm512_set1_pd(EXPF_C2), r, _mm512_set1_pd(1.0));
    y = _mm512_fmadd_pd(z, r2, y);
    return _mm512_cvtpd_ps(_mm512_mul_pd(y, s));
}

/* expf of the k-masked lanes of x[i..i+16) into o (the special lanes by the C library's expf) */
__attribute__((target("avx512f"), always_inline)) static inline void libm_expf16_step(const float *x, float *o,
                                                                                      Py_ssize_t i, __mmask16 k,
                                                                                      const __m512i *tab)
{
    __m512 v = _mm512_maskz_loadu_ps(k, x + i);
    __m256 a = libm_expf8(_mm512_cvtps_pd(_mm512_castps512_ps256(v)), tab);
    __m256 b = libm_expf8(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))), tab);
    __m512 res = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(a)), _mm256_castps_pd(b), 1));
    /* |x| >= 88 or NaN: the exponent field's top bits at least 88.0f's (0x42b) */
    __m512i top = _mm512_and_si512(_mm512_srli_epi32(_mm512_castps_si512(v), 20), _mm512_set1_epi32(0x7ff));
    __mmask16 special = _mm512_mask_cmpgt_epi32_mask(k, top, _mm512_set1_epi32(0x42a));
    if (special) {  /* (the inputs from the register: in place, o is x and its lanes are written below) */
        float in[16];
        _mm512_storeu_ps(in, v);
        _mm512_mask_storeu_ps(o + i, k, res);
        for (int j = 0; j < 16; j++)
            if (special & (1u << j)) o[i + j] = expf(in[j]);
    } else
        _mm512_mask_storeu_ps(o + i, k, res);
}

__attribute__((target("avx512f"))) static void libm_expf16_block(const float *x, float *o, Py_ssize_t m)
{
    __m512i tab[4];
    for (int q = 0; q < 4; q++) tab[q] = _mm512_loadu_si512((const void *)(EXPF_TABLE + 8 * q));
    Py_ssize_t i = 0;
    /* 32 elements a step: four independent 8-lane chains side by side (one 16-element step at a
     * time is latency-bound: 1M float32 0.85 ms, NumPy's exp 0.5); a step with a special lane
     * (|x| >= 88, NaN) takes the one-vector steps instead, the same lanes' same operations */
    for (; i + 32 <= m; i += 32) {
        __m512 v0 = _mm512_loadu_ps(x + i), v1 = _mm512_loadu_ps(x + i + 16);
        __m512i t0 = _mm512_and_si512(_mm512_srli_epi32(_mm512_castps_si512(v0), 20), _mm512_set1_epi32(0x7ff));
        __m512i t1 = _mm512_and_si512(_mm512_srli_epi32(_mm512_castps_si512(v1), 20), _mm512_set1_epi32(0x7ff));
        if (_mm512_cmpgt_epi32_mask(t0, _mm512_set1_epi32(0x42a)) | _mm512_cmpgt_epi32_mask(t1, _mm512_set1_epi32(0x42a))) {
            libm_expf16_step(x, o, i, (__mmask16)0xffff, tab);
            libm_expf16_step(x, o, i + 16, (__mmask16)0xffff, tab);
            continue;
        }
        __m256 a0 = libm_expf8(_mm512_cvtps_pd(_mm512_castps512_ps256(v0)), tab);
        __m256 b0 = libm_expf8(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v0), 1))), tab);
        __m256 a1 = libm_expf8(_mm512_cvtps_pd(_mm512_castps512_ps256(v1)), tab);
        __m256 b1 = libm_expf8(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v1), 1))), tab);
        _mm256_storeu_ps(o + i, a0);
        _mm256_storeu_ps(o + i + 8, b0);
        _mm256_storeu_ps(o + i + 16, a1);
        _mm256_storeu_ps(o + i + 24, b1);
    }
    for (; i < m; i += 16)
        libm_expf16_step(x, o, i, m - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (m - i)) - 1), tab);
}

static int libm_expf_ok(void)
{
    static int decided = -1;
    if (decided >= 0) return decided;
    int ok = has_avx512f();
    float in[256], out[256];
    for (uint32_t b = 0; ok && b < 256; b++) {
        for (uint32_t j = 0; j < 256; j++) {
            uint32_t u = (b << 24) | (j << 16) | ((j * 40503u + b * 9973u) & 0xffff);
            memcpy(&in[j], &u, sizeof u);
        }
        libm_expf16_block(in, out, 256);
        for (int j = 0; j < 256; j++) {
            float e = expf(in[j]);
            if (memcmp(&e, &out[j], sizeof e) != 0) ok = 0;
        }
    }
    static const float rare[8] = {0x1.04845ep+5f, -0x1.f8cbb2p+5f, -1.5f, -0x1.8p-3f, -20.25f, -0x1.fffffep+4f,
                                  88.0f, -88.0f};
    if (ok) {
        libm_expf16_block(rare, out, 8);
        for (int j = 0; ok && j < 8; j++) {
            float e = expf(rare[j]);
            if (memcmp(&e, &out[j], sizeof e) != 0) ok = 0;
        }
    }
    decided = ok;
    return ok;
}
#endif

/* ---- tanh of float32 through double (op 4)
 *
 * PyTorch's float32 tanh is MKL's vmsTanh (VML_HA), not reproduced; the correctly rounded tanh
 * equals it in 99.8-99.99% of elements (glibc's tanhf 66-94%, NumPy's np.tanh 62-84%). This is
 * tanh in double, rounded once to float: tanh|x| = e / (e + 2) with e = expm1(2|x|) (no
 * cancellation: e is computed as 2^k p + (2^k - 1), p = expm1(r) a degree-13 Taylor sum over
 * |r| <= ln 2 / 2, r = 2|x| - k ln 2 in two fused steps), the sign copied back; 2|x| is capped at
 * 40 (the quotient then rounds to 1, as tanh does past 9.01), NaN gives x quieted. Relative error
 * a few 1e-16 before the rounding to float: the correctly rounded float but in the rare cases
 * within that of a tie. Both forms (AVX-512, plain C with fma) compute the same steps. */
#define TANH_LN2_HI 0x1.62e42fefa39efp-1
#define TANH_LN2_LO 0x1.abc9e3b39803fp-56
#define TANH_INV_LN2 0x1.71547652b82fep0
static const double EXPM1_TAYLOR[12] = {
    1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0,
    1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5};

static float tanh_lane(float x)
{
    if (x != x) return x + x;
    double a = fabs((double)x), y = 2.0 * a;
    if (y > 40.0) y = 40.0;
    double k = nearbyint(y * TANH_INV_LN2);
    double r = fma(-k, TANH_LN2_HI, y);
    r = fma(-k, TANH_LN2_LO, r);
    double q = EXPM1_TAYLOR[0];
    for (int i = 1; i < 12; i++) q = fma(q, r, EXPM1_TAYLOR[i]);
    double p = fma(r * r, q, r);
    int64_t kb = ((int64_t)k + 1023) << 52;
    double s;
    memcpy(&s, &kb, sizeof s);
    double e = fma(s, p, s - 1.0);
    double t = e / (e + 2.0);
    return (float)copysign(t, (double)x);
}

#if HAVE_X86
__attribute__((target("avx512f"))) static __m256 tanh8(__m256 xf)
{
    __m512d d = _mm512_cvtps_pd(xf);
    __m512d a = _mm512_abs_pd(d);
    __m512d y = _mm512_min_pd(_mm512_add_pd(a, a), _mm512_set1_pd(40.0));  /* (a NaN lane: fixed below) */
    __m512d k = _mm512_roundscale_pd(_mm512_mul_pd(y, _mm512_set1_pd(TANH_INV_LN2)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512d r = _mm512_fnmadd_pd(k, _mm512_set1_pd(TANH_LN2_HI), y);
    r = _mm512_fnmadd_pd(k, _mm512_set1_pd(TANH_LN2_LO), r);
    __m512d q = _mm512_set1_pd(EXPM1_TAYLOR[0]);
    for (int i = 1; i < 12; i++) q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(EXPM1_TAYLOR[i]));
    __m512d p = _mm512_fmadd_pd(_mm512_mul_pd(r, r), q, r);
    __m512i ki = _mm512_cvtepi32_epi64(_mm512_cvtpd_epi32(k));
    __m512d s = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_add_epi64(ki, _mm512_set1_epi64(1023)), 52));
    __m512d e = _mm512_fmadd_pd(s, p, _mm512_sub_pd(s, _mm512_set1_pd(1.0)));
    __m512d t = _mm512_div_pd(e, _mm512_add_pd(e, _mm512_set1_pd(2.0)));
    /* the sign of x back (t >= 0) */
    t = _mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(t),
                                            _mm512_and_si512(_mm512_castpd_si512(d), _mm512_set1_epi64(INT64_MIN))));
    t = _mm512_mask_add_pd(t, _mm512_cmp_pd_mask(d, d, _CMP_UNORD_Q), d, d);  /* NaN: x quieted */
    return _mm512_cvtpd_ps(t);
}

/* tanh8's steps on four vectors side by side, each step on all four before the next: one vector's
 * steps are a chain of dependent fmas and a division (latency-bound: 1M float32 1.9 ms), four
 * independent chains keep the FMA ports and the divider busy. Per lane the same operations in the
 * same order as tanh8, so the same bits. */
__attribute__((target("avx512f"), always_inline)) static inline void tanh32(const float *x, float *o)
{
    __m512d d[4], y[4], k[4], r[4], q[4], t[4];
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) {
        d[j] = _mm512_cvtps_pd(_mm256_loadu_ps(x + 8 * j));
        __m512d a = _mm512_abs_pd(d[j]);
        y[j] = _mm512_min_pd(_mm512_add_pd(a, a), _mm512_set1_pd(40.0));
        k[j] = _mm512_roundscale_pd(_mm512_mul_pd(y[j], _mm512_set1_pd(TANH_INV_LN2)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        r[j] = _mm512_fnmadd_pd(k[j], _mm512_set1_pd(TANH_LN2_HI), y[j]);
        r[j] = _mm512_fnmadd_pd(k[j], _mm512_set1_pd(TANH_LN2_LO), r[j]);
        q[j] = _mm512_set1_pd(EXPM1_TAYLOR[0]);
    }
#pragma GCC unroll 11
    for (int i = 1; i < 12; i++) {
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++) q[j] = _mm512_fmadd_pd(q[j], r[j], _mm512_set1_pd(EXPM1_TAYLOR[i]));
    }
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) {
        __m512d p = _mm512_fmadd_pd(_mm512_mul_pd(r[j], r[j]), q[j], r[j]);
        __m512i ki = _mm512_cvtepi32_epi64(_mm512_cvtpd_epi32(k[j]));
        __m512d s = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_add_epi64(ki, _mm512_set1_epi64(1023)), 52));
        __m512d e = _mm512_fmadd_pd(s, p, _mm512_sub_pd(s, _mm512_set1_pd(1.0)));
        t[j] = _mm512_div_pd(e, _mm512_add_pd(e, _mm512_set1_pd(2.0)));
    }
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) {
        __m512d u = _mm512_castsi512_pd(_mm512_or_si512(
            _mm512_castpd_si512(t[j]), _mm512_and_si512(_mm512_castpd_si512(d[j]), _mm512_set1_epi64(INT64_MIN))));
        u = _mm512_mask_add_pd(u, _mm512_cmp_pd_mask(d[j], d[j], _CMP_UNORD_Q), d[j], d[j]);
        _mm256_storeu_ps(o + 8 * j, _mm512_cvtpd_ps(u));
    }
}

__attribute__((target("avx512f"))) static void tanh_block8(const float *x, float *o, Py_ssize_t m)
{
    Py_ssize_t i = 0;
    for (; i + 32 <= m; i += 32) tanh32(x + i, o + i);
    for (; i + 8 <= m; i += 8) _mm256_storeu_ps(o + i, tanh8(_mm256_loadu_ps(x + i)));
    for (; i < m; i++) o[i] = tanh_lane(x[i]);  /* (the same steps one lane at a time) */
}
#endif

#if HAVE_X86
/* tanh8's steps in four double lanes (AVX2 with FMA): the same operations per lane, the same bits */
__attribute__((target("avx2,fma"), always_inline)) static inline __m128 tanh4(__m128 xf)
{
    __m256d d = _mm256_cvtps_pd(xf);
    __m256d a = _mm256_andnot_pd(_mm256_set1_pd(-0.0), d);
    __m256d y = _mm256_min_pd(_mm256_add_pd(a, a), _mm256_set1_pd(40.0));  /* (a NaN lane: fixed below) */
    __m256d k = _mm256_round_pd(_mm256_mul_pd(y, _mm256_set1_pd(TANH_INV_LN2)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256d r = _mm256_fnmadd_pd(k, _mm256_set1_pd(TANH_LN2_HI), y);
    r = _mm256_fnmadd_pd(k, _mm256_set1_pd(TANH_LN2_LO), r);
    __m256d q = _mm256_set1_pd(EXPM1_TAYLOR[0]);
    for (int i = 1; i < 12; i++) q = _mm256_fmadd_pd(q, r, _mm256_set1_pd(EXPM1_TAYLOR[i]));
    __m256d p = _mm256_fmadd_pd(_mm256_mul_pd(r, r), q, r);
    __m256i ki = _mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(k));
    __m256d s = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(ki, _mm256_set1_epi64x(1023)), 52));
    __m256d e = _mm256_fmadd_pd(s, p, _mm256_sub_pd(s, _mm256_set1_pd(1.0)));
    __m256d t = _mm256_div_pd(e, _mm256_add_pd(e, _mm256_set1_pd(2.0)));
    t = _mm256_or_pd(t, _mm256_and_pd(d, _mm256_set1_pd(-0.0)));  /* the sign of x back (t >= 0) */
    t = _mm256_blendv_pd(t, _mm256_add_pd(d, d), _mm256_cmp_pd(d, d, _CMP_UNORD_Q));  /* NaN: x quieted */
    return _mm256_cvtpd_ps(t);
}

/* tanh_block8's AVX2 form: four independent four-lane chains an iteration (latency-bound alone) */
__attribute__((target("avx2,fma"))) static void tanh_block4(const float *x, float *o, Py_ssize_t m)
{
    Py_ssize_t i = 0;
    for (; i + 16 <= m; i += 16) {
        __m128 t0 = tanh4(_mm_loadu_ps(x + i)), t1 = tanh4(_mm_loadu_ps(x + i + 4));
        __m128 t2 = tanh4(_mm_loadu_ps(x + i + 8)), t3 = tanh4(_mm_loadu_ps(x + i + 12));
        _mm_storeu_ps(o + i, t0);
        _mm_storeu_ps(o + i + 4, t1);
        _mm_storeu_ps(o + i + 8, t2);
        _mm_storeu_ps(o + i + 12, t3);
    }
    for (; i + 4 <= m; i += 4) _mm_storeu_ps(o + i, tanh4(_mm_loadu_ps(x + i)));
    for (; i < m; i++) o[i] = tanh_lane(x[i]);  /* (the same steps one lane at a time) */
}
#endif

/* elu at alpha 1 (op 8) of x[0, m) into o, in vec_block's / vec_block_d's scope (x, o, m, wide):
 * where AVX-512 (wide W512), FUSED: one pass of sixteen (eight) lanes (W256: FUSED8's eight float32 lanes, where
 * it answers 1), op 7's expm1 lanes only for a
 * vector with an x that is not > 0, blended with x * pos (elu_fused16 / elu_fused8); else PLAIN's
 * lanes (op 7's, the same bits) of 256 elements at a time into a stack block, then x where x > 0
 * (NaN and +-0 take expm1, as greater_select sends them; a block whose every x > 0 is copied
 * without them: the same bits, all-positive inputs at a copy's cost). Each x is read before its o
 * is written, so o may be x itself. */
#define ELU_BLOCKS_SCALED(T, FUSED, FUSED8, PLAIN, POS, NEG)                                                \
    do {                                                                                            \
        if (wide == W512) {                                                                                 \
            FUSED(x, o, m, POS, NEG);                                                               \
            break;                                                                                  \
        }                                                                                           \
        if (wide == W256 && FUSED8(x, o, m, POS, NEG)) break; /* (1: done in AVX2 lanes) */         \
        T e_[256];                                                                                  \
        for (Py_ssize_t a_ = 0; a_ < m; a_ += 256) {                                                \
            Py_ssize_t k_ = m - a_ < 256 ? m - a_ : 256;                                            \
            int pos_ = 1;                                                                           \
            for (Py_ssize_t i_ = 0; i_ < k_; i_++) pos_ &= x[a_ + i_] > (T)0;                       \
            if (pos_) { /* (every x > 0: x itself, no exponentials) */                              \
                for (Py_ssize_t i_ = 0; i_ < k_; i_++) o[a_ + i_] = x[a_ + i_] * (POS);             \
                continue;                                                                           \
            }                                                                                       \
            PLAIN(x + a_, e_, k_);                                                                  \
            for (Py_ssize_t i_ = 0; i_ < k_; i_++)                                                  \
                o[a_ + i_] = x[a_ + i_] > (T)0 ? x[a_ + i_] * (POS) : e_[i_] * (NEG);               \
        }                                                                                           \
    } while (0)
/* (float64's AVX2 pass: none yet, the PLAIN lanes) */
#define ELU_NONE8(x, o, m, pos, neg) 0
/* (elu at alpha 1: the products by 1 are the values themselves, expm1 never answering a signaling NaN) */
#define ELU_BLOCKS(T, FUSED, FUSED8, PLAIN) ELU_BLOCKS_SCALED(T, FUSED, FUSED8, PLAIN, (T)1, (T)1)

#if HAVE_X86
/* ELU_BLOCKS' AVX-512 pass: per vector, o = x > 0 ? x * pos : expm1(x) * neg, both products in
 * every lane and a mask blend, the same IEEE products selected by the same ordered compare (a NaN
 * x takes expm1(x) * neg), expm1 by op 7's lanes (sleef_expm1f16 / sleef_expm1d8: lane by lane,
 * the same bits as its block form; the last partial vector masked, as there). A vector whose every
 * x > 0 skips the exponential (its lanes were not selected). One pass, no stack block: the former
 * two passes (a scalar all-positive test per 256, then expm1 into a block, then the blend) cost 1M
 * float32 elu ~2.5 ms against expm1's own ~1.65. Each x is read before its o is written (o may be x). */
__attribute__((target("avx512f"))) static void elu_fused16(const float *x, float *o, Py_ssize_t m, float pos,
                                                          float neg)
{
    const __m512 zero = _mm512_setzero_ps(), p = _mm512_set1_ps(pos), q = _mm512_set1_ps(neg);
    Py_ssize_t i = 0;
    for (; i + 16 <= m; i += 16) {
        __m512 v = _mm512_loadu_ps(x + i);
        __mmask16 gt = _mm512_cmp_ps_mask(v, zero, _CMP_GT_OQ);
        __m512 r = _mm512_mul_ps(v, p);
        if (gt != (__mmask16)0xFFFF)
            r = _mm512_mask_blend_ps(gt, _mm512_mul_ps(sleef_expm1f16(v), q), r);
        _mm512_storeu_ps(o + i, r);
    }
    if (i < m) {
        __mmask16 k = (__mmask16)((1u << (m - i)) - 1);
        __m512 v = _mm512_maskz_loadu_ps(k, x + i);
        __mmask16 gt = _mm512_cmp_ps_mask(v, zero, _CMP_GT_OQ);
        __m512 r = _mm512_mask_blend_ps(gt, _mm512_mul_ps(sleef_expm1f16(v), q), _mm512_mul_ps(v, p));
        _mm512_mask_storeu_ps(o + i, k, r);
    }
}

/* elu_fused16 in eight float32 lanes (AVX2 with FMA): the same products and selection, expm1 by
 * sleef_expm1f8; the last m % 8 elements one at a time (op 8 / 9's lanes: the same bits) */
__attribute__((target("avx2,fma"))) static int elu_fused8f(const float *x, float *o, Py_ssize_t m, float pos,
                                                          float neg)
{
    const __m256 zero = _mm256_setzero_ps(), p = _mm256_set1_ps(pos), q = _mm256_set1_ps(neg);
    Py_ssize_t i = 0;
    for (; i + 8 <= m; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m256 gt = _mm256_cmp_ps(v, zero, _CMP_GT_OQ);
        __m256 r = _mm256_mul_ps(v, p);
        if (_mm256_movemask_ps(gt) != 0xFF) r = _mm256_blendv_ps(_mm256_mul_ps(sleef_expm1f8(v), q), r, gt);
        _mm256_storeu_ps(o + i, r);
    }
    for (; i < m; i++) o[i] = x[i] > 0.0f ? x[i] * pos : sleef_expm1f(x[i]) * neg;
    return 1;
}

__attribute__((target("avx512f"))) static void elu_fused8(const double *x, double *o, Py_ssize_t m, double pos,
                                                         double neg)
{
    const __m512d zero = _mm512_setzero_pd(), p = _mm512_set1_pd(pos), q = _mm512_set1_pd(neg);
    Py_ssize_t i = 0;
    for (; i + 8 <= m; i += 8) {
        __m512d v = _mm512_loadu_pd(x + i);
        __mmask8 gt = _mm512_cmp_pd_mask(v, zero, _CMP_GT_OQ);
        __m512d r = _mm512_mul_pd(v, p);
        if (gt != (__mmask8)0xFF)
            r = _mm512_mask_blend_pd(gt, _mm512_mul_pd(sleef_expm1d8(v), q), r);
        _mm512_storeu_pd(o + i, r);
    }
    if (i < m) {
        __mmask8 k = (__mmask8)((1u << (m - i)) - 1);
        __m512d v = _mm512_maskz_loadu_pd(k, x + i);
        __mmask8 gt = _mm512_cmp_pd_mask(v, zero, _CMP_GT_OQ);
        __m512d r = _mm512_mask_blend_pd(gt, _mm512_mul_pd(sleef_expm1d8(v), q), _mm512_mul_pd(v, p));
        _mm512_mask_storeu_pd(o + i, k, r);
    }
}
#endif

/* the vectorized function one lane at a time, an FMA clone where the CPU has FMA (vec_lane's fmaf
 * one instruction each instead of the C library's routine: the same bits) */
SLEEF_LOG_CLONES static void vec_lanes_f(const float *x, float *o, Py_ssize_t m, int op)
{
    for (Py_ssize_t i = 0; i < m; i++) o[i] = vec_lane(x[i], op);
}

/* float32 exp2 (run's op 18), defined with logaddexp2's xexp2f below */
static void exp2_block_f(const float *x, float *o, Py_ssize_t m);
#if HAVE_X86
static void exp2_block16_f(const float *x, float *o, Py_ssize_t m);
static void exp2_block8_f(const float *x, float *o, Py_ssize_t m);
#endif

/* sinh (op 20), cosh (21), atanh (22): SLEEF's functions one lane at a time (the FMA clone: fmaf
 * one instruction each; the same bits) */
SLEEF_LOG_CLONES static void hyper_block_f(const float *x, float *o, Py_ssize_t m, int op)
{
    for (Py_ssize_t i = 0; i < m; i++) o[i] = op == 22 ? sleef_atanhf(x[i]) : sleef_sinhcoshf(x[i], op == 20);
}

#if HAVE_X86
/* hyper_block_f in eight lanes (AVX2 with FMA, as ATen's AVX2 build: Sleef_*f8_u10); the last m % 8
 * elements one at a time */
__attribute__((target("avx2,fma"))) static void hyper_block8_f(const float *x, float *o, Py_ssize_t m, int op)
{
    Py_ssize_t i = 0;
    for (; i + 8 <= m; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        _mm256_storeu_ps(o + i, op == 22 ? sleef_atanhf8(v) : sleef_sinhcoshf8(v, op == 20));
    }
    for (; i < m; i++) o[i] = op == 22 ? sleef_atanhf(x[i]) : sleef_sinhcoshf(x[i], op == 20);
}

/* hyper_block_f in sixteen lanes (AVX-512F, as ATen's Sleef_*f16_u10: the same bits as eight), the
 * last m % 32 elements masked vectors (loads of masked-off lanes do not fault) */
__attribute__((target("avx512f"))) static void hyper_block16_f(const float *x, float *o, Py_ssize_t m, int op)
{
    Py_ssize_t i = 0;
    for (; i + 32 <= m; i += 32) {  /* (two vectors a step, as ATen's loop: two independent chains, whose
                                      * overlap hides the microcode assists of 1/E's subnormal low part,
                                      * |x| > 71: 1.08-1.18x torch's time there with one) */
        __m512 a = _mm512_loadu_ps(x + i), b = _mm512_loadu_ps(x + i + 16);
        if (op == 22) {
            a = sleef_atanhf16(a);
            b = sleef_atanhf16(b);
        } else {
            a = sleef_sinhcoshf16(a, op == 20);
            b = sleef_sinhcoshf16(b, op == 20);
        }
        _mm512_storeu_ps(o + i, a);
        _mm512_storeu_ps(o + i + 16, b);
    }
    for (; i < m; i += 16) {
        __mmask16 k = m - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (m - i)) - 1);
        __m512 v = _mm512_maskz_loadu_ps(k, x + i);
        _mm512_mask_storeu_ps(o + i, k, op == 22 ? sleef_atanhf16(v) : sleef_sinhcoshf16(v, op == 20));
    }
}
#endif

static void vec_block(const float *x, float *o, Py_ssize_t m, int op, int wide)
{
    if (op >= 20 && op <= 22) {
#if HAVE_X86
        if (wide == W512) {
            hyper_block16_f(x, o, m, op);
            return;
        }
        if (wide == W256) {
            hyper_block8_f(x, o, m, op);
            return;
        }
#endif
        hyper_block_f(x, o, m, op);
        return;
    }
    if (op == 19) {  /* (oneDNN's avx2 gelu_erf: every element alike; eight lanes where AVX2 runs: the same bits) */
#if HAVE_X86
        if (wide == W256 || (wide == W512 && has_avx2_fma())) {
            onednn_gelu_as_block8(x, o, m);
            return;
        }
#endif
        for (Py_ssize_t i = 0; i < m; i++) o[i] = onednn_gelu_as_lane(x[i]);
        return;
    }
    if (op == 11) op = 0;  /* (EXP_SPLIT's vectorized function: EXP's, SLEEF's expf) */
    if (op == 10) {  /* (softplus: sixteen lanes where AVX-512, else the one-lane form: the same bits) */
#if HAVE_X86
        if (wide == W512) {
            softplus_block16(x, o, m);
            return;
        }
        if (wide == W256) {
            softplus_block8f(x, o, m);
            return;
        }
#endif
        softplus_block_f(x, o, m);
        return;
    }
    if (op == 12 || op == 13) {  /* (mish, or its tanh(softplus(x)) alone: likewise) */
#if HAVE_X86
        if (wide == W512) {
            mish_block16(x, o, m, op == 12);
            return;
        }
        if (wide == W256) {
            mish_block8f(x, o, m, op == 12);
            return;
        }
#endif
        mish_block_f(x, o, m, op == 12);
        return;
    }
#if HAVE_X86
    if (op == 4 && wide == W512) {
        tanh_block8(x, o, m);
        return;
    }
    if (op == 4 && wide == W256) {
        tanh_block4(x, o, m);
        return;
    }
    if (op == 6 && wide == W512) {
        onednn_gelu_block16(x, o, m);
        return;
    }
    if (op == 3 && wide == W512 && libm_expf_ok()) {
        libm_expf16_block(x, o, m);
        return;
    }
    if (op == 3) {
        for (Py_ssize_t i = 0; i < m; i++) o[i] = expf(x[i]);
        return;
    }
    if (op == 18) {  /* (exp2: sixteen lanes where AVX-512, else the one-lane form: the same bits) */
        if (wide == W512) exp2_block16_f(x, o, m);
        else if (wide == W256) exp2_block8_f(x, o, m);
        else exp2_block_f(x, o, m);
        return;
    }
    if (op == 16) {  /* (log1p: likewise) */
        if (wide == W512) log1p_block16_f(x, o, m);
        else if (wide == W256) log1p_block8_f(x, o, m);
        else log1p_block_f(x, o, m);
        return;
    }
    if (op == 7) {  /* (expm1: sixteen lanes where AVX-512, else the plain C lanes: the same bits) */
        if (wide == W512) sleef_expm1f_block16(x, o, m);
        else if (wide == W256) sleef_expm1f_block8(x, o, m);
        else sleef_expm1f_block(x, o, m);
        return;
    }
    if (op == 8) {  /* (elu at alpha 1: op 7's lanes, then x where x > 0) */
        ELU_BLOCKS(float, elu_fused16, elu_fused8f, sleef_expm1f_block);
        return;
    }
    if (op == 9) {  /* (selu: op 7's lanes, then x * scale where x > 0, else expm1 * alpha * scale) */
        ELU_BLOCKS_SCALED(float, elu_fused16, elu_fused8f, sleef_expm1f_block, SELU_POS_F, SELU_NEG_F);
        return;
    }
    if (wide == W512) {
        vec_block16(x, o, m, op);
        return;
    }
    if (wide == W256 && (op <= 2 || op == 5)) {
        vec_block8(x, o, m, op);
        return;
    }
#endif
    (void)wide;
    if (op == 18) {
        exp2_block_f(x, o, m);
        return;
    }
    vec_lanes_f(x, o, m, op);
}

/* PyTorch's pieces of a flat range of n: cut at every multiple of run and of chunk (chunk 0: none;
 * run 0: n); in each piece the first (len - len % step) elements take the vectorized function and
 * the rest the scalar one (step 0: every element the scalar one, step -1: every element the
 * vectorized one). vec(x, o, a, m) and scalar(x, o, a, b) compute elements [a, a + m) / [a, b) of
 * the buffers (float or double: the callers'). */
typedef void (*piece_fn)(const void *x, void *o, Py_ssize_t a, Py_ssize_t m, int op, int wide);

static void cut_pieces(const void *x, void *o, Py_ssize_t n, int op, Py_ssize_t run, Py_ssize_t chunk,
                       Py_ssize_t step, int wide, piece_fn vec, piece_fn scalar)
{
    if (step < 0) {
        vec(x, o, 0, n, op, wide);
        return;
    }
    if (run <= 0) run = n;
    Py_ssize_t a = 0;
    while (a < n) {
        Py_ssize_t b = (a / run + 1) * run;  /* the next cut: a multiple of run or of chunk */
        if (chunk > 0 && (a / chunk + 1) * chunk < b) b = (a / chunk + 1) * chunk;
        if (b > n) b = n;
        Py_ssize_t v = step > 0 ? (b - a) - (b - a) % step : 0;
        if (v) vec(x, o, a, v, op, wide);
        if (a + v < b) scalar(x, o, a + v, b - a - v, op, wide);
        a = b;
    }
}

static void vec_piece(const void *x, void *o, Py_ssize_t a, Py_ssize_t m, int op, int wide)
{
    vec_block((const float *)x + a, (float *)o + a, m, op, wide);
}

static void scalar_piece(const void *x, void *o, Py_ssize_t a, Py_ssize_t m, int op, int wide)
{
    (void)wide;
    const float *xs = (const float *)x + a;
    float *os = (float *)o + a;
    for (Py_ssize_t i = 0; i < m; i++) os[i] = scalar_lane(xs[i], op);
}

/* the buffers a and b are one memory or apart (an element-for-element loop may then write b) */
static int apart_or_same(const Py_buffer *a, const Py_buffer *b)
{
    const char *p = a->buf, *q = b->buf;
    return p == q || p >= q + b->len || q >= p + a->len;
}

/* run's and run_d's common call: the arguments checked (op 0 to max_op), the buffers of format
 * fmt ("f" or "d") checked, and cut_pieces with the element functions given */
static PyObject *run_loop(PyObject *const *args, Py_ssize_t nargs, const char *name, const char *fmt, long max_op,
                          piece_fn vec, piece_fn scalar)
{
    if (nargs != 7 && nargs != 9) {
        PyErr_Format(PyExc_TypeError, "%s(x, out, op, run, chunk, step, form[, beta, threshold]) takes 7 or 9 "
                     "arguments, not %zd", name, nargs);
        return NULL;
    }
    double beta = nargs == 9 ? PyFloat_AsDouble(args[7]) : 1.0, thr = nargs == 9 ? PyFloat_AsDouble(args[8]) : 20.0;
    long op = PyLong_AsLong(args[2]);
    Py_ssize_t run = PyLong_AsSsize_t(args[3]), chunk = PyLong_AsSsize_t(args[4]), step = PyLong_AsSsize_t(args[5]);
    long form = PyLong_AsLong(args[6]);
    if (PyErr_Occurred()) return NULL;
    if (op < 0 || op > max_op || form < -1 || form > 2) {
        PyErr_Format(PyExc_ValueError, "%s: op must be 0 to %ld and form -1, 0, 1 or 2 (got %ld, %ld)", name, max_op, op,
                     form);
        return NULL;
    }
    int wide = pick_level(form);
    if (wide < 0) Py_RETURN_FALSE;
    Py_buffer x, out;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    PyObject *answer = NULL;
    Py_ssize_t size = fmt[0] == 'd' ? 8 : 4;
    if (strcmp(x.format, fmt) != 0 || strcmp(out.format, fmt) != 0 || x.len != out.len) {
        PyErr_Format(PyExc_ValueError, "%s: x and out must be C-contiguous %s buffers of one length "
                     "(formats %s and %s, %zd and %zd bytes)", name, size == 8 ? "float64" : "float32", x.format,
                     out.format, x.len, out.len);
        goto done;
    }
    /* out is x or apart from it: each element is read before its own slot is written */
    if (!apart_or_same(&x, &out)) {
        PyErr_Format(PyExc_ValueError, "%s: out overlaps x partly", name);
        goto done;
    }
    /* (softplus's parameters for this pass, rounded to the element type as beta_.to<scalar_t>()) */
    sp_beta_f = (float)beta, sp_thr_f = (float)thr, sp_beta_d = beta, sp_thr_d = thr;
    mish_half = step > 0 ? step / 2 : 0;  /* (mish's NaN lanes: one Vectorized of the loop's pair) */
    log1p_avx2 = step == -2;  /* (float32 log1p's NaN lanes under AVX2: see sleef_log1pf_pt) */
    Py_BEGIN_ALLOW_THREADS
    cut_pieces(x.buf, out.buf, x.len / size, (int)op, run, chunk, step, wide, vec, scalar);
    Py_END_ALLOW_THREADS
    answer = Py_True;
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    Py_XINCREF(answer);
    return answer;
}

static PyObject *py_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs >= 3 && PyLong_Check(args[2])) {  /* (ops 14 and 15 are float64's alone) */
        long op = PyLong_AsLong(args[2]);
        if (op == 14 || op == 15 || op == 17) {
            PyErr_Format(PyExc_ValueError, "run: op %ld is run_d's alone", op);
            return NULL;
        }
    }
    return run_loop(args, nargs, "run", "f", 22, vec_piece, scalar_piece);
}

#include "_bf16_bits.h"  /* bf2f, f2bf: _halfkernel.c's bf16_widen / bf16_narrow per element */

/* BF16_BLOCK: the fused loop's float32 stack buffer, in elements. A multiple of 32 (vec_block's
 * widest step): every block but the last is whole steps, so each element takes the same lane
 * code as in one vec_block call over the whole widened run (the tail's elements too). */
#define BF16_BLOCK 512

#if HAVE_X86
/* bf2f / f2bf(., 0xFFFF) sixteen lanes at a time (AVX-512F; this module is built without
 * -fno-trapping-math, so GCC does not vectorise the scalar select): the same integer steps, the
 * NaN test the unordered compare of f != f. Each converts the first m - m % 16 elements of its
 * block and returns that count (the scalar loop does the rest). */
__attribute__((target("avx512f"))) static Py_ssize_t bf16_widen16(const uint16_t *x, float *o, Py_ssize_t m)
{
    Py_ssize_t i = 0;
    for (; i + 16 <= m; i += 16) {
        __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(x + i)));
        _mm512_storeu_si512((void *)(o + i), _mm512_slli_epi32(w, 16));
    }
    return i;
}

__attribute__((target("avx512f"))) static Py_ssize_t bf16_narrow16(const float *x, uint16_t *o, Py_ssize_t m)
{
    Py_ssize_t i = 0;
    for (; i + 16 <= m; i += 16) {
        __m512 f = _mm512_loadu_ps(x + i);
        __m512i u = _mm512_castps_si512(f);
        __m512i odd = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
        __m512i r = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)), odd), 16);
        r = _mm512_mask_mov_epi32(r, _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q), _mm512_set1_epi32(0xffff));
        _mm256_storeu_si256((__m256i *)(o + i), _mm512_cvtepi32_epi16(r));
    }
    return i;
}
#endif

/* run_bf16(x, out, op) -> bool: run(x', out', op, 0, 0, -1, -1) of the bfloat16 words x widened
 * to float32 (exact), rounded back to nearest even with every NaN 0xFFFF into the bfloat16
 * words out -- the three passes bf16_widen, run, bf16_narrow (_halfkernel.c; the same bits by
 * construction: the same conversion functions and the same float32 block function), in one pass
 * through a BF16_BLOCK-element stack buffer, so the run's float32 copy is never in memory.
 * x, out: C-contiguous buffers of one even length (any format: the caller checks the dtype;
 * out writable, x itself or apart from it). op: run's op 0 to 7. False (nothing written) where
 * the lengths differ or are odd. */
static PyObject *py_run_bf16(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "run_bf16(x, out, op) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    long op = PyLong_AsLong(args[2]);
    if (op == -1 && PyErr_Occurred()) return NULL;
    if (op < 0 || op > 7) {
        PyErr_Format(PyExc_ValueError, "run_bf16: op must be 0 to 7 (got %ld)", op);
        return NULL;
    }
    Py_buffer x, out;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    PyObject *answer = Py_False;
    if (!apart_or_same(&x, &out)) {
        PyErr_SetString(PyExc_ValueError, "run_bf16: out overlaps x partly");
        answer = NULL;
    } else if (x.len == out.len && x.len % 2 == 0) {
        const uint16_t *xs = (const uint16_t *)x.buf;
        uint16_t *os = (uint16_t *)out.buf;
        Py_ssize_t n = x.len / 2;
        int wide = pick_level(-1);  /* (run's form -1) */
        Py_BEGIN_ALLOW_THREADS
        float buf[BF16_BLOCK];
        for (Py_ssize_t a = 0; a < n; a += BF16_BLOCK) {
            Py_ssize_t m = n - a < BF16_BLOCK ? n - a : BF16_BLOCK;
            Py_ssize_t v = 0;
#if HAVE_X86
            if (wide == W512) v = bf16_widen16(xs + a, buf, m);
#endif
            for (Py_ssize_t i = v; i < m; i++) buf[i] = bf2f(xs[a + i]);
            vec_block(buf, buf, m, (int)op, wide);  /* (in place: run allows out = x) */
#if HAVE_X86
            if (wide == W512) v = bf16_narrow16(buf, os + a, m);
#endif
            for (Py_ssize_t i = v; i < m; i++) os[a + i] = f2bf(buf[i], 0xffffu);
        }
        Py_END_ALLOW_THREADS
        answer = Py_True;
    }
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    Py_XINCREF(answer);
    return answer;
}

/* softmax_dims(x, out, outer, size, inner, mask) -> bool: PyTorch's float32 softmax along a dim other
 * than the last (SoftMaxKernel.cpp's _vec_softmax) of the C-contiguous float32 x viewed as (outer,
 * size, inner), into out (the same length, apart from x), as kernels/softmax_dims.py's
 * softmax_float32 computes it: at each of the outer * inner positions the maximum along the dim,
 * e = x - max, SLEEF's expf (run's op 0, its lanes where the CPU has AVX-512F) or, where mask (a
 * uint8 buffer of outer * inner, or None: none) is nonzero, the C library's expf (the scalar loop's
 * positions), the sum of the e in dim order, and e / sum. False (out then holds nothing meaningful)
 * where an element of x is not finite (which NaN comes out is NumPy's business there: the caller's
 * NumPy steps run). */
static PyObject *py_softmax_dims(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "softmax_dims(x, out, outer, size, inner, mask) takes 6 arguments, not %zd",
                     nargs);
        return NULL;
    }
    Py_ssize_t outer = PyLong_AsSsize_t(args[2]), size = PyLong_AsSsize_t(args[3]), inner = PyLong_AsSsize_t(args[4]);
    if (PyErr_Occurred()) return NULL;
    Py_buffer x, out, mask;
    int has_mask = args[5] != Py_None;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    if (has_mask && PyObject_GetBuffer(args[5], &mask, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&x);
        PyBuffer_Release(&out);
        return NULL;
    }
    PyObject *answer = NULL;
    const char *xl = x.buf, *ol = out.buf;
    if (strcmp(x.format, "f") != 0 || strcmp(out.format, "f") != 0 || x.len != out.len || outer < 1 || size < 1
        || inner < 1 || x.len != outer * size * inner * 4 || (has_mask && mask.len != outer * inner)) {
        PyErr_Format(PyExc_ValueError, "softmax_dims: x and out must be C-contiguous float32 buffers of outer * size "
                     "* inner elements and mask None or a buffer of outer * inner bytes (formats %s and %s, %zd and "
                     "%zd bytes; %zd, %zd, %zd)", x.format, out.format, x.len, out.len, outer, size, inner);
        goto done;
    }
    if (xl < ol + out.len && ol < xl + x.len) {
        PyErr_SetString(PyExc_ValueError, "softmax_dims: out overlaps x");
        goto done;
    }
    {
        const float *xs = x.buf;
        float *os = out.buf;
        const unsigned char *scalar = has_mask ? mask.buf : NULL;
        Py_ssize_t total = outer * size * inner, block = size * inner;
        float stack_top[256];
        float *top = outer * inner > 256 ? PyMem_RawMalloc((size_t)(outer * inner) * sizeof(float)) : stack_top;
        if (!top) {
            PyErr_NoMemory();
            goto done;
        }
        int finite = 1;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < total && finite; i++) finite = isfinite(xs[i]);
        if (finite) {
            for (Py_ssize_t o = 0; o < outer; o++) {
                float *t = top + o * inner;
                const float *xb = xs + o * block;
                float *ob = os + o * block;
                for (Py_ssize_t j = 0; j < inner; j++) t[j] = xb[j];
                for (Py_ssize_t d = 1; d < size; d++)
                    for (Py_ssize_t j = 0; j < inner; j++)
                        if (xb[d * inner + j] > t[j]) t[j] = xb[d * inner + j];
                for (Py_ssize_t d = 0; d < size; d++)
                    for (Py_ssize_t j = 0; j < inner; j++) ob[d * inner + j] = xb[d * inner + j] - t[j];
            }
            int wide = pick_level(-1);
            if (!scalar) vec_block(os, os, total, 0, wide);  /* (SLEEF's expf everywhere, as run's op 0) */
            for (Py_ssize_t o = 0; o < outer; o++) {
                float *ob = os + o * block;
                if (scalar) {
                    /* the scalar loop's positions: the C library's expf; each run of the others along
                     * inner: SLEEF's, a block per d (its lanes give each element the same bits) */
                    const unsigned char *m = scalar + o * inner;
                    for (Py_ssize_t j = 0; j < inner;) {
                        Py_ssize_t r = j + 1;
                        while (r < inner && m[r] == m[j]) r++;
                        for (Py_ssize_t d = 0; d < size; d++) {
                            float *e = ob + d * inner;
                            if (m[j])
                                for (Py_ssize_t i = j; i < r; i++) e[i] = expf(e[i]);
                            else
                                vec_block(e + j, e + j, r - j, 0, wide);
                        }
                        j = r;
                    }
                }
                for (Py_ssize_t j = 0; j < inner; j++) {
                    float sum = ob[j];
                    for (Py_ssize_t d = 1; d < size; d++) sum += ob[d * inner + j];
                    for (Py_ssize_t d = 0; d < size; d++) ob[d * inner + j] /= sum;
                }
            }
        }
        Py_END_ALLOW_THREADS
        if (top != stack_top) PyMem_RawFree(top);
        answer = finite ? Py_True : Py_False;
    }
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    if (has_mask) PyBuffer_Release(&mask);
    Py_XINCREF(answer);
    return answer;
}

/* run2(y, x, out, vec, form[, step[, op]]): atan2(y, x) (op 0; op 1: logaddexp2(y, x), op 2: the same
 * under ATen's DEFAULT capability, op 3 under AVX2: see logaddexp2_lane) of C-contiguous float32 buffers of one length into out
 * (out may be y or x, not partly either): vec 1 Vectorized<float>::atan2 (SLEEF's) at every element,
 * 0 std::atan2 (the C library's atan2f) at every element (the caller picks PyTorch's elements of
 * each); form as run's. step > 0 (with vec 1): the buffers are one of PyTorch's rows, whose last
 * n % step elements its scalar loop computes (the C library's), the rest SLEEF's: one call for a
 * run below the parallel grain. True once written, False where the form is unavailable. */
#if HAVE_X86
__attribute__((target("avx512f"))) static void atan2_block16(const float *y, const float *x, float *o, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    for (; i + 64 <= n; i += 64) {  /* (four vectors a step: their dependent chains overlap; the same bits) */
        __m512 r0 = sleef_atan2f16(_mm512_loadu_ps(y + i), _mm512_loadu_ps(x + i));
        __m512 r1 = sleef_atan2f16(_mm512_loadu_ps(y + i + 16), _mm512_loadu_ps(x + i + 16));
        __m512 r2 = sleef_atan2f16(_mm512_loadu_ps(y + i + 32), _mm512_loadu_ps(x + i + 32));
        __m512 r3 = sleef_atan2f16(_mm512_loadu_ps(y + i + 48), _mm512_loadu_ps(x + i + 48));
        _mm512_storeu_ps(o + i, r0);
        _mm512_storeu_ps(o + i + 16, r1);
        _mm512_storeu_ps(o + i + 32, r2);
        _mm512_storeu_ps(o + i + 48, r3);
    }
    for (; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(o + i, k, sleef_atan2f16(_mm512_maskz_loadu_ps(k, y + i), _mm512_maskz_loadu_ps(k, x + i)));
    }
}

/* atan2_block16 in eight lanes (AVX2 with FMA): four vectors a step, then one, then the last n % 8
 * elements through masked loads and stores (the lanes past n read as +0 and are not written) */
__attribute__((target("avx2,fma"))) static void atan2_block8(const float *y, const float *x, float *o, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    for (; i + 32 <= n; i += 32) {  /* (four independent chains, as atan2_block16's) */
        __m256 r0 = sleef_atan2f8(_mm256_loadu_ps(y + i), _mm256_loadu_ps(x + i));
        __m256 r1 = sleef_atan2f8(_mm256_loadu_ps(y + i + 8), _mm256_loadu_ps(x + i + 8));
        __m256 r2 = sleef_atan2f8(_mm256_loadu_ps(y + i + 16), _mm256_loadu_ps(x + i + 16));
        __m256 r3 = sleef_atan2f8(_mm256_loadu_ps(y + i + 24), _mm256_loadu_ps(x + i + 24));
        _mm256_storeu_ps(o + i, r0);
        _mm256_storeu_ps(o + i + 8, r1);
        _mm256_storeu_ps(o + i + 16, r2);
        _mm256_storeu_ps(o + i + 24, r3);
    }
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(o + i, sleef_atan2f8(_mm256_loadu_ps(y + i), _mm256_loadu_ps(x + i)));
    if (i < n) {
        __m256i k = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n - i)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        _mm256_maskstore_ps(o + i, k, sleef_atan2f8(_mm256_maskload_ps(y + i, k), _mm256_maskload_ps(x + i, k)));
    }
}
#endif

/* ---- float32 logaddexp2 (run2's op 1): logaddexp2_kernel's cpu_kernel_vec loop (BinaryOpsKernel.cpp)
 *   vectorized: blendv(m + (a - b).abs().neg().exp2().log1p() * (1 / ln 2), a, (a == b) & (|a| == inf))
 *   scalar:     isinf(a) && a == b ? a : m + std::log1p(std::exp2(-|a - b|)) * (1 / ln 2)
 * m = max(a, b); the product and sum one fused step in both (measured on torch 2.13: GCC contracts
 * them; not in ATen's DEFAULT build, whose every element is the scalar function: run2's op 2); the
 * vectorized exp2 / log1p SLEEF's xexp2f / xlog1pf (u10), the scalar ones the C library's.
 * A NaN a or b gives -|a - b| (the first NaN operand quieted, its sign set: measured in both
 * functions), not max's word; but the default NaN 0x7FC00000 in the AVX2 build's vector lanes. */
SLEEF_LOG_INLINE static float sleef_exp2f_lane(float d)
{
    float u = nearbyintf(d), s = d - u;  /* (vrint: to nearest even) */
    int32_t q = (int32_t)u;
    u = 0.1535920892e-3f;
    u = fmaf(u, s, 0.1339262701e-2f);
    u = fmaf(u, s, 0.9618384764e-2f);
    u = fmaf(u, s, 0.5550347269e-1f);
    u = fmaf(u, s, 0.2402264476e+0f);
    u = fmaf(u, s, 0.6931471825e+0f);
    u = fmaf(u, s, 1.0f);
    uint32_t b1 = (uint32_t)((q >> 1) + 0x7f) << 23, b2 = (uint32_t)((q - (q >> 1)) + 0x7f) << 23;
    float p1, p2;  /* (vldexp2: two factors) */
    memcpy(&p1, &b1, sizeof p1);
    memcpy(&p2, &b2, sizeof p2);
    u = u * p1 * p2;
    if (d >= 128.0f) u = INFINITY;
    if (d < -150.0f) u = 0.0f;
    return u;
}

/* ---- float32 exp2 (run's op 18): exp2_kernel's cpu_kernel_vec loop (UnaryOpsKernel.cpp), its
 * vectorized function Vectorized<float>::exp2() (SLEEF's xexp2f, u10: Sleef_exp2f16_u10 under
 * AVX512, f8 under AVX2), its scalar one std::exp2 (the C library's exp2f). xexp2f's special
 * values: d >= 128 (+inf too) +inf, d < -150 (-inf too) +0, a NaN d itself quieted (its sign and
 * payload: the polynomial's fused steps carry s = d - rint(d)). */
SLEEF_LOG_INLINE static float sleef_exp2f_pt(float d)
{
    if (d != d) return d + d;
    if (d >= 128.0f) return INFINITY;
    if (d < -150.0f) return 0.0f;
    return sleef_exp2f_lane(d);  /* (d in [-150, 128): rint(d) fits an int) */
}

SLEEF_LOG_CLONES static void exp2_block_f(const float *x, float *o, Py_ssize_t m)
{
    for (Py_ssize_t i = 0; i < m; i++) o[i] = sleef_exp2f_pt(x[i]);
}

#define LAE2_INV_LN2 ((float)(1.0 / M_LN2))

SLEEF_LOG_INLINE static float logaddexp2_lane(float a, float b, int vec)
{
    if (isinf(a) && a == b) return a;
    float d = -fabsf(a - b);
    if (d != d) return vec == 3 ? NAN : d;  /* (AVX2's vector lanes: SLEEF's log1pf there gives the default NaN) */
    float m = a > b ? a : b;
    if (vec == 2) return m + log1pf(exp2f(d)) * LAE2_INV_LN2;  /* (ATen's DEFAULT build: no step fused) */
    return fmaf(vec ? sleef_log1pf_pt(sleef_exp2f_lane(d)) : log1pf(exp2f(d)), LAE2_INV_LN2, m);  /* (vec 1, 3) */
}

SLEEF_LOG_CLONES static void logaddexp2_block(const float *a, const float *b, float *o, Py_ssize_t m, int vec)
{
    for (Py_ssize_t i = 0; i < m; i++) o[i] = logaddexp2_lane(a[i], b[i], vec);
}

#if HAVE_X86
/* xexp2f, sixteen lanes (sleef_exp2f_lane's steps). vldexp2's two factors 2^(q >> 1) and
 * 2^(q - (q >> 1)) are one scalef by q = rint(d) here: the polynomial u is in [0.7, 1.5], so
 * u * 2^(q >> 1) is exact (a normal number for every q >= -150) and the second product rounds
 * once, as scalef's one rounding of u * 2^q; the lanes the two selects leave are d in [-150, 128)
 * and NaN (scalef keeps its first operand's NaN, the polynomial's: d quieted). All 2^32 inputs
 * give the integer form's bits (session 42: a C harness, every word, NaN payloads included);
 * 7 vector instructions fewer a lane group, the exp2 of 1M elements 1.45x -> ~1.0x NumPy's SVML. */
__attribute__((target("avx512f"), always_inline)) static inline __m512 sleef_exp2f16(__m512 d)
{
    __m512 q = _mm512_roundscale_ps(d, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 s = _mm512_sub_ps(d, q);
    __m512 u = _mm512_set1_ps(0.1535920892e-3f);
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.1339262701e-2f));
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.9618384764e-2f));
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.5550347269e-1f));
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.2402264476e+0f));
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.6931471825e+0f));
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(1.0f));
    u = _mm512_scalef_ps(u, q);
    u = _mm512_mask_mov_ps(u, _mm512_cmp_ps_mask(d, _mm512_set1_ps(128.0f), _CMP_GE_OQ), _mm512_set1_ps(INFINITY));
    return _mm512_mask_mov_ps(u, _mm512_cmp_ps_mask(d, _mm512_set1_ps(-150.0f), _CMP_LT_OQ), _mm512_setzero_ps());
}

/* xexp2f, eight lanes (AVX2 with FMA, Sleef_exp2f8_u10): sleef_exp2f16's steps, the same bits */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256 sleef_exp2f8(__m256 d)
{
    __m256 u = _mm256_round_ps(d, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256i q = _mm256_cvtps_epi32(u);
    __m256 s = _mm256_sub_ps(d, u);
    u = _mm256_set1_ps(0.1535920892e-3f);
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.1339262701e-2f));
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.9618384764e-2f));
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.5550347269e-1f));
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.2402264476e+0f));
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.6931471825e+0f));
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(1.0f));
    __m256i q1 = _mm256_srai_epi32(q, 1), q2 = _mm256_sub_epi32(q, q1), bias = _mm256_set1_epi32(0x7f);
    u = _mm256_mul_ps(u, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(q1, bias), 23)));
    u = _mm256_mul_ps(u, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(q2, bias), 23)));
    u = _mm256_blendv_ps(u, _mm256_set1_ps(INFINITY), _mm256_cmp_ps(d, _mm256_set1_ps(128.0f), _CMP_GE_OQ));
    return _mm256_andnot_ps(_mm256_cmp_ps(d, _mm256_set1_ps(-150.0f), _CMP_LT_OQ), u);
}

/* exp2_block_f, eight lanes; the last m % 8 elements one at a time (sleef_exp2f_pt, inline here) */
__attribute__((target("avx2,fma"))) static void exp2_block8_f(const float *x, float *o, Py_ssize_t m)
{
    Py_ssize_t i = 0;
    for (; i + 32 <= m; i += 32) {  /* (four independent vectors a step, as exp2_block16_f) */
        __m256 a = sleef_exp2f8(_mm256_loadu_ps(x + i)), b = sleef_exp2f8(_mm256_loadu_ps(x + i + 8));
        __m256 c = sleef_exp2f8(_mm256_loadu_ps(x + i + 16)), d = sleef_exp2f8(_mm256_loadu_ps(x + i + 24));
        _mm256_storeu_ps(o + i, a);
        _mm256_storeu_ps(o + i + 8, b);
        _mm256_storeu_ps(o + i + 16, c);
        _mm256_storeu_ps(o + i + 24, d);
    }
    for (; i + 8 <= m; i += 8) _mm256_storeu_ps(o + i, sleef_exp2f8(_mm256_loadu_ps(x + i)));
    for (; i < m; i++) o[i] = sleef_exp2f_pt(x[i]);
}

/* exp2_block_f, sixteen lanes (every input: a NaN lane's s = d - rint(d) is d quieted, an
 * out-of-range lane's scale is masked by the two selects). Four independent vectors a step, whole
 * (one masked vector a step was latency-bound: 1M elements 330 us, four 233 with vldexp2's
 * integer factors, 182 with scalef; eight no better), then the masked sixteen-lane tail. */
__attribute__((target("avx512f"))) static void exp2_block16_f(const float *x, float *o, Py_ssize_t m)
{
    Py_ssize_t i = 0;
    for (; i + 64 <= m; i += 64) {
        __m512 a = sleef_exp2f16(_mm512_loadu_ps(x + i)), b = sleef_exp2f16(_mm512_loadu_ps(x + i + 16));
        __m512 c = sleef_exp2f16(_mm512_loadu_ps(x + i + 32)), d = sleef_exp2f16(_mm512_loadu_ps(x + i + 48));
        _mm512_storeu_ps(o + i, a);
        _mm512_storeu_ps(o + i + 16, b);
        _mm512_storeu_ps(o + i + 32, c);
        _mm512_storeu_ps(o + i + 48, d);
    }
    for (; i < m; i += 16) {
        __mmask16 k = m - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (m - i)) - 1);
        _mm512_mask_storeu_ps(o + i, k, sleef_exp2f16(_mm512_maskz_loadu_ps(k, x + i)));
    }
}

/* logaddexp2_lane's vectorized function (vec 1 / 3), sixteen lanes: exp2(-|a - b|) is in [0, 1],
 * sleef_log1pf16_unit's range; a lane with a NaN or with a == b infinite is redone one at a time */
__attribute__((target("avx512f"))) static void logaddexp2_block16(const float *a, const float *b, float *o,
                                                                  Py_ssize_t m, int vec)
{
    const __m512 inv = _mm512_set1_ps(LAE2_INV_LN2), inf = _mm512_set1_ps(INFINITY);
    const __m512i mag = _mm512_set1_epi32(0x7FFFFFFF);
    for (Py_ssize_t i = 0; i < m; i += 16) {
        __mmask16 k = m - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (m - i)) - 1);
        __m512 x = _mm512_maskz_loadu_ps(k, a + i), y = _mm512_maskz_loadu_ps(k, b + i);
        __m512 ad = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(_mm512_sub_ps(x, y)), mag));
        __m512 d = _mm512_sub_ps(_mm512_setzero_ps(), ad);
        __m512 r = _mm512_fmadd_ps(sleef_log1pf16_unit(sleef_exp2f16(d)), inv, _mm512_max_ps(x, y));
        __m512 ax = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(x), mag));
        __mmask16 odd = (_mm512_cmp_ps_mask(x, y, _CMP_UNORD_Q)
                         | (_mm512_cmp_ps_mask(x, y, _CMP_EQ_OQ) & _mm512_cmp_ps_mask(ax, inf, _CMP_EQ_OQ))) & k;
        if (odd) {
            float rv[16];
            _mm512_storeu_ps(rv, r);
            for (int j = 0; j < 16; j++)
                if (odd >> j & 1) rv[j] = logaddexp2_lane(a[i + j], b[i + j], vec);
            r = _mm512_loadu_ps(rv);
        }
        _mm512_mask_storeu_ps(o + i, k, r);
    }
}

/* logaddexp2_block16 in eight lanes (AVX2 with FMA: sleef_exp2f8, sleef_log1pf8_unit, whose range
 * [0, 1] exp2(-|a - b|) keeps): the same steps, the same bits; the odd lanes (a NaN, a == b
 * infinite) and the last m % 8 elements one at a time */
__attribute__((target("avx2,fma"))) static void logaddexp2_block8(const float *a, const float *b, float *o,
                                                                 Py_ssize_t m, int vec)
{
    const __m256 inv = _mm256_set1_ps(LAE2_INV_LN2), inf = _mm256_set1_ps(INFINITY), sgn = _mm256_set1_ps(-0.0f);
    Py_ssize_t i = 0;
    for (; i + 8 <= m; i += 8) {
        __m256 x = _mm256_loadu_ps(a + i), y = _mm256_loadu_ps(b + i);
        __m256 d = _mm256_sub_ps(_mm256_setzero_ps(), _mm256_andnot_ps(sgn, _mm256_sub_ps(x, y)));
        __m256 r = _mm256_fmadd_ps(sleef_log1pf8_unit(sleef_exp2f8(d)), inv, _mm256_max_ps(x, y));
        __m256 odd = _mm256_or_ps(_mm256_cmp_ps(x, y, _CMP_UNORD_Q),
                                  _mm256_and_ps(_mm256_cmp_ps(x, y, _CMP_EQ_OQ),
                                                _mm256_cmp_ps(_mm256_andnot_ps(sgn, x), inf, _CMP_EQ_OQ)));
        _mm256_storeu_ps(o + i, r);
        int bits = _mm256_movemask_ps(odd);
        for (int j = 0; bits; j++, bits >>= 1)
            if (bits & 1) o[i + j] = logaddexp2_lane(a[i + j], b[i + j], vec);
    }
    for (; i < m; i++) o[i] = logaddexp2_lane(a[i], b[i], vec);
}
#endif

static PyObject *py_run2(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs < 5 || nargs > 7) {
        PyErr_Format(PyExc_TypeError, "run2(y, x, out, vec, form[, step[, op]]) takes 5 to 7 arguments, not %zd", nargs);
        return NULL;
    }
    long vec = PyLong_AsLong(args[3]), form = PyLong_AsLong(args[4]);
    long step = nargs >= 6 ? PyLong_AsLong(args[5]) : 0;
    long fn = nargs == 7 ? PyLong_AsLong(args[6]) : 0;
    if (PyErr_Occurred()) return NULL;
    if (vec < 0 || vec > 1 || form < -1 || form > 2 || step < 0 || fn < 0 || fn > 3) {
        PyErr_Format(PyExc_ValueError, "run2: vec must be 0 or 1, form -1, 0, 1 or 2, step >= 0 and op 0 to 3 (got %ld, "
                     "%ld, %ld, %ld)", vec, form, step, fn);
        return NULL;
    }
    int wide = pick_level(form);
    if (wide < 0) Py_RETURN_FALSE;
    Py_buffer y, x, out;
    if (PyObject_GetBuffer(args[0], &y, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&y);
        return NULL;
    }
    if (PyObject_GetBuffer(args[2], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&y);
        PyBuffer_Release(&x);
        return NULL;
    }
    PyObject *answer = NULL;
    if (strcmp(y.format, "f") != 0 || strcmp(x.format, "f") != 0 || strcmp(out.format, "f") != 0 || y.len != out.len
        || x.len != out.len) {
        PyErr_SetString(PyExc_ValueError, "run2: y, x and out must be C-contiguous float32 buffers of one length");
        goto done;
    }
    if (!apart_or_same(&y, &out) || !apart_or_same(&x, &out)) {
        PyErr_SetString(PyExc_ValueError, "run2: out overlaps y or x partly");
        goto done;
    }
    {
        const float *yp = y.buf, *xp = x.buf;
        float *op = out.buf;
        Py_ssize_t n = out.len / 4;
        /* the scalar loop's elements: all (vec 0), the row's last n % step (step), none */
        Py_ssize_t body = !vec ? 0 : step > 0 ? n - n % step : n;
        Py_BEGIN_ALLOW_THREADS
        if (fn >= 1) {  /* (logaddexp2(y, x): a = y, b = x; op 2: ATen's DEFAULT build, every element its
                         * unfused scalar function; op 3: the AVX2 build's, its vector lanes' NaN words) */
            if (fn == 2) body = 0;
#if HAVE_X86
            if (wide == W512) logaddexp2_block16(yp, xp, op, body, fn == 3 ? 3 : 1);
            else if (wide == W256) logaddexp2_block8(yp, xp, op, body, fn == 3 ? 3 : 1);
            else
#endif
                logaddexp2_block(yp, xp, op, body, fn == 3 ? 3 : 1);
            logaddexp2_block(yp + body, xp + body, op + body, n - body, fn == 2 ? 2 : 0);
        } else {
#if HAVE_X86
            if (wide == W512) atan2_block16(yp, xp, op, body);
            else if (wide == W256) atan2_block8(yp, xp, op, body);
            else
#endif
                for (Py_ssize_t i = 0; i < body; i++) op[i] = sleef_atan2f(yp[i], xp[i]);
            for (Py_ssize_t i = body; i < n; i++) op[i] = atan2f(yp[i], xp[i]);
        }
        Py_END_ALLOW_THREADS
    }
    answer = Py_True;
done:
    PyBuffer_Release(&y);
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    Py_XINCREF(answer);
    return answer;
}

/* ---- float64 log1p (run_d's op 16): ATen's log1p of double is vml's vec::map of
 * Vectorized<double>::log1p() (SLEEF's xlog1p, u10; MKL's Log1p is not used by vml), so every
 * element, a row's tail too (a partial vector), takes SLEEF's function, whatever its position
 * (measured on torch 2.13, AVX512: each element of a 1000-long run equals the same value alone);
 * under ATen's DEFAULT capability the lanes are std::log1p (step 0: the scalar function). Special
 * values as measured there: a NaN or x < -1 gives the default NaN 0x7FF8000000000000 (not xlog1p's
 * all-ones word), -1 -inf, +-0 itself, x beyond 1e307 SLEEF's log. (float64 tanh is vml's MKL
 * vdTanh, not SLEEF's: not reproduced here.) */
static SLEEF_AI double sleef_log1p_pt(double d)
{
    if (d > -1.0 && d <= 1e307) return d == 0.0 ? d : sleef_log1p_core(d);
    if (d > 1e307) return sleef_log_or_libm(d);
    if (d == -1.0) return -INFINITY;
    uint64_t b = 0x7FF8000000000000ull;  /* (a NaN, or below -1) */
    double r;
    memcpy(&r, &b, sizeof r);
    return r;
}

/* op 16's lanes one at a time (the FMA clone: the core's fma one instruction each; the same bits) */
SLEEF_LOG_CLONES static void log1p_block_d(const double *x, double *o, Py_ssize_t m)
{
    for (Py_ssize_t i = 0; i < m; i++) o[i] = sleef_log1p_pt(x[i]);
}

#if HAVE_X86
/* eight lanes by the AVX-512 core (sleef_log1p8_unit: the one-lane core's steps, any d in (-1, 1e307]);
 * a lane outside that range, or +-0, is redone by sleef_log1p_pt (rare: the same bits) */
__attribute__((target("avx512f"))) static void log1p_block8_d(const double *x, double *o, Py_ssize_t m)
{
    Py_ssize_t i = 0;
    const __m512d lo = _mm512_set1_pd(-1.0), hi = _mm512_set1_pd(1e307), zero = _mm512_setzero_pd();
    for (; i + 8 <= m; i += 8) {
        __m512d d = _mm512_loadu_pd(x + i);
        __mmask8 ok = _mm512_cmp_pd_mask(d, lo, _CMP_GT_OQ) & _mm512_cmp_pd_mask(d, hi, _CMP_LE_OQ)
                      & _mm512_cmp_pd_mask(d, zero, _CMP_NEQ_OQ);
        __m512d r = sleef_log1p8_unit(_mm512_mask_mov_pd(zero, ok, d));
        if (ok != 0xFF) {  /* (from copies of the lanes: o may be x itself, in place) */
            double dv[8], rv[8];
            _mm512_storeu_pd(dv, d);
            _mm512_storeu_pd(rv, r);
            for (int j = 0; j < 8; j++)
                if (!(ok >> j & 1)) rv[j] = sleef_log1p_pt(dv[j]);
            r = _mm512_loadu_pd(rv);
        }
        _mm512_storeu_pd(o + i, r);
    }
    for (; i < m; i++) o[i] = sleef_log1p_pt(x[i]);
}

/* log1p_block8_d in four lanes (AVX2 with FMA, sleef_log1p4_unit); the same bits */
__attribute__((target("avx2,fma"))) static void log1p_block4_d(const double *x, double *o, Py_ssize_t m)
{
    Py_ssize_t i = 0;
    const __m256d lo = _mm256_set1_pd(-1.0), hi = _mm256_set1_pd(1e307), zero = _mm256_setzero_pd();
    for (; i + 4 <= m; i += 4) {
        __m256d d = _mm256_loadu_pd(x + i);
        __m256d okv = _mm256_and_pd(_mm256_and_pd(_mm256_cmp_pd(d, lo, _CMP_GT_OQ), _mm256_cmp_pd(d, hi, _CMP_LE_OQ)),
                                    _mm256_cmp_pd(d, zero, _CMP_NEQ_OQ));
        int ok = _mm256_movemask_pd(okv);
        __m256d r = sleef_log1p4_unit(_mm256_and_pd(okv, d));
        if (ok != 0xF) {  /* (from copies of the lanes: o may be x itself, in place) */
            double dv[4], rv[4];
            _mm256_storeu_pd(dv, d);
            _mm256_storeu_pd(rv, r);
            for (int j = 0; j < 4; j++)
                if (!(ok >> j & 1)) rv[j] = sleef_log1p_pt(dv[j]);
            r = _mm256_loadu_pd(rv);
        }
        _mm256_storeu_pd(o + i, r);
    }
    for (; i < m; i++) o[i] = sleef_log1p_pt(x[i]);
}
#endif

/* run_d(x, out, op, run, chunk, step, form): run's loop over C-contiguous float64 buffers, PyTorch's
 * double sigmoid (op 1) and silu (op 2), or SLEEF's exp alone (op 0), or the C library's exp alone
 * (op 3: std::exp, a scalar loop's, for strided.kernels.softmax_dims), or expm1 (op 7: SLEEF's expm1 in
 * the vectorized function, the C library's in the scalar one), or elu at alpha 1 (op 8: x where x > 0,
 * else op 7's expm1): the vectorized function with
 * Vectorized<double>::exp() (SLEEF's expd, _sleef_exp.h), the scalar one with std::exp (the C
 * library's exp); step is 2 * Vectorized<double>::size() (16 under AVX512, 8 under AVX2). Ops 9 to 16
 * as described at their functions above; op 17: gelu's exact form (gelu_erf_d: SLEEF's erf vectorized,
 * the C library's in the scalar function). */
/* ---- float64 exp2 (run_d's op 18): exp2_kernel's cpu_kernel_vec loop over Vectorized<double>, its
 * vectorized function SLEEF's xexp2 (Sleef_exp2d8_u10 under AVX512; sleefsimddp.c, ENABLE_FMA_DP:
 * q = rint(d), s = d - q, POLY10 by Estrin's scheme as xexp's (_sleef_exp.h), then u s + ln 2 and
 * u s + 1 fused, u * 2^(q >> 1) * 2^(q - (q >> 1)); d >= 1024 +inf, d < -2000 +0, a NaN quieted),
 * its scalar one std::exp2 (the C library's exp2). One lane, in plain C (fma). */
SLEEF_LOG_INLINE static double sleef_exp2_pt(double d)
{
    if (d != d) return d + d;
    if (d >= 1024.0) return INFINITY;
    if (d < -2000.0) return 0.0;
    double u = nearbyint(d), s = d - u;  /* (vrint: to nearest even) */
    int32_t q = (int32_t)u;
    double s2 = s * s, s4 = s2 * s2, s8 = s4 * s4;
    double hi = fma(s, +0.4434359082926529454e-9, +0.7073164598085707425e-8);
    double mid = fma(s2, fma(s, +0.1017819260921760451e-6, +0.1321543872511327615e-5),
                     fma(s, +0.1525273353517584730e-4, +0.1540353045101147808e-3));
    double lo = fma(s2, fma(s, +0.1333355814670499073e-2, +0.9618129107597600536e-2),
                    fma(s, +0.5550410866482046596e-1, +0.2402265069591012214e+0));
    u = fma(s8, hi, fma(s4, mid, lo));
    u = fma(u, s, +0.6931471805599452862e+0);
    u = fma(u, s, 1.0);
    int32_t h = q >> 1;
    return u * sleef_pow2i_d(h) * sleef_pow2i_d(q - h);
}

SLEEF_LOG_CLONES static void exp2_block_d(const double *x, double *o, Py_ssize_t m)
{
    for (Py_ssize_t i = 0; i < m; i++) o[i] = sleef_exp2_pt(x[i]);
}

#if HAVE_X86
/* sleef_exp2_pt, eight lanes (every input: a NaN lane's s = d - rint(d) is d quieted and carries
 * through; an out-of-range lane's int conversion is masked by the two selects) */
__attribute__((target("avx512f"))) static void exp2_block8_d(const double *x, double *o, Py_ssize_t m)
{
    for (Py_ssize_t i = 0; i < m; i += 8) {
        __mmask8 k = m - i >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (m - i)) - 1);
        __m512d d = _mm512_maskz_loadu_pd(k, x + i);
        __m512d u = _mm512_roundscale_pd(d, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __m256i q = _mm512_cvtpd_epi32(u);
        __m512d s = _mm512_sub_pd(d, u);
        __m512d s2 = _mm512_mul_pd(s, s), s4 = _mm512_mul_pd(s2, s2), s8 = _mm512_mul_pd(s4, s4);
        __m512d hi = SLEEF_FMA8(s, SLEEF_C8(+0.4434359082926529454e-9), SLEEF_C8(+0.7073164598085707425e-8));
        __m512d mid = SLEEF_FMA8(s2, SLEEF_FMA8(s, SLEEF_C8(+0.1017819260921760451e-6), SLEEF_C8(+0.1321543872511327615e-5)),
                                 SLEEF_FMA8(s, SLEEF_C8(+0.1525273353517584730e-4), SLEEF_C8(+0.1540353045101147808e-3)));
        __m512d lo = SLEEF_FMA8(s2, SLEEF_FMA8(s, SLEEF_C8(+0.1333355814670499073e-2), SLEEF_C8(+0.9618129107597600536e-2)),
                                SLEEF_FMA8(s, SLEEF_C8(+0.5550410866482046596e-1), SLEEF_C8(+0.2402265069591012214e+0)));
        u = SLEEF_FMA8(s8, hi, SLEEF_FMA8(s4, mid, lo));
        u = SLEEF_FMA8(u, s, SLEEF_C8(+0.6931471805599452862e+0));
        u = SLEEF_FMA8(u, s, SLEEF_C8(1.0));
        __m256i h = _mm256_srai_epi32(q, 1);
        u = _mm512_mul_pd(_mm512_mul_pd(u, sleef_exp8_pow2i(h)), sleef_exp8_pow2i(_mm256_sub_epi32(q, h)));
        u = _mm512_mask_mov_pd(u, _mm512_cmp_pd_mask(d, SLEEF_C8(1024.0), _CMP_GE_OQ), SLEEF_C8(INFINITY));
        u = _mm512_maskz_mov_pd((__mmask8)~_mm512_cmp_pd_mask(d, SLEEF_C8(-2000.0), _CMP_LT_OQ), u);
        _mm512_mask_storeu_pd(o + i, k, u);
    }
}
#endif

static SLEEF_AI double vec_lane_d(double x, int op)
{
    if (op == 3) return exp(x);
    if (op == 7) return sleef_expm1(x);
    if (op == 8) return x > 0.0 ? x : sleef_expm1(x);
    if (op == 9) return x > 0.0 ? x * SELU_POS_D : sleef_expm1(x) * SELU_NEG_D;
    if (op == 10) return softplus_vec_d(x);
    if (op == 12 || op == 13) return mish_vec_d(x, op == 12);
    if (op == 14) return gelu_tanh_d(x, 1, 1);
    if (op == 15) return gelu_tanh_d(x, 0, 0);
    if (op == 16) return sleef_log1p_pt(x);
    if (op == 17) return gelu_erf_d(x, 1);
    if (op == 18) return sleef_exp2_pt(x);
    if (op == 20 || op == 21) return sleef_sinhcosh(x, op == 20);
    if (op == 22) return sleef_atanh(x);
    double e = sleef_exp(op == 0 ? x : -x);  /* (the lanes' negation flips the sign bit, a NaN's too) */
    if (op == 1) return 1.0 / (1.0 + e);
    if (op == 2) return x / (1.0 + e);
    return e;
}

static inline double scalar_lane_d(double x, int op)
{
    if (op == 3) return exp(x);
    if (op == 7) return expm1(x);
    if (op == 8) return x > 0.0 ? x : expm1(x);
    if (op == 9) return x > 0.0 ? x * SELU_POS_D : expm1(x) * SELU_NEG_D;
    if (op == 10) return softplus_scalar_d(x);
    if (op == 11) return exp(x);
    if (op == 12 || op == 13) return mish_scalar_d(x, op == 12);
    if (op == 14) return gelu_tanh_d(x, 0, 1);
    if (op == 15) return gelu_tanh_d(x, 0, 0);
    if (op == 16) return log1p(x);
    if (op == 17) return gelu_erf_d(x, 0);
    if (op == 18) return exp2(x);  /* (exp2: std::exp2 in the scalar function) */
    if (op == 20) return sinh(x);  /* (sinh, cosh, atanh: std::sinh ... in the scalar function) */
    if (op == 21) return cosh(x);
    if (op == 22) return atanh(x);
    if (op == 1) return 1.0 / (1.0 + exp(-x));
    if (op == 2) return x / (1.0 + exp(-x));
    return sleef_exp(x);  /* (op 0 has no scalar function of PyTorch's: SLEEF's throughout) */
}

#if HAVE_X86
__attribute__((target("avx512f"))) static __m512d vec8_d(__m512d x, int op)
{
    if (op == 0) return sleef_exp8(x);
    const __m512d one = _mm512_set1_pd(1.0);
    __m512d e = sleef_exp8(_mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(x), _mm512_set1_epi64(INT64_MIN))));
    return _mm512_div_pd(op == 1 ? one : x, _mm512_add_pd(one, e));
}

__attribute__((target("avx512f"))) static void vec_block8_d(const double *x, double *o, Py_ssize_t m, int op)
{
    Py_ssize_t i = 0;
    for (; i + 8 <= m; i += 8) _mm512_storeu_pd(o + i, vec8_d(_mm512_loadu_pd(x + i), op));
    if (i < m) {
        __mmask8 k = (__mmask8)((1u << (m - i)) - 1);
        _mm512_mask_storeu_pd(o + i, k, vec8_d(_mm512_maskz_loadu_pd(k, x + i), op));
    }
}
#endif

#if HAVE_X86
/* vec8_d's ops 0 to 2 in four lanes (AVX2 with FMA, sleef_exp4); the last m % 4 elements by
 * vec_lane_d (inline here: fma one instruction); the same bits */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256d vec4_d(__m256d x, int op)
{
    if (op == 0) return sleef_exp4(x);
    const __m256d one = _mm256_set1_pd(1.0);
    __m256d e = sleef_exp4(_mm256_xor_pd(x, _mm256_set1_pd(-0.0)));
    return _mm256_div_pd(op == 1 ? one : x, _mm256_add_pd(one, e));
}

__attribute__((target("avx2,fma"))) static void vec_block4_d(const double *x, double *o, Py_ssize_t m, int op)
{
    Py_ssize_t i = 0;
    for (; i + 4 <= m; i += 4) _mm256_storeu_pd(o + i, vec4_d(_mm256_loadu_pd(x + i), op));
    for (; i < m; i++) o[i] = vec_lane_d(x[i], op);
}
#endif

#if HAVE_X86
/* sleef_expm1 in four lanes (AVX2 with FMA, Sleef_expm1d4_u10): its steps are expk2's (_sleef_hyper.h's
 * td4_expk2: the same reduction, polynomial and two-factor 2^q), then ddadd2(t, -1) rounded once; the
 * special lanes in sleef_expm1's order (NaN a + a, above 709.78 +inf, below -36.74 -1, -0 itself). The
 * same bits as the one-lane form. */
__attribute__((target("avx2,fma"))) static __m256d sleef_expm1d4(__m256d a)
{
    __m256d tx, ty;
    td4_expk2(_mm256_add_pd(a, _mm256_setzero_pd()), &tx, &ty);  /* (a + 0: differs from a at -0 only, replaced) */
    const __m256d m1 = _mm256_set1_pd(-1.0);
    __m256d sx = _mm256_add_pd(tx, m1), v = _mm256_sub_pd(sx, tx);
    __m256d sy = _mm256_add_pd(_mm256_add_pd(_mm256_sub_pd(tx, _mm256_sub_pd(sx, v)), _mm256_sub_pd(m1, v)), ty);
    __m256d x = _mm256_add_pd(sx, sy);
    x = _mm256_blendv_pd(x, _mm256_set1_pd(INFINITY), _mm256_cmp_pd(a, _mm256_set1_pd(709.782712893383996732223), _CMP_GT_OQ));
    x = _mm256_blendv_pd(x, m1, _mm256_cmp_pd(a, _mm256_set1_pd(-36.736800569677101399113302437), _CMP_LT_OQ));
    __m256d negz = _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_castpd_si256(a), _mm256_set1_epi64x(INT64_MIN)));
    x = _mm256_blendv_pd(x, a, negz);
    return _mm256_blendv_pd(x, _mm256_add_pd(a, a), _mm256_cmp_pd(a, a, _CMP_UNORD_Q));
}

/* n elements four lanes at a time, the last n % 4 by the one-lane steps (x and o may be one buffer) */
__attribute__((target("avx2,fma"))) static void sleef_expm1d_block4(const double *x, double *o, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    for (; i + 4 <= n; i += 4) _mm256_storeu_pd(o + i, sleef_expm1d4(_mm256_loadu_pd(x + i)));
    for (; i < n; i++) o[i] = sleef_expm1(x[i]);
}
#endif

/* the vectorized function one lane at a time, an FMA clone (vec_lanes_f's reason) */
SLEEF_LOG_CLONES static void vec_lanes_d(const double *x, double *o, Py_ssize_t m, int op)
{
    for (Py_ssize_t i = 0; i < m; i++) o[i] = vec_lane_d(x[i], op);
}

/* float64 sinh (op 20), cosh (21), atanh (22): SLEEF's functions one lane at a time (the FMA clone) */
SLEEF_LOG_CLONES static void hyper_block_d(const double *x, double *o, Py_ssize_t m, int op)
{
    for (Py_ssize_t i = 0; i < m; i++) o[i] = op == 22 ? sleef_atanh(x[i]) : sleef_sinhcosh(x[i], op == 20);
}

#if HAVE_X86
/* hyper_block_d in four lanes (AVX2 with FMA, as ATen's AVX2 build: Sleef_*d4_u10); the last m % 4
 * elements one at a time */
__attribute__((target("avx2,fma"))) static void hyper_block4_d(const double *x, double *o, Py_ssize_t m, int op)
{
    Py_ssize_t i = 0;
    for (; i + 4 <= m; i += 4) {
        __m256d v = _mm256_loadu_pd(x + i);
        _mm256_storeu_pd(o + i, op == 22 ? sleef_atanh4(v) : sleef_sinhcosh4(v, op == 20));
    }
    for (; i < m; i++) o[i] = op == 22 ? sleef_atanh(x[i]) : sleef_sinhcosh(x[i], op == 20);
}

/* hyper_block_d in eight lanes (AVX-512F, as ATen's Sleef_*d8_u10: the same bits as four), the last
 * m % 16 elements masked vectors */
__attribute__((target("avx512f"))) static void hyper_block8_d(const double *x, double *o, Py_ssize_t m, int op)
{
    Py_ssize_t i = 0;
    for (; i + 16 <= m; i += 16) {  /* (two vectors a step, as hyper_block16_f) */
        __m512d a = _mm512_loadu_pd(x + i), b = _mm512_loadu_pd(x + i + 8);
        if (op == 22) {
            a = sleef_atanh8(a);
            b = sleef_atanh8(b);
        } else {
            a = sleef_sinhcosh8(a, op == 20);
            b = sleef_sinhcosh8(b, op == 20);
        }
        _mm512_storeu_pd(o + i, a);
        _mm512_storeu_pd(o + i + 8, b);
    }
    for (; i < m; i += 8) {
        __mmask8 k = m - i >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (m - i)) - 1);
        __m512d v = _mm512_maskz_loadu_pd(k, x + i);
        _mm512_mask_storeu_pd(o + i, k, op == 22 ? sleef_atanh8(v) : sleef_sinhcosh8(v, op == 20));
    }
}
#endif

static void vec_block_d(const double *x, double *o, Py_ssize_t m, int op, int wide)
{
    if (op == 11) op = 0;  /* (EXP_SPLIT's vectorized function: EXP's, SLEEF's exp) */
    if (op == 10) {
#if HAVE_X86
        if (wide == W512) {
            softplus_block8(x, o, m);
            return;
        }
        if (wide == W256) {
            softplus_block4d(x, o, m);
            return;
        }
#endif
        softplus_block_d(x, o, m);
        return;
    }
    if (op == 12 || op == 13) {
#if HAVE_X86
        if (wide == W512) {
            mish_block8(x, o, m, op == 12);
            return;
        }
#endif
        mish_block_d(x, o, m, op == 12);
        return;
    }
    if (op == 16) {  /* (float64 log1p: eight lanes where AVX-512, four where AVX2 + FMA, else one: the same bits) */
#if HAVE_X86
        if (wide == W512) {
            log1p_block8_d(x, o, m);
            return;
        }
        if (wide == W256) {
            log1p_block4_d(x, o, m);
            return;
        }
#endif
        log1p_block_d(x, o, m);
        return;
    }
    if (op == 17) {  /* (float64 gelu's exact form: the one-lane form, its FMA clone) */
        gelu_erf_block_d(x, o, m);
        return;
    }
    if (op >= 20 && op <= 22) {  /* (float64 sinh, cosh, atanh: eight lanes where AVX-512F, four where AVX2 + FMA, else the one-lane form) */
#if HAVE_X86
        if (wide == W512) {
            hyper_block8_d(x, o, m, op);
            return;
        }
        if (wide == W256) {
            hyper_block4_d(x, o, m, op);
            return;
        }
#endif
        hyper_block_d(x, o, m, op);
        return;
    }
    if (op == 18) {  /* (float64 exp2: eight lanes where AVX-512, else the one-lane form: the same bits) */
#if HAVE_X86
        if (wide == W512) {
            exp2_block8_d(x, o, m);
            return;
        }
#endif
        exp2_block_d(x, o, m);
        return;
    }
    if (op == 15) {  /* (gelu's tanh form under ATen's DEFAULT capability: the scalar function throughout) */
        for (Py_ssize_t i = 0; i < m; i++) o[i] = gelu_tanh_d(x[i], 0, 0);
        return;
    }
    if (op == 14) {  /* (gelu's tanh form: eight lanes where AVX-512, else the one-lane form: the same bits) */
#if HAVE_X86
        if (wide == W512) {
            gelu_tanh_block8(x, o, m);
            return;
        }
#endif
        gelu_tanh_block_d(x, o, m);
        return;
    }
#if HAVE_X86
    if (wide == W512 && op == 7) {
        sleef_expm1d_block8(x, o, m);
        return;
    }
    if (op == 8) {  /* (elu at alpha 1: op 7's lanes, then x where x > 0) */
        ELU_BLOCKS(double, elu_fused8, ELU_NONE8, sleef_expm1_block);
        return;
    }
    if (op == 9) {
        ELU_BLOCKS_SCALED(double, elu_fused8, ELU_NONE8, sleef_expm1_block, SELU_POS_D, SELU_NEG_D);
        return;
    }
    if (wide == W512 && op != 3) {
        vec_block8_d(x, o, m, op);
        return;
    }
    if (wide == W256 && op <= 2) {
        vec_block4_d(x, o, m, op);
        return;
    }
#endif
    if (op == 7) {  /* (expm1: four lanes where AVX2 + FMA, else the plain C lanes: the same bits) */
#if HAVE_X86
        if (wide == W256) {
            sleef_expm1d_block4(x, o, m);
            return;
        }
#endif
        sleef_expm1_block(x, o, m);
        return;
    }
    (void)wide;
    vec_lanes_d(x, o, m, op);
}

static void vec_piece_d(const void *x, void *o, Py_ssize_t a, Py_ssize_t m, int op, int wide)
{
    vec_block_d((const double *)x + a, (double *)o + a, m, op, wide);
}

static void scalar_piece_d(const void *x, void *o, Py_ssize_t a, Py_ssize_t m, int op, int wide)
{
    (void)wide;
    const double *xs = (const double *)x + a;
    double *os = (double *)o + a;
    for (Py_ssize_t i = 0; i < m; i++) os[i] = scalar_lane_d(xs[i], op);
}

static PyObject *py_run_d(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs == 7) {  /* (ops 4 to 6 are float32's alone) */
        long op = PyLong_AsLong(args[2]);
        if ((op >= 4 && op <= 6) || op == 19) {
            PyErr_Format(PyExc_ValueError, "run_d: op must be 0 to 3, 7 to 18 or 20 to 22 (got %ld)", op);
            return NULL;
        }
    }
    return run_loop(args, nargs, "run_d", "d", 22, vec_piece_d, scalar_piece_d);
}

/* mish_grad(x, g, t, s, out, fused): PyTorch's mish_backward of flat C-contiguous buffers of one length and
 * format ("f" or "d"), given t = tanh(softplus(x)) (op 13's split) and s = sigmoid(x) (op 1's):
 * out = g * (t + x s (1 - t t)), where fused (1) with the fused steps PyTorch's compiled kernel takes
 * (measured on torch 2.13: g * fma(x s, fma(-t, t, 1), t), its AVX512 / AVX2 builds contract them; 0:
 * one IEEE step each, its DEFAULT build's). Answers True. out may be any of the inputs. */
SLEEF_LOG_CLONES static void mish_grad_f(const float *x, const float *g, const float *t, const float *s, float *o,
                                         Py_ssize_t n, int fused)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        float xs = x[i] * s[i], ti = t[i];
        o[i] = g[i] * (fused ? fmaf(xs, fmaf(-ti, ti, 1.0f), ti) : ti + xs * (1.0f - ti * ti));
    }
}

SLEEF_LOG_CLONES static void mish_grad_d(const double *x, const double *g, const double *t, const double *s, double *o,
                                         Py_ssize_t n, int fused)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        double xs = x[i] * s[i], ti = t[i];
        o[i] = g[i] * (fused ? fma(xs, fma(-ti, ti, 1.0), ti) : ti + xs * (1.0 - ti * ti));
    }
}

static PyObject *py_mish_grad(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "mish_grad(x, g, t, s, out, fused) takes 6 arguments, not %zd", nargs);
        return NULL;
    }
    long fused = PyLong_AsLong(args[5]);
    if (fused == -1 && PyErr_Occurred()) return NULL;
    Py_buffer b[5];
    int got = 0;
    PyObject *answer = NULL;
    for (; got < 5; got++) {
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (got == 4 ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(args[got], &b[got], flags) < 0) goto done;
    }
    for (int i = 1; i < 5; i++) {
        if (strcmp(b[i].format, b[0].format) != 0 || b[i].len != b[0].len) {
            PyErr_SetString(PyExc_ValueError, "mish_grad: the buffers must share one format and length");
            goto done;
        }
    }
    if (strcmp(b[0].format, "f") == 0) {
        Py_BEGIN_ALLOW_THREADS
        mish_grad_f(b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[0].len / 4, fused != 0);
        Py_END_ALLOW_THREADS
    } else if (strcmp(b[0].format, "d") == 0) {
        Py_BEGIN_ALLOW_THREADS
        mish_grad_d(b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[0].len / 8, fused != 0);
        Py_END_ALLOW_THREADS
    } else {
        PyErr_SetString(PyExc_ValueError, "mish_grad: float32 or float64 buffers");
        goto done;
    }
    answer = Py_True;
done:
    while (got-- > 0) PyBuffer_Release(&b[got]);
    Py_XINCREF(answer);
    return answer;
}

static PyObject *py_capability(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromLong(capability_lanes());
}

/* angle_run(z, out, vec, form, step): run2(z.imag, z.real, out, vec, form, step) of one C-contiguous
 * complex64 buffer z (interleaved real and imaginary parts) into the float32 buffer out of its
 * length, without the two part copies: the parts are split into blocks on the stack and each
 * element takes the function run2 gives it at its place in the whole row (SLEEF's below
 * n - n % step, the C library's after; every element is computed alone, so the blocks change no
 * bit). True once written; False where the form is unavailable or the buffers are not those (the
 * caller's run2 of the copied parts then runs). The compiled front of angle calls it. */
static PyObject *py_angle_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "angle_run(z, out, vec, form, step) takes 5 arguments, not %zd", nargs);
        return NULL;
    }
    long vec = PyLong_AsLong(args[2]), form = PyLong_AsLong(args[3]), step = PyLong_AsLong(args[4]);
    if (PyErr_Occurred()) return NULL;
    if (vec < 0 || vec > 1 || form < -1 || form > 2 || step < 0) {
        PyErr_Format(PyExc_ValueError, "angle_run: vec must be 0 or 1, form -1, 0, 1 or 2 and step >= 0 (got %ld, %ld, %ld)",
                     vec, form, step);
        return NULL;
    }
    int wide = pick_level(form);
    if (wide < 0) Py_RETURN_FALSE;
    Py_buffer z, out;
    if (PyObject_GetBuffer(args[0], &z, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&z);
        return NULL;
    }
    PyObject *answer = Py_False;
    Py_ssize_t n = out.len / 4;
    if (strcmp(z.format, "Zf") == 0 && strcmp(out.format, "f") == 0 && z.len == 2 * out.len
        && ((const char *)z.buf >= (const char *)out.buf + out.len || (const char *)out.buf >= (const char *)z.buf + z.len)
        && (uintptr_t)z.buf % 4 == 0 && (uintptr_t)out.buf % 4 == 0) {
        const float *zp = z.buf;
        float *op = out.buf;
        Py_ssize_t body = !vec ? 0 : step > 0 ? n - n % step : n;
        float ys[256], xs[256];
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t a = 0; a < n; a += 256) {
            Py_ssize_t m = n - a < 256 ? n - a : 256;
            for (Py_ssize_t i = 0; i < m; i++) {
                xs[i] = zp[2 * (a + i)];
                ys[i] = zp[2 * (a + i) + 1];
            }
            Py_ssize_t v = body <= a ? 0 : body - a < m ? body - a : m; /* (this block's SLEEF elements) */
#if HAVE_X86
            if (wide == W512) atan2_block16(ys, xs, op + a, v);
            else if (wide == W256) atan2_block8(ys, xs, op + a, v);
            else
#endif
                for (Py_ssize_t i = 0; i < v; i++) op[a + i] = sleef_atan2f(ys[i], xs[i]);
            for (Py_ssize_t i = v; i < m; i++) op[a + i] = atan2f(ys[i], xs[i]);
        }
        Py_END_ALLOW_THREADS
        answer = Py_True;
    }
    PyBuffer_Release(&z);
    PyBuffer_Release(&out);
    Py_INCREF(answer);
    return answer;
}

#include "_sleef_pow.h"  /* pow_run: PyTorch's float32 / float64 pow */

#if HAVE_X86
/* glu's product r[j] = sigmoid * a[j] over n elements, sixteen (eight) lanes at a time: each lane's
 * IEEE product, sigmoid's NaN where it is NaN (the scalar loop's select, same bits; a's quieted NaN
 * where a alone is NaN, as the scalar product gives it) */
/* (NAME over element type T, vector type V, mask type M, LANES lanes, intrinsic suffix S: ps / pd) */
#define GLU_MUL(NAME, T, V, M, LANES, S)                                                             \
    __attribute__((target("avx512f"))) static void NAME(const T *a, T *r, Py_ssize_t n)              \
    {                                                                                                \
        Py_ssize_t j = 0;                                                                            \
        for (; j + (LANES) <= n; j += (LANES)) {                                                     \
            V s = _mm512_loadu_##S(r + j);                                                           \
            M nan = _mm512_cmp_##S##_mask(s, s, _CMP_UNORD_Q);                                       \
            _mm512_storeu_##S(r + j, _mm512_mask_blend_##S(nan, _mm512_mul_##S(s, _mm512_loadu_##S(a + j)), s)); \
        }                                                                                            \
        for (; j < n; j++) {                                                                         \
            T s = r[j], m = s * a[j];                                                                \
            r[j] = s != s ? s : m;                                                                   \
        }                                                                                            \
    }
GLU_MUL(glu_mul16, float, __m512, __mmask16, 16, ps)
GLU_MUL(glu_mul8, double, __m512d, __mmask8, 8, pd)

/* GLU_MUL's AVX2 form (eight float32 / four float64 lanes): the NaN lanes blended in by compare */
#define GLU_MUL_AVX2(NAME, T, V, LANES, S)                                                           \
    __attribute__((target("avx2,fma"))) static void NAME(const T *a, T *r, Py_ssize_t n)             \
    {                                                                                                \
        Py_ssize_t j = 0;                                                                            \
        for (; j + (LANES) <= n; j += (LANES)) {                                                     \
            V s = _mm256_loadu_##S(r + j);                                                           \
            V nan = _mm256_cmp_##S(s, s, _CMP_UNORD_Q);                                              \
            _mm256_storeu_##S(r + j, _mm256_blendv_##S(_mm256_mul_##S(s, _mm256_loadu_##S(a + j)), s, nan)); \
        }                                                                                            \
        for (; j < n; j++) {                                                                         \
            T s = r[j], m = s * a[j];                                                                \
            r[j] = s != s ? s : m;                                                                   \
        }                                                                                            \
    }
GLU_MUL_AVX2(glu_mul8f, float, __m256, 8, ps)
GLU_MUL_AVX2(glu_mul4d, double, __m256d, 4, pd)
#endif

/* glu_rows(x, out, outer, row, step, form[, chunk]) -> bool: PyTorch's glu_kernel (a cpu_kernel_vec loop of
 * a * sigmoid(b)) over a row-major float32 or float64 input split in halves: x holds `outer` blocks
 * of 2 * row elements (a block's first `row` elements a row of a, the next a row of b), out `outer`
 * rows of `row` (C-contiguous buffers of one format, "f" or "d"; out apart from x). Each row is one
 * of PyTorch's (TensorIterator merges the dims from glu's dim inward into it, no further: the
 * halves' outer stride is twice the row), cut too at every multiple of chunk (PyTorch's parallel
 * chunks of the flat result, as run's cut_pieces cuts them; chunk 0 or absent: one chunk): each
 * piece's first len - len % step elements take the vectorized sigmoid (run's op 1: SLEEF's exp),
 * the rest the scalar one (the C library's); step 0 every element the scalar one. Then the product
 * sigmoid(b) * a, whose NaN is sigmoid's where both are NaN (PyTorch's loops give that one; its
 * product is made explicit: the compiler may order a commutative product's operands as it likes).
 * True once written; False where the buffers are not those (nothing written: the caller's general
 * path runs). */
static PyObject *py_glu_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6 && nargs != 7) {
        PyErr_Format(PyExc_TypeError, "glu_rows(x, out, outer, row, step, form[, chunk]) takes 6 or 7 arguments, "
                     "not %zd", nargs);
        return NULL;
    }
    Py_ssize_t outer = PyLong_AsSsize_t(args[2]), row = PyLong_AsSsize_t(args[3]), step = PyLong_AsSsize_t(args[4]);
    long form = PyLong_AsLong(args[5]);
    Py_ssize_t chunk = nargs == 7 ? PyLong_AsSsize_t(args[6]) : 0;
    if (PyErr_Occurred()) return NULL;
    if (outer < 0 || row < 0 || step < 0 || chunk < 0 || form < -1 || form > 2) {
        PyErr_Format(PyExc_ValueError, "glu_rows: outer, row, step and chunk must be >= 0 and form -1, 0, 1 or 2 "
                     "(got %zd, %zd, %zd, %zd, %ld)", outer, row, step, chunk, form);
        return NULL;
    }
    int wide = pick_level(form);
    if (wide < 0) Py_RETURN_FALSE;
    Py_buffer x, out;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    PyObject *answer = Py_False;
    int dbl = strcmp(x.format, "d") == 0;
    Py_ssize_t size = dbl ? 8 : 4, n = outer * row;
    const char *p = x.buf, *q = out.buf;
    if ((dbl || strcmp(x.format, "f") == 0) && strcmp(out.format, x.format) == 0 && (row == 0 || n / row == outer)
        && x.len == 2 * n * size && out.len == n * size && (n == 0 || p >= q + out.len || q >= p + x.len)) {
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t o = 0; o < outer; o++) {
            /* the row's pieces [p, e) (row offsets): cut where the flat index o * row + p reaches a
             * multiple of chunk; each piece's first len - len % step elements the vectorized sigmoid */
            for (Py_ssize_t p = 0; p < row;) {
                Py_ssize_t e = row;
                if (chunk > 0) {
                    Py_ssize_t cut = ((o * row + p) / chunk + 1) * chunk - o * row;
                    if (cut < e) e = cut;
                }
                Py_ssize_t len = e - p, v = step > 0 ? len - len % step : 0;
                if (dbl) {
                    const double *b = (const double *)x.buf + 2 * o * row + row + p;
                    double *r = (double *)out.buf + o * row + p;
                    if (v) vec_block_d(b, r, v, 1, wide);
                    for (Py_ssize_t j = v; j < len; j++) r[j] = scalar_lane_d(b[j], 1);
                } else {
                    const float *b = (const float *)x.buf + 2 * o * row + row + p;
                    float *r = (float *)out.buf + o * row + p;
                    if (v) vec_block(b, r, v, 1, wide);
                    for (Py_ssize_t j = v; j < len; j++) r[j] = scalar_lane(b[j], 1);
                }
                p = e;
            }
#if HAVE_X86
            if (wide == W512) {  /* (the product in AVX-512 lanes: the same bits as the loops below) */
                if (dbl) glu_mul8((const double *)x.buf + 2 * o * row, (double *)out.buf + o * row, row);
                else glu_mul16((const float *)x.buf + 2 * o * row, (float *)out.buf + o * row, row);
                continue;
            }
            if (wide == W256) {  /* (AVX2 lanes: likewise) */
                if (dbl) glu_mul4d((const double *)x.buf + 2 * o * row, (double *)out.buf + o * row, row);
                else glu_mul8f((const float *)x.buf + 2 * o * row, (float *)out.buf + o * row, row);
                continue;
            }
#endif
            if (dbl) {
                const double *a = (const double *)x.buf + 2 * o * row;
                double *r = (double *)out.buf + o * row;
                for (Py_ssize_t j = 0; j < row; j++) {
                    double s = r[j], m = s * a[j];
                    r[j] = s != s ? s : m;
                }
            } else {
                const float *a = (const float *)x.buf + 2 * o * row;
                float *r = (float *)out.buf + o * row;
                for (Py_ssize_t j = 0; j < row; j++) {
                    float s = r[j], m = s * a[j];
                    r[j] = s != s ? s : m;
                }
            }
        }
        Py_END_ALLOW_THREADS
        answer = Py_True;
    }
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    Py_INCREF(answer);
    return answer;
}

static PyMethodDef methods[] = {
    {"pow_run", (PyCFunction)(void (*)(void))py_pow_run, METH_FASTCALL, "PyTorch's pow loops (see _sleef_pow.h)"},
    {"run", (PyCFunction)(void (*)(void))py_run, METH_FASTCALL, "PyTorch's float32 sigmoid / silu loops (see the file)"},
    {"run_bf16", (PyCFunction)(void (*)(void))py_run_bf16, METH_FASTCALL,
     "run of bfloat16 words through float32 in one pass: widen, the float32 loop, round (see the file)"},
    {"run_d", (PyCFunction)(void (*)(void))py_run_d, METH_FASTCALL, "PyTorch's float64 sigmoid / silu loops (see run_d)"},
    {"glu_rows", (PyCFunction)(void (*)(void))py_glu_rows, METH_FASTCALL,
     "PyTorch's float32 / float64 glu of a row-major input's halves, row by row (see the file)"},
    {"run2", (PyCFunction)(void (*)(void))py_run2, METH_FASTCALL, "atan2(y, x) of float32 buffers: SLEEF's or the C library's (see the file)"},
    {"angle_run", (PyCFunction)(void (*)(void))py_angle_run, METH_FASTCALL,
     "run2 of a complex64 buffer's imaginary and real parts, without their copies (see the file)"},
    {"softmax_dims", (PyCFunction)(void (*)(void))py_softmax_dims, METH_FASTCALL,
     "PyTorch's float32 softmax along a dim other than the last, as softmax_dims.softmax_float32 (see the file)"},
    {"mish_grad", (PyCFunction)(void (*)(void))py_mish_grad, METH_FASTCALL,
     "PyTorch's mish_backward from tanh(softplus(x)) and sigmoid(x) (see the file)"},
    {"capability", py_capability, METH_NOARGS, "Vectorized<float>::size() under ATen's capability here"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_sleefkernel", NULL, -1, methods, NULL, NULL, NULL, NULL};

/* The "strided.inplace" capsule's function (kernels/_front.h, entry_inplace): op's values written over
 * the n elements x of kind 'f' (float32) or 'd' (float64), aligned: run's (run_d's) pass with x as
 * its own out, as strided.kernels.sleef.flat_call makes it (run 0, chunk 0, step ival, form -1), for
 * the elu-family ops ELU (8) and SELU (9); np 0, or 1 with p[0] == 1.0 (celu's alpha: at 1 its
 * coefficients are all 1, elu's op itself). 1 written, 0 refused (nothing written). The caller
 * bounds n (the one-chunk runs the fronts' flat_call covers). */
static int sleef_inplace(int op, int kind, void *x, Py_ssize_t n, const double *p, Py_ssize_t np_, Py_ssize_t ival)
{
    if ((op != 8 && op != 9) || (kind != 'f' && kind != 'd') || !(np_ == 0 || (np_ == 1 && p[0] == 1.0)))
        return 0;
    int wide = pick_level(-1);
    if (kind == 'f')
        cut_pieces(x, x, n, op, 0, 0, ival, wide, vec_piece, scalar_piece);
    else
        cut_pieces(x, x, n, op, 0, 0, ival, wide, vec_piece_d, scalar_piece_d);
    return 1;
}

PyMODINIT_FUNC PyInit__sleefkernel(void)
{
    PyObject *m = PyModule_Create(&module);
    /* inplace: the in-place writes' entry (sleef_inplace), for kernels/_front.h's entry fronts */
    PyObject *cap = m != NULL ? PyCapsule_New((void *)sleef_inplace, "strided.inplace", NULL) : NULL;
    if (cap == NULL || PyModule_AddObject(m, "inplace", cap) < 0) {
        Py_XDECREF(cap);
        Py_XDECREF(m);
        return NULL;
    }
    return m;
}
