"""F.max_pool1d/2d and F.avg_pool1d/2d through the compiled windows (``pool_windows``, PyTorch's CPU
loops) and their fresh paths: the bits of PyTorch's results (NaN words and signs, -0.0, infinities,
the first maximum, the average's summation order), and the same values, shape and strides as the
NumPy path (the kernels switched off) over layouts (transposed, stepped, expanded, channels-last,
offset, unbatched, zero-size), geometries (padding, dilation, ceil_mode, count_include_pad,
divisor_override, kernels larger than the stride, 1-element windows); float16 / bfloat16 on the
NumPy path; gradients of inputs that require grad; listeners still seeing the op."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
import strided.nn.functional as F
from strided.kernels import native
from strided.kernels.rows import pool_windows

torch.set_num_threads(1)

SPECIALS = [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0]


def _values(draw, shape, dtype):
    """Values with ties (rounded) and, sometimes, NaN / infinities / signed zeros placed at random."""
    n = int(np.prod(shape))
    seed = draw(hs.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    a = np.round(rng.standard_normal(n) * 10.0 ** rng.integers(-2, 3, n), 1)
    if draw(hs.booleans()) and n:
        at = rng.integers(0, n, max(1, n // 4))
        a[at] = rng.choice(np.array(SPECIALS), len(at))
    return a.astype(dtype).reshape(shape)


def _layout(a: np.ndarray, kind: str, nsp: int):
    """The same values as a torch and a strided tensor of one layout ``kind``."""
    t, s = torch.from_numpy(a.copy()), st.from_numpy(a.copy())
    nd = a.ndim
    if kind == "transposed":  # the last two dims swapped in memory
        t = t.transpose(-1, -2).contiguous().transpose(-1, -2)
        s = s.transpose(-1, -2).contiguous().transpose(-1, -2)
    elif kind == "channels_last" and nd == nsp + 2:
        perm = (0, *range(2, nd), 1)
        back = tuple(int(i) for i in np.argsort(perm))
        t, s = t.permute(perm).contiguous().permute(back), s.permute(perm).contiguous().permute(back)
    elif kind == "stepped":  # every other element of a twice as large last dim, at an offset
        big = np.zeros((*a.shape[:-1], 2 * a.shape[-1] + 1), a.dtype)
        big[..., 1::2] = a
        t, s = torch.from_numpy(big.copy())[..., 1::2], st.from_numpy(big.copy())[..., 1::2]
    elif kind == "expanded" and a.shape[0] > 0:  # the first dim broadcast (stride 0)
        t = torch.from_numpy(a[:1].copy()).expand(a.shape)
        s = st.from_numpy(a[:1].copy()).expand(*a.shape)
        a = np.broadcast_to(a[:1], a.shape)
    return a, t, s


def _bits(x: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(x)
    return x.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[x.itemsize])


def _np_of(r) -> np.ndarray:
    return np.asarray(r.detach().numpy()) if isinstance(r, st.Tensor) else r.detach().numpy()


@hs.composite
def _case(draw):
    op = draw(hs.sampled_from(["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d"]))
    nsp = 2 if op.endswith("2d") else 1
    is_max = op.startswith("max")
    k = tuple(draw(hs.integers(1, 3)) for _ in range(nsp))
    s = tuple(draw(hs.integers(1, 3)) for _ in range(nsp))
    d = tuple(draw(hs.integers(1, 2)) for _ in range(nsp)) if is_max else (1,) * nsp
    p = tuple(draw(hs.integers(0, ((ki - 1) * di + 1) // 2 if is_max else ki // 2)) for ki, di in zip(k, d))
    spatial = tuple(draw(hs.integers(max(1, (ki - 1) * di + 1 - 2 * pi), 7)) for ki, di, pi in zip(k, d, p))
    batched = draw(hs.booleans())
    shape = ((draw(hs.integers(0, 2)),) if batched else ()) + (draw(hs.integers(1, 3)),) + spatial
    dtype = draw(hs.sampled_from(["float32", "float64"]))
    kw = {}
    # the arguments in PyTorch's forms: ints where the sizes agree, sometimes tuples, stride sometimes left out
    kw["kernel_size"] = k[0] if len(set(k)) == 1 and draw(hs.booleans()) else k
    if draw(hs.booleans()) or s != k:
        kw["stride"] = s[0] if len(set(s)) == 1 and draw(hs.booleans()) else s
    else:
        s = k
    if any(p) or draw(hs.booleans()):
        kw["padding"] = p[0] if len(set(p)) == 1 else p
    if draw(hs.booleans()):
        kw["ceil_mode"] = True
    if is_max and (any(v != 1 for v in d) or draw(hs.booleans())):
        kw["dilation"] = d[0] if len(set(d)) == 1 else d
    if not is_max and draw(hs.booleans()):
        kw["count_include_pad"] = False
    if op == "avg_pool2d" and draw(hs.booleans()):
        kw["divisor_override"] = draw(hs.integers(1, 5))
    kind = draw(hs.sampled_from(["contiguous", "transposed", "channels_last", "stepped", "expanded"]))
    positional = draw(hs.booleans())  # (the fresh path takes positional calls only)
    return op, nsp, _values(draw, shape, dtype), kind, kw, positional


def _call(fn, x, kw, positional, op):
    if not positional:
        return fn(x, **kw)
    names = ["kernel_size", "stride", "padding"] + (["dilation", "ceil_mode"] if op.startswith("max")
                                                     else ["ceil_mode", "count_include_pad", "divisor_override"])
    defaults = {"stride": None, "padding": 0, "dilation": 1, "ceil_mode": False, "count_include_pad": True,
                "divisor_override": None}
    if op == "avg_pool1d":
        names = names[:-1]
    args = [kw.get(n, defaults.get(n)) for n in names]
    while len(args) > 1 and names[len(args) - 1] not in kw:
        args.pop()
    return fn(x, *args)


@settings(max_examples=400, deadline=None)
@given(_case())
def test_pool_bits_like_torch_and_the_numpy_path(case):
    op, nsp, a, kind, kw, positional = case
    a, t, s = _layout(a, kind, nsp)
    try:
        want = getattr(TF, op)(t, **kw)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            _call(getattr(F, op), s, kw, positional, op)
        return
    got = _call(getattr(F, op), s, kw, positional, op)
    with native.disabled():
        ref = _call(getattr(F, op), s, kw, positional, op)
    g, w, r = _np_of(got), _np_of(want), _np_of(ref)
    assert g.shape == w.shape == r.shape
    assert got.stride() == ref.stride()
    nan_signs = op.startswith("avg") and np.isnan(a).any()
    if kind == "channels_last" and nan_signs:  # (two NaN words in one window: see the strict xfail below)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
    elif pool_windows() is not None or not nan_signs:
        np.testing.assert_array_equal(_bits(g), _bits(w))
    else:  # (the NumPy path: see below)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
    if nan_signs:
        # (the NumPy path's sum of two NaNs of either sign may keep the other one: NumPy's loops
        # pick the operand otherwise than x86's scalar add, which PyTorch's and the kernel's share)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(r))
        ok = ~np.isnan(r)
        np.testing.assert_array_equal(_bits(g[ok]), _bits(r[ok]))
    else:
        np.testing.assert_array_equal(_bits(g), _bits(r))


@pytest.mark.parametrize("op", ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d"])
@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (5, 7)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bench_rows_take_the_fresh_path_with_torch_bits(op, shape, dtype):
    """The bench's calls ((1, m, n) / (1, 1, m, n), window 2): PyTorch's bits; the fresh path is
    taken (a result without the general path's window view, seen as no listener step at all)."""
    nsp = 2 if op.endswith("2d") else 1
    a = np.random.default_rng(1).standard_normal((1,) * nsp + shape).astype(dtype)
    a.flat[::5] = -0.0
    got = getattr(F, op)(st.from_numpy(a), 2)
    want = getattr(TF, op)(torch.from_numpy(a), 2)
    np.testing.assert_array_equal(_bits(_np_of(got)), _bits(want.numpy()))
    assert got.stride() == want.stride()
    if pool_windows() is not None:
        from strided.nn.functional import pooling

        assert pooling._fresh_run(st.from_numpy(a), nsp, 2, None, 0 if op.startswith("max") else 1, 0) is not None


def test_avg_sums_in_pytorchs_order():
    """A window whose row-major sum from 0 differs from NumPy's pairwise / reordered one (the old
    path's): PyTorch's sequential order, on both the compiled and the NumPy path."""
    a = np.array([[[[1e8, 1.0], [-1e8, 1.0]]]], np.float32)
    want = TF.avg_pool2d(torch.from_numpy(a), 2).numpy()
    for off in (False, True):
        if off:
            with native.disabled():
                got = F.avg_pool2d(st.from_numpy(a), 2)
        else:
            got = F.avg_pool2d(st.from_numpy(a), 2)
        np.testing.assert_array_equal(_bits(_np_of(got)), _bits(want))
    assert want.item() == 0.25  # ((1e8 + 1) - 1e8) + 1 in float32: 1e8 + 1 rounds to 1e8


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("op", ["max_pool2d", "avg_pool2d", "avg_pool1d"])
def test_half_types_like_torch(op, dtype):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 3, 6, 5)[: 4 if op.endswith("2d") else 3]).astype(np.float32)
    t = torch.from_numpy(a).to(dtype)
    s = st.from_numpy(a).to(st.float16 if dtype is torch.float16 else st.bfloat16)
    for kw in ({"kernel_size": 2}, {"kernel_size": 3, "stride": 1, "padding": 1}):
        want = getattr(TF, op)(t, **kw).float().numpy()
        got = getattr(F, op)(s, **kw).to(st.float32).numpy()
        np.testing.assert_array_equal(_bits(np.asarray(got)), _bits(want))


