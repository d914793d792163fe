"""What a PyTorch aten op is, as ``watch_torch`` counts it: view, copy, alloc, compute or write.

The rules (the issue's words): a **copy** is an aten op whose job is to move existing data into
new memory — ``clone``, ``_to_copy``, ``copy_``, ``lift_fresh_copy``, ``_reshape_copy`` and every
other ``*_copy`` variant, and ``contiguous`` / ``resolve_conj`` / ``resolve_neg`` when they
allocate. Ops that fill new memory from nothing or assemble it from parts (``empty``, ``cat``,
``stack``, ``index_select``, ``embedding``, ...) are **allocs**. An op whose schema says its result
aliases an input is a **view**; one that mutates an argument is a **write**; the rest **compute**.

Also here: the Python-level calls (seen by the ``TorchFunctionMode``) that *ask* for a copy, the
ones that reshape (whose dim mapping the watch checks for regroupings), and the ones too small to
be worth a call record (attribute getters, ``size()``, ``dim()``).

Nothing here imports torch: ops are looked at through their attributes only.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ASKED_CALLS",
    "COPY_OPS",
    "MAYBE_COPY_OPS",
    "OpInfo",
    "RESHAPE_CALLS",
    "SILENT_CALLS",
    "op_info",
]

# aten ops whose job is moving existing data into new memory (besides every ``*_copy`` name).
COPY_OPS = frozenset({"clone", "_to_copy", "copy_", "copy", "lift_fresh_copy", "_reshape_copy"})
# ... and those that copy only when they allocate (else they hand back their input or a view of
# it). Besides contiguous/resolve_*, the composite reshape and conversion ops: PyTorch usually
# decomposes them before a dispatch mode sees them (into view, or clone + _unsafe_view, or
# _to_copy), but under ``torch.inference_mode()`` the mode sees them whole.
MAYBE_COPY_OPS = frozenset({"contiguous", "resolve_conj", "resolve_neg", "reshape", "reshape_as", "flatten",
                            "ravel", "to", "type_as"})
# aten ops that make new memory from nothing or assemble it from parts: allocations, not copies.
ALLOC_OPS = frozenset({
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like",
    "new_zeros", "ones", "ones_like", "new_ones", "full", "full_like", "new_full", "arange", "linspace",
    "logspace", "eye", "scalar_tensor", "rand", "rand_like", "randn", "randn_like", "randint",
    "randint_like", "randperm", "normal", "bernoulli", "multinomial", "tril_indices", "triu_indices",
    "cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "index_select", "embedding",
    "gather", "index", "take", "masked_select", "nonzero", "repeat", "repeat_interleave", "tile",
    "constant_pad_nd", "pad", "one_hot", "_unsafe_index", "lift_fresh", "tensor",
})
# aten ops that return a view of a tensor the caller just made, though their schema does not say so.
VIEW_OPS = frozenset({"_unsafe_view", "_reshape_alias"})
# Python calls (method or function names) that ask for a copy: their copies are "asked".
ASKED_CALLS = frozenset({
    "clone", "contiguous", "to", "type", "float", "double", "half", "bfloat16", "int", "long", "short",
    "bool", "byte", "char", "cpu", "cuda", "copy_", "__setitem__", "tensor", "as_tensor", "new_tensor",
    "resolve_conj", "resolve_neg", "__deepcopy__",
})
# Python calls that reshape: their result's dims are checked for a regrouping of the input's.
RESHAPE_CALLS = frozenset({"view", "reshape", "flatten", "unflatten", "view_as", "reshape_as", "ravel"})
# Calls that never run an aten op worth a record of their own: no call context, no line lookup.
SILENT_CALLS = frozenset({
    "__get__", "__set__", "size", "dim", "stride", "numel", "storage_offset", "is_contiguous",
    "element_size", "data_ptr", "untyped_storage", "__len__", "__hash__", "requires_grad_",
    "is_floating_point", "is_complex", "get_device", "__format__", "__repr__", "__bool__", "__index__",
    "ndimension", "nelement", "has_names", "is_leaf", "_is_view", "is_sparse", "register_hook",
    "retain_grad", "_version",
})


class OpInfo:
    """What the watch needs to know of one aten op overload, worked out once and cached.

    ``name`` is the op's base name (``clone``, ``view``, ...); ``kind`` one of "view", "copy",
    "maybe_copy" (copies only when it allocates), "alloc", "compute", "write"; ``pointwise`` whether
    torch tags it elementwise (its tensor operands broadcast against each other); ``lists``
    whether an argument is a list of tensors (the watch then looks inside lists for operands);
    ``allocates`` whether its outputs are new memory (a "maybe_copy" only when it copies).
    """

    __slots__ = ("name", "kind", "pointwise", "lists", "allocates")

    def __init__(self, name: str, kind: str, pointwise: bool, lists: bool = False) -> None:
        self.name = name
        self.kind = kind
        self.pointwise = pointwise
        self.lists = lists  # whether its schema takes lists of tensors (``cat``, ``index``, ...)
        # whether its outputs are new memory (unless a "maybe_copy" turns out a view); ``copy_``
        # and in-place ops write into memory that exists
        self.allocates = kind not in ("view", "write") and name != "copy_"

    def __repr__(self) -> str:
        return f"OpInfo({self.name!r}, {self.kind!r}, pointwise={self.pointwise})"


# Keyed by id(): an OpOverload's own __hash__ is Python code, several times slower than the
# lookup. _KEEP holds each op so that its id cannot be reused (torch keeps them alive anyway).
_CACHE: dict[int, OpInfo] = {}
_KEEP: list[Any] = []


def op_info(func: Any) -> OpInfo:
    """The :class:`OpInfo` of an aten ``OpOverload`` (cached: one dict lookup per op after the first)."""
    info = _CACHE.get(id(func))
    if info is None:
        info = _CACHE[id(func)] = _classify(func)
        _KEEP.append(func)
    return info


def _classify(func: Any) -> OpInfo:
    info = _kind_of(func)
    info.lists = any("Tensor" in str(a.type) and "[" in str(a.type) for a in func._schema.arguments)
    return info


def _kind_of(func: Any) -> OpInfo:
    name = func._overloadpacket.__name__
    schema = func._schema
    pointwise = any(getattr(tag, "name", "") == "pointwise" for tag in getattr(func, "tags", ()))
    if name in COPY_OPS or (name.endswith("_copy") and not name.endswith("_copy_")):
        # ``copy_`` and ``*_copy`` write a copy of existing data; ``copy_`` into existing memory.
        return OpInfo(name, "copy", pointwise)
    if name in MAYBE_COPY_OPS:
        return OpInfo(name, "maybe_copy", pointwise)
    if getattr(func, "is_view", False) or name in VIEW_OPS:
        return OpInfo(name, "view", pointwise)
    if schema.is_mutable:
        return OpInfo(name, "write", pointwise)
    base = name[:-4] if name.endswith("_out") else name
    if base in ALLOC_OPS:
        return OpInfo(name, "alloc", pointwise)
    return OpInfo(name, "compute", pointwise)
