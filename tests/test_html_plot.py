"""The notebook HTML and the pictures behind it (issue 24): the memory-over-time plot, the autograd
graph picture, the watch / explanation / einsum-plan HTML, and the escaping of every text in them.

The SVG is parsed as XML (so a stray ``<`` from a name would fail here before a browser saw it);
the oracle for positions is the plot's own scale, recomputed from the numbers it was given.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

import strided
from strided.diagnose.flow import MemoryTally, Step
from strided.diagnose.html import explanation_html, report_page, summary_rows, watch_html
from strided.diagnose.plot import HEIGHT, MemorySeries, format_bytes, memory_series, memory_svg

SVG = "{http://www.w3.org/2000/svg}"


def _svg(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == f"{SVG}svg"
    assert float(root.get("width")) > 0 and float(root.get("height")) > 0
    return root


def _peak(root: ET.Element) -> ET.Element | None:
    return next((c for c in root.iter(f"{SVG}circle") if c.get("class") == "peak"), None)


# ---------------------------------------------------------------------------- the timeline


def test_the_timeline_stamps_each_change_with_the_step_being_recorded() -> None:
    with strided.watch() as w:
        a = strided.zeros(100)          # step 0: 400 B alive
        b = a + 1                       # step 1: 800
        del a                           # freed before step 2: 400
        c = b * 2                       # step 2: 800
        d = strided.zeros(300)          # step 3: 2,000 -- the peak
        del b, c, d
    assert w.memory.peak_step == 3 and w.peak_bytes == 2000
    s = memory_series(w)
    assert s.allocated == (400, 800, 1200, 2400)
    assert s.live == (400, 800, 800, 2000)
    assert (s.peak_step, s.peak_bytes, s.peak_op) == (3, 2000, "zeros")
    assert s.peak_where.endswith(f"test_html_plot.py:{_line_of('d = strided.zeros(300)')}")


def _line_of(text: str) -> int:
    with open(__file__, encoding="utf-8") as f:
        return next(i for i, line in enumerate(f, 1) if text in line and "_line_of" not in line)


def test_a_tally_without_a_clock_keeps_no_timeline() -> None:
    tally = MemoryTally()
    tally.transient(8)
    tally.released(8)
    assert tally.timeline == [] and tally.peak_step == -1 and tally.peak_bytes == 8


def test_watch_torch_has_the_same_timeline() -> None:
    torch = pytest.importorskip("torch")
    with strided.watch_torch() as w:
        x = torch.zeros(100)            # 400
        y = x + 1                       # 800, the peak
        del x
        z = y * 2                       # 400 freed, 400 made: 800 again, not a new peak
        del y, z
    s = memory_series(w)
    assert s.allocated == (400, 800, 1200)
    assert s.live == (400, 800, 800)
    assert s.peak_step == 1 and s.peak_bytes == 800


# ---------------------------------------------------------------------------- the plot


def test_the_peak_marker_sits_at_the_peak_step() -> None:
    series = MemorySeries((10, 30, 60, 70), (10, 30, 50, 20), 2, 50, "/home/u/train.py:7", "mm")
    root = _svg(memory_svg(series))
    peak = _peak(root)
    assert peak is not None and peak.get("data-step") == "2" and root.get("data-peak-step") == "2"
    # the marker's x is step 2 of 0..3 on the axis, its y 50 bytes on a 0..70 scale
    line = next(p for p in root.iter(f"{SVG}polyline") if p.get("class") == "live")
    xs = [float(p.split(",")[0]) for p in line.get("points").split()]
    ys = [float(p.split(",")[1]) for p in line.get("points").split()]
    assert float(peak.get("cx")) == pytest.approx(xs[2])
    assert float(peak.get("cy")) == pytest.approx(ys[2])
    assert ys[2] < ys[1] < ys[0] and ys[3] > ys[2]  # higher bytes are drawn higher up
    label = next(t for t in root.iter(f"{SVG}text") if t.get("class") == "peak-label").text
    assert label == "peak 50 B at step 2 (mm), train.py:7"


def test_an_empty_watch_draws_a_picture_that_says_so() -> None:
    with strided.watch() as w:
        pass
    root = _svg(memory_svg(w))
    assert root.get("data-steps") == "0" and _peak(root) is None
    assert any(t.text == "no steps recorded" for t in root.iter(f"{SVG}text"))


def test_views_only_draws_no_peak() -> None:
    x = strided.zeros(4)
    with strided.watch() as w:
        x.view(2, 2)
    root = _svg(memory_svg(w))
    assert root.get("data-steps") == "1" and _peak(root) is None
    assert any(t.text == "no memory allocated" for t in root.iter(f"{SVG}text"))


def test_one_step_is_a_dot_with_its_peak() -> None:
    with strided.watch() as w:
        strided.ones(5)
    root = _svg(memory_svg(w))
    peak = _peak(root)
    assert peak is not None and peak.get("data-step") == "0"
    assert not list(root.iter(f"{SVG}polyline"))  # (one point: no line to draw)
    assert float(peak.get("cx")) == pytest.approx(float(root.get("width")) / 2 + (70 - 20) / 2)


def test_many_steps_are_bucketed_but_the_peak_keeps_its_step() -> None:
    n = 5000
    live = tuple(100 + (i % 7) for i in range(n))
    live = live[:4321] + (999,) + live[4322:]
    root = _svg(memory_svg(MemorySeries(tuple(range(n)), live, 4321, 999)))
    line = next(p for p in root.iter(f"{SVG}polyline") if p.get("class") == "live")
    points = line.get("points").split()
    assert len(points) <= 800
    top = min(float(p.split(",")[1]) for p in points)
    assert float(_peak(root).get("cy")) == pytest.approx(top)  # the bucket's maximum is the peak's
    assert root.get("data-steps") == str(n)


def test_the_series_from_an_untrusted_dict_is_checked() -> None:
    good = {"allocated": [8, 16], "live": [8, 8], "peak_step": 0, "peak_bytes": 8, "peak_where": "<b>"}
    assert MemorySeries.from_dict(good).peak_where == "<b>"
    with pytest.raises(ValueError):
        MemorySeries.from_dict({**good, "live": [8]})
    with pytest.raises((ValueError, TypeError)):
        MemorySeries.from_dict({**good, "allocated": ["<script>", 1]})


def test_format_bytes() -> None:
    assert [format_bytes(n) for n in (0, 1023, 1024, 1536, 5 * 2**30)] == ["0 B", "1023 B", "1 KiB", "1.5 KiB",
                                                                           "5 GiB"]


def test_the_plot_height_is_the_one_asked_for() -> None:
    with strided.watch() as w:
        strided.ones(3) + 1
    assert _svg(memory_svg(w)).get("height") == str(HEIGHT)
    assert _svg(memory_svg(w, width=300, height=100)).get("width") == "300"


# ---------------------------------------------------------------------------- escaping


def _hostile_flow() -> strided.diagnose.watch.Watch:
    with strided.watch() as w:
        strided.ones(2)
    w.steps.append(Step(1, "<script>alert(1)</script>", "copy", (), None, where='/x/<img src=x onerror="y">.py:3',
                        bytes_copied=8, reason="because </td><script>bad()</script>", module="<b>mod</b>",
                        category="layout copy"))
    return w


def test_every_text_in_the_watch_html_is_escaped() -> None:
    html = watch_html(_hostile_flow())
    assert "<script" not in html and "<img" not in html and "<b>mod" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "because &lt;/td&gt;&lt;script&gt;bad()&lt;/script&gt;" in html


def test_the_plot_escapes_the_peak_line_and_op() -> None:
    svg = memory_svg(MemorySeries((8,), (8,), 0, 8, "/a/<script>.py:1", "<script>op"))
    assert "<script" not in svg
    _svg(svg)  # still well-formed XML


def test_the_graph_picture_escapes_and_is_well_formed() -> None:
    x = strided.ones(2, 3, requires_grad=True)
    y = (x.t()[1:] * x.t()[1:]).sum()
    root = _svg(strided.autograd.graph_svg(y))
    nodes = [g for g in root.iter(f"{SVG}g") if g.get("class") == "node"]
    kinds = {g.get("data-name"): g.get("data-kind") for g in nodes}
    assert kinds == {"SumBackward0": "op", "MulBackward0": "op", "SliceBackward0": "scatter",
                     "TBackward0": "view", "AccumulateGrad": "leaf"}
    # two slices of two transposes (two nodes each); x's AccumulateGrad is drawn once, reached twice
    assert len(nodes) == 7 and root.get("data-nodes") == "7"
    assert len([e for e in root.iter(f"{SVG}line") if e.get("class") == "edge"]) == 7
    mul = next(g for g in nodes if g.get("data-name") == "MulBackward0")
    assert mul.get("data-saved-bytes") == str(2 * 2 * 2 * 4)  # both (2, 2) float32 operands
    y.backward()
    after = _svg(strided.autograd.graph_svg(y))
    mul = next(g for g in after.iter(f"{SVG}g") if g.get("data-name") == "MulBackward0")
    assert mul.get("data-saved-bytes") == "0"  # freed by the backward pass


def test_a_leaf_has_no_graph_to_draw() -> None:
    root = _svg(strided.autograd.graph_svg(strided.ones(2, requires_grad=True)))
    assert root.get("data-nodes") == "0"


def test_the_report_page_escapes_its_title() -> None:
    page = report_page("<script>x</script>", ["<p>ok</p>"])
    assert "<script" not in page and "<p>ok</p>" in page and page.startswith("<!DOCTYPE html>")


# ---------------------------------------------------------------------------- rich display


def test_repr_html_of_a_watch_has_summary_plot_and_folded_steps() -> None:
    with strided.watch() as w:
        for _ in range(3):
            y = strided.ones(2, 3).t().contiguous()
    html = w._repr_html_()
    assert "<details>" in html and "all 9 steps" in html and 'class="strided-memory-plot"' in html
    rows = summary_rows(w)
    assert (rows[0].op, rows[0].category, rows[0].count, rows[0].bytes) == ("contiguous", "layout copy", 3, 3 * 24)
    assert rows[0].reason == w.copies[0].reason != ""  # the copy's own reason, carried over
    del y


def test_the_step_table_is_limited() -> None:
    with strided.watch() as w:
        for _ in range(30):
            strided.ones(1)
    html = watch_html(w, limit=10)
    assert html.count("<tr") - html.count("<tr class=\"copy\"") >= 10 and "20 more steps" in html


def test_repr_html_of_an_explanation_an_einsum_plan_and_a_node() -> None:
    e = strided.explain(strided.zeros(3, 4).t(), "view", 12)
    html = e._repr_html_()
    assert 'class="badge error"' in html and "(4, 3)" in html and html == explanation_html(e)
    plan = strided.einsum_plan("ij,jk->ik", (2, 3), (3, 4))
    assert re.search(r"planned [\d,]+", plan._repr_html_())
    x = strided.ones(2, requires_grad=True)
    assert 'class="strided-autograd-graph"' in (x * 2).sum().grad_fn._repr_html_()


def test_a_free_between_two_ops_shows_at_the_next_one() -> None:
    with strided.watch() as w:
        a = strided.zeros(100)          # step 0: 400
        b = strided.zeros(100)          # step 1: 800, the peak
        del a, b                        # both freed before step 2
        strided.zeros(10)               # step 2: 40 alive, not 800
    s = memory_series(w)
    assert s.live == (400, 800, 40) and s.peak_step == 1


# ---------------------------------------------------------------------------- the playground's watch view


def _result(memory: object) -> dict:
    return {"ok": True, "error": "", "table": "t", "copies": 0, "bytes_copied": 0, "allocated": 8, "peak": 8,
            "bilateral": 0, "memory": memory,
            "steps": [{"index": 0, "name": "ones", "kind": "alloc", "inputs": "-", "output": "(2,)",
                       "strides": "(1,)", "bytes": 8, "marks": "", "copy": False, "alloc": True,
                       "bilateral": False, "where": "<program>:1"}]}


def test_the_playground_checks_the_memory_series_and_draws_it() -> None:
    import json

    from strided.playground import sandbox
    from strided.playground.render import watch_html as playground_html

    good = MemorySeries((8,), (8,), 0, 8, "<program>:1", "<img src=x>").as_dict()
    checked = sandbox.checked_result(json.dumps(_result(good)).encode())
    assert checked is not None and checked["memory"] == good
    html = playground_html(checked)
    assert 'class="strided-memory-plot"' in html and "<img" not in html and "&lt;img src=x&gt;" in html
    for bad in ({**good, "live": [True]}, {**good, "live": [8, 8]}, {**good, "peak_where": 3},
                {**good, "extra": 1}, {k: v for k, v in good.items() if k != "title"}, [8], "<svg>"):
        assert sandbox.checked_result(json.dumps(_result(bad)).encode()) is None, bad
    # a result without the series (an older child) is still read, and drawn without a plot
    old = _result(None)
    del old["memory"]
    checked = sandbox.checked_result(json.dumps(old).encode())
    assert checked is not None and "strided-memory-plot" not in playground_html(checked)


def test_the_playground_child_sends_the_memory_series() -> None:
    from strided.playground import sandbox

    result = sandbox.run_watch("import strided\nx = strided.ones(4, 1) + strided.ones(1, 3)\n", unsandboxed=True)
    assert result["ok"], result
    assert result["memory"]["allocated"] == [16, 28, 76] and result["memory"]["peak_step"] == 2
