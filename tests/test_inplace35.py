"""The compiled in-place writes of the entry fronts (``compiled_inplace``; ``kernels/_front.h``,
``entry_inplace``): ``relu_`` (``x.relu_()``, ``strided.relu_``, ``F.relu(x, inplace=True)``),
``selu_``, ``celu_`` and ``rrelu_`` (``F.rrelu(x, inplace=True)`` too) on a plain row-major
float32 / float64 tensor are written in C. Each must leave exactly what the Python forward
leaves (its front's fallback, called directly: the path every other call takes): the same bits
(NaN payloads and signs, -0.0), the same version count, the same object returned; and torch's
bits where the forward has them. Every call the C write does not take (autograd, views at an
offset, expanded or read-only memory, other dtypes, other parameters, listeners, the kernels
off) still raises or computes what the forward does."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
import strided.nn.functional as F
from strided.kernels import native

torch.set_num_threads(1)

# float32 words: quiet and signalling NaNs of both signs with payloads, -0.0, subnormals, infinities
_F32_WORDS = np.array([0x7FC00000, 0xFFC00001, 0x7FA00001, 0xFF800123, 0x80000000, 0x00000000, 0x00000001,
                       0x80000001, 0x7F800000, 0xFF800000, 0x3F800000, 0xBF800000, 0xC2C80000, 0x42C80000,
                       0xBE800000, 0x3E800000], np.uint32)
_F64_WORDS = np.array([0x7FF8000000000000, 0xFFF8000000000001, 0x7FF4000000000001, 0xFFF0000000000123,
                       0x8000000000000000, 0, 1, 0x8000000000000001, 0x7FF0000000000000, 0xFFF0000000000000,
                       0x3FF0000000000000, 0xBFF0000000000000, 0xC059000000000000, 0x4059000000000000,
                       0xBFD0000000000000, 0x3FD0000000000000], np.uint64)


def _values(dtype: type, shape: tuple, seed: int) -> np.ndarray:
    """Special words mixed with normal values (negative and positive) of ``dtype``."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    normal = rng.normal(0, 3, n).astype(dtype)
    words = _F32_WORDS if dtype == np.float32 else _F64_WORDS
    special = words[rng.integers(0, len(words), n)].view(dtype)
    return np.where(rng.random(n) < 0.4, special, normal).reshape(shape)


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


# (name, strided call, torch call or None where torch's bits are not the forward's own, the op's
# public front): torch's rrelu_ / celu_ / selu_ bits are the forward's for float64 and (relu) both
_OPS = {
    "relu_": (lambda x: st.relu_(x), lambda t: torch.relu_(t)),
    "t.relu_()": (lambda x: x.relu_(), lambda t: t.relu_()),
    "F.relu": (lambda x: F.relu(x, inplace=True), lambda t: TF.relu(t, inplace=True)),
    "selu_": (lambda x: st.selu_(x), lambda t: torch.selu_(t)),
    "F.selu": (lambda x: F.selu(x, inplace=True), lambda t: TF.selu(t, inplace=True)),
    "celu_": (lambda x: st.celu_(x), lambda t: torch.celu_(t)),
    "celu_ alpha=1.0": (lambda x: st.celu_(x, alpha=1.0), lambda t: torch.celu_(t, alpha=1.0)),
    "rrelu_": (lambda x: st.rrelu_(x), lambda t: torch.rrelu_(t)),
    "rrelu_ bounds": (lambda x: st.rrelu_(x, 0.1, 0.3), lambda t: torch.rrelu_(t, 0.1, 0.3)),
    "rrelu_ keywords": (lambda x: st.rrelu_(x, upper=0.5, lower=0.25, training=False),
                        lambda t: torch.rrelu_(t, upper=0.5, lower=0.25, training=False)),
    "F.rrelu": (lambda x: F.rrelu(x, 0.2, 0.4, inplace=True), lambda t: TF.rrelu(t, 0.2, 0.4, inplace=True)),
}

# the Python forward behind each public front (the fallback: what every call outside the C write runs)
_FALLBACK = {
    "relu_": lambda x: st.relu_.__front_fallback__(x),
    "selu_": lambda x: st.selu_.__front_fallback__(x),
    "celu_": lambda x: st.celu_.__front_fallback__(x),
    "rrelu_": lambda x: st.rrelu_.__front_fallback__(x),
}


