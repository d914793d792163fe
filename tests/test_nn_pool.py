"""F.max_pool1d/2d and F.avg_pool1d/2d against torch.nn.functional: values, indices (ties: the first
maximum; NaN wins), gradients (first and second order), error classes and first lines."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided as st
import strided.nn.functional as F
from oracle_helpers import assert_same_tensor, case, same_error

TOL = {"float32": (1e-6, 1e-6), "float64": (1e-12, 1e-12)}
RNG = np.random.default_rng(26)

CASES = [
    ("max_pool2d", (2, 3, 7, 6), {"kernel_size": 2}),
    ("max_pool2d", (2, 3, 7, 6), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    ("max_pool2d", (3, 7, 6), {"kernel_size": (2, 3), "stride": (1, 2), "dilation": (2, 1), "padding": (1, 1)}),
    ("avg_pool2d", (2, 3, 7, 6), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    ("avg_pool2d", (2, 3, 7, 6), {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False,
                                  "ceil_mode": True}),
    ("avg_pool2d", (3, 5, 6), {"kernel_size": 2, "divisor_override": 3}),
    ("max_pool1d", (2, 3, 8), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    ("avg_pool1d", (3, 8), {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False}),
    ("max_pool2d", (0, 3, 4, 4), {"kernel_size": 2}),
]


def pair(a: np.ndarray, kind: str = "contiguous") -> tuple[torch.Tensor, st.Tensor]:
    t, s = torch.from_numpy(a.copy()), st.from_numpy(a.copy())
    if kind == "channels_last":  # the channels the unit-stride dim
        perm = (0, *range(2, a.ndim), 1)
        back = tuple(np.argsort(perm))
        t, s = t.permute(perm).contiguous().permute(back), s.permute(perm).contiguous().permute(back)
    if kind == "transposed":
        t, s = t.transpose(-1, -2).contiguous().transpose(-1, -2), s.transpose(-1, -2).contiguous().transpose(-1, -2)
    return t.requires_grad_(True), s.requires_grad_(True)


@pytest.mark.parametrize("name,shape,kw", CASES)
def test_pooling_values_and_gradients(name, shape, kw):
    for dtype, kind in itertools.product(
            ["float32", "float64"],
            ["contiguous", "transposed", "channels_last"]):
        with case(dtype=dtype, kind=kind):
            _pooling_values_and_gradients(name, shape, kw, kind, dtype)


def _pooling_values_and_gradients(name, shape, kw, kind, dtype):
    a = np.round(RNG.standard_normal(shape), 1).astype(dtype)  # (rounded: windows with tied maxima)
    tx, sx = pair(a, kind)
    ty, sy = getattr(TF, name)(tx, **kw), getattr(F, name)(sx, **kw)
    assert_same_tensor(sy.detach(), ty.detach(), TOL)
    assert sy.grad_fn.name() == ty.grad_fn.name()
    g = RNG.standard_normal(ty.shape).astype(dtype)
    tgo, sgo = torch.from_numpy(g).requires_grad_(True), st.from_numpy(g).requires_grad_(True)
    tg = torch.autograd.grad(ty, tx, tgo, create_graph=True)[0]
    sg = st.autograd.grad(sy, sx, sgo, create_graph=True)[0]
    assert_same_tensor(sg.detach(), tg.detach(), TOL, strides=False)
    if name.startswith("max"):
        tv, ti = getattr(TF, name)(tx.detach(), return_indices=True, **kw)
        sv, si = getattr(F, name)(sx.detach(), return_indices=True, **kw)
        assert_same_tensor(si, ti, TOL)
    if a.size:  # the gradient is linear in g: its own gradient (double backward) with respect to g
        w = RNG.standard_normal(shape).astype(dtype)
        t2 = torch.autograd.grad((tg * torch.from_numpy(w)).sum(), tgo)[0]
        s2 = st.autograd.grad((sg * st.from_numpy(w)).sum(), sgo)[0]
        assert_same_tensor(s2, t2, TOL, strides=False)


def test_max_pool_nan_wins_and_gradient_through_indices():
    a = np.array([[[1.0, np.nan, 3.0, 2.0, np.nan, np.nan]]])
    tx, sx = pair(a)
    tv, ti = TF.max_pool1d(tx, 2, return_indices=True)
    sv, si = F.max_pool1d(sx, 2, return_indices=True)
    assert_same_tensor(si, ti, TOL)
    np.testing.assert_array_equal(sv.detach().numpy(), tv.detach().numpy())
    (tv.nan_to_num() * 2).sum().backward()
    (sv.nan_to_num() * 2).sum().backward()
    np.testing.assert_array_equal(sx.grad.numpy(), tx.grad.numpy())


def test_max_pool_overlapping_windows_accumulate():
    a = np.zeros((1, 1, 4, 4))
    a[0, 0, 1, 1] = 5.0  # the max of four overlapping windows
    tx, sx = pair(a)
    TF.max_pool2d(tx, 2, stride=1).sum().backward()
    F.max_pool2d(sx, 2, stride=1).sum().backward()
    np.testing.assert_array_equal(sx.grad.numpy(), tx.grad.numpy())
    assert sx.grad.numpy()[0, 0, 1, 1] == 4


ERRORS = [
    ("max_pool2d", (1, 3, 5, 5), {"kernel_size": 3, "padding": 2}),
    ("max_pool2d", (3, 5), {"kernel_size": 3}),
    ("avg_pool2d", (1, 3, 5, 5), {"kernel_size": 3, "padding": 2}),
    ("max_pool2d", (1, 3, 2, 2), {"kernel_size": 3}),
    ("avg_pool2d", (1, 3, 2, 2), {"kernel_size": 3}),
    ("max_pool2d", (1, 3, 5, 5), {"kernel_size": 2, "stride": 0}),
    ("max_pool2d", (1, 3, 5, 5), {"kernel_size": 2, "dilation": 0}),
    ("avg_pool2d", (1, 3, 5, 5), {"kernel_size": 2, "divisor_override": 0}),
    ("max_pool2d", (1, 3, 5, 5), {"kernel_size": (2, 2, 2)}),
    ("max_pool2d", (1, 0, 5, 5), {"kernel_size": 2}),
    ("max_pool1d", (3, 5), {"kernel_size": 0}),
    ("max_pool1d", (5,), {"kernel_size": 2}),
    ("avg_pool1d", (5,), {"kernel_size": 2}),
    ("max_pool1d", (1, 3, 5), {"kernel_size": 3, "padding": 2}),
    ("avg_pool1d", (1, 3, 2), {"kernel_size": 3}),
    ("max_pool1d", (1, 3, 2), {"kernel_size": 3}),
]


@pytest.mark.parametrize("name,shape,kw", ERRORS)
def test_pooling_errors_like_torch(name, shape, kw):
    a = RNG.standard_normal(shape).astype("float32")
    t, s = torch.from_numpy(a), st.from_numpy(a)
    same_error(lambda: getattr(TF, name)(t, **kw), lambda: getattr(F, name)(s, **kw))


def test_pooling_reads_one_window_view():
    from strided.kernels.rows import pool_windows

    x = st.randn(2, 3, 8, 8)
    with st.watch() as seen:
        F.max_pool2d(x, 2)
        F.avg_pool2d(x, 3, stride=1, padding=1)
    if pool_windows() is not None:  # (the compiled windows read the input in place: no view, no padded copy)
        assert [(s.name, s.kind) for s in seen.steps] == [("max_pool2d", "compute"), ("avg_pool2d", "compute")]
        assert seen.bytes_copied == 0
        return
    assert [(s.name, s.kind) for s in seen.steps] == [
        ("as_strided", "view"), ("max_pool2d", "compute"), ("pad", "copy"), ("as_strided", "view"),
        ("avg_pool2d", "compute")]
    assert seen.steps[0].output.shape == (2, 3, 4, 4, 2, 2)
    assert seen.bytes_copied == 2 * 3 * 10 * 10 * 4  # the padded copy only


@pytest.mark.parametrize("shape,size", [((2, 3, 8, 6), (4, 3)), ((3, 7, 5), (3, 2)), ((2, 3, 5, 5), 1),
                                        ((1, 2, 5, 6), (2, None)), ((1, 2, 4, 4), (6, 6))])
def test_adaptive_avg_pool2d(shape, size):
    a = RNG.standard_normal(shape)
    tx, sx = pair(a, "transposed")
    ty, sy = TF.adaptive_avg_pool2d(tx, size), F.adaptive_avg_pool2d(sx, size)
    assert_same_tensor(sy.detach(), ty.detach(), TOL, strides=False)
    g = RNG.standard_normal(ty.shape)
    tg = torch.autograd.grad(ty, tx, torch.from_numpy(g))[0]
    sg = st.autograd.grad(sy, sx, st.from_numpy(g))[0]
    assert_same_tensor(sg, tg, TOL, strides=False)


@pytest.mark.parametrize("shape,size", [((2, 3), 2), ((1, 2, 5, 5), (2, 3, 4)), ((1, 2, 5, 5), -1)])
def test_adaptive_avg_pool2d_errors(shape, size):
    a = RNG.standard_normal(shape).astype("float32")
    same_error(lambda: TF.adaptive_avg_pool2d(torch.from_numpy(a), size),
               lambda: F.adaptive_avg_pool2d(st.from_numpy(a), size))


def test_integer_and_half_pooling():
    a = RNG.integers(-9, 10, (2, 2, 5, 5))
    t, s = torch.from_numpy(a), st.from_numpy(a)
    for name, kw in (("avg_pool2d", {"kernel_size": 2}), ("max_pool2d", {"kernel_size": 3, "padding": 1})):
        # (an integer average truncates toward zero, as PyTorch's kernel divides)
        assert_same_tensor(getattr(F, name)(s, **kw), getattr(TF, name)(t, **kw), TOL)
    h = RNG.standard_normal((2, 2, 5, 5)).astype("float16")
    t, s = torch.from_numpy(h), st.from_numpy(h)
    for name in ("avg_pool2d", "max_pool2d"):
        assert_same_tensor(getattr(F, name)(s, 2), getattr(TF, name)(t, 2), {"float16": (1e-3, 1e-3)})
