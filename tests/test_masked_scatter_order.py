"""masked_scatter(_) on large inputs (``ops.indexing.masked``: the write through
``np.flatnonzero``'s positions, row-major copies of transposed masks and sources by the blocked
copy) gives bit for bit what NumPy's boolean write gives (monkeypatched back) and PyTorch's
answer: row-major and transposed self/mask/source, a broadcast mask, in place and out of place,
dense and sparse masks, NaN payloads and -0.0, float/int/bool/complex dtypes.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import strided as st
from oracle_helpers import case
from strided.ops.indexing import masked


def _bits(t: st.Tensor) -> tuple:
    return (t.dtype, tuple(t.shape), t.stride(), t.storage_offset(), t.numpy().tobytes())


def _old(m: pytest.MonkeyPatch) -> None:
    m.setattr(masked, "_BY_POSITIONS", 1 << 62)
    m.setattr(masked, "row_major", lambda a: a)


def _arr(shape, dt, seed, permuted):
    rng = np.random.default_rng(seed)
    make = shape[::-1] if permuted else shape
    a = (rng.standard_normal(make) * 50).astype(dt) if dt != np.bool_ else rng.random(make) > 0.3
    if a.dtype.kind == "f":
        a.reshape(-1)[0] = -0.0
        a.reshape(-1).view(np.uint32 if a.itemsize == 4 else np.uint64)[1] = \
            0x7FC0_0ABC if a.itemsize == 4 else 0x7FF8_0000_0000_0ABC
    return a.T if permuted else a


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.bool_, np.complex64])
def test_matches_boolean_write_and_torch(dt, monkeypatch):
    for layout, density, inplace in itertools.product(
            ["ccc", "ppp", "pcp", "cpc"],
            [0.5, 0.02],
            [False, True]):
        with case(layout=layout, density=density, inplace=inplace), monkeypatch.context() as mp:
            _matches_boolean_write_and_torch(dt, layout, density, inplace, mp)


def _matches_boolean_write_and_torch(dt, layout, density, inplace, monkeypatch) -> None:
    shape = (300, 260)
    x = _arr(shape, dt, 0, layout[0] == "p")
    rng = np.random.default_rng(1)
    mk = rng.random(shape[::-1] if layout[1] == "p" else shape) < density
    mask = mk.T if layout[1] == "p" else mk
    src = _arr(shape, dt, 2, layout[2] == "p")

    def run() -> st.Tensor:
        t = st.from_numpy(x.copy(order="K"))
        if inplace:
            return t.masked_scatter_(st.from_numpy(mask), st.from_numpy(src))
        return t.masked_scatter(st.from_numpy(mask), st.from_numpy(src))

    fast = run()
    with monkeypatch.context() as m:
        _old(m)
        old = run()
    assert _bits(fast) == _bits(old)
    want = torch.from_numpy(x.copy(order="K")).masked_scatter(torch.from_numpy(mask), torch.from_numpy(src))
    assert fast.numpy().tobytes() == want.numpy().tobytes()


def test_broadcast_mask_and_shared_source(monkeypatch) -> None:
    x = _arr((200, 300), np.float32, 3, True)
    row = np.random.default_rng(4).random(300) > 0.4
    outs = []
    for off in (False, True):
        with monkeypatch.context() as m:
            if off:
                _old(m)
            t = st.from_numpy(x.copy(order="K"))
            a = t.masked_scatter(st.from_numpy(row), t)
            t.masked_scatter_(st.from_numpy(row), t)  # a source in the target's memory: read first
            outs.append((_bits(a), _bits(t)))
    assert outs[0] == outs[1]
    want = torch.from_numpy(x.copy(order="K")).masked_scatter(torch.from_numpy(row), torch.from_numpy(x.copy()))
    assert outs[0][0][4] == want.numpy().tobytes()


def test_short_source_still_raises() -> None:
    x = st.from_numpy(_arr((100, 100), np.float32, 5, True))
    mask = st.ones(100, 100, dtype=st.bool)
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones in mask"):
        x.masked_scatter(mask, st.zeros(9999))
