/* layer_norm's rows as PyTorch 2.13's CPU kernel computes them (included by _rowkernel.c).
 *
 * LayerNormKernelImplInternal (aten/src/ATen/native/cpu/layer_norm_kernel.cpp) takes each row's
 * mean and biased variance from RowwiseMoments (native/cpu/moments_utils.h), rstd = 1 / sqrt(var +
 * eps), then y = ((x + (-mean)) * rstd) * gamma + beta. The operation order and the FMAs below were
 * fixed by differential tests against torch 2.13.0+cpu's wheel (GCC build, -ffp-contract=fast, its
 * CPU capability AVX512 on the test machine, but the moments' Vectorized lanes are those of a
 * 256-bit vector: 8 float / 4 double), bit for bit over every row length 1..300 and longer:
 *
 *   L lanes, n = N / L whole vectors, chunks of 16 vectors; per chunk and lane, Welford from zero:
 *     d = x - m1; m1 = fma(d, 1/(j+1), m1); m2 = fma(d, x - m1, m2)        (1/(j+1) rounded)
 *   each chunk added (count m0a) into stack level 0 and equal levels carried upward as a binary
 *   counter (depth = ceil(log2(chunks)), at least 1), then levels 1.. added into level 0:
 *     n = m0 + m0a; c = m0a / n; d = m1a - m1; m1 = m1 + c * d;
 *     m2 = fma(d * c, d * m0, m2 + m2a)
 *   the scalar tail (elements past n * L), plain Welford: d = x - m1; m1 += d / k; m2 += d * (x - m1)
 *   then each lane folded into it (count n each): c = n / (m0 + n); d = m1l - m1;
 *     m1 = fma(c, d, m1); m2 = m2 + fma(d * d * c, m0, m2l)
 *   mean = m1, var = m2 / N.
 *   y: weight and bias: fma((x - mean) * rstd, w, b); bias only: fma(x - mean, rstd, b);
 *      weight only: ((x - mean) * rstd) * w + 0; neither: (x - mean) * rstd + 0   (+0: -0 -> +0)
 *
 * Built with -ffp-contract=off: every fused step is an explicit fma() call, every other step rounds.
 * ln_torch has an FMA clone (GCC's target_clones, chosen at load time where the CPU has FMA): there
 * fma() is one instruction and the lane loops vectorise in part; elsewhere libm's fma, the same bits.
 * ln_torch_avx2 (below) keeps the lanes in AVX registers: the fast copy where the CPU has AVX2 + FMA. */
#ifndef STRIDED_LN_TORCH_H
#define STRIDED_LN_TORCH_H

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define LN_TORCH_CLONES __attribute__((target_clones("fma", "default")))
#else
#define LN_TORCH_CLONES
#endif
#define LN_INLINE static inline __attribute__((always_inline))

