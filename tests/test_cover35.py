"""cover35: bench_ops times every op of the registry, and the two fast paths its new rows asked for.

- ``bench/bench_ops.py`` gives every op a row: the registry walk at (3, 4) skips nothing and
  finds no op whose result differs from PyTorch's; the 13 ops that had no inputs (pooling, conv,
  norms, embedding, nll_loss, from_numpy, split_with_sizes, threshold_) run at every size.
- ``F.max_pool1d/2d`` without padding and without indices take :func:`_max_inside`: its values,
  bits included (NaN payloads, signed zeros), are the general loop's (``return_indices=True``)
  and PyTorch's.
- ``strided.from_numpy`` of a dense array takes :func:`_borrow_dense`: the same tensor as the
  general path (shape, strides, offset, dtype, shared and read-only memory) and PyTorch's.
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.lib.stride_tricks import as_strided

import strided
import strided.nn.functional as F
from strided.creation import _borrow_dense, _negative_strides, borrow_array

torch = pytest.importorskip("torch")
TF = torch.nn.functional

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "bench"))
with warnings.catch_warnings():  # (the bench silences warnings at import: not this process's other tests)
    bench_ops = pytest.importorskip("bench_ops")

NEW_ROWS = ("F.avg_pool1d", "F.avg_pool2d", "F.batch_norm", "F.conv1d", "F.conv2d", "F.embedding", "F.layer_norm",
            "F.max_pool1d", "F.max_pool2d", "F.nll_loss", "from_numpy", "split_with_sizes", "threshold_")


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint8)


# --------------------------------------------------------------------------- bench coverage


def test_every_registered_op_gets_a_small_row():
    """The registry walk at (3, 4): every op in the op table runs in both libraries with equal
    results (nothing skipped, nothing differing), as ``bench_ops.py --small`` reports it."""
    ops = {id(op): op for op in bench_ops.OPDEFS.values()}
    skipped: dict[str, str] = {}
    differ: dict[str, str] = {}
    missing = []
    for op in ops.values():
        if op.kind is None or op.forward is None:  # (the bench lists these with their reason)
            continue
        if not bench_ops.cases(op.name, bench_ops.SMALL[0], skipped, differ):
            missing.append(op.name)
    assert skipped == {}
    assert differ == {}
    assert missing == []


@pytest.mark.parametrize("name", NEW_ROWS)
@pytest.mark.parametrize("cfg", bench_ops.SMALL + bench_ops.LARGE, ids=lambda c: c.label)
def test_new_rows_run_at_every_size(name, cfg):
    """The 13 ops that had no generated inputs: one row per configuration, results equal to PyTorch's."""
    skipped: dict[str, str] = {}
    differ: dict[str, str] = {}
    found = bench_ops.cases(name, cfg, skipped, differ)
    assert (skipped, differ) == ({}, {})
    assert len(found) == 1 and found[0].numpy is None


def test_new_rows_declare_their_inputs():
    """Each of the 13 has its one maker in MAKERS (the bench's per-op argument table)."""
    assert all(name in bench_ops.MAKERS for name in NEW_ROWS)
    (arg,), kw = bench_ops.MAKERS["from_numpy"](bench_ops.SMALL[0])
    assert isinstance(arg, bench_ops.Raw) and kw == {}
    assert bench_ops._convert(arg, "strided") is arg.value  # (the array itself reaches both libraries)


# --------------------------------------------------------------------------- max pool fast path


