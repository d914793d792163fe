"""Start-up: the cache of the generated op entries' code (``strided.entry_cache``): what it
returns is what ``compile`` gives, what a later process loads is what this one wrote, and a
stale, foreign or broken file is never used; an import that finds every entry in the cache
compiles none, and loads neither numpy.random nor secrets (the random streams are made lazily)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from strided import entry_cache

SOURCE = "def _tracked(self, dim=_default_dim):\n    return (self, dim)\n"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """entry_cache on a file of its own, with an empty table (as a fresh process has)."""
    path = str(tmp_path / "__pycache__" / "generated_entries.test.marshal")
    monkeypatch.setattr(entry_cache, "_PATH", path)
    monkeypatch.setattr(entry_cache, "_loaded", None)
    monkeypatch.setattr(entry_cache, "_used", {})
    monkeypatch.setattr(entry_cache, "_state", {"compiled": False})
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return path


def _fresh_process(monkeypatch) -> None:
    monkeypatch.setattr(entry_cache, "_loaded", None)
    monkeypatch.setattr(entry_cache, "_used", {})
    monkeypatch.setattr(entry_cache, "_state", {"compiled": False})


def _run(code, **scope):
    exec(code, scope)  # noqa: S102
    return scope["_tracked"]


def test_the_code_is_compiled_once_and_kept_for_the_next_process(cache, monkeypatch) -> None:
    code = entry_cache.compiled(SOURCE, "<entry>")
    assert code.co_filename == "<entry>" and entry_cache._state["compiled"]
    assert entry_cache.compiled(SOURCE, "<entry>") is code  # (once per process)
    assert _run(code, _default_dim=3)(1) == (1, 3)
    entry_cache.save()
    assert os.path.exists(cache) and not entry_cache._state["compiled"]

    _fresh_process(monkeypatch)
    loaded = entry_cache.compiled(SOURCE, "<entry>")
    assert not entry_cache._state["compiled"]  # read from the file, not compiled
    assert loaded.co_code == code.co_code and loaded.co_consts == code.co_consts
    assert _run(loaded, _default_dim=5)(2) == (2, 5)
    # another source (an edited parameter list) or another file name is never served stale code
    other = entry_cache.compiled(SOURCE.replace("dim", "axis"), "<entry>")
    assert _run(other, _default_axis=1).__code__.co_varnames == ("self", "axis") and entry_cache._state["compiled"]
    assert entry_cache.compiled(SOURCE, "<moved>").co_filename == "<moved>"


@pytest.mark.parametrize("content", [b"", b"not marshal", None])
def test_a_broken_or_foreign_file_is_ignored(cache, monkeypatch, content) -> None:
    os.makedirs(os.path.dirname(cache))
    if content is None:  # a file of another interpreter (its bytecode magic differs)
        import marshal

        code = compile(SOURCE, "<entry>", "exec")
        content = marshal.dumps(((1, b"\x00\x00\r\n", 0), {(SOURCE, "<entry>"): code}))
    with open(cache, "wb") as f:
        f.write(content)
    assert entry_cache.compiled(SOURCE, "<entry>").co_filename == "<entry>"
    assert entry_cache._state["compiled"]


def test_nothing_is_written_without_bytecode_writing_or_a_writable_place(cache, monkeypatch, tmp_path) -> None:
    entry_cache.compiled(SOURCE, "<entry>")
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    entry_cache.save()
    assert not os.path.exists(cache)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    blocked = tmp_path / "a file"
    blocked.write_text("")
    monkeypatch.setattr(entry_cache, "_PATH", str(blocked / "sub" / "cache.marshal"))
    entry_cache.save()  # (no error: an unwritable place is left alone)


def test_an_import_that_finds_the_cache_compiles_no_entry() -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    probe = ("import sys, strided, strided.entry_cache as e; "
             "print(e._state['compiled'], len(e._used), e._loaded is not None and len(e._loaded) >= len(e._used), "
             "'numpy.random' in sys.modules or 'secrets' in sys.modules)")
    subprocess.run([sys.executable, "-c", "import strided"], env=env, check=True)
    out = subprocess.run([sys.executable, "-c", probe], env=env, check=True, capture_output=True, text=True).stdout
    compiled, used, served, random_loaded = out.split()
    assert compiled == "False" and int(used) > 50 and served == "True"
    # (nor does it load numpy.random, nor secrets: the default generator's stream is made on first use)
    assert random_loaded == "False"


def test_the_lazily_made_default_stream_is_pcg64_of_the_seed() -> None:
    import numpy as np

    import strided

    g = strided.Generator()
    expected = np.random.Generator(np.random.PCG64(67280421310721)).random(3)
    assert g.draw(lambda n: n.random(3)).tolist() == expected.tolist()
    assert strided.Generator().get_state().tolist() == g.__class__().get_state().tolist()


def _records() -> tuple:
    """Dataclasses of every kind the package uses: frozen with defaults, a factory, a field left
    out of comparison, ordering, slots."""
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class Frozen:
        a: int
        b: str = "x"
        c: list = dataclasses.field(default_factory=list, compare=False)

    @dataclasses.dataclass(order=True, slots=True)
    class Ordered:
        x: float
        y: tuple = ()

    return Frozen, Ordered


def _behaviour(Frozen, Ordered) -> tuple:
    import dataclasses
    import inspect

    f, g = Frozen(1), Frozen(1, c=[2])
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.a = 2
    return (repr(f), f == g, hash(f) == hash(g), str(inspect.signature(Frozen)), repr(Ordered(1.0)),
            Ordered(1.0) < Ordered(2.0), repr(sorted([Ordered(3.0, (1,)), Ordered(3.0)])), str(inspect.signature(Ordered)),
            Frozen.__init__.__code__.co_filename, Ordered.__slots__)


def test_dataclasses_made_during_import_are_the_ones_python_makes(cache) -> None:
    """While the package loads, dataclasses' generated methods come from the cache: the classes
    behave exactly as those made without it, their methods are compiled once, and the switch is
    gone afterwards (also when the block raises)."""
    import dataclasses

    assert "exec" not in vars(dataclasses)  # (import strided put nothing back)
    plain = _behaviour(*_records())
    with entry_cache.dataclass_methods():
        assert vars(dataclasses)["exec"] is entry_cache._exec_cached
        first = _records()
        cached = len(entry_cache._used)
        second = _records()
        assert len(entry_cache._used) == cached > 0  # (the second time: every method's code found)
    assert "exec" not in vars(dataclasses)
    assert _behaviour(*first) == _behaviour(*second) == plain
    with pytest.raises(KeyError), entry_cache.dataclass_methods():
        raise KeyError("inside")
    assert "exec" not in vars(dataclasses)


def test_an_import_keeps_the_dataclass_methods_for_the_next_one() -> None:
    """A second ``import strided`` takes its dataclasses' methods from the cache file: they pass
    through the cache (dozens of them) and none is compiled."""
    probe = ("import strided.entry_cache as e, strided\n"
             "made = [k for k in e._used if k[1] == '<string>' and 'def __create_fn__' in k[0]]\n"
             "print(len(made), e._state['compiled'])\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", "import strided"], check=True, env=env)
    out = subprocess.run([sys.executable, "-c", probe], check=True, env=env, capture_output=True, text=True)
    count, compiled = out.stdout.split()
    assert int(count) > 40 and compiled == "False"


def _named_tuples() -> tuple:
    """Named tuples as the package makes them: typing.NamedTuple classes and a collections one
    with defaults."""
    import collections
    from typing import NamedTuple

    class Pair(NamedTuple):
        values: int
        indices: int = 0

    Triple = collections.namedtuple("Triple", ["a", "b", "c"], defaults=(3,))
    return Pair, Triple


def _tuple_behaviour(Pair, Triple) -> tuple:
    import inspect

    p, t = Pair(1), Triple(1, 2)
    return (repr(p), p == (1, 0), p._replace(indices=5), p._asdict(), repr(t), t._fields, t._field_defaults,
            str(inspect.signature(Pair)), str(inspect.signature(Triple)), Pair.__new__.__code__.co_filename,
            Pair.__new__.__code__.co_varnames, Triple._make([7, 8, 9]))


def test_named_tuples_made_during_import_are_the_ones_python_makes(cache) -> None:
    """While the package loads, each named tuple's ``__new__`` comes from the cache (an
    expression's code, kept apart from a statement of the same text): the classes behave as
    those made without it, the code is compiled once, and the switch is gone afterwards."""
    import collections

    assert "eval" not in vars(collections)  # (import strided put nothing back)
    plain = _tuple_behaviour(*_named_tuples())
    with entry_cache.dataclass_methods():
        assert vars(collections)["eval"] is entry_cache._eval_cached
        first = _named_tuples()
        cached = len(entry_cache._used)
        second = _named_tuples()
        assert len(entry_cache._used) == cached > 0
        assert all(k[0].startswith(entry_cache._EVAL_MARK) for k in entry_cache._used)
    assert "eval" not in vars(collections)
    assert _tuple_behaviour(*first) == _tuple_behaviour(*second) == plain
    # an expression and a statement of the same text are two codes
    assert entry_cache.compiled("1 + 1", "<t>", "eval") is not entry_cache.compiled("1 + 1", "<t>")
    assert eval(entry_cache.compiled("1 + 1", "<t>", "eval")) == 2  # noqa: S307


def test_an_import_keeps_the_named_tuples_for_the_next_one() -> None:
    """A second ``import strided`` takes its named tuples' ``__new__`` from the cache file."""
    probe = ("import strided.entry_cache as e, strided\n"
             "made = [k for k in e._used if k[0].startswith(e._EVAL_MARK)]\n"
             "print(len(made), e._state['compiled'], strided.tensor([[1.0, 0.0]]).max(1).indices.tolist())\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", "import strided"], check=True, env=env)
    out = subprocess.run([sys.executable, "-c", probe], check=True, env=env, capture_output=True, text=True)
    count, compiled, indices = out.stdout.split()
    assert int(count) > 10 and compiled == "False" and indices == "[0]"


