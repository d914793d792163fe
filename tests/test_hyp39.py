"""float32 and float64 ``sinh cosh atanh`` with PyTorch's bits (SLEEF's sinhf / coshf / atanhf, sinh /
cosh / atanh in the vectorized part of the cpu_kernel_vec loop, the C library's in its scalar tail: strided.kernels.sleef.hyper_loop,
_sleef_hyper.h), and ``log2`` through MKL VML (vmsLog2 / vmdLog2, as PyTorch's vml.h calls it), for
every entry (function, method, out=, in place, autograd), layout and length; the kernel's two forms
(plain C and AVX2) against each other and against torch; without the compiled kernels NumPy's."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided
from strided.kernels import native, vml_route
from strided.kernels.sleef import ATANH, COSH, SINH

HYPER = {"sinh": SINH, "cosh": COSH, "atanh": ATANH}
needs_kernel = pytest.mark.skipif(native.sleef() is None, reason="the compiled SLEEF kernel is not built")


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def _same(got: strided.Tensor, want: torch.Tensor) -> None:
    """Shape, strides, dtype and every bit (NaN words included) equal."""
    g, w = got.detach().numpy(), want.detach().numpy()
    assert g.dtype == w.dtype and g.shape == w.shape
    assert tuple(got.stride()) == tuple(want.stride())
    bad = _bits(g) != _bits(w)
    assert not bad.any(), (np.ascontiguousarray(g)[bad][:4], np.ascontiguousarray(w)[bad][:4])


def _specials() -> np.ndarray:
    """+-0, +-inf, NaNs with payloads and signs, subnormals, the domain edges of atanh (+-1, just
    inside and outside), the overflow of sinh / cosh near 88.72 and their cut at 89."""
    edge = [0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 1 - 2.0 ** -24, -(1 - 2.0 ** -24), 1 + 2.0 ** -23, -1.5, 0.5,
            1e-45, -1e-45, 1e-38, -1.2e-38, 1e-8, 88.0, 88.72, 88.73, 89.0, 89.00001, -89.0, -89.00001, 90.0, 1e30,
            -1e30, 3.4e38, 1e-3]
    nans = np.array([0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFFC12345, 0x7F800001], np.uint32).view(np.float32)
    return np.concatenate([np.array(edge, np.float32), nans])


def _values(name: str, n: int, rng: np.random.Generator, dt: type = np.float32) -> np.ndarray:
    if name == "atanh":
        return rng.uniform(-1.02, 1.02, n).astype(dt)
    if name == "log2":
        return np.exp(rng.uniform(-40, 40, n)).astype(dt)
    return rng.uniform(-92, 92, n).astype(dt) * (8 if dt == np.float64 else 1)


def _words(n: int, rng: np.random.Generator) -> np.ndarray:
    """Random 32-bit words as float32: every class, NaN payloads included."""
    return rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)


@needs_kernel
@pytest.mark.usefixtures("torch_one_thread")
@pytest.mark.parametrize("name", list(HYPER))
@pytest.mark.parametrize("form", [0, -1])
def test_kernel_forms_equal_torch_vectorized(name: str, form: int) -> None:
    """Every element through the vectorized function (step -1): SLEEF's bits, torch's contiguous
    run (a multiple of 32 long: no scalar tail at ATen's AVX2 or AVX512 step; one torch thread: one
    chunk, where two cut it at a chunk whose tail is scalar), in the plain C form and the CPU's widest form."""
    rng = np.random.default_rng(1)
    x = np.concatenate([_specials(), _words(1 << 14, rng), _values(name, 1 << 16, rng)])
    x = x[: len(x) // 32 * 32]
    res = np.empty_like(x)
    assert native.sleef().run(x, res, HYPER[name], 0, 0, -1, form)
    want = getattr(torch, name)(torch.from_numpy(x)).numpy()
    assert (_bits(res) == _bits(want)).all()


_SPECIALS_D = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, 1 - 2.0 ** -53, -(1 - 2.0 ** -53), 2.0,
                        -2.0, 5e-324, -5e-324, 1e-308, 709.78, 709.79, 710.0, 710.0001, -710.0, 720.0, 1e300, -1e300, 0.5])


