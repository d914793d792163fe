/* strided.kernels._copykernel: a cache-blocked strided copy between two layouts of the same element size.
 *
 * copy(dst_address, src_address, itemsize, shape, dst_strides, src_strides) -> None
 *
 *   Copies every element of an N-d layout (shape; strides in BYTES, any sign) from the source
 *   memory to the destination memory, bytes as they are (no casting: the caller checks that the
 *   two dtypes are equal). itemsize: 1, 2, 4, 8 or 16. The caller (strided.kernels.native)
 *   guarantees that both layouts lie inside live buffers it holds references to (any alignment:
 *   elements move by fixed-size memcpy and unaligned SSE2 loads and stores), that
 *   the destination's elements are distinct and that the two do not overlap; the dims are
 *   given coalesced, in the destination's memory order (outermost first), so that the last dim
 *   is the one the destination runs along.
 *
 * Why this walk: when the source runs along another dim (b) than the destination (the last,
 * a), a plain loop reads one source element per cache line and the line is gone before the
 * walk returns for its neighbour. Here the (b, a) plane is cut into TILE_B x TILE_A tiles: a
 * tile reads TILE_A source line runs that stay in cache while the destination is written in
 * order, so every line of both is moved from memory once. On x86-64, when both sides are unit-strided in their
 * own dim, the tile is cut into SSE2 register transposes (16x16 for 1-byte elements, 8x8 for 2,
 * 4x4 for 4, 2x2 for 8; SSE2 is part of x86-64's baseline, so no run-time CPU check is needed);
 * 16-byte elements, other strides and other machines get the plain loop (the compiler's). Where
 * the CPU has AVX-512F, 4- and 8-byte elements take 16 x 16 / 8 x 8 register blocks instead,
 * one 64-byte register per row on both sides (see block4z: power-of-two strides); where it has
 * AVX2 and not AVX-512F, 8 x 8 / 4 x 4 blocks in 64-byte squares (see block4y).
 *
 * The GIL is released around the copy: the caller holds the arrays.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <math.h>
#include <float.h>
#include <string.h>
#include <stdlib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#endif
#define HAVE_SSE2 1
#else
#define HAVE_SSE2 0
#endif

#define MAX_DIMS 64
/* Tile sides: TILE_B(SZ) elements (TILE_B_BYTES bytes) along the source's contiguous dim,
 * TILE_A elements along the destination's (TILE_A2 in the run-through planes below). Measured
 * (session 12, AMD EPYC, thread CPU time of a 32 MB transpose into warm memory against a memcpy
 * of the same bytes, least of 4-6 runs, the machine shared): 4096 bytes x 64 at 2.0x for
 * float32 and float64; the earlier 64 x 256 elements (256 bytes for float32) 3.7-3.9x for float32
 * and 2.2-2.7x for float64; 1024-2048 bytes x 32-128 between (2.0-2.9x). Long source runs
 * matter more than wide tiles: each tile reads TILE_A source rows of 4 KB, streamed, while its
 * destination rows (TILE_A elements each) stay in L2. Earlier (another machine): 32 x 32 at
 * 2.7-3.3x, 16 x 16 at 4x; non-temporal stores slower (2.5-4x: each 16-byte store goes to
 * another destination row); transposing each tile into a small contiguous buffer and copying
 * its rows out whole (against the cache-set conflicts of power-of-two strides) 1.3-1.9x slower. */
/* The destination runs on through the dim outside its last one, and that last one is shorter
 * than RUN2 bytes (and the two together at least that long): the tiles run along both
 * (DEFINE_SSE_PLANE2). Measured on the 32 MB float32 (64, 256, 512).permute(2, 1, 0) copied
 * into existing memory: 2.1-2.2x a memcpy against 2.9-3.1x (64-element runs); RUN2 = 1024 and
 * 4096 the same there, but float64's 512-byte runs were no faster (2.2-2.3x against 2.1x).
 * Session 12 (4 KB source runs): TILE_A2 = 128 rows 3.2x for float32 (least of 4), 64 rows
 * 3.6-3.8x, 256-512 rows 3.7-4.6x; float64 2.3-2.8x for all of them. */
/* The longest run shared by both layouts that copy_nd folds into one element (64 bytes: one line). */
#ifndef FOLD_MAX
#define FOLD_MAX 64
#endif
#ifndef RUN2
#define RUN2 512
#endif
#ifndef TILE_B_BYTES
#define TILE_B_BYTES 4096
#endif
#ifndef TILE_A
#define TILE_A 64
#endif
#ifndef TILE_A2
#define TILE_A2 128
#endif
#define TILE_B(SZ) (TILE_B_BYTES / (Py_ssize_t)(SZ))
/* The smallest copy (bytes) whose destination lines the AVX-512 blocks write by streaming
 * (non-temporal) stores, where they are whole aligned lines and the layout gains (plane_z,
 * DEFINE_Z2_PLANE): a line so written is not read from memory first (a plain store reads it, for
 * ownership: a third of the traffic) and does not evict the source's lines, but it leaves the
 * cache, so below about the cache's size a following read of the result would miss. */
#ifndef NT_MIN_BYTES
#define NT_MIN_BYTES (8 << 20)
#endif

typedef struct { uint64_t lo, hi; } u128;

#define DEFINE_PLANE(NAME, T)                                                                     \
    static void NAME(char *d, const char *s, Py_ssize_t nb, Py_ssize_t na, Py_ssize_t dsb,         \
                     Py_ssize_t dsa, Py_ssize_t ssb, Py_ssize_t ssa)                              \
    {                                                                                             \
        for (Py_ssize_t i0 = 0; i0 < nb; i0 += TILE_B(sizeof(T))) {                                          \
            Py_ssize_t i1 = i0 + TILE_B(sizeof(T)) < nb ? i0 + TILE_B(sizeof(T)) : nb;                                  \
            for (Py_ssize_t j0 = 0; j0 < na; j0 += TILE_A) {                                      \
                Py_ssize_t j1 = j0 + TILE_A < na ? j0 + TILE_A : na;                              \
                for (Py_ssize_t i = i0; i < i1; i++) {                                            \
                    char *dp = d + i * dsb + j0 * dsa;                                            \
                    const char *sp = s + i * ssb + j0 * ssa;                                      \
                    for (Py_ssize_t j = j0; j < j1; j++, dp += dsa, sp += ssa)                    \
                        memcpy(dp, sp, sizeof(T));                                                \
                }                                                                                 \
            }                                                                                     \
        }                                                                                         \
    }                                                                                             \
    static void NAME##_line(char *d, const char *s, Py_ssize_t n, Py_ssize_t ds, Py_ssize_t ss)   \
    {                                                                                             \
        for (Py_ssize_t j = 0; j < n; j++, d += ds, s += ss)                                      \
            memcpy(d, s, sizeof(T));                                                              \
    }

DEFINE_PLANE(plane1, uint8_t)
DEFINE_PLANE(plane2, uint16_t)
DEFINE_PLANE(plane4, uint32_t)
DEFINE_PLANE(plane8, uint64_t)
DEFINE_PLANE(plane16, u128)
/* Elements of other sizes: a short run shared by both layouts folded into one element (copy_nd),
 * such as the 3 channels of an (N, M, 3) image; three-part sizes by fixed-size moves, the rest
 * by a memcpy of runtime size. */
typedef struct { uint8_t v[3]; } b3;
typedef struct { uint16_t v[3]; } b6;
typedef struct { uint32_t v[3]; } b12;
typedef struct { uint64_t v[3]; } b24;
DEFINE_PLANE(plane3, b3)
DEFINE_PLANE(plane6, b6)
DEFINE_PLANE(plane12, b12)
DEFINE_PLANE(plane24, b24)

static void planeN(int sz, char *d, const char *s, Py_ssize_t nb, Py_ssize_t na, Py_ssize_t dsb,
                   Py_ssize_t dsa, Py_ssize_t ssb, Py_ssize_t ssa)
{
    switch (sz) {
    case 3: plane3(d, s, nb, na, dsb, dsa, ssb, ssa); return;
    case 6: plane6(d, s, nb, na, dsb, dsa, ssb, ssa); return;
    case 12: plane12(d, s, nb, na, dsb, dsa, ssb, ssa); return;
    case 24: plane24(d, s, nb, na, dsb, dsa, ssb, ssa); return;
    }
    Py_ssize_t tb = TILE_B_BYTES / sz > 0 ? TILE_B_BYTES / sz : 1;
    for (Py_ssize_t i0 = 0; i0 < nb; i0 += tb) {
        Py_ssize_t i1 = i0 + tb < nb ? i0 + tb : nb;
        for (Py_ssize_t j0 = 0; j0 < na; j0 += TILE_A) {
            Py_ssize_t j1 = j0 + TILE_A < na ? j0 + TILE_A : na;
            for (Py_ssize_t i = i0; i < i1; i++)
                for (Py_ssize_t j = j0; j < j1; j++)
                    memcpy(d + i * dsb + j * dsa, s + i * ssb + j * ssa, (size_t)sz);
        }
    }
}

static void lineN(int sz, char *d, const char *s, Py_ssize_t n, Py_ssize_t ds, Py_ssize_t ss)
{
    switch (sz) {
    case 3: plane3_line(d, s, n, ds, ss); return;
    case 6: plane6_line(d, s, n, ds, ss); return;
    case 12: plane12_line(d, s, n, ds, ss); return;
    case 24: plane24_line(d, s, n, ds, ss); return;
    }
    for (Py_ssize_t j = 0; j < n; j++, d += ds, s += ss)
        memcpy(d, s, (size_t)sz);
}

#if HAVE_SSE2
/* BK x BK register transposes: source rows (the destination's columns) at sp + k * ssa, each BK
 * elements contiguous; destination rows at dp + k * dsb, each BK elements contiguous. */
static inline void block1(char *dp, Py_ssize_t dsb, const char *sp, Py_ssize_t ssa)
{   /* 16 x 16 bytes: four rounds of interleaving register k with register k + 8 (bytes, then
     * pairs, quads, halves) transpose 16 rows loaded in bit-reversed order (checked on labels). */
    static const int rev[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
    __m128i r[16], t[16];
    for (int k = 0; k < 16; k++) r[k] = _mm_loadu_si128((const __m128i *)(sp + rev[k] * ssa));
    for (int k = 0; k < 8; k++) { t[2 * k] = _mm_unpacklo_epi8(r[k], r[k + 8]); t[2 * k + 1] = _mm_unpackhi_epi8(r[k], r[k + 8]); }
    for (int k = 0; k < 8; k++) { r[2 * k] = _mm_unpacklo_epi16(t[k], t[k + 8]); r[2 * k + 1] = _mm_unpackhi_epi16(t[k], t[k + 8]); }
    for (int k = 0; k < 8; k++) { t[2 * k] = _mm_unpacklo_epi32(r[k], r[k + 8]); t[2 * k + 1] = _mm_unpackhi_epi32(r[k], r[k + 8]); }
    for (int k = 0; k < 8; k++) { r[2 * k] = _mm_unpacklo_epi64(t[k], t[k + 8]); r[2 * k + 1] = _mm_unpackhi_epi64(t[k], t[k + 8]); }
    for (int k = 0; k < 16; k++) _mm_storeu_si128((__m128i *)(dp + k * dsb), r[k]);
}

static inline void block2(char *dp, Py_ssize_t dsb, const char *sp, Py_ssize_t ssa)
{   /* 8 x 8 two-byte elements */
    __m128i a0 = _mm_loadu_si128((const __m128i *)sp), a1 = _mm_loadu_si128((const __m128i *)(sp + ssa));
    __m128i a2 = _mm_loadu_si128((const __m128i *)(sp + 2 * ssa)), a3 = _mm_loadu_si128((const __m128i *)(sp + 3 * ssa));
    __m128i a4 = _mm_loadu_si128((const __m128i *)(sp + 4 * ssa)), a5 = _mm_loadu_si128((const __m128i *)(sp + 5 * ssa));
    __m128i a6 = _mm_loadu_si128((const __m128i *)(sp + 6 * ssa)), a7 = _mm_loadu_si128((const __m128i *)(sp + 7 * ssa));
    __m128i t0 = _mm_unpacklo_epi16(a0, a1), t1 = _mm_unpackhi_epi16(a0, a1);
    __m128i t2 = _mm_unpacklo_epi16(a2, a3), t3 = _mm_unpackhi_epi16(a2, a3);
    __m128i t4 = _mm_unpacklo_epi16(a4, a5), t5 = _mm_unpackhi_epi16(a4, a5);
    __m128i t6 = _mm_unpacklo_epi16(a6, a7), t7 = _mm_unpackhi_epi16(a6, a7);
    __m128i u0 = _mm_unpacklo_epi32(t0, t2), u1 = _mm_unpackhi_epi32(t0, t2);
    __m128i u2 = _mm_unpacklo_epi32(t1, t3), u3 = _mm_unpackhi_epi32(t1, t3);
    __m128i u4 = _mm_unpacklo_epi32(t4, t6), u5 = _mm_unpackhi_epi32(t4, t6);
    __m128i u6 = _mm_unpacklo_epi32(t5, t7), u7 = _mm_unpackhi_epi32(t5, t7);
    _mm_storeu_si128((__m128i *)dp, _mm_unpacklo_epi64(u0, u4));
    _mm_storeu_si128((__m128i *)(dp + dsb), _mm_unpackhi_epi64(u0, u4));
    _mm_storeu_si128((__m128i *)(dp + 2 * dsb), _mm_unpacklo_epi64(u1, u5));
    _mm_storeu_si128((__m128i *)(dp + 3 * dsb), _mm_unpackhi_epi64(u1, u5));
    _mm_storeu_si128((__m128i *)(dp + 4 * dsb), _mm_unpacklo_epi64(u2, u6));
    _mm_storeu_si128((__m128i *)(dp + 5 * dsb), _mm_unpackhi_epi64(u2, u6));
    _mm_storeu_si128((__m128i *)(dp + 6 * dsb), _mm_unpacklo_epi64(u3, u7));
    _mm_storeu_si128((__m128i *)(dp + 7 * dsb), _mm_unpackhi_epi64(u3, u7));
}

/* Four rows of four 4-byte elements (r0..r3: the source's rows), stored transposed as four
 * destination rows dsb bytes apart. */
static inline void store4x4(char *dp, Py_ssize_t dsb, __m128i r0, __m128i r1, __m128i r2, __m128i r3)
{
    __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpacklo_epi32(r2, r3);
    __m128i t2 = _mm_unpackhi_epi32(r0, r1), t3 = _mm_unpackhi_epi32(r2, r3);
    _mm_storeu_si128((__m128i *)dp, _mm_unpacklo_epi64(t0, t1));
    _mm_storeu_si128((__m128i *)(dp + dsb), _mm_unpackhi_epi64(t0, t1));
    _mm_storeu_si128((__m128i *)(dp + 2 * dsb), _mm_unpacklo_epi64(t2, t3));
    _mm_storeu_si128((__m128i *)(dp + 3 * dsb), _mm_unpackhi_epi64(t2, t3));
}

static inline void store2x2(char *dp, Py_ssize_t dsb, __m128i r0, __m128i r1)
{
    _mm_storeu_si128((__m128i *)dp, _mm_unpacklo_epi64(r0, r1));
    _mm_storeu_si128((__m128i *)(dp + dsb), _mm_unpackhi_epi64(r0, r1));
}

static inline void block4(char *dp, Py_ssize_t dsb, const char *sp, Py_ssize_t ssa)
{   /* 4 x 4 four-byte elements */
    store4x4(dp, dsb, _mm_loadu_si128((const __m128i *)sp), _mm_loadu_si128((const __m128i *)(sp + ssa)),
             _mm_loadu_si128((const __m128i *)(sp + 2 * ssa)), _mm_loadu_si128((const __m128i *)(sp + 3 * ssa)));
}

static inline void block8(char *dp, Py_ssize_t dsb, const char *sp, Py_ssize_t ssa)
{   /* 2 x 2 eight-byte elements */
    store2x2(dp, dsb, _mm_loadu_si128((const __m128i *)sp), _mm_loadu_si128((const __m128i *)(sp + ssa)));
}

/* The blocks of a source stepped along b (ssb bytes between its rows' elements, not SZ: a
 * transpose of a stepped view, x.t()[::2]): each element gathered into the registers.
 * (Measured, 32 MB float32 x.t()[::2] into warm memory: 3.3x a memcpy of its bytes, against
 * 10.7x for the plain element loop; float64 3.1x against 6.1x.) */
static inline __m128i gather4(const char *q, Py_ssize_t ssb)
{
    int32_t e0, e1, e2, e3;
    memcpy(&e0, q, 4); memcpy(&e1, q + ssb, 4); memcpy(&e2, q + 2 * ssb, 4); memcpy(&e3, q + 3 * ssb, 4);
    return _mm_setr_epi32(e0, e1, e2, e3);
}

static inline __m128i gather2(const char *q, Py_ssize_t ssb)
{
    int64_t e0, e1;
    memcpy(&e0, q, 8); memcpy(&e1, q + ssb, 8);
    return _mm_set_epi64x(e1, e0);
}

static inline void block4s(char *dp, Py_ssize_t dsb, const char *sp, Py_ssize_t ssa, Py_ssize_t ssb)
{
    store4x4(dp, dsb, gather4(sp, ssb), gather4(sp + ssa, ssb), gather4(sp + 2 * ssa, ssb), gather4(sp + 3 * ssa, ssb));
}

static inline void block8s(char *dp, Py_ssize_t dsb, const char *sp, Py_ssize_t ssa, Py_ssize_t ssb)
{
    store2x2(dp, dsb, gather2(sp, ssb), gather2(sp + ssa, ssb));
}

/* The unit-stride blocks with the gathered ones' parameters (ssb is SZ there). */
#define UNIT_BLOCK(NAME, BLOCK) \
    static inline void NAME(char *dp, Py_ssize_t dsb, const char *sp, Py_ssize_t ssa, Py_ssize_t ssb) \
    { (void)ssb; BLOCK(dp, dsb, sp, ssa); }
UNIT_BLOCK(block1u, block1)
UNIT_BLOCK(block2u, block2)
UNIT_BLOCK(block4u, block4)
UNIT_BLOCK(block8u, block8)

/* A plane whose destination rows are unit-strided (dsa == SZ) and whose source's elements along
 * b are ssb bytes apart: tiles of TILE_B x TILE_A, each cut into BK x BK register transposes
 * (BLOCK: loads where ssb == SZ, gathers where the source steps); the edges past the last whole
 * block by the plain line loop. */
#define DEFINE_SSE_PLANE(NAME, SZ, BK, BLOCK, LINE) DEFINE_SSE_PLANE_FOR(NAME, SZ, BK, BLOCK, LINE, , TILE_A)
#define DEFINE_SSE_PLANE_FOR(NAME, SZ, BK, BLOCK, LINE, ATTR, TA)                                  \
    ATTR static void NAME(char *d, const char *s, Py_ssize_t nb, Py_ssize_t na, Py_ssize_t dsb,    \
                     Py_ssize_t ssb, Py_ssize_t ssa)                                              \
    {                                                                                             \
        for (Py_ssize_t i0 = 0; i0 < nb; i0 += TILE_B(SZ)) {                                      \
            Py_ssize_t i1 = i0 + TILE_B(SZ) < nb ? i0 + TILE_B(SZ) : nb;                          \
            Py_ssize_t ik = i0 + (i1 - i0) / BK * BK;                                             \
            for (Py_ssize_t j0 = 0; j0 < na; j0 += (TA)) {                                      \
                Py_ssize_t j1 = j0 + (TA) < na ? j0 + (TA) : na;                              \
                Py_ssize_t jk = j0 + (j1 - j0) / BK * BK;                                         \
                for (Py_ssize_t i = i0; i < ik; i += BK) {                                        \
                    for (Py_ssize_t j = j0; j < jk; j += BK)                                      \
                        BLOCK(d + i * dsb + j * SZ, dsb, s + i * ssb + j * ssa, ssa, ssb);        \
                    for (Py_ssize_t ii = i; ii < i + BK; ii++) /* the columns past the blocks */ \
                        LINE(d + ii * dsb + jk * SZ, s + ii * ssb + jk * ssa, j1 - jk, SZ, ssa);  \
                }                                                                                 \
                for (Py_ssize_t i = ik; i < i1; i++) /* the rows past the blocks */               \
                    LINE(d + i * dsb + j0 * SZ, s + i * ssb + j0 * ssa, j1 - j0, SZ, ssa);        \
            }                                                                                     \
        }                                                                                         \
    }

/* A plane whose destination rows run on through a second dim: the destination's last two dims
 * (n1 x n2, n2 a multiple of BK) are one contiguous run per b, while the source steps over them
 * with ssa1 and ssa2 (a (2, 1, 0) permute: the source's unit-stride dim is the destination's
 * outermost). Row j of the n1 * n2 rows starts at s + (j / n2) * ssa1 + (j % n2) * ssa2; the
 * tiles run TILE_A rows along that whole run, so each destination row is written TILE_A
 * elements at a time rather than n2 (a short n2: short runs, and their power-of-two strides
 * map a tile's rows to one cache set). */
#define DEFINE_SSE_PLANE2(NAME, SZ, BK, BLOCK)                                                     \
    static void NAME(char *d, const char *s, Py_ssize_t nb, Py_ssize_t n1, Py_ssize_t n2,          \
                     Py_ssize_t dsb, Py_ssize_t ssa1, Py_ssize_t ssa2)                            \
    {                                                                                             \
        Py_ssize_t na = n1 * n2;                                                                  \
        for (Py_ssize_t i0 = 0; i0 < nb; i0 += TILE_B(SZ)) {                                          \
            Py_ssize_t i1 = i0 + TILE_B(SZ) < nb ? i0 + TILE_B(SZ) : nb;                                  \
            Py_ssize_t ik = i0 + (i1 - i0) / BK * BK;                                             \
            for (Py_ssize_t j0 = 0; j0 < na; j0 += TILE_A2) {                                      \
                Py_ssize_t j1 = j0 + TILE_A2 < na ? j0 + TILE_A2 : na;                              \
                for (Py_ssize_t i = i0; i < ik; i += BK)                                          \
                    for (Py_ssize_t j = j0; j < j1; j += BK)                                      \
                        BLOCK(d + i * dsb + j * SZ, dsb,                                          \
                              s + i * SZ + (j / n2) * ssa1 + (j % n2) * ssa2, ssa2);              \
                for (Py_ssize_t i = ik; i < i1; i++) /* the rows past the blocks */               \
                    for (Py_ssize_t j = j0; j < j1; j++)                                          \
                        memcpy(d + i * dsb + j * SZ, s + i * SZ + (j / n2) * ssa1 + (j % n2) * ssa2, SZ); \
            }                                                                                     \
        }                                                                                         \
    }

DEFINE_SSE_PLANE2(plane1_sse2, 1, 16, block1)
DEFINE_SSE_PLANE2(plane2_sse2, 2, 8, block2)
DEFINE_SSE_PLANE2(plane4_sse2, 4, 4, block4)
DEFINE_SSE_PLANE2(plane8_sse2, 8, 2, block8)

DEFINE_SSE_PLANE(plane1_sse, 1, 16, block1u, plane1_line)
DEFINE_SSE_PLANE(plane2_sse, 2, 8, block2u, plane2_line)
DEFINE_SSE_PLANE(plane4_sse, 4, 4, block4u, plane4_line)
DEFINE_SSE_PLANE(plane8_sse, 8, 2, block8u, plane8_line)
DEFINE_SSE_PLANE(plane4_step, 4, 4, block4s, plane4_line)
DEFINE_SSE_PLANE(plane8_step, 8, 2, block8s, plane8_line)
#endif

#if HAVE_SSE2
/* The wide blocks' heads (plane_z, plane_y): where the source's rows are ssa apart, a multiple of
 * 64 bytes, its first rows (b) up to the next cache line, and where dest_head and the
 * destination's rows are a multiple of 64 bytes apart, its first columns (a) up to the next line,
 * go by the SSE plane; *d, *s, *nb, *na are moved past them, so that each wide block's rows lie
 * on whole lines (see plane_z). */
static void line_heads(int sz, char **dp, const char **sp, Py_ssize_t *nbp, Py_ssize_t *nap, Py_ssize_t dsb,
                       Py_ssize_t ssb, Py_ssize_t ssa, int dest_head)
{
    char *d = *dp;
    const char *s = *sp;
    Py_ssize_t nb = *nbp, na = *nap;
    Py_ssize_t h = 0;
    if (ssa % 64 == 0) {
        h = (Py_ssize_t)((64 - ((uintptr_t)s & 63)) & 63) / sz;
        if (h > nb) h = nb;
        if (h) {
            if (sz == 4) plane4_sse(d, s, h, na, dsb, ssb, ssa);
            else plane8_sse(d, s, h, na, dsb, ssb, ssa);
            d += h * dsb; s += h * ssb; nb -= h;
        }
    }
    h = 0;
    if (dsb % 64 == 0 && dest_head) {
        h = (Py_ssize_t)((64 - ((uintptr_t)d & 63)) & 63) / sz;
        if (h > na) h = na;
        if (h) {
            if (sz == 4) plane4_sse(d, s, nb, h, dsb, ssb, ssa);
            else plane8_sse(d, s, nb, h, dsb, ssb, ssa);
            d += h * sz; s += h * ssa; na -= h;
        }
    }
    *dp = d; *sp = s; *nbp = nb; *nap = na;
}
#endif

#if HAVE_SSE2 && defined(__GNUC__) && defined(__x86_64__) && !defined(STRIDED_NO_AVX512_BLOCKS)
/* AVX-512's blocks: 16 x 16 four-byte elements (8 x 8 eight-byte ones), each source row and each
 * destination row of a block one whole 64-byte register, so that every cache line a block
 * touches is read or written once, at once. The SSE blocks touch each line four times (4 x 4) or
 * twice (2 x 2), a tile apart; where the rows' strides are multiples of 4 KB (power-of-two
 * sizes: every row of a block in one L1 set) the line is gone by then: a 1024 x 1024 float32
 * transpose cost 600-900 us (a 1000 x 1000 one 190). Shuffles move bits as they are (NaN payloads
 * included). Picked at import where the CPU has AVX-512F (STRIDED_NATIVE_COPY_ISA=sse: the SSE
 * blocks, for the tests). Built without them where STRIDED_NO_AVX512_BLOCKS is defined (the
 * UBSan build of tests/test_redteam_native.py). */
#define HAVE_AVX512_BLOCKS 1
#define AVX512 __attribute__((target("avx512f")))
#define AI __attribute__((always_inline))
/* 16 rows of 16 four-byte elements transposed in place: pairs of rows interleaved, then pairs of
 * pairs (r[4k + m] holds, in its 128-bit lane L, element 4L + m of rows 4k .. 4k + 3), then the
 * lanes gathered across the four groups (output row 4L + m is lane L of r[m], r[4 + m], r[8 + m],
 * r[12 + m]). */
AVX512 static inline AI void tr16_ps(__m512 *r)
{
    __m512 t[16];
    for (int k = 0; k < 8; k++) {
        t[2 * k] = _mm512_unpacklo_ps(r[2 * k], r[2 * k + 1]);
        t[2 * k + 1] = _mm512_unpackhi_ps(r[2 * k], r[2 * k + 1]);
    }
    for (int k = 0; k < 4; k++) {
        r[4 * k] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[4 * k]), _mm512_castps_pd(t[4 * k + 2])));
        r[4 * k + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[4 * k]), _mm512_castps_pd(t[4 * k + 2])));
        r[4 * k + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[4 * k + 1]), _mm512_castps_pd(t[4 * k + 3])));
        r[4 * k + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[4 * k + 1]), _mm512_castps_pd(t[4 * k + 3])));
    }
    for (int m = 0; m < 4; m++) {
        __m512 ab0 = _mm512_shuffle_f32x4(r[m], r[4 + m], 0x44), ab1 = _mm512_shuffle_f32x4(r[m], r[4 + m], 0xEE);
        __m512 ce0 = _mm512_shuffle_f32x4(r[8 + m], r[12 + m], 0x44), ce1 = _mm512_shuffle_f32x4(r[8 + m], r[12 + m], 0xEE);
        t[m] = _mm512_shuffle_f32x4(ab0, ce0, 0x88);
        t[4 + m] = _mm512_shuffle_f32x4(ab0, ce0, 0xDD);
        t[8 + m] = _mm512_shuffle_f32x4(ab1, ce1, 0x88);
        t[12 + m] = _mm512_shuffle_f32x4(ab1, ce1, 0xDD);
    }
    for (int k = 0; k < 16; k++) r[k] = t[k];
}

/* 8 rows of 8 eight-byte elements transposed in place: t[2k] lane L holds (row 2k, row 2k + 1)
 * element 2L, t[2k + 1] element 2L + 1; then the lanes gathered. */
