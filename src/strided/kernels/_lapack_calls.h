/* LAPACK's Cholesky factorization called as NumPy's linalg calls it, without its gufunc's Python
 * and buffers (included by _matkernel.c).
 *
 * lapack_setup(dpotrf_address, numpy_empty, float32, float64, int32) names the routine (the ILP64
 * scipy_dpotrf_64_ of NumPy's bundled scipy-openblas, the one NumPy's cholesky gufunc,
 * umath_linalg's cholesky_lo, calls) and the NumPy dtypes of the results. potrf_colmajor(flat, n,
 * s0, s1, offset) takes the (n, n) matrix whose element (i, j) is flat[offset + i s0 + j s1]
 * (flat: a 1-D float32 or float64 ndarray, native, aligned, contiguous; 1 <= n <= 64; every
 * element inside flat) and makes that gufunc's call: the matrix copied into a column-major
 * float64 buffer (its linearize_matrix; float32 widened exactly, as its d->d loop casts), dpotrf
 * with uplo "L", the strictly upper triangle zeroed (zero_upper_triangle). It returns (factor, info):
 * a fresh flat array of flat's dtype holding that buffer (the lower factor L in column-major
 * order, PyTorch's layout of linalg.cholesky's result; float32 rounded once, as the gufunc's output
 * cast rounds it) and a fresh int32 array of one 0; or None where LAPACK refused the matrix
 * (info != 0), a diagonal element is NaN, or the arguments are not of that kind: the caller's
 * general path decides those. The same routine on the same numbers: NumPy's bits. */

typedef void (*dpotrf_fn)(const char *uplo, const int64_t *n, double *a, const int64_t *lda, int64_t *info,
                          size_t uplo_len);
static dpotrf_fn dpotrf_p;
static PyObject *lapack_empty, *lapack_dtypes[3]; /* numpy.empty; float32, float64, int32 */

static PyObject *py_lapack_setup(PyObject *self, PyObject *args)
{
    unsigned long long address;
    PyObject *empty, *d[3];
    if (!PyArg_ParseTuple(args, "KOOOO:lapack_setup", &address, &empty, &d[0], &d[1], &d[2]))
        return NULL;
    if (address == 0 || !PyCallable_Check(empty)) {
        PyErr_SetString(PyExc_ValueError, "lapack_setup: a routine's address and numpy.empty");
        return NULL;
    }
    dpotrf_p = (dpotrf_fn)(uintptr_t)address;
    Py_INCREF(empty);
    Py_XSETREF(lapack_empty, empty);
    for (int i = 0; i < 3; i++) {
        Py_INCREF(d[i]);
        Py_XSETREF(lapack_dtypes[i], d[i]);
    }
    Py_RETURN_NONE;
}

#define POTRF_MAX 64

