"""Generate ``src/strided/tensor.pyi``, the type stub of :mod:`strided.tensor`, from the live module.

Most of Tensor's methods are installed at import time by the modules above ``tensor``
(``@installs_as``, ``method(...)``, ``setattr``), so a type checker reading ``tensor.py`` sees none
of them. This script imports ``strided``, walks the finished ``Tensor`` class and the module's own
functions, and writes each one's signature from ``inspect.signature`` and the function's own
annotations (``Any`` where there is none, or where a name in an annotation cannot be imported).
The stub has no second source of truth: ``tests/test_typing.py`` regenerates it in memory and
compares it with the committed file.

Usage (from the repository root)::

    PYTHONPATH=src python tools/gen_stubs.py          # rewrite src/strided/tensor.pyi
    PYTHONPATH=src python tools/gen_stubs.py --check  # exit 1 if the committed stub is stale
"""

from __future__ import annotations

import ast
import builtins
import inspect
import pathlib
import sys
import types
import typing
from collections.abc import Callable
from typing import Any

STUB = pathlib.Path(__file__).resolve().parents[1] / "src" / "strided" / "tensor.pyi"
MODULE = "strided.tensor"

# Binary dunders that Tensor redefines with a different contract from object's (``==`` is
# elementwise and returns a tensor): the override is deliberate, as in PyTorch's and NumPy's stubs.
_OVERRIDES = {"__eq__", "__ne__"}
# Class data that is Python's, not the tensor's.
_SKIP = {"__dict__", "__doc__", "__module__", "__slots__", "__weakref__", "__annotations__",
         "__slotnames__"}  # (copyreg caches __slotnames__ on the class once a tensor is copied)


class _Imports:
    """The imports a stub needs: one ``from m import n as alias`` per object, aliases unique."""

    def __init__(self) -> None:
        self.by_object: dict[int, str] = {}  # id(object) -> the name it has in the stub
        self.lines: dict[str, tuple[str, str | None, str]] = {}  # alias -> (module, name or None, alias)
        self.local: set[str] = set()  # names the stub defines itself
        self.shadowed: set[str] = set()  # builtin names that Tensor's members hide in its body

    def name_for(self, obj: Any, wanted: str) -> str | None:
        """The stub's name for ``obj`` (importing it), or None when it cannot be imported."""
        if id(obj) in self.by_object:
            return self.by_object[id(obj)]
        if isinstance(obj, types.ModuleType):
            source, line = obj.__name__, None
        else:
            module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
            if qualname is None and module == "typing":  # typing's special forms (Optional, Union, ...)
                qualname = getattr(obj, "_name", None)
            if not module or not qualname or "." in qualname or "<" in qualname:
                return None
            home = sys.modules.get(module)
            if home is None or getattr(home, qualname, None) is not obj:
                return None
            if module == "builtins":
                if qualname not in self.shadowed:
                    self.by_object[id(obj)] = qualname
                    return qualname
                # inside the class body ``int`` is Tensor.int: the builtin goes by ``_int``
                alias = f"_{qualname}"
                self.lines[alias] = ("builtins", qualname, alias)
                self.by_object[id(obj)] = alias
                return alias
            if module == MODULE:  # defined by the stub itself
                self.by_object[id(obj)] = qualname
                return qualname
            source, line = module, qualname
        alias = wanted
        n = 1
        while alias in self.lines or alias in self.local or hasattr(builtins, alias):
            n += 1
            alias = f"_{wanted}{n}"
        if line is None:
            self.lines[alias] = (source, None, alias)
        else:
            self.lines[alias] = (source, line, alias)
        self.by_object[id(obj)] = alias
        return alias

    def render(self) -> list[str]:
        """The import block as ruff's isort writes it: standard library, third party, strided;
        ``import m`` before ``from m import ...``; plain names of one module on one line."""
        sections: dict[int, list[str]] = {0: [], 1: [], 2: []}
        plain: dict[str, list[str]] = {}
        for module, name, alias in sorted(set(self.lines.values()), key=lambda e: (e[0], e[1] or "", e[2])):
            rank = 2 if module.split(".")[0] == "strided" else 0 if module.split(".")[0] in sys.stdlib_module_names else 1
            if name is None:
                sections[rank].append(f"import {module}" + (f" as {alias}" if alias != module else ""))
            elif alias != name:
                sections[rank].append(f"from {module} import {name} as {alias}")
            else:
                plain.setdefault(module, []).append(name)
        for module, names in plain.items():
            rank = 2 if module.split(".")[0] == "strided" else 0 if module.split(".")[0] in sys.stdlib_module_names else 1
            sections[rank].append(f"from {module} import {', '.join(sorted(names, key=_isort_key))}")
        out: list[str] = []
        for rank in (0, 1, 2):
            if sections[rank]:
                imports = sorted(line for line in sections[rank] if line.startswith("import "))
                froms = sorted((line for line in sections[rank] if line.startswith("from ")),
                               key=lambda line: (line.split()[1], line.split()[3]))
                out += imports + froms + [""]
        return out[:-1]


