"""strided.array_api, the Python Array API standard's namespace: a few differential checks against
NumPy 2 (whose main namespace follows the standard) on hard layouts, the standard's copy rules and
promotion, and the namespace hook. The conformance figure comes from tools/array_api_tests.sh."""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided
import strided.array_api as xp
from layouts import build_valued, specs, valued_storage

FEW = settings(max_examples=40, deadline=None)


def _same(s: strided.Tensor, n: np.ndarray) -> None:
    n = np.asarray(n)
    assert isinstance(s, strided.Tensor)
    assert s.shape == n.shape
    assert s.dtype.numpy == n.dtype, (s.dtype, n.dtype)
    np.testing.assert_allclose(s.numpy(), n, rtol=1e-12, atol=0, equal_nan=True)


def test_the_namespace_is_returned_by_every_tensor():
    t = strided.ones(2, 3)[:, ::2]
    assert t.__array_namespace__() is xp
    assert t.__array_namespace__(api_version="2023.12") is xp
    assert xp.__array_api_version__ == "2024.12"
    with pytest.raises(ValueError, match="unsupported api_version '1999.01'"):
        t.__array_namespace__(api_version="1999.01")
    assert t.to_device("cpu") is t


def test_import_strided_does_not_import_torch():
    code = "import sys, strided, strided.array_api; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


@FEW
@given(spec=specs(max_dims=3), seed=hs.integers(0, 2**16))
def test_elementwise_and_reductions_match_numpy_on_hard_layouts(spec, seed):
    """Permuted, stepped, expanded (stride 0), zero-size and 0-d inputs, read in place."""
    _, a, s = build_valued(spec, valued_storage(spec, "float64", seed, nan=True))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "Degrees of freedom <= 0"
        _check_float_functions(a, s)


def _check_float_functions(a: np.ndarray, s: strided.Tensor) -> None:
    _same(xp.exp(s), np.exp(a))
    _same(xp.add(s, 1.5), np.add(a, 1.5))
    _same(xp.maximum(s, xp.flip(s)), np.maximum(a, np.flip(a)))
    _same(xp.sum(s), np.sum(a))
    _same(xp.cumulative_sum(xp.reshape(s, (-1,)), include_initial=True),
          np.cumulative_sum(a.reshape(-1), include_initial=True))
    if s.ndim:
        _same(xp.sum(s, axis=-1, keepdims=True), np.sum(a, axis=-1, keepdims=True))
        _same(xp.std(s, axis=0, correction=1), np.std(a, axis=0, ddof=1))
        _same(xp.sort(s, axis=0, descending=True), np.flip(np.sort(a, axis=0), axis=0))
        _same(xp.concat([s, s], axis=0), np.concatenate([a, a], axis=0))


@FEW
@given(spec=specs(min_dims=1, max_dims=2), seed=hs.integers(0, 2**16))
def test_integer_functions_match_numpy(spec, seed):
    """Integer sets and the stable descending argsort (ties keep their order)."""
    _, a, s = build_valued(spec, valued_storage(spec, "int32", seed))
    _same(xp.unique_values(s), np.unique_values(a))
    counts = xp.unique_counts(s)
    _same(counts.counts, np.unique_counts(a).counts)
    _same(xp.argsort(s, axis=-1, descending=True),
          a.shape[-1] - 1 - np.flip(np.argsort(np.flip(a, -1), axis=-1, kind="stable"), -1))
    _same(xp.sum(s, axis=0), np.sum(a, axis=0))  # int32 accumulates in the default int, int64
    assert xp.sum(s).dtype is xp.int64


def test_a_zero_size_and_a_0d_array():
    empty = xp.reshape(xp.arange(6.0), (2, 3))[:, 3:]
    assert xp.sum(empty, axis=1).tolist() == [0.0, 0.0]
    assert xp.max(xp.asarray(3.5)).item() == 3.5
    with pytest.raises(ValueError):
        xp.max(empty)  # an empty reduction has no identity
    assert xp.matmul(empty, xp.ones((0, 2))).tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_0d_results_have_a_0d_layout():
    """Regression (array-api-tests' test_unique_values): a 0-d result of a namespace function
    copies and converts like any 0-d tensor."""
    nan = xp.isnan(xp.asarray(0.0))
    assert (nan.shape, nan.stride()) == ((), ())
    assert xp.astype(nan, xp.uint8).item() == 0
    assert xp.unique_values(xp.asarray(2.0)).tolist() == [2.0]


def test_reshape_copy_false_refuses_with_the_layout_explanation():
    t = xp.permute_dims(xp.reshape(xp.arange(6), (2, 3)), (1, 0))
    with pytest.raises(ValueError) as info:
        xp.reshape(t, (6,), copy=False)
    text = str(info.value)
    assert text.startswith("array_api.reshape(copy=False)")
    assert "shape (3, 2), strides (1, 3)" in text
    assert "stride[0] == size[1] * stride[1]" in text
    assert t.tolist() == [[0, 3], [1, 4], [2, 5]]
    with pytest.raises(RuntimeError) as view_info:  # the same explanation Tensor.view gives
        t.view(6)
    assert str(view_info.value) in text