@needs_kernel
@pytest.mark.usefixtures("torch_one_thread")
@pytest.mark.parametrize("name", list(HYPER))
def test_float64_kernel_equals_torch(name: str) -> None:
    """float64 (run_d): the vectorized function at every element (step -1) equals torch's contiguous
    run, the scalar one (step 0) torch's strided run; specials and random 64-bit words included."""
    rng = np.random.default_rng(4)
    words = rng.integers(0, 2 ** 64, 1 << 13, dtype=np.uint64).view(np.float64)
    x = np.concatenate([_SPECIALS_D, words, _values(name, 1 << 15, rng, np.float64), rng.uniform(-3, 3, 1 << 14)])
    x = x[: len(x) // 32 * 32]
    res = np.empty_like(x)
    assert native.sleef().run_d(x, res, HYPER[name], 0, 0, -1, -1)
    assert (_bits(res) == _bits(getattr(torch, name)(torch.from_numpy(x)).numpy())).all()
    native.sleef().run_d(x, res, HYPER[name], 0, 0, 0, 0)
    assert (_bits(res) == _bits(getattr(torch, name)(torch.from_numpy(np.repeat(x, 2))[::2]).numpy())).all()


@needs_kernel
@pytest.mark.parametrize("name", list(HYPER))
def test_scalar_function_is_the_c_library(name: str) -> None:
    """Step 0: every element the scalar function's bits, torch's on a non-contiguous input (its
    loop takes no vector there)."""
    rng = np.random.default_rng(2)
    x = np.concatenate([_specials(), _words(4096, rng), _values(name, 8192, rng)])
    res = np.empty_like(x)
    native.sleef().run(x, res, HYPER[name], 0, 0, 0, 0)
    want = getattr(torch, name)(torch.from_numpy(np.repeat(x, 2))[::2]).numpy()
    assert (_bits(res) == _bits(want)).all()


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("name", [*HYPER, "log2"])
@pytest.mark.parametrize("n", range(71))
def test_lengths(name: str, n: int, dt: type) -> None:
    """Every length 0..70 (the vector step and its tail), method and function."""
    rng = np.random.default_rng(n)
    x = np.concatenate([_specials().astype(dt), _values(name, 80, rng, dt)])[:n].copy()
    rng.shuffle(x)
    _same(getattr(strided.from_numpy(x), name)(), getattr(torch.from_numpy(x), name)())
    _same(getattr(strided, name)(strided.from_numpy(x)), getattr(torch, name)(torch.from_numpy(x)))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("name", [*HYPER, "log2"])
def test_layouts_out_and_in_place(name: str, dt: type) -> None:
    """Permuted, sliced with steps, expanded, (3, 4) and (16, 16) inputs; a transposed out=; in place."""
    rng = np.random.default_rng(7)
    x = _values(name, 4800, rng, dt)
    S, T = strided.from_numpy(x), torch.from_numpy(x)
    views = [lambda a: a[:1200].reshape(30, 40).t(), lambda a: a[::3], lambda a: a[:4000].reshape(40, 100)[:, 1::2],
             lambda a: a[:12].reshape(3, 4), lambda a: a[:256].reshape(16, 16), lambda a: a[:5].reshape(5, 1).expand(5, 9),
             lambda a: a[:2400].reshape(4, 6, 100).permute(2, 0, 1)]
    for v in views:
        _same(getattr(v(S), name)(), getattr(v(T), name)())
    o1, o2 = strided.empty((40, 30), dtype=S.dtype).t(), torch.empty((40, 30), dtype=T.dtype).t()
    getattr(strided, name)(S[:1200].reshape(30, 40), out=o1)
    getattr(torch, name)(T[:1200].reshape(30, 40), out=o2)
    _same(o1, o2)
    a, b = S[:1000].clone(), T[:1000].clone()
    getattr(a, name + "_")()
    getattr(b, name + "_")()
    _same(a, b)
    a, b = S[:2000].clone().reshape(20, 100)[:, ::3], T[:2000].clone().reshape(20, 100)[:, ::3]
    getattr(a, name + "_")()
    getattr(b, name + "_")()
    _same(a, b)


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("name", [*HYPER, "log2"])
def test_large_runs_at_torch_parallel_chunks(name: str, dt: type) -> None:
    """Past PyTorch's grain (32768): its threads' chunks each end in a scalar tail."""
    rng = np.random.default_rng(11)
    x = np.concatenate([_specials().astype(dt), _values(name, 200_003, rng, dt)])
    S, T = strided.from_numpy(x), torch.from_numpy(x)
    _same(getattr(S, name)(), getattr(T, name)())
    _same(getattr(S[:200_000].reshape(400, 500).t(), name)(), getattr(T[:200_000].reshape(400, 500).t(), name)())
    _same(getattr(S[::2], name)(), getattr(T[::2], name)())


@pytest.mark.parametrize("name", [*HYPER, "log2"])
def test_integer_input_promotes(name: str) -> None:
    xi = np.array([-3, -1, 0, 1, 2, 5], np.int64)
    _same(getattr(strided.from_numpy(xi), name)(), getattr(torch.from_numpy(xi), name)())


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["sinh", "cosh", "atanh"])
def test_autograd_backward(name: str, dt: type) -> None:
    """The backward rules read the forward ops (sinh's gradient is g * cosh(x), cosh's g * sinh(x)):
    torch's gradient bits."""
    rng = np.random.default_rng(3)
    x = _values(name, 37, rng, dt).clip(-0.99, 0.99) if name == "atanh" else rng.uniform(-5, 5, 37).astype(dt)
    a = strided.from_numpy(x.copy()).requires_grad_()
    b = torch.from_numpy(x.copy()).requires_grad_()
    g = rng.standard_normal(37).astype(dt)
    getattr(a, name)().backward(strided.from_numpy(g))
    getattr(b, name)().backward(torch.from_numpy(g))
    _same(a.grad, b.grad)


