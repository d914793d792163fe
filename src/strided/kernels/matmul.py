"""Matrix-product kernel: NumPy's matmul (BLAS) over zero-copy views of the operands."""

from __future__ import annotations

import numpy as np


def matmul_into(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = a @ b`` for NumPy views ``a`` (..., n, k) and ``b`` (..., k, p), batch dims
    already broadcast by the caller's shapes; ``out`` is a fresh C-contiguous (..., n, p).

    An empty contraction (k == 0) gives zeros; inf/NaN arise silently, as in PyTorch.
    NumPy may buffer operands BLAS cannot take as they are (its own internal work, not
    a strided copy).
    """
    if not out.size:
        return
    if a.shape[-1] == 0:  # nothing to contract: the empty sums are 0
        out[...] = 0
        return
    with np.errstate(over="ignore", invalid="ignore"):
        np.matmul(a, b, out=out)
