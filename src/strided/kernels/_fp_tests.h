/* fp_test(x, out, code) -> bool: an IEEE class test of every element of a C-contiguous, native
 * float32 ("f") or float64 ("d") buffer x, aligned to its element size, into a C-contiguous bool
 * ("?") buffer out of as many elements (1 where the test holds, else 0), by AVX-512's vfpclass:
 *   code 0 isnan, 1 isinf, 2 isfinite, 3 isposinf, 4 isneginf.
 * The class of a float is fixed by its bits, so the bytes are NumPy's np.isnan / np.isinf /
 * np.isfinite (and np.equal(x, +-inf)) exactly; only the speed differs: NumPy 2's float32 loops
 * of these tests are 128-bit, ~15% slower than these on 1M elements (isinf 68 us against 60 us,
 * the time of NumPy's isnan, the memory floor of 4 MB read and 1 MB written). The loads are
 * aligned to 64 bytes (a scalar head first): split loads of unaligned 64-byte vectors cost more
 * than the vector test saves.
 * Without AVX-512 (F, DQ, BW), runs of at most FP_TEST_PLAIN_MAX(code) elements (512; isinf and
 * isfinite 2048) take plain tests of the bits (the same classes); False (nothing written) for a longer run there, for any other buffer, a code out
 * of range, or an overlap: the caller's NumPy ufunc runs instead. The GIL is released from 64K
 * elements, as NumPy's loop releases it. */

#define FP_TEST_FLOAT_IMM(code) ((code) == 0 ? 0x81 : (code) == 1 ? 0x18 : (code) == 2 ? 0x99 : (code) == 3 ? 0x08 : 0x10)

/* one element's test, as the scalar head and tail compute it (the same classes) */
#define FP_TEST_SCALAR(v, code)                                                                    \
    ((code) == 0 ? isnan(v) != 0 : (code) == 1 ? isinf(v) != 0 : (code) == 2 ? isfinite(v) != 0 \
     : (code) == 3 ? (isinf(v) && !signbit(v)) : (isinf(v) && signbit(v)))

/* 64 results per step: float32 four 16-lane vectors, float64 eight 8-lane ones; IMM the vfpclass
 * classes (QNaN 0x01, +inf 0x08, -inf 0x10, SNaN 0x80), INV whether the test is their complement */
#define FP_TEST_LOOP(NAME, T, VEC, LOAD, CLASS, LANES, IMM, INV, CODE)                             \
    __attribute__((target("avx512f,avx512dq,avx512bw"))) static void NAME(const T *x, unsigned char *o, \
                                                                        Py_ssize_t n)             \
    {                                                                                              \
        Py_ssize_t i = 0;                                                                          \
        while (i < n && ((uintptr_t)(x + i) & 63)) {                                               \
            o[i] = (unsigned char)FP_TEST_SCALAR(x[i], CODE);                                      \
            i++;                                                                                   \
        }                                                                                          \
        for (; i + 64 <= n; i += 64) {                                                             \
            __mmask64 m = 0;                                                                       \
            for (int k = 0; k < 64 / (LANES); k++) {                                               \
                VEC v = LOAD(x + i + (LANES) * k);                                                 \
                m |= (__mmask64)(CLASS(v, IMM)) << ((LANES) * k);                                  \
            }                                                                                      \
            if (INV)                                                                               \
                m = ~m;                                                                            \
            _mm512_storeu_si512((void *)(o + i), _mm512_maskz_set1_epi8(m, 1));                    \
        }                                                                                          \
        for (; i < n; i++)                                                                         \
            o[i] = (unsigned char)FP_TEST_SCALAR(x[i], CODE);                                      \
    }

