"""Matrix products: matmul (``@``), mm, bmm, dot, outer.

Contracts (PyTorch 2.13):

* ``matmul(a, b)``: 1-D @ 1-D is a 0-d dot product; 2-D @ 1-D a matrix-vector
  product; 1-D @ 2-D treats ``a`` as a row (the added dim is removed again);
  2-D @ 2-D a matrix product; otherwise batched, with the batch dims (all but
  the last two) broadcast against each other. 0-d operands are refused.
* Both operands must have the same dtype (matmul does not promote); integer
  dtypes are allowed (they wrap on overflow, as in PyTorch), bool is refused
  with NotImplementedError -- except, as in PyTorch, where mm/mv/bmm have
  nothing to compute (an empty result or a contracted size of 0).
* ``mm`` takes 2-D operands only, ``bmm`` 3-D with equal batch sizes, ``dot``
  1-D of equal length; ``outer`` takes two 1-D tensors and promotes dtypes.
* Results are fresh contiguous tensors; NumPy reads both operands in place
  (BLAS when their strides allow it).

Error messages start with the line PyTorch prints for the same mistake. PyTorch
routes a batched matmul either through one folded ``mm``/``mv`` or through
``bmm`` depending on the operands' strides, and its message depends on the
route; :func:`_folds` reproduces that choice so the first lines match.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import layout as L
from ...dispatch import OPEN, adopted, report, result_array
from ...dtypes import CPP_NAME, TORCH_NAME, DType, float32, float64
from ...errors import StridedNotImplementedError, StridedRuntimeError, join_lines
from ...grad_mode import SUBCLASSES
from ...gradients import seal
from ...kernels.fpstate import quiet_call, quiet_retry, quietly
from ...kernels.matmul import dot2d, matmul2d, matmul_into, matmul_new
from ...kernels.memory import outside_storage
from ...layout import Layout
from ...layout.contraction import should_fold
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support.memo import Memo
from .._support.operands import _cinfo, flat_run
from .._support.out import write_out
from .._support.reduce_args import shape_text
from ..elementwise.binary import mul
from ..registry import backward, method, requires_grad
from . import matkernel as _mk
from .products import fast_dot, fast_mv, kron_native


def _x(*sizes: int) -> str:
    return "x".join(str(s) for s in sizes)


def _operands(a: Tensor, b: Tensor) -> str:
    return (f"a: shape {shape_text(a.shape)}, strides {shape_text(a.stride())}, {a.dtype.name}; "
            f"b: shape {shape_text(b.shape)}, strides {shape_text(b.stride())}, {b.dtype.name}")


def _dtype_fix(a: Tensor, b: Tensor, op: str) -> str:
    return (f"{op} does not promote dtypes ({a.dtype.name} vs {b.dtype.name}); fix: convert one "
            f"operand, e.g. b.to(strided.{a.dtype.name}) or a.to(strided.{b.dtype.name})")


def _refuse_bool(dtype: DType, kernel: str, op: str, empty: bool = False) -> None:
    """bool has no product kernel; like PyTorch, mm/mv/bmm with no work to do never reach it."""
    # Note: PyTorch returns an empty or all-False bool result for bool operands when the
    # result is empty or the contracted dim is 0 (mm, mv, bmm; not dot); strided does the same.
    # (uint16/32/64 have no product kernel either in PyTorch 2.13: the same error names them)
    if (dtype.kind == "b" or (dtype.kind == "u" and dtype.itemsize > 1)) and not empty:
        raise StridedNotImplementedError(
            join_lines(
                f"\"{kernel}\" not implemented for '{TORCH_NAME[dtype.name]}'",
                f"{op} multiplies and adds numbers; fix: convert first, e.g. a.to(strided.int64)",
            )
        )


def _contraction(a: Tensor, b: Tensor) -> str:
    """The detail line of a size mismatch, in the operands' own dims."""
    kb = b.shape[0] if b.ndim == 1 else b.shape[-2]
    a_dim = "only" if a.ndim == 1 else "last"
    b_dim = "only" if b.ndim == 1 else ("first" if b.ndim == 2 else "second-to-last")
    return (f"a @ b contracts a's {a_dim} dim (size {a.shape[-1]}) with b's {b_dim} dim (size {kb}); "
            "they must be equal. fix: check the order of the operands, or transpose the one stored "
            "the other way round (x.mT)")


