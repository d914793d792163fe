"""scatter's general path on indices of many blocks (``gather_scatter._scatter_into``: each
block written with NumPy's 1-D index write, where it used ``np.put``) gives np.put's result,
bit for bit, and PyTorch's: repeated positions (the last write in the index's row-major order
wins), every dim, transposed and offset targets, a number as the value, NaN payloads and -0.0."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st


def _np_put_reference(x: np.ndarray, dim: int, idx: np.ndarray, src: np.ndarray | float) -> np.ndarray:
    """The old path's semantics: each (row-major) index element's position, written with np.put."""
    out = x.copy()
    grids = np.indices(idx.shape)
    grids[dim] = idx
    lin = np.ravel_multi_index(tuple(grids), out.shape).reshape(-1)
    vals = np.broadcast_to(src, idx.shape) if np.ndim(src) == 0 else src[tuple(slice(0, n) for n in idx.shape)]
    np.put(out.reshape(-1), lin, np.ascontiguousarray(vals).reshape(-1), mode="clip")
    return out


def _data(shape, seed, dt=np.float32):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * 10).astype(dt)
    if a.dtype.kind == "f":
        a.reshape(-1)[0] = -0.0
        a.reshape(-1).view(np.uint32 if a.itemsize == 4 else np.uint64)[3] = \
            0x7FC0_0123 if a.itemsize == 4 else 0x7FF8_0000_0000_0123
    return a


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("permuted", [False, True])
def test_many_blocks_match_np_put_and_torch(dim, dt, permuted) -> None:
    shape = (300, 260)
    x = _data(shape[::-1], 0, dt).T if permuted else _data(shape, 0, dt)
    idx = np.random.default_rng(1).integers(0, shape[dim] // 4, (300, 250))  # many repeats per row/column
    src = _data((300, 260), 2, dt)
    got = st.scatter(st.from_numpy(x), dim, st.from_numpy(idx), st.from_numpy(src))
    ref = _np_put_reference(np.ascontiguousarray(x), dim % 2, idx, src)
    assert got.numpy().tobytes() == np.ascontiguousarray(ref).tobytes()
    want = torch.scatter(torch.from_numpy(x.copy(order="K")), dim, torch.from_numpy(idx), torch.from_numpy(src))
    assert got.numpy().tobytes() == want.contiguous().numpy().tobytes()
    assert got.stride() == want.stride()


def test_number_value_and_offset_target() -> None:
    base = _data((400, 300), 3)
    x = base[50:, 20:]  # offset and non-contiguous rows
    idx = np.random.default_rng(4).integers(0, 280, (350, 200))
    t = st.from_numpy(x.copy())[...]
    got = st.from_numpy(base.copy())[50:, 20:]
    got.scatter_(1, st.from_numpy(idx), 2.5)
    ref = _np_put_reference(x.copy(), 1, idx, np.float32(2.5))
    assert got.numpy().tobytes() == ref.tobytes()
    want = torch.from_numpy(x.copy()).scatter_(1, torch.from_numpy(idx), 2.5)
    assert got.numpy().tobytes() == want.numpy().tobytes()
    assert t.numpy().tobytes() == x.tobytes()


def test_out_of_range_writes_nothing() -> None:
    x = st.from_numpy(_data((300, 260), 5))
    before = x.numpy().tobytes()
    idx = np.random.default_rng(6).integers(0, 260, (300, 260))
    idx[299, 259] = 260
    with pytest.raises(RuntimeError, match="out of bounds"):
        x.scatter_(1, st.from_numpy(idx), st.from_numpy(_data((300, 260), 7)))
    assert x.numpy().tobytes() == before


@pytest.mark.parametrize("reduce", ["sum", "prod"])
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("dim", [0, 1])
def test_scatter_reduce_include_self_by_blocks_matches_one_ufunc_at(reduce, dt, dim) -> None:
    """scatter_reduce sum/prod with include_self go through scatter_add's blocks: the same
    ufunc.at over the same positions in the same order as one call over all of them."""
    rng = np.random.default_rng(8)
    x = (rng.random((300, 260)) * 2 + 0.5).astype(dt) if dt != np.int64 else rng.integers(-3, 4, (300, 260))
    src = (rng.random((300, 260)) * 2 + 0.5).astype(dt) if dt != np.int64 else rng.integers(-2, 3, (300, 260))
    idx = rng.integers(0, (300, 260)[dim] // 3, (300, 250))
    got = st.scatter_reduce(st.from_numpy(x), dim, st.from_numpy(idx), st.from_numpy(src), reduce)
    grids = np.indices(idx.shape)
    grids[dim] = idx
    lin = np.ravel_multi_index(tuple(grids), x.shape).reshape(-1)
    ref = x.copy()
    (np.add if reduce == "sum" else np.multiply).at(ref.reshape(-1), lin, src[:, :250].reshape(-1))
    assert got.numpy().tobytes() == ref.tobytes()
    want = torch.scatter_reduce(torch.from_numpy(x), dim, torch.from_numpy(idx), torch.from_numpy(src), reduce)
    if dt == np.int64:
        assert got.numpy().tobytes() == want.numpy().tobytes()
    else:
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5 if dt == np.float32 else 1e-12)
