"""``strided show "EXPR"`` and ``strided explain "EXPR"``: an expression's steps, pictured and explained.

Both parse EXPR with :func:`~.expr.parse` (never ``eval``) and run it with :func:`~.expr.evaluate`.

- ``show`` prints every step: its call, ``view`` or ``copy`` with the bytes, and the picture of
  its result. A step that fails is printed with its explanation and ends the chain; that is a
  successful ``show`` (exit 0), as for ``explain``: the user asked to see what happens.
- ``explain`` prints ``strided.explain`` of the last step (its input, op and arguments), or of
  the step that failed; a chain that is only a constructor gets the layout explanation.

Exit codes: 0 shown / explained (failing step or not), 2 an expression outside the grammar or a
constructor that raised (there is no tensor to show). ``--svg FILE`` writes one SVG document.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from ..diagnose.explain import explain
from ..diagnose.explain_broadcast import ELEMENTWISE_OPS
from ..diagnose.explain_torch import TORCH_OPS
from . import render
from .expr import ExprError, Step, error_line, evaluate, parse

__all__ = ["explain_command", "explainable", "show_command"]


def _steps(command: str, source: str, err: TextIO) -> tuple[list[Step], int] | None:
    """The evaluated steps and the number of links in the chain, or None after printing the
    one-line error (bad input: exit 2)."""
    try:
        chain = parse(source)
    except ExprError as exc:
        print(f"strided {command}: {exc}", file=err)
        return None
    steps = evaluate(chain)
    first = steps[0]
    if first.error is not None:
        print(f"strided {command}: {first.text} raised {error_line(first.error)}", file=err)
        return None
    return steps, len(chain)


def explainable(step: Step) -> tuple[str, tuple[Any, ...], dict[str, Any], str] | None:
    """The ``(op, args, kwargs, note)`` that ``strided.explain`` predicts ``step`` as, or None when
    explain does not cover the step (indexing, reductions, ...). Aliases are spelled out in
    explain's own terms (``t()`` is ``transpose(0, 1)``); ``note`` says so."""
    call, x = step.call, step.input
    if x is None or call.kind == "index":
        return None
    name, args, kwargs = call.name, call.args, call.kwargs
    ndim = x.ndim  # (the aliases first: spelt in the terms a reader of explain knows best)
    if name == "t" and ndim == 2 and not args and not kwargs:
        return "transpose", (0, 1), {}, "x.t() is x.transpose(0, 1)"
    if name == "T" and ndim >= 2:
        dims = tuple(range(ndim - 1, -1, -1))
        return "permute", dims, {}, f"x.T is x.permute{dims}"
    if name == "mT" and ndim >= 2:
        return "transpose", (-2, -1), {}, "x.mT is x.transpose(-2, -1)"
    if name in ("swapaxes", "swapdims"):
        return "transpose", args, kwargs, f"x.{name} is x.transpose"
    if name == "moveaxis":
        return "movedim", args, kwargs, "x.moveaxis is x.movedim"
    if call.kind == "method" and name in TORCH_OPS:
        return name, args, kwargs, ""
    if call.kind == "method" and name in ELEMENTWISE_OPS and len(args) == 1 and not kwargs:
        return name, args, kwargs, ""
    return None


def _explain_step(step: Step) -> tuple[str, Any]:
    """The explanation text of ``step`` and the ``explain`` op triple it used (None if observed)."""
    spec = explainable(step)
    if spec is not None:
        op, args, kwargs, note = spec
        try:
            report = explain(step.input, op, *args, **kwargs)
        except (TypeError, ValueError, NotImplementedError):
            spec = None  # explain's own misuse errors: report what running it did instead
        else:
            text = str(report)
            return (f"{text}\n  ({note})" if note else text), spec
    return _observed(step), None


def _observed(step: Step) -> str:
    """What running the step did, in explain's format (for the steps explain does not predict)."""
    x = step.input
    assert x is not None
    lines = [f"strided: {step.text}",
             f"  input:  shape {tuple(x.shape)}, strides {x.stride()}, offset {x.storage_offset()}"]
    if step.error is not None:
        lines.append(f"  → error: {error_line(step.error)}")
        rest = str(step.error).strip().splitlines()[1:]
        lines.extend("  " + line.strip() for line in rest if line.strip())
    else:
        out = step.output
        assert out is not None
        lines.append(f"  → {step.mark()}: shape {tuple(out.shape)}, strides {out.stride()}, "
                     f"offset {out.storage_offset()}")
    lines.append(f"  (observed by running it: explain predicts the layout ops, not {_kind_of(step)})")
    return "\n".join(lines)