def _fold_note(a: Tensor, b: Tensor) -> str:
    big, lead = (a, a.shape[:-1]) if a.ndim >= b.ndim else (b, b.shape[:-2] + b.shape[-1:])
    which = "a" if big is a else "b"
    return (f"(PyTorch folds {which}'s other dims {shape_text(lead)} into the {L.product(lead)} rows "
            "of one matrix, hence the sizes in the first line)")


# ---------------------------------------------------------------- the kernels


def _product(a: Tensor, b: Tensor, shape: tuple[int, ...], dtype: DType | None = None) -> Tensor:
    """NumPy's matmul of the two in-place views into a fresh contiguous ``shape`` (of a's dtype)."""
    dtype = dtype or a._dtype
    if dtype is a._dtype:
        flat = matmul_new(a._np(), b._np(), shape)
        if flat is not None:
            return adopted(flat, Layout._trusted(shape, L.contiguous_strides(shape), 0), dtype)
    out, out_np = result_array(shape, dtype)
    matmul_into(a._np(), b._np(), out_np)
    return out


def _check_mm(a: Tensor, b: Tensor, op: str, shown: tuple[tuple[int, ...], tuple[int, ...]] | None = None,
              note: str = "") -> None:
    """addmm's checks, in its order: shapes, dtypes, bool."""
    (n, k), (k2, p) = shown or (a.shape, b.shape)
    if k != k2:
        raise StridedRuntimeError(
            join_lines(
                f"mat1 and mat2 shapes cannot be multiplied ({_x(n, k)} and {_x(k2, p)})",
                _operands(a, b),
                _contraction(a, b),
                note,
            )
        )
    if a._dtype is not b._dtype:
        raise StridedRuntimeError(
            join_lines(
                f"expected m1 and m2 to have the same dtype, but got: {CPP_NAME[a._dtype.name]} "
                f"!= {CPP_NAME[b._dtype.name]}",
                _operands(a, b),
                _dtype_fix(a, b, op),
            )
        )
    _refuse_bool(a._dtype, "addmm_impl_cpu_", op, empty=n * p == 0 or k == 0)


def _check_mv(mat: Tensor, vec: Tensor, a: Tensor, b: Tensor, rows: int, k: int, note: str = "") -> None:
    """addmv's checks, in its order: shapes, dtypes, bool."""
    if k != vec.shape[0]:
        raise StridedRuntimeError(
            join_lines(
                f"size mismatch, got input ({rows}), mat ({_x(rows, k)}), vec ({vec.shape[0]})",
                _operands(a, b),
                _contraction(a, b),
                note,
            )
        )
    if mat._dtype is not vec._dtype:
        v, m = TORCH_NAME[vec._dtype.name], TORCH_NAME[mat._dtype.name]
        raise StridedRuntimeError(
            join_lines(
                f"addmv input tensors must have the same dtype, but got {v}, {m}, and {v}",
                _operands(a, b),
                _dtype_fix(a, b, "matmul"),
            )
        )
    _refuse_bool(mat._dtype, "addmv_impl_cpu", "matmul", empty=rows * k == 0)


def _check_dot(a: Tensor, b: Tensor, op: str) -> None:
    """dot's checks, in its order: dtypes, lengths, bool."""
    if a._dtype is not b._dtype:
        raise StridedRuntimeError(
            join_lines(
                f"dot : expected both vectors to have same dtype, but found "
                f"{TORCH_NAME[a._dtype.name]} and {TORCH_NAME[b._dtype.name]}",
                _operands(a, b),
                _dtype_fix(a, b, op),
            )
        )
    n, m = a.shape[0], b.shape[0]
    if n != m:
        raise StridedRuntimeError(
            join_lines(
                f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
                f"number of elements, but got {n} and {m} elements respectively",
                _operands(a, b),
                "a dot product pairs the elements of two vectors of one length",
            )
        )
    _refuse_bool(a._dtype, "dot", op)


