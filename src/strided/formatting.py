"""Text for people: PyTorch-style ``repr`` of values.

This follows ``torch/_tensor_str.py`` (default print options: precision 4,
threshold 1000, edgeitems 3, linewidth 80; :func:`set_printoptions` changes them): one
formatter for the whole tensor chooses integer, fixed or scientific mode from the nonzero finite
values, and every element is right-aligned to the widest one. Only the elements shown are read,
through the layout, so printing costs what the text costs, whatever the tensor's size.

The print options are process-wide, as PyTorch's ``PRINT_OPTS``: a change made in one thread is
seen by every thread (set them at start-up, or restore them in a ``try``/``finally``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .dtypes import DEFAULT_INT, DType, bool_, default_complex, default_float
from .errors import StridedRuntimeError
from .layout import Layout, product


@dataclass
class PrintOptions:
    """PyTorch's ``PRINT_OPTS``: digits after the point, the element count above which a print is
    summarized, the items kept at each edge then, the line width, and scientific notation forced
    on (True), off (False) or chosen from the values (None)."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


OPTS = PrintOptions()  # (one process-wide record, as PyTorch's; see the module doc)
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision: int | None = None, threshold: float | None = None, edgeitems: int | None = None,
                     linewidth: int | None = None, profile: str | None = None, sci_mode: bool | None = None) -> None:
    """Set how tensors print, as ``torch.set_printoptions``: ``profile`` ("default", "short",
    "full") sets the first four options, the others given override it; ``sci_mode`` is always
    set (None: chosen from the values). Process-wide (see the module doc).

    >>> strided.set_printoptions(precision=2)
    >>> strided.tensor([1.12345])
    tensor([1.12])
    >>> strided.set_printoptions(threshold=5)
    >>> strided.arange(10)
    tensor([0, 1, 2,  ..., 7, 8, 9])
    >>> strided.set_printoptions(profile="default")
    >>> strided.tensor([1.12345])
    tensor([1.1235])
    """
    if profile is not None:
        if profile not in _PROFILES:
            # (PyTorch ignores an unknown profile silently; a typo here would print with stale options)
            raise StridedRuntimeError(f"set_printoptions: unknown profile {profile!r}; use one of {', '.join(_PROFILES)}")
        OPTS.precision, OPTS.threshold, OPTS.edgeitems, OPTS.linewidth = _PROFILES[profile]
    if precision is not None:
        OPTS.precision = precision
    if threshold is not None:
        OPTS.threshold = threshold
    if edgeitems is not None:
        OPTS.edgeitems = edgeitems
    if linewidth is not None:
        OPTS.linewidth = linewidth
    OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The print options in force, as ``torch._tensor_str.get_printoptions``.

    >>> strided.formatting.get_printoptions()["precision"]
    4
    """
    return asdict(OPTS)


class _Formatter:
    """PyTorch's ``_Formatter``: picks the mode and the common width from the values."""

    def __init__(self, values: np.ndarray, floating: bool) -> None:
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
            return
        flat = flat.astype(np.float64)
        nonzero = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero.size == 0:
            return
        magnitudes = np.abs(nonzero)
        low, high = float(magnitudes.min()), float(magnitudes.max())
        self.int_mode = bool(np.all(nonzero == np.ceil(nonzero)))
        forced = OPTS.sci_mode
        # (PyTorch's int_mode test is on the values alone: 1e-5 is no integer, so its sci check
        # includes the smallest magnitude only when some value has a fraction)
        if self.int_mode:
            self.sci_mode = (high / low > 1000.0 or high > 1.0e8) if forced is None else forced
        else:
            self.sci_mode = (high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4) if forced is None else forced
        precision = OPTS.precision
        if self.sci_mode:
            widths = [len(f"{v:.{precision}e}") for v in nonzero.tolist()]
        elif self.int_mode:
            widths = [len(f"{v:.0f}") + 1 for v in nonzero.tolist()]
        else:
            widths = [len(f"{v:.{precision}f}") for v in nonzero.tolist()]
        self.max_width = max(self.max_width, *widths)

    def format(self, value: object) -> str:
        if self.floating:
            assert isinstance(value, float)
            if self.sci_mode:
                text = f"{value:{self.max_width}.{OPTS.precision}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = f"{value:.{OPTS.precision}f}"
        else:
            text = str(value)
        return " " * (self.max_width - len(text)) + text


class _ComplexFormatter:
    """PyTorch's pair of formatters for a complex tensor: one for the real parts, one for the
    imaginary parts; an element is ``real`` then ``+imag`` (the imaginary text keeps its own
    sign) and ``j``. ``max_width`` is the element's width as ``_vector`` lays rows out."""

    def __init__(self, values: np.ndarray) -> None:
        self.real = _Formatter(values.real, True)
        self.imag = _Formatter(values.imag, True)
        self.max_width = self.real.max_width + self.imag.max_width + 1

    def format(self, value: complex) -> str:
        real = self.real.format(float(value.real))
        imag = (self.imag.format(float(value.imag)) + "j").lstrip()
        return real + imag if imag[0] in "+-" else real + "+" + imag


