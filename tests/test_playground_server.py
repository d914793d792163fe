"""The playground server: its JSON API over HTTP against a live threaded server, the limits, the
sandboxed watch view, the one-file HTML export, and the ``strided playground`` command.

The server runs in a thread on a free port of 127.0.0.1 for the whole module; after each bad or
refused input the next request must still be answered (the server keeps serving).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree

import pytest

import strided
from strided.cli.main import main
from strided.playground import sandbox
from strided.playground.server import make_server_on
from strided.playground.show import MAX_EXPR_CHARS, MAX_NUMEL, MAX_STEPS, show_payload

SRC = Path(strided.__file__).resolve().parents[1]

needs_boundary = pytest.mark.usefixtures("boundary")


_TOKENS: dict[str, str] = {}
"""The token of each running test server, by its base URL (the helpers send it as the page does)."""


@pytest.fixture(scope="module")
def base():
    server = make_server_on(0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_port}"
    _TOKENS[url] = server.gate.token
    yield url
    server.shutdown()
    server.server_close()


def _auth(base: str) -> dict[str, str]:
    return {"X-Strided-Token": _TOKENS[base]} if base in _TOKENS else {}


def _get(base: str, path: str) -> tuple[int, dict | str]:
    try:
        with urllib.request.urlopen(urllib.request.Request(base + path, headers=_auth(base)), timeout=60) as r:
            body, status, kind = r.read().decode("utf-8"), r.status, r.headers.get_content_type()
    except urllib.error.HTTPError as e:
        body, status, kind = e.read().decode("utf-8"), e.code, e.headers.get_content_type()
    return status, (json.loads(body) if kind == "application/json" else body)


def _show(base: str, expr: str) -> tuple[int, dict]:
    return _get(base, "/api/show?expr=" + urllib.parse.quote(expr))


def _post(base: str, path: str, data: bytes, kind: str = "application/json") -> tuple[int, dict]:
    req = urllib.request.Request(base + path, data=data, headers={"Content-Type": kind, **_auth(base)},
                                 method="POST")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def _still_serving(base: str) -> None:
    status, data = _show(base, "arange(6).view(2, 3).t()")
    assert status == 200 and data["ok"] and [s["badge"] for s in data["steps"]] == ["new", "view", "view"]


# ---------------------------------------------------------------- the page and /api/show


def test_page_has_the_contract_ids(base):
    status, page = _get(base, "/")
    assert status == 200
    for needle in ('id="expr"', 'id="run"', 'class="example"', 'id="steps"', 'id="compare"', 'id="error"',
                   'id="tour"', 'id="watch-program"', 'id="watch-run"', 'id="watch-result"', 'data-lang="zh"'):
        assert needle in page, needle
    assert not re.search(r'(src|href)="(https?:)?//', page), "the page must not fetch anything from outside"


def test_show_steps_badges_pictures_and_peers(base):
    status, data = _show(base, "arange(24).reshape(2,3,4).permute(2,0,1).reshape(4,6)")
    assert status == 200 and data["ok"]
    steps = data["steps"]
    assert [s["text"] for s in steps] == ["arange(24)", "x.reshape(2, 3, 4)", "x.permute(2, 0, 1)", "x.reshape(4, 6)"]
    assert [s["badge"] for s in steps] == ["new", "view", "view", "view"]
    assert steps[0]["nbytes"] == 24 * 8
    assert "view (0 bytes copied" in steps[3]["mark"]
    assert steps[3]["svg"].count('class="cell"') == 24
    assert "np.reshape(x, (4, 6))" in steps[3]["numpy"]
    assert data["html"].count('class="step ') == 4
    assert data["html"].count('class="peer peer-numpy"') == 4 and data["html"].count('class="peer peer-torch"') == 4


def test_a_copy_step_is_explained_with_its_bytes(base):
    _, data = _show(base, "arange(12).reshape(3,4).t().reshape(12)")
    last = data["steps"][-1]
    assert last["badge"] == "copy" and last["nbytes"] == 96
    assert "copy (96 bytes copied" in last["mark"]
    assert "96 bytes" in last["explanation"] and "stride" in last["explanation"]
    assert "copy (96 bytes)" in last["numpy"]  # NumPy copies too, through np.reshape
    assert 'badge-copy">copy (96 bytes copied' in data["html"]


def test_a_failing_step_is_explained_and_ends_the_chain(base):
    _, data = _show(base, "arange(12).reshape(3,4).t().view(12).flatten()")
    assert data["ok"] and len(data["steps"]) == 4
    last = data["steps"][-1]
    assert last["badge"] == "error" and last["error"].startswith("RuntimeError: view size is not compatible")
    assert "fix: x.reshape(12)" in last["explanation"]
    assert "copy=False" in last["numpy"] and "error" in last["numpy"]  # np.reshape(copy=False) refuses too
    assert "RuntimeError" in last["torch"] or last["torch"].startswith("PyTorch not installed")


@pytest.mark.parametrize("ctor, numpy, torch", [("tensor([[1, 2], [3, 4]])", "np.array", "torch.tensor"),
                                                ("zeros(2, 3)", "np.zeros", "torch.zeros")])
def test_constructor_peers(ctor, numpy, torch):
    step = show_payload(ctor)["steps"][0]
    assert f"{numpy} builds the same contiguous array" in step["numpy"]
    assert f"{torch} builds the same contiguous tensor" in step["torch"] or step["torch"].startswith("PyTorch not")


def test_peers_get_the_step_inputs_layout():
    # a slice with an offset: the peers' arrays have strided's shape and strides (NumPy counts from
    # x's first element, it has no storage offset; PyTorch keeps the offset)
    step = show_payload("arange(20).view(4, 5)[1:, 2:].t()")["steps"][-1]
    assert "input:  shape (3, 3), strides (5, 1), offset 0" in step["numpy"]
    assert "→ view (0 bytes copied): shape (3, 3), strides (1, 5)" in step["numpy"]
    assert "np.swapaxes(x, 0, 1)" in step["numpy"]
    if not step["torch"].startswith("PyTorch not installed"):
        assert "input:  shape (3, 3), strides (5, 1), offset 7" in step["torch"]


def test_torch_peer_says_when_torch_is_missing(monkeypatch):
    from strided.playground import peers

    monkeypatch.setattr(peers, "torch_available", lambda: False)
    data = show_payload("arange(6).view(2, 3).t()")
    assert data["steps"][2]["torch"] == peers.TORCH_MISSING == (
        "PyTorch not installed: install torch to see what PyTorch would do")
    assert "np.swapaxes(x, 0, 1)" in data["steps"][2]["numpy"]  # NumPy's prediction needs no torch


def test_every_cell_carries_its_storage_offset():
    x = strided.arange(12).view(3, 4).t()[1:, ::2]
    svg = strided.draw(x, format="svg")
    root = ElementTree.fromstring(svg.encode())
    groups = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") in ("cell", "slot")]
    cells = sorted(int(g.get("data-offset")) for g in groups if g.get("class") == "cell")
    expected = sorted(x.storage_offset() + i * x.stride(0) + j * x.stride(1)
                      for i in range(x.shape[0]) for j in range(x.shape[1]))
    assert cells == expected
    slots = {int(g.get("data-offset")) for g in groups if g.get("class") == "slot"}
    assert set(cells) <= slots  # each logical cell's storage cell is in the strip, to highlight on hover


@pytest.mark.parametrize("expr, words", [
    ("__import__('os')", "__import__(...) is not a strided constructor"),
    ("__import__('os').system('ls')", "method .system() is not accepted"),
    ("arange(12).__class__", "attribute .__class__ is not accepted"),
    ("arange(12).reshape(3, 4).numpy()", "method .numpy() is not accepted"),
    ("arange(", "not a Python expression"),
    ("", "type an expression"),
    ("zeros(-1)", "zeros(-1) raised RuntimeError"),
    ("x" * (MAX_EXPR_CHARS + 1), f"accepts at most {MAX_EXPR_CHARS}"),
    ("zeros(100000, 100000)", f"would create 10,000,000,000 elements; the playground accepts at most {MAX_NUMEL:,}"),
    ("arange(100000000)", "would create 100,000,000 elements"),
    ("arange(10).view(10, 1).expand(10, 10000000).contiguous()", "may copy or compute all of them"),
    ("arange(4)" + ".flatten()" * MAX_STEPS, f"the chain has {MAX_STEPS + 1} steps; the playground pictures at most"),
])
def test_bad_input_is_an_inline_message_and_the_server_keeps_serving(base, expr, words):
    status, data = _show(base, expr)
    assert status == 200 and data["ok"] is False
    assert words in data["error"] and "\n" not in data["error"]
    assert data["html"] == ""
    _still_serving(base)


def test_a_huge_view_is_fine_it_allocates_nothing(base):
    _, data = _show(base, "arange(10).view(10, 1).expand(10, 10000000).t()")
    assert data["ok"] and [s["badge"] for s in data["steps"]] == ["new", "view", "view", "view"]


def test_unknown_addresses_and_methods_answer_json(base):
    status, data = _get(base, "/nowhere")
    assert status == 404 and data["ok"] is False and "not a playground address" in data["error"]
    status, data = _post(base, "/api/show", b"{}")
    assert status == 405 and data["ok"] is False
    _still_serving(base)


def test_parallel_requests_each_get_their_own_verdicts(base):
    # watch (view or copy, bytes) is process-wide: the server runs one chain at a time
    exprs = {"arange(12).reshape(3, 4).t().reshape(12)": ("copy", 96),
             "arange(30).view(5, 6).t().contiguous()": ("copy", 240),
             "arange(8).view(2, 4).t()": ("view", 0)}
    results: dict[str, tuple[str, int]] = {}

    def ask(expr: str) -> None:
        _, data = _show(base, expr)
        results[expr] = (data["steps"][-1]["badge"], data["steps"][-1]["nbytes"])

    threads = [threading.Thread(target=ask, args=(e,)) for e in exprs for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == exprs


def test_an_expression_that_is_not_utf8(base):
    status, data = _get(base, "/api/show?expr=%ff%fe")
    assert status == 400 and data["error"] == "the expression is not UTF-8 text"
    _still_serving(base)


def test_favicon_is_a_quiet_no_content(base):
    with urllib.request.urlopen(base + "/favicon.ico", timeout=10) as r:
        assert r.status == 204


# ---------------------------------------------------------------- the tour


@pytest.mark.parametrize("lang, first", [("en", "A 3×4 arange"), ("zh", "3×4 的 arange")])
def test_tour_in_both_languages(base, lang, first):
    status, data = _get(base, f"/api/tour?lang={lang}")
    assert status == 200 and data["ok"] and len(data["steps"]) == 10
    assert data["steps"][0]["title"].startswith(first)
    assert "strides (4, 1)" in data["steps"][0]["text"] or "(4, 1)" in data["steps"][0]["text"]
    for step in data["steps"]:
        if step["expr"]:  # every tour expression is in the show grammar and runs
            assert show_payload(step["expr"])["ok"], step["expr"]
    assert data["steps"][8]["program"].startswith("import strided")


def test_tour_pictures_are_the_pages_svg_pictures_in_the_steps_own_words(base):
    """The tour's pictures reach the page as SVG (one per panel, the step's own name for the
    tensor, Chinese words in the Chinese tour), in place of the terminal's text grids."""
    for lang in ("en", "zh"):
        status, data = _get(base, f"/api/tour?lang={lang}")
        assert status == 200 and data["ok"]
        steps = {s["name"]: s for s in data["steps"]}
        permute = [p["picture"] for p in steps["permute"]["parts"] if "picture" in p]
        assert len(permute) == 1 and len(permute[0]["panels"]) == 2  # before and after, side by side
        view = [p["picture"] for p in steps["view"]["parts"] if "picture" in p][0]
        broadcast = [p["picture"] for p in steps["broadcast"]["parts"] if "picture" in p]
        assert len(broadcast) == 2  # ea[0, 0] and eb[0, 0]
        for step in data["steps"]:
            html = step["html"]
            # no text grid: the pictures are SVG, and the prose is escaped text
            assert "read by 0,0" not in html and "读取者   0,0" not in html and "\x00" not in html
            assert html.count("<svg") == sum(len(p["picture"]["panels"]) for p in step["parts"] if "picture" in p)
            for part in step["parts"]:
                for svg in part.get("picture", {}).get("panels", ()):
                    root = ElementTree.fromstring(svg.encode())  # well-formed, sized
                    assert float(root.get("width")) > 0 and float(root.get("height")) > 0
        before, after = (ElementTree.fromstring(svg.encode()) for svg in view["panels"])
        titles = [t.text for t in after.iter("{http://www.w3.org/2000/svg}text")]
        if lang == "en":
            assert titles[0] == "after: y.reshape(-1)" and view["header"][0].startswith("y.reshape(-1): copy, 96 bytes")
            assert any(t.endswith("offset / value / read by / copied from") for t in titles)
            assert "ea[0, 0]" in broadcast[0]["panels"][0] and "eb[0, 0]" in broadcast[1]["panels"][0]
        else:
            assert titles[0] == "之后：y.reshape(-1)" and view["header"][0].startswith("y.reshape(-1)：拷贝 96 字节")
            assert any(t.endswith("偏移 / 值 / 读取者 / 拷贝自") for t in titles)
            assert not [t for t in titles if re.search(r"\b(after|storage|touched|shape|strides)\b", t or "")], titles
        # the storage cells of a copy's result say where each element was copied from: y's order
        origins = [g.findall("{http://www.w3.org/2000/svg}text")[-1].text
                   for g in after.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "slot"]
        assert origins == [str(v) for v in strided.arange(12).view(3, 4).t().reshape(-1).tolist()]


