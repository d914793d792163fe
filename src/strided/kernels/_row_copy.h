/* Included once by _copykernel.c (after HAVE_SSE2 is set): copy_run, the copy of one contiguous
 * run of a row, for copy_line.
 *
 * Why not memcpy: glibc 2.36's memcpy of mid-size runs depends on where the destination lies
 * against the source. Measured (AMD EPYC, 1024 runs of 4 KB, rows reversed as flipud copies
 * them): ~89 us wherever dst - src is 0, 32 or 64 bytes past a multiple of 64, but ~186 us at
 * 16 and ~117 us at 48; NumPy's buffers start at any 16-byte boundary, so a flip or a strided
 * copy took one or the other by chance. Plain 16-byte loads and stores: 88-95 us for every
 * offset. (64-byte AVX-512 ones were used where the copy blocks use AVX-512, until measured
 * slower there, session 27, AMD EPYC (Zen 4), 512 runs of 4 KB 8 KB apart into warm memory at each
 * 16-byte offset: 61-65 us against 54-56 for these, glibc's memcpy 53-70; as_strided_copy of
 * those runs 64-76 -> 60-63 us, PyTorch 48-54: NumPy's buffers start 16 bytes past a line, so
 * every 64-byte load and store straddled two.) Runs past RUN_LOOP_MAX (a whole buffer at once) keep memcpy, whose large-copy
 * strategies are for them. */
#define RUN_LOOP_MIN 256
#define RUN_LOOP_MAX (64 * 1024)

#if HAVE_SSE2
/* The loop (not inlined: it would bloat the short-row loops that reach copy_run, join_rows's and
 * copy_line's; measured, a (16, 16) dstack 1.77 -> 1.89 us with it inlined there). */
static __attribute__((noinline)) void copy_run_loop(char *d, const char *s, size_t nbytes)
{
    size_t j = 0;
    for (; j + 64 <= nbytes; j += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(s + j));
        __m128i b = _mm_loadu_si128((const __m128i *)(s + j + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + j + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + j + 48));
        _mm_storeu_si128((__m128i *)(d + j), a);
        _mm_storeu_si128((__m128i *)(d + j + 16), b);
        _mm_storeu_si128((__m128i *)(d + j + 32), c);
        _mm_storeu_si128((__m128i *)(d + j + 48), e);
    }
    memcpy(d + j, s + j, nbytes - j);
}
#endif

/* One contiguous run: the loop for RUN_LOOP_MIN to RUN_LOOP_MAX bytes, memcpy otherwise. */
static inline void copy_run(char *d, const char *s, size_t nbytes)
{
#if HAVE_SSE2
    if (nbytes >= RUN_LOOP_MIN && nbytes <= RUN_LOOP_MAX) {
        copy_run_loop(d, s, nbytes);
        return;
    }
#endif
    memcpy(d, s, nbytes);
}
