/* strided.diagnose._watchrec: the per-tensor reads of watch_torch's op recorder, in C.

   layouts(fields, tensors, tuples, strided) appends, for each tensor of the tuple ``tensors``,
   its shape, strides and dtype to the list ``fields`` -- exactly what the Python loop in
   ``strided.diagnose.watch_torch._recorders`` (``on_op``) appends, which stays as the fallback
   where this module is not built: each shape and strides tuple kept once per watch in the dict
   ``tuples`` (a shape read as a torch.Size, kept as a plain tuple); a size or stride with no hash
   (a SymInt) kept as read; RuntimeError("no strides") for a tensor whose last stride is 0 and
   whose layout is not ``strided`` (a sparse COO tensor: PyTorch answers its stride() with
   zeros); any error of torch's reads (RuntimeError, NotImplementedError) passed on unchanged.

   Only the CPython API, on the objects torch's own Python getters return (t.shape, t.stride(),
   t.dtype, t.layout): nothing is built against torch. What it saves is the interpreter's work
   per tensor (the loop, the attribute lookups, the tuple of three per extend): 10-15% of the
   recorder's time per op, measured by replaying a GPT's ops through it.

   record(state, func, args, out) is the whole of ``on_op``'s common case in one call (see its
   comment below): where it declines an op it calls the Python ``on_op`` (``state``'s last item)
   with the same arguments, before anything it did can be seen, so every record is exactly what
   the Python recorder makes. It counts new storages in the memory tally itself, and
   collector(tally) is the C callback of the weak references it makes (see "the memory tally").

   call(state, func, args, kwargs) is the function mode's ``on_call`` (each user's Python-level torch
   call) in one call, keeping the same calls, lines and context (see its comment below). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *s_shape, *s_stride, *s_dtype, *s_layout;

/* shape, strides, dtype of each of the n tensors ``items`` appended to ``fields``: 0, or -1 with an error set */
static int append_layouts(PyObject *fields, PyObject *const *items, Py_ssize_t n, PyObject *tuples, PyObject *strided) {
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = items[i];
        PyObject *shape = PyObject_GetAttr(t, s_shape);
        if (!shape) return -1;
        PyObject *strides = PyObject_CallMethodNoArgs(t, s_stride);
        if (!strides) { Py_DECREF(shape); return -1; }
        if (PyTuple_Check(strides) && PyTuple_GET_SIZE(strides) > 0) {
            PyObject *last = PyTuple_GET_ITEM(strides, PyTuple_GET_SIZE(strides) - 1);
            int zero = PyObject_Not(last);
            if (zero < 0) { Py_DECREF(shape); Py_DECREF(strides); return -1; }
            if (zero) {
                PyObject *layout = PyObject_GetAttr(t, s_layout);
                if (!layout) { Py_DECREF(shape); Py_DECREF(strides); return -1; }
                int other = layout != strided;
                Py_DECREF(layout);
                if (other) { Py_DECREF(shape); Py_DECREF(strides);
                    PyErr_SetString(PyExc_RuntimeError, "no strides"); return -1; }
            }
        }
        PyObject *kept = PyDict_GetItemWithError(tuples, shape);  /* borrowed */
        PyObject *kept_strides;
        if (kept) {
            Py_INCREF(kept);
        } else if (!PyErr_Occurred()) {
            kept = PySequence_Tuple(shape);
            if (!kept) { Py_DECREF(shape); Py_DECREF(strides); return -1; }
            if (PyDict_SetItem(tuples, kept, kept) < 0) goto hash_error;
        } else {
            goto hash_error;
        }
        kept_strides = PyDict_SetDefault(tuples, strides, strides);  /* borrowed */
        if (!kept_strides) { Py_DECREF(kept); goto hash_error; }
        Py_INCREF(kept_strides);
        Py_DECREF(strides);
        strides = kept_strides;
        goto have;
    hash_error:
        /* a symbolic size or stride has no hash: kept as read, not once per watch */
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) { Py_DECREF(shape); Py_DECREF(strides); return -1; }
        PyErr_Clear();
        kept = PySequence_Tuple(shape);
        if (!kept) { Py_DECREF(shape); Py_DECREF(strides); return -1; }
    have:
        Py_DECREF(shape);
        PyObject *dtype = PyObject_GetAttr(t, s_dtype);
        if (!dtype) { Py_DECREF(kept); Py_DECREF(strides); return -1; }
        int err = PyList_Append(fields, kept) < 0 || PyList_Append(fields, strides) < 0 || PyList_Append(fields, dtype) < 0;
        Py_DECREF(kept); Py_DECREF(strides); Py_DECREF(dtype);
        if (err) return -1;
    }
    return 0;
}

