"""The gather scenario of ``watch_torch`` on one real rank (run by ``dtensor_cases.main`` inside the
gloo processes of tests/test_dtensor_explain.py, so no extra processes start): a tensor-parallel
MLP's forward and backward twice inside ``watch_torch()``, then a block in which rank 1 raises.
Returns what the watches gathered (rank 0) and this rank's own collective rows."""

from __future__ import annotations

from typing import Any


def watch_scenario(mesh: Any, rank: int) -> dict[str, Any]:
    import torch
    from torch import nn
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

    import strided
    from strided.diagnose.distributed.watch_collectives import collective_rows

    torch.manual_seed(0)
    model = parallelize_module(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8)), mesh,
                               {"0": ColwiseParallel(), "2": RowwiseParallel()})
    with strided.watch_torch() as w:
        for _ in range(2):
            model(torch.randn(4, 8)).sum().backward()
    raised = ""
    try:
        with strided.watch_torch() as w2:
            model(torch.randn(4, 8))
            if rank == 1:
                raise KeyError("rank 1 fails")
    except KeyError as exc:
        raised = repr(exc)
    # nested blocks: the inner block's gather at its exit is the watch's own, not the program's: the
    # outer block does not see it
    with strided.watch_torch() as outer:
        with strided.watch_torch() as inner:
            model(torch.randn(4, 8))
    return {"rows": collective_rows(w), "ranks": w.ranks, "merged": w.merged, "text": str(w),
            "raised": raised, "merged2": w2.merged, "inner": collective_rows(inner), "outer": collective_rows(outer),
            "outer_ops": len(outer.steps), "inner_ops": len(inner.steps)}