static PyObject *lapack_new(Py_ssize_t n, PyObject *dtype, Py_buffer *view)
{
    PyObject *size = PyLong_FromSsize_t(n);
    if (size == NULL)
        return NULL;
    PyObject *a[2] = {size, dtype};
    PyObject *out = PyObject_Vectorcall(lapack_empty, a, 2, NULL);
    Py_DECREF(size);
    if (out != NULL && PyObject_GetBuffer(out, view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
        Py_CLEAR(out);
    return out;
}

static PyObject *py_potrf_colmajor(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (dpotrf_p == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "potrf_colmajor: lapack_setup was not called");
        return NULL;
    }
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "potrf_colmajor(flat, n, s0, s1, offset) takes 5 arguments");
        return NULL;
    }
    int64_t n = PyLong_AsLongLong(args[1]), s0 = PyLong_AsLongLong(args[2]), s1 = PyLong_AsLongLong(args[3]),
            off = PyLong_AsLongLong(args[4]);
    if (PyErr_Occurred())
        return NULL;
    Py_buffer a;
    if (PyObject_GetBuffer(args[0], &a, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    int f32 = strcmp(a.format, "f") == 0 && a.itemsize == 4, f64 = strcmp(a.format, "d") == 0 && a.itemsize == 8;
    int64_t len = a.len / (a.itemsize ? a.itemsize : 1);
    /* the lowest and highest elements the layout reads (strides of either sign) */
    int64_t lo = off + (s0 < 0 ? s0 * (n - 1) : 0) + (s1 < 0 ? s1 * (n - 1) : 0);
    int64_t hi = off + (s0 > 0 ? s0 * (n - 1) : 0) + (s1 > 0 ? s1 * (n - 1) : 0);
    if (!(f32 || f64) || a.ndim != 1 || n < 1 || n > POTRF_MAX || lo < 0 || hi >= len
        || (uintptr_t)a.buf % a.itemsize) {
        PyBuffer_Release(&a);
        Py_RETURN_NONE;
    }
    double buf[POTRF_MAX * POTRF_MAX];
    for (int64_t j = 0; j < n; j++) /* column j of A is the buffer's j-th run of n */
        for (int64_t i = 0; i < n; i++) {
            int64_t k = off + i * s0 + j * s1;
            buf[j * n + i] = f32 ? (double)((const float *)a.buf)[k] : ((const double *)a.buf)[k];
        }
    PyBuffer_Release(&a);
    int64_t info = 0, lda = n;
    dpotrf_p("L", &n, buf, &lda, &info, 1);
    if (info != 0)
        Py_RETURN_NONE;
    for (int64_t j = 0; j < n; j++) {
        if (isnan(buf[j * n + j]))
            Py_RETURN_NONE;
        for (int64_t i = 0; i < j; i++)
            buf[j * n + i] = 0.0; /* the strictly upper triangle (row i < column j) */
    }
    Py_buffer o, z;
    PyObject *out = lapack_new((Py_ssize_t)(n * n), lapack_dtypes[f32 ? 0 : 1], &o);
    if (out == NULL)
        return NULL;
    if (f32) {
        float *d = o.buf;
        for (int64_t k = 0; k < n * n; k++)
            d[k] = (float)buf[k];
    } else {
        memcpy(o.buf, buf, (size_t)(n * n) * sizeof(double));
    }
    PyBuffer_Release(&o);
    PyObject *zero = lapack_new(1, lapack_dtypes[2], &z);
    if (zero == NULL) {
        Py_DECREF(out);
        return NULL;
    }
    memset(z.buf, 0, (size_t)z.len);
    PyBuffer_Release(&z);
    PyObject *pair = PyTuple_New(2);
    if (pair == NULL) {
        Py_DECREF(out);
        Py_DECREF(zero);
        return NULL;
    }
    PyTuple_SET_ITEM(pair, 0, out);
    PyTuple_SET_ITEM(pair, 1, zero);
    return pair;
}

/* syevd_colmajor(flat, n, s0, s1, offset, lower, vectors): NumPy's eigh / eigvalsh gufunc call
 * (umath_linalg's eigh_lo / eigh_up / eigvalsh_lo / eigvalsh_up: the matrix copied into a
 * column-major float64 buffer, float32 widened exactly; dsyevd with jobz "V" or "N" and uplo "L"
 * or "U", its workspace sized by the routine's own query first, as init_evd sizes it) on the
 * (n, n) matrix read as potrf_colmajor reads it (every element finite: NaN and inf are the general
 * path's). Returns (w, v): the eigenvalues as a fresh float array of flat's dtype (float32 rounded
 * once from LAPACK's float64, as the gufunc's output then astype round them) and, with
 * ``vectors``, the eigenvectors as a fresh flat array of flat's dtype in column-major order (LAPACK's
 * buffer itself: PyTorch's layout of eigh's vectors), else None; None where LAPACK did not
 * converge (info != 0), the routine is not set up, or the arguments are not of that kind. */
typedef void (*dsyevd_fn)(const char *jobz, const char *uplo, const int64_t *n, double *a, const int64_t *lda,
                          double *w, double *work, const int64_t *lwork, int64_t *iwork, const int64_t *liwork,
                          int64_t *info, size_t jobz_len, size_t uplo_len);
static dsyevd_fn dsyevd_p;

static PyObject *py_lapack_setup_syevd(PyObject *self, PyObject *args)
{
    unsigned long long address;
    if (!PyArg_ParseTuple(args, "K:lapack_setup_syevd", &address))
        return NULL;
    if (address == 0) {
        PyErr_SetString(PyExc_ValueError, "lapack_setup_syevd: the routine's address");
        return NULL;
    }
    dsyevd_p = (dsyevd_fn)(uintptr_t)address;
    Py_RETURN_NONE;
}

static PyObject *py_syevd_colmajor(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "syevd_colmajor(flat, n, s0, s1, offset, lower, vectors) takes 7 arguments");
        return NULL;
    }
    int64_t n = PyLong_AsLongLong(args[1]), s0 = PyLong_AsLongLong(args[2]), s1 = PyLong_AsLongLong(args[3]),
            off = PyLong_AsLongLong(args[4]);
    if (PyErr_Occurred())
        return NULL;
    int lower = PyObject_IsTrue(args[5]), vectors = PyObject_IsTrue(args[6]);
    if (lower < 0 || vectors < 0)
        return NULL;
    if (dsyevd_p == NULL || lapack_empty == NULL)
        Py_RETURN_NONE;
    Py_buffer a;
    if (PyObject_GetBuffer(args[0], &a, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    int f32 = strcmp(a.format, "f") == 0 && a.itemsize == 4, f64 = strcmp(a.format, "d") == 0 && a.itemsize == 8;
    int64_t len = a.len / (a.itemsize ? a.itemsize : 1);
    int64_t lo = off + (s0 < 0 ? s0 * (n - 1) : 0) + (s1 < 0 ? s1 * (n - 1) : 0);
    int64_t hi = off + (s0 > 0 ? s0 * (n - 1) : 0) + (s1 > 0 ? s1 * (n - 1) : 0);
    if (!(f32 || f64) || a.ndim != 1 || n < 1 || n > POTRF_MAX || lo < 0 || hi >= len
        || (uintptr_t)a.buf % a.itemsize) {
        PyBuffer_Release(&a);
        Py_RETURN_NONE;
    }
    double buf[POTRF_MAX * POTRF_MAX], w[POTRF_MAX];
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            int64_t k = off + i * s0 + j * s1;
            double v = f32 ? (double)((const float *)a.buf)[k] : ((const double *)a.buf)[k];
            if (!isfinite(v)) {
                PyBuffer_Release(&a);
                Py_RETURN_NONE;
            }
            buf[j * n + i] = v;
        }
    PyBuffer_Release(&a);
    const char *jobz = vectors ? "V" : "N", *uplo = lower ? "L" : "U";
    int64_t lda = n, info = 0, lwork = -1, liwork = -1, iwork_query = 0;
    double work_query = 0.0;
    dsyevd_p(jobz, uplo, &n, buf, &lda, w, &work_query, &lwork, &iwork_query, &liwork, &info, 1, 1);
    if (info != 0)
        Py_RETURN_NONE;
    lwork = (int64_t)work_query;
    liwork = iwork_query;
    double *work = PyMem_Malloc((size_t)(lwork > 0 ? lwork : 1) * sizeof(double));
    int64_t *iwork = PyMem_Malloc((size_t)(liwork > 0 ? liwork : 1) * sizeof(int64_t));
    if (work == NULL || iwork == NULL) {
        PyMem_Free(work);
        PyMem_Free(iwork);
        return PyErr_NoMemory();
    }
    dsyevd_p(jobz, uplo, &n, buf, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1);
    PyMem_Free(work);
    PyMem_Free(iwork);
    if (info != 0)
        Py_RETURN_NONE;
    Py_buffer wb, vb;
    PyObject *wout = lapack_new((Py_ssize_t)n, lapack_dtypes[f32 ? 0 : 1], &wb);
    if (wout == NULL)
        return NULL;
    for (int64_t k = 0; k < n; k++) {
        if (f32)
            ((float *)wb.buf)[k] = (float)w[k];
        else
            ((double *)wb.buf)[k] = w[k];
    }
    PyBuffer_Release(&wb);
    PyObject *vout = Py_None;
    Py_INCREF(Py_None);
    if (vectors) {
        Py_DECREF(Py_None);
        vout = lapack_new((Py_ssize_t)(n * n), lapack_dtypes[f32 ? 0 : 1], &vb);
        if (vout == NULL) {
            Py_DECREF(wout);
            return NULL;
        }
        for (int64_t k = 0; k < n * n; k++) {
            if (f32)
                ((float *)vb.buf)[k] = (float)buf[k];
            else
                ((double *)vb.buf)[k] = buf[k];
        }
        PyBuffer_Release(&vb);
    }
    PyObject *pair = PyTuple_New(2);
    if (pair == NULL) {
        Py_DECREF(wout);
        Py_DECREF(vout);
        return NULL;
    }
    PyTuple_SET_ITEM(pair, 0, wout);
    PyTuple_SET_ITEM(pair, 1, vout);
    return pair;
}

