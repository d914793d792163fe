"""act39: the AVX2 vector forms of the activations (issue 23's rows on an AVX2 CPU), side by side with
``torch`` and with the kernels' one-lane forms.

- gelu: oneDNN's AVX2 ``gelu_erf`` (run's op 19, a contiguous float32 input) and GeluKernelImpl's
  vectorized function (op 5: any other layout) in eight AVX2 lanes: the one-lane form's bits, so
  torch's; float16 / bfloat16 through the same kernels.
- logsigmoid: ``log_sigmoid_run``'s float32 AVX2 form (form 2): the one-lane form's bits, torch's.
Each vector form is compared with form 0 (the plain C lanes) on random words, specials and every
length 0..70 (whole vectors, two-vector iterations and tails), and the ops with torch on contiguous,
strided, permuted, ``out=`` and in-place calls, and their gradients.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import strided
import strided.nn.functional as F
from strided.kernels import native, sleef

K = native.sleef()
S = native.special()
needs_kernels = pytest.mark.skipif(K is None or S is None, reason="the compiled kernels are not built")

SPECIALS = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FC12345, 0xFFA00000, 0x7F800000, 0xFF800000, 0, 0x80000000,
                     1, 0x80000001, 0x007FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, 0x40B15CEE, 0xC2AEAC50, 0x42B17218], np.uint32)


def _words(n: int, seed: int) -> np.ndarray:
    """``n`` float32 values: the specials first, then random bit patterns and normal draws alternating."""
    rng = np.random.default_rng(seed)
    w = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    w[1::2] = rng.normal(0, 3, n).astype(np.float32).view(np.uint32)[1::2]
    w[: min(n, SPECIALS.size)] = SPECIALS[: min(n, SPECIALS.size)]
    return w.view(np.float32)


def _bits_equal(got: np.ndarray, want: np.ndarray) -> None:
    got, want = np.ascontiguousarray(got), np.ascontiguousarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[got.itemsize]
    bad = np.nonzero(got.reshape(-1).view(u) != want.reshape(-1).view(u))[0]
    assert not bad.size, f"{bad.size} differ, first {bad[:4]}: {got.reshape(-1)[bad[:4]]} vs {want.reshape(-1)[bad[:4]]}"


def _t(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(a).copy())


# ---- the kernels' forms: the vector lanes give the one-lane bits ---------------------------------


@needs_kernels
@pytest.mark.parametrize("op", ["GELU_ONEDNN_AS", "GELU"])
def test_gelu_ops_vector_forms_match_the_lanes_at_every_length(op: str) -> None:
    code = getattr(sleef, op)
    x = _words(200_003, 1)
    forms = [-1] + ([2] if K.run(x[:1], np.empty(1, np.float32), code, 0, 0, -1, 2) else [])
    for n in list(range(71)) + [x.size]:
        want = np.empty(n, np.float32)
        assert K.run(x[:n], want, code, 0, 0, -1, 0)
        for form in forms:
            got = np.full(n, 7.0, np.float32)
            assert K.run(x[:n], got, code, 0, 0, -1, form)
            _bits_equal(got, want)


@needs_kernels
def test_logsigmoid_vector_forms_match_the_lanes_at_every_length() -> None:
    x = _words(200_003, 2)
    avx2 = S.log_sigmoid_run(x[:1], np.empty(1, np.float32), 2)
    for n in list(range(71)) + [x.size]:
        want = np.empty(n, np.float32)
        assert S.log_sigmoid_run(x[:n], want, 0)
        for form in [-1] + ([2] if avx2 else []):
            got = np.full(n, 7.0, np.float32)
            assert S.log_sigmoid_run(x[:n], got, form)
            _bits_equal(got, want)


@needs_kernels
def test_logsigmoid_avx2_form_is_float32_only_and_in_place_safe() -> None:
    """form 2 of a float64 buffer is the one-lane form (no AVX2 double form): the same bits as form 0;
    in place (out is x itself) refused in every form, as documented (nothing written)."""
    x = _words(1000, 3)
    if not S.log_sigmoid_run(x[:1], np.empty(1, np.float32), 2):
        pytest.skip("the CPU lacks AVX2 + FMA, or runs the AVX-512 form")
    d = np.random.default_rng(4).normal(0, 30, 1000)
    a, b = np.empty_like(d), np.empty_like(d)
    assert S.log_sigmoid_run(d, a, 0) and S.log_sigmoid_run(d, b, 2)
    _bits_equal(a, b)
    y = x.copy()
    for form in (-1, 0, 2):
        assert not S.log_sigmoid_run(y, y, form)
    _bits_equal(y, x)


# ---- the ops against torch -----------------------------------------------------------------------


@needs_kernels
@pytest.mark.parametrize("name", ["gelu", "logsigmoid"])
def test_short_runs_against_torch(name: str) -> None:
    ours, theirs = getattr(F, name), getattr(torch.nn.functional, name)
    x = _words(71, 5)
    for n in range(71):
        _bits_equal(ours(strided.from_numpy(x[:n].copy())).numpy(), theirs(_t(x[:n])).numpy())


@needs_kernels
@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("name", ["gelu", "logsigmoid"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "sliced", "2-d tail"])
def test_layouts_against_torch(name: str, layout: str) -> None:
    ours, theirs = getattr(F, name), getattr(torch.nn.functional, name)
    base = _words(300 * 301, 6).reshape(300, 301)
    s, t = strided.from_numpy(base.copy()), _t(base)
    if layout == "transposed":
        s, t = s.T, t.T
    elif layout == "stepped":
        s, t = s[:, ::3], t[:, ::3]
    elif layout == "sliced":
        s, t = s[1:, 5:260], t[1:, 5:260]
    elif layout == "2-d tail":
        s, t = s[:, :13], t[:, :13]
    got, want = ours(s), theirs(t)
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    _bits_equal(got.numpy(), want.numpy())


@needs_kernels
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64"])
@pytest.mark.parametrize("name", ["gelu", "logsigmoid"])
def test_other_dtypes_against_torch(name: str, dtype: str) -> None:
    ours, theirs = getattr(F, name), getattr(torch.nn.functional, name)
    x = np.random.default_rng(7).normal(0, 4, (37, 53)).astype(np.float32)
    t = torch.from_numpy(x).to(getattr(torch, dtype))
    s = strided.from_numpy(x).to(getattr(strided, dtype))
    for a, b in ((s, t), (s.T, t.T)):
        got, want = ours(a), theirs(b)
        _bits_equal(got.float().numpy() if dtype != "float64" else got.numpy(),
                    want.float().numpy() if dtype != "float64" else want.numpy())


@needs_kernels
def test_gelu_out_against_torch() -> None:
    # (a row-major out only: torch 2.13's gelu into a transposed out= leaves it unwritten on this CPU)
    x = _words(64 * 65, 8).reshape(64, 65)
    s_out, t_out = strided.empty(64, 65), torch.empty(64, 65)
    r = F.gelu(strided.from_numpy(x.copy()), out=s_out)
    torch._C._nn.gelu(_t(x), out=t_out)
    assert r is s_out and s_out.stride() == t_out.stride()
    _bits_equal(s_out.numpy(), t_out.numpy())


@needs_kernels
@pytest.mark.parametrize("name", ["gelu", "logsigmoid"])
def test_gradients_against_torch(name: str) -> None:
    x = np.random.default_rng(10).normal(0, 3, (33, 17)).astype(np.float32)
    g = np.random.default_rng(11).normal(0, 1, (33, 17)).astype(np.float32)
    s = strided.from_numpy(x.copy()).requires_grad_()
    t = _t(x).requires_grad_()
    getattr(F, name)(s).backward(strided.from_numpy(g.copy()))
    getattr(torch.nn.functional, name)(t).backward(_t(g))
    # (the backward formulas are unchanged here: composed ops, within ulps of torch's fused kernels)
    np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-6)


@needs_kernels
@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=12),
                  elements=st.floats(width=32, allow_nan=True, allow_infinity=True)),
       st.booleans())
def test_hypothesis_against_torch(x: np.ndarray, transpose: bool) -> None:
    s, t = strided.from_numpy(x.copy()), _t(x)
    if transpose:
        s, t = s.mT if x.ndim > 1 else s, t.mT if x.ndim > 1 else t
    for name in ("gelu", "logsigmoid"):
        _bits_equal(getattr(F, name)(s).numpy(), getattr(torch.nn.functional, name)(t).numpy())


# ---- binary_cross_entropy_with_logits: PyTorch's steps over the compiled log_sigmoid ------------


@needs_kernels
@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_bce_with_logits_against_torch(dtype: str, layout: str, reduction: str) -> None:
    """(1 - target) * input - log_sigmoid(input), PyTorch's steps: its bits unreduced (a NaN input's
    word too, the all-ones word its fused subtraction keeps) and reduced, its strides."""
    rng = np.random.default_rng(12)
    x = rng.normal(0, 4, (190, 211)).astype(dtype)
    y = rng.random((190, 211)).astype(dtype)
    x.reshape(-1)[:9] = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, 100.0, -100.0]
    y.reshape(-1)[[3, 50, 70]] = np.nan
    xs, ys, xt, yt = strided.from_numpy(x.copy()), strided.from_numpy(y.copy()), _t(x), _t(y)
    if layout == "transposed":
        xs, ys, xt, yt = xs.T, ys.T, xt.T, yt.T
    elif layout == "stepped":
        xs, ys, xt, yt = xs[:, ::2], ys[:, ::2], xt[:, ::2], yt[:, ::2]
    got = F.binary_cross_entropy_with_logits(xs, ys, reduction=reduction)
    want = torch.nn.functional.binary_cross_entropy_with_logits(xt, yt, reduction=reduction)
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    _bits_equal(np.atleast_1d(got.numpy()), np.atleast_1d(want.numpy()))


@needs_kernels
@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 64, 70])
def test_bce_with_logits_nan_places_against_torch(n: int) -> None:
    rng = np.random.default_rng(n)
    x, y = rng.normal(0, 3, n).astype(np.float32), rng.random(n).astype(np.float32)
    for place in range(n):
        xx = x.copy()
        xx[place] = np.nan if place % 2 else -np.nan
        got = F.binary_cross_entropy_with_logits(strided.from_numpy(xx), strided.from_numpy(y), reduction="none")
        want = torch.nn.functional.binary_cross_entropy_with_logits(_t(xx), _t(y), reduction="none")
        _bits_equal(got.numpy(), want.numpy())


@needs_kernels
def test_bce_with_logits_weights_and_gradient_against_torch() -> None:
    """weight (the product after, as PyTorch's mul_), pos_weight (NumPy's form: values within ulps),
    the module, and the gradient of the input."""
    rng = np.random.default_rng(13)
    x, y = rng.normal(0, 3, (40, 30)).astype(np.float32), rng.random((40, 30)).astype(np.float32)
    w, pw = rng.random(30).astype(np.float32), rng.random(30).astype(np.float32) * 3
    got = F.binary_cross_entropy_with_logits(strided.from_numpy(x), strided.from_numpy(y), strided.from_numpy(w),
                                             reduction="none")
    want = torch.nn.functional.binary_cross_entropy_with_logits(_t(x), _t(y), _t(w), reduction="none")
    _bits_equal(got.numpy(), want.numpy())
    got = F.binary_cross_entropy_with_logits(strided.from_numpy(x), strided.from_numpy(y),
                                             pos_weight=strided.from_numpy(pw), reduction="none")
    want = torch.nn.functional.binary_cross_entropy_with_logits(_t(x), _t(y), pos_weight=_t(pw), reduction="none")
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    got = strided.nn.BCEWithLogitsLoss()(strided.from_numpy(x), strided.from_numpy(y))
    want = torch.nn.BCEWithLogitsLoss()(_t(x), _t(y))
    _bits_equal(np.atleast_1d(got.numpy()), np.atleast_1d(want.numpy()))
    xs, xt = strided.from_numpy(x.copy()).requires_grad_(), _t(x).requires_grad_()
    F.binary_cross_entropy_with_logits(xs, strided.from_numpy(y)).backward()
    torch.nn.functional.binary_cross_entropy_with_logits(xt, _t(y)).backward()
    np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-9)


def test_bce_with_logits_without_the_kernel_in_a_subprocess() -> None:
    """STRIDED_NATIVE=0: NumPy's stable form, finite values within ulps of torch's."""
    import subprocess
    import sys

    code = ("import numpy as np, strided, strided.nn.functional as F, torch\n"
            "x = np.random.default_rng(1).normal(0, 3, 1000).astype(np.float32); y = np.full(1000, 0.25, np.float32)\n"
            "g = F.binary_cross_entropy_with_logits(strided.from_numpy(x), strided.from_numpy(y), reduction='none')\n"
            "w = torch.nn.functional.binary_cross_entropy_with_logits(torch.from_numpy(x), torch.from_numpy(y), reduction='none')\n"
            "np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5)\n"
            "g = F.gelu(strided.from_numpy(x)); w = torch.nn.functional.gelu(torch.from_numpy(x))\n"
            "np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)\n"
            "g = F.logsigmoid(strided.from_numpy(x)); w = torch.nn.functional.logsigmoid(torch.from_numpy(x))\n"
            "np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)\n")
    import os

    env = dict(os.environ, STRIDED_NATIVE="0")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
