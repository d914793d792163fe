"""``strided watch --nproc N script.py``: run a script on N local processes, torchrun-style, each
under ``strided watch``, and print the collectives merged over the ranks.

Each rank is a child ``strided watch`` with torchrun's environment (``RANK``, ``WORLD_SIZE``,
``LOCAL_RANK``, ``LOCAL_WORLD_SIZE``, ``MASTER_ADDR`` = 127.0.0.1, ``MASTER_PORT`` = a free port),
so a script's ``torch.distributed.init_process_group("gloo")`` finds its peers. Each child writes
its collective steps to a file of its own; the parent prints rank 0's report, then the merged
table (:func:`~strided.diagnose.distributed.watch_collectives.merged_summary`). When a rank fails,
the others are stopped (a peer waiting in a collective would wait forever); the exit code is
the first failing rank's, else 0. ``timeout`` (seconds) bounds the whole run.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from typing import TextIO

__all__ = ["COLLECTIVES_ENV", "launch_watch"]

COLLECTIVES_ENV = "STRIDED_WATCH_COLLECTIVES"  # where a child writes its collective steps (JSON)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch_watch(script: str, args: list[str], nproc: int, torch: bool | None = None, out: TextIO | None = None,
                 err: TextIO | None = None, timeout: float = 600.0) -> int:
    """Run ``script`` on ``nproc`` processes under ``strided watch``; print rank 0's report and the
    merged collectives; return the exit code.

    >>> launch_watch("train.py", [], 2)  # doctest: +SKIP
    """
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    port = _free_port()
    flag = [] if torch is None else ["--torch"] if torch else ["--no-torch"]
    with tempfile.TemporaryDirectory(prefix="strided-watch-") as tmp:
        procs = []
        for rank in range(nproc):
            env = {**os.environ, "RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(nproc),
                   "LOCAL_WORLD_SIZE": str(nproc), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
                   COLLECTIVES_ENV: os.path.join(tmp, f"rank{rank}.json")}
            log = open(os.path.join(tmp, f"rank{rank}.out"), "w+")  # noqa: SIM115 - closed below
            procs.append((subprocess.Popen([sys.executable, "-m", "strided.cli.main", "watch", *flag, script, *args],
                                           stdout=log, stderr=subprocess.STDOUT, env=env), log))
        code = _wait(procs, timeout, err)
        texts = []
        for _, log in procs:
            log.seek(0)
            texts.append(log.read())
            log.close()
        per_rank = {}
        for rank in range(nproc):
            path = os.path.join(tmp, f"rank{rank}.json")
            if os.path.exists(path):
                with open(path) as f:
                    per_rank[rank] = json.load(f)
    from ..diagnose.distributed.watch_collectives import merged_summary

    print(f"rank 0 of {nproc}:", file=out)
    print(texts[0].rstrip(), file=out)
    for rank, text in enumerate(texts[1:], 1):
        if procs[rank][0].returncode:
            print(f"rank {rank} exited with {procs[rank][0].returncode}:\n{text.rstrip()}", file=err)
    print(merged_summary(per_rank), file=out)
    return code


def _wait(procs: list, timeout: float, err: TextIO) -> int:
    deadline = time.monotonic() + timeout
    code = 0
    while [p.poll() for p, _ in procs].count(None):  # (poll every rank: any() would stop at the first)
        failed = [p.returncode for p, _ in procs if p.returncode not in (None, 0)]
        if failed or time.monotonic() > deadline:
            if not failed:
                print(f"strided watch: the ranks ran past {timeout:g} s; stopped", file=err)
            code = failed[0] if failed else 124
            for p, _ in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
            break
        time.sleep(0.05)
    return code or next((p.returncode for p, _ in procs if p.returncode), 0)
