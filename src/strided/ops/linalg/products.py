"""The named products PyTorch defines through matmul and dot: ``mv``, ``inner`` and ``vdot``.

Each checks its operands as PyTorch does (its error texts first), then is the product it names:
``mv(A, x)`` is ``A @ x`` for a matrix and a vector; ``inner(a, b)`` contracts the last dims of
both (``a * b`` when one is 0-d); ``vdot(a, b)`` is ``dot(a.conj(), b)``. Their gradients are the
rules of the ops they run (matmul's, dot's, mul's), which give PyTorch's values.

>>> strided.mv(strided.tensor([[1.0, 2.0], [3.0, 4.0]]), strided.tensor([1.0, 1.0])).tolist()
[3.0, 7.0]
>>> strided.inner(strided.tensor([[1, 2], [3, 4]]), strided.tensor([1, 10])).tolist()
[21, 43]
"""

from __future__ import annotations

from typing import Any

from ...errors import StridedRuntimeError, join_lines
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from ..registry import method


@method("mv")
def mv(input: Tensor, vec: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    """Matrix (n, m) times vector (m,): an (n,) tensor (``torch.mv``), PyTorch's checks first.

    >>> strided.tensor([[1, 0], [0, 2]]).mv(strided.tensor([5, 6])).tolist()
    [5, 12]
    """
    a = tensor_arg(input, "mv")
    v = tensor_arg(vec, "mv", "vec", 2)
    if a.ndim != 2 or v.ndim != 1:
        raise StridedRuntimeError(join_lines(
            f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}",
            f"input has shape {tuple(a.shape)}, vec {tuple(v.shape)}: mv takes a matrix and a vector; "
            "fix: strided.matmul for other shapes"))
    return a.matmul(v) if out is None else a.matmul(v, out=out)


@method("inner")
def inner(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    """The sums of products over the last dims of both (``torch.inner``): shape
    ``input.shape[:-1] + other.shape[:-1]``; ``input * other`` when either is 0-d.

    >>> strided.inner(strided.ones(2, 3), strided.ones(4, 3)).shape
    (2, 4)
    """
    a = tensor_arg(input, "inner")
    b = tensor_arg(other, "inner", "other", 2)
    if a.ndim == 0 or b.ndim == 0:
        result = a * b
    else:
        if a.shape[-1] != b.shape[-1]:
            raise StridedRuntimeError(join_lines(
                f"inner() the last dimension must match on both input tensors but got shapes "
                f"{list(a.shape)} and {list(b.shape)}",
                f"inner contracts the last dims: {a.shape[-1]} and {b.shape[-1]} differ"))
        if a._dtype is not b._dtype:
            raise StridedRuntimeError(join_lines(
                "both inputs should have same dtype",
                f"input is {a._dtype.name}, other {b._dtype.name}; fix: convert one, e.g. other.to(input.dtype)"))
        k = a.shape[-1]
        # PyTorch's tensordot over the last dims: a matrix product of the two flattened to (-1, k)
        result = a.reshape(-1, k).matmul(b.reshape(-1, k).t()).reshape((*a.shape[:-1], *b.shape[:-1]))
    if out is not None:
        from .._support.out import write_out

        return write_out(out, result, "inner", (a, b))
    return result


@method("vdot")
def vdot(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """``sum(conj(input) * other)`` of two 1-D tensors of one length and dtype (``torch.vdot``):
    ``dot`` of the first one conjugated, with dot's checks.

    >>> strided.vdot(strided.tensor([1j, 2]), strided.tensor([1j, 3])).item()
    (7+0j)
    """
    a = tensor_arg(input, "vdot")
    b = tensor_arg(other, "vdot", "other", 2)
    return (a.conj() if a._dtype.is_complex else a).dot(b)


declare(Kind.COMPUTE, "mv inner vdot")
