"""Red-team findings on the PyTorch-order sum/mean (kernels/torch_sum.py) and float64 variance
(kernels/torch_variance.py): each test is a case that once gave other bits than PyTorch 2.13 (one
thread), checked against torch itself."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native

torch.set_num_threads(1)


def _same_bits(ours: strided.Tensor, theirs: torch.Tensor) -> None:
    a = np.array(ours.numpy(), order="C")
    b = theirs.contiguous().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes(), (a, b)


@pytest.mark.parametrize("native_on", [True, False])
@pytest.mark.parametrize("n", [9, 33, 100])
@pytest.mark.parametrize("name", ["complex64", "complex128"])
def test_mean_of_complex_as_real_dtype_sums_the_dense_real_copy(name: str, n: int, native_on: bool) -> None:
    """``mean(dtype=<real>)`` of a complex tensor sums ``self.to(dtype)`` (a dense real copy:
    the vectorized inner sum), not the stride-2 real parts (the scalar sum: other bits)."""
    rng = np.random.default_rng(n)
    a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(name)
    real = strided.float32 if name == "complex64" else strided.float64
    treal = torch.float32 if name == "complex64" else torch.float64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = torch.mean(torch.from_numpy(a), dtype=treal)
        if native_on:
            got = strided.from_numpy(a).mean(dtype=real)
        else:
            with native.disabled():
                got = strided.from_numpy(a).mean(dtype=real)
    _same_bits(got, expected)


@pytest.mark.parametrize("native_on", [True, False])
@pytest.mark.parametrize("source", ["int32", "float64"])
@pytest.mark.parametrize("half", ["float16", "bfloat16"])
def test_sum_to_half_dtype_through_the_float32_buffer_converts_the_input_once(source: str, half: str,
                                                                               native_on: bool) -> None:
    """``sum(dims, dtype=float16)`` where two reduced dims lead the iterator (PyTorch's
    ``should_use_acc_buffer``) sums ``self.to(float32)`` of the *original* input: the int32 / float64
    values rounded once to float32, not first to float16 (other sums: 1072 for PyTorch's 1039)."""
    rng = np.random.default_rng(7)
    values = rng.standard_normal(40 * 63) * 300
    base = np.round(values).astype(np.int32) if source == "int32" else values
    shape, strides = (5, 8, 63), (1, 5, 40)  # (two reduced dims first in TensorIterator's order)
    t = torch.from_numpy(base).as_strided(shape, strides)
    s = strided.from_numpy(base).as_strided(shape, strides)
    td, sd = getattr(torch, half), getattr(strided, half)
    expected = torch.sum(t, (0, 2), True, dtype=td)
    if native_on:
        got = s.sum((0, 2), True, dtype=sd)
    else:
        with native.disabled():
            got = s.sum((0, 2), True, dtype=sd)
    a = np.array(got.numpy(), order="C").view(np.uint16)
    assert a.tobytes() == expected.contiguous().view(torch.int16).numpy().tobytes()


@pytest.mark.parametrize("correction", [-1, -0.5])
@pytest.mark.parametrize("op", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("name", ["float32", "float64", "complex128"])
@pytest.mark.parametrize(("shape", "dim"), [((7, 0), 1), ((0,), None), ((3, 0), None), ((0, 3), 0)])
def test_variance_of_nothing_is_nan_whatever_the_correction(shape: tuple[int, ...], dim: Any, name: str, op: str,
                                                          correction: float) -> None:
    """An empty reduction's variance is NaN (PyTorch fills it: ``iter.numel() == 0``), also where a
    negative correction makes the divisor positive (``0 / 1`` gave 0.0)."""
    t = torch.zeros(shape, dtype=getattr(torch, name))
    s = strided.zeros(shape, dtype=getattr(strided, name))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = getattr(torch, op)(t, dim, correction=correction)
        got = getattr(strided, op)(s, dim, correction=correction)
    if not isinstance(expected, tuple):
        expected, got = (expected,), (got,)
    for a, b in zip(got, expected):
        assert np.array_equal(np.asarray(a.numpy()), b.numpy(), equal_nan=True), (a, b)


@pytest.mark.parametrize("native_on", [True, False])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize(("op", "dim"), [("var_mean", ()), ("std_mean", (0, 1, 2, 3)), ("var", (0, 2, 3)),
                                         ("std_mean", (0, 2, 3))])
def test_welford_order_follows_keepdim(op: str, dim: tuple[int, ...], keepdim: bool, native_on: bool) -> None:
    """PyTorch's Welford updates run in its iterator's order, which depends on keepdim: a kept
    size-1 reduced dim has a non-zero output stride (keepdim=False: 0, review_reduce_result), and
    that changes the insertion sort's order of the stride-0 dims: var_mean of these float64
    layouts gave an ulp off with keepdim=True (var too, where it has more than one result)."""
    base = np.random.default_rng(5).standard_normal(200)
    shape, strides = ((5, 5, 65, 1), (1, 2, 0, 2)) if len(dim) != 3 else ((5, 5, 3, 1), (2, 5, 0, 3))
    t = torch.from_numpy(base).as_strided(shape, strides)
    s = strided.from_numpy(base).as_strided(shape, strides)
    expected = getattr(torch, op)(t, dim, keepdim=keepdim)
    if native_on:
        got = getattr(strided, op)(s, dim, keepdim=keepdim)
    else:
        with native.disabled():
            got = getattr(strided, op)(s, dim, keepdim=keepdim)
    if not isinstance(expected, tuple):
        expected, got = (expected,), (got,)
    for a, b in zip(got, expected):
        _same_bits(a, b)


@pytest.mark.parametrize("native_on", [True, False])
@pytest.mark.parametrize(("source", "half"), [("float64", "bfloat16"), ("complex128", "bfloat16"),
                                              ("float64", "float16")])
def test_sum_dtype_conversion_to_half_rounds_through_float32(source: str, half: str, native_on: bool) -> None:
    """``sum(dtype=bfloat16 / float16)`` of float64 (or complex128) sums ``self.to(dtype)``, which
    PyTorch rounds through float32 (c10::BFloat16 / c10::Half are made from a float): a value
    such as 1 + 2**-8 + 2**-30 is bfloat16 1.0 there, 1.0078125 rounded once."""
    values = np.array([1 + 2**-8 + 2**-30, 1 + 2**-11 + 2**-40, 3.0]).astype(source)
    t = torch.from_numpy(values)
    s = strided.from_numpy(values)
    td, sd = getattr(torch, half), getattr(strided, half)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = t[:1].sum(dtype=td) if half == "bfloat16" else t[1:2].sum(dtype=td)
        if native_on:
            got = (s[:1] if half == "bfloat16" else s[1:2]).sum(dtype=sd)
        else:
            with native.disabled():
                got = (s[:1] if half == "bfloat16" else s[1:2]).sum(dtype=sd)
    a = np.array(got.numpy(), order="C").view(np.uint16)
    assert a.tobytes() == expected.contiguous().view(torch.int16).numpy().tobytes()


@pytest.mark.parametrize("name", ["float32", "float64"])
@pytest.mark.parametrize(("op", "kwargs"), [("var", {"dim": 0}), ("std", {}), ("var", {}), ("var_mean", {"dim": 1}),
                                            ("std_mean", {"dim": (0, 1), "keepdim": True})])
def test_variance_gradient_multiplies_in_pytorchs_order(name: str, op: str, kwargs: dict) -> None:
    """var_backward is ``(2 / (N - correction)) * grad * (x - mean)`` in that order: ``grad *
    centred * (2 / dof)`` rounded otherwise (bits off in a third of the elements)."""
    a = np.random.default_rng(3).standard_normal((4, 6)).astype(name)
    tx = torch.tensor(a, requires_grad=True)
    sx = strided.tensor(a, requires_grad=True)

    def loss(x: Any, m: Any) -> Any:
        r = getattr(m, op)(x, **kwargs)
        return sum((v ** 2).sum() for v in r) if isinstance(r, tuple) else (r ** 2).sum()

    (expected,) = torch.autograd.grad(loss(tx, torch), tx)
    (got,) = strided.autograd.grad(loss(sx, strided), sx)
    _same_bits(got, expected)


@pytest.mark.parametrize("correction", [3, 4])
def test_variance_gradient_without_degrees_of_freedom(correction: int) -> None:
    """No dim and ``N - correction <= 0``: PyTorch's gradient is ``grad * where(x == mean, nan,
    inf)`` (the sign of grad alone: ours gave -inf where x < mean)."""
    a = np.array([1.0, 2.0, 3.0])
    tx = torch.tensor(a, requires_grad=True)
    sx = strided.tensor(a, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (expected,) = torch.autograd.grad(torch.var(tx, correction=correction), tx)
        (got,) = strided.autograd.grad(strided.var(sx, correction=correction), sx)
    assert np.array_equal(got.numpy(), expected.numpy(), equal_nan=True), (got, expected)
