"""``strided.diagnose.pictures.draw``: pictures of layouts, as text, rich and SVG.

Snapshots pin the text and SVG of the classic layouts (``tests/snapshots/draw/``; rerun with
``STRIDED_UPDATE_SNAPSHOTS=1`` to rewrite them after a deliberate change, and read the diff).
Beside them, structural and differential checks: every shown cell's value and storage offset
equal what the array itself holds (strided, NumPy, PyTorch), the "after" side of a view equals
the op's real result, colours tie each logical cell to the storage cell it reads (read back
from the SVG), elision keeps a (1000, 1000) picture small.
"""

from __future__ import annotations

import io
import os
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings

import strided
from layout_strategies import specs
from strided.diagnose.pictures import Picture, draw, svg_document
from strided.diagnose.pictures.model import MAX_STRIP, GridCell, Panel, colour_of, elide, readers_at
from strided.diagnose.pictures.source import format_value, source_of

torch = pytest.importorskip("torch")

SNAPSHOTS = pathlib.Path(__file__).parent / "snapshots" / "draw"
UPDATE = os.environ.get("STRIDED_UPDATE_SNAPSHOTS") == "1"
SVG_NS = "{http://www.w3.org/2000/svg}"


def _snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no snapshot {path}: run with STRIDED_UPDATE_SNAPSHOTS=1 once"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from its snapshot"


def _classic():
    """The classic layouts, by name (built fresh each call)."""
    x = strided.arange(12).reshape(3, 4)
    return {
        "contiguous": x,
        "transpose": x.t(),
        "stepped": strided.arange(20).reshape(4, 5)[1:, ::2],
        "expand": strided.arange(3).reshape(3, 1).expand(3, 4),
        "numpy_negative": np.arange(12).reshape(3, 4)[::-1, ::2],
        "permute3d": strided.arange(24).reshape(2, 3, 4).permute(2, 0, 1),
        "zero_d": strided.tensor(7),
        "zero_size": strided.zeros(0, 3),
    }


@pytest.mark.parametrize("name", list(_classic()))
def test_text_snapshots(name):
    _snapshot(f"{name}.txt", draw(_classic()[name], format="text") + "\n")


@pytest.mark.parametrize("name", ["contiguous", "transpose", "expand", "numpy_negative", "permute3d",
                                  "zero_d", "zero_size"])
def test_svg_snapshots(name):
    _snapshot(f"{name}.svg", draw(_classic()[name], format="svg"))


def test_op_snapshots():
    x = strided.arange(12).reshape(3, 4)
    _snapshot("permute_view.txt", draw(x, "permute", 1, 0, format="text") + "\n")
    _snapshot("reshape_copy.txt", draw(x.t(), "reshape", 12, format="text") + "\n")
    _snapshot("reshape_copy.svg", draw(x.t(), "reshape", 12, format="svg"))


# ---------------------------------------------------------------- what the text says


def test_contiguous_text_names_every_reader_in_order():
    text = draw(strided.arange(12).reshape(3, 4), format="text")
    assert "shape (3, 4), strides (4, 1), offset 0, int64 (8 bytes each)" in text
    assert "contiguous: C — contiguous" in text
    assert "read by  0,0 0,1 0,2 0,3 1,0 1,1 1,2 1,3 2,0 2,1 2,2 2,3" in text
    assert "\x1b" not in text


def test_transpose_strip_reads_down_the_columns():
    text = draw(strided.arange(12).reshape(3, 4).t(), format="text")
    assert "contiguous: F — the transpose of a contiguous (3, 4)" in text
    assert "read by  0,0 1,0 2,0 3,0 0,1 1,1 2,1 3,1 0,2 1,2 2,2 3,2" in text


