"""The per-call floor's paths (issue 23) keep their contracts.

``Tensor._np`` is :func:`strided.kernels.memory.numpy_view`'s array whether its plan is known
or not (memory, strides, writability, errors), and a storage replaced under a tensor
(``resize_``, ``set_``) is the one viewed: what any cache of it must keep (an inlined or cached
``_np`` was measured and left out, see bench/floor_probe.py). ``fast_reduce`` inlines
``fast_operand`` / ``fast_plan``: the general path's reduction bit for bit, and the same
declines. ``track_inplace``'s entry passes no ``**{}`` when there are no keywords.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from strided.errors import StridedRuntimeError
from strided.kernels import memory
from strided.kernels.memory import numpy_view
from strided.layout import Layout
from strided.ops._support import fast_reduce as fr


def _tensors(dtype: st.DType) -> list[st.Tensor]:
    x = st.arange(24, dtype=dtype).reshape(4, 6)
    return [x, x[1:], x[1:3], x.t(), x[:, 1:], x[::2], x[0].expand(3, 6), x[2:2], x[4:], x[1, 2],
            st.zeros(0, 3, dtype=dtype), st.arange(3, dtype=dtype)[1:]]


def _same(a: np.ndarray, b: np.ndarray) -> None:
    assert (a.shape, a.strides, a.dtype, a.flags.writeable) == (b.shape, b.strides, b.dtype, b.flags.writeable)
    assert a.__array_interface__["data"] == b.__array_interface__["data"]
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [st.float32, st.float64, st.int64])
def test_np_is_numpy_view_cold_and_warm(dtype: st.DType) -> None:
    for t in _tensors(dtype):
        memory._view_plans.clear()
        first = t._np()  # (plan unknown: numpy_view's path, which learns it)
        again = t._np()  # (plan known: the inlined path where it is row-major)
        ref = numpy_view(t._storage, t._layout)
        _same(first, ref)
        _same(again, ref)
        assert np.shares_memory(again, t._storage.array) or again.size == 0


def test_np_writes_reach_the_tensor_and_readonly_stays_readonly() -> None:
    x = st.zeros(2, 3)
    x._np()
    x._np()[1, 2] = 5.0
    assert x.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 5.0]]
    ro = np.arange(6.0)
    ro.flags.writeable = False
    t = st.from_numpy(ro)  # (its tensor is read-only: writes refuse)
    t._np()
    assert not t._np().flags.writeable


def test_np_past_the_buffer_raises_numpy_views_error() -> None:
    x = st.arange(6.0)
    for lay in [Layout((2, 3), (3, 1), 2), Layout((7,), (1,), 0), Layout((3,), (1,), 4)]:
        t = x._view(lay)
        memory._view_plans.clear()
        errors = []
        for call in (t._np, t._np, lambda t=t: numpy_view(t._storage, t._layout)):
            with pytest.raises(StridedRuntimeError) as e:
                call()
            errors.append(str(e.value))
        assert errors[0] == errors[1] == errors[2]


def test_np_sees_a_replaced_storage() -> None:
    x = st.arange(6.0).reshape(2, 3)
    x._np()
    x.resize_(3, 3)  # (a new, larger buffer)
    x.view(-1)[6:] = 7.0
    np.testing.assert_array_equal(x._np(), np.r_[np.arange(6.0), [7.0] * 3].reshape(3, 3))
    y = st.ones(2, 3)
    y._np()
    y.set_(st.full((2, 3), 4.0))
    assert y._np().tolist() == [[4.0] * 3] * 2


REDUCE = [(lambda t, *a: t.sum(*a), np.add.reduce, torch.sum), (lambda t, *a: t.amax(*a), np.maximum.reduce, torch.amax)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fast_reduce_is_the_same_reduction(dtype: np.dtype) -> None:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # (PyTorch's sum order is its one-thread order)
    try:
        _check_fast_reduce(dtype)
    finally:
        torch.set_num_threads(threads)


def _check_fast_reduce(dtype: np.dtype) -> None:
    base = np.random.default_rng(0).standard_normal((4, 5)).astype(dtype)
    sx, tx = st.from_numpy(base.copy()), torch.from_numpy(base.copy())
    views = [(sx, tx), (sx[1:], tx[1:]), (sx.t(), tx.t()), (sx[:, 1:4], tx[:, 1:4])]
    for s, t in views:
        for dim, keepdim in [(None, False), (0, False), (1, True), (-1, False)]:
            for ours, reduce, theirs in REDUCE:
                got = ours(s, dim, keepdim) if dim is not None else ours(s)
                want = theirs(t, dim, keepdim) if dim is not None else theirs(t)
                axis = None if dim is None else dim % 2
                assert got.shape == tuple(want.shape) and got.stride() == want.stride()
                if theirs is torch.sum:  # (sum adds in PyTorch's order: torch's bits, one thread)
                    assert got.numpy().tobytes() == want.numpy().tobytes()
                    continue
                exact = reduce(s._np(), axis=axis, keepdims=keepdim)  # (the general path's reduction)
                np.testing.assert_array_equal(got.numpy(), exact)
                np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_fast_reduce_declines_what_the_general_path_handles() -> None:
    x = st.ones(3, 4)
    assert fr.fast_reduce(np.add.reduce, x, (0, 1), False) is None
    assert fr.fast_reduce(np.add.reduce, x, 0, 1) is None
    assert fr.fast_reduce(np.add.reduce, st.ones(3, 4, dtype=st.int32), 0, False) is None
    assert fr.fast_reduce(np.add.reduce, x, 5, False) is None
    assert fr.fast_reduce(np.add.reduce, st.ones(0, 4), None, False) is None
    with pytest.raises(IndexError) as ours:
        x.sum(5)
    with pytest.raises(IndexError) as theirs:
        torch.ones(3, 4).sum(5)
    assert str(ours.value).splitlines()[0] == str(theirs.value)


def test_inplace_entry_passes_arguments_and_keywords() -> None:
    y = st.ones(3, 4)
    assert y.mul_(2) is y
    y.add_(st.ones(3, 4), alpha=0.5)  # (keywords through the entry)
    assert y.tolist() == [[2.5] * 4] * 3
    a, b = torch.ones(3, 4), st.ones(3, 4)
    with pytest.raises(TypeError) as theirs:
        a.mul_(2, bogus=1)
    with pytest.raises(TypeError) as ours:
        b.mul_(2, bogus=1)
    assert "bogus" in str(theirs.value) and "bogus" in str(ours.value)