AVX512 static inline AI void tr8_pd(__m512d *r)
{
    __m512d t[8];
    for (int k = 0; k < 4; k++) {
        t[2 * k] = _mm512_unpacklo_pd(r[2 * k], r[2 * k + 1]);
        t[2 * k + 1] = _mm512_unpackhi_pd(r[2 * k], r[2 * k + 1]);
    }
    for (int odd = 0; odd < 2; odd++) {
        __m512d u = _mm512_shuffle_f64x2(t[odd], t[2 + odd], 0x88), v = _mm512_shuffle_f64x2(t[4 + odd], t[6 + odd], 0x88);
        __m512d u2 = _mm512_shuffle_f64x2(t[odd], t[2 + odd], 0xDD), v2 = _mm512_shuffle_f64x2(t[4 + odd], t[6 + odd], 0xDD);
        r[odd] = _mm512_shuffle_f64x2(u, v, 0x88);
        r[4 + odd] = _mm512_shuffle_f64x2(u, v, 0xDD);
        r[2 + odd] = _mm512_shuffle_f64x2(u2, v2, 0x88);
        r[6 + odd] = _mm512_shuffle_f64x2(u2, v2, 0xDD);
    }
}

/* One block: BK source rows of one 64-byte register each (ssa apart) loaded, transposed, and
 * stored as BK destination rows (dsb apart). STORE: unaligned plain stores (block4z, block8z) or
 * streaming (non-temporal) ones (block4zn, block8zn: each destination row of the block one whole
 * aligned cache line, the caller's guarantee: dp and dsb multiples of 64), which write the line
 * to memory without reading it first (see NT_MIN_BYTES). */
#define DEFINE_ZBLOCK(NAME, LOADT, BK, TR, STORE)                                                  \
    AVX512 static inline void NAME(char *dp, Py_ssize_t dsb, const char *sp, Py_ssize_t ssa, Py_ssize_t ssb) \
    {                                                                                             \
        (void)ssb;                                                                                \
        LOADT r[BK];                                                                              \
        for (int k = 0; k < BK; k++) r[k] = LOAD_##LOADT(sp + k * ssa);                           \
        TR(r);                                                                                    \
        for (int k = 0; k < BK; k++) STORE##LOADT(dp + k * dsb, r[k]);                            \
    }
#define LOAD___m512(p) _mm512_loadu_ps(p)
#define STORE___m512(p, v) _mm512_storeu_ps(p, v)
#define STREAM___m512(p, v) _mm512_stream_ps((float *)(void *)(p), v)
#define LOAD___m512d(p) _mm512_loadu_pd(p)
#define STORE___m512d(p, v) _mm512_storeu_pd(p, v)
#define STREAM___m512d(p, v) _mm512_stream_pd((double *)(void *)(p), v)
DEFINE_ZBLOCK(block4z, __m512, 16, tr16_ps, STORE_)
DEFINE_ZBLOCK(block8z, __m512d, 8, tr8_pd, STORE_)
DEFINE_ZBLOCK(block4zn, __m512, 16, tr16_ps, STREAM_)
DEFINE_ZBLOCK(block8zn, __m512d, 8, tr8_pd, STREAM_)
/* The tiles' side along a for these blocks: one block row (16 four-byte elements, 8 eight-byte
 * ones) where the plane is near square (measured, thread CPU time, loaded machine: 2896^2 float32
 * 4.2-4.4 ms against 6.4 with 64, 2048^2 1.8-2.3 against 2.6), four where a is far longer than b
 * ((64, 256, 512).permute(2, 0, 1): 512 x 16384, 4.7 ms against 6.3-7.8 with 16). Where the
 * destination's rows are 64 KB or more apart (FAR_ROWS: a 3-d permute's, each row a whole plane),
 * wider: 128 four-byte elements, 16 eight-byte ones (session 17, 32 MB into existing memory,
 * thread CPU / memcpy side by side: float32 (64, 256, 512).permute(2, 0, 1) 2.15x -> 1.75-1.8x,
 * (16384, 512).t() 1.9-2.0x -> 1.6-1.7x; float64 (64, 256, 256).permute(2, 0, 1) 1.9-2.0x ->
 * 1.55-1.6x, permute(2, 1, 0) 2.0x -> 1.4x, (8192, 512).t() 2.1x -> 1.5x; 32 or 64 eight-byte
 * elements no better or worse; nearer rows unchanged: 2-d float64 transposes 1.1x with 8, 1.7x with 16). */
#define FAR_ROWS (dsb >= 65536 || dsb <= -65536)
#ifndef ZTILE_A4
#define ZTILE_A4 (FAR_ROWS ? 128 : na >= 8 * nb ? 64 : 16)
#endif
#ifndef ZTILE_A8
#define ZTILE_A8 (FAR_ROWS ? 16 : 8)
#endif
DEFINE_SSE_PLANE_FOR(plane4_z, 4, 16, block4z, plane4_line, AVX512, ZTILE_A4)
DEFINE_SSE_PLANE_FOR(plane8_z, 8, 8, block8z, plane8_line, AVX512, ZTILE_A8)
DEFINE_SSE_PLANE_FOR(plane4_zn, 4, 16, block4zn, plane4_line, AVX512, ZTILE_A4)
DEFINE_SSE_PLANE_FOR(plane8_zn, 8, 8, block8zn, plane8_line, AVX512, ZTILE_A8)
static int use_avx512_blocks; /* set at import */

/* A plane whose source run crosses two dims: the source's unit-stride dim b is short (n0
 * elements, under one cache line) and the dim e outside it continues the run (its source stride
 * n0 * SZ), while the destination runs along a ((1024, 2048, 4).permute(2, 1, 0): b = the 4,
 * e = the 2048). Walking b alone read 16 bytes of each source line per plane, and the lines
 * (rows power-of-two bytes apart) were gone before the next plane came back for the rest:
 * 6-9x a memcpy. Here row i of the n0 * n1 rows is source s + i * SZ (one run) and destination
 * d + (i % n0) * d0 + (i / n0) * d1: the blocks read whole source lines and store each
 * destination row through its own pointer. */
#define DEFINE_ROWS_PLANE(NAME, SZ, BK, LOADT, TR)                                                \
    AVX512 static void NAME(char *d, const char *s, Py_ssize_t n0, Py_ssize_t n1, Py_ssize_t na,   \
                            Py_ssize_t d0, Py_ssize_t d1, Py_ssize_t ssa)                         \
    {                                                                                             \
        Py_ssize_t nb = n0 * n1;                                                                  \
        char *rows[BK];                                                                           \
        for (Py_ssize_t i0 = 0; i0 < nb; i0 += TILE_B(SZ)) {                                      \
            Py_ssize_t i1 = i0 + TILE_B(SZ) < nb ? i0 + TILE_B(SZ) : nb;                          \
            Py_ssize_t ik = i0 + (i1 - i0) / BK * BK;                                             \
            for (Py_ssize_t j0 = 0; j0 < na; j0 += ZTILE_AR) {                                    \
                Py_ssize_t j1 = j0 + ZTILE_AR < na ? j0 + ZTILE_AR : na;                          \
                Py_ssize_t jk = j0 + (j1 - j0) / BK * BK;                                         \
                for (Py_ssize_t i = i0; i < ik; i += BK) {                                        \
                    for (int k = 0; k < BK; k++)                                                  \
                        rows[k] = d + ((i + k) % n0) * d0 + ((i + k) / n0) * d1;                  \
                    for (Py_ssize_t j = j0; j < jk; j += BK) {                                    \
                        LOADT r[BK];                                                              \
                        const char *sp = s + i * SZ + j * ssa;                                    \
                        for (int k = 0; k < BK; k++) r[k] = LOAD_##LOADT(sp + k * ssa);           \
                        TR(r);                                                                    \
                        for (int k = 0; k < BK; k++) STORE_##LOADT(rows[k] + j * SZ, r[k]);       \
                    }                                                                             \
                    for (int k = 0; k < BK; k++) /* the columns past the blocks */               \
                        for (Py_ssize_t j = jk; j < j1; j++)                                      \
                            memcpy(rows[k] + j * SZ, s + (i + k) * SZ + j * ssa, SZ);             \
                }                                                                                 \
                for (Py_ssize_t i = ik; i < i1; i++) { /* the rows past the blocks */             \
                    char *row = d + (i % n0) * d0 + (i / n0) * d1;                                \
                    for (Py_ssize_t j = j0; j < j1; j++)                                          \
                        memcpy(row + j * SZ, s + i * SZ + j * ssa, SZ);                           \
                }                                                                                 \
            }                                                                                     \
        }                                                                                         \
    }
#ifndef ZTILE_AR
#define ZTILE_AR 64
#endif
DEFINE_ROWS_PLANE(rows4_z, 4, 16, __m512, tr16_ps)
DEFINE_ROWS_PLANE(rows8_z, 8, 8, __m512d, tr8_pd)

/* The run-through planes (DEFINE_SSE_PLANE2) with these blocks, where the destination's last dim
 * is a whole number of blocks. Inside a tile the blocks along the run are the outer loop: each
 * block column reads its 16 (8) source rows from start to end of the tile's b before the next,
 * where the rows along the run lie a whole source plane apart and the i-outer order read one line
 * of each of 128 such rows per step (session 17, thread CPU / memcpy into existing memory: float32
 * (64, 256, 512).permute(2, 1, 0) 2.5x -> 2.1x, (32, 128, 2048) 2.7x -> 2.1x, float64 (32, 64,
 * 2048) 2.3-3.6x -> 1.85x).
 *
 * Session 18: a block column keeps one pointer per source row (rows[k]: the run's element j + k,
 * computed once per column), so a block may cross from one of the destination's last-dim runs
 * into the next, and the blocks start on whole cache lines: the block columns at column hj (the
 * destination's next line), the block rows at row hi (the source's next line). The heads and
 * tails are one more block each, unaligned, at column 0 / row 0 and at the last BK columns / rows
 * (overlapping their neighbours: those elements are written twice, with the same bytes). With nt
 * (the caller's: a large copy, dsb a multiple of 64) the aligned blocks store their lines by
 * streaming stores. NumPy's large buffers sit 16 bytes past a line, so before this every 64-byte
 * block row straddled two lines on both sides. Measured, 32 MB, thread CPU / memcpy side by side,
 * loaded machine: float32 (64, 256, 512).permute(2, 1, 0) into existing memory 2.65-3.4x ->
 * 1.9-2.4x (1.4x with both buffers on a line), into new memory 4.7-5.7x -> 3.9-4.6x; float64
 * (64, 256, 256).permute(2, 1, 0) 1.9-2.0x -> 1.6-1.7x, into new memory 4.0-4.2x -> 3.6-3.8x.
 * Needs nb >= BK and na >= BK (copy_nd's choice: na >= RUN2 bytes; a shorter nb takes the plain
 * loop). */
#define Z2_BLOCK(SZ, BK, LOADT, TR, STORE, I)                                                     \
    do {                                                                                          \
        for (int k = 0; k < BK; k++) r[k] = LOAD_##LOADT(rows[k] + (I) * SZ);                     \
        TR(r);                                                                                    \
        for (int k = 0; k < BK; k++) STORE##LOADT(dj + ((I) + k) * dsb, r[k]);                    \
    } while (0)
#define DEFINE_Z2_PLANE(NAME, SZ, BK, LOADT, TR)                                                  \
    AVX512 static void NAME(char *d, const char *s, Py_ssize_t nb, Py_ssize_t n1, Py_ssize_t n2,  \
                            Py_ssize_t dsb, Py_ssize_t ssa1, Py_ssize_t ssa2, int nt)             \
    {                                                                                             \
        Py_ssize_t na = n1 * n2;                                                                  \
        if (nb < BK || na < BK) {                                                                 \
            for (Py_ssize_t j = 0; j < na; j++)                                                   \
                for (Py_ssize_t i = 0; i < nb; i++)                                               \
                    memcpy(d + i * dsb + j * SZ, s + i * SZ + (j / n2) * ssa1 + (j % n2) * ssa2, SZ); \
            return;                                                                               \
        }                                                                                         \
        Py_ssize_t hi = 0, hj = 0;                                                                \
        if (ssa1 % 64 == 0 && ssa2 % 64 == 0)                                                     \
            hi = (Py_ssize_t)((64 - ((uintptr_t)s & 63)) & 63) / SZ;                              \
        if (dsb % 64 == 0)                                                                        \
            hj = (Py_ssize_t)((64 - ((uintptr_t)d & 63)) & 63) / SZ;                              \
        if (hi + BK > nb) hi = 0;                                                                 \
        if (hj + BK > na) hj = 0;                                                                 \
        nt = nt && dsb % 64 == 0 && ((uintptr_t)d + hj * SZ) % 64 == 0;                           \
        Py_ssize_t ie = hi + (nb - hi) / BK * BK, je = hj + (na - hj) / BK * BK;                  \
        const char *rows[BK];                                                                     \
        LOADT r[BK];                                                                              \
        for (Py_ssize_t i0 = hi; i0 < ie; i0 += TILE_B(SZ)) {                                     \
            Py_ssize_t i1 = i0 + TILE_B(SZ) < ie ? i0 + TILE_B(SZ) : ie;                          \
            int head = i0 == hi && hi > 0, tail = i1 == ie && ie < nb;                            \
            for (Py_ssize_t j0 = hj; j0 < je; j0 += TILE_A2) {                                    \
                Py_ssize_t j1 = j0 + TILE_A2 < je ? j0 + TILE_A2 : je;                            \
                for (Py_ssize_t j = j0; j < j1; j += BK) { /* (j outer: see above) */             \
                    char *dj = d + j * SZ;                                                        \
                    for (int k = 0; k < BK; k++)                                                  \
                        rows[k] = s + ((j + k) / n2) * ssa1 + ((j + k) % n2) * ssa2;              \
                    if (head) Z2_BLOCK(SZ, BK, LOADT, TR, STORE_, 0);                             \
                    if (nt)                                                                       \
                        for (Py_ssize_t i = i0; i < i1; i += BK) Z2_BLOCK(SZ, BK, LOADT, TR, STREAM_, i); \
                    else                                                                          \
                        for (Py_ssize_t i = i0; i < i1; i += BK) Z2_BLOCK(SZ, BK, LOADT, TR, STORE_, i); \
                    if (tail) Z2_BLOCK(SZ, BK, LOADT, TR, STORE_, nb - BK);                       \
                }                                                                                 \
            }                                                                                     \
        }                                                                                         \
        /* the head and tail columns: one block column each, every row */                         \
        for (int side = 0; side < 2; side++) {                                                    \
            Py_ssize_t j = side ? na - BK : 0;                                                    \
            if (side ? je == na : hj == 0) continue;                                              \
            char *dj = d + j * SZ;                                                                \
            for (int k = 0; k < BK; k++)                                                          \
                rows[k] = s + ((j + k) / n2) * ssa1 + ((j + k) % n2) * ssa2;                      \
            if (hi > 0) Z2_BLOCK(SZ, BK, LOADT, TR, STORE_, 0);                                   \
            for (Py_ssize_t i = hi; i < ie; i += BK) Z2_BLOCK(SZ, BK, LOADT, TR, STORE_, i);      \
            if (ie < nb) Z2_BLOCK(SZ, BK, LOADT, TR, STORE_, nb - BK);                            \
        }                                                                                         \
    }
DEFINE_Z2_PLANE(plane4_z2, 4, 16, __m512, tr16_ps)
DEFINE_Z2_PLANE(plane8_z2, 8, 8, __m512d, tr8_pd)

/* plane4_z / plane8_z with every block's 64-byte rows on whole cache lines where the layout
 * allows (the destination's rows dsb apart, the source's ssa apart, both multiples of 64): the
 * first rows (b) up to the source's next line and then the first columns (a) up to the
 * destination's next line go by the SSE plane, the rest by the 64-byte blocks. Why: NumPy's
 * large buffers start 16 bytes past a page (glibc's chunk header), so without this each block row
 * straddles two lines, and the destination line's second half is written a whole tile later,
 * after the line has left the cache (measured, 32 MB float32 (4096, 2048).t() into a 16-byte
 * offset buffer, thread CPU time against a memcpy: 1.8-2.1x -> 1.1-1.3x into existing memory,
 * 2.9-3.7x -> 2.4-2.5x into new memory; a 64-byte aligned buffer was already 1.1-1.2x). */
static void plane_z(int sz, char *d, const char *s, Py_ssize_t nb, Py_ssize_t na, Py_ssize_t dsb,
                    Py_ssize_t ssb, Py_ssize_t ssa, int nt)
{
    /* nt (a large copy: see NT_MIN_BYTES) only where the destination's rows are 64 KB or more
     * apart (a 3-d permute's planes): there the destination's lines go by streaming stores
     * (each block row one whole line, so the columns' head below is taken). Measured, 32 MB
     * into existing memory, thread CPU / memcpy side by side, loaded machine: float32 (64, 256,
     * 512).permute(2, 0, 1) 2.05-2.55x -> 1.95-2.25x, float64 (64, 256, 256).permute(2, 0, 1)
     * 1.65-2.2x -> 1.1-1.4x (into new memory 3.4-4.3x -> 2.7-3.6x); but 2-d transposes with
     * nearer rows 1.7-2.0x -> 1.8-2.05x (into new memory 3.0-4.2x -> 3.5-4.4x), so not there. */
    nt = nt && FAR_ROWS && dsb % 64 == 0;
    /* (the columns' head not where the destination's rows are 64 KB or more apart, unless nt:
     * measured, float64 32 MB permute(2, 0, 1) and (2, 1, 0), rows 128 KB apart, 1.9x -> 2.2-2.5x
     * a memcpy with it; each row's lines share a few cache sets there either way) */
    line_heads(sz, &d, &s, &nb, &na, dsb, ssb, ssa, (dsb < 65536 && dsb > -65536) || nt);
    if (nt && ((uintptr_t)d & 63) == 0) {
        if (sz == 4) plane4_zn(d, s, nb, na, dsb, ssb, ssa);
        else plane8_zn(d, s, nb, na, dsb, ssb, ssa);
    } else if (sz == 4) plane4_z(d, s, nb, na, dsb, ssb, ssa);
    else plane8_z(d, s, nb, na, dsb, ssb, ssa);
}
#else
#define HAVE_AVX512_BLOCKS 0
#endif

#if HAVE_SSE2 && defined(__GNUC__) && defined(__x86_64__) && !defined(STRIDED_NO_AVX2_BLOCKS)
/* AVX2's blocks, for CPUs without AVX-512F (AMD's before Zen 4, Intel's desktop parts): 8 x 8
 * four-byte elements (4 x 4 eight-byte ones) transposed in 32-byte registers, each loaded as two
 * 16-byte halves of rows k and k + 4 (k + 2), so that the transpose stays inside the 128-bit
 * lanes (unpacks and shuffles only: bits as they are, NaN payloads included). Four blocks make a
 * 16 x 16 (8 x 8) square whose source and destination rows are each one 64-byte line, read or
 * written whole by two neighbouring blocks, as AVX-512's one-register rows do; the SSE blocks
 * (4 x 4, 2 x 2) touch each line four or two times, a tile apart, and where the rows' strides are
 * multiples of 4 KB (every row in one L1 set) the line is gone by then. Measured (session 40, AMD
 * EPYC AVX2, thread CPU time, loaded 2-core machine, into existing memory; SSE -> AVX2, PyTorch
 * one thread): float32 (1024, 1024).T 935 -> 620-690 us (PyTorch 925-975), (512, 2048).T 940 ->
 * 465, (2048, 512).T 555 -> 400, (4096, 2048).T 8.1 -> 6.4 ms (10.8); float64 (1024, 1024).T
 * 2.0-2.15 -> 0.89-0.98 ms (2.2-2.4), (1000, 1000).T 825 -> 440-490 us, (2048, 2048).T 7.8-9.7 ->
 * 4.3-4.6 ms (8.2-8.3). Tried: streaming stores 1.4-1.9x slower; the other block order (each
 * source line whole first) 5-30% slower. Picked at import where the CPU has AVX2 and not the
 * AVX-512 blocks (STRIDED_NATIVE_COPY_ISA=sse: the SSE blocks; =avx2: these where AVX-512 is
 * there too, for the tests). */
#define HAVE_AVX2_BLOCKS 1
#define AVX2 __attribute__((target("avx2")))
#define AI2 __attribute__((always_inline))
#define LOAD_HALVES_PS(p, q) _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps((const float *)(const void *)(p))), \
                                                  _mm_loadu_ps((const float *)(const void *)(q)), 1)
#define LOAD_HALVES_PD(p, q) _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd((const double *)(const void *)(p))), \
                                                  _mm_loadu_pd((const double *)(const void *)(q)), 1)
/* Four registers (lane 0: four elements of source rows 0-3, lane 1: of rows 4-7) stored
 * transposed as four destination rows of eight elements. */
AVX2 static inline AI2 void store4x8(char *dp, Py_ssize_t dsb, __m256 r0, __m256 r1, __m256 r2, __m256 r3)
{
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    _mm256_storeu_ps((float *)(void *)dp, _mm256_shuffle_ps(t0, t2, 0x44));
    _mm256_storeu_ps((float *)(void *)(dp + dsb), _mm256_shuffle_ps(t0, t2, 0xEE));
    _mm256_storeu_ps((float *)(void *)(dp + 2 * dsb), _mm256_shuffle_ps(t1, t3, 0x44));
    _mm256_storeu_ps((float *)(void *)(dp + 3 * dsb), _mm256_shuffle_ps(t1, t3, 0xEE));
}
/* 8 source rows (ssa apart) of 8 four-byte elements into 8 destination rows (dsb apart). */
AVX2 static inline AI2 void block4y(char *dp, Py_ssize_t dsb, const char *sp, Py_ssize_t ssa)
{
    store4x8(dp, dsb, LOAD_HALVES_PS(sp, sp + 4 * ssa), LOAD_HALVES_PS(sp + ssa, sp + 5 * ssa),
             LOAD_HALVES_PS(sp + 2 * ssa, sp + 6 * ssa), LOAD_HALVES_PS(sp + 3 * ssa, sp + 7 * ssa));
    store4x8(dp + 4 * dsb, dsb, LOAD_HALVES_PS(sp + 16, sp + 4 * ssa + 16), LOAD_HALVES_PS(sp + ssa + 16, sp + 5 * ssa + 16),
             LOAD_HALVES_PS(sp + 2 * ssa + 16, sp + 6 * ssa + 16), LOAD_HALVES_PS(sp + 3 * ssa + 16, sp + 7 * ssa + 16));
}
/* 4 source rows of 4 eight-byte elements into 4 destination rows. */
AVX2 static inline AI2 void block8y(char *dp, Py_ssize_t dsb, const char *sp, Py_ssize_t ssa)
{
    __m256d r0 = LOAD_HALVES_PD(sp, sp + 2 * ssa), r1 = LOAD_HALVES_PD(sp + ssa, sp + 3 * ssa);
    __m256d r2 = LOAD_HALVES_PD(sp + 16, sp + 2 * ssa + 16), r3 = LOAD_HALVES_PD(sp + ssa + 16, sp + 3 * ssa + 16);
    _mm256_storeu_pd((double *)(void *)dp, _mm256_unpacklo_pd(r0, r1));
    _mm256_storeu_pd((double *)(void *)(dp + dsb), _mm256_unpackhi_pd(r0, r1));
    _mm256_storeu_pd((double *)(void *)(dp + 2 * dsb), _mm256_unpacklo_pd(r2, r3));
    _mm256_storeu_pd((double *)(void *)(dp + 3 * dsb), _mm256_unpackhi_pd(r2, r3));
}
/* The plane in squares of SQ x SQ elements (64-byte rows; BLOCK is SQ / 2 square): tiles of
 * TILE_B(SZ) x SQ, or TILE_B(SZ) x WIDE where a is at least as long as b, the squares' two
 * destination halves of each line by neighbouring blocks; the columns and rows past the whole
 * squares by the SSE plane. ssb is SZ (the caller's condition). Measured (session 40, thread CPU
 * time, into existing memory, tiles SQ / 4 SQ / 16 SQ wide): float32 (2048, 512).T 590 / 430 /
 * 410 us, (1024, 1024).T 655 / 610 / 590, (4096, 1024).T 3.1 / 3.1 / 2.7 ms, (16384, 512).T 9.2 /
 * 5.6 / 4.7 ms, but (512, 2048).T (b longer) 470 / 610 / 600 us; float64 (1024, 1024).T 920 / 825
 * / 820 us, (8192, 512).T 7.6 / 5.1 / 5.0 ms, (2048, 1024).T 1.95 / 2.06 / 2.17 ms: WIDE 16 SQ for
 * float32, 4 SQ for float64. */
#define DEFINE_AVX2_PLANE(NAME, SZ, SQ, BLOCK, EDGE, WIDE)                                         \
    AVX2 static void NAME(char *d, const char *s, Py_ssize_t nb, Py_ssize_t na, Py_ssize_t dsb, Py_ssize_t ssa) \
    {                                                                                             \
        const Py_ssize_t h = SQ / 2, nbq = nb / SQ * SQ, naq = na / SQ * SQ;                      \
        const Py_ssize_t ta = na >= nb ? (WIDE) : SQ;                                             \
        for (Py_ssize_t i0 = 0; i0 < nbq; i0 += TILE_B(SZ)) {                                     \
            Py_ssize_t i1 = i0 + TILE_B(SZ) < nbq ? i0 + TILE_B(SZ) : nbq;                        \
            for (Py_ssize_t j0 = 0; j0 < naq; j0 += ta) {                                         \
                Py_ssize_t j1 = j0 + ta < naq ? j0 + ta : naq;                                    \
                for (Py_ssize_t i = i0; i < i1; i += SQ)                                          \
                    for (Py_ssize_t j = j0; j < j1; j += SQ) {                                    \
                        char *dp = d + i * dsb + j * SZ;                                          \
                        const char *sp = s + i * SZ + j * ssa;                                    \
                        BLOCK(dp, dsb, sp, ssa);                                                  \
                        BLOCK(dp + h * SZ, dsb, sp + h * ssa, ssa);                               \
                        BLOCK(dp + h * dsb, dsb, sp + h * SZ, ssa);                               \
                        BLOCK(dp + h * dsb + h * SZ, dsb, sp + h * ssa + h * SZ, ssa);            \
                    }                                                                             \
            }                                                                                     \
        }                                                                                         \
        if (naq < na) EDGE(d + naq * SZ, s + naq * ssa, nb, na - naq, dsb, SZ, ssa);              \
        if (nbq < nb) EDGE(d + nbq * dsb, s + nbq * SZ, nb - nbq, naq, dsb, SZ, ssa);             \
    }
DEFINE_AVX2_PLANE(plane4_y, 4, 16, block4y, plane4_sse, 256)
DEFINE_AVX2_PLANE(plane8_y, 8, 8, block8y, plane8_sse, 32)
static int use_avx2_blocks; /* set at import */

/* plane4_y / plane8_y after plane_z's line heads, the destination's whatever its rows' distance
 * (measured, float32 (16384, 512).T, rows 64 KB apart: 6.7 ms without the destination's head, 5.6
 * with it). */
static void plane_y(int sz, char *d, const char *s, Py_ssize_t nb, Py_ssize_t na, Py_ssize_t dsb,
                    Py_ssize_t ssb, Py_ssize_t ssa)
{
    line_heads(sz, &d, &s, &nb, &na, dsb, ssb, ssa, 1);
    if (sz == 4) plane4_y(d, s, nb, na, dsb, ssa);
    else plane8_y(d, s, nb, na, dsb, ssa);
}
#else
#define HAVE_AVX2_BLOCKS 0
#endif

#include "_interleave.h"
#include "_row_copy.h"
#include "_masked_run.h"
#include "_nonzero_rows.h"
#include "_unravel.h"

/* One (b, a) plane: nb x na elements. */
static void copy_plane(int itemsize, char *d, const char *s, Py_ssize_t nb, Py_ssize_t na,
                       Py_ssize_t dsb, Py_ssize_t dsa, Py_ssize_t ssb, Py_ssize_t ssa, int nt)
{
    (void)nt;
#if HAVE_SSE2
    if (interleave2(itemsize, d, s, nb, na, dsb, dsa, ssb, ssa))
        return;
    if (dsa == itemsize && ssb == itemsize) {
#if HAVE_AVX512_BLOCKS
        if (use_avx512_blocks && (itemsize == 4 || itemsize == 8)) { plane_z(itemsize, d, s, nb, na, dsb, ssb, ssa, nt); return; }
#endif
#if HAVE_AVX2_BLOCKS
        if (use_avx2_blocks && (itemsize == 4 || itemsize == 8)) { plane_y(itemsize, d, s, nb, na, dsb, ssb, ssa); return; }
#endif
        switch (itemsize) {
        case 1: plane1_sse(d, s, nb, na, dsb, ssb, ssa); return;
        case 2: plane2_sse(d, s, nb, na, dsb, ssb, ssa); return;
        case 4: plane4_sse(d, s, nb, na, dsb, ssb, ssa); return;
        case 8: plane8_sse(d, s, nb, na, dsb, ssb, ssa); return;
        }
    }
    if (dsa == itemsize) {  /* (the source steps along b) */
        switch (itemsize) {
        case 4: plane4_step(d, s, nb, na, dsb, ssb, ssa); return;
        case 8: plane8_step(d, s, nb, na, dsb, ssb, ssa); return;
        }
    }
#endif
    switch (itemsize) {
    case 1: plane1(d, s, nb, na, dsb, dsa, ssb, ssa); break;
    case 2: plane2(d, s, nb, na, dsb, dsa, ssb, ssa); break;
    case 4: plane4(d, s, nb, na, dsb, dsa, ssb, ssa); break;
    case 8: plane8(d, s, nb, na, dsb, dsa, ssb, ssa); break;
    case 16: plane16(d, s, nb, na, dsb, dsa, ssb, ssa); break;
    default: planeN(itemsize, d, s, nb, na, dsb, dsa, ssb, ssa); break;
    }
}

