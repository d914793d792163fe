"""red41: logsumexp over the last dim of a row-major float tensor takes the compiled ``lse_shift``
(``_rowkernel.c``: each row's max, an infinite one made 0, and ``x - max`` in one pass). Checked:
the kernel's three copies (baseline, AVX2, AVX-512: each forced in a fresh process) against
NumPy's maximum.reduce and subtract, bit for bit, with NaN / inf / -inf / signed zeros / ties at
every position of a vector; its refusals; logsumexp bit for bit against PyTorch at one and two
threads on hypothesis layouts (row-major, permuted, expanded, sliced, 0-d, zero-size) holding
those values; and that the row-major case does take the kernel."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as S
from strided.kernels import rows
from strided.ops.reductions import nan_reductions

torch = pytest.importorskip("torch")

_SCRIPT = r"""
import numpy as np
from strided.kernels import rows
k = rows._kernel_module().lse_shift
rng = np.random.default_rng(41)
bad = []

def want(x):
    m = np.maximum.reduce(x, 1, keepdims=True)
    m[np.isinf(m)] = 0
    return m, x - m


def same(got, exp):
    nan = np.isnan(exp)
    return (np.isnan(got) == nan).all() and got[~nan].tobytes() == exp[~nan].tobytes()

for dt in ("f4", "f8"):
    for n in (1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 4099):
        x = (rng.standard_normal((6, n)) * 3).astype(dt)
        x[1] = -np.inf
        x[2, n // 2] = np.inf
        x[3] = 0.0
        x[3, ::2] = -0.0
        x[4] = x[4, 0]  # (all ties)
        for where in sorted({0, n // 3, n - 1}):
            y = x.copy()
            y[5, where] = np.nan
            if where:
                y[2, where - 1] = np.nan if n > 2 else y[2, where - 1]
            work = np.full(y.shape, 7.0, dt)
            m = np.full((6, 1), 7.0, dt)
            ok = k(y, work, m)
            wm, wx = want(y)
            # (a zero max may have either sign: x - m then differs only for x = -0, exp 1 either way,
            # and log(sum) + m is +0 + +-0 = +0 at least; so the sign is checked nowhere, x - m with it)
            zero = wm == 0
            if ok is not True or not same(np.where(zero, 0, m), np.where(zero, 0, wm)) or not (m[zero] == 0).all()                     or not same(work, y - m):
                bad.append((dt, n, where))
    # refusals: nothing written
    x = rng.standard_normal((4, 8)).astype(dt)
    work = np.zeros((4, 8), dt)
    m = np.zeros((4, 1), dt)
    other = "f8" if dt == "f4" else "f4"
    for args in ((x, work[:3], m), (x, work, m[:3]), (x, work.astype(other), m), (x.astype(np.float16), work, m),
                 (x, x, m), (x[:, ::2].copy(), work, np.zeros((0, 1), dt)), (x, work.reshape(-1)[1:], m)):
        if k(*args) is not False or work.any() or m.any():
            bad.append((dt, "refusal", len(bad)))
    ro = work.copy()
    ro.flags.writeable = False
    if k(x, ro, m) is not False or m.any():
        bad.append((dt, "read-only"))
print("BAD", bad)
"""


@pytest.mark.parametrize("isa", ["base", "avx2", "avx512"])
def test_every_copy_of_lse_shift_gives_numpys_max_and_difference(isa: str, run_with_rows_isa) -> None:
    """Each copy of the loop (the CPU's widest where it lacks the one asked for) on row lengths around
    its vector widths, special values at the vector edges: NumPy's values, NaNs where NumPy's."""
    if rows.lse_shift() is None:
        pytest.skip("the row kernel is not built")
    assert run_with_rows_isa(_SCRIPT, isa) == "BAD []"


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view({4: np.uint32, 8: np.uint64}[a.itemsize]) if a.size else a


def _same(got: np.ndarray, want: np.ndarray) -> None:
    """Equal shapes, dtypes and bits; NaNs where PyTorch's are (their words compared only where
    ``words``: a reduction over a middle dim gives PyTorch's all-ones NaN word, strided the quiet NaN,
    on main too: (1, 2, 33) float32 over dim 1, a NaN in each column)."""
    assert got.shape == want.shape and got.dtype == want.dtype
    nan = np.isnan(want)
    assert (np.isnan(got) == nan).all()
    assert (_bits(got)[~nan] == _bits(want)[~nan]).all(), int((_bits(got)[~nan] != _bits(want)[~nan]).sum())


def _same_words(got: np.ndarray, want: np.ndarray) -> None:
    """:func:`_same`, NaN words included (the last dim of a row-major tensor: both the quiet NaN)."""
    _same(got, want)
    assert (_bits(got) == _bits(want)).all()


_SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 88.0, -88.0, 1e30, -1e30, 3.0]


def _values(shape: tuple[int, ...], dtype: type, seed: int, special: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = np.asarray(rng.standard_normal(shape) * 4).astype(dtype)
    if a.size:
        flat = a.reshape(-1)
        pick = rng.random(flat.size) < special
        flat[pick] = rng.choice(np.array(_SPECIAL, dtype), int(pick.sum()))
        if rng.random() < 0.3 and a.ndim:  # (a whole row of one value: ties, or all -inf / inf / NaN)
            a[(rng.integers(a.shape[0]),) if a.shape[0] else ()] = rng.choice(np.array(_SPECIAL, dtype))
    return a


def _layouts(a: np.ndarray, how: str):
    """(strided, torch) tensors holding ``a``'s values laid out as ``how``."""
    if how == "perm" and a.ndim:
        order = list(range(a.ndim))[::-1]
        base = np.ascontiguousarray(np.transpose(a, order))
        back = np.argsort(order).tolist()
        return S.from_numpy(base).permute(back), torch.from_numpy(base.copy()).permute(back)
    if how == "step":
        base = np.repeat(a, 2, axis=-1) if a.ndim else a
        sl = (Ellipsis, slice(None, None, 2)) if a.ndim else ()
        return S.from_numpy(base.copy())[sl], torch.from_numpy(base.copy())[sl]
    if how == "expand" and a.ndim:
        row = np.ascontiguousarray(a[:1])
        return S.from_numpy(row).expand(*a.shape), torch.from_numpy(row.copy()).expand(*a.shape)
    return S.from_numpy(a.copy()), torch.from_numpy(a.copy())


def _check(a: np.ndarray, how: str, dim: int, keepdim: bool) -> None:
    s, t = _layouts(a, how)
    last = how == "plain" and (not a.ndim or dim % a.ndim == a.ndim - 1)
    (_same_words if last else _same)(S.logsumexp(s, dim, keepdim).numpy(), torch.logsumexp(t, dim, keepdim).numpy())


_LAYOUT_CASES = dict(
    dtype=st.sampled_from([np.float32, np.float64]),
    shape=st.lists(st.sampled_from([0, 1, 2, 3, 5, 15, 16, 17, 33, 64, 130]), min_size=0, max_size=3),
    seed=st.integers(0, 2**31), special=st.sampled_from([0.0, 0.05, 0.5]),
    how=st.sampled_from(["plain", "plain", "perm", "step", "expand"]), keepdim=st.booleans(), data=st.data(),
)


def _draw_dim(shape: list, data) -> int:
    return data.draw(st.integers(-max(len(shape), 1), max(len(shape), 1) - 1)) if shape else data.draw(st.sampled_from([0, -1]))


@pytest.mark.usefixtures("torch_one_thread")
@settings(max_examples=60, deadline=None)
@given(**_LAYOUT_CASES)
def test_logsumexp_bits_one_thread(dtype, shape, seed, special, how, keepdim, data) -> None:
    dim = _draw_dim(shape, data)
    _check(_values(tuple(shape), dtype, seed, special), how, dim, keepdim)


@pytest.mark.usefixtures("torch_two_threads")
@settings(max_examples=30, deadline=None)
@given(**_LAYOUT_CASES)
def test_logsumexp_bits_two_threads(dtype, shape, seed, special, how, keepdim, data) -> None:
    dim = _draw_dim(shape, data)
    _check(_values(tuple(shape), dtype, seed, special), how, dim, keepdim)


@pytest.mark.parametrize("threads", ["torch_one_thread", "torch_two_threads"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1024, 1024), (3, 40000), (40000, 3), (2, 5, 4099)])
def test_logsumexp_large_rows_bits(threads: str, dtype: type, shape: tuple, request) -> None:
    """Past PyTorch's parallel grain (32768 elements): its bits at one and two threads, NaN, inf and
    -inf rows among them."""
    request.getfixturevalue(threads)
    a = _values(shape, dtype, 5, 0.0)
    a.reshape(-1, shape[-1])[1] = -np.inf
    a.reshape(-1, shape[-1])[2, shape[-1] // 2] = np.inf
    a.reshape(-1, shape[-1])[0, -1] = np.nan
    _check(a, "plain", -1, False)
    _check(a, "plain", -1, True)


def test_row_major_last_dim_takes_the_kernel(monkeypatch, torch_one_thread) -> None:
    """The compiled pass runs for a row-major tensor over its last dim (float32 and float64), and
    not over another dim; the results are PyTorch's either way."""
    if rows.lse_shift() is None:
        pytest.skip("the row kernel is not built")
    calls = []
    real = nan_reductions._lse_shift

    def counting():
        f = real()
        return None if f is None else (lambda *a: calls.append(a[0].shape) or f(*a))

    monkeypatch.setattr(nan_reductions, "_lse_shift", counting)
    for dtype in (np.float32, np.float64):
        a = _values((64, 100), dtype, 3, 0.1)
        _check(a, "plain", -1, False)
        _check(a, "plain", 0, False)
    assert calls == [(64, 100), (64, 100)]


# ---------------------------------------------------------------- max_pool1d's two-tap windows

_POOL_SCRIPT = r"""
import numpy as np
import strided as S
import strided.nn.functional as F
rng = np.random.default_rng(41)
bad = []
special = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0], "f8")
for dt in ("f4", "f8"):
    u = {4: np.uint32, 8: np.uint64}[np.dtype(dt).itemsize]
    for w in (16, 17, 18, 31, 32, 33, 34, 35, 63, 64, 65, 66, 67, 98, 130, 1025):
        x = rng.standard_normal((2, 3, w)).astype(dt)
        flat = x.reshape(-1)
        pick = rng.random(flat.size) < 0.3
        flat[pick] = rng.choice(special.astype(dt), int(pick.sum()))
        got = F.max_pool1d(S.from_numpy(x), 2).numpy()
        ow = w // 2
        r, e = x[..., 0:2 * ow:2], x[..., 1:2 * ow:2]
        want = np.where((e > r) | (e != e), e, r)
        if got.shape != want.shape or got.view(u).tobytes() != want.view(u).tobytes():
            bad.append((dt, w))
print("BAD", bad)
"""


@pytest.mark.parametrize("isa", ["base", "avx2", "avx512"])
def test_every_copy_of_the_pair_windows_gives_the_per_window_select(isa: str, run_with_rows_isa) -> None:
    """F.max_pool1d(x, 2) through each copy (AVX-512's sixteen lanes, AVX2's tap loop, SSE2 / scalar),
    output lengths around the vector widths, NaN (both signs), +-inf, +-0 and ties: PyTorch's per-window
    select (the second tap where greater or NaN), NaN words included."""
    if rows.pool_windows() is None:
        pytest.skip("the row kernel is not built")
    assert run_with_rows_isa(_POOL_SCRIPT, isa) == "BAD []"


def _pool_pair(a: np.ndarray, how: str, kernel: int, stride: int | None) -> None:
    s, t = _layouts(a, how)
    try:
        want = torch.nn.functional.max_pool1d(t, kernel, stride).numpy()
    except RuntimeError as e:
        with pytest.raises(RuntimeError):
            S.nn.functional.max_pool1d(s, kernel, stride)
        return e
    got = S.nn.functional.max_pool1d(s, kernel, stride)
    _same_words(got.numpy(), want)
    assert got.stride() == torch.nn.functional.max_pool1d(t, kernel, stride).stride()


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float64]),
       shape=st.tuples(st.sampled_from([0, 1, 2, 3]), st.sampled_from([1, 2, 5]),
                       st.sampled_from([1, 2, 3, 16, 17, 33, 34, 64, 65, 130])),
       two_d=st.booleans(), seed=st.integers(0, 2**31), special=st.sampled_from([0.0, 0.1, 0.6]),
       how=st.sampled_from(["plain", "plain", "perm", "step", "expand"]),
       window=st.sampled_from([(2, None), (2, 2), (2, 1), (3, 2), (2, 3)]))
def test_max_pool1d_bits(dtype, shape, two_d, seed, special, how, window) -> None:
    """F.max_pool1d against PyTorch's values, NaN words and strides on hypothesis layouts (the
    two-tap stride-2 windows the fused pass takes, and their neighbours that it does not)."""
    a = _values(shape[1:] if two_d else shape, dtype, seed, special)
    _pool_pair(a, how, *window)
