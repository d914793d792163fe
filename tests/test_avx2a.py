"""avx2a: the sleef kernel's AVX2 + FMA forms (``form`` 2; ``form`` -1 picks them where the CPU has
AVX2 and FMA but not AVX-512F) give the plain C form's bits (``form`` 0) lane for lane, and the
front's results (which take the widest form) are PyTorch's on this CPU.

Every AVX2 kernel is compared with the one-lane form over lengths 0..100 and 1000 (whole vectors,
the unrolled blocks, the one-lane tails), every step form (-2, -1, 16, 0: vec::map, cpu_kernel_vec
pieces, the scalar function throughout), special values (NaN payloads and signs, +-inf, +-0,
denormals, the cut-offs of exp / expm1 / tanh / log1p / softplus's threshold), random bit patterns,
in place, and softplus's beta / threshold. Skipped where the CPU lacks AVX2 + FMA (form 2 answers
False there, nothing written).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as F
from strided.kernels import native

_K = native.sleef()
needs_kernel = pytest.mark.skipif(_K is None, reason="the sleef kernel is not built")
_LENGTHS = list(range(101)) + [1000]
# run's ops with an AVX2 form (float32): EXP, SIGMOID, SILU, TANH, EXPM1, ELU, SELU, SOFTPLUS,
# EXP_SPLIT, MISH, MISH_T, LOG1P, EXP2
_OPS_F = [0, 1, 2, 4, 7, 8, 9, 10, 11, 12, 13, 16, 18]
# run_d's: EXP, SIGMOID, SILU (the others' AVX2 form is the one-lane FMA clone)
_OPS_D = [0, 1, 2, 7, 8, 9, 10, 11, 12, 13]


def _has_avx2() -> bool:
    x = np.zeros(1, np.float32)
    return bool(_K is not None and _K.run(x, np.empty_like(x), 0, 0, 0, -1, 2))


needs_avx2 = pytest.mark.skipif(not _has_avx2(), reason="no AVX2 + FMA on this CPU")


def _specials(dt: type) -> np.ndarray:
    f = np.finfo(dt)
    vals = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, f.tiny, -f.tiny, f.smallest_subnormal,
            -f.smallest_subnormal, f.max, -f.max, 1.0, -1.0, np.nextafter(dt(-1), dt(-2)),
            np.nextafter(dt(-1), dt(0)), 20.0, np.nextafter(dt(20), dt(21)), 88.72283172607421875, 88.8,
            -16.635532333438687426013570, -16.7, 100.0, 100.01, -104.0, -104.01, 8.664339742, 8.67, 1e38,
            3e38, 709.78, 710.0, -745.2, -1000.0, -1000.1, 20.0 / 2, 40.0]
    a = np.array(vals, dt)
    # NaN payloads with either sign (quiet and signaling patterns)
    u = np.uint32 if dt == np.float32 else np.uint64
    bits = np.array([0x7FC00001, 0xFFC12345, 0x7F800001, 0xFF812345] if u == np.uint32 else
                    [0x7FF8000000000001, 0xFFF8000000012345, 0x7FF0000000000001, 0xFFF0000000012345], u)
    return np.concatenate([a, bits.view(dt)])


def _values(n: int, dt: type, rng: np.random.Generator) -> np.ndarray:
    """n values: specials first (cycled), then normal draws at several scales and raw bit patterns."""
    sp = _specials(dt)
    u = np.uint32 if dt == np.float32 else np.uint64
    raw = rng.integers(0, np.iinfo(u).max, n, dtype=u, endpoint=True).view(dt)
    pick = rng.integers(0, 4, n)
    x = np.where(pick == 0, raw, (rng.standard_normal(n) * np.array([1.0, 5.0, 30.0])[pick % 3]).astype(dt))
    k = min(n, len(sp))
    x[:k] = sp[rng.permutation(len(sp))[:k]]
    return np.ascontiguousarray(x, dt)


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint32 if a.dtype.itemsize == 4 else np.uint64)


def _both(run, x: np.ndarray, op: int, step: int, params: tuple = ()) -> None:
    """run's form 0 and form 2 (also in place) over x: the same words."""
    want = np.empty_like(x)
    assert run(x, want, op, 0, 0, step, 0, *params)
    got = np.empty_like(x)
    assert run(x, got, op, 0, 0, step, 2, *params)
    bad = np.nonzero(_bits(got) != _bits(want))[0]
    assert not bad.size, (op, step, len(x), x[bad][:4], got[bad][:4], want[bad][:4])
    inplace = x.copy()
    assert run(inplace, inplace, op, 0, 0, step, 2, *params)
    assert np.array_equal(_bits(inplace), _bits(want)), (op, step, len(x), "in place")


@needs_kernel
@needs_avx2
@pytest.mark.parametrize("op", _OPS_F)
def test_float32_avx2_is_the_plain_form(op: int) -> None:
    rng = np.random.default_rng(100 + op)
    steps = (-2, -1, 16, 0) if op == 16 else (-1, 16, 0)
    for n in _LENGTHS:
        x = _values(n, np.float32, rng)
        for step in steps:
            _both(_K.run, x, op, step)


