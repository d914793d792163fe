"""``strided watch --html FILE script.py``: the report page, written by the real command line and
opened in headless Chromium (``conftest.browser``: the system's Chromium and chromedriver; skipped
outside CI when they are missing, a failure under CI).

The page must show, for each watch, the memory-over-time plot as laid-out SVG of a non-zero size
with its peak marker, the per-line summary and the folded steps, and load nothing at all. A
screenshot is kept in ``test-artifacts/``. The command's own checks (exit codes, a file that cannot
be written) run without a browser.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from strided.cli.watch_script import watch_command

SCRIPT = """\
import strided
q = strided.zeros(2, 5, 12)
heads = q.view(2, 3, 5, 4)
y = q.transpose(1, 2).contiguous()   # the copy, and the peak
del q, heads                          # q's storage freed: 480 bytes alive again
z = y.sum()
"""

TORCH_SCRIPT = """\
import torch
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
loss = model(torch.randn(3, 8)).sum()
loss.backward()
"""


def _run(tmp_path: Path, source: str, *options: str) -> tuple[subprocess.CompletedProcess, Path]:
    script = tmp_path / "script.py"
    script.write_text(source, encoding="utf-8")
    out = tmp_path / "report.html"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, "-m", "strided.cli.main", "watch", *options, "--html", str(out),
                           str(script)], capture_output=True, text=True, env=env, timeout=120)
    return done, out


def _js(driver: Any, script: str) -> Any:
    return driver.execute_script(script)


def test_the_report_page_shows_the_plot_in_a_browser(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    done, out = _run(tmp_path, SCRIPT, "--no-torch")
    assert done.returncode == 0, done.stderr
    html = out.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "<script" not in html and "<link" not in html and "@import" not in html
    browser.get_log("browser")
    browser.get(out.as_uri())
    plot = browser.find_element("css selector", "svg.strided-memory-plot")
    assert plot.size["width"] > 100 and plot.size["height"] > 50
    assert plot.get_attribute("data-steps") == "5"
    peak = browser.find_element("css selector", "svg.strided-memory-plot circle.peak")
    assert peak.size["width"] > 0 and peak.size["height"] > 0
    assert peak.get_attribute("data-step") == "3"  # the contiguous() copy: q and its copy alive at once
    label = browser.find_element("css selector", "svg.strided-memory-plot text.peak-label").text
    assert "script.py:4" in label and "contiguous" in label
    # the marker is drawn inside the plot, at the live line's highest point
    box = _js(browser, "const b = document.querySelector('svg.strided-memory-plot').getBoundingClientRect();"
                       "const c = document.querySelector('circle.peak').getBoundingClientRect();"
                       "return [b.left, b.right, b.top, b.bottom, c.left, c.top];")
    assert box[0] < box[4] < box[1] and box[2] < box[5] < box[3]
    # the summary is visible; the steps are folded until opened
    assert "per line" in browser.find_element("css selector", ".strided-watch").text
    rows = browser.find_elements("css selector", "details table tr")
    assert rows and not rows[1].is_displayed()
    browser.find_element("css selector", "details summary").click()
    assert rows[1].is_displayed()
    browser.save_screenshot(str(artifacts / "watch_html_report.png"))
    assert _js(browser, "return performance.getEntriesByType('resource').length;") == 0
    assert not [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_a_torch_script_gets_a_plot_per_watch(browser: Any, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    done, out = _run(tmp_path, TORCH_SCRIPT)
    assert done.returncode == 0, done.stderr
    browser.get(out.as_uri())
    plots = browser.find_elements("css selector", "svg.strided-memory-plot")
    # (the strided watch saw no strided op: only watch_torch's report is shown)
    assert len(plots) == 1 and plots[0].size["height"] > 50
    assert "watch_torch" in browser.find_element("css selector", ".strided-watch").text
    assert browser.find_elements("css selector", "svg.strided-memory-plot circle.peak")


# ---------------------------------------------------------------------------- no browser needed


def test_html_report_of_a_failing_script_says_why_and_keeps_the_exit_code(tmp_path: Path) -> None:
    script = tmp_path / "bad.py"
    script.write_text("import strided\nx = strided.ones(3)\nraise ValueError('<boom>')\n", encoding="utf-8")
    out, err = tmp_path / "r.html", tmp_path / "err.txt"
    import io

    code = watch_command(str(script), [], torch=False, out=io.StringIO(), err=io.StringIO(), html=str(out))
    assert code == 1
    html = out.read_text(encoding="utf-8")
    assert "the script raised ValueError: &lt;boom&gt;" in html and "<boom>" not in html
    assert 'class="strided-memory-plot"' in html
    assert not err.exists()


def test_an_unwritable_html_report_is_exit_2(tmp_path: Path) -> None:
    import io

    script = tmp_path / "ok.py"
    script.write_text("import strided\nstrided.ones(2)\n", encoding="utf-8")
    err = io.StringIO()
    code = watch_command(str(script), [], torch=False, out=io.StringIO(), err=err,
                         html=str(tmp_path / "missing" / "r.html"))
    assert code == 2 and "cannot write the HTML report" in err.getvalue()


# ---------------------------------------------------------------------------- the playground's watch view


@pytest.mark.usefixtures("boundary")
def test_the_playground_watch_view_draws_the_memory_plot(browser: Any) -> None:
    import threading

    from selenium.webdriver.support.ui import WebDriverWait

    from strided.playground.server import make_server_on

    httpd = make_server_on(0)
    thread = threading.Thread(target=httpd.serve_forever, name="playground", daemon=True)
    thread.start()
    try:
        browser.get(f"http://127.0.0.1:{httpd.server_port}/?token={httpd.gate.token}")
        area = browser.find_element("id", "watch-program")
        browser.execute_script("arguments[0].value = arguments[1];", area,
                               "import strided\na = strided.arange(6).reshape(2, 3)\nb = a.t().contiguous()\n")
        browser.find_element("id", "watch-run").click()
        WebDriverWait(browser, 15).until(lambda d: d.find_elements("css selector", "#watch-result svg"))
        plot = browser.find_element("css selector", "#watch-result svg.strided-memory-plot")
        assert plot.size["width"] > 100 and plot.size["height"] > 50
        assert plot.get_attribute("data-steps") == "4" and plot.get_attribute("data-peak-step") == "3"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)