#define LN_TORCH(T, SQRT, FMA, L)                                                                     \
    LN_INLINE void ln_fold_##T(long m0a, const T *a1, const T *a2, long *m0, T *m1, T *m2)              \
    {                                                                                               \
        long n = *m0 + m0a;                                                                         \
        T c = n == 0 ? (T)0 : (T)m0a / (T)n, mt = (T)*m0;                                           \
        for (int l = 0; l < L; l++) {                                                               \
            T d = a1[l] - m1[l];                                                                    \
            m1[l] = m1[l] + c * d;                                                                  \
            m2[l] = FMA(d * c, d * mt, m2[l] + a2[l]);                                              \
        }                                                                                           \
        *m0 = n;                                                                                    \
    }                                                                                               \
    /* The scalar tail (elements past n * L) and each lane's (m1l, m2l) folded in: mean, var. */    \
    LN_INLINE void ln_finish_##T(const T *x, Py_ssize_t N, Py_ssize_t n, const T *m1l, const T *m2l,       \
                                 T *mean, T *var)                                                   \
    {                                                                                               \
        long m0 = 0;                                                                                \
        T m1 = 0, m2 = 0;                                                                           \
        for (Py_ssize_t i = n * L; i < N; i++) {                                                    \
            T v = x[i], d = v - m1;                                                                 \
            ++m0;                                                                                   \
            m1 = m1 + d / (T)m0;                                                                    \
            m2 = m2 + d * (v - m1);                                                                 \
        }                                                                                           \
        for (int l = 0; l < L; l++) {                                                               \
            long nn = m0 + (long)n;                                                                 \
            T c = nn == 0 ? (T)0 : (T)n / (T)nn, d = m1l[l] - m1;                                   \
            m1 = FMA(c, d, m1);                                                                     \
            m2 = m2 + FMA(d * d * c, (T)m0, m2l[l]);                                                \
            m0 = nn;                                                                                \
        }                                                                                           \
        *mean = m1;                                                                                 \
        *var = m2 / (T)N;                                                                           \
    }                                                                                               \
    /* The cascade's depth for m chunks: ceil(log2(m)), at least 1. */                              \
    LN_INLINE int ln_depth_##T(Py_ssize_t m)                                                        \
    {                                                                                               \
        int depth = 1;                                                                              \
        if (m > 2) {                                                                                \
            depth = 0;                                                                              \
            while (((Py_ssize_t)1 << depth) < m) depth++;                                           \
        }                                                                                           \
        return depth;                                                                               \
    }                                                                                               \
    /* y from one row's mean and r (w, b: n values or NULL). */                                     \
    LN_INLINE void ln_apply_##T(const T *xr, T *yr, T nm, T r, const T *w, const T *b, Py_ssize_t n)   \
    {                                                                                               \
        if (w && b)                                                                                 \
            for (Py_ssize_t j = 0; j < n; j++) yr[j] = FMA((xr[j] + nm) * r, w[j], b[j]);           \
        else if (b)                                                                                 \
            for (Py_ssize_t j = 0; j < n; j++) yr[j] = FMA(xr[j] + nm, r, b[j]);                    \
        else if (w)                                                                                 \
            for (Py_ssize_t j = 0; j < n; j++) yr[j] = (xr[j] + nm) * r * w[j] + (T)0;              \
        else                                                                                        \
            for (Py_ssize_t j = 0; j < n; j++) yr[j] = (xr[j] + nm) * r + (T)0;                     \
    }                                                                                               \
    /* One row's (mean, biased variance) as RowwiseMoments gives them. */                           \
    LN_INLINE void ln_moments_##T(const T *x, Py_ssize_t N, T *mean, T *var)                           \
    {                                                                                               \
        Py_ssize_t n = N / L, m = (n + 15) / 16;                                                    \
        int depth = ln_depth_##T(m);                                                                \
        long m0s[64];                                                                               \
        T m1s[64][L], m2s[64][L], cv[16];                                                           \
        for (int j = 0; j < 16; j++) cv[j] = (T)1 / (T)(j + 1);                                     \
        for (int k = 0; k < depth; k++) {                                                           \
            m0s[k] = 0;                                                                             \
            for (int l = 0; l < L; l++) m1s[k][l] = m2s[k][l] = 0;                                  \
        }                                                                                           \
        for (Py_ssize_t i = 0; i < m; i++) {                                                        \
            const T *xp = x + i * 16 * L;                                                           \
            long m0 = n - i * 16 < 16 ? (long)(n - i * 16) : 16;                                    \
            T a1[L], a2[L];                                                                         \
            for (int l = 0; l < L; l++) a1[l] = a2[l] = 0;                                          \
            for (long j = 0; j < m0; j++)                                                           \
                for (int l = 0; l < L; l++) {                                                       \
                    T v = xp[j * L + l], d = v - a1[l];                                             \
                    a1[l] = FMA(d, cv[j], a1[l]);                                                   \
                    a2[l] = FMA(d, v - a1[l], a2[l]);                                               \
                }                                                                                   \
            ln_fold_##T(m0, a1, a2, &m0s[0], m1s[0], m2s[0]);                                       \
            Py_ssize_t mask = i + 1;                                                                \
            for (int j = 1; j < depth && (mask & 1) == 0; j++) {                                    \
                ln_fold_##T(m0s[j - 1], m1s[j - 1], m2s[j - 1], &m0s[j], m1s[j], m2s[j]);           \
                m0s[j - 1] = 0;                                                                     \
                for (int l = 0; l < L; l++) m1s[j - 1][l] = m2s[j - 1][l] = 0;                      \
                mask >>= 1;                                                                         \
            }                                                                                       \
        }                                                                                           \
        for (int k = 1; k < depth; k++) ln_fold_##T(m0s[k], m1s[k], m2s[k], &m0s[0], m1s[0], m2s[0]); \
        ln_finish_##T(x, N, n, m1s[0], m2s[0], mean, var);                                          \
    }                                                                                               \
    /* layer_norm over `rows` rows of n (n >= 1): y, mean[i], rstd[i] (w, b: n values or NULL). */   \
    LN_TORCH_CLONES static void ln_torch_##T(const T *x, T *y, T *mean, T *rstd, const T *w, const T *b, T eps,      \
                             Py_ssize_t rows, Py_ssize_t n)                                         \
    {                                                                                               \
        LN_ROWS(T, SQRT, ln_moments_##T)                                                            \
    }
/* The row loop of ln_torch (and of its AVX2 copy): MOMENTS(row, n, &mean, &var) per row. */
#define LN_ROWS(T, SQRT, MOMENTS)                                                                   \
    for (Py_ssize_t i = 0; i < rows; i++) {                                                         \
        const T *xr = x + i * n;                                                                    \
        T *yr = y + i * n, mu, var;                                                                 \
        MOMENTS(xr, n, &mu, &var);                                                                  \
        T r = (T)1 / SQRT(var + eps), nm = -mu;                                                     \
        mean[i] = mu;                                                                               \
        rstd[i] = r;                                                                                \
        ln_apply_##T(xr, yr, nm, r, w, b, n);                                                       \
    }
LN_TORCH(float, sqrtf, fmaf, 8)
LN_TORCH(double, sqrt, fma, 4)
#undef LN_TORCH

/* ln_torch_avx2_T: ln_torch with its L lanes in one AVX register (8 float / 4 double), for CPUs
 * with AVX2 and FMA (the caller checks). ln_torch's FMA clone leaves much of its lane loops scalar
 * (the lanes live in arrays); here each lane step is one vector instruction: the same IEEE
 * operations on each lane in the same order (sub, mul, add, fused multiply-add), so the same bits.
 * The scalar tail, the lane fold, the y steps are ln_torch's own (inlined, compiled for AVX2). */
#if defined(__GNUC__) && defined(__x86_64__)
#define LN_HAVE_AVX2 1
#include <immintrin.h>
#define LN_AVX2 __attribute__((target("avx2,fma")))
#define LN_TORCH_AVX2(T, SQRT, L, V, SET1, ZERO, LOADU, STOREU, ADD, SUB, MUL, VFMA)                 \
    /* ln_fold_T on vectors */                                                                      \
    LN_AVX2 LN_INLINE void ln_vfold_##T(long m0a, V a1, V a2, long *m0, V *m1, V *m2)               \
    {                                                                                               \
        long n = *m0 + m0a;                                                                         \
        T c = n == 0 ? (T)0 : (T)m0a / (T)n, mt = (T)*m0;                                           \
        V vc = SET1(c), d = SUB(a1, *m1);                                                           \
        *m1 = ADD(*m1, MUL(vc, d));                                                                 \
        *m2 = VFMA(MUL(d, vc), MUL(d, SET1(mt)), ADD(*m2, a2));                                     \
        *m0 = n;                                                                                    \
    }                                                                                               \
    /* ln_moments_T on vectors */                                                                   \
    LN_AVX2 static void ln_vmoments_##T(const T *x, Py_ssize_t N, T *mean, T *var)                  \
    {                                                                                               \
        Py_ssize_t n = N / L, m = (n + 15) / 16;                                                    \
        int depth = ln_depth_##T(m);                                                                \
        long m0s[64];                                                                               \
        V m1s[64], m2s[64], cv[16];                                                                 \
        for (int j = 0; j < 16; j++) cv[j] = SET1((T)1 / (T)(j + 1));                               \
        int k = 0;                                                                                  \
        do { /* (depth >= 1) */                                                                     \
            m0s[k] = 0;                                                                             \
            m1s[k] = m2s[k] = ZERO();                                                               \
        } while (++k < depth);                                                                      \
        for (Py_ssize_t i = 0; i < m; i++) {                                                        \
            const T *xp = x + i * 16 * L;                                                           \
            long m0 = n - i * 16 < 16 ? (long)(n - i * 16) : 16;                                    \
            V a1 = ZERO(), a2 = ZERO();                                                             \
            for (long j = 0; j < m0; j++) {                                                         \
                V v = LOADU(xp + j * L), d = SUB(v, a1);                                            \
                a1 = VFMA(d, cv[j], a1);                                                            \
                a2 = VFMA(d, SUB(v, a1), a2);                                                       \
            }                                                                                       \
            ln_vfold_##T(m0, a1, a2, &m0s[0], &m1s[0], &m2s[0]);                                    \
            Py_ssize_t mask = i + 1;                                                                \
            for (int j = 1; j < depth && (mask & 1) == 0; j++) {                                    \
                ln_vfold_##T(m0s[j - 1], m1s[j - 1], m2s[j - 1], &m0s[j], &m1s[j], &m2s[j]);        \
                m0s[j - 1] = 0;                                                                     \
                m1s[j - 1] = m2s[j - 1] = ZERO();                                                   \
                mask >>= 1;                                                                         \
            }                                                                                       \
        }                                                                                           \
        for (k = 1; k < depth; k++) ln_vfold_##T(m0s[k], m1s[k], m2s[k], &m0s[0], &m1s[0], &m2s[0]); \
        T l1[L], l2[L];                                                                             \
        STOREU(l1, m1s[0]);                                                                         \
        STOREU(l2, m2s[0]);                                                                         \
        ln_finish_##T(x, N, n, l1, l2, mean, var);                                                  \
    }                                                                                               \
    LN_AVX2 static void ln_torch_avx2_##T(const T *x, T *y, T *mean, T *rstd, const T *w, const T *b, T eps, \
                                          Py_ssize_t rows, Py_ssize_t n)                            \
    {                                                                                               \
        LN_ROWS(T, SQRT, ln_vmoments_##T)                                                           \
    }
LN_TORCH_AVX2(float, sqrtf, 8, __m256, _mm256_set1_ps, _mm256_setzero_ps, _mm256_loadu_ps, _mm256_storeu_ps,
              _mm256_add_ps, _mm256_sub_ps, _mm256_mul_ps, _mm256_fmadd_ps)
LN_TORCH_AVX2(double, sqrt, 4, __m256d, _mm256_set1_pd, _mm256_setzero_pd, _mm256_loadu_pd, _mm256_storeu_pd,
              _mm256_add_pd, _mm256_sub_pd, _mm256_mul_pd, _mm256_fmadd_pd)
#undef LN_TORCH_AVX2
#else
#define LN_HAVE_AVX2 0
#endif

#endif
