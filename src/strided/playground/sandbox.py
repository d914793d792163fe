"""The watch view's runner: a short strided program in a child process behind an OS boundary.

:func:`run_watch` starts ``python -m strided.playground.child`` inside the boundary of
:mod:`.boundary` (bubblewrap namespaces + seccomp; its working directory a private tmpfs), with a
wall-clock limit (:data:`WALL_S`; the whole process group is killed at it), CPU, address-space,
file-size and open-file limits (:data:`MEMORY_MB`), a small environment, and at most
:data:`MAX_SANDBOXES` programs at a time (:class:`Busy` beyond). What comes back is read through
caps: the program's output (:data:`MAX_OUTPUT` characters shown, the rest drained and dropped)
and the result on its own pipe (:data:`MAX_RESULT_BYTES`), whose every field is type-checked
before it is returned (:func:`checked_result`): a program may lie about its own result, never
smuggle anything else through it.

Where the boundary cannot be set up (another OS, no user namespaces, no bubblewrap), the watch
view refuses programs unless the caller passes ``unsandboxed=True`` — the server does only when
its user started it with ``--allow-unsandboxed-watch`` and so accepted the risk.

    >>> r = run_watch("import strided\\nx = strided.ones(4, 1) + strided.ones(1, 3)")
    >>> r["ok"] or "watch view is off" in r["error"]
    True
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from .boundary import PACKAGE_PARENT, SANDBOX_TMP, command, probe, seccomp_filter

__all__ = ["MAX_OUTPUT", "MAX_PROGRAM_CHARS", "MAX_SANDBOXES", "MEMORY_MB", "WALL_S", "Busy", "checked_result",
           "off_reason", "run_watch"]

WALL_S = 10.0
"""Wall-clock seconds a program may run, its interpreter's start included (its whole process tree
is killed after). The CPU limit is tighter: what a program can do to the machine is CPU-bound."""
CPU_S = 5
MEMORY_MB = 1024
"""Address space of the child, MiB (numpy and strided take about 300 of it before the program starts)."""
MAX_PROGRAM_CHARS = 10_000
MAX_OUTPUT = 20_000
"""Characters of the program's own output shown; the rest is read and dropped."""
MAX_OUTPUT_BYTES = 4 * MAX_OUTPUT
MAX_RESULT_BYTES = 2_000_000
"""The most bytes of result the server reads from the child."""
MAX_ROWS = 5_000
"""The most shape-flow rows a result may carry (the child sends the first ones and the count of all)."""
MAX_STEPS = 1_000_000
"""The most steps a result may count (each has its two memory values; MAX_RESULT_BYTES binds first)."""
MAX_SANDBOXES = 2
"""Programs that may run at once; a further request gets :class:`Busy` (HTTP 429)."""

_SLOTS = threading.BoundedSemaphore(MAX_SANDBOXES)
_PIPE_BUFFER = 65536  # Linux's default pipe capacity
_KILL_WAIT_S = 5.0


class Busy(RuntimeError):
    """Every sandbox slot is taken: try again when a running program has finished."""


