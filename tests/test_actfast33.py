"""The small-op fast path of activations_more's rows (issue 23, session 33): the compiled passes
(``unary_exact`` codes 6-11) compute exactly what the rows' NumPy forwards compute, bit for bit, on
flat runs of every length around PyTorch's vector blocks and on special values; the public calls
that take them (compiled fronts, the fresh fast path) give the general path's bits (native kernels
off, a transposed copy) and PyTorch's; the fast path is taken only outside autograd."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as F
from strided.kernels import native
from strided.ops.elementwise import activations as A
from strided.ops.elementwise import activations_more as M

pytestmark = pytest.mark.skipif(native.special() is None, reason="the compiled special kernel is not built")

LENGTHS = [*range(0, 71), 127, 128, 129, 130, 1000]
SPECIALS = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 3.0, -3.0, 0.5, -0.5, 6.0, -6.0, 1e-45, -1e-45, 1e38, -1e38,
            2.9999999, -2.9999999, 1.0, -1.0, 0.1, 1.0 / 3]
# (row, its parameter tuples): the rows with a compiled pass
ROWS = [
    (M.HARDSIGMOID, [()]),
    (M.HARDSWISH, [()]),
    (M.HARDSHRINK, [(0.5,), (0.0,), (-0.0,), (1.0 / 3,), (np.inf,), (np.nan,), (-1.0,)]),
    (M.SOFTSHRINK, [(0.5,), (0.0,), (1.0 / 3,), (np.inf,), (1e-40,)]),
    (M.THRESHOLD, [(0.1, 2.0), (0.0, -0.0), (-0.0, np.nan), (np.nan, 1.0), (1.0 / 3, np.inf), (np.inf, 5.0)]),
    (M.SELU, [()]),
    (M.CELU, [(1.0,), (2.0,), (0.5,), (-1.0,), (1.0 / 3,)]),
]


def _uint(dtype: type) -> type:
    return np.uint32 if dtype == np.float32 else np.uint64


def _snan(dtype: type) -> float:
    bits = np.array([0x7FA00001], np.uint32) if dtype == np.float32 else np.array([0x7FF4000000000001], np.uint64)
    return bits.view(dtype)[0]


def _values(n: int, dtype: type, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * rng.choice([1.0, 4.0, 1e-3])).astype(dtype)
    if n and seed % 3:
        pool = np.array([*SPECIALS, _snan(dtype), -_snan(dtype)], dtype)
        at = rng.integers(0, n, size=max(1, n // 2))
        x[at] = pool[rng.integers(0, len(pool), size=len(at))]
    return x


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a.view(_uint(a.dtype)), b.view(_uint(b.dtype)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("row,params_list", ROWS, ids=[r.name for r, _ in ROWS])
def test_compiled_pass_is_the_forward_bit_for_bit(row, params_list, dtype):
    with np.errstate(all="ignore"):
        for n in LENGTHS:
            for seed in range(3):
                x = _values(n, dtype, seed)
                for params in params_list:
                    got = row.compiled(x, *params)
                    assert got is not None, (row.name, n)
                    want = np.array(np.broadcast_to(np.asarray(row.forward(x.copy(), *params), dtype), x.shape))
                    if row.vector_nans is not None:  # (hardsigmoid's / hardswish's all-ones NaN words, as _fast's)
                        lanes = row.vector_nans(x, x.shape, (1,), strided.float32 if dtype == np.float32 else
                                                strided.float64)
                        if lanes is not None:
                            A.all_ones(want, lanes)
                    assert _same_bits(got, want), (row.name, dtype, n, params, x)


def test_compiled_pass_refuses_what_it_does_not_take():
    x = np.ones(8, np.float16)
    assert M.HARDSIGMOID.compiled(x) is None
    assert M.HARDSIGMOID.compiled(np.ones(16)[::2]) is None
    big = np.linspace(-2, 2, (1 << 16) + 3, dtype=np.float32)  # (beyond one chunk: one call per piece, large35)
    assert np.array_equal(M.SOFTSHRINK.compiled(big, 0.5).view(np.uint32), M._softshrink(big, 0.5).view(np.uint32))
    with native.disabled():
        assert M.HARDSWISH.compiled(np.ones(8)) is None
        assert M.SELU.compiled(np.ones(8)) is None
    k = native.special()
    with pytest.raises(ValueError, match=r"or 11 \(elu's selection\), not 12"):
        k.unary_exact(np.ones(8), np.empty(8), 12)
    with pytest.raises(TypeError, match="code 9 takes 2 parameters"):
        k.unary_exact(np.ones(8), np.empty(8), 9, 0.5)


# (the public calls: name, strided's, torch's)
CALLS = [
    ("F.hardsigmoid", F.hardsigmoid, TF.hardsigmoid),
    ("F.hardswish", F.hardswish, TF.hardswish),
    ("F.hardshrink", F.hardshrink, TF.hardshrink),
    ("hardshrink", strided.hardshrink, torch.hardshrink),
    ("Tensor.hardshrink", lambda x: x.hardshrink(), lambda t: t.hardshrink()),
    ("hardshrink 0.25", lambda x: strided.hardshrink(x, 0.25), lambda t: torch.hardshrink(t, 0.25)),
    ("F.softshrink", F.softshrink, TF.softshrink),
    ("F.softshrink 0", lambda x: F.softshrink(x, 0.0), lambda t: TF.softshrink(t, 0.0)),
    ("F.threshold", lambda x: F.threshold(x, 0.1, -2.0), lambda t: TF.threshold(t, 0.1, -2.0)),
    ("threshold -0", lambda x: strided.threshold(x, 0.0, -0.0), lambda t: torch.threshold(t, 0.0, -0.0)),
    ("F.selu", F.selu, TF.selu),
    ("selu", strided.selu, torch.selu),
    ("F.celu", F.celu, TF.celu),
    ("celu 2", lambda x: strided.celu(x, 2.0), lambda t: torch.celu(t, 2.0)),
]


def _no_nan_payloads(a: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(a), np.nan, a)  # (NaN's bits aside: PyTorch's own NaNs are not the subject)


def _general(name: str, fn, x, monkeypatch):
    """``fn(x)`` by the general path: no fast path (``_fast`` answers None), and no compiled front
    (the kernels off) where the row's forward is pure NumPy (selu's and celu's take the compiled
    expm1 at PyTorch's places: kernels on, and they have no front)."""
    with monkeypatch.context() as m:
        m.setattr(A, "_fast", lambda *args: None)
        if "selu" in name or "celu" in name:
            return fn(x)
        with native.disabled():
            return fn(x)


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
@pytest.mark.parametrize("name,fn,tfn", CALLS, ids=[c[0] for c in CALLS])
def test_fast_path_is_the_general_path_and_torch(name, fn, tfn, dtype, monkeypatch):
    torch.set_num_threads(1)
    for n in [*range(0, 40), 63, 64, 65, 127, 128, 129, 130]:
        for seed in range(3):
            a = _values(n, dtype.numpy, seed).astype(dtype.numpy)
            x = strided.tensor(a)
            fast = fn(x).numpy()
            general = _general(name, fn, strided.tensor(a), monkeypatch).numpy()
            assert _same_bits(fast, general), (name, n, a)
            want = tfn(torch.from_numpy(a.copy())).numpy()
            assert _same_bits(_no_nan_payloads(fast), _no_nan_payloads(want)), (name, n, a, fast, want)
            assert np.isnan(fast).tolist() == np.isnan(want).tolist()


