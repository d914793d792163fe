"""``strided.save`` / ``strided.load``: tensors, state dicts and nested containers in a file that
loading never executes.

The format is a ZIP archive (stored, not compressed; the standard library's ``zipfile``) of:

- ``strided.json``: ``{"format": "strided.save", "version": 1, "storages": [{"dtype": "float32",
  "numel": 12}, ...], "object": <the object>}``, where the object is written as tagged JSON:
  ``{"t": "none"}``, ``{"t": "bool", "v": true}``, ``{"t": "int", "v": "12"}`` (a string: Python
  ints are unbounded), ``{"t": "float", "v": "0x1.8p+1"}`` (``float.hex``: every bit, nan and inf
  included), ``{"t": "str", "v": "..."}``, ``{"t": "list" | "tuple", "items": [...]}``,
  ``{"t": "dict" | "odict", "items": [[key, value], ...]}`` (keys of any of the scalar kinds or
  tuples of them: an optimizer's state dict has int keys; "odict" is a ``collections.OrderedDict``,
  the kind a module's ``state_dict()`` is, and comes back one), and ``{"t": "tensor", "storage": i, "shape":
  [...], "strides": [...], "offset": k, "requires_grad": false}`` (with ``"kind": "parameter"`` for an
  ``nn.Parameter``, which comes back one);
- ``storages/<i>``: the i-th storage's elements, little-endian, whole.

Each storage is written once, however many tensors view it (as ``torch.save`` does), and on load
the views share one storage again: a transposed, sliced or expanded layout comes back as that
layout over the same memory. The whole storage is saved even when a tensor views part of it
(``torch.save``'s rule too: ``t[:2].clone()`` saves only what it holds).

Loading reads JSON and raw bytes only; no pickle, no import, no call named by the file. Every
field is checked before use: the tags and their types, each storage's dtype (one of strided's),
its byte count against the archive entry's, and each tensor's layout against its storage with
the layout checks every strided tensor obeys (:func:`strided.layout.check_layout`), so a
hostile file (a layout past its storage, a truncated archive, a pickle or a ``torch.save`` file
in disguise) is refused with a :class:`strided.StridedRuntimeError` that says what is wrong.
``save`` checks the whole object before it opens the file: an object it cannot save (a class,
a function, a NumPy array) raises :class:`strided.StridedTypeError` naming where it sits, and no
file is written.

Why not pickle: it runs code by design. Why not safetensors: it stores a flat dict of
contiguous tensors, so views sharing a storage, non-contiguous layouts and nested containers
would still need this JSON beside it; its dtypes lack unsigned 16-64 bit and complex, which
strided has. Thread behaviour: no shared state; each call opens its own file.

>>> import io
>>> buf = io.BytesIO()
>>> w = strided.arange(6.0).reshape(2, 3)
>>> strided.save({"w": w, "wt": w.t(), "step": 3}, buf)
>>> back = strided.load(io.BytesIO(buf.getvalue()))
>>> back["wt"].stride(), back["step"], back["w"].data_ptr() == back["wt"].data_ptr()
((1, 3), 3, True)
"""

from __future__ import annotations

import json
import os
import zipfile
from collections import OrderedDict
from typing import IO, Any

import numpy as np

from .dtypes import ALL_DTYPES, DType
from .errors import StridedRuntimeError, StridedTypeError, join_lines
from .layout import Layout, check_layout
from .parameter import Parameter
from .storage import Storage
from .tensor import Tensor

__all__ = ["load", "save"]

FORMAT = "strided.save"
VERSION = 1
_META = "strided.json"
_DTYPES = {d.name: d for d in ALL_DTYPES}
_SCALARS = (type(None), bool, int, float, str)
_MAX_DEPTH = 200  # (each level is two Python frames on load: far from the interpreter's limit)
_CAN = "strided.save writes tensors, dict (and OrderedDict), list, tuple, int, float, str, bool and None"

PathOrFile = str | os.PathLike[str] | IO[bytes]


