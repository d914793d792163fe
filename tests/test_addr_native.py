"""addr's fast paths (row-major and column-major input, float32/float64 vectors) through the
compiled ``outer_scale_add``: ``outer(x, y) * alpha + input * beta`` in one pass, each operation
rounded in the dtype as NumPy's ufuncs round it. The same bits as NumPy's loop
(``native.disabled()``) for alpha and beta of every kind (1, 0, fractions, integers, negative),
special values (zeros, infinities, NaN in one operand), PyTorch's strides (and values, on finite
ones); two NaN
operands in one operation leave the call to NumPy's loop (its choice of NaN).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import strided
from oracle_helpers import case
from strided.kernels import native

_KERNEL = native.special()
pytestmark = pytest.mark.skipif(_KERNEL is None or not hasattr(_KERNEL, "outer_scale_add"),
                                reason="the compiled special functions are not built")


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint32 if a.dtype == np.float32 else np.uint64)


def _inputs(dtype: str, specials: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    m = rng.uniform(-2, 2, (37, 29)).astype(dtype)
    x = rng.uniform(-2, 2, 37).astype(dtype)
    y = rng.uniform(-2, 2, 29).astype(dtype)
    if specials:
        x[:5] = [0.0, -0.0, np.inf, -np.inf, 3e38]
        y[:4] = [np.inf, 0.0, -1e-45, np.nan]
        m[6:9, :3] = [[np.inf, -np.inf, 0.0], [-0.0, 1e-45, 3e38], [1.0, 2.0, -3.0]]
    return m, x, y


@pytest.mark.parametrize("layout", ["row-major", "column-major"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_same_bits_as_numpys_loop(layout, dtype):
    for (beta, alpha), specials in itertools.product(
            [(1, 1), (0.5, 1), (0, 1), (1, 2.5), (-3, 0.1), (0, 0), (2, -1)],
            [False, True]):
        with case(beta=beta, alpha=alpha, specials=specials):
            _the_same_bits_as_numpys_loop(layout, beta, alpha, specials, dtype)


def _the_same_bits_as_numpys_loop(layout: str, beta: float, alpha: float, specials: bool, dtype: str) -> None:
    m, x, y = _inputs(dtype, specials)
    base = strided.from_numpy(m) if layout == "row-major" else strided.from_numpy(np.ascontiguousarray(m.T)).T
    s = (base, strided.from_numpy(x), strided.from_numpy(y))
    got = strided.addr(*s, beta=beta, alpha=alpha)
    with native.disabled():
        ref = strided.addr(*s, beta=beta, alpha=alpha)
    want = torch.addr(torch.from_numpy(m), torch.from_numpy(x), torch.from_numpy(y), beta=beta, alpha=alpha)
    assert got.stride() == ref.stride() and got.shape == tuple(want.shape)
    np.testing.assert_array_equal(_bits(got.numpy()), _bits(ref.numpy()))
    if not specials:  # (PyTorch scales one vector first: alpha x[i] may overflow where x[i] y[j] does not)
        tol = 1e-6 if dtype == "float32" else 1e-14  # (absolute too: beta input + alpha outer may cancel)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol)


def test_two_nans_in_one_operation_leave_it_to_numpy() -> None:
    m, x, y = _inputs("float32", False)
    m[0, 0] = np.float32(np.nan)
    y[0] = np.array(0xFFC12345, np.uint32).view(np.float32)  # (a negative NaN with a payload)
    product = np.empty(m.shape, np.float32)
    assert not _KERNEL.outer_scale_add(x, y, m, None, 0.5, product)  # (NaN + NaN at [0, 0])
    got = strided.addr(strided.from_numpy(m), strided.from_numpy(x), strided.from_numpy(y), beta=0.5)
    with native.disabled():
        ref = strided.addr(strided.from_numpy(m), strided.from_numpy(x), strided.from_numpy(y), beta=0.5)
    np.testing.assert_array_equal(_bits(got.numpy()), _bits(ref.numpy()))


def test_refusals() -> None:
    x, y = np.ones(4, np.float32), np.ones(3, np.float32)
    assert _KERNEL.outer_scale_add(x, y, None, None, None, np.empty((4, 3), np.float32))
    assert not _KERNEL.outer_scale_add(x, y, None, None, None, np.empty((4, 4), np.float32))  # (not m n)
    assert not _KERNEL.outer_scale_add(x, y, np.ones((3, 4), np.float32).T, None, None, np.empty((4, 3), np.float32))
    assert not _KERNEL.outer_scale_add(x, y.astype(np.float64), None, None, None, np.empty((4, 3), np.float32))
    out = np.empty((4, 3), np.float32)
    assert not _KERNEL.outer_scale_add(x, y, out, None, None, out)  # (base is out)
    with pytest.raises(TypeError):
        _KERNEL.outer_scale_add(x, y, None, None, np.empty((4, 3), np.float32))
