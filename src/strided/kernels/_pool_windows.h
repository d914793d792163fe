/* pool_windows: F.max_pool1d/2d's values and F.avg_pool1d/2d's means (float32 / float64), PyTorch's
 * CPU loops (aten/src/ATen/native/cpu/MaxPoolKernel.cpp, AvgPoolKernel.cpp) read straight from
 * the input's strides into the result's, without padding copies or window views.
 *
 * pool_windows(storage, out, offset, geometry, mode, divisor) -> bool
 *
 *   geometry: bytes, 22 native Py_ssize_t (Python's struct "22n", packed once per call shape by
 *   the caller, so a call converts three ints, not 27): n, c, h, w, sn, sc, sh, sw, oh, ow, on,
 *   oc, ohs, ows, kh, kw, dh, dw, ph, pw, lh, lw.
 *
 *   storage: the input's flat C-contiguous float buffer; element (n, c, y, x) at offset + n*sn +
 *   c*sc + y*sh + x*sw (element strides). out: a writable C-contiguous buffer of the same kind;
 *   output (n, c, i, j) at n*on + c*oc + i*ohs + j*ows. Window (i, j) of kernel (kh, kw), window
 *   stride (dh, dw), padding (ph, pw), dilation (lh, lw): taps y = i*dh - ph + u*lh, x = j*dw - pw
 *   + v*lw, those outside [0, h) x [0, w) padding. A 1-d pool passes h = kh = oh = 1, ph = 0.
 *
 *   mode 0 (max): the first in-bounds tap's value, then each later tap (row-major over the
 *   kernel) that is greater or NaN replaces it (the first maximum; NaN wins, the last NaN's bits);
 *   -inf for a window of padding only. PyTorch's `val > maxval || isnan(val)` from -inf.
 *   mode 1 / 2 (average counting / not counting the padding): PyTorch's cpu_avg_pool: the
 *   window clipped to the padded input gives pool_size, then to the input; the sum, in the element
 *   type from 0, row-major over the clipped window, divided by `divisor` (non-zero: the override)
 *   else pool_size (mode 1) or the clipped window's size (mode 2), converted to the type.
 *
 *   False (out untouched) where not taken: the buffers not float32 / float64 of one kind, a
 *   position outside either buffer, a mode out of range. The GIL is released around the loop.
 */

/* pool_windows' channels-last loops (see DEFINE_POOL), the channel strides SC and OC: unit strides
 * spelt as the constant 1, so that the compiler vectorizes across the channels. */
#define POOL_CHANNELS_LAST(T, SC, OC)                                                                \
        /* channels-last: per output position, each tap added (or compared) across all               \
         * channels at once, the output row the accumulator (the same steps per element) */          \
        for (Py_ssize_t a = 0; a < n; a++)                                                           \
            for (Py_ssize_t i = 0; i < oh; i++)                                                      \
                for (Py_ssize_t j = 0; j < ow; j++) {                                                \
                    const T *restrict win = x + a * sn + i * dh * sh + j * dw * sw;                  \
                    T *restrict ob = o + a * on + i * ohs + j * ows;                                 \
                    if (mode == 0) {                                                                 \
                        _Pragma("GCC ivdep") for (Py_ssize_t b = 0; b < c; b++)                    \
                            ob[b * (OC)] = win[b * (SC)];                                            \
                        for (Py_ssize_t u = 0; u < kh; u++)                                          \
                            for (Py_ssize_t v = 0; v < kw; v++) {                                    \
                                const T *restrict tap = win + u * lh * sh + v * lw * sw;             \
                                if ((SC) == 1 && (OC) == 1) /* (the row's select by masks: a branch \
                                    mispredicts on random data, 8x slower) */                        \
                                    pool_max_tap_##T(tap, ob, c, 1);                                 \
                                else                                                                 \
                                    _Pragma("GCC ivdep") for (Py_ssize_t b = 0; b < c; b++) {      \
                                        T e = tap[b * (SC)], r = ob[b * (OC)];                       \
                                        ob[b * (OC)] = (e > r) | (e != e) ? e : r;                   \
                                    }                                                                \
                            }                                                                        \
                    } else {                                                                         \
                        _Pragma("GCC ivdep") for (Py_ssize_t b = 0; b < c; b++)                    \
                            ob[b * (OC)] = (T)0;                                                     \
                        for (Py_ssize_t u = 0; u < kh; u++)                                          \
                            for (Py_ssize_t v = 0; v < kw; v++) {                                    \
                                const T *restrict tap = win + u * sh + v * sw;                       \
                                _Pragma("GCC ivdep") for (Py_ssize_t b = 0; b < c; b++)            \
                                    ob[b * (OC)] = ob[b * (OC)] + tap[b * (SC)];                     \
                            }                                                                        \
                        _Pragma("GCC ivdep") for (Py_ssize_t b = 0; b < c; b++)                    \
                            ob[b * (OC)] = ob[b * (OC)] / div;                                       \
                    }                                                                                \
                }

