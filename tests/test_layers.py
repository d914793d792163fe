"""The layer table is true: no module imports a higher layer (``tensor`` none of ``ops``), and Tensor lists what is installed on it.

The layers are those of the README's table ("Layers"), read from the real imports: every
``from .x import y`` and ``from . import x`` in ``src/strided/``, lazy ones inside functions
included. A new module must be placed in :data:`LAYERS` (and in the README's table).
"""

from __future__ import annotations

import ast
import pathlib
import re

import strided

SRC = pathlib.Path(strided.__file__).parent

# The README's table, lowest first; a module may import its own layer and the layers below.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("ground", ("errors", "messages", "callsite", "memory_format", "dtypes", "args", "device", "_version")),
    ("layout", ("layout", "indexing")),
    ("storage", ("storage",)),
    ("kernels", ("kernels", "scalars")),
    ("text", ("formatting",)),
    # opdef: the op registry (one OpDef per op: names, kind, forward, backward rule); gradients: the
    # rules' helpers and the sealing of ops into recording entries; grad_mode:
    # grad mode, the autograd record, version counters and the entries (below the ops that use them)
    ("dispatch", ("dispatch", "grad_mode", "opdef", "gradients")),
    ("tensor", ("tensor", "creation", "pickled")),
    ("interop", ("interop",)),  # DLPack, as_tensor/asarray: wraps memory with creation
    ("above tensor", ("writes", "numpy_api")),
    ("ops", ("ops", "nn", "linalg")),
    ("autograd", ("autograd",)),
    ("diagnostics", ("describe", "diagnose")),
    ("array_api", ("array_api",)),  # the Python Array API standard's namespace, over ops and interop
    # the `strided` command (tour, show, explain, watch) and its web face, the playground: one layer,
    # because the playground runs the cli's own show grammar and tour while `strided playground` and
    # `show --html` start the playground (lazily)
    ("cli", ("cli", "playground")),
    ("face", ("",)),  # strided/__init__.py: the public API
]


def _layer(module: str) -> int:
    """The index in LAYERS of ``module`` (dotted, without ``strided.``); a package holds its modules."""
    for rank, (_, names) in enumerate(LAYERS):
        for name in names:
            if module == name or (name and module.startswith(name + ".")):
                return rank
    raise AssertionError(f"strided.{module} is in no layer: add it to LAYERS and to the README's table")


def _modules() -> dict[str, pathlib.Path]:
    out = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(module: str, path: pathlib.Path) -> set[str]:
    """The strided modules ``module`` imports (relative imports, resolved; dotted, without ``strided.``)."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    package = [p for p in package if p]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - node.level + 1]
            if node.module:
                found.add(".".join(base + [node.module]))
            else:  # from . import x: x is a module of that package
                found.update(".".join(base + [alias.name]) for alias in node.names)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            found.update(n.removeprefix("strided.") for n in names if n and n.split(".")[0] == "strided")
    return found


def test_no_module_imports_a_higher_layer():
    upward = []
    for module, path in _modules().items():
        own = _layer(module)
        for target in _imports(module, path):
            if _layer(target) > own:
                upward.append(f"strided.{module} ({LAYERS[own][0]}) imports strided.{target} "
                              f"({LAYERS[_layer(target)][0]})")
    assert not upward, "\n".join(upward)


def test_the_layout_layer_reads_no_numpy():
    """The layout algebra works from (shape, strides, offset) alone: no module of it imports NumPy."""
    for module, path in _modules().items():
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
