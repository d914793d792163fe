"""``import strided`` no longer loads :mod:`strided.kernels.torch_sum` (PyTorch's summation
orders) nor :mod:`strided.kernels.torch_index_loops` (its index-loop walks): the op modules bind
stand-ins (:func:`strided.lazy_names.function_on_first_call`, ``module_on_first_use``) that load
them on the first call needing them and rebind the callers' globals to the real functions (issue
23). Checked here: the import leaves them out, the first calls load them and leave no stand-in
behind, and the results of the ops that reach them are torch's (values, dtypes, strides, errors)
on the hard layouts (transposed, expanded, zero-size, 0-d)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import strided

torch = pytest.importorskip("torch")

_HELPERS = ["strided.kernels.torch_sum", "strided.kernels.torch_index_loops"]

# module -> the names it binds to a stand-in (the ones this change made lazy)
_STAND_INS = {
    "strided.ops.linalg.inverses": ("torch_sum", ["row_sums"]),
    "strided.ops.linalg.distance": ("torch_sum", ["norm2_rows"]),
    "strided.ops.linalg.norms": ("torch_sum", ["iterator_dims", "norm2_rows", "sum_array"]),
    "strided.ops._support.fast_reduce": ("torch_sum", ["iterator_dims"]),
    "strided.ops.reductions.sums": ("torch_sum", ["rounded", "sum_array"]),
    "strided.ops.reductions.integration": ("torch_sum", ["sum_array"]),
    "strided.ops.reductions.nan_reductions": ("torch_sum", ["sum_array"]),
    "strided.ops._support.overlap_updates": ("torch_index_loops", ["addresses"]),
    "strided.ops.reductions.scans": ("torch_index_loops", ["addresses"]),
    "strided.ops.indexing.gather_scatter": ("torch_index_loops",
                                            ["addresses", "filled_stale", "scatter_stale", "scatter_walk"]),
    "strided.ops.indexing.index_ops": ("torch_index_loops", ["index_add_stale", "index_copy_stale", "index_copy_walk"]),
    "strided.ops.indexing.advanced": ("torch_index_loops", ["addresses", "index_put_order", "index_put_stale"]),
    "strided.kernels.memory": ("torch_index_loops", ["addresses"]),
}


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_import_leaves_the_two_helpers_out() -> None:
    out = _run(f"import sys, strided\nprint([m for m in {_HELPERS!r} if m in sys.modules])")
    assert out.split() == ["[]"]


def test_a_stand_in_loads_its_module_and_is_replaced_by_the_real_function() -> None:
    """Calling each stand-in once (through the ops' own globals) loads its module; afterwards
    every caller's global is the helper module's own function (no stand-in left to pay for)."""
    out = _run(f"""
import importlib, sys, strided
stand_ins = {_STAND_INS!r}
before = {{}}
for mod, (helper, names) in stand_ins.items():
    m = importlib.import_module(mod)
    for n in names:
        before[mod, n] = getattr(m, n).__qualname__ == n and 'lazy_names' in (getattr(m, n).__doc__ or '')
print(all(before.values()))
x = strided.arange(24.0).reshape(4, 6).t()
x.sum(0); x.norm(); strided.cumsum(x, 0); x.half().sum(0)  # (float16: PyTorch's order, torch_sum)
for helper in ("torch_sum", "torch_index_loops"):
    importlib.import_module("strided.kernels." + helper)
ok = []
for mod, (helper, names) in stand_ins.items():
    m = importlib.import_module(mod)
    real = sys.modules["strided.kernels." + helper]
    for n in names:
        g = getattr(m, n)  # (the real function, or a stand-in not called yet: nothing else)
        ok.append(g is getattr(real, n) or 'lazy_names' in (g.__doc__ or ''))
print(all(ok))
print(strided.ops.reductions.sums.sum_array is sys.modules["strided.kernels.torch_sum"].sum_array)
""")
    assert out.split() == ["True", "True", "True"]


def _layouts(values: np.ndarray) -> list[tuple[str, strided.Tensor, torch.Tensor]]:
    s, t = strided.tensor(values), torch.tensor(values)
    return [
        ("contiguous", s, t),
        ("transposed", s.t(), t.t()),
        ("expanded", s[:1].expand(*s.shape), t[:1].expand(*t.shape)),
        ("zero", s[:0], t[:0]),
    ]


def _same(s: strided.Tensor, t: torch.Tensor) -> None:
    assert tuple(s.shape) == tuple(t.shape)
    assert s.stride() == t.stride()
    assert str(s.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_array_equal(s.numpy(), t.numpy())


_RNG = np.random.default_rng(34)


_REACH_CALLS = [
    lambda m, x: m.sum(x, 0), lambda m, x: m.sum(x), lambda m, x: m.nansum(x, 1),
    lambda m, x: m.mean(x, 0), lambda m, x: m.cumsum(x, 0), lambda m, x: m.trapezoid(x, dim=1),
    lambda m, x: m.linalg.vector_norm(x, dim=1), lambda m, x: m.norm(x),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("call", _REACH_CALLS)
def test_reductions_that_reach_torch_sum_are_torchs(call, dtype) -> None:
    # (values from the parameters alone, not a module-level generator: the same draws whatever
    # order xdist runs the tests in; several draws, each layout -- expanded included -- on each)
    for draw in range(8):
        rng = np.random.default_rng([34, _REACH_CALLS.index(call), np.dtype(dtype).itemsize, draw])
        values = rng.standard_normal((5, 5)).astype(dtype)
        for _, s, t in _layouts(values):
            _same(call(strided, s), call(torch, t))


def test_zero_d_sums_are_torchs() -> None:
    s, t = strided.tensor(2.5), torch.tensor(2.5)
    _same(s.sum(), t.sum())
    _same(strided.cumsum(s, 0), torch.cumsum(t, 0))
    _same(s.norm(), t.norm())


def test_cdist_and_lstsq_residuals_are_torchs() -> None:
    a = _RNG.standard_normal((4, 3))
    b = _RNG.standard_normal((5, 3))
    got = strided.cdist(strided.tensor(a), strided.tensor(b))
    want = torch.cdist(torch.tensor(a), torch.tensor(b))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    assert tuple(got.shape) == tuple(want.shape)


def test_index_writes_that_reach_torch_index_loops_are_torchs() -> None:
    base = _RNG.standard_normal((4, 5))
    idx = [0, 2, 0]
    src = _RNG.standard_normal((3, 5))
    s, t = strided.tensor(base), torch.tensor(base)
    _same(s.index_add(0, strided.tensor(idx), strided.tensor(src)),
          t.index_add(0, torch.tensor(idx), torch.tensor(src)))
    _same(s.t().index_copy(1, strided.tensor([1, 3]), strided.tensor(src[:2]).t()),
          t.t().index_copy(1, torch.tensor([1, 3]), torch.tensor(src[:2]).t()))
    si, ti = strided.tensor([[0, 1, 2, 3, 0]]), torch.tensor([[0, 1, 2, 3, 0]])
    _same(s.scatter_add(0, si, strided.tensor(src[:1])), t.scatter_add(0, ti, torch.tensor(src[:1])))
    _same(s.gather(0, si), t.gather(0, ti))
    s2, t2 = s.clone(), t.clone()
    s2[strided.tensor([0, 1])] = strided.tensor(src[:2])
    t2[torch.tensor([0, 1])] = torch.tensor(src[:2])
    _same(s2, t2)


def test_overlapping_writes_are_refused_as_torch_refuses() -> None:
    """An ``out=`` or in-place write whose input overlaps it partially: the walks that decide it
    (now loaded on first use) refuse as torch does, with torch's error class."""
    s, t = strided.arange(10.0), torch.arange(10.0)
    with pytest.raises(RuntimeError) as torch_error:
        torch.add(t[:5], 1, out=t[2:7])
    with pytest.raises(RuntimeError) as ours:
        strided.add(s[:5], 1, out=s[2:7])
    assert str(ours.value).splitlines()[0] == str(torch_error.value).splitlines()[0]
    s, t = strided.arange(10.0), torch.arange(10.0)
    torch_refused = strided_refused = None
    try:
        t[2:7].index_copy_(0, torch.tensor([0, 1]), t[:2])
    except RuntimeError as e:
        torch_refused = type(e).__mro__[-3]
    try:
        s[2:7].index_copy_(0, strided.tensor([0, 1]), s[:2])
    except RuntimeError as e:
        strided_refused = type(e).__mro__[-3]
    assert strided_refused == torch_refused
    if torch_refused is None:
        np.testing.assert_array_equal(s.numpy(), t.numpy())


# ---------------------------------------------------------------- the first watch_torch block
# ``from strided import watch_torch`` loads strided.diagnose's modules, which define 11
# dataclasses (~60 generated methods): their code now comes from the compiled-entry cache, as
# the import's own dataclasses' does, from a second file that ``import strided`` never reads.

_SOURCE = "def __init__(self, a):\n    self.a = a\n"
_NAME = "<string>"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """strided.entry_cache on files of their own, after an import (its save done)."""
    from strided import entry_cache

    path = str(tmp_path / "__pycache__" / "generated_entries.test.marshal")
    os.makedirs(os.path.dirname(path))
    monkeypatch.setattr(entry_cache, "_PATH", path)
    monkeypatch.setattr(entry_cache, "_LATER_PATH", path[: -len(".marshal")] + ".later.marshal")
    monkeypatch.setattr(entry_cache, "_loaded", None)
    monkeypatch.setattr(entry_cache, "_later", None)
    monkeypatch.setattr(entry_cache, "_used", {})
    monkeypatch.setattr(entry_cache, "_after", {})
    monkeypatch.setattr(entry_cache, "_state", {"compiled": False, "saved": True})
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return entry_cache


def test_after_the_import_new_sources_go_to_the_later_file_only(cache) -> None:
    code = cache.compiled(_SOURCE, _NAME)
    assert cache._state["compiled"] and code.co_filename == _NAME
    cache.save_after_import()
    assert not os.path.exists(cache._PATH)  # (the import's own file untouched)
    assert list(cache._load(cache._LATER_PATH)) == [(_SOURCE, _NAME)]
    # a later process: its import's table lacks the source, the later file has it: no compile
    cache._used.clear()
    cache._after.clear()
    cache._loaded, cache._later = None, None
    cache._state["compiled"] = False
    again = cache.compiled(_SOURCE, _NAME)
    assert not cache._state["compiled"] and again == code
    cache.save_after_import()  # (nothing compiled: nothing written)
    assert list(cache._load(cache._LATER_PATH)) == [(_SOURCE, _NAME)]


def test_later_saves_keep_what_the_later_file_holds(cache) -> None:
    cache.compiled(_SOURCE, _NAME)
    cache.save_after_import()
    cache._used.clear()
    cache._after.clear()
    cache._later = None
    other = "def __repr__(self):\n    return 'x'\n"
    cache.compiled(other, _NAME)
    cache.save_after_import()
    assert set(cache._load(cache._LATER_PATH)) == {(_SOURCE, _NAME), (other, _NAME)}


def test_nothing_is_written_during_the_import_or_without_bytecode(cache, monkeypatch) -> None:
    cache._state["saved"] = False  # (the import not over: its own save writes)
    cache.compiled(_SOURCE, _NAME)
    cache.save_after_import()
    assert not os.path.exists(cache._LATER_PATH)
    cache._state["saved"] = True
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    cache.save_after_import()
    assert not os.path.exists(cache._LATER_PATH)


def test_watch_torch_import_reads_the_cache_and_leaves_dataclasses_as_it_found_them() -> None:
    """Two processes: the second compiles none of strided.diagnose's dataclass methods; neither
    leaves the cache's hook in dataclasses or collections; ``import strided`` alone never reads
    the later file; the classes behave as dataclasses do (repr, eq, fields)."""
    code = """
import collections, dataclasses, strided
from strided import entry_cache
print(entry_cache._later is None)
from strided import watch_torch
from strided.diagnose import flow
print(entry_cache._state["compiled"], "exec" in vars(dataclasses), "eval" in vars(collections))
cls = flow.TensorInfo
a, b = cls((2, 3), (3, 1), "float32"), cls((2, 3), (3, 1), "float32")
print(a == b, hash(a) == hash(b), repr(a) == "TensorInfo(shape=(2, 3), strides=(3, 1), dtype='float32')")
"""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
            for _ in range(2)]
    for done in outs:
        assert done.returncode == 0, done.stderr
    first, second = (done.stdout.split() for done in outs)
    assert first[0] == second[0] == "True"
    assert second[1:] == ["False", "False", "False", "True", "True", "True"]
    assert first[2:] == ["False", "False", "True", "True", "True"]


def test_watch_torch_tells_library_files_from_the_users() -> None:
    """The prefixes the watch reads the standard library's paths from (sysconfig, asked once):
    a stdlib file, torch's and strided's own are library code; the user's file and a
    site-packages file (third-party: user code to the watch) are not."""
    from strided.diagnose import watch_torch as watch_module

    x = torch.ones(2, 3)
    with strided.watch_torch():
        (x + 1).sum()
    assert watch_module._is_library(os.__file__)
    assert watch_module._is_library(torch.__file__)
    assert watch_module._is_library(strided.__file__)
    assert not watch_module._is_library(__file__)
    assert not watch_module._is_library(os.path.join(os.path.dirname(os.__file__), "site-packages", "x", "y.py"))
