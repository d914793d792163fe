"""Placements in words: what ``Shard(d)``, ``Replicate()``, ``Partial()`` and PyTorch's
``_StridedShard`` mean for a given global shape and mesh, in the tensor's own numbers.

>>> spell_placements(())
'[]'
"""

from __future__ import annotations

from typing import Any

__all__ = ["describe_placement", "spell_placements"]


def spell_placements(placements: Any) -> str:
    """Placements as a list the user can paste (``[Shard(dim=1), Replicate()]``)."""
    return "[" + ", ".join(repr(p) for p in placements) + "]"


def _chunks(size: int, n: int) -> list[int]:
    """torch.chunk's sizes of ``size`` in ``n`` pieces (the last ones may be short or empty)."""
    step = -(-size // n) if n else 0
    return [max(0, min(step, size - i * step)) for i in range(n)]


def describe_placement(p: Any, mesh_dim: int, mesh_size: int, shape: tuple[int, ...]) -> str:
    """One line on what placement ``p`` on ``mesh_dim`` (``mesh_size`` ranks) does to ``shape``."""
    name = type(p).__name__
    where = f"mesh dim {mesh_dim} ({mesh_size} ranks)"
    if name == "Replicate":
        return f"{where}: Replicate() — every rank holds the whole tensor along this mesh dim"
    if name == "Partial" or getattr(p, "is_partial", lambda: False)():
        op = getattr(p, "reduce_op", "sum")
        return (f"{where}: {p!r} — every rank holds a full-shape partial value; the true tensor is the "
                f"{op} over the {mesh_size} ranks (an all_reduce, or a reduce_scatter to a Shard, makes it real)")
    dim = int(p.dim)
    size = shape[dim] if dim < len(shape) else 0
    if name == "_StridedShard":
        sf = int(p.split_factor)
        piece = size // sf if sf else 0
        per = _chunks(piece, mesh_size)
        return (f"{where}: {p!r} — a strided shard, not one block: dim {dim} ({size}) is cut into sf={sf} "
                f"equal pieces of {piece}, and each piece is split across the ranks, so rank r holds "
                f"{sf} runs of {per[0]} elements (the r-th part of every piece), {piece} apart. It is what "
                "Shard of an earlier dim becomes when that dim is merged behind a leading dim of "
                f"{sf} (a view/flatten): the same data, no collective, but rank r's elements are not one "
                "contiguous block of the result")
    sizes = _chunks(size, mesh_size)
    even = "evenly" if len(set(sizes)) == 1 else "unevenly (torch.chunk: the last ranks get less)"
    return f"{where}: {p!r} — dim {dim} ({size}) split {even} into blocks of {', '.join(map(str, sizes))}"
