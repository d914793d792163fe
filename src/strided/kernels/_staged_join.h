/* Included once by _copykernel.c (after the AVX-512 blocks): pair_join4, the join whose result
 * interleaves two transposed 4-byte inputs element by element (dstack of two transposed float32
 * matrices, their stack along a new last dim), in one pass over both.
 *
 * Why: each input's copy into its slice of the result (every other element) is a copy whose
 * destination has gaps and whose source runs along another dim, which no register block of the
 * blocked copy fits: its plain plane walk takes ~5 ms for a transposed 1024 x 1024 float32 input,
 * the two passes the join made instead (the blocked copy into a dense temporary of the whole
 * input, then that into the slice) ~0.65 ms per input. Here both inputs' 16 x 16 blocks are
 * transposed in registers and each result row's 32 elements made of the two by permutes and
 * written whole. Shuffles and permutes move bits as they are (NaN payloads included).
 *
 * pair_join4(out, n0, n1, a, a_stride1, b, b_stride1) -> True, or False (nothing written) where the
 * AVX-512 blocks are off
 *   out: the address of a dense (n0, n1, 2) result of 4-byte elements (row-major); a, b: the
 *   addresses of the two (n0, n1) inputs, each with stride 4 bytes along dim 0 and the given
 *   byte stride along dim 1. The caller guarantees the addresses (arrays it holds, 4-byte
 *   aligned), the result fresh memory that no input overlaps, and n0, n1 >= 0. */
#if HAVE_AVX512_BLOCKS
#define PAIR_NT_BYTES (1 << 20)
/* Two transposed float32-sized inputs (elements (i, j) at s_q + i * 4 + j * ssa_q) interleaved
 * into the dense (nb, na, 2) result d (row i dsb bytes apart) in one pass: for each 16 x 16
 * block, the first input's rows transposed in registers and kept, the second's transposed, and
 * each result row's 32 elements made by two two-source permutes and two whole-register stores. */
AVX512 static void pair_plane4(char *d, const char *s0, const char *s1, Py_ssize_t nb, Py_ssize_t na,
                               Py_ssize_t dsb, Py_ssize_t ssa0, Py_ssize_t ssa1)
{
    const __m512i lo = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    const __m512i hi = _mm512_add_epi32(lo, _mm512_set1_epi32(8));
    /* the blocks start where the first input's loads and the result's stores fall on whole
     * cache lines (when the layout allows): ib rows and jb columns in */
    Py_ssize_t ib = 0, jb = 0;
    if (((uintptr_t)s0 & 3) == 0 && ssa0 % 64 == 0) ib = (Py_ssize_t)((64 - ((uintptr_t)s0 & 63)) & 63) / 4;
    if (((uintptr_t)d & 7) == 0 && dsb % 64 == 0) jb = (Py_ssize_t)((64 - ((uintptr_t)d & 63)) & 63) / 8;
    if (ib > nb) ib = nb;
    if (jb > na) jb = na;
    Py_ssize_t ie = ib + (nb - ib) / 16 * 16, je = jb + (na - jb) / 16 * 16;
    /* streaming stores where the result is large (each result line written whole, once): with
     * plain ones the result's lines, each in flight across 16 rows 8 KB or more apart, made the
     * pair 1.6-2x slower (1024 x 1024 float32: 0.72-0.76 ms streamed, 0.9-1.5 ms plain, on a
     * loaded 2-core machine; 2048 x 2048: 2.9 ms against 9) */
    int nt = nb * na * 8 >= PAIR_NT_BYTES && ((uintptr_t)(d + jb * 8) & 63) == 0 && dsb % 64 == 0;
    for (Py_ssize_t i0 = ib; i0 < ie; i0 += TILE_B(4)) {
        Py_ssize_t i1 = i0 + TILE_B(4) < ie ? i0 + TILE_B(4) : ie;
        for (Py_ssize_t j = jb; j < je; j += 16)
            for (Py_ssize_t i = i0; i < i1; i += 16) {
                __m512 a[16], b[16];
                for (int k = 0; k < 16; k++) a[k] = _mm512_loadu_ps(s0 + i * 4 + (j + k) * ssa0);
                tr16_ps(a);
                for (int k = 0; k < 16; k++) b[k] = _mm512_loadu_ps(s1 + i * 4 + (j + k) * ssa1);
                tr16_ps(b);
                if (nt) for (int k = 0; k < 16; k++) {
                    char *o = d + (i + k) * dsb + j * 8;
                    _mm512_stream_ps((float *)(void *)o, _mm512_permutex2var_ps(a[k], lo, b[k]));
                    _mm512_stream_ps((float *)(void *)(o + 64), _mm512_permutex2var_ps(a[k], hi, b[k]));
                } else for (int k = 0; k < 16; k++) {
                    char *o = d + (i + k) * dsb + j * 8;
                    _mm512_storeu_ps(o, _mm512_permutex2var_ps(a[k], lo, b[k]));
                    _mm512_storeu_ps(o + 64, _mm512_permutex2var_ps(a[k], hi, b[k]));
                }
            }
    }
    /* the edges around the blocks, column by column (each input's column is its row: read in
     * order): the rows before ib and from ie in every column, the columns before jb and from je */
    for (Py_ssize_t j = 0; j < na; j++) {
        int edge = j < jb || j >= je;
        for (Py_ssize_t i = 0; i < nb; i++) {
            if (!edge && i == ib) i = ie;
            if (i >= nb) break;
            memcpy(d + i * dsb + j * 8, s0 + i * 4 + j * ssa0, 4);
            memcpy(d + i * dsb + j * 8 + 4, s1 + i * 4 + j * ssa1, 4);
        }
    }
}

static PyObject *py_pair_join4(PyObject *self, PyObject *args)
{
    (void)self;
    uintptr_t o, a, b;
    Py_ssize_t n0, n1, sa, sb;
    if (!PyArg_ParseTuple(args, "O&nnO&nO&n:pair_join4", to_address, &o, &n0, &n1, to_address, &a, &sa,
                          to_address, &b, &sb))
        return NULL;
    if (n0 < 0 || n1 < 0) {
        PyErr_Format(PyExc_ValueError, "pair_join4: negative size %zd x %zd", n0, n1);
        return NULL;
    }
    if (!use_avx512_blocks)  /* (a CPU without them, or STRIDED_NATIVE_COPY_ISA=sse) */
        Py_RETURN_FALSE;
    Py_BEGIN_ALLOW_THREADS
    pair_plane4((char *)o, (const char *)a, (const char *)b, n0, n1, n1 * 8, sa, sb);
    _mm_sfence();  /* (the streaming stores ordered before the other threads' view of the result) */
    Py_END_ALLOW_THREADS
    Py_RETURN_TRUE;
}
#endif
