"""A product plus a scaled input: ``addmm``, ``addmv``, ``addr``, ``baddbmm``, ``addbmm``
(PyTorch 2.13), each ``beta * input + alpha * product`` with the in-place ``<name>_`` and ``out=``.

Contracts (checked against PyTorch, whose texts open the errors):

* ``addmm(input, mat1, mat2)``: ``mm(mat1, mat2)``; ``addmv(input, mat, vec)``: ``mv``;
  ``baddbmm(input, batch1, batch2)``: ``bmm``; ``addbmm(input, batch1, batch2)``: ``bmm`` summed
  over the batch; ``addr(input, vec1, vec2)``: ``outer``. ``input`` broadcasts to the product's
  shape (``expand``'s rules and errors); the in-place form needs ``self`` of that shape exactly.
* dtypes: the four BLAS ops take one dtype for all three tensors (bool refused: no kernel);
  ``addr`` promotes them as ``outer`` and ``+`` do, bool included (``or`` of ``and``s).
* ``beta == 0`` ignores ``input`` (NaN and inf in it do not reach the result) and, for the BLAS
  ops, ``alpha == 0`` ignores the product, as BLAS does. For integer dtypes the BLAS ops
  truncate a float ``beta``/``alpha`` toward zero (PyTorch's ``Scalar.to<int64_t>()``), while
  ``addr`` refuses it; a complex scalar on a real dtype is refused. A ``beta``/``alpha`` the
  scalar type cannot hold is PyTorch's error (float32's range for float32/float16/bfloat16 BLAS
  ops, an int beyond int64/uint64), never an inf. An empty contraction never reads ``alpha``.
* float16/bfloat16 (addmm, addmv, baddbmm): ``alpha * acc + beta * input`` in float32, rounded
  once, as PyTorch's opmath (addmm and baddbmm bit for bit; addmv closer, not exact).
* PyTorch's own loops where it has them: baddbmm below 400 multiply-adds a matrix is its running
  sum over the contraction (not BLAS's); addbmm is one addmm per batch, rounded each time.
* gradients: PyTorch's derivatives.yaml (``maybe_multiply(grad, beta)`` for the input, summed to
  its shape; the product's rule times ``alpha`` for the factors; complex ones conjugated as
  PyTorch's), with recording ops, so they differentiate again.

>>> strided.addmm(strided.ones(2, 2), strided.eye(2), strided.full((2, 2), 3.0), beta=0.5, alpha=2).tolist()
[[6.5, 6.5], [6.5, 6.5]]
>>> strided.addr(strided.zeros(2, 2), strided.tensor([1.0, 2.0]), strided.tensor([3.0, 4.0])).tolist()
[[3.0, 4.0], [6.0, 8.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import layout as L
from ...dispatch import adopted
from ...dispatch import result as new_result
from ...dtypes import C10_NAME, REDUCED_FLOATS, TORCH_NAME, DType, float32, float64
from ...errors import StridedIndexError, StridedRuntimeError, join_lines
from ...gradients import seal
from ...kernels import blas_route, native, npcore
from ...kernels.blocked import copy_into
from ...kernels.fpstate import quiet_call, quiet_retry, quietly
from ...kernels.fused import fma as _fma
from ...kernels.mkl_path import mkl_path
from ...kernels.torch_loops import GRAIN_SIZE, parallel_chunks, scalar_loop_mask, torch_threads
from ...layout.order import elementwise_output_strides
from ...opdef import Kind
from ...tensor import Tensor, tensor_arg
from .._support.operands import _cinfo, _not_implemented, flat_run
from .._support.out import warn_resized, write_out
from .._support.promotion import result_type
from .._support.reduce_args import shape_text
from ..registry import op
from . import _batched as LA
from . import matkernel as _mk
from .matmul import _check_mm, _product, _refuse_bool, fast_bmm, fast_product

_FAST = frozenset({float32, float64})

__all__ = ["addbmm", "addmm", "addmv", "addr", "baddbmm"]


def _scalar(value: Any, name: str, dtype: DType, op_name: str) -> Any:
    """``beta``/``alpha`` as the kernel reads it for ``dtype`` (see the module doc)."""
    if isinstance(value, Tensor):
        value = value.item()
    _check_range(value, name, dtype, op_name)
    if op_name == "addr" and isinstance(value, bool) and dtype.kind != "b":
        raise StridedRuntimeError(join_lines(
            f"Boolean {name} only supported for Boolean results.",
            f"addr: {name}={value!r} with {dtype.name} tensors (a bool is no number to addr)",
            f"fix: {name}={int(value)}"))
    if isinstance(value, complex) and not dtype.is_complex:
        if op_name == "addr" and not dtype.is_floating_point:
            raise _integral_scalar(name, value, dtype)
        c_name = "float" if dtype.name == "float16" else C10_NAME[dtype.name]
        raise StridedRuntimeError(join_lines(
            f"value cannot be converted to type {c_name} without overflow",
            f"{op_name}: {name}={value!r} is complex but the tensors are {dtype.name}",
            f"fix: a real {name}, or complex tensors"))
    if not (dtype.is_floating_point or dtype.is_complex) and isinstance(value, float):
        if op_name == "addr":
            raise _integral_scalar(name, value, dtype)
        return int(value)  # (PyTorch's Scalar.to<int64_t>(): toward zero)
    if dtype.kind == "u" and value.__class__ is int and value < 0:  # (two's complement, as PyTorch's cast)
        return value + (1 << 8 * dtype.itemsize)
    if dtype.kind == "b":
        return bool(value)
    return value


# the largest finite value PyTorch converts beta/alpha to without its overflow error: the BLAS
# ops read float16/bfloat16 scalars as float (their opmath type), addr as the dtype itself
_FLOAT_MAX = {"float32": float(np.finfo(np.float32).max), "float16": 65504.0, "bfloat16": 3.3895313892515355e38}


def _check_range(value: Any, name: str, dtype: DType, op_name: str) -> None:
    """PyTorch's errors for a ``beta``/``alpha`` it cannot hold: a Python int outside
    [-2**63, 2**64) (its argument parser's OverflowError), a finite float beyond the scalar
    type's range (float32's for the BLAS ops' float16/bfloat16), a number outside a signed
    integer dtype's range (NaN and inf included): never an inf or a wrapped value."""
    if isinstance(value, int) and not -2**63 <= value < 2**64:
        raise OverflowError(join_lines(
            "int too big to convert" if value > 0 else "can't convert negative int to unsigned",
            f"{op_name}: {name}={value} is outside int64/uint64", f"fix: a float, e.g. {name}=float({name})"))
    if isinstance(value, bool):
        return
    name = dtype.name
    if name == "complex64":  # (c10::complex<float>: each part within float32's range)
        limit = _FLOAT_MAX["float32"]
        parts = (value.real, value.imag) if isinstance(value, complex) else (value,)
        if all(abs(x) <= limit or x != x or abs(x) == float("inf") for x in parts):
            return
        kind = name
    elif isinstance(value, complex):
        return  # (a complex scalar on real tensors: _scalar's own error)
    elif name in _FLOAT_MAX:
        kind = name if op_name == "addr" else "float32"
        limit = _FLOAT_MAX[kind]
        if abs(value) <= limit or value != value or abs(value) == float("inf"):
            return
    elif dtype.kind in "iu" and not (op_name == "addr" and isinstance(value, float)):  # (addr refuses floats first)
        info = np.iinfo(dtype.numpy)
        # (c10's overflows(): an int may wrap into an unsigned type from as far below 0 as its max)
        low = -info.max if dtype.kind == "u" and isinstance(value, int) else info.min
        if value == value and low <= value <= info.max:
            return
        kind = name
    else:
        return
    raise StridedRuntimeError(join_lines(
        f"value cannot be converted to type {C10_NAME[kind]} without overflow",
        f"{op_name}: {name}={value!r} is beyond {kind}'s range", f"fix: a smaller {name}, or a wider dtype"))


def _integral_scalar(name: str, value: Any, dtype: DType) -> StridedRuntimeError:
    return StridedRuntimeError(join_lines(
        f"For integral input tensors, argument {name} must not be a floating point number.",
        f"addr: {name}={value!r} with {dtype.name} tensors", f"fix: an integer {name}, or float tensors"))


def _same_dtypes(input: Tensor, m1: Tensor, m2: Tensor, op_name: str) -> None:  # noqa: A002
    """addmm's order: self against mat2, then mat1 against mat2."""
    for first, second, names in ((input, m2, "self and mat2"), (m1, m2, "mat1 and mat2")):
        if first._dtype is not second._dtype:
            raise StridedRuntimeError(join_lines(
                f"{names} must have the same dtype, but got {TORCH_NAME[first._dtype.name]} and "
                f"{TORCH_NAME[second._dtype.name]}",
                f"{op_name} does not promote: input {input._dtype.name}, factors {m1._dtype.name} and "
                f"{m2._dtype.name}", f"fix: convert them to one dtype, e.g. .to(strided.{m2._dtype.name})"))


def _ndim(t: Tensor, name: str, want: int, op_name: str) -> None:
    if t.ndim != want:
        raise StridedRuntimeError(join_lines(
            f"{name} must be a {'matrix' if want == 2 else '3D tensor'}"
            + (f", got {t.ndim}-D tensor" if want == 2 else ""),
            f"{op_name}: {name} has shape {shape_text(t.shape)}"))


# The fewest elements of a non-row-major input that _combine copies in tiles before scaling it
_BLOCKED_SCALE = 1 << 16


def _combine(op_name: str, input: Tensor, product: Any, shape: tuple[int, ...], dtype: DType,  # noqa: A002
             beta: Any, alpha: Any, out: Any, inputs: tuple, same_dtype: str = "matmul",
             strides: tuple[int, ...] | None = None, *, empty: bool = False, kernel: bool = False,
             wide: Any = None, rest: Any = None) -> Tensor:
    """``beta * input + alpha * product`` into a fresh tensor, contiguous or of ``strides``
    (``product``: a zero-argument function giving the product's array, called only when
    ``alpha`` reads it). ``empty``: the contraction (or addbmm's batch) has size 0, so PyTorch
    never reads ``alpha`` (``beta * input``, or zeros: an inf or NaN alpha gives no NaN).
    ``kernel``: PyTorch's own loop computes it (small baddbmm), which multiplies the product by
    ``alpha`` even at 0 (an inf in it gives NaN), where BLAS skips the product. ``wide``: for
    float16/bfloat16, a zero-argument function giving the product in float32, unrounded: PyTorch
    computes ``alpha * acc + beta * input`` in float32 (its opmath) and rounds once to the dtype,
    where a product rounded to float16 first, then scaled and summed in float16, rounds three
    times (a third to a half of the elements 1 ulp or more off). ``rest``: addbmm's further
    batches, ``rest(opmath)`` giving their products (float32 ones for ``opmath``): PyTorch's
    addbmm is one addmm per batch, ``result = alpha * P_b + result`` each rounded in turn."""
    base = _expanded(op_name, input, shape)
    beta, alpha = _scalar(beta, "beta", dtype, op_name), _scalar(alpha, "alpha", dtype, op_name)
    if op_name == "addr":
        if dtype.kind == "u" and dtype.itemsize > 1:
            # (PyTorch's addr kernel has no uint16/32/64 loop; it checks beta and alpha first)
            raise _not_implemented("addr_cpu", dtype, inputs, "fix: convert them to int64 first")
        beta = _addr_beta(beta, dtype.numpy)
    blas = op_name != "addr" and not kernel
    opmath = wide is not None and dtype in REDUCED_FLOATS
    np_dtype = np.dtype(np.float32) if opmath else dtype.numpy  # (the dtype the arithmetic runs in)
    term: Any = None
    # alpha == 0 skips the product as BLAS does (float32/float64, integers), but PyTorch's own
    # float16/bfloat16 kernel multiplies it by 0 (an inf or NaN in it gives NaN)
    reads = not empty and (not (blas and alpha == 0) or dtype in REDUCED_FLOATS)
    if reads:
        p = quietly(wide) if opmath else product()
        # (quiet as the sum below: an overflow to inf is the value, as in PyTorch, not a NumPy warning)
        term = p if alpha == 1 else (p & alpha if dtype.kind == "b" else quietly(_scaled, p, alpha, np_dtype))
    if beta != 0:
        b = base._np().astype(np_dtype, copy=False)
        if dtype.kind == "b":
            term = (b & beta) if term is None else term | (b & beta)
        else:
            with np.errstate(all="ignore"):
                if b.size >= _BLOCKED_SCALE and not b.flags.c_contiguous and b.dtype.kind in "fc":
                    # (a permuted or expanded input: copied row-major in tiles first, then scaled
                    # in place -- the same products, ~1 ms where NumPy's walk of a (4, 512, 512)
                    # batch with element strides (1, 4, 2048) took ~3 ms, and the sum below then
                    # runs on two row-major operands)
                    scaled = np.empty(b.shape, b.dtype)
                    copy_into(scaled, b)
                    np.multiply(scaled, np.asarray(beta, np_dtype), out=scaled)
                else:
                    scaled = b * np.asarray(beta, np_dtype)  # (a fresh array, even for beta == 1)
                # no product: BLAS's C = beta * C exactly (-0.0 stays -0.0; adding a zero would not)
                term = scaled if term is None else term + scaled
    elif term is None:
        term = np.zeros(shape, np_dtype)
    if rest is not None and reads:
        term = quietly(_accumulate, term, rest(opmath), alpha, np_dtype, dtype.numpy if opmath else None)
    if strides is None or strides == L.contiguous_strides(shape):
        # (opmath's one rounding to float16 may overflow to inf: PyTorch's value, quietly)
        result = LA.rowmajor(quietly(np.asarray(term, np_dtype).astype, dtype.numpy, copy=False), dtype)
    else:
        result = new_result(shape, dtype, strides)
        quietly(np.copyto, result._np(), term, casting="unsafe")  # (an assignment's cast)
    if out is not None:
        return write_out(out, result, op_name, inputs, same_dtype=same_dtype)
    return result


def _addr_beta(beta: Any, np_dtype: np.dtype) -> Any:
    """``beta`` as addr's zero test reads it: 0 where it rounds to zero in the dtype. PyTorch's
    addr kernel compares ``beta.to<scalar_t>()`` with zero, so a float32 addr with ``beta=1e-300``
    ignores the input (its NaN and inf, and the signs of the products' zeros survive), as
    ``beta=0`` does. Only a float below float32's (or float16's) smallest subnormal can round to
    zero: the cast is asked only for those."""
    if isinstance(beta, float) and beta != 0 and -1e-7 < beta < 1e-7 and np_dtype.kind in "fcV" and (
            np.asarray(beta, np_dtype) == 0):
        return 0
    return beta


def _scaled(p: np.ndarray, alpha: Any, np_dtype: np.dtype) -> np.ndarray:
    """``p * alpha`` with ``alpha`` cast to ``np_dtype`` (called quietly: float16's cast of 70000 is
    inf, as the product PyTorch rounds, not a NumPy warning)."""
    return np.multiply(p, np.asarray(alpha, np_dtype))


def _accumulate(term: np.ndarray, products: Any, alpha: Any, np_dtype: np.dtype, rounded: Any) -> np.ndarray:
    """addbmm after its first batch: ``term = alpha * P + term`` for each further product ``P``,
    each step rounded (to ``rounded`` first, float16/bfloat16, when the steps run in float32)."""
    scale = None if alpha == 1 else np.asarray(alpha, np_dtype)
    for p in products:
        if rounded is not None:
            term = term.astype(rounded).astype(np_dtype)
        term = (p if scale is None else p * scale) + term
    return term


def _wide_product(a: Tensor, b: Tensor) -> np.ndarray:
    """The matrix product of float16/bfloat16 ``a`` and ``b`` in float32, unrounded (exact
    widening of the operands; PyTorch's opmath accumulation)."""
    return np.matmul(a._np().astype(np.float32), b._np().astype(np.float32))


def _number(value: Any) -> bool:
    """Whether ``beta``/``alpha`` is a plain Python int or float (not a bool, a tensor, complex):
    the scalars the fast paths take, which :func:`_scalar` passes unchanged for float dtypes."""
    return value.__class__ is int or value.__class__ is float


def _plus_input(product: np.ndarray | tuple[np.ndarray, np.ndarray], layout: Any, input: Any,  # noqa: A002
                dtype: DType, beta: Any = 1, alpha: Any = 1) -> Tensor | None:
    """The fast paths' ``beta * input + alpha * product``: ``product`` (a fresh row-major array
    NumPy just computed, of the float ``dtype``; or addr's two vectors, whose outer product and
    the rest the compiled ``outer_scale_add`` makes in one pass for a row-major ``input``, else
    NumPy's outer) scaled and summed in place, as the tensor over
    it; None when ``input`` is not a tensor of ``dtype`` and of the result's shape (the general
    path decides). ``beta``/``alpha``: Python numbers (:func:`_number`); the BLAS callers leave
    ``alpha == 0`` to the general path (its zeros, the product unread).

    The same operations, on the same operands in the same order, as :func:`_combine`:
    ``p * alpha`` (unless 1), then ``+ input * beta`` (``+ input`` for 1, nothing for 0: NaN in
    ``input`` ignored), each rounded once, so the bits are the general path's; no intermediate
    array but ``input * beta``."""
    if input.__class__ is not Tensor or input._dtype is not dtype or input._layout.shape != layout.shape or not (
            -_PLAIN <= beta <= _PLAIN and -_PLAIN <= alpha <= _PLAIN):
        return None  # (a huge or non-finite beta/alpha: the general path's range checks)
    if product.__class__ is tuple:  # (addr's row-major vectors: the outer product is made here)
        fused = _outer_terms_compiled(*product, None if beta == 0 else input._np(), beta, alpha)
        if fused is not None:  # (the compiled pass: the same operations, in the same order)
            return adopted(fused.reshape(-1), layout, dtype)
        product = quietly(np.multiply.outer, *product)
    flat = product if product.ndim == 1 else product.reshape(-1)  # (C-ordered: a view)
    base = None
    if beta != 0:
        # a row-major input's flat run beside the product's (elementwise: the same pairs as the
        # views of one shape, without numpy_view's cost)
        base = flat_run(input, _cinfo[layout.shape])
        if base is None:
            # (another layout of input, a transposed one's: the compiled scale_add, the same
            # operations in the same order, walks a 2-D one in tiles; NumPy's mixed-order add
            # read a transposed (1024, 1024) float32 input at ~5 ms, scale_add ~2 ms)
            fused = adopted(flat, layout, dtype) if product.ndim == 2 else None
            if fused is not None and _mk.scale_add(fused, input, beta, alpha) is not None:
                return fused
            flat, base = product, input._np()
    if alpha == 1 and beta == 1:  # (the common call: one add)
        try:  # (fpstate.quietly, inlined)
            quiet_call(_np_add, flat, base, flat)
        except RuntimeError as e:
            quiet_retry(e, _np_add, flat, base, flat)
    else:
        np_dtype = product.dtype  # (the general path's scalars: np.asarray(alpha, np_dtype))
        # (one quiet call for the two or three ufuncs: _combine's errstate, at a tenth of its cost)
        quietly(_scale_add, flat, None if alpha == 1 else np.asarray(alpha, np_dtype),
                base, None if beta == 0 or beta == 1 else np.asarray(beta, np_dtype))
    return adopted(product.reshape(-1) if flat is product else flat, layout, dtype)


_np_add = np.add
_np_dot = npcore.dot  # (np.dot's C function, without its dispatch)


_PLAIN = 2**63  # (beta/alpha within it: an int PyTorch's parser takes, a float float32 holds)


def _outer_terms_compiled(x: np.ndarray, y: np.ndarray, base: np.ndarray | None, beta: Any,
                          alpha: Any) -> np.ndarray | None:
    """``outer(x, y) * alpha + base * beta`` (a factor 1 or a zero ``beta``'s term skipped: ``base``
    is then None), each operation rounded in the dtype as :func:`_scale_add` and
    :func:`_columns_terms` round it (alpha and beta converted as ``np.asarray(v, dtype)``), by the
    compiled ``outer_scale_add`` in one pass: a fresh row-major array; None where the kernel is not
    built or off, declines the arrays (a non-contiguous ``base``), or met two NaN operands in one
    operation (NumPy's loop decides which survives)."""
    k = native.special()
    if k is None:
        return None
    dt = x.dtype
    product = np.empty((x.shape[0], y.shape[0]), dt)
    if not k.outer_scale_add(x, y, base, None if alpha == 1 else float(np.asarray(alpha, dt)),
                             None if beta == 0 or beta == 1 else float(np.asarray(beta, dt)), product):
        return None
    return product


def _addr_columns(input: Any, vec1: Tensor, vec2: Tensor, shape: tuple[int, int],  # noqa: A002
                  beta: Any, alpha: Any) -> Tensor | None:
    """addr's fast path for a column-major ``input`` (a transposed row-major matrix, strides
    ``(1, m)``) of ``shape`` ``(m, n)``, both dims > 1, and row-major float32/float64 vectors of
    its dtype; None otherwise (the general path decides).

    PyTorch's result keeps the input's memory order, so it is column-major too. The general path
    computes the row-major outer product, adds the column-major ``beta * input`` (NumPy walks the
    two orders against each other) and copies that into the column-major result: three
    cache-hostile passes (1024 x 1024 float32: ~15-20 ms). Here the result's memory is computed
    as its row-major transpose: ``outer(vec2, vec1)`` (``y[j] * x[i]``: IEEE multiplication
    commutes, the same products) times ``alpha``, plus ``input.T * beta``, the same operations
    on the same operands in the same order as :func:`_combine` (see :func:`_plus_input`)."""
    x = _rowmajor(vec1, shape[:1])
    y = _rowmajor(vec2, shape[1:]) if x is not None and vec2._dtype is vec1._dtype else None
    if y is None or input.__class__ is not Tensor or input._dtype is not vec1._dtype \
            or input._layout.shape != shape or input._layout.strides != (1, shape[0]):
        return None
    rows = input._np().T  # (the input's memory as the (n, m) row-major matrix it is)
    if not rows.flags.c_contiguous:
        return None
    if not (-_PLAIN <= beta <= _PLAIN and -_PLAIN <= alpha <= _PLAIN):
        return None  # (a huge or non-finite beta/alpha: the general path's range checks)
    if _nan_in(x) and _nan_in(y):
        return None  # (NaN * NaN: which operand's sign and payload survives is the loop's choice)
    product = _outer_terms_compiled(y, x, None if beta == 0 else rows, beta, alpha)
    if product is None:
        product = quietly(_columns_terms, y, x, rows, beta, alpha)
    if product is None:
        return None
    return adopted(product.reshape(-1), L.Layout._trusted(shape, (1, shape[0]), 0), vec1._dtype)


def _addr_columns_fused(input: Any, vec1: Tensor, vec2: Tensor, shape: tuple[int, ...],  # noqa: A002
                        beta: Any, alpha: Any) -> Tensor | None:
    """addr with an input term for a column-major ``input`` (strides ``(1, m)``, both dims > 1)
    and contiguous float32/float64 vectors of its dtype, by the compiled row-major call on the
    transposed problem; None otherwise (the general path decides).

    PyTorch walks such a result in memory order: rows along dim 0, ``vec1`` contiguous along them
    and ``vec2`` the vector loop's scalar. Its forms, ``fma(alpha*x, y, beta*input)`` and
    ``fma(beta, input, (alpha*x)*y)``, are the row-major call's on ``input.t()`` with ``x' = y``,
    ``y' = alpha*x`` (rounded first, as PyTorch's) and alpha 1 (a product of two operands does not
    depend on their order), its flat range the same memory order: the same pieces."""
    d = vec1._dtype
    if input.__class__ is not Tensor or input._dtype is not d or vec2._dtype is not d or d not in _FAST or (
            len(shape) != 2 or shape[0] < 2 or shape[1] < 2 or input._layout.shape != shape
            or input._layout.strides != (1, shape[0]) or not -_F32_MAX <= alpha <= _F32_MAX):
        return None
    x = _rowmajor(vec1, shape[:1])
    if x is None:
        return None
    ax = quietly(np.multiply, x, d.numpy.type(alpha))  # (a fresh contiguous run)
    t = _mk.addr(input.t(), vec2, adopted(ax, _cinfo[ax.shape][2], d), beta, 1, _addr_chunk(shape))
    return None if t is None else t.t()


_F32_MAX = float(np.finfo(np.float32).max)


def _nan_in(a: np.ndarray) -> bool:
    """Whether ``a`` holds a NaN (np.min propagates one: a single SIMD pass)."""
    return bool(np.isnan(a.min()))


def _columns_terms(y: np.ndarray, x: np.ndarray, rows: np.ndarray, beta: Any, alpha: Any) -> np.ndarray | None:
    """``outer(y, x) * alpha + rows * beta`` (skipping a factor 1 or a zero ``beta``'s term), in
    the operation order of :func:`_combine`; None when both sums' terms hold NaN: x86 keeps one
    operand's NaN (its sign and payload) when both are NaN, and which one depends on NumPy's loop
    (its in-place contiguous loop and the general path's mixed-order loop were measured to differ),
    so only the general path itself gives the general path's bits there. With at most one NaN
    operand an IEEE product or sum is that NaN, whatever the order."""
    np_dtype = rows.dtype
    product = np.multiply.outer(y, x)
    if alpha != 1:
        np.multiply(product, np.asarray(alpha, np_dtype), out=product)
    if beta != 0:
        if _nan_in(rows) and _nan_in(product):
            return None
        np.add(product, rows if beta == 1 else np.multiply(rows, np.asarray(beta, np_dtype)), out=product)
    return product


def _accumulate_into(acc: np.ndarray, products: np.ndarray, alpha: Any) -> None:
    """:func:`_accumulate` in place, for the float32/float64 fast path."""
    scale = None if alpha == 1 else np.asarray(alpha, acc.dtype)
    for p in products:
        np.add(acc, p if scale is None else np.multiply(p, scale), out=acc)


def _scale_add(product: np.ndarray, alpha: np.ndarray | None, base: np.ndarray | None,
               beta: np.ndarray | None) -> None:
    """``product = product * alpha + base * beta`` in place, skipping a None factor (1) or term."""
    if alpha is not None:
        np.multiply(product, alpha, out=product)
    if base is not None:
        np.add(product, base if beta is None else np.multiply(base, beta), out=product)


def _rowmajor(t: Any, shape: tuple[int, ...]) -> np.ndarray | None:
    """A float32/float64 tensor's row-major elements as a NumPy array of ``shape`` (no copy), else None."""
    if t.__class__ is not Tensor or t._dtype not in _FAST or t._layout.shape != shape:
        return None
    flat = flat_run(t, _cinfo[shape])
    return None if flat is None else flat.reshape(shape)


def _expanded(op_name: str, input: Tensor, shape: tuple[int, ...]) -> Tensor:  # noqa: A002
    """``input`` broadcast to the result's ``shape`` (PyTorch's expand, its errors)."""
    if input.ndim > len(shape):
        raise StridedRuntimeError(join_lines(
            f"expand(torch.{TORCH_NAME[input._dtype.name]}Tensor{{{list(input.shape)}}}, size={list(shape)}): the "
            f"number of sizes provided ({len(shape)}) must be greater or equal to the number of dimensions in the "
            f"tensor ({input.ndim})",
            f"{op_name}: the input of shape {shape_text(input.shape)} must broadcast to the result's {shape_text(shape)}",
            "fix: drop the extra dims of the input (.squeeze() or .reshape)"))
    return input.expand(shape) if input._layout.shape != shape else input


def _inplace_shape(op_name: str, self: Tensor, shape: tuple[int, ...]) -> None:
    if self._layout.shape != shape:
        raise StridedRuntimeError(join_lines(
            f"Bad in-place call: input tensor size {list(self._layout.shape)} and output tensor size "
            f"{list(shape)} should match",
            f"{op_name} writes the product's shape {shape_text(shape)} into self, of shape {shape_text(self.shape)}",
            f"fix: the out-of-place form, {op_name.rstrip('_')}(...), broadcasts the input"))


# ---------------------------------------------------------------- the gradients


# The rules are written as the holomorphic derivative (no conj): for a complex result the
# recording conjugates the incoming and outgoing gradients once (autograd.function's
# _conjugate_convention), which gives PyTorch's ``grad.mm(mat2.t().conj()) * conj(alpha)``.


def _times(t: Any, s: Any) -> Any:
    """PyTorch's maybe_multiply: ``t`` itself when ``s`` is 1."""
    if isinstance(s, Tensor):
        s = s.item()
    return t if s == 1 else t * s


def _h(t: Tensor) -> Tensor:
    """The transpose of the last two dims."""
    return t.transpose(-2, -1)


def _rule(node: str, factor_grads: Any) -> Any:
    def rule(out: Tensor, input: Any, a: Tensor, b: Tensor, *, beta: Any = 1, alpha: Any = 1,  # noqa: A002
             **kwargs: Any) -> Any:
        def grads(g: Tensor) -> tuple:
            ga, gb = factor_grads(g, a, b)
            return (_times(g, beta), _times(ga, alpha), _times(gb, alpha))

        return node, (input, a, b), grads, (a, b)

    return rule


# ---------------------------------------------------------------- the ops


def _addmm_pre(self: Tensor, mat1: Any, mat2: Any, **kwargs: Any) -> bool:
    if isinstance(mat1, Tensor) and isinstance(mat2, Tensor) and mat1.ndim == 2 and mat2.ndim == 2:
        _inplace_shape("addmm_", self, (mat1.shape[0], mat2.shape[1]))
    return False


@op("addmm", kind=Kind.COMPUTE, operands="any", inplace="addmm_", inplace_flat=_addmm_pre,
    rule=_rule("AddmmBackward0", lambda g, a, b: (g.mm(_h(b)), _h(a).mm(g))))
def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1,  # noqa: A002
          out: Any = None) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``: (n, k) @ (k, p), ``input`` broadcast to (n, p);
    ``beta=0`` ignores ``input`` (NaN in it included).

    >>> strided.addmm(strided.full((2, 2), float("nan")), strided.eye(2), strided.eye(2), beta=0).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    if out is None and _number(beta) and _number(alpha) and alpha != 0:  # one product, scaled in place
        t = _mkl_addmm(input, mat1, mat2, beta, alpha)  # (the MKL route: PyTorch's one gemm call)
        if t is not None:
            return t
        t = _mk.mm(mat1, mat2)  # (fast_product's compiled entry; its product and the scaling in C)
        if t is not None and _mk.scale_add(t, input, beta, alpha) is not None:
            return t
        fast = fast_product(mat1, mat2) if t is None else (t._storage.array.reshape(t._layout.shape), t._layout)
        if fast is not None:
            t = _plus_input(fast[0], fast[1], input, mat1._dtype, beta, alpha)
            if t is not None:
                return t
    tensor_arg(input, "addmm")
    a = tensor_arg(mat1, "addmm", "mat1", 2)
    b = tensor_arg(mat2, "addmm", "mat2", 3)
    _same_dtypes(input, a, b, "addmm")
    _ndim(a, "mat1", 2, "addmm")
    _ndim(b, "mat2", 2, "addmm")
    _check_mm(a, b, "addmm")
    shape = (a.shape[0], b.shape[1])
    if out is not None and _number(beta) and _number(alpha) and alpha != 0 and (
            t := _mkl_addmm_out(input, a, b, beta, alpha, out, shape)) is not None:
        # (PyTorch's addmm_out is its addmm: the input copied into the result, one gemm with beta;
        # _combine's product-then-sum rounds twice, other bits where MKL starts its sums from C (AVX2))
        return write_out(out, t, "addmm", (input, a, b))
    return _combine("addmm", input, lambda: _product(a, b, shape)._np(), shape, a._dtype, beta, alpha, out, (input, a, b),
                    empty=not a.shape[1], wide=lambda: _wide_product(a, b))


