"""Red-team checks of branch large8's fast paths against PyTorch (and the general path): addr of a
column-major input, index_add by slices, the compiled cummax/cummin and trace, ranges computed in
place, large joins by blocked copies, out-of-place writes through copy_into, the *_like strides memo.
Hostile layouts (negative strides from NumPy views, expanded, transposed, as_strided), NaN payloads,
-0.0, inf, ties, duplicate indices."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import strided as st
from strided.creation import borrow_array  # (any strides: from_numpy refuses negative ones, as PyTorch)

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as hs  # noqa: E402

PAYLOADS32 = np.array([0x7FC00001, 0xFFC00002, 0x7FA00003], np.uint32).view(np.float32)
SPECIALS = [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 5e-324, 1e-310, 1.0, 3.0, -2.5]


def _bits(t) -> bytes:
    if isinstance(t, torch.Tensor):
        a = (t.detach().view(torch.int16) if t.dtype is torch.bfloat16 else t.detach()).numpy()
    else:
        a = t.detach().numpy()
        if a.dtype.itemsize == 2 and a.dtype.kind == "V" or str(a.dtype) == "bfloat16":
            a = a.view(np.int16)
    return np.ascontiguousarray(a).tobytes()


def _same(s, t) -> None:
    assert tuple(s.shape) == tuple(t.shape)
    assert s.stride() == t.stride()
    assert str(s.dtype).rsplit(".", 1)[-1] == str(t.dtype).rsplit(".", 1)[-1]
    assert _bits(s) == _bits(t)


def _negative(a: np.ndarray, axes: tuple[int, ...]) -> st.Tensor:
    """A tensor over NumPy memory laid out with negative strides along ``axes``, holding ``a``'s values."""
    return borrow_array(np.flip(np.ascontiguousarray(np.flip(a, axes)), axes), "from_numpy")


# ---------------------------------------------------------------- addr (column-major input)


@settings(max_examples=150, deadline=None)
# (a float32 beta of 1e-300 rounds to 0: PyTorch's addr then ignores the input, both paths alike)
@example(5, 5, np.float32, 1e-300, 0, 4194303, 0.2578125)
@given(hs.integers(2, 9), hs.integers(2, 9), hs.sampled_from([np.float32, np.float64]),
       hs.sampled_from([0, 1, 2, -0.5, 0.0, 1e-300, 3.25]), hs.sampled_from([0, 1, 2, -0.5, 0.0, 1e300, 3.25]),
       hs.integers(0, 2**32 - 1), hs.floats(0, 0.3))
def test_addr_column_major_fast_path_is_the_general_path_bit_for_bit(m, n, dtype, beta, alpha, seed, p):
    rng = np.random.default_rng(seed)

    def draw(*shape):
        a = rng.standard_normal(shape)
        mask = rng.random(shape) < p
        a[mask] = rng.choice(SPECIALS, int(mask.sum()))
        return a.astype(dtype)

    rows, v1, v2 = draw(n, m), draw(m), draw(n)
    inp = st.tensor(rows).t()  # (m, n), strides (1, m)
    with np.errstate(all="ignore"):
        if dtype is np.float32 and max(abs(beta), abs(alpha)) > 3.4e38:  # (PyTorch's overflow error, both paths)
            with pytest.raises(RuntimeError, match="without overflow"):
                st.addr(inp, st.tensor(v1), st.tensor(v2), beta=beta, alpha=alpha)
            return
        fast = st.addr(inp, st.tensor(v1), st.tensor(v2), beta=beta, alpha=alpha)
        # a NumPy scalar beta/alpha is no plain Python number: the general path
        general = st.addr(inp, st.tensor(v1), st.tensor(v2), beta=np.float64(beta), alpha=np.float64(alpha))
    assert fast.stride() == general.stride() == (1, m)
    assert _bits(fast) == _bits(general)
    ref = torch.addr(torch.from_numpy(rows).t(), torch.from_numpy(v1), torch.from_numpy(v2), beta=beta, alpha=alpha)
    assert fast.stride() == ref.stride() and fast.dtype.name == str(ref.dtype).split(".")[1]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])  # (bfloat16 apart: its 0 * inf NaN comes out negative, PyTorch positive, a separate gap)
