"""Red-team checks of the small-op fast paths (issue 23's merge of ``smallew``) against PyTorch:
a number parameter the kernel cannot hold is PyTorch's RuntimeError on the fast path and on the
general one (never a silent inf), no NumPy warning leaks, and the fast paths' caches refuse what
the general construction refuses."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as F
from strided.dispatch import result

_DTYPES = ("float16", "bfloat16", "float32", "float64")


def _outcome(fn):
    """(the values' text, None) or (None, (exception class name without 'Strided', first line))."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a NumPy RuntimeWarning leaking out fails the comparison
        try:
            r = fn()
        except Exception as e:  # noqa: BLE001 - the class and text are what is compared
            return None, (type(e).__name__.replace("Strided", ""), str(e).splitlines()[0])
    return str(r.tolist()), None  # (text: NaN equals NaN; Python floats and complexes print alike)


_ACTIVATIONS = [
    ("leaky_relu", (1e10,)), ("leaky_relu", (1e39,)), ("leaky_relu", (float("inf"),)),
    ("elu", (1e39,)), ("elu", (1e10,)), ("softplus", (1e39,)), ("softplus", (1.0, 1e39)),
    ("hardtanh", (-1e39, 1e39)), ("hardtanh", (-1e10, 1e10)), ("hardtanh", (-float("inf"), 3.0)),
]


@pytest.mark.parametrize("dtype", _DTYPES)
def test_activation_parameter_overflow_as_pytorch(dtype: str) -> None:
    """A finite parameter beyond what the kernel converts it to (float for float16 / bfloat16 /
    float32, the input's dtype for hardtanh's bounds) is PyTorch's RuntimeError, fresh (fast path:
    row-major; general: transposed) and in place; a float64 input holds anything."""
    x = np.array([[-1.0, 0.5], [2.0, -3.0]])
    for name, params in _ACTIVATIONS:
        forms = ["fresh", "transposed"] + (["inplace"] if name != "softplus" else [])
        for form in forms:
            def call(m, t, name=name, params=params, form=form):
                if form == "inplace":
                    return getattr(m, name)(t.clone(), *params, inplace=True)
                return getattr(m, name)(t.t() if form == "transposed" else t, *params)

            got = _outcome(lambda call=call: call(F, strided.tensor(x, dtype=getattr(strided, dtype))))
            want = _outcome(lambda call=call: call(TF, torch.tensor(x, dtype=getattr(torch, dtype))))
            assert got == want, (name, params, dtype, form)


def test_elu_of_integers_names_pytorchs_kernel() -> None:
    with pytest.raises(NotImplementedError, match="\"elu_cpu\" not implemented for 'Long'"):
        F.elu(strided.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match="\"elu_cpu\" not implemented for 'Long'"):
        TF.elu(torch.tensor([1, 2]))


@pytest.mark.parametrize("dtype", [*_DTYPES, "complex64"])
def test_lerp_weight_overflow_as_pytorch(dtype: str) -> None:
    """lerp's number weight is converted to the opmath type (float for float16 / bfloat16 /
    float32, complex<float> for complex64): beyond it, PyTorch's error, never an inf weight
    (with NumPy's overflow warning) on the fast path (row-major), the general one or lerp_."""
    for w in (1e10, 1e39, float("inf"), -2.5e38):
        for form in ("fresh", "transposed", "inplace"):
            def call(m, form=form, w=w):
                a = m.zeros(2, 2, dtype=getattr(m, dtype))
                b = m.tensor([[0.0, 1.0], [2.0, 3.0]], dtype=getattr(m, dtype))
                if form == "inplace":
                    return a.lerp_(b, w)
                return m.lerp(a.t() if form == "transposed" else a, b, w)

            assert _outcome(lambda: call(strided)) == _outcome(lambda: call(torch)), (dtype, w, form)


def test_planned_view_past_a_smaller_storage_is_refused() -> None:
    """numpy_view's row-major plan is keyed by (shape, strides, itemsize) only: the same layout
    over a shorter storage (or a storage shrunk by resize_) must be PyTorch's error, not a
    shorter or wrong view."""
    big = strided.arange(10, dtype=strided.float32)
    assert big.as_strided((2, 3), (3, 1), 1).tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    small = strided.arange(4, dtype=strided.float32)
    with pytest.raises(RuntimeError, match="setStorage: sizes \\[2, 3\\], strides \\[3, 1\\]"):
        small.as_strided((2, 3), (3, 1), 1)
    with pytest.raises(RuntimeError, match="setStorage: sizes \\[2, 3\\], strides \\[3, 1\\]"):
        torch.arange(4, dtype=torch.float32).as_strided((2, 3), (3, 1), 1)


def test_result_negative_size_refused_every_time() -> None:
    """dispatch.result's per-layout plan never remembers a refused layout; a list shape plans
    as its tuple (strides a tuple too)."""
    for _ in range(2):
        with pytest.raises(RuntimeError, match="negative dimension -1"):
            result((2, -1), strided.float32)
    t = result([2, 3], strided.float32, [1, 2])
    assert t.shape == (2, 3) and t.stride() == (1, 2) and type(t.stride()) is tuple


@pytest.mark.parametrize("dtype", [*_DTYPES, "int64"])
def test_round_decimals_and_logit_eps_as_pytorch(dtype: str) -> None:
    """round(decimals=) of float16 scales in float32 as PyTorch's opmath kernel (was NaN from
    10**5 overflowing float16); 10**decimals beyond float64 gives PyTorch's NaN, not Python's
    OverflowError; logit's eps beyond the result's dtype is PyTorch's error, not an inf clamp
    (fast path: row-major float32/float64; general: transposed, the other dtypes, in place)."""
    rows = [[0.25, 0.0, 1.23456, 70000.0], [1.005, 2.675, 0.125, 1250.0]]
    cases = [("round", {"decimals": k}) for k in (5, 2, -2, 39, -39, 400, -400)]
    cases += [("logit", {"eps": e}) for e in (1e10, 1e39, float("inf"))]
    for name, kw in cases:
        for form in ("fresh", "transposed", "inplace"):
            def call(m, name=name, kw=kw, form=form):
                x = m.tensor(rows).to(getattr(m, dtype))
                if form == "inplace":
                    return getattr(x, name + "_")(**kw)
                return getattr(m, name)(x.t() if form == "transposed" else x, **kw)

            assert _outcome(lambda call=call: call(strided)) == _outcome(lambda call=call: call(torch)), (name, kw, form)


def test_float64_fused_multiply_add_keeps_the_sign_of_an_exact_zero() -> None:
    """The float64 fma (add/sub with alpha, lerp, addcmul) returned +0.0 for -0.0 * w + -0.0 and
    the like (its error terms are +0.0); an exact zero takes the plain sum's IEEE sign, as
    PyTorch's hardware fmadd does."""
    zeros = [0.0, -0.0]
    x = np.array([a for a in zeros for _ in range(2)])
    y = np.array(zeros * 2)
    sx, sy = strided.tensor(x, dtype=strided.float64), strided.tensor(y, dtype=strided.float64)
    tx, ty = torch.tensor(x, dtype=torch.float64), torch.tensor(y, dtype=torch.float64)
    for fn in (lambda m, a, b: a.clone().add_(b, alpha=-1), lambda m, a, b: a.clone().sub_(b, alpha=0.5),
               lambda m, a, b: m.add(a, b, alpha=2), lambda m, a, b: m.sub(a, b, alpha=3),
               lambda m, a, b: m.lerp(a, b, 0.25), lambda m, a, b: m.lerp(a, b, 0.75), lambda m, a, b: a.clone().lerp_(b, 2.0),
               lambda m, a, b: m.addcmul(a, b, b, value=-1.0), lambda m, a, b: a.clone().addcmul_(b, b, value=0.5)):
        got, want = fn(strided, sx, sy).numpy(), fn(torch, tx, ty).numpy()
        np.testing.assert_array_equal(got, want)
        assert np.array_equal(np.signbit(got), np.signbit(want)), (got, want)


def test_bfloat16_add_with_alpha_leaks_no_numpy_warning() -> None:
    x = np.array([1.0, -2.0, 3.0e38])
    for alpha in (float("nan"), 65504.0):
        got = _outcome(lambda alpha=alpha: strided.add(strided.tensor(x).to(strided.bfloat16),
                                                       strided.tensor(x).to(strided.bfloat16), alpha=alpha))
        want = _outcome(lambda alpha=alpha: torch.add(torch.tensor(x).bfloat16(), torch.tensor(x).bfloat16(), alpha=alpha))
        assert got == want, alpha


def test_float16_add_sub_alpha_is_one_fused_rounding_as_pytorch() -> None:
    """float16 add/sub with alpha= rounded alpha * y to float16 before the sum (up to half the
    elements an ulp off); PyTorch's vectorized kernel rounds alpha (and a 0-d operand) to float16
    and fmadds in float32. 128 elements: whole vectors (its scalar tail loop, whose length depends
    on the CPU's vector width, rounds otherwise, as bfloat16's note in binary.py says)."""
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(128) * 10).astype(np.float16)
    y = rng.standard_normal(128).astype(np.float16)
    for alpha in (0.1, 3.0, -7, 65504.0):
        for fn in (lambda m, a, b, alpha=alpha: m.add(a, b, alpha=alpha), lambda m, a, b, alpha=alpha: m.sub(a, b, alpha=alpha),
                   lambda m, a, b, alpha=alpha: a.clone().add_(b, alpha=alpha), lambda m, a, b, alpha=alpha: m.add(a, 1.37, alpha=alpha),
                   lambda m, a, b, alpha=alpha: m.add(a, m.tensor(1.37), alpha=alpha)):
            got = fn(strided, strided.tensor(x), strided.tensor(y)).numpy()
            want = fn(torch, torch.tensor(x), torch.tensor(y)).numpy()
            np.testing.assert_array_equal(got, want, err_msg=str(alpha))
