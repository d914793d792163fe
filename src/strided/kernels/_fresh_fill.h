/* fresh(sizes, plans, limit, maker, np_dtype, value, dtype) -> Tensor | None: the factories' common
 * call (full, zeros, ones, t.new_zeros/new_ones/new_full) in one C call, where their Python fast
 * paths took five (strided.creation._plain_plan, numpy.empty, ndarray.fill, adopt, and the
 * function's own frame around them).
 *
 * sizes: the factory's positional sizes as creation._plain_plan takes them: one tuple of ints
 * (zeros((2, 3)), given as a 1-tuple holding it) or the ints themselves (zeros(2, 3)). Every size
 * must be an int exactly (not a bool, not a NumPy integer: _plain_plan's test), and (sizes, None) a
 * key of plans (strided.dispatch._result_plans: (element count, row-major Layout), made only by the
 * general path after its checks) whose count is at most limit; else None, nothing made, and the
 * caller's general path runs. Then array = maker(count, np_dtype) (numpy.empty or numpy.zeros),
 * array.fill(value) unless value is None (the caller checked that value fits the dtype; limit keeps
 * the count below strided.kernels.fill.FILL_MIN, where fill() is ndarray.fill itself), and the
 * result adopt(array, layout, dtype). Nothing is reported: the caller checks that nobody listens. */
static PyObject *fresh_fill_name;

/* *plan: the memo's plans[key] (borrowed), or NULL where key is not there; key's reference is
 * consumed. -1 (an exception set) where the look-up raised. (fresh's and borrow_memo's look-up.) */
static int memo_plan(PyObject *plans, PyObject *key, PyObject **plan)
{
    *plan = PyDict_GetItemWithError(plans, key);
    Py_DECREF(key);
    return *plan == NULL && PyErr_Occurred() ? -1 : 0;
}

static PyObject *py_fresh(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "fresh(sizes, plans, limit, maker, np_dtype, value, dtype) takes 7 arguments");
        return NULL;
    }
    PyObject *sizes = args[0], *plans = args[1];
    if (!PyTuple_CheckExact(sizes) || !PyDict_CheckExact(plans))
        Py_RETURN_NONE;
    Py_ssize_t n = PyTuple_GET_SIZE(sizes);
    if (n == 1 && PyTuple_CheckExact(PyTuple_GET_ITEM(sizes, 0)))
        sizes = PyTuple_GET_ITEM(sizes, 0);
    else if (n == 0)  /* (zeros(): the general path's answer) */
        Py_RETURN_NONE;
    n = PyTuple_GET_SIZE(sizes);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyLong_CheckExact(PyTuple_GET_ITEM(sizes, i)))
            Py_RETURN_NONE;
    PyObject *key = PyTuple_Pack(2, sizes, Py_None);
    if (key == NULL)
        return NULL;
    PyObject *plan;
    if (memo_plan(plans, key, &plan) < 0)
        return NULL;
    if (plan == NULL)
        Py_RETURN_NONE;
    if (!PyTuple_CheckExact(plan) || PyTuple_GET_SIZE(plan) != 2)
        Py_RETURN_NONE;
    PyObject *count = PyTuple_GET_ITEM(plan, 0), *layout = PyTuple_GET_ITEM(plan, 1);
    /* (the general path remembers a plan before its allocation fails: a count beyond int64 is
     * beyond the limit, as Python's comparison finds it) */
    int over = 0;
    long long c = PyLong_AsLongLongAndOverflow(count, &over), limit = PyLong_AsLongLong(args[2]);
    if ((c == -1 || limit == -1) && PyErr_Occurred())
        return NULL;
    if (over != 0 || c < 0 || c > limit)
        Py_RETURN_NONE;
    PyObject *margs[2] = {count, args[4]};
    PyObject *array = PyObject_Vectorcall(args[3], margs, 2, NULL);
    if (array == NULL)
        return NULL;
    if (args[5] != Py_None) {
        if (fresh_fill_name == NULL && (fresh_fill_name = PyUnicode_InternFromString("fill")) == NULL) {
            Py_DECREF(array);
            return NULL;
        }
        PyObject *r = PyObject_CallMethodOneArg(array, fresh_fill_name, args[5]);
        if (r == NULL) {
            Py_DECREF(array);
            return NULL;
        }
        Py_DECREF(r);
    }
    PyObject *aargs[3] = {array, layout, args[6]};
    PyObject *t = py_adopt(self, aargs, 3);
    Py_DECREF(array);
    return t;
}
