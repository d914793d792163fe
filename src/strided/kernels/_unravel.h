/* Included once by _copykernel.c: unravel_rows, unravel_index's coordinates of int64 flat indices
 * in one pass (PyTorch's (..., ndim) layout: each index's ndim coordinates side by side).
 *
 * unravel_rows(flat, dims, out) -> bool: flat a C-contiguous, aligned int64 buffer of n indices;
 * dims a tuple of 1 to UR_MAX_DIMS ints, each >= 1, whose row-major strides (coefs[j] = the
 * product of dims[j + 1:]) all fit in int64; out a C-contiguous, aligned, writable int64 buffer of
 * n * ndim elements not overlapping flat. Writes out[i * ndim + j] = (flat[i] // coefs[j]) %
 * dims[j] with Python's (and PyTorch's floor_divide and remainder's) floor semantics, so an index
 * out of range wraps and a negative one counts from the end, exactly as PyTorch's
 * ``indices.unsqueeze(-1).floor_divide(coefs) % shape``. False (nothing written) where the
 * arguments do not qualify.
 *
 * How: the coordinates are the digits of flat[i] in the mixed radix dims, last dim first:
 * floor(floor(q / a) / b) = floor(q / (a b)) for positive a and b, so dividing by dims[ndim - 1],
 * then dims[ndim - 2], ... gives each q // coefs[j] in turn, and its remainder is coordinate j;
 * coordinate 0 is the last quotient's remainder by dims[0]. For 0 <= q < 2^50 each division is a
 * multiply by the double 1 / d, truncated, then corrected by one step: the product is within
 * 2^50 * 2^-51.9 < 0.3 of q / d, so the truncation is floor(q / d) or one off it, and the exact
 * integer remainder says which (no hardware division in the common case). Other q (negative, or
 * 2^50 and up) take C's division, floored. Why: NumPy's floor_divide and remainder by a scalar were
 * two passes per dim over the whole array (1M indices in 2 dims ~8 ms, np.unravel_index ~4 ms). */
#define UR_MAX_DIMS 64
#define UR_EXACT_LIMIT ((int64_t)1 << 50)

/* *q = floor(*q / d), returning the floored remainder, for 0 <= *q < UR_EXACT_LIMIT and d >= 1 */
static inline int64_t ur_divmod_small(int64_t *q, int64_t d, double inv)
{
    int64_t t = (int64_t)((double)*q * inv), r = *q - t * d;
    if (r < 0) {
        t--;
        r += d;
    } else if (r >= d) {
        t++;
        r -= d;
    }
    *q = t;
    return r;
}

/* the same for any int64 *q (d >= 1): C's truncating division, floored */
static inline int64_t ur_divmod_any(int64_t *q, int64_t d)
{
    int64_t t = *q / d, r = *q % d;
    if (r < 0) {
        t--;
        r += d;
    }
    *q = t;
    return r;
}

static void ur_fill_scalar(const int64_t *in, int64_t *out, Py_ssize_t n, int nd, const int64_t *dv, const double *inv);

#if HAVE_AVX512_BLOCKS
/* ur_divmod_small on 8 lanes (each 0 <= q < UR_EXACT_LIMIT): the same steps, so the same integers */
__attribute__((target("avx512f,avx512dq"), always_inline)) static inline __m512i
ur_divmod8(__m512i *q, __m512i d, __m512d inv)
{
    const __m512i one = _mm512_set1_epi64(1);
    __m512i t = _mm512_cvttpd_epi64(_mm512_mul_pd(_mm512_cvtepi64_pd(*q), inv));
    __m512i r = _mm512_sub_epi64(*q, _mm512_mullo_epi64(t, d));
    __mmask8 low = _mm512_cmp_epi64_mask(r, _mm512_setzero_si512(), _MM_CMPINT_LT);
    __mmask8 high = _mm512_cmp_epi64_mask(r, d, _MM_CMPINT_GE);
    t = _mm512_mask_sub_epi64(t, low, t, one);
    r = _mm512_mask_add_epi64(r, low, r, d);
    t = _mm512_mask_add_epi64(t, high, t, one);
    r = _mm512_mask_sub_epi64(r, high, r, d);
    *q = t;
    return r;
}

/* ur_fill's values for the indices in whole groups of 8 (the vector form where all 8 lie in
 * [0, UR_EXACT_LIMIT), ur_fill's scalar steps for a group that does not); the count done returned
 * (the rest, under 8, is the caller's) */
