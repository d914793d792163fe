"""The large-size fast paths of branch large24, each against PyTorch (values, dtype, strides) and
against the general path it replaces (run inside ``native.disabled()`` where that turns the fast
path off, else compared with the row-major result).

* Unary "more" ops (isfinite, isnan, floor, sign, ...) of a permuted dense float32/float64
  tensor: the kernel over the storage run in memory order, the result laid out with the input's
  strides (TensorIterator's, and the isinf/isfinite composites').
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from strided.ops.elementwise import unary_more

SPECIALS = [0.0, -0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 1e-40, 3.4e38, 0.5, -0.5, 2.5]


def _values(n: int, dtype: str, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = (rng.standard_normal(n) * 4).astype(dtype)
    v[: len(SPECIALS)] = np.array(SPECIALS, dtype=dtype)
    rng.shuffle(v)
    return v


# (shape of the row-major base, permutation): every dim >= 2 (the dense path) and some with a
# size-1 dim (the general path: its strides follow other rules)
PERMS = [((37, 53), (1, 0)), ((5, 7, 11), (2, 0, 1)), ((5, 7, 11), (1, 2, 0)), ((3, 1, 9), (2, 1, 0)),
         ((4, 6, 2, 3), (3, 1, 0, 2))]
OPS = [op.name for op in unary_more.TABLE if op.name not in ("logical_not",)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,perm", PERMS)
@pytest.mark.parametrize("name", OPS)
def test_unary_more_permuted_dense_matches_torch(name, shape, perm, dtype, monkeypatch):
    base = _values(int(np.prod(shape)), dtype).reshape(shape)
    s = st.from_numpy(base.copy()).permute(*perm)
    t = torch.from_numpy(base.copy()).permute(*perm)
    want = getattr(torch, name)(t)
    got = getattr(st, name)(s)
    assert got.dtype.name == str(want.dtype).removeprefix("torch."), name
    assert got.stride() == want.stride(), name
    # values as PyTorch's (the transcendental ones to NumPy's last bits, as before this path)
    np.testing.assert_allclose(got.numpy().astype(np.float64), want.numpy().astype(np.float64), rtol=1e-6,
                               equal_nan=True)
    # bit for bit (signs of zeros and NaNs included) the general path's result, and its strides
    monkeypatch.setattr(unary_more, "dense_run", lambda x, n: None)
    general = getattr(st, name)(s)
    assert general.stride() == got.stride()
    assert np.array_equal(_bytes(got), _bytes(general))


def _bytes(t) -> np.ndarray:
    return np.ascontiguousarray(t.numpy()).view(np.uint8)


def test_unary_more_permuted_offset_view():
    """A dense permuted view at an offset in a larger storage reads its own run only."""
    big = st.from_numpy(_values(2 * 30 * 40, "float32").reshape(2, 30, 40))
    v = big[1].t()
    assert v._layout.offset == 1200
    got = st.isfinite(v)
    want = torch.isfinite(torch.from_numpy(big.numpy())[1].t())
    assert got.stride() == want.stride()
    np.testing.assert_array_equal(got.numpy(), want.numpy())


UNARY = ["neg", "abs", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "bitwise_not"]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "bool", "complex64"])
@pytest.mark.parametrize("shape,perm", PERMS)
@pytest.mark.parametrize("name", UNARY)
def test_unary_permuted_dense_as_general_path(name, shape, perm, dtype, monkeypatch):
    """strided.neg/abs/exp/... of a permuted dense tensor: PyTorch's strides and refusals, and
    the general path's bytes."""
    from strided.ops.elementwise import unary

    base = _values(int(np.prod(shape)), "float64").reshape(shape)
    if dtype in ("int32", "bool"):
        base = np.nan_to_num(base * 3, nan=0.0, posinf=7.0, neginf=-7.0)
    with np.errstate(all="ignore"):  # (3.4e38 as float16: inf)
        base = base.astype(dtype)
    s = st.from_numpy(base.copy()).permute(*perm)
    t = torch.from_numpy(base.copy()).permute(*perm)
    try:
        want = getattr(torch, name)(t)
    except (RuntimeError, TypeError, NotImplementedError):  # (PyTorch refuses this dtype: so must strided)
        with pytest.raises((RuntimeError, TypeError, NotImplementedError)):
            getattr(st, name)(s)
        return
    got = getattr(st, name)(s)
    assert got.dtype.name == str(want.dtype).removeprefix("torch.")
    assert got.stride() == want.stride()
    monkeypatch.setattr(unary, "dense_run", lambda x, n: None)
    general = getattr(st, name)(s)
    assert general.stride() == got.stride()
    assert np.array_equal(_bytes(got), _bytes(general))


