"""``watch_torch``'s view of DTensor programs: each collective as its own kind of step.

``watch_torch``'s dispatch mode hands every aten op with DTensor arguments back to DTensor
(``NotImplemented``, the way PyTorch's ``CommDebugMode`` does), noting it as the DTensor op now
running; DTensor then redistributes and runs the local op, and those inner ops — the functional
collectives among them — come back to the mode on plain local tensors. A collective becomes a
step of kind ``"collective"`` with ``extra``: ``collective`` (all_gather, all_reduce,
reduce_scatter, all_to_all, broadcast), ``mesh_dim``, ``group_size``, ``bytes_in`` /
``bytes_out`` (this rank's buffers), ``dtensor_op`` (the DTensor aten op dispatched last before
it: the one whose redistribution ran it when DTensor's dispatch did; a redistribution made in
Python — ``x.redistribute()``, a parallel style's hook — is not an aten op and follows it); the step's line, module path and phase (forward / backward) are the watch's usual ones.
So collectives are counted exactly where ``CommDebugMode`` counts them.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from typing import Any

from .torch_api import COLLECTIVES
from .trace import buffer_bytes as _nbytes
from .trace import mesh_groups

__all__ = ["COLLECTIVE_NAMES", "NAMESPACES", "UNMATCHED", "collective_reason", "collective_record", "dtensor_type", "gather_rows",
           "note_dtensor_op"]

# the in-place c10d ops (what ``torch.distributed.all_gather_into_tensor`` & co. run; FSDP2 uses
# them), as CommDebugMode lists them: name -> (kind, index of the output argument, of the input)
C10D: dict[str, tuple[str, int, int]] = {
    "_allgather_base_": ("all_gather", 0, 1), "allgather_": ("all_gather", 0, 1),
    "allgather_coalesced_": ("all_gather", 0, 1), "allgather_into_tensor_coalesced_": ("all_gather", 0, 1),
    "_reduce_scatter_base_": ("reduce_scatter", 0, 1), "reduce_scatter_": ("reduce_scatter", 0, 1),
    "reduce_scatter_tensor_coalesced_": ("reduce_scatter", 0, 1),
    "allreduce_": ("all_reduce", 0, 0), "allreduce_coalesced_": ("all_reduce", 0, 0),
    "alltoall_": ("all_to_all", 0, 1), "alltoall_base_": ("all_to_all", 0, 1),
    "broadcast_": ("broadcast", 0, 0), "gather_": ("gather", 0, 1), "scatter_": ("scatter", 0, 1),
    "reduce_": ("reduce", 0, 0),
}
# a collective whose group is none of the last DTensor op's mesh dims: a group outside the mesh,
# or a DTensor op this watch never saw (a mode entered inside the block, e.g. CommDebugMode or
# another watch_torch, takes DTensor's ops first) — so the words claim neither
UNMATCHED = "a process group not matched to a mesh dim"
COLLECTIVE_NAMES = frozenset(COLLECTIVES) | frozenset(C10D)
NAMESPACES = frozenset({"_c10d_functional", "c10d"})


def dtensor_type() -> type | None:
    """The DTensor class when ``torch.distributed.tensor`` is loaded (else None: no DTensor exists)."""
    mod = sys.modules.get("torch.distributed.tensor")
    return None if mod is None else mod.DTensor


def note_dtensor_op(func: Any, args: tuple, kwargs: dict) -> tuple[str, dict[str, tuple[int, int]]]:
    """(the op's name, its mesh's group name -> (mesh dim, size)) for the DTensor op about to run."""
    dt = dtensor_type()
    mesh = next((getattr(a, "device_mesh", None) for a in (*args, *kwargs.values())
                 if dt is not None and isinstance(a, dt)), None)
    return str(func), (_groups(mesh) if mesh is not None else {})


@lru_cache(maxsize=16)
def _groups(mesh: Any) -> dict[str, tuple[int, int]]:
    return mesh_groups(mesh)  # (a mesh's groups never change: read once per mesh)


def collective_record(namespace: str, name: str, args: tuple, out: Any, current: tuple | None) -> tuple:
    """(kind, mesh dim, group size, bytes in, bytes out, DTensor op) of a collective: a functional
    one (its group name is its last argument) or an in-place c10d one (its group an argument);
    the mesh dim is known when the group is one of the last DTensor op's mesh's, else None."""
    groups = current[1] if current else {}
    op = current[0] if current else ""
    if namespace == "c10d":
        kind, out_at, in_at = C10D[name]
        group = next((a for a in args if hasattr(a, "group_name")), None)
        mesh_dim, size = groups.get(str(getattr(group, "group_name", "")), (None, _size(group)))
        return (kind, mesh_dim, size, _nbytes(args[in_at]), _nbytes(args[out_at]), op)
    mesh_dim, size = groups.get(str(args[-1]), (None, 0))
    return (COLLECTIVES[name], mesh_dim, size, _nbytes(args[0]), _nbytes(out), op)


def _size(group: Any) -> int:
    try:
        return int(group.size())
    except Exception:  # noqa: BLE001 - not a ProcessGroup we can ask
        return 0


def collective_reason(rec: tuple) -> str:
    kind, mesh_dim, size, bytes_in, bytes_out, op = rec
    where = f"mesh dim {mesh_dim} ({size} ranks)" if mesh_dim is not None else UNMATCHED
    # (the DTensor op dispatched last: a redistribution inside DTensor's dispatch belongs to it, but
    # one made by Python code — a parallel style's output hook, x.redistribute() — follows it)
    cause = f"; last DTensor op dispatched before it: {op}" if op else ""
    return f"{kind} on {where}: {bytes_in:,} bytes in, {bytes_out:,} bytes out per rank{cause}"


def collective_rows(watch: Any) -> list[dict[str, Any]]:
    """The collective steps of a ``watch_torch`` as plain rows (for merging ranks' reports)."""
    keys = ("collective", "mesh_dim", "group_size", "bytes_in", "bytes_out", "dtensor_op", "phase")
    return [{"where": s.where, "module": s.module, **{k: s.extra.get(k) for k in keys}}
            for s in watch.steps if s.kind == "collective"]


def merged_summary(per_rank: dict[int, list[dict[str, Any]]]) -> str:
    """Collectives merged over ranks: one row per (line, module, phase, collective, mesh dim) with
    its count and bytes per rank, ranked by bytes; the ranks' counts side by side (they differ
    only when the ranks ran different code)."""
    rows: dict[tuple, dict[int, list[int]]] = {}
    for rank, steps in per_rank.items():
        for s in steps:
            key = (s["where"], s["module"], s["phase"], s["collective"], s["mesh_dim"], s["dtensor_op"] or "")
            counts = rows.setdefault(key, {}).setdefault(rank, [0, 0, 0])
            counts[0] += 1
            counts[1] += s["bytes_in"]
            counts[2] += s["bytes_out"]
    ranks = sorted(per_rank)
    lines = [f"collectives, merged over ranks {', '.join(map(str, ranks))} (bytes: per rank, out = received buffer)"]
    if not rows:
        lines.append("  none")
        return "\n".join(lines)
    order = sorted(rows.items(), key=lambda kv: -max(c[2] for c in kv[1].values()))
    for (where, module, phase, kind, mesh_dim, op), by_rank in order:
        tally = "/".join(str(by_rank.get(r, [0])[0]) for r in ranks)
        out = max(c[2] for c in by_rank.values())
        mod = f" [{module}]" if module else ""
        dim = f"mesh dim {mesh_dim}" if mesh_dim is not None else UNMATCHED
        after = f"; after DTensor's {op} (strided.explain on that call names the way out)" if op else ""
        lines.append(f"  {where}{mod} {phase}: {kind} on {dim}, x{tally} (per rank), {out:,} bytes out per rank{after}")
    return "\n".join(lines)


def gather_rows(watch: Any, raised: bool) -> dict[int, list[dict[str, Any]]] | None:
    """Every rank's collective rows (:func:`collective_rows`), gathered to rank 0 of the default
    process group when a ``watch_torch`` block exits; None on the other ranks, and where there is
    nothing to gather (torch.distributed not loaded or not initialized, a world of one rank, or
    PyTorch's ``"fake"`` backend, whose other ranks are not running).

    The gather (``torch.distributed.gather_object`` on the default group) is itself a collective:
    every rank of the default group must exit its block, the same number of times — a rank that
    never exits (it hangs, or leaves the block open) makes the others wait in the gather until the
    process group's timeout. A block that raised still gathers (so its peers are not left waiting);
    if the gather then fails too (a peer died), the block's own exception is the one raised and no
    merge is kept.

    >>> with strided.watch_torch() as w:  # (a program with no process group: nothing to gather)
    ...     y = torch.ones(2) + 1
    >>> gather_rows(w, raised=False) is None
    True
    """
    dist = sys.modules.get("torch.distributed")
    if dist is None or not dist.is_available() or not dist.is_initialized() or dist.get_world_size() < 2 \
            or dist.get_backend() == "fake":
        return None
    from torch._C import DisableTorchFunction
    from torch.utils._python_dispatch import _disable_current_modes

    rank, world = dist.get_rank(), dist.get_world_size()
    gathered: list[Any] | None = [None] * world if rank == 0 else None
    try:
        # (the gather is the watch's own: a block around this one, or any other torch mode on,
        # must not see its ops and collectives)
        with _disable_current_modes(), DisableTorchFunction():
            dist.gather_object(collective_rows(watch), gathered, dst=0)
    except Exception:
        if raised:
            return None  # (the block's exception says what went wrong; this one would hide it)
        raise
    return None if gathered is None else dict(enumerate(gathered))
