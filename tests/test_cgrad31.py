"""Complex gradients bit for bit against PyTorch, signs of zero included (session 31): the rules of
addcmul, addcdiv, lerp, linalg.cross, pow (tensor ** number, tensor ** tensor) and float_power,
now written as derivatives.yaml / FunctionsManual write them (the factor, then ``.conj()``, then
``grad *`` it) instead of the holomorphic rule conjugated around, whose values agree but whose
zeros came out with the other sign (tools/complex_grad_signs.py: 12 of 12 cases of each). The
gradient of every tensor operand is compared, the others held constant; the helpers (values from
small integers and signed zeros, four layouts) are test_cplxgrad30's. Real dtypes: the first
derivatives of addcmul, addcdiv and float_power now take PyTorch's order of rounding too."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided
from strided.kernels import torch_pow
from test_cplxgrad30 import _DTYPES, _LAYOUTS, _check, _layout, _values

torch = pytest.importorskip("torch")


def _with_operands(op, consts, position: int):
    """call(L, x): ``op(L, *operands)`` with ``x`` at ``position`` and the constants elsewhere."""

    def call(L, x):
        args = [L.from_numpy(c) for c in consts]
        args.insert(position, x)
        return op(L, *args)

    return call


# op -> (number of tensor operands, call(L, *tensors), operands nonzero)
_OPS = {
    "addcmul": (3, lambda L, a, b, c: a.addcmul(b, c, value=0.5), False),
    "addcmul_complex_value": (3, lambda L, a, b, c: L.addcmul(a, b, c, value=1 - 0.5j), False),
    "addcdiv": (3, lambda L, a, b, c: a.addcdiv(b, c, value=0.5), True),
    "addcdiv_complex_value": (3, lambda L, a, b, c: a.addcdiv(b, c, value=-2j), True),
    "lerp_tensor": (3, lambda L, a, b, w: a.lerp(b, w), False),
    "lerp_number": (2, lambda L, a, b: a.lerp(b, 0.25), False),
    "lerp_complex_number": (2, lambda L, a, b: a.lerp(b, 0.5 - 1j), False),
    "cross": (2, lambda L, a, b: L.linalg.cross(a, b, dim=-1), False),
    "pow_number": (1, lambda L, a: a ** 2, False),
    "pow_complex_number": (1, lambda L, a: a ** (1 + 1j), True),
    "pow_tensor": (2, lambda L, a, b: a ** b, True),
    "float_power": (2, lambda L, a, b: a.float_power(b), True),
    "float_power_number": (1, lambda L, a: a.float_power(3), True),
    "float_power_base": (1, lambda L, b: L.float_power(2.0, b), False),
    "diagonal_scatter_squared": (2, lambda L, a, s: a.diagonal_scatter(s, 1) ** 2, False),
}


@pytest.mark.parametrize("op", sorted(_OPS))
@settings(max_examples=25, deadline=None)
@given(data=hs.data(), layout=_LAYOUTS)
def test_complex_gradients_of_each_operand_are_torchs(op, data, layout):
    """Each operand's gradient, signs of zero included, as PyTorch's formula gives it."""
    n, call, nonzero = _OPS[op]
    dtype = data.draw(hs.sampled_from(_DTYPES))
    position = data.draw(hs.integers(0, n - 1))
    shape = (2, 3) if not op.startswith("diagonal") else (3, 3)
    shapes = [shape] * n
    if op.startswith("diagonal"):
        shapes[1] = (2,)
    # (pow_tensor / float_power: a nonzero base, as the sweep's "pos" domain; the exponent any)
    consts = [_values(data, s, dtype, nonzero and i == 0) for i, s in enumerate(shapes)]
    x_shape = shapes.pop(position)
    consts.pop(position)
    _check(data, _with_operands(call, consts, position), x_shape, layout,
           nonzero=nonzero and position == 0, dtype=dtype)


def test_complex_cross_gradient_zero_sign_example():
    """A case the holomorphic rule conjugated around got wrong: the input's gradient is
    ``other.conj() x g`` (PyTorch's), whose zero parts are +0.0 where conj(conj(g) x other)'s
    were -0.0."""
    a = np.array([[1 + 0j, 0j, 2 - 1j]])
    b = np.array([[0j, 1 + 0j, 0.5j]])
    g = np.array([[1 + 0j, 0j, 0j]])
    found = []
    for L in (torch, strided):
        x = L.from_numpy(a.copy()).requires_grad_(True)
        (gx,) = L.autograd.grad(L.linalg.cross(x, L.from_numpy(b)), x, L.from_numpy(g))
        found.append(np.ascontiguousarray(gx.resolve_conj().numpy() if L is torch else gx.numpy()).view(np.float64))
    assert found[0].tobytes() == found[1].tobytes()


_REAL = {
    "addcmul": (3, lambda L, a, b, c: a.addcmul(b, c, value=0.3)),
    "addcdiv": (3, lambda L, a, b, c: a.addcdiv(b, c, value=0.3)),
    "float_power": (2, lambda L, a, b: a.float_power(b)),
    "float_power_base": (1, lambda L, b: L.float_power(1.7, b)),
}


@pytest.mark.parametrize("op", sorted(_REAL))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(4))
def test_real_first_derivatives_take_torchs_order(op, dtype, seed):
    """float32/float64: each operand's gradient equals PyTorch's bit for bit (the factor formed
    first, as its formula: ``grad * (tensor2 * value)``, not ``grad * value * tensor2``)."""
    if op.startswith("float_power") and torch_pow._kernel() is None:
        pytest.skip("float_power's gradient holds a float64 pow: PyTorch's SLEEF pow needs strided.kernels.torch_pow's "
                    "compiled kernel and ATen's AVX512 or AVX2 capability (NumPy's pow otherwise, within an ulp); "
                    "this test is about the factors' order")
    n, call = _REAL[op]
    rng = np.random.default_rng(seed)
    arrs = [rng.uniform(0.5, 2.0, (4, 5)).astype(dtype) for _ in range(n)]
    g = rng.uniform(-1, 1, (4, 5)).astype(dtype)
    found = []
    for L in (torch, strided):
        xs = [L.from_numpy(a.copy()).requires_grad_(True) for a in arrs]
        grads = L.autograd.grad(call(L, *xs), xs, L.from_numpy(g.copy()))
        found.append([np.ascontiguousarray(t.detach().numpy()).tobytes() for t in grads])
    assert found[0] == found[1]


@settings(max_examples=40, deadline=None)
@given(data=hs.data(), shape=hs.sampled_from(((), (3,), (2, 3), (20,), (2, 17))),
       layout=hs.sampled_from(("plain", "stepped", "expanded")))
def test_complex_tanh_gradient_has_each_loops_zero_signs(data, shape, layout):
    """tanh_backward's ``a * conj(1 - b * b)``: the elements PyTorch's scalar loop computes (a
    short row, a row's tail past its last full vector step) carry ``(b * b).imag``'s own sign of
    zero in the conjugated factor, the vectorized loop's elements -0.0 (20 elements: 16 + 4 in
    complex64 and complex128 alike on AVX-512). The zero parts' bits are compared; the others'
    values to rounding (the scalar loop's complex product rounds differently from NumPy's in
    the last bit: not this rule's subject)."""
    dtype = data.draw(hs.sampled_from(_DTYPES))
    arr = _values(data, shape, dtype)
    g = _values(data, shape, dtype)
    found = []
    for L in (torch, strided):
        leaf, x = _layout(L, arr, layout)
        (gx,) = L.autograd.grad(x.tanh(), leaf, L.from_numpy(g.copy()))
        a = np.ascontiguousarray(gx.detach().resolve_conj().numpy() if L is torch else gx.detach().numpy())
        found.append(a.view(a.real.dtype).ravel())
    want, got = found
    zero = want == 0
    assert want[zero].tobytes() == got[zero].tobytes(), (shape, dtype, layout, arr.tolist(), g.tolist())
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.complex64 else 1e-12, atol=1e-30)
