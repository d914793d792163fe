"""Large joins whose result interleaves its inputs element by element (``dstack`` of matrices,
``stack`` along a new last dim): the compiled join's two-run interleave (``join_rows``: row-major
inputs) against PyTorch, bit for bit (shape, strides, dtype, bytes with NaN payloads and -0.0), at
sizes that leave a tail past the 16-byte unpacks and over memory at an odd address.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.complex64, np.float16]
SHAPES = [(301, 303), (256, 257), (3, 40001)]  # (odd element counts: the unpacks' tails)
CALLS = [("dstack", {}), ("stack", {"dim": -1}), ("stack", {"dim": 2}), ("column_stack", {})]


def _bits(shape, dtype, seed):
    """Values with specials (-0.0, NaN, -inf) of ``dtype``, row-major."""
    rng = np.random.default_rng(seed)
    base = rng.standard_normal(shape) * 100
    flat = base.reshape(-1)
    flat[::97] = -0.0
    flat[5::101] = np.nan
    flat[7::103] = -np.inf
    if np.dtype(dtype).kind not in "fc":
        base = np.nan_to_num(base, nan=3.0, posinf=0.0, neginf=0.0)
    return base.astype(dtype)


def _unaligned(values: np.ndarray, skew: int) -> np.ndarray:
    """``values`` copied into a buffer at byte offset ``skew`` (not a multiple of the itemsize)."""
    buf = np.zeros(values.nbytes + 16, np.uint8)
    buf[skew: skew + values.nbytes] = values.reshape(-1).view(np.uint8)
    return np.frombuffer(buf.data, dtype=values.dtype, count=values.size, offset=skew).reshape(values.shape)


def _same(s, r) -> None:
    assert tuple(s.shape) == tuple(r.shape)
    assert tuple(s.stride()) == tuple(r.stride())
    assert s.dtype.name == str(r.dtype).split(".")[1]
    assert np.ascontiguousarray(np.asarray(s)).tobytes() == np.ascontiguousarray(r.numpy()).tobytes()


def _inputs(arrays, skew):
    return [strided.from_numpy(_unaligned(a, skew + i) if skew else a) for i, a in enumerate(arrays)]


@pytest.mark.parametrize("skew", [0, 1])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,kw", CALLS)
def test_interleaving_joins_match_torch(name, kw, dtype, skew, torch_threads_as_assumed):
    for shape in SHAPES:
        if name == "column_stack":
            shape = (shape[0] * shape[1],)  # (1-D columns: the same interleave)
        arrays = [_bits(shape, dtype, 0), _bits(shape, dtype, 1)]
        ours = getattr(strided, name)(_inputs(arrays, skew), **kw)
        _same(ours, getattr(torch, name)([torch.from_numpy(a) for a in arrays], **kw))
