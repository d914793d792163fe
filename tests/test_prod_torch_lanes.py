"""prod against PyTorch where products overflow and meet zeros: PyTorch's vector lanes (four
accumulators of a 32-byte vector each) can meet inf * 0 (NaN) where a running product meets the
zero first (0); an expanded (stride-0) dim of a whole-tensor prod is walked where PyTorch's
iterator leaves it, not innermost; prod's gradient at zeros runs cumprod in ATen's acc_type.

Compared bit for bit (dtype, shape, strides, bytes), except that any NaN matches any NaN where an
input holds a NaN (its sign bit is the compiler's operand order: README's NaN bits). Small sizes
only (PyTorch's whole-tensor reductions over more than 32,768 elements split by thread)."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as hs

import strided

_VALUES = {"float32": [0.0, -0.0, 1e20, -1e30, 3e30, 1.5, -2.0, 0.5, np.inf, -np.inf, np.nan],
           "float64": [0.0, -0.0, 1e200, -1e300, 3e150, 1.5, -2.0, 0.5, np.inf, -np.inf, np.nan],
           "float16": [0.0, -0.0, 300.0, -1e4, 1.5, -2.0, 0.5, np.inf, np.nan]}
_BASE = {"float32": "float32", "float64": "float64", "complex64": "float32", "complex128": "float64",
         "float16": "float16", "bfloat16": "float16"}


def _same(got: strided.Tensor, want: torch.Tensor, nan_in_input: bool) -> None:
    """``got`` is ``want``: dtype, shape, strides, and every bit (any NaN for any NaN where an input
    holds one)."""
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape) and tuple(got.stride()) == tuple(want.stride())
    if want.dtype == torch.bfloat16:
        g, w = got.to(strided.float32).numpy(), want.float().numpy()
    else:
        g, w = np.ascontiguousarray(got.numpy()), np.ascontiguousarray(want.numpy())
    if g.dtype.kind == "c":
        g, w = g.view(g.real.dtype), w.view(w.real.dtype)
    g, w = g.copy(), w.copy()
    assert (np.isnan(g) == np.isnan(w)).all(), (g, w)
    if nan_in_input:
        g[np.isnan(g)] = w[np.isnan(w)] = 0
    assert g.tobytes() == w.tobytes(), (g, w)


def _pair(picks: list[int], dtype: str) -> tuple[torch.Tensor, strided.Tensor, bool]:
    """The values ``picks`` indexes (complex: alternate real and imaginary parts) as a torch
    tensor and its strided twin, and whether one is NaN."""
    vals = np.array(_VALUES[_BASE[dtype]])[picks]
    if dtype.startswith("complex"):  # (parts set apart: inf * 1j would make a NaN real part)
        parts = vals
        vals = np.empty(len(parts) // 2, np.complex128)
        vals.real, vals.imag = parts[0::2][: len(vals)], parts[1::2][: len(vals)]
    t = torch.tensor(vals).to(getattr(torch, dtype))
    s = strided.tensor(t.float().numpy() if dtype == "bfloat16" else t.numpy()).to(getattr(strided, dtype))
    return t, s, bool(np.isnan(vals).any())


@settings(max_examples=300, deadline=None)
@given(hs.lists(hs.integers(0, 10), min_size=1, max_size=200), hs.sampled_from(["float32", "float64"]),
       hs.integers(1, 40), hs.integers(0, 4))
# (one block of 4 vectors: lane 0's (0 * 1e20) * (3e30 * 3e30) is 0 * inf, PyTorch's NaN; the
# running product from the zero first stays 0, strided's product before)
@example([0] + [5] * 7 + [2] + [5] * 7 + [4] + [5] * 7 + [4] + [5] * 7, "float32", 1, 0)
@example([0] + [5] * 3 + [2] + [5] * 3 + [4] + [5] * 3 + [2] + [5] * 3, "float64", 1, 0)
@example(([0] + [5] * 7 + [2] + [5] * 7 + [4] + [5] * 7 + [4] + [5] * 8) * 3, "float32", 3, 2)
def test_prod_of_lines_with_zeros_and_overflow_is_torchs(picks, dtype, rows, layout):
    """Lines of zeros, overflow-sized values, infs and NaNs: every line length, as one line (a
    whole prod), rows of a row-major tensor along dim 1 (the compiled row kernel), its transpose
    along dim 0, a slice (lines that do not tile memory: the walk), an expanded row."""
    n = max(1, len(picks) // rows)
    picks = (picks * rows)[: rows * n]
    t, s, nan = _pair(picks, dtype)
    t2, s2 = t.reshape(rows, n), s.reshape(rows, n)
    _same(s.prod(), t.prod(), nan)
    cases = [(t2, s2), (t2.t().contiguous().t(), s2.t().contiguous().t()), (t2[:, 1:], s2[:, 1:]),
             (t2[:1].expand(3, n), s2[:1].expand(3, n)), (t2.t(), s2.t())][layout:layout + 1]
    for tv, sv in cases:
        if tv.numel() == 0:
            continue
        _same(sv.prod(), tv.prod(), nan)
        for dim in range(tv.dim()):
            for keepdim in (False, True):
                _same(sv.prod(dim, keepdim=keepdim), tv.prod(dim, keepdim=keepdim), nan)


@settings(max_examples=200, deadline=None)
@given(hs.sampled_from(list(_BASE)), hs.lists(hs.integers(1, 6), min_size=1, max_size=3),
       hs.lists(hs.tuples(hs.integers(0, 3), hs.integers(2, 4)), min_size=1, max_size=2),
       hs.randoms(use_true_random=False), hs.data())
def test_prod_of_expanded_tensors_is_torchs(dtype, shape, expands, rnd, data):
    """A whole prod walks an expanded dim where PyTorch's iterator leaves it (a stride-0 dim
    decides nothing in its sort), not innermost as NumPy's reduce; along each dim too."""
    size = int(np.prod(shape))
    count = len(_VALUES[_BASE[dtype]])
    picks = data.draw(hs.lists(hs.integers(0, count - 1), min_size=size * 2, max_size=size * 2))
    t, s, nan = _pair(picks if dtype.startswith("complex") else picks[:size], dtype)
    t, s = t.reshape(shape), s.reshape(shape)
    for pos, m in expands:
        pos = min(pos, t.dim())
        t, s = t.unsqueeze(pos), s.unsqueeze(pos)
        sizes = list(t.shape)
        sizes[pos] = m
        t, s = t.expand(*sizes), s.expand(*sizes)
    perm = list(range(t.dim()))
    rnd.shuffle(perm)
    t, s = t.permute(*perm), s.permute(*perm)
    _same(s.prod(), t.prod(), nan)
    for dim in range(t.dim()):
        _same(s.prod(dim), t.prod(dim), nan)