def _pool_input(draw, nsp: int, dtype) -> np.ndarray:
    shape = draw(st.tuples(*[st.integers(1, 3)] * 2, *[st.integers(1, 9)] * nsp))
    values = draw(st.lists(st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, np.nan, -np.nan, np.inf, -np.inf, 0.25]),
                           min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    a = np.array(values, dtype=np.float64).reshape(shape)
    if np.dtype(dtype).kind == "f":
        a = a.astype(dtype)
        u = a.view(f"u{a.itemsize}").reshape(-1)
        nan_at = np.flatnonzero(np.isnan(a.reshape(-1)))
        # NaNs of different payloads and signs: which one a window keeps shows in the bits
        quiet = np.array(np.nan, dtype).view(u.dtype)
        u[nan_at] = quiet | np.arange(1, nan_at.size + 1, dtype=u.dtype)
        u[nan_at[::2]] |= np.array(1, u.dtype) << np.array(8 * a.itemsize - 1, u.dtype)
    else:
        a = np.nan_to_num(a, posinf=7, neginf=-7).astype(dtype)
    layout = draw(st.sampled_from(["contiguous", "transposed", "sliced"]))
    if layout == "transposed":
        a = np.ascontiguousarray(np.swapaxes(a, -1, -2)).swapaxes(-1, -2)
    elif layout == "sliced":
        wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
        wide[..., ::2] = a
        a = wide[..., ::2]
    return a


@st.composite
def _pool_case(draw):
    nsp = draw(st.sampled_from([1, 2]))
    dtype = draw(st.sampled_from([np.float32, np.float64, np.float16, np.int32]))
    a = _pool_input(draw, nsp, dtype)
    if nsp == 2 and dtype == np.float16:
        dtype = np.float32  # (torch's CPU max_pool2d of float16: its own rounding is not the question)
        a = a.astype(np.float32)
    k = draw(st.integers(1, 3))
    s = draw(st.sampled_from([None, 1, 2, 3]))
    d = draw(st.integers(1, 2))
    ceil = draw(st.booleans())
    batched = draw(st.booleans())
    return nsp, (a if batched else a[0]), k, s, d, ceil


@settings(max_examples=150, deadline=None)
@given(_pool_case())
def test_max_pool_without_padding_matches_indices_path_and_torch(case):
    nsp, a, k, s, d, ceil = case
    fs, ft = (F.max_pool1d, TF.max_pool1d) if nsp == 1 else (F.max_pool2d, TF.max_pool2d)
    x = strided.from_numpy(a)
    try:
        tw = ft(torch.from_numpy(a), k, s, 0, d, ceil)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            fs(x, k, s, 0, d, ceil)
        return
    want = tw.numpy()
    got = fs(x, k, s, 0, d, ceil)
    general = fs(x, k, s, 0, d, ceil, return_indices=True)[0]
    assert got.shape == general.shape == tuple(want.shape)
    # (each lays its result out as torch's: the 1-d max kernel writes a contiguous result, the indices
    # path a channels-last one for a channels-last input: test_attack36)
    assert got.stride() == tw.stride()
    assert general.stride() == ft(torch.from_numpy(a), k, s, 0, d, ceil, return_indices=True)[0].stride()
    assert np.array_equal(_bits(got.numpy()), _bits(general.numpy()))
    if np.isnan(want).any():  # (torch's NaN: which of several wins is its loop's; strided's is the loop's above)
        assert np.array_equal(np.isnan(got.numpy()), np.isnan(want))
        keep = ~np.isnan(want)
        assert np.array_equal(_bits(got.numpy()[keep]), _bits(want[keep]))
    else:
        assert np.array_equal(_bits(got.numpy()), _bits(want))


def test_max_pool_fast_path_channels_last_and_empty():
    a = np.random.default_rng(3).standard_normal((2, 5, 6, 4)).astype(np.float32)
    cl = a.transpose(0, 3, 1, 2)  # (N, C, H, W) viewed over an (N, H, W, C) buffer: channels-last
    got = F.max_pool2d(strided.from_numpy(cl), 2)
    want = TF.max_pool2d(torch.from_numpy(cl), 2)
    assert got.stride() == want.stride()
    assert np.array_equal(_bits(got.numpy()), _bits(want.numpy()))
    empty = np.zeros((0, 3, 4, 4), np.float32)
    got = F.max_pool2d(strided.from_numpy(empty), 2)
    assert got.shape == TF.max_pool2d(torch.from_numpy(empty), 2).shape


