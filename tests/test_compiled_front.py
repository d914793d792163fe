"""The compiled fronts of the elementwise ops (strided.ops._support.front, kernels/_front.h).

A front runs an op's most common call in C and hands every other call to the op's Python
forward: every call must give what the forward gives (values to the bit, dtype, layout, errors,
records, gradients), and the front must be the forward to everything that looks at it.
"""

from __future__ import annotations

import copy
import inspect
import os
import pickle
import threading
import weakref

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels.fpstate import quiet_call
from strided.ops._support.front import fallback_of

NATIVE = st.Tensor.exp is not fallback_of(st.Tensor.exp)
pytestmark = pytest.mark.skipif(not NATIVE and os.environ.get("STRIDED_REQUIRE_NATIVE") != "1",
                                reason="the copy kernel is not built: no fronts")


def _fronts() -> dict[str, object]:
    """Every Tensor method that is a compiled front, by name (one per op spelling)."""
    return {n: v for n, v in vars(st.Tensor).items() if getattr(v, "__front_table__", None) is not None}


FRONTS = _fronts()
UNARY = sorted(n for n, f in FRONTS.items() if len(inspect.signature(f).parameters) == 2)  # (input, *, out)
BINARY = sorted(n for n in FRONTS if n not in UNARY)


def test_the_fronts_cover_the_elementwise_ops():
    assert NATIVE, "STRIDED_REQUIRE_NATIVE=1 but the copy kernel has no front"
    for name in ("exp", "sqrt", "neg", "relu", "sin", "add", "mul", "sub", "div", "eq", "lt", "__add__", "__mul__",
                 "__truediv__", "hypot", "fmod", "bitwise_not"):
        assert name in FRONTS, name
    assert len(UNARY) > 10 and len(BINARY) > 30
    assert st.exp is st.Tensor.exp and st.add is st.Tensor.add


def _same(a, b):
    """Two results (tensors, or the same exception) identical: bits, dtype, shape, strides, offset."""
    if isinstance(a, BaseException) or isinstance(b, BaseException):
        assert type(a) is type(b) and str(a) == str(b), (a, b)
        return
    assert a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride()
    assert a.storage_offset() == b.storage_offset()
    assert a._np().tobytes() == b._np().tobytes()


def _run(f, *args):
    try:
        return f(*args)
    except Exception as e:  # noqa: BLE001 - compared with the forward's own
        return e


def _layouts(dtype):
    """Row-major (the front's call), and layouts it must hand to the forward."""
    base = st.tensor(np.random.default_rng(0).standard_normal(48) * 3).to(dtype)
    return {
        "rowmajor": base[:12].reshape(3, 4),
        "fresh": st.ones(3, 4, dtype=dtype) * 1 if dtype.is_floating_point else st.ones(3, 4, dtype=dtype),
        "offset": base[5:17].reshape(3, 4),
        "transposed": base[:12].reshape(4, 3).t(),
        "stepped": base[::2][:12].reshape(3, 4),
        "expanded": base[:4].expand(3, 4),
        "0-d": base[7],
        "empty": base[:0].reshape(0, 4),
        "1-d": base[:16],
        "partial storage": base[:12].reshape(3, 4)[:2],
        "specials": st.tensor([[np.nan, -0.0, 0.0, np.inf], [-np.inf, 1e-45, -1.0, np.nan],
                               [2.0, -3.0, 1e30, -1e-30]]).to(dtype) if dtype.is_floating_point else base[:12].reshape(3, 4),
    }


DTYPES = [st.float32, st.float64, st.float16, st.bfloat16, st.int64, st.int32, st.bool]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_unary_fronts_give_the_forwards_results(dtype):
    for name in UNARY:
        front = FRONTS[name]
        forward = fallback_of(front)
        for where, x in _layouts(dtype).items():
            _same(_run(front, x), _run(forward, x))
            if where == "rowmajor" and dtype in (st.float32, st.float64):
                got = _run(front, x)
                if not isinstance(got, BaseException):
                    assert not np.shares_memory(got._np(), x._np()), name


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_binary_fronts_give_the_forwards_results(dtype):
    for name in BINARY:
        front = FRONTS[name]
        forward = fallback_of(front)
        lays = _layouts(dtype)
        x = lays["rowmajor"]
        others = [lays["offset"], lays["fresh"], lays["specials"], lays["transposed"], lays["expanded"], x, 2.5, -0.0, 3, True,
                  float("nan"), st.ones(4, dtype=dtype), st.ones(3, 4, dtype=st.float64)]
        for y in others:
            _same(_run(front, x, y), _run(forward, x, y))
            _same(_run(front, y, x), _run(forward, y, x))
            if not isinstance(y, st.Tensor):
                _same(_run(front, lays["specials"], y), _run(forward, lays["specials"], y))
        for _where, t in lays.items():
            _same(_run(front, t, t), _run(forward, t, t))


