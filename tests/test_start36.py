"""start36: seal picks the globals it may change in C (a raw forward with an entry, by identity,
or a name with an OpDef) instead of running its loop body over every callable global. These tests
check the contract that pick must keep: after ``import strided`` no module of the package exposes
a raw forward that has a recording entry, every op-named function with a rule is its entry, and
the entries record as PyTorch does (non-contiguous, expanded, 0-d and empty inputs)."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

import strided
from strided import gradients
from strided.opdef import OPDEFS

torch = pytest.importorskip("torch")


def _strided_modules() -> list[types.ModuleType]:
    return [m for name, m in list(sys.modules.items())
            if name.startswith("strided") and isinstance(m, types.ModuleType)]


def test_entry_ids_mirror_entries() -> None:
    assert gradients._ENTRY_IDS == set(map(id, gradients._ENTRIES))


def test_no_module_exposes_a_raw_forward_with_an_entry() -> None:
    raw = {id(k): k for k in gradients._ENTRIES}
    leaks = []
    for module in _strided_modules():
        if module.__name__.startswith("strided.gradients"):
            continue  # (its own table holds the raw forwards)
        for attr, value in vars(module).items():
            if attr[:2] != "__" and id(value) in raw and callable(value):
                leaks.append(f"{module.__name__}.{attr}")
    assert leaks == []


def _sealed_by_name() -> list[types.ModuleType]:
    """The modules that end with a plain ``seal(globals())`` (by name, not functional)."""
    out = []
    for module in _strided_modules():
        path = getattr(module, "__file__", None)
        if path and path.endswith(".py"):
            with open(path, encoding="utf-8") as f:
                if "\nseal(globals())" in f.read():
                    out.append(module)
    return out


def test_every_op_named_function_with_a_rule_is_an_entry() -> None:
    # (the body of seal's loop, as it ran on every callable global before the pick: after the
    # import it must find nothing left to do in any module sealed by name)
    modules = _sealed_by_name()
    assert len(modules) > 20
    todo = []
    for module in modules:
        for attr, value in vars(module).items():
            if not callable(value) or attr[:2] == "__" or attr[:1] == "_":
                continue
            op = OPDEFS.get(attr)
            if op is None or op.backward is None or attr not in op.operands or isinstance(value, type):
                continue
            if not gradients._is_entry(value):
                todo.append(f"{module.__name__}.{attr}")
    assert todo == []


@pytest.mark.parametrize("case", ["transposed", "expanded", "zero_d", "empty"])
@pytest.mark.parametrize("name", ["exp", "sin", "neg", "abs", "sum"])
def test_module_functions_record_as_torch(name: str, case: str) -> None:
    rng = np.random.default_rng(36)
    if case == "transposed":
        base = rng.standard_normal((3, 4)).T
    elif case == "expanded":
        base = np.broadcast_to(rng.standard_normal((1, 4)), (3, 4))
    elif case == "zero_d":
        base = np.array(rng.standard_normal())
    else:
        base = np.zeros((0, 3))
    s = strided.tensor(np.ascontiguousarray(base), dtype=strided.float64)
    t = torch.tensor(np.ascontiguousarray(base), dtype=torch.float64)
    if case == "transposed":
        s, t = s.T.contiguous().T, t.T.contiguous().T
    elif case == "expanded":
        s, t = s[:1].expand(3, 4), t[:1].expand(3, 4)
    s = s.detach().requires_grad_(True)
    t = t.detach().requires_grad_(True)
    ys, yt = getattr(strided, name)(s), getattr(torch, name)(t)
    assert ys.grad_fn is not None and ys.grad_fn.name() == yt.grad_fn.name()
    ys.sum().backward()
    yt.sum().backward()
    np.testing.assert_array_equal(s.grad.numpy(), t.grad.numpy())
    assert s.grad.shape == tuple(t.grad.shape)