static PyObject *layouts(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4 || !PyTuple_Check(args[1])) { PyErr_SetString(PyExc_TypeError, "layouts(fields, tuple, dict, layout)"); return NULL; }
    if (append_layouts(args[0], &PyTuple_GET_ITEM(args[1], 0), PyTuple_GET_SIZE(args[1]), args[2], args[3]) < 0) return NULL;
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------- record: on_op in one call

   record(state, func, args, out): ``on_op(func, args, out)`` of ``watch_torch._recorders`` for
   the ops it knows (most of them), with ``state`` the tuple of what that closure holds (see
   S_* below, in the order ``_recorders`` builds it). It keeps the same record in the same
   flat lists: the op's tensors (args, one level into lists for ops that take them; the output or
   those of an output list or tuple), the autograd node and counter, the kind ("maybe_copy" told
   by the storages), the bytes copied, each new output storage counted by the tally's own
   ``allocated``, then the header and each tensor's (shape, strides, dtype). It declines --
   calls the Python on_op, ``state[S_SLOW]``, which does it all again -- for a collective, an op
   not yet in ``ops``, a copy between devices, more than MAXT tensors, and any error (a tensor
   with no storage or strides, whatever torch refuses): before its record is kept, so the only
   thing it may have done is count storages in the tally, which the Python recorder then finds
   counted (the tally's ``seen``), as its own first try would have left them before its careful
   path. The user's line (forward ops outside any user's call; backward ops not run by the
   engine's own frame) comes from the Python helpers in ``state``, as on_op calls them. */

enum { S_ACQUIRE, S_RELEASE, S_OPS, S_TENSOR, S_CONTEXT, S_STARTS, S_FIELDS, S_TUPLES, S_STRIDED, S_SEEN, S_ALLOCATED,
       S_TALLY, S_KEYEDREF, S_COLLECTED, S_CPU, S_NODE, S_PEEK, S_NAMES, S_ENGINE, S_USER_WHERE, S_BACKWARD_WHERE, S_SLOW,
       S_N };
#define MAXT 64

static PyObject *s_untyped_storage, *s_cdata, *s_nbytes, *s_device, *s_type,
    *s_sequence_nr, *s_name, *s_empty, *s_view, *s_copy, *s_meta;
static PyObject *s_key, *s_seen, *s_allocated_bytes, *s_alive_bytes, *s_peak_bytes, *s_peak_step, *s_timeline,
    *s_clock;

/* ---------------------------------------------------------------- the memory tally, in C

   ``strided.diagnose.flow.MemoryTally.allocated`` and ``._collected`` (the callback of each counted
   owner's weak reference) as the Python methods do them, step for step, on the same attributes of
   the same tally object (``_seen``, ``allocated_bytes``, ``alive_bytes``, ``peak_bytes``,
   ``peak_step``, ``timeline``, ``clock``): what they save is two Python calls per new storage, one
   when it is counted and one when it dies. ``record`` uses them where ``state[S_TALLY]`` is the
   tally (``watch_torch._recorders`` passes None where ``MemoryTally.allocated`` is not the one
   this mirrors: then it calls ``state[S_ALLOCATED]``, the tally's own method). */

/* self.<name> + delta (sign 1) or - delta (-1), stored back; a new reference to the sum, or NULL */
static PyObject *bump(PyObject *tally, PyObject *name, PyObject *delta, int sign) {
    PyObject *old = PyObject_GetAttr(tally, name);
    if (!old) return NULL;
    PyObject *sum = sign > 0 ? PyNumber_Add(old, delta) : PyNumber_Subtract(old, delta);
    Py_DECREF(old);
    if (sum && PyObject_SetAttr(tally, name, sum) < 0) Py_CLEAR(sum);
    return sum;
}

/* ``self.timeline.append((now, alive))``: 0, or -1 with an error set */
static int tick(PyObject *tally, PyObject *now, PyObject *alive) {
    PyObject *timeline = PyObject_GetAttr(tally, s_timeline);
    if (!timeline) return -1;
    PyObject *pair = PyTuple_Pack(2, now, alive), *r = NULL;
    int err = -1;
    /* two ints: untracked now, as the collector's first pass would leave it (one entry per storage
       made or freed, each would otherwise be walked by a collection of the young objects) */
    if (pair && PyLong_CheckExact(now) && PyLong_CheckExact(alive)) PyObject_GC_UnTrack(pair);
    if (pair && PyList_CheckExact(timeline)) err = PyList_Append(timeline, pair);
    else if (pair && (r = PyObject_CallMethod(timeline, "append", "O", pair))) err = 0;
    Py_XDECREF(r); Py_XDECREF(pair); Py_DECREF(timeline);
    return err;
}

/* MemoryTally.allocated(owner, nbytes): 1 counted, 0 not (counted already, or ``owner`` cannot be
   weakly referenced), -1 with an error set */
static int tally_allocated(PyObject *tally, PyObject *seen, PyObject *keyedref, PyObject *collected, PyObject *owner,
                           PyObject *nbytes) {
    PyObject *key = PyLong_FromVoidPtr(owner);
    if (!key) return -1;
    int counted = PyDict_Contains(seen, key);
    if (counted != 0) { Py_DECREF(key); return counted < 0 ? -1 : 0; }
    PyObject *ref = PyObject_CallFunctionObjArgs(keyedref, owner, collected, NULL);
    if (!ref) {
        Py_DECREF(key);
        if (PyErr_ExceptionMatches(PyExc_TypeError)) { PyErr_Clear(); return 0; }
        return -1;
    }
    PyObject *entry = NULL, *sum = NULL, *alive = NULL, *clock = NULL, *now = NULL, *peak = NULL;
    int result = -1, above;
    if (PyObject_SetAttr(ref, s_key, key) < 0 || !(entry = PyList_New(2))) goto done;
    Py_INCREF(ref); PyList_SET_ITEM(entry, 0, ref);
    Py_INCREF(nbytes); PyList_SET_ITEM(entry, 1, nbytes);
    if (PyDict_SetItem(seen, key, entry) < 0) goto done;
    if (!(sum = bump(tally, s_allocated_bytes, nbytes, 1)) || !(alive = bump(tally, s_alive_bytes, nbytes, 1))) goto done;
    if (!(clock = PyObject_GetAttr(tally, s_clock)) || !(peak = PyObject_GetAttr(tally, s_peak_bytes))) goto done;
    if (clock == Py_None) {
        if ((above = PyObject_RichCompareBool(alive, peak, Py_GT)) < 0) goto done;
        if (above && PyObject_SetAttr(tally, s_peak_bytes, alive) < 0) goto done;
        result = 1;
        goto done;
    }
    if (!(now = PyObject_CallNoArgs(clock))) goto done;  /* (read once: the clock does not move inside this call) */
    if ((above = PyObject_RichCompareBool(alive, peak, Py_GT)) < 0) goto done;
    if (above && (PyObject_SetAttr(tally, s_peak_bytes, alive) < 0 || PyObject_SetAttr(tally, s_peak_step, now) < 0))
        goto done;
    if (tick(tally, now, alive) < 0) goto done;
    result = 1;
done:
    Py_DECREF(key); Py_DECREF(ref); Py_XDECREF(entry); Py_XDECREF(sum); Py_XDECREF(alive); Py_XDECREF(clock);
    Py_XDECREF(now); Py_XDECREF(peak);
    return result;
}

/* MemoryTally._collected(ref), bound to its tally by ``collector(tally)``: the owner of ``ref`` is
   being collected, its bytes stop counting as alive */
static PyObject *collected(PyObject *tally, PyObject *ref) {
    PyObject *seen = NULL, *key = NULL, *entry = NULL, *alive = NULL, *clock = NULL, *now = NULL, *result = NULL;
    if (!(seen = PyObject_GetAttr(tally, s_seen)) || !(key = PyObject_GetAttr(ref, s_key))) goto done;
    /* ``seen.pop(ref.key, None)`` */
    if (PyDict_CheckExact(seen)) {
        if ((entry = PyDict_GetItemWithError(seen, key))) {
            Py_INCREF(entry);
            if (PyDict_DelItem(seen, key) < 0) goto done;
        } else if (PyErr_Occurred()) {
            goto done;
        }
    } else {
        if (!(entry = PyObject_CallMethod(seen, "pop", "OO", key, Py_None))) goto done;
        if (entry == Py_None) Py_CLEAR(entry);
    }
    if (entry) {
        PyObject *nbytes = PySequence_GetItem(entry, 1);
        if (!nbytes) goto done;
        alive = bump(tally, s_alive_bytes, nbytes, -1);
        Py_DECREF(nbytes);
        if (!alive || !(clock = PyObject_GetAttr(tally, s_clock))) goto done;
        if (clock != Py_None && (!(now = PyObject_CallNoArgs(clock)) || tick(tally, now, alive) < 0)) goto done;
    }
    result = Py_None; Py_INCREF(result);
done:
    Py_XDECREF(seen); Py_XDECREF(key); Py_XDECREF(entry); Py_XDECREF(alive); Py_XDECREF(clock); Py_XDECREF(now);
    return result;
}

static PyMethodDef collected_def = {"collected", (PyCFunction)collected, METH_O,
                                    "MemoryTally._collected in C (see the C source)"};

/* collector(tally): ``collected`` bound to ``tally``, the callback of the weak references it makes */
static PyObject *collector(PyObject *self, PyObject *tally) { return PyCFunction_New(&collected_def, tally); }

/* isinstance(x, tensor): the common answers without a lookup of __instancecheck__ (torch.Tensor's
   metaclass keeps type's own, which answers by the type, and by ``__class__`` for a proxy) */
static inline int is_tensor(PyObject *x, PyObject *tensor) {
    if (PyObject_TypeCheck(x, (PyTypeObject *)tensor)) return 1;
    if (PyLong_CheckExact(x) || PyFloat_CheckExact(x) || x == Py_None || PyBool_Check(x)) return 0;
    return PyObject_IsInstance(x, tensor);
}

/* 1: recorded; 0: declined (no error set) */
static int record_locked(PyObject *state, PyObject *func, PyObject *opargs, PyObject *out) {
#define ST(i) PyTuple_GET_ITEM(state, i)
    PyObject *items[MAXT];
    Py_ssize_t n = 0, n_in, index = -1, start = -1;
    PyObject *key = NULL, *node = NULL, *call = NULL, *seq = NULL, *name = NULL, *kind, *copied = NULL,
             *allocated = NULL, *where = NULL, *peek = NULL, *tmp = NULL, *tmp2 = NULL, *entry = NULL;
    PyObject *fields = ST(S_FIELDS), *starts = ST(S_STARTS), *tensor = ST(S_TENSOR);
    int done = 0, is;

    key = PyLong_FromVoidPtr(func);
    if (!key) goto decline;
    entry = PyDict_GetItemWithError(ST(S_OPS), key);
    if (!entry || !PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 5) { entry = NULL; goto decline; }
    Py_INCREF(entry);  /* (kept: the Python helpers called below may run code that clears ``ops``) */
    int lists = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 1));
    int allocates = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 3));
    int collective = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 4));
    kind = PyTuple_GET_ITEM(entry, 2);
    if (lists < 0 || allocates < 0 || collective != 0 || !PyTuple_Check(opargs) || !PyUnicode_Check(kind)) goto decline;

