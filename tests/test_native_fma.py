"""The compiled float32 fused multiply-add (``fma32`` in kernels/_specialkernel.c) against the
NumPy steps it replaces in :func:`strided.kernels.fused.fma_into` (the float64 product, the
float64 sum, one cast), bit for bit: NaN, infinities, signed zeros, subnormals, float32 overflow,
a scalar or an array multiplier, ``out`` aliasing an input; an input partly overlapping ``out``
is declined (nothing written) and NumPy's steps run. Then the ops on that path (``add_`` with
``alpha``, ``addcmul_``, ``lerp_``, ``optim.Adam``'s step) with the kernel on and forced off.

Where the kernel is not built the comparisons would compare NumPy's steps with themselves, so
they are not collected; tests/test_native_special.py's ``test_the_kernel_is_built`` fails then
wherever a compiler is.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import fresh_runs
import strided
from strided.kernels import native
from strided.kernels.fused import fma_into

_KERNEL = native.special()

_F32 = np.finfo(np.float32)
_EDGES = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, _F32.max, -_F32.max, _F32.tiny,
                   _F32.smallest_subnormal, -_F32.smallest_subnormal, 3e38, 1e-38, 0.1, 1.5], np.float32)


def _numpy_steps(a: object, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """What fma_into's NumPy path writes (the reference)."""
    out = np.empty_like(c)
    with np.errstate(all="ignore"), native.disabled():
        fma_into(a, b, c, out)
    return out


