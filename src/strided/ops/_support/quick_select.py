"""PyTorch's CPU ``kthvalue`` tie order: ATen's ``quick_select_template``, step for step.

PyTorch's kernel (``aten/src/ATen/native/Sorting.cpp``, ``SortingUtils.h``) copies each row with
its positions ``0..n-1`` and runs a median-of-three quickselect (Hoare partition, NaN largest)
that swaps values and positions together; the position left at ``k - 1`` is the index it
returns. Where the k-th value occurs once, any selection finds the same place (NumPy's
``argpartition`` is used for those); where it occurs several times (ties, -0.0 and 0.0, several
NaN), which of them comes back is what this quickselect leaves there: :func:`quick_select_position`.

>>> quick_select_position([1.0, 1.0, 0.0, 1.0], 2)  # (NumPy's argpartition: 3)
0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _gt(x: Any, y: Any) -> bool:
    """PyTorch's comparator: ``x`` above ``y``, NaN above everything but NaN."""
    return (x != x or x > y) and not y != y  # noqa: PLR0124 - (x != x: NaN)


def quick_select_position(row: Sequence[Any], k: int) -> int:
    """The original position PyTorch's ``quick_select_template`` leaves at ``k`` (0-based) of ``row``.

    >>> quick_select_position([2, 2, 2], 0), quick_select_position([float("nan"), 1.0, float("nan")], 2)
    (1, 2)
    """
    vals = list(row)
    idx = list(range(len(vals)))

    def swap(i: int, j: int) -> None:
        vals[i], vals[j] = vals[j], vals[i]
        idx[i], idx[j] = idx[j], idx[i]

    lo, hi = 0, len(vals) - 1
    while True:
        if hi <= lo:  # one element
            return idx[k]
        if hi == lo + 1:  # two elements
            if _gt(vals[lo], vals[hi]):
                swap(lo, hi)
            return idx[k]
        mid = lo + (hi - lo) // 2  # median of three: the pivot ends at lo
        swap(mid, lo + 1)
        if _gt(vals[lo + 1], vals[hi]):
            swap(lo + 1, hi)
        if _gt(vals[lo], vals[hi]):
            swap(lo, hi)
        if _gt(vals[lo + 1], vals[lo]):
            swap(lo + 1, lo)
        i, j = lo + 1, hi
        pivot = vals[lo]
        while True:
            i += 1
            while _gt(pivot, vals[i]):
                i += 1
            j -= 1
            while _gt(vals[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