/* geqrf_colmajor(flat, m, n, s0, s1, offset, q_cols): NumPy's qr call (umath_linalg's qr_r_raw,
 * then qr_reduced or qr_complete: the (m, n) matrix copied into a column-major float64 buffer,
 * float32 widened exactly; dgeqrf, then dorgqr on a copy of its result, each with the workspace
 * max(1, n, the routine's own query), as init_geqrf / init_gqr_common size it) on the (m, n)
 * matrix read as potrf_colmajor reads it (1 <= m, n <= 64; every element finite: NaN and inf are
 * the general path's). q_cols: Q's columns (min(m, n) for 'reduced', m for 'complete' with
 * m > n) or 0 for no Q (mode 'r': dgeqrf's result alone determines R). Returns (q, r): Q (m,
 * q_cols) and R (rows, n) with rows = q_cols or min(m, n) where q_cols is 0, each a fresh flat
 * array of flat's dtype in column-major order (PyTorch's layout of qr's results), R the upper
 * triangle of dgeqrf's first rows with +0.0 below (NumPy's triu), float32 rounded once, as the
 * gufuncs' astype rounds it; q None where q_cols is 0. None where the routine is not set up or the
 * arguments are not of that kind. */
typedef void (*dgeqrf_fn)(const int64_t *m, const int64_t *n, double *a, const int64_t *lda, double *tau,
                          double *work, const int64_t *lwork, int64_t *info);