/* One line along the last dim (the source runs along it too, or along none). */
#if HAVE_SSE2
/* A line read backwards into a forward one (a flip along the destination's last dim): 16 bytes
 * at a time, their elements reversed in the register (NumPy's and the plain loop's element by
 * element copy: about 3x a memcpy); the tail element by element. */
static void reverse_line4(char *d, const char *s, Py_ssize_t n)
{
    Py_ssize_t j = 0;
    for (; j + 4 <= n; j += 4) {  /* source elements j .. j + 3 lie at s - (j + 3) * 4 .. s - j * 4 */
        __m128i v = _mm_loadu_si128((const __m128i *)(s - (j + 3) * 4));
        _mm_storeu_si128((__m128i *)(d + j * 4), _mm_shuffle_epi32(v, _MM_SHUFFLE(0, 1, 2, 3)));
    }
    for (; j < n; j++) memcpy(d + j * 4, s - j * 4, 4);
}

static void reverse_line8(char *d, const char *s, Py_ssize_t n)
{
    Py_ssize_t j = 0;
    for (; j + 2 <= n; j += 2) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s - (j + 1) * 8));
        _mm_storeu_si128((__m128i *)(d + j * 8), _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)));
    }
    for (; j < n; j++) memcpy(d + j * 8, s - j * 8, 8);
}
#endif

#if HAVE_AVX512_BLOCKS
/* The reversed lines with 64-byte registers (elements reversed by vpermd / vpermq, bits as they
 * are), the SSE loops' tail: a (1024, 1024) float32 flipped along its rows (fliplr) 205 -> ~110 us,
 * a memcpy of it ~90 (the SSE loop's 16-byte steps were 2.3x the memcpy). */
AVX512 static void reverse_line4_z(char *d, const char *s, Py_ssize_t n)
{
    const __m512i back = _mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    Py_ssize_t j = 0;
    for (; j + 16 <= n; j += 16) {  /* source elements j .. j + 15 lie at s - (j + 15) * 4 .. s - j * 4 */
        __m512i v = _mm512_loadu_si512((const void *)(s - (j + 15) * 4));
        _mm512_storeu_si512((void *)(d + j * 4), _mm512_permutexvar_epi32(back, v));
    }
    reverse_line4(d + j * 4, s - j * 4, n - j);
}

AVX512 static void reverse_line8_z(char *d, const char *s, Py_ssize_t n)
{
    const __m512i back = _mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    Py_ssize_t j = 0;
    for (; j + 8 <= n; j += 8) {
        __m512i v = _mm512_loadu_si512((const void *)(s - (j + 7) * 8));
        _mm512_storeu_si512((void *)(d + j * 8), _mm512_permutexvar_epi64(back, v));
    }
    reverse_line8(d + j * 8, s - j * 8, n - j);
}
#endif

static void copy_line(int itemsize, char *d, const char *s, Py_ssize_t n, Py_ssize_t ds, Py_ssize_t ss)
{
    if (ds == itemsize && ss == itemsize) { copy_run(d, s, (size_t)(n * itemsize)); return; }
#if HAVE_SSE2
    if (ds == itemsize && ss == -itemsize && (itemsize == 4 || itemsize == 8)) {
#if HAVE_AVX512_BLOCKS
        if (use_avx512_blocks) {
            if (itemsize == 4) reverse_line4_z(d, s, n);
            else reverse_line8_z(d, s, n);
            return;
        }
#endif
        if (itemsize == 4) reverse_line4(d, s, n);
        else reverse_line8(d, s, n);
        return;
    }
#endif
    switch (itemsize) {
    case 1: plane1_line(d, s, n, ds, ss); break;
    case 2: plane2_line(d, s, n, ds, ss); break;
    case 4: plane4_line(d, s, n, ds, ss); break;
    case 8: plane8_line(d, s, n, ds, ss); break;
    case 16: plane16_line(d, s, n, ds, ss); break;
    default: lineN(itemsize, d, s, n, ds, ss); break;
    }
}

/* The whole copy: an odometer over the outer dims (every dim but a = ndim-1 and, when the
 * source runs along another dim, b), one plane or line per step. (Tried: walking the dims
 * between b and a inside bands of b, so that the destination's rows stream; 1.2-1.6x slower on
 * 3-d permutes, with TILE_B destination rows written at once.) */
static void copy_nd(int itemsize, char *d, const char *s, int ndim, const Py_ssize_t *shape,
                    const Py_ssize_t *dst, const Py_ssize_t *sst, int nt)
{
    int a = ndim - 1, b = -1;
    Py_ssize_t best = 0;
    for (int k = 0; k < ndim; k++) {
        Py_ssize_t st = sst[k] < 0 ? -sst[k] : sst[k];
        if (shape[k] > 1 && st && (b < 0 || st < best)) { b = k; best = st; }
    }
    if (b == a && ndim >= 2 && dst[a] == itemsize && sst[a] == itemsize && shape[a] * itemsize <= FOLD_MAX) {
        /* Both run along a, and a is short ((N, M, 3).permute(1, 0, 2): runs of 3 elements): a
         * run is one element of shape[a] * itemsize bytes, and the copy the transpose of those
         * that it is (NumPy's inner loop of 3 elements: 4-13x a memcpy). */
        copy_nd((int)(shape[a] * itemsize), d, s, ndim - 1, shape, dst, sst, nt);
        return;
    }
    if (b == a) b = -1;
    /* c: the dim outside a that the destination runs on through (see DEFINE_SSE_PLANE2), when a
     * is short; -1: none */
    int c = -1;
#if HAVE_SSE2
    if (RUN2 && b >= 0 && a >= 1 && a - 1 != b && dst[a] == itemsize && sst[b] == itemsize && (itemsize & (itemsize - 1)) == 0 && itemsize <= 8
        && dst[a - 1] == shape[a] * itemsize && shape[a] * itemsize < RUN2
        && shape[a] % (16 / itemsize) == 0 && (shape[a - 1] * shape[a]) * itemsize >= RUN2)
        c = a - 1;
#endif
    /* e: the dim whose source stride continues b's short run (DEFINE_ROWS_PLANE); -1: none */
    int e = -1;
#if HAVE_AVX512_BLOCKS
    if (use_avx512_blocks && c < 0 && b >= 0 && (itemsize == 4 || itemsize == 8) && dst[a] == itemsize
        && sst[b] == itemsize && shape[b] * itemsize < 64)
        for (int k = 0; k < a; k++)
            if (k != b && shape[k] > 1 && sst[k] == shape[b] * itemsize) { e = k; break; }
#endif
    Py_ssize_t idx[MAX_DIMS];
    int outer[MAX_DIMS], no = 0;
    for (int k = 0; k < a; k++)
        if (k != b && k != c && k != e) { outer[no++] = k; idx[k] = 0; }
    for (;;) {
#if HAVE_AVX512_BLOCKS
        if (e >= 0) {
            if (itemsize == 4) rows4_z(d, s, shape[b], shape[e], shape[a], dst[b], dst[e], sst[a]);
            else rows8_z(d, s, shape[b], shape[e], shape[a], dst[b], dst[e], sst[a]);
        } else
#endif
#if HAVE_SSE2
        if (c >= 0) {
#if HAVE_AVX512_BLOCKS
            if (use_avx512_blocks && itemsize == 4 && shape[a] % 16 == 0)
                plane4_z2(d, s, shape[b], shape[c], shape[a], dst[b], sst[c], sst[a], nt);
            else if (use_avx512_blocks && itemsize == 8 && shape[a] % 8 == 0)
                plane8_z2(d, s, shape[b], shape[c], shape[a], dst[b], sst[c], sst[a], nt);
            else
#endif
            switch (itemsize) {
            case 1: plane1_sse2(d, s, shape[b], shape[c], shape[a], dst[b], sst[c], sst[a]); break;
            case 2: plane2_sse2(d, s, shape[b], shape[c], shape[a], dst[b], sst[c], sst[a]); break;
            case 4: plane4_sse2(d, s, shape[b], shape[c], shape[a], dst[b], sst[c], sst[a]); break;
            default: plane8_sse2(d, s, shape[b], shape[c], shape[a], dst[b], sst[c], sst[a]); break;
            }
        } else
#endif
        if (b >= 0)
            copy_plane(itemsize, d, s, shape[b], shape[a], dst[b], dst[a], sst[b], sst[a], nt);
        else
            copy_line(itemsize, d, s, shape[a], dst[a], sst[a]);
        int k = no - 1;  /* advance the odometer, innermost outer dim first */
        for (; k >= 0; k--) {
            int dim = outer[k];
            if (++idx[dim] < shape[dim]) { d += dst[dim]; s += sst[dim]; break; }
            d -= (shape[dim] - 1) * dst[dim];
            s -= (shape[dim] - 1) * sst[dim];
            idx[dim] = 0;
        }
        if (k < 0) return;
    }
}

/* ---- apply2d: an elementwise op between two memory orders, in one cache-blocked pass.
 *
 * apply2d(op, itemsize, nb, na, out, out_row, x, x_stride, x_across, y, y_stride, y_across, widen=0)
 *
 *   out[i, j] = x[i, j] OP y[i, j] (op 0..3: + - * /) or sqrt(x[i, j]) (op 4; y unused) over
 *   an nb x na plane of float32 (itemsize 4) or float64 (8) elements. The output runs along j
 *   (its element j + 1 is itemsize bytes after j; its rows are out_row bytes apart). Each input
 *   either runs along j as the output does (across = 0: x_stride is its row stride) or across
 *   the rows (across = 1: x[i + 1, j] is itemsize bytes after x[i, j] and x_stride steps j).
 *   widen (float64 only): bit 0 set, x holds float32 elements (4 bytes apart where it runs), read
 *   as float64; bit 1, y: NumPy's dtype=float64 call on a float32 input, whose cast is exact.
 *   The caller (strided.kernels.tiles) guarantees that the output's elements are distinct, that
 *   no input overlaps it, and that all lie inside live, aligned buffers it holds.
 *
 * Why: NumPy walks such a call in the output's order and reads the input across its rows, one
 * element per cache line (5-14x a memcpy); a copy of the input into the output's order first
 * (the blocked copy) and then the op is ~3.5-4x. Here the plane is cut into the copy's tiles and
 * each tile into register blocks: 4 x 4 floats (2 x 2 doubles) of an input across the rows are
 * loaded and transposed in registers (as the copy's blocks), the op applied to whole vectors and
 * the output's rows stored; every line of every operand is moved once. SSE2's add, sub, mul, div
 * and sqrt are IEEE-754 operations, so every element is the bits NumPy's loop gives. */
#if HAVE_SSE2
/* Where a and b are both NaN, a quieted: NumPy's result (the first operand's NaN). The compiler
 * takes addps and mulps as commutative and may swap their operands, and the instruction returns
 * its first source's NaN: without this, which of two NaNs comes out would be the register
 * allocator's choice. (sub and div are not commutative: their order is kept.) */
static inline __attribute__((always_inline)) __m128 first_nan_ps(__m128 r, __m128 a, __m128 b)
{
    __m128 both = _mm_and_ps(_mm_cmpunord_ps(a, a), _mm_cmpunord_ps(b, b));
    __m128 quiet = _mm_or_ps(a, _mm_castsi128_ps(_mm_set1_epi32(0x00400000)));
    return _mm_or_ps(_mm_and_ps(both, quiet), _mm_andnot_ps(both, r));
}

static inline __attribute__((always_inline)) __m128d first_nan_pd(__m128d r, __m128d a, __m128d b)
{
    __m128d both = _mm_and_pd(_mm_cmpunord_pd(a, a), _mm_cmpunord_pd(b, b));
    __m128d quiet = _mm_or_pd(a, _mm_castsi128_pd(_mm_set1_epi64x(0x0008000000000000LL)));
    return _mm_or_pd(_mm_and_pd(both, quiet), _mm_andnot_pd(both, r));
}

static inline __attribute__((always_inline)) __m128 op_ps(int op, __m128 a, __m128 b)
{
    switch (op) {
    case 0: return first_nan_ps(_mm_add_ps(a, b), a, b);
    case 1: return _mm_sub_ps(a, b);
    case 2: return first_nan_ps(_mm_mul_ps(a, b), a, b);
    case 3: return _mm_div_ps(a, b);
    default: return _mm_sqrt_ps(a);
    }
}

static inline __attribute__((always_inline)) __m128d op_pd(int op, __m128d a, __m128d b)
{
    switch (op) {
    case 0: return first_nan_pd(_mm_add_pd(a, b), a, b);
    case 1: return _mm_sub_pd(a, b);
    case 2: return first_nan_pd(_mm_mul_pd(a, b), a, b);
    case 3: return _mm_div_pd(a, b);
    default: return _mm_sqrt_pd(a);
    }
}

/* Rows i..i+3 of a float operand at columns j..j+3, as four vectors along j. */
static inline __attribute__((always_inline)) void rows_ps(__m128 *v, const char *p, Py_ssize_t stride, int across, Py_ssize_t i, Py_ssize_t j)
{
    if (!across) {
        for (int k = 0; k < 4; k++) v[k] = _mm_loadu_ps((const float *)(p + (i + k) * stride + j * 4));
        return;
    }
    __m128 r0 = _mm_loadu_ps((const float *)(p + i * 4 + j * stride));
    __m128 r1 = _mm_loadu_ps((const float *)(p + i * 4 + (j + 1) * stride));
    __m128 r2 = _mm_loadu_ps((const float *)(p + i * 4 + (j + 2) * stride));
    __m128 r3 = _mm_loadu_ps((const float *)(p + i * 4 + (j + 3) * stride));
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    v[0] = r0; v[1] = r1; v[2] = r2; v[3] = r3;
}

static inline __attribute__((always_inline)) void rows_pd(__m128d *v, const char *p, Py_ssize_t stride, int across, Py_ssize_t i, Py_ssize_t j)
{
    if (!across) {
        for (int k = 0; k < 2; k++) v[k] = _mm_loadu_pd((const double *)(p + (i + k) * stride + j * 8));
        return;
    }
    __m128d c0 = _mm_loadu_pd((const double *)(p + i * 8 + j * stride));
    __m128d c1 = _mm_loadu_pd((const double *)(p + i * 8 + (j + 1) * stride));
    v[0] = _mm_unpacklo_pd(c0, c1);
    v[1] = _mm_unpackhi_pd(c0, c1);
}

/* Two float32 at p, widened to doubles (exact: what NumPy's cast to float64 gives, NaN payloads
 * kept and signalling NaNs quieted as its C cast does). */
static inline __attribute__((always_inline)) __m128d widen2(const char *p)
{
    return _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)p)));
}

/* rows_pd of a float32 operand widened to float64 (its elements 4 bytes apart along its
 * contiguous dim): the float64 walk reads it in place of a float64 copy of it. */
static inline __attribute__((always_inline)) void rows_pdw(__m128d *v, const char *p, Py_ssize_t stride, int across, Py_ssize_t i, Py_ssize_t j)
{
    if (!across) {
        for (int k = 0; k < 2; k++) v[k] = widen2(p + (i + k) * stride + j * 4);
        return;
    }
    __m128d c0 = widen2(p + i * 4 + j * stride);
    __m128d c1 = widen2(p + i * 4 + (j + 1) * stride);
    v[0] = _mm_unpacklo_pd(c0, c1);
    v[1] = _mm_unpackhi_pd(c0, c1);
}
#endif

#define ELEM(T, p, stride, across, i, j) \
    (*(const T *)((p) + ((across) ? (i) * (Py_ssize_t)sizeof(T) + (j) * (stride) : (i) * (stride) + (j) * (Py_ssize_t)sizeof(T))))

#define SCALAR_OP(T, op, a, b) \
    ((op) == 0 ? (a) + (b) : (op) == 1 ? (a) - (b) : (op) == 2 ? (a) * (b) : (op) == 3 ? (a) / (b) : (T)SQRT_##T(a))
#define SQRT_float sqrtf
#define SQRT_double sqrt

/* One element by the scalar loop (the edges past the last whole register block). */
/* An element of an operand of the walk's dtype T, or of a float32 one widened (w) to T. */
#define ELEMW(T, p, stride, across, w, i, j) \
    ((w) ? (T)ELEM(float, p, stride, across, i, j) : ELEM(T, p, stride, across, i, j))

#define DEFINE_APPLY_ONE(T)                                                                        \
    static inline void apply_one_##T(int op, char *o, Py_ssize_t orow, const char *x, Py_ssize_t xs, \
                                     int xa, int xw, const char *y, Py_ssize_t ys, int ya, int yw,  \
                                     Py_ssize_t i, Py_ssize_t j)                                   \
    {                                                                                              \
        T a = ELEMW(T, x, xs, xa, xw, i, j);                                                       \
        T b = op == 4 ? (T)0 : ELEMW(T, y, ys, ya, yw, i, j);                                      \
        T r = SCALAR_OP(T, op, a, b);                                                              \
        if ((op == 0 || op == 2) && a != a && b != b)                                              \
            r = a + (T)0; /* (the first NaN, quieted: as first_nan_ps) */                          \
        *(T *)(o + i * orow + j * (Py_ssize_t)sizeof(T)) = r;                                      \
    }
DEFINE_APPLY_ONE(float)
DEFINE_APPLY_ONE(double)

/* The plane walk for one (op, dtype, orientations): always inlined into the specialised
 * copies below, so that the op and each input's orientation are constants in its loops. */
#ifndef APPLY_TILE_B
#define APPLY_TILE_B TILE_B(itemsize)
#endif
#ifndef APPLY_TILE_A
#define APPLY_TILE_A TILE_A
#endif
static inline __attribute__((always_inline)) void apply_walk(int op, int itemsize, Py_ssize_t nb, Py_ssize_t na,
                                                             char *o, Py_ssize_t orow, const char *x, Py_ssize_t xs,
                                                             int xa, int xw, const char *y, Py_ssize_t ys, int ya,
                                                             int yw)
{
    const int bk = itemsize == 4 ? 4 : 2;
    for (Py_ssize_t i0 = 0; i0 < nb; i0 += APPLY_TILE_B) {
        Py_ssize_t i1 = i0 + APPLY_TILE_B < nb ? i0 + APPLY_TILE_B : nb;
        Py_ssize_t ik = i0 + (i1 - i0) / bk * bk;
        for (Py_ssize_t j0 = 0; j0 < na; j0 += APPLY_TILE_A) {
            Py_ssize_t j1 = j0 + APPLY_TILE_A < na ? j0 + APPLY_TILE_A : na;
            Py_ssize_t jk = j0 + (j1 - j0) / bk * bk;
            for (Py_ssize_t i = i0; i < ik; i += bk) {
                Py_ssize_t j = j0;
#if HAVE_SSE2
                if (itemsize == 4) {
                    __m128 xv[4], yv[4] = {_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()};
                    for (; j < jk; j += 4) {
                        rows_ps(xv, x, xs, xa, i, j);
                        if (op != 4) rows_ps(yv, y, ys, ya, i, j);
                        for (int k = 0; k < 4; k++)
                            _mm_storeu_ps((float *)(o + (i + k) * orow + j * 4), op_ps(op, xv[k], yv[k]));
                    }
                } else {
                    __m128d xv[2], yv[2] = {_mm_setzero_pd(), _mm_setzero_pd()};
                    for (; j < jk; j += 2) {
                        if (xw) rows_pdw(xv, x, xs, xa, i, j);
                        else rows_pd(xv, x, xs, xa, i, j);
                        if (op != 4 && yw) rows_pdw(yv, y, ys, ya, i, j);
                        else if (op != 4) rows_pd(yv, y, ys, ya, i, j);
                        for (int k = 0; k < 2; k++)
                            _mm_storeu_pd((double *)(o + (i + k) * orow + j * 8), op_pd(op, xv[k], yv[k]));
                    }
                }
#endif
                for (Py_ssize_t ii = i; ii < i + bk; ii++)  /* the columns past the blocks */
                    for (Py_ssize_t jj = j; jj < j1; jj++) {
                        if (itemsize == 4) apply_one_float(op, o, orow, x, xs, xa, 0, y, ys, ya, 0, ii, jj);
                        else apply_one_double(op, o, orow, x, xs, xa, xw, y, ys, ya, yw, ii, jj);
                    }
            }
            for (Py_ssize_t i = ik; i < i1; i++)  /* the rows past the blocks */
                for (Py_ssize_t j = j0; j < j1; j++) {
                    if (itemsize == 4) apply_one_float(op, o, orow, x, xs, xa, 0, y, ys, ya, 0, i, j);
                    else apply_one_double(op, o, orow, x, xs, xa, xw, y, ys, ya, yw, i, j);
                }
        }
    }
}

/* One specialised walk per op, operand kinds and pair of orientations (5 x 5 x 4). Kinds
 * (K): 0 float32; 1 float64; 2, 3, 4 float64 with x, y or both read as float32 and widened
 * (NumPy's dtype=float64 cast of a float32 input: exact, so the same bits). */
#define KIND_SZ(K) ((K) == 0 ? 4 : 8)
#define KIND_XW(K) ((K) == 2 || (K) == 4)
#define KIND_YW(K) ((K) == 3 || (K) == 4)
#define APPLY_CASE(OP, K, XA, YA)                                                                  \
    static void apply_##OP##_##K##_##XA##YA(Py_ssize_t nb, Py_ssize_t na, char *o, Py_ssize_t orow, \
                                          const char *x, Py_ssize_t xs, const char *y, Py_ssize_t ys) \
    { apply_walk(OP, KIND_SZ(K), nb, na, o, orow, x, xs, XA, KIND_XW(K), y, ys, YA, KIND_YW(K)); }
#define APPLY_KIND(OP, K) APPLY_CASE(OP, K, 0, 0) APPLY_CASE(OP, K, 0, 1) APPLY_CASE(OP, K, 1, 0) APPLY_CASE(OP, K, 1, 1)
#define APPLY_OP(OP) APPLY_KIND(OP, 0) APPLY_KIND(OP, 1) APPLY_KIND(OP, 2) APPLY_KIND(OP, 3) APPLY_KIND(OP, 4)
APPLY_OP(0) APPLY_OP(1) APPLY_OP(2) APPLY_OP(3) APPLY_OP(4)

typedef void (*apply_fn)(Py_ssize_t, Py_ssize_t, char *, Py_ssize_t, const char *, Py_ssize_t, const char *, Py_ssize_t);
#define APPLY_KROW(OP, K) apply_##OP##_##K##_00, apply_##OP##_##K##_01, apply_##OP##_##K##_10, apply_##OP##_##K##_11
#define APPLY_ROW(OP) {APPLY_KROW(OP, 0), APPLY_KROW(OP, 1), APPLY_KROW(OP, 2), APPLY_KROW(OP, 3), APPLY_KROW(OP, 4)}
static const apply_fn APPLY[5][20] = {APPLY_ROW(0), APPLY_ROW(1), APPLY_ROW(2), APPLY_ROW(3), APPLY_ROW(4)};

static void apply_plane_sse(int op, int kind, Py_ssize_t nb, Py_ssize_t na, char *o, Py_ssize_t orow,
                            const char *x, Py_ssize_t xs, int xa, const char *y, Py_ssize_t ys, int ya)
{
    if (nb > 0 && na > 0)
        APPLY[op][kind * 4 + (xa != 0) * 2 + (ya != 0)](nb, na, o, orow, x, xs, y, ys);
}

#if HAVE_AVX512_BLOCKS
/* The AVX-512 walk (where the CPU has AVX-512F, as the copy's blocks): 16 x 16 float32 (8 x 8
 * float64) register blocks, an input across the rows loaded as 16 (8) 64-byte columns and
 * transposed in registers (the copy's block4z / block8z shuffles), the op on 64-byte vectors,
 * each output row of a block one 64-byte store. The same IEEE operations as the SSE walk (the
 * same bits: add, sub, mul, div and sqrt round the same in every width; the first operand's NaN
 * where both are NaN, as first_nan_ps). */
AVX512 static inline AI __m512 op_zps(int op, __m512 a, __m512 b)
{
    __m512 r;
    switch (op) {
    case 0: r = _mm512_add_ps(a, b); break;
    case 1: return _mm512_sub_ps(a, b);
    case 2: r = _mm512_mul_ps(a, b); break;
    case 3: return _mm512_div_ps(a, b);
    default: return _mm512_sqrt_ps(a);
    }
    __mmask16 both = _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q) & _mm512_cmp_ps_mask(b, b, _CMP_UNORD_Q);
    __m512 quiet = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(a), _mm512_set1_epi32(0x00400000)));
    return _mm512_mask_blend_ps(both, r, quiet);
}

AVX512 static inline AI __m512d op_zpd(int op, __m512d a, __m512d b)
{
    __m512d r;
    switch (op) {
    case 0: r = _mm512_add_pd(a, b); break;
    case 1: return _mm512_sub_pd(a, b);
    case 2: r = _mm512_mul_pd(a, b); break;
    case 3: return _mm512_div_pd(a, b);
    default: return _mm512_sqrt_pd(a);
    }
    __mmask8 both = _mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q) & _mm512_cmp_pd_mask(b, b, _CMP_UNORD_Q);
    __m512d quiet = _mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(a), _mm512_set1_epi64(0x0008000000000000LL)));
    return _mm512_mask_blend_pd(both, r, quiet);
}

/* Rows i..i+15 of a float32 operand at columns j..j+15 (rows i..i+7 at j..j+7 of a float64 one,
 * or of a float32 one widened: w), as vectors along j. */
AVX512 static inline AI void rows_zps(__m512 *v, const char *p, Py_ssize_t stride, int across, Py_ssize_t i, Py_ssize_t j)
{
    if (!across) {
        for (int k = 0; k < 16; k++) v[k] = _mm512_loadu_ps(p + (i + k) * stride + j * 4);
        return;
    }
    for (int k = 0; k < 16; k++) v[k] = _mm512_loadu_ps(p + i * 4 + (j + k) * stride);
    tr16_ps(v);
}

AVX512 static inline AI void rows_zpd(__m512d *v, const char *p, Py_ssize_t stride, int across, int w, Py_ssize_t i, Py_ssize_t j)
{
    if (!across) {
        for (int k = 0; k < 8; k++)
            v[k] = w ? _mm512_cvtps_pd(_mm256_loadu_ps((const float *)(p + (i + k) * stride + j * 4)))
                     : _mm512_loadu_pd(p + (i + k) * stride + j * 8);
        return;
    }
    for (int k = 0; k < 8; k++)
        v[k] = w ? _mm512_cvtps_pd(_mm256_loadu_ps((const float *)(p + i * 4 + (j + k) * stride)))
                 : _mm512_loadu_pd(p + i * 8 + (j + k) * stride);
    tr8_pd(v);
}

/* float32 tiles of 128 x 128 (session 17; before 256 rows x 16 columns): thread CPU time side by
 * side, loaded machine, x.t() + y of 32 MB into new memory 12.9 -> 10.8 ms (memcpy 2.7),
 * add(x.t(), y, out=o) 8.2 -> 6.3 ms, (8192, 1024) and (1024, 8192) alike, (2048, 2048) into new
 * memory 4.4 -> 3.4 ms; 128 x 256, 64 x 128 and 256 x 128 between. float64 (the cast rows) kept:
 * 128 x 128 was no faster there. */
#ifndef ZAPPLY_TILE_A4
#define ZAPPLY_TILE_A4 128
#endif
#ifndef ZAPPLY_TILE_A8
#define ZAPPLY_TILE_A8 64
#endif
#ifndef ZAPPLY_TILE_B4
#define ZAPPLY_TILE_B4 128
#endif
#ifndef ZAPPLY_TILE_B8
#define ZAPPLY_TILE_B8 512
#endif
#define ZAPPLY_TILE_A (itemsize == 4 ? ZAPPLY_TILE_A4 : ZAPPLY_TILE_A8)
#define ZAPPLY_TILE_B (itemsize == 4 ? ZAPPLY_TILE_B4 : ZAPPLY_TILE_B8)
/* The blocks' part of the plane (nb, na multiples of the block); tiles of APPLY_TILE_B rows by
 * ZAPPLY_TILE_A columns, as the copy's. */
