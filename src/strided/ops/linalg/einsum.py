"""einsum: parse the equation, plan the contractions (and price them), then run the plan.

``einsum(equation, *operands, optimize="auto")`` follows PyTorch's equation language:
implicit (``ij,jk``) and explicit (``ij,jk->ik``) output, ``...``, repeated indices in one
operand (a diagonal, taken as a view), sums, traces, outer products, batch matmul and any
number of operands. ``einsum_plan(equation, *operands_or_shapes, optimize="auto")`` returns the
:class:`EinsumPlan` the same call would run, without running it.

The plan is pure layout arithmetic (``layout.plans``): each pairwise step permutes its operands
so the batch, kept and contracted indices line up, and reshapes them to ``(batch, m, k)`` and
``(batch, k, n)``. ``plans.reshape`` says whether that is a view or a copy, and why; the
executor then calls the same ``Tensor.reshape`` so the copy goes through strided's one copy
path (``watch`` and the copy ledger see it) and multiplies with ``strided.matmul``.

The contraction order comes from ``opt_einsum`` (imported lazily, only for ``"greedy"``,
``"optimal"`` and ``"auto"``).

Example::

    >>> a, b = strided.ones(32, 128, 64), strided.ones(32, 64, 128)
    >>> einsum_plan("bij,bjk->bik", a, b).planned_madds
    33554432
    >>> einsum("bij,bjk->bik", a, b).shape
    (32, 128, 128)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ... import layout as L
from ...dispatch import OPEN, adopted, result_array
from ...dtypes import TORCH_NAME, DType, float32, float64, int64
from ...errors import StridedRuntimeError, StridedTypeError, StridedValueError, join_lines
from ...gradients import scatter_into_view, seal
from ...kernels import numpy_view
from ...kernels.fpstate import quiet_call, quiet_retry
from ...kernels.matmul import matmul_new
from ...kernels.reduce import reduce_into
from ...layout import CopyRequested, Layout
from ...layout import plans as P
from ...layout.contraction import plan_pair
from ...opdef import Kind, declare
from ...tensor import Tensor
from .._support import gradtools
from .._support.memo import Memo
from .._support.promotion import result_type
from .._support.support import check as _check_support
from ..elementwise.binary import mul
from ..reductions.sums import _accumulator
from ..registry import backward
from .matmul import matmul

__all__ = ["EinsumPlan", "Route", "Step", "einsum", "einsum_plan"]

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_add_reduce = np.add.reduce  # (array, axis, dtype, out, keepdims): positional, cheaper than keywords


def _fail(first: str, *detail: str) -> StridedRuntimeError:
    return StridedRuntimeError(join_lines("einsum(): " + first, *detail))


# ---------------------------------------------------------------- parse


@dataclass(frozen=True)
class _Parsed:
    """The equation with ``...`` replaced by free letters: one label per operand dim."""

    inputs: tuple[str, ...]   # labels of each operand, one per dim (repeats allowed)
    output: str               # the output's labels, unique
    sizes: dict[str, int]     # each label's size (size-1 dims broadcast)
    ellipsis: str             # the letters standing for the ``...`` dims, leftmost first


def _term(term: str, start: int, who: str) -> tuple[list[str], bool]:
    """The subscripts of one term, ``"..."`` kept as one item; raise on a bad character."""
    out: list[str] = []
    seen_ellipsis = False
    i = 0
    while i < len(term):
        c = term[i]
        if c == ".":
            if seen_ellipsis:
                raise _fail(f"found '.' for {who} for which an ellipsis was already found",
                            "an operand (or the output) may hold one '...' at most")
            if term[i : i + 3] != "...":
                raise _fail(f"found '.' for {who} that is not part of any ellipsis",
                            f"at index {start + i} of the equation; write '...' (three dots)")
            seen_ellipsis = True
            out.append("...")
            i += 3
            continue
        if c not in _LETTERS:
            raise _fail(f"invalid subscript given at index {start + i} in the equation string, "
                        "subscripts must be in [a-zA-Z]",
                        f"found {c!r}; an equation is subscripts, ',' between operands, '...' and one '->'")
        out.append(c)
        i += 1
    return out, seen_ellipsis


def _parse(equation: str, shapes: Sequence[tuple[int, ...]]) -> _Parsed:
    if not isinstance(equation, str):
        raise StridedTypeError(f"einsum(): equation must be a str, but got {type(equation).__name__}")
    arrow = equation.find("->")
    lhs, rhs = (equation, None) if arrow < 0 else (equation[:arrow], equation[arrow + 2 :])
    terms, starts, pos = [], [], 0
    for t in lhs.split(","):
        terms.append(t)
        starts.append(pos)
        pos += len(t) + 1
    if len(terms) < len(shapes):
        raise _fail("more operands were provided than specified in the equation",
                    f"the equation {equation!r} names {len(terms)} operand(s); {len(shapes)} were given")
    if len(terms) > len(shapes):
        raise _fail("fewer operands were provided than specified in the equation",
                    f"the equation {equation!r} names {len(terms)} operand(s); {len(shapes)} were given")
    parsed = []
    for k, (t, s) in enumerate(zip(terms, starts, strict=True)):
        subs, has_ell = _term(t.replace(" ", ""), s, f"operand {k}")
        parsed.append(subs)
        n = len(subs) - has_ell
        nd = len(shapes[k])
        if not has_ell and n != nd:
            raise _fail(f"the number of subscripts in the equation ({n}) does not match the number of "
                        f"dimensions ({nd}) for operand {k} and no ellipsis was given",
                        f"operand {k} has shape {tuple(shapes[k])}, its term is {t!r}")
        if has_ell and n > nd:
            raise _fail(f"the number of subscripts in the equation ({n}) is more than the number of "
                        f"dimensions ({nd}) for operand {k}",
                        f"operand {k} has shape {tuple(shapes[k])}, its term is {t!r}")
    used = {c for subs in parsed for c in subs if c != "..."}
    ell_ndim = max((len(shapes[k]) - (len(subs) - 1) for k, subs in enumerate(parsed) if "..." in subs),
                   default=0)
    free = [c for c in _LETTERS if c not in used and (rhs is None or c not in rhs)]
    ell = "".join(free[:ell_ndim])
    inputs = []
    for k, subs in enumerate(parsed):
        labels = ""
        for c in subs:
            labels += ell[ell_ndim - (len(shapes[k]) - (len(subs) - 1)):] if c == "..." else c
        inputs.append(labels)
    sizes = _sizes(inputs, shapes, ell)
    if rhs is None:
        counts: dict[str, int] = {}
        for c in "".join(terms):
            if c in _LETTERS:
                counts[c] = counts.get(c, 0) + 1
        output = ell + "".join(sorted(c for c, n in counts.items() if n == 1))
    else:
        subs, _ = _term(rhs.replace(" ", ""), arrow + 2, "output")
        output = ""
        for c in subs:
            if c == "...":
                output += ell
                continue
            if c in output:
                raise _fail(f"output subscript {c} appears more than once in the output",
                            f"output {rhs!r}; each output index names one dim (a diagonal goes on the left of '->')")
            if c not in used:
                raise _fail(f"output subscript {c} does not appear in the equation for any input operand",
                            f"inputs {lhs!r}, output {rhs!r}")
            output += c
        # Note: NumPy refuses '...ij->ij' (the '...' dims missing from the output); PyTorch sums
        # over them, and so does strided.
    return _Parsed(tuple(inputs), output, sizes, ell)


def _sizes(inputs: Sequence[str], shapes: Sequence[tuple[int, ...]], ell: str) -> dict[str, int]:
    """Each label's size; size 1 broadcasts (as in PyTorch); name the label, operand and sizes."""
    sizes: dict[str, int] = {}
    for k, (labels, shape) in enumerate(zip(inputs, shapes, strict=True)):
        mine: dict[str, int] = {}
        for c, n in zip(labels, shape, strict=True):
            if c in mine and mine[c] != n:
                raise _fail(f"subscript {c} is repeated for operand {k} but the sizes don't match, "
                            f"{n} != {mine[c]}",
                            f"operand {k} has shape {shape}; a repeated subscript takes a diagonal, "
                            "which needs equal sizes")
            mine[c] = n
            seen = sizes.get(c)
            if seen is None or seen == 1:
                sizes[c] = n
            elif n != 1 and n != seen:
                if c in ell:
                    d = ell.index(c)
                    raise _fail(f"dimension {d} covered by ellipsis in operand {k} has size {n} which does "
                                f"not broadcast with previously seen ellipsis with size {seen} for the "
                                "respective dimension",
                                f"operand {k} has shape {shape}; '...' dims broadcast: equal sizes or 1")
                raise _fail(f"subscript {c} has size {n} for operand {k} which does not broadcast with "
                            f"previously seen size {seen}",
                            f"operand {k} has shape {shape}; every dim named {c} must have size {seen} (or 1)")
    return sizes


