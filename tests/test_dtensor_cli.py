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


def test_a_rank_shuts_down_as_python_does_before_leaving(tmp_path, capsys):
    """A rank leaves without the C++ libraries' teardown (where gloo's threads can abort a clean
    process) but after what the interpreter's shutdown does first: its threads joined, its atexit
    functions run, its output flushed."""
    marks = tmp_path / "marks"
    script = tmp_path / "bye.py"
    script.write_text(
        "import atexit, os, threading, time\n"
        f"path = {str(marks)!r} + os.environ['RANK']\n"
        "def late():\n    time.sleep(0.5)\n    open(path + '.thread', 'w').close()\n"
        "threading.Thread(target=late).start()\n"
        "atexit.register(lambda: open(path + '.atexit', 'w').close())\n"
        "print('done', flush=False)\n")
    assert main(["watch", "--nproc", "2", str(script)]) == 0
    for rank in (0, 1):
        assert (tmp_path / f"marks{rank}.thread").exists() and (tmp_path / f"marks{rank}.atexit").exists()
    assert "done" in capsys.readouterr().out
