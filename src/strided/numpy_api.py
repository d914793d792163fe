"""NumPy-style module functions: ``order=`` and ``copy=`` with NumPy's view-or-copy rules.

These follow NumPy (``numpy.reshape``, ``numpy.ravel``, ...), including its
strides for size-1 dims and its ValueError texts, while the Tensor methods of
the same names follow PyTorch. Only the zero-size strides differ: NumPy 2 gives
fresh empty arrays all-zero strides, we keep the row-major ones (nothing is
addressed either way).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import layout as L
from .args import parse_sizes
from .errors import StridedTypeError, StridedValueError, join_lines
from .layout import Layout
from .tensor import Tensor

_ORDERS = ("C", "F", "A", "K")


def _check_order(order: Any, allowed: str, op: str) -> str:
    """NumPy's order argument: None means 'C'; TypeError for a non-string, ValueError for a bad one."""
    if order is None:
        return "C"
    if not isinstance(order, str):
        raise StridedTypeError(
            join_lines(
                f"order must be str, not {type(order).__name__}",
                f"got order={order!r:.40}; pass one of {', '.join(repr(o) for o in allowed)}",
            )
        )
    upper = order.upper()
    if upper == "K" and "K" not in allowed:
        raise StridedValueError(
            join_lines(f"order '{order}' is not permitted for {op}ing",
                       "reshape reads and writes elements in 'C', 'F' or 'A' order; "
                       "strided.ravel(t, order='K') flattens in memory order")
        )
    if upper not in _ORDERS:
        raise StridedValueError(
            join_lines(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})",
                       f"{op} takes order {', '.join(repr(o) for o in allowed)}")
        )
    return upper


def _numpy_flags(t: Tensor) -> tuple[bool, bool]:
    """NumPy's C_CONTIGUOUS and F_CONTIGUOUS flags (size-1 dims ignored, empty is both)."""
    lay = t._layout
    return L.is_contiguous(lay.shape, lay.strides), L.is_f_contiguous(lay.shape, lay.strides)


def _numpy_infer(shape: tuple[int, ...], numel: int, old_shape: tuple[int, ...]) -> tuple[int, ...]:
    """NumPy's ``_fix_unknown_dimension`` with its ValueError texts."""
    infer_at = None
    known = 1
    for i, s in enumerate(shape):
        if s < 0:  # NumPy takes any negative size as the unknown one
            if infer_at is not None:
                raise StridedValueError(
                    join_lines("can only specify one unknown dimension",
                               f"shape {shape} has more than one negative size; give all but one")
                )
            infer_at = i
        else:
            known *= s
    if infer_at is not None and known and numel % known == 0:
        out = list(shape)
        out[infer_at] = numel // known
        return tuple(out)
    if infer_at is None and known == numel:
        return shape
    raise StridedValueError(
        join_lines(
            f"cannot reshape array of size {numel} into shape {_np_shape_text(shape)}",
            f"the array has shape {old_shape}; the requested sizes must multiply to {numel}",
        )
    )


def _np_shape_text(shape: tuple[int, ...]) -> str:
    """NumPy's ``convert_shape_to_string``: leading negative sizes dropped, later ones "newaxis"."""
    i = 0
    while i < len(shape) and shape[i] < 0:
        i += 1
    if i == len(shape):
        return "()"
    parts = [str(shape[i])] + ["newaxis" if s < 0 else str(s) for s in shape[i + 1:]]
    return "(" + ",".join(parts) + ("," if i == 0 and len(shape) == 1 else "") + ")"


