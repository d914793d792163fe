"""bfloat16 NaN bits against torch (strided.kernels.reduced_nans): PyTorch's vectorized
float32 -> bfloat16 conversion gives every NaN as 0xFFFF, its scalar one (c10's
round_to_nearest_even) as 0x7FC0; NumPy / ml_dtypes keep the sign (sign | 0x7FC0).

- the VML-style unary ops (sqrt, log, exp, sin, floor, ...): every NaN 0xFFFF, any layout;
- add/sub/mul/div: 0xFFFF where PyTorch's vector loop computes the element, 0x7FC0 in its
  scalar loop (a row's last len % 32 elements, strided rows, past the parallel grain per chunk).

Inputs: NaNs of both signs and several payloads, infinities, zeros of both signs, numbers; so
inf - inf, 0 * inf, inf / inf, 0 / 0 and NaN operands all meet."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided.kernels import torch_loops
from strided.kernels.reduced_nans import LOOP_SPLIT, VML_ALL_ONES

# bfloat16 words: NaNs (quiet, signalling, negative, with payloads), infinities, zeros, numbers
WORDS = np.array([0x7FC0, 0xFFC0, 0x7FC1, 0xFFC5, 0x7F81, 0x7F80, 0xFF80, 0x0000, 0x8000,
                  0x3F80, 0xBF80, 0x4000, 0xC000, 0x3F00, 0x4040, 0x3A83], np.uint16).view(np.int16)


def _pair(words: np.ndarray, shape: tuple[int, ...], layout: str) -> tuple[torch.Tensor, st.Tensor]:
    """torch and strided bfloat16 tensors of ``words`` (enough of them) in a layout."""
    n = int(np.prod(shape))
    base = np.resize(words, 2 * n if layout == "sliced" else n)
    t = torch.from_numpy(base.copy()).view(torch.bfloat16)
    s = st.from_numpy(base.copy()).view(st.bfloat16)
    if layout == "sliced":
        return t[::2].reshape(shape), s[::2].reshape(shape)
    if layout == "transposed" and len(shape) == 2:
        return t.reshape(shape[::-1]).t(), s.reshape(shape[::-1]).t()
    return t.reshape(shape), s.reshape(shape)


def _words(x: torch.Tensor | st.Tensor) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        return x.contiguous().view(torch.int16).numpy().astype(np.int64) & 0xFFFF
    return x.contiguous().view(st.int16).numpy().astype(np.int64) & 0xFFFF


def _same_bits(want: torch.Tensor, got: st.Tensor) -> None:
    assert tuple(got.shape) == tuple(want.shape) and got.stride() == want.stride()
    w, g = _words(want), _words(got)
    bad = np.flatnonzero(w.ravel() != g.ravel())
    assert not bad.size, [(int(i), hex(w.ravel()[i]), hex(g.ravel()[i])) for i in bad[:5]]


SHAPES = hs.sampled_from([(1,), (5,), (31,), (32,), (33,), (70,), (3, 40), (40, 3), (0,), (2, 0)])
LAYOUTS = hs.sampled_from(["contiguous", "sliced", "transposed"])


@settings(max_examples=80, deadline=None)
@given(name=hs.sampled_from(sorted(VML_ALL_ONES)), shape=SHAPES, layout=LAYOUTS,
       seed=hs.integers(0, 2**16), form=hs.sampled_from(["fn", "inplace", "out"]))
def test_vml_unary_nans_are_all_ones(name, shape, layout, seed, form):
    words = np.random.default_rng(seed).permutation(WORDS)
    t, s = _pair(words, shape, layout)
    if form == "fn":
        _same_bits(getattr(torch, name)(t), getattr(st, name)(s))
    elif form == "inplace":
        getattr(t, name + "_")()
        getattr(s, name + "_")()
        _same_bits(t, s)
    else:
        to, so = torch.empty(shape, dtype=torch.bfloat16), st.empty(shape, dtype=st.bfloat16)
        getattr(torch, name)(t, out=to)
        getattr(st, name)(s, out=so)
        _same_bits(to, so)


def test_vml_unary_zero_dim():
    for name in sorted(VML_ALL_ONES):
        for word in (0x7FC0, 0xFFC5, 0xBF80, 0x7F80):  # (NaNs, -1: log/sqrt/acos of it, inf: sin)
            t = torch.tensor(word - 65536 if word > 32767 else word, dtype=torch.int16).view(torch.bfloat16)
            s = st.tensor(word - 65536 if word > 32767 else word, dtype=st.int16).view(st.bfloat16)
            _same_bits(getattr(torch, name)(t), getattr(st, name)(s))


ARITHMETIC = ("add", "sub", "mul", "div")


@settings(max_examples=120, deadline=None)
@given(name=hs.sampled_from(ARITHMETIC), shape=SHAPES, layout=LAYOUTS, other_layout=LAYOUTS,
       seed=hs.integers(0, 2**16),
       form=hs.sampled_from(["tensor", "number", "rnumber", "zero_dim", "broadcast", "inplace", "out"]),
       number=hs.sampled_from([0.0, -0.0, float("inf"), float("-inf"), float("nan"), 2.5]))
def test_arithmetic_nans_follow_torch_loops(name, shape, layout, other_layout, seed, form, number):
    rng = np.random.default_rng(seed)
    tx, sx = _pair(rng.permutation(WORDS), shape, layout)
    ty, sy = _pair(rng.permutation(WORDS), shape, other_layout)
    tf, sf = getattr(torch, name), getattr(st, name)
    if form == "tensor":
        _same_bits(tf(tx, ty), sf(sx, sy))
    elif form == "number":
        _same_bits(tf(tx, number), sf(sx, number))
    elif form == "rnumber":  # (number / tensor: reciprocal, then mul)
        op = {"add": "__radd__", "sub": "__rsub__", "mul": "__rmul__", "div": "__rtruediv__"}[name]
        _same_bits(getattr(tx, op)(number), getattr(sx, op)(number))
    elif form == "zero_dim":
        _same_bits(tf(tx, torch.tensor(number)), sf(sx, st.tensor(number)))
    elif form == "broadcast":
        row_t, row_s = _pair(rng.permutation(WORDS), shape[-1:], "contiguous")
        _same_bits(tf(tx, row_t), sf(sx, row_s))
    elif form == "inplace":
        getattr(tx, name + "_")(ty)
        getattr(sx, name + "_")(sy)
        _same_bits(tx, sx)
    else:
        to, so = torch.empty(shape, dtype=torch.bfloat16), st.empty(shape, dtype=st.bfloat16)
        tf(tx, ty, out=to)
        sf(sx, sy, out=so)
        _same_bits(to, so)


@settings(max_examples=80, deadline=None)
@given(name=hs.sampled_from(sorted(set(LOOP_SPLIT) - set(ARITHMETIC))), shape=SHAPES, layout=LAYOUTS,
       other_layout=LAYOUTS, seed=hs.integers(0, 2**16), form=hs.sampled_from(["tensor", "broadcast", "inplace"]))
def test_other_binary_nans_follow_torch_loops(name, shape, layout, other_layout, seed, form):
    """fmod, remainder, floor_divide (32-element steps), atan2, hypot, logaddexp(2) (64 under AVX512, 32 under AVX2), xlogy
    (no vector loop: every NaN 0x7FC0)."""
    rng = np.random.default_rng(seed)
    tx, sx = _pair(rng.permutation(WORDS), shape, layout)
    ty, sy = _pair(rng.permutation(WORDS), shape, other_layout)
    if form == "broadcast":
        ty, sy = _pair(rng.permutation(WORDS), shape[-1:], "contiguous")
    if form == "inplace" and hasattr(tx, name + "_"):  # (logaddexp has no in-place form)
        getattr(tx, name + "_")(ty)
        getattr(sx, name + "_")(sy)
        want, got = tx, sx
    else:
        want, got = getattr(torch, name)(tx, ty), getattr(st, name)(sx, sy)
    nan = torch.isnan(want).numpy()  # (hypot(inf, signalling NaN): PyTorch's vector lanes give inf)
    assert (_words(want)[nan] == _words(got)[nan]).all()


@pytest.mark.parametrize("name", sorted(LOOP_SPLIT))
def test_nans_above_the_grain(name):
    """Past 32768 elements each parallel chunk has its own scalar tail (the thread count is
    strided's assumption about PyTorch's: torch_loops.torch_threads, set to torch's here)."""
    n = 70001
    rng = np.random.default_rng(3)
    tx, sx = _pair(rng.choice(WORDS, n), (n,), "contiguous")
    ty, sy = _pair(rng.choice(WORDS, n), (n,), "contiguous")
    threads = torch.get_num_threads()
    torch.set_num_threads(torch_loops.torch_threads())
    try:
        want = getattr(torch, name)(tx, ty)
    finally:
        torch.set_num_threads(threads)
    got = getattr(st, name)(sx, sy)
    if name in ARITHMETIC:
        _same_bits(want, got)
    else:  # (hypot(inf, signalling NaN): PyTorch's vector lanes give inf, not a NaN-bit question)
        nan = torch.isnan(want).numpy()
        assert (_words(want)[nan] == _words(got)[nan]).all()


def test_alpha_and_rsub():
    rng = np.random.default_rng(4)
    tx, sx = _pair(rng.choice(WORDS, 100), (100,), "contiguous")
    ty, sy = _pair(rng.choice(WORDS, 100), (100,), "contiguous")
    _same_bits(torch.add(tx, ty, alpha=2), st.add(sx, sy, alpha=2))
    _same_bits(torch.sub(tx, ty, alpha=0.5), st.sub(sx, sy, alpha=0.5))
    _same_bits(torch.rsub(tx, ty), st.rsub(sx, sy))
    _same_bits(tx - ty, sx - sy)
    _same_bits(tx / ty, sx / sy)


@pytest.mark.parametrize("name", ARITHMETIC)
@pytest.mark.parametrize("shape", [(3, 40), (40, 3), (2, 70)])
@pytest.mark.parametrize("out_layout", ["contiguous", "transposed"])
def test_out_of_another_layout_decides_the_loop(name, shape, out_layout):
    """Transposed operands written into an ``out=`` of another layout: PyTorch walks the out='s
    rows, along which the operands are strided (its scalar loop: 0x7FC0 throughout); an out= of
    the operands' layout keeps the vector loop's 0xFFFF (found by hypothesis: the compiled loop
    once ran on the operands' own order whatever the out='s)."""
    rng = np.random.default_rng(7)
    tx, sx = _pair(rng.permutation(WORDS), shape, "transposed")
    ty, sy = _pair(rng.permutation(WORDS), shape, "transposed")
    if out_layout == "contiguous":
        to, so = torch.empty(shape, dtype=torch.bfloat16), st.empty(shape, dtype=st.bfloat16)
    else:
        to = torch.empty(shape[::-1], dtype=torch.bfloat16).t()
        so = st.empty(shape[::-1], dtype=st.bfloat16).t()
    getattr(torch, name)(tx, ty, out=to)
    getattr(st, name)(sx, sy, out=so)
    _same_bits(to, so)
