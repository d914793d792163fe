"""An ``out=`` write inside ``inference_mode`` into a tensor made outside it: PyTorch's out stays a
normal tensor (its version counts the write, in-place ops work on it after the block), while the
tensors the block allocates are inference tensors. Checked against PyTorch op by op."""
from __future__ import annotations

import pytest
import torch

import strided as st

_WRITES = {
    "add": lambda L, x, o: L.add(x, x, out=o),
    "mul": lambda L, x, o: L.mul(x, 2.0, out=o),
    "sum": lambda L, x, o: L.sum(x, 0, out=o[0]),
    "mm": lambda L, x, o: L.mm(x, x, out=o),
    "sqrt": lambda L, x, o: L.sqrt(x, out=o),
    "cat": lambda L, x, o: L.cat([x[:1], x[1:]], out=o),
    "sort": lambda L, x, o: L.sort(x, out=(o, L.zeros(3, 3, dtype=L.int64))),
    "max_dim": lambda L, x, o: L.max(x, 1, out=(o[0], L.zeros(3, dtype=L.int64))),
    "arange": lambda L, x, o: L.arange(9.0, out=o.view(9)),
    "clamp": lambda L, x, o: L.clamp(x, 0.2, 0.8, out=o),
    "where": lambda L, x, o: L.where(x > 0.5, x, -x, out=o),
    "mul_": lambda L, x, o: o.mul_(x),
}


def _run(L, write):
    x, o = L.rand(3, 3), L.zeros(3, 3)
    with L.inference_mode():
        write(L, x, o)
        made = L.zeros(2)
        inside = o.is_inference()
    version = o._version if not o.is_inference() else None
    o.add_(1)  # (a normal tensor: an in-place op after the block is allowed)
    return inside, o.is_inference(), made.is_inference(), version is not None and version > 0


@pytest.mark.parametrize("name", sorted(_WRITES))
def test_an_out_made_outside_the_block_stays_a_normal_tensor(name: str) -> None:
    assert _run(st, _WRITES[name]) == _run(torch, _WRITES[name]) == (False, False, True, True)


def test_an_out_made_inside_the_block_stays_an_inference_tensor() -> None:
    for L in (st, torch):
        x = L.rand(3)
        with L.inference_mode():
            o = L.empty(3)
            L.add(x, x, out=o)
        assert o.is_inference()
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
            o.add_(1)
