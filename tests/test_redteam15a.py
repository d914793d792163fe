"""Red-team cases (session 15a) for the recent tensor() inference, nll_loss reductions and
var_mean changes: each compared with PyTorch (values bit for bit, dtypes, error classes)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided as st
import strided.nn.functional as SF


def _bits(t: torch.Tensor) -> np.ndarray:
    return t.detach().float().numpy() if t.dtype == torch.bfloat16 else t.detach().numpy()


def _sbits(s: st.Tensor) -> np.ndarray:
    return np.asarray(s.detach().float().tolist() if s.dtype == st.bfloat16 else s.detach().tolist())


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("bad", [0.5, np.inf, -np.inf, np.nan])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_none_ignored_sample_is_plus_zero(dtype, bad, weighted):
    """reduction='none' writes +0 for an ignored sample, as PyTorch's nll_loss_out_frame does:
    not -0 (-w * x of a positive pick) nor NaN (an infinite or NaN pick times the zero weight)."""
    x = np.array([[bad, -1.0], [-2.0, bad], [-0.5, -3.0]])
    target = np.array([0, 1, 1])
    weight = np.array([2.0, 0.5]) if weighted else None
    tdt, sdt = getattr(torch, dtype), getattr(st, dtype)
    for shape_3d in (False, True):
        xx = x[..., None] if shape_3d else x
        tt = target[:, None] if shape_3d else target
        expected = TF.nll_loss(torch.tensor(xx).to(tdt), torch.tensor(tt), ignore_index=0, reduction="none",
                               weight=None if weight is None else torch.tensor(weight).to(tdt))
        got = SF.nll_loss(st.tensor(xx).to(sdt), st.tensor(tt), ignore_index=0, reduction="none",
                          weight=None if weight is None else st.tensor(weight).to(sdt))
        a, b = _bits(expected), _sbits(got).reshape(a_shape := tuple(expected.shape))
        assert tuple(got.shape) == a_shape
        np.testing.assert_array_equal(a, b)
        number = ~np.isnan(a)  # (a NaN's sign is not compared)
        assert list(np.signbit(a[number])) == list(np.signbit(b[number]))