def _shown(size: int, summarize: bool) -> range | list[int]:
    """The indices of one dim that a print shows: all, or the edge items when summarized."""
    edge = OPTS.edgeitems
    if summarize and size > 2 * edge:
        return [*range(edge), *range(size - edge, size)]
    return range(size)


def shown_values(storage: np.ndarray, layout: Layout, summarize: bool) -> np.ndarray:
    """The elements a print shows, read from ``storage`` one by one through ``layout``.

    Returns a 1-d array in row-major order over the shown indices of every dim (PyTorch's
    ``get_summarized_data``, flattened). Only those elements are read and allocated: the layout
    is never viewed as a whole, so a huge expanded tensor, a layout NumPy cannot view (a byte
    span beyond int64, more than 64 dims) or a size-1 dim with a huge stride prints like any other.
    """
    positions = np.array([layout.offset], dtype=np.int64)
    for size, stride in zip(layout.shape, layout.strides):
        # Python ints first: i * stride of an index the layout holds lies inside the storage,
        # while a size-1 dim's unused stride may exceed int64.
        step = np.array([i * stride for i in _shown(size, summarize)], dtype=np.int64)
        positions = (positions[:, None] + step[None, :]).reshape(-1)
    return storage[positions]


def _vector(items: list[str], cut: bool, indent: int, fmt: _Formatter | _ComplexFormatter) -> str:
    per_line = max(1, (OPTS.linewidth - indent) // (fmt.max_width + 2))
    if cut:  # (no edge items: PyTorch prints the bare "...")
        items = [*items[:OPTS.edgeitems], " ..." if OPTS.edgeitems else "...", *items[OPTS.edgeitems:]]
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(values: list, shape: Sequence[int], cuts: Sequence[bool], indent: int,
            fmt: _Formatter | _ComplexFormatter) -> str:
    """PyTorch's ``_tensor_str_with_formatter`` over the shown ``values`` (flat, row-major over
    ``shape``, the shown sizes); ``cuts[d]`` marks a summarized dim, printed with "..." mid-way."""
    if not shape:
        return fmt.format(values[0])
    if len(shape) == 1:
        return _vector([fmt.format(v) for v in values], cuts[0], indent, fmt)
    row = len(values) // shape[0] if shape[0] else 0  # (no edge items shown: "[...]")
    rows = [_nested(values[i * row : (i + 1) * row], shape[1:], cuts[1:], indent + 1, fmt)
            for i in range(shape[0])]
    if cuts[0]:
        rows.insert(OPTS.edgeitems, "...")
    return "[" + ("," + "\n" * (len(shape) - 1) + " " * (indent + 1)).join(rows) + "]"


def format_tensor(storage: np.ndarray, layout: Layout, dtype: DType, grad: str = "") -> str:
    """``tensor([...])`` text for the tensor ``layout`` over ``storage``, with the dtype named
    when it is not a default, following PyTorch's ``_tensor_str``; ``grad``, the autograd suffix
    (``grad_fn=<MulBackward0>`` or ``requires_grad=True``), last.

    Costs O(shown elements) in time and memory, whatever the tensor's size (see :func:`shown_values`).
    """
    prefix = "tensor("
    indent = len(prefix)
    shape = layout.shape
    numel = product(shape)
    suffixes = []
    if numel == 0:
        if len(shape) != 1:
            suffixes.append(f"size={tuple(shape)}")
        if dtype is not default_float():  # nothing printed shows the dtype of an empty tensor
            suffixes.append(f"dtype={dtype!r}")
        body = "[]"
    else:
        if not OPTS.edgeitems:
            suffixes.append(f"size={tuple(shape)}")
        if dtype not in (default_float(), DEFAULT_INT, bool_, default_complex()):
            suffixes.append(f"dtype={dtype!r}")
        summarize = numel > OPTS.threshold
        values = shown_values(storage, layout, summarize)
        # (PyTorch prints float16 through float32; both widen exactly to the Python floats used here)
        fmt = _ComplexFormatter(values) if dtype.is_complex else _Formatter(values, dtype.is_floating_point)
        shown = [len(_shown(n, summarize)) for n in shape]
        cuts = [summarize and n > 2 * OPTS.edgeitems for n in shape]
        body = _nested(values.tolist(), shown, cuts, indent, fmt)
    if grad:
        suffixes.append(grad)
    text = prefix + body
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > OPTS.linewidth:
            text += ",\n" + " " * indent + suffix
            last_line = indent + len(suffix)
        else:
            text += ", " + suffix
            last_line += len(suffix) + 2
    return text + ")"
