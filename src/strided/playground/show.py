"""The playground's answer to one expression: every step of a ``strided show`` chain as data.

:func:`show_payload` parses the expression with :func:`strided.cli.expr.parse` (never ``eval``),
refuses what would hurt the server before running anything (a long expression, a constructor of
more than :data:`MAX_NUMEL` elements, a step that could copy such a tensor), runs the chain with
:func:`~strided.cli.expr.evaluate`, and returns for each step: its call, ``view``/``copy`` and
bytes, the SVG picture (``strided.draw(..., format="svg")``), the explanation of a failing or
copying step, and what NumPy and PyTorch would do (:mod:`.peers`).

Bad input is an answer, not an exception: ``{"ok": False, "error": "<one line>"}``.

    >>> p = show_payload("arange(12).reshape(3, 4).t().flatten()")
    >>> [s["kind"] for s in p["steps"]]
    ['new', 'view', 'view', 'copy']
"""

from __future__ import annotations

import math
import threading
from typing import Any

from ..cli.commands import _explain_step
from ..cli.expr import Call, ExprError, Step, error_line, parse, run_step
from ..diagnose.pictures import draw
from .limits import MAX_NUMEL
from .peers import numpy_peer, torch_peer

__all__ = ["EVAL_LOCK", "MAX_EXPR_CHARS", "MAX_NUMEL", "MAX_STEPS", "show_payload"]

MAX_EXPR_CHARS = 500
"""The longest expression accepted (characters)."""

MAX_STEPS = 30
"""The most links a chain may have (each one is pictured)."""

LOCK_WAIT_S = 30.0
"""How long a request waits for another one's chain to finish before it is told the server is busy."""

EVAL_LOCK = threading.Lock()
"""Held while strided code runs for a request: ``watch`` (which tells view from copy) and the
broadcasting mode are process-wide, so two requests in two server threads must not interleave."""

# the steps that never allocate, whatever their input's size (the others may copy or compute)
PURE_VIEWS = frozenset({"permute", "transpose", "t", "swapaxes", "swapdims", "movedim", "moveaxis", "expand",
                        "broadcast_to", "squeeze", "unsqueeze", "narrow", "select", "diagonal", "unfold",
                        "as_strided", "view", "T", "mT", "getitem"})


class LimitError(ValueError):
    """An input the playground refuses to run because of its size (one line, says the limit)."""


def _sizes(args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else args


def _ctor_numel(call: Call) -> float:
    """How many elements the constructor ``call`` would create (an upper bound; inf if unknown)."""
    args, kw = call.args, call.kwargs
    try:
        if call.name == "arange":
            nums = [a for a in args if isinstance(a, (int, float)) and not isinstance(a, bool)]
            start, end, step = (0, nums[0], 1) if len(nums) == 1 else (nums + [1])[:3] if nums else (0, 0, 1)
            start, end, step = kw.get("start", start), kw.get("end", end), kw.get("step", step)
            return 0 if step == 0 else max(math.ceil((end - start) / step), 0)
        if call.name in ("zeros", "ones", "empty"):
            sizes = _sizes(args) if args else _sizes(tuple(kw.get("size", ())))
            return math.prod(int(n) for n in sizes) if sizes else 1
        if call.name == "full":
            size = args[0] if args else kw.get("size", ())
            return math.prod(int(n) for n in _sizes((size,)))
    except (TypeError, ValueError, OverflowError):
        return 0  # the constructor itself will refuse these arguments with its own message
    return 0  # tensor / as_tensor: a literal, already bounded by the expression's length


def _check(chain: list[Call]) -> None:
    numel = _ctor_numel(chain[0])
    if numel > MAX_NUMEL:
        raise LimitError(f"{chain[0].text} would create {numel:,} elements; the playground accepts at most "
                         f"{MAX_NUMEL:,} (try a smaller size: the pictures show the same layout)")


def _too_big(call: Call, x: Any) -> LimitError | None:
    """A refusal for a step that may allocate when its input has more than MAX_NUMEL elements (a
    view of an expanded tensor can be huge), before it runs; None when it may run."""
    if x is not None and x.numel() > MAX_NUMEL and call.name not in PURE_VIEWS:
        return LimitError(f"{call.text} on a tensor of {x.numel():,} elements may copy or compute all of them; "
                          f"the playground accepts at most {MAX_NUMEL:,} elements for such a step")
    return None


def _step_payload(i: int, step: Step) -> dict[str, Any]:
    failing = step.error is not None
    shown = step.input if failing else step.output
    explanation = ""
    if failing or step.kind == "copy":
        explanation, _ = _explain_step(step)
    svg = draw(shown, format="svg") if shown is not None else ""
    return {
        "index": i,
        "text": step.text,
        "kind": step.kind,
        "badge": "error" if failing else ("view" if step.kind == "view" else
                                          "copy" if step.kind == "copy" else step.kind),
        "nbytes": step.nbytes,
        "mark": step.mark(),
        "error": error_line(step.error) if failing else "",
        "explanation": explanation,
        "pictured": "the input of the failing call" if failing else "the result",
        "svg": svg,
        "numpy": numpy_peer(step),
        "torch": torch_peer(step),
    }


def _run_chain(expr: str, chain: list[Call]) -> dict[str, Any]:
    """Run the chain and describe each step as soon as it has run, then let its input go: at most
    one step's input and output are alive at a time, whatever the chain's length."""
    payloads: list[dict[str, Any]] = []
    x = None
    for i, call in enumerate(chain):
        refused = _too_big(call, x)
        if refused is not None:
            raise refused
        step = run_step(call, x)
        if i == 0 and step.error is not None:
            return {"ok": False, "error": f"{step.text} raised {error_line(step.error)}"}
        payloads.append(_step_payload(i, step))
        if step.error is not None:
            break
        x = step.output
        del step  # (its input, the previous output, is released here)
    return {"ok": True, "expr": expr, "steps": payloads}


def show_payload(expr: Any) -> dict[str, Any]:
    """Every step of ``expr`` (the ``strided show`` grammar) as a JSON-ready dict.

    ``{"ok": True, "expr": ..., "steps": [step, ...]}`` where each step has ``index``, ``text``
    (``x.reshape(3, 4)``), ``kind`` (new / view / copy / compute / error), ``badge``, ``nbytes``,
    ``mark`` (the verdict in words, says view or copy and bytes), ``error``, ``explanation`` (for a
    failing or copying step), ``svg``, ``numpy`` and ``torch`` (what those libraries would do).
    A bad or oversized expression: ``{"ok": False, "error": "one line saying what is accepted"}``.
    """
    if not isinstance(expr, str) or not expr.strip():
        return {"ok": False, "error": "type an expression, e.g. arange(12).reshape(3, 4).t()"}
    if len(expr) > MAX_EXPR_CHARS:
        return {"ok": False, "error": f"the expression has {len(expr):,} characters; the playground accepts at most "
                                      f"{MAX_EXPR_CHARS} (a chain of a few steps is plenty)"}
    try:
        chain = parse(expr)
        if len(chain) > MAX_STEPS:
            raise LimitError(f"the chain has {len(chain)} steps; the playground pictures at most {MAX_STEPS}")
        _check(chain)
        if not EVAL_LOCK.acquire(timeout=LOCK_WAIT_S):
            return {"ok": False, "error": "busy: the playground is showing another expression; try again"}
        try:
            return _run_chain(expr, chain)
        finally:
            EVAL_LOCK.release()
    except (ExprError, LimitError) as exc:
        return {"ok": False, "error": str(exc)}
