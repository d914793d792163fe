"""The examples in strided's docstrings run, and say what they print (issue 14: doctests in the suite).

Every module of the package is searched (``doctest.DocTestFinder``); each docstring with examples
is one test, run with ELLIPSIS and NORMALIZE_WHITESPACE in the module's own namespace plus the
names the examples conventionally use: ``strided``, ``np``, ``F`` (``strided.nn.functional``), ``nn``
(``strided.nn``) and
``torch`` (imported only for the examples that use it; they are skipped without PyTorch).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import numpy as np
import pytest

import strided
import strided.nn.functional as F

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _docstring_tests() -> list[doctest.DocTest]:
    modules = [strided] + [importlib.import_module(info.name)
                           for info in pkgutil.walk_packages(strided.__path__, "strided.")]
    finder = doctest.DocTestFinder(exclude_empty=True)
    found: dict[str, doctest.DocTest] = {}
    for module in modules:
        for test in finder.find(module, module.__name__):
            if test.examples and test.name not in found:
                found[test.name] = test
    # Tensor's methods installed from above whose function no module names (made in a loop)
    seen = {id(test.docstring) for test in found.values()}
    for name, member in vars(strided.Tensor).items():
        fn = getattr(member, "fget", member)
        doc = getattr(fn, "__doc__", None)
        if not callable(fn) or not doc or id(doc) in seen or not hasattr(fn, "__globals__"):
            continue
        seen.add(id(doc))
        for test in finder.find(fn, f"strided.Tensor.{name}", globs=dict(fn.__globals__)):
            if test.examples:
                found[test.name] = test
    return sorted(found.values(), key=lambda t: t.name)


TESTS = _docstring_tests()


def test_the_examples_are_many():
    """A floor, so a broken finder (no tests found) cannot pass quietly."""
    assert len(TESTS) >= 400 and sum(len(t.examples) for t in TESTS) >= 700


def _by_file() -> dict[str, list[doctest.DocTest]]:
    """The docstring tests grouped by the source file they are in (one test per file: one per
    docstring was ~1,000 tests, much of their time pytest's own)."""
    root = Path(strided.__file__).resolve().parent.parent
    groups: dict[str, list[doctest.DocTest]] = {}
    for test in TESTS:
        where = Path(test.filename).resolve().relative_to(root).with_suffix("").as_posix().replace("/", ".")
        groups.setdefault(where, []).append(test)
    return groups


BY_FILE = _by_file()


def test_every_docstring_test_is_in_a_file_group():
    assert sorted(t.name for tests in BY_FILE.values() for t in tests) == sorted(t.name for t in TESTS)


@pytest.mark.parametrize("where", sorted(BY_FILE))
def test_docstring_examples(where: str) -> None:
    """Every docstring with examples in the file ``where`` (each named when it fails); those that use
    PyTorch are skipped without it (the others still run, then the test reports the skip)."""
    no_torch = []
    for test in BY_FILE[where]:
        globs = {**test.globs, "strided": strided, "np": np, "F": F, "nn": strided.nn, "xp": strided.array_api}
        if any("torch." in example.source for example in test.examples):
            try:
                globs["torch"] = importlib.import_module("torch")
            except ImportError:
                no_torch.append(test.name)
                continue
        test.globs = globs  # (a copy: the finder gave each test its own copy of the module's namespace)
        report: list[str] = []
        result = doctest.DocTestRunner(optionflags=FLAGS).run(test, out=report.append)
        assert result.failed == 0, f"{test.name}:\n" + "".join(report)
    if no_torch:
        pytest.skip(f"without PyTorch: {no_torch}")