AVX512 static inline AI void apply_walk_z(int op, int itemsize, Py_ssize_t nb, Py_ssize_t na, char *o, Py_ssize_t orow,
                                          const char *x, Py_ssize_t xs, int xa, int xw, const char *y,
                                          Py_ssize_t ys, int ya, int yw, int nt)
{
    const int bk = itemsize == 4 ? 16 : 8;
    for (Py_ssize_t i0 = 0; i0 < nb; i0 += ZAPPLY_TILE_B) {
        Py_ssize_t i1 = i0 + ZAPPLY_TILE_B < nb ? i0 + ZAPPLY_TILE_B : nb;
        for (Py_ssize_t j0 = 0; j0 < na; j0 += ZAPPLY_TILE_A) {
            Py_ssize_t j1 = j0 + ZAPPLY_TILE_A < na ? j0 + ZAPPLY_TILE_A : na;
            for (Py_ssize_t i = i0; i < i1; i += bk)
                for (Py_ssize_t j = j0; j < j1; j += bk) {
                    if (itemsize == 4) {
                        __m512 xv[16], yv[16];
                        rows_zps(xv, x, xs, xa, i, j);
                        if (op != 4) rows_zps(yv, y, ys, ya, i, j);
                        else for (int k = 0; k < 16; k++) yv[k] = xv[k];
                        if (nt)
                            for (int k = 0; k < 16; k++) _mm512_stream_ps((float *)(void *)(o + (i + k) * orow + j * 4), op_zps(op, xv[k], yv[k]));
                        else
                            for (int k = 0; k < 16; k++) _mm512_storeu_ps(o + (i + k) * orow + j * 4, op_zps(op, xv[k], yv[k]));
                    } else {
                        __m512d xv[8], yv[8];
                        rows_zpd(xv, x, xs, xa, xw, i, j);
                        if (op != 4) rows_zpd(yv, y, ys, ya, yw, i, j);
                        else for (int k = 0; k < 8; k++) yv[k] = xv[k];
                        if (nt)
                            for (int k = 0; k < 8; k++) _mm512_stream_pd((double *)(void *)(o + (i + k) * orow + j * 8), op_zpd(op, xv[k], yv[k]));
                        else
                            for (int k = 0; k < 8; k++) _mm512_storeu_pd(o + (i + k) * orow + j * 8, op_zpd(op, xv[k], yv[k]));
                    }
                }
        }
    }
}

#define ZAPPLY_CASE(OP, K, XA, YA)                                                                 \
    AVX512 static void zapply_##OP##_##K##_##XA##YA(Py_ssize_t nb, Py_ssize_t na, char *o, Py_ssize_t orow, \
                                                  const char *x, Py_ssize_t xs, const char *y, Py_ssize_t ys, int nt) \
    { apply_walk_z(OP, KIND_SZ(K), nb, na, o, orow, x, xs, XA, KIND_XW(K), y, ys, YA, KIND_YW(K), KIND_SZ(K) == 8 && nt); }
#define ZAPPLY_KIND(OP, K) ZAPPLY_CASE(OP, K, 0, 0) ZAPPLY_CASE(OP, K, 0, 1) ZAPPLY_CASE(OP, K, 1, 0) ZAPPLY_CASE(OP, K, 1, 1)
#define ZAPPLY_OP(OP) ZAPPLY_KIND(OP, 0) ZAPPLY_KIND(OP, 1) ZAPPLY_KIND(OP, 2) ZAPPLY_KIND(OP, 3) ZAPPLY_KIND(OP, 4)
ZAPPLY_OP(0) ZAPPLY_OP(1) ZAPPLY_OP(2) ZAPPLY_OP(3) ZAPPLY_OP(4)
#define ZAPPLY_KROW(OP, K) zapply_##OP##_##K##_00, zapply_##OP##_##K##_01, zapply_##OP##_##K##_10, zapply_##OP##_##K##_11
#define ZAPPLY_ROW(OP) {ZAPPLY_KROW(OP, 0), ZAPPLY_KROW(OP, 1), ZAPPLY_KROW(OP, 2), ZAPPLY_KROW(OP, 3), ZAPPLY_KROW(OP, 4)}
typedef void (*zapply_fn)(Py_ssize_t, Py_ssize_t, char *, Py_ssize_t, const char *, Py_ssize_t, const char *, Py_ssize_t, int);
static const zapply_fn ZAPPLY[5][20] = {ZAPPLY_ROW(0), ZAPPLY_ROW(1), ZAPPLY_ROW(2), ZAPPLY_ROW(3), ZAPPLY_ROW(4)};

/* An operand's element (i, j) (its elements unit bytes apart where it runs). */
static inline const char *at(const char *p, Py_ssize_t stride, int across, Py_ssize_t unit, Py_ssize_t i, Py_ssize_t j)
{
    return p + (across ? i * unit + j * stride : i * stride + j * unit);
}
#endif

/* The plane: with AVX-512, the first rows up to the first across input's next cache line and
 * the first columns up to the output's next line (where the strides are multiples of 64 bytes,
 * as plane_z), and the edges past the whole blocks, by the SSE walk; the rest by the wide one. */
static void apply_plane(int op, int kind, Py_ssize_t nb, Py_ssize_t na, char *o, Py_ssize_t orow,
                        const char *x, Py_ssize_t xs, int xa, const char *y, Py_ssize_t ys, int ya)
{
#if HAVE_AVX512_BLOCKS
    if (use_avx512_blocks) {
        Py_ssize_t sz = KIND_SZ(kind), bk = sz == 4 ? 16 : 8;
        Py_ssize_t xu = KIND_XW(kind) ? 4 : sz, yu = KIND_YW(kind) ? 4 : sz;
        Py_ssize_t h = 0;
        const char *lead = xa ? x : op != 4 && ya ? y : NULL;
        Py_ssize_t lstride = xa ? xs : ys, lunit = xa ? xu : yu;
        if (lead != NULL && lstride % 64 == 0) {
            h = (Py_ssize_t)((64 - ((uintptr_t)lead & 63)) & 63) / lunit;
            if (h > nb) h = nb;
            apply_plane_sse(op, kind, h, na, o, orow, x, xs, xa, y, ys, ya);
            o += h * orow; x = at(x, xs, xa, xu, h, 0); y = at(y, ys, ya, yu, h, 0); nb -= h;
        }
        h = 0;
        if (orow % 64 == 0) {
            h = (Py_ssize_t)((64 - ((uintptr_t)o & 63)) & 63) / sz;
            if (h > na) h = na;
            apply_plane_sse(op, kind, nb, h, o, orow, x, xs, xa, y, ys, ya);
            o += h * sz; x = at(x, xs, xa, xu, 0, h); y = at(y, ys, ya, yu, 0, h); na -= h;
        }
        Py_ssize_t nbk = nb / bk * bk, nak = na / bk * bk;
        /* float64 outputs: streaming stores where the output is large (NT_MIN_BYTES) and its block
         * rows whole lines (measured, thread CPU / memcpy side by side, loaded machine: x.t() + y of
         * 64 MB with x float32 widened, into new memory, 4.1x -> 3.4x; but float32's 128 x 128
         * tiles slower with them, x.t() + y of 32 MB 4.3x -> 6.0x, add(x.t(), y, out=o) 2.7x ->
         * 3.0x) */
        int nt = sz == 8 && nb * na * sz >= NT_MIN_BYTES && orow % 64 == 0 && ((uintptr_t)o & 63) == 0;
        if (nbk > 0 && nak > 0) {
            ZAPPLY[op][kind * 4 + (xa != 0) * 2 + (ya != 0)](nbk, nak, o, orow, x, xs, y, ys, nt);
            if (nt) _mm_sfence();
        }
        apply_plane_sse(op, kind, nbk, na - nak, o + nak * sz, orow, at(x, xs, xa, xu, 0, nak), xs, xa,
                        at(y, ys, ya, yu, 0, nak), ys, ya);
        apply_plane_sse(op, kind, nb - nbk, na, o + nbk * orow, orow, at(x, xs, xa, xu, nbk, 0), xs, xa,
                        at(y, ys, ya, yu, nbk, 0), ys, ya);
        return;
    }
#endif
    apply_plane_sse(op, kind, nb, na, o, orow, x, xs, xa, y, ys, ya);
}

static int read_dims(PyObject *seq, Py_ssize_t *out, Py_ssize_t ndim, const char *what)
{
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {  /* (PySequence_Fast's text is `what` alone) */
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "copy: %s must be a sequence of ints, not %.100s", what,
                         Py_TYPE(seq)->tp_name);
        }
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n != ndim) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "copy: %s has %zd entries, the shape %zd", what, n, ndim);
        return -1;
    }
    for (Py_ssize_t k = 0; k < ndim; k++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, k);
        if (!PyLong_Check(item)) {
            PyErr_Format(PyExc_TypeError, "copy: %s[%zd] must be an int, not %.100s", what, k,
                         Py_TYPE(item)->tp_name);
            Py_DECREF(fast);
            return -1;
        }
        out[k] = PyLong_AsSsize_t(item);
        if (out[k] == -1 && PyErr_Occurred()) { Py_DECREF(fast); return -1; }
    }
    Py_DECREF(fast);
    return 0;
}

/* An O& converter: a positive int (an address from NumPy's __array_interface__). "K" would take
 * -1 as 2**64 - 1 and 0 as NULL without a word, and the copy would then crash. */
static int to_address(PyObject *o, void *out)
{
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "copy: an address must be an int, not %.100s", Py_TYPE(o)->tp_name);
        return 0;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if ((v == (unsigned long long)-1 && PyErr_Occurred()) || v == 0 || v > UINTPTR_MAX) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "copy: an address must be an int from 1 to 2**%d - 1, not %R",
                     (int)(8 * sizeof(void *)), o);
        return 0;
    }
    *(uintptr_t *)out = (uintptr_t)v;
    return 1;
}

#include "_pair_join.h"

static PyObject *py_copy(PyObject *self, PyObject *args)
{
    (void)self;
    uintptr_t daddr, saddr;
    int itemsize;
    PyObject *pshape, *pdst, *psst;
    if (!PyArg_ParseTuple(args, "O&O&iOOO:copy", to_address, &daddr, to_address, &saddr, &itemsize, &pshape, &pdst, &psst))
        return NULL;
    if (itemsize != 1 && itemsize != 2 && itemsize != 4 && itemsize != 8 && itemsize != 16) {
        PyErr_Format(PyExc_ValueError, "copy: itemsize must be 1, 2, 4, 8 or 16, not %d", itemsize);
        return NULL;
    }
    Py_ssize_t ndim = PySequence_Size(pshape);
    if (ndim < 0) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "copy: shape must be a sequence of ints, not %.100s",
                         Py_TYPE(pshape)->tp_name);
        }
        return NULL;
    }
    if (ndim > MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "copy: at most %d dims, not %zd", MAX_DIMS, ndim);
        return NULL;
    }
    Py_ssize_t shape[MAX_DIMS], dst[MAX_DIMS], sst[MAX_DIMS];
    if (read_dims(pshape, shape, ndim, "shape") || read_dims(pdst, dst, ndim, "dst_strides")
        || read_dims(psst, sst, ndim, "src_strides"))
        return NULL;
    for (Py_ssize_t k = 0; k < ndim; k++)  /* (every size checked before a zero one returns) */
        if (shape[k] < 0) {
            PyErr_Format(PyExc_ValueError, "copy: negative dim size %zd at dim %zd", shape[k], k);
            return NULL;
        }
    for (Py_ssize_t k = 0; k < ndim; k++)
        if (shape[k] == 0) Py_RETURN_NONE;
    char *d = (char *)daddr;
    const char *s = (const char *)saddr;
    Py_BEGIN_ALLOW_THREADS
    if (ndim == 0)
        memcpy(d, s, (size_t)itemsize);
    else {
        /* streaming stores where the copy is large (see NT_MIN_BYTES) and the CPU has the blocks
         * that use them; the fence orders them before the other threads' view of the result */
        Py_ssize_t nbytes = itemsize;
        for (Py_ssize_t k = 0; k < ndim; k++) nbytes *= shape[k];
        int nt = 0;
#if HAVE_AVX512_BLOCKS
        nt = use_avx512_blocks && nbytes >= NT_MIN_BYTES;
#endif
        copy_nd(itemsize, d, s, (int)ndim, shape, dst, sst, nt);
#if HAVE_SSE2
        if (nt) _mm_sfence();
#endif
    }
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyObject *py_apply2d(PyObject *self, PyObject *args)
{
    (void)self;
    int op, itemsize, xa, ya, widen = 0;
    Py_ssize_t nb, na, orow, xs, ys;
    uintptr_t o, x, y;
    if (!PyArg_ParseTuple(args, "iinnO&nO&npO&np|i:apply2d", &op, &itemsize, &nb, &na, to_address, &o, &orow,
                          to_address, &x, &xs, &xa, to_address, &y, &ys, &ya, &widen))
        return NULL;
    if (op < 0 || op > 4) {
        PyErr_Format(PyExc_ValueError, "apply2d: op must be 0 (+), 1 (-), 2 (*), 3 (/) or 4 (sqrt), not %d", op);
        return NULL;
    }
    if (itemsize != 4 && itemsize != 8) {
        PyErr_Format(PyExc_ValueError, "apply2d: itemsize must be 4 (float32) or 8 (float64), not %d", itemsize);
        return NULL;
    }
    if (widen < 0 || widen > 3 || (widen && itemsize != 8)) {
        PyErr_Format(PyExc_ValueError, "apply2d: widen must be 0, 1 (x), 2 (y) or 3 (both), and only with "
                     "itemsize 8 (float32 read as float64), not %d with itemsize %d", widen, itemsize);
        return NULL;
    }
    if (nb < 0 || na < 0) {
        PyErr_Format(PyExc_ValueError, "apply2d: negative plane size %zd x %zd", nb, na);
        return NULL;
    }
    int kind = itemsize == 4 ? 0 : widen == 0 ? 1 : widen + 1;
    Py_BEGIN_ALLOW_THREADS
    apply_plane(op, kind, nb, na, (char *)o, orow, (const char *)x, xs, xa, (const char *)y, ys, ya);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

/* join(out, runs, outer) -> None: the flat join of cat / stack (strided.ops.shape.fast_join).
 *
 *   out: a writable C-contiguous buffer; runs: a list of C-contiguous buffers of out's element
 *   size, each read as `outer` rows of whole elements (its length divided by `outer`); row r of
 *   out is every run's row r, in list order. Bytes as they are (the caller joins runs of out's
 *   dtype). out must hold exactly the runs' bytes and overlap none of them (the caller's is
 *   fresh): the sizes are checked here, the overlap is the caller's guarantee. The GIL is
 *   released around large copies (the caller holds the arrays).
 */
/* join's copy: ``outer`` rows of each of ``count`` runs, in turn, into ``dst`` (run i's row r is
 * src[i] + r * row[i], row[i] bytes). A row of one element (dstack's, column_stack's, a stack along
 * the last dim) is a fixed-size copy, one load and store, where memcpy's call per element was most
 * of a small join's time. */
/* join_rows where every row is long enough for _row_copy.h's loop (memcpy's offset-dependent
 * speed); its own function, so that join_rows's short-row loop compiles as before */
static __attribute__((noinline)) void join_long_rows(char *dst, Py_ssize_t count, const char *const *src,
                                                     const Py_ssize_t *row, Py_ssize_t outer)
{
    for (Py_ssize_t r = 0; r < outer; r++)
        for (Py_ssize_t i = 0; i < count; i++) {
            copy_run(dst, src[i] + r * row[i], (size_t)row[i]);
            dst += row[i];
        }
}

/* (aligned: its short-row loop moved with the code around it, a (16, 16) dstack's join 1.77 ->
 * 1.89 us after join_long_rows was added above; aligned, 1.75-1.80 again) */
static __attribute__((aligned(64))) void join_rows(char *dst, Py_ssize_t count, const char *const *src, const Py_ssize_t *row, Py_ssize_t outer)
{
    if (outer > 1 && count > 0 && row[0] >= RUN_LOOP_MIN) {
        Py_ssize_t i = 1;
        while (i < count && row[i] >= RUN_LOOP_MIN) i++;
        if (i == count) {
            join_long_rows(dst, count, src, row, outer);
            return;
        }
    }
#if HAVE_SSE2
    if (count == 2 && row[0] == row[1] && (row[0] == 4 || row[0] == 8) && outer >= 4) {
        /* two runs of one 4- or 8-byte element per row (dstack's, a stack along a new last dim of
         * two row-major tensors): the interleave's unpacks, 16 bytes a load, where the loop below
         * copies element by element (a (1024, 1024) float32 dstack: NumPy's concatenate 0.58 ms) */
        (row[0] == 4 ? interleave2_4 : interleave2_8)(dst, src[0], src[1], outer);
        return;
    }
#endif
    for (Py_ssize_t r = 0; r < outer; r++)
        for (Py_ssize_t i = 0; i < count; i++) {
            const char *s = src[i] + r * row[i];
            switch (row[i]) {
            case 1: *dst = *s; break;
            case 2: memcpy(dst, s, 2); break;
            case 4: memcpy(dst, s, 4); break;
            case 8: memcpy(dst, s, 8); break;
            case 16: memcpy(dst, s, 16); break;
            default: memcpy(dst, s, (size_t)row[i]);
            }
            dst += row[i];
        }
}

static PyObject *py_join(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "join(out, runs, outer) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    PyObject *runs = args[1];
    if (!PyList_Check(runs)) {
        PyErr_Format(PyExc_TypeError, "join: runs must be a list, not %.100s", Py_TYPE(runs)->tp_name);
        return NULL;
    }
    Py_ssize_t outer = PyLong_AsSsize_t(args[2]);
    if (outer == -1 && PyErr_Occurred())
        return NULL;
    if (outer < 1) {
        PyErr_Format(PyExc_ValueError, "join: outer must be at least 1, not %zd", outer);
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(runs);
    Py_buffer ob;
    if (PyObject_GetBuffer(args[0], &ob, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    Py_buffer small[8];
    Py_buffer *bufs = n <= 8 ? small : PyMem_Malloc((size_t)n * sizeof(Py_buffer));
    if (bufs == NULL) {
        PyBuffer_Release(&ob);
        return PyErr_NoMemory();
    }
    Py_ssize_t got = 0, total = 0;
    PyObject *result = NULL;
    for (; got < n; got++) {
        if (PyObject_GetBuffer(PyList_GET_ITEM(runs, got), &bufs[got], PyBUF_C_CONTIGUOUS) < 0)
            goto done;
        if (bufs[got].itemsize != ob.itemsize || bufs[got].len % (outer * ob.itemsize)) {
            PyErr_Format(PyExc_ValueError, "join: run %zd (%zd bytes of %zd-byte elements) is not %zd rows of "
                         "out's %zd-byte elements", got, bufs[got].len, bufs[got].itemsize, outer, ob.itemsize);
            got++;
            goto done;
        }
        total += bufs[got].len;
    }
    if (total != ob.len) {
        PyErr_Format(PyExc_ValueError, "join: the runs hold %zd bytes, out %zd", total, ob.len);
        goto done;
    }
    {
        char *dst = ob.buf;
        int release = total >= (1 << 16);
        PyThreadState *ts = release ? PyEval_SaveThread() : NULL;
        if (n <= 8) {
            const char *srcs[8];
            Py_ssize_t rows[8];
            for (Py_ssize_t i = 0; i < n; i++) {
                srcs[i] = (const char *)bufs[i].buf;
                rows[i] = bufs[i].len / outer;
            }
            join_rows(dst, n, srcs, rows, outer);
        } else {
            for (Py_ssize_t r = 0; r < outer; r++)
                for (Py_ssize_t i = 0; i < n; i++) {
                    Py_ssize_t row = bufs[i].len / outer;
                    copy_run(dst, (const char *)bufs[i].buf + r * row, (size_t)row);
                    dst += row;
                }
        }
        if (release)
            PyEval_RestoreThread(ts);
    }
    result = Py_None;
    Py_INCREF(result);
done:
    for (Py_ssize_t i = 0; i < got; i++)
        PyBuffer_Release(&bufs[i]);
    if (bufs != small)
        PyMem_Free(bufs);
    PyBuffer_Release(&ob);
    return result;
}

/* ---------------------------------------------------------------- adopt: a result's two objects
 *
 * adopt_types(tensor_class, storage_class) names the classes; adopt(array, layout, dtype) then
 * returns what strided.dispatch.adopted's Python body makes: a Storage (slots array=array,
 * _pinned=None) and a Tensor over it (_storage, _layout=layout, _dtype=dtype, _base=None,
 * _ag=None), each allocated as object.__new__ allocates it (the type's tp_alloc: zeroed, GC-tracked,
 * the heap type's reference taken) with its slots written through their member offsets. The
 * slots are read off the classes' member descriptors (each must be an object slot), so a
 * renamed or removed slot is an error at adopt_types, never a write to a wrong offset. */
#include <structmember.h>

static PyTypeObject *adopt_tensor, *adopt_storage;
static Py_ssize_t off_storage, off_layout, off_dtype, off_base, off_ag, off_array, off_pinned;

static int slot_offset(PyTypeObject *type, const char *name, Py_ssize_t *off)
{
    PyObject *d = PyDict_GetItemString(type->tp_dict, name); /* borrowed; the class's own slot */
    if (d == NULL || Py_TYPE(d) != &PyMemberDescr_Type
        || ((PyMemberDescrObject *)d)->d_member->type != T_OBJECT_EX) {
        PyErr_Format(PyExc_TypeError, "adopt_types/node_types: %s.%s is not an object slot of the class",
                     type->tp_name, name);
        return -1;
    }
    *off = ((PyMemberDescrObject *)d)->d_member->offset;
    return 0;
}

static PyObject *py_adopt_types(PyObject *self, PyObject *args)
{
    PyObject *tensor, *storage;
    Py_ssize_t o[7];
    if (!PyArg_ParseTuple(args, "O!O!:adopt_types", &PyType_Type, &tensor, &PyType_Type, &storage))
        return NULL;
    PyTypeObject *tt = (PyTypeObject *)tensor, *st = (PyTypeObject *)storage;
    if (slot_offset(tt, "_storage", &o[0]) < 0 || slot_offset(tt, "_layout", &o[1]) < 0
        || slot_offset(tt, "_dtype", &o[2]) < 0 || slot_offset(tt, "_base", &o[3]) < 0
        || slot_offset(tt, "_ag", &o[4]) < 0 || slot_offset(st, "array", &o[5]) < 0
        || slot_offset(st, "_pinned", &o[6]) < 0)
        return NULL;
    Py_INCREF(tt);
    Py_INCREF(st);
    Py_XSETREF(adopt_tensor, tt);
    Py_XSETREF(adopt_storage, st);
    off_storage = o[0]; off_layout = o[1]; off_dtype = o[2]; off_base = o[3]; off_ag = o[4];
    off_array = o[5]; off_pinned = o[6];
    Py_RETURN_NONE;
}

#define SLOT(obj, off) (*(PyObject **)((char *)(obj) + (off)))

static PyObject *py_adopt(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "adopt(array, layout, dtype) takes 3 arguments");
        return NULL;
    }
    if (adopt_tensor == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "adopt: adopt_types was not called");
        return NULL;
    }
    PyObject *s = adopt_storage->tp_alloc(adopt_storage, 0);
    if (s == NULL)
        return NULL;
    Py_INCREF(args[0]);
    SLOT(s, off_array) = args[0];
    Py_INCREF(Py_None);
    SLOT(s, off_pinned) = Py_None;
    PyObject *t = adopt_tensor->tp_alloc(adopt_tensor, 0);
    if (t == NULL) {
        Py_DECREF(s);
        return NULL;
    }
    SLOT(t, off_storage) = s; /* (the new reference moves into the slot) */
    Py_INCREF(args[1]);
    SLOT(t, off_layout) = args[1];
    Py_INCREF(args[2]);
    SLOT(t, off_dtype) = args[2];
    Py_INCREF(Py_None);
    SLOT(t, off_base) = Py_None;
    Py_INCREF(Py_None);
    SLOT(t, off_ag) = Py_None;
    return t;
}

/* ---------------------------------------------------------------- new_node, new_meta: autograd's records
 *
 * node_types(node_class, meta_class) names the classes of strided.autograd.graph (Node) and
 * strided.grad_mode (Meta); new_node(cls, name, rule, next_functions, ctx, saved) then returns what
 * graph.new_node's Python body makes: an instance of cls (Node or a subclass) allocated as
 * object.__new__ allocates it, with the slots Node.__init__ sets (_name, rule, next_functions, ctx,
 * saved as given, already the (tensor, version, is_output) entries; freed False, n_outputs 1,
 * pre_hooks None, passed None, own_outputs ()); new_meta(grad_fn) a Meta as Meta(False, grad_fn)
 * makes it. The offsets are read off the classes' member descriptors, as adopt_types reads them. */
static PyTypeObject *node_type, *meta_type;
static Py_ssize_t on_name, on_rule, on_next, on_ctx, on_saved, on_freed, on_nout, on_pre, on_passed, on_own;
static Py_ssize_t om_rg, om_grad, om_fn, om_nr, om_ret, om_hooks, om_acc, om_vv, om_creation;
static PyObject *one_int, *zero_int, *empty_tuple;

static PyObject *py_node_types(PyObject *self, PyObject *args)
{
    PyObject *node, *meta;
    Py_ssize_t o[19];
    if (!PyArg_ParseTuple(args, "O!O!:node_types", &PyType_Type, &node, &PyType_Type, &meta))
        return NULL;
    PyTypeObject *nt = (PyTypeObject *)node, *mt = (PyTypeObject *)meta;
    static const char *node_slots[] = {"_name", "rule", "next_functions", "ctx", "saved", "freed", "n_outputs",
                                       "pre_hooks", "passed", "own_outputs"};
    static const char *meta_slots[] = {"requires_grad", "grad", "grad_fn", "output_nr", "retains_grad", "hooks",
                                       "acc", "view_version", "creation"};
    for (int i = 0; i < 10; i++)
        if (slot_offset(nt, node_slots[i], &o[i]) < 0)
            return NULL;
    for (int i = 0; i < 9; i++)
        if (slot_offset(mt, meta_slots[i], &o[10 + i]) < 0)
            return NULL;
    if (one_int == NULL) {
        one_int = PyLong_FromLong(1);
        zero_int = PyLong_FromLong(0);
        empty_tuple = PyTuple_New(0);
        if (one_int == NULL || zero_int == NULL || empty_tuple == NULL)
            return NULL;
    }
    Py_INCREF(nt);
    Py_INCREF(mt);
    Py_XSETREF(node_type, nt);
    Py_XSETREF(meta_type, mt);
    on_name = o[0]; on_rule = o[1]; on_next = o[2]; on_ctx = o[3]; on_saved = o[4]; on_freed = o[5];
    on_nout = o[6]; on_pre = o[7]; on_passed = o[8]; on_own = o[9];
    om_rg = o[10]; om_grad = o[11]; om_fn = o[12]; om_nr = o[13]; om_ret = o[14]; om_hooks = o[15];
    om_acc = o[16]; om_vv = o[17]; om_creation = o[18];
    Py_RETURN_NONE;
}

#define SET(obj, off, value) do { PyObject *v_ = (value); Py_INCREF(v_); SLOT(obj, off) = v_; } while (0)

static PyObject *py_new_node(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "new_node(cls, name, rule, next_functions, ctx, saved) takes 6 arguments");
        return NULL;
    }
    if (node_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "new_node: node_types was not called");
        return NULL;
    }
    PyObject *cls = args[0];
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, node_type)) {
        PyErr_SetString(PyExc_TypeError, "new_node: cls must be Node or a subclass of it");
        return NULL;
    }
    PyObject *n = ((PyTypeObject *)cls)->tp_alloc((PyTypeObject *)cls, 0);
    if (n == NULL)
        return NULL;
    SET(n, on_name, args[1]);
    SET(n, on_rule, args[2]);
    SET(n, on_next, args[3]);
    SET(n, on_ctx, args[4]);
    SET(n, on_saved, args[5]);
    SET(n, on_freed, Py_False);
    SET(n, on_nout, one_int);
    SET(n, on_pre, Py_None);
    SET(n, on_passed, Py_None);
    SET(n, on_own, empty_tuple);
    return n;
}

static PyObject *py_new_meta(PyObject *self, PyObject *grad_fn)
{
    if (meta_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "new_meta: node_types was not called");
        return NULL;
    }
    PyObject *m = meta_type->tp_alloc(meta_type, 0);
    if (m == NULL)
        return NULL;
    SET(m, om_rg, Py_False);
    SET(m, om_grad, Py_None);
    SET(m, om_fn, grad_fn);
    SET(m, om_nr, zero_int);
    SET(m, om_ret, Py_False);
    SET(m, om_hooks, Py_None);
    SET(m, om_acc, Py_None);
    SET(m, om_vv, Py_None);
    SET(m, om_creation, Py_None);
    return m;
}

/* ---------------------------------------------------------------- engine_loop: the backward pass's common case
 *
 * engine_loop(ready, buffers, deps, done, retain_graph, fit, skip, add) runs the loop of
 * strided.autograd.engine.run (without capture: backward, not grad or inputs=) for as long as the
 * node on top of ready is a plain Node (its class Node itself: no AccumulateGrad, no CopySlices)
 * without pre_hooks: the same steps as that loop's Python body, in its order (pop the node and its
 * gradients, its rule called directly when it saved nothing, owns no output and is not freed, else
 * its apply(grads); onto done when it saved tensors and the graph is not retained; each gradient
 * fitted with fit(g, shape, dtype, node, i) where its shape or dtype differs from ctx's, handed
 * into its edge's buffer (summed with one there by add(buf, nr, g)), the edge's node onto ready when its count
 * falls to 0, skip(nxt, deps, buffers, ready) for a node reached by no gradient; node.passed the
 * gradients' layouts). It returns None when ready is empty or its top node is any other: the
 * Python body runs that one (hooks, leaves, captures), then calls it again. The Python body is
 * the reference and the fallback (tests/test_engine_native.py runs the tests both ways). */
static PyObject *s_apply, *s_shape, *s_layout_name, *s_n_outputs;

