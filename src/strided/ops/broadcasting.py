"""Broadcasting of operand shapes, with PyTorch's error, and *loud* broadcasting.

Shapes (NumPy's three rules): align right, pad the shorter shape with 1s on
the left, and along each dim the sizes must be equal or one of them 1.

Loud broadcasting catches the silent bug in which ``pred`` of shape (B, 1)
minus ``target`` of shape (B,) gives (B, B): an operation where *both*
operands are stretched (each one grows along a dim the other one supplies; a
missing leading dim counts as size 1). Ordinary broadcasting, where only one
side grows (a bias (D,) added to (B, T, D), a Python scalar, a 0-d tensor), is
never flagged.

``strided.broadcasting(mode, rank_promotion=False)`` sets the mode:

- ``"allow"`` (the default): say nothing;
- ``"warn"``: a :class:`strided.BroadcastWarning` attributed to the user's line;
- ``"raise"``: a :class:`strided.BroadcastError` (a ValueError).

With ``rank_promotion=True`` any tensor operand with dims that gets new
leading dims is flagged as well (a (D,) bias added to (B, T, D) then needs an
explicit ``bias.expand(...)`` or ``reshape``); Python scalars and 0-d tensors
are still never flagged.

Calling ``broadcasting(...)`` sets the mode globally at once; used with
``with``, the previous mode (and rank promotion setting) comes back at the end
of the block, so nested blocks restore properly.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from types import TracebackType

from .. import layout as L
from ..callsite import user_site
from ..errors import BroadcastError, BroadcastWarning, StridedRuntimeError, StridedValueError, join_lines

Shape = tuple[int, ...]

_MODES = ("allow", "warn", "raise")


class _State:
    __slots__ = ("mode", "rank_promotion")

    def __init__(self) -> None:
        self.mode = "allow"
        self.rank_promotion = False


STATE = _State()


class broadcasting:  # noqa: N801 - used like a function: strided.broadcasting("warn")
    """Set how strided reports risky broadcasts: ``"allow"``, ``"warn"`` or ``"raise"``.

    ``strided.broadcasting("warn")`` sets the mode globally; ``with
    strided.broadcasting("raise"): ...`` sets it for the block and restores the
    previous mode afterwards. ``rank_promotion=True`` also flags any tensor with
    dims that broadcasting gives new leading dims.
    """

    __slots__ = ("_previous",)

    def __init__(self, mode: str, rank_promotion: bool = False) -> None:
        if not isinstance(mode, str) or mode not in _MODES:
            raise StridedValueError(
                f"broadcasting(): mode must be one of {', '.join(repr(m) for m in _MODES)}, not {mode!r}"
            )
        self._previous = (STATE.mode, STATE.rank_promotion)
        STATE.mode = mode
        STATE.rank_promotion = bool(rank_promotion)

    def __enter__(self) -> broadcasting:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        STATE.mode, STATE.rank_promotion = self._previous


def get_broadcasting() -> tuple[str, bool]:
    """The current (mode, rank_promotion)."""
    return STATE.mode, STATE.rank_promotion


# ---------------------------------------------------------------- shapes


def broadcast_pair(a: Shape, b: Shape) -> Shape:
    """PyTorch's ``infer_size``: the broadcast shape of ``a`` and ``b``, or RuntimeError."""
    shape = L.broadcast_pair(a, b)
    if type(shape) is not tuple:
        raise _mismatch_error(a, b, shape.dim)
    return shape


def broadcast_all(shapes: Sequence[Shape]) -> Shape:
    """Fold :func:`broadcast_pair` over ``shapes`` ("tensor a" is the shape so far)."""
    out = shapes[0]
    for s in shapes[1:]:
        out = broadcast_pair(out, s)
    return out


def _aligned(shapes: Sequence[tuple[str, Shape]], ndim: int) -> tuple[list[str], list[int]]:
    """Render shapes right-aligned, one column per result dim; returns lines and column centres."""
    widths = [1] * ndim
    for _, s in shapes:
        for k, n in enumerate(s):
            d = ndim - len(s) + k
            widths[d] = max(widths[d], len(str(n)))
    label_w = max(len(name) for name, _ in shapes)
    lines = []
    for name, s in shapes:
        cells = []
        for d in range(ndim):
            k = d - ndim + len(s)
            cells.append(str(s[k]).rjust(widths[d]) if k >= 0 else " " * widths[d])
        lines.append(f"{name.ljust(label_w)}  (" + "  ".join(cells) + ")")
    centres = []
    pos = label_w + 3
    for d in range(ndim):
        centres.append(pos + widths[d] - 1)
        pos += widths[d] + 2
    return lines, centres


