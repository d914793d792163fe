"""Named tuples returned by reductions with a dim, like ``torch.return_types``.

``t.max(dim)`` returns ``max(values, indices)``: unpack it (``v, i = t.max(1)``)
or read ``.values`` / ``.indices``.
"""

from __future__ import annotations

from typing import NamedTuple

from ..tensor import Tensor


class max(NamedTuple):  # noqa: A001,N801 - named like torch.return_types.max
    """Result of ``max(dim)``: the largest values and where they are (first occurrence; NaN wins)."""

    values: Tensor
    indices: Tensor


class min(NamedTuple):  # noqa: A001,N801 - named like torch.return_types.min
    """Result of ``min(dim)``: the smallest values and where they are (first occurrence; NaN wins)."""

    values: Tensor
    indices: Tensor
