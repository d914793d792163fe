"""Session 35: F.mish and its gradient, and float64 F.gelu(approximate="tanh"), are PyTorch's bits
(issue 23).

mish_kernel (aten/src/ATen/native/cpu/Activation.cpp) is a cpu_kernel_vec loop: its vectorized
function ``x * x.exp().log1p().tanh()`` takes SLEEF's u10 exp, log1p and tanh (_sleef_tanh.h ports
xtanhf / xtanh), its scalar function the C library's expf / log1pf / tanhf. A NaN gives x quieted,
but the all-ones word in the second Vectorized of each pair the vector loop takes (measured). The
SLEEF kernel's MISH op reproduces the split (torch_loop), so every layout, length and NaN word is
torch's, in both forms of the kernel (AVX-512, one lane), under ATen's AVX512, AVX2 and DEFAULT
capabilities (the last two in subprocesses: the capability is read once per process). The
gradient, mish_backward, takes the same tanh(softplus(x)) and SLEEF's sigmoid at the loop's places,
combined with the fused multiply-adds PyTorch's compiled kernel takes (kernel function mish_grad).
float64 gelu's tanh form is GeluKernelImpl's loop with SLEEF's tanh (xtanh) where vectorized, the
C library's tanh in the tail, ``x + kKappa x^3`` one fused step but under ATen's DEFAULT build.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
import torch

import strided
import strided.nn.functional as F
from capability_runs import no_bad_under
from strided.kernels import native
from strided.kernels.sleef import GELU_TANH_D, MISH, step, torch_loop

torch.set_num_threads(1)
_DTYPES = [np.float32, np.float64]
_LENGTHS = [*range(71), 127, 128, 129, 130, 1000]
needs_kernel = pytest.mark.skipif(native.sleef() is None, reason="the SLEEF kernel is not built")


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])


def _values(n: int, npdt: type, rng: np.random.Generator) -> np.ndarray:
    """n values over mish's range with NaN words (signs, payloads, signalling), infinities, signed
    zeros, subnormals, exp's overflow / underflow points and tanh's saturation bounds."""
    x = (rng.standard_normal(n) * rng.choice([1e-3, 1.0, 5.0, 30.0, 300.0], n)).astype(npdt)
    words = ([0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FC12345, 0xFFA00000] if npdt is np.float32 else
             [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0x7FF8000012345678])
    specials = np.array([np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 8.664339742, 8.67, 18.714973875, 18.72,
                         20.0, 88.7, 89.0, -104.0, -105.0, 709.8, 710.0, -745.0, 1e-30, -1e30, 1e30, 3e38], npdt)
    k = min(n, 8)
    if k:
        pick = rng.choice(n, k, replace=False)
        x[pick[: k // 2]] = rng.choice(specials, k // 2)
        u = _bits(x).dtype  # (x is fresh and contiguous: its view below writes it)
        x.view(u)[pick[k // 2:]] = rng.choice(np.array(words, u), k - k // 2)
    return x


def _same(got: strided.Tensor, want: torch.Tensor) -> None:
    g, w = got.detach().numpy(), want.detach().numpy()
    assert g.dtype == w.dtype and g.shape == w.shape
    bad = _bits(g) != _bits(w)
    assert not bad.any(), (np.ascontiguousarray(g)[bad][:4], np.ascontiguousarray(w)[bad][:4])


@needs_kernel
@pytest.mark.parametrize("npdt", _DTYPES)
@pytest.mark.parametrize("form", [0, 1])
def test_mish_kernel_forms_bits(npdt: type, form: int) -> None:
    """The kernel's one-lane form (0) and AVX-512 form (1) with the loop's split: torch's bits over
    every length around the vector pairs, NaN words in both Vectorized of a pair, in place too."""
    k = native.sleef()
    run = k.run if npdt is np.float32 else k.run_d
    st = step() if npdt is np.float32 else step() // 2
    rng = np.random.default_rng(35)
    for n in _LENGTHS:
        x = _values(n, npdt, rng)
        want = torch.nn.functional.mish(torch.from_numpy(x)).numpy()
        out = np.empty_like(x)
        if not run(x, out, MISH, 0, 0, st, form):
            pytest.skip("no AVX-512F on this CPU")
        assert (_bits(out) == _bits(want)).all(), (n, x[_bits(out) != _bits(want)][:4])
        y = x.copy()
        run(y, y, MISH, 0, 0, st, form)
        assert (_bits(y) == _bits(out)).all()


@needs_kernel
@pytest.mark.parametrize("npdt", _DTYPES)
def test_mish_nan_words_by_lane(npdt: type) -> None:
    """One NaN at every place of a 160-element run: x quieted in the first Vectorized of each pair and
    in the scalar tail, the all-ones word in the second Vectorized (torch's, measured)."""
    word = 0x7FC18DF4 if npdt is np.float32 else 0x7FF8000000000123
    for p in range(160):
        x = np.zeros(160, npdt)
        x.view(_bits(x).dtype)[p] = word
        got = F.mish(strided.tensor(x))
        want = torch.nn.functional.mish(torch.from_numpy(x))
        _same(got, want)


@needs_kernel
@pytest.mark.parametrize("npdt", _DTYPES)
def test_mish_flat_runs_bits(npdt: type) -> None:
    """F.mish(x) (the compiled front), the module form and mish_ in place: torch's bits."""
    rng = np.random.default_rng(7)
    for n in _LENGTHS:
        x = _values(n, npdt, rng)
        _same(F.mish(strided.tensor(x)), torch.nn.functional.mish(torch.from_numpy(x)))
    x = _values(100, npdt, rng)
    _same(strided.nn.Mish()(strided.tensor(x)), torch.nn.Mish()(torch.from_numpy(x)))
    s, t = strided.tensor(x), torch.from_numpy(x.copy())
    assert F.mish(s, inplace=True) is s
    torch.nn.functional.mish(t, inplace=True)
    _same(s, t)


@needs_kernel
@pytest.mark.parametrize("npdt", _DTYPES)
def test_mish_layouts_bits(npdt: type) -> None:
    """Transposed, sliced (gaps), expanded, 0-d, empty, offset and >2-d inputs: the loop's places and
    the result's strides."""
    rng = np.random.default_rng(11)
    base = _values(40 * 37, npdt, rng).reshape(40, 37)
    s, t = strided.tensor(base), torch.from_numpy(base)
    cases = [
        (s.t(), t.t()), (s[:, ::2], t[:, ::2]), (s[::3, 1:30], t[::3, 1:30]), (s[5], t[5]), (s[:, 4], t[:, 4]),
        (s[2:3, 0:1].expand(5, 70), t[2:3, 0:1].expand(5, 70)), (s[7].expand(3, 37), t[7].expand(3, 37)),
        (s[0, 0], t[0, 0]), (s[:0], t[:0]), (s.reshape(4, 10, 37).permute(2, 0, 1), t.reshape(4, 10, 37).permute(2, 0, 1)),
        (s.reshape(-1)[3:], t.reshape(-1)[3:]), (s[1::2, ::3], t[1::2, ::3]),
    ]
    for a, b in cases:
        got, want = F.mish(a), torch.nn.functional.mish(b)
        assert got.shape == tuple(want.shape) and got.stride() == want.stride()
        _same(got, want)


@needs_kernel
@pytest.mark.parametrize("npdt", _DTYPES)
def test_mish_parallel_chunks_bits(npdt: type) -> None:
    """Beyond PyTorch's grain (32768) its threads cut the run into chunks, each a loop of its own:
    torch_loop at torch's thread count gives its bits there too."""
    rng = np.random.default_rng(5)
    x = _values(70001, npdt, rng)
    try:
        torch.set_num_threads(2)
        want = torch.nn.functional.mish(torch.from_numpy(x)).numpy()
    finally:
        torch.set_num_threads(1)
    got = torch_loop(x, MISH, threads=2)
    assert got is not None and (_bits(got) == _bits(want)).all()


@needs_kernel
@pytest.mark.parametrize("npdt", _DTYPES)
def test_mish_autograd(npdt: type) -> None:
    """The recording path's forward is torch's bits; the gradient (PyTorch's mish_backward formula,
    unchanged) is within a few ulps; the node's name is torch's."""
    rng = np.random.default_rng(13)
    x = (rng.standard_normal(50) * 6).astype(npdt)
    g = rng.standard_normal(50).astype(npdt)
    xs = strided.tensor(x, requires_grad=True)
    xt = torch.from_numpy(x.copy()).requires_grad_()
    ys, yt = F.mish(xs), torch.nn.functional.mish(xt)
    _same(ys, yt)
    assert ys.grad_fn.name() == yt.grad_fn.name() == "MishBackward0"
    ys.backward(strided.tensor(g))
    yt.backward(torch.from_numpy(g))
    _same(xs.grad, xt.grad)


@needs_kernel
@pytest.mark.parametrize("npdt", _DTYPES)
def test_mish_backward_bits(npdt: type) -> None:
    """PyTorch's mish_backward (SLEEF's tanh(softplus) and sigmoid in its vector pairs, the C
    library's in the tail, combined with its fused steps) over every length and a transposed input:
    torch's bits (NaN-free: a NaN's word there is not reproduced)."""
    rng = np.random.default_rng(19)
    for n in _LENGTHS:
        x = (rng.standard_normal(n) * rng.choice([1e-3, 1.0, 6.0, 40.0], n)).astype(npdt)
        g = rng.standard_normal(n).astype(npdt)
        xs = strided.tensor(x, requires_grad=True)
        xt = torch.from_numpy(x.copy()).requires_grad_()
        F.mish(xs).backward(strided.tensor(g))
        torch.nn.functional.mish(xt).backward(torch.from_numpy(g))
        _same(xs.grad, xt.grad)
    base = (rng.standard_normal((33, 20)) * 5).astype(npdt)
    xs = strided.tensor(base, requires_grad=True)
    xt = torch.from_numpy(base.copy()).requires_grad_()
    F.mish(xs.t()).sum().backward()
    torch.nn.functional.mish(xt.t()).sum().backward()
    _same(xs.grad, xt.grad)


@needs_kernel
@pytest.mark.parametrize("tdt", [torch.float16, torch.bfloat16])
def test_mish_reduced_floats_values(tdt: torch.dtype) -> None:
    """float16 / bfloat16 are computed in float32 and rounded once, as PyTorch's: its bits for every
    non-NaN value over the lengths (the float32 split is at Vectorized<float>'s pair, PyTorch's at
    Vectorized<Half>'s; no value here lands on a rounding boundary between the two)."""
    rng = np.random.default_rng(17)
    sdt = getattr(strided, str(tdt).split(".")[1])
    for n in _LENGTHS:
        x = torch.from_numpy((rng.standard_normal(n) * 5).astype(np.float32)).to(tdt)
        want = torch.nn.functional.mish(x).float().numpy()
        got = F.mish(strided.tensor(x.float().numpy()).to(sdt)).to(strided.float32).numpy()
        assert (_bits(got) == _bits(want)).all(), n


def test_mish_without_kernel_stays_close() -> None:
    """Without the compiled module NumPy's ufuncs run: within a few ulps of PyTorch's."""
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(300) * 10).astype(np.float32)
    want = torch.nn.functional.mish(torch.from_numpy(x)).numpy()
    with native.disabled():
        got = F.mish(strided.tensor(x)).numpy()
    assert np.allclose(got, want, rtol=4e-6, atol=1e-30)
    xs = strided.tensor(x, requires_grad=True)
    xt = torch.from_numpy(x.copy()).requires_grad_()
    with native.disabled():
        F.mish(xs).sum().backward()
    torch.nn.functional.mish(xt).sum().backward()
    assert np.allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-30)


