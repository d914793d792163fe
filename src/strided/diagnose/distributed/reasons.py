"""Why a DTensor op redistributes, in the layout's numbers: which dims merge or split across a
shard boundary (reshapes), which placements an op's sharding rule wants (everything else), and
what each collective moves."""

from __future__ import annotations

from typing import Any

from ..dims import reshape_mapping
from .trace import Redistribution, Step
from .words import spell_placements

__all__ = ["step_reason"]

_RESHAPES = ("aten.view.", "aten._unsafe_view.", "aten.reshape.", "aten._reshape_alias.")


def _shard_dims(placements: tuple) -> list[tuple[int, int]]:
    """(mesh dim, tensor dim) of each shard-like placement."""
    return [(m, int(p.dim)) for m, p in enumerate(placements) if hasattr(p, "dim")]


def _reshape_words(r: Redistribution, out_shape: tuple[int, ...] | None) -> list[str]:
    if out_shape is None:
        return []
    mapping = reshape_mapping(r.shape, out_shape)
    lines = []
    for mesh_dim, d in _shard_dims(r.src):
        if any(hasattr(p, "dim") and int(p.dim) == d for p in r.dst):
            continue  # this shard survives the redistribution
        group = next((g for g in mapping.groups if d in g.inputs), None)
        if group is None:
            continue
        ins = " x ".join(str(r.shape[i]) for i in group.inputs)
        outs = " x ".join(str(out_shape[o]) for o in group.outputs)
        if group.kind in ("merge", "regroup") and d != group.inputs[0]:
            lines.append(
                f"input dim {d} (size {r.shape[d]}) is sharded on mesh dim {mesh_dim}, and the reshape merges "
                f"dims {group.inputs} ({ins}) into output dims {group.outputs} ({outs}); dim {d} is not the "
                f"outermost of them, so each rank's block of dim {d} would be {r.shape[group.inputs[0]]} "
                "separate runs of the result — DTensor keeps a Shard only on the outermost merged dim "
                "(or as a _StridedShard where its rule allows one), so it gathers this one")
        elif group.kind in ("split", "regroup"):
            lines.append(
                f"input dim {d} (size {r.shape[d]}) is sharded on mesh dim {mesh_dim}, and the reshape splits "
                f"it into output dims {group.outputs} ({outs}); a rank's block does not line up with the "
                f"outermost output dim ({out_shape[group.outputs[0]]} is not split into equal whole blocks per "
                "rank), so DTensor gathers it first")
        else:
            lines.append(f"input dim {d} (size {r.shape[d]}) is sharded on mesh dim {mesh_dim} and the reshape "
                         f"maps dims {group.inputs} to {group.outputs}: DTensor's view rule cannot keep the shard")
    return lines


def step_reason(step: Step, out_shape: tuple[int, ...] | None) -> list[str]:
    """The reasons for one aten op's redistributions (empty when it has none)."""
    lines: list[str] = []
    for r in step.redistributions:
        head = (f"{step.op}: input {r.arg} (global shape {tuple(r.shape)}) is {spell_placements(r.src)}, but "
                f"PyTorch's sharding rule for this op runs it as {spell_placements(r.dst)}")
        lines.append(head)
        partial = [m for m, p in enumerate(r.src) if _is_partial(p) and not _is_partial(r.dst[m])]
        for m in partial:
            lines.append(f"mesh dim {m} holds a Partial value: {step.op} is not linear in it (or needs the true "
                         "values), so the partial sums are reduced first")
        if step.op.startswith(_RESHAPES):
            lines.extend(_reshape_words(r, out_shape))
    for c in step.collectives:
        lines.append(f"-> {c}")
    return lines


def _is_partial(p: Any) -> bool:
    return bool(getattr(p, "is_partial", lambda: False)())