/* One max tap across an output row: ob[j] = tap[j * dw] where it is greater than ob[j] or NaN (the
 * per-window loop's select, same bits), four float lanes at a time where SSE2 is (x86-64's
 * baseline) and dw is 1 or 2 (a stride-2 row: two loads, their even lanes); the last lanes, and
 * any other case, one at a time (the vector loads stop a group short of the row's end: the
 * stride-2 form reads one element past its last tap). */
#if HAVE_AVX2_CLONE
/* pool_max_tap_float's first lanes eight at a time (AVX2; dw 1 or 2, the caller checks the CPU):
 * the same select per element; returns the first j left to its SSE2 and scalar loops (stopping a
 * group short of the row's end, as they do: the stride-2 form reads one element past its last tap). */
AVX2 static Py_ssize_t pool_max_tap_float8(const float *restrict tap, float *restrict ob, Py_ssize_t ow,
                                           Py_ssize_t dw)
{
    Py_ssize_t j = 0;
    for (; j + 8 < ow; j += 8) {
        __m256 e;
        if (dw == 1)
            e = _mm256_loadu_ps(tap + j);
        else { /* (the even lanes of two loads: within each 128-bit half, then the halves' quarters in order) */
            __m256 ev = _mm256_shuffle_ps(_mm256_loadu_ps(tap + 2 * j), _mm256_loadu_ps(tap + 2 * j + 8),
                                          _MM_SHUFFLE(2, 0, 2, 0));
            e = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(ev), _MM_SHUFFLE(3, 1, 2, 0)));
        }
        __m256 r = _mm256_loadu_ps(ob + j);
        __m256 m = _mm256_or_ps(_mm256_cmp_ps(e, r, _CMP_GT_OQ), _mm256_cmp_ps(e, e, _CMP_UNORD_Q));
        _mm256_storeu_ps(ob + j, _mm256_blendv_ps(r, e, m));
    }
    return j;
}
#endif

static inline void pool_max_tap_float(const float *restrict tap, float *restrict ob, Py_ssize_t ow, Py_ssize_t dw)
{
    Py_ssize_t j = 0;
#if HAVE_AVX2_CLONE
    if (use_avx2 && (dw == 1 || dw == 2))
        j = pool_max_tap_float8(tap, ob, ow, dw);
#endif
#if defined(__SSE2__)
    if (dw == 1 || dw == 2)
        for (; j + 4 < ow; j += 4) {
            __m128 e = dw == 1 ? _mm_loadu_ps(tap + j)
                               : _mm_shuffle_ps(_mm_loadu_ps(tap + 2 * j), _mm_loadu_ps(tap + 2 * j + 4),
                                                _MM_SHUFFLE(2, 0, 2, 0));
            __m128 r = _mm_loadu_ps(ob + j);
            __m128 m = _mm_or_ps(_mm_cmpgt_ps(e, r), _mm_cmpunord_ps(e, e));
            _mm_storeu_ps(ob + j, _mm_or_ps(_mm_and_ps(m, e), _mm_andnot_ps(m, r)));
        }
#endif
    for (; j < ow; j++) {
        float e = tap[j * dw], r = ob[j];
        ob[j] = (e > r) | (e != e) ? e : r;
    }
}

static inline void pool_max_tap_double(const double *restrict tap, double *restrict ob, Py_ssize_t ow, Py_ssize_t dw)
{
    for (Py_ssize_t j = 0; j < ow; j++) {
        double e = tap[j * dw], r = ob[j];
        uint64_t take = (uint64_t)0 - (uint64_t)((e > r) | (e != e)), eb, rb;
        memcpy(&eb, &e, sizeof eb); /* (a select by masks: random data mispredicts a branch) */
        memcpy(&rb, &r, sizeof rb);
        rb = (eb & take) | (rb & ~take);
        memcpy(&ob[j], &rb, sizeof rb);
    }
}

/* A window of two adjacent taps at stride 2 (F.max_pool1d(x, 2), the common case): ob[j] = row[2j + 1]
 * where it is greater than row[2j] or NaN, else row[2j] -- POOL_ROWS' steps (the first tap copied,
 * the second's select) fused into one pass. On AVX-512 sixteen lanes at a time (the even and odd
 * lanes of two loads: one permute each), stopping a group short of the row's end as the other
 * loops do; the rest, and every other CPU, as POOL_ROWS: the copy, then pool_max_tap_T. */
