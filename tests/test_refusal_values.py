"""The refusal values (``strided.refusals``) behave exactly as frozen dataclasses of their fields:
each class is compared with a real ``@dataclass(frozen=True)`` built from the same annotations
(their methods are written once in ``refusals._Frozen`` instead of generated per class)."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from strided import refusals

CLASSES = [v for v in vars(refusals).values()
           if isinstance(v, type) and issubclass(v, refusals._Frozen) and v is not refusals._Frozen]


def _twin(cls: type) -> type:
    """A real frozen dataclass with ``cls``'s name, fields and defaults."""
    spec = []
    for f in dataclasses.fields(cls):
        spec.append((f.name, f.type) if f.default is dataclasses.MISSING
                    else (f.name, f.type, dataclasses.field(default=f.default)))
    twin = dataclasses.make_dataclass(cls.__name__, spec, frozen=True)
    twin.__qualname__ = cls.__qualname__
    return twin


def _samples(cls: type) -> list[tuple]:
    """Argument tuples: every field given (ints, tuples, a string, a float NaN), and the
    required ones only."""
    fields = dataclasses.fields(cls)
    full = tuple([(i, 2) if i % 3 == 0 else "s" if i % 3 == 1 else i - 1 for i in range(len(fields))])
    nan = tuple([float("nan")] + list(full[1:]))
    required = tuple(full[:sum(f.default is dataclasses.MISSING for f in fields)])
    return [full, nan, required]


def test_there_are_refusal_classes():
    assert len(CLASSES) >= 30 and refusals.ReshapeRefusal in CLASSES


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_a_refusal_is_a_frozen_dataclass(cls: type) -> None:
    twin = _twin(cls)
    assert dataclasses.is_dataclass(cls)
    assert cls.__match_args__ == twin.__match_args__
    assert [(f.name, f.default) for f in dataclasses.fields(cls)] == \
        [(f.name, f.default) for f in dataclasses.fields(twin)]
    for args in _samples(cls):
        ours, theirs = cls(*args), twin(*args)
        assert repr(ours) == repr(theirs)
        assert (ours == cls(*args)) == (theirs == twin(*args))
        assert hash(ours) == hash(theirs)
        assert (ours == args) is (theirs == args) is False
        assert ours.__eq__(args) is NotImplemented
        assert repr(cls(**dict(zip(cls.__match_args__, args)))) == repr(ours)
        for attr in (cls.__match_args__[0], "other"):
            with pytest.raises(dataclasses.FrozenInstanceError) as a:
                setattr(ours, attr, 1)
            with pytest.raises(dataclasses.FrozenInstanceError) as b:
                setattr(theirs, attr, 1)
            assert str(a.value) == str(b.value)
            with pytest.raises(dataclasses.FrozenInstanceError) as a:
                delattr(ours, attr)
            with pytest.raises(dataclasses.FrozenInstanceError) as b:
                delattr(theirs, attr)
            assert str(a.value) == str(b.value)
        assert repr(pickle.loads(pickle.dumps(ours))) == repr(ours)
        assert copy.deepcopy(ours) == ours or args is _samples(cls)[1]
        changed = dataclasses.replace(ours, **{cls.__match_args__[-1]: 7})
        assert repr(changed) == repr(dataclasses.replace(theirs, **{cls.__match_args__[-1]: 7}))
        assert dataclasses.asdict(ours) == dataclasses.asdict(theirs) or args is _samples(cls)[1]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_bad_construction_raises_as_a_dataclass_does(cls: type) -> None:
    twin = _twin(cls)
    n = len(cls.__match_args__)
    calls = [(), tuple(range(n + 1)), {"nope": 1}, ((0,), {cls.__match_args__[0]: 0})]
    for call in calls:
        args, kwargs = (call if len(call) == 2 and isinstance(call[1], dict) else
                        ((), call) if isinstance(call, dict) else (call, {}))
        with pytest.raises(TypeError) as a:
            cls(*args, **kwargs)
        with pytest.raises(TypeError) as b:
            twin(*args, **kwargs)
        ours = str(a.value).replace("_Frozen.__init__", f"{cls.__qualname__}.__init__")
        assert ours == str(b.value).replace(f"{twin.__qualname__}.__init__", f"{cls.__qualname__}.__init__")


def test_a_refusal_pattern_matches_by_position():
    match refusals.DimOutOfRange(5, 2):
        case refusals.DimOutOfRange(dim, ndim):
            assert (dim, ndim) == (5, 2)


def test_the_dataclass_attributes_are_made_on_first_use() -> None:
    # (import strided runs no @dataclass for them: fewer objects for every collection and the
    # exit to walk; a subclass reads its refusal's fields, as a dataclass's subclass does)
    import subprocess
    import sys
    code = ("import dataclasses, strided, strided.refusals as r\n"
            "made = [c for c in vars(r).values() if isinstance(c, type) and '__dataclass_fields__' in vars(c)]\n"
            "print(made == [r._Frozen], dataclasses.is_dataclass(r.ExpandRefusal), dataclasses.is_dataclass(r._Frozen))\n"
            "class Sub(r.NarrowRefusal): pass\n"
            "print(dataclasses.fields(Sub) == dataclasses.fields(r.NarrowRefusal), 'NarrowRefusal' in vars(r))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "False", "True", "True"]
