/* strided.kernels._randkernel: NumPy's bounded-integer draw, uniform and standard normal fills, without its per-call argument work.
 *
 * ``bounded_int64(capsule, out, off, rng)`` fills ``out`` (a writable C-contiguous buffer of
 * int64) with ``off + X`` where each X is uniform on [0, rng], drawn from the bit generator whose
 * ``bit_generator.capsule`` is given. It is ``numpy.random.Generator.integers(low, low + rng,
 * size=n, dtype=np.int64, endpoint=True)`` step for step: the same branches (rng == 0: no draw;
 * rng < 2**32 - 1: Lemire's method on 32-bit draws; rng == 2**32 - 1: a plain 32-bit draw;
 * rng == 2**64 - 1: a plain 64-bit draw; otherwise Lemire on 64-bit draws), the same calls into the
 * bit generator in the same order, so the same numbers and the same stream afterwards
 * (numpy/random/src/distributions/distributions.c, random_bounded_uint64_fill with
 * use_masked = false, which is what Generator.integers uses; tests/test_rand_kernel.py compares
 * the two over the branches' edges and the generator's buffered 32-bit half).
 *
 * Why: Generator.integers spends ~3-4 us a call on Python-level checks (np.prod(size),
 * np.asarray of the bounds) before its C loop; a 12-element draw is ~0.1 us of that loop.
 * The caller holds strided's lock of the generator (NumPy's own lock is not taken: nothing
 * else reaches the private numpy Generator strided wraps).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <math.h>

#include "_ziggurat_tables.h"

#include "_rand_target.h"

/* numpy/random/bitgen.h: the public interface of a NumPy bit generator's capsule. */
typedef struct bitgen {
    void *state;
    uint64_t (*next_uint64)(void *st);
    uint32_t (*next_uint32)(void *st);
    double (*next_double)(void *st);
    uint64_t (*next_raw)(void *st);
} bitgen_t;

/* Lemire's method on 32-bit draws, rng < 0xFFFFFFFF (NumPy's buffered_bounded_lemire_uint32). */
static inline uint32_t lemire32(bitgen_t *b, uint32_t rng)
{
    const uint32_t rng_excl = rng + 1;
    uint64_t m = ((uint64_t)b->next_uint32(b->state)) * rng_excl;
    uint32_t leftover = (uint32_t)(m & 0xFFFFFFFFUL);
    if (leftover < rng_excl) {
        const uint32_t threshold = (UINT32_MAX - rng) % rng_excl;
        while (leftover < threshold) {
            m = ((uint64_t)b->next_uint32(b->state)) * rng_excl;
            leftover = (uint32_t)(m & 0xFFFFFFFFUL);
        }
    }
    return (uint32_t)(m >> 32);
}

