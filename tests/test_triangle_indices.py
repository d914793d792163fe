"""tril_indices/triu_indices against PyTorch: every small (row, col, offset), large and skewed
matrices, both dtypes; each call returns new, writable memory (small triangles are memoized)."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st


@settings(max_examples=300, deadline=None)
@given(row=hs.integers(0, 80), col=hs.integers(0, 80), offset=hs.integers(-90, 90), lower=hs.booleans(),
       int32=hs.booleans())
def test_triangle_indices_are_pytorchs(row, col, offset, lower, int32):
    ours = (st.tril_indices if lower else st.triu_indices)(row, col, offset, dtype=st.int32 if int32 else st.int64)
    theirs = (torch.tril_indices if lower else torch.triu_indices)(
        row, col, offset, dtype=torch.int32 if int32 else torch.int64)
    got, want = ours.numpy(), theirs.numpy()
    assert got.dtype == want.dtype and got.shape == want.shape and ours.stride() == theirs.stride()
    np.testing.assert_array_equal(got, want)


def test_large_and_skewed_triangles():
    for row, col, offset in [(1024, 1024, 0), (3000, 7, -2), (7, 3000, 5), (100, 100, 1000)]:
        for lower in (True, False):
            got = (st.tril_indices if lower else st.triu_indices)(row, col, offset).numpy()
            want = (torch.tril_indices if lower else torch.triu_indices)(row, col, offset).numpy()
            np.testing.assert_array_equal(got, want)


def test_each_call_is_new_writable_memory():
    a = st.tril_indices(3, 4)
    a[0, 0] = 7
    b = st.tril_indices(3, 4)
    assert b[0, 0].item() == 0 and not st.dispatch.shares_storage(a, b)