#if HAVE_AVX2_CLONE
AVX512 static Py_ssize_t pool_max_pair_float16(const float *restrict row, float *restrict ob, Py_ssize_t ow)
{
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    Py_ssize_t j = 0;
    for (; j + 16 < ow; j += 16) {
        __m512 lo = _mm512_loadu_ps(row + 2 * j), hi = _mm512_loadu_ps(row + 2 * j + 16);
        __m512 r = _mm512_permutex2var_ps(lo, even, hi), e = _mm512_permutex2var_ps(lo, odd, hi);
        __mmask16 m = _mm512_cmp_ps_mask(e, r, _CMP_GT_OQ) | _mm512_cmp_ps_mask(e, e, _CMP_UNORD_Q);
        _mm512_storeu_ps(ob + j, _mm512_mask_blend_ps(m, r, e));
    }
    return j;
}
#define POOL_PAIR_FAST_float(row, ob, ow) (use_avx512 ? pool_max_pair_float16(row, ob, ow) : 0)
#else
#define POOL_PAIR_FAST_float(row, ob, ow) 0
#endif
#define POOL_PAIR_FAST_double(row, ob, ow) 0
#define POOL_PAIR(T)                                                                                 \
    static inline void pool_max_pair_##T(const T *restrict row, T *restrict ob, Py_ssize_t ow)       \
    {                                                                                                \
        Py_ssize_t j = POOL_PAIR_FAST_##T(row, ob, ow);                                              \
        for (Py_ssize_t k = j; k < ow; k++)                                                          \
            ob[k] = row[2 * k];                                                                      \
        pool_max_tap_##T(row + 2 * j + 1, ob + j, ow - j, 2);                                        \
    }
POOL_PAIR(float)
POOL_PAIR(double)
#undef POOL_PAIR

/* pool_windows' max row loops (see DEFINE_POOL): rows of unit stride in and out, the window stride DW
 * (a constant where the caller spells one, so the compiler vectorizes the strided loads). The taps
 * outermost and the output row the accumulator: each element still takes its taps in the kernel's
 * row-major order from the same first value (tap (0, 0), then every later tap -- the per-window
 * loop's compare of tap (0, 0) with itself keeps its bits, NaN or not, so it is left out), so the
 * same operations give the same bits as the per-window loop. Max only: the average's per-window
 * sums measured faster than a row of them at a time (its strided loads do not vectorize). */
#define POOL_ROWS(T, DW)                                                                             \
        for (Py_ssize_t a = 0; a < n; a++)                                                           \
            for (Py_ssize_t b = 0; b < c; b++)                                                       \
                for (Py_ssize_t i = 0; i < oh; i++) {                                                \
                    const T *restrict row = x + a * sn + b * sc + i * dh * sh;                       \
                    T *restrict ob = o + a * on + b * oc + i * ohs;                                  \
                    for (Py_ssize_t j = 0; j < ow; j++)                                              \
                        ob[j] = row[j * (DW)];                                                       \
                    for (Py_ssize_t u = 0; u < kh; u++)                                              \
                        for (Py_ssize_t v = u ? 0 : 1; v < kw; v++)                                  \
                            pool_max_tap_##T(row + u * lh * sh + v * lw, ob, ow, DW);               \
                }

