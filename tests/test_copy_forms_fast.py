"""The copy forms' fast path (``strided.ops.copies._fast_form``): a small row-major input's pieces
copied by a remembered plan give the general path's bytes, layouts, errors and warnings, and
PyTorch's values and strides."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch

import strided as st
from strided.ops import copies

CALLS: list[tuple[str, tuple]] = [
    ("split_copy", (2,)), ("split_copy", (1, 1)), ("split_copy", (3, -1)), ("split_copy", (5,)),
    ("split_with_sizes_copy", ([1, 2],)), ("split_with_sizes_copy", ((2, 1),)), ("split_with_sizes_copy", ([1, 3], 1)),
    ("split_with_sizes_copy", ([0, 3],)), ("narrow_copy", (0, 1, 2)), ("narrow_copy", (-1, 1, 2)), ("narrow_copy", (1, -3, 2)),
    ("slice_copy", (0, 1, 3)), ("slice_copy", (1, None, None, 2)), ("slice_copy", (0, -2)), ("slice_copy", ()),
    ("unbind_copy", ()), ("unbind_copy", (1,)), ("unbind_copy", (-1,)), ("select_copy", (1, 2)), ("select_copy", (0, -1)),
    ("expand_copy", ((2, 3, 4),)), ("expand_copy", ([3, -1, 4],)), ("unsqueeze_copy", (0,)), ("unsqueeze_copy", (-1,)),
    ("squeeze_copy", ()), ("squeeze_copy", (0,)), ("squeeze_copy", ((0, 1),)), ("permute_copy", ((1, 0),)),
    ("permute_copy", ([1, 0],)), ("transpose_copy", (0, 1)), ("t_copy", ()), ("view_copy", ((-1,),)), ("view_copy", ((4, 3),)),
    ("view_copy", ([2, -1],)), ("diagonal_copy", ()), ("diagonal_copy", (1, 1, 0)), ("unfold_copy", (1, 2, 1)),
    ("unfold_copy", (0, 2, 2)),
    # refused or not plain: the general path's errors, the fast path's memo remembers the refusal
    ("split_copy", (0,)), ("split_copy", (2.0,)), ("split_copy", (True,)), ("narrow_copy", (0, 2, 5)),
    ("narrow_copy", (5, 0, 1)), ("select_copy", (0, 9)), ("view_copy", ((5,),)), ("permute_copy", ((0, 0),)),
    ("unsqueeze_copy", (1.0,)), ("split_with_sizes_copy", ([1, 1],)), ("expand_copy", ((2, 5),)),
]


def _data(shape: tuple, dtype: Any) -> np.ndarray:
    a = (np.random.RandomState(3).randn(*shape) * 10).astype(dtype)
    if a.size and np.issubdtype(dtype, np.floating):
        a.reshape(-1)[0], a.reshape(-1)[-1] = -0.0, np.nan
    return a


def _outcome(call: Any) -> Any:
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        try:
            got = call()
        except Exception as e:  # noqa: BLE001 - compared as class and text
            return type(e), str(e), [str(w.message) for w in warned]
    pieces = got if isinstance(got, tuple) else (got,)
    return ([(p.shape, p.stride(), p.storage_offset(), p.dtype, p.numpy().tobytes()) for p in pieces],
            isinstance(got, tuple), [str(w.message) for w in warned])


@pytest.mark.parametrize("name,args", CALLS, ids=[f"{n}{a}" for n, a in CALLS])
def test_copy_form_fast_is_general_and_torch(name: str, args: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    fn = getattr(st, name)
    for dtype in (np.float32, np.float64, np.int64, np.bool_, np.complex64, np.float16):
        for shape in [(3, 4), (1, 4)]:
            a = _data(shape, dtype)
            base = st.tensor(a)
            padded = st.tensor(np.concatenate([_data((5,), dtype), a.reshape(-1)]))[5:].reshape(shape)
            for x in (base, padded, base):  # (the third call reads the remembered plan)
                fast = _outcome(lambda x=x: fn(x, *args))
                with monkeypatch.context() as m:
                    m.setattr(copies, "_fast_form", lambda *a: None)
                    general = _outcome(lambda x=x: fn(x, *args))
                assert fast == general, (name, args, dtype, shape)
            if not isinstance(fast[0], list):
                continue
            want = getattr(torch, name)(torch.from_numpy(a), *args)
            want = want if isinstance(want, (tuple, list)) else (want,)
            assert [(p[0], p[1]) for p in fast[0]] == [(tuple(w.shape), w.stride()) for w in want]
            for p, w in zip(fast[0], want):
                assert p[4] == np.ascontiguousarray(w.numpy()).tobytes()


@pytest.mark.parametrize("name,args", CALLS, ids=[f"{n}{a}" for n, a in CALLS])
def test_copy_form_fast_of_a_transpose_is_general_and_torch(name: str, args: tuple, room_in_the_dense_memo: None,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A densely permuted input (a transpose) is planned per its strides by the forms without a
    ``source``: the general path's bytes, layouts, errors and warnings, PyTorch's values."""
    fn = getattr(st, name)
    for dtype in (np.float32, np.float64, np.int64, np.bool_, np.complex64, np.float16):
        for shape in [(3, 4), (2, 3, 4)]:
            a = _data(shape, dtype)
            perm = tuple(reversed(range(len(shape))))
            x = st.tensor(np.ascontiguousarray(a.transpose(perm))).permute(*perm)
            tx = torch.from_numpy(np.ascontiguousarray(a.transpose(perm))).permute(*perm)
            for _ in range(2):  # (the second call reads the remembered plan)
                fast = _outcome(lambda x=x: fn(x, *args))
                with monkeypatch.context() as m:
                    m.setattr(copies, "_fast_form", lambda *a: None)
                    general = _outcome(lambda x=x: fn(x, *args))
                assert fast == general, (name, args, dtype, shape)
            if not isinstance(fast[0], list):
                continue
            want = getattr(torch, name)(tx, *args)
            want = want if isinstance(want, (tuple, list)) else (want,)
            assert [(p[0], p[1]) for p in fast[0]] == [(tuple(w.shape), w.stride()) for w in want]
            for p, w in zip(fast[0], want):
                assert p[4] == np.ascontiguousarray(w.numpy()).tobytes()


