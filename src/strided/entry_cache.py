"""The compiled code of the generated op entries, kept between processes like a ``.pyc``.

``import strided`` generates one recording entry per op with the op's own parameter list
(:func:`strided.grad_mode._exact`) and compiled ~150 of them every time (a tenth of the
import). :func:`compiled` returns the code of an entry's source: from this process's table,
else from the cache file (``__pycache__/generated_entries.<tag>.marshal`` beside the package,
read once), else compiled now. The key is the entry's whole source text, so editing a source
file can never bring back stale code: a changed parameter list is a new key, compiled afresh.
The file also records the interpreter's bytecode magic, the entries' file name (frames of an
entry must name the package's directory: a moved checkout makes a new file) and the
optimization level, and a CRC-32 of the rest: a truncated or damaged file is ignored before
``marshal`` reads it (``marshal.loads`` of damaged bytes can raise ``SystemError`` or ask for
gigabytes); any mismatch, unreadable file or entry that is not a code object of its key's file
name is ignored (then compiled as before).

Trust: the file is trusted as Python trusts a ``.pyc`` beside the package. Whoever can write to
that ``__pycache__`` can make ``import strided`` run code of their choosing (so can they with a
``.pyc``); ``marshal`` is not safe against hostile bytes. The checksum catches accidents, not
attacks: keep an install's directory writable only by its owner, or set ``PYTHONDONTWRITEBYTECODE``
and a read-only install (then the file is neither written nor, when absent, read).

:func:`save` (called once at the end of ``import strided``) writes the sources this process
used, when one of them was compiled here, atomically (a temporary file, then ``os.replace``:
concurrent imports never read half a file); not when bytecode writing is off
(``PYTHONDONTWRITEBYTECODE``, ``sys.dont_write_bytecode``) or the directory is read-only. The
temporary file is created exclusively (``O_EXCL``, as ``importlib`` writes a ``.pyc``): a link
planted under its name is never followed.
Threads: the table is a dict filled under the GIL; two threads compiling the same source
store equal code.

:func:`remembered` keeps, in the same file, values the import computes from data alone (an entry's
source text from the shape of its parameter list: :func:`strided.grad_mode._exact`), keyed by the
whole input and a fingerprint of the code that computes them (:func:`fingerprint`), so an edited
function is a new key, computed afresh, as an edited source is for :func:`compiled`. The values
must be what ``marshal`` writes (strings, numbers, tuples, lists, sets, dicts, None).

>>> code = compiled("def f(x):\\n    return x\\n", "<doctest entry>")
>>> code.co_filename, compiled("def f(x):\\n    return x\\n", "<doctest entry>") is code
('<doctest entry>', True)
"""

from __future__ import annotations

import collections
import dataclasses
import marshal
import os
import sys
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib._bootstrap_external import MAGIC_NUMBER, cache_from_source  # (loaded with Python itself)
from types import CodeType
from typing import Any

__all__ = ["compiled", "dataclass_methods", "fingerprint", "remembered", "save", "save_after_import"]

_FORMAT = 2
_PATH = cache_from_source(os.path.join(os.path.dirname(os.path.abspath(__file__)), "generated_entries.py"))
_PATH = _PATH[: -len(".pyc")] + ".marshal"
# (the entries compiled after the import, by the modules the package loads on first use: a file
# of their own, read only on such a module's first miss, so that ``import strided`` never reads them)
_LATER_PATH = _PATH[: -len(".marshal")] + ".later.marshal"

_loaded: dict[tuple[str, str], CodeType] | None = None  # the file's table (read on first use)
_used: dict[tuple[str, str], CodeType] = {}  # (source, filename) -> code, this process's
_state = {"compiled": False}  # whether a source was compiled (or a value computed) here: the file is then rewritten
_remembered_file: dict | None = None  # the file's remembered values (read with its table)
_remembered_used: dict = {}  # key -> value, this process's (written by save, then dropped)
_later: dict[tuple[str, str], CodeType] | None = None  # _LATER_PATH's table (read on the first miss after the import)
_after: dict[tuple[str, str], CodeType] = {}  # (source, filename) -> code, used after the import


