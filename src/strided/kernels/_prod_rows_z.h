/* torch_prod_rows' rows by AVX-512 (included once by _specialkernel.c, after TPROD_ROW).
 *
 * z_prod_rows(kind, xb, rows, n, ob) -> int: the product of each of `rows` rows of n elements of
 * the C-contiguous float32 ('f', n >= 32) or float64 ('d', n >= 16) buffer xb into ob, by exactly
 * torch_prod_row's operations in its order (PyTorch's binary_kernel_reduce_vec: four 32-byte vector
 * accumulators loaded from the row's first 4 V elements, each multiplied by the next block's vector
 * in turn; combined as (a0 * a1) * (a2 * a3), the V lanes multiplied in order from the first, that
 * into the identity (1 * p), then the last n % 4 V elements one by one): the same IEEE multiplies,
 * so the same bits but for a NaN's payload (the caller's strict test recomputes NaN results).
 * Returns 0 where it does not take the call (no AVX-512F on this CPU, a short row, another
 * kind, a compiler without the x86 intrinsics: torch_prod_rows' own loops run), 1 where it wrote
 * every result.
 *
 * Why: the four 8-lane float32 accumulators are two 16-lane ones here, each 64-byte load and
 * multiply doing what two 32-byte ones did: 1M float32 in rows of 1024, the C loop alone, values
 * near 1: 52 us -> 43 (rows 16 bytes past a 64-byte boundary: 54 -> 46); values in (0.1, 0.9),
 * bench_ops' (see the two passes below): 56-60 -> 49-51; rows of 256: 95 -> 66. Two or four rows
 * interleaved, as torch_prod_row2 does for the 32-byte copy, measured slower here (50-74 us): one
 * row's two chains already keep the multiplier busy behind the loads. (Aligned loads put together
 * by permutes, for rows off a 64-byte boundary, were slower still: 66 us.)
 */
#if defined(__GNUC__) && defined(__x86_64__)
#define PRODZ __attribute__((target("avx512f")))

/* T the element, VT its 64-byte vector of 2 V lanes (half the 4 V accumulators), HT its 32-byte
 * half of V lanes, SFX / HSFX the intrinsics' suffixes, HI(v) v's upper half.
 *
 * Two passes over each chunk of Z_PROD_CHUNK rows: first each row's block loop, its accumulators
 * folded to the two V-lane halves x = a0 * a1 and y = a2 * a3 (kept in a 4 KB buffer); then per
 * row a0 = x * y, the lanes' running product, the identity and the tail, as torch_prod_row has
 * them. Why: those last products underflow to subnormals or zero on most real rows (1024 values in
 * (0.1, 0.9): x, y ~ 1e-24, a0 ~ 1e-47), each costing a microcode assist without flush-to-zero, and
 * an assist among the loop's loads in flight cost most (rows 16 bytes past a 64-byte boundary: 57
 * us for 1M float32 with the fold inside the loop, 50 apart; one pass, the 32-byte copy: 60). */
#define Z_PROD_CHUNK 64
#define DEFINE_Z_PROD_ROWS(T, VT, HT, V, SFX, HSFX, HI, NAME)                                    \
    PRODZ static void NAME(const T *x, Py_ssize_t rows, Py_ssize_t n, T *o)                      \
    {                                                                                             \
        Py_ssize_t count = n / (4 * V);                                                           \
        T halves[Z_PROD_CHUNK * 2 * V] __attribute__((aligned(64)));                              \
        for (Py_ssize_t r0 = 0; r0 < rows; r0 += Z_PROD_CHUNK) {                                  \
            Py_ssize_t chunk = rows - r0 < Z_PROD_CHUNK ? rows - r0 : Z_PROD_CHUNK;               \
            for (Py_ssize_t j = 0; j < chunk; j++) {                                              \
                const T *xr = x + (r0 + j) * n;                                                   \
                VT A = _mm512_loadu_##SFX(xr), B = _mm512_loadu_##SFX(xr + 2 * V);                \
                for (Py_ssize_t i = 1; i < count; i++) {                                          \
                    A = _mm512_mul_##SFX(A, _mm512_loadu_##SFX(xr + i * 4 * V));                  \
                    B = _mm512_mul_##SFX(B, _mm512_loadu_##SFX(xr + i * 4 * V + 2 * V));          \
                }                                                                                 \
                _mm256_store_##HSFX(halves + j * 2 * V, _mm256_mul_##HSFX(_mm512_cast##SFX##512_##SFX##256(A), HI(A))); \
                _mm256_store_##HSFX(halves + j * 2 * V + V, _mm256_mul_##HSFX(_mm512_cast##SFX##512_##SFX##256(B), HI(B))); \
            }                                                                                     \
            for (Py_ssize_t j = 0; j < chunk; j++) {                                              \
                const T *xr = x + (r0 + j) * n;                                                   \
                T a0[V];                                                                          \
                _mm256_storeu_##HSFX(a0, _mm256_mul_##HSFX(_mm256_load_##HSFX(halves + j * 2 * V), \
                                                           _mm256_load_##HSFX(halves + j * 2 * V + V))); \
                T p = a0[0];                                                                      \
                for (int l = 1; l < V; l++) p = p * a0[l];                                        \
                T res = (T)1 * p;                                                                 \
                for (Py_ssize_t k = count * 4 * V; k < n; k++) res = res * xr[k];                 \
                o[r0 + j] = res;                                                                  \
            }                                                                                     \
        }                                                                                         \
    }
#define Z_HI_F32(v) _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))
#define Z_HI_F64(v) _mm512_extractf64x4_pd(v, 1)
DEFINE_Z_PROD_ROWS(float, __m512, __m256, 8, ps, ps, Z_HI_F32, z_prod_rows_f32)
DEFINE_Z_PROD_ROWS(double, __m512d, __m256d, 4, pd, pd, Z_HI_F64, z_prod_rows_f64)
#undef Z_HI_F32
#undef Z_HI_F64
#undef DEFINE_Z_PROD_ROWS

static int z_prod_rows(char kind, const char *xb, Py_ssize_t rows, Py_ssize_t n, char *ob)
{
    static int avx512 = -1; /* (the CPU's answer, asked once: a race asks twice, harmlessly) */
    if (avx512 < 0) {
        __builtin_cpu_init();
        avx512 = __builtin_cpu_supports("avx512f") ? 1 : 0;
    }
    if (!avx512)
        return 0;
    if (kind == 'f' && n >= 32)
        z_prod_rows_f32((const float *)xb, rows, n, (float *)ob);
    else if (kind == 'd' && n >= 16)
        z_prod_rows_f64((const double *)xb, rows, n, (double *)ob);
    else
        return 0;
    return 1;
}
#undef PRODZ
#else
static int z_prod_rows(char kind, const char *xb, Py_ssize_t rows, Py_ssize_t n, char *ob)
{
    (void)kind; (void)xb; (void)rows; (void)n; (void)ob;
    return 0;
}
#endif
