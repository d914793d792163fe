"""float32 ``sigmoid`` and ``silu`` against PyTorch bit for bit (:mod:`strided.kernels.sleef`:
SLEEF's expf where PyTorch's loop is vectorized, the C library's where it is not): every 1-D
length 0..70 (each tail of the 32-element step), the special inputs (NaN of both signs and with
payloads, +-inf, +-0.0, the cut-offs at -104 and 100, results in the subnormals), permuted,
sliced, expanded and in-place inputs, a size past PyTorch's parallel grain with its thread count
matched, both of the kernel's forms (AVX-512 and plain C), the gradients, and the NumPy path
without the kernel (NumPy's bits, documented as not PyTorch's: within a few ulps here).
"""

from __future__ import annotations

import ctypes
import ctypes.util

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native, sleef

K = native.sleef()
pytestmark = [pytest.mark.usefixtures("vml_route_off"), pytest.mark.skipif(K is None, reason="the compiled kernel is not built"),
              pytest.mark.usefixtures("torch_threads_as_assumed")]  # (conftest.py)

_OPS = {
    "sigmoid": (lambda t: t.sigmoid(), torch.sigmoid, sleef.SIGMOID),
    "silu": (strided.nn.functional.silu, torch.nn.functional.silu, sleef.SILU),
    # (gelu: oneDNN's kernel on a contiguous input, GeluKernelImpl's loop on the others)
    "gelu": (strided.nn.functional.gelu, torch.nn.functional.gelu, sleef.GELU),
}
_SPECIAL = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, -104.0, -103.99, -103.97, -100.0, -95.0, -88.7,
                     -87.3, 88.72, 88.73, 89.0, 100.0, 100.0001, -104.0001, 1e-30, -1e-30, 1e-45, -1e-45, 3.4e38,
                     -3.4e38, 0.5, -0.5, 20.0, -20.0], np.float32)


def _values(n: int, seed: int) -> np.ndarray:
    r = np.random.default_rng(seed)
    x = r.uniform(-105, 101, n).astype(np.float32)
    x[: min(n, len(_SPECIAL))] = _SPECIAL[: min(n, len(_SPECIAL))]
    bits = x.view(np.uint32)
    if n > 40:  # NaN payloads, subnormal inputs
        bits[30:34] = [0x7FC00123, 0xFFC00456, 0x7F800001, 0x00000005]
    return r.permutation(x)


def _same(got: strided.Tensor, want: torch.Tensor) -> None:
    g, w = got.numpy(), want.numpy()
    assert g.shape == w.shape and got.stride() == want.stride()
    bad = np.nonzero(g.view(np.uint32) != w.view(np.uint32))
    assert not bad[0].size, f"{bad[0].size} elements differ, first at {bad[0][:4]}: {g[bad][:4]} vs {w[bad][:4]}"


@pytest.mark.parametrize("name", list(_OPS))
def test_every_length_and_the_special_inputs(name: str) -> None:
    ours, theirs, _ = _OPS[name]
    for n in range(71):
        for seed in range(3):
            x = _values(n, seed)
            _same(ours(strided.from_numpy(x.copy())), theirs(torch.from_numpy(x)))


@pytest.mark.parametrize("name", list(_OPS))
def test_layouts(name: str) -> None:
    ours, theirs, _ = _OPS[name]
    base = _values(64 * 100, 7).reshape(64, 100)
    s, t = strided.from_numpy(base.copy()), torch.from_numpy(base)
    for view in (lambda a: a.t(), lambda a: a[:, ::2], lambda a: a[:, :40], lambda a: a[:, 3:70].t(),
                 lambda a: a[::3, 5:], lambda a: a[5].reshape(1, 100).expand(7, 100),
                 lambda a: a[:, 7:8].expand(64, 45), lambda a: a.reshape(64, 25, 4).permute(2, 0, 1),
                 lambda a: a.reshape(8, 8, 100)[:, 1:7, 3:]):
        _same(ours(view(s)), theirs(view(t)))


