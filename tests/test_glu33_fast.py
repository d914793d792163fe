"""The fast paths of ``F.glu``, ``F.prelu`` and ``F.cosine_similarity`` (issue #23, small sizes at
PyTorch's speed) against PyTorch 2.13 bit for bit, and against strided's own general paths (the
compositions, run with the fast paths spied off): row-major float32 / float64 inputs of many
shapes, every dim, sizes around the vector step (rows of 40, 64, 70) and past the parallel grain,
zero-size, special values (NaN of both signs in both halves, +-inf, +-0); the layouts the fast
paths leave to the general path (transposed, sliced, 0-d, float16 / bfloat16); gradients with
inputs that require grad (the same nodes and values as PyTorch's); a spy that the fast path is
taken where intended and not elsewhere; and prelu's argument errors, now PyTorch's.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as F
from strided.kernels import native, sleef
from strided.kernels.torch_loops import scalar_loop_mask
from strided.nn.functional import composed_layers as C

pytestmark = pytest.mark.usefixtures("torch_threads_as_assumed")  # (conftest.py: past the grain too)

_UINT = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


def _bits(a) -> np.ndarray:
    a = np.ascontiguousarray(a.numpy() if hasattr(a, "numpy") else a)
    return a.view(_UINT[a.dtype]) if a.dtype in _UINT else a


def _node(t) -> str:
    return repr(t.grad_fn).split()[0].lstrip("<")


def _same(s, t, nan_bits: bool = True) -> None:
    """shape, strides, dtype and every bit (signed zeros included; NaN payloads and signs too, or
    with ``nan_bits`` False only where the result is NaN)."""
    assert tuple(s.shape) == tuple(t.shape)
    assert s.stride() == t.stride()
    assert str(s.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    if nan_bits:
        np.testing.assert_array_equal(_bits(s), _bits(t))
        return
    sn, tn = np.ascontiguousarray(s.numpy()), np.ascontiguousarray(t.numpy())
    np.testing.assert_array_equal(np.isnan(sn), np.isnan(tn))
    keep = ~np.isnan(tn)
    np.testing.assert_array_equal(_bits(sn)[keep], _bits(tn)[keep])


def _data(shape, dtype, rng, special=False) -> np.ndarray:
    a = np.asarray(rng.standard_normal(shape) * 6, dtype)
    if special and a.size:
        flat = a.reshape(-1)
        flat[::3] = rng.choice(np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0], dtype), size=flat[::3].shape)
    return a


@pytest.fixture
def spies(monkeypatch):
    """Counts of the three fast paths' compiled / NumPy steps (module globals the paths look up)."""
    calls = {"glu_rows": 0, "norm2_rows": 0, "adopted": 0}

    def wrap(name, fn):
        def spy(*a, **k):
            calls[name] += 1
            return fn(*a, **k)
        return spy

    monkeypatch.setattr(C, "glu_rows", wrap("glu_rows", C.glu_rows))
    monkeypatch.setattr(C, "norm2_rows", wrap("norm2_rows", C.norm2_rows))
    monkeypatch.setattr(C, "adopted", wrap("adopted", C.adopted))  # (each fast path's result, once)
    return calls


# ---------------------------------------------------------------- glu

GLU_SHAPES = [(2,), (4,), (64,), (70,), (3, 4), (16, 16), (4, 3), (6, 80), (80, 6), (2, 3, 4), (4, 66),
              (66, 4), (2, 64, 3), (1, 2), (2, 1), (3, 130), (130, 2), (2, 128), (5, 2, 7), (0, 4), (4, 0), (2, 0, 6)]


@pytest.mark.skipif(native.sleef() is None, reason="the compiled kernel is not built")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("special", [False, True])
def test_glu_rowmajor_bits_equal_torch(dtype, special, spies):
    rng = np.random.default_rng(5)
    count = 0
    for shape in GLU_SHAPES:
        for dim in range(-len(shape), len(shape)):
            if shape[dim] % 2:
                continue
            a = _data(shape, dtype, rng, special)
            before = spies["glu_rows"]
            _same(F.glu(strided.tensor(a), dim), TF.glu(torch.from_numpy(a), dim))
            _same(F.glu(strided.tensor(a), dim=dim), TF.glu(torch.from_numpy(a), dim=dim))  # (keyword: the body's call)
            # (the compiled pass, both calls; an empty tensor's strides are not row-major ones: the general path)
            assert spies["glu_rows"] == before + (2 if a.size else 0)
            count += 1
    assert count > 40


