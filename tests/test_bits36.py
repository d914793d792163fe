"""Last-bit divergences from PyTorch 2.13 fixed by bits36, compared bit for bit with torch:

- float32 ``log1p``: PyTorch's is vml's ``vec::map`` of SLEEF's ``log1pf`` at every element (a row's
  tail too), ``std::log1p`` under ATEN_CPU_CAPABILITY=default; strided's sleef kernel now runs it
  (``run``'s LOG1P, as float64's): x < -1 the all-ones word, a NaN quieted (AVX2: the default NaN);
  float16 log1p / expm1 through it in float32, rounded (PyTorch's Vectorized<Half> map).
- float64 ``F.gelu`` (exact form): GeluKernelImpl's ``cpu_kernel_vec`` loop, SLEEF's ``erf``
  (``_sleef_erf.h``) where vectorized, the C library's ``erf`` in the scalar tail (``run_d``'s GELU_D);
  gelu's out= orders the loop by out's layout (all dtypes with PyTorch's bits).

Flat runs of many lengths, transposed / stepped / 0-d / empty / expanded layouts, in-place and out=,
special values (NaN payloads and signs, +-inf, -0, denormals, huge), the kernels' one-lane and
AVX-512 forms, and the other capabilities in subprocesses (the capability is read once per process).
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as F
from capability_runs import PRELUDE, no_bad_under
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


def _gelu_values(n: int, rng: np.random.Generator) -> np.ndarray:
    """float64 gelu's inputs around both of SLEEF's erf forms (|x| / sqrt 2 below and above 2.5, up
    to and past 6), tiny ones (erf's x < 1e-8 case), and NaN / +-inf / -0 / huge / denormal."""
    x = rng.standard_normal(n) * rng.choice([1e-9, 1e-3, 1.0, 3.0, 6.0, 30.0], n)
    k = min(n, 8)
    if k:
        pick = rng.choice(n, k, replace=False)
        x[pick] = rng.choice([np.inf, -np.inf, 0.0, -0.0, np.nan, 1e300, -1e300, 5e-324, 3.5355, -8.49], k)
        x.view(np.uint64)[pick[:1]] = 0xFFF4000000000077  # (a signalling NaN with payload and sign)
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
    from strided.kernels.sleef import LOG1P, _map_step
    k = native.sleef()
    rng = np.random.default_rng(363)
    st = _map_step(LOG1P)  # (-1 under AVX512, -2 under AVX2: its NaN words; 0 under the default capability)
    for n in _LENGTHS:
        x = _log1p_values(n, rng)
        out = np.empty_like(x)
        if not k.run(x, out, LOG1P, 0, 0, st, form):
            pytest.skip("no AVX-512F on this CPU")
        want = torch.from_numpy(x).log1p()
        _same(strided.from_numpy(out), want)
        k.run(x, x, LOG1P, 0, 0, st, form)
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
    """run (float32) takes op 16 (log1p) but not run_d's float64-only ops 14, 15 and 17."""
    k = native.sleef()
    x = np.zeros(4, np.float32)
    for op in (14, 15, 17):
        with pytest.raises(ValueError):
            k.run(x, x.copy(), op, 0, 0, -1, -1)


# ---------------------------------------------------------------- float64 gelu (exact form)


@needs_kernel
@pytest.mark.usefixtures("torch_threads_as_assumed")  # (past the grain: PyTorch's chunks follow its thread count)
def test_gelu_float64_flat_runs_bits() -> None:
    rng = np.random.default_rng(364)
    for n in _LENGTHS + [40000, 100003]:  # (the last two: cut into PyTorch's parallel chunks)
        x = _gelu_values(n, rng)
        _same(F.gelu(strided.from_numpy(x)), TF.gelu(torch.from_numpy(x)))


@needs_kernel
def test_gelu_float64_layouts_bits() -> None:
    rng = np.random.default_rng(365)
    base = _gelu_values(40 * 33, rng).reshape(40, 33)
    t, s = torch.from_numpy(base), strided.from_numpy(base)
    for f in (lambda a: a.t(), lambda a: a[::3, 1::2], lambda a: a[5], lambda a: a[:, 7],
              lambda a: a[0, 0], lambda a: a[:0], lambda a: a[2:3, :1].expand(4, 6),
              lambda a: a.reshape(4, 10, 33).permute(2, 0, 1)):
        _same(F.gelu(f(s)), TF.gelu(f(t)))
    to, so = torch.empty(33, 40, dtype=torch.float64), strided.empty(33, 40, dtype=strided.float64)
    torch._C._nn.gelu(torch.from_numpy(base).t(), out=to)
    strided.nn.functional.gelu(strided.from_numpy(base).t(), out=so)
    _same(so, to)


@needs_kernel
@pytest.mark.parametrize("form", [0, 1])
def test_gelu_float64_kernel_forms_bits(form: int) -> None:
    """run_d's GELU_D over one flat run at PyTorch's step (16 lanes a pair under AVX512: the
    vectorized function, the rest the C library's erf) in both kernel forms."""
    from strided.kernels.sleef import GELU_D, step
    k = native.sleef()
    rng = np.random.default_rng(366)
    for n in _LENGTHS:
        x = _gelu_values(n, rng)
        out = np.empty_like(x)
        if not k.run_d(x, out, GELU_D, 0, 0, step() // 2, form):
            pytest.skip("no AVX-512F on this CPU")
        _same(strided.from_numpy(out), TF.gelu(torch.from_numpy(x)))


def test_sleef_erf_forms_agree_with_gelu_bits() -> None:
    """The erf's two forms meet at |x| / sqrt 2 = 2.5 and end at 6: a dense sweep over [-9, 9]
    (every element vectorized: a multiple of 16) equals torch's gelu."""
    x = np.linspace(-9.0, 9.0, 16 * 4001)
    _same(F.gelu(strided.from_numpy(x)), TF.gelu(torch.from_numpy(x)))


# ---------------------------------------------------------------- other capabilities


_CAPABILITY_SCRIPT = PRELUDE + textwrap.dedent("""
    import torch.nn.functional as TF, strided.nn.functional as F
    for n in list(range(40)) + [127, 130, 1000]:
        x = (rng.standard_normal(n) * 3).astype(np.float32)
        x = np.where(rng.random(n) < 0.3, -rng.random(n).astype(np.float32), x)
        if n > 6:
            x[:7] = [np.nan, -1.0, -0.0, 3e38, -2.0, -np.inf, 1e-45]
            x.view(np.uint32)[1] = 0xFF812345
        for v in (x, x[::2]):
            bad += differ(strided.from_numpy(v).log1p(), torch.from_numpy(v).log1p())
        d = rng.standard_normal(n) * 4
        if n > 4:
            d[:5] = [np.nan, np.inf, -np.inf, -0.0, 1e-9]
        for v in (d, d[::2]):
            bad += differ(F.gelu(strided.from_numpy(v)), TF.gelu(torch.from_numpy(v)))
    print("BAD", bad, torch.backends.cpu.get_cpu_capability())
""")


@needs_kernel
@pytest.mark.parametrize("capability", ["avx2", "default"])
def test_log1p_float32_gelu_float64_other_capabilities_bits(capability: str) -> None:
    no_bad_under(capability, _CAPABILITY_SCRIPT)


@needs_kernel
@pytest.mark.parametrize("dt, approximate", [("float32", "none"), ("float64", "none"), ("float64", "tanh")])
def test_gelu_out_layout_orders_the_loop_bits(dt: str, approximate: str) -> None:
    """gelu's out= of the input's shape and dtype: TensorIterator's loop runs in out's dim order, so a
    transposed input into a row-major out is strided (every element the scalar function); strided's
    result is laid out as that loop's (before: the input's order, vectorized, then copied: 777 of
    1320 float32 elements apart). (float32's tanh form is not PyTorch's bits in any layout: NumPy's formula.)"""
    base = np.random.default_rng(367).standard_normal((40, 33)).astype(dt) * 3
    for shape, f in (((33, 40), lambda a: a.t()), ((40, 33), lambda a: a), ((20, 33), lambda a: a[::2])):
        to, so = torch.empty(*shape, dtype=getattr(torch, dt)), strided.empty(*shape, dtype=getattr(strided, dt))
        torch._C._nn.gelu(f(torch.from_numpy(base)), approximate=approximate, out=to)
        F.gelu(f(strided.from_numpy(base)), approximate=approximate, out=so)
        _same(so, to)


# ---------------------------------------------------------------- float32 logaddexp2


def _lae2_pairs(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Pairs at several spreads (differences past exp2's -150 too), equal pairs, and the special
    pairs: NaNs (payloads, signs) against numbers, NaNs and infinities, equal and opposite
    infinities, signed zeros, denormals."""
    a = (rng.standard_normal(n) * rng.choice([1e-3, 1.0, 5.0, 100.0], n)).astype(np.float32)
    b = (rng.standard_normal(n) * rng.choice([1e-3, 1.0, 5.0, 100.0], n)).astype(np.float32)
    b = np.where(rng.random(n) < 0.1, a, b)
    sa = np.array([np.nan, 1.0, np.inf, np.inf, -np.inf, -np.inf, np.nan, 3.0, 0.0, -0.0, 1e-45, np.nan, -1.0],
                  np.float32)
    sb = np.array([2.0, np.nan, np.inf, -np.inf, -np.inf, np.nan, np.nan, 3.0, -0.0, 0.0, -1e-45, np.inf, -1.0],
                  np.float32)
    k = min(n, len(sa))
    if k:
        pick = rng.choice(n, k, replace=False)
        a[pick], b[pick] = sa[:k], sb[:k]
        a.view(np.uint32)[pick[:1]] = 0xFFC12345
        if k > 1:
            b.view(np.uint32)[pick[1:2]] = 0x7FA00001  # (signalling)
    return a, b


def _lae2(lib: object, a: object, b: object) -> object:
    return lib.logaddexp2(a, b)  # type: ignore[attr-defined]


@needs_kernel
@pytest.mark.usefixtures("torch_threads_as_assumed")  # (past the grain: PyTorch's chunks follow its thread count)
def test_logaddexp2_float32_flat_runs_bits() -> None:
    rng = np.random.default_rng(369)
    for n in _LENGTHS + [40000, 100003]:  # (the last two: PyTorch's parallel chunks)
        a, b = _lae2_pairs(n, rng)
        _same(_lae2(strided, strided.from_numpy(a), strided.from_numpy(b)),
              _lae2(torch, torch.from_numpy(a), torch.from_numpy(b)))


@needs_kernel
def test_logaddexp2_float32_layouts_bits() -> None:
    rng = np.random.default_rng(370)
    a, b = (v.reshape(40, 33) for v in _lae2_pairs(40 * 33, rng))
    sa, sb, ta, tb = strided.from_numpy(a), strided.from_numpy(b), torch.from_numpy(a), torch.from_numpy(b)
    cases = [(lambda x: x.t(), lambda y: y.t()), (lambda x: x[::2, 1::3], lambda y: y[::2, 1::3]),
             (lambda x: x, lambda y: y.t().contiguous().t()), (lambda x: x, lambda y: y[:1]),
             (lambda x: x, lambda y: y[:, :1]), (lambda x: x, lambda y: y[2, 3]), (lambda x: x[1, 1], lambda y: y[2, 3]),
             (lambda x: x[:0], lambda y: y[:0]), (lambda x: x[:1].expand(5, 33), lambda y: y[:5]),
             (lambda x: x[7], lambda y: y[7])]
    for f, g in cases:
        _same(strided.logaddexp2(f(sa), g(sb)), torch.logaddexp2(f(ta), g(tb)))
    to, so = torch.empty(40, 33), strided.empty(40, 33)
    torch.logaddexp2(ta, tb, out=to)
    strided.logaddexp2(sa, sb, out=so)
    _same(so, to)
    i = np.arange(-20, 13, dtype=np.int64)  # (an integer operand: converted to float32 first)
    _same(strided.logaddexp2(sa[0], strided.from_numpy(i)), torch.logaddexp2(ta[0], torch.from_numpy(i)))


@needs_kernel
@pytest.mark.parametrize("form", [0, 1])
def test_logaddexp2_float32_kernel_forms_bits(form: int) -> None:
    from strided.kernels.sleef import run2_op, step
    k = native.sleef()
    rng = np.random.default_rng(371)
    st = step()
    for n in _LENGTHS:
        a, b = _lae2_pairs(n, rng)
        out = np.empty_like(a)
        if not k.run2(a, b, out, 1 if st else 0, form, st, run2_op(1, st)):
            pytest.skip("no AVX-512F on this CPU")
        _same(strided.from_numpy(out), torch.logaddexp2(torch.from_numpy(a), torch.from_numpy(b)))


_LAE2_SCRIPT = textwrap.dedent("""
    import numpy as np, torch, strided
    rng = np.random.default_rng(9)
    bad = 0
    def differ(a, b):
        a, b = np.ascontiguousarray(np.asarray(a)), np.ascontiguousarray(b.numpy())
        return int((a.view(np.uint32) != b.view(np.uint32)).sum())
    for n in list(range(40)) + [127, 130, 1000]:
        a = (rng.standard_normal(n) * 5).astype(np.float32)
        b = (rng.standard_normal(n) * 5).astype(np.float32)
        if n > 7:
            a[:8] = [np.nan, 1.0, np.inf, -np.inf, np.nan, 0.0, 2.0, np.inf]
            b[:8] = [1.0, np.nan, np.inf, -np.inf, np.nan, -0.0, 2.0, -np.inf]
            a.view(np.uint32)[4] = 0xFFC12345
        for u, v in ((a, b), (a[::2], b[::2]), (a, b[:1] if n else b)):
            bad += differ(strided.logaddexp2(strided.from_numpy(u), strided.from_numpy(v)),
                          torch.logaddexp2(torch.from_numpy(u), torch.from_numpy(v)))
    print("BAD", bad, torch.backends.cpu.get_cpu_capability())
""")


@needs_kernel
@pytest.mark.parametrize("capability", ["avx2", "default"])
def test_logaddexp2_float32_other_capabilities_bits(capability: str) -> None:
    no_bad_under(capability, _LAE2_SCRIPT)