@pytest.mark.parametrize("name,fn,tfn", CALLS, ids=[c[0] for c in CALLS])
def test_layouts(name, fn, tfn, monkeypatch):
    a = _values(7 * 9, np.float32, 4).reshape(7, 9)
    for x in (strided.tensor(a).t(), strided.tensor(a)[:, ::2], strided.tensor(a).expand(2, 7, 9),
              strided.tensor(a)[0, 0], strided.tensor(a)[:0]):
        got = fn(x)
        general = _general(name, fn, x, monkeypatch)
        assert got.shape == general.shape and got.stride() == general.stride(), name
        assert _same_bits(got.numpy(), general.numpy()), name
        t = tfn(torch.from_numpy(x.numpy().copy()).as_strided(x.shape, x.stride()) if x.numel() and x.stride() and
                min(x.stride()) > 0 and x.is_contiguous() else torch.from_numpy(x.numpy().copy()))
        assert _same_bits(_no_nan_payloads(got.numpy()), _no_nan_payloads(t.numpy())) or not x.is_contiguous(), name


class _Spy:
    def __init__(self, row):
        self.row, self.calls = row, 0
        self.forward = row.forward

    def __enter__(self):
        def spy(*args):
            self.calls += 1
            return self.forward(*args)

        object.__setattr__(self.row, "forward", spy)  # (a frozen row: the spy set as dataclasses would)
        return self

    def __exit__(self, *exc):
        object.__setattr__(self.row, "forward", self.forward)


