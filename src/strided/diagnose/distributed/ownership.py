"""Which global elements each rank holds: PyTorch's own split of the global index grid.

For a global shape, a mesh shape and placements, every rank's local tensor is the global tensor
cut by each shard-like placement in mesh-dim order — what ``distribute_tensor`` does — with
``Shard._split_tensor`` / ``_StridedShard._split_tensor`` (PyTorch's own chunking, uneven shards
and strided shards included). Applied to the grid of global flat indices, the cut gives, per
rank, the global index of each of its local elements (in its local logical order).

Example (2 ranks, an (2, 4) tensor sharded on dim 1)::

    own = ownership((2, 4), (2,), (Shard(1),))
    own.local[(0,)].tolist()   # [[0, 1], [4, 5]]: rank 0 holds columns 0 and 1
    own.owners[5]              # (0,): only rank 0 holds global element 5
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from .torch_api import require_torch

__all__ = ["Ownership", "ownership"]


@dataclass(frozen=True)
class Ownership:
    """``local[coordinate]``: a NumPy array, that rank's local logical grid of global flat indices;
    ``owners[flat]``: the mesh coordinates holding global element ``flat``; ``partial_dims``: the
    mesh dims holding a Partial value (each holder has a partial value there, not the element)."""

    shape: tuple[int, ...]
    mesh_shape: tuple[int, ...]
    local: dict[tuple[int, ...], Any]
    owners: tuple[tuple[tuple[int, ...], ...], ...]
    partial_dims: tuple[int, ...]


def ownership(shape: tuple[int, ...], mesh_shape: tuple[int, ...], placements: tuple) -> Ownership:
    """The :class:`Ownership` of a DTensor of global ``shape`` over a mesh of ``mesh_shape``."""
    torch = require_torch()
    numel = 1
    for s in shape:
        numel *= s
    grid = torch.arange(numel).reshape(shape)
    local: dict[tuple[int, ...], Any] = {}
    owners: list[list[tuple[int, ...]]] = [[] for _ in range(numel)]
    for coord in itertools.product(*(range(m) for m in mesh_shape)):
        part = grid
        for mesh_dim, p in enumerate(placements):
            if hasattr(p, "_split_tensor") and hasattr(p, "dim"):  # Shard and _StridedShard
                part = p._split_tensor(part, mesh_shape[mesh_dim], with_padding=False)[0][coord[mesh_dim]]
        arr = part.contiguous().numpy()
        local[coord] = arr
        for flat in arr.reshape(-1).tolist():
            if coord not in owners[flat]:
                owners[flat].append(coord)
    partial = tuple(m for m, p in enumerate(placements) if getattr(p, "is_partial", lambda: False)())
    return Ownership(tuple(shape), tuple(mesh_shape), local, tuple(tuple(o) for o in owners), partial)
