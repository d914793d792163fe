"""Red-team tests for branch elem8 (compiled fmax/fmin/heaviside, sign/nan_to_num/leaky_relu,
typed0 constants, sigmoid/round fast paths): strided against PyTorch, bit for bit, on inputs
the branch's fast paths and NaN rules got wrong."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hst

import strided as st

torch.set_num_threads(1)

_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _bits(a: np.ndarray) -> list:
    a = np.ascontiguousarray(a)
    return a.view(_UINT[a.dtype.itemsize]).tolist()


def _same(s: st.Tensor, t: torch.Tensor) -> None:
    a = s.numpy()
    b = t.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape and s.stride() == t.stride()
    assert _bits(a) == _bits(b)


# float16 signalling NaNs (both signs, payloads) and a quiet one
_F16_NANS = np.array([0x7C01, 0xFE01, 0x7D55, 0x7E00], np.uint16).view(np.float16)


@pytest.mark.parametrize("op", ["fmax", "fmin"])
@pytest.mark.parametrize("other", ["float32", "float64"])
@pytest.mark.parametrize("nan_first", [True, False])
@pytest.mark.parametrize("layout", ["contiguous", "strided", "offset"])
def test_fmax_fmin_float16_snan_widened_loses_to_number(op, other, nan_first, layout):
    """PyTorch widens float16 with F16C, which quiets a signalling NaN: the number wins. elem8
    let the (still signalling, after NumPy's cast) NaN win where it was the second operand."""
    nans = _F16_NANS
    nums = np.array([1.0, -2.0, 0.0, -0.0], other)

    def make(lib, a):
        t = lib.from_numpy(np.repeat(a, 2).copy()) if layout == "strided" else lib.from_numpy(
            np.concatenate([a[:1], a]) if layout == "offset" else a.copy())
        return t[::2] if layout == "strided" else (t[1:] if layout == "offset" else t)

    args = (nans, nums) if nan_first else (nums, nans)
    s = getattr(st, op)(make(st, args[0]), make(st, args[1]))
    t = getattr(torch, op)(make(torch, args[0]), make(torch, args[1]))
    _same(s, t)


_SNANS = {"float16": [0x7C01, 0xFE01], "float32": [0x7F800001, 0xFF800123, 0x7FA00000],
          "float64": [0x7FF0000000000001, 0xFFF0000000000123]}


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "strided", "broadcast", "transposed"])
def test_heaviside_signalling_nan_input_is_zero_on_every_path(dtype, layout):
    """heaviside(sNaN, v) is 0 in PyTorch. elem8's compiled fast path gives 0, but the general
    path (np.fmax(x, -1), which lets a signalling NaN through) gave NaN: a non-contiguous or
    broadcast call disagreed with the contiguous one."""
    x = np.concatenate([np.array(_SNANS[dtype], _UINT[np.dtype(dtype).itemsize]).view(dtype),
                        np.array([np.nan, 0.0, -0.0, 2.0, -3.0, np.inf], dtype)])
    n = len(x)
    y = np.linspace(-1, 1, n).astype(dtype)

    def run(lib):
        a, b = lib.from_numpy(x.copy()), lib.from_numpy(y.copy())
        if layout == "strided":
            a, b = lib.from_numpy(np.repeat(x, 2))[::2], lib.from_numpy(np.repeat(y, 2))[::2]
        elif layout == "broadcast":
            b = b[:1].reshape(()).expand(n)
        elif layout == "transposed":
            a, b = a.reshape(1, n).expand(2, n).t(), b.reshape(1, n).expand(2, n).t()
        return lib.heaviside(a, b)

    _same(run(st), run(torch))


# (no pair of signed zeros: PyTorch's bfloat16 tie between 0.0 and -0.0 depends on the loop)
_BF16 = [0x7FC5, 0xFFC3, 0x7F81, 0xFF82, 0x3F80, 0xBF80, 0x8000, 0x7F80]


@pytest.mark.parametrize("op", ["fmax", "fmin"])
@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_fmax_fmin_bfloat16_nan_rules(op, layout):
    """bfloat16 fmax/fmin as PyTorch (which computes in float32 and rounds back): a signalling
    NaN beats a number, a quiet one loses, and every NaN result is the canonical 0x7FC0. strided
    skipped its NaN rules for bfloat16 (ml_dtypes' kind 'V'): the number beat a signalling NaN."""
    xs, ys = zip(*[(a, b) for a in _BF16 for b in _BF16])

    def run(lib):
        def make(v):
            t = lib.tensor(list(v), dtype=lib.int32).to(lib.int16).view(lib.bfloat16)
            return lib.stack([t, t], 1)[:, 0] if layout == "strided" else t
        r = getattr(lib, op)(make(xs), make(ys))
        return [v & 0xFFFF for v in r.contiguous().view(lib.int16).tolist()]

    assert run(st) == run(torch)


_F16_POOL = [0x7C01, 0xFE01, 0x7D55, 0x7E00, 0xFE00, 0x3C00, 0xBC00, 0x0000, 0x8000, 0x7C00, 0xFC00, 0x0001]
_WIDE_POOL = {"float32": [0x7F800001, 0x7FC00005, 0x3F800000, 0x80000000, 0x00000000, 0xFF800000, 0x00000001],
              "float64": [0x7FF0000000000001, 0x7FF8000000000005, 0x3FF0000000000000, 0x8000000000000000, 0]}


@settings(max_examples=60, deadline=None)
@given(data=hst.data(), op=hst.sampled_from(["fmax", "fmin"]), wide=hst.sampled_from(["float32", "float64"]),
       half_first=hst.booleans(), strided_layout=hst.booleans())
def test_fmax_fmin_float16_with_wider_property(data, op, wide, half_first, strided_layout):
    """fmax/fmin of a float16 tensor and a float32/float64 one, elementwise against PyTorch, where
    at most one operand of each pair is NaN (PyTorch's both-NaN result of this mix depends on the
    length: not compared)."""
    n = data.draw(hst.integers(1, 12))
    h = np.array(data.draw(hst.lists(hst.sampled_from(_F16_POOL), min_size=n, max_size=n)), np.uint16).view(np.float16)
    w = np.array(data.draw(hst.lists(hst.sampled_from(_WIDE_POOL[wide]), min_size=n, max_size=n)),
                 _UINT[np.dtype(wide).itemsize]).view(wide)
    both = np.isnan(h) & np.isnan(w)
    h = np.where(both, np.float16(1.0), h)

    def run(lib):
        def make(a):
            return lib.from_numpy(np.repeat(a, 2))[::2] if strided_layout else lib.from_numpy(a.copy())
        args = (make(h), make(w)) if half_first else (make(w), make(h))
        return getattr(lib, op)(*args)

    _same(run(st), run(torch))