def test_tour_unknown_language(base):
    status, data = _get(base, "/api/tour?lang=fr")
    assert status == 400 and "unknown language 'fr'" in data["error"]


# ---------------------------------------------------------------- the watch view


@needs_boundary
def test_watch_marks_copies_allocations_and_bilateral_broadcasts(base):
    program = ("import strided\na = strided.ones(4, 1)\nb = strided.ones(1, 3)\nc = (a + b).t().contiguous()\n"
               "print('done')")
    status, data = _post(base, "/api/watch", json.dumps({"program": program}).encode())
    assert status == 200 and data["ok"], data
    kinds = [(s["name"], s["kind"]) for s in data["steps"]]
    assert kinds == [("ones", "alloc"), ("ones", "alloc"), ("add", "compute"), ("t", "view"), ("contiguous", "copy")]
    assert [s["bilateral"] for s in data["steps"]] == [False, False, True, False, False]
    assert data["copies"] == 1 and data["bytes_copied"] == 48 and data["bilateral"] == 1
    assert data["table"].startswith("watch: 5 steps") and "COPY" in data["table"]
    assert data["output"] == "done\n"
    assert '<tr class="copy">' in data["html"] and '<tr class="bilateral">' in data["html"]
    assert data["html"].count('<tr class="alloc">') == 2
    # the summary: w.summary()'s rows, largest first, and the totals line counting regroups
    assert [(r["op"], r["category"], r["count"], r["bytes"]) for r in data["summary"]] == [
        ("contiguous", "layout copy", 1, 48), ("add", "bilateral broadcast", 1, 48), ("ones", "alloc", 1, 16),
        ("ones", "alloc", 1, 12)]
    assert data["summary"][0]["reason"].startswith("contiguous() of (3, 4) strides (1, 3): dim 1 has stride 3")
    assert data["regroups"] == 0 and "0 regrouping reshapes</p>" in data["html"]
    assert '<table class="watch-table watch-summary">' in data["html"] and '<tr class="cat-copy">' in data["html"]
    assert '<div class="watch-plot"><svg' in data["html"]


