"""The contraction planner: how two operands reach one batched matrix product, as layout plans.

A contraction of two operands is a batched matrix product once each operand is permuted so
its indices fall into three groups and reshaped to three dims: ``a`` to ``(batch, m, k)`` and
``b`` to ``(batch, k, n)``. Whether that reshape is a view or a copy (and why) is the reshape
plan's answer (:func:`strided.layout.plans.reshape`), so the reason a copy is needed comes from
the same refusal objects as the view errors. Pure layout arithmetic: no data, no NumPy.

Two users share it:

- ``einsum`` (:mod:`strided.ops.linalg.einsum`) plans each pairwise step with :func:`plan_pair`;
- ``matmul`` (:mod:`strided.ops.linalg.matmul`) asks :func:`should_fold` whether PyTorch runs a
  batched product as one folded matrix product (its error messages follow that route).

>>> from strided.layout import Layout
>>> a = Layout((32, 128, 64), (8192, 64, 1), 0)            # bij
>>> b = Layout((32, 64, 128), (8192, 128, 1), 0)           # bjk
>>> p = plan_pair("bij", a, "bjk", b, keep={"b", "i", "k"}, sizes={"b": 32, "i": 128, "j": 64, "k": 128},
...               itemsize=4)
>>> p.labels, [o.route.__class__.__name__ for o in p.operands]
('bik', ['View', 'View'])
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import plans as P
from .core import Layout, contiguous_strides
from .movement import transpose
from .order import elementwise_output_strides

__all__ = ["OperandRoute", "PairPlan", "order_by_stride", "plan_pair", "should_fold"]


def order_by_stride(labels: str, group: Sequence[str], strides: Sequence[int]) -> list[str]:
    """``group``'s labels by descending stride in the operand ``labels`` names (ties keep the
    operand's order): the order in which merging them into one dim can be a view."""
    return sorted(group, key=lambda c: (-abs(strides[labels.index(c)]), labels.index(c)))


@dataclass(frozen=True)
class OperandRoute:
    """How one operand reaches the product: ``perm`` (its dims into the three groups' order),
    ``shape3`` (the 3-d shape it is reshaped to), ``converted`` (the dtype conversion's Copy plan,
    None when the dtype is already the product's), ``route`` (the reshape's plan: a View, or a
    Copy whose ``why`` says which dims could not merge) and ``read`` (the 3-d layout the product
    reads)."""

    perm: tuple[int, ...]
    shape3: tuple[int, int, int]
    converted: Any
    route: Any
    read: Layout

    @property
    def nbytes(self) -> int:
        """The bytes copied to reach the product (conversion and reshape together)."""
        return (self.converted.nbytes if self.converted is not None else 0) + (
            0 if isinstance(self.route, P.View) else self.route.nbytes)


@dataclass(frozen=True)
class PairPlan:
    """One contraction of two operands: ``operands`` (an :class:`OperandRoute` each, left then
    right), ``labels`` the result's indices (batch, then the left's kept, then the right's),
    ``layout`` the result's, ``elementwise`` True when nothing is contracted (an outer or
    elementwise product: multiplied as ``(batch, m, 1) * (batch, 1, n)``, not a matrix product)."""

    operands: tuple[OperandRoute, OperandRoute]
    labels: str
    layout: Layout
    elementwise: bool

    @property
    def nbytes(self) -> int:
        return sum(o.nbytes for o in self.operands)


def plan_pair(la: str, a: Layout, lb: str, b: Layout, *, keep: Collection[str], sizes: Mapping[str, int],
              itemsize: int, convert: tuple[bool, bool] = (False, False)) -> PairPlan:
    """Plan the product of operand ``a`` (indices ``la``, one label per dim, no repeats) and ``b``.

    ``keep`` are the indices that outlive the step (the output's and the other operands'):
    an index in both operands and in ``keep`` is a batch index, in both and not in ``keep`` a
    contracted one. ``convert`` says which operand must first be converted to the product's
    dtype (``itemsize`` bytes per element). Of the two orders of the batch and contracted
    indices (each operand's own stride order), the one that copies fewer bytes wins; each
    group of kept indices follows its operand's stride order, so a view is found whenever one
    exists for that grouping.
    """
    elementwise = not [c for c in la if c in lb and c not in keep]
    batch = [c for c in la if c in lb and c in keep]
    contracted = [c for c in la if c in lb and c not in keep]
    m = order_by_stride(la, [c for c in la if c not in lb], a.strides)
    n = order_by_stride(lb, [c for c in lb if c not in la], b.strides)
    best: tuple[int, tuple[OperandRoute, OperandRoute], list[str]] | None = None
    for labels, lay in ((la, a), (lb, b)):
        bo = order_by_stride(labels, batch, lay.strides)
        ko = order_by_stride(labels, contracted, lay.strides)
        left = _route(la, a, (bo, m, ko), sizes, itemsize, convert[0] and not elementwise)
        right = _route(lb, b, (bo, ko, n), sizes, itemsize, convert[1] and not elementwise)
        cost = left.nbytes + right.nbytes
        if best is None or cost < best[0]:
            best = (cost, (left, right), bo)
    assert best is not None
    _, routes, bo = best
    new = "".join(bo + m + n)
    shape = tuple(sizes[c] for c in new)
    if elementwise:  # the product's layout is elementwise's (the inputs' dim order); split, a view
        ra, rb = routes[0].read, routes[1].read
        s3 = (ra.shape[0], ra.shape[1], rb.shape[2])
        strides3 = elementwise_output_strides(s3, [(x.shape, x.strides) for x in (ra, rb)])
        out = P.view(Layout(s3, strides3, 0), shape).layout
    else:
        out = Layout(shape, contiguous_strides(shape), 0)
    return PairPlan(routes, new, out, elementwise)


def _route(labels: str, lay: Layout, groups: tuple[list[str], ...], sizes: Mapping[str, int], itemsize: int,
           convert: bool) -> OperandRoute:
    perm = tuple(labels.index(c) for g in groups for c in g)
    converted = None
    if convert:
        converted = P.to(lay, itemsize=itemsize)
        lay = converted.layout
    permuted = P.permute(lay, perm).layout
    s3 = tuple(math.prod(sizes[c] for c in g) for g in groups)
    plan = P.reshape(permuted, s3, itemsize=itemsize)
    return OperandRoute(perm, s3, converted, plan, plan.layout)  # type: ignore[arg-type]


def should_fold(a: Layout, b: Layout) -> bool:
    """PyTorch's ``should_fold``: whether ``matmul(a, b)`` runs as one matrix product over the
    larger operand with its leading dims folded into rows (a view, by this stride test), rather
    than as a batched product. True only for a 3-d-or-more operand against a 1-d or 2-d one."""
    da, db = len(a.shape), len(b.shape)
    if da >= db:
        big, small_ndim = a, db
    else:
        big, small_ndim = transpose(b, -2, -1), da
    if not (len(big.shape) >= 3 and small_ndim in (1, 2)):
        return False
    if da == 2:
        return False
    if math.prod(big.shape) == 0:
        return True
    shape, strides = big.shape, big.strides
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))