static PyObject *tensor_layout(PyObject *g) /* new reference */
{
    if (adopt_tensor != NULL && PyObject_TypeCheck(g, adopt_tensor)) {
        PyObject *lay = SLOT(g, off_layout);
        if (lay != NULL) {
            Py_INCREF(lay);
            return lay;
        }
    }
    return PyObject_GetAttr(g, s_layout_name);
}

static PyObject *tensor_dtype(PyObject *g) /* new reference */
{
    if (adopt_tensor != NULL && PyObject_TypeCheck(g, adopt_tensor)) {
        PyObject *d = SLOT(g, off_dtype);
        if (d != NULL) {
            Py_INCREF(d);
            return d;
        }
    }
    return PyObject_GetAttrString(g, "_dtype");
}

/* the gradient g (a new reference, consumed) handed into nxt's buffer at nr; 0, -1 on error. A
 * second gradient there is summed by add(buf, nr, g) (engine._sum_into: PyTorch's InputBuffer sum,
 * in place into the first where the buffer held the only reference to it, which it counts: this
 * function lets go of its own reference to the first before the call) */
static int hand_on(PyObject *buffers, PyObject *nxt, PyObject *nr, PyObject *g, PyObject *add)
{
    PyObject *buf = PyDict_GetItemWithError(buffers, nxt); /* borrowed */
    if (buf == NULL && PyErr_Occurred())
        goto fail;
    if (buf == NULL) {
        PyObject *no = PyObject_TypeCheck(nxt, node_type) ? SLOT(nxt, on_nout) : NULL;
        Py_ssize_t n_out;
        if (no != NULL) {
            Py_INCREF(no);
        } else if ((no = PyObject_GetAttr(nxt, s_n_outputs)) == NULL) {
            goto fail;
        }
        n_out = PyLong_AsSsize_t(no);
        Py_DECREF(no);
        if (n_out == -1 && PyErr_Occurred())
            goto fail;
        PyObject *list;
        if (n_out == 1) {
            if ((list = PyList_New(1)) == NULL)
                goto fail;
            PyList_SET_ITEM(list, 0, g); /* (g's reference moves into the list) */
        } else {
            if ((list = PyList_New(n_out < 0 ? 0 : n_out)) == NULL)
                goto fail;
            for (Py_ssize_t j = 0; j < n_out; j++) {
                Py_INCREF(Py_None);
                PyList_SET_ITEM(list, j, Py_None);
            }
            int r = PyObject_SetItem(list, nr, g); /* (buf[nr] = g: Python's errors for a bad nr) */
            Py_DECREF(g);
            if (r < 0) {
                Py_DECREF(list);
                return -1;
            }
        }
        int r = PyDict_SetItem(buffers, nxt, list);
        Py_DECREF(list);
        return r;
    }
    Py_INCREF(buf);
    PyObject *old = PyObject_GetItem(buf, nr);
    if (old == NULL) {
        Py_DECREF(buf);
        goto fail;
    }
    int r, empty = old == Py_None;
    Py_DECREF(old);
    if (empty) {
        r = PyObject_SetItem(buf, nr, g);
    } else {
        PyObject *done = PyObject_CallFunctionObjArgs(add, buf, nr, g, NULL);
        r = done == NULL ? -1 : 0;
        Py_XDECREF(done);
    }
    Py_DECREF(buf);
    Py_DECREF(g);
    return r;
fail:
    Py_DECREF(g);
    return -1;
}

/* one node's edges: its rule's gradients outs (a list of our own: each is taken out of it when
 * handed on, as PyTorch moves it, so that a buffer may hold the only reference) handed on
 * (engine.run's edge loop); 0, -1 on error */
static int pass_on(PyObject *node, PyObject *outs, PyObject *buffers, PyObject *deps, PyObject *ready,
                   PyObject *fit, PyObject *skip, PyObject *add)
{
    PyObject *edges = SLOT(node, on_next), *shapes = SLOT(node, on_ctx);
    PyObject *passed = NULL, *ef = NULL, *sf = NULL;
    int rc = -1;
    Py_INCREF(edges);
    Py_INCREF(shapes);
    if ((ef = PySequence_Fast(edges, "next_functions must be a sequence")) == NULL)
        goto done;
    if (shapes != Py_None && (sf = PySequence_Fast(shapes, "ctx must be a sequence")) == NULL)
        goto done;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(ef), nouts = PyList_GET_SIZE(outs);
    Py_ssize_t nshapes = sf == NULL ? 0 : PySequence_Fast_GET_SIZE(sf);
    if ((passed = PyList_New(k)) == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < k; i++) {
        Py_INCREF(Py_None);
        PyList_SET_ITEM(passed, i, Py_None);
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *e = PySequence_Fast_GET_ITEM(ef, i);
        if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 2) {
            PyErr_SetString(PyExc_TypeError, "engine_loop: an edge must be a (node, output_nr) pair");
            goto done;
        }
        PyObject *nxt = PyTuple_GET_ITEM(e, 0), *nr = PyTuple_GET_ITEM(e, 1);
        if (nxt == Py_None)
            continue;
        PyObject *g = i < nouts ? PyList_GET_ITEM(outs, i) : Py_None; /* (borrowed until taken below) */
        PyObject *count = PyDict_GetItemWithError(deps, nxt); /* borrowed */
        if (count == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, nxt);
            goto done;
        }
        Py_ssize_t left = PyLong_AsSsize_t(count);
        if (left == -1 && PyErr_Occurred())
            goto done;
        left -= 1;
        PyObject *nl = PyLong_FromSsize_t(left);
        if (nl == NULL)
            goto done;
        int r = PyDict_SetItem(deps, nxt, nl);
        Py_DECREF(nl);
        if (r < 0)
            goto done;
        if (g != Py_None) {
            PyList_SET_ITEM(outs, i, Py_None); /* (g's reference moves from the list to here) */
            Py_INCREF(Py_None);
            PyObject *meta = i < nshapes ? PySequence_Fast_GET_ITEM(sf, i) : Py_None;
            if (meta != Py_None) {
                /* (meta[0], meta[1]: a (shape, dtype) pair) */
                PyObject *want_shape = PySequence_GetItem(meta, 0);
                PyObject *want_dtype = want_shape == NULL ? NULL : PySequence_GetItem(meta, 1);
                PyObject *lay = NULL, *shape = NULL, *dtype = NULL;
                int differs = -1;
                if (want_dtype != NULL && (lay = tensor_layout(g)) != NULL
                    && (shape = PyObject_GetAttr(lay, s_shape)) != NULL) {
                    differs = PyObject_RichCompareBool(shape, want_shape, Py_NE);
                    if (differs == 0) {
                        dtype = tensor_dtype(g);
                        differs = dtype == NULL ? -1 : dtype != want_dtype;
                    }
                }
                Py_XDECREF(lay);
                Py_XDECREF(shape);
                Py_XDECREF(dtype);
                if (differs > 0) { /* (fit leaves a gradient that matches as it is) */
                    PyObject *ix = PyLong_FromSsize_t(i);
                    PyObject *fitted = ix == NULL ? NULL
                        : PyObject_CallFunctionObjArgs(fit, g, want_shape, want_dtype, node, ix, NULL);
                    Py_XDECREF(ix);
                    Py_DECREF(g);
                    g = fitted;
                }
                Py_XDECREF(want_shape);
                Py_XDECREF(want_dtype);
                if (differs < 0 || g == NULL) {
                    Py_XDECREF(g);
                    goto done;
                }
            }
            PyObject *lay = tensor_layout(g); /* (what graph_text shows: the gradient's strides) */
            if (lay == NULL) {
                Py_DECREF(g);
                goto done;
            }
            PyList_SetItem(passed, i, lay); /* (steals lay; drops the None) */
            if (hand_on(buffers, nxt, nr, g, add) < 0) /* (g's reference consumed) */
                goto done;
            if (left == 0 && PyList_Append(ready, nxt) < 0) /* (its buffer holds this gradient) */
                goto done;
        } else if (left == 0) {
            int has = PyDict_Contains(buffers, nxt);
            if (has < 0)
                goto done;
            if (has) {
                if (PyList_Append(ready, nxt) < 0)
                    goto done;
            } else {
                PyObject *r2 = PyObject_CallFunctionObjArgs(skip, nxt, deps, buffers, ready, NULL);
                if (r2 == NULL)
                    goto done;
                Py_DECREF(r2);
            }
        }
    }
    Py_XSETREF(SLOT(node, on_passed), passed);
    passed = NULL;
    rc = 0;
done:
    Py_XDECREF(passed);
    Py_XDECREF(ef);
    Py_XDECREF(sf);
    Py_DECREF(edges);
    Py_DECREF(shapes);
    return rc;
}

static PyObject *py_engine_loop(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "engine_loop(ready, buffers, deps, done, retain_graph, fit, skip, add) takes 8 arguments");
        return NULL;
    }
    PyObject *ready = args[0], *buffers = args[1], *deps = args[2], *done = args[3], *fit = args[5], *skip = args[6], *add = args[7];
    if (node_type == NULL || adopt_tensor == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "engine_loop: node_types or adopt_types was not called");
        return NULL;
    }
    if (!PyList_Check(ready) || !PyDict_Check(buffers) || !PyDict_Check(deps) || !PyList_Check(done)) {
        PyErr_SetString(PyExc_TypeError, "engine_loop: ready and done must be lists, buffers and deps dicts");
        return NULL;
    }
    int retain = PyObject_IsTrue(args[4]);
    if (retain < 0)
        return NULL;
    if (s_apply == NULL) {
        s_apply = PyUnicode_InternFromString("apply");
        s_shape = PyUnicode_InternFromString("shape");
        s_layout_name = PyUnicode_InternFromString("_layout");
        s_n_outputs = PyUnicode_InternFromString("n_outputs");
        if (!s_apply || !s_shape || !s_layout_name || !s_n_outputs)
            return NULL;
    }
    Py_ssize_t top;
    while ((top = PyList_GET_SIZE(ready) - 1) >= 0) {
        PyObject *node = PyList_GET_ITEM(ready, top);
        if (Py_TYPE(node) != node_type || SLOT(node, on_pre) != Py_None)
            break; /* (the Python body's: hooks, leaves, CopySlices) */
        Py_INCREF(node);
        PyObject *grads = NULL, *outs = NULL, *seq = NULL;
        if (PyList_SetSlice(ready, top, top + 1, NULL) < 0)
            goto fail;
        grads = PyDict_GetItemWithError(buffers, node); /* grads = buffers.pop(node) */
        if (grads == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, node);
            goto fail;
        }
        Py_INCREF(grads);
        if (PyDict_DelItem(buffers, node) < 0)
            goto fail;
        int saved = PyObject_IsTrue(SLOT(node, on_saved)), own, freed;
        if (saved < 0 || (own = PyObject_IsTrue(SLOT(node, on_own))) < 0
            || (freed = PyObject_IsTrue(SLOT(node, on_freed))) < 0)
            goto fail;
        if (!saved && !own && !freed && PyList_Check(grads)) {
            /* (Node.apply, inlined for a node with nothing to check: the rule on the gradients) */
            PyObject *rule = SLOT(node, on_rule);
            Py_INCREF(rule);
            if (PyList_GET_SIZE(grads) == 1) {
                outs = PyObject_CallOneArg(rule, PyList_GET_ITEM(grads, 0));
            } else {
                PyObject *t = PyList_AsTuple(grads);
                outs = t == NULL ? NULL : PyObject_Call(rule, t, NULL);
                Py_XDECREF(t);
            }
            Py_DECREF(rule);
        } else {
            outs = PyObject_CallMethodOneArg(node, s_apply, grads);
        }
        if (outs == NULL)
            goto fail;
        /* (Node.release frees saved tensors only: a node without any has nothing to release) */
        if (!retain) {
            int s2 = PyObject_IsTrue(SLOT(node, on_saved));
            if (s2 < 0 || (s2 && PyList_Append(done, node) < 0))
                goto fail;
        }
        /* (a list of our own: pass_on takes each gradient out of it; the node's own gradients let
         * go first, as PyTorch's engine does before it hands the outputs on. No reference to this
         * node's gradients outlives its turn: an AccumulateGrad run next may then find it holds a
         * fresh gradient alone and keep it, engine._sole_owner) */
        if ((seq = PySequence_List(outs)) == NULL) {
            if (PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_Clear();
                PyErr_SetString(PyExc_TypeError, "a backward rule must return a sequence of gradients");
            }
            goto fail;
        }
        Py_CLEAR(outs);
        Py_CLEAR(grads);
        if (pass_on(node, seq, buffers, deps, ready, fit, skip, add) < 0)
            goto fail;
        Py_DECREF(seq);
        Py_DECREF(node);
        continue;
    fail:
        Py_XDECREF(seq);
        Py_XDECREF(outs);
        Py_XDECREF(grads);
        Py_DECREF(node);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------- record_edges: a recorded node's edges
 *
 * record_edges(inputs, edge, no_edge) answers the loop of strided.autograd.function.make_node's
 * general path over a rule's inputs (a sequence): None when no input is a Tensor (or subclass)
 * whose Meta requires grad or has a grad_fn, else (edges, ctx) as tuples, one entry per input: for
 * such a tensor the edge (grad_fn, output_nr) where its grad_fn is set and its view_version None,
 * else edge(tensor) (a leaf's AccumulateGrad, a regenerated view); for any other tensor no_edge;
 * ctx (layout.shape, dtype) for every tensor, None for any other input. The Python loop is the
 * reference and the fallback (tests/test_engine_native.py compares the nodes both make). */
static PyObject *meta_slot(PyObject *m, Py_ssize_t off, const char *name) /* new reference */
{
    if (meta_type != NULL && PyObject_TypeCheck(m, meta_type)) {
        PyObject *v = SLOT(m, off);
        if (v != NULL) {
            Py_INCREF(v);
            return v;
        }
    }
    return PyObject_GetAttrString(m, name);
}


/* ---------------------------------------------------------------- leaf_edge: a leaf's AccumulateGrad
 *
 * acc_types(accumulate_class, name) names strided.autograd.graph.AccumulateGrad and its node name;
 * leaf_edge(t, m, edge) is then edge(t) for a leaf t (Meta m, no grad_fn, requiring grad): (the node
 * m.acc's weak reference holds, 0) while it lives, else a new AccumulateGrad made as
 * AccumulateGrad.of makes it (new_node's slots, _leaf a weak reference to t), m.acc a weak reference
 * to it. Without acc_types (or for a Meta of another class) edge(t) is called: the reference. */
static PyTypeObject *acc_type;
static PyObject *acc_name;
static Py_ssize_t off_leaf;

static PyObject *py_acc_types(PyObject *self, PyObject *args)
{
    PyObject *cls, *name;
    Py_ssize_t o;
    if (!PyArg_ParseTuple(args, "O!U:acc_types", &PyType_Type, &cls, &name))
        return NULL;
    if (node_type == NULL || !PyType_IsSubtype((PyTypeObject *)cls, node_type)) {
        PyErr_SetString(PyExc_TypeError, "acc_types: node_types first, and a subclass of its Node");
        return NULL;
    }
    if (slot_offset((PyTypeObject *)cls, "_leaf", &o) < 0)
        return NULL;
    Py_INCREF(cls);
    Py_INCREF(name);
    Py_XSETREF(acc_type, (PyTypeObject *)cls);
    Py_XSETREF(acc_name, name);
    off_leaf = o;
    Py_RETURN_NONE;
}

static PyObject *leaf_edge(PyObject *t, PyObject *m, PyObject *edge) /* new reference */
{
    if (acc_type == NULL || Py_TYPE(m) != meta_type || Py_TYPE(t)->tp_weaklistoffset == 0)
        return PyObject_CallOneArg(edge, t);
    PyObject *ref = SLOT(m, om_acc);
    if (ref == NULL)
        return PyObject_CallOneArg(edge, t);
    if (ref != Py_None) {
        if (!PyWeakref_CheckRef(ref))
            return PyObject_CallOneArg(edge, t);
        PyObject *acc = PyWeakref_GetObject(ref); /* borrowed */
        if (acc != Py_None)
            return PyTuple_Pack(2, acc, zero_int);
    }
    PyObject *acc = acc_type->tp_alloc(acc_type, 0);
    if (acc == NULL)
        return NULL;
    SET(acc, on_name, acc_name);
    SET(acc, on_rule, Py_None);
    SET(acc, on_next, empty_tuple);
    SET(acc, on_ctx, Py_None);
    SET(acc, on_saved, empty_tuple);
    SET(acc, on_freed, Py_False);
    SET(acc, on_nout, one_int);
    SET(acc, on_pre, Py_None);
    SET(acc, on_passed, Py_None);
    SET(acc, on_own, empty_tuple);
    PyObject *leaf = PyWeakref_NewRef(t, NULL);
    if (leaf == NULL) {
        Py_DECREF(acc);
        return NULL;
    }
    SLOT(acc, off_leaf) = leaf; /* (the new reference moves into the slot) */
    PyObject *back = PyWeakref_NewRef(acc, NULL);
    if (back == NULL) {
        Py_DECREF(acc);
        return NULL;
    }
    Py_XSETREF(SLOT(m, om_acc), back);
    PyObject *e = PyTuple_Pack(2, acc, zero_int);
    Py_DECREF(acc);
    return e;
}

static PyObject *record_edges_of(PyObject *inputs, PyObject *edge, PyObject *no_edge);

static PyObject *py_record_edges(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "record_edges(inputs, edge, no_edge) takes 3 arguments");
        return NULL;
    }
    if (adopt_tensor == NULL || meta_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "record_edges: adopt_types or node_types was not called");
        return NULL;
    }
    return record_edges_of(args[0], args[1], args[2]);
}

/* record_edges' body (the classes checked by the caller): None, (edges, ctx), or NULL with an error */
static PyObject *record_edges_of(PyObject *inputs, PyObject *edge, PyObject *no_edge)
{
    PyObject *args[3] = {inputs, edge, no_edge};
    if (s_shape == NULL && (s_shape = PyUnicode_InternFromString("shape")) == NULL)
        return NULL;
    PyObject *seq = PySequence_Fast(args[0], "record_edges: inputs must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    PyObject *edges = PyTuple_New(k), *ctx = PyTuple_New(k), *answer = NULL;
    int wanted = 0;
    if (edges == NULL || ctx == NULL)
        goto done;
    for (Py_ssize_t j = 0; j < k; j++) {
        PyObject *i = PySequence_Fast_GET_ITEM(seq, j), *e = NULL, *c = NULL;
        if (!PyObject_TypeCheck(i, adopt_tensor)) {
            Py_INCREF(args[2]);
            PyTuple_SET_ITEM(edges, j, args[2]);
            Py_INCREF(Py_None);
            PyTuple_SET_ITEM(ctx, j, Py_None);
            continue;
        }
        PyObject *m = SLOT(i, off_ag);
        if (m == NULL) {
            PyErr_SetString(PyExc_AttributeError, "_ag");
            goto done;
        }
        int need = 0;
        PyObject *fn = NULL;
        if (m != Py_None) {
            if ((fn = meta_slot(m, om_fn, "grad_fn")) == NULL)
                goto done;
            if (fn != Py_None) {
                need = 1;
            } else {
                PyObject *rg = meta_slot(m, om_rg, "requires_grad");
                need = rg == NULL ? -1 : PyObject_IsTrue(rg);
                Py_XDECREF(rg);
            }
        }
        if (need < 0) {
            Py_XDECREF(fn);
            goto done;
        }
        if (need) {
            wanted = 1;
            PyObject *vv = fn != Py_None ? meta_slot(m, om_vv, "view_version") : NULL;
            if (fn != Py_None && vv == NULL) {
                Py_DECREF(fn);
                goto done;
            }
            if (fn != Py_None && vv == Py_None) { /* (a result whose history cannot be stale) */
                PyObject *nr = meta_slot(m, om_nr, "output_nr");
                e = nr == NULL ? NULL : PyTuple_Pack(2, fn, nr);
                Py_XDECREF(nr);
            } else if (fn == Py_None && SLOT(m, om_creation) != NULL && SLOT(m, om_creation) != Py_None) {
                /* (a view made under no_grad: no accumulator, or the refusal; graph.edge decides) */
                e = PyObject_CallOneArg(args[1], i);
            } else if (fn == Py_None) { /* a leaf that requires grad: its AccumulateGrad */
                e = leaf_edge(i, m, args[1]);
            } else {
                e = PyObject_CallOneArg(args[1], i);
            }
            Py_XDECREF(vv);
        } else {
            Py_INCREF(args[2]);
            e = args[2];
        }
        Py_XDECREF(fn);
        if (e == NULL)
            goto done;
        PyTuple_SET_ITEM(edges, j, e);
        PyObject *lay = SLOT(i, off_layout), *dt = SLOT(i, off_dtype);
        if (lay == NULL || dt == NULL) {
            PyErr_SetString(PyExc_AttributeError, "_layout");
            goto done;
        }
        PyObject *shape = PyObject_GetAttr(lay, s_shape);
        if (shape == NULL)
            goto done;
        c = PyTuple_Pack(2, shape, dt);
        Py_DECREF(shape);
        if (c == NULL)
            goto done;
        PyTuple_SET_ITEM(ctx, j, c);
    }
    if (!wanted) {
        Py_INCREF(Py_None);
        answer = Py_None;
    } else {
        answer = PyTuple_Pack(2, edges, ctx);
    }
done:
    Py_DECREF(seq);
    Py_XDECREF(edges);
    Py_XDECREF(ctx);
    return answer;
}


/* ---------------------------------------------------------------- make_node: a recorded op's Node
 *
 * make_setup(edge, no_edge, inference, vdata, own, named_saved, watch) names graph.edge, the no-edge
 * pair (None, 0), the set under grad_mode.INFERENCE_STORAGES, the version counters' two tables
 * (grad_mode._VDATA, grad_mode._OWN), gradients.NamedSaved and grad_mode.watch. make_node(spec,
 * n_outputs, output) is then strided.autograd.function.make_node's answer for a (name, inputs, rule,
 * saved) tuple while no inference storage is alive: None when no input needs a gradient, else the
 * Node (record_edges' edges and ctx; saved entries as graph.saved_entries makes them: (t, 0, t is
 * output) while both tables are empty, else (t, watch(t), t is output); n_outputs; a NamedSaved's
 * names as saved_names). For an inference storage alive, or a spec of another form, it answers
 * NotImplemented, having done nothing: the Python body decides (it refuses such a save). */
static PyObject *mk_edge, *mk_no_edge, *mk_inference, *mk_vdata, *mk_own, *mk_named, *mk_watch;

static PyObject *py_make_setup(PyObject *self, PyObject *args)
{
    PyObject *o[7];
    if (!PyArg_ParseTuple(args, "OOO!O!O!O!O:make_setup", &o[0], &o[1], &PySet_Type, &o[2], &PyDict_Type, &o[3],
                          &PyDict_Type, &o[4], &PyType_Type, &o[5], &o[6]))
        return NULL;
    for (int i = 0; i < 7; i++)
        Py_INCREF(o[i]);
    Py_XSETREF(mk_edge, o[0]);
    Py_XSETREF(mk_no_edge, o[1]);
    Py_XSETREF(mk_inference, o[2]);
    Py_XSETREF(mk_vdata, o[3]);
    Py_XSETREF(mk_own, o[4]);
    Py_XSETREF(mk_named, o[5]);
    Py_XSETREF(mk_watch, o[6]);
    Py_RETURN_NONE;
}

static PyObject *make_node_of(PyObject *spec, PyObject *n_outputs, PyObject *output);

static PyObject *py_make_node(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "make_node(spec, n_outputs, output) takes 3 arguments");
        return NULL;
    }
    if (adopt_tensor == NULL || meta_type == NULL || mk_edge == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "make_node: adopt_types, node_types or make_setup was not called");
        return NULL;
    }
    return make_node_of(args[0], args[1], args[2]);
}

/* make_node's body (the setup checked by the caller) */
static PyObject *make_node_of(PyObject *spec, PyObject *n_outputs, PyObject *output)
{
    if (PySet_GET_SIZE(mk_inference))
        Py_RETURN_NOTIMPLEMENTED;
    /* (no storage written in place, no .data counter: every version is 0, nothing to watch) */
    int counted = PyDict_GET_SIZE(mk_vdata) || PyDict_GET_SIZE(mk_own);
    PyObject *name, *inputs, *rule, *saved;
    if (PyTuple_CheckExact(spec) && PyTuple_GET_SIZE(spec) >= 4) {
        name = PyTuple_GET_ITEM(spec, 0);
        inputs = PyTuple_GET_ITEM(spec, 1);
        rule = PyTuple_GET_ITEM(spec, 2);
        saved = PyTuple_GET_ITEM(spec, 3);
    } else {
        Py_RETURN_NOTIMPLEMENTED;
    }
    PyObject *found = record_edges_of(inputs, mk_edge, mk_no_edge);
    if (found == NULL || found == Py_None)
        return found;
    PyObject *entries = NULL, *node = NULL;
    int any = PyObject_IsTrue(saved);
    if (any < 0)
        goto done;
    if (!any) {
        Py_INCREF(empty_tuple);
        entries = empty_tuple;
    } else {
        PyObject *seq = PySequence_Fast(saved, "make_node: saved must be a sequence");
        if (seq == NULL)
            goto done;
        Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
        entries = PyTuple_New(k);
        for (Py_ssize_t j = 0; entries != NULL && j < k; j++) {
            PyObject *t = PySequence_Fast_GET_ITEM(seq, j);
            PyObject *v = counted ? PyObject_CallOneArg(mk_watch, t) : Py_NewRef(zero_int);
            PyObject *e = v == NULL ? NULL : PyTuple_Pack(3, t, v, t == output ? Py_True : Py_False);
            Py_XDECREF(v);
            if (e == NULL)
                Py_CLEAR(entries);
            else
                PyTuple_SET_ITEM(entries, j, e);
        }
        Py_DECREF(seq);
        if (entries == NULL)
            goto done;
    }
    node = node_type->tp_alloc(node_type, 0);
    if (node == NULL)
        goto done;
    SET(node, on_name, name);
    SET(node, on_rule, rule);
    SET(node, on_next, PyTuple_GET_ITEM(found, 0));
    SET(node, on_ctx, PyTuple_GET_ITEM(found, 1));
    SLOT(node, on_saved) = entries; /* (the new reference moves into the slot) */
    entries = NULL;
    SET(node, on_freed, Py_False);
    SET(node, on_nout, one_int);
    SET(node, on_pre, Py_None);
    SET(node, on_passed, Py_None);
    SET(node, on_own, empty_tuple);
    int other = PyObject_RichCompareBool(n_outputs, one_int, Py_NE);
    if (other < 0)
        goto fail;
    if (other)
        Py_SETREF(SLOT(node, on_nout), Py_NewRef(n_outputs));
    if (Py_TYPE(saved) == (PyTypeObject *)mk_named) {
        PyObject *names = PyObject_GetAttrString(saved, "names");
        if (names == NULL || PyObject_SetAttrString(node, "saved_names", names) < 0) {
            Py_XDECREF(names);
            goto fail;
        }
        Py_DECREF(names);
    }
    goto done;
fail:
    Py_CLEAR(node);
done:
    Py_DECREF(found);
    Py_XDECREF(entries);
    return node;
}

/* ---------------------------------------------------------------- recorded: a fast path's result recorded
 *
 * recorded(name, out, args) is strided.gradients.recorded's answer (OPDEFS[name].backward, grad mode
 * on: strided.autograd.function.attach_fresh(out, maker, args)) with attach_fresh's common steps
 * here: a maker with its flags known (__strided_flags__), out a Tensor itself (no subclass, no view)
 * of a floating dtype, args a tuple. The maker is called as attach_fresh calls it (out, or out's
 * unowned alias for a saves_output maker while no .data counter exists), make_node's answer taken
 * (function.make_node where the compiled one answers NotImplemented), the result's release walk
 * (graph.release_output / release_defaults) called where attach_fresh calls it, and out._ag the
 * node's new Meta. Every other case calls the Python function that decides it (attach_fresh before
 * the maker ran, _attached after it: the same calls in the same order). Until recorded_setup is
 * called (or after recorded_use(False), or before adopt_types) it calls the Python body recorded_fallback names: the
 * reference (tests/test_rec36.py compares the two). */
static PyObject *rc_python, *rc_opdefs, *rc_grad_mode, *rc_attach_fresh, *rc_make_node, *rc_attached,
    *rc_release_output, *rc_release_defaults;
static PyObject *s_backward, *s_flags, *s_is_floating, *s_own_outputs;
static int rc_on;

static PyObject *py_recorded_fallback(PyObject *self, PyObject *fn)
{
    Py_INCREF(fn);
    Py_XSETREF(rc_python, fn);
    Py_RETURN_NONE;
}

