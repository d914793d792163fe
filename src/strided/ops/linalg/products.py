"""Vector and tensor products of ``strided.linalg`` and the face: ``linalg.cross`` (and torch's
older ``cross`` / ``Tensor.cross``, whose default dim is the first of size 3), ``linalg.vecdot``
and ``tensordot`` (PyTorch 2.13); and the named products PyTorch defines through matmul and dot:
``mv(A, x)`` (``A @ x`` for a matrix and a vector), ``inner(a, b)`` (contracts the last dims of
both; ``a * b`` when one is 0-d), ``vdot(a, b)`` (``dot(a.conj(), b)``), each checking its
operands as PyTorch does (its error texts first), their gradients the rules of the ops they run.

``tensordot`` and ``vecdot`` are compositions of recorded ops (permute, reshape, matmul; a
product and a sum), so their gradients are those ops' own; ``cross`` has PyTorch's rule
(LinalgCrossBackward0: ``other x g`` and ``g x input``).

>>> strided.linalg.cross(strided.tensor([1.0, 0.0, 0.0]), strided.tensor([0.0, 1.0, 0.0])).tolist()
[0.0, 0.0, 1.0]
>>> strided.mv(strided.tensor([[1.0, 2.0], [3.0, 4.0]]), strided.tensor([1.0, 1.0])).tolist()
[3.0, 7.0]
>>> strided.inner(strided.tensor([[1, 2], [3, 4]]), strided.tensor([1, 10])).tolist()
[21, 43]
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ... import layout as L
from ...callsite import user_site
from ...dispatch import OPEN, adopted
from ...dtypes import float32, float64
from ...errors import StridedRuntimeError, StridedTypeError, join_lines
from ...grad_mode import SUBCLASSES
from ...gradients import in_pytorch_convention, seal
from ...kernels import native, npcore
from ...kernels.blocked import copy_into
from ...kernels.fpstate import quiet_call, quiet_retry, quietly
from ...kernels.matmul import matmul_new
from ...kernels.native import kernel_run
from ...messages import broadcast_mismatch
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from ...writes import resize_
from .._support import support
from .._support.along import one_dim
from .._support.memo import Memo
from .._support.operands import _cinfo, _not_implemented, flat_run
from .._support.out import check_out, warn_resized, write_out
from .._support.promotion import TORCH_NAMES
from .._support.reduce_args import shape_text
from ..registry import backward, method
from . import matkernel as _mk
from . import matmul as _matmul  # (its dot at call time: matmul imports this module first)
from ._batched import floating_or_complex

__all__ = ["cross", "inner", "kron", "linalg_cross", "linalg_vecdot", "mv", "tensordot", "vander", "vdot"]


def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1, out: Any = None) -> Tensor:  # noqa: A002
    """The cross product of the 3-vectors along ``dim`` of ``input`` and ``other`` (same number of
    dims, broadcast); any dtype, the two the same. ``out=`` takes the result with PyTorch's out
    rules (resized where empty, an overlapping one refused).

    >>> strided.linalg.cross(strided.tensor([0.0, 1.0, 0.0]), strided.tensor([0.0, 0.0, 1.0])).tolist()
    [1.0, 0.0, 0.0]
    """
    if out is not None:
        return write_out(out, linalg_cross(input, other, dim=dim), "linalg.cross", (input, other),
                         same_dtype="matmul", no_overlap=True)
    fast = _fast_cross(input, other, dim)
    if fast is not None:
        return fast
    op = "linalg.cross"
    tensor_arg(input, op)
    tensor_arg(other, op, "other", 2)
    if input.ndim != other.ndim:
        raise StridedRuntimeError(join_lines(
            f"{op}: inputs must have the same number of dimensions.",
            f"input has shape {shape_text(input.shape)}, other {shape_text(other.shape)}",
            "fix: .unsqueeze(0) the one with fewer dims"))
    if input._dtype is not other._dtype:
        raise StridedRuntimeError(join_lines(
            f"expected scalar type {TORCH_NAMES[input._dtype]} but found {TORCH_NAMES[other._dtype]}",
            f"input is {input._dtype.name}, other {other._dtype.name}: cross does not promote",
            f"fix: other.to(strided.{input._dtype.name})"))
    shape = L.broadcast_pair(input._layout.shape, other._layout.shape)
    if shape.__class__ is not tuple:
        raise broadcast_mismatch(input._layout.shape, other._layout.shape, shape)
    d = one_dim(input, dim, op)
    sa, sb = input._layout.shape[d], other._layout.shape[d]
    if sa != 3 or sb != 3:
        raise StridedRuntimeError(join_lines(
            f"{op}: inputs dimension {dim} must have length 3. Got {sa} and {sb}",
            f"input has shape {shape_text(input.shape)}, other {shape_text(other.shape)}: dim {d} holds the vectors",
            "fix: name the dim of size 3 with dim="))
    if input._dtype.numpy.kind == "b":  # (PyTorch's kernel has no bool loop, even for empty inputs)
        raise _not_implemented("cross", input._dtype, (input, other), "fix: input.to(strided.int64) (and other)")
    support.check("cross", input._dtype, (input, other))  # (nor a uint16/32/64 one)
    a, b = input._np(), other._np()
    if a.shape != shape:
        a = np.broadcast_to(a, shape)  # type: ignore[arg-type]
    if b.shape != shape:
        b = np.broadcast_to(b, shape)  # type: ignore[arg-type]
    c = _cross3(a, b, d) if a.size else np.zeros(shape, a.dtype)  # type: ignore[arg-type]
    return adopted(c.reshape(-1), _cinfo[shape][2], input._dtype)  # (c: fresh, row-major)


def _fast_cross(a: Any, b: Any, dim: Any) -> Tensor | None:
    """linalg_cross's small-op fast path: two row-major float32/float64 tensors of one dtype and
    one shape (no broadcasting), an int ``dim`` in range naming a dim of size 3: the compiled
    ``cross3`` on their flat runs, the kernel the general path's :func:`_cross3_native` calls
    on the same elements, into the fresh row-major result it makes; None when a precondition
    fails or the compiled kernels are off (the general path runs, with its checks and errors)."""
    if a.__class__ is not Tensor or b.__class__ is not Tensor or dim.__class__ is not int:
        return None
    d = a._dtype
    if b._dtype is not d or (d is not float32 and d is not float64):
        return None
    shape = a._layout.shape
    if b._layout.shape != shape or not -len(shape) <= dim < len(shape) or shape[dim] != 3:
        return None
    info = _cinfo[shape]
    if not info[1]:  # (no elements: the general path's empty result)
        return None
    x = flat_run(a, info)
    y = flat_run(b, info) if x is not None else None
    k = native.special() if y is not None else None
    if k is None:
        return None
    out = np.empty(info[1], x.dtype)
    # (cross3's flat form reads the runs as (outer, 3, inner) blocks, inner a row-major shape's
    # stride of dim, no size 0: the elements after it; its False: memory at an odd address, which
    # the general path reads from an aligned copy)
    if not k.cross3(x, y, out, info[0][dim]):
        return None
    return adopted(out, info[2], d)


# along the cross product's dim: a's components [a1 a2 a0 | a2 a0 a1] against b's [b2 b0 b1 | b1 b2 b0]
_CROSS_A = np.array([1, 2, 0, 2, 0, 1])
_CROSS_B = np.array([2, 0, 1, 1, 2, 0])


def _cross3(a: np.ndarray, b: np.ndarray, d: int) -> np.ndarray:
    """The cross product along ``d`` of same-shape, same-dtype numeric ``a`` and ``b`` (size 3 along
    ``d``) as a fresh row-major array, bit for bit PyTorch's: for float32/float64 its CPU kernel's
    ``fma(a1, b2, -(a2*b1))`` per component (:func:`_fused_halves`), for other dtypes
    ``np.cross(a, b, axis=d)``'s bits (PyTorch's there): NumPy's own products and differences
    (``c0 = a1*b2 - a2*b1``, ``c1 = a2*b0 - a0*b2``, ``c2 = a0*b1 - a1*b0``), all three components
    at once: one gather of each operand along ``d`` (``[a1 a2 a0 a2 a0 a1]``, ``[b2 b0 b1 b1 b2 b0]``),
    one product of the six, one difference of its halves (four NumPy calls instead of np.cross's
    axis handling and nine ufuncs of a third each)."""
    if a.dtype == b.dtype and (a.dtype == np.float32 or a.dtype == np.float64):
        c = _cross3_native(a, b, d)
        if c is not None:
            return c
    head = (slice(None),) * d
    fused = _fused_halves if a.dtype == np.float32 or a.dtype == np.float64 else _halves_difference
    c = quietly(fused, a[(*head, _CROSS_A)], b[(*head, _CROSS_B)], head)
    # (the halves' strides are in row-major order, so NumPy's "K" order gives a row-major c;
    # size-1 dims leave it free to choose others)
    return c if c.flags.c_contiguous else np.ascontiguousarray(c)


def _cross3_native(a: np.ndarray, b: np.ndarray, d: int) -> np.ndarray | None:
    """:func:`_cross3` of float32/float64 ``a`` and ``b`` by the compiled ``cross3`` (the same
    fmas as :func:`_fused_halves`, in one pass without the gathers); None where the compiled
    kernels are off (STRIDED_NATIVE=0, :func:`strided.kernels.native.disabled`) or not built."""
    k = native.special()
    if k is None:
        return None
    shape = a.shape
    inner = 1
    for s in shape[d + 1:]:
        inner *= s
    if inner == 0:  # (no elements: the NumPy path's empty result)
        return None
    out = np.empty(shape, a.dtype)
    block = (-1, 3, inner)
    # (the operands as (outer, 3, inner) views where their dims before and after d merge, as a
    # transpose's do: the kernel reads any strides; else NumPy's reshape copies them first)
    # (memory at an odd address: read from an aligned copy in its own dim order, which the kernel takes)
    a, b = (v if v.flags.aligned else v.copy(order="K") for v in (a, b))
    if not k.cross3(_merged(a, d, block), _merged(b, d, block), out.reshape(block)):
        return None  # (never: out is new)
    return out


def _merged(a: np.ndarray, d: int, block: tuple[int, int, int]) -> np.ndarray:
    """``a`` (size 3 along ``d``, no size-0 dim) as the (outer, 3, inner) array ``block``: a
    view where the dims before ``d`` merge into one and those after it into another (a
    row-major array, a transpose, a broadcast), else a row-major copy."""
    try:
        return a.reshape(block, copy=False)
    except ValueError:
        return np.ascontiguousarray(a).reshape(block)


def _fused_halves(x: np.ndarray, y: np.ndarray, head: tuple) -> np.ndarray:
    """float32/float64 ``x`` and ``y``: ``fma(x1, y1, -(x2 * y2))`` of their first (1) and last (2)
    three components along the dim after ``head`` -- PyTorch's cross kernel, whose
    ``a1*b2 - a2*b1`` the compiler fuses: the first product exact, the second rounded, one final
    rounding (np.cross rounds both products: 1 ulp off in about a quarter of float32 elements)."""
    first, last = (*head, slice(0, 3)), (*head, slice(3, 6))
    minus = np.negative(np.multiply(x[last], y[last]))
    from ...kernels.fused import fma, fma32  # (float64: the compiled fma64, exact, or its NumPy fallback)

    return (fma if x.dtype == np.float64 else fma32)(x[first], y[first], minus)


def _halves_difference(x: np.ndarray, y: np.ndarray, head: tuple) -> np.ndarray:
    """``x * y``'s first three components along the dim after ``head`` minus its last three."""
    products = np.multiply(x, y)
    return np.subtract(products[(*head, slice(0, 3))], products[(*head, slice(3, 6))])