def _mkl_addmm_out(input: Tensor, a: Tensor, b: Tensor, beta: Any, alpha: Any, out: Any,  # noqa: A002
                   shape: tuple[int, int]) -> Tensor | None:
    """addmm's result for ``out=`` on the MKL route, in the orientation PyTorch's addmm_impl_cpu_
    computes into ``out``: row-major where ``out`` is (its strides (>= p, 1)), else column-major
    (``out`` column-major as it is, or PyTorch's Fortran-contiguous temporary), as ``(b.mT @ a.mT).mT``
    with the input transposed -- the same gemm call. None where the route does not apply."""
    n, p = shape
    if out.__class__ is Tensor and out._layout.shape == shape and n > 1 and p > 1:
        s0, s1 = out._layout.strides
        if not (s1 == 1 and s0 >= p):
            t = _mkl_addmm(input.expand(n, p).mT, b.mT, a.mT, beta, alpha)
            return None if t is None else t.mT
    return _mkl_addmm(input, a, b, beta, alpha)


def _gemm_scalar(x: Any) -> bool:
    """Whether PyTorch hands ``x`` to MKL's gemm as it is: a number within :data:`_PLAIN`, or a float
    inf or NaN. MKL's kernels apply a non-finite alpha in their own order: on an AVX2 CPU they scale
    an operand first, so a sum of infinities of both signs gives NaN where the product scaled
    afterwards gives inf; only the same call gives PyTorch's bits."""
    return -_PLAIN <= x <= _PLAIN or (x.__class__ is float and (x != x or abs(x) == _INF))


