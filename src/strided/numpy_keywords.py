"""NumPy's keyword spellings of an op's arguments: ``axis=`` for ``dim=``, ``keepdims=`` for
``keepdim=``, accepted where PyTorch accepts them, with PyTorch's errors where it does not.

PyTorch's argument parser (``torch/csrc/utils/python_arg_parser.cpp``,
``numpy_compatibility_arg_names``) lets every op it parses take ``axis`` for a parameter named
``dim`` and ``keepdims`` for one named ``keepdim``: ``torch.sum(t, axis=1, keepdims=True)``,
``t.argmax(axis=0)``, ``torch.cat([a, b], axis=0)``. Its ops written in Python
(``torch.split``, ``Tensor.norm``, ``torch.nn.functional.softmax``, ...) do not, and raise
Python's own ``TypeError``. Giving both spellings is PyTorch's error too:
``sum() got an unexpected keyword argument 'axis'``.

This module is the rule, in one place; the recording entries apply it
(:mod:`strided.grad_mode`: :func:`~strided.grad_mode.track` and its generated exact signatures,
:func:`~strided.grad_mode.guard`, :func:`~strided.grad_mode.guard_function`,
:func:`~strided.grad_mode.track_inplace`; the hand-written entries of :mod:`strided.ops.views`
and ``sum`` declare the two keywords themselves and call :func:`resolve`). The forwards and
the backward rules only ever see ``dim`` and ``keepdim``. The ops whose PyTorch counterpart
refuses the aliases are read off torch by ``tools/gen_face.py`` into
:mod:`strided.numpy_refused` (generated; not a hand-kept list).

A call without the aliases pays nothing for them: an exact entry tests two keyword defaults by
identity, an entry taking ``**kwargs`` renames only after Python refused an unknown keyword.

Thread behaviour: the module holds constants only.

>>> x = strided.arange(6.0).view(2, 3)
>>> strided.sum(x, axis=1, keepdims=True).tolist()
[[3.0], [12.0]]
>>> x.sum(1, axis=0)
Traceback (most recent call last):
...
strided.errors.StridedTypeError: sum() got an unexpected keyword argument 'axis'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .errors import StridedTypeError
from .numpy_refused import REFUSED

__all__ = ["ALIASES", "NO", "accepts", "aliases_of", "call", "missing", "renamed", "require", "resolve", "unexpected"]

# NumPy's spelling -> the op's own parameter (PyTorch's numpy_compatibility_arg_names, the
# dim/keepdim part: strided's first parameters are named ``self`` or ``input`` unevenly, so the
# ``x``/``a``/``x1``/``x2`` spellings of ``input``/``other`` are not mapped here)
ALIASES: dict[str, str] = {"axis": "dim", "keepdims": "keepdim"}


class _Absent:
    """The default of an alias keyword (and of a required parameter after ``dim`` in an entry
    that takes ``axis``): "not given"."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<not given>"


NO: Any = _Absent()


def accepts(key: str) -> bool:
    """Whether the op spelt ``key`` takes NumPy's keywords: ``"sum"`` (``strided.sum``),
    ``"Tensor.sum"`` (the method), ``"F.softmax"`` (``nn.functional``), as PyTorch's does.

    >>> accepts("Tensor.sum"), accepts("split"), accepts("F.softmax")
    (True, False, False)
    """
    return key not in REFUSED


def aliases_of(names: Iterable[str]) -> tuple[str, ...]:
    """The NumPy keywords a forward with these parameter names takes (``("axis", "keepdims")``
    for ``sum(self, dim, keepdim, ...)``), none where it already has a parameter of that name."""
    names = tuple(names)
    found: tuple[str, ...] = ()
    for alias, canonical in ALIASES.items():  # (a loop, not a generator: ~700 asks a run, of two aliases)
        if canonical in names and alias not in names:
            found += (alias,)
    return found


def unexpected(fname: str, keyword: str) -> StridedTypeError:
    """PyTorch's (and Python's) error for a keyword the op does not take."""
    return StridedTypeError(f"{fname}() got an unexpected keyword argument '{keyword}'")


