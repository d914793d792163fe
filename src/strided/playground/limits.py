"""The playground's size cap, shared by the expression view and its NumPy/PyTorch peers."""

from __future__ import annotations

__all__ = ["MAX_NUMEL"]

MAX_NUMEL = 10**7
"""The most elements the server allocates for one tensor of a request: a constructor's result, the
input of a step that may copy or compute, or a peer array (sized by the storage its layout spans).
Views of any size are fine: they allocate nothing."""
