"""Run an op on a DTensor's **meta shadow** and record what DTensor did: the plan and collectives.

The shadow is a DTensor with the same mesh, placements, global shape and global strides whose
local tensor lives on the ``meta`` device (same local shape and strides, no memory). Running the
user's op on it goes through DTensor's real dispatcher: PyTorch's sharding propagation picks the
output placements and any redistribution, the redistribution issues its functional collectives,
and those run their meta kernels — buffer sizes are computed, no process group is asked to move a
byte, nothing blocks on other ranks. The local result has PyTorch's own local shape and strides.

A ``TorchDispatchMode`` watches the run, as ``CommDebugMode`` does: it sees each aten op with
DTensor arguments first (it reads PyTorch's plan for it, then returns ``NotImplemented`` so
DTensor runs it), then the collectives DTensor's redistribution issues on local tensors.

Threads: torch keeps dispatch modes per thread; a trace sees only its own thread's ops.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .torch_api import COLLECTIVES, dtensor_module, propagate

__all__ = ["Collective", "Redistribution", "Step", "Trace", "buffer_bytes", "meta_shadow", "mesh_groups", "trace"]


@dataclass(frozen=True)
class Collective:
    """One collective a rank runs: its kind (``all_gather``, ``all_reduce``, ``reduce_scatter``,
    ``all_to_all``, ``broadcast``), the mesh dim whose process group runs it (None when the group
    is not one of the mesh's dims), the ranks in that group, and the bytes of this rank's buffer
    handed to it (``bytes_in``) and of the buffer it returns (``bytes_out``)."""

    kind: str
    mesh_dim: int | None
    group_size: int
    bytes_in: int
    bytes_out: int
    op: str  # the aten op whose redistribution ran it (e.g. "aten.view.default"); "" outside one

    def __str__(self) -> str:
        where = f"mesh dim {self.mesh_dim}" if self.mesh_dim is not None else "a group outside the mesh"
        return (f"{self.kind} on {where} ({self.group_size} ranks): {self.bytes_in:,} bytes in, "
                f"{self.bytes_out:,} bytes out per rank")


@dataclass(frozen=True)
class Redistribution:
    """PyTorch's plan for one input of one aten op: argument ``arg`` goes from ``src`` to ``dst``
    placements before the op runs locally."""

    arg: int
    src: tuple
    dst: tuple
    shape: tuple[int, ...]


@dataclass
class Step:
    """One aten op DTensor dispatched: its name, its DTensor inputs' placements, the output
    placements PyTorch chose, the inputs it redistributes first, and the collectives that ran."""

    op: str
    inputs: tuple[tuple, ...]
    output: Any
    redistributions: tuple[Redistribution, ...]
    out_shape: tuple[int, ...] | None = None
    collectives: list[Collective] = field(default_factory=list)


@dataclass
class Trace:
    """What a shadow run did: the steps, all collectives in order, the result (a meta DTensor,
    or whatever the call returned) or the exception it raised."""

    steps: list[Step]
    collectives: list[Collective]
    result: Any = None
    error: BaseException | None = None


def meta_shadow(dt: Any) -> Any:
    """A DTensor like ``dt`` (mesh, placements, global shape and strides, local shape, strides and
    storage offset) whose local tensor is on the meta device."""
    torch = __import__("torch")
    DTensor = dtensor_module().DTensor
    local = dt._local_tensor
    meta = torch.empty_strided(local.shape, local.stride(), dtype=local.dtype, device="meta")
    if local.storage_offset():
        storage = torch.empty(local.untyped_storage().nbytes() // local.element_size(), dtype=local.dtype,
                              device="meta")
        meta = storage.as_strided(local.shape, local.stride(), local.storage_offset())
    # DTensor(local, spec): the constructor DTensor's own ops use; from_local would re-view the local
    # tensor (its size-1 dims' strides could change) — the shadow must keep dt's local strides exactly
    return DTensor(meta, dt._spec, requires_grad=False)


def _mesh_dim_of(groups: dict[str, tuple[int, int]], name: Any) -> tuple[int | None, int]:
    return groups.get(str(name), (None, 0))


def buffer_bytes(t: Any) -> int:
    """The bytes of a collective's buffer: a tensor, or a list of them (coalesced collectives)."""
    if isinstance(t, (list, tuple)):
        return sum(buffer_bytes(u) for u in t)
    return t.numel() * t.element_size() if hasattr(t, "numel") else 0


def _recorder(steps: list[Step], collectives: list[Collective], groups: dict[str, tuple[int, int]]) -> Any:
    from torch.utils._python_dispatch import TorchDispatchMode

    DTensor = dtensor_module().DTensor

    class Recorder(TorchDispatchMode):
        def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: Any = None) -> Any:
            kwargs = kwargs or {}
            if any(issubclass(t, DTensor) for t in types):
                steps.append(_step(func, args, kwargs))
                return NotImplemented  # DTensor runs it (redistribution, then the local op)
            out = func(*args, **kwargs)
            name = func._schema.name.split("::")[-1]
            if func.namespace == "_c10d_functional" and name in COLLECTIVES:
                mesh_dim, size = _mesh_dim_of(groups, args[-1])  # the group name is the last argument
                c = Collective(COLLECTIVES[name], mesh_dim, size, buffer_bytes(args[0]), buffer_bytes(out),
                               steps[-1].op if steps else "")
                collectives.append(c)
                if steps:
                    steps[-1].collectives.append(c)
            return out

    return Recorder()


