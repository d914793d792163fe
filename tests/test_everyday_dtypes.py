"""The everyday ops (issue 12) on every dtype and on hard layouts, against PyTorch 2.13.

- :func:`test_sweep`: each row of :data:`everyday_sweep.CASES` (every op of ``ops.table._MORE``,
  with its Tensor method and in-place ``_`` forms where PyTorch has them) on all 14 dtypes and
  five layouts (contiguous, permuted with a step, expanded, 0-d, empty): the same result dtype,
  shape and values as torch, or the same error class and first line; never a raw NumPy/Python
  exception or a NumPy RuntimeWarning/ComplexWarning. :data:`everyday_sweep.KNOWN` lists the
  deliberate differences (each with a ``# Note:`` in its op module).
- Regression tests for the bugs the sweep found: complex values that were cast to real
  (imaginary parts dropped), raw NumPy errors, and ops that computed where PyTorch refuses.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided as st
from everyday_sweep import CASES, LAYOUTS, build, known, run_case
from strided.dtypes import ALL_DTYPES
from strided.ops._support import support

_CALLS = dict(CASES)
# (every dtype contiguous, 0-d and empty; the strided layouts on one dtype of each family, for time:
# ``python tests/everyday_sweep.py`` runs them all)
_STRIDED = ("bool", "uint8", "int64", "float16", "float32", "uint16", "uint64", "complex64")
_GRID = [(d.name, layout) for d in ALL_DTYPES for layout in LAYOUTS
         if d.name in _STRIDED or layout in ("contig", "0d", "empty")]


@pytest.mark.parametrize("name", list(_CALLS))
def test_sweep(name: str) -> None:
    bad = []
    for dtype, layout in _GRID:
        msg = run_case(name, _CALLS[name], dtype, layout)
        if msg and not known(name, dtype, layout):
            bad.append(f"{dtype} {layout}: {msg}")
    assert not bad, "\n".join(bad)


def test_known_differences_still_differ() -> None:
    """Each deliberate difference is still one (else it should leave KNOWN)."""
    for name, dtype, layout in (("take_along_dim.flat", "float32", "noncontig"), ("complex", "float16", "contig")):
        assert known(name, dtype, layout)
        assert run_case(name, _CALLS[name], dtype, layout) is not None


# ---------------------------------------------------------------- complex values kept


def _c(values: list[complex], dtype: str = "complex64") -> tuple[torch.Tensor, st.Tensor]:
    a = np.array(values, dtype=dtype)
    return torch.from_numpy(a.copy()), st.from_numpy(a.copy())


def _no_warning(fn):  # noqa: ANN001, ANN202 - a test helper
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn()


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_complex_scans_keep_imaginary_parts(op: str) -> None:
    t, s = _c([1 + 2j, 3 - 1j, -1j])
    got = _no_warning(lambda: getattr(s, op)(0))
    assert got.dtype is st.complex64
    np.testing.assert_allclose(got.numpy(), getattr(t, op)(0).numpy(), rtol=1e-6)
    assert np.any(got.numpy().imag != 0)


def test_complex_cumsum_into_a_real_dtype_warns_as_pytorch() -> None:
    _, s = _c([1 + 2j, 3 - 1j])
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        got = s.cumsum(0, dtype=st.float64)
    assert got.tolist() == [1.0, 4.0]


def test_complex_logsumexp_isclose_lerp_norm() -> None:
    t, s = _c([1 + 2j, 3 - 1j, 0.5j])
    t2, s2 = _c([1 + 2j, 3 + 1j, 0.5j])
    np.testing.assert_allclose(_no_warning(lambda: st.logsumexp(s, 0)).numpy(), torch.logsumexp(t, 0).numpy(),
                               rtol=1e-5)
    assert _no_warning(lambda: st.isclose(s, s2)).tolist() == torch.isclose(t, t2).tolist() == [True, False, True]
    np.testing.assert_allclose(st.lerp(s, s2, 0.25).numpy(), torch.lerp(t, t2, 0.25).numpy(), rtol=1e-6)
    n = st.norm(s)
    assert n.dtype is st.float32
    np.testing.assert_allclose(n.item(), torch.norm(t).item(), rtol=1e-6)
    np.testing.assert_allclose(st.linalg.vector_norm(s, 1).item(), torch.linalg.vector_norm(t, 1).item(), rtol=1e-6)


def test_complex_scatter_reduce_mean_divides() -> None:
    t, s = _c([1 + 1j, 2 + 2j, 3 + 3j])
    idx_t, idx_s = torch.tensor([0, 0, 1]), st.tensor([0, 0, 1])
    got = st.scatter_reduce(s, 0, idx_s, s, "mean")
    np.testing.assert_allclose(got.numpy(), torch.scatter_reduce(t, 0, idx_t, t, "mean").numpy(), rtol=1e-6)


# ---------------------------------------------------------------- PyTorch's refusals, not NumPy's errors


@pytest.mark.parametrize(("name", "dtype"), [
    ("erf", "complex64"), ("nansum", "complex128"), ("nanmean", "complex64"),  # (computed on real parts)
    ("deg2rad", "complex64"), ("atan2", "complex64"), ("copysign", "complex128"), ("fmod", "complex64"),
    ("fmod.zero", "uint16"), ("scatter_reduce.amin", "complex64"), ("round.decimals", "float32"),
    ("sort", "complex64"), ("unique.dim", "complex64"), ("searchsorted", "bool"), ("gather", "uint32"),
    ("masked_fill_", "uint64"), ("nonzero", "uint16"), ("tril", "uint16"), ("cummax", "complex128"),
    ("amax", "uint16"), ("logical_and", "uint32"), ("square", "uint64"), ("polar", "float16"),
])
def test_regressions_match_torch_on_every_layout(name: str, dtype: str) -> None:
    for layout in LAYOUTS:
        assert run_case(name, _CALLS[name], dtype, layout) is None, (name, dtype, layout)


@pytest.mark.parametrize(("name", "layout"), [
    ("aminmax.dim", "empty"), ("take_along_dim", "0d"), ("permute_copy", "0d"), ("slice_copy", "0d"),
    ("adjoint", "0d"), ("unique.dim", "0d"), ("round.decimals", "0d"), ("cdist", "empty"),
])
def test_layout_regressions_match_torch(name: str, layout: str) -> None:
    for d in ("float32", "float16", "int64", "complex64", "uint16"):
        assert run_case(name, _CALLS[name], d, layout) is None, (name, d, layout)


def test_refusal_text_has_pytorch_first_line_and_a_fix() -> None:
    x = st.tensor([1, 2, 3], dtype=st.uint16)
    with pytest.raises(NotImplementedError) as info:
        x.cummax(0)
    lines = str(info.value).splitlines()
    assert lines[0] == "\"cummax_cpu\" not implemented for 'UInt16'"
    assert "uint16 (3,)" in lines[1] and lines[2].strip().startswith("fix:")
    with pytest.raises(RuntimeError, match="^ Sort does not support complex dtypes on CPU"):
        st.tensor([1j]).sort()


def test_refused_inplace_leaves_the_target_untouched() -> None:
    for make, call in ((lambda: st.tensor([[1, 2], [3, 4]], dtype=st.uint16), lambda x: x.cumsum_(0)),
                       (lambda: st.tensor([[1, 2], [3, 4]], dtype=st.uint32), lambda x: x.tril_()),
                       (lambda: st.tensor([1, 2], dtype=st.uint64),
                        lambda x: x.masked_fill_(st.tensor([True, False]), 0)),
                       (lambda: st.tensor([1j, 2j]), lambda x: x.floor_())):
        x = make()
        before = x.tolist()
        with pytest.raises(NotImplementedError):
            call(x)
        assert x.tolist() == before


def test_support_tables_name_only_real_kernels() -> None:
    """Every new row refuses on its dtype and passes a dtype PyTorch computes with."""
    for op in ("tril", "gather", "index_copy", "nonzero", "amax", "fmod"):
        assert support.refused(op, st.uint16) and not support.refused(op, st.int16)
    for op in ("sort", "erf", "unique", "nansum", "deg2rad"):
        assert support.refused(op, st.complex64) and not support.refused(op, st.float32)
    assert support.refused("searchsorted", st.bool_) and not support.refused("searchsorted", st.uint8)
    assert build(st, "uint16", "expanded").stride() == (0, 1)


@pytest.mark.parametrize(("shape", "dim"), [((3,), 0), ((1, 1, 1), 1), ((2, 3, 4), 1), ((2, 3, 4), 0),
                                            ((2, 3), 1), ((2, 3, 4, 5), 2)])
def test_index_add_out_of_range_follows_pytorchs_path(shape: tuple[int, ...], dim: int) -> None:
    """PyTorch's error class depends on its path (first/last dim of a 2-d+ target: scatter_add's
    RuntimeError; else the slice loop's IndexError); the uint16 refusal names the path's kernel."""
    src_shape = [1 if d == dim else s for d, s in enumerate(shape)]
    for dtype in ("float32", "uint16"):
        def call(m, x, a, dtype=dtype):  # noqa: ANN001, ANN202
            bad = a.t([shape[dim]]) if dtype == "float32" else a.t([0])
            return m.index_add(m.zeros(shape, dtype=getattr(m, dtype)), dim, bad,
                               m.ones(src_shape, dtype=getattr(m, dtype)))
        assert run_case("index_add", call, dtype, "contig") is None, (shape, dim, dtype)