def _isort_key(name: str) -> tuple[int, str]:
    """isort's order-by-type: CONSTANTS, then Classes, then functions."""
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)


# A bare generic in an annotation means "any parameters": written out, as --strict asks.
_BARE = {"tuple": "tuple[Any, ...]", "dict": "dict[Any, Any]", "list": "list[Any]", "set": "set[Any]",
         "frozenset": "frozenset[Any]", "type": "type[Any]", "Callable": "Callable[..., Any]",
         "Sequence": "Sequence[Any]", "Iterator": "Iterator[Any]", "Iterable": "Iterable[Any]",
         "Mapping": "Mapping[Any, Any]"}


_WRITTEN_OUT: dict[str, Any] = {"Any": Any, "Callable": Callable}


class _Parametrize(ast.NodeTransformer):
    """``tuple`` -> ``tuple[Any, ...]`` where a bare generic is not subscripted."""

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        node.slice = self.visit(node.slice)  # the subscripted name itself stays as it is
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in _BARE:
            return ast.copy_location(ast.parse(_BARE[node.id], mode="eval").body, node)
        return node


class _Renderer:
    def __init__(self) -> None:
        self.imports = _Imports()
        self.imports.local.update({"Tensor"})

    def annotation(self, ann: Any, scope: dict[str, Any]) -> str:
        """``ann`` (a string, as ``from __future__ import annotations`` leaves it, or an object)
        written with the stub's names; ``Any`` when some name in it cannot be imported."""
        if ann is inspect.Parameter.empty:
            return self.any()
        if not isinstance(ann, str):
            ann = inspect.formatannotation(ann)
            scope = {**vars(builtins), **vars(typing), **scope}
        try:
            tree = ast.parse(ann, mode="eval")
        except SyntaxError:
            return self.any()
        ok = True
        renderer = self

        class Rename(ast.NodeTransformer):
            def visit_Name(self, node: ast.Name) -> ast.AST:
                nonlocal ok
                if node.id in scope:
                    obj = scope[node.id]
                elif hasattr(builtins, node.id):
                    obj = getattr(builtins, node.id)
                elif node.id in _WRITTEN_OUT:  # a name _Parametrize wrote in
                    obj = _WRITTEN_OUT[node.id]
                else:
                    ok = False
                    return node
                if obj is None:
                    return ast.copy_location(ast.Constant(None), node)
                name = renderer.imports.name_for(obj, node.id)
                if name is None:
                    ok = False
                    return node
                return ast.copy_location(ast.Name(name, node.ctx), node)

            def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
                nonlocal ok
                # np.ndarray stays as written (np imported as a module); a dotted path to an
                # object that is not a module's attribute of a module name (collections.abc.Callable,
                # as formatannotation writes it) is imported by its own name
                chain: list[str] = []
                inner: ast.expr = node
                while isinstance(inner, ast.Attribute):
                    chain.insert(0, inner.attr)
                    inner = inner.value
                if not isinstance(inner, ast.Name):
                    return self.generic_visit(node)
                root = scope.get(inner.id)
                if isinstance(root, types.ModuleType) and len(chain) == 1:
                    self.generic_visit(node)
                    return node
                obj: Any = root
                for attr in chain:
                    obj = getattr(obj, attr, None)
                name = renderer.imports.name_for(obj, chain[-1]) if obj is not None else None
                if name is None:
                    ok = False
                    return node
                return ast.copy_location(ast.Name(name, ast.Load()), node)

        tree = _Parametrize().visit(tree)
        text = ast.unparse(Rename().visit(tree))
        return text if ok else self.any()

    def any(self) -> str:
        return self.imports.name_for(Any, "Any") or "Any"

    def signature(self, fn: Callable[..., Any], *, method: bool) -> str:
        """``(params) -> ret`` of ``fn``; for a method the first parameter is the plain self."""
        fn = inspect.unwrap(fn)  # (the raw forward under an autograd recording wrapper: its own globals)
        sig = inspect.signature(fn)
        scope = getattr(fn, "__globals__", {})
        parts: list[str] = []
        params = list(sig.parameters.values())
        # NumPy's keywords (axis= beside dim=, keepdims= beside keepdim=): taken at run time where
        # PyTorch takes them, but not in the stub, as torch's own stubs (_VariableFunctions.pyi)
        # do not list them; a parameter that defaults to "not given" (NO, so that axis= can stand
        # for it) is a required one
        from strided.numpy_keywords import ALIASES, NO

        names = {p.name for p in params}
        params = [p.replace(default=p.empty) if p.default is NO else p for p in params
                  if not (p.name in ALIASES and ALIASES[p.name] in names)]
        seen_kw_marker = False
        for i, p in enumerate(params):
            if method and i == 0:
                text = "self"
            else:
                ann = self.annotation(p.annotation, scope)
                prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
                text = f"{prefix}{p.name}: {ann}"
                if p.default is not p.empty:
                    text += " = ..."
            if p.kind is p.KEYWORD_ONLY and not seen_kw_marker:
                parts.append("*")
            if p.kind in (p.KEYWORD_ONLY, p.VAR_POSITIONAL):
                seen_kw_marker = True
            parts.append(text)
            if p.kind is p.POSITIONAL_ONLY and (i + 1 == len(params) or params[i + 1].kind is not p.POSITIONAL_ONLY):
                parts.append("/")
        ret = self.annotation(sig.return_annotation, scope)
        return f"({', '.join(parts)}) -> {ret}"


