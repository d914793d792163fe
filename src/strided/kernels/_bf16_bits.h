/* bfloat16 <-> float32 for one element, shared by _halfkernel.c (its widen/narrow and arithmetic
 * loops) and _sleefkernel.c (its fused bfloat16 exp/tanh): one definition, so the fused loop's
 * rounding is the conversion kernels' by construction.
 *   bf2f(h): the word h as float32 (exact: shifted up 16 bits).
 *   f2bf(f, nan): f rounded to nearest even, a NaN given the word ``nan`` (PyTorch's vector
 *   conversion cvtfp32_bf16: 0xFFFF; its scalar c10::BFloat16: 0x7FC0).
 * Needs <stdint.h> and <string.h>. */
#ifndef STRIDED_BF16_BITS_H
#define STRIDED_BF16_BITS_H

static inline float bf2f(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline uint16_t f2bf(float f, uint16_t nan)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    uint16_t r = (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16); /* (an overflow carries into inf) */
    return f != f ? nan : r;
}

#endif
