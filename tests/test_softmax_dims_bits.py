"""float32 softmax along a dim other than the last, and (log_)softmax of a permuted tensor along its
last dim, bit for bit against PyTorch (its ``_vec_softmax`` / lastdim kernels on the contiguous copy)."""

import itertools

import numpy as np
import pytest

import strided as st
from strided.kernels import native
from strided.kernels.softmax_dims import vector_positions

torch = pytest.importorskip("torch")
from torch_threads_assumed import torch_threads_as_assumed  # noqa: E402

SPECIALS = np.array([np.inf, -np.inf, np.nan, 3e38, -3e38, 0.0, -0.0, 1e-40, 88.0, -104.0])
needs_kernel = pytest.mark.skipif(native.sleef() is None or native.special() is None, reason="compiled kernels off")


def _naive_positions(outer: int, inner: int, lanes: int, threads: int) -> np.ndarray:
    """_vec_softmax's loop, one step at a time."""
    n = outer * inner
    mask = np.zeros(n, bool)
    chunks = min(max(threads, 1), n)
    size = -(-n // chunks)
    for b in range(0, n, size):
        e, idx = min(b + size, n), b
        while idx < e:
            i = idx % inner
            if i + lanes <= inner and idx + lanes <= e:
                mask[idx : idx + lanes] = True
                idx += lanes
            else:
                idx += (e - idx) if idx + lanes > e else (inner - i)
    return mask


def test_vector_positions_follow_the_loop_step_by_step():
    for outer, inner, lanes, threads in itertools.product(range(1, 9), [*range(1, 36), 63, 64, 65], (8, 16),
                                                           (1, 2, 3, 5, 16)):
        assert (vector_positions(outer, inner, lanes, threads) == _naive_positions(outer, inner, lanes, threads)).all()


def _draw(rng, shape, dtype, special):
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    if special:
        m = rng.random(shape) < 0.15
        x[m] = rng.choice(SPECIALS, int(m.sum())).astype(dtype)
    return x


def _agree(s, t) -> None:
    a, b = np.asarray(s), t.numpy()
    assert s.shape == tuple(t.shape) and s.stride() == t.stride()
    assert ((a == b) | (np.isnan(a) & np.isnan(b))).all(), int((a != b).sum())
    assert (np.signbit(a) == np.signbit(b))[~np.isnan(b)].all()


@needs_kernel
@pytest.mark.parametrize("special", [False, True])
@pytest.mark.parametrize(("shape", "dim"), [((7, 37), 0), ((64, 100), 0), ((3, 5, 40), 1), ((2, 9, 17), 1),
                                            ((5, 33, 3), 0), ((300, 70), 0), ((4, 6, 5, 19), 2), ((17, 300), 0),
                                            ((1, 16), 0), ((40, 1, 3), 0), ((2, 3, 130), -2)])
def test_float32_softmax_off_the_last_dim_is_torch_bit_for_bit(shape, dim, special):
    x = _draw(np.random.default_rng(sum(shape) + special), shape, np.float32, special)
    with torch_threads_as_assumed():
        _agree(st.softmax(st.tensor(x), dim), torch.softmax(torch.from_numpy(x), dim))
    # a permuted input: PyTorch computes on its contiguous copy
    p = tuple(reversed(range(len(shape))))
    xs, xt = st.tensor(np.ascontiguousarray(x.transpose(p))).permute(*p), torch.from_numpy(
        np.ascontiguousarray(x.transpose(p))).permute(*p)
    with torch_threads_as_assumed():
        _agree(st.softmax(xs, dim), torch.softmax(xt, dim))


@needs_kernel
@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("shape", "perm"), [((40, 50), (1, 0)), ((6, 7, 33), (0, 2, 1)), ((3, 70, 5), (2, 0, 1))])
def test_permuted_input_along_its_last_dim_is_its_contiguous_copys_rows(shape, perm, dtype, log):
    # PyTorch computes on the contiguous copy: the compiled rows of that copy (float32 softmax: torch's
    # bits; log_softmax's logf and float64's exp are the C library's, not SLEEF's: within an ulp)
    x = _draw(np.random.default_rng(len(shape)), shape, dtype, True)
    f, g = (st.log_softmax, torch.log_softmax) if log else (st.softmax, torch.softmax)
    got = f(st.tensor(x).permute(*perm), -1)
    assert got.numpy().tobytes() == f(st.tensor(np.ascontiguousarray(x.transpose(perm))), -1).numpy().tobytes()
    want = g(torch.from_numpy(x).permute(*perm), -1)
    if dtype is np.float32 and not log:
        _agree(got, want)
    else:
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=4 * float(np.finfo(dtype).eps), atol=1e-30)