#define PUSH(x) do { if (n == MAXT) goto decline; Py_INCREF(x); items[n++] = (x); } while (0)
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(opargs); i++) {
        PyObject *a = PyTuple_GET_ITEM(opargs, i);
        if ((is = is_tensor(a, tensor)) < 0) goto decline;
        if (is) PUSH(a);
        else if (lists && (PyList_CheckExact(a) || PyTuple_CheckExact(a))) {
            for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(a); j++) {
                PyObject *x = PySequence_Fast_GET_ITEM(a, j);
                if ((is = is_tensor(x, tensor)) < 0) goto decline;
                if (is) PUSH(x);
            }
        }
    }
    n_in = n;
    if ((is = is_tensor(out, tensor)) < 0) goto decline;
    if (is) PUSH(out);
    else if (PyList_Check(out) || PyTuple_Check(out)) {
        for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(out); j++) {
            PyObject *x = PySequence_Fast_GET_ITEM(out, j);
            if ((is = is_tensor(x, tensor)) < 0) goto decline;
            if (is) PUSH(x);
        }
    }

    node = PyObject_CallNoArgs(ST(S_NODE));
    if (!node || !PyList_Check(ST(S_CONTEXT)) || PyList_GET_SIZE(ST(S_CONTEXT)) < 1) goto decline;
    call = PyList_GET_ITEM(ST(S_CONTEXT), 0);
    Py_INCREF(call);

    if (PyUnicode_CompareWithASCIIString(kind, "maybe_copy") == 0) {
        int same = 0;
        if (n > n_in && n_in > 0) {
            if (!(tmp = PyObject_CallMethodNoArgs(items[n_in], s_untyped_storage))) goto decline;
            Py_SETREF(tmp, PyObject_GetAttr(tmp, s_cdata));
            if (!tmp || !(tmp2 = PyObject_CallMethodNoArgs(items[0], s_untyped_storage))) goto decline;
            Py_SETREF(tmp2, PyObject_GetAttr(tmp2, s_cdata));
            if (!tmp2 || (same = PyObject_RichCompareBool(tmp, tmp2, Py_EQ)) < 0) goto decline;
            Py_CLEAR(tmp); Py_CLEAR(tmp2);
        }
        kind = same ? s_view : s_copy;
    }
    copied = PyLong_FromLong(0);
    if (!copied) goto decline;
    int is_copy = PyUnicode_CompareWithASCIIString(kind, "copy") == 0;
    if (is_copy) {
        PyObject *target = allocates ? (n > n_in ? items[n_in] : NULL) : (n_in ? items[0] : NULL);
        if (!allocates && !n_in) goto decline;  /* (the Python recorder's IndexError) */
        if (target) {
            Py_SETREF(copied, PyObject_GetAttr(target, s_nbytes));
            if (!copied) goto decline;
            PyObject *source = !allocates && n_in > 1 ? items[1] : n_in ? items[0] : target;
            if (!(tmp = PyObject_GetAttr(source, s_device)) || !(tmp2 = PyObject_GetAttr(target, s_device))) goto decline;
            int other = PyObject_RichCompareBool(tmp, tmp2, Py_NE);
            if (other != 0) goto decline;  /* a copy between devices: the Python recorder notes it */
            Py_CLEAR(tmp); Py_CLEAR(tmp2);
        }
    }

    /* the header's node fields and the user's line, as on_op reads them */
    PyFrameObject *frame = PyEval_GetFrame();  /* borrowed: the dispatch mode's handler, which called on_op */
    if (node == Py_None) {
        seq = PyLong_FromLong(-1);
        name = s_empty; Py_INCREF(name);
        long c = PyLong_AsLong(call);
        if (c == -1 && PyErr_Occurred()) goto decline;
        if (c < 0) {
            if (!frame) goto decline;
            PyFrameObject *back = PyFrame_GetBack(frame);
            where = PyObject_CallOneArg(ST(S_USER_WHERE), back ? (PyObject *)back : Py_None);
            Py_XDECREF(back);
        } else {
            where = s_empty; Py_INCREF(where);
        }
        if (!seq || !where) goto decline;
    } else {
        PyObject *cls = (PyObject *)Py_TYPE(node);
        name = PyDict_GetItemWithError(ST(S_NAMES), cls);
        if (name) Py_INCREF(name);
        else if (PyErr_Occurred()) goto decline;
        else {
            if (!(name = PyObject_GetAttr(cls, s_name)) || PyDict_SetItem(ST(S_NAMES), cls, name) < 0) goto decline;
        }
        if (!(seq = PyObject_CallMethodNoArgs(node, s_sequence_nr)) || !frame) goto decline;
        PyFrameObject *back = PyFrame_GetBack(frame);
        PyCodeObject *code = back ? PyFrame_GetCode(back) : NULL;
        if (code && (PyObject *)code == ST(S_ENGINE)) {
            where = s_empty; Py_INCREF(where);
        } else {
            where = PyObject_CallOneArg(ST(S_BACKWARD_WHERE), back ? (PyObject *)back : Py_None);
        }
        Py_XDECREF(code); Py_XDECREF(back);
        if (!where) goto decline;
    }
    if (!(peek = PyObject_CallNoArgs(ST(S_PEEK)))) goto decline;

    /* the memory tally: each output storage not counted yet (clock: the record's index, not kept yet) */
    allocated = PyLong_FromLong(0);
    if (!allocated) goto decline;
    if (allocates && kind != s_view && PyUnicode_CompareWithASCIIString(kind, "view") != 0) {
        for (Py_ssize_t i = n_in; i < n; i++) {
            PyObject *storage = PyObject_CallMethodNoArgs(items[i], s_untyped_storage);
            if (!storage) goto decline;
            tmp = PyLong_FromVoidPtr(storage);
            int counted = tmp ? PyDict_Contains(ST(S_SEEN), tmp) : -1;
            Py_CLEAR(tmp);
            if (counted < 0) { Py_DECREF(storage); goto decline; }
            if (counted) { Py_DECREF(storage); continue; }
            PyObject *nbytes = PyObject_CallMethodNoArgs(storage, s_nbytes);
            int some = nbytes ? PyObject_IsTrue(nbytes) : -1, memory = 0;
            if (some > 0) {
                PyObject *device = PyObject_GetAttr(storage, s_device);
                memory = device ? PyObject_RichCompareBool(device, ST(S_CPU), Py_EQ) : -1;
                if (memory == 0) {
                    PyObject *type = PyObject_GetAttr(device, s_type);
                    memory = type ? PyObject_RichCompareBool(type, s_meta, Py_NE) : -1;
                    Py_XDECREF(type);
                }
                Py_XDECREF(device);
            }
            if (some > 0 && memory > 0) {
                int counts;
                if (ST(S_TALLY) != Py_None) {
                    counts = tally_allocated(ST(S_TALLY), ST(S_SEEN), ST(S_KEYEDREF), ST(S_COLLECTED), storage, nbytes);
                } else {
                    PyObject *args2[2] = {storage, nbytes};
                    tmp = PyObject_Vectorcall(ST(S_ALLOCATED), args2, 2, NULL);
                    counts = tmp ? PyObject_IsTrue(tmp) : -1;
                    Py_CLEAR(tmp);
                }
                if (counts > 0) Py_SETREF(allocated, PyNumber_Add(allocated, nbytes));
                if (counts < 0 || !allocated) memory = -1;
            }
            Py_DECREF(storage); Py_XDECREF(nbytes);
            if (some < 0 || memory < 0) goto decline;
        }
    }

    /* the record: its start, the header, then each tensor's layout */
    index = PyList_GET_SIZE(starts);
    start = PyList_GET_SIZE(fields);
    if (!(tmp = PyLong_FromSsize_t(start)) || PyList_Append(starts, tmp) < 0) goto decline;
    Py_CLEAR(tmp);
    if (!(tmp = PyLong_FromSsize_t(n_in))) goto decline;
    PyObject *header[10] = {key, call, seq, name, kind, copied, allocated, where, peek, tmp};
    for (int i = 0; i < 10; i++)
        if (PyList_Append(fields, header[i]) < 0) goto decline;
    Py_CLEAR(tmp);
    if (append_layouts(fields, items, n, ST(S_TUPLES), ST(S_STRIDED)) < 0) goto decline;
    done = 1;

