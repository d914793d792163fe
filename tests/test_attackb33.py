"""Hostile tests of session 33's merged fast paths and conversions (issue #23), differential
against PyTorch 2.13: the non-dense path of ``torch_loop`` (every strided sigmoid / silu / elu /
selu / celu on a non-dense input, bit for bit, layouts drawn by hypothesis and long runs past the
parallel grain), ``clamp_`` / ``clamp_min_`` / ``clamp_max_``'s direct in-place entry (signed
zeros, NaN, bounds that round, version counts, autograd and inference refusals), ``t ** 2``,
bfloat16 conversions' words (ties, overflow, subnormals, NaN words) through ``to``, ``copy_`` into
strided destinations and ``out=`` with resizing, glu past the grain, and the new activations'
in-place forms on tensors in the graph.

Findings kept as strict xfails (not fixed here): hardsigmoid / hardswish NaN words in PyTorch's
vector lanes, and the in-place celu's gradient on a tensor in the graph (PyTorch's result-based
formula). Fixed here: ``F.rrelu(x, lower, upper, inplace=True)`` in evaluation mode on a tensor
in the graph used the slope ``((lower + upper) / 2 + 1/3) / 2``; ``sigmoid(x, out=o)`` of a
row-major ``x`` into an ``o`` laid out otherwise (transposed, stepped) ordered the loop by ``x``
alone (other elements through the scalar function than PyTorch's). Older than session 33: the
losses' mean of no elements (NaN sign: fixed after, PyTorch's 0 / 0); kept as a strict xfail: a 0-d
tensor's norm over an explicit dim.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided
import strided.nn as snn
import strided.nn.functional as F
from layout_strategies import specs

_UINT = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64, np.dtype(np.float16): np.uint16}


def _bits(a) -> np.ndarray:
    a = np.ascontiguousarray(a.detach().numpy() if hasattr(a, "detach") else a)
    return a.view(_UINT[a.dtype])


def _same(s, t) -> None:
    """shape, strides, dtype and every bit (NaN words too)."""
    assert tuple(s.shape) == tuple(t.shape)
    assert tuple(s.stride()) == tuple(t.stride()), (s.stride(), t.stride())
    a, b = s.detach().numpy(), t.detach().numpy()
    assert a.dtype == b.dtype
    assert np.array_equal(_bits(a), _bits(b)), (a[_bits(a) != _bits(b)], b[_bits(a) != _bits(b)])


def _pair(x: np.ndarray):
    return strided.from_numpy(x.copy()), torch.from_numpy(x.copy())


_SPECIAL = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 88.7, -88.7, 100.0, -100.0, 0.5, -0.5]

_LOOP_OPS = {
    "sigmoid": (strided.sigmoid, torch.sigmoid),
    "silu": (F.silu, TF.silu),
    "elu": (F.elu, TF.elu),
    "selu": (F.selu, TF.selu),
    "celu": (lambda x: F.celu(x, 0.7), lambda x: TF.celu(x, 0.7)),
}


# --- torch_loop's non-dense path (glu33): every strided sigmoid / silu / elu ---------------------

@settings(max_examples=80, deadline=None)
@given(spec=specs(max_dims=4, max_size=7), name=hs.sampled_from(sorted(_LOOP_OPS)),
       dtype=hs.sampled_from(["float32", "float64"]), seed=hs.integers(0, 2**16))
def test_loop_ops_on_hard_layouts_bit_equal(spec, name: str, dtype: str, seed: int) -> None:
    """(At most 7**4 elements: below PyTorch's parallel grain, its thread count does not matter.)"""
    size, shape, strides, offset = spec
    rng = np.random.default_rng(seed)
    base = (rng.standard_normal(max(size, 1)) * 6).astype(dtype)
    k = min(base.size, 4)
    base[rng.choice(base.size, k, replace=False)] = rng.choice(_SPECIAL, k)
    s = strided.from_numpy(base.copy()).as_strided(shape, strides, offset)
    t = torch.from_numpy(base.copy()).as_strided(shape, strides, offset)
    fs, ft = _LOOP_OPS[name]
    _same(fs(s), ft(t))


@pytest.mark.parametrize("name", sorted(_LOOP_OPS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["step", "slice", "T", "Tslice", "perm_step", "col"])
def test_loop_ops_non_dense_past_the_grain_bit_equal(torch_threads_as_assumed: None, name: str, dtype, layout: str) -> None:
    """Rows cut at the parallel chunks (shapes of more than 32768 elements) and the vector tails."""
    rng = np.random.default_rng(7)
    shape = (301, 257)
    base = (rng.standard_normal(4 * 301 * 257) * 6).astype(dtype)
    base[::97] = np.nan
    s0, t0 = _pair(base)
    views = {
        "step": lambda b: b[: 2 * 301 * 257].view(602, 257)[::2],
        "slice": lambda b: b.view(602, 514)[1:302, 3:260],
        "T": lambda b: b[: 301 * 257].view(shape).T,
        "Tslice": lambda b: b.view(602, 514)[5:306, :257].T,
        "perm_step": lambda b: b.view(602, 514)[1::2, 1::2].T,
        "col": lambda b: b.view(602, 514)[:, 100:101].expand(602, 70),
    }
    fs, ft = _LOOP_OPS[name]
    _same(fs(views[layout](s0)), ft(views[layout](t0)))


@pytest.mark.parametrize("name", ["sigmoid", "silu", "elu"])
def test_loop_ops_out_and_inplace_on_strided_targets(torch_threads_as_assumed: None, name: str) -> None:
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((40, 70)) * 6).astype(np.float32)
    x[::3, ::7] = -np.nan
    s, t = _pair(x)
    inplace = {"sigmoid": ("sigmoid_", None), "silu": (None, F.silu), "elu": (None, F.elu)}[name]
    sv, tv = s.T[::2], t.T[::2]
    if inplace[0]:
        getattr(sv, inplace[0])()
        getattr(tv, inplace[0])()
    else:
        inplace[1](sv, inplace=True)
        getattr(TF, name)(tv, inplace=True)
    _same(s, t)
    assert s._version == t._version
    if name == "sigmoid":
        so = strided.empty((70, 40)).T
        to = torch.empty((70, 40)).T
        strided.sigmoid(s[:, ::1], out=so)
        torch.sigmoid(t[:, ::1], out=to)
        _same(so, to)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,out_layout", [((40, 70), "T"), ((40, 70), "Tstep"), ((301, 257), "T"), ((70,), "step"),
                                              ((40000,), "step"), ((40, 70), "C")])