def _subscript(n: Any, where: str) -> str:
    """One item of a PyTorch sublist: 0..25 are ``A``..``Z``, 26..51 ``a``..``z``, ``...`` an ellipsis."""
    if n is Ellipsis:
        return "..."
    if isinstance(n, bool) or not isinstance(n, int):
        raise StridedTypeError(f"einsum(): subscripts in a sublist must be ints in [0, 52) or ..., but {where} "
                               f"holds {n!r} ({type(n).__name__})")
    if not 0 <= n < 52:
        raise StridedValueError(join_lines(
            "einsum(): subscript in subscript list is not within the valid range [0, 52)",
            f"{where} holds {n}; each int names one index (0..25 and 26..51)"))
    return _LETTERS[n]


def _from_sublists(args: Sequence[Any]) -> tuple[str, tuple[Any, ...]]:
    """PyTorch's sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` as ``("Ab,bc->Ac"-style
    equation, (a, b))``: operands and their sublists alternate; an odd count ends with the output's."""
    pairs, out = (args[:-1], args[-1]) if len(args) % 2 else (args, None)
    operands = tuple(pairs[0::2])
    terms = []
    for k, sub in enumerate(pairs[1::2]):
        if not isinstance(sub, (list, tuple)):
            raise StridedTypeError(f"einsum(): in the sublist form operands and sublists alternate "
                                   f"(einsum(a, [0, 1], b, [1, 2])); the sublist of operand {k} is a "
                                   f"{type(sub).__name__}")
        terms.append("".join(_subscript(n, f"the sublist of operand {k}") for n in sub))
    equation = ",".join(terms)
    if out is not None:
        if not isinstance(out, (list, tuple)):
            raise StridedTypeError(f"einsum(): the output sublist must be a list of ints (or ...), but got "
                                   f"{type(out).__name__}; operands and sublists alternate, "
                                   "e.g. einsum(a, [0, 1], b, [1, 2], [0, 2])")
        equation += "->" + "".join(_subscript(n, "the output sublist") for n in out)
    return equation, operands