@pytest.mark.parametrize("shape,perm", PERMS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bounds", [(-1.0, 1.0), (0.0, 1.0), (-0.0, 0.0), (0.1, 0.7), (0.5, 0.5), (-np.inf, 2.5)])
def test_hardtanh_compiled_and_permuted(shape, perm, dtype, bounds, monkeypatch):
    """F.hardtanh's compiled clamp pass (row-major and permuted dense inputs) gives PyTorch's
    bytes and strides, and the general path's (np.clip)."""
    from strided.nn import functional as SF
    from strided.ops.elementwise import activations

    base = _values(int(np.prod(shape)), dtype).reshape(shape)
    for perm_ in (tuple(range(len(shape))), perm):
        s = st.from_numpy(base.copy()).permute(*perm_)
        t = torch.from_numpy(base.copy()).permute(*perm_)
        got = SF.hardtanh(s, *bounds)
        want = torch.nn.functional.hardtanh(t, *bounds)
        assert got.stride() == want.stride()
        assert np.array_equal(_bytes(got), np.ascontiguousarray(want.numpy()).view(np.uint8))
        with monkeypatch.context() as m:
            m.setattr(activations, "dense_run", lambda x, n: None)
            m.setattr(activations, "_compiled_clamp", lambda x, lo, hi: None)  # (np.clip)
            general = SF.hardtanh(s, *bounds)
        assert general.stride() == got.stride()
        assert np.array_equal(_bytes(got), _bytes(general))


UNFOLDS = [(0, 2, 1), (0, 3, 2), (1, 2, 1), (1, 5, 3), (0, 300, 1), (-2, 7, 7), (0, 1, 1), (2, 4, 3)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "complex64"])
@pytest.mark.parametrize("args", UNFOLDS)
@pytest.mark.parametrize("shape,perm", [((300, 301), (1, 0)), ((40, 50, 60), (2, 0, 1)), ((40, 50, 60), (1, 2, 0))])
def test_unfold_copy_of_permuted_inputs(shape, perm, args, dtype):
    """unfold_copy of a large permuted dense input (its row-major copy's view, where the windows
    run along its memory): PyTorch's values, shape and strides, the view's contiguous copy's bytes,
    and one copy in the ledger as before."""
    base = _values(int(np.prod(shape)), "float64").reshape(shape)
    base = np.clip(np.nan_to_num(base * 9), -3e4, 3e4).astype(dtype) if dtype == "int16" else base.astype(dtype)
    s = st.from_numpy(base.copy()).permute(*perm)
    t = torch.from_numpy(base.copy()).permute(*perm)
    if not -len(shape) <= args[0] < len(shape) or args[1] > t.shape[args[0]]:
        with pytest.raises((RuntimeError, IndexError)):
            st.unfold_copy(s, *args)
        return
    with st.record_copies() as copies:
        got = st.unfold_copy(s, *args)
    assert len(copies) == 1 and copies[0].reason.startswith("unfold_copy")
    want = torch.unfold_copy(t, *args)
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    assert np.array_equal(_bytes(got), np.ascontiguousarray(want.numpy()).view(np.uint8))
    assert np.array_equal(_bytes(got), _bytes(s.unfold(*args).contiguous()))


def test_unfold_copy_of_a_transpose_backward():
    """The gradient through a transposed input's unfold_copy (windows along its memory) is PyTorch's."""
    base = _values(260 * 270, "float64").reshape(260, 270)
    s = st.from_numpy(base.copy()).requires_grad_()
    t = torch.from_numpy(base.copy()).requires_grad_()
    w = _values(269 * 260 * 2, "float64", seed=3).reshape(269, 260, 2)
    (st.unfold_copy(s.t(), 0, 2, 1) * st.from_numpy(w)).sum().backward()
    (torch.unfold_copy(t.t(), 0, 2, 1) * torch.from_numpy(w)).sum().backward()
    np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=1e-12, equal_nan=True)


LOGSPACES = [(0.0, 1.0, 5000), (0, 2, 2), (0, 2, 3), (-3.5, 7.25, 4097), (1e-3, -2.0, 10001), (0.0, 1.0, 1 << 16),
             (-1, 1, 12345), (5, 5, 7), (-40.0, 40.0, 999)]


