"""``watch_torch`` on DTensor programs (fake process group, this process is rank 0): each
collective is a step of kind "collective", counted exactly as PyTorch's ``CommDebugMode`` counts,
with its kind, mesh dim, bytes, the user's line, module path and phase."""

from __future__ import annotations

import collections

import pytest
import torch
from torch import nn
from torch.distributed.tensor import Shard, distribute_tensor
from torch.distributed.tensor.debug import CommDebugMode
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

import strided
from dtensor_cases import fake_mesh


@pytest.fixture(scope="module")
def mesh():
    with fake_mesh(2) as m:
        yield m


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.up = nn.Linear(8, 16)
        self.down = nn.Linear(16, 8)

    def forward(self, x):
        return self.down(torch.relu(self.up(x)))


def _counts(cdm):
    return {str(k).split(".")[-1].removeprefix("c10d_functional."): v for k, v in cdm.get_comm_counts().items()}


def _py(kind):
    return {"all_gather": "all_gather_into_tensor", "reduce_scatter": "reduce_scatter_tensor",
            "all_to_all": "all_to_all_single"}.get(kind, kind)


def _run_both(step):
    with CommDebugMode() as cdm:
        step()
    with strided.watch_torch() as w:
        step()
    steps = [s for s in w.steps if s.kind == "collective"]
    return _counts(cdm), dict(collections.Counter(_py(s.extra["collective"]) for s in steps)), steps


@pytest.mark.filterwarnings("ignore:Full backward hook")  # CommDebugMode's own module tracker
def test_tensor_parallel_mlp_counts_equal_commdebugmode(mesh):
    torch.manual_seed(0)
    model = parallelize_module(MLP(), mesh, {"up": ColwiseParallel(), "down": RowwiseParallel()})
    x = torch.randn(4, 8)
    want, got, steps = _run_both(lambda: model(x).sum().backward())
    assert got == want and want
    (s,) = steps  # RowwiseParallel's output: the partial sums all-reduced, 4 x 8 float32
    assert (s.extra["collective"], s.extra["mesh_dim"], s.extra["bytes_in"], s.extra["bytes_out"]) == \
        ("all_reduce", 0, 128, 128)
    assert s.module == "MLP" and s.extra["phase"] == "forward"
    # the user's line: the module's forward line whose down-projection's output hook all-reduces
    assert s.where.endswith("test_dtensor_watch.py:" + str(_line_of("return self.down(")))
    assert "all_reduce on mesh dim 0 (2 ranks): 128 bytes in, 128 bytes out per rank" in s.reason


def _line_of(text):
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if text in line)


def test_a_reshape_that_gathers_is_a_collective_step(mesh):
    x = distribute_tensor(torch.arange(48.).reshape(8, 6), mesh, [Shard(1)])
    want, got, steps = _run_both(lambda: x.view(6, 8))
    assert got == want == {"all_gather_into_tensor": 1}
    (s,) = steps
    assert s.extra["dtensor_op"] == "aten.view.default" and s.extra["bytes_out"] == 192
    # explain says the same thing about the same call, with the way out
    r = strided.explain(x, "view", 6, 8)
    assert [(c.kind, c.bytes_in, c.bytes_out) for c in r.collectives] == [("all_gather", 96, 192)]
    assert r.fixes


def test_plain_tensors_are_watched_as_before(mesh):
    with strided.watch_torch() as w:
        torch.zeros(3, 4).t().contiguous()
    assert [s.kind for s in w.steps][-1] == "copy" and not any(s.kind == "collective" for s in w.steps)