typedef void (*dorgqr_fn)(const int64_t *m, const int64_t *n, const int64_t *k, double *a, const int64_t *lda,
                          const double *tau, double *work, const int64_t *lwork, int64_t *info);
static dgeqrf_fn dgeqrf_p;
static dorgqr_fn dorgqr_p;

static PyObject *py_lapack_setup_qr(PyObject *self, PyObject *args)
{
    unsigned long long geqrf, orgqr;
    if (!PyArg_ParseTuple(args, "KK:lapack_setup_qr", &geqrf, &orgqr))
        return NULL;
    if (geqrf == 0 || orgqr == 0) {
        PyErr_SetString(PyExc_ValueError, "lapack_setup_qr: the routines' addresses");
        return NULL;
    }
    dgeqrf_p = (dgeqrf_fn)(uintptr_t)geqrf;
    dorgqr_p = (dorgqr_fn)(uintptr_t)orgqr;
    Py_RETURN_NONE;
}

/* a fresh flat array of the dtype (f32: float32) holding count doubles of buf */
static PyObject *lapack_out(const double *buf, int64_t count, int f32)
{
    Py_buffer o;
    PyObject *out = lapack_new((Py_ssize_t)count, lapack_dtypes[f32 ? 0 : 1], &o);
    if (out == NULL)
        return NULL;
    if (f32) {
        float *d = o.buf;
        for (int64_t k = 0; k < count; k++)
            d[k] = (float)buf[k];
    } else if (count) {
        memcpy(o.buf, buf, (size_t)count * sizeof(double));
    }
    PyBuffer_Release(&o);
    return out;
}

