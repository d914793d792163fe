"""grad_mode._wrap (the import's spelt-out functools.update_wrapper) and the one-pass parameter
reading of the entries: the same attributes, in the same cases, as functools and inspect give."""

from __future__ import annotations

import functools
import inspect

import pytest

import strided
from strided import grad_mode


def _forward(self, dim: int = 0, *rest, keepdim=False, out=None, **extra):  # noqa: ANN001, ANN002, ANN003, ANN202
    """A forward's doc."""
    return self


_forward.__fresh__ = "fresh"  # type: ignore[attr-defined]
_forward.__wrapped_maker__ = None  # type: ignore[attr-defined]


def _attributes(fn: object) -> dict:
    return {name: getattr(fn, name, "<missing>") for name in
            ("__module__", "__name__", "__qualname__", "__doc__", "__annotations__", "__wrapped__", "__dict__")}


@pytest.mark.parametrize("wrapped", [_forward, lambda x: x, functools.partial(_forward, 1), len, strided.exp])
def test_wrap_is_update_wrapper(wrapped: object) -> None:
    def fresh() -> object:  # (two wrappers alike: a partial or builtin leaves their own names)
        def wrapper(*args: object) -> None:
            pass

        return wrapper

    ours, theirs = fresh(), fresh()
    assert grad_mode._wrap(ours, wrapped) is ours
    functools.update_wrapper(theirs, wrapped)
    a, b = _attributes(ours), _attributes(theirs)
    assert a == b
    if hasattr(wrapped, "__annotations__"):  # (the forward's own dict, shared, as update_wrapper shares it)
        assert a["__annotations__"] is b["__annotations__"] is wrapped.__annotations__
    assert list(ours.__dict__) == list(theirs.__dict__)


def test_wrapping_decorates() -> None:
    @grad_mode._wrapping(_forward)
    def entry(*args: object) -> None:
        pass

    assert entry.__wrapped__ is _forward and entry.__name__ == "_forward" and entry.__fresh__ == "fresh"


def test_read_parameters_match_inspect() -> None:
    # (a positional-only parameter's default is not read: such forwards get no exact entry nor
    # front, which refuse them by kind; main read it so too)
    def positional_only(a, b, /, c=3, *args, d, e=5, **kw):  # noqa: ANN001, ANN002, ANN003, ANN202
        pass

    for fn in (_forward, positional_only, lambda: None, lambda *a: a):
        ours = grad_mode._read_parameters(fn)
        theirs = list(inspect.signature(fn).parameters.values())
        assert [(p.name, p.kind, p.default) for p in ours] == [(p.name, p.kind, p.default) for p in theirs]


def test_entries_keep_their_forward_attributes() -> None:
    # (an op's entry names and documents its forward, as functools.wraps made it)
    for name in ("exp", "sum", "cat", "add", "argmax", "sort"):
        entry = getattr(strided, name)
        inner = inspect.unwrap(entry)
        assert entry.__name__ == inner.__name__ and entry.__doc__ == inner.__doc__, name
    x = strided.ones(2, requires_grad=True)
    from strided import exp

    assert exp(x).grad_fn is not None
    assert strided.Tensor.add_.__name__ == "add_"