_INF = float("inf")


def _mkl_addmm(input: Any, mat1: Any, mat2: Any, beta: Any, alpha: Any) -> Tensor | None:  # noqa: A002
    """addmm on the optional MKL route (:func:`strided.kernels.blas_route.addmm`: the input
    copied into the result, then MKL's gemm with ``alpha`` and ``beta``, as PyTorch's
    ``addmm_impl_cpu_``) for plain tensors of one float32/float64 dtype, 2-D operands and plain
    numbers within :data:`_PLAIN`; None where it does not apply (the other paths decide)."""
    if mat1.__class__ is not Tensor or mat2.__class__ is not Tensor or input.__class__ is not Tensor:
        return None
    s1, s2 = mat1._layout.shape, mat2._layout.shape  # (first the cheap test that most small calls fail)
    if (len(s1) != 2 or len(s2) != 2 or s1[0] < blas_route.MIN_ROWS or s2[1] < blas_route.MIN_COLS
            or s1[1] != s2[0] or not s1[1]):
        return None
    if _mk.ready() and (t := blas_route.addmm_tensors(input, mat1, mat2, beta, alpha)) is not None:
        return t  # (the compiled call: the common layouts, in one step)
    d = mat1._dtype
    if ((d is not float32 and d is not float64) or mat2._dtype is not d or input._dtype is not d
            or not (_gemm_scalar(beta) and _gemm_scalar(alpha))):
        return None
    res = blas_route.addmm(input._np(), mat1._np(), mat2._np(), alpha, beta)
    return None if res is None else adopted(res.reshape(-1), _cinfo[res.shape][2], d)


