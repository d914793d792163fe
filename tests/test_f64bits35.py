"""float64 ``log1p`` with PyTorch's bits (f64bits35): PyTorch's float64 log1p is vml's ``vec::map`` of
SLEEF's ``log1p`` (every element, a row's tail too, whatever its position; ``std::log1p`` under
ATEN_CPU_CAPABILITY=default), which strided's sleef kernel now ports (run_d's LOG1P). Compared
bit for bit with torch over flat runs of many lengths, non-contiguous / 0-d / empty layouts, in-place,
out=, special values, and the other capabilities (in subprocesses: the capability is read once per
process). float64 ``tanh`` is MKL's ``vdTanh`` in PyTorch (not SLEEF's): not reproduced, its strict
xfail stays in tests/test_attack33.py."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
import torch

import strided
import strided.nn.functional as F
from capability_runs import no_bad_under
from strided.kernels import native

needs_kernel = pytest.mark.skipif(native.sleef() is None, reason="the sleef kernel is not built")
_LENGTHS = list(range(71)) + [127, 128, 129, 130, 1000]


def _values(n: int, rng: np.random.Generator) -> np.ndarray:
    """log1p's domain at several scales, with its special values: NaNs (payload, sign), +-inf, -1,
    below -1, +-0, denormals, huge (beyond 1e307: SLEEF's log)."""
    x = rng.standard_normal(n) * rng.choice([1e-8, 1.0, 3.0, 1e3, 1e300], n)
    x = np.where(rng.random(n) < 0.3, -rng.random(n), x)  # (-1, 0]: log1p's steep side
    k = min(n, 8)
    if k:
        pick = rng.choice(n, k, replace=False)
        x[pick] = rng.choice([np.inf, -np.inf, 0.0, -0.0, np.nan, -1.0, -2.0, 1e308, 5e-324, -5e-324, 1e307], k)
        x.view(np.uint64)[pick[:1]] = 0xFFF4000000000077  # (a signalling NaN with payload and sign)
    return x


def _same(got: strided.Tensor, want: torch.Tensor) -> None:
    g, w = np.ascontiguousarray(np.asarray(got)), np.ascontiguousarray(want.numpy())
    assert g.shape == w.shape and g.dtype == w.dtype
    bad = np.nonzero(g.view(np.uint64) != w.view(np.uint64))
    assert not bad[0].size, (g[bad][:5], w[bad][:5])


@needs_kernel
def test_log1p_float64_flat_runs_bits() -> None:
    rng = np.random.default_rng(35)
    for n in _LENGTHS:
        x = _values(n, rng)
        want = torch.from_numpy(x).log1p()
        _same(strided.from_numpy(x).log1p(), want)
        _same(strided.log1p(strided.from_numpy(x)), want)


@needs_kernel
def test_log1p_float64_layouts_bits() -> None:
    rng = np.random.default_rng(36)
    base = _values(40 * 33, rng).reshape(40, 33)
    t, s = torch.from_numpy(base), strided.from_numpy(base)
    for f in (lambda a: a.t(), lambda a: a[::3, 1::2], lambda a: a[5], lambda a: a[:, 7],
              lambda a: a[0, 0], lambda a: a[:0], lambda a: a[2:3, :1].expand(4, 6)):
        _same(f(s).log1p(), f(t).log1p())
    z = np.array(-0.5)
    _same(strided.from_numpy(z).log1p(), torch.from_numpy(z).log1p())  # (0-d)


@needs_kernel
def test_log1p_float64_inplace_and_out_bits() -> None:
    rng = np.random.default_rng(37)
    x = _values(300, rng).reshape(20, 15)
    t, s = torch.from_numpy(x.copy()), strided.from_numpy(x.copy())
    t.t().log1p_()
    s.t().log1p_()
    _same(s, t)
    to, so = torch.empty(15, 20, dtype=torch.float64), strided.empty(15, 20, dtype=strided.float64)
    torch.log1p(torch.from_numpy(x).t(), out=to)
    strided.log1p(strided.from_numpy(x).t(), out=so)
    _same(so, to)
    i = np.arange(-3, 40).reshape(43)  # (an integer input under a float64 default: converted first)
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    strided.set_default_dtype(strided.float64)
    try:
        _same(strided.from_numpy(i).log1p(), torch.from_numpy(i).log1p())
    finally:
        torch.set_default_dtype(old)
        strided.set_default_dtype(strided.float32)


@needs_kernel
def test_soft_margin_loss_float64_bits() -> None:
    rng = np.random.default_rng(38)
    x = rng.standard_normal(4096) * 3
    y = np.where(rng.random(4096) < 0.5, -1.0, 1.0)
    _same(F.soft_margin_loss(strided.from_numpy(x), strided.from_numpy(y), reduction="none"),
          torch.nn.functional.soft_margin_loss(torch.from_numpy(x), torch.from_numpy(y), reduction="none"))


# (float32 log1p was NumPy's here; bits36 routed it through SLEEF's log1pf too: tests/test_bits36.py)


_CAPABILITY_SCRIPT = textwrap.dedent("""
    import numpy as np, torch, strided
    rng = np.random.default_rng(5)
    bad = 0
    for n in list(range(40)) + [127, 130, 1000]:
        x = rng.standard_normal(n) * 3
        x = np.where(rng.random(n) < 0.3, -rng.random(n), x)
        if n > 4:
            x[:5] = [np.nan, -1.0, -0.0, 1e308, -2.0]
        got = np.asarray(strided.from_numpy(x).log1p()).view(np.uint64)
        bad += int((got != torch.from_numpy(x).log1p().numpy().view(np.uint64)).sum())
        got = np.asarray(strided.from_numpy(x[::2]).log1p()).view(np.uint64)
        bad += int((got != torch.from_numpy(x[::2]).log1p().numpy().view(np.uint64)).sum())
    print("BAD", bad, torch.backends.cpu.get_cpu_capability())
""")


@needs_kernel
@pytest.mark.parametrize("capability", ["avx2", "default"])
def test_log1p_float64_other_capabilities_bits(capability: str) -> None:
    no_bad_under(capability, _CAPABILITY_SCRIPT)


@needs_kernel
@pytest.mark.parametrize("form", [0, 1])
def test_log1p_float64_kernel_forms_bits(form: int) -> None:
    """run_d's LOG1P in its one-lane (form 0) and AVX-512 (form 1: eight lanes, special lanes
    redone one at a time) forms: torch's bits, whatever the run's length."""
    from strided.kernels.sleef import LOG1P
    k = native.sleef()
    rng = np.random.default_rng(40)
    for n in _LENGTHS:
        x = _values(n, rng)
        out = np.empty_like(x)
        if not k.run_d(x, out, LOG1P, 0, 0, -1, form):
            pytest.skip("no AVX-512F on this CPU")
        _same(strided.from_numpy(out), torch.from_numpy(x).log1p())
