"""Complex lerp's compiled kernel (``complex_lerp``, _complex_lerp.h) against the NumPy emulation
it replaces (``binary_more._complex_lerp_emulated``, kept as the reference) and against PyTorch:
the same bits over hypothesis layouts (row-major, permuted, flipped, stepped, broadcast, 0-d
operands), values with NaN / inf / -0.0 / huge / tiny components, weights at exactly |w| = 0.5,
number and tensor weights, fresh results, ``out=`` and in-place ``lerp_``; misaligned memory
(copied aligned for the kernel); long runs cut into PyTorch's parallel pieces.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import strided
from strided.kernels import native
from strided.ops.elementwise import binary_more

_KERNEL = native.special()
pytestmark = pytest.mark.skipif(_KERNEL is None or not hasattr(_KERNEL, "complex_lerp"),
                                reason="the compiled special functions are not built")

_PARTS = {  # (components: specials, magnitudes at the ends of the range, the 0.5 boundary)
    "complex64": [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45, -1e-40, 1e-38, 3e38, -3.4e38, 0.5, -0.5, 0.3, 0.4, 1.0],
    "complex128": [0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, -1e-310, 1e-300, 1e308, -1.7e308, 0.5, -0.5, 0.3, 0.4, 1.0],
}
_WEIGHTS = [0.5, -0.5, 0.5j, -0.5j, 0.3 + 0.4j, 0.4 - 0.3j, 0.6 + 0.8j, 0.4999999, 0.5000001, 0.0, -0.0, 1.0, 0.25,
            0.75, 1.5, -0.3, np.nan, np.inf, 1e-30, 0.3 - 0.7j, complex(0.0, -0.0)]


def _bits(v: np.ndarray) -> np.ndarray:
    v = np.ascontiguousarray(v)
    return v.view(np.uint32 if v.dtype == np.complex64 else np.uint64).reshape(-1)


def _same(got: np.ndarray, want: np.ndarray, nan_bits: bool) -> None:
    """Equal bits (signed zeros included); ``nan_bits`` False: any NaN matches any NaN."""
    g, w = _bits(got), _bits(want)
    if not nan_bits:
        parts = got.real.dtype
        both = np.isnan(np.ascontiguousarray(got).view(parts).reshape(-1)) & \
            np.isnan(np.ascontiguousarray(want).view(parts).reshape(-1))
        g, w = g[~both], w[~both]
    np.testing.assert_array_equal(g, w)


@hs.composite
def _values(draw, shape: tuple, dtype: str) -> np.ndarray:
    n = int(np.prod(shape))
    part = hs.one_of(hs.sampled_from(_PARTS[dtype]),
                     hs.floats(-1e3, 1e3, width=32 if dtype == "complex64" else 64))
    re = draw(hs.lists(part, min_size=n, max_size=n))
    im = draw(hs.lists(part, min_size=n, max_size=n))
    with np.errstate(all="ignore"):
        return (np.asarray(re, np.float64) + 1j * np.asarray(im, np.float64)).astype(dtype).reshape(shape)


@hs.composite
def _weights(draw, shape: tuple, dtype: str) -> np.ndarray:
    n = int(np.prod(shape))
    near_half = hs.floats(0, 6.3).map(lambda t: 0.5 * complex(np.cos(t), np.sin(t)))  # (|w| within ulps of 0.5)
    w = draw(hs.lists(hs.one_of(hs.sampled_from(_WEIGHTS), hs.complex_numbers(max_magnitude=2), near_half),
                      min_size=n, max_size=n))
    return np.asarray(w, np.complex128).astype(dtype).reshape(shape)


_LAYOUTS = ["plain", "perm", "flip", "step"]


def _laid(lib, v: np.ndarray, layout: str):
    """A tensor of ``v``'s values in ``layout`` (the same steps for torch and strided)."""
    if layout == "perm" and v.ndim > 1:
        p = list(range(v.ndim))[::-1]
        return lib.from_numpy(v.transpose(p).copy()).permute(*p)
    if layout == "flip" and v.ndim:
        return lib.from_numpy(np.flip(v, -1).copy()).flip(-1)
    if layout == "step" and v.ndim:
        big = np.zeros(v.shape[:-1] + (2 * v.shape[-1],), v.dtype)
        big[..., ::2] = v
        return lib.from_numpy(big)[..., ::2]
    return lib.from_numpy(v.copy())


