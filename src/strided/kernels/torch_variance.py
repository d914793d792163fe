"""PyTorch 2.13's CPU variance of float64 tensors, bit for bit (ReduceOps.cpp, one thread).

PyTorch computes a variance in one of two ways (``std_var_out`` / ``std_var_mean_out``):

- **one result** of ``var``/``std`` (``result.numel() == 1``, float32/float64: every dim reduced, or
  the only non-trivial ones), ``std_var_all_cpu``: the mean is ``self.mean()`` (PyTorch's own sum,
  :func:`strided.kernels.torch_sum.sum_array`, divided by the count), read as a double; then the
  elements in its iterator's order (dims by stride, fastest first, coalesced) are cut into slabs of
  its 2-d loop (the two fastest dims), each slab summing ``(v - mean)**2`` in double from 0, the
  slabs' sums added in order from 0; divided by ``max(0, N - correction)``;
- **otherwise**, and always for ``var_mean``/``std_mean``: ``WelfordOps<scalar_t, double>`` over
  each result's elements in the reduction iterator's order (the reduced dims by stride, fastest
  innermost: :func:`strided.kernels.torch_sum.iterator_dims`): ``count += 1; delta = v - mean;
  mean += delta / count; m2 += delta * (v - mean)``; the variance ``m2 / max(count - correction,
  0)`` and the mean, each rounded once to the dtype.

NumPy's two-pass formula (pairwise sums) gives other bits for float64: 5-46% of results equalled
PyTorch's. float32 and the half types keep :func:`strided.kernels.reduce.variance_parts`' float64
two-pass computation, which rounds to the same float32 bits.
"""

from __future__ import annotations

import numpy as np

from . import native
from .torch_sum import iterator_dims, sum_array