def test_a_remembered_value_is_computed_once_and_kept_for_the_next_process(cache, monkeypatch) -> None:
    monkeypatch.setattr(entry_cache, "_remembered_file", None)
    monkeypatch.setattr(entry_cache, "_remembered_used", {})
    calls = []

    def make():
        calls.append(1)
        return ("text", ("axis",), ["dim"], {"dim"})

    key = ("test", 1, ("self", 1, True))
    assert entry_cache.remembered(key, make) == make() and len(calls) == 2 and entry_cache._state["compiled"]
    assert entry_cache.remembered(key, make) == make.__call__() and len(calls) == 3  # (once per process)
    entry_cache.save()
    assert os.path.exists(cache) and entry_cache._remembered_used == {}

    _fresh_process(monkeypatch)
    monkeypatch.setattr(entry_cache, "_remembered_file", None)
    assert entry_cache.remembered(key, make) == ("text", ("axis",), ["dim"], {"dim"}) and len(calls) == 3
    assert not entry_cache._state["compiled"]  # read from the file, not computed
    # another key (another input, or an edited function's fingerprint) is computed afresh
    assert entry_cache.remembered(("test", 2, ("self", 1, True)), lambda: "other") == "other"
    assert entry_cache._state["compiled"]


def test_a_fingerprint_follows_the_code_not_the_process() -> None:
    def f(x):
        return x in {"a", "b", "c"} and (lambda y: y + 1)(2)

    def g(x):
        return x in {"a", "b", "c"} and (lambda y: y + 2)(2)  # (an edit inside the nested code)

    assert entry_cache.fingerprint(f) == entry_cache.fingerprint(f) != entry_cache.fingerprint(g)
    script = ("import sys; sys.path.insert(0, %r); from strided.entry_cache import fingerprint\n"
              "from strided.grad_mode import _exact_form; print(fingerprint(_exact_form))")
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    seen = {subprocess.run([sys.executable, "-c", script % src], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "3")}
    assert len(seen) == 1  # (the same in every process, whatever the hash seed)


def test_every_remembered_entry_form_is_the_one_computed_now(monkeypatch) -> None:
    """The forms the next import takes from the cache file equal _exact_form's answer for their
    parameter lists now."""
    from strided import grad_mode

    monkeypatch.setattr(entry_cache, "_remembered_file", None)
    entry_cache._load()  # (the package's own file, which this test's import wrote or read)
    forms = {k: v for k, v in (entry_cache._remembered_file or {}).items() if k[0] == "exact_form"}
    if not forms:
        pytest.skip("no cache file with forms (bytecode writing off)")
    for (_, mark, operands, named, takes_numpy, signature, fresh_first), form in forms.items():
        if mark != grad_mode._FORM_FINGERPRINT:
            continue  # (another version's forms: never served)
        params = [grad_mode._Param(n, inspect_kind(kind), grad_mode._EMPTY if required else None)
                  for n, kind, required in signature]
        assert grad_mode._exact_form(params, operands, named, takes_numpy, fresh_first) == form


def inspect_kind(number):
    import inspect

    return inspect._ParameterKind(number)
