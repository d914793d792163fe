"""Memory formats as layout functions: the dense strides of each format, its contiguity test,
and PyTorch's guess of a layout's format (``suggest_memory_format``).

``channels_last`` (NHWC for 4-d NCHW) lives in :mod:`.core`; ``channels_last_3d`` (NDHWC for
5-d NCDHW) is here beside it, and :func:`format_strides` picks between the three dense formats
by name, returning a :class:`ChannelsLastRank` refusal for the wrong rank (PyTorch's error).

>>> channels_last_3d_strides((2, 3, 4, 5, 6))
(360, 1, 90, 18, 3)
"""

from __future__ import annotations

from collections.abc import Sequence

from ..messages import error
from ..refusals import ChannelsLastRank, Shape
from .core import channels_last_strides, contiguous_strides, is_channels_last_contiguous, is_contiguous

# The dims of each channels-last format, innermost first (C, then W, H, (D,) N).
_WALK = {"channels_last": (1, 3, 2, 0), "channels_last_3d": (1, 4, 3, 2, 0)}
RANK = {"channels_last": 4, "channels_last_3d": 5}


def channels_last_3d_strides(shape: Sequence[int]) -> Shape:
    """NDHWC strides for a 5-d NCDHW shape, as PyTorch's ``get_channels_last_strides_3d``.

    As for channels_last, a zero-size dim is not counted as 1 (PyTorch does the same)."""
    if len(shape) != 5:
        raise error(ChannelsLastRank(tuple(shape), "channels_last_3d"))
    contiguous_strides(shape)  # PyTorch allocates row-major first: its stride overflow is refused
    _, c, d, h, w = shape
    s1 = 1
    s4 = c
    s3 = s4 * w
    s2 = s3 * h
    return (s2 * d, s1, s2, s3, s4)


def is_channels_last_3d_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """PyTorch's ``is_contiguous(memory_format=channels_last_3d)``: 5-d only, NDHWC order."""
    if len(shape) != 5:
        return False
    expected = 1
    for d in _WALK["channels_last_3d"]:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def is_format_contiguous(shape: Sequence[int], strides: Sequence[int], name: str) -> bool:
    """``is_contiguous(memory_format=name)`` for the three dense formats."""
    if name == "channels_last":
        return is_channels_last_contiguous(shape, strides)
    if name == "channels_last_3d":
        return is_channels_last_3d_contiguous(shape, strides)
    return is_contiguous(shape, strides)


def format_strides(shape: Sequence[int], name: str) -> Shape | ChannelsLastRank:
    """The dense strides of ``shape`` in the format ``name`` ("contiguous_format",
    "channels_last", "channels_last_3d"), or the refusal for a channels-last format of the wrong rank."""
    if name in RANK:
        if len(shape) != RANK[name]:
            return ChannelsLastRank(tuple(shape), name)
        return channels_last_strides(shape) if name == "channels_last" else channels_last_3d_strides(shape)
    return contiguous_strides(shape)


def _strides_like(shape: Sequence[int], strides: Sequence[int], walk: Sequence[int]) -> bool:
    """PyTorch's ``is_channels_last_strides_{2d,3d}_s4``: strides that read as channels-last,
    with its fallbacks to the default format for ambiguous size-1 layouts."""
    if strides[1] == 0:  # a trivial C dim: default to NCHW
        return False
    low = 0
    for d in walk:
        if shape[d] == 0 or strides[d] < low:
            return False
        if d == 0 and low == strides[1]:  # N111-like layouts: ambiguous, NCHW
            return False
        low = strides[d]
        if shape[d] > 1:
            low *= shape[d]
    return True


def suggest_format(shape: Sequence[int], strides: Sequence[int]) -> str:
    """PyTorch's ``suggest_memory_format()``: "channels_last" for 4-d layouts whose strides read
    as NHWC, "channels_last_3d" for such 5-d ones, else "contiguous_format"."""
    if len(shape) == 4 and _strides_like(shape, strides, _WALK["channels_last"]):
        return "channels_last"
    if len(shape) == 5 and _strides_like(shape, strides, _WALK["channels_last_3d"]):
        return "channels_last_3d"
    return "contiguous_format"
