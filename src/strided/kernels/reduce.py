"""Reduction kernels: sums, means, variances, extrema and their indices, softmax.

Each kernel takes NumPy views (built by :func:`strided.kernels.numpy_view` over a
tensor's storage, read in place whatever their strides) and writes into ``out``, a
view of a fresh result the caller allocated. NumPy's floating-point warnings are
silenced: PyTorch gives inf/NaN silently. Work arrays the kernels allocate
(``deviation``, ``shifted``) are computed values, not copies of an input; the only
copy of an input any kernel here makes is the explicit, recorded one in
:func:`_reduced_axis_last` that NumPy's argmax/argmin would otherwise make behind
the ledger's back.
"""

from __future__ import annotations

import math

import numpy as np

from ..layout.order import iteration_order
from ..lazy_names import function_on_first_call, module_on_first_use
from . import native
from .blocked import copy_into
from .fpstate import quiet, quietly
from .memory import copy_array

# (helper modules only some calls need, loaded on first use: issue 23)
torch_variance = module_on_first_use("strided.kernels.torch_variance", globals())
torch_order = function_on_first_call("strided.kernels.softmax_dims", "torch_order", globals())

_FLOAT64 = np.dtype(np.float64)


def reduce_into(ufunc: np.ufunc, x: np.ndarray, axes: tuple[int, ...] | None, acc: np.dtype,
                out: np.ndarray, keepdims: bool) -> None:
    """``out[...] = ufunc.reduce(x, axes)`` accumulating in ``acc``.

    When ``acc`` differs from ``out.dtype`` (float16 sums in float32) the result is
    computed in ``acc`` and rounded once into ``out`` (an ``out=`` of another dtype would
    make NumPy round the running sums between its buffers).
    """
    if ufunc is np.multiply and out.dtype == x.dtype and x.size and x.ndim and (
            x.dtype.kind == "c" or (x.dtype.itemsize == 2 and x.dtype.kind in "fV")):
        # float16 / bfloat16 / complex: PyTorch's own steps, each rounded, in its loop's order
        got = torch_walk_products(x, axes)
        if got is not None:
            if x.dtype.kind == "V" and holds_nan(got):  # (bfloat16: the words of PyTorch's roundings)
                _bf16_product_nan_words(got, x, axes)
            np.copyto(out, got.reshape(out.shape), casting="unsafe")
            return
    if ufunc is np.multiply and acc == x.dtype and acc.char in "fd" and x.size and x.ndim:
        # PyTorch's order where its lines are contiguous (see line_products)
        if axes is not None and len(axes) == x.ndim:
            axes = None
        if axes is None or len(axes) == 1:
            got = line_products(x, None if axes is None else axes[0])
            if got is None and (axes is None or x.strides[axes[0]] == x.itemsize):
                # (lines that step by one but do not tile their memory, x[:, 1:]: PyTorch's walk,
                # NumPy's NaN as line_products keeps it)
                got = torch_walk_products(x, axes)
                if got is not None and holds_nan(got):
                    got = walked_nans(got, x, None if axes is None else axes[0])
            if got is not None:
                np.copyto(out, got.reshape(out.shape), casting="unsafe")
                return
    with quiet():  # overflow gives inf silently, as in PyTorch
        if acc == out.dtype:
            ufunc.reduce(x, axis=axes, dtype=acc, out=out, keepdims=keepdims)
        else:
            np.copyto(out, ufunc.reduce(x, axis=axes, dtype=acc, keepdims=keepdims), casting="unsafe")


def logical_reduce_into(ufunc: np.ufunc, x: np.ndarray, axes: tuple[int, ...] | None,
                        out: np.ndarray, keepdims: bool) -> None:
    """``all``/``any``: ``ufunc`` (logical_and/or) reduced over ``axes`` into ``out`` (bool or
    uint8). NumPy casts the elements to bool in buffered chunks while reducing (no input copy)."""
    ufunc.reduce(x, axis=axes, out=out, keepdims=keepdims)


def mean_into(x: np.ndarray, axes: tuple[int, ...] | None, acc: np.dtype, count: int,
              out: np.ndarray, keepdims: bool) -> None:
    """``out[...] = sum(x, axes) / count``, summing in ``acc``; 0/0 gives NaN silently."""
    with quiet():
        total = np.add.reduce(x, axis=axes, dtype=acc, keepdims=keepdims)
        np.divide(total, count, out=out, casting="unsafe")


def variance_into(x: np.ndarray, axes: tuple[int, ...], acc: np.dtype, n: int, denominator: int,
                  out: np.ndarray, root: bool, keepdim: bool = False) -> None:
    """Two-pass variance (or its square root) of ``x`` over ``axes`` into ``out``.

    ``n`` is the number of elements per result, ``denominator`` is ``n - correction``
    (clamped at 0 by the caller; 0 gives inf/NaN silently). ``x`` must have at least
    one dim (view a 0-d input as ``(1,)``); ``out`` holds the result's elements in
    row-major order of the kept dims; ``keepdim``: the result's (PyTorch's order of a float64
    variance's updates depends on it).
    """
    with quiet():
        squares, _ = variance_parts(x, axes, acc, n, denominator, root, keepdim=keepdim)
        np.copyto(out, squares.reshape(out.shape), casting="unsafe")


_WELFORD_BAND = 2.0**-36  # (the means' errors, n * 2**-53 of the largest element, are below it)


def welford_ties(a: np.ndarray, axes: tuple[int, ...], n: int, wide: np.ndarray) -> None:
    """Where the float64 mean ``wide`` (reduced dims kept) of ``a`` lies within ``_WELFORD_BAND``
    of itself of a tie between two values of ``a``'s dtype, replace it by PyTorch's Welford mean
    (``mean += (x - mean) / k`` in double along the row in TensorIterator's order: the reduced dims
    by their strides, the smallest innermost), which PyTorch rounds once: the float64 mean rounded
    would go the other way in about half of them (float16/bfloat16: float32's ties, PyTorch's mean
    rounded to float32 first, then to the half type). The band holds both means' errors unless a
    row cancels to a mean 2**17 / n times smaller than its largest element (those keep the float64
    mean). Python floats step each picked row (IEEE doubles, as the C++ loop)."""
    dt = a.dtype if a.dtype.itemsize >= 4 else np.dtype(np.float32)
    near = (wide * (1.0 - _WELFORD_BAND)).astype(dt) != (wide * (1.0 + _WELFORD_BAND)).astype(dt)
    if not near.any():
        return
    near &= np.isfinite(wide)  # (an inf or NaN mean: the caller's)
    order = sorted(axes, key=lambda d: -abs(a.strides[d]))  # (outermost first: the last varies fastest)
    kept = [d for d in range(a.ndim) if d not in axes]
    rows = np.transpose(a, kept + order).reshape(-1, n)
    at = np.flatnonzero(near.reshape(-1))
    means = []
    for row in rows[at].astype(np.float64).tolist():
        mean = 0.0
        for k, x in enumerate(row, 1):
            mean = mean + (x - mean) / k
        means.append(mean)
    wide[np.unravel_index(at, wide.shape)] = means  # (by index: NumPy may lay wide out column-major)


