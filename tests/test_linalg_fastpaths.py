"""The linalg shortcuts, each against the path it short-cuts and against torch 2.13:

- ``cholesky_ex`` / ``cholesky`` of one matrix that LAPACK refuses: no second factorization and no
  symmetrized copy (the batch path still does both): the same ``info``, NaN factor and error
  text as the same matrix as a batch of one, whatever the ignored upper triangle holds;
- ``colmajor`` (every LAPACK-backed result's layout) from 256 KB: the tiled copy kernel instead
  of NumPy's transposing copy: the same bytes and strides as ``np.swapaxes(arr, -1, -2).copy()``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
from strided.dtypes import from_numpy_dtype
from strided.kernels import native
from strided.ops._support.front import fallback_of
from strided.ops.linalg import _batched as LA


def _bits(t: strided.Tensor) -> bytes:
    return np.ascontiguousarray(t.numpy()).tobytes()


def _chol_or_error(a: np.ndarray, transposed: bool = False, **kw: object) -> tuple:
    t = strided.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2))).mT if transposed else strided.tensor(a)
    try:
        L, info = strided.linalg.cholesky_ex(t, **kw)
    except Exception as e:  # noqa: BLE001 (the error is the result compared)
        # (the first line, PyTorch's; the second names the shape, which differs by the batch dim)
        return type(e), str(e).replace("(Batch element 0): ", "").splitlines()[0]
    return L.shape, L.stride(), L.dtype, _bits(L), info.shape, info.dtype, info.tolist()


_DTYPES = ["float32", "float64", "complex64", "complex128"]


@settings(max_examples=150, deadline=None)
@given(n=st.integers(1, 9), seed=st.integers(0, 2**32 - 1), dtype=st.sampled_from(_DTYPES),
       shift=st.sampled_from([0.0, 0.5, 2.0, 20.0]), nan=st.booleans(), upper=st.booleans(),
       check=st.booleans(), transposed=st.booleans(), zeros=st.booleans())
def test_one_matrix_equals_its_batch_of_one(n: int, seed: int, dtype: str, shift: float, nan: bool,
                                             upper: bool, check: bool, transposed: bool, zeros: bool) -> None:
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (n, n)) + shift * np.eye(n)
    if "complex" in dtype:
        a = a + 1j * rng.uniform(-1, 1, (n, n))
    if nan:
        a[rng.integers(n), rng.integers(n)] = np.nan
    if zeros:  # (-0.0 below the diagonal: the batch path's symmetrized copy holds +0.0 there)
        a[rng.random((n, n)) < 0.3] = -0.0
    a = a.astype(dtype)
    one = _chol_or_error(a, transposed, upper=upper, check_errors=check)
    batch = _chol_or_error(a[None], transposed, upper=upper, check_errors=check)
    if isinstance(one[0], type):
        assert one == batch
        return
    shape, strides, dt, bits, ishape, idt, info = batch
    assert one == (shape[1:], strides[1:], dt, bits, (), idt, info[0])


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_one_failed_matrix_info_equals_torch_and_ignores_upper_triangle(seed: int, dtype: str) -> None:
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.1, 0.9, (16, 16)).astype(dtype)  # (the bench's input: not symmetric, fails early)
    sym = np.tril(a) + np.tril(a, -1).T
    L, info = strided.linalg.cholesky_ex(strided.tensor(a))
    assert info.dtype == strided.int32 and info.shape == ()
    assert info.item() == torch.linalg.cholesky_ex(torch.tensor(a)).info.item() > 0
    assert L.stride() == (1, 16) and np.isnan(L.numpy()).all()
    assert _bits(L) == _bits(strided.linalg.cholesky_ex(strided.tensor(sym)).L)
    assert info.item() == strided.linalg.cholesky_ex(strided.tensor(sym)).info.item()
    with pytest.raises(strided.linalg.LinAlgError) as ours:
        strided.linalg.cholesky(strided.tensor(a))
    with pytest.raises(torch.linalg.LinAlgError) as theirs:
        torch.linalg.cholesky(torch.tensor(a))
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


@pytest.mark.parametrize("shape, dtype", [((1024, 1024), "float32"), ((3, 130, 170), "float64"),
                                          ((2, 256, 128), "complex64"), ((1, 2, 300, 220), "float32")])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
def test_colmajor_kernel_copy_equals_numpy_copy(shape: tuple, dtype: str, layout: str) -> None:
    rng = np.random.default_rng(0)
    arr = rng.standard_normal(shape).astype(dtype)
    if "complex" in dtype:
        arr = arr + 1j * rng.standard_normal(shape).astype(dtype)
    if layout == "transposed":
        arr = np.ascontiguousarray(np.swapaxes(arr, -1, -2)).swapaxes(-1, -2)
    elif layout == "sliced":
        arr = np.concatenate([arr, arr], axis=-1)[..., ::2]
    arr[..., 0, 1] = -0.0
    arr[..., 1, 0] = np.nan
    assert arr.nbytes >= native.MIN_BYTES
    t = LA.colmajor(arr, from_numpy_dtype(arr.dtype))
    m, n = shape[-2:]
    expected = np.swapaxes(arr, -1, -2).copy()
    assert t.shape == shape and t.stride()[-2:] == (1, m)
    assert np.ascontiguousarray(t.mT.numpy()).tobytes() == expected.tobytes()
    with native.disabled():  # (the kernel off: copy_into's NumPy strips, the same bytes)
        t2 = LA.colmajor(arr, from_numpy_dtype(arr.dtype))
    assert t2.stride() == t.stride() and _bits(t2) == _bits(t)


def test_large_inverse_strides_and_values_equal_torch() -> None:
    rng = np.random.default_rng(1)
    a = (rng.uniform(-1, 1, (300, 300)) + 30 * np.eye(300)).astype(np.float32)
    ours = strided.linalg.inv(strided.tensor(a))
    theirs = torch.linalg.inv(torch.tensor(a))
    assert ours.stride() == theirs.stride() == (1, 300)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)
    from strided.ops.linalg import mkl_lapack

    if mkl_lapack.mkl_library() is None:  # (with MKL: PyTorch's getrf/getrs, tests/test_lapack37.py)
        assert _bits(ours) == np.ascontiguousarray(np.linalg.inv(a)).tobytes()


# ---------------------------------------------------------------- kron / outer: the compiled kron2

from strided.ops.linalg import matmul as M  # noqa: E402
from strided.ops.linalg import products as P  # noqa: E402

_SPECIAL = [0.0, -0.0, 1.0, -1.5, np.inf, -np.inf, 1e-45, 3e38, -7e-39, 2.0**-1074, 1e308, 0.1]


def _vals(rng: np.random.Generator, shape: tuple, dtype: str, nan: bool) -> np.ndarray:
    pool = np.array(_SPECIAL + [np.nan] * nan)
    v = np.where(rng.random(shape) < 0.5, rng.choice(pool, shape), rng.standard_normal(shape) * 1e3)
    with np.errstate(over="ignore", under="ignore"):
        return v.astype(dtype)


def _same(x: strided.Tensor, y: strided.Tensor) -> None:
    assert x.shape == y.shape and x.stride() == y.stride() and x.dtype == y.dtype
    assert _bits(x) == _bits(y)


@settings(max_examples=80, deadline=None)
@given(m=st.integers(1, 9), n=st.integers(1, 9), p=st.integers(1, 9), q=st.integers(1, 40),
       vector=st.booleans(), dtype=st.sampled_from(["float32", "float64"]), nan=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
def test_kron_kernel_equals_numpy_twin_and_torch(m: int, n: int, p: int, q: int, vector: bool, dtype: str,
                                                  nan: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    sa, sb = ((n,), (q,)) if vector else ((m, n), (p, q))
    x, y = _vals(rng, sa, dtype, nan), _vals(rng, sb, dtype, nan)
    ours = strided.kron(strided.tensor(x), strided.tensor(y))
    with native.disabled():  # (the NumPy twin: one broadcast np.multiply)
        twin = strided.kron(strided.tensor(x), strided.tensor(y))
    _same(ours, twin)
    theirs = torch.kron(torch.tensor(x), torch.tensor(y))
    assert ours.stride() == theirs.stride()
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    # (no NaN: every bit, -0.0 and inf * 0's NaN included, is torch's)
    if not np.isnan(theirs.numpy()).any():
        assert _bits(ours) == theirs.numpy().tobytes()


@settings(max_examples=80, deadline=None)
@given(m=st.integers(1, 300), q=st.integers(1, 300), dtype=st.sampled_from(["float32", "float64"]),
       nan=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_outer_kernel_equals_general_path_and_torch(m: int, q: int, dtype: str, nan: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x, y = _vals(rng, (m,), dtype, nan), _vals(rng, (q,), dtype, nan)
    ours = strided.outer(strided.tensor(x), strided.tensor(y))
    a, b = strided.tensor(x), strided.tensor(y)
    general = strided.mul(a.reshape(m, 1), b)  # (outer's general path, as written there)
    _same(ours, general)
    theirs = torch.outer(torch.tensor(x), torch.tensor(y))
    assert ours.stride() == theirs.stride()
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    if not np.isnan(theirs.numpy()).any():
        assert _bits(ours) == theirs.numpy().tobytes()


def test_outer_falls_through_where_a_condition_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(8).astype("float32"), rng.standard_normal(6).astype("float32")
    calls: list = []
    real = P.kron_native

    def spy(*args: object) -> object:
        calls.append(args[2:])
        return real(*args)

    monkeypatch.setattr(M, "kron_native", spy)
    M._mk.ready()
    compiled = M._mk.outer  # (the one-call entry, where built: the offset case's fast path too)
    monkeypatch.setattr(M._mk, "outer", lambda a, b: (r := compiled(a, b)) is not None and calls.append("compiled") or r)
    T = strided.tensor  # noqa: N806
    cases = {
        "strided slice": (T(np.repeat(x, 2))[::2], T(y)),
        "offset": (T(np.concatenate([y, x]))[6:], T(y)),
        "float64 with float32": (T(x.astype("float64")), T(y)),
        "int64": (T(np.arange(8)), T(np.arange(6))),
        "2-D": (T(x).reshape(2, 4), T(y)),
        "empty": (T(x[:0]), T(y)),
    }
    for name, (a, b) in cases.items():
        calls.clear()
        try:
            got = strided.outer(a, b)
        except RuntimeError as e:
            assert name == "2-D" and "Expected 1-D argument self" in str(e)
            continue
        ta, tb = torch.tensor(a.numpy()), torch.tensor(b.numpy())
        want = torch.outer(ta, tb)
        assert got.dtype.name == str(want.dtype).split(".")[1] and got.stride() == want.stride(), name
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert calls in ([["compiled"], [(8, 1, 1, 6)]] if name == "offset" else [[]]), name
    # autograd: the composition records it (MulBackward0's gradients, torch's)
    a, b = strided.tensor(x, requires_grad=True), strided.tensor(y, requires_grad=True)
    ta, tb = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
    strided.outer(a, b).pow(2).sum().backward()
    torch.outer(ta, tb).pow(2).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-5)


def test_outer_and_kron_report_as_the_general_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, c, d = strided.ones(4), strided.ones(3), strided.ones(2, 2), strided.ones(3, 1)

    def steps() -> tuple:
        with strided.watch() as w:
            strided.outer(a, b)
            strided.kron(c, d)
        return [s.name for s in w.steps], w.table()

    fast = steps()
    assert fast[0] == ["outer", "kron"]
    monkeypatch.setattr(M, "_fast_outer", lambda a, b: None)
    monkeypatch.setattr(P, "_fast_kron", lambda a, b: None)
    assert steps() == fast


# ---------------------------------------------------------------- median / nanmedian of all elements

from strided.ops.reductions import order_stats as O  # noqa: E402


@settings(max_examples=150, deadline=None)
@given(shape=st.sampled_from([(), (1,), (3, 4), (16, 16), (2, 3, 5), (1025,), (7,)]),
       dtype=st.sampled_from(["float32", "float64"]), nan=st.booleans(), zeros=st.booleans(),
       layout=st.sampled_from(["contiguous", "transposed", "offset"]), seed=st.integers(0, 2**32 - 1))
def test_flat_median_equals_general_path_and_torch(shape: tuple, dtype: str, nan: bool, zeros: bool, layout: str,
                                                    seed: int) -> None:
    rng = np.random.default_rng(seed)
    pool = np.array([0.0, -0.0] * (3 * zeros) + [np.inf, -np.inf, 1.0, 1.0, -2.5, 1e-45, 7.0] + [np.nan] * nan)
    n = int(np.prod(shape))
    v = np.where(rng.random(shape) < 0.6, rng.choice(pool, shape), rng.integers(-3, 4, shape)).astype(dtype)
    tv = torch.tensor(v)
    if layout == "transposed" and len(shape) >= 2:  # (its memory order decides torch's -0.0 or 0.0)
        base = strided.tensor(np.ascontiguousarray(v.T)).T
        tv = torch.tensor(np.ascontiguousarray(v.T)).T
    elif layout == "offset":
        base = strided.tensor(np.concatenate([v.reshape(-1), v.reshape(-1)]))[n:].reshape(shape)
    else:
        base = strided.tensor(v)
    for name in ("median", "nanmedian"):
        ours = getattr(strided, name)(base)
        with pytest.MonkeyPatch.context() as m:
            m.setattr(O, "_fast_flat_median", lambda x, skip_nan: None)
            general = getattr(strided, name)(base)
        _same(ours, general)
        theirs = getattr(torch, name)(tv)
        assert ours.shape == tuple(theirs.shape) and ours.dtype.name == str(theirs.dtype).split(".")[1]
        if not np.isnan(theirs.item()):  # (torch's NaN bits: the general path's rule, tested there)
            assert _bits(ours) == theirs.numpy().tobytes(), (name, v)
        else:
            assert np.isnan(ours.item())


def test_flat_median_fast_path_runs_only_where_it_may(monkeypatch: pytest.MonkeyPatch) -> None:
    hits: list = []
    real = O._fast_flat_median
    monkeypatch.setattr(O, "_fast_flat_median", lambda x, s: hits.append(r := real(x, s)) or r)
    T = strided.tensor  # noqa: N806
    median = fallback_of(strided.median)  # (the compiled front's flat_median runs before this path)
    assert median(T([[3.0, 1.0], [2.0, 5.0]])).item() == 2.0 and hits[-1] is not None
    for t in (T([0.0, -0.0, 1.0]), T([1.0, np.nan, 2.0]), T([1, 2, 3]), T(np.ones(1025)),
              T([[3.0, 1.0], [2.0, 5.0]]).T, T([1.0, 2.0], dtype=strided.float16)):
        median(t)
        assert hits[-1] is None, t
    x = T([3.0, 1.0, 2.0], requires_grad=True)
    strided.median(x).backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0]


# ---------------------------------------------------------------- qr: NumPy's steps without its wrapper

from strided.ops.linalg import factorizations as FZ  # noqa: E402


@settings(max_examples=80, deadline=None)
@given(m=st.integers(1, 7), n=st.integers(1, 7), batch=st.sampled_from([(), (2,), (2, 1)]),
       dtype=st.sampled_from(_DTYPES), complete=st.booleans(), special=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_qr_steps_equal_numpys_call(m: int, n: int, batch: tuple, dtype: str, complete: bool, special: bool,
                                    seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((*batch, m, n))
    if "complex" in dtype:
        a = a + 1j * rng.standard_normal(a.shape)
    if special:
        a.reshape(-1)[rng.integers(a.size, size=2)] = [np.nan, np.inf]
    a = a.astype(dtype)
    q, r = FZ._numpy_qr(a, complete)
    with np.errstate(all="ignore"):
        wq, wr = np.linalg.qr(a, mode="complete" if complete else "reduced")
    for got, want in ((q, wq), (r, wr)):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == np.ascontiguousarray(want).tobytes()


@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (16, 16), (2, 5, 3)])
def test_qr_equals_its_numpy_fallback_and_torch(mode: str, shape: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    a = np.random.default_rng(5).uniform(0.1, 0.9, shape).astype("float32")
    Q, R = strided.linalg.qr(strided.tensor(a), mode=mode)
    monkeypatch.setattr(FZ, "_QR_RUN", None)  # (NumPy's own call)
    Q2, R2 = strided.linalg.qr(strided.tensor(a), mode=mode)
    _same(Q, Q2)
    _same(R, R2)
    tq, tr = torch.linalg.qr(torch.tensor(a), mode=mode)
    assert Q.shape == tuple(tq.shape) and R.shape == tuple(tr.shape)
    assert R.stride() == tr.stride() and (mode == "r" or Q.stride() == tq.stride())
    if mode != "r":  # (Q R rebuilds A; the columns' signs are LAPACK's choice)
        np.testing.assert_allclose((Q @ R).numpy(), a, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("signal", [FloatingPointError, RuntimeError])
def test_qr_falls_back_to_numpys_call_on_its_error_signal(signal: type, monkeypatch: pytest.MonkeyPatch) -> None:
    a = np.random.default_rng(6).standard_normal((4, 3))
    calls: list = []

    def refused(*args: object, **kw: object) -> None:
        calls.append(args[0])
        raise signal("invalid value encountered")  # (NumPy's invalid flag; a busy context)

    monkeypatch.setattr(FZ, "_QR_RUN", refused)
    q, r = FZ._numpy_qr(a, False)
    wq, wr = np.linalg.qr(a)
    assert calls and q.tobytes() == wq.tobytes() and r.tobytes() == wr.tobytes()


# ---------------------------------------------------------------- cholesky: NumPy's gufunc without its wrapper


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 8), batch=st.sampled_from([(), (3,), (2, 2)]), dtype=st.sampled_from(_DTYPES),
       seed=st.integers(0, 2**32 - 1))
def test_cholesky_gufunc_equals_numpys_call_per_matrix(n: int, batch: tuple, dtype: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((*batch, n, n))
    if "complex" in dtype:
        a = a + 1j * rng.standard_normal(a.shape)
    a = a @ np.swapaxes(a, -1, -2).conj() + rng.choice([0.0, n], (*batch, 1, 1)) * np.eye(n)
    a = (a - np.where(rng.random((*batch, 1, 1)) < 0.3, 2 * n, 0) * np.eye(n)).astype(dtype)
    low = FZ._numpy_cholesky(a)
    assert low.dtype == a.dtype and low.shape == a.shape
    for got, m in zip(low.reshape(-1, n, n), a.reshape(-1, n, n), strict=True):
        try:
            want = np.linalg.cholesky(m)
        except np.linalg.LinAlgError:
            assert np.isnan(got).all()  # (a refused matrix: all NaN, the others untouched)
            continue
        assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 3, 16])
def test_one_matrix_cholesky_ex_equals_the_general_path(dtype: str, n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """cholesky_ex of one float matrix (the gufunc's float64 factor cast straight into the
    column-major result): the general path's bits, strides and info for factored, refused and
    NaN matrices, row-major and transposed, and torch's info."""
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n))
    spd = a @ a.T + n * np.eye(n)
    nan = spd.copy()
    nan[-1, 0] = np.nan
    for m in (spd, -spd, nan, spd * 1e30):
        t = strided.tensor(m.astype(dtype))
        for x in (t, t.t()):
            fast = strided.linalg.cholesky_ex(x)
            with monkeypatch.context() as mp:
                mp.setattr(FZ, "_fast_cholesky_ex", lambda A: None)
                slow = strided.linalg.cholesky_ex(x)
            assert fast.L.stride() == slow.L.stride() and fast.info.stride() == slow.info.stride() == ()
            assert _bits(fast.L) == _bits(slow.L) and fast.info.item() == slow.info.item()
            assert fast.info.item() == torch.linalg.cholesky_ex(torch.from_numpy(np.asarray(x))).info.item()