@settings(max_examples=40, deadline=None)
@given(words=hs.lists(hs.integers(0, 2 ** 32 - 1), min_size=0, max_size=70), name=hs.sampled_from([*HYPER, "log2"]),
       step=hs.integers(1, 3))
def test_random_words(words: list[int], name: str, step: int) -> None:
    """Any float32 words, any length, contiguous or with a step: torch's bits."""
    x = np.array(words, np.uint32).view(np.float32)
    _same(getattr(strided.from_numpy(x)[::step], name)(), getattr(torch.from_numpy(x)[::step], name)())


def test_log2_is_routed_through_vml() -> None:
    """log2 is one of the VML route's ops (float32 and float64 through vms/vmdLog2 where it runs)."""
    assert "log2" in vml_route.OPS
    if vml_route.fresh("log2", np.ones(1)) is None:
        pytest.skip("no MKL VML route here")
    rng = np.random.default_rng(5)
    x = np.exp(rng.uniform(-700, 700, 100_000))
    _same(strided.from_numpy(x).log2(), torch.from_numpy(x).log2())


_NO_NATIVE = """
import numpy as np, strided
x32 = np.array([-1.5, -0.5, 0.0, 0.25, 0.75, 2.0, 30.0], np.float32)
for x in (x32, x32.astype(np.float64)):
    for name, uf in (("sinh", np.sinh), ("cosh", np.cosh), ("atanh", np.arctanh)):
        with np.errstate(all="ignore"):
            want = uf(x)
        got = getattr(strided.from_numpy(x), name)().numpy()
        assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True), (name, got, want)
print("ok")
"""


def test_without_native_numpy_results() -> None:
    """STRIDED_NATIVE=0: NumPy's ufuncs (the fallback), right values."""
    env = dict(os.environ, STRIDED_NATIVE="0")
    r = subprocess.run([sys.executable, "-c", _NO_NATIVE], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr
