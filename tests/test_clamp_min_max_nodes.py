"""clamp_min / clamp_max record PyTorch's own nodes (ClampMinBackward0/1, ClampMaxBackward0/1,
not clamp's), and clamp_min_ / clamp_max_ exist as PyTorch's in-place methods: values, dtypes,
gradients to the second order (kinks included: a bound equal to an element), errors."""

from __future__ import annotations

import pytest
import torch

import strided as st

BOUND = [0.5, 2.0, -1.0]  # (0.5 and 2.0 equal elements of x: the kinks)
CASES = {
    "clamp_min number": lambda L, x: x.clamp_min(0.5),
    "clamp_max number": lambda L, x: x.clamp_max(2.0),
    "clamp_min tensor": lambda L, x: x.clamp_min(L.tensor(BOUND, dtype=L.float64, requires_grad=True)),
    "clamp_max tensor": lambda L, x: x.clamp_max(L.tensor(BOUND, dtype=L.float64, requires_grad=True)),
    "function": lambda L, x: L.clamp_min(x, 0.5),
    "clamp_min_ number": lambda L, x: (x * 1).clamp_min_(0.5),
    "clamp_max_ number": lambda L, x: (x * 1).clamp_max_(2.0),
    "clamp_min_ tensor": lambda L, x: (x * 1).clamp_min_(L.tensor(BOUND, dtype=L.float64, requires_grad=True)),
    "clamp_max_ tensor": lambda L, x: (x * 1).clamp_max_(L.tensor(BOUND, dtype=L.float64, requires_grad=True)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_nodes_values_and_two_derivatives_as_pytorch(name: str) -> None:
    results = []
    for lib in (torch, st):
        x = lib.tensor([-1.0, 0.5, 2.0], dtype=lib.float64, requires_grad=True)
        y = CASES[name](lib, x)
        w = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
        (g,) = lib.autograd.grad((y * y * w).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        results.append((y.grad_fn.name(), y.tolist(), g.tolist(), gg.tolist()))
    assert results[1] == results[0]


@pytest.mark.parametrize("case", [
    lambda L: L.tensor([1.0, 5.0]).clamp_max_(2).tolist(),
    lambda L: L.tensor([1, 5]).clamp_min_(2).tolist(),
    lambda L: L.ones(2).clamp_min_(L.ones(3)),
    lambda L: L.tensor([1 + 1j]).clamp_min_(0),
    lambda L: L.tensor([1.0, 2.0], requires_grad=True).clamp_min_(0.0),
])
def test_in_place_forms_as_pytorch(case) -> None:
    outcomes = []
    for lib in (torch, st):
        try:
            outcomes.append(("ok", case(lib)))
        except Exception as err:  # noqa: BLE001 - the class and text are the comparison
            outcomes.append((type(err).__name__.replace("Strided", ""), str(err).splitlines()[0]))
    assert outcomes[1] == outcomes[0]


def test_in_place_writes_through_a_view() -> None:
    x = st.arange(6.0).view(2, 3)
    col = x[:, 1]
    assert col.clamp_max_(2.0) is col
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 2.0, 5.0]]
