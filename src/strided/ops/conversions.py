"""Conversions and devices as Tensor methods: ``float()``, ``double()``, ... ``type()``, ``to(...)``
as PyTorch parses it, ``detach()``, ``cpu()``, ``.device``, ``.is_cpu``.

Every conversion that changes the dtype is a copy through the one copy path (the dtype form of
``Tensor.to``, so the copy ledger shows it with its reason); one that keeps the dtype returns
``self``, as PyTorch does.

>>> t = strided.arange(3)
>>> t.float().dtype, t.long() is t
(strided.float32, True)
"""

from __future__ import annotations

from typing import Any

from ..args import memory_format_error, type_name
from ..device import CPU, TORCH_DEVICE_TYPES, device, is_device, parse_device
from ..dispatch import OPEN, adopted, materialize
from ..dtypes import CORE_DTYPES, TORCH_NAME, DType, float32, float64, int32, int64, to_dtype
from ..dtypes import bfloat16 as bfloat16_dtype
from ..errors import StridedRuntimeError, StridedTypeError, StridedValueError, join_lines
from ..grad_mode import _OWN, _own_record, own_counter
from ..gradients import seal
from ..kernels.fpstate import quietly
from ..kernels.memory import dense_run
from ..layout import plans as P
from ..layout.formats import format_strides, suggest_format
from ..memory_format import MemoryFormat, is_dense_format, preserve_format
from ..messages import error
from ..opdef import Kind, declare
from ..tensor import Tensor
from ._support.operands import _cinfo, flat_run
from .copies import as_dtype as _to_dtype  # the dtype copy: the path every conversion goes through
from .registry import backward, method

# ---------------------------------------------------------------- devices


def _device(self: Tensor) -> device:
    """The device the tensor lives on: always ``device(type='cpu')`` in strided.

    >>> strided.zeros(2).device
    device(type='cpu')
    """
    return CPU


def _is_cpu(self: Tensor) -> bool:
    """Always True: strided tensors live in main memory.

    >>> strided.zeros(2).is_cpu
    True
    """
    return True


Tensor.device = property(_device)  # type: ignore[attr-defined]
Tensor.is_cpu = property(_is_cpu)  # type: ignore[attr-defined]


@method("cpu")
def cpu(self: Tensor, memory_format: MemoryFormat = preserve_format) -> Tensor:
    """``self``: a strided tensor is already in main memory (PyTorch returns ``self`` too).

    >>> x = strided.zeros(2)
    >>> x.cpu() is x
    True
    """
    return self if memory_format is preserve_format else to(self, memory_format=memory_format)


# ---------------------------------------------------------------- dtype shorthands


def _shorthand(name: str, dtype: DType) -> Any:
    def convert(self: Tensor, memory_format: MemoryFormat = preserve_format) -> Tensor:
        if memory_format is preserve_format:  # the common case, without to()'s parsing
            if self._dtype is dtype:
                return self
            if not OPEN and dtype in _PLAIN and self._dtype in _PLAIN and (made := _plain_cast(self, dtype)) is not None:
                return made
            return _to_dtype(self, dtype, copy=True)
        return to(self, dtype, memory_format=memory_format)

    convert.__name__ = convert.__qualname__ = name
    # the copy's record is named after the method the user called (dispatch reads the code's name)
    convert.__code__ = convert.__code__.replace(co_name=name)
    convert.__doc__ = (f"``self.to({dtype!r})``: ``self`` when already {dtype.name}, else a converted copy.\n\n"
                       f"    >>> x = strided.zeros(2, dtype={dtype!r})\n"
                       f"    >>> x.{name}() is x, strided.ones(2, dtype=strided.float64).{name}().dtype\n"
                       f"    (True, {dtype!r})\n")
    return convert


# PyTorch's shorthands are its ScalarType names in lower case: float(), double(), half(), long(),
# int(), short(), char(), byte(), bool() -- one for each of the nine core dtypes
for _dt in CORE_DTYPES:
    _name = TORCH_NAME[_dt.name].lower()
    method(_name)(_shorthand(_name, _dt))


