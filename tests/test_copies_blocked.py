"""Elementwise ops whose input and output memory orders differ (issue 23), the two shortcuts:

- a cast into the output's dtype goes through the output (kernels/tiles.py ``_through_out``): the
  input running against the output is cast by the blocked copy into it, the others by the ufunc.
  It must leave exactly the bytes of one plain ufunc call.
- ``op(a, b, out=o)`` of a large elementwise op computes into ``o`` directly
  (ops/_support/out.py ``into_out``): no fresh result and no second (transposing) write. It must
  leave exactly what the general path leaves (values, ``o``'s layout, the version counter), raise
  exactly its errors, and keep the watch and copy-ledger records (a listened call takes the
  general path).

The size thresholds are lowered (monkeypatched module constants) so that small tensors take the
shortcuts; each test compares them with the general path forced by a huge threshold.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import tiles
from strided.ops._support import out as out_mod
from strided.ops.elementwise import binary as binary_mod

SPECIALS = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -3.5]


def _data(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """Random values of ``dtype`` with the float specials (NaN, -0.0, inf, subnormals) sprinkled in."""
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-(2**40) if dtype == "int64" else -100, 2**40 if dtype == "int64" else 100,
                            shape).astype(dtype)
    a = (rng.standard_normal(shape) * 50).astype(dtype)
    flat = a.reshape(-1)
    if flat.size:
        picks = rng.integers(0, flat.size, max(1, flat.size // 4))
        flat[picks] = np.array(SPECIALS, dtype)[rng.integers(0, len(SPECIALS), picks.size)]
    return a


# ---------------------------------------------------------------- kernel level: a cast through the output


def _against(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """A view of ``shape`` whose memory order is reversed (a transpose of a row-major array), with
    an offset."""
    base = _data(rng, (2,) + shape[::-1], dtype)[1]
    return base.transpose(tuple(range(len(shape)))[::-1])


def _along(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """A row-major view of ``shape``, maybe stepped along its outer dim, with an offset."""
    base = _data(rng, (2 * shape[0] + 1,) + shape[1:], dtype)
    return base[1::2] if rng.random() < 0.5 else base[1:shape[0] + 1]


@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.true_divide, np.maximum, np.fmin])
@pytest.mark.parametrize(("against", "along", "compute"), [
    ("float64", "float32", "float64"),  # the input against the output holds its dtype: through out
    ("float32", "int64", "float32"),  # (int64 -> float32 rounds, in the ufunc's cast)
    ("int64", "bool", "int64"),
    ("float32", "float64", "float64"),  # the input against the output needs the cast: tiled
    ("float64", "float64", "float32"),  # a narrowing cast of every input: tiled
])
def test_a_cast_through_the_output_leaves_one_plain_calls_bytes(ufunc: np.ufunc, against: str, along: str,
                                                               compute: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tiles, "MIN_NUMEL", 0)
    if ufunc is np.true_divide and compute == "int64":
        ufunc = np.bitwise_xor  # (no integer loop for true division)
    rng = np.random.default_rng(zlib.crc32(f"{ufunc.__name__} {against} {along} {compute}".encode()))
    kwargs = {"dtype": np.dtype(compute), "casting": "unsafe"}
    for shape in ((7, 9), (3, 5, 4), (1, 6), (0, 3)):
        x, y = _against(rng, shape, against), _along(rng, shape, along)
        for inputs in ((x, y), (y, x)):
            buffer = np.full(int(np.prod(shape)) + 2, 7, compute)
            out = buffer[2:].reshape(shape)  # row-major, offset 2: y's order, against x's
            expected_buffer = buffer.copy()
            with np.errstate(all="ignore"):
                ufunc(*inputs, out=expected_buffer[2:].reshape(shape), **kwargs)
                tiles.ufunc_into(ufunc, inputs, out, kwargs)
            assert buffer.tobytes() == expected_buffer.tobytes(), (shape, inputs[0].dtype)


def test_which_casts_go_through_the_output() -> None:
    m = np.arange(30.0).reshape(5, 6)
    n32 = (np.arange(30, dtype=np.float32).reshape(6, 5) * 3)
    f64 = {"dtype": np.dtype(np.float64), "casting": "unsafe"}
    out = np.empty((5, 6))  # m's order: n32.T runs against it
    with np.errstate(all="ignore"):
        # a comparison's signature, a compute dtype that is not the output's, a complex input
        less = {"signature": (np.float64, np.float64, np.bool_), "casting": "unsafe"}
        assert not tiles._through_out(np.less, (n32.T, m), np.empty((5, 6), bool), less)
        assert not tiles._through_out(np.add, (n32.T, m), np.empty((5, 6), np.float32), f64)
        assert not tiles._through_out(np.add, (n32.T.astype(np.complex64), m), out, f64)
        # without a cast, inputs of another dtype are still refused (NumPy would pick another loop)
        assert not tiles._through_out(np.add, (n32.T, m), out, {})
        # the input against the output needs the cast itself: refused
        assert not tiles._through_out(np.add, (n32.T, m), out, f64)
        n64 = n32.astype(np.float64)
        m32 = m.astype(np.float32)
        assert tiles._through_out(np.subtract, (m32, n64.T), out, f64)
        np.testing.assert_array_equal(out, np.subtract(m32, n64.T, dtype=np.float64))


def test_a_cast_op_through_the_tensors_matches_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    """``x.t() + y`` with x float32 and y float64 (the cast case), fresh and in place."""
    monkeypatch.setattr(tiles, "MIN_NUMEL", 0)
    rng = np.random.default_rng(3)
    x, y = _data(rng, (9, 7), "float32"), _data(rng, (7, 9), "float64")
    got = st.from_numpy(x).t() + st.from_numpy(y)
    want = torch.from_numpy(x).t() + torch.from_numpy(y)
    assert got.stride() == want.stride() and got.dtype == st.float64
    assert np.ascontiguousarray(got.numpy()).tobytes() == np.ascontiguousarray(want.numpy()).tobytes()
    i = _data(rng, (7, 9), "int64")
    got = st.from_numpy(i).t() * st.from_numpy(x)
    want = torch.from_numpy(i).t() * torch.from_numpy(x)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


# ---------------------------------------------------------------- out=: computed into out directly


@pytest.fixture
def direct(monkeypatch: pytest.MonkeyPatch):
    """Run ``make()`` with the direct path on (every size) and forced off; return both results."""
    def run(make):
        # (reading a version turns version counting on: before, writes are not counted, and the
        # first snapshot's read would make the two runs count differently when this test runs alone)
        st.zeros(1)._version  # noqa: B018
        monkeypatch.setattr(out_mod, "INTO_OUT_NUMEL", 1 << 62)
        general = make()
        monkeypatch.setattr(out_mod, "INTO_OUT_NUMEL", 0)
        return make(), general
    monkeypatch.setattr(tiles, "MIN_NUMEL", 0)  # (the blocked walks run on small tensors too)
    return run


def _snapshot(t: st.Tensor) -> tuple:
    return (t._storage.array.tobytes(), t.shape, t.stride(), t.storage_offset(), t.dtype, t._version)


OPS = [st.add, st.sub, st.mul, st.div, st.maximum, st.minimum, st.lt, st.eq, st.ne]


@pytest.mark.parametrize("op", OPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_out_computed_directly_equals_the_general_path(op, dtype: str, direct) -> None:
    if dtype == "bool" and op is st.sub:
        return  # (bool subtraction is refused: covered by the error test below)
    rng = np.random.default_rng(11)
    result_dtype = st.bool if op in (st.lt, st.eq, st.ne) else (
        st.float32 if op is st.div and dtype in ("int64", "bool") else getattr(st, dtype))
    for shape, perm in (((6, 10), (1, 0)), ((4, 5, 6), (2, 0, 1)), ((4, 5, 6), (2, 1, 0)), ((0, 4), (1, 0))):
        xs = _data(rng, tuple(shape[p] for p in perm), dtype)
        ys = _data(rng, shape, dtype)

        def make(xs=xs, ys=ys, perm=perm, shape=shape):
            x = st.from_numpy(xs).permute(*np.argsort(perm).tolist())  # against the row-major out
            y = st.from_numpy(ys)
            o = st.zeros(2 * int(np.prod(shape)) + 3, dtype=result_dtype)[3:3 + int(np.prod(shape))].view(*shape)
            r = op(x, y, out=o)
            assert r is o
            return _snapshot(o)

        got, general = direct(make)
        assert got == general, (op.__name__, dtype, shape)
        # and PyTorch's values
        x = torch.from_numpy(xs).permute(*np.argsort(perm).tolist())
        want = getattr(torch, op.__name__)(x, torch.from_numpy(ys))
        o = st.from_numpy(xs).permute(*np.argsort(perm).tolist())
        mine = op(o, st.from_numpy(ys))
        np.testing.assert_array_equal(mine.numpy(), want.numpy())


def test_the_direct_path_runs_and_skips_the_write(direct, monkeypatch: pytest.MonkeyPatch) -> None:
    """Above the threshold, nothing is written by write_out (the op wrote ``out`` itself); a
    transposed ``out`` keeps its own strides."""
    monkeypatch.setattr(out_mod, "INTO_OUT_NUMEL", 0)
    calls: list[str] = []
    real = binary_mod.write_out
    monkeypatch.setattr(binary_mod, "write_out", lambda *a, **k: calls.append("write") or real(*a, **k))
    x, y = st.rand(5, 8), st.rand(8, 5)
    o = st.empty(5, 8).t()  # column-major (8, 5): x.t()'s order, against y
    st.mul(x.t(), y, out=o)
    assert calls == [] and o.stride() == (1, 8)
    np.testing.assert_array_equal(o.numpy(), x.t().numpy() * y.numpy())
    st.mul(x.t(), y[:1], out=st.empty(8, 5))  # (broadcasting: the general path)
    assert calls == ["write"]


def _error(f) -> tuple[type, str]:
    try:
        f()
    except Exception as e:  # noqa: BLE001 - the class and text are what is compared
        return type(e), str(e).splitlines()[0]
    return type(None), ""


def test_refused_outs_raise_the_general_paths_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each refusal (PyTorch's class and first line) is the general path's: the shortcut declines."""
    def cases() -> list:
        x, y = st.rand(4, 6), st.rand(6, 4)
        base = st.rand(4, 7).t()  # (7, 4), column-major
        b = st.ones(6, 4, dtype=st.bool)
        g = st.rand(6, 4, requires_grad=True)
        return [
            lambda: st.add(x.t(), y, out=st.empty(6, 4, dtype=st.int64)),  # result can't be cast
            # overlaps an input where PyTorch's loop reads each row after writing it (it lets that through,
            # its number a running sum down the column; strided refuses: tests/test_red25.py)
            lambda: st.add(base[:6], y.t().t(), out=base[1:]),
            lambda: st.add(x.t(), g, out=st.empty(6, 4)),  # an input requires grad
            lambda: st.sub(b, b, out=st.empty(6, 4, dtype=st.bool)),  # bool subtraction
            lambda: st.add(x.t(), y, out=st.empty(6, 4).expand(6, 4)[:, :1].expand(6, 4)),  # overlapping out
            lambda: st.add(x.t(), y, out="not a tensor"),
        ]
    monkeypatch.setattr(out_mod, "INTO_OUT_NUMEL", 1 << 62)
    general = [_error(f) for f in cases()]
    monkeypatch.setattr(out_mod, "INTO_OUT_NUMEL", 0)
    assert [_error(f) for f in cases()] == general
    assert [cls is type(None) for cls, _ in general] == [False, False, False, False, False, False]
    t, tg = torch.rand(4, 6), torch.rand(6, 4, requires_grad=True)
    for mine, theirs in ((cases()[0], lambda: torch.add(t.t(), t.t(), out=torch.empty(6, 4, dtype=torch.int64))),
                         (cases()[2], lambda: torch.add(t.t(), tg, out=torch.empty(6, 4)))):
        assert _error(mine)[1].split(":")[0] == _error(theirs)[1].split(":")[0]


