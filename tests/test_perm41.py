"""diff's fast path on permuted dense inputs (session 41, issue 23 "Fast in loops").

``strided.diff(x)`` of a transposed / permuted dense float32 / float64 / int64 tensor now takes the
fast path (its run differenced in memory order, the result laid out in that order) instead of the
general path's parsing and stride planning. These tests hold it to the general path (the same
values bit for bit, strides, storage and copy report), to PyTorch (values and strides) and to
NumPy (values), on hypothesis layouts that favour permuted, sliced, offset, expanded,
size-1, zero-size and 0-d inputs (no negative steps: strided.from_numpy refuses them, as PyTorch), with NaN and inf among the values.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
from strided.ops.reductions import scans

torch = pytest.importorskip("torch")

DTYPES = (np.float32, np.float64, np.int64)


@st.composite
def layouts(draw):
    """(NumPy array, dim): a base array's view, permuted, sliced (steps, an offset),
    expanded or 0-d, with NaN / inf among float values."""
    ndim = draw(st.integers(0, 3))
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=ndim, max_size=ndim)))
    dtype = draw(st.sampled_from(DTYPES))
    n = int(np.prod(shape)) if shape else 1
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    if dtype is np.int64:
        base = rng.integers(-2**40, 2**40, n, dtype=np.int64)
    else:
        base = rng.standard_normal(n).astype(dtype)
        specials = draw(st.lists(st.sampled_from((np.nan, np.inf, -np.inf, -0.0)), max_size=3))
        for v in specials[:n]:
            base[rng.integers(0, n)] = v
    a = base.reshape(shape)
    if ndim >= 2:
        a = a.transpose(draw(st.permutations(range(ndim))))
    kind = draw(st.sampled_from(("plain", "plain", "slice", "offset", "expand")))
    if ndim and kind == "slice":
        d = draw(st.integers(0, ndim - 1))
        key = [slice(None)] * ndim
        key[d] = slice(None, None, draw(st.integers(1, 2)))
        a = a[tuple(key)]
    elif ndim and kind == "offset":  # (a view past its storage's start)
        d = draw(st.integers(0, ndim - 1))
        key = [slice(None)] * ndim
        key[d] = slice(1, None)
        a = a[tuple(key)]
    elif ndim and kind == "expand" and a.shape[-1]:  # (an empty last dim has no element to repeat)
        a = np.lib.stride_tricks.as_strided(a[..., :1], a.shape[:-1] + (draw(st.integers(0, 4)),),
                                            a.strides[:-1] + (0,))
    dim = draw(st.integers(-ndim, ndim - 1)) if ndim else 0
    return a, dim


def _tensor(a: np.ndarray) -> strided.Tensor:
    """strided's tensor over ``a``'s own memory and strides."""
    return strided.from_numpy(a)


def _general(x, dim):
    """diff's general path (its fast path out of the way)."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(scans, "_fast_diff", lambda self, dim: None)
        with strided.record_copies() as copies:
            out = strided.diff(x, dim=dim)
    return out, [(c.nbytes, c.reason) for c in copies]


def _bits(t: strided.Tensor) -> np.ndarray:
    a = np.ascontiguousarray(t.numpy())
    return a.view(np.uint8)


@settings(max_examples=300, deadline=None)
@given(layouts())
def test_diff_fast_path_is_the_general_path(case):
    a, dim = case
    x = _tensor(a)
    if a.ndim == 0:
        with pytest.raises(RuntimeError):
            strided.diff(x, dim=dim)
        return
    with strided.record_copies() as copies:
        got = strided.diff(x, dim=dim)
    want, want_copies = _general(x, dim)
    assert got.shape == want.shape
    assert got.stride() == want.stride()
    assert got._layout.offset == want._layout.offset == 0
    assert np.array_equal(_bits(got), _bits(want))
    assert [(c.nbytes, c.reason) for c in copies] == want_copies
    assert got._storage is not x._storage


