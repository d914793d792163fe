/* Included once by _copykernel.c (after the AVX-512 and AVX2 blocks): pair_join, the join whose result
 * interleaves two transposed inputs of 4- or 8-byte elements element by element (dstack of two
 * transposed float32 or float64 matrices, their stack along a new last dim), in one pass over both.
 *
 * Why: each input's copy into its slice of the result (every other element) is a copy whose
 * destination has gaps and whose source runs along another dim, which no register block of the
 * blocked copy fits: its plain plane walk takes ~5 ms for a transposed 1024 x 1024 float32 input,
 * the two passes the join made instead (the blocked copy into a dense temporary of the whole
 * input, then that into the slice) ~0.65 ms per input. Here both inputs' 16 x 16 blocks are
 * transposed in registers and each result row's 32 (16) elements made of the two by permutes and
 * written whole. Shuffles and permutes move bits as they are (NaN payloads included).
 *
 * pair_join(out, itemsize, n0, n1, a, a_stride1, b, b_stride1) -> True, or False (nothing written)
 * where neither the AVX-512 nor the AVX2 blocks are on
 *   out: the address of a dense (n0, n1, 2) result of itemsize-byte elements (4 or 8; row-major);
 *   a, b: the addresses of the two (n0, n1) inputs, each with stride itemsize along dim 0 and the
 *   given byte stride along dim 1. The caller guarantees the addresses (arrays it holds, aligned
 *   to their elements), the result fresh memory that no input overlaps, and n0, n1 >= 0. */
#if HAVE_AVX512_BLOCKS || HAVE_AVX2_BLOCKS
#define PAIR_NT_BYTES (1 << 20)
/* Where a pair plane's blocks start and end: ib rows and jb columns in, so that the first input's
 * loads and the result's stores fall on whole cache lines (when the layout allows), to ie and je
 * (whole BK x BK blocks). */
static void pair_heads(Py_ssize_t sz, Py_ssize_t bk, const char *d, const char *s0, Py_ssize_t nb, Py_ssize_t na,
                       Py_ssize_t dsb, Py_ssize_t ssa0, Py_ssize_t *ib, Py_ssize_t *ie, Py_ssize_t *jb, Py_ssize_t *je)
{
    Py_ssize_t i = 0, j = 0;
    if (((uintptr_t)s0 & (sz - 1)) == 0 && ssa0 % 64 == 0)
        i = (Py_ssize_t)((64 - ((uintptr_t)s0 & 63)) & 63) / sz;
    if (((uintptr_t)d & (2 * sz - 1)) == 0 && dsb % 64 == 0)
        j = (Py_ssize_t)((64 - ((uintptr_t)d & 63)) & 63) / (2 * sz);
    if (i > nb) i = nb;
    if (j > na) j = na;
    *ib = i; *jb = j;
    *ie = i + (nb - i) / bk * bk;
    *je = j + (na - j) / bk * bk;
}

/* The edges around a pair plane's blocks, column by column (each input's column is its row: read
 * in order): the rows before ib and from ie in every column, the columns before jb and from je. */
static void pair_edges(Py_ssize_t sz, char *d, const char *s0, const char *s1, Py_ssize_t nb, Py_ssize_t na,
                       Py_ssize_t dsb, Py_ssize_t ssa0, Py_ssize_t ssa1, Py_ssize_t ib, Py_ssize_t ie, Py_ssize_t jb,
                       Py_ssize_t je)
{
    for (Py_ssize_t j = 0; j < na; j++) {
        int edge = j < jb || j >= je;
        for (Py_ssize_t i = 0; i < nb; i++) {
            if (!edge && i == ib) i = ie;
            if (i >= nb) break;
            memcpy(d + i * dsb + j * 2 * sz, s0 + i * sz + j * ssa0, (size_t)sz);
            memcpy(d + i * dsb + j * 2 * sz + sz, s1 + i * sz + j * ssa1, (size_t)sz);
        }
    }
}

#endif
#if HAVE_AVX512_BLOCKS
/* Two transposed inputs of SZ-byte elements (elements (i, j) at s_q + i * SZ + j * ssa_q)
 * interleaved into the dense (nb, na, 2) result d (row i dsb bytes apart) in one pass: for each
 * BK x BK block (one 64-byte register per row), both inputs' rows transposed in registers, and
 * each result row's 2 * BK elements made by two two-source permutes (LO, HI: element j of the
 * first input, then of the second) and two whole-register stores. */
