"""PyTorch's exact bits for F.softplus (float32 / float64, any beta / threshold): SLEEF's exp and
log1p where PyTorch's cpu_kernel_vec loop is vectorized, the C library's in its scalar tail (the
SLEEF kernel's SOFTPLUS op), over every path: the compiled front, the general path (parameters,
layouts), autograd's forward, and the backward (unchanged formula, compared with torch's bits)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
import strided.nn.functional as F
from strided.kernels import native
from strided.kernels.sleef import step

torch.set_num_threads(1)
_DTYPES = [np.float32, np.float64]
_LENGTHS = [*range(71), 127, 128, 129, 130, 1000]
_PARAMS = [(1.0, 20.0), (2.0, 20.0), (0.5, 3.0), (1.0, 1e9), (-1.5, 2.0), (3.0, 1e9), (0.0, 20.0), (1.0, -5.0)]
needs_kernel = pytest.mark.skipif(native.sleef() is None, reason="the SLEEF kernel is not built")


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def _values(n: int, npdt: type, rng: np.random.Generator) -> np.ndarray:
    """n values over softplus's range, with NaN words (signs, payloads, a signalling one),
    infinities, signed zeros, exp's overflow / underflow points and the threshold's neighbours."""
    x = (rng.standard_normal(n) * rng.choice([1.0, 5.0, 30.0, 300.0], n)).astype(npdt)
    words = ([0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FC12345, 0xFFA00000] if npdt is np.float32 else
             [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0x7FF8000012345678])
    specials = np.array([np.inf, -np.inf, 0.0, -0.0, 20.0, np.nextafter(npdt(20), npdt(30)), 88.7, 89.0, -104.0,
                         709.8, 710.0, -745.0, 1e-30, -1e30, 1e30], npdt)
    k = min(n, 6)
    if k:
        pick = rng.choice(n, k, replace=False)
        x[pick[: k // 2]] = rng.choice(specials, k // 2)
        _bits(x)[pick[k // 2:]] = rng.choice(np.array(words, _bits(x).dtype), k - k // 2)
    return x


def _same(got: strided.Tensor, want: torch.Tensor) -> None:
    g, w = got.detach().numpy(), want.detach().numpy()
    assert g.dtype == w.dtype and g.shape == w.shape
    bad = _bits(np.ascontiguousarray(g)) != _bits(np.ascontiguousarray(w))
    assert not bad.any(), (np.ascontiguousarray(g)[bad][:4], np.ascontiguousarray(w)[bad][:4])


@needs_kernel
@pytest.mark.parametrize("npdt", _DTYPES)
def test_softplus_flat_runs_bits(npdt: type) -> None:
    """F.softplus(x) (the compiled front) of 1-D runs of every length around the vector step."""
    rng = np.random.default_rng(34)
    for n in _LENGTHS:
        x = _values(n, npdt, rng)
        _same(F.softplus(strided.tensor(x)), torch.nn.functional.softplus(torch.from_numpy(x)))


@needs_kernel
@pytest.mark.parametrize("npdt", _DTYPES)
@pytest.mark.parametrize("beta, threshold", _PARAMS)
def test_softplus_params_bits(npdt: type, beta: float, threshold: float) -> None:
    """beta and threshold (rounded to the dtype, as PyTorch's beta_.to<scalar_t>())."""
    rng = np.random.default_rng(int(beta * 10 + 100) ^ int(abs(threshold)) % 1000)
    for n in (0, 1, 15, 16, 17, 31, 32, 33, 65, 130):
        x = _values(n, npdt, rng)
        want = torch.nn.functional.softplus(torch.from_numpy(x), beta=beta, threshold=threshold)
        _same(F.softplus(strided.tensor(x), beta=beta, threshold=threshold), want)
        _same(F.softplus(strided.tensor(x), beta, threshold), want)


@needs_kernel
@pytest.mark.parametrize("npdt", _DTYPES)
def test_softplus_layouts_bits(npdt: type) -> None:
    """Transposed, sliced (gaps), expanded, 0-d, empty, offset and >2-d inputs: the loop's places."""
    rng = np.random.default_rng(7)
    base = _values(40 * 37, npdt, rng).reshape(40, 37)
    s, t = strided.tensor(base), torch.from_numpy(base)
    cases = [
        (s.t(), t.t()), (s[:, ::2], t[:, ::2]), (s[::3, 1:30], t[::3, 1:30]), (s[5], t[5]), (s[:, 4], t[:, 4]),
        (s[2:3, 0:1].expand(5, 70), t[2:3, 0:1].expand(5, 70)), (s[7].expand(3, 37), t[7].expand(3, 37)),
        (s[0, 0], t[0, 0]), (s[:0], t[:0]), (s.reshape(4, 10, 37).permute(2, 0, 1), t.reshape(4, 10, 37).permute(2, 0, 1)),
        (s.reshape(-1)[3:], t.reshape(-1)[3:]),
    ]
    for a, b in cases:
        for kw in ({}, {"beta": 2.0, "threshold": 10.0}):
            got, want = F.softplus(a, **kw), torch.nn.functional.softplus(b, **kw)
            assert got.shape == tuple(want.shape) and got.stride() == want.stride()
            _same(got, want)


@needs_kernel
@pytest.mark.parametrize("npdt", _DTYPES)
def test_softplus_autograd_bits(npdt: type) -> None:
    """The recording path's forward and the backward's gradient (PyTorch's softplus_backward:
    g z / (z + 1), z = exp(x beta) from SLEEF / the C library at the loop's places) with torch's
    bits; the module form's forward too."""
    rng = np.random.default_rng(11)
    for n in (1, 17, 33, 100):
        x = (rng.standard_normal(n) * 8).astype(npdt)
        g = rng.standard_normal(n).astype(npdt)
        for kw in ({}, {"beta": 1.5, "threshold": 4.0}):
            xs = strided.tensor(x, requires_grad=True)
            xt = torch.from_numpy(x.copy()).requires_grad_()
            ys, yt = F.softplus(xs, **kw), torch.nn.functional.softplus(xt, **kw)
            _same(ys, yt)
            ys.backward(strided.tensor(g))
            yt.backward(torch.from_numpy(g))
            _same(xs.grad, xt.grad)
        _same(strided.nn.Softplus()(strided.tensor(x)), torch.nn.Softplus()(torch.from_numpy(x)))


def test_softplus_general_path_without_kernel_stays_close() -> None:
    """Without the compiled module (or ATen's DEFAULT capability: step 0) NumPy's ufuncs run:
    within a few ulps of PyTorch's, the same NaN places."""
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(300) * 10).astype(np.float32)
    want = torch.nn.functional.softplus(torch.from_numpy(x)).numpy()
    with native.disabled():
        got = F.softplus(strided.tensor(x)).numpy()
    assert np.allclose(got, want, rtol=4e-7, atol=0)
    assert step() in (0, 16, 32)