@settings(max_examples=300, deadline=None)
@given(layouts())
def test_diff_against_torch_and_numpy(case):
    a, dim = case
    if a.ndim == 0:
        return
    x = _tensor(a)
    got = strided.diff(x, dim=dim)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(got.numpy(), np.diff(a, axis=dim))
    base = x._storage.array
    tb = torch.from_numpy(base).as_strided(x.shape, x.stride(), x._layout.offset)
    want = torch.diff(tb, dim=dim)
    assert got.stride() == tuple(want.stride())
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "perm", "dim"), [
    ((1024, 1024), (1, 0), -1), ((1024, 1024), (1, 0), 0), ((64, 32, 48), (2, 0, 1), 1),
    ((64, 32, 48), (1, 2, 0), 0), ((2, 40, 3), (2, 1, 0), 0), ((2, 5), (1, 0), 0)])
def test_diff_permuted_takes_the_fast_path(monkeypatch, dtype, shape, perm, dim, torch_threads_as_assumed):
    """A permuted dense input no longer reaches the general path (it would fail here), and gives
    PyTorch's values and strides (past 32768 elements at the thread count PyTorch is assumed).
    (A dim narrowed to size 1, (5, 2).T along dim 1, still takes the general path: its size-1
    dim's stride differs from the memory-order layout's; the hypothesis tests cover it.)"""
    rng = np.random.default_rng(5)
    base = (rng.integers(-1000, 1000, shape) if dtype is np.int64 else rng.standard_normal(shape)).astype(dtype)
    base.reshape(-1)[::97] = 0 if dtype is np.int64 else np.nan
    a = base.transpose(perm)
    x = strided.from_numpy(a)
    real = scans.elementwise_output_strides

    def general_ran(*args, **kwargs):  # (the general path plans its output with this; the fast
        raise AssertionError("general path")  # path only when it first meets a layout)

    scans._DIFF_PLANS.clear()
    strided.diff(x, dim=dim)  # (the plan, made once)
    monkeypatch.setattr(scans, "elementwise_output_strides", general_ran)
    got = strided.diff(x, dim=dim)
    monkeypatch.setattr(scans, "elementwise_output_strides", real)
    want = torch.diff(torch.from_numpy(a), dim=dim)
    assert got.stride() == tuple(want.stride())
    np.testing.assert_array_equal(got.numpy(), want.numpy())


# ---------------------------------------------------------------- tensor(t) / t.new_tensor(t) of a transpose

from strided import creation  # noqa: E402

COPY_DTYPES = (np.float32, np.float64, np.int64, np.int32, np.uint8, np.bool_, np.complex64, np.float16)


@st.composite
def copy_sources(draw):
    """A NumPy view: permuted (2-D / 3-D), sliced, offset, expanded, size-1, zero-size or 0-d, of a
    dtype tensor() keeps (float16 too: the general path's), NaN among floats."""
    ndim = draw(st.integers(0, 3))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    dtype = np.dtype(draw(st.sampled_from(COPY_DTYPES)))
    n = int(np.prod(shape)) if shape else 1
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    base = (rng.standard_normal(n) * 50).astype(dtype) if dtype.kind != "b" else rng.random(n) > 0.5
    if dtype.kind in "fc" and n:
        base[rng.integers(0, n)] = np.nan
    a = base.reshape(shape)
    if ndim >= 2:
        a = a.transpose(draw(st.permutations(range(ndim))))
    kind = draw(st.sampled_from(("plain", "plain", "slice", "offset", "expand")))
    if ndim and kind == "slice":
        a = a[(slice(None),) * draw(st.integers(0, ndim - 1)) + (slice(None, None, 2),)]
    elif ndim and kind == "offset":
        a = a[(slice(None),) * draw(st.integers(0, ndim - 1)) + (slice(1, None),)]
    elif ndim and kind == "expand" and a.shape[-1]:  # (an empty last dim has no element to repeat)
        a = np.lib.stride_tricks.as_strided(a[..., :1], a.shape[:-1] + (3,), a.strides[:-1] + (0,))
    return a


