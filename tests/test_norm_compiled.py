"""The Euclidean norms' compiled pass (``_specialkernel.norm2`` through
``strided.kernels.reduce.euclidean_norms``): ``vector_norm`` / ``norm`` / ``linalg.norm`` (2-norm,
every element or one dim) and ``matrix_norm`` ("fro") of float32 / float64 tensors in any dense
layout, bit for bit against the NumPy path (the kernel disabled, and the fast paths turned off),
with NaN (either sign), inf, -0.0 and huge values inside; against PyTorch within its tolerance
(its reduction order is its own). Layouts with gaps or stride 0 decline to the NumPy path.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided.kernels import native
from strided.kernels.reduce import euclidean_norms
from strided.ops.linalg import norms

torch.set_num_threads(1)
pytestmark = pytest.mark.skipif(native.special() is None, reason="the compiled kernel is not built")


def _data(shape: tuple[int, ...], dtype: Any, seed: int, specials: bool = True) -> np.ndarray:
    r = np.random.default_rng(seed)
    a = (r.standard_normal(shape) * 3).astype(dtype)
    if specials and a.size > 12:
        a.flat[3] = -0.0
        a.flat[7] = np.float32(3e19) if dtype == np.float32 else 1e160  # (its square overflows)
        a.flat[11] = -np.nan  # (a NaN with its sign bit set: |x| clears it, x * x keeps it)
    return a


def _same(a: Any, b: Any) -> None:
    assert (a.shape, a.stride(), a.dtype) == (b.shape, b.stride(), b.dtype)
    if isinstance(b, _NanSignFree):
        a = _NanSignFree(a)
    assert a.numpy().tobytes() == b.numpy().tobytes()


def _through_numpy(fn: Any, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    with native.disabled():
        a = fn()
    with monkeypatch.context() as m:
        m.setattr(norms, "fast_euclidean", lambda *a: None)
        m.setattr(norms, "_compiled_frobenius", lambda *a: None)
        b = fn()
    return [_NanSignFree(a), _NanSignFree(b)]


class _NanSignFree:
    """A result whose NaNs compare whatever their sign: since day 25 a layout _torch_norm2 declines
    takes NormTwoOps' serial sums where the kernels are built (PyTorch's bits: x * x keeps a -NaN's
    sign, which the NumPy path and the compiled pass's |x| clear)."""

    def __init__(self, t: Any) -> None:
        self.shape, self.dtype, self._t = t.shape, t.dtype, t
        self.stride = t.stride

    def numpy(self) -> np.ndarray:
        a = self._t.numpy().copy()
        a[np.isnan(a)] = np.nan
        return a


CALLS = {
    "vector_norm": lambda x, dim: st.linalg.vector_norm(x, dim=dim),
    "norm": lambda x, dim: st.norm(x, dim=dim),
    "linalg_norm": lambda x, dim: st.linalg.norm(x, dim=dim),
}


