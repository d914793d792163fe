"""PyTorch's intra-op thread count set to the one strided assumes, for tests of kernels whose bits
depend on PyTorch's ``parallel_for`` chunks (``_vec_softmax``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch

from strided.kernels.torch_loops import torch_threads


@contextlib.contextmanager
def torch_threads_as_assumed() -> Iterator[None]:
    """``torch.set_num_threads(torch_threads())`` (:func:`strided.kernels.torch_loops.torch_threads`)
    inside the block, PyTorch's count restored after (other test files set 1 at import)."""
    before = torch.get_num_threads()
    torch.set_num_threads(torch_threads())
    try:
        yield
    finally:
        torch.set_num_threads(before)
