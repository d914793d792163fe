"""trace by a strided slice of the storage and the compiled running sum (ops/reductions/sums.py
``_diagonal``, ``_compiled_trace``): against the NumPy cumsum path (native.disabled()) and PyTorch
2.13 bit for bit, over layouts (transposed, sliced, offset, expanded), dtypes and special values."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
from oracle_helpers import case
from strided.kernels import native


def _matrix(shape, dtype, seed, special):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * 10.0 ** rng.integers(-5, 6, shape)).astype(dtype)
    if special and a.size and np.dtype(dtype).kind == "f":
        flat = a.reshape(-1)
        flat[rng.random(flat.size) < 0.2] = -0.0
        if special == "nan":
            flat[rng.integers(0, flat.size)] = np.nan
            flat[rng.integers(0, flat.size)] = -np.inf
    return a


def _views(a, lib):
    """The same matrix seen through several layouts: (name, tensor)."""
    t = lib.from_numpy(a) if lib is strided else torch.from_numpy(a)
    yield "c", t
    yield "t", t.t()
    if a.shape[0] > 2 and a.shape[1] > 3:
        yield "slice", t[1::2, 2::3]
        yield "offset", t[1:, 1:]
    yield "expand", t[:1].expand(3, a.shape[1])


def _bits(t):
    return str(t.dtype).split(".")[-1], tuple(t.shape), np.asarray(t.numpy() if isinstance(t, torch.Tensor)
                                                                  else np.asarray(t)).tobytes()


def _check(a):
    for (name, s), (_, r) in zip(_views(a, strided), _views(a, torch)):
        ours = strided.trace(s)
        with native.disabled():
            general = strided.trace(s)
        theirs = torch.trace(r)
        assert _bits(ours) == _bits(general), name
        assert _bits(ours) == _bits(theirs), name


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int64, np.int32, np.complex64])
def test_trace_is_the_cumsum_path_and_torch(dtype):
    for shape, special in itertools.product(
            [(1, 1), (3, 5), (5, 3), (64, 64), (300, 257), (4097, 2)],
            [False, True, "nan"]):
        with case(shape=shape, special=special):
            _trace_is_the_cumsum_path_and_torch(shape, dtype, special)


def _trace_is_the_cumsum_path_and_torch(shape, dtype, special):
    _check(_matrix(shape, dtype, 0, special))


@settings(max_examples=80, deadline=None)
@given(m=st.integers(1, 40), n=st.integers(1, 40), dtype=st.sampled_from([np.float32, np.float64]),
       seed=st.integers(0, 10_000), special=st.sampled_from([False, True]))
def test_trace_hypothesis(m, n, dtype, seed, special):
    _check(_matrix((m, n), dtype, seed, special))


def test_a_long_diagonal_takes_the_cumsum_path():
    """Past the kernel's 4096 elements: NumPy's cumsum, the same bits as PyTorch's."""
    a = _matrix((4100, 4100), np.float32, 1, True)
    assert _bits(strided.trace(strided.from_numpy(a))) == _bits(torch.trace(torch.from_numpy(a)))


def test_trace_result_is_fresh_and_recorded():
    x = strided.from_numpy(np.eye(3, dtype=np.float32) * 2)
    t = strided.trace(x)
    assert t.shape == () and t.item() == 6.0
    assert not np.shares_memory(np.asarray(t), np.asarray(x))
    with strided.watch() as w:
        strided.trace(x)
    assert w.summary() == [] and len(w.steps) == 1  # (a computed result: no copy, one step, as before)
    g = strided.from_numpy(np.arange(9.0).reshape(3, 3)).requires_grad_(True)
    strided.trace(g).backward()
    assert np.asarray(g.grad).tolist() == np.eye(3).tolist()
