"""``import strided`` does not load the helper modules only some op calls need (issue 23): the
pickling helpers, PyTorch's sort and selection orders written in Python, and the walks of
overlapping writes load on the first call that needs them
(:func:`strided.lazy_names.function_on_first_call`), with the results an eager import gave.
The import checks run in a fresh interpreter; the results are checked against PyTorch."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import strided
from strided.lazy_names import function_on_first_call

LAZY_HELPERS = [
    "strided.pickled",
    "strided.ops._support.torch_sort_order",
    "strided.ops._support.stl_select",
    "strided.kernels.torch_overlap_writes",
]


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_import_does_not_load_the_helper_modules():
    out = _run(f"""
        import sys, strided
        print([m for m in {LAZY_HELPERS!r} if m in sys.modules])
    """)
    assert out.split() == ["[]"]


def test_each_helper_loads_on_its_first_call_in_a_fresh_process():
    # (each op call below needs one of them; then every stand-in, called, is the real function)
    out = _run("""
        import pickle, sys, numpy as np, strided
        from strided.ops.shape import sorting, sets
        from strided.ops.reductions import order_stats
        from strided.ops.indexing import advanced, gather_scatter, index_ops
        from strided.kernels import memory
        t = strided.tensor([3.0, -0.0, 1.0, 0.0, 1.0] * 30)
        t.sort(stable=True); t.unique(); t.median(); t.mode(); t.topk(2)
        pickle.loads(pickle.dumps(t))
        b = strided.zeros(6); b.unfold(0, 2, 1).copy_(strided.arange(10.0).reshape(5, 2))
        print(all(m in sys.modules for m in ("strided.pickled", "strided.ops._support.torch_sort_order",
                                             "strided.ops._support.stl_select",
                                             "strided.kernels.torch_overlap_writes")),
              b.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 9.0])
        import strided.ops._support.torch_sort_order as S, strided.ops._support.stl_select as Q
        import strided.kernels.torch_overlap_writes as W
        x = np.array([0.0, -0.0, 1.0])
        for module, name, real, args in [
                (sorting, "sorted_values", S.sorted_values, (x,)), (sets, "sorted_values", S.sorted_values, (x,)),
                (sets, "equal_bits_may_differ", S.equal_bits_may_differ, (x,)),
                (sorting, "torch_argsort", S.argsort, (x, False, True)),
                (sorting, "numpy_argsort", S.numpy_argsort, (x.reshape(1, 3), False, None)),
                (sorting, "top_k_row", Q.top_k_row, ([1.0, 0.0, 1.0], 1, True)),
                (order_stats, "median_position", Q.median_position, ([0.0, -0.0, 1.0], False)),
                (order_stats, "mode_row", Q.mode_row, ([0.0, -0.0, 1.0],)),
                (order_stats, "sort_keys", S.sort_keys, (x.reshape(1, 3),)),
                (advanced, "walk_survivors", W.walk_survivors, (np.array([1, 1]), np.array([2.0, 3.0]))),
                (gather_scatter, "walk_survivors", W.walk_survivors, (np.array([1, 1]), np.array([2.0, 3.0]))),
                (index_ops, "walk_survivors", W.walk_survivors, (np.array([1, 1]), np.array([2.0, 3.0])))]:
            getattr(module, name)(*args)
            assert getattr(module, name) is real, (module, name)
        print(memory.last_writes is W.last_writes)
    """)
    assert out.split() == ["True"] * 3


def test_function_on_first_call_binds_the_real_function_in_the_namespace():
    namespace: dict = {}
    namespace["hypot"] = function_on_first_call("math", "hypot", namespace)
    namespace["root"] = function_on_first_call("math", "sqrt", namespace, "root")
    stand_in = namespace["root"]
    assert stand_in.__name__ == "root" and "math" in stand_in.__doc__
    assert namespace["root"](9.0) == 3.0 and namespace["hypot"](3.0, 4.0) == 5.0
    import math

    assert namespace["root"] is math.sqrt and namespace["hypot"] is math.hypot
    assert stand_in(16.0) == 4.0  # (a stand-in kept elsewhere still answers)


def test_function_on_first_call_passes_errors_on_and_binds_nothing_for_a_missing_module():
    namespace: dict = {}
    namespace["f"] = function_on_first_call("strided._no_such_module", "f", namespace)
    with pytest.raises(ModuleNotFoundError):
        namespace["f"]()
    namespace["g"] = function_on_first_call("math", "sqrt", namespace, "g")
    with pytest.raises(ValueError, match="math domain error"):
        namespace["g"](-1.0)


_VALUES = [3.0, -0.0, 1.0, 0.0, 1.0, float("nan"), -2.5, 0.0, -0.0, 3.0]


@pytest.mark.parametrize("layout", ["contiguous", "strided", "transposed", "empty"])
def test_the_sort_and_selection_orders_match_pytorch(layout):
    base = np.array(_VALUES * 2, dtype=np.float32).reshape(4, 5)
    if layout == "strided":
        base = base[:, ::2]
    elif layout == "transposed":
        base = base.T
    elif layout == "empty":
        base = base[:0]
    s, t = strided.tensor(base), torch.tensor(np.ascontiguousarray(base))
    if layout == "transposed":
        s, t = strided.tensor(np.ascontiguousarray(base.T)).T, torch.tensor(np.ascontiguousarray(base.T)).T
    for dim in (0, -1):
        a, b = s.sort(dim=dim, stable=True), t.sort(dim=dim, stable=True)
        np.testing.assert_array_equal(a.values.numpy(), b.values.numpy())
        assert np.signbit(a.values.numpy()).tolist() == np.signbit(b.values.numpy()).tolist()
        assert a.indices.tolist() == b.indices.tolist()
        assert a.values.stride() == b.values.stride() and a.indices.dtype.itemsize == 8
    flat_s, flat_t = s.reshape(-1), t.reshape(-1)
    assert np.signbit(flat_s.unique().numpy()).tolist() == np.signbit(flat_t.unique().numpy()).tolist()
    if base.size:
        finite_s = strided.tensor(np.nan_to_num(base, nan=7.0))
        finite_t = torch.tensor(np.nan_to_num(base, nan=7.0))
        for got, want in [(finite_s.median(dim=-1), finite_t.median(dim=-1)),
                          (finite_s.mode(dim=-1), finite_t.mode(dim=-1)),
                          (finite_s.topk(2, dim=-1), finite_t.topk(2, dim=-1))]:
            assert got.values.tolist() == want.values.tolist()
            assert got.indices.tolist() == want.indices.tolist()
        assert np.signbit(finite_s.median().numpy()) == np.signbit(finite_t.median().numpy())


def test_an_overlapping_write_keeps_pytorchs_survivors():
    # (the unfold windows share elements: the last write in PyTorch's walk stays)
    a, b = strided.zeros(6), torch.zeros(6)
    src = np.arange(10.0).reshape(5, 2)
    a.unfold(0, 2, 1).mT.copy_(strided.tensor(src.T.copy()))
    b.unfold(0, 2, 1).mT.copy_(torch.tensor(src.T.copy()))
    assert a.tolist() == b.tolist()
    a, b = strided.zeros(6), torch.zeros(6)
    a.unfold(0, 2, 1)[...] = strided.tensor(src)
    b.unfold(0, 2, 1)[...] = torch.tensor(src)
    assert a.tolist() == b.tolist()


def test_pickle_and_deepcopy_round_trip_as_before():
    t = strided.arange(12.0).reshape(3, 4).T
    back = pickle.loads(pickle.dumps(t))
    assert back.tolist() == t.tolist() and back.shape == t.shape and back.stride() == t.stride()
    leaf = strided.ones(3, requires_grad=True)
    twin = copy.deepcopy(leaf)
    assert twin.requires_grad and twin.is_leaf and twin.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(RuntimeError):
        copy.deepcopy(leaf * 2)
    with pytest.raises(RuntimeError):
        copy.deepcopy(torch.ones(3, requires_grad=True) * 2)
