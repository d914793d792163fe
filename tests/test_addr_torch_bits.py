"""addr against PyTorch's bytes: with beta 0, vec1 scaled by alpha first, as PyTorch's loops; with an
input term, PyTorch's per-position fma forms: ``fma(alpha*x, y, beta*input)`` in its vector blocks
(16 float32 / 8 float64 per row), ``fma(beta, input, alpha*x*y)`` in its scalar tail and strided rows
(found in session 23, fixed in red24)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as S


def _bytes(x: object) -> tuple:
    a = x.numpy() if isinstance(x, S.Tensor) else x.detach().numpy()
    return a.shape, a.dtype.str, a.tobytes(), tuple(x.stride())


def test_addr_bits_are_pytorchs() -> None:
    rng = np.random.default_rng(0)
    m = rng.standard_normal((64, 48)).astype(np.float32)
    x, y = rng.standard_normal(64).astype(np.float32), rng.standard_normal(48).astype(np.float32)
    s = S.addr(S.from_numpy(m), S.from_numpy(x), S.from_numpy(y))
    t = torch.addr(torch.from_numpy(m), torch.from_numpy(x), torch.from_numpy(y))
    assert _bytes(s) == _bytes(t)


def _input(layout: str, n: int, m: int, dt: type, rng: np.random.Generator) -> tuple[S.Tensor, torch.Tensor]:
    """The addr input in one of the layouts, as a strided tensor and a torch tensor over the same values."""
    if layout == "rowmajor":
        a = rng.standard_normal((n, m)).astype(dt)
        return S.from_numpy(a), torch.from_numpy(a)
    if layout == "transposed":
        a = rng.standard_normal((m, n)).astype(dt)
        return S.from_numpy(a).t(), torch.from_numpy(a).t()
    if layout == "step":
        a = rng.standard_normal((n, 2 * m + 1)).astype(dt)
        return S.from_numpy(a)[:, 1::2], torch.from_numpy(a)[:, 1::2]
    if layout == "offset":
        a = rng.standard_normal(n * m + 3).astype(dt)
        return S.from_numpy(a)[3:].view(n, m), torch.from_numpy(a)[3:].view(n, m)
    if layout == "row":  # (broadcast along the rows)
        a = rng.standard_normal(m).astype(dt)
        return S.from_numpy(a), torch.from_numpy(a)
    if layout == "column":
        a = rng.standard_normal((n, 1)).astype(dt)
        return S.from_numpy(a), torch.from_numpy(a)
    if layout == "expanded":
        a = rng.standard_normal((1, m)).astype(dt)
        return S.from_numpy(a).expand(n, m), torch.from_numpy(a).expand(n, m)
    a = np.asarray(rng.standard_normal(), dt)  # 0-d
    return S.from_numpy(a), torch.from_numpy(a)


_LAYOUTS = ["rowmajor", "transposed", "step", "offset", "row", "column", "expanded", "zero_d"]


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("layout", _LAYOUTS)
@pytest.mark.parametrize("cols", [1, 7, 15, 16, 17, 33])
def test_addr_input_term_bits(dt: type, layout: str, cols: int) -> None:
    rng = np.random.default_rng(cols * 31 + len(layout))
    for rows in (1, 2, 9):
        for beta, alpha in ((1, 1), (1, 2.5), (0.7, 1), (-1.3, 0.3), (3, -2)):
            si, ti = _input(layout, rows, cols, dt, rng)
            x, y = rng.standard_normal(rows).astype(dt), rng.standard_normal(cols).astype(dt)
            s = S.addr(si, S.from_numpy(x), S.from_numpy(y), beta=beta, alpha=alpha)
            t = torch.addr(ti, torch.from_numpy(x), torch.from_numpy(y), beta=beta, alpha=alpha)
            assert _bytes(s) == _bytes(t), (rows, beta, alpha)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(300, 301), (1024, 129), (40, 1000)], ids=str)
@pytest.mark.parametrize("transposed", [False, True])
def test_addr_input_term_parallel_pieces(dt: type, shape: tuple[int, int], transposed: bool,
                                        torch_threads_as_assumed: None) -> None:
    # above 32768 elements PyTorch's parallel chunks cut its rows: each piece has its own tail
    rng = np.random.default_rng(shape[1])
    n, m = shape
    a = rng.standard_normal((m, n) if transposed else (n, m)).astype(dt)
    x, y = rng.standard_normal(n).astype(dt), rng.standard_normal(m).astype(dt)
    si, ti = (S.from_numpy(a).t(), torch.from_numpy(a).t()) if transposed else (S.from_numpy(a), torch.from_numpy(a))
    s = S.addr(si, S.from_numpy(x), S.from_numpy(y), beta=0.5, alpha=1.5)
    t = torch.addr(ti, torch.from_numpy(x), torch.from_numpy(y), beta=0.5, alpha=1.5)
    assert _bytes(s) == _bytes(t)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("out_t", [False, True])
def test_addr_input_term_out_and_inplace(dt: type, out_t: bool) -> None:
    rng = np.random.default_rng(7)
    sd, td = (S.float32, torch.float32) if dt is np.float32 else (S.float64, torch.float64)
    for n, m in ((5, 17), (3, 33), (18, 16)):
        a = rng.standard_normal((n, m)).astype(dt)
        x, y = rng.standard_normal(n).astype(dt), rng.standard_normal(m).astype(dt)
        so = S.empty(m, n, dtype=sd).t() if out_t else S.empty(n, m, dtype=sd)
        to = torch.empty(m, n, dtype=td).t() if out_t else torch.empty(n, m, dtype=td)
        S.addr(S.from_numpy(a), S.from_numpy(x), S.from_numpy(y), beta=2, alpha=0.3, out=so)
        torch.addr(torch.from_numpy(a), torch.from_numpy(x), torch.from_numpy(y), beta=2, alpha=0.3, out=to)
        assert _bytes(so) == _bytes(to)
        sa = S.from_numpy(np.ascontiguousarray(a.T)).t() if out_t else S.from_numpy(a.copy())
        ta = torch.from_numpy(np.ascontiguousarray(a.T)).t() if out_t else torch.from_numpy(a.copy())
        sa.addr_(S.from_numpy(x), S.from_numpy(y), beta=1, alpha=-1.7)
        ta.addr_(torch.from_numpy(x), torch.from_numpy(y), beta=1, alpha=-1.7)
        assert _bytes(sa) == _bytes(ta)


@pytest.mark.parametrize("dt", [np.int64, np.int32, np.int16])
def test_addr_integers(dt: type) -> None:
    rng = np.random.default_rng(3)
    a = rng.integers(-50, 50, (6, 17)).astype(dt)
    x, y = rng.integers(-9, 9, 6).astype(dt), rng.integers(-9, 9, 17).astype(dt)
    for beta, alpha in ((1, 1), (0, 3), (2, -3)):
        s = S.addr(S.from_numpy(a).t().t(), S.from_numpy(x), S.from_numpy(y), beta=beta, alpha=alpha)
        t = torch.addr(torch.from_numpy(a), torch.from_numpy(x), torch.from_numpy(y), beta=beta, alpha=alpha)
        assert _bytes(s) == _bytes(t)


def test_addr_zero_size() -> None:
    for n, m in ((0, 5), (4, 0)):
        s = S.addr(S.ones(n, m), S.ones(n), S.ones(m), beta=0.5, alpha=2)
        t = torch.addr(torch.ones(n, m), torch.ones(n), torch.ones(m), beta=0.5, alpha=2)
        assert _bytes(s) == _bytes(t)


@settings(max_examples=40, deadline=None)
@given(hs.sampled_from([np.float32, np.float64]), hs.sampled_from(_LAYOUTS), hs.integers(1, 40), hs.integers(1, 40),
       hs.sampled_from([1, 0.5, -3, 1e-3]), hs.sampled_from([1, 2.5, -0.75]), hs.integers(0, 2**31))
def test_addr_random_against_torch(dt: type, layout: str, n: int, m: int, beta: float, alpha: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    si, ti = _input(layout, n, m, dt, rng)
    x, y = rng.standard_normal(n).astype(dt), rng.standard_normal(m).astype(dt)
    s = S.addr(si, S.from_numpy(x), S.from_numpy(y), beta=beta, alpha=alpha)
    t = torch.addr(ti, torch.from_numpy(x), torch.from_numpy(y), beta=beta, alpha=alpha)
    assert _bytes(s) == _bytes(t)


def test_addr_inf_and_nan_operands() -> None:
    # one NaN or inf operand per operation: the NaN (or inf - inf's) whatever the order
    a = np.array([[np.nan, 1.0, np.inf, -0.0] * 5] * 3, np.float32)
    x = np.array([1.0, -np.inf, 0.0], np.float32)
    y = np.array([2.0, 0.0, -1.0, 3.0] * 5, np.float32)
    for beta, alpha in ((1, 1), (0.5, -2)):
        s = S.addr(S.from_numpy(a), S.from_numpy(x), S.from_numpy(y), beta=beta, alpha=alpha)
        t = torch.addr(torch.from_numpy(a), torch.from_numpy(x), torch.from_numpy(y), beta=beta, alpha=alpha)
        assert _bytes(s) == _bytes(t)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(64, 47), (5, 3), (33, 129), (1, 19), (7, 1)], ids=str)
def test_addr_beta_zero_scales_vec1_first(dtype: type, shape: tuple[int, int]) -> None:
    # PyTorch's loops compute (alpha * vec1) * vec2 when beta is 0 (vector and scalar loops alike);
    # strided multiplied the outer product by alpha: other last bits, and -0.0 for PyTorch's NaN
    rng = np.random.default_rng(shape[0] * 100 + shape[1])
    n, m = shape
    a = rng.standard_normal((n, m)).astype(dtype)
    x, y = rng.standard_normal(n).astype(dtype), rng.standard_normal(m).astype(dtype)
    a[0, 0] = np.nan  # (ignored with beta 0)
    for alpha in (1.7, -2.5, 0.3, 3, 1e-3):
        for beta in (0, 0.0, 1e-300):
            for column_major in (False, True):
                sa = S.from_numpy(np.ascontiguousarray(a.T)).t() if column_major else S.from_numpy(a)
                ta = torch.from_numpy(np.ascontiguousarray(a.T)).t() if column_major else torch.from_numpy(a)
                if beta == 1e-300 and dtype is np.float64:
                    continue  # (1e-300 is not 0 in float64: the input term counts)
                s = S.addr(sa, S.from_numpy(x), S.from_numpy(y), beta=beta, alpha=alpha)
                t = torch.addr(ta, torch.from_numpy(x), torch.from_numpy(y), beta=beta, alpha=alpha)
                assert _bytes(s) == _bytes(t) and s.stride() == tuple(t.stride()), (alpha, beta, column_major)
    big = S.addr(S.zeros(1, 1), S.tensor([3e38]), S.tensor([0.0]), beta=0, alpha=-1.5)
    assert np.isnan(big.item()) and np.isnan(torch.addr(torch.zeros(1, 1), torch.tensor([3e38]), torch.tensor([0.0]),
                                                         beta=0, alpha=-1.5).item())


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["rowmajor", "transposed", "step", "row"])
def test_addr_nan_operands_keep_pytorchs_nan(dt: type, layout: str) -> None:
    # two NaN operands in one step: PyTorch keeps alpha*x's before y's, then fma's first NaN
    # (vector: alpha*x, y, beta*input; scalar: beta, input, the product); signs of both kinds
    rng = np.random.default_rng(len(layout) + (dt is np.float64))
    for trial in range(12):
        n, m = int(rng.integers(2, 9)), int(rng.integers(1, 40))
        si, ti = _input(layout, n, m, dt, rng)
        ai = si.numpy()  # (a view of the values both tensors read)
        x, y = rng.standard_normal(n).astype(dt), rng.standard_normal(m).astype(dt)
        for arr in (ai.reshape(-1) if ai.flags.c_contiguous else ai.T.reshape(-1) if ai.T.flags.c_contiguous else ai[..., :1].reshape(-1), x, y):
            k = rng.integers(0, arr.size, 2)
            arr[k] = np.nan
            arr[k[:1]] = -arr[k[:1]]
            if trial % 3 == 0:
                arr[rng.integers(0, arr.size)] = np.inf
        for beta, alpha in ((1, 1), (0.5, -2.0), (2, np.inf)):
            s = S.addr(si, S.from_numpy(x), S.from_numpy(y), beta=beta, alpha=alpha)
            t = torch.addr(ti, torch.from_numpy(x), torch.from_numpy(y), beta=beta, alpha=alpha)
            assert _bytes(s) == _bytes(t), (trial, beta, alpha)


@pytest.mark.parametrize("transposed", [False, True])
def test_addr_input_term_one_thread(transposed: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # one PyTorch thread: one chunk above the grain size too (strided reads OMP_NUM_THREADS)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        rng = np.random.default_rng(11)
        a = rng.standard_normal((300, 301)).astype(np.float32)  # (rows of 301: 13-element tails)
        x, y = rng.standard_normal(300).astype(np.float32), rng.standard_normal(301).astype(np.float32)
        if transposed:
            a = np.ascontiguousarray(a.T)  # (the (301, 300) memory read as a (300, 301) column-major input)
            si, ti = S.from_numpy(a).t(), torch.from_numpy(a).t()
        else:
            si, ti = S.from_numpy(a), torch.from_numpy(a)
        s = S.addr(si, S.from_numpy(x), S.from_numpy(y), beta=0.25, alpha=-3)
        t = torch.addr(ti, torch.from_numpy(x), torch.from_numpy(y), beta=0.25, alpha=-3)
        assert _bytes(s) == _bytes(t)
    finally:
        torch.set_num_threads(threads)
