"""``strided.explain`` on PyTorch DTensors: predictions (meta shadow, no collective) against REAL
DTensor runs (gloo, 2 processes, 1,000 generated cases), plus the report's words on a fake
process group in this process, and pins on every private PyTorch API the package uses."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from torch.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor

import strided
from dtensor_cases import fake_mesh
from strided.diagnose.distributed import torch_api

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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_predictions_equal_real_dtensor_runs(tmp_path):
    """1,000 generated cases (view/reshape/flatten/unflatten/permute/transpose/contiguous/expand/
    slicing/add/mul with broadcasting/matmul/sum; Shard/Replicate/Partial; uneven shards;
    transposed inputs; float32/float64), run for real by 2 gloo processes: each checks its own
    predicted placements, global shape and strides, local shape, strides and storage offset, the
    collectives (kind, bytes in and out, in order) and error texts."""
    port, world = _free_port(), 2
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "TORCH_CPP_LOG_LEVEL": "ERROR"}
    procs = [subprocess.Popen([sys.executable, str(HERE / "dtensor_cases.py"), str(r), str(world), "2", str(port),
                               str(tmp_path / f"rank{r}.json"), str(REAL_CASES)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env) for r in range(world)]
    start = time.monotonic()
    try:
        errs = [p.communicate(timeout=240)[1].decode(errors="replace") for p in procs]
    finally:
        for p in procs:  # a hung rank must not outlive the test
            if p.poll() is None:
                p.kill()
                p.wait()
    assert all(p.returncode == 0 for p in procs), "\n".join(e[-3000:] for e in errs)
    for r in range(world):
        report = json.loads((tmp_path / f"rank{r}.json").read_text())
        assert report["n"] == REAL_CASES
        assert report["failures"] == [], json.dumps(report["failures"][:5], indent=1)
    assert time.monotonic() - start < 240


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
    x = _x(mesh, [Shard(0)])
    again = DTensor(x._local_tensor, x._spec, requires_grad=False)
    assert again.placements == x.placements and again._local_tensor is x._local_tensor
    for name in torch_api.COLLECTIVES:
        assert hasattr(torch.ops._c10d_functional, name), name
    assert torch.__version__.split("+")[0] == "2.13.0"
