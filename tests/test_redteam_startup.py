"""Red team of the start-up change (``strided.entry_cache``, the lazy random stream): a damaged,
foreign or tampered cache file is never used and never breaks ``import strided``; the temporary
file is never written through a planted link; the default stream draws what it drew before."""

from __future__ import annotations

import marshal
import os
import random
import sys
import zlib
from types import CodeType

import pytest

from strided import entry_cache

SOURCE = "def _tracked(self, dim=_default_dim):\n    return (self, dim)\n"
NAME = "<entry>"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """entry_cache on a file of its own, with an empty table (as a fresh process has)."""
    path = str(tmp_path / "__pycache__" / "generated_entries.test.marshal")
    os.makedirs(os.path.dirname(path))
    monkeypatch.setattr(entry_cache, "_PATH", path)
    monkeypatch.setattr(entry_cache, "_loaded", None)
    monkeypatch.setattr(entry_cache, "_used", {})
    monkeypatch.setattr(entry_cache, "_state", {"compiled": False})
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return path


def _write(path: str, payload: bytes, checksum: bool = True) -> None:
    with open(path, "wb") as f:
        f.write(payload + (zlib.crc32(payload).to_bytes(4, "little") if checksum else b""))


def _system_error_bytes() -> bytes:
    """A damaged marshal of a cache table that makes ``marshal.loads`` raise SystemError (not one
    of the errors a reader usually expects), found by flipping bytes of a real one."""
    good = marshal.dumps((entry_cache._header(), {(SOURCE, NAME): compile(SOURCE, NAME, "exec")}))
    rnd = random.Random(0)
    for _ in range(20000):
        b = bytearray(good)
        for _ in range(rnd.randint(1, 3)):
            b[rnd.randrange(len(b))] = rnd.randrange(256)
        try:
            marshal.loads(bytes(b))
        except SystemError:
            return bytes(b)
        except Exception:  # noqa: BLE001, S112 - other damage: try the next
            continue
    raise AssertionError("no damaged table raising SystemError found")


def test_a_damaged_file_never_breaks_the_import(cache) -> None:
    # (before: marshal.load's SystemError escaped _load, so a damaged cache file broke import strided)
    damaged = _system_error_bytes()
    for checksum in (False, True):  # (even one whose checksum matches, as a buggy writer's would)
        _write(cache, damaged, checksum)
        entry_cache._loaded = None
        assert entry_cache._load() == {}
    entry_cache._loaded = None
    assert entry_cache.compiled(SOURCE, NAME).co_filename == NAME and entry_cache._state["compiled"]


def test_a_truncated_file_is_rejected_before_marshal_reads_it(cache, monkeypatch) -> None:
    entry_cache.compiled(SOURCE, NAME)
    entry_cache.save()
    data = open(cache, "rb").read()
    read, loads = [], marshal.loads
    monkeypatch.setattr(marshal, "loads", lambda b: read.append(b) or loads(b))
    for cut in (1, 4, len(data) // 2):
        _write(cache, data[:-cut], checksum=False)
        assert entry_cache._load() == {}
    assert read == []  # (a length field of damaged bytes could ask marshal for gigabytes)
    _write(cache, data, checksum=False)
    assert list(entry_cache._load()) == [(SOURCE, NAME)] and len(read) == 1


@pytest.mark.parametrize("value", ["print('not an entry')", 42, "code of another file"])
def test_an_entry_that_is_not_code_of_its_file_is_never_run(cache, value) -> None:
    # (before: a table value that was a str reached exec(), which runs a str as source)
    if value == "code of another file":
        value = compile(SOURCE, "<elsewhere>", "exec")
    _write(cache, marshal.dumps((entry_cache._header(), {(SOURCE, NAME): value})))
    code = entry_cache.compiled(SOURCE, NAME)
    assert type(code) is CodeType and code.co_filename == NAME and entry_cache._state["compiled"]


def test_a_file_of_another_interpreter_or_optimization_level_is_ignored(cache) -> None:
    fmt, magic, optimize = entry_cache._header()
    for header in ((fmt, b"\x00\x00\r\n", optimize), (fmt, magic, optimize + 1), (fmt - 1, magic, optimize)):
        _write(cache, marshal.dumps((header, {(SOURCE, NAME): compile(SOURCE, NAME, "exec")})))
        assert entry_cache._load() == {}
    _write(cache, marshal.dumps((entry_cache._header(), {(SOURCE, NAME): compile(SOURCE, NAME, "exec")})))
    assert list(entry_cache._load()) == [(SOURCE, NAME)]


def test_a_link_planted_at_the_temporary_name_is_not_followed(cache, tmp_path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep")
    os.symlink(victim, f"{cache}.{os.getpid()}.tmp")
    entry_cache.compiled(SOURCE, NAME)
    entry_cache.save()
    assert victim.read_bytes() == b"keep" and not os.path.exists(cache)


def test_python_OO_imports_and_records() -> None:
    # (before: import strided failed under -OO: Tensor.__doc__ is None when docstrings are stripped)
    import subprocess

    probe = ("import strided; x = strided.tensor([1., 2.], requires_grad=True); (x * x).sum().backward(); "
             "print(x.grad.tolist(), strided.Tensor.__doc__)")
    out = subprocess.run([sys.executable, "-OO", "-c", probe], check=True, capture_output=True, text=True).stdout
    assert out.split() == ["[2.0,", "4.0]", "None"]
