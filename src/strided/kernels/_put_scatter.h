/* ---------------------------------------------------------------- put_tensors: put_ / put in one call
 *
 * Included by _copykernel.c after the index ops (it uses their ix_ operand reader, ix_new and
 * ix_close).
 *
 * put_setup(dense_layout) names strided.kernels.memory.dense_layout: the layout (shape, strides,
 * 0) a copy of a permuted dense self takes (clone's preserve_format keeps its strides). Then
 *
 * put_tensors(self, index, source, accumulate, inplace) answers what strided's put_ (inplace
 * True: self written, True answered) or put (False: a new Tensor, self's bytes copied with
 * self's layout at offset 0, then written) answers, where every precondition holds: Tensors
 * (exactly) of index_setup's kinds; self non-empty, row-major or permuted dense
 * (ix_permuted_dense), its run inside its storage; index int64 and source of self's dtype, both
 * row-major, of one number (1 or more) of elements, whatever their shapes; accumulate exactly
 * True or False (True: not for bool); every index value in [-numel, numel); in place, self's
 * run overlapping neither the index's nor the source's (the general path then checks PyTorch's
 * overlap rules and reads them first). Else None, nothing made or written (the general path
 * raises PyTorch's errors).
 *
 * The writes are PyTorch's cpu_take_put_kernel on one thread: for row-major operands its
 * TensorIterator walks source and index in their row-major order, index k's value (a negative
 * one counts from the end) naming the row-major position of self that source[k] goes to; a
 * repeated position keeps the last value written (accumulate False) or sums every value in
 * that order in self's dtype (True; integers wrap). Every value is checked before the first
 * write. */

static PyObject *put_dense_layout; /* memory.dense_layout (put_setup) */

#define PUT_MAX ((Py_ssize_t)1 << 31) /* the most elements an operand has here (n * size never overflows) */

static PyObject *py_put_setup(PyObject *self, PyObject *dense_layout)
{
    (void)self;
    if (!PyCallable_Check(dense_layout)) {
        PyErr_SetString(PyExc_TypeError, "put_setup(dense_layout): a callable");
        return NULL;
    }
    Py_INCREF(dense_layout);
    Py_XSETREF(put_dense_layout, dense_layout);
    Py_RETURN_NONE;
}

/* The storage element, from the run's start, of self's row-major position p. */
static inline Py_ssize_t put_at(const ix_run *s, Py_ssize_t p)
{
    if (s->row_major)
        return p;
    Py_ssize_t at = 0;
    for (Py_ssize_t j = s->nd - 1; j >= 0; j--) {
        at += (p % s->shape[j]) * s->strides[j];
        p /= s->shape[j];
    }
    return at;
}

/* self += value as PyTorch's `indexed[idx] += iterated` and NumPy's add.at leave it: where self
 * holds a NaN, that NaN (quieted), whatever the value; else self + value. (C's + is commutative to
 * the compiler, which picks the operand order, and x86 keeps the first operand's NaN: spelled
 * out by _copykernel.c's IX_ADD_NAN. Checked against both on NaNs of two signs and payloads.) */
IX_ADD_NAN(put_addf, float, uint32_t, 0x00400000u, o)
IX_ADD_NAN(put_addd, double, uint64_t, 0x0008000000000000ull, o)
#undef IX_ADD_NAN
#define PUT_ADD32(o, v) (int32_t)((uint32_t)(o) + (uint32_t)(v))
#define PUT_ADD64(o, v) (int64_t)((uint64_t)(o) + (uint64_t)(v))
#define PUT_ADD_BOOL(o, v) (v) /* (never used: accumulate into bool takes the general path) */

/* The walk: source[k] written (accumulate: added) at self's row-major position idx[k] (wrapped),
 * k = 0 .. m - 1, into out, a run laid out as s. */