def _header() -> tuple:
    return (_FORMAT, MAGIC_NUMBER, sys.flags.optimize)


def _load(path: str | None = None) -> dict[tuple[str, str], CodeType]:
    """The code table of the file ``path`` (default: the cache file; ``{}`` for a missing,
    damaged or foreign file); its remembered values go to ``_remembered_file`` on the way (a
    file written without them: none)."""
    global _remembered_file
    _remembered_file = {}
    try:
        with open(_PATH if path is None else path, "rb") as f:
            data = f.read()
    except OSError:
        return {}
    payload, check = data[:-4], data[-4:]
    if len(data) < 4 or zlib.crc32(payload).to_bytes(4, "little") != check:
        return {}
    try:
        header, table, *rest = marshal.loads(payload)
    except Exception:  # noqa: BLE001 - any unreadable file is ignored (SystemError, MemoryError, ...)
        return {}
    if header != _header() or not isinstance(table, dict):
        return {}
    if len(rest) == 1 and type(rest[0]) is dict:
        _remembered_file = rest[0]
    return {key: code for key, code in table.items()
            if type(key) is tuple and len(key) == 2 and type(code) is CodeType and code.co_filename == key[1]}


def compiled(source: str, filename: str, mode: str = "exec") -> CodeType:
    """The code of ``compile(source, filename, mode)`` (``"exec"``, or ``"eval"`` for an
    expression), compiled once per source ever (see the module doc)."""
    global _loaded, _later
    # (an expression's key is marked: the same text compiled as a statement is other code)
    key = (source, filename) if mode == "exec" else (f"{_EVAL_MARK}{source}", filename)
    code = _used.get(key)
    if code is not None:
        return code
    if _loaded is None:
        _loaded = _load()
    code = _loaded.get(key)
    after = _state.get("saved", False)  # (the import is over: a module loaded on first use asks)
    if code is None and after:
        if _later is None:
            _later = _load(_LATER_PATH)
        code = _later.get(key)
    if code is None:
        code = compile(source, filename, mode, dont_inherit=True)
        _state["compiled"] = True
    _used[key] = code
    if after:
        _after[key] = code
    return code


_EVAL_MARK = "\0eval\0"  # (no source text starts with a NUL)


def remembered(key: tuple, make: Callable[[], Any]) -> Any:
    """``make()``, computed once per ``key`` ever (see the module doc): from this process's
    table, else from the cache file, else computed now (the file is then rewritten by
    :func:`save`). ``key`` must determine the value entirely: the input, and the
    :func:`fingerprint` of the code that computes it."""
    global _loaded
    try:
        return _remembered_used[key]
    except KeyError:
        pass
    if _remembered_file is None:  # (the file not read yet: its code table is kept too)
        table = _load()
        if _loaded is None:
            _loaded = table
    value = _remembered_file.get(key, _ABSENT) if _remembered_file is not None else _ABSENT
    if value is _ABSENT:
        value = make()
        _state["compiled"] = True
    _remembered_used[key] = value
    return value


def fingerprint(*functions: Any) -> int:
    """A CRC-32 of what the functions compute: each code object's bytecode, names and constants
    (the nested code objects' too), the same in every process for the same source."""
    crc = 0
    todo = [f.__code__ for f in functions]
    while todo:
        code = todo.pop()
        crc = zlib.crc32(code.co_code, crc)
        crc = zlib.crc32(repr((code.co_names, code.co_varnames, code.co_argcount, code.co_kwonlyargcount,
                               code.co_flags)).encode(), crc)
        for const in code.co_consts:
            if type(const) is CodeType:
                todo.append(const)
            else:  # (a frozenset's repr follows the hash seed: its items sorted)
                text = repr(sorted(map(repr, const)) if type(const) is frozenset else const)
                crc = zlib.crc32(text.encode(), crc)
    return crc


def _exec_cached(source: Any, globals: Any = None, locals: Any = None) -> None:  # noqa: A002 - exec's names
    """``exec`` for :mod:`dataclasses` while the package loads: a source string runs as the code
    :func:`compiled` keeps for it under exec's own file name (``"<string>"``), so the same
    function is made; anything else goes to the builtin as it is."""
    if type(source) is str:
        source = compiled(source, "<string>")
    exec(source, globals, locals)  # noqa: S102 - what dataclasses' own exec call would run