@pytest.mark.skipif(native.sleef() is None, reason="the compiled kernel is not built")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_glu_nan_in_both_halves_keeps_sigmoids_nan(dtype):
    """Where a and b are both NaN PyTorch's product gives sigmoid(b)'s NaN (sigmoid flips a NaN's
    sign), in its vector and its scalar loop; strided's product was ``a * s`` (a's NaN) before."""
    for shape, dim in (((2, 128), -1), ((128, 2), 0), ((64,), 0), ((4, 100), -1), ((8, 4), -1)):
        a = np.full(shape, np.nan, dtype)
        a.reshape(-1)[::3] = -np.nan
        a.reshape(-1)[1::5] = 1.5
        expected = TF.glu(torch.from_numpy(a), dim)
        _same(F.glu(strided.tensor(a), dim), expected)
        if a.ndim == 2:
            # (column-major: the general path, b.sigmoid() * a, NumPy's product: its strided loops may
            # keep a's NaN where both are NaN -- was a's everywhere before, now in few places)
            _same(F.glu(strided.tensor(a).t().contiguous().t(), dim),
                  TF.glu(torch.from_numpy(a).t().contiguous().t(), dim), nan_bits=False)


@pytest.mark.skipif(native.sleef() is None, reason="the compiled kernel is not built")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_glu_past_the_grain_cuts_rows_at_chunks(dtype, spies):
    """At 32768 result elements or more PyTorch's threads cut the rows into chunks: the compiled
    glu_rows cuts its rows there too (one pass); the bits still PyTorch's."""
    rng = np.random.default_rng(7)
    for shape, dim in (((4, 20000), -1), ((2, 40000), 0), ((3, 22222), 1), ((70000,), 0)):
        a = _data(shape, dtype, rng)
        _same(F.glu(strided.tensor(a), dim), TF.glu(torch.from_numpy(a), dim))
    assert spies["glu_rows"] == 4


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_glu_other_layouts_take_the_general_path(dtype, spies):
    """Sliced and stepped inputs are not dense: the composition (chunk, sigmoid, mul), whose
    sigmoid of a non-dense half is torch_loop's walk over the iteration order. Transposed ones are
    permuted dense: the compiled pass over their memory (session 37; every bit, NaN's too)."""
    rng = np.random.default_rng(9)
    transposed = 0
    for shape, dim in (((6, 80), 0), ((6, 80), 1), ((40, 6), -1), ((3, 4, 6), 1), ((8, 70), 0)):
        a = _data(shape, dtype, rng, special=True)
        for i, (s, t) in enumerate(((strided.tensor(a).transpose(0, -1), torch.from_numpy(a).transpose(0, -1)),
                                    (strided.tensor(a)[::2], torch.from_numpy(a)[::2]),
                                    (strided.tensor(a)[..., 1:-1], torch.from_numpy(a)[..., 1:-1]))):
            if t.shape[dim] % 2:
                continue
            dense = i == 0
            transposed += dense
            _same(F.glu(s, dim), TF.glu(t, dim), nan_bits=dense)  # (see test_glu_nan_in_both_halves...)
    assert spies["glu_rows"] == transposed > 0


def test_glu_reduced_floats_and_errors():
    """float16 / bfloat16 stay on the general path (PyTorch's values); the argument errors
    are PyTorch's, with their texts."""
    for dt in ("float16", "bfloat16"):
        a = torch.randn(4, 6).to(getattr(torch, dt))
        s = strided.tensor(a.float().numpy()).to(getattr(strided, dt))
        got = F.glu(s, 0).to(strided.float32).numpy()
        np.testing.assert_allclose(got, TF.glu(a, 0).float().numpy(), rtol=1e-2, atol=1e-2)
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 1 is size 3"):
        F.glu(strided.ones(2, 3))
    with pytest.raises(RuntimeError, match="glu does not support scalars because halving size must be even"):
        F.glu(strided.tensor(1.0))
    with pytest.raises(IndexError):
        F.glu(strided.ones(2, 4), 2)