def test_sigmoid_out_laid_out_otherwise_than_a_row_major_input(torch_threads_as_assumed: None, dtype, shape,
                                                              out_layout: str) -> None:
    """Fixed: torch_loop took a row-major input as one row whatever ``out``'s strides, which order
    PyTorch's loop (a transposed ``out=``: other rows, other elements through the scalar function)."""
    rng = np.random.default_rng(13)
    x = (rng.standard_normal(shape) * 6).astype(dtype)
    x.reshape(-1)[::17] = -np.nan
    s, t = _pair(x)
    mk = {"T": lambda L, d: L.empty(shape[::-1], dtype=d).T,
          "Tstep": lambda L, d: L.empty((shape[1], 2 * shape[0]), dtype=d).T[::2],
          "step": lambda L, d: L.empty(2 * shape[0], dtype=d)[::2],
          "C": lambda L, d: L.empty(shape, dtype=d)}[out_layout]
    so = mk(strided, strided.float32 if dtype == np.float32 else strided.float64)
    to = mk(torch, torch.float32 if dtype == np.float32 else torch.float64)
    strided.sigmoid(s, out=so)
    torch.sigmoid(t, out=to)
    _same(so, to)
    assert so._version == to._version


# --- clamp_'s direct in-place entry (small33) -----------------------------------------------------

_BOUNDS = [(0.0, None), (-0.0, None), (None, 0.0), (None, -0.0), (0.1, 0.2), (0.2, 0.1), (1, 2), (-0.0, 0.0),
           (0.0, -0.0), (-16777216, 16777216), (3.4028234663852886e38, None), (0.30000001192092896, None), (1e38, 1e-38)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 15, 16, 17, 33, 100])