@needs_boundary
def test_watch_summary_counts_regrouping_reshapes(base):
    program = "import strided\nx = strided.ones(2, 6)\ny = x.reshape(3, 4)\nz = x.t().reshape(12)\n"
    status, data = _post(base, "/api/watch", json.dumps({"program": program}).encode())
    assert status == 200 and data["ok"], data
    assert [(r["line"], r["op"], r["category"]) for r in data["summary"]] == [
        ("<program>:4", "reshape", "layout copy"), ("<program>:2", "ones", "alloc"), ("<program>:3", "reshape", "regroup")]
    assert data["summary"][0]["fix"].startswith("x.permute(1, 0).view(-1)")
    assert data["regroups"] == 1 and "1 regrouping reshapes</p>" in data["html"]
    # (the copies told apart: x.t().reshape(12) is a layout copy, ones() new memory from no data)
    assert data["copy_kinds"] == {"layout": 1, "new": 0, "data": 0}
    assert "1 copies (1 layout copies, 0 new results, 0 from data; 48 bytes copied)" in data["html"]
    assert '<tr class="cat-regroup">' in data["html"] and "regroups input dims 0, 1 (2, 6)" in data["html"]


def test_watch_form_field_is_refused_before_anything_runs(base):
    # a form post is what another site's page can send without a CORS preflight: JSON only
    status, data = _post(base, "/api/watch", b"program=import+strided%0Ax+%3D+strided.zeros(3)",
                         "application/x-www-form-urlencoded")
    assert status == 415 and data["ok"] is False and "must be application/json" in data["error"]