# ---------------------------------------------------------------- the plan


@dataclass(frozen=True)
class Route:
    """How one operand reaches a matrix product: ``kind`` "view" or "copy" (``nbytes``, ``why``)."""

    operand: int
    kind: str
    nbytes: int = 0
    why: Any = None

    def __str__(self) -> str:
        if self.kind == "view":
            return f"#{self.operand} view"
        if hasattr(self.why, "equation"):
            why = self.why.equation()
        elif isinstance(self.why, CopyRequested):
            why = f"a dtype conversion, {self.why.op}"
        else:
            why = str(self.why)
        return f"#{self.operand} copy {self.nbytes} B ({why})"


@dataclass(frozen=True)
class Step:
    """One step of the plan: ``kind`` is "diagonal", "squeeze", "sum", "contract" or "permute".

    ``operands`` are ids (inputs 0..n-1, then each step's result takes the next id), ``result``
    the id of what it makes. ``equation`` is the step's own, in the equation's letters (the
    ``...`` dims appear as capital letters the equation leaves unused, from ``A`` on);
    ``madds`` the product of the sizes of every index it involves
    (0 for views); ``shape`` and ``nbytes`` its result's; ``routes`` how a contraction's operands
    reach the matrix product.
    """

    kind: str
    operands: tuple[int, ...]
    result: int
    equation: str
    madds: int
    shape: tuple[int, ...]
    nbytes: int
    routes: tuple[Route, ...] = ()
    recipe: tuple = field(default=(), repr=False, compare=False)  # what the executor does


@dataclass(frozen=True)
class EinsumPlan:
    """What ``einsum`` will do: the steps in order and their totals; ``str(plan)`` is a table.

    ``naive_madds`` is the cost of one step over all operands: (operands - 1) multiplications
    for each term of the product of all index sizes; ``planned_madds`` the steps' sum.
    """

    equation: str
    path: tuple[tuple[int, ...], ...]
    steps: tuple[Step, ...]
    naive_madds: int
    planned_madds: int
    largest_intermediate_bytes: int
    bytes_copied: int
    dtype: DType = field(repr=False)
    # one-operand plans of views and one sum: what einsum runs directly (see _one_reduction)
    reduction: tuple | None = field(default=None, repr=False, compare=False)

    @property
    def speedup(self) -> float:
        """naive / planned multiply-adds; 1.0 for one operand (naive is 0: nothing multiplies)."""
        if self.naive_madds == 0:
            return 1.0
        if self.planned_madds == 0:
            return math.inf
        return self.naive_madds / self.planned_madds

    def _repr_html_(self) -> str:
        """Jupyter's rich display (:func:`.einsum_html.einsum_plan_html`)."""
        from .einsum_html import einsum_plan_html

        return einsum_plan_html(self)

    def __str__(self) -> str:
        rows = [("step", "operands", "equation", "multiply-adds", "result shape", "bytes", "operands reach it")]
        for i, s in enumerate(self.steps):
            ops = ", ".join(f"#{o}" for o in s.operands) + f" -> #{s.result}"
            how = "; ".join(str(r) for r in s.routes) or ("view" if s.madds == 0 else "reduction")
            rows.append((str(i), ops, s.equation, f"{s.madds:,}", str(s.shape), f"{s.nbytes:,}", how))
        widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]) - 1)]
        lines = [f"einsum {self.equation!r}  ({self.dtype.name})"]
        for r in rows:
            lines.append("  ".join(x.ljust(w) for x, w in zip(r, widths, strict=False)) + "  " + r[-1])
        lines.append(f"naive multiply-adds:   {self.naive_madds:,}")
        lines.append(f"planned multiply-adds: {self.planned_madds:,}  (speed-up {self.speedup:.3g}x)")
        lines.append(f"largest intermediate:  {self.largest_intermediate_bytes:,} bytes")
        lines.append(f"bytes copied:          {self.bytes_copied:,}")
        return "\n".join(lines)


