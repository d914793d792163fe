"""Shared helpers for the elementwise differential tests: the same values and layout in PyTorch and strided.

An operand is a layout (shape, strides, offset) over a storage of interesting values of one
dtype; :func:`build_pair` lays it over *equal copies* of that storage in both libraries, so
in-place ops can be compared storage against storage afterwards.
"""

from __future__ import annotations

import numpy as np
import torch

import strided as st

DTYPE_NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]

# Tolerances for comparing float values with PyTorch: (rtol, atol) per result dtype. Exact for
# integers and bool. float16 results of transcendental ops may differ by one ulp (~1e-3).
TOLERANCES = {"float16": (2e-3, 2e-3), "float32": (2e-6, 1e-6), "float64": (1e-12, 1e-12)}
TRANSCENDENTAL_TOLERANCES = {"float16": (2e-3, 2e-3), "float32": (1e-5, 1e-6), "float64": (1e-12, 1e-12)}


def storage_values(n: int, dtype: str, seed: int) -> np.ndarray:
    """``n`` values of ``dtype`` mixing signs, zeros, fractions (floats) and small ints."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.startswith("float"):
        vals = rng.integers(-6, 7, n) * 0.5 + rng.choice([0.0, 0.25, -0.125], n)
        return vals.astype(dtype)
    lo = 0 if dtype == "uint8" else -6
    return rng.integers(lo, 7, n).astype(dtype)



def aliases_without_stride0(spec: tuple) -> bool:
    """Whether two elements share memory through strides other than 0 (e.g. equal strides).

    PyTorch calls such targets "too hard" to check and lets in-place writes through with
    order-dependent results; NumPy buffers. Those writes are not comparable, so in-place
    tests skip such targets (an expanded, stride-0 target is still tested: both refuse it).
    """
    _, shape, strides, _ = spec
    if any(n > 1 and s == 0 for n, s in zip(shape, strides)):
        return False
    n = int(np.prod(shape)) if shape else 1
    if n == 0:
        return False
    idx = np.indices(shape).reshape(len(shape), -1) if shape else np.zeros((0, 1), dtype=np.int64)
    addresses = (np.asarray(strides).reshape(-1, 1) * idx).sum(axis=0) if shape else np.zeros(1)
    return len(np.unique(addresses)) < n


def build_pair(spec: tuple, dtype: str, seed: int) -> tuple[st.Tensor, torch.Tensor]:
    """The same layout over equal copies of the same values, in strided and in PyTorch."""
    size, shape, strides, offset = spec
    values = storage_values(max(size, 1), dtype, seed)
    s = st.tensor(values.copy()).as_strided(shape, strides, offset)  # the public API, as torch's side
    t = torch.from_numpy(values.copy()).as_strided(shape, strides, offset)
    return s, t


def torch_dtype_name(t: torch.Tensor) -> str:
    return str(t.dtype).removeprefix("torch.")


def assert_values(s: st.Tensor, t: torch.Tensor, tolerances: dict = TOLERANCES) -> None:
    """Same values (within the dtype's tolerance; NaNs equal, infs equal)."""
    got = np.asarray(s._np())
    want = t.numpy()
    name = torch_dtype_name(t)
    if name in tolerances:
        rtol, atol = tolerances[name]
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol,
                                   equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def assert_like_torch(s: st.Tensor, t: torch.Tensor, tolerances: dict = TOLERANCES) -> None:
    """Same dtype, shape, strides and values as the PyTorch result."""
    assert s.dtype.name == torch_dtype_name(t), (s.dtype, t.dtype)
    assert s.shape == tuple(t.shape), (s.shape, t.shape)
    assert s.stride() == t.stride(), f"strides {s.stride()} vs torch {t.stride()} for shape {s.shape}"
    assert_values(s, t, tolerances)


def run_both(fs, ft):
    """(strided result or exception, torch result or exception)."""
    try:
        rs = fs()
    except Exception as err:  # noqa: BLE001 - compared with torch's
        rs = err
    try:
        rt = ft()
    except Exception as err:  # noqa: BLE001
        rt = err
    return rs, rt


def assert_same_outcome(rs, rt, tolerances: dict = TOLERANCES) -> None:
    """Both raised (strided's error is an instance of torch's class) or both agree."""
    if isinstance(rt, Exception):
        assert isinstance(rs, Exception), f"torch raised {type(rt).__name__}: {rt} but strided returned {rs!r}"
        assert isinstance(rs, type(rt)), f"torch raised {type(rt).__name__}: {rt}; strided {type(rs).__name__}: {rs}"
        assert isinstance(rs, st.StridedError), rs
        return
    if isinstance(rs, Exception):
        raise AssertionError(f"strided raised {type(rs).__name__}: {rs} but torch returned {rt}") from rs
    assert_like_torch(rs, rt, tolerances)