def _mismatch_error(a: Shape, b: Shape, dim: int) -> StridedRuntimeError:
    ndim = max(len(a), len(b))
    sa = a[dim - ndim + len(a)]
    sb = b[dim - ndim + len(b)]
    lines, centres = _aligned([("tensor a", a), ("tensor b", b)], ndim)
    marker = " " * centres[dim] + f"^ dim {dim}: {sa} vs {sb}"
    return StridedRuntimeError(
        join_lines(
            f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at "
            f"non-singleton dimension {dim}",
            f"shapes aligned right (a missing leading dim counts as 1): a {a}, b {b}",
            *lines,
            marker,
            "along each dim the sizes must be equal or one of them 1; line the dims up "
            "with .unsqueeze(d), .reshape(...) or .permute(...)",
        )
    )


# ---------------------------------------------------------------- loud broadcasting


def stretched_dims(shape: Shape, result: Shape) -> tuple[int, ...]:
    """Dims of ``result`` (counted in the result) along which ``shape`` is stretched (size 1 or missing -> >1)."""
    lead = len(result) - len(shape)
    return tuple(
        d for d in range(len(result))
        if result[d] > 1 and (d < lead or shape[d - lead] == 1)
    )


def check_loud(op: str, shapes: Sequence[Shape], names: Sequence[str], result: Shape) -> None:
    """Warn or raise (per the current mode) for a broadcast that stretched two operands.

    ``shapes`` are the shapes of the tensor operands (Python scalars excluded),
    ``names`` what to call them ("a", "b", ...). Does nothing in "allow" mode.
    """
    if STATE.mode == "allow":
        return
    stretched = []
    for name, s in zip(names, shapes):
        if not s:
            continue  # a 0-d tensor is a scalar: never flagged
        dims = stretched_dims(s, result)
        if dims:
            stretched.append((name, s, dims))
    promoted = [(n, s) for n, s in zip(names, shapes) if s and len(s) < len(result)]
    if len(stretched) >= 2:
        message = _both_stretched_message(op, shapes, names, stretched, result)
    elif STATE.rank_promotion and promoted:
        message = _rank_message(op, promoted, result)
    else:
        return
    where, depth = user_site()
    message = message.replace("{where}", where)
    if STATE.mode == "raise":
        raise BroadcastError(message)
    warnings.warn(message, BroadcastWarning, stacklevel=depth)


def _dim_text(s: Shape, dims: tuple[int, ...], result: Shape) -> str:
    lead = len(result) - len(s)
    parts = []
    for d in dims:
        k = d - lead
        was = "missing" if k < 0 else "1"
        parts.append(f"dim {d} ({was} -> {result[d]})")
    return ", ".join(parts)


def _both_stretched_message(
    op: str, shapes: Sequence[Shape], names: Sequence[str], stretched: list, result: Shape
) -> str:
    shape_list = " and ".join(f"{n} {s}" for n, s in zip(names, shapes) if s)
    details = [f"{n} {s} is stretched along {_dim_text(s, dims, result)}" for n, s, dims in stretched]
    lines, _ = _aligned([(n, s) for n, s in zip(names, shapes) if s] + [("result", result)], len(result))
    return join_lines(
        f"{op}: broadcasting stretched both operands: {shape_list} give {result}",
        *details,
        *lines,
        "at {where}",
        "each operand grows along a dim the other supplies, as in (B, 1) - (B,) -> (B, B); "
        "if you meant it, make it explicit with .expand(...); if not, line the dims up "
        "(e.g. .squeeze(-1) or .unsqueeze(-1))",
    )


def _rank_message(op: str, promoted: list, result: Shape) -> str:
    details = [f"{n} {s} gets {len(result) - len(s)} new leading dim(s)" for n, s in promoted]
    return join_lines(
        f"{op}: broadcasting promoted the rank of an operand to {len(result)} dims (result {result})",
        *details,
        "at {where}",
        "rank_promotion=True flags this; make it explicit with .reshape(...) or .expand(...), "
        "or use strided.broadcasting(mode, rank_promotion=False)",
    )


