"""Index tensors read by a backward rule, written in place between forward and backward.

PyTorch saves the index tensors of ``x[idx]``, ``index_put``/``index_put_`` and ``t[idx] = v``
with their versions (a later ``idx.zero_()`` makes backward raise), turns a list key into a
tensor when it indexes (a list changed afterwards moves nothing), and gathers
``take_along_dim(x, idx, dim)`` through a copy of the indices (a later write changes nothing).
strided read the key again at backward: the gradient went silently to the new positions.
Each case runs in both libraries; the outcome (error class and text, or the gradient) must agree.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st

MASK = [[True, False, True], [False, True, False]]


def _setitem(lib, x, i):
    c = x.clone()
    c[i] = 0.0
    return c


CASES = {
    # name: (forward(lib, x, key) -> y, key maker(lib), in-place change of the key)
    "getitem long": (lambda lib, x, i: x[i], lambda lib: lib.tensor([1, 0, 1]), lambda i: i.zero_()),
    "getitem long, 2nd dim": (lambda lib, x, i: x[:, i], lambda lib: lib.tensor([2, 0]), lambda i: i.zero_()),
    "getitem two long": (lambda lib, x, i: x[i, i], lambda lib: lib.tensor([1, 0]), lambda i: i.zero_()),
    "getitem bool": (lambda lib, x, m: x[m], lambda lib: lib.tensor(MASK), lambda m: m.logical_not_()),
    "getitem list": (lambda lib, x, i: x[i], lambda lib: [1, 0, 1], lambda i: i.__setitem__(0, 0)),
    "getitem list in tuple": (lambda lib, x, i: x[(i, 1)], lambda lib: [1, 0], lambda i: i.__setitem__(0, 0)),
    "getitem ndarray": (lambda lib, x, i: x[i], lambda lib: np.array([1, 0, 1]), lambda i: i.fill(0)),
    "index_put values": (lambda lib, x, i: lib.zeros(3, 3).index_put((i,), x), lambda lib: lib.tensor([0, 2]),
                         lambda i: i.zero_()),
    "index_put self": (lambda lib, x, i: x.index_put((i,), lib.tensor(1.0)), lambda lib: lib.tensor([1]),
                       lambda i: i.zero_()),
    "index_put_ in place": (lambda lib, x, i: x.clone().index_put_((i,), lib.tensor(1.0)),
                            lambda lib: lib.tensor([1]), lambda i: i.zero_()),
    "setitem long": (_setitem, lambda lib: lib.tensor([1]), lambda i: i.zero_()),
    "setitem bool": (_setitem, lambda lib: lib.tensor(MASK), lambda m: m.logical_not_()),
    "setitem list": (_setitem, lambda lib: [1], lambda i: i.__setitem__(0, 0)),
    "take_along_dim, dim": (lambda lib, x, i: lib.take_along_dim(x, i, 1), lambda lib: lib.tensor([[1], [2]]),
                            lambda i: i.zero_()),
    "take_along_dim, same shape": (lambda lib, x, i: lib.take_along_dim(x, i, 1),
                                   lambda lib: lib.tensor([[1, 0, 2], [2, 1, 0]]), lambda i: i.zero_()),
    "take_along_dim, flat": (lambda lib, x, i: lib.take_along_dim(x, i), lambda lib: lib.tensor([1, 4]),
                             lambda i: i.zero_()),
    "gather": (lambda lib, x, i: x.gather(1, i), lambda lib: lib.tensor([[1], [2]]), lambda i: i.zero_()),
}


def _outcome(lib, name: str, weights: list[float]) -> tuple:
    forward, make_key, change = CASES[name]
    x = lib.arange(6.0).reshape(2, 3).requires_grad_()
    key = make_key(lib)
    y = forward(lib, x, key)
    change(key)
    w = lib.tensor(weights[: y.numel()]).reshape(y.shape)
    try:
        (y * w).sum().backward()
    except RuntimeError as err:
        return "RuntimeError", str(err).splitlines()[0]
    return "ok", x.grad.tolist()


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_key_written_after_the_forward_gives_pytorchs_outcome(name: str) -> None:
    weights = [1.0, 2.0, 3.0, 5.0, 7.0, 11.0, 13.0, 17.0, 19.0]  # (distinct: a moved gradient shows)
    expected = _outcome(torch, name, weights)
    got = _outcome(st, name, weights)
    assert got[0] == expected[0], (got, expected)
    if got[0] == "ok":
        assert got[1] == expected[1]
    else:
        assert "modified by an inplace operation" in got[1]
        # (torch's type name, shape and versions: "[torch.LongTensor [3]] is at version 1; ...")
        assert got[1].split(": ", 1)[1] == expected[1].split(": ", 1)[1]


def test_the_key_left_alone_still_gives_the_gradient() -> None:
    for lib in (torch, st):
        x = lib.arange(6.0).reshape(2, 3).requires_grad_()
        idx = lib.tensor([1, 0, 1])
        (x[idx] * lib.tensor([[1.0], [2.0], [3.0]])).sum().backward()
        if lib is torch:
            expected = x.grad.tolist()
    assert x.grad.tolist() == expected


def test_double_backward_reads_the_key_of_the_forward() -> None:
    grads = []
    for lib in (torch, st):
        x = lib.arange(6.0).reshape(2, 3).requires_grad_()
        key = [1, 0, 1]
        y = (x[key] ** 2).sum()
        key[0] = 0
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
        grads.append((g.tolist(), x.grad.tolist()))
    assert grads[1] == grads[0]


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                                   "float32", "float64", "complex64", "complex128"])
def test_the_error_names_the_saved_tensors_type_as_pytorch(dtype: str) -> None:
    """``[torch.LongTensor [2]]`` for the eight legacy types, ``[CPUBoolType [2]]``,
    ``[CPUBFloat16Type [2]]``, ``[CPUComplexFloatType [2]]`` for the others."""
    lines = []
    for lib in (torch, st):
        x = lib.ones(2, dtype=lib.complex128, requires_grad=True)
        other = lib.ones(2, dtype=getattr(lib, dtype))
        y = x * other  # (MulBackward0 saves other)
        other.logical_not_() if dtype == "bool" else other.mul_(2)
        with pytest.raises(RuntimeError) as err:
            y.abs().sum().backward()
        lines.append(str(err.value).splitlines()[0])
    assert lines[1] == lines[0]
