"""The dtypes strided supports, and how names, NumPy dtypes and Python values map to them.

A :class:`DType` is a small immutable object (``strided.float32``); the NumPy
dtype behind it is what the kernels use. Defaults follow PyTorch: Python floats
become float32, Python ints int64.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from .errors import StridedOverflowError, StridedTypeError, join_lines


class DType:
    """One element type: its name, NumPy dtype and category.

    >>> d = strided.float32
    >>> d.name, d.itemsize, d.is_floating_point, d.numpy
    ('float32', 4, True, dtype('float32'))
    """

    __slots__ = ("name", "numpy", "itemsize", "is_floating_point", "is_complex", "is_signed", "kind")

    def __init__(self, name: str) -> None:
        self.name = name
        self.numpy = np.dtype(name)
        self.itemsize = self.numpy.itemsize
        self.kind = "b" if name == "bool" else self.numpy.kind  # 'b', 'i', 'u', 'f', 'c'
        # As PyTorch: a complex dtype is neither floating point nor integral, and is signed.
        self.is_floating_point = self.kind == "f"
        self.is_complex = self.kind == "c"
        self.is_signed = self.kind in "ifc"

    def __repr__(self) -> str:
        return f"strided.{self.name}"

    def __reduce__(self) -> tuple[Any, ...]:
        # By name through to_dtype, so pickle, copy and deepcopy give back the one instance
        # (the module attribute of bool is ``bool_``, so a bare name would not be found).
        return (to_dtype, (self.name,))


bool_ = DType("bool")
int8 = DType("int8")
int16 = DType("int16")
int32 = DType("int32")
int64 = DType("int64")
uint8 = DType("uint8")
uint16 = DType("uint16")
uint32 = DType("uint32")
uint64 = DType("uint64")
float16 = DType("float16")
float32 = DType("float32")
float64 = DType("float64")
complex64 = DType("complex64")
complex128 = DType("complex128")


class _LazyDType(DType):
    """A dtype whose NumPy dtype comes from an optional extension module, imported on first use
    (bfloat16: ``ml_dtypes``), so ``import strided`` does not import it."""

    __slots__ = ("_numpy",)

    def __init__(self, name: str, kind: str, itemsize: int) -> None:
        self.name = name
        self._numpy = None
        self.itemsize = itemsize
        self.kind = kind
        self.is_floating_point = kind == "f"
        self.is_complex = False
        self.is_signed = True

    @property  # type: ignore[override]
    def numpy(self) -> np.dtype:
        if self._numpy is None:
            import ml_dtypes

            self._numpy = np.dtype(getattr(ml_dtypes, self.name))
        return self._numpy


bfloat16 = _LazyDType("bfloat16", "f", 2)


# The 2-byte floats, whose CPU kernels in PyTorch compute in float32 and round once ("opmath",
# ``at::opmath_type``); sums and products of them accumulate in float32 too.
REDUCED_FLOATS: tuple[DType, ...] = (float16, bfloat16)


def np_kind(np_dtype: np.dtype) -> str:
    """NumPy's kind letter of ``np_dtype``, with bfloat16 (ml_dtypes', kind 'V' to NumPy) as 'f'.

    >>> np_kind(strided.bfloat16.numpy), np_kind(np.dtype(np.int8))
    ('f', 'i')
    """
    kind = np_dtype.kind
    return "f" if kind == "V" and np_dtype.name == "bfloat16" else kind


@functools.lru_cache(maxsize=64)
def np_finfo(np_dtype: Any) -> Any:
    """``np.finfo`` of a NumPy float or complex dtype, bfloat16 included (``ml_dtypes.finfo``:
    NumPy's own refuses the extension dtype). Cached: the random fills ask on every call."""
    d = np.dtype(np_dtype)
    info = _FINFO.get(d)
    if info is None:
        if d.kind == "V" and d.name == "bfloat16":
            import ml_dtypes

            info = ml_dtypes.finfo(d)
        else:
            info = np.finfo(d)
        _FINFO[d] = info
    return info


# NumPy dtype -> its finfo (np.finfo's own cache sits behind a Python call and ``dtype.name``,
# a property that costs about 1 µs: more than a ufunc on a small tensor)
_FINFO: dict[np.dtype, Any] = {}

cfloat = complex64  # PyTorch's aliases
cdouble = complex128

ALL_DTYPES: tuple[DType, ...] = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64,
                                 uint16, uint32, uint64, complex64, complex128, bfloat16)