@needs_kernel
@pytest.mark.parametrize("tdt", [torch.float16, torch.bfloat16])
def test_softplus_reduced_close(tdt: torch.dtype) -> None:
    """float16 / bfloat16 are computed in float32 and rounded once, as PyTorch's: its bits but where
    one float32 ulp of the vector / scalar split crosses a rounding boundary (rare)."""
    rng = np.random.default_rng(5)
    x = torch.from_numpy((rng.standard_normal(1000) * 6).astype(np.float32)).to(tdt)
    want = torch.nn.functional.softplus(x)
    got = F.softplus(strided.tensor(x.float().numpy()).to(getattr(strided, str(tdt).split(".")[1])))
    w = want.float().numpy()
    g = got.to(strided.float32).numpy()
    assert (g == w).mean() > 0.99


@needs_kernel
@pytest.mark.parametrize("npdt", _DTYPES)
@pytest.mark.parametrize("form", [0, -1])
def test_softplus_kernel_forms_bits(npdt: type, form: int) -> None:
    """The kernel's one-lane form (0) and its AVX-512 form (-1, where the CPU has it), with every
    element the vectorized function (step -1) or the loop's split (the step), in place too: torch's
    bits, including exp beyond log1p's core (a threshold above 87 / 709) and NaN lanes."""
    from strided.kernels.sleef import SOFTPLUS

    k = native.sleef()
    run = k.run if npdt is np.float32 else k.run_d
    st = step() if npdt is np.float32 else step() // 2
    rng = np.random.default_rng(99)
    for n in (1, 7, 16, 33, 100, 129):
        for beta, threshold in ((1.0, 20.0), (1.0, 1e9), (2.5, 1e9), (-0.5, 4.0)):
            x = _values(n, npdt, rng)
            x[: n // 3] = rng.uniform(80, 720, n // 3).astype(npdt)
            want = torch.nn.functional.softplus(torch.from_numpy(x), beta=beta, threshold=threshold).numpy()
            out = np.empty_like(x)
            assert run(x, out, SOFTPLUS, 0, 0, st, form, beta, threshold)
            assert (_bits(out) == _bits(want)).all()
            y = x.copy()
            run(y, y, SOFTPLUS, 0, 0, st, form, beta, threshold)
            assert (_bits(y) == _bits(out)).all()


@needs_kernel
@pytest.mark.parametrize("npdt", _DTYPES)
@pytest.mark.parametrize("beta, threshold", [(1.0, 20.0), (2.0, 1e9), (0.5, 3.0)])
def test_softplus_backward_bits(npdt: type, beta: float, threshold: float) -> None:
    """The gradient of special inputs and gradients at every length around the step: torch's bits,
    but a NaN's word where both x and the incoming gradient are NaN (which operand's NaN the
    product keeps is the loop's choice: only the NaN place is compared there)."""
    rng = np.random.default_rng(21)
    for n in [*range(1, 71), 127, 128, 129, 130, 1000]:
        x, g = _values(n, npdt, rng), _values(n, npdt, rng)
        xs = strided.tensor(x, requires_grad=True)
        xt = torch.from_numpy(x.copy()).requires_grad_()
        F.softplus(xs, beta, threshold).backward(strided.tensor(g))
        torch.nn.functional.softplus(xt, beta, threshold).backward(torch.from_numpy(g))
        got, want = xs.grad.numpy(), xt.grad.numpy()
        both = np.isnan(x) & np.isnan(g)
        assert (np.isnan(got) == np.isnan(want)).all()
        assert (_bits(got)[~both] == _bits(want)[~both]).all()
