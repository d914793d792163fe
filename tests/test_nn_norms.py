"""F.batch_norm against torch.nn.functional: values, running statistics updated in place (unbiased
variance), gradients (first and second order) in training and evaluation, errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided as st
import strided.nn.functional as F
from oracle_helpers import assert_same_tensor, same_error

TOL = {"float32": (1e-5, 1e-5), "float64": (1e-10, 1e-10)}
RNG = np.random.default_rng(27)


def pair(a: np.ndarray, grad: bool = False) -> tuple[torch.Tensor, st.Tensor]:
    t, s = torch.from_numpy(a.copy()), st.from_numpy(a.copy())
    return (t.requires_grad_(True), s.requires_grad_(True)) if grad else (t, s)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape,affine,layout", [((4, 3), True, "contiguous"), ((2, 3, 5), False, "transposed"),
                                                 ((2, 3, 4, 4), True, "channels_last")])
def test_batch_norm_values_stats_and_gradients(shape, affine, layout, training, dtype):
    a = (RNG.standard_normal(shape) * 3 + 1).astype(dtype)
    tx, sx = pair(a, True)
    if layout == "transposed":
        tx, sx = tx.transpose(0, 2), sx.transpose(0, 2)
        tx, sx = tx.contiguous().transpose(0, 2), sx.contiguous().transpose(0, 2)
    elif layout == "channels_last":
        tx, sx = tx.contiguous(memory_format=torch.channels_last), sx.contiguous(memory_format=st.channels_last)
    c = shape[1]
    (trm, srm), (trv, srv) = pair(RNG.standard_normal(c).astype(dtype)), pair(RNG.random(c).astype(dtype) + 0.5)
    (tw, sw), (tb, sb) = (pair(RNG.standard_normal(c).astype(dtype), True) if affine else (None, None)
                          for _ in range(2))
    kw = {"training": training, "momentum": 0.3, "eps": 1e-3}
    ty, sy = TF.batch_norm(tx, trm, trv, tw, tb, **kw), F.batch_norm(sx, srm, srv, sw, sb, **kw)
    assert_same_tensor(sy.detach(), ty.detach(), TOL, strides=False)
    assert sy.grad_fn.name() == ty.grad_fn.name()
    assert_same_tensor(srm, trm, TOL)
    assert_same_tensor(srv, trv, TOL)
    assert srm._version == trm._version
    wrt_t = [t for t in (tx, tw, tb) if t is not None]
    wrt_s = [t for t in (sx, sw, sb) if t is not None]
    g = RNG.standard_normal(shape).astype(dtype)
    tg = torch.autograd.grad(ty, wrt_t, torch.from_numpy(g), create_graph=True)
    sg = st.autograd.grad(sy, wrt_s, st.from_numpy(g), create_graph=True)
    for s_, t_ in zip(sg, tg):
        assert_same_tensor(s_.detach(), t_.detach(), TOL, strides=False)
    if training:
        t2 = torch.autograd.grad((tg[0] ** 2).sum(), wrt_t[0])
        s2 = st.autograd.grad((sg[0] ** 2).sum(), wrt_s[0])
        assert_same_tensor(s2[0], t2[0], {"float32": (1e-3, 1e-3), "float64": (1e-9, 1e-9)}, strides=False)


def test_batch_norm_without_running_stats():
    a = RNG.standard_normal((5, 2)).astype("float32")
    (tx, sx) = pair(a)
    assert_same_tensor(F.batch_norm(sx, None, None, training=True), TF.batch_norm(tx, None, None, training=True),
                       TOL)


ERRORS = [
    ((4, 3), 3, 2, {}),
    ((4, 3), 3, 3, {"weight": 2}),
    ((4, 3), 3, 3, {"bias": 2}),
    ((4,), 3, 3, {}),
    ((4, 3), None, None, {}),
    ((1, 3, 1), 3, 3, {"training": True}),
]


@pytest.mark.parametrize("shape,m,v,kw", ERRORS)
def test_batch_norm_errors_like_torch(shape, m, v, kw):
    kw = dict(kw)
    a = RNG.standard_normal(shape).astype("float32")
    tx, sx = pair(a)
    tm, sm = pair(np.zeros(m, "float32")) if m else (None, None)
    tv, sv = pair(np.ones(v, "float32")) if v else (None, None)
    extra_t, extra_s = {}, {}
    for name in ("weight", "bias"):
        if name in kw:
            extra_t[name], extra_s[name] = pair(np.ones(kw.pop(name), "float32"))
    same_error(lambda: TF.batch_norm(tx, tm, tv, **extra_t, **kw), lambda: F.batch_norm(sx, sm, sv, **extra_s, **kw))
    ti, si = pair(np.ones((4, 3), "int64"))
    same_error(lambda: TF.batch_norm(ti, tm, tv), lambda: F.batch_norm(si, sm, sv))


@pytest.mark.parametrize("shape,groups,affine", [((2, 6, 3), 3, True), ((2, 4, 3, 3), 2, False), ((3, 4), 4, True)])
def test_group_norm(shape, groups, affine):
    a = RNG.standard_normal(shape) * 2 + 1
    tx, sx = pair(a, True)
    (tw, sw), (tb, sb) = (pair(RNG.standard_normal(shape[1]), True) if affine else (None, None) for _ in range(2))
    ty, sy = TF.group_norm(tx, groups, tw, tb), F.group_norm(sx, groups, sw, sb)
    assert_same_tensor(sy.detach(), ty.detach(), TOL, strides=False)
    wrt_t = [t for t in (tx, tw, tb) if t is not None]
    wrt_s = [t for t in (sx, sw, sb) if t is not None]
    g = RNG.standard_normal(shape)
    for s_, t_ in zip(st.autograd.grad(sy, wrt_s, st.from_numpy(g)), torch.autograd.grad(ty, wrt_t, torch.from_numpy(g))):
        assert_same_tensor(s_, t_, TOL, strides=False)


@pytest.mark.parametrize("shape,groups,wsize", [((2, 6, 3), 4, None), ((2, 6, 3), 3, 5), ((6,), 3, None)])
def test_group_norm_errors(shape, groups, wsize):
    a = RNG.standard_normal(shape).astype("float32")
    w = np.ones(wsize, "float32") if wsize else None
    same_error(lambda: TF.group_norm(torch.from_numpy(a), groups, None if w is None else torch.from_numpy(w)),
               lambda: F.group_norm(st.from_numpy(a), groups, None if w is None else st.from_numpy(w)))