def _step(func: Any, args: tuple, kwargs: dict) -> Step:
    DTensor = dtensor_module().DTensor
    flat = [a for a in _flatten(args) if isinstance(a, DTensor)]
    inputs = tuple(tuple(a.placements) for a in flat)
    try:
        sharding = propagate(func, args, kwargs)
    except Exception:  # noqa: BLE001 - the run itself raises PyTorch's error; the plan is then unknown
        return Step(str(func), inputs, None, ())
    redist: list[Redistribution] = []
    if sharding.needs_redistribute and sharding.redistribute_schema is not None:
        wanted = [s for s in _flatten(sharding.redistribute_schema.args_schema) if hasattr(s, "placements")]
        for i, (a, spec) in enumerate(zip(flat, wanted)):
            if tuple(spec.placements) != tuple(a.placements):
                redist.append(Redistribution(i, tuple(a.placements), tuple(spec.placements), tuple(a.shape)))
    out = sharding.output_spec
    placements = tuple(out.placements) if hasattr(out, "placements") else out
    shape = _spec_shape(out)
    return Step(str(func), inputs, placements, tuple(redist), shape)


def _spec_shape(spec: Any) -> tuple[int, ...] | None:
    try:
        return tuple(int(s) for s in spec.shape)
    except Exception:  # noqa: BLE001 - no tensor meta (a tuple of specs, or None)
        return None


def _flatten(args: Any) -> list:
    out: list = []
    for a in args:
        if isinstance(a, (list, tuple)):
            out.extend(_flatten(a))
        else:
            out.append(a)
    return out


def mesh_groups(mesh: Any) -> dict[str, tuple[int, int]]:
    """Process-group name -> (mesh dim, ranks in it), for naming the mesh dim a collective runs on."""
    groups = {}
    for d in range(mesh.ndim):
        try:
            groups[str(mesh.get_group(d).group_name)] = (d, int(mesh.size(d)))
        except Exception:  # noqa: BLE001 - a mesh dim without its own group (rank outside it)
            continue
    return groups


def trace(call: Any, mesh: Any) -> Trace:
    """Run ``call()`` (which works on meta shadows) under the recorder; its steps and collectives.
    An exception ``call`` raises is kept, not raised: it is PyTorch's own answer for the op."""
    steps: list[Step] = []
    collectives: list[Collective] = []
    with _recorder(steps, collectives, mesh_groups(mesh)):
        try:
            result = call()
        except Exception as exc:  # noqa: BLE001 - the prediction is whatever DTensor raises
            return Trace(steps, collectives, None, exc)
    return Trace(steps, collectives, result)
