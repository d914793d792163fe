"""``%load_ext strided`` in a real Jupyter kernel: a notebook executed headless (nbclient + ipykernel).

The notebook loads the extension, runs ``%%watch_torch`` over a small torch model (forward and
backward), ``%%watch`` over strided code with a copy, ``%explain`` and an autograd graph, and the
test reads the outputs the kernel sent back: the HTML summary (totals, per-line rows, the steps
folded), the memory plot's ``<svg>`` with its width and height, the namespace's ``_watch``.
"""

from __future__ import annotations

import re
import sys

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

CELLS = [
    "%load_ext strided",
    "import strided, torch\ntorch.manual_seed(0)\n"
    "model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))\n"
    "x = torch.randn(3, 8)",
    "%%watch_torch\nloss = model(x).sum()\nloss.backward()",
    "print(type(_watch).__name__, len(_watch.steps) > 0, _watch.peak_bytes > 0)",
    "%%watch --name sw\nq = strided.zeros(2, 5, 12)\nheads = q.view(2, 3, 5, 4)\n"
    "y = q.transpose(1, 2).contiguous()  # <script>alert(1)</script>",
    "print(type(sw).__name__, [s.kind for s in sw.steps])",
    "%explain q.transpose(1, 2).view(120)",
    "a = strided.ones(2, 3, requires_grad=True)\n(a.t() * 2).sum().grad_fn",
]


def _html(cell: dict) -> list[str]:
    return [o["data"]["text/html"] for o in cell["outputs"]
            if o.get("output_type") in ("display_data", "execute_result") and "text/html" in o.get("data", {})]


def _stdout(cell: dict) -> str:
    return "".join(o["text"] for o in cell["outputs"] if o.get("output_type") == "stream" and o["name"] == "stdout")


def _plot_size(html: str) -> tuple[float, float]:
    svg = re.search(r'<svg[^>]*class="strided-memory-plot"[^>]*>', html)
    assert svg is not None, "no memory plot in the HTML"
    width = re.search(r'\bwidth="([\d.]+)"', svg.group(0))
    height = re.search(r'\bheight="([\d.]+)"', svg.group(0))
    assert width and height
    return float(width.group(1)), float(height.group(1))


@pytest.fixture(scope="module")
def executed() -> list[dict]:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in CELLS]
    # the kernel is this interpreter (ipykernel's own spec: sys.executable), so it sees this strided
    client = nbclient.NotebookClient(nb, timeout=240, kernel_name="python3", allow_errors=False,
                                     resources={"metadata": {"path": "."}})
    client.execute()
    assert sys.executable  # (the native kernel spec runs it)
    return nb.cells


def test_watch_torch_cell_shows_summary_and_plot(executed: list[dict]) -> None:
    html = _html(executed[2])
    assert len(html) == 1, executed[2]["outputs"]
    page = html[0]
    assert "<b>watch_torch</b>" in page and "per line" in page and "<details>" in page
    # the module paths of the model's layers are in the per-line summary (watch_torch knows them)
    assert re.search(r"<td>0: addmm", page) and re.search(r"<td>2: addmm", page)
    width, height = _plot_size(page)
    assert width > 100 and height > 50
    assert _stdout(executed[3]).split() == ["TorchWatch", "True", "True"]


def test_watch_cell_shows_the_copy_escaped_and_keeps_the_watch(executed: list[dict]) -> None:
    page = _html(executed[4])[0]
    assert "<b>watch</b>: 4 steps" in page and 'class="copy"' in page and "1 copies" in page
    assert _plot_size(page)[0] > 0
    assert 'class="peak"' in page  # the copy's new memory is the peak
    # the lines are the cell's own, numbered as IPython numbers the cell (In[5], line 3)
    assert "<td>In[5]:3</td><td></td><td>contiguous</td><td class=\"num\">1</td><td>layout copy</td>" in page
    assert "peak 960 B at step 3 (contiguous), In[5]:3" in page
    assert "<script" not in page  # (the cell's comment never reaches the HTML raw: no line text is shown)
    assert _stdout(executed[5]).strip() == "Watch ['alloc', 'view', 'view', 'copy']"


def test_explain_line_magic_shows_the_explanation(executed: list[dict]) -> None:
    page = _html(executed[6])[0]
    assert "strided-explanation" in page and 'class="badge error"' in page


def test_a_grad_fn_shows_its_graph(executed: list[dict]) -> None:
    page = _html(executed[7])[0]
    assert 'class="strided-autograd-graph"' in page and "TBackward0" in page and "AccumulateGrad" in page


# ---------------------------------------------------------------------------- in-process (no kernel)


@pytest.fixture(scope="module")
def shell() -> object:
    from IPython.testing.globalipapp import get_ipython

    ip = get_ipython()
    ip.run_line_magic("load_ext", "strided")
    ip.run_cell("import strided")
    return ip


def test_an_error_in_the_cell_is_shown_after_the_summary(shell: object, capsys: pytest.CaptureFixture) -> None:
    shell.run_cell_magic("watch", "--name failed", "z = strided.ones(3)\nraise ValueError('boom')\n")
    out = capsys.readouterr().out
    assert out.index("watch: 1 steps") < out.index("ValueError")
    assert "boom" in out and "run_watched" not in out  # (the traceback starts at the cell's own frame)
    assert [s.name for s in shell.user_ns["failed"].steps] == ["ones"]


def test_bad_options_are_said_and_nothing_runs(shell: object, capsys: pytest.CaptureFixture) -> None:
    shell.user_ns.pop("ran", None)
    shell.run_cell_magic("watch", "--limit many", "ran = True\n")
    assert "%%watch:" in capsys.readouterr().out and "ran" not in shell.user_ns


def test_explain_of_a_plain_tensor_describes_its_layout(shell: object) -> None:
    shell.run_cell("t = strided.zeros(3, 4).t()")
    layout = shell.run_line_magic("explain", "t")
    assert type(layout).__name__ == "LayoutExplanation"
    assert "<pre>" in layout._repr_html_() and "strides (1, 4)" in layout._repr_html_()
    e = shell.run_line_magic("explain", "t.reshape(12)")
    assert e.outcome == "copy" and e.bytes_copied == 48