/* LAPACK's workspace as NumPy sizes it: max(1, n, the query's answer) */
static int64_t qr_lwork(double query, int64_t n)
{
    int64_t count = (int64_t)query, lwork = n > 1 ? n : 1;
    return count > lwork ? count : lwork;
}

static PyObject *py_geqrf_colmajor(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "geqrf_colmajor(flat, m, n, s0, s1, offset, q_cols) takes 7 arguments");
        return NULL;
    }
    int64_t m = PyLong_AsLongLong(args[1]), n = PyLong_AsLongLong(args[2]), s0 = PyLong_AsLongLong(args[3]),
            s1 = PyLong_AsLongLong(args[4]), off = PyLong_AsLongLong(args[5]), qc = PyLong_AsLongLong(args[6]);
    if (PyErr_Occurred())
        return NULL;
    if (dgeqrf_p == NULL || dorgqr_p == NULL || lapack_empty == NULL)
        Py_RETURN_NONE;
    int64_t k = m < n ? m : n;
    if (m < 1 || n < 1 || m > POTRF_MAX || n > POTRF_MAX || !(qc == 0 || qc == k || (qc == m && m > n)))
        Py_RETURN_NONE;
    Py_buffer a;
    if (PyObject_GetBuffer(args[0], &a, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    int f32 = strcmp(a.format, "f") == 0 && a.itemsize == 4, f64 = strcmp(a.format, "d") == 0 && a.itemsize == 8;
    int64_t len = a.len / (a.itemsize ? a.itemsize : 1);
    int64_t lo = off + (s0 < 0 ? s0 * (m - 1) : 0) + (s1 < 0 ? s1 * (n - 1) : 0);
    int64_t hi = off + (s0 > 0 ? s0 * (m - 1) : 0) + (s1 > 0 ? s1 * (n - 1) : 0);
    if (!(f32 || f64) || a.ndim != 1 || lo < 0 || hi >= len || (uintptr_t)a.buf % a.itemsize) {
        PyBuffer_Release(&a);
        Py_RETURN_NONE;
    }
    double buf[POTRF_MAX * POTRF_MAX], q[POTRF_MAX * POTRF_MAX], tau[POTRF_MAX];
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            int64_t e = off + i * s0 + j * s1;
            double v = f32 ? (double)((const float *)a.buf)[e] : ((const double *)a.buf)[e];
            if (!isfinite(v)) {
                PyBuffer_Release(&a);
                Py_RETURN_NONE;
            }
            buf[j * m + i] = v;
        }
    PyBuffer_Release(&a);
    memset(tau, 0, sizeof(tau));
    int64_t lda = m, info = 0, lwork = -1;
    double query = 0.0;
    dgeqrf_p(&m, &n, buf, &lda, tau, &query, &lwork, &info);
    if (info != 0)
        Py_RETURN_NONE;
    lwork = qr_lwork(query, n);
    double *work = PyMem_Malloc((size_t)lwork * sizeof(double));
    if (work == NULL)
        return PyErr_NoMemory();
    dgeqrf_p(&m, &n, buf, &lda, tau, work, &lwork, &info);
    PyMem_Free(work);
    if (info != 0)
        Py_RETURN_NONE;
    if (qc) {
        /* qr_reduced / qr_complete: the geqrf result's m x n copied into Q's first columns
         * (Q's others are dorgqr's to set), the workspace queried on those same arguments */
        memcpy(q, buf, (size_t)(m * n) * sizeof(double));
        lwork = -1;
        query = 0.0;
        dorgqr_p(&m, &qc, &k, q, &lda, tau, &query, &lwork, &info);
        if (info != 0)
            Py_RETURN_NONE;
        lwork = qr_lwork(query, n);
        work = PyMem_Malloc((size_t)lwork * sizeof(double));
        if (work == NULL)
            return PyErr_NoMemory();
        dorgqr_p(&m, &qc, &k, q, &lda, tau, work, &lwork, &info);
        PyMem_Free(work);
        if (info != 0)
            Py_RETURN_NONE;
    }
    /* R: rows [0, rows) of the factored buffer, zero (+0.0) below the diagonal; column-major */
    int64_t rows = qc ? qc : k;
    double r[POTRF_MAX * POTRF_MAX];
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < rows; i++)
            r[j * rows + i] = i <= j ? buf[j * m + i] : 0.0;
    PyObject *rout = lapack_out(r, rows * n, f32);
    if (rout == NULL)
        return NULL;
    PyObject *qout = qc ? lapack_out(q, m * qc, f32) : (Py_INCREF(Py_None), Py_None);
    if (qout == NULL) {
        Py_DECREF(rout);
        return NULL;
    }
    PyObject *pair = PyTuple_New(2);
    if (pair == NULL) {
        Py_DECREF(rout);
        Py_DECREF(qout);
        return NULL;
    }
    PyTuple_SET_ITEM(pair, 0, qout);
    PyTuple_SET_ITEM(pair, 1, rout);
    return pair;
}