def test_in_place_sigmoid_on_views() -> None:
    base = _values(64 * 100, 8).reshape(64, 100)
    for view in (lambda a: a, lambda a: a[:, :40], lambda a: a[:, ::2], lambda a: a.t()[3:50]):
        s, t = strided.from_numpy(base.copy()), torch.from_numpy(base.copy())
        view(s).sigmoid_()
        view(t).sigmoid_()
        _same(s, t)


@pytest.mark.parametrize("name", list(_OPS))
def test_past_the_parallel_grain(name: str) -> None:
    ours, theirs, _ = _OPS[name]
    for n in (16385, 20000, 32768, 100003, 65541):  # (gelu's own grain past 16384)
        x = _values(n, n)
        _same(ours(strided.from_numpy(x.copy())[::2]), theirs(torch.from_numpy(x)[::2]))
        _same(ours(strided.from_numpy(x.copy())), theirs(torch.from_numpy(x)))
    x = _values(300 * 333, 3).reshape(300, 333)
    _same(ours(strided.from_numpy(x.copy())[:, 1:]), theirs(torch.from_numpy(x)[:, 1:]))


@pytest.mark.parametrize("op", [sleef.SIGMOID, sleef.SILU, sleef.GELU])
def test_both_forms_agree(op: int) -> None:
    """The plain C form (fmaf) and the AVX-512 form give the same bits, element by element, in
    both loops; the plain form is checked against PyTorch itself too."""
    x = _values(50000, 11)
    plain = sleef.torch_loop(x, op, form=0)
    if K.run(x, np.empty_like(x), op, 0, 0, -1, 1):
        assert sleef.torch_loop(x, op, form=1).tobytes() == plain.tobytes()
    for st in (0, -1):  # each loop throughout
        a, b = np.empty_like(x), np.empty_like(x)
        K.run(x, a, op, 0, 0, st, 0)
        if K.run(x, b, op, 0, 0, st, 1):
            assert a.tobytes() == b.tobytes()
    torch_fn = _OPS[{sleef.SIGMOID: "sigmoid", sleef.SILU: "silu", sleef.GELU: "gelu"}[op]][1]
    with torch.backends.mkldnn.flags(enabled=False):  # (gelu: PyTorch's own loop, not oneDNN's)
        assert plain.tobytes() == torch_fn(torch.from_numpy(x)).numpy().tobytes()


@pytest.mark.parametrize("op", [sleef.SIGMOID, sleef.SILU, sleef.TANH, sleef.LIBM_EXP])
def test_the_interleaved_loops_every_length_and_lane(op: int) -> None:
    """sigmoid/silu (64 elements an iteration), tanh and the C library's expf (32) run several
    vectors side by side in the AVX-512 form, then one vector at a time, then the tail: at every
    length 0..200 and with the special inputs moved through every lane of the wide iteration (expf's
    |x| >= 88 and NaN lanes: its one-vector steps), the same bits as the plain C form; sigmoid/silu
    in PyTorch's loop (vectorized and scalar parts) PyTorch's bits."""
    base = _values(400, 21)
    for n in range(201):
        x = np.roll(base, n)[:n].copy()
        a, b = np.empty_like(x), np.empty_like(x)
        K.run(x, a, op, 0, 0, -1, 0)
        if K.run(x, b, op, 0, 0, -1, 1):
            assert a.tobytes() == b.tobytes(), n
        if op in (sleef.SIGMOID, sleef.SILU):  # (PyTorch's own loop: its vectorized and scalar parts)
            want = (torch.sigmoid if op == sleef.SIGMOID else torch.nn.functional.silu)(torch.from_numpy(x))
            assert sleef.torch_loop(x, op).tobytes() == want.numpy().tobytes(), n


