/* ---------------------------------------------------------------- front: an elementwise op's common call in C
 *
 * front(fallback, arity, table, cinfo, open, quiet[, empty, enabled, blocks]) returns a Front: a callable that runs the
 * small-op fast path of a unary (arity 1) or binary (arity 2) elementwise op's Python forward
 * (``fallback``: strided.ops.elementwise.unary._fast_unary's / binary._fast_binary's ``fn``)
 * for its most common call, and hands every other call to ``fallback`` unchanged:
 *
 *   - no keyword, ``arity`` positional arguments, no listener open (``open``, the OPEN list, empty);
 *   - the first argument exactly a Tensor (adopt_types' class) outside autograd (``_ag`` None);
 *   - its dtype a key of ``table`` (the dtypes whose fast path is one call of a flat-run function);
 *   - its layout row-major at offset 0 over a storage of exactly its elements (``cinfo[shape]``,
 *     the fast paths' memo: (row-major strides, numel, the shared row-major Layout));
 *   - binary: the second argument a Tensor of the same dtype, shape and strides as the first
 *     (outside autograd, offset 0, its storage its elements), or a Python float where the entry
 *     allows it.
 *
 * It then does what the Python path does on that call, in the same order with the same objects:
 * ``quiet(fn, x)`` / ``quiet(fn, x, y)`` (the shared quiet Context's run: NumPy's error state
 * "ignore"), or ``fn(x)`` itself for a direct entry (relu), and ``adopt(result, layout, dtype)``.
 * A busy quiet Context (RuntimeError "cannot enter context": raised before ``fn`` runs) sends the
 * call to ``fallback``, which retries it as the Python path does. So a result, an error and a
 * warning are the Python path's own; only the Python frames are saved.
 *
 * table entries: unary {DType: (fn, direct, result_dtype)} or {DType: (fn, direct, result_dtype,
 * kernel)}, where ``kernel`` (or None) is ``(run, extra, np_dtype, max_n, align)``: a compiled
 * loop tried first, as ``run(x, out, *extra)`` into ``out = empty(n, np_dtype)`` where the
 * kernels are on (native's switch: the front hands the call to ``fallback`` where they are off in
 * this context or a disabled() block is open anywhere), x holds at most ``max_n`` elements and its
 * data is aligned to ``align`` bytes; its False answer (or a refused x) hands over to ``fn`` as
 * above (None: to ``fallback``); a unary kernel's optional sixth item, a Layout, makes it a whole
 * reduction's: ``out = empty(1, np_dtype)`` adopted with that (0-d) Layout, x not 0-d
 * (max(), min()), or a (Layout, pair type) tuple: ``run(x, first, second, *extra)`` into two such
 * results, returned as ``tuple.__new__(pair_type, (first, second))`` (aminmax()); binary {DType: (fn, native, native_min,
 * result_dtype, scalar, fix)}: ``native`` a compiled loop the Python path calls first (directly,
 * on two tensors' runs of at least ``native_min`` elements; None, or its None answer: ``fn``
 * runs), ``fix`` (or None) called as ``fix(x, y, result)`` after ``fn`` (torch_extremes' NaN
 * fix; fn None: the fallback where fn would run); result_dtype None for the operands' dtype; scalar True where ``op(t, float)`` takes the
 * fast path; an optional seventh item, a kernel as the unary entries' (``run(x, y, out, *extra)``),
 * tried first on two tensors' runs (its False answer: ``native``, then ``fn``, as above; no ``fix``
 * after it: its result is the op's). A binary front's entry may instead be a last-dim entry, the
 * unary form (None, direct, result_dtype, kernel): ``op(x, dim)`` with ``dim`` an exact int naming
 * x's last dim (-1 or ndim - 1; positional or the keyword ``dim``), x not 0-d and not empty, calls ``run(x, out, row, *extra)`` (row:
 * the last dim's length; the gate, limit and alignment as above); its refusal, and every other
 * call, goes to ``fallback`` (softmax / log_softmax along rows). A ternary front (arity 3: addcmul,
 * addcdiv) has entries (kernel,): ``op(x, y, z)`` of three twin tensors (the same dtype, shape and
 * row-major runs, outside autograd, no keyword) calls ``run(x, y, z, out, *extra)``; its refusal,
 * the kernels off, and every other call go to ``fallback``.
 *
 * Everything else about a Front is its fallback's: attributes are read from and written to it
 * (``__name__``, ``__doc__``, ``__wrapped__``, the registry's marks), so inspect sees a function;
 * it binds as a method (``x.exp()``), pickles by its qualified name, and is weak-referenceable. */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *fallback, *table, *cinfo, *open, *quiet;
    /* a unary entry's compiled kernel (its fourth item): numpy.empty, and the switch of
     * strided.kernels.native (the context variable of disabled(), the list of its open blocks) */
    PyObject *empty, *enabled, *blocks;
    /* permuted dense operands (see front_dense_of, front_dense_pair): a unary front's (shape,
     * strides) -> Layout memo (strided.kernels.memory.dense_layout's), a binary front's (shape,
     * strides) -> (numel, Layout of op(t, t), Layout of op(t, number)) memo (binary._flat_plans),
     * and the dtypes that take them (NULL: none) */
    PyObject *dense, *dense_dtypes;
    int arity;
    PyObject *weakrefs;
    /* entry fronts (entry_front): the forward, the plain argument types, the keywords that go to
     * the fallback, the operands' test and the positional counts the fast call takes */
    PyObject *fwd, *plain, *aliases, *state, *direct, *grad_mode, *inference, *bump, *name;
    /* an in-place sampler's compiled draw (mode 4; None: none): see entry_sample */
    PyObject *sampler;
    /* an in-place op's compiled write (modes 2 and 4; None: none): see entry_inplace */
    PyObject *inplace;
    int mode;
    Py_ssize_t min_args, max_args;
} FrontObject;

static PyTypeObject Front_Type;
static const char front_busy[] = "cannot enter context";
static PyObject *front_names[5]; /* "shape", "strides", "offset", "used", "dim": interned at module init */

static PyObject *front_fallback(FrontObject *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    return PyObject_Vectorcall(f->fallback, args, nargsf, kwnames);
}

/* The row-major plan of tensor t (a Tensor outside autograd): its storage's flat array and the
 * cinfo entry (borrowed), or NULL (no error set) when the fast path does not apply. */
static PyObject *flat_of(PyObject *cinfo, PyObject *t, PyObject **info_out)
{
    if (SLOT(t, off_ag) != Py_None)
        return NULL;
    PyObject *lay = SLOT(t, off_layout);
    PyObject *shape = PyObject_GetAttr(lay, front_names[0]);
    if (shape == NULL) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *info = PyDict_GetItemWithError(cinfo, shape); /* borrowed */
    Py_DECREF(shape);
    if (info == NULL || !PyTuple_Check(info) || PyTuple_GET_SIZE(info) != 3) {
        PyErr_Clear();
        return NULL;
    }
    if (PyTuple_GET_ITEM(info, 2) != lay) { /* not the shared Layout: compare strides and offset */
        PyObject *strides = PyObject_GetAttr(lay, front_names[1]);
        PyObject *offset = strides ? PyObject_GetAttr(lay, front_names[2]) : NULL;
        int same = 0;
        if (offset != NULL && PyLong_CheckExact(offset) && PyLong_AsLong(offset) == 0)
            same = PyObject_RichCompareBool(strides, PyTuple_GET_ITEM(info, 0), Py_EQ);
        Py_XDECREF(strides);
        Py_XDECREF(offset);
        if (same != 1) {
            PyErr_Clear();
            return NULL;
        }
    }
    PyObject *storage = SLOT(t, off_storage);
    if (storage == NULL || Py_TYPE(storage) != adopt_storage)
        return NULL;
    PyObject *arr = SLOT(storage, off_array);
    Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(info, 1));
    if (arr == NULL || n < 0 || PyObject_Length(arr) != n) {
        PyErr_Clear();
        return NULL;
    }
    *info_out = info;
    return arr;
}

static PyObject *front_flat(FrontObject *f, PyObject *t, PyObject **info_out)
{
    return flat_of(f->cinfo, t, info_out);
}

/* The dense memo's entry (borrowed) for tensor t's (shape, strides), where t is outside autograd,
 * its dtype one of the front's dense dtypes and its layout at offset 0; *shape_out and
 * *strides_out are then new references (NULL otherwise; the caller releases them). NULL (no error
 * set) where any of that fails or the memo has no entry (the Python path fills it). */
static PyObject *dense_entry(FrontObject *f, PyObject *t, PyObject *dtype, PyObject **shape_out, PyObject **strides_out)
{
    *shape_out = *strides_out = NULL;
    if (f->dense == NULL || SLOT(t, off_ag) != Py_None || PySequence_Contains(f->dense_dtypes, dtype) != 1) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *lay = SLOT(t, off_layout);
    PyObject *shape = PyObject_GetAttr(lay, front_names[0]);
    PyObject *strides = shape != NULL ? PyObject_GetAttr(lay, front_names[1]) : NULL;
    PyObject *offset = strides != NULL ? PyObject_GetAttr(lay, front_names[2]) : NULL;
    PyObject *key = offset != NULL && PyLong_CheckExact(offset) && PyLong_AsLong(offset) == 0
                    ? PyTuple_Pack(2, shape, strides) : NULL;
    PyObject *entry = key != NULL ? PyDict_GetItemWithError(f->dense, key) : NULL; /* borrowed */
    PyErr_Clear();
    Py_XDECREF(offset);
    Py_XDECREF(key);
    *shape_out = shape;
    *strides_out = strides;
    return entry;
}

/* Tensor t's storage array (borrowed) where it holds exactly n elements, else NULL. */
static PyObject *storage_run(PyObject *t, Py_ssize_t n)
{
    PyObject *storage = SLOT(t, off_storage);
    PyObject *arr = storage != NULL && Py_TYPE(storage) == adopt_storage ? SLOT(storage, off_array) : NULL;
    if (arr == NULL || n < 0 || PyObject_Length(arr) != n) {
        PyErr_Clear();
        return NULL;
    }
    return arr;
}