def _addmv_pre(self: Tensor, mat: Any, vec: Any, **kwargs: Any) -> bool:
    if isinstance(mat, Tensor) and mat.ndim == 2:
        _inplace_shape("addmv_", self, (mat.shape[0],))
    return False


@op("addmv", kind=Kind.COMPUTE, operands="any", inplace="addmv_", inplace_flat=_addmv_pre,
    rule=_rule("AddmvBackward0", lambda g, a, b: (g.outer(b), _h(a).mv(g))))
def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1,  # noqa: A002
          out: Any = None) -> Tensor:
    """``beta * input + alpha * (mat @ vec)``: (n, m) @ (m,), ``input`` broadcast to (n,).

    >>> strided.addmv(strided.ones(2), strided.eye(2), strided.tensor([2.0, 3.0]), alpha=2).tolist()
    [5.0, 7.0]
    """
    if out is None and _number(beta) and _number(alpha) and alpha != 0 and mat.__class__ is Tensor and (
            vec.__class__ is Tensor):
        # (first the compiled entries: the gemv np.dot makes below, and _plus_input's ops in C)
        t = _mk.mv(mat, vec)
        if t is not None and (zero := _mk.scale_add(t, input, beta, alpha)) is not None:
            # (scale_add refuses an element whose two terms are both NaN: no NaN word to choose)
            return _addmv_zero_signs(t, input, mat, vec, beta, alpha) if zero else t
        shape = mat._layout.shape
        d = mat._dtype
        # (an empty product: the general path's zeros; _rowmajor of both, inlined: a 1-D run is
        # the vector itself)
        if len(shape) == 2 and shape[0] and shape[1] and (d is float32 or d is float64) and vec._dtype is d and (
                vec._layout.shape == shape[1:]) and (x := flat_run(mat, _cinfo[shape])) is not None and (
                v := flat_run(vec, _cinfo[shape[1:]])) is not None:
            # (np.dot of a row-major matrix and a vector: the BLAS gemv np.matmul calls, as
            # _product does, on the same views (the same bits), without the ufunc's cost; quiet,
            # as it warns of an overflow as matmul does)
            try:
                p = quiet_call(_np_dot, x.reshape(shape), v)
            except RuntimeError as e:
                p = quiet_retry(e, _np_dot, x.reshape(shape), v)
            t = _plus_input(p, _cinfo[shape[:1]][2], input, d, beta, alpha)
            if t is not None:
                return _addmv_nan_words(_addmv_zero_signs(t, input, mat, vec, beta, alpha), input, mat, vec, beta,
                                        alpha)
    tensor_arg(input, "addmv")
    a = tensor_arg(mat, "addmv", "mat", 2)
    v = tensor_arg(vec, "addmv", "vec", 3)
    if a.ndim != 2 or v.ndim != 1 or input.ndim > 1:
        raise StridedRuntimeError(join_lines(
            f"vector + matrix @ vector expected, got {input.ndim}, {a.ndim}, {v.ndim}",
            f"addmv: input {shape_text(input.shape)}, mat {shape_text(a.shape)}, vec {shape_text(v.shape)}",
            "fix: strided.matmul for other shapes"))
    n, m = a.shape
    if v.shape[0] != m or (input.ndim == 1 and input.shape[0] not in (1, n)):
        raise StridedRuntimeError(join_lines(
            f"size mismatch, got input ({input.shape[0] if input.ndim else 1}), mat ({n}x{m}), vec ({v.shape[0]})",
            "addmv needs mat (n, m), vec (m,) and input (n,) or broadcastable to it"))
    if not (input._dtype is a._dtype is v._dtype):
        names = ", ".join(TORCH_NAME[t._dtype.name] for t in (input, a)) + f", and {TORCH_NAME[v._dtype.name]}"
        raise StridedRuntimeError(join_lines(
            f"addmv input tensors must have the same dtype, but got {names}",
            "addmv does not promote", f"fix: convert them to one dtype, e.g. .to(strided.{a._dtype.name})"))
    _refuse_bool(a._dtype, "addmv_impl_cpu", "addmv", empty=n == 0 or m == 0)
    if (n == 0 or m == 0) and beta != 0 and input._layout.shape != (n,):
        # PyTorch's empty-matrix shortcut: mul_out(result, input, beta) resizes the (n,) result to
        # the input's own shape (warning when it had elements): addmv(ones(1), ones(17, 0), ones(0))
        # is of shape (1,)
        shape = input._layout.shape
        result = _combine("addmv", input, None, shape, a._dtype, beta, alpha, None, (input, a, v), empty=True)
        if n and out is None:
            warn_resized((n,), shape)
        return result if out is None else write_out(out, result, "addmv", (input, a, v), same_dtype="matmul")
    result = _combine("addmv", input, lambda: _product(a, v, (n,))._np(), (n,), a._dtype, beta, alpha, None,
                      (input, a, v), empty=not a.shape[1], wide=lambda: _wide_product(a, v))
    result = _addmv_nan_words(_addmv_zero_signs(result, input, a, v, beta, alpha), input, a, v, beta, alpha)
    return result if out is None else write_out(out, result, "addmv", (input, a, v), same_dtype="matmul")