@pytest.mark.parametrize("program, words", [
    ("import strided\nstrided.arange(12).view(3, 4).t().view(12)", "ViewError: view size is not compatible"),
    ("def (", "SyntaxError: invalid syntax (line 1)"),
    ("", "paste a short strided program"),
    ("#" * (sandbox.MAX_PROGRAM_CHARS + 1), "accepts at most 10,000"),
])
@needs_boundary
def test_watch_errors_are_one_line(base, program, words):
    status, data = _post(base, "/api/watch", json.dumps({"program": program}).encode())
    assert status == 200 and data["ok"] is False
    assert words in data["error"], data["error"]
    _still_serving(base)


@needs_boundary
@pytest.mark.parametrize("program", ["x = bytearray(8 * 2**30)", "import numpy\nx = numpy.ones(10**10)"])
def test_watch_memory_limit(program):
    data = sandbox.run_watch(program)
    assert data["ok"] is False and "MemoryError: the program went past the memory limit" in data["error"]


@needs_boundary
def test_watch_writes_inside_its_temporary_directory():
    data = sandbox.run_watch("open('notes.txt', 'w').write('hi')\nprint(open('notes.txt').read())")
    assert data["ok"] and data["output"] == "hi\n"


@needs_boundary
def test_watch_time_limit_stops_a_loop():
    data = sandbox.run_watch("while True:\n    pass", wall_s=1.5)
    assert data["ok"] is False and data["error"] == "stopped: the program ran past the 1.5 s time limit of the watch view"