def _forward(name: str) -> str:
    """``__iadd__`` -> ``__add__``."""
    return "__" + name[3:]


def _member_lines(r: _Renderer, name: str, value: Any, forms: set[str]) -> list[str]:
    """The stub lines of one class member (indented)."""
    if isinstance(value, property):
        getter = r.signature(value.fget, method=True) if value.fget else "(self) -> Any"
        lines = ["    @property", f"    def {name}{getter}: ..."]
        if value.fset is not None:
            setter = r.signature(value.fset, method=True).split(" -> ")[0]
            lines += [f"    @{name}.setter", f"    def {name}{setter} -> None: ..."]
        return lines
    if isinstance(value, staticmethod):
        return ["    @staticmethod", f"    def {name}{r.signature(value.__func__, method=False)}: ..."]
    if isinstance(value, classmethod):
        return ["    @classmethod", f"    def {name}{r.signature(value.__func__, method=True)}: ..."]
    if isinstance(value, types.FunctionType) or hasattr(value, "__front_fallback__"):  # (a compiled front: its forward's)
        ignore = "  # type: ignore[override]" if name in _OVERRIDES else ""
        if name.startswith("__i") and name.endswith("__") and _forward(name) in forms:
            ignore = "  # type: ignore[misc]"  # (+= passes no keywords; __add__ takes alpha=, out=)
        return [f"    def {name}{r.signature(value, method=True)}: ...{ignore}"]
    if name == "__hash__":
        return ["    def __hash__(self) -> int: ..."]
    if isinstance(value, (types.MemberDescriptorType, types.GetSetDescriptorType)):
        return [f"    {name}: {r.any()}"]  # a slot: its type is documented, not annotated
    if callable(value):
        try:
            return [f"    def {name}{r.signature(value, method=True)}: ..."]
        except (TypeError, ValueError):
            return [f"    def {name}(self, *args: {r.any()}, **kwargs: {r.any()}) -> {r.any()}: ..."]
    return [f"    {name}: {r.imports.name_for(type(value), type(value).__name__) or r.any()}"]


def render() -> str:
    """The stub's text, from the live ``strided.tensor`` module (``strided`` imported whole, so
    every method the ops layer installs is there)."""
    import importlib

    importlib.import_module("strided")  # installs every method on Tensor
    module = sys.modules[MODULE]  # (strided.tensor, the attribute, is the function)

    r = _Renderer()
    r.imports.shadowed = {n for n in vars(module.Tensor) if hasattr(builtins, n)}
    scope = vars(module)
    body: list[str] = []

    # module-level names of strided.tensor: annotated variables, TypeVars, functions
    for name, ann in module.__annotations__.items():
        body.append(f"{name}: {r.annotation(ann, scope)}")
    typevars = [(n, v) for n, v in vars(module).items() if isinstance(v, typing.TypeVar)]
    for name, tv in typevars:
        r.imports.local.add(name)
        r.imports.by_object[id(tv)] = name
        bound = tv.__bound__
        bound_text = ""
        if bound is Callable:  # a bare Callable bound: any callable, written out for --strict
            bound_text = ", bound=" + r.annotation("Callable[..., Any]", {"Callable": Callable, "Any": Any})
        elif bound is not None:
            bound_text = f", bound={r.annotation(bound, scope)}"
        typevar = r.imports.name_for(typing.TypeVar, "TypeVar")
        body.append(f'{name} = {typevar}("{name}"{bound_text})')
    functions = sorted(
        (n, v) for n, v in vars(module).items()
        if isinstance(v, types.FunctionType) and v.__module__ == MODULE
    )
    body.append("")
    for name, fn in functions:
        body.append(f"def {name}{r.signature(fn, method=False)}: ...")

    # the class, every member in name order (so the stub's diff is stable)
    cls = module.Tensor
    body += ["", "", "class Tensor:"]
    if cls.__doc__:
        body.append(f'    """{cls.__doc__.strip().splitlines()[0]}"""')
    for name in sorted(vars(cls)):
        if name in _SKIP:
            continue
        body += _member_lines(r, name, vars(cls)[name], set(vars(cls)))

    header = [
        "# Generated by tools/gen_stubs.py from the live strided.tensor module (every method the",
        "# ops layer installs on Tensor included); do not edit: change the functions' annotations and",
        "# run `PYTHONPATH=src python tools/gen_stubs.py`. tests/test_typing.py checks it is current.",
        "",
    ]
    return "\n".join(header + r.imports.render() + [""] + body) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        current = STUB.read_text() if STUB.exists() else ""
        if current != text:
            print(f"{STUB} is stale: run PYTHONPATH=src python tools/gen_stubs.py", file=sys.stderr)
            return 1
        return 0
    STUB.write_text(text)
    print(f"wrote {STUB} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
