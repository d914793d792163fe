"""Large joins whose result interleaves its inputs element by element (``dstack`` of matrices,
``stack`` along a new last dim): the compiled join's two-run interleave (``join_rows``: row-major
inputs) against PyTorch, bit for bit (shape, strides, dtype, bytes with NaN payloads and -0.0), at
sizes that leave a tail past the 16-byte unpacks and over memory at an odd address.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.complex64, np.float16]
SHAPES = [(301, 303), (256, 257), (3, 40001)]  # (odd element counts: the unpacks' tails)
CALLS = [("dstack", {}), ("stack", {"dim": -1}), ("stack", {"dim": 2}), ("column_stack", {})]


def _bits(shape, dtype, seed):
    """Values with specials (-0.0, NaN, -inf) of ``dtype``, row-major."""
    rng = np.random.default_rng(seed)
    base = rng.standard_normal(shape) * 100
    flat = base.reshape(-1)
    flat[::97] = -0.0
    flat[5::101] = np.nan
    flat[7::103] = -np.inf
    if np.dtype(dtype).kind not in "fc":
        base = np.nan_to_num(base, nan=3.0, posinf=0.0, neginf=0.0)
    return base.astype(dtype)


def _unaligned(values: np.ndarray, skew: int) -> np.ndarray:
    """``values`` copied into a buffer at byte offset ``skew`` (not a multiple of the itemsize)."""
    buf = np.zeros(values.nbytes + 16, np.uint8)
    buf[skew: skew + values.nbytes] = values.reshape(-1).view(np.uint8)
    return np.frombuffer(buf.data, dtype=values.dtype, count=values.size, offset=skew).reshape(values.shape)


def _same(s, r) -> None:
    assert tuple(s.shape) == tuple(r.shape)
    assert tuple(s.stride()) == tuple(r.stride())
    assert s.dtype.name == str(r.dtype).split(".")[1]
    assert np.ascontiguousarray(np.asarray(s)).tobytes() == np.ascontiguousarray(r.numpy()).tobytes()


def _inputs(arrays, skew):
    return [strided.from_numpy(_unaligned(a, skew + i) if skew else a) for i, a in enumerate(arrays)]


@pytest.mark.parametrize("skew", [0, 1])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,kw", CALLS)
def test_interleaving_joins_match_torch(name, kw, dtype, skew, torch_threads_as_assumed):
    for shape in SHAPES:
        if name == "column_stack":
            shape = (shape[0] * shape[1],)  # (1-D columns: the same interleave)
        arrays = [_bits(shape, dtype, 0), _bits(shape, dtype, 1)]
        ours = getattr(strided, name)(_inputs(arrays, skew), **kw)
        _same(ours, getattr(torch, name)([torch.from_numpy(a) for a in arrays], **kw))


# ---------------------------------------------------------------- transposed inputs


def _transposed(shape, dtype, seed, how):
    """A (n0, n1) input running along dim 0: the transpose of a row-major array ("t"), of one
    started a row in (its first element off the cache line: "o"), or every other row of one ("s")."""
    n0, n1 = shape
    if how == "o":
        return _bits((n1 + 1, n0), dtype, seed)[1:].T
    if how == "s":
        return _bits((2 * n1, n0), dtype, seed).T[:, ::2]
    return _bits((n1, n0), dtype, seed).T


T_SHAPES = [(301, 303), (1024, 96), (3, 40001), (40001, 3), (16, 8200), (517, 16)]
T_DTYPES = [np.float32, np.int32, np.float64, np.int64, np.complex64, np.float16]


@pytest.mark.parametrize("how", ["t", "o", "s"])
@pytest.mark.parametrize("dtype", T_DTYPES)
@pytest.mark.parametrize("name,kw", [("dstack", {}), ("stack", {"dim": -1}), ("stack", {"dim": 2})])
def test_joins_of_transposed_pairs_match_torch(name, kw, dtype, how, torch_threads_as_assumed):
    """The pair join (two transposed 4-byte inputs: its blocks, their heads and edges) and the
    part copies of the other dtypes, bit for bit against torch."""
    for shape in T_SHAPES:
        arrays = [_transposed(shape, dtype, 0, how), _transposed(shape, dtype, 1, "t")]
        ours = getattr(strided, name)([strided.from_numpy(a) for a in arrays], **kw)
        _same(ours, getattr(torch, name)([torch.from_numpy(a.copy()) for a in arrays], **kw))


def test_the_pair_join_is_taken_where_built(monkeypatch):
    """A transposed pair of 4- or 8-byte elements goes by the compiled pair join where the CPU has it."""
    from strided.kernels import native

    k = native.kernel()
    if k is None or not hasattr(k, "pair_join"):
        pytest.skip("no compiled pair join on this machine")
    calls = []
    real = native.interleave_join
    monkeypatch.setattr(native, "interleave_join", lambda dest, sources: calls.append(real(dest, sources)) or calls[-1])
    for dtype in (np.float32, np.float64, np.int64):
        arrays = [_transposed((301, 303), dtype, i, "t") for i in range(2)]
        strided.dstack([strided.from_numpy(a) for a in arrays])
        strided.stack([strided.from_numpy(a) for a in arrays], -1)
    import os
    import pathlib

    cpuinfo = pathlib.Path("/proc/cpuinfo")
    # (AVX-512's blocks, or since copy40 AVX2's where AVX-512 is absent: both have a pair join)
    has_blocks = cpuinfo.exists() and any(f" {isa}" in cpuinfo.read_text() for isa in ("avx512f", "avx2"))
    expected = has_blocks and os.environ.get("STRIDED_NATIVE_COPY_ISA") != "sse"
    assert calls == [expected] * 6


def test_a_transposed_trio_and_a_mixed_pair_match_torch(torch_threads_as_assumed):
    """Joins the pair join declines (three inputs, one row-major input) keep the part copies."""
    t = [_transposed((301, 303), np.float32, i, "t") for i in range(3)]
    c = _bits((301, 303), np.float32, 7)
    for arrays in ([t[0], t[1], t[2]], [t[0], c], [c, t[1]]):
        for name, kw in (("dstack", {}), ("stack", {"dim": -1})):
            ours = getattr(strided, name)([strided.from_numpy(a) for a in arrays], **kw)
            _same(ours, getattr(torch, name)([torch.from_numpy(a.copy()) for a in arrays], **kw))