def test_fronts_match_torch_on_their_own_call():
    """The front's call itself against PyTorch (the forward's tests cover the rest)."""
    rng = np.random.default_rng(1)
    for dtype, _tdtype in ((st.float32, torch.float32), (st.float64, torch.float64)):
        a = (rng.standard_normal(12) * 3).astype(dtype.numpy).reshape(3, 4)
        b = (rng.standard_normal(12) * 3).astype(dtype.numpy).reshape(3, 4)
        x, y, tx, ty = st.tensor(a), st.tensor(b), torch.tensor(a), torch.tensor(b)
        for name in ("add", "sub", "mul", "div", "eq", "lt", "hypot", "fmod"):
            got, want = getattr(st, name)(x, y), getattr(torch, name)(tx, ty)
            assert got.dtype.name == str(want.dtype).removeprefix("torch.")
            np.testing.assert_array_equal(got._np(), want.numpy())
        for name in ("exp", "neg", "relu", "abs", "floor"):  # (sqrt, sin: torch's float32 bits differ, known)
            got, want = getattr(st, name)(x), getattr(torch, name)(tx)
            np.testing.assert_array_equal(got._np(), want.numpy())
        np.testing.assert_array_equal((x * 2.5)._np(), (tx * 2.5).numpy())
        np.testing.assert_array_equal((x + y)._np(), (tx + ty).numpy())


def test_keywords_autograd_and_subclasses_go_to_the_forward():
    x = st.ones(3, 4, requires_grad=True)
    y = st.exp(x)
    assert y.grad_fn is not None
    (y * 2.0).sum().backward()
    np.testing.assert_allclose(x.grad._np(), 2 * np.e, rtol=1e-6)
    z = st.add(st.ones(3, 4), st.ones(3, 4), alpha=2)
    assert z.tolist() == [[3.0] * 4] * 3
    out = st.empty(3, 4)
    assert st.exp(st.zeros(3, 4), out=out) is out and out.tolist() == [[1.0] * 4] * 3
    p = st.nn.Parameter(st.ones(3, 4))
    assert st.exp(p).grad_fn is not None


def test_listeners_see_the_same_records():
    x, y = st.ones(3, 4), st.ones(3, 4)
    seen = []
    with st.dispatch.listen(seen.append):
        st.exp(x)
        x + y
        x.mul(2.0)
    assert [(r.name, r.kind) for r in seen] == [("exp", "compute"), ("add", "compute"), ("mul", "compute")]


def test_a_front_is_its_forward_to_whoever_looks():
    f = st.exp
    fb = fallback_of(f)
    assert f.__name__ == "exp" and f.__doc__ == fb.__doc__ and f.__module__ == fb.__module__
    assert inspect.signature(f) == inspect.signature(fb)
    assert pickle.loads(pickle.dumps(f)) is f
    assert pickle.loads(pickle.dumps(st.add)) is st.add
    assert copy.deepcopy(f) is f and copy.copy(f) is f
    assert weakref.ref(f)() is f
    x = st.ones(2)
    assert x.exp().tolist() == f(x).tolist()
    bound = x.exp
    assert bound.__self__ is x and bound().tolist() == f(x).tolist()
    assert "compiled front" in repr(f)
    with pytest.raises(AttributeError):
        f.__front_fallback__ = None
    f.__some_mark__ = 1  # (written to the forward, as the registry's marks are)
    try:
        assert fb.__some_mark__ == 1 and f.__some_mark__ == 1 and getattr(f, "__some_mark__", None) == 1
    finally:
        del fb.__some_mark__
    # a name neither the forward nor the front has: the default, or the front's AttributeError
    assert getattr(f, "__some_mark__", "absent") == "absent" and not hasattr(f, "__some_mark__")
    with pytest.raises(AttributeError, match="Front' object has no attribute '__some_mark__'"):
        f.__some_mark__  # noqa: B018
    assert f.__front_fallback__ is fb  # (the front's own attribute)


