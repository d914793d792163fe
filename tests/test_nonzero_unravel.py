"""nonzero / argwhere on large row-major inputs (``ops.indexing.masked._compiled_positions``, the
copy kernel's rows, and ``_unraveled`` where those are off: flat positions split into per-dim
indices by integer division) give bit for bit the np.nonzero path
(monkeypatched back) and PyTorch's answer: 2-D to 4-D, sizes not powers of two, size-1 dims,
float (-0.0 is zero, NaN is not), int, bool and complex inputs, no and all non-zero elements,
as_tuple; the (n, ndim) result keeps its (1, n) strides."""

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


SHAPES = [(64, 100), (97, 3, 31), (5, 1, 40, 23), (1, 5000), (4097, 1), (64, 128), (8, 16, 64), (3, 64, 2, 32)]


def _input(shape, dt, density, seed=0):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * 10).astype(dt) if dt is not np.bool_ else rng.random(shape) < 0.5
    a[rng.random(shape) >= density] = 0
    if a.dtype.kind == "f":
        flat = a.reshape(-1)
        flat[0], flat[1] = -0.0, np.nan
    return a


@pytest.mark.parametrize("shape", SHAPES)
def test_matches_np_nonzero_path_and_torch(shape, monkeypatch):
    for dt, density in itertools.product(
            [np.float32, np.float64, np.int32, np.bool_, np.complex64],
            [0.0, 0.3, 1.0]):
        with case(dt=dt, density=density), monkeypatch.context() as mp:
            _matches_np_nonzero_path_and_torch(shape, dt, density, mp)


def _matches_np_nonzero_path_and_torch(shape, dt, density, monkeypatch) -> None:
    a = _input(shape, dt, density)
    x = st.from_numpy(a)
    fast = st.nonzero(x)
    tuple_fast = [_bits(c) for c in st.nonzero(x, as_tuple=True)]
    with monkeypatch.context() as m:  # (the NumPy unravel, where the compiled rows are off)
        m.setattr(masked, "_compiled_positions", lambda arr: None)
        assert _bits(st.nonzero(x)) == _bits(fast)
    with monkeypatch.context() as m:
        m.setattr(masked, "_UNRAVEL_MIN", 1 << 62)
        old = st.nonzero(x)
        tuple_old = [_bits(c) for c in st.nonzero(x, as_tuple=True)]
    assert _bits(fast) == _bits(old)
    assert tuple_fast == tuple_old
    want = torch.nonzero(torch.from_numpy(a))
    assert fast.numpy().tobytes() == want.numpy().tobytes()
    assert fast.stride() == want.stride()
    assert st.argwhere(x).numpy().tobytes() == torch.argwhere(torch.from_numpy(a)).numpy().tobytes()


def test_strided_and_small_inputs_keep_np_nonzero(monkeypatch) -> None:
    calls = []
    # (the routing: every large row-major walk asks the compiled rows first, and unravels where
    # they answer None, as here)
    monkeypatch.setattr(masked, "_compiled_positions", lambda a: calls.append(a.shape) or None)
    monkeypatch.setattr(masked, "NONZERO_C", None)  # (the compiled small path: tests/test_index_compiled.py)
    a = _input((80, 90), np.float32, 0.5)
    st.nonzero(st.from_numpy(a)[::2, 1::3])  # not dense
    st.nonzero(st.from_numpy(a[:10, :10].copy()))  # small
    st.nonzero(st.from_numpy(a.reshape(-1)))  # 1-D: np.nonzero's one column already
    assert calls == []
    st.nonzero(st.from_numpy(a))
    assert calls == [(80, 90)]
    st.nonzero(st.from_numpy(a.T))  # permuted dense: its row-major copy unraveled (tests/test_large24.py)
    assert calls == [(80, 90), (90, 80)]
