"""The small-size fast paths of shapeops2 give exactly what the general paths gave.

take_last (topk, median, mode) against np.take_along_axis; the direct 3-vector cross against
np.cross, bit for bit; split/chunk pieces against narrow (shape, strides, offset) and PyTorch.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from strided.ops._support.along import take_last


@pytest.mark.parametrize("shape", [(7,), (5, 9), (1, 4), (3, 2, 6)])
def test_take_last_is_take_along_axis(shape: tuple) -> None:
    r = np.random.RandomState(0)
    x = r.rand(*shape).astype(np.float32)
    for view in (x, np.swapaxes(x, 0, -1) if x.ndim > 1 else x[::-1]):
        idx = r.randint(-view.shape[-1], view.shape[-1], view.shape[:-1] + (4,))
        got = take_last(view, idx)
        want = np.take_along_axis(view, idx, axis=-1)
        assert got.shape == want.shape and got.flags.c_contiguous
        np.testing.assert_array_equal(got, want)


def test_cross_matches_torch_on_views() -> None:
    r = np.random.RandomState(2)
    x = r.randn(3, 16).astype(np.float32)
    y = r.randn(3, 1).astype(np.float32)
    got = st.linalg.cross(st.tensor(x).t(), st.tensor(y).t(), dim=1)
    want = torch.linalg.cross(torch.tensor(x).t(), torch.tensor(y).t(), dim=1)
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("sizes", [4, 5, [0, 10], [3, 0, 7], [10]])
def test_split_pieces_match_torch(sizes: object) -> None:
    s = st.arange(60.0).reshape(6, 10).t()[:, 1:]  # (10, 5), strides (1, 10), offset 10
    t = torch.arange(60.0).reshape(6, 10).t()[:, 1:]
    for got, want in zip(s.split(sizes), t.split(sizes), strict=True):
        assert (got.shape, got.stride(), got.storage_offset()) == (
            tuple(want.shape), want.stride(), want.storage_offset())
        assert got.tolist() == want.tolist()


def test_topk_ties_and_nan_as_pytorch() -> None:
    rows = [[1.0, 3.0, 3.0, float("nan"), 0.0], [2.0, 2.0, 2.0, 2.0, 1.0]]
    x, t = st.tensor(rows), torch.tensor(rows)
    v, i = x.topk(2)
    assert i.tolist() == t.topk(2).indices.tolist() == [[3, 1], [1, 3]] and v.tolist()[1] == [2.0, 2.0]
    v, i = x.topk(2, largest=False)  # (PyTorch's introselect: [4, 2], not the first 2 at 0)
    assert i.tolist() == t.topk(2, largest=False).indices.tolist() == [[4, 0], [4, 2]]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32])
def test_topk_compiled_fast_path_is_the_general_path_and_torchs(dtype: type, monkeypatch: pytest.MonkeyPatch) -> None:
    """stl_topk's first k of each sorted row (and its refusal of a row with equal values or NaN
    among the k + 1 that decide) against the general path, forced, bit for bit, and PyTorch."""
    from strided.ops.shape import sorting

    r = np.random.RandomState(5)
    cases = []
    for shape in ((3, 4), (16, 16), (7,), (2, 3, 5)):
        x = (r.randn(*shape) * 100).astype(dtype)
        cases.append(x)
        tied = x.copy()
        tied.reshape(-1, shape[-1])[:, 1] = tied.reshape(-1, shape[-1])[:, 0]
        cases.append(tied)
        if np.dtype(dtype).kind == "f":
            nan = x.copy()
            nan.reshape(-1)[2] = np.nan
            cases.append(nan)
            zeros = x.copy()
            zeros.reshape(-1, shape[-1])[:, :2] = [-0.0, 0.0]
            cases.append(zeros)

    def run() -> list:
        out = []
        for x in cases:
            for k in (1, 2, x.shape[-1] - 1):
                for largest in (True, False):
                    v, i = st.topk(st.tensor(x), k, largest=largest)
                    tv, ti = torch.topk(torch.tensor(x), k, largest=largest)
                    assert v.stride() == tv.stride() and i.stride() == ti.stride()
                    np.testing.assert_array_equal(v.numpy(), tv.numpy())
                    assert i.tolist() == ti.tolist()
                    out.append((v.numpy().tobytes(), i.numpy().tobytes(), v.dtype, i.dtype))
        return out

    fast = run()
    monkeypatch.setattr(sorting, "_fast_topk", lambda *a: None)
    assert fast == run()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_topk_of_large_tensors_is_pytorchs(dtype: type, monkeypatch: pytest.MonkeyPatch) -> None:
    """topk past the small-call path (more than 4096 elements): the compiled PyTorch steps on
    every row (stl_topk_exact), PyTorch's values, indices and strides, ties included (every row
    tied, -0.0 and 0.0); on rows with one answer (distinct values, a lone NaN) the NumPy route
    (forced) agrees. Along the last dim and another, k of 1, 2, 15, 16, 40."""
    from strided.ops.shape import sorting

    r = np.random.RandomState(8)
    x = r.permutation(90 * 120).reshape(90, 120).astype(dtype)  # (distinct values)
    tied = (x // 7).astype(dtype)
    cases = [x, tied]
    if np.dtype(dtype).kind == "f":
        nan, zeros = x.copy(), x.copy()
        nan[4, 7] = np.nan
        zeros[:, :2] = [-0.0, 0.0]
        zeros[:, 2:] += 1
        cases += [nan, zeros]

    def run(one_answer_only: bool) -> list:
        out = []
        for a in cases:
            if one_answer_only and (a is tied or (a.dtype.kind == "f" and (a == 0).any())):
                continue
            for dim in (-1, 0):
                for k in (1, 2, 15, 16, 40):
                    for largest in (True, False):
                        v, i = st.topk(st.tensor(a), k, dim=dim, largest=largest)
                        tv, ti = torch.topk(torch.tensor(a), k, dim=dim, largest=largest)
                        assert v.stride() == tv.stride() and i.stride() == ti.stride()
                        np.testing.assert_array_equal(v.numpy(), tv.numpy())
                        if not one_answer_only:  # (the compiled steps: PyTorch's positions, ties too)
                            assert i.tolist() == ti.tolist()
                        out.append((v.numpy().tobytes(), i.numpy().tobytes()))
        return out

    run(False)
    fast = run(True)
    monkeypatch.setattr(sorting, "_exact_topk", lambda *a: None)
    assert fast == run(True)