def test_wrong_calls_raise_the_forwards_errors():
    for args in ((), (st.ones(2), st.ones(2)), ("a",), (None,)):
        with pytest.raises(Exception) as front_error:
            st.exp(*args)
        with pytest.raises(Exception) as forward_error:
            fallback_of(st.exp)(*args)
        assert type(front_error.value) is type(forward_error.value)
    with pytest.raises(Exception) as e:
        st.add(st.ones(2))
    assert type(e.value) is TypeError
    b = st.ones(3, 4, dtype=st.bool)
    _same(_run(st.neg, b), _run(fallback_of(st.neg), b))


def test_a_busy_quiet_context_falls_back():
    """Inside the shared quiet context (a callback that re-enters it) the front's own entry finds
    it busy: the call goes to the forward, which retries in the caller's context."""
    x = st.tensor([[1.0, 0.0], [-1.0, 4.0]])
    got = quiet_call(lambda: (st.log(x), x / 0.0))
    want = (fallback_of(st.log)(x), fallback_of(st.div)(x, 0.0))
    for a, b in zip(got, want):
        _same(a, b)


def test_fronts_are_safe_across_threads():
    xs = [st.tensor(np.arange(12, dtype=np.float32).reshape(3, 4) + i) for i in range(4)]
    want = [(st.exp(x)._np().copy(), (x + x)._np().copy()) for x in xs]
    errors = []

    def work(i):
        try:
            for _ in range(300):
                e, s = st.exp(xs[i]), xs[i] + xs[i]
                assert e._np().tobytes() == want[i][0].tobytes() and s._np().tobytes() == want[i][1].tobytes()
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_the_front_table_refuses_a_malformed_entry():
    from strided.kernels import _copykernel as k
    from strided.kernels.listeners import OPEN
    from strided.ops._support.operands import _cinfo

    with pytest.raises(TypeError, match="wrong form"):
        k.front(len, 1, {st.float32: (np.exp,)}, _cinfo, OPEN, quiet_call)
    with pytest.raises(ValueError, match="arity"):
        k.front(len, 4, {}, _cinfo, OPEN, quiet_call)
    with pytest.raises(TypeError, match="wrong form"):  # (a ternary entry is (kernel,))
        k.front(len, 3, {st.float32: (np.exp, True, None)}, _cinfo, OPEN, quiet_call, np.empty)
    with pytest.raises(TypeError, match="kernel entry"):
        k.front(len, 3, {st.float32: (np.exp,)}, _cinfo, OPEN, quiet_call, np.empty)


# ---------------------------------------------------------------- entry fronts (recording entries and guards)


def _entry_fronts() -> dict[str, object]:
    """The Tensor methods and strided functions that are entry fronts (no elementwise table)."""
    found = {}
    for where, space in (("Tensor.", vars(st.Tensor)), ("strided.", vars(st))):
        for n, v in list(space.items()):
            if hasattr(v, "__front_fallback__") and v.__front_table__ is None:
                found[where + n] = v
    return found


ENTRY_FRONTS = _entry_fronts()


def test_entry_fronts_stand_before_the_recording_entries_and_guards():
    for name in ("Tensor.argmax", "Tensor.cummax", "strided.sort", "strided.argmax", "strided.cummax", "Tensor.clamp"):
        assert name in ENTRY_FRONTS, name
    # (an elementwise front before an entry front: cumsum's last-dim scan, max()'s whole reduction)
    for f in (st.Tensor.cumsum, st.cumsum, st.Tensor.max, st.addcmul):
        assert f.__front_table__ is not None and f.__front_fallback__.__front_table__ is None
    assert len(ENTRY_FRONTS) > 200


