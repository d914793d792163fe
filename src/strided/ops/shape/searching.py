"""searchsorted and bucketize: where values would go in sorted sequences (PyTorch 2.13).

* ``searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None)``:
  for each value, the index in its (last-dim) sequence where it would be inserted keeping the order:
  the first place (``side="left"``, the default) or after any equal elements (``right=True`` or
  ``side="right"``). ``sorted_sequence`` is 1-D (shared by every value) or has the leading dims of
  ``values`` (one sequence per row of ``values``). ``sorter`` (int64 indices that sort each sequence)
  reads an unsorted sequence through it. ``values`` may be a number when the sequence is 1-D.
* ``bucketize(input, boundaries, *, out_int32=False, right=False)``: ``searchsorted`` with the
  arguments swapped and 1-D ``boundaries`` only.
* Results are new int64 (int32 with ``out_int32``) memory of ``values``' shape, contiguous,
  reported with :func:`strided.dispatch.copied`.
* A NaN value goes after every number, as in PyTorch. A sequence holding NaN (sorted last, as
  ``sort`` puts it) is searched by PyTorch's own bisection (:func:`_torch_bisect`), so a NaN value
  goes after its NaNs too (``searchsorted([1, 2, nan], nan)`` is 3 on either side, where NumPy's
  search, which orders NaN equal to NaN, says 2 on the left). So is a sequence that is not sorted
  (where PyTorch's documented contract is broken, its bisection still gives one answer per value;
  NumPy's search would give another, depending on the values searched before).

A batched search is one vectorized NumPy search, not a loop over rows: every element is replaced by
its rank among all the sequences' values (an exact, order-keeping integer), and row ``b``'s ranks are
offset by ``b * (ranks + 1)``, so the rows laid end to end form one sorted sequence.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import layout as L
from ...args import is_number, type_name
from ...dispatch import OPEN, adopted, copied
from ...dtypes import TORCH_NAME, float32, float64, int32, int64, np_kind
from ...errors import StridedRuntimeError, StridedTypeError, join_lines
from ...kernels import native
from ...kernels.blocked import row_major
from ...opdef import Kind, declare
from ...tensor import Tensor
from .._support import support
from .._support.along import flag, tensor_from_array
from .._support.operands import _cinfo, flat_run
from .._support.out import write_out
from .._support.promotion import promote_types, result_type
from .._support.reduce_args import shape_text
from ..indexing.fast_along import SEARCH_C


def _sizes(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _check_side(side: Any, right: bool) -> bool:
    """``right`` as the search's side: ``side`` ('left'/'right', or None) must not contradict it."""
    if side is None:
        return right
    if side not in ("left", "right"):
        raise StridedRuntimeError(
            join_lines(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}",
                       "side='left' finds the first place a value fits, side='right' the last")
        )
    if side == "left" and right:
        raise StridedRuntimeError(
            join_lines("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                       "while right was True",
                       "give one of them: side='right' is right=True, side='left' is right=False")
        )
    return side == "right"


def _sorted_rows(seq: Tensor, sorter: Any) -> np.ndarray:
    """The sequences as NumPy reads them, through ``sorter`` when given (after PyTorch's checks)."""
    x = seq._np()
    if sorter is None:
        return x
    if not isinstance(sorter, Tensor):
        raise StridedTypeError(
            join_lines(f"searchsorted(): argument 'sorter' must be Tensor, not {type_name(sorter)}",
                       "sorter is an int64 tensor of indices that sort each sequence (argsort gives it)")
        )
    if sorter.shape != seq.shape:
        raise StridedRuntimeError(
            join_lines(
                f"torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor "
                f"{_sizes(seq.shape)}and got sorter tensor {_sizes(sorter.shape)}",
                "sorter holds one index per element of the sequence: sorted_sequence.argsort(-1) gives it",
            )
        )
    if sorter.dtype is not int64:
        raise StridedRuntimeError(
            join_lines(f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                       f"{TORCH_NAME[sorter.dtype.name]}",
                       "fix: pass sorter.to(strided.int64)")
        )
    idx = sorter._np()
    n = seq.shape[-1]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise StridedRuntimeError(
            join_lines("torch.searchsorted(): sorter index out of range",
                       f"sorter's indices must lie in 0..{n - 1} (the sequence has {n} elements), "
                       f"but they range over {int(idx.min())}..{int(idx.max())}")
        )
    return np.take_along_axis(x, idx, axis=-1)