/* The run of a permuted dense tensor t (a unary front's operand): its storage's flat array when
 * the dense memo (strided.kernels.memory._DENSE) holds a Layout for its (shape, strides) and
 * dense_entry's other conditions hold, its storage holding exactly its elements; *info_out is then
 * a new reference to the tuple (strides, numel, that Layout), the cinfo entry's form, so that the
 * kernel and fn run as on a row-major run and the result takes t's strides, as the Python path's
 * dense_run gives it. NULL (no error set) otherwise: the fallback. */
static PyObject *front_dense_of(FrontObject *f, PyObject *t, PyObject *dtype, PyObject **info_out)
{
    PyObject *shape, *strides;
    PyObject *layout = dense_entry(f, t, dtype, &shape, &strides);
    PyObject *info = layout != NULL && layout != Py_None ? PyDict_GetItemWithError(f->cinfo, shape) : NULL;
    PyObject *arr = NULL;
    if (info != NULL && PyTuple_Check(info) && PyTuple_GET_SIZE(info) == 3) {
        arr = storage_run(t, PyLong_AsSsize_t(PyTuple_GET_ITEM(info, 1)));
        if (arr != NULL && (*info_out = PyTuple_Pack(3, strides, PyTuple_GET_ITEM(info, 1), layout)) == NULL)
            arr = NULL;
    }
    PyErr_Clear();
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    return arr;
}

/* The runs of op(x, other) (a binary front's call) where x is a permuted dense tensor (as
 * dense_entry takes it, its storage holding exactly its elements) and other either its twin (an
 * exact Tensor of the same dtype and the same memo entry: the same shape and strides, taken the
 * same way) or a Python float where ``scalar`` is true, and the binary plan memo
 * (binary._flat_plans, filled by the Python path's first such call) lays the result out (its
 * Layout for that form, not None): x's array, *other_run set to other's array (borrowed; the float
 * itself for a float), *info_out a new reference to (strides, numel, that Layout). NULL (no error
 * set) otherwise: the fallback. */
static PyObject *front_dense_pair(FrontObject *f, PyObject *x, PyObject *other, PyObject *dtype, int scalar,
                                  PyObject **other_run, PyObject **info_out)
{
    int twin = Py_TYPE(other) == adopt_tensor;
    if (twin ? SLOT(other, off_dtype) != dtype : !(scalar && PyFloat_CheckExact(other)))
        return NULL;
    PyObject *shape, *strides, *oshape = NULL, *ostrides = NULL;
    PyObject *plan = dense_entry(f, x, dtype, &shape, &strides);
    PyObject *arr = NULL, *run = other;
    if (plan != NULL && PyTuple_Check(plan) && PyTuple_GET_SIZE(plan) == 3
        && PyTuple_GET_ITEM(plan, twin ? 1 : 2) != Py_None) {
        Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(plan, 0));
        arr = storage_run(x, n);
        if (twin) /* (equal keys: the one memo entry) */
            run = arr != NULL && dense_entry(f, other, dtype, &oshape, &ostrides) == plan ? storage_run(other, n) : NULL;
        if (arr == NULL || run == NULL
            || (*info_out = PyTuple_Pack(3, strides, PyTuple_GET_ITEM(plan, 0), PyTuple_GET_ITEM(plan, twin ? 1 : 2)))
               == NULL)
            arr = NULL;
        else
            *other_run = run;
    }
    PyErr_Clear();
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    Py_XDECREF(oshape);
    Py_XDECREF(ostrides);
    return arr;
}

/* Run fn on the flat operands through the quiet Context (or directly), adopting the result.
 * Returns NULL with no error set where the call must go to the fallback. */
static PyObject *front_run(FrontObject *f, PyObject *fn, int direct, PyObject *x, PyObject *y,
                           PyObject *info, PyObject *dtype, PyObject *fix)
{
    PyObject *res;
    if (direct) {
        PyObject *a[2] = {x, y};
        res = PyObject_Vectorcall(fn, a, y == NULL ? 1 : 2, NULL);
    } else {
        PyObject *a[3] = {fn, x, y};
        res = PyObject_Vectorcall(f->quiet, a, y == NULL ? 2 : 3, NULL);
        if (res == NULL && PyErr_ExceptionMatches(PyExc_RuntimeError)) {
            /* the shared context busy (before fn ran): the fallback retries as the Python path */
            PyObject *type, *value, *tb;
            PyErr_Fetch(&type, &value, &tb);
            PyObject *text = value ? PyObject_Str(value) : NULL;
            const char *utf8 = text != NULL ? PyUnicode_AsUTF8(text) : NULL;
            int busy = utf8 != NULL && strncmp(utf8, front_busy, sizeof(front_busy) - 1) == 0;
            Py_XDECREF(text);
            PyErr_Clear(); /* (of PyObject_Str / AsUTF8, if either failed) */
            if (busy) {
                Py_XDECREF(type);
                Py_XDECREF(value);
                Py_XDECREF(tb);
                return NULL;
            }
            PyErr_Restore(type, value, tb);
        }
    }
    if (res == NULL)
        return (PyObject *)-1; /* an error of fn's own: propagate */
    if (fix != NULL) {
        PyObject *a[3] = {x, y, res};
        PyObject *done = PyObject_Vectorcall(fix, a, 3, NULL);
        if (done == NULL) {
            Py_DECREF(res);
            return (PyObject *)-1;
        }
        Py_DECREF(done);
    }
    PyObject *a[3] = {res, PyTuple_GET_ITEM(info, 2), dtype};
    PyObject *t = py_adopt(NULL, a, 3);
    Py_DECREF(res);
    return t == NULL ? (PyObject *)-1 : t;
}

/* An entry's compiled kernel (see the header) on the flat run x (and the twin run y, or NULL).
 * Returns 1 with *out set (the adopted result, or (PyObject *)-1 on an error), 0 where the
 * entry's Python functions must run instead, -1 where the call goes to the fallback (the kernels
 * off in this context). */
static int front_kernel(FrontObject *f, PyObject *spec, PyObject *x, PyObject *y, PyObject *z, PyObject *lead,
                        PyObject *info, PyObject *dtype, PyObject **out)
{
    if (f->enabled != NULL && f->enabled != Py_None) { /* native.disabled() in this context */
        PyObject *on = NULL;
        if (PyContextVar_Get(f->enabled, NULL, &on) < 0) {
            *out = (PyObject *)-1;
            return 1;
        }
        int truth = on != NULL ? PyObject_IsTrue(on) : 1;
        Py_XDECREF(on);
        if (truth != 1) {
            PyErr_Clear();
            return -1;
        }
    }
    if (f->blocks != NULL && PyList_Check(f->blocks) && PyList_GET_SIZE(f->blocks) > 0) {
        int open = PyObject_IsTrue(PyList_GET_ITEM(f->blocks, 0)); /* a disabled() block open somewhere */
        if (open != 0) {
            PyErr_Clear();
            return -1;
        }
    }
    if (!PyTuple_Check(spec) || (PyTuple_GET_SIZE(spec) != 5 && PyTuple_GET_SIZE(spec) != 6)
        || !PyTuple_Check(PyTuple_GET_ITEM(spec, 1)))
        return -1;
    PyObject *extra = PyTuple_GET_ITEM(spec, 1);
    /* (a sixth item: a whole reduction's kernel, one element into a fresh result of that Layout,
     * or (Layout, pair type): two such results, run(x, first, second, *extra), made that named
     * tuple; a 0-d x is the fallback's) */
    PyObject *whole = PyTuple_GET_SIZE(spec) == 6 ? PyTuple_GET_ITEM(spec, 5) : NULL, *pair = NULL;
    if (whole != NULL && (!PyTuple_Check(PyTuple_GET_ITEM(info, 0)) || PyTuple_GET_SIZE(PyTuple_GET_ITEM(info, 0)) == 0))
        return 0;
    if (whole != NULL && PyTuple_Check(whole)) {
        if (PyTuple_GET_SIZE(whole) != 2 || !PyType_Check(PyTuple_GET_ITEM(whole, 1)))
            return -1;
        pair = PyTuple_GET_ITEM(whole, 1);
        whole = PyTuple_GET_ITEM(whole, 0);
    }
    Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(info, 1));
    Py_ssize_t max_n = PyLong_AsSsize_t(PyTuple_GET_ITEM(spec, 3));
    Py_ssize_t align = PyLong_AsSsize_t(PyTuple_GET_ITEM(spec, 4));
    Py_ssize_t nextra = PyTuple_GET_SIZE(extra);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return -1;
    }
    if (n > max_n || align < 1 || 2 + (y != NULL) + (z != NULL) + (pair != NULL) + (lead != NULL) + nextra > 8)
        return 0; /* (the call's a[8]) */
    PyObject *runs[3] = {x, y, z};
    for (int i = 0; i < 3 && runs[i] != NULL; i++) {
        Py_buffer view; /* (a C-contiguous run: PyBUF_SIMPLE refuses any other) */
        if (PyObject_GetBuffer(runs[i], &view, PyBUF_SIMPLE) < 0) {
            PyErr_Clear();
            return 0;
        }
        int aligned = (uintptr_t)view.buf % (uintptr_t)align == 0;
        PyBuffer_Release(&view);
        if (!aligned) /* (a from_numpy view's odd address: the kernels refuse it, fn's NumPy runs) */
            return 0;
    }
    PyObject *one = whole != NULL ? PyLong_FromLong(1) : NULL;
    PyObject *e[2] = {whole != NULL ? one : PyTuple_GET_ITEM(info, 1), PyTuple_GET_ITEM(spec, 2)};
    PyObject *res = whole != NULL && one == NULL ? NULL : PyObject_Vectorcall(f->empty, e, 2, NULL);
    PyObject *second = pair != NULL && res != NULL ? PyObject_Vectorcall(f->empty, e, 2, NULL) : NULL;
    Py_XDECREF(one);
    if (res == NULL || (pair != NULL && second == NULL)) {
        Py_XDECREF(res);
        *out = (PyObject *)-1;
        return 1;
    }
    PyObject *a[8] = {x};
    Py_ssize_t na = 1;
    if (y != NULL)
        a[na++] = y;
    if (z != NULL)
        a[na++] = z;
    a[na++] = res;
    if (second != NULL)
        a[na++] = second;
    if (lead != NULL)
        a[na++] = lead;
    for (Py_ssize_t i = 0; i < nextra; i++)
        a[na++] = PyTuple_GET_ITEM(extra, i);
    PyObject *done = PyObject_Vectorcall(PyTuple_GET_ITEM(spec, 0), a, na, NULL);
    if (done == NULL) {
        Py_DECREF(res);
        Py_XDECREF(second);
        *out = (PyObject *)-1;
        return 1;
    }
    int refused = done == Py_False;
    Py_DECREF(done);
    if (refused) {
        Py_DECREF(res);
        Py_XDECREF(second);
        return 0;
    }
    PyObject *b[3] = {res, whole != NULL ? whole : PyTuple_GET_ITEM(info, 2), dtype};
    PyObject *t = py_adopt(NULL, b, 3);
    Py_DECREF(res);
    if (second != NULL) { /* (the pair: pair_type.__new__'s tuple of the two, as tuple.__new__ makes it) */
        b[0] = second;
        PyObject *t2 = t != NULL ? py_adopt(NULL, b, 3) : NULL;
        Py_DECREF(second);
        PyObject *items = t2 != NULL ? PyTuple_Pack(2, t, t2) : NULL;
        PyObject *targs = items != NULL ? PyTuple_Pack(1, items) : NULL;
        Py_XDECREF(t);
        Py_XDECREF(t2);
        Py_XDECREF(items);
        t = targs != NULL ? PyTuple_Type.tp_new((PyTypeObject *)pair, targs, NULL) : NULL;
        Py_XDECREF(targs);
    }
    *out = t == NULL ? (PyObject *)-1 : t;
    return 1;
}

