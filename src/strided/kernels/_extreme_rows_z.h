/* The row extremes' AVX-512 copy (included once by _rowkernel.c, after DEFINE_EXTREME_ROWS and
 * the ISA switches).
 *
 * z_extreme_rows(itemsize, a, count, stride, length, out, mode) -> int: the smallest (mode 0) or
 * largest (1) element of each row, as f32/f64_extreme_rows give them: the row's extreme where it
 * is neither a zero nor NaN (then it is the one value it can be), a zero of either sign where the
 * extreme is a zero, the row's first NaN where it holds one (the callers recompute zero and NaN
 * results with NumPy). Returns 0 where it does not take the call (no AVX-512, STRIDED_NATIVE_ROWS_ISA
 * naming another copy, mode 2: the caller's AVX2 / baseline loops run), 1 where it wrote every
 * result.
 *
 * Why: the AVX2 loop (DEFINE_EXTREME) ends each row with a scalar tail (up to 31 float32) and a
 * scalar fold of its 8 lanes, and its loads split cache lines where the row does not start on a
 * 32-byte boundary (NumPy's buffers start 16 bytes past one). Here eight 16-lane (8-lane) running
 * extremes over 64-byte aligned loads, a masked load for the head before the first boundary and
 * for the tail (absent lanes keep the running extreme, and a masked load reads nothing outside
 * the row), a shuffle fold, and the NaN test as one unordered compare per two vectors into a mask
 * (a lane is unordered where either vector's is NaN). A row shorter than a vector is one or two
 * masked loads. Measured (C loop alone, 1000 x 1000 float32 rows, EPYC with AVX-512): 44-48 us
 * -> 42; 4000 x 250: 94 -> 42; one 1M row: 40-42 -> 40.5; one 32 MB row (from memory): 634-687
 * -> 600-623; eight chains rather than four: 1M rows of 1024 44.6-45 -> 43.7-44, one row 42.6 -> 42.
 * (A 32-byte copy of this loop was as fast on 1000-element rows, slower on 250.)
 */
#if HAVE_AVX2_CLONE
#define AVX512Z __attribute__((target("avx512f")))

/* The extreme of a row of n >= 1 elements: T the element, VT its 64-byte vector of L lanes, MT the
 * lane mask, OP the lane max/min, RED its fold of a vector, SFX the intrinsics' suffix. */
