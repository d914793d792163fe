"""round's fast path (np.rint of the flat run), and the small unary rows whose constants are 0-d arrays (strided.kernels.elementwise.typed0): a
number becomes one only where the dtype holds it exactly, so each op's bits are those of the
Python number; the fast path (row-major) and the general path (a strided view) agree bit for bit,
and with PyTorch (exactly where both compute exactly, to float tolerance where NumPy's and
PyTorch's exp/log differ)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as hst

import strided as st
import strided.nn.functional as F
from strided.kernels.elementwise import typed0

VALUES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1.5, -0.5, 2.5000002, -0.49999997, 19.9, 20.0, 20.1, 88.0, -88.0, 710.0, -745.0, 1e-45, -1e-45, 3e38, -3e38,
          np.inf, -np.inf, np.nan]

EXACT = [  # (name, strided call, torch call): computed exactly by both
    ("isposinf", st.isposinf, torch.isposinf), ("isneginf", st.isneginf, torch.isneginf),
    ("reciprocal", st.reciprocal, torch.reciprocal), ("rsqrt", st.rsqrt, torch.rsqrt),
    ("hardtanh", F.hardtanh, TF.hardtanh), ("round", st.round, torch.round),
    ("round decimals=0", lambda t: st.round(t, decimals=0), lambda t: torch.round(t, decimals=0)),
    ("hardtanh 0.1", lambda t: F.hardtanh(t, 0.1, 0.7), lambda t: TF.hardtanh(t, 0.1, 0.7)),
    ("hardtanh -0.0", lambda t: F.hardtanh(t, -0.0, 2.0), lambda t: TF.hardtanh(t, -0.0, 2.0)),
]
CLOSE = [  # exp/log/sin inside: PyTorch's own vector functions differ from NumPy's in the last place
    ("sigmoid", st.sigmoid, torch.sigmoid), ("silu", F.silu, TF.silu), ("elu", F.elu, TF.elu),
    ("elu 0.5", lambda t: F.elu(t, 0.5), lambda t: TF.elu(t, 0.5)), ("softplus", F.softplus, TF.softplus),
    ("softplus b2 t0.3", lambda t: F.softplus(t, 2.0, 0.3), lambda t: TF.softplus(t, 2.0, 0.3)),
    ("softplus t0.1", lambda t: F.softplus(t, 1.0, 0.1), lambda t: TF.softplus(t, 1.0, 0.1)),
    ("sinc", st.sinc, torch.sinc),
]

# (elu and softplus follow PyTorch's loops bit for bit, SLEEF's expm1 (softplus: exp and log1p) vectorized and the C library's in its
# scalar and strided loops: its fast and general paths differ where PyTorch's layouts do)
TORCH_BITS_PER_LAYOUT = {"elu", "elu 0.5", "softplus", "softplus b2 t0.3", "softplus t0.1"}


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.itemsize}") if a.dtype.kind == "f" else a


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", EXACT + CLOSE, ids=[c[0] for c in EXACT + CLOSE])
def test_fast_and_general_paths_agree_and_match_torch(case, dtype):
    _, call, tcall = case
    with np.errstate(over="ignore"):
        x = np.array(VALUES, dtype)
    fast = call(st.from_numpy(x))
    general = call(st.from_numpy(np.repeat(x, 2))[::2])  # (a strided view: the general path)
    ref = tcall(torch.from_numpy(x)).numpy()
    ref_strided = tcall(torch.from_numpy(np.repeat(x, 2))[::2]).numpy()
    if case[0] not in TORCH_BITS_PER_LAYOUT or np.array_equal(_bits(ref), _bits(ref_strided)):
        np.testing.assert_array_equal(_bits(fast.numpy()), _bits(general.numpy()))
    else:  # (PyTorch's own layouts differ, elu float64: SLEEF's expm1 in its vector loop, the C
        # library's in its strided basic loop; each of ours is then its layout's torch bits)
        np.testing.assert_array_equal(_bits(fast.numpy()), _bits(ref))
        np.testing.assert_array_equal(_bits(general.numpy()), _bits(ref_strided))
    assert fast.numpy().dtype == ref.dtype and fast.stride() == (1,)
    if case in EXACT:
        np.testing.assert_array_equal(_bits(fast.numpy()), _bits(ref))
    else:
        # (atol: a subnormal tail, softplus(-745.0) is 5e-324 in NumPy and 0 in PyTorch)
        np.testing.assert_allclose(fast.numpy(), ref, rtol=4e-6 if dtype == "float32" else 1e-14, atol=1e-300)


@settings(max_examples=200, deadline=None)
@given(hst.one_of(hst.floats(), hst.integers(-2**60, 2**60), hst.sampled_from([0.0, -0.0, 0, 1, -1, 2**53, 2**24 + 1])),
       hst.sampled_from(["float32", "float64", "float16"]))
def test_typed0_is_the_number_exactly_or_the_number_itself(value, dtype):
    d = np.dtype(dtype)
    got = typed0(value, d)
    if got is value:
        return
    assert got.__class__ is np.ndarray and got.shape == () and got.dtype == d and not got.flags.writeable
    assert float(got) == value and math.copysign(1.0, float(got)) == math.copysign(1.0, value)
    assert typed0(value, d) is got  # (cached)
    x = np.array([-1.5, -0.0, 0.0, 2.0, np.inf, np.nan], d)
    for ufunc in (np.greater, np.multiply, np.add):  # the same bits as the Python number's
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(_bits(ufunc(x, got)), _bits(ufunc(x, value)))


def test_typed0_leaves_other_things_alone():
    f = np.dtype(np.float32)
    for v in (True, 0.1, 1e40, 2**24 + 1, float("nan"), np.float32(1.0), "1"):
        assert typed0(v, f) is v
    assert typed0(1.0, np.dtype(np.float16)) == 1.0 and typed0(1.0, np.dtype(np.float16)).__class__ is float
    assert np.signbit(typed0(-0.0, f)) and not np.signbit(typed0(0.0, f))


def test_round_watch_and_gradient():
    x = st.tensor([[0.5, 1.5], [-2.5, 3.7]], requires_grad=True)
    y = st.round(x)
    y.sum().backward()
    assert y.tolist() == [[0.0, 2.0], [-2.0, 4.0]] and x.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert y.grad_fn is not None
    b = st.tensor([0.5, 1.5])
    with st.watch() as w:
        st.round(b)
    assert [s.name for s in w.steps] == ["round"]
