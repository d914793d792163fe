"""Error classes of strided.

Every error strided raises is an instance of :class:`StridedError` *and* of the
builtin class that PyTorch or NumPy raises for the same mistake, so both
``except RuntimeError`` (peer-compatible code) and ``except strided.StridedError``
(strided-aware code) catch it.

Messages follow one shape: the first line reads like the peer library's own
message (so a web search still finds help), the following lines explain the
layout reason in the tensor's own numbers and name a fix that exists.
"""

from __future__ import annotations

from typing import Any


class StridedError(Exception):
    """Base class of every error raised by strided.

    Every subclass pickles and deep-copies with its message (``args``) and its extra
    attributes (a :class:`ViewError`'s ``refusal``), whatever its ``__init__`` takes: an error
    raised in a ``multiprocessing`` worker must reach the parent intact.
    """

    def __reduce__(self) -> tuple[Any, ...]:
        # BaseException's own reduce calls ``cls(*args)``, which fails for subclasses whose
        # __init__ needs more than the message; rebuild without calling __init__ instead.
        return (_rebuild_error, (type(self), self.args), self.__dict__ or None)


def _rebuild_error(cls: type[StridedError], args: tuple[Any, ...]) -> StridedError:
    """An instance of ``cls`` holding ``args``, made without running ``cls.__init__``."""
    error = cls.__new__(cls, *args)
    error.args = args
    return error


class StridedRuntimeError(StridedError, RuntimeError):
    """A RuntimeError: what PyTorch raises for layout and size mistakes."""


class StridedIndexError(StridedError, IndexError):
    """An IndexError: a dim or an index out of range."""


class StridedValueError(StridedError, ValueError):
    """A ValueError: what NumPy raises for bad shapes and impossible no-copy requests."""


class StridedAxisError(StridedValueError, IndexError):
    """NumPy's ``AxisError`` (a ValueError and an IndexError): an axis out of bounds."""


class StridedShapeMismatchError(StridedRuntimeError, ValueError):
    """Shapes that do not broadcast, where PyTorch raises RuntimeError and NumPy ValueError for
    the same call (``broadcast_shapes``): both classes, so code written for either catches it."""


class StridedShapeTypeError(StridedRuntimeError, TypeError):
    """A shape of the wrong kind where PyTorch raises RuntimeError and NumPy TypeError for the same
    call (``broadcast_shapes(1.5)``): both classes."""


class StridedDataKindError(StridedRuntimeError, TypeError):
    """``tensor()`` data holding an item with no dtype (``None``, an object, a dict), where
    PyTorch raises RuntimeError ("Could not infer dtype of NoneType"): both classes, as the
    item is also of the wrong type."""


class StridedStringDataError(StridedValueError, TypeError):
    """``tensor()`` of a sequence holding a string, where PyTorch raises ValueError (it reads the
    string as one more dimension: "too many dimensions 'str'"): both classes."""


class StridedTypeError(StridedError, TypeError):
    """A TypeError: an argument of the wrong kind."""


class StridedKeyError(StridedError, KeyError):
    """A KeyError: a name that cannot be registered or looked up (a module's parameter names)."""


class StridedAttributeError(StridedError, AttributeError):
    """An AttributeError: an attribute a module does not have, or one set before its ``__init__``."""


class StridedOverflowError(StridedValueError, OverflowError):
    """A Python int beyond int64: PyTorch raises OverflowError or ValueError for it, depending on the op."""


class StridedBufferError(StridedError, BufferError):
    """A BufferError: memory that cannot be shared as asked (DLPack's class for a refused export)."""


class ViewError(StridedRuntimeError):
    """``view`` was asked for a shape the strides cannot express without a copy.

    ``refusal`` holds the :class:`strided.layout.ReshapeRefusal` that explains why.
    """

    def __init__(self, message: str, refusal: object) -> None:
        super().__init__(message)
        self.refusal = refusal


class OverlapWriteError(StridedRuntimeError):
    """A write into a tensor where several elements share one memory location."""


class UpdatesInOrder(OverlapWriteError):
    """An in-place elementwise update of a tensor whose elements share memory without a stride-0
    dim (``unfold`` windows), which PyTorch computes one element after another in its loop's
    order: raised by the op's in-place checks before anything is written, and caught by the
    in-place entry (:func:`strided.grad_mode.track_inplace`), which makes those updates
    (:mod:`strided.ops._support.overlap_updates`). Uncaught, it is the refusal it carries."""


class LinAlgError(StridedRuntimeError):
    """PyTorch's ``torch.linalg.LinAlgError`` (a RuntimeError): a LAPACK routine failed on the
    input's values (a singular matrix to invert, a matrix that is not positive-definite)."""


class StridedNotImplementedError(StridedRuntimeError, NotImplementedError):
    """A NotImplementedError (a RuntimeError): an op with no kernel for a dtype, as PyTorch raises it."""


class BroadcastError(StridedValueError):
    """Raised in ``strided.broadcasting("raise")`` mode for a broadcast that stretched both operands."""


class BroadcastWarning(UserWarning):
    """Warned in ``strided.broadcasting("warn")`` mode for a broadcast that stretched both operands."""


def join_lines(first: str, *details: str) -> str:
    """Build a message: the peer-compatible first line, then indented detail lines."""
    lines = [first]
    lines.extend("  " + d for d in details if d)
    return "\n".join(lines)
