"""slice_scatter / select_scatter / diagonal_scatter / as_strided_scatter against PyTorch.

The result keeps input's strides and storage offset over a copy of input's whole storage
(PyTorch's clone_preserve_strides; a dense clone when input's elements overlap); src must have
the slice's shape. Hard layouts from hypothesis, the same storage in both libraries: values,
strides, offset, storage size; errors; gradients (PyTorch's nodes and values, and double
backward); the copy ledger's bytes (the whole storage).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import specs


def _pair(spec, dtype: str = "float32"):
    values = (np.arange(spec.storage_size) * 1.5 - 3).astype(dtype)
    t = torch.from_numpy(values.copy()).as_strided(spec.shape, spec.strides, spec.offset)
    s = st.from_numpy(values.copy()).as_strided(spec.shape, spec.strides, spec.offset)
    return t, s


def _same(got: st.Tensor, expected: torch.Tensor) -> None:
    assert tuple(got.shape) == tuple(expected.shape)
    assert got.stride() == expected.stride()
    assert got.storage_offset() == expected.storage_offset()
    assert got.untyped_storage().nbytes() == expected.untyped_storage().nbytes()
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def _src(shape: tuple, seed: int, lib):
    values = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return torch.from_numpy(values.copy()) if lib is torch else st.from_numpy(values.copy())


def _both(fn, t, s, seed: int, shape_of) -> None:
    """Run ``fn(lib, input, src)`` in both libraries; the same outcome."""
    try:
        shape = tuple(shape_of(t).shape)
    except (IndexError, RuntimeError) as err:  # the window itself is refused: the same error
        with pytest.raises(type(err)):
            fn(st, s, _src((1,), seed, st))
        return
    window = shape_of(t)
    if window.dim() and st.layout.overlaps(tuple(window.shape), window.stride()) is not False and not (
            st.layout.has_internal_overlap(tuple(t.shape), t.stride())):
        # (the slice of an input whose elements overlap (its strides kept) reaches a position twice:
        # PyTorch writes it in its loop order, strided refuses)
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            fn(st, s, _src(shape, seed, st))
        return
    try:
        expected = fn(torch, t, _src(shape, seed, torch))
    except RuntimeError as err:  # (a window past the storage: PyTorch's bounds error)
        with pytest.raises(type(err)):
            fn(st, s, _src(shape, seed, st))
        return
    _same(fn(st, s, _src(shape, seed, st)), expected)


@settings(max_examples=150, deadline=None)
@given(specs(min_dims=1, max_dims=4), hs.data())
def test_slice_scatter(spec, data) -> None:
    t, s = _pair(spec)
    dim = data.draw(hs.integers(-len(spec.shape), len(spec.shape) - 1))
    start = data.draw(hs.one_of(hs.none(), hs.integers(-6, 6)))
    end = data.draw(hs.one_of(hs.none(), hs.integers(-6, 6)))
    step = data.draw(hs.integers(1, 3))
    seed = data.draw(hs.integers(0, 99))
    _both(lambda lib, x, src: lib.slice_scatter(x, src, dim, start, end, step), t, s, seed,
          lambda x: x[(slice(None),) * (dim % x.dim()) + (slice(start, end, step),)])


@settings(max_examples=150, deadline=None)
@given(specs(min_dims=1, max_dims=4), hs.data())
def test_select_scatter(spec, data) -> None:
    t, s = _pair(spec)
    dim = data.draw(hs.integers(-len(spec.shape), len(spec.shape) - 1))
    index = data.draw(hs.integers(-3, 3))
    seed = data.draw(hs.integers(0, 99))
    _both(lambda lib, x, src: lib.select_scatter(x, src, dim, index), t, s, seed, lambda x: x.select(dim, index))


@settings(max_examples=150, deadline=None)
@given(specs(min_dims=2, max_dims=4), hs.data())
def test_diagonal_scatter(spec, data) -> None:
    t, s = _pair(spec)
    n = len(spec.shape)
    d1, d2 = data.draw(hs.lists(hs.integers(-n, n - 1), min_size=2, max_size=2, unique_by=lambda d: d % n))
    offset = data.draw(hs.integers(-3, 3))
    seed = data.draw(hs.integers(0, 99))
    _both(lambda lib, x, src: lib.diagonal_scatter(x, src, offset, d1, d2), t, s, seed,
          lambda x: x.diagonal(offset, d1, d2))


@settings(max_examples=150, deadline=None)
@given(specs(min_dims=1, max_dims=3), hs.data())
def test_as_strided_scatter(spec, data) -> None:
    t, s = _pair(spec)
    ndim = data.draw(hs.integers(1, 2))
    size = tuple(data.draw(hs.lists(hs.integers(0, 3), min_size=ndim, max_size=ndim)))
    stride = tuple(data.draw(hs.lists(hs.integers(1, 4), min_size=ndim, max_size=ndim)))
    offset = data.draw(hs.one_of(hs.none(), hs.integers(0, 4)))
    seed = data.draw(hs.integers(0, 99))
    if st.layout.overlaps(size, stride) is not False:  # a window reaching a position twice: refused
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor|out of bounds"):
            st.as_strided_scatter(s, _src(size, seed, st), size, stride, offset)
        return
    _both(lambda lib, x, src: lib.as_strided_scatter(x, src, size, stride, offset), t, s, seed,
          lambda x: torch.empty(size))


def _outcome(fn) -> tuple:
    try:
        fn()
    except Exception as err:  # noqa: BLE001 - the class and text are the comparison
        return type(err).__name__.replace("Strided", ""), str(err).splitlines()[0]
    return ("ok",)


@pytest.mark.parametrize("case", [
    lambda lib: lib.slice_scatter(lib.zeros(3, 4), lib.zeros(3, 4), 1, None, None, 0),
    lambda lib: lib.slice_scatter(lib.zeros(3, 4), lib.zeros(3, 4), 1, None, None, -1),
    lambda lib: lib.slice_scatter(lib.zeros(3, 4), lib.zeros(3, 2), 1, 3, 1),
    lambda lib: lib.slice_scatter(lib.zeros(3, 4), 1.0, 1),
    lambda lib: lib.slice_scatter(lib.zeros(3, 4), lib.zeros(3, 4), 2),
    lambda lib: lib.slice_scatter(lib.zeros(3, 4), lib.zeros(1, 4), 1),
    lambda lib: lib.slice_scatter(lib.tensor(5.0), lib.tensor(1.0)),
    lambda lib: lib.select_scatter(lib.zeros(3, 4), lib.zeros(4), 0, 5),
    lambda lib: lib.select_scatter(lib.zeros(3, 4), lib.zeros(3), 0, 1),
    lambda lib: lib.select_scatter(lib.tensor(5.0), lib.tensor(1.0), 0, 0),
    lambda lib: lib.diagonal_scatter(lib.zeros(3, 4), lib.zeros(3), 0, 0, 0),
    lambda lib: lib.diagonal_scatter(lib.zeros(3, 4), lib.zeros(2), 1),
    lambda lib: lib.as_strided_scatter(lib.zeros(3, 4), lib.zeros(3), (2, 2), (4, 1)),
    lambda lib: lib.as_strided_scatter(lib.zeros(3, 4), lib.zeros(2, 2), (2, 2), (4, 1), 100),
    lambda lib: lib.as_strided_scatter(lib.zeros(3, 4), lib.zeros(2, 2), (2, 2), (0, 1)),
    lambda lib: lib.zeros(3, 4).slice_scatter(lib.ones(3, 4, dtype=lib.float64)),
    lambda lib: lib.zeros(3, 4, dtype=lib.int32).slice_scatter(lib.ones(3, 4)),
])
def test_errors_and_conversions_as_pytorch(case) -> None:
    expected = _outcome(lambda: case(torch))
    got = _outcome(lambda: case(st))
    assert got[0] == expected[0]
    if expected[0] in ("RuntimeError", "TypeError") and "setStorage" not in expected[1]:
        assert got[1] == expected[1]


GRAD_CASES = {
    "slice": (lambda lib, x, s: lib.slice_scatter(x, s, 1, 1, 4, 2), (3, 2)),
    "select": (lambda lib, x, s: lib.select_scatter(x, s, 1, 2), (3,)),
    "diagonal": (lambda lib, x, s: lib.diagonal_scatter(x, s, 1), (3,)),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_and_double_backward_as_pytorch(name: str) -> None:
    fn, src_shape = GRAD_CASES[name]
    results = []
    for lib in (torch, st):
        x = lib.arange(12.0, dtype=lib.float64).reshape(3, 4).requires_grad_()
        s = lib.arange(float(np.prod(src_shape)), dtype=lib.float64).reshape(src_shape).add(7).requires_grad_()
        w = lib.arange(12.0, dtype=lib.float64).reshape(3, 4).sub(3)
        y = fn(lib, x, s)
        gx, gs = lib.autograd.grad((y * y * w).sum(), (x, s), create_graph=True)
        ggx, ggs = lib.autograd.grad((gx * gx).sum() + (gs * gs).sum(), (x, s))
        results.append((y.grad_fn.name(), gx.tolist(), gs.tolist(), ggx.tolist(), ggs.tolist()))
    assert results[1] == results[0]


def test_as_strided_scatter_gradients() -> None:
    """src's gradient is PyTorch's; input's is the derivative: the incoming gradient where the
    window did not write (PyTorch 2.13 gives the window's gradient there instead: its rule's bug)."""
    w = np.arange(12.0).reshape(3, 4) - 3
    x = st.arange(12.0, dtype=st.float64).reshape(3, 4).requires_grad_()
    s = st.ones(2, 2, dtype=st.float64).requires_grad_()
    y = st.as_strided_scatter(x, s, (2, 2), (4, 1), 1)
    (y * st.tensor(w)).sum().backward()
    written = np.zeros(12, bool)
    written[[1, 2, 5, 6]] = True
    np.testing.assert_array_equal(x.grad.numpy().reshape(-1), np.where(written, 0.0, w.reshape(-1)))
    tx = torch.arange(12.0, dtype=torch.float64).reshape(3, 4).requires_grad_()
    ts = torch.ones(2, 2, dtype=torch.float64).requires_grad_()
    (torch.as_strided_scatter(tx, ts, (2, 2), (4, 1), 1) * torch.tensor(w)).sum().backward()
    assert s.grad.tolist() == ts.grad.tolist()
    assert y.grad_fn.name() == "AsStridedScatterBackward0"
    # finite differences agree with strided's input gradient, not with PyTorch's
    def f(values: np.ndarray) -> float:
        out = st.as_strided_scatter(st.tensor(values), st.ones(2, 2, dtype=st.float64), (2, 2), (4, 1), 1)
        return float((out.numpy() * w).sum())
    base = np.arange(12.0).reshape(3, 4)
    numeric = np.array([(f(base + np.eye(12)[i].reshape(3, 4)) - f(base)) for i in range(12)])
    np.testing.assert_allclose(numeric, x.grad.numpy().reshape(-1))
    assert not np.allclose(numeric, tx.grad.numpy().reshape(-1))


def test_as_strided_scatter_of_a_non_contiguous_input_that_requires_grad_is_refused() -> None:
    x = st.arange(12.0).reshape(3, 4).requires_grad_()
    with pytest.raises(RuntimeError, match="as_strided_scatter is currently only supported for contiguous inputs"):
        st.as_strided_scatter(x.t(), st.ones(2), (2,), (1,))


def test_the_copy_ledger_counts_the_whole_storage() -> None:
    x = st.zeros(100)[10:12]
    with st.record_copies() as copies:
        y = st.slice_scatter(x, st.ones(1), 0, 0, 1)
    assert y.storage_offset() == 10 and y.untyped_storage().nbytes() == 400
    assert [c.nbytes for c in copies] == [400]
    assert "whole storage" in copies[0].reason
    e = st.zeros(3).expand(2, 3)
    with st.record_copies() as copies:
        y = st.slice_scatter(e, st.ones(1, 3), 0, 0, 1)
    assert y.stride() == (3, 1) and [c.nbytes for c in copies] == [24]


def test_input_is_untouched() -> None:
    x = st.zeros(3, 4)
    st.slice_scatter(x, st.ones(3, 1), 1, 0, 1)
    st.as_strided_scatter(x, st.ones(2), (2,), (1,))
    assert x.abs().sum().item() == 0