# bfloat16() as well (a dtype PyTorch added beside the nine; NumPy's through ml_dtypes)
method("bfloat16")(_shorthand("bfloat16", bfloat16_dtype))


# ---------------------------------------------------------------- type()

# PyTorch's legacy type strings: "torch.FloatTensor" for float32, ...
_TYPE_NAME = {name: f"torch.{torch}Tensor" for name, torch in TORCH_NAME.items()}
_BY_TYPE_NAME = {text: name for name, text in _TYPE_NAME.items()}


@method("type")
def type_(self: Tensor, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
    """``type()``: PyTorch's type string of this tensor ("torch.FloatTensor" for float32);
    ``type(dtype)``: ``self.to(dtype)`` (``self`` when the dtype is already so). ``dtype`` may be
    a dtype or such a type string.

    >>> strided.zeros(2).type()
    'torch.FloatTensor'
    """
    # Note: the string names PyTorch's CPU tensor type: strided answers as PyTorch would for
    # the same tensor, so code that compares type strings keeps working.
    if not isinstance(non_blocking, bool):
        raise StridedTypeError(
            join_lines(f"type(): argument 'non_blocking' (position 2) must be bool, not {type_name(non_blocking)}",
                       "non_blocking is True or False (it changes nothing on the CPU)"))
    if dtype is None:
        return _TYPE_NAME.get(self._dtype.name, f"torch.{self._dtype.name}")
    if isinstance(dtype, type) and isinstance(getattr(dtype, "dtype", None), DType):
        dtype = dtype.dtype  # a legacy tensor class (strided.LongTensor), as PyTorch's type(torch.LongTensor)
    if isinstance(dtype, str):
        name = _BY_TYPE_NAME.get(dtype)
        if name is None:
            if dtype.startswith("torch.cuda."):
                parse_device("cuda", "type")  # the CPU-only error
            raise StridedValueError(
                join_lines(
                    f"invalid type: '{dtype}'",
                    f"type() takes a dtype or a type string: {', '.join(sorted(_BY_TYPE_NAME))}",
                )
            )
        dtype = name
    elif isinstance(dtype, (int, float)) or dtype is None:
        raise StridedTypeError(
            join_lines("dtype must be a type, str, or dtype object",
                       f"got {dtype!r:.60}; pass e.g. strided.float64 or 'torch.DoubleTensor'"))
    return to(self, to_dtype(dtype))


type_.__code__ = type_.__code__.replace(co_name="type")  # records name the method: "type"


# ---------------------------------------------------------------- to(...)


def _is_dtype(value: Any) -> bool:
    if isinstance(value, DType):
        return True
    cls = value.__class__
    if cls.__module__ == "torch" and cls.__name__ == "dtype":
        return True
    try:
        to_dtype(value)
    except StridedTypeError:
        return False
    return True


def _names_device(text: str) -> bool:
    """Whether a string argument of ``to`` names a device ("cpu", "cuda:1") rather than a dtype."""
    return text.partition(":")[0] in TORCH_DEVICE_TYPES


def _parse_to(args: tuple, kwargs: dict) -> tuple[DType | None, bool, MemoryFormat]:
    """PyTorch's three overloads of ``to``, read into (dtype or None, copy, memory_format); the
    device is checked (cpu only) and dropped, ``non_blocking`` read and ignored.

    - ``to(dtype, non_blocking=False, copy=False, *, memory_format=preserve_format)``
    - ``to(device=None, dtype=None, non_blocking=False, copy=False, *, memory_format=...)``
    - ``to(other, non_blocking=False, copy=False, *, memory_format=...)``
    """
    unknown = set(kwargs) - {"dtype", "device", "non_blocking", "copy", "memory_format"}
    if unknown:
        raise _to_error(args, kwargs)
    rest = list(args)
    dtype: Any = kwargs.get("dtype")
    dev: Any = kwargs.get("device")
    if rest:
        first = rest[0]
        if isinstance(first, Tensor):
            rest.pop(0)
            dtype = first._dtype
        elif isinstance(first, str) and _names_device(first) or (not isinstance(first, str) and is_device(first)):
            rest.pop(0)
            dev = first
            if rest and rest[0] is not None and not isinstance(rest[0], bool) and _is_dtype(rest[0]):
                dtype = rest.pop(0)
            elif rest and rest[0] is None:
                rest.pop(0)
        elif first is None:
            if len(rest) == 1 and not kwargs:
                # Note: PyTorch reads a lone to(None) as the device overload with no device
                # (self); strided refuses it as a None dtype, as before the device overloads came
                to_dtype(None)
            rest.pop(0)  # to(None, dtype): the device overload with no device
            if rest and rest[0] is not None and not isinstance(rest[0], bool) and _is_dtype(rest[0]):
                dtype = rest.pop(0)
        elif not isinstance(first, bool) and _is_dtype(first):
            rest.pop(0)
            dtype = first
        elif isinstance(first, str):
            to_dtype(first)  # neither a device nor a dtype strided has: to_dtype's TypeError
        elif isinstance(first, int) and not isinstance(first, bool):
            rest.pop(0)
            dev = first  # an accelerator index: parse_device refuses it
        else:
            raise _to_error(args, kwargs)
    if len(rest) > 2:
        raise _to_error(args, kwargs)
    non_blocking = rest[0] if rest else kwargs.get("non_blocking", False)
    copy = rest[1] if len(rest) > 1 else kwargs.get("copy", False)
    if not isinstance(non_blocking, bool) or not isinstance(copy, bool):
        raise _to_error(args, kwargs)
    parse_device(dev, "to")
    return (None if dtype is None else to_dtype(dtype)), copy, kwargs.get("memory_format", preserve_format)


def _to_error(args: tuple, kwargs: dict) -> StridedTypeError:
    got = ", ".join([type_name(a) for a in args] + [f"{k}={type_name(v)}" for k, v in kwargs.items()])
    if kwargs and not args:
        got += ", "  # (PyTorch's text for keywords alone: "got (foo=int, )")
    return StridedTypeError(
        join_lines(
            f"to() received an invalid combination of arguments - got ({got}), but expected one of:",
            " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
            "bool copy = False, *, torch.memory_format memory_format = None)",
            " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
            "torch.memory_format memory_format = None)",
            " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
            "torch.memory_format memory_format = None)",
            "e.g. t.to(strided.float64), t.to('cpu'), t.to(other), t.to(dtype=strided.int32, copy=True)",
        )
    )


# The dtypes whose casts among them are NumPy's own (unsafe) casts on every path: ``to``'s fast
# path casts a row-major tensor's flat run with ``astype`` -- the values the general copy writes
# (its ``copyto`` runs the same cast loops). Only when nobody listens: the copy ledger then sees
# nothing to report. (float16/bfloat16 take the general path, which rounds them as PyTorch does.)
_PLAIN = frozenset({float32, float64, int32, int64})


def _plain_cast(self: Tensor, target: DType) -> Tensor | None:
    """The dtype copy of a row-major or permuted dense ``self`` (both dtypes in :data:`_PLAIN`,
    nobody listening: the callers test these), or None where the general copy path must run:
    NumPy's cast of its storage run is that copy's values, laid out as it lays them (row-major; a
    permuted dense tensor's own strides at offset 0, preserve_format's answer: a transpose's
    to(float64) was two walks through the general copy, 1.5x PyTorch's). (The callers call the copy
    path themselves: its record is named after the method the user called, read from the stack.)"""
    info = _cinfo[self._layout.shape]
    flat = flat_run(self, info)
    if flat is not None:
        return adopted(quietly(flat.astype, target.numpy), info[2], target)
    dense = dense_run(self, info[1])
    if dense is None:
        return None
    return adopted(quietly(dense[0].astype, target.numpy), dense[1], target)


@method("to")
def to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """This tensor with another dtype, device or memory format, parsed as PyTorch's ``to``:
    ``to(dtype)``, ``to(device, dtype)``, ``to(other)`` (its dtype), with ``non_blocking=``,
    ``copy=`` and ``memory_format=``. ``self`` when nothing changes (unless ``copy=True``), else a
    copy through the one copy path. Devices other than the CPU are refused.

    >>> t = strided.zeros(2, 3)
    >>> t.to("cpu") is t, t.to("cpu", strided.float64).dtype
    (True, strided.float64)
    """
    if not kwargs and len(args) == 1 and args[0].__class__ is DType:  # the common to(dtype): no parsing
        target = args[0]
        if target is self._dtype:
            return self
        if not OPEN and target in _PLAIN and self._dtype in _PLAIN and (made := _plain_cast(self, target)) is not None:
            return made
        return _to_dtype(self, target, copy=True)
    dtype, copy, memory_format = _parse_to(args, kwargs)
    target = self._dtype if dtype is None else dtype
    if memory_format is preserve_format:
        if target is self._dtype and not copy:
            return self
        return _to_dtype(self, target, copy=True)
    if not is_dense_format(memory_format):
        if isinstance(memory_format, MemoryFormat):
            raise StridedRuntimeError(
                join_lines(f"to(): memory format {memory_format.name} is not a dense format",
                           "pass strided.contiguous_format, strided.channels_last, strided.channels_last_3d "
                           "or strided.preserve_format"))
        raise memory_format_error(memory_format, "to")
    lay = self._layout
    dense = format_strides(lay.shape, memory_format.name)
    if dense.__class__ is not tuple:
        raise error(dense)
    # PyTorch's to_will_alias: the same dtype and the format the strides suggest: self
    if target is self._dtype and not copy and suggest_format(lay.shape, lay.strides) == memory_format.name:
        return self
    plan = P.clone(lay, memory_format.name, itemsize=target.itemsize)
    return materialize(self, plan, f"to({target.name}, memory_format={memory_format.name})", target)


@backward("to", "float", "double", "half", "type")
def _to_backward(out: Any, x: Tensor, *args: Any, **kwargs: Any) -> Any:
    """A conversion that copied: the gradient cast back to the input's dtype (none when ``to``
    returned ``self``); a complex gradient of a real input gives its real part, silently, as
    PyTorch's ``_to_copy`` backward (``at::real``), not the cast's discarding warning."""
    if out is x or not isinstance(out, Tensor):
        return None
    dtype = x._dtype

    def grad(g: Tensor) -> tuple:
        if g._dtype.is_complex and not dtype.is_complex:
            g = g.real
        return (g.to(dtype) if g._dtype is not dtype else g,)

    return "ToCopyBackward0", (x,), grad, ()


# ---------------------------------------------------------------- detach


@method("detach")
def detach(self: Tensor) -> Tensor:
    """A new tensor over the same storage and layout, its own root (``_base`` None, as PyTorch's).

    The op is reported as a view (no byte moves) and the two share memory, but the result is no
    view of ``self``: views of it are its views, so an in-place write through ``y[0]`` of a
    value that requires grad gives ``y`` the history, never ``self`` (PyTorch's behaviour).

    >>> x = strided.zeros(2)
    >>> y = x.detach()
    >>> y is x, strided.shares_memory(x, y), y._base is None
    (False, True, True)
    """
    t = self._view(self._layout)
    t._base = None
    if _OWN:  # (a detach of x.data shares its version counter, as PyTorch's detach shares one)
        rec = _own_record(self)
        if rec is not None:
            own_counter(t, rec)
    return t


@method("detach_")
def detach_(self: Tensor) -> Tensor:
    """``self`` (nothing to detach without autograd); refused on a view, as PyTorch refuses it.

    >>> x = strided.zeros(2)
    >>> x.detach_() is x
    True
    """
    if self._base is not None:
        raise StridedRuntimeError(
            join_lines(
                "Can't detach views in-place. Use detach() instead.",
                f"this tensor of shape {self._layout.shape} is a view of another tensor's storage",
                "fix: t = t.detach()",
            )
        )
    return self


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COPY, "to", explain="to")