@backward("cross", "linalg_cross", operands="two")
def _cross_backward(out: Tensor, input: Tensor, other: Tensor, dim: Any = None) -> Any:  # noqa: A002
    """LinalgCrossBackward0: ``other.conj() x g`` for the input, ``g x input.conj()`` for the
    other (summed down to each one's shape by the engine where they broadcast), derivatives.yaml's
    formulas in PyTorch's convention for complex gradients (conjugated around, the same values
    with other signs of zero)."""
    d = out._layout.shape.index(3) if dim is None else dim % out.ndim

    def grads(g: Tensor) -> tuple:
        return (linalg_cross(other.conj().expand(g.shape), g, dim=d),
                linalg_cross(g, input.conj().expand(g.shape), dim=d))

    return "LinalgCrossBackward0", (input, other), in_pytorch_convention(grads), (input, other)


@method("cross")
def cross(input: Tensor, other: Tensor, dim: int | None = None, *, out: Any = None) -> Tensor:  # noqa: A002
    """``strided.cross`` / ``Tensor.cross``: :func:`linalg_cross`, but ``dim=None`` (deprecated in
    PyTorch, with its warning) takes the first dim of size 3 of the broadcast shape.

    >>> strided.cross(strided.eye(3), strided.eye(3).roll(1, 0), dim=1)[0].tolist()
    [0.0, -1.0, 0.0]
    """
    if dim is not None and out is None:  # (the fast path first: it takes only two plain tensors and an int dim)
        fast = _fast_cross(input, other, dim)
        if fast is not None:
            return fast
    tensor_arg(input, "cross")
    tensor_arg(other, "cross", "other", 2)
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=user_site()[1])
        shape = input._layout.shape
        if other._layout.shape != shape:
            shape = L.broadcast_pair(shape, other._layout.shape)
        if shape.__class__ is tuple and 3 in shape:  # type: ignore[operator]
            dim = shape.index(3)  # type: ignore[union-attr]
        elif shape.__class__ is tuple:
            raise StridedRuntimeError(join_lines(
                "no dimension of size 3 in input",
                f"input has shape {shape_text(input.shape)}, other {shape_text(other.shape)}",
                "fix: name the dim of size 3 with dim="))
        else:
            dim = -1
    if out is not None:
        return write_out(out, cross(input, other, dim), "cross", (input, other), same_dtype="matmul",
                         no_overlap=True)
    fast = _fast_cross(input, other, dim)  # (the dim found: the entry of linalg_cross and its checks skipped)
    return fast if fast is not None else linalg_cross(input, other, dim=dim)