def resolve(fname: str, bound: dict[str, Any], given: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """The op's own keywords for an exact entry's call: ``bound`` (its parameters as bound,
    :data:`NO` where a required one was not given), ``given`` (alias -> value, :data:`NO` where
    absent), ``defaults`` (the parameters' defaults). An alias takes its parameter's place when
    the parameter was left at its default; otherwise the call named it twice (PyTorch's error).
    (A generated exact entry defaults ``dim``/``keepdim`` to :data:`NO`, so one written out at
    its default is told from one left out; a hand-written entry passing the real default cannot
    tell them apart: ``x.sum(dim=None, axis=0)`` takes ``axis``.)

    >>> resolve("sum", {"self": 1, "dim": None}, {"axis": 0}, {"dim": None})
    {'self': 1, 'dim': 0}
    """
    out = dict(bound)
    for alias, value in given.items():
        if value is NO:
            continue
        canonical = ALIASES[alias]
        if not (out[canonical] is NO or (canonical in defaults and out[canonical] is defaults[canonical])):
            raise unexpected(fname, alias)
        out[canonical] = value
    return out


def missing(fname: str, names: list[str]) -> StridedTypeError:
    """Python's error for required arguments left out (its text: ``'a', 'b', and 'c'``).

    >>> print(missing("gather", ["dim", "index"]))
    gather() missing 2 required positional arguments: 'dim' and 'index'
    """
    quoted = [f"'{n}'" for n in names]
    listed = quoted[0] if len(quoted) == 1 else (
        f"{quoted[0]} and {quoted[1]}" if len(quoted) == 2 else f"{', '.join(quoted[:-1])}, and {quoted[-1]}")
    plural = "argument" if len(names) == 1 else "arguments"
    return StridedTypeError(f"{fname}() missing {len(names)} required positional {plural}: {listed}")


def require(fname: str, bound: dict[str, Any]) -> None:
    """Python's error for the required parameters of ``bound`` left at :data:`NO` (a hand-written
    entry asks in its slow path: :data:`NO` is no int, so a plain call never gets here).

    >>> require("select", {"dim": 0, "index": 1})
    """
    absent = [k for k, v in bound.items() if v is NO]
    if absent:
        raise missing(fname, absent)


def call(entry: Callable[..., Any], fname: str, bound: dict[str, Any], given: dict[str, Any],
         defaults: dict[str, Any], unset: dict[str, Any] | None = None) -> Any:
    """The slow path of an entry that takes NumPy's keywords, for a call that used one or left a
    required parameter (default :data:`NO`) out: ``entry`` called again with the op's own
    keywords (:func:`resolve`), or Python's error for what is still missing. ``unset``: the
    parameters whose entry defaults them to :data:`NO` (so that one written out at its default
    beside its alias is told from one left out) -> their real defaults, filled in after."""
    kwargs = resolve(fname, bound, given, defaults)
    if unset:
        for k, v in unset.items():
            if kwargs[k] is NO:
                kwargs[k] = v
    require(fname, kwargs)
    return entry(**kwargs)


def renamed(fname: str, params: tuple[str, ...], args: tuple, kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` of a call into a ``**kwargs`` entry, NumPy's keywords renamed to the forward's
    (whose parameters are ``params``, in order; ``args``: the call's positional arguments,
    ``self`` included). An alias whose parameter also came positionally or by name is PyTorch's
    error.

    >>> renamed("sum", ("self", "dim", "keepdim"), (1,), {"axis": 0, "keepdims": True})
    {'dim': 0, 'keepdim': True}
    """
    taken = set(params[:len(args)])
    out = dict(kwargs)
    for alias in aliases_of(params):
        if alias not in out:
            continue
        canonical = ALIASES[alias]
        if canonical in out or canonical in taken:
            raise unexpected(fname, alias)
        out[canonical] = out.pop(alias)
    return out
