"""The compiled float64 fused multiply-add (``fma64`` in kernels/_specialkernel.c, C99's ``fma``)
behind :func:`strided.kernels.fused.fma_into` and :func:`~strided.kernels.fused.fma`: bit-equal to
the NumPy (Dekker) emulation on normal operands, bit-equal to PyTorch's float64 ``addcmul``,
``add(alpha=)`` and ``lerp`` (hardware fma, one rounding) on subnormal, overflowing, NaN and
signed-zero grids (the emulation too, since it is exact), an input partly overlapping ``out``
declined, and Adam's float64 steps against ``torch.optim.Adam``.

Where the kernel is not built the comparisons would compare the emulation with itself, so they
are not collected; tests/test_native_special.py's ``test_the_kernel_is_built`` fails then
wherever a compiler is.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native
from strided.kernels.fused import fma, fma_into

_KERNEL = native.special()

_TINY = np.finfo(np.float64).smallest_subnormal
_EDGES = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1.7e308, -1.7e308, 2.2250738585072014e-308,
                   _TINY, -_TINY, 1e-310, -3e-315, 1e-160, 3e154, 0.1, 0.7, 1.5], np.float64)


def _same_bits(got: np.ndarray, ref: np.ndarray) -> None:
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.dtype == ref.dtype == np.float64 and got.shape == ref.shape
    assert got.tobytes() == ref.tobytes(), np.flatnonzero(got.view(np.int64) != ref.view(np.int64))[:10]


def _grid() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (a, b, c) of the edge values, plus random subnormal-product cases."""
    a, b, c = (x.ravel() for x in np.meshgrid(_EDGES, _EDGES, _EDGES, indexing="ij"))
    rng = np.random.default_rng(7)
    n = 3000
    sa = rng.standard_normal(n) * 10.0 ** rng.integers(-320, -300, n)  # (subnormal, some normal)
    sb = rng.standard_normal(n)
    # (c near the smallest normal, 2.2e-308: where the emulation's error terms underflow and
    # it recomputes exactly)
    sc = rng.standard_normal(n) * 10.0 ** rng.integers(-310, -305, n)
    return np.concatenate([a, sa]), np.concatenate([b, sb]), np.concatenate([c, sc])


