"""argmax / argmin along an outer dim of a row-major float tensor by the compiled column scan
(``_rowkernel.arg_cols``): NumPy's and PyTorch's indices (the first extreme, the first NaN; -0.0
and 0.0 equal), shapes and strides, keepdim, every dim but the last, large and small; both
compiled copies (baseline and AVX2) agree; the kernel refuses what it does not take."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided.kernels import rows

pytestmark = pytest.mark.skipif(rows.arg_cols() is None, reason="the row kernel is not built")


def _data(rng, shape, dtype, ties):
    a = (rng.integers(0, 4, shape) if ties else rng.standard_normal(shape)).astype(dtype)
    if ties:
        a[rng.random(shape) < 0.1] = np.nan
        a[rng.random(shape) < 0.3] = -0.0
    return a


@settings(max_examples=150, deadline=None)
@given(shape=hs.lists(hs.integers(1, 9), min_size=2, max_size=4), seed=hs.integers(0, 2**32 - 1),
       f64=hs.booleans(), ties=hs.booleans(), keepdim=hs.booleans())
def test_outer_dims_match_numpy_and_torch(shape, seed, f64, ties, keepdim):
    rng = np.random.default_rng(seed)
    a = _data(rng, tuple(shape), np.float64 if f64 else np.float32, ties)
    x, t = st.from_numpy(a), torch.from_numpy(a)
    for d in range(a.ndim - 1):
        for name in ("argmax", "argmin"):
            ours, theirs = getattr(st, name)(x, d, keepdim), getattr(torch, name)(t, d, keepdim)
            assert ours.shape == tuple(theirs.shape) and ours.stride() == theirs.stride()
            assert ours.numpy().tobytes() == theirs.numpy().tobytes()
            assert np.array_equal(ours.numpy(), getattr(np, name)(a, d, keepdims=keepdim))


def test_large_columns_match_numpy():
    rng = np.random.default_rng(1)
    for dtype in (np.float32, np.float64):
        a = _data(rng, (700, 1300), dtype, True)
        for name in ("argmax", "argmin"):
            assert np.array_equal(getattr(st, name)(st.from_numpy(a), 0).numpy(), getattr(np, name)(a, 0))


_SCRIPT = """
import zlib
import numpy as np
from strided.kernels import rows
rng = np.random.default_rng(5)
digest = 0
for dtype in (np.float32, np.float64):
    a = rng.integers(0, 5, (3, 57, 1031)).astype(dtype)
    a[rng.random(a.shape) < 0.05] = np.nan
    for largest in (True, False):
        out = np.empty((3, 1031), np.int64)
        assert rows.arg_cols()(a, out, 3, 57, 1031, largest)
        digest = zlib.crc32(out.tobytes(), digest)
print(digest)
"""


def test_both_compiled_copies_agree():
    digests = []
    for isa in ("base", "avx2"):
        env = dict(os.environ, STRIDED_NATIVE_ROWS_ISA=isa)
        done = subprocess.run([sys.executable, "-W", "ignore", "-c", _SCRIPT], env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        digests.append(done.stdout.strip())
    assert digests[0] == digests[1] and digests[0].isdigit()


def test_the_kernel_refuses_what_it_does_not_take():
    k = rows.arg_cols()
    a, out = np.zeros((2, 3, 4), np.float32), np.full((2, 4), 7, np.int64)
    assert k(a.astype(np.int32), out, 2, 3, 4, True) is False
    assert k(a, out.astype(np.int32), 2, 3, 4, True) is False
    assert k(a, out, 2, 4, 3, True) is False  # (a shape that does not fit the output)
    assert k(a, out, 0, 3, 4, True) is False
    assert (out == 7).all()
    with pytest.raises(TypeError, match="6 arguments"):
        k(a, out)
