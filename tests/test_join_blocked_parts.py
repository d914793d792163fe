"""Large joins copy part by part through the blocked copy (ops/shape/joining.py ``_concatenate_into``,
from ``_PART_COPY_BYTES`` of result): each case runs with that path, with it turned off (one
np.concatenate, the general path) and through PyTorch 2.13, comparing shape, strides, dtype and
bytes (NaN payloads, -0.0 and all) bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from oracle_helpers import case
from strided.ops.shape import joining

N = 300  # (300 x 300 float32: 360 KB, above the part copy's threshold; a join holds two or three)


def _bits(shape, dtype, seed, layout):
    """A NumPy array of ``shape`` with special values (NaN, inf, -0.0) in the given ``layout``:
    "c" row-major, "t" the transpose of a row-major array, "s" every other column of a wider one."""
    rng = np.random.default_rng(seed)
    make = shape[::-1] if layout == "t" else shape[:-1] + (2 * shape[-1],) if layout == "s" else shape
    base = rng.standard_normal(make) * 100
    flat = base.reshape(-1)
    flat[::97] = -0.0
    flat[5::101] = np.nan
    flat[7::103] = -np.inf
    if np.dtype(dtype).kind != "f":
        base = np.nan_to_num(base, posinf=0.0, neginf=0.0)
    base = base.astype(dtype)
    return base.T if layout == "t" else base[..., ::2] if layout == "s" else base


def _same(s, r) -> None:
    assert tuple(s.shape) == tuple(r.shape)
    assert tuple(s.stride()) == tuple(r.stride())
    assert s.dtype.name == str(r.dtype).split(".")[1]
    assert np.ascontiguousarray(np.asarray(s)).tobytes() == np.ascontiguousarray(r.numpy()).tobytes()


CALLS = [
    ("cat", {"dim": 0}), ("cat", {"dim": 1}), ("cat", {"dim": -1}), ("stack", {"dim": 0}),
    ("stack", {"dim": 1}), ("stack", {"dim": 2}), ("hstack", {}), ("vstack", {}), ("row_stack", {}),
    ("dstack", {}), ("column_stack", {}),
]
INPUTS = [
    (("t", np.float32), ("t", np.float32)), (("c", np.float32), ("t", np.float32)),
    (("s", np.float32), ("t", np.float32)), (("t", np.float64), ("t", np.float32)),
    (("t", np.int64), ("c", np.float32)), (("t", np.float16), ("s", np.float16)),
    (("t", np.int32), ("t", np.int32)), (("t", np.float32), ("t", np.float32), ("c", np.float32)),
]


@pytest.mark.parametrize("name,kw", CALLS)
def test_large_join_matches_concatenate_and_torch(name, kw, monkeypatch):
    for inputs in INPUTS:
        with case(inputs=inputs), monkeypatch.context() as mp:
            _large_join_matches_concatenate_and_torch(name, kw, inputs, mp)


def _large_join_matches_concatenate_and_torch(name, kw, inputs, monkeypatch):
    arrays = [_bits((N, N), dt, i, lay) for i, (lay, dt) in enumerate(inputs)]
    fast = getattr(strided, name)([strided.from_numpy(a) for a in arrays], **kw)
    monkeypatch.setattr(joining, "_PART_COPY_BYTES", 1 << 62)  # the general path: one np.concatenate
    general = getattr(strided, name)([strided.from_numpy(a) for a in arrays], **kw)
    ref = getattr(torch, name)([torch.from_numpy(a) for a in arrays], **kw)
    _same(fast, ref)
    _same(general, ref)
    assert not any(np.shares_memory(np.asarray(fast), a) for a in arrays)


def test_large_join_takes_the_part_path():
    """The threshold the tests above rely on: a 300 x 300 float32 join is past it."""
    assert 2 * N * N * 4 >= joining._PART_COPY_BYTES


def test_large_join_out_and_ledger_unchanged():
    """out= and the copy ledger see the same join as before (one record, new memory, its bytes)."""
    a = _bits((N, N), np.float32, 0, "t")
    b = _bits((N, N), np.float32, 1, "t")
    o = strided.empty(0)
    r = strided.hstack([strided.from_numpy(a), strided.from_numpy(b)], out=o)
    assert r is o and tuple(o.shape) == (N, 2 * N)
    assert np.asarray(o).tobytes() == np.hstack([a, b]).tobytes()
    with strided.watch() as w:
        strided.hstack([strided.from_numpy(a), strided.from_numpy(b)])
    rows = w.summary()
    assert [(r.op, r.count, r.nbytes) for r in rows] == [("hstack", 1, 2 * N * N * 4)]
    assert rows[0].reason == "hstack: 2 tensors joined along dim 1 into new memory"