def _check_bmm(a: Tensor, b: Tensor, batch: int, n_k: tuple[int, int], k2_p: tuple[int, int], op: str) -> DType:
    """bmm's checks on the (batch, n, k) @ (batch, k2, p) it would run: shapes, dtypes, bool.

    Returns the result dtype: a's, or b's when there is no work to do.
    """
    n, k = n_k
    k2, p = k2_p
    if k != k2:
        raise StridedRuntimeError(
            join_lines(
                f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {k}] "
                f"but got: [{batch}, {k2}].",
                _operands(a, b),
                _contraction(a, b),
            )
        )
    if batch * n * p == 0 or k == 0:
        # Note: as PyTorch's bmm, an empty result or k == 0 skips the kernel and its dtype checks,
        # and the (empty or zero) result takes b's dtype.
        return b._dtype
    _refuse_bool(a._dtype, "bmm", op)  # bmm dispatches on a's dtype before comparing dtypes
    if a._dtype is not b._dtype:
        raise StridedRuntimeError(
            join_lines(
                f"expected scalar type {TORCH_NAME[a._dtype.name]} but found {TORCH_NAME[b._dtype.name]}",
                _operands(a, b),
                _dtype_fix(a, b, op),
            )
        )
    return a._dtype


# ---------------------------------------------------------------- matmul


def _broadcast_batch(a: Tensor, b: Tensor, batch_a: tuple[int, ...], batch_b: tuple[int, ...]) -> tuple[int, ...]:
    """Broadcast the batch dims with the one broadcast rule; PyTorch's message on a mismatch."""
    shape = L.broadcast_pair(batch_a, batch_b)
    if shape.__class__ is tuple:
        return shape  # type: ignore[return-value]
    raise StridedRuntimeError(
        join_lines(
            f"The size of tensor a ({shape.size_a}) must match the size of tensor b ({shape.size_b}) at "
            f"non-singleton dimension {shape.dim}",
            _operands(a, b),
            f"matmul broadcasts the batch dims (all but the last two): a's {shape_text(batch_a)} "
            f"against b's {shape_text(batch_b)}; sizes must be equal or 1",
        )
    )


def _folds(a: Tensor, b: Tensor) -> bool:
    """PyTorch's ``should_fold`` for these operands (the contraction planner's rule)."""
    return should_fold(a._layout, b._layout)


def _matmul_checks(a: Tensor, b: Tensor) -> tuple[tuple[int, ...], DType]:
    """Check the operands as PyTorch's route would; return the result shape and dtype."""
    da, db = a.ndim, b.ndim
    sa, sb = a.shape, b.shape
    if da == 1 and db == 1:
        _check_dot(a, b, "matmul")
        return (), a._dtype
    if da == 2 and db == 1:
        _check_mv(a, b, a, b, sa[0], sa[1])
        return (sa[0],), a._dtype
    if da == 1 and db == 2:
        _check_mm(a, b, "matmul", shown=((1, sa[0]), sb),
                  note=f"(PyTorch multiplies the 1-D a as a 1x{sa[0]} row matrix, hence the 1 in the first line)")
        return (sb[1],), a._dtype
    if da == 2 and db == 2:
        _check_mm(a, b, "matmul")
        return (sa[0], sb[1]), a._dtype
    if _folds(a, b):
        note = _fold_note(a, b)
        if da >= db:  # a (..., n, k) folded to (rows, k); b a vector or a matrix
            rows = L.product(sa[:-1])
            if db == 1:
                _check_mv(a, b, a, b, rows, sa[-1], note)
                return sa[:-1], a._dtype
            _check_mm(a, b, "matmul", shown=((rows, sa[-1]), sb), note=note)
            return sa[:-1] + (sb[1],), a._dtype
        # a is a vector, b (..., k, p) is folded as b.mT to (rows, k)
        rows = L.product(sb[:-2]) * sb[-1]
        _check_mv(b, a, a, b, rows, sb[-2], note)
        return sb[:-2] + (sb[-1],), a._dtype
    n = sa[-2] if da > 1 else 1
    k = sa[-1]
    k2 = sb[-2] if db > 1 else sb[0]
    p = sb[-1] if db > 1 else 1
    batch = _broadcast_batch(a, b, sa[:-2], sb[:-2])
    dtype = _check_bmm(a, b, L.product(batch), (n, k), (k2, p), "matmul")
    return batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ()), dtype


