"""The reductions' and scans' small-size fast paths give exactly what the general paths give.

Each fast path is switched off with monkeypatch (its function answering None) and the two results
compared bit for bit (values incl. -0.0 and NaN, dtype, shape, strides, offset); PyTorch is the
oracle for the values where its kernels round the same way. Layouts: row-major, offset > 0
slices, transposed (the general path), size-1 and zero-size dims.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import strided as st
import strided.ops.reductions.nan_reductions  # noqa: F401  (the modules whose fast paths are switched off)
from strided.kernels import native
from strided.ops.reductions import scans, sums

DTYPES = [np.float32, np.float64, np.int64]
# (shapes with one element per result: both libraries warn about the degrees of freedom)
pytestmark = pytest.mark.filterwarnings("ignore:.*degrees of freedom")


def _layouts(shape: tuple[int, ...], dtype: Any) -> list[tuple[Any, Any]]:
    """(strided, torch) pairs of one array: row-major, an offset>0 row-major slice, a transpose."""
    r = np.random.RandomState(sum(shape) + len(shape))
    big = (r.randn(2, *shape) * 10).astype(dtype)
    if big.dtype.kind == "f" and big.size:
        big.flat[:: 5] = -0.0
        big.flat[3 :: 11] = np.nan
    pairs = [(st.tensor(big[0]), torch.tensor(big[0])), (st.tensor(big)[1], torch.tensor(big)[1])]
    if len(shape) >= 2:
        pairs.append((st.tensor(big[0]).transpose(0, -1), torch.tensor(big[0]).transpose(0, -1)))
    return pairs


def _same(a: Any, b: Any) -> None:
    """Bit-identical strided results (shape, strides, offset, dtype, bytes)."""
    assert (a.shape, a.stride(), a.storage_offset(), a.dtype) == (b.shape, b.stride(), b.storage_offset(), b.dtype)
    assert a.numpy().tobytes() == b.numpy().tobytes()


def _as_torch(a: Any, t: Any, exact: bool = True) -> None:
    assert a.shape == tuple(t.shape)
    if t.numel():  # (an empty result's strides: see diff's docstring Note, PyTorch returns its input)
        assert a.stride() == t.stride()
    assert str(a.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    if exact:
        assert a.numpy().tobytes() == t.numpy().tobytes()
    else:
        np.testing.assert_allclose(a.numpy(), t.numpy(), rtol=1e-6, atol=1e-6, equal_nan=True)


SHAPES = [(3, 4), (1, 5), (4, 1), (6,), (2, 3, 4), (0, 3)]


@pytest.mark.parametrize("dtype", DTYPES)
def test_diff_fast_is_general_and_torch(dtype: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    for shape in SHAPES:
        for s, t in _layouts(shape, dtype):
            for dim in range(-s.ndim, s.ndim):
                fast = st.diff(s, dim=dim)
                _as_torch(fast, torch.diff(t, dim=dim))
                with monkeypatch.context() as m:
                    m.setattr(scans, "_fast_diff", lambda *a: None)
                    _same(fast, st.diff(s, dim=dim))


@pytest.mark.parametrize("dtype", DTYPES)
def test_diff_compiled_is_numpy_and_torch(dtype: Any) -> None:
    """The compiled diff_blocks loop (a row-major input) gives NumPy's subtract and PyTorch's diff bit
    for bit: inf - inf NaN, -0.0, NaN payloads, int64 wrap-around, every dim of longer rows, an
    offset slice; kernels off (NumPy's subtract) gives the same."""
    r = np.random.RandomState(7)
    for shape in [(64, 300), (5, 7, 130), (3, 1, 257), (2, 0, 4), (1000,)]:
        big = (r.randn(2, *shape) * 1e3).astype(dtype)
        if big.dtype.kind == "f" and big.size:
            big.flat[::7] = np.inf
            big.flat[1::9] = -0.0
            big.flat[2::13] = np.nan
            big.flat[4::17] = -np.inf
        elif big.size:
            big.flat[::5] = np.iinfo(np.int64).min
            big.flat[1::5] = np.iinfo(np.int64).max
        for s, t in [(st.tensor(big[0]), torch.tensor(big[0])), (st.tensor(big)[1], torch.tensor(big)[1])]:
            for dim in range(-s.ndim, s.ndim):
                fast = st.diff(s, dim=dim)
                _as_torch(fast, torch.diff(t, dim=dim))
                with native.disabled():
                    _same(fast, st.diff(s, dim=dim))


def test_diff_blocks_refuses() -> None:
    """diff_blocks writes nothing (False) for other formats, mismatched lengths or an overlap."""
    k = native.special()
    if k is None:
        pytest.skip("compiled kernels not built")
    x = np.arange(12.0)
    out = np.full(9, 7.0)
    assert not k.diff_blocks(x.astype(np.int32), out.astype(np.int32), 4, 1)
    assert not k.diff_blocks(x, out.astype(np.float32), 4, 1)
    assert not k.diff_blocks(x, out[:8], 4, 1)
    assert not k.diff_blocks(x, out, 5, 1)
    assert not k.diff_blocks(x, out, 4, 0)
    assert not k.diff_blocks(x, x[:9], 4, 1)
    assert (out == 7.0).all()
    assert k.diff_blocks(x, out, 4, 1) and out.tolist() == [1.0] * 9


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_scans_fast_is_general_and_torch(op: str, dtype: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    for shape in SHAPES:
        for s, t in _layouts(shape, dtype):
            for dim in range(-s.ndim, s.ndim):
                fast = getattr(st, op)(s, dim)
                _as_torch(fast, getattr(torch, op)(t, dim))  # (float32 accumulates in float64 in both)
                with monkeypatch.context() as m:
                    m.setattr(scans, "_fast_scan", lambda *a: None)
                    _same(fast, getattr(st, op)(s, dim))


def test_cumsum_negative_zero_run_and_large() -> None:
    """A leading run of -0.0 sums to +0.0 (PyTorch starts from +0.0), small and past the
    small-array threshold, float32 (fused into the rounding) and float64 (in place)."""
    for n in (3, scans._SMALL_SCAN + 5):
        for dtype in (torch.float32, torch.float64):
            t = torch.full((2, n), -0.0, dtype=dtype)
            t[1, n // 2] = 1.5
            got = st.tensor(t.numpy()).cumsum(1)
            assert got.numpy().tobytes() == t.cumsum(1).numpy().tobytes()


def test_diff_errors_and_grad_unchanged() -> None:
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        st.diff(st.ones(2, 3), dim=2)
    with pytest.raises(RuntimeError, match="diff expects input to be at least one-dimensional"):
        st.diff(st.tensor(1.0))
    x = st.tensor([[1.0, 4.0, 9.0], [2.0, 3.0, 5.0]], requires_grad=True)
    tx = torch.tensor([[1.0, 4.0, 9.0], [2.0, 3.0, 5.0]], requires_grad=True)
    w = np.array([[1.0, -2.0], [3.0, 0.5]], np.float32)
    (st.diff(x) * st.tensor(w)).sum().backward()
    (torch.diff(tx) * torch.tensor(w)).sum().backward()
    assert x.grad.numpy().tobytes() == tx.grad.numpy().tobytes()


def _moments_general(x: Any, dim: Any, keepdim: bool, root: bool) -> tuple[Any, Any]:
    """The general path, which var_mean/std_mean run without their fused pass: var (std) and the
    mean (``mean()``'s), recorded, with PyTorch's var_mean values written over them (float32: the
    mean summed in float64; float64: Welford's updates for both)."""
    v = (st.std if root else st.var)(x, dim, keepdim=keepdim)
    return sums._moments(x, dim, None, keepdim, None, v, root)


@pytest.mark.parametrize("root", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_var_mean_fused_is_var_and_mean(root: bool, dtype: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    fused_op, torch_op = (st.std_mean, torch.std_mean) if root else (st.var_mean, torch.var_mean)
    for shape in [(3, 4), (1, 5), (2, 3, 4)]:
        for s, t in _layouts(shape, dtype):
            for dim in [None, *range(-s.ndim, s.ndim)]:
                for keepdim in (False, True):
                    got = fused_op(s, dim, keepdim=keepdim)
                    for a, b in zip(got, _moments_general(s, dim, keepdim, root), strict=True):
                        _same(a, b)
                    for a, b in zip(got, torch_op(t, dim, keepdim=keepdim), strict=True):
                        _as_torch(a, b, exact=dtype is np.float64)  # (float64: PyTorch's own ways)
                    if dtype is np.float64 and got[0].numel() == 1:
                        continue  # (PyTorch's var alone takes another way to one float64 result: its all-reduce)
                    with monkeypatch.context() as m:  # the single var/std against its general path
                        m.setattr(sums, "_fast_variance", lambda *a, **k: None)
                        _same(got[0], (st.std if root else st.var)(s, dim, keepdim=keepdim))


def test_var_mean_records_and_is_watched_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    x = st.tensor([[1.0, 2.0, 4.0], [3.0, -1.0, 0.5]], requires_grad=True)
    tx = torch.tensor([[1.0, 2.0, 4.0], [3.0, -1.0, 0.5]], requires_grad=True)
    v, m = st.std_mean(x, 1)
    tv, tm = torch.std_mean(tx, 1)
    (v * 2 + m).sum().backward()
    (tv * 2 + tm).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6)
    seen = []
    for fast in (True, False):
        with monkeypatch.context() as m:
            if not fast:
                m.setattr(sums, "_fast_moments", lambda *a: None)
            with st.watch() as w:
                st.var_mean(st.ones(3, 4), 1)
        seen.append([(s.name, s.kind, s.output, s.bytes_allocated) for s in w.steps])
    assert seen[0] == seen[1] and seen[0][-1][0] == "var_mean"


# (op, the module and name of its fast path, switched off to run the general path)
REDUCERS = [("prod", "sums", "fast_reduce"), ("nansum", "nan_reductions", "_fast_nan"),
            ("nanmean", "nan_reductions", "_fast_nan"), ("aminmax", "nan_reductions", "fast_operand")]


@pytest.mark.parametrize("op,module,fast", REDUCERS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reductions_fast_is_general_and_torch(op: str, module: str, fast: str, dtype: Any,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    for shape in [(3, 4), (1, 5), (2, 3, 4), (0, 3)]:
        for s, t in _layouts(shape, dtype):
            for dim in [None, *range(-s.ndim, s.ndim)]:
                for keepdim in (False, True):
                    if dim is None and keepdim and op == "prod":
                        continue  # (prod's dim is one int or None; PyTorch has no keepdim over every dim)
                    if op == "aminmax" and 0 in shape:
                        continue  # (no identity: the general path's errors, tested with the op)
                    args = () if dim is None else (dim,)
                    kw = {"dim": dim} if op == "aminmax" else {}
                    if kw:
                        args = ()
                    got = getattr(st, op)(s, *args, keepdim=keepdim, **kw)
                    want = (getattr(torch, op)(t, *args, keepdim=keepdim, **kw) if args or kw or op != "prod"
                            else torch.prod(t))
                    with monkeypatch.context() as m:
                        m.setattr(getattr(st.ops.reductions, module), fast, lambda *a, **k: None)
                        slow = getattr(st, op)(s, *args, keepdim=keepdim, **kw)
                    for a, b, c in zip(*((got, want, slow) if op == "aminmax" else ((got,), (want,), (slow,))),
                                       strict=True):
                        _as_torch(a, b, exact=False)  # (NaN payloads: NumPy's, not PyTorch's)
                        _same(a, c)


NORMS = {
    "vector_norm": (lambda s, d, k: st.linalg.vector_norm(s, 2, d, k), lambda t, d, k: torch.linalg.vector_norm(t, 2, d, k)),
    "norm": (lambda s, d, k: st.norm(s, dim=d, keepdim=k), lambda t, d, k: torch.norm(t, dim=d, keepdim=k)),
    "dist": (lambda s, d, k: st.dist(s, s.flip(0) if s.ndim else s),
             lambda t, d, k: torch.dist(t, t.flip(0) if t.ndim else t)),
}


@pytest.mark.parametrize("name", sorted(NORMS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_euclidean_norms_fast_is_general_and_torch(name: str, dtype: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from strided.ops.linalg import norms

    ours, theirs = NORMS[name]
    for shape in [(3, 4), (1, 5), (2, 3, 4), (0, 3)]:
        for s, t in _layouts(shape, dtype):
            for dim in [None, *range(-s.ndim, s.ndim)] if name != "dist" else [None]:
                for keepdim in (False, True):
                    got = ours(s, dim, keepdim)
                    _as_torch(got, theirs(t, dim, keepdim), exact=False)
                    with monkeypatch.context() as m:
                        m.setattr(norms, "fast_euclidean", lambda *a: None)
                        _same(got, ours(s, dim, keepdim))


def test_norms_fast_grads_and_nan_sign() -> None:
    w = np.array([[3.0, -4.0, 0.5], [1.0, 2.0, -2.0]], np.float32)
    for name, (ours, theirs) in NORMS.items():
        x = st.tensor(w, requires_grad=True)
        tx = torch.tensor(w, requires_grad=True)
        dim = None if name == "dist" else 1
        ours(x, dim, False).sum().backward()
        theirs(tx, dim, False).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6)
    # (PyTorch's kernels square x itself: a -NaN's square, and the norm, keep the sign bit; this
    # pinned NumPy's |x| first, a positive NaN, before strided followed PyTorch's 2-norm kernels)
    neg_nan = np.array([-np.nan, 1.0], np.float32)
    assert np.signbit(np.float32(st.linalg.vector_norm(st.tensor(neg_nan)).item())) == np.signbit(
        torch.linalg.vector_norm(torch.tensor(neg_nan)).numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_trapezoid_fused_is_the_composition(dtype: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from strided.ops.reductions import integration

    for shape in [(3, 4), (5,), (2, 3, 5), (1, 2)]:
        for s, t in _layouts(shape, dtype):
            for dx in (None, 0.1, 3):
                kw = {} if dx is None else {"dx": dx}
                for dim in range(-s.ndim, s.ndim):
                    got = st.trapezoid(s, dim=dim, **kw), st.cumulative_trapezoid(s, dim=dim, **kw)
                    want = torch.trapezoid(t, dim=dim, **kw), torch.cumulative_trapezoid(t, dim=dim, **kw)
                    for a, b in zip(got, want, strict=True):
                        _as_torch(a, b, exact=False)
                    with monkeypatch.context() as m:
                        m.setattr(integration, "_fast_operand", lambda *a: None)
                        slow = st.trapezoid(s, dim=dim, **kw), st.cumulative_trapezoid(s, dim=dim, **kw)
                    for a, b in zip(got, slow, strict=True):
                        _same(a, b)


def test_trapezoid_grad_as_torch() -> None:
    w = np.array([[1.0, 3.0, 2.0], [0.5, -1.0, 4.0]], np.float32)
    x, tx = st.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    (st.trapezoid(x, dx=0.5).sum() + st.cumulative_trapezoid(x, dim=0).sum()).backward()
    (torch.trapezoid(tx, dx=0.5).sum() + torch.cumulative_trapezoid(tx, dim=0).sum()).backward()
    assert x.grad.numpy().tobytes() == tx.grad.numpy().tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logsumexp_and_logcumsumexp_fast_are_general(dtype: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from strided.ops.reductions import nan_reductions

    inf_rows = np.array([[-np.inf, -np.inf, -np.inf], [np.inf, 1.0, 2.0], [1e30, 1e30, -1e30]], dtype)
    cases = [*(p for shape in [(3, 4), (1, 5), (2, 3, 4), (0, 3)] for p in _layouts(shape, dtype)),
             (st.tensor(inf_rows), torch.tensor(inf_rows))]
    for s, t in cases:
        for dim in range(-s.ndim, s.ndim):
            for keepdim in (False, True):
                got = st.logsumexp(s, dim, keepdim=keepdim)
                _as_torch(got, torch.logsumexp(t, dim, keepdim=keepdim), exact=False)
                with monkeypatch.context() as m:
                    m.setattr(nan_reductions, "_fast_logsumexp", lambda *a: None)
                    _same(got, st.logsumexp(s, dim, keepdim=keepdim))
            got = st.logcumsumexp(s, dim)
            _as_torch(got, torch.logcumsumexp(t, dim), exact=False)
            with monkeypatch.context() as m:
                m.setattr(scans, "_fast_logcumsumexp", lambda *a: None)
                _same(got, st.logcumsumexp(s, dim))


# (call, the module and name of its fast path): each watched with the fast path on and off
WATCHED = [
    (lambda x: st.diff(x), "scans", "_fast_diff"), (lambda x: st.cumsum(x, 1), "scans", "_fast_scan"),
    (lambda x: st.logcumsumexp(x, 1), "scans", "_fast_logcumsumexp"),
    (lambda x: st.prod(x, 1), "sums", "fast_reduce"), (lambda x: st.std(x, 1), "sums", "_fast_variance"),
    (lambda x: st.nansum(x, 1), "nan_reductions", "_fast_nan"),
    (lambda x: st.logsumexp(x, 1), "nan_reductions", "_fast_logsumexp"),
    (lambda x: st.norm(x, dim=1), "norms", "fast_euclidean"),
    (lambda x: st.trapezoid(x, dx=0.5), "integration", "_fast_operand"),
]


@pytest.mark.parametrize("case", range(len(WATCHED)))
def test_watch_sees_the_same_steps(case: int, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    call, module, name = WATCHED[case]
    package = "strided.ops.linalg" if module == "norms" else "strided.ops.reductions"
    mod = importlib.import_module(f"{package}.{module}")
    x = st.tensor(np.arange(12.0, dtype=np.float32).reshape(3, 4))
    seen = []
    for fast in (True, False):
        with monkeypatch.context() as m:
            if not fast:
                m.setattr(mod, name, lambda *a, **k: None)
            with st.watch() as w:
                out = call(x)
        seen.append(([(s.name, s.kind, s.output, s.bytes_allocated, s.bytes_copied, s.reason) for s in w.steps],
                     out.numpy().tobytes()))
    assert seen[0] == seen[1] and seen[0][0]


GRADS = {
    "prod": (lambda x: st.prod(x, 1), lambda t: torch.prod(t, 1)),
    "nansum": (lambda x: st.nansum(x, 1), lambda t: torch.nansum(t, 1)),
    "nanmean": (lambda x: st.nanmean(x), lambda t: torch.nanmean(t)),
    "logsumexp": (lambda x: st.logsumexp(x, 0), lambda t: torch.logsumexp(t, 0)),
    "logcumsumexp": (lambda x: st.logcumsumexp(x, 1), lambda t: torch.logcumsumexp(t, 1)),
    "cumsum": (lambda x: st.cumsum(x, 0), lambda t: torch.cumsum(t, 0)),
    "var": (lambda x: st.var(x, 1), lambda t: torch.var(t, 1)),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_fast_paths_still_record(name: str) -> None:
    """A Parameter (requires_grad) input: the forward may take the fast path, the entry still
    records, and the gradient is PyTorch's."""
    w = np.array([[1.5, -2.0, 0.5], [3.0, 0.25, -1.0]], np.float32)
    ours, theirs = GRADS[name]
    x = st.nn.Parameter(st.tensor(w))
    tx = torch.nn.Parameter(torch.tensor(w))
    g = np.arange(1.0, 1.0 + ours(x).numel(), dtype=np.float32).reshape(ours(x).shape)
    (ours(x) * st.tensor(g)).sum().backward()
    (theirs(tx) * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_full_extremes_compiled_is_numpys_reduce_and_torch(dtype: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """max()/min()/amax()/amin() of a whole row-major tensor by the compiled row kernel: NumPy's
    reduce's bits (its own call where the answer is a zero or NaN), PyTorch's values."""
    from strided.kernels import rows

    r = np.random.RandomState(3)
    arrays = [(r.randn(*s) * 10).astype(dtype) for s in ((3, 4), (16, 16), (1,), (7,), (2, 3, 5))]
    arrays += [np.array([-0.0, 0.0, -1.0], dtype), np.array([0.0, -0.0, -2.0], dtype), np.array([-1.0, -0.0], dtype),
               np.array([1.0, np.nan, 3.0], dtype), np.array([np.inf, -np.inf], dtype), np.array([-5.0, 1e-40], dtype)]

    def run() -> list:
        out = []
        for a in arrays:
            for t, tt in ((st.tensor(a), torch.tensor(a)), (st.tensor(np.concatenate([a.reshape(-1), a.reshape(-1)]))[a.size:],
                                                           torch.tensor(a.reshape(-1)))):
                for name in ("max", "min", "amax", "amin"):
                    got, want = getattr(t, name)(), getattr(tt, name)()
                    assert got.shape == tuple(want.shape) and got.dtype.name == str(want.dtype).split(".")[1]
                    np.testing.assert_array_equal(got.numpy(), want.numpy())
                    out.append(got.numpy().tobytes())
        return out

    fast = run()
    monkeypatch.setattr(rows, "_kernel_module", lambda: None)
    assert fast == run()
