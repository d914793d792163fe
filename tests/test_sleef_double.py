"""float64 ``sigmoid`` and ``silu`` against PyTorch bit for bit (:mod:`strided.kernels.sleef`'s
``run_d``: SLEEF's expd, ``_sleef_exp.h``, where PyTorch's loop is vectorized in steps of 16, the
C library's exp where it is not): every 1-D length 0..70, the special inputs (NaN of both signs
and with payloads, +-inf, +-0.0, the cut-offs at -1000 and 709.78, subnormal results), a size past
PyTorch's parallel grain with its thread count matched, permuted, sliced, expanded and in-place
inputs, both of the kernel's forms (AVX-512 and plain C), the gradient, and SLEEF's exp alone
against the NumPy formula it replaces (within an ulp or two)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native, sleef

K = native.sleef()
pytestmark = [pytest.mark.skipif(K is None, reason="the compiled kernel is not built"),
              pytest.mark.usefixtures("torch_threads_as_assumed")]  # (conftest.py)

_OPS = {
    "sigmoid": (strided.sigmoid, torch.sigmoid),
    "silu": (strided.nn.functional.silu, torch.nn.functional.silu),
}
_SPECIAL = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, -1000.0, -1000.0001, -999.9, -745.2, -745.1,
                     -708.4, 709.78, 709.7828, 709.79, 1e-300, -1e-300, 5e-324, -5e-324, 1.7e308, -1.7e308, 0.5,
                     -0.5, 36.8, -36.8, 20.0, -20.0], np.float64)


def _values(n: int, seed: int) -> np.ndarray:
    r = np.random.default_rng(seed)
    x = r.uniform(-750, 712, n)
    x[: n // 2] /= 20  # (half in the range where the results are not 0, 1 or x)
    x[: min(n, len(_SPECIAL))] = _SPECIAL[: min(n, len(_SPECIAL))]
    if n > 40:  # NaN payloads
        x.view(np.uint64)[30:32] = [0x7FF8000000000123, 0xFFF8000000000456]
    return r.permutation(x)


def _same(got: strided.Tensor, want: torch.Tensor) -> None:
    g, w = got.detach().numpy(), want.detach().numpy()
    assert g.shape == w.shape and got.stride() == want.stride()
    bad = np.nonzero(g.view(np.uint64) != w.view(np.uint64))
    assert not bad[0].size, f"{bad[0].size} elements differ, first at {bad[0][0]}: {g.flat[bad[0][0]]!r} vs {w.flat[bad[0][0]]!r}"


@pytest.mark.parametrize("name", list(_OPS))
def test_every_length_and_special_value_is_pytorchs(name: str) -> None:
    ours, theirs = _OPS[name]
    for n in list(range(71)) + [1000, 32767, 32768, 40001]:
        x = _values(n, n)
        _same(ours(strided.from_numpy(x)), theirs(torch.from_numpy(x)))


@pytest.mark.parametrize("name", list(_OPS))
def test_permuted_sliced_expanded_and_in_place_are_pytorchs(name: str) -> None:
    ours, theirs = _OPS[name]
    x = _values(3 * 37 * 5, 1).reshape(3, 37, 5)
    s, t = strided.from_numpy(x), torch.from_numpy(x)
    _same(ours(s.permute(2, 0, 1)), theirs(t.permute(2, 0, 1)))
    _same(ours(s[:, ::2, 1:]), theirs(t[:, ::2, 1:]))
    v = _values(37, 2)
    _same(ours(strided.from_numpy(v).expand(4, 37)), theirs(torch.from_numpy(v).expand(4, 37)))
    a, b = strided.from_numpy(x.copy()).permute(1, 0, 2), torch.from_numpy(x.copy()).permute(1, 0, 2)
    if name == "sigmoid":
        a.sigmoid_(), b.sigmoid_()
    else:
        ours(a, inplace=True), theirs(b, inplace=True)
    _same(a, b)


@pytest.mark.parametrize("op", [sleef.EXP, sleef.SIGMOID, sleef.SILU])
def test_the_avx512_and_plain_c_forms_agree(op: int) -> None:
    x = _values(4099, 3)
    plain, wide = np.empty_like(x), np.empty_like(x)
    assert K.run_d(x, plain, op, 0, 0, 16, 0) is True
    if not K.run_d(x, wide, op, 0, 0, 16, 1):
        pytest.skip("this CPU has no AVX-512")
    assert np.array_equal(plain.view(np.uint64), wide.view(np.uint64))


def test_sleef_exp_is_within_two_ulps_of_the_exact_value() -> None:
    x = np.random.default_rng(4).uniform(-700, 700, 20000)
    got = np.empty_like(x)
    K.run_d(x, got, sleef.EXP, 0, 0, -1, -1)
    want = np.exp(x)  # (NumPy's, itself within an ulp)
    assert np.all(np.abs(got - want) <= 2 * np.spacing(want))


def test_run_d_refuses_float32_a_partial_overlap_and_a_bad_op() -> None:
    x = np.ones(8)
    with pytest.raises(ValueError, match="float64 buffers"):
        K.run_d(x.astype(np.float32), np.empty(8, np.float32), sleef.SIGMOID, 0, 0, 16, -1)
    with pytest.raises(ValueError, match="overlaps x partly"):
        K.run_d(x[:6], x[2:], sleef.SIGMOID, 0, 0, 16, -1)
    with pytest.raises(ValueError, match="op must be 0 to 3"):
        K.run_d(x, np.empty(8), sleef.TANH, 0, 0, 16, -1)


def test_run_d_op_3_is_the_c_librarys_exp() -> None:
    import math

    x = np.concatenate([np.linspace(-700, 700, 997), [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310]])
    for step, form in ((16, -1), (-1, -1), (0, 0)):  # (every branch: op 3 is the C library's throughout)
        out = np.empty_like(x)
        K.run_d(x, out, 3, 0, 0, step, form)
        want = np.array([math.exp(v) if not math.isnan(v) else v for v in x])
        assert out.tobytes() == want.tobytes()


def test_the_gradient_is_pytorchs() -> None:
    x = _values(300, 5)[np.isfinite(_values(300, 5))]
    s, t = strided.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    strided.sigmoid(s).sum().backward()
    torch.sigmoid(t).sum().backward()
    _same(s.grad, t.grad)


def test_without_the_kernel_the_numpy_formula_stays_within_ulps() -> None:
    x = np.random.default_rng(6).uniform(-30, 30, 500)
    with native.disabled():
        got = strided.sigmoid(strided.from_numpy(x)).numpy()
    want = torch.sigmoid(torch.from_numpy(x)).numpy()
    np.testing.assert_array_max_ulp(got, want, maxulp=4)


def test_float64_softmax_rows_are_pytorchs() -> None:
    """float64 softmax along a contiguous last dim: SLEEF's expd at every element (the tail a
    partial vector) and ATen's generic vec_reduce_all for the lanes' sum (eight running sums, then
    lane 0 plus each next lane in turn: double has no pairwise SIMD reduction), bit for bit over
    row lengths 1..70, 1000 and 4099, rows of large and tiny values and NaN / -inf rows; log_softmax
    alike (the same sums, SLEEF's log_u10 of each: _sleef_log.h)."""
    if sleef.step() == 0:
        pytest.skip("ATen's DEFAULT capability: std::exp, not SLEEF's")
    r = np.random.default_rng(22)
    for n in list(range(1, 71)) + [1000, 4099]:
        x = r.standard_normal((7, n)) * 4
        x[4] *= 100  # (exponentials underflowing to 0 beside the maximum's 1)
        x[5] = r.uniform(-1e-3, 1e-3, n)
        x[6, n // 2] = [np.nan, -np.inf][n % 2]
        for op in ("softmax", "log_softmax"):
            got = getattr(strided, op)(strided.from_numpy(x.copy()), 1).numpy()
            want = getattr(torch, op)(torch.from_numpy(x), 1).numpy()
            # (a NaN row's NaN bits are left out: PyTorch's vec::maximum makes an all-ones NaN, float32's too)
            assert np.array_equal(np.isnan(got), np.isnan(want)), (op, n)
            keep = ~np.isnan(want)
            assert np.array_equal(got[keep].view(np.uint64), want[keep].view(np.uint64)), (op, n)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cross_entropy_is_pytorchs(dtype) -> None:
    """cross_entropy = nll_loss(log_softmax): with the rows' SLEEF exp and log, the loss's bits are
    PyTorch's (batch sizes past the cascade's 16, class counts past a vector)."""
    r = np.random.default_rng(23)
    for n, c in ((1, 5), (7, 3), (128, 10), (300, 17), (64, 1000)):
        x = (r.standard_normal((n, c)) * 3).astype(dtype)
        t = r.integers(0, c, n)
        want = torch.nn.functional.cross_entropy(torch.from_numpy(x), torch.from_numpy(t)).numpy()
        got = strided.nn.functional.cross_entropy(strided.from_numpy(x), strided.from_numpy(t)).numpy()
        assert got.tobytes() == want.tobytes(), (n, c)
