"""``optim.Adam`` / ``optim.AdamW`` and the ops of their update against PyTorch 2.13 bit for bit,
with gradients over many orders of magnitude (1e-30..1e2, the float32 squares then subnormal or
zero), lengths past PyTorch's parallel grain (each chunk with its own scalar tail), odd lengths,
transposed (op-by-op path) and flat (one-kernel path) parameters, every option set, many steps.

Finding (session 34): the 1-ulp differences of Adam/AdamW come from ONE intermediate only,
``exp_avg_sq.sqrt()``. PyTorch's CPU float32/float64 ``sqrt`` runs MKL's VML (``vmsSqrt`` /
``vmdSqrt`` in VML_HA mode), which is not the correctly rounded square root: on an AVX-512 Xeon
about 0.6% of elements come out one ulp below it (exact root within ~0.06 ulp below a midpoint;
position independent, single elements too); the rate and the elements depend on the CPU MKL
dispatches for (``test_pow_bits.py`` measured 17% of float32 elements on another machine).
strided's ``sqrt`` is NumPy's correctly rounded one, a known mismatch (``test_fp_tests_kernel.py``
asserts it). Every other step - ``lerp_`` (fma from the nearer end), ``mul_``, ``addcmul_``,
the division by ``bias_correction2 ** 0.5``, ``add_(eps)``, ``addcdiv_``, ``add(alpha=)``,
decoupled ``mul_``, ``maximum`` - gives PyTorch's bits, which the tests here assert: with
PyTorch's sqrt put in strided's place, whole optimizer runs are bit-equal.

MKL's sqrt on this AVX-512 machine (not modelled in strided yet; reproduced bit for bit on ~5e6
random values per dtype, 1e-45..3e38 and 1e-323..1e300, with a C probe using the intrinsics):
float32 ``y = rsqrt14(x); s = x*y; h = 0.5f*y; r = fma(fnma(s, s, x), h, s)`` (``fnma(s, s, x)``
is ``x - s*s`` rounded once); float64 the same after one refinement of ``y`` from
``rsqrt14_pd``: ``y += (0.5*y) * fma(-(x*y), y, 1)`` (one Goldschmidt round on ``s, h`` gives the
same bits). Inputs below 2**-110 (float32) / 2**-960 (float64) are scaled by an even power of
two first (``x * 2**2k``, the root times ``2**-k``), or the residual underflows. Specials: +-0, inf,
NaN kept; -inf and negatives give +NaN (NumPy: -NaN). MKL's AVX2 and non-Intel paths are other algorithms.
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import torch

import strided
from strided import optim
from strided.kernels import adam_step, vml_route

pytestmark = pytest.mark.usefixtures("torch_threads_as_assumed")  # (conftest.py: PyTorch's chunks)

_UINT = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}
_SHAPES = [(300, 301), (17, 33), (70001,), (5,), (1,), (0,), (3, 4, 7)]
_OPTIONS = [{}, {"amsgrad": True}, {"betas": (0.0, 0.5)}, {"weight_decay": 0.1}, {"maximize": True},
            {"amsgrad": True, "maximize": True, "weight_decay": 0.3, "betas": (0.5, 0.0)},
            {"betas": (0.999, 0.9), "eps": 0.0, "lr": 0.5}, {"foreach": False, "fused": False}]


def _bits(a: Any) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype.kind == "c":  # (complex: its real and imaginary parts' words)
        a = np.stack([a.real, a.imag])
    return a.view(_UINT[a.dtype])


def _wide(rng: np.random.Generator, shape: tuple[int, ...], dt: Any) -> np.ndarray:
    """Values of random sign and magnitude 1e-30..1e2 (log-uniform)."""
    mag = 10.0 ** rng.uniform(-30, 2, size=shape)
    return (mag * rng.choice([-1.0, 1.0], size=shape)).astype(dt)


def _torch_sqrt_is_correctly_rounded() -> bool:
    v = np.random.default_rng(7).uniform(1, 4, size=100_000)
    return all(np.array_equal(_bits(torch.tensor(v.astype(dt)).sqrt().numpy()), _bits(np.sqrt(v.astype(dt))))
               for dt in (np.float32, np.float64))


_TORCH_SQRT_OFF = not _torch_sqrt_is_correctly_rounded()


@pytest.fixture
def torchs_sqrt(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """strided's Adam with PyTorch's sqrt in place of NumPy's: in the one-kernel update (its
    ``np.sqrt``) and in the op-by-op one (``Tensor.sqrt``), to show all else is PyTorch's."""
    def sqrt(a: Any, *args: Any, out: np.ndarray | None = None, **kwargs: Any) -> np.ndarray:
        assert not args and not kwargs
        root = torch.from_numpy(np.ascontiguousarray(a)).sqrt().numpy()
        if out is None:
            return root
        out[...] = root  # (the update writes its roots into a scratch array it owns)
        return out

    proxy = types.SimpleNamespace(**{k: getattr(np, k) for k in dir(np) if not k.startswith("__")})
    proxy.sqrt = sqrt
    monkeypatch.setattr(adam_step, "np", proxy)

    def tensor_sqrt(self: strided.Tensor) -> strided.Tensor:
        return strided.tensor(torch.from_numpy(np.array(self.numpy())).sqrt().numpy())

    monkeypatch.setattr(strided.Tensor, "sqrt", tensor_sqrt)
    yield


