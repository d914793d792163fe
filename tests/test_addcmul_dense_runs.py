"""addcmul's and lerp's general paths on operands that share one dense layout (column-major)
run fma_into (lerp: lerp_into) over their memory-order runs (binary_more._same_dense_runs), not fma's
float64 temporaries: the bits of that path (monkeypatched off) and of PyTorch's fused kernel,
with shape, strides and dtype; mixed layouts, broadcasting and other dtypes keep fma."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import strided as st
from oracle_helpers import case
from strided.ops.elementwise import binary_more

BITS = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


def _operands(dtype: type, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    arrs = [rng.uniform(-3, 3, (40, 24)).astype(dtype) for _ in range(3)]
    arrs[0][0, :5] = [np.nan, np.inf, -np.inf, -0.0, 0.0]
    arrs[1][1, :4] = [1e30, -1e-30, np.nan, 0.0]
    arrs[2][2, :3] = [1e30, 3e-39 if dtype == np.float32 else 1e-310, -0.0]
    return arrs


LAYOUTS = {
    "transposed": lambda a, i: a.T,
    "one row-major": lambda a, i: a.T if i else np.ascontiguousarray(a.T),
    "stepped": lambda a, i: a[::2, ::3],
    "broadcast row": lambda a, i: a[:1] if i == 2 else a,
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", list(LAYOUTS), ids=list(LAYOUTS))
@pytest.mark.parametrize("value", [1, 0.5, -2.0, 1e-3])
def test_the_same_bits_as_fma_and_pytorch(dtype: type, layout: str, value: float,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    arrs = [LAYOUTS[layout](a, i) for i, a in enumerate(_operands(dtype, 3))]
    s = [st.from_numpy(a) for a in arrs]
    got = st.addcmul(*s, value=value)
    with monkeypatch.context() as m:
        m.setattr(binary_more, "_same_dense_runs", lambda *a: None)
        slow = st.addcmul(*s, value=value)
    want = torch.addcmul(*[torch.from_numpy(a) for a in arrs], value=value)
    for r in (slow, want):
        assert got.shape == tuple(r.shape) and got.stride() == r.stride()
        g, w = np.ascontiguousarray(got.numpy()), np.ascontiguousarray(r.numpy())
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g.view(BITS[g.dtype]), w.view(BITS[w.dtype]))


def test_the_runs_are_taken_only_for_one_dense_layout() -> None:
    a = np.zeros((4, 3), np.float32)
    f = np.asfortranarray(a)
    assert binary_more._same_dense_runs(f, f.copy(order="F"), f.copy(order="F")) is not None
    assert binary_more._same_dense_runs(a, a.copy(), a.copy()) is not None
    assert binary_more._same_dense_runs(f, a, a) is None  # (another order)
    assert binary_more._same_dense_runs(a[:, :2], a[:, :2], a[:, :2]) is None  # (not dense)
    assert binary_more._same_dense_runs(a, a.astype(np.float64)) is None
    assert binary_more._same_dense_runs(a.astype(np.float16), a.astype(np.float16)) is None
    runs = binary_more._same_dense_runs(f, f)
    assert runs is not None and all(np.shares_memory(r, f) for r in runs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", list(LAYOUTS), ids=list(LAYOUTS))
def test_lerp_the_same_bits_as_fma_and_pytorch(dtype, layout, monkeypatch):
    """lerp's general path takes lerp_into over the runs where input, end and the result share
    one dense layout (a scalar weight): the bits of the fma path and of PyTorch's kernel."""
    for weight, inplace in itertools.product(
            [0.3, 0.5, -0.2, 1.7, 0.0],
            [False, True]):
        with case(weight=weight, inplace=inplace), monkeypatch.context() as mp:
            _lerp_the_same_bits_as_fma_and_pytorch(dtype, layout, weight, inplace, mp)


def _lerp_the_same_bits_as_fma_and_pytorch(dtype: type, layout: str, weight: float, inplace: bool,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    arrs = [LAYOUTS[layout](a, i) for i, a in enumerate(_operands(dtype, 5)[:2])]
    if inplace and arrs[0].shape != np.broadcast_shapes(arrs[0].shape, arrs[1].shape):
        return  # (PyTorch refuses an in-place result of another shape)

    def run() -> tuple:
        s = [st.from_numpy(a.copy(order="K")) for a in arrs]
        return (s[0].lerp_(s[1], weight) if inplace else st.lerp(s[0], s[1], weight)), s

    (got, ins) = run()
    with monkeypatch.context() as m:
        m.setattr(binary_more, "_same_dense_runs", lambda *a: None)
        (slow, _) = run()
    t = [torch.from_numpy(a.copy(order="K")) for a in arrs]
    want = t[0].lerp_(t[1], weight) if inplace else torch.lerp(t[0], t[1], weight)
    if inplace:
        assert got is ins[0]
    for r in (slow, want):
        assert got.shape == tuple(r.shape) and got.stride() == r.stride()
        g, w = np.ascontiguousarray(got.numpy()), np.ascontiguousarray(r.numpy())
        np.testing.assert_array_equal(g.view(BITS[g.dtype]), w.view(BITS[w.dtype]))