_DOT_MADDS = 1 << 18  # (64 x 64 x 64): below it ndarray.dot's cheaper call wins


def _mm_plan(shapes: tuple[tuple[int, ...], tuple[int, ...]]) -> tuple | None:
    """For two 2-D shapes with a non-empty contraction and result: (a's row-major strides and
    numel, b's, the result's shared row-major layout, the NumPy function that multiplies the
    operands' 2-D views); else None."""
    sa, sb = shapes
    if len(sa) != 2 or len(sb) != 2 or sa[1] != sb[0] or not (sa[0] and sa[1] and sb[1]):
        return None
    ia, ib = _cinfo[sa], _cinfo[sb]
    # ndarray.dot costs half np.matmul's call on small products, but on large ones with a short
    # contraction it runs the gemm slower (measured, one thread: (1024, 64) @ (64, 1024) 1.10x,
    # (2048, 16) @ (16, 2048) 1.26x np.matmul's time; equal from (128, 128, 128) up to (512, 512, 512))
    small = sa[0] * sa[1] * sb[1] <= _DOT_MADDS
    product = dot2d if small and min(sa[0], sa[1], sb[1]) >= 2 else matmul2d
    return ia[0], ia[1], ib[0], ib[1], _cinfo[(sa[0], sb[1])][2], product


_mm_plans = Memo(_mm_plan)  # (a's shape, b's shape) -> the fast path's plan or None
_MM_FAST = frozenset({float32, float64})


def fast_product(a: Any, b: Any) -> tuple[np.ndarray, Layout] | None:
    """:func:`_fast_product_numpy`'s answer: the compiled entry's product
    (:func:`strided.ops.linalg.matkernel.mm`, NumPy's own BLAS call on the same operands) where it
    takes the operands, as a 2-D array and its layout, else NumPy's."""
    t = _mk.mm(a, b)
    if t is not None:
        lay = t._layout
        return t._storage.array.reshape(lay.shape), lay
    return _fast_product_numpy(a, b)


def _fast_product_numpy(a: Any, b: Any) -> tuple[np.ndarray, Layout] | None:
    """The small-op fast path's product: for two 2-D float32 (or float64) tensors of one dtype,
    each row-major or the transpose of a row-major one (``x @ w.t()``), with a non-empty
    contraction and result, NumPy's fresh row-major ``a @ b`` computed from the flat runs of their
    storages, with the result's shared row-major layout (from the per-shape plan cache); None when
    a precondition fails (the caller takes its general path).
    Bit-identical to :func:`_product`'s result: the same views (a transposed operand is its flat
    run reshaped and ``.T``, the view ``numpy_view`` builds) and, when either is transposed, the
    same ``np.matmul`` call (``ndarray.dot`` is proven equal on row-major operands only: see
    ``kernels.matmul.dot2d``)."""
    if (type(a) is Tensor or type(a) in SUBCLASSES) and (type(b) is Tensor or type(b) in SUBCLASSES):
        d = a._dtype
        if b._dtype is d and d in _MM_FAST:
            la = a._layout
            lb = b._layout
            sa = la.shape
            sb = lb.shape
            plan = _mm_plans[(sa, sb)]
            if plan is None:
                return None
            x = _operand(a, la, plan[0], plan[1])
            y = _operand(b, lb, plan[2], plan[3]) if x is not None else None
            if y is None:
                return None
            # (ndarray.dot is proven on row-major operands only: np.matmul for a transposed one)
            product = plan[5] if x.flags.c_contiguous and y.flags.c_contiguous else matmul2d
            try:  # (fpstate.quietly, inlined: a call is a tenth of a 1 µs op)
                res = quiet_call(product, x, y)
            except RuntimeError as e:
                res = quiet_retry(e, product, x, y)
            except MemoryError:
                return None  # the general path raises PyTorch's out-of-memory error
            if product is matmul2d and not res.flags.c_contiguous:
                return None  # (np.matmul's 2-D result is row-major; the general path checks the same)
            return res, plan[4]
    return None