static PyObject *py_recorded_setup(PyObject *self, PyObject *args)
{
    PyObject *o[7];
    if (!PyArg_ParseTuple(args, "O!O!OOOOO:recorded_setup", &PyDict_Type, &o[0], &PyContextVar_Type, &o[1], &o[2],
                          &o[3], &o[4], &o[5], &o[6]))
        return NULL;
    if (meta_type == NULL || mk_edge == NULL || rc_python == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "recorded_setup: node_types, make_setup and recorded_fallback first");
        return NULL;
    }
    if (s_backward == NULL) {
        s_backward = PyUnicode_InternFromString("backward");
        s_flags = PyUnicode_InternFromString("__strided_flags__");
        s_is_floating = PyUnicode_InternFromString("is_floating_point");
        s_own_outputs = PyUnicode_InternFromString("own_outputs");
        if (s_backward == NULL || s_flags == NULL || s_is_floating == NULL || s_own_outputs == NULL)
            return NULL;
    }
    for (int i = 0; i < 7; i++)
        Py_INCREF(o[i]);
    Py_XSETREF(rc_opdefs, o[0]);
    Py_XSETREF(rc_grad_mode, o[1]);
    Py_XSETREF(rc_attach_fresh, o[2]);
    Py_XSETREF(rc_make_node, o[3]);
    Py_XSETREF(rc_attached, o[4]);
    Py_XSETREF(rc_release_output, o[5]);
    Py_XSETREF(rc_release_defaults, o[6]);
    rc_on = 1;
    Py_RETURN_NONE;
}

static PyObject *py_recorded_use(PyObject *self, PyObject *flag)
{
    int was = rc_on, on = PyObject_IsTrue(flag);
    if (on < 0)
        return NULL;
    if (on && rc_opdefs == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "recorded_use: recorded_setup was not called");
        return NULL;
    }
    rc_on = on;
    return PyBool_FromLong(was);
}

/* maker(first, *args) */
static PyObject *call_maker(PyObject *maker, PyObject *first, PyObject *args)
{
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    PyObject *small[8], **stack = small;
    if (n + 1 > 8) {
        stack = PyMem_Malloc((n + 1) * sizeof(PyObject *));
        if (stack == NULL)
            return PyErr_NoMemory();
    }
    stack[0] = first;
    for (Py_ssize_t i = 0; i < n; i++)
        stack[i + 1] = PyTuple_GET_ITEM(args, i);
    PyObject *r = PyObject_Vectorcall(maker, stack, n + 1, NULL);
    if (stack != small)
        PyMem_Free(stack);
    return r;
}

/* function.make_node(spec, 1, output): the compiled body, else the Python function */
static PyObject *node_of(PyObject *spec, PyObject *output)
{
    PyObject *node = make_node_of(spec, one_int, output);
    if (node == Py_NotImplemented) {
        Py_DECREF(node);
        PyObject *a[3] = {spec, one_int, output};
        node = PyObject_Vectorcall(rc_make_node, a, 3, NULL);
    }
    return node;
}

/* out._ag = new_meta(node); out returned (a new reference) */
static PyObject *give_meta(PyObject *out, PyObject *node)
{
    PyObject *m = py_new_meta(NULL, node);
    if (m == NULL)
        return NULL;
    Py_XSETREF(SLOT(out, off_ag), m);
    return Py_NewRef(out);
}

static PyObject *attach_fresh_of(PyObject *out, PyObject *maker, PyObject *args)
{
    PyObject *fa[3] = {out, maker, args};
    PyObject *fl = PyObject_GetAttr(maker, s_flags);
    if (fl == NULL) { /* (flags not known yet: attach_fresh decides them) */
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return NULL;
        PyErr_Clear();
        return PyObject_Vectorcall(rc_attach_fresh, fa, 3, NULL);
    }
    long flags = PyLong_Check(fl) ? PyLong_AsLong(fl) : -1;
    Py_DECREF(fl);
    if (flags < 0 || !PyTuple_CheckExact(args) || Py_TYPE(out) != adopt_tensor || SLOT(out, off_base) != Py_None) {
        PyErr_Clear();
        return PyObject_Vectorcall(rc_attach_fresh, fa, 3, NULL);
    }
    PyObject *fp = PyObject_GetAttr(SLOT(out, off_dtype), s_is_floating);
    if (fp == NULL)
        return NULL;
    Py_DECREF(fp);
    if (fp != Py_True)
        return PyObject_Vectorcall(rc_attach_fresh, fa, 3, NULL);
    PyObject *spec, *node, *r = NULL;
    if (flags & 4) { /* OUTPUT_ALIAS: the maker gets out's unowned alias (graph.unowned) */
        if (PyDict_GET_SIZE(mk_own)) /* (a .data counter: unowned may give the alias one) */
            return PyObject_Vectorcall(rc_attach_fresh, fa, 3, NULL);
        PyObject *alias = adopt_tensor->tp_alloc(adopt_tensor, 0);
        if (alias == NULL)
            return NULL;
        SET(alias, off_storage, SLOT(out, off_storage));
        SET(alias, off_layout, SLOT(out, off_layout));
        SET(alias, off_dtype, SLOT(out, off_dtype));
        SET(alias, off_base, Py_None);
        SET(alias, off_ag, Py_None);
        spec = call_maker(maker, alias, args);
        if (spec == NULL || spec == Py_None) {
            Py_DECREF(alias);
            return spec == NULL ? NULL : (Py_DECREF(spec), Py_NewRef(out));
        }
        node = node_of(spec, alias);
        Py_DECREF(spec);
        if (node == NULL || node == Py_None) {
            Py_DECREF(alias);
            return node == NULL ? NULL : (Py_DECREF(node), Py_NewRef(out));
        }
        PyObject *own = Py_BuildValue("((OO))", alias, zero_int);
        Py_DECREF(alias);
        if (own != NULL && PyObject_SetAttr(node, s_own_outputs, own) == 0)
            r = give_meta(out, node);
        Py_XDECREF(own);
        Py_DECREF(node);
        return r;
    }
    spec = call_maker(maker, out, args);
    if (spec == NULL || spec == Py_None)
        return spec == NULL ? NULL : (Py_DECREF(spec), Py_NewRef(out));
    Py_ssize_t len = PyObject_Length(spec);
    if (len < 0) {
        Py_DECREF(spec);
        return NULL;
    }
    if (len == 5) { /* several differentiable outputs: _attached(out, spec, maker, args, {}) */
        PyObject *kw = PyDict_New();
        if (kw != NULL) {
            PyObject *a[5] = {out, spec, maker, args, kw};
            r = PyObject_Vectorcall(rc_attached, a, 5, NULL);
            Py_DECREF(kw);
        }
        Py_DECREF(spec);
        return r;
    }
    node = node_of(spec, out);
    Py_DECREF(spec);
    if (node == NULL || node == Py_None)
        return node == NULL ? NULL : (Py_DECREF(node), Py_NewRef(out));
    int walk = (flags & 1) != 0;
    for (Py_ssize_t i = 0; !walk && i < PyTuple_GET_SIZE(args); i++)
        walk = PyTuple_GET_ITEM(args, i) == out;
    if (walk) {
        PyObject *a[2] = {node, out};
        PyObject *w = PyObject_Vectorcall(rc_release_output, a, 2, NULL);
        if (w != NULL && (flags & 2)) {
            Py_DECREF(w);
            w = PyObject_Vectorcall(rc_release_defaults, a, 2, NULL);
        }
        if (w == NULL) {
            Py_DECREF(node);
            return NULL;
        }
        Py_DECREF(w);
    }
    r = give_meta(out, node);
    Py_DECREF(node);
    return r;
}

static PyObject *py_recorded(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "recorded(name, out, args) takes 3 arguments");
        return NULL;
    }
    if (!rc_on || adopt_tensor == NULL) { /* (adopt_types: when strided.creation installs the Tensor class) */
        if (rc_python == NULL) {
            PyErr_SetString(PyExc_RuntimeError, "recorded: recorded_fallback was not called");
            return NULL;
        }
        return PyObject_Vectorcall(rc_python, args, 3, NULL);
    }
    PyObject *op = PyDict_GetItemWithError(rc_opdefs, args[0]); /* borrowed */
    if (op == NULL)
        return PyErr_Occurred() ? NULL : Py_NewRef(args[1]);
    PyObject *maker = PyObject_GetAttr(op, s_backward);
    if (maker == NULL)
        return NULL;
    PyObject *mode, *r;
    if (maker == Py_None || PyContextVar_Get(rc_grad_mode, NULL, &mode) < 0) {
        Py_DECREF(maker);
        return PyErr_Occurred() ? NULL : Py_NewRef(args[1]);
    }
    int on = mode == NULL ? 0 : PyObject_IsTrue(mode);
    Py_XDECREF(mode);
    if (on <= 0)
        r = on < 0 ? NULL : Py_NewRef(args[1]);
    else
        r = attach_fresh_of(args[1], maker, args[2]);
    Py_DECREF(maker);
    return r;
}

/* ---------------------------------------------------------------- join_tensors: cat/stack's flat join
 *
 * join_setup(cinfo, empty, limit) names the row-major plan table (strided.ops._support.operands._cinfo:
 * shape -> (row-major strides, element count, row-major Layout)), numpy.empty and the largest
 * result in bytes. join_tensors(tensors, d, stacked) then answers what
 * strided.ops.shape.fast_join.flat_join(tensors, None, d, stacked) answers where every input
 * passes its checks (d may count from the end: -1 is the last dim of the result; each a Tensor, of the first's dtype object, non-empty, row-major, its run
 * inside its storage, shapes of 1 to 3 dims (stacked: 0 to 2) agreeing except in d; stacked:
 * all equal) and the result holds at most limit bytes: the joined tensor, bytes as they are
 * (the runs' rows memcpy'd in order into numpy.empty's fresh buffer), its layout the table's.
 * Anything else answers None, nothing made: the caller runs flat_join itself, which decides. */
static PyObject *join_cinfo, *join_empty;
static Py_ssize_t join_limit;
static PyObject *s_layout_shape, *s_layout_strides, *s_layout_offset, *s_numpy;

/* The attribute names join_tensors and index_setup's entries read (interned once): 0, or -1. */
static int layout_names(void)
{
    if (s_numpy == NULL) {
        s_layout_shape = PyUnicode_InternFromString("shape");
        s_layout_strides = PyUnicode_InternFromString("strides");
        s_layout_offset = PyUnicode_InternFromString("offset");
        s_numpy = PyUnicode_InternFromString("numpy");
        if (!s_layout_shape || !s_layout_strides || !s_layout_offset || !s_numpy)
            return -1;
    }
    return 0;
}

static PyObject *py_join_setup(PyObject *self, PyObject *args)
{
    PyObject *cinfo, *empty;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "OOn:join_setup", &cinfo, &empty, &limit))
        return NULL;
    if (layout_names() < 0)
        return NULL;
    Py_INCREF(cinfo);
    Py_INCREF(empty);
    Py_XSETREF(join_cinfo, cinfo);
    Py_XSETREF(join_empty, empty);
    join_limit = limit;
    Py_RETURN_NONE;
}

/* gather(array, offset, shape, strides, dtype): the elements of the layout (offset, shape,
 * strides, in elements) over the C-contiguous buffer of `array`, copied in row-major order into a
 * fresh 1-D array of NumPy dtype `dtype` made by join_setup's `empty` (the same bytes as
 * numpy_view(...).flatten(), without building the view); None where it does not apply: no
 * join_setup yet, a negative stride, more than MAX_DIMS dims, an itemsize other than the
 * buffer's or not 1/2/4/8/16, more elements than join_setup's byte limit, or a layout reaching
 * outside the buffer (the caller's general path then explains). */
static PyObject *py_gather(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "gather(array, offset, shape, strides, dtype) takes 5 arguments");
        return NULL;
    }
    PyObject *pshape = args[2], *pstrides = args[3];
    if (join_empty == NULL || !PyTuple_CheckExact(pshape) || !PyTuple_CheckExact(pstrides))
        Py_RETURN_NONE;
    Py_ssize_t ndim = PyTuple_GET_SIZE(pshape);
    if (ndim > MAX_DIMS || PyTuple_GET_SIZE(pstrides) != ndim)
        Py_RETURN_NONE;
    Py_ssize_t offset = PyLong_AsSsize_t(args[1]);
    if (offset == -1 && PyErr_Occurred())
        return NULL;
    if (offset < 0 || offset > PY_SSIZE_T_MAX / 2)
        Py_RETURN_NONE;
    Py_ssize_t shape[MAX_DIMS], sst[MAX_DIMS], dst[MAX_DIMS];
    Py_ssize_t n = 1, last = offset;
    for (Py_ssize_t k = 0; k < ndim; k++) {
        shape[k] = PyLong_AsSsize_t(PyTuple_GET_ITEM(pshape, k));
        sst[k] = PyLong_AsSsize_t(PyTuple_GET_ITEM(pstrides, k));
        if ((shape[k] == -1 || sst[k] == -1) && PyErr_Occurred())
            return NULL;
        if (shape[k] < 0 || sst[k] < 0)
            Py_RETURN_NONE;
    }
    for (Py_ssize_t k = 0; k < ndim; k++) {
        if (shape[k] == 0) {
            n = 0;
            break;
        }
        if (n > join_limit || shape[k] > join_limit || (shape[k] > 1 && sst[k] > PY_SSIZE_T_MAX / 2 / shape[k]))
            Py_RETURN_NONE; /* (counts beyond the byte limit: the general path) */
        n *= shape[k];
        if (shape[k] == 1)
            sst[k] = 0; /* (a size-1 dim's stride is never used: it may be any size) */
        last += (shape[k] - 1) * sst[k];
        if (last > PY_SSIZE_T_MAX / 2)
            Py_RETURN_NONE;
    }
    Py_buffer sb;
    if (PyObject_GetBuffer(args[0], &sb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear(); /* (a buffer that is not one C-contiguous run: the general path reads it) */
        Py_RETURN_NONE;
    }
    Py_ssize_t itemsize = sb.itemsize;
    if ((itemsize != 1 && itemsize != 2 && itemsize != 4 && itemsize != 8 && itemsize != 16)
        || (uintptr_t)sb.buf % (uintptr_t)(itemsize > 8 ? 8 : itemsize) /* (unaligned: NumPy's loops) */
        || n * itemsize > join_limit || (n && last >= sb.len / itemsize)) {
        PyBuffer_Release(&sb);
        Py_RETURN_NONE;
    }
    PyObject *n_obj = PyLong_FromSsize_t(n);
    if (n_obj == NULL) {
        PyBuffer_Release(&sb);
        return NULL;
    }
    PyObject *call[2] = {n_obj, args[4]};
    PyObject *flat = PyObject_Vectorcall(join_empty, call, 2, NULL);
    Py_DECREF(n_obj);
    if (flat == NULL) {
        PyBuffer_Release(&sb);
        return NULL;
    }
    Py_buffer ob;
    if (PyObject_GetBuffer(flat, &ob, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&sb);
        Py_DECREF(flat);
        return NULL;
    }
    if (ob.itemsize != itemsize || ob.len != n * itemsize) { /* (a dtype of another size than the buffer's) */
        PyBuffer_Release(&ob);
        PyBuffer_Release(&sb);
        Py_DECREF(flat);
        Py_RETURN_NONE;
    }
    if (n) {
        Py_ssize_t step = itemsize;
        for (Py_ssize_t k = ndim - 1; k >= 0; k--) { /* row-major destination, strides in bytes */
            dst[k] = step;
            step *= shape[k];
            sst[k] *= itemsize;
        }
        const char *s = (const char *)sb.buf + offset * itemsize;
        if (ndim == 0)
            memcpy(ob.buf, s, (size_t)itemsize);
        else
            copy_nd((int)itemsize, (char *)ob.buf, s, (int)ndim, shape, dst, sst, 0); /* (64 KiB at most: no streaming) */
    }
    PyBuffer_Release(&ob);
    PyBuffer_Release(&sb);
    return flat;
}

#define JOIN_MAX 64 /* inputs handled here (more: flat_join's Python loop) */

static PyObject *py_join_tensors(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "join_tensors(tensors, d, stacked) takes 3 arguments");
        return NULL;
    }
    if (adopt_tensor == NULL || join_cinfo == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "join_tensors: adopt_types and join_setup were not called");
        return NULL;
    }
    PyObject *seq = args[0];
    if (!PyList_CheckExact(seq) && !PyTuple_CheckExact(seq))
        Py_RETURN_NONE;
    Py_ssize_t d = PyLong_AsSsize_t(args[1]);
    if (d == -1 && PyErr_Occurred())
        return NULL;
    int stacked = PyObject_IsTrue(args[2]);
    if (stacked < 0)
        return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    if (count < 1 || count > JOIN_MAX)
        Py_RETURN_NONE;
    PyObject **items = PySequence_Fast_ITEMS(seq);
    Py_buffer bufs[JOIN_MAX];
    Py_ssize_t got = 0, nd = 0, total = 0, elements = 0, outer = 1, itemsize = 0;
    Py_ssize_t first[3], starts[JOIN_MAX], lens[JOIN_MAX];
    PyObject *dtype = NULL, *answer = NULL, *shape = NULL, *strides = NULL, *offset = NULL;
    PyObject *out_shape = NULL, *plan = NULL, *flat = NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *t = items[i];
        if (!PyObject_TypeCheck(t, adopt_tensor))
            goto none;
        PyObject *dt = SLOT(t, off_dtype), *storage = SLOT(t, off_storage), *lay = SLOT(t, off_layout);
        if (dt == NULL || storage == NULL || lay == NULL || (dtype != NULL && dt != dtype))
            goto none;
        if (dtype == NULL) {
            dtype = dt;
            Py_INCREF(dtype); /* (held: the list's tensors are only borrowed) */
        }
        shape = PyObject_GetAttr(lay, s_layout_shape);
        strides = shape ? PyObject_GetAttr(lay, s_layout_strides) : NULL;
        offset = strides ? PyObject_GetAttr(lay, s_layout_offset) : NULL;
        if (offset == NULL)
            goto fail;
        if (!PyTuple_CheckExact(shape) || !PyTuple_CheckExact(strides) || !PyLong_CheckExact(offset))
            goto none;
        Py_ssize_t k = PyTuple_GET_SIZE(shape);
        if (i == 0) {
            nd = k;
            if (d < 0) /* (counted from the end, as PyTorch wraps a dim) */
                d += nd + stacked;
            if (nd + stacked < 1 || nd + stacked > 3 || d < 0 || d >= nd + stacked)
                goto none;
        }
        if (k != nd || PyTuple_GET_SIZE(strides) != k)
            goto none;
        /* the shape: agrees with the first's except in d (stacked: everywhere); row-major strides */
        Py_ssize_t dims[3], n = 1, expect = 1;
        for (Py_ssize_t j = 0; j < k; j++) {
            PyObject *v = PyTuple_GET_ITEM(shape, j);
            if (!PyLong_CheckExact(v))
                goto none;
            dims[j] = PyLong_AsSsize_t(v);
            if (dims[j] == -1 && PyErr_Occurred())
                goto fail;
            n *= dims[j];
        }
        if (n <= 0)
            goto none; /* (empty: flat_join's refusal, PyTorch's legacy skip of a (0,) input) */
        for (Py_ssize_t j = k - 1; j >= 0; j--) {
            PyObject *v = PyTuple_GET_ITEM(strides, j);
            if (!PyLong_CheckExact(v))
                goto none;
            Py_ssize_t st = PyLong_AsSsize_t(v);
            if (st == -1 && PyErr_Occurred())
                goto fail;
            /* (contiguous_strides: a size-1 dim's stride is the product outside it, as any other) */
            if (st != expect)
                goto none;
            expect *= dims[j];
        }
        if (i == 0) {
            for (Py_ssize_t j = 0; j < k; j++)
                first[j] = dims[j];
        } else {
            for (Py_ssize_t j = 0; j < k; j++)
                if (dims[j] != first[j] && (stacked || j != d))
                    goto none;
        }
        Py_ssize_t off = PyLong_AsSsize_t(offset);
        if (off == -1 && PyErr_Occurred())
            goto fail;
        Py_CLEAR(shape);
        Py_CLEAR(strides);
        Py_CLEAR(offset);
        PyObject *array = SLOT(storage, off_array);
        if (array == NULL)
            goto none;
        if (PyObject_GetBuffer(array, &bufs[got], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
            PyErr_Clear();
            goto none;
        }
        got++;
        Py_buffer *b = &bufs[got - 1];
        if (i == 0)
            itemsize = b->itemsize;
        if (b->itemsize != itemsize || itemsize <= 0 || off < 0 || b->len / itemsize < off + n)
            goto none; /* (a run past its storage: the general path's error) */
        starts[i] = off * itemsize;
        lens[i] = n * itemsize;
        total += stacked ? 1 : dims[d];
        elements += n;
    }
    if (elements * itemsize > join_limit)
        goto none;
    for (Py_ssize_t j = 0; j < d; j++)
        outer *= first[j];
    {
        /* the result's shape: the first's with d's size the total (stacked: a new dim d) */
        Py_ssize_t rank = nd + stacked, src = 0;
        out_shape = PyTuple_New(rank);
        if (out_shape == NULL)
            goto fail;
        for (Py_ssize_t j = 0; j < rank; j++) {
            Py_ssize_t v;
            if (j == d) {
                v = total;
                if (!stacked)
                    src++;
            } else
                v = first[src++];
            PyObject *o = PyLong_FromSsize_t(v);
            if (o == NULL)
                goto fail;
            PyTuple_SET_ITEM(out_shape, j, o);
        }
        PyObject *info = PyObject_GetItem(join_cinfo, out_shape);
        if (info == NULL)
            goto fail;
        if (!PyTuple_Check(info) || PyTuple_GET_SIZE(info) < 3) {
            Py_DECREF(info);
            goto none;
        }
        plan = PyTuple_GET_ITEM(info, 2);
        Py_INCREF(plan);
        Py_DECREF(info);
        PyObject *np_dtype = PyObject_GetAttr(dtype, s_numpy);
        if (np_dtype == NULL)
            goto fail;
        PyObject *n_obj = PyLong_FromSsize_t(elements);
        if (n_obj == NULL) {
            Py_DECREF(np_dtype);
            goto fail;
        }
        PyObject *call[2] = {n_obj, np_dtype};
        flat = PyObject_Vectorcall(join_empty, call, 2, NULL);
        Py_DECREF(n_obj);
        Py_DECREF(np_dtype);
        if (flat == NULL)
            goto fail;
        Py_buffer ob;
        if (PyObject_GetBuffer(flat, &ob, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
            goto fail;
        if (ob.len != elements * itemsize) {
            PyBuffer_Release(&ob);
            goto none;
        }
        const char *srcs[JOIN_MAX];
        Py_ssize_t rows[JOIN_MAX];
        for (Py_ssize_t i = 0; i < count; i++) {
            srcs[i] = (const char *)bufs[i].buf + starts[i];
            rows[i] = lens[i] / outer;
        }
        join_rows(ob.buf, count, srcs, rows, outer);
        PyBuffer_Release(&ob);
    }
    {
        PyObject *call[3] = {flat, plan, dtype};
        answer = py_adopt(NULL, call, 3);
    }
    goto done;
none:
    answer = Py_None;
    Py_INCREF(answer);
    goto done;
fail:
    answer = NULL;
done:
    for (Py_ssize_t i = 0; i < got; i++)
        PyBuffer_Release(&bufs[i]);
    Py_XDECREF(dtype);
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    Py_XDECREF(offset);
    Py_XDECREF(out_shape);
    Py_XDECREF(plan);
    Py_XDECREF(flat);
    return answer;
}

/* ---------------------------------------------------------------- along_tensors, slices_tensors: small index ops
 *
 * index_setup(cinfo, empty, dtypes, np_dtypes, limit) names the row-major plan table
 * (strided.ops._support.operands._cinfo), numpy.empty, the four strided dtypes the entries take
 * (float32, float64, int32, int64: every op of the family has a kernel for them) with their
 * NumPy dtypes, and the most index elements a call takes. Then:
 *
 * along_tensors(op, self, dim, index, src) answers what strided.ops.indexing.fast_along's
 * along_positions path answers (gather: op 0; the out-of-place scatter: 1, scatter_add /
 * scatter_reduce "sum": 2, "prod": 3; with 4 added, the written positions start from the sum's /
 * product's identity: include_self=False) where every precondition holds: Tensors (exactly) of
 * a dtype above, row-major, their run inside their storage; an int64 index of self's number of
 * dims (1 or more), no larger than self apart from dim, of 1 to limit elements, every value in
 * [0, size of dim); src (ops 1-7) of self's dtype and exactly the index's shape. The result is a
 * new Tensor (the index's shape for gather, self's for the scatters, bytes of a row-major
 * array), its writes those of NumPy's put / ufunc.at on the same positions in the same
 * (the index's row-major) order. Anything else answers None, nothing made.
 *
 * slices_tensors(op, self, dim, index, source) the same for fast_along's along_slices path:
 * index_select (op 0), the out-of-place index_copy (1), index_add (2), index_reduce "prod" (3;
 * +4: include_self=False) and index_fill (8: source a Python float for a float self, an int
 * in range for an integer one: the value NumPy's setitem writes); 17 and 18 are ops 1 and 2
 * written into self's own run (index_put_; True where done), refused where self's run overlaps
 * the source's or the index's. Each takes a 1-D int64 index of 1 to limit values in [0, size);
 * self non-empty; source (ops 1-7) row-major of self's dtype and shape with the index's length
 * at dim. Each element gets its writes in the index's order. */
#define IX_POS 4096 /* the most index elements a call takes (index_setup's limit is cut to it) */
#define IX_KINDS 5 /* float32, float64, int32, int64 (the ops' kinds 0-3), bool (4: masks, nonzero) */
static PyObject *ix_cinfo, *ix_empty, *ix_dtypes[IX_KINDS], *ix_np[IX_KINDS];
static Py_ssize_t ix_limit;
static const Py_ssize_t ix_size[IX_KINDS] = {4, 8, 4, 8, 1};

static PyObject *py_index_setup(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cinfo, *empty, *dtypes, *nps;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "OOO!O!n:index_setup", &cinfo, &empty, &PyTuple_Type, &dtypes, &PyTuple_Type, &nps,
                          &limit))
        return NULL;
    if (PyTuple_GET_SIZE(dtypes) != IX_KINDS || PyTuple_GET_SIZE(nps) != IX_KINDS) {
        PyErr_SetString(PyExc_ValueError,
                        "index_setup: five dtypes (float32, float64, int32, int64, bool) and their NumPy dtypes");
        return NULL;
    }
    if (layout_names() < 0)
        return NULL;
    for (int k = 0; k < IX_KINDS; k++) {
        Py_INCREF(PyTuple_GET_ITEM(dtypes, k));
        Py_XSETREF(ix_dtypes[k], PyTuple_GET_ITEM(dtypes, k));
        Py_INCREF(PyTuple_GET_ITEM(nps, k));
        Py_XSETREF(ix_np[k], PyTuple_GET_ITEM(nps, k));
    }
    Py_INCREF(cinfo);
    Py_INCREF(empty);
    Py_XSETREF(ix_cinfo, cinfo);
    Py_XSETREF(ix_empty, empty);
    ix_limit = limit < 0 ? 0 : limit > IX_POS ? IX_POS : limit;
    Py_RETURN_NONE;
}

#define IX_DIMS 8 /* (more dims: the Python path) */

/* One operand: a row-major run of a Tensor's storage. */
typedef struct {
    int kind; /* index into ix_dtypes */
    Py_ssize_t nd, n;
    Py_ssize_t shape[IX_DIMS], strides[IX_DIMS]; /* strides: in elements (row-major unless ix_read_as's dense) */
    int row_major; /* (0: a permuted dense layout, which only ix_read_as's dense reads) */
    PyObject *shape_obj; /* the layout's shape tuple (new reference) */
    char *data; /* the run's first element */
    Py_buffer view;
    int held;
} ix_run;

static void ix_release(ix_run *r)
{
    if (r->held)
        PyBuffer_Release(&r->view);
    r->held = 0;
    Py_CLEAR(r->shape_obj);
}

/* Whether the strides are a permutation of the row-major strides of shape (every dim of size 2 or
 * more, at least two dims): memory.dense_layout's permuted dense layout, one run of n elements. */
static int ix_permuted_dense(const Py_ssize_t *shape, const Py_ssize_t *strides, Py_ssize_t nd)
{
    if (nd < 2)
        return 0;
    Py_ssize_t want = 1;
    for (Py_ssize_t found = 0; found < nd; found++) { /* (the dim of stride want, innermost first) */
        Py_ssize_t j = 0;
        while (j < nd && (strides[j] != want || shape[j] < 2))
            j++;
        if (j == nd)
            return 0;
        want *= shape[j];
    }
    return 1;
}

/* ix_read with the limits given: at most max_n elements, and (dense) a permuted dense layout read
 * too (r->row_major 0: the run's n elements at r->strides). */
static int ix_read_as(PyObject *t, ix_run *r, Py_ssize_t max_n, int dense);

/* 1: t read into r (release with ix_release); 0: t does not qualify (nothing held); -1: an error. */
static int ix_read(PyObject *t, ix_run *r)
{
    return ix_read_as(t, r, ix_limit * 16, 0);
}