/* Lemire's method on 64-bit draws, 0xFFFFFFFF < rng < 0xFFFFFFFFFFFFFFFF (bounded_lemire_uint64). */
static inline uint64_t lemire64(bitgen_t *b, uint64_t rng)
{
    const uint64_t rng_excl = rng + 1;
    __uint128_t m = ((__uint128_t)b->next_uint64(b->state)) * rng_excl;
    uint64_t leftover = (uint64_t)m;
    if (leftover < rng_excl) {
        const uint64_t threshold = (UINT64_MAX - rng) % rng_excl;
        while (leftover < threshold) {
            m = ((__uint128_t)b->next_uint64(b->state)) * rng_excl;
            leftover = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

/* NumPy's random_bounded_uint64_fill(b, off, rng, cnt, use_masked=false, out). */
static void fill(bitgen_t *b, uint64_t off, uint64_t rng, Py_ssize_t cnt, uint64_t *out)
{
    Py_ssize_t i;
    if (rng == 0) {
        for (i = 0; i < cnt; i++) out[i] = off;
    } else if (rng == 0xFFFFFFFFULL) {
        for (i = 0; i < cnt; i++) out[i] = off + (uint64_t)b->next_uint32(b->state);
    } else if (rng < 0xFFFFFFFFULL) {
        for (i = 0; i < cnt; i++) out[i] = off + lemire32(b, (uint32_t)rng);
    } else if (rng == 0xFFFFFFFFFFFFFFFFULL) {
        for (i = 0; i < cnt; i++) out[i] = off + b->next_uint64(b->state);
    } else {
        for (i = 0; i < cnt; i++) out[i] = off + lemire64(b, rng);
    }
}

/* fill's draws converted into a float32/float64 buffer: out[i] = (T)(int64)(off + X) (the int64
 * sample of Generator.integers cast as NumPy casts it, C's conversion). */
#define FILL_AS(NAME, T)                                                                               \
    static void NAME(bitgen_t *b, uint64_t off, uint64_t rng, Py_ssize_t cnt, T *out)                  \
    {                                                                                                  \
        Py_ssize_t i;                                                                                  \
        if (rng == 0) {                                                                                \
            for (i = 0; i < cnt; i++) out[i] = (T)(int64_t)off;                                        \
        } else if (rng == 0xFFFFFFFFULL) {                                                             \
            for (i = 0; i < cnt; i++) out[i] = (T)(int64_t)(off + (uint64_t)b->next_uint32(b->state)); \
        } else if (rng < 0xFFFFFFFFULL) {                                                              \
            for (i = 0; i < cnt; i++) out[i] = (T)(int64_t)(off + lemire32(b, (uint32_t)rng));         \
        } else if (rng == 0xFFFFFFFFFFFFFFFFULL) {                                                     \
            for (i = 0; i < cnt; i++) out[i] = (T)(int64_t)(off + b->next_uint64(b->state));           \
        } else {                                                                                       \
            for (i = 0; i < cnt; i++) out[i] = (T)(int64_t)(off + lemire64(b, rng));                   \
        }                                                                                              \
    }
FILL_AS(fill_float, float)
FILL_AS(fill_double, double)

/* bounded_float(capsule, out, off, rng) -> bool: bounded_int64's draws (off + X, X uniform on
 * [0, rng]) written into a float32/float64 buffer as NumPy's cast of the int64 sample writes them
 * (random_() of a float tensor: Generator.integers, then the copy into the target); False,
 * nothing drawn, for any other buffer. */
static PyObject *py_bounded_float(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "bounded_float(capsule, out, off, rng) takes 4 arguments, not %zd", nargs);
        return NULL;
    }
    long long off = PyLong_AsLongLong(args[2]);
    if (off == -1 && PyErr_Occurred()) return NULL;
    unsigned long long rng = PyLong_AsUnsignedLongLong(args[3]);
    if (rng == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    bitgen_t *b = (bitgen_t *)PyCapsule_GetPointer(args[0], "BitGenerator");
    if (b == NULL) return NULL;
    Py_buffer view;
    int kind = float_target(args[1], &view);
    if (kind == 0) Py_RETURN_FALSE;
    Py_ssize_t cnt = view.len / view.itemsize;
    if (kind == 'f') fill_float(b, (uint64_t)off, (uint64_t)rng, cnt, (float *)view.buf);
    else fill_double(b, (uint64_t)off, (uint64_t)rng, cnt, (double *)view.buf);
    PyBuffer_Release(&view);
    Py_RETURN_TRUE;
}

/* below_fill's loop: cnt float64 uniform draws compared with p, 1 or 0 written into out (kind
 * 'f': float32, 'd': float64). (The comparison kept as an integer in a register, so GCC makes no
 * branch of it: a coin flip mispredicts half the time, ~4x the loop's time at p = 0.5.) */
static void below_loop(bitgen_t *b, int kind, void *buf, Py_ssize_t cnt, double p)
{
    if (kind == 'f') {
        float *out = (float *)buf;
        for (Py_ssize_t i = 0; i < cnt; i++) {
            int lt = b->next_double(b->state) < p;
            __asm__("" : "+r"(lt));
            out[i] = (float)lt;
        }
    } else {
        double *out = (double *)buf;
        for (Py_ssize_t i = 0; i < cnt; i++) {
            int lt = b->next_double(b->state) < p;
            __asm__("" : "+r"(lt));
            out[i] = (double)lt;
        }
    }
}

/* below_fill(capsule, out, p) -> bool: bernoulli_(p)'s sample of a number p,
 * (Generator.random(shape) < p) copied into a float32/float64 buffer: each element's float64
 * uniform draw (the bit generator's next_double, in order) compared with p, 1 or 0 written; False,
 * nothing drawn, for any other buffer. */
static PyObject *py_below_fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "below_fill(capsule, out, p) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    double p = PyFloat_AsDouble(args[2]);
    if (p == -1.0 && PyErr_Occurred()) return NULL;
    bitgen_t *b = (bitgen_t *)PyCapsule_GetPointer(args[0], "BitGenerator");
    if (b == NULL) return NULL;
    Py_buffer view;
    int kind = float_target(args[1], &view);
    if (kind == 0) Py_RETURN_FALSE;
    below_loop(b, kind, view.buf, view.len / view.itemsize, p);
    PyBuffer_Release(&view);
    Py_RETURN_TRUE;
}

/* Above this many elements the loop runs without the GIL (below, releasing it costs more). */
#define NOGIL_COUNT 4096

static PyObject *py_bounded_int64(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *capsule;
    Py_buffer view;
    long long off;
    unsigned long long rng;
    if (!PyArg_ParseTuple(args, "Ow*LK:bounded_int64", &capsule, &view, &off, &rng))
        return NULL;
    bitgen_t *b = (bitgen_t *)PyCapsule_GetPointer(capsule, "BitGenerator");
    if (b == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    if (view.len % 8 != 0 || ((uintptr_t)view.buf) % 8 != 0) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "bounded_int64: out must be an aligned buffer of int64");
        return NULL;
    }
    Py_ssize_t cnt = view.len / 8;
    if (cnt >= NOGIL_COUNT) {
        Py_BEGIN_ALLOW_THREADS
        fill(b, (uint64_t)off, (uint64_t)rng, cnt, (uint64_t *)view.buf);
        Py_END_ALLOW_THREADS
    } else {
        fill(b, (uint64_t)off, (uint64_t)rng, cnt, (uint64_t *)view.buf);
    }
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* uniform_fill's loop: cnt uniform draws on [0, 1) into out, float32 ('f': next_uint32 >> 8
 * times 2**-24, NumPy's next_float) or float64 ('d': next_double). */
static void uniform_loop(bitgen_t *b, int kind, void *buf, Py_ssize_t cnt)
{
    if (kind == 'f') {
        float *out = (float *)buf;
        for (Py_ssize_t i = 0; i < cnt; i++) out[i] = (b->next_uint32(b->state) >> 8) * (1.0f / 16777216.0f);
    } else {
        double *out = (double *)buf;
        for (Py_ssize_t i = 0; i < cnt; i++) out[i] = b->next_double(b->state);
    }
}

/* uniform_fill(capsule, out) -> bool: Generator.random(dtype=out's, out=out) step for step (NumPy's
 * random_standard_uniform_fill_f / random_standard_uniform_fill): each float32 is
 * (next_uint32 >> 8) * 2**-24 (next_float), each float64 the bit generator's next_double, in
 * order, so the same numbers and the same stream afterwards. out: a C-contiguous buffer of
 * format "f" or "d". False (nothing drawn) for any other buffer, an unaligned or read-only one
 * included (float_target's: the caller takes its Python path). Why: Generator.random's argument handling is most of a small draw. */
static PyObject *py_uniform_fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "uniform_fill(capsule, out) takes 2 arguments, not %zd", nargs);
        return NULL;
    }
    bitgen_t *b = (bitgen_t *)PyCapsule_GetPointer(args[0], "BitGenerator");
    if (b == NULL) return NULL;
    Py_buffer view;
    int kind = float_target(args[1], &view);  /* (_rand_target.h: 0 for any other buffer, nothing drawn) */
    if (kind == 0) Py_RETURN_FALSE;
    uniform_loop(b, kind, view.buf, view.len / view.itemsize);
    PyBuffer_Release(&view);
    Py_RETURN_TRUE;
}