/* A last-dim entry's call op(x, dim) (see the header): its kernel along x's last dim where dim is
 * an exact int naming it (-1 or ndim - 1) and x has elements. Returns as front_call's ``out``:
 * the result, (PyObject *)-1 an error, NULL the fallback's call. */
static PyObject *front_last_dim(FrontObject *f, PyObject *entry, PyObject *x, PyObject *dim, PyObject *info,
                                PyObject *dtype)
{
    PyObject *strides = PyTuple_GET_ITEM(info, 0); /* (row-major: strides[-2] is the last dim's length) */
    Py_ssize_t ndim = PyTuple_Check(strides) ? PyTuple_GET_SIZE(strides) : 0;
    Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(info, 1));
    if (!PyLong_CheckExact(dim) || ndim < 1 || n <= 0) {
        PyErr_Clear();
        return NULL;
    }
    long d = PyLong_AsLong(dim);
    if ((d == -1 && PyErr_Occurred()) || (d != -1 && d != ndim - 1)) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *row = ndim == 1 ? PyTuple_GET_ITEM(info, 1) : PyTuple_GET_ITEM(strides, ndim - 2);
    PyObject *result_dtype = PyTuple_GET_ITEM(entry, 2), *out = NULL;
    int taken = front_kernel(f, PyTuple_GET_ITEM(entry, 3), x, NULL, NULL, row, info,
                             result_dtype == Py_None ? dtype : result_dtype, &out);
    return taken == 1 ? out : NULL; /* (a refusal: the fallback, which has the whole path) */
}

static PyObject *front_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    FrontObject *f = (FrontObject *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    /* (a binary front's op(x, dim=d): its last-dim entries take the keyword as the second argument) */
    int dim_kw = kwnames != NULL && f->arity == 2 && nargs == 1 && PyTuple_GET_SIZE(kwnames) == 1
                 && PyUnicode_Check(PyTuple_GET_ITEM(kwnames, 0))
                 && PyUnicode_Compare(PyTuple_GET_ITEM(kwnames, 0), front_names[4]) == 0;
    if ((kwnames != NULL && !dim_kw) || (!dim_kw && nargs != f->arity) || adopt_tensor == NULL
        || PyList_GET_SIZE(f->open) != 0)
        return front_fallback(f, args, nargsf, kwnames);
    PyObject *x = args[0];
    if (Py_TYPE(x) != adopt_tensor)
        return front_fallback(f, args, nargsf, kwnames);
    PyObject *dtype = SLOT(x, off_dtype);
    PyObject *entry = PyDict_GetItemWithError(f->table, dtype); /* borrowed */
    if (entry == NULL) {
        if (PyErr_Occurred())
            return NULL;
        return front_fallback(f, args, nargsf, kwnames);
    }
    PyObject *info = NULL, *ay = NULL, *dense_y = NULL;
    PyObject *ax = front_flat(f, x, &info);
    if (ax != NULL) {
        Py_INCREF(info);
    } else if (f->arity == 1 ? (ax = front_dense_of(f, x, dtype, &info)) == NULL
               : (f->arity != 2 || dim_kw || PyTuple_GET_SIZE(entry) == 4
                  || (ax = front_dense_pair(f, x, args[1], dtype, PyTuple_GET_ITEM(entry, 4) == Py_True, &dense_y,
                                            &info)) == NULL)) {
        return front_fallback(f, args, nargsf, kwnames);
    } /* (a permuted dense x: info is a new tuple, its own reference; dense_y its twin's run or the float) */
    /* strong references while Python code runs (another thread may rebind the tensors' slots) */
    Py_INCREF(ax);
    Py_INCREF(entry); /* (a kernel's first use may replace the table's entry: see binary_math) */
    PyObject *out = NULL; /* the result, (PyObject *)-1 an error, NULL: the fallback's call */
    if (f->arity == 1) {
        PyObject *result_dtype = PyTuple_GET_ITEM(entry, 2), *fn = PyTuple_GET_ITEM(entry, 0);
        /* (an empty x with a result dtype of its own, the class tests': the fallback, whose path lays
         * out isinf's composite ``x.abs() == inf``, not row-major for some empty shapes: see
         * strided.layout.elementwise_output_strides) */
        if (result_dtype != Py_None && PyLong_AsSsize_t(PyTuple_GET_ITEM(info, 1)) == 0)
            goto done;
        if (result_dtype == Py_None)
            result_dtype = dtype;
        if (PyTuple_GET_SIZE(entry) == 4 && PyTuple_GET_ITEM(entry, 3) != Py_None) {
            int taken = front_kernel(f, PyTuple_GET_ITEM(entry, 3), ax, NULL, NULL, NULL, info, result_dtype, &out);
            if (taken == 1)
                goto done;
            if (taken < 0 || fn == Py_None) {
                out = NULL; /* (the fallback) */
                goto done;
            }
        }
        out = front_run(f, fn, PyObject_IsTrue(PyTuple_GET_ITEM(entry, 1)), ax, NULL, info, result_dtype, NULL);
        goto done;
    }
    if (f->arity == 3) { /* three twin tensors: the entry's kernel, else the fallback */
        PyObject *runs[2] = {NULL, NULL};
        for (int i = 0; i < 2; i++) {
            PyObject *info_i = NULL, *t = args[i + 1];
            if (Py_TYPE(t) != adopt_tensor || SLOT(t, off_dtype) != dtype
                || (runs[i] = front_flat(f, t, &info_i)) == NULL || info_i != info)
                goto done; /* (out NULL: the fallback) */
        }
        Py_INCREF(runs[0]);
        Py_INCREF(runs[1]);
        int taken = front_kernel(f, PyTuple_GET_ITEM(entry, 0), ax, runs[0], runs[1], NULL, info, dtype, &out);
        Py_DECREF(runs[0]);
        Py_DECREF(runs[1]);
        if (taken != 1)
            out = NULL; /* (a refusal, or the kernels off: the fallback, which has the whole path) */
        goto done;
    }
    PyObject *other = args[1];
    if (PyTuple_GET_SIZE(entry) == 4) { /* a last-dim entry: op(x, dim) along x's last dim */
        out = front_last_dim(f, entry, ax, other, info, dtype);
        goto done;
    }
    if (dim_kw)
        goto done; /* (another entry: the fallback) */
    PyObject *result_dtype = PyTuple_GET_ITEM(entry, 3);
    PyObject *native = NULL, *fix = PyTuple_GET_ITEM(entry, 5);
    int twin = 0; /* (two tensors' runs: the compiled kernel's call) */
    if (Py_TYPE(other) == adopt_tensor) {
        PyObject *info_y = NULL;
        if (dense_y != NULL) {
            ay = dense_y; /* (front_dense_pair checked the twin) */
        } else if (SLOT(other, off_dtype) != dtype || (ay = front_flat(f, other, &info_y)) == NULL || info_y != info) {
            ay = NULL;
            goto done; /* (out NULL: the fallback) */
        }
        twin = 1;
        native = PyTuple_GET_ITEM(entry, 1);
        if (native == Py_None
            || PyLong_AsSsize_t(PyTuple_GET_ITEM(info, 1)) < PyLong_AsSsize_t(PyTuple_GET_ITEM(entry, 2)))
            native = NULL;
    } else if (PyFloat_CheckExact(other) && PyTuple_GET_ITEM(entry, 4) == Py_True) {
        /* (op(t, number) of an empty t: the fallback, as binary._flat_plans has it: TensorIterator
         * orders the dims of a row-major empty t by its strides, not always row-major) */
        if (PyLong_AsSsize_t(PyTuple_GET_ITEM(info, 1)) == 0)
            goto done;
        ay = other;
    } else {
        goto done;
    }
    Py_INCREF(ay);
    if (result_dtype == Py_None)
        result_dtype = dtype;
    if (twin && PyTuple_GET_SIZE(entry) == 7 && PyTuple_GET_ITEM(entry, 6) != Py_None) {
        /* (two tensors: the entry's compiled kernel before its native loop and fn) */
        int taken = front_kernel(f, PyTuple_GET_ITEM(entry, 6), ax, ay, NULL, NULL, info, result_dtype, &out);
        if (taken == 1)
            goto done;
        if (taken < 0) {
            out = NULL; /* (the fallback) */
            goto done;
        }
    }
    if (native != NULL) { /* the compiled loop first, as the Python path: its None hands over to fn */
        PyObject *a[2] = {ax, ay};
        PyObject *res = PyObject_Vectorcall(native, a, 2, NULL);
        if (res == NULL) {
            out = (PyObject *)-1;
            goto done;
        }
        if (res != Py_None) {
            PyObject *b[3] = {res, PyTuple_GET_ITEM(info, 2), result_dtype};
            out = py_adopt(NULL, b, 3);
            Py_DECREF(res);
            if (out == NULL)
                out = (PyObject *)-1;
            goto done;
        }
        Py_DECREF(res);
    }
    if (PyTuple_GET_ITEM(entry, 0) == Py_None)
        goto done; /* (no fn: the fallback) */
    out = front_run(f, PyTuple_GET_ITEM(entry, 0), 0, ax, ay, info, result_dtype, fix == Py_None ? NULL : fix);
done:
    Py_DECREF(ax);
    Py_DECREF(info);
    Py_DECREF(entry);
    Py_XDECREF(ay);
    if (out == (PyObject *)-1)
        return NULL;
    if (out == NULL)
        return front_fallback(f, args, nargsf, kwnames);
    return out;
}

