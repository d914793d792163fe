"""``strided.Size``: a shape as a tuple of ints, PyTorch's ``torch.Size``.

A tuple subclass, so it is accepted wherever a shape is (``zeros(s)``, ``reshape(s)``,
``expand(s)``, ...) and equals the tuple of its sizes. Its items are ints (Python ints, NumPy
integers, bools and 1-element integer tensors read as ints; anything else is PyTorch's
TypeError); ``numel()`` is their product; slicing, ``+`` and ``*`` give a Size, as PyTorch's do
(``(1,) + Size`` too).

``Tensor.shape`` and ``Tensor.size()`` stay plain tuples: every layout holds its shape as a
tuple, read on every op, and a Size there would change the printed form of every shape.

>>> s = strided.Size([2, 3])
>>> s, s.numel(), s == (2, 3), s[1:], (1,) + s
(strided.Size([2, 3]), 6, True, strided.Size([3]), strided.Size([1, 2, 3]))
>>> strided.zeros(s).shape
(2, 3)
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import Any, SupportsIndex, overload

from .errors import StridedTypeError, join_lines

__all__ = ["Size"]


def _item(value: Any, i: int) -> int:
    try:
        if isinstance(value, float) or hasattr(value, "dtype") and getattr(value.dtype, "is_floating_point", False):
            raise TypeError
        return operator.index(value)
    except TypeError:
        raise StridedTypeError(join_lines(
            f"torch.Size() takes an iterable of 'int' (item {i} is '{type(value).__name__}')",
            "a size is a whole number of elements per dim", "fix: int(...) each size")) from None


class Size(tuple):
    """A shape: a tuple of ints (module doc)."""

    __slots__ = ()

    def __new__(cls, sizes: Iterable[Any] = ()) -> Size:
        if isinstance(sizes, (int, float)) or not hasattr(sizes, "__iter__"):
            raise StridedTypeError(join_lines(f"'{type(sizes).__name__}' object is not iterable",
                                              "Size takes the sizes as one iterable: Size([2, 3])"))
        return super().__new__(cls, [_item(v, i) for i, v in enumerate(sizes)])

    def numel(self) -> int:
        """The product of the sizes: the number of elements of a tensor of this shape (1 for ``Size([])``).

        >>> strided.Size([2, 3, 4]).numel()
        24
        """
        n = 1
        for s in self:
            n *= s
        return n

    def __repr__(self) -> str:
        return f"strided.Size({list(self)})"

    __str__ = __repr__

    @overload
    def __getitem__(self, index: SupportsIndex) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> Size: ...

    def __getitem__(self, index: Any) -> Any:
        got = tuple.__getitem__(self, index)
        return Size(got) if isinstance(index, slice) else got

    def __add__(self, other: Any) -> Size:  # type: ignore[override]
        if not isinstance(other, tuple):
            raise StridedTypeError(join_lines(f"can only concatenate tuple (not {type(other).__name__}) to torch.Size",
                                              "fix: tuple(...) the other sizes"))
        return Size(tuple.__add__(self, other))

    def __radd__(self, other: Any) -> Size:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, n: SupportsIndex) -> Size:  # type: ignore[override]
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def __reduce__(self) -> tuple[Any, ...]:
        return (Size, (tuple(self),))