def _env(tmp: str) -> dict[str, str]:
    """The child's environment: enough to find Python and strided, nothing else of ours."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(PACKAGE_PARENT), "PYTHONIOENCODING": "utf-8", "PYTHONHASHSEED": "0",
           "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1", "HOME": tmp, "TMPDIR": tmp}
    for keep in ("SYSTEMROOT", "LANG", "LC_ALL"):
        if keep in os.environ:
            env[keep] = os.environ[keep]
    return env


def off_reason(why: str) -> str:
    """The one line that says the watch view is off here, why, and the way to accept the risk."""
    return (f"the watch view is off: this machine cannot isolate a program ({why}); "
            "`strided playground --allow-unsandboxed-watch` runs programs without that boundary, at your own risk")


def _refusal(program: Any) -> str:
    if not isinstance(program, str) or not program.strip():
        return "paste a short strided program, e.g.\nimport strided\nx = strided.ones(4, 1) + strided.ones(1, 3)"
    if len(program) > MAX_PROGRAM_CHARS:
        return (f"the program has {len(program):,} characters; the watch view accepts at most "
                f"{MAX_PROGRAM_CHARS:,}")
    try:
        program.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"the program is not UTF-8 text (character {exc.start + 1} is a lone surrogate)"
    return ""


def run_watch(program: Any, *, wall_s: float = WALL_S, memory_mb: int = MEMORY_MB,
              unsandboxed: bool = False) -> dict[str, Any]:
    """Run ``program`` (Python source using ``strided``) under ``strided.watch`` behind the OS
    boundary; return ``{"ok", "error", "output", "table", "steps", "copies", "bytes_copied",
    "allocated", "peak", "bilateral", "regroups", "summary", "memory"}`` (``table`` is ``str(w)``; each
    step row has ``copy``, ``alloc`` and ``bilateral`` flags; ``summary`` the rows of ``w.summary()``
    (:func:`strided.diagnose.html.summary_rows`: ``line``, ``module``, ``op``, ``count``, ``category``,
    ``bytes``, ``reason``, ``fix``); ``memory`` the numbers of the memory-over-time plot,
    :meth:`strided.diagnose.plot.MemorySeries.as_dict`). A program past a limit, refused by the boundary or raising
    gives ``ok`` False and a one-line ``error`` (with what was recorded up to then, if any).

    Raises :class:`Busy` when :data:`MAX_SANDBOXES` programs are already running. Without the
    boundary (see :func:`.boundary.probe`) it refuses unless ``unsandboxed`` is True.
    """
    refused = _refusal(program)
    if refused:
        return {"ok": False, "error": refused}
    boundary = probe()
    if not boundary.available and not unsandboxed:
        return {"ok": False, "error": off_reason(boundary.reason)}
    if not _SLOTS.acquire(blocking=False):
        raise Busy(f"{MAX_SANDBOXES} programs are already running; try again when one has finished")
    try:
        if boundary.available:  # its /tmp is a tmpfs inside the boundary: nothing on the host's disk
            return _run(program, "/", wall_s, memory_mb, boundary.bwrap)
        with tempfile.TemporaryDirectory(prefix="strided-watch-", ignore_cleanup_errors=True) as tmp:
            return _run(program, tmp, wall_s, memory_mb, "")
    finally:
        _SLOTS.release()


def _run(program: str, cwd: str, wall_s: float, memory_mb: int, bwrap: str) -> dict[str, Any]:
    result_r, result_w = os.pipe()
    # the child writes its result to result_w, a descriptor it is told by number (pass_fds keeps it)
    argv = [sys.executable, "-s", "-m", "strided.playground.child", str(CPU_S), str(memory_mb), str(result_w)]
    # the program arrives on a pipe, never a file of the host's (a file descriptor to the host's disk
    # would let it fallocate the disk full); it fits the pipe's buffer, so the write cannot block
    source = program.encode("utf-8")
    assert len(source) <= 4 * MAX_PROGRAM_CHARS < _PIPE_BUFFER
    stdin, stdin_w = os.pipe()
    os.write(stdin_w, source)
    os.close(stdin_w)
    with tempfile.TemporaryFile() as rules:
        pass_fds: tuple[int, ...] = (result_w,)
        if bwrap:
            seccomp_filter(rules)
            rules.seek(0)
            pass_fds += (rules.fileno(),)
            argv = command(bwrap, argv, seccomp_fd=rules.fileno())
        env = _env(SANDBOX_TMP if bwrap else cwd)
        try:
            proc = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    cwd=cwd, env=env, pass_fds=pass_fds, start_new_session=True)
        finally:
            os.close(result_w)
            os.close(stdin)
        try:
            output, result, timed_out = _read_capped(proc, result_r, wall_s)
        finally:
            os.close(result_r)
            _kill_group(proc)
    if timed_out:
        return {"ok": False, "error": f"stopped: the program ran past the {wall_s:g} s time limit of the watch view",
                "output": output}
    answer = checked_result(result) if result is not None else None
    if answer is None:
        return {"ok": False, "error": _died(proc.returncode, output, memory_mb, result), "output": output}
    answer["output"] = output
    return answer


def _read_capped(proc: subprocess.Popen[bytes], result_fd: int, wall_s: float
                 ) -> tuple[str, bytes | None, bool]:
    """Read the program's output and the result pipe until both close or the time is up.

    Returns (output text cut at MAX_OUTPUT characters, the result bytes or None when it went past
    MAX_RESULT_BYTES, whether the time ran out). What is past a cap is read and dropped, so a
    flooding program neither blocks nor grows the server.
    """
    assert proc.stdout is not None
    deadline = time.monotonic() + wall_s
    out, res = bytearray(), bytearray()
    out_cut = res_cut = False
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout.fileno(), selectors.EVENT_READ, "out")
        sel.register(result_fd, selectors.EVENT_READ, "result")
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return _text(out, out_cut), None, True
            for key, _ in sel.select(left):
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    sel.unregister(key.fd)
                elif key.data == "out":
                    room = MAX_OUTPUT_BYTES - len(out)
                    out += chunk[:max(room, 0)]
                    out_cut = out_cut or len(chunk) > room
                else:
                    room = MAX_RESULT_BYTES - len(res)
                    res += chunk[:max(room, 0)]
                    res_cut = res_cut or len(chunk) > room
    try:
        proc.wait(max(deadline - time.monotonic(), 0.01))
    except subprocess.TimeoutExpired:
        return _text(out, out_cut), None, True
    return _text(out, out_cut), (None if res_cut else bytes(res)), False


def _text(raw: bytearray, cut: bool) -> str:
    text = raw.decode("utf-8", "replace")
    if cut or len(text) > MAX_OUTPUT:
        return text[:MAX_OUTPUT] + f"\n… (output cut at {MAX_OUTPUT:,} characters)"
    return text


def _descendants(pid: int) -> list[int]:
    """Every living descendant of ``pid`` (Linux: /proc/PID/task/*/children), depth first."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        for children in Path(f"/proc/{parent}/task").glob("*/children"):
            try:
                kids = [int(k) for k in children.read_text().split()]
            except (OSError, ValueError):
                continue
            found += kids
            todo += kids
    return found


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")  # a zombie is dead: only its exit status waits to be collected


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the child's whole process group and every process below it, and wait until they are dead.

    The boundary starts the program in a session of its own inside a pid namespace: its pid-1
    dies with bwrap (and takes the namespace with it), but that teardown is the kernel's and
    asynchronous, so the descendants are killed by pid too and waited for.
    """
    tree = _descendants(proc.pid)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for pid in tree:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        proc.wait(_KILL_WAIT_S)
    except subprocess.TimeoutExpired:  # pragma: no cover - a process that survives SIGKILL
        pass
    deadline = time.monotonic() + _KILL_WAIT_S
    while any(not _gone(pid) for pid in tree) and time.monotonic() < deadline:
        time.sleep(0.01)
    if proc.stdout is not None:
        proc.stdout.close()


_ROW_FIELDS: dict[str, type | tuple[type, ...]] = {
    "index": int, "name": str, "kind": str, "inputs": str, "output": str, "strides": str, "bytes": int,
    "marks": str, "copy": bool, "alloc": bool, "bilateral": bool, "where": str}
_TOTALS = ("copies", "bytes_copied", "allocated", "peak", "bilateral")
_COPY_KINDS = ("layout", "new", "data")
_SUMMARY_FIELDS: dict[str, type | tuple[type, ...]] = {
    "line": str, "module": str, "op": str, "count": int, "category": str, "bytes": int, "reason": str, "fix": str}


def _is(value: Any, kind: type | tuple[type, ...]) -> bool:
    # bool is an int in Python: an int field must not take True, a bool field takes only bools
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


def checked_result(raw: bytes) -> dict[str, Any] | None:
    """The child's result, rebuilt field by field from the JSON in ``raw`` with every type checked,
    or None when it is not exactly the shape :mod:`.child` writes (a program can forge its own
    result, so the server trusts nothing in it but types; the page escapes every string)."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):  # (a forged result nested 10^5 deep)
        return None
    if not isinstance(data, dict) or not _is(data.get("ok"), bool) or not _is(data.get("error"), str):
        return None
    answer: dict[str, Any] = {"ok": data["ok"], "error": data["error"]}
    if "steps" not in data:
        return answer
    steps, table = data.get("steps"), data.get("table")
    if not isinstance(steps, list) or len(steps) > MAX_ROWS or not _is(table, str):
        return None
    rows = _checked_rows(steps, _ROW_FIELDS)
    if rows is None or not all(_is(data.get(k), int) for k in _TOTALS):
        return None
    answer.update(table=table, steps=rows, **{k: data[k] for k in _TOTALS})
    total = data.get("steps_total", len(rows))  # (optional: more steps ran than the rows sent)
    if not _is(total, int) or not len(rows) <= total <= MAX_STEPS or (total > len(rows) < MAX_ROWS):
        return None
    if "steps_total" in data:
        answer["steps_total"] = total
    if "summary" in data or "regroups" in data:  # (together: the per-line summary and its regroup count)
        summary = data.get("summary")
        summary = _checked_rows(summary, _SUMMARY_FIELDS) if isinstance(summary, list) else None
        if summary is None or not _is(data.get("regroups"), int):
            return None
        answer.update(summary=summary, regroups=data["regroups"])
    if "copy_kinds" in data:  # (optional: the copies split into layout copies, new results, data copied in)
        kinds = data["copy_kinds"]
        if (not isinstance(kinds, dict) or set(kinds) != set(_COPY_KINDS)
                or not all(_is(kinds[k], int) and kinds[k] >= 0 for k in _COPY_KINDS)
                or sum(kinds.values()) > answer["copies"]):
            return None
        answer["copy_kinds"] = {k: kinds[k] for k in _COPY_KINDS}
    if "memory" in data:  # (optional: the memory-over-time plot's numbers)
        memory = _checked_memory(data["memory"], total)
        if memory is None:
            return None
        answer["memory"] = memory
    return answer


def _checked_rows(rows: list[Any], fields: dict[str, type | tuple[type, ...]]) -> list[dict[str, Any]] | None:
    """``rows`` rebuilt as dicts of exactly ``fields``, each of its type; None when one is not
    (or when there are more than :data:`MAX_ROWS`)."""
    if len(rows) > MAX_ROWS:
        return None
    out = []
    for row in rows:
        if not isinstance(row, dict) or set(row) != set(fields):
            return None
        if not all(_is(row[k], kind) for k, kind in fields.items()):
            return None
        out.append({k: row[k] for k in fields})
    return out


_MEMORY_FIELDS: dict[str, type] = {"peak_step": int, "peak_bytes": int, "peak_where": str, "peak_op": str,
                                   "title": str, "exact_live": bool}


MAX_BYTES = 2**63 - 1
"""The most bytes a memory value of a result may say (an int64's range, as the watch counts them)."""


def _is_bytes(value: Any) -> bool:
    return _is(value, int) and 0 <= value <= MAX_BYTES


def _checked_memory(memory: Any, n: int) -> dict[str, Any] | None:
    """The memory series of :func:`strided.diagnose.plot.MemorySeries.as_dict`, every field's type
    checked (two lists of ``n`` ints and the peak's fields), or None."""
    if not isinstance(memory, dict) or set(memory) != {"allocated", "live", *_MEMORY_FIELDS}:
        return None
    series = [memory["allocated"], memory["live"]]
    if not all(isinstance(v, list) and len(v) == n and all(_is_bytes(x) for x in v) for v in series):
        return None
    if not all(_is(memory[k], kind) for k, kind in _MEMORY_FIELDS.items()):
        return None
    # the plot divides by these and places the peak at its step: a forged 10**400 or a step past
    # the end would crash the renderer (a 500) instead of being refused here
    if not _is_bytes(memory["peak_bytes"]) or not -1 <= memory["peak_step"] < n:
        return None
    return {"allocated": list(series[0]), "live": list(series[1]), **{k: memory[k] for k in _MEMORY_FIELDS}}


def _died(code: int | None, output: str, memory_mb: int, result: bytes | None) -> str:
    """Why the child gave no (readable) result, in one line."""
    if result:
        return "the program's process sent a result the watch view cannot read (it is checked field by field)"
    if result is None:
        return f"the program's result went past {MAX_RESULT_BYTES:,} bytes; the watch view shows smaller programs"
    sigs = {getattr(signal, "SIGXCPU", 24), signal.SIGKILL}
    if code is not None and (-code in sigs or code - 128 in sigs):
        return f"stopped: the program ran past the CPU time limit ({CPU_S} s) of the watch view"
    if "MemoryError" in output:
        return f"stopped: the program went past the memory limit ({memory_mb} MiB)"
    last = [line for line in output.strip().splitlines() if line.strip()]
    return f"the program's process ended without a result (exit {code}){': ' + last[-1] if last else ''}"