/* ---------------------------------------------------------------- entry fronts
 *
 * entry_front(fallback, fwd, mode, plain, aliases, min_args, max_args, open) returns a Front
 * before an op's Python entry (``fallback``: the recording entry grad_mode.track makes, or a
 * guard of an op without a rule) whose every plain call is ``fwd(*args, **kwargs)`` itself. The
 * front makes that call when the entry would: no listener open, no keyword among ``aliases``
 * (NumPy's, which the entry renames), between ``min_args`` and ``max_args`` positional
 * arguments, and the operands plain for ``mode``:
 *   1: every argument and keyword value is an exact Tensor outside autograd, an instance of one
 *      of the exact types ``plain``, or a list or tuple whose items are no Tensor in autograd (a
 *      Tensor subclass anywhere, or any other object, goes to the fallback);
 *   2: the first argument is an exact Tensor outside autograd;
 *   3: the first two are each an exact Tensor outside autograd or no Tensor at all;
 *   4: an in-place method's entry (grad_mode.track_inplace) on an exact Tensor, where the entry
 *      makes the plain write: no tensor has ever required grad (``state["used"]`` False), or
 *      (with a ``bump``: a counted write) grad mode is off (the context variable ``grad_mode``)
 *      and no inference tensor exists (the set ``inference`` empty): an optimizer's step. Its
 *      ``direct`` (the op's fast write, or None) is tried first as ``direct(self, args, kwargs)``
 *      (True: written), else ``fwd`` writes; after either, with a ``bump``, ``bump(self,
 *      name, 1)`` counts the write as the entry counts it (the user's frame is the caller's);
 *   5: ``contiguous()``'s entry (``state``: the fast paths' cinfo memo), nobody listening: the one
 *      argument an exact Tensor outside autograd whose layout is row-major (cinfo[shape]'s
 *      strides, any offset) is the answer itself, as the forward answers it, without its call.
 * A forward marked ``__inplace_kernel__`` (an in-place op's compiled write, see entry_inplace) has
 * its common call written in C: in mode 4 before the sampler and ``direct`` (counted as any write
 * there), in modes 1 to 3 where the front would call ``fwd`` (counted as ``fwd`` counts it).
 * Every other call goes to ``fallback`` unchanged, as does every error's handling: the front
 * only skips the entry's frame where the entry would call ``fwd`` and return its result. */

static int entry_plain_value(FrontObject *f, PyObject *v)
{
    PyTypeObject *t = Py_TYPE(v);
    if (t == adopt_tensor)
        return SLOT(v, off_ag) == Py_None;
    if (PyObject_TypeCheck(v, adopt_tensor))
        return 0; /* a subclass: the entry's own test */
    Py_ssize_t n = PyTuple_GET_SIZE(f->plain);
    for (Py_ssize_t i = 0; i < n; i++)
        if ((PyObject *)t == PyTuple_GET_ITEM(f->plain, i))
            return 1;
    if (t == &PyList_Type || t == &PyTuple_Type) {
        Py_ssize_t m = PySequence_Fast_GET_SIZE(v);
        PyObject **items = PySequence_Fast_ITEMS(v);
        for (Py_ssize_t i = 0; i < m; i++) {
            PyTypeObject *it = Py_TYPE(items[i]);
            if (it == adopt_tensor) {
                if (SLOT(items[i], off_ag) != Py_None)
                    return 0;
            } else if (PyObject_TypeCheck(items[i], adopt_tensor)) {
                return 0;
            }
        }
        return 1;
    }
    return 0;
}

static int entry_untracked(PyObject *v)
{
    if (Py_TYPE(v) == adopt_tensor)
        return SLOT(v, off_ag) == Py_None;
    return !PyObject_TypeCheck(v, adopt_tensor);
}

/* Whether tensor t's layout is row-major: its shape's cinfo entry's shared Layout, or its strides
 * (mode 5). 0 where the memo has no entry yet (the fallback makes it) or on an error (cleared). */
static int entry_row_major(FrontObject *f, PyObject *t)
{
    PyObject *lay = SLOT(t, off_layout);
    PyObject *shape = PyObject_GetAttr(lay, front_names[0]);
    if (shape == NULL) {
        PyErr_Clear();
        return 0;
    }
    PyObject *info = PyDict_GetItemWithError(f->state, shape); /* borrowed */
    Py_DECREF(shape);
    if (info == NULL || !PyTuple_Check(info) || PyTuple_GET_SIZE(info) != 3) {
        PyErr_Clear();
        return 0;
    }
    if (PyTuple_GET_ITEM(info, 2) == lay)
        return 1;
    PyObject *strides = PyObject_GetAttr(lay, front_names[1]);
    int same = strides ? PyObject_RichCompareBool(strides, PyTuple_GET_ITEM(info, 0), Py_EQ) : -1;
    Py_XDECREF(strides);
    if (same < 0) {
        PyErr_Clear();
        return 0;
    }
    return same;
}

/* ---------------------------------------------------------------- compiled samplers (mode 4)
 *
 * An in-place sampler's (``x.normal_()``, ``x.geometric_(0.5)``) common call drawn without its
 * Python forward: random.py's ``compiled_sampler`` marks the forward with ``__sampler__``, the
 * tuple (fn, op, names, defaults, float32, float64, generator, blocks, enabled, most, cinfo):
 *   fn: a PyCapsule "strided.sampler" of a rand module (kernels/_randkernel.c, _randdist.c), whose
 *       pointer is a strided_sampler: ``fn(op, bitgen, kind, out, n, x)`` draws into out (n
 *       elements of kind 'f'/'d') what the forward's fast path writes for the arguments x, and
 *       returns 1; or refuses (0: an argument outside what it takes; nothing drawn);
 *   op: the sampler's number in that module; names, defaults: the forward's float parameters
 *       (a default None: required);
 *   float32, float64: the DTypes it draws; generator: the default Generator (its ``_lock`` taken
 *       around the draw, as ``with g._lock``; its ``_capsule``: None before its first draw);
 *   blocks, enabled: kernels.native's count of open disabled() blocks and its context variable
 *       (inside such a block no compiled kernel runs); most: the largest target drawn here (the
 *       draw holds the GIL); cinfo: the fast paths' memo (front_flat's).
 * The call it takes: positional or keyword floats of those names (exactly float), ``generator``
 * None or left out, ``self`` a plain float32/float64 Tensor outside autograd, row-major at
 * offset 0 over exactly its storage (front_flat), writable and aligned. Everything else, and
 * every refusal, is the forward's (nothing drawn here). */
typedef int (*strided_sampler)(int op, void *bitgen, int kind, void *out, Py_ssize_t n, const double *x);

static PyObject *sampler_names[5]; /* "_capsule", "_lock", "acquire", "release", "generator" */

#define ENTRY_MOST_PARAMS 4 /* (the most float parameters a sampler or in-place write takes) */

/* The call's arguments after self bound to the parameters ``names`` (at most ENTRY_MOST_PARAMS),
 * positional then keywords, into given (NULL: left out): 1, or 0 where there are more positional
 * arguments than names or a keyword is unknown or repeated (the forward's error), or the keyword
 * ``none_only`` (not among names; NULL: none) has a value other than None (passed over where None:
 * the samplers' ``generator=None``). */
static int bind_params(PyObject *names, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                       PyObject *none_only, PyObject **given)
{
    Py_ssize_t count = PyTuple_GET_SIZE(names), nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    if (nargs > count)
        return 0;
    for (Py_ssize_t i = 0; i < count; i++)
        given[i] = i < nargs ? args[i] : NULL;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k), *value = args[nargs + k];
        if (none_only != NULL && (key == none_only || PyUnicode_Compare(key, none_only) == 0)) {
            if (value != Py_None)
                return 0;
            continue;
        }
        Py_ssize_t at = -1;
        for (Py_ssize_t i = 0; i < count && at < 0; i++)
            if (key == PyTuple_GET_ITEM(names, i) || PyUnicode_Compare(key, PyTuple_GET_ITEM(names, i)) == 0)
                at = i;
        if (at < 0 || given[at] != NULL) {
            PyErr_Clear();
            return 0;
        }
        given[at] = value;
    }
    if (PyErr_Occurred()) /* (a PyUnicode_Compare failure: not this call) */
        PyErr_Clear();
    return 1;
}

/* The sampler's arguments into x (1), or 0 where the call is not the one it takes. */
static int sample_args(PyObject *spec, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, double *x)
{
    PyObject *names = PyTuple_GET_ITEM(spec, 2), *defaults = PyTuple_GET_ITEM(spec, 3);
    PyObject *given[ENTRY_MOST_PARAMS];
    if (!bind_params(names, args, nargs, kwnames, sampler_names[4], given))
        return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
        PyObject *v = given[i] != NULL ? given[i] : PyTuple_GET_ITEM(defaults, i);
        if (!PyFloat_CheckExact(v))
            return 0;
        x[i] = PyFloat_AS_DOUBLE(v);
    }
    return 1;
}

