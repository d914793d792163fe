"""maximum / minimum / clamp with tensor bounds against torch, bit for bit, where the value alone
does not decide: ties of 0.0 and -0.0, and NaNs. PyTorch's vectorized loop returns the second
operand's zero and an all-ones NaN, its scalar loop (a row's last ``len % step`` elements,
strided rows) the first operand's zero and the canonical NaN (strided.kernels.torch_extremes).
Before: maximum/minimum/clamp_min/clamp_max/clamp(tensor bounds) took NumPy's zero: 5 to 15 of 26
mixed-zero float16/32/64 cases differed per op (contiguous runs of 7+ elements, strided ones)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st

torch.set_num_threads(1)  # (below 32768 elements PyTorch's split is its one-thread one anyway)

_DT = {"float32": (torch.float32, st.float32), "float64": (torch.float64, st.float64),
       "float16": (torch.float16, st.float16), "bfloat16": (torch.bfloat16, st.bfloat16)}
_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _bits(t):
    """A tensor's (torch or strided) element bits, as unsigned integers (bfloat16 through int16)."""
    if isinstance(t, torch.Tensor):
        if t.dtype == torch.bfloat16:
            return t.view(torch.int16).numpy().view(np.uint16)
        a = t.numpy()
    else:
        if t.dtype == st.bfloat16:
            return np.asarray(t.view(st.int16).numpy()).view(np.uint16)
        a = np.asarray(t.numpy())
    return np.ascontiguousarray(a).view(_UINT[a.dtype.itemsize])


def _pair(data, dt, shape, layout):
    """The same values as a torch and a strided tensor of ``shape`` in ``layout``: "c" row-major,
    "s" every other element of the last dim, "t" transposed, "b" a broadcast (n, 1) column."""
    full = shape[:-1] + (shape[-1] * 2,) if layout == "s" else shape[::-1] if layout == "t" else shape
    tt = torch.tensor(data[: int(np.prod(full))].reshape(full), dtype=torch.float64).to(_DT[dt][0])
    ss = _same_bits(tt)
    if layout == "s":
        return tt[..., ::2], ss[..., ::2]
    if layout == "t":
        return tt.mT if len(shape) == 2 else tt, ss.mT if len(shape) == 2 else ss
    return tt, ss


def _same_bits(tt):
    """A strided tensor with torch tensor ``tt``'s bits (its NaNs' too: torch's float64 NaN
    becomes bfloat16's all-ones NaN, strided's the canonical one)."""
    if tt.dtype == torch.bfloat16:
        return st.tensor(tt.view(torch.int16).numpy()).view(st.bfloat16)
    return st.tensor(tt.numpy())


_VALUES = np.array([0.0, -0.0, 0.0, -0.0, 1.0, -1.0, np.nan])

_OPS = {
    "maximum": (2, lambda m, a, b: m.maximum(a, b)),
    "minimum": (2, lambda m, a, b: m.minimum(a, b)),
    "max2": (2, lambda m, a, b: m.max(a, b)),
    "clamp_min": (2, lambda m, a, b: m.clamp_min(a, b)),
    "clamp_max": (2, lambda m, a, b: m.clamp_max(a, b)),
    "clamp(min=)": (2, lambda m, a, b: m.clamp(a, min=b)),
    "clamp(max=)": (2, lambda m, a, b: m.clamp(a, max=b)),
    "clamp": (3, lambda m, a, b, c: m.clamp(a, b, c)),
    "fmax": (2, lambda m, a, b: m.fmax(a, b)),
    "fmin": (2, lambda m, a, b: m.fmin(a, b)),
}


@settings(max_examples=150, deadline=None)
@given(op=hs.sampled_from(sorted(_OPS)), dt=hs.sampled_from(sorted(_DT)),
       shape=hs.sampled_from([(1,), (5,), (8,), (15,), (16,), (17,), (33,), (40,), (70,), (3, 20), (20, 3), (4, 33), (2, 64)]),
       layouts=hs.tuples(*[hs.sampled_from("ccst")] * 3), seed=hs.integers(0, 2**32 - 1))
