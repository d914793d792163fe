"""The factories' one-call fast path (``strided.dispatch.fresh_filled``, the copy kernel's
``fresh`` where built) and F.leaky_relu's compiled front: the same tensors as the Python
reference and as PyTorch, and the same None (the general path runs) for every call it must not take."""

import numpy as np
import pytest
import torch

import strided as st
import strided.nn.functional as F
from strided import dispatch
from strided.dispatch import _fresh_filled_python, _result_plans, fresh_filled
from strided.ops._support.front import fallback_of


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return (a.dtype is b.dtype and a._layout == b._layout and a._base is None and b._base is None
            and a._storage.array.dtype == b._storage.array.dtype
            and a._storage.array.tobytes() == b._storage.array.tobytes())


@pytest.mark.parametrize("sizes", [((3, 4),), (3, 4), ((16, 16),), (16, 16), ((),), (), ((3, True),), ((3, 4.0),),
                                   (np.int64(3), 4), (((3, 4),),), ([3, 4],), ((7, 11, 13),), (2**62, 3)])
@pytest.mark.parametrize("maker,np_dtype,value,dtype", [
    (np.empty, np.dtype(np.float32), 2.5, st.float32), (np.empty, np.dtype(np.float32), 0.1, st.float32),
    (np.zeros, np.dtype(np.float64), None, st.float64), (np.empty, np.dtype(np.int64), -7, st.int64),
    (np.empty, np.dtype(np.bool_), 1, st.bool_)])
def test_the_kernel_makes_what_the_reference_makes(sizes, maker, np_dtype, value, dtype):
    for shape in ((3, 4), (16, 16), (), (7, 11, 13)):
        st.zeros(shape)  # (the general path remembers these layouts)
    try:
        st.zeros(2**62, 3)  # (a plan remembered before its allocation fails: beyond any limit)
    except RuntimeError:
        pass
    for limit in (0, 12, 255, 256, 1 << 16):
        got = fresh_filled(sizes, _result_plans, limit, maker, np_dtype, value, dtype)
        want = _fresh_filled_python(sizes, _result_plans, limit, maker, np_dtype, value, dtype)
        assert _same(got, want), (sizes, limit)


def test_the_kernel_is_built_where_adopt_is():
    assert (fresh_filled is _fresh_filled_python) == (dispatch._ADOPT is None)


_VALUES = [2.0, 0.1, -1e-42, 3.4028234663852886e38, 1e-50, float("nan"), -0.0, 1.0000000596046448]


@pytest.mark.parametrize("value", _VALUES + [3, -(2**63), 2**63 - 1, True])
@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (128, 128)])
def test_full_and_new_full_give_torchs_tensor(value, shape):
    torch.set_num_threads(1)
    for _ in range(2):  # (the second call: the remembered layout's fast path)
        got, want = st.full(shape, value), torch.full(shape, value)
        assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
        assert got.stride() == want.stride() and got.numpy().tobytes() == want.numpy().tobytes()
        if isinstance(value, float):
            for d, td in ((st.float32, torch.float32), (st.float64, torch.float64)):
                got = st.zeros(1, dtype=d).new_full(shape, value)
                want = torch.zeros(1, dtype=td).new_full(shape, value)
                assert got.dtype is d and got.stride() == want.stride()
                assert got.numpy().tobytes() == want.numpy().tobytes()
                got = st.full_like(st.zeros(shape, dtype=d), value)
                want = torch.full_like(torch.zeros(shape, dtype=td), value)
                assert got.dtype is d and got.numpy().tobytes() == want.numpy().tobytes()


@pytest.mark.parametrize("dtype", [st.float32, st.float64, st.int32, st.int64, st.bool_, st.complex64, st.float16])
@pytest.mark.parametrize("sizes", [((3, 4),), (3, 4), ((16, 16),), ((200, 200),)])
def test_new_zeros_and_new_ones_give_the_factories_tensor(dtype, sizes):
    x = st.zeros(2, dtype=dtype)
    for _ in range(2):
        for new, factory in ((x.new_zeros, st.zeros), (x.new_ones, st.ones)):
            got, want = new(*sizes), factory(*sizes, dtype=dtype)
            assert got.dtype is dtype and got.stride() == want.stride()
            assert got.numpy().tobytes() == want.numpy().tobytes()


def test_a_bad_dtype_with_bad_sizes_raises_the_size_error_first():
    with pytest.raises(Exception) as general:
        st.zeros("a", dtype="no such dtype")
    assert "size" in str(general.value)