/* Whether the compiled kernels are on here: no disabled() block open anywhere (``blocks``,
 * kernels.native._open_blocks), and the context variable ``enabled`` on (kernels.native.enabled_here's
 * first answer). */
static int kernels_on(PyObject *blocks, PyObject *enabled)
{
    PyObject *value = NULL;
    if (PyList_GET_SIZE(blocks) < 1 || PyLong_AsLong(PyList_GET_ITEM(blocks, 0)) != 0) {
        PyErr_Clear();
        return 0;
    }
    if (PyContextVar_Get(enabled, NULL, &value) < 0) {
        PyErr_Clear();
        return 0;
    }
    int on = value == Py_True;
    Py_XDECREF(value);
    return on;
}

/* The compiled draw into self: 1 drawn, 0 not this call (nothing drawn), -1 an error. */
static int entry_sample(FrontObject *f, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *spec = f->sampler, *self = args[0];
    double x[ENTRY_MOST_PARAMS];
    PyObject *dtype = SLOT(self, off_dtype);
    int kind = dtype == PyTuple_GET_ITEM(spec, 4) ? 'f' : dtype == PyTuple_GET_ITEM(spec, 5) ? 'd' : 0;
    if (!kind || !sample_args(spec, args + 1, nargs - 1, kwnames, x)
        || !kernels_on(PyTuple_GET_ITEM(spec, 7), PyTuple_GET_ITEM(spec, 8)))
        return 0;
    PyObject *info = NULL;
    PyObject *arr = flat_of(PyTuple_GET_ITEM(spec, 10), self, &info);
    if (arr == NULL)
        return 0;
    Py_buffer view;
    if (PyObject_GetBuffer(arr, &view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyErr_Clear(); /* (read-only memory: the forward's error) */
        return 0;
    }
    Py_ssize_t size = kind == 'f' ? 4 : 8, n = view.len / size;
    if (view.itemsize != size || ((uintptr_t)view.buf) % size != 0
        || n > PyLong_AsSsize_t(PyTuple_GET_ITEM(spec, 9))) {
        PyBuffer_Release(&view);
        return 0;
    }
    strided_sampler fn = (strided_sampler)PyCapsule_GetPointer(PyTuple_GET_ITEM(spec, 0), "strided.sampler");
    PyObject *gen = PyTuple_GET_ITEM(spec, 6);
    PyObject *lock = fn != NULL ? PyObject_GetAttr(gen, sampler_names[1]) : NULL;
    if (lock == NULL) {
        PyBuffer_Release(&view);
        return -1;
    }
    PyObject *r = PyObject_VectorcallMethod(sampler_names[2], &lock, 1, NULL);
    if (r == NULL) {
        Py_DECREF(lock);
        PyBuffer_Release(&view);
        return -1;
    }
    Py_DECREF(r);
    /* under the lock: the stream's capsule (set_state and manual_seed replace it under the lock) */
    int drawn = 0;
    PyObject *capsule = PyObject_GetAttr(gen, sampler_names[0]);
    if (capsule == NULL) {
        drawn = -1;
    } else if (capsule != Py_None) {
        void *bitgen = PyCapsule_GetPointer(capsule, "BitGenerator");
        if (bitgen == NULL)
            drawn = -1;
        else
            drawn = fn(PyLong_AsLong(PyTuple_GET_ITEM(spec, 1)), bitgen, kind, view.buf, n, x);
    }
    Py_XDECREF(capsule);
    PyObject *err_type, *err_value, *err_tb;
    PyErr_Fetch(&err_type, &err_value, &err_tb);
    r = PyObject_VectorcallMethod(sampler_names[3], &lock, 1, NULL);
    Py_DECREF(lock);
    PyBuffer_Release(&view);
    if (r == NULL) {
        Py_XDECREF(err_type);
        Py_XDECREF(err_value);
        Py_XDECREF(err_tb);
        return -1;
    }
    Py_DECREF(r);
    PyErr_Restore(err_type, err_value, err_tb);
    return drawn;
}

/* Mode 4's count of a write to the exact Tensor ``t`` without grad_mode.bump's call, where bump
 * would only add one to the count: no tensor has a counter of its own (``own``, grad_mode._OWN,
 * empty), ``t``'s storage is a plain Storage (no typed alias: it is its own root), it already has a
 * record in ``versions`` (grad_mode._VDATA: weak reference -> [count, last write, watchers]) and
 * no node watches it (watchers 0: no user's line to look up; an older one is forgotten). ``counters`` is state["counters"]:
 * (versions, own). 1: counted; 0: not (bump must count it); -1: an error. */
static PyObject *front_counters_name;

static int count_fast(PyObject *counters, PyObject *t);

static int entry_count_fast(FrontObject *f, PyObject *t)
{
    if (front_counters_name == NULL && (front_counters_name = PyUnicode_InternFromString("counters")) == NULL)
        return -1;
    PyObject *counters = PyDict_GetItemWithError(f->state, front_counters_name);
    if (counters == NULL)
        return PyErr_Occurred() ? -1 : 0;
    return count_fast(counters, t);
}

/* entry_count_fast's count itself, of ``counters`` (state["counters"]: (versions, own)) for the exact
 * Tensor ``t``: 1 counted, 0 not (bump must count it), -1 an error. */
static int count_fast(PyObject *counters, PyObject *t)
{
    if (!PyTuple_CheckExact(counters) || PyTuple_GET_SIZE(counters) != 2)
        return 0;
    PyObject *versions = PyTuple_GET_ITEM(counters, 0), *own = PyTuple_GET_ITEM(counters, 1);
    if (!PyDict_CheckExact(versions) || !PyDict_CheckExact(own) || PyDict_GET_SIZE(own) != 0)
        return 0;
    PyObject *storage = SLOT(t, off_storage);
    if (storage == NULL || Py_TYPE(storage) != adopt_storage)
        return 0;
    PyObject *ref = PyWeakref_NewRef(storage, NULL); /* (the storage's cached plain ref: hashes as the key) */
    if (ref == NULL)
        return -1;
    PyObject *rec = PyDict_GetItemWithError(versions, ref);
    Py_DECREF(ref);
    if (rec == NULL)
        return PyErr_Occurred() ? -1 : 0;
    if (!PyList_CheckExact(rec) || PyList_GET_SIZE(rec) != 3)
        return 0;
    PyObject *watchers = PyList_GET_ITEM(rec, 2), *count = PyList_GET_ITEM(rec, 0);
    if (!PyLong_CheckExact(watchers) || !PyLong_CheckExact(count))
        return 0;
    int overflow = 0;
    long w = PyLong_AsLongAndOverflow(watchers, &overflow);
    if (w != 0 || overflow)
        return 0;
    long c = PyLong_AsLongAndOverflow(count, &overflow);
    if (overflow || c < 0 || c == LONG_MAX)
        return 0;
    PyObject *next = PyLong_FromLong(c + 1);
    if (next == NULL)
        return -1;
    PyList_SetItem(rec, 0, next); /* (steals next; drops the old count) */
    if (PyList_GET_ITEM(rec, 1) != Py_None) { /* (an older write's line: bump forgets it, as here) */
        Py_INCREF(Py_None);
        PyList_SetItem(rec, 1, Py_None);
    }
    return 1;
}

/* count_write(counters, t): a Python-called entry_count_fast for an in-place write made outside a
 * mode-4 front (F.leaky_relu_'s fast path): True where the write to the Tensor ``t`` is counted
 * here, as grad_mode.bump would count it (it would only add one: see entry_count_fast); False
 * (nothing changed) where bump must count it. ``counters``: grad_mode.STATE["counters"]. */
static PyObject *count_write(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "count_write(counters, t) takes 2 arguments");
        return NULL;
    }
    if (adopt_tensor == NULL || Py_TYPE(args[1]) != adopt_tensor)
        Py_RETURN_FALSE; /* (a subclass, or adopt_types not called: bump's own look-ups) */
    int done = count_fast(args[0], args[1]);
    if (done < 0)
        return NULL;
    return PyBool_FromLong(done);
}

/* ---------------------------------------------------------------- compiled in-place writes (modes 2, 4)
 *
 * An in-place op's common call (``x.relu_()``, ``strided.selu_(x)``) written without its Python
 * forward: strided.ops._support.front.compiled_inplace marks the forward with ``__inplace_kernel__``,
 * the tuple (fn, names, defaults, table, blocks, enabled, cinfo, inference, counters, bump, name):
 *   fn: a PyCapsule "strided.inplace" of a kernel module (_specialkernel.c, _sleefkernel.c), whose
 *       pointer is a strided_inplace: ``fn(op, kind, x, n, p, np, ival)`` writes op's values over the
 *       n elements x (kind 'f' or 'd') given the np float parameters p, and returns 1; or refuses
 *       (0: parameters it does not take; nothing written);
 *   names, defaults: the forward's parameters after ``self``: a float default's parameter goes to
 *       fn (it must be an exact float); a default that is the type ``float`` itself marks a required
 *       float parameter (threshold_'s threshold and value): given as an exact float, it goes to fn,
 *       left out it is the forward's TypeError; any other must be left out or be its default object
 *       itself (``training=False``, ``generator=None``);
 *   table: DType -> (op, ival, itemsize, most): fn's op and int argument for that dtype, its element
 *       size (4: 'f', 8: 'd') and the most elements written here;
 *   blocks, enabled: kernels.native's count of open disabled() blocks and its context variable;
 *   cinfo: the fast paths' memo (flat_of); inference: grad_mode's set of inference storages;
 *   counters, bump, name: how a mode-2 front counts the write (count_or_bump; mode 4 counts it as
 *       it counts every write).
 * The call it takes: ``self`` an exact Tensor outside autograd whose base, if any, is outside too,
 * no inference tensor about, a dtype of the table, row-major at offset 0 over exactly its storage
 * (flat_of) or a permutation of that (dense_inplace_run: the same flat run over memory), writable,
 * aligned and native, at most ``most`` elements; the parameters as above; the
 * compiled kernels on. Everything else, and every refusal, is the forward's (nothing written). */