CALLS = [
    ("argmax", (), {"dim": 1}), ("argmax", (1,), {}), ("argmax", (), {"axis": 1}), ("sum", (1,), {"keepdim": True}),
    ("sum", (), {"axis": 0, "keepdims": True}), ("cumsum", (0,), {}), ("cumsum", (), {"dim": 1}),
    ("sort", (), {"dim": 0, "descending": True}), ("softmax", (1,), {}), ("clamp", (0.0, 1.0), {}),
    ("max", (1,), {}), ("std", (), {}), ("transpose", (0, 1), {}), ("reshape", (4, 3), {}),
    ("topk", (2,), {}), ("flip", ([0],), {}), ("argmax", ("x",), {}), ("sum", (), {"nonsense": 1}), ("cumsum", (), {}),
]


@pytest.mark.parametrize("dtype", [st.float32, st.int64], ids=str)
def test_entry_fronts_give_their_entries_results(dtype):
    xs = {k: v for k, v in _layouts(dtype).items() if k not in ("0-d", "1-d", "empty")}
    for name, args, kwargs in CALLS:
        for space in (st.Tensor, st):
            f = getattr(space, name, None)
            if f is None:
                continue
            for x in xs.values():
                got = _run(lambda f=f, x=x, a=args, k=kwargs: f(x, *a, **k))
                want = _run(lambda f=f, x=x, a=args, k=kwargs: fallback_of(f)(x, *a, **k))
                for a, b in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
                    if isinstance(a, st.Tensor) or isinstance(a, BaseException):
                        _same(a, b)
                    else:
                        assert a == b


def test_entry_fronts_leave_autograd_guards_and_records_to_the_entry():
    x = st.ones(3, 4, requires_grad=True)
    assert st.cumsum(x, 1).grad_fn is not None and x.sum(1).grad_fn is not None
    with pytest.raises(NotImplementedError) as front_error:
        st.histc(x)
    with pytest.raises(NotImplementedError) as entry_error:
        fallback_of(st.histc)(x)
    assert str(front_error.value) == str(entry_error.value)
    y, seen = st.ones(3, 4), []
    with st.dispatch.listen(seen.append):
        y.cumsum(1)
        st.argmax(y, dim=1)
        y.sum()
    assert [r.name for r in seen] == ["cumsum", "argmax", "sum"]


def test_the_entry_front_refuses_a_bad_declaration():
    from strided.kernels import _copykernel as k
    from strided.kernels.listeners import OPEN

    with pytest.raises(ValueError, match="mode"):
        k.entry_front(len, len, 6, (), frozenset(), 0, 1, OPEN)
    with pytest.raises(TypeError, match="cinfo memo"):
        k.entry_front(len, len, 5, (), frozenset(), 0, 1, OPEN)
    with pytest.raises(TypeError, match="state dict"):
        k.entry_front(len, len, 4, (), frozenset(), 0, 1, OPEN)
    with pytest.raises(TypeError, match="tuple of types"):
        k.entry_front(len, len, 1, (1,), frozenset(), 0, 1, OPEN)


INPLACE_CALLS = [("add_", (1.5,)), ("mul_", (2.0,)), ("sub_", ("y",)), ("div_", ("y",)), ("clamp_", (0.0, 1.0)),
                 ("abs_", ()), ("neg_", ()), ("exp_", ()), ("fill_", (3.0,)), ("zero_", ()), ("copy_", ("y",)),
                 ("addcmul_", ("y", "y")), ("lerp_", ("y", 0.5)), ("pow_", (2,)), ("sqrt_", ()), ("add_", ("y",)),
                 ("add_", ("y",), {"alpha": 2}), ("masked_fill_", ("mask", 0.0)), ("t_", ()), ("unsqueeze_", (0,)),
                 ("add_", ("bad",)), ("mul_", ("y", "extra"))]


def test_inplace_fronts_write_what_their_entries_write(monkeypatch):
    from strided import grad_mode

    monkeypatch.setitem(grad_mode.STATE, "used", False)  # (as before any tensor required grad: the front's call)
    for dtype in (st.float32, st.float64, st.int64):
        for layout in ("rowmajor", "transposed", "stepped", "0-d"):
            for call in INPLACE_CALLS:
                name, args = call[0], call[1]
                kwargs = call[2] if len(call) > 2 else {}
                results = []
                for use_front in (True, False):
                    x = _layouts(dtype)[layout].clone() if layout != "stepped" else _layouts(dtype)[layout]
                    if layout == "stepped":
                        x = x.clone()[::1]
                    y = st.ones(x.shape, dtype=dtype) * 3 if x.dim() else st.tensor(3, dtype=dtype)
                    mask = y > 2
                    real = [{"y": y, "mask": mask, "bad": "bad", "extra": y}.get(a, a) if isinstance(a, str) else a
                            for a in args]
                    method = getattr(st.Tensor, name)
                    f = method if use_front else fallback_of(method)
                    got = _run(lambda f=f, x=x, r=real, k=kwargs: f(x, *r, **k))
                    results.append((got, x))
                (a, xa), (b, xb) = results
                if isinstance(a, BaseException) or isinstance(b, BaseException):
                    _same(a, b)
                else:
                    assert (a is xa) == (b is xb), name
                    _same(xa, xb)


