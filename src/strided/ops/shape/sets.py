"""unique and unique_consecutive: the distinct elements (or slices along a dim) of a tensor.

Contracts (PyTorch 2.13, CPU):

* ``unique(sorted=True, return_inverse=False, return_counts=False, dim=None)``: with ``dim=None``
  the tensor is flattened and the result is 1-D; with ``dim`` the distinct slices along it, in
  lexicographic order. ``return_inverse`` gives, for each element (each slice), the position of its
  value in the result (shape of the input; ``(size,)`` with ``dim``), ``return_counts`` how often
  each occurs. One tensor, or a tuple when either flag is set.
* NaN is never equal to NaN: every NaN is its own entry (PyTorch's rule; NumPy's ``np.unique``
  merges them). strided numbers the NaN entries in the order the NaNs appear in the input;
  PyTorch's numbering among NaNs follows its unstable sort and is unspecified.
* # Note: ``sorted=False`` also gives sorted output (PyTorch's CPU kernel does the same; its
  order is unspecified).
* Of equal elements with other bits (-0.0 and 0.0; NaN payloads) the value kept is the one
  PyTorch keeps: the first of its group in PyTorch's unstable sort of the flattened tensor
  (:func:`.torch_sort_order.sorted_values`), not NumPy's. (With ``dim``, rows equal but for a
  zero's sign keep the lexicographic sort's first row, which may differ from PyTorch's
  ``std::sort``.)
* ``unique_consecutive`` merges runs of equal neighbours only, without sorting.

Every result is new memory, reported with :func:`strided.dispatch.copied`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import layout as L
from ...args import no_dims
from ...dispatch import OPEN, adopted, copied
from ...dtypes import TORCH_NAME, bool_, float32, float64, int32, int64, np_kind
from ...errors import StridedRuntimeError, StridedTypeError, join_lines
from ...kernels.blocked import row_major
from ...layout import Layout
from ...lazy_names import function_on_first_call
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support import support
from .._support.along import flag, one_dim, tensor_from_array
from .._support.operands import _cinfo, flat_run
from .._support.out import write_out
from .._support.promotion import result_type
from .._support.reduce_args import shape_text
from ..indexing.fast_along import ISIN_C
from ..registry import method

# (PyTorch's order of equal values, written in Python: loaded on the first call that needs it)
equal_bits_may_differ = function_on_first_call("strided.ops._support.torch_sort_order", "equal_bits_may_differ", globals())
sorted_values = function_on_first_call("strided.ops._support.torch_sort_order", "sorted_values", globals())


def _starts(s: np.ndarray) -> np.ndarray:
    """Where a new run begins in ``s`` (along axis 0; rows compare whole): True at 0 and wherever an
    element differs from its predecessor (NaN differs from everything, itself included)."""
    mask = np.empty(s.shape[0], dtype=bool)
    if s.shape[0]:
        mask[0] = True
        diff = s[1:] != s[:-1]
        mask[1:] = diff if diff.ndim == 1 else diff.any(axis=tuple(range(1, diff.ndim)))
    return mask


def _runs(s: np.ndarray, order: np.ndarray | None, want_inverse: bool,
          want_counts: bool) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The first element of each run of ``s`` (sorted by ``order`` when given, ``s`` being the input
    reordered), each input element's run number (inverse), and each run's length (counts)."""
    mask = _starts(s)
    values = s[mask]
    inverse = counts = None
    if want_inverse:
        ids = np.cumsum(mask, dtype=np.int64) - 1
        if order is None:
            inverse = ids
        else:
            inverse = np.empty_like(ids)
            inverse[order] = ids
    if want_counts:
        firsts = np.flatnonzero(mask)
        counts = np.diff(np.append(firsts, s.shape[0])).astype(np.int64)
    return values, inverse, counts


def _bits_may_differ(s: np.ndarray) -> bool:
    """Whether the sorted ``s`` may hold equal elements with other bits (two zeros, or NaN), whose
    order, so which one a run keeps, must then be PyTorch's sort's (equal elements stay equal:
    the runs' starts hold for its order too)."""
    return np_kind(s.dtype) == "f" and s.size > 1 and equal_bits_may_differ(s)


