"""gather from 4096 index elements by the compiled walk (``_specialkernel.gather_nd``): every
element size, row-major / transposed / offset inputs, transposed (copied) and smaller-than-input
indices, every dim, bit for bit PyTorch's and the NumPy path's (the kernel disabled); an index
outside ``[0, size)`` anywhere (first, last, negative, huge) is PyTorch's error naming it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native

pytestmark = pytest.mark.skipif(native.special() is None, reason="the compiled kernel is not built")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "float16", "complex64", "complex128", "int8"])
def test_gather_bits(dtype: str) -> None:
    r = np.random.default_rng(1)
    for shape in [(64, 65), (7, 9, 130), (5000,), (1, 70, 70)]:
        a = r.random(shape) > 0.5 if dtype == "bool" else (r.standard_normal(shape) * 3).astype(dtype)
        for transposed in (False, True):
            x, t = st.tensor(a), torch.from_numpy(a)
            if transposed:
                x, t = x.transpose(0, -1), t.transpose(0, -1)
            for d in range(len(shape)):
                for smaller in (False, True):
                    ish = list(t.shape)
                    if smaller:
                        ish = [max(1, s - 1) for s in ish]
                        ish[d] += 3
                    ix = r.integers(0, t.shape[d], ish)
                    got = x.gather(d, st.tensor(ix))
                    want = t.gather(d, torch.from_numpy(ix))
                    with native.disabled():
                        slow = x.gather(d, st.tensor(ix))
                    assert got.shape == tuple(want.shape)
                    assert got.numpy().tobytes() == want.numpy().tobytes() == slow.numpy().tobytes()
    big = st.tensor(r.standard_normal((3, 100, 100)).astype(np.float32))[1]  # (an offset into its storage)
    ix = r.integers(0, 100, (100, 100))
    assert big.gather(1, st.tensor(ix)).numpy().tobytes() == \
        torch.from_numpy(big.numpy()).gather(1, torch.from_numpy(ix)).numpy().tobytes()


@pytest.mark.parametrize("where", [(0, 0), (50, 7), (99, 99)])
@pytest.mark.parametrize("value", [100, -1, 2**62])
def test_out_of_range_is_torchs_error(where: tuple[int, int], value: int) -> None:
    ix = np.zeros((100, 100), np.int64)
    ix[where] = value
    with pytest.raises(RuntimeError) as got:
        st.ones(100, 100).gather(1, st.tensor(ix))
    with pytest.raises(RuntimeError) as want:
        torch.ones(100, 100).gather(1, torch.from_numpy(ix))
    assert str(got.value).splitlines()[0] == str(want.value).splitlines()[0]


def test_kernel_refusals() -> None:
    k = native.special()
    x = np.arange(20.0)
    ix = np.zeros((4, 5), np.int64)
    out = np.zeros(20)
    assert k.gather_nd(x, 0, (5, 1), ix.astype(np.int32), out, (4, 5), 1, 5) == -2  # (not int64)
    assert k.gather_nd(x, 0, (5, 1), ix, out[:10], (4, 5), 1, 5) == -2  # (out's size)
    assert k.gather_nd(x, 0, (5, 1), ix, x, (4, 5), 1, 5) == -2  # (out overlaps x)
    assert not out.any()
    ix[2, 3] = 5
    assert k.gather_nd(x, 0, (5, 1), ix, out, (4, 5), 1, 5) == 13
    with pytest.raises(ValueError, match="one length"):
        k.gather_nd(x, 0, (5,), ix, out, (4, 5), 1, 5)


_SCATTERS = {
    "scatter": lambda x, d, i, s: x.scatter(d, i, s),
    "scatter_add": lambda x, d, i, s: x.scatter_add(d, i, s),
    "scatter value": lambda x, d, i, s: x.scatter(d, i, 2),
    "scatter_": lambda x, d, i, s: x.scatter_(d, i, s),
    "scatter_reduce sum": lambda x, d, i, s: x.scatter_reduce(d, i, s, "sum"),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "float16", "int8"])
def test_scatter_bits(dtype: str) -> None:
    """The compiled scatter_nd (writes; adds for float32/float64/int32/int64) against PyTorch (repeated
    positions: the last write wins, the adds in the index's order) and the NumPy path."""
    r = np.random.default_rng(2)
    for shape in [(64, 65), (7, 9, 130), (5000,)]:
        a = (r.standard_normal(shape) * 3).astype(dtype)
        for transposed in (False, True):
            for d in range(len(shape)):
                tshape = shape[::-1] if transposed else shape
                ix = r.integers(0, tshape[d], tshape)
                src = (r.standard_normal(tshape) * 3).astype(dtype)
                for name, call in _SCATTERS.items():
                    if dtype == "float16" and name in ("scatter_add", "scatter_reduce sum"):
                        continue  # (float16 sums differ from PyTorch's on the NumPy path too: not this kernel's)

                    def run(m: Any, call: Any = call, a: np.ndarray = a, ix: np.ndarray = ix,
                            src: np.ndarray = src, transposed: bool = transposed, d: int = d) -> Any:
                        x = st.tensor(a) if m is st else torch.from_numpy(a.copy())
                        if transposed:
                            x = x.transpose(0, -1)
                        wrap = st.tensor if m is st else torch.from_numpy
                        return call(x, d, wrap(ix), wrap(src))

                    got = run(st)
                    want = run(torch)
                    with native.disabled():
                        slow = run(st)
                    g, w, s = (np.ascontiguousarray(v.numpy()) for v in (got, want, slow))
                    assert got.stride() == slow.stride()
                    assert g.tobytes() == w.tobytes() == s.tobytes(), (name, shape, transposed, d)


def test_scatter_kernel_refusals() -> None:
    k = native.special()
    x = np.zeros(20)
    ix = np.zeros((4, 5), np.int64)
    vals = np.ones(20)
    assert k.scatter_nd(x, 0, (5, 1), ix, vals.astype(np.float32), (4, 5), 1, 5, False) is False  # (formats)
    assert k.scatter_nd(x, 0, (5, 1), ix, x, (4, 5), 1, 5, False) is False  # (vals overlap x)
    assert k.scatter_nd(x.astype(bool), 0, (5, 1), ix, vals.astype(bool), (4, 5), 1, 5, True) is False  # (no bool add)
    assert not x.any()
    assert k.scatter_nd(x, 0, (5, 1), ix, vals, (4, 5), 1, 5, True) is True
    assert x.reshape(4, 5)[:, 0].tolist() == [5.0] * 4 and x.sum() == 20
