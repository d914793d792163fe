"""Comparison operators with NumPy operands against torch 2.13: NumPy scalars compare
elementwise with PyTorch's result dtype; a NumPy uint64 above int64's range never wraps into a
negative int64 (PyTorch's operators decline it: ``==`` is Python's identity test, ``<`` its
TypeError); a 0-d ndarray compares as its NumPy scalar (PyTorch refuses ndarrays in ``<``; NumPy's protocol
cannot tell a 0-d one from a scalar on the left, and strided keeps ndarray operators working:
tests/test_numpy_protocols.py).
"""

from __future__ import annotations

import itertools
import operator

import numpy as np
import pytest
import torch

import strided
from oracle_helpers import case

_ALL = [operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne]

_DTYPES = ["float32", "float64", "int64", "int32", "uint8", "bool"]

_SCALARS = [np.float32(2.5), np.float64(2.5), np.int64(2), np.int8(-3), np.uint8(200), np.bool_(True),
            np.uint64(5), np.float16(1.5)]


def _values(dtype: str) -> np.ndarray:
    if dtype == "bool":
        return np.array([False, True, True])
    if dtype.startswith("float"):
        return np.array([-0.0, 2.5, np.nan, 3.0], dtype)
    return np.array([0, 2, 5, np.iinfo(dtype).max, np.iinfo(dtype).min], dtype)


@pytest.mark.parametrize("op", _ALL, ids=lambda f: f.__name__)
def test_numpy_scalars_compare_as_torch(op) -> None:
    for dtype, scalar, reflected in itertools.product(_DTYPES, _SCALARS, [False, True]):
        with case(dtype=dtype, scalar=scalar, reflected=reflected):
            a = _values(dtype)
            run = (lambda x: op(scalar, x)) if reflected else (lambda x: op(x, scalar))  # noqa: B023 - called at once
            ref, got = run(torch.tensor(a)), run(strided.tensor(a))
            assert str(got.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
            assert got.tolist() == ref.tolist()


@pytest.mark.parametrize("dtype", ["int64", "uint8", "float32", "float64"])
@pytest.mark.parametrize("op", _ALL, ids=lambda f: f.__name__)
def test_uint64_beyond_int64_never_wraps(dtype: str, op) -> None:
    big = np.uint64(2**63 + 1)  # (wrapped: -9223372036854775807, which the int64 tensor holds)
    a = np.array([-(2**63) + 1, 0, 7]).astype(dtype)
    for run in (lambda x: op(x, big), lambda x: op(big, x)):
        try:
            ref = run(torch.tensor(a))
        except TypeError:
            with pytest.raises(TypeError):
                run(strided.tensor(a))
            continue
        got = run(strided.tensor(a))
        if isinstance(ref, torch.Tensor):
            assert got.tolist() == ref.tolist()
        else:
            assert type(got) is type(ref) and got == ref


@pytest.mark.parametrize("op", _ALL, ids=lambda f: f.__name__)
def test_a_0d_ndarray_compares_as_its_numpy_scalar(op) -> None:
    """PyTorch refuses ``t < np.array(2.5)``; strided cannot: NumPy hands ``np.float64(2.5) > t``
    (which PyTorch takes) to ``__array_ufunc__`` as this same 0-d array, so a 0-d array is read
    as its scalar (interop/numpy_protocols.py): PyTorch's result for ``np.float64(2.5)``, never
    a value computed in another dtype (float64 for an int tensor)."""
    others = [np.array(2.5), np.array(2), np.array(True), np.array(2.5, np.float32)]
    for other, dtype in itertools.product(others, ["float32", "int32", "uint8"]):
        with case(other=other, dtype=dtype):
            _a_0d_ndarray_compares_as_its_numpy_scalar(other, op, dtype)


def _a_0d_ndarray_compares_as_its_numpy_scalar(other: np.ndarray, op, dtype: str) -> None:
    a = _values(dtype)
    scalar = other[()]
    for k, (run, ref_run) in enumerate(((lambda x: op(x, other), lambda x: op(x, scalar)),
                                        (lambda x: op(other, x), lambda x: op(scalar, x)))):
        got, ref = run(strided.tensor(a)), ref_run(torch.tensor(a))
        assert str(got.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1], ("reflected" if k else "direct")
        assert got.tolist() == ref.tolist(), ("reflected" if k else "direct")
