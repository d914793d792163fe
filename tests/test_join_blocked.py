"""cat/stack/hstack/vstack of large inputs whose memory order disagrees with the result's: each input
is copied into its slice by the blocked copy (compiled or NumPy strips), not np.concatenate's
element walk. Values, dtype and strides against PyTorch; the copy ledger sees one join."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st


def pair(shape, dtype=np.float32, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return st.from_numpy(a.copy()), torch.from_numpy(a.copy())


def agree(s, t):
    assert tuple(s.shape) == tuple(t.shape) and s.stride() == t.stride() and s.dtype.name == str(t.dtype)[6:]
    assert s.numpy().tobytes() == t.contiguous().numpy().tobytes() if s.is_contiguous() else \
        np.array_equal(s.numpy(), t.numpy())


@pytest.mark.parametrize("name", ["cat0", "cat1", "hstack", "vstack", "stack", "cat3", "stack0", "stack_last"])
@pytest.mark.parametrize("view", ["t", "permute3", "stepped"])
def test_large_joins_of_transposed_inputs(name, view):
    if view == "permute3":
        (s1, t1), (s2, t2) = pair((64, 96, 80)), pair((64, 96, 80), seed=1)
        s1, t1, s2, t2 = s1.permute(2, 0, 1), t1.permute(2, 0, 1), s2.permute(2, 0, 1), t2.permute(2, 0, 1)
    else:
        (s1, t1), (s2, t2) = pair((700, 600)), pair((700, 600), seed=1)
        s1, t1, s2, t2 = s1.t(), t1.t(), s2.t(), t2.t()
        if view == "stepped":
            s1, t1, s2, t2 = s1[:, ::2], t1[:, ::2], s2[:, ::2], t2[:, ::2]
    ops = {"cat0": lambda m, a, b: m.cat([a, b], 0), "cat1": lambda m, a, b: m.cat([a, b], 1),
           "stack0": lambda m, a, b: m.stack([a, b], 0), "stack_last": lambda m, a, b: m.stack([a, b], -1),
           "hstack": lambda m, a, b: m.hstack([a, b]), "vstack": lambda m, a, b: m.vstack([a, b]),
           "stack": lambda m, a, b: m.stack([a, b], 1), "cat3": lambda m, a, b: m.cat([a, b, a], -1)}
    agree(ops[name](st, s1, s2), ops[name](torch, t1, t2))


def test_a_cast_into_the_result_and_one_ledger_record():
    (s1, t1), (s2, t2) = pair((512, 640), np.float32), pair((512, 640), np.float64, seed=2)
    si, ti = st.from_numpy(np.arange(512 * 640).reshape(512, 640) % 977), torch.arange(512 * 640).reshape(512, 640) % 977
    with st.record_copies() as ledger:
        got = st.cat([s1.t(), s2.t(), si.t()], 1)
    agree(got, torch.cat([t1.t(), t2.t(), ti.t()], 1))
    assert [r.reason for r in ledger] == ["cat: 3 tensors joined along dim 1 into new memory"]
    assert ledger[0].nbytes == got.numel() * 8 and ledger[0].shape == (640, 1536)
