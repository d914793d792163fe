"""Every piece of PyTorch's DTensor machinery the distributed diagnostics touch, in one place.

The predictions are PyTorch's own: ``explain`` runs the op on a **meta shadow** of the DTensor
(same mesh, placements, global shape and strides; the local tensor on the ``meta`` device), so
DTensor's own dispatcher propagates the sharding, plans and issues the redistribution, and its
functional collectives run their *meta* kernels (shapes only: no process group is asked to move
a byte). Nothing here re-derives a sharding rule.

Private APIs used (torch==2.13.0; ``tests/test_dtensor_explain.py`` pins each one, so an upgrade
that moves one fails there, loudly, rather than here, silently):

- ``DTensor._op_dispatcher.unwrap_to_op_info`` and
  ``DTensor._op_dispatcher.sharding_propagator.propagate_op_sharding``: the op's input specs and
  PyTorch's ``OutputSharding`` for them (output spec, ``needs_redistribute`` and the
  ``redistribute_schema`` saying which input goes to which placements). The dispatcher calls
  exactly these (``torch/distributed/tensor/_dispatch.py``); we call them only to *read* the plan
  for the report, the meta run then carries it out.
- ``DTensor._spec`` and ``DTensor(local_tensor, spec, requires_grad=...)`` (the constructor DTensor's
  own ops use): the meta shadow keeps ``dt``'s spec and its local strides exactly
  (``DTensor.from_local`` re-views the local tensor, which can change a size-1 dim's stride).
- ``DTensor._local_tensor``: the local tensor as stored (``to_local()`` re-views it).
- ``torch.distributed.tensor.placement_types._StridedShard`` (``dim``, ``split_factor``) and its
  ``_split_tensor`` / ``Shard._split_tensor``: which global elements each rank holds (drawing).
- ``torch.distributed.tensor._utils._compute_local_shape_and_global_offset``: each rank's local
  shape and where its block starts in the global tensor, for any mesh coordinate.
- ``torch.utils._python_dispatch._disable_current_modes`` (with the public
  ``torch._C.DisableTorchFunction``): ``watch_torch``'s gather of the ranks' steps at exit runs
  with every torch mode off, so a block around it does not record the watch's own collective.
- the functional collectives ``torch.ops._c10d_functional.*`` (public ops, private namespace):
  what a redistribution runs; their meta kernels give the buffer sizes.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["COLLECTIVES", "INSTALL_HINT", "dtensor_module", "is_dtensor", "require_torch"]

INSTALL_HINT = ("explaining a DTensor needs PyTorch's torch.distributed, which is not importable here; "
                "install it with: pip install torch==2.13.0")

# the functional collectives a DTensor redistribution can run, by aten name -> the word we print
COLLECTIVES: dict[str, str] = {
    "all_gather_into_tensor": "all_gather",
    "all_gather_into_tensor_coalesced": "all_gather",
    "reduce_scatter_tensor": "reduce_scatter",
    "reduce_scatter_tensor_coalesced": "reduce_scatter",
    "all_reduce": "all_reduce",
    "all_reduce_coalesced": "all_reduce",
    "all_reduce_": "all_reduce",
    "all_reduce_coalesced_": "all_reduce",
    "all_gather_into_tensor_out": "all_gather",
    "reduce_scatter_tensor_out": "reduce_scatter",
    "broadcast_": "broadcast",
    "all_to_all_single": "all_to_all",
    "broadcast": "broadcast",
}


def require_torch() -> Any:
    """``torch`` with ``torch.distributed.tensor`` imported, or ImportError naming the pin."""
    try:
        import torch
        import torch.distributed.tensor  # noqa: F401 - the DTensor package itself
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc
    return torch


def dtensor_module() -> Any:
    """``torch.distributed.tensor`` (imported through :func:`require_torch`)."""
    require_torch()
    return sys.modules["torch.distributed.tensor"]


def is_dtensor(x: Any) -> bool:
    """True for a DTensor; never imports torch (a DTensor exists only once its module is loaded)."""
    mod = sys.modules.get("torch.distributed.tensor")
    return mod is not None and isinstance(x, mod.DTensor)


def propagate(func: Any, args: tuple, kwargs: dict) -> Any:
    """PyTorch's ``OutputSharding`` for ``func(*args, **kwargs)`` over DTensors (no data, no
    collective): what DTensor's dispatcher computes before it runs an op."""
    dispatcher = dtensor_module().DTensor._op_dispatcher
    info = dispatcher.unwrap_to_op_info(func, args, kwargs)
    return dispatcher.sharding_propagator.propagate_op_sharding(info.schema)


def local_shape_and_offset(global_shape: tuple[int, ...], mesh_shape: tuple[int, ...],
                           coordinate: list[int], placements: tuple) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """PyTorch's local shape (unpadded) and global offset of the rank at ``coordinate``."""
    from torch.distributed.tensor._utils import _compute_local_shape_and_global_offset

    shape, offset = _compute_local_shape_and_global_offset(global_shape, mesh_shape, list(coordinate), placements)
    return tuple(int(s) for s in shape), tuple(int(o) for o in offset)


def strided_shard_class() -> Any:
    from torch.distributed.tensor.placement_types import _StridedShard

    return _StridedShard
