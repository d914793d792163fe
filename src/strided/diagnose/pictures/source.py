"""What a picture reads of an array: its layout in storage coordinates, and a few of its values.

A :class:`Source` is the same for the three libraries: ``shape``, ``strides`` and ``offset`` in
elements over the array's storage (for NumPy, the buffer of the array that owns the memory, as
:func:`~strided.diagnose.explain_layout.explain_layout` counts it), its dtype, and ``read``,
which gives the values at a few storage offsets through the array's own API: a strided
Tensor's storage array, ``torch.Tensor.as_strided`` (absolute storage offsets), a NumPy
``as_strided`` view of one element. Only the shown elements are read; nothing is copied.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..explain import library_of
from ..explain_layout import LayoutExplanation, explain_layout

__all__ = ["Source", "source_of", "format_value"]

Reader = Callable[[int], Any]


@dataclass(frozen=True)
class Source:
    """An array as a picture sees it (see the module docstring). ``facts`` is its
    :class:`~strided.diagnose.explain_layout.LayoutExplanation` (contiguity, origin, base);
    ``value_at(k)`` is the element at storage offset ``k`` (None: values unknown)."""

    library: str
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int
    itemsize: int
    dtype: str
    facts: LayoutExplanation | None
    value_at: Reader | None

    @property
    def numel(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1

    def offset_of(self, index: Sequence[int]) -> int:
        return self.offset + sum(i * s for i, s in zip(index, self.strides))


def source_of(x: Any) -> Source:
    """The :class:`Source` of a strided Tensor, a numpy.ndarray or a torch.Tensor (TypeError otherwise)."""
    library = library_of(x)
    if library is None:
        raise TypeError(
            "draw(x, ...): x must be a strided Tensor, a numpy.ndarray or a torch.Tensor, "
            f"not {type(x).__name__}"
        )
    facts = explain_layout(x, library)
    reader = {"strided": _strided_reader, "torch": _torch_reader, "numpy": _numpy_reader}[library]
    return Source(library, tuple(facts.shape), tuple(facts.strides), facts.offset, facts.itemsize,
                  facts.dtype, facts, reader(x, facts.offset))


def _strided_reader(x: Any, offset: int) -> Reader:
    # read at call time's buffer (resize_ may reallocate later), in the tensor's own dtype (the
    # untyped storage of a view(dtype)/real/imag holds the bytes in the owner's dtype)
    array = x._storage.array
    return lambda k: array[k].item()


def _torch_reader(x: Any, offset: int) -> Reader:
    def read(k: int) -> Any:
        import torch

        with torch.no_grad():
            # as_strided's offset is absolute in the storage: one element, no copy
            return x.detach().as_strided((), (), k).item()

    return read


def _numpy_reader(x: np.ndarray, offset: int) -> Reader:
    item = x.itemsize

    def read(k: int) -> Any:
        # a two-element window whose second element sits k - offset elements from x's first:
        # its [1] is the element at storage offset k (a view; nothing copied)
        window = np.lib.stride_tricks.as_strided(x, shape=(2,), strides=((k - offset) * item,), writeable=False)
        return window[1].item()

    return read


def format_value(v: Any) -> str:
    """A short cell text for one element: ints in full, floats in 4 significant digits."""
    if v is None:
        return "?"
    if isinstance(v, bool):
        return "T" if v else "F"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isfinite(v) and v.is_integer() and abs(v) < 1e6:
            return f"{int(v)}."
        return f"{v:.4g}"
    if isinstance(v, complex):
        return f"{v.real:.3g}{v.imag:+.3g}j"
    return str(v)[:8]
