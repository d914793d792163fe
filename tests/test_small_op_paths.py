"""The small-op fast paths' machinery (issue 7, speed): the quiet context that silences NumPy's
floating-point warnings for one call, and the cheaper product the small-matmul path uses."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest
import torch

import strided
from blas_reference import reference_matmul
from strided.kernels.fpstate import quiet_call, quietly
from strided.kernels.matmul import dot2d, matmul2d
from strided.ops.linalg.matmul import fast_product


def test_quietly_silences_floating_point_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = quietly(np.divide, np.ones(3, np.float32), np.zeros(3, np.float32))
    assert np.isinf(out).all()


def test_quiet_context_leaves_the_callers_error_state_alone():
    with np.errstate(divide="raise"):
        quietly(np.divide, np.ones(1), np.zeros(1))
        with pytest.raises(FloatingPointError):
            np.divide(np.ones(1), np.zeros(1))


def test_quietly_reentered_falls_back_to_the_callers_context():
    # A call made while the shared context is entered (a callback, another thread) cannot enter
    # it again: it silences the warnings in its own context instead.
    def inner() -> np.ndarray:
        return quietly(np.multiply, np.full(2, 3e38, np.float32), np.float32(10))

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = quiet_call(inner)
    assert np.isinf(out).all()


def test_quietly_runs_once_and_propagates_the_calls_own_errors():
    calls = []

    def failing() -> None:
        calls.append(1)
        raise RuntimeError("from the call itself")

    with pytest.raises(RuntimeError, match="from the call itself"):
        quietly(failing)
    assert calls == [1]
    with pytest.raises(ValueError):
        quietly(np.add, np.ones(2), np.ones(3))


def test_fast_paths_overflow_silently_under_warnings_as_errors():
    big = strided.tensor([[3e38, -3e38]], dtype=strided.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isinf((big * 10.0).numpy()).all()
        assert np.isinf((big + big).numpy()).all()
        assert np.isinf(strided.exp(big * 1.0).numpy())[0, 0]
        assert np.isinf(strided.tensor([3e38, 3e38], dtype=strided.float32).sum().item())


def test_small_ops_from_many_threads():
    # Threads share the quiet context; a thread that finds it entered falls back (no error).
    a = strided.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    big = strided.tensor(np.ones(2_000_000, np.float32))  # a long ufunc releases the GIL
    errors = []

    def work() -> None:
        try:
            for _ in range(300):
                np.testing.assert_array_equal((a + a).numpy(), 2 * a.numpy())
                assert (big + big).shape == (2_000_000,)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dot2d_is_matmul_bit_for_bit(dtype):
    # The small-matmul fast path multiplies with ndarray.dot when every dim is >= 2 (see
    # kernels.matmul): the same BLAS call as np.matmul, including inf, NaN and signed zeros.
    rng = np.random.default_rng(7)
    for trial in range(300):
        m, k, p = (int(v) for v in rng.integers(2, 40, 3))
        a = (rng.standard_normal((m, k)) * 10.0 ** rng.integers(-20, 20)).astype(dtype)
        b = (rng.standard_normal((k, p)) * 10.0 ** rng.integers(-20, 20)).astype(dtype)
        if trial % 2:
            a.flat[rng.integers(0, a.size, 3)] = rng.choice([np.nan, np.inf, -np.inf, -0.0], 3)
        with np.errstate(all="ignore"):
            expected, got = matmul2d(a, b), dot2d(a, b)
        assert got.dtype == expected.dtype and got.flags.c_contiguous
        assert got.tobytes() == expected.tobytes(), (m, k, p)


def test_small_matmul_matches_the_general_path():
    rng = np.random.default_rng(3)
    for shape_a, shape_b in [((3, 4), (4, 3)), ((1, 4), (4, 3)), ((3, 1), (1, 5)), ((2, 2), (2, 1))]:
        a = rng.standard_normal(shape_a).astype(np.float32)
        b = rng.standard_normal(shape_b).astype(np.float32)
        got = (strided.tensor(a) @ strided.tensor(b)).numpy()
        np.testing.assert_array_equal(got, np.matmul(a, b))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_small_matmul_of_transposed_operands_is_the_general_paths_product(dtype):
    # x @ w.t() (a Linear layer) takes the fast path with the operand's transposed view: the
    # np.matmul call the general path makes on the same views, so the same bits; where the MKL
    # route takes the product (8 x 16 x 8 here) PyTorch's bits (its gemm on the same views), which
    # NumPy's OpenBLAS gives too on an AVX-512 CPU but not on an AVX2 one
    rng = np.random.default_rng(11)
    shapes = [(3, 4, 5), (1, 4, 3), (3, 1, 5), (2, 2, 1), (5, 3, 1), (1, 1, 1), (8, 16, 8)]
    for m, k, p in shapes:
        for ta in (False, True):
            for tb in (False, True):
                a = (rng.standard_normal((k, m) if ta else (m, k)) * 1e3).astype(dtype)
                b = (rng.standard_normal((p, k) if tb else (k, p)) * 1e3).astype(dtype)
                a.flat[0] = np.nan if ta else -0.0
                sa, sb = strided.tensor(a), strided.tensor(b)
                sa, sb = (sa.t() if ta else sa), (sb.t() if tb else sb)
                na, nb = (a.T if ta else a), (b.T if tb else b)
                assert fast_product(sa, sb) is not None  # (the path under test)
                got = sa @ sb
                with np.errstate(all="ignore"):
                    expected = reference_matmul(na, nb)  # (PyTorch's where the MKL route takes it)
                assert got.shape == (m, p) and got.stride() == (p, 1)
                assert got.numpy().tobytes() == expected.tobytes(), (m, k, p, ta, tb)
                tt = torch.from_numpy(a.copy())
                tt = tt.t() if ta else tt
                tu = torch.from_numpy(b.copy())
                tu = tu.t() if tb else tu
                assert (tt @ tu).stride() == got.stride()


def test_matmul_takes_other_by_keyword_like_torch():
    a, b = strided.ones(2, 3), strided.ones(3, 2)
    ta, tb = torch.ones(2, 3), torch.ones(3, 2)
    assert a.matmul(other=b).shape == tuple(ta.matmul(other=tb).shape)
    assert strided.matmul(a, other=b).shape == tuple(torch.matmul(ta, other=tb).shape)
    with pytest.raises(TypeError, match=r"^matmul\(\) missing 1 required positional argument: 'other'"):
        strided.matmul(a)


@pytest.mark.parametrize("call", [lambda x: x ** 2, lambda x: x.pow(2), lambda x: x.pow(2.0), lambda x: x ** 300])
@pytest.mark.parametrize("shape,strides", [((1, 3), (1, 1)), ((4, 3, 1, 3), (9, 1, 3, 3))])
def test_pow_with_a_number_lays_out_its_result_as_torch(call, shape, strides):
    s = strided.zeros(100).as_strided(shape, strides)
    t = torch.zeros(100).as_strided(shape, strides)
    assert call(s).stride() == call(t).stride()


@pytest.mark.parametrize(
    "call",
    [
        lambda m, a: a.sub(other=a),
        lambda m, a: m.sub(input=a, other=a),
        lambda m, a: m.exp(input=a),
        lambda m, a: a.eq(other=a),
        lambda m, a: m.maximum(input=a, other=a),
        lambda m, a: m.mul(a, other=2.0),
    ],
)
def test_fast_paths_keep_pytorchs_argument_names(call):
    ours, peer = call(strided, strided.ones(2, 3)), call(torch, torch.ones(2, 3))
    np.testing.assert_allclose(ours.numpy(), peer.numpy(), rtol=1e-6)  # (exp: last-ulp differences)


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
def test_more_unary_fast_path_matches_the_table_kernels(dtype):
    # unary_more's fast path (a row-major float input) computes each op with its own spelling of
    # the row's kernel: bit for bit the slow path's result, dtype and (row-major) strides.
    from strided.ops.elementwise import unary_more as M

    values = np.array([[-2.5, -1.0, -0.5, -0.0, 0.0, 0.25], [0.5, 0.999, 1.0, 2.5, 1e30, -1e30],
                       [np.inf, -np.inf, np.nan, 3.75, -7.5, 1e-40]])
    base = strided.tensor(values, dtype=dtype)
    for x in (base, base[1:], base.reshape(-1)[2:8]):  # offset views of the storage too
        for name in M._FRESH:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                fast = M.FUNCTIONS[name](x)
            slow = M.run_unary(M.OPS[name], x)
            assert fast.dtype == slow.dtype and fast.stride() == slow.stride(), name
            np.testing.assert_array_equal(fast.numpy(), slow.numpy(), err_msg=name)
            assert np.array_equal(np.signbit(fast.numpy()), np.signbit(slow.numpy())), name


@pytest.mark.parametrize("dtype", [strided.complex64, strided.complex128])
def test_complex_sgn_fast_path_matches_the_kernel_and_torch(dtype):
    # sgn of a row-major complex tensor takes unary_more's fast path (_sgn_fresh: z / |z|, 0 at 0,
    # the zero write skipped when no |z| is 0): bit for bit the row kernel's result (_sign, through
    # run_unary), with and without zeros, on offset views; PyTorch's values (NaN where a part is
    # infinite) and strides; transposed, expanded and grad-tracked inputs take the general path.
    from strided.ops.elementwise import unary_more as M

    parts = [-2.5, -0.0, 0.0, 1e-40, 3.0, np.inf, -np.inf, np.nan, 1e30, 0.5]
    values = np.array([[complex(a, b) for b in parts] for a in parts])
    no_zero = values[[0, 4, 8]][:, [0, 4, 8]]
    for arr in (values, no_zero, np.zeros((2, 3)), np.array(1 + 1j)):
        base = strided.tensor(arr, dtype=dtype)
        views = (base, base.reshape(-1)[1:]) if base.dim() else (base,)
        for x in views:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                fast = strided.sgn(x)
                method = x.sgn()
            slow = M.run_unary(M.OPS["sgn"], x)
            for got in (fast, method):
                assert got.dtype == slow.dtype and got.stride() == slow.stride()
                assert got.numpy().tobytes() == slow.numpy().tobytes()
            theirs = torch.sgn(torch.tensor(x.numpy()))
            assert fast.stride() == theirs.stride()
            # (compared where the parts are finite and |z| is 0 or normal: an infinite part gives the
            # kernel's NaN, not PyTorch's 0-or-NaN parts, and a subnormal |z| NumPy's overflowing
            # complex division -- both the general path's own results, which this fast path keeps)
            z = x.numpy()
            finite = np.isfinite(z) & ((np.abs(z) == 0) | (np.abs(z) >= np.finfo(z.real.dtype).tiny))
            np.testing.assert_allclose(fast.numpy()[finite], theirs.numpy()[finite], rtol=1e-6, atol=1e-7)
    t = strided.tensor(values[:3, :4], dtype=dtype)
    for x, tx in ((t.t(), torch.tensor(t.numpy()).t()), (t[:1].expand(3, 4), torch.tensor(t.numpy())[:1].expand(3, 4))):
        ours, theirs = strided.sgn(x), torch.sgn(tx)
        assert ours.stride() == theirs.stride()
        # (finite parts only: these torch inputs take its scalar loop, the complex quotient, whose
        # infinite-part NaNs differ from its vectorized loop's, which strided follows)
        z = x.numpy()
        finite = np.isfinite(z) & ((np.abs(z) == 0) | (np.abs(z) >= np.finfo(z.real.dtype).tiny))
        np.testing.assert_allclose(ours.numpy()[finite], theirs.numpy()[finite], rtol=1e-6, atol=1e-7)
    grads = []
    for lib in (strided, torch):
        z = lib.tensor(np.array([[1 + 2j, -3j], [0.5, 2 - 1j]]), requires_grad=True)
        r = lib.sgn(z)
        assert r.requires_grad
        (r * r.conj()).real.sum().backward()
        grads.append(z.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
def test_reduction_fast_path_matches_the_general_path(dtype):
    # sum / mean / amax / amin over every dim or one int dim of a float tensor take the fast path
    # (ops/_support/fast_reduce); the general path (dim as a one-element tuple) must agree bit for
    # bit, in dtype and strides, on row-major, permuted, stepped and offset inputs.
    rng = np.random.default_rng(1)
    base = strided.tensor(rng.standard_normal((4, 6, 5)) * 1e3, dtype=dtype)
    base[0, 0, 0] = float("nan")
    for x in (base, base.permute(2, 0, 1), base[1:, ::2], base[2], base[..., 1:].transpose(0, 2)):
        for name in ("sum", "mean", "amax", "amin"):
            for keepdim in (False, True):
                full = getattr(x, name)(keepdim=keepdim)
                slow = getattr(x, name)(tuple(range(x.dim())), keepdim=keepdim)
                assert full.shape == slow.shape and full.dtype == slow.dtype, name
                np.testing.assert_array_equal(full.numpy(), slow.numpy(), err_msg=name)
                for dim in range(-x.dim(), x.dim()):
                    fast = getattr(x, name)(dim, keepdim=keepdim)
                    slow = getattr(x, name)((dim,), keepdim=keepdim)
                    assert fast.shape == slow.shape and fast.stride() == slow.stride(), (name, dim)
                    assert fast.dtype == slow.dtype, (name, dim)
                    np.testing.assert_array_equal(fast.numpy(), slow.numpy(), err_msg=f"{name} {dim}")


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
def test_softmax_fast_path_matches_the_kernel(dtype):
    # softmax / log_softmax of a float tensor along an int dim take the fast path; the general
    # kernel (kernels.reduce.softmax_into, reached here through a numpy-integer dim) agrees bit for bit.
    from strided.ops.reductions.softmax import _fast_softmax

    rng = np.random.default_rng(2)
    base = strided.tensor(rng.standard_normal((3, 5, 4)) * 30, dtype=dtype)
    base[1, 1, 1] = float("inf")
    for x in (base, base.permute(2, 0, 1), base[:, ::2], base[1], base[0, 0]):
        for log in (False, True):
            name = "log_softmax" if log else "softmax"
            for dim in range(-x.dim(), x.dim()):
                fast = _fast_softmax(x, dim, log)
                slow = getattr(x, name)(np.int64(dim))
                assert fast is not None and getattr(x, name)(dim).stride() == slow.stride()
                assert fast.dtype == slow.dtype and fast.stride() == slow.stride(), (name, dim)
                np.testing.assert_array_equal(fast.numpy(), slow.numpy(), err_msg=f"{name} {dim}")


def test_tensor_from_lists_casts_as_the_copy_does():
    # tensor() of Python lists casts NumPy's fresh array in place of copying it (dispatch.
    # copy_array_of(owned=True)): the values are the copy's, overflow is silent, the copy is reported once.
    data = [[1e300, -1e300, 0.1, 2**60], [float("nan"), 1 / 3, -0.0, 16777217]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with strided.record_copies() as copies:
            t = strided.tensor(data)
    assert [c.reason for c in copies] == ["tensor(data)"]
    expected = np.empty((2, 4), np.float32)
    with np.errstate(all="ignore"):
        np.copyto(expected, np.array(data), casting="unsafe")
    np.testing.assert_array_equal(t.numpy(), expected)
    assert np.signbit(t.numpy()[1, 2]) and t.stride() == (4, 1) and t.dtype == strided.float32
    ints = strided.tensor([[1, 2], [3, 4]], dtype=strided.int8)
    assert ints.tolist() == [[1, 2], [3, 4]] and ints.dtype == strided.int8
    assert strided.tensor(2.5).shape == () and strided.tensor(2.5).item() == 2.5


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
def test_argmax_fast_path_matches_the_general_path(dtype):
    # argmax / argmin of a row-major float tensor along its last dim take the fast path; the
    # general path (a numpy-integer dim) must agree, ties and NaN included (the first index wins).
    values = np.array([[1.0, 3.0, 3.0, -0.0], [np.nan, 1.0, np.nan, 0.0], [-0.0, 0.0, -1.0, -1.0]])
    base = strided.tensor(values, dtype=dtype)
    for x in (base, base[1:], base[1], strided.tensor(values[None], dtype=dtype)):
        for name in ("argmax", "argmin"):
            for keepdim in (False, True):
                fast = getattr(x, name)(-1, keepdim)
                slow = getattr(x, name)(np.int64(-1), keepdim)
                assert fast.dtype == slow.dtype == strided.int64 and fast.shape == slow.shape
                assert fast.stride() == slow.stride() and fast.tolist() == slow.tolist(), (name, keepdim)
            flat = getattr(x, name)(None, keepdim)
            expected = int(getattr(np, name)(x.numpy()))
            assert flat.dtype == strided.int64 and flat.shape == ((1,) * x.dim() if keepdim else ())
            assert flat.reshape(()).item() == expected, name


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
def test_argmax_of_a_transpose_along_dim_0_matches_torch(dtype):
    # argmax / argmin along dim 0 of a 2-D transpose (its contiguous dim) take the fast path on
    # the storage run; the general path (a numpy-integer dim) and PyTorch must agree: ties, NaN
    # (the first index wins), -0.0 against 0.0, an offset storage, keepdim's strides.
    rng = np.random.default_rng(5)
    values = rng.integers(-2, 3, (7, 40)).astype(np.float64)
    values[rng.random(values.shape) < 0.1] = np.nan
    values[values == 0] = -0.0
    values[1, ::3] = 0.0
    base = strided.tensor(values, dtype=dtype)
    for x in (base.T, base[1:].T, base[:, 3:].T, strided.tensor(values[:, :2], dtype=dtype).T):
        t = torch.from_numpy(x.numpy())
        for name in ("argmax", "argmin"):
            for keepdim in (False, True):
                fast = getattr(x, name)(0, keepdim)
                slow = getattr(x, name)(np.int64(0), keepdim)
                ref = getattr(t, name)(0, keepdim)
                assert fast.dtype == slow.dtype == strided.int64 and fast.shape == slow.shape == tuple(ref.shape)
                assert fast.stride() == slow.stride() == ref.stride()
                assert fast.tolist() == slow.tolist() == ref.tolist(), (name, keepdim)


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
def test_max_dim_fast_path_matches_the_general_path(dtype):
    # max(dim) / min(dim) of a row-major float tensor along its last dim: the values are read at
    # the indices found, as the general path reads them (NaN and -0.0 come from the input).
    values = np.array([[1.0, 3.0, 3.0, -0.0], [np.nan, 1.0, np.nan, 0.0], [-0.0, 0.0, -1.0, -1.0]])
    base = strided.tensor(values, dtype=dtype)
    for x in (base, base[1:], base[1]):
        for name in ("max", "min"):
            for keepdim in (False, True):
                fast = getattr(x, name)(-1, keepdim)
                slow = getattr(x, name)(np.int64(-1), keepdim)
                for f, s in zip(fast, slow):
                    assert f.dtype == s.dtype and f.shape == s.shape and f.stride() == s.stride()
                    np.testing.assert_array_equal(f.numpy(), s.numpy())
                    assert np.array_equal(np.signbit(f.numpy()), np.signbit(s.numpy()))
                assert type(fast).__name__ == type(slow).__name__
            full, general = getattr(x, name)(), getattr(x, name)(keepdim=True).reshape(())
            assert full.dtype == general.dtype and full.shape == ()
            np.testing.assert_array_equal(full.numpy(), general.numpy())


def test_full_reduction_fast_path_is_the_general_paths_sum_past_numpys_pairwise_block():
    # the fast path sums a row-major tensor's flat run; past NumPy's 128-element pairwise block
    # its result must still be the general path's (which reduces the N-d view over every axis)
    x = strided.tensor(np.random.default_rng(3).standard_normal((37, 1001)), dtype=strided.float32)
    for name in ("sum", "mean", "amax"):
        fast, slow = getattr(x, name)(), getattr(x, name)((0, 1))
        assert fast.numpy().tobytes() == slow.numpy().tobytes(), name
    fast, slow = x.T.sum(), x.T.sum((0, 1))  # (a permuted tensor: the N-d view, both paths)
    assert fast.numpy().tobytes() == slow.numpy().tobytes()


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
def test_clamp_fast_path_matches_the_general_path(dtype):
    # clamp of a row-major float tensor between Python numbers takes the fast path; the general
    # path (NumPy-scalar bounds, which it reads by value) must agree bit for bit, NaN and -0.0 too.
    values = np.array([[-2.0, -0.0, 0.0, 0.5], [np.nan, 1.0, np.inf, -np.inf], [0.25, 0.75, 3.0, -1.0]])
    base = strided.tensor(values, dtype=dtype)
    bounds = [(0.0, 1.0), (-0.0, None), (None, 0.5), (1.0, 0.0), (float("nan"), 1.0), (0, 1), (-1, None)]
    for x in (base, base[1:], base[2]):
        for lo, hi in bounds:
            fast = strided.clamp(x, lo, hi)
            slow = strided.clamp(x, None if lo is None else np.float64(lo), None if hi is None else np.float64(hi))
            assert fast.dtype == slow.dtype and fast.stride() == slow.stride(), (lo, hi)
            assert fast.numpy().tobytes() == slow.numpy().tobytes(), (lo, hi)
    if dtype is strided.float32:  # a finite bound beyond float32's range is refused, as by the general path
        with pytest.raises(strided.StridedError, match="without overflow"):
            strided.clamp(base, 0.0, 1e300)


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
def test_where_fast_path_matches_the_general_path(dtype):
    # where of row-major operands of one float dtype (or a tensor and a Python number) takes the
    # fast path; the general path (NumPy-scalar operands, or a transposed copy) agrees bit for bit.
    values = np.array([[-2.0, -0.0, 0.0, 0.5], [np.nan, 1.0, np.inf, -np.inf], [0.25, 0.75, 3.0, -1.0]])
    x = strided.tensor(values, dtype=dtype)
    y = strided.tensor(values[::-1].copy(), dtype=dtype)
    mask = x > 0.4
    slow_y = y.T.contiguous().T  # (column-major: the general path)
    for a, b, sa, sb in ((x, y, x, slow_y), (x, -0.0, x, np.float64(-0.0)), (2, y, np.int64(2), slow_y)):
        fast, slow = strided.where(mask, a, b), strided.where(mask, sa, sb)
        assert fast.dtype == slow.dtype == dtype and fast.stride() == slow.stride()
        assert fast.numpy().tobytes() == np.ascontiguousarray(slow.numpy()).tobytes()
    if dtype is strided.float32:
        with pytest.raises(strided.StridedError, match="overflow"):
            strided.where(mask, x, 1e300)


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
def test_scan_fast_path_matches_the_general_path(dtype):
    # cumsum / cumprod of a row-major float tensor along an int dim take the fast path; the
    # general path (a numpy-integer dim) agrees bit for bit (float32 runs in float64 in both).
    x = strided.tensor(np.random.default_rng(4).standard_normal((5, 7, 3)), dtype=dtype)
    for t in (x, x[1:], x[2]):
        for name in ("cumsum", "cumprod"):
            for dim in range(-t.dim(), t.dim()):
                with strided.record_copies() as fast_copies:
                    fast = getattr(t, name)(dim)
                with strided.record_copies() as slow_copies:
                    slow = getattr(t, name)(np.int64(dim))
                assert fast.dtype == slow.dtype and fast.stride() == slow.stride()
                assert fast.numpy().tobytes() == slow.numpy().tobytes(), (name, dim)
                assert [c.reason for c in fast_copies] == [c.reason for c in slow_copies]


def test_aminmax_fast_path_matches_the_general_path():
    from strided.ops.reductions.nan_reductions import _extreme

    x = strided.tensor(np.random.default_rng(5).standard_normal((4, 5)), dtype=strided.float32)
    x[1, 2] = float("nan")
    for t in (x, x.T, x[1:, ::2]):
        for dim in (None, 0, 1, -1):
            for keepdim in (False, True):
                fast = strided.aminmax(t, dim=dim, keepdim=keepdim)
                for got, largest in ((fast.min, False), (fast.max, True)):
                    want = _extreme(t, dim, keepdim, "aminmax", largest)
                    assert got.shape == want.shape and got.stride() == want.stride() and got.dtype == want.dtype
                    if dim is None:  # (a whole reduction's NaN is PyTorch's, whole_nan's rule: checked against torch)
                        torch_pair = torch.aminmax(torch.from_numpy(t.numpy().copy()))
                        want_bits = (torch_pair.max if largest else torch_pair.min).numpy().tobytes()
                        assert got.numpy().tobytes() == want_bits, (dim, keepdim, largest)
                        continue
                    assert got.numpy().tobytes() == want.numpy().tobytes(), (dim, keepdim, largest)


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
def test_variance_fast_path_matches_the_general_path(dtype):
    # var / std with the default correction take the fast path; correction=1 spelt out takes the
    # general path, which must agree bit for bit (one element per result: the general path warns)
    x = strided.tensor(np.random.default_rng(6).standard_normal((5, 7, 3)) * 100, dtype=dtype)
    for t in (x, x.permute(2, 0, 1), x[1:, ::2], x[2]):
        for name in ("var", "std"):
            for dim in (None, *range(-t.dim(), t.dim())):
                for keepdim in (False, True):
                    fast = getattr(t, name)(dim, keepdim=keepdim)
                    slow = getattr(t, name)(dim, keepdim=keepdim, correction=1)
                    assert fast.shape == slow.shape and fast.stride() == slow.stride() and fast.dtype == slow.dtype
                    assert fast.numpy().tobytes() == slow.numpy().tobytes(), (name, dim, keepdim)
    with pytest.warns(UserWarning, match="degrees of freedom"):
        strided.ones(3, 1, dtype=dtype).var(1)