def test_max_pool_fast_path_gradient():
    a = np.random.default_rng(4).standard_normal((1, 2, 6, 6))
    a[0, 0, 0, :2] = 1.0  # (a tie: the first maximum takes the gradient)
    x = strided.tensor(a, requires_grad=True)
    F.max_pool2d(x, 2).sum().backward()
    xt = torch.tensor(a, requires_grad=True)
    TF.max_pool2d(xt, 2).sum().backward()
    assert np.array_equal(x.grad.numpy(), xt.grad.numpy())


# --------------------------------------------------------------------------- from_numpy fast path


def _arrays():
    rng = np.random.default_rng(5)
    base = np.ones(3, np.float32)
    ro = np.arange(4.0)
    ro.flags.writeable = False
    return [
        rng.random((3, 4)).astype(np.float32), rng.random((4, 3)).T, np.array(2.5), np.arange(6, dtype=np.int16),
        rng.random((2, 3, 4)).transpose(2, 0, 1).copy(order="F").transpose(1, 2, 0), np.ones((2, 2), np.complex64),
        np.ones((1, 3), np.float32)[::-1],  # (a negative stride on a size-1 dim: refused, as PyTorch does)
        as_strided(base, (1, 3), (6, 4)),  # (a size-1 dim's stride not a multiple of the itemsize: refused)
        as_strided(base, (1, 3), (8, 4)), np.ones((2, 3), ">f4"), np.ones(3, np.bool_), ro,
        np.zeros((0, 3)), np.arange(5)[::2], rng.random((3, 4, 2))[:, 1],
    ]


def _outcome(make, a: np.ndarray):
    """What ``make(a)`` gives: (shape, strides, offset, dtype name), or the builtin class of its error."""
    try:
        t = make(a)
    except (ValueError, TypeError, RuntimeError) as e:
        return next(c for c in (ValueError, TypeError, RuntimeError) if isinstance(e, c)).__name__
    return tuple(t.shape), tuple(t.stride()), t.storage_offset(), str(t.dtype).split(".")[-1]


def _general(a: np.ndarray):
    """from_numpy's general path (without :func:`_borrow_dense`)."""
    if any(s < 0 for s in a.strides):
        _negative_strides(a)
    return borrow_array(a, "from_numpy")


@pytest.mark.parametrize("i", range(len(_arrays())))
def test_from_numpy_matches_general_path_and_torch(i):
    a = _arrays()[i]
    fast = _outcome(strided.from_numpy, a)
    assert fast == _outcome(torch.from_numpy, a)
    assert fast == _outcome(_general, a)
    if isinstance(fast, tuple) and a.size:
        t = strided.from_numpy(a)
        assert np.shares_memory(t.numpy(), a)
        last = np.unravel_index(a.size - 1, a.shape)
        if a.flags.writeable:  # (memory shared both ways)
            a[last] = 1
            assert t[last].item() == a[last]
        else:
            with pytest.raises(RuntimeError):
                t[last] = 1


def test_borrow_dense_declines_what_the_general_path_decides():
    for a in (np.arange(5)[::2], np.zeros((0, 2)), np.ones((2, 3), ">f4"), np.ones((1, 3), np.float32)[::-1],
              as_strided(np.ones(3, np.float32), (1, 3), (6, 4))):
        assert _borrow_dense(a) is None
    assert _borrow_dense(np.ones((2, 3), np.float32)) is not None


# --------------------------------------------------------------------------- embedding fast path


def _embedding_outcome(lib, idx: np.ndarray, w: np.ndarray):
    f = F.embedding if lib is strided else TF.embedding
    try:
        out = f(lib.from_numpy(idx), lib.from_numpy(w))
    except (IndexError, RuntimeError) as e:
        return ("IndexError" if isinstance(e, IndexError) else "RuntimeError"), str(e).splitlines()[0]
    return tuple(out.shape), tuple(out.stride()), str(out.dtype).split(".")[-1], out.numpy().tobytes()


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 6), st.integers(1, 4), st.lists(st.integers(-2, 7), max_size=9),
       st.sampled_from([np.int64, np.int32]), st.sampled_from(["C", "F", "sliced"]), st.booleans())