def _fallback_of(name: str):
    key = name.split()[0].removeprefix("t.").removesuffix("()").removeprefix("F.")
    key = key if key.endswith("_") else key + "_"
    base = _FALLBACK[key]
    if name in ("rrelu_ bounds", "F.rrelu"):
        lo, hi = (0.1, 0.3) if name == "rrelu_ bounds" else (0.2, 0.4)
        return lambda x: st.rrelu_.__front_fallback__(x, lo, hi)
    if name == "rrelu_ keywords":
        return lambda x: st.rrelu_.__front_fallback__(x, 0.25, 0.5)
    return base


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (7,), (), (0, 3), (2, 3, 5), (300, 70)])
@pytest.mark.parametrize("name", list(_OPS))
def test_compiled_write_is_the_forward_s(dtype, shape, name):
    """The C write's bits, result object and version are the Python forward's; torch's bits where
    the forward has them (relu_ and rrelu_ everywhere, selu_ / celu_ in float64: float32's expm1 is
    SLEEF's in both, but checked against the forward only)."""
    call, tcall = _OPS[name]
    a = _values(dtype, shape, hash((name, shape)) % 1000)
    x, y = st.tensor(a), st.tensor(a)
    v0 = x._version
    assert call(x) is x
    assert _fallback_of(name)(y) is y
    assert _bits(x.numpy()) == _bits(y.numpy()), name
    assert x._version == y._version == v0 + 1
    assert x.shape == tuple(shape) and x.stride() == y.stride()
    t = torch.tensor(a)
    assert tcall(t) is t
    if "selu" in name or "celu" in name:
        # (NaN payloads: torch's vectorized expm1 path quiets them as the forward's loop does)
        if dtype == np.float64:
            assert np.array_equal(x.numpy(), t.numpy(), equal_nan=True)
        else:
            assert np.allclose(x.numpy(), t.numpy(), rtol=2e-7, atol=0, equal_nan=True)
    else:
        assert _bits(x.numpy()) == _bits(t.numpy()), name


@settings(max_examples=60, deadline=None)
@given(hs.sampled_from(list(_OPS)), hs.sampled_from([np.float32, np.float64]),
       hs.lists(hs.integers(0, 9), min_size=0, max_size=3), hs.integers(0, 10_000))
def test_compiled_write_fuzz(name, dtype, shape, seed):
    call, _ = _OPS[name]
    a = _values(dtype, tuple(shape), seed)
    x, y = st.tensor(a), st.tensor(a)
    call(x)
    _fallback_of(name)(y)
    assert _bits(x.numpy()) == _bits(y.numpy())
    assert x._version == y._version


def test_relu_nan_words_and_signed_zeros_match_torch():
    words = np.array([0x7FC00000, 0xFFC00001, 0x7FA00001, 0xFF800123, 0x80000000, 0, 0xBF800000, 0x3F800000],
                     np.uint32)
    x = st.tensor(words.view(np.float32).copy())
    t = torch.tensor(words.view(np.float32).copy())
    x.relu_()
    t.relu_()
    assert x.numpy().view(np.uint32).tolist() == t.numpy().view(np.uint32).tolist()


@pytest.mark.parametrize("name", ["relu_", "selu_", "celu_", "rrelu_"])
def test_a_view_of_the_whole_storage_writes_through_and_counts_on_the_base(name):
    base = st.tensor(np.linspace(-3, 3, 12, dtype=np.float32))
    tb = torch.tensor(np.linspace(-3, 3, 12, dtype=np.float32))
    view, tview = base.view(3, 4), tb.view(3, 4)
    getattr(st, name)(view)
    getattr(torch, name)(tview)
    assert np.allclose(base.numpy(), tb.numpy(), rtol=2e-7, atol=0)
    assert base._version == view._version == tb._version == tview._version == 1


@pytest.mark.parametrize("name", ["relu_", "selu_", "celu_", "rrelu_"])
def test_layouts_the_write_does_not_take(name):
    """Offsets, column slices and transposes go to the forward: its elements only, torch's values."""
    a = np.linspace(-3, 3, 48).reshape(4, 12)
    for view in (lambda t: t[1:3], lambda t: t[:, ::2], lambda t: t.t(), lambda t: t[:, 1:]):
        x, t = st.tensor(a), torch.tensor(a)
        r = getattr(st, name)(view(x))
        getattr(torch, name)(view(t))
        assert r.shape == tuple(view(t).shape)
        assert np.array_equal(x.numpy(), t.numpy())
        assert x._version == t._version == 1