def _run(shape: tuple[int, ...], dt: Any, cls: str, options: dict[str, Any], *, steps: int = 6,
         transposed: bool = False, seed: int = 0) -> None:
    """``steps`` steps of torch's and strided's optimizer ``cls`` from the same start; asserts the
    parameters' and every state tensor's bits after each step."""
    rng = np.random.default_rng(seed)
    p0 = rng.standard_normal(shape).astype(dt)
    if p0.dtype.kind == "c":
        p0 = p0 + 1j * rng.standard_normal(shape).astype(dt)
    tp = torch.tensor(p0.copy(), requires_grad=True)
    if transposed and len(shape) == 2:  # (a column-major parameter: the op-by-op update)
        sp = strided.tensor(np.ascontiguousarray(p0.T)).t().detach().requires_grad_(True)
    else:
        sp = strided.tensor(p0.copy(), requires_grad=True)
    topt = getattr(torch.optim, cls)([tp], **options)
    sopt = getattr(optim, cls)([sp], **options)
    for i in range(steps):
        g = _wide(rng, shape, dt)
        if g.dtype.kind == "c":
            g = g + 1j * _wide(rng, shape, dt)
        tp.grad = torch.tensor(g.copy())
        sp.grad = strided.tensor(g.copy())
        topt.step()
        sopt.step()
        np.testing.assert_array_equal(_bits(sp.detach().numpy()), _bits(tp.detach().numpy()),
                                      err_msg=f"param, step {i + 1}")
        for key, want in topt.state[tp].items():
            got = sopt.state[sp][key]
            np.testing.assert_array_equal(_bits(got.numpy()), _bits(want.numpy()), err_msg=f"{key}, step {i + 1}")


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape", _SHAPES)
def test_adam_and_adamw_with_torchs_sqrt_equal_torch_bit_for_bit(torchs_sqrt: None, shape: tuple[int, ...],
                                                                   dt: Any) -> None:
    steps = 3 if np.prod(shape) > 10_000 else 6  # (past the grain: PyTorch's two chunks, each with a tail)
    for options in _OPTIONS:
        _run(shape, dt, "Adam", options, steps=steps)
    for options in ({}, {"amsgrad": True, "weight_decay": 0.5}, {"weight_decay": 0.0, "maximize": True}):
        _run(shape, dt, "AdamW", options, steps=steps)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_adam_op_by_op_path_with_torchs_sqrt_equals_torch_bit_for_bit(torchs_sqrt: None, dt: Any) -> None:
    for options in (_OPTIONS[0], _OPTIONS[1], _OPTIONS[5]):
        _run((181, 203), dt, "Adam", options, transposed=True, steps=3)
        _run((17, 33), dt, "AdamW", options, transposed=True, steps=3)


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_complex_adam_with_torchs_sqrt_equals_torch_bit_for_bit(torchs_sqrt: None, dt: Any) -> None:
    """(PyTorch and strided update a complex parameter as pairs of reals: view_as_real)"""
    for options in (_OPTIONS[0], _OPTIONS[5]):
        _run((17, 33), dt, "Adam", options, steps=3)
        _run((7,), dt, "AdamW", options, steps=3)


