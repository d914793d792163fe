"""``explain``: what an operation would do to an array — view, copy, compute or error — and why,
predicted without running it; or, with no op, what the array's layout is.

One entry for three libraries, each op judged in the rules of ``x``'s own library:

- strided Tensors and PyTorch tensors: the layout ops of :data:`~.explain_torch.TORCH_OPS`
  (:func:`~.explain_torch.explain_torch`: strided's own methods run on a data-less shadow);
- NumPy arrays: the NumPy layout ops of ``strided.diagnose.explain_numpy`` (``NUMPY_OPS``);
- any library: the binary elementwise ops of :data:`~.explain_broadcast.ELEMENTWISE_OPS`, with a
  second operand (an array of any of the three kinds, a Python number, or a shape tuple);
- no op: a :class:`~.explain_layout.LayoutExplanation`;
- PyTorch DTensors: any Tensor method, predicted across ranks by PyTorch's own sharding
  propagation (:mod:`.distributed.explain_dtensor`, a ``DTensorExplanation``).

``explain`` never runs the operation on ``x``'s data, never allocates the result and never
changes ``x``. Only misuse of ``explain`` itself raises (``x`` not an array: TypeError; an op
name the library lacks: ValueError listing the accepted ones); a call the library would refuse
is predicted as an ``"error"`` outcome.

Example::

    >>> r = explain(torch.zeros(3, 4).t(), "view", 12)
    >>> r.outcome, r.error_class
    ('error', 'RuntimeError')
    >>> print(r.fixes[0])
    x.reshape(12)  (copies 48 bytes; a new contiguous tensor)
"""

from __future__ import annotations

from typing import Any

from .distributed import is_dtensor
from .explain_broadcast import ELEMENTWISE_OPS, check_strided_layout, explain_elementwise, library_of
from .explain_layout import LayoutExplanation, explain_layout
from .explain_torch import TORCH_OPS, explain_torch
from .report import Explanation

__all__ = ["explain", "library_of"]


def _itemsize(x: Any, library: str) -> int:
    return x.element_size() if library == "torch" else x.itemsize


def explain(x: Any, op: str | None = None, /, *args: Any, **kwargs: Any) -> Explanation | LayoutExplanation:
    """Predict ``op`` on ``x`` (an :class:`~.report.Explanation`), or describe ``x``'s layout
    when no op is given (a :class:`~.explain_layout.LayoutExplanation`).

    ``x`` is a strided Tensor, a ``numpy.ndarray`` or a ``torch.Tensor``; ``op`` names a layout
    op of that library (``explain(x, "reshape", 12)`` predicts ``x.reshape(12)``) or a binary
    elementwise op with its second operand (``explain(pred, "sub", target)``, or a shape:
    ``explain(pred, "sub", (64,))``).

    >>> explain(strided.zeros(4, 1), "sub", (4,)).broadcast.bilateral
    True
    """
    if is_dtensor(x):  # a layout across processes: PyTorch's sharding propagation, no collective run
        from .distributed.explain_dtensor import explain_dtensor

        return explain_dtensor(x, op, args, kwargs)  # type: ignore[return-value]
    library = library_of(x)
    if library is None:
        raise TypeError(
            "explain(x, ...): x must be a strided Tensor, a numpy.ndarray or a torch.Tensor, "
            f"not {type(x).__name__}"
        )
    if library == "torch":
        check_strided_layout(x)
    if library == "numpy":
        from .explain_numpy import check_element_strides

        check_element_strides(x)
    if op is None:
        if args or kwargs:
            raise TypeError("explain(x, op, *args): name the op first (a string), then its arguments")
        return explain_layout(x, library)
    if not isinstance(op, str):
        raise TypeError(f"explain(x, op, ...): op must be an op name (a string), not {type(op).__name__}")
    if op in ELEMENTWISE_OPS:
        if len(args) != 1 or kwargs:
            raise TypeError(
                f"explain(x, {op!r}, other): an elementwise op takes exactly one second operand "
                "(a strided Tensor, a numpy.ndarray, a torch.Tensor, a Python number or a shape tuple), "
                f"got {len(args)} positional and {len(kwargs)} keyword arguments"
            )
        return explain_elementwise(x, op, args[0], library, _itemsize(x, library))
    if library == "numpy":
        try:
            from . import explain_numpy as npx  # written beside this module; wired at merge
        except ImportError:
            raise NotImplementedError(
                f"explain: NumPy layout ops ({op!r}) need strided.diagnose.explain_numpy, which this "
                f"build lacks; the elementwise ops work: {', '.join(ELEMENTWISE_OPS)}"
            ) from None
        if op not in npx.NUMPY_OPS:
            raise ValueError(_unknown(op, "a numpy.ndarray", npx.NUMPY_OPS))
        return npx.explain_numpy(x, op, args, kwargs)
    if op not in TORCH_OPS:
        raise ValueError(_unknown(op, "a PyTorch tensor" if library == "torch" else "a strided Tensor", TORCH_OPS))
    return explain_torch(x, op, args, kwargs)


def _unknown(op: str, what: str, ops: tuple[str, ...]) -> str:
    return (f"explain: unknown op {op!r} for {what}; accepted layout ops: {', '.join(ops)}; "
            f"elementwise ops: {', '.join(ELEMENTWISE_OPS)}")