@pytest.mark.parametrize("beta", [1e-300, 1e-46, -1e-300, np.float64(1e-300)])
@pytest.mark.parametrize("row_major", [False, True])
def test_addr_beta_rounding_to_zero_in_the_dtype_ignores_the_input_as_torch(dtype, beta, row_major):
    # PyTorch's addr kernel tests beta.to<scalar_t>() == 0: a float32 beta of 1e-300 is 0 there,
    # so the input's NaN/inf are ignored and the products' signed zeros survive (alpha 0)
    rows = np.array([[np.nan, -np.inf, 1.0], [2.0, np.inf, -3.0]])
    v1, v2 = np.array([1.0, -2.0, np.inf]), np.array([-0.0, 3.0])
    ref_in = torch.tensor(rows).to(getattr(torch, dtype))
    inp = st.tensor(rows).to(getattr(st, dtype))
    if row_major:  # (the input below is its transpose: a row-major one, else column-major)
        ref_in, inp = ref_in.t().contiguous().t(), inp.t().contiguous().t()
    ref = torch.addr(ref_in.t(), torch.tensor(v1).to(ref_in.dtype), torch.tensor(v2).to(ref_in.dtype),
                     beta=float(beta), alpha=0.0)
    with np.errstate(all="ignore"):
        out = st.addr(inp.t(), st.tensor(v1).to(inp.dtype), st.tensor(v2).to(inp.dtype), beta=beta, alpha=0.0)
    assert _bits(out) == _bits(ref)
    if dtype == "float64":  # (1e-300 is a float64: the input's NaN and inf do propagate)
        assert np.isnan(np.asarray(out)).sum() == np.isnan(ref.numpy()).sum() > 2


def test_addr_column_major_beta_zero_ignores_nan_input_and_keeps_grads():
    rows = np.full((4, 3), np.nan)
    out = st.addr(st.tensor(rows).t(), st.tensor([1.0, 2.0, 3.0]), st.tensor([1.0, -0.0, 2.0, 4.0]), beta=0)
    ref = torch.addr(torch.tensor(rows).t(), torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, -0.0, 2.0, 4.0]), beta=0)
    _same(out, ref)
    a = np.arange(12.0).reshape(4, 3)
    grads = []
    for lib in (st, torch):
        i = lib.tensor(a, requires_grad=True)
        x = lib.tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
        y = lib.tensor(np.array([0.5, 1.0, -1.0, 2.0]), requires_grad=True)
        r = lib.addr(i.t(), x, y, beta=2, alpha=3)
        assert r.grad_fn is not None
        (r * r).sum().backward()
        grads.append([g.grad.numpy().tolist() for g in (i, x, y)])
    assert grads[0] == grads[1]


# ---------------------------------------------------------------- index_add by slices


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int32", "int64", "uint8"])
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("inplace", [False, True])
def test_index_add_large_slices_duplicates_and_hostile_targets_match_torch(dtype, dim, inplace):
    rng = np.random.default_rng(7)
    shape = (6, 400) if dim == 0 else (400, 6)
    if dtype.startswith("float"):
        a = rng.standard_normal(shape).astype(dtype)
        a.flat[rng.integers(0, a.size, 40)] = rng.choice([np.nan, -np.nan, np.inf, -np.inf, -0.0], 40)
        src_values = rng.standard_normal
    else:
        a = rng.integers(-120, 120, shape).astype(dtype)
        src_values = None
    idx = np.array([1, 4, 1, 1, 0, 5, 4], np.int64)
    sshape = list(shape)
    sshape[dim] = idx.size
    src = (src_values(sshape) * 1e3).astype(dtype) if src_values else rng.integers(-120, 120, sshape).astype(dtype)
    if dtype.startswith("float"):
        src.flat[:5] = [np.inf, -np.inf, -0.0, 3e38, -3e38]
    for target in (st.tensor(a), _negative(a, (0,)), _negative(a, (0, 1)), st.tensor(a.T.copy()).t()):
        for source in (st.tensor(src), _negative(src, (1,)), st.tensor(src.T.copy()).t()):
            t_ref = torch.from_numpy(a.copy())
            with np.errstate(all="ignore"):
                if inplace:
                    out = target.clone()
                    r = out.index_add_(dim, st.tensor(idx), source)
                    assert r is out
                    t_ref.index_add_(dim, torch.from_numpy(idx), torch.from_numpy(src))
                    ref = t_ref
                else:
                    out = target.index_add(dim, st.tensor(idx), source)
                    ref = t_ref.index_add(dim, torch.from_numpy(idx), torch.from_numpy(src))
            assert tuple(out.shape) == tuple(ref.shape)
            assert _bits(out) == _bits(ref)


def test_index_add_out_of_range_writes_nothing_and_alias_is_refused():
    a = st.arange(4 * 300, dtype=st.float32).reshape(4, 300)
    before = _bits(a)
    with pytest.raises((IndexError, RuntimeError)):
        a.index_add_(0, st.tensor([0, 4]), st.ones(2, 300))
    assert _bits(a) == before
    with pytest.raises(RuntimeError):
        a.index_add_(0, st.tensor([1, 0]), a[:2])
    assert _bits(a) == before


