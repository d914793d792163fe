"""strided: N-dimensional tensors whose memory you can see and trust.

Every tensor is one flat storage plus a layout (shape, strides, storage
offset). Views never copy; copies say so. Tensor methods follow PyTorch; the
module functions with ``order=``/``copy=`` follow NumPy.
"""

import gc as _gc
import typing as _typing

from .lazy_names import OwnModules as _OwnModules
from .lazy_names import lazy_attribute as _lazy_attribute

# The package's own modules are found by one finder while the package loads (until the end of
# this file): the same specs as Python's path finder, without its walk (strided.lazy_names.OwnModules).
_own_modules = _OwnModules(__name__, __path__[0])
del _OwnModules

# The cyclic garbage collector is paused while the package loads (until the end of this file):
# the import makes thousands of functions, classes and OpDefs (none of them garbage) and would pay
# several full collections over NumPy's objects and its own (~8% of ``import strided``); a user
# who turned it off keeps it off.
_gc_was_enabled = _gc.isenabled()
_gc.disable()
# (and the methods of its dataclasses come from the compiled-entry cache: strided.entry_cache)
from .entry_cache import dataclass_methods as _dataclass_methods  # noqa: E402

_loading_dataclasses = _dataclass_methods()
_loading_dataclasses.__enter__()
try:
    _own_modules.enter()
    from . import array_api, autograd, describe, face_ops, linalg, ops, writes  # noqa: F401  (importing them installs their methods on Tensor; array_api's namespace loads on first use)
    from .autograd import (
        enable_grad,
        inference_mode,
        is_grad_enabled,
        is_inference_mode_enabled,
        no_grad,
        set_grad_enabled,
    )
    from .determinism import are_deterministic_algorithms_enabled, use_deterministic_algorithms
    from .device import device  # (the class, as torch.device; the module stays strided.device's home)
    from .dtype_info import finfo, iinfo
    from .dtypes import (
        DType,
        bfloat16,
        bool_,
        cdouble,
        cfloat,
        complex64,
        complex128,
        float16,
        float32,
        float64,
        get_default_dtype,
        int8,
        int16,
        int32,
        int64,
        set_default_dtype,
        uint8,
        uint16,
        uint32,
        uint64,
    )
    from .errors import (
        BroadcastError,
        BroadcastWarning,
        OverlapWriteError,
        StridedBufferError,
        StridedError,
        StridedIndexError,
        StridedNotImplementedError,
        StridedRuntimeError,
        StridedTypeError,
        StridedValueError,
        ViewError,
    )
    from .face_ops import *  # noqa: F403 - the op functions, generated from the registry (tools/gen_face.py)
    from .formatting import set_printoptions
    from .gradients import finish as _finish
    from .interop import as_tensor, asarray, from_dlpack
    from .kernels import CopyRecord, record_copies
    from .layout import Layout, ReshapeRefusal
    from .memory_format import channels_last, channels_last_3d, contiguous_format, preserve_format
    from .numpy_api import (
        ascontiguousarray,
        asfortranarray,
        broadcast_shapes,
        broadcast_to,
        may_share_memory,
        ravel,
        reshape,
        shares_memory,
    )
    from .ops import table as _table  # noqa: F401  (the registry's kinds; the lazy diagnostics imported it before)
    from .ops._support import return_types
    # (importable by its public name too, as torch.return_types: ``from strided.return_types
    # import max`` raised ModuleNotFoundError; the classes keep their defining module)
    __import__("sys").modules.setdefault(__name__ + ".return_types", return_types)
    from .ops._support.promotion import promote_types, result_type
    from .ops.creation.generator import (
        Generator,
        default_generator,
        get_rng_state,
        initial_seed,
        manual_seed,
        seed,
        set_rng_state,
    )
    from .ops.creation.legacy import (
        BFloat16Tensor,
        BoolTensor,
        ByteTensor,
        CharTensor,
        DoubleTensor,
        FloatTensor,
        HalfTensor,
        IntTensor,
        LongTensor,
        ShortTensor,
    )
    from .ops.elementwise import activations as _activations  # noqa: F401  (its methods; the lazy nn imported it before)
    from .ops.elementwise import activations_more as _activations_more  # noqa: F401  (the same: Tensor.hardshrink)
    from .ops.elementwise.binary_more import allclose, equal
    from .ops.elementwise.complex_ops import is_complex, is_conj
    from .ops.like_self import is_floating_point, is_nonzero, is_same_size, is_signed, is_tensor, numel
    from .ops.linalg.einsum import einsum_plan
    from .ops.shape import padding as _padding  # noqa: F401  (the same)
    from .ops.shape.broadcasting import broadcasting
    from .size import Size
    from .storage import Storage
    from .tensor import Tensor
    from .typed_storage import (
        BoolStorage,
        ByteStorage,
        CharStorage,
        DoubleStorage,
        FloatStorage,
        HalfStorage,
        IntStorage,
        LongStorage,
        ShortStorage,
        TypedStorage,
    )