def _kind_of(step: Step) -> str:
    if step.call.kind == "index":
        return "indexing"
    return f"{step.call.name}()" if step.call.kind == "method" else f".{step.call.name} of a {step.input.ndim}-d tensor"


def _title(i: int, step: Step) -> str:
    return f"{i}. {step.text} → {step.mark()}"


def show_command(source: str, svg: str | None = None, out: TextIO | None = None, err: TextIO | None = None,
                 html: str | None = None) -> int:
    """``strided show "EXPR"``: every step with its verdict (``view`` / ``copy`` and bytes) and picture.
    ``html``: also write the playground's step cards to that file (one self-contained HTML file).

    >>> show_command("arange(12).reshape(3, 4).t().flatten()")   # prints 4 steps; returns 0
    0. arange(12) → new tensor (96 bytes of new storage)
    ...
    3. x.flatten() → copy (96 bytes copied into new storage)
    ...
    0
    """
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    got = _steps("show", source, err)
    if got is None:
        return 2
    steps, _ = got
    pics: list[Any] = []
    titles: list[str] = []
    width = render.terminal_width(out)  # (80 when out is not a terminal) no line is wider

    def say(text: str) -> None:
        for line in text.split("\n"):
            for part in render.wrap(line, width):
                print(part, file=out)

    for i, step in enumerate(steps):
        title = _title(i, step)
        say(title)
        if step.error is not None:
            text, _ = _explain_step(step)
            say(text)
            say(f"(the chain stops at step {i}: it raised; later steps were not run)")
            if svg is not None:
                pics.append(render.picture(step.input))  # the tensor the failing call was given
                titles.append(f"{title}; {error_line(step.error)}")
            break
        pic = render.picture(step.output)
        render.show(pic, out, width)
        print(file=out)
        pics.append(pic)
        titles.append(title)
    if svg is not None and _write_svg(svg, render.svg_document(pics, titles), err, out):
        return 2
    if html is not None:
        from ..playground.export import export_expr  # (lazily: only this option needs the playground)

        document, _ = export_expr(source)
        return _write_file(html, document, "HTML", err, out)
    return 0


def explain_command(source: str, svg: str | None = None, out: TextIO | None = None,
                    err: TextIO | None = None) -> int:
    """``strided explain "EXPR"``: the explanation of the last step (the failing one if a step
    fails), before and after pictured by ``--svg``.

    >>> explain_command("arange(12).reshape(3, 4).t().view(12)")   # explains the error; returns 0
    strided: x.view(12)
    ...
      fix: x.reshape(12)  (copies 96 bytes; a new contiguous tensor)
    ...
    0
    """
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    got = _steps("explain", source, err)
    if got is None:
        return 2
    steps, links = got
    step = steps[-1]
    if step.input is None:  # only a constructor: its layout
        print(str(explain(step.output)), file=out)
        if svg is not None:
            return _write_svg(svg, render.svg_document([render.picture(step.output)], [step.text]), err, out)
        return 0
    text, spec = _explain_step(step)
    if step.error is not None and len(steps) < links:
        text += "\n  (the chain stops here: later steps were not run)"
    print(text, file=out)
    if svg is not None:
        return _write_svg(svg, _explain_svg(step, spec, text), err, out)
    return 0


def _explain_svg(step: Step, spec: Any, text: str) -> str:
    """The before/after picture: ``draw(x, op, *args)`` when explain covers the op, else the
    input and output drawn one above the other."""
    if spec is not None and render.have_pictures():
        op, args, kwargs, _ = spec
        try:
            return render.svg_document([render.picture(step.input, op, *args, **kwargs)], [step.text])
        except Exception:  # noqa: BLE001 - a picture that cannot be drawn falls back to before/after
            pass
    if not render.have_pictures():
        return render.text_svg([text])
    pics = [render.picture(step.input)]
    titles = [f"before: x, the input of {step.text}"]
    if step.output is not None:
        pics.append(render.picture(step.output))
        titles.append(f"after: {step.text} → {step.mark()}")
    return render.svg_document(pics, titles)


def _write_svg(path: str, document: str, err: TextIO, out: TextIO) -> int:
    return _write_file(path, document, "SVG", err, out)


def _write_file(path: str, document: str, what: str, err: TextIO, out: TextIO) -> int:
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(document)
    except OSError as exc:
        print(f"strided: cannot write the {what} file {path!r}: {exc.strerror or exc}", file=err)
        return 2
    print(f"({what} written to {path})", file=out)
    return 0