def _copy_general(make, x):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(creation, "_rowmajor_copy", lambda t: None)
        return make(x)


@settings(max_examples=400, deadline=None)
@given(copy_sources(), st.sampled_from(("tensor", "new_tensor")))
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_tensor_of_a_tensor_is_the_general_path(a, how):
    x = strided.from_numpy(a)
    make = (lambda t: strided.tensor(t)) if how == "tensor" else (lambda t: t.new_tensor(t))
    got = make(x)
    want = _copy_general(make, x)
    assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
    assert got._layout.offset == want._layout.offset
    assert np.array_equal(_bits(got), _bits(want))
    assert got._storage is not x._storage
    tx = torch.from_numpy(x._storage.array).as_strided(x.shape, x.stride(), x._layout.offset)
    t = torch.tensor(tx) if how == "tensor" else tx.new_tensor(tx)
    assert got.stride() == tuple(t.stride())
    assert np.array_equal(got.numpy(), t.numpy(), equal_nan=a.dtype.kind in "fc")
    if got.numel():  # (a copy: writing it leaves the source alone)
        before = a.copy()
        got.fill_(1)
        assert np.array_equal(a, before, equal_nan=a.dtype.kind in "fc")


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_tensor_of_a_transpose_takes_the_fast_copy(monkeypatch):
    """tensor(x.t()) no longer reaches the general path's copy (it would fail here)."""
    a = np.arange(12.0, dtype=np.float32).reshape(3, 4).T
    x = strided.from_numpy(a)

    def general(*args, **kwargs):
        raise AssertionError("general path")

    monkeypatch.setattr(creation, "copy_array_of", general)
    for y in (strided.tensor(x), x.new_tensor(x)):
        assert y.stride() == (1, 4) and y.tolist() == a.tolist()


# ---------------------------------------------------------------- conj_physical / conj of a transpose

from strided.ops.elementwise import complex_ops  # noqa: E402


