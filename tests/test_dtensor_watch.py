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
from torch.distributed.tensor.parallel import (
    ColwiseParallel,
    RowwiseParallel,
    SequenceParallel,
    parallelize_module,
)

import strided
from dtensor_cases import fake_mesh
from strided.diagnose.distributed.torch_api import COLLECTIVES
from strided.diagnose.distributed.watch_collectives import C10D


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
    """CommDebugMode's counts, by collective kind (its keys are c10d_functional.* or c10d.* ops)."""
    out = collections.Counter()
    for op, n in cdm.get_comm_counts().items():
        name = str(op).split(".")[-1]
        out[COLLECTIVES.get(name) or C10D[name][0]] += n
    return dict(out)


def _run_both(step):
    with CommDebugMode() as cdm:
        step()
    with strided.watch_torch() as w:
        step()
    steps = [s for s in w.steps if s.kind == "collective"]
    return _counts(cdm), dict(collections.Counter(s.extra["collective"] for s in steps)), steps


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


def test_the_summary_ranks_lines_by_bytes_moved(mesh):
    """print(w)'s summary has a "collective" row per line (grouped over a loop), its bytes the
    bytes each rank receives, ranked with the copies by bytes; the reason names the collective."""
    x = distribute_tensor(torch.arange(48.).reshape(8, 6), mesh, [Shard(1)])
    y = distribute_tensor(torch.arange(24.).reshape(4, 6), mesh, [Shard(1)])
    with strided.watch_torch() as w:
        for _ in range(3):
            x.view(6, 8)  # an all_gather of 192 bytes, three times
        y.view(6, 4)  # one of 96 bytes
    rows = [r for r in w.summary() if r.category == "collective"]
    assert [(r.count, r.nbytes) for r in rows] == [(3, 576), (1, 96)]
    assert rows[0].reason.startswith("all_gather on mesh dim 0 (2 ranks)")
    assert "collective" in str(w)


def _line_of(text):
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if text in line)


def test_a_reshape_that_gathers_is_a_collective_step(mesh):
    x = distribute_tensor(torch.arange(48.).reshape(8, 6), mesh, [Shard(1)])
    want, got, steps = _run_both(lambda: x.view(6, 8))
    assert got == want == {"all_gather": 1}
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


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(8)
        self.up = nn.Linear(8, 16)
        self.down = nn.Linear(16, 8)

    def forward(self, x):
        return self.down(torch.relu(self.up(self.norm(x))))


@pytest.mark.filterwarnings("ignore:Full backward hook")
def test_sequence_parallel_block_counts_equal_commdebugmode(mesh):
    torch.manual_seed(0)
    block = parallelize_module(Block(), mesh, {"norm": SequenceParallel(), "up": ColwiseParallel(input_layouts=Shard(1)),
                                               "down": RowwiseParallel(output_layouts=Shard(1))})
    x = torch.randn(2, 4, 8)
    want, got, steps = _run_both(lambda: block(x).sum().backward())
    assert got == want == {"all_gather": 2, "reduce_scatter": 2}
    assert [(s.extra["collective"], s.extra["phase"]) for s in steps] == [
        ("all_gather", "forward"), ("reduce_scatter", "forward"), ("all_gather", "backward"), ("reduce_scatter", "backward")]
    # the sequence dim (4) is sharded: each rank all-gathers its 2 x 2 x 8 float32 (128 bytes) to 2 x 4 x 8
    assert [(s.extra["bytes_in"], s.extra["bytes_out"]) for s in steps][0] == (256, 512)
    assert all(s.extra["mesh_dim"] == 0 and s.where for s in steps)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_fsdp2_training_step_counts_equal_commdebugmode(mesh):
    # FSDP2 runs the in-place c10d collectives (not the functional ones): counted all the same
    from torch.distributed.fsdp import fully_shard

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 4))
    for layer in model:
        fully_shard(layer, mesh=mesh)
    fully_shard(model, mesh=mesh)
    x = torch.randn(3, 8)
    want, got, steps = _run_both(lambda: model(x).sum().backward())
    # (the numbers are CommDebugMode's own on this run; the step kinds must match them one for one)
    assert got == want == {"all_gather": 4, "reduce_scatter": 2}
    assert {s.extra["phase"] for s in steps} == {"forward", "backward"}



def test_a_mode_inside_the_block_hides_the_mesh_dim_and_the_words_say_so(mesh):
    # CommDebugMode entered inside the block takes the DTensor op first: the watch still counts
    # the collective, but cannot tell its mesh dim — and must not call it "outside the mesh"
    x = distribute_tensor(torch.arange(48.).reshape(8, 6), mesh, [Shard(1)])
    with strided.watch_torch() as w:
        with CommDebugMode():
            x.view(6, 8)
    (s,) = [s for s in w.steps if s.kind == "collective"]
    assert s.extra["mesh_dim"] is None and (s.extra["bytes_in"], s.extra["bytes_out"]) == (96, 192)
    assert s.reason == "all_gather on a process group not matched to a mesh dim: 96 bytes in, 192 bytes out per rank"
