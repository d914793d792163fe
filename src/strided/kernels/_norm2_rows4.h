/* Included once by _specialkernel.c, before torch_norm2_rows: its loop (TORCH_NORM2_LOOP: W lanes,
 * lane l summing a[k W + l]^2 over the row's whole W-steps, each square rounded, then the sum;
 * -ffp-contract=off keeps them two roundings) four rows at a time. One row's lanes are one chain of
 * dependent adds (an add's latency per W elements: 1024 rows of 1024 float32 took 104 us, PyTorch's
 * loop 97); four rows' chains run side by side, each lane's adds the same ones in the same order,
 * so the same bits; then each row's lanes added in order, its tail and root as TORCH_NORM2_LOOP
 * does. Returns the rows done here (a multiple of 4): the caller's loop does the rest. */
typedef float norm2_v8f __attribute__((vector_size(32)));
typedef double norm2_v4d __attribute__((vector_size(32)));

#define DEFINE_NORM2_ROWS4(NAME, T, V, W, FMA, SQRT)                                              \
    ERF_CLONES static Py_ssize_t NAME(const T *x, Py_ssize_t rows, Py_ssize_t n, T *out)           \
    {                                                                                             \
        Py_ssize_t whole = n - n % W, r;                                                          \
        for (r = 0; r + 4 <= rows; r += 4) {                                                      \
            const T *a0 = x + r * n, *a1 = a0 + n, *a2 = a1 + n, *a3 = a2 + n;                    \
            V s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, v;                                          \
            for (Py_ssize_t d = 0; d < whole; d += W) {                                           \
                memcpy(&v, a0 + d, sizeof v); s0 = s0 + v * v;                                    \
                memcpy(&v, a1 + d, sizeof v); s1 = s1 + v * v;                                    \
                memcpy(&v, a2 + d, sizeof v); s2 = s2 + v * v;                                    \
                memcpy(&v, a3 + d, sizeof v); s3 = s3 + v * v;                                    \
            }                                                                                     \
            V s[4] = {s0, s1, s2, s3};                                                            \
            for (int k = 0; k < 4; k++) {                                                         \
                const T *a = a0 + k * n;                                                          \
                T total = s[k][0];                                                                \
                for (int l = 1; l < W; l++) total = total + s[k][l];                              \
                Py_ssize_t plain = n - (n - whole) % 4, d;                                        \
                for (d = whole; d < n; d++) total = d < plain ? total + a[d] * a[d] : FMA(a[d], a[d], total); \
                out[r + k] = SQRT(total);                                                         \
            }                                                                                     \
        }                                                                                         \
        return r;                                                                                 \
    }
DEFINE_NORM2_ROWS4(norm2_rows4_f32, float, norm2_v8f, 8, fmaf, sqrtf)
DEFINE_NORM2_ROWS4(norm2_rows4_f64, double, norm2_v4d, 4, fma, sqrt)
#undef DEFINE_NORM2_ROWS4
