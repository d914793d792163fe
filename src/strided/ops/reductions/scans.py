"""cumsum, cumprod (and their in-place forms), cummax, cummin, diff: running results along one dim.

Contracts (PyTorch 2.13):

* ``cumsum``/``cumprod``: bool and integer inputs give int64 unless ``dtype=`` is given; with
  ``dtype=`` the input is converted first. float32 accumulates in float64 and float16 in float32,
  rounding each running result once, as PyTorch's CPU kernel does (so the values agree exactly).
  Integer overflow wraps. Results are contiguous.
* ``cumsum_``/``cumprod_`` write into the tensor (its dtype; ``dtype=`` must equal it); a target
  whose elements share memory (expanded) is refused before anything is written.
* ``cummax``/``cummin`` return ``(values, indices)``: on ties the index of the LAST occurrence,
  and once a NaN is met the value stays NaN with the index of the latest NaN (PyTorch's kernel).
* ``diff(n, dim, prepend, append)``: ``n``-th forward difference along ``dim`` (bool: ``!=``),
  after joining ``prepend``/``append`` (tensors of the input's rank; dtypes promote as in ``cat``).
  Result strides follow the input's memory order, as PyTorch's subtraction of two narrowed views.

Every result is new memory, reported with :func:`strided.dispatch.copied`.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ... import layout as L
from ...args import int_arg, is_dim_int, type_name
from ...callsite import user_site
from ...dispatch import OPEN, adopted, copied, report, result, result_array
from ...dtypes import (
    CPP_NAME,
    REDUCED_FLOATS,
    TORCH_NAME,
    DType,
    bfloat16,
    complex64,
    float16,
    float32,
    float64,
    int32,
    int64,
    np_finfo,
    np_kind,
    to_dtype,
)
from ...dtypes import bool_ as bool_dtype
from ...errors import (
    StridedIndexError,
    StridedNotImplementedError,
    StridedRuntimeError,
    StridedTypeError,
    join_lines,
)
from ...grad_mode import SUBCLASSES, is_grad_enabled
from ...gradients import in_pytorch_convention, linear, seal
from ...kernels import check_writable, native
from ...kernels.bf16_casts import number_nans
from ...kernels.blocked import copy_into
from ...kernels.fpstate import quiet_call, quiet_retry, quietly
from ...kernels.memory import dense_run, flat_run, numpy_view, reduced_cast_source
from ...kernels.native import kernel_run, special
from ...kernels.reduce import holds_nan
from ...kernels.torch_loops import GRAIN_SIZE, loop_rows, parallel_chunks, torch_threads
from ...layout.core import may_share_elements
from ...layout.order import elementwise_output_strides, preserve_format_strides
from ...lazy_names import function_on_first_call
from ...messages import overlapping_write
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support import gradtools, return_types, support
from .._support.along import one_dim, tensor_from_array
from .._support.front import compiled_front, kernel_entry
from .._support.memo import Memo
from .._support.operands import _cinfo
from .._support.out import write_out, write_pair_out
from .._support.promotion import promote_types
from .._support.reduce_args import shape_text
from ..registry import backward, method

# (PyTorch's index-loop walks: loaded on the first overlapping or racing write; see strided.lazy_names.function_on_first_call)
addresses = function_on_first_call("strided.kernels.torch_index_loops", "addresses", globals())

# PyTorch's CPU scan accumulates in at::acc_type: double for float, float for half, complex<double>
# for complex<float> (a complex64 cumsum accumulated in complex64 matched 23% of its elements)
_ACCUMULATOR = {float32: np.dtype(np.float64), float16: np.dtype(np.float32), bfloat16: np.dtype(np.float32),
                float64: np.dtype(np.float64), complex64: np.dtype(np.complex128)}


def _scan_dtype(self: Tensor, dtype: Any, op: str) -> DType:
    """The result dtype: ``dtype=`` if given, else int64 for bool/integer inputs, else the input's."""
    if dtype is not None:
        out = to_dtype(dtype)
        if out is bool_dtype:
            raise StridedNotImplementedError(
                join_lines(f"\"{op}_out_cpu\" not implemented for 'Bool'",
                           f"a running {'sum' if op == 'cumsum' else 'product'} of bools counts in integers: "
                           f"pass dtype=strided.int64 (or leave dtype out)")
            )
        return out
    return self._dtype if self._dtype.is_floating_point or self._dtype.is_complex else int64


# up to this many elements a running sum's -0.0 is fixed by adding +0.0 everywhere, beyond by
# finding the leading -0.0 first (a full extra pass costs more than the search)
_SMALL_SCAN = 4096


def _scan_array(ufunc: np.ufunc, self: Tensor, d: int, out_dtype: DType) -> np.ndarray:
    """The running ``ufunc`` along ``d`` as a fresh C-contiguous array of ``out_dtype``.

    A conversion (to the accumulator dtype) is made once, into a fresh array that the scan then
    overwrites: NumPy's accumulate with a converting ``dtype=`` runs through small buffers and is
    2-3x slower along a leading dim.
    """
    x = self._np()
    if x.dtype.kind == "c" and out_dtype.kind != "c":
        # complex scanned as a real dtype= : each element converted first (its real part), as PyTorch
        # (NumPy's astype would drop the imaginary part with its own ComplexWarning)
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=user_site()[1])
        x = x.real
    return scan_values(ufunc, x, d, out_dtype)


def scan_values(ufunc: np.ufunc, x: np.ndarray, d: int, out_dtype: DType) -> np.ndarray:
    """:func:`_scan_array` of a NumPy array ``x`` (read in place): the running ``ufunc`` along
    ``d`` as PyTorch's scan computes it, a fresh C-contiguous array of ``out_dtype``. The caller
    silences NumPy's warnings.

    >>> scan_values(np.add, np.array([-0.0, 1.5], np.float32), 0, strided.float32).tolist()
    [0.0, 1.5]
    """
    arr = _running(ufunc, x, d, out_dtype)
    if out_dtype is bfloat16:
        # (PyTorch's cpu_cum_base_kernel writes each running value through the scalar conversion,
        # c10::BFloat16(acc): a NaN is 0x7FC0, sign and payload dropped; a 0-d input's fill_ too)
        if arr.dtype != bfloat16.numpy:
            arr = arr.astype(bfloat16.numpy)
        number_nans(arr)
    return arr


def _running(ufunc: np.ufunc, x: np.ndarray, d: int, out_dtype: DType) -> np.ndarray:
    """:func:`scan_values` before a bfloat16 result's NaN words (an array of ``out_dtype``, or of
    its accumulator where that is not a float or complex NumPy kind)."""
    if x.ndim == 0:
        x = x.reshape(1)
    acc = _ACCUMULATOR.get(out_dtype, out_dtype.numpy)
    if x.dtype != out_dtype.numpy and (np_kind(x.dtype) == "f" or out_dtype.is_floating_point):
        # dtype=: each element is converted first, as PyTorch does (bfloat16 -> int through float32,
        # as PyTorch's conversion: ml_dtypes' own gives 0 for -6.0 -> uint8, PyTorch 250)
        x = reduced_cast_source(np.dtype(out_dtype.numpy), x).astype(out_dtype.numpy)
    if ufunc is np.multiply and acc.kind == "c" and x.size:
        run = _complex_running_product(x, d)
        if run is not None:
            return run if run.dtype == out_dtype.numpy else run.astype(out_dtype.numpy)
    if x.dtype == acc:
        arr = ufunc.accumulate(x, axis=d)
    else:
        arr = x.astype(acc, order="C")  # fresh: the scan runs in place in it
        if arr.size:
            ufunc.accumulate(arr, axis=d, out=arr)
    if ufunc is np.add and arr.dtype.kind in "fc" and arr.size:
        # PyTorch's running sum starts from +0.0, so a run of -0.0 sums to +0.0; NumPy's starts
        # from the first element (-0.0 kept). Adding +0.0 changes only -0.0 (and quiets a signaling
        # NaN, as PyTorch's 0 + x does): fused into the rounding to the result's dtype where there
        # is one, or on a small array (one ufunc call is cheaper than the two that find a -0.0).
        if arr.dtype != out_dtype.numpy and out_dtype.numpy.kind in "fc":
            return np.add(arr, 0.0, out=np.empty(arr.shape, out_dtype.numpy), casting="unsafe")
        if arr.size <= _SMALL_SCAN:
            return np.add(arr, 0.0, out=arr)
        # Only a leading run can be -0.0: one slice tells.
        if arr.ndim == 1:  # (one element: read in Python, a ufunc on a scalar costs microseconds)
            v = complex(arr[0])
            negative_zero = any(p == 0 and math.copysign(1.0, p) < 0 for p in (v.real, v.imag))
        else:
            lead = arr[(slice(None),) * d + (0,)]  # (a view)
            if arr.dtype.kind == "f":  # (zeros are rare: one comparison tells, then their signs)
                zero = lead == 0
                negative_zero = bool(zero.any()) and bool(np.signbit(lead[zero]).any())
            else:
                negative_zero = any(bool(((p == 0) & np.signbit(p)).any()) for p in (lead.real, lead.imag))
        if negative_zero:
            np.add(arr, 0.0, out=arr)  # (+0.0 changes only -0.0)
    if arr.dtype != out_dtype.numpy:
        arr = arr.astype(out_dtype.numpy)
    return arr


