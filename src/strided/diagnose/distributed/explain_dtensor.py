"""``strided.explain`` on a DTensor: what an op does across ranks, predicted without a collective.

The op runs on the DTensor's meta shadow (:mod:`.trace`): PyTorch's own dispatcher chooses the
result's placements and any redistribution, and the collectives run their meta kernels only.
The report gives the result's placements and global shape; per rank its local shape, global
offset and (where it is known, see :class:`RankLayout`) local strides and storage offset; each
redistribution with its collectives and bytes per rank; the reason in the layout's numbers; and
the cheap ways out (another placement for the input, made once), each costed by the same engine.

Example (2 ranks, ``x`` an (8, 6) DTensor sharded on dim 1)::

    r = strided.explain(x, "view", 48)
    r.placements     # (_StridedShard(dim=0, sf=8),): no collective, but not one block per rank
    r = strided.explain(x, "view", 6, 8)
    r.collectives    # (Collective(kind='all_gather', mesh_dim=0, ...),)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .reasons import step_reason
from .torch_api import dtensor_module, local_shape_and_offset, require_torch
from .trace import Collective, Step, Trace, meta_shadow, trace
from .words import describe_placement, spell_placements

__all__ = ["DTensorExplanation", "DistributedFix", "RankLayout", "explain_dtensor"]


@dataclass(frozen=True)
class RankLayout:
    """One rank's part of a DTensor: its mesh coordinate, local shape (unpadded) and where its
    block starts in the global tensor (PyTorch's ``compute_local_shape_and_global_offset``;
    for a ``_StridedShard`` the offset of its first element), and its local strides and storage
    offset. Strides and storage offset are the ones PyTorch's kernels give on the calling rank;
    for another rank they are the same when every rank's inputs and result have the same local
    shapes (the same kernels on the same shapes), else None (only that rank can know them)."""

    rank: int
    coordinate: tuple[int, ...]
    shape: tuple[int, ...]
    global_offset: tuple[int, ...]
    strides: tuple[int, ...] | None
    storage_offset: int | None


@dataclass(frozen=True)
class DistributedFix:
    """A cheap way out: ``call`` (real code), the collectives it runs in all (``collectives``),
    their bytes per rank, and what it gives (``note``)."""

    call: str
    collectives: tuple[Collective, ...]
    placements: tuple
    note: str = ""

    @property
    def bytes_per_rank(self) -> int:
        return sum(c.bytes_out for c in self.collectives)

    def __str__(self) -> str:
        kinds = ", ".join(f"{c.kind} on mesh dim {c.mesh_dim}" for c in self.collectives) or "no collective"
        return f"{self.call}  ({kinds}; {self.bytes_per_rank:,} bytes per rank{'; ' + self.note if self.note else ''})"


@dataclass(frozen=True)
class DTensorExplanation:
    """What ``op`` does to a DTensor, predicted by PyTorch's own sharding propagation.

    ``outcome``: "local" (every rank computes on what it holds, no collective), "redistribute"
    (collectives run first; see ``collectives``) or "error" (``error`` is ``"Class: first line"``).
    ``placements``, ``shape``, ``strides``: the result's placements and global shape and strides
    (None for an error). ``ranks``: a :class:`RankLayout` per rank of the mesh, in rank order.
    ``steps``: each aten op DTensor dispatched, with the placements it wanted
    (:class:`~.trace.Step`); ``collectives``: every collective, in order, with bytes per rank;
    ``bytes_per_rank``: the sum of their output buffers on one rank. ``reason``: why, in the
    layout's numbers; ``placement_words``: each result placement in words (``_StridedShard``
    included); ``fixes``: cheaper placements for the input, each costed (searched when first read).
    """

    op: str
    call: str
    outcome: str
    mesh_shape: tuple[int, ...]
    rank: int
    input_placements: tuple
    input_shape: tuple[int, ...]
    placements: tuple | None
    shape: tuple[int, ...] | None
    strides: tuple[int, ...] | None
    dtype: str
    ranks: tuple[RankLayout, ...]
    steps: tuple[Step, ...]
    collectives: tuple[Collective, ...]
    error: str | None = None
    reason: str = ""
    placement_words: tuple[str, ...] = ()
    find_fixes: Callable[[], tuple[DistributedFix, ...]] = field(default=tuple, repr=False, compare=False)

    @cached_property
    def fixes(self) -> tuple[DistributedFix, ...]:
        """The cheap ways out (:class:`DistributedFix`), searched on first use: each candidate
        placement is costed by its own meta runs, so a report nobody reads costs none of them."""
        return self.find_fixes()

    @property
    def library(self) -> str:
        return "torch.distributed"

    @property
    def redistributes(self) -> bool:
        return bool(self.collectives)

    @property
    def bytes_per_rank(self) -> int:
        return sum(c.bytes_out for c in self.collectives)

    @property
    def error_class(self) -> str | None:
        return self.error.split(":", 1)[0] if self.error else None

    def __str__(self) -> str:
        lines = [f"{self.call} on a DTensor {spell_placements(self.input_placements)} of global shape "
                 f"{self.input_shape}, mesh {self.mesh_shape}, seen from rank {self.rank}"]
        if self.error:
            lines.append(f"  error: {self.error}")
            return "\n".join(lines)
        verdict = ("local: no collective" if self.outcome == "local" else
                   f"redistributes: {len(self.collectives)} collective(s), {self.bytes_per_rank:,} bytes per rank")
        lines.append(f"  {verdict}")
        lines.append(f"  result: global shape {self.shape}, strides {self.strides}, {self.dtype}, "
                     f"placements {spell_placements(self.placements or ())}")
        lines.extend(f"    {w}" for w in self.placement_words)
        for r in self.ranks:
            known = (f"strides {r.strides}, storage offset {r.storage_offset}" if r.strides is not None
                     else "strides known on that rank only (uneven shards)")
            lines.append(f"  rank {r.rank} {r.coordinate}: local shape {r.shape} at global offset "
                         f"{r.global_offset}, {known}")
        if self.reason:
            lines.append("  why:")
            lines.extend(f"    {line}" for line in self.reason.splitlines())
        if self.fixes:
            lines.append("  ways out:")
            lines.extend(f"    {f}" for f in self.fixes)
        return "\n".join(lines)


# ---------------------------------------------------------------- the prediction


def _to_meta(value: Any) -> Any:
    torch = require_torch()
    DTensor = dtensor_module().DTensor
    if isinstance(value, DTensor):
        return meta_shadow(value)
    if isinstance(value, torch.Tensor):
        return value.to("meta")
    if value.__class__ in (list, tuple):
        return value.__class__(_to_meta(v) for v in value)
    return value


def _spell(value: Any) -> str:
    DTensor = dtensor_module().DTensor
    if isinstance(value, DTensor):
        return "other"
    if type(value).__name__ == "DeviceMesh":
        return "mesh"
    if value.__class__ in (list, tuple):
        inner = ", ".join(_spell(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    return repr(value)


def spell_call(op: str, args: tuple, kwargs: dict) -> str:
    """``x.op(a, k=v)`` as the user writes it (``x[...]`` for ``__getitem__``)."""
    if op == "__getitem__" and len(args) == 1 and not kwargs:
        key = args[0] if isinstance(args[0], tuple) else (args[0],)
        return f"x[{', '.join(_index(k) for k in key)}]"
    parts = [_spell(a) for a in args] + [f"{k}={_spell(v)}" for k, v in kwargs.items()]
    return f"x.{op}({', '.join(parts)})"


def _index(k: Any) -> str:
    if isinstance(k, slice):
        s = f"{'' if k.start is None else k.start}:{'' if k.stop is None else k.stop}"
        return s + (f":{k.step}" if k.step is not None else "")
    return "..." if k is Ellipsis else "None" if k is None else repr(k)


def _run(dt: Any, op: str, args: tuple, kwargs: dict) -> Trace:
    shadow = meta_shadow(dt)
    margs, mkwargs = _to_meta(args), {k: _to_meta(v) for k, v in kwargs.items()}
    return trace(lambda: getattr(shadow, op)(*margs, **mkwargs), dt.device_mesh)


def _coordinates(mesh: Any) -> list[tuple[int, tuple[int, ...]]]:
    ranks = mesh.mesh
    return sorted((int(ranks[c]), c) for c in itertools.product(*(range(s) for s in ranks.shape)))


def _local_shapes(shape: tuple[int, ...], mesh: Any, placements: tuple) -> list[tuple[int, ...]]:
    return [local_shape_and_offset(shape, tuple(mesh.shape), list(c), placements)[0] for _, c in _coordinates(mesh)]


def _ranks(result: Any, inputs: list[Any], mesh: Any) -> tuple[RankLayout, ...]:
    shape, placements = tuple(result.shape), tuple(result.placements)
    local = result.to_local()  # what the user gets: to_local() re-views (size-1 dims' strides may change)
    mine = mesh.get_coordinate()
    symmetric = all(len(set(_local_shapes(tuple(t.shape), mesh, tuple(t.placements)))) == 1
                    for t in [*inputs, result])
    out = []
    for rank, c in _coordinates(mesh):
        lshape, goff = local_shape_and_offset(shape, tuple(mesh.shape), list(c), placements)
        me = mine is not None and tuple(mine) == c
        if me:
            # Note: PyTorch's own local tensor wins where its spec disagrees (an in-place squeeze_ inside
            # matmul's 1-d decomposition leaves the global shape (1, n) over a local (n,) in 2.13)
            lshape = tuple(local.shape)
        known = (symmetric and tuple(local.shape) == lshape) or me
        out.append(RankLayout(rank, c, lshape, goff, tuple(local.stride()) if known else None,
                              local.storage_offset() if known else None))
    return tuple(out)


def _placement_candidates(dt: Any) -> list[tuple]:
    tm = dtensor_module()
    options = [tm.Replicate(), *(tm.Shard(d) for d in range(dt.ndim))]
    current = tuple(dt.placements)
    cands = [tuple(p) for p in itertools.product(options, repeat=dt.device_mesh.ndim)]
    return [c for c in cands if c != current]


def _fixes(dt: Any, op: str, args: tuple, kwargs: dict, now: tuple[Collective, ...]) -> tuple[DistributedFix, ...]:
    """Other placements for ``x``, made once (``x.redistribute(mesh, P)``), after which the op runs
    with no collective: each costed by the same meta run; only the ones cheaper than now, or as
    cheap and reusable (the op itself is then local), cheapest first, at most three."""
    if not now:
        return ()
    cost_now = sum(c.bytes_out for c in now)
    found = []
    for cand in _placement_candidates(dt):
        shadow = meta_shadow(dt)
        pre = trace(lambda s=shadow, p=cand: s.redistribute(s.device_mesh, p), dt.device_mesh)
        if pre.error is not None:
            continue
        margs, mkwargs = _to_meta(args), {k: _to_meta(v) for k, v in kwargs.items()}
        after = trace(lambda r=pre.result, a=margs, k=mkwargs: getattr(r, op)(*a, **k), dt.device_mesh)
        if after.error is not None or after.collectives:
            continue
        colls = tuple(pre.collectives)
        cost = sum(c.bytes_out for c in colls)
        if cost > cost_now:
            continue
        res = tuple(after.result.placements) if hasattr(after.result, "placements") else ()
        note = (f"then {op} is local and gives {spell_placements(res)}; redistribute where x is made and "
                "every later use of x is local too")
        call = f"x.redistribute(mesh, {spell_placements(cand)})" + spell_call(op, args, kwargs)[1:]
        found.append((cost, len(colls), call, DistributedFix(call, colls, cand, note)))
    found.sort(key=lambda f: (f[0], f[1], f[2]))
    return tuple(f[3] for f in found[:3])


def explain_dtensor(dt: Any, op: str | None, args: tuple = (), kwargs: dict | None = None) -> DTensorExplanation:
    """Predict ``getattr(dt, op)(*args, **kwargs)`` on DTensor ``dt`` with PyTorch's own sharding
    propagation, running no collective (see the module docstring); ``op=None`` describes ``dt``."""
    require_torch()
    kwargs = kwargs or {}
    mesh = dt.device_mesh
    if op is None and (args or kwargs):
        raise TypeError("explain(x, op, *args): name the op first (a string), then its arguments")
    if op is not None and not isinstance(op, str):
        raise TypeError(f"explain(x, op, ...): op must be an op name (a string), not {type(op).__name__}")
    if op is not None and not callable(getattr(type(dt), op, None)):
        raise ValueError(f"explain: a DTensor has no method {op!r}; name a Tensor method, e.g. 'view', "
                         "'reshape', 'permute', 'transpose', '__getitem__', 'add', 'matmul', 'sum', 'redistribute'")
    if op is None:
        tr = Trace([], [], meta_shadow(dt))
        call = "x"
    else:
        tr = _run(dt, op, args, kwargs)
        call = spell_call(op, args, kwargs)
    coord = mesh.get_coordinate()
    rank = int(mesh.mesh[tuple(coord)]) if coord is not None else -1
    base: dict[str, Any] = dict(op=op or "", call=call, mesh_shape=tuple(mesh.shape), rank=rank,
                input_placements=tuple(dt.placements), input_shape=tuple(dt.shape), dtype=str(dt.dtype),
                steps=tuple(tr.steps), collectives=tuple(tr.collectives))
    if tr.error is not None:
        first = str(tr.error).strip().splitlines()[0] if str(tr.error).strip() else ""
        return DTensorExplanation(outcome="error", placements=None, shape=None, strides=None, ranks=(),
                                  error=f"{type(tr.error).__name__}: {first}", **base)
    result = tr.result
    DTensor = dtensor_module().DTensor
    if not isinstance(result, DTensor):
        raise TypeError(f"explain: {call} does not return a DTensor (got {type(result).__name__}); "
                        "explain predicts ops whose result is a DTensor")
    inputs = [dt, *(a for a in (*args, *kwargs.values()) if isinstance(a, DTensor))]
    placements = tuple(result.placements)
    words = tuple(describe_placement(p, m, int(mesh.size(m)), tuple(result.shape))
                  for m, p in enumerate(placements))
    reason = "\n".join(line for s in tr.steps for line in step_reason(s, s.out_shape))
    colls = tuple(tr.collectives)
    return DTensorExplanation(outcome="redistribute" if tr.collectives else "local", placements=placements,
                              shape=tuple(result.shape), strides=tuple(result.stride()),
                              ranks=_ranks(result, inputs, mesh), reason=reason, placement_words=words,
                              find_fixes=lambda: _fixes(dt, op, args, kwargs, colls) if op is not None else (),
                              **base)
