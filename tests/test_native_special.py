"""The compiled special functions (kernels/_specialkernel.c) against their NumPy formulas
(kernels/special.py) and against PyTorch, with the compiled kernel on and forced off.

The two paths run the same formulas; they differ only where NumPy's SIMD exp/log/tan/pow round
differently from the C library's (measured on 65,000 points per function: erf, erfc, erfinv and
the Bessel functions within 7e-16 relative (~4 ulp), digamma 5.5e-15 and polygamma(2) 1.5e-14
relative (cancellation in the reflection and in zeta's sum), lgamma 7e-14 relative and 7e-15
absolute next to its zeros; trigamma bit-identical). ``_RTOL`` holds those bounds with a margin;
NaN, infinities and signed zeros must agree exactly.

Where the kernel is not built (no compiler) the comparisons would compare the NumPy path with
itself, so they are not collected (``_KERNEL``); ``test_the_kernel_is_built`` then fails if a
compiler is present or ``STRIDED_REQUIRE_NATIVE=1``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs
from hypothesis.extra import numpy as hnp

import strided
from strided.kernels import native, special
from strided.ops._support.front import fallback_of

_KERNEL = native.special()

NAMES = ["erf", "erfc", "erfinv", "erfinv_float32", "digamma", "trigamma", "lgamma", "i0", "i1", "i0e", "i1e"]
_RTOL = {"erf": 1e-15, "erfc": 1e-15, "erfinv": 2e-15, "erfinv_float32": 0.0, "digamma": 2e-14, "trigamma": 0.0,
         "lgamma": 2e-13, "i0": 1e-15, "i1": 1e-15, "i0e": 1e-15, "i1e": 1e-15, "polygamma": 5e-14}
_ATOL = {"lgamma": 2e-14}

# the branch thresholds of the formulas, the poles, and the float64 edges
_EDGES = [0.0, 0.46875, 0.5, 1.0, 2.0, 3.0, 4.0, 8.0, 9.0, 10.0, 15.0, 26.0, 27.0, 30.0, 40.0,
          0.9999999999999999, 1e-17, 3.0000001, 5e-324, 2.2250738585072014e-308, 1e-300, 1e16,
          709.0, 710.0, 1e300, 1.7976931348623157e308, np.inf]
EDGES = np.array(_EDGES + [-v for v in _EDGES] + [np.nan])
with np.errstate(over="ignore"):
    EDGES = np.concatenate([EDGES, np.nextafter(EDGES, np.inf), np.nextafter(EDGES, -np.inf)])


def test_the_kernel_is_built() -> None:
    """Built wherever a C compiler is (pip compiled it), and required in CI."""
    if os.environ.get("STRIDED_REQUIRE_NATIVE") == "1" or shutil.which("cc") or shutil.which("gcc"):
        assert _KERNEL is not None, "strided.kernels._specialkernel is not built: run `pip install -e .` again"


def _agree(got: np.ndarray, ref: np.ndarray, name: str) -> None:
    """The same NaNs, infinities and zeros (with their signs); the rest within the measured bound."""
    assert got.dtype == ref.dtype and got.shape == ref.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref), err_msg=name)
    exact = ~np.isfinite(ref) | (ref == 0) | (_RTOL[name] == 0)
    np.testing.assert_array_equal(np.signbit(got[exact & ~np.isnan(ref)]), np.signbit(ref[exact & ~np.isnan(ref)]))
    np.testing.assert_array_equal(got[exact], ref[exact], err_msg=name)
    np.testing.assert_allclose(got[~exact], ref[~exact], rtol=_RTOL[name], atol=_ATOL.get(name, 0.0), err_msg=name)


def _fallback(name: str, x: np.ndarray, n: int = 0) -> np.ndarray:
    with native.disabled():
        return special.polygamma(n, x) if name == "polygamma" else getattr(special, name)(x)


if _KERNEL is not None:  # (see the module docstring)

    @pytest.mark.parametrize("name", NAMES)
    def test_native_matches_the_numpy_formulas_on_edges_and_random(name: str) -> None:
        rng = np.random.default_rng(7)
        x = np.concatenate([EDGES, rng.uniform(-40, 40, 3000), rng.uniform(-1, 1, 1000),
                            np.exp(rng.uniform(-700, 700, 500)) * rng.choice([-1, 1], 500)])
        _agree(getattr(special, name)(x), _fallback(name, x), name)
        if name == "trigamma":  # (no exp/log/tan: every bit)
            assert special.trigamma(x).tobytes() == _fallback(name, x).tobytes()

    @settings(max_examples=25, deadline=None)
    @given(x=hnp.arrays(np.float64, hs.integers(0, 12), elements=hs.floats(allow_subnormal=True)),
           name=hs.sampled_from(NAMES))
    def test_native_matches_the_numpy_formulas_hypothesis(x: np.ndarray, name: str) -> None:
        _agree(getattr(special, name)(x), _fallback(name, x), name)

    @pytest.mark.parametrize("n", [2, 3, 5])
    def test_native_polygamma_matches_the_numpy_formulas(n: int) -> None:
        # (no large negative non-integers: Cephes' zeta, PyTorch's too, steps up one by one to 9)
        x = np.concatenate([EDGES[np.isnan(EDGES) | (EDGES >= -40) | (EDGES == np.floor(EDGES))],
                            np.random.default_rng(n).uniform(-30, 30, 500)])
        _agree(special.polygamma(n, x), _fallback("polygamma", x, n), "polygamma")
        assert special.polygamma(n, np.float64(1.5)).shape == ()

    def test_float32_rounds_once_from_float64() -> None:
        """(a float32 result of a name in special.FLOAT32 rounds that cheaper form instead)"""
        x32 = np.random.default_rng(3).uniform(-5, 5, 200).astype(np.float32)
        x32[:100] /= 5  # (erfinv's domain)
        for name in NAMES:
            if name in special.TORCH_KERNELS:
                continue  # (PyTorch's own float32 arithmetic: tests/test_torch_special.py)
            out = np.empty_like(x32)
            assert special.into(name, x32, out)
            fn = special.FLOAT32.get(name, getattr(special, name))
            assert out.tobytes() == fn(x32.astype(np.float64)).astype(np.float32).tobytes()

    def test_into_refuses_what_the_kernel_does_not_take() -> None:
        x = np.arange(12.0).reshape(3, 4)
        assert not special.into("erf", x.T, np.empty((4, 3)))  # (column-major into row-major)
        assert not special.into("erf", x[:, ::2], np.empty((3, 2)))
        assert not special.into("erf", x.astype(np.float16), np.empty((3, 4), np.float16))
        with native.disabled():
            assert not special.into("erf", x, np.empty((3, 4)))
        assert special.into("erf", x.T, np.empty((3, 4)).T)  # (both column-major)

    def test_the_c_entries_check_their_arguments() -> None:
        x = np.ones(4)
        with pytest.raises(ValueError, match="float64 or float32 buffers of one length"):
            _KERNEL.erf(x, np.empty(3))
        with pytest.raises(ValueError, match=r"formats [lq] and d"):
            _KERNEL.erf(np.ones(4, np.int64), x)
        with pytest.raises(TypeError, match="takes 2 arguments, not 1"):
            _KERNEL.erf(x)
        ro = np.empty(4)
        ro.flags.writeable = False
        with pytest.raises((BufferError, ValueError)):
            _KERNEL.erf(x, ro)
        with pytest.raises(ValueError, match="must be > 1"):
            _KERNEL.zeta_scaled(x, np.empty(4), 1.0, 1.0)
        with pytest.raises(ValueError, match="not contiguous"):
            _KERNEL.erf(np.ones((4, 4))[:, ::2], np.empty(8))
        _KERNEL.erf(np.empty(0), np.empty(0))

    def test_loaded_lazily_and_switched_off_by_the_environment() -> None:
        """``import strided`` does not load the kernel; with STRIDED_NATIVE=0 (read at the first
        use) it is never loaded and erf takes the NumPy path; without, the next use loads it.
        (One fresh process: the second part forgets the first load decision.)"""
        code = ("import os, sys, strided\n"
                "from strided.kernels import native\n"
                "name = 'strided.kernels._specialkernel'\n"
                "seen = [name in sys.modules]\n"
                "def erf():\n"
                "    seen.extend([round(strided.tensor([0.5]).erf().item(), 6), name in sys.modules])\n"
                "erf()\n"
                "os.environ['STRIDED_NATIVE'] = '1'\n"
                "native._special_loaded = False\n"
                "erf()\n"
                "print(*seen)\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**os.environ, "STRIDED_NATIVE": "0"}).stdout.split()
        assert out == ["False", "0.5205", "False", "0.5205", "True"]


_OPS = [("erf", strided.erf, torch.erf), ("erfc", strided.erfc, torch.erfc), ("erfinv", strided.erfinv, torch.erfinv),
        ("digamma", strided.digamma, torch.digamma), ("lgamma", strided.lgamma, torch.lgamma),
        ("i0", strided.i0, torch.i0), ("special_i1", strided.special.i1, torch.special.i1),
        ("special_i0e", strided.special.i0e, torch.special.i0e), ("special_i1e", strided.special.i1e, torch.special.i1e)]


_VIEWS = [lambda b: b, lambda b: b.t(), lambda b: b[:, ::2], lambda b: b[1:2].expand(3, 5), lambda b: b[:0].t()]


def _base(dtype: torch.dtype) -> torch.Tensor:
    base = torch.tensor(np.random.default_rng(5).uniform(-4.5, 4.5, (6, 5)), dtype=dtype)
    base[0, :3] = torch.tensor([0.0, -0.0, 1.0])
    return base


@pytest.mark.parametrize("forced_off", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_ops_match_pytorch_with_and_without_the_kernel(dtype: torch.dtype, forced_off: bool) -> None:
    """Each op on contiguous, transposed, stepped, expanded and empty inputs: PyTorch's values
    (float32: within PyTorch's own rounding), shapes, strides and dtype; in place and ``out=`` too."""
    tol = {"rtol": 2e-6, "atol": 1e-6} if dtype == torch.float32 else {"rtol": 1e-12, "atol": 1e-13}
    with native.disabled() if forced_off else contextlib.nullcontext():
        for name, ours, fn in _OPS:
            base = _base(dtype)
            for view in _VIEWS:
                s, t = view(strided.from_numpy(base.numpy())), view(base)
                got, want = ours(s), fn(t)
                assert got.shape == tuple(want.shape) and got.stride() == want.stride(), name
                np.testing.assert_allclose(got.numpy(), want.numpy(), **tol, err_msg=name)
            t = _base(dtype).t()
            s = strided.from_numpy(t.numpy())
            out = strided.empty(t.shape, dtype=s.dtype)
            np.testing.assert_array_equal(ours(s, out=out).numpy(), ours(s).numpy())
            if hasattr(s, name + "_"):
                ref = ours(s).numpy()
                getattr(s, name + "_")()
                np.testing.assert_array_equal(s.numpy(), ref)
        x = strided.from_numpy(_base(dtype).numpy())
        for n in (0, 1, 2, 3):
            np.testing.assert_allclose(strided.polygamma(n, x).numpy(), torch.polygamma(n, _base(dtype)).numpy(),
                                       rtol=tol["rtol"] * 10, atol=tol["atol"], err_msg=f"polygamma {n}")



if _KERNEL is not None:

    def test_the_switch_reaches_every_path(monkeypatch: pytest.MonkeyPatch, vml_route_off: None) -> None:
        """``native.disabled()`` turns the kernel off on the small-op fast path (row-major input)
        and on the general path (a transposed input, ``out=``) alike."""
        calls: list[int] = []
        for entry in ("erf", "erf_float32"):  # (float32 in and out takes the second: the same bits)
            real = getattr(_KERNEL, entry)
            monkeypatch.setattr(_KERNEL, entry, lambda *a, real=real: calls.append(1) or real(*a))
        x = strided.tensor([[0.25, 1.0, -2.0]], dtype=strided.float32)
        # (the row-major call through the Python fast path: the compiled front holds the kernel it
        # found at import, which the spy does not replace; tests/test_front_kernels.py holds the
        # front to the switch)
        fast = fallback_of(strided.erf)
        uses = [lambda: fast(x), lambda: strided.erf(x.t()), lambda: strided.erf(x, out=strided.empty(1, 3))]
        with native.disabled():
            for use in uses:
                use()
        assert calls == []
        for use in uses:
            use()
        assert len(calls) == 3
