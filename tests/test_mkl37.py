"""The optional MKL route (strided.kernels.blas_route): float32/float64 matrix products with
PyTorch's bits where MKL takes them, NumPy's (today's path) elsewhere and under
STRIDED_BLAS=openblas; MKL loaded lazily, never by ``import strided``; threads."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
import strided.nn.functional as F
from strided.kernels import blas_route

torch = pytest.importorskip("torch")

MKL = blas_route.lib() is not None
needs_mkl = pytest.mark.skipif(not MKL, reason="the mkl distribution is not installed")
SRC = os.path.join(os.path.dirname(__file__), os.pardir, "src")


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """MKL's gemm bits depend on its thread count (rows/columns split differently); strided's
    route runs MKL's SEQUENTIAL layer, so the comparisons run PyTorch on one thread (as the
    benchmarks do). test_threaded_layer_matches_torchs_threads covers the threaded case."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def bits(x: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(x)
    return x.view(f"u{x.itemsize}")


def same_bits(s: strided.Tensor, t: torch.Tensor) -> bool:
    a, b = s.detach().numpy(), t.detach().numpy()
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(bits(a), bits(b))


def operand(rng: np.random.Generator, shape: tuple[int, int], dtype: type, how: str) -> tuple:
    """The same (r, c) matrix as a strided and a torch tensor, laid out as ``how`` says: row-major,
    transposed (the transpose of a row-major one), sliced (every other column) or expanded."""
    r, c = shape
    if how == "T":
        base = rng.standard_normal((c, r)).astype(dtype)
        return strided.tensor(base).t(), torch.from_numpy(base).t()
    if how == "sliced":
        base = rng.standard_normal((r, 2 * c)).astype(dtype)
        return strided.tensor(base)[:, ::2], torch.from_numpy(base)[:, ::2]
    if how == "expanded":
        base = rng.standard_normal((1, c)).astype(dtype)
        return strided.tensor(base).expand(r, c), torch.from_numpy(base).expand(r, c)
    base = rng.standard_normal((r, c)).astype(dtype)
    return strided.tensor(base), torch.from_numpy(base)


ROUTE_SHAPES = [(256, 784, 512), (256, 512, 10), (10, 256, 512), (512, 256, 784), (256, 10, 512), (128, 64, 128),
                (8, 1, 4), (8, 3, 4), (33, 65, 17), (64, 64, 64), (9, 300, 5), (100, 7, 300)]


@needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", ROUTE_SHAPES)
def test_mm_matmul_bits_are_torchs(dtype: type, shape: tuple) -> None:
    n, k, p = shape
    rng = np.random.default_rng(n * 1000 + k * 10 + p)
    for ha in ("", "T", "sliced"):
        for hb in ("", "T", "sliced", "expanded"):
            a, ta = operand(rng, (n, k), dtype, ha)
            b, tb = operand(rng, (k, p), dtype, hb)
            want = torch.mm(ta, tb)
            assert same_bits(strided.mm(a, b), want), (ha, hb)
            assert same_bits(a @ b, want), (ha, hb)
            assert same_bits(strided.matmul(a, b), want), (ha, hb)


@needs_mkl
def test_matrix_times_its_own_transpose_is_torchs_gemm() -> None:
    rng = np.random.default_rng(1)
    for dtype in (np.float32, np.float64):
        x = rng.standard_normal((40, 30)).astype(dtype)
        s, t = strided.tensor(x), torch.from_numpy(x)
        assert same_bits(s @ s.t(), t @ t.t())
        assert same_bits(s.t() @ s, t.t() @ t)


@needs_mkl
@settings(max_examples=60, deadline=None)
@given(n=st.integers(8, 70), k=st.integers(1, 70), p=st.integers(4, 70), f64=st.booleans(),
       ha=st.sampled_from(["", "T", "sliced"]), hb=st.sampled_from(["", "T", "sliced", "expanded"]),
       seed=st.integers(0, 2**32 - 1))
