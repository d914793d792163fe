"""``put_`` / ``put``'s compiled path (``put_tensors``, ``_put_scatter.h``) against PyTorch: bits,
strides and the untouched input over the layouts it takes (row-major, permuted dense, 0-d) and
those it hands back (sliced, expanded, non-contiguous index or source), its dtypes and the
others, repeated and negative indices, NaN payloads under ``accumulate``; errors raised before
any write; gradients and version counts; the copy ledger while it listens."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
from oracle_helpers import builtin_class, outcome
from strided.kernels import native
from strided.ops.indexing import gather_scatter

FAST = ["float32", "float64", "int32", "int64", "bool"]
OTHER = ["float16", "int8", "complex64"]


def _bits(t) -> bytes:
    if isinstance(t, torch.Tensor):
        return t.contiguous().view(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
    return np.ascontiguousarray(t._np()).view(np.uint8).tobytes()


def _values(rng: np.random.Generator, n: int, dtype: str) -> np.ndarray:
    if dtype == "bool":
        return rng.random(n) > 0.5
    if dtype.startswith("int"):
        return rng.integers(-100, 100, n)
    return rng.standard_normal(n) * 4


def _self(lib, vals: np.ndarray, dtype: str, shape: tuple[int, ...], how: str):
    """A target of ``shape`` laid out as ``how``: rows, perm (a permuted dense transpose), sliced
    (a window of a wider tensor: the general path) or expanded."""
    dt = getattr(lib, dtype)
    if how == "perm":
        return lib.tensor(vals.reshape(shape[::-1])).to(dt).permute(*range(len(shape) - 1, -1, -1))
    if how == "sliced":
        wide = lib.zeros(*shape[:-1], shape[-1] + 2, dtype=dt)[..., 1:-1]
        wide.copy_(lib.tensor(vals.reshape(shape)).to(dt))
        return wide
    return lib.tensor(vals.reshape(shape)).to(dt)


def _index_source(lib, idx: np.ndarray, src: np.ndarray, dtype: str, how: str):
    """Index and source: row-major (idx's shape / flat), or transposed (the general path)."""
    index, source = lib.tensor(idx), lib.tensor(src).to(getattr(lib, dtype))
    if how == "transposed":
        index = lib.tensor(np.ascontiguousarray(idx.reshape(2, -1).T)).t()
        source = lib.tensor(np.ascontiguousarray(src.reshape(2, -1).T)).to(getattr(lib, dtype)).t()
    elif how == "shaped":
        source = source.reshape(-1, 1) if source.numel() > 1 else source.reshape(())
    return index, source


def _both(vals, dtype, shape, how, idx, src, ihow, accumulate, inplace):
    got = []
    for lib in (torch, strided):
        t = _self(lib, vals, dtype, shape, how)
        before = _bits(t)
        index, source = _index_source(lib, idx, src, dtype, ihow)

        def call(t=t, index=index, source=source, lib=lib):
            return t.put_(index, source, accumulate=accumulate) if inplace else lib.put(t, index, source, accumulate)

        r, err = outcome(call)
        if err is not None:
            got.append((err, _bits(t) == before))
        else:
            got.append((_bits(r), tuple(r.stride()), tuple(r.shape), _bits(t), r is t))
    return got


def _check(vals, dtype, shape, how, idx, src, ihow, accumulate, inplace):
    a, b = _both(vals, dtype, shape, how, idx, src, ihow, accumulate, inplace)
    if len(a) == 2:  # (an error: its builtin class and first line; strided wrote nothing)
        assert len(b) == 2, b
        assert isinstance(b[0], builtin_class(a[0])) and b[1]
        assert str(b[0]).splitlines()[0] == str(a[0]).splitlines()[0]
    else:
        assert a == b


SHAPES = [(12,), (3, 4), (2, 3, 2), (4, 1, 3)]


@pytest.mark.parametrize("dtype", FAST + OTHER)
@pytest.mark.parametrize("how", ["rows", "perm", "sliced"])
@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("inplace", [False, True])
def test_put_layouts_match_torch(dtype, how, accumulate, inplace):
    rng = np.random.default_rng(3)
    for shape in SHAPES:
        if how == "perm" and (len(shape) < 2 or 1 in shape):
            continue  # (not permuted dense: covered by rows)
        for ihow in ["rows", "shaped", "transposed"]:
            vals = _values(rng, 12, dtype)
            idx = np.concatenate([rng.integers(-12, 12, 5), [3, 3, -9]])  # (repeats: the last write wins)
            src = _values(rng, idx.size, dtype)
            _check(vals, dtype, shape, how, idx, src, ihow, accumulate, inplace)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(FAST), st.sampled_from([(), (1,), (5,), (2, 3), (3, 1, 2), (2, 2, 3)]),
       st.sampled_from(["rows", "perm"]), st.integers(1, 20), st.booleans(), st.booleans(), st.integers(0, 2**32 - 1))