def _first(mine: str, theirs: str, out: str) -> int:
    """Where the first output index found only in ``mine`` sits in ``out`` (len(out) if none)."""
    return min((out.index(c) for c in mine if c not in theirs and c in out), default=len(out))


def _path(optimize: Any, inputs: list[str], output: str, sizes: dict[str, int]) -> list[tuple[int, ...]]:
    """The contraction order: pairs (or longer tuples) of positions, the result appended each time."""
    n = len(inputs)
    if n < 2:
        return []
    if optimize is False or optimize is None:
        return [(0, 1)] + [(0, n - 1 - k) for k in range(1, n - 1)]  # left to right, as PyTorch
    if optimize is True:
        optimize = "greedy"  # as numpy.einsum(optimize=True)
    if isinstance(optimize, (list, tuple)):
        path = list(optimize)
        if path and path[0] == "einsum_path":
            path = path[1:]
        return [tuple(int(i) for i in p) for p in path]
    if optimize not in ("greedy", "optimal", "auto", "dp", "branch-2", "branch-all", "auto-hq"):
        raise StridedValueError(
            f"einsum(): optimize must be False, True, 'greedy', 'optimal', 'auto' or an explicit path "
            f"such as [(0, 1), (0, 1)], but got {optimize!r}")
    import opt_einsum  # lazily: `import strided` stays light

    eq = ",".join(inputs) + "->" + output
    shapes = [tuple(sizes[c] for c in t) for t in inputs]
    path, _ = opt_einsum.contract_path(eq, *shapes, shapes=True, optimize=optimize)
    return [tuple(p) for p in path]


def _summed(d: DType) -> DType:
    """The dtype of a sum: bool and integers add up in int64, as in PyTorch."""
    return int64 if d.kind in "biu" else d


