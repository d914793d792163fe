"""The small-call paths of small24, compared with PyTorch's bytes and with the general paths
(``strided.kernels.native.disabled()``) over the layouts and dtypes each path can meet."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native


def _floats(shape: tuple[int, ...], npdt: type, seed: int = 24) -> np.ndarray:
    """Random values of ``shape`` with zeros of both signs, infinities and a NaN among them."""
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)).astype(npdt)
    flat = a.reshape(-1)
    for i, v in enumerate((0.0, -0.0, np.inf, -np.inf, np.nan)):
        if 2 * i + 1 < flat.size:
            flat[2 * i + 1] = v
    return a


def _same(got: np.ndarray, want: np.ndarray) -> bool:
    """The same bytes, NaNs at the same places (a NaN's sign and payload are NumPy's loop's
    choice in the general path, as its docs say)."""
    nan = np.isnan(want)
    return bool((np.isnan(got) == nan).all() and got[~nan].tobytes() == want[~nan].tobytes())


def _misaligned(a: np.ndarray) -> np.ndarray:
    """``a``'s values in memory at an address that is no multiple of its item size."""
    raw = np.zeros(a.nbytes + 1, np.uint8)
    out = raw[1:].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


@pytest.mark.parametrize("npdt", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 3), (4, 3), (3, 4), (85, 3), (2, 3, 5), (3, 3, 3), (2, 3, 1, 3)])
def test_cross_flat_form_matches_torch(npdt: type, shape: tuple[int, ...]) -> None:
    """The fast path's flat cross3 call (1-D runs read as (outer, 3, inner) blocks) gives
    PyTorch's bytes and strides along every dim of size 3, as does the general path."""
    a, b = _floats(shape, npdt, 1), _floats(shape, npdt, 2)
    for dim in (d for d in range(-len(shape), len(shape)) if shape[d] == 3):
        want = torch.cross(torch.tensor(a), torch.tensor(b), dim=dim)
        for sa, sb in ((strided.tensor(a), strided.tensor(b)),
                       (strided.from_numpy(_misaligned(a)), strided.from_numpy(_misaligned(b)))):
            got = strided.cross(sa, sb, dim=dim)
            assert got.stride() == want.stride()
            assert _same(got.numpy(), want.numpy())
            with native.disabled():
                slow = strided.linalg.cross(sa, sb, dim=dim)
            assert _same(slow.numpy(), want.numpy())


def test_cross3_flat_refusals() -> None:
    """cross3's flat form: False (nothing written) on misaligned or overlapping memory, a
    ValueError on runs that do not fit (outer, 3, inner) blocks."""
    k = native.special()
    if k is None:
        pytest.skip("the compiled kernels are not built")
    x = np.arange(12, dtype=np.float32)
    out = np.full(12, 7.0, np.float32)
    assert k.cross3(x, x, out, 1) is True
    assert k.cross3(_misaligned(x), x, out, 1) is False
    assert k.cross3(x, out, out, 1) is False
    with pytest.raises(ValueError):
        k.cross3(x, x, out, 5)
    with pytest.raises(ValueError):
        k.cross3(x, x[:9], out, 1)
    with pytest.raises(ValueError):
        k.cross3(x, x, out, 0)