def _eval_cached(source: Any, globals: Any = None, locals: Any = None) -> Any:  # noqa: A002 - eval's names
    """``eval`` for :mod:`collections` while the package loads: a source string (the
    ``__new__`` of each named tuple, ``lambda _cls, values, indices: ...``) is evaluated as the
    code :func:`compiled` keeps for it under eval's own file name (``"<string>"``); anything
    else goes to the builtin as it is."""
    if type(source) is str:
        source = compiled(source, "<string>", "eval")
    return eval(source, globals, locals)  # noqa: S307 - what namedtuple's own eval call would run


@contextmanager
def dataclass_methods() -> Iterator[None]:
    """While ``import strided`` runs: the methods :mod:`dataclasses` generates for each
    ``@dataclass`` (``__init__``, ``__repr__``, ``__eq__``, ...: one source string per method,
    compiled by its ``exec`` call), and the ``__new__`` :func:`collections.namedtuple` makes
    for each named tuple (``typing.NamedTuple`` too: one ``eval`` of a lambda's source), come
    from this cache too. It defines 49 dataclasses and ~30 named tuples at import; compiling
    their ~110 functions was ~9 ms of it (a tenth of strided's own import).

    How: ``dataclasses`` finds ``exec`` (``collections``: ``eval``) in its module globals before
    the builtins, so a global of that name, set here and removed on exit, sees every source
    string; each one runs as code compiled from exactly that string with the same file name and
    mode, as the builtin would compile it (neither module has ``__future__`` flags to inherit),
    so every class and method is the one Python makes. Another thread defining a dataclass or a
    named tuple meanwhile gets the same functions."""
    patched = ((dataclasses, "exec", _exec_cached), (collections, "eval", _eval_cached))
    previous = [module.__dict__.get(name, _ABSENT) for module, name, _ in patched]
    for module, name, cached in patched:
        setattr(module, name, cached)
    try:
        yield
    finally:
        for (module, name, _), before in zip(patched, previous):
            if before is _ABSENT:
                delattr(module, name)
            else:
                setattr(module, name, before)


_ABSENT = object()


def save() -> None:
    """Write the sources used so far to the cache file when one was compiled in this process
    (see the module doc); never raises for an unwritable place."""
    global _remembered_file
    remembered, _remembered_file = dict(_remembered_used), {}  # (dropped: the import is over)
    _remembered_used.clear()
    _state["saved"] = True
    if not _state["compiled"] or sys.dont_write_bytecode:
        return
    _state["compiled"] = False
    _write(dict(_used), remembered)


def save_after_import() -> None:
    """After ``import strided`` (its :func:`save` done): write the sources used since, by a
    module the package loads on first use (the dataclasses of ``strided.diagnose``, read under
    :func:`dataclass_methods` there too), to a second file (``...later.marshal``), added to the
    entries it holds; ``import strided`` never reads that file, only such a module's first miss
    does. Nothing when none was compiled (the usual case: the file had them), during the import
    itself, or where bytecode writing is off; never raises for an unwritable place."""
    if not _state.get("saved") or not _state["compiled"] or sys.dont_write_bytecode:
        return
    _state["compiled"] = False
    table = _load(_LATER_PATH)  # (the file as it is now: another process may have added to it)
    table.update(_after)
    _write(table, {}, _LATER_PATH)


def _write(table: dict, remembered: dict, path: str | None = None) -> None:
    """The cache file ``path`` (default: the import's) made of ``table`` and ``remembered``,
    written atomically (see the module doc); nothing when the place is not writable."""
    path = _PATH if path is None else path
    temporary = f"{path}.{os.getpid()}.tmp"
    data = marshal.dumps((_header(), table, remembered))
    data += zlib.crc32(data).to_bytes(4, "little")
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(temporary, os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_BINARY", 0), 0o666)
    except OSError:
        return  # (read-only, or a file of that name exists: not ours to remove)
    try:
        with open(fd, "wb") as f:
            f.write(data)
        os.replace(temporary, path)
    except OSError:
        try:
            os.remove(temporary)
        except OSError:
            pass