def _operands(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    with np.errstate(over="ignore"):  # (some overflow to infinity: edges too)
        b = (rng.standard_normal(n) * rng.choice([1e-40, 1e-3, 1.0, 1e20, 3e38], n)).astype(np.float32)
        c = (rng.standard_normal(n) * rng.choice([1e-40, 1e-3, 1.0, 1e20, 3e38], n)).astype(np.float32)
    a = (rng.standard_normal(n) * 2).astype(np.float32)
    grid_b, grid_c = np.meshgrid(_EDGES, _EDGES)
    return (np.concatenate([a, np.resize(_EDGES[::-1], grid_b.size)]), np.concatenate([b, grid_b.ravel()]),
            np.concatenate([c, grid_c.ravel()]))


def _same_bits(got: np.ndarray, ref: np.ndarray) -> None:
    assert got.dtype == ref.dtype == np.float32
    assert got.tobytes() == ref.tobytes(), np.flatnonzero(got.view(np.int32) != ref.view(np.int32))[:10]


if _KERNEL is not None:  # (see the module docstring)

    @pytest.mark.parametrize("scalar", [np.float32(0.1), np.float32(-3.0), np.float32(0.0), np.float32(-0.0),
                                        np.float32(np.inf), np.float32(np.nan), np.float32(1e-40), 0.1, 2.0**70])
    def test_a_scalar_multiplier_gives_numpys_bits(scalar: object) -> None:
        _, b, c = _operands(np.random.default_rng(1), 300)
        out = np.empty_like(c)
        with np.errstate(all="ignore"):
            fma_into(scalar, b, c, out)
        _same_bits(out, _numpy_steps(scalar, b, c))

    def test_an_array_multiplier_and_outputs_aliasing_inputs_give_numpys_bits() -> None:
        a, b, c = _operands(np.random.default_rng(2), 9000)  # (past the size that releases the GIL)
        ref = _numpy_steps(a, b, c)
        out = np.empty_like(c)
        fma_into(a, b, c, out)
        _same_bits(out, ref)
        for into in ("a", "b", "c"):  # out is one of the inputs itself: read before written, element by element
            ops = {"a": a.copy(), "b": b.copy(), "c": c.copy()}
            fma_into(ops["a"], ops["b"], ops["c"], ops[into])
            _same_bits(ops[into], ref)

    def test_a_partial_overlap_is_declined_and_numpy_computes_it() -> None:
        rng = np.random.default_rng(3)
        buf = rng.standard_normal(11).astype(np.float32)
        b = rng.standard_normal(10).astype(np.float32)
        before = buf.copy()
        assert _KERNEL.fma32(0.5, b, buf[1:], buf[:10]) is False  # c one element past out: NumPy's buffering
        assert buf.tobytes() == before.tobytes()  # (nothing written)
        ref = _numpy_steps(np.float32(0.5), b, buf[1:].copy())
        fma_into(np.float32(0.5), b, buf[1:], buf[:10])
        _same_bits(buf[:10], ref)

    def test_the_kernel_refuses_what_is_not_flat_float32() -> None:
        f32, f64 = np.ones(4, np.float32), np.ones(4)
        with pytest.raises(ValueError, match="float32"):
            _KERNEL.fma32(1.0, f64, f32, f32)
        with pytest.raises(ValueError, match="one length"):
            _KERNEL.fma32(1.0, f32, np.ones(3, np.float32), f32)
        with pytest.raises((BufferError, ValueError), match="contiguous"):  # (NumPy's own refusal)
            _KERNEL.fma32(1.0, np.ones(8, np.float32)[::2], f32, f32)
        with pytest.raises(TypeError, match="4 arguments"):
            _KERNEL.fma32(1.0, f32, f32)
        read_only = np.ones(4, np.float32)
        read_only.flags.writeable = False
        with pytest.raises((BufferError, ValueError), match="read-only|writable"):
            _KERNEL.fma32(1.0, f32, f32, read_only)
        # fma_into itself falls back to NumPy's steps for such operands (a 0-d multiplier array)
        out = np.empty(4, np.float32)
        fma_into(np.array(np.float32(0.1)), f32, f32, out)
        _same_bits(out, _numpy_steps(np.float32(0.1), f32, f32))

    def _optimizer_ops(native_on: bool, dtype: strided.dtype) -> list[bytes]:
        """Adam-by-hand's fused ops and one optim.Adam step on the flat fast paths, kernel on or off."""
        rng = np.random.default_rng(4)
        g = strided.tensor(rng.standard_normal((5, 7)).astype(np.float32)).to(dtype)
        m = strided.tensor(rng.standard_normal((5, 7)).astype(np.float32)).to(dtype)
        v = strided.tensor(rng.random((5, 7)).astype(np.float32)).to(dtype)
        w = strided.tensor(rng.standard_normal((5, 7)).astype(np.float32)).to(dtype).requires_grad_()
        ctx = native.disabled() if not native_on else strided.no_grad()
        with ctx, strided.no_grad():
            m.mul_(0.9).add_(g, alpha=0.1)
            v.mul_(0.999).addcmul_(g, g, value=0.001)
            w.addcdiv_(m, v.sqrt().add_(1e-8), value=-0.01)
            m.lerp_(g, 0.1)
            m.sub_(g, alpha=3.0)
            w.grad = g.clone()
            opt = strided.optim.Adam([w], lr=0.01)
            opt.step()
        return [t.detach().numpy().tobytes() for t in (m, v, w)]

    @pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
    def test_the_optimizer_ops_give_the_same_bits_with_the_kernel_off(dtype: strided.dtype) -> None:
        assert _optimizer_ops(True, dtype) == _optimizer_ops(False, dtype)

    def test_addcmul_and_add_alpha_still_round_once_as_pytorch() -> None:
        rng = np.random.default_rng(5)
        x, y, z = (rng.standard_normal(4096).astype(np.float32) for _ in range(3))
        sx, tx = strided.tensor(x), torch.tensor(x)
        sx.addcmul_(strided.tensor(y), strided.tensor(z), value=0.3)
        tx.addcmul_(torch.tensor(y), torch.tensor(z), value=0.3)
        sx.add_(strided.tensor(y), alpha=0.7)
        tx.add_(torch.tensor(y), alpha=0.7)
        np.testing.assert_array_equal(sx.numpy(), tx.numpy())


@pytest.mark.skipif(_KERNEL is None, reason="the compiled kernel is not built")
def test_the_baseline_copy_of_the_loops_gives_the_same_bits():
    """fma32's and fma64's loops are compiled twice (baseline SSE2, and AVX2 + FMA picked at the
    first call where the CPU has them): the baseline copy, forced in a fresh process with
    STRIDED_NATIVE_NO_FMA3, writes the same bits as this process's copy, on edge values,
    subnormals and every length around the vector widths, scalar and array multipliers."""

    script = (
        "import numpy as np\n"
        "from strided.kernels import native\n"
        "k = native.special()\n"
        "rng = np.random.default_rng(7)\n"
        "edges = np.array([0.0, -0.0, 1.0, np.inf, -np.inf, np.nan, 3.4e38, 1e-45, -1e-40, 1e-38, 0.1], np.float32)\n"
        "for n in list(range(0, 20)) + [255, 1000, 8191, 8192, 8197]:\n"
        "    for dt in (np.float32, np.float64):\n"
        "        sc = rng.choice([1e-40, 1e-3, 1.0, 1e20, 3e38], n) if n else np.zeros(0)\n"
        "        a, b, c = ((rng.standard_normal(n) * sc).astype(dt) for _ in range(3))\n"
        "        if n > len(edges):\n"
        "            b[:len(edges)] = edges; c[-len(edges):] = edges\n"
        "        out = np.empty_like(c)\n"
        "        f = k.fma32 if dt is np.float32 else k.fma64\n"
        "        with np.errstate(all='ignore'):\n"
        "            assert f(a, b, c, out)\n"
        "            print(out.tobytes().hex())\n"
        "            assert f(0.3, b, c, out)\n"
        "            print(out.tobytes().hex())\n")
    runs = fresh_runs.outputs(script, {}, {"STRIDED_NATIVE_NO_FMA3": "1"})
    assert runs[0] == runs[1] and len(runs[0]) > 10000


@pytest.mark.parametrize("native_on", [True, False])
def test_float32_fused_ops_round_once_at_ties_as_torch(native_on: bool) -> None:
    """Where the float64 sum lands on a float32 tie while the exact sum is off it, the double
    rounding (float64, then float32) picked the even neighbour: add(-1e-30, 1 + 2**-23, alpha=3)
    gave 3 + 2 ulps, PyTorch's fmadd 3 + 1 (red team). Both paths, every fused float32 op, and a
    sweep over wide magnitudes (ties and subnormal results are common there): PyTorch's bits."""
    import contextlib

    import strided as st
    from strided.kernels import native

    ctx = contextlib.nullcontext() if native_on else native.disabled()
    with ctx:
        assert st.add(st.tensor([-1e-30]), st.tensor([1 + 2**-23]), alpha=3).tolist() == [3.000000238418579]
        rng = np.random.default_rng(12)
        n = 3000
        x, y, z = ((rng.standard_normal(n) * 10.0 ** rng.integers(-40, 38, n)).astype(np.float32) for _ in range(3))
        x[:8] = [-1e-30, 1e-30, -2**-140, 2**-149, 0.0, -0.0, 3e38, -3e38]
        y[:8] = [1 + 2**-23, 1 - 2**-24, 2**-127, 2**-149, -0.0, 0.0, 1.0, -1.0]
        sx, sy, sz = (st.from_numpy(v) for v in (x, y, z))
        tx, ty, tz = (torch.from_numpy(v) for v in (x, y, z))
        with np.errstate(all="ignore"):
            pairs = [(st.add(sx, sy, alpha=3), torch.add(tx, ty, alpha=3)),
                     (st.sub(sx, sy, alpha=0.7), torch.sub(tx, ty, alpha=0.7)),
                     (st.addcmul(sx, sy, sz, value=0.3), torch.addcmul(tx, ty, tz, value=0.3)),
                     (st.lerp(sx, sy, 0.3), torch.lerp(tx, ty, 0.3)),
                     (st.lerp(sx, sy, 0.8), torch.lerp(tx, ty, 0.8))]
            inplace = sx.clone()
            inplace.add_(sy, alpha=3)
            pairs.append((inplace, torch.add(tx, ty, alpha=3)))
    for got, want in pairs:
        g, w = got.numpy(), want.numpy()
        nan = np.isnan(w)
        assert np.array_equal(np.isnan(g), nan)
        assert g[~nan].tobytes() == w[~nan].tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("native_on", [True, False])
def test_fused_nans_are_pytorchs(native_on: bool, dtype: type) -> None:
    """Which NaN a fused multiply-add returns: PyTorch's (addcmul on its vectorized and scalar
    loops alike): the first NaN operand of tensor1, tensor2, self, quieted, and the default NaN
    where none is (inf * 0). The float64 steps returned the default NaN for inf * 0 + NaN before."""
    import contextlib

    uint, top, quiet = (np.uint32, 0xFF800000, 1 << 22) if dtype == np.float32 else (np.uint64, 0xFFF << 52, 1 << 51)

    def nan(sign: int, payload: int) -> float:
        bits = (top if sign else top & ~(1 << (31 if dtype == np.float32 else 63))) | quiet | payload
        return np.array([bits], uint).view(dtype)[0]

    cases = [(np.inf, 0.0, nan(0, 7)), (0.0, -np.inf, nan(1, 7)), (nan(1, 1), 1.0, nan(0, 3)),
             (nan(0, 1), nan(1, 2), nan(0, 3)), (nan(1, 5), nan(0, 2), 1.0), (1.0, nan(1, 2), nan(0, 3)),
             (np.inf, 0.0, 1.0), (np.inf, 1.0, -np.inf), (2.0, 3.0, 4.0)]
    t1, t2, self_ = (np.array([c[i] for c in cases] * 40, dtype) for i in range(3))  # (vector and tail)
    want = torch.addcmul(torch.from_numpy(self_), torch.from_numpy(t1), torch.from_numpy(t2)).numpy()
    with contextlib.nullcontext() if native_on else native.disabled():
        got = strided.addcmul(strided.tensor(self_), strided.tensor(t1), strided.tensor(t2)).numpy()
        out = np.empty_like(self_)
        with np.errstate(all="ignore"):
            fma_into(t1, t2, self_, out)
    assert got.view(uint).tolist() == want.view(uint).tolist()
    assert out.view(uint).tolist() == want.view(uint).tolist()


@pytest.mark.parametrize("dt", [np.float32, np.float16])
def test_fma_of_float32_and_float16_by_the_kernel_is_the_numpy_steps_bits(dt) -> None:
    """fused.fma of float32/float16 operands takes the compiled fma32 (a number moved first where
    it is the second operand and no NaN): the NumPy steps' bits, NaNs, infinities and broadcasts
    included."""
    from strided.kernels import fused, native

    rng = np.random.default_rng(31)
    a, b, c = (rng.standard_normal((5, 37)).astype(dt) for _ in range(3))
    a[0, :4], b[0, :4], c[0, :4] = [np.nan, 0, np.inf, 1], [np.inf, np.inf, 0, np.nan], [1, np.nan, -np.inf, 2]
    cases = [(a, b, c), (a, dt(1.5), c), (dt(0.25), b, c), (a, b, c[:1]), (a, dt(np.nan), c), (a[:, :1], b, dt(3))]
    for x, y, z in cases:
        with np.errstate(all="ignore"):
            got = fused.fma(x, y, z)
            with native.disabled():
                want = fused.fma(x, y, z)
        assert got.dtype == want.dtype == np.dtype(dt) and got.shape == want.shape
        assert got.tobytes() == want.tobytes()
