"""Run a script in fresh Python processes under different environments and collect its output:
for the compiled kernels' copies that are picked once, at import or first call, by the CPU and
an environment variable (STRIDED_NATIVE_NO_FMA3, STRIDED_NATIVE_COPY_ISA, ...), so a test
compares them by running the same script under each."""

from __future__ import annotations

import os
import subprocess
import sys


def outputs(script: str, *envs: dict[str, str]) -> list[str]:
    """The standard output of ``python -c script`` run once per environment in ``envs`` (each
    added to this process's environment); a failing run raises CalledProcessError."""
    return [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                           env={**os.environ, **extra}).stdout for extra in envs]
