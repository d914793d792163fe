/* strided.kernels._sleefkernel: PyTorch's CPU sigmoid and silu of float32, bit for bit.
 *
 * PyTorch's sigmoid_kernel and silu_kernel (aten/src/ATen/native/cpu/UnaryOpsKernel.cpp,
 * Activation.cpp) are cpu_kernel_vec loops: a vectorized function over each inner row in steps of
 * 2 * Vectorized<float>::size() elements, the scalar function over the row's last (len % step)
 * elements, and the scalar function throughout a row that is not contiguous (the caller,
 * strided.kernels.sleef, finds those rows). The vectorized function calls Vectorized<float>::exp(),
 * which is SLEEF's Sleef_expf16_u10 under ATen's AVX512 capability (Sleef_expf8_u10 under AVX2:
 * the same algorithm per lane, sleefsimdsp.c's xexpf with every vmla a fused multiply-add); the
 * scalar function calls std::exp, the C library's expf. So:
 *   vectorized  sigmoid: 1 / (1 + (-x).exp())         silu: x / (1 + (-x).exp())
 *   scalar      sigmoid: 1 / (1 + expf(-x))           silu: x / (1 + expf(-x))
 * (each division IEEE's: Vectorized<float>::reciprocal and operator/ are _mm512_div_ps; a NaN x
 * gives x's NaN quieted with its sign flipped in sigmoid, measured on PyTorch 2.13 in both loops,
 * so its vectorized negation is a sign flip, not 0 - x, which keeps the sign).
 *
 * sleef_expf below is xexpf as one lane: q = rint(d / ln 2) (round to nearest even, as cvtps2dq),
 * s = d - q ln 2 in two fused steps, a degree-6 polynomial in five fused steps, 1 + fma(s*s, u, s),
 * then u * 2^(q >> 1) * 2^(q - (q >> 1)); d < -104 gives +0, d > 100 +inf, NaN the quieted NaN.
 * The AVX-512 form (sixteen lanes) is used where the CPU has AVX512F (checked at run time; the
 * build needs no -march), the plain C form (fmaf: the C library's where the build has no FMA
 * instructions, exact either way) elsewhere; both give the same bits, and the tests run both.
 *
 * run(x, out, op, run, chunk, step, form): x and out C-contiguous float32 buffers of one length n
 * (out may be x itself); op 0: SLEEF's expf alone, 1: sigmoid, 2: silu. The flat range is cut into
 * pieces at every multiple of run and of chunk (chunk 0: none; run 0: n); in each piece the first
 * (len - len % step) elements take the vectorized function and the rest the scalar one; step 0:
 * every element the scalar function, step -1: every element the vectorized one. form -1 picks
 * AVX-512 where the CPU has it, 0 the plain C form, 1 AVX-512 (False where the CPU lacks it).
 * Answers True once written, False (nothing written) where the form is unavailable.
 * capability() -> int: Vectorized<float>::size() under the capability ATen picks on this CPU
 * (16: AVX512F, BW, DQ and VL; 8: AVX2 and FMA; 0: neither, whose Vectorized<float>::exp is
 * std::exp lane by lane, the scalar function's bits). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define HAVE_X86 1
#else
#define HAVE_X86 0
#endif

#define R_LN2F 1.442695040888963407359924681001892137426645954152985934135449406931f
#define L2UF 0.693145751953125f
#define L2LF 1.428606765330187045e-06f
#define C0 0.000198527617612853646278381f
#define C1 0.00139304355252534151077271f
#define C2 0.00833336077630519866943359f
#define C3 0.0416664853692054748535156f
#define C4 0.166666671633720397949219f

static float pow2i(int32_t q)
{
    uint32_t b = (uint32_t)(q + 0x7f) << 23;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* xexpf, one lane (see the note above) */
static float sleef_expf(float d)
{
    if (d != d) return d + d;  /* (the lanes' NaN: s = fma(q, -L2U, d) is d quieted, and stays it) */
    if (d < -104.0f) return 0.0f;
    if (d > 100.0f) return INFINITY;
    int32_t q = (int32_t)nearbyintf(d * R_LN2F);
    float qf = (float)q, s, u;
    s = fmaf(qf, -L2UF, d);
    s = fmaf(qf, -L2LF, s);
    u = C0;
    u = fmaf(u, s, C1);
    u = fmaf(u, s, C2);
    u = fmaf(u, s, C3);
    u = fmaf(u, s, C4);
    u = fmaf(u, s, 0.5f);
    u = 1.0f + fmaf(s * s, u, s);
    int32_t h = q >> 1;
    return u * pow2i(h) * pow2i(q - h);
}

static inline float vec_lane(float x, int op)
{
    if (op == 1) return 1.0f / (1.0f + sleef_expf(-x));
    if (op == 2) return x / (1.0f + sleef_expf(-x));
    return sleef_expf(x);
}

static inline float scalar_lane(float x, int op)
{
    if (op == 1) return 1.0f / (1.0f + expf(-x));
    if (op == 2) return x / (1.0f + expf(-x));
    return sleef_expf(x);  /* (op 0 has no scalar function of PyTorch's: SLEEF's throughout) */
}