typedef int (*strided_inplace)(int op, int kind, void *x, Py_ssize_t n, const double *p, Py_ssize_t np,
                               Py_ssize_t ival);

/* The float parameters of the call into p (their count into *np): 1, or 0 where the call is not the
 * one the compiled write takes. */
static int inplace_args(PyObject *spec, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, double *p,
                        Py_ssize_t *np)
{
    PyObject *names = PyTuple_GET_ITEM(spec, 1), *defaults = PyTuple_GET_ITEM(spec, 2);
    PyObject *given[ENTRY_MOST_PARAMS];
    if (!bind_params(names, args, nargs, kwnames, NULL, given))
        return 0;
    *np = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
        PyObject *d = PyTuple_GET_ITEM(defaults, i), *v = given[i] != NULL ? given[i] : d;
        if (d == (PyObject *)&PyFloat_Type) { /* (a required float: its absence is the forward's error) */
            if (given[i] == NULL || !PyFloat_CheckExact(v))
                return 0;
            p[(*np)++] = PyFloat_AS_DOUBLE(v);
        } else if (PyFloat_CheckExact(d)) {
            if (!PyFloat_CheckExact(v))
                return 0;
            p[(*np)++] = PyFloat_AS_DOUBLE(v);
        } else if (v != d) {
            return 0;
        }
    }
    return 1;
}

/* The storage array (borrowed) of a tensor t whose layout is non-overlapping and dense at offset 0
 * over exactly its storage: every dim of size >= 2, taken in increasing stride order, strides 1,
 * size, size * size', ... (a permutation of a row-major layout: a transpose, x.permute(...)), the
 * storage holding exactly those elements. An elementwise in-place write does not depend on the
 * order it visits the elements, and PyTorch's TensorIterator coalesces such an operand to this one
 * flat run over memory, so the run's write is the op's, bit for bit. NULL (no error set) otherwise:
 * an offset, a step, an expanded (stride 0) or overlapping dim, a storage with more elements. */
static PyObject *dense_inplace_run(PyObject *t)
{
    enum { MOST_DIMS = 32 };
    PyObject *lay = SLOT(t, off_layout), *arr = NULL;
    PyObject *shape = PyObject_GetAttr(lay, front_names[0]);
    PyObject *strides = shape != NULL ? PyObject_GetAttr(lay, front_names[1]) : NULL;
    PyObject *offset = strides != NULL ? PyObject_GetAttr(lay, front_names[2]) : NULL;
    Py_ssize_t nd = shape != NULL && PyTuple_Check(shape) ? PyTuple_GET_SIZE(shape) : -1;
    if (offset == NULL || !PyLong_CheckExact(offset) || PyLong_AsLong(offset) != 0 || nd < 0 || nd > MOST_DIMS
        || !PyTuple_Check(strides) || PyTuple_GET_SIZE(strides) != nd)
        goto done;
    Py_ssize_t size[MOST_DIMS], stride[MOST_DIMS], m = 0, numel = 1;
    for (Py_ssize_t i = 0; i < nd; i++) {
        Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i)), s = PyLong_AsSsize_t(PyTuple_GET_ITEM(strides, i));
        if (PyErr_Occurred() || n < 0)
            goto done;
        if (n == 0)
            goto done; /* (nothing to write: the forward's, which counts it as it counts any write) */
        if (n >= 2) { /* (a dim of size 1 adds no element, whatever its stride) */
            size[m] = n;
            stride[m++] = s;
        }
        numel *= n;
    }
    for (Py_ssize_t i = 1; i < m; i++) /* (insertion sort by stride: a handful of dims) */
        for (Py_ssize_t j = i; j > 0 && stride[j - 1] > stride[j]; j--) {
            Py_ssize_t ts = stride[j], tn = size[j];
            stride[j] = stride[j - 1];
            size[j] = size[j - 1];
            stride[j - 1] = ts;
            size[j - 1] = tn;
        }
    Py_ssize_t expect = 1;
    for (Py_ssize_t i = 0; i < m; i++) {
        if (stride[i] != expect)
            goto done;
        expect *= size[i];
    }
    arr = storage_run(t, numel);
done:
    PyErr_Clear();
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    Py_XDECREF(offset);
    return arr;
}

/* The compiled write of the in-place op ``spec`` describes (see above) over args[0]: 1 written,
 * 0 not this call (nothing written), -1 an error. The caller counts the write. */
static int entry_inplace(PyObject *spec, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *self = args[0];
    if (Py_TYPE(self) != adopt_tensor)
        return 0;
    PyObject *base = SLOT(self, off_base);
    if (SLOT(self, off_ag) != Py_None || PySet_GET_SIZE(PyTuple_GET_ITEM(spec, 7)) != 0)
        return 0;
    if (base != Py_None && (!PyObject_TypeCheck(base, adopt_tensor) || SLOT(base, off_ag) != Py_None))
        return 0;
    PyObject *entry = PyDict_GetItemWithError(PyTuple_GET_ITEM(spec, 3), SLOT(self, off_dtype)); /* borrowed */
    if (entry == NULL) {
        PyErr_Clear();
        return 0;
    }
    double p[ENTRY_MOST_PARAMS];
    Py_ssize_t np_ = 0;
    if (!inplace_args(spec, args + 1, nargs - 1, kwnames, p, &np_)
        || !kernels_on(PyTuple_GET_ITEM(spec, 4), PyTuple_GET_ITEM(spec, 5)))
        return 0;
    PyObject *info = NULL, *cinfo = PyTuple_GET_ITEM(spec, 6);
    PyObject *arr = flat_of(cinfo, self, &info);
    if (arr == NULL) { /* (a shape the memo has not met: filled as the fast paths fill it, then once more) */
        PyObject *shape = PyObject_GetAttr(SLOT(self, off_layout), front_names[0]);
        if (shape != NULL && PyDict_Contains(cinfo, shape) == 0) {
            PyObject *made = PyObject_GetItem(cinfo, shape);
            if (made != NULL) {
                Py_DECREF(made);
                arr = flat_of(cinfo, self, &info);
            }
        }
        Py_XDECREF(shape);
        PyErr_Clear();
        if (arr == NULL) /* (not row-major: a permuted dense layout is one flat run too) */
            arr = dense_inplace_run(self);
        if (arr == NULL)
            return 0;
    }

    Py_ssize_t op = PyLong_AsSsize_t(PyTuple_GET_ITEM(entry, 0)), ival = PyLong_AsSsize_t(PyTuple_GET_ITEM(entry, 1));
    Py_ssize_t size = PyLong_AsSsize_t(PyTuple_GET_ITEM(entry, 2)), most = PyLong_AsSsize_t(PyTuple_GET_ITEM(entry, 3));
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(arr, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyErr_Clear(); /* (read-only memory: the forward's error) */
        return 0;
    }
    const char *fmt = size == 4 ? "f" : size == 8 ? "d" : "";
    Py_ssize_t n = view.len / (size > 0 ? size : 1);
    int wrote = 0;
    if (fmt[0] && view.itemsize == size && strcmp(view.format, fmt) == 0 && ((uintptr_t)view.buf) % size == 0
        && n <= most) {
        strided_inplace fn = (strided_inplace)PyCapsule_GetPointer(PyTuple_GET_ITEM(spec, 0), "strided.inplace");
        if (fn == NULL)
            wrote = -1;
        else
            wrote = fn((int)op, fmt[0], view.buf, n, p, np_, ival);
    }
    PyBuffer_Release(&view);
    return wrote;
}

/* A written tensor t's count, as the forward counts it: in C where bump would only add one
 * (count_fast), else bump(t, name, 1) (the user's frame is the caller's). 0, or -1 an error. */