@needs_boundary
def test_watch_tempfile_lands_in_its_temporary_directory():
    data = sandbox.run_watch("import os, tempfile\nf = tempfile.NamedTemporaryFile('w', delete=False)\n"
                             "print(os.path.dirname(f.name) == os.getcwd())")
    assert data["ok"] and data["output"] == "True\n"


@needs_boundary
def test_watch_output_is_capped():
    data = sandbox.run_watch("print('x' * 1_000_000)")
    assert data["ok"] and len(data["output"]) < 21_000 and data["output"].endswith("(output cut at 20,000 characters)")


def test_watch_bad_bodies(base):
    status, data = _post(base, "/api/watch", b"not json")
    assert status == 400 and "the body is not JSON" in data["error"]
    status, data = _post(base, "/api/watch", json.dumps({"program": 3}).encode())
    assert status == 400 and "(a string)" in data["error"]
    _still_serving(base)


# ---------------------------------------------------------------- the HTML export


class _Checker(HTMLParser):
    """Collects the external references and checks the tags nest (a parse of the whole file)."""

    VOID = {"meta", "input", "br", "img", "link", "hr"}

    def __init__(self) -> None:
        super().__init__()
        self.external: list[str] = []
        self.stack: list[str] = []
        self.ids: list[str] = []
        self.in_svg = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("src", "href", "xlink:href"):
            if re.match(r"^(https?:)?//", attrs.get(key) or ""):
                self.external.append(attrs[key])
        if "id" in attrs and not self.in_svg:
            self.ids.append(attrs["id"])
        if tag == "svg":
            self.in_svg += 1
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in self.VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes <{self.stack[-1] if self.stack else None}>"
        self.stack.pop()
        if tag == "svg":
            self.in_svg -= 1