#define DEFINE_POOL(T, U, NAME)                                                                       \
    static void NAME(const T *restrict x, T *restrict o, const Py_ssize_t *g, int mode, long long divisor)           \
    {                                                                                              \
        Py_ssize_t n = g[0], c = g[1], h = g[2], w = g[3], sn = g[4], sc = g[5], sh = g[6],      \
                   sw = g[7], oh = g[8], ow = g[9], on = g[10], oc = g[11], ohs = g[12],           \
                   ows = g[13], kh = g[14], kw = g[15], dh = g[16], dw = g[17], ph = g[18],        \
                   pw = g[19], lh = g[20], lw = g[21];                                             \
        /* every window inside the input (no padding, none past the end): the same taps in the   \
         * same order without the bounds tests, the divisor one constant; the channels the inner   \
         * loop where they are the input's closest dim (a channels-last input: its memory order;   \
         * out is a fresh buffer: restrict) */                                                     \
        if (ph == 0 && pw == 0 && (oh - 1) * dh + (kh - 1) * lh < h && (ow - 1) * dw + (kw - 1) * lw < w) { \
            T div = (T)(divisor ? divisor : (long long)(kh * kw));                                 \
            Py_ssize_t ash = sh < 0 ? -sh : sh, asw = sw < 0 ? -sw : sw, asc = sc < 0 ? -sc : sc;  \
            if (c > 1 && asc < asw && asc < (h > 1 ? ash : asw)) {                                 \
                if (sc == 1 && oc == 1)                                                            \
                    POOL_CHANNELS_LAST(T, 1, 1)                                                    \
                else                                                                               \
                    POOL_CHANNELS_LAST(T, sc, oc)                                                  \
                return;                                                                            \
            }                                                                                      \
            if (mode == 0 && sw == 1 && ows == 1 && ow >= 8) { /* (max rows: a tap across a row) */ \
                if (dw == 2 && kh == 1 && kw == 2 && lw == 1)                                      \
                    for (Py_ssize_t a = 0; a < n; a++)                                             \
                        for (Py_ssize_t b = 0; b < c; b++)                                         \
                            for (Py_ssize_t i = 0; i < oh; i++)                                    \
                                pool_max_pair_##T(x + a * sn + b * sc + i * dh * sh, o + a * on + b * oc + i * ohs, ow); \
                else if (dw == 2)                                                                  \
                    POOL_ROWS(T, 2)                                                                \
                else if (dw == 1)                                                                  \
                    POOL_ROWS(T, 1)                                                                \
                else                                                                               \
                    POOL_ROWS(T, dw)                                                               \
                return;                                                                            \
            }                                                                                      \
            for (Py_ssize_t a = 0; a < n; a++)                                                     \
                for (Py_ssize_t b = 0; b < c; b++)                                                 \
                    for (Py_ssize_t i = 0; i < oh; i++)                                            \
                        for (Py_ssize_t j = 0; j < ow; j++) {                                      \
                            const T *win = x + a * sn + b * sc + i * dh * sh + j * dw * sw;        \
                            T r;                                                                   \
                            if (mode == 0) {                                                       \
                                r = win[0];                                                        \
                                for (Py_ssize_t u = 0; u < kh; u++)                                \
                                    for (Py_ssize_t v = 0; v < kw; v++) {                          \
                                        T e = win[u * lh * sh + v * lw * sw];                      \
                                        U take = (U)0 - (U)((e > r) | (e != e));                    \
                                        U eb, rb; /* (a select by masks: random data mispredicts a branch) */ \
                                        memcpy(&eb, &e, sizeof(T));                                \
                                        memcpy(&rb, &r, sizeof(T));                                \
                                        rb = (eb & take) | (rb & ~take);                           \
                                        memcpy(&r, &rb, sizeof(T));                                \
                                    }                                                              \
                            } else {                                                               \
                                T sum = 0;                                                         \
                                for (Py_ssize_t u = 0; u < kh; u++)                                \
                                    for (Py_ssize_t v = 0; v < kw; v++)                            \
                                        sum += win[u * sh + v * sw];                               \
                                r = sum / div;                                                     \
                            }                                                                      \
                            o[a * on + b * oc + i * ohs + j * ows] = r;                            \
                        }                                                                          \
            return;                                                                                \
        }                                                                                          \
        for (Py_ssize_t a = 0; a < n; a++)                                                         \
            for (Py_ssize_t b = 0; b < c; b++) {                                                   \
                const T *plane = x + a * sn + b * sc;                                              \
                T *op = o + a * on + b * oc;                                                       \
                for (Py_ssize_t i = 0; i < oh; i++)                                                \
                    for (Py_ssize_t j = 0; j < ow; j++) {                                          \
                        Py_ssize_t y0 = i * dh - ph, x0 = j * dw - pw;                             \
                        T r;                                                                       \
                        if (mode == 0) {                                                           \
                            int taken = 0;                                                         \
                            r = (T)-INFINITY;                                                      \
                            for (Py_ssize_t u = 0; u < kh; u++) {                                  \
                                Py_ssize_t y = y0 + u * lh;                                        \
                                if (y < 0 || y >= h)                                               \
                                    continue;                                                      \
                                for (Py_ssize_t v = 0; v < kw; v++) {                              \
                                    Py_ssize_t xx = x0 + v * lw;                                   \
                                    if (xx < 0 || xx >= w)                                         \
                                        continue;                                                  \
                                    T e = plane[y * sh + xx * sw];                                 \
                                    if (!taken || e > r || e != e)                                 \
                                        r = e;                                                     \
                                    taken = 1;                                                     \
                                }                                                                  \
                            }                                                                      \
                        } else {                                                                   \
                            Py_ssize_t y1 = y0 + kh < h + ph ? y0 + kh : h + ph;                   \
                            Py_ssize_t x1 = x0 + kw < w + pw ? x0 + kw : w + pw;                   \
                            Py_ssize_t size = (y1 - y0) * (x1 - x0);                               \
                            if (y0 < 0) y0 = 0;                                                    \
                            if (x0 < 0) x0 = 0;                                                    \
                            if (y1 > h) y1 = h;                                                    \
                            if (x1 > w) x1 = w;                                                    \
                            T sum = 0;                                                             \
                            for (Py_ssize_t y = y0; y < y1; y++)                                   \
                                for (Py_ssize_t xx = x0; xx < x1; xx++)                            \
                                    sum += plane[y * sh + xx * sw];                                \
                            long long div = divisor ? divisor                                      \
                                : mode == 1 ? (long long)size                                      \
                                : (long long)((y1 - y0) * (x1 - x0));                              \
                            r = sum / (T)div;                                                      \
                        }                                                                          \
                        op[i * ohs + j * ows] = r;                                                 \
                    }                                                                              \
            }                                                                                      \
    }