def _build(parsed: _Parsed, layouts: list[Layout], dtype: DType, optimize: Any, equation: str) -> EinsumPlan:
    sizes = parsed.sizes
    out = parsed.output
    steps: list[Step] = []
    current: list[tuple[int, str, Layout, DType]] = []  # (id, labels, layout, dtype) of the live operands
    next_id = len(layouts)

    def add(kind: str, ops: tuple[int, ...], eq: str, madds: int, lay: Layout, d: DType, routes=(),
            recipe=()) -> int:
        nonlocal next_id
        rid = next_id
        next_id += 1
        steps.append(Step(kind, ops, rid, eq, madds, lay.shape, math.prod(lay.shape) * d.itemsize,
                          tuple(routes), recipe))
        return rid

    def elsewhere(k: int, labels: list[str]) -> set[str]:
        return set(out).union(*(set(x) for j, x in enumerate(labels) if j != k))

    # 1. single-operand preparation: diagonals, broadcast size-1 dims, indices summed away
    labels_all = list(parsed.inputs)
    for k, (labels, lay) in enumerate(zip(parsed.inputs, layouts, strict=True)):
        oid = k
        while len(set(labels)) != len(labels):
            c = next(c for c in labels if labels.count(c) > 1)
            d1 = labels.index(c)
            d2 = labels.index(c, d1 + 1)
            lay = P.diagonal(lay, 0, d1, d2).layout
            new = labels[:d1] + labels[d1 + 1 : d2] + labels[d2 + 1 :] + c
            oid = add("diagonal", (oid,), f"{labels}->{new}", 0, lay, dtype, recipe=(d1, d2))
            labels = new
        drop = [d for d, c in enumerate(labels) if lay.shape[d] == 1 and sizes[c] != 1]
        if drop:
            lay = P.squeeze(lay, drop).layout
            new = "".join(c for d, c in enumerate(labels) if d not in drop)
            oid = add("squeeze", (oid,), f"{labels}->{new}", 0, lay, dtype, recipe=tuple(drop))
            labels = new
        labels_all[k] = labels
        current.append((oid, labels, lay, dtype))
    for k, (oid, labels, lay, d) in enumerate(current):
        gone = [d for d, c in enumerate(labels) if c not in elsewhere(k, labels_all)]
        if gone:
            read = lay
            new = "".join(c for d, c in enumerate(labels) if d not in gone)
            madds = math.prod(lay.shape)
            lay = L.Layout(tuple(sizes[c] for c in new), L.contiguous_strides(tuple(sizes[c] for c in new)), 0)
            d = _summed(d)
            # the recipe: the dims summed away, the sum's dtype, the dtype it accumulates in, the
            # layout it reads and the result's
            oid = add("sum", (oid,), f"{labels}->{new}", madds, lay, d,
                      recipe=(tuple(gone), d, _accumulator(d), read, lay))
            current[k] = (oid, new, lay, d)
            labels_all[k] = new

    # 2. pairwise contractions in the path's order
    path = _path(optimize, [c[1] for c in current], out, sizes)
    pairs: list[tuple[int, int]] = []
    live = len(current)
    for p in path:
        if len(p) < 1 or any(not 0 <= i < live for i in p) or len(set(p)) != len(p):
            raise StridedValueError(f"einsum(): invalid contraction {p!r} in the path: positions must be "
                                    f"distinct and in [0, {live}) at that point")
        rest = sorted(p)
        # a longer tuple runs as pairs: contract the first two, then the result with the next
        while len(rest) > 1:
            i, j = rest[0], rest[1]
            pairs.append((i, j))
            live -= 1
            rest = [x - (x > i) - (x > j) for x in rest[2:]] + [live - 1]
            rest = sorted(rest)
    def keep_of(i: int, j: int) -> set[str]:
        """The indices that outlive a contraction of operands i and j: the output's and the rest's."""
        return set(out).union(*(set(c[1]) for k, c in enumerate(current) if k not in (i, j)))

    if live != 1:
        raise StridedValueError(f"einsum(): the contraction path {tuple(path)!r} leaves {live} operands "
                                "uncontracted; it must end with one (each step's result is appended last)")
    for i, j in pairs:
        if _first(current[j][1], current[i][1], out) < _first(current[i][1], current[j][1], out):
            i, j = j, i  # the operand whose own indices come first in the output goes left: no permute after
        (ia, la, A, da), (ib, lb, B, db) = current[i], current[j]
        d = da if da is db else result_type(da, db)
        pair = plan_pair(la, A, lb, B, keep=keep_of(i, j), sizes=sizes, itemsize=d.itemsize,
                         convert=(da is not d, db is not d))
        routes, recipe = [], []
        for oid, o in ((ia, pair.operands[0]), (ib, pair.operands[1])):
            if o.converted is not None:
                # Note: only a sum of bool/integers (int64, as PyTorch's) mixes dtypes here; the
                # other operand is converted first (a copy), as PyTorch's einsum promotes it.
                why = o.route.why if isinstance(o.route, P.Copy) else CopyRequested(f"to({d.name})")
                routes.append(Route(oid, "copy", o.nbytes, why))
            elif isinstance(o.route, P.View):
                routes.append(Route(oid, "view"))
            else:
                routes.append(Route(oid, "copy", o.nbytes, o.route.why))
            recipe.append((o.perm, o.shape3, d if o.converted is not None else None))
        # Note: as PyTorch's einsum, a step that contracts nothing (an outer or elementwise
        # product) multiplies elementwise, (batch, m, 1) * (batch, 1, n): it promotes dtypes and
        # works on bool, where the matrix product refuses both.
        use_mul, new, lay = pair.elementwise, pair.labels, pair.layout
        shape = lay.shape
        madds = math.prod(sizes[c] for c in set(la) | set(lb))
        rid = add("contract", (ia, ib), f"{la},{lb}->{new}", madds, lay, d, routes,
                  (*recipe, shape, use_mul, _direct_product(pair, A, B, d)))
        current = [c for k, c in enumerate(current) if k not in (i, j)] + [(rid, new, lay, d)]

    # 3. the output's index order: a permutation (a view)
    (oid, labels, lay, d), = current
    if labels != out:
        perm = tuple(labels.index(c) for c in out)
        lay = P.permute(lay, perm).layout
        add("permute", (oid,), f"{labels}->{out}", 0, lay, d, recipe=perm)

    all_sizes = math.prod(parsed.sizes.values()) if parsed.sizes else 1
    naive = (len(layouts) - 1) * all_sizes
    planned = sum(s.madds for s in steps)
    made = [s.nbytes for s in steps if s.kind in ("sum", "contract")]
    copied = sum(r.nbytes for s in steps for r in s.routes)
    return EinsumPlan(equation, tuple(tuple(p) for p in pairs), tuple(steps), naive, planned,
                      max(made, default=0), copied, d, _one_reduction(steps))


