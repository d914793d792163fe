"""clamp / clamp_min / clamp_max on complex tensors: PyTorch's refusals, class and first line
(``clamp_min(tensor)`` is its ``maximum`` kernel: '"maximum_cpu" not implemented for ...';
a real in-place target with a complex bound: the cast refusal first)."""

import itertools

import pytest
import torch

import strided
from oracle_helpers import outcome


def _check(case):
    want, got = outcome(lambda: case(torch))[1], outcome(lambda: case(strided))[1]
    assert want is not None and got is not None
    assert isinstance(got, type(want))
    assert str(got).splitlines()[0] == str(want).splitlines()[0]


@pytest.mark.parametrize("dtype,fn,bound,form", list(itertools.product(
    ["complex64", "complex128"], ["clamp_min", "clamp_max", "clamp"], ["tensor", "number", "0-d"],
    ["method", "inplace", "func", "out"])))
def test_complex_clamp_refusals_match_torch(dtype, fn, bound, form):
    def case(lib):
        dt = getattr(lib, dtype)
        x = lib.ones(3, dtype=dt)
        b = {"tensor": lambda: lib.ones(3, dtype=dt), "number": lambda: 0.5, "0-d": lambda: lib.tensor(1, dtype=dt)}[bound]()
        args = (b,) if fn != "clamp" else (b, b)
        if form == "method":
            getattr(x, fn)(*args)
        elif form == "inplace":
            getattr(x, fn + "_")(*args)
        elif form == "func":
            getattr(lib, fn)(x, *args)
        else:
            getattr(lib, fn)(x, *args, out=lib.empty(3, dtype=dt))

    _check(case)


@pytest.mark.parametrize("fn", ["clamp_min", "clamp_max", "clamp_min_", "clamp_max_"])
@pytest.mark.parametrize("self_dtype", ["float32", "int64"])
def test_real_self_complex_tensor_bound_matches_torch(fn, self_dtype):
    _check(lambda lib: getattr(lib.ones(3, dtype=getattr(lib, self_dtype)), fn)(lib.ones(3, dtype=lib.complex64)))
