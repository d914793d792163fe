"""Names a package loads on first use (PEP 562): the one ``__getattr__`` body they share, the
hooks of a module whose classes are made on first use (:func:`classes_on_first_use`), and the
stand-in of a helper module's function that loads the module on its first call
(:func:`function_on_first_call`); and the finder of the package's own modules while
``import strided`` runs (:class:`OwnModules`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from importlib._bootstrap import BuiltinImporter, FrozenImporter  # (loaded with Python itself)
from importlib._bootstrap_external import (  # (loaded with Python itself; importlib.util is not)
    EXTENSION_SUFFIXES,
    ExtensionFileLoader,
    FileFinder,
    PathFinder,
    SourceFileLoader,
    spec_from_file_location,
)
from typing import Any


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


def function_on_first_call(module: str, name: str, namespace: dict, alias: str | None = None) -> Callable[..., Any]:
    """A stand-in for the function ``name`` of ``module``, to bind as ``alias`` (default: ``name``)
    in the caller's ``namespace`` (its ``globals()``) in place of ``from module import name``: its
    first call imports ``module``, rebinds ``alias`` there to the real function and calls it, so
    later calls from that module are plain global lookups of the real function (no per-call
    cost). For helper modules that only some op calls need (issue 23: ``import strided`` does not
    load them). Threads: the import takes the import lock; two first calls bind the same object."""
    def first_call(*args: Any, **kwargs: Any) -> Any:
        import importlib

        real = getattr(importlib.import_module(module), name)
        namespace[alias or name] = real
        return real(*args, **kwargs)

    first_call.__qualname__ = first_call.__name__ = alias or name
    first_call.__doc__ = f"(loads {module} on first call: see strided.lazy_names.function_on_first_call)"
    return first_call


class _ModuleOnFirstUse:
    """:func:`module_on_first_use`'s stand-in: its first attribute read imports the module,
    rebinds the caller's global to it and answers from it."""

    __slots__ = ("_module", "_namespace", "_alias")

    def __init__(self, module: str, namespace: dict, alias: str) -> None:
        self._module, self._namespace, self._alias = module, namespace, alias

    def __getattr__(self, attr: str) -> Any:
        import importlib

        real = importlib.import_module(self._module)
        self._namespace[self._alias] = real
        return getattr(real, attr)

    def __repr__(self) -> str:
        return f"<{self._module} (loads on first use: see strided.lazy_names.module_on_first_use)>"


def module_on_first_use(module: str, namespace: dict, alias: str | None = None) -> Any:
    """A stand-in for the helper module ``module``, to bind as ``alias`` (default: its last name)
    in the caller's ``namespace`` (its ``globals()``) in place of ``from package import module``,
    for a module the caller reads only inside its functions (``module.fn(...)``): the first
    attribute read imports ``module`` and rebinds ``alias`` there to it, so later reads are plain
    global lookups of the module (no per-call cost). As :func:`function_on_first_call`, for helper
    modules only some op calls need (issue 23: ``import strided`` does not load them)."""
    return _ModuleOnFirstUse(module, namespace, alias or module.rpartition(".")[2])


class OwnModules:
    """The finder of a package's own modules (``strided.<...>``) while ``import strided`` runs
    (on ``sys.meta_path`` before Python's path finder: :meth:`enter`; removed when the face is
    done): each spec is the one the path finder makes for that name, read off one listing of each
    package directory, without the path finder's walk (its cache lookups, the directory's
    ``stat`` and the file's ``stat`` per module) and without asking the finders that never answer
    (~12 us of each of the ~170 imports). The same precedence as Python's: a package directory
    before a module, an extension module before a source file. Anything it is not sure of is left
    to the other finders (None): a name outside the package, a parent whose ``__path__`` is not
    its one directory, a directory some path hook gave a finder of its own, a module that is
    neither source nor extension (``.pyc`` only), an extension package, a directory without an
    ``__init__.py`` and no module of its name (a namespace portion), an unreadable directory."""

    __slots__ = ("_prefix", "_directories", "_listings")

    def __init__(self, package: str, directory: str) -> None:
        self._prefix = package + "."
        self._directories = {package: directory}  # package -> its one directory (its __path__)
        self._listings: dict[str, frozenset[str]] = {}  # directory -> its entries

    def enter(self) -> None:
        """Find the package's modules from now on: on ``sys.meta_path`` before Python's path
        finder, whose answers it gives, and after every finder before it that could answer
        (a user's: asked first, as before); before those that never answer a module of a package
        (the built-in and frozen finders, setuptools' ``distutils`` shim), whose calls it saves.
        Not at all where the path finder is not there."""
        at = 0
        for i, finder in enumerate(sys.meta_path):
            if finder is PathFinder:
                sys.meta_path.insert(at, self)
                return
            if not (finder is BuiltinImporter or finder is FrozenImporter
                    or type(finder).__module__ == "_distutils_hack"):
                at = i + 1

    def leave(self) -> None:
        """Leave ``sys.meta_path`` (the import is done, or failed): Python's finders as before."""
        while self in sys.meta_path:
            sys.meta_path.remove(self)

    def _listing(self, directory: str) -> frozenset[str] | None:
        names = self._listings.get(directory)
        if names is None:
            try:
                names = self._listings[directory] = frozenset(os.listdir(directory))
            except OSError:  # (not a directory, unreadable)
                return None
        return names

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if not fullname.startswith(self._prefix):
            return None
        parent, _, leaf = fullname.rpartition(".")
        directory = self._directories.get(parent)
        if directory is None or path is None or len(path) != 1 or path[0] != directory:
            return None
        hooked = sys.path_importer_cache.get(directory)
        if hooked is not None and type(hooked) is not FileFinder:  # (a path hook's own finder: its answer)
            return None
        names = self._listing(directory)
        if names is None:
            return None
        if leaf in names:  # (a directory: a package, as Python's path finder tries it first)
            base = os.path.join(directory, leaf)
            inside = self._listing(base)
            if inside is not None:
                if any(f"__init__{suffix}" in inside for suffix in EXTENSION_SUFFIXES):
                    return None  # (an extension package: Python's own order, extensions first)
                if "__init__.py" in inside:
                    self._directories[fullname] = base
                    origin = os.path.join(base, "__init__.py")
                    return spec_from_file_location(fullname, origin, loader=SourceFileLoader(fullname, origin),
                                                   submodule_search_locations=[base])
                if "__init__.pyc" in inside:
                    return None  # (a package of bytecode only)
                # (no __init__: a module of the name comes first, else a namespace portion, left to Python)
        for suffix in EXTENSION_SUFFIXES:
            if leaf + suffix in names:
                origin = os.path.join(directory, leaf + suffix)
                return spec_from_file_location(fullname, origin, loader=ExtensionFileLoader(fullname, origin))
        if leaf + ".py" in names:
            origin = os.path.join(directory, leaf + ".py")
            return spec_from_file_location(fullname, origin, loader=SourceFileLoader(fullname, origin))
        return None
