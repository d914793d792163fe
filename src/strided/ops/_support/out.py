"""``out=``: the one helper every op with an ``out=`` argument calls (elementwise ops, reductions,
matmul, norms, cdist).

PyTorch's rules (``at::native::resize_output`` and TensorIterator's output checks):

1. ``out`` must be a Tensor whose dtype the result can be cast to (the in-place rule:
   no float into an integer tensor, nothing non-bool into bool) — RuntimeError
   "result type Float can't be cast to the desired output type Long".
2. ``out`` must not overlap an input partially (``out=x`` itself is fine) — RuntimeError
   "unsupported operation: some elements of the input tensor and the written-to tensor refer
   to a single memory location".
3. A ``out`` of another shape is resized (``Tensor.resize_``, the storage grown if needed) to
   the strides the fresh result has (TensorIterator's: the inputs' memory order; contiguous
   for the ops that allocate row-major); if it had elements PyTorch warns (UserWarning "An output with one or more
   elements was resized since it had shape [...]"), an empty one is resized silently.
4. The values are written through ``out``'s layout, whatever its strides; ``out`` is returned.

All checks run before anything is written, so a refused ``out`` is left untouched.

# Note: the op computes into a fresh result first and that result is then written into
# ``out`` (one code path for every op); PyTorch computes into ``out`` directly. The values are
# the same; the temporary costs one result's memory while the op runs, and a watch sees both
# the op and the write into ``out``. The one exception, :func:`into_out`: a large elementwise
# op whose kernel's values do not depend on the walk, nobody listening, every check passing
# trivially, computes into ``out`` itself (the temporary and the write would double the cost
# of ``add(x.t(), y, out=o)``: 7.6x a memcpy against 3.4x).
# Note: the partial-overlap check runs for every op, matmul/mm/bmm included (PyTorch lets
# ``mm(a, b, out=a[:, :2])`` through and reads what it has already written); and every
# elementwise function takes ``out=``, also where PyTorch's has none (``isnan``, ``isinf``, ...).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import layout as L
from ...callsite import user_site
from ...dispatch import OPEN, _make, memory_overlap, report, shares_storage
from ...dispatch import result as _result
from ...dtypes import CPP_NAME, TORCH_NAME, DType, bfloat16, tensor_type_text
from ...errors import StridedRuntimeError, StridedTypeError, join_lines
from ...grad_mode import (
    GRAD_MODE,
    INFERENCE_STORAGES,
    _requiring,
    note_out_target,
    refuse_inference,
    refuse_out,
)
from ...grad_mode import bump as count_write
from ...kernels import check_writable, torch_loops
from ...kernels.bf16_casts import cast_as_copied, copy_nans, narrow_into
from ...kernels.memory import LISTED_MAX, numpy_view, write, write_plain_loop
from ...kernels.torch_loops import operand_strides
from ...layout.core import may_share_elements
from ...lazy_names import module_on_first_use
from ...messages import partial_overlap, read_after_write
from ...tensor import Tensor
from ...writes import resize_, resize_strided
from .promotion import TORCH_NAMES, can_cast, result_type

# (helper modules only some calls need, loaded on first use: issue 23)
torch_reduce_alias = module_on_first_use("strided.kernels.torch_reduce_alias", globals())
# (PyTorch's index-loop walks: loaded on the first overlapping write that needs one)
torch_index_loops = module_on_first_use("strided.kernels.torch_index_loops", globals())


def check_out(out: Any, op: str) -> Tensor:
    """``out`` as a Tensor, or PyTorch's TypeError for anything else."""
    if not isinstance(out, Tensor):
        raise StridedTypeError(
            join_lines(
                f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}",
                f"got out={out!r:.60}; pass a tensor to write into, e.g. out=strided.empty(0)",
            )
        )
    return out


# The fewest elements an op computes straight into ``out`` (:func:`into_out`); below, the one
# code path (fresh result, then the write) costs microseconds and stays as it was.
INTO_OUT_NUMEL = 1 << 16


def into_out(out: Any, shape: tuple[int, ...], dtype: DType, inputs: tuple) -> bool:
    """Whether an op whose fresh result would have ``shape`` and ``dtype`` may compute straight into
    ``out`` instead (the caller's kernel must give the same values whatever the output's layout):
    every :func:`write_out` check would pass and change nothing, and nothing would be reported.

    That is: nobody listens (no watch, no copy ledger: they keep seeing the op and the write), at
    least :data:`INTO_OUT_NUMEL` elements, ``out`` a Tensor of exactly ``shape`` and ``dtype``
    (no resize, no cast), dense with distinct elements and writable, sharing no memory with any
    input (an overlap, partial or full, takes the general path and its checks), outside
    inference mode, and no autograd refusal (grad mode off, or nothing requires grad). The
    caller then counts the write (:func:`strided.grad_mode.bump`) as :func:`write_out` does.

    >>> x = strided.ones(512, 256)
    >>> into_out(strided.empty(512, 256), (512, 256), strided.float32, (x, x))
    True
    >>> into_out(strided.empty(512, 256, dtype=strided.float64), (512, 256), strided.float32, (x, x))
    False
    """
    if OPEN or not isinstance(out, Tensor) or INFERENCE_STORAGES.data:  # (the WeakSet's set: its truth is Python code)
        return False
    lay = out._layout
    if lay.shape != shape or out._dtype is not dtype or L.product(shape) < INTO_OUT_NUMEL:
        return False
    if not (L.is_non_overlapping_and_dense(shape, lay.strides) and out._storage.array.flags.writeable):
        return False
    if GRAD_MODE.get() and _requiring((out, *inputs)) is not None:
        return False
    return not any(isinstance(x, Tensor) and shares_storage(x, out) for x in inputs)


