"""The table of ops: every computing op and view/copy method by name, with its kind, its
forward, and the slot its backward rule will fill.

One entry per accepted op name (the list the diagnostics and the command line will accept):
``OPS[name]`` is an :class:`OpEntry`. The elementwise entries keep their descriptors
(:class:`~strided.ops.elementwise.BinaryOp`, :class:`~strided.ops.unary.UnaryOp`) as ``spec``;
``backward`` is None until autograd gives each op its rule, beside its forward.

>>> OPS["add"].kind, OPS["permute"].kind, OPS["sum"].kind
('compute', 'view', 'compute')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..tensor import Tensor
from . import einsum, extrema, matmul, reductions, softmax
from . import elementwise as E
from . import unary as U


@dataclass(frozen=True, eq=False)
class OpEntry:
    """One op: ``name``; ``kind`` "view", "copy" or "compute" (what it reports at the op boundary,
    :class:`strided.dispatch.OpRecord`); ``forward`` the function (or Tensor method) that runs it;
    ``spec`` its descriptor where it has one; ``backward`` its gradient rule (None: not yet)."""

    name: str
    kind: str
    forward: Callable[..., Any]
    spec: Any = None
    backward: Callable[..., Any] | None = None


_BINARY = [E.ADD, E.SUB, E.MUL, E.DIV, E.FLOOR_DIVIDE, E.REMAINDER, E.POW, E.BITWISE_AND,
           E.BITWISE_OR, E.BITWISE_XOR, E.EQ, E.NE, E.LT, E.LE, E.GT, E.GE, E.MAXIMUM, E.MINIMUM]
_UNARY = [U.NEG, U.ABS, U.EXP, U.LOG, U.SQRT, U.SIN, U.COS, U.TANH, U.SIGMOID, U.RELU, U.BITWISE_NOT]

# The view methods (a new layout over the same storage) and the copy methods of Tensor.
_VIEWS = ("view", "view_as", "reshape", "flatten", "unflatten", "permute", "transpose", "t", "T",
          "mT", "movedim", "expand", "expand_as", "unsqueeze", "squeeze", "narrow", "select",
          "split", "chunk", "unbind", "diagonal", "unfold", "as_strided", "__getitem__")
_COPIES = ("contiguous", "clone", "to")


def _entries() -> dict[str, OpEntry]:
    ops: dict[str, OpEntry] = {}
    for op in _BINARY:
        ops[op.name] = OpEntry(op.name, "compute", getattr(E, op.name), op)
    for op in _UNARY:
        ops[op.name] = OpEntry(op.name, "compute", getattr(U, op.name), op)
    for name, fn in (("clamp", U.clamp), ("where", U.where),
                     ("sum", reductions.sum), ("prod", reductions.prod), ("mean", reductions.mean),
                     ("var", reductions.var), ("std", reductions.std), ("all", reductions.all),
                     ("any", reductions.any), ("max", extrema.max), ("min", extrema.min),
                     ("argmax", extrema.argmax), ("argmin", extrema.argmin),
                     ("softmax", softmax.softmax), ("log_softmax", softmax.log_softmax),
                     ("matmul", matmul.matmul), ("mm", matmul.mm), ("bmm", matmul.bmm),
                     ("dot", matmul.dot), ("outer", matmul.outer), ("einsum", einsum.einsum)):
        ops[name] = OpEntry(name, "compute", fn)
    for name in _VIEWS:
        ops[name] = OpEntry(name, "view", getattr(Tensor, name))
    for name in _COPIES:
        ops[name] = OpEntry(name, "copy", getattr(Tensor, name))
    return ops


OPS: dict[str, OpEntry] = _entries()