def test_leaky_relu_default_call_is_a_front_with_the_fallbacks_bits(room_in_the_dense_memo):
    a = np.array([[-1.5, 0.0, -0.0, 2.0], [np.nan, -np.inf, np.inf, -1e-30], [3.0, -3.0, 0.5, -0.5]], np.float32)
    from strided.kernels import native

    assert (fallback_of(F.leaky_relu) is not F.leaky_relu) == (native.special() is not None)  # (a front where built)
    for arr in (a, a.astype(np.float64), a.T.copy().T, a.astype(np.float64).T):
        x = st.from_numpy(arr)
        got, want = F.leaky_relu(x), fallback_of(F.leaky_relu)(x)
        assert got.stride() == want.stride() and got.numpy().tobytes() == want.numpy().tobytes()
        ref = torch.nn.functional.leaky_relu(torch.from_numpy(arr))
        assert got.stride() == ref.stride() and got.numpy().tobytes() == ref.numpy().tobytes()


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (5,)])
def test_complex_sgn_front_kernel_gives_the_fallbacks_bits(dtype, shape):
    from strided.ops.elementwise import unary_more

    rng = np.random.default_rng(7)
    z = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    z.flat[0], z.flat[-1] = 0, complex(np.inf, 1.0)
    z.flat[1] = complex(np.nan, 2.0)
    for _ in range(2):  # (the first complex call gives the front its compiled pass)
        x = st.from_numpy(z)
        got, want = x.sgn(), fallback_of(st.Tensor.sgn)(x)
        assert got.stride() == want.stride() and got.numpy().tobytes() == want.numpy().tobytes()
        if dtype is np.complex64:  # (complex128's |z| is the C library's hypot, not always PyTorch's: see complex_abs)
            torch.set_num_threads(1)
            assert got.numpy().tobytes() == torch.from_numpy(z).sgn().numpy().tobytes()
    assert any(t[getattr(st, np.dtype(dtype).name)][3] is not None for t in unary_more._SGN_TABLES) or \
        st.kernels.native.special() is None


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32, np.bool_])
def test_take_along_dim_by_the_compiled_gather_gives_torchs_tensor(dtype):
    rng = np.random.default_rng(11)
    for shape in [(3, 4), (16, 16), (2, 3, 5), (7,)]:
        a = (rng.standard_normal(shape) * 10).astype(dtype)
        for dim in range(-len(shape), len(shape)):
            for width in (1, shape[dim], shape[dim] + 2):
                ishape = shape[:dim % len(shape)] + (width,) + shape[dim % len(shape) + 1:]
                for low in (0, -shape[dim]):  # (negative indices count from the end: the general path)
                    idx = rng.integers(low, shape[dim], ishape)
                    got = st.take_along_dim(st.from_numpy(a), st.from_numpy(idx), dim=dim)
                    want = torch.take_along_dim(torch.from_numpy(a), torch.from_numpy(idx), dim=dim)
                    assert got.stride() == want.stride() and got.numpy().tobytes() == want.numpy().tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logsumexp_with_infinite_rows_gives_torchs_tensor(dtype):
    a = np.array([[1.0, 2.0, 3.0], [-np.inf, -np.inf, -np.inf], [np.inf, 1.0, 2.0], [np.nan, 1.0, -np.inf],
                  [-np.inf, 0.5, 80.0]], dtype)
    torch.set_num_threads(1)
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            got = st.logsumexp(st.from_numpy(a), dim=dim, keepdim=keepdim)
            want = torch.logsumexp(torch.from_numpy(a), dim=dim, keepdim=keepdim)
            assert got.stride() == want.stride()
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=0)


_INT_OPS = ["add", "sub", "mul", "bitwise_and", "bitwise_or", "bitwise_xor", "eq", "ne", "lt", "le", "gt", "ge"]


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_])
@pytest.mark.parametrize("name", _INT_OPS)
def test_integer_tensor_with_a_python_int_gives_torchs_tensor(dtype, name):
    """op(t, int) on integer tensors (the fast path for ints the dtype holds; the general path for
    the rest): PyTorch's values (wrapping), dtype and strides, row-major and transposed."""
    info = np.iinfo(dtype) if dtype is not np.bool_ else None
    rng = np.random.default_rng(5)
    lo, hi = (info.min, info.max) if info else (0, 1)
    a = rng.integers(lo, hi, (3, 4), endpoint=True).astype(dtype)
    a.flat[:2] = (lo, hi)
    values = [0, 1, -1, 7, lo, hi, lo - 1, hi + 1, 2**40, True, -(2**63)] if info else [0, 1, 2, True]
    for arr in (a, a.T.copy().T, a[:, :1]):
        for v in values:
            try:
                want = getattr(torch, name)(torch.from_numpy(arr), v)
            except (RuntimeError, TypeError, OverflowError) as e:
                with pytest.raises(type(e) if not isinstance(e, RuntimeError) else RuntimeError):
                    getattr(st, name)(st.from_numpy(arr), v)
                continue
            for _ in range(2):
                got = getattr(st, name)(st.from_numpy(arr), v)
                assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1], (name, v)
                assert got.stride() == want.stride(), (name, v)
                assert got.numpy().tobytes() == want.numpy().tobytes(), (name, v)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_])