/* gesdd_colmajor(flat, m, n, s0, s1, offset, jobz): NumPy's svd gufunc call (umath_linalg's
 * svd_N / svd_S / svd_A: the (m, n) matrix copied into a column-major float64 buffer, float32
 * widened exactly; dgesdd with jobz 'N', 'S' or 'A' (0, 1, 2), lda = ldu = m, ldvt = max(1, the
 * vt columns: 0, min(m, n) or n), the workspace the routine's own query (1 where it says 0), an
 * iwork of 8 min(m, n), as init_gesdd sets them up) on the (m, n) matrix read as potrf_colmajor
 * reads it (1 <= m, n <= 64; every element finite: NaN and inf are the general path's). Returns
 * (u, s, vt): s a fresh array of flat's dtype and, unless jobz is 'N', U (m, m or k) and Vt (n or
 * k, n) as fresh flat arrays of flat's dtype in column-major order (LAPACK's buffers themselves:
 * PyTorch's layout of svd's factors), else None; float32 rounded once, as the gufunc's astype
 * rounds it. None where LAPACK did not converge (info != 0), the routine is not set up or the
 * arguments are not of that kind. */
typedef void (*dgesdd_fn)(const char *jobz, const int64_t *m, const int64_t *n, double *a, const int64_t *lda,
                          double *s, double *u, const int64_t *ldu, double *vt, const int64_t *ldvt, double *work,
                          const int64_t *lwork, int64_t *iwork, int64_t *info, size_t jobz_len);
static dgesdd_fn dgesdd_p;

static PyObject *py_lapack_setup_svd(PyObject *self, PyObject *args)
{
    unsigned long long address;
    if (!PyArg_ParseTuple(args, "K:lapack_setup_svd", &address))
        return NULL;
    if (address == 0) {
        PyErr_SetString(PyExc_ValueError, "lapack_setup_svd: the routine's address");
        return NULL;
    }
    dgesdd_p = (dgesdd_fn)(uintptr_t)address;
    Py_RETURN_NONE;
}

