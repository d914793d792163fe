"""``strided tour``: end to end in both languages, snapshots of its full text, its pausing, its
command line, and its contract with the pictures module.

Snapshots: ``tests/snapshots/tour_en.txt`` and ``tour_zh.txt`` pin every line the tour prints
with ``--no-pause``, except the pictures (drawn by ``strided.diagnose.pictures``, pinned by its
own tests): here each picture is one ``[picture ...]`` line naming what was drawn. Addresses
(``data_ptr``) are replaced by ``0xPTR1``, ``0xPTR2``, ... in order of first appearance, so which
ones are equal still shows; file paths by ``<path>``. After a deliberate change to the tour,
regenerate them with::

    STRIDED_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_tour.py

and read the diff before committing.
"""

from __future__ import annotations

import difflib
import io
import os
import re
import string
import subprocess
import sys
import types
import warnings
from pathlib import Path

import pytest

import strided
from strided.cli import tour
from strided.cli.tour_text import LANGS, README_SECTIONS, TEXTS, text
from strided.ops.shape.broadcasting import get_broadcasting

SNAPSHOTS = Path(__file__).parent / "snapshots"
NAMES = [name for name, _ in tour.STEPS]


# ------------------------------------------------------------------ helpers


class FakeTerminal(io.StringIO):
    """A stdin that says it is a terminal and counts the lines read from it."""

    def __init__(self, typed: str = "") -> None:
        super().__init__(typed)
        self.reads = 0

    def isatty(self) -> bool:
        return True

    def readline(self, *args) -> str:  # type: ignore[override]
        self.reads += 1
        return super().readline(*args)


class Untouchable(io.StringIO):
    """A stdin that is not a terminal and must never be read."""

    def readline(self, *args) -> str:  # type: ignore[override]
        raise AssertionError("the tour read stdin although it must not pause")


def run(lang: str = "en", **kwargs) -> tuple[int, str]:
    buf = io.StringIO()
    code = tour.run_tour(lang, out=buf, **kwargs)
    return code, buf.getvalue()


def heading(lang: str, number: int) -> str:
    name = NAMES[number - 1]
    return f"{text('step', lang, n=number, total=len(NAMES))} · {text(name + '.title', lang)}"


def picture_stub(out, x, op=None, /, *args, width=80, name="x", lang="en", **kwargs) -> None:
    lay = x.layout
    call = "" if op is None else f"; {op}{args}{kwargs or ''}"
    out.write(f"[picture {name}: shape {lay.shape}, strides {lay.strides}, offset {lay.offset}{call}]\n")


def normalise(s: str) -> str:
    """Addresses become 0xPTR1, 0xPTR2, ... by first appearance (equal ones stay equal); paths <path>."""
    seen: dict[str, str] = {}

    def ptr(m: re.Match) -> str:
        return seen.setdefault(m.group(0), f"0xPTR{len(seen) + 1}")

    s = re.sub(r"0x[0-9a-f]{6,}", ptr, s)
    return re.sub(r"(?:[A-Za-z]:)?[\\/][^\s:\"']*\.py", "<path>", s)


# ------------------------------------------------------------------ end to end


@pytest.mark.parametrize("lang", LANGS)
def test_whole_tour_without_pausing(lang):
    code, out = run(lang, pause=False)
    assert code == 0
    for number in range(1, len(NAMES) + 1):
        assert heading(lang, number) in out
    positions = [out.index(heading(lang, n)) for n in range(1, len(NAMES) + 1)]
    assert positions == sorted(positions)
    assert text("prompt", lang) not in out
    # the live numbers of the spec's steps
    for live in (
        "strides (4, 1)" if lang == "en" else "(4, 1)",  # 1. the arange
        "(1, 4)", "0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11",  # 2. permute and its logical order
        "ViewError: view size is not compatible", "(3, 1)",  # 3. view fails, contiguous()
        "(2, 60)", "a.flatten()", "np.ravel(a.T)",  # 4. flatten
        "4 5 ? ?",  # 5. resize_'s uninitialized tail
        "Unable to avoid creating a copy while reshaping",  # 6. copy=False
        "(8, 7, 6, 5)", "(6, 0, 1, 0)", "(0, 5, 0, 1)",  # 7. broadcasting, stride 0
        "(4, 4)", "BroadcastError: sub: broadcasting stretched both operands", "<tour step 8>:2",  # 8.
        "(512, 16, 128, 1)", "COPY", "contiguous  copy" if lang == "en" else "contiguous  拷贝",  # 9. the watch table
    ):
        assert live in out, live