def _over_base(draw, dtype, fill) -> np.ndarray:
    """copy_sources' shape and element strides (permuted, sliced, expanded, size-1, zero-size,
    0-d) over a fresh ``dtype`` base at an offset, filled by ``fill(rng, count)``."""
    a = draw(copy_sources())
    dtype = np.dtype(dtype)
    strides = tuple(s // a.itemsize for s in a.strides)
    span = 1 + sum((n - 1) * s for n, s in zip(a.shape, strides)) if a.size else 0
    off = draw(st.integers(0, 2))
    base = fill(np.random.default_rng(draw(st.integers(0, 2**16))), span + off).astype(dtype)
    return np.lib.stride_tricks.as_strided(base[off:], a.shape, tuple(s * dtype.itemsize for s in strides))


@st.composite
def complex_sources(draw):
    """A complex64 / complex128 view (:func:`_over_base`), NaN, inf and signed zeros in both parts."""
    choices = np.array([0.0, -0.0, 1.5, -2.25, np.nan, np.inf])

    def fill(rng, k):  # (each part set alone: 1j * inf would make a NaN real part)
        z = np.empty(k, np.complex128)
        z.real, z.imag = rng.choice(choices, k), rng.choice(choices, k)
        return z

    return _over_base(draw, draw(st.sampled_from((np.complex64, np.complex128))), fill)


@settings(max_examples=400, deadline=None)
@given(complex_sources(), st.sampled_from(("conj_physical", "conj")))
def test_conj_is_the_general_path(a, how):
    x = strided.from_numpy(a)
    op = getattr(strided, how)
    got = op(x)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(complex_ops, "dense_run", lambda t, n: None)
        want = op(x)
    assert got.shape == want.shape and got.stride() == want.stride() and got._layout.offset == want._layout.offset
    assert np.array_equal(_bits(got), _bits(want))
    assert got._storage is not x._storage
    tx = torch.from_numpy(x._storage.array).as_strided(x.shape, x.stride(), x._layout.offset)
    t = torch.conj_physical(tx)
    assert got.stride() == tuple(t.stride())
    assert np.array_equal(_bits(got), np.ascontiguousarray(t.numpy()).view(np.uint8))
    np.testing.assert_array_equal(got.numpy(), np.conj(a))


def test_conj_physical_of_a_transpose_is_dense_fast(monkeypatch):
    """conj_physical(x.t()) no longer reaches the strided walk (it would fail here)."""
    z = (np.arange(12.0) + 1j * np.arange(12.0)[::-1]).astype(np.complex64).reshape(3, 4).T
    x = strided.from_numpy(z)

    def general(*args, **kwargs):
        raise AssertionError("general path")

    monkeypatch.setattr(complex_ops, "fresh_result", general)
    for y in (strided.conj_physical(x), strided.conj(x)):
        assert y.stride() == (1, 4) and y.tolist() == np.conj(z).tolist()


# ---------------------------------------------------------------- the table-driven unary ops (and round) of a transpose

from strided.ops.elementwise import unary_more  # noqa: E402

DENSE_UNARY = sorted((set(unary_more._FRESH) - unary_more._SPECIAL) | {"round"})


@st.composite
def float_sources(draw):
    """A float32 / float64 view (:func:`_over_base`) holding NaN, infinities, signed zeros, halves,
    and values in (-1, 1) and beyond."""
    choices = np.array([0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -1.0, 1.0, 0.25, -0.75, 3.7, -12.5, 1e-40, np.nan, np.inf,
                        -np.inf])
    return _over_base(draw, draw(st.sampled_from((np.float32, np.float64))), lambda rng, k: np.where(
        rng.random(k) < 0.5, rng.choice(choices, k), rng.uniform(-3, 3, k)))


@settings(max_examples=600, deadline=None)
@given(float_sources(), st.sampled_from(DENSE_UNARY))
def test_unary_more_dense_is_the_general_path(a, name):
    x = strided.from_numpy(a)
    op = getattr(strided, name)
    got = op(x)
    with pytest.MonkeyPatch.context() as mp:  # (no dense run: the strided walk of the general path)
        mp.setattr(unary_more, "dense_run", lambda t, n: None)
        want = op(x)
    assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
    assert got._layout.offset == want._layout.offset
    assert np.array_equal(_bits(got), _bits(want))
    tx = torch.from_numpy(x._storage.array).as_strided(x.shape, x.stride(), x._layout.offset)
    t = getattr(torch, name)(tx)
    # (an empty input's result strides are left out: isinf of a (0, 1) tensor of strides (1, 1)
    # gives (1, 1) where PyTorch's composite gives (1, 0), on main too, not this path's)
    assert got.stride() == tuple(t.stride()) or not got.numel()
    g, w = got.numpy(), t.numpy()
    if g.dtype.kind == "b":
        assert np.array_equal(g, w)
    else:
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("name", ["round", "floor", "isnan", "sign", "reciprocal"])
def test_unary_more_transpose_skips_run_unary(monkeypatch, name):
    """A transposed input's result no longer comes from run_unary (it would fail here): round's
    from _fresh_fast now, the others' from their compiled fronts, as before."""
    z = (np.arange(12.0, dtype=np.float32) * 0.75 - 4).reshape(3, 4).T
    x = strided.from_numpy(z)
    want = getattr(strided, name)(x)

    def general(*args, **kwargs):
        raise AssertionError("general path")

    monkeypatch.setattr(unary_more, "run_unary", general)
    got = getattr(strided, name)(x)
    assert got.stride() == want.stride() == (1, 4)
    assert np.array_equal(_bits(got), _bits(want))
