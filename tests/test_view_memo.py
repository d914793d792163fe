"""The view ops' decisions are memoized once, in the layout layer (:mod:`strided.layout.memo`),
on the layout and the *parsed* arguments: a remembered answer is the answer whichever call came
first. ``True == 1`` and ``1.0 == 1`` as dict keys but not as dims or sizes, so a call with a bool,
a float or a NumPy int must decide as PyTorch does even after the same values as plain ints were
remembered, and a memo hit must give the layout a miss gives.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import strided
from strided.layout import memo

# (op, plain-int arguments that prime the memo, the same values spelt otherwise), on a (2, 1, 3) tensor
CALLS: list[tuple[str, tuple, list[tuple]]] = [
    ("transpose", (1, 0), [(True, 0), (np.int64(1), 0), (1.0, 0)]),
    ("permute", (1, 0, 2), [(True, False, 2), (np.int64(1), 0, 2), (1.0, 0, 2)]),
    ("unsqueeze", (1,), [(True,), (np.int64(1),), (1.0,)]),
    ("squeeze", (1,), [(True,), (np.int64(1),), (1.0,)]),
    ("select", (0, 1), [(False, True), (np.int64(0), np.int64(1)), (0, 1.0)]),
    ("narrow", (2, 1, 1), [(2, True, True), (np.int64(2), 1, 1), (2, 1.0, 1)]),
    ("diagonal", (0, 0, 2), [(False, 0, 2), (np.int64(0), 0, 2), (0.0, 0, 2)]),
    ("flatten", (0, 1), [(False, True), (np.int64(0), 1), (0.0, 1)]),
    ("view", (3, 2), [(3.0, 2), (np.int64(3), 2), (True, 6)]),
    ("reshape", (3, 2), [(3.0, 2), (np.int64(3), 2), (True, 6)]),
    ("expand", (2, 2, 1, 3), [(2, 2, 1, 3.0), (np.int64(2), 2, 1, 3)]),  # (a bool size: see the note below)
    ("unfold", (2, 2, 1), [(2, True, 1), (np.int64(2), 2, 1), (2, 2.0, 1)]),
    ("movedim", (0, 1), [(False, True), (np.int64(0), 1), (0.0, 1)]),
    ("unflatten", (2, (3, 1)), [(True, (3, 1)), (np.int64(2), (3, 1)), (2, (3.0, 1))]),
]


# Note: PyTorch 2.13 takes a bool among expand's sizes (expand(2, True) is expand(2, 1)); strided
# refuses it with a TypeError, before and after the memo alike, so that spelling is left out here.


def _outcome(make: Any, op: str, args: tuple) -> Any:
    """(shape, strides, offset) of ``make().op(*args)``, or the error's class."""
    try:
        y = getattr(make(), op)(*args)
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return next(c for c in type(e).__mro__ if c.__module__ == "builtins")  # (strided's subclass: its builtin)
    return tuple(y.shape), tuple(y.stride()), y.storage_offset()


def _clear() -> None:
    for remembered in memo.MEMOS:
        remembered.clear()


@pytest.mark.parametrize("op,plain,others", CALLS, ids=[c[0] for c in CALLS])
def test_a_remembered_decision_never_answers_a_call_spelt_otherwise(op: str, plain: tuple, others: list) -> None:
    def ours() -> Any:
        return strided.arange(6.0).reshape(2, 1, 3)

    def theirs() -> Any:
        return torch.arange(6.0).reshape(2, 1, 3)

    for args in others:
        _clear()
        fresh = _outcome(ours, op, args)
        assert _outcome(ours, op, plain) == _outcome(theirs, op, plain)  # (the plain call is remembered)
        remembered = _outcome(ours, op, args)
        assert remembered == fresh, (op, args)
        torch_outcome = _outcome(theirs, op, args)
        if isinstance(torch_outcome, tuple) or isinstance(fresh, tuple):
            assert fresh == torch_outcome, (op, args)
        else:  # both refuse: strided raises the builtin class PyTorch raises
            assert fresh is torch_outcome, (op, args, fresh)


def test_a_memo_hit_gives_the_layout_a_miss_gives_on_hard_layouts() -> None:
    """Permuted, sliced with steps, expanded and size-1 layouts: each view op's result is the same
    (and PyTorch's) on the first call, which decides, and on the second, which looks it up."""
    base = torch.arange(120.0)
    layouts = [((2, 3, 4), (12, 4, 1), 0), ((4, 3, 2), (1, 4, 12), 3), ((2, 1, 4), (40, 7, 2), 5),
               ((3, 1, 4), (0, 9, 1), 2), ((2, 0, 3), (3, 3, 1), 0)]
    ops = [("transpose", (0, 2)), ("permute", (2, 0, 1)), ("unsqueeze", (-1,)), ("squeeze", ()),
           ("squeeze", (1,)), ("narrow", (2, 1, 2)), ("select", (0, 1)), ("diagonal", (0, 0, 2)),
           ("flatten", ()), ("flatten", (1, 2)), ("view", (-1,)), ("reshape", (-1,)), ("expand", (2, -1, -1, -1)),
           ("unfold", (2, 2, 1)), ("movedim", (0, 2))]
    for shape, strides, offset in layouts:
        for op, args in ops:
            _clear()

            def ours() -> Any:
                return strided.arange(120.0).as_strided(shape, strides, offset)  # noqa: B023

            def theirs() -> Any:
                return base.as_strided(shape, strides, offset)  # noqa: B023

            expected = _outcome(theirs, op, args)
            first, second = _outcome(ours, op, args), _outcome(ours, op, args)
            if isinstance(expected, tuple):
                assert first == second == expected, (shape, strides, op, args)
            else:
                assert first is second is expected, (shape, strides, op, args)


def test_the_memos_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each memo stops growing at the limit (views of ever new shapes cost memory only up to it),
    and a call past the limit still gets its answer."""
    _clear()
    monkeypatch.setattr(memo, "LIMIT", 8)
    for n in range(1, 40):
        strided.zeros(n, 2).permute(1, 0)
    assert len(memo.PERMUTE) == 8
    assert strided.zeros(50, 2).permute(1, 0).stride() == (1, 2)