# The longest dot MKL's gemv sums from its first product (so -0.0 where every product is), per
# path (:mod:`strided.kernels.mkl_path`) and element size: (rows in whole blocks of 4, the other
# rows). Longer dots start from +0.0 accumulators (+0.0 though every product is -0.0). "t": a gemv
# 't' row; "n1": a gemv 'n' of one row, which MKL's Intel paths sum as a dot (the generic path
# adds its terms one by one, as for more rows). Measured against torch 2.13 per path (all zero
# operands of random signs, 1..40 rows, 1..33 columns; MKL_ENABLE_INSTRUCTIONS / MKL_CBWR set).
_DOT_SIGN_SPAN = {
    "generic": {"t": {4: (4, 11), 8: (2, 9)}, "n1": None},
    "sse42": {"t": {4: (4, 11), 8: (0, 0)}, "n1": {4: (4, 11), 8: (1, 1)}},
    "avx2": {"t": {4: (0, 0), 8: (0, 0)}, "n1": {4: (1, 1), 8: (1, 1)}},
    "avx512": {"t": {4: (1, 1), 8: (0, 0)}, "n1": {4: (1, 1), 8: (1, 1)}},
    "cbwr_sse42": {"t": {4: (4, 8), 8: (0, 0)}, "n1": {4: (4, 8), 8: (1, 1)}},
    "cbwr_compat": {"t": {4: (4, 8), 8: (2, 8)}, "n1": {4: (4, 8), 8: (2, 8)}},
}


def _addmv_zero_signs(result: Tensor, input: Tensor, mat: Tensor, vec: Tensor, beta: Any,  # noqa: A002
                      alpha: Any) -> Tensor:
    """``result`` (a fresh float32 / float64 addmv) with the signs PyTorch's BLAS gemv gives its
    zeros. It starts from ``beta * input`` (+0.0 for beta 0) and adds the products; an IEEE sum
    is -0.0 only where every term is -0.0, so a zero result is -0.0 where the start is and every
    term is: for a column-major ``mat`` (gemv 'n') of more than one row (or any, on MKL's generic
    path) the terms are ``(alpha * vec[j]) * mat[i, j]``, else one, ``alpha * dot(mat[i], vec)``,
    whose dot is -0.0 where every product is and MKL's path sums it from its first product
    (:data:`_DOT_SIGN_SPAN`; on :data:`_SCALED_LANES` paths alpha scales two lane sums). NumPy's dot scaled by alpha and added to the input gives other signs
    (``beta=0, alpha=-1``: -0.0 where PyTorch's is 0.0). alpha 0: BLAS returns the start."""
    d = result._dtype
    if (d is not float32 and d is not float64) or alpha.__class__ not in (int, float) or (
            beta.__class__ not in (int, float)):
        return result
    flat = result._storage.array  # (fresh: its storage holds its elements alone)
    if _count_nonzero(flat) == flat.size:
        return result
    res = result._np()
    n, m = mat._layout.shape
    dt = d.numpy
    with np.errstate(all="ignore"):
        start = np.broadcast_to(np.asarray(dt.type(beta) * input._np(), dt), (n,)) if beta != 0 else np.zeros(n, dt)
        neg = (start == 0) & np.signbit(start)
        if alpha != 0 and m:
            neg &= _addmv_terms_negative(mat, vec._np(), alpha, dt)
    zero = res == 0
    res[zero] = np.where(neg, dt.type(-0.0), dt.type(0.0))[zero]
    return result