def test_expand_marks_every_storage_cell_read_four_times():
    pic = draw(strided.arange(3).reshape(3, 1).expand(3, 4))
    strip = pic.scene.panels[0].strip
    assert [c.offset for c in strip.cells] == [0, 1, 2]
    assert all(c.count == 4 and c.repeated for c in strip.cells)
    assert "0,0+3 1,0+3 2,0+3" in pic.text()
    assert "+n: read by n more indices (stride 0 or overlap)" in pic.text()


def test_steps_mark_skipped_cells():
    a = np.arange(12).reshape(3, 4)[::-1, ::2]
    strip = draw(a).scene.panels[0].strip
    assert (strip.lo, strip.hi) == (0, 10)
    assert [c.offset for c in strip.cells if c.skipped] == [1, 3, 5, 7, 9]
    assert [c.readers[0] for c in strip.cells if not c.skipped] == [(2, 0), (2, 1), (1, 0), (1, 1), (0, 0), (0, 1)]
    assert "·: skipped, no index reads it" in draw(a, format="text")


def test_zero_d_and_zero_size_draw_sensibly():
    zero_d = draw(strided.tensor(2.5))
    panel = zero_d.scene.panels[0]
    assert panel.grids[0].cells == ((GridCell((), "2.5", 0, 0.0),),)
    assert [c.readers for c in panel.strip.cells] == [((),)]
    empty = draw(np.zeros((2, 0, 3)), format="text")
    assert "no elements: shape (2, 0, 3) holds none, so it reads no storage" in empty
    assert "none touched" in empty
    assert "no elements" in draw(strided.zeros(0, 3), "transpose", 0, 1, format="text")


def test_3d_is_a_row_of_labelled_slices():
    pic = draw(strided.arange(24).reshape(2, 3, 4).permute(2, 0, 1))
    assert [g.label for g in pic.scene.panels[0].grids] == ["[0, :, :]", "[1, :, :]", "[2, :, :]", "[3, :, :]"]
    many = draw(torch.zeros(10, 3, 2, 2)).scene.panels[0].grids
    assert [None if g is None else g.label for g in many] == ["[0, 0, :, :]", "[0, 1, :, :]", None, "[9, 2, :, :]"]


# ---------------------------------------------------------------- elision


def test_elide():
    assert elide(5) == [0, 1, 2, 3, 4]
    assert elide(1000) == [0, 1, 2, 3, None, 996, 997, 998, 999]