__attribute__((target("avx512f,avx512dq"))) static Py_ssize_t
ur_fill_avx512(const int64_t *in, int64_t *out, Py_ssize_t n, int nd, const int64_t *dv, const double *inv)
{
    const __m512i lim = _mm512_set1_epi64(UR_EXACT_LIMIT);
    const __m512i lo_idx = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), hi_idx = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
    __m512i d[UR_MAX_DIMS];
    __m512d iv[UR_MAX_DIMS];
    for (int j = 0; j < nd; j++) {
        d[j] = _mm512_set1_epi64(dv[j]);
        iv[j] = _mm512_set1_pd(inv[j]);
    }
    int64_t tmp[UR_MAX_DIMS][8];
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m512i q = _mm512_loadu_si512(in + i);
        if (_mm512_cmp_epu64_mask(q, lim, _MM_CMPINT_LT) != 0xff) {  /* (rare: some lane negative or large) */
            ur_fill_scalar(in + i, out + (Py_ssize_t)nd * i, 8, nd, dv, inv);
            continue;
        }
        if (nd == 2) {  /* (each index's two coordinates side by side: an interleave of the two vectors) */
            __m512i c1 = ur_divmod8(&q, d[1], iv[1]);
            __m512i c0 = ur_divmod8(&q, d[0], iv[0]);
            _mm512_storeu_si512(out + 2 * i, _mm512_permutex2var_epi64(c0, lo_idx, c1));
            _mm512_storeu_si512(out + 2 * i + 8, _mm512_permutex2var_epi64(c0, hi_idx, c1));
            continue;
        }
        for (int j = nd - 1; j >= 0; j--)
            _mm512_storeu_si512(tmp[j], ur_divmod8(&q, d[j], iv[j]));
        int64_t *o = out + (Py_ssize_t)nd * i;
        for (int l = 0; l < 8; l++)
            for (int j = 0; j < nd; j++)
                o[l * nd + j] = tmp[j][l];
    }
    return i;
}

static int ur_wide(void)
{
    static int w = -1;
    if (w < 0) {
        __builtin_cpu_init();
        w = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
    }
    return w;
}
#endif

/* out's coordinates of the n indices in (see unravel_rows) */
static void ur_fill(const int64_t *in, int64_t *out, Py_ssize_t n, int nd, const int64_t *dv, const double *inv)
{
    Py_ssize_t done = 0;
#if HAVE_AVX512_BLOCKS
    if (ur_wide())
        done = ur_fill_avx512(in, out, n, nd, dv, inv);
#endif
    ur_fill_scalar(in + done, out + (Py_ssize_t)nd * done, n - done, nd, dv, inv);
}

static void ur_fill_scalar(const int64_t *in, int64_t *out, Py_ssize_t n, int nd, const int64_t *dv, const double *inv)
{
    if (nd == 2) {  /* (the common case, unrolled: one division and one remainder) */
        int64_t d1 = dv[1], d0 = dv[0];
        double i1 = inv[1], i0 = inv[0];
        for (Py_ssize_t i = 0; i < n; i++) {
            int64_t q = in[i], c1, c0;
            if (q >= 0 && q < UR_EXACT_LIMIT) {
                c1 = ur_divmod_small(&q, d1, i1);
                c0 = ur_divmod_small(&q, d0, i0);
            } else {
                c1 = ur_divmod_any(&q, d1);
                c0 = ur_divmod_any(&q, d0);
            }
            out[2 * i] = c0;
            out[2 * i + 1] = c1;
        }
        return;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t q = in[i], *o = out + (Py_ssize_t)nd * i;
        if (q >= 0 && q < UR_EXACT_LIMIT) {  /* (q only shrinks: it stays in range) */
            for (int j = nd - 1; j >= 0; j--)
                o[j] = ur_divmod_small(&q, dv[j], inv[j]);
        } else {
            for (int j = nd - 1; j >= 0; j--)
                o[j] = ur_divmod_any(&q, dv[j]);
        }
    }
}

/* dims' values into dv (each >= 1, their strides' products within int64); -1 where they do not qualify */
static int ur_dims(PyObject *dims, int64_t *dv, double *inv)
{
    if (!PyTuple_Check(dims)) return -1;
    Py_ssize_t nd = PyTuple_GET_SIZE(dims);
    if (nd < 1 || nd > UR_MAX_DIMS) return -1;
    int64_t coef = 1;
    for (Py_ssize_t j = nd - 1; j >= 0; j--) {
        PyObject *v = PyTuple_GET_ITEM(dims, j);
        if (!PyLong_CheckExact(v)) return -1;
        int overflow = 0;
        long long d = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow || d < 1) {
            PyErr_Clear();
            return -1;
        }
        dv[j] = d;
        inv[j] = 1.0 / (double)d;
        if (j > 0 && __builtin_mul_overflow(coef, (int64_t)d, &coef)) return -1;  /* (coefs[j - 1]) */
    }
    return (int)nd;
}

static PyObject *py_unravel_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "unravel_rows(flat, dims, out) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    int64_t dv[UR_MAX_DIMS];
    double inv[UR_MAX_DIMS];
    int nd = ur_dims(args[1], dv, inv);
    if (nd < 0) Py_RETURN_FALSE;
    Py_buffer fb, ob;
    if (PyObject_GetBuffer(args[0], &fb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[2], &ob, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&fb);
        return NULL;
    }
    Py_ssize_t n = fb.len / 8;
    int ok = nz_kind(&fb) == 3 && nz_kind(&ob) == 3 && !((uintptr_t)fb.buf % 8) && !((uintptr_t)ob.buf % 8)
             && ob.len == fb.len * nd
             && !((const char *)ob.buf < (const char *)fb.buf + fb.len && (const char *)fb.buf < (const char *)ob.buf + ob.len);
    if (ok) {
        PyThreadState *ts = n >= 4096 ? PyEval_SaveThread() : NULL;
        ur_fill((const int64_t *)fb.buf, (int64_t *)ob.buf, n, nd, dv, inv);
        if (ts != NULL)
            PyEval_RestoreThread(ts);
    }
    PyBuffer_Release(&fb);
    PyBuffer_Release(&ob);
    return PyBool_FromLong(ok);
}
#undef UR_EXACT_LIMIT
#undef UR_MAX_DIMS