def _complex_running_product(x: np.ndarray, d: int) -> np.ndarray | None:
    """The running product of complex ``x`` along ``d`` as PyTorch's CPU cumprod computes it, by the
    compiled ``complex_cumprod``: in complex128 from 1 + 0j, each step the fused product
    (NumPy's complex multiply rounds otherwise: 15% of random complex128 elements agreed; and its
    first element is x itself, where (1 + 0j) * (1 + infj) is nan + infj). A fresh C-contiguous
    complex128 array, or None where the kernel is not built or off."""
    k = native.special()
    if k is None:
        return None
    moved = np.moveaxis(x, d, -1)
    work = np.ascontiguousarray(moved, dtype=np.complex128)
    res = np.empty_like(work) if np.shares_memory(work, x) else work
    if not k.complex_cumprod(work.reshape(-1), res.reshape(-1), work.shape[-1]):
        return None
    return np.ascontiguousarray(np.moveaxis(res, -1, d))


def _fast_scan(ufunc: np.ufunc, self: Any, dim: Any) -> tuple[Tensor, int] | None:
    """The running ``ufunc`` of a row-major float32 / float64 tensor along an int ``dim`` with no
    ``dtype=``: :func:`_scan_array` itself (float32 accumulates in float64), its fresh row-major
    result adopted, without the general path's argument parsing; (result, wrapped dim), or None
    where the general path must run (it raises PyTorch's errors). It is the compiled ``scan`` of
    ``_specialkernel.c`` where that is built: the same operations in the same order (no library
    function), so the same bits in one call (its lines interleaved: 1M float32 ~3.5 ms -> ~0.5 ms)."""
    if (self.__class__ is not Tensor and self.__class__ not in SUBCLASSES) or dim.__class__ is not int:
        return None
    d = self._dtype
    if d is not float32 and d is not float64:
        return None
    lay = self._layout
    shape = lay.shape
    ndim = len(shape)
    info = _cinfo[shape]
    if not ndim or not -ndim <= dim < ndim or not info[1]:
        return None
    axis = dim % ndim
    if lay.strides != info[0]:
        return _permuted_scan(ufunc, self, axis, info)
    k = special()
    if k is not None:  # the compiled scan: scan_values' operations, bit for bit, in one call
        x = self._storage.array
        if lay.offset or len(x) != info[1]:
            x = x[lay.offset : lay.offset + info[1]]
        # (a tensor unpickled past its storage: the general path refuses it; an unaligned from_numpy
        # view: the kernel refuses its buffer, the NumPy path computes it)
        if len(x) == info[1] and x.flags.aligned:
            out = np.empty(info[1], d.numpy)
            # (False, nothing written, only where x and out overlap: never for a fresh out)
            # (True: no line ends in NaN, the kernel's own test; 2: one does, NumPy's path below)
            if k.scan(x, out, shape[axis], info[0][axis], ufunc is np.multiply) is True:
                return adopted(out, info[2], d), axis
    res = quietly(_scan_array, ufunc, self, axis, d)  # (row-major in, C-contiguous out)
    return adopted(res.reshape(-1), info[2], d), axis


def _permuted_scan(ufunc: np.ufunc, self: Tensor, axis: int, info: tuple) -> tuple[Tensor, int] | None:
    """:func:`_fast_scan` of a tensor whose elements tile its memory in another order than row-major
    (a transpose, a permute of a contiguous tensor): :func:`compiled_scan` of its NumPy view; None
    (the general path runs) where that declines."""
    res = compiled_scan(numpy_view(self._storage, self._layout), axis, ufunc is np.multiply)
    return None if res is None else (adopted(res.reshape(-1), info[2], self._dtype), axis)


def _nan_ends(run: np.ndarray, axis: int) -> bool:
    """Whether a compiled scan's result ``run`` has a NaN line along ``axis`` (a NaN, once in a running
    sum or product, stays to the line's end): there the NaN kept by NaN + NaN (NaN * NaN) is the one
    NumPy's compiled loop keeps (the running value), which the kernel's compiler may not keep (it
    may swap the operands of a commutative add, vectorized), so the caller's NumPy path runs."""
    if run.ndim == 1:
        v = run[-1]
        return bool(v != v)
    return bool(holds_nan(run.take(-1, axis=axis)))  # (take: a fresh C-contiguous array)


def compiled_scan(x: np.ndarray, axis: int, prod: bool) -> np.ndarray | None:
    """:func:`scan_values` of a float32 / float64 array ``x`` into its own dtype (the running sum,
    or product with ``prod``, along ``axis``) by the compiled ``scan``, as a fresh C-contiguous
    array; None (nothing computed: the caller runs scan_values) without the kernel, for an empty
    array or one whose elements do not tile its memory in some order of its axes (gaps, stride 0,
    negative strides), or an unaligned one. ``x`` is read in memory order (its axes sorted by
    stride), a row-major array the kernel scans along ``axis``'s place in that order: each line's
    operations and their order are scan_values' (which scans the lines of a row-major copy), and
    the set of leading elements, which decides a float64 sum's -0.0 fix-up, is the same set. A
    result not in row-major order is then copied once, blocked, into one."""
    k = special()
    if k is None or not x.ndim or not x.size or x.dtype.char not in "fd" or not x.flags.aligned:
        return None
    order = sorted(range(x.ndim), key=lambda d: -x.strides[d])  # (memory order: the largest stride first)
    mem = x.transpose(order)
    if not mem.flags.c_contiguous:
        return None
    at = order.index(axis)
    run = np.empty(mem.shape, mem.dtype)
    if not k.scan(mem, run, mem.shape[at], math.prod(mem.shape[at + 1:]), prod) or _nan_ends(run, at):
        return None
    if order == sorted(order):
        return run
    out = np.empty(x.shape, mem.dtype)
    copy_into(out, run.transpose(np.argsort(order)))
    return out


def _scan(ufunc: np.ufunc, self: Tensor, dim: Any, dtype: Any, op: str) -> Tensor:
    fast = _fast_scan(ufunc, self, dim) if dtype is None else None
    if fast is not None:
        out, d = fast
        if not OPEN:  # (copied's own first test, without its call and the reason's closure)
            return out
        out_dtype = out._dtype
        return copied(op, (self,), out, lambda: (
            f"{op}: the running {'sum' if op == 'cumsum' else 'product'} along dim {d} of a "
            f"{shape_text(self.shape)} {self._dtype.name} tensor, into new {out_dtype.name} memory"))
    tensor_arg(self, op)
    d = one_dim(self, dim, op)
    out_dtype = _scan_dtype(self, dtype, op)
    # PyTorch overflows to inf (and wraps integers) silently: so does strided
    out = tensor_from_array(quietly(_scan_array, ufunc, self, d, out_dtype), self._layout.shape, out_dtype)
    return copied(op, (self,), out, lambda: (
        f"{op}: the running {'sum' if op == 'cumsum' else 'product'} along dim {d} of a "
        f"{shape_text(self.shape)} {self._dtype.name} tensor, into new {out_dtype.name} memory"))


def _scan_(ufunc: np.ufunc, self: Tensor, dim: Any, dtype: Any, op: str) -> Tensor:
    tensor_arg(self, op)
    d = one_dim(self, dim, op)
    if dtype is not None and to_dtype(dtype) is not self._dtype:
        target = to_dtype(dtype)
        raise StridedRuntimeError(
            join_lines(
                f"Bad in-place call: input tensor dtype {_cpp(self._dtype)} and output tensor dtype "
                f"{_cpp(target)} should match",
                f"{op} writes into this {self._dtype.name} tensor, so dtype= can only be its own; for a "
                f"{target.name} result use the out-of-place form: t.{op[:-1]}({d}, dtype=strided.{target.name})",
            )
        )
    if self._dtype is bool_dtype and self.ndim and self.numel():  # (PyTorch lets 0-d and empty through)
        raise StridedNotImplementedError(
            join_lines(
                f"\"{op[:-1]}_out_cpu\" not implemented for 'Bool'",
                f"a running {'sum' if op == 'cumsum_' else 'product'} of bools counts in integers, which "
                f"this bool tensor cannot hold; fix: t.{op[:-1]}({d}) gives a new int64 tensor",
            )
        )
    if self.ndim and self.numel():  # (uint16/32/64: PyTorch has no in-place kernel; 0-d and empty pass)
        support.check(op, self._dtype, (self,))
    if _scans_in_order(self):
        check_writable(self._storage, self._layout, op)
        _scan_in_torch_order(ufunc, self, d, op)
        return report(op, (self,), self)
    check_writable(self._storage, self._layout, op, updates=True)
    arr = quietly(_scan_array, ufunc, self, d, self._dtype)
    if arr.size:
        np.copyto(self._np(), arr.reshape(self._layout.shape), casting="unsafe")
    return report(op, (self,), self)


