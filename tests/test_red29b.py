"""red29b: in-place elementwise ops into a target whose elements share memory (unfold windows,
an overlapping as_strided) with an operand that widens the common dtype past the target's
(``int16.lt_(0.5)``, ``float16.add_(float32 tensor)``, ``bool.logical_and_(int16 tensor)``):
TensorIterator reads the target through a cast copy and copies its temporary back, so no element
reads another's update. Against torch bit for bit (the whole storage afterwards)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from test_overlap_updates import outcome

WIDER = {"float16": "float32", "bfloat16": "float64", "float32": "float64", "int8": "int64", "int16": "int32",
         "uint8": "int16", "int32": "int64", "bool": "int64", "complex64": "complex128", "int64": "float32"}

OPS = {
    "add_": lambda v, o: v.add_(o),
    "sub_ alpha": lambda v, o: v.sub_(o, alpha=2),
    "mul_": lambda v, o: v.mul_(o),
    "div_": lambda v, o: v.div_(o),
    "lt_": lambda v, o: v.lt_(o),
    "eq_": lambda v, o: v.eq_(o),
    "lt_ float number": lambda v, o: v.lt_(0.5),
    "logical_and_": lambda v, o: v.logical_and_(o),
    "bitwise_and_": lambda v, o: v.bitwise_and_(o),
    "clamp_min_": lambda v, o: v.clamp_min_(o),
    "addcmul_": lambda v, o: v.addcmul_(o, o, value=2),
    "remainder_": lambda v, o: v.remainder_(o),
    "hypot_": lambda v, o: v.hypot_(o),
}


def _run(lib, size, shape, strides, offset, dtype, other_shape, seed, name):
    rng = np.random.default_rng(seed)
    base = lib.tensor(rng.standard_normal(size) * 3).to(getattr(lib, dtype))
    view = base.as_strided(shape, strides, offset)
    other = lib.tensor(rng.standard_normal(other_shape) * 3).to(getattr(lib, WIDER[dtype]))
    result = outcome(lib, lambda: OPS[name](view, other), base)
    # (bitwise ops of a float operand: strided's NotImplementedError is a RuntimeError, as torch's
    # "not implemented for 'Float'"; the class difference is not this test's matter)
    return ("RuntimeError", result[1]) if isinstance(result, tuple) and result[0] == "NotImplementedError" else result


_DIMS = hs.lists(hs.tuples(hs.integers(1, 5), hs.integers(1, 4), hs.booleans()), min_size=1, max_size=3)


@settings(max_examples=400, deadline=None)
@given(dims=_DIMS, offset=hs.integers(0, 3), dtype=hs.sampled_from(sorted(WIDER)), seed=hs.integers(0, 2**16),
       name=hs.sampled_from(sorted(OPS)))
def test_an_update_through_a_wider_common_dtype_reads_the_originals(dims, offset, dtype, seed, name):
    shape, strides, squeezed = (list(column) for column in zip(*dims))
    other_shape = [1 if s else n for n, s in zip(shape, squeezed)]
    size = offset + sum((n - 1) * s for n, s in zip(shape, strides)) + 1
    args = (size, shape, strides, offset, dtype, other_shape, seed, name)
    assert _run(st, *args) == _run(torch, *args)


@pytest.mark.parametrize("lib", [st, torch], ids=["strided", "torch"])
def test_int16_unfold_lt_a_float_number(lib):
    """The found case: the comparison in float32 of every original value (strided compared the
    windows' updated values: [0, 0, 0, 1, 0, 0, 1, 1, 1, 0])."""
    b = lib.tensor([2, -1, 0, 1, 0, 0, 1, 1, 1, 1], dtype=lib.int16)
    b.unfold(0, 2, 1).lt_(0.5)
    assert b.tolist() == [0, 1, 1, 0, 1, 1, 0, 0, 0, 0]