@pytest.mark.parametrize("name", ["relu_", "selu_", "celu_", "rrelu_"])
def test_expanded_tensor_is_refused_as_torch_refuses_it(name):
    x = st.tensor([[-1.0, 2.0, -3.0]]).expand(2, 3)
    t = torch.tensor([[-1.0, 2.0, -3.0]]).expand(2, 3)
    with pytest.raises(RuntimeError) as theirs:
        getattr(torch, name)(t)
    with pytest.raises(RuntimeError) as ours:
        getattr(st, name)(x)
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


@pytest.mark.parametrize("name", ["relu_", "selu_", "celu_", "rrelu_"])
def test_leaf_requiring_grad_is_refused_as_torch_refuses_it(name):
    x = st.tensor([-1.0, 2.0], requires_grad=True)
    t = torch.tensor([-1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError) as theirs:
        getattr(torch, name)(t)
    with pytest.raises(RuntimeError) as ours:
        getattr(st, name)(x)
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]
    assert x.tolist() == [-1.0, 2.0]


@pytest.mark.parametrize("name", ["relu_", "selu_", "celu_", "rrelu_"])
def test_under_no_grad_a_leaf_is_written_and_counted(name):
    x = st.tensor([-1.0, 2.0, 0.5], requires_grad=True)
    t = torch.tensor([-1.0, 2.0, 0.5], requires_grad=True)
    with st.no_grad():
        getattr(st, name)(x)
    with torch.no_grad():
        getattr(torch, name)(t)
    assert np.allclose(x.detach().numpy(), t.detach().numpy(), rtol=1e-15, atol=0)
    assert x._version == t._version == 1


@pytest.mark.parametrize("name", ["relu_", "selu_", "celu_", "rrelu_"])
def test_a_saved_tensor_written_through_a_detached_alias_fails_backward(name):
    """The compiled write counts the version on the shared storage: backward sees the change."""
    x = st.tensor([-1.0, 2.0, 0.5], requires_grad=True)
    y = x.exp()  # (exp saves its result)
    getattr(st, name)(y.detach())
    t = torch.tensor([-1.0, 2.0, 0.5], requires_grad=True)
    u = t.exp()
    getattr(torch, name)(u.detach())
    with pytest.raises(RuntimeError) as theirs:
        u.sum().backward()
    with pytest.raises(RuntimeError) as ours:
        y.sum().backward()
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


@pytest.mark.parametrize("name", ["relu_", "selu_", "celu_", "rrelu_"])
def test_in_graph_write_records_as_the_forward(name):
    x = st.tensor([-1.0, 2.0, 0.5], dtype=st.float64, requires_grad=True)
    t = torch.tensor([-1.0, 2.0, 0.5], dtype=torch.float64, requires_grad=True)
    y = x * 1.0
    u = t * 1.0
    getattr(st, name)(y)
    getattr(torch, name)(u)
    assert y._version == u._version == 1
    y.sum().backward()
    u.sum().backward()
    assert np.allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", ["relu_", "selu_", "celu_", "rrelu_"])
def test_read_only_memory_is_refused(name):
    a = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    a.flags.writeable = False
    x = st.from_numpy(a)
    with pytest.raises(RuntimeError, match="read-only"):
        getattr(st, name)(x)
    assert np.array_equal(a, np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["relu_", "selu_", "celu_", "rrelu_"])
def test_half_dtypes_take_the_forward(dtype, name):
    a = np.linspace(-3, 3, 12)
    x = st.tensor(a, dtype=getattr(st, dtype))
    t = torch.tensor(a, dtype=getattr(torch, dtype))
    getattr(st, name)(x)
    getattr(torch, name)(t)
    assert np.allclose(x.float().numpy(), t.float().numpy(), rtol=1e-2, atol=1e-2)
    assert x.dtype == getattr(st, dtype) and x._version == 1