@pytest.mark.parametrize("base", [10.0, 2.0, 0.5, -2.0, 0.0, 1.0, 2.718281828459045, 1e-300, 7])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("start,end,steps", LOGSPACES)
def test_logspace_compiled_fill(start, end, steps, base, dtype):
    """logspace's one compiled pass (exponents, glibc's pow, the rounding) gives the general
    path's bytes (native.disabled(): NumPy's steps and the long-double power, which may differ
    from glibc's in the last bit about once in a thousand: compared with PyTorch's bytes instead
    where they differ) and PyTorch's."""
    from strided.kernels import native

    got = st.logspace(start, end, steps, base, dtype=getattr(st, dtype))
    want = torch.logspace(start, end, steps, base, dtype=getattr(torch, dtype))
    assert np.array_equal(_bytes(got), want.numpy().view(np.uint8))
    with native.disabled():
        general = st.logspace(start, end, steps, base, dtype=getattr(st, dtype))
    same = _bytes(got).reshape(steps, -1) == _bytes(general).reshape(steps, -1)
    assert same.all(axis=1).mean() > 0.995


@pytest.mark.parametrize("shape,perm", PERMS + [((300, 400), (1, 0)), ((1, 70000), (1, 0)), ((70000, 2), (0, 1))])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_empty_like_and_empty_strided_layouts(shape, perm, dtype):
    """empty_like (preserve_format) of permuted inputs, small and large, and empty_strided /
    empty of large sizes (their fast paths now take any size): PyTorch's shapes, strides, dtypes
    and storage sizes, the second call (the remembered plan) as the first."""
    s = st.zeros(shape, dtype=getattr(st, dtype)).permute(*perm)
    t = torch.zeros(shape, dtype=getattr(torch, dtype)).permute(*perm)
    for _ in range(2):
        got, want = st.empty_like(s), torch.empty_like(t)
        assert got.shape == tuple(want.shape) and got.stride() == want.stride() and got.dtype == s.dtype
        assert got._storage.array.size == want.untyped_storage().nbytes() // want.element_size()
        got, want = st.empty_strided((300, 500), (1, 300)), torch.empty_strided((300, 500), (1, 300))
        assert got.stride() == want.stride() and got._storage.array.size == 150000
        got = st.empty_strided((400, 300), (600, 2))  # (gaps: the storage holds what the layout reaches)
        assert got.stride() == (600, 2) and got._storage.array.size == 399 * 600 + 299 * 2 + 1
        assert st.empty(300, 301).stride() == (301, 1) and st.empty((70000, 2)).shape == (70000, 2)


def test_large_empty_that_cannot_be_allocated_raises_as_before():
    """A remembered large plan whose allocation fails takes the general path (its error)."""
    with pytest.raises((RuntimeError, MemoryError, ValueError, OverflowError)) as first:
        st.empty(2**40, 2**20)
    with pytest.raises(type(first.value)):
        st.empty(2**40, 2**20)
    with pytest.raises((RuntimeError, MemoryError, ValueError, OverflowError)) as strided_first:
        st.empty_strided((2**40, 2**20), (2**20, 1))
    with pytest.raises(type(strided_first.value)):
        st.empty_strided((2**40, 2**20), (2**20, 1))


@pytest.mark.parametrize("dtype,udtype", [("float32", np.uint32), ("float64", np.uint64)])
@pytest.mark.parametrize("layout", ["row", "transposed", "sliced", "small"])
def test_square_is_the_product(dtype, udtype, layout):
    """square of float32/float64 (np.square where np.multiply(x, x) ran): the same bits as x * x
    and as PyTorch's, over random bit patterns (NaN payloads, infinities, subnormals)."""
    bits = np.random.default_rng(7).integers(0, np.iinfo(udtype).max, 300 * 200, dtype=udtype, endpoint=True)
    base = bits.view(dtype).reshape(300, 200)
    pick = {"row": lambda v: v, "transposed": lambda v: v.t(), "sliced": lambda v: v[::2, 1::3],
            "small": lambda v: v[:3, :4]}[layout]
    s, t = pick(st.from_numpy(base.copy())), pick(torch.from_numpy(base.copy()))
    got = st.square(s)
    with np.errstate(all="ignore"):
        product = np.multiply(s.numpy(), s.numpy())
    assert got.stride() == st.mul(s, s).stride()
    assert np.array_equal(got.numpy().view(udtype), product.view(udtype))
    assert np.array_equal(got.numpy().view(udtype), torch.square(t).numpy().view(udtype))


