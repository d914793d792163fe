"""Session 40's large-row ops against PyTorch and NumPy: float32 ``sinc`` through the AVX2 + FMA form
of glibc's sine (``_glibc_sinf.h``'s ``glibc_sinf4``, two four-lane halves an iteration: the scalar
loop's bits, PyTorch's), and the comparisons, class tests, bitwise ops, ``fmax``/``minimum``, the
roundings, ``square``, ``sqrt``, ``tanh`` and ``argmin``/``argmax`` whose rows were timed against
NumPy's: their values, dtypes and strides across layouts (row-major, transposed, expanded, sliced,
reversed, 0-d, zero-size), dtypes and the special values (NaN, +-inf, -0.0)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided.kernels import native

_K = native.special()
needs_kernel = pytest.mark.skipif(
    _K is None or not hasattr(_K, "lanes_form"), reason="the special kernel is not built"
)
_SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 2.0, 1e-45, -1e-38, 3e38, 38.2, -120.5]


def _both_forms(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """float32 sinc of the flat run ``x`` by the lane forms (-1: AVX-512 or AVX2 + FMA where the CPU
    has them) and by the scalar loop (0)."""
    fast, slow = np.empty_like(x), np.empty_like(x)
    before = _K.lanes_form(-1)
    try:
        assert _K.unary_exact(x, fast, 5)
        _K.lanes_form(0)
        assert _K.unary_exact(x, slow, 5)
    finally:
        _K.lanes_form(before)
    return fast, slow


def _same_bits(a: np.ndarray, b: np.ndarray) -> None:
    assert a.dtype == b.dtype and a.shape == b.shape
    ua, ub = np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8)
    bad = np.flatnonzero(ua != ub)
    assert bad.size == 0, (bad[:5], a.ravel()[bad[:5] // a.itemsize], b.ravel()[bad[:5] // b.itemsize])


@needs_kernel
def test_sinc_lanes_give_the_scalar_loops_bits_across_every_float32_range():
    """2^20 bit patterns spread over all 2^32 (every sign, exponent, NaN payload), the floats whose
    pi x sits at glibc's range ends (2^-12, 0.75, 120) and around each multiple of pi/2 up there."""
    rng = np.random.default_rng(40)
    spread = (np.arange(1 << 20, dtype=np.uint64) << 12).astype(np.uint32) | rng.integers(
        0, 1 << 12, 1 << 20, dtype=np.uint32
    )
    pi = np.float32(np.pi)
    ends = (
        np.concatenate([np.array([2.0**-12, 0.75, 120.0]), np.arange(1, 77) * np.pi / 2]).astype(np.float32)
        / pi
    )
    near = (ends.view(np.uint32)[:, None].astype(np.int64) + np.arange(-24, 25)[None, :]).astype(np.uint32)
    x = np.concatenate(
        [
            spread.view(np.float32),
            near.view(np.float32).ravel(),
            -near.view(np.float32).ravel(),
            np.array(_SPECIAL, np.float32),
        ]
    )
    _same_bits(*_both_forms(x))


@needs_kernel
@pytest.mark.parametrize("offset", [0, 1, 3])
@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 33])
def test_sinc_lanes_tails_offsets_and_big_lanes_in_either_half(n, offset):
    """Every length's tail, unaligned starts, and lanes the vector sine leaves to sinf (|pi x| >= 120,
    inf, NaN, zeros) in the first and in the second four-lane half of an eight-lane step."""
    base = np.array(
        [
            0.3,
            50.0,
            -0.0,
            0.7,
            np.nan,
            1e-30,
            -45.1,
            np.inf,
            0.0,
            -1.5,
            39.0,
            2.5e-4,
            -np.inf,
            7.0,
            1.0,
            38.1,
        ],
        np.float32,
    )
    x = np.resize(base, n + offset)[offset:]
    fast, slow = _both_forms(np.ascontiguousarray(x))
    _same_bits(fast, slow)
    _same_bits(fast, torch.sinc(torch.from_numpy(x.copy())).numpy())


