/* complex_lerp(a, b, w, low, vec, out, piece, block, pair) -> int: PyTorch 2.13's complex lerp
 * with its bits (strided.ops.elementwise.binary_more._complex_lerp_compiled; its NumPy emulation,
 * _complex_lerp_emulated, is the reference the tests compare against). Included once by
 * _specialkernel.c after COMPLEX_FORMS (it calls mul_float / mul_double: the rounded and the fused
 * complex products of complex_forms' MUL) and FMA_CLONES.
 *
 * Each element, with d = b - a (componentwise):
 *   low (|w| < 0.5):   a + w * d          the product rounded at a vector place, fused elsewhere
 *   else, vector:      b + (w - 1) * d    rounded (PyTorch's vector blocks: fmadd(w - 1, d, b))
 *   else, scalar:      b - d * (1 - w)    fused (its scalar places)
 * low is PyTorch's is_lerp_weight_small (measured, x86-64): at a vector place Vectorized's
 * ``abs_2_() < 0.25`` (re * re + im * im, each step rounded), at a scalar place ``re * re + im *
 * im < 0.25`` contracted to fma(re, re, im * im); number weights and weight tensors alike.
 * ``a``, ``b``, ``w``: flat C-contiguous aligned complex buffers of one format ("Zf" or "Zd"), of
 * out's length or one element; ``low``: bool/uint8 of out's length or one element, the test at
 * the vector places given (the caller's pairs, for given places), or EMPTY: the kernel tests them
 * as above; ``vec``: uint8 of out's length or one element (non-zero: a vector place), or EMPTY:
 * then the places are one row-major run cut into
 * pieces of ``piece`` elements, each piece's first len - len % ``block`` elements vector places,
 * and with ``pair`` (an empty ``low``) each odd element of a piece's vector places takes its even
 * neighbour's test (AVX2's is_lerp_weight_small for complex<float> arranges its |w|^2 lanes by
 * pairs). ``out``:
 * C-contiguous, writable, overlapping no operand (the caller gives a fresh array). Returns a
 * positive number where some result has a NaN part, else 0 (a NaN's sign and payload are whichever operand the
 * compiler's instruction order passes on, not necessarily NumPy's steps': the caller redoes them),
 * or -1, nothing written, for any other buffer (misaligned included: the emulation then runs).
 * Built with -ffp-contract=off: the rounded forms stay rounded. */

/* (the vector places' selects and tests on the parts' bits, which GCC vectorizes: its
 * comparisons of floats stay branches under -ftrapping-math) */