def check_cast(result: DType, out: Tensor, op: str) -> None:
    """PyTorch's refusal of an ``out`` its result dtype cannot be cast to (a float result into an
    integer ``out``); :func:`write_out` makes it, and the ops whose kernel refuses a dtype after
    TensorIterator's checks make it before computing (``gcd(float, float, out=int)`` is this
    error in PyTorch, not the kernel's).

    >>> check_cast(strided.float32, strided.empty(1, dtype=strided.int64), "add")
    Traceback (most recent call last):
    ...
    strided.errors.StridedRuntimeError: result type Float can't be cast to the desired output type Long
    ...
    """
    if not can_cast(result, out._dtype):
        raise StridedRuntimeError(
            join_lines(
                f"result type {TORCH_NAMES[result]} can't be cast to the desired output type "
                f"{TORCH_NAMES[out._dtype]}",
                f"{op} computes {result.name} but out= is a {out._dtype.name} tensor of shape "
                f"{out.shape}",
                f"fix: pass an out tensor of dtype strided.{result.name} (or one it casts to "
                "safely), or drop out= and convert the result",
            )
        )


def warn_resized(had: tuple[int, ...], shape: tuple[int, ...]) -> None:
    """PyTorch's UserWarning for an output of one or more elements resized to ``shape``."""
    warnings.warn(
        f"An output with one or more elements was resized since it had shape "
        f"{list(had)}, which does not match the required output shape {list(shape)}. "
        "This behavior is deprecated, and in a future PyTorch release outputs will not be "
        "resized unless they have zero elements. You can explicitly reuse an out tensor t by "
        "resizing it, inplace, to zero elements with t.resize_(0).",
        UserWarning,
        stacklevel=user_site()[1],
    )


# The ops PyTorch declares without a differentiable output (derivatives.yaml's
# output_differentiability [False]): its out= forms check nothing of grad, so a float out= that
# requires grad, or an input that does, is written (torch.eq(a, a, out=o) with a.requires_grad)
NO_GRAD_OUT = frozenset(("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
                         "logical_not", "signbit", "isneginf", "isposinf", "all", "any"))
# (PyTorch's signbit and isneginf/isposinf write only a bool out=, before any other check)
_BOOL_OUT_ONLY = frozenset(("signbit", "isneginf", "isposinf"))


def out_layout_scratch(out: Any, x: Any, dtype: DType) -> Tensor | None:
    """Fresh memory laid out as ``out`` (its strides, offset 0) for a unary elementwise op's
    kernel to run into as PyTorch's runs into ``out=`` itself, or None where the fresh result
    (TensorIterator's strides, the input's) is laid out the same or this does not apply.

    PyTorch's loop walks ``out``'s layout: whether a row takes the vector or the scalar
    function (which differ in a zero's sign, e.g. complex ``neg``'s ``0 - z`` against ``-z``)
    follows ``out``'s strides, not a fresh result's. Applies to an ``out`` of ``x``'s shape and
    the result's ``dtype`` whose elements do not share memory, with positive strides (the
    write into ``out`` then follows ``write_out``'s ordinary path)."""
    if type(out) is not Tensor or type(x) is not Tensor or out._dtype is not dtype:
        return None
    ol, xl = out._layout, x._layout
    if ol.shape != xl.shape or ol.strides == xl.strides or 0 in ol.shape:
        return None
    if any(s <= 0 for s, n in zip(ol.strides, ol.shape) if n > 1) or may_share_elements(ol.shape, ol.strides):
        return None
    if L.is_contiguous(ol.shape, ol.strides) and L.is_contiguous(xl.shape, xl.strides):
        return None
    extent = 1 + sum((n - 1) * s for n, s in zip(ol.shape, ol.strides) if n > 1)
    strides = tuple(s if n > 1 else 1 for n, s in zip(ol.shape, ol.strides))
    scratch = _result((extent,), dtype)
    return _make(scratch._storage, L.Layout(ol.shape, strides, 0), dtype)