@pytest.mark.parametrize("row,call", [
    (M.HARDSIGMOID, lambda x: F.hardsigmoid(x)),
    (M.HARDSWISH, lambda x: F.hardswish(x)),
    (M.HARDSHRINK, lambda x: x.hardshrink(0.3)),
    (M.SOFTSHRINK, lambda x: F.softshrink(x, 0.3)),
    (M.THRESHOLD, lambda x: F.threshold(x, 0.0, 1.0)),
    (M.SELU, lambda x: strided.selu(x)),
    (M.CELU, lambda x: F.celu(x, 3.0)),
], ids=lambda v: getattr(v, "name", ""))
def test_fast_path_taken_outside_autograd_only(row, call):
    a = np.linspace(-4, 4, 12, dtype=np.float32).reshape(3, 4)
    with _Spy(row) as spy:
        out = call(strided.tensor(a))
    assert spy.calls == 0 and out.grad_fn is None  # (the compiled pass, not the NumPy forward)
    x = strided.tensor(a, requires_grad=True)
    out = call(x)  # (the recording entry: its forward, grad mode off, may take the compiled pass: the same bits)
    assert out.grad_fn is not None and out.grad_fn.name() == row.node
    assert _same_bits(out.detach().numpy(), call(strided.tensor(a)).numpy())
    with _Spy(row) as spy:
        call(strided.tensor(a, dtype=strided.float16))
    assert spy.calls == 1  # (float16: the general path)


def test_gradients_untouched():
    a = np.linspace(-4, 4, 12)
    for fn, tfn, node in ((F.hardswish, TF.hardswish, "HardswishBackward0"), (F.softshrink, TF.softshrink,
                                                                              "SoftshrinkBackward0")):
        x = strided.tensor(a, requires_grad=True)
        t = torch.tensor(a, requires_grad=True)
        y, ty = fn(x), tfn(t)
        assert y.grad_fn.name() == node
        y.sum().backward()
        ty.sum().backward()
        assert _same_bits(x.grad.numpy(), t.grad.numpy())


def test_threshold_negative_zero_value_is_kept_whatever_came_first():
    # (the rows' constant cache took -0.0 for the +0.0 met first: now each zero keeps its sign)
    x = strided.tensor([[-1.0, 2.0], [-3.0, 1.0]])
    strided.threshold(x, 0.0, 0.0)
    with native.disabled():
        got = strided.threshold(x.t(), 0.0, -0.0).numpy()
    assert np.signbit(got[0]).tolist() == [True, True]
    assert _same_bits(got, torch.threshold(torch.tensor([[-1.0, 2.0], [-3.0, 1.0]]).t(), 0.0, -0.0).numpy())


def test_errors_unchanged():
    x = strided.tensor([1.0, -1.0])
    with pytest.raises(RuntimeError, match=r"lambda must be in range \[0, 3.40282e\+38\] for input dtype Float, but found -1"):
        F.softshrink(x, -1.0)
    with pytest.raises(NotImplementedError, match='"hardsigmoid_cpu" not implemented for \'Long\''):
        F.hardsigmoid(strided.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="alpha cannot be 0 for CELU"):
        F.celu(x, 0.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_no_floating_point_warning_leaks(dtype):
    import warnings

    a = np.array([_snan(dtype), np.inf, -np.inf, np.nan, -1.0, 1e38], dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fn in (lambda x: strided.celu(x, 2.0), lambda x: F.celu(x, 0.5), F.selu, F.hardswish, F.softshrink,
                   lambda x: F.threshold(x, 0.0, 1.0)):
            fn(strided.tensor(a))


def test_fronts_are_the_entries_to_everything_else():
    import pickle

    for fn in (strided.hardshrink, strided.selu, strided.celu, F.selu, F.celu, F.hardsigmoid, F.hardswish,
               F.hardshrink, F.softshrink):
        assert hasattr(fn, "__front_fallback__"), fn
        assert pickle.loads(pickle.dumps(fn)) is fn
    x = strided.tensor([-1.0, 2.0], requires_grad=True)
    assert strided.selu(x).grad_fn.name() == "EluBackward0"
    assert x.hardshrink(0.5).grad_fn.name() == "HardshrinkBackward0"
    assert strided.celu(x).grad_fn.name() == "CeluBackward0"