#define FP_TEST_PAIR(code, IMM, INV)                                                               \
    FP_TEST_LOOP(fp_test_f##code, float, __m512, _mm512_load_ps, _mm512_fpclass_ps_mask, 16, IMM, INV, code) \
    FP_TEST_LOOP(fp_test_d##code, double, __m512d, _mm512_load_pd, _mm512_fpclass_pd_mask, 8, IMM, INV, code)

FP_TEST_PAIR(0, 0x81, 0)
FP_TEST_PAIR(1, 0x18, 0)
FP_TEST_PAIR(2, 0x99, 1)
FP_TEST_PAIR(3, 0x08, 0)
FP_TEST_PAIR(4, 0x10, 0)

typedef void (*fp_test_f_fn)(const float *, unsigned char *, Py_ssize_t);
typedef void (*fp_test_d_fn)(const double *, unsigned char *, Py_ssize_t);
static const fp_test_f_fn fp_test_floats[5] = {fp_test_f0, fp_test_f1, fp_test_f2, fp_test_f3, fp_test_f4};
static const fp_test_d_fn fp_test_doubles[5] = {fp_test_d0, fp_test_d1, fp_test_d2, fp_test_d3, fp_test_d4};

static int fp_test_cpu(void)
{
    static int known = -1;
    if (known < 0)
        known = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")
                && __builtin_cpu_supports("avx512bw");
    return known;
}

/* b's element size (4: float32 "f", 8: float64 "d") where b is a C-contiguous buffer of native
 * (little-endian) floats aligned to their size, else 0 (the loops refuse it) */
static int fp_operand(const Py_buffer *b)
{
    char kind = format_kind(b);
    int size = kind == 'f' && b->itemsize == 4 ? 4 : kind == 'd' && b->itemsize == 8 ? 8 : 0;
    int little = b->format[0] != '>' && b->format[0] != '!';
    return size && little && PyBuffer_IsContiguous(b, 'C') && !((uintptr_t)b->buf % (uintptr_t)size) ? size : 0;
}

/* CALL with the GIL released from 64K elements (n), as NumPy's loop releases it */
#define FP_RUN_RELEASED(n, CALL)                                                                   \
    do {                                                                                           \
        int release_ = (n) >= (1 << 16);                                                           \
        PyThreadState *ts_ = release_ ? PyEval_SaveThread() : NULL;                                \
        CALL;                                                                                      \
        if (release_)                                                                              \
            PyEval_RestoreThread(ts_);                                                             \
    } while (0)

/* Without AVX-512, the runs of at most this many elements take the plain tests below (a small
 * run's NumPy call costs more than its loop: ~0.6 ns an element here against NumPy's ~0.1 and its
 * call's ~0.4 us; isinf's and isfinite's other path is their Python entry, ~3 us), longer ones go
 * to NumPy's ufunc (False). */
#define FP_TEST_PLAIN_MAX(code) ((code) == 1 || (code) == 2 ? 2048 : 512)

/* the tests of n elements (size 4: float32, 8: float64) on their bits, FP_TEST_SCALAR's classes
 * (|x|'s bits above +inf's: NaN; equal: an infinity; below: finite; +inf's or -inf's word
 * exactly), so the bytes of NumPy's tests; integer compares the compiler vectorizes */
#define FP_TEST_BITS(T, U, ABS, INF, NEG)                                                          \
    {                                                                                              \
        const U *u = (const U *)x;                                                                 \
        switch (code) {                                                                            \
        case 0: for (Py_ssize_t i = 0; i < n; i++) o[i] = (u[i] & ABS) > INF; break;               \
        case 1: for (Py_ssize_t i = 0; i < n; i++) o[i] = (u[i] & ABS) == INF; break;              \
        case 2: for (Py_ssize_t i = 0; i < n; i++) o[i] = (u[i] & ABS) < INF; break;               \
        case 3: for (Py_ssize_t i = 0; i < n; i++) o[i] = u[i] == INF; break;                      \
        default: for (Py_ssize_t i = 0; i < n; i++) o[i] = u[i] == NEG; break;                     \
        }                                                                                          \
    }
static void fp_test_plain(const void *x, int size, unsigned char *restrict o, Py_ssize_t n, long code)
{
    if (size == 4)
        FP_TEST_BITS(float, uint32_t, 0x7FFFFFFFu, 0x7F800000u, 0xFF800000u)
    else
        FP_TEST_BITS(double, uint64_t, 0x7FFFFFFFFFFFFFFFull, 0x7FF0000000000000ull, 0xFFF0000000000000ull)
}
#undef FP_TEST_BITS

static PyObject *py_fp_test(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Py_buffer xb, ob;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "fp_test(x, out, code) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    long code = PyLong_AsLong(args[2]);
    if (code == -1 && PyErr_Occurred())
        return NULL;
    if (code < 0 || code > 4)
        Py_RETURN_FALSE;
    int wide = fp_test_cpu();
    if (in_out_buffers(args[0], args[1], &xb, &ob) < 0)
        return NULL;
    PyObject *answer = Py_False;
    int size = fp_operand(&xb);
    if (size && format_kind(&ob) == '?' && ob.itemsize == 1 && ob.len * size == xb.len && !overlaps(&xb, &ob)
        && PyBuffer_IsContiguous(&ob, 'C') && (wide || ob.len <= FP_TEST_PLAIN_MAX(code))) {
        Py_ssize_t n = ob.len;
        if (!wide)
            fp_test_plain(xb.buf, size, ob.buf, n, code);
        else
            FP_RUN_RELEASED(n, size == 4 ? fp_test_floats[code](xb.buf, ob.buf, n) : fp_test_doubles[code](xb.buf, ob.buf, n));
        answer = Py_True;
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

/* fp_sqrt(x, out) -> bool: the square root of every element of a C-contiguous, native float32
 * ("f") or float64 ("d") buffer x, aligned to its element size, into a C-contiguous buffer out of
 * the same format and length, by AVX-512's vsqrtps / vsqrtpd (x's loads aligned to 64 bytes after
 * a scalar head of sqrtf / sqrt). IEEE's square root is correctly rounded, so the bits are NumPy's
 * np.sqrt (-0.0 kept, the default NaN for a negative, a NaN quieted with its payload: x86's
 * sqrtps gives the same; the tests compare random bit patterns). NumPy 2's float32 sqrt loop is
 * 128-bit: 1M float32 ~190 us against its ~640 us (standalone, a loaded machine; ~365 us quiet).
 * False (nothing written) on a CPU without AVX-512 (F, DQ, BW), for any other buffer, or an
 * overlap. No floating-point flag is looked at (the callers' NumPy calls ignore them: QUIET). */
#define FP_SQRT_LOOP(NAME, T, VEC, LOAD, STORE, SQRT, LANES, SCALAR)                               \
    __attribute__((target("avx512f,avx512dq,avx512bw"))) static void NAME(const T *x, T *o, Py_ssize_t n) \
    {                                                                                              \
        Py_ssize_t i = 0;                                                                          \
        while (i < n && ((uintptr_t)(x + i) & 63)) {                                               \
            o[i] = SCALAR(x[i]);                                                                   \
            i++;                                                                                   \
        }                                                                                          \
        for (; i + 2 * (LANES) <= n; i += 2 * (LANES)) {                                           \
            VEC a = LOAD(x + i), b = LOAD(x + i + (LANES));                                        \
            STORE(o + i, SQRT(a));                                                                 \
            STORE(o + i + (LANES), SQRT(b));                                                       \
        }                                                                                          \
        for (; i < n; i++)                                                                         \
            o[i] = SCALAR(x[i]);                                                                   \
    }

FP_SQRT_LOOP(fp_sqrt_f, float, __m512, _mm512_load_ps, _mm512_storeu_ps, _mm512_sqrt_ps, 16, sqrtf)
FP_SQRT_LOOP(fp_sqrt_d, double, __m512d, _mm512_load_pd, _mm512_storeu_pd, _mm512_sqrt_pd, 8, sqrt)

static PyObject *py_fp_sqrt(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Py_buffer xb, ob;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "fp_sqrt(x, out) takes 2 arguments, not %zd", nargs);
        return NULL;
    }
    if (!fp_test_cpu())
        Py_RETURN_FALSE;
    if (in_out_buffers(args[0], args[1], &xb, &ob) < 0)
        return NULL;
    PyObject *answer = Py_False;
    int size = fp_operand(&xb);
    if (size && fp_operand(&ob) == size && format_kind(&ob) == format_kind(&xb) && ob.len == xb.len
        && !overlaps(&xb, &ob)) {
        Py_ssize_t n = xb.len / size;
        FP_RUN_RELEASED(n, size == 4 ? fp_sqrt_f(xb.buf, ob.buf, n) : fp_sqrt_d(xb.buf, ob.buf, n));
        answer = Py_True;
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&ob);
    Py_INCREF(answer);
    return answer;
}

#define FP_TEST_METHODS                                                                            \
    {"fp_test", (PyCFunction)(void (*)(void))py_fp_test, METH_FASTCALL,                            \
     "fp_test(x, out, code) -> bool: isnan (0), isinf (1), isfinite (2), isposinf (3), isneginf (4) of a "   \
     "C-contiguous float32/float64 x aligned to its element size into a bool out (False: no AVX-512, other "  \
     "buffers or an overlap, nothing written)"},                                                   \
    {"fp_sqrt", (PyCFunction)(void (*)(void))py_fp_sqrt, METH_FASTCALL,                            \
     "fp_sqrt(x, out) -> bool: np.sqrt's bits of a C-contiguous float32/float64 x into out of its format "  \
     "(False: no AVX-512, other buffers or an overlap, nothing written)"},
