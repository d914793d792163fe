/* strided.kernels._matkernel: the small float matrix products (mm / matmul / @, bmm, mv) in one C
 * call: the operands' checks, NumPy's fresh result array and the very BLAS call NumPy's matmul
 * makes on the same views, into a new strided tensor.
 *
 * Why: a (3, 4) @ (4, 3) float32 product is ~0.35 us of BLAS and ~1.7 us of Python around it
 * (slot reads, two NumPy views, the quiet context, the result tensor); PyTorch's call is ~1.3 us.
 *
 * The bits are NumPy's because the call is NumPy's: setup() is handed the addresses of the cblas
 * routines of the OpenBLAS NumPy itself calls (numpy.libs' scipy-openblas, ILP64: 64-bit
 * integers), and each entry makes the call NumPy's matmul inner loop
 * (numpy/_core/src/umath/matmul.c.src) makes for its case, with the same order, transpose flags,
 * sizes, leading dimensions, alpha 1 and beta 0:
 *   matrix @ matrix, every dim >= 2: gemm(RowMajor, trans1, trans2, m, p, n, 1, A, lda, B, ldb,
 *     0, C, p) once per batch matrix; an operand with strides (s, 1), s >= its columns, is NoTrans
 *     with ld s, one with strides (1, s), s >= its rows, Trans with ld s (is_blasable2d's order);
 *   matrix @ vector, both dims >= 2: gemv(ColMajor, Trans, n, m, 1, A, n, x, 1, 0, y, 1) for a
 *     row-major (m, n) A and a contiguous x.
 * (ndarray.dot, which the Python fast path called for two row-major operands, makes the same
 * gemm call: cblasfuncs.c's gemm with NoTrans/NoTrans and the same leading dimensions.)
 * Where NumPy would take another routine -- a dim of 1 (gemv, dot or its own loop), a matrix
 * times its own transpose (syrk), an empty operand -- or anything is unusual (not a tensor,
 * another dtype, layout or byte order, a run outside its storage), the entry answers None,
 * nothing made, and the caller's Python path runs as before. The GIL is held: only products of at
 * most `limit` multiply-adds come here (NumPy's own call, which releases it, serves larger ones).
 * Floating-point flags: strided runs these products quietly (no warnings), as here. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include "_torch_bmm_loop.h"

enum { ROW_MAJOR = 101, COL_MAJOR = 102, NO_TRANS = 111, TRANS = 112 }; /* (cblas.h's values) */

typedef void (*sgemm_fn)(int, int, int, int64_t, int64_t, int64_t, float, const float *, int64_t,
                         const float *, int64_t, float, float *, int64_t);
typedef void (*dgemm_fn)(int, int, int, int64_t, int64_t, int64_t, double, const double *, int64_t,
                         const double *, int64_t, double, double *, int64_t);
typedef void (*sgemv_fn)(int, int, int64_t, int64_t, float, const float *, int64_t, const float *,
                         int64_t, float, float *, int64_t);
typedef float (*sdot_fn)(int64_t, const float *, int64_t, const float *, int64_t);
typedef double (*ddot_fn)(int64_t, const double *, int64_t, const double *, int64_t);
typedef void (*dgemv_fn)(int, int, int64_t, int64_t, double, const double *, int64_t, const double *,
                         int64_t, double, double *, int64_t);

static PyTypeObject *k_tensor;
static Py_ssize_t off_storage, off_layout, off_dtype, off_array, off_shape, off_strides, off_offset;
static PyObject *k_adopt, *k_cinfo, *k_empty;
static PyObject *k_dtype[2], *k_npdtype[2]; /* float32, float64: strided's and NumPy's */
static sgemm_fn k_sgemm;
static dgemm_fn k_dgemm;
static sgemv_fn k_sgemv;
static dgemv_fn k_dgemv;
static sdot_fn k_sdot;
static ddot_fn k_ddot;
static Py_ssize_t k_limit;
/* The optional MKL route (kernels/blas_route.py): MKL's ILP64 gemm for products of at least
 * k_mkl_rows x k_mkl_cols results (where its bits are PyTorch's); 0 addresses: NumPy's OpenBLAS for all. */
static sgemm_fn k_mkl_sgemm;
static dgemm_fn k_mkl_dgemm;
static Py_ssize_t k_mkl_rows, k_mkl_cols;

#define SLOT(obj, off) (*(PyObject **)((char *)(obj) + (off)))

static int slot_offset(PyTypeObject *type, const char *name, Py_ssize_t *off)
{
    PyObject *d = _PyType_Lookup(type, PyUnicode_InternFromString(name));
    if (d == NULL || Py_TYPE(d) != &PyMemberDescr_Type
        || ((PyMemberDescrObject *)d)->d_member->type != T_OBJECT_EX) {
        PyErr_Format(PyExc_TypeError, "_matkernel.setup: %s.%s is not an object slot of the class",
                     type->tp_name, name);
        return -1;
    }
    *off = ((PyMemberDescrObject *)d)->d_member->offset;
    return 0;
}

/* setup(tensor_cls, storage_cls, layout_cls, adopt, cinfo, empty, float32, float64, np_float32,
 *       np_float64, sgemm, dgemm, sgemv, dgemv, sdot, ddot, limit): the classes (their slots), the result
 * tensor's maker (dispatch.adopted), the row-major plan table (shape -> (strides, numel,
 * Layout)), numpy.empty, the two dtypes, and the routines' addresses. */
static PyObject *py_setup(PyObject *self, PyObject *args)
{
    PyObject *tensor, *storage, *layout, *adopt, *cinfo, *empty, *f32, *f64, *n32, *n64;
    unsigned long long sg, dg, sv, dv, sd, dd;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "O!O!O!OOOOOOOKKKKKKn:setup", &PyType_Type, &tensor, &PyType_Type, &storage,
                          &PyType_Type, &layout, &adopt, &cinfo, &empty, &f32, &f64, &n32, &n64,
                          &sg, &dg, &sv, &dv, &sd, &dd, &limit))
        return NULL;
    Py_ssize_t o[7];
    if (slot_offset((PyTypeObject *)tensor, "_storage", &o[0]) < 0
        || slot_offset((PyTypeObject *)tensor, "_layout", &o[1]) < 0
        || slot_offset((PyTypeObject *)tensor, "_dtype", &o[2]) < 0
        || slot_offset((PyTypeObject *)storage, "array", &o[3]) < 0
        || slot_offset((PyTypeObject *)layout, "shape", &o[4]) < 0
        || slot_offset((PyTypeObject *)layout, "strides", &o[5]) < 0
        || slot_offset((PyTypeObject *)layout, "offset", &o[6]) < 0)
        return NULL;
    if (!sg || !dg || !sv || !dv || !sd || !dd) {
        PyErr_SetString(PyExc_ValueError, "_matkernel.setup: a routine's address is 0");
        return NULL;
    }
    off_storage = o[0]; off_layout = o[1]; off_dtype = o[2]; off_array = o[3];
    off_shape = o[4]; off_strides = o[5]; off_offset = o[6];
    PyObject *keep[] = {tensor, adopt, cinfo, empty, f32, f64, n32, n64};
    for (int i = 0; i < 8; i++)
        Py_INCREF(keep[i]);
    k_tensor = (PyTypeObject *)tensor;
    k_adopt = adopt; k_cinfo = cinfo; k_empty = empty;
    k_dtype[0] = f32; k_dtype[1] = f64; k_npdtype[0] = n32; k_npdtype[1] = n64;
    k_sgemm = (sgemm_fn)(uintptr_t)sg; k_dgemm = (dgemm_fn)(uintptr_t)dg;
    k_sgemv = (sgemv_fn)(uintptr_t)sv; k_dgemv = (dgemv_fn)(uintptr_t)dv;
    k_sdot = (sdot_fn)(uintptr_t)sd; k_ddot = (ddot_fn)(uintptr_t)dd;
    k_limit = limit;
    Py_RETURN_NONE;
}

/* mkl_setup(sgemm, dgemm, rows, cols): MKL's cblas_sgemm_64 / cblas_dgemm_64 addresses for the products of
 * at least `rows` result rows and `cols` columns (0, 0: none, NumPy's OpenBLAS for all). Row-major cblas with every
 * size >= 2 and operands row-major or transposed is the column-major call PyTorch's
 * addmm_impl_cpu_ makes (the result transposed, the operands swapped), so the bits are its. */
static PyObject *py_mkl_setup(PyObject *self, PyObject *args)
{
    unsigned long long sg, dg;
    Py_ssize_t rows, cols;
    if (!PyArg_ParseTuple(args, "KKnn:mkl_setup", &sg, &dg, &rows, &cols))
        return NULL;
    if ((sg == 0) != (dg == 0)) {
        PyErr_SetString(PyExc_ValueError, "mkl_setup: give both addresses or neither");
        return NULL;
    }
    k_mkl_sgemm = (sgemm_fn)(uintptr_t)sg;
    k_mkl_dgemm = (dgemm_fn)(uintptr_t)dg;
    k_mkl_rows = rows;
    k_mkl_cols = cols;
    Py_RETURN_NONE;
}

/* mkl_addmm(c, a, b, alpha, beta): c = alpha * (a @ b) + beta * c with MKL's gemm called as
 * PyTorch's addmm_impl_cpu_ calls it (kernels/blas_route.py's addmm_into says how), for 2-D
 * float32/float64 buffers of one format, c C-contiguous (n, p), a (n, k) and b (k, p) strided.
 * True when done; False, nothing written, where an operand would need PyTorch's contiguous
 * clone (the caller copies it, then asks again) or a byte stride is not a whole element. The GIL
 * is released around the gemm (the buffers are held). */
static int mkl_operand(Py_ssize_t s_i0, Py_ssize_t s_i1, Py_ssize_t size_m, Py_ssize_t size_k, int *t)
{
    /* (PyTorch's "cast m1 as matrix a": column-major as it is, else transposed, else a clone: 0) */
    if (s_i0 == 1 && s_i1 >= (size_m > 1 ? size_m : 1))
        *t = 0;
    else if (s_i1 == 1 && s_i0 >= (size_k > 1 ? size_k : 1))
        *t = 1;
    else
        return 0;
    return 1;
}

