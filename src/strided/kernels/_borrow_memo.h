/* borrow_memo(array, plans, pinned) -> Tensor | None: from_numpy's common call in one C call, where
 * its Python fast path took five steps (the key's three attribute reads and tuple, the dict look-up,
 * ndarray.ravel("K"), adopt, and the storage's pinned slot set).
 *
 * array: an exact numpy.ndarray (the caller tests its class). plans: strided.creation._borrow_plans,
 * (shape, byte strides, NumPy dtype) -> (Layout, DType) for an array from_numpy borrows densely, or
 * False where the general path decides; only _borrow_plan makes its entries. A key with a
 * (Layout, DType) plan: the result is adopt(array.ravel("K"), layout, dtype) (a C- or F-contiguous
 * array's memory order: a view, never a copy) with its storage's _pinned slot set to pinned
 * (strided.storage._BORROWED: the storage never moves, as borrowed() pins it). Any other key (not
 * remembered, or False): None, nothing made, and the caller's path runs. Nothing is reported: the
 * caller checks whether anyone listens. (Before adopt_types: adopt's RuntimeError.) */
static PyObject *borrow_shape_name, *borrow_strides_name, *borrow_dtype_name, *borrow_ravel_name, *borrow_order_k;

static PyObject *py_borrow_memo(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "borrow_memo(array, plans, pinned) takes 3 arguments");
        return NULL;
    }
    PyObject *array = args[0], *plans = args[1];
    if (!PyDict_CheckExact(plans))
        Py_RETURN_NONE;
    if (borrow_order_k == NULL) {
        if ((borrow_shape_name = PyUnicode_InternFromString("shape")) == NULL
            || (borrow_strides_name = PyUnicode_InternFromString("strides")) == NULL
            || (borrow_dtype_name = PyUnicode_InternFromString("dtype")) == NULL
            || (borrow_ravel_name = PyUnicode_InternFromString("ravel")) == NULL
            || (borrow_order_k = PyUnicode_InternFromString("K")) == NULL)
            return NULL;
    }
    PyObject *key = PyTuple_New(3);  /* (shape, strides, dtype): _borrow_plans' key */
    if (key == NULL)
        return NULL;
    PyObject *names[3] = {borrow_shape_name, borrow_strides_name, borrow_dtype_name};
    for (int i = 0; i < 3; i++) {
        PyObject *v = PyObject_GetAttr(array, names[i]);
        if (v == NULL) {
            Py_DECREF(key);
            return NULL;
        }
        PyTuple_SET_ITEM(key, i, v);  /* (the new reference moves into the tuple) */
    }
    PyObject *plan;
    if (memo_plan(plans, key, &plan) < 0)
        return NULL;
    if (plan == NULL)
        Py_RETURN_NONE;
    if (!PyTuple_CheckExact(plan) || PyTuple_GET_SIZE(plan) != 2)  /* (False: the general path's array) */
        Py_RETURN_NONE;
    Py_INCREF(plan);  /* (held across ravel: the dict is the callers' to change) */
    PyObject *margs[2] = {array, borrow_order_k};
    PyObject *flat = PyObject_VectorcallMethod(borrow_ravel_name, margs, 2, NULL);
    if (flat == NULL) {
        Py_DECREF(plan);
        return NULL;
    }
    PyObject *aargs[3] = {flat, PyTuple_GET_ITEM(plan, 0), PyTuple_GET_ITEM(plan, 1)};
    PyObject *t = py_adopt(self, aargs, 3);
    Py_DECREF(flat);
    Py_DECREF(plan);
    if (t == NULL)
        return NULL;
    PyObject *storage = SLOT(t, off_storage);
    Py_INCREF(args[2]);
    Py_SETREF(SLOT(storage, off_pinned), args[2]);
    return t;
}