def variance_parts(x: np.ndarray, axes: tuple[int, ...] | int | None, acc: np.dtype, n: int,
                   denominator: float, root: bool, torch_mean: bool = False, keepdim: bool = False
                   ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`variance_into`'s computation, its two fresh C-contiguous arrays returned (reduced dims
    kept with size 1): (the variance or its square root, in ``acc`` rounded as ``x`` where ``x`` is
    real and ``acc`` its dtype; the mean, ``sum / n``: the bits :func:`mean_into` gives, except,
    with ``torch_mean``, for a real ``x`` narrower than float64, whose mean is summed in float64 and
    rounded once, as PyTorch's var_mean gives it). The caller silences NumPy's warnings.

    >>> v, m = variance_parts(np.array([1.0, 2.0, 4.0]), 0, np.dtype(np.float64), 3, 2.0, False)
    >>> v.tolist(), m.tolist()
    ([2.333333333333333], [2.3333333333333335])
    """
    if x.dtype == _FLOAT64 and acc == _FLOAT64 and x.size:
        # (PyTorch's own two ways for float64, whose bits NumPy's two-pass formula rarely gives)
        return torch_variance.variance_parts(x, axes, denominator, root, torch_mean, keepdim)
    centre = np.add.reduce(x, axis=axes, dtype=acc, keepdims=True)
    centre /= n
    if x.dtype.kind == "c":
        # PyTorch's complex var (std_var_out): var(z.real) + var(z.imag), each rounded to the real
        # dtype, added in it, then the square root (not |z - mean|^2 summed: hypot's roundings)
        # (var_mean's mean, torch_mean: each part's own, as PyTorch's complex(mean_real, mean_imag))
        real = np.dtype(acc).type(0).real.dtype
        real_var, real_mean = variance_parts(x.real, axes, real, n, denominator, False, torch_mean, keepdim)
        imag_var, imag_mean = variance_parts(x.imag, axes, real, n, denominator, False, torch_mean, keepdim)
        part = np.add(real_var, imag_var)
        if root:
            np.sqrt(part, out=part)
        if torch_mean:
            centre = np.empty(real_mean.shape, x.dtype)
            centre.real, centre.imag = real_mean, imag_mean
        return part, centre
    # PyTorch's CPU var of a real tensor accumulates in float64 (WelfordOps<scalar_t, double>, or
    # std_var_all_cpu's double sums) and rounds the result (its square root for std) once to the
    # dtype: float32/float16 deviations squared and summed in float32 were ulps off in ~half the results
    wide = np.dtype(np.float64) if acc.kind == "f" and acc.itemsize < 8 else acc
    if wide == acc:
        mid = centre
    else:
        # (one result of float32: std_var_all_cpu centres on the float32 mean, self.mean(), read
        # as a double; with the float64 mean instead ~9% of results were an ulp off)
        single = centre.size == 1 and x.dtype == acc
        # (Welford's running mean in double: the float64 mean's deviations, to float32 the same
        # bits; it is also the mean var_mean returns, rounded once)
        wide_mean = np.add.reduce(x, axis=axes, dtype=wide, keepdims=True) / n \
            if not single or (torch_mean and x.dtype.kind == "f") else None
        mid = centre.astype(wide) if single else wide_mean
        if torch_mean and x.dtype.kind == "f":
            # (PyTorch's Welford mean where the float64 one is near a tie of x's dtype; a copy:
            # the deviations keep the float64 mean)
            returned = wide_mean.copy()
            welford_ties(x, tuple(range(x.ndim)) if axes is None else (axes,) if isinstance(axes, int) else tuple(axes),
                         n, returned)
            centre = returned.astype(np.float32).astype(x.dtype)  # (halves: through float32, as PyTorch's)
    deviation = np.subtract(x, mid, dtype=wide)  # a fresh array: the kernel's work, not a copy
    np.multiply(deviation, deviation, out=deviation)
    squares = np.add.reduce(deviation, axis=axes, keepdims=True)
    squares /= denominator
    if root:
        np.sqrt(squares, out=squares)
    if wide != acc and x.dtype.kind == "f":
        squares = squares.astype(x.dtype)
    return squares, centre


def softmax_into(x: np.ndarray, axes: tuple[int, ...], compute: np.dtype, out: np.ndarray, log: bool) -> None:
    """``softmax`` (or ``log_softmax``) of ``x`` along ``axes`` into ``out`` (same shape), in ``compute``.

    Stable form: the slice maximum is subtracted first. ``x`` must have at least one dim.
    Rows along a C-contiguous last dim of float32 / float64, computed in their own dtype, are the
    compiled kernel's where it is built (:func:`softmax_rows`: PyTorch's order of operations);
    everything else (and everything under ``STRIDED_NATIVE=0``) is the NumPy formula below.

    >>> out = np.empty(2)
    >>> softmax_into(np.array([0.0, 0.0]), (0,), np.dtype(np.float64), out, False)
    >>> out.tolist()
    [0.5, 0.5]
    """
    if axes == (x.ndim - 1,) and x.dtype == compute == out.dtype and softmax_rows(x, out, log):
        return
    if len(axes) == 1 and x.dtype == compute == out.dtype and x.dtype.char in "fd":
        done = torch_order(x, axes[0], log)  # (PyTorch's kernel on the contiguous copy, where reproduced)
        if done is not None:
            copy_into(out, done)
            return
    with quiet():
        top = np.maximum.reduce(x, axis=axes, keepdims=True)
        shifted = np.subtract(x, top, dtype=compute)  # the kernel's fresh work array
        # (in the work array's own order where out has its dtype but another memory order, then one
        # blocked copy: NumPy's elementwise loop writing a transposed order costs ~30x a contiguous one)
        last = shifted if shifted.dtype == out.dtype and shifted.strides != out.strides else out
        if log:
            total = np.add.reduce(np.exp(shifted), axis=axes, keepdims=True)
            np.subtract(shifted, np.log(total), out=last, casting="unsafe")
        else:
            np.exp(shifted, out=shifted)
            total = np.add.reduce(shifted, axis=axes, keepdims=True)
            np.divide(shifted, total, out=last, casting="unsafe")
        if last is not out:
            copy_into(out, last)


_ANY_NAN = getattr(native._compiled("_copykernel"), "any_nan", None)  # (None: not built, STRIDED_NATIVE=0)


def holds_nan(run: np.ndarray) -> bool:
    """Whether the fresh C-contiguous float32 / float64 array ``run`` holds a NaN: up to 32
    elements, its values read in Python (BLAS's call alone costs ~1 us, most of a small
    reduction); beyond, its dot product with itself (BLAS, no floating-point flags read), NaN
    exactly then, since a sum of squares (each >= 0 or inf) is never NaN otherwise; quietly, as
    the squares may overflow. Half ``np.isnan(run).any()``'s cost on a small array."""
    if run.size <= 32:
        if _ANY_NAN is not None and (found := _ANY_NAN(run)) is not None:
            return found  # (the compiled pass over the buffer: a float32/float64 C-contiguous run)
        values = run.tolist() if run.ndim == 1 else run.reshape(-1).tolist()
        # (their sum in C first: NaN where one is, and otherwise only where +inf meets -inf, whose
        # values the loop then reads one by one; a third of the loop's cost on 16 values)
        total = sum(values)
        if total == total:
            return False
        for v in values:
            if v != v:
                return True
        return False
    flat = run.reshape(-1)
    d = quietly(flat.dot, flat)
    return d != d