def _flat(self: Tensor, sort: bool, want_inverse: bool, want_counts: bool) -> tuple:
    x = self._np()
    # row-major order (a copy only when the layout needs one: the blocked copy, where NumPy's
    # reshape walks a transposed input element by element, 3x its time at 2^20 float32 elements)
    flat = row_major(x).reshape(-1)
    order = None
    if sort:
        if not want_inverse and not np.may_share_memory(flat, x):
            flat.sort()  # already a private copy: sort it where it is
            s = flat
        elif want_inverse:
            # stable for floats: each NaN is its own entry, numbered in the order the NaNs appear
            order = np.argsort(flat, kind="stable" if np_kind(flat.dtype) == "f" else None)
            s = flat[order]
        else:
            s = np.sort(flat)
    else:
        s = flat
    values, inverse, counts = _runs(s, order, want_inverse, want_counts)
    if sort and _bits_may_differ(s):
        # (flat may have been sorted where it is: the elements again, in their order)
        values = sorted_values(row_major(x).reshape(-1))[_starts(s)]
    out = tensor_from_array(values, values.shape, self._dtype)
    extra = []
    if want_inverse:
        extra.append(tensor_from_array(inverse.reshape(self._layout.shape), self._layout.shape, int64))
    if want_counts:
        extra.append(tensor_from_array(counts, counts.shape, int64))
    return out, extra


def _along(self: Tensor, d: int, sort: bool, want_inverse: bool, want_counts: bool, op: str) -> tuple:
    shape = self._layout.shape
    if shape[d] != 0 and 0 in shape:
        raise StridedRuntimeError(
            join_lines(
                "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied",
                f"the tensor has shape {shape_text(shape)}: along dim {d} every slice is empty, so there "
                "is nothing to compare",
            )
        )
    if shape.count(0) > 1:
        raise StridedRuntimeError(
            join_lines(
                "Number of zero sized dimensions is more than one, so unique cannot be applied ",
                f"the tensor has shape {shape_text(shape)}: besides dim {d}, another dim is empty, so every "
                "slice along it is empty and there is nothing to compare",
            )
        )
    rows = np.moveaxis(self._np(), d, 0)  # each slice along d is one row
    n = rows.shape[0]
    order = None
    if sort and n:
        flat_rows = rows.reshape(n, -1)
        # lexicographic order of the rows: lexsort's last key is the primary one
        order = np.lexsort(flat_rows.T[::-1]) if flat_rows.shape[1] else np.arange(n)
        rows = rows[order]
    values, inverse, counts = _runs(rows, order, want_inverse, want_counts)
    values = np.ascontiguousarray(values)
    # PyTorch builds the result with dim d first and moves it back: its strides are that order's
    out_shape = shape[:d] + (values.shape[0],) + shape[d + 1:]
    first = L.contiguous_strides(values.shape)  # (NumPy's strides of size-1 dims are arbitrary)
    strides = first[1:d + 1] + first[:1] + first[d + 1:] if values.size else L.contiguous_strides(out_shape)
    out = adopted(values.reshape(-1), Layout._trusted(out_shape, strides, 0), self._dtype)
    extra = []
    if want_inverse:
        extra.append(tensor_from_array(inverse if n else np.zeros(0, np.int64), (n,), int64))
    if want_counts:
        extra.append(tensor_from_array(counts, counts.shape, int64))
    return out, extra


_UNIQUE_FAST = frozenset((float32, float64, int32, int64))


def _fast_unique(self: Any, sort: bool, return_inverse: Any, return_counts: Any, dim: Any) -> Tensor | None:
    """unique / unique_consecutive of all elements of a non-empty row-major float32/float64/int32/
    int64 tensor without inverse or counts, nobody watching: :func:`_flat`'s steps on the flat run
    (NumPy's sort of it for unique, the same call on the same elements; then the run starts), the
    values adopted. None otherwise (the general path)."""
    if (OPEN or self.__class__ is not Tensor or dim is not None or return_inverse is not False
            or return_counts is not False or self._dtype not in _UNIQUE_FAST):
        return None
    info = _cinfo[self._layout.shape]
    flat = flat_run(self, info) if info[1] else None
    if flat is None:
        return None
    s = np.sort(flat) if sort else flat
    mask = np.empty(info[1], dtype=bool)
    mask[0] = True
    np.not_equal(s[1:], s[:-1], out=mask[1:])  # (NaN differs from everything: each its own entry)
    values = (sorted_values(flat) if sort and _bits_may_differ(s) else s)[mask]
    return adopted(values, _cinfo[values.shape][2], self._dtype)


