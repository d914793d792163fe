/* Included once by _copykernel.c (after the AVX-512 blocks): pair_join, the join whose result
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
 * where the AVX-512 blocks are off
 *   out: the address of a dense (n0, n1, 2) result of itemsize-byte elements (4 or 8; row-major);
 *   a, b: the addresses of the two (n0, n1) inputs, each with stride itemsize along dim 0 and the
 *   given byte stride along dim 1. The caller guarantees the addresses (arrays it holds, aligned
 *   to their elements), the result fresh memory that no input overlaps, and n0, n1 >= 0. */
#if HAVE_AVX512_BLOCKS
#define PAIR_NT_BYTES (1 << 20)
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
        /* the blocks start where the first input's loads and the result's stores fall on whole  \
         * cache lines (when the layout allows): ib rows and jb columns in */                     \
        Py_ssize_t ib = 0, jb = 0;                                                                \
        if (((uintptr_t)s0 & (SZ - 1)) == 0 && ssa0 % 64 == 0)                                    \
            ib = (Py_ssize_t)((64 - ((uintptr_t)s0 & 63)) & 63) / SZ;                             \
        if (((uintptr_t)d & (2 * SZ - 1)) == 0 && dsb % 64 == 0)                                  \
            jb = (Py_ssize_t)((64 - ((uintptr_t)d & 63)) & 63) / (2 * SZ);                        \
        if (ib > nb) ib = nb;                                                                     \
        if (jb > na) jb = na;                                                                     \
        Py_ssize_t ie = ib + (nb - ib) / BK * BK, je = jb + (na - jb) / BK * BK;                  \
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
        /* the edges around the blocks, column by column (each input's column is its row: read  \
         * in order): the rows before ib and from ie in every column, the columns before jb and  \
         * from je */                                                                             \
        for (Py_ssize_t j = 0; j < na; j++) {                                                     \
            int edge = j < jb || j >= je;                                                         \
            for (Py_ssize_t i = 0; i < nb; i++) {                                                 \
                if (!edge && i == ib) i = ie;                                                     \
                if (i >= nb) break;                                                               \
                memcpy(d + i * dsb + j * 2 * SZ, s0 + i * SZ + j * ssa0, SZ);                     \
                memcpy(d + i * dsb + j * 2 * SZ + SZ, s1 + i * SZ + j * ssa1, SZ);                \
            }                                                                                     \
        }                                                                                         \
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
    if (!use_avx512_blocks)  /* (a CPU without them, or STRIDED_NATIVE_COPY_ISA=sse) */
        Py_RETURN_FALSE;
    Py_BEGIN_ALLOW_THREADS
    if (itemsize == 4)
        pair_plane4((char *)o, (const char *)a, (const char *)b, n0, n1, n1 * 8, sa, sb);
    else
        pair_plane8((char *)o, (const char *)a, (const char *)b, n0, n1, n1 * 16, sa, sb);
    _mm_sfence();  /* (the streaming stores ordered before the other threads' view of the result) */
    Py_END_ALLOW_THREADS
    Py_RETURN_TRUE;
}
#endif