def test_parameters_the_write_does_not_take():
    a = np.linspace(-3, 3, 12, dtype=np.float32)
    for args, kwargs in (((2.0,), {}), ((), {"alpha": 0.5}), ((1,), {})):
        x, t = st.tensor(a), torch.tensor(a)
        st.celu_(x, *args, **kwargs)
        torch.celu_(t, *args, **kwargs)
        assert np.allclose(x.numpy(), t.numpy(), rtol=2e-7, atol=0)
    for args in ((0.25, 0.25), (1, 2), (0.5, 0.25)):
        x, t = st.tensor(a), torch.tensor(a)
        if args[0] > args[1]:
            with pytest.raises(RuntimeError) as theirs:
                torch.rrelu_(t, *args)
            with pytest.raises(RuntimeError) as ours:
                st.rrelu_(x, *args)
            assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]
            assert x.tolist() == t.tolist() == a.tolist()
            continue
        st.rrelu_(x, *args)
        torch.rrelu_(t, *args)
        assert _bits(x.numpy()) == _bits(t.numpy())
    with pytest.raises(RuntimeError, match="alpha cannot be 0"):
        st.celu_(st.tensor(a), 0.0)


def test_rrelu_training_still_draws():
    st.manual_seed(0)
    x = st.tensor(-np.ones(64, np.float32))
    st.rrelu_(x, 0.1, 0.3, training=True)
    values = x.numpy()
    assert ((values <= -0.1) & (values >= -0.3)).all() and len(set(values.tolist())) > 1


def test_rrelu_float32_slope_beyond_range_is_the_forward_s_error():
    with pytest.raises(RuntimeError) as ours:
        st.rrelu_(st.tensor([-1.0]), 1e39, 1e39)
    with pytest.raises(RuntimeError) as theirs:
        torch.rrelu_(torch.tensor([-1.0]), 1e39, 1e39)
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


@pytest.mark.parametrize("name", ["relu_", "selu_", "celu_", "rrelu_"])
def test_bad_arguments_are_the_forward_s_errors(name):
    x = st.tensor([1.0, -1.0])
    with pytest.raises(TypeError):
        getattr(st, name)(x, 1.0, 2.0, 3.0, 4.0, 5.0)
    with pytest.raises(TypeError):
        getattr(st, name)(x, nonsense=1.0)
    with pytest.raises(TypeError):
        getattr(st, name)([1.0, -1.0])
    assert x.tolist() == [1.0, -1.0]


def test_integer_relu_takes_the_forward():
    x, t = st.tensor([-2, 0, 3]), torch.tensor([-2, 0, 3])
    x.relu_()
    t.relu_()
    assert x.tolist() == t.tolist() and x.dtype == st.int64


@pytest.mark.parametrize("name", ["relu_", "selu_", "celu_", "rrelu_"])
def test_kernels_off_and_listeners_take_the_forward(name):
    a = _values(np.float64, (4, 5), 3)
    want = st.tensor(a)
    getattr(st, name)(want)
    with native.disabled():
        x = st.tensor(a)
        getattr(st, name)(x)
    assert np.array_equal(x.numpy(), want.numpy(), equal_nan=True) or name in ("selu_", "celu_")
    y = st.tensor(a)
    with st.watch() as w:
        getattr(st, name)(y)
    assert [(s.name, s.kind) for s in w.steps] == [(name, "write")]  # (reported by the forward, once)
    assert _bits(y.numpy()) == _bits(want.numpy())


def test_large_relu_in_place_matches_torch():
    a = _values(np.float32, (1024, 1024), 11)
    x, t = st.tensor(a), torch.tensor(a)
    x.relu_()
    t.relu_()
    assert _bits(x.numpy()) == _bits(t.numpy())


def test_inference_tensor_is_refused_outside_the_mode():
    with st.inference_mode():
        x = st.tensor([-1.0, 1.0])
    with torch.inference_mode():
        t = torch.tensor([-1.0, 1.0])
    with pytest.raises(RuntimeError) as theirs:
        t.relu_()
    with pytest.raises(RuntimeError) as ours:
        x.relu_()
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


@pytest.mark.parametrize("name", ["relu_", "selu_", "celu_", "rrelu_"])
def test_a_dtype_view_shares_the_count(name):
    """A float32 view of an int32 tensor's memory (a typed alias of its storage): the write is
    counted on both, as torch's shared version counter counts it."""
    a = np.array([-1, 2, -3, 4], np.float32)
    ints = st.tensor(a).view(st.int32)
    floats = ints.view(st.float32)
    tints = torch.tensor(a).view(torch.int32)
    tfloats = tints.view(torch.float32)
    getattr(st, name)(floats)
    getattr(torch, name)(tfloats)
    assert ints.tolist() == tints.tolist()
    assert ints._version == floats._version == tints._version == tfloats._version == 1
