"""The MKL LAPACK route's float64 getrf against PyTorch where MKL does not take its AVX-512 path
(measured on an AMD EPYC Zen 4 with AVX-512: PyTorch's capability "AVX512", MKL's code path
"Intel(R) Architecture processors"). MKL's sequential layer (the route's) and its GNU-threaded
one (PyTorch's, on one thread) block dgetrf at some of 65, 73, ..., 145 rows otherwise: a last-bit
difference (1e-16 relative). The cause is the threading layer, not the ISA: the route on
``MKL_THREADING_LAYER=GNU`` (a subprocess) gives PyTorch's bits at those sizes."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import strided
from strided.ops.linalg import mkl_lapack as M

torch = pytest.importorskip("torch")

needs_mkl = pytest.mark.skipif(M.mkl_library() is None, reason="no MKL (pip mkl) installed, or switched off")


def _matrix(n: int) -> np.ndarray:
    rng = np.random.default_rng(n)
    return rng.standard_normal((n, n)) / np.sqrt(n) * 0.5 + np.eye(n)


def _results(lib, n: int) -> list[np.ndarray]:
    a = _matrix(n)
    b = np.random.default_rng(n + 1).standard_normal((n, 3))
    t = lib.tensor(a) if lib is strided else torch.from_numpy(a)
    tb = lib.tensor(b) if lib is strided else torch.from_numpy(b)
    return [np.asarray(x.numpy()) for x in (lib.linalg.inv(t), lib.linalg.solve(t, tb), lib.linalg.det(t),
                                             lib.linalg.inv(t.mT))]


@needs_mkl
def test_code_path_is_mkl_dispatch() -> None:
    path = M.code_path()
    assert isinstance(path, str) and "processors" in path
    env = dict(os.environ, STRIDED_BLAS="openblas")
    out = subprocess.run([sys.executable, "-c", "from strided.ops.linalg import mkl_lapack as M; print(M.code_path())"],
                         env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "None"


@needs_mkl
@pytest.mark.parametrize("n", [65, 72, 73, 80, 96, 97, 113, 121, 128, 129, 145, 146])
def test_float64_getrf_route_vs_torch(n, torch_one_thread) -> None:
    """Bits outside 65 + 8j rows (and everywhere on MKL's AVX-512 path); within 1e-14 of the
    largest element inside them, where MKL is elsewhere."""
    exact = n % 8 != 1 or n > 145 or "AVX-512" in M.code_path()
    for got, want in zip(_results(strided, n), _results(torch, n)):
        assert got.shape == want.shape and got.dtype == want.dtype
        if exact:
            assert got.tobytes() == want.tobytes()
        else:
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-14 * float(np.abs(want).max()))


_CHILD = """
import sys, numpy as np, torch, strided
sys.path.insert(0, {tests!r})
from test_fixlapack41 import _results
torch.set_num_threads(1)
for n in (65, 97, 113, 121, 129):
    for got, want in zip(_results(strided, n), _results(torch, n)):
        assert got.tobytes() == want.tobytes(), n
print("same")
"""


@needs_mkl
def test_gnu_threading_layer_gives_torchs_bits() -> None:
    """The measured cause: the same MKL on its GNU-threaded layer (PyTorch's) gives PyTorch's bits at
    the sizes where the sequential layer differs on this CPU."""
    env = dict(os.environ, MKL_THREADING_LAYER="GNU", OMP_NUM_THREADS="1")
    code = _CHILD.format(tests=os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "same", r.stderr[-2000:]
