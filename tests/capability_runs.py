"""A check run under another ``ATEN_CPU_CAPABILITY``: PyTorch reads the variable once, when it loads,
so each capability is a fresh Python process running a script that prints ``BAD <count> <capability>``
as its last line (the elements whose bits differ from torch's)."""

from __future__ import annotations

import os
import subprocess
import sys

# What the scripts share: the imports, a seeded generator, the count of differing elements and
# ``differ(a, b)`` (how many elements of ``a`` (array-like) and torch's ``b`` differ in their bits).
PRELUDE = """\
import numpy as np, torch, strided
rng = np.random.default_rng(7)
bad = 0
def differ(a, b):
    a, b = np.ascontiguousarray(np.asarray(a)), np.ascontiguousarray(b.numpy())
    u = np.uint32 if a.dtype.itemsize == 4 else np.uint64
    return int((a.view(u) != b.view(u)).sum())
"""


def no_bad_under(capability: str, script: str) -> None:
    """Run ``script`` under ``ATEN_CPU_CAPABILITY=capability`` and check it exits cleanly and its last
    line reports no differing element."""
    env = dict(os.environ, ATEN_CPU_CAPABILITY=capability)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    line = done.stdout.strip().splitlines()[-1]
    assert line.startswith("BAD 0 "), line