static inline uint32_t lerp_bits_float(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
static inline float lerp_unbits_float(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
static inline uint64_t lerp_bits_double(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }
static inline double lerp_unbits_double(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }

#define COMPLEX_LERP(T, U, FMA, ABSMASK, INF)                                                      \
    /* (vector places over ``m`` elements, each operand's step 0 or 1, ``lo`` the tests as all-ones \
     * or zero masks: both ends computed, one taken by the mask; non-zero where a result has a NaN \
     * part) */                                                                                    \
    static inline __attribute__((always_inline)) U complex_lerp_rows_##T(                          \
        const T *restrict a, Py_ssize_t as, const T *restrict b, Py_ssize_t bs,                    \
        const T *restrict w, Py_ssize_t ws, const U *restrict lo, T *restrict o, Py_ssize_t m)     \
    {                                                                                              \
        U nans = 0;                                                                                \
        for (Py_ssize_t i = 0; i < m; i++) {                                                       \
            T ar = a[2 * i * as], ai = a[2 * i * as + 1], br = b[2 * i * bs], bi = b[2 * i * bs + 1]; \
            T wr = w[2 * i * ws], wi = w[2 * i * ws + 1];                                          \
            T dr = br - ar, di = bi - ai, pr, pi, qr, qi;                                          \
            mul_##T(wr, wi, dr, di, 0, &pr, &pi);                                                  \
            mul_##T(wr - (T)1, wi - (T)0, dr, di, 0, &qr, &qi);                                    \
            U k = lo[i];                                                                           \
            U re = (lerp_bits_##T(ar + pr) & k) | (lerp_bits_##T(br + qr) & ~k);                   \
            U im = (lerp_bits_##T(ai + pi) & k) | (lerp_bits_##T(bi + qi) & ~k);                   \
            o[2 * i] = lerp_unbits_##T(re);                                                        \
            o[2 * i + 1] = lerp_unbits_##T(im);                                                    \
            nans |= (U)((re & ABSMASK) > INF) | (U)((im & ABSMASK) > INF);                         \
        }                                                                                          \
        return nans;                                                                               \
    }                                                                                              \
    /* (the vector places [start, end) of a run, in chunks: the tests first, abs_2_() < 0.25 as   \
     * the bits of a sum of squares (+0 or more, or NaN) compare (each odd element of a pair      \
     * taking the even one's where ``pair``), then the rows with constant steps) */                \
    FMA_CLONES static Py_ssize_t complex_lerp_block_##T(const T *a, Py_ssize_t as, const T *b,     \
                                                        Py_ssize_t bs, const T *w, Py_ssize_t ws,  \
                                                        T *o, Py_ssize_t start, Py_ssize_t end,    \
                                                        int pair)                                  \
    {                                                                                              \
        U nans = 0, quarter = lerp_bits_##T((T)0.25);                                              \
        U lo[256];                                                                                 \
        for (Py_ssize_t c = start; c < end; c += 256) { /* (256: even, so pairs stay whole) */     \
            Py_ssize_t m = end - c < 256 ? end - c : 256;                                          \
            const T *ac = a + 2 * c * as, *bc = b + 2 * c * bs, *wc = w + 2 * c * ws;             \
            for (Py_ssize_t j = 0; j < m; j++) {                                                   \
                T er = wc[2 * j * ws], ei = wc[2 * j * ws + 1];                                    \
                lo[j] = -(U)(lerp_bits_##T(er * er + ei * ei) < quarter);                          \
            }                                                                                      \
            if (pair)                                                                              \
                for (Py_ssize_t j = 1; j < m; j += 2) lo[j] = lo[j - 1];                           \
            if (as == 1 && bs == 1 && ws == 1)                                                     \
                nans |= complex_lerp_rows_##T(ac, 1, bc, 1, wc, 1, lo, o + 2 * c, m);              \
            else if (as == 1 && bs == 1 && ws == 0)                                                \
                nans |= complex_lerp_rows_##T(ac, 1, bc, 1, wc, 0, lo, o + 2 * c, m);              \
            else                                                                                   \
                nans |= complex_lerp_rows_##T(ac, as, bc, bs, wc, ws, lo, o + 2 * c, m);           \
        }                                                                                          \
        return nans != 0;                                                                          \
    }                                                                                              \
    FMA_CLONES static Py_ssize_t complex_lerp_##T(const T *a, Py_ssize_t as, const T *b, Py_ssize_t bs,  \
                                            const T *w, Py_ssize_t ws, const uint8_t *low,         \
                                            Py_ssize_t ls, const uint8_t *vec, Py_ssize_t vs,      \
                                            int run, T *o, Py_ssize_t n, Py_ssize_t piece,         \
                                            Py_ssize_t block, int pair)                            \
    {                                                                                              \
        Py_ssize_t nans = 0;                                                                       \
        for (Py_ssize_t start = 0; start < n; start += piece) {                                    \
            Py_ssize_t len = piece < n - start ? piece : n - start;                                \
            Py_ssize_t vend = start + len - len % block; /* (this piece's vector places end) */    \
            Py_ssize_t i = start;                                                                  \
            if (run) /* (the vector places: both ends computed, one taken, no branch) */           \
                nans += complex_lerp_block_##T(a, as, b, bs, w, ws, o, start, vend, pair);         \
            if (run) i = vend;                                                                     \
            for (; i < start + len; i++) {                                                         \
                int v = run ? i < vend : vec[i * vs] != 0;                                         \
                T wr = w[2 * i * ws], wi = w[2 * i * ws + 1];                                      \
                int lo;                                                                            \
                if (v && ls >= 0) { /* (given) */                                                  \
                    lo = low[i * ls] != 0;                                                         \
                } else if (v) { /* (Vectorized's abs_2_() < 0.25, rounded; pairs: the even one's) */ \
                    Py_ssize_t e = pair && ((i - start) & 1) ? i - 1 : i;                          \
                    T er = w[2 * e * ws], ei = w[2 * e * ws + 1];                                  \
                    lo = er * er + ei * ei < (T)0.25;                                              \
                } else { /* (the scalar |w|^2 < 0.25, contracted: fma(re, re, im * im)) */          \
                    lo = FMA(wr, wr, wi * wi) < (T)0.25;                                           \
                }                                                                                  \
                T ar = a[2 * i * as], ai = a[2 * i * as + 1], br = b[2 * i * bs], bi = b[2 * i * bs + 1]; \
                T dr = br - ar, di = bi - ai, pr, pi, re, im;                                      \
                if (lo) {                                                                          \
                    mul_##T(wr, wi, dr, di, !v, &pr, &pi);                                         \
                    re = ar + pr;                                                                  \
                    im = ai + pi;                                                                  \
                } else if (v) {                                                                    \
                    mul_##T(wr - (T)1, wi - (T)0, dr, di, 0, &pr, &pi);                            \
                    re = br + pr;                                                                  \
                    im = bi + pi;                                                                  \
                } else {                                                                           \
                    mul_##T(dr, di, (T)1 - wr, (T)0 - wi, 1, &pr, &pi);                            \
                    re = br - pr;                                                                  \
                    im = bi - pi;                                                                  \
                }                                                                                  \
                o[2 * i] = re;                                                                     \
                o[2 * i + 1] = im;                                                                 \
                nans += (re != re) | (im != im);                                                   \
            }                                                                                      \
        }                                                                                          \
        return nans;                                                                               \
    }
COMPLEX_LERP(float, uint32_t, fmaf, 0x7fffffffu, 0x7f800000u)
COMPLEX_LERP(double, uint64_t, fma, 0x7fffffffffffffffull, 0x7ff0000000000000ull)
#undef COMPLEX_LERP

static PyObject *py_complex_lerp(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 9) {
        PyErr_Format(PyExc_TypeError, "complex_lerp(a, b, w, low, vec, out, piece, block, pair) takes 9 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t piece = PyLong_AsSsize_t(args[6]), block = PyLong_AsSsize_t(args[7]);
    if (PyErr_Occurred()) return NULL;
    int pair = PyObject_IsTrue(args[8]);
    if (pair < 0) return NULL;
    Py_buffer bf[6];
    for (int k = 0; k < 6; k++) {
        int flags = PyBUF_STRIDES | PyBUF_FORMAT | (k == 5 ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(args[k], &bf[k], flags) < 0) {
            while (k--) PyBuffer_Release(&bf[k]);
            return NULL;
        }
    }
    Py_ssize_t nans = -1;
    const char *f = bf[5].format;
    int c64 = strcmp(f, "Zf") == 0 && bf[5].itemsize == 8, c128 = strcmp(f, "Zd") == 0 && bf[5].itemsize == 16;
    Py_ssize_t len[6];
    for (int k = 0; k < 6; k++) len[k] = bf[k].itemsize ? bf[k].len / bf[k].itemsize : 0;
    Py_ssize_t n = len[5];
    int ok = (c64 || c128) && n > 0 && piece > 0 && block > 0;
    for (int k = 0; ok && k < 3; k++) /* (a, b, w: out's format, its length or one element, aligned) */
        ok = strcmp(bf[k].format, f) == 0 && bf[k].itemsize == bf[5].itemsize && (len[k] == n || len[k] == 1)
             && (uintptr_t)bf[k].buf % (bf[5].itemsize / 2) == 0;
    for (int k = 3; ok && k < 5; k++) /* (low, vec: one byte an element; vec may be empty) */
        ok = bf[k].itemsize == 1 && (strcmp(bf[k].format, "?") == 0 || strcmp(bf[k].format, "B") == 0)
             && (len[k] == n || len[k] == 1 || len[k] == 0);
    ok = ok && (uintptr_t)bf[5].buf % (bf[5].itemsize / 2) == 0;
    for (int k = 0; ok && k < 6; k++) ok = PyBuffer_IsContiguous(&bf[k], 'C');
    for (int k = 0; ok && k < 5; k++) ok = !overlaps(&bf[5], &bf[k]);
    if (ok) {
        Py_ssize_t as = len[0] == 1 ? 0 : 1, bs = len[1] == 1 ? 0 : 1, ws = len[2] == 1 ? 0 : 1;
        Py_ssize_t ls = len[3] == 0 ? -1 : len[3] == 1 ? 0 : 1, vs = len[4] == 1 ? 0 : 1;
        int run = len[4] == 0;
        if (!run) { /* (given places: any pairs are the caller's, in low) */
            piece = n;
            pair = 0;
        }
        {
            Py_BEGIN_ALLOW_THREADS
            if (c64) nans = complex_lerp_float(bf[0].buf, as, bf[1].buf, bs, bf[2].buf, ws, bf[3].buf, ls, bf[4].buf, vs, run,
                                        bf[5].buf, n, piece, block, pair);
            else nans = complex_lerp_double(bf[0].buf, as, bf[1].buf, bs, bf[2].buf, ws, bf[3].buf, ls, bf[4].buf, vs, run,
                                     bf[5].buf, n, piece, block, pair);
            Py_END_ALLOW_THREADS
        }
    }
    for (int k = 0; k < 6; k++) PyBuffer_Release(&bf[k]);
    return PyLong_FromSsize_t(nans);
}

#define COMPLEX_LERP_METHODS                                                                       \
    {"complex_lerp", (PyCFunction)(void (*)(void))py_complex_lerp, METH_FASTCALL,                   \
     "complex_lerp(a, b, w, low, vec, out, piece, block, pair) -> int: PyTorch's complex lerp with its bits " \
     "(see _complex_lerp.h): positive where a result has a NaN part, else 0, or -1 (nothing written) for any other buffer"},