@hs.composite
def _cases(draw):
    dtype = draw(hs.sampled_from(["complex64", "complex128"]))
    shape = tuple(draw(hs.lists(hs.sampled_from([1, 2, 3, 5, 8, 9, 17, 20]), min_size=0, max_size=3)))
    mode = draw(hs.sampled_from(["fresh", "out", "inplace"]))

    def sub(full: bool) -> tuple:  # (an operand's shape: broadcast to ``shape``)
        if full:
            return shape
        keep = draw(hs.integers(0, len(shape)))
        return tuple(n if draw(hs.booleans()) else 1 for n in shape[len(shape) - keep:])

    shapes = [sub(mode == "inplace" or draw(hs.booleans())), sub(draw(hs.booleans())), sub(draw(hs.booleans()))]
    a, b = draw(_values(shapes[0], dtype)), draw(_values(shapes[1], dtype))
    weight = draw(hs.one_of(_weights(shapes[2], dtype), _weights((), dtype).map(complex), hs.sampled_from(_WEIGHTS)))
    layouts = [draw(hs.sampled_from(_LAYOUTS)) for _ in range(4)]
    return dtype, shape, mode, a, b, weight, layouts


def _run(lib, case):
    dtype, shape, mode, a, b, weight, layouts = case
    x, y = _laid(lib, a, layouts[0]), _laid(lib, b, layouts[1])
    w = _laid(lib, weight, layouts[2]) if isinstance(weight, np.ndarray) else weight
    if mode == "inplace":
        return x.lerp_(y, w)
    if mode == "out":
        full = np.broadcast_shapes(a.shape, b.shape, np.shape(weight))  # (out= of the result's shape)
        out = _laid(lib, np.zeros(full, dtype), layouts[3])
        lib.lerp(x, y, w, out=out)
        return out
    return lib.lerp(x, y, w)


def _emulated(case):
    """strided's result with the compiled kernel off (the NumPy emulation, the reference)."""
    with mock.patch.object(binary_more, "_complex_lerp_compiled", lambda *args: None):
        return _run(strided, case)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_cases())
def test_kernel_has_the_emulations_and_torchs_bits(case) -> None:
    try:
        want = _run(torch, case)
    except RuntimeError:  # (shapes PyTorch refuses: strided refuses them too)
        with pytest.raises(RuntimeError):
            _run(strided, case)
        return
    with np.errstate(all="ignore"):
        got, ref = _run(strided, case), _emulated(case)
    assert got.shape == tuple(want.shape) == ref.shape
    assert got.stride() == tuple(want.stride())
    _same(got.numpy(), ref.numpy(), nan_bits=True)
    _same(got.numpy(), want.resolve_conj().numpy(), nan_bits=False)


def test_the_kernel_runs(monkeypatch) -> None:
    """The compiled path is the one taken (the emulation is not called) on a dense and a
    transposed layout, with a tensor and a number weight."""
    calls = []
    monkeypatch.setattr(binary_more, "_complex_lerp_emulated", lambda *args: calls.append(args))
    a = strided.from_numpy((np.arange(12) * (1 + 2j)).astype(np.complex64).reshape(3, 4))
    for w in (a * 0.01, 0.3, 0.7 + 0.1j):
        strided.lerp(a, a * 2, w)
        strided.lerp(a.t(), (a * 2).t(), w if not isinstance(w, strided.Tensor) else w.t())
    assert calls == []


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("weight", ["tensor", 0.3, 0.7 - 0.2j])
def test_misaligned_memory_has_torchs_bits(dtype: str, weight) -> None:
    """Operands at an odd address: copied to aligned memory for the kernel, PyTorch's bits (before,
    the compiled forms refused them and the scalar formula ran: 21 of 80 complex64 parts an ulp off)."""
    rng = np.random.default_rng(5)
    vals = [(rng.standard_normal(40) + 1j * rng.standard_normal(40)).astype(dtype) for _ in range(3)]
    vals[2] = vals[2] * 0.5

    def unaligned(v):
        buf = np.zeros(v.nbytes + 16, np.uint8)
        buf[3: 3 + v.nbytes] = v.view(np.uint8)
        u = np.frombuffer(buf.data, dtype=v.dtype, count=v.size, offset=3)
        assert not u.flags.aligned
        return u

    ts = [strided.from_numpy(unaligned(v)) for v in vals]
    w_s = ts[2] if weight == "tensor" else weight
    w_t = torch.from_numpy(vals[2].copy()) if weight == "tensor" else weight
    got = strided.lerp(ts[0], ts[1], w_s)
    want = torch.lerp(torch.from_numpy(vals[0].copy()), torch.from_numpy(vals[1].copy()), w_t)
    _same(got.numpy(), want.numpy(), nan_bits=True)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("n", [32768 + 9, 70001])
