"""small41: ``t.new_empty`` / ``new_zeros`` / ``new_ones`` / ``new_full`` as their own fast entries.

The methods are now the functions Tensor holds (their fast path first while nobody listens, the
reporting entry only around their general path), and new_empty's fast path is ``fresh_filled`` in
C for every size. Checked side by side with PyTorch: the shape, strides, dtype (and for the filled
ones every bit) over self tensors of many layouts and dtypes, sizes as ints, one tuple, a list or
``size=``, with and without ``dtype=``; the errors for bad sizes and flags the same with a listener
open (the general path) as without (the fast path tried first), of PyTorch's class; one record
per call to a listener, of the method's name with ``self`` as its input; a size whose plan is
remembered but whose allocation fails raising the general path's error again, not a tensor.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
from strided import dispatch

DTYPES = [("float32", np.float32), ("float64", np.float64), ("int32", np.int32), ("int64", np.int64),
          ("bool", np.bool_), ("complex64", np.complex64), ("float16", np.float16), ("uint8", np.uint8)]
METHODS = ["new_empty", "new_zeros", "new_ones", "new_full"]


def _selves(base: np.ndarray, kind: str) -> np.ndarray:
    """A NumPy view of ``base`` in one of the layouts the tests favour (both libraries share it)."""
    if kind == "transposed" and base.ndim >= 2:
        return base.T
    if kind == "sliced" and base.ndim >= 1:
        return base[::2]
    if kind == "expanded" and base.ndim >= 1:
        return np.broadcast_to(base[:1], (3, *base.shape[1:]))
    if kind == "zero-size" and base.ndim >= 1:
        return base[:0]
    if kind == "0-d":
        return base.reshape(-1)[0:1].reshape(())
    return base


def _both(arr: np.ndarray, dt: str) -> tuple[strided.Tensor, torch.Tensor]:
    a = np.ascontiguousarray(arr) if arr.strides and min(arr.strides) == 0 else arr
    s = strided.tensor(a.tolist(), dtype=getattr(strided, dt)) if a.ndim == 0 else strided.from_numpy(a.copy())
    t = torch.from_numpy(np.array(a))
    if arr.strides and min(arr.strides, default=1) == 0:  # (an expanded self: both the same expand)
        s, t = s[:1].expand(*arr.shape), t[:1].expand(*arr.shape)
    return s, t


@st.composite
def _case(draw: st.DrawFn) -> tuple:
    dt, npd = draw(st.sampled_from(DTYPES))
    base_shape = draw(st.sampled_from([(3, 4), (4, 3, 2), (5,), (1, 1), (6, 1)]))
    base = (np.arange(int(np.prod(base_shape))) % 3).astype(npd).reshape(base_shape)
    layout = draw(st.sampled_from(["contiguous", "transposed", "sliced", "expanded", "zero-size", "0-d"]))
    method = draw(st.sampled_from(METHODS))
    sizes = draw(st.lists(st.integers(0, 5), min_size=0, max_size=4).map(tuple))
    if method == "new_full":
        form = draw(st.sampled_from(["tuple", "list"]))
    else:
        form = draw(st.sampled_from(["ints", "tuple", "list", "size="] if sizes else ["tuple", "list", "size="]))
    other = draw(st.sampled_from([None, None, "float64", "int32", "bool"]))
    value = draw(st.sampled_from([2.5, 0, -1, True, 7]))
    return dt, _selves(base, layout), method, sizes, form, other, value


def _call(x: object, lib: object, method: str, sizes: tuple, form: str, other: str | None, value: object) -> object:
    kw = {} if other is None else {"dtype": getattr(lib, other)}
    fn = getattr(x, method)
    seq = list(sizes) if form == "list" else sizes
    if method == "new_full":
        return fn(seq, value, **kw)
    if form == "ints":
        return fn(*sizes, **kw)
    if form == "size=":
        return fn(size=seq, **kw)
    return fn(seq, **kw)


def _outcome(f: object) -> tuple:
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return ("error", type(e).__name__, str(e))
    return ("ok", r)


@settings(max_examples=300, deadline=None)
@given(_case())
def test_new_factories_as_pytorch(case: tuple) -> None:
    dt, arr, method, sizes, form, other, value = case
    s, t = _both(arr, dt)
    got = _outcome(lambda: _call(s, strided, method, sizes, form, other, value))
    want = _outcome(lambda: _call(t, torch, method, sizes, form, other, value))
    assert got[0] == want[0], (got, want)
    if got[0] == "ok":
        rs, rt = got[1], want[1]
        assert rs.shape == tuple(rt.shape) and rs.stride() == rt.stride()
        assert str(rs.dtype).split(".")[-1] == str(rt.dtype).split(".")[-1]
        assert rs.requires_grad is False and rs._base is None
        assert not np.shares_memory(rs.numpy(), s.numpy())
        if method != "new_empty":
            assert rs.numpy().tobytes() == rt.numpy().tobytes()
    # the same call with a listener open takes the general path: the same answer, one record
    records: list = []
    with dispatch.listen(records.append):
        again = _outcome(lambda: _call(s, strided, method, sizes, form, other, value))
    assert again[0] == got[0]
    if got[0] == "ok":
        assert again[1].shape == got[1].shape and again[1].stride() == got[1].stride()
        assert again[1].dtype == got[1].dtype
        if method != "new_empty":
            assert again[1].numpy().tobytes() == got[1].numpy().tobytes()
        mine = [r for r in records if r.name == method]
        assert len(mine) == 1 and len(records) == 1, [r.name for r in records]
        assert mine[0].inputs[0] is s
    else:
        assert again[1:] == got[1:]


BAD = [
    ("new_empty", (2.0, 3), {}), ("new_empty", (-1, 3), {}), ("new_empty", (), {}),
    ("new_empty", ((2, 3),), {"size": (2, 3)}), ("new_empty", ("a",), {}), ("new_empty", (True, 2), {}),
    ("new_zeros", (2.0,), {}), ("new_zeros", (2,), {"requires_grad": "x"}), ("new_ones", (-2,), {}),
    ("new_ones", (), {}), ("new_full", ((2.5, 3), 1.0), {}), ("new_full", ((-1,), 1.0), {}), ("new_full", (3, 1.0), {}),
    ("new_empty", (1 << 40, 1 << 30), {}), ("new_zeros", (np.int64(-1),), {}),
]
# the bad calls whose error is of PyTorch's class (the rest: strided's own, unchanged here)
TORCH_CLASS = {0: False, 1: True, 2: True, 3: True, 4: True, 5: False, 6: True, 7: True, 8: True, 9: True,
               10: True, 11: True, 12: True, 13: True, 14: True}


@pytest.mark.parametrize("k", range(len(BAD)))
def test_bad_calls_same_error_with_and_without_listener(k: int) -> None:
    method, args, kw = BAD[k]
    s, t = strided.zeros(3, 4), torch.zeros(3, 4)
    for _ in range(2):  # (the second call: any plan the first remembered)
        got = _outcome(lambda: getattr(s, method)(*args, **kw))
        assert got[0] == "error", got
        with dispatch.listen(lambda r: None):
            again = _outcome(lambda: getattr(s, method)(*args, **kw))
        assert again == got
    if TORCH_CLASS[k]:
        want = _outcome(lambda: getattr(t, method)(*args, **kw))
        assert want[0] == "error"
        base = {"TypeError": TypeError, "RuntimeError": RuntimeError}[want[1]]
        with pytest.raises(base):
            getattr(s, method)(*args, **kw)


@pytest.mark.parametrize("method", METHODS)
def test_remembered_plan_whose_allocation_fails_raises_again(method: str) -> None:
    """4 TiB of float32: the general path remembers the layout before numpy.empty fails; the fast
    path then finds the plan, its allocation fails, and the general path's error comes again."""
    s = strided.zeros(2)
    sizes = (1 << 20, 1 << 20)
    call = (lambda: s.new_full(sizes, 1.0)) if method == "new_full" else (lambda: getattr(s, method)(*sizes))
    first = _outcome(call)
    second = _outcome(call)
    assert first[0] == "error" and first[1] == "StridedRuntimeError" and "not enough memory" in first[2]
    assert second == first
    pytest.raises(RuntimeError, call)  # (a RuntimeError, as PyTorch's allocator error)