# ---------------------------------------------------------------- cummax / cummin


@settings(max_examples=120, deadline=None)
@given(hs.lists(hs.integers(1, 6), min_size=1, max_size=3), hs.sampled_from(["float32", "float64", "int32", "int64"]),
       hs.integers(0, 2**32 - 1), hs.sampled_from(["cummax", "cummin"]))
def test_cum_extreme_negative_strides_nan_payloads_ties_match_torch(shape, dtype, seed, op):
    rng = np.random.default_rng(seed)
    if dtype.startswith("float"):
        pool = np.array([np.nan, -np.nan, 0.0, -0.0, 1.0, 2.0, np.inf, -np.inf, *PAYLOADS32.astype(np.float64)], dtype)
        if dtype == "float32":
            pool = np.concatenate([pool, PAYLOADS32])
        a = rng.choice(pool, tuple(shape))
    else:
        a = rng.integers(-2, 3, tuple(shape)).astype(dtype)
    axes = tuple(i for i in range(a.ndim) if rng.random() < 0.6)
    s = _negative(a, axes)
    for d in range(a.ndim):
        rs = getattr(st, op)(s, d)
        rt = getattr(torch, op)(torch.from_numpy(a.copy()), d)
        _same(rs[0], rt[0])
        _same(rs[1], rt[1])


# ---------------------------------------------------------------- trace


@settings(max_examples=200, deadline=None)
@given(hs.integers(0, 9), hs.integers(0, 9), hs.sampled_from([0, 1, 2, 3, 5, 12]), hs.sampled_from([0, 1, 2, 7, 13]),
       hs.integers(0, 6), hs.sampled_from([np.float32, np.float64]), hs.integers(0, 2**32 - 1))
def test_trace_as_strided_layouts_match_torch(r, c, s0, s1, off, dtype, seed):
    rng = np.random.default_rng(seed)
    need = off + ((r - 1) * s0 + (c - 1) * s1 + 1 if r and c else 0)
    base = rng.standard_normal(need + 2).astype(dtype)
    base[rng.random(base.size) < 0.2] = rng.choice([-0.0, np.nan, -np.nan, np.inf, 1e38])
    ts = st.tensor(base).as_strided((r, c), (s0, s1), off)
    tt = torch.tensor(base).as_strided((r, c), (s0, s1), off)
    with np.errstate(all="ignore"):
        for a, b in ((ts, tt), (ts.t(), tt.t()), (ts.flip(0), tt.flip(0))):
            _same(a.trace(), b.trace())
    arr = base[off: off + r * c].reshape(r, c) if r * c and need <= base.size and r * c <= base.size - off else None
    if arr is not None:
        for axes in ((0,), (1,), (0, 1)):
            with np.errstate(all="ignore"):
                _same(_negative(arr, axes).trace(), torch.from_numpy(arr.copy()).trace())


def test_trace_dtypes_and_views_match_torch():
    a = (np.arange(36).reshape(6, 6) - 17.5) * 1.25
    for name in ("float16", "bfloat16", "float32", "float64", "complex64", "int8", "int64", "uint8"):
        s, t = st.tensor(a).to(getattr(st, name)), torch.tensor(a).to(getattr(torch, name))
        for f in (lambda x: x, lambda x: x.t(), lambda x: x[1:, :4], lambda x: x[:1].expand(5, 6), lambda x: x[::2, ::3]):
            _same(f(s).trace(), f(t).trace())
    c = (np.arange(16).reshape(4, 4) + 1j).astype(np.complex64)
    _same(st.tensor(c).imag.trace(), torch.tensor(c).imag.trace())
    _same(st.tensor([[-0.0]]).trace(), torch.tensor([[-0.0]]).trace())


# ---------------------------------------------------------------- ranges


@pytest.mark.parametrize("dtype", [None, "int64", "float64", "float32", "float16", "bfloat16", "int32", "uint8"])
def test_ranges_adopted_results_share_no_memory_between_calls(dtype):
    dt = None if dtype is None else getattr(st, dtype)
    tdt = None if dtype is None else getattr(torch, dtype)
    for args in ((10,), (0, 40, 3), (5, -5, -1), (0, 300000)):
        if dtype == "uint8" and args[0] == 5 or dtype in ("float16", "bfloat16") and args[-1] == 300000:
            continue  # (past 2048/256 float16/bfloat16 arange rounds unlike PyTorch: before large8 too)
        r = st.arange(*args, dtype=dt)
        ref = torch.arange(*args, dtype=tdt)
        _same(r, ref)
        r.fill_(7)
        _same(st.arange(*args, dtype=dt), ref)
    if dtype in (None, "float64", "float32", "float16", "bfloat16"):
        for op in ("linspace", "logspace"):
            for steps in (5, 5000):
                r = getattr(st, op)(-1, 1, steps, dtype=dt)
                ref = getattr(torch, op)(-1, 1, steps, dtype=tdt)
                _same(r, ref)
                r.mul_(3)
                again = getattr(st, op)(-1, 1, steps, dtype=dt)
                _same(again, ref)
                g = getattr(st, op)(-1, 1, steps, dtype=dt, requires_grad=True)
                assert g.requires_grad and g.is_leaf


