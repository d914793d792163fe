"""Differential tests for blas8's fast paths: the Python-float trace of float32/float64 and the
compiled cross3 kernel, each against its general NumPy path (turned off) and PyTorch, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import fresh_runs
import strided
from strided.kernels import native
from strided.ops.linalg import products
from strided.ops.reductions import sums

torch.set_num_threads(1)

_SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3.4e38, -3.4e38, 1e308, 2.0**24 + 1, 1.0]


def _values(dtype: np.dtype, n: int) -> hs.SearchStrategy:
    floats = hs.floats(width=32 if dtype == np.float32 else 64, allow_nan=True, allow_infinity=True)
    return hs.lists(hs.one_of(floats, hs.sampled_from(_SPECIAL)), min_size=n, max_size=n)


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


@settings(max_examples=150, deadline=None)
@given(dtype=hs.sampled_from([np.float32, np.float64]), rows=hs.integers(0, 7), cols=hs.integers(0, 7),
       transpose=hs.booleans(), data=hs.data())
def test_trace_fast_matches_numpy_path_and_torch(dtype, rows, cols, transpose, data):
    with np.errstate(all="ignore"):
        vals = np.array(data.draw(_values(dtype, rows * cols)), dtype).reshape(rows, cols)
    t = strided.from_numpy(vals.copy())
    tt = torch.from_numpy(vals.copy())
    if transpose:
        t, tt = t.t(), tt.t()
    fast = t.trace()
    mp = pytest.MonkeyPatch()
    with mp.context() as m:
        m.setattr(sums, "_trace_in_python", lambda x: None)
        slow = t.trace()
    ref = tt.trace().numpy()
    assert fast.dtype == slow.dtype and fast.shape == () and fast.stride() == ()
    assert _bits(fast.numpy()) == _bits(slow.numpy())
    if not np.isnan(ref):  # (NaN payloads: NumPy's and PyTorch's sums may pick different operands)
        assert _bits(fast.numpy()) == _bits(ref)
    else:
        assert np.isnan(fast.numpy())


def test_trace_fast_offset_view_and_expanded():
    base = strided.arange(30.0).reshape(5, 6)
    v = base[1:, 2:]  # (an offset, strided view)
    assert v.trace().item() == torch.arange(30.0).reshape(5, 6)[1:, 2:].trace().item()
    e = strided.tensor([1.5, 2.5]).expand(3, 2)  # (row stride 0)
    assert e.trace().item() == torch.tensor([1.5, 2.5]).expand(3, 2).trace().item()
    z = strided.tensor(7.0).expand(3, 3)  # (both strides 0: the NumPy path)
    assert z.trace().item() == 21.0
    assert strided.tensor([[-0.0, 1.0], [2.0, -0.0]]).trace().numpy().tobytes() == np.float32(0.0).tobytes()


def test_trace_grad_still_recorded():
    x = strided.randn(3, 4, requires_grad=True)
    x.trace().backward()
    assert x.grad.tolist() == strided.eye(3, 4).tolist()


@pytest.mark.skipif(native.special() is None, reason="compiled kernels not built")
@settings(max_examples=150, deadline=None)
@given(dtype=hs.sampled_from([np.float32, np.float64]), lead=hs.integers(0, 3), tail=hs.integers(0, 3),
       dim=hs.integers(0, 2), broadcast=hs.booleans(), data=hs.data())
def test_cross_native_matches_numpy_path_and_torch(dtype, lead, tail, dim, broadcast, data):
    shape = [lead + 1, tail + 1]
    shape.insert(dim, 3)
    n = int(np.prod(shape))
    with np.errstate(all="ignore"):
        a = np.array(data.draw(_values(dtype, n)), dtype).reshape(shape)
        b = np.array(data.draw(_values(dtype, n)), dtype).reshape(shape)
    if broadcast:
        b = b[:1] if dim != 0 else b[:, :1]
    sa, sb = strided.from_numpy(a.copy()), strided.from_numpy(b.copy())
    fast = strided.linalg.cross(sa, sb, dim=dim)
    with native.disabled():
        slow = strided.linalg.cross(sa, sb, dim=dim)
    ref = torch.linalg.cross(torch.from_numpy(a.copy()), torch.from_numpy(b.copy()), dim=dim).numpy()
    assert fast.shape == slow.shape == tuple(ref.shape) and fast.stride() == slow.stride()
    assert fast.dtype == slow.dtype
    # (a NaN's sign and payload: the NumPy twin's depend on NumPy's SIMD loop for the array's
    # length, PyTorch's on its vector kernel; all three agree on where the NaNs are)
    f = fast.numpy()
    for other in (slow.numpy(), ref):
        assert np.array_equal(np.isnan(f), np.isnan(other))
        keep = ~np.isnan(f)
        assert _bits(f[keep]) == _bits(other[keep])


def test_cross3_kernel_refuses_bad_buffers():
    k = native.special()
    if k is None:
        pytest.skip("compiled kernels not built")
    a = np.zeros((2, 3, 1), np.float32)
    with pytest.raises(ValueError, match="one format and one shape"):
        k.cross3(a, np.zeros((2, 3, 1), np.float64), np.empty((2, 3, 1), np.float32))
    with pytest.raises(ValueError, match="argument 2: format f, 2 dims"):
        k.cross3(a, a, np.empty((2, 3), np.float32))
    with pytest.raises(ValueError, match="one format and one shape"):
        k.cross3(np.zeros((3, 2, 1), np.float32), np.zeros((3, 2, 1), np.float32), np.empty((3, 2, 1), np.float32))
    with pytest.raises(TypeError, match="takes 3 or 4 arguments, not 5"):
        k.cross3(a, a, a, 1, 1)
    with pytest.raises(ValueError, match="1-D runs of one length"):  # (the flat form takes 1-D runs)
        k.cross3(a, a, a, 1)
    with pytest.raises(ValueError, match="read-only"):
        k.cross3(a, a, np.broadcast_to(np.zeros((2, 3, 1), np.float32), (2, 3, 1)))
    assert k.cross3(a, a, a) is False  # (out overlaps an input: nothing written)
    base = np.arange(12, dtype=np.float32)
    before = base.copy()
    # (out reversed over memory an input reads through a negative stride: their extents overlap)
    assert k.cross3(base[:6].reshape(2, 3, 1), base[6:].reshape(2, 3, 1), base[::-1][:6].reshape(2, 3, 1)) is False
    assert base.tobytes() == before.tobytes()
    assert products._cross3_native(np.zeros((3, 0)), np.zeros((3, 0)), 0) is None


@pytest.mark.skipif(native.special() is None, reason="compiled kernels not built")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cross_of_any_layout_reads_in_place_and_matches_the_numpy_path_and_torch(dtype: str) -> None:
    """The kernel reads (outer, 3, inner) views of any strides: a transpose (the dim's vectors
    spread over memory), flipped and stepped inputs, a broadcast operand, 3-d with the dim in
    the middle; the same bits as the NumPy twin and PyTorch (no NaN here: their payloads differ)."""
    rng = np.random.default_rng(12)

    def pair(shape: tuple) -> tuple:
        return tuple((rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)).astype(dtype) for _ in "ab")

    a, b = pair((3, 40))
    c, e = pair((5, 3, 7))
    cases = [(a.T, b.T, 1), (a[:, ::-1].T, b[::-1].T, 1), (a[:, ::2].T, b[:, 1::2].T, 1), (a, b[:, :1], 0),
             (c, e, 1), (c.transpose(2, 1, 0), e.transpose(2, 1, 0), 1), (c[::-1, :, ::3], e[:, :, ::3], 1)]
    for x, y, dim in cases:
        sx, sy = strided.from_numpy(np.ascontiguousarray(x)), strided.from_numpy(np.ascontiguousarray(y))
        # (the same layouts in strided: views of row-major copies of the bases)
        tx, ty = torch.from_numpy(np.ascontiguousarray(x)), torch.from_numpy(np.ascontiguousarray(y))
        want = torch.linalg.cross(*torch.broadcast_tensors(tx, ty), dim=dim).numpy()
        got = products._cross3(*np.broadcast_arrays(x, y), dim)
        with native.disabled():
            twin = products._cross3(*np.broadcast_arrays(x, y), dim)
        assert got.flags.c_contiguous and got.tobytes() == twin.tobytes() == want.tobytes()
        assert strided.linalg.cross(sx, sy, dim=dim).numpy().tobytes() == want.tobytes()


def test_cross_fma_instruction_and_library_copies_agree() -> None:
    """On a CPU with FMA3 the kernel's fma is the instruction; STRIDED_NATIVE_NO_FMA3 (a fresh
    process) takes the C library's fmaf/fma: both correctly rounded, the same bits, subnormal
    and huge products included."""

    script = (
        "import numpy as np\n"
        "from strided.ops.linalg import products\n"
        "rng = np.random.default_rng(3)\n"
        "for dt in (np.float32, np.float64):\n"
        "    for shape, d in (((1000, 3), 1), ((3, 77), 0), ((4, 3, 9), 1)):\n"
        "        a, b = ((rng.standard_normal(shape) * 10.0 ** rng.integers(-40, 38, shape)).astype(dt) for _ in 'ab')\n"
        "        with np.errstate(all='ignore'):\n"
        "            print(products._cross3(a, b, d).tobytes().hex())\n"
        "            print(products._cross3(a.T.copy().T, b, d).tobytes().hex())\n")
    runs = fresh_runs.outputs(script, {}, {"STRIDED_NATIVE_NO_FMA3": "1"})
    assert runs[0] == runs[1] and len(runs[0]) > 10000


@pytest.mark.skipif(native.special() is None, reason="compiled kernels not built")
@settings(max_examples=150, deadline=None)
@given(dtype=hs.sampled_from([np.float32, np.float64]), batch=hs.integers(1, 3), n=hs.integers(1, 4),
       k=hs.integers(1, 12), p=hs.integers(1, 4), beta=hs.sampled_from([0, 1, 0.5, -2.0]),
       alpha=hs.sampled_from([1, 2.0, -0.5]), transposed=hs.booleans(), data=hs.data())
def test_small_baddbmm_native_matches_numpy_loop_and_torch(dtype, batch, n, k, p, beta, alpha, transposed, data):
    with np.errstate(all="ignore"):
        x = np.array(data.draw(_values(dtype, batch * n * k)), dtype).reshape(batch, n, k)
        y = np.array(data.draw(_values(dtype, batch * k * p)), dtype).reshape(batch, k, p)
        c = np.array(data.draw(_values(dtype, batch * n * p)), dtype).reshape(batch, n, p)
    sx, sy, sc = strided.from_numpy(x.copy()), strided.from_numpy(y.copy()), strided.from_numpy(c.copy())
    if transposed:  # (a non-row-major batch2: the general path's own call of the loop)
        sy = strided.from_numpy(np.ascontiguousarray(y.transpose(0, 2, 1)).copy()).transpose(1, 2)
    fast = strided.baddbmm(sc, sx, sy, beta=beta, alpha=alpha)
    with native.disabled():
        slow = strided.baddbmm(sc, sx, sy, beta=beta, alpha=alpha)
    ref = torch.baddbmm(torch.from_numpy(c.copy()), torch.from_numpy(x.copy()), torch.from_numpy(y.copy()),
                        beta=beta, alpha=alpha).numpy()
    assert fast.shape == slow.shape == tuple(ref.shape) and fast.stride() == slow.stride()
    assert fast.dtype == slow.dtype
    f = fast.numpy()
    for other in (slow.numpy(), ref):  # (NaN bits: see the cross test)
        assert np.array_equal(np.isnan(f), np.isnan(other))
        keep = ~np.isnan(f)
        assert _bits(f[keep]) == _bits(other[keep])


def test_bmm_loop_kernel_refuses_bad_buffers():
    k = native.special()
    if k is None:
        pytest.skip("compiled kernels not built")
    x = np.zeros((1, 2, 3), np.float32)
    y = np.zeros((1, 3, 2), np.float32)
    with pytest.raises(ValueError):
        k.bmm_loop(x, y.astype(np.float64), np.empty((1, 2, 2), np.float32), 2, 3, 2)
    with pytest.raises(ValueError):
        k.bmm_loop(x, y, np.empty((1, 2, 3), np.float32), 2, 3, 2)
    assert k.bmm_loop(x, y, np.empty((1, 2, 2), np.float32), 2, 3, 2) is True
    square = np.zeros((1, 3, 3), np.float32)
    assert k.bmm_loop(square, square, square, 3, 3, 3) is False  # (out overlaps an input: nothing written)


def _twin(gen: strided.Generator) -> np.random.Generator:
    """A NumPy generator in ``gen``'s current state (the same stream from here)."""
    g = np.random.Generator(np.random.PCG64())
    g.bit_generator.state = gen._np.bit_generator.state
    return g


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (1,)])
def test_unit_scale_samplers_keep_the_old_arithmetic_bits(dtype, shape):
    """normal_(m, 1), exponential_(1) and cauchy_(m, 1) skip their * 1 (/ 1): the same bits as the
    full arithmetic on the same draws (the seeded stream, unchanged)."""
    gen = strided.Generator().manual_seed(7)
    npd = np.dtype(dtype.numpy)
    for mean in (0.0, -2.5):
        ref = _twin(gen)
        got = strided.empty(shape, dtype=dtype).normal_(mean, 1.0, generator=gen).numpy()
        want = np.empty(shape, npd)
        ref.standard_normal(dtype=npd, out=want)
        np.add(np.multiply(want, 1.0, out=want), mean, out=want)
        assert got.tobytes() == want.tobytes()
        ref = _twin(gen)
        got = strided.empty(shape, dtype=dtype).cauchy_(mean, 1.0, generator=gen).numpy()
        want = (ref.standard_cauchy(shape) * 1.0 + mean).astype(npd)
        assert got.tobytes() == want.tobytes()
    ref = _twin(gen)
    got = strided.empty(shape, dtype=dtype).exponential_(1.0, generator=gen).numpy()
    want = np.empty(shape, npd)
    ref.standard_exponential(dtype=npd, out=want)
    np.divide(want, 1.0, out=want)
    assert got.tobytes() == want.tobytes()
    # a -0.0 mean still adds (x + -0.0 and x + 0.0 differ only at x = -0.0, which the add keeps)
    ref = _twin(gen)
    got = strided.empty(shape, dtype=dtype).normal_(-0.0, 1.0, generator=gen).numpy()
    want = ref.standard_normal(shape, dtype=npd) * 1.0 + -0.0
    assert got.tobytes() == want.astype(npd).tobytes()