static PyObject *py_mkl_addmm(PyObject *self, PyObject *args)
{
    PyObject *oc, *oa, *ob;
    double alpha, beta;
    if (!PyArg_ParseTuple(args, "OOOdd:mkl_addmm", &oc, &oa, &ob, &alpha, &beta))
        return NULL;
    if (k_mkl_sgemm == NULL)
        Py_RETURN_FALSE;
    Py_buffer c, a, b;
    if (PyObject_GetBuffer(oc, &c, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (PyObject_GetBuffer(oa, &a, PyBUF_STRIDES | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&c);
        return NULL;
    }
    if (PyObject_GetBuffer(ob, &b, PyBUF_STRIDES | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&c);
        PyBuffer_Release(&a);
        return NULL;
    }
    int done = 0;
    int kind = c.format && strcmp(c.format, "d") == 0 ? 1 : (c.format && strcmp(c.format, "f") == 0 ? 0 : -1);
    Py_ssize_t it = kind ? 8 : 4;
    if (kind < 0 || c.ndim != 2 || a.ndim != 2 || b.ndim != 2 || !a.format || !b.format
        || strcmp(a.format, c.format) || strcmp(b.format, c.format))
        goto end;
    Py_ssize_t n = a.shape[0], k = a.shape[1], p = b.shape[1];
    if (b.shape[0] != k || c.shape[0] != n || c.shape[1] != p || n < k_mkl_rows || p < k_mkl_cols || k < 1)
        goto end;
    if (a.strides[0] % it || a.strides[1] % it || b.strides[0] % it || b.strides[1] % it)
        goto end;
    Py_ssize_t sa[2] = {a.strides[0] / it, a.strides[1] / it}, sb[2] = {b.strides[0] / it, b.strides[1] / it};
    /* the result's strides (max(p, 1), 1): column-major as it is only for p == 1 */
    int transpose_c = p != 1;
    const Py_ssize_t *s1 = transpose_c ? sb : sa, *s2 = transpose_c ? sa : sb;
    const char *m1 = transpose_c ? b.buf : a.buf, *m2 = transpose_c ? a.buf : b.buf;
    int64_t mm = transpose_c ? p : n, nn = transpose_c ? n : p, kk = k, ldc = transpose_c ? p : 1;
    int i0 = transpose_c ? 1 : 0, i1 = transpose_c ? 0 : 1;
    int ta, tb;
    int64_t lda, ldb;
    if (!mkl_operand(s1[i0], s1[i1], mm, kk, &ta) || !mkl_operand(s2[i0], s2[i1], kk, nn, &tb))
        goto end;
    lda = s1[ta == transpose_c ? 1 : 0];
    ldb = s2[tb == transpose_c ? 1 : 0];
    /* cpublas::normalize_last_dims */
    if (nn == 1)
        ldc = mm;
    if (ta) {
        if (mm == 1)
            lda = kk;
    } else if (kk == 1) {
        lda = mm;
    }
    if (tb) {
        if (kk == 1)
            ldb = nn;
    } else if (nn == 1) {
        ldb = kk;
    }
    Py_BEGIN_ALLOW_THREADS
    if (kind)
        k_mkl_dgemm(COL_MAJOR, ta ? TRANS : NO_TRANS, tb ? TRANS : NO_TRANS, mm, nn, kk, alpha, (const double *)m1,
                    lda, (const double *)m2, ldb, beta, (double *)c.buf, ldc);
    else
        k_mkl_sgemm(COL_MAJOR, ta ? TRANS : NO_TRANS, tb ? TRANS : NO_TRANS, mm, nn, kk, (float)alpha,
                    (const float *)m1, lda, (const float *)m2, ldb, (float)beta, (float *)c.buf, ldc);
    Py_END_ALLOW_THREADS
    done = 1;
end:
    PyBuffer_Release(&c);
    PyBuffer_Release(&a);
    PyBuffer_Release(&b);
    return PyBool_FromLong(done);
}

/* One operand: its storage's buffer (held), shape, strides (elements), offset; `kind` 0 float32,
 * 1 float64. */
typedef struct {
    Py_buffer buf;
    int held;
    int kind;
    int nd;
    Py_ssize_t shape[3], strides[3], offset;
    PyObject *shape_tuple; /* borrowed (from the layout the tensor holds) */
} operand;

/* 1: `t` read into `o` (its buffer held: release with done()), its matrix and vector dims at least
 * `least` (a batch dim: at least 1); 0: not for here (None);
 * -1: an error set. */
static int read_operand_min(PyObject *t, int nd, operand *o, Py_ssize_t least)
{
    o->held = 0;
    if (!PyObject_TypeCheck(t, k_tensor))
        return 0;
    PyObject *dt = SLOT(t, off_dtype), *lay = SLOT(t, off_layout), *st = SLOT(t, off_storage);
    if (dt == NULL || lay == NULL || st == NULL)
        return 0;
    if (dt == k_dtype[0])
        o->kind = 0;
    else if (dt == k_dtype[1])
        o->kind = 1;
    else
        return 0;
    PyObject *shape = SLOT(lay, off_shape), *strides = SLOT(lay, off_strides), *offset = SLOT(lay, off_offset);
    if (shape == NULL || strides == NULL || offset == NULL || !PyTuple_CheckExact(shape)
        || !PyTuple_CheckExact(strides) || !PyLong_CheckExact(offset)
        || PyTuple_GET_SIZE(shape) != nd || PyTuple_GET_SIZE(strides) != nd)
        return 0;
    o->nd = nd;
    o->shape_tuple = shape;
    for (int i = 0; i < nd; i++) {
        PyObject *s = PyTuple_GET_ITEM(shape, i), *r = PyTuple_GET_ITEM(strides, i);
        if (!PyLong_CheckExact(s) || !PyLong_CheckExact(r))
            return 0;
        o->shape[i] = PyLong_AsSsize_t(s);
        o->strides[i] = PyLong_AsSsize_t(r);
        if ((o->shape[i] == -1 || o->strides[i] == -1) && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        /* (no size 0, nor 1 in a matrix or vector dim -- NumPy's other routines -- and no
         * negative or huge strides; a batch of 1 is one gemm, as NumPy's) */
        if (o->shape[i] < (nd == 3 && i == 0 ? 1 : least) || o->shape[i] > (1 << 20) || o->strides[i] < 0 || o->strides[i] > (1 << 30))
            return 0;
    }
    o->offset = PyLong_AsSsize_t(offset);
    if (o->offset == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    if (o->offset < 0 || o->offset > (Py_ssize_t)1 << 40)
        return 0;
    PyObject *array = SLOT(st, off_array);
    if (array == NULL || PyObject_GetBuffer(array, &o->buf, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        return 0;
    }
    o->held = 1;
    const char *f = o->buf.format;
    Py_ssize_t size = o->kind ? 8 : 4;
    char code = o->kind ? 'd' : 'f';
    /* (native byte order only: BLAS reads native floats) */
    if (o->buf.itemsize != size || f == NULL || !(f[0] == code && f[1] == 0))
        return 0;
    Py_ssize_t last = o->offset;
    for (int i = 0; i < nd; i++)
        last += (o->shape[i] - 1) * o->strides[i];
    if (last >= o->buf.len / size)
        return 0; /* (a run past its storage: the general path's error) */
    return 1;
}

/* Both operands (read_operand_min's answer: the second's buffer is held only where it was read). */
static int read_two(PyObject *const *args, int nda, int ndb, Py_ssize_t least, operand *a, operand *b)
{
    b->held = 0;
    int r = read_operand_min(args[0], nda, a, least);
    return r == 1 ? read_operand_min(args[1], ndb, b, least) : r;
}

static void done(operand *o)
{
    if (o->held)
        PyBuffer_Release(&o->buf);
    o->held = 0;
}

/* A fresh C-contiguous 1-D NumPy array of `n` elements of `kind`, its buffer in `out` (held);
 * NULL with no error set where NumPy cannot allocate it (the general path then says so). */
static PyObject *fresh(Py_ssize_t n, int kind, Py_buffer *out)
{
    PyObject *count = PyLong_FromSsize_t(n);
    if (count == NULL)
        return NULL;
    PyObject *argv[2] = {count, k_npdtype[kind]};
    PyObject *arr = PyObject_Vectorcall(k_empty, argv, 2, NULL);
    Py_DECREF(count);
    if (arr == NULL) {
        if (PyErr_ExceptionMatches(PyExc_MemoryError))
            PyErr_Clear();
        return NULL;
    }
    if (PyObject_GetBuffer(arr, out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    return arr;
}

/* The tensor over `flat` with the row-major layout of the shape (items: borrowed ints). */
static PyObject *result(PyObject *flat, int kind, PyObject **dims, int nd)
{
    PyObject *shape = PyTuple_New(nd);
    if (shape == NULL)
        return NULL;
    for (int i = 0; i < nd; i++) {
        Py_INCREF(dims[i]);
        PyTuple_SET_ITEM(shape, i, dims[i]);
    }
    PyObject *plan = PyObject_GetItem(k_cinfo, shape);
    Py_DECREF(shape);
    if (plan == NULL)
        return NULL;
    if (!PyTuple_Check(plan) || PyTuple_GET_SIZE(plan) < 3) {
        Py_DECREF(plan);
        PyErr_SetString(PyExc_TypeError, "_matkernel: the plan table's entry is not (strides, numel, layout)");
        return NULL;
    }
    PyObject *argv[3] = {flat, PyTuple_GET_ITEM(plan, 2), k_dtype[kind]};
    PyObject *t = PyObject_Vectorcall(k_adopt, argv, 3, NULL);
    Py_DECREF(plan);
    return t;
}

/* trans and ld of a matrix operand (rows r, columns c, strides s0, s1), as is_blasable2d decides;
 * 0 where neither holds (NumPy would copy it into a buffer first: not here). */
static int blas_layout(Py_ssize_t r, Py_ssize_t c, Py_ssize_t s0, Py_ssize_t s1, int *trans, int64_t *ld)
{
    if (s1 == 1 && s0 >= c) {
        *trans = NO_TRANS;
        *ld = s0;
        return 1;
    }
    if (s0 == 1 && s1 >= r) {
        *trans = TRANS;
        *ld = s1;
        return 1;
    }
    return 0;
}

/* The batched gemm of `products` into `z` (batch * m * p elements of a's kind, row-major): 1 done;
 * 0 where NumPy would not make these gemm calls (an operand not blasable, a matrix times its own
 * transpose: syrk), nothing written. */
static int gemm_into(operand *a, operand *b, Py_ssize_t batch, int nd, const Py_ssize_t *sa, const Py_ssize_t *sb,
                     char *z)
{
    Py_ssize_t m = a->shape[nd - 2], n = a->shape[nd - 1], p = b->shape[nd - 1];
    int t1, t2;
    int64_t lda, ldb;
    if (!blas_layout(m, n, sa[1], sa[2], &t1, &lda) || !blas_layout(n, p, sb[1], sb[2], &t2, &ldb))
        return 0;
    int kind = a->kind;
    Py_ssize_t size = kind ? 8 : 4;
    const char *pa = (const char *)a->buf.buf + a->offset * size;
    const char *pb = (const char *)b->buf.buf + b->offset * size;
    /* (the MKL route: PyTorch's gemm for every layout of operands, a @ a.T included) */
    /* (a batch below 400 multiply-adds per matrix: PyTorch's bmm runs its own loop there) */
    int mkl = k_mkl_sgemm != NULL && m >= k_mkl_rows && p >= k_mkl_cols && n >= 1 && (nd == 2 || m * n * p >= 400);
    if (t1 != t2 && !mkl) { /* (a matrix times its own transpose: NumPy's syrk, not here) */
        for (Py_ssize_t i = 0; i < batch; i++)
            if (pa + i * sa[0] * size == pb + i * sb[0] * size)
                return 0;
    }
    for (Py_ssize_t i = 0; i < batch; i++) {
        const char *x = pa + i * sa[0] * size, *y = pb + i * sb[0] * size;
        char *zi = z + i * m * p * size;
        if (mkl && kind)
            k_mkl_dgemm(ROW_MAJOR, t1, t2, m, p, n, 1., (const double *)x, lda, (const double *)y, ldb,
                        0., (double *)zi, p);
        else if (mkl)
            k_mkl_sgemm(ROW_MAJOR, t1, t2, m, p, n, 1.f, (const float *)x, lda, (const float *)y, ldb,
                        0.f, (float *)zi, p);
        else if (kind)
            k_dgemm(ROW_MAJOR, t1, t2, m, p, n, 1., (const double *)x, lda, (const double *)y, ldb,
                    0., (double *)zi, p);
        else
            k_sgemm(ROW_MAJOR, t1, t2, m, p, n, 1.f, (const float *)x, lda, (const float *)y, ldb,
                    0.f, (float *)zi, p);
    }
    return 1;
}

/* The batched gemm: `batch` matrices (m, n) @ (n, p), operand element strides (sa0, sa1, sa2)
 * and (sb0, sb1, sb2) (sa0/sb0 the batch strides), into a fresh row-major (batch, m, p). */
static PyObject *products(operand *a, operand *b, Py_ssize_t batch, int nd,
                          const Py_ssize_t *sa, const Py_ssize_t *sb, PyObject **dims)
{
    Py_ssize_t m = a->shape[nd - 2], p = b->shape[nd - 1];
    int kind = a->kind;
    Py_buffer out;
    PyObject *flat = fresh(batch * m * p, kind, &out);
    if (flat == NULL) {
        if (PyErr_Occurred())
            return NULL;
        Py_RETURN_NONE;
    }
    int made = gemm_into(a, b, batch, nd, sa, sb, (char *)out.buf);
    PyBuffer_Release(&out);
    if (!made) {
        Py_DECREF(flat);
        Py_RETURN_NONE;
    }
    PyObject *t = result(flat, kind, dims, nd);
    Py_DECREF(flat);
    return t;
}

static int two_args(Py_ssize_t nargs, const char *name)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "%s(a, b) takes 2 arguments", name);
        return 0;
    }
    if (k_tensor == NULL) {
        PyErr_Format(PyExc_RuntimeError, "%s: setup was not called", name);
        return 0;
    }
    return 1;
}

/* mm (nd 2) and bmm (nd 3): a ([B,] m, n) @ b ([B,] n, p) as np.matmul(a_view, b_view) computes
 * it (one gemm per batch matrix), or None. */
static PyObject *matrix_products(PyObject *const *args, Py_ssize_t nargs, int nd, const char *name)
{
    if (!two_args(nargs, name))
        return NULL;
    operand a, b;
    PyObject *answer = NULL;
    int r = read_two(args, nd, nd, 2, &a, &b);
    if (r < 0)
        goto end;
    Py_ssize_t batch = nd == 3 ? a.shape[0] : 1;
    if (r == 0 || a.kind != b.kind || (nd == 3 && b.shape[0] != batch) || a.shape[nd - 1] != b.shape[nd - 2]
        || (double)batch * a.shape[nd - 2] * a.shape[nd - 1] * b.shape[nd - 1] > (double)k_limit) {
        answer = Py_None;
        Py_INCREF(answer);
        goto end;
    }
    /* (element strides as (batch, row, column): a 2-D operand's batch stride is never used) */
    Py_ssize_t sa[3] = {0, a.strides[nd - 2], a.strides[nd - 1]}, sb[3] = {0, b.strides[nd - 2], b.strides[nd - 1]};
    PyObject *dims[3];
    if (nd == 3) {
        sa[0] = a.strides[0];
        sb[0] = b.strides[0];
        dims[0] = PyTuple_GET_ITEM(a.shape_tuple, 0);
    }
    dims[nd - 2] = PyTuple_GET_ITEM(a.shape_tuple, nd - 2);
    dims[nd - 1] = PyTuple_GET_ITEM(b.shape_tuple, nd - 1);
    answer = products(&a, &b, batch, nd, sa, sb, dims);
end:
    done(&a);
    done(&b);
    return answer;
}

static PyObject *py_mm(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return matrix_products(args, nargs, 2, "mm");
}

static PyObject *py_bmm(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return matrix_products(args, nargs, 3, "bmm");
}

/* linear(x, w): F.linear's product without its bias, x (n, k) @ w (m, k).T, for x and w row-major
 * (element strides exactly (k, 1)), n, k, m all at least 2, one float dtype: the gemm np.matmul(x,
 * w.T) makes (layers._linear_rowmajor's call: x NoTrans with ld k, w's transposed view Trans with
 * ld k) into a fresh row-major (n, m) tensor. None where NumPy would make another call (a size of 1:
 * gemv, dot or its own loop; x and w one matrix: syrk) or the call is not for here. */
static PyObject *py_linear(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (!two_args(nargs, "linear"))
        return NULL;
    operand a, b;
    PyObject *answer = NULL;
    int r = read_two(args, 2, 2, 2, &a, &b);
    if (r < 0)
        goto end;
    if (r == 0 || a.kind != b.kind || a.shape[1] != b.shape[1] || a.strides[1] != 1 || a.strides[0] != a.shape[1]
        || b.strides[1] != 1 || b.strides[0] != b.shape[1]
        || (double)a.shape[0] * a.shape[1] * b.shape[0] > (double)k_limit) {
        answer = Py_None;
        Py_INCREF(answer);
        goto end;
    }
    /* (w.T as the second operand: (k, m), element strides (1, k); its buffer stays b's, released once) */
    operand bt = b;
    bt.shape[0] = b.shape[1];
    bt.shape[1] = b.shape[0];
    Py_ssize_t sa[3] = {0, a.strides[0], a.strides[1]}, sb[3] = {0, b.strides[1], b.strides[0]};
    PyObject *dims[2] = {PyTuple_GET_ITEM(a.shape_tuple, 0), PyTuple_GET_ITEM(b.shape_tuple, 0)};
    answer = products(&a, &bt, 1, 2, sa, sb, dims);
end:
    done(&a);
    done(&b);
    return answer;
}

/* mv(a, v): a row-major (m, n) @ a contiguous (n,), np.matmul's gemv, or None. */
static PyObject *py_mv(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (!two_args(nargs, "mv"))
        return NULL;
    operand a, v;
    PyObject *answer = NULL;
    int r = read_two(args, 2, 1, 2, &a, &v);
    if (r < 0)
        goto end;
    Py_ssize_t m = a.shape[0], n = a.shape[1];
    if (r == 0 || a.kind != v.kind || v.shape[0] != n || a.strides[1] != 1 || a.strides[0] != n
        || v.strides[0] != 1 || (double)m * n > (double)k_limit) {
        answer = Py_None;
        Py_INCREF(answer);
        goto end;
    }
    int kind = a.kind;
    Py_ssize_t size = kind ? 8 : 4;
    Py_buffer out;
    PyObject *flat = fresh(m, kind, &out);
    if (flat == NULL) {
        if (!PyErr_Occurred()) {
            answer = Py_None;
            Py_INCREF(answer);
        }
        goto end;
    }
    const char *x = (const char *)a.buf.buf + a.offset * size, *y = (const char *)v.buf.buf + v.offset * size;
    if (kind)
        k_dgemv(COL_MAJOR, TRANS, n, m, 1., (const double *)x, n, (const double *)y, 1, 0., (double *)out.buf, 1);
    else
        k_sgemv(COL_MAJOR, TRANS, n, m, 1.f, (const float *)x, n, (const float *)y, 1, 0.f, (float *)out.buf, 1);
    PyBuffer_Release(&out);
    PyObject *dims[1] = {PyTuple_GET_ITEM(a.shape_tuple, 0)};
    answer = result(flat, kind, dims, 1);
    Py_DECREF(flat);
end:
    done(&a);
    done(&v);
    return answer;
}

/* bmm_small(a, b): PyTorch's small baddbmm loop (below 400 multiply-adds a matrix) of row-major
 * (B, n, k) and (B, k, p) float32/float64 tensors, no size 0, as a fresh row-major tensor: the
 * loop of _specialkernel.bmm_loop (which fused._kernel_bmm calls), step for step (one macro,
 * _torch_bmm_loop.h).
 * None where an operand holds a NaN: which of two NaNs an add returns is the compiler's operand
 * order, which this build need not share with bmm_loop's (with no NaN operand every NaN the loop
 * makes is the one default NaN), and wherever the operands are not for here. */
#define SMALL_LOOP(T)                                                                          \
    {                                                                                          \
        const T *x = (const T *)a.buf.buf + a.offset, *y = (const T *)b.buf.buf + b.offset;    \
        T *z = (T *)out.buf;                                                                   \
        int nan = 0;                                                                           \
        for (Py_ssize_t i = 0; i < batch * n * k; i++)                                         \
            nan |= x[i] != x[i];                                                               \
        for (Py_ssize_t i = 0; i < batch * k * p; i++)                                         \
            nan |= y[i] != y[i];                                                               \
        if (nan)                                                                               \
            goto skip;                                                                         \
        TORCH_BMM_LOOP(T, x, y, z, batch, n, k, p)                                             \
    }

static PyObject *py_bmm_small(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (!two_args(nargs, "bmm_small"))
        return NULL;
    operand a, b;
    PyObject *answer = NULL;
    int r = read_two(args, 3, 3, 1, &a, &b);
    if (r < 0)
        goto end;
    Py_ssize_t batch = a.shape[0], n = a.shape[1], k = a.shape[2], p = r ? b.shape[2] : 0;
    /* (row-major strides exactly, as contiguous_strides gives them: fused._rowmajor's test) */
    if (r == 0 || a.kind != b.kind || b.shape[0] != batch || b.shape[1] != k || n * k * p >= 400
        || a.strides[2] != 1 || a.strides[1] != k || a.strides[0] != n * k
        || b.strides[2] != 1 || b.strides[1] != p || b.strides[0] != k * p) {
        answer = Py_None;
        Py_INCREF(answer);
        goto end;
    }
    int kind = a.kind;
    Py_buffer out;
    PyObject *flat = fresh(batch * n * p, kind, &out);
    if (flat == NULL) {
        if (!PyErr_Occurred()) {
            answer = Py_None;
            Py_INCREF(answer);
        }
        goto end;
    }
    if (kind)
        SMALL_LOOP(double)
    else
        SMALL_LOOP(float)
    PyBuffer_Release(&out);
    PyObject *dims[3] = {PyTuple_GET_ITEM(a.shape_tuple, 0), PyTuple_GET_ITEM(a.shape_tuple, 1),
                         PyTuple_GET_ITEM(b.shape_tuple, 2)};
    answer = result(flat, kind, dims, 3);
    Py_DECREF(flat);
    goto end;
skip:
    PyBuffer_Release(&out);
    Py_DECREF(flat);
    answer = Py_None;
    Py_INCREF(answer);
end:
    done(&a);
    done(&b);
    return answer;
}

/* trace(x): the trace of a float32/float64 matrix with a diagonal of at least 1 element, as
 * sums._trace_in_python (and the cumsum path past its 64) and the cast after compute it:
 * PyTorch's trace_cpu, sum = d0, then
 * sum += d_i in order, then + 0.0, in double (float32 read exactly), rounded once to the dtype,
 * as a fresh 0-d tensor. None where the sum is NaN (which NaN operand an add returns is the
 * compiler's choice: the NumPy path's), or x is not for here. */
static PyObject *py_trace(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 1 || k_tensor == NULL) {
        PyErr_SetString(PyExc_TypeError, "trace(x) takes 1 argument, after setup");
        return NULL;
    }
    operand a;
    PyObject *answer = Py_None;
    int r = read_operand_min(args[0], 2, &a, 1);
    if (r < 0)
        return NULL;
    Py_ssize_t n = r ? (a.shape[0] < a.shape[1] ? a.shape[0] : a.shape[1]) : 0;
    Py_ssize_t step = r ? a.strides[0] + a.strides[1] : 0;
    if (r == 0 || step <= 0) {
        done(&a);
        Py_RETURN_NONE;
    }
    double total;
    if (a.kind) {
        const double *x = (const double *)a.buf.buf + a.offset;
        total = x[0];
        for (Py_ssize_t i = 1; i < n; i++)
            total = total + x[i * step];
    } else {
        const float *x = (const float *)a.buf.buf + a.offset;
        total = x[0];
        for (Py_ssize_t i = 1; i < n; i++)
            total = total + (double)x[i * step];
    }
    total = total + 0.0;
    if (total == total) {
        Py_buffer out;
        PyObject *flat = fresh(1, a.kind, &out);
        if (flat == NULL) {
            done(&a);
            if (PyErr_Occurred())
                return NULL;
            Py_RETURN_NONE;
        }
        if (a.kind)
            *(double *)out.buf = total;
        else
            *(float *)out.buf = (float)total;
        PyBuffer_Release(&out);
        answer = result(flat, a.kind, NULL, 0);
        Py_DECREF(flat);
        done(&a);
        return answer;
    }
    done(&a);
    Py_RETURN_NONE;
}

/* dot(a, b): two contiguous 1-D float32/float64 tensors (exactly of the Tensor class) of one
 * dtype and length (at least 1) as NumPy's FLOAT_dot / DOUBLE_dot sum them (np.dot of two
 * vectors, arraytypes.c.src): double sum = 0; sum += cblas_?dot(n, x, 1, y, 1) (one chunk: n is
 * below NPY_CBLAS_CHUNK); the result the sum cast to the dtype; a fresh 0-d tensor, or None. */
static PyObject *py_dot(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (!two_args(nargs, "dot"))
        return NULL;
    if (Py_TYPE(args[0]) != k_tensor || Py_TYPE(args[1]) != k_tensor)
        Py_RETURN_NONE; /* (a subclass: the caller's own path, which may record it) */
    operand a, b;
    PyObject *answer = Py_None;
    int r = read_two(args, 1, 1, 1, &a, &b);
    if (r < 0) {
        answer = NULL;
        goto end;
    }
    if (r == 0 || a.kind != b.kind || a.shape[0] != b.shape[0] || a.strides[0] != 1 || b.strides[0] != 1
        || a.shape[0] > k_limit)
        goto end;
    Py_buffer out;
    PyObject *flat = fresh(1, a.kind, &out);
    if (flat == NULL) {
        if (PyErr_Occurred())
            answer = NULL;
        goto end;
    }
    double sum = 0.;
    if (a.kind) {
        sum += k_ddot(a.shape[0], (const double *)a.buf.buf + a.offset, 1, (const double *)b.buf.buf + b.offset, 1);
        *(double *)out.buf = sum;
    } else {
        sum += k_sdot(a.shape[0], (const float *)a.buf.buf + a.offset, 1, (const float *)b.buf.buf + b.offset, 1);
        *(float *)out.buf = (float)sum;
    }
    PyBuffer_Release(&out);
    answer = result(flat, a.kind, NULL, 0); /* (a new reference, or NULL) */
    Py_DECREF(flat);
    done(&a);
    done(&b);
    return answer;
end:
    Py_XINCREF(answer);
    done(&a);
    done(&b);
    return answer;
}

/* A scale factor (beta or alpha) as the float the product's dtype holds, as
 * np.asarray(value, dtype) makes it: a float (rounded once to float32), or an int of at most 2**24
 * in magnitude (exact in both). 0: anything else (the caller's Python path). */
static int scalar(PyObject *v, int kind, double *d, float *f)
{
    if (PyFloat_CheckExact(v)) {
        double x = PyFloat_AS_DOUBLE(v);
        if (!(x >= -9.2233720368547758e18 && x <= 9.2233720368547758e18)) /* (NaN, inf, huge: _PLAIN) */
            return 0;
        *d = x;
        *f = (float)x;
        return 1;
    }
    if (PyLong_CheckExact(v)) {
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow || x < -(1LL << 24) || x > (1LL << 24))
            return 0;
        *d = (double)x;
        *f = (float)x;
        return 1;
    }
    return 0;
}

/* The loop of scale_add for one dtype, specialised by the compiler for each (sp, mq): sp, whether
 * p is scaled by A (alpha != 1); mq, 0 no input term (beta 0), 1 the input itself (beta 1), 2 the
 * input times B. First, whether some element's two terms are both NaN: which NaN NumPy's add then
 * returns depends on the operand order its compiler chose for that loop (measured: the second's,
 * for float64), so such a call is left to NumPy: -1, nothing written. With one NaN term the add
 * returns it, whatever the order. Else the results are written; answers whether one is zero. */
#define DEFINE_SCALE_ADD(NAME, T)                                                              \
    static inline int NAME(T *restrict p, const T *restrict q, Py_ssize_t n, T A, T B,        \
                           const int sp, const int mq)                                         \
    {                                                                                          \
        if (mq) {                                                                              \
            int bad = 0;                                                                       \
            for (Py_ssize_t i = 0; i < n; i++) {                                               \
                T x = sp ? p[i] * A : p[i];                                                    \
                T y = mq == 2 ? q[i] * B : q[i];                                               \
                bad |= (x != x) & (y != y);                                                    \
            }                                                                                  \
            if (bad)                                                                           \
                return -1;                                                                     \
        }                                                                                      \
        int zero = 0;                                                                          \
        for (Py_ssize_t i = 0; i < n; i++) {                                                   \
            T x = sp ? p[i] * A : p[i];                                                        \
            if (mq)                                                                            \
                x = x + (mq == 2 ? q[i] * B : q[i]);                                           \
            p[i] = x;                                                                          \
            zero |= x == 0;                                                                    \
        }                                                                                      \
        return zero;                                                                           \
    }
DEFINE_SCALE_ADD(scale_add_f, float)
DEFINE_SCALE_ADD(scale_add_d, double)

/* scale_add's loop for a 2-D (m, n) result over an input of any non-negative strides (s0, s1), a
 * transposed one's included: the same operations on the same pairs as DEFINE_SCALE_ADD (so the same
 * bits; the order of the elements changes no result), a SCALE_ADD_TILE-square tile at a time, the
 * input's tile first gathered into a row-major buffer in 8 x 8 blocks (a transposed input's lines
 * read once each, eight at a time: reading them along the result's rows, 4 KB apart, evicts each
 * line from its L1 set before its next element is read; that walk measured 6.9 ms on a transposed
 * (1024, 1024) float32 input, NumPy's mixed-order add ~5 ms, this ~1 ms). The NaN pass first,
 * as there (-1, nothing written, where some element's two terms are both NaN), but over the
 * input's tiles only where some product term is NaN; then the writes. */
#define SCALE_ADD_TILE 64
#define DEFINE_SCALE_ADD_2D(NAME, T)                                                           \
    static inline void NAME##_gather(T *restrict buf, const T *restrict q, Py_ssize_t ie,      \
                                     Py_ssize_t je, Py_ssize_t s0, Py_ssize_t s1)              \
    {                                                                                          \
        if (s1 <= s0) { /* (rows of the input along its memory: row by row) */                 \
            for (Py_ssize_t i = 0; i < ie; i++)                                                \
                for (Py_ssize_t j = 0; j < je; j++)                                            \
                    buf[i * SCALE_ADD_TILE + j] = q[i * s0 + j * s1];                          \
            return;                                                                            \
        }                                                                                      \
        /* (columns along its memory: column by column, each read down the tile's rows) */     \
        for (Py_ssize_t j = 0; j < je; j++)                                                    \
            for (Py_ssize_t i = 0; i < ie; i++)                                                \
                buf[i * SCALE_ADD_TILE + j] = q[i * s0 + j * s1];                              \
    }                                                                                          \
    static inline int NAME(T *restrict p, const T *restrict q, Py_ssize_t m, Py_ssize_t n,    \
                           Py_ssize_t s0, Py_ssize_t s1, T A, T B, const int sp, const int mq) \
    {                                                                                          \
        T buf[SCALE_ADD_TILE * SCALE_ADD_TILE];                                                \
        int bad = 0, zero = 0, nan = 0;                                                        \
        if (mq) /* (no NaN product term, no pair of NaNs: the paired pass is skipped) */        \
            for (Py_ssize_t i = 0; i < m * n; i++) {                                           \
                T x = sp ? p[i] * A : p[i];                                                    \
                nan |= x != x;                                                                 \
            }                                                                                  \
        for (int pass = nan ? 0 : 1; pass < 2 && !bad; pass++)                                 \
            for (Py_ssize_t i0 = 0; i0 < m; i0 += SCALE_ADD_TILE)                              \
                for (Py_ssize_t j0 = 0; j0 < n; j0 += SCALE_ADD_TILE) {                        \
                    Py_ssize_t ie = i0 + SCALE_ADD_TILE < m ? SCALE_ADD_TILE : m - i0;         \
                    Py_ssize_t je = j0 + SCALE_ADD_TILE < n ? SCALE_ADD_TILE : n - j0;         \
                    if (mq)                                                                    \
                        NAME##_gather(buf, q + i0 * s0 + j0 * s1, ie, je, s0, s1);             \
                    for (Py_ssize_t i = 0; i < ie; i++) {                                      \
                        T *restrict pr = p + (i0 + i) * n + j0;                                \
                        const T *qr = buf + i * SCALE_ADD_TILE;                                \
                        for (Py_ssize_t j = 0; j < je; j++) {                                  \
                            T x = sp ? pr[j] * A : pr[j];                                      \
                            if (pass == 0) {                                                   \
                                T y = mq == 2 ? qr[j] * B : qr[j];                             \
                                bad |= (x != x) & (y != y);                                    \
                                continue;                                                      \
                            }                                                                  \
                            if (mq)                                                            \
                                x = x + (mq == 2 ? qr[j] * B : qr[j]);                         \
                            pr[j] = x;                                                         \
                            zero |= x == 0;                                                    \
                        }                                                                      \
                    }                                                                          \
                }                                                                              \
        return bad ? -1 : zero;                                                                \
    }
DEFINE_SCALE_ADD_2D(scale_add_2d_f, float)
DEFINE_SCALE_ADD_2D(scale_add_2d_d, double)

#define SCALE_ADD_2D_CASES(NAME, P, Q, A, B)                                                   \
    (sp ? (mq == 0 ? NAME(P, Q, m2, n2, s0, s1, A, B, 1, 0) : mq == 1 ? NAME(P, Q, m2, n2, s0, s1, A, B, 1, 1) \
                                                 : NAME(P, Q, m2, n2, s0, s1, A, B, 1, 2))       \
        : (mq == 0 ? NAME(P, Q, m2, n2, s0, s1, A, B, 0, 0) : mq == 1 ? NAME(P, Q, m2, n2, s0, s1, A, B, 0, 1) \
                                                 : NAME(P, Q, m2, n2, s0, s1, A, B, 0, 2)))

#define SCALE_ADD_CASES(NAME, P, Q, A, B)                                                      \
    (sp ? (mq == 0 ? NAME(P, Q, n, A, B, 1, 0) : mq == 1 ? NAME(P, Q, n, A, B, 1, 1)           \
                                                 : NAME(P, Q, n, A, B, 1, 2))                  \
        : (mq == 0 ? NAME(P, Q, n, A, B, 0, 0) : mq == 1 ? NAME(P, Q, n, A, B, 0, 1)           \
                                                 : NAME(P, Q, n, A, B, 0, 2)))

/* scale_add(result, input, beta, alpha): the fused ops' last step on a fresh product tensor
 * `result` (a float32/float64 entry's answer above, its elements alone in its storage), in place,
 * as fused._plus_input does it with NumPy: p * alpha (unless alpha is 1), then + input * beta
 * (+ input for beta 1, nothing for beta 0), each rounded once in the dtype, for an `input` of the
 * result's dtype and shape, row-major. Answers None where it does not apply (nothing written:
 * also where both terms of an element are NaN, see DEFINE_SCALE_ADD),
 * else True where some element of the result is zero (its sign may need a look), False where none. */
static PyObject *py_scale_add(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "scale_add(result, input, beta, alpha) takes 4 arguments");
        return NULL;
    }
    if (k_tensor == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "scale_add: setup was not called");
        return NULL;
    }
    PyObject *res = args[0], *inp = args[1];
    if (Py_TYPE(res) != k_tensor || Py_TYPE(inp) != k_tensor)
        Py_RETURN_NONE;
    PyObject *rl = SLOT(res, off_layout), *il = SLOT(inp, off_layout);
    PyObject *rd = SLOT(res, off_dtype), *idt = SLOT(inp, off_dtype);
    if (rl == NULL || il == NULL || rd == NULL || rd != idt || (rd != k_dtype[0] && rd != k_dtype[1]))
        Py_RETURN_NONE;
    int kind = rd == k_dtype[1];
    double bd, ad;
    float bf, af;
    if (!scalar(args[2], kind, &bd, &bf) || !scalar(args[3], kind, &ad, &af))
        Py_RETURN_NONE;
    PyObject *rshape = SLOT(rl, off_shape), *ishape = SLOT(il, off_shape);
    if (rshape == NULL || ishape == NULL || !PyTuple_CheckExact(rshape))
        Py_RETURN_NONE;
    int same = PyObject_RichCompareBool(rshape, ishape, Py_EQ);
    if (same <= 0) {
        if (same < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    PyObject *rst = SLOT(rl, off_strides), *ist = SLOT(il, off_strides), *ioff = SLOT(il, off_offset);
    if (rst == NULL || ist == NULL || ioff == NULL || !PyLong_CheckExact(ioff))
        Py_RETURN_NONE;
    same = PyObject_RichCompareBool(rst, ist, Py_EQ); /* (the result is row-major: so is input) */
    if (same < 0)
        return NULL;
    /* (else a 2-D input of other non-negative strides, a transposed one's: the tiled loop) */
    Py_ssize_t m2 = 0, n2 = 0, s0 = 0, s1 = 0;
    if (!same) {
        if (PyTuple_GET_SIZE(rshape) != 2 || !PyTuple_CheckExact(ist) || PyTuple_GET_SIZE(ist) != 2)
            Py_RETURN_NONE;
        m2 = PyLong_AsSsize_t(PyTuple_GET_ITEM(rshape, 0));
        n2 = PyLong_AsSsize_t(PyTuple_GET_ITEM(rshape, 1));
        s0 = PyLong_AsSsize_t(PyTuple_GET_ITEM(ist, 0));
        s1 = PyLong_AsSsize_t(PyTuple_GET_ITEM(ist, 1));
        if (PyErr_Occurred()) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        if (m2 <= 0 || n2 <= 0 || s0 < 0 || s1 < 0 || s0 > PY_SSIZE_T_MAX / 2 / m2 || s1 > PY_SSIZE_T_MAX / 2 / n2)
            Py_RETURN_NONE;
    }
    Py_ssize_t n = 1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(rshape); i++) {
        Py_ssize_t d = PyLong_AsSsize_t(PyTuple_GET_ITEM(rshape, i));
        if (d < 0) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        n *= d;
    }
    Py_ssize_t off = PyLong_AsSsize_t(ioff);
    if (off < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    PyObject *ra = SLOT(SLOT(res, off_storage), off_array), *ia = SLOT(SLOT(inp, off_storage), off_array);
    Py_buffer rb, ib;
    if (ra == NULL || ia == NULL)
        Py_RETURN_NONE;
    if (PyObject_GetBuffer(ra, &rb, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (PyObject_GetBuffer(ia, &ib, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        PyBuffer_Release(&rb);
        Py_RETURN_NONE;
    }
    Py_ssize_t size = kind ? 8 : 4;
    char code = kind ? 'd' : 'f';
    PyObject *answer = Py_None;
    if (rb.itemsize != size || ib.itemsize != size || !rb.format || !ib.format || rb.format[0] != code
        || rb.format[1] || ib.format[0] != code || ib.format[1] || rb.len != n * size
        || (same ? ib.len / size < off + n
                 : ib.len / size - off <= (m2 - 1) * s0 + (n2 - 1) * s1 || (uintptr_t)ib.buf % size))
        goto end;
    /* (memory shared with the input: not here; a fresh result never shares, this is a check) */
    if ((char *)rb.buf < (char *)ib.buf + ib.len && (char *)ib.buf < (char *)rb.buf + rb.len)
        goto end;
    /* (the tests on the Python values, as _plus_input's: a float32 factor may round to 0 or 1) */
    int sp = ad != 1., mq = bd == 0. ? 0 : bd == 1. ? 1 : 2, zero;
    if (!same && kind)
        zero = SCALE_ADD_2D_CASES(scale_add_2d_d, (double *)rb.buf, (const double *)ib.buf + off, ad, bd);
    else if (!same)
        zero = SCALE_ADD_2D_CASES(scale_add_2d_f, (float *)rb.buf, (const float *)ib.buf + off, af, bf);
    else if (kind)
        zero = SCALE_ADD_CASES(scale_add_d, (double *)rb.buf, (const double *)ib.buf + off, ad, bd);
    else
        zero = SCALE_ADD_CASES(scale_add_f, (float *)rb.buf, (const float *)ib.buf + off, af, bf);
    if (zero < 0)
        goto end;
    answer = zero ? Py_True : Py_False;
end:
    PyBuffer_Release(&rb);
    PyBuffer_Release(&ib);
    Py_INCREF(answer);
    return answer;
}

/* addr(input, x, y, beta, alpha): fused.addr's fast path in one call, for float32/float64 tensors of
 * one dtype, x (m) and y (n) contiguous, input row-major (m, n), m and n at least 2: out[i, j] =
 * x[i] * y[j], times alpha unless alpha is 1, plus input[i, j] (times beta unless 1) unless beta
 * is 0 or rounds to 0 in the dtype (fused._addr_beta), each operation rounded in the dtype: the
 * operations of _specialkernel's outer_scale_add, which _plus_input calls, in the same order, as
 * a fresh row-major tensor. None where one operation meets two NaN operands (which one survives
 * is the loop's choice: NumPy's path then decides; with at most one NaN operand every order
 * gives that NaN), a factor is not for scalar(), or anything else is not for here. */
/* One row of the result for one (alpha, beta) case, its constants SP (alpha is not 1) and MQ (0: no
 * input term, 1: the input, 2: the input times beta) known to the compiler, so the vector loop has
 * no select: whether any result is NaN (the only test the loop makes). Clones for AVX-512 and AVX2
 * as outer's rows: each element is its IEEE product (times alpha) plus its input term (times beta),
 * never contracted (-ffp-contract=off), so every width gives the same bits. */
#define DEFINE_ADDR_ROW(NAME, T, SP, MQ)                                                        \
    __attribute__((target_clones("avx512f", "avx2", "default"))) static int NAME(             \
        const T *restrict y, const T *restrict b, T *restrict o, Py_ssize_t n, T xi, T A, T B)  \
    {                                                                                           \
        int nan = 0;                                                                            \
        for (Py_ssize_t j = 0; j < n; j++) {                                                    \
            T p = xi * y[j];                                                                    \
            if (SP)                                                                             \
                p = p * A;                                                                      \
            T r = MQ == 0 ? p : MQ == 1 ? p + b[j] : p + b[j] * B;                              \
            nan |= r != r;                                                                      \
            o[j] = r;                                                                           \
        }                                                                                       \
        return nan;                                                                             \
    }
#define DEFINE_ADDR_ROWS_OF(T, S)                                                               \
    DEFINE_ADDR_ROW(addr_row_##S##00, T, 0, 0)                                                  \
    DEFINE_ADDR_ROW(addr_row_##S##01, T, 0, 1)                                                  \
    DEFINE_ADDR_ROW(addr_row_##S##02, T, 0, 2)                                                  \
    DEFINE_ADDR_ROW(addr_row_##S##10, T, 1, 0)                                                  \
    DEFINE_ADDR_ROW(addr_row_##S##11, T, 1, 1)                                                  \
    DEFINE_ADDR_ROW(addr_row_##S##12, T, 1, 2)                                                  \
    typedef int (*addr_row_##S##_fn)(const T *restrict, const T *restrict, T *restrict, Py_ssize_t, T, T, T); \
    static const addr_row_##S##_fn addr_row_##S[2][3] = {                                      \
        {addr_row_##S##00, addr_row_##S##01, addr_row_##S##02},                                 \
        {addr_row_##S##10, addr_row_##S##11, addr_row_##S##12}};
DEFINE_ADDR_ROWS_OF(float, f)
DEFINE_ADDR_ROWS_OF(double, d)

/* The rows, each by its case's row loop; a row holding a NaN is read again for the exact two-NaN
 * test (two NaN operands of one operation make its result NaN, so it can hold only there): 1 where
 * it holds (the caller refuses), else 0. 1024 x 1024 float32: 230 -> ~100 us, from four tests and
 * two selects an element to one test. */
#define DEFINE_ADDR_ROWS(NAME, T, S)                                                           \
    static int NAME(const T *restrict xv, const T *restrict yv, const T *restrict bv,          \
                    T *restrict o, Py_ssize_t m, Py_ssize_t n, T A, T B, const int sp,         \
                    const int mq)                                                              \
    {                                                                                          \
        const addr_row_##S##_fn row = addr_row_##S[sp][mq];                                    \
        for (Py_ssize_t i = 0; i < m; i++) {                                                   \
            T xi = xv[i];                                                                      \
            const T *b = bv + i * n;                                                           \
            if (!row(yv, b, o + i * n, n, xi, A, B))                                           \
                continue;                                                                      \
            for (Py_ssize_t j = 0; j < n; j++) {                                               \
                T p = xi * yv[j];                                                              \
                p = sp ? p * A : p;                                                            \
                T t = mq ? (mq == 2 ? b[j] * B : b[j]) : (T)0;                                 \
                if (((xi != xi) & (yv[j] != yv[j])) | ((p != p) & (t != t)))                   \
                    return 1;                                                                  \
            }                                                                                  \
        }                                                                                      \
        return 0;                                                                              \
    }
DEFINE_ADDR_ROWS(addr_rows_f, float, f)
DEFINE_ADDR_ROWS(addr_rows_d, double, d)

#define ADDR_CASES(NAME, X, Y, BV, O, A, B) NAME(X, Y, BV, O, m, n, A, B, sp, mq)

/* addr with an input term as PyTorch's loops compute it (measured on x86-64 PyTorch 2.13, AVX2):
 * its vector blocks fma(alpha * x, y, beta * input), its scalar tail (each piece of a row's last
 * len % step elements, step 16 float32 / 8 float64) fma(beta, input, (alpha * x) * y); each step
 * rounded in the dtype, each fma once (C99's fma: exact; the haswell clone's instruction gives the
 * same bits). One piece of a row: [0, vend) vector form, [vend, n) scalar form; 1 where a result
 * is NaN (the caller refuses: which NaN survives is left to the Python path, fused.fma's rule). */
#define DEFINE_ADDR_FMA_PIECE(NAME, ATTR, T, FMA)                                               \
    ATTR static int NAME(const T *restrict y, const T *restrict b, T *restrict o, Py_ssize_t n, \
                         Py_ssize_t vend, T pa, T B)                                            \
    {                                                                                           \
        int nan = 0;                                                                            \
        Py_ssize_t j = 0;                                                                       \
        for (; j < vend; j++) {                                                                 \
            T r = FMA(pa, y[j], B * b[j]);                                                      \
            nan |= r != r;                                                                      \
            o[j] = r;                                                                           \
        }                                                                                       \
        for (; j < n; j++) {                                                                    \
            T r = FMA(B, b[j], pa * y[j]);                                                      \
            nan |= r != r;                                                                      \
            o[j] = r;                                                                           \
        }                                                                                       \
        return nan;                                                                             \
    }
/* (two builds each: with the FMA instruction, taken where the CPU has it (target_clones'
 * "arch=haswell" dispatches on the CPU's model, not its features: later CPUs took the default), and
 * without it, where fma() is libm's call; both exact, so the same bits) */
#define ADDR_FMA_ISA __attribute__((target("avx2,fma")))
DEFINE_ADDR_FMA_PIECE(addr_fma_piece_f_isa, ADDR_FMA_ISA, float, __builtin_fmaf)
DEFINE_ADDR_FMA_PIECE(addr_fma_piece_d_isa, ADDR_FMA_ISA, double, __builtin_fma)
DEFINE_ADDR_FMA_PIECE(addr_fma_piece_f_lib, , float, fmaf)
DEFINE_ADDR_FMA_PIECE(addr_fma_piece_d_lib, , double, fma)
static int addr_has_fma = -1; /* (-1: not asked yet) */
static int addr_fma_piece_f(const float *restrict y, const float *restrict b, float *restrict o, Py_ssize_t n,
                            Py_ssize_t vend, float pa, float B)
{
    return addr_has_fma ? addr_fma_piece_f_isa(y, b, o, n, vend, pa, B) : addr_fma_piece_f_lib(y, b, o, n, vend, pa, B);
}
static int addr_fma_piece_d(const double *restrict y, const double *restrict b, double *restrict o, Py_ssize_t n,
                            Py_ssize_t vend, double pa, double B)
{
    return addr_has_fma ? addr_fma_piece_d_isa(y, b, o, n, vend, pa, B) : addr_fma_piece_d_lib(y, b, o, n, vend, pa, B);
}

/* The rows (m of n, row-major) cut into PyTorch's pieces: at each row's start and, with chunk > 0
 * (at::parallel_for's chunk length over the flat range), at each multiple of chunk; 1 on a NaN. */
#define DEFINE_ADDR_FMA_ROWS(NAME, T, PIECE, STEP)                                             \
    static int NAME(const T *restrict xv, const T *restrict yv, const T *restrict bv,          \
                    T *restrict o, Py_ssize_t m, Py_ssize_t n, T A, T B, Py_ssize_t chunk)     \
    {                                                                                          \
        for (Py_ssize_t i = 0; i < m; i++) {                                                   \
            T pa = A * xv[i];                                                                  \
            Py_ssize_t k0 = i * n, j = 0;                                                      \
            while (j < n) {                                                                    \
                Py_ssize_t end = n;                                                            \
                if (chunk > 0) {                                                               \
                    Py_ssize_t cut = ((k0 + j) / chunk + 1) * chunk - k0;                      \
                    end = cut < n ? cut : n;                                                   \
                }                                                                              \
                Py_ssize_t len = end - j;                                                      \
                if (PIECE(yv + j, bv + k0 + j, o + k0 + j, len, len - len % (STEP), pa, B))    \
                    return 1;                                                                  \
                j = end;                                                                       \
            }                                                                                  \
        }                                                                                      \
        return 0;                                                                              \
    }
DEFINE_ADDR_FMA_ROWS(addr_fma_rows_f, float, addr_fma_piece_f, 16)
DEFINE_ADDR_FMA_ROWS(addr_fma_rows_d, double, addr_fma_piece_d, 8)

static PyObject *py_addr(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if ((nargs != 5 && nargs != 6) || k_tensor == NULL) {
        PyErr_SetString(PyExc_TypeError, "addr(input, x, y, beta, alpha[, chunk]) takes 5 or 6 arguments, after setup");
        return NULL;
    }
    operand x, y, in;
    y.held = in.held = 0;
    PyObject *answer = Py_None;
    int r = read_operand_min(args[1], 1, &x, 2);
    if (r == 1)
        r = read_operand_min(args[2], 1, &y, 2);
    if (r == 1)
        r = read_operand_min(args[0], 2, &in, 2);
    double ad, bd;
    float af, bf;
    if (r < 0) {
        answer = NULL;
        goto end;
    }
    if (r == 0 || Py_TYPE(args[0]) != k_tensor || x.kind != y.kind || in.kind != x.kind
        || !scalar(args[3], x.kind, &bd, &bf) || !scalar(args[4], x.kind, &ad, &af))
        goto end;
    Py_ssize_t m = x.shape[0], n = y.shape[0];
    if (x.strides[0] != 1 || y.strides[0] != 1 || in.shape[0] != m || in.shape[1] != n || in.strides[0] != n
        || in.strides[1] != 1)
        goto end;
    /* (beta 0, or a float32 beta that rounds to 0: no input term, its NaN and inf ignored) */
    int mq = bd == 0. || (!x.kind && bf == 0.f) ? 0 : bd == 1. ? 1 : 2, both = 0;
    Py_buffer out;
    PyObject *flat = fresh(m * n, x.kind, &out);
    if (flat == NULL) {
        if (PyErr_Occurred())
            answer = NULL;
        goto end;
    }
    int sp = ad != 1.;
    if (addr_has_fma < 0) {
        __builtin_cpu_init();
        addr_has_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    /* (no chunk given: 0 below PyTorch's grain size, else unknown (-1): the caller asks again with
     * at::parallel_for's chunk length, a Python question, kept off the small calls) */
    Py_ssize_t chunk = nargs == 6 ? PyLong_AsSsize_t(args[5]) : m * n < 32768 ? 0 : -1;
    if (chunk < 0 && PyErr_Occurred())
        PyErr_Clear();
    if (chunk < 0 && mq)
        both = 1;
    else if (mq && x.kind)
        both = addr_fma_rows_d((const double *)x.buf.buf + x.offset, (const double *)y.buf.buf + y.offset,
                               (const double *)in.buf.buf + in.offset, (double *)out.buf, m, n, ad, bd, chunk);
    else if (mq)
        both = addr_fma_rows_f((const float *)x.buf.buf + x.offset, (const float *)y.buf.buf + y.offset,
                               (const float *)in.buf.buf + in.offset, (float *)out.buf, m, n, af, bf, chunk);
    else if (x.kind)
        both = ADDR_CASES(addr_rows_d, (const double *)x.buf.buf + x.offset, (const double *)y.buf.buf + y.offset,
                          (const double *)in.buf.buf + in.offset, (double *)out.buf, ad, bd);
    else
        both = ADDR_CASES(addr_rows_f, (const float *)x.buf.buf + x.offset, (const float *)y.buf.buf + y.offset,
                          (const float *)in.buf.buf + in.offset, (float *)out.buf, af, bf);
    PyBuffer_Release(&out);
    if (both) {
        Py_DECREF(flat);
        goto end;
    }
    PyObject *dims[2] = {PyTuple_GET_ITEM(x.shape_tuple, 0), PyTuple_GET_ITEM(y.shape_tuple, 0)};
    answer = result(flat, x.kind, dims, 2); /* (a new reference, or NULL) */
    Py_DECREF(flat);
    done(&x);
    done(&y);
    done(&in);
    return answer;
end:
    Py_XINCREF(answer); /* (None, or NULL with an error set) */
    done(&x);
    done(&y);
    done(&in);
    return answer;
}

/* The products of outer for one dtype: z[i, j] = x[i] * y[j], one IEEE product each, x's element
 * first (as _specialkernel's kron2, whose clones these are: the same values at any width). */
#define DEFINE_OUTER_ROWS(NAME, T)                                                             \
    __attribute__((target_clones("avx512f", "avx2", "default"))) static void NAME(             \
        const T *restrict x, const T *restrict y, T *restrict z, Py_ssize_t m, Py_ssize_t q)   \
    {                                                                                          \
        for (Py_ssize_t i = 0; i < m; i++) {                                                   \
            T s = x[i];                                                                        \
            T *row = z + i * q;                                                                \
            for (Py_ssize_t j = 0; j < q; j++)                                                 \
                row[j] = s * y[j];                                                             \
        }                                                                                      \
    }
DEFINE_OUTER_ROWS(outer_rows_f, float)
DEFINE_OUTER_ROWS(outer_rows_d, double)

/* Whether one of the n elements at p (float32: kind 0, else float64) is NaN. */
static int any_nan(const char *p, Py_ssize_t n, int kind)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        double v = kind ? ((const double *)p)[i] : (double)((const float *)p)[i];
        if (v != v)
            return 1;
    }
    return 0;
}

/* outer(a, b): matmul._fast_outer's product in one call, for two float32/float64 tensors of one
 * dtype, 1-D, contiguous (stride 1), no size 0, at most `limit` products (larger ones release the
 * GIL in kron2): out[i, j] = a[i] * b[j] as a fresh row-major (m, q) tensor -- kron2's products,
 * so the bits are that path's. None where either holds a NaN (a NaN product's payload could depend
 * on the operand order the compiler picked: NumPy's path decides) or anything else is not for
 * here. (Autograd and the exact class are the caller's checks.) */
static PyObject *py_outer(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (!two_args(nargs, "outer"))
        return NULL;
    operand a, b;
    PyObject *answer = Py_None;
    int r = read_two(args, 1, 1, 1, &a, &b);
    if (r < 0) {
        answer = NULL;
        goto end;
    }
    Py_ssize_t m = r ? a.shape[0] : 0, q = r ? b.shape[0] : 0, size = a.kind ? 8 : 4;
    if (r == 0 || a.kind != b.kind || a.strides[0] != 1 || b.strides[0] != 1 || (double)m * q > (double)k_limit)
        goto end;
    const char *x = (const char *)a.buf.buf + a.offset * size, *y = (const char *)b.buf.buf + b.offset * size;
    if (any_nan(x, m, a.kind) || any_nan(y, q, a.kind))
        goto end;
    Py_buffer out;
    PyObject *flat = fresh(m * q, a.kind, &out);
    if (flat == NULL) {
        if (PyErr_Occurred())
            answer = NULL;
        goto end;
    }
    if (a.kind)
        outer_rows_d((const double *)x, (const double *)y, (double *)out.buf, m, q);
    else
        outer_rows_f((const float *)x, (const float *)y, (float *)out.buf, m, q);
    PyBuffer_Release(&out);
    PyObject *dims[2] = {PyTuple_GET_ITEM(a.shape_tuple, 0), PyTuple_GET_ITEM(b.shape_tuple, 0)};
    answer = result(flat, a.kind, dims, 2); /* (a new reference, or NULL) */
    Py_DECREF(flat);
    done(&a);
    done(&b);
    return answer;
end:
    Py_XINCREF(answer);
    done(&a);
    done(&b);
    return answer;
}

/* The sums of addbmm_sums for one dtype, specialised by the compiler for each (sp, mq) as
 * DEFINE_SCALE_ADD's: o = p[0] * A (unless sp is 0) + q * B (q alone for mq 1, nothing for mq 0),
 * then + p[i] * A for each later batch i, each operation rounded once in T. Answers whether some
 * add met two NaN operands (which NaN NumPy's add returns is its loop's operand order: the caller
 * leaves such a call to NumPy); o is then not to be used. */
#define DEFINE_ADDBMM_SUMS(NAME, T)                                                            \
    static inline int NAME(const T *restrict pr, const T *restrict q, T *restrict o, Py_ssize_t batch, \
                           Py_ssize_t n, T A, T B, const int sp, const int mq)                 \
    {                                                                                          \
        int both = 0;                                                                          \
        for (Py_ssize_t e = 0; e < n; e++) {                                                   \
            T x = sp ? pr[e] * A : pr[e];                                                      \
            if (mq) {                                                                          \
                T y = mq == 2 ? q[e] * B : q[e];                                               \
                both |= (x != x) & (y != y);                                                   \
                x = x + y;                                                                     \
            }                                                                                  \
            for (Py_ssize_t i = 1; i < batch; i++) {                                           \
                T y = sp ? pr[i * n + e] * A : pr[i * n + e];                                  \
                both |= (x != x) & (y != y);                                                   \
                x = x + y;                                                                     \
            }                                                                                  \
            o[e] = x;                                                                          \
        }                                                                                      \
        return both;                                                                           \
    }
DEFINE_ADDBMM_SUMS(addbmm_sums_f, float)
DEFINE_ADDBMM_SUMS(addbmm_sums_d, double)

#define ADDBMM_CASES(NAME, P, Q, O, A, B)                                                      \
    (sp ? (mq == 0 ? NAME(P, Q, O, batch, mp, A, B, 1, 0) : mq == 1 ? NAME(P, Q, O, batch, mp, A, B, 1, 1) \
                                                : NAME(P, Q, O, batch, mp, A, B, 1, 2))        \
        : (mq == 0 ? NAME(P, Q, O, batch, mp, A, B, 0, 0) : mq == 1 ? NAME(P, Q, O, batch, mp, A, B, 0, 1) \
                                                  : NAME(P, Q, O, batch, mp, A, B, 0, 2)))

/* addbmm(input, batch1, batch2, beta, alpha): fused.addbmm's fast path in one call, for plain
 * float32/float64 tensors of one dtype, batch1 (B, m, n) and batch2 (B, n, p) row-major (any
 * offset), input row-major (m, p), m, n, p at least 2, at most `limit` multiply-adds: the gemm
 * calls np.matmul makes on the batches (gemm_into), then the Python path's NumPy operations in
 * its order (_plus_input on the first product: * alpha unless alpha is 1, + input * beta, + input
 * for beta 1, nothing for beta 0; then _accumulate_into's + product * alpha of each later batch),
 * each rounded once in the dtype, as a fresh row-major (m, p) tensor. None where an add meets two
 * NaN operands (DEFINE_ADDBMM_SUMS), alpha is 0, a factor is not for scalar(), or anything else is
 * not for here (the Python path then decides). */
static PyObject *py_addbmm(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5 || k_tensor == NULL) {
        PyErr_SetString(PyExc_TypeError, "addbmm(input, batch1, batch2, beta, alpha) takes 5 arguments, after setup");
        return NULL;
    }
    operand a, b, in;
    in.held = 0;
    PyObject *answer = Py_None, *flat = NULL;
    char *prod = NULL;
    int r = read_two(args + 1, 3, 3, 2, &a, &b);
    if (r == 1)
        r = read_operand_min(args[0], 2, &in, 2);
    if (r < 0) {
        answer = NULL;
        goto end;
    }
    double ad, bd;
    float af, bf;
    if (r == 0 || Py_TYPE(args[0]) != k_tensor || Py_TYPE(args[1]) != k_tensor || Py_TYPE(args[2]) != k_tensor
        || a.kind != b.kind || in.kind != a.kind || !scalar(args[3], a.kind, &bd, &bf)
        || !scalar(args[4], a.kind, &ad, &af) || ad == 0.)
        goto end;
    Py_ssize_t batch = a.shape[0], m = a.shape[1], n = a.shape[2], p = b.shape[2], mp = m * p;
    if (b.shape[0] != batch || b.shape[1] != n || in.shape[0] != m || in.shape[1] != p
        || (double)batch * m * n * p > (double)k_limit)
        goto end;
    /* (row-major operands, as fused.fast_bmm takes them, and a row-major input: _plus_input's run) */
    if (a.strides[0] != m * n || a.strides[1] != n || a.strides[2] != 1 || b.strides[0] != n * p
        || b.strides[1] != p || b.strides[2] != 1 || in.strides[0] != p || in.strides[1] != 1)
        goto end;
    Py_ssize_t size = a.kind ? 8 : 4;
    prod = PyMem_Malloc((size_t)(batch * mp * size));
    if (prod == NULL) {
        answer = PyErr_NoMemory();
        goto end;
    }
    Py_ssize_t sa[3] = {a.strides[0], a.strides[1], a.strides[2]}, sb[3] = {b.strides[0], b.strides[1], b.strides[2]};
    if (!gemm_into(&a, &b, batch, 3, sa, sb, prod))
        goto end;
    Py_buffer out;
    flat = fresh(mp, a.kind, &out);
    if (flat == NULL) {
        if (PyErr_Occurred())
            answer = NULL;
        goto end;
    }
    /* (the tests on the Python values, as _plus_input's: a float32 factor may round to 0 or 1) */
    int sp = ad != 1., mq = bd == 0. ? 0 : bd == 1. ? 1 : 2, both;
    if (a.kind)
        both = ADDBMM_CASES(addbmm_sums_d, (const double *)prod, (const double *)in.buf.buf + in.offset,
                            (double *)out.buf, ad, bd);
    else
        both = ADDBMM_CASES(addbmm_sums_f, (const float *)prod, (const float *)in.buf.buf + in.offset,
                            (float *)out.buf, af, bf);
    PyBuffer_Release(&out);
    if (!both) {
        PyObject *dims[2] = {PyTuple_GET_ITEM(a.shape_tuple, 1), PyTuple_GET_ITEM(b.shape_tuple, 2)};
        answer = result(flat, a.kind, dims, 2); /* (a new reference, or NULL) */
        Py_DECREF(flat);
        PyMem_Free(prod);
        done(&a);
        done(&b);
        done(&in);
        return answer;
    }
end:
    Py_XDECREF(flat);
    PyMem_Free(prod);
    Py_XINCREF(answer); /* (None, or NULL with an error set) */
    done(&a);
    done(&b);
    done(&in);
    return answer;
}

#include "_lapack_calls.h"
#include "_vml_calls.h"

/* ---------------------------------------------------------------- conv2d's depthwise products
 * conv2d_depthwise(x, w, w_layout, b, b_layout, out, ph, pw, sh, dh, dw): a 2-D convolution whose every group has one
 * input and one output channel (groups == C == O: one channel convolved with one (1, 1, kH, kW)
 * weight, width stride 1), written into ``out`` (N, O, OH, OW), the bits of
 * strided.nn.functional.conv.contract_rows' depthwise branch: per output element the products
 * x * w of the kernel offsets in np.ndindex order (rows outer), the first one the running total,
 * each later one added to it (np.multiply, then ``total += part``: one IEEE multiply and one add
 * each, nothing fused: -ffp-contract=off), then ``+ b`` (one add) where a bias is given. The
 * padding is F.pad's +0.0 read in place (the same products with a zero). x: an array of any
 * strides; w, b: flat storages and the layouts of their runs (no NumPy view to build), out: a
 * flat writeable storage. Returns True, None where declined (nothing written: an unusual dtype,
 * layout or size), or False where an element came out NaN (a NaN's payload is the
 * operand order's, which NumPy's SIMD loops choose: the caller's NumPy path then recomputes). */
#define CONV_DW(T)                                                                                      \
    {                                                                                                   \
        T *acc = (T *)row;                                                                              \
        for (Py_ssize_t n = 0; n < N; n++)                                                              \
            for (Py_ssize_t c = 0; c < C; c++) {                                                        \
                const char *xc = xb + n * xs[0] + c * xs[1];                                            \
                const char *wc = wb + c * ws[0];                                                        \
                T bias = hb ? *(const T *)(bb + c * bs) : (T)0;                                         \
                char *oc = ob + n * os[0] + c * os[1];                                                  \
                for (Py_ssize_t oh = 0; oh < OH; oh++) {                                                \
                    for (Py_ssize_t i = 0; i < KH; i++) {                                               \
                        Py_ssize_t r = oh * sh + i * dh - ph;                                           \
                        int rin = r >= 0 && r < H;                                                      \
                        const char *xr = rin ? xc + r * xs[2] : xc;                                                \
                        for (Py_ssize_t j = 0; j < KW; j++) {                                           \
                            T wv = *(const T *)(wc + i * ws[2] + j * ws[3]);                            \
                            T zp = (T)0 * wv; /* (a padded zero's product) */                           \
                            Py_ssize_t q0 = j * dw - pw, lo = 0, hi = 0;                                \
                            if (rin) {                                                                  \
                                lo = q0 < 0 ? -q0 : 0;                                                  \
                                hi = W - q0 < OW ? W - q0 : OW;                                         \
                                if (hi < lo)                                                            \
                                    hi = lo;                                                            \
                            }                                                                           \
                            if (i == 0 && j == 0) {                                                     \
                                for (Py_ssize_t ow = 0; ow < lo; ow++)                                  \
                                    acc[ow] = zp;                                                       \
                                if (unit)                                                               \
                                    for (Py_ssize_t ow = lo; ow < hi; ow++)                             \
                                        acc[ow] = ((const T *)xr)[ow + q0] * wv;                        \
                                else                                                                    \
                                    for (Py_ssize_t ow = lo; ow < hi; ow++)                             \
                                        acc[ow] = *(const T *)(xr + (ow + q0) * xs[3]) * wv;            \
                                for (Py_ssize_t ow = hi; ow < OW; ow++)                                 \
                                    acc[ow] = zp;                                                       \
                            } else {                                                                    \
                                for (Py_ssize_t ow = 0; ow < lo; ow++)                                  \
                                    acc[ow] = acc[ow] + zp;                                             \
                                if (unit)                                                               \
                                    for (Py_ssize_t ow = lo; ow < hi; ow++)                             \
                                        acc[ow] = acc[ow] + ((const T *)xr)[ow + q0] * wv;              \
                                else                                                                    \
                                    for (Py_ssize_t ow = lo; ow < hi; ow++)                             \
                                        acc[ow] = acc[ow] + *(const T *)(xr + (ow + q0) * xs[3]) * wv;  \
                                for (Py_ssize_t ow = hi; ow < OW; ow++)                                 \
                                    acc[ow] = acc[ow] + zp;                                             \
                            }                                                                           \
                        }                                                                               \
                    }                                                                                   \
                    T *orow = (T *)(oc + oh * os[2]);                                                   \
                    if (hb)                                                                             \
                        for (Py_ssize_t ow = 0; ow < OW; ow++)                                          \
                            acc[ow] = acc[ow] + bias;                                                   \
                    for (Py_ssize_t ow = 0; ow < OW; ow++)                                              \
                        nan |= acc[ow] != acc[ow];                                                      \
                    if (os[3] == (Py_ssize_t)sizeof(T))                                                 \
                        memcpy(orow, acc, OW * sizeof(T));                                              \
                    else                                                                                \
                        for (Py_ssize_t ow = 0; ow < OW; ow++)                                          \
                            *(T *)((char *)orow + ow * os[3]) = acc[ow];                                \
                }                                                                               \
            }                                                                                           \
    }

/* The run of a flat storage ``buf`` (1-D, contiguous) that ``layout`` (strided's Layout: its
 * shape, strides and offset, counted in elements) of ``ndim`` dims addresses, as byte strides and
 * a byte offset into ``buf``: 1 where it lies inside the buffer, 0 where not (or no such layout). */
static int flat_view(const Py_buffer *buf, PyObject *layout, int ndim, Py_ssize_t *shape, Py_ssize_t *strides,
                     Py_ssize_t *offset)
{
    static PyObject *names[3];
    if (names[0] == NULL) {
        names[0] = PyUnicode_InternFromString("shape");
        names[1] = PyUnicode_InternFromString("strides");
        names[2] = PyUnicode_InternFromString("offset");
        if (names[0] == NULL || names[1] == NULL || names[2] == NULL) {
            PyErr_Clear();
            names[0] = NULL;
            return 0;
        }
    }
    if (buf->ndim != 1 || buf->strides[0] != buf->itemsize)
        return 0;
    PyObject *sh = PyObject_GetAttr(layout, names[0]), *st = PyObject_GetAttr(layout, names[1]),
             *of = PyObject_GetAttr(layout, names[2]);
    int ok = 0;
    if (sh == NULL || st == NULL || of == NULL || !PyTuple_Check(sh) || !PyTuple_Check(st) || !PyLong_Check(of)
        || PyTuple_GET_SIZE(sh) != ndim || PyTuple_GET_SIZE(st) != ndim)
        goto out;
    Py_ssize_t start = PyLong_AsSsize_t(of), lo = start, hi = start;
    if (start == -1 && PyErr_Occurred())
        goto out;
    for (int d = 0; d < ndim; d++) {
        shape[d] = PyLong_AsSsize_t(PyTuple_GET_ITEM(sh, d));
        strides[d] = PyLong_AsSsize_t(PyTuple_GET_ITEM(st, d));
        if (PyErr_Occurred() || shape[d] <= 0)
            goto out;
        if (strides[d] >= 0)
            hi += (shape[d] - 1) * strides[d];
        else
            lo += (shape[d] - 1) * strides[d];
        strides[d] *= buf->itemsize;
    }
    if (lo >= 0 && hi < buf->shape[0]) {
        *offset = start * buf->itemsize;
        ok = 1;
    }
out:
    PyErr_Clear();
    Py_XDECREF(sh);
    Py_XDECREF(st);
    Py_XDECREF(of);
    return ok;
}

static PyObject *py_conv2d_depthwise(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    /* (x, w, w_layout, b, b_layout, out, ph, pw, sh, dh, dw): x a 4-D array (N, C, H, W); w, b and
     * out flat storages (1-D), w's (C, 1, kH, kW) and b's (C,) runs given by their layouts, out
     * written row-major (N, C, OH, OW) from its first element. None: declined, nothing written. */
    if (nargs != 11) {
        PyErr_SetString(PyExc_TypeError, "conv2d_depthwise(x, w, w_layout, b, b_layout, out, ph, pw, sh, dh, dw)");
        return NULL;
    }
    Py_ssize_t v[5];
    for (int k = 0; k < 5; k++) {
        v[k] = PyLong_AsSsize_t(args[6 + k]);
        if (v[k] == -1 && PyErr_Occurred())
            return NULL;
    }
    Py_ssize_t ph = v[0], pw = v[1], sh = v[2], dh = v[3], dw = v[4];
    Py_buffer bx, bw, bbias, bo;
    int hb = args[3] != Py_None, got = 0, nan = 0;
    PyObject *answer = NULL;
    if (PyObject_GetBuffer(args[0], &bx, PyBUF_STRIDES | PyBUF_FORMAT) < 0)
        return NULL;
    got = 1;
    if (PyObject_GetBuffer(args[1], &bw, PyBUF_STRIDES | PyBUF_FORMAT) < 0)
        goto done;
    got = 2;
    if (hb) {
        if (PyObject_GetBuffer(args[3], &bbias, PyBUF_STRIDES | PyBUF_FORMAT) < 0)
            goto done;
    }
    got = 3;
    if (PyObject_GetBuffer(args[5], &bo, PyBUF_STRIDES | PyBUF_FORMAT | PyBUF_WRITABLE) < 0)
        goto done;
    got = 4;
    Py_ssize_t it = bx.itemsize;
    char f = bx.format[strlen(bx.format) - 1];
    Py_ssize_t wshape[4], ws[4], woff = 0, bshape[1], bstr[1], boff = 0;
    if (bx.ndim != 4 || bo.ndim != 1 || bo.strides[0] != it || !(f == 'f' || f == 'd')
        || (f == 'f' ? it != 4 : it != 8) || bw.itemsize != it || bo.itemsize != it || (hb && bbias.itemsize != it)
        || bw.format[strlen(bw.format) - 1] != f || bo.format[strlen(bo.format) - 1] != f
        || (hb && bbias.format[strlen(bbias.format) - 1] != f)
        || !flat_view(&bw, args[2], 4, wshape, ws, &woff) || (hb && !flat_view(&bbias, args[4], 1, bshape, bstr, &boff))) {
        answer = Py_None;
        goto declined;
    }
    Py_ssize_t N = bx.shape[0], C = bx.shape[1], H = bx.shape[2], W = bx.shape[3];
    Py_ssize_t KH = wshape[2], KW = wshape[3];
    Py_ssize_t OH = sh >= 1 && dh >= 1 ? (H + 2 * ph - dh * (KH - 1) - 1) / sh + 1 : 0, OW = W + 2 * pw - dw * (KW - 1);
    if (wshape[0] != C || wshape[1] != 1 || (hb && bshape[0] != C) || N < 1 || C < 1 || sh < 1 || dh < 1 || dw < 1
        || ph < 0 || pw < 0 || H + 2 * ph < dh * (KH - 1) + 1 || OW < 1 || bo.shape[0] != N * C * OH * OW) {
        answer = Py_None;
        goto declined;
    }
    {
        const char *xb = bx.buf, *wb = (const char *)bw.buf + woff, *bb = hb ? (const char *)bbias.buf + boff : NULL;
        char *ob = bo.buf;
        const Py_ssize_t *xs = bx.strides;
        Py_ssize_t os[4] = {C * OH * OW * it, OH * OW * it, OW * it, it};
        Py_ssize_t bs = hb ? bstr[0] : 0;
        int unit = xs[3] == it;
        double stack[256];
        void *row = OW * it <= (Py_ssize_t)sizeof stack ? (void *)stack : PyMem_Malloc(OW * it);
        if (row == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        /* (a large one lets other threads run meanwhile, as NumPy's ufuncs do: the buffers held
         * keep every array alive) */
        PyThreadState *ts = N * C * OH * OW * KH * KW > (1 << 16) ? PyEval_SaveThread() : NULL;
        if (f == 'f') {
            CONV_DW(float)
        } else {
            CONV_DW(double)
        }
        if (ts != NULL)
            PyEval_RestoreThread(ts);
        if (row != (void *)stack)
            PyMem_Free(row);
    }
    answer = nan ? Py_False : Py_True;
declined:
    Py_INCREF(answer);
done:
    if (got >= 4)
        PyBuffer_Release(&bo);
    if (got >= 3 && hb)
        PyBuffer_Release(&bbias);
    if (got >= 2)
        PyBuffer_Release(&bw);
    PyBuffer_Release(&bx);
    return answer;
}
#undef CONV_DW

/* addmm_mkl(input, mat1, mat2, beta, alpha): PyTorch's addmm on the MKL route in one call, for
 * row-major (or transposed) float32/float64 mat1 (m, n) and mat2 (n, p), every size >= 2, m and p
 * at least mkl_setup's rows and cols, and input a row-major (m, p) or contiguous (p,) tensor of
 * their dtype: a fresh (m, p) result filled with input (zeros for beta 0: BLAS then never reads
 * it), then MKL's gemm with alpha and beta (row-major cblas, the column-major call PyTorch's
 * addmm_impl_cpu_ makes), the GIL released around it. None where it does not apply. */
static PyObject *py_addmm_mkl(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "addmm_mkl(input, mat1, mat2, beta, alpha) takes 5 arguments");
        return NULL;
    }
    if (k_tensor == NULL || k_mkl_sgemm == NULL || !PyObject_TypeCheck(args[0], k_tensor))
        Py_RETURN_NONE;
    PyObject *ilay = SLOT(args[0], off_layout);
    PyObject *ishape = ilay == NULL ? NULL : SLOT(ilay, off_shape);
    if (ishape == NULL || !PyTuple_CheckExact(ishape) || PyTuple_GET_SIZE(ishape) < 1 || PyTuple_GET_SIZE(ishape) > 2)
        Py_RETURN_NONE;
    int ind = (int)PyTuple_GET_SIZE(ishape);
    operand a, b, in;
    in.held = 0;
    PyObject *answer = NULL;
    int r = read_two(args + 1, 2, 2, 2, &a, &b);
    if (r == 1)
        r = read_operand_min(args[0], ind, &in, 1);
    if (r < 0)
        goto end;
    Py_ssize_t m = a.shape[0], n = a.shape[1], p = r == 1 ? b.shape[1] : 0;
    int kind = a.kind, t1, t2;
    int64_t lda, ldb;
    double bd, ad;
    float bf, af;
    if (r == 0 || b.kind != kind || in.kind != kind || b.shape[0] != n || m < k_mkl_rows || p < k_mkl_cols
        || !scalar(args[3], kind, &bd, &bf) || !scalar(args[4], kind, &ad, &af)
        || !blas_layout(m, n, a.strides[0], a.strides[1], &t1, &lda)
        || !blas_layout(n, p, b.strides[0], b.strides[1], &t2, &ldb)
        || (ind == 2 && (in.shape[0] != m || in.shape[1] != p || in.strides[1] != 1 || in.strides[0] != p))
        || (ind == 1 && (in.shape[0] != p || in.strides[0] != 1))) {
        answer = Py_None;
        Py_INCREF(answer);
        goto end;
    }
    Py_buffer out;
    PyObject *flat = fresh(m * p, kind, &out);
    if (flat == NULL) {
        if (!PyErr_Occurred()) {
            answer = Py_None;
            Py_INCREF(answer);
        }
        goto end;
    }
    Py_ssize_t size = kind ? 8 : 4;
    char *z = (char *)out.buf;
    const char *src = (const char *)in.buf.buf + in.offset * size;
    if (bd == 0)
        memset(z, 0, (size_t)(m * p * size));
    else if (ind == 2)
        memcpy(z, src, (size_t)(m * p * size));
    else
        for (Py_ssize_t i = 0; i < m; i++)
            memcpy(z + i * p * size, src, (size_t)(p * size));
    const char *x = (const char *)a.buf.buf + a.offset * size, *y = (const char *)b.buf.buf + b.offset * size;
    Py_BEGIN_ALLOW_THREADS
    if (kind)
        k_mkl_dgemm(ROW_MAJOR, t1, t2, m, p, n, ad, (const double *)x, lda, (const double *)y, ldb, bd, (double *)z, p);
    else
        k_mkl_sgemm(ROW_MAJOR, t1, t2, m, p, n, af, (const float *)x, lda, (const float *)y, ldb, bf, (float *)z, p);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&out);
    PyObject *dims[2] = {PyTuple_GET_ITEM(a.shape_tuple, 0), PyTuple_GET_ITEM(b.shape_tuple, 1)};
    answer = result(flat, kind, dims, 2);
    Py_DECREF(flat);
end:
    done(&a);
    done(&b);
    done(&in);
    return answer;
}

static PyMethodDef methods[] = {
    {"vml_setup", py_vml_setup, METH_VARARGS,
     "vml_setup(addresses, mode): MKL VML's vms/vmd<Op>_64 entries in vml_route.OPS order (): off (see _vml_calls.h)"},
    {"vml_run", (PyCFunction)(void (*)(void))py_vml_run, METH_FASTCALL,
     "vml_run(x, out, op): op of a contiguous float32/float64 run by MKL VML; False when off"},
    {"vml_apply", (PyCFunction)(void (*)(void))py_vml_apply, METH_FASTCALL,
     "vml_apply(x, out, op): op of any strided x into out of its shape by MKL VML; False when off"},
    {"lapack_setup", py_lapack_setup, METH_VARARGS,
     "lapack_setup(numpy_empty, float32, float64, int32, dpotrf, dsyevd, dgeqrf, dorgqr, dgesdd, sgelsy, dgelsy, "
     "dgesv) (see _lapack_calls.h)"},
    {"gesv_colmajor", (PyCFunction)(void (*)(void))py_gesv_colmajor, METH_FASTCALL,
     "gesv_colmajor(a, n, as0, as1, aoffset, b, k, bs0, bs1, boffset): NumPy's solve call, x column-major, or None"},
    {"outer", (PyCFunction)(void (*)(void))py_outer, METH_FASTCALL,
     "outer(a, b): matmul._fast_outer's product of two contiguous float vectors, a fresh tensor, or None"},
    {"addbmm", (PyCFunction)(void (*)(void))py_addbmm, METH_FASTCALL,
     "addbmm(input, batch1, batch2, beta, alpha): fused.addbmm's fast path, a fresh tensor, or None"},
    {"gesdd_pinv", (PyCFunction)(void (*)(void))py_gesdd_pinv, METH_FASTCALL,
     "gesdd_pinv(flat, m, n, s0, s1, offset, r): linalg_pinv of one matrix (n, m) row-major flat, or None"},
    {"gelsy_colmajor", (PyCFunction)(void (*)(void))py_gelsy_colmajor, METH_FASTCALL,
     "gelsy_colmajor(a, m, n, as0, as1, aoffset, b, k, bs0, bs1, boffset, rcond): lstsq's gelsy call, (x, rank), "
     "or None"},
    {"syevd_colmajor", (PyCFunction)(void (*)(void))py_syevd_colmajor, METH_FASTCALL,
     "syevd_colmajor(flat, n, s0, s1, offset, lower, vectors): NumPy's eigh call, (w, v column-major or None), or None"},
    {"geqrf_colmajor", (PyCFunction)(void (*)(void))py_geqrf_colmajor, METH_FASTCALL,
     "geqrf_colmajor(flat, m, n, s0, s1, offset, q_cols): NumPy's qr call, (q column-major or None, r column-major), or None"},
    {"gesdd_colmajor", (PyCFunction)(void (*)(void))py_gesdd_colmajor, METH_FASTCALL,
     "gesdd_colmajor(flat, m, n, s0, s1, offset, jobz): NumPy's svd call, (u or None, s, vt or None), or None"},
    {"potrf_colmajor", (PyCFunction)(void (*)(void))py_potrf_colmajor, METH_FASTCALL,
     "potrf_colmajor(flat, n, s0, s1, offset): NumPy's Cholesky call, (factor column-major, info), or None"},
    {"addmm_mkl", (PyCFunction)(void (*)(void))py_addmm_mkl, METH_FASTCALL,
     "addmm_mkl(input, mat1, mat2, beta, alpha): PyTorch's addmm on the MKL route as a fresh tensor, or None"},
    {"mkl_addmm", py_mkl_addmm, METH_VARARGS,
     "mkl_addmm(c, a, b, alpha, beta): c = alpha * a @ b + beta * c by MKL's gemm as PyTorch calls it; False: not done"},
    {"mkl_setup", py_mkl_setup, METH_VARARGS,
     "mkl_setup(sgemm, dgemm, rows, cols): MKL's gemm addresses for products of at least rows x cols (0, 0: none)"},
    {"setup", py_setup, METH_VARARGS,
     "setup(tensor_cls, storage_cls, layout_cls, adopt, cinfo, empty, float32, float64, np_float32, "
     "np_float64, sgemm, dgemm, sgemv, dgemv, sdot, ddot, limit): the classes, makers and BLAS routines."},
    {"mm", (PyCFunction)(void (*)(void))py_mm, METH_FASTCALL,
     "mm(a, b): the fresh tensor a @ b of two 2-D float tensors (NumPy's gemm call), or None."},
    {"bmm", (PyCFunction)(void (*)(void))py_bmm, METH_FASTCALL,
     "bmm(a, b): the fresh tensor of a (B, m, n) @ (B, n, p) float product (NumPy's gemm per batch), or None."},
    {"linear", (PyCFunction)(void (*)(void))py_linear, METH_FASTCALL,
     "linear(x, w): the fresh tensor x @ w.T of two row-major 2-D float tensors (n, k) and (m, k), every size "
     ">= 2 (np.matmul(x, w.T)'s gemm call), or None."},
    {"mv", (PyCFunction)(void (*)(void))py_mv, METH_FASTCALL,
     "mv(a, v): the fresh tensor of a row-major (m, n) float matrix times a contiguous (n,) vector "
     "(NumPy's gemv), or None."},
    {"bmm_small", (PyCFunction)(void (*)(void))py_bmm_small, METH_FASTCALL,
     "bmm_small(a, b): PyTorch's small baddbmm loop of two row-major 3-D float tensors (NaN-free), "
     "as a fresh tensor, or None."},
    {"dot", (PyCFunction)(void (*)(void))py_dot, METH_FASTCALL,
     "dot(a, b): NumPy's dot of two contiguous float vectors (its BLAS call) as a fresh 0-d tensor, or None."},
    {"trace", (PyCFunction)(void (*)(void))py_trace, METH_FASTCALL,
     "trace(x): the trace of a float32/float64 matrix (a diagonal of 1 or more), PyTorch's double "
     "running sum, as a fresh 0-d tensor; or None."},
    {"addr", (PyCFunction)(void (*)(void))py_addr, METH_FASTCALL,
     "addr(input, x, y, beta, alpha): fused.addr's fast path (outer_scale_add's operations) as a "
     "fresh tensor, or None."},
    {"scale_add", (PyCFunction)(void (*)(void))py_scale_add, METH_FASTCALL,
     "scale_add(result, input, beta, alpha): result = result * alpha + input * beta in place, as "
     "NumPy's ufuncs round it; None (nothing written), or whether a zero is among the results."},
    {"conv2d_depthwise", (PyCFunction)(void (*)(void))py_conv2d_depthwise, METH_FASTCALL,
     "conv2d_depthwise(x, w, w_layout, b, b_layout, out, ph, pw, sh, dh, dw): a depthwise conv2d (one channel "
     "per group, width stride 1) into the flat out, contract_rows' multiply-then-add bits; False where a NaN "
     "came out, None where declined."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_matkernel", NULL, -1, methods};

PyMODINIT_FUNC PyInit__matkernel(void)
{
    return PyModule_Create(&module);
}