def write_out(out: Any, result: Tensor, op: str, inputs: tuple = (), same_dtype: str = "", bump: bool = True,
              resize_first: bool = False, no_overlap: bool = False, resize_row_major: bool = False,
              cast_first: str = "", unbuffered: bool = False, reduced: tuple | None = None,
              plain_loop: bool = False, through_temporary: bool = False) -> Tensor:
    """Write the fresh ``result`` of ``op(*inputs)`` into ``out`` with PyTorch's ``out=`` rules
    (module docstring) and return ``out``.

    ``same_dtype``: ops whose ``out`` must have the result's dtype exactly, with PyTorch's
    message: "matmul" (matmul, mm, bmm, norm: "Expected out tensor to have dtype float, but got
    double instead"), "input" (amax/amin: "Expected the dtype for input and out to match"),
    "where" ("Expected out type to be Float but got Double"), "matrix_norm" (norm's "nuc"), or
    the op's own first line as a template: ``{r}`` / ``{o}`` the result's / out's PyTorch type
    names (Float), ``{rc}`` / ``{oc}`` their C++ names (float).
    ``bump=False``: the caller counts the write itself (an out= write recorded as an in-place op).
    ``resize_first``: the ops PyTorch resizes ``out`` for before its overlap checks (the joins and
    the (values, indices) ops, not TensorIterator's): an expanded ``out`` of another shape is
    resized to fresh dense strides and written, where an elementwise op refuses it.
    ``no_overlap``: the ops whose PyTorch kernel calls ``assert_no_overlap`` (linalg.cross): an
    ``out`` that is an input is refused too, not only one laid across an input otherwise.
    ``cast_first``: the op's own refusal of an ``out`` the result cannot be cast to safely, made
    before ``same_dtype``'s (a template as there: matrix_power's "Expected result to be safely
    castable from Float dtype, but got result with dtype Long", then its exact-dtype check).
    ``resize_row_major``: an ``out`` of another shape is resized row-major whatever the result's
    layout (PyTorch's ``resize_output`` in the ops that compute into ``out`` without TensorIterator,
    where the fresh result keeps an input's layout: ``kron``, ``slice_scatter``).
    ``unbuffered``: this call of a buffered unary op (``_READ_FIRST``) runs PyTorch's plain loop
    (``round`` with decimals), so an ``out`` across its input is judged as any elementwise op's.
    ``reduced``: amax/amin's ``(dims, keepdim)`` (dims wrapped, None: all), which its check of an
    ``out`` over the input's own elements needs (:func:`_check_extreme_input`).
    ``plain_loop``: the op's loop writes each element of ``out`` once, from the inputs alone (an
    elementwise op): an ``out`` whose elements share memory without a stride-0 dim keeps the value
    PyTorch's loop writes last at each location (:func:`_last_writes`), where others refuse it.
    ``through_temporary`` (implied by ``plain_loop``): PyTorch's TensorIterator computes the op
    into a contiguous temporary of the result's dtype where ``out`` has another, then copies it
    in; a bfloat16 ``out`` gets that copy's NaN words (:mod:`strided.kernels.bf16_casts`).

    >>> x = strided.tensor([1.0, 2.0]); o = strided.empty(2)
    >>> write_out(o, x + 1, "add", (x, 1)) is o
    True
    """
    out = check_out(out, op)
    if op in _BOOL_OUT_ONLY and out._dtype.name != "bool":
        raise StridedRuntimeError(join_lines(f"{op} does not support non-boolean outputs.",
                                             f"out= is {out._dtype.name}; {op}'s result is bool",
                                             "fix: a bool out= tensor, or convert the result afterwards"))
    if INFERENCE_STORAGES.data:  # (an out= write is an in-place update: PyTorch's refusal outside the block)
        refuse_inference(out, "inplace")
    note_out_target(out)
    if op not in NO_GRAD_OUT:
        refuse_out(op, out, inputs)
    name = f"{op}(out=...)"
    if cast_first and not can_cast(result._dtype, out._dtype):
        raise _dtype_mismatch(result._dtype, out._dtype, op, cast_first)
    if same_dtype and result._dtype is not out._dtype:
        raise _dtype_mismatch(result._dtype, out._dtype, op, same_dtype)
    check_cast(result._dtype, out, op)
    _check_overlap(out, inputs, op, no_overlap)
    shape = result._layout.shape
    _check_read_after_write(out, _written_layout(out, result, resize_row_major), inputs, op,
                            _vml_piece(op, out._dtype) if not unbuffered else None, reduced,
                            result if op in _SCANS else None)
    if out._layout.shape != shape:
        numel = L.product(out._layout.shape)
        check_writable(out._storage, out._layout, name, aliasing_ok=resize_first, updates=False)
        if numel:
            warn_resized(out._layout.shape, shape)
        # TensorIterator gives a resized out= the strides of the fresh result (the inputs' memory
        # order: add(x, x, out=empty(0)) of a permuted x is permuted too); reductions, matmul and
        # the rest allocate row-major, as their fresh results are
        strides = result._layout.strides
        if not resize_row_major and L.is_non_overlapping_and_dense(shape, strides):
            resize_strided(out, shape, strides)  # (a size-1 dim's stride too: nonzero's (n, 1) is (1, n))
        else:
            resize_(out, shape)
    if not (plain_loop and _last_writes(out, result, inputs, name)):
        check_writable(out._storage, out._layout, name, updates=True)
        if (plain_loop or through_temporary) and out._dtype is bfloat16 and result._dtype is not bfloat16 \
                and result._dtype.kind in "fc":
            # (TensorIterator casts through a contiguous temporary of the result's dtype, then
            # copy_ into out: that copy's NaN words; both row-major: the compiled conversion)
            view, values = numpy_view(out._storage, out._layout), result._np()
            if not (view.flags.c_contiguous and values.flags.c_contiguous and narrow_into(view, values)):
                write(out._storage, out._layout, values)
                copy_nans(view, values, L.contiguous_strides(shape))
        else:
            write(out._storage, out._layout, result._np())
    if bump:
        count_write(out, f"{op}(out=...)")  # a saved tensor overwritten through out= must fail at backward
    if OPEN:
        report(op, inputs, out)
    return out


def _last_writes(out: Tensor, result: Tensor, inputs: tuple, name: str) -> bool:
    """An elementwise op's ``result`` into an ``out`` whose elements share memory without a
    stride-0 dim, each location keeping PyTorch's last write (its loop ordered by ``out``'s and
    the inputs' strides: :func:`strided.kernels.memory.write_plain_loop`); False (nothing written)
    for any other ``out`` or an input in ``out``'s memory (read at its own time in the loop: the
    refusal stays)."""
    lay = out._layout
    if not may_share_elements(lay.shape, lay.strides) or L.product(lay.shape) > LISTED_MAX:
        return False  # (beyond LISTED_MAX an overlap is not decided: the write as before)
    if any(isinstance(x, Tensor) and shares_storage(x, out) for x in inputs):
        return False
    tensors = [x for x in inputs if isinstance(x, Tensor)]
    # (TensorIterator casts into out through a temporary where out's dtype is not the common one:
    # a comparison's common dtype is its inputs', its kernel writes a bool out directly)
    common = result._dtype if result._dtype.name != "bool" else result_type(*[x for x in inputs if x is not None])
    cast = out._dtype is not common and out._dtype.name != "bool"
    check_writable(out._storage, lay, name)  # (read-only memory)
    shape = lay.shape
    if cast and result._dtype.is_floating_point and any(x._dtype.is_complex for x in tensors):
        # (abs/angle of complex into a complex out: a fresh real result, laid out as the fresh
        # result is, copied into out: that copy's walk, by out's strides, then the result's)
        order = None
    elif cast:
        # (PyTorch computes into a contiguous temporary of the result's dtype, then copies it into
        # out: that copy's walk, ordered by out's strides, then the temporary's)
        order = [list(L.contiguous_strides(shape))]
    else:
        order = [operand_strides(shape, (x._layout.shape, x._layout.strides)) for x in tensors]
    values = result._np()
    if cast and out._dtype is bfloat16 and result._dtype.kind == "f" and result._dtype is not bfloat16 \
            and order is not None:
        # (that copy's NaN words, each element's by its row in the copy: bf16_casts' rules)
        values = cast_as_copied(values, lay.strides, tuple(order[0]))
    write_plain_loop(out._storage, lay, values, order)
    return True


def _check_resized_overlap(out: Tensor, layout: L.Layout, inputs: tuple, op: str, full_too: bool) -> None:
    """:func:`_check_overlap` of ``out`` as it will be once resized to ``layout`` (PyTorch checks a
    (values, indices) op's outputs after resizing them)."""
    for x in inputs:
        if not isinstance(x, Tensor) or not shares_storage(x, out):
            continue
        status = memory_overlap(x, out, layout)
        if status is L.OverlapStatus.PARTIAL or (full_too and status is L.OverlapStatus.FULL):
            raise partial_overlap(
                f"{op}(out=...)", layout, x._layout, L.storage_extent(layout), L.storage_extent(x._layout),
                f"fix: pass fresh out tensors, or a copy of the input: {op}(x.clone(), ..., out=out)",
            )