# ------------------------------------------------------------------ save


class _Writer:
    """Encodes an object as tagged JSON; collects each distinct storage once."""

    def __init__(self) -> None:
        self.storages: list[Storage] = []
        self.index: dict[int, int] = {}  # id(storage) -> its position
        self.active: set[int] = set()  # (containers being encoded: a cycle is refused, not recursed forever)

    def encode(self, obj: Any, where: str) -> Any:
        if obj is None:
            return {"t": "none"}
        if isinstance(obj, bool):
            return {"t": "bool", "v": obj}
        if isinstance(obj, int) and type(obj) is int:
            return {"t": "int", "v": str(obj)}
        if type(obj) is float:
            return {"t": "float", "v": obj.hex()}
        if type(obj) is str:
            return {"t": "str", "v": obj}
        if isinstance(obj, Tensor):
            return self.tensor(obj)
        if type(obj) in (list, tuple, dict, OrderedDict):
            if id(obj) in self.active:
                raise StridedTypeError(join_lines(
                    f"strided.save: {where} contains itself",
                    "a container that holds itself has no finite description", "fix: save a copy without the cycle"))
            self.active.add(id(obj))
            try:
                if isinstance(obj, dict):  # (an OrderedDict, as a module's state_dict(), comes back one)
                    return {"t": "odict" if type(obj) is OrderedDict else "dict",
                            "items": [[self.key(k, where), self.encode(v, f"{where}[{k!r}]")] for k, v in obj.items()]}
                return {"t": type(obj).__name__,
                        "items": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(obj)]}
            finally:
                self.active.discard(id(obj))
        raise StridedTypeError(join_lines(
            f"strided.save: cannot save an object of type {type(obj).__module__}.{type(obj).__qualname__} at {where}",
            _CAN + " (the kinds a file can describe without code), nested in any way",
            _fix_for(obj)))

    def key(self, k: Any, where: str) -> Any:
        if isinstance(k, _SCALARS) or (type(k) is tuple and all(isinstance(x, _SCALARS) for x in k)):
            return self.encode(k, where)
        raise StridedTypeError(join_lines(
            f"strided.save: cannot save a dict key of type {type(k).__qualname__} in {where}",
            "dict keys may be None, bool, int, float, str or tuples of them",
            "fix: use str(key) as the key"))

    def tensor(self, t: Tensor) -> dict[str, Any]:
        from .grad_mode import requires_grad

        storage = t._storage
        if t._dtype.name not in _DTYPES or storage.array.dtype != t._dtype.numpy:
            # (a typed alias: x.view(dtype) reads another storage's bytes; save its own elements)
            raise StridedTypeError(join_lines(
                f"strided.save: cannot save a {t._dtype.name} tensor whose storage holds {storage.array.dtype}",
                "the tensor is a dtype view (x.view(dtype)) of another tensor's bytes",
                "fix: save t.clone() (its own storage) or the tensor it views"))
        i = self.index.get(id(storage))
        if i is None:
            i = self.index[id(storage)] = len(self.storages)
            self.storages.append(storage)
        lay = t._layout
        node = {"t": "tensor", "storage": i, "shape": list(lay.shape), "strides": list(lay.strides),
                "offset": lay.offset, "requires_grad": bool(requires_grad(t))}
        if type(t) is Parameter:
            node["kind"] = "parameter"  # (it comes back a Parameter, as torch.load gives one back)
        return node


def _fix_for(obj: Any) -> str:
    if isinstance(obj, np.ndarray):
        return "fix: save strided.from_numpy(a) (a tensor) instead of the array"
    if isinstance(obj, (set, frozenset)):
        return "fix: save sorted(s) (a list)"
    if hasattr(obj, "state_dict"):
        return "fix: save obj.state_dict() (its tensors and numbers), then load_state_dict on a new object"
    if type(obj).__module__.startswith("torch"):
        return "fix: convert torch tensors first: strided.from_dlpack(t) or strided.tensor(t.numpy())"
    return "fix: convert it to one of these kinds (e.g. a dict of its fields)"


