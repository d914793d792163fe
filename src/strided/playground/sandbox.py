"""The watch view's runner: a short strided program in a child process with limits.

:func:`run_watch` starts ``python -m strided.playground.child`` in a fresh temporary directory
(its working directory, removed afterwards), with a wall-clock limit (:data:`WALL_S`), a CPU
limit, an address-space limit (:data:`MEMORY_MB`), a small environment (no proxies, one BLAS
thread) and the guard of :mod:`.child` (no network, no processes, no writes outside the
temporary directory). It returns the child's shape-flow table as a JSON-ready dict.

    >>> r = run_watch("import strided\\nx = strided.ones(4, 1) + strided.ones(1, 3)")
    >>> r["ok"], r["bilateral"]
    (True, 1)
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["MAX_PROGRAM_CHARS", "MEMORY_MB", "WALL_S", "run_watch"]

WALL_S = 5.0
"""Wall-clock seconds a program may run (the child is killed after)."""
CPU_S = 5
MEMORY_MB = 1024
"""Address space of the child, MiB (numpy and strided take about 300 of it before the program starts)."""
MAX_PROGRAM_CHARS = 10_000
MAX_REPLY_BYTES = 2_000_000


def _env() -> dict[str, str]:
    """The child's environment: enough to find Python and strided, nothing else of ours."""
    src = str(Path(__file__).resolve().parents[2])  # the directory that holds the strided package
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": src, "PYTHONIOENCODING": "utf-8",
           "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    for keep in ("SYSTEMROOT", "LANG", "LC_ALL"):
        if keep in os.environ:
            env[keep] = os.environ[keep]
    return env


def run_watch(program: Any, *, wall_s: float = WALL_S, memory_mb: int = MEMORY_MB) -> dict[str, Any]:
    """Run ``program`` (Python source using ``strided``) under ``strided.watch`` in a sandboxed
    child; return ``{"ok", "error", "output", "table", "steps", "copies", "bytes_copied",
    "allocated", "peak", "bilateral"}`` (``table`` is ``str(w)``; each step row has ``copy``,
    ``alloc`` and ``bilateral`` flags). A program past a limit, refused by the guard or raising
    gives ``ok`` False and a one-line ``error`` (with what was recorded up to then, if any)."""
    if not isinstance(program, str) or not program.strip():
        return {"ok": False, "error": "paste a short strided program, e.g.\nimport strided\n"
                                      "x = strided.ones(4, 1) + strided.ones(1, 3)"}
    if len(program) > MAX_PROGRAM_CHARS:
        return {"ok": False, "error": f"the program has {len(program):,} characters; the watch view accepts at most "
                                      f"{MAX_PROGRAM_CHARS:,}"}
    marker = "@@strided-playground-" + secrets.token_hex(8) + "@@"
    with tempfile.TemporaryDirectory(prefix="strided-watch-") as tmp:
        cmd = [sys.executable, "-m", "strided.playground.child", str(CPU_S), str(memory_mb)]
        try:
            # TMPDIR: tempfile in the program makes its files inside the one directory it may write
            done = subprocess.run(cmd, input=(marker + "\n" + program).encode("utf-8"), capture_output=True,
                                  timeout=wall_s, cwd=tmp, env={**_env(), "TMPDIR": tmp}, check=False)
        except subprocess.TimeoutExpired:
            return {"ok": False, "error": f"stopped: the program ran past the {wall_s:g} s time limit of the watch view"}
    stdout = done.stdout[-MAX_REPLY_BYTES:].decode("utf-8", "replace")
    for line in reversed(stdout.splitlines()):
        if line.startswith(marker):
            try:
                return json.loads(line[len(marker):])
            except ValueError:
                break
    return {"ok": False, "error": _died(done.returncode, done.stderr.decode("utf-8", "replace"), memory_mb)}


def _died(code: int, stderr: str, memory_mb: int) -> str:
    """Why the child gave no result, in one line."""
    import signal

    if code in (-signal.SIGXCPU, -signal.SIGKILL) if hasattr(signal, "SIGXCPU") else ():
        return f"stopped: the program ran past the CPU time limit ({CPU_S} s) of the watch view"
    if "MemoryError" in stderr or code == -getattr(signal, "SIGSEGV", 11):
        return f"stopped: the program went past the memory limit ({memory_mb} MiB)"
    last = [line for line in stderr.strip().splitlines() if line.strip()]
    return f"the program's process ended without a result (exit {code}){': ' + last[-1] if last else ''}"