# PyTorch's CPU accumulator (at::acc_type<T, false>) of cumsum_/cumprod_'s loop, by storage dtype
_SCAN_ACC = {"float16": np.float32, "bfloat16": np.float32, "float32": np.float64, "float64": np.float64,
             "complex64": np.complex128, "complex128": np.complex128}


def _scans_in_order(self: Tensor) -> bool:
    """Whether ``self.cumsum_`` / ``cumprod_`` is :func:`_scan_in_torch_order`'s: ``self``'s elements
    share memory without a stride-0 dim, outside autograd's graph."""
    lay = self._layout
    if not self.numel() or not may_share_elements(lay.shape, lay.strides) or L.has_internal_overlap(lay.shape, lay.strides):
        return False
    return not (is_grad_enabled() and self.requires_grad)


def _scan_in_torch_order(ufunc: np.ufunc, self: Tensor, d: int, op: str) -> None:
    """``self.cumsum_(d)`` / ``cumprod_(d)`` into a ``self`` whose elements share memory, as
    PyTorch's ``cpu_cum_base_kernel``: for each line along ``d`` in TensorIterator's order (``d``
    squashed), one accumulator (``at::acc_type``: float32 -> float64, float16/bfloat16 -> float32,
    integers -> int64) takes each element as it is in memory then (earlier lines' and this line's
    writes included) and writes its running value back, cast. Refused (nothing written) where
    ``for_each`` splits the lines between threads (grain ``GRAIN_SIZE / size along d``: they race)."""
    lay = self._layout
    n = lay.shape[d]
    squashed = tuple(1 if e == d else m for e, m in enumerate(lay.shape))
    perm, _ = loop_rows(squashed, lay.strides, False, [(squashed, lay.strides)])
    starts = addresses(squashed, lay.strides, lay.offset).transpose(perm[::-1]).ravel()
    threads, grain = torch_threads(), GRAIN_SIZE // max(1, n)
    # (a grain of 0, a line longer than GRAIN_SIZE: parallel_for gives every thread a chunk)
    chunks = (min(threads, starts.size) if grain == 0 else parallel_chunks(starts.size, threads, grain))
    if chunks > 1:
        raise overlapping_write(lay, [], op)
    store = self._storage.array
    acc_type = _SCAN_ACC.get(self._dtype.name, np.int64)
    step = lay.strides[d]
    with np.errstate(all="ignore"):
        for start in starts.tolist():
            acc = acc_type(0 if ufunc is np.add else 1)
            for i in range(n):
                at = start + i * step
                acc = ufunc(acc, acc_type(store[at]))
                store[at] = np.asarray(acc).astype(store.dtype)
    if self._dtype is bfloat16:  # (each write the scalar conversion: a NaN is 0x7FC0)
        number_nans(numpy_view(self._storage, lay))


def _cpp(dtype: DType) -> str:
    return CPP_NAME[dtype.name]


@method("cumsum")
def cumsum(self: Tensor, dim: int, *, dtype: Any = None, out: Any = None) -> Tensor:
    """Running sum along ``dim``: ``out[i] = x[0] + ... + x[i]``; bool/int give int64.

    >>> strided.tensor([1, 2, 3]).cumsum(0)
    tensor([1, 3, 6])
    """
    if out is not None:  # (PyTorch computes in out's dtype, the input converted first, unless dtype= names one)
        own = dtype if dtype is not None or not isinstance(out, Tensor) else out.dtype
        return write_out(out, cumsum(self, dim, dtype=own), "cumsum", (self,), "matmul", reduced=((dim,), False))
    return _scan(np.add, self, dim, dtype, "cumsum")


@method("cumprod")
def cumprod(self: Tensor, dim: int, *, dtype: Any = None, out: Any = None) -> Tensor:
    """Running product along ``dim``: ``out[i] = x[0] * ... * x[i]``; bool/int give int64.

    >>> strided.tensor([1, 2, 3]).cumprod(0)
    tensor([1, 2, 6])
    """
    if out is not None:  # (PyTorch computes in out's dtype, the input converted first, unless dtype= names one)
        own = dtype if dtype is not None or not isinstance(out, Tensor) else out.dtype
        return write_out(out, cumprod(self, dim, dtype=own), "cumprod", (self,), "matmul", reduced=((dim,), False))
    return _scan(np.multiply, self, dim, dtype, "cumprod")


@method("cumsum_")
def cumsum_(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """In-place :func:`cumsum` (in the tensor's own dtype); returns ``self``.

    >>> x = strided.tensor([1, 2, 3])
    >>> x.cumsum_(0).tolist()
    [1, 3, 6]
    """
    return _scan_(np.add, self, dim, dtype, "cumsum_")


@method("cumprod_")
def cumprod_(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """In-place :func:`cumprod` (in the tensor's own dtype); returns ``self``.

    >>> strided.tensor([1, 2, 3]).cumprod_(0).tolist()
    [1, 2, 6]
    """
    return _scan_(np.multiply, self, dim, dtype, "cumprod_")


def _install_scan_fronts(namespace: dict[str, Any]) -> None:
    """Put a compiled front (:mod:`.._support.front`) before the entries of ``cumsum`` and
    ``cumprod`` (function and method): ``x.cumsum(dim)`` of a plain row-major float32/float64
    tensor along its last dim (``dim`` -1 or ndim - 1, positional or keyword; no dtype), outside
    autograd with nobody listening, makes :func:`_fast_scan`'s compiled ``scan`` call from C (a
    last-dim entry: its lines are the rows, ``inner`` 1); a line ending in NaN (``strict``: False,
    where the Python path lets NumPy decide which NaN), and every other call, go to the entry."""
    k = native._compiled("_specialkernel")  # (the module itself: the front reads the switch per call)
    if k is None:
        return
    for name, prod in (("cumsum", False), ("cumprod", True)):
        entry = namespace[name]
        front = compiled_front(entry, 2, {d: (None, True, None, kernel_entry(k.scan, (1, prod, True), d.numpy))
                                          for d in (float32, float64)})
        if Tensor.__dict__.get(name) is entry:
            setattr(Tensor, name, front)
        namespace[name] = front


# ---------------------------------------------------------------- running extremes


_EXTREME_FAST = frozenset((float32, float64, int32, int64))


def _fast_cum_extreme(self: Any, dim: Any, op: str) -> Any:
    """cummax/cummin of a non-empty row-major float32/float64/int32/int64 tensor along an int dim,
    nobody watching: :func:`_running_extreme` on the flat run read in the tensor's shape, the two
    fresh results adopted. None when a precondition fails."""
    if OPEN or type(self) is not Tensor or type(dim) is not int or self._dtype not in _EXTREME_FAST:
        return None
    shape = self._layout.shape
    nd = len(shape)
    if not -nd <= dim < nd:
        return None
    info = _cinfo[shape]
    count = info[1]
    flat = flat_run(self, info) if count else None
    if flat is None:
        return None
    d = dim + nd if dim < 0 else dim
    k = special()
    if k is not None:
        # (the kernel on the flat run straight into the two flat results: _compiled_extreme's
        # call without its checks, shapes and reshapes, ~1.5 us of a 3 us call at (3, 4); the
        # row-major strides in elements are the blocks' inner sizes)
        values, indices = _empty(count, flat.dtype), _empty(count, _INT64_NP)
        # (memory at an odd address: the kernel's False, then _running_extreme's aligned copy)
        if k.running_extreme(flat, values, indices, shape[d], info[0][d], op == "cummax"):
            pair = return_types.cummax if op == "cummax" else return_types.cummin
            return _tuple_new(pair, (adopted(values, info[2], self._dtype), adopted(indices, info[2], int64)))
    values, indices = _running_extreme(flat.reshape(shape), d, op)
    pair = return_types.cummax if op == "cummax" else return_types.cummin
    return pair(adopted(values.reshape(-1), info[2], self._dtype), adopted(indices.reshape(-1), info[2], int64))


_empty = np.empty
_INT64_NP = np.dtype(np.int64)
_tuple_new = tuple.__new__  # (the named tuple made as its __new__ makes it, without that Python-level call)


def _running_extreme(x: np.ndarray, d: int, op: str) -> tuple[np.ndarray, np.ndarray]:
    """The running maximum (cummax) or minimum (cummin) of ``x`` along axis ``d`` and its int64
    indices, as PyTorch's kernel gives them (fresh arrays, C-contiguous when ``x`` is)."""
    compiled = _compiled_extreme(x, d, op)
    if compiled is not None:
        return compiled
    # (without the compiled kernel: NumPy's accumulate finds where the extreme is; its values
    # keep the first of equal ones, -0.0 before 0.0, the first NaN's payload, where PyTorch's
    # take the element at the index: the values are read there below)
    ufunc = np.maximum if op == "cummax" else np.minimum
    values = ufunc.accumulate(x, axis=d)  # NaN propagates: once met, it stays
    # PyTorch's kernel moves the index on every element that equals the running extreme (>=, <=)
    # and on every NaN; so the index is the last position (so far) where x equals the value.
    hit = x == values
    if np_kind(x.dtype) == "f":
        hit |= np.isnan(x)  # (a NaN of x is a NaN of values too: it propagates)
    key = (x.shape[d], x.ndim - 1 - d)
    pos = _POSITIONS[key] if key[0] <= 4096 else _positions(key)
    indices = np.maximum.accumulate(hit * pos, axis=d)
    if np_kind(x.dtype) == "f":
        values = np.take_along_axis(x, indices, axis=d)  # (PyTorch's out = x at each move)
    return values, indices


_EXTREME_NP = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int32), np.dtype(np.int64))


