"""copysign of two float32/float64 tensors of one dense layout through the compiled
``binary_exact`` (code 3: x's magnitude, y's sign bit, one vector loop): np.copysign's bits on
every value (zeros, infinities, NaN payloads and signs, subnormals); the op on the layouts that
take it (row-major, column-major) and those that do not (broadcast, stepped, mixed dtypes,
integers, out=, in place), against NumPy's bits and PyTorch's values, with the kernel off, and its
gradient.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs
from hypothesis.extra import numpy as hnp

import strided
from float32_cases import NAN_PAYLOADS
from strided.kernels import native

_KERNEL = native.special()
pytestmark = pytest.mark.skipif(_KERNEL is None, reason="the compiled special functions are not built")


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint32 if a.dtype == np.float32 else np.uint64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_kernel_gives_numpys_bits(dtype: type) -> None:
    rng = np.random.default_rng(8)
    width = np.uint32 if dtype == np.float32 else np.uint64
    x, y = (rng.integers(0, np.iinfo(width).max, 1 << 15, dtype=np.uint64).astype(width).view(dtype) for _ in range(2))
    with np.errstate(invalid="ignore"):
        v = np.concatenate([np.array([0.0, -0.0, 1.0, -2.5, 1e-45, np.inf, -np.inf]), NAN_PAYLOADS]).astype(dtype)
    a, b = np.meshgrid(v, v)
    for p, q in ((x, y), (a.ravel(), b.ravel())):
        out = np.empty_like(p)
        assert _KERNEL.binary_exact(p, q, out, 3)
        np.testing.assert_array_equal(_bits(out), _bits(np.copysign(p, q)))
    assert not _KERNEL.binary_exact(x, y, x, 3)  # (an overlap: NumPy's)


@settings(max_examples=40, deadline=None)
@given(hs.integers(0, 80).flatmap(lambda n: hs.tuples(*[hnp.arrays(np.float32, n, elements=hs.floats(width=32))] * 2)))
def test_any_length(xy: tuple[np.ndarray, np.ndarray]) -> None:
    x, y = xy
    out = np.empty_like(x)
    assert _KERNEL.binary_exact(x, y, out, 3)
    assert _bits(out).tolist() == _bits(np.copysign(x, y)).tolist()


_LAYOUTS = {
    "contiguous": lambda a, b: (a, b),
    "transposed": lambda a, b: (a.T, b.T),
    "broadcast": lambda a, b: (a, b[:1]),
    "stepped": lambda a, b: (a[::2], b[1::2]),
    "0-d": lambda a, b: (a[1, 2], b[3, 4]),
    "empty": lambda a, b: (a[:0], b[:0]),
}


@pytest.mark.parametrize("layout", list(_LAYOUTS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_op_on_every_layout(layout: str, dtype: str) -> None:
    rng = np.random.default_rng(3)
    a, b = (rng.uniform(-3, 3, (24, 18)).astype(dtype) for _ in range(2))
    b[0, :4] = [0.0, -0.0, np.nan, -np.nan]
    s = _LAYOUTS[layout](strided.from_numpy(a), strided.from_numpy(b))
    t = _LAYOUTS[layout](torch.from_numpy(a), torch.from_numpy(b))
    got, want = strided.copysign(*s), torch.copysign(*t)
    assert got.dtype == getattr(strided, dtype) and got.shape == tuple(want.shape) and got.stride() == want.stride()
    ref = np.copysign(*(u.numpy() for u in t))
    np.testing.assert_array_equal(_bits(got.numpy()), _bits(ref))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    with native.disabled():
        np.testing.assert_array_equal(_bits(strided.copysign(*s).numpy()), _bits(ref))


def test_promotion_out_in_place_and_gradient() -> None:
    a = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    b = -a[::-1].copy()
    want = torch.copysign(torch.from_numpy(a), torch.from_numpy(b))
    np.testing.assert_array_equal(strided.copysign(strided.from_numpy(a), strided.from_numpy(b).double()).numpy(),
                                  torch.copysign(torch.from_numpy(a), torch.from_numpy(b).double()).numpy())
    ints = strided.copysign(strided.arange(6).reshape(2, 3), strided.from_numpy(b[:2, :3]))
    assert ints.dtype == strided.float32
    out = strided.empty((4, 3)).T
    assert strided.copysign(strided.from_numpy(a), strided.from_numpy(b), out=out) is out
    np.testing.assert_array_equal(out.numpy(), want.numpy())
    x = strided.from_numpy(a.copy())
    x.copysign_(strided.from_numpy(b))
    np.testing.assert_array_equal(x.numpy(), want.numpy())
    leaf = strided.from_numpy(a.copy()).requires_grad_()
    strided.copysign(leaf, strided.from_numpy(b)).sum().backward()
    tl = torch.from_numpy(a.copy()).requires_grad_()
    torch.copysign(tl, torch.from_numpy(b)).sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), tl.grad.numpy())
