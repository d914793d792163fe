"""bfloat16 add / sub / mul / div through the compiled kernel (strided.kernels._halfkernel's bf16,
via strided.kernels.reduced_arith): each element through float32 and back, rounded to nearest
even, with PyTorch's NaN bits (0xFFFF in its vector loop's 32-element steps, 0x7FC0 in a chunk's
scalar rest). The compiled result must be PyTorch's bit for bit on every bfloat16 against a
sample (NaN payloads and signs, infinities, subnormals, -0.0, overflow), in both compiled copies,
and the strided ops' results (the compiled front, the Python fast path, the general path) must
be PyTorch's, and the NumPy path's (``native.disabled()``) values."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided.kernels import native
from strided.kernels.reduced_arith import bf16_into, reduced_loop

pytestmark = pytest.mark.skipif(native.half() is None or not hasattr(native.half(), "bf16"),
                                reason="the compiled kernels are not built")

BF16 = np.dtype(ml_dtypes.bfloat16)
OPS = {0: torch.add, 1: torch.sub, 2: torch.mul, 3: torch.div}
NAMES = {0: "add", 1: "sub", 2: "mul", 3: "div"}
EDGES = [0x7FC0, 0xFFC0, 0x7F81, 0xFF81, 0x7FFF, 0xFFFF, 0x7FA0, 0x7F80, 0xFF80, 0x0000, 0x8000, 0x0001,
         0x8001, 0x007F, 0x0080, 0x7F7F, 0xFF7F, 0x3F80, 0xBF80, 0x3F81, 0x4040, 0x0100]


@pytest.fixture(params=[True, False], ids=["wide", "baseline"])
def copy(request):
    """Each compiled copy in turn (the wide one only where the CPU has it), the default after."""
    k = native.half()
    k.select(request.param)
    yield
    k.select(True)


def _words(t: torch.Tensor) -> np.ndarray:
    return t.contiguous().view(torch.int16).numpy().view(np.uint16)


def _torch(words: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(words).view(np.int16).copy()).view(torch.bfloat16)


def _st(words: np.ndarray) -> st.Tensor:
    return st.from_numpy(np.ascontiguousarray(words).view(BF16).copy())


def _pairs() -> tuple[np.ndarray, np.ndarray]:
    """Every bfloat16 against a few dozen others (random words and the edges), both ways round."""
    every = np.arange(65536, dtype=np.uint16)
    rng = np.random.default_rng(31)
    others = np.concatenate([rng.integers(0, 65536, 10, dtype=np.uint16), np.array(EDGES, np.uint16)])
    x = np.tile(every, len(others))
    y = np.repeat(others, len(every))
    return np.concatenate([x, y]), np.concatenate([y, x])


@pytest.fixture(scope="module")
def one_thread():
    """PyTorch on one thread: a row below its grain size is one chunk whatever the thread count,
    but the whole-array comparisons cut rows of 1000 (one chunk each) to be sure."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize("code", [0, 1, 2, 3])
def test_every_bfloat16_is_pytorchs(copy, one_thread, code):
    x, y = _pairs()
    row = 1000  # (1000 % 32 == 8: each row has a vector part and a scalar rest)
    out = np.empty(len(x), BF16)
    k = native.half()
    ref = np.empty(len(x), np.uint16)
    for s in range(0, len(x), row):
        xs, ys = x[s : s + row], y[s : s + row]
        assert k.bf16(xs.view(BF16), ys.view(BF16), out[s : s + row], code)
        ref[s : s + row] = _words(OPS[code](_torch(xs), _torch(ys)))
    got = out.view(np.uint16)
    bad = np.nonzero(got != ref)[0]
    assert bad.size == 0, [(hex(x[i]), hex(y[i]), hex(got[i]), hex(ref[i])) for i in bad[:5]]
    nan = (ref & 0x7FFF) > 0x7F80
    assert nan.any() and (ref[nan] == 0xFFFF).any() and (ref[nan] == 0x7FC0).any()  # (both loops met)