def _batched(rows: np.ndarray, vals: np.ndarray, side: str) -> np.ndarray:
    """``np.searchsorted`` of each row of ``vals`` (B, M) in the same row of ``rows`` (B, N), at once."""
    b, n = rows.shape
    every = np.unique(rows)  # sorted; NaN merged and last, as the rows sort it
    rank_rows = np.searchsorted(every, rows, "left")
    rank_vals = np.searchsorted(every, vals, side)
    # s < v (left) and s <= v (right) are both rank(s) < rank_vals: count the row's ranks below it
    span = np.arange(b, dtype=np.int64)[:, None] * (len(every) + 1)
    keys = (rank_rows + span).reshape(-1)
    found = np.searchsorted(keys, (rank_vals + span).reshape(-1), "left").reshape(vals.shape)
    return found - np.arange(b, dtype=np.int64)[:, None] * n


def _torch_bisect(rows: np.ndarray, vals: np.ndarray, right: bool) -> np.ndarray:
    """PyTorch's ``cus_lower_bound``/``cus_upper_bound``, vectorized: row ``b`` of ``vals`` (B, M)
    searched in row ``b`` of ``rows`` (B, N). Each step halves every value's range ``[lo, hi)``:
    ``lo = mid + 1`` when ``not (rows[mid] >= v)`` (left) or ``not (rows[mid] > v)`` (right), else
    ``hi = mid``. Written with ``not``, a comparison with NaN moves right, so a NaN value lands
    after every element, NaNs included (NumPy's search treats NaN as equal to NaN instead).
    About log2(N) NumPy passes over the values; no Python loop over elements."""
    n = rows.shape[1]
    lo = np.zeros(vals.shape, np.int64)
    hi = np.full(vals.shape, n, np.int64)
    with np.errstate(invalid="ignore"):
        while True:
            active = lo < hi
            if not active.any():
                return lo
            mid = (lo + hi) >> 1
            at = np.take_along_axis(rows, np.minimum(mid, n - 1), axis=1)
            right_of = ~(at > vals) if right else ~(at >= vals)
            lo = np.where(active & right_of, mid + 1, lo)
            hi = np.where(active & ~right_of, mid, hi)


def _has_nan(rows: np.ndarray) -> bool:
    """Whether a sorted sequence holds NaN: sorted, it is last in its row (one read per row)."""
    return np_kind(rows.dtype) in "fc" and bool(np.isnan(rows[..., -1]).any())


def _needs_bisect(rows: np.ndarray) -> bool:
    """Whether NumPy's search may differ from PyTorch's bisection on ``rows`` (non-empty last dim):
    a NaN, or a row that is not non-decreasing. On an unsorted row both answers are artifacts of
    the search, and NumPy's also depends on the values searched before (it reuses the previous
    bounds); PyTorch's bisection (:func:`_torch_bisect`) is reproduced there instead. One pass."""
    if _has_nan(rows):
        return True
    return not bool(_all(_ge(rows[..., 1:], rows[..., :-1]), axis=None))


_all = np.logical_and.reduce  # (the ufunc itself: ndarray.all's Python wrapper costs as much again)
_ge = np.greater_equal


def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False,  # noqa: A002
                 right: bool = False, side: str | None = None, sorter: Tensor | None = None,
                 out: Any = None) -> Tensor:
    """Indices where the values ``input`` (a tensor or one number; PyTorch's docs call it ``values``,
    its parser ``input``) would be inserted into ``sorted_sequence`` (along its last dim) to keep it
    sorted; see the module docstring for the batched form and ``sorter``.

    >>> strided.searchsorted(strided.tensor([1, 3, 5, 7]), strided.tensor([3, 6]))
    tensor([1, 3])
    """
    if out is not None:
        return write_out(out, searchsorted(sorted_sequence, input, out_int32=out_int32, right=right, side=side,
                                           sorter=sorter), "searchsorted", _inputs(sorted_sequence, input),
                         _wrong_index_dtype(out_int32))
    if SEARCH_C is not None and sorter is None and side is None and out_int32 is False and right.__class__ is bool \
            and not OPEN and (out := SEARCH_C(sorted_sequence, input, right)) is not None:
        return out  # (_fast_search's call, without its layers: the same checks in C)
    return _search(sorted_sequence, input, out_int32, right, side, sorter, "searchsorted")


def _wrong_index_dtype(out_int32: Any) -> str:
    """PyTorch's refusal of an out= of the other index dtype (write_out's template: ``{o}`` out's)."""
    return ("torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) "
            "depending on whether out_int32 flag is True, but we got output tensor's dtype {o} and out_int32 "
            f"flag is {bool(out_int32)}")


