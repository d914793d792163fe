"""Issue 26: what PyTorch's own view/indexing/shape suites check, as differential tests against
torch 2.13 — out= resizing to the inputs' memory order, the stride overflow of dense layouts,
0-d byte masks, and the smaller features those suites use."""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np
import pytest

import strided as S

torch = pytest.importorskip("torch")

B = 2**61


def _same_error(fs, ft):
    with pytest.raises(Exception) as es:
        fs()
    with pytest.raises(Exception) as et:
        ft()
    assert isinstance(es.value, type(et.value).__mro__[0]), (type(es.value), type(et.value))
    assert str(es.value).splitlines()[0] == str(et.value).splitlines()[0]
    return es.value


# ---------------------------------------------------------------- out= takes the inputs' memory order

OUT_OPS = {
    "add": lambda m, x, o: m.add(x, x, out=o),
    "mul_scalar": lambda m, x, o: m.mul(x, 2, out=o),
    "neg": lambda m, x, o: m.neg(x, out=o),
    "exp": lambda m, x, o: m.exp(x, out=o),
    "clamp": lambda m, x, o: m.clamp(x, 0, 1, out=o),
    "where": lambda m, x, o: m.where(x > 0, x, x, out=o),
    "pow": lambda m, x, o: m.pow(x, 2, out=o),
    "addcmul": lambda m, x, o: m.addcmul(x, x, x, out=o),
    "atan2": lambda m, x, o: m.atan2(x, x, out=o),
    "maximum": lambda m, x, o: m.maximum(x, x, out=o),
    "sum": lambda m, x, o: m.sum(x, 2, out=o),
    "amax_keepdim": lambda m, x, o: m.amax(x, 2, keepdim=True, out=o),
    "logsumexp": lambda m, x, o: m.logsumexp(x, 2, out=o),
    "matmul": lambda m, x, o: m.matmul(x, x.transpose(1, 2), out=o),
}