@pytest.mark.parametrize("n", [1, 5, 31, 32, 33, 63, 64, 65, 100, 289])
@pytest.mark.parametrize("code", [0, 1, 2, 3])
def test_edges_each_size_through_the_ops(n, code):
    """Every pair of edge values at several sizes: the NaNs' bits follow PyTorch's loop split, at
    the front's first call (the Python fast path) and later ones (the compiled entry)."""
    rng = np.random.default_rng(n * 7 + code)
    x = rng.choice(np.array(EDGES, np.uint16), n)
    y = rng.choice(np.array(EDGES, np.uint16), n)
    ref = _words(OPS[code](_torch(x), _torch(y)))
    op = getattr(st, NAMES[code])
    for _ in range(3):  # (first call: the forward; then the front's entry)
        np.testing.assert_array_equal(op(_st(x), _st(y)).numpy().view(np.uint16), ref)


@pytest.mark.parametrize("code", [0, 1, 2, 3])
@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (300, 700), (1000, 1000)])
def test_layouts_are_pytorchs(code, shape):
    """Row-major and permuted twins (the fast path's flat runs; 1M elements: PyTorch's parallel
    chunks), then a broadcast and an in-place update (the general path): PyTorch's bits."""
    rng = np.random.default_rng(shape[0] + code)
    x = rng.integers(0, 65536, shape, dtype=np.uint16)
    y = rng.integers(0, 65536, shape, dtype=np.uint16)
    x[rng.random(shape) < 0.5] = 0x3F80  # (numbers too, not only the random words' NaNs and tiny values)
    tx, ty = _torch(x), _torch(y)
    op, top = getattr(st, NAMES[code]), OPS[code]
    sx, sy = _st(x), _st(y)
    for a, b, ta, tb in ((sx, sy, tx, ty), (sx.t(), sy.t(), tx.t(), ty.t())):
        r, tr = op(a, b), top(ta, tb)
        assert r.stride() == tr.stride()
        np.testing.assert_array_equal(_words_st(r), _words(tr))
    row = ty[:1]
    np.testing.assert_array_equal(_words_st(op(sx, _st(_words(row)))), _words(top(tx, row)))
    getattr(sx, NAMES[code] + "_")(sy)
    getattr(tx, NAMES[code] + "_")(ty)
    np.testing.assert_array_equal(_words_st(sx), _words(tx))


def _words_st(t: st.Tensor) -> np.ndarray:
    return t.contiguous().numpy().view(np.uint16)


@pytest.mark.parametrize("code", [0, 1, 2, 3])
def test_numpy_path_values(code):
    """With the kernels off (ml_dtypes' ufuncs) every number is the same; NaN stays NaN."""
    rng = np.random.default_rng(code)
    x = rng.integers(0, 65536, 5000, dtype=np.uint16)
    y = rng.integers(0, 65536, 5000, dtype=np.uint16)
    op = getattr(st, NAMES[code])
    on = op(_st(x), _st(y)).numpy().view(np.uint16)
    with native.disabled():
        off = op(_st(x), _st(y)).numpy().view(np.uint16)
    nan_on, nan_off = (on & 0x7FFF) > 0x7F80, (off & 0x7FFF) > 0x7F80
    np.testing.assert_array_equal(nan_on, nan_off)
    np.testing.assert_array_equal(on[~nan_on], off[~nan_off])


def test_refusals():
    """Operands the kernel does not take: False, nothing written (the caller's ufunc runs)."""
    a = np.ones(8, BF16)
    out = np.zeros(8, BF16)
    assert not bf16_into(0, a, np.ones(7, BF16), out)
    assert not bf16_into(0, a[::2], a[::2], out[:4])  # (strided)
    assert not bf16_into(0, a, a[::-1].copy().reshape(8), out[::-1])  # (out reversed)
    assert not bf16_into(0, a[1:], a[1:], a[:-1])  # (overlaps out shifted)
    assert (out.view(np.uint16) == 0).all()
    with native.disabled():
        assert not bf16_into(0, a, a, out)
        assert reduced_loop(0)(a, a) is None
    assert bf16_into(0, a, a, a)  # (in place, element for element)
    assert (a.astype(np.float32) == 2).all()


@settings(max_examples=40, deadline=None)
@given(hs.lists(hs.integers(0, 65535), min_size=1, max_size=80), hs.integers(0, 3), hs.booleans())
def test_any_words_as_pytorch(words, code, swap):
    x = np.array(words, np.uint16)
    y = np.roll(x, 1) if not swap else x[::-1].copy()
    ref = _words(OPS[code](_torch(x), _torch(y)))
    np.testing.assert_array_equal(getattr(st, NAMES[code])(_st(x), _st(y)).numpy().view(np.uint16), ref)