def _compiled_extreme(x: np.ndarray, d: int, op: str) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`_running_extreme` by the compiled kernel (``running_extreme``: PyTorch's loop step
    for step, one pass; NumPy's accumulate along a dim costs 5-15 ns an element, twice) into fresh
    C-contiguous arrays, for a non-empty float32/float64/int32/int64 ``x`` (a copy of it in tiles
    first when it is not row-major); None where the kernel is not built or does not take it."""
    k = special()
    if k is None or x.dtype not in _EXTREME_NP or not x.size:
        return None
    if not x.flags.c_contiguous:
        rows = np.empty(x.shape, x.dtype)
        copy_into(rows, x)
        x = rows
    x = kernel_run(x)  # (memory at an odd address: an aligned copy, which the kernel takes)
    values = np.empty(x.shape, x.dtype)
    indices = np.empty(x.shape, np.int64)
    inner = math.prod(x.shape[d + 1:])
    if not k.running_extreme(x, values, indices, x.shape[d], inner, op == "cummax"):
        return None
    return values, indices


def _positions(key: tuple[int, int]) -> np.ndarray:
    n, after = key
    pos = np.arange(n, dtype=np.int64).reshape((n,) + (1,) * after)
    pos.setflags(write=False)
    return pos


# (size along the dim, dims after it) -> the positions along it, read-only, broadcastable: at
# most 256 arrays of at most 4096 int64 (8 MB); a full Memo computes them per call
_POSITIONS = Memo(_positions, limit=256)


def _cum_extreme(self: Tensor, dim: Any, op: str) -> Any:
    tensor_arg(self, op)
    if self.ndim == 0 and is_dim_int(dim) and dim not in (0, -1):
        raise StridedIndexError(
            join_lines(f"{op}(): Expected reduction dim -1 or 0 for scalar but got {dim}",
                       "a 0-d tensor has one element and no dims: dim 0 (or -1) names it")
        )
    # Note: PyTorch skips the dim check for an empty tensor (cummax(5) of a (1, 0) tensor "works");
    # strided checks it whatever the size.
    d = one_dim(self, dim, op)
    if self.ndim and self.numel():  # (complex, uint16/32/64: no kernel; PyTorch copies 0-d and empty input)
        support.check(op, self._dtype, (self,))
    x = self._np()
    if x.ndim == 0:
        x = x.reshape(1)
    values, indices = _running_extreme(x, d, op)
    shape = self._layout.shape
    v = tensor_from_array(values, shape, self._dtype)
    i = tensor_from_array(indices, shape, int64)
    pair = (return_types.cummax if op == "cummax" else return_types.cummin)(v, i)
    return copied(op, (self,), pair, lambda: (
        f"{op}: the running {'maximum' if op == 'cummax' else 'minimum'} along dim {d} of a "
        f"{shape_text(shape)} tensor, into new memory (values, and int64 indices)"))


@method("cummax")
def cummax(self: Tensor, dim: int, *, out: Any = None) -> Any:
    """Running maximum along ``dim``: ``return_types.cummax(values, indices)``.

    On ties the index is the last occurrence; a NaN sticks (value NaN, index of the latest NaN).

    >>> strided.tensor([1., 3., 2., 3.]).cummax(0).indices
    tensor([0, 1, 1, 3])
    """
    if out is not None:
        return write_pair_out(out, lambda: cummax(self, dim), "cummax", (self,), style="scalar_type", overlap="")
    fast = _fast_cum_extreme(self, dim, "cummax")  # (here, not in _cum_extreme: one call less)
    return fast if fast is not None else _cum_extreme(self, dim, "cummax")


@method("cummin")
def cummin(self: Tensor, dim: int, *, out: Any = None) -> Any:
    """Running minimum along ``dim``: ``return_types.cummin(values, indices)`` (ties: last occurrence).

    >>> r = strided.tensor([3, 1, 2, 0]).cummin(0)
    >>> r.values.tolist(), r.indices.tolist()
    ([3, 1, 1, 0], [0, 1, 1, 3])
    """
    if out is not None:
        return write_pair_out(out, lambda: cummin(self, dim), "cummin", (self,), style="scalar_type", overlap="")
    fast = _fast_cum_extreme(self, dim, "cummin")  # (here, not in _cum_extreme: one call less)
    return fast if fast is not None else _cum_extreme(self, dim, "cummin")


# ---------------------------------------------------------------- diff


def _joined_part(self: Tensor, other: Any, d: int, name: str) -> Tensor | None:
    if other is None:
        return None
    if not isinstance(other, Tensor):
        raise StridedTypeError(
            join_lines(
                f"diff(): argument '{name}' must be Tensor, not {type_name(other)}",
                f"got {name}={other!r:.40}; wrap a number as a tensor of the input's rank, e.g. "
                f"strided.full({tuple(1 if i == d else s for i, s in enumerate(self.shape))}, value)",
            )
        )
    if other.ndim != self.ndim:
        raise StridedRuntimeError(
            join_lines(
                "diff expects prepend or append to be the same dimension as input",
                f"the input has shape {shape_text(self.shape)} ({self.ndim} dims) but {name} has shape "
                f"{shape_text(other.shape)} ({other.ndim} dims); give {name} the input's rank "
                "(unsqueeze or reshape it)",
            )
        )
    for i, (a, b) in enumerate(zip(self.shape, other.shape)):
        if i != d and a != b:
            raise StridedRuntimeError(
                join_lines(
                    "diff expects the shape of tensor to prepend or append to match that of input except "
                    f"along the differencing dimension; input.size({i}) = {a}, but got tensor.size({i}) = {b}",
                    f"the input has shape {shape_text(self.shape)} and {name} {shape_text(other.shape)}: "
                    f"only dim {d} (the one differenced) may differ",
                )
            )
    return other


_FAST_DIFF = (float32, float64, int64)


def _dense_diff_plan(shape: tuple[int, ...], strides: tuple[int, ...], axis: int) -> tuple | None:
    """For a permuted dense input (:func:`strided.kernels.memory.dense_run`) differenced along
    ``axis``: its shape in memory order (outermost first), ``axis``'s place in it and the
    result's Layout, where the result laid out in that same memory order (row-major there) has
    the strides the general path gives it (TensorIterator's, of the two narrowed views); None
    where they differ (a dim narrowed to size 1 may reorder). Remembered per (shape, strides,
    axis)."""
    key = (shape, strides, axis)
    plan = _DIFF_PLANS.get(key, False)
    if plan is False:
        order = sorted(range(len(shape)), key=lambda i: -strides[i])  # (dense: distinct strides)
        mem_shape = tuple(shape[i] for i in order)
        p = order.index(axis)
        out_shape = shape[:axis] + (shape[axis] - 1,) + shape[axis + 1:]
        dense = L.contiguous_strides(mem_shape[:p] + (mem_shape[p] - 1,) + mem_shape[p + 1:])
        out_strides = [0] * len(shape)
        for j, i in enumerate(order):
            out_strides[i] = dense[j]
        planned = elementwise_output_strides(out_shape, [(out_shape, strides), (out_shape, strides)])
        plan = ((mem_shape, p, L.Layout._trusted(out_shape, tuple(out_strides), 0))
                if tuple(out_strides) == tuple(planned) else None)
        if len(_DIFF_PLANS) < 256:
            _DIFF_PLANS[key] = plan
    return plan


# (shape, strides, axis) -> _dense_diff_plan's answer
_DIFF_PLANS: dict[tuple, tuple | None] = {}


def _fast_diff(self: Any, dim: Any) -> Tensor | None:
    """The first forward difference of a row-major or permuted dense float32 / float64 / int64
    tensor along an int ``dim`` (at least 2 entries there) with no prepend/append: one
    ``np.subtract`` of the two narrowed views of its flat run (for a permuted one, its run in
    memory order, differenced along ``dim``'s place there), NumPy's fresh C-contiguous result
    adopted (row-major, or the permuted input's order: the strides the general path gives it),
    without the general path's parsing and stride planning. Each element is the one subtraction
    either way. None where it does not apply (the general path runs and raises)."""
    if (self.__class__ is not Tensor and self.__class__ not in SUBCLASSES) or dim.__class__ is not int:
        return None
    d = self._dtype
    if d not in _FAST_DIFF:
        return None
    shape = self._layout.shape
    ndim = len(shape)
    if not -ndim <= dim < ndim:  # (0-d too: ndim 0 admits no dim)
        return None
    axis = dim % ndim
    if shape[axis] < 2:
        return None
    info = _cinfo[shape]
    flat = flat_run(self, info)
    layout = None
    if flat is None:
        dense = dense_run(self, info[1])
        if dense is None:
            return None
        plan = _dense_diff_plan(shape, self._layout.strides, axis)
        if plan is None:
            return None
        flat = dense[0]
        shape, axis, layout = plan  # (the memory-order run: its own row-major difference)
    k = special()
    if k is not None and flat.flags.aligned:  # (unaligned, a from_numpy view: NumPy's subtract)
        # one pass of the compiled loop: NumPy's iterator walks the narrowed views row by row, ~3x
        # the time of a flat subtract where the rows are short (dim=-1)
        inner = math.prod(shape[axis + 1:])
        res = np.empty(shape[:axis] + (shape[axis] - 1,) + shape[axis + 1:], flat.dtype)
        if k.diff_blocks(flat, res, shape[axis] * inner, inner):
            return adopted(res.reshape(-1), layout or _cinfo[res.shape][2], d)
    x = flat.reshape(shape)
    hi = (slice(None),) * axis + (slice(1, None),)
    lo = (slice(None),) * axis + (slice(0, -1),)
    try:  # fpstate.quietly, inlined: inf - inf is NaN, silently
        res = quiet_call(np.subtract, x[hi], x[lo])
    except RuntimeError as e:
        res = quiet_retry(e, np.subtract, x[hi], x[lo])
    return adopted(res.reshape(-1), layout or _cinfo[res.shape][2], d)


@method("diff")
def diff(self: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None, *, out: Any = None) -> Tensor:
    """The ``n``-th forward difference along ``dim``: ``out[i] = x[i + 1] - x[i]``, applied ``n``
    times (bool: ``x[i + 1] != x[i]``); ``prepend``/``append`` are joined along ``dim`` first.

    ``n`` larger than the size gives an empty dim. # Note: ``n=0`` (or an ``n`` that an empty dim
    clamps to 0) gives a copy; PyTorch returns the input itself in the second case.

    >>> strided.tensor([1, 4, 9, 16]).diff()
    tensor([3, 5, 7])
    """
    if out is not None:  # (into any dtype the result casts to, as PyTorch's)
        return write_out(out, diff(self, n, dim, prepend, append), "diff", (self, n, dim, prepend, append),
                         through_temporary=True)
    if n == 1 and prepend is None and append is None:
        fast = _fast_diff(self, dim)
        if fast is not None:
            return copied("diff", (self,), fast, lambda: (
                f"diff: the forward difference along dim {dim % self.ndim} of a {shape_text(self.shape)} "
                "tensor, into new memory"))
    tensor_arg(self, "diff")
    n = int_arg(n, "diff", "n", 2)
    if self.ndim == 0:
        raise StridedRuntimeError(
            join_lines("diff expects input to be at least one-dimensional",
                       "a 0-d tensor has no dim to difference along; reshape(1) makes it 1-d")
        )
    if n < 0:
        raise StridedRuntimeError(
            join_lines(f"order must be non-negative but got {n}",
                       "n is how many times the difference is taken: 0, 1, 2, ...")
        )
    # PyTorch checks prepend/append (wrapping dim) first, and dim itself only when it differences
    d = one_dim(self, dim, "diff") if n or prepend is not None or append is not None else 0
    pre = _joined_part(self, prepend, d, "prepend")
    post = _joined_part(self, append, d, "append")
    parts = [p for p in (pre, self, post) if p is not None]
    if n and len(parts) > 1:
        dtype = parts[0]._dtype
        for p in parts[1:]:
            dtype = promote_types(dtype, p._dtype)
        x = np.concatenate([p._np().astype(dtype.numpy, copy=False) for p in parts], axis=d)
        shape, strides = x.shape, L.contiguous_strides(x.shape)
    else:  # Note: with n=0 PyTorch returns a copy of the input alone, prepend/append dropped
        dtype = self._dtype
        x = self._np()
        shape = self._layout.shape
        strides = self._layout.strides
        if n == 0 or shape[d] == 0:
            strides = preserve_format_strides(shape, strides)
    n = min(n, shape[d]) if shape else 0
    if n == 0:
        out = result(shape, dtype, tuple(strides))
        np.copyto(out._np(), x)
    else:
        support.check("diff", dtype, (self,))  # (uint16/32/64: PyTorch's sub has no kernel)
        kernel = np.not_equal if dtype is bool_dtype else np.subtract
        for _ in range(n):
            length = shape[d] - 1
            shape = shape[:d] + (length,) + shape[d + 1:]
            # PyTorch subtracts two narrowed views of one layout: TensorIterator's output order
            strides = elementwise_output_strides(shape, [(shape, strides), (shape, strides)])
            out = result(shape, dtype, strides)
            hi = [slice(None)] * len(shape)
            lo = [slice(None)] * len(shape)
            hi[d], lo[d] = slice(1, None), slice(0, length)
            if dtype.is_complex:  # (PyTorch's complex sub: x + (-1+0j) * y, an inf part of y making its partner NaN)
                quietly(np.add, x[tuple(hi)], quietly(np.multiply, x[tuple(lo)], dtype.numpy.type(-1)), out=out._np())
            else:
                quietly(kernel, x[tuple(hi)], x[tuple(lo)], out=out._np())  # inf - inf is NaN, silently
            x = out._np()
    return copied("diff", (self,), out, lambda: (
        f"diff: the {'forward difference' if n == 1 else f'{n}-th forward difference'} along dim {d} "
        f"of a {shape_text(self.shape)} tensor, into new memory"))


# ---------------------------------------------------------------- backward rules
# PyTorch's formulas (derivatives.yaml, FunctionsManual.cpp): one NumPy kernel per rule, no
# element loops.


def _reverse_cumsum(a: np.ndarray, d: int, dtype: DType) -> np.ndarray:
    """``out[i] = a[i] + a[i + 1] + ...`` along ``d`` (the adjoint of a running sum) in ``dtype``,
    as PyTorch's ``reversed_cumsum`` (``a.flip(d).cumsum(d).flip(d)``): its running sum, float32
    accumulated in float64 and started from +0.0 (NumPy's float32 cumsum rounds each step)."""
    return np.flip(scan_values(np.add, np.flip(a, d), d, dtype), d)


def _scan_dim(x: Tensor, dim: Any) -> int:
    return dim % x.ndim if x.ndim else 0


@backward("cumsum")
def cumsum_backward(out: Tensor, x: Tensor, dim: int, **kwargs: Any) -> Any:
    """Each element is read by every running sum from its position on: the gradient is the
    reversed running sum of g."""
    d = _scan_dim(x, dim)

    def grads(g: Tensor) -> tuple:
        if not x.ndim or x.numel() <= 1 or x._layout.shape[d] == 1:
            return (g,)  # (PyTorch's cumsum_backward passes g on as it is: -0.0 kept)

        def reversed_cumsum(g: Tensor) -> Tensor:
            # the running sum of the reversed gradient (cumsum's own, as PyTorch's), reversed
            gx, arr = result_array(x._layout.shape, g._dtype)
            with np.errstate(all="ignore"):
                arr[...] = _reverse_cumsum(g._np(), d, g._dtype)
            return gx

        # (linear in g: the adjoint of the reversed running sum is the running sum)
        return (linear("CumsumBackwardBackward0", g, reversed_cumsum, lambda gg: gg.cumsum(d)),)

    # PyTorch's convention for complex gradients (real coefficients: the same map), so the
    # recording leaves it unconjugated: conjugated around, the running sum from +0.0 of conj(g)
    # turned a gradient's +0.0 imaginary parts into -0.0 (PyTorch: +0.0)
    grads.pytorch_convention = True  # type: ignore[attr-defined]
    return "CumsumBackward0", (x,), grads, ()


def _cumprod_grad_ops(x: Tensor, out: Tensor, g: Tensor, d: int) -> Tensor:
    """PyTorch's ``cumprod_backward`` (FunctionsManual.cpp) step by step, with strided's ops, so
    each product, running sum and quotient is rounded as PyTorch's own op rounds it (complex ones
    by the place they fall at in their loops): ``w = conj(out) * g``; without a zero,
    ``reversed_cumsum(w) / conj(x)`` (recorded where grad mode is on: create_graph); with one,
    its masks: before a line's first zero that quotient, at it ``conj(out[z-1])`` times the sum of
    ``g`` times the running product of ``conj(x)`` strictly between the first and the second zero,
    after it 0. ``g`` is already in x's dtype (derivatives.yaml's ``grad.to(self.scalar_type())``)."""
    xc, oc = x.conj(), out.conj()  # (real: the tensors themselves; complex: copies in their layouts)
    w = oc * g
    is_zero = x == 0
    if not bool(is_zero.any()):
        return w.flip(d).cumsum(d).flip(d).div(xc)
    if is_grad_enabled():
        return _cumprod_grad_differentiable(xc, g, d)
    grad_input = gradtools.grad_zeros(x._layout.shape, g._dtype)
    zeros_so_far = is_zero.cumsum(d)
    mask = zeros_so_far == 0  # [0, z1)
    # (the sources are in out's dtype where cumprod(dtype=) widened it: written into grad_input's
    # as PyTorch's masked_scatter_ there writes them)
    before = w.masked_fill(~mask, 0.0).flip(d).cumsum(d).flip(d).div_(xc).masked_select(mask)
    grad_input.masked_scatter_(mask, before.to(g._dtype))
    mask = zeros_so_far == 1  # [z1, z2)
    first = mask.max(d, keepdim=True)[1]
    first_mask = mask.new_zeros(mask.shape).scatter_(d, first, 1).logical_and_(mask)
    mask &= ~first_mask  # (z1, z2)
    prev = oc.gather(d, (first - 1).relu_()).masked_fill_(first == 0, 1.0)
    at_zero = xc.masked_fill(~mask, 1.0).cumprod(d).mul_(g.masked_fill(zeros_so_far != 1, 0.0)).sum(d, keepdim=True)
    grad_input.masked_scatter_(first_mask, at_zero.mul_(prev).masked_select(first_mask).to(g._dtype))
    return grad_input


def _cumprod_grad_differentiable(xc: Tensor, g: Tensor, d: int) -> Tensor:
    """PyTorch's cumprod_backward under grad mode with a zero in the input (create_graph): its
    O(n^2) form, differentiable everywhere. Element ``k``'s gradient is ``sum_j g[j] * dy_j/dx_k``
    over ``j >= k``, with ``dy_j/dx_k`` the product of ``conj(x)`` up to ``j`` leaving ``k`` out:
    ``prod(x[:k])`` times the running product of ``x[k+1:]`` (``1`` first). Each slice's sum is
    stacked along ``d`` (PyTorch copies it into ``select(d, k)`` of zeros: the same values)."""
    from ..shape.joining import cat, stack

    n = xc._layout.shape[d]
    ones = gradtools.grad_zeros(tuple(1 if k == d else s for k, s in enumerate(xc._layout.shape)), g._dtype) + 1
    slices = []
    for k in range(n):
        if k == 0:
            omitted = cat([ones, xc.narrow(d, 1, n - 1).cumprod(d)], d)
        else:
            until = xc.narrow(d, 0, k).prod(d, keepdim=True)
            if k == n - 1:
                omitted = until
            else:
                after = xc.narrow(d, k + 1, n - k - 1).cumprod(d)
                omitted = cat([until, until.expand_as(after) * after], d)
        slices.append((g.narrow(d, k, n - k) * omitted).sum(d))
    return stack(slices, d)


@backward("cumprod")
def cumprod_backward(out: Tensor, x: Tensor, dim: int, **kwargs: Any) -> Any:
    d = _scan_dim(x, dim)

    def grads(g: Tensor) -> tuple:
        # As PyTorch's cumprod_backward: at most one element, or lines of one element, pass g on
        # as it is (not g * out / x: a rounding off, and with create_graph a term in x whose
        # second derivative is a small nonzero number where PyTorch's is none)
        if not x.ndim or x.numel() <= 1 or x._layout.shape[d] == 1:
            return (g,)
        gx = _cumprod_grad_ops(x, out, g.to(x._dtype), d)
        if gx._dtype.is_complex and not x._dtype.is_complex:
            raise _complex_grad_of_real()
        return (gx,)

    # written in PyTorch's convention for complex gradients (its conj(out), conj(x))
    grads.pytorch_convention = True  # type: ignore[attr-defined]
    return "CumprodBackward0", (x,), grads, (x, out)


def _complex_grad_of_real() -> StridedRuntimeError:
    """PyTorch's error for cumprod(dtype=<complex>) of a real input: its cumprod_backward on
    ``grad.to(self.scalar_type())`` and the complex ``out`` gives a complex gradient (without a
    zero; with one, its masked_scatter_ raises the cast error first), which the engine's
    validate_outputs refuses for a real input (strided's engine would take its real part)."""
    return StridedRuntimeError(join_lines(
        "Expected isFloatingType(grad.scalar_type()) || (input_is_complex == grad_is_complex) to be true, "
        "but got false.",
        "cumprod's gradient of a real input computed with dtype=<complex> is complex (PyTorch's "
        "cumprod_backward multiplies by the complex result), and autograd refuses a complex gradient "
        "for a real input",
        "fix: make the input complex before cumprod (x.to(<complex dtype>).cumprod(dim)), or take "
        "cumprod in a real dtype"))


def _cum_extreme_rule(node: str) -> Any:
    def rule(out: Any, x: Tensor, dim: int) -> Any:
        """The gradient of each running extreme goes to the element it came from (its index)."""
        d = _scan_dim(x, dim)
        indices = out[1]

        def grads(g: Tensor) -> tuple:
            if not x.ndim:
                return (g,)
            if not x.numel():
                # PyTorch's cummaxmin_backward returns the (empty) input itself: with create_graph
                # the gradient depends on x, not on g (a view here, recorded when grad mode is on)
                return (x.view_as(x),)
            return (gradtools.grad_zeros(x._layout.shape, g._dtype).scatter_add(d, indices, g),)

        return node, (x,), grads, (x, indices)  # (PyTorch saves self: its version is checked)

    return rule


backward("cummax", complex_grad=False)(_cum_extreme_rule("CummaxBackward0"))
backward("cummin", complex_grad=False)(_cum_extreme_rule("CumminBackward0"))


def _diff_grad_recorded(g: Tensor, n: int, d: int, sizes: list[int | None]) -> tuple:
    """diff's gradient with recording ops (create_graph): ``n`` times the adjoint of one
    difference (``g`` padded by a zero on each side along ``d``, the right plus the left negated), then
    cut into the pieces of prepend, input and append (None for an absent one: ``sizes``' None)."""
    from ..shape.joining import cat

    for _ in range(min(n, sum(s or 0 for s in sizes))):
        zero = gradtools.grad_zeros(tuple(1 if k == d else s for k, s in enumerate(g._layout.shape)), g._dtype)
        g = cat([zero, g], d) + cat([-g, zero], d)  # (PyTorch's: -g placed in zeros, then added)
    pieces, at = [], 0
    for s in sizes:
        pieces.append(None if s is None else g.narrow(d, at, s))
        at += s or 0
    return tuple(pieces)


@backward("diff", operands="any")
def diff_backward(out: Tensor, x: Tensor, n: int = 1, dim: int = -1, prepend: Any = None,
                  append: Any = None) -> Any:
    """The adjoint of the difference, ``n`` times (out[i] = x[i+1] - x[i] sends g[i] to x[i+1] and
    -g[i] to x[i]), then cut into the pieces of prepend, input and append.

    # Note: PyTorch builds diff from narrow and sub (its node is the last sub's, SubBackward0);
    # strided records one node under that name.
    """
    d = x.ndim and dim % x.ndim
    # (None: absent; a present piece of size 0 along d still gets its empty gradient, as PyTorch's)
    sizes = [p._layout.shape[d] if isinstance(p, Tensor) else None for p in (prepend, x, append)]
    total = sum(s or 0 for s in sizes)

    def grads(g: Tensor) -> tuple:
        # create_graph: the same adjoint, recorded; complex: by the tensor ops too, for PyTorch's
        # complex neg (its zero signs are not NumPy's negative's)
        if n and ((g._ag is not None and is_grad_enabled()) or g._dtype.is_complex):
            return _diff_grad_recorded(g, n, d, sizes)
        a = g._np()
        for _ in range(min(n, total) if n else 0):
            pad = [(0, 0)] * a.ndim
            pad[d] = (1, 0)
            hi = np.pad(a, pad)
            pad[d] = (0, 1)
            # (as PyTorch's narrow/sub: -g placed in zeros and added, so a -0.0 of g next to a
            # placed zero sums to +0.0; hi - pad(g) kept it, as -0.0 - +0.0)
            a = hi + np.pad(-a, pad)
        if not n:
            return (None, g, None)
        pieces = np.split(a, np.cumsum([s or 0 for s in sizes])[:2], axis=d)
        return tuple(None if s is None else gradtools.from_numpy_result(p, g._dtype) for p, s in zip(pieces, sizes))

    inputs = (prepend, x, append) if prepend is not None or append is not None else (x,)
    name = "SubBackward0" if n else "torch::autograd::CopyBackwards"  # (n=0: PyTorch's copy)
    # (it only moves, negates and adds g's elements: the same formula in PyTorch's convention for
    # complex gradients; conjugated around, its zeros came out as -0.0 imaginary parts)
    return name, inputs, in_pytorch_convention(lambda g: grads(g) if len(inputs) == 3 else grads(g)[1:2]), ()


def _fast_logcumsumexp(self: Any, dim: Any) -> Tensor | None:
    """:func:`logcumsumexp` of a row-major float32 / float64 tensor with elements along an int
    ``dim``: the general path's one ``np.logaddexp.accumulate`` on the same view (float32's in
    float64, :func:`_accumulate`), its fresh C-contiguous result adopted; None where the general
    path must run (its errors)."""
    if (self.__class__ is not Tensor and self.__class__ not in SUBCLASSES) or dim.__class__ is not int:
        return None
    d = self._dtype
    if d is not float32 and d is not float64:
        return None
    shape = self._layout.shape
    ndim = len(shape)
    info = _cinfo[shape]
    if not ndim or not -ndim <= dim < ndim or not info[1]:
        return None
    flat = flat_run(self, info)
    if flat is None:
        return _dense_logcumsumexp(self, dim, info)
    scan = _compiled_scan(d)
    if scan is not None:
        # (the compiled scan: NumPy's logaddexp of each step, the C library's exp and log1p in its
        # operand order, and the first value plus zero, in one pass without the ufunc machinery:
        # the same bits; (3, 4) float32 4.2 -> ~1.5 us, (16, 16) 11.8 -> ~4 us)
        a = ndim - 1 if dim == -1 else dim % ndim
        res = _empty(info[1], flat.dtype)
        if scan(flat, res, shape[a], info[0][a]):
            return adopted(res, info[2], d)
    res = _accumulate(flat.reshape(shape), dim % ndim)
    return adopted(res.reshape(-1), info[2], d)


def _compiled_scan(d: Any) -> Any:
    """The compiled scan of dtype ``d`` (float32 / float64), ``scan(x, out, n, inner) -> bool``:
    float64's ``logaddexp_scan``, float32's ``logaddexp_scan_wide`` (PyTorch's running value in
    double, each step rounded to float); None where the kernel is not built, or its C library's
    exp and log1p do not give NumPy's float64 bits here (both scans step in double by them), so
    :func:`_accumulate` runs."""
    k = special()
    if k is None or not (_SCAN_AGREES.get(float64) if float64 in _SCAN_AGREES else _scan_agrees(k, float64)):
        return None
    return k.logaddexp_scan_wide if d is float32 else k.logaddexp_scan


def _accumulate(a: np.ndarray, axis: int) -> np.ndarray:
    """PyTorch's logcumsumexp of a float32 / float64 array along ``axis``, a fresh array of its
    dtype: each running value logaddexp(previous, x) (NumPy's ``logaddexp.accumulate``), the first
    x + 0. As PyTorch's CPU kernel (its acc_type), float32 runs in float64 and each step is rounded
    to float32 (NumPy's float32 accumulate differed in the last bit in ~70% of drawn lines)."""
    wide = a.astype(np.float64) if a.dtype == np.float32 else a
    try:  # fpstate.quietly, inlined
        res = quiet_call(np.logaddexp.accumulate, wide, axis)
    except RuntimeError as e:
        res = quiet_retry(e, np.logaddexp.accumulate, wide, axis)
    _first_plus_zero(res, axis)
    return res.astype(np.float32) if a.dtype == np.float32 else res


# The fewest elements for which _dense_logcumsumexp scans in memory order: below it the general
# path's accumulate over the strided view costs about as much as the scan and the copy.
_DENSE_SCAN_MIN = 1 << 12


def _dense_logcumsumexp(self: Tensor, dim: int, info: tuple) -> Tensor | None:
    """:func:`_fast_logcumsumexp` of a dense tensor laid out in another order (a transpose, a
    permute: its elements tile one run of its storage) along ``dim`` (an int in range): the
    compiled scan walks the run in memory order (the scanned dim has ``n`` elements ``inner``
    apart, the blocks of ``n * inner`` elements tile the run), then the blocked copy writes that
    into the fresh row-major result PyTorch gives. Each line's values are the general path's
    (the same steps of the same line, only visited in another order); a transposed 2^20-element
    float32 along its storage's outer dim 38 ms -> 11 ms. None where that does not apply: the
    general path runs."""
    lay = self._layout
    shape, strides = lay.shape, lay.strides
    ndim = len(shape)
    a = dim % ndim
    n, numel = shape[a], info[1]
    if numel < _DENSE_SCAN_MIN or n < 2 or not L.is_non_overlapping_and_dense(shape, strides):
        return None
    run = self._storage.array[lay.offset: lay.offset + numel]
    d = self._dtype
    scan = _compiled_scan(d)
    if len(run) != numel or not run.flags.aligned or scan is None:
        return None
    scanned = np.empty(numel, run.dtype)  # (the scan in the run's memory order)
    if not scan(run, scanned, n, strides[a]):
        return None
    res = np.empty(numel, run.dtype)
    size = run.dtype.itemsize
    laid = np.ndarray(shape, run.dtype, scanned, 0, tuple(s * size for s in strides))
    copy_into(res.reshape(shape), laid)
    return adopted(res, info[2], d)


_SCAN_AGREES: dict[Any, bool] = {}


def _scan_agrees(k: Any, d: Any) -> bool:
    """Whether the compiled ``logaddexp_scan`` gives NumPy's own bits for dtype ``d`` in this
    process, checked once (first use) on every pair of special values and 2^12 pairs each of spread
    bit patterns and ordinary numbers, as two-element rows (the first value plus zero, then one
    logaddexp of it): the scan calls the C library's exp and log1p as NumPy's scalar loop does, which
    a NumPy built otherwise would not. Where it disagrees, NumPy's accumulate runs (the general path)."""
    dt = d.numpy
    with np.errstate(over="ignore"):
        sp = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 88.0, -88.0, 104.0, -104.0, 710.0, -745.0, 1e-30, 1e-45,
                       5e-324, 3e38, -3e38, 1.7e308, np.inf, -np.inf, np.nan, -np.nan]).astype(dt)
    rng = np.random.default_rng(19)
    u = np.dtype(f"u{dt.itemsize}")
    bits = rng.integers(0, np.iinfo(u).max, (2, 1 << 12), dtype=u, endpoint=True).view(dt)
    plain = rng.uniform(-30, 30, (2, 1 << 12)).astype(dt)
    x = np.stack([np.concatenate([np.repeat(sp, len(sp)), bits[0], plain[0]]),
                  np.concatenate([np.tile(sp, len(sp)), bits[1], plain[1]])], axis=1)
    with np.errstate(all="ignore"):
        want = np.logaddexp.accumulate(x, axis=1)
        _first_plus_zero(want, 1)
    got = np.empty_like(x)
    agrees = bool(k.logaddexp_scan(x.reshape(-1), got.reshape(-1), 2, 1)) and got.tobytes() == want.tobytes()
    _SCAN_AGREES[d] = agrees
    return agrees


def _first_plus_zero(r: np.ndarray, axis: int) -> None:
    """``r``'s first slice along ``axis`` plus 0.0, in place: PyTorch's first running value is
    ``logaddexp(-inf, x)`` = ``x + log1p(0)``, so a -0.0 there is +0.0 (NumPy's accumulate copies
    ``x``); every other value is unchanged."""
    first = r[(slice(None),) * axis + (slice(0, 1),)]
    np.add(first, r.dtype.type(0), out=first)


def _complex_logcumsumexp(a: np.ndarray, axis: int) -> np.ndarray:
    """PyTorch's CPU complex logcumsumexp of ``a`` (complex64/complex128, non-empty, >= 1-d)
    along ``axis``: the running value, in complex128 (``acc_type`` on the CPU: complex64 is
    accumulated in double and rounded at each write), starts at ``-inf + 0j`` and takes
    ``_log_add_exp_helper(x, running)`` (ATen's ``cpu/LogAddExp.h``) at each step, vectorized over
    the other dims. complex64 results are PyTorch's bits; complex128 ones may differ in the last
    bit where NumPy's complex exp/log round otherwise than the C library's (README: known
    exceptions)."""
    moved = np.moveaxis(a, axis, 0)
    out = np.empty(moved.shape, a.dtype)
    running = np.full(moved.shape[1:], complex(-np.inf, 0.0), np.complex128)
    with np.errstate(all="ignore"):
        for i in range(moved.shape[0]):
            running = _log_add_exp(moved[i].astype(np.complex128), running)
            out[i] = running
    return np.moveaxis(out, 0, axis)


def _log_add_exp(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """ATen's complex ``_log_add_exp_helper(x, y)`` elementwise: min and max by real part (a NaN
    in either part of ``y``, else of ``x``, is both); a NaN min gives NaN + NaNj; equal infinite
    real parts give min (-inf) or ``log(exp(min) + exp(max))`` (+inf); otherwise
    ``log1p(exp(min - max)) + max`` with c10's complex log1p."""
    y_nan = np.isnan(y.real) | np.isnan(y.imag)
    x_nan = np.isnan(x.real) | np.isnan(x.imag)
    x_lower = x.real < y.real
    low = np.where(y_nan, y, np.where(x_nan, x, np.where(x_lower, x, y)))
    high = np.where(y_nan, y, np.where(x_nan, x, np.where(x_lower, y, x)))
    res = _c10_log1p(np.exp(low - high)) + high
    lr = low.real
    infinite = ~np.isfinite(lr) & (lr == high.real)
    if infinite.any():
        res = np.where(infinite, np.where(lr < 0, low, np.log(np.exp(low) + np.exp(high))), res)
    nan = np.isnan(lr) | np.isnan(low.imag)
    if nan.any():
        res = np.where(nan, complex(np.nan, np.nan), res)
    return res


def _c10_log1p(z: np.ndarray) -> np.ndarray:
    """c10's complex ``log1p`` on the CPU (``c10/util/complex_math.h``, after NumPy's PR 22611):
    ``u = z + 1``; ``z`` where ``u == 1``; ``log(u)`` where ``u - 1 == z``; else
    ``log(u) * (z / (u - 1))``, the division as :func:`_c10_divide`."""
    u = z + 1.0
    w = u - 1.0
    log_u = np.log(u)
    res = np.where(w == z, log_u, log_u * _c10_divide(z, np.where(w == 0, 1.0, w)))
    return np.where(u == 1.0, z, res)


def _c10_divide(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """c10's complex division (Smith's, NumPy's algorithm) as PyTorch's CPU kernels compile it:
    the compiler fuses ``c + d * rat``, ``a + b * rat`` and ``b - a * rat`` into FMAs (AVX2
    builds), so each is rounded once: C's ``fma`` (the compiled ``fma_f64``), or where it is not
    built a long-double stand-in (64-bit significand: the product exact or nearly, the result the
    fused one except in rare double-rounding cases)."""
    a, b, c, d = p.real, p.imag, q.real, q.imag
    return _c10_divide_parts(a, b, c, d, _fma)


def _fma(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """``x * y + z`` elementwise (float64, broadcast), rounded once where the compiled ``fma_f64``
    runs; else the long-double stand-in."""
    x, y, z = (np.ascontiguousarray(v, np.float64) for v in np.broadcast_arrays(x, y, z))
    k = special()
    run = getattr(k, "fma_f64", None) if k is not None else None
    if run is not None:
        out = np.empty(x.shape, np.float64)
        if run(x, y, z, out):
            return out
    wide = np.longdouble
    return (x.astype(wide) * y.astype(wide) + z.astype(wide)).astype(np.float64)


def _c10_divide_parts(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray, fma: Any) -> np.ndarray:
    """Smith's division ``(a + bi) / (c + di)`` with ``fma`` for its three fused steps."""
    by_c = np.abs(c) >= np.abs(d)
    rat = np.where(by_c, d / c, c / d)
    big, small = np.where(by_c, c, d), np.where(by_c, d, c)
    scl = 1.0 / fma(small, rat, big)
    re = np.where(by_c, fma(b, rat, a), fma(a, rat, b)) * scl
    im = np.where(by_c, fma(-a, rat, b), fma(b, rat, -a)) * scl
    out = np.empty(np.broadcast(a, b, c, d).shape, np.complex128)
    out.real, out.imag = re, im
    return out


@method("logcumsumexp")
def logcumsumexp(self: Tensor, dim: int, *, out: Any = None) -> Tensor:
    """``log(cumsum(exp(self), dim))`` without overflow: each running result is
    ``logaddexp(previous, x)`` (NumPy's ``logaddexp.accumulate``; float16 computed in float32);
    floating and complex inputs, as PyTorch's CPU kernel (complex: :func:`_complex_logcumsumexp`,
    ATen's complex helper step for step). The result
    is contiguous; ``out=`` must have the input's dtype.

    >>> strided.tensor([0.0, 0.0, 0.0]).logcumsumexp(0)
    tensor([0.0000, 0.6931, 1.0986])
    """
    if out is None:
        fast = _fast_logcumsumexp(self, dim)
        if fast is not None:
            return report("logcumsumexp", (self,), fast)
    x = tensor_arg(self, "logcumsumexp")
    if not (x._dtype.is_floating_point or x._dtype.is_complex):
        from .._support.operands import _not_implemented

        raise _not_implemented("logcumsumexp_out_cpu", x._dtype, (x,),
                               "fix: convert first, e.g. x.to(strided.float32)")
    d = one_dim(x, dim, "logcumsumexp")
    work = np.float32 if x._dtype in REDUCED_FLOATS else x._dtype.numpy
    a = x._np().astype(work, copy=False)
    if x._dtype.is_complex:
        r = _complex_logcumsumexp(a, d) if a.ndim and a.size else a.copy()
    elif x._dtype in REDUCED_FLOATS and a.ndim and a.size:  # (their acc_type is float: NumPy's float32 steps)
        with np.errstate(all="ignore"):
            r = np.logaddexp.accumulate(a, axis=d)
            _first_plus_zero(r, d)
    else:
        r = _accumulate(a, d) if a.ndim and a.size else a.copy()
    res = report("logcumsumexp", (x,), tensor_from_array(r, x._layout.shape, x._dtype))
    if out is not None:
        from .._support.out import check_out, write_out

        o = check_out(out, "logcumsumexp")
        if o._dtype is not x._dtype:
            raise StridedRuntimeError(join_lines(
                f"expected scalar_type {TORCH_NAME[x._dtype.name]} but found {TORCH_NAME[o._dtype.name]}",
                f"logcumsumexp computes {x._dtype.name}; out= is {o._dtype.name}",
                f"fix: out= a {x._dtype.name} tensor"))
        return write_out(o, res, "logcumsumexp", (x,), reduced=((dim,), False))
    return res


@backward("logcumsumexp")
def logcumsumexp_backward(out: Tensor, x: Tensor, dim: int, **kwargs: Any) -> Any:
    """PyTorch's logcumsumexp_backward (FunctionsManual.cpp): the gradient split by sign into
    log-magnitudes, each a reversed logcumsumexp of ``log|g| - result`` plus ``x``, exponentiated:
    ``exp(rev_lcse(log g+ - r) + x) - exp(rev_lcse(log g- - r) + x)``; recording ops, so it
    differentiates again."""
    d = _scan_dim(x, dim)

    def grads(g: Tensor) -> tuple:
        if g.ndim == 0 or g.numel() == 0:
            return (g,)
        if g._dtype.is_complex:  # (PyTorch's complex branch: no split by sign)
            return ((reversed_lcse(g.conj().log() - out) + x).exp().conj(),)
        lowest = float(np_finfo(g._dtype.numpy).min)
        log_abs = g.abs().log()
        pos = log_abs.where(g > 0, lowest)
        neg = log_abs.where(g < 0, lowest)

        return ((reversed_lcse(pos - out) + x).exp() - (reversed_lcse(neg - out) + x).exp(),)

    def reversed_lcse(v: Tensor) -> Tensor:
        return v.flip(d).logcumsumexp(d).flip(d)

    grads.pytorch_convention = True  # type: ignore[attr-defined]  # (the complex branch is PyTorch's own formula)
    return "LogcumsumexpBackward0", (x,), grads, (x, out)


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
_install_scan_fronts(globals())
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COPY, "cumsum cumprod cummax cummin diff")
declare(Kind.COMPUTE, "logcumsumexp")
