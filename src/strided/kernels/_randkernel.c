/* strided.kernels._randkernel: NumPy's bounded-integer draw, without its per-call argument work.
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
    Py_ssize_t cnt = view.len / view.itemsize;
    /* (the comparison kept as an integer in a register, so GCC makes no branch of it: a coin flip
     * mispredicts half the time, ~4x the loop's time at p = 0.5) */
    if (kind == 'f') {
        float *out = (float *)view.buf;
        for (Py_ssize_t i = 0; i < cnt; i++) {
            int lt = b->next_double(b->state) < p;
            __asm__("" : "+r"(lt));
            out[i] = (float)lt;
        }
    } else {
        double *out = (double *)view.buf;
        for (Py_ssize_t i = 0; i < cnt; i++) {
            int lt = b->next_double(b->state) < p;
            __asm__("" : "+r"(lt));
            out[i] = (double)lt;
        }
    }
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

/* uniform_fill(capsule, out) -> bool: Generator.random(dtype=out's, out=out) step for step (NumPy's
 * random_standard_uniform_fill_f / random_standard_uniform_fill): each float32 is
 * (next_uint32 >> 8) * 2**-24 (next_float), each float64 the bit generator's next_double, in
 * order, so the same numbers and the same stream afterwards. out: a C-contiguous buffer of
 * format "f" or "d". False (nothing drawn) for an unaligned or read-only buffer (the caller takes
 * its Python path). Why: Generator.random's argument handling is most of a small draw. */
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
    if (PyObject_GetBuffer(args[1], &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyErr_Clear(); /* (read-only memory: nothing drawn, the caller's Python path refuses it) */
        Py_RETURN_FALSE;
    }
    const char *f = view.format ? view.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    int single = strcmp(f, "f") == 0 && view.itemsize == 4, dbl = strcmp(f, "d") == 0 && view.itemsize == 8;
    if (!single && !dbl) {
        PyErr_Format(PyExc_ValueError, "uniform_fill: out must be a C-contiguous float32 or float64 buffer (format %s)",
                     view.format);
        PyBuffer_Release(&view);
        return NULL;
    }
    if (((uintptr_t)view.buf) % (uintptr_t)view.itemsize != 0) {
        PyBuffer_Release(&view);
        Py_RETURN_FALSE;
    }
    Py_ssize_t cnt = view.len / view.itemsize;
    if (single) {
        float *out = (float *)view.buf;
        for (Py_ssize_t i = 0; i < cnt; i++) out[i] = (b->next_uint32(b->state) >> 8) * (1.0f / 16777216.0f);
    } else {
        double *out = (double *)view.buf;
        for (Py_ssize_t i = 0; i < cnt; i++) out[i] = b->next_double(b->state);
    }
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

static PyMethodDef methods[] = {
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

PyMODINIT_FUNC PyInit__randkernel(void) { return PyModule_Create(&module); }