def test_mm_bits_hypothesis(n: int, k: int, p: int, f64: bool, ha: str, hb: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    dtype = np.float64 if f64 else np.float32
    a, ta = operand(rng, (n, k), dtype, ha)
    b, tb = operand(rng, (k, p), dtype, hb)
    assert same_bits(a.mm(b), ta.mm(tb))


@needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batched_bits_are_torchs(dtype: type) -> None:
    rng = np.random.default_rng(2)
    for B, n, k, p in [(3, 40, 30, 20), (2, 64, 64, 64), (4, 9, 100, 8)]:
        x = rng.standard_normal((B, n, k)).astype(dtype)
        y = rng.standard_normal((B, k, p)).astype(dtype)
        sx, sy, tx, ty = strided.tensor(x), strided.tensor(y), torch.from_numpy(x), torch.from_numpy(y)
        assert same_bits(strided.bmm(sx, sy), torch.bmm(tx, ty))
        assert same_bits(sx @ sy, tx @ ty)
        assert same_bits(sx.transpose(1, 2).contiguous().transpose(1, 2) @ sy, tx @ ty)
        assert same_bits(sx @ sy[0], tx @ ty[0])  # (a broadcast batch)
        assert same_bits(sx[0] @ sy, tx[0] @ ty)


@needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_linear_and_addmm_bits_are_torchs(dtype: type) -> None:
    rng = np.random.default_rng(3)
    for n, k, m in [(256, 784, 512), (256, 512, 10), (128, 64, 128), (8, 5, 4), (50, 30, 70)]:
        x = rng.standard_normal((n, k)).astype(dtype)
        w = rng.standard_normal((m, k)).astype(dtype)
        b = rng.standard_normal(m).astype(dtype)
        sx, sw, sb = strided.tensor(x), strided.tensor(w), strided.tensor(b)
        tx, tw, tb = torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b)
        assert same_bits(F.linear(sx, sw, sb), torch.nn.functional.linear(tx, tw, tb))
        assert same_bits(F.linear(sx, sw), torch.nn.functional.linear(tx, tw))
        # a transposed input (the general path)
        xt = np.ascontiguousarray(x.T)
        assert same_bits(F.linear(strided.tensor(xt).t(), sw, sb),
                         torch.nn.functional.linear(torch.from_numpy(xt).t(), tw, tb))
        y = rng.standard_normal((k, m)).astype(dtype)
        sy, ty = strided.tensor(y), torch.from_numpy(y)
        full = rng.standard_normal((n, m)).astype(dtype)
        for inp, tinp in ((sb, tb), (strided.tensor(full), torch.from_numpy(full))):
            for beta, alpha in ((1, 1), (0.5, 2.0), (0, 1), (1, -3), (2, 0.25)):
                assert same_bits(strided.addmm(inp, sx, sy, beta=beta, alpha=alpha),
                                 torch.addmm(tinp, tx, ty, beta=beta, alpha=alpha)), (beta, alpha)


def test_outside_the_route_numpys_bits_and_torchs_values() -> None:
    """A row or column of 1, fewer than 8 rows or 4 columns, k = 0 and empty products keep
    NumPy's path (PyTorch's MKL takes other kernels there): NumPy's bits, PyTorch's values."""
    rng = np.random.default_rng(4)
    for dtype in (np.float32, np.float64):
        for n, k, p in [(1, 784, 512), (512, 784, 1), (1, 1, 1), (5, 6, 7), (100, 3, 1), (7, 40, 40), (40, 40, 3),
                        (0, 5, 9), (9, 0, 9), (9, 5, 0)]:
            x = rng.standard_normal((n, k)).astype(dtype)
            y = rng.standard_normal((k, p)).astype(dtype)
            got = (strided.tensor(x) @ strided.tensor(y)).numpy()
            assert got.shape == (n, p)
            assert np.array_equal(bits(got), bits(np.matmul(x, y))), (n, k, p)
            tol = 1e-3 if dtype is np.float32 else 1e-10  # (sums of up to 784 products of about 1)
            np.testing.assert_allclose(got, torch.from_numpy(x) @ torch.from_numpy(y), rtol=tol, atol=tol)


@needs_mkl
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_mlp_step_forward_and_gradients_are_torchs(dtype: torch.dtype) -> None:
    """An MLP's step (64, 100 -> 48 -> relu -> 10): the output and every gradient bit for bit."""
    torch.manual_seed(0)
    x = torch.randn(64, 100, dtype=dtype)
    w1, b1 = torch.randn(48, 100, dtype=dtype) * 0.1, torch.randn(48, dtype=dtype)
    w2, b2 = torch.randn(10, 48, dtype=dtype) * 0.1, torch.randn(10, dtype=dtype)
    g = torch.randn(64, 10, dtype=dtype)
    tp = [t.clone().requires_grad_(True) for t in (w1, b1, w2, b2)]
    sp = [strided.tensor(t.numpy(), requires_grad=True) for t in (w1, b1, w2, b2)]
    tout = torch.nn.functional.linear(torch.relu(torch.nn.functional.linear(x, tp[0], tp[1])), tp[2], tp[3])
    sout = F.linear(F.relu(F.linear(strided.tensor(x.numpy()), sp[0], sp[1])), sp[2], sp[3])
    assert same_bits(sout, tout)
    (tout * g).sum().backward()
    (sout * strided.tensor(g.numpy())).sum().backward()
    for s, t in zip(sp, tp, strict=True):
        assert same_bits(s.grad, t.grad)