def _direct_product(pair: Any, a: Layout, b: Layout, d: DType) -> tuple | None:
    """For a contraction of operands laid out as ``a`` and ``b`` that both reach the product as
    views, of float32 or float64 (the matrix product's fast dtypes): (``a``, ``b``, the 3-d layouts
    the product reads over each operand's storage, the product's shape, the step's result layout),
    so :func:`run` can multiply the storages read through those layouts directly when nobody
    listens -- the same NumPy product of the same views that permute, reshape and matmul make,
    without building them (~15 µs less per call). Without a batch index the product is 2-d
    (BLAS's gemm, no batch loop). Else None."""
    if pair.elementwise or d not in (float32, float64):
        return None
    if any(o.converted is not None or not isinstance(o.route, P.View) for o in pair.operands):
        return None
    ra, rb = (o.read for o in pair.operands)
    if ra.shape[0] == 1:
        ra = Layout(ra.shape[1:], ra.strides[1:], ra.offset)
        rb = Layout(rb.shape[1:], rb.strides[1:], rb.offset)
    return a, b, ra, rb, ra.shape[:-1] + rb.shape[-1:], pair.layout


def _one_reduction(steps: list[Step]) -> tuple | None:
    """For a one-operand plan of views ending in one sum (``bii->b``, ``ij->i``): the sum's recipe
    (dims, dtype, accumulating dtype, read layout, result layout), so ``einsum`` can run it as one
    reduction of the operand's storage when nobody listens; else None."""
    if not steps or steps[-1].kind != "sum" or any(s.kind not in ("diagonal", "squeeze") for s in steps[:-1]):
        return None
    return steps[-1].recipe


def _sum_step(x: np.ndarray, dims: tuple[int, ...], dtype: DType, acc: np.dtype, result: Layout) -> Tensor:
    """A sum step's result: ``x`` summed over ``dims`` into a new tensor laid out as ``result``.
    Accumulating in the result's dtype, NumPy allocates and strided adopts its array (cheaper than
    allocating first once a big reduction has left the caches cold); float16 accumulates in float32
    and is rounded once into the result."""
    if acc != dtype.numpy:
        r, r_np = result_array(result.shape, dtype)
        reduce_into(np.add, x, dims, acc, r_np, False)
        return r
    try:
        res = quiet_call(_add_reduce, x, dims, acc, None, False)
    except RuntimeError as e:
        res = quiet_retry(e, _add_reduce, x, dims, acc, None, False)
    return adopted(res.reshape(-1) if res.__class__ is np.ndarray else np.array([res]), result, dtype)


def _dtype_of(operands: Sequence[Tensor]) -> DType:
    d = operands[0]._dtype
    if len(operands) > 1:
        for t in operands[1:]:
            if t._dtype is not d:
                # Note: as PyTorch, einsum does not promote: the operands of a product share a dtype.
                raise StridedRuntimeError(join_lines(
                    f"expected scalar type {TORCH_NAME[d.name]} but found {TORCH_NAME[t._dtype.name]}",
                    "einsum multiplies operands of one dtype: "
                    + ", ".join(f"operand {k} is {x._dtype.name}" for k, x in enumerate(operands)),
                    f"fix: convert first, e.g. x.to(strided.{d.name})"))
        _check_support("einsum", d, tuple(operands))  # uint16/32/64: PyTorch's bmm has no kernel
    return d


def _operands(args: Sequence[Any], shapes_ok: bool) -> list[Any]:
    if len(args) == 1 and isinstance(args[0], (list, tuple)) and args[0] and all(
            isinstance(x, Tensor) for x in args[0]):
        args = tuple(args[0])  # einsum(eq, [a, b]), as PyTorch accepts
    out = []
    for k, x in enumerate(args):
        if isinstance(x, Tensor):
            out.append(x)
        elif shapes_ok and isinstance(x, (tuple, list)) and all(isinstance(n, int) for n in x):
            if any(n < 0 for n in x):
                raise StridedValueError(f"einsum_plan(): operand {k}'s shape {tuple(x)} has a negative size")
            out.append(tuple(x))
        else:
            accepted = "a strided.Tensor or a shape tuple" if shapes_ok else "a strided.Tensor"
            raise StridedTypeError(f"einsum(): operand {k} must be {accepted}, but got {type(x).__name__}")
    return out


def einsum_plan(equation: str | Tensor, *operands_or_shapes: Any, optimize: Any = "auto") -> EinsumPlan:
    """The plan ``einsum(equation, *operands)`` runs: steps, multiply-adds, copies; nothing computed.

    Operands are tensors (their layouts decide view or copy) or shape tuples (contiguous float32).

    Example::

        >>> plan = einsum_plan("bij,bjk->bik", (32, 128, 64), (32, 64, 128))
        >>> plan.planned_madds, plan.bytes_copied
        (33554432, 0)
    """
    if isinstance(equation, Tensor):
        equation, operands_or_shapes = _from_sublists((equation, *operands_or_shapes))
    ops = _operands(operands_or_shapes, True)
    shapes = [x.shape if isinstance(x, Tensor) else x for x in ops]
    parsed = _parse(equation, shapes)
    tensors = [x for x in ops if isinstance(x, Tensor)]
    dtype = _dtype_of(tensors) if tensors else float32
    layouts = [x._layout if isinstance(x, Tensor) else Layout(x, L.contiguous_strides(x), 0) for x in ops]
    return _build(parsed, layouts, dtype, optimize, equation)