if _KERNEL is not None:  # (see the module docstring)

    def test_normal_operands_give_the_emulations_bits() -> None:
        rng = np.random.default_rng(1)
        a, b, c = (rng.standard_normal(9000) * 10.0 ** rng.integers(-30, 30, 9000) for _ in range(3))
        with np.errstate(all="ignore"), native.disabled():
            ref = fma(a, b, c)
            ref_scalar = fma(np.float64(0.7), b, c)
        out = np.empty_like(c)  # (9000: past the size that releases the GIL)
        fma_into(a, b, c, out)
        _same_bits(out, ref)
        fma_into(np.float64(0.7), b, c, out)
        _same_bits(out, ref_scalar)
        _same_bits(fma(a, b, c), ref)

    def test_subnormal_and_edge_grids_equal_torch_addcmul_bit_for_bit() -> None:
        a, b, c = _grid()
        ref = torch.addcmul(torch.tensor(c), torch.tensor(a), torch.tensor(b)).numpy()
        out = np.empty_like(c)
        fma_into(a, b, c, out)
        _same_bits(out, ref)
        _same_bits(fma(a, b, c), ref)
        with np.errstate(all="ignore"), native.disabled():
            emulated = fma(a, b, c)
        # (the emulation is exact too, since round-to-odd and the exact redo at the ends:
        # tests/test_fma_fallback.py; only a NaN's sign bit may differ)
        missed = (emulated.view(np.int64) != ref.view(np.int64)) & ~np.isnan(ref)
        assert not missed.any() and np.array_equal(np.isnan(emulated), np.isnan(ref))

    @pytest.mark.parametrize("alpha", [0.7, -0.3, 1e-300, 3.0])
    def test_add_alpha_addcmul_and_lerp_equal_torch_on_subnormals(alpha: float) -> None:
        a, b, c = _grid()
        with np.errstate(all="ignore"):
            x, y = torch.tensor(c), torch.tensor(a)
            sx, sy = strided.tensor(c), strided.tensor(a)
            sx.add_(sy, alpha=alpha)  # (the flat fast path: fma_into)
            _same_bits(sx.numpy(), x.add(y, alpha=alpha).numpy())
            _same_bits(strided.add(strided.tensor(c), sy, alpha=alpha).numpy(), x.add(y, alpha=alpha).numpy())
            _same_bits(strided.tensor(c).sub_(sy, alpha=alpha).numpy(), x.sub(y, alpha=alpha).numpy())
            _same_bits(strided.tensor(c).addcmul_(sy, strided.tensor(b), value=alpha).numpy(),
                       x.addcmul(y, torch.tensor(b), value=alpha).numpy())
            w = alpha if abs(alpha) < 1 else 0.75
            _same_bits(strided.tensor(c).lerp_(sy, w).numpy(), x.lerp(y, w).numpy())
            # non-contiguous: a transposed view takes fma(), the general path
            c2, a2 = c[:2500].reshape(50, 50).T, a[:2500].reshape(50, 50).T
            got = strided.tensor(c[:2500]).reshape(50, 50).T.add(strided.tensor(a[:2500]).reshape(50, 50).T,
                                                                 alpha=alpha)
            ref = torch.tensor(c2).add(torch.tensor(a2), alpha=alpha)
            _same_bits(np.ascontiguousarray(got.numpy()), ref.contiguous().numpy())

    def test_the_kernel_declines_a_partial_overlap_and_refuses_other_buffers() -> None:
        rng = np.random.default_rng(3)
        buf = rng.standard_normal(11) * 1e-310
        b = rng.standard_normal(10)
        before = buf.copy()
        assert _KERNEL.fma64(0.5, b, buf[1:], buf[:10]) is False  # (c one element past out)
        assert buf.tobytes() == before.tobytes()  # (nothing written)
        ref = torch.addcmul(torch.tensor(buf[1:]), torch.tensor(b), torch.tensor(0.5, dtype=torch.float64)).numpy()
        fma_into(np.float64(0.5), b, buf[1:], buf[:10])  # (fma() takes it: the kernel into a new array)
        _same_bits(buf[:10], ref)
        f64, f32 = np.ones(4), np.ones(4, np.float32)
        with pytest.raises(ValueError, match="float64"):
            _KERNEL.fma64(1.0, f32, f64, f64)
        with pytest.raises(ValueError, match="one length"):
            _KERNEL.fma64(1.0, f64, np.ones(3), f64)
        with pytest.raises((BufferError, ValueError), match="contiguous"):
            _KERNEL.fma64(1.0, np.ones(8)[::2], f64, f64)
        with pytest.raises(TypeError, match="4 arguments"):
            _KERNEL.fma64(1.0, f64, f64)
        # an output aliasing an input element for element is fine (read before written)
        x = np.array([1e-310, 2.0, -0.0])
        _KERNEL.fma64(0.7, x, x, x)
        t = torch.tensor([1e-310, 2.0, -0.0], dtype=torch.float64)
        _same_bits(x, torch.addcmul(t, t, torch.tensor(0.7, dtype=torch.float64)).numpy())

    def test_adam_float64_steps_equal_torch() -> None:
        rng = np.random.default_rng(4)
        w0 = rng.standard_normal((6, 5)) * np.array([1.0, 1e-300, 1e-310, 1e10, 1e-5])
        grads = [rng.standard_normal((6, 5)) * np.array([1.0, 1e-305, 1e-311, 1e5, 1e-3]) for _ in range(4)]
        sw = strided.tensor(w0).requires_grad_()
        tw = torch.tensor(w0, requires_grad=True)
        so = strided.optim.Adam([sw], lr=0.01, weight_decay=0.1)
        to = torch.optim.Adam([tw], lr=0.01, weight_decay=0.1)
        for g in grads:
            sw.grad = strided.tensor(g)
            tw.grad = torch.tensor(g)
            so.step()
            to.step()
            _same_bits(sw.detach().numpy(), tw.detach().numpy())
