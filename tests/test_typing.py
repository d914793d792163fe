"""Typing (issue 14): the stub of Tensor's installed methods is current, mypy --strict (and pyright) pass on
the typed example and fails on a wrong program, ``py.typed`` ships, ``__version__`` resolves."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys
import tomllib
from importlib import metadata

import pytest

import strided
from strided import _version

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "strided"


def _gen_stubs():
    spec = importlib.util.spec_from_file_location("gen_stubs", ROOT / "tools" / "gen_stubs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_stub_is_generated_from_the_live_class():
    """The committed tensor.pyi is exactly what tools/gen_stubs.py makes now: it cannot drift
    (also after a tensor was copied, which caches ``__slotnames__`` on the class)."""
    import copy

    copy.copy(strided.zeros(1))
    gen = _gen_stubs()
    assert gen.STUB == PACKAGE / "tensor.pyi"
    assert gen.render() == gen.STUB.read_text(), (
        "src/strided/tensor.pyi is stale: run PYTHONPATH=src python tools/gen_stubs.py")


def test_stub_declares_every_member_with_its_signature():
    text = (PACKAGE / "tensor.pyi").read_text()
    gen = _gen_stubs()
    installed = [n for n in vars(strided.Tensor) if n not in gen._SKIP]
    missing = [n for n in installed if f"def {n}(" not in text and f"    {n}: " not in text]
    assert not missing and len(installed) > 400
    # signatures come from the functions: one installed by the ops layer, one Tensor's own
    assert "    def transpose(self, dim0: _int, dim1: _int) -> Tensor: ..." in text
    assert "    def __matmul__(self, other: Any, *, out: Any = ...) -> Tensor: ..." in text
    assert "    def __array_interface__(self) -> dict[str, Any]: ..." in text


def test_py_typed_ships_with_the_package():
    assert (PACKAGE / "py.typed").is_file()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "py.typed" in data["strided"] and "*.pyi" in data["strided"]


def test_version_from_metadata_else_pyproject(monkeypatch, tmp_path):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert _version.pyproject_version() == project
    try:
        installed = metadata.version("strided")
    except metadata.PackageNotFoundError:
        installed = project
    assert _version.__version__ == installed
    assert getattr(strided, "__version__", _version.__version__) == _version.__version__

    def not_installed(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    assert _version.resolve_version() == project
    assert _version.pyproject_version(tmp_path / "missing.toml") == "0+unknown"


_WRONG = '''\
import strided

t = strided.arange(6.0).reshape(2, 3)
reveal_type(t + t)
reveal_type(t @ t.t())
reveal_type(t.sum(dim=0))
t.transpose("a", 1)
n: int = t.mean()
t.no_such_method()
t.sum(dim="x")
'''


def test_mypy_strict_passes_on_the_example_and_fails_on_a_wrong_program(tmp_path):
    """One mypy run (cold cache, ~6 s): the example is clean, the wrong program's four mistakes
    are caught and the installed methods have real types (Tensor, not Any)."""
    pytest.importorskip("mypy")
    wrong = tmp_path / "wrong.py"
    wrong.write_text(_WRONG)
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(tmp_path / "cache"), "--no-error-summary",
         str(ROOT / "examples" / "typed_example.py"), str(wrong)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env={**os.environ, "MYPY_FORCE_COLOR": "0"},
    )
    lines = run.stdout.splitlines()
    assert run.returncode == 1, run.stdout + run.stderr
    assert not [line for line in lines if "typed_example.py" in line], run.stdout
    assert [line.split(": ", 1)[1] for line in lines if "Revealed type" in line] == [
        'note: Revealed type is "strided.tensor.Tensor"'] * 3, run.stdout
    errors = [line for line in lines if ": error: " in line]
    assert len(errors) == 4, run.stdout
    assert "wrong.py:7:" in errors[0] and "[arg-type]" in errors[0]
    assert "wrong.py:8:" in errors[1] and "[assignment]" in errors[1]
    assert "wrong.py:9:" in errors[2] and "[attr-defined]" in errors[2]
    assert "wrong.py:10:" in errors[3] and '"sum" of "Tensor"' in errors[3] and "[arg-type]" in errors[3]


_WRONG_PYRIGHT = '''import strided

reveal_type(strided.tensor([1.0]))
reveal_type(strided.swapaxes(strided.zeros(2, 3), 0, 1))
reveal_type(strided.float)
n: int = strided.tensor([1.0])
strided.tensor([1.0]).no_such_method()
'''


def test_pyright_passes_on_the_examples_and_reads_the_face(tmp_path):
    """One pyright run (the Node.js it needs ships in a wheel: nothing is downloaded): the typed
    examples are clean (``strided.tensor`` is the factory, not the module strided/tensor.py: issue
    25's "Module is not callable"), and a wrong program's two mistakes are caught."""
    import json

    wrong = tmp_path / "wrong.py"
    wrong.write_text(_WRONG_PYRIGHT)
    run = subprocess.run(
        [sys.executable, "-m", "pyright", "--outputjson", "--pythonpath", sys.executable,
         str(ROOT / "examples" / "typed_example.py"), str(ROOT / "examples" / "typed_face.py"), str(wrong)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    report = json.loads(run.stdout)
    found = [(pathlib.Path(d["file"]).name, d["range"]["start"]["line"] + 1, d["severity"], d.get("rule", ""),
              d["message"]) for d in report["generalDiagnostics"]]
    assert [f for f in found if f[0] != "wrong.py"] == [], found
    revealed = [f[4] for f in found if f[2] == "information"]
    assert revealed[0].startswith('Type of "strided.tensor(') and revealed[0].endswith(' is "Tensor"'), found
    assert revealed[1] == 'Type of "strided.swapaxes(strided.zeros(2, 3), 0, 1)" is "Tensor"', found
    assert revealed[2].startswith('Type of "strided.float" is "DType"'), found
    errors = [(f[1], f[3]) for f in found if f[2] == "error"]
    assert errors == [(6, "reportAssignmentType"), (7, "reportAttributeAccessIssue")], found