def save(obj: Any, f: PathOrFile) -> None:
    """Write ``obj`` (tensors, dicts, lists, tuples, ints, floats, strs, bools, None, nested) to
    ``f``, a path or a binary file; views of one storage are written once and stay shared.

    >>> import io
    >>> buf = io.BytesIO()
    >>> strided.save([strided.tensor([1, 2]), (1.5, None)], buf)
    >>> strided.load(io.BytesIO(buf.getvalue()))
    [tensor([1, 2]), (1.5, None)]
    """
    writer = _Writer()
    meta = {"format": FORMAT, "version": VERSION, "storages": [], "object": writer.encode(obj, "obj")}
    meta["storages"] = [{"dtype": s.array.dtype.name, "numel": int(s.array.shape[0])} for s in writer.storages]
    text = json.dumps(meta, separators=(",", ":"), allow_nan=False)
    # (everything is checked and encoded before the file is opened: a refused object writes nothing)
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr(_META, text)
        for i, s in enumerate(writer.storages):
            a = s.array
            z.writestr(f"storages/{i}", a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes())


# ------------------------------------------------------------------ load


def _refuse(name: str, problem: str, detail: str = "") -> StridedRuntimeError:
    return StridedRuntimeError(join_lines(
        f"strided.load: {name} is not a valid strided.save file: {problem}", detail,
        "fix: load only files written by strided.save; this one was altered, truncated or written by "
        "something else"))


def _name(f: Any) -> str:
    return repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else f"the file object {type(f).__name__}"