except BaseException:
    _own_modules.leave()
    if _gc_was_enabled:  # (a failed import leaves the collector as it found it)
        _gc.enable()
    raise
finally:
    _loading_dataclasses.__exit__(None, None, None)
    del _loading_dataclasses, _dataclass_methods

# ``strided.tensor`` is the factory, not the submodule strided/tensor.py. At run time the factory
# wins (the submodule was loaded, binding its name here, before the face's import replaced it), but
# static checkers (pyright, Pylance) read ``from .tensor import Tensor`` above as binding the
# submodule's name last ("Module is not callable"): binding the factory again, after it, makes them
# agree. (An explicit re-export, ``x as x``; tests/test_typing.py runs pyright on it.)
from .creation import tensor as tensor  # noqa: E402

bool = bool_  # noqa: A001 - strided.bool mirrors torch.bool
# PyTorch's other names of the dtypes (torch.float is torch.float32, ...); from here on the
# builtins float, int and bool are shadowed in this module, which uses none of them below.
float = float32  # noqa: A001
double = float64
half = float16
long = int64
int = int32  # noqa: A001
short = int16

# The names of the face that are no op (types, dtypes, settings, the NumPy-style functions,
# diagnostics); the op functions, factories and random draws included, come from the registry
# (face_ops).
__all__ = [
    "__version__", "allclose", "as_tensor", "asarray", "ascontiguousarray", "asfortranarray", "bool", "bool_",
    "are_deterministic_algorithms_enabled", "broadcast_shapes", "broadcast_to", "BroadcastError", "broadcasting", "BroadcastWarning", "bfloat16", "cdouble", "cfloat",
    "channels_last", "channels_last_3d", "complex128", "complex64", "contiguous_format", "CopyRecord",
    "default_generator", "device", "double", "draw", "DType", "einsum_plan", "enable_grad", "equal", "explain",
    "finfo", "float", "float16", "float32", "float64", "from_dlpack", "Generator", "get_default_dtype", "get_rng_state",
    "half", "inference_mode", "is_inference_mode_enabled",
    "iinfo", "initial_seed", "int", "int16", "int32", "int64", "int8", "is_complex", "is_conj",
    "is_floating_point", "is_grad_enabled", "is_nonzero", "is_same_size", "is_signed", "is_tensor", "long", "numel", "Layout", "linalg", "load", "manual_seed", "may_share_memory", "nn",
    "no_grad", "optim", "OverlapWriteError", "preserve_format", "promote_types", "ravel", "record_copies", "reshape",
    "ReshapeRefusal", "result_type", "return_types", "save", "seed", "set_default_dtype", "set_grad_enabled", "set_rng_state",
    "set_printoptions", "shares_memory", "short", "Size", "special", "Storage", "TypedStorage", "BoolStorage", "ByteStorage", "CharStorage",
    "DoubleStorage", "FloatStorage", "HalfStorage", "IntStorage", "LongStorage", "ShortStorage", "use_deterministic_algorithms",
    "BFloat16Tensor", "BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor", "FloatTensor", "HalfTensor", "IntTensor", "LongTensor",
    "ShortTensor",
    "StridedBufferError", "StridedError", "StridedIndexError", "StridedNotImplementedError", "StridedRuntimeError",
    "StridedTypeError", "StridedValueError", "Tensor", "uint16", "uint32", "uint64", "uint8", "ViewError", "watch",
    "watch_torch",
]
__all__ += face_ops.__all__