@pytest.mark.parametrize("lang", LANGS)
def test_live_values_are_strideds(lang):
    """The numbers on the screens are the ones strided computes, not copies of a text."""
    _, out = run(lang, pause=False)
    x = strided.arange(12).view(3, 4)
    y = x.permute(1, 0)
    assert str(y.stride()) in out and str(y.contiguous().stride()) in out
    with strided.watch() as w:
        h = strided.ones(2, 8, 64).view(2, 8, 4, 16).transpose(1, 2)
        (h @ h.transpose(-2, -1)).softmax(-1)
    assert str(w.steps[-1].output.strides) in out
    # data_ptr equality is printed as the comparison's value
    equal = "equal: True" if lang == "en" else "二者相等：True"
    differ = "equal: False" if lang == "en" else "二者相等：False"
    assert equal in out and differ in out


def test_uninitialized_tail_is_never_printed(monkeypatch):
    """Only the grown storage's first 6 elements are shown; the rest are "?" whatever they hold."""
    from strided.kernels import memory

    real = memory.allocate

    def poisoned(n, dtype, shape):
        buf = real(n, dtype, shape)
        buf.fill(987654321)
        return buf

    monkeypatch.setattr(memory, "allocate", poisoned)
    _, out = run("en", pause=False)
    assert "987654321" not in out
    assert "    0 1 2 3\n    4 5 ? ?\n    ? ? ? ?" in out


# ------------------------------------------------------------------ snapshots


