"""gcd / lcm's compiled loop (``gcd_fresh``: Stein's algorithm where no operand's ``|x|`` wraps,
PyTorch's Euclid where one does, lcm's product wrapping as C's): torch's numbers on every int8
and uint8 pair and on the wider dtypes' edges, and the formulas' numbers (the loop turned off)."""

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native


def _pairs(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    info = np.iinfo(dtype)
    if info.bits == 8:  # (every pair)
        v = np.arange(info.min, info.max + 1, dtype=dtype)
        return np.repeat(v, len(v)), np.tile(v, len(v))
    edge = np.array([info.min, info.min + 1, info.max, info.max - 1, -1, 0, 1, 2, -2, 6, -6, 12, 1 << (info.bits - 2),
                     -(1 << (info.bits - 2)), 243, 1001], dtype=dtype)
    rng = np.random.default_rng(7)
    r = rng.integers(info.min, info.max, 3000, dtype=dtype, endpoint=True)
    small = rng.integers(-300, 300, 3000).astype(dtype)
    return (np.concatenate([np.repeat(edge, len(edge)), r, small, r]),
            np.concatenate([np.tile(edge, len(edge)), r[::-1], small[::-1], small]))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
@pytest.mark.parametrize("name", ["gcd", "lcm"])
def test_torch_numbers(dtype, name):
    a, b = _pairs(dtype)
    got = getattr(st, name)(st.tensor(a), st.tensor(b))
    with native.disabled():  # (the formulas: the same numbers)
        slow = getattr(st, name)(st.tensor(a), st.tensor(b))
    assert got.numpy().tobytes() == slow.numpy().tobytes()
    if name == "lcm":  # (torch's lcm divides INT_MIN by a gcd of -1 (gcd(INT_MIN, INT_MAX)): SIGFPE)
        keep = st.gcd(st.tensor(a), st.tensor(b)).numpy() != -1
        a, b, got = a[keep], b[keep], st.tensor(got.numpy()[keep])
    want = getattr(torch, name)(torch.from_numpy(a.copy()), torch.from_numpy(b.copy()))
    assert str(got.dtype) == str(want.dtype).replace("torch.", "strided.")
    assert got.numpy().tobytes() == want.numpy().tobytes()


@pytest.mark.parametrize("name", ["gcd", "lcm"])
def test_small_layouts(name):
    a = np.arange(-6, 18, dtype=np.int32).reshape(4, 6)
    b = np.arange(24, dtype=np.int32)[::-1].reshape(4, 6).copy()
    for x, y in ((a, b), (a[1:3], b[1:3]), (a.T, b.T), (a[:, ::2], b[:, ::2]), (a[:1], b)):
        got = getattr(st, name)(st.tensor(x), st.tensor(y))
        want = getattr(torch, name)(torch.tensor(x), torch.tensor(y))
        assert got.tolist() == want.tolist() and got.stride() == want.stride()
