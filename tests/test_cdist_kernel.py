"""cdist's compiled p = 2 block (``_rowkernel.cdist2``) against the NumPy block it replaces.

The kernel promises NumPy's bits: ``|a_i - b_j|`` squared, summed by NumPy's pairwise sum over
the coordinates, square-rooted. These tests compare the bytes with
``distance._euclidean_block`` (and ``strided.cdist`` with the kernel on and off) on point sets
drawn with NaNs of both signs, infinities, signed zeros, overflowing and subnormal values, over
coordinate counts that take each branch of the pairwise sum (< 8, a block, several blocks).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st_

import strided
from strided.kernels import native, rows
from strided.ops.linalg import distance

SPECIALS = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30, -1e30, 1e-40, 3e38, 1e300, 5e-324])
KERNEL = rows.cdist2()
pytestmark = pytest.mark.skipif(KERNEL is None, reason="the row kernel is not built")


def _points(rng: np.random.Generator, shape: tuple[int, int], dtype: type, special: float) -> np.ndarray:
    """Normal points, a fraction ``special`` of them replaced by SPECIALS (cast to dtype)."""
    x = rng.standard_normal(shape) * rng.choice([1e-3, 1.0, 1e3])
    pick = rng.random(shape) < special
    with np.errstate(over="ignore"):
        x[pick] = rng.choice(SPECIALS, size=int(pick.sum()))
        return x.astype(dtype)


def _numpy_block(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.empty((a.shape[0], b.shape[0]), a.dtype)
    with np.errstate(all="ignore"):
        distance._euclidean_block(a, b, out)
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m", [1, 2, 7, 8, 9, 16, 31, 128, 129, 300, 1030])
def test_kernel_bits_equal_numpy_block(dtype: type, m: int) -> None:
    rng = np.random.default_rng(m)
    for p, r in ((1, 1), (3, 5), (25, 25), (4, 1)):
        for special in (0.0, 0.2):
            a, b = _points(rng, (p, m), dtype, special), _points(rng, (r, m), dtype, special)
            out = np.full((p, r), 7, dtype)
            assert KERNEL(a, b, out) is True
            assert out.tobytes() == _numpy_block(a, b).tobytes()


@settings(max_examples=150, deadline=None)
@given(p=st_.integers(1, 25), r=st_.integers(1, 25), m=st_.integers(1, 40), seed=st_.integers(0, 2**32 - 1),
       f64=st_.booleans(), special=st_.sampled_from([0.0, 0.1, 0.5]))
def test_cdist_fast_path_equals_general_path(p: int, r: int, m: int, seed: int, f64: bool, special: float) -> None:
    rng = np.random.default_rng(seed)
    dtype = np.float64 if f64 else np.float32
    x1 = strided.from_numpy(_points(rng, (p, m), dtype, special))
    x2 = strided.from_numpy(_points(rng, (r, m), dtype, special))
    fast = strided.cdist(x1, x2)
    with native.disabled():  # (the NumPy block)
        slow = strided.cdist(x1, x2)
    assert fast.shape == slow.shape == (p, r) and fast.stride() == slow.stride() == (r, 1)
    assert fast.dtype == slow.dtype
    assert fast.numpy().tobytes() == slow.numpy().tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cdist_fast_path_close_to_torch(dtype: type) -> None:
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((16, 16)).astype(dtype), rng.standard_normal((9, 16)).astype(dtype)
    ours = strided.cdist(strided.from_numpy(a), strided.from_numpy(b)).numpy()
    theirs = torch.cdist(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-6 if dtype is np.float32 else 1e-14)


def test_kernel_refuses_what_it_does_not_take() -> None:
    f4, f8 = np.ones((3, 4), np.float32), np.ones((3, 4), np.float64)
    out4 = np.full((3, 3), 9, np.float32)
    assert KERNEL(f4, f8, out4) is False  # (mixed dtypes)
    assert KERNEL(f4, np.ones((3, 5), np.float32), out4) is False  # (coordinates disagree)
    assert KERNEL(f4, f4, np.ones((3, 2), np.float32)) is False  # (output shape)
    assert KERNEL(np.ones((3, 4), np.int32), np.ones((3, 4), np.int32), np.ones((3, 3), np.int32)) is False
    assert KERNEL(f4[None], f4[None], out4[None]) is False  # (3-D)
    assert (out4 == 9).all()
    with pytest.raises(ValueError, match="not C-contiguous"):
        KERNEL(f4.T, f4, out4)
    with pytest.raises(TypeError, match="3 arguments"):
        KERNEL(f4, f4)
    ro = np.ones((3, 3), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        KERNEL(f4, f4, ro)


_ISA_SCRIPT = """
import sys, zlib
sys.path.insert(0, {tests!r})
import numpy as np
from test_cdist_kernel import _points
from strided.kernels import rows
rng = np.random.default_rng(11)
digest = 0
for dtype in (np.float32, np.float64):
    for m in (1, 5, 8, 13, 64, 128, 129):
        a, b = _points(rng, (7, m), dtype, 0.2), _points(rng, (13, m), dtype, 0.2)
        out = np.empty((7, 13), dtype)
        assert rows.cdist2()(a, b, out)
        digest = zlib.crc32(out.tobytes(), digest)
print(digest)
"""


def test_the_baseline_copy_gives_the_vector_copys_bits():
    """The lanes loop is compiled twice (baseline and AVX2, picked at import): both copies give
    the same bytes (STRIDED_NATIVE_ROWS_ISA restricts the pick in a subprocess)."""
    import os
    import subprocess
    import sys

    tests = os.path.dirname(os.path.abspath(__file__))
    script = _ISA_SCRIPT.format(tests=tests)
    digests = []
    for isa in ("base", "avx2"):
        env = dict(os.environ, STRIDED_NATIVE_ROWS_ISA=isa)
        done = subprocess.run([sys.executable, "-W", "ignore", "-c", script], env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        digests.append(done.stdout.strip())
    assert digests[0] == digests[1] and digests[0].isdigit()