def test_every_bfloat16_sqrt_is_pytorchs(copy):
    """sqrt of every bfloat16 (the compiled kernel): PyTorch's bits, each NaN 0xFFFF."""
    x = np.arange(65536, dtype=np.uint16)
    out = np.empty(65536, BF16)
    assert native.half().bf16_sqrt(x.view(BF16), out)
    ref = _words(torch.sqrt(_torch(x)))
    np.testing.assert_array_equal(out.view(np.uint16), ref)
    assert (ref == 0xFFFF).sum() > 30000  # (the negatives and NaNs)


def test_nan_ones(copy):
    x = np.arange(65536, dtype=np.uint16)
    out = x.copy().view(BF16)
    assert native.half().nan_ones(out) is out
    nan = (x & 0x7FFF) > 0x7F80
    np.testing.assert_array_equal(out.view(np.uint16), np.where(nan, 0xFFFF, x))


VML = ["sqrt", "exp", "log", "tanh", "sin", "floor", "log1p"]  # (erf: its subnormal results differ on main already)


@pytest.mark.parametrize("name", VML)
@pytest.mark.parametrize("n", [1, 7, 40, 300])
def test_vml_ops_each_call(name, n):
    """The VML-style unary ops on bfloat16 with NaNs (every NaN 0xFFFF in PyTorch), at the front's
    first call (the Python fast path) and later ones (the compiled front), row-major and transposed."""
    rng = np.random.default_rng(n)
    x = rng.choice(np.array(EDGES + [0x3F00, 0x4000, 0xC000, 0x3E80], np.uint16), (n, 2))
    tx, sx = _torch(x), _st(x)
    for a, ta in ((sx, tx), (sx.t(), tx.t())):
        ref = _words(getattr(torch, name)(ta))
        for _ in range(3):
            np.testing.assert_array_equal(_words_st(getattr(st, name)(a)), ref)