@pytest.mark.parametrize("lang", LANGS)
def test_snapshot(lang, monkeypatch):
    pytest.importorskip("torch")  # (step 9 shows PyTorch's copies when it is there: pinned with it)
    monkeypatch.setattr(tour, "draw_picture", picture_stub)
    code, out = run(lang, pause=False)
    assert code == 0
    got = normalise(out)
    path = SNAPSHOTS / f"tour_{lang}.txt"
    if os.environ.get("STRIDED_UPDATE_SNAPSHOTS"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(got, encoding="utf-8")
    want = path.read_text(encoding="utf-8")
    if got != want:
        diff = "\n".join(difflib.unified_diff(want.splitlines(), got.splitlines(), str(path), "now", lineterm=""))
        pytest.fail(f"the tour's {lang} text changed (regenerate: see this file's docstring):\n{diff}")


def test_snapshots_keep_pointer_identity():
    """The normalisation keeps which addresses are equal: x and its view share one label."""
    snap = (SNAPSHOTS / "tour_en.txt").read_text(encoding="utf-8")
    m = re.search(r"x\.data_ptr\(\) = (0xPTR\d+), y\.data_ptr\(\) = (0xPTR\d+)", snap)
    assert m and m.group(1) == m.group(2)
    m = re.search(r"start = (0xPTR\d+), t\.data_ptr\(\) = (0xPTR\d+)", snap)
    assert m and m.group(1) != m.group(2)


def test_normalise():
    assert normalise("a 0x55be912e69b0 b 0x55be912d1c60 c 0x55be912e69b0") == "a 0xPTR1 b 0xPTR2 c 0xPTR1"
    assert normalise('at /home/u/x/strided/cli/tour.py:12 and "C:\\a\\b.py"') == 'at <path>:12 and "<path>"'
    assert normalise("strides (4, 1), 0x12 stays") == "strides (4, 1), 0x12 stays"


# ------------------------------------------------------------------ pausing


def test_enter_goes_on_and_q_quits():
    keys = FakeTerminal("\n\nq\n")
    code, out = run("en", stdin=keys)  # pause=None: stdin is a terminal, so it pauses
    assert code == 0
    assert keys.reads == 3
    for n in (1, 2, 3):
        assert heading("en", n) in out
    assert heading("en", 4) not in out
    assert out.count(text("prompt", "en")) == 3
    assert out.rstrip().endswith(text("bye", "en"))


@pytest.mark.parametrize("answer", ["q\n", "Q\n", " quit \n", ""])
def test_quit_answers_and_end_of_input(answer):
    keys = FakeTerminal(answer)
    code, out = run("zh", pause=True, stdin=keys)
    assert code == 0
    assert heading("zh", 1) in out and heading("zh", 2) not in out
    assert text("bye", "zh") in out


def test_enter_through_every_step():
    keys = FakeTerminal("\n" * 20)
    code, out = run("en", stdin=keys)
    assert code == 0
    assert keys.reads == len(NAMES) - 1  # no prompt after the last step
    assert heading("en", len(NAMES)) in out
    assert text("bye", "en") not in out


def test_sys_stdin_is_the_default(monkeypatch):
    keys = FakeTerminal("\nq\n")
    monkeypatch.setattr(sys, "stdin", keys)
    code, out = run("en")
    assert code == 0 and keys.reads == 2
    assert heading("en", 2) in out and heading("en", 3) not in out


def test_no_pause_when_stdin_is_not_a_terminal(monkeypatch):
    monkeypatch.setattr(sys, "stdin", Untouchable())
    code, out = run("en")
    assert code == 0
    assert heading("en", len(NAMES)) in out
    assert text("prompt", "en") not in out


def test_pause_false_never_reads_even_a_terminal():
    keys = FakeTerminal("q\n")
    code, out = run("en", pause=False, stdin=keys)
    assert code == 0 and keys.reads == 0
    assert heading("en", len(NAMES)) in out


def test_bad_arguments():
    with pytest.raises(ValueError, match="lang must be one of 'en', 'zh', not 'fr'"):
        tour.run_tour("fr", pause=False, out=io.StringIO())
    with pytest.raises(TypeError, match="pause must be True, False or None, not str"):
        tour.run_tour("en", pause="yes", out=io.StringIO())


# ------------------------------------------------------------------ it leaves nothing behind


def test_broadcasting_mode_neither_used_nor_leaked():
    """The tour shows the default mode even inside a caller's "warn" block, and leaves it as found."""
    with strided.broadcasting("warn"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            code, _ = run("en", pause=False)
        assert code == 0
        assert not [w for w in caught if issubclass(w.category, strided.BroadcastWarning)]
        assert get_broadcasting()[0] == "warn"


# ------------------------------------------------------------------ the texts


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("key", sorted(TEXTS))
def test_every_text_in_both_languages_with_the_same_placeholders(key):
    entry = TEXTS[key]
    assert set(entry) == set(LANGS)
    assert _fields(entry["en"]) == _fields(entry["zh"])
    if key not in ("rules.numpy",):
        assert re.search(r"[\u4e00-\u9fff]", entry["zh"]), f"{key}: no Chinese in the zh text"


def test_every_step_has_a_title_and_readme_sections_exist():
    for name in NAMES:
        assert name + ".title" in TEXTS
    assert all(k in TEXTS for k in README_SECTIONS)
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    for key in README_SECTIONS:
        title = TEXTS[key]["en"].split(" — ")[0]
        assert title.split(":")[0] in readme, title


def test_text_errors():
    with pytest.raises(KeyError, match="no template 'nope'"):
        text("nope", "en")
    with pytest.raises(ValueError, match="lang must be one of 'en', 'zh'"):
        text("step", "de", n=1, total=2)


# ------------------------------------------------------------------ pictures


def _fake_pictures(monkeypatch, calls):
    class Picture:
        def __init__(self, label):
            self.label = label

        def show(self, file=None):
            file.write(f"RICH {self.label}\n")

    def draw(x, op=None, /, *args, format="auto", **kwargs):
        calls.append((tuple(x.shape), op, args, kwargs, format))
        label = f"{tuple(x.shape)} {op} {args}"
        return f"TEXT {label}\n" if format == "text" else Picture(label)

    module = types.ModuleType("strided.diagnose.pictures")
    module.draw = draw
    monkeypatch.setitem(sys.modules, "strided.diagnose.pictures", module)


def test_pictures_drawn_by_the_pictures_module(monkeypatch):
    """The tour asks ``draw`` for a Picture and hands it to ``render.show``, which lays out a
    real picture to the width and shows any other picture as it shows itself."""
    calls: list = []
    _fake_pictures(monkeypatch, calls)
    _, out = run("en", pause=False)
    assert ((3, 4), None, (), {}, "auto") in calls
    assert ((3, 4), "permute", (1, 0), {}, "auto") in calls
    assert ((4, 3), "reshape", (-1,), {}, "auto") in calls
    assert all(c[-1] == "auto" for c in calls)
    assert "RICH (3, 4) permute (1, 0)" in out


@pytest.mark.parametrize("width, side_by_side", [(80, False), (140, True)])
def test_pictures_stack_when_they_do_not_fit(width, side_by_side):
    """Step 2's before and after panels: one under the other at 80 columns, side by side at
    140; never a line wider than the width, and both panels whole (each its caption and its
    storage strip)."""
    from strided.cli.render import display_width

    buf = io.StringIO()
    tour.draw_picture(buf, strided.arange(12).view(3, 4), "permute", 1, 0, width=width)
    lines = buf.getvalue().splitlines()
    assert max(map(display_width, lines)) <= width
    before = [i for i, line in enumerate(lines) if line.startswith("before: ")]
    assert len(before) == 1
    assert ("after: x.permute(1, 0)" in lines[before[0]]) == side_by_side
    assert sum(line.count("bytes each)") for line in lines) == 2
    assert sum(line.count("read by") for line in lines) == 2


def test_pictures_labelled_with_the_steps_own_names():
    """Each picture calls the tensor what the step calls it (``draw`` alone says ``x``)."""
    _, out = run("en", pause=False)
    steps = out.split("════ Step ")
    assert "\nbefore: x\n" in steps[2] and "after: x.permute(1, 0)" in steps[2]
    assert "\nbefore: y\n" in steps[3] and "after: y.reshape(-1)" in steps[3]
    assert "before: x" not in steps[3]
    assert "\nea[0, 0]\n" in steps[7] and "\neb[0, 0]\n" in steps[7]
    assert "\nx\n" not in steps[7]


def test_chinese_pictures_and_explanations_are_chinese():
    """In the Chinese tour the pictures' words and the lines explaining an error are Chinese;
    the error's first line stays the peer's own (a web search still finds it)."""
    _, out = run("zh", pause=False)
    step3 = out.split("════ 第 3/10 步")[1].split("════ 第 4/10 步")[0]
    assert "\n之前：y\n" in step3 and "\n之后：y.reshape(-1)\n" in step3
    assert "形状 (4, 3)，步长 (1, 4)，偏移 0，int64（每个元素 8 字节）" in step3
    assert "y 的 strided 存储，元素 0..11（涉及 12 个）：" in step3
    assert "\n偏移 " in step3 and "\n读取者 " in step3
    for english in ("before:", "after:", "bytes each", "storage of", "touched", "\nread by", "\noffset "):
        assert english not in step3, english
    assert "    ViewError: view size is not compatible with input tensor's size and stride\n" in step3
    assert "      张量：形状 (4, 3)，步长 (1, 4)——连续的 (3, 4) 的转置\n" in step3
    assert "修正：.reshape(12) 把 96 字节拷贝到一个新的连续张量" in step3
    assert "tensor: shape" not in out and "fix:" not in out and "must merge" not in out
    # the copy ledger's and explain's reasons, and the watches' summaries, are Chinese too
    assert "reshape(12)：第 0、1 维无法合并" in step3 and "cannot merge" not in out
    assert "resize_把存储扩大到12个元素" in "".join(out.split()) and "grew storage" not in out
    step9 = out.split("════ 第 9/10 步")[1]
    assert "watch：共 9 步；" in step9 and "合计：拷贝 1 次，共 4,096 字节" in step9 and "布局拷贝" in step9
    assert "contiguous()：形状(2,8,4,16)、步长(512,16,128,1)的张量第2维步长为128" in "".join(step9.split())
    for english in ("what to look at", "layout copy", "total:", "bilateral broadcasts", "inside matmul"):
        assert english not in out, english
    # a copy's strip says where each element came from in words, in the tensor's own language
    assert "\n拷贝自 " in step3 and "x@" not in out
    # a wrapped line never ends on an opening bracket (it moves to the next line with its word)
    assert not [line for line in out.splitlines() if line.rstrip().endswith(("（", "「", "《", "“"))]
    # the English tour keeps the pictures' own words
    _, en = run("en", pause=False)
    assert "\nbefore: y\n" in en and "strided storage of y, elements 0..11 (12 touched):" in en
    assert "      tensor: shape (4, 3), strides (1, 4) — the transpose of a contiguous" in en


@pytest.mark.parametrize("width", [40, 60, 79, 80])
def test_an_opening_bracket_never_ends_a_line(width):
    """A wrap never leaves "（" at a line's end: it goes to the next line with the word it opens."""
    from strided.cli.render import display_width, wrap

    line = "a (8, 1, 6, 1) + b (7, 1, 5) 得到 (8, 7, 6, 5)，依据的是 NumPy 的三条广播规则（PyTorch 和 strided 也遵循它们）："
    lines = wrap(line, width)
    assert len(lines) > 1 and all(display_width(part) <= width for part in lines)
    assert not [part for part in lines if part.endswith("（")], lines
    assert "".join(part.strip() for part in lines).replace(" ", "") == line.replace(" ", "")


def test_translate_keeps_unknown_lines_and_indent():
    from strided.cli.tour_text import translate

    assert translate("    something new", "zh") == "    something new"
    assert translate("  before: y", "en") == "  before: y"
    assert translate("  aligned from the right, their sizes 6 and 5 differ and neither is 1", "zh") == (
        "  从右对齐后，它们的大小 6 与 5 不同，且都不是 1")


def test_pictures_coloured_on_a_terminal(monkeypatch):
    class TerminalOut(io.StringIO):
        def isatty(self):
            return True

    calls: list = []
    _fake_pictures(monkeypatch, calls)
    buf = TerminalOut()
    assert tour.run_tour("en", pause=False, out=buf) == 0
    assert calls and all(c[-1] == "auto" for c in calls)
    assert "RICH (3, 4) permute (1, 0)" in buf.getvalue()


def test_fallback_picture_without_the_pictures_module(monkeypatch):
    monkeypatch.setitem(sys.modules, "strided.diagnose.pictures", None)  # import fails
    buf = io.StringIO()
    tour.draw_picture(buf, strided.arange(12).view(3, 4).t(), "reshape", -1)
    out = buf.getvalue()
    assert "shape (4, 3), strides (1, 4), offset 0" in out
    assert "4@1" in out and "→ copy (96 bytes)" in out


# ------------------------------------------------------------------ command line


def _python(*args: str, stdin=subprocess.DEVNULL) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parent.parent / "src"), PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, encoding="utf-8",
                          stdin=stdin, env=env, timeout=120)