@needs_kernel
@needs_avx2
@pytest.mark.parametrize("op", _OPS_D)
def test_float64_avx2_is_the_plain_form(op: int) -> None:
    rng = np.random.default_rng(200 + op)
    for n in _LENGTHS:
        x = _values(n, np.float64, rng)
        for step in (-1, 8, 0):
            _both(_K.run_d, x, op, step)


@needs_kernel
@needs_avx2
@pytest.mark.parametrize("beta,threshold", [(1.0, 20.0), (2.0, 5.0), (0.5, 30.0), (-1.5, 3.0), (1e-3, 1.0)])
def test_softplus_parameters_avx2_is_the_plain_form(beta: float, threshold: float) -> None:
    rng = np.random.default_rng(7)
    x = _values(5000, np.float32, rng)
    for step in (-1, 16):
        _both(_K.run, x, 10, step, (beta, threshold))
        with np.errstate(invalid="ignore"):  # (signaling NaN words widened)
            xd = x.astype(np.float64)
        _both(_K.run_d, xd, 10, step, (beta, threshold))


@needs_kernel
@needs_avx2
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_glu_rows_avx2_is_the_plain_form(dt: type) -> None:
    rng = np.random.default_rng(11)
    for outer, row in [(1, 0), (1, 1), (3, 7), (2, 16), (5, 33), (4, 100), (1, 1000)]:
        x = _values(2 * outer * row, dt, rng)
        want, got = np.empty(outer * row, dt), np.empty(outer * row, dt)
        for step in (16, 0):
            assert _K.glu_rows(x, want, outer, row, step, 0, 24)
            assert _K.glu_rows(x, got, outer, row, step, 2, 24)
            assert np.array_equal(_bits(got), _bits(want)), (outer, row, step)


@needs_kernel
def test_form_2_answers_false_or_writes() -> None:
    """form 2 writes where the CPU has AVX2 + FMA and answers False (nothing written) elsewhere."""
    x = np.linspace(-3, 3, 40, dtype=np.float32)
    out = np.full_like(x, 7.0)
    ok = _K.run(x, out, 1, 0, 0, 16, 2)
    if ok:
        assert np.array_equal(out, 1 / (1 + np.exp(-x.astype(np.float64))).astype(np.float32)) or np.all(out != 7.0)
    else:
        assert np.all(out == 7.0)
    with pytest.raises(ValueError):
        _K.run(x, out, 1, 0, 0, 16, 3)


def _same(got: strided.Tensor, want: torch.Tensor) -> None:
    g, w = np.ascontiguousarray(got.detach().numpy()), np.ascontiguousarray(want.detach().numpy())
    assert g.shape == w.shape and g.dtype == w.dtype
    bad = np.nonzero(_bits(g).reshape(-1) != _bits(w).reshape(-1))[0]
    assert not bad.size, (g.reshape(-1)[bad][:4], w.reshape(-1)[bad][:4])


# the fronts and torch's, compared without NaN inputs where a divergence predates this work
# (float32 softplus and log1p NaN words under AVX2: tests/test_bits34.py, test_bits36.py)
_FRONTS = {
    "sigmoid": (lambda t: strided.sigmoid(t), torch.sigmoid, True),
    "silu": (F.silu, TF.silu, True),
    "elu": (F.elu, TF.elu, True),
    "selu": (F.selu, TF.selu, True),
    "mish": (F.mish, TF.mish, True),
    "softplus": (F.softplus, TF.softplus, False),
    "softplus_b2": (lambda t: F.softplus(t, 2.0, 5.0), lambda t: TF.softplus(t, 2.0, 5.0), False),
    "expm1": (lambda t: strided.expm1(t), torch.expm1, True),
    "log1p": (lambda t: strided.log1p(t), torch.log1p, False),
    "glu": (F.glu, TF.glu, True),
    "exp2": (lambda t: strided.exp2(t), torch.exp2, True),
}


def _front_values(n: int, dt: type, rng: np.random.Generator, nan: bool) -> np.ndarray:
    x = _values(n, dt, rng)
    if not nan:
        x = np.where(np.isnan(x), dt(0.5), x)
    if n % 2:  # (glu halves its last dim)
        x = np.append(x, dt(1.0))
    return x


@needs_kernel
@pytest.mark.parametrize("name", sorted(_FRONTS))
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_fronts_are_torch_bits(name: str, dt: type) -> None:
    ours, theirs, nan = _FRONTS[name]
    rng = np.random.default_rng(31)
    for n in list(range(0, 101, 3)) + [1000]:
        x = _front_values(n, dt, rng, nan)
        _same(ours(strided.tensor(x)), theirs(torch.from_numpy(x)))
    x = _front_values(48 * 36, dt, rng, nan).reshape(48, 36)
    _same(ours(strided.tensor(x).T), theirs(torch.from_numpy(x).T))  # (a permuted layout)
    _same(ours(strided.tensor(x)[:, 1:31]), theirs(torch.from_numpy(x)[:, 1:31]))  # (rows with gaps)


@needs_kernel
@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("name", ["sigmoid", "silu", "elu", "mish", "softplus", "glu", "log1p", "exp2"])
def test_fronts_large_are_torch_bits(name: str) -> None:
    ours, theirs, nan = _FRONTS[name]
    x = _front_values(100_002, np.float32, np.random.default_rng(5), nan)
    _same(ours(strided.tensor(x)), theirs(torch.from_numpy(x)))