@pytest.mark.skipif(K is None or K.capability() != 16, reason="oneDNN's AVX-512 gelu: an AVX-512 CPU")
def test_onednn_gelu_over_float32_bit_patterns() -> None:
    """A contiguous float32 gelu is oneDNN's gelu_erf in PyTorch: op GELU_ONEDNN in both forms
    against torch over every 4099th float32 bit pattern (NaN, inf, subnormal, each of the 25
    polynomials' intervals, the bound past which erf is 1) and every tail length 2..40."""
    x = np.arange(0, 1 << 32, 4099, dtype=np.uint64).astype(np.uint32).view(np.float32)
    want = torch.nn.functional.gelu(torch.from_numpy(x)).numpy()
    for form in (0, 1):
        got = np.empty_like(x)
        assert K.run(x, got, sleef.GELU_ONEDNN, 0, 0, -1, form)
        assert got.tobytes() == want.tobytes()
    for n in range(2, 41):
        y = _values(n, n)
        _same(strided.nn.functional.gelu(strided.from_numpy(y)), torch.nn.functional.gelu(torch.from_numpy(y)))


def test_sleef_expf_over_its_range() -> None:
    """SLEEF's expf alone (op 0) in both forms over -105..101 (subnormal results, the cut-offs)."""
    x = np.concatenate([_SPECIAL, np.linspace(-105, 101, 200001, dtype=np.float32)])
    a, b = np.empty_like(x), np.empty_like(x)
    K.run(x, a, sleef.EXP, 0, 0, -1, 0)
    if K.run(x, b, sleef.EXP, 0, 0, -1, 1):
        assert a.tobytes() == b.tobytes()
    sub = (a > 0) & (a < np.finfo(np.float32).tiny)
    assert sub.sum() > 1000
    assert (a[x < -104] == 0).all() and (a[x > 100] == np.inf).all()
    # within an ulp of the exact value (float64 exp), as SLEEF's u10 promises
    fine = np.isfinite(x) & (x > -87) & (x < 88)
    exact = np.exp(x.astype(np.float64), where=fine, out=np.zeros(len(x)))
    ulp = np.spacing(np.abs(a[fine]).astype(np.float32)).astype(np.float64)
    assert (np.abs(a[fine] - exact[fine]) <= ulp).all()


@pytest.mark.parametrize("name", ["sigmoid", "silu"])  # (gelu's backward: tests/test_native_gelu.py)
def test_gradients(name: str) -> None:
    ours, theirs, _ = _OPS[name]
    x = _values(100, 5)
    x[~np.isfinite(x)] = 1.0
    s = strided.from_numpy(x.copy()).requires_grad_()
    t = torch.from_numpy(x.copy()).requires_grad_()
    ys, yt = ours(s), theirs(t)
    _same(ys.detach(), yt.detach())
    ys.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=2e-6, atol=1e-30)


@pytest.mark.parametrize("name", ["sigmoid", "silu"])
def test_without_the_kernel_numpy_bits(name: str) -> None:
    """The NumPy path (no compiled kernel): NumPy's formula, a few ulps from PyTorch's."""
    ours, theirs, _ = _OPS[name]
    x = np.random.default_rng(4).uniform(-30, 30, 1000).astype(np.float32)
    with native.disabled():
        got = ours(strided.from_numpy(x.copy())).numpy()
    e = np.exp(-x)
    want = np.float32(1) / (np.float32(1) + e) if name == "sigmoid" else x / (np.float32(1) + e)
    assert got.tobytes() == want.tobytes()
    np.testing.assert_allclose(got, theirs(torch.from_numpy(x)).numpy(), rtol=4e-7, atol=1e-38)


def test_arguments() -> None:
    x = np.ones(8, np.float32)
    with pytest.raises(ValueError, match="float32"):
        K.run(x.astype(np.float64), np.empty(8), 1, 0, 0, 32, -1)
    with pytest.raises(ValueError, match="one length"):
        K.run(x, np.empty(7, np.float32), 1, 0, 0, 32, -1)
    b = np.ones(9, np.float32)
    with pytest.raises(ValueError, match="overlaps"):
        K.run(b[1:], b[:8], 1, 0, 0, 32, -1)
    with pytest.raises(ValueError, match="op must be"):
        K.run(x, x, 99, 0, 0, 32, -1)  # (past the last op code: ELU, 8, is the last)
    with pytest.raises(ValueError, match="op must be"):  # (float32's own ops, gelu's)
        K.run_d(x.astype(np.float64), np.empty(8), 5, 0, 0, 16, -1)
    with pytest.raises(TypeError, match="7 or 9 arguments"):
        K.run(x, x, 1)
    assert K.capability() in (0, 8, 16)
    assert sleef.step() in (0, 16, 32)


