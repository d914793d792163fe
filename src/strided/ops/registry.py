"""Attaching op functions to Tensor as methods, in one visible place per op module."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ..tensor import Tensor

F = TypeVar("F", bound=Callable)


def method(*names: str) -> Callable[[F], F]:
    """Decorator: install the function as ``Tensor.<name>`` for each name (e.g. "add", "__add__")."""

    def install(fn: F) -> F:
        for name in names:
            setattr(Tensor, name, fn)
        return fn

    return install
