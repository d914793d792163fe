r"""PyTorch's CPU top-k and mode, step for step: libstdc++'s selection and sort over (value, index) pairs.

PyTorch's ``topk`` kernel (``aten/src/ATen/native/TopKImpl.h``) fills a queue with each row's
(value, position) pairs and compares values only (NaN largest): ``std::partial_sort`` of the first
k when ``k * 64 <= n``, else ``std::nth_element`` at ``k - 1`` followed (``sorted=True``) by
``std::sort`` of the first ``k - 1``. None of these is stable, so among equal values (ties, -0.0
and 0.0, several NaN) which positions come back, and in which order, is what libstdc++'s
introselect / heap select / introsort leave there. :func:`top_k_row` runs the same algorithms
(GCC's ``bits/stl_algo.h`` and ``bits/stl_heap.h``) in Python; a row without equal values has one
answer, which NumPy finds faster, so callers use this only for rows with ties. PyTorch's ``mode``
kernel likewise ``std::sort``\ s the pairs by ``<`` on values (NaN compares false both ways, so
NaN stay where the sort leaves them) and takes the last pair of the first longest run of ``==``
values: :func:`mode_row`. Its ``median`` / ``nanmedian`` of all elements run ``std::nth_element``
on the values (``nanmedian`` with NaN largest), which decides which of -0.0 and 0.0 is the
median: :func:`median_position`.

>>> top_k_row([2.0, 2.0, 2.0, 2.0, 1.0], 2, largest=False)
[4, 2]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

Pair = tuple[Any, int]
Comp = Callable[[Pair, Pair], bool]


def _lg(n: int) -> int:
    return n.bit_length() - 1


def _move_median_to_first(q: list[Pair], res: int, a: int, b: int, c: int, comp: Comp) -> None:
    if comp(q[a], q[b]):
        if comp(q[b], q[c]):
            pick = b
        elif comp(q[a], q[c]):
            pick = c
        else:
            pick = a
    elif comp(q[a], q[c]):
        pick = a
    elif comp(q[b], q[c]):
        pick = c
    else:
        pick = b
    q[res], q[pick] = q[pick], q[res]


def _partition_pivot(q: list[Pair], first: int, last: int, comp: Comp) -> int:
    """``__unguarded_partition_pivot``: the median of three moved to ``first``, then Hoare's partition."""
    _move_median_to_first(q, first, first + 1, first + (last - first) // 2, last - 1, comp)
    lo, hi, pivot = first + 1, last, q[first]
    while True:
        while comp(q[lo], pivot):
            lo += 1
        hi -= 1
        while comp(pivot, q[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        q[lo], q[hi] = q[hi], q[lo]
        lo += 1


def _linear_insert(q: list[Pair], last: int, comp: Comp) -> None:
    val = q[last]
    nxt = last - 1
    while comp(val, q[nxt]):
        q[last] = q[nxt]
        last = nxt
        nxt -= 1
    q[last] = val


def _insertion_sort(q: list[Pair], first: int, last: int, comp: Comp) -> None:
    for i in range(first + 1, last):
        if comp(q[i], q[first]):
            val = q[i]
            q[first + 1:i + 1] = q[first:i]
            q[first] = val
        else:
            _linear_insert(q, i, comp)


def _adjust_heap(q: list[Pair], first: int, hole: int, length: int, value: Pair, comp: Comp) -> None:
    top = second = hole
    while second < (length - 1) // 2:
        second = 2 * (second + 1)
        if comp(q[first + second], q[first + second - 1]):
            second -= 1
        q[first + hole] = q[first + second]
        hole = second
    if length % 2 == 0 and second == (length - 2) // 2:
        second = 2 * (second + 1)
        q[first + hole] = q[first + second - 1]
        hole = second - 1
    parent = (hole - 1) // 2  # (__push_heap)
    while hole > top and comp(q[first + parent], value):
        q[first + hole] = q[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    q[first + hole] = value


def _pop_heap(q: list[Pair], first: int, last: int, result: int, comp: Comp) -> None:
    value = q[result]
    q[result] = q[first]
    _adjust_heap(q, first, 0, last - first, value, comp)


def _heap_select(q: list[Pair], first: int, middle: int, last: int, comp: Comp) -> None:
    length = middle - first
    if length >= 2:  # (__make_heap)
        for parent in range((length - 2) // 2, -1, -1):
            _adjust_heap(q, first, parent, length, q[first + parent], comp)
    for i in range(middle, last):
        if comp(q[i], q[first]):
            _pop_heap(q, first, middle, i, comp)


def _partial_sort(q: list[Pair], first: int, middle: int, last: int, comp: Comp) -> None:
    _heap_select(q, first, middle, last, comp)
    while middle - first > 1:  # (__sort_heap)
        middle -= 1
        _pop_heap(q, first, middle, middle, comp)


def _nth_element(q: list[Pair], nth: int, comp: Comp) -> None:
    first, last = 0, len(q)
    if nth == last:
        return
    depth = _lg(last) * 2
    while last - first > 3:
        if depth == 0:
            _heap_select(q, first, nth + 1, last, comp)
            q[first], q[nth] = q[nth], q[first]
            return
        depth -= 1
        cut = _partition_pivot(q, first, last, comp)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(q, first, last, comp)


def _sort(q: list[Pair], first: int, last: int, comp: Comp) -> None:
    """``std::sort``: introsort down to runs of 16, then one insertion sort over the whole range."""
    if last - first < 2:
        return

    def loop(lo: int, hi: int, depth: int) -> None:
        while hi - lo > 16:
            if depth == 0:
                _partial_sort(q, lo, hi, hi, comp)
                return
            depth -= 1
            cut = _partition_pivot(q, lo, hi, comp)
            loop(cut, hi, depth)
            hi = cut

    loop(first, last, _lg(last - first) * 2)
    if last - first > 16:
        _insertion_sort(q, first, first + 16, comp)
        for i in range(first + 16, last):
            _linear_insert(q, i, comp)
    else:
        _insertion_sort(q, first, last, comp)


def _larger(x: Pair, y: Pair) -> bool:
    a, b = x[0], y[0]
    return (a != a and b == b) or a > b  # (NaN first: PyTorch's comparator)


def _smaller(x: Pair, y: Pair) -> bool:
    a, b = x[0], y[0]
    return (a == a and b != b) or a < b


def top_k_row(row: Sequence[Any], k: int, largest: bool, sorted: bool = True) -> list[int]:  # noqa: A002
    """The positions PyTorch's CPU ``topk`` returns for one row (Python numbers), ``0 < k <= len(row)``.

    >>> top_k_row([3.0, 1.0, 3.0], 2, largest=True)
    [0, 2]
    """
    q: list[Pair] = [(v, j) for j, v in enumerate(row)]
    comp = _larger if largest else _smaller
    if k * 64 <= len(q):
        _partial_sort(q, 0, k, len(q), comp)
    else:
        _nth_element(q, k - 1, comp)
        if sorted:
            _sort(q, 0, k - 1, comp)
    return [j for _, j in q[:k]]


def _less(x: Pair, y: Pair) -> bool:
    return x[0] < y[0]


def mode_row(row: Sequence[Any]) -> int:
    """The position PyTorch's CPU ``mode`` returns for one non-empty row (Python numbers); its
    value is the row's element there.

    >>> mode_row([1.0, float("nan"), float("nan"), 1.0])  # (NaN stay put: 1.0 at 0 ends its run)
    0
    """
    q: list[Pair] = [(v, j) for j, v in enumerate(row)]
    _sort(q, 0, len(q), _less)
    best, length, pos = 0, 0, 0
    for i in range(len(q)):
        length += 1
        if i == len(q) - 1 or q[i][0] != q[i + 1][0]:
            if length > best:
                best, pos = length, q[i][1]
            length = 0
    return pos


def median_position(flat: Sequence[Any], skip_nan: bool) -> int | None:
    """The position of the element PyTorch's CPU ``median()`` (``nanmedian()``: ``skip_nan``) of
    all elements returns, for ``flat`` (Python numbers, row-major); None where it returns a NaN
    of its own (``median`` of elements with a NaN: its quiet NaN).

    >>> median_position([0.0, -0.0, -0.0, 0.0], False)  # (introselect leaves the 0.0 at 3 in place 1)
    3
    """
    q: list[Pair] = [(v, j) for j, v in enumerate(flat)]
    nans = sum(1 for v, _ in q if v != v)
    if nans and not skip_nan:
        return None
    nth = max(len(q) - nans - 1, 0) // 2  # (all NaN: C++'s -1 / 2 is 0, a NaN)
    _nth_element(q, nth, _smaller if skip_nan else _less)
    return q[nth][1]
