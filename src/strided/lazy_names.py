"""Names a package loads on first use (PEP 562): the one ``__getattr__`` body they share."""

from __future__ import annotations


def lazy_attribute(package: str, lazy: dict[str, tuple[str, str | None]], namespace: dict, name: str) -> object:
    """The lazy name ``name`` of ``package`` (a PEP 562 ``__getattr__``'s work; ``lazy``: name ->
    (module, attribute; None: the module itself)): imported now and stored in the package's
    ``namespace``, so that later reads are plain lookups. An AttributeError for any other name.
    (A ground module: the package face and its subpackages, autograd, share it.)"""
    where = lazy.get(name)
    if where is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    import importlib

    module = importlib.import_module(where[0])
    value = module if where[1] is None else getattr(module, where[1])
    namespace[name] = value
    return value