static int count_or_bump(PyObject *counters, PyObject *bump, PyObject *name, PyObject *t)
{
    int fast = count_fast(counters, t);
    if (fast != 0)
        return fast < 0 ? -1 : 0;
    PyObject *one = PyLong_FromLong(1), *b[3] = {t, name, one};
    PyObject *r = one ? PyObject_Vectorcall(bump, b, 3, NULL) : NULL;
    Py_XDECREF(one);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* 1 (a TypeError set) unless spec is an in-place spec as entry_inplace reads it, in mode 2 or 4. */
static int inplace_spec_bad(PyObject *spec, int mode)
{
    int bad = mode == 5 || !PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 11
              || !PyCapsule_IsValid(PyTuple_GET_ITEM(spec, 0), "strided.inplace") || !PyTuple_Check(PyTuple_GET_ITEM(spec, 1))
              || !PyTuple_Check(PyTuple_GET_ITEM(spec, 2)) || PyTuple_GET_SIZE(PyTuple_GET_ITEM(spec, 1)) > ENTRY_MOST_PARAMS
              || PyTuple_GET_SIZE(PyTuple_GET_ITEM(spec, 1)) != PyTuple_GET_SIZE(PyTuple_GET_ITEM(spec, 2))
              || !PyDict_Check(PyTuple_GET_ITEM(spec, 3)) || !PyList_Check(PyTuple_GET_ITEM(spec, 4))
              || !PyContextVar_CheckExact(PyTuple_GET_ITEM(spec, 5)) || !PyDict_Check(PyTuple_GET_ITEM(spec, 6))
              || !PySet_Check(PyTuple_GET_ITEM(spec, 7)) || !PyCallable_Check(PyTuple_GET_ITEM(spec, 9))
              || !PyUnicode_Check(PyTuple_GET_ITEM(spec, 10));
    if (!bad) {
        PyObject *key, *value;
        Py_ssize_t pos = 0;
        while (!bad && PyDict_Next(PyTuple_GET_ITEM(spec, 3), &pos, &key, &value))
            bad = !PyTuple_Check(value) || PyTuple_GET_SIZE(value) != 4;
    }
    if (bad)
        PyErr_SetString(PyExc_TypeError, "entry_front: an in-place spec is (fn capsule, names, defaults, table, "
                        "blocks, enabled, cinfo, inference, counters, bump, name), in modes 1 to 4");
    return bad;
}

static PyObject *entry_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    FrontObject *f = (FrontObject *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (f->mode == 5) {
        if (nargs == 1 && kwnames == NULL && adopt_tensor != NULL && Py_TYPE(args[0]) == adopt_tensor
            && SLOT(args[0], off_ag) == Py_None && PyList_GET_SIZE(f->open) == 0 && entry_row_major(f, args[0])) {
            Py_INCREF(args[0]);
            return args[0];
        }
        return PyObject_Vectorcall(f->fallback, args, nargsf, kwnames);
    }
    if (adopt_tensor == NULL || PyList_GET_SIZE(f->open) != 0 || nargs < f->min_args || nargs > f->max_args)
        goto fallback;
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t i = 0; i < nkw; i++) {
        int found = PySet_Contains(f->aliases, PyTuple_GET_ITEM(kwnames, i));
        if (found != 0) {
            if (found < 0)
                return NULL;
            goto fallback;
        }
    }
    if (f->mode == 1) {
        for (Py_ssize_t i = 0; i < nargs + nkw; i++)
            if (!entry_plain_value(f, args[i]))
                goto fallback;
    } else if (f->mode == 4) {
        PyObject *used = PyDict_GetItemWithError(f->state, front_names[3]);
        int counted = f->bump != Py_None; /* every write counts, autograd used or not (PyTorch's _version) */
        if (used == NULL && PyErr_Occurred())
            return NULL;
        if (nargs < 1 || Py_TYPE(args[0]) != adopt_tensor)
            goto fallback;
        if (used != Py_False) {
            PyObject *mode_value = NULL;
            if (f->bump == Py_None || PySet_GET_SIZE(f->inference) != 0)
                goto fallback;
            if (PyContextVar_Get(f->grad_mode, NULL, &mode_value) < 0)
                return NULL;
            int off = mode_value == Py_False;
            Py_XDECREF(mode_value);
            if (!off)
                goto fallback;
        }
        PyObject *out = NULL;
        /* (the compiled write, else the compiled draw: 1 done, 0 not this call, -1 an error) */
        int made = f->inplace != Py_None ? entry_inplace(f->inplace, args, nargs, kwnames) : 0;
        if (made == 0 && f->sampler != Py_None)
            made = entry_sample(f, args, nargs, kwnames);
        if (made < 0)
            return NULL;
        if (made) {
            Py_INCREF(args[0]);
            out = args[0];
        }
        if (out == NULL && f->direct != Py_None) {
            PyObject *rest = PyTuple_New(nargs - 1), *kw = PyDict_New(), *done = NULL;
            if (rest != NULL && kw != NULL) {
                for (Py_ssize_t i = 1; i < nargs; i++) {
                    Py_INCREF(args[i]);
                    PyTuple_SET_ITEM(rest, i - 1, args[i]);
                }
                int bad = 0;
                for (Py_ssize_t i = 0; i < nkw && !bad; i++)
                    bad = PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) < 0;
                if (!bad) {
                    PyObject *a[3] = {args[0], rest, kw};
                    done = PyObject_Vectorcall(f->direct, a, 3, NULL);
                }
            }
            Py_XDECREF(rest);
            Py_XDECREF(kw);
            if (done == NULL)
                return NULL;
            int wrote = PyObject_IsTrue(done);
            Py_DECREF(done);
            if (wrote < 0)
                return NULL;
            if (wrote) {
                Py_INCREF(args[0]);
                out = args[0];
            }
        }
        if (out == NULL)
            out = PyObject_Vectorcall(f->fwd, args, nargsf, kwnames);
        if (out != NULL && counted) {
            int fast = entry_count_fast(f, args[0]);
            if (fast < 0) {
                Py_DECREF(out);
                return NULL;
            }
            if (fast)
                return out;
            PyObject *one = PyLong_FromLong(1), *b[3] = {args[0], f->name, one};
            PyObject *r = one ? PyObject_Vectorcall(f->bump, b, 3, NULL) : NULL;
            Py_XDECREF(one);
            if (r == NULL)
                Py_CLEAR(out);
            Py_XDECREF(r);
        }
        return out;
    } else if (f->mode == 2) {
        if (nargs < 1 || Py_TYPE(args[0]) != adopt_tensor || SLOT(args[0], off_ag) != Py_None)
            goto fallback;
    } else {
        if (nargs < 2 || !entry_untracked(args[0]) || !entry_untracked(args[1]))
            goto fallback;
    }
    if (f->inplace != Py_None && nargs >= 1) { /* (an in-place op outside autograd: its compiled write, counted) */
        int wrote = entry_inplace(f->inplace, args, nargs, kwnames);
        if (wrote > 0) {
            PyObject *spec = f->inplace;
            wrote = count_or_bump(PyTuple_GET_ITEM(spec, 8), PyTuple_GET_ITEM(spec, 9), PyTuple_GET_ITEM(spec, 10),
                                  args[0]);
            if (wrote == 0) {
                Py_INCREF(args[0]);
                return args[0];
            }
        }
        if (wrote < 0)
            return NULL;
    }
    return PyObject_Vectorcall(f->fwd, args, nargsf, kwnames);
fallback:
    return PyObject_Vectorcall(f->fallback, args, nargsf, kwnames);
}

/* 1 (a TypeError set) unless spec is a sampler tuple as entry_sample reads it; interns its names. */
static int sampler_spec_bad(PyObject *spec, int mode)
{
    static const char *names[5] = {"_capsule", "_lock", "acquire", "release", "generator"};
    for (int i = 0; i < 5; i++)
        if (sampler_names[i] == NULL && (sampler_names[i] = PyUnicode_InternFromString(names[i])) == NULL)
            return 1;
    if (mode != 4 || !PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 11 || !PyCapsule_IsValid(PyTuple_GET_ITEM(spec, 0),
        "strided.sampler") || !PyLong_Check(PyTuple_GET_ITEM(spec, 1)) || !PyTuple_Check(PyTuple_GET_ITEM(spec, 2))
        || !PyTuple_Check(PyTuple_GET_ITEM(spec, 3)) || PyTuple_GET_SIZE(PyTuple_GET_ITEM(spec, 2)) > ENTRY_MOST_PARAMS
        || PyTuple_GET_SIZE(PyTuple_GET_ITEM(spec, 2)) != PyTuple_GET_SIZE(PyTuple_GET_ITEM(spec, 3))
        || !PyList_Check(PyTuple_GET_ITEM(spec, 7)) || !PyContextVar_CheckExact(PyTuple_GET_ITEM(spec, 8))
        || !PyLong_Check(PyTuple_GET_ITEM(spec, 9)) || !PyDict_Check(PyTuple_GET_ITEM(spec, 10))) {
        PyErr_SetString(PyExc_TypeError, "entry_front: a sampler is (fn capsule, op, names, defaults, float32, "
                        "float64, generator, blocks, enabled, most, cinfo), in mode 4");
        return 1;
    }
    return 0;
}

static PyObject *entry_front_new(PyObject *module, PyObject *args)
{
    PyObject *fallback, *fwd, *plain, *aliases, *open, *state = Py_None, *direct = Py_None, *grad_mode = Py_None,
             *inference = Py_None, *bump = Py_None, *name = Py_None, *sampler = Py_None, *inplace = Py_None;
    int mode;
    Py_ssize_t min_args, max_args;
    if (!PyArg_ParseTuple(args, "OOiO!O!nnO!|OOOOOOOO:entry_front", &fallback, &fwd, &mode, &PyTuple_Type, &plain,
                          &PyFrozenSet_Type, &aliases, &min_args, &max_args, &PyList_Type, &open, &state, &direct,
                          &grad_mode, &inference, &bump, &name, &sampler, &inplace))
        return NULL;
    if (sampler != Py_None && sampler_spec_bad(sampler, mode))
        return NULL;
    if (inplace != Py_None && inplace_spec_bad(inplace, mode))
        return NULL;
    if (mode < 1 || mode > 5) {
        PyErr_SetString(PyExc_ValueError, "entry_front: mode must be 1, 2, 3, 4 or 5");
        return NULL;
    }
    if (mode == 5 && !PyDict_Check(state)) {
        PyErr_SetString(PyExc_TypeError, "entry_front: mode 5 takes the cinfo memo (a dict)");
        return NULL;
    }
    if (mode == 4 && !PyDict_Check(state)) {
        PyErr_SetString(PyExc_TypeError, "entry_front: mode 4 takes the autograd state dict");
        return NULL;
    }
    if (mode == 4 && bump != Py_None && (!PyContextVar_CheckExact(grad_mode) || !PySet_Check(inference)
                                         || !PyUnicode_Check(name))) {
        PyErr_SetString(PyExc_TypeError, "entry_front: a counted mode 4 takes the grad-mode variable, the "
                        "inference set and the op's name");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(plain); i++)
        if (!PyType_Check(PyTuple_GET_ITEM(plain, i))) {
            PyErr_SetString(PyExc_TypeError, "entry_front: plain must be a tuple of types");
            return NULL;
        }
    FrontObject *f = PyObject_GC_New(FrontObject, &Front_Type);
    if (f == NULL)
        return NULL;
    f->vectorcall = entry_call;
    Py_INCREF(fallback);
    f->fallback = fallback;
    f->table = f->cinfo = f->quiet = NULL;
    f->empty = f->enabled = f->blocks = NULL;
    f->dense = f->dense_dtypes = NULL;
    Py_INCREF(open);
    f->open = open;
    f->arity = 0;
    f->weakrefs = NULL;
    Py_INCREF(fwd);
    f->fwd = fwd;
    Py_INCREF(plain);
    f->plain = plain;
    Py_INCREF(aliases);
    f->aliases = aliases;
    Py_INCREF(state);
    f->state = state;
    Py_INCREF(direct);
    f->direct = direct;
    Py_INCREF(grad_mode);
    f->grad_mode = grad_mode;
    Py_INCREF(inference);
    f->inference = inference;
    Py_INCREF(bump);
    f->bump = bump;
    Py_INCREF(name);
    f->name = name;
    Py_INCREF(sampler);
    f->sampler = sampler;
    Py_INCREF(inplace);
    f->inplace = inplace;
    f->mode = mode;
    f->min_args = min_args;
    f->max_args = max_args;
    PyObject_GC_Track(f);
    return (PyObject *)f;
}

