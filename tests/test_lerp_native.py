"""lerp with a number weight over dense runs through the compiled ``lerp_runs`` (one pass:
``b - a``, then ``w d + a`` below |w| = 0.5, else ``(w - 1) d + b``, rounded as fma32 / fma64
round): the bits of the two passes it replaces (NumPy's subtraction, then the compiled fma32 /
fma64), float32 and float64, for weights on both sides of 0.5 (and NaN, inf, -0.0), on special
values, in place (``lerp_``, out aliasing input or end); the op on the layouts it hands the kernel
(row-major, column-major) and the others, with the kernels off (NumPy's steps: the same values;
a NaN weight's payload aside, as before), against PyTorch.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs
from hypothesis.extra import numpy as hnp

import strided
from strided.kernels import native
from strided.kernels.fused import fma_into, lerp_into

_KERNEL = native.special()
pytestmark = pytest.mark.skipif(_KERNEL is None or not hasattr(_KERNEL, "lerp_runs"),
                                reason="the compiled special functions are not built")
WEIGHTS = [0.0, -0.0, 0.25, 0.4999999, 0.5, 0.75, 1.0, -0.3, 1.7, 1e-8, 3e38, np.inf, np.nan]


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint32 if a.dtype == np.float32 else np.uint64)


def _two_ways(a: np.ndarray, b: np.ndarray, w: float) -> tuple[np.ndarray, np.ndarray]:
    """(the one-pass kernel's result, the two passes': NumPy's subtraction, then the compiled
    fma32 / fma64 from the nearer end, as lerp_into ran them)"""
    wt = a.dtype.type(w)
    fast, slow = np.empty_like(a), np.empty_like(a)
    with np.errstate(all="ignore"):
        assert _KERNEL.lerp_runs(a, b, float(wt), fast)
        low = abs(wt) < 0.5
        fma_into(wt if low else wt - wt.dtype.type(1), np.subtract(b, a), a if low else b, slow)
    return fast, slow


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("w", WEIGHTS)
def test_the_two_pass_bits(dtype: type, w: float) -> None:
    rng = np.random.default_rng(6)
    width = np.uint32 if dtype == np.float32 else np.uint64
    patterns = [rng.integers(0, np.iinfo(width).max, 5000, dtype=np.uint64).astype(width).view(dtype) for _ in range(2)]
    v = np.array([0.0, -0.0, 1.0, -1.0, 1e-45, 3e38, -3e38, np.inf, -np.inf, np.nan], dtype)
    grid = np.meshgrid(v, v)
    for a, b in ((rng.uniform(-5, 5, 3000).astype(dtype), rng.uniform(-5, 5, 3000).astype(dtype)), tuple(patterns),
                 (grid[0].ravel(), grid[1].ravel())):
        fast, slow = _two_ways(a, b, w)
        np.testing.assert_array_equal(_bits(fast), _bits(slow))


@settings(max_examples=40, deadline=None)
@given(hs.integers(0, 90).flatmap(lambda n: hs.tuples(*[hnp.arrays(np.float32, n, elements=hs.floats(width=32))] * 2)),
       hs.floats(-2, 2, width=32))
def test_any_length(ab: tuple[np.ndarray, np.ndarray], w: float) -> None:
    fast, slow = _two_ways(*ab, w)
    assert _bits(fast).tolist() == _bits(slow).tolist()


def test_aliasing_and_refusals() -> None:
    a = np.linspace(-2, 2, 64, dtype=np.float32)
    b = a[::-1].copy()
    want, _ = _two_ways(a, b, 0.3)
    x = a.copy()
    assert _KERNEL.lerp_runs(x, b, float(np.float32(0.3)), x)  # (out is a)
    np.testing.assert_array_equal(_bits(x), _bits(want))
    y = b.copy()
    assert _KERNEL.lerp_runs(a, y, float(np.float32(0.3)), y)  # (out is b)
    np.testing.assert_array_equal(_bits(y), _bits(want))
    z = np.zeros(65, np.float32)
    z[1:] = a
    assert not _KERNEL.lerp_runs(z[1:], b, 0.3, z[:64])  # (a partial overlap)
    assert not _KERNEL.lerp_runs(a, b.astype(np.float64), 0.3, np.empty_like(a))
    assert not _KERNEL.lerp_runs(a[::2], b[::2], 0.3, np.empty(32, np.float32))
    with pytest.raises(TypeError):
        _KERNEL.lerp_runs(a, b, "x", np.empty_like(a))


_LAYOUTS = {
    "contiguous": lambda a, b: (a, b),
    "transposed": lambda a, b: (a.T, b.T),
    "stepped": lambda a, b: (a[::2], b[1::2]),
    "broadcast": lambda a, b: (a, b[:1]),
    "0-d": lambda a, b: (a[1, 2], b[3, 4]),
}


@pytest.mark.parametrize("layout", list(_LAYOUTS))
@pytest.mark.parametrize("w", [0.25, 0.5, 0.9])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_op_on_every_layout(layout: str, w: float, dtype: str) -> None:
    rng = np.random.default_rng(1)
    a, b = (rng.uniform(-3, 3, (24, 18)).astype(dtype) for _ in range(2))
    s = _LAYOUTS[layout](strided.from_numpy(a), strided.from_numpy(b))
    t = _LAYOUTS[layout](torch.from_numpy(a), torch.from_numpy(b))
    got, want = strided.lerp(*s, w), torch.lerp(*t, w)
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    with native.disabled():
        np.testing.assert_array_equal(_bits(strided.lerp(*s, w).numpy()), _bits(got.numpy()))
    with native.disabled():  # (lerp_into itself, NumPy's steps)
        slow = np.empty(got.shape, got.numpy().dtype)
        lerp_into(np.ascontiguousarray(t[0].numpy()).ravel(), np.ascontiguousarray(np.broadcast_to(
            t[1].numpy(), want.shape)).ravel(), got.numpy().dtype.type(w), slow.reshape(-1))
    np.testing.assert_array_equal(_bits(slow), _bits(np.ascontiguousarray(got.numpy())))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6 if dtype == "float32" else 1e-14, atol=1e-7)
    if layout in ("contiguous", "transposed"):
        x = _LAYOUTS[layout](strided.from_numpy(a.copy()), strided.from_numpy(b))[0]
        x.lerp_(s[1], w)
        np.testing.assert_array_equal(_bits(x.numpy()), _bits(got.numpy()))


@pytest.mark.parametrize("w", WEIGHTS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_in_place_lerp_calls_the_kernel_on_its_target_with_pytorchs_values(layout: str, w: float, dtype: str) -> None:
    """``x.lerp_(end, w)`` (an optimizer's ``exp_avg.lerp_(grad, 1 - beta1)``) runs the compiled pass
    with ``x``'s own run as its output: PyTorch's values (infinities, signed zeros, NaNs in place),
    its strides, its version count once autograd is in use, under no_grad and with grad mode on,
    and the kernels' absence gives the same bits (lerp_into's NumPy steps)."""
    rng = np.random.default_rng(5)
    a, b = (rng.uniform(-3, 3, (24, 18)).astype(dtype) for _ in range(2))
    a[0, :4] = [np.inf, -0.0, np.nan, 0.0]
    b[0, :4] = [1.0, 0.0, 2.0, -np.inf]
    strided.ones(1, requires_grad=True)  # (autograd in use: the write is counted, the front's path declines)
    for mode in (strided.no_grad, strided.enable_grad):
        x, e = _LAYOUTS[layout](strided.from_numpy(a.copy()), strided.from_numpy(b.copy()))
        tx, te = _LAYOUTS[layout](torch.from_numpy(a.copy()), torch.from_numpy(b.copy()))
        with mode(), torch.no_grad():
            assert x.lerp_(e, w) is x
            tx.lerp_(te, w)
        np.testing.assert_array_equal(x.numpy(), tx.numpy())
        assert x.stride() == tx.stride() and x._version == tx._version == 1
        y = _LAYOUTS[layout](strided.from_numpy(a.copy()), strided.from_numpy(b))[0]
        with native.disabled():
            y.lerp_(e, w)
        if w == w:  # (a NaN weight's payload is the kernels' and NumPy's own: values compared above)
            np.testing.assert_array_equal(_bits(np.ascontiguousarray(y.numpy())), _bits(np.ascontiguousarray(x.numpy())))


def _complex(shape: tuple, dtype: str, rng: np.random.Generator) -> np.ndarray:
    """Complex values over six orders of magnitude (the forms' roundings differ there)."""
    a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) * rng.choice([1e-3, 1.0, 1e3], size=shape)
    return np.asarray(a).astype(dtype)


