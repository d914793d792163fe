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
        t = t.reshape(1) if t.dim() == 0 else t
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


# ---------------------------------------------------------------- nll_loss's compiled sum
# kernels/_rowkernel.c nll_sum: the picks and PyTorch's cascade of partial sums in one loop
# (nll_pick_sum): the same additions in the same order as the picks then nll_cascade.

from strided.kernels import native  # noqa: E402
from strided.kernels.rows import nll_sum  # noqa: E402

_SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 3.4e38, -3.4e38, 1e30, -1e-30])


def _cascade(picks: np.ndarray) -> float:
    """PyTorch's nll_loss_out_frame cascade (LossNLL.cpp) over ``picks`` (already negated), in their dtype."""
    dt = picks.dtype.type
    n = picks.size
    p = max(4, int(np.ceil(np.log2(n))) // 8 if n > 1 else 0)
    mask = (1 << p) - 1
    loss = [dt(0)] * 8
    with np.errstate(all="ignore"):  # (inf - inf, overflow: the kernel's IEEE results)
        return _cascade_steps(picks, dt, n, mask, p, loss)


def _cascade_steps(picks: np.ndarray, dt: type, n: int, mask: int, p: int, loss: list) -> float:
    for b in range(n):
        loss[0] = dt(loss[0] + picks[b])
        for j in range(7):
            if b & (mask << (j * p)):
                break
            loss[j + 1] = dt(loss[j + 1] + loss[j])
            loss[j] = dt(0)
    total = dt(0)
    for v in loss:
        total = dt(total + v)
    return float(total)


def _same_float(a, b) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and (
        (a != a and b != b) or (a == b and np.signbit(a) == np.signbit(b))))


@pytest.mark.skipif(nll_sum() is None, reason="the row kernel is not built")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hs.integers(1, 700), hs.integers(1, 40), hs.sampled_from([np.float32, np.float64]), hs.booleans(),
       hs.integers(0, 2**32 - 1))
def test_nll_sum_is_the_picks_cascade(n: int, c: int, dtype: type, special: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((n, c)) * 10 ** rng.uniform(-5, 5)).astype(dtype)
    if special:
        m = rng.random((n, c)) < 0.05
        x[m] = rng.choice(_SPECIALS, int(m.sum())).astype(dtype)
    t = rng.integers(0, c, n).astype(np.int64)
    picks = (x[np.arange(n), t] * dtype(-1)).astype(dtype)  # (times -1, as the kernel's negation)
    want = _cascade(picks)
    got = nll_sum()(x.reshape(-1), t, c)
    assert _same_float(got, None if want != want else want)
    if want == want:  # (PyTorch's reduction="sum" gives the same total, bit for bit)
        assert _same_float(got, float(torch.nn.functional.nll_loss(torch.from_numpy(x), torch.from_numpy(t),
                                                                    reduction="sum")))


@pytest.mark.skipif(nll_sum() is None, reason="the row kernel is not built")
def test_nll_sum_refuses_an_index_out_of_range() -> None:
    k = nll_sum()
    x = np.zeros((3, 4), np.float32)
    for bad in ([0, 4, 1], [-1, 0, 0], [0, 0, 1 << 40]):
        assert k(x.reshape(-1), np.array(bad, np.int64), 4) is None


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n,c", [(1024, 1024), (1, 1), (17, 3), (4096, 10), (3, 70000)])
def test_nll_loss_mean_is_torchs(dtype: type, n: int, c: int, torch_threads_as_assumed) -> None:
    rng = np.random.default_rng(n * 7 + c)
    x = -rng.uniform(0.1, 9, (n, c)).astype(dtype)
    t = rng.integers(0, c, n).astype(np.int64)
    sx, st_ = st.from_numpy(x), st.from_numpy(t)
    tx, tt_ = torch.from_numpy(x), torch.from_numpy(t)
    for reduction in ("mean", "sum"):
        got = st.nn.functional.nll_loss(sx, st_, reduction=reduction)
        want = torch.nn.functional.nll_loss(tx, tt_, reduction=reduction)
        _same(got, want)
    with native.disabled():  # (NumPy's steps: the same bits)
        assert _bytes(st.nn.functional.nll_loss(sx, st_)) == _bytes(torch.nn.functional.nll_loss(tx, tt_))
    t[n // 2] = c  # an index out of range: PyTorch's error, from the general path
    with pytest.raises(IndexError, match="out of bounds"):
        st.nn.functional.nll_loss(sx, st.from_numpy(t))