decline:
    if (!done) {
        PyErr_Clear();
        if (index >= 0 && PyList_GET_SIZE(starts) > index) PyList_SetSlice(starts, index, PyList_GET_SIZE(starts), NULL);
        if (start >= 0 && PyList_GET_SIZE(fields) > start) PyList_SetSlice(fields, start, PyList_GET_SIZE(fields), NULL);
        PyErr_Clear();
    }
    for (Py_ssize_t i = 0; i < n; i++) Py_DECREF(items[i]);
    Py_XDECREF(key); Py_XDECREF(entry); Py_XDECREF(node); Py_XDECREF(call); Py_XDECREF(seq); Py_XDECREF(name);
    Py_XDECREF(copied); Py_XDECREF(allocated); Py_XDECREF(where); Py_XDECREF(peek); Py_XDECREF(tmp); Py_XDECREF(tmp2);
    return done;
#undef PUSH
#undef ST
}

static PyObject *record(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4 || !PyTuple_Check(args[0]) || PyTuple_GET_SIZE(args[0]) != S_N) {
        PyErr_SetString(PyExc_TypeError, "record(state, func, args, out)"); return NULL; }
    PyObject *r = PyObject_CallNoArgs(PyTuple_GET_ITEM(args[0], S_ACQUIRE));
    if (!r) return NULL;
    Py_DECREF(r);
    int done = record_locked(args[0], args[1], args[2], args[3]);
    if (!(r = PyObject_CallNoArgs(PyTuple_GET_ITEM(args[0], S_RELEASE)))) return NULL;
    Py_DECREF(r);
    if (!done) return PyObject_Vectorcall(PyTuple_GET_ITEM(args[0], S_SLOW), args + 1, 3, NULL);
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------- call: on_call in one call

   call(state, func, args, kwargs): ``on_call(func, args, kwargs)`` of ``watch_torch._recorders``
   (a user's Python-level torch call, from the function mode's handler, the current Python frame):
   the call's name (``func.__name__``, "" without one); a call named in SILENT_CALLS runs as is;
   else its name, the user's line (the first frame above the handler's outside torch, strided and
   the stdlib, as ``_user_where`` finds it, through the same caches: ``_LIBRARY`` per file, ``lines``
   per code object and instruction; a file or line not cached yet is worked out by the Python helper)
   and the module path go on ``calls``, the call runs with its index as the context (restored
   however it ends), and a reshape-like call that ran ops is handed to the Python ``note_reshape``.
   Arguments that are not a tuple and a dict go to the Python on_call (``state[C_SLOW]``). */

