"""Named tuples returned by reductions with a dim, like ``torch.return_types``.

``t.max(dim)`` returns ``max(values, indices)``: unpack it (``v, i = t.max(1)``)
or read ``.values`` / ``.indices``.

The classes are made on the first read of any of them (PEP 562:
:func:`strided.lazy_names.classes_on_first_use`; ten named tuple classes were ~0.6 ms of
``import strided``): each is the class a module-level definition would make, the same one
whenever asked.
"""

from __future__ import annotations

from typing import NamedTuple

from ...lazy_names import classes_on_first_use
from ...tensor import Tensor


def _define() -> tuple[type, ...]:
    """The classes, made on the first read of any of them (see the module doc)."""

    class max(NamedTuple):  # noqa: A001,N801 - named like torch.return_types.max
        """Result of ``max(dim)``: the largest values and where they are (first occurrence; NaN wins)."""

        values: Tensor
        indices: Tensor

    class min(NamedTuple):  # noqa: A001,N801 - named like torch.return_types.min
        """Result of ``min(dim)``: the smallest values and where they are (first occurrence; NaN wins)."""

        values: Tensor
        indices: Tensor

    class sort(NamedTuple):  # noqa: N801 - named like torch.return_types.sort
        """Result of ``sort(dim)``: the values in order and where each came from."""

        values: Tensor
        indices: Tensor

    class topk(NamedTuple):  # noqa: N801 - named like torch.return_types.topk
        """Result of ``topk(k, dim)``: the k largest (or smallest) values and where they are."""

        values: Tensor
        indices: Tensor

    class kthvalue(NamedTuple):  # noqa: N801 - named like torch.return_types.kthvalue
        """Result of ``kthvalue(k, dim)``: the k-th smallest value and where it is."""

        values: Tensor
        indices: Tensor

    class cummax(NamedTuple):  # noqa: N801 - named like torch.return_types.cummax
        """Result of ``cummax(dim)``: the running maximum and where it was reached (last tie; NaN sticks)."""

        values: Tensor
        indices: Tensor

    class cummin(NamedTuple):  # noqa: N801 - named like torch.return_types.cummin
        """Result of ``cummin(dim)``: the running minimum and where it was reached (last tie; NaN sticks)."""

        values: Tensor
        indices: Tensor

    class median(NamedTuple):  # noqa: N801 - named like torch.return_types.median
        """Result of ``median(dim)``: the lower median of each row and where it is."""

        values: Tensor
        indices: Tensor

    class nanmedian(NamedTuple):  # noqa: N801 - named like torch.return_types.nanmedian
        """Result of ``nanmedian(dim)``: the lower median of each row's non-NaN values and where it is."""

        values: Tensor
        indices: Tensor

    class mode(NamedTuple):  # noqa: N801 - named like torch.return_types.mode
        """Result of ``mode(dim)``: the most frequent value of each row and its last index."""

        values: Tensor
        indices: Tensor

    return (max, min, sort, topk, kthvalue, cummax, cummin, median, nanmedian, mode)


__getattr__, __dir__ = classes_on_first_use(globals(), (
    'max', 'min', 'sort', 'topk', 'kthvalue', 'cummax', 'cummin', 'median', 'nanmedian', 'mode'), _define)
