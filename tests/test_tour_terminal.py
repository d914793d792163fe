"""``strided tour`` and ``strided show`` in a real terminal: a pseudo-terminal of 80 and of 120
columns, each command run through ``strided.cli.main.main(argv)`` (what ``python -m strided.cli.main``
runs) in one child process whose terminal is resized before each, its output read back as the
terminal got it.

What must hold: no line is wider than the terminal (in display columns: a CJK character takes
two), and every picture of every step is there (when panels do not fit side by side they stack,
they are not cut). Pictures go through rich here (the output is a colour terminal), so the ANSI
escapes are stripped before measuring.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import sys
import time

import pytest

from strided.cli.render import display_width

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
# every panel has exactly one caption line like "shape (3, 4), strides (4, 1), offset 0, int64 (8 bytes each)"
# (in Chinese: "形状 (3, 4)，步长 (4, 1)，偏移 0，int64（每个元素 8 字节）")
CAPTION = re.compile(r"offset \d+, \w+ \(\d+ bytes each\)|偏移 \d+，\w+（每个元素 \d+ 字节）")
STEP = re.compile(r"^════ (?:Step|第) (\d+)/10")
# panels each step pictures: 1 x; 2 and 3 before and after; 7 the two stretched slices
PANELS = {1: 1, 2: 2, 3: 2, 7: 2}


# The commands run, each with its terminal width: every one in ONE child on ONE pseudo-terminal,
# resized before each (TIOCSWINSZ on the child's own terminal, as a window resize does), so Python,
# strided and torch (step 9) start once, not six times. The widths alternate, so a width read once
# and kept would show: a line too wide at 80 after 120, or no line past 80 at 120 after 80.
RUNS: list[tuple[tuple[str, ...], int]] = [
    (("tour", "--no-pause", "--lang", lang), cols) for lang in ("en", "zh") for cols in (80, 120)
] + [(("show", "arange(12).reshape(3,4).t().view(12)"), cols) for cols in (80, 120)]
MARK = "=== strided terminal run {} ==="
# the child: for each run, set its terminal's size, print a marker, run ``strided`` exactly as
# ``python -m strided.cli.main ARGS`` does (its ``main(argv)``), stop at the first non-zero code
CHILD = """\
import fcntl, json, struct, sys, termios
from strided.cli.main import main
for i, (args, cols) in enumerate(json.loads(sys.argv[1])):
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 50, cols, 0, 0))
    print(sys.argv[2].format(i), flush=True)
    code = main(list(args))
    sys.stdout.flush()
    if code:
        raise SystemExit(code)
"""


def run_in_terminal(runs: list[tuple[tuple[str, ...], int]], timeout: float = 240.0) -> list[str]:
    """Run each ``strided ARGS`` of ``runs`` on a pseudo-terminal ``cols`` wide (one child, the
    terminal resized before each); return what each printed (``\\r\\n`` read as ``\\n``,
    colours stripped), in order."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: its stdin, stdout and stderr are the terminal
        try:
            env = dict(os.environ, TERM="xterm-256color")
            env.pop("NO_COLOR", None)
            env.pop("COLUMNS", None)  # the width must come from the terminal itself
            os.execve(sys.executable, [sys.executable, "-c", CHILD, json.dumps(runs), MARK], env)
        finally:
            os._exit(127)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 1.0)
            if not ready:
                continue
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        else:
            os.kill(pid, 9)
            pytest.fail(f"{runs} did not finish in {timeout} s")
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0, b"".join(chunks)[-2000:].decode(errors="replace")
    text = ANSI.sub("", b"".join(chunks).decode("utf-8").replace("\r\n", "\n"))
    parts = re.split(r"^" + re.escape(MARK).replace(r"\{\}", r"\d+") + r"\n", text, flags=re.M)
    assert len(parts) == len(runs) + 1, text[-2000:]
    return parts[1:]


@pytest.fixture(scope="module")
def outputs() -> dict[tuple[tuple[str, ...], int], str]:
    """What each of RUNS printed, keyed by (args, cols)."""
    return dict(zip(RUNS, run_in_terminal(RUNS)))


def too_wide(output: str, cols: int) -> list[tuple[int, str]]:
    return [(display_width(line), line) for line in output.splitlines() if display_width(line) > cols]


def panels_per_step(output: str) -> dict[int, int]:
    counts: dict[int, int] = {}
    step = 0
    for line in output.splitlines():
        m = STEP.match(line)
        if m:
            step = int(m.group(1))
            counts[step] = 0
        counts[step] = counts.get(step, 0) + len(CAPTION.findall(line))
    return counts


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("cols", [80, 120])
def test_tour_fits_the_terminal(lang: str, cols: int, outputs: dict) -> None:
    output = outputs[(("tour", "--no-pause", "--lang", lang), cols)]
    assert too_wide(output, cols) == []
    counts = panels_per_step(output)
    assert sorted(counts) == list(range(1, 11)), "every step is printed"
    assert {n: c for n, c in counts.items() if c} == PANELS
    # the last words of the tour are there: nothing was lost at the end
    assert "strided watch" in output
    if cols > 80:  # the width is read, not assumed: at 120 columns prose fills more than 80
        assert max(display_width(line) for line in output.splitlines()) > 80


@pytest.mark.parametrize("cols", [80, 120])
def test_show_fits_the_terminal(cols: int, outputs: dict) -> None:
    output = outputs[(("show", "arange(12).reshape(3,4).t().view(12)"), cols)]
    assert too_wide(output, cols) == []
    # steps 0, 1 and 2 pictured; step 3 raised (its explanation, no picture)
    assert len(CAPTION.findall(output)) == 3
    assert "view size is not compatible" in output
