"""bfloat16 written from float32/float64: every bit as PyTorch's, NaN words included.

PyTorch's vector conversion (cvtfp32_bf16) writes every NaN as 0xFFFF, its scalar one
(c10::BFloat16) as 0x7FC0; which one runs depends on the copy's rows (kernels/bf16_casts.py).
Each path is compared word for word with torch 2.13 over many lengths, NaN positions, signed
NaNs and payloads, and non-contiguous, expanded, 0-d and empty layouts.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided.kernels import bf16_casts, native

LENGTHS = [*range(0, 71), 127, 128, 129, 130, 511, 512, 513, 514, 1000]
DTYPES = [np.float32, np.float64]


# (torch with the thread count strided assumes: a float64 copy's rows are cut per thread)
pytestmark = pytest.mark.usefixtures("torch_threads_as_assumed")


def _nans(dtype: type, sign: int, payload: int) -> np.ndarray:
    """A NaN of ``dtype`` with the sign bit ``sign`` and mantissa payload bits ``payload``."""
    if dtype is np.float32:
        bits = np.uint32((sign << 31) | 0x7F800000 | (payload & 0x7FFFFF) or 1)
        return np.array([bits], np.uint32).view(np.float32)
    bits = np.uint64((sign << 63) | 0x7FF0000000000000 | (payload & 0xFFFFFFFFFFFFF) or 1)
    return np.array([bits], np.uint64).view(np.float64)


def _data(n: int, dtype: type, seed: int = 0) -> np.ndarray:
    """``n`` values: numbers (rounding ties, overflow, subnormals, infinities) and NaNs of both
    signs with quiet and signalling payloads, at positions that vary with ``seed``."""
    rng = np.random.default_rng(seed + n)
    x = rng.standard_normal(n).astype(dtype) * dtype(1e3)
    specials = np.array([np.inf, -np.inf, 0.0, -0.0, 1 + 2.0**-8, 1 + 3 * 2.0**-8, 3.4e38, -3.39e38, 1e-40,
                         -1e-41, 1 + 2.0**-8 + 2.0**-30], np.float64).astype(dtype)
    if n:
        k = rng.integers(0, n, size=min(n, len(specials)))
        x[k] = specials[: len(k)]
        nan_at = rng.random(n) < 0.4
        for i in np.flatnonzero(nan_at):
            sign, payload = int(rng.integers(0, 2)), int(rng.integers(0, 1 << 22)) | (1 << 22) * int(rng.integers(0, 2))
            x[i] = _nans(dtype, sign, payload << (29 if dtype is np.float64 else 0))[0]
    return x


def _sw(t: st.Tensor) -> np.ndarray:
    return t.contiguous().numpy().view(np.uint16).reshape(-1)


def _tw(t: torch.Tensor) -> np.ndarray:
    return t.contiguous().view(torch.int16).numpy().view(np.uint16).reshape(-1)


def _check(make, x: np.ndarray) -> None:
    """``make(lib, x)`` on strided and on torch: equal shapes, strides and words."""
    s, t = make(st, x), make(torch, x)
    assert s.dtype == st.bfloat16 and t.dtype == torch.bfloat16
    assert tuple(s.shape) == tuple(t.shape) and tuple(s.stride()) == tuple(t.stride())
    np.testing.assert_array_equal(_sw(s), _tw(t))


def _bf(lib):
    return st.bfloat16 if lib is st else torch.bfloat16


def _setitem(lib, n: int, value, step: int = 1):
    d = lib.zeros(n * step, dtype=_bf(lib))
    d[::step] = value
    return d[::step]


# each path: lib, x (a float32/float64 NumPy array) -> a bfloat16 tensor
PATHS = {
    "to": lambda lib, x: lib.tensor(x).to(_bf(lib)),
    "type": lambda lib, x: lib.tensor(x).type(_bf(lib)),
    "bfloat16()": lambda lib, x: lib.tensor(x).bfloat16(),
    "to strided src": lambda lib, x: lib.tensor(x)[::2].to(_bf(lib)),
    "to expanded src": lambda lib, x: lib.tensor(x)[:1].expand(len(x)).to(_bf(lib)),
    "tensor(array, dtype)": lambda lib, x: lib.tensor(x, dtype=_bf(lib)),
    "tensor(array[::3], dtype)": lambda lib, x: lib.tensor(x[::3], dtype=_bf(lib)),
    "tensor(list, dtype)": lambda lib, x: lib.tensor(x.tolist(), dtype=_bf(lib)),
    "copy_": lambda lib, x: lib.zeros(len(x), dtype=_bf(lib)).copy_(lib.tensor(x)),
    "copy_ strided dst": lambda lib, x: lib.zeros(2 * len(x), dtype=_bf(lib))[::2].copy_(lib.tensor(x)),
    "copy_ strided src": lambda lib, x: lib.zeros(len(x[::2]), dtype=_bf(lib)).copy_(lib.tensor(x)[::2]),
    "copy_ offset": lambda lib, x: lib.zeros(len(x) + 1, dtype=_bf(lib))[1:].copy_(lib.tensor(x)),
    "copy_ 0-d src": lambda lib, x: lib.zeros(len(x), dtype=_bf(lib)).copy_(lib.tensor(x[:1]).reshape(())),
    "setitem tensor": lambda lib, x: _setitem(lib, len(x), lib.tensor(x)),
    "setitem tensor strided dst": lambda lib, x: _setitem(lib, len(x), lib.tensor(x), 3),
    "add out=": lambda lib, x: lib.add(lib.tensor(x), 1, out=lib.empty(len(x), dtype=_bf(lib))),
    "add out= strided": lambda lib, x: lib.add(lib.tensor(x), 1, out=lib.empty(2 * len(x), dtype=_bf(lib))[::2]),
    "mul out= strided src": lambda lib, x: lib.mul(lib.tensor(x)[::2], 2, out=lib.empty(len(x[::2]), dtype=_bf(lib))),
    "exp out=": lambda lib, x: lib.exp(lib.tensor(x), out=lib.empty(len(x), dtype=_bf(lib))),
    "cat out=": lambda lib, x: lib.cat([lib.tensor(x), lib.tensor(x)[::2]], out=lib.empty(0, dtype=_bf(lib))),
    "cat out= 2-d dim 1": lambda lib, x: lib.cat([lib.tensor(x).reshape(-1, 1), lib.tensor(x).reshape(-1, 1)], 1,
                                                 out=lib.empty(0, dtype=_bf(lib))),
    "stack out=": lambda lib, x: lib.stack([lib.tensor(x), lib.tensor(x)], out=lib.empty(0, dtype=_bf(lib))),
    "stack out= dim -1": lambda lib, x: lib.stack([lib.tensor(x), lib.tensor(x)], -1, out=lib.empty(0, dtype=_bf(lib))),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("path", list(PATHS))
def test_paths_match_torch_every_length(path, dtype):
    make = PATHS[path]
    for n in LENGTHS:
        if n == 0 and "expanded" in path or n == 0 and "0-d" in path:
            continue
        _check(make, _data(n, dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_all_nan_words_split_as_torch(dtype):
    """Only NaNs: float32 contiguous all 0xFFFF; float64 0xFFFF in 16-element steps, 0x7FC0 in
    each row's tail; strided sources all 0x7FC0 (the measured rule, spelled out)."""
    for n in (1, 15, 16, 17, 40, 1000):
        x = np.full(n, np.nan, dtype)
        words = _sw(st.tensor(x).to(st.bfloat16))
        if dtype is np.float32:
            expect = np.full(n, 0xFFFF)
        else:
            expect = np.where(np.arange(n) < n - n % 16, 0xFFFF, 0x7FC0)
        np.testing.assert_array_equal(words, expect)
        strided_words = _sw(st.tensor(np.full(2 * n, np.nan, dtype))[::2].to(st.bfloat16))
        # (one element of one shape: a contiguous row for float32, whatever its stride)
        np.testing.assert_array_equal(strided_words, np.full(n, 0xFFFF if n == 1 and dtype is np.float32 else 0x7FC0))


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("layout", ["t", "rows", "cols", "expand_rows", "expand_cols", "permuted3"])
def test_2d_layouts_match_torch(layout, dtype):
    for rows, cols in ((3, 17), (5, 40), (2, 1), (1, 33), (4, 64), (7, 130)):
        x = _data(rows * cols * 2, dtype, seed=rows)

        def make(lib, x, rows=rows, cols=cols):
            t = lib.tensor(x)
            if layout == "t":
                src = t[: rows * cols].reshape(rows, cols).t()
            elif layout == "rows":
                src = t.reshape(rows, 2 * cols)[:, : cols - 1 if cols > 1 else 1]
            elif layout == "cols":
                src = t.reshape(2 * rows, cols)[::2]
            elif layout == "expand_rows":
                src = t[:cols].reshape(1, cols).expand(rows, cols)
            elif layout == "expand_cols":
                src = t[:rows].reshape(rows, 1).expand(rows, cols)
            else:
                src = t[: rows * cols].reshape(rows, 1, cols).permute(2, 1, 0)
            return src.to(_bf(lib))

        _check(make, x)

        def into_t(lib, x, rows=rows, cols=cols):
            d = lib.zeros(cols, rows, dtype=_bf(lib)).t()
            return d.copy_(lib.tensor(x)[: rows * cols].reshape(rows, cols))

        _check(into_t, x)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_one_element_and_zero_d(dtype):
    """One element: same shape (not 0-d) is a contiguous row (float32: 0xFFFF); 0-d or a
    broadcast source 0x7FC0."""
    for sign in (0, 1):
        x = _nans(dtype, sign, 5)
        _check(lambda lib, x: lib.tensor(x).to(_bf(lib)), x)
        _check(lambda lib, x: lib.tensor(x).reshape(()).to(_bf(lib)), x)
        _check(lambda lib, x: lib.tensor(x).reshape(1, 1).to(_bf(lib)), x)
        _check(lambda lib, x: lib.tensor(np.repeat(x, 3))[::2][:1].to(_bf(lib)), x)
        for shape in ((1,), (1, 1), (1, 1, 1)):
            for src in (lambda lib, x: lib.tensor(x), lambda lib, x: lib.tensor(x).reshape(()),
                        lambda lib, x: lib.tensor(x).reshape(1, 1)):
                def make(lib, x, shape=shape, src=src):
                    s = src(lib, x)
                    if s.dim() > len(shape):
                        return lib.zeros(shape, dtype=_bf(lib))  # (not a broadcast: both refuse it)
                    return lib.zeros(shape, dtype=_bf(lib)).copy_(s)
                _check(make, x)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_empty_and_numbers(dtype):
    for shape in ((0,), (3, 0), (0, 5)):
        _check(lambda lib, x, shape=shape: lib.tensor(x).reshape(shape).to(_bf(lib)), np.zeros(0, dtype))
    for v in (float("nan"), -float("nan")):
        _check(lambda lib, x, v=v: lib.zeros(9, dtype=_bf(lib)).fill_(v), np.zeros(0, dtype))
        _check(lambda lib, x, v=v: lib.full((5, 7), v, dtype=_bf(lib)), np.zeros(0, dtype))
        _check(lambda lib, x, v=v: _setitem(lib, 40, v), np.zeros(0, dtype))
        _check(lambda lib, x, v=v: _setitem(lib, 40, v, 2), np.zeros(0, dtype))
        _check(lambda lib, x, v=v: lib.tensor(v, dtype=_bf(lib)), np.zeros(0, dtype))
        _check(lambda lib, x, v=v: lib.tensor([[v, 1.0], [v, v]], dtype=_bf(lib)), np.zeros(0, dtype))
        _check(lambda lib, x, v=v: lib.tensor(np.array([v, v], dtype), dtype=_bf(lib)), np.zeros(0, dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_list_values_read_number_by_number(dtype):
    """t[...] = list (PyTorch refuses a list): strided reads it number by number, as
    tensor(list, dtype=bfloat16) does in both libraries: every NaN 0x7FC0."""
    for n in (1, 17, 40):
        x = _data(n, dtype)
        got = _sw(_setitem(st, n, x.tolist()))
        np.testing.assert_array_equal(got, _tw(torch.tensor(x.tolist(), dtype=torch.bfloat16)))
        assert not np.any(got == 0xFFFF)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_numpy_values_written_as_torch(dtype):
    """t[...] = array (PyTorch refuses an array): read in place as the tensor from_numpy makes of
    it, then as copy_ of that tensor."""
    def value(lib, a):
        return torch.from_numpy(a) if lib is torch else a

    for n in (5, 16, 40, 100):
        x = _data(2 * n, dtype)
        _check(lambda lib, x, n=n: _setitem(lib, n, value(lib, x[:n])), x)
        _check(lambda lib, x, n=n: _setitem(lib, n, value(lib, x[::2])), x)
        _check(lambda lib, x, n=n: _setitem(lib, n, value(lib, x[:n]), 2), x)

        def fortran(lib, x, n=n):
            d = lib.zeros(4, n, dtype=_bf(lib))
            d[...] = value(lib, np.asfortranarray(np.resize(x, (4, n))))
            return d

        _check(fortran, x)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_mean_bf16_result_words(dtype):
    """mean into bfloat16 (dtype=, out=, a bfloat16 input): PyTorch sums into a float32 copy of
    the result and converts it back with to()."""
    x = _data(6 * 40, dtype).reshape(6, 40)
    x[:, ::3] = np.nan
    _check(lambda lib, x: lib.mean(lib.tensor(x), 0, dtype=_bf(lib)), x)
    _check(lambda lib, x: lib.mean(lib.tensor(x), 1, dtype=_bf(lib)), x)
    _check(lambda lib, x: lib.mean(lib.tensor(x).to(_bf(lib)), 0), x)
    _check(lambda lib, x: lib.mean(lib.tensor(x).to(_bf(lib))), x)
    _check(lambda lib, x: lib.mean(lib.tensor(x), 0, out=lib.empty(40, dtype=_bf(lib))), x)
    _check(lambda lib, x: lib.mean(lib.tensor(x), 0, out=lib.empty(80, dtype=_bf(lib))[::2]), x)


def test_large_float64_rows_cut_per_thread():
    """Past the 32768-element grain a float64 copy's row is cut per thread, each piece with its
    own scalar tail (strided assumes torch_threads() threads; the fixture runs torch so)."""
    for n in (32767, 32768 * 2 + 37, 100_003):
        x = np.full(n, np.nan)
        x[::7] = 1.5
        _check(lambda lib, x: lib.tensor(x).to(_bf(lib)), x)
        _check(lambda lib, x: lib.zeros(len(x), dtype=_bf(lib)).copy_(lib.tensor(x)), x)
        _check(lambda lib, x: lib.tensor(x.astype(np.float32)).to(_bf(lib)), x)


def test_numbers_keep_their_bits_in_the_compiled_narrowing():
    """The compiled path (both one run) and the general one (ml_dtypes and the NaN rewrite)
    agree on every float32 bit pattern class: the fast path changes no number."""
    rng = np.random.default_rng(3)
    bits = np.concatenate([rng.integers(0, 1 << 32, 200_000, dtype=np.uint64).astype(np.uint32),
                           np.arange(0x7F7F0000, 0x7F800010, dtype=np.uint32),
                           np.arange(0, 0x20000, dtype=np.uint32), np.arange(0x80000000, 0x80020000, dtype=np.uint32)])
    x = bits.view(np.float32)
    fast = _sw(st.tensor(x).to(st.bfloat16))
    general = _sw(st.tensor(np.repeat(x, 2))[::2].to(st.bfloat16))
    finite = (bits & 0x7F800000) != 0x7F800000
    np.testing.assert_array_equal(fast[finite], general[finite])
    np.testing.assert_array_equal(fast, _tw(torch.from_numpy(x).to(torch.bfloat16)))


def test_compiled_kernel_off_gives_the_same_words():
    x = _data(1000, np.float64)
    with native.disabled():
        off = _sw(st.tensor(x).to(st.bfloat16))
    np.testing.assert_array_equal(off, _sw(st.tensor(x).to(st.bfloat16)))
    np.testing.assert_array_equal(off, _tw(torch.tensor(x).to(torch.bfloat16)))


def test_vector_rule_unit():
    """bf16_casts' decision spelled out on layouts: rows of stride 1 on both sides vector, any
    other row scalar, float64's tails scalar."""
    f32, f64 = np.dtype(np.float32), np.dtype(np.float64)
    assert bf16_casts._vector_elements((40,), (1,), (40,), (1,), f32) is True
    assert bf16_casts._vector_elements((40,), (1,), (40,), (2,), f32) is False
    assert bf16_casts._vector_elements((40,), (2,), (40,), (1,), f32) is False
    assert bf16_casts._vector_elements((40,), (1,), (1,), (0,), f32) is False
    assert bf16_casts._vector_elements((), (), (), (), f32) is False
    assert bf16_casts._vector_elements((1,), (1,), (1,), (5,), f32) is True
    assert bf16_casts._vector_elements((1,), (1,), (1,), (5,), f64) is False
    m = bf16_casts._vector_elements((40,), (1,), (40,), (1,), f64)
    np.testing.assert_array_equal(m, np.arange(40) < 32)
    assert bf16_casts._vector_elements((32,), (1,), (32,), (1,), f64) is True


@settings(max_examples=60, deadline=None)
@given(n=hs.integers(0, 200), start=hs.integers(0, 5), step=hs.integers(1, 3), f64=hs.booleans(),
       seed=hs.integers(0, 10_000), dst_step=hs.integers(1, 2))
def test_hypothesis_copy_slices(n, start, step, f64, seed, dst_step):
    dtype = np.float64 if f64 else np.float32
    x = _data(start + n * step, dtype, seed)

    def make(lib, x):
        src = lib.tensor(x)[start::step]
        d = lib.zeros(len(src) * dst_step, dtype=_bf(lib))[::dst_step]
        return d.copy_(src)

    _check(make, x)
    _check(lambda lib, x: lib.tensor(x)[start::step].to(_bf(lib)), x)


@pytest.mark.filterwarnings("ignore:Casting complex values")
@pytest.mark.parametrize("dtype", [np.float16, np.complex64, np.complex128])
def test_float16_and_complex_sources_scalar_everywhere(dtype):
    """float16 and complex sources convert through c10::convert (the scalar conversion) on every
    path: every NaN 0x7FC0, whatever its sign."""
    for n in (1, 16, 40, 1000):
        x = np.full(n, -np.nan, dtype)
        x[::3] = 1.5
        _check(lambda lib, x: lib.tensor(x).to(_bf(lib)), x)
        _check(lambda lib, x: lib.zeros(len(x), dtype=_bf(lib)).copy_(lib.tensor(x)), x)
        if dtype is np.float16:  # (tensor(complex data, dtype=real) is refused by strided on purpose)
            _check(lambda lib, x: lib.tensor(x, dtype=_bf(lib)), x)
            _check(lambda lib, x: lib.add(lib.tensor(x), 1, out=lib.empty(len(x), dtype=_bf(lib))), x)
            _check(lambda lib, x: lib.cat([lib.tensor(x)], out=lib.empty(0, dtype=_bf(lib))), x)
        assert not np.any(_sw(st.tensor(x).to(st.bfloat16)) == 0xFFC0)


def test_float64_overflow_is_quiet():
    """A float64 beyond float32's range rounds to inf silently (as PyTorch), in the compiled path too."""
    import warnings

    x = np.array([1e300, -1e300, np.nan, 1.0] * 8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = st.tensor(x).to(st.bfloat16)
        put = st.zeros(32, dtype=st.bfloat16).copy_(st.tensor(x))
        added = st.add(st.tensor(x), 0, out=st.empty(32, dtype=st.bfloat16))
    want = _tw(torch.tensor(x).to(torch.bfloat16))
    np.testing.assert_array_equal(_sw(got), want)
    np.testing.assert_array_equal(_sw(put), want)
    np.testing.assert_array_equal(_sw(added), want)


# out= into bfloat16 of float32/float64 inputs (PyTorch: the op into a contiguous temporary of
# the inputs' dtype, then copy_ into out; the joins: each part copied through its own)
OUT_OPS = {
    "addcmul": lambda lib, a, b, o: lib.addcmul(a, b, a, value=0.5, out=o),
    "addcdiv": lambda lib, a, b, o: lib.addcdiv(a, b, a, out=o),
    "lerp": lambda lib, a, b, o: lib.lerp(a, b, 0.25, out=o),
    "outer": lambda lib, a, b, o: lib.outer(a[0], b[1], out=o),
    "diff": lambda lib, a, b, o: lib.diff(a, dim=1, out=o),
    "kron": lambda lib, a, b, o: lib.kron(a[:2, :5], b[:2, :3], out=o),
    "hstack": lambda lib, a, b, o: lib.hstack([a, b], out=o),
    "hstack 1-d": lambda lib, a, b, o: lib.hstack([a[0], b[1][::2]], out=o),
    "vstack": lambda lib, a, b, o: lib.vstack([a[0], b], out=o),
    "dstack": lambda lib, a, b, o: lib.dstack([a, b], out=o),
    "stack dim 1": lambda lib, a, b, o: lib.stack([a, b], 1, out=o),
    "atan2": lambda lib, a, b, o: lib.atan2(a, b, out=o),
    "sigmoid": lambda lib, a, b, o: lib.sigmoid(a, out=o),
    "mean dim 1": lambda lib, a, b, o: lib.mean(a, 1, out=o),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("op", list(OUT_OPS))
def test_out_casts_match_torch(op, dtype):
    for cols in (3, 17, 40, 70):
        x = _data(4 * cols, dtype).reshape(4, cols)

        def make(lib, x, cols=cols):
            a = lib.tensor(x)
            b = lib.tensor(np.ascontiguousarray(x[::-1]))
            return OUT_OPS[op](lib, a, b, lib.empty(0, dtype=_bf(lib)))

        _check(make, x)


def test_nan_ones_kernel_word_both_copies():
    """_halfkernel.nan_ones(a, word): every NaN word (either sign, any payload) made ``word``,
    numbers and infinities untouched, in the baseline and the AVX2 copies alike."""
    k = native.half()
    if k is None:
        pytest.skip("compiled kernels off")
    words = np.arange(1 << 16, dtype=np.uint16)
    nan = (words & 0x7FFF) > 0x7F80
    try:
        for wide in (False, True):
            k.select(wide)
            for word in (0xFFFF, 0x7FC0):
                a = words.copy().view(st.bfloat16.numpy)
                assert k.nan_ones(a, word) is a
                np.testing.assert_array_equal(a.view(np.uint16), np.where(nan, word, words))
            a = words.copy().view(st.bfloat16.numpy)
            k.nan_ones(a)
            np.testing.assert_array_equal(a.view(np.uint16), np.where(nan, 0xFFFF, words))
        with pytest.raises(ValueError, match="beyond 16 bits"):
            k.nan_ones(words.copy(), 1 << 16)
    finally:
        k.select(True)
