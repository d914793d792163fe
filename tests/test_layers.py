"""The layer table is true: no module imports a higher layer (``tensor`` none of ``ops``), and Tensor lists what is installed on it.

The layers are those of the README's table ("Layers"), read from the real imports: every
``from .x import y`` and ``from . import x`` in ``src/strided/``, lazy ones inside functions
included. A new module must be placed in :data:`LAYERS` (and in the README's table).
"""

from __future__ import annotations

import ast
import pathlib
import re

import pytest

import strided

SRC = pathlib.Path(strided.__file__).parent

# The README's table, lowest first; a module may import its own layer and the layers below.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("ground", ("errors", "refusals", "messages", "callsite", "memory_format", "dtypes", "dtype_promotion", "dtype_info", "args", "device",
                "_version", "determinism", "text_width", "size", "numpy_keywords", "numpy_refused", "entry_cache",
                "lazy_names")),
    ("layout", ("layout", "indexing")),
    ("storage", ("storage", "typed_storage")),  # typed_storage: PyTorch's TypedStorage view of a storage
    ("kernels", ("kernels", "scalars")),
    ("text", ("formatting",)),
    # opdef: the op registry (one OpDef per op: names, kind, forward, backward rule); gradients: the
    # rules' helpers and the sealing of ops into recording entries; grad_mode:
    # grad mode, the autograd record, version counters and the entries (below the ops that use them)
    ("dispatch", ("dispatch", "grad_mode", "opdef", "gradients")),
    ("tensor", ("tensor", "creation", "pickled", "parameter")),  # parameter: nn.Parameter, a Tensor subclass
    ("interop", ("interop",)),  # DLPack, as_tensor/asarray: wraps memory with creation
    ("above tensor", ("writes", "numpy_api", "serialization")),
    ("ops", ("ops", "nn", "linalg", "special")),
    ("autograd", ("autograd",)),
    ("optim", ("optim",)),  # torch.optim's optimizers and schedulers: in-place updates under no_grad
    ("diagnostics", ("describe", "diagnose", "testing")),  # testing: assert_close, a reader of results
    ("array_api", ("array_api",)),  # the Python Array API standard's namespace, over ops and interop
    # the `strided` command (tour, show, explain, watch) and its web face, the playground: one layer,
    # because the playground runs the cli's own show grammar and tour while `strided playground` and
    # `show --html` start the playground (lazily)
    ("cli", ("cli", "playground", "__main__")),  # __main__: `python -m strided`
    ("face", ("", "face_ops")),  # strided/__init__.py: the public API; face_ops: its op functions (generated)
]


def _layer(module: str) -> int:
    """The index in LAYERS of ``module`` (dotted, without ``strided.``); a package holds its modules."""
    for rank, (_, names) in enumerate(LAYERS):
        for name in names:
            if module == name or (name and module.startswith(name + ".")):
                return rank
    raise AssertionError(f"strided.{module} is in no layer: add it to LAYERS and to the README's table")


# Modules that run as their own process's entry and hand the user's program the public face (so
# they import ``strided`` itself at run time): the face is what they serve, not a layer they sit on.
ENTRY_POINTS = {"playground.child": "runs the user's program, in a sandboxed process, against `strided`"}


def _modules(stubs: bool = False) -> list[tuple[str, pathlib.Path]]:
    """(dotted module name, file) for every module of the package; with ``stubs``, the stubs too
    (``tensor.pyi``: its imports are references as well)."""
    out = []
    for path in sorted([*SRC.rglob("*.py"), *(SRC.rglob("*.pyi") if stubs else ())]):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.append((".".join(parts), path))
    return out


def _named(dotted: str) -> str | None:
    """``strided.x.y`` as ``x.y`` (``strided`` itself as the face, ""); None if not strided's."""
    if dotted == "strided":
        return ""
    return dotted.removeprefix("strided.") if dotted.startswith("strided.") else None


