"""Last-bit divergences from PyTorch 2.13 fixed by bits36, compared bit for bit with torch:

- float32 ``log1p``: PyTorch's is vml's ``vec::map`` of SLEEF's ``log1pf`` at every element (a row's
  tail too), ``std::log1p`` under ATEN_CPU_CAPABILITY=default; strided's sleef kernel now runs it
  (``run``'s LOG1P, as float64's): x < -1 the all-ones word, a NaN quieted (AVX2: the default NaN);
  float16 log1p / expm1 through it in float32, rounded (PyTorch's Vectorized<Half> map).

Flat runs of many lengths, transposed / stepped / 0-d / empty / expanded layouts, in-place and out=,
special values (NaN payloads and signs, +-inf, -0, denormals, huge), the kernels' one-lane and
AVX-512 forms, and the other capabilities in subprocesses (the capability is read once per process).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native

needs_kernel = pytest.mark.skipif(native.sleef() is None, reason="the sleef kernel is not built")
_LENGTHS = list(range(71)) + [127, 128, 129, 130, 1000]


def _same(got: strided.Tensor, want: torch.Tensor) -> None:
    g, w = np.ascontiguousarray(np.asarray(got)), np.ascontiguousarray(want.numpy())
    assert g.shape == w.shape and g.dtype == w.dtype
    u = np.uint32 if g.dtype.itemsize == 4 else np.uint64
    bad = np.nonzero(g.view(u) != w.view(u))
    assert not bad[0].size, (g[bad][:5], w[bad][:5])


def _log1p_values(n: int, rng: np.random.Generator) -> np.ndarray:
    """float32 log1p's domain at several scales with its special values: NaNs (payload, sign,
    signalling), +-inf, -1, below -1, +-0, denormals, beyond 1e38 (SLEEF's log), just above -1."""
    x = (rng.standard_normal(n) * rng.choice([1e-6, 1.0, 3.0, 1e3, 1e30], n)).astype(np.float32)
    x = np.where(rng.random(n) < 0.3, -rng.random(n).astype(np.float32), x)
    k = min(n, 10)
    if k:
        pick = rng.choice(n, k, replace=False)
        x[pick] = rng.choice(np.array([np.inf, -np.inf, 0.0, -0.0, np.nan, -1.0, -2.0, 3e38, 1e-45, -1e-45,
                                       1e38, 2e-39, -0.99999994], np.float32), k)
        x.view(np.uint32)[pick[:1]] = 0xFF812345  # (a signalling NaN with payload and sign: quieted)
    return x


# ---------------------------------------------------------------- float32 log1p


@needs_kernel
def test_log1p_float32_flat_runs_bits() -> None:
    rng = np.random.default_rng(360)
    for n in _LENGTHS:
        x = _log1p_values(n, rng)
        want = torch.from_numpy(x).log1p()
        _same(strided.from_numpy(x).log1p(), want)
        _same(strided.log1p(strided.from_numpy(x)), want)


@needs_kernel
def test_log1p_float32_every_bit_pattern_sample_bits() -> None:
    """Every 4099th float32 bit pattern (all classes: NaN words, denormals, both signs)."""
    x = np.arange(0, 2**32, 4099, dtype=np.uint64).astype(np.uint32).view(np.float32)
    _same(strided.from_numpy(x).log1p(), torch.from_numpy(x).log1p())


@needs_kernel
def test_log1p_float32_layouts_bits() -> None:
    rng = np.random.default_rng(361)
    base = _log1p_values(40 * 33, rng).reshape(40, 33)
    t, s = torch.from_numpy(base), strided.from_numpy(base)
    for f in (lambda a: a.t(), lambda a: a[::3, 1::2], lambda a: a[5], lambda a: a[:, 7],
              lambda a: a[0, 0], lambda a: a[:0], lambda a: a[2:3, :1].expand(4, 6)):
        _same(f(s).log1p(), f(t).log1p())
    z = np.array(-0.5, np.float32)
    _same(strided.from_numpy(z).log1p(), torch.from_numpy(z).log1p())  # (0-d)


@needs_kernel
def test_log1p_float32_inplace_out_and_integer_bits() -> None:
    rng = np.random.default_rng(362)
    x = _log1p_values(300, rng).reshape(20, 15)
    t, s = torch.from_numpy(x.copy()), strided.from_numpy(x.copy())
    t.t().log1p_()
    s.t().log1p_()
    _same(s, t)
    to, so = torch.empty(15, 20), strided.empty(15, 20)
    torch.log1p(torch.from_numpy(x).t(), out=to)
    strided.log1p(strided.from_numpy(x).t(), out=so)
    _same(so, to)
    i = np.arange(-3, 40)  # (an integer input: converted to float32 first, as PyTorch converts it)
    _same(strided.from_numpy(i).log1p(), torch.from_numpy(i).log1p())


@needs_kernel
@pytest.mark.parametrize("form", [0, 1])
def test_log1p_float32_kernel_forms_bits(form: int) -> None:
    """run's LOG1P in its one-lane (form 0) and AVX-512 (form 1: sixteen lanes, special lanes redone
    one at a time) forms, in place too: torch's bits, whatever the run's length."""
    from strided.kernels.sleef import LOG1P
    k = native.sleef()
    rng = np.random.default_rng(363)
    for n in _LENGTHS:
        x = _log1p_values(n, rng)
        out = np.empty_like(x)
        if not k.run(x, out, LOG1P, 0, 0, -1, form):
            pytest.skip("no AVX-512F on this CPU")
        want = torch.from_numpy(x).log1p()
        _same(strided.from_numpy(out), want)
        k.run(x, x, LOG1P, 0, 0, -1, form)
        _same(strided.from_numpy(x), want)


@needs_kernel
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", ["log1p", "expm1"])
def test_log1p_expm1_reduced_float_bits(dt: str, op: str) -> None:
    """float16 / bfloat16: PyTorch's vec::map converts to float, takes SLEEF's float function and
    rounds back; float16 log1p was NumPy's (below -1 its NaN word 0xFE00 where PyTorch's is 0xFFFF:
    1834 of 5000 3 * randn elements apart)."""
    rng = np.random.default_rng(368)
    for n in (0, 1, 7, 33, 64, 1000):
        x = (rng.standard_normal(n) * 3).astype(np.float32)
        if n > 8:
            x[:9] = [np.nan, np.inf, -np.inf, -0.0, -1.0, -2.0, 65504.0, 1e-7, 6e-8]
        t = torch.from_numpy(x).to(getattr(torch, dt))
        s = strided.from_numpy(x).to(getattr(strided, dt))
        for f in (lambda a: a, lambda a: a[::3], lambda a, n=n: a[n // 2] if n else a):
            got = np.ascontiguousarray(getattr(f(s), op)().view(strided.int16).numpy())
            want = np.ascontiguousarray(getattr(f(t), op)().view(torch.int16).numpy())
            assert np.array_equal(got, want), (n, got[got != want][:4], want[got != want][:4])
        t2, s2 = t.clone(), s.clone()
        getattr(t2, op + "_")()
        getattr(s2, op + "_")()
        assert np.array_equal(s2.view(strided.int16).numpy(), t2.view(torch.int16).numpy())


@needs_kernel
def test_run_refuses_float64_only_ops() -> None:
    """run (float32) takes op 16 (log1p) but not run_d's float64-only ops 14 and 15."""
    k = native.sleef()
    x = np.zeros(4, np.float32)
    for op in (14, 15):
        with pytest.raises(ValueError):
            k.run(x, x.copy(), op, 0, 0, -1, -1)


# ---------------------------------------------------------------- other capabilities


_CAPABILITY_SCRIPT = textwrap.dedent("""
    import numpy as np, torch, strided
    rng = np.random.default_rng(7)
    bad = 0
    def differ(a, b):
        a, b = np.ascontiguousarray(np.asarray(a)), np.ascontiguousarray(b.numpy())
        u = np.uint32 if a.dtype.itemsize == 4 else np.uint64
        return int((a.view(u) != b.view(u)).sum())
    for n in list(range(40)) + [127, 130, 1000]:
        x = (rng.standard_normal(n) * 3).astype(np.float32)
        x = np.where(rng.random(n) < 0.3, -rng.random(n).astype(np.float32), x)
        if n > 6:
            x[:7] = [np.nan, -1.0, -0.0, 3e38, -2.0, -np.inf, 1e-45]
            x.view(np.uint32)[1] = 0xFF812345
        for v in (x, x[::2]):
            bad += differ(strided.from_numpy(v).log1p(), torch.from_numpy(v).log1p())
    print("BAD", bad, torch.backends.cpu.get_cpu_capability())
""")


@needs_kernel
@pytest.mark.parametrize("capability", ["avx2", "default"])
def test_log1p_float32_other_capabilities_bits(capability: str) -> None:
    env = dict(os.environ, ATEN_CPU_CAPABILITY=capability)
    done = subprocess.run([sys.executable, "-c", _CAPABILITY_SCRIPT], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    line = done.stdout.strip().splitlines()[-1]
    assert line.startswith("BAD 0 "), line