# ---------------------------------------------------------------- exp: the C library's expf

_LIBM = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
_LIBM.expf.restype = ctypes.c_float
_LIBM.expf.argtypes = [ctypes.c_float]


def _libm_expf(v: np.ndarray) -> np.ndarray:
    return np.array([_LIBM.expf(float(e)) for e in v.reshape(-1)], np.float32).reshape(v.shape)


def _spread(count: int, seed: int) -> np.ndarray:
    """Every sign, exponent and mantissa region, and the special inputs."""
    bits = np.random.default_rng(seed).integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([_SPECIAL, bits.view(np.float32)])


def test_exp_is_the_c_librarys_expf() -> None:
    x = _spread(40000, 12)
    want = _libm_expf(x)
    got = strided.from_numpy(x.copy()).exp().numpy()
    assert got.tobytes() == want.tobytes()
    a, b = np.empty_like(x), np.empty_like(x)
    K.run(x, a, sleef.LIBM_EXP, 0, 0, -1, 0)  # the plain loop of expf calls
    assert a.tobytes() == want.tobytes()
    if K.run(x, b, sleef.LIBM_EXP, 0, 0, -1, 1):  # the AVX-512 form, every tail length
        assert b.tobytes() == want.tobytes()
        for n in range(40):
            c = np.empty(n, np.float32)
            K.run(x[:n].copy(), c, sleef.LIBM_EXP, 0, 0, -1, 1)
            assert c.tobytes() == want[:n].tobytes()


def test_exp_layouts_in_place_out_and_integers() -> None:
    base = _values(64 * 100, 13).reshape(64, 100)
    want = _libm_expf(base)
    s, w = strided.from_numpy(base.copy()), strided.from_numpy(want)
    for view in (lambda a: a, lambda a: a.t(), lambda a: a[:, ::2], lambda a: a[:, 3:70].t(),
                 lambda a: a[5].reshape(1, 100).expand(7, 100)):
        got = view(s).exp()
        assert np.array_equal(got.numpy().view(np.uint32), view(w).numpy().view(np.uint32))
        assert got.stride() == view(torch.from_numpy(base)).exp().stride()
    s2 = strided.from_numpy(base.copy())
    s2[:, ::3].exp_()
    expect = base.copy()
    expect[:, ::3] = want[:, ::3]
    assert s2.numpy().tobytes() == expect.tobytes()
    o = strided.empty(64, 100)
    strided.exp(s, out=o)
    assert o.numpy().tobytes() == want.tobytes()
    i = np.arange(-90, 90, dtype=np.int64)
    assert strided.from_numpy(i).exp().numpy().tobytes() == _libm_expf(i.astype(np.float32)).tobytes()


def test_exp_in_place_keeps_the_special_lanes_inputs() -> None:
    """In place (x.exp_()), the AVX-512 form's lanes past |x| >= 88 (results in the subnormals,
    overflow, NaN) are the C library's expf of their input, not of the vector result already
    stored over it (that gave exp(0) = 1.0 for exp(-100))."""
    x = _spread(4000, 18)
    x[:64] = np.linspace(-104, -86, 64)
    want = _libm_expf(x)
    s = strided.from_numpy(x.copy())
    s.exp_()
    assert s.numpy().tobytes() == want.tobytes()
    b = x.copy()
    K.run(b, b, sleef.LIBM_EXP, 0, 0, -1, -1)
    assert b.tobytes() == want.tobytes()


