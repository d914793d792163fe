"""softmax / log_softmax's compiled rows and the fast paths of issue 23's softmax / scan rows.

Rows along a C-contiguous last dim of float32 / float64 are ``_specialkernel.softmax_rows``'
(PyTorch's order of operations) on the fast path and the general path alike: the two agree bit
for bit, with the kernel and under ``native.disabled()`` (the NumPy formula), and both are
within float tolerance of PyTorch (-inf rows, all -inf rows, NaN and +inf included). Gradients,
watch records and errors are those of the general path. Where the kernel is not built the two
kernel tests would compare the NumPy formula with itself, so they are not collected
(tests/test_native_special.py's ``test_the_kernel_is_built`` fails then wherever a compiler is).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native
from strided.kernels.elementwise import relu_array
from strided.kernels.reduce import softmax_rows
from strided.ops.reductions import scans, sums
from strided.ops.reductions import softmax as softmax_module

# (PyTorch's softmax runs its rows in parallel: on a loaded two-core machine a call took 7 ms of
# CPU with the default threads, 8 us with one; test_elementwise sets the same)
torch.set_num_threads(1)
NATIVE = native.special() is not None
OPS = ["softmax", "log_softmax"]


def _same(a: Any, b: Any) -> None:
    """Bit-identical strided results (shape, strides, offset, dtype, bytes)."""
    assert (a.shape, a.stride(), a.storage_offset(), a.dtype) == (b.shape, b.stride(), b.storage_offset(), b.dtype)
    assert a.numpy().tobytes() == b.numpy().tobytes()


def _close(a: Any, t: torch.Tensor) -> None:
    """Same shape, strides, dtype as PyTorch's; values within float tolerance, NaN where NaN."""
    assert a.shape == tuple(t.shape) and a.stride() == t.stride()
    assert str(a.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    tol = 2e-6 if t.dtype == torch.float32 else 1e-14
    np.testing.assert_allclose(a.numpy(), t.numpy(), rtol=tol, atol=tol, equal_nan=True)


def _inputs(dtype: Any) -> list[tuple[Any, Any]]:
    """(strided, torch) pairs: row-major, an offset>0 row-major slice, size-1 and zero-size dims,
    0-d, a transpose, a sliced (non-contiguous) view, an expanded one; specials in the rows."""
    r = np.random.RandomState(7)
    big = (r.randn(2, 5, 6) * 20).astype(dtype)
    big[0, 1, 2] = np.inf
    big[0, 2, :] = -np.inf  # (an all -inf row: NaN, as PyTorch)
    big[0, 3, ::2] = -np.inf
    big[1, 4, 4] = np.nan
    big[1, 0, 0] = -0.0
    s, t = st.tensor(big), torch.tensor(big)
    views = [
        lambda x: x[0], lambda x: x[1], lambda x: x[1, 1:], lambda x: x[0, :, :1], lambda x: x[0, :1],
        lambda x: x[:, :0], lambda x: x[1, 2, 3], lambda x: x[0].t(), lambda x: x[0, :, ::2],
        lambda x: x[1, 0].expand(3, 6), lambda x: x[1, 1], lambda x: x,
    ]
    return [(v(s), v(t)) for v in views]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fast_is_general_and_torch(op: str, dtype: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    for use_native in (True, False):
        with native.disabled() if not use_native else _nothing():
            for s, t in _inputs(dtype):
                for dim in range(-max(s.ndim, 1), max(s.ndim, 1)):
                    fast = getattr(st, op)(s, dim)
                    if use_native:  # (PyTorch's answer once: the NumPy formula is compared with the kernel below)
                        _close(fast, getattr(torch, op)(t, dim))
                    with monkeypatch.context() as m:
                        m.setattr(softmax_module, "_fast_softmax", lambda *a: None)
                        _same(fast, getattr(st, op)(s, dim))


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_vector_lanes_keep_every_bit(dtype: Any) -> None:
    """Every length around the vector widths (AVX-512 / AVX2 / SSE2 clones of the compiled loop)
    with NaNs (payloads, signaling), -0.0, infinities and subnormals at every lane: the bits of
    the NumPy formula."""
    it = np.uint32 if dtype == np.float32 else np.uint64
    specials = np.array([-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-40, -1e-310, -1.0, 2.0], dtype)
    rng = np.random.default_rng(4)
    for n in [*range(0, 70), 1000, 4099]:
        x = rng.standard_normal(n).astype(dtype)
        pick = rng.random(n) < 0.3
        x[pick] = rng.choice(specials, int(pick.sum()))
        if n > 5:
            x.view(it)[n // 2] = 0x7F800001 if dtype == np.float32 else 0x7FF0000000000001  # (signaling)
        assert relu_array(x).tobytes() == _relu_numpy(x).tobytes(), n


if NATIVE:  # (see the module docstring)

    @pytest.mark.parametrize("dtype", [np.float32, np.float64])
    def test_rows_of_every_length_against_torch_and_numpy(dtype: Any) -> None:
        """Row lengths around the vector widths (the lane sums' tails) and one long row; the
        kernel within tolerance of PyTorch and of the NumPy formula it replaces."""
        r = np.random.RandomState(3)
        for n in [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 65, 8193]:
            x = (r.randn(3 if n < 100 else 1, n) * 8).astype(dtype)
            if n > 2:
                x[0, n // 2] = -np.inf
            for op in OPS:
                got = getattr(st, op)(st.tensor(x), -1)
                _close(got, getattr(torch, op)(torch.tensor(x), -1))
                with native.disabled():
                    numpy_formula = getattr(st, op)(st.tensor(x), -1)
                _close(got, torch.tensor(numpy_formula.numpy()))


    def test_kernel_refuses_bad_buffers_and_overlap() -> None:
        k = native.special()
        x = np.arange(6.0)
        with pytest.raises(ValueError, match="multiple of n"):
            k.softmax_rows(x, np.empty(6), 4, False)
        with pytest.raises(ValueError, match="one format"):
            k.softmax_rows(x, np.empty(6, np.float32), 3, False)
        with pytest.raises(ValueError, match="float32 or float64"):
            k.softmax_rows(np.arange(6), np.empty(6, np.int64), 3, False)
        with pytest.raises(ValueError, match="n >= 1"):
            k.softmax_rows(np.empty(0), np.empty(0), 0, False)
        with pytest.raises(TypeError, match="4 arguments"):
            k.softmax_rows(x, x)
        with pytest.raises(ValueError, match="not C-contiguous"):
            k.softmax_rows(x[::2], np.empty(3), 3, False)
        before = x.copy()
        assert k.softmax_rows(x, x, 3, True) is False  # (an overlap: nothing written)
        np.testing.assert_array_equal(x, before)
        out = np.empty((2, 3))
        assert softmax_rows(x.reshape(2, 3), out, False)
        np.testing.assert_allclose(out.sum(1), [1.0, 1.0])
        assert not softmax_rows(x.reshape(3, 2).T, np.empty((2, 3)), False)  # (not C-contiguous: the caller computes)


@pytest.mark.parametrize("op", OPS)
def test_grad_watch_and_errors_unchanged(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    w = np.array([[1.5, -2.0, 0.5], [3.0, 0.25, -1.0]], np.float32)
    x = st.nn.Parameter(st.tensor(w))
    tx = torch.nn.Parameter(torch.tensor(w))
    g = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)
    (getattr(st, op)(x, -1) * st.tensor(g)).sum().backward()
    (getattr(torch, op)(tx, -1) * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    seen = []
    for fast in (True, False):
        with monkeypatch.context() as m:
            if not fast:
                m.setattr(softmax_module, "_fast_softmax", lambda *a: None)
            with st.watch() as wt:
                out = getattr(st, op)(st.tensor(w), 1)
        seen.append(([(s.name, s.kind, s.output, s.bytes_allocated, s.bytes_copied, s.reason) for s in wt.steps],
                     out.numpy().tobytes()))
    assert seen[0] == seen[1] and seen[0][0]
    for bad in (2, -3):
        with pytest.raises(IndexError) as ours:
            getattr(st, op)(st.tensor(w), bad)
        with pytest.raises(IndexError) as theirs:
            getattr(torch, op)(torch.tensor(w), bad)
        assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


# ---------------------------------------------------------------- cumsum / cumprod: the compiled scan


def _scan_inputs(dtype: Any) -> list[Any]:
    """Row-major tensors (the compiled scan's domain) and a few it declines: size-1 and zero-size
    dims, 0-d, an offset>0 slice, leading -0.0 runs, inf/NaN, the _SMALL_SCAN boundary."""
    r = np.random.RandomState(5)
    big = (r.randn(2, 4, 5) * 3).astype(dtype)
    big[0, 0, :3] = -0.0
    big[0, :2, 0] = -0.0
    big[1, 2, 1] = np.inf
    big[1, 3, 2] = np.nan
    big[0, 3, 3] = 0.0
    x = st.tensor(big)
    n = scans._SMALL_SCAN
    edge = st.tensor(r.randn(n + 1).astype(dtype))
    return [x, x[1], x[1, 1:], x[0, :, :1], x[:, :0], x[1, 2, 3], x[0].t(), x[0, :, ::2], x[1, 0].expand(3, 5),
            edge[:n], edge, edge[1:].reshape(8, n // 8)]


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scan_fast_is_general_with_and_without_the_kernel(op: str, dtype: Any, monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    for s in _scan_inputs(dtype):
        for dim in range(-max(s.ndim, 1), max(s.ndim, 1)):
            fast = getattr(st, op)(s, dim)
            with native.disabled():
                _same(fast, getattr(st, op)(s, dim))  # (the NumPy scan: the same bits)
            with monkeypatch.context() as m:
                m.setattr(scans, "_fast_scan", lambda *a: None)
                _same(fast, getattr(st, op)(s, dim))
            if s.numel() <= 64:
                t = torch.tensor(s.numpy())
                assert fast.numpy().tobytes() == getattr(torch, op)(t, dim).numpy().tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scan_kernel_nan_answer_is_nan_ends(dtype: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled scan's answer (2: a line of its result ends in NaN, True otherwise), which
    _fast_scan takes as its NaN test, is _nan_ends of that result, on runs with NaN, +-inf (inf -
    inf: NaN), huge values, -0.0 and subnormals, along either axis; and cumsum/cumprod with a NaN
    anywhere are the general path's bits."""
    r = np.random.RandomState(5)
    specials = [np.nan, np.inf, -np.inf, 3e38, -3e38, -0.0, 1e-40, 0.0]
    k = native.special()
    for trial in range(300 if k is not None else 0):
        shape = (int(r.randint(1, 6)), int(r.randint(1, 9)))
        run = (r.randn(*shape) * 10.0 ** r.randint(-30, 30)).astype(dtype)
        for _ in range(r.randint(0, 3)):
            run[r.randint(shape[0]), r.randint(shape[1])] = specials[r.randint(len(specials))]
        for axis in (0, 1):
            out = np.empty(shape, dtype)
            got = k.scan(run, out, shape[axis], run.strides[axis] // run.itemsize, trial % 2 == 0)
            assert got in (True, 2) and (got == 2) == scans._nan_ends(out, axis), (run, out, axis, got)
            assert (got == 2) == bool(np.isnan(out).any())
    bound = 1 << 12  # (the old dot test's size bound: both sides)
    for n in (bound - 1, bound, bound + 1, 12):
        v = r.randn(n).astype(dtype)
        for at in (0, n // 2, n - 1):
            w = v.copy()
            w[at] = np.nan
            for shape in ((n,), (1, n)) if n != 12 else ((3, 4), (12,)):
                x = st.tensor(w.reshape(shape))
                for op in ("cumsum", "cumprod"):
                    for dim in range(len(shape)):
                        fast = getattr(st, op)(x, dim)
                        with monkeypatch.context() as m:
                            m.setattr(scans, "_fast_scan", lambda *a: None)
                            _same(fast, getattr(st, op)(x, dim))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (PyTorch overflows silently; so does the NaN test)
        assert st.cumsum(st.tensor([3e38, 3e38, 1.0]), 0).tolist()[1] == float("inf")


if NATIVE:  # (see the module docstring)

    def test_scan_kernel_refuses_bad_buffers_and_overlap() -> None:
        k = native.special()
        x = np.arange(1.0, 7.0)
        with pytest.raises(ValueError, match="multiple of n"):
            k.scan(x, np.empty(6), 4, 1, False)
        with pytest.raises(ValueError, match="one format"):
            k.scan(x, np.empty(6, np.float32), 3, 1, False)
        with pytest.raises(ValueError, match="inner >= 1"):
            k.scan(x, np.empty(6), 3, 0, False)
        with pytest.raises(TypeError, match="5 or 6 arguments"):
            k.scan(x, x, 3)
        before = x.copy()
        assert k.scan(x, x, 3, 1, True) is False  # (an overlap: nothing written)
        np.testing.assert_array_equal(x, before)
        assert k.scan(np.ones(4097), np.empty(4097), 4097, 1, False) is True  # (no size limit: test_scan_large)
        out = np.empty(6)
        assert k.scan(x, out, 2, 3, True) is True  # (along a leading dim: columns 1*4, 2*5, 3*6)
        np.testing.assert_array_equal(out, [1.0, 2.0, 3.0, 4.0, 10.0, 18.0])


def test_scan_grad_and_watch_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    w = np.array([[1.5, -2.0, 0.5], [3.0, 0.25, -1.0]], np.float32)
    for op in ("cumsum", "cumprod"):
        x = st.nn.Parameter(st.tensor(w))
        tx = torch.nn.Parameter(torch.tensor(w))
        (getattr(st, op)(x, 1) * st.tensor(w)).sum().backward()
        (getattr(torch, op)(tx, 1) * torch.tensor(w)).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
        seen = []
        for fast in (True, False):
            with monkeypatch.context() as m:
                if not fast:
                    m.setattr(scans, "_fast_scan", lambda *a: None)
                with st.watch() as wt:
                    out = getattr(st, op)(st.tensor(w), 0)
            seen.append(([(s.name, s.kind, s.bytes_allocated, s.bytes_copied, s.reason) for s in wt.steps],
                         out.numpy().tobytes()))
        assert seen[0] == seen[1] and seen[0][0]


# ---------------------------------------------------------------- var / std (/ _mean): the compiled rows


def _variance_inputs(dtype: Any) -> list[Any]:
    """Row-major rows (the kernel's domain: every element or the last dim) and what it declines:
    a transpose, dim 0, one element per row, zero-size, 0-d, past VAR_MAX; specials inside."""
    r = np.random.RandomState(9)
    big = (r.randn(2, 4, 5) * 3 + 40).astype(dtype)
    big[0, 0, 0] = -0.0
    big[1, 2, 1] = np.inf
    big[1, 3, 2] = np.nan
    x = st.tensor(big)
    edge = st.tensor(r.randn(sums._VAR_MAX + 1).astype(dtype))
    return [x, x[1], x[1, 1:], x[0, :, :1], x[:, :0], x[1, 2, 3], x[0].t(), x[0, :, ::2], x[1, 0],
            edge[: sums._VAR_MAX].reshape(2, -1), edge, edge[1:199].reshape(3, 66)]


@pytest.mark.filterwarnings("ignore:.*degrees of freedom")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_variance_fast_is_general_with_and_without_the_kernel(dtype: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    for s in _variance_inputs(dtype):
        for dim in [None, *range(-max(s.ndim, 1), max(s.ndim, 1))]:
            for keepdim in (False, True):
                for op in ("var", "std", "var_mean", "std_mean"):
                    fast = getattr(st, op)(s, dim, keepdim=keepdim)
                    with native.disabled():
                        numpy_path = getattr(st, op)(s, dim, keepdim=keepdim)
                    with monkeypatch.context() as m:
                        m.setattr(sums, "_fast_variance", lambda *a, **k: None)
                        general = getattr(st, op)(s, dim, keepdim=keepdim)
                    for a, b, c in zip(*((r,) if op in ("var", "std") else r for r in (fast, numpy_path, general))):
                        _same(a, b)
                        _same(a, c)
        t = torch.tensor(s.numpy())
        if s.numel() > 1 and s.ndim:
            _close(st.std(s, -1), torch.std(t, -1))  # (PyTorch's Welford: equal within rounding)


if NATIVE:  # (see the module docstring)

    def test_variance_kernel_refuses_bad_buffers_overlap_and_large() -> None:
        k = native.special()
        x = np.arange(6.0)
        v, m = np.empty(2), np.empty(2)
        with pytest.raises(ValueError, match="one element per row"):
            k.variance_rows(x, np.empty(3), np.empty(3), 3, 2.0, False)
        with pytest.raises(ValueError, match="one format"):
            k.variance_rows(x, np.empty(2, np.float32), m, 3, 2.0, False)
        with pytest.raises(ValueError, match="n >= 1"):
            k.variance_rows(x, v, m, 0, 2.0, False)
        with pytest.raises(TypeError, match="6 or 7 arguments"):
            k.variance_rows(x, v, m)
        assert k.variance_rows(x, x[:2], m, 3, 2.0, False) is False  # (an overlap: nothing written)
        np.testing.assert_array_equal(x, np.arange(6.0))
        assert k.variance_rows(np.ones(8193), v[:1], m[:1], 8193, 8192.0, False) is False  # (past VAR_MAX)
        assert k.variance_rows(x, v, m, 3, 2.0, True) is True
        np.testing.assert_array_equal(v, [1.0, 1.0])
        np.testing.assert_array_equal(m, [1.0, 4.0])


@pytest.mark.skipif(native.special() is None, reason="compiled kernels not built")
@pytest.mark.parametrize("root", [False, True])
def test_variance_rows_wide_float32_is_variance_parts_and_torch(root: bool) -> None:
    """variance_rows' wide mode (float32 rows, float64 accumulation): variance_parts' float32
    computation bit for bit (the float64 mean as centre but for one row, which centres on the
    float32 mean; with wide=2 the float64 mean returned, rounded once: var_mean's), for rows around the pairwise blocks and splits, one
    row or many, values offset far from 0 (cancellation); and var/std/var_mean through strided
    equal PyTorch's where variance_parts does."""
    from strided.kernels.reduce import variance_parts

    k = native.special()
    rng = np.random.default_rng(41)
    for rows, n in ((1, 2), (1, 7), (3, 8), (2, 129), (1, 1000), (5, 255), (1, 8192), (2, 4096), (64, 3)):
        x = (rng.standard_normal((rows, n)) * 10.0 ** rng.integers(-6, 6) + rng.uniform(-50, 50)).astype(np.float32)
        v, m = np.empty(rows, np.float32), np.empty(rows, np.float32)
        assert k.variance_rows(x.reshape(-1), v, m, n, n - 1.0, root, 2) is True
        want_v, want_m = variance_parts(x if rows > 1 else x.reshape(-1), 1 if rows > 1 else None,
                                        np.dtype(np.float32), n, np.float64(n - 1.0), root, True)
        assert v.tobytes() == want_v.reshape(-1).tobytes() and m.tobytes() == want_m.reshape(-1).tobytes(), (rows, n)
        assert m.tobytes() == torch.var_mean(torch.from_numpy(x), 1)[1].numpy().tobytes()  # (var_mean's mean)
        v1 = np.empty(rows, np.float32)  # (var alone: the same variance, no float64 mean asked for)
        assert k.variance_rows(x.reshape(-1), v1, np.empty(rows, np.float32), n, n - 1.0, root, 1) is True
        assert v1.tobytes() == v.tobytes()
        t = torch.from_numpy(x)
        got = st.from_numpy(x).std(1) if root else st.from_numpy(x).var(1)
        ref = t.std(1) if root else t.var(1)
        assert got.numpy().tobytes() == v.tobytes()
        assert (got.numpy() == ref.numpy()).mean() >= 0.9  # (torch's Welford steps: ~all equal)


# ---------------------------------------------------------------- relu: the compiled max(x, 0)


def _relu_numpy(x: np.ndarray) -> np.ndarray:
    """relu_array's NumPy formula (what runs without the kernel); a 0-d x as a 0-d array."""
    out = np.array(np.maximum(x, x.dtype.type(0)))
    np.copyto(out, x, where=x == 0)
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_kernel_is_numpy_formula_general_path_and_torch(dtype: Any) -> None:
    """(The NumPy formula is also called directly; native.disabled() reaches the fast path's kernel
    too since relu_array runs outside fpstate's shared quiet Context: tests/test_redteam_soft.py.)"""
    it = np.uint32 if dtype == np.float32 else np.uint64
    x = np.array([-1.0, -0.0, 0.0, 2.0, np.nan, -np.nan, np.inf, -np.inf, 1e-40, -1e-310] * 3, dtype)
    x.view(it)[10] |= 5  # (NaN payloads, a signaling NaN: copied as they are)
    x.view(it)[11] = 0x7F800001 if dtype == np.float32 else 0x7FF0000000000001
    assert relu_array(x).tobytes() == _relu_numpy(x).tobytes()
    base = st.tensor(x)
    for s in (base, base[1:], base.reshape(3, 10)[:, 1:], base.reshape(3, 10).t(), base[:0], base[3]):
        got = st.relu(s)
        assert got.numpy().tobytes() == _relu_numpy(s.numpy()).tobytes()
        general = st.empty(s.shape, dtype=s.dtype)
        assert st.relu(s, out=general) is general  # (the out= general path: relu_kernel)
        assert got.numpy().tobytes() == general.numpy().tobytes()
        want = torch.relu(torch.tensor(s.numpy())).numpy()
        g = got.numpy()
        nan = np.isnan(want)
        assert (np.isnan(g) == nan).all() and g[~nan].tobytes() == want[~nan].tobytes()
    if NATIVE:
        k = native.special()
        with pytest.raises(ValueError, match="one format and length"):
            k.relu(x, np.empty(3, dtype))
        with pytest.raises(TypeError, match="2 arguments"):
            k.relu(x)
        assert k.relu(x, x) is False  # (an overlap: nothing written)


if NATIVE:  # (see the module docstring)

    @pytest.mark.parametrize("dtype", [np.float32, np.float64])
    @pytest.mark.parametrize("log", [False, True])
    def test_row_maximum_vectorized_rows_zero_sign_and_nan(dtype: Any, log: bool) -> None:
        """Rows of 16 and more take the vectorized maximum where they hold no NaN: a zero maximum's
        sign (which -0.0 or +0.0 comes first) changes no bit of the result; a NaN row is all NaN
        (the scalar loop's first NaN); finite rows with -inf stay within PyTorch's tolerance."""
        r = np.random.RandomState(11)
        for n in (15, 16, 17, 31, 64, 100):
            x = (r.randn(6, n) * 4 - 30).astype(dtype)
            x[0, 3], x[0, n - 2] = -0.0, 0.0  # (the maximum is a zero of either sign, -0.0 first)
            x[1, 2], x[1, n - 1] = 0.0, -0.0
            x[2, n // 2] = np.nan
            x[3, 0] = np.nan
            x[4, ::3] = -np.inf
            got = np.empty_like(x)
            assert softmax_rows(x, got, log)
            plus = x.copy()  # (the same rows with +0.0 for each zero: compare the two zero rows)
            plus[:2][x[:2] == 0] = 0.0
            want = np.empty_like(x)
            assert softmax_rows(plus, want, log)
            assert got[:2].tobytes() == want[:2].tobytes()
            assert np.isnan(got[2:4]).all()
            fn = torch.log_softmax if log else torch.softmax
            np.testing.assert_allclose(got[4:], fn(torch.from_numpy(x[4:]), -1).numpy(),
                                       rtol=2e-6 if dtype == np.float32 else 1e-14, atol=1e-30)
