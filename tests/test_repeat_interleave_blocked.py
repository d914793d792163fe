"""repeat_interleave's general path on large non-row-major inputs (``ops.shape.reorder``: a
blocked row-major copy of the source, then one strided copy per repeat for a count up to
``_FEW_REPEATS``) gives bit for bit the broadcast copy it replaces (monkeypatched back) and
PyTorch's answer: transposed, flipped, expanded and offset sources, every dim and dim=None,
counts 1..9, tensor counts, float/int/bool/complex dtypes, NaN payloads and -0.0.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from strided.creation import borrow_array  # (any strides: from_numpy refuses negative ones, as PyTorch)
from strided.ops.shape import reorder


def _bits(t: st.Tensor) -> tuple:
    return (t.dtype, tuple(t.shape), t.stride(), t.storage_offset(), t.numpy().tobytes())


def _old(m: pytest.MonkeyPatch) -> None:
    m.setattr(reorder, "_FEW_REPEATS", 0)
    m.setattr(reorder, "_BLOCKED_ELEMENTS", 1 << 62)


def _sources() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((96, 130)).astype(np.float32)
    a[3, 4] = -0.0
    a.view(np.uint32)[5, 6] = 0x7FC0_0ABC  # a NaN with a payload
    b = rng.integers(-50, 50, (40, 30, 9)).astype(np.int64)
    return [
        a.T,                                    # permuted
        a[::-1, 1:],                            # flipped, offset
        np.broadcast_to(a[:1], (96, 130)),      # expanded (stride 0)
        b.transpose(2, 0, 1),                   # 3-D permuted
        (a.T > 0),                              # bool
        (a.T + 1j * a.T).astype(np.complex64),  # complex
    ]


@pytest.mark.parametrize("k", range(len(_sources())))
@pytest.mark.parametrize("repeats", [1, 2, 3, 8, 9])
def test_int_counts_match_old_path_and_torch(k, repeats, monkeypatch) -> None:
    src = _sources()[k]
    t = borrow_array(src, "from_numpy")
    tt = torch.from_numpy(src.copy())
    for dim in [None] + list(range(src.ndim)) + [-1]:
        fast = st.repeat_interleave(t, repeats, dim)
        with monkeypatch.context() as m:
            _old(m)
            old = st.repeat_interleave(t, repeats, dim)
        assert _bits(fast) == _bits(old)
        want = torch.repeat_interleave(tt, repeats, dim)
        assert fast.numpy().tobytes() == want.numpy().tobytes()
        assert tuple(fast.shape) == tuple(want.shape) and fast.stride() == want.stride()


def test_tensor_counts_on_a_permuted_source() -> None:
    src = _sources()[0]
    counts = np.random.default_rng(1).integers(0, 4, src.shape[1])
    got = st.repeat_interleave(borrow_array(src, "from_numpy"), st.from_numpy(counts), 1)
    want = torch.repeat_interleave(torch.from_numpy(src.copy()), torch.from_numpy(counts), 1)
    assert got.numpy().tobytes() == want.numpy().tobytes()


def test_copy_ledger_unchanged() -> None:
    t = borrow_array(_sources()[0], "from_numpy")
    with st.record_copies() as copies:
        st.repeat_interleave(t, 2)
    assert [(c.nbytes, c.reason) for c in copies] == [
        (2 * t.numel() * 4, "repeat_interleave: elements repeated along the flattened tensor into new memory")]
