"""The reference bits of a float32/float64 matrix product, for tests that compare strided's products
bit for bit: PyTorch's (one thread) where the optional MKL route (strided.kernels.blas_route) takes
the product, NumPy's matmul elsewhere (NumPy's OpenBLAS: strided's path without MKL, and under
STRIDED_BLAS=openblas)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

from strided.kernels import blas_route


def route_takes(m: int, k: int, p: int, dtype: np.dtype | type) -> bool:
    """Whether strided's (m, k) @ (k, p) product of ``dtype`` is MKL's gemm as PyTorch calls it."""
    return (np.dtype(dtype) in (np.float32, np.float64) and k >= 1 and m >= blas_route.MIN_ROWS
            and p >= blas_route.MIN_COLS and blas_route.lib() is not None)


@contextlib.contextmanager
def one_torch_thread() -> Iterator[None]:
    """PyTorch on one thread (MKL's bits depend on its thread count; the route runs sequentially)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def reference_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` (2-D or batched) with the bits strided's product should have."""
    batched = a.ndim > 2 or b.ndim > 2
    if (a.ndim >= 2 and b.ndim >= 2 and route_takes(a.shape[-2], a.shape[-1], b.shape[-1], a.dtype)
            and (not batched or a.shape[-2] * a.shape[-1] * b.shape[-1] >= blas_route.BMM_LOOP)):
        import torch

        with one_torch_thread():
            return torch.matmul(torch.from_numpy(a), torch.from_numpy(b)).numpy()  # (the same layouts)
    with np.errstate(all="ignore"):
        return np.matmul(a, b)


def reference_addmm(base: np.ndarray, a: np.ndarray, b: np.ndarray, beta: float, alpha: float) -> np.ndarray | None:
    """PyTorch's addmm bits (one thread) where the MKL route takes the product, else None (the
    caller's NumPy reference; also where PyTorch refuses a factor)."""
    if not route_takes(a.shape[0], a.shape[1], b.shape[1], a.dtype):
        return None
    import torch

    with one_torch_thread():
        try:
            return torch.addmm(torch.from_numpy(base), torch.from_numpy(a), torch.from_numpy(b), beta=beta,
                               alpha=alpha).numpy()
        except RuntimeError:  # (a factor the dtype cannot hold: strided leaves it to its other paths)
            return None