def _operand(t: Any, lay: Layout, row_major: tuple[int, ...], n: int) -> np.ndarray | None:
    """2-D ``t`` (``n`` elements) as a NumPy view of its storage when it is row-major (strides
    ``row_major``) or the transpose of a row-major tensor (the view ``numpy_view`` builds); else None."""
    shape = lay.shape
    strides = lay.strides
    if strides != row_major and strides != (1, shape[0]):
        return None
    x = t._storage.array
    o = lay.offset
    if o or len(x) != n:
        x = x[o : o + n]
        if len(x) != n:  # (only a tensor unpickled past its storage: never read outside)
            raise outside_storage(t._storage.array, lay)
    return x.reshape(shape) if strides == row_major else x.reshape(shape[1], shape[0]).T


def _rowmajor_float(t: Any, shape: tuple[int, ...], dtype: DType) -> np.ndarray | None:
    """A plain float32/float64 tensor's row-major elements as a NumPy array of ``shape`` (no copy),
    when ``t`` has that shape and ``dtype``; else None."""
    if t.__class__ is not Tensor or t._dtype is not dtype or dtype not in _MM_FAST or t._layout.shape != shape:
        return None
    flat = flat_run(t, _cinfo[shape])
    return None if flat is None else flat.reshape(shape)


def fast_bmm(a: Any, b: Any) -> tuple[np.ndarray, Layout] | None:
    """The small-op fast path of ``bmm`` (and ``baddbmm``): for row-major 3-D float32/float64
    tensors of one dtype, (B, n, k) and (B, k, p), none of the sizes 0, NumPy's fresh row-major
    ``np.matmul`` of their flat runs (the call :func:`_product` makes on the same views) and the
    result's shared layout; None when a precondition fails."""
    if a.__class__ is not Tensor or b.__class__ is not Tensor:
        return None
    sa, sb = a._layout.shape, b._layout.shape
    if len(sa) != 3 or len(sb) != 3 or sa[0] != sb[0] or sa[2] != sb[1] or not (all(sa) and sb[2]):
        return None
    x = _rowmajor_float(a, sa, a._dtype)
    y = _rowmajor_float(b, sb, a._dtype) if x is not None else None
    if y is None:
        return None
    return quietly(matmul2d, x, y), _cinfo[(*sa[:2], sb[2])][2]


def _with_fast_path(slow: Any) -> Callable[..., Tensor]:
    """``slow`` (``matmul`` or the ``@`` operator) with the small-op fast path
    (:func:`fast_product`) in front: NumPy's fresh row-major result becomes the output."""

    def fn(self: Any, other: Any, *, out: Any = None) -> Tensor:  # (the names of PyTorch's: a.matmul(other=b))
        if out is not None:
            return _into(out, slow(self, other), "matmul", (self, other))
        t = _mk.mm(self, other)  # (small 2-D float products: NumPy's BLAS call, in one C call)
        if t is not None:
            return t
        fast = _fast_product_numpy(self, other)
        if fast is not None:
            return adopted(fast[0].ravel(), fast[1], self._dtype)
        t = _mk.bmm(self, other)  # (3-D of one batch size: np.matmul's gemm per matrix)
        if t is not None:
            return t
        res = fast_mv(self, other)
        return res if res is not None else slow(self, other)

    fn.__name__ = slow.__name__
    fn.__qualname__ = "matmul"  # (Python's argument errors name it: "matmul() missing ...")
    fn.__doc__ = slow.__doc__
    return fn


def _matmul(self: Tensor, other: Tensor) -> Tensor:
    """The matrix product with PyTorch's rules for 1-D operands and broadcast batch dims.

    >>> a, b = strided.ones(2, 3), strided.ones(3, 4)
    >>> (a @ b).shape, strided.matmul(strided.ones(5, 2, 3), b).shape, (b.t() @ strided.ones(3)).shape
    ((2, 4), (5, 2, 4), (4,))
    """
    a = tensor_arg(self, "matmul")
    b = tensor_arg(other, "matmul", "other", 2)
    if a.ndim == 0 or b.ndim == 0:
        raise StridedRuntimeError(
            join_lines(
                f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and {b.ndim}D",
                _operands(a, b),
                "fix: multiply by a 0-d tensor with * instead, or give it dims (t.reshape(1))",
            )
        )
    shape, dtype = _matmul_checks(a, b)
    return report("matmul", (a, b), _product(a, b, shape, dtype))