def _addmv_terms_negative(mat: Tensor, x: np.ndarray, alpha: Any, dt: np.dtype) -> np.ndarray:
    """Per row of ``mat``: whether every term gemv adds to the start is -0.0 (see
    :func:`_addmv_zero_signs`), on the MKL path this machine's PyTorch takes."""
    n, m = mat._layout.shape
    a = mat._np()
    s0, s1 = mat._layout.strides
    spans = _DOT_SIGN_SPAN[mkl_path()]
    gemv_n = s0 == 1 and (m == 1 or s1 >= max(1, n))
    if gemv_n and (n > 1 or spans["n1"] is None):  # (one term per column)
        terms = (dt.type(alpha) * x)[None, :] * a
        return np.all((terms == 0) & np.signbit(terms), axis=1)
    prods = x[None, :] * a  # (one term per row: alpha times the row's dot)
    full, rest = spans["n1" if gemv_n else "t"][dt.itemsize]
    span = np.where(np.arange(n) < n // 4 * 4, full, rest)
    dot = np.where(np.all((prods == 0) & np.signbit(prods), axis=1) & (m <= span), dt.type(-0.0), dt.type(0.0))
    term = dt.type(alpha) * dot
    negative = (term == 0) & np.signbit(term)
    if not gemv_n and dt.itemsize == 8 and mkl_path() in _SCALED_LANES:
        # (alpha * even-column sum + alpha * odd-column sum: -0.0 + -0.0 where both sums are zero,
        # x + -x = +0.0 where they cancel; measured: -0.0 exactly for the pairs of one parity)
        with np.errstate(all="ignore"):
            negative &= (prods[:, 0::2].sum(axis=1) == 0) & (prods[:, 1::2].sum(axis=1) == 0)
    return negative


def _addmv_nan_words(result: Tensor, input: Tensor, mat: Tensor, vec: Tensor, beta: Any,  # noqa: A002
                     alpha: Any) -> Tensor:
    """``result`` (a fresh float32 / float64 addmv) with PyTorch's NaN words where the input term
    ``beta * input`` is NaN (the paths above add it to the product as NumPy's add does: the
    input's NaN or, where the product is NaN too, either, by the loop NumPy takes).

    PyTorch's BLAS gemv (measured: torch 2.13, MKL's generic path, on an AMD EPYC): a gemv 't'
    (:func:`_addmv_terms_negative`'s orientation) adds ``alpha * dot`` to the start, the
    product first: its NaN where it is NaN. A gemv 'n' adds the columns in blocks (of 8, then
    at most one each of 4, 2 and 1): a block's first column as ``term + y`` (the term's NaN),
    the others fused into ``y`` (y's NaN kept); so the word is the term of the last block-first
    column whose term is NaN, else the input's. Other MKL paths: not measured, left as they are
    (MKL_CBWR's two branches gave the same 'n' blocks). Only the rows NaN in both are read
    again; the compiled scale_add refuses those elements, so its results never come here."""
    flat = result._storage.array  # (fresh: its storage holds its elements alone)
    d = result._dtype
    if (d is not float32 and d is not float64) or not flat.size or (s := quietly(_np_dot, flat, flat)) == s:
        return result  # (no NaN: a sum of squares is NaN only where an element is)
    if alpha.__class__ not in (int, float) or beta.__class__ not in (int, float) or beta == 0 or alpha == 0 or (
            mkl_path() != "generic"):
        return result
    n, m = mat._layout.shape
    if not m:
        return result
    res = result._np()
    dt = d.numpy
    with np.errstate(all="ignore"):
        start = np.broadcast_to(np.asarray(dt.type(beta) * input._np(), dt), (n,))
        rows = np.flatnonzero(np.isnan(res) & np.isnan(start))
        if not rows.size:
            return result
        a = mat._np()[rows]
        x = vec._np()
        s0, s1 = mat._layout.strides
        if s0 == 1 and (m == 1 or s1 >= max(1, n)):  # (gemv 'n')
            firsts = _gemv_n_block_firsts(m)
            terms = (dt.type(alpha) * x)[firsts][None, :] * a[:, firsts]
            nan = np.isnan(terms)
            has = nan.any(axis=1)
            last = len(firsts) - 1 - np.argmax(nan[:, ::-1], axis=1)
            res[rows] = np.where(has, terms[np.arange(rows.size), last], start[rows])
        else:  # (gemv 't': alpha * dot, as the paths above scale the product)
            q = _np_dot(np.ascontiguousarray(a), np.ascontiguousarray(x)) * np.asarray(alpha, dt)
            res[rows] = np.where(np.isnan(q), q, start[rows])
    return result


def _gemv_n_block_firsts(m: int) -> np.ndarray:
    """The first columns of MKL's generic-path gemv 'n' column blocks over ``m`` columns: blocks of
    8, then at most one each of 4, 2 and 1 (measured: 1..40 columns, float32 and float64)."""
    firsts = list(range(0, m // 8 * 8, 8))
    c = m // 8 * 8
    for w in (4, 2, 1):
        if m - c >= w:
            firsts.append(c)
            c += w
    return np.array(firsts, np.intp)




# MKL paths whose float64 gemv 't' sums each row in two lanes (even and odd columns, each from
# +0.0) and scales each lane by alpha before adding the two (Intel's SSE4.2 kernels)
_SCALED_LANES = frozenset(("sse42", "cbwr_sse42"))


_count_nonzero = np.count_nonzero


def _addr_pre(self: Tensor, vec1: Any, vec2: Any, **kwargs: Any) -> bool:
    if isinstance(vec1, Tensor) and isinstance(vec2, Tensor) and vec1.ndim == 1 and vec2.ndim == 1:
        if self._layout.shape != (vec1.shape[0], vec2.shape[0]):
            raise StridedRuntimeError(join_lines(
                f"size mismatch, input: {list(self.shape)}, v1: {list(vec1.shape)}, v2: {list(vec2.shape)}",
                f"addr_ writes the outer product's shape ({vec1.shape[0]}, {vec2.shape[0]}) into self",
                "fix: the out-of-place addr(...), which broadcasts the input"))
    return False


def _addr_grads(g: Tensor, a: Tensor, b: Tensor) -> tuple:
    return (g.mv(b.to(g.dtype)).to(a.dtype), g.t().mv(a.to(g.dtype)).to(b.dtype))


@op("addr", kind=Kind.COMPUTE, operands="any", inplace="addr_", inplace_flat=_addr_pre,
    rule=_rule("AddrBackward0", _addr_grads))
def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1,  # noqa: A002
         out: Any = None) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)``, the three promoted (bool: ``or`` of ``and``s).

    >>> strided.addr(strided.ones(2, 2, dtype=strided.int64), strided.tensor([1, 2]), strided.tensor([1, 0]), beta=2).tolist()
    [[3, 2], [4, 2]]
    """
    vec1, alpha = _scaled_first(input, vec1, vec2, beta, alpha)
    if out is None and _number(beta) and _number(alpha) and vec1.__class__ is Tensor and vec2.__class__ is Tensor:
        t = _mk.addr(input, vec1, vec2, beta, alpha)  # (the paths below in one C call)
        if t is not None:
            return t
        shape = vec1._layout.shape + vec2._layout.shape
        if len(shape) == 2 and shape[0] * shape[1] >= GRAIN_SIZE and (
                t := _mk.addr(input, vec1, vec2, beta, alpha, _addr_chunk(shape))) is not None:
            return t  # (above the grain size with an input term: the call again, told the chunks)
        beta = _addr_beta(beta, vec1._dtype.numpy)  # (a beta that rounds to 0 in the dtype: 0, as PyTorch)
        if beta != 0 and (t := _addr_columns_fused(input, vec1, vec2, shape, beta, alpha)) is not None:
            return t
        # (with an input term PyTorch's per-position fma forms: the C call above or _addr_fused on
        # the general path; these two paths take beta 0, the product alone, the same in every loop)
        square = beta == 0 and len(shape) == 2 and shape[0] > 1 and shape[1] > 1
        # (a row-major input of two dims of at least 2 fixes the result's memory order: row-major)
        if square and _rowmajor(input, shape) is not None:
            x = _rowmajor(vec1, shape[:1])
            y = _rowmajor(vec2, shape[1:]) if x is not None and vec2._dtype is vec1._dtype else None
            if y is not None:
                # (addr is no BLAS op: alpha == 0 multiplies, inf * 0 is NaN, as in the general path)
                t = _plus_input((x, y), _cinfo[shape][2], input, vec1._dtype, beta, alpha)
                if t is not None:
                    return t
        elif square:
            t = _addr_columns(input, vec1, vec2, shape, beta, alpha)
            if t is not None:
                return t
    tensor_arg(input, "addr")
    a = tensor_arg(vec1, "addr", "vec1", 2)
    b = tensor_arg(vec2, "addr", "vec2", 3)
    for name, t in (("vec1", a), ("vec2", b)):
        if t.ndim != 1:
            raise StridedRuntimeError(join_lines(
                f"addr: Expected 1-D argument {name}, but got {t.ndim}-D",
                f"{name} has shape {shape_text(t.shape)}", f"fix: {name}.flatten()"))
    dtype = result_type(input, a, b)
    shape = (a.shape[0], b.shape[0])

    def product() -> np.ndarray:  # (the outer product in the promoted dtype, read in place: no copy reported)
        x, y = a._np().astype(dtype.numpy, copy=False), b._np().astype(dtype.numpy, copy=False)
        return np.logical_and.outer(x, y) if dtype.kind == "b" else quietly(np.multiply.outer, x, y)

    # (PyTorch's addr is a TensorIterator over input, vec1 as a column and vec2: its result keeps
    # the input's memory order)
    base = _expanded("addr", input, shape)
    strides = elementwise_output_strides(shape, [(shape, base.stride()), ((shape[0], 1), (a.stride()[0], 1)),
                                                 ((shape[1],), b.stride())])
    fused = _addr_fused(input, a, b, shape, dtype, beta, alpha, strides, out)
    if fused is not None:
        return fused if out is None else write_out(out, fused, "addr", (input, a, b), same_dtype="")
    return _combine("addr", input, product, shape, dtype, beta, alpha, out, (input, a, b), same_dtype="",
                    strides=strides)


def _addr_chunk(shape: tuple[int, ...]) -> int:
    """at::parallel_for's chunk length over addr's flat range of ``shape`` (0: one chunk), where
    PyTorch's loop cuts its rows (:mod:`strided.kernels.torch_loops`)."""
    numel = shape[0] * shape[1] if len(shape) == 2 else 0
    if numel < GRAIN_SIZE:
        return 0
    chunks = parallel_chunks(numel, torch_threads())
    return 0 if chunks == 1 else -(-numel // chunks)


def _addr_fused(input: Tensor, a: Tensor, b: Tensor, shape: tuple[int, int], dtype: DType,  # noqa: A002
                beta: Any, alpha: Any, strides: tuple[int, ...], out: Any) -> Tensor | None:
    """addr with an input term in float32/float64 as PyTorch's loops compute it, a fresh tensor of
    ``strides``; None where there is no input term (beta 0 or rounding to 0: :func:`_combine`)
    or the dtype is another (the same errors first: :func:`_combine`'s checks run here).

    PyTorch's ``addr_kernel`` (``cpu_kernel_vec``) computes ``beta * self + alpha * vec1 * vec2``;
    compiled with contraction (measured on x86-64 PyTorch 2.13, AVX2), its vector blocks give
    ``fma(alpha * x, y, beta * input)`` and its scalar function (a row's tail of ``len % step``
    elements, or every element of a strided row) ``fma(beta, input, (alpha * x) * y)``; each
    parenthesised step rounded in the dtype, each fma once. NaN: :func:`fused.fma`'s rule."""
    if dtype is not float32 and dtype is not float64:
        return None
    base = _expanded("addr", input, shape)
    beta, alpha = _scalar(beta, "beta", dtype, "addr"), _scalar(alpha, "alpha", dtype, "addr")
    dt = dtype.numpy
    if _addr_beta(beta, dt) == 0:
        return None
    with np.errstate(all="ignore"):
        bv, av = dt.type(beta), dt.type(alpha)  # (PyTorch's Scalar.to<scalar_t>())
        inp = base._np().astype(dt, copy=False)
        x, y = a._np().astype(dt, copy=False), b._np().astype(dt, copy=False)
        p = np.multiply(av, x)[:, None]
        res = _fma(p, y[None, :], np.multiply(inp, bv))
        if out.__class__ is Tensor and out._layout.shape == shape:  # (written in place: its strides walk)
            out_strides, fresh = out._layout.strides, False
        else:
            out_strides, fresh = strides, True
        walk = [(shape, base._layout.strides), ((shape[0], 1), (a._layout.strides[0], 1)), (shape[1:], b._layout.strides)]
        mask = scalar_loop_mask(shape, out_strides, fresh, walk, step=64 // dt.itemsize)
        if mask is not None:  # (the scalar function's elements)
            pm, ym = np.broadcast_to(p, shape)[mask], np.broadcast_to(y, shape)[mask]
            q = np.multiply(pm, ym)
            # (two NaN factors: PyTorch's product keeps alpha * x's, as x86 keeps its first operand's;
            # NumPy's loops keep either, by position: measured)
            both = np.isnan(pm) & np.isnan(ym)
            if both.any():
                q[both] = pm[both]
            res[mask] = _fma(bv, inp[mask], q)
    if strides == L.contiguous_strides(shape):
        return LA.rowmajor(np.ascontiguousarray(res), dtype)
    result = new_result(shape, dtype, strides)
    np.copyto(result._np(), res)
    return result


def _scaled_first(input: Any, vec1: Any, vec2: Any, beta: Any, alpha: Any) -> tuple[Any, Any]:  # noqa: A002
    """``(vec1, alpha)`` as addr's paths take them: with ``beta`` 0 (or rounding to 0) and three
    float32 / float64 tensors of one dtype, ``(alpha * vec1, 1)``, since PyTorch's loop computes
    ``alpha * vec1 * vec2`` left to right (``(alpha * x) * y``: its vector and scalar loops alike),
    where strided's paths multiply the outer product by ``alpha`` (``(x * y) * alpha``: other last
    bits, and -0.0 where ``-1.5 * 3e38`` overflows to -inf and times 0 is NaN in PyTorch). Else
    the arguments unchanged (with an input term, PyTorch fuses per position: see
    tests/test_addr_torch_bits.py)."""
    b, a = _plain_number(beta), _plain_number(alpha)  # (NumPy's real scalars: PyTorch's Scalars too)
    if not (_number(b) and _number(a)) or a == 1 or not -_PLAIN <= a <= _PLAIN:
        return vec1, alpha
    if input.__class__ is not Tensor or vec1.__class__ is not Tensor or vec2.__class__ is not Tensor:
        return vec1, alpha
    d = vec1._dtype
    if (d is not float32 and d is not float64) or input._dtype is not d or vec2._dtype is not d or vec1.ndim != 1:
        return vec1, alpha
    if _addr_beta(b, d.numpy) != 0:
        return vec1, alpha
    scaled = quietly(np.multiply, vec1._np(), d.numpy.type(a))  # (alpha in the dtype, as PyTorch's scalar_t)
    return adopted(scaled.reshape(-1), _cinfo[scaled.shape][2], d), 1


def _plain_number(value: Any) -> Any:
    """A NumPy integer or floating scalar as the Python number of its value (exact); else ``value``."""
    return value.item() if isinstance(value, (np.integer, np.floating)) else value


def _bmm_checks(op_name: str, b1: Tensor, b2: Tensor) -> None:
    """PyTorch's order: it reads batch1's size 1 and batch2's size 2 first (IndexError when a
    tensor has too few dims), then asks for 3-D tensors."""
    for t, name, d in ((b1, "batch1", 1), (b2, "batch2", 2)):
        if t.ndim <= d:
            n = max(t.ndim, 1)
            raise StridedIndexError(join_lines(
                f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})",
                f"{op_name} reads dim {d} of {name}, of shape {shape_text(t.shape)}; it takes 3-D batches "
                "(batch, n, k) and (batch, k, p)", "fix: .unsqueeze(0) a single matrix"))
    for name, t in (("batch1", b1), ("batch2", b2)):
        if t.ndim != 3:
            raise StridedRuntimeError(join_lines(
                f"{name} must be a 3D tensor", f"{op_name}: {name} has shape {shape_text(t.shape)}",
                "fix: .reshape(-1, n, k) to fold extra batch dims"))


def _baddbmm_pre(self: Tensor, batch1: Any, batch2: Any, **kwargs: Any) -> bool:
    if isinstance(batch1, Tensor) and isinstance(batch2, Tensor) and batch1.ndim == 3 and batch2.ndim == 3:
        _inplace_shape("baddbmm_", self, (batch1.shape[0], batch1.shape[1], batch2.shape[2]))
    return False


@op("baddbmm", kind=Kind.COMPUTE, operands="any", inplace="baddbmm_", inplace_flat=_baddbmm_pre,
    rule=_rule("BaddbmmBackward0", lambda g, a, b: (g.bmm(_h(b)), _h(a).bmm(g))))
def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1,  # noqa: A002
            out: Any = None) -> Tensor:
    """``beta * input + alpha * bmm(batch1, batch2)``: (B, n, k) @ (B, k, p), ``input`` broadcast
    to (B, n, p).

    >>> strided.baddbmm(strided.zeros(1, 2), strided.ones(3, 1, 4), strided.ones(3, 4, 2)).shape
    (3, 1, 2)
    """
    if out is None and _number(beta) and _number(alpha) and alpha != 0 and batch1.__class__ is Tensor and (
            batch2.__class__ is Tensor):
        t = _fast_baddbmm_product(batch1, batch2)
        if t is not None:
            if _mk.scale_add(t, input, beta, alpha) is not None:  # (_plus_input's ops, in C)
                return t
            t = _plus_input(t._storage.array.reshape(t._layout.shape), t._layout, input, batch1._dtype, beta, alpha)
            if t is not None:
                return t
    tensor_arg(input, "baddbmm")
    b1 = tensor_arg(batch1, "baddbmm", "batch1", 2)
    b2 = tensor_arg(batch2, "baddbmm", "batch2", 3)
    _bmm_checks("baddbmm", b1, b2)
    batch, n, k = b1.shape
    if b2.shape[0] != batch or b2.shape[1] != k:
        raise StridedRuntimeError(join_lines(
            f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {k}] but got: "
            f"[{b2.shape[0]}, {b2.shape[1]}].",
            f"batch1 has shape {shape_text(b1.shape)}, batch2 {shape_text(b2.shape)}: baddbmm does not broadcast"))
    if not (input._dtype is b1._dtype is b2._dtype):
        if b1._dtype is b2._dtype:
            first = (f"Input dtypes must be the same, got: input {C10_NAME[input._dtype.name]}, batch1: "
                     f"{C10_NAME[b1._dtype.name]}, batch2: {C10_NAME[b2._dtype.name]}")
        else:
            first = f"expected scalar type {TORCH_NAME[b1._dtype.name]} but found {TORCH_NAME[b2._dtype.name]}"
        raise StridedRuntimeError(join_lines(first, "baddbmm does not promote",
                                             f"fix: convert them to one dtype, e.g. .to(strided.{b1._dtype.name})"))
    _refuse_bool(b1._dtype, "baddbmm", "baddbmm", empty=False)
    shape = (batch, n, b2.shape[2])
    # (PyTorch's baddbmm runs its own loop below 400 multiply-adds a matrix, BLAS from there)
    kernel = k * n * shape[2] < 400
    if kernel and b1._dtype.is_floating_point:  # (its running sums' bits; other dtypes' sums are exact)
        product, wide = lambda: quietly(_kernel_bmm, b1._np(), b2._np(), b1._dtype.numpy), lambda: _kernel_bmm(
            b1._np(), b2._np(), np.dtype(np.float32))
    else:
        product, wide = lambda: _product(b1, b2, shape)._np(), lambda: _wide_product(b1, b2)
    return _combine("baddbmm", input, product, shape, b1._dtype, beta, alpha, out,
                    (input, b1, b2), empty=not k, kernel=kernel, wide=wide)


