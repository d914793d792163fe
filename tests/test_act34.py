"""Session 34's small-size activation work (issue 23):

- ``F.logsigmoid`` is PyTorch's bits in float32 and float64 (and float16 / bfloat16, computed in
  float32): SLEEF's exp and log1p at every element, compiled (_sleef_log1p.h). It was NumPy's
  log1p over SLEEF's exp, which differed from PyTorch in the last bit of ~8% of float32 elements.
  Both forms of the kernel (AVX-512, one lane) are checked against ``torch`` on every length around
  the vector blocks, special values (NaN payloads and signs, infinities, zeros, subnormals), and
  every layout (the result row-major, as PyTorch's).
- ``F.selu_`` / ``F.celu_`` on a plain tensor outside autograd write the fast path's values over
  the storage run (no Python general path): PyTorch's bits, the same tensor, one version bump, the
  general path's refusals (read-only memory, a leaf that requires grad).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as F
from strided.kernels import native
from strided.kernels.sleef import step

pytestmark = pytest.mark.skipif(native.special() is None, reason="the compiled special kernel is not built")

LENGTHS = [*range(0, 71), 127, 128, 129, 130, 1000]
SPECIALS = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-45, -1e-45, 1e-38, -1e-38, 1e38, -1e38, 3.4e38, -3.4e38,
            103.9, -103.9, 104.1, -104.1, 88.7, -88.7, 20.0, -20.0, 1e-8, -1e-8, 0.5, -0.5, 1.0, -1.0]


def _uint(dtype: np.dtype) -> type:
    return {2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(dtype).itemsize]


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(_uint(a.dtype))


def _snan(dtype: type, sign: int) -> float:
    if dtype == np.float32:
        return np.array([0x7FA00001 | (sign << 31)], np.uint32).view(np.float32)[0]
    return np.array([0x7FF4000000000001 | (sign << 63)], np.uint64).view(np.float64)[0]


def _values(n: int, dtype: type, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * rng.choice([1.0, 5.0, 40.0, 1e-3])).astype(dtype)
    if n and seed % 2:
        pool = np.array([*SPECIALS, _snan(dtype, 0), _snan(dtype, 1)], dtype)
        at = rng.integers(0, n, size=max(1, n // 3))
        x[at] = pool[rng.integers(0, len(pool), size=len(at))]
    return x


def _torch_logsigmoid(x: np.ndarray) -> np.ndarray:
    torch.set_num_threads(1)
    return TF.logsigmoid(torch.from_numpy(np.ascontiguousarray(x))).numpy()


@pytest.mark.parametrize("form", [0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_log_sigmoid_run_is_torch_bits(form: int, dtype: type) -> None:
    k = native.special()
    for n in LENGTHS:
        for seed in range(4):
            x = _values(n, dtype, seed + 10 * n)
            out = np.full(n, 7.0, dtype)
            if not k.log_sigmoid_run(x, out, form):
                pytest.skip("no AVX-512F on this CPU")
            want = _torch_logsigmoid(x)
            assert np.array_equal(_bits(out), _bits(want)), (n, seed, x[_bits(out) != _bits(want)])


def test_log_sigmoid_run_refuses() -> None:
    k = native.special()
    x = np.zeros(8, np.float32)
    assert k.log_sigmoid_run(x, np.empty(8, np.float64)) is False  # (two formats)
    assert k.log_sigmoid_run(x, np.empty(7, np.float32)) is False  # (two lengths)
    assert k.log_sigmoid_run(np.zeros(8, np.int32), np.empty(8, np.int32)) is False
    assert k.log_sigmoid_run(x[::2], np.empty(4, np.float32)) is False  # (not contiguous)
    with pytest.raises(TypeError):
        k.log_sigmoid_run(x)


def _layouts(dtype: type) -> list[tuple[str, np.ndarray, object]]:
    """(name, base values, a function of a tensor giving the view to apply logsigmoid to)."""
    base = _values(4 * 6 * 5, dtype, 3).reshape(4, 6, 5)
    return [
        ("contiguous", base, lambda t: t),
        ("transposed", base, lambda t: t.permute(2, 0, 1)),
        ("stepped", base, lambda t: t[::2, 1::2, ::-1] if isinstance(t, np.ndarray) else t[::2, 1::2].flip(-1)),
        ("expanded", base[:1, :1, :], lambda t: t.expand(3, 4, 5) if not isinstance(t, np.ndarray) else t),
        ("0-d", base[0, 0, :1].reshape(()), lambda t: t),
        ("empty", base[:0], lambda t: t),
        ("empty2", base[:, :0], lambda t: t.transpose(0, 2)),
    ]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logsigmoid_layouts_match_torch(dtype: type) -> None:
    for name, base, view in _layouts(dtype):
        s = view(strided.tensor(base))
        t = view(torch.from_numpy(base.copy()))
        for fn, tfn in ((F.logsigmoid, TF.logsigmoid),):
            got, want = fn(s), tfn(t)
            assert got.shape == tuple(want.shape), name
            assert got.stride() == want.stride(), name  # (row-major whatever the input: PyTorch's)
            assert np.array_equal(_bits(got.numpy()), _bits(want.numpy())), name


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_logsigmoid_reduced_floats_match_torch(dtype: torch.dtype) -> None:
    x = torch.from_numpy(_values(300, np.float32, 5)).to(dtype)
    want = TF.logsigmoid(x)
    sdt = strided.float16 if dtype == torch.float16 else strided.bfloat16
    got = F.logsigmoid(strided.tensor(x.float().numpy()).to(sdt))
    assert got.dtype == sdt
    w = want.view(torch.int16).numpy()
    g = got.to(strided.float32).numpy().astype(np.float32)
    assert np.array_equal(torch.from_numpy(g).to(dtype).view(torch.int16).numpy(), w)


def test_logsigmoid_in_autograd_same_values_and_node() -> None:
    x = _values(37, np.float32, 7)
    s = strided.tensor(x, requires_grad=True)
    t = torch.tensor(x, requires_grad=True)
    ys, yt = F.logsigmoid(s), TF.logsigmoid(t)
    assert ys.grad_fn.name() == yt.grad_fn.name() == "LogSigmoidBackward0"
    assert np.array_equal(_bits(ys.detach().numpy()), _bits(yt.detach().numpy()))


def test_logsigmoid_without_kernels_still_close() -> None:
    x = _values(100, np.float64, 2)
    with native.disabled():
        got = F.logsigmoid(strided.tensor(x)).numpy()
    want = _torch_logsigmoid(x)
    assert np.allclose(got, want, rtol=1e-14, atol=0, equal_nan=True)


def test_default_capability_is_numpy_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # (under ATen's DEFAULT capability PyTorch's exp and log1p are the C library's: not this kernel's)
    from strided.kernels import sleef
    from strided.ops.elementwise import activations_more as M

    monkeypatch.setattr(sleef, "_steps", [0])
    assert step() == 0
    assert M._logsigmoid_compiled(np.zeros(4, np.float32)) is None
    assert M._logsigmoid_front(np.dtype(np.float32)) is None


# --- selu_ / celu_ in place ---------------------------------------------------------------------

INPLACE = [
    ("selu_", lambda t: F.selu_(t), lambda t: TF.selu_(t)),
    ("celu_", lambda t: F.celu_(t), lambda t: TF.celu_(t)),
    ("celu_ 2.0", lambda t: F.celu_(t, 2.0), lambda t: TF.celu_(t, 2.0)),
    ("celu_ 0.5", lambda t: F.celu_(t, alpha=0.5), lambda t: TF.celu_(t, alpha=0.5)),
    ("celu_ int alpha", lambda t: F.celu_(t, 3), lambda t: TF.celu_(t, 3)),
    ("torch.selu_", lambda t: strided.selu_(t), lambda t: torch.selu_(t)),
    ("F.selu inplace", lambda t: F.selu(t, inplace=True), lambda t: TF.selu(t, inplace=True)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", INPLACE, ids=[c[0] for c in INPLACE])
def test_selu_celu_inplace_match_torch(case: tuple, dtype: type) -> None:
    name, sfn, tfn = case
    if name == "torch.selu_" and not hasattr(strided, "selu_"):
        pytest.skip("strided.selu_ is not public")
    torch.set_num_threads(1)
    for shape, view in [((3, 4), lambda t: t), ((16, 16), lambda t: t), ((5, 7), lambda t: t.t()),
                        ((67,), lambda t: t), ((), lambda t: t), ((0, 3), lambda t: t),
                        ((6, 8), lambda t: t[:, ::2]), ((4, 9), lambda t: t[1:3])]:
        base = _values(int(np.prod(shape)), dtype, 11).reshape(shape)
        s, t = strided.tensor(base), torch.from_numpy(base.copy())
        sv, tv = view(s), view(t)
        v = sv._version
        out = sfn(sv)
        tfn(tv)
        assert out is sv, (name, shape)
        assert sv._version == v + 1, (name, shape)
        assert np.array_equal(_bits(s.numpy()), _bits(t.numpy())), (name, shape)


def test_selu_inplace_read_only_refused() -> None:
    a = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    a.flags.writeable = False
    x = strided.from_numpy(a)
    for fn in (F.selu_, F.celu_):
        with pytest.raises(RuntimeError, match="read-only"):
            fn(x)
    assert np.array_equal(a, np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4))


def test_selu_inplace_in_autograd_general_path() -> None:
    x = strided.tensor(np.linspace(-2, 2, 12, dtype=np.float32), requires_grad=True)
    with pytest.raises(RuntimeError):
        F.selu_(x)  # (a leaf that requires grad: refused, as PyTorch)
    for alpha in (1.0, 2.0):
        xs = strided.tensor(np.linspace(-2, 2, 12, dtype=np.float64), requires_grad=True)
        xt = torch.tensor(np.linspace(-2, 2, 12), requires_grad=True)
        ys, yt = xs * 1.0, xt * 1.0
        F.celu_(ys, alpha)
        TF.celu_(yt, alpha)
        ys.sum().backward()
        yt.sum().backward()
        assert np.array_equal(ys.detach().numpy(), yt.detach().numpy())
        assert np.allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=1e-15, atol=0)


def test_celu_inplace_zero_alpha_refused() -> None:
    x = strided.tensor(np.ones(3, np.float32))
    with pytest.raises(RuntimeError, match="alpha cannot be 0"):
        F.celu_(x, 0.0)
    with pytest.raises(RuntimeError):
        TF.celu_(torch.ones(3), 0.0)


# --- selu / celu fresh: the compiled fronts' one-pass kernel (sleef.SELU; sleef.ELU for celu at alpha 1) ----

FRESH = [
    ("F.selu", lambda t: F.selu(t), lambda t: TF.selu(t)),
    ("F.celu", lambda t: F.celu(t), lambda t: TF.celu(t)),
    ("torch.selu", lambda t: strided.selu(t), lambda t: torch.selu(t)),
    ("torch.celu", lambda t: strided.celu(t), lambda t: torch.celu(t)),
    ("celu 2.0", lambda t: F.celu(t, 2.0), lambda t: TF.celu(t, 2.0)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", FRESH, ids=[c[0] for c in FRESH])
def test_selu_celu_fresh_match_torch(case: tuple, dtype: type) -> None:
    name, sfn, tfn = case
    torch.set_num_threads(1)
    for n in LENGTHS:
        x = _values(n, dtype, 5 * n + 1)
        got, want = sfn(strided.tensor(x)), tfn(torch.from_numpy(x.copy()))
        assert np.array_equal(_bits(got.numpy()), _bits(want.numpy())), (name, n)
    base = _values(7 * 9, dtype, 2).reshape(7, 9)
    got, want = sfn(strided.tensor(base).t()), tfn(torch.from_numpy(base.copy()).t())
    assert got.stride() == want.stride()
    assert np.array_equal(_bits(got.numpy()), _bits(want.numpy())), name


def test_selu_kernel_in_place_and_refusals() -> None:
    from strided.kernels.sleef import SELU, flat_call

    call = flat_call(SELU, np.dtype(np.float32))
    if call is None:
        pytest.skip("the sleef kernel is not built")
    x = _values(100, np.float32, 3)
    want = TF.selu(torch.from_numpy(x.copy())).numpy()
    call[0](x, x, *call[1])  # (out may be x itself: each element read before its slot is written)
    assert np.array_equal(_bits(x), _bits(want))
    k = native.sleef()
    with pytest.raises(ValueError):
        k.run(x, x, 14, *call[1][1:])  # (past the last op, MISH_T: 13)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_selu_celu_inplace_without_kernels_is_the_fresh_forms(dtype: type) -> None:
    # (the in-place fast path's fallback: the forward in the quiet state, no warning on inf / NaN / overflow)
    import warnings

    x = _values(200, dtype, 9)
    x[:4] = [np.inf, -np.inf, np.nan, 1e300 if dtype == np.float64 else 3e38]
    for sfn, ffn in ((F.selu_, F.selu), (lambda t: F.celu_(t), lambda t: F.celu(t)), (lambda t: F.celu_(t, 0.25), lambda t: F.celu(t, 0.25))):
        with native.disabled(), warnings.catch_warnings():
            warnings.simplefilter("error")
            want = ffn(strided.tensor(x)).numpy()
            t = strided.tensor(x)
            assert sfn(t) is t
        assert np.array_equal(_bits(t.numpy()), _bits(want))
