"""Every public function of strided's namespaces pickles by reference and unpickles as itself,
as NumPy's and PyTorch's functions do (``pickle.loads(pickle.dumps(torch.allclose)) is
torch.allclose``): compiled fronts whose forward lives under another name, the Array API
namespace's recording entries and ``is_grad_enabled`` included."""

from __future__ import annotations

import importlib
import pickle
import types

import pytest

import strided
from strided.ops._support.front import public_entry

_NAMESPACES = ("strided", "strided.linalg", "strided.special", "strided.nn.functional", "strided.nn.init",
               "strided.array_api", "strided.array_api.linalg", "strided.testing", "strided.autograd")


def _public_functions(module_name: str) -> list[tuple[str, object]]:
    module = importlib.import_module(module_name)
    return [(name, value) for name in dir(module) if not name.startswith("_")
            for value in [getattr(module, name)]
            if callable(value) and not isinstance(value, (type, types.ModuleType))]


@pytest.mark.parametrize("module_name", _NAMESPACES)
def test_every_public_function_round_trips_as_itself(module_name: str) -> None:
    functions = _public_functions(module_name)
    assert functions, module_name
    for protocol in (2, pickle.HIGHEST_PROTOCOL):
        wrong = [name for name, f in functions if pickle.loads(pickle.dumps(f, protocol)) is not f]
        assert wrong == [], f"{module_name}: these do not unpickle as themselves: {wrong}"


def test_the_fronts_that_used_to_fail_pickle_by_their_public_name() -> None:
    # (forwards bound under another name, or never bound, in the module that defines them)
    for f in (strided.allclose, strided.arctan2, strided.atan2, strided.reshape, strided.logical_xor,
              strided.is_grad_enabled):
        assert pickle.loads(pickle.dumps(f)) is f
    assert pickle.loads(pickle.dumps([strided.add, strided.hypot]))[1] is strided.hypot


def test_unpickled_functions_still_compute() -> None:
    x = strided.tensor([1.0, -2.0, 3.0])
    f = pickle.loads(pickle.dumps(strided.copysign))
    assert f(x, -1.0).tolist() == [-1.0, -2.0, -3.0]
    with strided.no_grad():
        assert pickle.loads(pickle.dumps(strided.is_grad_enabled))() is False


def test_public_entry_looks_only_in_strideds_namespaces() -> None:
    assert public_entry("strided", "allclose") is strided.allclose
    with pytest.raises(ValueError, match="'os' is not one of strided's public namespaces"):
        public_entry("os", "system")