def _kernel_bmm(x: np.ndarray, y: np.ndarray, dtype: np.dtype | None) -> np.ndarray:
    """PyTorch's small baddbmm loop (below 400 multiply-adds a matrix): ``acc = 0; acc += x[k] *
    y[k]`` in order over the contraction, each product and sum rounded in ``dtype`` (its opmath:
    float32 for float16/bfloat16), as a fresh row-major (B, n, p) array. The cumulative sum is
    that running sum; the final + 0 is its start (all -0.0 products give +0.0)."""
    k = x.shape[2]
    if x.dtype == dtype:  # (no dtype= to resolve: a microsecond or two a call)
        dtype = None
        out = _kernel_bmm_native(x, y) if x.dtype == y.dtype else None
        if out is not None:
            return out
    zero = (x.dtype if dtype is None else dtype).type(0)
    if k > 8:  # (one product array and its cumulative sum: fewer NumPy calls than k steps)
        prods = np.multiply(x[:, :, :, None], y[:, None, :, :], dtype=dtype)  # (B, n, k, p)
        return np.ascontiguousarray(np.cumsum(prods, axis=2, dtype=dtype)[:, :, -1, :] + zero)
    acc = np.multiply(x[:, :, 0, None], y[:, 0, None, :], dtype=dtype)
    np.add(acc, zero, out=acc)  # (0 + p0: -0.0 becomes +0.0 as in PyTorch's loop)
    for i in range(1, k):
        np.add(acc, np.multiply(x[:, :, i, None], y[:, i, None, :], dtype=dtype), out=acc)
    return acc