@needs_mkl
def test_two_threads_at_once() -> None:
    rng = np.random.default_rng(5)
    pairs = [(rng.standard_normal((96, 80)).astype(np.float32), rng.standard_normal((80, 70)).astype(np.float32))
             for _ in range(2)]
    want = [torch.from_numpy(a) @ torch.from_numpy(b) for a, b in pairs]
    bad: list[int] = []

    def work(i: int) -> None:
        a, b = strided.tensor(pairs[i][0]), strided.tensor(pairs[i][1])
        for _ in range(200):
            if not same_bits(a @ b, want[i]):
                bad.append(i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad


def run_python(code: str, **env: str) -> str:
    e = {**os.environ, "PYTHONPATH": SRC, **env}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_import_does_not_load_mkl() -> None:
    out = run_python("import strided\n"
                     "a = strided.ones(3) + 1\n"
                     "print(sum('libmkl' in line for line in open('/proc/self/maps')))\n"
                     "b = strided.ones(64, 64) @ strided.ones(64, 64)\n"
                     "print(sum('libmkl_rt' in line for line in open('/proc/self/maps')) > 0)")
    first, second = out.splitlines()
    assert first == "0"
    assert second == str(MKL)


PRODUCTS = ("import numpy as np, strided, hashlib\n"
            "import strided.nn.functional as F\n"
            "from strided.kernels import blas_route\n"
            "rng = np.random.default_rng(7)\n"
            "x = rng.standard_normal((256, 784)).astype(np.float32)\n"
            "w = rng.standard_normal((512, 784)).astype(np.float32)\n"
            "b = rng.standard_normal(512).astype(np.float32)\n"
            "y = rng.standard_normal((33, 784)).astype(np.float32)\n"
            "r1 = (strided.tensor(x) @ strided.tensor(w).t()).numpy()\n"
            "r2 = (strided.tensor(y) @ strided.tensor(w).t()).numpy()\n"
            "r3 = F.linear(strided.tensor(x), strided.tensor(w), strided.tensor(b)).numpy()\n"
            "print(blas_route.lib() is not None)\n"
            "print(np.array_equal(r1, np.matmul(x, w.T)), np.array_equal(r2, np.matmul(y, w.T)),"
            " np.array_equal(r3, np.matmul(x, w.T) + b))\n"
            "print(hashlib.sha1(r1.tobytes() + r2.tobytes() + r3.tobytes()).hexdigest())\n")


def test_strided_blas_openblas_is_numpys_path() -> None:
    loaded, equal, _ = run_python(PRODUCTS, STRIDED_BLAS="openblas").splitlines()
    assert loaded == "False"
    assert equal == "True True True"


@needs_mkl
def test_sequential_is_one_thread() -> None:
    """The default (SEQUENTIAL, no OpenMP runtime loaded) gives MKL's one-thread bits."""
    runs = [run_python(PRODUCTS + "print(sum('libiomp5' in line for line in open('/proc/self/maps')))", **env)
            .splitlines() for env in ({}, {"MKL_THREADING_LAYER": "INTEL", "MKL_NUM_THREADS": "1"})]
    assert runs[0][0] == runs[1][0] == "True"
    assert runs[0][2] == runs[1][2]
    assert runs[0][3] == "0"


THREADED = ("import numpy as np, torch, strided\n"
            "torch.set_num_threads(2)\n"
            "rng = np.random.default_rng(8)\n"
            "ok = []\n"
            "for dt in (np.float32, np.float64):\n"
            "    for n, k, p in [(256, 512, 10), (256, 784, 512), (512, 256, 784), (128, 500, 128)]:\n"
            "        for ta in (0, 1):\n"
            "            for tb in (0, 1):\n"
            "                a = rng.standard_normal((k, n) if ta else (n, k)).astype(dt)\n"
            "                b = rng.standard_normal((p, k) if tb else (k, p)).astype(dt)\n"
            "                sa, sb = strided.tensor(a), strided.tensor(b)\n"
            "                xa, xb = torch.from_numpy(a), torch.from_numpy(b)\n"
            "                sa, xa = (sa.t(), xa.t()) if ta else (sa, xa)\n"
            "                sb, xb = (sb.t(), xb.t()) if tb else (sb, xb)\n"
            "                ok.append(np.array_equal((sa @ sb).numpy(), (xa @ xb).numpy()))\n"
            "print(sum(ok), len(ok))\n")


@needs_mkl
def test_threaded_layer_matches_torchs_threads() -> None:
    """With a threaded layer asked for (MKL_THREADING_LAYER, MKL_NUM_THREADS), strided's MKL
    splits the work as PyTorch's MKL does on as many threads: PyTorch's two-thread bits."""
    done, total = run_python(THREADED, MKL_THREADING_LAYER="INTEL", MKL_NUM_THREADS="2").split()
    assert done == total
