"""PyTorch's CPU float sum of rows, bit for bit (``cascade_sum`` in ATen's SumKernel.cpp).

Each output element of a sum over one dim is, in PyTorch 2.13's CPU kernel:

- the reduced dim contiguous and at least one vector long (``vectorized_inner_sum``): the row's
  whole vectors (8 float32 / 4 float64 lanes: 32-byte vectors, measured) summed lane-wise by
  ``row_sum``, then ``0 + the leftover elements`` one by one, then ``+ each lane`` in order;
- otherwise (a strided row, as the real parts of a complex tensor, or a short one:
  ``scalar_inner_sum``): ``row_sum`` of the elements;
- ``row_sum``: four interleaved accumulators (element ``4 i + k`` into ``k``) through
  ``multi_row_sum``, the leftover ``size % 4`` elements into the first, then the first plus the
  other three in order;
- ``multi_row_sum``: a 4-level cascade: level 0 sums ``2**p`` rows at a time
  (``p = max(4, ceil(log2(size)) // 4)``) and is added into level 1, which is added into level 2
  every ``2**(2p)`` rows, which is added into level 3 every ``2**(3p)``; at the end level 0 (the
  rows after the last whole step) plus levels 1, 2, 3 in that order.

Every partial sum is rounded in the row's dtype (float32 sums in float32). NumPy's pairwise sum
groups differently: about half of float32 row sums of random data differ from PyTorch's by an ulp.
"""

from __future__ import annotations

import numpy as np

from . import native

_ILP = 4
_LEVELS = 4


def lanes(dtype: np.dtype) -> int:
    """``Vectorized<T>::size()`` of PyTorch's CPU sum kernel for ``dtype`` (32-byte vectors)."""
    return 32 // np.dtype(dtype).itemsize


def _sequential(blocks: np.ndarray, axis: int) -> np.ndarray:
    """``0 + b[0] + b[1] + ...`` along ``axis``, rounded at each step (NumPy's accumulate is sequential)."""
    if blocks.shape[axis] == 0:
        return np.zeros(blocks.shape[:axis] + blocks.shape[axis + 1:], blocks.dtype)
    return np.take(np.add.accumulate(blocks, axis=axis), -1, axis=axis) + blocks.dtype.type(0)


def _multi_row_sum(v: np.ndarray) -> np.ndarray:
    """``multi_row_sum`` over axis 1 of ``v`` (rows, size, ...): the cascade of the module's note."""
    size = v.shape[1]
    power = max(4, (size - 1).bit_length() // _LEVELS if size > 1 else 0)
    step = 1 << power
    blocks = size // step
    zero = np.zeros(v.shape[:1] + v.shape[2:], v.dtype)
    level1, level2, level3 = zero, zero, zero
    if blocks:
        sums = _sequential(v[:, :blocks * step].reshape(v.shape[:1] + (blocks, step) + v.shape[2:]), 2)
        for b in range(blocks):
            i = (b + 1) * step
            level1 = level1 + sums[:, b]
            if i & ((step - 1) << power):
                continue
            level2, level1 = level2 + level1, zero
            if i & ((step - 1) << (2 * power)):
                continue
            level3, level2 = level3 + level2, zero
    return ((_sequential(v[:, blocks * step:], 1) + level1) + level2) + level3


def _row_sum(v: np.ndarray) -> np.ndarray:
    """``row_sum`` over axis 1 of ``v`` (rows, size, ...): four interleaved accumulators."""
    size = v.shape[1]
    whole = size // _ILP
    parts = _multi_row_sum(v[:, :whole * _ILP].reshape(v.shape[:1] + (whole, _ILP) + v.shape[2:]))
    first = parts[:, 0]
    for i in range(whole * _ILP, size):
        first = first + v[:, i]
    for k in range(1, _ILP):
        first = first + parts[:, k]
    return first


def row_sums(x: np.ndarray, contiguous: bool = True) -> np.ndarray:
    """PyTorch's CPU sum of each row of ``x`` (rows, n), float32 or float64, in its dtype;
    ``contiguous``: the reduced dim has unit stride in PyTorch's tensor (else the scalar kernel).

    >>> x = np.float32([[0.1] * 10])
    >>> float(row_sums(x)[0]), float(np.sum(x))  # (torch.tensor(x).sum(-1): 1.0000001192092896)
    (1.0000001192092896, 1.0)
    """
    rows, n = x.shape
    width = lanes(x.dtype)
    if not (contiguous and n >= width):
        return _row_sum(x)
    vectors = n // width
    lanes_sum = _row_sum(x[:, :vectors * width].reshape(rows, vectors, width))
    total = np.zeros(rows, x.dtype)
    for k in range(vectors * width, n):
        total = total + x[:, k]
    for k in range(width):
        total = total + lanes_sum[:, k]
    return total


def norm2_rows(x: np.ndarray) -> np.ndarray:
    """PyTorch's CPU 2-norm of each row of ``x`` (rows, n), float32 or float64, where the row is
    its reduction's one contiguous run (``norm_kernel_tensor_iterator_impl``'s last-dim path:
    ``vector_norm(x)`` of a contiguous tensor, ``dim=-1``, a contiguous matrix's Frobenius norm).
    Its loop, measured bit for bit on PyTorch 2.13: lane ``l`` of a 32-byte vector accumulates
    ``x[k * W + l] ** 2`` over the row's whole vectors (each square rounded, then the sum), the
    lanes are added in order, then the leftover ``t = n % W`` elements: the first ``t - t % 4``
    as ``s + x * x`` (rounded twice), the last ``t % 4`` fused, ``fma(x, x, s)``; the square
    root in the dtype.

    >>> float(norm2_rows(np.float32([[3.0, 4.0]]))[0])
    5.0
    """
    rows, n = x.shape
    k = native.special()
    if k is not None and rows and n:
        out = np.empty(rows, x.dtype)
        if k.torch_norm2_rows(np.ascontiguousarray(x), out, n):  # (the same loop, compiled)
            return out
    from .fused import fma  # (the NumPy loop's tail only)

    with np.errstate(over="ignore", invalid="ignore"):  # (inf and NaN silently, as PyTorch)
        width = lanes(x.dtype)
        whole = n - n % width
        squares = x[:, :whole] * x[:, :whole]
        if whole:
            # (NumPy reduces a non-innermost axis element by element, in order: each lane's sequential
            # sum, as accumulate's last element but ~3x faster; pairwise summation is only along the
            # innermost axis)
            lanes_sum = np.add.reduce(squares.reshape(rows, whole // width, width), axis=1)
            total = lanes_sum[:, 0] + x.dtype.type(0)
            for k in range(1, width):
                total = total + lanes_sum[:, k]
        else:
            total = np.zeros(rows, x.dtype)
        tail = n - whole
        plain = whole + tail - tail % 4
        for k in range(whole, n):
            v = x[:, k]
            total = total + v * v if k < plain else np.asarray(fma(v, v, total), x.dtype)
        return np.sqrt(total)