def softmax_rows(x: np.ndarray, out: np.ndarray, log: bool) -> bool:
    """Whether the compiled kernel wrote the (log_)softmax of ``x``'s rows (along its last dim) into
    ``out``: only for C-contiguous, aligned float32 / float64 ``x`` and ``out`` of one dtype and shape, with
    at least one element, not overlapping, where the kernel is built and enabled
    (:func:`strided.kernels.native.special`). False: nothing written, the caller computes.

    >>> out = np.empty((1, 2), np.float32)
    >>> softmax_rows(np.zeros((1, 2), np.float32), out, False) in (True, False)
    True
    """
    k = native.special()
    if (k is None or not x.size or x.dtype.char not in "fd" or out.dtype != x.dtype or out.shape != x.shape
            or not x.flags.c_contiguous or not out.flags.c_contiguous
            or not x.flags.aligned or not out.flags.aligned):  # (unaligned: the kernel refuses the buffer)
        return False
    return k.softmax_rows(x, out, x.shape[-1], log)


def euclidean_norms(x: np.ndarray, axis: int | None, absolute: bool = True) -> np.ndarray | None:
    """``np.sqrt(np.add.reduce(a * a, axis, keepdims=True))`` with ``a = |x|`` (``absolute``; else
    ``a = x``: matrix_norm's Frobenius expression) as a fresh C-contiguous array, computed by the
    compiled ``norm2`` in one pass with no work array; None (nothing computed: the caller runs
    NumPy) without the kernel, for an empty or 0-d ``x``, a dtype other than float32 / float64, an
    unaligned array, or one whose elements do not tile its memory in some order of its axes.

    The bits are NumPy's: its reduction walks the (dense, fresh) squares in memory order, so the
    kernel reads ``x`` in memory order too (axes sorted by stride): over every element one
    pairwise sum of the whole run; along an axis innermost in memory a pairwise sum per line; along
    another axis the lines added one after another (NumPy's reduction of an outer axis).

    >>> euclidean_norms(np.array([[3.0, -4.0]]), 1).tolist() in ([[5.0]], None)
    True
    """
    k = native.special()
    if k is None or not x.ndim or not x.size or x.dtype.char not in "fd" or not x.flags.aligned:
        return None
    # (memory order, the largest stride first; size-1 axes outermost: PyTorch's iterator drops them, so
    # a (16, 1) input's axis 0 is its one contiguous line)
    order = sorted(range(x.ndim), key=lambda d: (x.shape[d] != 1, -x.strides[d]))
    mem = x.transpose(order)
    if not mem.flags.c_contiguous:
        return None
    if axis is None:
        out = np.empty((1,) * x.ndim, x.dtype)
        # (a NaN norm: NumPy's NaN sign and payload come from which operand its compiled adds keep,
        # which the kernel's compiler may order otherwise; NumPy computes those)
        return out if k.norm2(mem, out, x.size, 1, absolute) and not holds_nan(out) else None
    at = order.index(axis)
    rest = order[:at] + order[at + 1:]
    run = np.empty(tuple(x.shape[d] for d in rest), x.dtype)
    if not k.norm2(mem, run, mem.shape[at], math.prod(mem.shape[at + 1:]), absolute) or holds_nan(run):
        return None  # (a NaN norm: NumPy decides its sign and payload, see above)
    if rest != sorted(rest):  # (the other axes lie in another order than the result's: one copy)
        out = np.empty(tuple(x.shape[d] for d in sorted(rest)), x.dtype)
        np.copyto(out, run.transpose(np.argsort(rest)))
        run = out
    return run.reshape(x.shape[:axis] + (1,) + x.shape[axis + 1:])  # (np.expand_dims's view, without its checks)


# PyTorch's CPU product (binary_kernel_reduce_vec, ATen's Reduce.h) of a line contiguous in memory
# (a full reduction of a tensor whose elements tile their memory is one such line, in memory
# order; so is each line along the dim innermost in memory): from 4 V elements on (V lanes of a
# 32-byte vector: 8 float32, 4 float64; measured on PyTorch 2.13, its AVX-512 build included),
# four vector accumulators start as the first 4 V elements and multiply by each following block of
# 4 V in turn; then (a0 * a1) * (a2 * a3), its lanes in order from the first; then the line's last
# n % 4 V elements one by one. A shorter line is the running product from 1 in order, as NumPy's.
# Along any other dim (an outer reduction) PyTorch multiplies each column in order, as NumPy does.
_TORCH_VECTOR_BYTES = 32