def _inputs(seq: Tensor, values: Any) -> tuple[Any, ...]:
    return (seq, values) if isinstance(values, Tensor) else (seq,)


_SEARCH_FAST = frozenset((float32, float64, int32, int64))


def _fast_search(seq: Any, values: Any, out_int32: Any, right: Any, side: Any, sorter: Any) -> Tensor | None:
    """searchsorted / bucketize of a non-empty row-major values tensor in a non-empty row-major
    1-D non-decreasing sequence of the same float32/float64/int32/int64 dtype without NaN (then
    NumPy's search is PyTorch's), int64 out, no side/sorter, nobody watching: one ``searchsorted`` on the flat runs,
    adopted. None when a precondition fails."""
    if (OPEN or sorter is not None or side is not None or out_int32 is not False or right.__class__ is not bool
            or type(seq) is not Tensor or type(values) is not Tensor or seq._dtype is not values._dtype
            or seq._dtype not in _SEARCH_FAST or len(seq._layout.shape) != 1):
        return None
    if SEARCH_C is not None and (out := SEARCH_C(seq, values, right)) is not None:
        return out  # (the compiled checks and bisection: NumPy's answers, see fast_along.SEARCH_C)
    info = _cinfo[values._layout.shape]
    rows = flat_run(seq, _cinfo[seq._layout.shape])
    vals = flat_run(values, info) if info[1] else None
    if vals is None and info[1] >= _RUNS_MIN:
        # (values in another layout, a transpose's: their row-major copy, a temporary the answer
        # is read from in the general path's order; the result is row-major either way)
        vals = row_major(values._np())
    if rows is None or vals is None or not len(rows):
        return None
    # NaN or not sorted: PyTorch's bisection, on the general path (x >= NaN is False: one pass)
    if not _all(_ge(rows[1:], rows[:-1])) if len(rows) > 1 else rows[0] != rows[0]:
        return None
    if info[1] >= _RUNS_MIN and native.active():
        # (the compiled bisection, 16 values at a time: NumPy's answers, see
        # _copykernel.c's search_runs; a 2^20-element float32 search in as many: 190 -> 31 ms)
        out = np.empty(info[1], np.int64)
        if native.kernel().search_runs(rows, vals, out, right):
            return adopted(out, info[2], int64)
    return adopted(rows.searchsorted(vals, "right" if right else "left"), info[2], int64)


# The fewest values _fast_search bisects with the compiled search_runs (fewer: NumPy's call costs
# about as much, and the small ones take SEARCH_C before this).
_RUNS_MIN = 1 << 12


