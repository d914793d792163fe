"""Hostile tests of session 39's new paths (hyp39's sinh / cosh / atanh / log2, atan39, pow39, conv39,
misc39, wt39): each pins PyTorch 2.13's bits, strides, errors or copies on an input the branches'
own tests did not try."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided


def _same(got: strided.Tensor, want: torch.Tensor) -> None:
    """dtype, shape, strides and every bit (NaN words included) equal."""
    g, w = got.detach().numpy(), want.detach().numpy()
    assert g.dtype == w.dtype and g.shape == w.shape
    assert tuple(got.stride()) == tuple(want.stride())
    g, w = np.ascontiguousarray(g), np.ascontiguousarray(w)
    if g.dtype.kind == "f" and g.itemsize >= 4:
        g, w = g.view(f"u{g.itemsize}"), w.view(f"u{w.itemsize}")
    assert np.array_equal(g, w, equal_nan=g.dtype.kind in "fc"), (g.ravel()[:4], w.ravel()[:4])


# ---------------------------------------------------------------- hyp39: promoted integer inputs

_INT_VIEWS = {
    "expanded_rows": lambda a: a[:40].reshape(1, 40).expand(3, 40),
    "expanded_4d_permuted_sliced": lambda a: a[:40].reshape(1, 40, 1, 1).expand(2, 40, 3, 3).permute(0, 2, 3, 1)[..., ::2],
    "sliced_transposed": lambda a: a[:3600].reshape(60, 60)[3:50, 5:41].t(),
    "expanded_columns": lambda a: a[:40].reshape(40, 1).expand(40, 3),
    "permuted": lambda a: a[:3840].reshape(8, 16, 30).permute(2, 0, 1),
}


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("view", list(_INT_VIEWS))
@pytest.mark.parametrize("name", ["sinh", "cosh", "atanh", "log2"])
def test_integer_input_layouts(name: str, view: str, dt: type) -> None:
    """An integer input is cast to float32 first in the layout of PyTorch's temporary (Tensor.to's
    preserve_format: infer_dense_strides for a non-dense input), which decides which elements take
    SLEEF's vectorized function: NumPy's astype of an expanded input (column-major) sent every
    element through the scalar one (a 1-ulp sinh/cosh difference, atanh's NaN sign)."""
    rng = np.random.default_rng(3)
    x = rng.integers(0 if dt == np.uint8 else -2, 60, 4000).astype(dt)
    v = _INT_VIEWS[view]
    _same(getattr(v(strided.from_numpy(x)), name)(), getattr(v(torch.from_numpy(x)), name)())


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("name", ["sinh", "cosh", "atanh"])
def test_integer_expanded_past_grain(name: str) -> None:
    x = np.random.default_rng(4).integers(-2, 60, 40_000).astype(np.int32)
    _same(getattr(strided.from_numpy(x).reshape(1, -1).expand(3, -1), name)(),
          getattr(torch.from_numpy(x).reshape(1, -1).expand(3, -1), name)())