def _layouts(x: np.ndarray) -> dict[str, tuple[st.Tensor, torch.Tensor]]:
    """``x`` (2-D, at least 2 x 3) as the same views in strided and torch."""
    s, t = st.from_numpy(x.copy()), torch.from_numpy(x.copy())
    return {
        "rowmajor": (s, t),
        "transposed": (s.T, t.T),
        "sliced": (s[:, 1::2], t[:, 1::2]),
        "expanded": (s[:1].expand(4, x.shape[1]), t[:1].expand(4, x.shape[1])),
        "reversed": (st.flip(s, [0, 1]), torch.flip(t, [0, 1])),
        "0-d": (s[1, 2], t[1, 2]),
        "zero-size": (s[:0], t[:0]),
        "permuted copy": (s.T.contiguous().T, t.T.contiguous().T),
    }


def _values(dtype: str, shape: tuple[int, int], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype in ("int32", "int64", "uint8", "int8"):
        return rng.integers(-20 if dtype[0] == "i" else 0, 20, shape).astype(dtype)
    x = rng.uniform(-4, 4, shape)
    flat = x.ravel()
    flat[: len(_SPECIAL)] = _SPECIAL[: flat.size]
    with np.errstate(over="ignore"):  # (3e38 is inf in float16)
        return x.astype(np.float64 if dtype == "bfloat16" else dtype)


def _to(x: st.Tensor | torch.Tensor, dtype: str) -> st.Tensor | torch.Tensor:
    return x.to(getattr(st if isinstance(x, st.Tensor) else torch, dtype))


def _same_result(got: st.Tensor, want: torch.Tensor, nan_sign_free: bool = False) -> None:
    """dtype, shape, strides and every bit (float16 / bfloat16 compared through float32; ``nan_sign_free``:
    their NaNs only as NaNs)."""
    assert got.dtype.name == str(want.dtype).removeprefix("torch.")
    assert tuple(got.shape) == tuple(want.shape) and tuple(got.stride()) == tuple(want.stride())
    if want.dtype in (torch.bfloat16, torch.float16):
        got, want = got.to(st.float32), want.to(torch.float32)
        if nan_sign_free:
            g, w = got.numpy(), want.numpy()
            assert (np.isnan(g) == np.isnan(w)).all()
            got, want = (
                st.from_numpy(np.where(np.isnan(g), 0, g)),
                torch.from_numpy(np.where(np.isnan(w), 0, w)),
            )
    _same_bits(got.numpy(), want.numpy())


@needs_kernel
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int32", "bool"])
def test_sinc_matches_torch_across_layouts_and_dtypes(dtype):
    x = _values(dtype, (6, 8), 1)
    for name, (s, t) in _layouts(x).items():
        s, t = _to(s, dtype), _to(t, dtype)
        # (bfloat16 sinc(+-inf): strided's NaN is -NaN, PyTorch's +NaN; main's too, not modelled)
        _same_result(st.sinc(s), torch.sinc(t), nan_sign_free=dtype == "bfloat16")
        _same_result(s.sinc(), t.sinc(), nan_sign_free=dtype == "bfloat16")
        if dtype.startswith(("float", "bfloat")) and name in ("rowmajor", "transposed", "0-d", "zero-size"):
            a, b = s.clone(), t.clone()
            a.sinc_(), b.sinc_()
            _same_result(a, b, nan_sign_free=dtype == "bfloat16")


@needs_kernel
@pytest.mark.parametrize("transposed", [False, True])
def test_sinc_of_a_large_float32_tensor_is_torchs(transposed, torch_threads_as_assumed):
    """Past PyTorch's grain (32768 elements): the front's flat run and a transpose's memory order."""
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((300, 257)) * rng.choice([1e-3, 1.0, 30.0, 1e4], (300, 257))).astype(np.float32)
    x.ravel()[::997] = 0.0
    s, t = st.from_numpy(x), torch.from_numpy(x)
    if transposed:
        s, t = s.T, t.T
    _same_result(st.sinc(s), torch.sinc(t))