static PyObject *front_tp_call(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return PyVectorcall_Call(self, args, kwargs);
}

static PyObject *front_new(PyObject *module, PyObject *args)
{
    PyObject *fallback, *table, *cinfo, *open, *quiet, *empty = Py_None, *enabled = Py_None, *blocks = Py_None;
    PyObject *dense = Py_None, *dense_dtypes = Py_None;
    int arity;
    if (!PyArg_ParseTuple(args, "OiO!O!O!O|OOOOO:front", &fallback, &arity, &PyDict_Type, &table, &PyDict_Type, &cinfo,
                          &PyList_Type, &open, &quiet, &empty, &enabled, &blocks, &dense, &dense_dtypes))
        return NULL;
    if ((dense != Py_None || dense_dtypes != Py_None)
        && (arity > 2 || !PyDict_Check(dense) || !PyFrozenSet_Check(dense_dtypes))) {
        PyErr_SetString(PyExc_TypeError, "front: dense is a dict with a frozenset of dtypes, for unary and binary fronts only");
        return NULL;
    }
    if (enabled != Py_None && !PyContextVar_CheckExact(enabled)) {
        PyErr_SetString(PyExc_TypeError, "front: enabled must be a context variable or None");
        return NULL;
    }
    if (arity < 1 || arity > 3) {
        PyErr_SetString(PyExc_ValueError, "front: arity must be 1, 2 or 3");
        return NULL;
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(table, &pos, &key, &value)) {
        Py_ssize_t size = PyTuple_Check(value) ? PyTuple_GET_SIZE(value) : -1;
        if (arity == 1 ? (size != 3 && size != 4) : arity == 2 ? (size != 4 && size != 6 && size != 7) : size != 1) {
            PyErr_SetString(PyExc_TypeError, "front: a table entry has the wrong form");
            return NULL;
        }
        PyObject *kernel = size == 1 || size == 4 || size == 7 ? PyTuple_GET_ITEM(value, size - 1) : Py_None;
        if ((kernel != Py_None || (arity == 2 && size == 4) || arity == 3)
            && (empty == Py_None || !PyTuple_Check(kernel)
                || (PyTuple_GET_SIZE(kernel) != 5 && (arity != 1 || PyTuple_GET_SIZE(kernel) != 6)))) {
            PyErr_SetString(PyExc_TypeError, "front: a kernel entry is (run, extra, np_dtype, max_n, align[, layout]), "
                            "with numpy.empty given (layout: unary fronts only)");
            return NULL;
        }
    }
    FrontObject *f = PyObject_GC_New(FrontObject, &Front_Type);
    if (f == NULL)
        return NULL;
    f->vectorcall = front_call;
    Py_INCREF(fallback);
    f->fallback = fallback;
    Py_INCREF(table);
    f->table = table;
    Py_INCREF(cinfo);
    f->cinfo = cinfo;
    Py_INCREF(open);
    f->open = open;
    Py_INCREF(quiet);
    f->quiet = quiet;
    Py_INCREF(empty);
    f->empty = empty;
    Py_INCREF(enabled);
    f->enabled = enabled;
    Py_INCREF(blocks);
    f->blocks = blocks;
    f->dense = f->dense_dtypes = NULL;
    if (dense != Py_None) {
        Py_INCREF(dense);
        f->dense = dense;
        Py_INCREF(dense_dtypes);
        f->dense_dtypes = dense_dtypes;
    }
    f->arity = arity;
    f->weakrefs = NULL;
    f->fwd = f->plain = f->aliases = f->state = f->direct = NULL;
    f->grad_mode = f->inference = f->bump = f->name = f->sampler = f->inplace = NULL;
    f->mode = 0;
    f->min_args = f->max_args = 0;
    PyObject_GC_Track(f);
    return (PyObject *)f;
}

static int front_traverse(FrontObject *f, visitproc visit, void *arg)
{
    Py_VISIT(f->fallback);
    Py_VISIT(f->table);
    Py_VISIT(f->cinfo);
    Py_VISIT(f->open);
    Py_VISIT(f->quiet);
    Py_VISIT(f->empty);
    Py_VISIT(f->enabled);
    Py_VISIT(f->blocks);
    Py_VISIT(f->dense);
    Py_VISIT(f->dense_dtypes);
    Py_VISIT(f->fwd);
    Py_VISIT(f->plain);
    Py_VISIT(f->aliases);
    Py_VISIT(f->state);
    Py_VISIT(f->direct);
    Py_VISIT(f->grad_mode);
    Py_VISIT(f->inference);
    Py_VISIT(f->bump);
    Py_VISIT(f->name);
    Py_VISIT(f->sampler);
    Py_VISIT(f->inplace);
    return 0;
}

static int front_clear(FrontObject *f)
{
    Py_CLEAR(f->fallback);
    Py_CLEAR(f->table);
    Py_CLEAR(f->cinfo);
    Py_CLEAR(f->open);
    Py_CLEAR(f->quiet);
    Py_CLEAR(f->empty);
    Py_CLEAR(f->enabled);
    Py_CLEAR(f->blocks);
    Py_CLEAR(f->dense);
    Py_CLEAR(f->dense_dtypes);
    Py_CLEAR(f->fwd);
    Py_CLEAR(f->plain);
    Py_CLEAR(f->aliases);
    Py_CLEAR(f->state);
    Py_CLEAR(f->direct);
    Py_CLEAR(f->grad_mode);
    Py_CLEAR(f->inference);
    Py_CLEAR(f->bump);
    Py_CLEAR(f->name);
    Py_CLEAR(f->sampler);
    Py_CLEAR(f->inplace);
    return 0;
}

static void front_dealloc(FrontObject *f)
{
    PyObject_GC_UnTrack(f);
    if (f->weakrefs != NULL)
        PyObject_ClearWeakRefs((PyObject *)f);
    front_clear(f);
    PyObject_GC_Del(f);
}

/* The names a Front answers itself; every other attribute is its fallback's. */
static int front_own(PyObject *name)
{
    static const char *own[] = {"__class__", "__reduce__", "__reduce_ex__", "__get__", "__call__",
                                "__front_fallback__", "__front_table__", "__sizeof__", "__dir__", "__repr__", NULL};
    if (!PyUnicode_Check(name))
        return 0;
    for (int i = 0; own[i] != NULL; i++)
        if (PyUnicode_CompareWithASCIIString(name, own[i]) == 0)
            return 1;
    return 0;
}

static PyObject *front_getattro(PyObject *self, PyObject *name)
{
    FrontObject *f = (FrontObject *)self;
    if (front_own(name))
        return PyObject_GenericGetAttr(self, name);
    /* the fallback's attribute, else the front's own: looked up without making the fallback's
     * AttributeError (a formatted message per miss; the import probes entries ~1,000 times) */
    PyObject *v = NULL;
#if PY_VERSION_HEX >= 0x030D0000
    int found = PyObject_GetOptionalAttr(f->fallback, name, &v);
#else
    int found = _PyObject_LookupAttr(f->fallback, name, &v);
#endif
    if (found < 0)
        return NULL;
    return found ? v : PyObject_GenericGetAttr(self, name);
}

static int front_setattro(PyObject *self, PyObject *name, PyObject *value)
{
    if (front_own(name)) {
        PyErr_Format(PyExc_AttributeError, "a compiled front's %R is its own", name);
        return -1;
    }
    return PyObject_SetAttr(((FrontObject *)self)->fallback, name, value);
}

static PyObject *front_descr_get(PyObject *self, PyObject *obj, PyObject *type)
{
    if (obj == NULL || obj == Py_None) {
        Py_INCREF(self);
        return self;
    }
    return PyMethod_New(self, obj);
}

static PyObject *front_repr(PyObject *self)
{
    return PyUnicode_FromFormat("<compiled front of %R>", ((FrontObject *)self)->fallback);
}

static PyObject *front_reduce(PyObject *self, PyObject *unused)
{
    /* pickled as the fallback function is: by its qualified name, looked up in its module */
    return PyObject_GetAttrString(((FrontObject *)self)->fallback, "__qualname__");
}

static PyObject *front_get_fallback(PyObject *self, void *closure)
{
    PyObject *fb = ((FrontObject *)self)->fallback;
    Py_INCREF(fb);
    return fb;
}

static PyObject *front_get_table(PyObject *self, void *closure)
{
    PyObject *table = ((FrontObject *)self)->table;
    if (table == NULL)
        table = Py_None;
    Py_INCREF(table);
    return table;
}

static PyMethodDef front_methods[] = {
    {"__reduce__", front_reduce, METH_NOARGS, "Pickled by its qualified name, as a function."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef front_getset[] = {
    {"__front_fallback__", front_get_fallback, NULL, "The Python forward every other call goes to.", NULL},
    {"__front_table__", front_get_table, NULL, "An elementwise front's table (None: an entry front).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject Front_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "strided.kernels._copykernel.Front",
    .tp_basicsize = sizeof(FrontObject),
    .tp_dealloc = (destructor)front_dealloc,
    .tp_vectorcall_offset = offsetof(FrontObject, vectorcall),
    .tp_repr = front_repr,
    .tp_call = front_tp_call,
    .tp_getattro = front_getattro,
    .tp_setattro = front_setattro,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "An elementwise op's common call in C; every other call goes to its Python forward.",
    .tp_traverse = (traverseproc)front_traverse,
    .tp_clear = (inquiry)front_clear,
    .tp_weaklistoffset = offsetof(FrontObject, weakrefs),
    .tp_methods = front_methods,
    .tp_getset = front_getset,
    .tp_descr_get = front_descr_get,
};
