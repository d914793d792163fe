"""cumsum / cumprod / cumulative_trapezoid past the old 4096-element limit of the compiled scan, and
of tensors laid out in another order than row-major (a transpose, a permute): the compiled
``_specialkernel.scan`` (lines interleaved, a column scratch on the heap) against the general NumPy
path (``native.disabled()``, and the fast path turned off) bit for bit, and against PyTorch (whose
float32 scans accumulate in double: the same bits). Strides and view-vs-copy are compared too.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided.kernels import native
from strided.ops.reductions import integration, scans

torch.set_num_threads(1)
NATIVE = native.special() is not None
pytestmark = pytest.mark.skipif(not NATIVE, reason="the compiled kernel is not built")


def _bits(t: Any) -> bytes:
    return t.numpy().tobytes()


def _general(op: str, x: Any, dim: int, monkeypatch: pytest.MonkeyPatch, **kw: Any) -> list[Any]:
    """The op through its NumPy paths: the kernel disabled, and the fast paths turned off."""
    fn = getattr(st, op)
    with native.disabled():
        a = fn(x, dim=dim, **kw)
    with monkeypatch.context() as m:
        m.setattr(scans, "_fast_scan", lambda *a: None)
        m.setattr(integration, "_fast_cumulative", lambda *a: None)
        b = fn(x, dim=dim, **kw)
    return [a, b]


def _check(op: str, a: np.ndarray, perm: tuple[int, ...], monkeypatch: pytest.MonkeyPatch, **kw: Any) -> None:
    x = st.tensor(a).permute(*perm)
    t = torch.from_numpy(a).permute(*perm)
    for dim in range(a.ndim):
        got = getattr(st, op)(x, dim=dim, **kw)
        assert got.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()  # (a copy)
        for want in _general(op, x, dim, monkeypatch, **kw):
            assert (got.shape, got.stride(), got.dtype) == (want.shape, want.stride(), want.dtype)
            assert _bits(got) == _bits(want), (op, a.shape, perm, dim)
        if op != "cumprod":  # (products: PyTorch's own kernel, not necessarily in double; values only)
            tt = getattr(torch, op)(t, dim=dim, **kw)
            assert got.stride() == tt.stride()
            assert _bits(got) == tt.contiguous().numpy().tobytes(), (op, a.shape, perm, dim)


def _data(shape: tuple[int, ...], dtype: Any, seed: int) -> np.ndarray:
    r = np.random.default_rng(seed)
    a = r.standard_normal(shape).astype(dtype)
    a.flat[:: 37] = -0.0  # (leading -0.0 runs somewhere: the +0.0 fix-up)
    a.flat[5 % a.size] = np.inf
    a.flat[11 % a.size] = np.nan
    return a


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["cumsum", "cumprod", "cumulative_trapezoid"])
def test_large_row_major_and_permuted(op: str, dtype: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past 4096 elements; outer counts that are not a multiple of the kernel's 8 lanes."""
    for shape, perm in [((300, 27), (0, 1)), ((300, 27), (1, 0)), ((13, 9, 41), (2, 0, 1)),
                        ((5, 1, 1000), (2, 1, 0)), ((9000,), (0,))]:
        _check(op, _data(shape, dtype, 1), perm, monkeypatch)
    if op == "cumulative_trapezoid":
        _check(op, _data((40, 130), dtype, 2), (1, 0), monkeypatch, dx=0.25)


@settings(max_examples=40, deadline=None)
@given(shape=hs.lists(hs.integers(1, 9), min_size=1, max_size=4), seed=hs.integers(0, 2**16),
       f64=hs.booleans(), data=hs.data())
def test_any_permutation_matches_the_numpy_path(shape: list[int], seed: int, f64: bool, data: Any) -> None:
    perm = tuple(data.draw(hs.permutations(range(len(shape)))))
    a = _data(tuple(shape), np.float64 if f64 else np.float32, seed)
    with pytest.MonkeyPatch.context() as m:
        _check("cumsum", a, perm, m)
        _check("cumprod", a, perm, m)


def _snan() -> float:
    return struct.unpack("<d", struct.pack("<Q", 0x7FF0000000000001))[0]


def test_float64_past_the_limit_keeps_numpys_leading_fixup() -> None:
    """scan_values adds +0.0 to a float64 sum past 4096 elements only where a leading element is
    -0.0: a signaling NaN first stays signaling without one, is quieted with one (kernel = NumPy)."""
    k = native.special()
    for lead_zero in (False, True):
        x = np.ones((2, 3000))
        x[0, 0] = _snan()
        if lead_zero:
            x[1, 0] = -0.0
        out = np.empty_like(x)
        assert k.scan(x, out, 3000, 1, False) == 2  # (run; its first line ends in NaN)
        with np.errstate(invalid="ignore"):
            want = scans.scan_values(np.add, x, 1, st.float64)
        assert out.tobytes() == want.tobytes()
        assert bool(out.view(np.uint64)[0, 0] == 0x7FF0000000000001) is (not lead_zero)
        assert not lead_zero or (out[1, 0] == 0.0 and not np.signbit(out[1, 0]))


def test_compiled_scan_declines_what_it_cannot_read() -> None:
    """Stride 0, gaps, negative strides, 0-d, empty, other dtypes: None (scan_values runs)."""
    a = np.arange(12.0).reshape(3, 4)
    for x in (np.broadcast_to(a[:1], (3, 4)), a[:, ::2], a[::-1], np.float64(1.0).reshape(()), a[:0],
              a.astype(np.int64), a.astype(np.float16)):
        assert scans.compiled_scan(x, 0, False) is None
    got = scans.compiled_scan(a.T, 1, False)
    assert got is not None and got.flags.c_contiguous and got.tobytes() == np.cumsum(a.T, 1).tobytes()