def test_embedding_matches_torch_and_the_general_path(n, dim, values, idx_dtype, order, two_d):
    w = np.random.default_rng(n * 10 + dim).standard_normal((n, dim)).astype(np.float32)
    w[0, 0] = -0.0
    if order == "F":
        w = np.asfortranarray(w)
    elif order == "sliced":
        w = np.repeat(w, 2, axis=1)[:, ::2]
    idx = np.array(values, idx_dtype)
    if two_d and idx.size % 2 == 0:
        idx = idx.reshape(2, -1)
    got = _embedding_outcome(strided, idx, w)
    assert got == _embedding_outcome(torch, idx, w)  # (an error: its class and first line)
    with strided.record_copies():  # (someone listening: the general path, which reports the copy)
        assert _embedding_outcome(strided, idx, w) == got


def test_embedding_fast_path_records_its_gradient():
    w = np.random.default_rng(6).standard_normal((5, 3))
    x = strided.tensor(w, requires_grad=True)
    xt = torch.tensor(w, requires_grad=True)
    idx = np.array([4, 1, 4])
    y = F.embedding(strided.from_numpy(idx), x)
    assert y.grad_fn.name() == "EmbeddingBackward0"
    y.sum().backward()
    TF.embedding(torch.from_numpy(idx), xt).sum().backward()
    assert np.array_equal(x.grad.numpy(), xt.grad.numpy())


# --------------------------------------------------------------------------- batch_norm into its result


def _batch_norm_reference(x: np.ndarray, rm, rv, w, b, eps: float) -> np.ndarray:
    """The evaluation formula step by step in the compute dtype (float32 for float16), as before
    the result's memory took the steps: ``((x - mean) * (1 / sqrt(var + eps))) * w + b``."""
    acc = np.float32 if x.dtype == np.float16 else x.dtype.type
    lead = (-1,) + (1,) * (x.ndim - 2)
    y = x.astype(acc) - rm.astype(acc).reshape(lead)
    y = y * (1 / np.sqrt(rv.astype(acc).reshape(lead) + acc(eps)))
    if w is not None:
        y *= w.astype(acc).reshape(lead)
    if b is not None:
        y += b.astype(acc).reshape(lead)
    return y.astype(x.dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("layout", ["2d", "4d", "channels_last", "transposed", "empty"])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_eval_bits(dtype, layout, affine):
    rng = np.random.default_rng(7)
    shape = {"2d": (5, 3), "4d": (2, 3, 4, 5), "channels_last": (2, 3, 4, 5), "transposed": (5, 3),
             "empty": (0, 3)}[layout]
    x = rng.standard_normal(shape).astype(dtype)
    x.reshape(-1)[:3] = [np.nan, -0.0, np.inf][: x.size]
    if layout == "channels_last":
        x = np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    elif layout == "transposed":
        x = np.ascontiguousarray(x.T).T
    pdt = np.float32 if dtype == np.float16 else dtype
    rm, rv, w, b = (rng.uniform(0.1, 2.0, 3).astype(pdt) for _ in range(4))
    w, b = (w, b) if affine else (None, None)
    got = F.batch_norm(*(None if a is None else strided.from_numpy(a) for a in (x, rm, rv, w, b)), eps=1e-3)
    want = TF.batch_norm(*(None if a is None else torch.from_numpy(a) for a in (x, rm, rv, w, b)), eps=1e-3)
    assert got.shape == tuple(want.shape)
    if x.size:  # (an empty result: torch's strides (0, 0), strided's row-major ones, before this change too)
        assert got.stride() == want.stride()
    assert np.array_equal(_bits(got.numpy()), _bits(_batch_norm_reference(x, rm, rv, w, b, 1e-3)))
