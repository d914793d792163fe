"""The layout deciders of the view ops, memoized once, here.

Programs repeat the same few shapes, so each view op's decision (``Layout`` in, parsed
arguments in, ``Layout | Copy | refusal`` out) is remembered on its inputs: the layout's
``(shape, strides, offset)`` and the parsed arguments. Layouts, plans and refusals are
immutable values, so a remembered answer is the answer. A view method is then: parse its
arguments, look the decision up (``PERMUTE[lay.shape, lay.strides, lay.offset, dims]``), wrap
it. A hit is one C-level dict lookup, about 0.1 µs where deciding costs 0.5-1.5 µs (measured:
``bench/bench_views.py``); only a miss runs the Python decider.

The key must hold **parsed** arguments (plain ints, tuples of plain ints, None): ``True == 1``
and ``1.0 == 1`` as keys, but not as dims, so a caller looks up only after its parser has turned
the arguments into plain ints (or refused them).

>>> lay = Layout((2, 3), (3, 1), 0)
>>> TRANSPOSE[lay.shape, lay.strides, lay.offset, 0, 1]
Layout(shape=(3, 2), strides=(1, 3), offset=0)
>>> RESHAPE[lay.shape, lay.strides, lay.offset, (6,), 4] is RESHAPE[(2, 3), (3, 1), 0, (6,), 4]
True
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from . import movement as M
from . import plans as P
from .core import Layout, _trusted  # noqa: F401 - (Layout: for the examples)


class Memo(dict):
    """``memo[key]`` returns the remembered value or computes ``compute(key)`` (and remembers it
    while fewer than ``limit`` entries are held: the memo stops growing instead of evicting).
    ``memo.get(key)`` never computes.

    >>> squares = Memo(lambda n: n * n)
    >>> squares[12], dict(squares)
    (144, {12: 144})
    """

    __slots__ = ("compute", "limit")

    def __init__(self, compute: Callable[[Any], Any] | None = None, limit: int = 4096) -> None:
        super().__init__()
        self.compute = compute
        self.limit = limit

    def __missing__(self, key: Hashable) -> Any:
        value = self.compute(key)  # type: ignore[misc]
        self.put(key, value)
        return value

    def put(self, key: Hashable, value: Any) -> None:
        """Remember ``value`` for ``key`` unless the memo is full."""
        if len(self) < self.limit:
            self[key] = value


def memoized(decide: Callable[..., Any]) -> Memo:
    """``decide(layout, *args)`` memoized: ``memo[shape, strides, offset, *args]`` is
    ``decide(Layout(shape, strides, offset), *args)``, a View plan given as its bare Layout.

    >>> memoized(M.unsqueeze_layout)[(3,), (1,), 0, 0]
    Layout(shape=(1, 3), strides=(3, 1), offset=0)
    """

    def compute(key: tuple) -> Any:
        plan = decide(_trusted(key[0], key[1], key[2]), *key[3:])
        return plan[0] if plan.__class__ is P.View else plan

    return Memo(compute)


# One memo per view op: memo[shape, strides, offset, *parsed args] -> Layout | Copy | refusal.
VIEW = memoized(P.view)  # (sizes)
RESHAPE = memoized(lambda lay, sizes, itemsize: P.reshape(lay, sizes, itemsize=itemsize))  # (sizes, itemsize)
FLATTEN = memoized(lambda lay, start, end, itemsize: P.flatten(lay, start, end, itemsize=itemsize))
UNFLATTEN = memoized(P.unflatten)  # (dim, sizes)
PERMUTE = memoized(M.permute_layout)  # (dims)
TRANSPOSE = memoized(M.transpose_layout)  # (dim0, dim1)
MOVEDIM = memoized(M.movedim_layout)  # (source, destination)
EXPAND = memoized(M.expand_layout)  # (sizes)
SQUEEZE = memoized(M.squeeze_layout)  # (dims or None)
UNSQUEEZE = memoized(M.unsqueeze_layout)  # (dim)
NARROW = memoized(M.narrow_layout)  # (dim, start, length)
SELECT = memoized(M.select_layout)  # (dim, index)
DIAGONAL = memoized(M.diagonal_layout)  # (offset, dim1, dim2)
UNFOLD = memoized(M.unfold_layout)  # (dimension, size, step)