_CAPABILITY_SCRIPT = textwrap.dedent("""
    import numpy as np, torch, strided
    import strided.nn.functional as F
    torch.set_num_threads(1)
    rng = np.random.default_rng(1)
    bad = 0
    for dt, ui, word in ((np.float32, np.uint32, 0x7FC18DF4), (np.float64, np.uint64, 0x7FF8000000000123)):
        for n in [*range(71), 127, 128, 129, 130, 1000]:
            x = (rng.standard_normal(n) * 8).astype(dt)
            if n > 3:
                x.view(ui)[[1, n // 2, n - 1]] = word
                x[2] = -np.inf
            got = F.mish(strided.tensor(x)).numpy().view(ui)
            want = torch.nn.functional.mish(torch.from_numpy(x)).numpy().view(ui)
            bad += int((got != want).sum())
            if n:  # (the gradient, of a NaN-free x)
                x = (rng.standard_normal(n) * 8).astype(dt)
                g = rng.standard_normal(n).astype(dt)
                xs = strided.tensor(x, requires_grad=True)
                xt = torch.from_numpy(x.copy()).requires_grad_()
                F.mish(xs).backward(strided.tensor(g))
                torch.nn.functional.mish(xt).backward(torch.from_numpy(g))
                bad += int((xs.grad.numpy().view(ui) != xt.grad.numpy().view(ui)).sum())
        for p in range(64):
            x = np.zeros(64, dt)
            x.view(ui)[p] = word
            got = F.mish(strided.tensor(x)).numpy().view(ui)
            want = torch.nn.functional.mish(torch.from_numpy(x)).numpy().view(ui)
            bad += int((got != want).sum())
    print("BAD", bad, torch.backends.cpu.get_cpu_capability())
""")


