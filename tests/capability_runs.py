"""A check run under another ``ATEN_CPU_CAPABILITY``: PyTorch reads the variable once, when it loads,
so each capability is a fresh Python process running a script that prints ``BAD <count> <capability>``
as its last line (the elements whose bits differ from torch's)."""

from __future__ import annotations

import os
import subprocess
import sys


def no_bad_under(capability: str, script: str) -> None:
    """Run ``script`` under ``ATEN_CPU_CAPABILITY=capability`` and check it exits cleanly and its last
    line reports no differing element."""
    env = dict(os.environ, ATEN_CPU_CAPABILITY=capability)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    line = done.stdout.strip().splitlines()[-1]
    assert line.startswith("BAD 0 "), line
