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
 * multiply doing what two 32-byte ones did: 1M float32 in rows of 1024, the C loop alone: 52 us ->
 * 43 (rows 16 bytes past a 64-byte boundary: 54 -> 46; rows of 256: 69-73 -> 43-46). Two or four rows
 * interleaved, as torch_prod_row2 does for the 32-byte copy, measured slower here (50-74 us): one
 * row's two chains already keep the multiplier busy behind the loads.
 */
#if defined(__GNUC__) && defined(__x86_64__)
#define PRODZ __attribute__((target("avx512f")))

/* The lanes of a 64-byte accumulator pair (A: accumulators 0 and 1, B: 2 and 3) combined as
 * torch_prod_row combines them: a0[l] = (acc[l] * acc[V + l]) * (acc[2V + l] * acc[3V + l]), then
 * p = a0[0] * a0[1] * ... in order. */
PRODZ static inline float z_prod_fold_f32(__m512 A, __m512 B)
{
    __m256 x = _mm256_mul_ps(_mm512_castps512_ps256(A), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(A), 1)));
    __m256 y = _mm256_mul_ps(_mm512_castps512_ps256(B), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(B), 1)));
    float a0[8];
    _mm256_storeu_ps(a0, _mm256_mul_ps(x, y));
    float p = a0[0];
    for (int l = 1; l < 8; l++) p = p * a0[l];
    return p;
}

PRODZ static inline double z_prod_fold_f64(__m512d A, __m512d B)
{
    __m256d x = _mm256_mul_pd(_mm512_castpd512_pd256(A), _mm512_extractf64x4_pd(A, 1));
    __m256d y = _mm256_mul_pd(_mm512_castpd512_pd256(B), _mm512_extractf64x4_pd(B, 1));
    double a0[4];
    _mm256_storeu_pd(a0, _mm256_mul_pd(x, y));
    double p = a0[0];
    for (int l = 1; l < 4; l++) p = p * a0[l];
    return p;
}

/* T the element, VT its 64-byte vector (H = 2 V lanes: half the 4 V accumulators), SFX the
 * intrinsics' suffix, FOLD the accumulators' combine above. */
#define DEFINE_Z_PROD_ROWS(T, VT, H, SFX, NAME, FOLD)                                                 \
    PRODZ static void NAME(const T *x, Py_ssize_t rows, Py_ssize_t n, T *o)                      \
    {                                                                                             \
        Py_ssize_t count = n / (2 * H);                                                           \
        for (Py_ssize_t r = 0; r < rows; r++) {                                                   \
            const T *xr = x + r * n;                                                              \
            VT A = _mm512_loadu_##SFX(xr), B = _mm512_loadu_##SFX(xr + H);                        \
            for (Py_ssize_t i = 1; i < count; i++) {                                              \
                A = _mm512_mul_##SFX(A, _mm512_loadu_##SFX(xr + i * 2 * H));                      \
                B = _mm512_mul_##SFX(B, _mm512_loadu_##SFX(xr + i * 2 * H + H));                  \
            }                                                                                     \
            T res = (T)1 * FOLD(A, B);                                                            \
            for (Py_ssize_t k = count * 2 * H; k < n; k++) res = res * xr[k];                     \
            o[r] = res;                                                                           \
        }                                                                                         \
    }
DEFINE_Z_PROD_ROWS(float, __m512, 16, ps, z_prod_rows_f32, z_prod_fold_f32)
DEFINE_Z_PROD_ROWS(double, __m512d, 8, pd, z_prod_rows_f64, z_prod_fold_f64)
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