@needs_kernel
@settings(max_examples=60, deadline=None)
@given(data=hs.data())
def test_sinc_float32_any_view_is_torchs(data):
    """Hypothesis views (sliced, stepped, transposed, expanded, 0-d, zero-size) of float32 values from
    every range, NaN, inf and -0.0 included."""
    rows, cols = data.draw(hs.integers(0, 9)), data.draw(hs.integers(0, 21))
    vals = data.draw(
        hs.lists(
            hs.floats(width=32, allow_nan=True, allow_infinity=True),
            min_size=rows * cols,
            max_size=rows * cols,
        )
    )
    x = np.array(vals, np.float32).reshape(rows, cols)
    s, t = st.from_numpy(x.copy()), torch.from_numpy(x.copy())
    kind = data.draw(hs.sampled_from(["plain", "T", "step", "expand", "0-d"]))
    if kind == "T":
        s, t = s.T, t.T
    elif kind == "step" and rows and cols:
        a, b = data.draw(hs.integers(1, 3)), data.draw(hs.integers(1, 4))
        s, t = s[::a, 1::b], t[::a, 1::b]
    elif kind == "expand" and rows:
        s, t = s[:1].expand(3, cols), t[:1].expand(3, cols)
    elif kind == "0-d" and rows and cols:
        s, t = s[rows - 1, cols - 1], t[rows - 1, cols - 1]
    _same_result(st.sinc(s), torch.sinc(t))