def test_exp_and_tanh_kept_layouts_past_the_copy_threshold() -> None:
    """A result laid out as a permuted input (dense in another dim order) is computed in its own
    memory order, the input read through the blocked copy where it is laid out otherwise: the
    same bits as the row-major computation, PyTorch's strides, in place and into out= alike."""
    base = _values(3 * 160 * 150, 19).reshape(3, 160, 150)
    base[0, :2] = np.linspace(-104, -86, 300).reshape(2, 150)  # (special lanes in every layout)
    want = {"exp": _libm_expf(base), "tanh": strided.from_numpy(base.copy()).tanh().numpy()}
    for name, want_all in want.items():
        for perm in ((1, 0, 2), (2, 0, 1), (2, 1, 0), (0, 2, 1), (1, 2, 0)):
            s = strided.from_numpy(base.copy()).permute(*perm)
            got = getattr(s, name)()
            assert got.stride() == getattr(torch.from_numpy(base).permute(*perm), name)().stride()
            assert got.numpy().tobytes() == np.ascontiguousarray(want_all.transpose(perm)).tobytes() or \
                np.array_equal(got.numpy().view(np.uint32), want_all.transpose(perm).view(np.uint32))
            dense = strided.from_numpy(np.ascontiguousarray(base.transpose(perm))).permute(*np.argsort(perm))
            getattr(dense, name + "_")()  # (in place, laid out in another order than row-major)
            assert np.array_equal(dense.numpy().view(np.uint32), want_all.view(np.uint32))
            o = strided.empty(*base.shape).permute(*perm)  # out= dense in another order
            getattr(strided, name)(strided.from_numpy(base.copy()).permute(*perm), out=o)
            assert np.array_equal(o.numpy().view(np.uint32), want_all.transpose(perm).view(np.uint32))


def test_exp_is_closer_to_pytorch_than_numpy() -> None:
    """PyTorch's float32 exp is MKL's vmsExp (not reproduced): the C library's expf equals it in
    about 99% of elements here, NumPy's np.exp in about 60%."""
    x = np.random.default_rng(14).uniform(-100, 88, 200000).astype(np.float32)
    theirs = torch.exp(torch.from_numpy(x)).numpy()
    ours = strided.from_numpy(x.copy()).exp().numpy()
    assert (ours == theirs).mean() > 0.97
    assert (np.abs(ours.astype(np.float64) - theirs) <= np.abs(np.spacing(theirs))).all()  # (an ulp at most)


def test_exp_gradient_and_the_numpy_path() -> None:
    x = np.random.default_rng(15).uniform(-20, 20, 100).astype(np.float32)
    s = strided.from_numpy(x.copy()).requires_grad_()
    y = s.exp()
    (y * y).sum().backward()
    want = _libm_expf(x)
    assert y.detach().numpy().tobytes() == want.tobytes()
    assert s.grad.numpy().tobytes() == ((2 * want) * want).tobytes()
    with native.disabled():
        assert strided.from_numpy(x.copy()).exp().numpy().tobytes() == np.exp(x).tobytes()


# ---------------------------------------------------------------- tanh: rounded from double


def test_tanh_is_correctly_rounded_and_its_forms_agree() -> None:
    x = _spread(200000, 16)
    got = strided.from_numpy(x.copy()).tanh().numpy()
    fin = np.isfinite(x)
    want = np.tanh(x[fin].astype(np.float64)).astype(np.float32)  # (double rounding: rarer than 1e-6 here)
    assert (got[fin] == want).mean() > 0.99999
    nan = np.isnan(x)
    assert (got.view(np.uint32)[nan] == (x.view(np.uint32)[nan] | 0x400000)).all()  # x quieted, its sign kept
    assert (got[x == np.inf] == 1).all() and (got[x == -np.inf] == -1).all()
    zero = x == 0
    assert (got.view(np.uint32)[zero] == x.view(np.uint32)[zero]).all()  # (-0.0 stays -0.0)
    a, b = np.empty_like(x), np.empty_like(x)
    K.run(x, a, sleef.TANH, 0, 0, -1, 0)
    assert a.tobytes() == got.tobytes()
    if K.run(x, b, sleef.TANH, 0, 0, -1, 1):
        assert b.tobytes() == got.tobytes()