@needs_kernel
@pytest.mark.parametrize("capability", ["avx2", "default"])
def test_mish_other_capabilities_bits(capability: str) -> None:
    """Under ATEN_CPU_CAPABILITY=avx2 (pairs of 8 float32 / 4 float64 lanes) and default (every
    element the scalar function's bits) strided follows PyTorch run in the same environment."""
    no_bad_under(capability, _CAPABILITY_SCRIPT)


def _gelu_values(n: int, rng: np.random.Generator) -> np.ndarray:
    x = rng.standard_normal(n) * rng.choice([1e-3, 1.0, 3.0, 30.0], n)
    k = min(n, 6)
    if k:
        pick = rng.choice(n, k, replace=False)
        x[pick] = rng.choice([np.inf, -np.inf, 0.0, -0.0, np.nan, 1e300], k)
        x.view(np.uint64)[pick[:1]] = 0xFFF8000000000077  # (a NaN payload and sign: kept, quieted)
    return x


@needs_kernel
@pytest.mark.parametrize("form", [0, 1])
def test_gelu_tanh_float64_kernel_forms_bits(form: int) -> None:
    """run_d's GELU_TANH_D in its one-lane and AVX-512 forms, with the loop's split: torch's bits."""
    k = native.sleef()
    rng = np.random.default_rng(23)
    for n in _LENGTHS:
        x = _gelu_values(n, rng)
        want = torch.nn.functional.gelu(torch.from_numpy(x), approximate="tanh").numpy()
        out = np.empty_like(x)
        if not k.run_d(x, out, GELU_TANH_D, 0, 0, step() // 2, form):
            pytest.skip("no AVX-512F on this CPU")
        assert (_bits(out) == _bits(want)).all(), (n, x[_bits(out) != _bits(want)][:4])


@needs_kernel
def test_gelu_tanh_float64_bits() -> None:
    """F.gelu(x, approximate="tanh") of float64 runs of every length, layouts (result strides too)
    and past PyTorch's gelu grain (its parallel chunks): torch's bits."""
    rng = np.random.default_rng(29)
    for n in _LENGTHS:
        x = _gelu_values(n, rng)
        _same(F.gelu(strided.tensor(x), approximate="tanh"),
              torch.nn.functional.gelu(torch.from_numpy(x), approximate="tanh"))
    base = _gelu_values(40 * 37, rng).reshape(40, 37)
    s, t = strided.tensor(base), torch.from_numpy(base)
    for a, b in ((s.t(), t.t()), (s[:, ::2], t[:, ::2]), (s[2:3, 0:1].expand(5, 70), t[2:3, 0:1].expand(5, 70)),
                 (s[0, 0], t[0, 0]), (s[:0], t[:0]), (s.reshape(4, 10, 37).permute(2, 0, 1), t.reshape(4, 10, 37).permute(2, 0, 1))):
        got, want = F.gelu(a, approximate="tanh"), torch.nn.functional.gelu(b, approximate="tanh")
        assert got.stride() == want.stride()
        _same(got, want)
    x = _gelu_values(50001, rng)
    try:
        torch.set_num_threads(2)
        want = torch.nn.functional.gelu(torch.from_numpy(x), approximate="tanh").numpy()
    finally:
        torch.set_num_threads(1)
    got = torch_loop(x, GELU_TANH_D, threads=2)
    assert got is not None and (_bits(got) == _bits(want)).all()


_GELU_SCRIPT = textwrap.dedent("""
    import numpy as np, torch, strided
    import strided.nn.functional as F
    torch.set_num_threads(1)
    rng = np.random.default_rng(2)
    bad = 0
    for n in [*range(71), 127, 128, 129, 130, 1000]:
        x = rng.standard_normal(n) * 3
        got = F.gelu(strided.tensor(x), approximate="tanh").numpy()
        want = torch.nn.functional.gelu(torch.from_numpy(x), approximate="tanh").numpy()
        bad += int((got.view(np.uint64) != want.view(np.uint64)).sum())
    print("BAD", bad, torch.backends.cpu.get_cpu_capability())
""")


@needs_kernel
@pytest.mark.parametrize("capability", ["avx2", "default"])
def test_gelu_tanh_float64_other_capabilities_bits(capability: str) -> None:
    """AVX2 (pairs of 4 lanes) and DEFAULT (the scalar function, no fused step): PyTorch's bits run
    in the same environment."""
    no_bad_under(capability, _GELU_SCRIPT)