# The dtypes most ops compute on (the nine strided started with); PyTorch 2.13 gives the
# unsigned uint16/32/64 only creation, copies, comparisons and a few more (ops.unsigned).
CORE_DTYPES: tuple[DType, ...] = ALL_DTYPES[:9]
UNSIGNED_WIDE: tuple[DType, ...] = (uint16, uint32, uint64)
COMPLEX: tuple[DType, ...] = (complex64, complex128)
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NAME.update({"half": float16, "float": float32, "double": float64, "long": int64,
                 "int": int32, "short": int16, "cfloat": complex64, "cdouble": complex128})
_BY_NUMPY = {d.numpy: d for d in ALL_DTYPES if d is not bfloat16}

DEFAULT_FLOAT = float32  # the default float strided starts with (see default_float: the one in force)
DEFAULT_INT = int64

# The default floating dtype in force (torch.set_default_dtype): one slot, process-wide, as
# PyTorch's is: every thread and context sees the same value, and a change made in one thread is
# seen by the others (one reference swapped; no lock is needed to read or write it).
_DEFAULT: list[DType] = [DEFAULT_FLOAT]
# The caches whose entries depend on the default dtype (a Python float's dtype, an integer
# division's): each registers itself where it is defined (default_dependent) and is emptied when
# the default changes. (Changing the default while other threads run ops is a race, as in PyTorch.)
_DEPENDENT: list[dict[Any, Any]] = []


def default_dependent(cache: Any) -> Any:
    """Register ``cache`` (a dict) as one whose entries depend on the default dtype: it is emptied
    by :func:`set_default_dtype`. Returns it, so a module writes ``_cache = default_dependent({})``."""
    _DEPENDENT.append(cache)
    return cache


def default_float() -> DType:
    """The default floating dtype in force: Python floats, ``tensor([1.5])``, the float factories
    and true division of integers take it (float32 unless :func:`set_default_dtype` changed it)."""
    return _DEFAULT[0]


def default_complex() -> DType:
    """The complex dtype of the default float (complex64 of float32, complex128 of float64):
    Python complex numbers take it, as in PyTorch."""
    return complex128 if _DEFAULT[0] is float64 else complex64


def get_default_dtype() -> DType:
    """The default floating dtype (``torch.get_default_dtype``).

    >>> strided.get_default_dtype()
    strided.float32
    """
    return _DEFAULT[0]


def set_default_dtype(d: Any) -> None:
    """Make ``d`` (float32 or float64) the default floating dtype, as ``torch.set_default_dtype``:
    ``tensor([1.5])``, ``zeros(2)``, ``rand(2)``, an integer tensor times a Python float and
    ``tensor([1j])`` (its complex counterpart) follow it.

    Thread behaviour: as PyTorch's, the setting is process-wide (not per thread or context):
    set it once at start-up, or restore it in a ``try``/``finally``.

    >>> strided.set_default_dtype(strided.float64)
    >>> strided.tensor([1.5]).dtype, strided.tensor([1j]).dtype
    (strided.float64, strided.complex128)
    >>> strided.set_default_dtype(strided.float32)
    """
    if not isinstance(d, DType) and getattr(type(d), "__module__", "") != "torch":
        raise StridedTypeError(f"set_default_dtype(): argument 'd' (position 1) must be torch.dtype, not {type(d).__name__}")
    dt = to_dtype(d)
    if not dt.is_floating_point:
        raise StridedTypeError(
            f"only floating-point types are supported as the default type\n  got {dt!r}; "
            "pass strided.float32 or strided.float64"
        )
    if dt is float16:
        # PyTorch's float16 default makes Python complex numbers complex32, a dtype strided lacks
        from .errors import StridedNotImplementedError

        raise StridedNotImplementedError(
            "set_default_dtype(float16) is not supported by strided: its complex counterpart, complex32, "
            "is not a strided dtype\n  fix: set strided.float32 or strided.float64, and ask for "
            "dtype=strided.float16 where you want half precision"
        )
    if dt is not _DEFAULT[0]:
        _DEFAULT[0] = dt
        for cache in _DEPENDENT:
            cache.clear()

