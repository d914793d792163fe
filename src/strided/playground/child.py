"""The child process of the watch view (``python -m strided.playground.child CPU_S MEMORY_MB FD``):
it runs one short strided program under ``strided.watch`` and writes the shape flow as JSON to
the file descriptor ``FD`` (a pipe the parent reads).

The program arrives on stdin. Its own prints go to stdout and stderr, which the parent reads
through a cap; the result goes to its own descriptor, so nothing the program prints can be mistaken for
it. Note: the program runs in this interpreter, so it can always write to that descriptor itself and
lie about its own result. That is harmless by design: the parent type-checks every field of the
result and the page escapes every one; the program's reach is held by the operating-system
boundary around this whole process (:mod:`.boundary`), not by anything in here.

Before the program runs, this process sets its own CPU time, address space, open files, file
size and process limits (after importing strided: NumPy maps more address space than the program is given).
Every capability was dropped by the boundary, so the program cannot raise them again.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from typing import Any

from .sandbox import MAX_ROWS  # (stdlib only: the parent's cap on the rows it reads)

MAX_FILE_BYTES = 1 << 20
MAX_OPEN_FILES = 256
MAX_PENDING_SIGNALS = 64
MAX_TASKS = 64
"""RLIMIT_NPROC (the sandbox's seccomp filter already refuses new processes and threads; this
holds where the program runs without it, for a user that is not root)."""


def set_limits(cpu_s: int, memory_bytes: int) -> None:
    """CPU seconds, address space, file size and open-file limits for this process (soft = hard)."""
    try:
        import resource
    except ImportError:  # (not on Windows: the parent's wall-clock limit still applies)
        return
    for name, value in (("RLIMIT_CPU", cpu_s), ("RLIMIT_AS", memory_bytes), ("RLIMIT_FSIZE", MAX_FILE_BYTES),
                        ("RLIMIT_NOFILE", MAX_OPEN_FILES), ("RLIMIT_CORE", 0), ("RLIMIT_NPROC", MAX_TASKS),
                        # pending signals and timers count against the server user's quota too
                        ("RLIMIT_SIGPENDING", MAX_PENDING_SIGNALS)):
        limit = getattr(resource, name, None)
        if limit is not None:
            resource.setrlimit(limit, (value, value))


def _row(s: Any) -> dict[str, Any]:
    return {"index": s.index, "name": s.name, "kind": s.kind,
            "inputs": " ".join(str(t.shape) for t in s.inputs) or "-",
            "output": str(s.output.shape) if s.output else "-",
            "strides": str(s.output.strides) if s.output else "-",
            "bytes": s.bytes_copied if s.kind == "copy" else s.bytes_allocated,
            "marks": s.marks, "copy": s.kind == "copy", "alloc": s.kind == "alloc",
            "bilateral": bool(s.broadcast is not None and s.broadcast.bilateral),
            "where": s.where.rsplit("/", 1)[-1]}


def _summary_row(r: Any) -> dict[str, Any]:
    """A row of the summary (:func:`strided.diagnose.html.summary_rows`: ``w.summary()`` with its
    lines shortened) as JSON."""
    return {"line": r.line, "module": r.module, "op": r.op, "count": r.count, "category": r.category,
            "bytes": r.bytes, "reason": r.reason, "fix": r.fix}


def _error_line(exc: BaseException, memory_mb: int) -> str:
    if isinstance(exc, MemoryError):
        return f"MemoryError: the program went past the memory limit ({memory_mb} MiB of address space)"
    if isinstance(exc, SyntaxError):
        return f"SyntaxError: {exc.msg} (line {exc.lineno})"
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first}"


def main() -> int:
    cpu_s, memory_mb, result_fd = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    result_out = os.fdopen(result_fd, "w", encoding="utf-8")
    program = sys.stdin.read()
    # the public face, as the user's program sees it; imported before the limits (see the module doc)
    strided = importlib.import_module("strided")
    plot = importlib.import_module("strided.diagnose.plot")  # (the memory series, read after the program)
    html = importlib.import_module("strided.diagnose.html")  # (the summary's rows, likewise)
    summary = importlib.import_module("strided.diagnose.summary")  # (the copies' kinds, likewise)
    set_limits(cpu_s, memory_mb * 2**20)
    error = ""
    w = None
    try:
        code = compile(program, "<program>", "exec")
        with strided.watch() as w:
            exec(code, {"__name__": "__main__", "strided": strided})  # the user's program: the point of the view
    except BaseException as exc:  # noqa: BLE001 - whatever the program raised is reported, not raised
        error = _error_line(exc, memory_mb)
    sys.stdout.flush()
    result: dict[str, Any] = {"ok": not error, "error": error}
    if w is not None:
        # the first MAX_ROWS steps (the parent refuses more), the count of all of them, and the
        # memory of every step (the plot is of the whole run)
        steps = w.steps
        result.update(table=str(w), steps=[_row(s) for s in steps[:MAX_ROWS]], steps_total=len(steps),
                      copies=len(w.copies), copy_kinds=summary.copy_kinds(w),
                      bytes_copied=w.bytes_copied, allocated=w.allocated_bytes, peak=w.peak_bytes,
                      bilateral=sum(1 for b in w.broadcasts if b.bilateral), regroups=len(w.regroups),
                      summary=[_summary_row(r) for r in html.summary_rows(w)],
                      memory=plot.memory_series(w).as_dict())
    result_out.write(json.dumps(result))
    result_out.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