static int ix_read_as(PyObject *t, ix_run *r, Py_ssize_t max_n, int dense)
{
    r->held = 0;
    r->shape_obj = NULL;
    if (Py_TYPE(t) != adopt_tensor)
        return 0;
    PyObject *dt = SLOT(t, off_dtype), *storage = SLOT(t, off_storage), *lay = SLOT(t, off_layout);
    if (dt == NULL || storage == NULL || lay == NULL)
        return 0;
    r->kind = -1;
    for (int k = 0; k < IX_KINDS; k++)
        if (dt == ix_dtypes[k])
            r->kind = k;
    if (r->kind < 0)
        return 0;
    PyObject *shape = PyObject_GetAttr(lay, s_layout_shape);
    if (shape == NULL)
        return -1;
    PyObject *strides = PyObject_GetAttr(lay, s_layout_strides);
    if (strides == NULL) {
        Py_DECREF(shape);
        return -1;
    }
    PyObject *offset = PyObject_GetAttr(lay, s_layout_offset);
    int answer = 0;
    Py_ssize_t off = 0;
    if (offset == NULL) {
        answer = -1;
        goto done;
    }
    if (!PyTuple_CheckExact(shape) || !PyTuple_CheckExact(strides) || !PyLong_CheckExact(offset))
        goto done;
    Py_ssize_t nd = PyTuple_GET_SIZE(shape);
    if (nd > IX_DIMS || PyTuple_GET_SIZE(strides) != nd)
        goto done;
    r->nd = nd;
    Py_ssize_t n = 1;
    for (Py_ssize_t j = 0; j < nd; j++) {
        PyObject *v = PyTuple_GET_ITEM(shape, j);
        if (!PyLong_CheckExact(v))
            goto done;
        r->shape[j] = PyLong_AsSsize_t(v);
        if (r->shape[j] == -1 && PyErr_Occurred()) {
            answer = -1;
            goto done;
        }
        if (r->shape[j] < 0 || r->shape[j] > max_n)
            goto done;
    }
    r->row_major = 1;
    for (Py_ssize_t j = nd - 1; j >= 0; j--) { /* (contiguous_strides: a size-1 dim's too) */
        PyObject *v = PyTuple_GET_ITEM(strides, j);
        if (!PyLong_CheckExact(v))
            goto done;
        Py_ssize_t st = PyLong_AsSsize_t(v);
        if (st == -1 && PyErr_Occurred()) {
            answer = -1;
            goto done;
        }
        if (st != n) {
            if (!dense)
                goto done;
            r->row_major = 0;
        }
        r->strides[j] = st;
        n *= r->shape[j];
        if (n > max_n)
            goto done; /* (large: the Python path) */
    }
    if (!r->row_major && !ix_permuted_dense(r->shape, r->strides, nd))
        goto done;
    r->n = n;
    off = PyLong_AsSsize_t(offset);
    if (off == -1 && PyErr_Occurred()) {
        answer = -1;
        goto done;
    }
    if (off < 0)
        goto done;
    PyObject *array = SLOT(storage, off_array);
    if (array == NULL)
        goto done;
    if (PyObject_GetBuffer(array, &r->view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        goto done;
    }
    const char *f = r->view.format;
    char want = "fdil?"[r->kind];
    if (r->view.itemsize != ix_size[r->kind] || f == NULL || (f[0] == '<' || f[0] == '=' || f[0] == '@' ? f[1] : f[0]) != want
        || r->view.len / r->view.itemsize < off + n || r->view.readonly) {
        /* (int64 as 'q' on a platform whose long is 4 bytes: the Python path) */
        PyBuffer_Release(&r->view);
        goto done;
    }
    r->held = 1;
    r->data = (char *)r->view.buf + off * r->view.itemsize;
    r->shape_obj = shape;
    Py_INCREF(shape);
    answer = 1;
done:
    Py_DECREF(shape);
    Py_DECREF(strides);
    Py_XDECREF(offset);
    return answer;
}

/* ix_read of two operands: 1 both read, 0 or -1 as ix_read (what was read stays held: ix_close). */
static int ix_read2(PyObject *a, ix_run *ra, PyObject *b, ix_run *rb)
{
    int r = ix_read(a, ra);
    return r > 0 ? ix_read(b, rb) : r;
}

/* A fresh 1-D NumPy array of n elements of dtype kind, its data in *data. */
static PyObject *ix_new(Py_ssize_t n, int kind, char **data)
{
    PyObject *n_obj = PyLong_FromSsize_t(n);
    if (n_obj == NULL)
        return NULL;
    PyObject *call[2] = {n_obj, ix_np[kind]};
    PyObject *flat = PyObject_Vectorcall(ix_empty, call, 2, NULL);
    Py_DECREF(n_obj);
    if (flat == NULL)
        return NULL;
    Py_buffer ob;
    if (PyObject_GetBuffer(flat, &ob, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        Py_DECREF(flat);
        return NULL;
    }
    /* (the buffer lives as long as flat: NumPy's data pointer does not move) */
    *data = ob.buf;
    int ok = ob.len == n * ix_size[kind];
    PyBuffer_Release(&ob);
    if (!ok) {
        Py_DECREF(flat);
        PyErr_SetString(PyExc_RuntimeError, "index_setup: a NumPy dtype of another size than its strided dtype");
        return NULL;
    }
    return flat;
}

/* The Tensor over flat with the row-major plan of shape. */
static PyObject *ix_adopt(PyObject *flat, PyObject *shape, int kind)
{
    PyObject *info = PyObject_GetItem(ix_cinfo, shape);
    if (info == NULL)
        return NULL;
    if (!PyTuple_Check(info) || PyTuple_GET_SIZE(info) < 3) {
        Py_DECREF(info);
        PyErr_SetString(PyExc_RuntimeError, "index_setup: the plan table's entries are (strides, count, layout)");
        return NULL;
    }
    PyObject *call[3] = {flat, PyTuple_GET_ITEM(info, 2), ix_dtypes[kind]};
    PyObject *t = py_adopt(NULL, call, 3);
    Py_DECREF(info);
    return t;
}

/* index_add's float sum as NumPy's ufunc.at over a slice key leaves it: where the source value
 * is a NaN, that NaN (quieted), whatever out holds; else out + v (an out NaN stays, quieted).
 * (C's + is commutative to the compiler, which picks the operand order, and x86 keeps the first
 * operand's NaN: spelled out. Checked against NumPy on random payloads, signaling ones too.)
 * IX_ADD_NAN's KEEP names the operand whose NaN wins (v here; o: put_'s addf in _put_scatter.h). */
#define IX_ADD_NAN(NAME, T, U, QUIET, KEEP)                                                           \
    static inline T NAME(T o, T v)                                                                    \
    {                                                                                                 \
        if (KEEP != KEEP) {                                                                           \
            U b;                                                                                      \
            memcpy(&b, &KEEP, sizeof b);                                                              \
            b |= QUIET;                                                                               \
            memcpy(&KEEP, &b, sizeof b);                                                              \
            return KEEP;                                                                              \
        }                                                                                             \
        return o + v;                                                                                 \
    }
IX_ADD_NAN(ix_addf, float, uint32_t, 0x00400000u, v)
IX_ADD_NAN(ix_addd, double, uint64_t, 0x0008000000000000ull, v)

/* out[at] (op) src[from] for element kind: 1 put, 2 add, 3 multiply (integers wrap, as NumPy's). */
static inline void ix_apply(int kind, int op, char *out, Py_ssize_t at, const char *src, Py_ssize_t from)
{
    switch (kind * 4 + op) {
#define IX_CASE(K, T, U, ADD)                                                                         \
    case K * 4 + 1: ((T *)out)[at] = ((const T *)src)[from]; break;                                   \
    case K * 4 + 2: ((T *)out)[at] = ADD(((T *)out)[at], ((const T *)src)[from]); break;              \
    case K * 4 + 3: ((T *)out)[at] = (T)((U)((T *)out)[at] * (U)((const T *)src)[from]); break;
#define IX_ADD32(o, v) (int32_t)((uint32_t)(o) + (uint32_t)(v))
#define IX_ADD64(o, v) (int64_t)((uint64_t)(o) + (uint64_t)(v))
        IX_CASE(0, float, float, ix_addf)
        IX_CASE(1, double, double, ix_addd)
        IX_CASE(2, int32_t, uint32_t, IX_ADD32)
        IX_CASE(3, int64_t, uint64_t, IX_ADD64)
#undef IX_CASE
#undef IX_ADD32
#undef IX_ADD64
    default: break;
    }
}

/* out[at] = the identity of op (2: 0, 3: 1) for element kind. */
static inline void ix_identity(int kind, int op, char *out, Py_ssize_t at)
{
    switch (kind) {
    case 0: ((float *)out)[at] = op == 3 ? 1.0f : 0.0f; break;
    case 1: ((double *)out)[at] = op == 3 ? 1.0 : 0.0; break;
    case 2: ((int32_t *)out)[at] = op == 3 ? 1 : 0; break;
    default: ((int64_t *)out)[at] = op == 3 ? 1 : 0; break;
    }
}

/* The along walk of op over the n positions: gather (0) reads self at pos into out; put (1),
 * add (2), multiply (3) write src's k-th value at pos[k] of out, in order (integers wrap, as
 * NumPy's); fresh_start: the positions first get the identity (2: 0, 3: 1). */
static void ix_walk(int kind, int op, int fresh_start, char *out, const char *self, const char *src,
                    const Py_ssize_t *pos, Py_ssize_t n)
{
    switch (kind * 4 + op) {
#define IX_WALK(K, T, U)                                                                              \
    case K * 4 + 0:                                                                                   \
        for (Py_ssize_t k = 0; k < n; k++)                                                            \
            ((T *)out)[k] = ((const T *)self)[pos[k]];                                                \
        break;                                                                                        \
    case K * 4 + 1:                                                                                   \
        for (Py_ssize_t k = 0; k < n; k++)                                                            \
            ((T *)out)[pos[k]] = ((const T *)src)[k];                                                 \
        break;                                                                                        \
    case K * 4 + 2:                                                                                   \
        if (fresh_start)                                                                              \
            for (Py_ssize_t k = 0; k < n; k++)                                                        \
                ((T *)out)[pos[k]] = (T)0;                                                            \
        for (Py_ssize_t k = 0; k < n; k++)                                                            \
            ((T *)out)[pos[k]] = (T)((U)((T *)out)[pos[k]] + (U)((const T *)src)[k]);                \
        break;                                                                                        \
    case K * 4 + 3:                                                                                   \
        if (fresh_start)                                                                              \
            for (Py_ssize_t k = 0; k < n; k++)                                                        \
                ((T *)out)[pos[k]] = (T)1;                                                            \
        for (Py_ssize_t k = 0; k < n; k++)                                                            \
            ((T *)out)[pos[k]] = (T)((U)((T *)out)[pos[k]] * (U)((const T *)src)[k]);                \
        break;
        IX_WALK(0, float, float)
        IX_WALK(1, double, double)
        IX_WALK(2, int32_t, uint32_t)
        IX_WALK(3, int64_t, uint64_t)
#undef IX_WALK
    default: break;
    }
}

/* A call's operands: self, the int64 index (vector: 1-D, else of self's number of dims) and its
 * values, all in [0, size of dim); op and dim (wrapped). 1: all read (ix_close releases them);
 * 0: a precondition fails (nothing held); -1: an error. */
typedef struct {
    long op;
    Py_ssize_t d;
    ix_run s, ix, v;
    PyObject *flat, *shape;
} ix_call;

/* The start of every entry below: c emptied, the argument count and the setup checked (0, or
 * -1 with the TypeError / RuntimeError set). sig: the call's spelling, its name first. */
static int ix_start(Py_ssize_t nargs, Py_ssize_t want, const char *sig, ix_call *c)
{
    c->s.held = c->ix.held = c->v.held = 0;
    c->s.shape_obj = c->ix.shape_obj = c->v.shape_obj = NULL;
    c->flat = c->shape = NULL;
    if (nargs != want) {
        PyErr_Format(PyExc_TypeError, "%s takes %zd arguments", sig, want);
        return -1;
    }
    if (adopt_tensor == NULL || ix_cinfo == NULL) {
        PyErr_Format(PyExc_RuntimeError, "%s: adopt_types and index_setup were not called", sig);
        return -1;
    }
    return 0;
}

static int ix_open(PyObject *const *args, Py_ssize_t nargs, const char *sig, int vector, ix_call *c)
{
    if (ix_start(nargs, 5, sig, c) < 0)
        return -1;
    c->op = PyLong_AsLong(args[0]);
    if (c->op == -1 && PyErr_Occurred())
        return -1;
    if (!PyLong_CheckExact(args[2]))
        return 0;
    int overflow = 0;
    c->d = PyLong_AsLongAndOverflow(args[2], &overflow);
    if (overflow)
        return 0;
    int r = ix_read2(args[1], &c->s, args[3], &c->ix);
    if (r <= 0)
        return r;
    Py_ssize_t nd = c->s.nd;
    if (c->d < 0)
        c->d += nd;
    if (c->s.kind > 3 || c->ix.kind != 3 || nd == 0 || c->ix.nd != (vector ? 1 : nd) || c->ix.n < 1 || c->ix.n > ix_limit
        || c->s.n == 0 || c->d < 0 || c->d >= nd)
        return 0;
    const int64_t *idx = (const int64_t *)c->ix.data;
    uint64_t size = (uint64_t)c->s.shape[c->d];
    for (Py_ssize_t k = 0; k < c->ix.n; k++)
        if ((uint64_t)idx[k] >= size) /* (a negative value reads as a huge one) */
            return 0;
    return 1;
}

/* Reads the source (args[4]) of ops 1-7: self's dtype, shape (its dim d of size n_d) row-major. */
static int ix_source(PyObject *const *args, ix_call *c, const Py_ssize_t *shape, Py_ssize_t d, Py_ssize_t n_d)
{
    int r = ix_read(args[4], &c->v);
    if (r <= 0)
        return r;
    if (c->v.kind != c->s.kind || c->v.nd != c->s.nd)
        return 0;
    for (Py_ssize_t e = 0; e < c->s.nd; e++)
        if (c->v.shape[e] != (e == d ? n_d : shape[e]))
            return 0;
    return 1;
}

/* Everything c holds, released. */
static void ix_free(ix_call *c)
{
    ix_release(&c->s);
    ix_release(&c->ix);
    ix_release(&c->v);
    Py_CLEAR(c->flat);
    Py_CLEAR(c->shape);
}

/* The call's answer for r (1: the Tensor over c->flat with c->shape's plan; 2: True; 0: None; -1: NULL),
 * everything released. */
static PyObject *ix_close(ix_call *c, int r)
{
    PyObject *answer = NULL;
    if (r == 2) { /* (written in place) */
        answer = Py_True;
        Py_INCREF(answer);
    } else if (r > 0)
        answer = ix_adopt(c->flat, c->shape, c->s.kind);
    ix_free(c);
    if (r == 0)
        Py_RETURN_NONE;
    return answer;
}

/* A fresh array of n elements of self's dtype (c->flat), holding self's bytes when copy. */
static char *ix_fresh(ix_call *c, Py_ssize_t n, int copy)
{
    char *o;
    c->flat = ix_new(n, c->s.kind, &o);
    if (c->flat == NULL)
        return NULL;
    if (copy)
        memcpy(o, c->s.data, (size_t)(n * ix_size[c->s.kind]));
    return o;
}

static PyObject *py_along_tensors(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    ix_call c;
    int r = ix_open(args, nargs, "along_tensors(op, self, dim, index, src)", 0, &c);
    if (r <= 0)
        return ix_close(&c, r);
    int base = (int)(c.op & 3), fresh_start = (c.op & 4) != 0;
    Py_ssize_t nd = c.s.nd, d = c.d;
    if (c.op < 0 || c.op > 7 || (fresh_start && base < 2))
        return ix_close(&c, 0);
    for (Py_ssize_t e = 0; e < nd; e++)
        if (e != d && c.ix.shape[e] > c.s.shape[e])
            return ix_close(&c, 0);
    if (base && (r = ix_source(args, &c, c.ix.shape, -1, 0)) <= 0)
        return ix_close(&c, r);
    char *o = ix_fresh(&c, base ? c.s.n : c.ix.n, base);
    if (o == NULL)
        return ix_close(&c, -1);
    c.shape = base ? c.s.shape_obj : c.ix.shape_obj;
    Py_INCREF(c.shape);
    /* each index element's position in self, in the index's row-major order: row by row of its
     * last dim (counters over the others give the row's other-dims part) */
    const int64_t *idx = (const int64_t *)c.ix.data;
    Py_ssize_t pos[IX_POS], cnt[IX_DIMS] = {0}, grid = 0, sd = c.s.strides[d];
    Py_ssize_t last = c.ix.shape[nd - 1], rows = c.ix.n / last, step = d == nd - 1 ? 0 : 1;
    for (Py_ssize_t row = 0, k = 0; row < rows; row++) {
        for (Py_ssize_t j = 0; j < last; j++, k++)
            pos[k] = grid + j * step + (Py_ssize_t)idx[k] * sd;
        for (Py_ssize_t e = nd - 2; e >= 0; e--) { /* (the next row) */
            if (++cnt[e] < c.ix.shape[e]) {
                if (e != d)
                    grid += c.s.strides[e];
                break;
            }
            if (e != d)
                grid -= (cnt[e] - 1) * c.s.strides[e];
            cnt[e] = 0;
        }
    }
    ix_walk(c.s.kind, base, fresh_start, o, c.s.data, c.v.data, pos, c.ix.n);
    return ix_close(&c, 1);
}

/* A fill's number as the element of kind that NumPy's write of strided's checked value holds
 * (scalars.checked: np.float32(x) for a float within float32's finite range, the float itself
 * for float64, the int for an integer kind it fits): 1 with *out set; 0 for anything else (an
 * int into a float tensor, NaN or inf into float32, a bool, ...: the Python path decides). */
typedef union { float f; double d; int32_t i; int64_t q; } ix_value;

static int ix_fill_value(int kind, PyObject *x, ix_value *out)
{
    if (kind < 2 && PyFloat_CheckExact(x)) {
        double f = PyFloat_AS_DOUBLE(x);
        if (kind == 1)
            out->d = f;
        else if (f >= -FLT_MAX && f <= FLT_MAX)
            out->f = (float)f;
        else
            return 0;
        return 1;
    }
    if ((kind == 2 || kind == 3) && PyLong_CheckExact(x)) {
        int overflow = 0;
        long long q = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (overflow || (q == -1 && PyErr_Occurred()) || (kind == 2 && (q < INT32_MIN || q > INT32_MAX))) {
            PyErr_Clear();
            return 0;
        }
        if (kind == 2)
            out->i = (int32_t)q;
        else
            out->q = (int64_t)q;
        return 1;
    }
    return 0;
}

static PyObject *py_slices_tensors(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    ix_call c;
    int r = ix_open(args, nargs, "slices_tensors(op, self, dim, index, source)", 1, &c);
    if (r <= 0)
        return ix_close(&c, r);
    int inplace = c.op == 17 || c.op == 18; /* (index_put_: put, add into self's own run) */
    if (inplace)
        c.op -= 16;
    int base = (int)(c.op & 3), fresh_start = (c.op & 4) != 0, fill = c.op == 8, kind = c.s.kind;
    if (c.op < 0 || (c.op > 7 && !fill) || (fresh_start && base < 2))
        return ix_close(&c, 0);
    const int64_t *idx = (const int64_t *)c.ix.data;
    Py_ssize_t nd = c.s.nd, d = c.d, m = c.ix.n, isz = ix_size[kind];
    Py_ssize_t size = c.s.shape[d], inner = c.s.strides[d], outer = c.s.n / (size * inner);
    ix_value value;
    if (fill) {
        if (!ix_fill_value(kind, args[4], &value))
            return ix_close(&c, 0);
    } else if (base && (r = ix_source(args, &c, c.s.shape, d, m)) <= 0) {
        return ix_close(&c, r);
    }
    char *o;
    if (inplace) {
        /* (self's run may not overlap the source's or the index's: NumPy's may_share_memory test,
         * the general path then reads them first) */
        const char *lo = c.s.data, *hi = c.s.data + c.s.n * isz;
        if ((c.v.data < hi && lo < c.v.data + c.v.n * isz) || (c.ix.data < hi && lo < c.ix.data + m * 8))
            return ix_close(&c, 0);
        o = c.s.data;
    } else if (base || fill) {
        o = ix_fresh(&c, c.s.n, 1);
        c.shape = c.s.shape_obj;
        Py_INCREF(c.shape);
    } else {
        c.shape = PyTuple_New(nd);
        if (c.shape == NULL)
            return ix_close(&c, -1);
        for (Py_ssize_t e = 0; e < nd; e++) {
            PyObject *x = e == d ? PyLong_FromSsize_t(m) : PyTuple_GET_ITEM(c.s.shape_obj, e);
            if (x == NULL)
                return ix_close(&c, -1);
            if (e != d)
                Py_INCREF(x);
            PyTuple_SET_ITEM(c.shape, e, x);
        }
        o = ix_fresh(&c, outer * m * inner, 0);
    }
    if (o == NULL)
        return ix_close(&c, -1);
    size_t row = (size_t)(inner * isz);
    for (Py_ssize_t a = 0; a < outer; a++) {
        char *sa = c.s.data + a * size * row, *oa = base || fill ? o + a * size * row : o + a * m * row;
        if (!base && !fill) {
            for (Py_ssize_t k = 0; k < m; k++)
                memcpy(oa + k * row, sa + idx[k] * row, row);
        } else if (fill) {
            for (Py_ssize_t k = 0; k < m; k++)
                for (Py_ssize_t i = 0; i < inner; i++)
                    memcpy(oa + (idx[k] * inner + i) * isz, &value, (size_t)isz);
        } else {
            Py_ssize_t first = a * size * inner, from = a * m * inner;
            if (fresh_start)
                for (Py_ssize_t k = 0; k < m; k++)
                    for (Py_ssize_t i = 0; i < inner; i++)
                        ix_identity(kind, base, o, first + idx[k] * inner + i);
            for (Py_ssize_t k = 0; k < m; k++)
                for (Py_ssize_t i = 0; i < inner; i++)
                    ix_apply(kind, base, o, first + idx[k] * inner + i, c.v.data, from + k * inner + i);
        }
    }
    return ix_close(&c, inplace ? 2 : 1);
}

/* search_tensors(seq, values, right): searchsorted / bucketize of the row-major values (any
 * shape, 1 to limit * 16 elements) in the row-major 1-D non-empty seq of the same dtype (one of
 * index_setup's four), non-decreasing and without NaN (seq[i + 1] >= seq[i] throughout; a
 * one-element seq not NaN): the int64 Tensor of values' shape, NumPy's searchsorted answer (side
 * "right" where right is true, else "left"; a NaN value sorts after every number, as NumPy's
 * comparison puts it). None where a precondition fails (nothing made). */
#define IX_LT_FLOAT(a, b) ((a) < (b) || ((b) != (b) && (a) == (a)))
#define IX_LT_INT(a, b) ((a) < (b))
/* GO(x, v): whether the bisection moves past the sequence's element x for value v. Four
 * values at a time: their bisections take the same steps (the sequence's length halves), and
 * four independent load-compare chains overlap (one chain waits on each load: ~1 ns a step). */
#define IX_BISECT(T, GO)                                                                              \
    {                                                                                                 \
        Py_ssize_t k = 0;                                                                             \
        for (; k + 4 <= val.n; k += 4) {                                                              \
            T v0 = x[k], v1 = x[k + 1], v2 = x[k + 2], v3 = x[k + 3];                                 \
            const T *b0 = q, *b1 = q, *b2 = q, *b3 = q;                                               \
            for (Py_ssize_t len = n; len > 1;) {                                                      \
                Py_ssize_t half = len / 2;                                                            \
                b0 = GO(b0[half], v0) ? b0 + half : b0;                                               \
                b1 = GO(b1[half], v1) ? b1 + half : b1;                                               \
                b2 = GO(b2[half], v2) ? b2 + half : b2;                                               \
                b3 = GO(b3[half], v3) ? b3 + half : b3;                                               \
                len -= half;                                                                          \
            }                                                                                         \
            out[k] = (b0 - q) + GO(*b0, v0);                                                          \
            out[k + 1] = (b1 - q) + GO(*b1, v1);                                                      \
            out[k + 2] = (b2 - q) + GO(*b2, v2);                                                      \
            out[k + 3] = (b3 - q) + GO(*b3, v3);                                                      \
        }                                                                                             \
        for (; k < val.n; k++) {                                                                      \
            T v = x[k];                                                                               \
            const T *b = q;                                                                           \
            for (Py_ssize_t len = n; len > 1;) {                                                      \
                Py_ssize_t half = len / 2;                                                            \
                b = GO(b[half], v) ? b + half : b;                                                    \
                len -= half;                                                                          \
            }                                                                                         \
            out[k] = (b - q) + GO(*b, v);                                                             \
        }                                                                                             \
    }
#define IX_SEARCH(T, LT)                                                                              \
    {                                                                                                 \
        const T *q = (const T *)seq.data, *x = (const T *)val.data;                                   \
        for (Py_ssize_t i = 1; i < n; i++)                                                            \
            if (!(q[i] >= q[i - 1]))                                                                  \
                return ix_close(&c, 0);                                                               \
        if (n == 1 && !(q[0] == q[0]))                                                                \
            return ix_close(&c, 0);                                                                   \
        /* (left: past every element below v; right: past every element not above it) */            \
        if (right) {                                                                                  \
            IX_BISECT(T, IX_GO_RIGHT_##LT)                                                            \
        } else {                                                                                      \
            IX_BISECT(T, IX_GO_LEFT_##LT)                                                             \
        }                                                                                             \
    }
#define IX_GO_LEFT_IX_LT_FLOAT(x, v) IX_LT_FLOAT(x, v)
#define IX_GO_RIGHT_IX_LT_FLOAT(x, v) (!IX_LT_FLOAT(v, x))
#define IX_GO_LEFT_IX_LT_INT(x, v) ((x) < (v))
#define IX_GO_RIGHT_IX_LT_INT(x, v) (!((v) < (x)))

static PyObject *py_search_tensors(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    ix_call c; /* (c.s: the sequence, c.v: the values; ix_close adopts c.flat as int64) */
    if (ix_start(nargs, 3, "search_tensors(seq, values, right)", &c) < 0)
        return NULL;
    int right = PyObject_IsTrue(args[2]);
    if (right < 0)
        return NULL;
    int r = ix_read2(args[0], &c.s, args[1], &c.v);
    if (r <= 0)
        return ix_close(&c, r);
    ix_run seq = c.s, val = c.v;
    Py_ssize_t n = seq.n;
    if (seq.kind > 3 || seq.nd != 1 || n < 1 || val.kind != seq.kind || val.n < 1)
        return ix_close(&c, 0);
    char *o;
    c.flat = ix_new(val.n, 3, &o);
    if (c.flat == NULL)
        return ix_close(&c, -1);
    int64_t *out = (int64_t *)o;
    switch (seq.kind) {
    case 0: IX_SEARCH(float, IX_LT_FLOAT) break;
    case 1: IX_SEARCH(double, IX_LT_FLOAT) break;
    case 2: IX_SEARCH(int32_t, IX_LT_INT) break;
    default: IX_SEARCH(int64_t, IX_LT_INT) break;
    }
    c.shape = val.shape_obj;
    Py_INCREF(c.shape);
    c.s.kind = 3; /* (the result's dtype: int64) */
    return ix_close(&c, 1);
}

/* search_runs(seq, values, out, right) -> bool: search_tensors' bisection for operands of any
 * size, on buffers: seq a C-contiguous aligned 1-D run of float32 "f" / float64 "d" / int32 "i" /
 * int64 "l"/"q", non-decreasing and without NaN (the caller has checked: strided's _fast_search);
 * values a C-contiguous aligned run of the same format; out a C-contiguous aligned writable int64
 * run of values' length, overlapping neither. out[k]: NumPy's searchsorted answer for values[k]
 * (side "right" where right is true), each value's bisection the one search_tensors takes (the same
 * steps and the same final test: the same index). SR_LANES values at a time: their bisections take
 * the same steps, and as many independent loads are in flight; in a sequence larger than the
 * caches each load of the deeper steps misses (a 2^20-element float32 sequence and as many
 * values: NumPy's one-at-a-time search 190 ms, 8 lanes 50 ms, 16 lanes 31 ms). The GIL is released from
 * 4096 values. False (nothing written) where a buffer does not qualify. */
#define SR_LANES 16
#define SR_BISECT(T, GO)                                                                              \
    {                                                                                                 \
        Py_ssize_t k = 0;                                                                             \
        for (; k + SR_LANES <= m; k += SR_LANES) {                                                    \
            T v[SR_LANES];                                                                            \
            const T *b[SR_LANES];                                                                     \
            for (int l = 0; l < SR_LANES; l++) {                                                      \
                v[l] = x[k + l];                                                                      \
                b[l] = q;                                                                             \
            }                                                                                         \
            for (Py_ssize_t len = n; len > 1;) {                                                      \
                Py_ssize_t half = len / 2;                                                            \
                for (int l = 0; l < SR_LANES; l++)                                                    \
                    b[l] = GO(b[l][half], v[l]) ? b[l] + half : b[l];                                 \
                len -= half;                                                                          \
            }                                                                                         \
            for (int l = 0; l < SR_LANES; l++)                                                        \
                out[k + l] = v[l] == v[l] ? (b[l] - q) + GO(*b[l], v[l]) : n;                         \
        }                                                                                             \
        for (; k < m; k++) {                                                                          \
            T v = x[k];                                                                               \
            const T *b = q;                                                                           \
            for (Py_ssize_t len = n; len > 1;) {                                                      \
                Py_ssize_t half = len / 2;                                                            \
                b = GO(b[half], v) ? b + half : b;                                                    \
                len -= half;                                                                          \
            }                                                                                         \
            out[k] = v == v ? (b - q) + GO(*b, v) : n;                                                \
        }                                                                                             \
    }
/* (the sequence holds no NaN: a number's bisection needs only <; a NaN value, which sorts after
 * every number, is answered n, the index its NaN-aware bisection reaches) */
#define SR_GO_LEFT(x, v) ((x) < (v))
#define SR_GO_RIGHT(x, v) (!((v) < (x)))
#define SR_RUN(T)                                                                                     \
    {                                                                                                 \
        const T *q = (const T *)sb.buf, *x = (const T *)vb.buf;                                       \
        if (right) {                                                                                  \
            SR_BISECT(T, SR_GO_RIGHT)                                                                 \
        } else {                                                                                      \
            SR_BISECT(T, SR_GO_LEFT)                                                                  \
        }                                                                                             \
    }

/* The kind of a search_runs buffer: 0 float32, 1 float64, 2 int32, 3 int64; -1 another. */
static int sr_kind(const Py_buffer *b)
{
    const char *f = b->format ? b->format : "B";
    if (*f == '@' || *f == '=' || *f == '<')
        f++;
    if (f[0] == 0 || f[1] != 0)
        return -1;
    if (f[0] == 'f' && b->itemsize == 4)
        return 0;
    if (f[0] == 'd' && b->itemsize == 8)
        return 1;
    if (f[0] == 'i' && b->itemsize == 4)
        return 2;
    if ((f[0] == 'l' || f[0] == 'q') && b->itemsize == 8)
        return 3;
    return -1;
}

static PyObject *py_search_runs(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "search_runs(seq, values, out, right) takes 4 arguments, not %zd", nargs);
        return NULL;
    }
    int right = PyObject_IsTrue(args[3]);
    if (right < 0)
        return NULL;
    Py_buffer sb, vb, ob;
    if (PyObject_GetBuffer(args[0], &sb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[1], &vb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&sb);
        return NULL;
    }
    if (PyObject_GetBuffer(args[2], &ob, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&sb);
        PyBuffer_Release(&vb);
        return NULL;
    }
    PyObject *answer = Py_False;
    int kind = sr_kind(&sb);
    Py_ssize_t n = sb.itemsize ? sb.len / sb.itemsize : 0, m = vb.itemsize ? vb.len / vb.itemsize : 0;
    const char *olo = (const char *)ob.buf, *ohi = olo + ob.len;
    if (kind < 0 || sr_kind(&vb) != kind || sr_kind(&ob) != 3 || n < 1 || ob.len != m * 8
        || ((uintptr_t)sb.buf) % sb.itemsize || ((uintptr_t)vb.buf) % vb.itemsize || ((uintptr_t)ob.buf) % 8
        || ((const char *)sb.buf < ohi && olo < (const char *)sb.buf + sb.len)
        || ((const char *)vb.buf < ohi && olo < (const char *)vb.buf + vb.len))
        goto done;
    int64_t *out = (int64_t *)ob.buf;
    PyThreadState *ts = m >= 4096 ? PyEval_SaveThread() : NULL;
    switch (kind) {
    case 0: SR_RUN(float) break;
    case 1: SR_RUN(double) break;
    case 2: SR_RUN(int32_t) break;
    default: SR_RUN(int64_t) break;
    }
    if (ts != NULL)
        PyEval_RestoreThread(ts);
    answer = Py_True;
done:
    PyBuffer_Release(&sb);
    PyBuffer_Release(&vb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}
#undef SR_RUN
#undef SR_BISECT
#undef SR_GO_LEFT
#undef SR_GO_RIGHT

#undef IX_SEARCH
#undef IX_BISECT
#undef IX_LT_FLOAT
#undef IX_LT_INT
#undef IX_GO_LEFT_IX_LT_FLOAT
#undef IX_GO_RIGHT_IX_LT_FLOAT
#undef IX_GO_LEFT_IX_LT_INT
#undef IX_GO_RIGHT_IX_LT_INT

/* nonzero_flat(t): the positions of the row-major Tensor t's non-zero elements (t of 1 or more
 * dims, at most limit * 16 elements, one of index_setup's five dtypes; a NaN is non-zero, -0.0
 * zero), as nonzero's (n, ndim) matrix is laid out (column by column: every position's index
 * in dim 0, then in dim 1, ...), a fresh int64 array of n * ndim; None where t does not qualify. */
static PyObject *py_nonzero_flat(PyObject *self, PyObject *arg)
{
    (void)self;
    if (adopt_tensor == NULL || ix_cinfo == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "nonzero_flat: adopt_types and index_setup were not called");
        return NULL;
    }
    ix_run t;
    int r = ix_read(arg, &t);
    if (r <= 0) {
        if (r < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    Py_ssize_t nd = t.nd, count = 0;
    if (nd == 0) {
        ix_release(&t);
        Py_RETURN_NONE;
    }
#define IX_COUNT(T)                                                                                   \
    for (Py_ssize_t k = 0; k < t.n; k++)                                                              \
        count += ((const T *)t.data)[k] != 0;
    switch (t.kind) {
    case 0: IX_COUNT(float) break;
    case 1: IX_COUNT(double) break;
    case 2: IX_COUNT(int32_t) break;
    case 3: IX_COUNT(int64_t) break;
    default: IX_COUNT(uint8_t) break;
    }
#undef IX_COUNT
    char *o;
    PyObject *flat = ix_new(count * nd, 3, &o);
    if (flat == NULL) {
        ix_release(&t);
        return NULL;
    }
    int64_t *out = (int64_t *)o;
    Py_ssize_t cnt[IX_DIMS] = {0}, j = 0;
#define IX_WRITE(T)                                                                                   \
    for (Py_ssize_t k = 0; k < t.n; k++) {                                                            \
        if (((const T *)t.data)[k] != 0) {                                                            \
            for (Py_ssize_t e = 0; e < nd; e++)                                                       \
                out[e * count + j] = cnt[e];                                                          \
            j++;                                                                                      \
        }                                                                                             \
        for (Py_ssize_t e = nd - 1; e >= 0; e--) {                                                    \
            if (++cnt[e] < t.shape[e])                                                                \
                break;                                                                                \
            cnt[e] = 0;                                                                               \
        }                                                                                             \
    }
    switch (t.kind) {
    case 0: IX_WRITE(float) break;
    case 1: IX_WRITE(double) break;
    case 2: IX_WRITE(int32_t) break;
    case 3: IX_WRITE(int64_t) break;
    default: IX_WRITE(uint8_t) break;
    }
#undef IX_WRITE
    ix_release(&t);
    return flat;
}

/* masked_tensors(op, self, mask, x): the out-of-place masked_fill (op 0: x a number, as
 * ix_fill_value takes it) / masked_scatter (op 1: x a row-major Tensor of self's dtype, any
 * shape, with at least as many elements as the mask has True values, read in order) of a
 * non-empty row-major self (one of the ops' four dtypes) and a row-major bool mask of exactly
 * self's shape, at most limit * 16 elements: a copy of self written where the mask is True, in
 * row-major order (np.putmask / the boolean write). None where a precondition fails. */
static PyObject *py_masked_tensors(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    ix_call c; /* (c.s: self, c.ix: the mask, c.v: the source) */
    if (ix_start(nargs, 4, "masked_tensors(op, self, mask, x)", &c) < 0)
        return NULL;
    long op = PyLong_AsLong(args[0]);
    if (op == -1 && PyErr_Occurred())
        return NULL;
    int r = ix_read2(args[1], &c.s, args[2], &c.ix);
    if (r <= 0)
        return ix_close(&c, r);
    int kind = c.s.kind;
    Py_ssize_t n = c.s.n;
    if ((op != 0 && op != 1) || kind > 3 || c.ix.kind != 4 || n < 1 || c.ix.nd != c.s.nd)
        return ix_close(&c, 0);
    for (Py_ssize_t e = 0; e < c.s.nd; e++)
        if (c.ix.shape[e] != c.s.shape[e])
            return ix_close(&c, 0);
    const uint8_t *m = (const uint8_t *)c.ix.data;
    ix_value value;
    if (op == 0) {
        if (!ix_fill_value(kind, args[3], &value))
            return ix_close(&c, 0);
    } else {
        r = ix_read(args[3], &c.v);
        if (r <= 0)
            return ix_close(&c, r);
        Py_ssize_t count = 0;
        for (Py_ssize_t k = 0; k < n; k++)
            count += m[k] != 0;
        if (c.v.kind != kind || count > c.v.n)
            return ix_close(&c, 0); /* (too few source values: the general path's error) */
    }
    char *o = ix_fresh(&c, n, 1);
    if (o == NULL)
        return ix_close(&c, -1);
    Py_ssize_t isz = ix_size[kind];
    if (op == 0) {
        for (Py_ssize_t k = 0; k < n; k++)
            if (m[k])
                memcpy(o + k * isz, &value, (size_t)isz);
    } else {
        const char *src = c.v.data;
        for (Py_ssize_t k = 0; k < n; k++)
            if (m[k]) {
                memcpy(o + k * isz, src, (size_t)isz);
                src += isz;
            }
    }
    c.shape = c.s.shape_obj;
    Py_INCREF(c.shape);
    return ix_close(&c, 1);
}

/* window_scatter(x, src, window): the view scatters' result (slice_scatter, select_scatter,
 * diagonal_scatter, as_strided_scatter) for a row-major x (one of index_setup's five dtypes, at
 * most limit * 16 elements, its whole storage at most 16 times that) and a row-major src of x's
 * dtype and exactly the window's shape: a copy of x's whole storage, src's elements written at
 * the window's positions (window: a Layout over x's storage, shape / strides / offset in
 * elements), viewed with x's own layout (the same object: layouts are values). None where a
 * precondition fails: a negative stride, a window reaching past the storage, or one whose
 * positions are not provably distinct (each dim's stride at least the extent of the dims of
 * smaller stride), and nothing made. */
static PyObject *py_window_scatter(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    ix_call c; /* (c.s: x, c.v: src) */
    if (ix_start(nargs, 3, "window_scatter(x, src, window)", &c) < 0)
        return NULL;
    int r = ix_read2(args[0], &c.s, args[1], &c.v);
    if (r <= 0)
        return ix_close(&c, r);
    Py_ssize_t isz = ix_size[c.s.kind], total = c.s.view.len / isz, nd = 0;
    if (c.v.kind != c.s.kind || total > ix_limit * 256)
        return ix_close(&c, 0);
    Py_ssize_t shape[IX_DIMS], strides[IX_DIMS], offset;
    {
        PyObject *ws = PyObject_GetAttr(args[2], s_layout_shape), *wt = NULL, *wo = NULL;
        if (ws != NULL)
            wt = PyObject_GetAttr(args[2], s_layout_strides);
        if (wt != NULL)
            wo = PyObject_GetAttr(args[2], s_layout_offset);
        if (wo == NULL)
            r = -1;
        else if (!PyTuple_CheckExact(ws) || !PyTuple_CheckExact(wt) || !PyLong_CheckExact(wo)
                 || (nd = PyTuple_GET_SIZE(ws)) > IX_DIMS || PyTuple_GET_SIZE(wt) != nd || nd != c.v.nd)
            r = 0;
        else {
            offset = PyLong_AsSsize_t(wo);
            for (Py_ssize_t e = 0; e < nd && r > 0; e++) {
                shape[e] = PyLong_AsSsize_t(PyTuple_GET_ITEM(ws, e));
                strides[e] = PyLong_AsSsize_t(PyTuple_GET_ITEM(wt, e));
                if (PyErr_Occurred()) {
                    PyErr_Clear();
                    r = 0;
                } else if (shape[e] != c.v.shape[e] || strides[e] < 0)
                    r = 0;
            }
            if (r > 0 && (offset == -1 && PyErr_Occurred())) {
                PyErr_Clear();
                r = 0;
            }
        }
        Py_XDECREF(ws);
        Py_XDECREF(wt);
        Py_XDECREF(wo);
        if (r <= 0)
            return ix_close(&c, r);
    }
    /* bounds, and distinct positions: dims by increasing stride, each at least the extent below */
    Py_ssize_t last = offset, order[IX_DIMS], used = 0;
    if (offset < 0)
        return ix_close(&c, 0);
    for (Py_ssize_t e = 0; e < nd; e++) {
        if (shape[e] == 0) {
            last = -1; /* (nothing to write) */
            break;
        }
        last += (shape[e] - 1) * strides[e];
        if (shape[e] > 1)
            order[used++] = e;
    }
    if (last >= total)
        return ix_close(&c, 0);
    if (last >= 0) {
        for (Py_ssize_t i = 1; i < used; i++) /* (insertion sort: a few dims) */
            for (Py_ssize_t j = i; j > 0 && strides[order[j]] < strides[order[j - 1]]; j--) {
                Py_ssize_t t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        Py_ssize_t extent = 1;
        for (Py_ssize_t i = 0; i < used; i++) {
            if (strides[order[i]] < extent)
                return ix_close(&c, 0);
            extent = strides[order[i]] * (shape[order[i]] - 1) + extent;
        }
    }
    char *o;
    c.flat = ix_new(total, c.s.kind, &o);
    if (c.flat == NULL)
        return ix_close(&c, -1);
    memcpy(o, c.s.view.buf, (size_t)(total * isz));
    if (last >= 0) {
        Py_ssize_t cnt[IX_DIMS] = {0}, at = offset;
        const char *src = c.v.data;
        for (Py_ssize_t k = 0; k < c.v.n; k++, src += isz) {
            memcpy(o + at * isz, src, (size_t)isz);
            for (Py_ssize_t e = nd - 1; e >= 0; e--) {
                if (++cnt[e] < shape[e]) {
                    at += strides[e];
                    break;
                }
                at -= (shape[e] - 1) * strides[e];
                cnt[e] = 0;
            }
        }
    }
    PyObject *call[3] = {c.flat, SLOT(args[0], off_layout), SLOT(args[0], off_dtype)};
    PyObject *answer = py_adopt(NULL, call, 3);
    ix_free(&c);
    return answer;
}

/* isin_tensors(elements, test, invert): isin of row-major elements (1 to limit / 4 of them) and a
 * row-major non-empty test of the same dtype (one of the ops' four) with at most 64 elements:
 * whether each element equals one of test's (C's ==: NaN meets nothing, -0.0 meets 0.0; with
 * invert, whether none does), a bool Tensor of elements' shape; None where a precondition
 * fails. (A short scan per element; a longer test is sorted by NumPy on the Python path.) */
#define IX_ISIN_TEST 64
static PyObject *py_isin_tensors(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    ix_call c; /* (c.s: the elements, c.v: the test elements) */
    if (ix_start(nargs, 3, "isin_tensors(elements, test, invert)", &c) < 0)
        return NULL;
    int invert = PyObject_IsTrue(args[2]);
    if (invert < 0)
        return NULL;
    int r = ix_read2(args[0], &c.s, args[1], &c.v);
    if (r <= 0)
        return ix_close(&c, r);
    Py_ssize_t n = c.s.n, m = c.v.n;
    if (c.s.kind > 3 || c.v.kind != c.s.kind || n < 1 || n > ix_limit / 4 || m < 1 || m > IX_ISIN_TEST)
        return ix_close(&c, 0);
    char *o;
    c.flat = ix_new(n, 4, &o);
    if (c.flat == NULL)
        return ix_close(&c, -1);
#define IX_ISIN(T)                                                                                    \
    {                                                                                                 \
        const T *a = (const T *)c.s.data, *b = (const T *)c.v.data;                                   \
        for (Py_ssize_t k = 0; k < n; k++) {                                                          \
            int hit = 0;                                                                              \
            for (Py_ssize_t j = 0; j < m; j++)                                                        \
                hit |= a[k] == b[j];                                                                  \
            o[k] = (char)(hit ^ invert);                                                              \
        }                                                                                             \
    }
    switch (c.s.kind) {
    case 0: IX_ISIN(float) break;
    case 1: IX_ISIN(double) break;
    case 2: IX_ISIN(int32_t) break;
    default: IX_ISIN(int64_t) break;
    }
#undef IX_ISIN
    c.shape = c.s.shape_obj;
    Py_INCREF(c.shape);
    c.s.kind = 4; /* (the result's dtype: bool) */
    return ix_close(&c, 1);
}

#include "_put_scatter.h"
#include "_front.h"
#include "_fresh_fill.h"
#include "_borrow_memo.h"
#include "_any_nan.h"

static PyMethodDef methods[] = {
    {"count_write", (PyCFunction)(void (*)(void))count_write, METH_FASTCALL,
     "count_write(counters, t): count an in-place write to the exact Tensor t in C where grad_mode.bump would "
     "only add one to its version (True), else False with nothing changed (bump counts it)."},
    {"entry_front", entry_front_new, METH_VARARGS,
     "entry_front(fallback, fwd, mode, plain, aliases, min_args, max_args, open[, state, direct]): an op entry's plain "
     "call in C (see _front.h)."},
    {"front", front_new, METH_VARARGS,
     "front(fallback, arity, table, cinfo, open, quiet[, empty, enabled, blocks]): an elementwise op's common call in C (see _front.h)."},
    {"fresh", (PyCFunction)(void (*)(void))py_fresh, METH_FASTCALL,
     "fresh(sizes, plans, limit, maker, np_dtype, value, dtype): a factory's common call, a fresh row-major\n"
     "Tensor (maker(count, np_dtype), filled with value unless None); None where it does not apply (see _fresh_fill.h)."},
    {"borrow_memo", (PyCFunction)(void (*)(void))py_borrow_memo, METH_FASTCALL,
     "borrow_memo(array, plans, pinned): from_numpy's common call, a Tensor over an exact ndarray whose\n"
     "(shape, strides, dtype) plans remembers as dense; None where it does not apply (see _borrow_memo.h)."},
    {"any_nan", py_any_nan, METH_O,
     "any_nan(run): whether a C-contiguous aligned float32/float64 buffer holds a NaN; None for another buffer."},
    {"adopt_types", py_adopt_types, METH_VARARGS,
     "adopt_types(tensor_class, storage_class): the classes adopt builds (their object slots)."},
    {"adopt", (PyCFunction)(void (*)(void))py_adopt, METH_FASTCALL,
     "adopt(array, layout, dtype): a new Tensor over a new Storage of array (strided.dispatch.adopted)."},
    {"node_types", py_node_types, METH_VARARGS,
     "node_types(node_class, meta_class): the classes new_node and new_meta build (their object slots)."},
    {"new_node", (PyCFunction)(void (*)(void))py_new_node, METH_FASTCALL,
     "new_node(cls, name, rule, next_functions, ctx, saved): a Node (strided.autograd.graph.new_node)."},
    {"new_meta", py_new_meta, METH_O,
     "new_meta(grad_fn): a Meta of a result of grad_fn (strided.autograd.graph.new_meta)."},
    {"record_edges", (PyCFunction)(void (*)(void))py_record_edges, METH_FASTCALL,
     "record_edges(inputs, edge, no_edge): None, or the (edges, ctx) of a node over inputs\n"
     "(strided.autograd.function.make_node's loop)."},
    {"acc_types", py_acc_types, METH_VARARGS,
     "acc_types(accumulate_class, name): the AccumulateGrad class record_edges and make_node make for a leaf."},
    {"make_setup", py_make_setup, METH_VARARGS,
     "make_setup(edge, no_edge, inference, vdata, own, named_saved): what make_node reads."},
    {"make_node", (PyCFunction)(void (*)(void))py_make_node, METH_FASTCALL,
     "make_node(spec, n_outputs, output): strided.autograd.function.make_node's Node (or None) while no\n"
     "inference storage, version counter or .data counter exists; else NotImplemented (nothing done)."},
    {"recorded_fallback", py_recorded_fallback, METH_O,
     "recorded_fallback(fn): the Python body recorded calls until recorded_setup (strided.gradients.recorded)."},
    {"recorded_setup", py_recorded_setup, METH_VARARGS,
     "recorded_setup(opdefs, grad_mode, attach_fresh, make_node, attached, release_output, release_defaults):\n"
     "what recorded reads; recorded then takes attach_fresh's common steps itself."},
    {"recorded_use", py_recorded_use, METH_O,
     "recorded_use(flag): whether recorded takes its own steps (True) or calls the Python body; the previous flag."},
    {"recorded", (PyCFunction)(void (*)(void))py_recorded, METH_FASTCALL,
     "recorded(name, out, args): strided.gradients.recorded's answer (a fast path's fresh result with its node)."},
    {"engine_loop", (PyCFunction)(void (*)(void))py_engine_loop, METH_FASTCALL,
     "engine_loop(ready, buffers, deps, done, retain_graph, fit, skip, add): the backward loop's plain nodes\n"
     "(strided.autograd.engine.run's body), until ready is empty or its top node needs the Python body."},
    {"join_setup", py_join_setup, METH_VARARGS,
     "join_setup(cinfo, empty, limit): the plan table, numpy.empty and the largest result join_tensors makes."},
    {"join_tensors", (PyCFunction)(void (*)(void))py_join_tensors, METH_FASTCALL,
     "join_tensors(tensors, d, stacked): fast_join.flat_join(tensors, None, d, stacked)'s result where every\n"
     "input passes its checks and the result is small; else None (nothing made: flat_join decides)."},
    {"apply2d", py_apply2d, METH_VARARGS,
     "apply2d(op, itemsize, nb, na, out, out_row, x, x_stride, x_across, y, y_stride, y_across, widen=0):\n"
     "an elementwise + - * / (op 0-3) or sqrt (4) of float32/float64 planes whose inputs run along or\n"
     "across the output's rows, in cache-blocked register tiles (strides in bytes); widen (itemsize 8\n"
     "only): bit 0 x, bit 1 y is float32, read as float64."},
    {"gather", (PyCFunction)(void (*)(void))py_gather, METH_FASTCALL,
     "gather(array, offset, shape, strides, dtype): the layout's elements (strides in elements) over\n"
     "array's buffer, copied row-major into a fresh 1-D array of dtype; None where it does not apply."},
    {"copy", py_copy, METH_VARARGS,
     "copy(dst_address, src_address, itemsize, shape, dst_strides, src_strides): a cache-blocked\n"
     "copy of one layout's elements (strides in bytes, dims in the destination's memory order)."},
#if HAVE_AVX512_BLOCKS || HAVE_AVX2_BLOCKS
    {"pair_join", py_pair_join, METH_VARARGS,
     "pair_join(out, itemsize, n0, n1, a, a_stride1, b, b_stride1): the dense (n0, n1, 2) result interleaving\n"
     "two transposed (n0, n1) inputs of 4- or 8-byte elements (stride itemsize along dim 0; strides in bytes),\n"
     "in one pass; False where neither the AVX-512 nor the AVX2 blocks are on (nothing written)."},
#endif
    {"join", (PyCFunction)(void (*)(void))py_join, METH_FASTCALL,
     "join(out, runs, outer): each of the C-contiguous runs read as outer equal rows; row r of out\n"
     "is every run's row r in order (bytes as they are; out holds exactly the runs' bytes)."},
    {"index_setup", py_index_setup, METH_VARARGS,
     "index_setup(cinfo, empty, dtypes, np_dtypes, limit): what along_tensors and slices_tensors need."},
    {"along_tensors", (PyCFunction)(void (*)(void))py_along_tensors, METH_FASTCALL,
     "along_tensors(op, self, dim, index, src): gather (op 0) / the out-of-place scatter (1), scatter_add (2),\n"
     "scatter_reduce prod (3; +4 include_self=False) of small row-major operands whose index is all in range;\n"
     "None where a precondition fails (nothing made)."},
    {"slices_tensors", (PyCFunction)(void (*)(void))py_slices_tensors, METH_FASTCALL,
     "slices_tensors(op, self, dim, index, source): index_select (0) / the out-of-place index_copy (1),\n"
     "index_add (2), index_reduce prod (3; +4 include_self=False), index_fill (8, source a float / int), in place\n"
     "(17, 18: ops 1, 2 into self, True where done) of\n"
     "small row-major operands whose index is all in range; None where a precondition fails."},
    {"search_tensors", (PyCFunction)(void (*)(void))py_search_tensors, METH_FASTCALL,
     "search_tensors(seq, values, right): searchsorted of small row-major values in a sorted NaN-free row-major\n"
     "1-D seq of their dtype, as an int64 Tensor; None where a precondition fails."},
    {"search_runs", (PyCFunction)(void (*)(void))py_search_runs, METH_FASTCALL,
     "search_runs(seq, values, out, right) -> bool: searchsorted of the values run in a sorted NaN-free run of\n"
     "their dtype (float32/float64/int32/int64) into the int64 run out, as search_tensors bisects; False where a\n"
     "buffer does not qualify."},
    {"nonzero_flat", py_nonzero_flat, METH_O,
     "nonzero_flat(t): the non-zero positions of a small row-major tensor of 1 or more dims, column by column\n"
     "(nonzero's (n, ndim) matrix with strides (1, n)) in a fresh int64 array; None where t does not qualify."},
    {"nonzero_rows", (PyCFunction)(void (*)(void))py_nonzero_rows, METH_FASTCALL,
     "nonzero_rows(x, out) -> int: the non-zero count of a C-contiguous float32/float64/int32/int64/bool x (out None),\n"
     "or its positions written column by column into the int64 out of count * ndim; -1 where they do not qualify."},
    {"unravel_rows", (PyCFunction)(void (*)(void))py_unravel_rows, METH_FASTCALL,
     "unravel_rows(flat, dims, out) -> bool: unravel_index's coordinates of the C-contiguous int64 flat into the\n"
     "int64 out of len(flat) * len(dims), each index's side by side (floor semantics: wraps as PyTorch's);\n"
     "False where they do not qualify (see _unravel.h)."},
    {"masked_fill_run", (PyCFunction)(void (*)(void))py_masked_fill_run, METH_FASTCALL,
     "masked_fill_run(x, mask, out, fill) -> bool: out = fill where mask, else x, over three C-contiguous runs\n"
     "(1/2/4/8-byte items, a bool mask, fill one element of out's dtype), branchless; False where they do not qualify."},
    {"masked_tensors", (PyCFunction)(void (*)(void))py_masked_tensors, METH_FASTCALL,
     "masked_tensors(op, self, mask, x): the out-of-place masked_fill (0) / masked_scatter (1) of a small row-major\n"
     "self and bool mask of its shape; None where a precondition fails."},
    {"window_scatter", (PyCFunction)(void (*)(void))py_window_scatter, METH_FASTCALL,
     "window_scatter(x, src, window): a copy of small row-major x's storage with src written at the distinct\n"
     "positions of the Layout window, viewed as x; None where a precondition fails."},
    {"put_setup", py_put_setup, METH_O, "put_setup(dense_layout): what put_tensors needs besides index_setup."},
    {"put_tensors", (PyCFunction)(void (*)(void))py_put_tensors, METH_FASTCALL,
     "put_tensors(self, index, source, accumulate, inplace): put_ (inplace True: self written, True answered) or\n"
     "put (a new Tensor) of a row-major or permuted dense self at a row-major int64 index all in range, from a\n"
     "row-major source of self's dtype; None where a precondition fails (nothing made or written)."},
    {"isin_tensors", (PyCFunction)(void (*)(void))py_isin_tensors, METH_FASTCALL,
     "isin_tensors(elements, test, invert): isin of small row-major tensors of one dtype (test: at most 64\n"
     "elements) as a bool Tensor; None where a precondition fails."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "strided.kernels._copykernel",
    "A cache-blocked strided copy (see strided.kernels.native).", -1, methods,
};

PyMODINIT_FUNC PyInit__copykernel(void)
{
#if HAVE_AVX512_BLOCKS
    __builtin_cpu_init();
    const char *isa = getenv("STRIDED_NATIVE_COPY_ISA"); /* "sse": the SSE blocks only, "avx2": the AVX2 ones (tests) */
    use_avx512_blocks = __builtin_cpu_supports("avx512f") && !(isa != NULL && (strcmp(isa, "sse") == 0 || strcmp(isa, "avx2") == 0));
#endif
#if HAVE_AVX2_BLOCKS
    {
        /* "avx2": these blocks even where the AVX-512 ones would run (tests) */
        const char *isa2 = getenv("STRIDED_NATIVE_COPY_ISA");
        __builtin_cpu_init();
        use_avx2_blocks = __builtin_cpu_supports("avx2") && !(isa2 != NULL && strcmp(isa2, "sse") == 0);
#if HAVE_AVX512_BLOCKS
        use_avx2_blocks = use_avx2_blocks && !use_avx512_blocks;
#endif
    }
#endif
    if (PyType_Ready(&Front_Type) < 0)
        return NULL;
    front_names[0] = PyUnicode_InternFromString("shape");
    front_names[1] = PyUnicode_InternFromString("strides");
    front_names[2] = PyUnicode_InternFromString("offset");
    front_names[3] = PyUnicode_InternFromString("used");
    front_names[4] = PyUnicode_InternFromString("dim");
    if (front_names[0] == NULL || front_names[1] == NULL || front_names[2] == NULL || front_names[3] == NULL
        || front_names[4] == NULL)
        return NULL;
    return PyModule_Create(&module);
}
