"""The compiled small products (strided.ops.linalg.matkernel: mm, bmm, mv) answer exactly what NumPy's
``np.matmul`` answers on the same views -- value, NaN payload and sign of zero -- because they
make NumPy's BLAS call; and they answer None (the Python path decides) wherever NumPy would take
another routine or the operands are unusual. Checked against torch for values too."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from blas_reference import reference_addmm, reference_matmul
from strided.ops.linalg import matkernel

rng = np.random.default_rng(7)


needs_kernel = pytest.mark.skipif(not matkernel.ready(), reason="the compiled product kernel is not built here")


def _values(shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """Values of mixed magnitude with NaN, +-inf and signed zeros among them."""
    x = rng.standard_normal(shape) * rng.choice([1e-3, 1.0, 1e3, 1e30], size=shape)
    x = x.astype(dtype)
    m = rng.random(shape)
    x[m < 0.03] = np.nan
    x[(m > 0.03) & (m < 0.05)] = np.inf
    x[(m > 0.05) & (m < 0.06)] = -np.inf
    x[(m > 0.06) & (m < 0.09)] = -0.0
    return x


def _tensor(x: np.ndarray, mode: str) -> strided.Tensor:
    """``x`` as a tensor: row-major, the transpose of a row-major one, at an offset, or with padded rows."""
    if mode == "t":
        return strided.tensor(np.ascontiguousarray(np.swapaxes(x, -1, -2))).transpose(-1, -2)
    if mode == "off":
        return strided.tensor(np.concatenate([np.ones(3, x.dtype), x.ravel()]))[3:].reshape(x.shape)
    if mode == "pad":
        return strided.tensor(np.concatenate([x, np.zeros(x.shape[:-1] + (3,), x.dtype)], axis=-1))[..., : x.shape[-1]]
    return strided.tensor(x)


def _same(t: strided.Tensor, want: np.ndarray) -> None:
    got = t._np()
    assert got.shape == want.shape and got.dtype == want.dtype
    assert t.is_contiguous()
    assert got.tobytes() == np.ascontiguousarray(want).tobytes()


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mm_is_numpys_matmul_bit_for_bit(dtype: type) -> None:
    sizes = (2, 3, 4, 5, 8, 16, 17, 33, 64)
    taken = 0
    for _ in range(400):
        m, n, p = (int(rng.choice(sizes)) for _ in range(3))
        a, b = _values((m, n), dtype), _values((n, p), dtype)
        ta, tb = _tensor(a, rng.choice(["c", "t", "off", "pad"])), _tensor(b, rng.choice(["c", "t", "off", "pad"]))
        t = matkernel.mm(ta, tb)
        if m * n * p > matkernel.LIMIT:
            assert t is None
            continue
        if t is None:
            continue  # (a layout NumPy copies first: the Python path)
        taken += 1
        want = reference_matmul(ta._np(), tb._np())  # (PyTorch's bits where the MKL route takes it)
        _same(t, want)
        assert strided.mm(ta, tb)._np().tobytes() == t._np().tobytes()
    assert taken > 300


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bmm_and_mv_are_numpys_matmul_bit_for_bit(dtype: type) -> None:
    for _ in range(300):
        bs, m, n, p = (int(rng.choice((1, 2, 3, 5, 16))) for _ in range(4))
        m, n, p = max(m, 2), max(n, 2), max(p, 2)
        a, b = _values((bs, m, n), dtype), _values((bs, n, p), dtype)
        ta, tb = _tensor(a, rng.choice(["c", "t", "off"])), _tensor(b, rng.choice(["c", "t", "off"]))
        t = matkernel.bmm(ta, tb)
        assert t is not None
        want = reference_matmul(ta._np(), tb._np())
        _same(t, want)
        mat, vec = _tensor(_values((m, n), dtype), "off"), _tensor(_values((n,), dtype), "off")
        t = matkernel.mv(mat, vec)
        assert t is not None
        with np.errstate(all="ignore"):
            want = np.matmul(mat._np(), vec._np())
        _same(t, want)


@needs_kernel
def test_values_match_torch() -> None:
    a, b = rng.standard_normal((5, 7)), rng.standard_normal((7, 3))
    for dt in (np.float32, np.float64):
        got = strided.mm(strided.tensor(a.astype(dt)), strided.tensor(b.astype(dt)).t().contiguous().t())
        want = torch.mm(torch.tensor(a.astype(dt)), torch.tensor(b.astype(dt)))
        np.testing.assert_allclose(got._np(), want.numpy(), rtol=1e-5 if dt == np.float32 else 1e-12)
        assert got.dtype.name == str(want.dtype).removeprefix("torch.")
    a3, b3 = rng.standard_normal((4, 3, 5)).astype(np.float32), rng.standard_normal((4, 5, 2)).astype(np.float32)
    np.testing.assert_allclose(strided.bmm(strided.tensor(a3), strided.tensor(b3))._np(),
                               torch.bmm(torch.tensor(a3), torch.tensor(b3)).numpy(), rtol=1e-5)
    v = rng.standard_normal(7).astype(np.float32)
    np.testing.assert_allclose(strided.mv(strided.tensor(a.astype(np.float32)), strided.tensor(v))._np(),
                               torch.mv(torch.tensor(a.astype(np.float32)), torch.tensor(v)).numpy(), rtol=1e-5)


@needs_kernel
def test_declines_what_numpy_does_otherwise() -> None:
    f = np.float32
    x = strided.tensor(_values((4, 5), f))
    # a dim of 1 (NumPy's gemv or dot), a size 0, mixed or other dtypes, a matrix times its own
    # transpose (NumPy's syrk), an element-strided layout, no tensor, wrong ranks
    assert matkernel.mm(strided.tensor(_values((1, 5), f)), strided.tensor(_values((5, 3), f))) is None
    assert matkernel.mm(x, strided.tensor(_values((5, 1), f))) is None
    assert matkernel.mm(strided.zeros(0, 5), strided.zeros(5, 3)) is None
    assert matkernel.mm(x, strided.tensor(_values((5, 3), np.float64))) is None
    assert matkernel.mm(x.to(strided.int64), x.t().to(strided.int64)) is None
    assert matkernel.mm(x, x.t()) is None and matkernel.mm(x.t(), x) is None
    assert matkernel.mm(x, x.t().contiguous()) is not None  # (other memory: gemm, as NumPy)
    assert matkernel.mm(x[:, ::2], strided.tensor(_values((3, 2), f))) is None
    assert matkernel.mm(x, np.ones((5, 3), f)) is None
    assert matkernel.mm(x, strided.tensor(_values((5,), f))) is None
    assert matkernel.bmm(strided.tensor(_values((2, 4, 5), f)), strided.tensor(_values((3, 5, 2), f))) is None
    assert matkernel.mv(x, strided.tensor(_values((4,), f))) is None
    assert matkernel.mv(x.t().contiguous().t(), strided.tensor(_values((5,), f))) is None
    big = strided.zeros(128, 128)
    assert matkernel.mm(big, big) is None  # (over LIMIT: NumPy's call, which releases the GIL)


@needs_kernel
def test_results_are_fresh_and_recorded() -> None:
    a = strided.tensor(_values((3, 4), np.float32), requires_grad=False)
    w = strided.nn.Parameter(strided.tensor(rng.standard_normal((4, 2)).astype(np.float32)))
    out = a @ w  # (a Parameter operand: the product is a plain tensor in the graph)
    assert type(out) is strided.Tensor and out.requires_grad and out.grad_fn is not None
    out.sum().backward()
    np.testing.assert_array_equal(w.grad._np(), np.broadcast_to(a._np().sum(0)[:, None], (4, 2)))
    b = strided.tensor(_values((4, 3), np.float32))
    r = strided.mm(a, b)
    assert not np.shares_memory(r._np(), a._np()) and r.stride() == (3, 1)


def _numpy_scale_add(p: np.ndarray, base: np.ndarray, beta: float, alpha: float) -> np.ndarray:
    """fused._plus_input's NumPy ops: p * alpha (unless 1), + base * beta (base for 1, none for 0)."""
    p = p.copy()
    with np.errstate(all="ignore"):
        if alpha != 1:
            np.multiply(p, np.asarray(alpha, p.dtype), out=p)
        if beta != 0:
            np.add(p, base if beta == 1 else np.multiply(base, np.asarray(beta, p.dtype)), out=p)
    return p


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scale_add_is_numpys_ops_bit_for_bit(dtype: type) -> None:
    factors = [(0, 1), (0.0, 2.5), (1, -1.5), (2, 3), (1e-50, 1e-45), (-0.0, 1), (1, 1e300), (0.1, 0.7), (1, 1)]
    uint = np.uint32 if dtype == np.float32 else np.uint64
    payload = uint(0x7FC00123) if dtype == np.float32 else uint(0x7FF8000000000123)
    done = 0
    for _ in range(60):
        m, n, p = (int(rng.choice((2, 3, 5, 16))) for _ in range(3))
        a, b, base = _values((m, n), dtype), _values((n, p), dtype), _values((m, p), dtype)
        base.view(uint)[rng.random(base.shape) < 0.2] = payload  # (NaNs of a payload of their own)
        ta, tb, tbase = strided.tensor(a), strided.tensor(b), strided.tensor(base)
        for beta, alpha in factors:
            t = matkernel.mm(ta, tb)
            before = t._np().copy()
            zero = matkernel.scale_add(t, tbase, beta, alpha)
            if zero is None:  # (both terms NaN somewhere: NumPy's call, nothing written)
                assert t._np().tobytes() == before.tobytes()
                continue
            done += 1
            want = _numpy_scale_add(before, base, beta, alpha)
            assert t._np().tobytes() == want.tobytes()
            assert zero == bool((want == 0).any())
            # (on the MKL route addmm is PyTorch's one gemm with beta, not the product then the sum)
            torchs = reference_addmm(base, a, b, beta, alpha)
            assert strided.addmm(tbase, ta, tb, beta=beta, alpha=alpha)._np().tobytes() == (
                want if torchs is None else torchs).tobytes()
    assert done > 100


