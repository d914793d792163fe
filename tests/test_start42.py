"""``import strided`` finds its own modules with one finder (issue 23, session 42).

:class:`strided.lazy_names.OwnModules` sits first on ``sys.meta_path`` while the package loads
and answers ``strided.<...>`` from one listing of each package directory. Checked here: every
module of a real import has the spec Python's own path finder makes for it (loader, origin,
cached file, search locations); the finder is gone after the import, a failed one too; and,
against Python's path finder on generated package trees, the same spec or None (left to
Python's finders) for every kind of entry: a package directory beside a module of the same name,
extension modules beside sources, ``.pyc``-only modules, namespace directories, a parent whose
``__path__`` is not its directory."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from importlib._bootstrap_external import _get_supported_file_loaders
from importlib.machinery import EXTENSION_SUFFIXES, BuiltinImporter, FileFinder, FrozenImporter, PathFinder

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from strided.lazy_names import OwnModules

_SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


def _run(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": _SRC}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _fields(spec):
    if spec is None:
        return None
    return (spec.name, type(spec.loader), getattr(spec.loader, "name", None), getattr(spec.loader, "path", None),
            spec.origin, spec.submodule_search_locations, spec.cached, spec.has_location, spec.parent,
            spec.loader_state)


def _python_finds(name: str, directory: str):
    """The spec Python's path finder makes for ``name`` in the package directory ``directory``
    (its FileFinder for that directory, made by the same path hook)."""
    return FileFinder.path_hook(*_get_supported_file_loaders())(directory).find_spec(name)


def _left_alone(ref) -> bool:
    """Whether a spec is one the finder leaves to Python's finders: none at all, a namespace
    portion, a module or package of bytecode only, an extension package."""
    return ref is None or ref.loader is None or type(ref.loader).__name__ == "SourcelessFileLoader" or (
        ref.submodule_search_locations is not None and not ref.origin.endswith("__init__.py"))


_SAME_SPECS = """
import sys
from importlib.machinery import PathFinder
before = list(sys.meta_path)
import strided
assert sys.meta_path == before, (sys.meta_path, before)
def fields(spec):
    return (spec.name, type(spec.loader), spec.loader.name, spec.loader.path, spec.origin,
            spec.submodule_search_locations, spec.cached, spec.has_location, spec.parent, spec.loader_state)
n = 0
for name, module in sorted(sys.modules.items()):
    if not name.startswith("strided.") or module.__spec__.name != name:  # (strided.return_types: an alias)
        continue
    parent = sys.modules[name.rpartition(".")[0]]
    ref = PathFinder.find_spec(name, parent.__path__)
    assert fields(module.__spec__) == fields(ref), (name, fields(module.__spec__), fields(ref))
    assert module.__file__ == ref.origin and getattr(module, "__path__", None) == ref.submodule_search_locations
    assert getattr(module, "__cached__", None) == ref.cached and module.__loader__ is module.__spec__.loader
    n += 1