DEFINE_POOL(float, uint32_t, pool_f32)
DEFINE_POOL(double, uint64_t, pool_f64)

/* The lowest and highest element index (n, c, p, q) reach from `base` (sizes >= 1). */
static void pool_extent(Py_ssize_t base, const Py_ssize_t *size, const Py_ssize_t *stride, Py_ssize_t *lo,
                        Py_ssize_t *hi)
{
    *lo = *hi = base;
    for (int k = 0; k < 4; k++) {
        Py_ssize_t step = (size[k] - 1) * stride[k];
        if (step < 0)
            *lo += step;
        else
            *hi += step;
    }
}

static PyObject *py_pool_windows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "pool_windows(storage, out, offset, geometry, mode, divisor) takes 6 arguments");
        return NULL;
    }
    if (!PyBytes_Check(args[3]) || PyBytes_GET_SIZE(args[3]) != 22 * (Py_ssize_t)sizeof(Py_ssize_t)) {
        PyErr_SetString(PyExc_TypeError, "pool_windows: geometry must be 22 packed Py_ssize_t (struct '22n')");
        return NULL;
    }
    Py_ssize_t g[22];
    memcpy(g, PyBytes_AS_STRING(args[3]), sizeof(g));
    Py_ssize_t offset = PyLong_AsSsize_t(args[2]);
    if (offset == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t mode = PyLong_AsSsize_t(args[4]);
    if (mode == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t divisor = PyLong_AsSsize_t(args[5]);
    if (divisor == -1 && PyErr_Occurred())
        return NULL;
    if (mode < 0 || mode > 2 || divisor < 0 || g[14] < 1 || g[15] < 1 || g[16] < 1 || g[17] < 1 || g[20] < 1
        || g[21] < 1 || g[18] < 0 || g[19] < 0)
        Py_RETURN_FALSE;
    if (g[0] < 0 || g[1] < 0 || g[2] < 0 || g[3] < 0 || g[8] < 0 || g[9] < 0)
        Py_RETURN_FALSE;
    Py_buffer xb, ob;
    if (!in_out_buffers(args[0], args[1], &xb, &ob)) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    int kind = float_kind(&xb);
    int done = 0;
    Py_ssize_t osize[4] = {g[0], g[1], g[8], g[9]}, ostride[4] = {g[10], g[11], g[12], g[13]};
    if (kind && float_kind(&ob) == kind && (uintptr_t)xb.buf % kind == 0 && (uintptr_t)ob.buf % kind == 0) {
        if (!(g[0] && g[1] && g[8] && g[9])) {
            done = 1; /* (no output element) */
        } else if (g[2] >= 1 && g[3] >= 1) {
            Py_ssize_t lo, hi, olo, ohi;
            pool_extent(offset, g, g + 4, &lo, &hi);
            pool_extent(0, osize, ostride, &olo, &ohi);
            if (lo >= 0 && hi < xb.len / kind && olo >= 0 && ohi < ob.len / kind) {
                Py_BEGIN_ALLOW_THREADS
                if (kind == 4)
                    pool_f32((const float *)xb.buf + offset, ob.buf, g, (int)mode, divisor);
                else
                    pool_f64((const double *)xb.buf + offset, ob.buf, g, (int)mode, divisor);
                Py_END_ALLOW_THREADS
                done = 1;
            }
        }
    }
    PyBuffer_Release(&ob);
    PyBuffer_Release(&xb);
    return PyBool_FromLong(done);
}
