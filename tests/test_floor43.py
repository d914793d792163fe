"""Large ``zeros`` and ``eye`` (and ``new_zeros``, which is ``zeros``) made on calloc's zeroed memory
(``strided.dispatch.zeroed_result``) instead of a fresh result and a fill pass: PyTorch's values
(every byte), shapes, strides and dtypes, in every dtype, at sizes on both sides of the fast
paths' limit; the same errors for sizes that cannot be had; the allocation report when watched."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import strided as st
from strided import creation, dispatch, storage

DTYPES = ["float32", "float64", "float16", "bfloat16", "complex64", "complex128", "int8", "uint8", "int16", "int32",
          "int64", "bool"]


def _torch_dtype(name: str) -> torch.dtype:
    return getattr(torch, name)


def _st_dtype(name: str):
    return getattr(st, "bool_" if name == "bool" else name)


def _bytes(t) -> bytes:
    if isinstance(t, torch.Tensor):
        return t.contiguous().view(torch.uint8).numpy().tobytes() if t.numel() else b""
    return np.ascontiguousarray(t._np()).view(np.uint8).tobytes() if t.numel() else b""


def _same(got, want) -> None:
    assert tuple(got.shape) == tuple(want.shape)
    assert got.stride() == want.stride()
    assert str(got.dtype).split(".")[-1].rstrip("_") == str(want.dtype).split(".")[-1]
    assert _bytes(got) == _bytes(want)


# sizes past the fast paths' 65536 elements (the changed path), at it, and below
SHAPES = [(1024, 1024), (300, 300), (70000,), (2, 40000), (3, 1, 30000), (256, 256), (255, 257), (0, 70000), (70000, 0)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_zeros_match_torch(dtype: str, shape: tuple[int, ...]) -> None:
    _same(st.zeros(*shape, dtype=_st_dtype(dtype)), torch.zeros(*shape, dtype=_torch_dtype(dtype)))
    _same(st.zeros(shape, dtype=_st_dtype(dtype)), torch.zeros(shape, dtype=_torch_dtype(dtype)))
    _same(st.ones(2, dtype=_st_dtype(dtype)).new_zeros(shape), torch.ones(2, dtype=_torch_dtype(dtype)).new_zeros(shape))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,m", [(1024, None), (1024, 1024), (300, 500), (500, 300), (70000, 1), (1, 70000), (0, 70000),
                                 (70000, 0), (257, None), (0, None)])
def test_eye_matches_torch(dtype: str, n: int, m: int | None) -> None:
    args = (n,) if m is None else (n, m)
    _same(st.eye(*args, dtype=_st_dtype(dtype)), torch.eye(*args, dtype=_torch_dtype(dtype)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hs.integers(0, 700), hs.integers(0, 700), hs.sampled_from(["float32", "float64", "bool", "int64", "bfloat16"]),
       hs.booleans())
def test_large_and_small_eye_and_zeros_are_torchs(n: int, m: int, dtype: str, grad: bool) -> None:
    _same(st.eye(n, m, dtype=_st_dtype(dtype)), torch.eye(n, m, dtype=_torch_dtype(dtype)))
    rg = grad and dtype in ("float32", "float64")
    z = st.zeros(n, m, dtype=_st_dtype(dtype), requires_grad=rg)
    assert z.requires_grad is rg and z.is_leaf
    _same(z.detach(), torch.zeros(n, m, dtype=_torch_dtype(dtype)))
    e = st.eye(n, m, dtype=_st_dtype(dtype), requires_grad=rg)
    assert e.requires_grad is rg and e.is_leaf


def test_large_results_are_fresh_zeroed_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """The large path takes calloc's zeros (no fill pass), and each result owns fresh memory:
    writing one leaves the next untouched."""
    def no_fill(*args, **kwargs):
        raise AssertionError("a large zeros/eye filled its result")

    monkeypatch.setattr(creation, "fill", no_fill)
    a = st.zeros(1024, 1024)
    a.add_(3.0)
    b = st.zeros(1024, 1024)
    assert not b._np().any() and a._np().min() == 3.0
    e = st.eye(1024)
    e.mul_(2.0)
    assert np.array_equal(st.eye(1024)._np(), np.eye(1024, dtype=np.float32))
    assert e.storage_offset() == 0 and e._storage.array.base is None
    assert dispatch.zeroed_result((3, 70000), st.int16)._np().tobytes() == bytes(3 * 70000 * 2)


def test_sizes_that_cannot_be_had_raise_as_before() -> None:
    for make in (lambda: st.zeros(1 << 62, 1 << 62), lambda: st.eye(1 << 40)):
        with pytest.raises(st.errors.StridedRuntimeError, match="Storage size calculation overflowed") as info:
            make()
        assert isinstance(info.value, RuntimeError)
    with pytest.raises(RuntimeError, match="must be greater or equal to 0"):
        st.eye(-1)
    with pytest.raises(RuntimeError):
        st.zeros(-1, 70000)
    with pytest.raises(RuntimeError):
        torch.zeros(-1, 70000)


def test_memory_error_is_pytorchs_runtime_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(storage, "_np_zeros", refuse)
    monkeypatch.setattr(storage, "_np_empty", refuse)
    with pytest.raises(RuntimeError, match="DefaultCPUAllocator: not enough memory"):
        st.zeros(1024, 1024)
    with pytest.raises(RuntimeError, match="DefaultCPUAllocator: not enough memory"):
        st.eye(1024)


def test_watched_creation_is_reported_once() -> None:
    with st.watch() as seen:
        st.zeros(1024, 1024)
        st.eye(512, 300)
    assert [(s.name, s.kind, s.bytes_allocated) for s in seen.steps] == [("zeros", "alloc", 4 << 20),
                                                                           ("eye", "alloc", 512 * 300 * 4)]