@pytest.mark.parametrize("name", sorted(OUT_OPS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_out_resize_takes_the_result_layout(name, dtype):
    f = OUT_OPS[name]
    xt = (torch.arange(24, dtype=getattr(torch, dtype)) / 7).reshape(2, 3, 4).permute(1, 0, 2)
    xs = S.tensor(xt.permute(1, 0, 2).tolist(), dtype=getattr(S, dtype)).permute(1, 0, 2)
    for ot, os_ in ((torch.empty(0, dtype=xt.dtype), S.empty(0, dtype=xs.dtype)),
                    (torch.empty(5, dtype=xt.dtype), S.empty(5, dtype=xs.dtype))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rt, rs = f(torch, xt, ot), f(S, xs, os_)
        assert rs is os_
        assert (rs.shape, rs.stride(), rs.dtype.name) == (tuple(rt.shape), rt.stride(), str(rt.dtype)[6:])
        np.testing.assert_allclose(np.array(rs.tolist()), rt.numpy(), rtol=1e-6)


def test_out_of_the_right_shape_keeps_its_strides():
    xt = torch.zeros(2, 3, 4).permute(1, 0, 2)
    xs = S.zeros(2, 3, 4).permute(1, 0, 2)
    ot, os_ = torch.empty(3, 2, 4), S.empty(3, 2, 4)
    assert S.add(xs, 1, out=os_).stride() == torch.add(xt, 1, out=ot).stride() == (8, 4, 1)


# ---------------------------------------------------------------- dense strides past int64

OVERFLOW = {
    "resize_": lambda m: m.empty(()).resize_([0, 4, B]),
    "resize_ channels_last": lambda m: m.empty(0).resize_((0, 4, B, 1), memory_format=m.channels_last),
    "empty": lambda m: m.empty(0, 4, B),
    "empty 2**40": lambda m: m.empty(0, 2**40, 2**40),
    "zeros": lambda m: m.zeros(0, 4, B),
    "full": lambda m: m.full((0, 4, B), 1.0),
    "empty channels_last": lambda m: m.empty((4, 0, 4, B), memory_format=m.channels_last),
    "empty channels_last_3d": lambda m: m.empty((0, 4, B, 1, 1), memory_format=m.channels_last_3d),
    "view": lambda m: m.empty(0).view(0, 4, B),
    "reshape": lambda m: m.empty(0).reshape(0, 4, B),
    "unflatten": lambda m: m.empty(0).unflatten(0, (0, 4, B)),
}


@pytest.mark.parametrize("name", sorted(OVERFLOW))
def test_stride_calculation_overflowed(name):
    f = OVERFLOW[name]
    err = _same_error(lambda: f(S), lambda: f(torch))
    assert isinstance(err, RuntimeError) and "more than int64 holds" in str(err)


def test_resize_overflow_changes_nothing():
    t = S.zeros(2)
    with pytest.raises(RuntimeError, match="Stride calculation overflowed"):
        t.resize_(0, 4, B)
    assert (t.shape, t.stride(), t.untyped_storage().nbytes()) == ((2,), (1,), 8)


@pytest.mark.parametrize("shape", [(4, B, 0), (B, 0, 4), (2**40, 0, 2**40)])
def test_strides_that_fit_are_kept(shape):
    assert S.empty(shape).stride() == torch.empty(shape).stride()
    assert S.empty_strided((0, 4, B), (1, 1, 1)).stride() == (1, 1, 1)


# ---------------------------------------------------------------- a 0-d uint8 index is a byte mask


@pytest.mark.parametrize("value", [0, 1])
@pytest.mark.parametrize("make", ["tensor", "ndarray"])
def test_zero_dim_uint8_index_is_a_mask(value, make):
    def idx(m):
        return m.tensor(value, dtype=m.uint8) if make == "tensor" else np.array(value, dtype=np.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key in (lambda m: idx(m), lambda m: (idx(m), 1), lambda m: (0, idx(m))):
            assert S.zeros(2, 3)[key(S)].shape == tuple(torch.zeros(2, 3)[key(torch)].shape)
        ys, yt = S.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
        ys[idx(S)] = 7.0
        yt[idx(torch)] = 7.0
        assert ys.tolist() == yt.tolist()
    with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated"):
        S.zeros(2)[idx(S)]
    assert S.zeros(4)[np.uint8(value)].shape == ()  # a NumPy scalar stays an int, as in torch


# ---------------------------------------------------------------- small features the suites use


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_size_keyword_of_the_factories(name):
    for kw in ({"size": (2, 3)}, {"size": [4]}, {"size": ()}, {"size": (2, 0), "dtype": "float64"}):
        kw_s = {k: (getattr(S, v) if k == "dtype" else v) for k, v in kw.items()}
        kw_t = {k: (getattr(torch, v) if k == "dtype" else v) for k, v in kw.items()}
        rs, rt = getattr(S, name)(**kw_s), getattr(torch, name)(**kw_t)
        assert (rs.shape, rs.stride(), rs.dtype.name) == (tuple(rt.shape), rt.stride(), str(rt.dtype)[6:])
        if name != "empty":
            assert rs.tolist() == rt.tolist()
    for args, kw in (((2,), {"size": (3,)}), ((), {"size": 2})):
        err = _same_error(partial(getattr(S, name), *args, **kw), partial(getattr(torch, name), *args, **kw))
        assert isinstance(err, TypeError)
    assert S.rand(size=(2, 3)).shape == (2, 3)


def test_del_item_is_a_type_error():
    def delete(m):
        t = m.zeros(3)
        del t[0]
    err = _same_error(lambda: delete(S), lambda: delete(torch))
    assert isinstance(err, TypeError)


@pytest.mark.parametrize("shape", [(), (3,), (2, 0, 4)])
def test_sparse_and_dense_dims(shape):
    assert (S.zeros(shape).sparse_dim(), S.zeros(shape).dense_dim()) == (
        torch.zeros(shape).sparse_dim(), torch.zeros(shape).dense_dim())


@pytest.mark.parametrize("key", [range(2, 8, 2), range(0), range(4, -1, -2), (range(2), range(1, 3))],
                         ids=["step", "empty", "negative_step", "two"])
def test_range_as_index(key):
    rs, rt = S.arange(40).reshape(8, 5)[key], torch.arange(40).reshape(8, 5)[key]
    assert (rs.shape, rs.stride(), rs.tolist()) == (tuple(rt.shape), rt.stride(), rt.tolist())
    ws, wt = S.zeros(8, 5), torch.zeros(8, 5)
    ws[key] = 1.0
    wt[key] = 1.0
    assert ws.tolist() == wt.tolist()


def test_deterministic_algorithms_setting():
    before = S.are_deterministic_algorithms_enabled()
    try:
        S.use_deterministic_algorithms(True)
        assert S.are_deterministic_algorithms_enabled() is True
        S.use_deterministic_algorithms(False, warn_only=True)
        assert S.are_deterministic_algorithms_enabled() is False
    finally:
        S.use_deterministic_algorithms(before)
    for args, kw in ((("x",), {}), ((1,), {}), ((True,), {"warn_only": 1})):
        # (torch's setter itself, whose text its wrapper raises: the wrapper's first call costs ~2 s)
        err = _same_error(partial(S.use_deterministic_algorithms, *args, **kw),
                          partial(torch._C._set_deterministic_algorithms, *args, **kw))
        assert isinstance(err, TypeError)


@pytest.mark.parametrize("template", ["transposed", "channels_last", "channels_last_3d"])
def test_resize_as_preserve_format(template):
    def make(m):
        if template == "transposed":
            return m.zeros(2, 3).t()
        if template == "channels_last":
            return m.zeros(2, 4, 5, 3).permute(0, 3, 1, 2)
        return m.zeros(2, 4, 5, 6, 3).permute(0, 4, 1, 2, 3)
    rs = S.empty(0).resize_as_(make(S), memory_format=S.preserve_format)
    rt = torch.empty(0).resize_as_(make(torch), memory_format=torch.preserve_format)
    assert (rs.shape, rs.stride()) == (tuple(rt.shape), rt.stride())


BROADCAST_SHAPES_BAD = [
    [1, 1, -12], [-11], [(1, -12)], [(1, 1, -2)], [3, 5], [2, 4, 1], [(2, 3), (3, 2)], [(4, 1, 3), (2, 1), (4, 1)],
    [(2,), [3]], [1.1], [2.0], [(3,), (-1,)],
]


@pytest.mark.parametrize("shapes", BROADCAST_SHAPES_BAD, ids=str)
def test_broadcast_shapes_errors_as_torch(shapes):
    err = _same_error(partial(S.broadcast_shapes, *shapes), partial(torch.broadcast_shapes, *shapes))
    if isinstance(err, RuntimeError) and "dimension of length" in str(err):
        assert isinstance(err, ValueError)  # NumPy's class for a mismatch, beside PyTorch's


def test_broadcast_shapes_skips_none_and_reads_ints():
    for shapes in ([None, (2,)], [3, (2, 1)], [(4, 1, 3), (2, 1)], []):
        assert S.broadcast_shapes(*shapes) == tuple(torch.broadcast_shapes(*shapes))
    with pytest.raises(ValueError):
        S.broadcast_shapes((3,), (2,))


# ---------------------------------------------------------------- error order and texts


def test_index_put_checks_the_shape_before_the_dtype():
    def put(m, value):
        return m.zeros(3).index_put_((m.tensor([0, 1]),), value)

    for vs, vt in ((S.tensor([1, 2, 3]), torch.tensor([1, 2, 3])),
                   (S.tensor([1.0, 2, 3], dtype=S.float64), torch.tensor([1.0, 2, 3], dtype=torch.float64))):
        err = _same_error(partial(put, S, vs), partial(put, torch, vt))
        assert isinstance(err, RuntimeError) and "shape mismatch" in str(err)
    err = _same_error(lambda: S.zeros(3).index_put_((S.tensor([0, 1]),), S.tensor([1, 2])),
                      lambda: torch.zeros(3).index_put_((torch.tensor([0, 1]),), torch.tensor([1, 2])))
    assert "dtypes match" in str(err)


ARG_ORDER = {
    "transpose(3, ())": lambda x: x.transpose(3, ()),
    "transpose((), 3)": lambda x: x.transpose((), 3),
    "transpose(3, 1.5)": lambda x: x.transpose(3, 1.5),
    "transpose(True, 0)": lambda x: x.transpose(True, 0),
    "swapaxes(3, ())": lambda x: x.swapaxes(3, ()),
    "swapdims(3, ())": lambda x: x.swapdims(3, ()),
    "diagonal(0, 5, ())": lambda x: x.diagonal(0, 5, ()),
    "flatten(7, 'x')": lambda x: x.flatten(7, "x"),
}


@pytest.mark.parametrize("name", sorted(ARG_ORDER))
def test_type_errors_before_range_errors(name):
    f = ARG_ORDER[name]
    err = _same_error(lambda: f(S.zeros(2, 3)), lambda: f(torch.zeros(2, 3)))
    assert isinstance(err, TypeError)
    assert S.zeros(2, 3).transpose(S.tensor(1), 0).shape == (3, 2)  # a 0-d integer tensor is a dim


# ---------------------------------------------------------------- digamma, i0, logit

SPECIAL_POINTS = [0.0, -0.0, -1.0, -2.5, 1e-6, 0.3, 0.5, 1.0, 2.5, 7.7, 31.0, 150.0, float("inf"),
                  float("-inf"), float("nan"), -7.3, 0.999]
SPECIAL = {
    "digamma": (lambda m, x: m.digamma(x), lambda x: x.digamma()),
    "i0": (lambda m, x: m.i0(x), lambda x: x.i0()),
    "logit": (lambda m, x: m.logit(x), lambda x: x.logit()),
    "logit_eps": (lambda m, x: m.logit(x, eps=0.1), lambda x: x.logit(0.1)),
    "logit_eps_0": (lambda m, x: m.logit(x, 0.0), lambda x: x.logit(eps=0.0)),
}


def _close(rs, rt, dtype):
    got, want = np.array(rs.tolist(), dtype=np.float64), rt.double().numpy()
    np.testing.assert_allclose(got, want, rtol=2e-6 if dtype == "float32" else 1e-12, atol=1e-30)
    assert (rs.shape, rs.stride(), rs.dtype.name) == (tuple(rt.shape), rt.stride(), str(rt.dtype)[6:])


@pytest.mark.parametrize("name", sorted(SPECIAL))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_functions_values(name, dtype):
    fn, method = SPECIAL[name]
    ts = S.tensor(SPECIAL_POINTS, dtype=getattr(S, dtype))
    tt = torch.tensor(SPECIAL_POINTS, dtype=getattr(torch, dtype))
    _close(fn(S, ts), fn(torch, tt), dtype)
    _close(method(ts), method(tt), dtype)
    # non-contiguous and zero-size inputs keep TensorIterator's layout
    xs = S.arange(24, dtype=getattr(S, dtype)).reshape(2, 3, 4).permute(2, 0, 1)[::2] / 25
    xt = torch.arange(24, dtype=getattr(torch, dtype)).reshape(2, 3, 4).permute(2, 0, 1)[::2] / 25
    _close(fn(S, xs), fn(torch, xt), dtype)
    _close(fn(S, S.zeros(0, 3, dtype=getattr(S, dtype)).t()), fn(torch, torch.zeros(0, 3, dtype=getattr(torch, dtype)).t()), dtype)


@pytest.mark.parametrize("name", ["digamma", "i0", "logit"])
def test_special_functions_dtypes_inplace_and_out(name):
    for dt in ("int64", "uint8", "bool", "int16"):
        rs, rt = getattr(S, name)(S.ones(2, dtype=getattr(S, dt))), getattr(torch, name)(torch.ones(2, dtype=getattr(torch, dt)))
        assert rs.dtype.name == str(rt.dtype)[6:] == "float32"
    err = _same_error(lambda: getattr(S, name)(S.ones(2, dtype=S.complex64)),
                      lambda: getattr(torch, name)(torch.ones(2, dtype=torch.complex64)))
    assert isinstance(err, NotImplementedError)
    xs, xt = S.tensor([0.25, 0.75]), torch.tensor([0.25, 0.75])
    assert getattr(xs, name + "_")() is xs
    getattr(xt, name + "_")()
    np.testing.assert_allclose(xs.tolist(), xt.tolist(), rtol=1e-6)
    os_, ot = S.empty(0), torch.empty(0)
    assert getattr(S, name)(S.tensor([0.25, 0.75]), out=os_) is os_
    getattr(torch, name)(torch.tensor([0.25, 0.75]), out=ot)
    np.testing.assert_allclose(os_.tolist(), ot.tolist(), rtol=1e-6)


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_functions_gradients(name):
    fn = SPECIAL[name][0]
    points = [0.05, 0.3, 0.5, 0.95, 2.5, -2.5, 31.5] if name.startswith("logit") is False else [0.05, 0.3, 0.5, 0.95]
    xs = S.tensor(points, dtype=S.float64, requires_grad=True)
    xt = torch.tensor(points, dtype=torch.float64, requires_grad=True)
    w = [1.0 + i for i in range(len(points))]
    (fn(S, xs) * S.tensor(w, dtype=S.float64)).sum().backward()
    (fn(torch, xt) * torch.tensor(w, dtype=torch.float64)).sum().backward()
    # (torch's polygamma(1, x) is accurate to ~1e-10 only; ours is float64-exact)
    np.testing.assert_allclose(xs.grad.tolist(), xt.grad.numpy(), rtol=1e-9)
    assert fn(S, xs).grad_fn.name() == fn(torch, xt).grad_fn.name()


def test_digamma_double_backward_is_torchs_polygamma():
    x = S.tensor([0.5, 2.0, -1.5], dtype=S.float64, requires_grad=True)
    (g,) = S.autograd.grad(x.digamma().sum(), x, create_graph=True)
    (gg,) = S.autograd.grad(g.sum(), x)
    tx = torch.tensor([0.5, 2.0, -1.5], dtype=torch.float64, requires_grad=True)
    (tg,) = torch.autograd.grad(tx.digamma().sum(), tx, create_graph=True)
    (tgg,) = torch.autograd.grad(tg.sum(), tx)
    np.testing.assert_allclose(gg.numpy(), tgg.numpy(), rtol=1e-12)


# ---------------------------------------------------------------- nonzero / diag / *_copy with out=

OUT_FORMS = {
    "nonzero": (lambda m, o: m.nonzero(m.tensor([[0, 1], [1, 1], [0, 0]]), out=o), "int64"),
    "nonzero_one": (lambda m, o: m.nonzero(m.tensor([[0], [3]]), out=o), "int64"),
    "diag_1d": (lambda m, o: m.diag(m.tensor([1.0, 2.0, 3.0]), 1, out=o), "float32"),
    "diag_2d": (lambda m, o: m.diag(m.arange(12.0).reshape(3, 4).t(), -1, out=o), "float32"),
    "diagonal_copy": (lambda m, o: m.diagonal_copy(m.arange(9.0).reshape(3, 3), out=o), "float32"),
    "transpose_copy": (lambda m, o: m.transpose_copy(m.arange(6.0).reshape(2, 3), 0, 1, out=o), "float32"),
    "expand_copy": (lambda m, o: m.expand_copy(m.arange(3.0), (2, 3), out=o), "float32"),
}


@pytest.mark.parametrize("name", sorted(OUT_FORMS))
def test_out_of_nonzero_diag_and_copy_forms(name):
    f, dt = OUT_FORMS[name]
    for make in (lambda m: m.empty(0, dtype=getattr(m, dt)), lambda m: m.empty(7, dtype=getattr(m, dt)),
                 lambda m: m.empty(2, 5, dtype=getattr(m, dt)).t()):
        os_, ot = make(S), make(torch)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rs, rt = f(S, os_), f(torch, ot)
        assert rs is os_
        assert (rs.shape, rs.stride(), rs.tolist()) == (tuple(rt.shape), rt.stride(), rt.tolist())
    wrong = "float64" if dt == "int64" else "int64"
    err = _same_error(lambda: f(S, S.empty(0, dtype=getattr(S, wrong))),
                      lambda: f(torch, torch.empty(0, dtype=getattr(torch, wrong))))
    assert isinstance(err, RuntimeError)


def test_nonzero_out_refuses_as_tuple_and_split_copy_out():
    _same_error(lambda: S.nonzero(S.ones(2), out=S.empty(0, dtype=S.int64), as_tuple=True),
                lambda: torch.nonzero(torch.ones(2), out=torch.empty(0, dtype=torch.int64), as_tuple=True))
    err = _same_error(lambda: S.split_copy(S.ones(2), 1, out=S.empty(0)),
                      lambda: torch.split_copy(torch.ones(2), 1, out=torch.empty(0)))
    assert isinstance(err, TypeError)


# ---------------------------------------------------------------- unravel_index

UNRAVEL = [
    ([5, 7], (3, 4)), (5, (3, 4)), ([[5, -1], [0, 11]], (3, 4)), ([12], (3, 4)), ([-13], (3, 4)), ([0], ()),
    ([1], 4), ([], (0,)), ([2], (2**62, 4)), ([3, 1], [2, 1, 2]),
]


@pytest.mark.parametrize("data, shape", UNRAVEL, ids=str)
def test_unravel_index(data, shape):
    rs = S.unravel_index(S.tensor(data, dtype=S.int64), shape)
    rt = torch.unravel_index(torch.tensor(data, dtype=torch.int64), shape)
    assert [(r.shape, r.stride(), r.dtype.name, r.tolist()) for r in rs] == [
        (tuple(r.shape), r.stride(), "int64", r.tolist()) for r in rt]
    assert [r.tolist() for r in S.unravel_index(S.tensor(data, dtype=S.int32), shape)] == [r.tolist() for r in rt]


@pytest.mark.parametrize("data, shape", [([1.0], (3,)), ([True], (3,)), ([1], (3, -1)), ([0], (0,))], ids=str)
def test_unravel_index_errors(data, shape):
    _same_error(lambda: S.unravel_index(S.tensor(data), shape), lambda: torch.unravel_index(torch.tensor(data), shape))


# ---------------------------------------------------------------- Tensor.new, Tensor.storage(), typed storages


@pytest.mark.parametrize("args", [(), (2, 3), ([1, 2],), ((2, 3),), (3,), ([],), ([[1, 2], [3, 4]],)], ids=str)
def test_tensor_new(args):
    rs, rt = S.zeros(2, dtype=S.float64).new(*args), torch.zeros(2, dtype=torch.float64).new(*args)
    assert (rs.shape, rs.stride(), rs.dtype.name) == (tuple(rt.shape), rt.stride(), "float64")
    if args and isinstance(args[0], list):
        assert rs.tolist() == rt.tolist()


def test_tensor_new_from_a_tensor_and_errors():
    x, o = S.zeros(2, dtype=S.float64), S.tensor([1.0, 2.0], dtype=S.float64)
    shared = x.new(o)
    assert shared.untyped_storage() is o.untyped_storage() and shared.tolist() == [1.0, 2.0]
    _same_error(lambda: S.zeros(2).new(2.5), lambda: torch.zeros(2).new(2.5))
    with pytest.raises(TypeError):
        x.new(S.tensor([1, 2]))
    with pytest.raises(TypeError):
        torch.zeros(2, dtype=torch.float64).new(torch.tensor([1, 2]))


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex64", "float16"])
def test_tensor_storage_is_typed(dtype):
    make = {"bool": lambda m: m.tensor([True, False, True]), "complex64": lambda m: m.tensor([1 + 2j, 3j, 0j])}
    def build(m):
        base = make[dtype](m) if dtype in make else m.arange(5).to(getattr(m, dtype))
        return base[1:]
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        ss = build(S).storage()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        st = build(torch).storage()
    assert (ss.tolist(), ss.size(), len(ss), ss.nbytes(), ss.element_size(), ss[1]) == (
        st.tolist(), st.size(), len(st), st.nbytes(), st.element_size(), st[1])
    assert ss.dtype.name == str(st.dtype)[6:]


@pytest.mark.parametrize("name", ["FloatStorage", "DoubleStorage", "LongStorage", "IntStorage", "ByteStorage",
                                  "BoolStorage", "ShortStorage", "CharStorage", "HalfStorage"])
def test_legacy_storage_classes(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args in (([1, 0, 2],), (3,), ()):
            ss, st = getattr(S, name)(*args), getattr(torch, name)(*args)
            assert (ss.size(), ss.dtype.name) == (st.size(), str(st.dtype)[6:])
            if args and isinstance(args[0], list):
                assert ss.tolist() == st.tolist()
        assert S.TypedStorage([1, 2], dtype=S.float64).tolist() == torch.TypedStorage([1, 2], dtype=torch.float64).tolist()


# ---------------------------------------------------------------- index_reduce_


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_index_reduce(reduce, include_self, dtype):
    base = [[1, -2, 3], [4, 5, -6], [7, 8, 9], [0, 2, 1]]
    src = [[2, 3, -1], [4, -5, 5], [6, 7, 0], [1, 1, 3], [9, -9, 2]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for dim, index in ((0, [0, 0, 3, 1, 0]), (1, [2, 2, 0, 2])):
            def run(m, inplace, dim=dim, index=index):
                x = m.tensor(base, dtype=getattr(m, dtype))
                s = m.tensor(src, dtype=getattr(m, dtype))
                if dim == 1:  # a column-major self; a (4, 4) source, transposed
                    x = x.t().contiguous().t()
                    s = m.tensor([row + [row[0] + 1] for row in src[:4]], dtype=getattr(m, dtype)).t()
                idx = m.tensor(index)
                if inplace:
                    r = x.index_reduce_(dim, idx, s, reduce, include_self=include_self)
                    assert r is x
                    return r
                return m.index_reduce(x, dim, idx, s, reduce, include_self=include_self)
            for inplace in (True, False):
                rs, rt = run(S, inplace), run(torch, inplace)
                assert (rs.shape, rs.stride(), rs.dtype.name) == (tuple(rt.shape), rt.stride(), str(rt.dtype)[6:])
                np.testing.assert_allclose(np.array(rs.tolist()), rt.numpy(), rtol=1e-6)


INDEX_REDUCE_BAD = {
    "reduce": lambda m: m.ones(3).index_reduce_(0, m.tensor([0]), m.ones(1), "sum"),
    "bounds": lambda m: m.ones(3).index_reduce_(0, m.tensor([3]), m.ones(1), "prod"),
    "negative": lambda m: m.ones(3).index_reduce_(0, m.tensor([-1]), m.ones(1), "prod"),
    "dtype": lambda m: m.ones(3).index_reduce_(0, m.tensor([0]), m.ones(1, dtype=m.float64), "prod"),
    "count": lambda m: m.ones(3).index_reduce_(0, m.tensor([0, 1]), m.ones(1), "prod"),
    "index_dtype": lambda m: m.ones(3).index_reduce_(0, m.tensor([0.0]), m.ones(1), "prod"),
    "dim": lambda m: m.ones(3).index_reduce_(1, m.tensor([0]), m.ones(1), "prod"),
    "include_self": lambda m: m.ones(3).index_reduce_(0, m.tensor([0]), m.ones(1), "prod", include_self=1),
}


@pytest.mark.parametrize("name", sorted(INDEX_REDUCE_BAD))
def test_index_reduce_errors(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same_error(lambda: INDEX_REDUCE_BAD[name](S), lambda: INDEX_REDUCE_BAD[name](torch))
    with pytest.warns(UserWarning, match="index_reduce\\(\\) is in beta"):
        S.ones(2).index_reduce_(0, S.tensor([1]), S.ones(1), "amax")


# ---------------------------------------------------------------- uint16/32/64 operators as torch 2.13 on CPU

_UOPS = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod", "**": "pow",
         "&": "and_", "|": "or_", "^": "xor", "<<": "lshift", ">>": "rshift", "==": "eq", "!=": "ne",
         "<": "lt", ">=": "ge"}


def _outcome(f):
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 - the outcome compared is the class and the first line
        return "err", [c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins"][0], str(e).splitlines()[0]
    return "ok", str(r.dtype).split(".")[-1], r.tolist()


@pytest.mark.parametrize("dt", ["uint16", "uint32", "uint64"])
def test_unsigned_operators_compute_or_refuse_as_torch(dt):
    import operator
    unary = {"neg": operator.neg, "~": operator.invert, "abs": abs, "+x": operator.pos}
    for other in (dt, "int64", "float32", "bool", "uint8"):
        for zero_d in (False, True):
            def operands(m, other=other, zero_d=zero_d):
                a = m.tensor([3, 5, 7], dtype=getattr(m, dt))
                return a, m.tensor(1 if zero_d else [1, 2, 1], dtype=getattr(m, other))
            for sym, name in _UOPS.items():
                f = getattr(operator, name)
                got = _outcome(lambda f=f: f(*operands(S)))
                want = _outcome(lambda f=f: f(*operands(torch)))
                assert got == want, (dt, other, zero_d, sym)
    for name, f in unary.items():
        assert _outcome(lambda f=f: f(S.tensor([3], dtype=getattr(S, dt)))) == \
            _outcome(lambda f=f: f(torch.tensor([3], dtype=getattr(torch, dt)))), name
    for scalar in (0, 1, 2, -1, 2.5, -1.0, True, False):
        for sym, name in _UOPS.items():
            f = getattr(operator, name)
            assert _outcome(lambda f=f, k=scalar: f(S.tensor([3, 4], dtype=getattr(S, dt)), k)) == \
                _outcome(lambda f=f, k=scalar: f(torch.tensor([3, 4], dtype=getattr(torch, dt)), k)), (sym, scalar)


UNFLATTEN_BAD = {
    "two_inferred": lambda x: x.unflatten(0, (2, -1, -1)),
    "below_minus_one": lambda x: x.unflatten(0, (-2, -3)),
    "below_minus_one_second": lambda x: x.unflatten(0, (2, -2)),
    "dim_type": lambda x: x.unflatten("a", (2, 3)),
    "float_size": lambda x: x.unflatten(0, (2.0, 3)),
    "bool_size": lambda x: x.unflatten(0, (True, 6)),
    "product": lambda x: x.unflatten(0, (4, -1)),
    "empty": lambda x: x.unflatten(0, ()),
    "dim_range": lambda x: x.unflatten(5, (2, 3)),
}


@pytest.mark.parametrize("name", sorted(UNFLATTEN_BAD))
def test_unflatten_argument_errors(name):
    f = UNFLATTEN_BAD[name]
    with pytest.raises(Exception) as es:
        f(S.zeros(6))
    with pytest.raises(Exception) as et:
        f(torch.zeros(6))
    assert isinstance(es.value, type(et.value))
    # PyTorch's wrapper puts "unflatten got an unexpected error:" above the checks it re-raises;
    # strided's first line is the check's own
    lines = str(et.value).splitlines()
    want = lines[1] if lines[0] == "unflatten got an unexpected error:" else lines[0]
    assert str(es.value).splitlines()[0] == want