/* bernoulli_fill(capsule, probs, out) -> bool: strided.bernoulli(p)'s sample of a float32/float64
 * tensor of probabilities, (Generator.random(shape, dtype) < probs).astype(dtype), step for step:
 * each element's uniform draw as uniform_fill makes it, in order, compared with its probability
 * in the dtype, 1.0 or 0.0 written to out. probs and out: C-contiguous buffers of one format, "f"
 * or "d", and one length. False, with nothing drawn, where a probability is outside [0, 1] or NaN
 * (the caller's checks raise PyTorch's error), a buffer is unaligned, or the two overlap. */
static PyObject *py_bernoulli_fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "bernoulli_fill(capsule, probs, out) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    bitgen_t *b = (bitgen_t *)PyCapsule_GetPointer(args[0], "BitGenerator");
    if (b == NULL) return NULL;
    Py_buffer p, view;
    if (PyObject_GetBuffer(args[1], &p, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[2], &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&p);
        return NULL;
    }
    PyObject *answer = Py_False;
    const char *f = view.format ? view.format : "B", *fp = p.format ? p.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    if (*fp == '<' || *fp == '=' || *fp == '@') fp++;
    int single = strcmp(f, "f") == 0 && view.itemsize == 4, dbl = strcmp(f, "d") == 0 && view.itemsize == 8;
    if ((!single && !dbl) || strcmp(f, fp) != 0 || p.itemsize != view.itemsize || p.len != view.len) {
        PyErr_Format(PyExc_ValueError, "bernoulli_fill: probs and out must be C-contiguous float32 or float64 buffers "
                     "of one format and length (formats %s and %s, %zd and %zd bytes)", p.format, view.format, p.len,
                     view.len);
        answer = NULL;
        goto done;
    }
    {
        char *pa = (char *)p.buf, *va = (char *)view.buf;
        if (((uintptr_t)pa) % (uintptr_t)view.itemsize || ((uintptr_t)va) % (uintptr_t)view.itemsize
            || (pa < va + view.len && va < pa + p.len))
            goto done;
    }
    {
        Py_ssize_t cnt = view.len / view.itemsize;
        if (single) {
            const float *q = (const float *)p.buf;
            float *out = (float *)view.buf;
            for (Py_ssize_t i = 0; i < cnt; i++)
                if (!(q[i] >= 0.0f && q[i] <= 1.0f)) goto done;
            for (Py_ssize_t i = 0; i < cnt; i++) {
                int lt = ((b->next_uint32(b->state) >> 8) * (1.0f / 16777216.0f)) < q[i];
                __asm__("" : "+r"(lt)); /* (no branch: below_fill says why) */
                out[i] = (float)lt;
            }
        } else {
            const double *q = (const double *)p.buf;
            double *out = (double *)view.buf;
            for (Py_ssize_t i = 0; i < cnt; i++)
                if (!(q[i] >= 0.0 && q[i] <= 1.0)) goto done;
            for (Py_ssize_t i = 0; i < cnt; i++) {
                int lt = b->next_double(b->state) < q[i];
                __asm__("" : "+r"(lt));
                out[i] = (double)lt;
            }
        }
        answer = Py_True;
    }
done:
    PyBuffer_Release(&p);
    PyBuffer_Release(&view);
    Py_XINCREF(answer);
    return answer;
}

/* add_zero(out) -> bool: out += 0.0 elementwise in out's own type (float32 'f' or float64 'd',
 * C-contiguous, aligned), NumPy's np.add(out, 0.0-of-its-dtype, out) step for step (the same IEEE
 * addition: a -0.0 becomes +0.0, everything else is itself); False, nothing written, for any
 * other buffer. normal_'s "+ mean" for a mean of +0.0 without the ufunc's call (half the fill). */
static PyObject *py_add_zero(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 1) {
        PyErr_Format(PyExc_TypeError, "add_zero(out) takes 1 argument, not %zd", nargs);
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) return NULL;
    const char *f = view.format ? view.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    int single = strcmp(f, "f") == 0 && view.itemsize == 4, dbl = strcmp(f, "d") == 0 && view.itemsize == 8;
    if ((!single && !dbl) || ((uintptr_t)view.buf) % (uintptr_t)view.itemsize != 0) {
        PyBuffer_Release(&view);
        Py_RETURN_FALSE;
    }
    Py_ssize_t cnt = view.len / view.itemsize;
    if (single) {
        volatile float zero = 0.0f; /* (read once: no compiler may drop the addition) */
        float z = zero, *out = (float *)view.buf;
        for (Py_ssize_t i = 0; i < cnt; i++) out[i] = out[i] + z;
    } else {
        volatile double zero = 0.0;
        double z = zero, *out = (double *)view.buf;
        for (Py_ssize_t i = 0; i < cnt; i++) out[i] = out[i] + z;
    }
    PyBuffer_Release(&view);
    Py_RETURN_TRUE;
}