def reshape(t: Tensor, shape: Any, order: str = "C", copy: bool | None = None) -> Tensor:
    """``numpy.reshape``: a view when NumPy's no-copy rule allows (in ``order``), else a copy.

    ``copy=False`` raises ValueError when a copy is needed; ``copy=True`` always copies.
    """
    _tensor(t, "reshape")
    order = _check_order(order, "CFA", "reshape")
    if copy is not None:  # NumPy's copy converter: None, or anything bool() takes except a string
        if isinstance(copy, str):
            raise StridedValueError(
                "strings are not allowed for 'copy' keyword. Use True/False/None instead."
            )
        copy = bool(copy)
    lay = t._layout
    new_shape = parse_sizes((shape,) if not isinstance(shape, (tuple, list)) else (tuple(shape),), "reshape")
    c_contig, f_contig = _numpy_flags(t)
    if order == "A":
        order = "F" if f_contig and not c_contig else "C"
    if len(new_shape) == len(lay.shape) and copy is not True and new_shape == lay.shape:
        return t._view(lay)
    new_shape = _numpy_infer(new_shape, L.product(lay.shape), lay.shape)
    fortran = order == "F"
    dense = L.fortran_strides if fortran else L.contiguous_strides
    if copy is True:
        return _copy_as(t, dense, new_shape, "reshape(copy=True)")
    if (c_contig and not fortran) or (f_contig and fortran):
        return t._view(Layout._trusted(new_shape, dense(new_shape), lay.offset))
    strides = L.numpy_view_strides(lay.shape, lay.strides, new_shape, fortran)
    if strides is not None:
        return t._view(Layout._trusted(new_shape, strides, lay.offset))
    if copy is False:
        raise StridedValueError(
            join_lines(
                "Unable to avoid creating a copy while reshaping.",
                f"shape {lay.shape} with strides {lay.strides} cannot be read in {order} order "
                f"as {new_shape} with fixed strides",
                "fix: pass copy=None (copy when needed) or make it contiguous first "
                "(strided.ascontiguousarray / asfortranarray)",
            )
        )
    return _copy_as(t, dense, new_shape, f"reshape(order={order!r})")


def _copy_as(t: Tensor, dense: Any, new_shape: tuple[int, ...], reason: str) -> Tensor:
    """Copy ``t`` in the order ``dense`` describes, then lay it out as ``new_shape``."""
    copied = t._copy(dense(t.shape), reason)
    copied._layout = Layout._trusted(new_shape, dense(new_shape), 0)
    return copied


def ravel(t: Tensor, order: str = "C") -> Tensor:
    """``numpy.ravel``: a 1-d view when the layout allows it in ``order``, else a copy."""
    _tensor(t, "ravel")
    order = _check_order(order, _ORDERS, "ravel")
    lay = t._layout
    c_contig, f_contig = _numpy_flags(t)
    if order == "K":
        if c_contig:
            order = "C"
        elif f_contig:
            order = "F"
    elif order == "A":
        order = "F" if f_contig and not c_contig else "C"
    n = L.product(lay.shape)
    if (order == "C" and c_contig) or (order == "F" and f_contig):
        return reshape(t, (n,), order=order)
    if order == "K":
        dims = sorted(range(len(lay.shape)), key=lambda d: -abs(lay.strides[d]))
        stride = 1
        for d in reversed(dims):
            if lay.shape[d] == 1:
                continue
            if lay.strides[d] != stride:
                break
            stride *= lay.shape[d]
        else:
            return t._view(Layout._trusted((n,), (1,), lay.offset))
        # copy in memory (stride) order, in the dim order NumPy's flatten('K') iterates
        permuted = t.permute(L.numpy_keep_order(lay.shape, lay.strides))
        copied = permuted._copy(L.contiguous_strides(permuted.shape), "ravel(order='K')")
        copied._layout = Layout._trusted((n,), (1,), 0)
        return copied
    return _copy_as(t, L.fortran_strides if order == "F" else L.contiguous_strides, (n,), f"ravel(order={order!r})")


def broadcast_shapes(*shapes: Any) -> tuple[int, ...]:
    """NumPy's broadcasting of shapes (align right; equal sizes or one of them 1)."""
    parsed = [parse_sizes((tuple(s) if isinstance(s, (tuple, list)) else (s,),), "broadcast_shapes")
              for s in shapes]
    for s in parsed:
        if any(n < 0 for n in s):
            raise StridedValueError(
                join_lines("negative dimensions are not allowed", f"shape {s} has a negative size")
            )
    ndim = max((len(s) for s in parsed), default=0)
    result = [1] * ndim
    owner = [None] * ndim
    for d in range(ndim):  # NumPy walks the result's dims left to right, the shapes in order
        for i, s in enumerate(parsed):
            k = d - ndim + len(s)
            if k < 0:
                continue
            size = s[k]
            if size == 1:
                continue
            if result[d] == 1:
                result[d] = size
                owner[d] = i
            elif result[d] != size:
                j = owner[d]
                raise StridedValueError(
                    join_lines(
                        "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is "
                        f"between arg {j} with shape {parsed[j]} and arg {i} with shape {s}.",
                        f"aligned from the right, their sizes {result[d]} and {size} differ and neither is 1",
                    )
                )
    return tuple(result)


