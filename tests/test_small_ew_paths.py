"""The small elementwise fast paths of issue 23 against the general paths they skip: the
parameterized activations, sigmoid / bitwise_not and every unary_more row run their own kernels
on the flat run of a row-major tensor. Each must give the general path's result bit for bit
(values, -0.0 and NaN included), its dtype and its strides, and PyTorch's strides."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided
import strided.nn.functional as F
from strided.ops.elementwise import activations as A
from strided.ops.elementwise import unary as U
from strided.ops.elementwise import unary_more as M

_VALUES = np.array([[-2.5, -1.0, -0.5, -0.0, 0.0, 0.25], [0.5, 0.999, 1.0, 2.5, 1e30, -1e30],
                    [np.inf, -np.inf, np.nan, 3.75, -7.5, 1e-40]])


def _inputs(dtype: strided.dtype) -> list:
    """Row-major tensors over these values: offset views, size-1 dims, 0-d, empty."""
    base = strided.tensor(_VALUES, dtype=dtype)
    return [base, base[1:], base.reshape(-1)[2:8].reshape(1, 6, 1), base.reshape(3, 1, 6),
            base[1, 2], base[:0]]


def _same(fast: strided.Tensor, slow: strided.Tensor, name: str) -> None:
    assert fast.dtype == slow.dtype and fast.shape == slow.shape and fast.stride() == slow.stride(), name
    f, s = fast.numpy(), slow.numpy()
    np.testing.assert_array_equal(f, s, err_msg=name)
    assert np.array_equal(np.signbit(f), np.signbit(s)), name


def _ints() -> list:
    return [strided.tensor(np.arange(-6, 6).reshape(3, 4), dtype=d)
            for d in (strided.int8, strided.int16, strided.int32, strided.int64, strided.uint8)] + [
        strided.tensor([[True, False], [False, True]])]


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
def test_unary_more_fast_path_is_the_general_path(dtype, monkeypatch):
    rows = [op for op in M.TABLE if op.name not in M._SPECIAL]
    args = {"round": [(), (2,), (-1,)], "nan_to_num": [(), (1.5, 2.0, -3.0)], "logit": [(), (0.25,)]}
    fast = {}
    for i, x in enumerate(_inputs(dtype)):
        for op in rows:
            for a in args.get(op.name, [()]):
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    fast[i, op.name, a] = M.run_unary(op, x, args=a)
    monkeypatch.setattr(M, "_fast_run", lambda *_: None)  # the general path from here on
    for i, x in enumerate(_inputs(dtype)):
        for op in rows:
            for a in args.get(op.name, [()]):
                _same(fast[i, op.name, a], M.run_unary(op, x, args=a), f"{op.name}{a} on input {i}")


@pytest.mark.parametrize("name", ["isfinite", "isinf", "nan_to_num", "deg2rad", "sign", "logit"])
def test_unary_more_fast_path_strides_are_torchs(name):
    # (the rows laid out as composites or empty_like: a row-major input gives a row-major output)
    for x in _inputs(strided.float32):
        ours = getattr(strided, name)(x)
        peer = getattr(torch, name)(torch.tensor(x.numpy()))  # (a fresh row-major tensor)
        assert ours.stride() == peer.stride(), (name, x.shape)


_ACTIVATIONS = [
    (A.SILU, ()), (A.SOFTPLUS, (1.0, 20.0)), (A.SOFTPLUS, (2.0, 0.5)), (A.ELU, (1.0,)), (A.ELU, (0.3,)),
    (A.LEAKY_RELU, (0.01,)), (A.LEAKY_RELU, (-2.0,)), (A.HARDTANH, (-1.0, 1.0)), (A.HARDTANH, (-0.0, 0.0)),
]


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
def test_activation_fast_path_is_the_general_path(dtype, monkeypatch):
    fast = {(i, j): A._run(row, x, p) for i, x in enumerate(_inputs(dtype)) for j, (row, p) in enumerate(_ACTIVATIONS)}
    monkeypatch.setattr(A, "_fast", lambda *_: None)
    for i, x in enumerate(_inputs(dtype)):
        for j, (row, p) in enumerate(_ACTIVATIONS):
            _same(fast[i, j], A._run(row, x, p), f"{row.name}{p} on input {i}")


def test_activation_fast_path_matches_torch():
    x = strided.tensor(_VALUES[:, :4].copy(), dtype=strided.float32)
    tx = torch.from_numpy(x.numpy().copy())
    for ours, peer in [(F.silu(x), torch.nn.functional.silu(tx)), (F.elu(x, 0.5), torch.nn.functional.elu(tx, 0.5)),
                       (F.hardtanh(x), torch.nn.functional.hardtanh(tx)),
                       (F.leaky_relu(x, 0.2), torch.nn.functional.leaky_relu(tx, 0.2))]:
        assert ours.stride() == peer.stride() and ours.dtype == strided.float32
        np.testing.assert_allclose(ours.numpy(), peer.numpy(), rtol=1e-6, equal_nan=True)


def test_fast_paths_leave_autograd_and_in_place_forms_alone():
    x = strided.tensor([[-1.0, 0.5], [2.0, -3.0]], requires_grad=True)
    F.elu(x).sum().backward()
    t = torch.tensor([[-1.0, 0.5], [2.0, -3.0]], requires_grad=True)
    torch.nn.functional.elu(t).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-6)
    y = x.detach().clone()
    assert F.silu(y, inplace=True) is y
    x.grad = None
    strided.sigmoid(x).sum().backward()
    assert x.grad is not None and x.grad.shape == (2, 2)


def test_sigmoid_and_bitwise_not_fast_paths_are_the_general_path():
    for x in _inputs(strided.float32) + _inputs(strided.float64):
        _same(strided.sigmoid(x), U.unary(U.SIGMOID, x), "sigmoid")
    for x in _ints():
        _same(strided.bitwise_not(x), U.unary(U.BITWISE_NOT, x), f"bitwise_not {x.dtype}")
        assert strided.bitwise_not(x).tolist() == torch.bitwise_not(torch.from_numpy(x.numpy().copy())).tolist()
    with pytest.raises(NotImplementedError, match="bitwise_not_cpu"):
        strided.bitwise_not(strided.ones(2))


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
def test_logical_and_count_reductions_fast_paths_match_torch(dtype):
    values = np.array([[0.0, -0.0, 0.0], [1.0, np.nan, 0.0], [2.0, 3.0, -1.0], [0.0, 0.0, 0.0]])
    base = strided.tensor(values, dtype=dtype)
    for x in (base, base[1:], base.t(), base.reshape(1, 12)):
        tx = torch.tensor(x.numpy())
        for dim in (None, 0, 1, -1, -2):
            for keepdim in (False, True):
                for name in ("all", "any"):
                    ours = getattr(strided, name)(x) if dim is None and not keepdim else \
                        getattr(strided, name)(x, dim if dim is not None else (0, 1), keepdim=keepdim)
                    peer = getattr(torch, name)(tx) if dim is None and not keepdim else \
                        getattr(torch, name)(tx, dim if dim is not None else (0, 1), keepdim=keepdim)
                    assert ours.dtype == strided.bool and ours.shape == tuple(peer.shape), (name, dim)
                    assert ours.stride() == peer.stride() and ours.tolist() == peer.tolist(), (name, dim, keepdim)
            ours, peer = strided.count_nonzero(x, dim), torch.count_nonzero(tx, dim)
            assert ours.dtype == strided.int64 and ours.shape == tuple(peer.shape) and ours.tolist() == peer.tolist()
    with pytest.raises(IndexError, match="Dimension out of range"):
        strided.count_nonzero(base, 2)


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
def test_cumsum_leading_negative_zero_run_matches_torch(dtype):
    values = np.array([[-0.0, -0.0, 1.0], [-0.0, 2.0, -0.0], [3.0, -0.0, np.nan], [0.0, -0.0, -0.0]])
    x = strided.tensor(values, dtype=dtype)
    tx = torch.tensor(values, dtype=torch.float32 if dtype is strided.float32 else torch.float64)
    for dim in (0, 1):
        ours, peer = strided.cumsum(x, dim).numpy(), torch.cumsum(tx, dim).numpy()
        np.testing.assert_array_equal(ours, peer)
        assert np.array_equal(np.signbit(ours), np.signbit(peer)), dim


def test_numpy_view_of_row_major_layouts_is_the_strided_view():
    # numpy_view reshapes a slice of the buffer for a row-major layout, else builds the view from
    # byte strides; both must address exactly the layout's elements, writably.
    from strided.kernels.memory import numpy_view
    from strided.layout import Layout

    storage = strided.arange(24.0)._storage
    flat = storage.array
    for shape, strides, offset in [((2, 3), (3, 1), 0), ((2, 3), (3, 1), 5), ((), (), 7), ((24,), (1,), 0),
                                   ((3, 2), (1, 3), 1), ((2, 1, 3), (3, 3, 1), 2), ((0, 3), (3, 1), 4),
                                   ((4,), (0,), 3), ((2, 2), (6, 2), 1)]:
        v = numpy_view(storage, Layout(shape, strides, offset))
        expected = np.lib.stride_tricks.as_strided(flat[offset:], shape, [s * flat.itemsize for s in strides])
        assert v.shape == shape and v.flags.writeable and np.shares_memory(v, flat) == (v.size > 0)
        np.testing.assert_array_equal(v, expected)
    with pytest.raises(RuntimeError, match="out of bounds"):
        numpy_view(storage, Layout((5, 5), (5, 1), 0))  # (a row-major layout past the buffer)


def test_result_plans_give_fresh_storages_and_keep_the_negative_size_error():
    from strided.dispatch import result

    a, b = result((2, 3), strided.float32), result((2, 3), strided.float32)
    assert a._storage is not b._storage and not np.shares_memory(a._storage.array, b._storage.array)
    assert a.stride() == (3, 1) and result((2, 3), strided.float64, (1, 2)).stride() == (1, 2)
    assert a.untyped_storage().resizable() and result([2, 3], strided.int64).stride() == (3, 1)
    for _ in range(2):  # (an error is never remembered as a plan)
        with pytest.raises(RuntimeError, match=r"negative dimension -3: \[2, -3\]"):
            result((2, -3), strided.float32)


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
def test_clamp_with_tensor_bounds_fast_path_is_the_general_path(dtype):
    values = np.array([[-2.0, -0.0, 0.0, np.nan], [1.0, 3.0, -np.inf, 0.5]])
    x = strided.tensor(values, dtype=dtype)
    lo = strided.tensor([[0.0, 0.0, -0.0, 1.0], [np.nan, 2.0, -1.0, 0.5]], dtype=dtype)
    hi = strided.tensor([[1.0, -0.0, 0.0, 2.0], [0.0, 2.5, -2.0, 0.25]], dtype=dtype)
    tx, tlo, thi = (torch.tensor(t.numpy()) for t in (x, lo, hi))
    for call in (lambda m, a, b, c: m.clamp_min(a, b), lambda m, a, b, c: m.clamp_max(a, c),
                 lambda m, a, b, c: m.clamp(a, b, c), lambda m, a, b, c: m.clamp(a, min=b),
                 lambda m, a, b, c: m.clamp(a[1:], b[1:], c[1:])):
        fast = call(strided, x, lo, hi)
        slow = call(strided, x.t().contiguous().t(), lo, hi)  # (a column-major input: the general path)
        peer = call(torch, tx, tlo, thi)
        # (each against torch on its own layout, zero signs and NaN bits included: PyTorch's bits
        # of ties and NaNs depend on its loop, so the two layouts may differ there, as in torch)
        slow_peer = call(torch, tx.t().contiguous().t(), tlo, thi)
        for got, want in ((fast, peer), (slow, slow_peer)):
            np.testing.assert_array_equal(got.numpy(), want.numpy())
            assert np.ascontiguousarray(got.numpy()).tobytes() == np.ascontiguousarray(want.numpy()).tobytes()
        assert fast.dtype == dtype and fast.stride() == peer.stride()


def test_count_nonzero_full_past_the_small_count_matches_torch():
    from strided.ops.reductions import nan_reductions as N

    a = np.random.default_rng(1).standard_normal((N._SMALL_COUNT // 40 + 1, 41)).astype(np.float32)
    a[a < 0.3] = 0
    a[0, 0] = np.nan
    for x in (a[:3], a):  # (either side of the threshold: the same count)
        ours = strided.count_nonzero(strided.tensor(x))
        assert ours.shape == () and ours.dtype == strided.int64
        assert ours.item() == torch.count_nonzero(torch.tensor(x)).item()
