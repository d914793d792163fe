"""Red-team checks of branch idx9's fast paths: each test failed on idx9 before its fix."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st


def _meta(t) -> tuple:
    return (str(t.numpy().dtype), tuple(t.shape), tuple(t.stride()), t.storage_offset())


@pytest.mark.parametrize("case", [
    lambda L: L.tensor(2.0) * np.array(3.0),          # 0-d tensor, 0-d ndarray: NumPy gives a scalar
    lambda L: L.tensor(2, dtype=L.int8) * np.array(3),
    lambda L: np.array(3.0) - L.tensor(2.0),
    lambda L: L.ones(3) @ np.ones(3),                 # 1-D @ 1-D: a 0-d product
    lambda L: L.tensor(5) >> np.array(1),
])
def test_operator_with_an_ndarray_giving_a_0d_result_has_0d_strides(case):
    # numpy_operator adopted NumPy's 0-d result through np.ascontiguousarray, which makes it
    # 1-D: the tensor had shape () with strides (1,), and clone()/contiguous() then raised.
    try:
        expected = case(torch)
    except TypeError:  # (PyTorch refuses ndarray - tensor; strided takes it: only the layout is checked)
        expected = None
    got = case(st)
    assert got.shape == () and got.stride() == () and got.storage_offset() == 0
    if expected is not None:
        assert _meta(got) == _meta(expected)
        assert got.numpy().tobytes() == expected.numpy().tobytes()
    c = got.clone()
    assert c.shape == () and c.stride() == () and c.item() == got.item()
    assert (got + 1).shape == ()


def test_numpy_ufunc_of_a_0d_tensor_has_0d_strides():
    r = np.sqrt(st.tensor(4.0))
    assert r.shape == () and r.stride() == ()
    assert r.clone().item() == 2.0