def test_clamp_inplace_direct_bits_and_versions(dtype, n: int) -> None:
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 2).astype(dtype)
    x[: min(n, len(_SPECIAL))] = np.array(_SPECIAL, dtype)[: min(n, len(_SPECIAL))]
    for lo, hi in _BOUNDS:
        for form in ("pos", "kw", "min_", "max_"):
            if (form == "min_" and (lo is None or hi is not None)) or (form == "max_" and (hi is None or lo is not None)):
                continue
            s, t = _pair(x)
            sv, tv = s[n // 3:], t[n // 3:]  # (an offset view: the base's memory and version)
            if form == "pos":
                r1, r2 = sv.clamp_(lo, hi), tv.clamp_(lo, hi)
            elif form == "kw":
                r1, r2 = sv.clamp_(min=lo, max=hi), tv.clamp_(min=lo, max=hi)
            elif form == "min_":
                r1, r2 = sv.clamp_min_(lo), tv.clamp_min_(lo)
            else:
                r1, r2 = sv.clamp_max_(hi), tv.clamp_max_(hi)
            assert r1 is sv and r2 is tv
            _same(s, t)
            assert (s._version, sv._version) == (t._version, tv._version)


def _outcome(lib, f):
    try:
        return ("ok", f(lib))
    except Exception as e:  # noqa: BLE001  (the class's name and the first line compared)
        return (type(e).__name__.replace("Strided", "").replace("OverlapWrite", "Runtime"), str(e).split("\n")[0])


def _clamp_leaf(L):
    return L.ones(4, requires_grad=True).clamp_(0.0, 1.0)


def _clamp_leaf_view(L):
    return L.ones(4, requires_grad=True)[1:3].clamp_min_(0.5)


def _clamp_no_grad_leaf(L):
    w = L.ones(4, requires_grad=True)
    with L.no_grad():
        w.clamp_(0.0, 0.5)
        w[1:3].clamp_max_(0.25)
    return (w._version, w.detach().tolist(), w.requires_grad, w.grad_fn)


def _clamp_saved(L):
    x = L.full((4,), 0.7, requires_grad=True)
    y = x * 1.0
    z = y ** 2
    with L.no_grad():
        y.clamp_(0.0, 0.5)
    z.sum().backward()
    return x.grad.tolist()


def _clamp_inference_outside(L):
    with L.inference_mode():
        t = L.ones(4)
    L.ones(1, requires_grad=True).sum().backward()
    with L.no_grad():
        t.clamp_(0.0, 0.5)
    return t.tolist()


def _clamp_expanded(L):
    return L.ones(4).expand(3, 4).clamp_(0.0, 0.5)


def _clamp_int(L):
    return L.arange(6).clamp_(1.5, 3.5)


@pytest.mark.parametrize("case", [_clamp_leaf, _clamp_leaf_view, _clamp_no_grad_leaf, _clamp_saved,
                                  _clamp_inference_outside, _clamp_expanded, _clamp_int])
def test_clamp_inplace_refusals_and_autograd_as_torch(case) -> None:
    a, b = _outcome(strided, case), _outcome(torch, case)
    assert a[0] == b[0]
    if a[0] == "ok":
        assert a == b
    else:
        # (strided names the dtype Long where PyTorch's message says long int)
        assert a[1].replace("Long", "long int") == b[1] or a[1].split(":")[0] == b[1].split(":")[0], (a, b)


# --- t ** 2 (small33) ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4), (2, 3, 5)])
def test_square_fast_path_bits_strides_grads(dtype, shape) -> None:
    rng = np.random.default_rng(3)
    n = int(np.prod(shape))
    x = (rng.standard_normal(n) * 1e20).astype(dtype)
    x[: min(n, 6)] = np.array([np.nan, -0.0, np.inf, 1e-45, -3e38, 2.0], dtype)[: min(n, 6)]
    x = x.reshape(shape)
    s, t = _pair(x)
    for e in (2, 2.0):
        _same(s ** e, t ** e)
        _same(s.mT ** e if len(shape) >= 2 else s[...] ** e, t.mT ** e if len(shape) >= 2 else t[...] ** e)
    s2, t2 = _pair(x)
    s2.requires_grad_()
    t2.requires_grad_()
    ys, yt = s2 ** 2, t2 ** 2
    _same(ys, yt)
    assert repr(ys.grad_fn).split()[0].lstrip("<") == type(yt.grad_fn).__name__
    ys.sum().backward()
    yt.sum().backward()
    _same(s2.grad, t2.grad)


# --- bfloat16 conversions (nan33) ----------------------------------------------------------------

def _words(x) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        return x.contiguous().view(torch.int16).numpy().view(np.uint16)
    return np.ascontiguousarray(x.contiguous().view(strided.int16).numpy()).view(np.uint16)


def _bf16_source(n: int, dtype, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    m = max(n, 48)
    x = rng.integers(0, 2**32, m, dtype=np.uint64).astype(np.uint32).view(np.float32).astype(np.float64)
    k = m // 4
    x[:k] = ((rng.integers(0, 2**16, k).astype(np.uint32) << 16) | 0x8000).view(np.float32)  # (ties)
    x[k:k + 5] = [3.3895313892515355e38, 3.39e38, 1e39, -1e39, 1e-40]
    if dtype == np.float64:
        x[k + 5:k + 10] = [1.0 + 2**-8, 1.0 + 2**-8 + 2**-40, 1.0 + 2**-8 - 2**-40, 3.3961e38, 1e-320]
        x[k + 10:k + 13] = np.array([0x7FF0000000000001, 0xFFF8000000000123, 0x7FF4000000000000], np.uint64).view(np.float64)
    rng.shuffle(x)
    with np.errstate(all="ignore"):
        return x[:n].astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 16, 17, 100, 40000])
