"""Containers: ``nn.Sequential`` (children called in order), ``nn.ModuleList`` and
``nn.ModuleDict`` (children held for their parameters), as PyTorch's.

>>> import strided.nn as nn
>>> seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU())
>>> len(seq), seq[-1], seq(strided.ones(2, 3)).shape
(2, ReLU(), (2, 4))
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ...errors import StridedIndexError, StridedTypeError
from .module import Module, _addindent

__all__ = ["ModuleDict", "ModuleList", "Sequential"]


def _index(idx: Any, size: int) -> int:
    """``idx`` as a non-negative position below ``size`` (PyTorch's IndexError outside)."""
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise StridedIndexError(f"index {idx} is out of range")
    return idx % size if size else idx


def _delete_and_renumber(container: Module, keys: list[str]) -> None:
    """Drop the children ``keys``; the rest are renamed 0, 1, ... in order, as PyTorch does."""
    for key in keys:
        delattr(container, key)
    container.__dict__["_modules"] = OrderedDict((str(i), m) for i, m in enumerate(container._modules.values()))


class Sequential(Module):
    """``Sequential(*modules)`` or ``Sequential(OrderedDict(name=module))``: ``forward`` feeds its
    input through the children in order.

    >>> nn.Sequential(nn.Flatten(), nn.Identity())
    Sequential(
      (0): Flatten(start_dim=1, end_dim=-1)
      (1): Identity()
    )
    """

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_index(idx, len(self))]

    def __setitem__(self, idx: int, module: Module) -> None:
        key = list(self._modules)[_index(idx, len(self))]
        setattr(self, key, module)

    def __delitem__(self, idx: Any) -> None:
        keys = list(self._modules)
        _delete_and_renumber(self, keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(self))]])

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        """Add ``module`` at the end; returns ``self``."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, sequential: Iterable[Module]) -> Sequential:
        for layer in sequential:
            self.append(layer)
        return self

    def forward(self, input: Any) -> Any:
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules, registered as children ``0``, ``1``, ...; repeated equal children
    print once (``(0-2): 3 x Linear(...)``), as PyTorch 2.13.

    >>> nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Tanh()])
    ModuleList(
      (0-1): 2 x ReLU()
      (2): Tanh()
    )
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self)))]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, str(_index(idx, len(self))), module)

    def __delitem__(self, idx: Any) -> None:
        keys = list(self._modules)
        _delete_and_renumber(self, keys[idx] if isinstance(idx, slice) else [str(_index(idx, len(self)))])

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> None:
        items = list(self._modules.values())
        items.insert(index, module)
        self.__dict__["_modules"] = OrderedDict()
        self.extend(items)

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        if not isinstance(modules, Iterable):
            raise StridedTypeError("ModuleList.extend should be called with an iterable, but got "
                                   + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def __repr__(self) -> str:
        reprs = [repr(item) for item in self]
        if not reprs:
            return self._get_name() + "()"
        blocks: list[list[Any]] = []  # [first index, last index, repr] of each run of equal reprs
        for i, r in enumerate(reprs):
            if blocks and blocks[-1][2] == r:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, r])
        lines = [_addindent(f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}", 2) for a, b, r in blocks]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules, registered as children by key (insertion order).

    >>> d = nn.ModuleDict({"act": nn.ReLU()})
    >>> list(d.keys()), "act" in d
    (['act'], True)
    """

    def __init__(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]  # type: ignore[return-value]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        v = self[key]
        del self[key]
        return v

    def keys(self) -> Any:
        return self._modules.keys()

    def items(self) -> Any:
        return self._modules.items()

    def values(self) -> Any:
        return self._modules.values()

    def update(self, modules: Any) -> None:
        if isinstance(modules, (Mapping, ModuleDict)):
            for key, module in modules.items():
                self[key] = module
            return
        for j, m in enumerate(modules):
            if not isinstance(m, Iterable) or isinstance(m, (str, bytes)) or len(m) != 2:
                raise StridedTypeError(f"ModuleDict update sequence element #{j} should be Iterable; is "
                                       + type(m).__name__)
            self[m[0]] = m[1]
