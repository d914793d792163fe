"""``strided.explain`` on PyTorch DTensors: predictions (meta shadow, no collective) against REAL
DTensor runs (gloo, 2 processes, 1,000 generated cases), plus the report's words on a fake
process group in this process, and pins on every private PyTorch API the package uses."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
import torch
from torch.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor

import strided
from dtensor_cases import fake_mesh, run_ranks
from strided.diagnose.distributed import torch_api
from strided.diagnose.distributed.watch_collectives import merged_summary

HERE = Path(__file__).resolve().parent
REAL_CASES = 1000


@pytest.fixture(scope="module")
def mesh():
    """A 1-d mesh of 2 on PyTorch's fake process group (this process is rank 0); torn down after."""
    with fake_mesh(2) as m:
        yield m


def _x(mesh, placements, shape=(8, 6)):
    return distribute_tensor(torch.arange(float(torch.Size(shape).numel())).reshape(shape), mesh, placements)


# ---------------------------------------------------------------- against real runs


@pytest.fixture(scope="module")
def real_reports(tmp_path_factory):
    """Each rank's report of the 2 gloo processes (run once for the tests below)."""
    tmp = tmp_path_factory.mktemp("ranks")
    start = time.monotonic()
    run_ranks(str(HERE / "dtensor_cases.py"), ["2", str(tmp / "rank{rank}.json"), str(REAL_CASES)], 2)
    assert time.monotonic() - start < 240
    return [json.loads((tmp / f"rank{r}.json").read_text()) for r in range(2)]


def test_predictions_equal_real_dtensor_runs(real_reports):
    """1,000 generated cases (view/reshape/flatten/unflatten/permute/transpose/contiguous/expand/
    slicing/add/mul with broadcasting/matmul/sum; Shard/Replicate/Partial; uneven shards;
    transposed inputs; float32/float64), run for real by 2 gloo processes: each checks its own
    predicted placements, global shape and strides, local shape, strides and storage offset, the
    collectives (kind, bytes in and out, in order) and error texts."""
    for report in real_reports:
        assert report["n"] == REAL_CASES
        assert report["failures"] == [], json.dumps(report["failures"][:5], indent=1)


def test_a_distributed_watch_gathers_every_rank_to_rank_0(real_reports):
    """In the same 2 gloo processes (tests/dtensor_watch_ranks.py): a tensor-parallel MLP's forward
    and backward twice inside watch_torch(). At exit rank 0 has every rank's collective rows and
    the merged table — the very one the ``--nproc`` launcher prints for those rows; rank 1 has
    none. A block in which rank 1 raises still gathers (rank 0 is not left waiting), and rank 1's
    exception is the one raised."""
    r0, r1 = (r["watch"] for r in real_reports)
    assert r1["ranks"] is None and r1["merged"] is None and "merged over ranks" not in r1["text"]
    assert {int(k): v for k, v in r0["ranks"].items()} == {0: r0["rows"], 1: r1["rows"]}
    assert r0["merged"] == merged_summary({0: r0["rows"], 1: r1["rows"]}) and r0["text"].endswith(r0["merged"])
    # RowwiseParallel's output all-reduce, twice per rank (4 x 8 float32, 128 bytes each): one row,
    # counted per rank, its bytes summed over the two
    (row,) = [line for line in r0["merged"].splitlines() if "all_reduce" in line]
    assert "[Sequential] forward: all_reduce on mesh dim 0, x2/2 (per rank), 256 bytes out per rank" in row
    assert len(r0["rows"]) == 2
    assert r1["raised"] == "KeyError('rank 1 fails')" and r0["raised"] == ""
    assert "x1/1 (per rank)" in r0["merged2"] and r1["merged2"] is None
    for r in (r0, r1):  # an inner block's gather is not a step of the block around it
        facts = [[(c["where"], c["collective"], c["bytes_in"], c["bytes_out"]) for c in r[k]] for k in ("outer", "inner")]
        assert len(r["inner"]) == 1 and facts[0] == facts[1] and r["outer_ops"] == r["inner_ops"]


# ---------------------------------------------------------------- the report, on a fake process group


def test_flatten_of_a_column_shard_is_a_strided_shard(mesh):
    x = _x(mesh, [Shard(1)])
    r = strided.explain(x, "view", 48)
    assert r.outcome == "local" and r.collectives == ()
    assert repr(r.placements) == "(_StridedShard(dim=0, sf=8),)"
    assert [row.shape for row in r.ranks] == [(24,), (24,)]
    assert "cut into sf=8 equal pieces of 6" in r.placement_words[0]
    assert "holds 8 runs of 3 elements" in r.placement_words[0]
    real = x.view(48)  # fake collectives: placements and local layout are still PyTorch's own
    assert r.placements == tuple(real.placements) and r.ranks[0].strides == tuple(real.to_local().stride())


