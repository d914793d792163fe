"""float64 ``sinh cosh atanh log1p expm1 softplus``'s four-lane AVX2 forms (_sleef_hyper.h's sleef_sinhcosh4 /
sleef_atanh4, _sleef_log1p.h's sleef_log1p4_unit, _sleefkernel.c's sleef_expm1d4 and softplus_block4d: what
ATen's Sleef_sinhd4_u10 / coshd4 / atanhd4 / log1pd4 / expm1d4 compute, softplus its expd4 and log1pd4): bit for bit the one-lane form's and torch's, over
specials, random 64-bit words, every length 0..40 and every start offset (the four-lane step and its
one-lane tail)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs
from hypothesis.extra import numpy as hnp

import strided
from strided.kernels import native
from strided.kernels.sleef import ATANH, COSH, EXPM1, LOG1P, SINH, SOFTPLUS

OPS = {"sinh": SINH, "cosh": COSH, "atanh": ATANH, "log1p": LOG1P, "expm1": EXPM1}
needs_kernel = pytest.mark.skipif(native.sleef() is None, reason="the compiled SLEEF kernel is not built")

# +-0, +-inf, NaNs (payloads, signs), subnormals, atanh's domain edges, sinh / cosh's overflow near 709.78
# and their cut at 710, log1p's edges (-1, just above and below; its 1e307 cut), expm1's cuts
_NANS = np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0xFFF123456789ABCD],
                 np.uint64).view(np.float64)
SPECIALS = np.concatenate([np.array(
    [0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 1 - 2.0 ** -53, -(1 - 2.0 ** -53), 1 + 2.0 ** -52, -(1 + 2.0 ** -52),
     2.0, -2.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-308, 1e-20, -1e-170, 0.5, -0.5, 0.999999, 709.78,
     709.7827128933840, 709.79, 710.0, np.nextafter(710.0, 800.0), -710.0, 720.0, 1e300, -1e300, 1.7e308,
     -1 + 2.0 ** -53, np.nextafter(-1.0, -2.0), 1e307, np.nextafter(1e307, 2e307), -1e-300,
     709.782712893384, np.nextafter(709.782712893384, 800.0), -36.7368005696771, np.nextafter(-36.7368005696771, -40.0)],
    np.float64),
    _NANS])


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint64)


def _inputs(seed: int, n: int) -> np.ndarray:
    """Specials, random 64-bit words (every class) and values in each function's working ranges."""
    rng = np.random.default_rng(seed)
    words = rng.integers(0, 2 ** 64, n, dtype=np.uint64).view(np.float64)
    return np.concatenate([SPECIALS, words, rng.uniform(-730, 730, n), rng.uniform(-1.05, 1.05, n),
                           rng.uniform(-3, 3, n), rng.uniform(-1e-6, 1e-6, n), rng.uniform(-40, 40, n),
                           np.exp(rng.uniform(-700, 709, n)), -np.exp(rng.uniform(-700, 0, n))])


def _run(x: np.ndarray, op: int, form: int) -> np.ndarray | None:
    """The kernel's vectorized function (step -1) at every element in ``form`` (0 one lane, 2 AVX2);
    None where the CPU lacks the form."""
    res = np.full_like(x, 7.0)
    return res if native.sleef().run_d(x, res, op, 0, 0, -1, form) else None


def _four_lanes(x: np.ndarray, op: int) -> np.ndarray:
    got = _run(x, op, 2)
    if got is None:
        pytest.skip("the CPU lacks AVX2 with FMA")
    return got