def test_put_random_calls_match_torch(dtype, shape, how, m, accumulate, inplace, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if how == "perm" and (len(shape) < 2 or 1 in shape):
        how = "rows"
    vals = _values(rng, n, dtype)
    idx = rng.integers(-n, n, m)
    if rng.random() < 0.2:
        idx[rng.integers(0, m)] = rng.choice([n, -n - 1, 10**12])  # (out of range: PyTorch's error, nothing written)
    _check(vals, dtype, shape, how, idx, _values(rng, m, dtype), "rows", accumulate, inplace)


def test_put_takes_the_compiled_path():
    """The plain calls are the compiled walk's (so the tests above compare it), the others not."""
    x, i, s = strided.zeros(3, 4), strided.tensor([1, -1]), strided.tensor([1.0, 2.0])
    call = gather_scatter._PUT_C
    if native.kernel() is None:  # (STRIDED_NATIVE=0 or no C compiler: the Python path only)
        assert call is None
        return
    assert call(x, i, s, False, False).tolist() == [[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2]]
    assert call(x.t(), i, s, True, False).stride() == (1, 4)
    assert call(x, i, s, True, True) is True and x.sum().item() == 3.0
    for args in [(x[:, 1:], i, s, False, False), (x, i.to(strided.int32), s, False, False),
                 (x, i, s.double(), False, False), (x, i, s, 1, False), (x, strided.tensor([12, 0]), s, False, True),
                 (x, i, s[:1], False, False), (x.bool(), i, s.bool(), True, False), (x, i, x.view(-1)[:2], False, True),
                 (x.half(), i, s.half(), False, False), (strided.zeros(0), i[:0], s[:0], False, False)]:
        assert call(*args) is None
    assert x.sum().item() == 3.0


@pytest.mark.parametrize("accumulate", [False, True])
def test_put_out_of_range_writes_nothing(accumulate):
    for lib in (torch, strided):
        x = lib.arange(12.0).reshape(3, 4)
        with pytest.raises(IndexError, match="out of range: tried to access index 12 on a tensor of 12 elements"):
            x.put_(lib.tensor([0, 1, 12]), lib.tensor([5.0, 6.0, 7.0]), accumulate=accumulate)
        if lib is strided:  # (PyTorch has written the first two: strided nothing)
            assert x.tolist() == np.arange(12.0).reshape(3, 4).tolist()


@pytest.mark.parametrize("inplace", [False, True])
def test_put_accumulate_keeps_torch_nan_bits(inplace):
    a = np.array([0x7FC00001, 0x7FC00001, 0x3F800000, 0xFFC00005], np.uint32).view(np.float32)
    v = np.array([0xFFC00002, 0x3F800000, 0xFFC00002, 0x7F800001], np.uint32).view(np.float32)
    out = []
    for lib in (torch, strided):
        x, i, s = lib.tensor(a.copy()), lib.tensor([0, 1, 2, 3]), lib.tensor(v.copy())
        out.append(_bits(x.put_(i, s, accumulate=True) if inplace else lib.put(x, i, s, True)))
    assert out[0] == out[1]


def test_put_into_a_run_beside_its_source():
    """Source and target in one storage without overlap: the compiled walk writes (PyTorch too)."""
    out = []
    for lib in (torch, strided):
        base = lib.arange(10.0)
        base[:6].put_(lib.tensor([0, -1]), base[7:9], accumulate=True)
        out.append(base.tolist())
    assert out[0] == out[1]


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("perm", [False, True])
def test_put_gradients_and_versions_match_torch(accumulate, perm):
    def run(lib):
        x = lib.arange(12.0).reshape(4, 3).requires_grad_()
        src = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        idx = lib.tensor([2, -1, 2])
        base = x.t() if perm else x
        y = lib.put(base, idx, src, accumulate)
        z = base * 1
        z.put_(idx, src, accumulate=accumulate)
        ((y + z) * lib.arange(12.0).reshape(y.shape)).sum().backward()
        w = lib.zeros(3, 4)
        with lib.no_grad():
            v0 = w._version
            w.put_(idx, lib.tensor([1.0, 2.0, 3.0]), accumulate)
        return x.grad.tolist(), src.grad.tolist(), y.stride(), w._version - v0, w.tolist()

    assert run(strided) == run(torch)


def test_put_ledger_records_the_copy():
    x, i, s = strided.zeros(3, 4), strided.tensor([1, -1]), strided.tensor([1.0, 2.0])
    with strided.record_copies() as copies:
        strided.put(x, i, s)
        x.t().put(i, s, accumulate=True)
        x.put_(i, s)
    assert [(c.nbytes, c.shape, c.reason) for c in copies] == [(48, (3, 4), "clone()"), (48, (4, 3), "clone()")]
