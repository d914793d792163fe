"""The table of ops: every op with a kind, by each of its names, read off the op registry
(:mod:`strided.opdef`), where each family module declared its ops' kinds
(:func:`~strided.opdef.declare`) and backward rules beside their forwards.

``OPS[name]`` is the :class:`~strided.opdef.OpDef` of the op spelt ``name`` (``OPS["concat"]`` is
``cat``'s): the names the diagnostics and the command line accept. The elementwise entries keep
their descriptors (:class:`~strided.ops.elementwise.binary.BinaryOp`,
:class:`~strided.ops.elementwise.unary.UnaryOp`) as ``spec``; ``backward`` is the op's rule (None
for the ops autograd cannot differentiate). Importing this module imports every family module,
so the registry is whole.

>>> OPS["add"].kind.value, OPS["permute"].kind.value, OPS["sum"].kind.value
('compute', 'view', 'compute')
>>> OPS["add"] is OPDEFS["__radd__"], OPS["add"].backward is BACKWARD["__radd__"][0]
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..opdef import BACKWARD, OPDEFS, OpDef
from . import conversions, copies, views  # noqa: F401  (the family modules: importing them declares their ops)
from .elementwise import (  # noqa: F401
    activations,
    binary,
    binary_more,
    complex_ops,
    shifts,
    special,
    special_fns,
    unary,
    unary_more,
)
from .indexing import advanced, gather_scatter, index_ops, masked  # noqa: F401
from .linalg import distance, einsum, matmul  # noqa: F401
from .reductions import extrema, nan_reductions, scans, softmax, sums  # noqa: F401
from .shape import joining, reorder, scatters, searching, sets, sorting, triangles  # noqa: F401

OpEntry = OpDef  # (the table's entries are the registry's ops)


class _Table(Mapping):
    """:data:`OPS`: each op's name and aliases -> the op, for the ops that have a kind (the family
    modules declare it: :func:`strided.opdef.declare`), ``nn.functional``'s ops (``F.<name>``)
    and the dunders aside. Read off the registry each time, not a second list."""

    def _items(self) -> Iterator[tuple[str, OpDef]]:
        seen: set[int] = set()
        for op in list(OPDEFS.values()):
            if op.kind is None or id(op) in seen or op.name.startswith("F."):
                continue
            seen.add(id(op))
            yield op.name, op
            for alias in op.aliases:
                if not alias.startswith("F."):  # (torch.selu's op: F.selu, its nn.functional spelling, aside)
                    yield alias, op

    def __getitem__(self, name: str) -> OpDef:
        op = OPDEFS.get(name)
        if op is None or op.kind is None or name.startswith("F.") or op.name.startswith("F.") or name in op.dunders:
            raise KeyError(name)
        return op

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self._items())

    def __len__(self) -> int:
        return sum(1 for _ in self._items())

    def __contains__(self, name: object) -> bool:
        try:
            self[name]  # type: ignore[index]
        except KeyError:
            return False
        return True


OPS: Mapping[str, OpDef] = _Table()


def explained() -> tuple[str, ...]:
    """The spellings whose layout ``strided.explain`` predicts (their declarations say so:
    ``declare(..., explain=...)``), in the registry's order.

    >>> explained()[:4]
    ('view', 'reshape', 'flatten', 'unflatten')
    """
    return tuple(name for name, op in OPDEFS.items() if name in op.explained)


__all__ = ["BACKWARD", "OPS", "OpEntry", "explained"]
