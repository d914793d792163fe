"""Red-team findings against issue 24's diagnostics (summaries, HTML, plots, the watch view).

Each test pins one finding that was a crash or a wrong number before its fix:

- a forged child result (the watch view's child is untrusted) with a memory series the plot
  cannot draw (a 10**400 byte count, a peak step past the end) crashed the renderer (an HTTP 500)
  instead of being refused by ``checked_result``;
- ``strided watch --html`` on a script whose file name is not UTF-8 crashed with
  UnicodeEncodeError and left an empty report file;
- the notebook/report HTML printed every summary line (a 3,000-line program: 740 KB of HTML);
- a negative ``limit`` (``%%watch --limit -3``) showed the wrong rows and counted the rest wrong
  ("… 13 more steps" for 10 steps).
"""

from __future__ import annotations

import io
import json
import os
import re
import sys

import pytest

import strided
from strided.diagnose.html import watch_html
from strided.diagnose.magics import _parser, summary_text
from strided.playground.render import watch_html as page_watch_html
from strided.playground.sandbox import checked_result

# ---------------------------------------------------------------------------- forged child results

_STEP = {"index": 0, "name": "zeros", "kind": "alloc", "inputs": "-", "output": "(2,)", "strides": "(1,)",
         "bytes": 8, "marks": "", "copy": False, "alloc": True, "bilateral": False, "where": "x.py:1"}
_RESULT = {"ok": True, "error": "", "steps": [_STEP, dict(_STEP, index=1)], "table": "t", "copies": 0,
           "bytes_copied": 0, "allocated": 16, "peak": 16, "bilateral": 0}
_MEMORY = {"allocated": [8, 16], "live": [8, 16], "peak_step": 1, "peak_bytes": 16, "peak_where": "x.py:1",
           "peak_op": "zeros", "title": "watch", "exact_live": True}


def _forged(**memory: object) -> bytes:
    return json.dumps(dict(_RESULT, memory=dict(_MEMORY, **memory))).encode()


def test_an_honest_memory_series_is_accepted_and_drawn() -> None:
    answer = checked_result(_forged())
    assert answer is not None and answer["memory"]["peak_bytes"] == 16
    assert 'data-peak-step="1"' in page_watch_html(answer)


@pytest.mark.parametrize("memory", [
    {"peak_bytes": 10**400}, {"allocated": [8, 10**400]}, {"live": [8, 10**30]}, {"peak_bytes": -16},
    {"allocated": [-8, 16]}, {"peak_step": 2}, {"peak_step": 10**400}, {"peak_step": -2},
], ids=["huge-peak", "huge-allocated", "past-int64-live", "negative-peak", "negative-allocated",
        "peak-past-end", "peak-huge-step", "peak-before-start"])
def test_a_forged_memory_series_is_refused_not_a_crash(memory: dict) -> None:
    # before: accepted, then memory_svg raised OverflowError (the server answered 500)
    assert checked_result(_forged(**memory)) is None


# ---------------------------------------------------------------------------- strided watch --html


# (collected on Linux only: other systems' file systems refuse a file name that is not UTF-8)
if sys.platform == "linux":
    def test_watch_html_writes_a_report_for_a_file_name_that_is_not_utf8(tmp_path) -> None:
        from strided.cli.watch_script import watch_command

        name = os.fsdecode(b"a\xffb.py")  # (the undecodable byte arrives as the lone surrogate \udcff)
        script = tmp_path / name
        script.write_text("import strided\nx = strided.ones(3, 4).t().contiguous()\n")
        report = tmp_path / "out.html"
        out, err = io.StringIO(), io.StringIO()
        assert watch_command(str(script), [], torch=False, out=out, err=err, html=str(report)) == 0
        page = report.read_text(encoding="utf-8")  # valid UTF-8, the byte shown as its escape
        assert "a\\udcffb.py" in page and "<svg" in page and "contiguous" in page
        # the printed report too: a strict UTF-8 terminal (en_US.UTF-8's stdout) refused it before
        out.getvalue().encode("utf-8")
        assert "a\\udcffb.py:2" in out.getvalue()


# ---------------------------------------------------------------------------- bounded HTML, limits


def _watch_of_many_lines(lines: int) -> strided.diagnose.watch.Watch:
    source = "x = strided.ones(2, 2)\n" + "".join(f"y{i} = x.t().contiguous()\n" for i in range(lines))
    with strided.watch() as w:
        exec(compile(source, "many.py", "exec"), {"strided": strided})
    return w


def test_the_summary_in_html_stops_at_the_limit_and_counts_the_rest() -> None:
    w = _watch_of_many_lines(60)
    assert len(w.summary()) == 61  # 60 copies and the ones()
    html = watch_html(w, limit=10)
    summary = html.split("<b>per line</b>", 1)[1].split("<details>", 1)[0]
    assert summary.count("<tr") == 1 + 10  # the header and 10 lines
    assert "… 51 more lines" in summary
    assert "… 111 more steps" in html  # 121 steps, 10 shown


