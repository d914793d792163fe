"""``Tensor.put_`` / ``Tensor.put`` / ``strided.put`` against PyTorch: results bit for bit over
layouts, dtypes, repeated and negative indices, ``accumulate``; errors (class and text);
gradients; writes into a target whose elements share memory."""

import itertools

import numpy as np
import pytest
import torch

import strided
from oracle_helpers import outcome

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int8", "uint8", "bool", "complex64"]
LAYOUTS = ["rows", "transposed", "sliced", "flat", "permuted"]


def _target(lib, values: np.ndarray, dtype: str, how: str):
    dt = getattr(lib, dtype)
    t = lib.tensor(values).to(dt)
    if how == "rows":
        return t.reshape(3, 4)
    if how == "transposed":
        return t.reshape(4, 3).t()
    if how == "flat":
        return t
    if how == "permuted":
        return t.reshape(2, 3, 2).permute(2, 0, 1)
    z = lib.zeros(3, 6, dtype=dt)[:, 1:5]
    z.copy_(t.reshape(3, 4))
    return z


def _bits(t) -> bytes:
    if isinstance(t, torch.Tensor):
        return t.numpy().tobytes() if t.dtype == torch.bool else t.contiguous().view(torch.uint8).numpy().tobytes()
    return np.ascontiguousarray(t._np()).view(np.uint8).tobytes()


def _run(lib, values, dtype, how, idx, src, accumulate, inplace):
    t = _target(lib, values, dtype, how)
    index = lib.tensor(idx)
    source = lib.tensor(src).to(getattr(lib, dtype))
    if idx.ndim == 2:  # (a transposed index and source: PyTorch's walk follows the source's layout)
        index, source = index.t(), source.reshape(idx.shape[::-1]).t()
    if inplace:
        r = t.put_(index, source, accumulate=accumulate)
        return _bits(t), tuple(r.stride())
    r = lib.put(t, index, source, accumulate)
    return _bits(r), tuple(r.stride()), _bits(t)


@pytest.mark.parametrize("dtype", DTYPES)
def test_put_matches_torch(dtype):
    rng = np.random.default_rng(7)
    differ = []
    for how, accumulate, kind, inplace in itertools.product(LAYOUTS, [False, True], ["unique", "repeated", "negative", "2d"],
                                                            [True, False]):
        values = rng.standard_normal(12) * 3
        idx = {"unique": rng.permutation(12)[:6], "repeated": np.array([3, 3, 0, 11, 3, 0]),
               "negative": rng.integers(-12, 12, 8), "2d": rng.integers(-12, 12, 6).reshape(3, 2)}[kind]
        src = rng.standard_normal(idx.size) * 5
        if dtype == "bool":
            values, src = values > 0, src > 0
        a = _run(torch, values, dtype, how, idx, src, accumulate, inplace)
        b = _run(strided, values, dtype, how, idx, src, accumulate, inplace)
        if a != b:
            differ.append((how, accumulate, kind, inplace))
    assert not differ



@pytest.mark.parametrize("case", [
    lambda L: L.zeros(4).put_(L.tensor([1], dtype=L.int32), L.tensor([1.0])),
    lambda L: L.zeros(4).put_(L.tensor([1]), L.tensor([1.0], dtype=L.float64)),
    lambda L: L.zeros(4).put_(L.tensor([1, 2]), L.tensor([1.0])),
    lambda L: L.zeros(0).put_(L.tensor([1]), L.tensor([1.0])),
    lambda L: L.zeros(4).put_(L.tensor([-5]), L.tensor([1.0])),
    lambda L: L.zeros(4).put_(L.tensor([0, 4]), L.tensor([1.0, 2.0]), accumulate=True),
    lambda L: L.zeros(1).expand(4).put_(L.tensor([1]), L.tensor([1.0])),
    lambda L: L.zeros(4).put_(L.tensor([1]), 1.0),
    lambda L: L.zeros(4).put_([1], L.tensor([1.0])),
    lambda L: L.zeros(4).put_(L.tensor([1]), L.tensor([1.0]), accumulate=1),
    lambda L: (lambda y: y.put_(L.tensor([1]), y[:1]))(L.arange(4.0)),
    lambda L: L.zeros(4, dtype=L.uint16).put_(L.tensor([1]), L.tensor([1], dtype=L.uint16)),
])
def test_put_errors_match_torch(case):
    want, got = outcome(lambda: case(torch))[1], outcome(lambda: case(strided))[1]
    assert want is not None and got is not None
    assert isinstance(got, type(want))
    assert str(got).splitlines()[0] == str(want).splitlines()[0]


def test_put_empty_index_on_empty_tensor():
    t = strided.zeros(0)
    assert t.put_(strided.tensor([], dtype=strided.int64), strided.tensor([])) is t


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("inplace", [False, True])
def test_put_gradients_match_torch(accumulate, inplace):
    def grads(lib):
        x = lib.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        src = lib.tensor(np.array([1.0, 2, 3, 4]), requires_grad=True)
        idx = lib.tensor([0, 5, 5, -1])
        if inplace:
            y = x * 1
            v0 = y._version
            y.put_(idx, src, accumulate=accumulate)
            bumped = y._version - v0
        else:
            y, bumped = lib.put(x, idx, src, accumulate), 0
        (y * lib.tensor(np.arange(12.0).reshape(3, 4) + 1)).sum().backward()
        return x.grad.tolist(), src.grad.tolist(), bumped

    assert grads(strided) == grads(torch)


@pytest.mark.parametrize("accumulate", [False, True])
def test_put_into_overlapping_windows_matches_torch(accumulate):
    outs = []
    for lib in (torch, strided):
        base = lib.zeros(10)
        base.as_strided((4, 3), (2, 1)).put_(lib.tensor([0, 3, 4, 11, 2]), lib.tensor([1.0, 2, 3, 4, 5]),
                                             accumulate=accumulate)
        outs.append(base.tolist())
    assert outs[0] == outs[1]
