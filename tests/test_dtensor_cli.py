"""``strided watch --nproc 2 script.py``: a script run on 2 gloo processes, torchrun-style, its
collectives merged over the ranks with their lines and modules; a failing rank stops the others."""

from __future__ import annotations

import time

from strided.cli.main import main

SCRIPT = '''\
import torch, torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Shard, distribute_tensor
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

dist.init_process_group("gloo")
mesh = init_device_mesh("cpu", (dist.get_world_size(),))
torch.manual_seed(0)
model = parallelize_module(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8)), mesh,
                           {"0": ColwiseParallel(), "2": RowwiseParallel()})
model(torch.randn(4, 8)).sum()
x = distribute_tensor(torch.arange(48.).reshape(8, 6), mesh, [Shard(1)], src_data_rank=None)
y = x.view(6, 8)
dist.destroy_process_group()
'''


def test_watch_nproc_2_merges_the_ranks_collectives(tmp_path, capsys):
    script = tmp_path / "tp.py"
    script.write_text(SCRIPT)
    assert main(["watch", "--nproc", "2", str(script)]) == 0
    out = capsys.readouterr().out
    merged = out[out.index("collectives, merged over ranks 0, 1"):].splitlines()
    # the planted bad placement: a view across the shard boundary, all-gathered, 192 bytes per rank
    assert any(line.strip().startswith(f"{script}:14 forward: all_gather on mesh dim 0, x1/1 (per rank), 192 bytes")
               and "aten.view.default" in line for line in merged)
    # RowwiseParallel's output: partial sums all-reduced, in the Sequential
    assert any(f"{script}:12 [Sequential] forward: all_reduce on mesh dim 0, x1/1" in line for line in merged)
    assert out.startswith("rank 0 of 2:")


def test_a_failing_rank_stops_the_others(tmp_path, capsys):
    script = tmp_path / "fail.py"
    script.write_text("import os, time\nif os.environ['RANK'] == '1':\n    raise SystemExit(3)\ntime.sleep(60)\n")
    start = time.monotonic()
    assert main(["watch", "--nproc", "2", str(script)]) == 3
    assert time.monotonic() - start < 30
    assert "collectives, merged over ranks" in capsys.readouterr().out