def test_a_view_across_the_shard_boundary_gathers_and_says_why(mesh):
    x = _x(mesh, [Shard(1)])
    r = strided.explain(x, "view", 6, 8)
    assert r.outcome == "redistribute" and r.redistributes
    (c,) = r.collectives
    assert (c.kind, c.mesh_dim, c.group_size, c.bytes_in, c.bytes_out) == ("all_gather", 0, 2, 96, 192)
    assert r.bytes_per_rank == 192
    assert r.steps[0].redistributions[0].src == (Shard(1),) and r.steps[0].redistributions[0].dst == (Replicate(),)
    assert "merges dims (0, 1) (8 x 6) into output dims (0, 1) (6 x 8); dim 1 is not the outermost" in r.reason
    assert r.fixes and all(f.bytes_per_rank <= 192 for f in r.fixes)
    assert r.fixes[0].call == "x.redistribute(mesh, [Replicate()]).view(6, 8)"
    text = str(r)
    assert "redistributes: 1 collective(s), 192 bytes per rank" in text and "ways out:" in text


def test_cheap_way_out_is_cheaper_than_the_op(mesh):
    # a (4, 6) sharded on dim 1, flattened after a permute: PyTorch gathers 96 bytes; sharding dim 0
    # instead makes the reshape local, and the redistribution S(1) -> S(0) is the only cost
    x = _x(mesh, [Shard(1)], (4, 6))
    r = strided.explain(x, "reshape", 6, 4)
    assert r.collectives
    for f in r.fixes:
        assert f.bytes_per_rank <= r.bytes_per_rank
        assert "then reshape is local" in f.note


def test_partial_inputs(mesh):
    x = DTensor.from_local(torch.ones(4, 2), mesh, [Partial()], run_check=False)
    s = strided.explain(x, "sum", 0)
    assert s.outcome == "local" and repr(s.placements) == "(Partial(sum),)"
    e = strided.explain(x, "exp")
    assert [c.kind for c in e.collectives] == ["all_reduce"]
    assert "holds a Partial value" in e.reason


def test_uneven_shards_and_rank_rows(mesh):
    x = _x(mesh, [Shard(0)], (5, 3))
    r = strided.explain(x, "transpose", 0, 1)
    assert [row.shape for row in r.ranks] == [(3, 3), (3, 2)]
    assert [row.global_offset for row in r.ranks] == [(0, 0), (0, 3)]
    assert r.ranks[0].strides == (1, 3)
    assert r.ranks[1].strides is None  # uneven: only rank 1 knows its own strides
    assert "known on that rank only" in str(r)


def test_errors_are_pytorchs_own(mesh):
    x = _x(mesh, [Shard(1)])
    r = strided.explain(x, "view", 5, 8)
    with pytest.raises(RuntimeError) as exc:
        x.view(5, 8)
    assert r.outcome == "error" and r.error == f"RuntimeError: {str(exc.value).splitlines()[0]}"
    assert r.error_class == "RuntimeError" and "error:" in str(r)


def test_no_op_describes_the_layout(mesh):
    r = strided.explain(_x(mesh, [Shard(0)], (7, 2)))
    assert r.outcome == "local" and r.call == "x"
    assert [row.shape for row in r.ranks] == [(4, 2), (3, 2)]
    assert "split unevenly" in r.placement_words[0]


def test_misuse(mesh):
    x = _x(mesh, [Replicate()])
    with pytest.raises(ValueError, match="a DTensor has no method 'frobnicate'"):
        strided.explain(x, "frobnicate")
    with pytest.raises(TypeError, match="op must be an op name"):
        strided.explain(x, 3)
    with pytest.raises(TypeError, match="name the op first"):
        strided.explain(x, None, 3)


def test_without_torch_distributed_the_error_names_the_pin(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch.distributed.tensor", None)
    with pytest.raises(ImportError, match=r"torch==2\.13\.0"):
        torch_api.require_torch()
    assert torch_api.is_dtensor(torch.zeros(2)) is False


def test_pinned_private_apis(mesh):
    """Each private PyTorch API the package uses (see torch_api's docstring) is where we read it."""
    from torch.distributed.tensor import _utils
    from torch.distributed.tensor.placement_types import _StridedShard

    dispatcher = DTensor._op_dispatcher
    assert callable(dispatcher.unwrap_to_op_info)
    assert callable(dispatcher.sharding_propagator.propagate_op_sharding)
    assert callable(_utils._compute_local_shape_and_global_offset)
    assert _StridedShard(0, split_factor=4).split_factor == 4 and callable(_StridedShard._split_tensor)
    assert callable(Shard._split_tensor)
    from torch._C import DisableTorchFunction
    from torch.utils._python_dispatch import _disable_current_modes

    with _disable_current_modes(), DisableTorchFunction():  # (watch_torch's gather at exit)
        pass
    x = _x(mesh, [Shard(0)])
    again = DTensor(x._local_tensor, x._spec, requires_grad=False)
    assert again.placements == x.placements and again._local_tensor is x._local_tensor
    for name in torch_api.COLLECTIVES:
        assert hasattr(torch.ops._c10d_functional, name), name
    assert torch.__version__.split("+")[0] == "2.13.0"