def _unique(self: Tensor, sort: bool, return_inverse: Any, return_counts: Any, dim: Any, op: str) -> Any:
    tensor_arg(self, op)
    want_inverse = flag(return_inverse, op, "return_inverse")
    want_counts = flag(return_counts, op, "return_counts")
    support.check("unique" if dim is None else "unique.dim", self._dtype, (self,))  # (complex: no order)
    if dim is None:
        out, extra = _flat(self, sort, want_inverse, want_counts)
        where = "the flattened tensor"
    else:
        if self.ndim == 0:
            raise no_dims(dim, op)
        d = one_dim(self, dim, op)
        out, extra = _along(self, d, sort, want_inverse, want_counts, op)
        where = f"slices along dim {d}"
    # one copy record for every new tensor (values, inverse, counts): its nbytes counts them all
    copied(op, (self,), (out, *extra) if extra else out, lambda: (
        f"{op}: the {len(out) if out.ndim else 1} distinct {'runs' if not sort else 'values'} of {where} "
        f"of a {shape_text(self.shape)} tensor, into new memory"
        + (" (with inverse indices)" if want_inverse else "") + (" (with counts)" if want_counts else "")))
    return (out, *extra) if extra else out


@method("unique")
def unique(self: Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: int | None = None) -> Any:
    """The distinct elements (``dim=None``, flattened) or distinct slices along ``dim``, sorted.

    Returns one tensor, or ``(output, inverse?, counts?)`` when ``return_inverse`` /
    ``return_counts`` ask for them. Each NaN counts as distinct.

    >>> strided.tensor([3, 1, 3, 2]).unique(return_counts=True)
    (tensor([1, 2, 3]), tensor([1, 1, 2]))
    """
    if sorted.__class__ is bool and (fast := _fast_unique(self, True, return_inverse, return_counts, dim)) is not None:
        return fast
    flag(sorted, "unique", "sorted")
    return _unique(self, True, return_inverse, return_counts, dim, "unique")