def broadcast_to(t: Tensor, shape: Any) -> Tensor:
    """``numpy.broadcast_to``: a stride-0 view, or ValueError with NumPy's text."""
    _tensor(t, "broadcast_to")
    target = parse_sizes((shape,) if not isinstance(shape, (tuple, list)) else (tuple(shape),), "broadcast_to")
    lay = t._layout
    if not target and lay.shape:
        raise StridedValueError(
            join_lines("cannot broadcast a non-scalar to a scalar array",
                       f"the tensor has shape {lay.shape}; only a 0-d tensor broadcasts to shape ()")
        )
    if any(n < 0 for n in target):
        raise StridedValueError(
            join_lines("all elements of broadcast shape must be non-negative",
                       f"requested shape {target}; broadcast_to takes no -1 (Tensor.expand does)")
        )
    if len(target) < len(lay.shape):
        raise StridedValueError(
            join_lines("input operand has more dimensions than allowed by the axis remapping",
                       f"the tensor has {len(lay.shape)} dims {lay.shape}, the requested shape {target} "
                       f"only {len(target)}; broadcasting adds dims but never removes them",
                       "fix: drop size-1 dims first with .squeeze() or strided.reshape")
        )
    ok = all(s == 1 or s == n for s, n in zip(reversed(lay.shape), reversed(target)))
    if not ok:
        raise StridedValueError(
            join_lines(
                "operands could not be broadcast together with remapped shapes "
                f"[original->remapped]: {_np_shape_text(lay.shape)}  and requested shape {_np_shape_text(target)}",
                "each dim of the tensor (aligned right) must equal the target size or be 1",
            )
        )
    return t._view(L.expand(lay, target))


def _tensor(t: Any, op: str) -> Tensor:
    """strided's NumPy-style functions take strided tensors only (NumPy would convert anything)."""
    if not isinstance(t, Tensor):
        raise StridedTypeError(
            f"{op}(): expected a strided.Tensor, got {type(t).__name__}\n"
            f"  got {t!r:.60}; strided does not convert data implicitly: pass strided.tensor(data)"
        )
    return t


def _np_views(a: Tensor, b: Tensor) -> tuple[np.ndarray, np.ndarray]:
    for x in (a, b):
        if not isinstance(x, Tensor):
            raise StridedTypeError(
                join_lines(
                    f"expected strided tensors, got {type(x).__name__}",
                    "both arguments must be strided tensors; wrap a NumPy array without copying: "
                    "strided.from_numpy(array)",
                )
            )
    return a._np(), b._np()


def shares_memory(a: Tensor, b: Tensor) -> bool:
    """Exact: do the two tensors touch a common byte? (NumPy's exact solver does the work.)"""
    _np_views(a, b)
    if a._storage is not b._storage and a._storage.array.base is None and b._storage.array.base is None:
        return False
    return bool(np.shares_memory(*_np_views(a, b)))


def may_share_memory(a: Tensor, b: Tensor) -> bool:
    """Bounds only: do the memory ranges of the two tensors overlap?"""
    return bool(np.may_share_memory(*_np_views(a, b)))


def ascontiguousarray(t: Tensor) -> Tensor:
    """``t`` when C-contiguous (0-d becomes 1-d, as in NumPy); else a C-order copy."""
    _tensor(t, "ascontiguousarray")
    if t.ndim == 0:
        return reshape(t, (1,))
    return t.contiguous()


def asfortranarray(t: Tensor) -> Tensor:
    """``t`` when F-contiguous (0-d becomes 1-d, as in NumPy); else a column-major copy."""
    _tensor(t, "asfortranarray")
    if t.ndim == 0:
        return reshape(t, (1,))
    _, f_contig = _numpy_flags(t)
    if f_contig:
        return t
    return t._copy(L.fortran_strides(t.shape), "asfortranarray()")