def test_extremes_bits_match_torch(op, dt, shape, layouts, seed):
    rng = np.random.default_rng(seed)
    arity, f = _OPS[op]
    pairs = [_pair(rng.choice(_VALUES, size=4 * int(np.prod(shape))), dt, shape, layouts[i]) for i in range(arity)]
    want = f(torch, *[p[0] for p in pairs])
    got = f(st, *[p[1] for p in pairs])
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("dt", sorted(_DT))
def test_broadcast_rows_and_columns(dt):
    """A bias-like broadcast (rows of 20: 16 vector elements and a scalar tail each, float32), a
    column broadcast (one stride-0 input: still vectorized) and a 0-d operand."""
    rng = np.random.default_rng(3)
    a = rng.choice(_VALUES[:4], size=(6, 20))
    for b in (rng.choice(_VALUES[:4], size=(20,)), rng.choice(_VALUES[:4], size=(6, 1)), np.array(-0.0)):
        for f in (_OPS["maximum"][1], _OPS["minimum"][1], _OPS["clamp_min"][1]):
            ta, sa = _pair(a.ravel(), dt, a.shape, "c")
            tb = torch.tensor(b, dtype=torch.float64).to(_DT[dt][0])
            sb = _same_bits(tb)
            np.testing.assert_array_equal(_bits(f(st, sa, sb)), _bits(f(torch, ta, tb)))
            np.testing.assert_array_equal(_bits(f(st, sb, sa)), _bits(f(torch, tb, ta)))


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_out_and_inplace_follow_torch(dt):
    """``out=`` (its layout decides the loop) and ``clamp_`` in place (the target is an operand)."""
    rng = np.random.default_rng(4)
    a, b, c = (rng.choice(_VALUES[:4], size=(5, 24)) for _ in range(3))
    (ta, sa), (tb, sb), (tc, sc) = (_pair(v.ravel(), dt, v.shape, "c") for v in (a, b, c))
    to, so = torch.empty(24, 5, dtype=_DT[dt][0]).t(), st.empty(24, 5, dtype=_DT[dt][1]).t()
    torch.maximum(ta, tb, out=to)
    st.maximum(sa, sb, out=so)
    np.testing.assert_array_equal(_bits(so), _bits(to))
    torch.clamp(ta, tb, tc, out=to)
    st.clamp(sa, sb, sc, out=so)
    np.testing.assert_array_equal(_bits(so), _bits(to))
    ta.clamp_(tb, tc)
    sa.clamp_(sb, sc)
    np.testing.assert_array_equal(_bits(sa), _bits(ta))
    ta2, sa2 = _pair(a.ravel(), dt, a.shape, "c")
    ta2.clamp_min_(tb)
    sa2.clamp_min_(sb)
    np.testing.assert_array_equal(_bits(sa2), _bits(ta2))


def test_mixed_dtypes_follow_the_converted_operand():
    """A float32 operand with a float64 one: TensorIterator reads a converted copy (row-major for
    a strided operand, so its rows are contiguous and vectorized)."""
    rng = np.random.default_rng(5)
    a, b = rng.choice(_VALUES[:4], size=80), rng.choice(_VALUES[:4], size=40)
    ta, sa = torch.tensor(a, dtype=torch.float32)[::2], st.tensor(a, dtype=st.float32)[::2]
    tb, sb = torch.tensor(b), st.tensor(b)
    np.testing.assert_array_equal(_bits(st.maximum(sa, sb)), _bits(torch.maximum(ta, tb)))
    np.testing.assert_array_equal(_bits(st.minimum(sb, sa)), _bits(torch.minimum(tb, ta)))


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 5)])
def test_empty_operands_are_empty_results(dt, shape):
    """Zero-size float32/float64 operands of one layout reach the compiled kernel's fast path,
    which refuses an empty row: before, maximum/minimum/clamp_min/clamp_max raised
    'torch_extreme: row must be positive, not 0' where torch returns an empty tensor."""
    sd, td = _DT[dt][1], _DT[dt][0]
    for name in ("maximum", "minimum", "clamp_min", "clamp_max"):
        got = getattr(st, name)(st.ones(*shape, dtype=sd), st.ones(*shape, dtype=sd))
        want = getattr(torch, name)(torch.ones(*shape, dtype=td), torch.ones(*shape, dtype=td))
        assert tuple(got.shape) == tuple(want.shape) and got.dtype == sd
        assert tuple(got.stride()) == tuple(want.stride())


@pytest.mark.parametrize("name", ["maximum", "minimum", "clamp_min", "clamp_max"])
def test_int64_with_bfloat16_rounds_through_float32(name):
    """An int64 operand of a bfloat16 maximum/minimum converts through float32 as PyTorch's
    (2**24 + 2**16 + 1 is bfloat16 2**24); the tie-fixing path cast it once with ml_dtypes
    (2**24 + 2**17): maximum(int64, bfloat16) was 16908288 where torch gives 16777216."""
    vals = [2**24 + 2**16 + 1, -(2**24 + 2**16 + 1), 3]
    got = getattr(st, name)(st.ones(3, dtype=st.bfloat16), st.tensor(vals)).to(st.float64).tolist()
    want = getattr(torch, name)(torch.ones(3, dtype=torch.bfloat16), torch.tensor(vals)).double().tolist()
    assert got == want