@pytest.mark.parametrize("op", ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d"])
@pytest.mark.parametrize("kind", ["contiguous", "transposed", "channels_last"])
def test_gradients_still_recorded(op, kind):
    nsp = 2 if op.endswith("2d") else 1
    a = np.round(np.random.default_rng(5).standard_normal((2, 3, 6, 6)[: nsp + 2]), 1).astype(np.float32)
    _, t, s = _layout(a, kind, nsp)
    t.requires_grad_(True)
    s.requires_grad_(True)
    want, got = getattr(TF, op)(t, 2), getattr(F, op)(s, 2)
    assert got.grad_fn is not None and got.grad_fn.name() == want.grad_fn.name()
    g = np.random.default_rng(6).standard_normal(tuple(want.shape)).astype(np.float32)
    want.backward(torch.from_numpy(g))
    got.backward(st.from_numpy(g))
    np.testing.assert_array_equal(np.asarray(s.grad.numpy()), t.grad.numpy())


def test_no_grad_input_requiring_grad_takes_no_record():
    x = st.randn(1, 1, 4, 4, requires_grad=True)
    with st.no_grad():
        y = F.max_pool2d(x, 2)
    assert y.grad_fn is None and not y.requires_grad


@pytest.mark.parametrize("op", ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d"])
def test_listeners_see_the_op(op):
    nsp = 2 if op.endswith("2d") else 1
    x = st.randn(*(1, 3, 4, 4)[: nsp + 2])
    with st.watch() as seen:
        y = getattr(F, op)(x, 2)
    assert [(s.name, s.kind) for s in seen.steps][-1] == (op, "compute")
    assert seen.steps[-1].output.shape == tuple(y.shape)


def test_fresh_path_declines_lookalike_arguments():
    """Arguments equal to the common call's but not of its types (a float or bool kernel, a NumPy
    int, a list) are never answered from another call's memoized plan: the fresh path declines
    them (the general path takes them)."""
    from strided.nn.functional import pooling

    x = st.randn(1, 1, 4, 4)
    if pool_windows() is not None:
        assert pooling._fresh_run(x, 2, 2, None, 0, 0) is not None  # (the plan for an int 2 is remembered)
        assert pooling._fresh_run(x, 2, 1, None, 0, 0) is not None
    for bad in (2.0, (2.0, 2), True, (True, 1), np.int64(2), [2, 2]):
        assert pooling._fresh_run(x, 2, bad, None, 0, 0) is None
        assert pooling._fresh_run(x, 2, 2, bad, 0, 0) is None
    with pytest.raises(TypeError):
        TF.max_pool2d(torch.zeros(1, 1, 4, 4), 2.0)


@pytest.mark.xfail(strict=True, reason="avg_pool2d of a channels-last input (C > 1) whose window holds NaNs of both "
                   "signs: which NaN word PyTorch's channels-last loop keeps follows its vector part's and scalar "
                   "tail's operand orders (by C modulo its vector width), not modelled; strided keeps the first")
def test_avg_pool_channels_last_two_nan_words_like_torch():
    a = np.zeros((1, 2, 1, 2))
    a[0, 1, 0] = [np.copysign(np.nan, 1), np.copysign(np.nan, -1)]
    t = torch.from_numpy(a).contiguous(memory_format=torch.channels_last)
    s = st.from_numpy(np.ascontiguousarray(a.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2))
    got, want = F.avg_pool2d(s, (1, 2), (1, 1)), TF.avg_pool2d(t, (1, 2), (1, 1))
    assert np.array_equal(_bits(_np_of(got)), _bits(want.numpy()))
