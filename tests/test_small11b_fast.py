"""Small-op fast paths of issue 23 (matrix times vector, prod along the last dim, the NaN test of
the compiled reductions): each fast path against its general path (the fast path monkeypatched
off) bit for bit -- dtype, shape, strides, offset, bytes -- and against PyTorch (values, errors,
gradients), on the layouts at its boundaries: row-major, transposed, sliced, offset, strided
vectors, zero sizes, size-1 dims, inf / NaN / signed zeros."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as hs

import strided
from oracle_helpers import case
from strided.kernels import native
from strided.kernels.reduce import holds_nan, row_products
from strided.ops.linalg import matkernel as MK
from strided.ops.linalg import matmul as M
from strided.ops.linalg import products as P
from strided.ops.reductions import sums

torch.set_num_threads(1)
RNG = np.random.default_rng(1123)


def _bits(t: strided.Tensor) -> tuple:
    """Everything a fast path must reproduce: dtype, layout, and the exact bytes of the elements."""
    return t.dtype, t.shape, t.stride(), t.storage_offset(), t.numpy().tobytes()


def _values(shape: tuple[int, ...], dtype: type, special: bool = False) -> np.ndarray:
    v = (RNG.standard_normal(shape) * 3).astype(dtype)
    if special and v.size >= 4:
        v.reshape(-1)[:4] = [np.inf, np.nan, -0.0, 1e38]  # (1e38: overflows float32 in a product)
    return v


def _layouts(a: np.ndarray) -> list:
    """``a`` as strided and torch tensors of several layouts: row-major, at an offset, the
    transpose of a row-major copy, every other element of a bigger tensor."""
    out = []
    for lib in (strided, torch):
        plain = lib.tensor(a)
        flat = np.concatenate([np.zeros(3, a.dtype), a.reshape(-1)])
        offset = lib.tensor(flat)[3:].view(a.shape)
        transposed = lib.tensor(np.ascontiguousarray(a.T)).t() if a.ndim == 2 else plain
        wide = lib.tensor(np.repeat(a, 2, axis=-1))[..., ::2] if a.ndim else plain
        out.append((plain, offset, transposed, wide))
    return list(zip(*out, strict=True))


# ---------------------------------------------------------------- mv, matmul (2-D @ 1-D)

MV_SHAPES = [(3, 4), (16, 16), (1, 1), (5, 1), (1, 7), (0, 3), (3, 0), (0, 0)]


@contextmanager
def _mv_general(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The general path of mv / matmul: the fast path declines every call."""
    with monkeypatch.context() as m:
        m.setattr(P, "fast_mv", lambda *a: None)
        m.setattr(M, "fast_mv", lambda *a: None)
        MK.switch_off(m.setattr)
        yield


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", MV_SHAPES)
@pytest.mark.parametrize("special", [False, True])
def test_mv_fast_path_is_the_general_path_and_torchs(dtype, shape, special, monkeypatch):
    mats = _layouts(_values(shape, dtype, special))
    vecs = _layouts(_values(shape[1:], dtype, special))
    for (sa, ta), (sv, tv) in ((m, v) for m in mats for v in vecs):
        for call in (lambda a, v: a.mv(v), lambda a, v: a.matmul(v), lambda a, v: a @ v,
                     lambda a, v: (strided if isinstance(a, strided.Tensor) else torch).mv(a, v)):
            fast = call(sa, sv)
            with _mv_general(monkeypatch):
                slow = call(sa, sv)
            assert _bits(fast) == _bits(slow)
            expect = call(ta, tv)
            assert fast.shape == tuple(expect.shape) and fast.stride() == expect.stride()
            np.testing.assert_allclose(fast.numpy(), expect.numpy(), rtol=1e-4, atol=1e-4, equal_nan=True)


@pytest.mark.parametrize("a_dtype,v_dtype", [(np.float32, np.float64), (np.float64, np.float32),
                                             (np.int64, np.int64), (np.float32, np.int64)])
def test_mv_other_dtypes_leave_the_fast_path_as_torch(a_dtype, v_dtype):
    a, v = _values((3, 4), np.float64).astype(a_dtype), _values((4,), np.float64).astype(v_dtype)
    try:
        expect = torch.mv(torch.tensor(a), torch.tensor(v))
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as got:
            strided.mv(strided.tensor(a), strided.tensor(v))
        assert str(got.value).splitlines()[0] == str(e).splitlines()[0]
        return
    got = strided.mv(strided.tensor(a), strided.tensor(v))
    assert got.dtype.name == str(expect.dtype).split(".")[1]
    np.testing.assert_array_equal(got.numpy(), expect.numpy())


