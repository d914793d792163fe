"""Names a package loads on first use (PEP 562): the one ``__getattr__`` body they share, and the
hooks of a module whose classes are made on first use (:func:`classes_on_first_use`)."""

from __future__ import annotations

from collections.abc import Callable


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


def classes_on_first_use(namespace: dict, names: tuple[str, ...], define: Callable[[], tuple[type, ...]]
                         ) -> tuple[Callable[[str], type], Callable[[], list[str]]]:
    """A module's PEP 562 ``__getattr__`` and ``__dir__`` for its classes ``names``, which
    ``define()`` makes (returning them) on the first read of any of them, under a lock (two
    threads get the same class), and stores in the module's ``namespace``: later reads are plain
    lookups, and each class is the one an eager definition would make (``__qualname__`` set to
    its name, as at module level: pickling finds it). ``dir(module)`` lists them before that.
    An AttributeError for any other name. (For classes only some calls need: the named tuples
    of the results, ~60 us each to make at import.)"""
    from _thread import allocate_lock

    lock = allocate_lock()
    module = namespace["__name__"]

    def __getattr__(name: str) -> type:  # noqa: N807 - the PEP 562 hook
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        with lock:
            if name not in namespace:  # (not made by another thread meanwhile)
                made = define()
                assert tuple(cls.__name__ for cls in made) == names, names
                for cls in made:
                    cls.__qualname__ = cls.__name__  # (defined in define's body: '<define>.<locals>.max')
                    namespace[cls.__name__] = cls
        return namespace[name]

    def __dir__() -> list[str]:  # noqa: N807 - the PEP 562 hook
        return sorted({*namespace, *names})

    return __getattr__, __dir__