_BINARY = ["le", "ge", "eq", "gt", "ne", "lt", "fmax", "minimum"]
_BITWISE = ["bitwise_xor", "bitwise_and", "bitwise_left_shift"]
_UNARY_FLOAT = ["isfinite", "isnan", "isinf", "floor", "ceil", "trunc", "square", "sqrt", "tanh"]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int32", "bool"])
@pytest.mark.parametrize("name", _BINARY)
def test_compare_and_extremes_match_torch_across_layouts(name, dtype):
    x, y = _values(dtype, (6, 8), 3), _values(dtype, (6, 8), 4)
    y.ravel()[::3] = x.ravel()[::3]  # (ties: equal elements, -0.0 against 0.0 among them)
    if dtype == "bool" and name in ("fmax",):
        pytest.skip("torch refuses fmax of bool")
    lx, ly = _layouts(x), _layouts(y)
    for key in lx:
        (s, t), (s2, t2) = lx[key], ly[key]
        s, t, s2, t2 = _to(s, dtype), _to(t, dtype), _to(s2, dtype), _to(t2, dtype)
        _same_result(getattr(st, name)(s, s2), getattr(torch, name)(t, t2))


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "int8", "bool"])
@pytest.mark.parametrize("name", [*_BITWISE, "bitwise_not"])
def test_bitwise_ops_match_torch_and_numpy_across_layouts(name, dtype):
    if dtype == "bool" and name == "bitwise_left_shift":
        pytest.skip("torch refuses shifts of bool")
    x, y = _values(dtype, (6, 8), 5), _values(dtype, (6, 8), 6)
    if name == "bitwise_left_shift":
        y = np.abs(y) % 7  # (shifts within the width: NumPy's and PyTorch's agree there)
    lx, ly = _layouts(x), _layouts(y)
    np_fn = {
        "bitwise_xor": np.bitwise_xor,
        "bitwise_and": np.bitwise_and,
        "bitwise_left_shift": np.left_shift,
        "bitwise_not": np.invert,
    }[name]
    for key in lx:
        (s, t), (s2, t2) = lx[key], ly[key]
        got = getattr(st, name)(s) if name == "bitwise_not" else getattr(st, name)(s, s2)
        _same_result(got, getattr(torch, name)(t) if name == "bitwise_not" else getattr(torch, name)(t, t2))
        want_np = np_fn(t.numpy()) if name == "bitwise_not" else np_fn(t.numpy(), t2.numpy())
        _same_bits(got.numpy(), np.asarray(want_np, got.numpy().dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int32", "bool"])
@pytest.mark.parametrize("name", _UNARY_FLOAT)
def test_unary_rows_match_torch_across_layouts(name, dtype):
    if dtype == "bool" and name in ("floor", "ceil", "trunc", "square"):
        pytest.skip("torch refuses these of bool")
    x = _values(dtype, (6, 8), 7)
    for s, t in _layouts(x).values():
        s, t = _to(s, dtype), _to(t, dtype)
        # (float16 / bfloat16 NaN words: PyTorch's tanh gives all ones, square some layouts' -NaN, where
        # strided keeps the input's NaN: main's answers, not modelled here)
        _same_result(getattr(st, name)(s), getattr(torch, name)(t), nan_sign_free=True)


@pytest.mark.parametrize(
    "name", ["isfinite", "isnan", "isinf", "le", "eq", "minimum", "fmax", "floor", "square"]
)
def test_numpy_negative_stride_views_give_numpys_answer(name):
    """NumPy's reversed views against strided.flip of the same values: NumPy's bits (these ops'
    float32 results are NumPy's and PyTorch's alike, NaN words aside: compared as NaN-or-equal)."""
    x, y = _values("float32", (6, 8), 8), _values("float32", (6, 8), 9)
    y.ravel()[::4] = x.ravel()[::4]
    fn = {"le": np.less_equal, "eq": np.equal, "square": np.square}.get(name) or getattr(np, name)
    xr, yr = x[::-1, ::-2], y[::-1, ::-2]
    s, s2 = st.flip(st.from_numpy(x), [0, 1])[:, ::2], st.flip(st.from_numpy(y), [0, 1])[:, ::2]
    binary = name in ("le", "eq", "minimum", "fmax")
    with np.errstate(over="ignore", invalid="ignore"):
        want = fn(xr, yr) if binary else fn(xr)
    got = (getattr(st, name)(s, s2) if binary else getattr(st, name)(s)).numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)  # (NaN equals NaN here)
    assert (np.signbit(got[got == 0]) == np.signbit(want[got == 0])).all() if got.dtype.kind == "f" else True


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool"])
@pytest.mark.parametrize("name", ["argmin", "argmax"])
def test_argmin_argmax_full_match_torch_across_layouts(name, dtype):
    x = _values(dtype, (6, 8), 10)
    if dtype.startswith("float"):
        x.ravel()[[5, 30]] = x.ravel()[[20, 20]]  # (ties: the first index)
        x.ravel()[4] = np.nan  # (NaN wins, first of them)
    for key, (s, t) in _layouts(x).items():
        if key == "zero-size" or dtype == "bool":  # (both refuse an empty full reduction, and bool)
            with pytest.raises((RuntimeError, IndexError)) as want:
                getattr(torch, name)(t)
            with pytest.raises(want.type):
                getattr(st, name)(s)
            continue
        assert int(getattr(st, name)(s)) == int(getattr(torch, name)(t)), key


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["isinf", "isfinite", "isnan"])
@pytest.mark.parametrize("shape", [(2, 3, 4), (1, 5, 1), (3, 1, 4), (4, 1)])
def test_class_tests_of_dense_permutations_are_torchs(name, dtype, shape):
    """Every permutation of row-major tensors (size-1 dims among them), twice (the front's dense
    memo filled by the first call): PyTorch's strides and values, NaN and infinities included."""
    import itertools

    x = _values(dtype, (1, int(np.prod(shape))), 11).reshape(shape)
    for perm in itertools.permutations(range(len(shape))):
        s, t = st.from_numpy(x.copy()).permute(*perm), torch.from_numpy(x.copy()).permute(*perm)
        dense_s, dense_t = (
            s.contiguous().permute(*np.argsort(perm)),
            t.contiguous().permute(*np.argsort(perm)),
        )
        for a, b in ((s, t), (dense_s, dense_t), (dense_s, dense_t)):
            _same_result(getattr(st, name)(a), getattr(torch, name)(b))