@needs_kernel
@pytest.mark.parametrize("name", list(OPS))
def test_four_lanes_equal_one_lane_and_torch(name: str) -> None:
    """The AVX2 form's bits are the one-lane form's at every element, and torch's (one thread, a
    multiple of 16 long: every element through Vectorized<double>)."""
    x = _inputs(11, 1 << 13)
    x = x[: len(x) // 16 * 16]
    got, one = _four_lanes(x, OPS[name]), _run(x, OPS[name], 0)
    bad = _bits(got) != _bits(one)
    assert not bad.any(), (x[bad][:4], got[bad][:4], one[bad][:4])
    with torch.autograd.grad_mode.no_grad():
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            want = getattr(torch, name)(torch.from_numpy(x)).numpy()
        finally:
            torch.set_num_threads(threads)
    bad = _bits(got) != _bits(want)
    assert not bad.any(), (x[bad][:4], got[bad][:4], want[bad][:4])


@needs_kernel
@pytest.mark.parametrize("name", list(OPS))
def test_every_length_and_offset(name: str) -> None:
    """Lengths 0..40 at start offsets 0..3 (unaligned loads, the one-lane tail): each element's bits
    the one-lane form's, nothing written past the end."""
    x = _inputs(5, 64)
    rng = np.random.default_rng(3)
    for n in range(41):
        for off in range(4):
            buf = rng.permutation(x)[: n + off + 2].copy()
            seg = buf[off: off + n]
            res = np.full(n + 2, 7.0)
            if not native.sleef().run_d(seg, res[:n], OPS[name], 0, 0, -1, 2):
                pytest.skip("the CPU lacks AVX2 with FMA")
            assert (_bits(res[:n]) == _bits(_run(seg, OPS[name], 0))).all(), (name, n, off)
            assert (res[n:] == 7.0).all()


@needs_kernel
@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, hs.integers(0, 40), elements=hs.floats(width=64, allow_nan=True)),
       hs.sampled_from(list(OPS)))
def test_hypothesis_forms_agree(x: np.ndarray, name: str) -> None:
    """Any float64 values (hypothesis's edges: huge, tiny, +-0, inf, NaN): both forms the same bits."""
    got = _four_lanes(x, OPS[name])
    assert (_bits(got) == _bits(_run(x, OPS[name], 0))).all()


@pytest.mark.parametrize("name", list(OPS))
@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 8, 13, 33, 257])
def test_public_entry_equals_torch(name: str, n: int) -> None:
    """strided's function and method on float64 (the kernel's widest form) give torch's bits, strides
    and dtype."""
    x = np.resize(_inputs(n, 64), n).copy()
    for got in (getattr(strided, name)(strided.from_numpy(x)), getattr(strided.from_numpy(x), name)()):
        want = getattr(torch, name)(torch.from_numpy(x))
        assert got.dtype == strided.float64 and tuple(got.stride()) == tuple(want.stride())
        assert (_bits(got.numpy()) == _bits(want.numpy())).all()


@needs_kernel
@pytest.mark.parametrize("beta, threshold", [(1.0, 20.0), (2.0, 5.0), (0.5, 1e9), (1.0, -3.0), (-1.0, 20.0), (3.0, 800.0)])
def test_softplus_four_lanes(beta: float, threshold: float) -> None:
    """softplus's AVX2 form (exp beyond 1e307 and NaN lanes redone by the one-lane function): the
    one-lane form's bits at every element, every length 0..40, and torch's (one thread)."""
    x = _inputs(9, 1 << 12)
    x = x[: len(x) // 16 * 16]
    runs = []
    for form in (2, 0):
        res = np.full_like(x, 7.0)
        if not native.sleef().run_d(x, res, SOFTPLUS, 0, 0, -1, form, beta, threshold):
            pytest.skip("the CPU lacks AVX2 with FMA")
        runs.append(res)
    assert (_bits(runs[0]) == _bits(runs[1])).all()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        want = torch.nn.functional.softplus(torch.from_numpy(x), beta, threshold).numpy()
    finally:
        torch.set_num_threads(threads)
    assert (_bits(runs[0]) == _bits(want)).all()
    for n in range(41):
        seg = x[5 * n: 6 * n + 1][:n].copy()
        a, b = np.empty(n), np.empty(n)
        native.sleef().run_d(seg, a, SOFTPLUS, 0, 0, -1, 2, beta, threshold)
        native.sleef().run_d(seg, b, SOFTPLUS, 0, 0, -1, 0, beta, threshold)
        assert (_bits(a) == _bits(b)).all(), n