/* ---- NumPy's standard normal (Generator.standard_normal), step for step ----
 *
 * NumPy's ziggurat (numpy/random/src/distributions/distributions.c, random_standard_normal_f and
 * random_standard_normal): the same tables (_ziggurat_tables.h), the same draws in the same
 * order, the same float/double arithmetic (no contraction: -ffp-contract=off), the C library's
 * logf/log/exp on the rare slow paths, so the same numbers and the same stream afterwards.
 * Why: NumPy calls the bit generator through a function pointer per draw and the ziggurat
 * through another and branches on each sample's random sign bit, ~9 ns an element; here ~3 ns
 * (~2.4 ns with PCG64's step inlined). */

#define ZIG_NOR_R 3.6541528853610087963519472518
#define ZIG_NOR_INV_R 0.27366123732975827203338247596
#define ZIG_NOR_R_F 3.6541528853610087963519472518F
#define ZIG_NOR_INV_R_F 0.27366123732975827203338247596F

/* numpy/random/src/pcg64/pcg64.h with native 128-bit arithmetic (the layout NumPy builds with GCC
 * or clang on 64-bit platforms; pcg64_layout_ok checks it against the real generator per call). */
typedef struct { __uint128_t state, inc; } pcg64_random_t;
typedef struct { pcg64_random_t *pcg_state; int has_uint32; uint32_t uinteger; } pcg64_state;

#define PCG_MULT (((__uint128_t)2549297995355413924ULL << 64) + 4865540595714422341ULL)

static inline uint64_t pcg64_next64(pcg64_state *s)
{
    pcg64_random_t *r = s->pcg_state;
    r->state = r->state * PCG_MULT + r->inc;
    uint64_t v = ((uint64_t)(r->state >> 64)) ^ (uint64_t)r->state;
    unsigned rot = (unsigned)(r->state >> 122);
    return (v >> rot) | (v << ((-rot) & 63));
}

static inline uint32_t pcg64_next32(pcg64_state *s)
{
    if (s->has_uint32) {
        s->has_uint32 = 0;
        return s->uinteger;
    }
    uint64_t next = pcg64_next64(s);
    s->has_uint32 = 1;
    s->uinteger = (uint32_t)(next >> 32);
    return (uint32_t)(next & 0xffffffffULL);
}

/* The draws, from the inlined PCG64 (pcg: g is its pcg64_state) or the bit generator's own
 * functions (g is the bitgen_t); pcg is a constant at every call, so each fill is compiled twice. */
#define ZIG_INLINE static inline __attribute__((always_inline))

ZIG_INLINE uint32_t zig_u32(void *g, const int pcg)
{
    return pcg ? pcg64_next32((pcg64_state *)g) : ((bitgen_t *)g)->next_uint32(((bitgen_t *)g)->state);
}

ZIG_INLINE uint64_t zig_u64(void *g, const int pcg)
{
    return pcg ? pcg64_next64((pcg64_state *)g) : ((bitgen_t *)g)->next_uint64(((bitgen_t *)g)->state);
}

ZIG_INLINE float zig_float(void *g, const int pcg) { return (zig_u32(g, pcg) >> 8) * (1.0f / 16777216.0f); }
ZIG_INLINE double zig_double(void *g, const int pcg) { return (zig_u64(g, pcg) >> 11) * (1.0 / 9007199254740992.0); }

/* random_standard_normal_f's rare steps (0.7% of draws): the tail (idx 0) or the wedge test. 1 with
 * *x the sample, 0 for a rejected wedge (the caller draws again). */
ZIG_INLINE int zig_rare_f(void *g, const int pcg, int idx, uint32_t rabs, float *x)
{
    if (idx == 0) {
        for (;;) {
            float xx = -ZIG_NOR_INV_R_F * log1pf(-zig_float(g, pcg));
            float yy = -log1pf(-zig_float(g, pcg));
            if (yy + yy > xx * xx) {
                *x = ((rabs >> 8) & 0x1) ? -(ZIG_NOR_R_F + xx) : ZIG_NOR_R_F + xx;
                return 1;
            }
        }
    }
    return ((zig_fi_float[idx - 1] - zig_fi_float[idx]) * zig_float(g, pcg) + zig_fi_float[idx]) < exp(-0.5 * *x * *x);
}

ZIG_INLINE int zig_rare_d(void *g, const int pcg, int idx, uint64_t rabs, double *x)
{
    if (idx == 0) {
        for (;;) {
            double xx = -ZIG_NOR_INV_R * log1p(-zig_double(g, pcg));
            double yy = -log1p(-zig_double(g, pcg));
            if (yy + yy > xx * xx) {
                *x = ((rabs >> 8) & 0x1) ? -(ZIG_NOR_R + xx) : ZIG_NOR_R + xx;
                return 1;
            }
        }
    }
    return ((zig_fi_double[idx - 1] - zig_fi_double[idx]) * zig_double(g, pcg) + zig_fi_double[idx])
           < exp(-0.5 * *x * *x);
}

/* The sign is set by flipping the sign bit (NumPy's x = -x, the same bits) without a branch: a
 * branch on a random bit mispredicts half the time, most of NumPy's time per sample. */