def test_module_runs_in_chinese_without_torch_and_does_not_pause_when_stdin_is_not_a_terminal():
    """PyTorch is optional: without it (here made unimportable) step 9 says what it skips and
    the tour goes on to the end. The same one subprocess runs the module's ``-m`` entry (runpy's
    ``run_module(..., alter_sys=True)`` is what ``python -m`` calls) with stdin /dev/null, not a
    terminal and no ``--no-pause``: it never pauses. (One subprocess, not two: each costs a Python
    start, and one with torch importable costs torch's import too; step 9 with torch is checked in
    process by test_attention_in_torch_shows_matmuls_hidden_clones.)"""
    probe = ("import runpy, sys; sys.modules['torch'] = None; sys.argv = ['tour', '--lang', 'zh']; "
             "runpy.run_module('strided.cli.tour', run_name='__main__', alter_sys=True)")
    r = _python("-c", probe)  # stdin is /dev/null: not a terminal
    assert r.returncode == 0, r.stderr
    assert heading("zh", 1) in r.stdout and heading("zh", len(NAMES)) in r.stdout
    assert "没有安装 PyTorch" in r.stdout and "watch_torch() as tw" not in r.stdout
    assert text("prompt", "zh") not in r.stdout


def test_attention_in_torch_shows_matmuls_hidden_clones():
    """Step 9 reruns its five lines under watch_torch: the numbers on the screen are the watch's,
    and the copies matmul makes of its transposed operands are counted apart from the one asked for."""
    torch = pytest.importorskip("torch")
    _, out = run("en", pause=False)
    step9 = out.split("════ Step 9/10")[1].split("════ Step 10/10")[0]
    x = torch.ones(2, 8, 64)
    with strided.watch_torch() as w:
        heads = x.view(2, 8, 4, 16).transpose(1, 2)
        scores = (heads @ heads.transpose(-2, -1)).softmax(-1)
        out_ = scores @ heads
        out_.transpose(1, 2).contiguous().view(2, 8, 64)
    hidden = [c for c in w.copies if not c.asked]
    assert len(hidden) == 3 and all("matmul" in c.reason for c in hidden)
    assert "    >>> with strided.watch_torch() as tw:" in step9
    assert "inside matmul(): clone makes" in step9
    flat = " ".join(step9.split())
    assert (f"copies {len(w.copies)} times, {w.bytes_copied:,} bytes in all. Only 1 of those copies is the "
            f"contiguous() you asked for; the other 3 ({sum(c.nbytes for c in hidden):,} bytes)") in flat


def test_module_usage_errors(capsys):
    # in process: argparse exits the same way under ``-m`` (whose entry the test above runs)
    with pytest.raises(SystemExit) as info:
        tour.main(["--lang", "fr"])
    assert info.value.code == 2
    assert "invalid choice: 'fr'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        tour.main(["--help"])
    out = capsys.readouterr().out
    assert info.value.code == 0 and "--no-pause" in out and "--lang" in out
