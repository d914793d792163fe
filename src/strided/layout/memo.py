"""The layout deciders of the view ops, memoized once, here.

Programs repeat the same few shapes, so each view op's decision (``Layout`` in, parsed
arguments in, ``Layout | Copy | refusal`` out) is remembered on its inputs: the layout's
``(shape, strides, offset)`` and the parsed arguments. Layouts, plans and refusals are immutable
values, so a remembered answer is the answer. A view method is then: parse its arguments, look
the decision up, wrap it::

    key = (lay.shape, lay.strides, lay.offset, dims)
    layout = memo.PERMUTE.get(key)      # a remembered view: its Layout
    if layout is None:
        plan = memo.decide(memo.PERMUTE, key)   # Layout | Copy | refusal, remembered if a Layout

Each memo is a plain dict (the interpreter's fastest lookup: about 0.1 µs where deciding costs
0.5-1.5 µs, measured with ``bench/bench_views.py``); :func:`decide` serves a miss with the memo's
decider and remembers a view's Layout while the memo holds fewer than :data:`LIMIT` entries (it
stops growing instead of evicting). Copies and refusals are not remembered: they cost their own
price anyway, and a hit is then one ``is not None`` test.

The key must hold **parsed** arguments (plain ints, tuples of plain ints, None): ``True == 1``
and ``1.0 == 1`` as keys, but not as dims, so a caller looks up only once its parser has turned
the arguments into plain ints (or refused them).

>>> lay = strided.Layout((2, 3), (3, 1), 0)
>>> decide(TRANSPOSE, (lay.shape, lay.strides, lay.offset, 0, 1))
Layout(shape=(3, 2), strides=(1, 3), offset=0)
>>> TRANSPOSE.get(((2, 3), (3, 1), 0, 0, 1))
Layout(shape=(3, 2), strides=(1, 3), offset=0)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import movement as M
from . import plans as P
from .core import Layout, _trusted

LIMIT = 4096  # entries per memo

# id(memo) -> its decider: (Layout, *parsed args) -> Layout | View | Copy | refusal
_DECIDERS: dict[int, Callable[..., Any]] = {}


def memo_of(decider: Callable[..., Any]) -> dict[tuple, Any]:
    """A new, empty memo of ``decider``'s decisions (served on a miss by :func:`decide`)."""
    memo: dict[tuple, Any] = {}
    _DECIDERS[id(memo)] = decider
    return memo


def decide(memo: dict[tuple, Any], key: tuple) -> Any:
    """A miss of ``memo``: its decider's answer for ``key`` = ``(shape, strides, offset, *args)``.
    A View plan is given as its bare Layout, remembered while the memo holds fewer than
    :data:`LIMIT` entries; a View of the layout itself stays a View (the op changed nothing:
    ``flatten`` then returns the tensor itself, as PyTorch does), and it, a Copy or a refusal is
    decided again at each call.

    >>> decide(memo_of(M.unsqueeze_layout), ((3,), (1,), 0, 0))
    Layout(shape=(1, 3), strides=(3, 1), offset=0)
    """
    layout = _trusted(key[0], key[1], key[2])
    plan = _DECIDERS[id(memo)](layout, *key[3:])
    if plan.__class__ is P.View and plan[0] is not layout:
        plan = plan[0]
    if plan.__class__ is Layout and len(memo) < LIMIT:
        memo[key] = plan
    return plan


# One memo per view op: key (shape, strides, offset, *parsed args) -> the view's Layout.
VIEW = memo_of(P.view)  # (sizes)
RESHAPE = memo_of(lambda lay, sizes, itemsize: P.reshape(lay, sizes, itemsize=itemsize))  # (sizes, itemsize)
FLATTEN = memo_of(lambda lay, start, end, itemsize: P.flatten(lay, start, end, itemsize=itemsize))
UNFLATTEN = memo_of(P.unflatten)  # (dim, sizes)
PERMUTE = memo_of(M.permute_layout)  # (dims)
TRANSPOSE = memo_of(M.transpose_layout)  # (dim0, dim1)
MOVEDIM = memo_of(M.movedim_layout)  # (source, destination)
EXPAND = memo_of(M.expand_layout)  # (sizes)
SQUEEZE = memo_of(lambda lay, dim: M.squeeze_layout(lay, None if dim is None else (dim,)))  # (one dim, or None)
UNSQUEEZE = memo_of(M.unsqueeze_layout)  # (dim)
NARROW = memo_of(M.narrow_layout)  # (dim, start, length)
SELECT = memo_of(M.select_layout)  # (dim, index)
DIAGONAL = memo_of(M.diagonal_layout)  # (offset, dim1, dim2)
UNFOLD = memo_of(M.unfold_layout)  # (dimension, size, step)
# NumPy's reshape in C order without copy= (strided.reshape's common call): (sizes, itemsize)
NUMPY_RESHAPE = memo_of(lambda lay, sizes, itemsize: P.numpy_reshape(lay, sizes, "C", None, itemsize=itemsize))
# as_strided: the key's layout is the one asked for, checked against (storage_size, itemsize)
AS_STRIDED = memo_of(lambda lay, storage_size, itemsize: P.as_strided(
    lay.shape, lay.strides, lay.offset, storage_size=storage_size, itemsize=itemsize))
MEMOS = (VIEW, RESHAPE, FLATTEN, UNFLATTEN, PERMUTE, TRANSPOSE, MOVEDIM, EXPAND, SQUEEZE, UNSQUEEZE, NARROW,
         SELECT, DIAGONAL, UNFOLD, NUMPY_RESHAPE, AS_STRIDED)
"""Every memo of this module (a test clears them to compare a miss with a hit)."""