def test_inplace_fronts_leave_autograd_to_the_entry():
    leaf = st.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        leaf.add_(1.0)
    x = st.ones(3)
    v = x._version
    x.add_(1.0)
    assert x._version == v + 1 and x.tolist() == [2.0, 2.0, 2.0]
    y = (leaf * 2).detach().requires_grad_()
    z = y * 1.0
    z.mul_(3.0)
    z.sum().backward()
    assert y.grad.tolist() == [3.0, 3.0, 3.0]


def test_inplace_fronts_under_no_grad_count_the_write_at_the_users_line():
    """An optimizer's step (no_grad, autograd in use): the front makes the write and counts it as
    the entry does, so a saved tensor written there is still caught, naming the user's line."""
    messages = []
    for use_front in (True, False):
        a = st.ones(3, requires_grad=True)
        w = st.ones(3) * 2
        y = a * w  # (saves w)
        method = st.Tensor.mul_ if use_front else fallback_of(st.Tensor.mul_)
        v = w._version
        with st.no_grad():
            method(w, 3.0)  # the write
        assert w._version == v + 1 and w.tolist() == [6.0, 6.0, 6.0]
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        messages.append(str(e.value))
    assert messages[0] == messages[1]
    assert "test_compiled_front.py" in messages[0]
    p = st.ones(2)
    with st.no_grad():
        p.add_(st.ones(2), alpha=2.0)
        p.clamp_(0.0, 2.5)
    assert p.tolist() == [2.5, 2.5]


@pytest.mark.parametrize("dtype", [st.int64, st.int32, st.uint8, st.int8, st.bool])
def test_invert_is_bitwise_not(dtype):
    """``~x`` takes bitwise_not's front: its bits, PyTorch's, and one 'bitwise_not' record."""
    a = np.random.default_rng(1).integers(-100, 100, (3, 4))
    x = st.tensor(a).to(dtype)
    t = torch.tensor(a).to(getattr(torch, str(dtype).split(".")[-1]))
    _same(~x, st.bitwise_not(x))
    assert (~x).numpy().tobytes() == (~t).numpy().tobytes()
    with st.watch() as w:
        _ = ~x
    assert [s.name for s in w.steps] == ["bitwise_not"]
    with pytest.raises(TypeError, match="only implemented on integer and Boolean"):
        ~x.to(st.float32)


def test_contiguous_answers_a_row_major_tensor_with_itself():
    """contiguous()'s mode-5 front: a plain row-major tensor (any offset) is returned as itself;
    a transpose, a listener, autograd, a memory format and a subclass go to the entry as before."""
    x = st.ones(3, 4)
    assert type(st.Tensor.contiguous).__name__ == "Front" or not NATIVE
    assert x.contiguous() is x and x[1:].contiguous() is not None and x[1:].contiguous()._layout.offset == 4
    y = x.t()
    c = y.contiguous()
    assert c is not y and c.stride() == (3, 1)
    with st.watch() as w:
        assert x.contiguous() is x
        y.contiguous()
    assert [s.name for s in w.steps] == ["contiguous"]  # (the copy; a tensor answered by itself: no step)
    g = st.ones(3, 4, requires_grad=True)
    assert g.contiguous() is g and g.t().contiguous().grad_fn is not None
    assert x.contiguous(st.contiguous_format) is x
    with pytest.raises(RuntimeError, match="channels_last"):
        x.contiguous(memory_format=st.channels_last)
    with pytest.raises(TypeError):
        st.Tensor.contiguous()

    class Sub(st.Tensor):
        pass

    s = x.as_subclass(Sub) if hasattr(x, "as_subclass") else None
    if s is not None:
        assert s.contiguous() is s