def _matmul_operator(self: Tensor, other: Any) -> Tensor:
    """``self @ other``; a non-tensor ``other`` gives Python's "unsupported operand type(s) for @"."""
    if not isinstance(other, Tensor):
        return NotImplemented
    return _matmul(self, other)


_matmul.__name__ = "matmul"
_matmul_operator.__name__ = "__matmul__"
matmul = method("matmul")(_with_fast_path(_matmul))
matmul_operator = method("__matmul__")(_with_fast_path(_matmul_operator))


@backward("__matmul__", operands="dunder", reflected=("__rmatmul__",))
@backward("matmul", operands="two")
def _matmul_backward(out: Tensor, a: Any, b: Any) -> Any:
    """PyTorch's matmul by the operands' dims: mm, dot, mv; otherwise the batched product with
    broadcasting (the engine sums each gradient over the broadcast batch dims).

    # Note: PyTorch builds 1-d @ 2-d and the batched cases from unsqueeze / reshape / mm / bmm
    # nodes (``SqueezeBackward4``, ``UnsafeViewBackward0``, ...); strided records one node
    # (``MmBackward0`` for 1-d @ 2-d, ``BmmBackward0`` for the batched product).
    """
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        return None
    na, nb = len(a._layout.shape), len(b._layout.shape)
    if na == 2 and nb == 2:
        return _mm_backward(out, a, b)
    if na == 1 and nb == 1:
        return _dot_backward(out, a, b)
    if na == 2 and nb == 1:
        return "MvBackward0", (a, b), lambda g: (g.unsqueeze(1) * b, a.t().matmul(g)), (a, b)
    name = "MmBackward0" if na == 1 and nb == 2 else "BmmBackward0"

    def grads(g: Tensor) -> tuple:
        a2 = a.unsqueeze(0) if na == 1 else a
        b2 = b.unsqueeze(1) if nb == 1 else b
        g2 = g.unsqueeze(-2) if na == 1 else g
        g2 = g2.unsqueeze(-1) if nb == 1 else g2
        ga = g2.matmul(b2.mT)
        gb = a2.mT.matmul(g2)
        if na == 1:
            ga = ga.squeeze(-2)
        if nb == 1:
            gb = gb.squeeze(-1)
        return ga, gb

    return name, (a, b), grads, (a, b)


@method("__rmatmul__")
def rmatmul(self: Tensor, other: Any) -> Tensor:
    """``other @ self`` for a left operand that is not a strided tensor."""
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(other, self)


def _into(out: Any, result: Tensor, op: str, inputs: tuple) -> Tensor:
    """``out=``: PyTorch's rules (:func:`strided.ops._support.out.write_out`), dtype exactly the result's."""

    return write_out(out, result, op, inputs, same_dtype="matmul")


@method("mm")
def mm(self: Tensor, mat2: Tensor, *, out: Any = None) -> Tensor:
    """(n, k) @ (k, p) -> (n, p); both operands 2-D and of one dtype.

    >>> strided.mm(strided.ones(2, 3), strided.ones(3, 4)).shape
    (2, 4)
    """
    if out is None:
        # (first: the compiled entry and the plan exist only for two 2-D shapes that multiply, of
        # one float dtype, so every check below would pass; the same product as _product's,
        # recorded the same)
        t = _mk.mm(self, mat2)
        if t is not None:
            return report("mm", (self, mat2), t) if OPEN else t
        fast = _fast_product_numpy(self, mat2)
        if fast is not None:
            return report("mm", (self, mat2), adopted(fast[0].ravel(), fast[1], self._dtype))
    a = tensor_arg(self, "mm")
    b = tensor_arg(mat2, "mm", "mat2", 2)
    for name, t in (("self", a), ("mat2", b)):
        if t.ndim != 2:
            raise StridedRuntimeError(
                join_lines(
                    f"{name} must be a matrix",
                    f"mm takes 2-D operands; {name} has shape {shape_text(t.shape)}. "
                    "fix: matmul (or @) handles 1-D and batched operands",
                )
            )
    _check_mm(a, b, "mm")
    shape = (a.shape[0], b.shape[1])
    if out is not None and _column_major_out(out, a, b, shape):
        # (PyTorch's mm_out computes into a column-major result (or its Fortran-contiguous temporary)
        # as the transposed product: the same gemm call, other bits than the row-major one (AVX2))
        result = report("mm", (a, b), _product(b.mT, a.mT, shape[::-1]).mT)
    else:
        result = report("mm", (a, b), _product(a, b, shape))
    return result if out is None else _into(out, result, "mm", (a, b))


