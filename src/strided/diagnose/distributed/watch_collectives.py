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
from .trace import mesh_groups

__all__ = ["COLLECTIVE_NAMES", "collective_reason", "collective_record", "dtensor_type", "note_dtensor_op"]

COLLECTIVE_NAMES = frozenset(COLLECTIVES)


def dtensor_type() -> type | None:
    """The DTensor class when ``torch.distributed.tensor`` is loaded (else None: no DTensor exists)."""
    mod = sys.modules.get("torch.distributed.tensor")
    return None if mod is None else mod.DTensor


def note_dtensor_op(func: Any, args: tuple, kwargs: dict) -> tuple[str, dict[str, tuple[int, int]]]:
    """(the op's name, its mesh's group name -> (mesh dim, size)) for the DTensor op about to run."""
    dt = dtensor_type()
    mesh = next((a.device_mesh for a in (*args, *kwargs.values()) if dt is not None and isinstance(a, dt)), None)
    return str(func), (_groups(mesh) if mesh is not None else {})


@lru_cache(maxsize=16)
def _groups(mesh: Any) -> dict[str, tuple[int, int]]:
    return mesh_groups(mesh)  # (a mesh's groups never change: read once per mesh)


def collective_record(name: str, args: tuple, out: Any, current: tuple | None) -> tuple:
    """(kind, mesh dim, group size, bytes in, bytes out, DTensor op) of a functional collective."""
    groups = current[1] if current else {}
    mesh_dim, size = groups.get(str(args[-1]), (None, 0))
    return (COLLECTIVES[name], mesh_dim, size, _nbytes(args[0]), _nbytes(out), current[0] if current else "")


def _nbytes(t: Any) -> int:
    if isinstance(t, (list, tuple)):
        return sum(_nbytes(u) for u in t)
    return t.numel() * t.element_size() if hasattr(t, "numel") else 0


def collective_reason(rec: tuple) -> str:
    kind, mesh_dim, size, bytes_in, bytes_out, op = rec
    where = f"mesh dim {mesh_dim} ({size} ranks)" if mesh_dim is not None else "a group outside the mesh"
    # (the DTensor op dispatched last: a redistribution inside DTensor's dispatch belongs to it, but
    # one made by Python code — a parallel style's output hook, x.redistribute() — follows it)
    cause = f"; last DTensor op dispatched before it: {op}" if op else ""
    return f"{kind} on {where}: {bytes_in:,} bytes in, {bytes_out:,} bytes out per rank{cause}"