@pytest.mark.parametrize("dim", [0, -1, 1])
def test_glu_grad_matches_torch(dim):
    """An input that requires grad: the fresh result recorded with GluBackward0, torch's values
    and gradients (float64)."""
    a = np.random.default_rng(11).standard_normal((4, 6))
    s = strided.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    so, to = F.glu(s, dim), TF.glu(t, dim)
    assert _node(so) == _node(to) == "GluBackward0"
    _same(so.detach(), to.detach())
    g = np.cos(np.arange(so.numel())).reshape(tuple(so.shape))
    so.backward(strided.tensor(g))
    to.backward(torch.tensor(g))
    np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_torch_loop_rows_walk_equals_the_mask():
    """torch_loop's non-dense path (a flat copy in iteration order, cut at the rows) computes
    exactly the elements scalar_loop_mask gives the scalar function: compared with that mask's
    own split (vector everywhere, then the scalar function at the mask) over sliced, stepped and
    permuted views."""
    k = native.sleef()
    if k is None or sleef.step() == 0:
        pytest.skip("the compiled kernel is not built")
    rng = np.random.default_rng(13)
    base = (rng.standard_normal((6, 90, 5)) * 8).astype(np.float32)
    views = [base[:, ::2, :], base[:, 1:, 0], base[::2].transpose(1, 0, 2), base[..., :3], base[:, 3:70, 1:].transpose(2, 0, 1),
             base[:, 40:, :].transpose(0, 2, 1)[:, :, :35]]
    for v in views:
        got = sleef.torch_loop(v, sleef.SIGMOID)
        strides = tuple(s // 4 for s in v.strides)
        from strided.kernels.torch_loops import fresh_strides

        mask = scalar_loop_mask(v.shape, tuple(fresh_strides(v.shape, [(v.shape, strides)])), True,
                                [(v.shape, strides)], step=sleef.step())
        xs = np.ascontiguousarray(v)
        want = np.empty_like(xs)
        k.run(xs.reshape(-1), want.reshape(-1), sleef.SIGMOID, 0, 0, -1, -1)
        if mask is not None:
            part = xs[mask]
            k.run(part, part, sleef.SIGMOID, 0, 0, 0, -1)
            want[mask] = part
        np.testing.assert_array_equal(_bits(got), _bits(want))
        _same(strided.tensor(base).sigmoid(), torch.from_numpy(base).sigmoid())


# ---------------------------------------------------------------- prelu

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("special", [False, True])
def test_prelu_rowmajor_bits_equal_torch(dtype, special, spies):
    rng = np.random.default_rng(17)
    for shape in [(3, 4), (16, 16), (2, 3, 5), (1, 7), (4, 33), (2, 70, 3), (7,), (), (0, 3), (2, 0, 4), (5, 64)]:
        a = _data(shape, dtype, rng, special)
        weights = [(1,), ()] + ([(shape[1],)] if len(shape) >= 2 else [])
        for wshape in weights:
            w = np.asarray(rng.standard_normal(wshape) * 0.5, dtype)
            before = spies["adopted"]
            s = F.prelu(strided.tensor(a), strided.tensor(w))
            t = TF.prelu(torch.from_numpy(a), torch.from_numpy(w))
            # (the fast path's result; an empty tensor's strides are not row-major ones: the general path)
            assert spies["adopted"] == before + (1 if a.size else 0)
            if a.size:  # (zero-size: PyTorch's empty result has its own strides, (0, 0); values only)
                _same(s, t)
            else:
                assert tuple(s.shape) == tuple(t.shape)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_prelu_nan_weight_takes_numpys_product(dtype):
    """A NaN one-element weight is not the compiled leaky_relu's (its product's NaN where both are
    NaN): NumPy's weight * input, the general path's bits (compared with the composition)."""
    a = np.full((3, 40), np.nan, dtype)
    a[:, ::2] = -np.nan
    a[1] = np.linspace(-2, 2, 40)
    w = np.array([np.nan], dtype)
    fast = F.prelu(strided.tensor(a), strided.tensor(w))
    general = F.prelu(strided.tensor(a).t().contiguous().t(), strided.tensor(w))  # (column-major: not the fast path)
    np.testing.assert_array_equal(_bits(fast), _bits(general.contiguous()))
    # (x not NaN: one NaN operand, PyTorch's bits)
    np.testing.assert_array_equal(_bits(fast)[1], _bits(TF.prelu(torch.from_numpy(a), torch.from_numpy(w)))[1])


def test_prelu_other_layouts_and_grads(spies):
    rng = np.random.default_rng(19)
    a = rng.standard_normal((4, 6, 5))
    w = rng.standard_normal((6,))
    _same(F.prelu(strided.tensor(a).transpose(0, 2).transpose(0, 2)[:, ::2], strided.tensor(w)[::2]),
          TF.prelu(torch.from_numpy(a)[:, ::2], torch.from_numpy(w)[::2]))
    _same(F.prelu(strided.tensor(a).permute(0, 2, 1), strided.tensor(w)[:5]),
          TF.prelu(torch.from_numpy(a).permute(0, 2, 1), torch.from_numpy(w)[:5]))
    for wgrad in (False, True):
        s_x, s_w = strided.tensor(a, requires_grad=True), strided.tensor(w, requires_grad=wgrad)
        t_x, t_w = torch.tensor(a, requires_grad=True), torch.tensor(w, requires_grad=wgrad)
        so, to = F.prelu(s_x, s_w), TF.prelu(t_x, t_w)
        assert _node(so) == _node(to) == "PreluKernelBackward0"
        _same(so.detach(), to.detach())
        g = np.sin(np.arange(so.numel())).reshape(tuple(so.shape))
        so.backward(strided.tensor(g))
        to.backward(torch.tensor(g))
        np.testing.assert_allclose(s_x.grad.numpy(), t_x.grad.numpy(), rtol=1e-12)
        if wgrad:
            np.testing.assert_allclose(s_w.grad.numpy(), t_w.grad.numpy(), rtol=1e-12)


PRELU_ERRORS = [
    (lambda L: (L.ones(2, 3), L.full((1,), 0.25, dtype=L.float64)), RuntimeError,
     "prelu: Type promoting not supported. Got Float and Double"),
    (lambda L: (L.tensor(1.0), L.ones(3)), RuntimeError, "Not allow zero-dim input tensor."),
    (lambda L: (L.ones(2, 3), L.ones(2, 2)), RuntimeError,
     "Mismatch of parameter numbers and input channel size. Found parameter numbers = 4 and channel size = 3."),
    (lambda L: (L.ones(2, 3), L.ones(1, 1)), RuntimeError,
     "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2"),
    (lambda L: (L.ones(2, 3), L.ones(1, 3)), RuntimeError,
     "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2"),
    (lambda L: (L.ones(2, 3, dtype=L.int64), L.ones(1, dtype=L.int64)), NotImplementedError,
     "\"prelu_cpu\" not implemented for 'Long'"),
    (lambda L: (L.ones(2, 3, dtype=L.bool), L.ones(1, dtype=L.bool)), NotImplementedError,
     "\"prelu_cpu\" not implemented for 'Bool'"),
    (lambda L: (L.ones(2, 3, dtype=L.complex64), L.ones(1, dtype=L.complex64)), NotImplementedError,
     "\"prelu_cpu\" not implemented for 'ComplexFloat'"),
]


@pytest.mark.parametrize("case", range(len(PRELU_ERRORS)))
def test_prelu_errors_are_pytorchs(case):
    make, cls, first = PRELU_ERRORS[case]
    with pytest.raises(cls) as t_err:
        TF.prelu(*make(torch))
    assert str(t_err.value).splitlines()[0] == first
    with pytest.raises(cls) as s_err:
        F.prelu(*make(strided))
    assert str(s_err.value).splitlines()[0] == first
    assert len(str(s_err.value).splitlines()) >= 2  # (strided's own line in the tensor's numbers)


# ---------------------------------------------------------------- cosine_similarity

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cosine_rowmajor_bits_equal_torch(dtype, spies):
    """Finite values, infinities, zero rows (clamped norms) and tiny eps: PyTorch's bits. (NaN
    rows are left out: PyTorch's norm of a row with a NaN gives its vectorized NaN, 0xFFFFFFFF,
    which the norm kernel here does not reproduce -- before and after this fast path alike.)"""
    rng = np.random.default_rng(23)
    for shape in [(3, 4), (16, 16), (2, 3, 5), (1, 7), (5, 1, 2), (4, 33), (2, 70), (9, 2), (40,)]:
        for kind in ("plain", "zeros", "big"):
            a, b = _data(shape, dtype, rng), _data(shape, dtype, rng)
            if kind == "zeros" and len(shape) > 1:
                a[0] = 0
                b[-1] = -0.0
            if kind == "big":
                a *= dtype(1e18)
            for eps in (1e-8, 0.5, 0, 1e-45, 3):
                for dim in (-1, len(shape) - 1):
                    before = spies["norm2_rows"]
                    s = F.cosine_similarity(strided.tensor(a), strided.tensor(b), dim, eps)
                    t = TF.cosine_similarity(torch.from_numpy(a), torch.from_numpy(b), dim, eps)
                    _same(s, t)
                    assert spies["norm2_rows"] == before + 2
            if len(shape) == 2:  # (the default dim, 1: the last)
                _same(F.cosine_similarity(strided.tensor(a), strided.tensor(b)),
                      TF.cosine_similarity(torch.from_numpy(a), torch.from_numpy(b)))


def test_cosine_other_calls_take_the_composition(spies):
    """Broadcast operands, a dim other than the last, transposed inputs, a size-1 last dim, NaN
    eps, inputs that require grad: the composition (PyTorch's values; the graph's own nodes)."""
    rng = np.random.default_rng(29)
    a, b = rng.standard_normal((4, 5, 6)), rng.standard_normal((4, 5, 6))
    sa, sb, ta, tb = strided.tensor(a), strided.tensor(b), torch.from_numpy(a), torch.from_numpy(b)
    cases = [
        (lambda M, x, y: M.cosine_similarity(x, y[:1]), ),
        (lambda M, x, y: M.cosine_similarity(x, y, 1), ),
        (lambda M, x, y: M.cosine_similarity(x, y, 0), ),
        (lambda M, x, y: M.cosine_similarity(x.transpose(0, 2), y.transpose(0, 2), -1), ),
        (lambda M, x, y: M.cosine_similarity(x[..., :1], y[..., :1], -1), ),
    ]
    for (call,) in cases:
        _same(call(F, sa, sb), call(TF, ta, tb))
    assert spies["norm2_rows"] == 0
    s_x, t_x = strided.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    so, to = F.cosine_similarity(s_x, sb, -1), TF.cosine_similarity(t_x, tb, -1)
    assert spies["norm2_rows"] == 0
    assert _node(so) == _node(to) == "SumBackward1"
    _same(so.detach(), to.detach())
    so.sum().backward()
    to.sum().backward()
    np.testing.assert_allclose(s_x.grad.numpy(), t_x.grad.numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("eps", [float("nan"), -1.0, -1e-08, -0.5, -3])
def test_cosine_negative_or_nan_eps_is_pytorchs_error(eps):
    with pytest.raises(RuntimeError) as t:
        TF.cosine_similarity(torch.ones(2, 3), torch.ones(2, 3), 1, eps)
    with pytest.raises(RuntimeError) as s:
        F.cosine_similarity(strided.ones(2, 3), strided.ones(2, 3), 1, eps)
    assert str(s.value).splitlines()[0] == str(t.value).splitlines()[0]


def test_cosine_errors_unchanged():
    with pytest.raises(RuntimeError) as e:
        F.cosine_similarity(strided.ones(2, 3), strided.ones(2, 4))
    with pytest.raises(RuntimeError) as t:
        TF.cosine_similarity(torch.ones(2, 3), torch.ones(2, 4))
    assert str(e.value).splitlines()[0] == str(t.value).splitlines()[0]
    with pytest.raises(IndexError):
        F.cosine_similarity(strided.ones(3), strided.ones(3))  # (the default dim 1 of a 1-D input)


def test_fast_paths_stay_off_while_listening(spies):
    """With a listener open (watch, the copy ledger) the compositions run: their records are the
    ops they always reported."""
    x = strided.ones(4, 6)
    with strided.watch() as w:
        F.glu(x)
        F.prelu(x, strided.full((1,), 0.25))
        F.cosine_similarity(x, x)
    assert spies["glu_rows"] == spies["norm2_rows"] == 0
    assert [step.name for step in w.steps] == [
        "glu", "full", "prelu", "cosine_similarity", "cosine_similarity", "norm", "norm", "clone", "clone",
        "clamp_", "clamp_", "div", "div", "mul", "sum"]
    assert w.bytes_copied == 32  # (the two norms' clones, as before)


def test_without_the_compiled_kernels_the_numpy_paths_run(spies):
    """With the compiled kernels off (no C compiler, ``STRIDED_NATIVE=0``): glu's fast path
    answers None (its sigmoid is the kernel's) and the composition runs NumPy's formula; prelu
    takes NumPy's product and selection (still PyTorch's bits: exact operations); cosine's norms
    are NumPy's form of the same loop. Values within a few ulps of PyTorch's."""
    rng = np.random.default_rng(31)
    a = rng.standard_normal((6, 8)).astype(np.float32)
    w = np.array([0.25], np.float32)
    with native.disabled():
        g = F.glu(strided.tensor(a))
        p = F.prelu(strided.tensor(a), strided.tensor(w))
        c = F.cosine_similarity(strided.tensor(a), strided.tensor(a[::-1].copy()))
    # (asked and answered None twice: by the entry's fresh path, then by glu's body for its keyword calls)
    assert spies["glu_rows"] == 2
    np.testing.assert_allclose(g.numpy(), TF.glu(torch.from_numpy(a)).numpy(), rtol=1e-6)
    _same(p, TF.prelu(torch.from_numpy(a), torch.from_numpy(w)))
    np.testing.assert_allclose(c.numpy(), TF.cosine_similarity(torch.from_numpy(a), torch.from_numpy(a[::-1].copy())).numpy(),
                               rtol=1e-6, atol=1e-7)
