"""Hostile differential tests of session 33's surfaces (issue #23), against PyTorch 2.13.

Fixed here:

- the first-order gradient of ``elu`` / ``selu`` / ``celu`` at a NaN input: PyTorch's
  ``elu_backward`` gives ``g * scale`` where its loop runs the scalar function (a row's tail, a
  non-contiguous row, a 0-d input) and NaN in its vector lanes; strided gave NaN everywhere for
  elu and ``g * scale`` everywhere for selu / celu;
- the places of those lanes in every backward that has them (elu, selu, celu, hardswish,
  hardshrink, softshrink) follow the loop over both operands, the incoming gradient first: a
  transposed input with a row-major gradient runs no vector lane in PyTorch;
- ``binary_cross_entropy_with_logits(reduction="none")``'s layout is the target's (PyTorch
  computes in place into ``1 - target``), not the input's;
- ``huber_loss(reduction="none")``'s layout is ``empty_like`` of the (broadcast) input, as
  PyTorch's kernel writes it, also for an expanded input beside a permuted target.

Added: ``strided.selu_``, ``celu_``, ``threshold_``, ``relu_``, ``rrelu`` and ``rrelu_`` (torch's
top-level in-place functions and ``torch.rrelu``), each a spelling of the op its family module
declares.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import strided
import strided.nn.functional as F
from strided.kernels.torch_loops import torch_vector_bytes

_U = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(_U[a.dtype])


_NAN_GRAD_OPS = {
    "elu": (lambda x: F.elu(x, 0.5), lambda x: TF.elu(x, 0.5)),
    "selu": (F.selu, TF.selu),
    "celu": (lambda x: F.celu(x, 0.7), lambda x: TF.celu(x, 0.7)),
    "hardshrink": (F.hardshrink, TF.hardshrink),
    "softshrink": (lambda x: F.softshrink(x, 0.3), lambda x: TF.softshrink(x, 0.3)),
}


def _layouts(a: np.ndarray, n: int, layout: str, lib):
    t = lib.from_numpy(a.copy())
    if layout == "T":
        return t.reshape(2, n).T
    if layout == "step":
        return t[::2]
    return t[:n]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=hs.sampled_from(sorted(_NAN_GRAD_OPS)), dtype=hs.sampled_from(["float32", "float64"]),
       n=hs.integers(1, 80), layout=hs.sampled_from(["flat", "T", "step"]),
       grad=hs.sampled_from(["plain", "sum", "T"]), seed=hs.integers(0, 2**16))
def test_backward_at_nan_inputs_by_loop_place(name, dtype, n, layout, grad, seed, torch_threads_as_assumed) -> None:
    """The gradient at every NaN input, bit for bit (NaN words too), for flat runs of every
    length around the vector steps, transposed and stepped inputs, and incoming gradients that
    are row-major, expanded (``.sum().backward()``) or transposed."""
    fs, ft = _NAN_GRAD_OPS[name]
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(2 * n) * 3).astype(dtype)
    a[rng.random(2 * n) < 0.3] = np.nan
    a[rng.random(2 * n) < 0.1] = -np.nan
    if layout == "T" and n % 2:
        layout = "flat"
    s = _layouts(a, n, layout, strided).requires_grad_()
    t = _layouts(a, n, layout, torch).requires_grad_()
    ys, yt = fs(s), ft(t)
    if grad == "sum":
        ys.sum().backward()
        yt.sum().backward()
        gs, gt = s.grad, t.grad
    else:
        g = (rng.standard_normal(tuple(t.shape)) * 2).astype(dtype)
        g.ravel()[rng.random(g.size) < 0.2] = np.nan
        if grad == "T" and g.ndim == 2:
            g_s, g_t = strided.from_numpy(g.T.copy()).T, torch.from_numpy(g.T.copy()).T
        else:
            g_s, g_t = strided.from_numpy(g.copy()), torch.from_numpy(g.copy())
        (gs,) = strided.autograd.grad(ys, s, g_s)
        (gt,) = torch.autograd.grad(yt, t, g_t)
    nan = np.isnan(t.detach().numpy())
    assert np.array_equal(_bits(gs.numpy())[nan], _bits(gt.numpy())[nan])
    # (elsewhere within the ulps of exp: SLEEF's in PyTorch's lanes, the C library's here)
    np.testing.assert_allclose(gs.numpy(), gt.numpy(), rtol=1e-5, atol=0)


@pytest.mark.parametrize("name", ["elu", "selu", "celu"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_elu_family_nan_gradient_tail_and_lanes(name, dtype, torch_threads_as_assumed, request) -> None:
    """A row of 40: under AVX512 the first 32 (float64: 2 x 8 lanes x 2 steps) are vector lanes
    (NaN gradient), the rest the scalar function (``g * scale``): measured on both sides."""
    if dtype is torch.float64 and torch_vector_bytes() == 32:
        request.applymarker(pytest.mark.xfail(strict=True, reason=(
            "an AVX2 CPU: float64 elu/selu/celu gradients at NaN take PyTorch's AVX512 lanes in strided's model (2 x 8 doubles per step); its AVX2 build steps 2 x 4: the NaN gradient's places differ, not yet modelled")))
    fs, ft = _NAN_GRAD_OPS[name]
    a = np.linspace(-3, 3, 40)
    a[[0, 20, 39]] = np.nan
    t = torch.tensor(a, dtype=dtype, requires_grad=True)
    s = strided.tensor(a, dtype=getattr(strided, str(dtype).split(".")[1]), requires_grad=True)
    (gt,) = torch.autograd.grad(ft(t), t, torch.full((40,), 2.0, dtype=dtype))
    (gs,) = strided.autograd.grad(fs(s), s, strided.full((40,), 2.0, dtype=s.dtype))
    assert np.array_equal(_bits(gs.numpy())[[0, 20, 39]], _bits(gt.numpy())[[0, 20, 39]])
    assert np.isnan(gs.numpy()[0]) and not np.isnan(gs.numpy()[39])


_KINDS = ["c", "T", "s", "e"]


def _laid(kind: str, a: np.ndarray, lib):
    if kind == "c":
        return lib.from_numpy(a.copy())
    if kind == "T":
        return lib.from_numpy(np.ascontiguousarray(a.T)).T
    if kind == "s":
        b = np.zeros((a.shape[0], 2 * a.shape[1]))
        b[:, ::2] = a
        return lib.from_numpy(b)[:, ::2]
    return lib.from_numpy(a[:1].copy()).expand(*a.shape)


@pytest.mark.parametrize("input_kind", _KINDS)
@pytest.mark.parametrize("target_kind", _KINDS)
@pytest.mark.parametrize("extra", ["", "weight", "pos_weight"])
def test_bce_with_logits_unreduced_layout_is_the_targets(input_kind, target_kind, extra) -> None:
    rng = np.random.default_rng(1)
    x, y, w = rng.standard_normal((5, 4)), rng.random((5, 4)), rng.random(4) + 0.5
    ks = {extra: strided.from_numpy(w.copy())} if extra else {}
    kt = {extra: torch.from_numpy(w.copy())} if extra else {}
    for grad in (False, True):
        si, ti = _laid(input_kind, x, strided), _laid(input_kind, x, torch)
        if grad:
            si, ti = si.detach().requires_grad_(), ti.detach().requires_grad_()
        s = F.binary_cross_entropy_with_logits(si, _laid(target_kind, y, strided), reduction="none", **ks)
        t = TF.binary_cross_entropy_with_logits(ti, _laid(target_kind, y, torch), reduction="none", **kt)
        assert s.stride() == t.stride()
        np.testing.assert_allclose(s.detach().numpy(), t.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("input_kind", _KINDS)
@pytest.mark.parametrize("target_kind", _KINDS)
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_huber_unreduced_layout_is_empty_like_input(input_kind, target_kind, dtype) -> None:
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((5, 4)), rng.standard_normal((5, 4))
    si, ti = _laid(input_kind, x, strided).to(getattr(strided, dtype)), _laid(input_kind, x, torch).to(getattr(torch, dtype))
    st, tt = _laid(target_kind, y, strided).to(getattr(strided, dtype)), _laid(target_kind, y, torch).to(getattr(torch, dtype))
    s = F.huber_loss(si, st, reduction="none", delta=0.7)
    t = TF.huber_loss(ti, tt, reduction="none", delta=0.7)
    assert s.stride() == t.stride() and s.dtype == getattr(strided, dtype)
    np.testing.assert_array_equal(s.float().numpy(), t.float().numpy())


def test_huber_broadcast_input_layout_and_gradient() -> None:
    """A (1, 4) input against a transposed (5, 4) target: PyTorch broadcasts the input (its
    warning), whose empty_like is row-major; the gradient sums back over the broadcast."""
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((1, 4)), rng.standard_normal((4, 5))
    s = strided.from_numpy(a.copy()).requires_grad_()
    t = torch.from_numpy(a.copy()).requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ys = F.huber_loss(s.expand(5, 4), strided.from_numpy(b.copy()).T, reduction="none")
        yt = TF.huber_loss(t.expand(5, 4), torch.from_numpy(b.copy()).T, reduction="none")
    assert ys.stride() == yt.stride() == (4, 1)
    assert type(ys.grad_fn).__name__ == "HuberLossBackward0" or "HuberLossBackward0" in repr(ys.grad_fn)
    ys.sum().backward()
    yt.sum().backward()
    np.testing.assert_array_equal(s.grad.numpy(), t.grad.numpy())


# --- torch's top-level in-place activations and torch.rrelu --------------------------------------

_TOP_INPLACE = {
    "relu_": ((), ()),
    "selu_": ((), ()),
    "celu_": ((0.7,), (0.7,)),
    "threshold_": ((0.25, -2.0), (0.25, -2.0)),
    "rrelu_": ((0.1, 0.3), (0.1, 0.3)),
}


@pytest.mark.parametrize("name", sorted(_TOP_INPLACE))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["flat", "T", "step", "0-d"])
def test_top_level_inplace_functions_are_torchs(name, dtype, layout) -> None:
    args_s, args_t = _TOP_INPLACE[name]
    a = np.array([-3.0, -0.0, 0.0, 0.25, 1e-45, np.nan, -np.inf, np.inf, -0.5, 2.0, -1e30, 7.0], dtype)
    s, t = strided.from_numpy(a.copy()), torch.from_numpy(a.copy())
    if layout == "T":
        s, t = s.reshape(3, 4).T, t.reshape(3, 4).T
    elif layout == "step":
        s, t = s[::3], t[::3]
    elif layout == "0-d":
        s, t = s[0], t[0]
    rs = getattr(strided, name)(s, *args_s)
    rt = getattr(torch, name)(t, *args_t)
    assert rs is s and rt is t
    assert s.stride() == t.stride()
    assert np.array_equal(_bits(s.numpy()), _bits(t.numpy()))


@pytest.mark.parametrize("name", sorted(_TOP_INPLACE))
def test_top_level_inplace_functions_refuse_as_torch(name) -> None:
    args, _ = _TOP_INPLACE[name]
    for dtype in ("int64", "bool"):
        t, s = torch.ones(3, dtype=getattr(torch, dtype)), strided.ones(3, dtype=getattr(strided, dtype if dtype != "bool" else "bool_"))
        try:
            getattr(torch, name)(t, *args)
        except Exception as e:  # noqa: BLE001 - the class and first line are compared
            with pytest.raises(Exception) as info:
                getattr(strided, name)(s, *args)
            assert str(e).splitlines()[0] in str(info.value)
            assert isinstance(info.value, type(e)) or type(e).__name__ in [c.__name__ for c in type(info.value).__mro__]
        else:
            getattr(strided, name)(s, *args)
            assert np.array_equal(s.numpy(), t.numpy())
    leaf = strided.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        getattr(strided, name)(leaf, *args)


@pytest.mark.parametrize("name", sorted(_TOP_INPLACE))
def test_top_level_inplace_functions_in_the_graph(name) -> None:
    """On a non-leaf: the gradient through the written tensor is torch's (within rounding for
    selu_ and celu_: PyTorch's in-place forms record EluBackward1 / CeluBackward1, whose
    result-based formula strided does not take yet: a known strict xfail of test_attackb33.py)."""
    args, _ = _TOP_INPLACE[name]
    a = np.array([-3.0, -0.5, 0.1, 0.25, 2.0, 7.0])
    s = strided.from_numpy(a.copy()).requires_grad_()
    t = torch.from_numpy(a.copy()).requires_grad_()
    ys, yt = getattr(strided, name)(s * 1.5, *args), getattr(torch, name)(t * 1.5, *args)
    g = np.linspace(-1, 1, 6)
    (gs,) = strided.autograd.grad(ys, s, strided.from_numpy(g))
    (gt,) = torch.autograd.grad(yt, t, torch.from_numpy(g))
    np.testing.assert_allclose(gs.numpy(), gt.numpy(), rtol=1e-6 if name in ("celu_", "selu_") else 1e-15)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_torch_rrelu_evaluation_mode_is_torchs(dtype) -> None:
    a = np.array([-3.0, -0.0, 0.0, 1e-45, np.nan, -np.inf, np.inf, -0.5, 2.0], np.float32)
    t = torch.from_numpy(a).to(getattr(torch, dtype))
    s = strided.from_numpy(a).to(getattr(strided, dtype))
    for args in ((), (0.1, 0.3), (0.2, 0.2)):
        assert np.array_equal(strided.rrelu(s, *args).float().numpy(), torch.rrelu(t, *args).float().numpy(),
                              equal_nan=True)
        assert np.array_equal(strided.rrelu(s, *args, training=False).float().numpy(),
                              torch.rrelu(t, *args, training=False).float().numpy(), equal_nan=True)
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal to the upper bound"):
        strided.rrelu(s, 0.5, 0.1)
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal to the upper bound"):
        strided.rrelu(s, 0.5, 0.1, True)


def test_torch_rrelu_training_draws_slopes_in_bounds() -> None:
    a = np.concatenate([-np.linspace(0.5, 4.0, 200), np.linspace(0.0, 3.0, 50), [np.nan]])
    x = strided.from_numpy(a.copy())
    y = strided.rrelu(x, 0.1, 0.3, True)
    slope = y.numpy()[:200] / a[:200]
    assert (slope >= 0.1).all() and (slope < 0.3).all() and len(np.unique(slope)) > 100
    np.testing.assert_array_equal(y.numpy()[200:250], a[200:250])  # (x > 0: kept)
    assert np.isnan(y.numpy()[-1])
    # a generator makes the draws reproducible, and the default one is not touched
    y1 = strided.rrelu(x, 0.1, 0.3, True, strided.Generator().manual_seed(7))
    y2 = strided.rrelu(x, 0.1, 0.3, training=True, generator=strided.Generator().manual_seed(7))
    np.testing.assert_array_equal(y1.numpy(), y2.numpy())
    with pytest.raises(TypeError, match="argument 'generator' must be torch.Generator"):
        strided.rrelu(x, 0.1, 0.3, True, 3)
    # in place: the same draws, written into x; the gradient is the noise
    z = strided.from_numpy(a[:10].copy())
    assert strided.rrelu_(z, 0.1, 0.3, True, strided.Generator().manual_seed(7)) is z
    np.testing.assert_array_equal(z.numpy(), y1.numpy()[:10])
    w = strided.from_numpy(a[:10].copy()).requires_grad_()
    strided.rrelu(w, 0.1, 0.3, True, strided.Generator().manual_seed(7)).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), y1.numpy()[:10] / a[:10])
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        strided.rrelu(strided.ones(2, dtype=strided.int64), training=True)


def test_nn_functional_rrelu_unchanged_by_the_top_level_name() -> None:
    x = strided.tensor([-1.0, 2.0], dtype=strided.float64)
    assert F.rrelu(x, 0.1, 0.3).tolist() == [-0.2, 2.0]
    strided.manual_seed(5)
    y1 = F.rrelu(strided.full((50,), -1.0), training=True)
    strided.manual_seed(5)
    y2 = strided.rrelu(strided.full((50,), -1.0), training=True)
    np.testing.assert_array_equal(y1.numpy(), y2.numpy())
    z = strided.tensor([-1.0, 2.0], dtype=strided.float64)
    assert F.rrelu_(z, 0.1, 0.3) is z and z.tolist() == [-0.2, 2.0]


# --- clamp_ with number bounds: PyTorch names an integer target by its C++ type --------------------

_INT_DTYPES = ["int8", "uint8", "int16", "int32", "int64", "bool", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("dtype", _INT_DTYPES)
def test_clamp_inplace_number_bounds_refusal_names_the_cpp_type(dtype) -> None:
    calls = [lambda t: t.clamp_(-0.5, 0.25), lambda t: t.clamp_max_(0.5), lambda t: t.clamp_min_(0.5),
             lambda t: t.clamp_(min=0.5), lambda t: t.clamp_(-1, 2.5)]
    for call in calls:
        with pytest.raises(RuntimeError) as want:
            call(torch.ones(3, dtype=getattr(torch, dtype)))
        with pytest.raises(RuntimeError) as got:
            call(strided.ones(3, dtype=getattr(strided, dtype if dtype != "bool" else "bool_")))
        assert str(got.value).splitlines()[0] == str(want.value)
    # (a tensor bound: PyTorch's TensorIterator names it as the dtype, "Long")
    with pytest.raises(RuntimeError) as want:
        torch.ones(3, dtype=torch.int64).clamp_(min=torch.tensor(0.5))
    with pytest.raises(RuntimeError) as got:
        strided.ones(3, dtype=strided.int64).clamp_(min=strided.tensor(0.5))
    assert str(got.value).splitlines()[0] == str(want.value)


# --- found, not fixed here: strict xfails naming PyTorch's behaviour --------------------------------

# (was a strict xfail here; fixed by fix34: PyTorch's clamp meta takes out= the input itself as clamp_)
def test_clamp_out_aliasing_an_integer_input_refusal_text() -> None:
    t, s = torch.ones(3, dtype=torch.int64), strided.ones(3, dtype=strided.int64)
    with pytest.raises(RuntimeError) as want:
        torch.clamp(t, 0.5, out=t)
    with pytest.raises(RuntimeError) as got:
        strided.clamp(s, 0.5, out=s)
    assert str(got.value).splitlines()[0] == str(want.value)


def test_clamp_out_of_an_integer_tensor_refusal_text() -> None:
    """(a separate out=: PyTorch's unary op's exact-dtype check, as strided's)"""
    with pytest.raises(RuntimeError) as want:
        torch.clamp(torch.ones(3, dtype=torch.int64), 0.5, out=torch.ones(3, dtype=torch.int64))
    with pytest.raises(RuntimeError) as got:
        strided.clamp(strided.ones(3, dtype=strided.int64), 0.5, out=strided.ones(3, dtype=strided.int64))
    assert str(got.value).splitlines()[0] == str(want.value)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int64"])
@pytest.mark.parametrize("out_dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("shape, dim", [((4, 5), 1), ((7, 33), 1), ((33, 7), 0), ((5,), 0), ((3, 4, 6), (0, 2))])
def test_logsumexp_out_of_another_dtype_computes_in_the_outs(dtype, out_dtype, shape, dim) -> None:
    """PyTorch's logsumexp_out_impl sums (sum_out), logs and adds in the out's dtype (an integer
    input first made the default float): strided computed in the input's (float16 into float32:
    5e-4 relative). Now within the ulps of exp and log (SLEEF's and MKL's there)."""
    if dtype == out_dtype:
        return
    x = (np.random.default_rng(0).standard_normal(shape) * 4).astype(np.float32)
    x.ravel()[-1] = np.inf
    ulp = {"float32": 2.0**-23, "float64": 2.0**-52, "float16": 2.0**-10, "bfloat16": 2.0**-7, "int64": 2.0**-23}
    ot, os_ = torch.empty(0, dtype=getattr(torch, out_dtype)), strided.empty(0, dtype=getattr(strided, out_dtype))
    same = []
    for keepdim in (False, True):
        torch.logsumexp(torch.from_numpy(x).to(getattr(torch, dtype)), dim, keepdim, out=ot)
        strided.logsumexp(strided.from_numpy(x).to(getattr(strided, dtype)), dim, keepdim, out=os_)
        assert os_.shape == tuple(ot.shape) and os_.stride() == ot.stride()
        a, b = os_.to(strided.float64).numpy(), ot.double().numpy()
        # (an exp's ulp in the input's compute dtype moves a few sums: most elements are exact)
        np.testing.assert_allclose(a, b, rtol=2 * max(ulp[out_dtype], ulp[dtype]), atol=0)
        same.extend((a == b).ravel())
    assert np.mean(same) >= 0.6 or max(ulp[out_dtype], ulp[dtype]) == 2.0**-23


# (was a strict xfail here; fixed by xfb34: PyTorch's 'Expected floating point type for result tensor')
def test_logsumexp_integer_out_refusal_text() -> None:
    with pytest.raises(RuntimeError) as want:
        torch.logsumexp(torch.ones(2, 3), 1, out=torch.empty(0, dtype=torch.int64))
    with pytest.raises(RuntimeError) as got:
        strided.logsumexp(strided.ones(2, 3), 1, out=strided.empty(0, dtype=strided.int64))
    assert str(got.value).splitlines()[0] == str(want.value)


# (was a strict xfail here; fixed by fix34: PyTorch's '"std_cpu" not implemented for 'ComplexFloat'')
@pytest.mark.parametrize("op", ["std", "var"])
def test_std_var_complex_out_refused(op) -> None:
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
        getattr(torch, op)(torch.ones(3, 4), 1, out=torch.empty(0, dtype=torch.complex64))
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
        getattr(strided, op)(strided.ones(3, 4), 1, out=strided.empty(0, dtype=strided.complex64))


# (was a strict xfail here; fixed by xf35: the recorded backward takes g at the NaNs where PyTorch's
# backward kernel runs its scalar function, torch_lanes.scalar_nans)
@pytest.mark.parametrize("name", sorted(_NAN_GRAD_OPS))
def test_create_graph_gradient_at_nan_inputs(name) -> None:
    fs, ft = _NAN_GRAD_OPS[name]
    a = np.array([np.nan, -1.0, 2.0])  # (3 elements: PyTorch's scalar function for each)
    s = strided.from_numpy(a.copy()).requires_grad_()
    t = torch.from_numpy(a.copy()).requires_grad_()
    (gs,) = strided.autograd.grad(fs(s), s, strided.ones(3, dtype=strided.float64), create_graph=True)
    (gt,) = torch.autograd.grad(ft(t), t, torch.ones(3, dtype=torch.float64), create_graph=True)
    assert np.array_equal(gs.detach().numpy(), gt.detach().numpy(), equal_nan=True)