def einsum(equation: str | Tensor, *operands: Any, optimize: Any = "auto") -> Tensor:
    """Einstein summation over ``operands``, in PyTorch's equation language.

    Each pairwise step is one batched matrix product on views (a copy only where the layout
    forbids the view, through ``Tensor.reshape``); single-operand steps are views and sums.

    # Note: the result is the matrix product's contiguous result viewed into the output's index
    # order, so it may be a permutation of a contiguous tensor (as PyTorch's often is); a
    # single-operand einsum with nothing to sum (``ii->i``, ``ij->ji``) is a view of its operand.

    PyTorch's sublist form is accepted too: ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` is
    ``einsum("ab,bc->ac", a, b)`` (ints 0..51 name indices, ``...`` is an ellipsis).

    Example::

        >>> x = strided.arange(9.0).reshape(3, 3)
        >>> einsum("ii->i", x).tolist()     # the diagonal, a view
        [0.0, 4.0, 8.0]
        >>> einsum(x, [0, 1], x, [1, 2], [0, 2]).shape
        (3, 3)
    """
    if isinstance(equation, Tensor):
        # PyTorch's sublist form: einsum(a, [0, 1], b, [1, 2], [0, 2])
        equation, operands = _from_sublists((equation, *operands))
    ops = _operands(operands, False)
    if not ops:
        # PyTorch's class and first line for this one (its other equation errors are RuntimeErrors)
        raise StridedValueError(join_lines(
            "einsum(): must specify the equation string and at least one operand, or at least one "
            "operand and its subscripts list", "e.g. einsum('ij->ji', x)"))
    try:
        key = (equation, _hashable(optimize), tuple(t._layout for t in ops), tuple(t._dtype for t in ops))
        plan = _plans.get(key)
    except TypeError:  # an unhashable equation or path: no memo, the checks below say what is wrong
        key, plan = None, None
    if plan is None:
        parsed = _parse(equation, [t.shape for t in ops])
        dtype = _dtype_of(ops)
        plan = _build(parsed, [t._layout for t in ops], dtype, optimize, equation)
        if key is not None:
            _plans.put(key, plan)
    if plan.reduction is not None and not OPEN:
        # a trace or a sum (``bii->b``): one reduction of the operand's storage read through the
        # plan's view (its layout is the plan's; the plan is remembered per layout), no
        # intermediate tensors; with a listener open, run() reports each view and the sum
        dims, dtype, acc, read, result = plan.reduction
        return _sum_step(numpy_view(ops[0]._storage, read), dims, dtype, acc, result)
    return run(plan, ops)


def _hashable(optimize: Any) -> Any:
    """``optimize`` as a memo key: paths (lists of tuples) become tuples."""
    if isinstance(optimize, list):
        return tuple(tuple(p) if isinstance(p, list) else p for p in optimize)
    return optimize


# Programs repeat their einsums: the plan (path search included: opt_einsum's "auto" may take
# milliseconds) is remembered per equation, optimize, layouts and dtypes.
_plans = Memo(limit=1024)


def run(plan: EinsumPlan, operands: Sequence[Tensor]) -> Tensor:
    """Carry out ``plan`` on ``operands`` (those it was made for)."""
    live: dict[int, Tensor] = dict(enumerate(operands))
    last = len(operands) - 1
    for s in plan.steps:
        x = live.pop(s.operands[0])
        if s.kind == "diagonal":
            d1, d2 = s.recipe
            r = x.diagonal(0, d1, d2)
        elif s.kind == "squeeze":
            r = x.squeeze(s.recipe)
        elif s.kind == "sum":
            # x.sum(dims) with its argument checks and dtype rules done once, at planning time
            # (the plan is remembered per layout and dtype): the sum kernel straight into the result
            dims, dtype, acc, _, result = s.recipe
            r = _sum_step(x._np(), dims, dtype, acc, result)
        elif s.kind == "permute":
            r = x.permute(s.recipe)
        else:
            y = live.pop(s.operands[1])
            (pa, sa, ca), (pb, sb, cb), shape, use_mul, direct = s.recipe
            if direct is not None and not OPEN:
                # both operands reach the product as views (the plan's, remembered per layout):
                # NumPy's product of the storages read through them, adopted as the step's result
                a, b, ra, rb, product_shape, lay = direct
                # (the operands are laid out as planned: inputs by the memo's key, intermediates
                # by each step's result layout -- checked, as the reads below trust it)
                if x._layout == a and y._layout == b:
                    flat = matmul_new(numpy_view(x._storage, ra), numpy_view(y._storage, rb), product_shape)
                else:
                    flat = None
                if flat is not None:  # (None: an empty product, which the general path handles)
                    live[s.result] = adopted(flat, lay, x._dtype)
                    last = s.result
                    continue
            if sa[0] == 1 and not use_mul and x._dtype.kind in "fc":
                # no batch: a plain matrix product (BLAS's gemm, no batch loop); bool and integers
                # keep the batched product, whose errors name PyTorch's bmm as its einsum does
                sa, sb = sa[1:], sb[1:]
            a3 = (x if ca is None else x.to(ca)).permute(pa).reshape(sa)
            b3 = (y if cb is None else y.to(cb)).permute(pb).reshape(sb)
            r = (mul(a3, b3) if use_mul else matmul(a3, b3)).view(shape)
        live[s.result] = r
        last = s.result
    if not plan.steps:  # nothing to do ('ij->ij'): a new view of the operand, as PyTorch returns
        x = live[last]
        return x.view(x.shape)
    return live[last]