def _check_copied_input(out: Tensor, layout: L.Layout, x: Any, op: str) -> None:
    """PyTorch's ``values.copy_(self)`` that starts ``sort(out=(values, indices))`` (then sorted
    in place, reading only ``values``), with ``out`` resized to ``layout``: copy_'s refusal of a
    ``values`` laid across the input in part, and where the two meet in a layout it does not
    check, strided's refusal where copy_'s loop reads an element after writing it
    (:func:`strided.kernels.torch_loops.read_after_write`; elsewhere the copy reads first)."""
    if not isinstance(x, Tensor) or not shares_storage(x, out):
        return
    status = memory_overlap(x, out, layout)
    xl = x._layout
    if status is L.OverlapStatus.PARTIAL:
        raise partial_overlap(f"{op}(out=...)", layout, xl, L.storage_extent(layout), L.storage_extent(xl),
                              f"fix: pass a fresh out tensor, or a copy of the input: {op}(x.clone(), ..., out=out)")
    if status is L.OverlapStatus.TOO_HARD:
        where = torch_loops.read_after_write((layout.shape, layout.strides, layout.offset, out._dtype.itemsize),
                                             (xl.shape, xl.strides, xl.offset, x._dtype.itemsize), copy=True)
        if where is not None:
            raise read_after_write(f"{op}(out=...)", layout, xl, where,
                                   f"fix: pass a fresh out tensor, or a copy of the input: {op}(x.clone(), ..., out=out)")


def _check_overlap(out: Tensor, inputs: tuple, op: str, full_too: bool = False) -> None:
    """PyTorch's ``assert_no_partial_overlap(out, input)``: ``out`` may be an input exactly
    (same span, same strides), not part of one or laid across one differently; ``full_too``:
    its ``assert_no_overlap``, which refuses the input itself too."""
    for x in inputs:
        if not isinstance(x, Tensor) or not shares_storage(x, out):  # (typed aliases too: view(dtype))
            continue
        if _reads_a_copy(op, x):  # (PyTorch then checks its copy, not x)
            continue
        status = memory_overlap(out, x)
        if status is L.OverlapStatus.PARTIAL or (full_too and status is L.OverlapStatus.FULL):
            raise partial_overlap(
                f"{op}(out=...)", out._layout, x._layout, L.storage_extent(out._layout),
                L.storage_extent(x._layout),
                f"fix: pass a fresh out tensor, or a copy of the input: {op}(x.clone(), ..., out=out)",
            )



# PyTorch's unary kernels that run a row of a strided walk through a buffer (its *_vml_cpu
# kernels of floating and complex types): the row's input is read into the buffer before any of
# it is written, so a read after a write within one row does not happen (measured against torch
# 2.13, float32/float64/complex64, sin(x[:6], out=x[::2]) gives the inputs-read-first numbers);
# a later row reads what an earlier one wrote (read_after_write's ``buffered``).
# Per op, the bytes its kernel reads whole before writing them along a row that steps by one in
# both out and input (measured with torch 2.13, float32: a read n elements after its write):
# vec::map's Vectorized<T> (32 bytes: floor/ceil/round/i0; 64: expm1/log1p/lgamma, whose AVX512
# builds run on an AVX512 CPU, else 32), or MKL's VML call (0: its blocking is not known; one element at a time, left to right
# as measured, is the safe side: a refusal where its block happens to read first)
_READ_FIRST = {**dict.fromkeys(("sin", "cos", "tan", "asin", "acos", "atan", "tanh", "exp", "log", "log2", "log10",
                                "sqrt", "erf", "erfc", "erfinv", "trunc"), 0),
               **dict.fromkeys(("ceil", "floor", "round", "i0"), 32),
               **dict.fromkeys(("expm1", "log1p", "lgamma"), 64)}


def _vml_piece(op: str, dtype: DType) -> int | None:
    """The contiguous piece :func:`strided.kernels.torch_loops.read_after_write` takes for ``op``'s
    buffered kernel on ``dtype`` (None: not a buffered kernel; complex ones one element at a time)."""
    piece = _READ_FIRST.get(op)
    if piece is None or dtype.kind not in "fc":
        return None
    if piece == 64:  # (kernels built for AVX512 too: the CPU's Vectorized<T>, 32 bytes under AVX2)
        piece = torch_loops.torch_vector_bytes()
    return piece if dtype.kind == "f" else 0

# the overlaps PyTorch lets through to its loop: too hard to check, or a partial one that only
# the resized ``out`` has (PyTorch checks ``out`` as given, before resizing it)
_ORDER_DEPENDENT = (L.OverlapStatus.TOO_HARD, L.OverlapStatus.PARTIAL)


def _written_layout(out: Tensor, result: Tensor, row_major: bool) -> L.Layout:
    """The layout :func:`write_out` writes ``result`` through: ``out``'s, or the one it resizes
    ``out`` to (PyTorch checks overlaps before resizing, then its loop walks the resized ``out``)."""
    if row_major and out._layout.shape != result._layout.shape:
        return L.Layout(result._layout.shape, L.contiguous_strides(result._layout.shape), out._layout.offset)
    return resized_layout(out, result)