def test_show_html_writes_one_self_contained_file(tmp_path, capsys):
    path = tmp_path / "out.html"
    assert main(["show", "arange(12).reshape(3,4).t().reshape(12)", "--html", str(path)]) == 0
    assert f"(HTML written to {path})" in capsys.readouterr().out
    page = path.read_text(encoding="utf-8")
    checker = _Checker()
    checker.feed(page)
    checker.close()
    assert checker.external == [] and checker.stack == []
    assert len(checker.ids) == len(set(checker.ids))
    assert "<link" not in page and "<script src" not in page and "@import" not in page and "url(http" not in page
    assert page.count('class="step ') == 4 and page.count("<svg") == 4 and "<?xml" not in page
    assert 'data-export="1"' in page and 'id="compare"' in page and "copy (96 bytes copied" in page
    assert "mouseover" in page  # the hover script is inline


def test_show_html_of_a_bad_expression(tmp_path, capsys):
    path = tmp_path / "out.html"
    assert main(["show", "arange(12).reshape(3,4).numpy()", "--html", str(path)]) == 2
    assert "method .numpy() is not accepted" in capsys.readouterr().err
    assert not path.exists()


def test_show_html_unwritable(tmp_path, capsys):
    assert main(["show", "arange(3)", "--html", str(tmp_path / "no" / "such" / "dir.html")]) == 2
    assert "cannot write the HTML file" in capsys.readouterr().err


# ---------------------------------------------------------------- the command


def test_playground_help(capsys):
    assert main(["playground", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--port N" in out and "--no-browser" in out and "127.0.0.1" in out and "token" in out
    assert "--allow-unsandboxed-watch" in out


def test_playground_no_browser_prints_the_url_and_serves():
    env = dict(os.environ, PYTHONPATH=str(SRC), BROWSER="false")
    proc = subprocess.Popen([sys.executable, "-m", "strided.cli.main", "playground", "--no-browser"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=([\w-]{43})\s", line)
        assert match, line
        # the printed address (with its token) opens the page; the same address without it is refused
        status, page = _get(match.group(1), f"/?token={match.group(2)}")
        assert status == 200 and 'id="expr"' in page
        status, page = _get(match.group(1), "/")
        assert status == 403 and "needs its token" in page
        assert "watch view:" in proc.stdout.readline()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_playground_stops_cleanly_on_ctrl_c():
    env = dict(os.environ, PYTHONPATH=str(SRC))
    # the child gets the default SIGINT action: a test run started in the background by a shell
    # inherits SIGINT ignored, and Python then never turns Ctrl-C into KeyboardInterrupt
    proc = subprocess.Popen([sys.executable, "-m", "strided.cli.main", "playground", "--no-browser", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert "serving on http://127.0.0.1:" in proc.stdout.readline()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "strided playground: stopped" in out and "Traceback" not in err


def test_playground_port_taken(capsys):
    server = make_server_on(0)
    try:
        assert main(["playground", "--port", str(server.server_port), "--no-browser"]) == 2
        assert f"cannot listen on 127.0.0.1:{server.server_port}" in capsys.readouterr().err
    finally:
        server.server_close()


@pytest.mark.parametrize("shape, strides", [((3, 50, 4), (0, 1, 0)), ((7, 2), (0, 1)), ((2, 10**7), (1, 0))])
def test_readers_of_expanded_layouts_are_the_first_in_c_order(shape, strides):
    # the playground pictures huge expanded views: readers_at must not walk the stride-0 dims
    from itertools import product

    from strided.diagnose.pictures.model import READERS_SHOWN, readers_at

    got = readers_at(shape, strides, 0, [1])[1]
    # brute force over ranges cut just past READERS_SHOWN: the first readers in C order lie there
    small = [i for i in product(*(range(min(n, READERS_SHOWN + 1)) for n in shape))
             if sum(a * b for a, b in zip(i, strides)) == 1][:READERS_SHOWN]
    total = 1
    for n, s in zip(shape, strides):
        total *= n if s == 0 else 1
    assert got == (total, tuple(small))