static void put_walk(int kind, int accumulate, char *out, const ix_run *s, const int64_t *idx, const char *src,
                     Py_ssize_t m)
{
    Py_ssize_t n = s->n;
#define PUT_WALK(T, ADD)                                                                              \
    {                                                                                                 \
        T *o = (T *)out;                                                                              \
        const T *v = (const T *)src;                                                                  \
        if (accumulate)                                                                               \
            for (Py_ssize_t k = 0; k < m; k++) {                                                      \
                Py_ssize_t at = put_at(s, idx[k] < 0 ? idx[k] + n : idx[k]);                          \
                o[at] = ADD(o[at], v[k]);                                                             \
            }                                                                                         \
        else                                                                                          \
            for (Py_ssize_t k = 0; k < m; k++)                                                        \
                o[put_at(s, idx[k] < 0 ? idx[k] + n : idx[k])] = v[k];                                \
    }
    switch (kind) {
    case 0: PUT_WALK(float, put_addf) break;
    case 1: PUT_WALK(double, put_addd) break;
    case 2: PUT_WALK(int32_t, PUT_ADD32) break;
    case 3: PUT_WALK(int64_t, PUT_ADD64) break;
    default: PUT_WALK(uint8_t, PUT_ADD_BOOL) break;
    }
#undef PUT_WALK
}
#undef PUT_ADD32
#undef PUT_ADD64
#undef PUT_ADD_BOOL

/* The Tensor over c->flat laid out as self, permuted dense: dense_layout(shape, strides). */
static PyObject *put_adopt_dense(ix_call *c, PyObject *self)
{
    PyObject *strides = PyObject_GetAttr(SLOT(self, off_layout), s_layout_strides);
    if (strides == NULL)
        return NULL;
    PyObject *layout = PyObject_CallFunctionObjArgs(put_dense_layout, c->s.shape_obj, strides, NULL);
    Py_DECREF(strides);
    if (layout == NULL)
        return NULL;
    PyObject *t = NULL;
    if (layout == Py_None) /* (ix_permuted_dense and dense_layout disagree: a bug) */
        PyErr_SetString(PyExc_RuntimeError, "put_tensors: dense_layout refused a permuted dense layout");
    else {
        PyObject *call[3] = {c->flat, layout, ix_dtypes[c->s.kind]};
        t = py_adopt(NULL, call, 3);
    }
    Py_DECREF(layout);
    return t;
}

static PyObject *py_put_tensors(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    ix_call c; /* (c.s: self, c.ix: the index, c.v: the source) */
    if (ix_start(nargs, 5, "put_tensors(self, index, source, accumulate, inplace)", &c) < 0)
        return NULL;
    int accumulate = args[3] == Py_True, inplace = args[4] == Py_True;
    if ((!accumulate && args[3] != Py_False) || put_dense_layout == NULL)
        return ix_close(&c, 0);
    int r = ix_read_as(args[0], &c.s, PUT_MAX, 1);
    if (r > 0)
        r = ix_read_as(args[1], &c.ix, PUT_MAX, 0);
    if (r > 0)
        r = ix_read_as(args[2], &c.v, PUT_MAX, 0);
    if (r <= 0)
        return ix_close(&c, r);
    int kind = c.s.kind;
    Py_ssize_t n = c.s.n, m = c.ix.n, isz = ix_size[kind];
    if (c.ix.kind != 3 || c.v.kind != kind || c.v.n != m || m < 1 || n < 1 || (accumulate && kind > 3))
        return ix_close(&c, 0);
    const int64_t *idx = (const int64_t *)c.ix.data;
    for (Py_ssize_t k = 0; k < m; k++)
        if (idx[k] < -n || idx[k] >= n) /* (the general path raises PyTorch's IndexError) */
            return ix_close(&c, 0);
    char *o;
    if (inplace) {
        /* (NumPy's may_share_memory test on the runs: the general path judges any overlap) */
        const char *lo = c.s.data, *hi = c.s.data + n * isz;
        if ((c.v.data < hi && lo < c.v.data + m * isz) || (c.ix.data < hi && lo < c.ix.data + m * 8))
            return ix_close(&c, 0);
        o = c.s.data;
    } else {
        c.flat = ix_new(n, kind, &o);
        if (c.flat == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_MemoryError))
                return ix_close(&c, -1);
            PyErr_Clear(); /* (the general path's copy explains a failed allocation) */
            return ix_close(&c, 0);
        }
        memcpy(o, c.s.data, (size_t)(n * isz));
    }
    put_walk(kind, accumulate, o, &c.s, idx, c.v.data, m);
    if (inplace)
        return ix_close(&c, 2);
    if (c.s.row_major) {
        c.shape = c.s.shape_obj;
        Py_INCREF(c.shape);
        return ix_close(&c, 1);
    }
    PyObject *t = put_adopt_dense(&c, args[0]);
    ix_free(&c);
    return t;
}
