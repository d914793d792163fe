"""A leaf's ``.grad`` strides as PyTorch's AccumulateGrad makes them (``obeys_layout_contract``:
a fresh gradient no one else holds is kept when its strides equal the leaf's on every dim of size
other than 1 and are non-zero on the size-1 dims; else a copy with the leaf's own strides, zeros
on size-1 dims included), for leaves with size-1 dims and unusual strides (as_strided,
transposes, slices, steps, expand), after sum/mean/mul/exp/reshape/... and an explicit
gradient; differential against torch."""

from __future__ import annotations

import pytest
import torch

import strided


def _makers(mod):
    return {
        "plain111": lambda: mod.zeros(1, 1, 1),
        "as_strided111": lambda: mod.zeros(10).as_strided((1, 1, 1), (5, 7, 3)),
        "as_strided11_zero": lambda: mod.zeros(10).as_strided((1, 1), (0, 0)),
        "as_strided1": lambda: mod.zeros(10).as_strided((1,), (4,)),
        "transposed11": lambda: mod.zeros(1, 1).t(),
        "permute111": lambda: mod.zeros(1, 1, 1).permute(2, 0, 1),
        "slice11": lambda: mod.zeros(3, 4)[1:2, 2:3],
        "slice111": lambda: mod.zeros(2, 3, 4)[1:2, ::3, 3:],
        "step1": lambda: mod.zeros(5)[::7],
        "expand11": lambda: mod.zeros(1, 1).expand(1, 1),
        "unsqueezed": lambda: mod.zeros(1)[:, None, None],
        "zero_d": lambda: mod.zeros(()),
        "as_strided1111": lambda: mod.zeros(100).as_strided((1, 1, 1, 1), (1, 100, 3, 17)),
        "as13": lambda: mod.zeros(40).as_strided((1, 3), (7, 1)),
        "as1x": lambda: mod.zeros(40).as_strided((2, 1, 3), (3, 0, 1)),
        "transposed": lambda: mod.zeros(3, 2).t(),
        "as31": lambda: mod.zeros(40).as_strided((3, 1), (1, 9)),
    }


OPS = {
    "sum": lambda x: x.sum(),
    "mul": lambda x: (x * 2).sum(),
    "exp": lambda x: x.exp().sum(),
    "square": lambda x: (x * x).sum(),
    "reshape": lambda x: x.reshape(-1).sum(),
    "mean": lambda x: x.mean(),
    "expand_sum": lambda x: x.expand(*[3 if n == 1 else n for n in x.shape]).sum() if x.dim() else x.sum(),
    "clone": lambda x: x.clone().sum(),
    "contiguous": lambda x: x.contiguous().sum(),
    "squeeze": lambda x: x.squeeze().sum(),
    "sum_dim": lambda x: x.sum(0).sum() if x.dim() else x.sum(),
    "sum_keepdim": lambda x: x.sum(-1, keepdim=True).sum() if x.dim() else x.sum(),
    "two_paths": lambda x: (x * x + x.exp()).sum(),
    "index": lambda x: x[0].sum() if x.dim() else x.sum(),
    "norm": lambda x: x.norm(),
    "norm_dim": lambda x: x.norm(dim=0).sum() if x.dim() else x.norm(),
    "norm_p3": lambda x: x.norm(p=3),
    "explicit": None,
}


@pytest.mark.parametrize("maker", sorted(_makers(torch)))
@pytest.mark.parametrize("op", sorted(OPS))
def test_grad_strides_match_torch(maker, op):
    got = []
    for mod in (torch, strided):
        x = _makers(mod)[maker]().requires_grad_()
        if OPS[op] is None:
            x.backward(mod.ones(tuple(x.shape)))
        else:
            OPS[op](x).backward()
        got.append((tuple(x.grad.shape), tuple(x.grad.stride()), x.grad.tolist()))
    assert got[1] == got[0]


def test_second_backward_accumulates_in_place():
    for mod in (torch, strided):
        x = mod.zeros(10).as_strided((1, 1, 1), (5, 7, 3)).requires_grad_()
        (x * 2).sum().backward()
        first = x.grad
        x.sum().backward()
        assert x.grad is first and x.grad.tolist() == [[[3.0]]] and x.grad.stride() == (1, 1, 1)
