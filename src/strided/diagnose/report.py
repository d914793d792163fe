"""The value ``strided.explain`` returns: what an operation would do, predicted, and why.

One plain object per prediction, separate from its printout (``str(report)``), as
opt_einsum keeps its path apart from the table it prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Explanation", "Fix"]


@dataclass(frozen=True)
class Fix:
    """A cheap way out: ``call``, a real call in the library's own spelling, and what it costs
    (``bytes_copied``; 0 for a view), with a few words on what it gives (``note``)."""

    call: str
    bytes_copied: int
    note: str = ""

    def __str__(self) -> str:
        cost = "a view, 0 bytes" if self.bytes_copied == 0 else f"copies {self.bytes_copied:,} bytes"
        return f"{self.call}  ({cost}{'; ' + self.note if self.note else ''})"


@dataclass(frozen=True)
class Explanation:
    """What ``op`` would do to ``x`` in ``library`` ("strided", "torch" or "numpy"), without running it.

    ``outcome``: "view", "copy", "compute" (a binary elementwise op) or "error".
    ``shape``, ``strides`` (in elements) and ``offset`` describe the result as that library lays
    it out (for NumPy, ``offset`` counts elements from ``x``'s first element, 0 for a copy; for
    strided and PyTorch it is the storage offset). They are None for an error.
    ``error`` is ``"Class: first line"`` for an error outcome, else None.
    ``bytes_copied``: what a copy writes (0 for a view or an error).
    ``reason``: why, in the array's own numbers (which dims merge, the stride equation that
    fails, which operand stretches along which dims, ...).
    ``fixes``: cheap ways out, each a real call with its cost.
    ``mapping``: for a reshape-like op, how output dims map onto input dims
    (:class:`~strided.diagnose.dims.DimMapping`); ``broadcast``: for an elementwise op, the
    operands' shapes, their stretched dims and whether both sides stretch.
    ``refusal``: the layout algebra's refusal or plan value behind the outcome, when one decided it.
    ``returns_self``: the op gives back ``x`` itself, not a new view (PyTorch's ``contiguous()`` of
    a contiguous tensor, ``to`` its own dtype, ``flatten(d, d)``); the outcome is then "view".
    """

    library: str
    op: str
    outcome: str
    shape: tuple[int, ...] | None = None
    strides: tuple[int, ...] | None = None
    offset: int | None = None
    bytes_copied: int = 0
    error: str | None = None
    reason: str = ""
    fixes: tuple[Fix, ...] = ()
    call: str = ""
    input_shape: tuple[int, ...] = ()
    input_strides: tuple[int, ...] = ()
    input_offset: int = 0
    itemsize: int = 0
    mapping: Any = None
    broadcast: Any = None
    refusal: Any = field(default=None, compare=False)
    returns_self: bool = False

    @property
    def is_view(self) -> bool:
        return self.outcome == "view"

    @property
    def error_class(self) -> str | None:
        """The class name of the predicted error ("RuntimeError", "AxisError", ...), or None."""
        return None if self.error is None else self.error.split(":", 1)[0]

    def _repr_html_(self) -> str:
        """Jupyter's rich display (:func:`strided.diagnose.html.explanation_html`)."""
        from .html import explanation_html

        return explanation_html(self)

    def __str__(self) -> str:
        head = self.call or f"{self.op}(...)"
        lines = [f"{self.library}: {head}"]
        lines.append(f"  input:  shape {self.input_shape}, strides {self.input_strides}, offset {self.input_offset}")
        if self.outcome == "error":
            lines.append(f"  → error: {self.error}")
        else:
            what = {"view": "view (0 bytes copied)", "copy": f"copy ({self.bytes_copied:,} bytes)",
                    "compute": "compute (a new result)"}.get(self.outcome, self.outcome)
            lines.append(f"  → {what}: shape {self.shape}, strides {self.strides}, offset {self.offset}")
        if self.reason:
            # (an error's reason opens with the class and first line, already printed above)
            lines.extend("  " + line for line in self.reason.splitlines()
                         if not (self.error and line.endswith(self.error)))
        if self.mapping is not None and self.mapping.kind not in ("same", "empty"):
            lines.append(f"  dims: {self.mapping.describe()}")
        for fix in self.fixes:
            lines.append(f"  fix: {fix}")
        return "\n".join(lines)