def test_out_that_is_an_input_keeps_todays_result(direct) -> None:
    """``add(x, y, out=x)`` (full overlap: allowed, as in PyTorch) takes the general path."""
    rng = np.random.default_rng(5)
    xs, ys = _data(rng, (6, 8), "float32"), _data(rng, (8, 6), "float32")

    def make():
        x, y = st.from_numpy(xs.copy()), st.from_numpy(ys)
        st.add(x, y.t(), out=x)
        return _snapshot(x)

    got, general = direct(make)
    assert got == general
    t = torch.from_numpy(xs.copy())
    torch.add(t, torch.from_numpy(ys).t(), out=t)
    assert got[0] == t.numpy().tobytes()


def test_listeners_see_the_same_records(direct) -> None:
    """Under watch and the copy ledger the call takes the general path: the same records."""
    def make():
        x, y = st.arange(40.0).view(5, 8), st.arange(40.0).view(8, 5)
        o = st.empty(8, 5)
        with st.record_copies() as copies, st.watch() as seen:
            st.add(x.t(), y, out=o)
        return ([(c.nbytes, c.reason, c.shape) for c in copies], [str(s) for s in seen.steps], seen.allocated_bytes,
                seen.peak_bytes, _snapshot(o))

    got, general = direct(make)
    assert got == general and got[1]  # (the watch saw the op and the write)


