/* Included once by _copykernel.c: nonzero_rows, np.nonzero's positions of a large row-major array
 * in PyTorch's (n, ndim) layout, by rows.
 *
 * nonzero_rows(x, out) -> int: x a C-contiguous float32 / float64 / int32 / int64 / bool buffer
 * of 1 to 32 dims. With out None: the count of its non-zero elements (a NaN counts, -0.0 does
 * not; a bool byte counts when non-zero, as NumPy reads it). With out a C-contiguous int64 buffer
 * of count * ndim elements: every non-zero element's index in dim 0, then in dim 1, ... (column
 * by column, row-major order within each: np.nonzero's arrays one after the other), the count
 * written returned. -1 (nothing written) where x or out does not qualify, or out's size does not
 * match the count.
 *
 * Why: np.flatnonzero and the index arithmetic splitting its flat positions into dims were 3-4
 * passes over 8-16 MB (2^20 float32, all non-zero: ~3.1 ms, PyTorch ~3.2); here a count pass
 * and one pass that writes each position's indices, the last dim's from the row's own loop. */
#define NZ_MAX_DIMS 32

static int nz_kind(const Py_buffer *b)
{
    const char *f = b->format ? b->format : "B";
    if (*f == '@' || *f == '=' || *f == '<')
        f++;
    if (f[0] == 0 || f[1] != 0)
        return -1;
    if (f[0] == 'f' && b->itemsize == 4) return 0;
    if (f[0] == 'd' && b->itemsize == 8) return 1;
    if (f[0] == 'i' && b->itemsize == 4) return 2;
    if ((f[0] == 'l' || f[0] == 'q') && b->itemsize == 8) return 3;
    if (f[0] == '?' && b->itemsize == 1) return 4;
    return -1;
}

#define NZ_COUNT(T)                                                                                \
    {                                                                                              \
        const T *p = (const T *)xb.buf;                                                            \
        for (Py_ssize_t k = 0; k < n; k++)                                                         \
            count += p[k] != 0;                                                                    \
    }

/* each row (the last dim, m elements) of the rows outer indices idx[0..nd-2] */
#define NZ_FILL(T)                                                                                 \
    {                                                                                              \
        const T *p = (const T *)xb.buf;                                                            \
        for (Py_ssize_t r = 0; r < rows; r++, p += m) {                                            \
            for (Py_ssize_t j = 0; j < m; j++) {                                                   \
                if (p[j] != 0) {                                                                   \
                    if (w == total) { w = -1; goto filled; }                                       \
                    for (int e = 0; e < nd - 1; e++) o[e * total + w] = idx[e];                    \
                    o[(nd - 1) * total + w] = j;                                                   \
                    w++;                                                                           \
                }                                                                                  \
            }                                                                                      \
            for (int e = nd - 2; e >= 0; e--) {                                                    \
                if (++idx[e] < shape[e]) break;                                                    \
                idx[e] = 0;                                                                        \
            }                                                                                      \
        }                                                                                          \
    }

#if HAVE_AVX512_BLOCKS
/* The count pass for float32 / float64 by AVX-512: each 64-byte vector compared with zero
 * (_CMP_NEQ_UQ: a NaN counts, -0.0 does not, as `p[k] != 0`) into a lane mask, its bits counted.
 * Why: the scalar loop's compare-and-add was 0.3-0.37 ms for 2^20 float32 (thread CPU time,
 * loaded machine), more than half of count_nonzero's whole time; PyTorch's count 0.7-1.0 ms.
 * The count is an integer: any order gives the same answer. */
#define DEFINE_NZ_COUNT_Z(NAME, T, W, SFX)                                                       \
    __attribute__((target("avx512f,popcnt"))) static Py_ssize_t NAME(const T *p, Py_ssize_t n)    \
    {                                                                                             \
        Py_ssize_t count = 0, k = 0;                                                              \
        for (; k + W <= n; k += W)                                                                \
            count += __builtin_popcount((unsigned)_mm512_cmp_##SFX##_mask(                        \
                _mm512_loadu_##SFX(p + k), _mm512_setzero_##SFX(), _CMP_NEQ_UQ));                 \
        for (; k < n; k++)                                                                        \
            count += p[k] != 0;                                                                   \
        return count;                                                                             \
    }
DEFINE_NZ_COUNT_Z(nz_count_f32_z, float, 16, ps)
DEFINE_NZ_COUNT_Z(nz_count_f64_z, double, 8, pd)
#undef DEFINE_NZ_COUNT_Z
#endif

static PyObject *py_nonzero_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "nonzero_rows(x, out) takes 2 arguments, not %zd", nargs);
        return NULL;
    }
    Py_buffer xb, ob;
    int have_out = args[1] != Py_None;
    if (PyObject_GetBuffer(args[0], &xb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (have_out && PyObject_GetBuffer(args[1], &ob, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&xb);
        return NULL;
    }
    Py_ssize_t answer = -1;
    int kind = nz_kind(&xb), nd = xb.ndim;
    Py_ssize_t n = xb.itemsize ? xb.len / xb.itemsize : 0;
    if (kind < 0 || nd < 1 || nd > NZ_MAX_DIMS || ((uintptr_t)xb.buf % (uintptr_t)xb.itemsize))
        goto done;
    if (!have_out) {
        Py_ssize_t count = 0;
        PyThreadState *ts = n >= 4096 ? PyEval_SaveThread() : NULL;
        switch (kind) {
#if HAVE_AVX512_BLOCKS
        case 0: if (use_avx512_blocks) count = nz_count_f32_z((const float *)xb.buf, n); else NZ_COUNT(float) break;
        case 1: if (use_avx512_blocks) count = nz_count_f64_z((const double *)xb.buf, n); else NZ_COUNT(double) break;
#else
        case 0: NZ_COUNT(float) break;
        case 1: NZ_COUNT(double) break;
#endif
        case 2: NZ_COUNT(int32_t) break;
        case 3: NZ_COUNT(int64_t) break;
        default: NZ_COUNT(uint8_t) break;
        }
        if (ts != NULL)
            PyEval_RestoreThread(ts);
        answer = count;
        goto done;
    }
    {
        if (nz_kind(&ob) != 3 || ((uintptr_t)ob.buf % 8) || ob.len % (8 * nd)
            || ((const char *)ob.buf < (const char *)xb.buf + xb.len && (const char *)xb.buf < (const char *)ob.buf + ob.len))
            goto done;
        Py_ssize_t total = ob.len / (8 * nd), shape[NZ_MAX_DIMS], idx[NZ_MAX_DIMS] = {0};
        for (int e = 0; e < nd; e++)
            shape[e] = xb.shape[e];
        Py_ssize_t m = shape[nd - 1], rows = m ? n / m : 0, w = 0;
        int64_t *o = (int64_t *)ob.buf;
        PyThreadState *ts = n >= 4096 ? PyEval_SaveThread() : NULL;
        switch (kind) {
        case 0: NZ_FILL(float) break;
        case 1: NZ_FILL(double) break;
        case 2: NZ_FILL(int32_t) break;
        case 3: NZ_FILL(int64_t) break;
        default: NZ_FILL(uint8_t) break;
        }
    filled:
        if (ts != NULL)
            PyEval_RestoreThread(ts);
        answer = w == total ? w : -1; /* (more or fewer than out holds: the caller's count was stale) */
    }
done:
    PyBuffer_Release(&xb);
    if (have_out)
        PyBuffer_Release(&ob);
    return PyLong_FromSsize_t(answer);
}
#undef NZ_COUNT
#undef NZ_FILL
#undef NZ_MAX_DIMS
