"""How a reshape's output dims map onto its input dims: split, merge, or a regrouping.

A reshape (``view``, ``reshape``, ``flatten``, ``unflatten``) re-reads the same row-major
sequence of elements in a new shape. Cutting both shapes at every place where their running
products agree gives *groups*: a run of input dims and a run of output dims that hold the same
block of elements. Size-1 dims carry nothing and are left out of every group.

- one input dim and one output dim: kept;
- one input dim, several output dims: a **split** (``(B, T, h*d) -> (B, T, h, d)``);
- several input dims, one output dim: a **merge** (``(B, T, h, d) -> (B, T, h*d)``);
- several on both sides: a **regrouping** — some output dim draws from parts of two input
  dims. ``q.view(B, h, T, d)`` on a ``(B, T, h*d)`` tensor is one: its dim 1 (size h) takes
  the first h steps of T, so the heads are scrambled (the "view where a permute was meant" bug).

Shapes alone cannot tell a regrouping whose sizes happen to match (T == h) from a correct
split: such a call maps dims one to one and is reported as kept/split.

Example::

    >>> m = reshape_mapping((2, 5, 12), (2, 3, 5, 4))
    >>> m.kind, m.regroups[0].inputs, m.regroups[0].outputs
    ('regroup', (1, 2), (1, 2, 3))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["DimGroup", "DimMapping", "reshape_mapping"]


@dataclass(frozen=True)
class DimGroup:
    """Input dims ``inputs`` and output dims ``outputs`` that hold the same block of elements."""

    inputs: tuple[int, ...]
    outputs: tuple[int, ...]

    @property
    def kind(self) -> str:
        """"keep", "split", "merge" or "regroup"."""
        many_in, many_out = len(self.inputs) > 1, len(self.outputs) > 1
        if many_in and many_out:
            return "regroup"
        return "merge" if many_in else "split" if many_out else "keep"


@dataclass(frozen=True)
class DimMapping:
    """The groups of a reshape from ``old_shape`` to ``new_shape`` and what they add up to.

    ``kind`` is "same" (nothing but size-1 dims change), "split", "merge", "split+merge",
    "regroup" (some group mixes dims), or "empty" (no elements: nothing to map).
    """

    old_shape: tuple[int, ...]
    new_shape: tuple[int, ...]
    groups: tuple[DimGroup, ...]

    @property
    def regroups(self) -> tuple[DimGroup, ...]:
        """The groups where an output dim draws from parts of two input dims."""
        return tuple(g for g in self.groups if g.kind == "regroup")

    @property
    def kind(self) -> str:
        if 0 in self.old_shape or 0 in self.new_shape:
            return "empty"
        kinds = {g.kind for g in self.groups} - {"keep"}
        if "regroup" in kinds:
            return "regroup"
        if not kinds:
            return "same"
        return "+".join(k for k in ("split", "merge") if k in kinds)

    def describe(self) -> str:
        """One line in the shapes' own numbers, e.g.
        ``regroups input dims 1, 2 (5, 12) into output dims 1, 2, 3 (3, 5, 4)``."""
        if self.kind == "empty":
            return "no elements: the dims map onto nothing"
        parts = []
        for g in self.groups:
            if g.kind == "keep":
                continue
            ins = ", ".join(map(str, g.inputs))
            outs = ", ".join(map(str, g.outputs))
            sizes_in = tuple(self.old_shape[d] for d in g.inputs)
            sizes_out = tuple(self.new_shape[d] for d in g.outputs)
            verb = {"split": "splits", "merge": "merges", "regroup": "regroups"}[g.kind]
            s_in = "s" if len(g.inputs) > 1 else ""
            s_out = "s" if len(g.outputs) > 1 else ""
            parts.append(f"{verb} input dim{s_in} {ins} {_sizes(sizes_in)} into output dim{s_out} {outs} "
                         f"{_sizes(sizes_out)}")
        return "; ".join(parts) if parts else "keeps every dim (only size-1 dims change)"


def _sizes(sizes: tuple[int, ...]) -> str:
    return f"({sizes[0]})" if len(sizes) == 1 else str(sizes)


def reshape_mapping(old_shape: Sequence[int], new_shape: Sequence[int]) -> DimMapping:
    """The :class:`DimMapping` of a reshape from ``old_shape`` to ``new_shape`` (same numel)."""
    old, new = tuple(old_shape), tuple(new_shape)
    if 0 in old or 0 in new:
        return DimMapping(old, new, ())
    ins = [d for d, n in enumerate(old) if n != 1]
    outs = [d for d, n in enumerate(new) if n != 1]
    groups: list[DimGroup] = []
    i = j = 0
    while i < len(ins) and j < len(outs):
        gi, go = [ins[i]], [outs[j]]
        p, q = old[ins[i]], new[outs[j]]
        i, j = i + 1, j + 1
        while p != q:
            if p < q:
                if i == len(ins):
                    break
                p *= old[ins[i]]
                gi.append(ins[i])
                i += 1
            else:
                if j == len(outs):
                    break
                q *= new[outs[j]]
                go.append(outs[j])
                j += 1
        groups.append(DimGroup(tuple(gi), tuple(go)))
    return DimMapping(old, new, tuple(groups))