#if HAVE_X86
__attribute__((target("avx512f"))) static __m512 sleef_expf16(__m512 d)
{
    __m512i q = _mm512_cvtps_epi32(_mm512_mul_ps(d, _mm512_set1_ps(R_LN2F)));
    __m512 qf = _mm512_cvtepi32_ps(q);
    __m512 s = _mm512_fmadd_ps(qf, _mm512_set1_ps(-L2UF), d);
    s = _mm512_fmadd_ps(qf, _mm512_set1_ps(-L2LF), s);
    __m512 u = _mm512_set1_ps(C0);
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(C1));
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(C2));
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(C3));
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(C4));
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.5f));
    u = _mm512_add_ps(_mm512_set1_ps(1.0f), _mm512_fmadd_ps(_mm512_mul_ps(s, s), u, s));
    __m512i h = _mm512_srai_epi32(q, 1), bias = _mm512_set1_epi32(0x7f);
    __m512 p1 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(h, bias), 23));
    __m512 p2 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_sub_epi32(q, h), bias), 23));
    u = _mm512_mul_ps(_mm512_mul_ps(u, p1), p2);
    __mmask16 under = _mm512_cmp_ps_mask(d, _mm512_set1_ps(-104.0f), _CMP_LT_OQ);
    __mmask16 over = _mm512_cmp_ps_mask(_mm512_set1_ps(100.0f), d, _CMP_LT_OQ);
    u = _mm512_maskz_mov_ps((__mmask16)~under, u);
    return _mm512_mask_mov_ps(u, over, _mm512_set1_ps(INFINITY));
}

__attribute__((target("avx512f"))) static __m512 vec16(__m512 x, int op)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    if (op == 0) return sleef_expf16(x);
    __m512 e = sleef_expf16(_mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN))));
    return _mm512_div_ps(op == 1 ? one : x, _mm512_add_ps(one, e));
}

/* the vectorized function over x[0..m) (a whole number of 16 or not: the last lanes masked) */
__attribute__((target("avx512f"))) static void vec_block16(const float *x, float *o, Py_ssize_t m, int op)
{
    Py_ssize_t i = 0;
    for (; i + 16 <= m; i += 16) _mm512_storeu_ps(o + i, vec16(_mm512_loadu_ps(x + i), op));
    if (i < m) {
        __mmask16 k = (__mmask16)((1u << (m - i)) - 1);
        _mm512_mask_storeu_ps(o + i, k, vec16(_mm512_maskz_loadu_ps(k, x + i), op));
    }
}

static int has_avx512f(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}

static int capability_lanes(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")
        && __builtin_cpu_supports("avx512vl"))
        return 16;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 8;
    return 0;
}
#else
static int has_avx512f(void) { return 0; }
static int capability_lanes(void) { return 0; }
#endif

static void vec_block(const float *x, float *o, Py_ssize_t m, int op, int wide)
{
#if HAVE_X86
    if (wide) {
        vec_block16(x, o, m, op);
        return;
    }
#endif
    (void)wide;
    for (Py_ssize_t i = 0; i < m; i++) o[i] = vec_lane(x[i], op);
}

static void run_pieces(const float *x, float *o, Py_ssize_t n, int op, Py_ssize_t run, Py_ssize_t chunk,
                       Py_ssize_t step, int wide)
{
    if (step < 0) {
        vec_block(x, o, n, op, wide);
        return;
    }
    if (run <= 0) run = n;
    Py_ssize_t a = 0;
    while (a < n) {
        Py_ssize_t b = (a / run + 1) * run;  /* the next cut: a multiple of run or of chunk */
        if (chunk > 0 && (a / chunk + 1) * chunk < b) b = (a / chunk + 1) * chunk;
        if (b > n) b = n;
        Py_ssize_t v = step > 0 ? (b - a) - (b - a) % step : 0;
        if (v) vec_block(x + a, o + a, v, op, wide);
        for (Py_ssize_t i = a + v; i < b; i++) o[i] = scalar_lane(x[i], op);
        a = b;
    }
}

static PyObject *py_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 7) {
        PyErr_Format(PyExc_TypeError, "run(x, out, op, run, chunk, step, form) takes 7 arguments, not %zd", nargs);
        return NULL;
    }
    long op = PyLong_AsLong(args[2]);
    Py_ssize_t run = PyLong_AsSsize_t(args[3]), chunk = PyLong_AsSsize_t(args[4]), step = PyLong_AsSsize_t(args[5]);
    long form = PyLong_AsLong(args[6]);
    if (PyErr_Occurred()) return NULL;
    if (op < 0 || op > 2 || form < -1 || form > 1) {
        PyErr_Format(PyExc_ValueError, "run: op must be 0, 1 or 2 and form -1, 0 or 1 (got %ld, %ld)", op, form);
        return NULL;
    }
    int wide = form == 0 ? 0 : has_avx512f();
    if (form == 1 && !wide) Py_RETURN_FALSE;
    Py_buffer x, out;
    if (PyObject_GetBuffer(args[0], &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    PyObject *answer = NULL;
    if (strcmp(x.format, "f") != 0 || strcmp(out.format, "f") != 0 || x.len != out.len) {
        PyErr_Format(PyExc_ValueError, "run: x and out must be C-contiguous float32 buffers of one length "
                     "(formats %s and %s, %zd and %zd bytes)", x.format, out.format, x.len, out.len);
        goto done;
    }
    /* out is x or apart from it: each element is read before its own slot is written */
    const char *xl = x.buf, *ol = out.buf;
    if (xl != ol && xl < ol + out.len && ol < xl + x.len) {
        PyErr_SetString(PyExc_ValueError, "run: out overlaps x partly");
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    run_pieces(x.buf, out.buf, x.len / 4, (int)op, run, chunk, step, wide);
    Py_END_ALLOW_THREADS
    answer = Py_True;
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    Py_XINCREF(answer);
    return answer;
}

static PyObject *py_capability(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromLong(capability_lanes());
}

static PyMethodDef methods[] = {
    {"run", (PyCFunction)(void (*)(void))py_run, METH_FASTCALL, "PyTorch's float32 sigmoid / silu loops (see the file)"},
    {"capability", py_capability, METH_NOARGS, "Vectorized<float>::size() under ATen's capability here"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_sleefkernel", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__sleefkernel(void) { return PyModule_Create(&module); }