def test_tanh_is_closer_to_pytorch_than_numpy_and_its_layouts() -> None:
    """PyTorch's float32 tanh is MKL's vmsTanh (not reproduced): this equals it in about 99.9%
    where MKL runs its generic path (AMD CPUs, or MKL_ENABLE_INSTRUCTIONS=SSE4_2) and in about
    98.5% where it runs its AVX-512 one (an Intel Ice Lake: 0.985 / 0.996 / 1.0 of the three
    draws, NumPy's own tanh 0.69 / 0.62 / 0.83); never more than one ulp apart."""
    r = np.random.default_rng(17)
    for x in (r.standard_normal(100000), r.uniform(-10, 10, 100000), r.uniform(-1e-2, 1e-2, 100000)):
        x = x.astype(np.float32)
        theirs = torch.tanh(torch.from_numpy(x)).numpy()
        ours = strided.from_numpy(x.copy()).tanh().numpy()
        assert (ours == theirs).mean() > 0.98
        assert (np.abs(ours.astype(np.float64) - theirs) <= np.abs(np.spacing(theirs))).all()
    base = r.uniform(-5, 5, (64, 100)).astype(np.float32)
    flat = strided.from_numpy(base.copy()).tanh().numpy()
    s = strided.from_numpy(base.copy())
    for view in (lambda a: a.t(), lambda a: a[:, ::2], lambda a: a[:, 3:70].t()):
        got = view(s).tanh()
        assert np.array_equal(got.numpy(), view(strided.from_numpy(flat)).numpy())
        assert got.stride() == view(torch.from_numpy(base)).tanh().stride()
    s[:, ::3].tanh_()
    expect = base.copy()
    expect[:, ::3] = flat[:, ::3]
    assert s.numpy().tobytes() == expect.tobytes()
    y = strided.from_numpy(base.copy()).requires_grad_()
    z = y.tanh()
    z.sum().backward()
    assert y.grad.numpy().tobytes() == (np.float32(1) - flat * flat).tobytes()  # (1 - y^2, from the result)
    with native.disabled():
        assert strided.from_numpy(base.copy()).tanh().numpy().tobytes() == np.tanh(base).tobytes()


def test_softmax_rows_take_sleefs_expf() -> None:
    """float32 softmax along a contiguous last dim: PyTorch maps SLEEF's expf over whole rows (the
    tail as a partial vector), so every element's exponential is SLEEF's; the rows' sums are ATen's
    lanes (_specialkernel.softmax_rows). Bit for bit over row lengths 1..70 and the special inputs."""
    if sleef.step() == 0:
        pytest.skip("ATen's DEFAULT capability: std::exp, not SLEEF's")
    r = np.random.default_rng(18)
    for n in range(1, 71):
        x = (r.standard_normal((9, n)) * 8).astype(np.float32)
        x[0, : min(n, 3)] = [-100.0, 80.0, -0.0][: min(n, 3)]
        ours = strided.nn.functional.softmax(strided.from_numpy(x.copy()), -1).numpy()
        assert ours.tobytes() == torch.softmax(torch.from_numpy(x), -1).numpy().tobytes(), n


def test_softmax_rows_fused_sum_every_tail() -> None:
    """float32 softmax along a contiguous last dim (the AVX-512 rows take SLEEF's exponentials and
    their sixteen running sums in one pass): PyTorch's bits for every row length 1..70 (each tail
    of the 16 lanes), 1000 and 4099, rows of large and tiny values; log_softmax too (the same
    sums, SLEEF's logf_u10 of each: _sleef_log.h)."""
    r = np.random.default_rng(21)
    for n in list(range(1, 71)) + [1000, 4099]:
        x = (r.standard_normal((6, n)) * 4).astype(np.float32)
        x[4] *= 30  # (exponentials underflowing to 0 beside the maximum's 1)
        x[5] = r.uniform(-1e-3, 1e-3, n)
        _same(strided.softmax(strided.from_numpy(x.copy()), 1), torch.softmax(torch.from_numpy(x), 1))
        _same(strided.log_softmax(strided.from_numpy(x.copy()), 1), torch.log_softmax(torch.from_numpy(x), 1))


# ---------------------------------------------------------------- atan2: SLEEF's atan2f_u10 and the C library's

_ATAN2_SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 3e-39, 2.9e-39, 1.0, -1.0, 1e38,
                           -1e38, 1e-45, 0.5, -2.0], np.float32)