@pytest.mark.parametrize("shape,perm", PERMS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bounds", [(None, 0.5), (-0.5, None), (-0.0, 0.0), (0.25, 0.75)])
def test_clamp_of_permuted_dense(shape, perm, dtype, bounds):
    """clamp / clamp_min / clamp_max by numbers of a permuted dense tensor (the compiled pass
    over its memory, laid out as it): PyTorch's bytes and strides."""
    base = _values(int(np.prod(shape)), dtype).reshape(shape)
    s = st.from_numpy(base.copy()).permute(*perm)
    t = torch.from_numpy(base.copy()).permute(*perm)
    for _ in range(2):  # (the second call: the remembered layout)
        got, want = st.clamp(s, *bounds), torch.clamp(t, *bounds)
        assert got.stride() == want.stride()
        assert np.array_equal(_bytes(got), np.ascontiguousarray(want.numpy()).view(np.uint8))


@pytest.mark.parametrize("shape,perm", [((80, 90), (1, 0)), ((20, 30, 40), (2, 0, 1)), ((20, 30, 40), (1, 2, 0))])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "bool"])
def test_nonzero_of_permuted_dense(shape, perm, dtype):
    """nonzero / argwhere / nonzero(as_tuple) / nonzero(out=) of a permuted dense input (its
    blocked row-major copy walked): PyTorch's positions and strides, one copy in the ledger."""
    v = _values(int(np.prod(shape)), "float64")
    v[::3] = 0.0
    v[1::7] = -0.0
    base = (v != 0).astype(dtype) if dtype == "bool" else np.clip(np.nan_to_num(v * 5), -3e4, 3e4).astype(dtype)
    base = base.reshape(shape)
    s = st.from_numpy(base.copy()).permute(*perm)
    t = torch.from_numpy(base.copy()).permute(*perm)
    with st.record_copies() as copies:
        got = st.nonzero(s)
    assert len(copies) == 1
    want = torch.nonzero(t)
    assert got.stride() == want.stride() and np.array_equal(got.numpy(), want.numpy())
    assert np.array_equal(st.argwhere(s).numpy(), torch.argwhere(t).numpy())
    for a, b in zip(st.nonzero(s, as_tuple=True), torch.nonzero(t, as_tuple=True)):
        assert np.array_equal(a.numpy(), b.numpy())
    out = st.empty(0, dtype=st.int64)
    st.nonzero(s, out=out)
    assert np.array_equal(out.numpy(), want.numpy())


COPY_FORMS = [("t_copy", lambda x: (x.t(),), ()), ("transpose_copy", lambda x: (x.t(),), (0, 1)),
              ("permute_copy", lambda x: (x.t(),), ((1, 0),)), ("expand_copy", lambda x: (x,), ((300, 200),)),
              ("view_copy", lambda x: (x,), ((200, 300),)), ("narrow_copy", lambda x: (x,), (0, 10, 250)),
              ("slice_copy", lambda x: (x,), (0, 5, 290)), ("select_copy", lambda x: (x.reshape(3, 100, 200),), (0, 1)),
              ("alias_copy", lambda x: (x,), ()), ("detach_copy", lambda x: (x,), ())]


@pytest.mark.parametrize("dtype", ["float32", "int64", "complex64", "bool"])
@pytest.mark.parametrize("name,prep,args", COPY_FORMS)
def test_copy_forms_of_large_row_major_pieces(name, prep, args, dtype):
    """The copy forms whose piece is a row-major run of its storage (beyond the small path's
    64 KiB): the run's memcpy adopted; PyTorch's values, shape and strides, a fresh storage, and
    the copy ledger's one record (the listened path) with the same bytes."""
    base = _values(300 * 200, "float64").reshape(300, 200)
    base = (base > 0).astype(dtype) if dtype == "bool" else np.clip(np.nan_to_num(base), -1e6, 1e6).astype(dtype)
    s_in, t_in = prep(st.from_numpy(base.copy()))[0], prep(torch.from_numpy(base.copy()))[0]
    got = getattr(st, name)(s_in, *args)
    want = getattr(torch, name)(t_in, *args)
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    assert np.array_equal(_bytes(got), np.ascontiguousarray(want.numpy()).view(np.uint8))
    assert not np.shares_memory(got._storage.array, s_in._storage.array)
    with st.record_copies() as copies:
        listened = getattr(st, name)(s_in, *args)
    assert len(copies) == 1 and np.array_equal(_bytes(listened), _bytes(got))
