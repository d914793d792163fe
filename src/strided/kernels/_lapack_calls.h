/* LAPACK's factorizations called as NumPy's linalg calls them, without its gufuncs' Python and
 * buffers (included by _matkernel.c).
 *
 * lapack_setup(numpy_empty, float32, float64, int32, dpotrf, dsyevd, dgeqrf, dorgqr, dgesdd, sgelsy,
 * dgelsy, dgesv) names
 * the routines (the addresses of the ILP64 scipy_<name>_64_ of NumPy's bundled scipy-openblas, the
 * ones NumPy's gufuncs call; 0 for one the library lacks: its call answers None) and the NumPy
 * dtypes of the results. Each call below takes the matrix whose element (i, j) is
 * flat[offset + i s0 + j s1] (flat: a 1-D float32 or float64 ndarray, native, aligned, contiguous;
 * 1 <= rows, columns <= 64; every element inside flat), copies it into a column-major float64
 * buffer as the gufuncs' linearize_matrix does (float32 widened exactly, as their d->d loops cast),
 * makes the gufunc's LAPACK call(s) with the gufunc's arguments, and returns fresh flat arrays of
 * flat's dtype holding LAPACK's buffers (column-major: PyTorch's layout of these results; float32
 * rounded once, as the gufuncs' output casts round them): the same routine on the same numbers,
 * NumPy's bits. Each answers None where the arguments are not of that kind, the routine is not
 * set up, or LAPACK refused: the caller's general path decides those.
 *
 * potrf_colmajor(flat, n, s0, s1, offset): cholesky_lo's call: dpotrf with uplo "L", the strictly
 * upper triangle zeroed (zero_upper_triangle). Returns (factor, info): the lower factor L and a
 * fresh int32 array of one 0; None where LAPACK refused the matrix (info != 0) or a diagonal
 * element is NaN. */

typedef void (*dpotrf_fn)(const char *uplo, const int64_t *n, double *a, const int64_t *lda, int64_t *info,
                          size_t uplo_len);
typedef void (*dsyevd_fn)(const char *jobz, const char *uplo, const int64_t *n, double *a, const int64_t *lda,
                          double *w, double *work, const int64_t *lwork, int64_t *iwork, const int64_t *liwork,
                          int64_t *info, size_t jobz_len, size_t uplo_len);
typedef void (*dgeqrf_fn)(const int64_t *m, const int64_t *n, double *a, const int64_t *lda, double *tau,
                          double *work, const int64_t *lwork, int64_t *info);
typedef void (*dorgqr_fn)(const int64_t *m, const int64_t *n, const int64_t *k, double *a, const int64_t *lda,
                          const double *tau, double *work, const int64_t *lwork, int64_t *info);
typedef void (*dgesdd_fn)(const char *jobz, const int64_t *m, const int64_t *n, double *a, const int64_t *lda,
                          double *s, double *u, const int64_t *ldu, double *vt, const int64_t *ldvt, double *work,
                          const int64_t *lwork, int64_t *iwork, int64_t *info, size_t jobz_len);
static dpotrf_fn dpotrf_p;
static dsyevd_fn dsyevd_p;
static dgeqrf_fn dgeqrf_p;
static dorgqr_fn dorgqr_p;
typedef void (*sgelsy_fn)(const int64_t *m, const int64_t *n, const int64_t *nrhs, float *a, const int64_t *lda,
                          float *b, const int64_t *ldb, int64_t *jpvt, const float *rcond, int64_t *rank,
                          float *work, const int64_t *lwork, int64_t *info);
typedef void (*dgelsy_fn)(const int64_t *m, const int64_t *n, const int64_t *nrhs, double *a, const int64_t *lda,
                          double *b, const int64_t *ldb, int64_t *jpvt, const double *rcond, int64_t *rank,
                          double *work, const int64_t *lwork, int64_t *info);
static dgesdd_fn dgesdd_p;
typedef void (*dgesv_fn)(const int64_t *n, const int64_t *nrhs, double *a, const int64_t *lda, int64_t *ipiv,
                         double *b, const int64_t *ldb, int64_t *info);
static sgelsy_fn sgelsy_p;
static dgesv_fn dgesv_p;
static dgelsy_fn dgelsy_p;
static PyObject *lapack_empty, *lapack_dtypes[3]; /* numpy.empty; float32, float64, int32 */