def _check_read_after_write(out: Tensor, tl: L.Layout, inputs: tuple, op: str, buffered: int | None = None,
                            reduced: tuple | None = None, result: Tensor | None = None) -> None:
    """Refuse an ``out`` (written through layout ``tl``) laid across an input in a layout PyTorch calls too hard to check where
    PyTorch's loop (TensorIterator's walk over ``out``) reads an input element after writing it at
    another position: ``add(x[:6], 1, out=x[::2])`` gives a number that depends on that order
    there (strided reads the inputs first), as the in-place forms refuse (operands'
    ``_check_partial_overlap``). Only inputs that broadcast to ``out``'s shape are judged (the
    elementwise reads; a reduction's input is read in its own order). ``buffered``: a buffered
    unary kernel's contiguous piece (:func:`_vml_piece`), its rows read in pieces before written;
    ``reduced``: amax/amin's reduced dims and keepdim, a scan's dim (:func:`write_out`);
    ``result``: a scan's values (a write of an element's own value changes nothing)."""
    for x in inputs:
        if not isinstance(x, Tensor) or not shares_storage(x, out):
            continue
        xl = x._layout
        if op in _SCANS:  # (a scan's loop, not TensorIterator's elementwise walk)
            _check_scan_input(out, tl, x, op, reduced, result)
            continue
        if len(xl.shape) > len(tl.shape) or any(
                s not in (1, t) for s, t in zip(reversed(xl.shape), reversed(tl.shape))):
            if op in _WELFORD and reduced is not None:
                _check_welford_input(out, tl, x, op, *reduced)
            elif op in _REDUCED and not _reads_a_copy(op, x):
                _check_reduced_input(out, tl, x, op)
            elif reduced is not None:
                _check_extreme_input(out, tl, x, op, *reduced)
            continue
        if _reads_a_copy(op, x):
            continue
        if memory_overlap(x, out, tl) not in _ORDER_DEPENDENT:
            continue
        where = torch_loops.read_after_write((tl.shape, tl.strides, tl.offset, out._dtype.itemsize),
                                             (xl.shape, xl.strides, xl.offset, x._dtype.itemsize), buffered=buffered)
        if where is not None:
            raise read_after_write(f"{op}(out=...)", tl, xl, where,
                                   f"fix: pass a fresh out tensor, or a copy of the input: {op}(x.clone(), ..., out=out)")


# Reductions: PyTorch checks no overlap of ``out`` with the input (its reduce iterator is built
# with the check off) and its loops set and accumulate the outputs while reading the input in
# their own order (measured: sum(x, 1, out=...) over x's own elements zeroes them first), so an
# output element that is also an input element gives a number of that order (differential fuzz
# in tests/test_alias_index_ops.py: refused exactly where torch's aliased run differs). std/var
# too where their dims are not known (Welford's one write per output after its reads, the outputs
# in TensorIterator's order: :func:`_check_welford_input` replays that order when they are).
# amax/amin: :func:`_check_extreme_input` (proven read-first, else refused). Not listed:
# logsumexp, which reads its input into temporaries first.
_REDUCED = frozenset(("sum", "nansum", "mean", "nanmean", "prod", "std", "var"))


# Scans (cpu_cum_base_kernel): each line along the dim read and written element by element,
# the lines in TensorIterator's order over the other dims, not the elementwise walk the
# read-after-write model follows (fuzz, 1000 layouts: 8 cumsum/cumprod results silently not
# PyTorch's under that model): :func:`_check_scan_input`.
_SCANS = frozenset(("cumsum", "cumprod", "logcumsumexp"))