SUPPORTED = ", ".join(d.name for d in ALL_DTYPES)


def to_dtype(value: object) -> DType:
    """Resolve a dtype given as a DType, a name ("float32") or a NumPy dtype or type.

    Raises TypeError naming the supported dtypes for anything else.
    """
    if isinstance(value, DType):
        return value
    if value is None:  # np.dtype(None) would be float64
        raise StridedTypeError(
            f"dtype must be a dtype, not None\n  strided supports {SUPPORTED} "
            "(given as strided.float32, a name like 'float32', or a NumPy dtype)"
        )
    if isinstance(value, str):
        found = _BY_NAME.get(value)
        if found is not None:
            return found
    else:
        name = getattr(value, "__module__", "")
        if name == "torch":  # a torch.dtype: map by its name without importing torch
            found = _BY_NAME.get(str(value).removeprefix("torch."))
            if found is not None:
                return found
        try:
            np_dtype = np.dtype(value)  # type: ignore[call-overload]
        except (TypeError, ValueError):
            np_dtype = None
        if np_dtype is not None and np_dtype.isnative and from_numpy_dtype(np_dtype) is not None:
            return from_numpy_dtype(np_dtype)
        if value is float:
            return DEFAULT_FLOAT
        if value is int:
            return DEFAULT_INT
        if value is bool:
            return bool_
    raise StridedTypeError(
        f"unsupported dtype {value!r}; strided supports {SUPPORTED} "
        "(given as strided.float32, a name like 'float32', or a NumPy dtype)"
    )


def from_numpy_dtype(np_dtype: np.dtype) -> DType | None:
    """The DType of a native-byte-order NumPy dtype, or None if unsupported."""
    if not np_dtype.isnative:
        return None
    found = _BY_NUMPY.get(np_dtype)
    if found is None and np_dtype.name == "bfloat16" and np_dtype == bfloat16.numpy:
        return bfloat16
    return found


# The one table of the names PyTorch's messages give each dtype, keyed by dtype name. Each
# column is named by the messages that print it:
#   TORCH_NAME: the ScalarType name: "expected scalar type Long but found Float",
#               "\"addmm_impl_cpu_\" not implemented for 'Half'", "result type Float can't be cast ...";
#   C10_NAME:   the c10 type of c10::overflows (a Python number written into a tensor: fill_,
#               full, t[i] = x): "value cannot be converted to type int64_t without overflow";
#   CPP_NAME:   the C++ type name (typeid, as GCC demangles it) some kernels print: "expected m1
#               and m2 to have the same dtype, but got: long int != float", "short unsigned int".
_NAMES = {  # name: (TORCH_NAME, C10_NAME, CPP_NAME)
    "bool": ("Bool", "bool", "bool"),
    "uint8": ("Byte", "uint8_t", "unsigned char"),
    "int8": ("Char", "int8_t", "signed char"),
    "int16": ("Short", "int16_t", "short int"),
    "int32": ("Int", "int", "int"),
    "int64": ("Long", "int64_t", "long int"),
    "float16": ("Half", "c10::Half", "c10::Half"),
    "float32": ("Float", "float", "float"),
    "float64": ("Double", "double", "double"),
    "uint16": ("UInt16", "uint16_t", "short unsigned int"),
    "uint32": ("UInt32", "uint32_t", "unsigned int"),
    "uint64": ("UInt64", "uint64_t", "long unsigned int"),
    "complex64": ("ComplexFloat", "c10::complex<float>", "c10::complex<float>"),
    "complex128": ("ComplexDouble", "c10::complex<double>", "c10::complex<double>"),
    "bfloat16": ("BFloat16", "c10::BFloat16", "c10::BFloat16"),
}
TORCH_NAME = {name: row[0] for name, row in _NAMES.items()}