@needs_kernel
def test_scale_add_declines() -> None:
    x = strided.tensor(_values((3, 3), np.float32))
    t = matkernel.mm(x, x.t().contiguous())
    before = t._np().copy()
    for inp, beta, alpha in [(x[:2], 1, 1), (x.double(), 1, 1), (x, 2**30, 1), (x, 1, True),
                             (x, float("nan"), 1), (x, 1, 1 + 0j), (x[0], 1, 1)]:
        assert matkernel.scale_add(t, inp, beta, alpha) is None
    assert t._np().tobytes() == before.tobytes()
    nan = strided.full((3, 3), float("nan"))
    t = matkernel.mm(nan, x.t().contiguous())
    assert matkernel.scale_add(t, nan, 1, 1) is None  # (both terms NaN: which one NumPy returns is its compiler's)
    addmv = strided.addmv(strided.zeros(3), x, strided.zeros(3), beta=1, alpha=2)  # (zeros: PyTorch's signs)
    want = torch.addmv(torch.zeros(3), torch.from_numpy(x._np().copy()), torch.zeros(3), beta=1, alpha=2)
    assert np.signbit(addmv._np()).tolist() == np.signbit(want.numpy()).tolist()


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bmm_small_is_bmm_loops_bits(dtype: type) -> None:
    """baddbmm's small product: the compiled bmm_loop's (PyTorch's loop) bits, inf, -0.0 and
    overflow included; an operand with a NaN is left to it (None)."""
    from strided.kernels import native
    from strided.ops.linalg import fused

    taken = 0
    for _ in range(200):
        bs, n, k, p = (int(rng.choice((1, 2, 3, 5, 7))) for _ in range(4))
        a, b = _values((bs, n, k), dtype), _values((bs, k, p), dtype)
        t = matkernel.bmm_small(_tensor(a, "off"), strided.tensor(b))
        if np.isnan(a).any() or np.isnan(b).any():
            assert t is None
            continue
        taken += 1
        want = np.empty((bs, n, p), dtype)
        if native.special() is not None:
            assert native.special().bmm_loop(a, b, want, n, k, p)
        else:
            with np.errstate(all="ignore"):
                want = fused._kernel_bmm(a, b, np.dtype(dtype))
        _same(t, want)
    assert taken > 20
    x = strided.tensor(_values((2, 3, 4), dtype))
    assert matkernel.bmm_small(x, x.transpose(1, 2)) is None  # (not row-major: the Python path)
    assert matkernel.bmm_small(strided.zeros(2, 20, 20), strided.zeros(2, 20, 20)) is None  # (400 and up: BLAS)


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_trace_is_the_python_paths_and_torchs(dtype: type, monkeypatch: pytest.MonkeyPatch) -> None:
    """trace's compiled double running sum: the Python path's bits (overflow to inf, float32
    subnormals and -0.0 included), NaN sums left to it; and PyTorch's values."""
    cases = []
    for _ in range(150):
        r, c = int(rng.integers(1, 70)), int(rng.integers(1, 70))
        x = (rng.standard_normal((r, c)) * rng.choice([1e-40, 1.0, 1e38, 1e300], size=(r, c))).astype(dtype)
        x[rng.random((r, c)) < 0.05] = -0.0
        t = strided.tensor(x)
        cases += [t, t.t()] + ([t[1:, ::2]] if r > 1 and c > 1 else [])
    fast = [(c.trace(), matkernel.trace(c)) for c in cases]
    assert sum(m is not None for _, m in fast) > 100
    for c, (f, _) in zip(cases, fast):
        tt = torch.from_numpy(np.ascontiguousarray(c._np())).trace()
        assert f.shape == () and f.dtype.name == str(tt.dtype).removeprefix("torch.")
        assert f._np().tobytes() == tt.numpy().tobytes() or np.isclose(f.item(), tt.item(), rtol=1e-12)
    assert matkernel.trace(strided.full((3, 3), float("nan"))) is None
    assert matkernel.trace(strided.ones(3, 3, dtype=strided.int64)) is None
    assert matkernel.trace(strided.ones(1025, 1025)).item() == 1025.0  # (a long diagonal too: the same running sum)
    matkernel.switch_off(monkeypatch.setattr)
    for c, (f, _) in zip(cases, fast):
        assert c.trace()._np().tobytes() == f._np().tobytes()


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_addr_is_the_python_paths_and_torchs(dtype: type, monkeypatch: pytest.MonkeyPatch) -> None:
    """addr's compiled path: the Python path's bits (NaN, inf, -0.0, a beta that rounds to 0,
    alpha 0), and PyTorch's bits where no result is NaN; two NaN operands in one operation (beta
    0) or a NaN result (an input term) left to the Python path."""
    factors = [(0, 1), (1, 1), (1, -1.5), (2, 3), (1e-50, 1e-45), (1e-300, 0), (0.1, 0.7), (-0.0, 2.0)]
    cases = []
    for _ in range(40):
        m, n = int(rng.integers(2, 20)), int(rng.integers(2, 20))
        vals = [_values(s, dtype) for s in ((m, n), (m,), (n,))]
        cases += [(vals, beta, alpha) for beta, alpha in factors]
    args = [(strided.tensor(i), _tensor(x, "off"), strided.tensor(y), beta, alpha) for (i, x, y), beta, alpha in cases]
    fast = [strided.addr(i, x, y, beta=beta, alpha=alpha) for i, x, y, beta, alpha in args]
    answers = [matkernel.addr(*a) is not None for a in args]
    assert sum(answers) > len(args) // 3
    for ((i, x, y), beta, alpha), f, answered in zip(cases, fast, answers):
        nan = np.isnan(f._np()).any()
        assert answered or nan or (beta != 0 and abs(beta) < 1e-45 and dtype == np.float32)
        if nan:
            continue  # (which NaN: see tests/test_addr_torch_bits.py)
        t = torch.addr(torch.from_numpy(i), torch.from_numpy(x), torch.from_numpy(y), beta=beta, alpha=alpha)
        assert f._np().tobytes() == t.numpy().tobytes(), (beta, alpha)
    matkernel.switch_off(monkeypatch.setattr)
    for a, f in zip(args, fast):
        assert strided.addr(a[0], a[1], a[2], beta=a[3], alpha=a[4])._np().tobytes() == f._np().tobytes()


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dot_is_numpys_dot_bit_for_bit(dtype: type) -> None:
    """dot's compiled entry: np.dot's bits (its BLAS dot summed into a double from +0.0: an all
    -0.0 dot is +0.0), inf and NaN included; a Parameter is left to the caller's path."""
    for _ in range(300):
        n = int(rng.integers(1, 200))
        x, y = _values((n,), dtype), _values((n,), dtype)
        if rng.random() < 0.1:
            x[:] = -0.0
        t = matkernel.dot(_tensor(x, "off"), strided.tensor(y))
        with np.errstate(all="ignore"):
            want = np.asarray(np.dot(x, y))
        assert t is not None and t.shape == () and t._np().tobytes() == want.tobytes()
    v = strided.ones(3)
    assert matkernel.dot(strided.nn.Parameter(v), v) is None
    assert matkernel.dot(v, strided.ones(4)) is None and matkernel.dot(v, v.double()) is None
    assert matkernel.dot(strided.ones(6)[::2], v) is None


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_addbmm_is_the_python_paths_and_torchs(dtype: type, monkeypatch: pytest.MonkeyPatch) -> None:
    """addbmm's compiled path: the Python fast path's bits (NaN, inf, -0.0, factors that round to
    0 or 1 in float32, a batch of one), strides and dtype; PyTorch's values on plain finite calls;
    two NaN operands in one add, other layouts and alpha 0 left to the Python path."""
    factors = [(0, 1), (1, 1), (0.5, 1), (1, -1.5), (2, 3), (1e-50, 1e-45), (1 + 1e-12, 1), (-0.0, 2.0), (1, 0)]
    cases = []
    for _ in range(30):
        b, m, n, p = (int(x) for x in rng.integers(2, 12, 4))
        b = 1 if rng.random() < 0.2 else b
        clean = rng.random() < 0.4  # (no NaN or inf: most calls are the compiled one's)
        vals = [rng.standard_normal(s).astype(dtype) if clean else _values(s, dtype)
                for s in ((m, p), (b, m, n), (b, n, p))]
        cases += [(vals, beta, alpha) for beta, alpha in factors]
    args = [(strided.tensor(i), _tensor(x, "off"), strided.tensor(y), beta, alpha) for (i, x, y), beta, alpha in cases]
    args += [(strided.tensor(i), _tensor(x, "t"), strided.tensor(y), 1, 1) for (i, x, y), _, _ in cases[::9]]
    args += [(_tensor(i, "t"), strided.tensor(x), strided.tensor(y), 0.5, 1) for (i, x, y), _, _ in cases[::9]]
    fast = [strided.addbmm(i, x, y, beta=beta, alpha=alpha) for i, x, y, beta, alpha in args]
    taken = [matkernel.addbmm(*a) is not None for a in args]
    assert sum(taken) > len(cases) // 3
    assert not any(taken[len(cases):])  # (a transposed operand or input: not the compiled path's)
    assert not any(t for t, (_, _, _, _, alpha) in zip(taken, args) if alpha == 0)
    for ((i, x, y), beta, alpha), f in zip(cases, fast):
        if alpha != 1 or beta != 1 or not np.isfinite(f._np()).all():
            continue  # (PyTorch's values for plain calls; its rounding of the scaled sums differs)
        t = torch.addbmm(torch.from_numpy(i), torch.from_numpy(x), torch.from_numpy(y))
        tol = 1e-4 if dtype == np.float32 else 1e-11
        np.testing.assert_allclose(f._np(), t.numpy(), rtol=tol, atol=tol * np.abs(t.numpy()).max())
    matkernel.switch_off(monkeypatch.setattr)
    for a, f in zip(args, fast):
        want = strided.addbmm(a[0], a[1], a[2], beta=a[3], alpha=a[4])
        assert want.stride() == f.stride() and want.dtype == f.dtype and want.shape == f.shape
        assert want._np().tobytes() == f._np().tobytes()


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_outer_is_the_python_paths_and_torchs(dtype: type, monkeypatch: pytest.MonkeyPatch) -> None:
    """outer's compiled entry: the Python fast path's bits (inf, -0.0, overflow, underflow), strides
    and dtype, sizes from 1 and offsets; PyTorch's values; a NaN, a stepped vector, mixed dtypes and
    more than LIMIT products left to the Python path."""
    cases = []
    for _ in range(60):
        m, q = int(rng.integers(1, 300)), int(rng.integers(1, 300))
        x = (rng.standard_normal(m) * rng.choice([1e-30, 1.0, 1e30], m)).astype(dtype)
        y = (rng.standard_normal(q) * rng.choice([1e-30, 1.0, 1e30], q)).astype(dtype)
        x[rng.random(m) < 0.05] = -0.0
        y[rng.random(q) < 0.05] = np.inf
        cases.append((x, y))
    args = [(_tensor(x, "off"), strided.tensor(y)) for x, y in cases]
    fast = [strided.outer(a, b) for a, b in args]
    assert all(matkernel.outer(a, b) is not None for a, b in args)
    for (x, y), f in zip(cases, fast):
        t = torch.outer(torch.from_numpy(x), torch.from_numpy(y))
        assert f.shape == tuple(t.shape) and f.stride() == t.stride()
        assert f._np().tobytes() == t.numpy().tobytes()  # (one IEEE product each: torch's bits too)
    v = strided.tensor(np.array([1.0, np.nan, 2.0], dtype))
    w = strided.tensor(np.arange(6, dtype=dtype))
    assert matkernel.outer(v, w) is None and matkernel.outer(w, v) is None
    assert matkernel.outer(w[::2], w) is None and matkernel.outer(w, w.double() if dtype == np.float32 else w.float()) is None
    assert matkernel.outer(strided.ones(600, dtype=strided.float32), strided.ones(600, dtype=strided.float32)) is None
    assert matkernel.outer(strided.ones(2, 3), w) is None
    matkernel.switch_off(monkeypatch.setattr)
    for (a, b), f in zip(args, fast):
        want = strided.outer(a, b)
        assert want.stride() == f.stride() and want.dtype == f.dtype and want._np().tobytes() == f._np().tobytes()


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scale_add_other_2d_layouts_bit_for_bit(dtype: type) -> None:
    """A 2-D input of another layout (transposed, sliced, expanded; shapes across the kernel's
    64-element tiles) takes the tiled pass: NumPy's operations' bits, NaN payloads included, or
    None with nothing written where an element's two terms are both NaN."""
    factors = [(0, 1), (1, -1.5), (2, 3), (-0.0, 1), (0.1, 0.7), (1, 1)]
    uint = np.uint32 if dtype == np.float32 else np.uint64
    payload = uint(0x7FC00123) if dtype == np.float32 else uint(0x7FF8000000000123)
    done = declined = 0
    for m, k, n in ((3, 2, 5), (70, 3, 130), (64, 4, 65)):
        a, b = _values((m, k), dtype), _values((k, n), dtype)
        a.view(uint)[0, 0] = payload  # (a NaN product row: the paired NaN pass runs)
        ta, tb = strided.tensor(a), strided.tensor(b)
        wide = _values((2 * m, n + 3), dtype)
        wide.view(uint)[rng.random(wide.shape) < 0.1] = payload
        inputs = (strided.tensor(np.ascontiguousarray(wide[:n, :m])).t(),
                  strided.tensor(wide)[::2, 1 : n + 1], strided.tensor(wide[0, :n]).expand(m, n))
        for inp in inputs:
            assert inp.stride() != (n, 1)
            base = inp._np().copy()
            for beta, alpha in factors:
                t = matkernel.mm(ta, tb) if m * k * n < 4096 else strided.tensor(a @ b)
                before = t._np().copy()
                zero = matkernel.scale_add(t, inp, beta, alpha)
                if zero is None:
                    assert t._np().tobytes() == before.tobytes()
                    declined += 1
                    continue
                done += 1
                want = _numpy_scale_add(before, base, beta, alpha)
                assert t._np().tobytes() == want.tobytes()
                assert zero == bool((want == 0).any())
    assert done > 20 and declined > 0