@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "bool", "complex64", "bfloat16"])
def test_new_empty_large_fast_path(dt: str) -> None:
    """Past the filled factories' limit, new_empty's fast path (any size) in self's dtype: the
    layout and dtype of PyTorch's, fresh memory each call, a resizable storage as empty's."""
    s = strided.zeros(2, dtype=getattr(strided, dt))
    t = torch.zeros(2, dtype=getattr(torch, dt))
    for shape in [(1024, 1024), (300, 301), (1 << 17,)]:
        a, b = s.new_empty(*shape), s.new_empty(shape)
        r = t.new_empty(shape)
        for x in (a, b):
            assert x.shape == tuple(r.shape) and x.stride() == r.stride() and str(x.dtype).split(".")[-1] == dt
        assert a._storage.array is not b._storage.array
        assert a._storage._pinned is strided.empty(*shape)._storage._pinned
        assert a._storage.array.size == int(np.prod(shape))


# ---------------------------------------------------------------- from_numpy's memoised call

FROM_NUMPY_DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_, np.complex64, np.float16, np.uint8,
                     np.int8, np.int16, np.complex128]


@st.composite
def _np_array(draw: st.DrawFn) -> np.ndarray:
    npd = draw(st.sampled_from(FROM_NUMPY_DTYPES))
    shape = draw(st.sampled_from([(3, 4), (16, 16), (5,), (2, 3, 4), (1, 1), (0, 3), (), (4, 1), (1, 5)]))
    base = (np.arange(max(1, int(np.prod(shape)))) % 7).astype(npd)[: int(np.prod(shape))].reshape(shape)
    kind = draw(st.sampled_from(["c", "f", "transposed", "sliced", "step", "reversed", "swapped", "readonly"]))
    if kind == "f":
        return np.asfortranarray(base)
    if kind == "transposed":
        return base.T
    if kind == "sliced" and base.ndim:
        return base[1:]
    if kind == "step" and base.ndim:
        return base[..., ::2]
    if kind == "reversed" and base.ndim:
        return base[::-1]
    if kind == "swapped":
        return base.astype(base.dtype.newbyteorder())
    if kind == "readonly":
        base = base.copy()
        base.flags.writeable = False
    return base


