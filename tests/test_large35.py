"""large35: the hard rows' and softshrink's compiled passes at large sizes (pieces of PyTorch's
parallel chunks, the vector NaN words and scalar-tail zeros within each piece), bit for bit
against PyTorch, contiguous, transposed, sliced and in-place, float32 / float64 / float16 / bfloat16."""

from __future__ import annotations

import numpy as np
import pytest

import strided
import strided.nn.functional as SF
from strided.kernels.torch_loops import GRAIN_SIZE

torch = pytest.importorskip("torch")
TF = torch.nn.functional

# (past the grain PyTorch cuts a run into one chunk per thread: its count as strided assumes it)
pytestmark = pytest.mark.usefixtures("torch_threads_as_assumed")

# (sizes around the grain: one chunk, two chunks, a ragged last chunk with its own tail)
SIZES = [GRAIN_SIZE - 1, GRAIN_SIZE, GRAIN_SIZE + 17, 3 * GRAIN_SIZE + 5, 100003]
DTYPES = ["float32", "float64"]


def _input(n: int, dtype: str, seed: int) -> np.ndarray:
    """Mixed signs around the rows' kinks (+-3, +-0.5, 0, -0), a few NaNs of several words, infs."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 4).astype(dtype)
    k = max(1, n // 500)
    x[rng.integers(0, n, k)] = rng.choice(np.array([3.0, -3.0, 0.5, -0.5, 0.0, -0.0, np.inf, -np.inf], dtype), k)
    nans = rng.integers(0, n, k)
    x[nans] = np.nan
    words = x.view(np.uint32 if dtype == "float32" else np.uint64)
    words[nans[::2]] |= 1 << (31 if dtype == "float32" else 63)  # (negative NaNs: their sign kept or not)
    x[n - 1] = np.nan  # (the last scalar tail's NaN)
    return x


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(f"u{a.itemsize}")


def _same(s: strided.Tensor, t: torch.Tensor) -> None:
    got, want = s.numpy(), t.numpy()
    assert got.shape == want.shape
    assert s.stride() == t.stride()
    assert np.array_equal(_bits(got), _bits(want)), np.flatnonzero(_bits(got) != _bits(want))[:10]


ROWS = [
    ("hardsigmoid", lambda F, x: F.hardsigmoid(x)),
    ("hardswish", lambda F, x: F.hardswish(x)),
    ("softshrink", lambda F, x: F.softshrink(x)),
    ("softshrink_0.25", lambda F, x: F.softshrink(x, 0.25)),
]

# (the elu family's SLEEF passes: their selection in AVX-512 lanes where the CPU has them)
ELUS = [
    ("elu", lambda F, x: F.elu(x)),
    ("selu", lambda F, x: F.selu(x)),
    ("celu", lambda F, x: F.celu(x)),
]


@pytest.mark.parametrize("name,fn", ROWS + ELUS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_flat_bits(name, fn, n, dtype):
    x = _input(n, dtype, n)
    _same(fn(SF, strided.from_numpy(x.copy())), fn(TF, torch.from_numpy(x.copy())))


@pytest.mark.parametrize("name,fn", ROWS + ELUS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_transposed_and_sliced_bits(name, fn, dtype):
    x = _input(300 * 257, dtype, 7).reshape(300, 257)
    xt = x.T.copy()  # (a transposed view over this: dense, memory order not row-major)
    _same(fn(SF, strided.from_numpy(xt).T), fn(TF, torch.from_numpy(xt).T))
    _same(fn(SF, strided.from_numpy(x)[:, 1:]), fn(TF, torch.from_numpy(x)[:, 1:]))  # (strided rows)
    _same(fn(SF, strided.from_numpy(x)[::2]), fn(TF, torch.from_numpy(x)[::2]))


@pytest.mark.parametrize("name", ["hardsigmoid", "hardswish", "elu", "selu", "celu"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_inplace_bits(name, dtype):
    x = _input(2 * GRAIN_SIZE + 33, dtype, 3).reshape(-1, 1)
    s, t = strided.from_numpy(x.copy()), torch.from_numpy(x.copy())
    getattr(SF, name)(s, inplace=True)
    getattr(TF, name)(t, inplace=True)
    _same(s, t)
    xt = _input(300 * 257, dtype, 5).reshape(300, 257).T.copy()  # (a transpose: one dense run)
    s, t = strided.from_numpy(xt.copy()).T, torch.from_numpy(xt.copy()).T
    getattr(SF, name)(s, inplace=True)
    getattr(TF, name)(t, inplace=True)
    _same(s, t)
    s, t = strided.from_numpy(xt.copy())[:, 3:], torch.from_numpy(xt.copy())[:, 3:]  # (strided rows: the general path)
    getattr(SF, name)(s, inplace=True)
    getattr(TF, name)(t, inplace=True)
    _same(s, t)


@pytest.mark.parametrize("name,fn", ROWS)
# (bfloat16's NaN words: 0x7fc0 in PyTorch's scalar lanes, 0xffff in its vector lanes — attack35's
# Activation.bf16_step places them)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_dtypes_bits(name, fn, dtype):
    x = _input(GRAIN_SIZE + 77, "float32", 11)
    t = torch.from_numpy(x).to(getattr(torch, dtype))
    s = strided.tensor(x).to(getattr(strided, dtype))
    got, want = fn(SF, s), fn(TF, t)
    assert got.stride() == want.stride()
    assert np.array_equal(got.float().numpy().view(np.uint32) >> 16 if dtype == "bfloat16" else got.numpy().view(np.uint16),
                          want.float().numpy().view(np.uint32) >> 16 if dtype == "bfloat16" else want.numpy().view(np.uint16))


@pytest.mark.parametrize("name,fn", ROWS)
def test_zero_size_and_0d(name, fn):
    for x in (np.zeros((0, 5), np.float32), np.array(np.nan, np.float32), np.array(-0.0, np.float32)):
        _same(fn(SF, strided.from_numpy(x.copy())), fn(TF, torch.from_numpy(x.copy())))


# (huber / smooth_l1: the per-element pass compiled; the mean / sum PyTorch's cascade, as before)
LOSSES = [
    ("huber", lambda F, x, y, r: F.huber_loss(x, y, reduction=r)),
    ("huber_0.3", lambda F, x, y, r: F.huber_loss(x, y, reduction=r, delta=0.3)),
    ("smooth_l1", lambda F, x, y, r: F.smooth_l1_loss(x, y, reduction=r)),
    ("smooth_l1_2.5", lambda F, x, y, r: F.smooth_l1_loss(x, y, reduction=r, beta=2.5)),
    ("smooth_l1_0", lambda F, x, y, r: F.smooth_l1_loss(x, y, reduction=r, beta=0.0)),
    ("smooth_l1_0.1", lambda F, x, y, r: F.smooth_l1_loss(x, y, reduction=r, beta=0.1)),
    ("mse", lambda F, x, y, r: F.mse_loss(x, y, reduction=r)),
]


@pytest.mark.parametrize("name,fn", LOSSES)
@pytest.mark.parametrize("n", [1, 17, GRAIN_SIZE + 5, 100003])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_pair_losses_bits(name, fn, n, dtype, reduction):
    x, y = _input(n, dtype, n), _input(n, dtype, n + 1)
    if n > 1:
        y[: n // 3] = x[: n // 3] + np.asarray(0.25, dtype)  # (differences inside the quadratic zone)
    _same(fn(SF, strided.from_numpy(x.copy()), strided.from_numpy(y.copy()), reduction),
          fn(TF, torch.from_numpy(x.copy()), torch.from_numpy(y.copy()), reduction))


@pytest.mark.parametrize("name,fn", LOSSES[:3] + LOSSES[-1:])
def test_pair_losses_other_layouts(name, fn):
    x, y = _input(300 * 257, "float32", 1).reshape(300, 257), _input(300 * 257, "float32", 2).reshape(300, 257)
    yt = y.T.copy()  # (257, 300): its .T a transposed (300, 257) view
    pairs = [
        (lambda L: (L(x).T, L(yt)), "both transposed"),
        (lambda L: (L(x)[:, 1:], L(y)[:, 1:]), "sliced rows"),
        (lambda L: (L(x), L(yt).T), "row-major beside a transpose"),
    ]
    for make, _ in pairs:
        for r in ("none", "mean", "sum"):
            _same(fn(SF, *make(strided.from_numpy), r), fn(TF, *make(torch.from_numpy), r))


def test_pair_loss_refuses_what_it_does_not_take():
    from strided.kernels import native

    k = native.special()
    x = np.ones(8, np.float32)
    assert not k.pair_loss(x, np.ones(8), np.empty(8, np.float32), 0, 1.0)  # (mixed formats)
    assert not k.pair_loss(x, x, x, 0, 1.0)  # (out over x)
    assert not k.pair_loss(np.ones(16, np.float32)[::2], x, np.empty(8, np.float32), 1, 1.0)
    with pytest.raises(ValueError, match="code must be 0"):
        k.pair_loss(x, x, np.empty(8, np.float32), 3, 1.0)


def _two_threads(monkeypatch: pytest.MonkeyPatch, threads: int) -> None:
    """PyTorch on ``threads`` threads and strided assuming as many (OMP_NUM_THREADS, which
    :func:`strided.kernels.torch_loops.torch_threads` reads), so the case does not depend on the
    machine or on what another test left set; torch's count restored by the module's fixture."""
    monkeypatch.setenv("OMP_NUM_THREADS", str(threads))
    torch.set_num_threads(threads)


def _pair_losses_permuted_3d(name, fn, dtype, reductions=("none", "mean", "sum")):
    x, y = _input(40 * 33 * 29, dtype, 4).reshape(40, 33, 29), _input(40 * 33 * 29, dtype, 5).reshape(40, 33, 29)
    y[:10] = x[:10] + np.asarray(0.125, dtype)
    for r in reductions:
        got = fn(SF, strided.from_numpy(x).permute(2, 0, 1), strided.from_numpy(y).permute(2, 0, 1), r)
        _same(got, fn(TF, torch.from_numpy(x).permute(2, 0, 1), torch.from_numpy(y).permute(2, 0, 1), r))


@pytest.mark.parametrize("name,fn", LOSSES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_pair_losses_permuted_3d(name, fn, dtype, monkeypatch):
    _two_threads(monkeypatch, 2)
    _pair_losses_permuted_3d(name, fn, dtype)


@pytest.mark.xfail(strict=True, reason="pre-existing (main too): on ONE thread, float32 mse_loss 'mean' / 'sum' of "
                   "this permuted 3-d pair holding NaNs of both signs gives +NaN (0x7fc00000) where PyTorch's "
                   "reduction order keeps -NaN (0xffc00000); on two threads they agree")
def test_mse_float32_one_thread_nan_sign(monkeypatch):
    _two_threads(monkeypatch, 1)
    _pair_losses_permuted_3d("mse", dict(LOSSES)["mse"], "float32", ("mean", "sum"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_prelu_transposed_one_weight(dtype):
    x = _input(300 * 257, dtype, 9).reshape(300, 257)
    for w in (0.25, -1.5, 0.0):
        ws, wt = strided.tensor([w], dtype=getattr(strided, dtype)), torch.tensor([w], dtype=getattr(torch, dtype))
        _same(SF.prelu(strided.from_numpy(x).T, ws), TF.prelu(torch.from_numpy(x).T, wt))
        x3 = x.reshape(30, 10, 257)
        _same(SF.prelu(strided.from_numpy(x3).permute(2, 0, 1), ws), TF.prelu(torch.from_numpy(x3).permute(2, 0, 1), wt))
    nan_w = strided.tensor([float("nan")], dtype=getattr(strided, dtype))
    _same(SF.prelu(strided.from_numpy(x).T, nan_w), TF.prelu(torch.from_numpy(x).T, torch.tensor([float("nan")], dtype=getattr(torch, dtype))))
