"""Session 36's small-op paths, each against torch and against the path it shortens:

- ``threshold_`` (``strided.threshold_``, ``F.threshold_``, ``F.threshold(x, th, v, inplace=True)``):
  its common call (exact float numbers, a plain row-major float32 / float64 tensor) written in C by
  the entry front (``compiled_inplace`` with required parameters; ``_specialkernel``'s op 2): the
  same bits (NaN words, -0.0), version count and returned object as the Python forward (the front's
  fallback), torch's bits, and every other call (ints, numbers beyond float32, autograd, views,
  read-only memory, missing arguments) what the forward does;
- ``from_numpy``'s memoised dense plan: every attribute of the general ``borrow_array`` wrap;
- ``split_with_sizes``' direct pieces: torch's shapes, strides, offsets and errors.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
import strided.nn.functional as F
from strided.creation import borrow_array

torch.set_num_threads(1)

# (the special words -- NaN payloads and signs, -0.0, subnormals, infinities -- mixed with normal values)
from test_inplace35 import _bits, _values  # noqa: E402

_CALLS = {
    "threshold_": (lambda x, th, v: st.threshold_(x, th, v), lambda t, th, v: torch.threshold_(t, th, v)),
    "F.threshold_": (lambda x, th, v: F.threshold_(x, th, v), lambda t, th, v: TF.threshold_(t, th, v)),
    "F.threshold inplace": (lambda x, th, v: F.threshold(x, th, v, inplace=True),
                            lambda t, th, v: TF.threshold(t, th, v, inplace=True)),
    "keywords": (lambda x, th, v: st.threshold_(x, value=v, threshold=th),
                 lambda t, th, v: torch.threshold_(t, value=v, threshold=th)),
}

# (threshold, value) pairs: zeros of both signs, NaN, infinities, numbers that round in float32
_PARAMS = [(0.25, -1.0), (0.0, -0.0), (-0.0, 0.0), (float("nan"), 1.0), (0.5, float("nan")), (float("inf"), 2.0),
           (float("-inf"), 3.0), (0.1, 0.3), (1e-40, -1e-40), (0.25000000000000006, 7.0), (3.4e38, -3.4e38)]


def _forward(x: st.Tensor, th: object, v: object) -> st.Tensor:
    return st.threshold_.__front_fallback__(x, th, v)


@pytest.mark.parametrize("call", sorted(_CALLS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (0,), (), (5000,)])
@pytest.mark.parametrize("params", _PARAMS)
def test_threshold_inplace_bits_versions(call, dtype, shape, params):
    a = _values(dtype, shape, 7)
    if a.size >= 3:  # (the threshold's own value and its neighbours in the dtype: the compare's edge)
        with np.errstate(all="ignore"):
            edge = dtype(params[0])
        a.reshape(-1)[:3] = [edge, np.nextafter(edge, dtype(np.inf)), np.nextafter(edge, dtype(-np.inf))]
    x, ref = st.from_numpy(a.copy()), st.from_numpy(a.copy())
    v0 = x._version
    out = _CALLS[call][0](x, *params)
    assert out is x
    assert _forward(ref, *params) is ref
    assert _bits(x.numpy()) == _bits(ref.numpy())
    assert x._version == ref._version == v0 + 1
    t = torch.from_numpy(a.copy())
    _CALLS[call][1](t, *params)
    assert _bits(x.numpy()) == _bits(t.numpy())


@settings(max_examples=60, deadline=None)
@given(hs.sampled_from([np.float32, np.float64]), hs.integers(0, 70), hs.integers(0, 2**32 - 1),
       hs.floats(allow_nan=True, width=64), hs.floats(allow_nan=True, width=64))
def test_threshold_inplace_any_numbers(dtype, n, seed, th, v):
    a = _values(dtype, (n,), seed)
    x, ref = st.from_numpy(a.copy()), st.from_numpy(a.copy())
    errs = []
    for f, t in ((st.threshold_, x), (_forward, ref)):
        try:
            f(t, th, v)
            errs.append(None)
        except Exception as e:  # (a float32 overflow: the forward's error, both ways)
            errs.append((type(e), str(e)))
    assert errs[0] == errs[1]
    assert _bits(x.numpy()) == _bits(ref.numpy())
    assert x._version == ref._version


def test_threshold_inplace_refusals_are_the_forwards():
    # float32 beyond its range: the forward's overflow error, nothing written
    x = st.tensor([1.0, -1.0])
    with pytest.raises(RuntimeError) as e1:
        st.threshold_(x, 1e300, 0.0)
    with pytest.raises(RuntimeError) as e2:
        _forward(st.tensor([1.0, -1.0]), 1e300, 0.0)
    assert str(e1.value) == str(e2.value)
    assert x.tolist() == [1.0, -1.0] and x._version == 0
    # a missing argument: the forward's TypeError
    with pytest.raises(TypeError):
        st.threshold_(st.tensor([1.0]), 0.5)
    with pytest.raises(TypeError):
        st.threshold_(st.tensor([1.0]), value=0.5)
    # ints (numbers and tensors): the forward, torch's values
    for dtype, tdtype in ((st.float32, torch.float32), (st.int32, torch.int32), (st.int64, torch.int64)):
        x = st.tensor([-2, 0, 1, 5], dtype=dtype)
        t = torch.tensor([-2, 0, 1, 5], dtype=tdtype)
        assert st.threshold_(x, 1, 9) is x and x._version == 1
        torch.threshold_(t, 1, 9)
        assert x.tolist() == t.tolist()
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t without overflow"):
        st.threshold_(st.tensor([1, 2], dtype=st.int8), 200.0, 0.0)
    # a leaf requiring grad: torch's in-place error
    leaf = st.tensor([1.0, -1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        st.threshold_(leaf, 0.0, 5.0)
    # read-only memory
    a = np.array([1.0, -1.0])
    a.flags.writeable = False
    with pytest.raises(Exception) as e1:
        st.threshold_(st.from_numpy(a), 0.0, 5.0)
    assert a.tolist() == [1.0, -1.0]
    assert type(e1.value).__name__


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_threshold_inplace_views_and_graph(dtype):
    a = _values(dtype, (6, 8), 3)
    # a view at an offset, a transpose, an expanded tensor's refusal: the forward's (torch's bits)
    for make, tmake in ((lambda b: b[1:, 2:], lambda t: t[1:, 2:]), (lambda b: b.t(), lambda t: t.t()),
                        (lambda b: b[:, ::2], lambda t: t[:, ::2])):
        base, tb = st.from_numpy(a.copy()), torch.from_numpy(a.copy())
        v = make(base)
        assert st.threshold_(v, 0.25, -3.0) is v
        torch.threshold_(tmake(tb), 0.25, -3.0)
        assert _bits(base.numpy()) == _bits(tb.numpy())
        assert base._version == 1
    # an expanded tensor (threshold writes overlapping memory as torch does: overlap_ok)
    e, te = st.from_numpy(a[0].copy()).expand(3, 8), torch.from_numpy(a[0].copy()).expand(3, 8)
    st.threshold_(e, 0.0, 1.0)
    torch.threshold_(te, 0.0, 1.0)
    assert _bits(e.numpy()) == _bits(te.numpy())
    # in the graph: the gradient is torch's
    x = st.from_numpy(a.copy()).requires_grad_()
    tx = torch.from_numpy(a.copy()).requires_grad_()
    y = x * 1.0
    st.threshold_(y, 0.0, 2.0).sum().backward()
    ty = tx * 1.0
    torch.threshold_(ty, 0.0, 2.0).sum().backward()
    assert _bits(y.detach().numpy()) == _bits(ty.detach().numpy())
    assert _bits(x.grad.numpy()) == _bits(tx.grad.numpy())


def test_threshold_inplace_kernels_off(monkeypatch):
    from strided.kernels import native
    a = _values(np.float32, (4, 4), 11)
    x, ref = st.from_numpy(a.copy()), st.from_numpy(a.copy())
    with native.disabled():
        st.threshold_(x, 0.25, -1.0)
    _forward(ref, 0.25, -1.0)
    assert _bits(x.numpy()) == _bits(ref.numpy()) and x._version == 1


# --- from_numpy ----------------------------------------------------------------------------------


def _attrs(t: st.Tensor) -> tuple:
    s = t.untyped_storage()
    return (t.shape, t.stride(), t.storage_offset(), t.dtype, t.is_contiguous(), t._base, t._ag,
            s.resizable(), t._storage.array.dtype, t._storage.array.shape, t._storage.array.flags.writeable,
            t._storage._pinned, type(t._storage), t.data_ptr())


_ARRAYS = [
    lambda: np.arange(12.0).reshape(3, 4),
    lambda: np.arange(12, dtype=np.float32).reshape(3, 4).T,
    lambda: np.arange(24, dtype=np.int16).reshape(2, 3, 4).transpose(2, 0, 1),
    lambda: np.arange(6, dtype=np.int64).reshape(6, 1)[:, :],
    lambda: np.ones((1, 5), np.bool_),
    lambda: np.zeros((0, 3), np.float32),
    lambda: np.array(3.5),
    lambda: np.arange(12.0).reshape(3, 4)[:, ::2],
    lambda: np.arange(12, dtype=np.complex64).reshape(3, 4),
    lambda: np.arange(4.0)[1:],
    lambda: np.lib.stride_tricks.as_strided(np.arange(4.0), (3, 2), (8, 8)),
]


@pytest.mark.parametrize("make", range(len(_ARRAYS)))
@pytest.mark.parametrize("writeable", [True, False])
def test_from_numpy_attributes(make, writeable):
    a = _ARRAYS[make]()
    if not writeable:
        a.flags.writeable = False
    writeable = a.flags.writeable  # (as_strided's overlapping array is read-only already)
    for _ in range(2):  # (the second call: the memoised plan)
        t, ref = st.from_numpy(a), borrow_array(a, "from_numpy")
        assert _attrs(t) == _attrs(ref)
        assert np.shares_memory(t._storage.array, a) or a.size == 0
        tt = torch.from_numpy(a) if writeable else None
        if tt is not None:
            assert t.shape == tuple(tt.shape) and t.stride() == tt.stride()
            assert t.storage_offset() == tt.storage_offset()
            assert t.numpy().tolist() == tt.numpy().tolist()
    if writeable and a.size:
        t = st.from_numpy(a)  # (writes through the array show in the tensor)
        first = (0,) * a.ndim
        a[first] = a.dtype.type(7)
        assert t[first].item() == a.dtype.type(7).item()


def test_from_numpy_same_key_other_array_and_errors():
    # same shape / strides / dtype, another buffer each time: each tensor its own array's memory
    for _ in range(3):
        a = np.random.rand(4, 4)
        t = st.from_numpy(a)
        assert t.data_ptr() == a.ctypes.data and t.tolist() == a.tolist()
    for bad in (np.arange(4.0)[::-1], np.arange(4, dtype=">f4"), np.array(["a"])):
        for _ in range(2):
            with pytest.raises(Exception) as e1:
                st.from_numpy(bad)
            with pytest.raises(Exception) as e2:
                torch.from_numpy(bad)
            assert type(e1.value).__mro__[1] is type(e2.value) or isinstance(e1.value, type(e2.value))
    # unaligned memory: as the general path
    raw = np.zeros(33, np.uint8)
    u = raw[1:].view(np.float64)
    assert _attrs(st.from_numpy(u)) == _attrs(borrow_array(u, "from_numpy"))


# --- split_with_sizes ----------------------------------------------------------------------------


def _pieces(ts) -> list:
    return [(tuple(p.shape), p.stride(), p.storage_offset()) for p in ts]


@pytest.mark.parametrize("sizes,dim", [([1, 2], 0), ((2, 1), -2), ([0, 3], 0), ([3], 0), ([1, 1, 2], 1),
                                       ([4, 0], -1), ([0, 0, 4], 1), ([], 0)])
def test_split_with_sizes_like_torch(sizes, dim):
    a = np.arange(12.0).reshape(3, 4)
    for make in (lambda m: m, lambda m: m.t().t(), lambda m: m[:, :]):
        x, t = make(st.from_numpy(a.copy())), make(torch.from_numpy(a.copy()))
        try:
            want = t.split_with_sizes(sizes, dim)
        except Exception as e:
            with pytest.raises(type(e)) as r:
                x.split_with_sizes(sizes, dim)
            assert str(e).splitlines()[0] in str(r.value)
            continue
        got = x.split_with_sizes(sizes, dim)
        assert _pieces(got) == _pieces(want)
        assert [p.tolist() for p in got] == [p.tolist() for p in want]
        assert all(p._base is (x if x._base is None else x._base) for p in got)
        assert _pieces(st.split_with_sizes(x, sizes, dim)) == _pieces(want)


@pytest.mark.parametrize("sizes,dim", [([1, 1], 0), ([-1, 4], 0), ([1, 2], 2), ([1, 2], -3), ([True, 2], 0),
                                       ([1.0, 2], 0), ([np.int64(1), 2], 0), ([1, 2], 0.0)])
def test_split_with_sizes_errors_and_other_numbers(sizes, dim):
    a = np.arange(12.0).reshape(3, 4)
    x, t = st.from_numpy(a.copy()), torch.from_numpy(a.copy())
    try:
        want = t.split_with_sizes(sizes, dim)
    except Exception as e:
        with pytest.raises(Exception) as r:
            x.split_with_sizes(sizes, dim)
        assert isinstance(r.value, type(e)) or type(e) in type(r.value).__mro__
        return
    assert _pieces(x.split_with_sizes(sizes, dim)) == _pieces(want)


def test_split_with_sizes_0d_and_graph():
    with pytest.raises(RuntimeError):
        st.tensor(1.0).split_with_sizes([1], 0)
    x = st.tensor([1.0, 2.0, 3.0], requires_grad=True)
    tx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a, b = x.split_with_sizes([1, 2])
    ta, tb = tx.split_with_sizes([1, 2])
    (a.sum() * 2 + b.sum() * 3).backward()
    (ta.sum() * 2 + tb.sum() * 3).backward()
    assert x.grad.tolist() == tx.grad.tolist()


# --- celu of a long run --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [40000, 100003])
@pytest.mark.parametrize("kind", ["positive", "mixed", "positive then one NaN", "positive then -0.0"])
def test_celu_long_run_bits(dtype, n, kind):
    from strided.ops.elementwise import activations_more as am
    rng = np.random.default_rng(n)
    a = (np.abs(rng.normal(0, 3, n)) + 1e-30).astype(dtype) if kind != "mixed" else _values(dtype, (n,), 5)
    a[7] = np.inf if kind != "mixed" else a[7]
    if kind == "positive then one NaN":
        a[n - 3] = np.nan
    if kind == "positive then -0.0":
        a[rng.integers(64, n)] = -0.0
    want = am._elu_general(a, 1.0, 1.0, 1.0)  # (the row's forward: torch_loop's expm1 and NumPy's where)
    for got in (st.celu(st.from_numpy(a)), F.celu(st.from_numpy(a)), st.celu(st.from_numpy(a.reshape(100, -1).T.copy().T)
                                                                              if n % 100 == 0 else st.from_numpy(a))):
        assert _bits(got.numpy()) == _bits(want.reshape(got.shape) if got.shape != want.shape else want)
    x = st.from_numpy(a.copy())
    assert st.celu_(x) is x and x._version == 1
    assert _bits(x.numpy()) == _bits(want)
    if kind == "positive" or dtype == np.float64:  # (positive runs: x itself; float64: torch's bits)
        assert _bits(want) == _bits(TF.celu(torch.from_numpy(a)).numpy())


def test_from_numpy_reported_when_watched():
    # (the entry front passes an ndarray as plain, but a listener still sees the call: the guard's path)
    from strided.diagnose.watch import watch
    a = np.arange(6.0).reshape(2, 3)
    st.from_numpy(a)  # (the plan memoised: the watched call takes the fast path's memo too)
    with watch() as w:
        t = st.from_numpy(a)
        u = st.from_numpy(np.arange(4.0)[::2])
    names = [step.name for step in w.steps]
    assert names.count("from_numpy") == 2, names
    assert t.tolist() == a.tolist() and u.tolist() == [0.0, 2.0]


# --- float64 gelu: every path the forward's values (PyTorch's bits since bits36; misc36's compiled
# front over the old float64 formula was dropped in the merge: it would have given other bits) ---


@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (0,), (), (7,)])
def test_gelu_float64_front_bits(shape):
    from strided.kernels import native
    from strided.ops.elementwise import special as sp
    a = _values(np.float64, shape, 9)
    x = st.from_numpy(a)
    want = np.empty_like(a)
    with np.errstate(all="ignore"):
        sp._gelu_into(a, want, "none", "float64")  # (the forward's own values)
    for _ in range(2):  # (the second call: the shape's memo filled, the front's C call)
        got = F.gelu(x)
        tg = TF.gelu(torch.from_numpy(a.copy()))
        assert got.shape == x.shape and got.stride() == tg.stride() and got.dtype == st.float64
        assert _bits(got.numpy()) == _bits(want)
    with native.disabled():  # (the kernels off: the forward's own formula, whatever its last bits)
        assert _bits(F.gelu(x).numpy()) == _bits(getattr(F.gelu, "__front_fallback__", F.gelu)(x).numpy())
    assert _bits(F.gelu(x, approximate="none").numpy()) == _bits(want)
    if a.ndim == 2:  # (a transpose, a slice: the forward's layout and values)
        for v, av in ((x.t(), a.T), (x[:, ::2], a[:, ::2])):
            got, ref = F.gelu(v), np.empty_like(av)
            with np.errstate(all="ignore"):
                sp._gelu_into(av, ref, "none", "float64")
            assert _bits(got.numpy()) == _bits(ref)
    # in the graph: the front steps aside, the gradient is recorded
    g = st.from_numpy(a.copy()).requires_grad_()
    y = F.gelu(g)
    assert y.grad_fn is not None and _bits(y.detach().numpy()) == _bits(want)