@settings(max_examples=150, deadline=None)
@given(hs.lists(hs.integers(0, 7), min_size=1, max_size=60),
       hs.sampled_from(["float32", "float64", "float16", "bfloat16"]), hs.integers(1, 3), hs.sampled_from([None, 0, 1]))
@example([2, 2, 0, 5], "float32", 1, None)  # (1e20 * 1e20 * 0: 0 in cumprod's double, NaN in float32)
@example([2, 2, 0, 5], "float16", 1, None)  # (300 * 300 * 0: 0 in cumprod's float, NaN in float16)
def test_prod_gradient_with_zeros_is_torchs(picks, dtype, rows, dim):
    """prod_backward: without zeros ``g * out / x``; with a zero anywhere, the exclusive products
    from both ends by cumprod, in ATen's CPU acc_type (double for float32, float for float16 /
    bfloat16), each step rounded to the dtype."""
    n = max(1, len(picks) // rows)
    picks = (picks * rows)[: rows * n]
    vals = np.array(_VALUES[_BASE[dtype]][:8])[picks].reshape(rows, n)
    t = torch.tensor(vals).to(getattr(torch, dtype)).requires_grad_(True)
    s = strided.tensor(vals.astype(np.float32 if dtype == "bfloat16" else dtype)).to(getattr(strided, dtype))
    s.requires_grad_(True)
    w = t.prod() if dim is None else t.prod(dim)
    g = s.prod() if dim is None else s.prod(dim)
    seed = torch.tensor(np.linspace(-2.0, 3.0, w.numel()).reshape(tuple(w.shape))).to(w.dtype)
    w.backward(seed)
    g.backward(strided.tensor(seed.float().numpy() if dtype == "bfloat16" else seed.numpy()).to(g.dtype))
    # (bfloat16: any NaN for any NaN: strided's elementwise bfloat16 ops keep a NaN's sign, c10's
    # rounding gives 0x7FC0; inf / inf is -NaN in strided's division, outside prod)
    _same(s.grad, t.grad, dtype == "bfloat16")


def test_prod_dtype_and_out_with_overflow_and_zero_are_torchs():
    """``dtype=`` (the cast first, then PyTorch's lanes in that dtype) and ``out=``."""
    vals = np.array([0.0] + [1.5] * 7 + [1e20] + [1.5] * 7 + [3e30] + [1.5] * 7 + [3e30] + [1.5] * 9, np.float32)
    t, s = torch.tensor(vals).reshape(1, -1), strided.tensor(vals).reshape(1, -1)
    _same(s.prod(1, dtype=strided.float32), t.prod(1, dtype=torch.float32), False)
    _same(s.prod(1, dtype=strided.float64), t.prod(1, dtype=torch.float64), False)
    o_t, o_s = torch.empty(0), strided.empty(0)
    torch.prod(t, 1, out=o_t)
    strided.prod(s, 1, out=o_s)
    _same(o_s, o_t, False)
    assert np.isnan(o_s.numpy()).all()  # (PyTorch's lanes: inf * 0)