enum { C_CALLS, C_SILENT, C_RESHAPE, C_CONTEXT, C_STACK, C_STARTS, C_LIBRARY, C_IS_LIBRARY, C_LINES, C_LINE_TEXT,
       C_NOTE_RESHAPE, C_SLOW, C_N };

/* ``_user_where(frame, lines)``: a new reference to 'file:line', or NULL with an error set */
static PyObject *user_where(PyObject *state, PyFrameObject *frame) {
#define CS(i) PyTuple_GET_ITEM(state, i)
    Py_XINCREF(frame);
    while (frame) {
        PyCodeObject *code = PyFrame_GetCode(frame);
        PyObject *library = PyDict_GetItemWithError(CS(C_LIBRARY), code->co_filename);  /* borrowed */
        int is_library;
        if (library) {
            is_library = PyObject_IsTrue(library);
        } else if (PyErr_Occurred()) {
            is_library = -1;
        } else {
            PyObject *r = PyObject_CallOneArg(CS(C_IS_LIBRARY), code->co_filename);
            is_library = r ? PyObject_IsTrue(r) : -1;
            Py_XDECREF(r);
        }
        if (is_library < 0) { Py_DECREF(code); Py_DECREF(frame); return NULL; }
        if (!is_library) {
            /* ``_line_text``: cached per (id(code), f_lasti) */
            PyObject *where = NULL, *key = Py_BuildValue("(Ni)", PyLong_FromVoidPtr(code), PyFrame_GetLasti(frame));
            if (key) {
                where = PyDict_GetItemWithError(CS(C_LINES), key);
                if (where) Py_INCREF(where);
                else if (!PyErr_Occurred()) {
                    PyObject *args[3] = {(PyObject *)frame, (PyObject *)code, CS(C_LINES)};
                    where = PyObject_Vectorcall(CS(C_LINE_TEXT), args, 3, NULL);
                }
                Py_DECREF(key);
            }
            Py_DECREF(code); Py_DECREF(frame);
            return where;
        }
        Py_DECREF(code);
        PyFrameObject *back = PyFrame_GetBack(frame);
        Py_DECREF(frame);
        frame = back;
    }
    return PyUnicode_FromString("<unknown>");
}