# (with the MKL VML route, kernels.vml_route, strided's sqrt is PyTorch's: the runs are bit-equal;
# without MKL, or with STRIDED_BLAS=openblas, NumPy's correctly rounded root)
_VML_ON = vml_route.fresh("sqrt", np.ones(1, np.float32)) is not None


@pytest.mark.xfail(_TORCH_SQRT_OFF and not _VML_ON, strict=True,
                   reason="PyTorch's CPU sqrt (MKL VML, HA) is not correctly rounded here; strided's "
                   "(NumPy's, without the MKL VML route) is")
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_adam_equals_torch_bit_for_bit(dt: Any) -> None:
    _run((300, 301), dt, "Adam", {}, steps=3)


_OP_SHAPES = [(300, 301), (70001,), (45150,), (33,), (17, 33), (16,), (7,)]


def _layouts(a: np.ndarray) -> Iterator[tuple[strided.Tensor, torch.Tensor]]:
    """The same values as (strided, torch) tensors: row-major, and column-major (2-d)."""
    yield strided.tensor(a.copy()), torch.tensor(a.copy())
    if a.ndim == 2:
        yield strided.tensor(np.ascontiguousarray(a.T)).t(), torch.tensor(np.ascontiguousarray(a.T)).t()


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape", _OP_SHAPES)
def test_the_update_ops_equal_torch_bit_for_bit(shape: tuple[int, ...], dt: Any) -> None:
    """lerp_, mul_, addcmul_, div by a number, add_, addcdiv_, add(alpha=), maximum: in place,
    with the optimizer's kinds of operands and numbers, contiguous and transposed."""
    rng = np.random.default_rng(3)
    g, m, p = _wide(rng, shape, dt), _wide(rng, shape, dt), rng.standard_normal(shape).astype(dt)
    v, v2 = np.abs(_wide(rng, shape, dt)), np.abs(_wide(rng, shape, dt))
    cases = [
        ("lerp_", m, (g, 0.1)), ("lerp_", m, (g, 1.0)), ("lerp_", m, (g, 0.5)), ("lerp_", m, (g, 0.7)),
        ("mul_", v, (0.999,)), ("mul_", p, (1 - 1e-3 * 0.1,)),
        ("addcmul_", v, (g, g), {"value": 1 - 0.999}), ("addcmul_", v, (g, g), {"value": 0.5}),
        ("addcmul_", v, (g, m), {"value": 1.0}),
        ("div_", v, (0.0316227766016838,)), ("add_", v, (1e-8,)),
        ("addcdiv_", p, (m, v), {"value": -1e-3 / (1 - 0.9**3)}), ("addcdiv_", p, (m, v + 1), {"value": -3.0}),
        ("add_", g, (p,), {"alpha": 0.1}),
    ]
    for name, target, others, *kw in cases:
        kwargs = kw[0] if kw else {}
        for (s, t), *pairs in zip(_layouts(target), *(_layouts(o) for o in others if isinstance(o, np.ndarray))):
            args_s = [x for x, _ in pairs] + [o for o in others if not isinstance(o, np.ndarray)]
            args_t = [y for _, y in pairs] + [o for o in others if not isinstance(o, np.ndarray)]
            assert getattr(s, name)(*args_s, **kwargs) is s
            getattr(t, name)(*args_t, **kwargs)
            np.testing.assert_array_equal(_bits(s.numpy()), _bits(t.numpy()), err_msg=f"{name} {kwargs}")
    for (s, t), (s2, t2) in zip(_layouts(v), _layouts(v2)):
        np.testing.assert_array_equal(_bits(strided.maximum(s, s2).numpy()), _bits(torch.maximum(t, t2).numpy()))
