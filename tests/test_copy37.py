"""The compiled copy kernel's 2-d transposes (issue 23, copy37) against NumPy's copy, bytes compared.

``blocked.copy_into(dest, source, min_bytes=1)`` forces the compiled kernel
(``strided.kernels._copykernel``) at every size, so the register-block edges (sizes not a
multiple of 16, 1 x n, n x 1), the cache-line heads (sources and destinations one element past a
line), steps and negative strides all meet it on small inputs; the large square transposes (1 MB and
more, the tiles of ``plane_z``) run in a subprocess with the AVX-512 blocks and again with the SSE
ones (``STRIDED_NATIVE_COPY_ISA=sse``), so a crash there fails one test instead of the run.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from strided.kernels import blocked, native

pytestmark = pytest.mark.skipif(native.kernel() is None, reason="compiled copy kernel not built")

DTYPES = ["int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128"]


def _source(shape: tuple[int, int], dtype: str, seed: int = 0) -> np.ndarray:
    """Distinct bit patterns per element (so a misplaced element cannot compare equal)."""
    n = shape[0] * shape[1]
    size = np.dtype(dtype).itemsize
    raw = np.random.default_rng(seed).integers(0, 256, n * size, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def _check(source: np.ndarray, dest: np.ndarray) -> None:
    want = np.empty_like(dest)
    np.copyto(want, source, casting="unsafe")
    dest[...] = np.zeros((), dest.dtype)
    blocked.copy_into(dest, source, min_bytes=1)
    assert dest.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (1, 37), (37, 1), (16, 16), (17, 15), (33, 65), (64, 64),
                                   (100, 3), (3, 100), (129, 257), (256, 40), (31, 512)])
def test_transpose_matches_numpy(shape: tuple[int, int], dtype: str) -> None:
    a = _source(shape, dtype)
    _check(a.T, np.empty(a.T.shape, dtype))


@pytest.mark.parametrize("dtype", ["int8", "int16", "float32", "float64", "complex128"])
@pytest.mark.parametrize("head", [0, 1, 3, 5])
def test_unaligned_starts_and_offsets(head: int, dtype: str) -> None:
    """Source and destination one to five elements past a cache line (the kernel's line heads)."""
    base = _source((70, 90), dtype, seed=head)
    src = _source((80, 100), dtype, seed=head + 9).T[head:head + 90, head:head + 70]  # (90, 70), offset view
    out = np.zeros(90 * 70 + head, dtype)[head:].reshape(90, 70)
    _check(src, out)
    _check(base.T, np.zeros(90 * 70 + head + 1, dtype)[head + 1:].reshape(90, 70))


@pytest.mark.parametrize("dtype", ["int8", "int16", "float32", "float64"])
def test_negative_steps_and_strided(dtype: str) -> None:
    a = _source((96, 80), dtype)
    _check(a.T[::-1], np.empty((80, 96), dtype))
    _check(a.T[:, ::-1], np.empty((80, 96), dtype))
    _check(a.T[::2, ::3], np.empty((40, 32), dtype))
    big = np.zeros((80, 192), dtype)
    _check(a.T, big[:, ::2])  # a stepped destination
    _check(a.T, big[::-1, 96:])  # a destination running backwards over its rows


def test_small_transposes_take_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks above meet the compiled kernel, not NumPy's copy (min_bytes=1 forces it)."""
    calls = []
    real = native.copy
    monkeypatch.setattr(native, "copy", lambda *args: (calls.append(1), real(*args))[1])
    a = _source((17, 33), "float32")
    _check(a.T, np.empty((33, 17), np.float32))
    assert calls


def test_zero_size_and_0d() -> None:
    for shape in [(0, 5), (5, 0), (0, 0)]:
        a = np.zeros(shape, np.float32)
        out = np.empty(a.T.shape, np.float32)
        blocked.copy_into(out, a.T, min_bytes=1)
        assert out.shape == a.T.shape
    zero_d = np.empty((), np.float64)
    blocked.copy_into(zero_d, np.array(2.5), min_bytes=1)
    assert zero_d == 2.5


@settings(max_examples=60, deadline=None)
@given(n=hs.integers(1, 70), m=hs.integers(1, 70), dtype=hs.sampled_from(DTYPES),
       flip=hs.booleans(), skip=hs.integers(0, 3))
def test_transpose_hypothesis(n: int, m: int, dtype: str, flip: bool, skip: int) -> None:
    a = _source((n + skip, m), dtype, seed=n * 101 + m)[skip:]
    src = a.T[:, ::-1] if flip else a.T
    _check(src, np.empty(src.shape, dtype))


_LARGE = """
import numpy as np
from strided.kernels import blocked
shapes = [(1024, 1024), (1000, 1000), (512, 512), (2048, 512), (256, 4096), (4096, 256), (1040, 1008)]
for dtype in ["int8", "int16", "float32", "float64", "complex64"]:
    for shape in shapes:
        raw = np.random.default_rng(1).integers(0, 256, shape[0] * shape[1] * np.dtype(dtype).itemsize, dtype=np.uint8)
        a = raw.view(dtype).reshape(shape)
        for head in (0, 1):
            out = np.zeros(a.size + head, dtype)[head:].reshape(a.T.shape)
            blocked.copy_into(out, a.T[:, :], min_bytes=1)
            assert out.tobytes() == np.ascontiguousarray(a.T).tobytes(), (dtype, shape, head)
print("ok")
"""


@pytest.mark.parametrize("isa", ["default", "sse"])
def test_large_transposes_in_subprocess(isa: str) -> None:
    env = dict(os.environ)
    if isa == "sse":
        env["STRIDED_NATIVE_COPY_ISA"] = "sse"
    run = subprocess.run([sys.executable, "-c", _LARGE], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "ok"