ZIG_INLINE void zig_fill_f(void *g, const int pcg, Py_ssize_t cnt, float *out)
{
    for (Py_ssize_t i = 0; i < cnt; i++) {
        for (;;) {
            uint32_t r = zig_u32(g, pcg);
            int idx = r & 0xff;
            uint32_t rabs = (r >> 9) & 0x0007fffff;
            union { float f; uint32_t u; } x = {rabs * zig_wi_float[idx]};
            x.u ^= (r & 0x100u) << 23;
            if (__builtin_expect(rabs < zig_ki_float[idx], 1) || zig_rare_f(g, pcg, idx, rabs, &x.f)) {
                out[i] = x.f;
                break;
            }
        }
    }
}

ZIG_INLINE void zig_fill_d(void *g, const int pcg, Py_ssize_t cnt, double *out)
{
    for (Py_ssize_t i = 0; i < cnt; i++) {
        for (;;) {
            uint64_t r = zig_u64(g, pcg);
            int idx = r & 0xff;
            uint64_t rabs = (r >> 9) & 0x000fffffffffffffULL;
            union { double f; uint64_t u; } x = {rabs * zig_wi_double[idx]};
            x.u ^= (r & 0x100u) << 55;
            if (__builtin_expect(rabs < zig_ki_double[idx], 1) || zig_rare_d(g, pcg, idx, rabs, &x.f)) {
                out[i] = x.f;
                break;
            }
        }
    }
}

/* A fill's run on a local copy of PCG64's state, written back after: the loop keeps the state in
 * registers (Python's -fno-strict-aliasing would otherwise make it reload the state from memory
 * after every store to out, which may alias it). The same steps: the same numbers and state. */
#define PCG_LOCAL_RUN(g, call)                                                   \
    do {                                                                         \
        pcg64_state *real_ = (pcg64_state *)(g);                                 \
        pcg64_random_t rs_ = *real_->pcg_state;                                  \
        pcg64_state local_ = {&rs_, real_->has_uint32, real_->uinteger};         \
        void *lg_ = &local_;                                                     \
        call;                                                                    \
        *real_->pcg_state = rs_;                                                 \
        real_->has_uint32 = local_.has_uint32;                                   \
        real_->uinteger = local_.uinteger;                                       \
    } while (0)

static void zig_pcg_fill_f(void *g, Py_ssize_t cnt, float *out) { PCG_LOCAL_RUN(g, zig_fill_f(lg_, 1, cnt, out)); }
static void zig_bg_fill_f(void *g, Py_ssize_t cnt, float *out) { zig_fill_f(g, 0, cnt, out); }
static void zig_pcg_fill_d(void *g, Py_ssize_t cnt, double *out) { PCG_LOCAL_RUN(g, zig_fill_d(lg_, 1, cnt, out)); }
static void zig_bg_fill_d(void *g, Py_ssize_t cnt, double *out) { zig_fill_d(g, 0, cnt, out); }

/* The next_uint64 of a PCG64 whose layout pcg64_layout_ok accepted (NULL before): a bit
 * generator with this function is a PCG64 laid out as pcg64_state, whose step the sampler's
 * normal draw inlines (its own functions otherwise: the same numbers). */
static uint64_t (*pcg_next64_checked)(void *st) = NULL;

/* pcg64_layout_ok(capsule) -> bool: whether the PCG64 bit generator behind capsule keeps its state
 * as pcg64_state above (native 128-bit words): three next_uint32 and two next_uint64 made by its
 * own functions and by the inlined step agree, numbers and state after. It draws from that
 * generator: the caller passes a throwaway one, once per process. */
static PyObject *py_pcg64_layout_ok(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 1) {
        PyErr_Format(PyExc_TypeError, "pcg64_layout_ok(capsule) takes 1 argument, not %zd", nargs);
        return NULL;
    }
    bitgen_t *b = (bitgen_t *)PyCapsule_GetPointer(args[0], "BitGenerator");
    if (b == NULL) return NULL;
    pcg64_state *real = (pcg64_state *)b->state;
    pcg64_random_t copy = *real->pcg_state;
    pcg64_state mine = {&copy, real->has_uint32, real->uinteger};
    int ok = 1;
    for (int k = 0; k < 5; k++) {
        if (k == 2 || k == 4) ok &= pcg64_next64(&mine) == b->next_uint64(b->state);
        else ok &= pcg64_next32(&mine) == b->next_uint32(b->state);
    }
    ok &= copy.state == real->pcg_state->state && copy.inc == real->pcg_state->inc
          && mine.has_uint32 == real->has_uint32 && (!mine.has_uint32 || mine.uinteger == real->uinteger);
    if (ok) /* (the sampler inlines the step for bit generators of this one's kind: its functions) */
        pcg_next64_checked = b->next_uint64;
    return PyBool_FromLong(ok);
}

/* normal_fill(capsule, out, pcg) -> bool: Generator.standard_normal(dtype=out's, out=out)'s draws
 * into the C-contiguous, aligned float32 ("f") or float64 ("d") buffer out, in order: the same
 * numbers, the same stream afterwards. pcg: the generator is a PCG64 whose layout
 * pcg64_layout_ok accepted (its step is inlined), else its own functions are called. False,
 * nothing drawn, for any other buffer (an unaligned or read-only one included). */