@pytest.mark.parametrize("mode", ["fresh", "out", "inplace"])
def test_long_runs_in_pytorchs_pieces(dtype: str, n: int, mode: str, torch_threads_as_assumed) -> None:
    """A run past PyTorch's grain: its parallel pieces each have their own tail and pairs (out=:
    written straight into it; in place: into a fresh array first, then copied)."""
    rng = np.random.default_rng(n)
    a, b = ((rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype) for _ in range(2))
    w = (rng.choice([0.5, 0.49999997, 0.3 + 0.4j, 0.7, 0.1], n) * np.exp(1j * rng.uniform(0, 6.3, n))).astype(dtype)
    case = (dtype, (n,), mode, a, b, w, ["plain"] * 4)
    got, ref, want = _run(strided, case), _emulated(case), _run(torch, case)
    _same(got.numpy(), ref.numpy(), nan_bits=True)
    _same(got.numpy(), want.numpy(), nan_bits=True)



@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("shape", [(), (1,), (5,), (6,), (20,), (3, 7)])
@pytest.mark.parametrize("weight", ["number", "tensor"])
def test_weights_within_ulps_of_half(dtype: str, shape: tuple, weight: str) -> None:
    """PyTorch's weight test where |w| is within ulps of 0.5: abs_2_() < 0.25 rounded at vector
    places, fma(re, re, im * im) < 0.25 elsewhere (0-d, tails), number weights too. Before:
    np.abs(w) < 0.5, about 8% of these weights took the other end."""
    rng = np.random.default_rng(len(shape) * 7 + len(dtype))
    z, o = np.zeros(shape, dtype), np.ones(shape, dtype)
    for t in rng.uniform(0, 6.3, 60):
        w = 0.5 * complex(np.cos(t), np.sin(t))
        wv = np.full(shape, w, dtype) if weight == "tensor" else complex(np.asarray(w, dtype))
        case = (dtype, shape, "fresh", z, o, wv, ["plain"] * 4)
        _same(_run(strided, case).numpy(), _run(torch, case).numpy(), nan_bits=True)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("shapes", [((300, 121), (121,)), ((121, 300), (121, 1)), ((5, 70, 101), (70, 1))], ids=str)
def test_broadcast_rows_past_the_grain(dtype: str, shapes: tuple, torch_threads_as_assumed) -> None:
    """Rows of PyTorch's 2-d loop (an end broadcast along them) cut by its parallel pieces: the
    places and pairs from loop_positions, the kernel's bits the emulation's and torch's."""
    rng = np.random.default_rng(len(shapes[1]))
    full, part = shapes
    a, w = ((rng.standard_normal(full) + 1j * rng.standard_normal(full)).astype(dtype) for _ in range(2))
    w = (w * 0.36).astype(dtype)
    b = (rng.standard_normal(part) + 1j * rng.standard_normal(part)).astype(dtype)
    case = (dtype, full, "fresh", a, b, w, ["plain"] * 4)
    got, ref, want = _run(strided, case), _emulated(case), _run(torch, case)
    _same(got.numpy(), ref.numpy(), nan_bits=True)
    _same(got.numpy(), want.numpy(), nan_bits=True)
