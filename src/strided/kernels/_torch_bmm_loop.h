/* PyTorch's small baddbmm loop (below 400 multiply-adds a matrix), shared by _specialkernel.c's
 * bmm_loop and _matkernel.c's bmm_small so that both run it step for step: over row-major
 * x (batch, n, k), y (batch, k, p) into z (batch, n, p), acc = x[0] * y[0] + 0, then
 * acc += x[l] * y[l] in order over the contraction, each product and sum rounded once in T
 * (the including files compile with -ffp-contract=off: nothing fused). */
#ifndef STRIDED_TORCH_BMM_LOOP_H
#define STRIDED_TORCH_BMM_LOOP_H

#define TORCH_BMM_LOOP(T, x, y, z, batch, n, k, p)                                             \
    for (Py_ssize_t b_ = 0; b_ < (batch); b_++) {                                              \
        const T *xb = (x) + b_ * (n) * (k), *yb = (y) + b_ * (k) * (p);                        \
        T *zb = (z) + b_ * (n) * (p);                                                          \
        for (Py_ssize_t i_ = 0; i_ < (n); i_++)                                                \
            for (Py_ssize_t j_ = 0; j_ < (p); j_++) {                                          \
                T acc = xb[i_ * (k)] * yb[j_];                                                 \
                acc = acc + (T)0;                                                              \
                for (Py_ssize_t l_ = 1; l_ < (k); l_++) {                                      \
                    T prod = xb[i_ * (k) + l_] * yb[l_ * (p) + j_];                            \
                    acc = acc + prod;                                                          \
                }                                                                              \
                zb[i_ * (p) + j_] = acc;                                                       \
            }                                                                                  \
    }

#endif
