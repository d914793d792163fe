"""``out=`` of an elementwise op into a tensor whose elements share memory without a stride-0
dim (``unfold`` windows, an overlapping ``as_strided``): PyTorch's loop (ordered by ``out``'s
strides, then the inputs') writes each element once, and a shared location keeps the last value
written there; against torch bit for bit (the whole storage afterwards, or the error)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as hs

import strided as st
from test_overlap_updates import DTYPES, outcome

OPS = {
    "add": lambda lib, x, o, out: lib.add(x, o, out=out),
    "sub alpha": lambda lib, x, o, out: lib.sub(x, o, alpha=2, out=out),
    "mul": lambda lib, x, o, out: lib.mul(x, o, out=out),
    "mul number": lambda lib, x, o, out: lib.mul(x, 3, out=out),
    "neg": lambda lib, x, o, out: lib.neg(x, out=out),
    "abs": lambda lib, x, o, out: lib.abs(x, out=out),
    "clamp": lambda lib, x, o, out: lib.clamp(x, min=-1, max=2, out=out),
    "bitwise_or": lambda lib, x, o, out: lib.bitwise_or(x, o, out=out),
    "floor": lambda lib, x, o, out: lib.floor(x, out=out),
    "lt": lambda lib, x, o, out: lib.lt(x, o, out=out),
}


def _run(lib, size, shape, strides, offset, dtype, out_dtype, other_shape, transposed, seed, name):
    rng = np.random.default_rng(seed)
    base = lib.tensor(rng.standard_normal(size) * 3).to(getattr(lib, out_dtype))
    out = base.as_strided(shape, strides, offset)
    x = lib.tensor(rng.standard_normal(shape[::-1] if transposed else shape) * 3).to(getattr(lib, dtype))
    if transposed:
        x = x.permute(*range(len(shape) - 1, -1, -1))
    o = lib.tensor(rng.standard_normal(other_shape) * 3).to(getattr(lib, dtype))
    return outcome(lib, lambda: OPS[name](lib, x, o, out), base)


@settings(max_examples=400, deadline=None)
@given(
    dims=hs.lists(hs.tuples(hs.integers(1, 5), hs.integers(1, 4), hs.booleans()), min_size=1, max_size=3),
    offset=hs.integers(0, 3),
    dtype=hs.sampled_from(DTYPES),
    wider=hs.booleans(),
    transposed=hs.booleans(),
    seed=hs.integers(0, 2**16),
    name=hs.sampled_from(sorted(OPS)),
)
def test_out_into_overlapping_elements_keeps_torchs_last_write(dims, offset, dtype, wider, transposed, seed, name):
    # (complex neg into a strided out: the sign of a zero imaginary part differs from PyTorch's
    # into any out whose loop is not its vector loop, overlapping or not: a matter of its own)
    assume(not (name == "neg" and dtype == "complex64"))
    shape = [n for n, _, _ in dims]
    strides = [s for _, s, _ in dims]
    other_shape = [1 if squeeze else n for n, _, squeeze in dims]
    out_dtype = {"float32": "float64", "int32": "int64", "float16": "float32"}.get(dtype, dtype) if wider else dtype
    size = offset + sum((n - 1) * s for n, s in zip(shape, strides)) + 1
    args = (size, shape, strides, offset, dtype, out_dtype, other_shape, transposed, seed, name)
    assert _run(st, *args) == _run(torch, *args)


def test_an_input_in_outs_memory_stays_refused():
    """Read at its own time in the loop (after some of its elements were written): refused, as
    before, nothing written."""
    b = st.arange(10.0)
    with pytest.raises(st.OverlapWriteError):
        st.neg(b[1:].unfold(0, 2, 1), out=b[:9].unfold(0, 2, 1))
    assert b.tolist() == list(range(10))


def test_a_race_for_a_shared_location_is_refused(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    b = st.zeros(40001)
    with pytest.raises(st.StridedRuntimeError, match="receive different values"):
        st.neg(st.arange(80000.0).reshape(40000, 2), out=b.unfold(0, 2, 1))
    assert b.sum().item() == 0
    st.neg(st.ones(40000, 2), out=b.unfold(0, 2, 1))  # (one value per location: no race)
    assert b.tolist() == [-1.0] * 40001
