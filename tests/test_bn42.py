"""F.batch_norm of an input without elements, as PyTorch's empty-input branch takes it: before every
other check of the kernel (sizes, dtypes, evaluation statistics), a clone times ``weight[0]`` plus
``bias[0]`` -- so a weight or bias without elements (an input without channels) raises IndexError,
and a weight of the wrong size passes. Compared with PyTorch: shape, strides, dtype, error class."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
import strided.nn.functional as SF

DTYPES = [("float32", torch.float32), ("float64", torch.float64), ("float16", torch.float16)]


def _pair(shape: tuple[int, ...], dtype: tuple[str, torch.dtype], permuted: bool) -> tuple[torch.Tensor, st.Tensor]:
    t = torch.zeros(shape, dtype=dtype[1])
    s = st.zeros(shape, dtype=getattr(st, dtype[0]))
    if permuted and len(shape) > 1:
        order = tuple(reversed(range(len(shape))))
        t = t.permute(order).contiguous().permute(order)
        s = s.permute(order).contiguous().permute(order)
    assert t.stride() == s.stride()
    return t, s


def _param(n: int | None, dtype: tuple[str, torch.dtype]) -> tuple[torch.Tensor | None, st.Tensor | None]:
    if n is None:
        return None, None
    return torch.full((n,), 2.0, dtype=dtype[1]), st.full((n,), 2.0, dtype=getattr(st, dtype[0]))


def _outcome(fn, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
    try:
        r = fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001  (the class is what is compared)
        return (next(k for k in type(e).__mro__ if k.__module__ == "builtins").__name__,)
    return ("ok", tuple(r.shape), tuple(r.stride()), str(r.dtype).rpartition(".")[2])


@settings(max_examples=150, deadline=None)
@given(shape=hs.lists(hs.integers(0, 3), min_size=1, max_size=4).filter(lambda s: 0 in s).map(tuple),
       dtype=hs.sampled_from(DTYPES), param_dtype=hs.sampled_from(DTYPES), training=hs.booleans(),
       permuted=hs.booleans(), w=hs.one_of(hs.none(), hs.integers(0, 4)), b=hs.one_of(hs.none(), hs.integers(0, 4)),
       stats=hs.one_of(hs.none(), hs.integers(0, 4)))
def test_empty_inputs_follow_pytorchs_empty_branch(shape, dtype, param_dtype, training, permuted, w, b, stats) -> None:
    tx, sx = _pair(shape, dtype, permuted)
    tw, sw = _param(w, param_dtype)
    tb, sb = _param(b, param_dtype)
    trm, srm = _param(stats, dtype)
    trv, srv = _param(stats, dtype)
    want = _outcome(F.batch_norm, tx, trm, trv, tw, tb, training=training)
    got = _outcome(SF.batch_norm, sx, srm, srv, sw, sb, training=training)
    assert got == want


def test_no_channels_with_a_weight_names_the_reason_and_the_fix() -> None:
    with pytest.raises(IndexError, match=r"select\(\): index 0 out of range") as caught:
        SF.batch_norm(st.zeros(4, 0), st.zeros(0), st.zeros(0), weight=st.zeros(0))
    assert "weight=None" in str(caught.value) and "no elements" in str(caught.value)
    with pytest.raises(IndexError, match="bias=None"):
        SF.batch_norm(st.zeros(4, 0), None, None, bias=st.zeros(0), training=True)


def test_an_empty_training_batch_of_one_value_per_channel_is_still_refused_first() -> None:
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        F.batch_norm(torch.zeros(1, 0), None, None, weight=torch.zeros(0), training=True)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        SF.batch_norm(st.zeros(1, 0), None, None, weight=st.zeros(0), training=True)


def test_empty_inputs_leave_the_running_statistics_and_give_zero_parameter_gradients() -> None:
    rm, rv = st.full((3,), 0.5), st.full((3,), 2.0)
    sx = st.zeros(0, 3, requires_grad=True)
    sw, sb = st.ones(3, requires_grad=True), st.zeros(3, requires_grad=True)
    SF.batch_norm(sx, rm, rv, sw, sb, training=True).sum().backward()
    assert rm.tolist() == [0.5] * 3 and rv.tolist() == [2.0] * 3
    tx = torch.zeros(0, 3, requires_grad=True)
    tw, tb = torch.ones(3, requires_grad=True), torch.zeros(3, requires_grad=True)
    F.batch_norm(tx, torch.full((3,), 0.5), torch.full((3,), 2.0), tw, tb, training=True).sum().backward()
    assert sw.grad.tolist() == tw.grad.tolist() and sb.grad.tolist() == tb.grad.tolist()
    assert tuple(sx.grad.shape) == tuple(tx.grad.shape)


def test_non_empty_inputs_keep_their_values() -> None:
    x = torch.randn(5, 3, 4, dtype=torch.float64)
    w, b = torch.randn(3, dtype=torch.float64), torch.randn(3, dtype=torch.float64)
    want = F.batch_norm(x, None, None, w, b, training=True)
    got = SF.batch_norm(st.tensor(x.numpy()), None, None, st.tensor(w.numpy()), st.tensor(b.numpy()), training=True)
    assert torch.allclose(torch.from_numpy(got.numpy()), want, rtol=1e-12, atol=1e-12)