# ---------------------------------------------------------------- backward rule


def _grad_of_operand(g: Tensor, parsed: _Parsed, ops: Sequence[Tensor], k: int) -> Tensor:
    """The gradient of operand ``k``: an einsum of the output's gradient with the other operands,
    onto operand k's distinct labels; labels only operand k has (summed in the forward) come back
    as stride-0 expands, size-1 dims that broadcast are summed back, and a repeated label
    (``ii->i``) is a diagonal of a zero tensor the gradient is written into."""
    labels = parsed.inputs[k]
    shape = ops[k]._layout.shape
    distinct = "".join(dict.fromkeys(labels))
    mine = {c: shape[labels.index(c)] for c in distinct}
    others = [j for j in range(len(ops)) if j != k]
    available = set(parsed.output).union(*(parsed.inputs[j] for j in others))
    target = "".join(c for c in distinct if c in available)
    equation = ",".join([parsed.output, *(parsed.inputs[j] for j in others)]) + "->" + target
    r = einsum(equation, g, *(ops[j] for j in others))
    # the labels operand k alone had: size-1 dims put back (a view)
    for i, c in enumerate(distinct):
        if c not in available:
            r = r.unsqueeze(i)
    # sizes as operand k's: sum where it broadcast (size 1), expand where the gradient is (size 1)
    summed = tuple(i for i, c in enumerate(distinct) if mine[c] == 1 and r._layout.shape[i] != 1)
    if summed:
        r = r.sum(summed, keepdim=True)
    r = r.expand(tuple(mine[c] for c in distinct))
    if len(distinct) == len(labels):
        return r
    # a diagonal: the gradient written into the diagonal view of zeros in operand k's shape
    # (scatter_into_view: recorded under create_graph, its gradient that diagonal's view)
    strides = L.contiguous_strides(shape)
    dshape = tuple(mine[c] for c in distinct)
    dstrides = tuple(sum(s for s, lab in zip(strides, labels) if lab == c) for c in distinct)
    def diagonal(z: Tensor) -> Tensor:  # (of a contiguous copy: as_strided reads the storage)
        c = z.contiguous()
        return c.as_strided(dshape, dstrides, c.storage_offset())

    return scatter_into_view(shape, r, diagonal, "EinsumDiagonalBackward")


@backward("einsum", operands="any")
def einsum_backward(out: Tensor, equation: Any, *operands: Any, optimize: Any = "auto") -> Any:
    """The gradient of each operand is an einsum of the gradient with the other operands (see
    :func:`_grad_of_operand`): the plan of that einsum accounts its own views and copies.

    # Note: PyTorch's einsum is composite, so its node is its last step's: SumBackward1 or
    # PermuteBackward0 for one operand, ViewBackward0 after a contraction, MulBackward0 when
    # nothing is summed; strided records one node under the name PyTorch's last step has.
    """
    if isinstance(equation, Tensor):
        equation, operands = _from_sublists((equation, *operands))
    ops = _operands(operands, False)
    parsed = _parse(equation, [t._layout.shape for t in ops])
    summed = set("".join(parsed.inputs)) - set(parsed.output)
    if len(ops) == 1:
        name = "SumBackward1" if summed else "PermuteBackward0"
    else:
        name = "ViewBackward0" if summed else "MulBackward0"
    wanted = [gradtools.needs_grad(t) for t in ops]

    def grads(g: Tensor) -> tuple:
        return tuple(_grad_of_operand(g, parsed, ops, k) if want else None for k, want in enumerate(wanted))

    return name, tuple(ops), grads, tuple(ops)


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "einsum")