@pytest.mark.parametrize("make", [
    lambda: strided.zeros(1000, 1000),
    lambda: strided.arange(10**6).reshape(1000, 1000).t(),
    lambda: np.zeros((1000, 1000))[::-3, 7:],
    lambda: torch.zeros(1000, 1, 1000).expand(1000, 1000, 1000),
    lambda: torch.zeros(10**6),
])
def test_large_tensors_are_elided(make):
    x = make()
    pic = draw(x)
    assert pic.scene.cell_count <= 300
    assert len(pic.text()) < 12_000
    assert len(pic.svg()) < 200_000
    strip = pic.scene.panels[0].strip
    assert len(strip.cells) == MAX_STRIP + 1 and strip.cells[MAX_STRIP // 2].offset is None
    grid = pic.scene.panels[0].grids[0]
    assert None in grid.col_labels


def test_large_copy_is_elided_both_sides():
    pic = draw(strided.zeros(1000, 1000).t(), "reshape", -1)
    assert len(pic.scene.panels) == 2
    assert pic.scene.cell_count <= 600
    assert len(pic.text()) < 20_000


# ---------------------------------------------------------------- values and offsets, against the arrays


def _offset(a):
    """An element's storage offset, as the array's own library reports it."""
    if isinstance(a, strided.Tensor):
        return a.storage_offset()
    if isinstance(a, np.ndarray):
        root = a
        while isinstance(root.base, np.ndarray):
            root = root.base
        return (a.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // a.itemsize
    return a.storage_offset()


def _check_panel(panel: Panel, arr):
    """Every shown cell holds arr's value at its index and arr's storage offset of that index."""
    for grid in panel.grids:
        for row in grid.cells if grid else ():
            for c in row:
                if c is None:
                    continue
                elem = arr[c.index] if c.index else arr[()]
                value = elem.item()
                assert c.value == format_value(value), (c, value)
                assert c.offset == _offset(arr) + sum(i * s for i, s in zip(c.index, _strides(arr)))


def _strides(a):
    if isinstance(a, np.ndarray):
        return tuple(s // a.itemsize for s in a.strides)
    return tuple(a.stride())


@settings(max_examples=60, deadline=None)
@given(specs(negative=True))
def test_numpy_cells_hold_the_arrays_values_and_offsets(spec):
    base = np.arange(spec.storage_size) * 10
    item = base.itemsize
    a = np.lib.stride_tricks.as_strided(base[spec.offset:], spec.shape, tuple(s * item for s in spec.strides))
    _check_panel(draw(a).scene.panels[0], a)


@settings(max_examples=60, deadline=None)
@given(specs())
def test_strided_and_torch_cells_hold_the_values_and_offsets(spec):
    for lib in (strided, torch):
        x = lib.arange(spec.storage_size).as_strided(spec.shape, spec.strides, spec.offset)
        pic = draw(x)
        _check_panel(pic.scene.panels[0], x)
        strip = pic.scene.panels[0].strip
        for c in strip.cells:
            if c.offset is not None:
                assert c.value == str(c.offset)  # arange: storage k holds k


@settings(max_examples=80, deadline=None)
@given(specs(negative=True))
def test_readers_at_agrees_with_listing_every_index(spec):
    shape, strides, offset = spec.shape, spec.strides, spec.offset + 20
    listing: dict[int, list] = {}
    for index in np.ndindex(*shape):
        k = offset + sum(i * s for i, s in zip(index, strides))
        listing.setdefault(k, []).append(tuple(int(i) for i in index))
    targets = list(range(offset - 25, offset + 25))
    got = readers_at(shape, strides, offset, targets)
    for k in targets:
        want = sorted(listing.get(k, []))
        assert got[k] == (len(want), tuple(want[:3])), k


_AFTER_OPS = [
    ("permute", (1, 0)), ("transpose", (0, 1)), ("reshape", (12,)), ("flatten", ()),
    ("expand", (2, 4, 3)), ("narrow", (0, 1, 2)), ("unfold", (0, 2, 1)), ("contiguous", ()),
]
_NUMPY_SPELLED = {"permute", "reshape", "flatten", "expand", "contiguous"}  # (NumPy has no narrow/unfold)


@pytest.mark.parametrize("lib, op, args", [
    (lib, op, args) for lib in ("strided", "torch", "numpy") for op, args in _AFTER_OPS
    if lib != "numpy" or op in _NUMPY_SPELLED
])
def test_after_panel_matches_the_ops_real_result(lib, op, args):
    """The "after" side (a view: explain's layout over x's storage; a copy: the op's values in
    the predicted layout) holds what running the op gives."""
    if lib == "numpy":
        numpy_ops = {"permute": ("transpose", ((1, 0),)), "reshape": ("reshape", ((12,),)),
                     "flatten": ("flatten", ()), "expand": ("broadcast_to", ((2, 4, 3),)),
                     "contiguous": ("ascontiguousarray", ())}
        op, args = numpy_ops[op]
        x = np.arange(12).reshape(3, 4)[::-1].T
        fn = x.flatten if op == "flatten" else (lambda *a: getattr(np, op)(x, *a))
    else:
        x = (strided if lib == "strided" else torch).arange(12).reshape(3, 4).t()
        fn = getattr(x, op)
    before = (np.array(x) if lib != "torch" else x.numpy()).copy()
    pic = draw(x, op, *args)
    result = fn(*args)
    assert len(pic.scene.panels) == 2
    after = pic.scene.panels[1]
    assert after.shape == tuple(result.shape)
    verdict = strided.explain(x, op, *args)
    if verdict.outcome == "view":
        _check_panel(after, result)
        assert "view, 0 bytes copied" in pic.scene.header[0]
    else:
        for grid in after.grids:
            for row in grid.cells if grid else ():
                for c in row:
                    if c is not None:
                        assert c.value == str(result[c.index].item())
                        # x's storage holds arange: an element's value is the offset it came from
                        assert c.origin == result[c.index].item()
                        assert c.rank == pytest.approx(c.origin / 11)  # x's colour for that offset
        for c in after.strip.cells:
            assert c.origin == int(c.value)
        assert f"copy, {verdict.bytes_copied:,} bytes" in pic.scene.header[0]
        assert any("from running" in line for line in pic.scene.header)
    assert np.array_equal(before, np.array(x) if lib != "torch" else x.numpy())  # x unchanged


def test_copy_shows_the_new_storage_order():
    x = strided.arange(12).reshape(3, 4)
    pic = draw(x.t(), "reshape", 12)
    after = pic.scene.panels[1]
    assert after.strip.label == "new storage"
    assert [c.value for c in after.strip.cells] == ["0", "4", "8", "1", "5", "9", "2", "6", "10", "3", "7", "11"]
    assert x.stride() == (4, 1) and x.t().stride() == (1, 4)
    text = pic.text()
    assert "x.reshape(12): copy, 96 bytes" in text
    assert "new storage: a copy of 96 bytes" in text


def test_view_keeps_each_elements_colour():
    x = strided.arange(12).reshape(3, 4)
    before, after = draw(x, "permute", 1, 0).scene.panels
    colours = {c.offset: c.rank for g in before.grids for row in g.cells for c in row if c}
    for row in after.grids[0].cells:
        for c in row:
            assert c.rank == colours[c.offset]


def test_error_and_compute_outcomes():
    x = strided.arange(6).reshape(2, 3)
    err = draw(x, "view", 5)
    assert len(err.scene.panels) == 1
    assert "error: RuntimeError: shape '[5]' is invalid for input of size 6" in err.text()
    shape_only = draw(x, "add", (3, 1, 1))
    assert "values: not computed" in shape_only.text()
    assert shape_only.scene.panels[1].shape == (3, 2, 3)
    computed = draw(np.arange(3), "sub", np.arange(3).reshape(3, 1))
    assert computed.scene.panels[1].grids[0].cells[2][0].value == "-2"


# ---------------------------------------------------------------- SVG


def _svg_fills(svg: str) -> tuple[dict, dict]:
    """Grid cells' fills by storage offset, and strip cells' fills by offset, read from the tooltips."""
    root = ET.fromstring(svg)
    grid, strip = {}, {}
    for g in root.iter(f"{SVG_NS}g"):
        title = g.find(f"{SVG_NS}title")
        rect = g.find(f"{SVG_NS}rect")
        if title is None or rect is None:
            continue
        text = title.text or ""
        if text.startswith("x["):
            grid.setdefault(int(text.rsplit("offset ", 1)[1]), set()).add(rect.get("fill"))
        elif text.startswith("storage["):
            strip[int(text[len("storage["):text.index("]")])] = rect.get("fill")
    return grid, strip


@pytest.mark.parametrize("name", list(_classic()))
def test_svg_is_wellformed_deterministic_and_colours_tie(name):
    svg = draw(_classic()[name], format="svg")
    assert svg == draw(_classic()[name], format="svg")
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG_NS}svg"
    grid, strip = _svg_fills(svg)
    for offset, fills in grid.items():
        assert fills == {strip[offset]}, offset  # each cell's colour is its storage cell's
    skipped = [k for k, fill in strip.items() if fill == "url(#skip)"]
    assert not set(skipped) & set(grid)


def test_svg_document_stacks_pictures():
    x = strided.arange(6).reshape(2, 3)
    doc = svg_document([draw(x), draw(x, "transpose", 0, 1)], ["x", "x.t()"])
    root = ET.fromstring(doc)
    texts = [t.text for t in root.iter(f"{SVG_NS}text")]
    assert "x" in texts and "x.t()" in texts
    assert doc == svg_document([draw(x), draw(x, "transpose", 0, 1)], ["x", "x.t()"])
    assert float(root.get("height")) > float(ET.fromstring(draw(x, "transpose", 0, 1, format="svg")).get("height"))
    assert colour_of(0.0) != colour_of(1.0)


# ---------------------------------------------------------------- terminal and the auto choice


def test_rich_rendering_colours_the_cells():
    from rich.console import Console

    out = io.StringIO()
    Console(file=out, force_terminal=True, color_system="truecolor", width=200).print(draw(strided.arange(4)))
    text = out.getvalue()
    assert "\x1b[" in text and "48;2;" in text  # background colours
    assert "read by" in text


def test_show_is_plain_on_a_pipe_and_coloured_on_a_terminal(monkeypatch):
    pic = draw(strided.arange(4))
    pipe = io.StringIO()
    pic.show(pipe)
    assert pipe.getvalue() == pic.text() + "\n" and "\x1b" not in pipe.getvalue()

    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.delenv("NO_COLOR", raising=False)
    tty = Tty()
    pic.show(tty)
    assert "\x1b[" in tty.getvalue()
    monkeypatch.setenv("TERM", "dumb")
    dumb = Tty()
    pic.show(dumb)
    assert "\x1b" not in dumb.getvalue()


def test_formats_and_str():
    x = strided.arange(4)
    pic = draw(x)
    assert isinstance(pic, Picture)
    assert str(pic) == pic.text() == draw(x, format="text")
    assert pic.svg() == draw(x, format="svg")
    assert draw(x, format="svg").startswith('<?xml version="1.0" encoding="UTF-8"?>\n<svg ')


def test_import_strided_does_not_import_rich():
    code = "import sys, strided, strided.diagnose.pictures; print('rich' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------- misuse


def test_bad_input_errors():
    x = strided.arange(4)
    with pytest.raises(TypeError, match="x must be a strided Tensor, a numpy.ndarray or a torch.Tensor, not list"):
        draw([1, 2, 3])
    with pytest.raises(ValueError, match="format must be one of 'auto', 'text', 'svg'"):
        draw(x, format="png")
    with pytest.raises(ValueError, match="unknown op 'nosuch'"):
        draw(x, "nosuch")
    with pytest.raises(TypeError, match="name the op first"):
        draw(x, None, 3)
    with pytest.raises(ValueError, match="2 titles for 1 pictures"):
        svg_document([draw(x)], ["a", "b"])
    with pytest.raises(TypeError, match="pictures must be Picture objects"):
        svg_document([x])


def test_keyword_arguments_reach_the_op():
    a = np.arange(12.0)
    pic = draw(a, "reshape", (3, 4), order="F")
    assert pic.scene.header[0].startswith("np.reshape(x, (3, 4), order='F'): view")
    _check_panel(pic.scene.panels[1], np.reshape(a, (3, 4), order="F"))
    refused = draw(a.reshape(3, 4).T, "reshape", (12,), copy=False)
    assert "error: ValueError: Unable to avoid creating a copy while reshaping." in refused.text()


def test_one_byte_items_say_byte():
    assert "bool (1 byte each)" in draw(np.zeros(2, dtype=bool), format="text")


def test_draw_inside_watch_records_nothing_of_its_own():
    x = strided.arange(12).reshape(3, 4)
    with strided.watch() as w:
        y = x.t()
        draw(y, "reshape", 12).text()
        draw(y)
    assert [s.name for s in w.steps] == ["t"]
    t = torch.arange(12).reshape(3, 4)
    with strided.watch_torch() as wt:
        u = t.t()
        draw(u, "reshape", 12).text()
    assert len(wt.steps) == 1


def _check_after(pic, x, result, verdict):
    after = pic.scene.panels[1]
    assert after.shape == tuple(result.shape)
    if verdict.outcome == "view":
        _check_panel(after, result)
        return
    for grid in after.grids:
        for row in grid.cells if grid else ():
            for c in row:
                if c is not None:
                    value = result[c.index].item() if c.index else result[()].item()
                    assert c.value == format_value(value)
                    if c.origin is not None:  # the element x holds at that storage offset
                        assert format_value(source_of(x).value_at(c.origin)) == c.value


def _ops_for(ndim, library):
    if library == "numpy":
        ops = [("ravel", ()), ("transpose", ()), ("reshape", (-1,)), ("ascontiguousarray", ()), ("copy", ())]
    else:
        ops = [("reshape", (-1,)), ("flatten", ()), ("contiguous", ()), ("clone", ())]
        if ndim:
            ops += [("permute", tuple(reversed(range(ndim)))), ("transpose", (0, ndim - 1))]
    return ops


@settings(max_examples=40, deadline=None)
@given(specs(negative=True))
def test_after_side_matches_running_the_op_numpy(spec):
    base = np.arange(spec.storage_size) * 10
    a = np.lib.stride_tricks.as_strided(base[spec.offset:], spec.shape, tuple(s * 8 for s in spec.strides))
    for op, args in _ops_for(a.ndim, "numpy"):
        result = getattr(np, op)(a, *args)
        _check_after(draw(a, op, *args), a, result, strided.explain(a, op, *args))


@settings(max_examples=40, deadline=None)
@given(specs())
def test_after_side_matches_running_the_op_strided_and_torch(spec):
    for lib in (strided, torch):
        x = lib.arange(spec.storage_size).as_strided(spec.shape, spec.strides, spec.offset)
        for op, args in _ops_for(x.ndim, "torch"):
            verdict = strided.explain(x, op, *args)
            if verdict.outcome == "error":
                continue
            _check_after(draw(x, op, *args), x, getattr(x, op)(*args), verdict)


def test_numpy_memory_not_owned_by_an_ndarray_walked_backwards():
    """as_strided's result has no ndarray base: offsets count from x's first element, and the
    strip (and a copy's origins) reach before it (negative offsets)."""
    base = np.arange(10) * 10
    a = np.lib.stride_tricks.as_strided(base[5:], (3,), (-16,))
    assert a.tolist() == [50, 30, 10]
    pic = draw(a, "copy")
    before, after = pic.scene.panels
    assert (before.strip.lo, before.strip.hi) == (-4, 0)
    assert [c.value for c in before.strip.cells] == ["10", "20", "30", "40", "50"]
    assert [c.origin for c in after.strip.cells] == [0, -2, -4]
    assert [c.value for c in after.strip.cells] == ["50", "30", "10"]


def test_dtype_changes_show_the_results_dtype():
    retyped = draw(torch.arange(3), "view", torch.int32)
    after = retyped.scene.panels[1]
    assert after.caption[0] == "shape (6,), strides (1,), offset 0, int32 (4 bytes each)"
    assert [c.value for c in after.grids[0].cells[0]] == ["0", "0", "1", "0", "2", "0"]  # little-endian halves
    converted = draw(torch.arange(3), "to", torch.float16).scene.panels[1]
    assert "float16 (2 bytes each)" in converted.caption[0]
    assert [c.value for c in converted.grids[0].cells[0]] == ["0.", "1.", "2."]
    assert all(c.origin is None for c in converted.strip.cells)  # a conversion's origins are not traced
    promoted = draw(strided.arange(3), "add", 0.5).scene.panels[1]
    assert "float32" in promoted.caption[0]
    assert [c.value for c in promoted.strip.cells] == ["0.5", "1.5", "2.5"]