static PyObject *py_gesdd_colmajor(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "gesdd_colmajor(flat, m, n, s0, s1, offset, jobz) takes 7 arguments");
        return NULL;
    }
    int64_t m = PyLong_AsLongLong(args[1]), n = PyLong_AsLongLong(args[2]), s0 = PyLong_AsLongLong(args[3]),
            s1 = PyLong_AsLongLong(args[4]), off = PyLong_AsLongLong(args[5]), job = PyLong_AsLongLong(args[6]);
    if (PyErr_Occurred())
        return NULL;
    if (dgesdd_p == NULL || lapack_empty == NULL)
        Py_RETURN_NONE;
    if (m < 1 || n < 1 || m > POTRF_MAX || n > POTRF_MAX || job < 0 || job > 2)
        Py_RETURN_NONE;
    Py_buffer a;
    if (PyObject_GetBuffer(args[0], &a, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    int f32 = strcmp(a.format, "f") == 0 && a.itemsize == 4, f64 = strcmp(a.format, "d") == 0 && a.itemsize == 8;
    int64_t len = a.len / (a.itemsize ? a.itemsize : 1);
    int64_t lo = off + (s0 < 0 ? s0 * (m - 1) : 0) + (s1 < 0 ? s1 * (n - 1) : 0);
    int64_t hi = off + (s0 > 0 ? s0 * (m - 1) : 0) + (s1 > 0 ? s1 * (n - 1) : 0);
    if (!(f32 || f64) || a.ndim != 1 || lo < 0 || hi >= len || (uintptr_t)a.buf % a.itemsize) {
        PyBuffer_Release(&a);
        Py_RETURN_NONE;
    }
    double buf[POTRF_MAX * POTRF_MAX], u[POTRF_MAX * POTRF_MAX], vt[POTRF_MAX * POTRF_MAX], s[POTRF_MAX];
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            int64_t e = off + i * s0 + j * s1;
            double v = f32 ? (double)((const float *)a.buf)[e] : ((const double *)a.buf)[e];
            if (!isfinite(v)) {
                PyBuffer_Release(&a);
                Py_RETURN_NONE;
            }
            buf[j * m + i] = v;
        }
    PyBuffer_Release(&a);
    int64_t k = m < n ? m : n;
    const char *jobz = job == 0 ? "N" : (job == 1 ? "S" : "A");
    int64_t ucols = job == 0 ? 0 : (job == 1 ? k : m), vrows = job == 0 ? 0 : (job == 1 ? k : n);
    int64_t lda = m, ldu = m, ldvt = vrows > 1 ? vrows : 1, lwork = -1, info = 0;
    int64_t iwork[8 * POTRF_MAX];
    double query = 0.0;
    dgesdd_p(jobz, &m, &n, buf, &lda, s, u, &ldu, vt, &ldvt, &query, &lwork, iwork, &info, 1);
    if (info != 0)
        Py_RETURN_NONE;
    lwork = (int64_t)query;
    if (lwork == 0)
        lwork = 1;
    double *work = PyMem_Malloc((size_t)lwork * sizeof(double));
    if (work == NULL)
        return PyErr_NoMemory();
    dgesdd_p(jobz, &m, &n, buf, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, &info, 1);
    PyMem_Free(work);
    if (info != 0)
        Py_RETURN_NONE;
    PyObject *sout = lapack_out(s, k, f32);
    if (sout == NULL)
        return NULL;
    PyObject *uout = Py_None, *vout = Py_None;
    if (job) {
        uout = lapack_out(u, m * ucols, f32);
        vout = uout == NULL ? NULL : lapack_out(vt, vrows * n, f32);
        if (vout == NULL) {
            Py_XDECREF(uout);
            Py_DECREF(sout);
            return NULL;
        }
    } else {
        Py_INCREF(Py_None);
        Py_INCREF(Py_None);
    }
    PyObject *triple = PyTuple_New(3);
    if (triple == NULL) {
        Py_DECREF(uout);
        Py_DECREF(sout);
        Py_DECREF(vout);
        return NULL;
    }
    PyTuple_SET_ITEM(triple, 0, uout);
    PyTuple_SET_ITEM(triple, 1, sout);
    PyTuple_SET_ITEM(triple, 2, vout);
    return triple;
}