def test_bf16_words_to_copy_setitem_out(torch_threads_as_assumed: None, dtype, n: int) -> None:
    x = _bf16_source(n, dtype, n)
    s, t = _pair(x)
    assert np.array_equal(_words(s.to(strided.bfloat16)), _words(t.to(torch.bfloat16)))
    assert np.array_equal(_words(s[::3].to(strided.bfloat16)), _words(t[::3].to(torch.bfloat16)))
    assert np.array_equal(_words(strided.tensor(x, dtype=strided.bfloat16)), _words(torch.tensor(x, dtype=torch.bfloat16)))
    if n % 4:
        return
    shape = (n // 4, 4)
    s2, t2 = s.view(*shape), t.view(*shape)
    ds, dt = strided.empty(shape[::-1], dtype=strided.bfloat16).T, torch.empty(shape[::-1], dtype=torch.bfloat16).T
    ds.copy_(s2)
    dt.copy_(t2)
    assert np.array_equal(_words(ds), _words(dt))
    ds, dt = strided.zeros(shape[0], 8, dtype=strided.bfloat16), torch.zeros(shape[0], 8, dtype=torch.bfloat16)
    ds[:, ::2] = s2
    dt[:, ::2] = t2
    ds[:, 1::2].copy_(s2[:1])
    dt[:, 1::2].copy_(t2[:1])
    assert np.array_equal(_words(ds), _words(dt))
    os_, ot = strided.empty(3, dtype=strided.bfloat16), torch.empty(3, dtype=torch.bfloat16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        strided.add(s2, s2, out=os_)
        torch.add(t2, t2, out=ot)
    assert tuple(os_.shape) == tuple(ot.shape) and os_.stride() == ot.stride()
    assert np.array_equal(_words(os_), _words(ot))
    os_, ot = strided.empty(0, dtype=strided.bfloat16), torch.empty(0, dtype=torch.bfloat16)
    strided.stack([s2, s2.T.contiguous().T], 1, out=os_)
    torch.stack([t2, t2.T.contiguous().T], 1, out=ot)
    assert np.array_equal(_words(os_), _words(ot))


def test_bf16_copy_into_expanded_destination_refused_as_torch() -> None:
    x = _bf16_source(8, np.float32, 1)
    s, t = _pair(x)
    a = _outcome(strided, lambda L: L.empty(1, dtype=L.bfloat16).expand(8).copy_(s if L is strided else t))
    b = _outcome(torch, lambda L: L.empty(1, dtype=L.bfloat16).expand(8).copy_(s if L is strided else t))
    assert a == b


# --- glu past the grain (glu33) ------------------------------------------------------------------

@pytest.mark.parametrize("shape,dim", [((2, 32768), -1), ((65536, 2), 1), ((3, 2, 11000), 1), ((5, 40000), 1),
                                       ((16385, 2), 1), ((7, 9364), 1)])
def test_glu_rows_past_the_grain_bit_equal(torch_threads_as_assumed: None, shape, dim: int) -> None:
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(shape) * 5).astype(np.float32)
    x.reshape(-1)[::101] = np.inf
    x.reshape(-1)[::103] = -100.0
    s, t = _pair(x)
    _same(F.glu(s, dim), TF.glu(t, dim))


# --- the new activations' in-place forms on tensors in the graph (act33) -------------------------

def _rrelu_inplace_graph(L, FF, view: bool, how: str):
    x = L.tensor([1.0, -2.0, 5.0, -0.5, 0.25], requires_grad=True)
    z = x * 2
    v = z[1:4] if view else z
    if how == "F":
        FF.rrelu(v, 0.1, 0.3, False, True)
    elif how == "F_":
        FF.rrelu_(v, 0.1, 0.3)
    else:
        (snn if L is strided else torch.nn).RReLU(0.1, 0.3, inplace=True).eval()(v)
    (z * L.tensor([1.0, 10.0, 100.0, 1000.0, 3.0])).sum().backward()
    return z, x.grad


@pytest.mark.parametrize("how", ["F", "F_", "module"])
@pytest.mark.parametrize("view", [False, True])
def test_rrelu_inplace_eval_on_a_tensor_in_the_graph(how: str, view: bool) -> None:
    """Fixed: the graph's path called the entry with the slope as ``lower`` (upper 1/3)."""
    zs, gs = _rrelu_inplace_graph(strided, F, view, how)
    zt, gt = _rrelu_inplace_graph(torch, TF, view, how)
    _same(zs, zt)
    _same(gs, gt)


def test_rrelu_inplace_eval_outside_the_graph_unchanged() -> None:
    x = np.array([1.0, -2.0, 5.0, -0.5], np.float32)
    s, t = _pair(x)
    F.rrelu_(s, 0.1, 0.3)
    TF.rrelu_(t, 0.1, 0.3)
    _same(s, t)
    assert s._version == t._version


@pytest.mark.parametrize("name,dtype,n", [("hardsigmoid", np.float32, 16), ("hardsigmoid", np.float64, 8),
                                          ("hardswish", np.float32, 32), ("hardswish", np.float64, 16)])
def test_hard_activations_nan_words(name: str, dtype, n: int) -> None:
    s, t = _pair(np.full(n, np.nan, dtype))
    _same(getattr(F, name)(s), getattr(TF, name)(t))


def test_celu_inplace_in_graph_gradient_bits() -> None:
    def run(L, FF):
        x = L.tensor([1.0, -2.0, 5.0, -0.5, 0.05], requires_grad=True)
        z = x * 2
        FF.celu(z[1:4], 0.3, inplace=True)
        (z * L.tensor([1.0, 10.0, 100.0, 1000.0, 3.0])).sum().backward()
        return x.grad
    _same(run(strided, F), run(torch, TF))


# --- found on the way, older than session 33 (main gives the same) -------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(0,), (3, 0)])
@pytest.mark.parametrize("name", ["mse_loss", "smooth_l1_loss", "binary_cross_entropy_with_logits", "l1_loss",
                                  "binary_cross_entropy", "huber_loss", "soft_margin_loss"])
def test_loss_mean_of_nothing_nan_word(name: str, shape: tuple, dtype: type) -> None:
    # (the mean of no elements is PyTorch's 0 / 0: the platform's default NaN, sign set on x86;
    # it was +NaN (0x7FC00000) in mse / smooth_l1 / bce_with_logits)
    s, t = _pair(np.zeros(shape, dtype))
    _same(getattr(F, name)(s, s), getattr(TF, name)(t, t))


@pytest.mark.parametrize("v,p", [(1e38, 2), (1e-45, 3)])
def test_zero_dim_norm_over_dim(v: float, p: int) -> None:
    # (a 0-d tensor's norm over an explicit dim: PyTorch computes the plain formula, 1e38 ** 2
    # overflows to inf; it was |x|. tests/test_xfb34.py covers the orders, dtypes and entries)
    s, t = strided.tensor(v), torch.tensor(v)
    _same(s.norm(p, 0), t.norm(p, 0))