def test_cholesky_falls_back_to_numpys_call_without_its_gufunc(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(2)
    a = rng.uniform(0.1, 0.9, (3, 6, 6)).astype("float32")
    a[0] = a[0] @ a[0].T + 6 * np.eye(6, dtype="float32")
    a[2] = a[2] @ a[2].T + 6 * np.eye(6, dtype="float32")
    fast = _chol_or_error(a)
    monkeypatch.setattr(FZ, "_CHOLESKY_RUN", None)
    assert _chol_or_error(a) == fast
    assert fast[-1] == torch.linalg.cholesky_ex(torch.tensor(a)).info.tolist() and fast[-1][0] == 0


@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_rowmajor_copy_equals_ascontiguousarray(dtype: str) -> None:
    a = np.random.default_rng(4).standard_normal((300, 400)).astype(dtype)
    for view in (a, a.T, a[::2, ::-1], np.asfortranarray(a)):
        got = LA.rowmajor_copy(view)
        assert got.flags.c_contiguous and got.tobytes() == np.ascontiguousarray(view).tobytes()
    assert LA.rowmajor_copy(a) is a


def test_large_permuted_failed_cholesky_equals_its_batch_of_one() -> None:
    a = np.random.default_rng(8).uniform(0.1, 0.9, (200, 200)).astype("float32")
    a += np.diag(np.linspace(60, -40, 200, dtype="float32"))  # (fails at a minor well inside)
    one, batch = _chol_or_error(a, True), _chol_or_error(a[None], True)
    assert one[-1] == batch[-1][0] == torch.linalg.cholesky_ex(torch.tensor(a)).info.item() > 1


# ---------------------------------------------------------------- cross: the compiled cross3 without the checks


@settings(max_examples=100, deadline=None)
@given(shape=st.sampled_from([(3,), (3, 4), (4, 3), (2, 3, 5), (3, 3), (1, 3, 1)]), neg=st.booleans(),
       dtype=st.sampled_from(["float32", "float64"]), face=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_cross_fast_path_equals_general_path_and_torch(shape: tuple, neg: bool, dtype: str, face: bool,
                                                       seed: int) -> None:
    rng = np.random.default_rng(seed)
    x, y = _vals(rng, shape, dtype, True), _vals(rng, shape, dtype, True)
    d = shape.index(3) - (len(shape) if neg else 0)

    def run(lib: object) -> object:
        a, b = lib.tensor(x), lib.tensor(y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return lib.cross(a, b) if face else lib.linalg.cross(a, b, dim=d)

    ours = run(strided)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(P, "_fast_cross", lambda *a: None)
        general = run(strided)
    _same(ours, general)
    theirs = run(torch)
    assert ours.stride() == theirs.stride()
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_cross_falls_through_where_a_condition_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    hits: list = []
    real = P._fast_cross
    monkeypatch.setattr(P, "_fast_cross", lambda *a: hits.append(r := real(*a)) or r)
    rng = np.random.default_rng(9)
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    S, T = strided.tensor, torch.tensor  # noqa: N806
    strided.linalg.cross(S(x), S(y), dim=0)
    assert hits[-1] is not None
    cases = [((x, y[:, :1]), 0), ((x.astype("float32"), y), 0), ((x.astype("int64"), y.astype("int64")), 0),
             ((x, y), 1), ((x, y), 2), ((x[:, :0], y[:, :0]), 0)]
    for (a, b), dim in cases:
        try:
            got = strided.linalg.cross(S(a), S(b), dim=dim)
        except (RuntimeError, IndexError) as e:
            with pytest.raises((RuntimeError, IndexError)) as t:
                torch.linalg.cross(T(a), T(b), dim=dim)
            assert isinstance(e, IndexError) == isinstance(t.value, IndexError)
            assert str(e).splitlines()[0] == str(t.value).splitlines()[0]
        else:
            want = torch.linalg.cross(T(a), T(b), dim=dim)
            assert got.stride() == want.stride()
            np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert hits[-1] is None, (a.shape, b.shape, a.dtype, dim)
    t = S(x).T.contiguous().T  # (a transposed layout: the general path)
    strided.linalg.cross(t, S(y), dim=0)
    assert hits[-1] is None
    a, b = S(x, requires_grad=True), S(y, requires_grad=True)
    ta, tb = T(x, requires_grad=True), T(y, requires_grad=True)
    strided.linalg.cross(a, b, dim=0).pow(2).sum().backward()
    torch.linalg.cross(ta, tb, dim=0).pow(2).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-12)


def test_cross_reports_as_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = strided.ones(3, 2), strided.ones(3, 2)

    def steps() -> tuple:
        with strided.watch() as w, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            strided.cross(a, b)
            strided.linalg.cross(a, b, dim=0)
        return [s.name for s in w.steps], w.table()

    fast = steps()
    assert fast[0] == ["cross", "linalg_cross"]
    monkeypatch.setattr(P, "_fast_cross", lambda *a: None)
    assert steps() == fast


# ---------------------------------------------------------------- inv / solve: NumPy's gufuncs without the wrapper


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 7), k=st.integers(1, 4), batch=st.sampled_from([((), ()), ((2,), ()), ((), (3,)), ((2, 1), (3,))]),
       dtype=st.sampled_from(_DTYPES), singular=st.booleans(), special=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_inv_and_solve_gufuncs_equal_numpys_calls(n: int, k: int, batch: tuple, dtype: str, singular: bool,
                                                   special: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((*batch[0], n, n))
    b = rng.standard_normal((*batch[1], n, k))
    if "complex" in dtype:
        a, b = a + 1j * rng.standard_normal(a.shape), b + 1j * rng.standard_normal(b.shape)
    if singular:
        a[..., 0, :] = 0
    if special:
        a.reshape(-1)[rng.integers(a.size)] = rng.choice([np.nan, np.inf, -0.0])
    a, b = a.astype(dtype), b.astype(dtype)
    for ours, theirs, args in ((LA.numpy_inv, np.linalg.inv, (a,)), (LA.numpy_solve, np.linalg.solve, (a, b))):
        try:
            want = theirs(*args)
        except np.linalg.LinAlgError:
            with pytest.raises(np.linalg.LinAlgError):
                ours(*args)
            continue
        got = ours(*args)
        assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


def test_inv_and_solve_fall_back_without_their_gufuncs(monkeypatch: pytest.MonkeyPatch) -> None:
    a = np.random.default_rng(1).standard_normal((2, 4, 4)).astype("float32")
    x, y = strided.linalg.inv(strided.tensor(a)), strided.linalg.solve(strided.tensor(a), strided.tensor(a[0]))
    monkeypatch.setattr(LA, "_SOLVE_RUN", None)
    _same(x, strided.linalg.inv(strided.tensor(a)))
    _same(y, strided.linalg.solve(strided.tensor(a), strided.tensor(a[0])))
    with pytest.raises(strided.linalg.LinAlgError, match="singular"):
        strided.linalg.inv(strided.zeros(3, 3))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 7), batch=st.sampled_from([(), (3,)]), dtype=st.sampled_from(_DTYPES),
       uplo=st.sampled_from(["L", "U"]), special=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_eigvalsh_gufunc_equals_numpys_call_and_nonfinite_rule(n: int, batch: tuple, dtype: str, uplo: str,
                                                                special: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((*batch, n, n))
    if "complex" in dtype:
        a = a + 1j * rng.standard_normal(a.shape)
    a = a.astype(dtype)
    got, want = LA.numpy_eigvalsh(a, uplo), np.linalg.eigvalsh(a, UPLO=uplo)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    if special:
        a.reshape(-1)[rng.integers(a.size)] = rng.choice([np.nan, np.inf])
    ours = strided.linalg.eigvalsh(strided.tensor(a), UPLO=uplo)
    # (only the UPLO triangle LAPACK reads counts, as in PyTorch: test_redteam_lin9)
    finite = np.isfinite(np.tril(a) if uplo == "L" else np.triu(a)).all(axis=(-2, -1))
    safe = np.where(finite[..., None, None], a, 0)
    expected = np.where(finite[..., None], np.linalg.eigvalsh(safe, UPLO=uplo), np.nan).astype(want.dtype)
    assert ours.numpy().tobytes() == expected.tobytes()


# ---------------------------------------------------------------- a permuted float32 batch cast in its own order


def _permuted(shape: tuple, dtype: str, kind: str, rng: np.random.Generator) -> np.ndarray:
    a = rng.standard_normal(shape)
    if "complex" in dtype:
        a = a + 1j * rng.standard_normal(shape)
    a = (a + shape[-1] * np.eye(shape[-1])).astype(dtype)  # (well conditioned: each op succeeds)
    if kind == "transposed":
        return np.ascontiguousarray(np.swapaxes(a, -1, -2)).swapaxes(-1, -2)
    return _interleaved(a)[..., ::2]  # (strided columns)


def _interleaved(a: np.ndarray) -> np.ndarray:
    """(..., n, 2n): ``a``'s columns at the even positions."""
    big = np.zeros((*a.shape[:-1], 2 * a.shape[-1]), a.dtype)
    big[..., ::2] = a
    return big


@pytest.mark.parametrize("dtype", ["float32", "complex64", "float64"])
@pytest.mark.parametrize("kind", ["transposed", "sliced"])
@pytest.mark.parametrize("shape", [(140, 140), (2, 100, 100)])
def test_precast_permuted_inputs_give_numpys_bits(dtype: str, kind: str, shape: tuple) -> None:
    from strided.ops.linalg import mkl_lapack

    if dtype != "complex64" and mkl_lapack.mkl_library() is not None:
        # (tests/test_lapack37.py runs this test under STRIDED_BLAS=openblas, and MKL's against torch)
        pytest.skip("MKL installed: float32/float64 take PyTorch's MKL calls, not NumPy's")
    rng = np.random.default_rng(12)
    a = _permuted(shape, dtype, kind, rng)
    b = _permuted(shape, dtype, kind, rng)
    assert not a.flags.c_contiguous and (a.nbytes >= LA.PRECAST_MIN or dtype == "float64")
    t, u = strided.tensor(np.ascontiguousarray(a)), strided.tensor(np.ascontiguousarray(b))
    if kind == "transposed":  # (the same values in the permuted layout)
        t = strided.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2))).mT
        u = strided.tensor(np.ascontiguousarray(np.swapaxes(b, -1, -2))).mT
    else:
        t = strided.tensor(_interleaved(np.ascontiguousarray(a)))[..., ::2]
        u = strided.tensor(_interleaved(np.ascontiguousarray(b)))[..., ::2]
    assert t._np().strides == a.strides
    h = a @ np.swapaxes(a, -1, -2).conj()
    th = strided.tensor(np.ascontiguousarray(np.swapaxes(h, -1, -2))).mT
    with np.errstate(all="ignore"):
        checks = [
            (strided.linalg.det(t), np.linalg.det(a)),
            (strided.linalg.slogdet(t).logabsdet, np.linalg.slogdet(a)[1]),
            (strided.linalg.inv(t), np.linalg.inv(a)),
            (strided.linalg.solve(t, u), np.linalg.solve(a, b)),
            (strided.linalg.eigvalsh(t), np.linalg.eigvalsh(a)),
            (strided.linalg.cholesky(th), np.linalg.cholesky(h)),
        ]
    for ours, want in checks:
        want = np.asarray(want)
        assert ours.shape == want.shape and ours.numpy().tobytes() == np.ascontiguousarray(want).tobytes()


def test_inverse_and_solve_of_a_batch_with_a_nan_matrix_equal_torch() -> None:
    a = np.random.default_rng(13).standard_normal((3, 4, 4)) + 4 * np.eye(4)
    a[1, 0, 2] = np.nan
    for ours, theirs in ((strided.linalg.inv(strided.tensor(a)), torch.linalg.inv(torch.tensor(a))),
                         (strided.linalg.solve(strided.tensor(a), strided.tensor(a[0])),
                          torch.linalg.solve(torch.tensor(a), torch.tensor(a[0])))):
        o, t = ours.numpy(), theirs.numpy()
        assert np.isnan(o[1]).all() and np.isnan(t[1]).all() and not np.isnan(o[[0, 2]]).any()
        np.testing.assert_allclose(o[[0, 2]], t[[0, 2]], rtol=1e-10, atol=1e-14)
