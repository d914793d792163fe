/* Included once by _copykernel.c (after HAVE_SSE2 is set): the copy of a plane whose destination
 * interleaves two source rows, element j of row 0 then element j of row 1 (na == 2, the
 * destination dense: dsb == 2 * itemsize, dsa == itemsize; each source row unit-stride, ssb ==
 * itemsize, the second ssa bytes after the first). unfold(0, 2, 1)'s copy of a row-major matrix
 * (its windows' pairs), a stack of two along a new last dim.
 *
 * Why: the general plane copy transposes 2-wide blocks through its tile code's edges, element
 * by element: unfold_copy(x, 0, 2, 1) of a (1024, 1024) float32, 2^21 elements written, ~1.9 ms
 * (PyTorch ~1.9). Here 16 bytes of each row are loaded and unpacked into 32 bytes of output:
 * the same bits (integer unpacks move them, no float operation touches a NaN's payload). */
#if HAVE_SSE2
static void interleave2_4(char *d, const char *s0, const char *s1, Py_ssize_t nb)
{
    Py_ssize_t j = 0;
    for (; j + 4 <= nb; j += 4) {
        __m128i a = _mm_loadu_si128((const __m128i *)(s0 + j * 4));
        __m128i b = _mm_loadu_si128((const __m128i *)(s1 + j * 4));
        _mm_storeu_si128((__m128i *)(d + j * 8), _mm_unpacklo_epi32(a, b));
        _mm_storeu_si128((__m128i *)(d + j * 8 + 16), _mm_unpackhi_epi32(a, b));
    }
    for (; j < nb; j++) {
        memcpy(d + j * 8, s0 + j * 4, 4);
        memcpy(d + j * 8 + 4, s1 + j * 4, 4);
    }
}

static void interleave2_8(char *d, const char *s0, const char *s1, Py_ssize_t nb)
{
    Py_ssize_t j = 0;
    for (; j + 2 <= nb; j += 2) {
        __m128i a = _mm_loadu_si128((const __m128i *)(s0 + j * 8));
        __m128i b = _mm_loadu_si128((const __m128i *)(s1 + j * 8));
        _mm_storeu_si128((__m128i *)(d + j * 16), _mm_unpacklo_epi64(a, b));
        _mm_storeu_si128((__m128i *)(d + j * 16 + 16), _mm_unpackhi_epi64(a, b));
    }
    for (; j < nb; j++) {
        memcpy(d + j * 16, s0 + j * 8, 8);
        memcpy(d + j * 16 + 8, s1 + j * 8, 8);
    }
}

/* Whether copy_plane's arguments are such an interleave, and if so the copy done (1); else 0. */
static int interleave2(int itemsize, char *d, const char *s, Py_ssize_t nb, Py_ssize_t na,
                       Py_ssize_t dsb, Py_ssize_t dsa, Py_ssize_t ssb, Py_ssize_t ssa)
{
    if (na != 2 || dsa != itemsize || dsb != 2 * itemsize || ssb != itemsize)
        return 0;
    if (itemsize == 4)
        interleave2_4(d, s, s + ssa, nb);
    else if (itemsize == 8)
        interleave2_8(d, s, s + ssa, nb);
    else
        return 0;
    return 1;
}
#endif