@pytest.mark.parametrize("shapes", [((3, 4), (3,)), ((3, 4), (4, 1)), ((4,), (4,)), ((2, 3, 4), (4,))])
def test_mv_shape_errors_and_other_ranks_as_torch(shapes):
    a, v = _values(shapes[0], np.float32), _values(shapes[1], np.float32)
    for fn in ("mv", "matmul"):
        try:
            expect = getattr(torch, fn)(torch.tensor(a), torch.tensor(v))
        except RuntimeError as e:
            with pytest.raises(RuntimeError) as got:
                getattr(strided, fn)(strided.tensor(a), strided.tensor(v))
            assert str(got.value).splitlines()[0] == str(e).splitlines()[0]
            continue
        got = getattr(strided, fn)(strided.tensor(a), strided.tensor(v))
        assert got.shape == tuple(expect.shape)
        np.testing.assert_allclose(got.numpy(), expect.numpy(), rtol=1e-5, atol=1e-5)


def test_mv_out_aliasing_and_gradients_as_torch():
    a, v = _values((3, 4), np.float32), _values((4,), np.float32)
    out = strided.empty(3)
    res = strided.mv(strided.tensor(a), strided.tensor(v), out=out)
    assert res is out
    np.testing.assert_allclose(out.numpy(), torch.mv(torch.tensor(a), torch.tensor(v)).numpy(), rtol=1e-6)
    sa, sv = strided.tensor(a, requires_grad=True), strided.tensor(v, requires_grad=True)
    ta, tv = torch.tensor(a, requires_grad=True), torch.tensor(v, requires_grad=True)
    for s_call, t_call in ((sa.mv(sv), ta.mv(tv)), (sa @ sv, ta @ tv)):
        assert s_call.requires_grad and s_call.grad_fn is not None
        s_call.sum().backward()
        t_call.sum().backward()
    np.testing.assert_allclose(sa.grad.numpy(), ta.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(sv.grad.numpy(), tv.grad.numpy(), rtol=1e-6)
    with strided.no_grad():
        assert sa.mv(sv).grad_fn is None
    x = strided.tensor(a)
    r = x.mv(strided.tensor(v))
    assert r.data_ptr() != x.data_ptr()  # (fresh memory, not a view of the input)


# ---------------------------------------------------------------- prod over the last dim


@contextmanager
def _prod_general(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """prod's path before the last-dim fast path: the row-major run declined."""
    with monkeypatch.context() as m:
        m.setattr(sums, "row_products", lambda *a: None)
        yield


@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (5,), (2, 3, 4), (3, 1), (1, 3), (0, 4), (4, 0), (1, 2)])
def test_prod_last_dim_fast_path_is_the_general_path_and_torchs(shape, monkeypatch):
    for dtype, special in itertools.product(
            [np.float32, np.float64],
            [False, True]):
        with case(dtype=dtype, special=special), monkeypatch.context() as mp:
            _prod_last_dim_fast_path_is_the_general_path_and_torchs(dtype, shape, special, mp)


def _prod_last_dim_fast_path_is_the_general_path_and_torchs(dtype, shape, special, monkeypatch):
    for sx, tx in _layouts(_values(shape, dtype, special)):
        for dim in range(-len(shape), len(shape)):
            for keepdim in (False, True):
                fast = sx.prod(dim, keepdim=keepdim)
                with _prod_general(monkeypatch):
                    slow = sx.prod(dim, keepdim=keepdim)
                assert _bits(fast) == _bits(slow)
                with native.disabled():
                    assert _bits(sx.prod(dim, keepdim=keepdim)) == _bits(fast)
                expect = tx.prod(dim, keepdim=keepdim)
                assert fast.shape == tuple(expect.shape) and fast.stride() == expect.stride()
                np.testing.assert_allclose(fast.numpy(), expect.numpy(), rtol=1e-4, atol=1e-30, equal_nan=True)


def test_prod_last_dim_gradients_and_dtype_as_torch():
    a = _values((3, 4), np.float32)
    s, t = strided.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    s.prod(1).sum().backward()
    t.prod(1).sum().backward()
    np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=1e-5)
    got = strided.tensor(a).prod(-1, dtype=strided.float64)
    assert got.dtype == strided.float64
    assert strided.tensor(a.astype(np.int32)).prod(1).dtype == strided.int64


@settings(max_examples=200, deadline=None)
@given(hs.lists(hs.floats(width=32, allow_nan=True, allow_infinity=True), min_size=1, max_size=40),
       hs.sampled_from([np.float32, np.float64]))
@example([1.0] * 8 + [3.0, 3.0, 9.0, 9.0, 9.0, 1e-05, 7.72217686853268e-18, 1.0], np.float64)
@example([0.0] * 6 + [985372884992.0] + [0.0] * 7 + [1.0] + [0.0] * 7 + [6.013730314990387e16] + [0.0] * 7
         + [5742418944.0, 0.0], np.float32)
def test_holds_nan_is_isnan_any(values, dtype):
    run = np.array(values, dtype)
    assert holds_nan(run) == bool(np.isnan(run).any())
    n = len(values)
    got = row_products(run, n) if n >= 2 else None
    if got is not None:  # (a NaN product is NumPy's to compute: the kernel declines it)
        # (PyTorch's product is the oracle: NumPy's order differs in the last bit now and then,
        # e.g. float64 [1.0] * 8 + [3, 3, 9, 9, 9, 1e-05, 7.72217686853268e-18, 1.0])
        want = torch.from_numpy(run.reshape(1, n)).prod(1).numpy()
        assert np.isnan(got[0]) == np.isnan(want[0])  # (the second example: PyTorch's lanes meet inf * 0)
        if np.isnan(run).any():
            return  # (a NaN operand's sign bit may differ: README's NaN bits)
        assert got.tobytes() == want.tobytes()  # (inf * 0's NaN included: the CPU's default NaN in both)