static PyObject *py_normal_fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "normal_fill(capsule, out, pcg) takes 3 arguments, not %zd", nargs);
        return NULL;
    }
    bitgen_t *b = (bitgen_t *)PyCapsule_GetPointer(args[0], "BitGenerator");
    if (b == NULL) return NULL;
    int pcg = PyObject_IsTrue(args[2]);
    if (pcg < 0) return NULL;
    Py_buffer view;
    int kind = float_target(args[1], &view);  /* (_rand_target.h: 0 for any other buffer, nothing drawn) */
    if (kind == 0) Py_RETURN_FALSE;
    int single = kind == 'f';
    Py_ssize_t cnt = view.len / view.itemsize;
    void *g = pcg ? b->state : (void *)b;
    if (single) {
        if (pcg) zig_pcg_fill_f(g, cnt, (float *)view.buf);
        else zig_bg_fill_f(g, cnt, (float *)view.buf);
    } else {
        if (pcg) zig_pcg_fill_d(g, cnt, (double *)view.buf);
        else zig_bg_fill_d(g, cnt, (double *)view.buf);
    }
    PyBuffer_Release(&view);
    Py_RETURN_TRUE;
}

/* zig_fill's cnt standard normal draws into out (kind 'f'/'d') from b: PCG64's step inlined where b
 * is a PCG64 of the layout pcg64_layout_ok accepted, its own functions otherwise (the same numbers). */
static void normal_loop(bitgen_t *b, int kind, void *out, Py_ssize_t n)
{
    int pcg = pcg_next64_checked != NULL && b->next_uint64 == pcg_next64_checked;
    void *g = pcg ? b->state : (void *)b;
    if (kind == 'f') {
        if (pcg) zig_pcg_fill_f(g, n, (float *)out);
        else zig_bg_fill_f(g, n, (float *)out);
    } else {
        if (pcg) zig_pcg_fill_d(g, n, (double *)out);
        else zig_bg_fill_d(g, n, (double *)out);
    }
}

/* normal_tensor_fill(capsule, out, mean, std) -> bool: normal(mean_tensor, std)'s values, (1)
 * Generator.standard_normal(shape, dtype=out's) into out (normal_loop: NumPy's ziggurat, the same
 * numbers and stream), (2) * std (always: the Python path multiplies by 1.0 too), (3) + mean[i]
 * (mean: a C-contiguous buffer of out's format and length, not overlapping it), each in out's
 * type. False, nothing drawn, for any other pair of buffers. The caller gives std 0 or within
 * [SCALE_LO, SCALE_HI]: step 2 neither overflows nor underflows, and |draw * std| <= 1.4e16 is
 * below half an ulp of the largest float32 (2**103), so no sum of step 3 overflows (np.add would
 * not warn). */
static PyObject *py_normal_tensor_fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "normal_tensor_fill takes 4 arguments, not %zd", nargs);
        return NULL;
    }
    double s = PyFloat_AsDouble(args[3]);
    if (s == -1.0 && PyErr_Occurred()) return NULL;
    bitgen_t *b = (bitgen_t *)PyCapsule_GetPointer(args[0], "BitGenerator");
    if (b == NULL) return NULL;
    Py_buffer view, mv;
    int kind = float_target(args[1], &view);
    if (kind == 0) Py_RETURN_FALSE;
    if (PyObject_GetBuffer(args[2], &mv, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        PyBuffer_Release(&view);
        Py_RETURN_FALSE;
    }
    const char *f = mv.format ? mv.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    char *ma = (char *)mv.buf, *va = (char *)view.buf;
    if (f[0] != kind || f[1] != 0 || mv.itemsize != view.itemsize || mv.len != view.len
        || ((uintptr_t)ma) % (uintptr_t)mv.itemsize || (ma < va + view.len && va < ma + mv.len)) {
        PyBuffer_Release(&mv);
        PyBuffer_Release(&view);
        Py_RETURN_FALSE;
    }
    Py_ssize_t n = view.len / view.itemsize;
    normal_loop(b, kind, view.buf, n);
    if (kind == 'f') {
        float *o = (float *)view.buf, sf = (float)s;
        const float *m = (const float *)mv.buf;
        for (Py_ssize_t i = 0; i < n; i++) o[i] = o[i] * sf;
        for (Py_ssize_t i = 0; i < n; i++) o[i] = o[i] + m[i];
    } else {
        double *o = (double *)view.buf;
        const double *m = (const double *)mv.buf;
        for (Py_ssize_t i = 0; i < n; i++) o[i] = o[i] * s;
        for (Py_ssize_t i = 0; i < n; i++) o[i] = o[i] + m[i];
    }
    PyBuffer_Release(&mv);
    PyBuffer_Release(&view);
    Py_RETURN_TRUE;
}

/* NumPy's random_interval(b, i) (a uniform integer on [0, i], i >= 1: masked rejection of 32-bit
 * draws below 2**32, of 64-bit ones above) and Generator.shuffle's loop over n int64s (for i from
 * n - 1 down to 1, swap elements i and random_interval(i)), from the inlined PCG64 (pcg) or the
 * bit generator's own functions: the same draws in the same order. */
ZIG_INLINE uint64_t interval(void *g, const int pcg, uint64_t max)
{
    uint64_t mask = max, value;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    if (max <= 0xffffffffULL) {
        while ((value = (zig_u32(g, pcg) & mask)) > max)
            ;
    } else {
        while ((value = (zig_u64(g, pcg) & mask)) > max)
            ;
    }
    return value;
}

/* How many swaps ahead shuffle_run draws its indices (and prefetches the elements they name). */
#define SHUFFLE_AHEAD 16
/* The fewest elements shuffled that way: below, the run (2 MB) stays in L2 and the plain loop is as fast. */
#define SHUFFLE_AHEAD_MIN ((Py_ssize_t)1 << 18)