@pytest.mark.parametrize("alpha", [2.0, -0.3, 1e-30, 3e38])
@pytest.mark.parametrize("n", [40, 300, 70000])
@pytest.mark.parametrize("name", ["add", "sub"])
def test_alpha_is_pytorchs(alpha, n, name):
    """``alpha=``: PyTorch's fmadd in its vector loop (the compiled fma, tiny and huge products
    included), its scalar loop's elements, NaN bits; fresh and in place."""
    rng = np.random.default_rng(n)
    x = rng.integers(0, 65536, n, dtype=np.uint16)
    y = rng.integers(0, 65536, n, dtype=np.uint16)
    y[: n // 2] = rng.integers(0x0001, 0x0400, n // 2, dtype=np.uint16)  # (tiny: products underflow)
    tx, ty, sx, sy = _torch(x), _torch(y), _st(x), _st(y)
    ref = _words(getattr(torch, name)(tx, ty, alpha=alpha))
    np.testing.assert_array_equal(_words_st(getattr(st, name)(sx, sy, alpha=alpha)), ref)
    getattr(sx, name + "_")(sy, alpha=alpha)
    getattr(tx, name + "_")(ty, alpha=alpha)
    np.testing.assert_array_equal(_words_st(sx), _words(tx))


SCALARS = [2.5, 1.7, 3.0, -7.3, 0.1, 1 / 3, 1.00390625 + 1e-9, 1e-40, 1e-45, 2.0**-133, 3e38, 1e300, -0.0, 0.0,
           float("inf"), float("-inf"), float("nan"), 2, -3, 255, 2**40 + 1]


@pytest.mark.parametrize("code", [0, 1, 2, 3])
def test_scalar_operand_every_bfloat16(copy, code):
    """``t op number`` on every bfloat16 (the fast path's compiled scalar loop, first call and the
    front's later ones): PyTorch's rounding of the number (add/sub: to bfloat16, mul/div: to
    float32) and its bits, NaNs by its loop split; 2-D and transposed; the NumPy path's the same."""
    every = np.arange(65536, dtype=np.uint16)
    op, top = getattr(st, NAMES[code]), OPS[code]
    for s in SCALARS:
        for words in (every, every[:1000], every[:45].reshape(5, 9), every.reshape(256, 256)):
            sx, tx = _st(words), _torch(words)
            for a, ta in ((sx, tx), (sx.t(), tx.t())) if words.ndim == 2 else ((sx, tx),):
                ref = _words(top(ta, s))
                for _ in range(2):
                    r = op(a, s)
                    assert r.stride() == top(ta, s).stride()
                    got = _words_st(r)
                    bad = np.nonzero(got.ravel() != ref.ravel())[0]
                    assert bad.size == 0, (s, [(hex(words.ravel()[i]), hex(got.ravel()[i]), hex(ref.ravel()[i]))
                                               for i in bad[:4]])
        with native.disabled():
            np.testing.assert_array_equal(_words_st(op(_st(every), s)), _words(top(_torch(every), s)))


@settings(max_examples=40, deadline=None)
@given(hs.lists(hs.integers(0, 65535), min_size=1, max_size=80), hs.integers(0, 3),
       hs.floats(allow_nan=True, allow_infinity=True, width=64))
def test_scalar_operand_any_words(words, code, s):
    x = np.array(words, np.uint16)
    np.testing.assert_array_equal(_words_st(getattr(st, NAMES[code])(_st(x), s)), _words(OPS[code](_torch(x), s)))


@pytest.mark.parametrize("alpha", [2.5, -0.3, 1e-30, 3e38, 1.0])
@pytest.mark.parametrize("shape", [(1,), (33,), (95,), (7, 45), (300, 700)])
@pytest.mark.parametrize("name", ["add", "sub"])
def test_alpha_compiled_rest_is_pytorchs(copy, alpha, shape, name):
    """``alpha=`` on one row: the compiled loop's scalar rest (the product rounded to bfloat16, then
    the sum) and vector steps (fmadd), NaN bits: row-major, transposed, in place and out=, as PyTorch
    (the NumPy path, ``native.disabled()``, rounds an overflowing product alone: not compared)."""
    rng = np.random.default_rng(shape[0])
    x = rng.integers(0, 65536, shape, dtype=np.uint16)
    y = rng.integers(0, 65536, shape, dtype=np.uint16)
    x[rng.random(shape) < 0.5] = 0x3F80
    y[rng.random(shape) < 0.3] = 0x0005  # (products that underflow alone)
    y[rng.random(shape) < 0.1] = 0x7F00  # (and that overflow)
    sop, top = getattr(st, name), getattr(torch, name)
    pairs = [(_st(x), _st(y), _torch(x), _torch(y))]
    if len(shape) == 2:
        pairs.append((_st(x).t(), _st(y).t(), _torch(x).t(), _torch(y).t()))
    for sx, sy, tx, ty in pairs:
        ref = _words(top(tx, ty, alpha=alpha))
        np.testing.assert_array_equal(_words_st(sop(sx, sy, alpha=alpha)), ref)
        so, to = st.empty(tuple(sx.shape), dtype=st.bfloat16), torch.empty(tuple(tx.shape), dtype=torch.bfloat16)
        sop(sx, sy, alpha=alpha, out=so)
        top(tx, ty, alpha=alpha, out=to)
        np.testing.assert_array_equal(_words_st(so), _words(to))
        sx, tx = sx.clone(), tx.clone()
        getattr(sx, name + "_")(sy, alpha=alpha)
        getattr(tx, name + "_")(ty, alpha=alpha)
        np.testing.assert_array_equal(_words_st(sx), _words(tx))


@pytest.mark.parametrize("name", ["exp", "log", "tanh"])
def test_through_float32_every_bfloat16(copy, name):
    """exp, log, tanh of every bfloat16 by the float32 kernel then rounded (the fast path, the
    compiled front's calls after it, a transpose, the general path): PyTorch's bits, NaNs 0xFFFF."""
    every = np.arange(65536, dtype=np.uint16)
    ref = _words(getattr(torch, name)(_torch(every)))
    for _ in range(3):
        np.testing.assert_array_equal(_words_st(getattr(st, name)(_st(every))), ref)
    sq = every.reshape(256, 256)
    np.testing.assert_array_equal(_words_st(getattr(st, name)(_st(sq).t())), _words(getattr(torch, name)(_torch(sq).t())))
    np.testing.assert_array_equal(_words_st(getattr(st, name)(_st(sq)[:, ::2])),
                                  _words(getattr(torch, name)(_torch(sq)[:, ::2])))