#define DEFINE_PAIR_PLANE(NAME, SZ, BK, T, LOAD, TR, PERM, STORE, STREAM, LO, HI)                     \
    AVX512 static void NAME(char *d, const char *s0, const char *s1, Py_ssize_t nb, Py_ssize_t na, \
                            Py_ssize_t dsb, Py_ssize_t ssa0, Py_ssize_t ssa1)                     \
    {                                                                                             \
        const __m512i lo = LO, hi = HI;                                                           \
        Py_ssize_t ib, ie, jb, je;                                                                \
        pair_heads(SZ, BK, d, s0, nb, na, dsb, ssa0, &ib, &ie, &jb, &je);                          \
        /* streaming stores where the result is large (each result line written whole, once):   \
         * with plain ones the result's lines, each in flight across BK rows 8 KB or more apart, \
         * made the pair 1.6-2x slower (1024 x 1024 float32: 0.72-0.76 ms streamed, 0.9-1.5 ms  \
         * plain, on a loaded 2-core machine; 2048 x 2048: 2.9 ms against 9) */                  \
        int nt = nb * na * 2 * SZ >= PAIR_NT_BYTES && ((uintptr_t)(d + jb * 2 * SZ) & 63) == 0 && dsb % 64 == 0; \
        for (Py_ssize_t i0 = ib; i0 < ie; i0 += TILE_B(SZ)) {                                     \
            Py_ssize_t i1 = i0 + TILE_B(SZ) < ie ? i0 + TILE_B(SZ) : ie;                          \
            for (Py_ssize_t j = jb; j < je; j += BK)                                              \
                for (Py_ssize_t i = i0; i < i1; i += BK) {                                        \
                    T a[BK], b[BK];                                                               \
                    for (int k = 0; k < BK; k++) a[k] = LOAD(s0 + i * SZ + (j + k) * ssa0);       \
                    TR(a);                                                                        \
                    for (int k = 0; k < BK; k++) b[k] = LOAD(s1 + i * SZ + (j + k) * ssa1);       \
                    TR(b);                                                                        \
                    if (nt) for (int k = 0; k < BK; k++) {                                        \
                        char *o = d + (i + k) * dsb + j * 2 * SZ;                                 \
                        STREAM(o, PERM(a[k], lo, b[k]));                                          \
                        STREAM(o + 64, PERM(a[k], hi, b[k]));                                     \
                    } else for (int k = 0; k < BK; k++) {                                         \
                        char *o = d + (i + k) * dsb + j * 2 * SZ;                                 \
                        STORE(o, PERM(a[k], lo, b[k]));                                           \
                        STORE(o + 64, PERM(a[k], hi, b[k]));                                      \
                    }                                                                             \
                }                                                                                 \
        }                                                                                         \
        pair_edges(SZ, d, s0, s1, nb, na, dsb, ssa0, ssa1, ib, ie, jb, je);                        \
    }
#define PAIR_STREAM_PS(p, v) _mm512_stream_ps((float *)(void *)(p), v)
#define PAIR_STREAM_PD(p, v) _mm512_stream_pd((double *)(void *)(p), v)
#define PAIR_STORE_PS(p, v) _mm512_storeu_ps((float *)(void *)(p), v)
#define PAIR_STORE_PD(p, v) _mm512_storeu_pd((double *)(void *)(p), v)
#define PAIR_LOAD_PS(p) _mm512_loadu_ps((const void *)(p))
#define PAIR_LOAD_PD(p) _mm512_loadu_pd((const void *)(p))
/* (the permutes' indices, LO for the row's first half and HI for its second: element k of the
 * first input, then element k of the second; bit 4 (4-byte) or bit 3 (8-byte elements) of an
 * index picks the second register) */
DEFINE_PAIR_PLANE(pair_plane4, 4, 16, __m512, PAIR_LOAD_PS, tr16_ps, _mm512_permutex2var_ps, PAIR_STORE_PS,
                  PAIR_STREAM_PS, _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0),
                  _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8))