/* Large n: each j is drawn SHUFFLE_AHEAD swaps before its swap and o[j] prefetched then, so the
 * swap no longer waits on a cache miss (a 2^20-element run spans 8 MB: nearly every o[j] misses
 * once the run outgrows the cache: 2^22 elements 67 -> 36 ms, 2^20 6.6 ms either way). The draws are the same calls in the same order (each j depends on i alone, not on
 * the swaps), the swaps the same in the same order: the same permutation and stream. */
ZIG_INLINE void shuffle_run(void *g, const int pcg, int64_t *o, Py_ssize_t n)
{
    Py_ssize_t i = n - 1;
    if (n >= SHUFFLE_AHEAD_MIN) {
        Py_ssize_t ring[SHUFFLE_AHEAD], next = n - 1; /* next: the i whose j is drawn next */
        for (int k = 0; k < SHUFFLE_AHEAD; k++, next--) {
            ring[k] = (Py_ssize_t)interval(g, pcg, (uint64_t)next);
            __builtin_prefetch(&o[ring[k]], 1);
        }
        for (int slot = 0; next >= 1; i--, next--, slot = slot + 1 == SHUFFLE_AHEAD ? 0 : slot + 1) {
            Py_ssize_t j = ring[slot];
            ring[slot] = (Py_ssize_t)interval(g, pcg, (uint64_t)next);
            __builtin_prefetch(&o[ring[slot]], 1);
            int64_t t = o[j];
            o[j] = o[i];
            o[i] = t;
        }
        /* the last SHUFFLE_AHEAD swaps, their indices drawn: slot runs on around the ring */
        for (int slot = (int)((n - 1 - i) % SHUFFLE_AHEAD); i >= 1; i--, slot = slot + 1 == SHUFFLE_AHEAD ? 0 : slot + 1) {
            Py_ssize_t j = ring[slot];
            int64_t t = o[j];
            o[j] = o[i];
            o[i] = t;
        }
        return;
    }
    for (; i >= 1; i--) {
        Py_ssize_t j = (Py_ssize_t)interval(g, pcg, (uint64_t)i);
        int64_t t = o[j];
        o[j] = o[i];
        o[i] = t;
    }
}

static void shuffle_pcg(void *g, int64_t *o, Py_ssize_t n) { PCG_LOCAL_RUN(g, shuffle_run(lg_, 1, o, n)); }
static void shuffle_bg(void *g, int64_t *o, Py_ssize_t n) { shuffle_run(g, 0, o, n); }

/* randperm_fill(capsule, out) -> bool: Generator.permutation(n) into an int64 buffer of n
 * elements (aligned, writable, C-contiguous): np.arange(n), then Generator.shuffle's loop
 * (shuffle_run), PCG64's step inlined where pcg64_layout_ok accepted its kind (NumPy's own
 * random_interval calls the bit generator through a pointer per draw: the same numbers and
 * stream, ~1.3x slower). False, nothing drawn, for another buffer. Large n (4096 or more)
 * without the GIL, as NumPy's shuffle. */
static PyObject *py_randperm_fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "randperm_fill(capsule, out) takes 2 arguments, not %zd", nargs);
        return NULL;
    }
    bitgen_t *b = (bitgen_t *)PyCapsule_GetPointer(args[0], "BitGenerator");
    if (b == NULL) return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[1], &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    const char *f = view.format ? view.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    if (!((strcmp(f, "l") == 0 || strcmp(f, "q") == 0) && view.itemsize == 8) || ((uintptr_t)view.buf) % 8) {
        PyBuffer_Release(&view);
        Py_RETURN_FALSE;
    }
    int64_t *o = (int64_t *)view.buf;
    Py_ssize_t n = view.len / 8;
    for (Py_ssize_t i = 0; i < n; i++) o[i] = i;
    int pcg = pcg_next64_checked != NULL && b->next_uint64 == pcg_next64_checked;
    void *g = pcg ? b->state : (void *)b;
    if (n >= 4096) { /* (below, releasing the GIL costs more than it lets others run) */
        Py_BEGIN_ALLOW_THREADS
        if (pcg) shuffle_pcg(g, o, n);
        else shuffle_bg(g, o, n);
        Py_END_ALLOW_THREADS
    } else {
        if (pcg) shuffle_pcg(g, o, n);
        else shuffle_bg(g, o, n);
    }
    PyBuffer_Release(&view);
    Py_RETURN_TRUE;
}

/* ---- the compiled samplers' entry (kernels/_front.h, entry_sample) ----
 *
 * sample(op, bitgen, kind, out, n, x): the in-place samplers' common call drawn into out (n
 * elements of kind 'f' float32 or 'd' float64, aligned, writable), what random.py's fast path of
 * that sampler writes for its float arguments x, in the same order from the same stream; 1, or
 * 0 with nothing drawn for arguments it does not take (the forward then decides). The caller
 * holds the generator's lock. Ops (random.py's _SAMPLERS names them):
 *   0 uniform_(from, to): from == 0 and to == 1 only: uniform_fill's draws;
 *   1 normal_(mean, std): the ziggurat (normal_fill's), then * std unless std is 1, then + mean,
 *     each in out's type (np.multiply / np.add with a Python float: its value rounded to out's
 *     type first); only std 0, 1 or within [SCALE_LO, SCALE_HI] and mean 0 or within that in
 *     magnitude, where no step can overflow or make a NaN (NumPy would not warn);
 *   2 random_(): bounded_float's integers on [0, 2**24] (float32) or [0, 2**53] (float64);
 *   3 bernoulli_(p): 0 <= p <= 1: below_fill's draws.
 * SCALE_LO and SCALE_HI are random.py's _SCALE_LO and _SCALE_HI (tests/test_rand_sampler_front.py
 * compares them). */
#define SCALE_LO 1e-20
#define SCALE_HI 1e15

