"""sign, nan_to_num and F.leaky_relu through the compiled ``unary_exact`` kernel (strided.kernels._specialkernel):
contiguous float32/float64 runs take one pass of it, on the fast path and in the general path's
kernel. Each case runs three ways -- compiled, NumPy (``native.disabled()``) and PyTorch -- and
compares the bits (-0.0, NaN payloads, infinities), dtype, shape and strides."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as hst

import strided as st
import strided.nn.functional as F
from strided.kernels import native
from strided.ops._support.front import fallback_of

pytestmark = pytest.mark.skipif(native.special() is None, reason="the compiled kernels are not built")

BITS = {"float32": np.uint32, "float64": np.uint64, "float16": np.uint16}


def _specials(dtype: str) -> np.ndarray:
    plain = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-30, -1e-30, 1e-45, 3e38, -3e38, np.inf, -np.inf, np.nan,
                      -np.nan], dtype)
    if dtype == "float32":
        nans = np.array([0x7FC00001, 0xFFC12345, 0x7F800001, 0xFF800002], np.uint32).view(dtype)
    else:
        nans = np.array([0x7FF8000000000001, 0xFFF0000000000002], np.uint64).view(dtype)
    return np.concatenate([plain, nans])


def _bits(a) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(BITS[a.dtype.name]) if a.dtype.name in BITS else a


def _same(got, ref) -> None:
    assert got.dtype.name == str(ref.dtype).removeprefix("torch.")
    assert got.shape == tuple(ref.shape) and got.stride() == ref.stride()
    np.testing.assert_array_equal(_bits(got.numpy()), _bits(ref.numpy()))


def _three_ways(call, tcall, x: np.ndarray) -> None:
    fast = call(st, st.from_numpy(x))
    with native.disabled():
        slow = call(st, st.from_numpy(x))
    ref = tcall(torch, torch.from_numpy(x))
    _same(fast, ref)
    _same(slow, ref)


CALLS = [
    ("sign", lambda m, t: m.sign(t), lambda m, t: m.sign(t)),
    ("sgn", lambda m, t: m.sgn(t), lambda m, t: m.sgn(t)),
    ("nan_to_num", lambda m, t: m.nan_to_num(t), lambda m, t: m.nan_to_num(t)),
    ("nan_to_num args", lambda m, t: m.nan_to_num(t, nan=-0.0, posinf=7.5, neginf=-1e300),
     lambda m, t: m.nan_to_num(t, nan=-0.0, posinf=7.5, neginf=-1e300)),
    ("nan_to_num int args", lambda m, t: m.nan_to_num(t, 3, 4, -5), lambda m, t: m.nan_to_num(t, 3, 4, -5)),
    ("method", lambda m, t: t.nan_to_num(posinf=1e39), lambda m, t: t.nan_to_num(posinf=1e39)),
    *[(f"leaky_relu {k}", lambda m, t, k=k: F.leaky_relu(t, k), lambda m, t, k=k: TF.leaky_relu(t, k))
      for k in (0.01, 0.2, 1.0, 0.0, 2.0, -0.5, 1e-50, 1e-300)],
    ("leaky_relu default", lambda m, t: F.leaky_relu(t), lambda m, t: TF.leaky_relu(t)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("call", CALLS, ids=[c[0] for c in CALLS])
def test_special_values_bit_for_bit(call, dtype):
    x = _specials(dtype)
    _three_ways(call[1], call[2], x)
    _three_ways(call[1], call[2], np.concatenate([x, x[:1]]).reshape(2, -1).T)  # permuted: general path
    _three_ways(call[1], call[2], np.concatenate([np.ones(1, dtype), x])[1:])  # at an offset: fast path
    _three_ways(call[1], call[2], np.repeat(x, 2)[::2])  # every other element: general path


@settings(max_examples=60, deadline=None)
@given(hst.sampled_from(["float32", "float64"]), hst.sampled_from(CALLS),
       hst.lists(hst.floats(width=32), min_size=0, max_size=30))
def test_random_values(dtype, call, values):
    _three_ways(call[1], call[2], np.array(values, dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [64, 1000, 4099])
def test_nan_to_num_long_runs(dtype, n):
    """Runs past the kernel's 64-element blocks (all-finite blocks copied as they are, the others
    selected lane by lane): specials sprinkled sparsely (some blocks hold none), the largest
    finite values and subnormals among them, in place too."""
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(dtype)
    fi = np.finfo(dtype)
    edge = np.array([fi.max, -fi.max, fi.smallest_subnormal, -fi.smallest_subnormal, 0.0, -0.0], dtype)
    x[rng.integers(0, n, n // 50 + 1)] = edge[rng.integers(0, len(edge), n // 50 + 1)]
    specials = _specials(dtype)
    x[rng.integers(0, n // 2, 3)] = specials[rng.integers(0, len(specials), 3)]
    x[-1] = np.inf  # (the tail, and the last block)
    for call in CALLS[2:6]:
        _three_ways(call[1], call[2], x)
    a, t = st.from_numpy(x.copy()), torch.from_numpy(x.copy())
    a.nan_to_num_(posinf=1.5, nan=-0.0)
    t.nan_to_num_(posinf=1.5, nan=-0.0)
    _same(a, t)


def test_other_dtypes_take_numpy():
    h = np.array([0.0, -0.0, 1.0, -2.0, np.inf, -np.inf, np.nan], np.float16)
    for _, call, tcall in CALLS[:4]:
        _three_ways(call, tcall, h)
    i = np.array([0, -3, 5], np.int32)
    _three_ways(CALLS[0][1], CALLS[0][2], i)
    _three_ways(CALLS[2][1], CALLS[2][2], i)
    for shape in ((), (0,), (2, 0)):
        _three_ways(CALLS[0][1], CALLS[0][2], np.full(shape, -0.0, np.float32))
        _three_ways(CALLS[2][1], CALLS[2][2], np.full(shape, np.nan, np.float64))


def test_in_place_and_out():
    x = _specials("float32")
    for off in (False, True):
        a, t = st.from_numpy(x.copy()), torch.from_numpy(x.copy())
        o, to = st.empty(len(x)), torch.empty(len(x))
        if off:
            with native.disabled():
                a.nan_to_num_(neginf=2.0), a.sign_(), st.sign(st.from_numpy(x), out=o)
        else:
            a.nan_to_num_(neginf=2.0), a.sign_(), st.sign(st.from_numpy(x), out=o)
        t.nan_to_num_(neginf=2.0), t.sign_(), torch.sign(torch.from_numpy(x), out=to)
        _same(a, t)
        _same(o, to)


def test_leaky_relu_in_place_float16_and_gradients():
    x = _specials("float32")
    for off in (False, True):
        a, t = st.from_numpy(x.copy()), torch.from_numpy(x.copy())
        if off:
            with native.disabled():
                F.leaky_relu(a, 0.3, inplace=True)
        else:
            F.leaky_relu(a, 0.3, inplace=True)
        TF.leaky_relu_(t, 0.3)
        _same(a, t)
    h = np.array([0.0, -0.0, -1.0, 2.0, -60000.0, np.inf, -np.inf, np.nan], np.float16)
    _same(F.leaky_relu(st.from_numpy(h), 0.1), TF.leaky_relu(torch.from_numpy(h), 0.1))
    v = np.array([[-2.0, -0.0, 0.0], [3.0, -1e-3, 5.0]])
    a, t = st.tensor(v, requires_grad=True), torch.tensor(v, requires_grad=True)
    F.leaky_relu(a, 0.2).pow(2).sum().backward()
    TF.leaky_relu(t, 0.2).pow(2).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), t.grad.numpy())


def test_sign_gradient_and_watch():
    x = np.array([[1.0, -0.0, np.nan], [-2.0, np.inf, 0.5]])
    a = st.tensor(x, requires_grad=True)
    st.sign(a).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.zeros_like(x))
    b = st.tensor(x)
    with st.watch() as w:
        st.sign(b), st.nan_to_num(b)
    assert [s.name for s in w.steps] == ["sign", "nan_to_num"]


def test_bad_arguments_are_refused_as_before():
    with pytest.raises(TypeError):
        st.nan_to_num(st.ones(2), nan="x")
    # (a bool is a float to PyTorch's parser here: posinf=True is 1.0, as red27 found)
    x = [float("inf"), float("nan"), -float("inf")]
    got = st.nan_to_num(st.tensor(x), posinf=True, neginf=False).tolist()
    assert got == torch.nan_to_num(torch.tensor(x), posinf=True, neginf=False).tolist() == [1.0, 0.0, 0.0]


def test_the_kernel_runs_and_refuses_what_it_does_not_take(monkeypatch):
    k = native.special()
    x = np.arange(8.0)
    assert k.unary_exact(x, x, 0) is False  # overlap
    assert k.unary_exact(x[::2], np.empty(4), 0) is False  # not contiguous
    assert k.unary_exact(x, np.empty(8, np.float32), 0) is False  # formats differ
    assert k.unary_exact(x.astype(">f8"), np.empty(8, ">f8"), 0) is False  # not native
    assert k.unary_exact(x.astype(np.float16), np.empty(8, np.float16), 0) is False
    with pytest.raises(ValueError):
        k.unary_exact(x, np.empty(8), 12)  # (3 rsqrt, 4 logit's quotient: tests/test_unary_exact_lanes.py; 5 sinc; 6-11 tests/test_actfast33.py)
    with pytest.raises(TypeError):
        k.unary_exact(x, np.empty(8), 1)  # nan_to_num without its values
    with pytest.raises(TypeError):
        k.unary_exact(x, np.empty(8), 2, 0.1, 0.2)  # leaky_relu takes one
    calls = []

    class Spy:
        def unary_exact(self, *args):
            calls.append(args[2])
            return k.unary_exact(*args)

    monkeypatch.setattr(native, "special", lambda: Spy())
    t = st.from_numpy(np.array([1.0, np.nan, -np.inf], np.float32))
    sign = fallback_of(st.sign)  # (its Python path: the compiled front holds the kernel it found at import)
    leaky_relu = fallback_of(F.leaky_relu)  # (likewise, since small27's front)
    sign(t), st.nan_to_num(t), sign(t.reshape(3, 1).expand(3, 2).contiguous()), leaky_relu(t)
    assert calls == [0, 1, 0, 2]


def test_bfloat16_never_reaches_the_kernel():
    """bfloat16 arrays have no buffer format: the kernels' callers test the dtype first."""
    x = st.tensor([1.0, -0.0, -2.0, float("inf"), float("nan")], dtype=st.bfloat16)
    t = torch.tensor([1.0, -0.0, -2.0, float("inf"), float("nan")], dtype=torch.bfloat16)
    for call, tcall in ((st.sign, torch.sign), (st.nan_to_num, torch.nan_to_num),
                        (lambda v: F.leaky_relu(v, 0.1), lambda v: TF.leaky_relu(v, 0.1))):
        got, ref = call(x), tcall(t)
        np.testing.assert_array_equal(got.float().numpy().view(np.uint32), ref.float().numpy().view(np.uint32))
    a = st.tensor([1.0, float("nan"), -0.0], dtype=st.bfloat16)
    for name in ("fmax", "fmin", "heaviside"):
        got = getattr(st, name)(a, a.flip(0))
        ref = getattr(torch, name)(torch.tensor([1.0, float("nan"), -0.0], dtype=torch.bfloat16),
                                   torch.tensor([-0.0, float("nan"), 1.0], dtype=torch.bfloat16))
        np.testing.assert_array_equal(got.float().numpy().view(np.uint32), ref.float().numpy().view(np.uint32))