if _typing.TYPE_CHECKING:  # (the lazy names below, for type checkers and linters)
    from . import nn, optim
    from . import special as special
    from . import testing as testing
    from ._version import __version__
    from .diagnose.explain import explain
    from .diagnose.pictures import draw
    from .diagnose.watch import watch
    from .diagnose.watch_torch import watch_torch
    from .serialization import load, save

# Loaded on first use (PEP 562): the names no op needs, so ``import strided`` does not pay for
# them (issue 23). None of them installs a Tensor method or a backward rule the face must seal:
# the Array API namespace's two Tensor methods live in its light package module, and ``nn`` seals
# its own functions when it loads; ``array_api`` is imported above, but its namespace is lazy too. name -> (module, attribute; None: the module itself)
_LAZY: dict[str, tuple[str, str | None]] = {
    "__version__": ("strided._version", "__version__"),  # (importlib.metadata: ~30 ms)
    "nn": ("strided.nn", None),
    "optim": ("strided.optim", None),
    "save": ("strided.serialization", "save"),  # (zipfile and json: loaded on first save or load)
    "load": ("strided.serialization", "load"),
    "testing": ("strided.testing", None),  # (assert_close, as torch.testing)
    "special": ("strided.special", None),  # (torch.special's polygamma, i1, i0e, i1e, ...)
    "diagnose": ("strided.diagnose", None),  # (the package, as an eager import of its modules left it)
    "_version": ("strided._version", None),
    "explain": ("strided.diagnose.explain", "explain"),
    "draw": ("strided.diagnose.pictures", "draw"),
    "watch": ("strided.diagnose.watch", "watch"),
    "watch_torch": ("strided.diagnose.watch_torch", "watch_torch"),
    # ``%load_ext strided`` (IPython looks this up on the package; IPython itself is imported only then)
    "load_ipython_extension": ("strided.diagnose.magics", "load_ipython_extension"),
}


def __getattr__(name: str) -> object:
    """``strided.<name>`` for the names of ``_LAZY``: imported on first use, then kept in the
    package's namespace (a plain lookup from then on). The methods of the dataclasses that import
    defines come from the compiled-entry cache, as during ``import strided`` (``watch_torch``'s
    modules define 11, ~60 methods: compiling them was ~15 ms of its first block), under a lock
    (the cache's hook is a module global of :mod:`dataclasses` while it is set: two threads
    loading at once must not leave it set); new ones are added to the cache file."""
    if name not in _LAZY:
        return _lazy_attribute("strided", _LAZY, globals(), name)  # (its AttributeError)
    from .entry_cache import dataclass_methods, save_after_import

    with _LAZY_LOCK, dataclass_methods():
        value = _lazy_attribute("strided", _LAZY, globals(), name)
    save_after_import()
    return value


_LAZY_LOCK = __import__("_thread").RLock()  # (re-entrant: a lazy import that reads another lazy name)


def __dir__() -> list[str]:
    """The names of the package, the lazy ones included (``dir(strided)`` as if all were loaded;
    not the helper its subpackages' lazy names share)."""
    return sorted({*globals(), *_LAZY} - {"_lazy_attribute"})


# Last: the face's names and Tensor's methods are complete; the in-place entries and the guards
# of the ops without a backward rule are made now, before any user code can bind a name.
try:
    _finish(globals())
finally:
    # The objects the import made are long-lived: moved into the oldest generation in one step
    # (freeze then unfreeze: a list splice, nothing scanned; they stay collectable and visible to
    # gc.get_objects()), so the first collections after the import do not scan them from the
    # youngest generation up (~3% of ``import strided`` and of its exit). Not where the user froze
    # objects of their own: unfreeze would thaw those too.
    # (Not left frozen either, though the exit's full collections over these objects are most
    # of what ``python -c "import strided"`` spends after the import: the permanent generation
    # is never collected, not even at exit, and ``__main__``'s dict, older than this import,
    # would be frozen with them: the ``__del__`` of a user's global would no longer run at exit.
    # tests/test_start40.py.)
    if _gc.get_freeze_count() == 0:
        _gc.freeze()
        _gc.unfreeze()
    if _gc_was_enabled:
        _gc.enable()
    del _gc_was_enabled
    _own_modules.leave()
    del _own_modules