#define DEFINE_Z_EXTREME(T, VT, MT, L, SFX, NAME, OP, RED)                                   \
    AVX512Z static T NAME(const T *a, Py_ssize_t n)                                              \
    {                                                                                             \
        VT m0 = _mm512_set1_##SFX(a[0]), m1 = m0, m2 = m0, m3 = m0, m4 = m0, m5 = m0, m6 = m0, m7 = m0; \
        unsigned z = 0; /* (the lanes' unordered tests, OR-ed: nonzero once a NaN was read) */    \
        /* the head up to a 64-byte boundary by one masked load: the loop's loads then never     \
         * split a cache line (a row at 16 bytes past one: ~10% slower) */                        \
        Py_ssize_t i = (Py_ssize_t)(((uintptr_t)0 - (uintptr_t)a) & 63) / (Py_ssize_t)sizeof(T);  \
        if (i > n)                                                                                \
            i = n;                                                                                \
        if (i) {                                                                                  \
            VT v = _mm512_mask_loadu_##SFX(m0, (MT)((1u << i) - 1), a);                           \
            m0 = OP(v, m0);                                                                       \
            z |= (unsigned)_mm512_cmp_##SFX##_mask(v, v, _CMP_UNORD_Q);                           \
        }                                                                                         \
        for (; i + 8 * L <= n; i += 8 * L) {                                                      \
            VT v0 = _mm512_loadu_##SFX(a + i), v1 = _mm512_loadu_##SFX(a + i + L);                \
            VT v2 = _mm512_loadu_##SFX(a + i + 2 * L), v3 = _mm512_loadu_##SFX(a + i + 3 * L);    \
            VT v4 = _mm512_loadu_##SFX(a + i + 4 * L), v5 = _mm512_loadu_##SFX(a + i + 5 * L);    \
            VT v6 = _mm512_loadu_##SFX(a + i + 6 * L), v7 = _mm512_loadu_##SFX(a + i + 7 * L);    \
            m0 = OP(v0, m0); m1 = OP(v1, m1); m2 = OP(v2, m2); m3 = OP(v3, m3);                   \
            m4 = OP(v4, m4); m5 = OP(v5, m5); m6 = OP(v6, m6); m7 = OP(v7, m7);                   \
            z |= (unsigned)(_mm512_cmp_##SFX##_mask(v0, v1, _CMP_UNORD_Q)                         \
                            | _mm512_cmp_##SFX##_mask(v2, v3, _CMP_UNORD_Q)                       \
                            | _mm512_cmp_##SFX##_mask(v4, v5, _CMP_UNORD_Q)                       \
                            | _mm512_cmp_##SFX##_mask(v6, v7, _CMP_UNORD_Q));                     \
        }                                                                                         \
        if (i + 4 * L <= n) { /* (what is left of a block: four more vectors, four chains) */     \
            VT v0 = _mm512_loadu_##SFX(a + i), v1 = _mm512_loadu_##SFX(a + i + L);                \
            VT v2 = _mm512_loadu_##SFX(a + i + 2 * L), v3 = _mm512_loadu_##SFX(a + i + 3 * L);    \
            m4 = OP(v0, m4); m5 = OP(v1, m5); m6 = OP(v2, m6); m7 = OP(v3, m7);                   \
            z |= (unsigned)(_mm512_cmp_##SFX##_mask(v0, v1, _CMP_UNORD_Q)                         \
                            | _mm512_cmp_##SFX##_mask(v2, v3, _CMP_UNORD_Q));                     \
            i += 4 * L;                                                                           \
        }                                                                                         \
        for (; i + L <= n; i += L) {                                                              \
            VT v = _mm512_loadu_##SFX(a + i);                                                     \
            m1 = OP(v, m1);                                                                       \
            z |= (unsigned)_mm512_cmp_##SFX##_mask(v, v, _CMP_UNORD_Q);                           \
        }                                                                                         \
        if (i < n) { /* (the last n - i < L elements; the other lanes keep m2's, a row element) */ \
            MT k = (MT)((1u << (n - i)) - 1);                                                     \
            VT v = _mm512_mask_loadu_##SFX(m2, k, a + i);                                         \
            m2 = OP(v, m2);                                                                       \
            z |= (unsigned)_mm512_cmp_##SFX##_mask(v, v, _CMP_UNORD_Q);                           \
        }                                                                                         \
        if (z) /* (a NaN: the first one) */                                                       \
            for (i = 0; i < n; i++)                                                               \
                if (a[i] != a[i]) return a[i];                                                    \
        return RED(OP(OP(OP(m0, m1), OP(m2, m3)), OP(OP(m4, m5), OP(m6, m7))));                   \
    }

DEFINE_Z_EXTREME(float, __m512, __mmask16, 16, ps, f32_z_largest, _mm512_max_ps, _mm512_reduce_max_ps)
DEFINE_Z_EXTREME(float, __m512, __mmask16, 16, ps, f32_z_smallest, _mm512_min_ps, _mm512_reduce_min_ps)
DEFINE_Z_EXTREME(double, __m512d, __mmask8, 8, pd, f64_z_largest, _mm512_max_pd, _mm512_reduce_max_pd)
DEFINE_Z_EXTREME(double, __m512d, __mmask8, 8, pd, f64_z_smallest, _mm512_min_pd, _mm512_reduce_min_pd)

/* Each row's extreme (mode 0: smallest, 1: largest) into out[i]; row i at a + i * stride. */
#define DEFINE_Z_ROWS(T, NAME)                                                                    \
    AVX512Z static void NAME##_z_extreme_rows(const char *a, Py_ssize_t count, Py_ssize_t stride, \
                                              Py_ssize_t length, T *out, int mode)               \
    {                                                                                             \
        if (mode)                                                                                 \
            for (Py_ssize_t i = 0; i < count; i++)                                                \
                out[i] = NAME##_z_largest((const T *)(a + i * stride), length);                   \
        else                                                                                      \
            for (Py_ssize_t i = 0; i < count; i++)                                                \
                out[i] = NAME##_z_smallest((const T *)(a + i * stride), length);                  \
    }
DEFINE_Z_ROWS(float, f32)
DEFINE_Z_ROWS(double, f64)

static int z_extreme_rows(int itemsize, const char *a, Py_ssize_t count, Py_ssize_t stride, Py_ssize_t length,
                          void *out, int mode)
{
    if (!use_avx512 || mode == 2)
        return 0;
    if (itemsize == 4)
        f32_z_extreme_rows(a, count, stride, length, (float *)out, mode);
    else
        f64_z_extreme_rows(a, count, stride, length, (double *)out, mode);
    return 1;
}
#else
static int z_extreme_rows(int itemsize, const char *a, Py_ssize_t count, Py_ssize_t stride, Py_ssize_t length,
                          void *out, int mode)
{
    (void)itemsize; (void)a; (void)count; (void)stride; (void)length; (void)out; (void)mode;
    return 0;
}
#endif

/* Each row's extreme by the widest copy of the loops this CPU runs (and STRIDED_NATIVE_ROWS_ISA
 * allows): z_extreme_rows (modes 0 and 1), else the AVX2 copy, else the baseline; mode 2: both,
 * the smallest into out[i] and the largest into out[count + i]. `a` and `out` aligned to the
 * element (itemsize 4: float32, 8: float64). */
static void extreme_rows_any(int itemsize, const char *a, Py_ssize_t count, Py_ssize_t stride, Py_ssize_t length,
                             void *out, int mode)
{
    if (z_extreme_rows(itemsize, a, count, stride, length, out, mode))
        return;
#if HAVE_AVX2_CLONE
    if (use_avx2 && itemsize == 4)
        f32_avx2_extreme_rows(a, count, stride, length, (float *)out, mode);
    else if (use_avx2)
        f64_avx2_extreme_rows(a, count, stride, length, (double *)out, mode);
    else
#endif
    if (itemsize == 4)
        f32_extreme_rows(a, count, stride, length, (float *)out, mode);
    else
        f64_extreme_rows(a, count, stride, length, (double *)out, mode);
}

/* The buffers of x (read) and out (written), both C-contiguous: 1 where both are float32 ('f') or
 * both float64 ('d'), each aligned to its element (*itemsize set); 0 where not (another type, a
 * byte order given, an odd address: the caller's answer is "not taken"); -1 with the error set
 * where a buffer cannot be had. Both buffers are held on 0 and 1, none on -1. */
static int float_buffers(PyObject *x, PyObject *out, Py_buffer *xb, Py_buffer *ob, int *itemsize)
{
    if (PyObject_GetBuffer(x, xb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    if (PyObject_GetBuffer(out, ob, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(xb);
        return -1;
    }
    const char *xf = xb->format ? xb->format : "B", *of = ob->format ? ob->format : "B";
    *itemsize = (int)xb->itemsize;
    return xf[0] && !xf[1] && of[0] == xf[0] && !of[1]
           && ((xf[0] == 'f' && *itemsize == 4) || (xf[0] == 'd' && *itemsize == 8))
           && ob->itemsize == *itemsize && (uintptr_t)xb->buf % *itemsize == 0 && (uintptr_t)ob->buf % *itemsize == 0;
}
