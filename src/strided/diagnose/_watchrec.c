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
   recorder's time per op, measured by replaying a GPT's ops through it. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *s_shape, *s_stride, *s_dtype, *s_layout;

static PyObject *layouts(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4) { PyErr_SetString(PyExc_TypeError, "layouts takes 4 arguments"); return NULL; }
    PyObject *fields = args[0], *tensors = args[1], *tuples = args[2], *strided = args[3];
    Py_ssize_t n = PyTuple_GET_SIZE(tensors);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyTuple_GET_ITEM(tensors, i);
        PyObject *shape = PyObject_GetAttr(t, s_shape);
        if (!shape) return NULL;
        PyObject *strides = PyObject_CallMethodNoArgs(t, s_stride);
        if (!strides) { Py_DECREF(shape); return NULL; }
        if (PyTuple_Check(strides) && PyTuple_GET_SIZE(strides) > 0) {
            PyObject *last = PyTuple_GET_ITEM(strides, PyTuple_GET_SIZE(strides) - 1);
            int zero = PyObject_Not(last);
            if (zero < 0) { Py_DECREF(shape); Py_DECREF(strides); return NULL; }
            if (zero) {
                PyObject *layout = PyObject_GetAttr(t, s_layout);
                if (!layout) { Py_DECREF(shape); Py_DECREF(strides); return NULL; }
                int other = layout != strided;
                Py_DECREF(layout);
                if (other) { Py_DECREF(shape); Py_DECREF(strides);
                    PyErr_SetString(PyExc_RuntimeError, "no strides"); return NULL; }
            }
        }
        PyObject *kept = PyDict_GetItemWithError(tuples, shape);  /* borrowed */
        PyObject *kept_strides;
        if (kept) {
            Py_INCREF(kept);
        } else if (!PyErr_Occurred()) {
            kept = PySequence_Tuple(shape);
            if (!kept) { Py_DECREF(shape); Py_DECREF(strides); return NULL; }
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
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) { Py_DECREF(shape); Py_DECREF(strides); return NULL; }
        PyErr_Clear();
        kept = PySequence_Tuple(shape);
        if (!kept) { Py_DECREF(shape); Py_DECREF(strides); return NULL; }
    have:
        Py_DECREF(shape);
        PyObject *dtype = PyObject_GetAttr(t, s_dtype);
        if (!dtype) { Py_DECREF(kept); Py_DECREF(strides); return NULL; }
        int err = PyList_Append(fields, kept) < 0 || PyList_Append(fields, strides) < 0 || PyList_Append(fields, dtype) < 0;
        Py_DECREF(kept); Py_DECREF(strides); Py_DECREF(dtype);
        if (err) return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"layouts", (PyCFunction)(void (*)(void))layouts, METH_FASTCALL, "append (shape, strides, dtype) of each tensor"},
    {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_watchrec", "watch_torch's per-tensor reads (see the C source)", -1, methods};
PyMODINIT_FUNC PyInit__watchrec(void) {
    s_shape = PyUnicode_InternFromString("shape"); s_stride = PyUnicode_InternFromString("stride");
    s_dtype = PyUnicode_InternFromString("dtype"); s_layout = PyUnicode_InternFromString("layout");
    return PyModule_Create(&mod);
}