def _sniff(f: Any, name: str) -> int:
    """The file's size in bytes; a pickle (``torch.save``'s legacy format, ``pickle.dump``) is
    recognised by its first byte and refused before anything else reads it."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            head = fh.read(4)
            size = fh.seek(0, os.SEEK_END)
    else:
        pos = f.tell()
        head = f.read(4)
        size = f.seek(0, os.SEEK_END) - pos
        f.seek(pos)
    if head[:1] == b"\x80" or head[:1] in (b"(", b"]", b"}", b"c"):
        raise StridedRuntimeError(join_lines(
            f"strided.load: {name} is a pickle, which strided.load never reads",
            "unpickling runs whatever code the file names (a torch.save file of PyTorch < 1.6, or pickle.dump)",
            "fix: if you trust it, load it with torch.load(path, weights_only=True) and convert the tensors"))
    if head[:2] != b"PK":
        raise _refuse(name, "it is not a ZIP archive", f"its first bytes are {head!r}")
    return size


class _Reader:
    def __init__(self, z: zipfile.ZipFile, name: str, archive_size: int) -> None:
        self.z, self.name, self.archive_size = z, name, archive_size
        self.storage_meta: list[tuple[DType, int]] = []
        self.storages: dict[int, Storage] = {}

    def storage(self, i: Any, where: str) -> Storage:
        if type(i) is not int or not 0 <= i < len(self.storage_meta):
            raise _refuse(self.name, f"the tensor at {where} names storage {i!r}",
                          f"the file has {len(self.storage_meta)} storages")
        s = self.storages.get(i)
        if s is None:
            dtype, numel = self.storage_meta[i]
            entry = f"storages/{i}"
            try:
                info = self.z.getinfo(entry)
            except KeyError:
                raise _refuse(self.name, f"the archive has no entry {entry!r}") from None
            nbytes = numel * dtype.itemsize
            if (info.compress_type != zipfile.ZIP_STORED or info.compress_size != info.file_size
                    or info.header_offset + info.compress_size > self.archive_size):
                # (save stores bytes uncompressed; a compressed or oversized entry is not read at
                # all: a forged size would make the reader allocate it)
                raise _refuse(self.name, f"storage {i}'s entry is compressed or larger than the file",
                              f"it declares {info.file_size} bytes in an archive of {self.archive_size}")
            if info.file_size != nbytes:
                raise _refuse(self.name, f"storage {i} should hold {numel} {dtype.name} elements ({nbytes} bytes)",
                              f"its entry holds {info.file_size} bytes")
            try:
                raw = self.z.read(entry)
            except (zipfile.BadZipFile, OSError, EOFError) as e:
                raise _refuse(self.name, f"storage {i} cannot be read ({e})") from None
            if len(raw) != nbytes:
                raise _refuse(self.name, f"storage {i} is truncated", f"{len(raw)} of {nbytes} bytes")
            if dtype.numpy == np.bool_ and raw.translate(None, b"\x00\x01"):
                # (a bool is the byte 0 or 1: any other byte is a dtype lie NumPy reads as True in
                # one op and as its value in another, e.g. a sum)
                bad = next(b for b in raw if b > 1)
                raise _refuse(self.name, f"storage {i} is bool but holds the byte {bad}",
                              "a bool storage's bytes are 0 or 1")
            arr = np.frombuffer(raw, dtype=dtype.numpy.newbyteorder("<")).astype(dtype.numpy)  # (a writable copy)
            s = self.storages[i] = Storage(arr)
        return s

    def decode(self, node: Any, where: str, depth: int = 0) -> Any:
        if depth > _MAX_DEPTH:
            raise _refuse(self.name, f"the object is nested more than {_MAX_DEPTH} deep at {where[:80]}...")
        if not isinstance(node, dict) or not isinstance(node.get("t"), str):
            raise _refuse(self.name, f"the description at {where} is not a tagged value", f"got {str(node)[:60]}")
        t = node["t"]
        if t == "none":
            return None
        if t in ("bool", "int", "float", "str"):
            v = node.get("v")
            try:
                if t == "bool" and type(v) is bool:
                    return v
                if t == "int" and type(v) is str and len(v) <= 4300:
                    return int(v)
                if t == "float" and type(v) is str:
                    return float.fromhex(v)
                if t == "str" and type(v) is str:
                    return v
            except (ValueError, OverflowError):
                pass
            raise _refuse(self.name, f"the {t} at {where} has the value {str(v)[:60]!r}")
        if t in ("list", "tuple", "dict", "odict"):
            items = node.get("items")
            if not isinstance(items, list):
                raise _refuse(self.name, f"the {t} at {where} has no list of items")
            if t in ("dict", "odict"):
                out: dict[Any, Any] = {} if t == "dict" else OrderedDict()
                for pair in items:
                    if not (isinstance(pair, list) and len(pair) == 2):
                        raise _refuse(self.name, f"an item of the dict at {where} is not a [key, value] pair")
                    key = self.decode(pair[0], where + "[key]", depth + 1)
                    if not (isinstance(key, _SCALARS)
                            or (type(key) is tuple and all(isinstance(x, _SCALARS) for x in key))):
                        raise _refuse(self.name, f"a key of the dict at {where} is a {type(key).__name__}",
                                      "keys are None, bool, int, float, str or tuples of them")
                    out[key] = self.decode(pair[1], f"{where}[{key!r}]", depth + 1)
                return out
            values = [self.decode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(items)]
            return values if t == "list" else tuple(values)
        if t == "tensor":
            return self.tensor(node, where)
        raise _refuse(self.name, f"unknown tag {t!r} at {where}")

    def tensor(self, node: dict[str, Any], where: str) -> Tensor:
        from .grad_mode import Meta

        shape, strides, offset = node.get("shape"), node.get("strides"), node.get("offset")
        ok = (isinstance(shape, list) and isinstance(strides, list) and type(offset) is int
              and all(type(x) is int for x in shape + strides) and type(node.get("requires_grad")) is bool)
        if not ok:
            raise _refuse(self.name, f"the tensor at {where} has a malformed layout",
                          f"shape {shape!r:.60}, strides {strides!r:.60}, offset {offset!r:.20}")
        storage = self.storage(node.get("storage"), where)
        dtype = _DTYPES[storage.array.dtype.name]
        try:
            check_layout(tuple(shape), tuple(strides), offset, storage.array.shape[0], dtype.itemsize)
        except (StridedRuntimeError, StridedTypeError) as e:
            first, *rest = str(e).split("\n")
            raise _refuse(self.name, f"the tensor at {where} does not fit its storage",
                          first + "".join("\n  " + r.strip() for r in rest)) from None
        kind = node.get("kind")
        if kind is not None and kind != "parameter":  # (the one Tensor subclass a file may name)
            raise _refuse(self.name, f"the tensor at {where} has an unknown kind {kind!r:.40}")
        t = object.__new__(Tensor if kind is None else Parameter)
        # (the checked constructor unpickling uses: it re-checks the fields and makes a fresh leaf)
        t.__setstate__({"_storage": storage, "_layout": Layout(shape, strides, offset), "_dtype": dtype,
                        "_ag": Meta(requires_grad=True) if node["requires_grad"] else None})
        return t


def load(f: PathOrFile) -> Any:
    """Read what :func:`save` wrote to ``f`` (a path or a binary file): the same nesting, tensors
    with their layouts, views of one storage sharing it again; a tensor that required grad comes
    back a leaf that does. Never runs code from the file (see the module's notes).

    >>> import io
    >>> buf = io.BytesIO(); strided.save({"lr": 0.1, "ids": [1, 2]}, buf)
    >>> strided.load(io.BytesIO(buf.getvalue()))
    {'lr': 0.1, 'ids': [1, 2]}
    """
    name = _name(f)
    size = _sniff(f, name)
    try:
        z = zipfile.ZipFile(f, "r")
    except (zipfile.BadZipFile, EOFError, OSError, ValueError) as e:
        raise _refuse(name, f"the ZIP archive cannot be read ({e})",
                      "a truncated file loses the archive's directory, which sits at its end") from None
    with z:
        names = z.namelist()
        if any(n.endswith(".pkl") for n in names):  # (torch.save's ZIP holds <name>/data.pkl)
            raise StridedRuntimeError(join_lines(
                f"strided.load: {name} is a torch.save file (a ZIP with a pickle inside), which strided.load never unpickles",
                "unpickling runs whatever code the file names",
                "fix: if you trust it, load it with torch.load(path, weights_only=True), convert the tensors "
                "(strided.from_dlpack) and save them with strided.save"))
        try:
            info = z.getinfo(_META)
        except KeyError:
            raise _refuse(name, f"the archive has no {_META!r}", f"its entries: {names[:5]}") from None
        if info.file_size > min(256 * 2**20, 64 * size):  # (JSON compresses, but not without bound)
            raise _refuse(name, f"{_META!r} declares {info.file_size} bytes, more than the 256 MiB a description may take")
        try:
            meta = json.loads(z.read(_META).decode("utf-8"))
        except (zipfile.BadZipFile, OSError, EOFError, UnicodeDecodeError, ValueError, RecursionError) as e:
            raise _refuse(name, f"{_META!r} cannot be read as JSON ({str(e)[:80]})") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise _refuse(name, f"{_META!r} does not describe a {FORMAT} file")
        if meta.get("version") != VERSION:
            raise StridedRuntimeError(join_lines(
                f"strided.load: {name} is a {FORMAT} file of version {meta.get('version')!r}; this strided reads "
                f"version {VERSION}", "fix: load it with the strided that wrote it"))
        reader = _Reader(z, name, size)
        storages = meta.get("storages")
        if not isinstance(storages, list):
            raise _refuse(name, "the storage list is missing")
        for i, s in enumerate(storages):
            dtype = _DTYPES.get(s.get("dtype")) if isinstance(s, dict) else None
            numel = s.get("numel") if isinstance(s, dict) else None
            if dtype is None or type(numel) is not int or numel < 0:
                raise _refuse(name, f"storage {i} is described as {str(s)[:80]}",
                              f"a storage needs a dtype of {sorted(_DTYPES)} and a count of elements")
            reader.storage_meta.append((dtype, numel))
        return reader.decode(meta.get("object"), "obj")