print(n, any(type(f).__name__ == "OwnModules" for f in sys.meta_path))
"""


def test_every_module_has_pythons_own_spec_and_the_finder_leaves() -> None:
    n, left = _run(_SAME_SPECS).split()
    assert int(n) > 100 and left == "False"


def test_a_failed_import_leaves_no_finder() -> None:
    out = _run("import sys\nbefore = list(sys.meta_path)\nsys.modules['strided.writes'] = None\n"
               "try:\n    import strided\nexcept ImportError as e:\n    print('failed', 'strided.writes' in str(e))\n"
               "print(sys.meta_path == before, 'strided' in sys.modules)")
    assert out.split() == ["failed", "True", "True", "False"]


def test_later_imports_use_pythons_finders() -> None:
    # (a module loaded after the import, by a lazy name: found as before, by the path finder)
    out = _run("import sys, strided\nimport strided.serialization as m\n"
               "from importlib.machinery import PathFinder\n"
               "ref = PathFinder.find_spec(m.__name__, strided.__path__)\n"
               "print(m.__spec__.origin == ref.origin, type(m.__spec__.loader) is type(ref.loader), "
               "type(sys.path_importer_cache[strided.__path__[0]]).__name__)")
    assert out.split() == ["True", "True", "FileFinder"]


# ---------------------------------------------------------------- against Python's path finder

_SO = EXTENSION_SUFFIXES[0]
# the kinds of entry a name can have in a package directory
_KINDS = ("module.py", "module.pyc", "module.so", "module.abi3", "package", "package.pyc", "package.so", "namespace")


def _make(directory: str, leaf: str, kind: str) -> None:
    if kind == "module.py":
        open(os.path.join(directory, leaf + ".py"), "w").close()
    elif kind == "module.pyc":
        open(os.path.join(directory, leaf + ".pyc"), "w").close()
    elif kind == "module.so":
        open(os.path.join(directory, leaf + _SO), "w").close()
    elif kind == "module.abi3":
        open(os.path.join(directory, leaf + EXTENSION_SUFFIXES[-1]), "w").close()
    else:
        sub = os.path.join(directory, leaf)
        os.makedirs(sub, exist_ok=True)
        if kind != "namespace":
            init = {"package": "__init__.py", "package.pyc": "__init__.pyc", "package.so": "__init__" + _SO}[kind]
            open(os.path.join(sub, init), "w").close()


@settings(max_examples=40, deadline=None)
@given(hs.dictionaries(hs.sampled_from(["a", "b", "c"]), hs.sets(hs.sampled_from(_KINDS), min_size=1, max_size=3),
                       min_size=1, max_size=3),
       hs.dictionaries(hs.sampled_from(["x", "y"]), hs.sets(hs.sampled_from(_KINDS), min_size=1, max_size=2),
                       max_size=2))
def test_the_same_spec_as_the_path_finder_or_none(top: dict, inner: dict) -> None:
    with tempfile.TemporaryDirectory() as root:
        pkg = os.path.join(root, "pk")
        os.makedirs(pkg)
        for leaf, kinds in top.items():
            for kind in sorted(kinds):
                _make(pkg, leaf, kind)
        # a subpackage with its own entries (found through the finder's answer for it)
        sub = os.path.join(pkg, "sub")
        os.makedirs(sub)
        open(os.path.join(sub, "__init__.py"), "w").close()
        for leaf, kinds in inner.items():
            for kind in sorted(kinds):
                _make(sub, leaf, kind)
        finder = OwnModules("pk", pkg)
        answered = 0
        for leaf in [*top, "sub", "missing"]:
            name = f"pk.{leaf}"
            ref, got = _python_finds(name, pkg), finder.find_spec(name, [pkg])
            if got is not None:
                answered += 1
                assert _fields(got) == _fields(ref), (name, top)
            else:  # (left to Python's finders)
                assert _left_alone(ref), (name, top, _fields(ref))
        spec = finder.find_spec("pk.sub", [pkg])
        assert spec is not None and _fields(spec) == _fields(_python_finds("pk.sub", pkg))
        for leaf in [*inner, "missing"]:
            name = f"pk.sub.{leaf}"
            ref, got = _python_finds(name, sub), finder.find_spec(name, [sub])
            if got is not None:
                assert _fields(got) == _fields(ref), (name, inner)
            else:
                assert _left_alone(ref), (name, inner, _fields(ref))
        assert answered >= 1  # (pk.sub at least)


def test_names_it_leaves_to_pythons_finders() -> None:
    with tempfile.TemporaryDirectory() as root:
        pkg = os.path.join(root, "pk")
        os.makedirs(pkg)
        open(os.path.join(pkg, "m.py"), "w").close()
        finder = OwnModules("pk", pkg)
        assert finder.find_spec("pk.m", [pkg]) is not None
        assert finder.find_spec("pkx.m", [pkg]) is None  # (another package)
        assert finder.find_spec("pk.m", [os.path.join(root, "elsewhere")]) is None  # (a parent moved)
        assert finder.find_spec("pk.m", [pkg, root]) is None  # (a parent with two directories)
        assert finder.find_spec("pk.m", None) is None
        assert finder.find_spec("pk.nosuch.m", [pkg]) is None  # (a parent it did not find)
        assert OwnModules("pk", os.path.join(root, "absent")).find_spec("pk.m", [os.path.join(root, "absent")]) is None
        try:  # (a directory whose path hook made a finder of its own: that finder answers)
            sys.path_importer_cache[pkg] = object()
            assert finder.find_spec("pk.m", [pkg]) is None
            sys.path_importer_cache[pkg] = FileFinder(pkg)
            assert finder.find_spec("pk.m", [pkg]) is not None
        finally:
            sys.path_importer_cache.pop(pkg, None)


def test_enter_and_leave(monkeypatch: pytest.MonkeyPatch) -> None:
    class Mine:  # (a user's finder, first: still asked first)
        find_spec = staticmethod(lambda *a: None)

    monkeypatch.setattr(sys, "meta_path", [Mine, *sys.meta_path])
    finder = OwnModules("pk", "/nonexistent")
    before = list(sys.meta_path)
    finder.enter()
    try:
        at, path_finder = sys.meta_path.index(finder), sys.meta_path.index(PathFinder)
        assert Mine in sys.meta_path[:at] and at < path_finder  # (after every finder that could answer)
        assert all(f in (BuiltinImporter, FrozenImporter) or type(f).__module__ == "_distutils_hack"
                   for f in sys.meta_path[at + 1:path_finder])
        assert [f for f in sys.meta_path if f is not finder] == before
    finally:
        finder.leave()
    assert sys.meta_path == before
    finder.leave()  # (twice: nothing to do)
    assert sys.meta_path == before
    monkeypatch.setattr(sys, "meta_path", [Mine])  # (no path finder: it stays out)
    finder.enter()
    assert sys.meta_path == [Mine]
    monkeypatch.setattr(sys, "meta_path", [BuiltinImporter, FrozenImporter, PathFinder])  # (the standard ones: first)
    finder.enter()
    assert sys.meta_path == [finder, BuiltinImporter, FrozenImporter, PathFinder]


def test_a_users_finder_is_asked_first() -> None:
    # (a finder a user put before Python's path finder answers a strided module, as it did)
    out = _run("import sys, types\n"
               "from importlib.machinery import ModuleSpec\n"
               "class Stub:\n"
               "    def create_module(self, spec): return None\n"
               "    def exec_module(self, module): module.stub = True\n"
               "class Mine:\n"
               "    @staticmethod\n"
               "    def find_spec(name, path=None, target=None):\n"
               "        return ModuleSpec(name, Stub()) if name == 'strided.describe' else None\n"
               "sys.meta_path.insert(0, Mine)\n"
               "import strided\n"
               "print(getattr(sys.modules['strided.describe'], 'stub', False))")
    assert out.strip() == "True"


@pytest.mark.parametrize("code", ["import strided; print(sorted(n for n in dir(strided) if 'own' in n.lower()))"])
def test_the_face_keeps_no_new_name(code: str) -> None:
    assert _run(code).strip() == "[]"