def _imports(module: str, source: str, is_package: bool = False) -> set[str]:
    """The strided modules ``module`` refers to, dotted, without ``strided.``: every import statement
    wherever it stands (inside functions and ``if TYPE_CHECKING:`` too), relative ones resolved, and
    the run-time lookups by name (``importlib.import_module("strided.x")``, ``__import__``,
    ``sys.modules["strided.x"]``), which no import statement shows."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    package = [p for p in package if p]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - node.level + 1]
            if node.module:
                found.add(".".join(base + [node.module]))
            else:  # from . import x: x is a module of that package
                found.update(".".join(base + [alias.name]) for alias in node.names)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            found.update(n for n in map(_named, filter(None, names)) if n is not None)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = ast.unparse(node.func)
            if func.endswith("import_module") or func == "__import__":
                name = _named(str(node.args[0].value))
                if name is not None:
                    found.add(name)
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith("sys.modules"):
            key = node.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                name = _named(key.value)
                if name is not None:
                    found.add(name)
    return found


def _sources() -> dict[str, tuple[str, str, bool]]:
    """file (relative to the package): (module, source, is_package); ``tensor.py`` and its stub
    ``tensor.pyi`` are one module, two files."""
    return {str(p.relative_to(SRC)): (m, p.read_text(), p.stem == "__init__") for m, p in _modules(stubs=True)}


def _upward(sources: dict[str, tuple[str, str, bool]]) -> list[str]:
    """Each reference in ``sources`` (see :func:`_sources`) to a higher layer, as a sentence."""
    upward = []
    for module, source, is_package in sources.values():
        own = _layer(module)
        for target in _imports(module, source, is_package):
            if _layer(target) > own and module not in ENTRY_POINTS:
                upward.append(f"strided.{module} ({LAYERS[own][0]}) imports strided.{target} "
                              f"({LAYERS[_layer(target)][0]})")
    return upward


def test_no_module_imports_a_higher_layer():
    upward = _upward(_sources())
    assert not upward, "\n".join(upward)


@pytest.mark.parametrize("file, source, planted", [
    ("layout/core.py", "import numpy\n", 0),  # (a control: not strided's)
    ("layout/core.py", "def f():\n    from ..tensor import Tensor\n", 1),  # lazy, inside a function
    ("dispatch.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .ops import add\n", 1),
    ("kernels/memory.py", "import importlib\ndef f():\n    return importlib.import_module('strided.autograd')\n", 1),
    ("grad_mode.py", "import sys\ndef f():\n    return sys.modules['strided'].exp\n", 1),
    ("messages.py", "def f():\n    return __import__('strided.diagnose.watch')\n", 1),
    ("tensor.pyi", "from strided.autograd.tensor_api import RemovableHandle\n", 1),  # a stub's type-only import
])
def test_a_planted_upward_reference_is_found(file, source, planted):
    """The check above sees every kind of upward reference: plant one in place of a module's source
    (only that module is read again: the others' references are the first test's business)."""
    path = SRC / file
    module = next(m for m, p in _modules(stubs=True) if p == path)
    found = _upward({file: (module, source, path.stem == "__init__")})
    assert len(found) == planted, found


def test_the_layout_layer_reads_no_numpy():
    """The layout algebra works from (shape, strides, offset) alone: no module of it imports NumPy."""
    for module, path in _modules():
        if _layer(module) == 1:
            assert not re.search(r"^\s*(import|from)\s+numpy", path.read_text(), re.M), module


def test_tensor_docstring_lists_the_methods_installed_from_above():
    """Every method a module above ``tensor`` installs on Tensor is named in Tensor's docstring,
    under the module that installs it (the list is generated at import from the finished class,
    :func:`strided.gradients.installed_methods`; this reads it back against tensor.py's source)."""
    doc = strided.Tensor.__doc__
    sections = dict(re.findall(r":mod:`strided\.([\w.]+)`:(.*?)(?=\n\s*- :mod:|\Z)", doc, re.S))
    tree = ast.parse((SRC / "tensor.py").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    own = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    own |= {t.id for n in cls.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    for name, value in vars(strided.Tensor).items():
        fn = getattr(value, "fget", value)
        where = getattr(fn, "__module__", None)
        if name in own or not callable(fn) or where in (None, "strided.tensor", "builtins"):
            continue
        module = where.removeprefix("strided.")
        assert module in sections, f"Tensor.{name} is installed by {where}, which Tensor's docstring does not list"
        assert f"``{name}``" in sections[module] or "..." in sections[module], (
            f"Tensor.{name} (installed by {where}) is not named in Tensor's docstring"
        )
    for module, text in sections.items():
        for name in re.findall(r"``(\w+)``", text):
            member = strided.Tensor.__dict__.get(name, getattr(strided.Tensor, name))
            assert getattr(member, "fget", member).__module__ == f"strided.{module}", (module, name)