def test_copy_form_fast_results_are_new_memory_and_reported() -> None:
    x = st.arange(12.0).reshape(3, 4)
    pieces = st.split_copy(x, 2)
    assert not any(st.shares_memory(p, x) for p in pieces)
    pieces[0].fill_(7.0)  # (each piece its own fresh memory: the input and the next call unchanged)
    assert x.sum().item() == 66.0 and st.split_copy(x, 2)[0].sum().item() == 1 + 2 + 3 + 4 + 5 + 6 + 7
    with st.record_copies() as recorded:
        st.split_copy(x, 2)
        st.narrow_copy(x, 0, 1, 2)
    assert [(c.nbytes, c.reason.split(":")[0]) for c in recorded] == [
        (32, "split_copy"), (16, "split_copy"), (32, "narrow_copy")]
    a = st.arange(12.0, requires_grad=True)
    (st.unbind_copy(a.reshape(3, 4), 1)[2] * 2).sum().backward()
    assert a.grad.tolist() == [0.0, 0.0, 2.0, 0.0] * 3


def test_copy_form_fast_path_runs_for_plain_calls() -> None:
    x = st.arange(12.0).reshape(3, 4)
    made = copies._fast_form(copies.Memo(), copies._split, x, (2,))
    assert made is not None and [p.tolist() for p in made] == [p.tolist() for p in x.split(2)]
    assert copies._fast_form(copies.Memo(), copies._narrow, x.t(), (0, 1, 2)) is None  # (not row-major)
    made = copies._fast_form(copies.Memo(), copies._narrow, x.t(), (0, 1, 2), True)  # (a transpose, planned)
    assert made is not None and made.tolist() == x.t().narrow(0, 1, 2).tolist()
    assert copies._fast_form(copies.Memo(), copies._split, x, (2.0,)) is None  # (not a plain int)


LARGE_CALLS: list[tuple[str, tuple]] = [
    ("unbind_copy", ()), ("unbind_copy", (1,)), ("split_copy", (2,)), ("split_copy", (3, 0)), ("split_copy", (100, 1)),
    ("split_with_sizes_copy", ([1, 299],)), ("split_with_sizes_copy", ([250, 50], -2)),
    ("split_with_sizes_copy", ([1, 2, 297],)), ("split_with_sizes_copy", ((10,) * 30,)), ("split_copy", (300,)), ("narrow_copy", (0, 3, 2)),
    ("slice_copy", (0, 0, 2)), ("slice_copy", (1, 0, 7, 3)), ("as_strided_copy", ((100, 300), (600, 1))),
    ("unfold_copy", (0, 2, 1)), ("view_copy", ((-1,),)), ("t_copy", ()),
]


@pytest.mark.parametrize("name,args", LARGE_CALLS, ids=[f"{n}{a}" for n, a in LARGE_CALLS])
def test_copy_form_large_inputs_are_general_and_torch(name: str, args: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    """Large inputs (past the small copies' 64 KiB): row-major ones take the remembered plans,
    transposed ones a row-major source where the pieces are cut along dim 0; both give the
    general path's bytes and layouts and PyTorch's values and strides (as_strided_copy's own fast
    path, bound when the form was made, against PyTorch only)."""
    fn = getattr(st, name)
    a = _data((300, 300), np.float32)
    for x, tx in ((st.tensor(a), torch.from_numpy(a)), (st.tensor(a.T.copy()).t(), torch.from_numpy(a.T.copy()).t())):
        fast = _outcome(lambda x=x: fn(x, *args))
        with monkeypatch.context() as m:  # (the general path: no plan, no source)
            m.setattr(copies, "_fast_form", lambda *a: None)
            m.setattr(copies, "_rows_source", lambda t, dim, rows, kwargs: t)
            general = _outcome(lambda x=x: fn(x, *args))
        assert fast == general, (name, args)
        want = getattr(torch, name)(tx, *args)
        want = want if isinstance(want, (tuple, list)) else (want,)
        assert [(p[0], p[1]) for p in fast[0]] == [(tuple(w.shape), w.stride()) for w in want]
        for p, w in zip(fast[0], want):
            assert p[4] == np.ascontiguousarray(w.numpy()).tobytes()