def _from_numpy_both(a: np.ndarray) -> tuple:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PyTorch's non-writable array warning)
        want = _outcome(lambda: torch.from_numpy(a))
    got = _outcome(lambda: strided.from_numpy(a))
    return got, want


@pytest.mark.parametrize("body", ["compiled", "python"])
@settings(max_examples=200, deadline=None)
@given(a=_np_array())
def test_from_numpy_as_pytorch(body: str, a: np.ndarray) -> None:
    from strided import creation

    memo = creation.borrow_memo
    if body == "python":
        creation.borrow_memo = dispatch._borrow_memo_python
    try:
        for _ in range(2):  # (the first call may make the plan; the second finds it)
            got, want = _from_numpy_both(a)
            assert got[0] == want[0], (got, want, a.dtype, a.shape, a.strides)
            if got[0] == "error":
                with pytest.raises({"ValueError": ValueError, "TypeError": TypeError, "RuntimeError": RuntimeError}[want[1]]):
                    strided.from_numpy(a)
                continue
            s, t = got[1], want[1]
            assert s.shape == tuple(t.shape) and s.stride() == t.stride()
            assert str(s.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
            assert s.numpy().tobytes() == t.numpy().tobytes()
            assert s._storage._pinned is not None  # (borrowed: never resized)
            if a.size:
                assert np.shares_memory(s.numpy(), a)
    finally:
        creation.borrow_memo = memo


def test_from_numpy_memo_compiled_is_in_use() -> None:
    """Where the copy kernel is built, from_numpy's memoised call is its C body (the Python one the
    reference the test above runs too)."""
    from strided import creation

    if dispatch._ADOPT is None:
        pytest.skip("the copy kernel is not built")
    assert creation.borrow_memo is not dispatch._borrow_memo_python


@pytest.mark.parametrize("body", ["compiled", "python"])
def test_from_numpy_memo_shares_and_reports(body: str) -> None:
    """A write through either shows in the other; a listener sees one from_numpy view record; a
    plan remembered as False (not dense) stays the general path's."""
    from strided import creation

    memo = creation.borrow_memo
    if body == "python":
        creation.borrow_memo = dispatch._borrow_memo_python
    try:
        a = np.arange(12.0, dtype=np.float32).reshape(3, 4)
        for _ in range(2):
            s = strided.from_numpy(a)
            a[1, 2] = 99.0
            assert s[1, 2].item() == 99.0
            s[0, 0] = -5.0
            assert a[0, 0] == -5.0
        records: list = []
        with dispatch.listen(records.append):
            strided.from_numpy(a)
        assert [r.name for r in records] == ["from_numpy"] and records[0].kind == "view"
        odd = np.arange(12.0, dtype=np.float32).reshape(3, 4)[:, ::2]  # (not dense: False in the plans)
        for _ in range(2):
            s = strided.from_numpy(odd)
            assert s.stride() == (4, 2) and s.tolist() == odd.tolist()
        with pytest.raises(ValueError):
            strided.from_numpy(a[::-1])
    finally:
        creation.borrow_memo = memo