def _check_all(a: np.ndarray, perm: tuple[int, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    x = st.tensor(a).permute(*perm)
    t = torch.from_numpy(a).permute(*perm)
    for call in CALLS.values():
        for dim in [None, *range(a.ndim)]:
            got = call(x, dim)
            for want in _through_numpy(lambda c=call, d=dim: c(x, d), monkeypatch):
                _same(got, want)
            tt = torch.linalg.vector_norm(t, dim=dim)
            assert got.shape == tuple(tt.shape)
            np.testing.assert_allclose(got.numpy(), tt.numpy(), rtol=1e-5 if a.dtype == np.float32 else 1e-12,
                                       equal_nan=True)
    if a.ndim >= 2:
        # (since day 25 a layout neither compiled pass takes is NormTwoOps' serial sums, PyTorch's
        # bits, where the NumPy path was np.linalg.norm: the fast paths off give PyTorch's too)
        got = st.linalg.matrix_norm(x)
        _same(got, _through_numpy(lambda: st.linalg.matrix_norm(x), monkeypatch)[1])
        _same(got, _NanSignFree(st.from_numpy(torch.linalg.matrix_norm(t).numpy())))
        np.testing.assert_allclose(got.numpy(), torch.linalg.matrix_norm(t).numpy(),
                                   rtol=1e-5 if a.dtype == np.float32 else 1e-12, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_layouts_and_sizes(dtype: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Row-major, transposed and permuted; rows shorter than 8, up to 128, past 128 (the pairwise
    recursion), 1M elements; NaN of both signs, overflowing squares, -0.0."""
    for shape, perm in [((1024, 1024), (1, 0)), ((1024, 1024), (0, 1)), ((3, 130, 5), (0, 1, 2)),
                        ((3, 130, 5), (2, 0, 1)), ((4, 7), (1, 0)), ((2, 3, 300), (1, 2, 0)), ((257,), (0,))]:
        _check_all(_data(shape, dtype, 3), perm, monkeypatch)
    _check_all(_data((40, 50), dtype, 4, specials=False), (1, 0), monkeypatch)


@settings(max_examples=40, deadline=None)
@given(shape=hs.lists(hs.integers(1, 40), min_size=1, max_size=3), seed=hs.integers(0, 2**16),
       f64=hs.booleans(), data=hs.data())
def test_any_permutation_matches_the_numpy_path(shape: list[int], seed: int, f64: bool, data: Any) -> None:
    perm = tuple(data.draw(hs.permutations(range(len(shape)))))
    with pytest.MonkeyPatch.context() as m:
        _check_all(_data(tuple(shape), np.float64 if f64 else np.float32, seed), perm, m)


def test_declines_what_it_cannot_read() -> None:
    """Gaps, stride 0, negative strides, 0-d, empty, other dtypes: None (the NumPy path runs)."""
    a = np.arange(24.0).reshape(4, 6)
    for x in (a[:, ::2], np.broadcast_to(a[:1], (4, 6)), a[::-1], np.float64(2.0).reshape(()), a[:0],
              a.astype(np.float16), a.astype(np.int64)):
        assert euclidean_norms(x, None) is None
    x = st.tensor(a)[:, ::2]
    _same(st.linalg.vector_norm(x, dim=1), st.linalg.vector_norm(x.contiguous(), dim=1))


def test_kernel_arguments_and_overlap() -> None:
    k = native.special()
    x = np.arange(1.0, 7.0)
    with pytest.raises(ValueError, match="count / n"):
        k.norm2(x, np.empty(3), 3, 1, True)
    with pytest.raises(ValueError, match="one"):
        k.norm2(x, np.empty(2, np.float32), 3, 1, True)
    with pytest.raises(TypeError, match="5 arguments"):
        k.norm2(x, x, 3)
    before = x.copy()
    assert k.norm2(x, x[:2], 3, 1, True) is False  # (an overlap: nothing written)
    np.testing.assert_array_equal(x, before)
    out = np.empty(3)
    assert k.norm2(x, out, 2, 3, True) is True  # (along a leading dim: columns (1, 4), (2, 5), (3, 6))
    np.testing.assert_array_equal(out, np.sqrt([17.0, 29.0, 45.0]))


def test_grad_and_watch_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    w = _data((6, 5), np.float32, 5, specials=False)
    x = st.nn.Parameter(st.tensor(w))
    tx = torch.nn.Parameter(torch.tensor(w))
    st.linalg.vector_norm(x, dim=1).sum().backward()
    torch.linalg.vector_norm(tx, dim=1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5)
    seen = []
    for fast in (True, False):
        with monkeypatch.context() as m:
            if not fast:
                m.setattr(norms, "fast_euclidean", lambda *a: None)
            with st.watch() as wt:
                out = st.linalg.vector_norm(st.tensor(w).t(), dim=0)
        seen.append(([(s.name, s.kind, s.bytes_allocated, s.bytes_copied) for s in wt.steps], out.numpy().tobytes()))
    assert seen[0] == seen[1] and seen[0][0]