def _kernel_bmm_native(x: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """:func:`_kernel_bmm` of float32/float64 ``x`` and ``y`` (one dtype) by the compiled
    ``bmm_loop`` (the same products and running sums, in the same order, in one C loop); None
    where the compiled kernels are off or not built, or for an empty operand (NumPy's path)."""
    if not (x.dtype == np.float32 or x.dtype == np.float64):
        return None
    kern = native.special()
    batch, n, k = x.shape
    p = y.shape[2]
    if kern is None or not (batch and n and k and p):
        return None
    out = np.empty((batch, n, p), x.dtype)
    if not kern.bmm_loop(np.ascontiguousarray(x), np.ascontiguousarray(y), out, n, k, p):
        return None  # (never: out is new)
    return out


def _fast_baddbmm_product(a: Any, b: Any) -> Tensor | None:
    """baddbmm's fast-path product as a fresh row-major tensor: :func:`fast_bmm`'s (the compiled
    entry's where it takes the operands), but PyTorch's own loop's running sums
    (:func:`_kernel_bmm`, its compiled ``bmm_loop`` called here directly) below its 400
    multiply-adds a matrix."""
    if a.__class__ is Tensor and b.__class__ is Tensor:
        sa, sb = a._layout.shape, b._layout.shape
        if len(sa) == 3 and len(sb) == 3 and sa[1] * sa[2] * sb[-1] < 400:
            if sa[0] != sb[0] or sa[2] != sb[1] or not (all(sa) and sb[2]):
                return None
            t = _mk.bmm_small(a, b)  # (the loop below in one C call, NaN-free operands)
            if t is not None:
                return t
            x = _rowmajor(a, sa)  # (the module's seam, as addmv's: a test forces the general path)
            y = _rowmajor(b, sb) if x is not None and b._dtype is a._dtype else None
            if y is None:
                return None
            layout = _cinfo[(*sa[:2], sb[2])][2]
            kern = native.special()  # (_kernel_bmm_native's call, inlined: x and y are float32/64)
            if kern is not None:
                res = _np_empty(layout.shape, x.dtype)
                if kern.bmm_loop(x, y, res, sa[1], sa[2], sb[2]):
                    return adopted(res.reshape(-1), layout, a._dtype)
            return adopted(quietly(_kernel_bmm, x, y, x.dtype).reshape(-1), layout, a._dtype)
        t = _mk.bmm(a, b)
        if t is not None:
            return t
    fast = fast_bmm(a, b)
    return None if fast is None else adopted(fast[0].reshape(-1), fast[1], a._dtype)


_np_empty = np.empty


def _addbmm_pre(self: Tensor, batch1: Any, batch2: Any, **kwargs: Any) -> bool:
    if isinstance(batch1, Tensor) and isinstance(batch2, Tensor) and batch1.ndim == 3 and batch2.ndim == 3:
        _inplace_shape("addbmm_", self, (batch1.shape[1], batch2.shape[2]))
    return False


def _addbmm_grads(g: Tensor, a: Tensor, b: Tensor) -> tuple:
    ge = g.unsqueeze(0).expand(a.shape[0], a.shape[1], b.shape[2])
    return (ge.bmm(_h(b)), _h(a).bmm(ge))


@op("addbmm", kind=Kind.COMPUTE, operands="any", inplace="addbmm_", inplace_flat=_addbmm_pre,
    rule=_rule("AddbmmBackward0", _addbmm_grads))
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1,  # noqa: A002
           out: Any = None) -> Tensor:
    """``beta * input + alpha * bmm(batch1, batch2).sum(0)``: the products of a batch summed,
    ``input`` broadcast to (n, p).

    >>> strided.addbmm(strided.zeros(2), strided.ones(3, 2, 4), strided.ones(3, 4, 2)).tolist()
    [[12.0, 12.0], [12.0, 12.0]]
    """
    if out is None and _number(beta) and _number(alpha) and alpha != 0:
        t = _mk.addbmm(input, batch1, batch2, beta, alpha)  # (the steps below in one compiled call)
        if t is not None:
            return t
        fast = fast_bmm(batch1, batch2)
        if fast is not None:  # (the general path's batch by batch sums, on the same products)
            p = fast[0]
            t = _plus_input(p[0].copy(), _cinfo[p.shape[1:]][2], input, batch1._dtype, beta, alpha)
            if t is not None and p.shape[0] > 1:
                acc = t._storage.array.reshape(p.shape[1:])  # (t's own fresh array: summed in place)
                quietly(_accumulate_into, acc, p[1:], alpha)
            if t is not None:
                return t
    tensor_arg(input, "addbmm")
    b1 = tensor_arg(batch1, "addbmm", "batch1", 2)
    b2 = tensor_arg(batch2, "addbmm", "batch2", 3)
    _bmm_checks("addbmm", b1, b2)
    if b1.shape[0] != b2.shape[0]:
        raise StridedRuntimeError(join_lines(
            f"batch1 and batch2 must have same number of batches, got {b1.shape[0]} and {b2.shape[0]}",
            f"batch1 has shape {shape_text(b1.shape)}, batch2 {shape_text(b2.shape)}: addbmm does not broadcast"))
    if b1.shape[2] != b2.shape[1]:
        raise StridedRuntimeError(join_lines(
            f"Incompatible matrix sizes for bmm ({b1.shape[1]}x{b1.shape[2]} and {b2.shape[1]}x{b2.shape[2]})",
            f"batch1 has shape {shape_text(b1.shape)}, batch2 {shape_text(b2.shape)}"))
    _same_dtypes(input, b1, b2, "addbmm")
    _refuse_bool(b1._dtype, "addmm_impl_cpu_", "addbmm", empty=False)
    shape = (b1.shape[1], b2.shape[2])

    # PyTorch's addbmm: one addmm per batch (beta for the first, 1 after), each result rounded
    products: dict[bool, np.ndarray] = {}

    def batches(opmath: bool) -> np.ndarray:
        if opmath not in products:
            products[opmath] = (_wide_product(b1, b2) if opmath else
                                _product(b1, b2, (b1.shape[0], *shape))._np())
        return products[opmath]

    return _combine("addbmm", input, lambda: batches(False)[0], shape, b1._dtype, beta, alpha, out, (input, b1, b2),
                    empty=not (b1.shape[0] and b1.shape[2]), wide=lambda: batches(True)[0],
                    rest=lambda opmath: batches(opmath)[1:])


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
