"""The activations added in session 33 against PyTorch: ``relu6``, ``selu``, ``celu``,
``hardsigmoid``, ``hardswish``, ``mish``, ``threshold``, ``rrelu``, ``logsigmoid``, ``softsign``,
``tanhshrink``, ``softshrink``, ``hardshrink`` — values (bits where strided computes PyTorch's
kernel, a bound in ulps where it cannot), result strides over contiguous, transposed, stepped,
expanded, 0-d and empty inputs, gradients and second derivatives (float64,
``create_graph=True``), the in-place forms (``_version``, aliasing, autograd's refusals), the
errors (class and first line), the ``torch.*`` / ``Tensor`` spellings, the registry entries and
the ``nn`` modules (repr, forward)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided
import strided.nn as snn
import strided.nn.functional as SF
from layout_strategies import specs
from oracle_helpers import op_records
from strided.opdef import OPDEFS
from strided.ops.table import OPS

# name -> (args after the input, exact: strided computes PyTorch's kernel bit for bit in
# float32/float64, else the bound in ulps of the float32 / float64 result)
CASES: dict[str, tuple[tuple, int]] = {
    "relu6": ((), 0),
    "hardsigmoid": ((), 0),
    "hardswish": ((), 0),
    "hardshrink": ((), 0),
    "hardshrink-1.25": ((1.25,), 0),
    "softshrink": ((), 0),
    "softshrink-1.25": ((1.25,), 0),
    "threshold": ((0.1, 20.0), 0),
    "threshold-neg": ((-1.0, -7.5), 0),
    "selu": ((), 0),
    "celu": ((), 0),
    "celu-2": ((2.0,), 0),
    "celu-0.3": ((0.3,), 0),
    "rrelu": ((), 0),
    "rrelu-0.1-0.3": ((0.1, 0.3), 0),
    "softsign": ((), 0),
    # (strided's tanh is not MKL's vmsTanh, PyTorch's: see strided.kernels.sleef; x - tanh(x) cancels)
    "tanhshrink": ((), -1),
    # (NumPy's log1p and tanh where PyTorch's vectorized loop takes SLEEF's)
    "mish": ((), 8),
    "logsigmoid": ((), 4),
}


def _fn(lib, name: str):
    F = TF if lib is torch else SF
    return getattr(F, name.split("-")[0])


def _values(dtype: np.dtype, n: int = 1000, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 4).astype(dtype)
    special = [np.nan, np.inf, -np.inf, -0.0, 0.0, 3.0, -3.0, 0.5, -0.5, 1.25, -1.25, 0.1, -1.0, 6.0, 1e-30, -1e-30,
               -200.0, 200.0, 25.0, -25.0]
    x[: len(special)] = special
    return x


def _layouts(x: np.ndarray) -> dict[str, tuple]:
    """(torch tensor, strided tensor) pairs of the same layout over the same values."""
    def both(make):
        return make(torch.from_numpy(x.copy())), make(strided.tensor(x.copy()))

    return {
        "flat": both(lambda t: t),
        "short": both(lambda t: t[:37]),
        "transposed": both(lambda t: t[:990].reshape(30, 33).t()),
        "stepped": both(lambda t: t[::3]),
        "negcols": both(lambda t: t[:990].reshape(33, 30)[:, 1::2]),
        "expanded": both(lambda t: t[:7].reshape(7, 1).expand(7, 5)),
        "scalar": both(lambda t: t[3].clone()),
        "scalar-neg": both(lambda t: t[12].clone()),
        "empty": both(lambda t: t[:0].reshape(0, 4)),
    }


def _ulps(a: np.ndarray, b: np.ndarray) -> float:
    """The largest distance between ``a`` and ``b`` in ulps of ``b`` (NaN where both are NaN: 0)."""
    spacing = np.spacing(np.abs(b)).astype(np.float64)  # (in b's own dtype)
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    if same.all():
        return 0.0
    with np.errstate(all="ignore"):
        return float(np.max(np.where(same, 0.0, np.abs(a - b) / spacing)))


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


@pytest.mark.parametrize("layout", ["flat", "short", "transposed", "stepped", "negcols", "expanded", "scalar",
                                    "scalar-neg", "empty"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(CASES))
def test_values_and_strides_match_torch(name: str, dtype: np.dtype, layout: str) -> None:
    args, ulps = CASES[name]
    t, s = _layouts(_values(dtype))[layout]
    with np.errstate(all="ignore"):
        tr = _fn(torch, name)(t, *args)
        sr = _fn(strided, name)(s, *args)
    assert sr.shape == tuple(tr.shape)
    assert sr.dtype.name == str(tr.dtype).removeprefix("torch.")
    assert sr.stride() == tr.stride(), (sr.stride(), tr.stride())
    a, b = sr.numpy(), tr.numpy()
    assert np.array_equal(np.isnan(a), np.isnan(b))
    if ulps == 0:
        ok = ~np.isnan(b)
        assert np.array_equal(_bits(a)[ok], _bits(b)[ok]), (a[_bits(a) != _bits(b)], b[_bits(a) != _bits(b)])
    elif ulps > 0:
        assert _ulps(a, b) <= ulps
    else:  # (a composition over strided's tanh: its own values, within tanh's ulp of the input)
        np.testing.assert_allclose(a, b, rtol=4 * np.finfo(dtype).eps, atol=4 * np.finfo(dtype).eps, equal_nan=True)


def test_exact_cases_are_bit_equal_on_a_long_run_that_crosses_vector_blocks(torch_threads_as_assumed: None) -> None:
    # (70001 elements: past PyTorch's parallel grain, so its chunks' scalar tails count too)
    for dtype in (np.float32, np.float64):
        x = _values(dtype, 70001, seed=3)
        for name, (args, ulps) in CASES.items():
            if ulps:
                continue
            with np.errstate(all="ignore"):
                a = _fn(strided, name)(strided.tensor(x), *args).numpy()
            b = _fn(torch, name)(torch.from_numpy(x), *args).numpy()
            ok = ~np.isnan(b)
            assert np.array_equal(np.isnan(a), np.isnan(b)), name
            assert np.array_equal(_bits(a)[ok], _bits(b)[ok]), name


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", list(CASES))
def test_half_precision_inputs(name: str, dtype: str) -> None:
    args, _ = CASES[name]
    x = _values(np.float32, 300)
    t = torch.from_numpy(x).to(getattr(torch, dtype))
    s = strided.tensor(x).to(getattr(strided, dtype))
    tr = _fn(torch, name)(t, *args)
    sr = _fn(strided, name)(s, *args)
    assert sr.dtype.name == dtype
    a, b = sr.float().numpy(), tr.float().numpy()
    # (computed in float32 and rounded once, as PyTorch: within one ulp of the half result)
    eps = 2.0 ** -10 if dtype == "float16" else 2.0 ** -7
    np.testing.assert_allclose(a, b, rtol=eps, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("number", [0.10003, 0.1002, 0.1003, 0.1005, 0.1, 0.1001])
def test_half_inputs_meet_the_parameter_as_torch_rounds_it(dtype: str, number: float) -> None:
    # (an element equal to the parameter rounded to the dtype, but above the float parameter:
    # hardshrink rounds lambd to the dtype, softshrink and threshold compare with the float)
    x = torch.tensor([number, -number], dtype=torch.float32).to(getattr(torch, dtype))
    s = strided.tensor(x.float().numpy()).to(getattr(strided, dtype))
    assert SF.threshold(s, number, 20.0).float().tolist() == TF.threshold(x, number, 20.0).float().tolist()
    assert SF.hardshrink(s, number).float().tolist() == TF.hardshrink(x, number).float().tolist()
    assert SF.softshrink(s, number).float().tolist() == TF.softshrink(x, number).float().tolist()


# --- gradients ------------------------------------------------------------------------------------

GRAD_CASES = [n for n in CASES]


def _smooth_points(name: str) -> np.ndarray:
    """float64 points away from every kink (0, +-3, +-lambd, the thresholds, 6)."""
    rng = np.random.default_rng(1)
    x = rng.uniform(-7, 7, 400)
    kinks = np.array([0.0, 3.0, -3.0, 0.5, -0.5, 1.25, -1.25, 0.1, -1.0, 6.0])
    far = np.min(np.abs(x[:, None] - kinks[None, :]), axis=1) > 1e-3
    return x[far]


@pytest.mark.parametrize("name", GRAD_CASES)
def test_gradients_and_second_derivatives_match_torch(name: str) -> None:
    args, _ = CASES[name]
    x = _smooth_points(name)
    g = np.random.default_rng(2).standard_normal(x.shape)
    v = np.random.default_rng(4).standard_normal(x.shape)
    tx = torch.tensor(x, requires_grad=True)
    tg = torch.tensor(g, requires_grad=True)
    sx = strided.tensor(x, requires_grad=True)
    sg = strided.tensor(g, requires_grad=True)
    ty = _fn(torch, name)(tx, *args)
    sy = _fn(strided, name)(sx, *args)
    (tdx,) = torch.autograd.grad(ty, tx, tg, create_graph=True)
    (sdx,) = strided.autograd.grad(sy, sx, sg, create_graph=True)
    np.testing.assert_allclose(sdx.detach().numpy(), tdx.detach().numpy(), rtol=1e-13, atol=1e-14)
    # first order without create_graph (the fused NumPy pass)
    (sdx1,) = strided.autograd.grad(_fn(strided, name)(sx, *args), sx, sg.detach())
    np.testing.assert_allclose(sdx1.numpy(), tdx.detach().numpy(), rtol=1e-13, atol=1e-14)
    if name == "hardsigmoid":  # (PyTorch has no derivative of hardsigmoid_backward)
        with pytest.raises(RuntimeError) as t_info:
            torch.autograd.grad((tdx * torch.tensor(v)).sum(), (tx, tg))
        with pytest.raises(RuntimeError) as s_info:
            strided.autograd.grad((sdx * strided.tensor(v)).sum(), (sx, sg))
        assert str(s_info.value).splitlines()[0] == str(t_info.value).splitlines()[0]
        return
    tgx, tgg = torch.autograd.grad((tdx * torch.tensor(v)).sum(), (tx, tg), allow_unused=True)
    sgx, sgg = strided.autograd.grad((sdx * strided.tensor(v)).sum(), (sx, sg), allow_unused=True)
    np.testing.assert_allclose(sgg.numpy(), tgg.numpy(), rtol=1e-13, atol=1e-14)
    t_gx = np.zeros_like(x) if tgx is None else tgx.numpy()
    s_gx = np.zeros_like(x) if sgx is None else sgx.numpy()
    np.testing.assert_allclose(s_gx, t_gx, rtol=1e-12, atol=1e-13)


def test_hardsigmoid_gradient_is_grad_times_the_float_one_sixth_as_torch() -> None:
    x = torch.randn(500, dtype=torch.float64, requires_grad=True)
    g = torch.randn(500, dtype=torch.float64)
    (tdx,) = torch.autograd.grad(TF.hardsigmoid(x), x, g)
    sx = strided.tensor(x.detach().numpy(), requires_grad=True)
    (sdx,) = strided.autograd.grad(SF.hardsigmoid(sx), sx, strided.tensor(g.numpy()))
    assert np.array_equal(sdx.numpy(), tdx.numpy())


@pytest.mark.parametrize("name, node", [
    ("hardsigmoid", "HardsigmoidBackward0"), ("hardswish", "HardswishBackward0"),
    ("hardshrink", "HardshrinkBackward0"), ("softshrink", "SoftshrinkBackward0"),
    ("selu", "EluBackward0"), ("celu", "CeluBackward0"), ("mish", "MishBackward0"),
    ("logsigmoid", "LogSigmoidBackward0"), ("rrelu", "RreluWithNoiseBackward0"), ("relu6", "HardtanhBackward0"),
    ("softsign", "DivBackward0"), ("tanhshrink", "SubBackward0")])
def test_node_names_are_torchs(name: str, node: str) -> None:
    tx = torch.tensor([-1.0, 2.0], requires_grad=True)
    sx = strided.tensor([-1.0, 2.0], requires_grad=True)
    assert _fn(torch, name)(tx).grad_fn.name() == node
    assert type(_fn(strided, name)(sx).grad_fn).__name__ == node or _fn(strided, name)(sx).grad_fn.name() == node


def test_threshold_node_name_is_torchs() -> None:
    sx = strided.tensor([-1.0, 2.0], requires_grad=True)
    assert SF.threshold(sx, 0.0, 1.0).grad_fn.name() == "ThresholdBackward0"


# --- in place ------------------------------------------------------------------------------------

INPLACE = {
    "relu6": lambda F, x: F.relu6(x, inplace=True),
    "hardsigmoid": lambda F, x: F.hardsigmoid(x, inplace=True),
    "hardswish": lambda F, x: F.hardswish(x, inplace=True),
    "mish": lambda F, x: F.mish(x, inplace=True),
    "selu": lambda F, x: F.selu(x, inplace=True),
    "selu_": lambda F, x: F.selu_(x),
    "celu": lambda F, x: F.celu(x, 2.0, inplace=True),
    "celu_": lambda F, x: F.celu_(x, 0.5),
    "threshold": lambda F, x: F.threshold(x, 0.1, 7.0, inplace=True),
    "threshold_": lambda F, x: F.threshold_(x, -0.5, 7.0),
    "rrelu": lambda F, x: F.rrelu(x, inplace=True),
    "rrelu_": lambda F, x: F.rrelu_(x, 0.2, 0.4),
}


@pytest.mark.parametrize("view", ["whole", "transposed", "row"])
@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_writes_the_tensor_counts_once_and_reaches_the_base(name: str, view: str) -> None:
    vals = np.array([[-2.0, 0.5, -0.25, 3.0], [1.0, -1.0, 0.0, 2.5], [-3.0, 0.75, 4.0, -0.5]])
    tb, sb = torch.tensor(vals), strided.tensor(vals)
    pick = {"whole": lambda t: t, "transposed": lambda t: t.t(), "row": lambda t: t[1]}[view]
    tv, sv = pick(tb), pick(sb)
    t0, s0 = tv._version, sv._version
    tr = INPLACE[name](TF, tv)
    sr = INPLACE[name](SF, sv)
    assert sr is sv and tr is tv
    assert sv._version - s0 == tv._version - t0 == 1
    if name.startswith("mish"):  # (NumPy's tanh and log1p: see CASES)
        np.testing.assert_allclose(sb.numpy(), tb.numpy(), rtol=4e-16, atol=1e-300)
    else:
        np.testing.assert_array_equal(sb.numpy(), tb.numpy())


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_on_a_leaf_that_requires_grad_is_refused_like_torch(name: str) -> None:
    with pytest.raises(RuntimeError) as t_info:
        INPLACE[name](TF, torch.tensor([-1.0, 2.0], requires_grad=True))
    with pytest.raises(RuntimeError) as s_info:
        INPLACE[name](SF, strided.tensor([-1.0, 2.0], requires_grad=True))
    assert isinstance(s_info.value, strided.StridedError)
    assert str(s_info.value).splitlines()[0] == str(t_info.value).splitlines()[0]


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_on_an_expanded_tensor_is_refused_like_torch(name: str) -> None:
    # (PyTorch refuses the write through TensorIterator's overlap check; its threshold_ has no such
    # check, and writes the shared elements: strided does as PyTorch does, either way)
    base_t, base_s = torch.tensor([[-1.0, 2.0]]), strided.tensor([[-1.0, 2.0]])
    try:
        INPLACE[name](TF, base_t.expand(3, 2))
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as s_info:
            INPLACE[name](SF, base_s.expand(3, 2))
        assert str(s_info.value).splitlines()[0] == str(e).splitlines()[0]
        return
    assert name.startswith("threshold")
    INPLACE[name](SF, base_s.expand(3, 2))
    assert base_s.tolist() == base_t.tolist()


@pytest.mark.parametrize("name", [n for n in INPLACE if not n.startswith("rrelu")])
def test_inplace_on_a_non_leaf_gives_torchs_gradient(name: str) -> None:
    x = np.array([-2.0, 0.7, -0.25, 3.5, 1.3, -1.7])
    tx, sx = torch.tensor(x, requires_grad=True), strided.tensor(x, requires_grad=True)
    ty = INPLACE[name](TF, tx * 1.5)
    sy = INPLACE[name](SF, sx * 1.5)
    np.testing.assert_allclose(sy.detach().numpy(), ty.detach().numpy(), rtol=1e-15)
    (ty * torch.arange(6.0, dtype=torch.float64)).sum().backward()
    (sy * strided.arange(6.0, dtype=strided.float64)).sum().backward()
    np.testing.assert_allclose(sx.grad.numpy(), tx.grad.numpy(), rtol=1e-13)


# --- rrelu's training mode --------------------------------------------------------------------------


def test_rrelu_training_draws_slopes_in_range_and_keeps_the_rest() -> None:
    x = strided.tensor(np.linspace(-5, 5, 2001))
    strided.manual_seed(7)
    y = SF.rrelu(x, 0.1, 0.3, training=True)
    xs, ys = x.numpy(), y.numpy()
    neg = xs < 0
    slopes = ys[neg] / xs[neg]
    assert slopes.min() >= 0.1 - 1e-12 and slopes.max() < 0.3 + 1e-12
    assert len(np.unique(np.round(slopes, 12))) > 100  # (one draw per element)
    assert np.array_equal(ys[xs > 0], xs[xs > 0])
    strided.manual_seed(7)
    assert np.array_equal(SF.rrelu(x, 0.1, 0.3, training=True).numpy(), ys)
    # (evaluation mode: the mean slope, deterministic)
    assert np.array_equal(SF.rrelu(x, 0.1, 0.3).numpy(), TF.rrelu(torch.tensor(xs), 0.1, 0.3).numpy())


def test_rrelu_training_gradient_is_the_noise_and_nan_passes() -> None:
    x = strided.tensor([-2.0, -0.5, 1.0, float("nan"), 0.0], requires_grad=True)
    y = SF.rrelu(x, training=True)
    y.sum().backward()
    noise = x.grad.numpy()
    assert noise[2] == 1.0 and noise[3] == 1.0
    assert 1 / 8 <= noise[0] < 1 / 3 and 1 / 8 <= noise[1] < 1 / 3
    assert np.isnan(y.detach().numpy()[3])
    assert y.detach().numpy()[0] == -2.0 * noise[0]


def test_rrelu_training_module_and_float16_refusal() -> None:
    m = snn.RReLU(0.2, 0.4)
    x = strided.tensor([-1.0, 1.0])
    assert m.training and m(x).tolist()[1] == 1.0
    m.eval()
    assert m(x).tolist() == torch.nn.RReLU(0.2, 0.4).eval()(torch.tensor([-1.0, 1.0])).tolist()
    with pytest.raises(NotImplementedError) as t_info:
        TF.rrelu(torch.ones(2, dtype=torch.float16), training=True)
    with pytest.raises(NotImplementedError) as s_info:
        SF.rrelu(strided.ones(2, dtype=strided.float16), training=True)
    assert str(s_info.value).splitlines()[0] == str(t_info.value).splitlines()[0]


# --- errors --------------------------------------------------------------------------------------

ERROR_CALLS = {
    **{f"{n}-{d}": (lambda F, lib, n=n, d=d: _fn(lib, n)(lib.tensor([1, -2], dtype=getattr(lib, d)), *CASES[n][0]))
       for n in CASES if n not in ("softsign", "tanhshrink") for d in ("int64", "bool", "complex64")},
    "softshrink-negative": lambda F, lib: F.softshrink(lib.ones(2), -1.0),
    "softshrink-negative-double": lambda F, lib: F.softshrink(lib.ones(2, dtype=lib.float64), -0.5),
    "softshrink-huge-half": lambda F, lib: F.softshrink(lib.ones(2, dtype=lib.float16), 1e5),
    "celu-zero": lambda F, lib: F.celu(lib.ones(2), 0.0),
    "rrelu-bounds": lambda F, lib: F.rrelu(lib.ones(2), 0.5, 0.1),
    "rrelu-bounds-training": lambda F, lib: F.rrelu(lib.ones(2), 0.5, 0.1, training=True),
    "threshold-bool": lambda F, lib: F.threshold(lib.tensor([True]), 0.5, 1.0),
    "threshold-overflow": lambda F, lib: F.threshold(lib.tensor([1], dtype=lib.int8), 0.5, 300.0),
    "softsign-bool": lambda F, lib: F.softsign(lib.tensor([True])),
}


@pytest.mark.parametrize("case", list(ERROR_CALLS))
def test_errors_match_torch(case: str) -> None:
    call = ERROR_CALLS[case]
    try:
        expected = call(TF, torch)
    except Exception as e:  # noqa: BLE001 - the oracle compares whatever torch raises
        with pytest.raises(Exception) as s_info:
            call(SF, strided)
        assert isinstance(s_info.value, strided.StridedError), s_info.value
        assert isinstance(s_info.value, type(e)) or type(e).__name__ == type(s_info.value).__mro__[1].__name__, \
            (s_info.value, e)
        assert str(s_info.value).splitlines()[0] == str(e).splitlines()[0]
        assert len(str(s_info.value).splitlines()) >= 2
        return
    got = call(SF, strided)
    assert got.dtype.name == str(expected.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_integer_threshold_and_relu6_keep_the_dtype_like_torch() -> None:
    for dt in ("int64", "int32", "uint8", "int8"):
        t = torch.tensor([0, 1, 2, 5, 9], dtype=getattr(torch, dt))
        s = strided.tensor([0, 1, 2, 5, 9], dtype=getattr(strided, dt))
        for args in ((1.5, 9.7), (-0.5, 3.0), (2.0, 0.0), (1.0, 127.9), (1.0, 255.0), (float("nan"), 1.0)):
            try:
                expected = TF.threshold(t, *args)
            except RuntimeError as e:
                with pytest.raises(RuntimeError) as s_info:
                    SF.threshold(s, *args)
                assert str(s_info.value).splitlines()[0] == str(e).splitlines()[0]
                continue
            assert SF.threshold(s, *args).tolist() == expected.tolist()
            assert SF.threshold(s, *args).dtype.name == dt
        assert SF.relu6(s).tolist() == TF.relu6(t).tolist()
    # softsign and tanhshrink of integers give floats (their division and tanh)
    assert SF.softsign(strided.tensor([1, -3])).tolist() == TF.softsign(torch.tensor([1, -3])).tolist()
    np.testing.assert_allclose(SF.tanhshrink(strided.tensor([1, -3])).numpy(),
                               TF.tanhshrink(torch.tensor([1, -3])).numpy(), rtol=1e-6)


def test_argument_types_are_checked() -> None:
    with pytest.raises(TypeError):
        TF.hardshrink(torch.ones(2), "a")
    with pytest.raises(TypeError):
        SF.hardshrink(strided.ones(2), "a")
    with pytest.raises(TypeError):
        SF.celu(strided.ones(2), None)


# --- spellings, registry, modules ----------------------------------------------------------------


def test_torch_level_spellings() -> None:
    x = np.array([-2.0, -0.3, 0.2, 1.7])
    t, s = torch.tensor(x), strided.tensor(x)
    assert strided.hardshrink(s, 0.5).tolist() == torch.hardshrink(t, 0.5).tolist()
    assert s.hardshrink(1.0).tolist() == t.hardshrink(1.0).tolist()
    assert strided.selu(s).tolist() == torch.selu(t).tolist()
    assert strided.celu(s, 2.0).tolist() == torch.celu(t, 2.0).tolist()
    assert strided.threshold(s, 0.0, 5.0).tolist() == torch.threshold(t, 0.0, 5.0).tolist()
    sx = strided.tensor(x, requires_grad=True)
    assert s.hardshrink().tolist() == t.hardshrink().tolist()
    assert sx.hardshrink().grad_fn.name() == "HardshrinkBackward0"
    assert strided.selu(sx).grad_fn.name() == "EluBackward0"


def test_each_op_is_one_registry_declaration() -> None:
    for name in ("hardsigmoid", "hardswish", "hardshrink", "softshrink", "threshold", "selu", "celu", "mish",
                 "logsigmoid", "rrelu"):
        op = OPDEFS["F." + name]
        assert op.kind is not None and op.backward is not None
        assert op.home == "strided.ops.elementwise.activations_more"
    # (torch's own ops are named as torch names them, their F. spelling an alias; the table lists them)
    for name in ("hardshrink", "selu", "celu", "threshold"):
        assert OPDEFS[name] is OPDEFS["F." + name] and OPDEFS[name].name == name
        assert name in OPS and "F." + name not in OPS
    assert OPDEFS["F.mish"].name == "F.mish" and "F.mish" not in OPS
    assert OPDEFS["F.threshold_"].kind.value == "write"


def test_the_ops_are_reported_to_listeners_by_their_names() -> None:
    x = strided.tensor([-1.0, 2.0])
    for name in ("hardsigmoid", "hardswish", "hardshrink", "softshrink", "selu", "celu", "mish", "logsigmoid", "rrelu"):
        with op_records() as records:
            _fn(strided, name)(x)
        assert [r.name for r in records] == [name], (name, [r.name for r in records])
    with op_records() as records:
        SF.threshold_(x, 0.0, 1.0)
    assert [r.name for r in records] == ["threshold_"]


MODULES = [
    ("ReLU6", (), {}), ("ReLU6", (True,), {}), ("SELU", (), {}), ("SELU", (True,), {}), ("CELU", (), {}),
    ("CELU", (2.0, True), {}), ("Hardsigmoid", (), {}), ("Hardsigmoid", (True,), {}), ("Hardswish", (), {}),
    ("Hardswish", (True,), {}), ("Mish", (), {}), ("Mish", (True,), {}), ("Threshold", (0.1, 20.0), {}),
    ("Threshold", (0.1, 20, True), {}), ("RReLU", (), {}), ("RReLU", (0.1, 0.2, True), {}), ("LogSigmoid", (), {}),
    ("Softsign", (), {}), ("Tanhshrink", (), {}), ("Softshrink", (), {}), ("Softshrink", (1.5,), {}),
    ("Hardshrink", (), {}), ("Hardshrink", (0.25,), {}),
]


@pytest.mark.parametrize("name, args, kwargs", MODULES)
def test_modules_repr_and_forward_match_torch(name: str, args: tuple, kwargs: dict) -> None:
    tm = getattr(torch.nn, name)(*args, **kwargs)
    sm = getattr(snn, name)(*args, **kwargs)
    assert repr(sm) == repr(tm)
    tm.eval()
    sm.eval()
    x = np.array([-3.5, -1.0, -0.2, 0.0, 0.3, 2.0, 7.0])
    tr = tm(torch.tensor(x))
    sr = sm(strided.tensor(x))
    np.testing.assert_allclose(sr.numpy(), tr.numpy(), rtol=1e-15)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["hardshrink", "softshrink", "hardswish"])
def test_a_nan_inputs_gradient_depends_on_its_place_as_in_torch(name: str, dtype: str) -> None:
    # (PyTorch's backward loops treat a NaN differently in their vector lanes and scalar tail)
    for n in (1, 4, 9, 10, 17, 18, 33, 34, 65):
        for pos in (0, n // 2, n - 1):
            vals = list(np.linspace(-4, 4, n))
            vals[pos] = float("nan")
            t = torch.tensor(vals, dtype=getattr(torch, dtype), requires_grad=True)
            s = strided.tensor(vals, dtype=getattr(strided, dtype), requires_grad=True)
            (gt,) = torch.autograd.grad(_fn(torch, name)(t).sum(), t)
            (gs,) = strided.autograd.grad(_fn(strided, name)(s).sum(), s)
            np.testing.assert_array_equal(gs.numpy(), gt.numpy(), err_msg=f"{n} {pos}")


EXACT = [n for n, (_, ulps) in CASES.items() if ulps == 0]


@settings(max_examples=60, deadline=None)
@given(spec=specs(max_dims=3, max_size=6), name=hs.sampled_from(EXACT), dtype=hs.sampled_from(["float32", "float64"]),
       seed=hs.integers(0, 2**16))
def test_hypothesis_layouts_bits_and_strides(spec, name: str, dtype: str, seed: int) -> None:
    """Any hard layout (permuted, stepped, expanded, size-1 dims with odd strides, zero-size, 0-d)
    over one storage: the exact cases' bits and result strides are PyTorch's."""
    args, _ = CASES[name]
    size, shape, strides, offset = spec
    rng = np.random.default_rng(seed)
    base = (rng.standard_normal(max(size, 1)) * 4).astype(dtype)
    base[rng.random(base.shape) < 0.1] = 0.5 if rng.random() < 0.5 else -0.0
    t = torch.from_numpy(base.copy()).as_strided(shape, strides, offset)
    s = strided.tensor(base.copy()).as_strided(shape, strides, offset)
    tr = _fn(torch, name)(t, *args)
    sr = _fn(strided, name)(s, *args)
    assert sr.shape == tuple(tr.shape) and sr.stride() == tr.stride(), (sr.stride(), tr.stride())
    a, b = sr.numpy(), tr.numpy()
    assert np.array_equal(_bits(a), _bits(b)), (a, b)
