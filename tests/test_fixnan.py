"""PyTorch's NaN words on this machine's capability (fixnan, session 38): logaddexp/logaddexp2 of
float32/float16, whose AVX2 vector lanes write the default NaN (+0x7fc00000 / +0x7e00) where the
scalar loop and an AVX-512 build keep the sign-set word. Compared with torch side by side, with
the compiled kernels on and off, on repeated calls (the compiled front's entry) and in layouts."""

from __future__ import annotations

import numpy as np
import pytest

import strided as S
from strided.kernels import native

torch = pytest.importorskip("torch")

_WORDS = {"float32": (np.uint32, [0x7FC00000, 0xFFC00000, 0x7FC12345, 0x7F800001, 0xFFA00002]),
          "float16": (np.uint16, [0x7E00, 0xFE00, 0x7E45, 0x7C01, 0xFD02])}


def _operands(dt: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    u, words = _WORDS[dt]
    v = np.concatenate([np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf], dt), np.array(words, u).view(dt)])
    rng = np.random.default_rng(seed)
    return rng.choice(v, n), rng.choice(v, n)


def _words(a: np.ndarray) -> bytes:
    """The NaNs' words in memory order (the numbers are NumPy's formula, not always PyTorch's:
    tests/test_red23.py; a result with no NaN where torch has one differs in length)."""
    a = np.ascontiguousarray(a)
    return a[np.isnan(a.astype(np.float32))].tobytes()


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
@pytest.mark.parametrize("dt", ["float32", "float16"])
@pytest.mark.parametrize("n", [15, 16, 17, 31, 32, 33, 47, 100, 1001])
def test_nan_words_at_every_length_like_torch(name, dt, n):
    x, y = _operands(dt, n, n)
    want = _words(getattr(torch, name)(torch.from_numpy(x), torch.from_numpy(y)).numpy())
    for _ in range(3):  # (the first call, then the front's cached entry)
        assert _words(getattr(S, name)(S.from_numpy(x), S.from_numpy(y)).numpy()) == want
    with native.disabled():
        assert _words(getattr(S, name)(S.from_numpy(x), S.from_numpy(y)).numpy()) == want


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("dt", ["float32", "float16"])
def test_nan_words_past_the_parallel_grain(dt):
    x, y = _operands(dt, 70001, 5)
    want = _words(torch.logaddexp(torch.from_numpy(x), torch.from_numpy(y)).numpy())
    assert _words(S.logaddexp(S.from_numpy(x), S.from_numpy(y)).numpy()) == want


@pytest.mark.parametrize("dt", ["float32", "float16"])
def test_nan_words_in_layouts(dt):
    x, y = _operands(dt, 34 * 20, 7)
    a, b = x.reshape(34, 20), y.reshape(34, 20)
    cases = [(a.T.copy().T, b.T.copy().T), (a, b.T.copy().T), (a, b[:1]), (a[:, ::2], b[:, ::2])]
    for p, q in cases:
        want = torch.logaddexp(torch.from_numpy(p), torch.from_numpy(q))
        got = S.logaddexp(S.from_numpy(p), S.from_numpy(q))
        assert got.stride() == want.stride()
        m = np.isnan(want.numpy())
        assert got.numpy()[m].tobytes() == want.numpy()[m].tobytes()