def test_trace_overflow_is_quiet_on_both_paths():
    import warnings

    big = strided.full((70, 70), 1e308, dtype=strided.float64)  # (past the Python loop's 64: NumPy's path)
    for t in (big, big[:3, :3]):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert t.trace().item() == float("inf")


@pytest.mark.parametrize("fn", ["linalg", "cross"])
def test_cross_out_follows_torch(fn: str) -> None:
    """cross / linalg.cross take ``out=`` (found missing by red14a): an empty out resized, a right
    one written, values equal to torch's; torch's refusals: an out of another dtype (its message),
    an out that is an input or overlaps one (assert_no_overlap: stricter than elementwise ops)."""
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((5, 3)).astype(np.float32), rng.standard_normal((5, 3)).astype(np.float32)

    def call(lib: object, x: object, y: object, out: object) -> object:
        return lib.linalg.cross(x, y, dim=1, out=out) if fn == "linalg" else lib.cross(x, y, dim=1, out=out)

    for lib in (strided, torch):
        x, y = lib.tensor(a), lib.tensor(b)
        empty = lib.empty(0)
        assert call(lib, x, y, empty) is empty and tuple(empty.shape) == (5, 3)
        right = lib.empty(5, 3)
        call(lib, x, y, right)
        np.testing.assert_array_equal(np.asarray(right), torch.linalg.cross(torch.tensor(a), torch.tensor(b)).numpy())
        with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got long int instead"):
            call(lib, x, y, lib.empty(5, 3, dtype=lib.int64))
        base = lib.zeros(8, 3)
        base[:5] = x
        # (an input, a view of one, a window of the storage overlapping the input base[:5])
        for first, out in ((x, x), (x, y.t().t()), (base[:5], base[3:])):
            with pytest.raises(RuntimeError, match="refer to a single memory location"):
                call(lib, first, y, out)