def test_python_int_with_an_integer_tensor_gives_torchs_tensor(dtype):
    """The reflected int op t (``1 - t``, ``3 + t``, ``2 * t``): PyTorch's values, dtype and strides."""
    info = np.iinfo(dtype) if dtype is not np.bool_ else None
    lo, hi = (info.min, info.max) if info else (0, 1)
    a = np.random.default_rng(6).integers(lo, hi, (3, 4), endpoint=True).astype(dtype)
    for arr in (a, a.T.copy().T):
        for v in ([0, 1, -1, lo, hi, lo - 1, hi + 1, True] if info else [0, 1, 2]):
            for f in (lambda p, q: q - p, lambda p, q: q + p, lambda p, q: q * p):
                try:
                    want = f(torch.from_numpy(arr), v)
                except (RuntimeError, TypeError, OverflowError):
                    with pytest.raises((RuntimeError, TypeError, OverflowError)):
                        f(st.from_numpy(arr), v)
                    continue
                got = f(st.from_numpy(arr), v)
                assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1] and got.stride() == want.stride()
                assert got.numpy().tobytes() == want.numpy().tobytes(), v


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["fmax", "fmin", "copysign"])
def test_binary_exact_front_entries_give_the_fallbacks_bits(dtype, name, room_in_the_dense_memo):
    rng = np.random.default_rng(9)
    special = np.array([0.0, -0.0, 1.5, -2.0, np.nan, -np.nan, np.inf, -np.inf], dtype)
    for shape in [(3, 4), (16, 16), (7,)]:
        a, b = rng.choice(special, shape), rng.choice(special, shape)
        for p, q in ((a, b), (a.T.copy().T, b.T.copy().T)) if len(shape) == 2 else ((a, b),):
            x, y = st.from_numpy(p), st.from_numpy(q)
            got, want = getattr(st, name)(x, y), fallback_of(getattr(st, name))(x, y)
            assert got.stride() == want.stride() and got.numpy().tobytes() == want.numpy().tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_extreme_front_entries_give_torchs_bits(dtype, name, room_in_the_dense_memo):
    rng = np.random.default_rng(10)
    special = np.array([0.0, -0.0, 1.5, -2.0, np.nan, np.inf, -np.inf], dtype)
    torch.set_num_threads(1)
    for shape in [(3, 4), (16, 16), (7,), (5, 33)]:
        a, b = rng.choice(special, shape), rng.choice(special, shape)
        for p, q in ((a, b), (a.T.copy().T, b.T.copy().T)) if len(shape) == 2 else ((a, b),):
            x, y = st.from_numpy(p), st.from_numpy(q)
            got, want = getattr(st, name)(x, y), fallback_of(getattr(st, name))(x, y)
            assert got.stride() == want.stride() and got.numpy().tobytes() == want.numpy().tobytes()
            ref = getattr(torch, name)(torch.from_numpy(p), torch.from_numpy(q))
            assert got.stride() == ref.stride() and got.numpy().tobytes() == ref.numpy().tobytes()


def test_holds_nan_answers_as_isnan_any():
    """holds_nan (the copy kernel's any_nan on float32/float64 runs, Python's test otherwise)."""
    from strided.kernels.reduce import holds_nan

    rng = np.random.default_rng(12)
    for dtype in (np.float32, np.float64, np.float16):
        for n in (1, 3, 16, 32, 33, 100):
            a = rng.standard_normal(n).astype(dtype)
            for extra in (None, np.nan, np.inf, -np.inf):
                b = a.copy()
                if extra is not None:
                    b[rng.integers(n)] = extra
                for run in (b, b[::-1].copy(), b.reshape(1, -1)):
                    assert holds_nan(run) == bool(np.isnan(run).any()), (dtype, n, extra)
    raw = np.zeros(4 * 16 + 1, np.uint8)[1:].view(np.float32)  # (a misaligned run: Python's test)
    raw[5] = np.nan
    assert holds_nan(raw)