DEFINE_PAIR_PLANE(pair_plane8, 8, 8, __m512d, PAIR_LOAD_PD, tr8_pd, _mm512_permutex2var_pd, PAIR_STORE_PD,
                  PAIR_STREAM_PD, _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4))
#endif

#if HAVE_AVX2_BLOCKS
/* The pair with AVX2's blocks (a CPU without AVX-512F): 8 x 8 four-byte (4 x 4 eight-byte)
 * blocks of both inputs transposed in the in-lane form of block4y / block8y, half a block at a
 * time (four result rows of each input: eight registers), each result row's 2 * BK elements made
 * by unpacks and lane permutes and written as two 32-byte stores (one 64-byte line where the
 * result's rows lie on lines: the same line heads and edges as the AVX-512 plane). Plain stores:
 * streaming ones measured slower here (session 40, AMD EPYC AVX2, loaded 2-core machine, thread
 * CPU time, dstack of two transposed 1024 x 1024 inputs: float32 1.85 ms streamed, 1.13-1.39
 * plain, 3.4-3.6 before (each input's two copies); float64 3.1-3.3 streamed, 2.1-2.6 plain, 7.0-7.4
 * before). */
/* The four result rows (lane 0: source rows 0-3, lane 1: 4-7) of four registers' in-lane
 * transpose, as store4x8 stores them. */
AVX2 static inline AI2 void tr4x8(__m256 *o, __m256 r0, __m256 r1, __m256 r2, __m256 r3)
{
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    o[0] = _mm256_shuffle_ps(t0, t2, 0x44);
    o[1] = _mm256_shuffle_ps(t0, t2, 0xEE);
    o[2] = _mm256_shuffle_ps(t1, t3, 0x44);
    o[3] = _mm256_shuffle_ps(t1, t3, 0xEE);
}
AVX2 static inline AI2 void pair_block4y(char *o, Py_ssize_t dsb, const char *p, Py_ssize_t sa, const char *q,
                                         Py_ssize_t sb)
{
    for (int h = 0; h < 2; h++) {
        __m256 x[4], y[4];
        const char *pp = p + 16 * h, *qq = q + 16 * h;
        tr4x8(x, LOAD_HALVES_PS(pp, pp + 4 * sa), LOAD_HALVES_PS(pp + sa, pp + 5 * sa),
              LOAD_HALVES_PS(pp + 2 * sa, pp + 6 * sa), LOAD_HALVES_PS(pp + 3 * sa, pp + 7 * sa));
        tr4x8(y, LOAD_HALVES_PS(qq, qq + 4 * sb), LOAD_HALVES_PS(qq + sb, qq + 5 * sb),
              LOAD_HALVES_PS(qq + 2 * sb, qq + 6 * sb), LOAD_HALVES_PS(qq + 3 * sb, qq + 7 * sb));
        for (int c = 0; c < 4; c++) {
            __m256 lo = _mm256_unpacklo_ps(x[c], y[c]), hi = _mm256_unpackhi_ps(x[c], y[c]);
            char *r = o + (4 * h + c) * dsb;
            _mm256_storeu_ps((float *)(void *)r, _mm256_permute2f128_ps(lo, hi, 0x20));
            _mm256_storeu_ps((float *)(void *)(r + 32), _mm256_permute2f128_ps(lo, hi, 0x31));
        }
    }
}
AVX2 static inline AI2 void pair_block8y(char *o, Py_ssize_t dsb, const char *p, Py_ssize_t sa, const char *q,
                                         Py_ssize_t sb)
{
    for (int h = 0; h < 2; h++) {
        const char *pp = p + 16 * h, *qq = q + 16 * h;
        __m256d x0 = LOAD_HALVES_PD(pp, pp + 2 * sa), x1 = LOAD_HALVES_PD(pp + sa, pp + 3 * sa);
        __m256d y0 = LOAD_HALVES_PD(qq, qq + 2 * sb), y1 = LOAD_HALVES_PD(qq + sb, qq + 3 * sb);
        __m256d x[2] = {_mm256_unpacklo_pd(x0, x1), _mm256_unpackhi_pd(x0, x1)};
        __m256d y[2] = {_mm256_unpacklo_pd(y0, y1), _mm256_unpackhi_pd(y0, y1)};
        for (int c = 0; c < 2; c++) {
            __m256d lo = _mm256_unpacklo_pd(x[c], y[c]), hi = _mm256_unpackhi_pd(x[c], y[c]);
            char *r = o + (2 * h + c) * dsb;
            _mm256_storeu_pd((double *)(void *)r, _mm256_permute2f128_pd(lo, hi, 0x20));
            _mm256_storeu_pd((double *)(void *)(r + 32), _mm256_permute2f128_pd(lo, hi, 0x31));
        }
    }
}
#define DEFINE_PAIR_PLANE_Y(NAME, SZ, BK, BLOCK)                                                    \
    AVX2 static void NAME(char *d, const char *s0, const char *s1, Py_ssize_t nb, Py_ssize_t na,   \
                          Py_ssize_t dsb, Py_ssize_t ssa0, Py_ssize_t ssa1)                       \
    {                                                                                             \
        Py_ssize_t ib, ie, jb, je;                                                                \
        pair_heads(SZ, BK, d, s0, nb, na, dsb, ssa0, &ib, &ie, &jb, &je);                          \
        for (Py_ssize_t i0 = ib; i0 < ie; i0 += TILE_B(SZ)) {                                     \
            Py_ssize_t i1 = i0 + TILE_B(SZ) < ie ? i0 + TILE_B(SZ) : ie;                          \
            for (Py_ssize_t j = jb; j < je; j += BK)                                              \
                for (Py_ssize_t i = i0; i < i1; i += BK)                                          \
                    BLOCK(d + i * dsb + j * 2 * SZ, dsb, s0 + i * SZ + j * ssa0, ssa0,             \
                          s1 + i * SZ + j * ssa1, ssa1);                                          \
        }                                                                                         \
        pair_edges(SZ, d, s0, s1, nb, na, dsb, ssa0, ssa1, ib, ie, jb, je);                        \
    }