def _column_major_out(out: Any, a: Tensor, b: Tensor, shape: tuple[int, int]) -> bool:
    """Whether PyTorch's addmm_impl_cpu_ computes ``mm(a, b, out=out)`` column-major (``out`` not
    row-major with strides (>= p, 1) and no resize) where strided's product is MKL's gemm (the
    optional route, in the transposed orientation): there the transposed product is its call."""
    from ...kernels import blas_route

    n, p = shape
    if out.__class__ is not Tensor or out._layout.shape != shape or n < 2 or p < 2 or a._dtype is not b._dtype or (
            a._dtype is not float32 and a._dtype is not float64) or out._dtype is not a._dtype:
        return False
    s0, s1 = out._layout.strides
    return not (s1 == 1 and s0 >= p) and p >= blas_route.MIN_ROWS and n >= blas_route.MIN_COLS and (
        a.shape[1] > 0 and blas_route.lib() is not None)


@backward("mm", operands="two")
def _mm_backward(out: Tensor, a: Tensor, b: Tensor, **kwargs: Any) -> Any:
    need_a, need_b = requires_grad(a), requires_grad(b)

    def grads(g: Tensor) -> tuple:
        return (g.mm(b.t()) if need_a else None, a.t().mm(g) if need_b else None)

    return "MmBackward0", (a, b), grads, tuple(t for t, k in ((a, need_b), (b, need_a)) if k)


@method("bmm")
def bmm(self: Tensor, mat2: Tensor, *, out: Any = None) -> Tensor:
    """(B, n, k) @ (B, k, p) -> (B, n, p); both 3-D with the same B (no broadcasting).

    >>> strided.bmm(strided.ones(5, 2, 3), strided.ones(5, 3, 4)).shape
    (5, 2, 4)
    """
    if out is None:
        t = _mk.bmm(self, mat2)  # (the same product as _product's: np.matmul's gemm per matrix)
        if t is not None:
            return report("bmm", (self, mat2), t) if OPEN else t
    fast = fast_bmm(self, mat2) if out is None else None
    if fast is not None:  # (the same product as _product's, recorded the same)
        return report("bmm", (self, mat2), adopted(fast[0].reshape(-1), fast[1], self._dtype))
    a = tensor_arg(self, "bmm")
    b = tensor_arg(mat2, "bmm", "mat2", 2)
    for name, t in (("batch1", a), ("batch2", b)):
        if t.ndim != 3:
            raise StridedRuntimeError(
                join_lines(
                    f"{name} must be a 3D tensor",
                    f"bmm takes (batch, n, k) and (batch, k, p); {name} has shape {shape_text(t.shape)}. "
                    "fix: matmul (or @) broadcasts batch dims and accepts other ranks",
                )
            )
    batch, n, k = a.shape
    if b.shape[0] != batch or b.shape[1] != k:
        raise StridedRuntimeError(
            join_lines(
                f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {k}] "
                f"but got: [{b.shape[0]}, {b.shape[1]}].",
                _operands(a, b),
                "bmm needs equal batch sizes (it does not broadcast; matmul does) and a's last dim "
                "equal to b's middle dim",
            )
        )
    dtype = _check_bmm(a, b, batch, (n, k), (b.shape[1], b.shape[2]), "bmm")
    result = report("bmm", (a, b), _product(a, b, (batch, n, b.shape[2]), dtype))
    return result if out is None else _into(out, result, "bmm", (a, b))


@backward("bmm", operands="two")
def _bmm_backward(out: Tensor, a: Tensor, b: Tensor, **kwargs: Any) -> Any:
    need_a, need_b = requires_grad(a), requires_grad(b)

    def grads(g: Tensor) -> tuple:
        return (g.bmm(b.transpose(1, 2)) if need_a else None, a.transpose(1, 2).bmm(g) if need_b else None)

    return "BmmBackward0", (a, b), grads, tuple(t for t, k in ((a, need_b), (b, need_a)) if k)


