"""Diagnostics for PyTorch's DTensor (``torch.distributed.tensor``): layouts across processes.

- :mod:`.torch_api` — every PyTorch API used (private ones documented and pinned by tests);
- :mod:`.trace` — an op run on a DTensor's meta shadow: PyTorch's plan and collectives, no data;
- :mod:`.explain_dtensor` — ``strided.explain(dt, op, *args)``;
- :mod:`.reasons`, :mod:`.words` — why, and placements in words.

torch is imported lazily, inside the functions; without it they raise ImportError naming the pin.
"""

from .torch_api import is_dtensor

__all__ = ["is_dtensor"]
