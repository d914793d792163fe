"""Which memory order a new tensor gets: PyTorch's stride-order inference, and NumPy's.

``empty_like``/``clone`` (``preserve_format``) and TensorIterator's outputs keep
the dimension order of their inputs; these pure functions compute those strides.
NumPy's ufuncs (``order="K"``) follow a rule of their own, side by side at the end
(:func:`numpy_elementwise_output_strides`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .core import (
    INT64_MAX,
    Shape,
    channels_last_strides,
    check_strides_fit,
    contiguous_strides,
    fortran_strides,
    is_channels_last_contiguous,
    is_contiguous,
    is_f_contiguous,
    is_non_overlapping_and_dense,
)


def infer_dense_strides(shape: Sequence[int], strides: Sequence[int]) -> Shape:
    """PyTorch's ``infer_dense_strides``: dense strides that keep the input's memory order.

    This is the order TensorIterator gives outputs and ``empty_like`` gives
    overlapping inputs: dims sorted by stride (insertion sort from the
    innermost dim; a stride-0 dim never moves; equal strides put the smaller
    size inside). A zero-size dim counts as 1.

    # Note: PyTorch has no negative strides; we order by absolute stride so a
    # reversed view copies into the same memory order.
    """
    ndim = len(shape)
    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        dim1 = i
        for j in range(1, i + 1):
            dim0 = i - j
            a, b = perm[dim0], perm[dim1]
            sa, sb = abs(strides[a]), abs(strides[b])
            if sa == 0 or sb == 0:
                cmp = 0
            elif sa < sb:
                cmp = -1
            elif sa > sb:
                cmp = 1
            else:
                cmp = 1 if shape[a] > shape[b] else 0
            if cmp > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif cmp < 0:
                break
    out = [0] * ndim
    acc = 1
    for d in perm:
        out[d] = acc
        if shape[d] > 1:
            acc *= shape[d]
    if acc > INT64_MAX:  # only a shape with a 0 (numel fits otherwise)
        check_strides_fit(tuple(shape), out, "dense")
    return tuple(out)


def preserve_format_strides(shape: Sequence[int], strides: Sequence[int]) -> Shape:
    """Strides PyTorch's ``clone()``/``empty_like`` give: kept when dense, else inferred.

    PyTorch counts every contiguous tensor as dense, so an empty tensor keeps
    whatever strides it has (even 0), as its contiguity rule says.
    """
    if is_contiguous(shape, strides) or is_non_overlapping_and_dense(shape, strides):
        return tuple(strides)
    return infer_dense_strides(shape, strides)


def _keeps_row_major(shape: Shape, op_shape: Sequence[int], op_strides: Sequence[int]) -> bool:
    """Whether this operand alone never makes ``reorder_dimensions`` swap two dims.

    Walking its broadcast strides from the outermost dim in, every nonzero stride must be
    larger than the next nonzero one, or equal with the inner dim no larger (PyTorch's
    tie-break). Then no comparison it decides returns "swap"; stride-0 dims defer.
    """
    lead = len(shape) - len(op_shape)
    prev_stride = prev_size = -1
    for k in range(len(op_shape)):
        size = op_shape[k]
        stride = op_strides[k]
        if size == 1 and shape[lead + k] != 1:
            continue  # stretched: stride 0
        if stride == 0:
            continue
        if stride < 0:
            return False
        if prev_stride != -1 and (stride > prev_stride or (stride == prev_stride and size > prev_size)):
            return False
        prev_stride, prev_size = stride, size
    return True


def elementwise_output_strides(
    shape: Sequence[int], operands: Sequence[tuple[Sequence[int], Sequence[int]]]
) -> Shape:
    """Strides PyTorch's TensorIterator gives the fresh output of an elementwise op.

    ``shape`` is the broadcast shape; ``operands`` are the (shape, strides) of
    the inputs in argument order (a Python scalar counts as a 0-d operand).

    - Fast set-up, when every operand has exactly ``shape``: contiguous if all
      inputs are contiguous, else channels-last if all are, else the inputs'
      own strides if all are non-overlapping and dense with equal strides.
    - Otherwise the output keeps the inputs' dimension order
      (``reorder_dimensions``): an insertion sort of the dims from the
      innermost outwards, each comparison decided by the first operand whose
      strides along the two dims are both nonzero (smaller stride inside;
      equal strides put the smaller size inside); stride-0 dims (broadcast or
      expanded) are ambiguous and defer to the next operand. A size-1 dim of an
      operand that the result stretches counts as stride 0. If the order comes
      out row-major the strides are contiguous; otherwise dense strides in that
      order (``compatible_stride``: a zero-size dim zeroes the strides outside it).

    # Note: PyTorch has no negative strides; we order by absolute stride, and a
    # negative stride takes an operand out of the fast set-up.
    """
    ndim = len(shape)
    shape = tuple(shape)
    if ndim == 0:
        return ()
    same_shape = True
    in_order = True  # no operand asks to reorder any pair of dims: the common, row-major case
    for s, st in operands:
        if tuple(s) != shape:
            same_shape = False
        if in_order and not _keeps_row_major(shape, s, st):
            in_order = False
    if in_order and not same_shape:
        return contiguous_strides(shape)
    if same_shape:
        if all(is_contiguous(shape, st) for _, st in operands):
            return contiguous_strides(shape)
        if all(is_channels_last_contiguous(shape, st) for _, st in operands):
            return channels_last_strides(shape)
        if all(
            min(st) >= 0 and is_non_overlapping_and_dense(shape, st) for _, st in operands
        ) and all(tuple(st) == tuple(operands[-1][1]) for _, st in operands):
            return tuple(operands[-1][1])
    op_strides = _aligned_strides(shape, operands, stretched_only=True)
    perm = iteration_order(shape, op_strides)
    if perm == list(range(ndim - 1, -1, -1)):
        return contiguous_strides(shape)
    return _dense_in_order(shape, perm)


def reordered_output_strides(
    shape: Sequence[int], operands: Sequence[tuple[Sequence[int], Sequence[int]]]
) -> Shape:
    """Strides of a TensorIterator's fresh output where its operands are not all of the result's
    shape (no fast set-up: PyTorch's index kernels, whose index tensors are viewed with size-1
    dims around them): ``reorder_dimensions``' order of the dims (:func:`iteration_order`, a
    size-1 dim's stride kept where the result is size 1 too), contiguous if that order is
    row-major, else dense in it (``compatible_stride``: a zero-size dim zeroes the strides
    outside it, so an empty result's strides follow the order too).

    >>> reordered_output_strides((3, 0, 1), [((3, 0, 1), (1, 0, 1)), ((3, 0, 1), (0, 1, 1)), ((3, 0, 1), (0, 0, 0))])
    (0, 1, 0)
    """
    shape = tuple(shape)
    if not shape:
        return ()
    perm = iteration_order(shape, _aligned_strides(shape, operands, stretched_only=True))
    if perm == list(range(len(shape) - 1, -1, -1)):
        return contiguous_strides(shape)
    return _dense_in_order(shape, perm)


def _dense_in_order(shape: Sequence[int], perm: Sequence[int]) -> Shape:
    """Dense strides (elements) with the dims laid out in ``perm``'s order, innermost first."""
    out = [0] * len(shape)
    acc = 1
    for d in perm:
        out[d] = acc
        acc *= shape[d]
    if max(out, default=0) > INT64_MAX:  # sizes beside a 0 (numel fits otherwise)
        check_strides_fit(tuple(shape), out, "dense")
    return tuple(out)


def iteration_order(shape: Sequence[int], op_strides: Sequence[Sequence[int]]) -> list[int]:
    """TensorIterator's ``reorder_dimensions``: the dims, fastest first (``perm[0]`` is the
    innermost), by an insertion sort on the operands' strides (``op_strides``, each aligned to
    ``shape``, 0 where broadcast): a smaller stride goes inside, equal strides put the smaller
    size inside, a stride-0 dim defers to the next operand."""
    ndim = len(shape)

    def should_swap(dim0: int, dim1: int) -> int:
        for full in op_strides:
            s0, s1 = full[dim0], full[dim1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[dim0] > shape[dim1]:
                return 1
        return 0

    return insertion_order(ndim, should_swap)


def insertion_order(ndim: int, should_swap: Callable[[int, int], int]) -> list[int]:
    """TensorIterator's insertion sort of the dims, fastest first, from ``ndim - 1 .. 0``:
    ``should_swap(dim0, dim1)`` > 0 moves ``dim1`` inside ``dim0``, < 0 stops its walk, 0 passes on
    (:func:`iteration_order`'s comparison, or a reduction's: :mod:`strided.kernels.torch_sum`).

    >>> strides = (1, 12, 4)
    >>> insertion_order(3, lambda a, b: (strides[a] > strides[b]) - (strides[a] < strides[b]))
    [0, 2, 1]
    """
    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            cmp = should_swap(perm[dim0], perm[dim1])
            if cmp > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif cmp < 0:
                break
    return perm


# ---------------------------------------------------------------- NumPy's flavour


def numpy_elementwise_output_strides(shape: Sequence[int], operands: Sequence[tuple[Sequence[int], Sequence[int]]],
                         casts: bool = False) -> Shape:
    """Strides (elements) NumPy gives a ufunc's fresh output (``order="K"``) for ``operands``
    ((shape, strides) each, 0-d for a scalar) broadcast to ``shape``.

    - An empty result gets all-zero strides.
    - The trivial loop: when no operand needs a cast (``casts``), and every operand that is not
      0-d has exactly ``shape`` and is contiguous (1-d operands may have any stride), the output
      is C-contiguous, or F-contiguous when the first such operand is F- and not C-contiguous.
    - Otherwise the iterator's order: an insertion sort of the axes from the innermost out,
      each comparison decided by the operands whose strides along both axes are nonzero (a
      stretched or size-1 axis counts 0); any operand that keeps the order (C order) wins over
      those that would swap; then dense strides in that order (always positive).

    # Note: NumPy compares absolute strides (it first flips axes that every operand walks
    # backwards), so a reversed input gives a forward output.
    """
    shape = tuple(shape)
    ndim = len(shape)
    if 0 in shape:
        return (0,) * ndim
    trivial = None if casts else _trivial_order(shape, operands)
    if trivial == "C":
        return contiguous_strides(shape)
    if trivial == "F":
        return fortran_strides(shape)
    full_strides = _aligned_strides(shape, operands, stretched_only=False)
    perm = list(range(ndim - 1, -1, -1))  # perm[0]: the innermost axis
    for i0 in range(1, ndim):
        ipos = i0
        j0 = perm[i0]
        for i1 in range(i0 - 1, -1, -1):
            j1 = perm[i1]
            ambiguous, swap = True, False
            for full in full_strides:
                s0, s1 = full[j0], full[j1]
                if s0 != 0 and s1 != 0:
                    if s1 <= s0:
                        swap = False
                    elif ambiguous:
                        swap = True
                    ambiguous = False
            if not ambiguous:
                if swap:
                    ipos = i1
                else:
                    break
        if ipos != i0:
            perm[ipos + 1:i0 + 1] = perm[ipos:i0]
            perm[ipos] = j0
    return _dense_in_order(shape, perm)


def _trivial_order(shape: Shape, operands: Sequence[tuple[Sequence[int], Sequence[int]]]) -> str | None:
    order = None
    for s, st in operands:
        s, st = tuple(s), tuple(st)
        if not s:
            continue
        if s != shape:
            return None
        if len(s) == 1:
            order = order or "CF"
            continue
        c, f = is_contiguous(s, st), is_f_contiguous(s, st)
        mine = ("C" if c else "") + ("F" if f else "")
        if not mine:
            return None
        if order is None:
            order = mine
        elif not set(order) & set(mine):
            return None
    if order is None:
        return "C"
    return "F" if order == "F" else "C"


def _aligned_strides(shape: Shape, operands: Sequence[tuple[Sequence[int], Sequence[int]]],
                     stretched_only: bool) -> list[list[int]]:
    """Each operand's absolute strides aligned right to the ``shape`` it broadcasts to, 0 along
    missing dims and along its size-1 dims: all of them (NumPy's iterator), or only those the
    result stretches (``stretched_only``: PyTorch's TensorIterator keeps a size-1 dim's stride
    where the result is size 1 too)."""
    ndim = len(shape)
    out = []
    for s, st in operands:
        lead = ndim - len(s)
        full = [0] * ndim
        for k in range(len(s)):
            d = lead + k
            full[d] = 0 if (s[k] == 1 and (not stretched_only or shape[d] != 1)) else abs(st[k])
        out.append(full)
    return out