DEFINE_PAIR_PLANE_Y(pair_plane4_y, 4, 8, pair_block4y)
DEFINE_PAIR_PLANE_Y(pair_plane8_y, 8, 4, pair_block8y)
#endif

#if HAVE_AVX512_BLOCKS || HAVE_AVX2_BLOCKS
static PyObject *py_pair_join(PyObject *self, PyObject *args)
{
    (void)self;
    uintptr_t o, a, b;
    int itemsize;
    Py_ssize_t n0, n1, sa, sb;
    if (!PyArg_ParseTuple(args, "O&innO&nO&n:pair_join", to_address, &o, &itemsize, &n0, &n1, to_address, &a, &sa,
                          to_address, &b, &sb))
        return NULL;
    if (itemsize != 4 && itemsize != 8) {
        PyErr_Format(PyExc_ValueError, "pair_join: itemsize must be 4 or 8, not %d", itemsize);
        return NULL;
    }
    if (n0 < 0 || n1 < 0) {
        PyErr_Format(PyExc_ValueError, "pair_join: negative size %zd x %zd", n0, n1);
        return NULL;
    }
    int wide = 0;
#if HAVE_AVX512_BLOCKS
    wide = use_avx512_blocks;
#endif
#if HAVE_AVX2_BLOCKS
    if (!wide && use_avx2_blocks)
        wide = 2;
#endif
    if (!wide)  /* (a CPU without them, or STRIDED_NATIVE_COPY_ISA=sse) */
        Py_RETURN_FALSE;
    Py_BEGIN_ALLOW_THREADS
#if HAVE_AVX2_BLOCKS
    if (wide == 2) {
        if (itemsize == 4)
            pair_plane4_y((char *)o, (const char *)a, (const char *)b, n0, n1, n1 * 8, sa, sb);
        else
            pair_plane8_y((char *)o, (const char *)a, (const char *)b, n0, n1, n1 * 16, sa, sb);
    }
#endif
#if HAVE_AVX512_BLOCKS
    if (wide == 1) {
        if (itemsize == 4)
            pair_plane4((char *)o, (const char *)a, (const char *)b, n0, n1, n1 * 8, sa, sb);
        else
            pair_plane8((char *)o, (const char *)a, (const char *)b, n0, n1, n1 * 16, sa, sb);
    }
#endif
    _mm_sfence();  /* (the streaming stores ordered before the other threads' view of the result) */
    Py_END_ALLOW_THREADS
    Py_RETURN_TRUE;
}
#endif