@pytest.mark.parametrize("render", [lambda w: watch_html(w, limit=-3), lambda w: summary_text(w, limit=-1)],
                         ids=["watch_html", "summary_text"])
def test_a_negative_limit_is_refused(render) -> None:
    with strided.watch() as w:
        for _ in range(10):
            strided.zeros(2)
    # before: rows[:-3] showed 7 rows and said "… 13 more steps"
    with pytest.raises(ValueError, match="limit must be 0 or more"):
        render(w)


def test_the_magics_refuse_a_negative_limit() -> None:
    import argparse

    with pytest.raises(argparse.ArgumentError, match="--limit"):
        _parser("watch").parse_args(["--limit", "-3"])
    assert _parser("watch").parse_args(["--limit", "0"]).limit == 0


def test_limit_zero_shows_no_rows_and_counts_them_all() -> None:
    w = _watch_of_many_lines(3)
    html = watch_html(w, limit=0)
    assert "<b>per line</b>" not in html and "… 4 more lines" in html
    assert re.search(r"… 7 more steps", html)


# ---------------------------------------------------------------------------- a long program in the watch view


def test_a_forged_step_count_is_refused() -> None:
    from strided.playground.sandbox import MAX_ROWS

    two = dict(_RESULT, memory=_MEMORY)
    assert checked_result(json.dumps(dict(two, steps_total=2)).encode())["steps_total"] == 2
    for total in (1, 3, True, "2", 10**7):  # fewer than the rows; more though not capped; not a count
        assert checked_result(json.dumps(dict(two, steps_total=total)).encode()) is None
    rows = [dict(_STEP, index=i) for i in range(MAX_ROWS)]
    memory = dict(_MEMORY, allocated=[8] * (MAX_ROWS + 7), live=[8] * (MAX_ROWS + 7), peak_step=MAX_ROWS + 6)
    capped = dict(_RESULT, steps=rows, steps_total=MAX_ROWS + 7, memory=memory)
    answer = checked_result(json.dumps(capped).encode())
    assert answer is not None and len(answer["memory"]["live"]) == MAX_ROWS + 7
    assert f"… 7 more steps (the table shows the first {MAX_ROWS:,} of {MAX_ROWS + 7:,})" in page_watch_html(answer)
    # the memory series must cover every step counted
    assert checked_result(json.dumps(dict(capped, memory=dict(memory, allocated=[8] * MAX_ROWS))).encode()) is None


def test_a_program_of_more_steps_than_the_table_shows_runs_in_the_watch_view() -> None:
    from strided.playground.sandbox import MAX_ROWS, run_watch

    # before: the child sent every row, the parent refused them all ("sent a result the watch
    # view cannot read", as for a forged one)
    program = f"import strided\nx = strided.ones(2, 2)\nfor i in range({MAX_ROWS}):\n    y = x.t()\n"
    r = run_watch(program, unsandboxed=True)  # (our own program: run as the test's user)
    assert r["ok"], r["error"]
    assert len(r["steps"]) == MAX_ROWS and r["steps_total"] == MAX_ROWS + 1
    assert len(r["memory"]["live"]) == MAX_ROWS + 1 and r["memory"]["peak_bytes"] == 16


# ---------------------------------------------------------------------------- SVG stays well-formed


@pytest.mark.parametrize("odd", ["a\x1bb.py:1", "a\x00b.py:2", "a\udcffb.py:3", "a<b>&c.py:4"])
def test_the_memory_plot_stays_an_svg_document_whatever_a_file_name_holds(odd: str) -> None:
    import xml.etree.ElementTree as ET

    from strided.diagnose.plot import MemorySeries, memory_svg

    # before: a control character went into the text as it was, and no XML reader took the file
    root = ET.fromstring(memory_svg(MemorySeries((8, 16), (8, 16), 1, 16, odd, "zeros", title=odd)))
    label = next(t for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "peak-label")
    assert label.text.endswith(odd.rsplit("/", 1)[-1].translate({0: 0xFFFD, 0x1B: 0xFFFD, 0xDCFF: 0xFFFD}))


# ---------------------------------------------------------------------------- copies told apart everywhere


def test_the_html_and_the_magic_count_new_results_apart_from_layout_copies_as_print_does() -> None:
    x, idx = strided.ones(4, 3), strided.tensor([0, 2, 3])
    with strided.watch() as w:
        for _ in range(2):
            y = x.t().contiguous()                     # a layout copy, 48 bytes
            z = x[idx]                                 # a new result, 36 bytes
    split = "4 copies (2 layout, 96 bytes; 2 new results, 72 bytes)"
    assert f"total: {split}, 168 bytes copied" in str(w)
    # before: "4 copies, 168 B copied" in the HTML and "4 copies (168 bytes copied)" under the cell:
    # the X[idx] results drowned the copies to hunt, as the issue says
    assert f'<div class="totals">{split}, 168 B copied' in watch_html(w)
    assert summary_text(w).splitlines()[0] == f"watch: 6 steps, {split}, 168 bytes copied, 168 bytes allocated, peak 132"
    assert (y.shape, z.shape) == ((3, 4), (3, 3))