@method("dot")
def dot(self: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """Sum of products of two 1-D tensors of one length and dtype, as a 0-d tensor.

    >>> strided.dot(strided.tensor([1, 2, 3]), strided.tensor([4, 5, 6])).item()
    32
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, dot(self, other),
                         "dot", (self, other), "result dtype {o} does not match input dtype {r}")
    if (t := fast_dot(self, other)) is not None:  # two row-major float vectors
        if OPEN:
            report("dot", (self, other), t)
        return t
    a = tensor_arg(self, "dot")
    b = tensor_arg(other, "dot", "tensor", 2)
    if a.ndim != 1 or b.ndim != 1:
        raise StridedRuntimeError(
            join_lines(
                f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors",
                _operands(a, b),
                "fix: flatten the operands (t.reshape(-1)) or use matmul for matrices",
            )
        )
    _check_dot(a, b, "dot")
    return report("dot", (a, b), _product(a, b, ()))


@backward("dot", operands="two")
def _dot_backward(out: Tensor, a: Tensor, b: Tensor) -> Any:
    return "DotBackward0", (a, b), lambda g: (g * b, g * a), (a, b)


@method("outer")
def outer(self: Tensor, vec2: Tensor, *, out: Any = None) -> Tensor:
    """(n,) x (m,) -> (n, m) with ``out[i, j] = a[i] * b[j]``: ``a.reshape(n, 1) * b``, as in PyTorch.

    >>> strided.outer(strided.tensor([1, 2]), strided.tensor([1, 10, 100])).tolist()
    [[1, 10, 100], [2, 20, 200]]
    """
    if out is not None:  # (into any dtype the result casts to, as PyTorch's)
        return write_out(out, outer(self, vec2), "outer", (self, vec2), through_temporary=True)
    fast = _fast_outer(self, vec2)
    if fast is not None:
        return fast
    a = tensor_arg(self, "outer")
    b = tensor_arg(vec2, "outer", "vec2", 2)
    for name, t in (("self", a), ("vec2", b)):
        if t.ndim != 1:
            raise StridedRuntimeError(
                join_lines(
                    f"outer: Expected 1-D argument {name}, but got {t.ndim}-D",
                    f"{name} has shape {shape_text(t.shape)}; fix: flatten it (t.reshape(-1))",
                )
            )
    # PyTorch's definition, so dtype promotion and the result layout are those of ``*``
    return mul(a.reshape(a.shape[0], 1), b)


def _fast_outer(a: Any, b: Any) -> Tensor | None:
    """outer's fast path: two row-major (contiguous) 1-D float32/float64 tensors of one dtype, no
    size 0, neither recorded by autograd: up to :data:`.matkernel.LIMIT` products, the compiled
    entry (:data:`.matkernel.outer`: the same products in one call); else the compiled Kronecker
    loop of the (m, 1) and (1, q)
    matrices (:func:`~strided.ops.linalg.products.kron_native`, the general path's IEEE products,
    ``a[i]`` first) into the fresh row-major (m, q) result the general path's ``mul`` makes; None
    when a precondition fails (the general path runs)."""
    if a.__class__ is not Tensor or b.__class__ is not Tensor:
        return None
    if a._ag is not None or b._ag is not None:
        return None
    t = _mk.outer(a, b)  # (the steps below in one compiled call, up to _mk.LIMIT products)
    if t is not None:
        return t
    d = a._dtype
    if b._dtype is not d or (d is not float32 and d is not float64):
        return None
    sa, sb = a._layout.shape, b._layout.shape
    if len(sa) != 1 or len(sb) != 1 or not sa[0] or not sb[0]:
        return None
    x = flat_run(a, _cinfo[sa])
    y = flat_run(b, _cinfo[sb]) if x is not None else None
    if y is None:
        return None
    res = kron_native(x, y, sa[0], 1, 1, sb[0])
    return None if res is None else adopted(res, _cinfo[(sa[0], sb[0])][2], d)


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "matmul mm bmm dot outer")