@pytest.mark.parametrize("copy", [None, True, False])
@pytest.mark.parametrize("make", [lambda: xp.reshape(xp.arange(12), (3, 4)),
                                  lambda: xp.permute_dims(xp.reshape(xp.arange(12), (3, 4)), (1, 0)),
                                  lambda: xp.reshape(xp.arange(12), (3, 4))[:, ::2],
                                  lambda: xp.broadcast_to(xp.reshape(xp.arange(3), (3, 1)), (3, 4))])
def test_reshape_copy_follows_torchs_view_or_copy(make, copy):
    """copy= reads PyTorch's one reshape decision: None is torch.reshape (a view where the strides
    allow, strides included), True always new memory, False refuses exactly where torch copies."""
    x = make()
    new = (2, -1)
    t = torch.as_strided(torch.arange(12 if x.stride()[-1] else 3), x.shape, x.stride(), x.storage_offset())
    t_out = t.reshape(new)
    t_viewed = t_out.data_ptr() == t.data_ptr() or t_out.numel() == 0
    if copy is False and not t_viewed:
        with pytest.raises(ValueError):
            xp.reshape(x, new, copy=False)
        return
    out = xp.reshape(x, new, copy=copy)
    assert out.tolist() == t_out.tolist()
    assert strided.shares_memory(out, x) == (t_viewed and copy is not True)
    if copy is not True:
        assert out.stride() == t_out.stride()


def test_reshape_copies_only_when_it_must_or_is_asked():
    x = xp.reshape(xp.arange(6), (2, 3))
    assert strided.shares_memory(xp.reshape(x, (3, 2), copy=False), x)
    assert strided.shares_memory(xp.reshape(x, (3, 2)), x)
    with strided.record_copies() as copies:
        y = xp.reshape(x, (3, 2), copy=True)
    assert not strided.shares_memory(y, x)
    assert [c.nbytes for c in copies] == [48]


def test_copying_functions_report_to_the_ledger():
    a = xp.reshape(xp.arange(6.0), (2, 3))
    with strided.record_copies() as copies:
        xp.concat([a, a[:, ::2]], axis=1)
    assert copies[0].reason == "array_api.concat: 2 arrays joined along axis 1 into new memory"
    assert copies[0].nbytes == 2 * 5 * 4  # float32, the default float


def test_asarray_copy_rules():
    base = np.arange(4.0)
    shared = xp.asarray(base)
    base[0] = 9
    assert shared[0].item() == 9
    assert xp.asarray(shared, copy=True)._storage is not shared._storage
    with pytest.raises(ValueError):
        xp.asarray([1, 2], copy=False)
    with pytest.raises(ValueError):
        xp.asarray(shared, dtype=xp.float32, copy=False)


@pytest.mark.parametrize(("a", "b", "want"), [
    ("uint8", "int8", "int16"), ("uint16", "int8", "int32"), ("uint32", "int64", "int64"),
    ("float32", "complex64", "complex64"), ("float64", "complex64", "complex128"), ("bool", "bool", "bool"),
])
def test_the_standards_promotion(a, b, want):
    da, db = getattr(xp, a), getattr(xp, b)
    assert xp.result_type(da, db) is getattr(xp, want)
    x, y = xp.ones((2,), dtype=da), xp.ones((1,), dtype=db)
    assert xp.add(x, y).dtype is getattr(xp, want)
    assert xp.can_cast(da, getattr(xp, want))


def test_promotion_outside_the_table_is_refused():
    with pytest.raises(TypeError, match="no promotion in the Array API standard"):
        xp.result_type(xp.uint64, xp.int64)
    with pytest.raises(TypeError):
        xp.result_type(xp.int32, xp.float32)
    assert xp.result_type(xp.float32, 1.0) is xp.float32  # Python scalars are weak
    assert xp.result_type(xp.int8, 1) is xp.int8
    assert not xp.can_cast(xp.float64, xp.float32)


def test_data_type_queries():
    assert xp.finfo(xp.complex64).dtype is xp.float32
    assert xp.finfo(xp.float64).eps == float(np.finfo(np.float64).eps)
    assert (xp.iinfo(xp.uint16).max, xp.iinfo(xp.int8).min) == (65535, -128)
    assert xp.isdtype(xp.float32, ("integral", "real floating"))
    assert not xp.isdtype(xp.uint8, "signed integer")
    info = xp.__array_namespace_info__()
    assert info.default_dtypes()["real floating"] is xp.float32
    assert len(info.dtypes()) == 13 and set(info.dtypes(kind="complex floating")) == {"complex64", "complex128"}


def test_the_linalg_extension_on_a_permuted_stack():
    rng = np.random.default_rng(0)
    m = rng.standard_normal((3, 4, 4))
    s = xp.permute_dims(xp.asarray(np.ascontiguousarray(m.transpose(0, 2, 1))), (0, 2, 1))  # m, read transposed
    _same(xp.linalg.det(s), np.linalg.det(m))
    _same(xp.linalg.inv(s), np.linalg.inv(m))
    u, sv, vh = xp.linalg.svd(s, full_matrices=False)
    _same(sv, np.linalg.svd(m, compute_uv=False))
    assert math.isclose(xp.linalg.vector_norm(s).item(), float(np.linalg.norm(m)))
    assert strided.shares_memory(xp.linalg.diagonal(s), s)  # a view, as in the standard