def _atan2_operands(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of the special values, then normal, uniform and bit-pattern pairs: n of them."""
    r = np.random.default_rng(seed)
    ys, xs = (a.ravel() for a in np.meshgrid(_ATAN2_SPECIAL, _ATAN2_SPECIAL))
    m = max(n - ys.size, 0)
    third = m // 3
    pat = r.integers(0, 2**32, (2, m - 2 * third), dtype=np.uint64).astype(np.uint32).view(np.float32)
    f32 = np.float32
    y = np.concatenate([ys, (r.standard_normal(third) * 10).astype(f32), r.uniform(0.1, 0.9, third).astype(f32), pat[0]])
    x = np.concatenate([xs, (r.standard_normal(third) * 10).astype(f32), r.uniform(0.1, 0.9, third).astype(f32), pat[1]])
    return y[:n].copy(), x[:n].copy()


def test_atan2_both_forms_are_sleefs_and_the_c_librarys() -> None:
    """run2's vectorized function (both forms) is PyTorch's vector loop bit for bit (a length of
    whole 32-element steps: no scalar tail), its scalar one the C library's atan2f."""
    y, x = _atan2_operands(32 * 9000, 30)
    want = torch.atan2(torch.from_numpy(y), torch.from_numpy(x)).numpy()
    plain = np.empty_like(y)
    assert K.run2(y, x, plain, 1, 0)
    assert plain.tobytes() == want.tobytes()
    wide = np.empty_like(y)
    if K.run2(y, x, wide, 1, 1):
        assert wide.tobytes() == want.tobytes()
    libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    libm.atan2f.restype, libm.atan2f.argtypes = ctypes.c_float, [ctypes.c_float, ctypes.c_float]
    scalar = np.empty_like(y)
    assert K.run2(y, x, scalar, 0, -1)
    some = slice(0, 3000)
    ref = np.array([libm.atan2f(float(a), float(b)) for a, b in zip(y[some], x[some])], np.float32)
    assert scalar[some][~np.isnan(ref)].tobytes() == ref[~np.isnan(ref)].tobytes()
    with pytest.raises(ValueError, match="overlaps"):
        b = np.ones(9, np.float32)
        K.run2(b[1:], b[1:], b[:8], 1, -1)
    with pytest.raises(ValueError, match="vec must be"):
        K.run2(y, x, wide, 2, -1)
    with pytest.raises(ValueError, match="step >= 0"):
        K.run2(y, x, wide, 1, -1, -32)
    # step: one row of PyTorch's loop in one call, SLEEF's over whole steps, the C library's after
    # (the step of this CPU's capability: 32 under AVX512, 16 under AVX2, 0 under neither)
    st = sleef.step()
    for n in (0, 1, 15, 16, 17, 31, 32, 33, 95, 1000):
        rowed = np.empty(n, np.float32)
        assert K.run2(y[:n], x[:n], rowed, 1, -1, st)
        body = n - n % st if st else 0
        both = np.empty(n, np.float32)
        assert K.run2(y[:body], x[:body], both[:body], 1, -1)
        assert K.run2(y[body:n], x[body:n], both[body:], 0, -1)
        assert rowed.tobytes() == both.tobytes()
        assert rowed.tobytes() == torch.atan2(torch.from_numpy(y[:n]), torch.from_numpy(x[:n])).numpy().tobytes()


def test_atan2_four_vector_loop_every_length_and_lane() -> None:
    """The AVX-512 atan2 loop runs four vectors a step (64 elements), then one vector, then a masked
    tail: at every length 0..200, the special pairs moved through every lane of the wide step, the
    same bits as the plain C form of SLEEF's function."""
    r = np.random.default_rng(31)
    sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3.4e38, 1.0, -1.0], np.float32)
    y = np.concatenate([np.repeat(sp, len(sp)), r.uniform(-4, 4, 300).astype(np.float32)])
    x = np.concatenate([np.tile(sp, len(sp)), r.uniform(-4, 4, 300).astype(np.float32)])
    for n in range(201):
        ys, xs = np.roll(y, 3 * n)[:n].copy(), np.roll(x, 3 * n)[:n].copy()
        a, b = np.empty_like(ys), np.empty_like(ys)
        assert K.run2(ys, xs, a, 1, 0)
        if K.run2(ys, xs, b, 1, 1):
            assert a.tobytes() == b.tobytes(), n