def test_autograd_version_counter_is_bumped_as_before(direct) -> None:
    """A tensor saved for backward and then overwritten through out= fails at backward, both ways."""
    def make():
        w = st.rand(6, 4, requires_grad=True)
        saved = st.zeros(4, 6)
        loss = (w * saved.t()).sum()  # saved.t() is saved for w's gradient
        with st.no_grad():
            st.add(st.ones(6, 4), st.ones(4, 6).t(), out=saved.t())
        return _error(loss.backward), saved._version

    got, general = direct(make)
    assert got == general and got[0][0] is not type(None)


# ---------------------------------------------------------------- unary out=: sqrt and abs


@pytest.mark.parametrize("ufunc", [np.sqrt, np.absolute, np.exp, np.negative])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_unary_into_leaves_one_plain_calls_bytes(ufunc: np.ufunc, dtype: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the output for sqrt and |x| (exp and negative: the one plain call), any layout."""
    monkeypatch.setattr(tiles, "MIN_NUMEL", 0)
    if dtype == "int32" and ufunc in (np.sqrt, np.exp):
        ufunc = np.invert  # (their int results are floats: an int32 output cannot hold them)
    rng = np.random.default_rng(zlib.crc32(f"{ufunc.__name__} {dtype}".encode()))
    for shape in ((7, 9), (3, 5, 4), (1, 6), (0, 3)):
        x = _against(rng, shape, dtype)
        for out_of in (lambda b, s=shape: b[2:].reshape(s), lambda b, s=shape: b[2:].reshape(s[::-1]).T):
            buffer = np.full(int(np.prod(shape)) + 2, 7, dtype)
            expected_buffer = buffer.copy()
            with np.errstate(all="ignore"):
                ufunc(x, out=out_of(expected_buffer))
                tiles.unary_into(ufunc, x, out_of(buffer))
            assert buffer.tobytes() == expected_buffer.tobytes(), shape


@pytest.mark.parametrize("op", [st.sqrt, st.abs, st.exp, st.neg], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_unary_out_computed_directly_equals_the_general_path(op, dtype: str, direct) -> None:
    rng = np.random.default_rng(zlib.crc32(f"{op.__name__} {dtype}".encode()))
    result_dtype = st.float32 if dtype == "int64" and op in (st.sqrt, st.exp) else getattr(st, dtype)
    for shape, perm in (((6, 10), (1, 0)), ((4, 5, 6), (2, 0, 1)), ((0, 4), (1, 0))):
        xs = _data(rng, tuple(shape[p] for p in perm), dtype)
        axes = np.argsort(perm).tolist()

        def make(xs=xs, axes=axes, shape=shape):
            o = st.zeros(int(np.prod(shape)) + 3, dtype=result_dtype)[3:].view(*shape)
            assert op(st.from_numpy(xs).permute(*axes), out=o) is o
            return _snapshot(o)

        got, general = direct(make)
        assert got == general, (op.__name__, dtype, shape)
        # PyTorch's values (NaN for NaN: the sign of sqrt's NaN of a negative is NumPy's on both
        # paths; a float32 tolerance: PyTorch's vectorized float32 sqrt and exp are 1 ulp off at
        # times, NumPy's sqrt is correctly rounded)
        want = getattr(torch, op.__name__)(torch.from_numpy(xs).permute(*axes))
        mine = np.frombuffer(got[0], want.numpy().dtype)[3:].reshape(shape)
        np.testing.assert_allclose(mine, want.numpy(), rtol=3e-7 if result_dtype is st.float32 else 1e-15)


def test_only_sqrt_and_abs_skip_the_write(monkeypatch: pytest.MonkeyPatch) -> None:
    from strided.ops.elementwise import unary as unary_mod

    monkeypatch.setattr(out_mod, "INTO_OUT_NUMEL", 0)
    calls: list[str] = []
    real = unary_mod.write_out
    monkeypatch.setattr(unary_mod, "write_out", lambda *a, **k: calls.append(a[2]) or real(*a, **k))
    x = st.rand(5, 8)
    for op in (st.sqrt, st.abs, st.exp, st.neg, st.sin):
        op(x.t(), out=st.empty(8, 5))
    st.sqrt(x.t().to(st.float16), out=st.empty(8, 5, dtype=st.float16))  # (float16: the general path)
    from strided.kernels import vml_route

    # (with MKL's VML route, float32 sqrt is VML's -- PyTorch's bits -- through the general path's write)
    assert calls == (["sqrt"] if vml_route.possible() else []) + ["exp", "neg", "sin", "sqrt"]


@pytest.mark.parametrize("op", [st.maximum, st.minimum, st.fmax, st.fmin], ids=lambda f: f.__name__)
def test_signed_zero_ties_are_the_general_paths(op, direct) -> None:
    """max/min of 0.0 and -0.0 may return either zero depending on NumPy's loop (SIMD or scalar
    tail): the direct out= path (another layout, so other tails) must pick the same ones."""
    rng = np.random.default_rng(7)
    for shape in ((7, 9), (5, 13), (33, 17)):
        for dtype in ("float32", "float64"):
            xs = np.where(rng.random(shape[::-1]) < 0.5, -0.0, 0.0).astype(dtype)
            ys = np.where(rng.random(shape) < 0.5, -0.0, 0.0).astype(dtype)

            def make(xs=xs, ys=ys, shape=shape, dtype=dtype):
                o = st.empty(*shape, dtype=getattr(st, dtype))
                op(st.from_numpy(xs).t(), st.from_numpy(ys), out=o)
                return _snapshot(o)

            got, general = direct(make)
            assert got == general, (shape, dtype)