def _laid(lib, v: np.ndarray, layout: str):
    t = lib.from_numpy(v.copy())
    return {"plain": t, "t": t.t() if t.ndim == 2 else t, "flip": t.flip(-1),
            "cut": t[..., 1:] if t.ndim and t.shape[-1] > 1 else t}[layout]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("shapes", [((40,), (40,), (40,)), ((5,), (5,), (5,)), ((), (5,), (5,)), ((5,), (), (5,)),
                                    ((5,), (5,), ()), ((), (), ()), ((3, 1), (), (1, 4)), ((), (3, 4), ()),
                                    ((3, 17), (17,), (3, 1)), ((7, 9), (7, 9), (7, 9)), ((5, 40), (5, 40), (5, 40))],
                         ids=str)
@pytest.mark.parametrize("layout", ["plain", "t", "flip", "cut"])
@pytest.mark.parametrize("weight", ["tensor", 0.3, 0.3 - 0.7j])
def test_complex_lerp_has_torchs_bits(dtype: str, shapes: tuple, layout: str, weight: object) -> None:
    """Complex lerp bit for bit as PyTorch 2.13's kernel: its vector blocks fmadd(coeff, end -
    input, base) with the product rounded (coeff w or w - 1), its scalar places input + w * (end -
    input) or end - (end - input) * (1 - w) with the product fused (strided rows too), and for
    complex64 with a weight tensor its vector blocks' choice of end made per pair of elements
    (the even one's |w| < 0.5). Before: the scalar formula rounded everywhere (29 / 168 of 420
    complex64 / complex128 cases differed, 359 of 720 over layouts)."""
    rng = np.random.default_rng(len(shapes[0]) * 11 + len(layout))
    for _ in range(4):
        a, b, c = (_complex(s, dtype, rng) for s in shapes)

        def run(lib, a=a, b=b, c=c):
            w = _laid(lib, c, layout) if weight == "tensor" else weight
            return lib.lerp(_laid(lib, a, layout), _laid(lib, b, layout), w)

        try:
            want = run(torch)
        except RuntimeError:  # (a layout whose shapes do not broadcast: strided refuses it too)
            with pytest.raises(RuntimeError):
                run(strided)
            return
        got = run(strided)
        assert got.shape == tuple(want.shape)
        w_np, g_np = np.ascontiguousarray(want.numpy()).reshape(-1), np.ascontiguousarray(got.numpy()).reshape(-1)
        np.testing.assert_array_equal(g_np.view(g_np.real.dtype), w_np.view(w_np.real.dtype))