def _torch_products_numpy(lines: np.ndarray) -> np.ndarray:
    """The compiled ``torch_prod_rows`` of the C-contiguous (rows, n) float32 / float64 ``lines``
    by NumPy's ufuncs, the same operations in the same order (each ufunc call rounds in the dtype,
    and ``np.multiply.reduce`` along an axis multiplies in order): a fresh 1-D array."""
    rows, n = lines.shape
    lanes = _TORCH_VECTOR_BYTES // lines.itemsize
    block = 4 * lanes
    count = n // block
    if not count:
        return np.multiply.reduce(lines, axis=1)
    acc = np.multiply.reduce(lines[:, :count * block].reshape(rows, count, block), axis=1)
    acc = (acc[:, :lanes] * acc[:, lanes:2 * lanes]) * (acc[:, 2 * lanes:3 * lanes] * acc[:, 3 * lanes:])
    res = acc[:, 0].copy()
    for k in range(1, lanes):
        res *= acc[:, k]
    for k in range(count * block, n):
        res *= lines[:, k]
    return res


def torch_row_products(flat: np.ndarray, n: int) -> np.ndarray:
    """PyTorch's products (see the note above) of the consecutive runs of ``n >= 1`` elements of
    the 1-D C-contiguous aligned float32 / float64 ``flat``, as a fresh 1-D array: the compiled
    ``torch_prod_rows`` or, without it, the same operations in NumPy. A NaN product is recomputed
    by ``np.multiply.reduce`` (its sign and payload depend on which operand a compiler puts first:
    both paths then give NumPy's).

    >>> torch_row_products(np.arange(1.0, 7.0), 3).tolist()
    [6.0, 120.0]
    """
    k = native.special()
    run = None
    if k is not None:
        run = np.empty(flat.size // n, flat.dtype)
        if not k.torch_prod_rows(flat, run, n):
            run = None
    if run is None:
        with quiet():
            run = _torch_products_numpy(flat.reshape(-1, n))
    if holds_nan(run):
        _numpy_nans(run, flat.reshape(-1, n))
    return run


def _numpy_nans(run: np.ndarray, rows: np.ndarray) -> None:
    """Each NaN of ``run`` (PyTorch's products of ``rows`` (len(run), n)) NumPy's NaN where NumPy's
    product of that row is NaN too (a NaN operand's sign and payload: which operand wins is the
    compiler's choice, see above), in place. A NaN NumPy's order avoids stays: PyTorch's lanes met
    inf * 0 where NumPy's running product met the zero first, or multiplied it by a finite value."""
    at = np.flatnonzero(np.isnan(run))
    with quiet():
        alt = np.multiply.reduce(rows[at], axis=1)
    run[at] = np.where(np.isnan(alt), alt, run[at])


# float16 / bfloat16 and complex products as PyTorch's ``binary_kernel_reduce_vec`` (Reduce.h)
# runs them, each step its own rounding: Vectorized<Half/BFloat16>'s ``a * b`` (and the scalar
# loop's) multiplies in float32 and rounds to the dtype (the float32 product of two such values is
# exact: rounded once, PyTorch's); Vectorized<complex>'s product rounds ``ac``, ``bd``, ``ad``,
# ``bc`` and their sums (complex_forms' mode 0) where the compiled scalar loop fuses ``a * c`` and
# ``a * d`` (mode 1). The walk (32-byte vectors: 16 half lanes, 4 complex64, 2 complex128; the
# identity 1 multiplied in literally): along a dim stepping by one element (TensorIterator puts
# the reduced dim innermost), each line by ``vectorized_inner_reduction`` (:func:`_walk_line`);
# along another dim whose innermost kept run steps by one element, ``vectorized_outer_reduction``
# (whole blocks of 4 vectors of columns down the rows by vectors, then the rest column by column
# in the scalar form); otherwise each output's running product from 1 in index order; over
# every element, the coalesced innermost runs one after another into one product. Measured
# against torch 2.13 (one thread; tests/test_fix27.py: every bit but a NaN's sign).


class _Products:
    """The forms of one dtype's product: ``vec(a, b)`` (the vector loop's), ``one(a, b)`` (the
    scalar loop's inside the inner and outer walks), ``strided`` (the plain strided walk's)
    and ``last`` (the last product of the lanes' fold) of arrays in the working
    dtype (float32 for float16/bfloat16), and the lanes of a 32-byte vector."""

    def __init__(self, dtype: np.dtype) -> None:
        self.dtype = dtype
        if dtype.kind == "c":
            from .complex_forms import MUL, forms_into  # (a sibling kernel module, loaded when used)

            def form(mode: int):
                def mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
                    out = np.empty(np.broadcast_shapes(np.shape(a), np.shape(b)), dtype)
                    if not forms_into(MUL, np.asarray(a, dtype), np.asarray(b, dtype), out, mode):
                        raise _NoKernel
                    return out
                return mul
            self.vec, self.one, self.work = form(0), form(1), dtype
            # (the lanes' fold, three scalar products for complex64: the compiler leaves the last
            # one unfused, measured; complex128's one product is fused)
            self.last = self.vec if dtype.itemsize == 8 else self.one
            # (the scalar loop of the walk that is neither inner nor outer: complex64's unfused, as
            # the compiler inlined it there; the same loop inside the inner and outer walks fuses)
            self.strided = self.vec if dtype.itemsize == 8 else self.one
            self.native = None
        elif dtype.char in "fd":  # (float32 / float64: one rounding per product, every form alike)
            self.vec = self.one = self.last = self.strided = np.multiply
            self.work = dtype
            self.native = lambda a: a
        else:
            def mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
                return (a * b).astype(dtype).astype(np.float32)
            self.vec = self.one = self.last = self.strided = mul
            self.work = np.dtype(np.float32)
            # (NumPy's reduce along the first axis of a 2-D C-contiguous array of these dtypes
            # multiplies row by row into a buffer of the dtype: each product rounded, in order)
            self.native = lambda a: a.astype(dtype)
        self.lanes = _TORCH_VECTOR_BYTES // dtype.itemsize


class _NoKernel(Exception):
    """The compiled complex forms are not built: the caller keeps NumPy's products."""


def _walk_line(lines: np.ndarray, out: np.ndarray, f: _Products) -> np.ndarray:
    """``out`` (one running product per row) times each row of ``lines`` (rows, n) as
    ``vectorized_inner_reduction``: from 4 vectors on, four accumulators over the whole blocks,
    ``(a0 * a1) * (a2 * a3)``, the lanes folded in order (scalar form; ``last`` the last), that into ``out``; then
    the rest one by one (scalar form)."""
    fold, done = _lane_folds(lines, f)
    if fold is not None:
        out = f.last(out, fold)
    for k in range(done, lines.shape[1]):
        out = f.one(out, lines[:, k])
    return out


def _chained_rows(lines: np.ndarray, f: _Products) -> np.ndarray:
    """One running product from 1 through the rows of ``lines`` in turn, each row as
    :func:`_walk_line` multiplies it in (its lanes' fold computed for every row at once;
    float32 / float64 chained by NumPy scalars, whose products round as the arrays')."""
    fold, done = _lane_folds(lines, f)
    if f.dtype.char in "fd":  # (float32 / float64 themselves, not a float16's float32 working copy)
        o = lines.dtype.type(1)
        for r in range(lines.shape[0]):
            if fold is not None:
                o = o * fold[r]
            for v in lines[r, done:]:
                o = o * v
        return np.full(1, o, lines.dtype)
    out = np.ones(1, f.work)
    for r in range(lines.shape[0]):
        out = _walk_rest(out, fold, done, lines, r, f)
    return out


def _walk_rest(out: np.ndarray, fold: np.ndarray | None, done: int, lines: np.ndarray, r: int,
               f: _Products) -> np.ndarray:
    if fold is not None:
        out = f.last(out, fold[r:r + 1])
    for k in range(done, lines.shape[1]):
        out = f.one(out, lines[r:r + 1, k])
    return out


def _lane_folds(lines: np.ndarray, f: _Products) -> tuple[np.ndarray | None, int]:
    """Each row's vector part (its whole blocks of 4 vectors: the accumulators, combined, the
    lanes folded), and where its scalar rest begins; None where a row is shorter than a block."""
    rows, n = lines.shape
    q = f.lanes
    block = 4 * q
    count = n // block
    fold = None
    if count:
        if rows == 1 and f.native is not None:  # (one line: its blocks' chains in one NumPy reduce)
            acc = np.multiply.reduce(np.ascontiguousarray(f.native(lines[0, :count * block]).reshape(count, block)),
                                     axis=0).astype(f.work)[None]
        else:
            acc = lines[:, :block].copy()
            for c in range(1, count):
                acc = f.vec(acc, lines[:, c * block:(c + 1) * block])
        acc = f.vec(f.vec(acc[:, :q], acc[:, q:2 * q]), f.vec(acc[:, 2 * q:3 * q], acc[:, 3 * q:]))
        fold = acc[:, 0].copy()
        for k in range(1, q):
            fold = (f.last if k == q - 1 else f.one)(fold, acc[:, k])
    return fold, count * block


def _walk_columns(cols: np.ndarray, f: _Products) -> np.ndarray:
    """The products down the columns of ``cols`` (n, m), its m columns one contiguous kept run,
    as ``vectorized_outer_reduction``: whole blocks of 4 vectors of columns from the first row by
    vectors, then times the output (1) by vectors; the other columns from 1 in the scalar form."""
    n, m = cols.shape
    if f.native is not None:  # (one form, the running product from the first row: NumPy's reduce)
        return np.multiply.reduce(np.ascontiguousarray(f.native(cols)), axis=0).astype(f.work)
    wide = (m // (4 * f.lanes)) * 4 * f.lanes
    res = np.empty(m, f.work)
    if wide:
        acc = cols[0, :wide].copy()
        for i in range(1, n):
            acc = f.vec(acc, cols[i, :wide])
        res[:wide] = f.vec(acc, np.ones(wide, f.work))
    if wide < m:
        out = np.ones(m - wide, f.work)
        for i in range(n):
            out = f.one(out, cols[i, wide:])
        res[wide:] = out
    return res


def _full_reduction_order(x: np.ndarray) -> list[int]:
    """``x``'s dims, outermost first, in the order TensorIterator's ``reorder_dimensions`` walks
    them for a reduction over every dim (:func:`strided.layout.order.iteration_order` on ``x``'s
    strides alone: the 0-d output's, all 0, decide nothing). Its comparison skips a stride-0
    (expanded) dim, so that dim stays where it stands against its neighbours: ``expand(m, k)`` of a
    row walks its m copies of the row in turn, where NumPy's reduce walks the copies innermost."""
    return iteration_order(x.shape, [x.strides])[::-1]


def _coalesced_inner(x: np.ndarray) -> tuple[np.ndarray, bool]:
    """``x``'s elements in PyTorch's iteration order for a reduction over every dim (dims by
    stride, the smallest innermost; size-1 dims dropped) as (rows, n): ``n`` the innermost run
    TensorIterator coalesces, and whether it steps by one element (its vectorized inner walk)."""
    dims = [d for d in _full_reduction_order(x) if x.shape[d] != 1]
    if not dims:
        return x.reshape(1, 1), False
    mem = x.transpose(dims + [d for d in range(x.ndim) if x.shape[d] == 1])
    n, step = x.shape[dims[-1]], x.strides[dims[-1]]
    for d in reversed(dims[:-1]):  # (a dim that continues the run: coalesced)
        if x.strides[d] != step * n:
            break
        n *= x.shape[d]
    return mem.reshape(-1, n), step == x.itemsize


def kept_run(x: np.ndarray, a: int) -> int:
    """The length of the innermost kept run TensorIterator coalesces for a reduction of ``x``
    along ``a`` into a fresh row-major result (the last kept dims, size-1 ones dropped, while
    ``x`` steps through them row-major), 0 where that run does not step by one element."""
    kept = [d for d in range(x.ndim) if d != a and x.shape[d] != 1]
    if not kept or x.strides[kept[-1]] != x.itemsize:
        return 0
    n = x.shape[kept[-1]]
    for d in reversed(kept[:-1]):
        if x.strides[d] != x.itemsize * n:
            break
        n *= x.shape[d]
    return n


_FORMS: dict[np.dtype, _Products] = {}
# the longest chain of dependent complex products walked (NumPy's order beyond: the compiled
# forms are called once per step, ~3 us each; a 10^6-element complex64 line would take 0.6 s)
_COMPLEX_STEPS = 1 << 12


def _steps(x: np.ndarray, axes: tuple[int, ...] | None) -> int:
    """The longest chain of dependent products :func:`torch_walk_products` makes for ``x``."""
    if axes is None or len(axes) == x.ndim:
        return x.size
    return x.shape[axes[0]]


def torch_walk_products(x: np.ndarray, axes: tuple[int, ...] | None, compiled: bool = True) -> np.ndarray | None:
    """PyTorch's ``prod`` of a float16 / bfloat16 / float32 / float64 / complex ``x`` (at least one dim, not empty)
    over ``axes`` (None or every axis: all elements, 0-d; else one axis), in ``x``'s dtype with
    the other axes in order (the note above); None where the complex forms' kernel is not built.
    ``compiled``: the loops of ``_walk_products.h`` where built (float16 / bfloat16 / complex), the
    same bits as the NumPy steps here; a complex result holding a NaN is made again by the NumPy
    steps (the compiled forms may keep another operand's NaN sign)."""
    f = _FORMS.get(x.dtype)
    if f is None:
        f = _FORMS[x.dtype] = _Products(x.dtype)
    if x.dtype.kind == "c" and _steps(x, axes) // 16 > _COMPLEX_STEPS:
        return None
    if compiled and _walk_kind(x.dtype) is not None and native.sums() is not None:
        with quiet():
            found = _walked(x, axes)
        if found is not None and (x.dtype.kind != "c" or not np.isnan(found).any()):
            return found
    try:
        with quiet():
            if axes is None or len(axes) == x.ndim:
                rows, contiguous = _coalesced_inner(x)
                if f.dtype.char in "fd" and (not contiguous or rows.shape[1] < 4 * f.lanes):
                    # (no vector walk: one running product from 1 in PyTorch's order, NumPy's
                    # reduce of the elements laid out in that order)
                    return np.multiply.reduce(rows.reshape(-1)).reshape(())
                vals = rows.astype(f.work)
                if contiguous:
                    return _chained_rows(vals, f).reshape(()).astype(x.dtype)
                out = np.ones(1, f.work)
                for r in range(vals.shape[0]):
                    for k in range(vals.shape[1]):
                        out = f.strided(out, vals[r:r + 1, k])
                return out.reshape(()).astype(x.dtype)
            (a,) = axes
            kept = x.shape[:a] + x.shape[a + 1:]
            if x.shape[a] != 1 and x.strides[a] == x.itemsize:
                lines = np.moveaxis(x, a, -1).reshape(-1, x.shape[a]).astype(f.work)
                return _walk_line(lines, np.ones(lines.shape[0], f.work), f).reshape(kept).astype(x.dtype)
            m = kept_run(x, a) if x.shape[a] != 1 else 0
            if m:
                groups = np.moveaxis(x, a, -1).reshape(-1, m, x.shape[a]).astype(f.work)
                res = np.stack([_walk_columns(g.T, f) for g in groups]) if groups.shape[0] else \
                    np.empty((0, m), f.work)
                return res.reshape(kept).astype(x.dtype)
            if f.native is not None and x.size // x.shape[a] > 1:  # (a column alone: NumPy's reduce
                cols = np.ascontiguousarray(np.moveaxis(x, a, 0).reshape(x.shape[a], -1))  # keeps float32)
                return np.multiply.reduce(cols, axis=0).reshape(kept)
            lines = np.moveaxis(x, a, -1).reshape(-1, x.shape[a]).astype(f.work)
            out = np.ones(lines.shape[0], f.work)
            for k in range(lines.shape[1]):
                out = f.strided(out, lines[:, k])
            return out.reshape(kept).astype(x.dtype)
    except _NoKernel:
        return None


def _walked(x: np.ndarray, axes: tuple[int, ...] | None) -> np.ndarray | None:
    """:func:`torch_walk_products`' NumPy steps above, branch for branch, by the compiled loops
    (:func:`_compiled_walk`); float16 / bfloat16 read as their raw 2-byte elements (the kernel
    converts them as NumPy does: no float32 copy first). None where the kernel refuses."""
    raw = x.dtype.itemsize == 2
    work = np.dtype(np.float32) if raw else x.dtype

    def walk(op: int, values: np.ndarray, out: np.ndarray) -> np.ndarray | None:
        values = np.ascontiguousarray(values)
        return _compiled_walk(op, x.dtype, values.view(np.uint16) if raw else values, out)

    if axes is None or len(axes) == x.ndim:
        rows, contiguous = _coalesced_inner(x)
        # (rows stepping by one: the line walk chained; else one strided chain through them all)
        out = walk(1, rows, np.ones(1, work)) if contiguous else walk(3, rows.reshape(1, -1), np.ones(1, work))
        return None if out is None else out.reshape(()).astype(x.dtype)
    (a,) = axes
    kept = x.shape[:a] + x.shape[a + 1:]
    if x.shape[a] != 1 and x.strides[a] == x.itemsize:
        lines = np.moveaxis(x, a, -1).reshape(-1, x.shape[a])
        out = walk(0, lines, np.ones(lines.shape[0], work))
    elif (m := kept_run(x, a) if x.shape[a] != 1 else 0):
        groups = np.moveaxis(x, a, -1).reshape(-1, m, x.shape[a])
        out = np.empty((groups.shape[0], m), work)
        for i, g in enumerate(groups):  # (the 2-byte kinds' running columns; complex's vector walk)
            if walk(4 if raw else 2, g.T, out[i]) is None:
                return None
    elif raw and x.size // x.shape[a] > 1:
        cols = np.moveaxis(x, a, 0).reshape(x.shape[a], -1)
        out = walk(4, cols, np.empty(cols.shape[1], work))
    else:
        lines = np.moveaxis(x, a, -1).reshape(-1, x.shape[a])
        out = walk(3, lines, np.ones(lines.shape[0], work))
    return None if out is None else out.reshape(kept).astype(x.dtype)


def _bf16_product_nan_words(got: np.ndarray, x: np.ndarray, axes: tuple[int, ...] | None) -> None:
    """PyTorch's words for the NaNs of :func:`torch_walk_products`' bfloat16 result ``got`` (fresh,
    C-contiguous) of ``x`` over ``axes``, written in place: 0x7FC0, c10's rounding from float (the
    scalar loops'), whatever the NaN's sign; but 0xFFFF in the columns of an outer walk's whole
    blocks of 4 vectors (each kept run's first 64 * (m // 64) of its m columns), which
    ``vectorized_outer_reduction`` rounds by its vector conversion (cvtfp32_bf16: every NaN
    0xFFFF). Measured against torch 2.13, one thread."""
    nan = np.isnan(got)
    words = got.view(np.uint16)
    words[nan] = 0x7FC0
    if axes is None or len(axes) != 1 or x.ndim < 2:
        return
    (a,) = axes
    if x.shape[a] == 1 or x.strides[a] == x.itemsize:  # (no walk, or the inner one: scalar roundings)
        return
    m = kept_run(x, a)
    block = 4 * _TORCH_VECTOR_BYTES // x.itemsize  # (4 vectors of 16 bfloat16 lanes: 64 columns)
    wide = m // block * block
    if wide:
        cols = words.reshape(-1, m)[:, :wide]
        cols[nan.reshape(-1, m)[:, :wide]] = 0xFFFF


# torch_walk_products' dtypes the compiled loops take (_walk_products.h's kinds; bfloat16, ml_dtypes'
# NumPy dtype, by its name: a dtype's .name costs ~4 us, so the key is the dtype, added on first sight)
_WALK_NAMES = {"float16": 0, "bfloat16": 1, "complex64": 2, "complex128": 3}
_WALK_KINDS: dict[np.dtype, int | None] = {}


def _walk_kind(dtype: np.dtype) -> int | None:
    """``dtype``'s kind in ``_walk_products.h`` (None: not one it takes)."""
    kind = _WALK_KINDS.get(dtype, -1)
    if kind == -1:
        kind = _WALK_KINDS[dtype] = _WALK_NAMES.get(dtype.name)
    return kind


def _compiled_walk(op: int, dtype: np.dtype, values: np.ndarray, out: np.ndarray) -> np.ndarray | None:
    """``out`` after the compiled loop ``op`` of :func:`torch_walk_products` (``_walk_products.h``:
    0 a line walk per row, 1 one chain through the rows, 2 the columns' vector walk, 3 the strided
    walk, 4 the running products down the columns) over the C-contiguous ``values`` (rows, n: the
    raw 2-byte elements of float16 / bfloat16, else the complex dtype), ``out`` float32 for the
    2-byte kinds: the same products in the same order as the NumPy steps (their reference). None
    where the kernel refuses (the caller then runs the NumPy steps)."""
    rows, n = values.shape
    if not native.sums().walk_products(op, _walk_kind(dtype), values, rows, n, out, _F16C[0]):
        return None
    return out


_F16C = [1]  # (0: the float16 rounding in software, where the CPU has F16C too; tests compare both)

def line_products(x: np.ndarray, axis: int | None) -> np.ndarray | None:
    """PyTorch's ``prod`` of the float32 / float64 ``x`` over ``axis`` (None: every element) as a
    fresh C-contiguous array with the reduced axes kept (size 1), by :func:`torch_row_products`,
    where the lines it multiplies are contiguous: ``axis`` is innermost in memory (or None) and
    ``x``'s elements tile their memory; None (nothing computed: the caller runs NumPy, whose order
    is PyTorch's along an outer axis) otherwise.

    >>> line_products(np.array([[2.0, 3.0]]), 1).tolist()
    [[6.0]]
    >>> line_products(np.array([[2.0, 3.0]]), None) is None  # (under 4 vectors: NumPy's order is PyTorch's)
    True
    """
    if not x.ndim or not x.size or x.dtype.char not in "fd" or not x.flags.aligned:
        return None
    if axis is None and x.size < 4 * _TORCH_VECTOR_BYTES // x.itemsize:
        return None  # (PyTorch's running product from 1 in memory order: NumPy's full reduce, cheaper)
    # (memory order, the largest stride first; size-1 axes outermost: PyTorch's iterator drops them, so
    # a (16, 1) input's axis 0 is its one contiguous line)
    order = sorted(range(x.ndim), key=lambda d: (x.shape[d] != 1, -x.strides[d]))
    if axis is not None and (order[-1] != axis or x.shape[axis] < 2):
        return None
    mem = x.transpose(order)
    if not mem.flags.c_contiguous:
        return None
    if axis is None:
        return torch_row_products(mem.reshape(-1), x.size).reshape((1,) * x.ndim)
    rest = order[:-1]
    run = torch_row_products(mem.reshape(-1), x.shape[axis]).reshape(tuple(x.shape[d] for d in rest))
    if rest != sorted(rest):  # (the other axes lie in another order than the result's: one copy)
        out = np.empty(tuple(x.shape[d] for d in sorted(rest)), x.dtype)
        np.copyto(out, run.transpose(np.argsort(rest)))
        run = out
    return run.reshape(x.shape[:axis] + (1,) + x.shape[axis + 1:])  # (np.expand_dims's view, without its checks)


def multiply_reduce(x: np.ndarray, axis: int | None = None, dtype: None = None, out: None = None,
                    keepdims: bool = False) -> np.ndarray:
    """``np.multiply.reduce(x, axis, dtype, out, keepdims)`` (its positional order) in PyTorch's
    order where :func:`line_products` takes ``x`` (``dtype`` and ``out`` None), NumPy's otherwise."""
    if dtype is None and out is None and (axis is not None or x.size >= 16 or (0 in x.strides and _expanded(x))):
        got = line_products(x, axis)
        if got is None and x.dtype.char in "fd" and x.size and x.ndim and (
                _steps_by_one(x, axis) or (axis is None and _expanded(x))):
            # (lines that step by one but do not tile their memory, x[:, 1:]: PyTorch's walk;
            # a NaN product is NumPy's, as line_products leaves it)
            got = torch_walk_products(x, None if axis is None else (axis,))
            if got is not None and holds_nan(got):
                got = walked_nans(got, x, axis)
            if got is not None:
                got = got.reshape((1,) * x.ndim if axis is None else x.shape[:axis] + (1,) + x.shape[axis + 1:])
        if got is not None:
            if keepdims:
                return got
            return got.reshape(()) if axis is None else got.reshape(x.shape[:axis] + x.shape[axis + 1:])
    return np.multiply.reduce(x, axis, dtype, out, keepdims)


def walked_nans(got: np.ndarray, x: np.ndarray, axis: int | None) -> np.ndarray:
    """:func:`torch_walk_products`' float32 / float64 products ``got`` of ``x`` over ``axis`` (None:
    every element) with each NaN NumPy's where NumPy's product is NaN too (its sign and payload,
    as :func:`torch_row_products` leaves them); a NaN only PyTorch's order meets (inf * 0 in its
    lanes) stays NaN. Only the NaN products change: the others keep PyTorch's order."""
    with quiet():
        alt = np.multiply.reduce(x, axis)
    return np.where(np.isnan(alt) & np.isnan(got), alt.reshape(got.shape), got)


def _expanded(x: np.ndarray) -> bool:
    """Whether ``x`` has an expanded dim (stride 0, size over 1): PyTorch's iterator leaves it where
    it stands among the others (:func:`_full_reduction_order`), NumPy's reduce walks it innermost."""
    return any(s == 0 and n > 1 for n, s in zip(x.shape, x.strides))


def _steps_by_one(x: np.ndarray, axis: int | None) -> bool:
    """Whether PyTorch's product of ``x`` over ``axis`` (None: every element) walks lines that
    step by one element long enough for its vectorized inner walk (4 vectors): the axis itself,
    or the innermost coalesced run in memory for a full reduction."""
    block = 4 * _TORCH_VECTOR_BYTES // x.itemsize  # (shorter lines: the running product, NumPy's order)
    if axis is not None:
        return x.strides[axis] == x.itemsize and x.shape[axis] >= block
    rows, contiguous = _coalesced_inner(x)
    return contiguous and rows.shape[1] >= block


def row_products(flat: np.ndarray, n: int) -> np.ndarray | None:
    """The products of the consecutive runs of ``n`` elements of the 1-D C-contiguous float32 /
    float64 ``flat`` (a row-major array's lines along its last axis), as a fresh 1-D array:
    :func:`torch_row_products` as :func:`line_products` runs it on that array, without its axis
    bookkeeping; None (nothing computed) where :func:`line_products` would decline."""
    if not flat.size or n < 2 or flat.dtype.char not in "fd" or not flat.flags.aligned:
        return None
    return torch_row_products(flat, n)


def extreme_all(x: np.ndarray, out: np.ndarray, largest: bool) -> None:
    """``out[()] = max(x)`` (or min) over every element; NaN propagates. ``x`` is read in place."""
    (np.maximum if largest else np.minimum).reduce(x, axis=None, out=out)


# ---------------------------------------------------------------- argmax / argmin


def _compact(x: np.ndarray) -> tuple[np.ndarray, tuple[int, ...]]:
    """``x`` with every stride-0 (expanded) dim cut to its index 0, kept as a size-1 dim.

    All entries along such a dim are equal, so an extreme along it sits at index 0 and
    along any other dim the result is the same for every index: compute on the compact
    view, broadcast the answer. Returns (compact view, the expanded dims).
    """
    expanded = tuple(k for k, (n, s) in enumerate(zip(x.shape, x.strides)) if n > 1 and s == 0)
    if not expanded:
        return x, ()
    return x[tuple(slice(0, 1) if k in expanded else slice(None) for k in range(x.ndim))], expanded


def _reduced_axis_last(x: np.ndarray, axis: int, op: str, name: str) -> np.ndarray:
    """``x`` with ``axis`` moved last, made C-contiguous through the ledger if it is not.

    NumPy's argmax/argmin move the reduced axis last and, unless the result is
    C-contiguous, silently copy the whole input; this makes that copy explicit (and
    recorded) so NumPy copies nothing more.
    """
    moved = np.moveaxis(x, axis, -1)
    if not moved.flags.c_contiguous:
        moved = copy_array(moved, f"{name}: NumPy's {op} needs the reduced dim contiguous")
    return moved


def arg_extreme_along(x: np.ndarray, axis: int, out: np.ndarray, keepdims: bool, largest: bool,
                      values: np.ndarray | None = None, name: str = "") -> None:
    """Index of the first largest (or smallest) element of ``x`` along ``axis``, into ``out`` (int64).

    ``x`` has at least one dim and ``x.shape[axis] > 0``; ``out`` has the reduced shape
    (``axis`` kept with size 1 if ``keepdims``). With ``values``, also writes
    ``x[index]`` there (so NaN and -0.0 come from the input itself). Stride-0 dims are
    read once (see :func:`_compact`); what NumPy still needs contiguous is copied
    explicitly, through the ledger (``name``, the user's op, heads its reason).
    """
    op = "argmax" if largest else "argmin"
    compact, expanded = _compact(x)
    out_keep = out if keepdims else np.expand_dims(out, axis)
    values_keep = None if values is None else (values if keepdims else np.expand_dims(values, axis))
    if axis in expanded:  # every entry along the reduced dim is the same: the first is index 0
        out_keep[...] = 0
        if values_keep is not None:
            np.copyto(values_keep, compact.take([0], axis=axis))
        return
    moved = _reduced_axis_last(compact, axis, op, name or op)
    where = np.argmax if largest else np.argmin
    found = where(moved, axis=-1, keepdims=True)  # compact-sized result, kept dims of size 1
    np.copyto(out_keep, np.moveaxis(found, -1, axis))
    if values_keep is not None:
        picked = np.take_along_axis(moved, found, axis=-1)
        np.copyto(values_keep, np.moveaxis(picked, -1, axis))


def arg_extreme_flat(x: np.ndarray, out: np.ndarray, largest: bool) -> None:
    """Row-major flat index of the first largest (or smallest) element of non-empty ``x``, into ``out``.

    Stride-0 dims are read once (the first occurrence sits at index 0 along them); a
    remaining non-contiguous view is copied explicitly, through the ledger.
    """
    op = "argmax" if largest else "argmin"
    compact, _ = _compact(x)
    if not compact.flags.c_contiguous:
        compact = copy_array(compact, f"{op}: NumPy's {op} needs the flattened tensor contiguous")
    where = np.argmax if largest else np.argmin
    index = int(where(compact, axis=None))
    if compact.shape != x.shape:
        index = int(np.ravel_multi_index(np.unravel_index(index, compact.shape), x.shape))
    out[...] = index


def all_nonzero(x: np.ndarray) -> bool:
    """Whether every element of ``x`` is non-zero (True for an empty ``x``); read in place."""
    return bool(x.all())
