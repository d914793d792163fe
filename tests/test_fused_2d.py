"""The compiled one-pass elementwise op between memory orders (``apply2d`` in kernels/_copykernel.c,
:func:`strided.kernels.tiles._fused_2d`) against NumPy's ufuncs.

Every element must be the bits NumPy's loop gives (``+ - * /`` and ``sqrt`` are IEEE operations; where both
operands of ``+`` or ``*`` are NaN, a NaN, whose payload is NumPy's loop's choice):
checked on values over many decades with NaNs of both signs and payloads, infinities, signed
zeros and subnormals, on every plane size around the register blocks (4 x 4 floats, 2 x 2
doubles) and the tiles (64 x 256), with each input along or across the output's rows, stepped
backwards, sliced, and the output itself row- or column-major or stepped. The calls it declines
(casts, broadcasting, other dtypes, overlapping output rows, misaligned data) are NumPy's, and
strided's ops give the same bits with the kernel and without it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided
from strided.kernels import native, tiles

needs_kernel = pytest.mark.skipif(not native.active(), reason="the copy kernel is not built (test_native_copies)")

UFUNCS = [np.add, np.subtract, np.multiply, np.true_divide, np.sqrt]


def _values(rng: np.random.Generator, shape: tuple[int, int], dtype: type) -> np.ndarray:
    """Random magnitudes over many decades, both signs, with every special value sprinkled in."""
    a = rng.standard_normal(shape) * 10.0 ** rng.integers(-30, 30, shape)
    a = a.astype(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, np.finfo(dtype).tiny / 4,
                         -np.finfo(dtype).smallest_subnormal, np.finfo(dtype).max], dtype=dtype)
    pick = rng.random(shape) < 0.05
    a[pick] = rng.choice(specials, int(pick.sum()))
    payload = rng.random(shape) < 0.01  # (a NaN with another payload)
    raw = a.view(np.uint32 if dtype is np.float32 else np.uint64)
    raw[payload] = np.array(0x7FC12345 if dtype is np.float32 else 0x7FF8000012345678, raw.dtype)
    return a


def _operand(rng: np.random.Generator, nb: int, na: int, dtype: type, form: str) -> np.ndarray:
    """An (nb, na) operand: 'along' the output's rows (row-major), 'across' them (a transpose),
    or those stepped backwards or sliced out of something larger."""
    if form == "along":
        return _values(rng, (nb, na), dtype)
    if form == "across":
        return _values(rng, (na, nb), dtype).T
    if form == "along_back":
        return _values(rng, (nb, na), dtype)[::-1]
    if form == "along_sliced":
        return _values(rng, (nb + 2, na + 3), dtype)[1:-1, 2:-1]
    return _values(rng, (na + 3, nb + 1), dtype)[2:-1, 1:].T  # across, sliced


FORMS = ["along", "across", "along_back", "along_sliced", "across_sliced"]


def _out(nb: int, na: int, dtype: type, form: str) -> np.ndarray:
    if form == "C":
        return np.full((nb, na), 7, dtype)
    if form == "F":
        return np.full((na, nb), 7, dtype).T
    return np.full((nb + 1, na), 7, dtype)[::-1][:nb]  # (rows stepped backwards)


def _check(ufunc: np.ufunc, inputs: tuple[np.ndarray, ...], out_form: str, widened: bool = False) -> None:
    """``widened``: a float64 output computed with ``dtype=float64`` (NumPy's cast of the float32
    inputs), as strided's binary ops call it for a float32 operand of a float64 op."""
    nb, na = inputs[0].shape
    dtype = np.float64 if widened else inputs[0].dtype.type
    kwargs = {"dtype": np.float64, "casting": "unsafe"} if widened else {}
    out = _out(nb, na, dtype, out_form)
    want = _out(nb, na, dtype, out_form)
    with np.errstate(all="ignore"):
        ufunc(*inputs, out=want, **kwargs)
        took = tiles._fused_2d(ufunc, inputs, out, kwargs)
    # (the kernel declines only an output that runs along neither dim: the stepped one does not)
    assert took, (ufunc, [x.strides for x in inputs], out.strides)
    if ufunc in (np.add, np.multiply):
        # Where both operands of + or * are NaN, which NaN NumPy returns is its loop's (its
        # compiler may swap the operands of a commutative op: the contiguous loop gives the first
        # one's, some strided loops the second's); the kernel gives the first one's. Those
        # elements are NaN in both; every other element is compared bit for bit.
        both = np.isnan(inputs[0]) & np.isnan(inputs[1])
        assert np.isnan(out[both]).all()
        out[both] = want[both]
    assert out.tobytes() == want.tobytes(), (ufunc.__name__, nb, na, [x.strides for x in inputs], out.strides)


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ufunc", UFUNCS, ids=lambda u: u.__name__)
def test_every_plane_size_around_blocks_and_tiles(dtype: type, ufunc: np.ufunc) -> None:
    rng = np.random.default_rng(0)
    sizes = [1, 2, 3, 4, 5, 7, 8, 9, 63, 64, 65, 127, 128, 129]  # (the AVX-512 walk: 128 x 128 float32 tiles)
    for nb in sizes:
        for na in [1, 3, 4, 5, 255, 256, 257, 300]:
            x = _operand(rng, nb, na, dtype, "across")
            y = _operand(rng, nb, na, dtype, "along")
            _check(ufunc, (x,) if ufunc is np.sqrt else (x, y), "C")


