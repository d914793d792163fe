/* complex_lerp(a, b, w, low, vec, out, piece, block, pair, tail_sq) -> int: PyTorch 2.13's complex lerp
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
 * im < 0.25`` contracted to fma(re, re, im * im), but rounded (``tail_sq``) for a complex128
 * number weight in a vector loop's tail.
 * ``a``, ``b``, ``w``: flat C-contiguous aligned complex buffers of one format ("Zf" or "Zd"), of
 * out's length or one element; ``low``: bool/uint8 of out's length or one element, the test at
 * the vector places given (the caller's pairs, for given places), or EMPTY: the kernel tests them
 * as above; ``vec``: uint8 of out's length or one element (non-zero: a vector place), or EMPTY:
 * then the places are one row-major run cut into
 * pieces of ``piece`` elements, each piece's first len - len % ``block`` elements vector places,
 * and with ``pair`` (an empty ``low``) each odd element of a piece's vector places takes its even
 * neighbour's test (AVX2's is_lerp_weight_small for complex<float> arranges its |w|^2 lanes by
 * pairs). ``out``:
 * C-contiguous, writable, overlapping no operand (the caller gives a fresh array). Returns the
 * number of results with a NaN part (their NaN's sign and payload are whichever operand the
 * compiler's instruction order passes on, not necessarily NumPy's steps': the caller redoes them),
 * or -1, nothing written, for any other buffer (misaligned included: the emulation then runs).
 * Built with -ffp-contract=off: the rounded forms stay rounded. */

#define COMPLEX_LERP(T, FMA)                                                                       \
    /* (the vector places [start, end) of a run: each odd element of a pair takes the even one's  \
     * test where ``pair``; returns the number of results with a NaN part) */                     \
    FMA_CLONES static Py_ssize_t complex_lerp_block_##T(const T *a, Py_ssize_t as, const T *b,     \
                                                        Py_ssize_t bs, const T *w, Py_ssize_t ws,  \
                                                        T *o, Py_ssize_t start, Py_ssize_t end,    \
                                                        int pair)                                  \
    {                                                                                              \
        Py_ssize_t nans = 0, odd = pair ? 1 : 0;                                                   \
        for (Py_ssize_t i = start; i < end; i++) {                                                 \
            Py_ssize_t e = i - (odd & (i - start)); /* (the element whose test this one takes) */  \
            T er = w[2 * e * ws], ei = w[2 * e * ws + 1];                                          \
            int lo = er * er + ei * ei < (T)0.25;                                                  \
            T ar = a[2 * i * as], ai = a[2 * i * as + 1], br = b[2 * i * bs], bi = b[2 * i * bs + 1]; \
            T wr = w[2 * i * ws], wi = w[2 * i * ws + 1];                                          \
            T dr = br - ar, di = bi - ai, pr, pi, qr, qi;                                          \
            mul_##T(wr, wi, dr, di, 0, &pr, &pi);                                                  \
            mul_##T(wr - (T)1, wi - (T)0, dr, di, 0, &qr, &qi);                                    \
            T nr = ar + pr, ni = ai + pi, fr = br + qr, fi = bi + qi;                              \
            T re = lo ? nr : fr, im = lo ? ni : fi;                                                \
            o[2 * i] = re;                                                                         \
            o[2 * i + 1] = im;                                                                     \
            nans += (re != re) | (im != im);                                                       \
        }                                                                                          \
        return nans;                                                                               \
    }                                                                                              \
    FMA_CLONES static Py_ssize_t complex_lerp_##T(const T *a, Py_ssize_t as, const T *b, Py_ssize_t bs,  \
                                            const T *w, Py_ssize_t ws, const uint8_t *low,         \
                                            Py_ssize_t ls, const uint8_t *vec, Py_ssize_t vs,      \
                                            int run, T *o, Py_ssize_t n, Py_ssize_t piece,         \
                                            Py_ssize_t block, int pair, int tail_sq)               \
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
                } else if (tail_sq) { /* (complex128's number weight in a tail: rounded) */        \
                    lo = wr * wr + wi * wi < (T)0.25;                                              \
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
COMPLEX_LERP(float, fmaf)
COMPLEX_LERP(double, fma)
#undef COMPLEX_LERP

static PyObject *py_complex_lerp(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 10) {
        PyErr_Format(PyExc_TypeError, "complex_lerp(a, b, w, low, vec, out, piece, block, pair, tail_sq) takes 10 arguments, not %zd", nargs);
        return NULL;
    }
    Py_ssize_t piece = PyLong_AsSsize_t(args[6]), block = PyLong_AsSsize_t(args[7]);
    if (PyErr_Occurred()) return NULL;
    int pair = PyObject_IsTrue(args[8]), tail_sq = PyObject_IsTrue(args[9]);
    if (pair < 0 || tail_sq < 0) return NULL;
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
                                        bf[5].buf, n, piece, block, pair, tail_sq);
            else nans = complex_lerp_double(bf[0].buf, as, bf[1].buf, bs, bf[2].buf, ws, bf[3].buf, ls, bf[4].buf, vs, run,
                                     bf[5].buf, n, piece, block, pair, tail_sq);
            Py_END_ALLOW_THREADS
        }
    }
    for (int k = 0; k < 6; k++) PyBuffer_Release(&bf[k]);
    return PyLong_FromSsize_t(nans);
}

#define COMPLEX_LERP_METHODS                                                                       \
    {"complex_lerp", (PyCFunction)(void (*)(void))py_complex_lerp, METH_FASTCALL,                   \
     "complex_lerp(a, b, w, low, vec, out, piece, block, pair, tail_sq) -> int: PyTorch's complex lerp with its bits " \
     "(see _complex_lerp.h): the number of results with a NaN part, or -1 (nothing written) for any other buffer"},
