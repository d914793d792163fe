"""Red team of ``op(a, b, out=o)`` computed straight into ``o`` (ops/_support/out.py ``into_out``,
ops/elementwise/binary.py ``_into_out``, kernels/tiles.py ``unary_into`` and the cast through the
output), beyond tests/test_copies_blocked.py: the dtypes and layouts that file does not try
(complex, float16, bfloat16, small ints, mixed dtypes, expanded and stepped inputs, permuted 3-d
outs at an offset), out= of another dtype, a real-size call at the default thresholds, the version
counter after autograd was used, no_grad with an ``out`` that requires grad, inference mode, two
threads, and an ``out`` that aliases an input through a second NumPy-backed storage.

Each case runs with the direct path forced on (thresholds 0) and off (huge thresholds): the
bytes of ``out``'s whole storage, its strides and its version must agree, and PyTorch's values
(or its error) are checked where PyTorch has them.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import tiles
from strided.ops._support import out as out_mod

SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, 3.5, 70000.0])


def _values(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    a = rng.standard_normal(shape) * 40
    flat = a.reshape(-1)
    picks = rng.integers(0, flat.size, flat.size // 4)
    flat[picks] = SPECIALS[rng.integers(0, SPECIALS.size, picks.size)]
    return a


def _tensor(rng: np.random.Generator, shape: tuple[int, ...], dtype: str, kind: str) -> st.Tensor:
    """A ``dtype`` tensor of ``shape``: row-major ("c"), transposed ("t"), a row expanded ("e"),
    or every other column of a wider one ("s")."""
    made = {"c": shape, "t": shape[::-1], "e": (1,) + shape[1:], "s": shape[:-1] + (2 * shape[-1],)}[kind]
    a = _values(rng, made)
    if dtype == "bool":
        t = st.from_numpy(a > 0)
    elif dtype.startswith("complex"):
        z = np.empty(made, np.complex128)
        z.real, z.imag = a, _values(rng, made)
        t = st.from_numpy(z).to(getattr(st, dtype))
    else:
        t = st.from_numpy(a).to(getattr(st, dtype))
    if kind == "t":
        return t.t()
    return t.expand(*shape) if kind == "e" else t[..., ::2] if kind == "s" else t


def _outs(shape: tuple[int, int], dtype: st.dtype) -> list:
    """Row-major, column-major, and row-major at storage offset 3 (the storage zeroed: its bytes
    are compared whole)."""
    n = shape[0] * shape[1]
    return [lambda: st.zeros(*shape, dtype=dtype), lambda: st.zeros(*shape[::-1], dtype=dtype).t(),
            lambda: st.zeros(n + 3, dtype=dtype)[3:].view(*shape)]


def _snapshot(t: st.Tensor) -> tuple:
    return (t._storage.array.tobytes(), t.shape, t.stride(), t.storage_offset(), t.dtype, t._version)


@pytest.fixture
def both(monkeypatch: pytest.MonkeyPatch):
    """``both(make)``: (``make()`` with the direct path on at every size, ``make()`` with it off)."""
    monkeypatch.setattr(tiles, "MIN_NUMEL", 0)
    # the first read of any ``_version`` switches version counting on (until then in-place writes
    # skip the counters): read one now so that both runs below count their writes alike
    assert st.zeros(1)._version == 0

    def run(make):
        monkeypatch.setattr(out_mod, "INTO_OUT_NUMEL", 1 << 62)
        general = make()
        monkeypatch.setattr(out_mod, "INTO_OUT_NUMEL", 0)
        return make(), general
    return run


def _torch(t: st.Tensor) -> torch.Tensor:
    if t.dtype == st.bfloat16:
        return torch.from_numpy(np.ascontiguousarray(t.to(st.float32).numpy())).to(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(t.numpy()))


def _numpy(t) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return (t.float() if t.dtype == torch.bfloat16 else t).numpy()
    return (t.to(st.float32) if t.dtype == st.bfloat16 else t).numpy()


@pytest.mark.parametrize(("da", "db"), [
    ("complex64", "complex64"), ("complex128", "complex64"), ("float16", "float16"), ("bfloat16", "bfloat16"),
    ("float16", "float32"), ("bfloat16", "float64"), ("int8", "uint8"), ("int32", "float32"), ("bool", "int64"),
    ("float32", "float64"), ("int64", "bool"),
])
def test_direct_equals_the_general_path_for_every_dtype_pair(da: str, db: str, both) -> None:
    rng = np.random.default_rng(sum(map(ord, da + db)))
    shape = (6, 10)
    ops = [st.add, st.mul, st.div, st.eq, st.ne]
    if not (da.startswith("complex") or db.startswith("complex")):
        ops += [st.maximum, st.minimum, st.fmax, st.fmin, st.lt, st.ge]
    for op in ops:
        for ka, kb in (("t", "c"), ("c", "t"), ("t", "e"), ("s", "t")):
            a, b = _tensor(rng, shape, da, ka), _tensor(rng, shape, db, kb)
            want = getattr(torch, op.__name__)(_torch(a), _torch(b))
            result = op(a, b).dtype
            for make_out in _outs(shape, result):
                def make(make_out=make_out, op=op, a=a, b=b):
                    o = make_out()
                    assert op(a, b, out=o) is o
                    return _snapshot(o)
                got, general = both(make)
                assert got == general, (op.__name__, da, db, ka, kb)
            o = _outs(shape, result)[1]()
            op(a, b, out=o)
            if not (da.startswith("complex") or db.startswith("complex")):
                # (complex add/sub with a non-finite part: PyTorch's a + alpha * b differs, a
                # known divergence of the general path too, reported separately)
                np.testing.assert_array_equal(_numpy(o), _numpy(want), err_msg=f"{op.__name__} {da} {db}")


def test_float16_opmath_by_a_one_valued_operand(both) -> None:
    """float16 mul/div by an expanded one-value tensor compute in float32 (PyTorch's opmath):
    the direct path must keep that rule."""
    rng = np.random.default_rng(2)
    x = st.from_numpy(_values(rng, (10, 6))).to(st.float16).t()
    for op in (st.mul, st.div):
        b = st.tensor(1.7, dtype=st.float16).expand(6, 10)

        def make(op=op, b=b):
            o = st.zeros(6, 10, dtype=st.float16)
            op(x, b, out=o)
            return _snapshot(o)
        got, general = both(make)
        assert got == general
        want = getattr(torch, op.__name__)(_torch(x), torch.tensor(1.7, dtype=torch.float16).expand(6, 10))
        np.testing.assert_array_equal(np.frombuffer(got[0], np.float16).reshape(6, 10), want.numpy())


def test_out_of_another_dtype_casts_or_refuses_as_torch(both) -> None:
    """An out= whose dtype is not the result's takes the general path: PyTorch's cast, or its
    refusal (float into an integer out), and the same for an integer true division."""
    rng = np.random.default_rng(4)
    f32, i64 = _tensor(rng, (6, 10), "float32", "t"), _tensor(rng, (6, 10), "int64", "c")
    cases = [(st.add, f32, f32, st.float64), (st.add, i64, i64, st.float32), (st.div, i64, i64, st.float64),
             (st.lt, f32, i64, st.float32), (st.add, f32, f32, st.int64), (st.div, i64, i64, st.int64)]
    for op, a, b, dtype in cases:
        def make(op=op, a=a, b=b, dtype=dtype):
            o = st.zeros(6, 10, dtype=dtype)
            try:
                op(a, b, out=o)
            except Exception as e:  # noqa: BLE001 - the class and first line are compared
                kind = "RuntimeError" if isinstance(e, RuntimeError) else type(e).__name__
                return kind, str(e).splitlines()[0], _snapshot(o)
            return _snapshot(o)
        got, general = both(make)
        assert got == general
        t = torch.zeros(6, 10, dtype=getattr(torch, str(dtype).split(".")[-1]))
        try:
            getattr(torch, op.__name__)(_torch(a), _torch(b), out=t)
        except RuntimeError as e:
            assert got[:2] == ("RuntimeError", str(e).splitlines()[0])
        else:
            np.testing.assert_array_equal(np.frombuffer(got[0], t.numpy().dtype).reshape(6, 10), t.numpy())


def test_a_real_size_call_at_the_default_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    """65,536 elements (the threshold itself), the input against a transposed out: the general
    path's bits (signed-zero ties of max/min are the loop's: PyTorch's differ on both paths) and
    PyTorch's values, NaN included."""
    rng = np.random.default_rng(9)
    xs, ys = _values(rng, (256, 256)).astype(np.float32), _values(rng, (256, 256)).astype(np.float32)
    x, y = st.from_numpy(xs).t(), st.from_numpy(ys)
    for op in (st.add, st.maximum, st.fmin, st.sqrt):
        args = (x,) if op is st.sqrt else (x, y)
        general = st.empty(256, 256).t()
        with monkeypatch.context() as m:
            m.setattr(out_mod, "INTO_OUT_NUMEL", 1 << 62)
            op(*args, out=general)
        o = st.empty(256, 256).t()
        op(*args, out=o)
        assert o.stride() == (1, 256)
        assert o._storage.array.tobytes() == general._storage.array.tobytes(), op.__name__
        want = getattr(torch, op.__name__)(*(torch.from_numpy(a.numpy()) for a in args))
        if op is st.sqrt:  # (PyTorch's vectorized float32 sqrt is 1 ulp off at times)
            np.testing.assert_allclose(o.numpy(), want.numpy(), rtol=3e-7)
        else:
            np.testing.assert_array_equal(o.numpy(), want.numpy())


def test_version_bumped_once_per_write_after_autograd_was_used(both) -> None:
    w = st.rand(3, requires_grad=True)
    (w * 2).sum().backward()  # (from here on, out= writes count)
    tw = torch.rand(3, requires_grad=True)
    (tw * 2).sum().backward()

    def make():
        x, o = st.rand(10, 6).t(), st.zeros(6, 10)
        st.add(x, x.contiguous(), out=o)
        st.sqrt(x, out=o)
        return o._version
    got, general = both(make)
    to = torch.zeros(6, 10)
    tx = torch.rand(10, 6).t()
    torch.add(tx, tx.contiguous(), out=to)
    torch.sqrt(tx, out=to)
    assert got == general == to._version == 2


def test_no_grad_out_that_requires_grad(both) -> None:
    """Under no_grad an out= that requires grad is written (PyTorch: no refusal, no history)."""
    def make():
        o = st.zeros(6, 10, requires_grad=True)
        with st.no_grad():
            st.mul(st.ones(10, 6).t(), st.full((6, 10), 2.0), out=o)
        return _snapshot(o), o.requires_grad, o.grad_fn is None
    got, general = both(make)
    assert got == general and got[1:] == (True, True)
    t = torch.zeros(6, 10, requires_grad=True)
    with torch.no_grad():
        torch.mul(torch.ones(10, 6).t(), torch.full((6, 10), 2.0), out=t)
    assert got[0][0] == t.detach().numpy().tobytes()


def test_inference_mode_takes_the_general_path(both) -> None:
    """Inside inference_mode (a listener) the call is the general path's, records and all; an
    inference tensor as out= outside the block is PyTorch's refusal."""
    def make():
        x, o = st.rand(10, 6).t(), st.zeros(6, 10)
        with st.inference_mode():
            st.add(x, x.contiguous(), out=o)
            inf = st.zeros(6, 10)
        try:
            st.add(x, x.contiguous(), out=inf)
        except RuntimeError as e:
            return _snapshot(o)[1:], o.is_inference(), str(e).splitlines()[0]
        return _snapshot(o)[1:], o.is_inference(), ""
    got, general = both(make)
    assert got == general and got[2].startswith("Inplace update to inference tensor outside InferenceMode")


def test_two_threads_into_their_own_outs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(out_mod, "INTO_OUT_NUMEL", 0)
    monkeypatch.setattr(tiles, "MIN_NUMEL", 0)
    xs = [st.rand(40, 30).t() for _ in range(2)]
    ys = [st.rand(30, 40) for _ in range(2)]
    outs = [st.zeros(30, 40) for _ in range(2)]
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            for _ in range(30):
                st.mul(xs[i], ys[i], out=outs[i])
                st.add(outs[i], ys[i], out=outs[i])  # (out is an input: the general path, in place)
                st.sub(outs[i], ys[i], out=outs[i])
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i in range(2):
        want = (xs[i].numpy() * ys[i].numpy() + ys[i].numpy()) - ys[i].numpy()
        np.testing.assert_array_equal(outs[i].numpy(), want)


def test_out_aliasing_an_input_through_another_storage(both) -> None:
    """Two strided storages over one NumPy buffer (from_numpy twice): ``out`` is an input read
    transposed, and shares_storage cannot see it. The values must be the fresh computation's
    (NumPy reads overlapping inputs before it writes), never half-written memory."""
    arr = (np.arange(60, dtype=np.float32).reshape(6, 10) % 7)[:, :6].copy()  # (6, 6)
    for op in (st.add, st.sqrt):
        def make(op=op):
            buf = arr.copy()
            o, x = st.from_numpy(buf), st.from_numpy(buf).t()
            op(x, st.from_numpy(arr), out=o) if op is st.add else op(x, out=o)
            return buf.tobytes()
        got, general = both(make)
        want = arr.T + arr if op is st.add else np.sqrt(arr.T)
        assert got == general == want.tobytes()


def test_an_out_against_every_input_takes_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """When every input runs against ``out`` (both row-major, ``out`` column-major) the direct
    walk is against every operand (2-4x slower than a fresh result plus one blocked write, see
    kernels/tiles.py ``against_every_input``): the general path writes; with one input along
    ``out``, the direct path computes into it. PyTorch's values both ways."""
    from strided.ops.elementwise import binary as binary_mod

    monkeypatch.setattr(out_mod, "INTO_OUT_NUMEL", 0)
    calls: list[str] = []
    real = binary_mod.write_out
    monkeypatch.setattr(binary_mod, "write_out", lambda *a, **k: calls.append(a[2]) or real(*a, **k))
    rng = np.random.default_rng(8)
    xs, ys = _values(rng, (6, 10)).astype(np.float32), _values(rng, (6, 10)).astype(np.float32)
    x, y = st.from_numpy(xs), st.from_numpy(ys)
    cases = [(st.add, y, "against"), (st.lt, y[:1].expand(6, 10), "against"), (st.mul, x.t().contiguous().t(), "along")]
    for op, other, how in cases:
        calls.clear()
        o = st.zeros(10, 6, dtype=op(x, other).dtype).t()
        op(x, other, out=o)
        assert calls == ([op.__name__] if how == "against" else []), (op.__name__, how)
        want = getattr(torch, op.__name__)(torch.from_numpy(xs), torch.from_numpy(np.ascontiguousarray(other.numpy())))
        np.testing.assert_array_equal(o.numpy(), want.numpy())