def _check_scan_input(out: Tensor, tl: L.Layout, x: Tensor, op: str, reduced: tuple | None,
                      result: Tensor | None = None) -> None:
    """Refuse a scan's ``out`` (written through ``tl``) over its input ``x`` in a layout PyTorch
    does not check where its loop reads an element after writing it: each line along the dim
    (``reduced``: ``((dim,), _)``) read and written element by element, the lines in
    TensorIterator's order (the other dims by the output's strides, then the input's, the
    smallest innermost). Where the dim is not known, the lines would run in parallel chunks, or
    the element sizes differ: refused wherever an input element is also written. ``result``:
    the scan's values (a write of the value an element already holds changes nothing)."""
    if x._storage is not out._storage or memory_overlap(x, out, tl) is not L.OverlapStatus.TOO_HARD:
        return
    xl = x._layout
    nd = len(xl.shape)
    if reduced is None or not nd or out._dtype.itemsize != x._dtype.itemsize or xl.shape != tl.shape:
        _check_reduced_input(out, tl, x, op)
        return
    d = reduced[0][0] % nd
    n = xl.shape[d]
    lines = L.product(xl.shape) // n if n else 0
    if lines > 1 and n and torch_index_loops._parallel(lines, max(torch_loops.GRAIN_SIZE // n, 1)):
        _check_reduced_input(out, tl, x, op)
        return
    others = sorted((k for k in range(nd) if k != d), key=lambda k: (abs(tl.strides[k]), abs(xl.strides[k])))
    rank = np.zeros(xl.shape, np.int64)
    step = 1
    for k in others:  # (innermost first)
        shape = [1] * nd
        shape[k] = xl.shape[k]
        rank = rank + np.arange(xl.shape[k], dtype=np.int64).reshape(shape) * step
        step *= xl.shape[k]
    shape = [1] * nd
    shape[d] = n
    time = rank * n + np.arange(n, dtype=np.int64).reshape(shape)
    w_at = torch_index_loops.addresses(tl.shape, tl.strides, tl.offset)
    r_at = torch_index_loops.addresses(xl.shape, xl.strides, xl.offset)
    changes = None
    if result is not None and result._dtype is out._dtype:  # (a write of the value already there: no change)
        old = out._storage.array[w_at]
        changes = ~((result._np() == old) & (np.signbit(result._np()) == np.signbit(old))) \
            if out._dtype.kind == "f" else result._np() != old
    hit = torch_index_loops.stale_read(w_at, time, r_at, time, changes=changes)
    if hit is not None:
        k, w = hit
        _refuse_reduced(op, tl, xl, k, int(r_at.reshape(-1)[k]), w)


# std/var (binary_kernel_reduce with WelfordOps): foreach_reduced_elt takes the outputs one at a
# time in TensorIterator's order (the kept dims by out's strides, then the input's, the smallest
# innermost), each reading all of its inputs, then writing its result once
_WELFORD = frozenset(("std", "var"))


def _line_ranks(shape: tuple, dims: list[int], tl_strides: tuple, x_strides: tuple) -> np.ndarray:
    """Each position's rank (an int64 array of ``shape``) in TensorIterator's walk over ``dims``
    (sorted by ``tl_strides``, then ``x_strides``, the smallest innermost); 0 along the others."""
    order = sorted(dims, key=lambda k: (abs(tl_strides[k]), abs(x_strides[k])))
    rank = np.zeros(shape, np.int64)
    step = 1
    for k in order:  # (innermost first)
        view = [1] * len(shape)
        view[k] = shape[k]
        rank = rank + np.arange(shape[k], dtype=np.int64).reshape(view) * step
        step *= shape[k]
    return rank


def _check_welford_input(out: Tensor, tl: L.Layout, x: Tensor, op: str, dims: tuple | None, keepdim: bool) -> None:
    """std/var's ``out`` (written through ``tl``) over its input ``x`` in a layout PyTorch does
    not check: refused where an output reads an element an earlier output wrote (:data:`_WELFORD`'s
    order; the any-shared rule where the outputs would run in parallel or the sizes differ)."""
    if x._storage is not out._storage or memory_overlap(x, out, tl) is not L.OverlapStatus.TOO_HARD:
        return
    xl = x._layout
    nd = len(xl.shape)
    red = set(range(nd)) if dims is None else {d % nd for d in dims}
    kept = [k for k in range(nd) if k not in red]
    tl_full = list(tl.strides) if keepdim else None
    if out._dtype.itemsize != x._dtype.itemsize or not nd or L.product(xl.shape) >= torch_loops.GRAIN_SIZE:
        _check_reduced_input(out, tl, x, op)
        return
    if tl_full is None:  # (out's strides placed at the kept dims, 0 at the reduced)
        it = iter(tl.strides)
        tl_full = [0 if k in red else next(it) for k in range(nd)]
    rank = _line_ranks(xl.shape, kept, tuple(tl_full), xl.strides)  # (the input: its output's rank)
    out_rank = rank[tuple(slice(None) if k not in red else slice(0, 1) for k in range(nd))]
    w_at = torch_index_loops.addresses(out_rank.shape, tl_full, tl.offset)
    r_at = torch_index_loops.addresses(xl.shape, xl.strides, xl.offset)
    hit = torch_index_loops.stale_read(w_at, out_rank, r_at, rank)
    if hit is not None:
        k, w = hit
        _refuse_reduced(op, tl, xl, k, int(r_at.reshape(-1)[k]), w)


def _reads_a_copy(op: str, x: Tensor) -> bool:
    """Whether PyTorch's ``op`` reads a copy of its input ``x`` before writing ``out``: mean of a
    float16/bfloat16 input sums a float32 copy (measured: its aliased run equals its run on a
    clone in every layout; nanmean, sum and prod do not)."""
    return op == "mean" and x._dtype.name in ("float16", "bfloat16")


def _shared_bytes(tl: L.Layout, size: int, xl: L.Layout, x_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The byte offsets of ``tl``'s elements (``size`` bytes each) and of ``xl``'s (``x_size``), flat in
    row-major order, and which of ``xl``'s share a byte with one of ``tl``'s (a complex input's
    element meets a real ``out``'s halves too)."""
    written = torch_loops._element_bytes(tl.shape, tl.shape, tl.strides, tl.offset, size)
    read = torch_loops._element_bytes(xl.shape, xl.shape, xl.strides, xl.offset, x_size)
    if size == x_size:
        return written, read, np.isin(read, written)
    w_bytes = (written[:, None] + np.arange(size)).reshape(-1)
    return written, read, np.isin(read[:, None] + np.arange(x_size), w_bytes).any(axis=1)


def _position(flat: int, shape: tuple) -> list[int]:
    return [int(i) for i in np.unravel_index(flat, shape)] if shape else []


def _refuse_reduced(op: str, tl: L.Layout, xl: L.Layout, k: int, element: int, w: int) -> None:
    """strided's refusal of a reduction's ``out`` over its input: the input's ``k``-th element
    (row-major; storage ``element``) is also the output's ``w``-th."""
    raise read_after_write(f"{op}(out=...)", tl, xl, (_position(k, xl.shape), element, _position(w, tl.shape)),
                           f"fix: pass a fresh out tensor, or a copy of the input: {op}(x.clone(), ..., out=out)")


def _check_reduced_input(out: Tensor, tl: L.Layout, x: Tensor, op: str) -> None:
    """Refuse a reduction's ``out`` (written through ``tl``) laid over its input ``x`` in a layout
    PyTorch does not check (dense overlaps were refused by :func:`_check_overlap`) where an
    element written is also read (:data:`_REDUCED`): the positions of the first such read."""
    if x._storage is not out._storage or memory_overlap(x, out, tl) is not L.OverlapStatus.TOO_HARD:
        return
    written, read, both = _shared_bytes(tl, out._dtype.itemsize, x._layout, x._dtype.itemsize)
    if not both.any():
        return
    k = int(np.argmax(both))
    near = np.abs(written - read[k])
    _refuse_reduced(op, tl, x._layout, k, int(read[k]) // x._dtype.itemsize, int(np.argmin(near)))


def _check_extreme_input(out: Tensor, tl: L.Layout, x: Tensor, op: str, dims: tuple | None, keepdim: bool) -> None:
    """amax/amin's ``out`` (written through ``tl``) over its input ``x``'s own elements in a layout
    PyTorch does not check: refused unless PyTorch's aliased result is proven to be strided's
    read-first one (:func:`strided.kernels.torch_reduce_alias.extreme_unproven`; one dtype, as
    amax's out= must have). ``dims``: the reduced dims (None: all)."""
    if x._storage is not out._storage or memory_overlap(x, out, tl) is not L.OverlapStatus.TOO_HARD:
        return
    xl = x._layout
    size = x._dtype.itemsize
    nd = len(xl.shape)
    red = tuple(range(nd)) if dims is None else tuple(sorted(d % nd for d in dims)) if nd else ()
    perm = tuple(d for d in range(nd) if d not in red) + red
    n_red = L.product([xl.shape[d] for d in red])
    n_out = L.product(xl.shape) // n_red if n_red else 0
    written = torch_loops._element_bytes(tl.shape, tl.shape, tl.strides, tl.offset, size)
    read = torch_loops._element_bytes(xl.shape, xl.shape, xl.strides, xl.offset, size)
    if not n_red or written.size != n_out:
        return
    read_rows = read.reshape(xl.shape).transpose(perm).reshape(n_out, n_red)
    values = np.ascontiguousarray(x._np()).transpose(perm).reshape(n_out, n_red)
    where = torch_reduce_alias.extreme_unproven(values, read_rows, written, op == "amax")
    if where is None:
        return
    o, j = where
    at = np.unravel_index(o * n_red + j, [xl.shape[d] for d in perm])  # (the rows' order: kept dims, then reduced)
    pos = [0] * nd
    for d, i in zip(perm, at):
        pos[d] = int(i)
    k = int(np.ravel_multi_index(pos, xl.shape)) if nd else 0
    _refuse_reduced(op, tl, xl, k, int(read[k]) // size, int(np.argmax(written == read[k])))


def resized_layout(out: Tensor, result: Tensor) -> L.Layout:
    """The layout :func:`write_out` gives ``out`` for ``result``: its own when the shapes match,
    else ``result``'s strides (row-major where those are not dense) at ``out``'s offset.

    >>> resized_layout(strided.empty(0), strided.ones(2, 3).t()).strides  # (the result's own)
    (1, 3)
    """
    lay = out._layout
    shape = result._layout.shape
    if lay.shape == shape:
        return lay
    strides = result._layout.strides
    if not L.is_non_overlapping_and_dense(shape, strides):
        strides = L.contiguous_strides(shape)
    return L.Layout(shape, strides, lay.offset)


def refuse_other_dtype(out: Any, dtype: DType, op: str, rule: str = "always") -> None:
    """The out= check of PyTorch's unary ops that keep their input's dtype (``abs``, ``neg``,
    ``sign``, ``floor``, ... : TensorIterator's all-same-dtype check, before any kernel's dtype
    check): an ``out`` of another dtype than the input's ``dtype`` is refused before anything
    runs ("Found dtype Double but expected Float"), where other ops would cast into it. ``rule``
    (the op's declaration) for a complex input: "always" checks it too (neg, sgn, round, frac),
    "not_complex" leaves it to the op's own complex refusal, which PyTorch raises first (floor,
    ceil, trunc, sign), "abs" checks only a complex ``out`` (abs of a complex tensor is real: a
    real ``out`` of any float dtype takes it).

    >>> refuse_other_dtype(strided.empty(0, dtype=strided.float64), strided.float32, "abs")
    Traceback (most recent call last):
    ...
    strided.errors.StridedRuntimeError: Found dtype Double but expected Float
    ...
    """
    if not isinstance(out, Tensor) or out._dtype is dtype:
        return
    if dtype.is_complex and (rule == "not_complex" or (rule == "abs" and not out._dtype.is_complex)):
        return
    raise _dtype_mismatch(dtype, out._dtype, op, "found")


_STYLES = frozenset(("matmul", "found", "where", "matrix_norm", "input"))


def _dtype_mismatch(r: DType, o: DType, op: str, style: str) -> StridedRuntimeError:
    """The error of an ``out`` of dtype ``o`` where ``op`` writes ``r`` only (``style``: whose
    wording, see :func:`write_out`'s ``same_dtype``)."""
    if style not in _STYLES:  # an op's own wording: {r} / {o} PyTorch's type names (Float), {rc} / {oc} C++'s
        first = style.format(r=TORCH_NAMES[r], o=TORCH_NAMES[o], rc=CPP_NAME[r.name], oc=CPP_NAME[o.name])
        return StridedRuntimeError(join_lines(
            first, f"{op} writes {r.name} results and does not convert them; out= is {o.name}",
            f"fix: pass out=strided.empty(0, dtype=strided.{r.name}), or drop out= and convert the result"))
    first = (
        f"Expected out tensor to have dtype {CPP_NAME[r.name]}, but got "
        f"{CPP_NAME[o.name]} instead"
        if style == "matmul"
        else f"Found dtype {TORCH_NAMES[o]} but expected {TORCH_NAMES[r]}"  # (TensorIterator's all-same-dtype check)
        if style == "found"
        else f"Expected out type to be {TORCH_NAMES[r]} but got {TORCH_NAMES[o]}"  # (where_self_out's own check)
        if style == "where"
        else f"linalg.matrix_norm expected out tensor dtype {TORCH_NAMES[r]} but got: {TORCH_NAMES[o]}"
        if style == "matrix_norm"
        else f"Expected the dtype for input and out to match, but got {TORCH_NAMES[r]} for input's dtype "
        f"and {TORCH_NAMES[o]} for out's dtype."
    )
    return StridedRuntimeError(
        join_lines(
            first,
            f"{op} writes {r.name} results and does not convert them; out= is {o.name}",
            f"fix: pass out=strided.empty(0, dtype=strided.{r.name}), or drop out= and convert the result",
        )
    )


def _legacy(name: str) -> str:
    """PyTorch's type name of a CPU dtype given by its torch name (``Float``: torch.FloatTensor,
    ``Bool``: CPUBoolType), as its ``checkArgs`` errors print it (:func:`.tensor_type_text`)."""
    return tensor_type_text(next((d for d, t in TORCH_NAME.items() if t == name), name))


# The first lines of the pair ops' out= dtype refusals that are not matmul's ("Expected out tensor
# to have dtype float, but got double instead"), by style: (values' text, indices' text), each
# of (the result's torch name, out's torch name).
_PAIR_TEXTS: dict[str, tuple[Callable[[str, str], str], Callable[[str, str], str]]] = {
    "scalar_type": (lambda r, o: f"expected scalar_type {r} but found {o}",) * 2,  # cummax, cummin
    "median": (  # median, nanmedian (both "while checking arguments for median")
        lambda r, o: (f"Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; "
                      f"but type {_legacy(o)} does not equal {_legacy(r)} (while checking arguments for median)"),
        lambda r, o: (f"Expected tensor for argument #1 'indices' to have scalar type {r}; but got {_legacy(o)} "
                      "instead (while checking arguments for median)")),
    "kthvalue": (lambda r, o: "output values must be of same type as input",
                 lambda r, o: "output indices must be of scalar type Long"),
    "mode": (lambda r, o: f"expected scalar type '{r}' but got '{o}' for values output",
             lambda r, o: f"expected scalar type '{r}' but got '{o}' for indices output"),
}


def write_pair_out(out: Any, compute: Callable[[], Any], op: str, inputs: tuple, style: str = "matmul",
                   overlap: str = "partial") -> Any:
    """``op(..., out=(values, indices))`` of the ops that return a (values, indices) pair (max/min
    along a dim, median, mode, kthvalue, sort, topk, ...): PyTorch's rules, checked before
    anything is written. ``out`` is a tuple (or list) of two tensors (TypeError otherwise, in
    PyTorch's words); autograd's refusal; ``compute()`` (the op without out=) makes the pair;
    ``values`` must have the input's dtype and ``indices`` int64 exactly (RuntimeError "Expected
    out tensor to have dtype float, but got double instead"); each is resized as by
    :func:`write_out` (with PyTorch's warning when it had elements) and written through its own
    strides. Returns the op's named tuple holding the two ``out`` tensors. ``style="scalar_type"``:
    the dtype refusal in the words of PyTorch's cummax/cummin ("expected scalar_type Long but
    found Int"); ``"median"``, ``"kthvalue"``, ``"mode"``: those ops' own words (:data:`_PAIR_TEXTS`).
    ``overlap``: PyTorch's check of each resized ``out`` against the input, before anything is
    written: "partial" refuses an ``out`` laid across the input (max/min/median/mode/topk/aminmax),
    "any" refuses it being the input too (kthvalue), "" checks nothing (cummax, cummin), "copy":
    ``values`` is first a copy of the input, sorted in place (sort: :func:`_check_copied_input`).

    >>> x = strided.tensor([[3.0, 1.0], [0.0, 5.0]])
    >>> v, i = strided.empty(2), strided.empty(2, dtype=strided.int64)
    >>> r = strided.max(x, 1, out=(v, i)); r.values is v, v.tolist(), i.tolist()
    (True, [3.0, 5.0], [0, 1])
    """
    _tensors_out(out, op, ("values", "indices"),
                 f"{op} along a dim returns (values, indices): out= takes one tensor for each",
                 f"fix: {op}(..., out=(values, indices)) with values of the input's dtype and int64 indices")
    refuse_out(op, out[0], (out[1], *inputs))
    made = compute()
    order = (1, 0) if style == "median" else (0, 1)  # (PyTorch's median checks the indices first)
    for k in order:
        o, r = out[k], made[k]
        if r._dtype is not o._dtype:
            if style in _PAIR_TEXTS:
                raise StridedRuntimeError(join_lines(
                    _PAIR_TEXTS[style][k](TORCH_NAMES[r._dtype], TORCH_NAMES[o._dtype]),
                    f"{op} writes {r._dtype.name} here and does not convert; this out tensor is {o._dtype.name}",
                    "fix: pass out tensors of the input's dtype (values) and strided.int64 (indices)"))
            raise _dtype_mismatch(r._dtype, o._dtype, op, "matmul")
    for o, r in zip(out, made):  # (both checked first: a refused out= leaves both untouched)
        check_writable(o._storage, o._layout, f"{op}(out=...)", aliasing_ok=o._layout.shape != r._layout.shape,
                       updates=o._layout.shape == r._layout.shape)
        if overlap == "copy":
            if o is out[0]:
                _check_copied_input(o, resized_layout(o, r), inputs[0], op)
        elif overlap:
            _check_resized_overlap(o, resized_layout(o, r), inputs, op, overlap == "any")
    for o, r in zip(out, made):
        write_out(o, r, op, (), resize_first=True)
    return type(made)(*out)


def _tensors_out(out: Any, op: str, parts: tuple[str, ...], returns: str, fix: str) -> None:
    """PyTorch's TypeErrors for an ``out=`` that is not a tuple (or list) of one tensor for each of
    an op's ``parts`` (``returns`` and ``fix``: the lines after PyTorch's)."""
    spelt = ", ".join(parts)
    if not isinstance(out, (tuple, list)):
        raise StridedTypeError(join_lines(
            f"{op.replace('.', '_')}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}",
            returns, fix))
    if len(out) != len(parts):
        raise StridedTypeError(join_lines(
            f"expected tuple of {len(parts)} elements but got {len(out)}",
            f"{op}(..., out=...) takes ({spelt}); got {len(out)} tensors"))
    for i, o in enumerate(out):
        if not isinstance(o, Tensor):
            raise StridedTypeError(join_lines(
                f"expected Tensor as element {i} in argument 'out', but got {type(o).__name__}",
                f"fix: {op}(..., out=({spelt})) with {len(parts)} tensors"))


def write_tuple_out(out: Any, compute: Callable[[], Any], op: str, inputs: tuple, parts: tuple[str, ...]) -> Any:
    """``op(..., out=(a, b, ...))`` of the ops that return a named tuple of tensors, one for each of
    ``parts`` (the linalg factorizations: ``eigh``'s (eigenvalues, eigenvectors), ``svd``'s
    (U, S, Vh), ``inv_ex``'s (inverse, info), ...): PyTorch's rules, checked before anything is
    written: ``out`` a tuple (or list) of one tensor per part (TypeError otherwise), autograd's
    refusal, ``compute()`` (the op without out=), each part of ``out`` of its result's dtype exactly
    (RuntimeError "Expected out tensor to have dtype float, but got double instead"), none laid
    across an input; then each is resized as by :func:`write_out` (the fresh result's strides:
    column-major where PyTorch's linalg results are) and written through its own strides. Returns
    the op's named tuple holding the ``out`` tensors.

    >>> A = strided.tensor([[2.0, 1.0], [1.0, 2.0]])
    >>> w, v = strided.empty(0), strided.empty(0)
    >>> r = strided.linalg.eigh(A, out=(w, v)); r.eigenvalues is w, w.tolist()
    (True, [1.0, 3.0])
    """
    _tensors_out(out, op, parts, f"{op} returns ({', '.join(parts)}): out= takes one tensor for each",
                 f"fix: {op}(..., out=({', '.join(parts)})) with a tensor of each result's dtype")
    refuse_out(op, out[0], (*out[1:], *inputs))
    made = compute()
    for o, r in zip(out, made):
        if r._dtype is not o._dtype:
            raise _dtype_mismatch(r._dtype, o._dtype, op, "matmul")
    for o, r in zip(out, made):  # (all checked first: a refused out= leaves every part untouched)
        check_writable(o._storage, o._layout, f"{op}(out=...)", aliasing_ok=o._layout.shape != r._layout.shape,
                       updates=o._layout.shape == r._layout.shape)
        _check_resized_overlap(o, resized_layout(o, r), inputs, op, False)
    for o, r in zip(out, made):
        write_out(o, r, op, (), resize_first=True)
    return type(made)(*out)
