"""The ``strided`` command line: the expression grammar, ``show``, ``explain``, ``watch``, ``tour``.

Every command is run through ``main([...])`` on good and bad input (exit code, stdout, the error
line on stderr), the grammar's refusals are pinned, view / copy verdicts are checked against
PyTorch on the same chains, ``--svg`` files are parsed as XML, and one run goes through a real
``python -m strided.cli.main`` subprocess.

The pictures (``strided.diagnose.pictures``) may or may not be in this build: no assert here
depends on their text; the ones about the pictures contract use a stand-in module.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import types
import xml.etree.ElementTree as ET

import pytest

import strided
from strided.cli import expr as E
from strided.cli import render
from strided.cli.main import main

SRC = pathlib.Path(strided.__file__).parent.parent


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ------------------------------------------------------------------ the grammar


def test_parse_a_chain_into_calls():
    chain = E.parse("arange(12).reshape(3,4).permute(1,0)[:, ::2].T.to('float64', copy=True)")
    assert [(c.kind, c.name) for c in chain] == [
        ("ctor", "arange"), ("method", "reshape"), ("method", "permute"), ("index", "getitem"),
        ("attr", "T"), ("method", "to")]
    assert chain[1].args == (3, 4)
    assert chain[3].args == ((slice(None), slice(None, None, 2)),)
    assert chain[5].args == ("float64",) and chain[5].kwargs == {"copy": True}
    assert [c.text for c in chain] == ["arange(12)", "x.reshape(3, 4)", "x.permute(1, 0)", "x[:, ::2]", "x.T",
                                       "x.to('float64', copy=True)"]


@pytest.mark.parametrize("source, args", [
    ("zeros(2, 3, dtype=float64)", ((2, 3), {"dtype": strided.float64})),
    ("strided.ones((2, -3), dtype=strided.int32)", (((2, -3),), {"dtype": strided.int32})),
    ("full([2], 1.5)", (([2], 1.5), {})),
    ("tensor([[1, 2], [3, +4]], dtype='int8')", (([[1, 2], [3, 4]],), {"dtype": "int8"})),
    ("arange(-3.5, 2, 0.5, dtype=None)", ((-3.5, 2, 0.5), {"dtype": None})),
])
def test_constructor_literals(source, args):
    (call,) = E.parse(source)
    assert (call.args, call.kwargs) == args


def test_index_keys():
    (_, call) = E.parse("zeros(2,3,4)[..., None, -1, 1:-1:2]")
    assert call.args == ((Ellipsis, None, -1, slice(1, -1, 2)),)
    (_, call) = E.parse("zeros(3)[None:2]")
    assert call.args == (slice(None, 2),)


@pytest.mark.parametrize("source, says", [
    ("__import__('os')", "__import__(...) is not a strided constructor"),
    ("__import__('os').system('ls')", "method .system() is not accepted"),
    ("arange(3).__class__", "attribute .__class__ is not accepted"),
    ("arange(3).numpy()", "method .numpy() is not accepted"),
    ("os.path", "attribute .path is not accepted"),
    ("strided.os.view(1)", "attribute .os is not accepted"),
    ("x.view(3)", "the name 'x' is not accepted here"),
    ("arange(3).view(lambda: 1)", "a lambda (lambda: 1) is not accepted as an argument of view(...)"),
    ("arange(f'{1}')", "an f-string"),
    ("arange(len('ab'))", "a call (len('ab')) is not accepted as an argument of arange(...)"),
    ("arange(ones(3))", "a call (ones(3)) is not accepted as an argument"),
    ("arange(3) + arange(3)", "an arithmetic operator"),
    ("arange(2 ** 40)", "an arithmetic operator (2 ** 40) is not accepted as an argument"),
    ("arange(*[3])", "*arguments are not accepted"),
    ("zeros(**{'a': 1})", "**arguments are not accepted"),
    ("arange(3)[arange(2)]", "a call (arange(2)) is not accepted in [indexing]"),
    ("arange(3)[1.5]", "1.5 is not accepted in [indexing]"),
    ("arange(3)['a']", "'a' is not accepted in [indexing]"),
    ("zeros(-'a')", "a sign applies only to a number"),
    ("zeros(3).view(os)", "the name 'os' is not accepted as an argument of view(...)"),
    ("zeros({3})", "a set"),
    ("zeros(3) if True else 1", "a conditional"),
    ("(y := zeros(3))", "an assignment (:=)"),
    ("arange(3", "not a Python expression"),
    pytest.param("arange(3)" + ".t()" * 50000, "the expression is nested too deeply for Python's parser",
                 id="50000-links"),
    pytest.param("tensor(" + "[" * 300 + "]" * 300 + ")", "not a Python expression (too many nested parentheses)",
                 id="300-brackets"),
    ("", "empty expression"),
    ("   ", "empty expression"),
])
def test_the_grammar_refuses(source, says):
    with pytest.raises(E.ExprError) as info:
        E.parse(source)
    message = str(info.value)
    assert says in message
    assert "\n" not in message
    assert "allowed: a chain that starts with a strided constructor (arange, zeros" in message
    assert isinstance(info.value, ValueError)


def test_the_grammar_never_runs_code(tmp_path, capsys):
    marker = tmp_path / "ran"
    code, out, err = run(capsys, "show", f"open({str(marker)!r}, 'w')")
    assert code == 2 and not marker.exists()
    assert err.startswith("strided show: open(...) is not a strided constructor; allowed:")


# ------------------------------------------------------------------ evaluation: views and copies


def test_evaluate_marks_views_and_copies():
    steps = E.evaluate(E.parse("arange(12).reshape(3,4).t().flatten()"))
    assert [(s.text, s.kind, s.nbytes) for s in steps] == [
        ("arange(12)", "new", 96), ("x.reshape(3, 4)", "view", 0), ("x.t()", "view", 0), ("x.flatten()", "copy", 96)]
    assert steps[1].input is steps[0].output and steps[3].input is steps[2].output
    assert steps[3].output.tolist() == [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]


def test_evaluate_stops_at_the_failing_step():
    steps = E.evaluate(E.parse("arange(12).reshape(3,4).t().view(12).flatten()"))
    assert len(steps) == 4 and steps[-1].kind == "error" and steps[-1].output is None
    assert isinstance(steps[-1].error, RuntimeError)
    assert steps[-1].mark().startswith("error: RuntimeError: view size is not compatible")


def test_marks_say_view_or_copy_with_bytes():
    steps = E.evaluate(E.parse("arange(6, dtype='float32').reshape(2,3).contiguous().to('float64').sum(0)"))
    marks = [s.mark() for s in steps]
    assert marks[0] == "new tensor (24 bytes of new storage)"
    assert marks[1] == "view (0 bytes copied; shares x's storage)"
    assert marks[2] == "view (0 bytes copied; shares x's storage) (returns x itself)"
    assert marks[3] == "copy (48 bytes copied into new storage)"
    assert marks[4] == "compute: a new tensor of 24 bytes (not a view, no copy of x)"


def _torch_chain(chain):
    """Apply ``chain`` to PyTorch: (kind, shape, strides) per step after the constructor, or the
    error class."""
    import torch as T

    out = []
    x = None
    for call in chain:
        try:
            if call.kind == "ctor":
                y = getattr(T, call.name)(*call.args, **call.kwargs)
            elif call.kind == "index":
                y = x[call.args[0]]
            elif call.kind == "attr":
                y = getattr(x, call.name)
            else:
                y = getattr(x, call.name)(*call.args, **call.kwargs)
        except Exception as exc:  # noqa: BLE001
            out.append(("error", next(c for c in type(exc).__mro__ if c.__module__ == "builtins").__name__))
            return out
        if x is not None:
            same = y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
            out.append(("view" if same else "copy", tuple(y.shape), y.stride()))
        x = y
    return out


CHAINS = [
    "arange(12).reshape(3,4).permute(1,0).flatten()",
    "arange(24).reshape(2,3,4).transpose(0,2).reshape(4,6)",
    "arange(24).reshape(2,3,4).transpose(0,2).reshape(4,3,2)",
    "zeros(2,3)[:, ::2].t()",
    "zeros(2,3)[:, ::2].t().contiguous()",
    "zeros(2,3)[:, ::2].view(4)",
    "ones(4,1).expand(4,5).reshape(20)",
    "ones(4,1).expand(4,5).unsqueeze(0).squeeze()",
    "arange(12).reshape(3,4).t().view(12)",
    "arange(12).unfold(0, 4, 2).clone()",
    "arange(16).reshape(4,4).diagonal().narrow(0, 1, 2)",
    "arange(12).reshape(3,4).mT.ravel()",
    "arange(12).reshape(3,4)[1].contiguous()",
    "arange(24).reshape(2,3,4).movedim(0, -1).flatten(1)",
    "arange(6).as_strided((2,2), (1,2), 1).unflatten(0, (1, 2))",
    "arange(12).reshape(3,4).select(1, 2).view(-1)",
    "zeros(3, 4).broadcast_to((2, 3, 4)).swapaxes(0, 1).reshape(6, 4)",
]


@pytest.mark.parametrize("source", CHAINS)
def test_views_and_copies_agree_with_torch(source):
    pytest.importorskip("torch")
    chain = E.parse(source)
    steps = E.evaluate(chain)
    ours = []
    for s in steps[1:]:
        if s.error is not None:
            ours.append(("error", E.error_line(s.error).split(":")[0]))
        else:
            ours.append((s.kind, tuple(s.output.shape), s.output.stride()))
    assert ours == _torch_chain(chain)


@pytest.mark.parametrize("source", CHAINS + [
    "zeros(2,3,4).T.mT.swapdims(0, 1).moveaxis(0, 2).ravel()",
    "arange(6).reshape(2,3).t().add(1)",
    "arange(6).reshape(2,3).to(float32)",
    "arange(6).reshape(2,3).to('float32')",  # a dtype NAME: the copy is counted in float32's itemsize
])
def test_explain_predicts_what_running_does(source):
    """``strided.explain`` (through the CLI's mapping of each step) predicts each step's verdict."""
    from strided.cli.commands import explainable

    checked = 0
    for step in E.evaluate(E.parse(source))[1:]:
        spec = explainable(step)
        if spec is None:
            continue
        op, args, kwargs, _ = spec
        report = strided.explain(step.input, op, *args, **kwargs)
        assert report.outcome == step.kind, (step.text, report.outcome, step.kind)
        if step.output is not None:
            assert report.shape == tuple(step.output.shape) and report.strides == step.output.stride()
        if step.kind == "copy":
            assert report.bytes_copied == step.nbytes
        checked += 1
    assert checked


# ------------------------------------------------------------------ strided show


def test_show_prints_every_step_marked(capsys):
    code, out, err = run(capsys, "show", "arange(12).reshape(3,4).permute(1,0).flatten()")
    assert code == 0 and err == ""
    heads = [line for line in out.splitlines() if line[:1].isdigit() and ". " in line[:4]]
    assert heads == [
        "0. arange(12) → new tensor (96 bytes of new storage)",
        "1. x.reshape(3, 4) → view (0 bytes copied; shares x's storage)",
        "2. x.permute(1, 0) → view (0 bytes copied; shares x's storage)",
        "3. x.flatten() → copy (96 bytes copied into new storage)",
    ]


def test_show_pictures_every_result(capsys):
    code, out, _ = run(capsys, "show", "arange(6).reshape(2,3).t()")
    assert code == 0
    steps = E.evaluate(E.parse("arange(6).reshape(2,3).t()"))
    for s in steps:  # each result's picture (the pictures' text, or the describe() fallback)
        assert str(render.picture(s.output)) in out


def test_show_explains_a_failing_step_and_exits_0(capsys):
    code, out, err = run(capsys, "show", "arange(12).reshape(3,4).t().view(12).flatten()")
    assert code == 0 and err == ""
    assert "3. x.view(12) → error: RuntimeError: view size is not compatible" in out
    # (wrapped to 80 columns, as a pipe is taken to be: the whole message, and each line fits)
    assert "  → error: RuntimeError: view size is not compatible with input tensor's size\n" in out
    assert "view size is not compatible with input tensor's size and stride" in " ".join(out.split())
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "fix: x.reshape(12)  (copies 96 bytes; a new contiguous tensor)" in out
    assert out.rstrip().endswith("(the chain stops at step 3: it raised; later steps were not run)")
    assert "x.flatten()" not in out


@pytest.mark.parametrize("source, line", [
    ("arange(3).numpy()", "strided show: method .numpy() is not accepted; allowed: "),
    ("print(1)", "strided show: print(...) is not a strided constructor; allowed: "),
    ("zeros(-1)", "strided show: zeros(-1) raised RuntimeError: Trying to create tensor with negative dimension -1"),
    ("tensor([1, 'a'])", "strided show: tensor([1, 'a']) raised "),
])
def test_show_refuses_bad_input_with_one_line(capsys, source, line):
    code, out, err = run(capsys, "show", source)
    assert code == 2 and out == ""
    assert err.startswith(line) and err.count("\n") == 1


def test_show_svg_writes_one_xml_document(capsys, tmp_path):
    path = tmp_path / "steps.svg"
    code, out, err = run(capsys, "show", "arange(12).reshape(3,4).t().flatten()", "--svg", str(path))
    assert code == 0 and err == ""
    assert out.rstrip().endswith(f"(SVG written to {path})")
    text = path.read_text(encoding="utf-8")
    root = ET.fromstring(text)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert text.count("<svg") == 1
    again = tmp_path / "again.svg"
    assert run(capsys, "show", "arange(12).reshape(3,4).t().flatten()", "--svg", str(again))[0] == 0
    assert again.read_text(encoding="utf-8") == text  # deterministic


def test_show_svg_of_a_failing_chain(capsys, tmp_path):
    path = tmp_path / "fail.svg"
    code, out, _ = run(capsys, "show", "arange(12).reshape(3,4).t().view(12)", "--svg", str(path))
    assert code == 0
    ET.fromstring(path.read_text(encoding="utf-8"))


def test_svg_to_an_unwritable_path(capsys, tmp_path):
    path = tmp_path / "no" / "such" / "dir.svg"
    code, out, err = run(capsys, "show", "arange(3)", "--svg", str(path))
    assert code == 2
    assert err.startswith(f"strided: cannot write the SVG file {str(path)!r}: No such file or directory")


def test_text_svg_escapes_markup():
    doc = render.text_svg(["a < b & c > d", "x\n\ny"])
    root = ET.fromstring(doc)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts == ["a < b & c > d", "x", "y"]


# ------------------------------------------------------------------ strided explain


def test_explain_a_failing_last_step(capsys):
    code, out, err = run(capsys, "explain", "arange(12).reshape(3,4).t().view(12)")
    assert code == 0 and err == ""
    want = str(strided.explain(strided.arange(12).reshape(3, 4).t(), "view", 12))
    assert out == want + "\n"


def test_explain_stops_at_the_failing_step(capsys):
    code, out, _ = run(capsys, "explain", "arange(12).reshape(3,4).t().view(12).flatten()")
    assert code == 0
    assert out.startswith("strided: x.view(12)\n")
    assert out.rstrip().endswith("(the chain stops here: later steps were not run)")


def test_explain_a_copy(capsys):
    code, out, _ = run(capsys, "explain", "arange(12).reshape(3,4).t().reshape(-1)")
    assert code == 0
    assert out.splitlines()[:3] == [
        "strided: x.reshape(-1)",
        "  input:  shape (4, 3), strides (1, 4), offset 0",
        "  → copy (96 bytes): shape (12,), strides (1,), offset 0",
    ]


@pytest.mark.parametrize("source, call, note", [
    ("zeros(2,3).t()", "x.transpose(0, 1)", "(x.t() is x.transpose(0, 1))"),
    ("zeros(2,3,4).T", "x.permute(2, 1, 0)", "(x.T is x.permute(2, 1, 0))"),
    ("zeros(2,3,4).mT", "x.transpose(-2, -1)", "(x.mT is x.transpose(-2, -1))"),
    ("zeros(2,3).swapaxes(0, 1)", "x.transpose(0, 1)", "(x.swapaxes is x.transpose)"),
    ("zeros(2,3).moveaxis(0, 1)", "x.movedim(0, 1)", "(x.moveaxis is x.movedim)"),
])
def test_explain_spells_aliases_in_explains_terms(capsys, source, call, note):
    code, out, _ = run(capsys, "explain", source)
    assert code == 0
    assert out.startswith(f"strided: {call}\n") and out.rstrip().endswith(note)
    assert "→ view (0 bytes copied)" in out


def test_explain_an_elementwise_step(capsys):
    code, out, _ = run(capsys, "explain", "zeros(4, 1).sub(1)")
    assert code == 0 and out.startswith("strided: x - 1\n") and "→ compute" in out


@pytest.mark.parametrize("source, lines", [
    ("arange(12).reshape(3,4)[:, ::2]",
     ["strided: x[:, ::2]", "  input:  shape (3, 4), strides (4, 1), offset 0",
      "  → view (0 bytes copied; shares x's storage): shape (3, 2), strides (4, 2), offset 0",
      "  (observed by running it: explain predicts the layout ops, not indexing)"]),
    ("arange(6.0).reshape(2,3).sum(1)",
     ["strided: x.sum(1)", "  input:  shape (2, 3), strides (3, 1), offset 0",
      "  → compute: a new tensor of 8 bytes (not a view, no copy of x): shape (2,), strides (1,), offset 0",
      "  (observed by running it: explain predicts the layout ops, not sum())"]),
    ("arange(12)[:, 1]",
     ["strided: x[:, 1]", "  input:  shape (12,), strides (1,), offset 0",
      "  → error: IndexError: too many indices for tensor of dimension 1"]),
])
def test_explain_observes_what_explain_does_not_predict(capsys, source, lines):
    code, out, _ = run(capsys, "explain", source)
    assert code == 0
    got = out.splitlines()
    assert got[:3] == lines[:3]
    assert got[-1] == (lines[3] if len(lines) > 3 else "  (observed by running it: explain predicts the layout ops, "
                       "not indexing)")


def test_explain_a_constructor_alone_is_its_layout(capsys):
    code, out, _ = run(capsys, "explain", "arange(12)")
    assert code == 0 and out == str(strided.explain(strided.arange(12))) + "\n"


def test_explain_bad_input(capsys):
    code, out, err = run(capsys, "explain", "arange(12).reshape(3,4).storage()")
    assert code == 2 and out == ""
    assert err.startswith("strided explain: method .storage() is not accepted; allowed: ")


@pytest.mark.parametrize("source", ["arange(12).reshape(3,4).t().view(12)", "arange(12).reshape(3,4)[:, 1:]",
                                    "arange(12)", "arange(12).reshape(3,4).t().contiguous()"])
def test_explain_svg_is_xml(capsys, tmp_path, source):
    path = tmp_path / "x.svg"
    code, _, _ = run(capsys, "explain", source, "--svg", str(path))
    assert code == 0
    assert ET.fromstring(path.read_text(encoding="utf-8")).tag == "{http://www.w3.org/2000/svg}svg"


# ------------------------------------------------------------------ the pictures contract


@pytest.fixture
def fake_pictures(monkeypatch):
    """A stand-in for ``strided.diagnose.pictures`` that records its calls."""
    calls = []

    class Pic:
        def __init__(self, label):
            self.label = label

        def text(self):
            return f"<picture {self.label}>"

        __str__ = text

        def show(self, file=None):
            print(f"<shown {self.label}>", file=file)

    def draw(x, op=None, /, *args, format="auto", **kwargs):
        calls.append(("draw", tuple(x.shape), op, args, kwargs, format))
        return Pic(f"{tuple(x.shape)} {op}")

    def svg_document(pictures, titles=None):
        calls.append(("svg_document", [p.label for p in pictures], list(titles)))
        return '<svg xmlns="http://www.w3.org/2000/svg"><text>ok</text></svg>'

    module = types.ModuleType("strided.diagnose.pictures")
    module.draw, module.svg_document = draw, svg_document
    monkeypatch.setitem(sys.modules, "strided.diagnose.pictures", module)
    monkeypatch.setattr(strided.diagnose, "pictures", module, raising=False)
    return calls


def test_show_draws_through_the_pictures_package(capsys, tmp_path, fake_pictures):
    path = tmp_path / "p.svg"
    code, out, _ = run(capsys, "show", "arange(6).reshape(2,3).t()", "--svg", str(path))
    assert code == 0
    assert "<shown (6,) None>" in out and "<shown (3, 2) None>" in out
    draws = [c for c in fake_pictures if c[0] == "draw"]
    assert [c[1] for c in draws] == [(6,), (2, 3), (3, 2)] and all(c[5] == "auto" for c in draws)
    (doc,) = [c for c in fake_pictures if c[0] == "svg_document"]
    assert doc[2][2] == "2. x.t() → view (0 bytes copied; shares x's storage)"
    assert path.read_text() == '<svg xmlns="http://www.w3.org/2000/svg"><text>ok</text></svg>'


def test_explain_svg_draws_before_and_after(capsys, tmp_path, fake_pictures):
    path = tmp_path / "e.svg"
    assert run(capsys, "explain", "arange(12).reshape(3,4).t().view(12)", "--svg", str(path))[0] == 0
    assert ("draw", (4, 3), "view", (12,), {}, "auto") in fake_pictures
    fake_pictures.clear()
    assert run(capsys, "explain", "arange(12).reshape(3,4).t()", "--svg", str(path))[0] == 0
    assert ("draw", (3, 4), "transpose", (0, 1), {}, "auto") in fake_pictures
    fake_pictures.clear()
    assert run(capsys, "explain", "arange(12).reshape(3,4)[:, 1]", "--svg", str(path))[0] == 0
    (doc,) = [c for c in fake_pictures if c[0] == "svg_document"]
    assert doc[1] == ["(3, 4) None", "(3,) None"] and doc[2][0].startswith("before: x")


# ------------------------------------------------------------------ strided watch


def _script(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(body)
    return str(path)


def test_watch_runs_a_script_as_main(capsys, tmp_path):
    script = _script(tmp_path, "prog.py", (
        "import sys\nimport strided\nimport helper\n"
        "assert __name__ == '__main__'\n"
        "x = strided.arange(12).reshape(3, 4)\n"
        "y = x.t().reshape(12)\n"
        "print('argv', sys.argv)\n"))
    _script(tmp_path, "helper.py", "")  # the script's directory is on sys.path, as under python
    argv, path = list(sys.argv), list(sys.path)
    code, out, err = run(capsys, "watch", script, "--lr", "3", "-v")
    assert code == 0 and err == ""
    assert f"argv [{script!r}, '--lr', '3', '-v']" in out
    assert "watch: 4 steps" in out
    rows = [line.split() for line in out.splitlines() if line[:1].isdigit()]
    assert [(r[1], r[2]) for r in rows] == [("arange", "alloc"), ("reshape", "view"), ("t", "view"),
                                            ("reshape", "copy")]
    assert rows[3][-2:] == ["COPY", "prog.py:6"]
    assert "total: 1 copies, 96 bytes copied" in out
    assert sys.argv == argv and sys.path == path


def test_watch_a_script_that_raises(capsys, tmp_path):
    script = _script(tmp_path, "bad.py", (
        "import strided\n"
        "def f():\n"
        "    return strided.arange(12).reshape(3, 4).t().view(12)\n"
        "f()\n"))
    code, out, err = run(capsys, "watch", script)
    assert code == 1
    assert "watch: 3 steps" in out  # what was recorded before the error
    first, second = err.splitlines()[:2]
    assert first.startswith("strided watch: the script raised ViewError: view size is not compatible")
    assert second == "Traceback (most recent call last):"
    assert f'File "{script}", line 4, in <module>' in err
    assert "runpy" not in err and "watch_script.py" not in err


def test_watch_passes_sys_exit_on(capsys, tmp_path):
    assert run(capsys, "watch", _script(tmp_path, "e3.py", "import sys\nsys.exit(3)\n"))[0] == 3
    assert run(capsys, "watch", _script(tmp_path, "e0.py", "import sys\nsys.exit()\n"))[0] == 0
    code, _, err = run(capsys, "watch", _script(tmp_path, "em.py", "import sys\nsys.exit('bye')\n"))
    assert code == 1 and err == "bye\n"


@pytest.mark.parametrize("name, body, says", [
    ("missing.py", None, "strided watch: cannot open the script {path!r}: No such file or directory"),
    ("broken.py", "def (:\n", "strided watch: {path!r} is not a Python script: invalid syntax"),
])
def test_watch_bad_input(capsys, tmp_path, name, body, says):
    path = str(tmp_path / name) if body is None else _script(tmp_path, name, body)
    code, out, err = run(capsys, "watch", path)
    assert code == 2 and out == ""
    assert err.startswith(says.format(path=path))


def test_watch_torch_when_the_script_imports_torch(capsys, tmp_path):
    pytest.importorskip("torch")
    script = _script(tmp_path, "t.py", "import torch\nx = torch.ones(4, 3).t().reshape(12)\n")
    code, out, _ = run(capsys, "watch", script)
    assert code == 0
    assert out.startswith("watch_torch: ") and "clone" in out and "COPY" in out
    assert "watch: 0 steps" not in out  # the empty strided report is left out
    code, out, _ = run(capsys, "watch", "--no-torch", script)
    assert code == 0 and out.startswith("watch: 0 steps") and "watch_torch" not in out


def test_watch_torch_forced(capsys, tmp_path):
    pytest.importorskip("torch")
    script = _script(tmp_path, "s.py", "import strided\nstrided.zeros(3).view(3, 1)\n")
    code, out, _ = run(capsys, "watch", "--torch", script)
    assert code == 0 and "watch: 2 steps" in out and "watch_torch: 0 steps" in out


def test_imports_torch():
    import ast

    from strided.cli.watch_script import imports_torch

    assert imports_torch(ast.parse("import os, torch.nn as nn"))
    assert imports_torch(ast.parse("def f():\n    from torch import nn"))
    assert not imports_torch(ast.parse("import torchvision_like\nfrom .torch import x\n'import torch'"))


# ------------------------------------------------------------------ tour, usage, help


def test_tour_calls_run_tour(capsys, monkeypatch):
    seen = []
    module = types.ModuleType("strided.cli.tour")
    module.run_tour = lambda lang="en", pause=None, out=None: seen.append((lang, pause)) or 0
    monkeypatch.setitem(sys.modules, "strided.cli.tour", module)
    assert run(capsys, "tour")[0] == 0
    assert run(capsys, "tour", "--lang", "zh", "--no-pause")[0] == 0
    assert seen == [("en", None), ("zh", False)]


def test_tour_missing(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "strided.cli.tour", None)  # as if the module were absent
    code, out, err = run(capsys, "tour")
    assert code == 2 and out == ""
    assert err == "strided tour: the tour is not in this build of strided (strided.cli.tour is missing)\n"


@pytest.mark.parametrize("argv", [[], ["tour"], ["show"], ["explain"], ["watch"]])
def test_help_on_every_command(capsys, argv):
    code, out, err = run(capsys, *argv, "--help")
    assert code == 0 and err == ""
    assert out.startswith("usage: strided" + (f" {argv[0]}" if argv else ""))


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_top_level_help_built_without_the_commands_arguments_is_the_same(capsys, flag):
    # `strided --help` builds the parser without the commands' own arguments (a start-up cost):
    # what it prints must be exactly what the full parser prints.
    from strided.cli.main import build_parser

    code, out, err = run(capsys, flag)
    assert code == 0 and err == ""
    assert out == build_parser().format_help() == build_parser(arguments=False).format_help()


@pytest.mark.parametrize("argv, says", [
    ([], "usage: strided"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
    (["show"], "the following arguments are required: EXPR"),
    (["explain", "arange(3)", "--svg"], "argument --svg: expected one argument"),
    (["tour", "--lang", "fr"], "argument --lang: invalid choice: 'fr'"),
    (["watch"], "the following arguments are required: SCRIPT"),
    (["watch", "--torch", "--no-torch", "x.py"], "not allowed with argument"),
])
def test_usage_errors_exit_2(capsys, argv, says):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert says in err


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("strided ")


# ------------------------------------------------------------------ a real process


def _python(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(SRC), COLUMNS="100")
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=120)


def test_the_console_script_in_a_subprocess():
    done = _python("-m", "strided.cli.main", "show", "arange(12).reshape(3,4).t().flatten()")
    assert done.returncode == 0, done.stderr
    assert "3. x.flatten() → copy (96 bytes copied into new storage)" in done.stdout
    done = _python("-m", "strided.cli.main", "explain", "__import__('os').system('echo hacked')")
    assert done.returncode == 2 and "hacked" not in done.stdout
    assert done.stderr.startswith("strided explain: method .system() is not accepted; allowed:")


def test_the_cli_stays_light():
    done = _python("-c", "import sys, strided.cli.main, strided.cli.commands, strided.cli.expr; "
                         "print(sorted(m for m in ('rich', 'torch') if m in sys.modules))")
    assert done.returncode == 0 and done.stdout.strip() == "[]"


@pytest.mark.parametrize("argv, code", [(["--version"], 0), (["--help"], 0), (["-h"], 0), ([], 2),
                                        (["frobnicate"], 2)])
def test_version_help_and_usage_errors_never_load_the_library(argv, code):
    # The console script's module is top level (strided_cli) so that these answer without running
    # strided/__init__.py (the start-up target of issue 23); a command that needs the library loads it.
    done = _python("-c", "import sys, strided_cli; code = strided_cli.main(sys.argv[1:]); "
                         "print(code, sorted(m for m in sys.modules if m == 'strided' or m.startswith('strided.')))",
                   *argv)
    assert done.stdout.strip().splitlines()[-1] == f"{code} []", (done.stdout, done.stderr)


def test_the_console_script_names_the_top_level_module():
    import tomllib

    project = tomllib.loads((SRC.parent / "pyproject.toml").read_text())
    assert project["project"]["scripts"]["strided"] == "strided_cli:main"
    assert "strided_cli" in project["tool"]["setuptools"]["py-modules"]
    import strided.cli.main as historical
    import strided_cli

    assert historical.main is strided_cli.main and historical.build_parser is strided_cli.build_parser


def test_a_reader_that_goes_away_is_no_error():
    env = dict(os.environ, PYTHONPATH=str(SRC))
    source = "zeros(40, 40)" + ".t()" * 200
    with subprocess.Popen([sys.executable, "-m", "strided.cli.main", "show", source], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as p:
        p.stdout.read(10)
        p.stdout.close()  # as `| head -c 10` does
        err = p.stderr.read().decode()
        assert p.wait(timeout=120) == 0
    assert "Traceback" not in err and "BrokenPipeError" not in err
