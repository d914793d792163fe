"""The child process of the watch view (run as ``python -m strided.playground.child``): it runs
one short strided program under ``strided.watch`` and prints the shape flow as one JSON line.

Isolation, set up here before the user's code runs (the parent adds the wall-clock limit, a
fresh temporary directory as the working directory, and a small environment):

- CPU time (RLIMIT_CPU), address space (RLIMIT_AS) and file size (RLIMIT_FSIZE) limits;
- an audit hook (``sys.addaudithook``, which cannot be removed) that refuses every ``socket.*``
  event (no network), ``open`` for writing outside the temporary directory, file removal and
  renaming outside it, starting processes (``subprocess``, ``os.system``, ``os.exec*``,
  ``os.fork``, ``os.posix_spawn``) and ``ctypes`` calls;
- the program's prints go to a buffer capped at :data:`MAX_OUTPUT` characters.

Note: an audit hook is a guard rail for a local, single-user page, not a security boundary
against a determined attacker (CPython documents that hooks can be bypassed by native code).
The protocol: the program arrives on stdin after a first line holding a random marker; the
result is printed on stdout after that marker.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import sys
from typing import Any

MAX_OUTPUT = 20_000

_BLOCKED_PREFIXES = ("socket.", "subprocess.", "os.exec", "os.posix_spawn", "os.spawn", "ctypes.", "pty.",
                     "os.fork", "os.forkpty", "webbrowser.")
_BLOCKED = {"os.system", "os.kill", "os.killpg", "signal.pthread_kill", "shutil.rmtree", "os.chmod", "os.chown",
            "os.symlink", "os.link", "urllib.Request", "http.client.connect", "sys.addaudithook", "sqlite3.connect"}
_PATH_EVENTS = {"os.remove": 0, "os.rmdir": 0, "os.mkdir": 0, "os.rename": (0, 1), "os.replace": (0, 1),
                "os.truncate": 0, "os.utime": 0}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


class Refused(PermissionError):
    """What the guard raises: the message names what the watch view does not allow."""


def _inside(path: Any, root: str) -> bool:
    if isinstance(path, int):
        return True  # an already open descriptor (stdout, or one opened through the checks)
    try:
        real = os.path.realpath(os.fsdecode(path))
    except (TypeError, ValueError):
        return False
    return real == root or real.startswith(root + os.sep)


def install_guard(root: str) -> None:
    """Refuse network, processes and writes outside ``root`` for the rest of this process."""
    root = os.path.realpath(root)
    armed = [False]

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if not armed[0]:
            return
        if event.startswith("ctypes."):
            raise Refused(f"{event} is not allowed: the watch view loads no native libraries (so no PyTorch "
                          "either); it runs strided programs")
        if event in _BLOCKED or event.startswith(_BLOCKED_PREFIXES):
            raise Refused(f"{event} is not allowed in the playground's watch view (no network, no processes)")
        if event == "open":
            path, mode, flags = (tuple(args) + (None, None, None))[:3]
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & _WRITE_FLAGS)
            if writing and not _inside(path, root):
                raise Refused(f"writing {path!r} is not allowed: the watch view may write only in its "
                              f"temporary directory (the current directory)")
        elif event in _PATH_EVENTS:
            where = _PATH_EVENTS[event]
            for k in (where if isinstance(where, tuple) else (where,)):
                if k < len(args) and not _inside(args[k], root):
                    raise Refused(f"{event} on {args[k]!r} is not allowed outside the temporary directory")

    sys.addaudithook(hook)
    armed[0] = True


def set_limits(cpu_s: int, memory_bytes: int, file_bytes: int) -> None:
    """CPU seconds, address space and file size limits for this process (where the OS has them)."""
    try:
        import resource
    except ImportError:  # (not on Windows: the parent's wall-clock limit still applies)
        return
    for name, value in (("RLIMIT_CPU", cpu_s), ("RLIMIT_AS", memory_bytes), ("RLIMIT_FSIZE", file_bytes)):
        limit = getattr(resource, name, None)
        if limit is not None:
            resource.setrlimit(limit, (value, value))


class _Capped(io.TextIOBase):
    def __init__(self, cap: int) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.cap = cap
        self.cut = False

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        room = self.cap - self.size
        if room > 0:
            self.parts.append(s[:room])
            self.size += min(len(s), room)
        if len(s) > max(room, 0):
            self.cut = True
        return len(s)

    def text(self) -> str:
        return "".join(self.parts) + (f"\n… (output cut at {self.cap:,} characters)" if self.cut else "")


def _row(s: Any) -> dict[str, Any]:
    return {"index": s.index, "name": s.name, "kind": s.kind,
            "inputs": " ".join(str(t.shape) for t in s.inputs) or "-",
            "output": str(s.output.shape) if s.output else "-",
            "strides": str(s.output.strides) if s.output else "-",
            "bytes": s.bytes_copied if s.kind == "copy" else s.bytes_allocated,
            "marks": s.marks, "copy": s.kind == "copy", "alloc": s.kind == "alloc",
            "bilateral": bool(s.broadcast is not None and s.broadcast.bilateral),
            "where": s.where.rsplit("/", 1)[-1]}


def main() -> int:
    cpu_s, memory_mb = int(sys.argv[1]), int(sys.argv[2])
    marker = sys.stdin.readline().strip()
    program = sys.stdin.read()
    real_stdout = sys.stdout
    # the public face, as the user's program sees it (this is a process of its own, not a module the
    # layers import); imported before the limits: numpy maps more address space than the program gets
    strided = importlib.import_module("strided")

    set_limits(cpu_s, memory_mb * 2**20, 1 << 20)
    install_guard(os.getcwd())
    out = _Capped(MAX_OUTPUT)
    sys.stdout = sys.stderr = out
    error = ""
    w = None
    try:
        code = compile(program, "<program>", "exec")
        with strided.watch() as w:
            exec(code, {"__name__": "__main__", "strided": strided})  # the user's program: the point of the view
    except MemoryError:
        error = f"MemoryError: the program went past the memory limit ({memory_mb} MiB of address space)"
    except Refused as exc:
        error = f"refused: {exc}"
    except SyntaxError as exc:
        error = f"SyntaxError: {exc.msg} (line {exc.lineno})"
    except BaseException as exc:  # noqa: BLE001 - whatever the program raised is reported, not raised
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        error = f"{type(exc).__name__}: {first}"
    result: dict[str, Any] = {"ok": not error, "error": error, "output": out.text()}
    if w is not None:
        result.update(table=str(w), steps=[_row(s) for s in w.steps], copies=len(w.copies),
                      bytes_copied=w.bytes_copied, allocated=w.allocated_bytes, peak=w.peak_bytes,
                      bilateral=sum(1 for b in w.broadcasts if b.bilateral))
    real_stdout.write(marker + json.dumps(result) + "\n")
    real_stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