@needs_kernel
@settings(max_examples=80, deadline=None)
@given(nb=hs.integers(1, 70), na=hs.integers(1, 300), float64=hs.booleans(), ufunc=hs.sampled_from(UFUNCS),
       x_form=hs.sampled_from(FORMS), y_form=hs.sampled_from(FORMS), out_form=hs.sampled_from(["C", "F", "back"]),
       seed=hs.integers(0, 2**31))
def test_every_orientation_gives_numpys_bits(nb: int, na: int, float64: bool, ufunc: np.ufunc, x_form: str,
                                             y_form: str, out_form: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    dtype = np.float64 if float64 else np.float32
    x = _operand(rng, nb, na, dtype, x_form)
    y = _operand(rng, nb, na, dtype, y_form)
    _check(ufunc, (x,) if ufunc is np.sqrt else (x, y), out_form)


@needs_kernel
@settings(max_examples=60, deadline=None)
@given(nb=hs.integers(1, 70), na=hs.integers(1, 300), which=hs.sampled_from(["x", "y", "both"]),
       ufunc=hs.sampled_from(UFUNCS), x_form=hs.sampled_from(FORMS), y_form=hs.sampled_from(FORMS),
       out_form=hs.sampled_from(["C", "F", "back"]), seed=hs.integers(0, 2**31))
def test_float32_inputs_widened_into_float64_give_numpys_bits(nb: int, na: int, which: str, ufunc: np.ufunc,
                                                              x_form: str, y_form: str, out_form: str,
                                                              seed: int) -> None:
    """A float32 operand of a float64 op is read as float32 and widened in the kernel: the bits of
    NumPy's ``dtype=float64`` call (its cast is exact), NaN payloads included."""
    rng = np.random.default_rng(seed)
    x = _operand(rng, nb, na, np.float32 if which in ("x", "both") or ufunc is np.sqrt else np.float64, x_form)
    y = _operand(rng, nb, na, np.float32 if which in ("y", "both") else np.float64, y_form)
    _check(ufunc, (x,) if ufunc is np.sqrt else (x, y), out_form, widened=True)


@needs_kernel
def test_what_it_declines_is_left_to_numpy() -> None:
    rng = np.random.default_rng(1)
    x, y = _values(rng, (40, 30), np.float32).T, _values(rng, (30, 40), np.float32)
    out = np.empty((30, 40), np.float32)
    assert not tiles._fused_2d(np.add, (x, y), out, {"dtype": np.float64, "casting": "unsafe"})  # a cast
    out64 = np.empty((30, 40), np.float64)
    assert not tiles._fused_2d(np.add, (x, y), out64, {})  # float32 into float64 without dtype=: NumPy's own
    assert not tiles._fused_2d(np.add, (x, y), out64, {"dtype": np.float64, "casting": "same_kind"})
    half = np.ones((30, 40), np.float16)
    assert not tiles._fused_2d(np.add, (half, y), out64, {"dtype": np.float64, "casting": "unsafe"})
    assert not tiles._fused_2d(np.add, (x.astype(">f4"), y), out64, {"dtype": np.float64, "casting": "unsafe"})
    assert not tiles._fused_2d(np.maximum, (x, y), out, {})  # (NaN rules of its own)
    assert not tiles._fused_2d(np.add, (x, y[:1]), out, {})  # broadcasting
    assert not tiles._fused_2d(np.add, (x, y.astype(np.float64)), out, {})  # another dtype
    ints = np.arange(1200, dtype=np.int32).reshape(40, 30).T
    assert not tiles._fused_2d(np.add, (ints, ints.copy()), np.empty((30, 40), np.int32), {})
    overlapping = np.lib.stride_tricks.as_strided(np.empty(100, np.float32), (30, 40), (4, 4))
    assert not tiles._fused_2d(np.add, (x, y), overlapping, {})  # its rows overlap
    stepped = _values(rng, (30, 80), np.float32)[:, ::2]
    assert not tiles._fused_2d(np.add, (x, stepped), out, {})  # runs along neither dim
    raw = np.zeros(30 * 40 * 4 + 1, np.uint8)
    misaligned = raw[1:].view(np.float32).reshape(30, 40)
    assert not tiles._fused_2d(np.add, (x, misaligned), out, {})
    with native.disabled():
        assert not tiles._fused_2d(np.add, (x, y), out, {})


@pytest.mark.parametrize("case", ["add_out", "sub_new", "mul_both_across", "div_f64", "sqrt_out", "inplace",
                                  "cast_new", "cast_inplace"])
def test_strided_ops_are_the_same_bits_either_way(case: str) -> None:
    """Large enough for the blocked paths (tiles.MIN_NUMEL), through strided's own ops."""
    rng = np.random.default_rng(2)
    n = 400
    dtype = strided.float64 if case == "div_f64" else strided.float32
    base = _values(rng, (n, n + 3), np.float64 if dtype is strided.float64 else np.float32)
    x = strided.tensor(base.tolist(), dtype=dtype)
    y = strided.tensor(_values(rng, (n + 3, n), np.float32).tolist(), dtype=dtype)

    def run() -> np.ndarray:
        if case == "add_out":
            o = strided.empty(n + 3, n, dtype=dtype)
            strided.add(x.t(), y, out=o)
            return o.numpy()
        if case == "sub_new":
            return (x.t() - y).numpy()
        if case == "mul_both_across":
            o = strided.empty(n + 3, n, dtype=dtype)
            strided.mul(x.t(), y.t().contiguous().t(), out=o)
            return o.numpy()
        if case == "div_f64":
            return (x.t() / y).numpy()
        if case == "sqrt_out":
            o = strided.empty(n + 3, n, dtype=dtype)
            strided.sqrt(x.t(), out=o)
            return o.numpy()
        if case == "cast_new":  # (float32 x, float64 y: x read widened)
            return (x.t() * y.double()).numpy()
        if case == "cast_inplace":
            z = y.double()
            z.sub_(x.t())
            return z.numpy()
        z = y.clone()
        z.add_(x.t())
        return z.numpy()

    with np.errstate(all="ignore"):
        fast = run()
        with native.disabled():
            plain = run()
    assert fast.strides == plain.strides
    assert fast.tobytes() == plain.tobytes()


def test_widened_cast_matches_torch() -> None:
    """``x.t() + y`` with a float32 ``x`` and a float64 ``y``: PyTorch's float64 result, bit for bit."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a = _values(rng, (300, 260), np.float32)
    b = _values(rng, (260, 300), np.float64)
    with np.errstate(all="ignore"):
        got = (strided.from_numpy(a).t() + strided.from_numpy(b)).numpy()
    want = (torch.from_numpy(a).t() + torch.from_numpy(b)).numpy()
    assert got.dtype == want.dtype == np.float64
    both = np.isnan(got) & np.isnan(want)
    assert np.isnan(got).sum() == np.isnan(want).sum()
    assert got[~both].tobytes() == want[~both].tobytes()


_OFFSETS_SCRIPT = """
import numpy as np
from strided.kernels import tiles
rng = np.random.default_rng(9)
def vals(n, dt):
    a = (rng.standard_normal(n) * 10.0 ** rng.integers(-30, 30, n)).astype(dt)
    a[rng.random(n) < 0.05] = np.nan
    a[rng.random(n) < 0.02] = -np.inf
    return a
def view(dt, off, shape, across, fill=None):
    sz = np.dtype(dt).itemsize
    n = shape[0] * shape[1]
    raw = np.zeros(n * sz + 64, np.uint8)
    flat = raw[off:off + n * sz].view(dt)
    flat[...] = vals(n, dt) if fill is None else fill
    return flat.reshape(shape[::-1]).T if across else flat.reshape(shape)
count = 0
for ufunc in (np.add, np.subtract, np.multiply, np.true_divide, np.sqrt):
    for dt, src in (("f4", "f4"), ("f8", "f8"), ("f8", "f4")):
        sz = np.dtype(dt).itemsize
        for nb, na in ((32, 48), (48, 32), (33, 50), (16, 16), (5, 64), (64, 5), (70, 140)):
            for oo in range(0, 64, 12 if sz == 4 else 24):
                for xo in range(0, 64, 20 if np.dtype(src).itemsize == 4 else 24):
                    x = view(src, xo, (nb, na), True)
                    y = view(dt, 8, (nb, na), False)
                    inputs = (x,) if ufunc is np.sqrt else (x, y)
                    kw = {"dtype": np.float64, "casting": "unsafe"} if src != dt else {}
                    out = view(dt, oo, (nb, na), False, 7)
                    want = np.full((nb, na), 7, dt)
                    with np.errstate(all="ignore"):
                        ufunc(*inputs, out=want, **kw)
                        assert tiles._fused_2d(ufunc, inputs, out, kw)
                    if ufunc in (np.add, np.multiply):
                        both = np.isnan(inputs[0]) & np.isnan(inputs[1])
                        assert np.isnan(out[both]).all()
                        out[both] = want[both]
                    assert out.tobytes() == want.tobytes(), (ufunc.__name__, dt, src, nb, na, oo, xo)
                    count += 1
print(count)
"""


@needs_kernel
def test_every_offset_within_a_cache_line_on_both_walks() -> None:
    """The output and the input across its rows at every offset within a 64-byte line (the wide
    walk's heads: the first rows up to the input's next line, the first columns up to the
    output's, where the strides are multiples of 64 bytes), plane sizes around the 16 x 16 / 8 x 8
    blocks, float32, float64 and float32 widened into float64: NumPy's bits, with the AVX-512
    walk (where the CPU has it) and the SSE one (a fresh process, STRIDED_NATIVE_COPY_ISA=sse)."""
    import fresh_runs

    runs = fresh_runs.outputs(_OFFSETS_SCRIPT, {}, {"STRIDED_NATIVE_COPY_ISA": "sse"})
    assert runs[0] == runs[1] and int(runs[0]) > 1000


@needs_kernel
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div"])
def test_out_against_both_inputs_takes_the_one_pass(dtype: str, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``op(x.t(), y.t(), out=o)`` with a row-major ``o``: computed straight into ``o`` by the
    compiled pass (both inputs read across its rows), not through a fresh result; PyTorch's
    values (NaN where it has NaN), the bits of the path without the kernel, ``o`` itself returned
    with its strides. Mixed dtypes and other ops keep the fresh result."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    a = _values(rng, (300, 260), getattr(np, dtype))
    b = _values(rng, (300, 260), getattr(np, dtype))
    calls = []
    real = tiles._fused_2d
    monkeypatch.setattr(tiles, "_fused_2d", lambda *args: calls.append(1) or real(*args))
    op = getattr(strided, name)
    o = strided.empty(260, 300, dtype=getattr(strided, dtype))
    with np.errstate(all="ignore"):
        got = op(strided.from_numpy(a).t(), strided.from_numpy(b).t(), out=o)
        assert got is o and o.stride() == (300, 1) and calls == [1]
        with native.disabled():
            plain = op(strided.from_numpy(a).t(), strided.from_numpy(b).t(), out=strided.empty(260, 300, dtype=o.dtype))
    want = getattr(torch, name)(torch.from_numpy(a).t(), torch.from_numpy(b).t()).numpy()
    assert o.numpy().tobytes() == plain.numpy().tobytes()
    nan = np.isnan(want)
    assert (np.isnan(o.numpy()) == nan).all()
    assert o.numpy()[~nan].tobytes() == want[~nan].tobytes()
    calls.clear()  # (a float32 input of a float64 op: the fresh result and one write, as before)
    with np.errstate(all="ignore"):
        op(strided.from_numpy(a.astype(np.float32)).t(), strided.from_numpy(b.astype(np.float64)).t(),
           out=strided.empty(260, 300, dtype=strided.float64))
    assert calls == []