def linalg_vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out: Any = None) -> Tensor:
    """The dot product along ``dim`` of ``x`` and ``y`` (broadcast): ``(x.conj() * y).sum(dim)``.
    Floating or complex tensors of one dtype only, as in PyTorch (integers and bools are refused;
    the Array API's ``vecdot`` takes them).

    >>> strided.linalg.vecdot(strided.tensor([1.0, 2.0]), strided.tensor([3.0, 4.0])).item()
    11.0
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, linalg_vecdot(x, y, dim=dim),
                         "linalg.vecdot", (x, y), "linalg.vecdot: Expected out of dtype{r} but found {o}")
    if x.__class__ is Tensor and y.__class__ is Tensor and x._dtype is y._dtype and (
            x._dtype is float32 or x._dtype is float64):
        return (x * y).sum(dim)  # (the checks below all pass: a sixth of a small vecdot)
    op = "linalg.vecdot"
    tensor_arg(x, op, "x")
    tensor_arg(y, op, "y", 2)
    floating_or_complex(x, op, "x")  # (PyTorch checks x's kind first, then the two dtypes)
    if x._dtype is not y._dtype:
        raise StridedRuntimeError(join_lines(
            f"{op}: Expected x and y to have the same dtype, but found x of type {TORCH_NAMES[x._dtype]} and y of "
            f"type {TORCH_NAMES[y._dtype]} instead",
            f"x is {x._dtype.name}, y {y._dtype.name}", f"fix: y.to(strided.{x._dtype.name})"))
    return ((x.conj() if x._dtype.is_complex else x) * y).sum(dim)


def _dims_list(dims: Any, a: Tensor, b: Tensor) -> tuple[list[int], list[int]]:
    op = "tensordot"
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, bool):
        raise StridedTypeError(join_lines("tensordot expects dims to be an int or a pair of lists",
                                          f"got dims={dims!r}"))
    if isinstance(dims, (int, np.integer)):
        k = int(dims)
        if k < 0:
            raise StridedRuntimeError(join_lines(
                f"tensordot expects dims >= 0, but got dims={k}",
                "dims is the number of trailing dims of a contracted with leading dims of b",
                "fix: dims=1 for a matrix product"))
        if k > a.ndim or k > b.ndim:
            raise StridedRuntimeError(join_lines(
                f"tensordot expects dims < ndim_a or ndim_b, but got dims={k}",
                f"a has shape {shape_text(a.shape)}, b {shape_text(b.shape)}", "fix: a smaller dims"))
        return list(range(-k, 0)), list(range(k))
    if not isinstance(dims, (list, tuple)) or len(dims) != 2:
        raise StridedRuntimeError(join_lines(f"{op}: dims must be an int or a pair of lists, got {dims!r}",
                                             "e.g. dims=([1], [0])"))
    da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(da) != len(db):
        raise StridedRuntimeError(join_lines(
            "both dimension lists should have same length",
            f"dims={dims!r} pairs {len(da)} dims of a with {len(db)} of b", "fix: pair each dim of a with one of b"))
    return da, db


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Any = None) -> Tensor:
    """The sum of products over the dims ``dims`` pairs (an int k: a's last k with b's first k;
    a pair of lists: those dims), as PyTorch computes it: a permuted and reshaped to (free,
    contracted), b to (contracted, free), one matrix product, reshaped to a's free dims then b's.

    >>> strided.tensordot(strided.ones(2, 3), strided.ones(3, 4), dims=1).shape
    (2, 4)
    """
    if out is None and dims.__class__ is int and dims == 1 and not OPEN:
        fast = _fast_tensordot(a, b)
        if fast is not None:
            return fast
    tensor_arg(a, "tensordot", "a")
    tensor_arg(b, "tensordot", "b", 2)
    da, db = _dims_list(dims, a, b)
    if a._dtype is not b._dtype:
        raise StridedRuntimeError(join_lines(
            "both inputs should have same dtype",
            f"a is {a._dtype.name}, b {b._dtype.name}", f"fix: b.to(strided.{a._dtype.name})"))
    sa, sb = a._layout.shape, b._layout.shape
    ca = [one_dim(a, d, "tensordot") for d in da]
    cb = [one_dim(b, d, "tensordot") for d in db]
    for i, (x, y) in enumerate(zip(ca, cb, strict=True)):
        if sa[x] != sb[y]:
            raise StridedRuntimeError(join_lines(
                f"contracted dimensions need to match, but first has size {sa[x]} in dim {da[i]} and second has size "
                f"{sb[y]} in dim {db[i]}",
                f"a has shape {shape_text(sa)}, b {shape_text(sb)}", "fix: pair dims of equal sizes"))
    fa = [d for d in range(len(sa)) if d not in ca]
    fb = [d for d in range(len(sb)) if d not in cb]
    k = 1
    for d in ca:
        k *= sa[d]
    # (dims as tuples: () for a 0-d operand or a full contraction, which varargs cannot spell; the
    # free sizes spelt out: -1 is ambiguous when the contraction is empty, k == 0)
    pa = a.permute(tuple(fa + ca)).reshape(math.prod(sa[d] for d in fa), k)
    pb = b.permute(tuple(cb + fb)).reshape(k, math.prod(sb[d] for d in fb))
    res = pa.mm(pb).reshape(tuple(sa[d] for d in fa) + tuple(sb[d] for d in fb))  # (a tuple: () for a full contraction)
    if out is not None:
        return _tensordot_out(out, res)
    return res


def _fast_tensordot(a: Any, b: Any) -> Tensor | None:
    """``tensordot(a, b, dims=1)`` of two plain 2-D float tensors outside autograd (and out of a
    watched call): the general path's steps without their cost -- its permute and reshape of a
    matrix are views of the operand's own layout, so its product is the compiled ``mm`` of the
    operands themselves, then the same reshape (the result a view of the product, as there).
    None (nothing done) where the compiled product declines or the call is another."""
    if a.__class__ is not Tensor or b.__class__ is not Tensor or a._ag is not None or b._ag is not None:
        return None
    sa, sb = a._layout.shape, b._layout.shape
    if len(sa) != 2 or len(sb) != 2:
        return None
    t = _mk.mm(a, b)  # (None unless they multiply: one float dtype, sa[1] == sb[0])
    return None if t is None else t.reshape((sa[0], sb[1]))


def _tensordot_out(out: Any, res: Tensor) -> Tensor:
    """PyTorch's ``tensordot_out``: the result computed first, then ``out`` of the result's dtype
    exactly (RuntimeError, nothing written, where it is not), resized with its warning where it
    had elements, and ``copy_`` of the result into it (a differentiable copy, as PyTorch's)."""
    out = check_out(out, "tensordot")
    if out._dtype is not res._dtype:
        raise StridedRuntimeError(join_lines(
            f"tensordot: Expected the output tensor to have dtype {TORCH_NAMES[res._dtype]}, but got an output "
            f"tensor with dtype {TORCH_NAMES[out._dtype]}",
            f"the product is {res._dtype.name}; out= is {out._dtype.name} and tensordot does not convert",
            f"fix: out=strided.empty(0, dtype=strided.{res._dtype.name}), or drop out= and convert the result"))
    if out._layout.shape != res._layout.shape and L.product(out._layout.shape):
        warn_resized(out._layout.shape, res._layout.shape)
    resize_(out, res._layout.shape)  # (ATen's resize_output: not counted in _version; the copy_ is)
    out.copy_(res)
    return out


_MV_FAST = frozenset({float32, float64})


def fast_mv(a: Any, v: Any) -> Tensor | None:
    """The small-op fast path of a matrix times a vector (``mv``, and ``matmul`` of a 2-D and a
    1-D operand): for a row-major 2-D (n, k) float32/float64 tensor and a contiguous (k,) tensor
    of its dtype, n and k not 0, NumPy's fresh ``np.matmul`` of their flat runs -- the very arrays
    (values and layout) ``matmul``'s ``_product`` hands the same call, so the bits are its -- as a fresh
    (n,) tensor; None when a precondition fails (the caller takes its general path, with its
    checks and errors). First the compiled entry (:func:`strided.ops.linalg.matkernel.mv`: the
    gemv call this ``np.matmul`` makes, on the same memory) where it takes the operands."""
    t = _mk.mv(a, v)
    if t is not None:
        return t
    if (a.__class__ is not Tensor and a.__class__ not in SUBCLASSES) or (
            v.__class__ is not Tensor and v.__class__ not in SUBCLASSES):
        return None
    d = a._dtype
    if v._dtype is not d or d not in _MV_FAST:
        return None
    sa, sv = a._layout.shape, v._layout.shape
    if len(sa) != 2 or len(sv) != 1 or sa[1] != sv[0] or not (sa[0] and sa[1]):
        return None
    x = flat_run(a, _cinfo[sa])
    if x is None:
        return None
    y = flat_run(v, _cinfo[sv])
    if y is None:
        return None
    x = x.reshape(sa)
    try:  # (fpstate.quietly, inlined)
        res = quiet_call(np.matmul, x, y)
    except RuntimeError as e:
        res = quiet_retry(e, np.matmul, x, y)
    except MemoryError:
        return None  # the general path raises PyTorch's out-of-memory error
    return adopted(res, _cinfo[sa[:1]][2], d)


@method("mv")
def mv(input: Tensor, vec: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    """Matrix (n, m) times vector (m,): an (n,) tensor (``torch.mv``), PyTorch's checks first.

    >>> strided.tensor([[1, 0], [0, 2]]).mv(strided.tensor([5, 6])).tolist()
    [5, 12]
    """
    # (mv has no rule of its own: an operand in autograd takes a.matmul(v), whose entry records it)
    if out is None and getattr(input, "_ag", 0) is None and getattr(vec, "_ag", 0) is None:
        fast = fast_mv(input, vec)
        if fast is not None:
            return fast
    a = tensor_arg(input, "mv")
    v = tensor_arg(vec, "mv", "vec", 2)
    if a.ndim != 2 or v.ndim != 1:
        raise StridedRuntimeError(join_lines(
            f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}",
            f"input has shape {tuple(a.shape)}, vec {tuple(v.shape)}: mv takes a matrix and a vector; "
            "fix: strided.matmul for other shapes"))
    return a.matmul(v) if out is None else a.matmul(v, out=out)


@method("inner")
def inner(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    """The sums of products over the last dims of both (``torch.inner``): shape
    ``input.shape[:-1] + other.shape[:-1]``; ``input * other`` when either is 0-d.

    >>> strided.inner(strided.ones(2, 3), strided.ones(4, 3)).shape
    (2, 4)
    """
    if out is None:
        fast = _fast_inner(input, other)
        if fast is not None:
            return fast
    a = tensor_arg(input, "inner")
    b = tensor_arg(other, "inner", "other", 2)
    if a.ndim == 0 or b.ndim == 0:
        result = a * b
    else:
        if a.shape[-1] != b.shape[-1]:
            raise StridedRuntimeError(join_lines(
                f"inner() the last dimension must match on both input tensors but got shapes "
                f"{list(a.shape)} and {list(b.shape)}",
                f"inner contracts the last dims: {a.shape[-1]} and {b.shape[-1]} differ"))
        if a._dtype is not b._dtype:
            raise StridedRuntimeError(join_lines(
                "both inputs should have same dtype",
                f"input is {a._dtype.name}, other {b._dtype.name}; fix: convert one, e.g. other.to(input.dtype)"))
        if a.ndim == 1 and b.ndim == 1 and a._dtype.kind == "b":  # (PyTorch's inner of two vectors is dot)
            raise _not_implemented("dot", a._dtype, (a, b), "fix: input.to(strided.int64) (and other)")
        k = a.shape[-1]
        # PyTorch's tensordot over the last dims: a matrix product of the two flattened to (-1, k)
        # (the row counts spelled out: -1 is ambiguous for an empty contraction, k == 0, where
        # PyTorch's result is zeros of the outer shape)
        rows, cols = math.prod(a.shape[:-1]), math.prod(b.shape[:-1])
        result = a.reshape(rows, k).matmul(b.reshape(cols, k).t()).reshape((*a.shape[:-1], *b.shape[:-1]))
        if out is not None:  # (PyTorch's tensordot_out: its dtype check and copy)
            return _tensordot_out(out, result)
    if out is not None:  # (a 0-d operand: PyTorch's mul_out, which casts)
        return write_out(out, result, "inner", (a, b))
    return result


def _fast_inner(x: Any, y: Any) -> Tensor | None:
    """inner's small-op fast path: two row-major float32/float64 tensors of one dtype and at
    least one dim, non-empty, of one last size, outside autograd and listeners: the general
    path's matrix product -- the same :func:`matmul_new` call ``matmul`` makes on the row-major
    (-1, k) view and the transposed view of the other -- adopted in the result's shape, without
    the reshape, transpose and matmul tensors; None when a precondition fails. Two 2-D row-major
    tensors, every size at least 2: the compiled :func:`strided.ops.linalg.matkernel.linear` first
    (the same gemm call, MKL's where the MKL route takes the product, without the NumPy set-up)."""
    d = getattr(x, "_dtype", None)
    if x.__class__ is not Tensor or y.__class__ is not Tensor or y._dtype is not d or OPEN or (
            d is not float32 and d is not float64) or x._ag is not None or y._ag is not None:
        return None
    sa, sb = x._layout.shape, y._layout.shape
    if not sa or not sb or sa[-1] != sb[-1]:
        return None
    if len(sa) == 2 and len(sb) == 2 and (t := _mk.linear(x, y)) is not None:
        return t  # (x @ y.T's gemm from C on the same memory, as matmul_new's np.matmul makes it: its bits)
    ia, ib = _cinfo[sa], _cinfo[sb]
    k = sa[-1]
    if not (ia[1] and ib[1]):
        return None
    u = flat_run(x, ia)
    v = flat_run(y, ib) if u is not None else None
    if v is None:
        return None
    rows, cols = ia[1] // k, ib[1] // k
    flat = matmul_new(u.reshape(rows, k), v.reshape(cols, k).T, (rows, cols))
    return None if flat is None else adopted(flat, _cinfo[sa[:-1] + sb[:-1]][2], d)


@method("vdot")
def vdot(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    """``sum(conj(input) * other)`` of two 1-D tensors of one length and dtype (``torch.vdot``):
    ``dot`` of the first one conjugated, with dot's checks.

    >>> strided.vdot(strided.tensor([1j, 2]), strided.tensor([1j, 3])).item()
    (7+0j)
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, vdot(input, other),
                         "vdot", (input, other), "result dtype {o} does not match input dtype {r}")
    if not OPEN and (input.__class__ is not Tensor or input._ag is None) and (
            other.__class__ is not Tensor or other._ag is None) and (t := fast_dot(input, other)) is not None:
        return t  # (real vectors: dot's own fast path, which its forward below would take)
    a = tensor_arg(input, "vdot")
    b = tensor_arg(other, "vdot", "other", 2)
    if not OPEN and a._ag is None and other.__class__ is Tensor and b._ag is None and not a._dtype.is_complex:
        return _matmul.dot(a, b)  # (dot's forward, which its entry calls when nothing is recorded)
    return (a.conj() if a._dtype.is_complex else a).dot(b)


_np_dot = npcore.dot  # (np.dot's C function: its dispatch was a fifth of a small dot)
_np_empty = np.empty


def fast_dot(a: Any, b: Any) -> Tensor | None:
    """``dot``'s small-op fast path: two plain row-major 1-D float32/float64 tensors of one dtype
    and length (not 0) give their 0-d dot product, or None (the general path runs). ``np.dot`` of
    the two flat runs calls the BLAS dot ``np.matmul`` calls for a vector pair (NumPy's
    ``FLOAT_dot``/``DOUBLE_dot``): the same bits (quiet: both warn of an overflow), without the
    ufunc's call or a reshape of its scalar (a third of a 1 µs op). The caller has checked that
    nobody listens or reports the op itself. First the compiled entry
    (:func:`strided.ops.linalg.matkernel.dot`: the same BLAS call and double sum, in one C call)."""
    t = _mk.dot(a, b)
    if t is not None:
        return t
    if a.__class__ is not Tensor or b.__class__ is not Tensor:
        return None
    d = a._dtype
    la, lb = a._layout, b._layout
    shape = la.shape
    if (d is not float32 and d is not float64) or b._dtype is not d or len(shape) != 1 or lb.shape != shape:
        return None
    n = shape[0]
    if not n or la.strides != (1,) or lb.strides != (1,):
        return None
    x, y = a._storage.array, b._storage.array
    if la.offset or len(x) != n:
        x = x[la.offset : la.offset + n]
        if len(x) != n:  # (unpickled past its storage: the general path's error)
            return None
    if lb.offset or len(y) != n:
        y = y[lb.offset : lb.offset + n]
        if len(y) != n:
            return None
    flat = _np_empty(1, d.numpy)
    try:  # (fpstate.quietly, inlined: np.dot warns of an overflow, as matmul does)
        flat[0] = quiet_call(_np_dot, x, y)
    except RuntimeError as e:
        flat[0] = quiet_retry(e, _np_dot, x, y)
    return adopted(flat, _cinfo[()][2], d)


@method("kron")
def kron(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    """The Kronecker product (``torch.kron``): the one with fewer dims gets leading size-1 dims,
    then ``result[i*q + k] = input[i] * other[k]`` in every dim (shape ``a_d * b_d``), the two
    promoted; a fresh contiguous tensor. A composition of a broadcast ``mul`` and reshapes, so its
    gradient is theirs. (PyTorch 2.13 refuses some non-contiguous inputs with a view error; strided
    reads them.)

    >>> strided.kron(strided.tensor([[1, 2]]), strided.tensor([[1], [10]])).tolist()
    [[1, 2], [10, 20]]
    """
    if out is None and input.__class__ is Tensor and other.__class__ is Tensor:
        fast = _fast_kron(input, other)
        if fast is not None:
            return fast
    a = tensor_arg(input, "kron")
    b = tensor_arg(other, "kron", "other", 2)
    n = max(a.ndim, b.ndim)
    sa = (1,) * (n - a.ndim) + tuple(a.shape)
    sb = (1,) * (n - b.ndim) + tuple(b.shape)
    # input's dims at even positions, other's at odd ones: the product interleaves them
    pa = [s for d in sa for s in (d, 1)]
    pb = [s for d in sb for s in (1, d)]
    result = (a.reshape(pa) * b.reshape(pb)).reshape([x * y for x, y in zip(sa, sb)])
    if out is not None:
        from .._support.out import write_out

        # (PyTorch's kron_out resizes out= row-major, though the fresh product keeps mul's layout)
        return write_out(out, result, "kron", (a, b), resize_row_major=True, through_temporary=True)
    return result


def _kron_plan(shapes: tuple[tuple[int, ...], tuple[int, ...]]) -> tuple:
    """For two shapes of one length: the interleaved operand shapes (input's dims at even
    positions, other's at odd ones), the product's shape and the result's row-major layout."""
    sa, sb = shapes
    pa = tuple(s for d in sa for s in (d, 1))
    pb = tuple(s for d in sb for s in (1, d))
    shape = tuple(x * y for x, y in zip(sa, sb, strict=True))
    return pa, pb, tuple(s for pair in zip(sa, sb, strict=True) for s in pair), _cinfo[shape][2]


_kron_plans = Memo(_kron_plan)


def _fast_kron(a: Tensor, b: Tensor) -> Tensor | None:
    """kron's small-op fast path: two row-major float32/float64 tensors of one dtype and one
    number of dims (at least 1), no size 0, neither recorded by autograd: one NumPy multiply of
    the interleaved views (the general path's broadcast ``mul``, whose values are IEEE products,
    operands in the same order) into the fresh row-major result the general path's reshape
    views; None when a precondition fails (the general path runs)."""
    d = a._dtype
    if b._dtype is not d or (d is not float32 and d is not float64) or a._ag is not None or b._ag is not None:
        return None
    sa, sb = a._layout.shape, b._layout.shape
    if len(sa) != len(sb) or not sa:
        return None
    ia, ib = _cinfo[sa], _cinfo[sb]
    if not (ia[1] and ib[1]):
        return None
    x = flat_run(a, ia)
    y = flat_run(b, ib) if x is not None else None
    if y is None:
        return None
    pa, pb, full, layout = _kron_plans[(sa, sb)]
    if len(sa) <= 2:  # (matrices and vectors: the compiled loop, where it takes them)
        m, n = sa if len(sa) == 2 else (1, sa[0])
        p, q = sb if len(sb) == 2 else (1, sb[0])
        res = kron_native(x, y, m, n, p, q)
        if res is not None:
            return adopted(res, layout, d)
    res = np.empty(full, x.dtype)
    quietly(np.multiply, x.reshape(pa), y.reshape(pb), out=res)
    return adopted(res.reshape(-1), layout, d)


def kron_native(x: np.ndarray, y: np.ndarray, m: int, n: int, p: int, q: int) -> np.ndarray | None:
    """The flat row-major (m*p, n*q) Kronecker product of the flat row-major (m, n) ``x`` and
    (p, q) ``y`` (one float32 or float64 dtype, no size 0) by the compiled ``kron2``: the same
    IEEE products as the broadcast ``np.multiply`` it replaces, without NumPy's per-row iterator
    cost (outer of two 256-vectors: 29 us there). None where it does not run, so the caller's
    NumPy path does: the kernels off or not built, a non-native byte order, a NaN in either input
    (a NaN product's payload could depend on the operand order the compiler chose)."""
    k = native.special()
    if k is None or not (x.dtype.isnative and y.dtype.isnative) or x.dtype != y.dtype:
        return None
    res = np.empty(m * n * p * q, x.dtype)
    return res if k.kron2(kernel_run(x), kernel_run(y), res, m, n, p, q) else None


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:  # noqa: N803
    """The Vandermonde matrix of the 1-D ``x`` (``torch.vander``): column j is ``x ** (N-1-j)``
    (``x ** j`` with ``increasing``), ``N`` columns (default ``len(x)``); integer and bool inputs
    give int64, as PyTorch's running product promotes them. A composition (running product of
    ``x`` repeated, a column of ones), so its gradient is cumprod's.

    >>> strided.vander(strided.tensor([1, 2, 3]), 3).tolist()
    [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
    """
    if (N is not None and N.__class__ is not int) or increasing.__class__ is not bool:
        _vander_args(N, increasing)
    fast = _fast_vander(x, N, increasing)
    if fast is not None:
        return fast
    t = tensor_arg(x, "vander", "x")
    if t.ndim != 1:
        raise StridedRuntimeError(join_lines("x must be a one-dimensional tensor.",
                                             f"vander: x has shape {shape_text(t.shape)}", "fix: x.flatten()"))
    n = t.shape[0] if N is None else int(N)
    if n < 0:
        raise StridedRuntimeError(join_lines("N must be non-negative.", f"vander: N={n} columns"))
    from ...dtypes import int64
    from .._support.promotion import promote_types

    dtype = promote_types(t._dtype, int64)
    ones = t.new_ones((t.shape[0], min(n, 1)), dtype=dtype)
    if n > 1:
        powers = t.to(dtype).unsqueeze(1).expand(t.shape[0], n - 1).cumprod(1)
        result = _cat((ones, powers))
    else:
        result = ones.contiguous()
    return result if increasing else result.flip(1)


def _vander_args(N: Any, increasing: Any) -> None:  # noqa: N803
    """PyTorch's argument parser: ``N`` an int (or None, or what has ``__index__``; a bool or
    float is no int, where ``int(3.5)`` would give a silently narrower matrix), ``increasing`` a
    Python bool (not even NumPy's)."""
    from ...args import type_name

    if N is not None and (isinstance(N, (bool, np.bool_)) or not hasattr(type(N), "__index__")):
        raise StridedTypeError(join_lines(
            f"vander(): argument 'N' (position 2) must be int, not {type_name(N)}",
            f"vander: N={N!r} columns", "fix: an int N"))
    if increasing.__class__ is not bool:
        raise StridedTypeError(join_lines(
            f"vander(): argument 'increasing' (position 3) must be bool, not {type_name(increasing)}",
            f"vander: increasing={increasing!r}", "fix: increasing=True or False"))


def _fast_vander(x: Any, N: Any, increasing: Any) -> Tensor | None:  # noqa: N803
    """vander's small-op fast path: a row-major, non-empty 1-D float32/float64 ``x`` outside
    autograd and listeners, and ``N`` (an int) of at least 2 columns: the general path's running product (the
    same :func:`scan_values` call on the same broadcast view, so the same bits) and its column of
    ones written straight into one fresh row-major result, in the order ``flip`` would leave
    them, instead of ones, expand, cumprod, cat and flip; None when a precondition fails."""
    d = getattr(x, "_dtype", None)
    if x.__class__ is not Tensor or (d is not float32 and d is not float64) or x._ag is not None or OPEN:
        return None  # (a watched call takes the general path: its listeners see the steps inside)
    shape = x._layout.shape
    n = shape[0] if len(shape) == 1 and N is None else N
    if len(shape) != 1 or not shape[0] or n.__class__ is not int or n < 2:
        return None
    v = flat_run(x, _cinfo[shape])
    if v is None:
        return None
    from ..reductions.scans import compiled_scan, scan_values

    rows = shape[0]
    out = np.empty((rows, n), v.dtype)
    k = native.special()
    if k is not None and k.vander_rows(kernel_run(v), out, n, increasing):  # (the steps below in one pass)
        return adopted(out.reshape(-1), _cinfo[(rows, n)][2], d)
    # the compiled scan down the columns of x repeated (each line's products those of the row's
    # scan, in its order: the same bits), its lines interleaved, then one tiled transposing copy
    # (256 elements: ~340 -> ~100 us); NumPy's scan of each row where it declines (no kernel, NaN)
    repeated = np.empty((n - 1, rows), v.dtype)
    repeated[...] = v
    run = compiled_scan(repeated, 0, True)
    if run is not None:
        powers = run.T
    else:
        powers = quietly(scan_values, np.multiply, np.broadcast_to(v[:, None], (rows, n - 1)), 1, d)
    if increasing:
        out[:, 0] = 1
        copy_into(out[:, 1:], powers)
    else:
        out[:, -1] = 1
        copy_into(out[:, :-1], powers[:, ::-1])
    return adopted(out.reshape(-1), _cinfo[(rows, n)][2], d)


def _cat(parts: tuple) -> Tensor:
    from ..shape.joining import cat

    return cat(list(parts), 1)


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "cross linalg_cross linalg_vecdot tensordot mv inner vdot kron vander")
