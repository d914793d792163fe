"""Ops whose results read only their tensor arguments' layout and dtype (``zeros_like``, ``x.new_ones``)
give a plain tensor for an argument that requires grad, as PyTorch's do; ops that read values
without a rule still refuse (the registry's ``layout_only`` declaration decides, never a name list)."""

import pytest
import torch

import strided
from strided.opdef import OPDEFS

_LIKE = {
    "empty_like": (), "zeros_like": (), "ones_like": (), "full_like": (2.5,), "rand_like": (),
    "randn_like": (), "randint_like": (5,),
}
_NEW = {"new_zeros": ((2, 3),), "new_ones": ((2,),), "new_empty": ((4,),), "new_full": ((2,), 1.5)}


@pytest.mark.parametrize("name", sorted(_LIKE))
def test_like_of_a_tensor_requiring_grad_is_plain_as_pytorchs(name):
    x, tx = strided.ones(2, 3).t().requires_grad_(), torch.ones(2, 3).t().requires_grad_()
    got, want = getattr(strided, name)(x, *_LIKE[name]), getattr(torch, name)(tx, *_LIKE[name])
    assert (got.requires_grad, got.grad_fn is None) == (want.requires_grad, want.grad_fn is None) == (False, True)
    assert got.stride() == want.stride() and tuple(got.shape) == tuple(want.shape)
    if got.dtype.is_floating_point:  # (randint_like's float result of a float x: no requires_grad= in torch's either)
        asked = getattr(strided, name)(x, *_LIKE[name], requires_grad=True)
        assert asked.requires_grad and asked.is_leaf
    assert OPDEFS[name].layout_only


@pytest.mark.parametrize("name", sorted(_NEW))
def test_new_of_a_tensor_requiring_grad_is_plain_as_pytorchs(name):
    x, tx = strided.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    got, want = getattr(x, name)(*_NEW[name]), getattr(tx, name)(*_NEW[name])
    assert got.requires_grad == want.requires_grad is False
    assert tuple(got.shape) == tuple(want.shape)


def test_a_layout_only_result_still_reports_to_a_watch():
    x = strided.ones(3, requires_grad=True)
    with strided.record_copies() as _, strided.watch() as w:
        strided.zeros_like(x)
    assert any(step.name == "zeros_like" for step in w.steps)


def test_ops_reading_values_without_a_rule_still_refuse():
    p = strided.full((3,), 0.5, requires_grad=True)
    with pytest.raises(NotImplementedError, match="bernoulli\\(\\) is not differentiable yet"):
        strided.bernoulli(p)
    assert not OPDEFS["bernoulli"].layout_only and not OPDEFS["tensor"].layout_only


def test_layout_only_names_an_op_of_its_declaration():
    from strided.opdef import Kind, declare

    with pytest.raises(ValueError, match="layout_only='zeros': not an op of this declaration"):
        declare(Kind.COPY, "", layout_only="zeros")