# ---------------------------------------------------------------- tensor(a_tensor)

_TENSOR_DTYPES = ["float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool", "complex64",
                  "complex128", "bfloat16", "float16", "uint16", "uint32", "uint64"]


def _source(a: np.ndarray, dtype: str) -> list:
    """``a`` as strided tensors of ``dtype``: row-major, at an offset, transposed, stepped, 0-d."""
    base = strided.tensor(a).to(getattr(strided, dtype))
    flat = strided.tensor(np.concatenate([np.zeros(3), a.reshape(-1)])).to(getattr(strided, dtype))
    return [base, flat[3:].view(a.shape), base.t(), base[:, ::2], base[0, 0], base[:0], base.reshape(1, -1, 1)]


@pytest.mark.parametrize("dtype", _TENSOR_DTYPES)
def test_tensor_of_a_tensor_fast_copy_is_the_general_path(dtype, monkeypatch):
    import strided.creation as C

    a = _values((3, 4), np.float64) * 10
    for src in _source(a, dtype):
        with pytest.warns(UserWarning, match="copy construct"):
            fast = strided.tensor(src)
        with monkeypatch.context() as m:
            m.setattr(C, "_rowmajor_copy", lambda t: None)
            with pytest.warns(UserWarning, match="copy construct"):
                slow = strided.tensor(src)
        assert _bits(fast) == _bits(slow)
        assert fast.untyped_storage().data_ptr() != src.untyped_storage().data_ptr()  # (a copy)
        assert not fast.requires_grad and fast.grad_fn is None


def test_tensor_of_a_tensor_fast_copy_keeps_the_rest_as_torch():
    import warnings

    a = _values((3, 4), np.float32)
    s, t = strided.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, expect = strided.tensor(s), torch.tensor(t)
        assert got.requires_grad is expect.requires_grad and got.grad_fn is None
        got, expect = strided.tensor(s.detach(), requires_grad=True), torch.tensor(t.detach(), requires_grad=True)
        assert got.requires_grad and got.is_leaf
        assert strided.tensor(s.detach(), dtype=strided.float64).dtype == strided.float64
        x = strided.tensor(a)
        y = strided.tensor(x)
        y.add_(1)  # (new memory: the source is unchanged)
        np.testing.assert_array_equal(x.numpy(), a)
        with strided.record_copies() as copies:
            strided.tensor(x)
        assert len(copies) == 1 and copies[0].nbytes == a.nbytes


# ---------------------------------------------------------------- sgn of complex tensors


def _sgn_reference(z: np.ndarray) -> np.ndarray:
    """The kernel's formula with every keyword spelt out: each part divided by hypot(re, im) in
    z's part dtype (PyTorch's vectorized loop), 0 where that is 0."""
    out = np.empty_like(z)
    with np.errstate(all="ignore"):
        size = np.hypot(z.real, z.imag)
        out.real, out.imag = z.real / size, z.imag / size
        np.copyto(out, 0, where=size == 0)
    return out


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_sgn_is_the_kernel_formula_and_torchs(dtype):
    z = (_values((4, 5), np.float64) + 1j * _values((4, 5), np.float64)).astype(dtype)
    z.reshape(-1)[:8] = [0, -0.0 + 0j, complex(np.inf, 1), complex(np.nan, 0), 1e-45j, complex(0, -0.0),
                         complex(3e38, 3e38), 1]
    for sz, tz in _layouts(z):
        got = sz.sgn()
        expect = tz.sgn()
        # (the bits, signed zeros and NaN payloads too: PyTorch's vectorized loop's formula, and its
        # scalar loop's where it runs it, unary_more._sgn_scalar_loop)
        assert got.numpy().tobytes() == expect.numpy().tobytes()
        assert got.shape == tuple(expect.shape) and got.stride() == expect.stride()
        inplace, t_inplace = sz.clone(), tz.clone()
        inplace.sgn_()
        t_inplace.sgn_()
        assert inplace.numpy().tobytes() == t_inplace.numpy().tobytes()
    plain = (_values((4, 5), np.float64) + 1j * _values((4, 5), np.float64)).astype(dtype)
    plain.reshape(-1)[:2] = [0, -0.0]  # (PyTorch's own inf / subnormal rules differ: finite values here)
    for sz, tz in _layouts(plain):
        np.testing.assert_allclose(sz.sgn().numpy(), tz.sgn().numpy(), rtol=1e-6, atol=0)
    no_zero = strided.tensor(np.full((2, 2), 1 + 1j, dtype))  # (no zero: the where-copy skipped)
    np.testing.assert_array_equal(no_zero.sgn().numpy(), _sgn_reference(no_zero.numpy()))