static PyObject *call(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4 || !PyTuple_Check(args[0]) || PyTuple_GET_SIZE(args[0]) != C_N) {
        PyErr_SetString(PyExc_TypeError, "call(state, func, args, kwargs)"); return NULL; }
    PyObject *state = args[0], *func = args[1], *fargs = args[2], *kwargs = args[3];
    PyObject *calls = CS(C_CALLS), *context = CS(C_CONTEXT), *stack = CS(C_STACK), *starts = CS(C_STARTS);
    if (!PyTuple_CheckExact(fargs) || !PyDict_CheckExact(kwargs) || !PyList_CheckExact(calls) || !PyList_CheckExact(context)
            || PyList_GET_SIZE(context) < 1 || !PyList_CheckExact(stack) || !PyList_CheckExact(starts))
        return PyObject_Vectorcall(CS(C_SLOW), args + 1, 3, NULL);
    PyObject *name = PyObject_GetAttr(func, s_name);
    if (!name) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return NULL;
        PyErr_Clear();
        name = s_empty; Py_INCREF(name);
    }
    int silent = PySet_Contains(CS(C_SILENT), name);
    if (silent < 0) { Py_DECREF(name); return NULL; }
    if (silent) { Py_DECREF(name); return PyObject_Call(func, fargs, PyDict_GET_SIZE(kwargs) ? kwargs : NULL); }

    /* calls.extend((name, where, module path)) */
    Py_ssize_t index = PyList_GET_SIZE(calls) / 3;
    PyFrameObject *frame = PyEval_GetFrame();  /* borrowed: the function mode's handler */
    PyFrameObject *back = frame ? PyFrame_GetBack(frame) : NULL;
    PyObject *where = user_where(state, back);
    Py_XDECREF(back);
    if (!where) { Py_DECREF(name); return NULL; }
    Py_ssize_t depth = PyList_GET_SIZE(stack);
    PyObject *module = depth ? PyList_GET_ITEM(stack, depth - 1) : s_empty;
    Py_INCREF(module);
    int err = PyList_Append(calls, name) < 0 || PyList_Append(calls, where) < 0 || PyList_Append(calls, module) < 0;
    Py_DECREF(where); Py_DECREF(module);
    PyObject *number = err ? NULL : PyLong_FromSsize_t(index);
    if (!number) { Py_DECREF(name); return NULL; }

    /* the call, with its index as the context */
    PyObject *previous = PyList_GET_ITEM(context, 0);
    Py_INCREF(previous);
    PyList_SetItem(context, 0, number);  /* (steals number) */
    Py_ssize_t first = PyList_GET_SIZE(starts);
    PyObject *out = PyObject_Call(func, fargs, PyDict_GET_SIZE(kwargs) ? kwargs : NULL);
    if (PyList_GET_SIZE(context) >= 1) {
        PyList_SetItem(context, 0, previous);  /* (steals previous) */
    } else {
        Py_DECREF(previous);
    }
    if (!out) { Py_DECREF(name); return NULL; }
    int reshape = PyTuple_GET_SIZE(fargs) && PyList_GET_SIZE(starts) > first ? PySet_Contains(CS(C_RESHAPE), name) : 0;
    Py_DECREF(name);
    if (reshape < 0) { Py_DECREF(out); return NULL; }
    if (reshape) {
        PyObject *n = PyLong_FromSsize_t(index);
        PyObject *r = n ? PyObject_CallFunctionObjArgs(CS(C_NOTE_RESHAPE), n, fargs, out, NULL) : NULL;
        Py_XDECREF(n);
        if (!r) { Py_DECREF(out); return NULL; }
        Py_DECREF(r);
    }
    return out;