def _search(seq: Any, values: Any, out_int32: Any, right: Any, side: Any, sorter: Any, op: str) -> Tensor:
    fast = _fast_search(seq, values, out_int32, right, side, sorter)
    if fast is not None:
        return fast
    if not isinstance(seq, Tensor):
        name = "sorted_sequence" if op == "searchsorted" else "boundaries"
        raise StridedTypeError(
            join_lines(f"{op}(): argument '{name}' must be Tensor, not {type_name(seq)}",
                       "make it a tensor first: strided.tensor([...])")
        )
    scalar = not isinstance(values, Tensor)
    if scalar and not is_number(values):
        raise StridedTypeError(
            join_lines(f"{op}(): argument 'input' must be Tensor or Number, not {type_name(values)}",
                       "pass a tensor of values (strided.tensor([...])) or one number")
        )
    right = _check_side(side, flag(right, op, "right"))
    narrow = flag(out_int32, op, "out_int32")
    rows = _sorted_rows(seq, sorter)
    sdim = len(seq._layout.shape)
    vals = np.asarray(values) if scalar else values._np()
    vshape = () if scalar else values._layout.shape
    if len(vshape) == 0 and sdim != 1:
        raise StridedRuntimeError(
            join_lines(
                "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, "
                f"but we got boundaries tensor dim({sdim}) and input value's dim(0) numel(1)",
                f"the sequence has shape {shape_text(seq.shape)}; one value can only be searched in a 1-d "
                "sequence: give values the sequence's leading dims, e.g. values of shape "
                f"{shape_text(seq.shape[:-1] + (1,)) if sdim else '(1,)'}",
            )
        )
    if sdim == 0:
        raise StridedRuntimeError(
            join_lines("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension",
                       "the sorted sequence is a 0-d tensor; make it 1-d: seq.reshape(1)")
        )
    if sdim != 1 and seq.shape[:-1] != vshape[:-1]:
        raise StridedRuntimeError(
            join_lines(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                f"boundaries tensor and input value tensor must match, but we got boundaries tensor "
                f"{_sizes(seq.shape)} and input value tensor {_sizes(vshape)}",
                f"a batched search pairs each row of values with the sequence of the same leading index: "
                f"values must have shape {shape_text(seq.shape[:-1] + ('M',))} (any M)",  # type: ignore[operator]
            )
        )
    if vals.size:  # (bool, complex, uint16/32/64: PyTorch has no kernel; empty values pass)
        # (a number's kernel is its result type's: a bool sequence meets 1.5 in float32)
        support.check(op, result_type(seq, values) if scalar else promote_types(seq._dtype, values._dtype),
                      _inputs(seq, values))
    if vals.size and rows.size:
        # PyTorch compares in the operands' result type (a 0-d tensor or a number ranks lower): an
        # int64 sequence meets float32 values in float32, where 16777217 is 16777216
        common = result_type(seq, values).numpy
        rows = rows if rows.dtype == common else rows.astype(common)
        vals = vals if vals.dtype == common else vals.astype(common)
    side_name = "right" if right else "left"
    if vals.size and rows.shape[-1] and _needs_bisect(rows):  # (PyTorch's bisection: see the module docstring)
        lead = L.product(seq.shape[:-1])
        found = _torch_bisect(rows.reshape(lead, -1), vals.reshape(lead, -1), right).reshape(vshape)
    elif sdim == 1:
        found = rows.searchsorted(vals, side_name)
    elif vals.size == 0 or rows.shape[-1] == 0:
        found = np.zeros(vshape, np.int64)
    else:
        lead = L.product(seq.shape[:-1])
        found = _batched(rows.reshape(lead, -1), vals.reshape(lead, -1), side_name).reshape(vshape)
    dtype = int32 if narrow else int64
    out = tensor_from_array(np.asarray(found), vshape, dtype)
    inputs = (seq,) if scalar else (seq, values)
    return copied(op, inputs, out, lambda: (
        f"{op}: insertion points of {'one value' if scalar else shape_text(vshape) + ' values'} in "
        f"{'a ' + shape_text(seq.shape) + ' sorted sequence' if sdim == 1 else 'sorted rows ' + shape_text(seq.shape)}, "
        f"into new {dtype.name} memory"))


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False,  # noqa: A002
              out: Any = None) -> Tensor:
    """The bucket of each element of ``input`` among 1-D sorted ``boundaries``: ``i`` with
    ``boundaries[i-1] < x <= boundaries[i]`` (``right=True``: ``boundaries[i-1] <= x < boundaries[i]``).

    >>> strided.bucketize(strided.tensor([1, 5, 9]), strided.tensor([2, 4, 6, 8]))
    tensor([0, 2, 4])
    """
    if out is not None:
        if not isinstance(input, Tensor):  # (PyTorch's bucketize of a number has no out= overload)
            raise StridedTypeError(join_lines(
                f"bucketize() received an invalid combination of arguments - got ({type(input).__name__}, "
                "Tensor, out=Tensor), but expected one of:",
                "bucketize(Tensor input, Tensor boundaries, *, bool out_int32, bool right, Tensor out) takes out=; "
                "bucketize(Number self, Tensor boundaries, ...) does not",
                "fix: pass the value as a tensor, strided.bucketize(strided.tensor(v), boundaries, out=out), "
                "or drop out="))
        return write_out(out, bucketize(input, boundaries, out_int32=out_int32, right=right), "bucketize",
                         _inputs(boundaries, input), _wrong_index_dtype(out_int32))
    if SEARCH_C is not None and out_int32 is False and right.__class__ is bool and not OPEN \
            and (out := SEARCH_C(boundaries, input, right)) is not None:
        return out  # (_fast_search's call, without its layers: 1-D boundaries, the same checks in C)
    if isinstance(boundaries, Tensor) and boundaries.ndim != 1:
        raise StridedRuntimeError(
            join_lines(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})",
                       f"boundaries has shape {shape_text(boundaries.shape)}; for one sequence per row use "
                       "strided.searchsorted(boundaries, input)")
        )
    return _search(boundaries, input, out_int32, right, None, None, "bucketize")


# the kinds of this module's ops, in the op registry
declare(Kind.COPY, "searchsorted bucketize")
