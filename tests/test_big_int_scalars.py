"""Python ints beyond 2**53 as scalars of float tensors, against torch bit for bit.

c10::Scalar holds an int as int64 and converts it to float32 in one rounding (addcmul's value=,
mul/add/div by a number, alpha=, fill, lerp's weight); strided converted through float64 and
rounded twice (2**60 + 2**36 + 1: torch 2**60 + 2**37, strided 2**60). torch.tensor(data,
dtype=float32), the other way round, reads each Python number as a double first: two roundings."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from oracle_helpers import case

BIG = [2**60 + 2**36 + 1, -(2**60 + 2**36 + 1), 2**55 + 2**31 + 3, 2**63 - 1, -(2**63), 2**53 + 1, 2**40 + 3]

CALLS = {
    "addcmul": lambda L, x: L.addcmul(x, x, x.flip(0), value=V),
    "addcdiv": lambda L, x: L.addcdiv(x, x, x.flip(0), value=V),
    "addcmul_": lambda L, x: x.clone().addcmul_(x, x, value=V),
    "mul": lambda L, x: x * V,
    "add": lambda L, x: x + V,
    "rsub": lambda L, x: V - x,
    "div": lambda L, x: x / V,
    "add alpha": lambda L, x: L.add(x, x, alpha=V),
    "full": lambda L, x: L.full((2,), V, dtype=x.dtype),
    "fill_": lambda L, x: x.clone().fill_(V),
    "lerp": lambda L, x: L.lerp(x, x * 2, V),
    "tensor": lambda L, x: L.tensor([V, 1], dtype=x.dtype),
    "tensor 0-d": lambda L, x: L.tensor(V, dtype=x.dtype),
}
V = 0


def _bits(t):
    return np.asarray(t.double().tolist() if isinstance(t, torch.Tensor) else t.to(strided.float64).tolist())


@pytest.mark.parametrize("name", list(CALLS))
def test_big_int_scalar_matches_torch(name):
    for dt in ["float32", "float64", "float16", "bfloat16"]:
        with case(dt=dt):
            _big_int_scalar_matches_torch(name, dt)


def _big_int_scalar_matches_torch(name, dt):
    global V
    for V in BIG:
        x = [lib.tensor([1.5, -0.75, 3.0], dtype=getattr(lib, dt)) for lib in (torch, strided)]
        outcomes = []
        for lib, xx in zip((torch, strided), x):
            try:
                outcomes.append(_bits(CALLS[name](lib, xx)))
            except Exception as e:  # noqa: BLE001
                outcomes.append(type(e).__name__.removeprefix("Strided"))
        want, got = outcomes
        if isinstance(want, str) or isinstance(got, str):
            assert want == got, (V, want, got)
        else:
            np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64), err_msg=str(V))


def test_int_to_float32_rounds_once_to_even():
    from strided.scalars import int_to_float32

    assert int_to_float32(2**60 + 2**36) == 2**60  # a tie: to even
    assert int_to_float32(2**60 + 3 * 2**36) == 2**60 + 2**38  # a tie: to even, up
    assert int_to_float32(-(2**60 + 2**36 + 1)) == -(2**60 + 2**37)
    assert int_to_float32(2**128) == float("inf") and int_to_float32(2**128 - 2**103) == float("inf")
    assert int_to_float32(2**128 - 2**104) == float(np.finfo(np.float32).max)