#undef CS
}

static PyMethodDef methods[] = {
    {"layouts", (PyCFunction)(void (*)(void))layouts, METH_FASTCALL, "append (shape, strides, dtype) of each tensor"},
    {"record", (PyCFunction)(void (*)(void))record, METH_FASTCALL, "watch_torch's on_op in one call (see the C source)"},
    {"call", (PyCFunction)(void (*)(void))call, METH_FASTCALL, "watch_torch's on_call in one call (see the C source)"},
    {"collector", (PyCFunction)collector, METH_O, "MemoryTally._collected in C, bound to a tally (see the C source)"},
    {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_watchrec", "watch_torch's per-tensor reads (see the C source)", -1, methods};
PyMODINIT_FUNC PyInit__watchrec(void) {
    s_shape = PyUnicode_InternFromString("shape"); s_stride = PyUnicode_InternFromString("stride");
    s_dtype = PyUnicode_InternFromString("dtype"); s_layout = PyUnicode_InternFromString("layout");
    s_untyped_storage = PyUnicode_InternFromString("untyped_storage"); s_cdata = PyUnicode_InternFromString("_cdata");
    s_nbytes = PyUnicode_InternFromString("nbytes"); s_device = PyUnicode_InternFromString("device");
    s_type = PyUnicode_InternFromString("type"); s_sequence_nr = PyUnicode_InternFromString("_sequence_nr");
    s_name = PyUnicode_InternFromString("__name__"); s_empty = PyUnicode_InternFromString("");
    s_view = PyUnicode_InternFromString("view"); s_copy = PyUnicode_InternFromString("copy");
    s_meta = PyUnicode_InternFromString("meta");
    s_key = PyUnicode_InternFromString("key"); s_seen = PyUnicode_InternFromString("_seen");
    s_allocated_bytes = PyUnicode_InternFromString("allocated_bytes"); s_alive_bytes = PyUnicode_InternFromString("alive_bytes");
    s_peak_bytes = PyUnicode_InternFromString("peak_bytes"); s_peak_step = PyUnicode_InternFromString("peak_step");
    s_timeline = PyUnicode_InternFromString("timeline"); s_clock = PyUnicode_InternFromString("clock");
    return PyModule_Create(&mod);
}
