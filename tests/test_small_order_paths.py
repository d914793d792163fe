"""The small-call fast paths of the order statistics and scans (session 19): each gives the bits,
strides and dtypes of the general path it skips, and PyTorch's, on ties, NaN, -0.0 and every
dtype the fast path takes (the general path is reached by switching the fast one off)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import strided
from strided.ops.reductions import order_stats, scans
from strided.ops.shape import sorting

_VALUES = (0.0, -0.0, float("nan"), 1.0, -1.0, float("inf"), -float("inf"), 0.5)


def _sample(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any, kind: int) -> np.ndarray:
    if np.dtype(dtype).kind == "i":
        return rng.integers(-2, 3, shape).astype(dtype)
    if kind == 0:
        return rng.standard_normal(shape).astype(dtype)
    if kind == 1:  # ties
        return rng.integers(-2, 3, shape).astype(dtype)
    return rng.choice(_VALUES, shape).astype(dtype)  # (NaN, -0.0 and 0.0, infinities)


def _same(a: strided.Tensor, b: strided.Tensor, t: torch.Tensor) -> None:
    x, y, z = a.numpy(), b.numpy(), t.numpy()
    assert x.dtype == y.dtype == z.dtype and x.shape == y.shape == z.shape
    assert a.stride() == b.stride() == t.stride()
    assert x.tobytes() == y.tobytes() == z.tobytes()


def _cases(seed: int, count: int) -> Any:
    rng = np.random.default_rng(seed)
    for _ in range(count):
        shape = tuple(int(s) for s in rng.integers(1, 7, int(rng.integers(1, 4))))
        dtype = (np.float32, np.float64, np.int32, np.int64)[int(rng.integers(0, 4))]
        yield rng, shape, _sample(rng, shape, dtype, int(rng.integers(0, 3)))


def test_kthvalue_fast_path_is_the_general_paths_and_pytorchs(monkeypatch: pytest.MonkeyPatch) -> None:
    for rng, shape, a in _cases(19, 400):
        k, keepdim = int(rng.integers(1, shape[-1] + 1)), bool(rng.integers(0, 2))
        x = strided.tensor(a)
        fast = x.kthvalue(k, -1, keepdim)
        with monkeypatch.context() as m:
            m.setattr(sorting, "_fast_kthvalue", lambda *args: None)
            general = x.kthvalue(k, -1, keepdim)
        expected = torch.tensor(a).kthvalue(k, -1, keepdim)
        _same(fast.values, general.values, expected.values)
        _same(fast.indices, general.indices, expected.indices)


@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_running_extreme_fast_path_is_the_general_paths_and_pytorchs(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for rng, shape, a in _cases(23, 300):
        dim = int(rng.integers(-len(shape), len(shape)))
        x = strided.tensor(a)
        fast = getattr(x, op)(dim)
        with monkeypatch.context() as m:
            m.setattr(scans, "_fast_cum_extreme", lambda *args: None)
            general = getattr(x, op)(dim)
        expected = getattr(torch.tensor(a), op)(dim)
        _same(fast.values, general.values, expected.values)
        _same(fast.indices, general.indices, expected.indices)


def test_logcumsumexp_compiled_scan_is_numpys_accumulate(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled scan gives the general path's bits (NumPy's logaddexp.accumulate, the first
    value plus zero) on ties, NaN, infinities, -0.0 and wide ranges, rows in eights and not."""
    rng = np.random.default_rng(29)
    shapes = [(3, 4), (16, 16), (9, 5), (2, 8, 3), (17,), (1, 1)]
    for i in range(240):
        shape = shapes[i % len(shapes)]
        dtype = (np.float32, np.float64)[i % 2]
        kind = i % 3
        a = (rng.standard_normal(shape) * 10 ** rng.uniform(-6, 2)) if kind == 0 else \
            rng.choice(_VALUES + (88.0, -104.0, 700.0, 3e38), shape)
        a = a.astype(dtype)
        x = strided.tensor(a)
        dim = int(rng.integers(-len(shape), len(shape)))
        fast = x.logcumsumexp(dim)
        with monkeypatch.context() as m:
            m.setattr(scans, "_fast_logcumsumexp", lambda *args: None)
            general = x.logcumsumexp(dim)
        assert fast.numpy().tobytes() == general.numpy().tobytes()
        assert fast.stride() == general.stride() and fast.dtype == general.dtype
        if kind == 0:
            np.testing.assert_allclose(fast.numpy(), torch.tensor(a).logcumsumexp(dim).numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", ["median", "nanmedian"])
def test_median_dim_fast_path_is_the_general_paths(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled stable median gives the general path's values and indices (the stable argsort's
    lower middle, the first NaN, ties in order, -0.0 and 0.0 as they stand) and PyTorch's values."""
    rng = np.random.default_rng(31)
    cases = list(_cases(37, 400)) + [(rng, s, _sample(rng, s, np.float32, 2)) for s in ((3, 70), (70, 2), (2, 130))]
    for rng, shape, a in cases:
        dim, keepdim = int(rng.integers(-len(shape), len(shape))), bool(rng.integers(0, 2))
        x = strided.tensor(a)
        fast = getattr(x, op)(dim, keepdim)
        with monkeypatch.context() as m:
            m.setattr(order_stats, "_fast_median_dim", lambda *args: None)
            general = getattr(x, op)(dim, keepdim)
        for u, v in zip(fast, general):
            assert u.numpy().tobytes() == v.numpy().tobytes() and u.stride() == v.stride() and u.dtype == v.dtype
        expected = getattr(torch.tensor(a), op)(dim, keepdim).values.numpy()
        np.testing.assert_array_equal(fast.values.numpy(), expected)


def test_mode_fast_path_is_the_general_paths_and_pytorchs(monkeypatch: pytest.MonkeyPatch) -> None:
    for _, shape, a in _cases(41, 300):
        keepdim = bool(shape[0] % 2)
        x = strided.tensor(a)
        fast = x.mode(-1, keepdim)
        with monkeypatch.context() as m:
            m.setattr(order_stats, "_fast_mode", lambda *args: None)
            general = x.mode(-1, keepdim)
        expected = torch.tensor(a).mode(-1, keepdim)
        _same(fast.values, general.values, expected.values)
        _same(fast.indices, general.indices, expected.indices)


@pytest.mark.parametrize("op", ["median", "nanmedian"])
def test_flat_median_fast_path_is_the_general_paths(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(43)
    shapes = [(3, 4), (8, 8), (5, 13), (16, 16), (1,), (2, 1, 3)]
    for i in range(300):
        shape = shapes[i % len(shapes)]
        a = _sample(rng, shape, (np.float32, np.float64)[i % 2], i % 3)
        x = strided.tensor(a)
        fast = getattr(x, op)()
        with monkeypatch.context() as m:
            m.setattr(order_stats, "_fast_flat_median", lambda *args: None)
            general = getattr(x, op)()
        assert fast.numpy().tobytes() == general.numpy().tobytes() and fast.dtype == general.dtype
        np.testing.assert_array_equal(fast.numpy(), getattr(torch.tensor(a), op)().numpy())


@pytest.mark.parametrize("op", ["quantile", "nanquantile"])
def test_quantile_fast_path_is_the_general_paths(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every interpolation, q at and between the ranks, all elements or the last dim, keepdim: the
    general path's bits, shape, strides and view-ness, and PyTorch's values (close: its lerp)."""
    rng = np.random.default_rng(47)
    modes = ("linear", "lower", "higher", "midpoint", "nearest")
    shapes = [(3, 4), (16, 16), (5,), (2, 3, 7), (1, 1)]
    for i in range(400):
        shape = shapes[i % len(shapes)]
        dtype = (np.float32, np.float64)[i % 2]
        a = (rng.standard_normal(shape) * 10 ** rng.uniform(-3, 3)).astype(dtype)
        if i % 7 == 0:
            a = np.round(a)  # (ties, and zeros or not: those go to the general path)
        q = float(rng.choice([0.0, 1.0, 0.5, 0.25, float(rng.uniform())]))
        dim = None if i % 3 == 0 else -1
        keepdim, mode = bool(i % 2), modes[i % 5]
        x = strided.tensor(a)
        fast = getattr(x, op)(q, dim, keepdim, interpolation=mode)
        with monkeypatch.context() as m:
            m.setattr(order_stats, "_fast_quantile", lambda *args: None)
            general = getattr(x, op)(q, dim, keepdim, interpolation=mode)
        assert fast.numpy().tobytes() == general.numpy().tobytes()
        assert fast.shape == general.shape and fast.stride() == general.stride() and fast.dtype == general.dtype
        assert (fast._base is None) == (general._base is None)
        expected = getattr(torch.tensor(a), op)(q, dim, keepdim, interpolation=mode)
        np.testing.assert_allclose(fast.numpy(), expected.numpy(), rtol=1e-6)


@pytest.mark.parametrize("threads", [1, 2, 3, 16])
def test_compiled_softmax_dims_is_the_numpy_steps(threads: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled float32 softmax along a dim other than the last gives the NumPy steps' bits
    (SLEEF's expf at the vector loop's positions, the C library's at the scalar loop's, the sum in
    dim order), and with a non-finite element leaves the call to them."""
    from strided.kernels import native, softmax_dims
    from strided.ops.reductions import softmax as softmax_ops

    if native.sleef() is None or not softmax_dims.sleef.step():
        pytest.skip("compiled SLEEF kernel off")
    monkeypatch.setattr(softmax_dims, "torch_threads", lambda: threads)
    rng = np.random.default_rng(53)
    for shape, dim in [((3, 4), 0), ((16, 16), 0), ((7, 37), 0), ((3, 5, 40), 1), ((2, 9, 17), 1), ((5, 33, 3), 0),
                       ((40, 1, 3), 0), ((4, 6, 5, 19), 2), ((2, 3, 130), -2), ((16, 1), 0)]:
        for special in (False, True):
            a = (rng.standard_normal(shape) * 4).astype(np.float32)
            if special:
                a.reshape(-1)[int(rng.integers(0, a.size))] = rng.choice([np.inf, -np.inf, np.nan])
            x = strided.tensor(a)
            fast = x.softmax(dim)
            with monkeypatch.context() as m:
                m.setattr(softmax_dims, "compiled_float32", lambda *args: None)
                m.setattr(softmax_ops, "compiled_float32", lambda *args: None)
                general = x.softmax(dim)
            assert fast.numpy().tobytes() == general.numpy().tobytes()
            assert fast.stride() == general.stride()


def test_cumulative_trapezoid_compiled_terms_are_the_numpy_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    from strided.ops.reductions import integration

    rng = np.random.default_rng(59)
    shapes = [(3, 4), (16, 16), (2, 5, 3), (7,), (1, 2), (0, 3)]
    for i in range(240):
        shape = shapes[i % len(shapes)]
        dtype = (np.float32, np.float64)[i % 2]
        a = _sample(rng, shape, dtype, i % 3)
        dim = int(rng.integers(-len(shape), len(shape)))
        if shape[dim] < 2:
            dim = -1
        dx = (None, 0.3, 2, -1e-3, 1e39)[i % 5]
        x = strided.tensor(a)
        fast = strided.cumulative_trapezoid(x, dx=dx, dim=dim)
        with monkeypatch.context() as m:
            m.setattr(integration, "special", lambda: None)
            general = strided.cumulative_trapezoid(x, dx=dx, dim=dim)
        assert fast.numpy().tobytes() == general.numpy().tobytes()
        assert fast.shape == general.shape and fast.stride() == general.stride() and fast.dtype == general.dtype
        if i % 3 == 0 and dx != 1e39:
            expected = torch.cumulative_trapezoid(torch.tensor(a), dx=1.0 if dx is None else dx, dim=dim)
            np.testing.assert_allclose(fast.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", ["unique", "unique_consecutive"])
def test_unique_fast_path_is_the_general_paths(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from strided.ops.shape import sets

    for _, _shape, a in _cases(61, 300):
        x = strided.tensor(a)
        fast = getattr(strided, op)(x)
        with monkeypatch.context() as m:
            m.setattr(sets, "_fast_unique", lambda *args: None)
            general = getattr(strided, op)(x)
        assert fast.numpy().tobytes() == general.numpy().tobytes()
        assert fast.shape == general.shape and fast.stride() == general.stride() and fast.dtype == general.dtype
        expected = getattr(torch, op)(torch.tensor(a)).numpy()
        np.testing.assert_array_equal(fast.numpy(), expected)


@pytest.mark.parametrize("op", ["argmax", "argmin", "max", "min"])
def test_extreme_along_any_dim_fast_path_is_the_general_paths(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """argmax/argmin and max/min along every dim of row-major float tensors (the last and the
    others) and of all elements: the general path's indices, values' bits and strides."""
    from strided.ops.reductions import extrema

    for rng, shape, a in _cases(67, 400):
        if a.dtype.kind != "f":
            a = a.astype(np.float32)
        dim = None if rng.integers(0, 5) == 0 and op.startswith("arg") else int(rng.integers(-len(shape), len(shape)))
        keepdim = bool(rng.integers(0, 2))
        x = strided.tensor(a)
        fast = getattr(x, op)(dim, keepdim)
        with monkeypatch.context() as m:
            m.setattr(extrema, "_fast_arg", lambda *args: None)
            general = getattr(x, op)(dim, keepdim)
        for u, v in zip(fast, general) if op in ("max", "min") else [(fast, general)]:
            assert u.numpy().tobytes() == v.numpy().tobytes()
            assert u.shape == v.shape and u.stride() == v.stride() and u.dtype == v.dtype
        expected = getattr(torch.tensor(a), op)(dim, keepdim) if dim is not None else getattr(torch.tensor(a), op)()
        got = fast.values if op in ("max", "min") else fast
        want = expected.values if op in ("max", "min") else expected
        np.testing.assert_array_equal(got.numpy().reshape(want.shape), want.numpy())


@pytest.mark.parametrize("op", ["any", "all"])
def test_truth_along_a_dim_fast_path_is_the_general_paths(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from strided.ops.reductions import sums

    for rng, shape, a in _cases(71, 300):
        if a.dtype.kind != "f":
            a = a.astype(np.float64)
        dim, keepdim = int(rng.integers(-len(shape), len(shape))), bool(rng.integers(0, 2))
        x = strided.tensor(a)
        fast = getattr(x, op)(dim, keepdim)
        with monkeypatch.context() as m:
            m.setattr(sums, "_fast_logical", lambda *args: None)
            general = getattr(x, op)(dim, keepdim)
        expected = getattr(torch.tensor(a), op)(dim, keepdim)
        _same(fast, general, expected)


@pytest.mark.parametrize("op", ["sort", "argsort"])
def test_sort_along_any_dim_fast_path_is_the_general_paths_and_pytorchs(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for rng, shape, a in _cases(73, 300):
        dim, descending = int(rng.integers(-len(shape), len(shape))), bool(rng.integers(0, 2))
        x = strided.tensor(a)
        fast = getattr(x, op)(dim, descending)
        with monkeypatch.context() as m:
            m.setattr(sorting, "_fast_sort", lambda *args, **kwargs: None)
            general = getattr(x, op)(dim, descending)
        expected = getattr(torch.tensor(a), op)(dim, descending)
        if op == "sort":
            _same(fast.values, general.values, expected.values)
            _same(fast.indices, general.indices, expected.indices)
        else:
            _same(fast, general, expected)


def test_msort_check_is_the_general_paths() -> None:
    rng = np.random.default_rng(79)
    for i in range(200):
        a = _sample(rng, (int(rng.integers(1, 7)), int(rng.integers(1, 7))), (np.float32, np.float64)[i % 2], i % 3)
        _same(strided.tensor(a).msort(), strided.tensor(a).sort(0).values, torch.msort(torch.tensor(a)))


def test_aminmax_of_all_elements_fast_path_is_the_general_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    from strided.ops.reductions import nan_reductions

    for _, _shape, a in _cases(83, 300):
        if a.dtype.kind != "f":
            a = a.astype(np.float32)
        x = strided.tensor(a)
        fast = x.aminmax()
        with monkeypatch.context() as m:
            m.setattr(nan_reductions, "extreme_all_kernel", lambda: None)
            general = x.aminmax()
        expected = torch.tensor(a).aminmax()
        for u, v, w in ((fast.min, general.min, expected.min), (fast.max, general.max, expected.max)):
            assert u.numpy().tobytes() == v.numpy().tobytes() and u.shape == v.shape and u.dtype == v.dtype
            np.testing.assert_array_equal(u.numpy(), w.numpy())  # (a NaN's bits: the general path's own)