def _ordered(x: np.ndarray, reduced: tuple[bool, ...], keepdim: bool) -> np.ndarray:
    """``x``'s elements as a (kept..., n) view: the kept dims in order, then the reduced elements
    of each result in PyTorch's reduction order (one last axis, fastest last).
    The order depends on ``keepdim``: a kept reduced dim of size 1 has a non-zero output stride
    there (0 without keepdim), which moves the iterator's sort of ambiguous (stride-0) dims."""
    isz = x.itemsize
    sizes, ins, outs = iterator_dims(x.shape, tuple(s // isz for s in x.strides), reduced, keepdim)
    k = 0
    while k < len(sizes) and outs[k] == 0:  # (the reduced dims come first: their output stride is 0)
        k += 1
    kept = [d for d in range(x.ndim) if not reduced[d]]
    kept_shape = tuple(x.shape[d] for d in kept)
    shape = kept_shape + tuple(reversed(sizes[:k]))
    strides = tuple(x.strides[d] for d in kept) + tuple(s * isz for s in reversed(ins[:k]))
    view = np.lib.stride_tricks.as_strided(x, shape, strides, writeable=False)
    return view.reshape(kept_shape + (-1,))


def welford(x: np.ndarray, axes: tuple[int, ...], divisor: float, root: bool, keepdim: bool = False
            ) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's Welford var (``root``: std) and mean of float32/float64 ``x`` over ``axes`` (at least
    one element per result), each a fresh array of ``x``'s dtype with the reduced dims kept as 1;
    ``divisor`` is ``max(N - correction, 0)``; ``keepdim``: the result's (it orders the updates).

    >>> v, m = welford(np.array([[1.0, 2.0, 4.0]]), (1,), 2.0, False)
    >>> v.tolist(), m.tolist()
    ([[2.333333333333333]], [[2.3333333333333335]])
    """
    reduced = tuple(d in axes for d in range(x.ndim))
    rows_view = _ordered(x, reduced, keepdim)
    n = rows_view.shape[-1]
    rows = rows_view.reshape(-1, n)
    columns = not rows.flags.c_contiguous and rows.flags.f_contiguous
    if not rows.flags.c_contiguous and not columns:
        rows = np.ascontiguousarray(rows)  # (the elements in PyTorch's order, one row per result)
    var = np.empty(rows.shape[0], x.dtype)
    mean = np.empty(rows.shape[0], x.dtype)
    k = native.special()
    # (columns: a reduced leading dim, each column's updates down the rows; the same per element)
    if k is None or not (k.torch_welford_rows(rows.T, var, mean, n, float(divisor), bool(root), rows.shape[0])
                         if columns else k.torch_welford_rows(rows, var, mean, n, float(divisor), bool(root))):
        _numpy_welford(rows, var, mean, divisor, root)
    keep = tuple(1 if r else s for s, r in zip(x.shape, reduced))
    return var.reshape(keep), mean.reshape(keep)


def _numpy_welford(rows: np.ndarray, var: np.ndarray, mean: np.ndarray, divisor: float, root: bool) -> None:
    """:func:`welford`'s updates in NumPy, every row at once, one element step at a time (the
    compiled kernel's bits: the same double operations in the same order)."""
    m = np.zeros(rows.shape[0])
    m2 = np.zeros(rows.shape[0])
    with np.errstate(all="ignore"):
        for i in range(rows.shape[1]):
            v = rows[:, i].astype(np.float64)
            delta = v - m
            m = m + delta / float(i + 1)
            m2 = m2 + delta * (v - m)
        q = m2 / np.float64(divisor)
        if root:
            q = np.sqrt(q)
    var[...] = q
    mean[...] = m


def variance_parts(x: np.ndarray, axes: tuple[int, ...] | int | None, divisor: float, root: bool,
                   welford_mean: bool, keepdim: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's var (``root``: std) and mean of float64 ``x`` (at least one element) over ``axes``
    (None: every dim), fresh arrays with the reduced dims kept as 1, the way PyTorch computes them:
    :func:`all_reduce` where there is one result and ``welford_mean`` is false (``var``/``std``),
    else :func:`welford` (``var_mean``/``std_mean``: ``welford_mean``, whose mean is Welford's).

    >>> v, m = variance_parts(np.array([[1.0, 2.0], [3.0, 5.0]]), 1, 1.0, False, False)
    >>> v.tolist(), m.tolist()
    ([[0.5], [2.0]], [[1.5], [4.0]])
    """
    dims = tuple(range(x.ndim)) if axes is None else (axes % x.ndim,) if isinstance(axes, int) else \
        tuple(a % x.ndim for a in axes)
    keep = tuple(1 if d in dims else s for d, s in enumerate(x.shape))
    if not welford_mean and all(s == 1 for s in keep):
        var, mean = all_reduce(x, divisor, root)
        return np.full(keep, var, x.dtype), np.full(keep, mean, x.dtype)
    return welford(x, dims, divisor, root, keepdim)


def all_reduce(x: np.ndarray, divisor: float, root: bool) -> tuple[float, float]:
    """PyTorch's ``std_var_all_cpu`` of float32/float64 ``x`` (at least one element): the variance
    (``root``: std) over every element as a double; ``divisor`` is ``max(N - correction, 0)``;
    and the mean it centres on (``self.mean()``).

    >>> all_reduce(np.array([1.0, 2.0, 4.0]), 2.0, False)
    (2.333333333333333, 2.3333333333333335)
    """
    n = x.size
    mean = float(sum_array(x, None, False) / x.dtype.type(n))  # (self.mean(): its sum over the count)
    isz = x.itemsize
    sizes, ins, _ = iterator_dims(x.shape, tuple(s // isz for s in x.strides), (True,) * x.ndim, False)
    slab = sizes[0] * (sizes[1] if len(sizes) > 1 else 1)
    view = np.lib.stride_tricks.as_strided(x, tuple(reversed(sizes)), tuple(s * isz for s in reversed(ins)),
                                           writeable=False)
    flat = np.ascontiguousarray(view).reshape(-1)  # (the iterator's order, fastest last)
    k = native.special()
    if k is not None:
        total = k.torch_squared_deviations(flat, slab, mean)
    else:
        with np.errstate(all="ignore"):
            d = flat.astype(np.float64) - mean
            squares = (d * d).reshape(-1, slab)
            # (np.add.accumulate is sequential, left to right: each slab's running sum from 0, then theirs)
            slabs = np.add.accumulate(squares, axis=1)[:, -1]
            total = float(np.add.accumulate(np.concatenate(([0.0], slabs)))[-1])
    with np.errstate(all="ignore"):
        var = np.float64(total) / np.float64(divisor)
        return float(np.sqrt(var) if root else var), mean