def test_atan2_lengths_layouts_and_targets() -> None:
    """strided.atan2 of float32: PyTorch's bits and strides for every length 0..70, past the
    parallel grain, permuted / sliced / expanded / broadcast operands, in place and out=."""
    for n in list(range(71)) + [32768, 100003]:
        y, x = _atan2_operands(n, n)
        _same(strided.atan2(strided.from_numpy(y), strided.from_numpy(x)), torch.atan2(torch.from_numpy(y), torch.from_numpy(x)))
    a, b = _atan2_operands(6400, 31)
    a, b = a.reshape(64, 100), b.reshape(64, 100)
    sa, sb, ta, tb = strided.from_numpy(a), strided.from_numpy(b), torch.from_numpy(a), torch.from_numpy(b)
    for view in (lambda t: t.t(), lambda t: t[:, ::2], lambda t: t[:, :40], lambda t: t[:, 3:70].t(),
                 lambda t: t[5].reshape(1, 100).expand(7, 100), lambda t: t[:, 7:8].expand(64, 45),
                 lambda t: t.reshape(64, 25, 4).permute(2, 0, 1)):
        _same(strided.atan2(view(sa), view(sb)), torch.atan2(view(ta), view(tb)))
    _same(strided.atan2(sa, sb[0]), torch.atan2(ta, tb[0]))
    _same(strided.atan2(sa.t(), sb[:, 0]), torch.atan2(ta.t(), tb[:, 0]))
    _same(strided.atan2(sa, strided.tensor(0.5)), torch.atan2(ta, torch.tensor(0.5)))
    s, t = strided.from_numpy(a.copy()), torch.from_numpy(a.copy())
    s.atan2_(sb)
    t.atan2_(tb)
    _same(s, t)
    o, to = strided.empty((64, 100)), torch.empty((64, 100))
    strided.atan2(sa, sb, out=o)
    torch.atan2(ta, tb, out=to)
    _same(o, to)


def test_atan2_without_the_kernel() -> None:
    """No compiled kernel: atan2 in float64 rounded once, within an ulp of PyTorch's."""
    y, x = _atan2_operands(2000, 32)
    fine = np.isfinite(y) & np.isfinite(x) & (np.abs(x) > 1e-30) & (np.abs(y) > 1e-30)
    with native.disabled():
        got = strided.atan2(strided.from_numpy(y[fine]), strided.from_numpy(x[fine])).numpy()
    assert got.tobytes() == np.arctan2(y[fine].astype(np.float64), x[fine].astype(np.float64)).astype(np.float32).tobytes()
    np.testing.assert_allclose(got, torch.atan2(torch.from_numpy(y[fine]), torch.from_numpy(x[fine])).numpy(),
                               rtol=2.4e-7, atol=0)


def test_angle_of_complex64_runs() -> None:
    """strided.angle of dense complex64 tensors: PyTorch's bits (SLEEF's atan2f in its vector loop,
    whose step is 8 elements, the C library's in each parallel chunk's tail) for every length
    0..40, past the grain (70001: a one-element tail in the first chunk), transposed and
    permuted; a sliced one: the C library's throughout, as PyTorch's scalar loop."""
    r = np.random.default_rng(33)

    def z_of(shape: tuple[int, ...]) -> np.ndarray:
        return (r.standard_normal(shape) + 1j * r.standard_normal(shape)).astype(np.complex64)

    for n in list(range(41)) + [70001]:
        z = z_of((n,))
        _same(strided.angle(strided.from_numpy(z)), torch.angle(torch.from_numpy(z)))
    z = z_of((24, 35, 6))
    s, t = strided.from_numpy(z), torch.from_numpy(z)
    for view in (lambda a: a.permute(2, 0, 1), lambda a: a.transpose(0, 2), lambda a: a[:, ::2], lambda a: a[3]):
        _same(strided.angle(view(s)), torch.angle(view(t)))