@method("unique_consecutive")
def unique_consecutive(self: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:
    """Each run of equal neighbours merged into one (flattened, or slices along ``dim``); no sorting.

    >>> strided.tensor([1, 1, 2, 2, 1]).unique_consecutive()
    tensor([1, 2, 1])
    """
    fast = _fast_unique(self, False, return_inverse, return_counts, dim)
    if fast is not None:
        return fast
    return _unique(self, False, return_inverse, return_counts, dim, "unique_consecutive")


# the kinds of this module's ops, in the op registry
declare(Kind.COPY, "unique unique_consecutive")


def _isin_args(elements: Any, test_elements: Any) -> None:
    """PyTorch's checks of isin's operands: a Tensor and a Tensor or a number (int, float), not
    two numbers; a bool anywhere is refused by its kernel."""
    number = (int, float, np.integer, np.floating)
    ok = [isinstance(v, Tensor) or (isinstance(v, number) and not isinstance(v, bool))
          or isinstance(v, (bool, np.bool_)) for v in (elements, test_elements)]
    if not all(ok) or not (isinstance(elements, Tensor) or isinstance(test_elements, Tensor)):
        got = f"({type(elements).__name__}, {type(test_elements).__name__})"
        raise StridedTypeError(join_lines(
            f"isin() received an invalid combination of arguments - got {got}, but expected one of:",
            " * (Tensor elements, Tensor test_elements, *, bool assume_unique = False, bool invert = False)",
            " * (Number element, Tensor test_elements, *, bool assume_unique = False, bool invert = False)",
            " * (Tensor elements, Number test_element, *, bool assume_unique = False, bool invert = False)"))
    if any(isinstance(v, (bool, np.bool_)) or (isinstance(v, Tensor) and v._dtype is bool_)
           for v in (elements, test_elements)):
        raise StridedRuntimeError(join_lines("Unsupported input type encountered for isin(): Bool",
                                             "isin compares numbers; fix: convert a bool tensor with .long()"))
    for v in (elements, test_elements):
        if isinstance(v, Tensor) and v._dtype.is_complex:  # (PyTorch's kernel refuses complex)
            name = TORCH_NAME[v._dtype.name]
            raise StridedRuntimeError(join_lines(f"Unsupported input type encountered for isin(): {name}",
                                                 "isin compares real numbers; fix: compare .real and .imag apart"))


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False,
         out: Any = None) -> Tensor:
    """Whether each element of ``elements`` is among ``test_elements`` (either may be a number),
    a bool tensor of ``elements``' shape; ``invert``: whether it is not.

    >>> strided.isin(strided.tensor([1, 2, 3]), strided.tensor([2, 5])).tolist()
    [False, True, False]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, isin(elements, test_elements, assume_unique=assume_unique, invert=invert),
                         "isin", (elements, test_elements), "matmul")
    if (type(elements) is Tensor and type(test_elements) is Tensor and elements._dtype is test_elements._dtype
            and elements._dtype in _ISIN_FAST and invert.__class__ is bool):
        if ISIN_C is not None and (out := ISIN_C(elements, test_elements, invert)) is not None:
            return out  # (equality against each of a few test elements in C: _isin_sorted's answer)
        # (row-major operands of one dtype: the sorted lookup on their flat runs, nothing converted)
        info = _cinfo[elements._layout.shape]
        a = flat_run(elements, info) if 0 < info[1] <= _SORTED_LOOKUP_MAX else None
        b = flat_run(test_elements, _cinfo[test_elements._layout.shape]) if a is not None else None
        if b is not None and b.size:
            return adopted(_isin_sorted(a, b, invert), info[2], bool_)
    _isin_args(elements, test_elements)
    # PyTorch compares in the operands' result type (a float32 tensor meets 0.1 as float32(0.1), an
    # int64 tensor meets a float32 one in float32; a number out of an int dtype's range wraps)
    common = result_type(elements, test_elements).numpy
    a = _isin_array(elements, common)
    b = _isin_array(test_elements, common)
    shape = tuple(a.shape)
    if 0 < a.size <= _SORTED_LOOKUP_MAX and 0 < b.size and a.dtype == b.dtype and a.dtype.kind in "iuf":
        found = _isin_sorted(a, b, bool(invert))
    else:
        found = np.isin(a, b, assume_unique=bool(assume_unique), invert=bool(invert)) if a.size else np.zeros(shape, bool)
    return tensor_from_array(np.asarray(found), shape, bool_)


def _isin_array(v: Any, dtype: np.dtype) -> np.ndarray:
    """An operand of isin as an array of the comparison dtype (wrapping, as PyTorch's cast does)."""
    arr = v._np() if isinstance(v, Tensor) else np.asarray(v)
    return arr if arr.dtype == dtype else arr.astype(dtype)


# up to this many elements, isin looks each one up in the sorted test elements (below); measured
# 4x faster than np.isin at 12 and 256 elements, equal at 1024 (np.isin's integer table and its
# merge sort win beyond)
_SORTED_LOOKUP_MAX = 1024
_ISIN_FAST = frozenset((float32, float64, int32, int64))


def _isin_sorted(a: np.ndarray, b: np.ndarray, invert: bool) -> np.ndarray:
    """``np.isin(a, b, invert=invert)`` for non-empty ``a`` and ``b`` of one real dtype: each element
    of ``a`` compared with the first test element not below it (np.searchsorted in np.sort(b)).
    The same answer: equality decides membership either way (NaN is in nothing, -0.0 meets 0.0;
    NaN sorts last, so a NaN's candidate is a NaN or the clipped last element, never equal)."""
    s = b.flatten()  # (a copy: sorted in place)
    s.sort()
    flat = a.reshape(-1)
    at = s.searchsorted(flat)
    np.minimum(at, s.size - 1, out=at)
    return (np.not_equal if invert else np.equal)(s[at], flat).reshape(a.shape)


declare(Kind.COMPUTE, "isin")