static PyObject *py_lapack_setup(PyObject *self, PyObject *args)
{
    unsigned long long potrf, syevd, geqrf, orgqr, gesdd, sgelsy, dgelsy, gesv;
    PyObject *empty, *d[3];
    if (!PyArg_ParseTuple(args, "OOOOKKKKKKKK:lapack_setup", &empty, &d[0], &d[1], &d[2], &potrf, &syevd, &geqrf,
                          &orgqr, &gesdd, &sgelsy, &dgelsy, &gesv))
        return NULL;
    if (!PyCallable_Check(empty)) {
        PyErr_SetString(PyExc_ValueError, "lapack_setup: numpy.empty, the dtypes, then the routines' addresses");
        return NULL;
    }
    Py_INCREF(empty);
    Py_XSETREF(lapack_empty, empty);
    for (int i = 0; i < 3; i++) {
        Py_INCREF(d[i]);
        Py_XSETREF(lapack_dtypes[i], d[i]);
    }
    dpotrf_p = (dpotrf_fn)(uintptr_t)potrf;
    dsyevd_p = (dsyevd_fn)(uintptr_t)syevd;
    dgeqrf_p = (dgeqrf_fn)(uintptr_t)geqrf;
    dorgqr_p = (dorgqr_fn)(uintptr_t)orgqr;
    dgesdd_p = (dgesdd_fn)(uintptr_t)gesdd;
    sgelsy_p = (sgelsy_fn)(uintptr_t)sgelsy;
    dgelsy_p = (dgelsy_fn)(uintptr_t)dgelsy;
    dgesv_p = (dgesv_fn)(uintptr_t)gesv;
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

/* args[first..first + count) as int64s into v: 0, or -1 with Python's error (nargs checked first) */
static int lapack_ints(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want, const char *signature,
                       Py_ssize_t first, Py_ssize_t count, int64_t *v)
{
    if (nargs != want) {
        PyErr_Format(PyExc_TypeError, "%s takes %zd arguments", signature, want);
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++)
        v[i] = PyLong_AsLongLong(args[first + i]);
    return PyErr_Occurred() ? -1 : 0;
}

/* The (m, n) matrix flat[off + i s0 + j s1] read into buf column-major (buf[j m + i]), float32
 * widened; *f32 says which. 1: read; 0: not of that kind (the format, a size outside [1, 64], an
 * element outside flat, or, with ``finite``, an element that is NaN or infinite: the caller answers
 * None); -1: Python's error. */
static int lapack_read(PyObject *flat, int64_t m, int64_t n, int64_t s0, int64_t s1, int64_t off, int finite,
                       double *buf, int *f32)
{
    if (m < 1 || n < 1 || m > POTRF_MAX || n > POTRF_MAX)
        return 0;
    Py_buffer a;
    if (PyObject_GetBuffer(flat, &a, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    int is32 = strcmp(a.format, "f") == 0 && a.itemsize == 4, is64 = strcmp(a.format, "d") == 0 && a.itemsize == 8;
    int64_t len = a.len / (a.itemsize ? a.itemsize : 1);
    /* the lowest and highest elements the layout reads (strides of either sign) */
    int64_t lo = off + (s0 < 0 ? s0 * (m - 1) : 0) + (s1 < 0 ? s1 * (n - 1) : 0);
    int64_t hi = off + (s0 > 0 ? s0 * (m - 1) : 0) + (s1 > 0 ? s1 * (n - 1) : 0);
    int ok = (is32 || is64) && a.ndim == 1 && lo >= 0 && hi < len && !((uintptr_t)a.buf % a.itemsize);
    for (int64_t j = 0; j < n && ok; j++) /* column j of A is the buffer's j-th run of m */
        for (int64_t i = 0; i < m && ok; i++) {
            int64_t e = off + i * s0 + j * s1;
            double v = is32 ? (double)((const float *)a.buf)[e] : ((const double *)a.buf)[e];
            ok = !finite || isfinite(v);
            buf[j * m + i] = v;
        }
    PyBuffer_Release(&a);
    *f32 = is32;
    return ok;
}

/* a new tuple of the n references in items (stolen; each NULL is an error: the others released) */
static PyObject *lapack_tuple(Py_ssize_t n, PyObject **items)
{
    PyObject *t = NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        if (items[i] == NULL)
            goto fail;
    t = PyTuple_New(n);
    if (t == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(t, i, items[i]);
    return t;
fail:
    for (Py_ssize_t i = 0; i < n; i++)
        Py_XDECREF(items[i]);
    return NULL;
}

static PyObject *py_potrf_colmajor(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t v[4]; /* n, s0, s1, offset */
    if (lapack_ints(args, nargs, 5, "potrf_colmajor(flat, n, s0, s1, offset)", 1, 4, v) < 0)
        return NULL;
    int64_t n = v[0];
    double buf[POTRF_MAX * POTRF_MAX];
    int f32 = 0, read = dpotrf_p == NULL || lapack_empty == NULL ? 0 : lapack_read(args[0], n, n, v[1], v[2], v[3], 0, buf, &f32);
    if (read <= 0) {
        if (read < 0)
            return NULL;
        Py_RETURN_NONE;
    }
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
    Py_buffer z;
    PyObject *items[2] = {lapack_out(buf, n * n, f32), lapack_new(1, lapack_dtypes[2], &z)};
    if (items[1] != NULL) {
        memset(z.buf, 0, (size_t)z.len);
        PyBuffer_Release(&z);
    }
    return lapack_tuple(2, items);
}

/* syevd_colmajor(flat, n, s0, s1, offset, lower, vectors): eigh_lo / eigh_up / eigvalsh_lo /
 * eigvalsh_up's call: dsyevd with jobz "V" or "N" and uplo "L" or "U", its workspace sized by the
 * routine's own query first, as init_evd sizes it; every element finite (NaN and inf are the
 * general path's). Returns (w, v): the eigenvalues and, with ``vectors``, the eigenvectors
 * (LAPACK's buffer itself), else None; None where LAPACK did not converge (info != 0). */
static PyObject *py_syevd_colmajor(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t v[4]; /* n, s0, s1, offset */
    if (lapack_ints(args, nargs, 7, "syevd_colmajor(flat, n, s0, s1, offset, lower, vectors)", 1, 4, v) < 0)
        return NULL;
    int lower = PyObject_IsTrue(args[5]), vectors = PyObject_IsTrue(args[6]);
    if (lower < 0 || vectors < 0)
        return NULL;
    int64_t n = v[0];
    double buf[POTRF_MAX * POTRF_MAX], w[POTRF_MAX];
    int f32 = 0, read = dsyevd_p == NULL || lapack_empty == NULL ? 0 : lapack_read(args[0], n, n, v[1], v[2], v[3], 1, buf, &f32);
    if (read <= 0) {
        if (read < 0)
            return NULL;
        Py_RETURN_NONE;
    }
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
    PyObject *items[2] = {lapack_out(w, n, f32), vectors ? lapack_out(buf, n * n, f32) : Py_NewRef(Py_None)};
    return lapack_tuple(2, items);
}

/* LAPACK's workspace as NumPy sizes it: max(1, n, the query's answer) */
static int64_t qr_lwork(double query, int64_t n)
{
    int64_t count = (int64_t)query, lwork = n > 1 ? n : 1;
    return count > lwork ? count : lwork;
}

/* geqrf_colmajor(flat, m, n, s0, s1, offset, q_cols): qr_r_raw's call, then qr_reduced's or
 * qr_complete's: dgeqrf, then dorgqr on a copy of its result, each with the workspace max(1, n,
 * the routine's own query), as init_geqrf / init_gqr_common size it; every element finite (NaN
 * and inf are the general path's). q_cols: Q's columns (min(m, n) for 'reduced', m for 'complete'
 * with m > n) or 0 for no Q (mode 'r': dgeqrf's result alone determines R). Returns (q, r): Q (m,
 * q_cols) and R (rows, n) with rows = q_cols or min(m, n) where q_cols is 0, R the upper triangle
 * of dgeqrf's first rows with +0.0 below (NumPy's triu); q None where q_cols is 0. */
static PyObject *py_geqrf_colmajor(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t v[6]; /* m, n, s0, s1, offset, q_cols */
    if (lapack_ints(args, nargs, 7, "geqrf_colmajor(flat, m, n, s0, s1, offset, q_cols)", 1, 6, v) < 0)
        return NULL;
    int64_t m = v[0], n = v[1], qc = v[5], k = m < n ? m : n;
    double buf[POTRF_MAX * POTRF_MAX], q[POTRF_MAX * POTRF_MAX], tau[POTRF_MAX];
    int f32 = 0, read = 0;
    if (dgeqrf_p != NULL && dorgqr_p != NULL && lapack_empty != NULL && (qc == 0 || qc == k || (qc == m && m > n)))
        read = lapack_read(args[0], m, n, v[2], v[3], v[4], 1, buf, &f32);
    if (read <= 0) {
        if (read < 0)
            return NULL;
        Py_RETURN_NONE;
    }
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
    PyObject *items[2] = {qc ? lapack_out(q, m * qc, f32) : Py_NewRef(Py_None), lapack_out(r, rows * n, f32)};
    return lapack_tuple(2, items);
}

/* svd_N / svd_S / svd_A's dgesdd call on buf (m, n column-major, overwritten) with jobz 0 'N', 1
 * 'S' or 2 'A': lda = ldu = m, ldvt = max(1, the vt rows: 0, min(m, n) or n), the workspace the
 * routine's own query (1 where it says 0), an iwork of 8 min(m, n), as init_gesdd sets them up;
 * s (min(m, n)), u (m, the u columns) and vt (the vt rows, n) LAPACK's buffers. 0 done; 1 where
 * LAPACK did not converge (info != 0); -1 with Python's error. */
static int gesdd_run(double *buf, int64_t m, int64_t n, int64_t job, double *s, double *u, double *vt)
{
    const char *jobz = job == 0 ? "N" : (job == 1 ? "S" : "A");
    int64_t k = m < n ? m : n, vrows = job == 0 ? 0 : (job == 1 ? k : n);
    int64_t lda = m, ldu = m, ldvt = vrows > 1 ? vrows : 1, lwork = -1, info = 0;
    int64_t iwork[8 * POTRF_MAX];
    /* the query's answer depends on (m, n, jobz) alone (LAPACK sizes the work from them and its
     * block sizes): asked once per shape, its call costs a fifth of a 3 x 4 SVD */
    static int64_t known[POTRF_MAX + 1][POTRF_MAX + 1][3];
    int64_t *memo = m <= POTRF_MAX && n <= POTRF_MAX ? &known[m][n][job] : NULL;
    if (memo != NULL && *memo > 0) {
        lwork = *memo;
    } else {
        double query = 0.0;
        dgesdd_p(jobz, &m, &n, buf, &lda, s, u, &ldu, vt, &ldvt, &query, &lwork, iwork, &info, 1);
        if (info != 0)
            return 1;
        lwork = (int64_t)query;
        if (lwork == 0)
            lwork = 1;
        if (memo != NULL)
            *memo = lwork;
    }
    double *work = PyMem_Malloc((size_t)lwork * sizeof(double));
    if (work == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    dgesdd_p(jobz, &m, &n, buf, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, &info, 1);
    PyMem_Free(work);
    return info != 0;
}

/* gesdd_colmajor(flat, m, n, s0, s1, offset, jobz): svd_N / svd_S / svd_A's call (gesdd_run);
 * every element finite (NaN and inf are the general path's). Returns (u, s, vt): s and, unless
 * jobz is 'N', U (m, m or k) and Vt (n or k, n) (LAPACK's buffers themselves), else None; None
 * where LAPACK did not converge (info != 0). */
static PyObject *py_gesdd_colmajor(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t v[6]; /* m, n, s0, s1, offset, jobz */
    if (lapack_ints(args, nargs, 7, "gesdd_colmajor(flat, m, n, s0, s1, offset, jobz)", 1, 6, v) < 0)
        return NULL;
    int64_t m = v[0], n = v[1], job = v[5], k = m < n ? m : n;
    double buf[POTRF_MAX * POTRF_MAX], u[POTRF_MAX * POTRF_MAX], vt[POTRF_MAX * POTRF_MAX], s[POTRF_MAX];
    int f32 = 0, read = 0;
    if (dgesdd_p != NULL && lapack_empty != NULL && job >= 0 && job <= 2)
        read = lapack_read(args[0], m, n, v[2], v[3], v[4], 1, buf, &f32);
    if (read <= 0) {
        if (read < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    int64_t ucols = job == 0 ? 0 : (job == 1 ? k : m), vrows = job == 0 ? 0 : (job == 1 ? k : n);
    int done = gesdd_run(buf, m, n, job, s, u, vt);
    if (done != 0) {
        if (done < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    PyObject *items[3] = {job ? lapack_out(u, m * ucols, f32) : Py_NewRef(Py_None), lapack_out(s, k, f32),
                          job ? lapack_out(vt, vrows * n, f32) : Py_NewRef(Py_None)};
    return lapack_tuple(3, items);
}

/* The pseudo-inverse of gesdd_pinv for one dtype T (float: f32), from dgesdd's reduced U (m, k),
 * S and Vt (k, n) (double, column-major), into p (n, m row-major): linalg_pinv's NumPy steps,
 * each operation rounded in T as NumPy rounds it, the SVD first rounded to T as the gufunc's
 * output cast rounds it (u, vh C-contiguous copies, as _reduced_svd makes them):
 *   tol = maximum(0.0, r * s[0])                  (float64: r a Python float, s[0] widened)
 *   sinv[j] = s[j] > tol ? 1 / s[j] : 0           (the compare in float64, the division in T)
 *   X = conj(vh^T) * sinv                         (X (n, k) column-major: NumPy's K order)
 *   p = X @ conj(u^T)                             (conj(u^T) (k, m) column-major; np.matmul's
 *                                                  gemm(RowMajor, Trans, Trans, n, m, k, 1, X, n,
 *                                                  u, k, 0, p, m), is_blasable2d deciding Trans)
 * gemm: the BLAS routine of T. */
#define PINV_STEPS(NAME, T, GEMM)                                                                  \
    static void NAME(const double *u, const double *s, const double *vt, int64_t m, int64_t n,      \
                     double r, T *p)                                                               \
    {                                                                                              \
        int64_t k = m < n ? m : n;                                                                 \
        T x[POTRF_MAX * POTRF_MAX], y[POTRF_MAX * POTRF_MAX], sinv[POTRF_MAX];                     \
        double top = r * (double)(T)s[0], tol = 0.0 >= top ? 0.0 : top; /* (np.maximum: NaN kept) */ \
        for (int64_t j = 0; j < k; j++) {                                                          \
            T sj = (T)s[j];                                                                        \
            T inv = (T)1 / sj;                                                                     \
            sinv[j] = (double)sj > tol ? inv : (T)0;                                               \
        }                                                                                          \
        for (int64_t j = 0; j < k; j++) /* X[i, j] at j n + i: vh[j, i] = vt[i k + j], scaled */   \
            for (int64_t i = 0; i < n; i++)                                                        \
                x[j * n + i] = (T)vt[i * k + j] * sinv[j];                                         \
        for (int64_t l = 0; l < m; l++) /* conj(u^T)[j, l] at l k + j: u[l, j] = u_lapack[j m + l] */ \
            for (int64_t j = 0; j < k; j++)                                                        \
                y[l * k + j] = (T)u[j * m + l];                                                    \
        GEMM(ROW_MAJOR, TRANS, TRANS, n, m, k, (T)1, x, n, y, k, (T)0, p, m);                      \
    }
PINV_STEPS(pinv_steps_f32, float, k_sgemm)
PINV_STEPS(pinv_steps_f64, double, k_dgemm)

/* gesdd_pinv(flat, m, n, s0, s1, offset, r): linalg_pinv's general path (hermitian False, atol
 * None: the cut-off max(0, r * s_max), r = rtol or eps * max(m, n), a float) on one finite (m, n)
 * matrix read as gesdd_colmajor reads it, 2 <= m, n <= 64: gesdd_colmajor's 'S' call, then
 * PINV_STEPS, the same operations on the same numbers, so the bits are that path's. Returns the
 * pseudo-inverse (n, m) row-major, a fresh flat array of flat's dtype; None where an element is
 * not finite, LAPACK did not converge, a size is under 2 (np.matmul's gemv or dot) or the products'
 * kernel is not set up (the caller's general path then decides). */
static PyObject *py_gesdd_pinv(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t v[5]; /* m, n, s0, s1, offset */
    if (lapack_ints(args, nargs, 7, "gesdd_pinv(flat, m, n, s0, s1, offset, r)", 1, 5, v) < 0)
        return NULL;
    double r = PyFloat_AsDouble(args[6]);
    if (r == -1.0 && PyErr_Occurred())
        return NULL;
    int64_t m = v[0], n = v[1];
    double buf[POTRF_MAX * POTRF_MAX], u[POTRF_MAX * POTRF_MAX], vt[POTRF_MAX * POTRF_MAX], s[POTRF_MAX];
    int f32 = 0, read = 0;
    if (dgesdd_p != NULL && lapack_empty != NULL && k_sgemm != NULL && k_dgemm != NULL && m >= 2 && n >= 2)
        read = lapack_read(args[0], m, n, v[2], v[3], v[4], 1, buf, &f32);
    if (read <= 0) {
        if (read < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    int done = gesdd_run(buf, m, n, 1, s, u, vt);
    if (done != 0) {
        if (done < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    Py_buffer o;
    PyObject *out = lapack_new((Py_ssize_t)(n * m), lapack_dtypes[f32 ? 0 : 1], &o);
    if (out == NULL)
        return NULL;
    if (f32)
        pinv_steps_f32(u, s, vt, m, n, r, (float *)o.buf);
    else
        pinv_steps_f64(u, s, vt, m, n, r, (double *)o.buf);
    PyBuffer_Release(&o);
    return out;
}

/* PyTorch's lapack_work_to_int on a queried size: rounded up past its last ulp (in the routine's
 * own precision), at least 1 */
static int64_t gelsy_lwork(double query, int f32)
{
    double up = f32 ? (double)nextafterf((float)query, INFINITY) : nextafter(query, INFINITY);
    int64_t lwork = (int64_t)ceil(up);
    return lwork > 1 ? lwork : 1;
}

/* One xGELSY, as strided.ops.linalg._lapack.solve calls it, on copies in the routine's precision T
 * of a (m, n column-major, lda m) and b (k columns of rows = max(m, n), ldb rows, zero below row
 * m), LAPACK's B on return written back into b: the workspace sized by the routine's own query
 * (gelsy_lwork) and zeroed, jpvt zeroed, rcond cast to T (as struct's "f" packs a float32's).
 * 0 with *rank set; 1 where LAPACK refused an argument; -1 with Python's error. fn: the routine. */
#define GELSY_RUN(name, T, fn)                                                                              \
    static int name(int64_t m, int64_t n, int64_t k, const double *a, double *b, double rcond,            \
                    int64_t *rank)                                                                         \
    {                                                                                                      \
        int64_t rows = m > n ? m : n, lda = m, ldb = rows, lwork = -1, info = 0;                           \
        int64_t jpvt[POTRF_MAX];                                                                           \
        T af[POTRF_MAX * POTRF_MAX], bf[POTRF_MAX * POTRF_MAX], rc = (T)rcond, query = 0;                  \
        for (int64_t e = 0; e < m * n; e++)                                                                \
            af[e] = (T)a[e];                                                                               \
        for (int64_t e = 0; e < rows * k; e++)                                                             \
            bf[e] = (T)b[e];                                                                               \
        memset(jpvt, 0, sizeof(jpvt));                                                                     \
        *rank = 0;                                                                                         \
        fn(&m, &n, &k, af, &lda, bf, &ldb, jpvt, &rc, rank, &query, &lwork, &info);                        \
        if (info != 0)                                                                                     \
            return 1;                                                                                      \
        lwork = gelsy_lwork((double)query, sizeof(T) == 4);                                                \
        T *work = PyMem_Calloc((size_t)lwork, sizeof(T));                                                  \
        if (work == NULL) {                                                                                \
            PyErr_NoMemory();                                                                              \
            return -1;                                                                                     \
        }                                                                                                  \
        *rank = 0;                                                                                         \
        fn(&m, &n, &k, af, &lda, bf, &ldb, jpvt, &rc, rank, work, &lwork, &info);                          \
        PyMem_Free(work);                                                                                  \
        if (info != 0)                                                                                     \
            return 1;                                                                                      \
        for (int64_t e = 0; e < rows * k; e++)                                                             \
            b[e] = (double)bf[e];                                                                          \
        return 0;                                                                                          \
    }
GELSY_RUN(gelsy_f32, float, sgelsy_p)
GELSY_RUN(gelsy_f64, double, dgelsy_p)

/* gelsy_colmajor(a, m, n, as0, as1, aoffset, b, k, bs0, bs1, boffset, rcond): linalg_lstsq's
 * driver 'gelsy' on one system, as strided.ops.linalg._lapack.solve makes it: sgelsy (float32)
 * or dgelsy (float64) on column-major copies of the finite (m, n) matrix A (element (i, j) at
 * a[aoffset + i as0 + j as1]) and the (m, k) right-hand sides B (element (i, j) at
 * b[boffset + i bs0 + j bs1]; any finite or not), B's copy with max(m, n) rows (zero below m).
 * Both of one dtype, 1 <= m, n, k <= 64. Returns (x, rank): LAPACK's B on return, column-major
 * flat (max(m, n), k) of that dtype (the solution in its first n rows), and the rank; None where
 * the call is not of that kind or LAPACK refused an argument (the general path decides those). */
static PyObject *py_gelsy_colmajor(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    const char *signature = "gelsy_colmajor(a, m, n, as0, as1, aoffset, b, k, bs0, bs1, boffset, rcond)";
    int64_t v[5], w[4]; /* m, n, as0, as1, aoffset; k, bs0, bs1, boffset */
    if (lapack_ints(args, nargs, 12, signature, 1, 5, v) < 0 || lapack_ints(args, nargs, 12, signature, 7, 4, w) < 0)
        return NULL;
    double rcond = PyFloat_AsDouble(args[11]);
    if (rcond == -1.0 && PyErr_Occurred())
        return NULL;
    int64_t m = v[0], n = v[1], k = w[0], rows = m > n ? m : n, rank = 0;
    double a[POTRF_MAX * POTRF_MAX], b[POTRF_MAX * POTRF_MAX];
    int a32 = 0, b32 = 0, read = 0;
    if (sgelsy_p != NULL && dgelsy_p != NULL && lapack_empty != NULL) {
        read = lapack_read(args[0], m, n, v[2], v[3], v[4], 1, a, &a32);
        if (read > 0)
            read = lapack_read(args[6], m, k, w[1], w[2], w[3], 0, b, &b32);
    }
    if (read <= 0 || a32 != b32) {
        if (read < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    /* B's columns spread out in place to rows elements each (LDB = max(m, n)), zero below row m:
     * from the last element back, each moves to an index at least its own */
    for (int64_t j = k - 1; j >= 0; j--)
        for (int64_t i = rows - 1; i >= 0; i--)
            b[j * rows + i] = i < m ? b[j * m + i] : 0.0;
    int done = a32 ? gelsy_f32(m, n, k, a, b, rcond, &rank) : gelsy_f64(m, n, k, a, b, rcond, &rank);
    if (done != 0) {
        if (done < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    PyObject *items[2] = {lapack_out(b, rows * k, a32), PyLong_FromLongLong(rank)};
    return lapack_tuple(2, items);
}

/* gesv_colmajor(a, n, as0, as1, aoffset, b, k, bs0, bs1, boffset): NumPy's solve gufunc's call on
 * one system: dgesv (N = n, NRHS = k, LDA = LDB = n) on column-major float64 copies of the finite
 * (n, n) A (element (i, j) at a[aoffset + i as0 + j as1]) and the (n, k) right-hand sides B read
 * alike (any values), as linearize_matrix copies them, 1 <= n, k <= 64, a and b of one float
 * dtype. Returns the solution, LAPACK's B on return, column-major flat (n, k) of that dtype
 * (float32 rounded once, as the gufunc's output cast); None where A is singular (info != 0: the
 * general path's error or NaN), an element of A is not finite, or the call is not of that kind. */
static PyObject *py_gesv_colmajor(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    const char *signature = "gesv_colmajor(a, n, as0, as1, aoffset, b, k, bs0, bs1, boffset)";
    int64_t v[4], w[4]; /* n, as0, as1, aoffset; k, bs0, bs1, boffset */
    if (lapack_ints(args, nargs, 10, signature, 1, 4, v) < 0 || lapack_ints(args, nargs, 10, signature, 6, 4, w) < 0)
        return NULL;
    int64_t n = v[0], k = w[0], info = 0, ipiv[POTRF_MAX];
    double a[POTRF_MAX * POTRF_MAX], b[POTRF_MAX * POTRF_MAX];
    int a32 = 0, b32 = 0, read = 0;
    if (dgesv_p != NULL && lapack_empty != NULL) {
        read = lapack_read(args[0], n, n, v[1], v[2], v[3], 1, a, &a32);
        if (read > 0)
            read = lapack_read(args[5], n, k, w[1], w[2], w[3], 0, b, &b32);
    }
    if (read <= 0 || a32 != b32) {
        if (read < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    dgesv_p(&n, &k, a, &n, ipiv, b, &n, &info);
    if (info != 0)
        Py_RETURN_NONE;
    return lapack_out(b, n * k, a32);
}
