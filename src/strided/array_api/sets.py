"""Set functions of the standard: ``unique_all``, ``unique_counts``, ``unique_inverse``,
``unique_values`` (NaNs are distinct, as the standard asks; results sorted).

>>> import strided.array_api as xp
>>> xp.unique_values(xp.asarray([3, 1, 3]))
tensor([1, 3])
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..dtypes import int64
from ..tensor import Tensor
from ._core import computed

__all__ = ["unique_all", "unique_counts", "unique_inverse", "unique_values"]


class UniqueAllResult(NamedTuple):
    values: Tensor
    indices: Tensor
    inverse_indices: Tensor
    counts: Tensor


class UniqueCountsResult(NamedTuple):
    values: Tensor
    counts: Tensor


class UniqueInverseResult(NamedTuple):
    values: Tensor
    inverse_indices: Tensor


def _idx(x: Tensor, a: np.ndarray, name: str) -> Tensor:
    return computed(name, (x,), a.astype(int64.numpy))


def unique_all(x: Tensor, /) -> UniqueAllResult:
    """The unique values, the first index of each, the inverse indices (``x``'s shape), the counts."""
    r = np.unique_all(x._np().reshape(-1))
    return UniqueAllResult(computed("unique_all", (x,), r.values), _idx(x, r.indices, "unique_all"),
                           _idx(x, r.inverse_indices.reshape(x.shape), "unique_all"), _idx(x, r.counts, "unique_all"))


def unique_counts(x: Tensor, /) -> UniqueCountsResult:
    """The unique values and how often each occurs."""
    r = np.unique_counts(x._np().reshape(-1))
    return UniqueCountsResult(computed("unique_counts", (x,), r.values), _idx(x, r.counts, "unique_counts"))


def unique_inverse(x: Tensor, /) -> UniqueInverseResult:
    """The unique values and, for each element of ``x``, the index of its value among them."""
    r = np.unique_inverse(x._np().reshape(-1))
    return UniqueInverseResult(computed("unique_inverse", (x,), r.values),
                               _idx(x, r.inverse_indices.reshape(x.shape), "unique_inverse"))


def unique_values(x: Tensor, /) -> Tensor:
    """The unique values of ``x``, sorted (each NaN counts once)."""
    return computed("unique_values", (x,), np.unique_values(x._np().reshape(-1)))