def tensor_type_text(name: str) -> str:
    """PyTorch's name of a CPU tensor's type in its argument-check messages
    (``TensorBase::toString``) for the dtype ``name``: the legacy type for the eight dtypes that
    have one (``torch.FloatTensor``), else the dispatch key and scalar type (``CPUBoolType``,
    ``CPUBFloat16Type``, ``CPUComplexFloatType``, ``CPUUInt16Type``).

    >>> tensor_type_text("float32"), tensor_type_text("bool")
    ('torch.FloatTensor', 'CPUBoolType')
    """
    torch_name = TORCH_NAME.get(name, name)
    if name in _LEGACY_TYPES:
        return f"torch.{torch_name}Tensor"
    return f"CPU{torch_name}Type"


_LEGACY_TYPES = frozenset(("float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8"))
C10_NAME = {name: row[1] for name, row in _NAMES.items()}
CPP_NAME = {name: row[2] for name, row in _NAMES.items()}
assert set(_NAMES) == {d.name for d in ALL_DTYPES}


def real_of(dtype: DType) -> DType:
    """The dtype of a complex dtype's parts (complex64 -> float32); any other dtype itself."""
    return _REAL_OF.get(dtype, dtype)


def complex_of(dtype: DType) -> DType | None:
    """The complex dtype whose parts are ``dtype`` (float32 -> complex64), or None (PyTorch's
    complex32 of float16 is not in strided, nor in NumPy)."""
    return _COMPLEX_OF.get(dtype)


_REAL_OF = {complex64: float32, complex128: float64}
_COMPLEX_OF = {float32: complex64, float64: complex128}


def scalar_overflow(value: object, dtype: DType, c_name: bool = True) -> str | None:
    """PyTorch's ``c10::overflows`` check for a Python number written into ``dtype``.

    Returns the first line of PyTorch's error ("value cannot be converted to type
    uint8_t without overflow"), or None when the value fits. Rules (as PyTorch):
    bool and float64 take anything; float16 and float32 refuse finite values beyond
    their range (# Note: PyTorch skips the float16 check when filling a single element); integer types refuse nan, inf and out-of-range values, where an
    unsigned type also accepts Python ints down to ``-max`` (they wrap).
    """
    if dtype.kind == "b":  # (any number: its truth, a complex one's too)
        return None
    if isinstance(value, (complex, np.complexfloating)) and dtype.kind != "c":
        if value.imag != 0:  # PyTorch refuses to drop an imaginary part here
            return f"value cannot be converted to type {C10_NAME[dtype.name] if c_name else dtype.name} without overflow"
        value = value.real
    if isinstance(value, (bool, np.bool_)) or dtype.kind == "b" or dtype.name in ("float64", "complex128"):
        return None
    if dtype.kind == "c":
        z = complex(value)  # type: ignore[arg-type]
        big = float(np.finfo(np.float32).max)
        bad = any(math.isfinite(p) and abs(p) > big for p in (z.real, z.imag))  # (Python floats)
    elif dtype.kind == "f":
        f = float(value)  # type: ignore[arg-type]
        bad = math.isfinite(f) and abs(f) > float(np_finfo(dtype.numpy).max)  # (math's: f is a Python float)
    else:
        info = np.iinfo(dtype.numpy)
        if isinstance(value, (int, np.integer)):
            v = int(value)
            low = -int(info.max) if dtype.kind == "u" else int(info.min)
            bad = not (low <= v <= int(info.max))
        else:
            f = float(value)  # type: ignore[arg-type]
            bad = not math.isfinite(f) or f < float(info.min) or f > float(info.max)
    if not bad:
        return None
    name = C10_NAME[dtype.name] if c_name else dtype.name
    return f"value cannot be converted to type {name} without overflow"


def check_int64(value: object, op: str) -> None:
    """PyTorch reads a Python int scalar as int64: one beyond that range is refused, whatever the dtype."""
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63:
        raise StridedOverflowError(
            join_lines(
                "Overflow when unpacking long long",
                f"{op} was given the Python int {value}, outside int64's range "
                f"[{-(2**63)}, {2**63 - 1}]; scalars are read as int64 first",
                "fix: pass it as a float (float(value)) if an approximate value will do",
            )
        )


def scalar_dtype(value: object) -> DType | None:
    """The dtype a Python scalar takes, as PyTorch infers it (float -> float32), or None."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return DEFAULT_INT
    if isinstance(value, float):
        return _DEFAULT[0]
    if isinstance(value, complex):
        return default_complex()  # PyTorch: the complex dtype of the default float
    return None