# ---------------------------------------------------------------- joins and out-of-place writes


@pytest.mark.parametrize("dts", [("float32", "float32"), ("float64", "float32"), ("int64", "bfloat16"),
                                 ("bool", "uint8"), ("complex64", "float64"), ("float16", "int8")])
def test_large_joins_of_hostile_layouts_match_torch(dts):
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((300, 260)) * 50).astype(np.float64)
    b = (rng.standard_normal((300, 260)) * 50).astype(np.float64)
    sa, sb = st.tensor(a).to(getattr(st, dts[0])), st.tensor(b).to(getattr(st, dts[1]))
    ta, tb = torch.tensor(a).to(getattr(torch, dts[0])), torch.tensor(b).to(getattr(torch, dts[1]))
    na = sa.numpy() if dts[0] != "bfloat16" else None
    variants = [(sa, ta), (sa.t().contiguous().t(), ta.t().contiguous().t()), (sa[:1].expand(300, 260), ta[:1].expand(300, 260))]
    if na is not None:
        variants.append((_negative(na, (0, 1)), ta))
    for x, tx in variants:
        for d in (0, 1):
            _same(st.cat([x, sb, x], d), torch.cat([tx, tb, tx], d))
        for d in (0, 1, 2):
            _same(st.stack([x, sb], d), torch.stack([tx, tb], d))
        _same(st.hstack([x, sb]), torch.hstack([tx, tb]))
        _same(st.dstack([x, sb]), torch.dstack([tx, tb]))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "bool", "complex128", "bfloat16"])
def test_out_of_place_writes_from_hostile_layouts_match_torch(dtype):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((300, 500)) * 10
    s, t = st.tensor(a).to(getattr(st, dtype)), torch.tensor(a).to(getattr(torch, dtype))
    mask = rng.random((300, 500)) < 0.3
    ix = rng.integers(0, 300, (2, 500))
    variants = [(s, t), (s.t().contiguous().t(), t.t().contiguous().t()), (s[:1].expand(300, 500), t[:1].expand(300, 500))]
    if dtype != "bfloat16":
        variants.append((_negative(s.numpy(), (0, 1)), t))  # (PyTorch has no negative strides: its values)
    for x, tx in variants:
        for r, ref in ((x.masked_fill(st.tensor(mask), 1), tx.masked_fill(torch.from_numpy(mask), 1)),
                       (x.scatter(0, st.tensor(ix), 2), tx.scatter(0, torch.from_numpy(ix), 2)),
                       (x.index_fill(1, st.tensor([0, 3]), 5), tx.index_fill(1, torch.tensor([0, 3]), 5))):
            assert r.stride() == ref.stride() and _bits(r) == _bits(ref)


# ---------------------------------------------------------------- *_like strides memo


def test_like_strides_memo_matches_torch_on_as_strided_layouts_and_threads():
    rng = np.random.default_rng(0)
    for _ in range(1500):
        k = int(rng.integers(0, 5))
        shape = tuple(int(v) for v in rng.integers(0, 4, k))
        strides = tuple(int(v) for v in rng.choice([0, 1, 2, 3, 5, 7, 12, 24], k))
        need = 1 + sum((n - 1) * s for n, s in zip(shape, strides)) if 0 not in shape else 1
        for name in ("float32", "int8", "complex128"):
            s = st.zeros(need + 3, dtype=getattr(st, name)).as_strided(shape, strides, 1)
            t = torch.zeros(need + 3, dtype=getattr(torch, name)).as_strided(shape, strides, 1)
            assert st.empty_like(s).stride() == torch.empty_like(t).stride()
            assert st.zeros_like(s).stride() == torch.zeros_like(t).stride()
    errors = []

    def work(seed):
        r = np.random.default_rng(seed)
        for _ in range(500):
            shape = tuple(int(v) for v in r.integers(1, 4, 3))
            perm = r.permutation(3).tolist()
            if st.empty_like(st.zeros(*shape).permute(*perm)).stride() != torch.empty_like(
                    torch.zeros(*shape).permute(*perm)).stride():
                errors.append((shape, perm))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