static int scale_ok(double v) { return v >= SCALE_LO && v <= SCALE_HI; }

static int sample(int op, void *bitgen, int kind, void *out, Py_ssize_t n, const double *x)
{
    bitgen_t *b = (bitgen_t *)bitgen;
    switch (op) {
    case 0:
        if (!(x[0] == 0.0 && x[1] == 1.0))
            return 0;
        uniform_loop(b, kind, out, n);
        return 1;
    case 1: {
        double m = x[0], s = x[1];
        if (!(s == 0.0 || s == 1.0 || scale_ok(s)) || !(m == 0.0 || scale_ok(fabs(m))))
            return 0;
        normal_loop(b, kind, out, n);
        if (kind == 'f') {
            float *o = (float *)out, sf = (float)s, mf = (float)m;
            if (s != 1.0)
                for (Py_ssize_t i = 0; i < n; i++) o[i] = o[i] * sf;
            for (Py_ssize_t i = 0; i < n; i++) o[i] = o[i] + mf;
        } else {
            double *o = (double *)out;
            if (s != 1.0)
                for (Py_ssize_t i = 0; i < n; i++) o[i] = o[i] * s;
            for (Py_ssize_t i = 0; i < n; i++) o[i] = o[i] + m;
        }
        return 1;
    }
    case 2:
        if (kind == 'f') fill_float(b, 0, (uint64_t)1 << 24, n, (float *)out);
        else fill_double(b, 0, (uint64_t)1 << 53, n, (double *)out);
        return 1;
    case 3:
        if (!(x[0] >= 0.0 && x[0] <= 1.0))
            return 0;
        below_loop(b, kind, out, n, x[0]);
        return 1;
    }
    return 0;
}

static PyMethodDef methods[] = {
    {"randperm_fill", (PyCFunction)(void (*)(void))py_randperm_fill, METH_FASTCALL,
     "randperm_fill(capsule, out) -> bool: Generator.permutation(len(out)) into the int64 buffer out (PCG64's\n"
     "step inlined)."},
    {"normal_tensor_fill", (PyCFunction)(void (*)(void))py_normal_tensor_fill, METH_FASTCALL,
     "normal_tensor_fill(capsule, out, mean, std) -> bool: standard_normal * std + mean (a buffer) into out\n"
     "(the ziggurat of normal_fill)."},
    {"normal_fill", (PyCFunction)(void (*)(void))py_normal_fill, METH_FASTCALL,
     "normal_fill(capsule, out, pcg) -> bool: Generator.standard_normal(dtype=out.dtype, out=out)'s draws into the\n"
     "float32 or float64 buffer out (pcg: PCG64's step inlined, its layout checked by pcg64_layout_ok); False\n"
     "(nothing drawn) for any other buffer."},
    {"pcg64_layout_ok", (PyCFunction)(void (*)(void))py_pcg64_layout_ok, METH_FASTCALL,
     "pcg64_layout_ok(capsule) -> bool: whether this PCG64's state is laid out as normal_fill's inlined step\n"
     "reads it (draws from it: pass a throwaway generator)."},
    {"add_zero", (PyCFunction)(void (*)(void))py_add_zero, METH_FASTCALL,
     "add_zero(out) -> bool: out += 0.0 in out's float32/float64 type (np.add's bits: -0.0 becomes +0.0);\n"
     "False (nothing written) for another buffer."},
    {"bernoulli_fill", (PyCFunction)(void (*)(void))py_bernoulli_fill, METH_FASTCALL,
     "bernoulli_fill(capsule, probs, out) -> bool: (Generator.random(dtype) < probs) as 1.0/0.0 into out; False,\n"
     "nothing drawn, for a probability outside [0, 1] or NaN, an unaligned buffer or an overlap."},
    {"uniform_fill", (PyCFunction)(void (*)(void))py_uniform_fill, METH_FASTCALL,
     "uniform_fill(capsule, out) -> bool: Generator.random(dtype=out.dtype, out=out)'s draws into the float32 or\n"
     "float64 buffer out; False (nothing drawn) where out is unaligned."},
    {"bounded_float", (PyCFunction)(void (*)(void))py_bounded_float, METH_FASTCALL,
     "bounded_float(capsule, out, off, rng) -> bool: bounded_int64's draws cast into the float32/float64 buffer\n"
     "out; False (nothing drawn) for another buffer."},
    {"below_fill", (PyCFunction)(void (*)(void))py_below_fill, METH_FASTCALL,
     "below_fill(capsule, out, p) -> bool: (Generator.random(shape) < p) as 1/0 into the float32/float64 buffer\n"
     "out; False (nothing drawn) for another buffer."},
    {"bounded_int64", py_bounded_int64, METH_VARARGS,
     "bounded_int64(capsule, out, off, rng): fill the int64 buffer out with off + uniform integers\n"
     "on [0, rng] (rng as an unsigned 64-bit number), the draws Generator.integers makes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "strided.kernels._randkernel",
    "NumPy's bounded-integer draw without its per-call overhead (see strided.kernels.native).", -1, methods,
};

PyMODINIT_FUNC PyInit__randkernel(void)
{
    PyObject *m = PyModule_Create(&module);
    /* sampler: the compiled samplers' entry (sample, above), for kernels/_front.h */
    PyObject *cap = m != NULL ? PyCapsule_New((void *)sample, "strided.sampler", NULL) : NULL;
    if (cap == NULL || PyModule_AddObject(m, "sampler", cap) < 0) {
        Py_XDECREF(cap);
        Py_XDECREF(m);
        return NULL;
    }
    return m;
}
