"""Issue 25, part 2: the everyday ``torch.*`` names strided gained, each against PyTorch 2.13.

addmm / addmv / addr / baddbmm / addbmm (+ in-place, ``out=``), kron, vander, dist, trapezoid /
trapz / cumulative_trapezoid, cov, logcumsumexp: values, dtypes, shapes and strides of the
results on contiguous, transposed, sliced, expanded and zero-size inputs (float32 and float64),
first derivatives against PyTorch's and second ones by finite differences, and the error classes
and first lines. Then inference_mode, get_rng_state / set_rng_state and Size.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
import torch

import strided as st

RNG = np.random.default_rng(2513)
LAYOUTS = ("contiguous", "transposed", "sliced", "expanded")


def _pair(arr: np.ndarray, layout: str = "contiguous", dtype: str = "float64"):
    """(strided tensor, torch tensor) holding ``arr`` read through ``layout`` (the same strides)."""
    arr = np.asarray(arr, dtype=dtype)
    if layout == "transposed" and arr.ndim >= 2:
        base = np.ascontiguousarray(np.swapaxes(arr, -1, -2))
        return tuple(m.tensor(base).transpose(-1, -2) for m in (st, torch))
    if layout == "sliced" and arr.ndim >= 1:
        base = np.repeat(arr, 2, axis=-1)
        return tuple(m.tensor(base)[..., ::2] for m in (st, torch))
    if layout == "expanded" and arr.ndim >= 1:
        return tuple(m.tensor(arr[:1]).expand(*arr.shape) for m in (st, torch))
    return st.tensor(arr), torch.tensor(arr)


def _same(ours, theirs, exact: bool = False, where: str = ""):
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs), where
        for o, t in zip(ours, theirs):
            _same(o, t, exact, where)
        return
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], where
    assert tuple(ours.shape) == tuple(theirs.shape), where
    assert ours.stride() == theirs.stride(), where
    got, want = ours.detach().numpy(), theirs.detach().numpy()
    if exact or want.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, want, err_msg=where)
    else:
        tol = 2e-6 if want.dtype in (np.float32, np.complex64) else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=where)


def _same_error(call):
    """``call(lib)`` raises in both libraries: strided's error is an instance of PyTorch's class
    and its first line is PyTorch's."""
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(Exception) as ours:
        call(st)
    assert isinstance(ours.value, type(theirs.value)), (type(ours.value), type(theirs.value))
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


def _values(*shape):
    return RNG.standard_normal(shape)


# ---------------------------------------------------------------- the fused products

# op -> (input shape, factor shapes, call(lib, input, a, b, **scalars))
FUSED = {
    "addmm": ((2, 4), ((2, 3), (3, 4)), lambda m, i, a, b, **k: m.addmm(i, a, b, **k)),
    "addmv": ((2,), ((2, 3), (3,)), lambda m, i, a, b, **k: m.addmv(i, a, b, **k)),
    "addr": ((2, 3), ((2,), (3,)), lambda m, i, a, b, **k: m.addr(i, a, b, **k)),
    "baddbmm": ((2, 2, 4), ((2, 2, 3), (2, 3, 4)), lambda m, i, a, b, **k: m.baddbmm(i, a, b, **k)),
    "addbmm": ((2, 4), ((3, 2, 3), (3, 3, 4)), lambda m, i, a, b, **k: m.addbmm(i, a, b, **k)),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(FUSED))
def test_fused_products_give_pytorchs_values_and_layouts(name, layout):
    shape, (sa, sb), call = FUSED[name]
    for dtype in ("float32", "float64"):
        i, a, b = (_pair(_values(*s), layout, dtype) for s in (shape, sa, sb))
        for scalars in ({}, {"beta": 0.5, "alpha": -2.0}, {"beta": 0}, {"alpha": 0}):
            _same(call(st, i[0], a[0], b[0], **scalars), call(torch, i[1], a[1], b[1], **scalars),
                  where=f"{name} {layout} {dtype} {scalars}")
        # the input broadcast from its last dim (and from a 0-d one)
        for small in (_pair(_values(shape[-1]), layout, dtype), _pair(np.float64(1.5), dtype=dtype)):
            _same(call(st, small[0], a[0], b[0]), call(torch, small[1], a[1], b[1]), where=f"{name} broadcast")


@pytest.mark.parametrize("name", sorted(FUSED))
def test_fused_products_beta_zero_ignores_nan_and_integers_truncate_scalars(name):
    shape, (sa, sb), call = FUSED[name]
    nan = _pair(np.full(shape, np.nan))
    a, b = _pair(_values(*sa)), _pair(_values(*sb))
    ours, theirs = call(st, nan[0], a[0], b[0], beta=0), call(torch, nan[1], a[1], b[1], beta=0)
    assert not np.isnan(ours.numpy()).any()
    _same(ours, theirs)
    ints = [_pair(RNG.integers(-3, 4, s), dtype="int64") for s in (shape, sa, sb)]
    if name == "addr":
        _same_error(lambda m: call(m, *(x[m is torch] for x in ints), beta=2.5))
        _same_error(lambda m: call(m, *(x[m is torch] for x in ints), alpha=0.5))
        _same(call(st, *(x[0] for x in ints), beta=2), call(torch, *(x[1] for x in ints), beta=2), exact=True)
    else:
        for scalars in ({"beta": 2.5, "alpha": -1.7}, {"beta": 0.5}, {"alpha": True}):
            _same(call(st, *(x[0] for x in ints), **scalars), call(torch, *(x[1] for x in ints), **scalars),
                  exact=True, where=f"{name} {scalars}")
    _same_error(lambda m: call(m, *(x[m is torch] for x in (nan, a, b)), beta=1j))


ZERO = {  # op -> (input, factor, factor) shapes: a contracted size 0 (the input alone), an empty result
    "addmm": (((2, 4), (2, 0), (0, 4)), ((0, 4), (0, 3), (3, 4))),
    "addmv": (((2,), (2, 0), (0,)), ((0,), (0, 3), (3,))),
    "addr": (((0, 3), (0,), (3,)), ((2, 0), (2,), (0,))),
    "baddbmm": (((2, 2, 4), (2, 2, 0), (2, 0, 4)), ((0, 2, 4), (0, 2, 3), (0, 3, 4))),
    "addbmm": (((2, 4), (0, 2, 3), (0, 3, 4)), ((2, 4), (3, 2, 0), (3, 0, 4))),
}


@pytest.mark.parametrize("name", sorted(FUSED))
def test_fused_products_of_zero_size(name):
    call = FUSED[name][2]
    for shapes in ZERO[name]:
        i, a, b = (_pair(_values(*s)) for s in shapes)
        _same(call(st, i[0], a[0], b[0], beta=2), call(torch, i[1], a[1], b[1], beta=2), where=f"{name} {shapes}")


def test_addr_promotes_and_bool_is_or_of_ands():
    f, i = _pair(_values(2, 3), "transposed"), _pair(RNG.integers(0, 3, (2,)), dtype="int64")
    v = _pair(RNG.integers(0, 3, (3,)), dtype="int64")
    _same(st.addr(f[0], i[0], v[0]), torch.addr(f[1], i[1], v[1]))
    bits = [_pair(RNG.integers(0, 2, s).astype(bool), dtype="bool") for s in ((2, 3), (2,), (3,))]
    for scalars in ({}, {"beta": 0}, {"alpha": False}, {"beta": True, "alpha": True}):
        _same(st.addr(*(x[0] for x in bits), **scalars), torch.addr(*(x[1] for x in bits), **scalars), exact=True)


@pytest.mark.parametrize("name", sorted(FUSED))
def test_fused_products_gradients_as_pytorchs(name):
    shape, (sa, sb), call = FUSED[name]
    arrays = [_values(*shape[-1:]), _values(*sa), _values(*sb)]  # (the input broadcast: its gradient summed)
    g = _values(*shape)
    grads = []
    for m in (st, torch):
        xs = [m.tensor(x, requires_grad=True) for x in arrays]
        out = call(m, *xs, beta=0.5, alpha=1.5)
        grads.append(m.autograd.grad(out, xs, m.tensor(g)))
    for ours, theirs in zip(*grads):
        _same(ours, theirs, where=name)
    xs = [st.tensor(x, requires_grad=True) for x in arrays]
    if name == "addmm":  # (the second derivatives of all five: tests/test_autograd_double.py's sweep)
        assert st.autograd.gradgradcheck(lambda *t: call(st, *t, beta=0.5, alpha=1.5), xs)
    assert call(st, *xs).grad_fn.name() == call(torch, *(torch.tensor(x, requires_grad=True)
                                                        for x in arrays)).grad_fn.name()


def test_fused_products_complex_values_and_gradients_as_pytorchs():
    """Complex factors and scalars: PyTorch's gradients are the conjugate ones (``conj(alpha)``)."""
    for name, (shape, (sa, sb), call) in FUSED.items():
        arrays = [_values(*s) + 1j * _values(*s) for s in (shape, sa, sb)]
        g = _values(*shape) - 1j * _values(*shape)
        got = []
        for m in (st, torch):
            xs = [m.tensor(x, requires_grad=True) for x in arrays]
            out = call(m, *xs, beta=0.5 + 1j, alpha=2 - 0.5j)
            got.append((out, *m.autograd.grad(out, xs, m.tensor(g))))
        _same(*got, where=name)


def test_fused_inplace_and_out():
    for name, (shape, (sa, sb), call) in FUSED.items():
        i, a, b = (_pair(_values(*s)) for s in (shape, sa, sb))
        ours, theirs = i[0].clone(), i[1].clone()
        got = getattr(ours, name + "_")(a[0], b[0], beta=0.5, alpha=2)
        getattr(theirs, name + "_")(a[1], b[1], beta=0.5, alpha=2)
        assert got is ours
        _same(ours, theirs, where=name)
        small = [x[:1] if len(shape) == 1 else x[..., :1] for x in i]
        if name == "addbmm":
            # (PyTorch 2.13 resizes self here and reads values it never had: strided refuses, as the
            # other four do in PyTorch)
            with pytest.raises(RuntimeError, match=r"Bad in-place call: input tensor size \[2, 1\] and output"):
                small[0].clone().addbmm_(a[0], b[0])
            continue
        _same_error(lambda m, s=small, n=name, a=a, b=b: getattr(s[m is torch].clone(), n + "_")(a[m is torch],
                                                                                              b[m is torch]))
        o = (st.empty(0, dtype=st.float64), torch.empty(0, dtype=torch.float64))
        _same(call(st, i[0], a[0], b[0], out=o[0]), call(torch, i[1], a[1], b[1], out=o[1]))
        _same(o[0], o[1])
    # out= of another dtype: the BLAS ops refuse it, addr casts
    i, a, b = (_pair(_values(*s)) for s in ((2, 4), (2, 3), (3, 4)))
    _same_error(lambda m: m.addmm(i[m is torch], a[m is torch], b[m is torch], out=m.empty(2, 4)))
    # a result type the target cannot hold
    _same_error(lambda m: m.ones(2, 3, dtype=m.int64).addr_(m.ones(2), m.ones(3)))


_F32, _F64 = (lambda m, *s: m.ones(*s)), (lambda m, *s: m.ones(*s, dtype=m.float64))
FUSED_ERRORS = [
    lambda m: m.addmm(_F32(m, 2, 4), _F32(m, 2, 3), _F64(m, 3, 4)),
    lambda m: m.addmm(_F32(m, 2, 4), _F64(m, 2, 3), _F32(m, 3, 4)),
    lambda m: m.addmm(_F64(m, 2, 4), _F32(m, 2, 3), _F32(m, 3, 4)),
    lambda m: m.addmm(_F32(m, 2, 4), _F32(m, 3), _F32(m, 3, 4)),
    lambda m: m.addmm(_F32(m, 2, 4), _F32(m, 2, 3), _F32(m, 2, 4)),
    lambda m: m.addmm(_F32(m, 3), _F32(m, 2, 3), _F32(m, 3, 4)),
    lambda m: m.addmm(_F32(m, 2, 4).bool(), _F32(m, 2, 3).bool(), _F32(m, 3, 4).bool()),
    lambda m: m.addmm(_F32(m, 2, 4), _F32(m, 2, 3), [[1.0]]),
    lambda m: m.addmv(_F32(m, 3), _F32(m, 2, 3), _F32(m, 3)),
    lambda m: m.addmv(_F32(m, 2), _F32(m, 2, 3), _F32(m, 4)),
    lambda m: m.addmv(_F32(m, 2), _F32(m, 2, 3), _F32(m, 3, 1)),
    lambda m: m.addmv(_F32(m, 1, 2), _F32(m, 2, 3), _F32(m, 3)),
    lambda m: m.addmv(_F64(m, 2), _F32(m, 2, 3), _F32(m, 3)),
    lambda m: m.addmv(_F32(m, 2), _F32(m, 2, 3), _F64(m, 3)),
    lambda m: m.addmv(_F32(m, 2).bool(), _F32(m, 2, 3).bool(), _F32(m, 3).bool()),
    lambda m: m.addr(_F32(m, 2, 3), _F32(m, 2, 1), _F32(m, 3)),
    lambda m: m.addr(_F32(m, 2, 3), _F32(m, 2), _F32(m, 3, 1)),
    lambda m: m.addr(_F32(m, 3, 3), _F32(m, 2), _F32(m, 3)),
    lambda m: m.baddbmm(_F32(m, 2, 4), _F32(m, 2, 3), _F32(m, 3, 4)),
    lambda m: m.baddbmm(_F32(m, 4), _F32(m, 5, 2, 3), _F32(m, 4, 3, 4)),
    lambda m: m.baddbmm(_F32(m, 4), _F32(m, 5, 2, 3), _F32(m, 5, 2, 4)),
    lambda m: m.baddbmm(_F64(m, 4), _F32(m, 5, 2, 3), _F32(m, 5, 3, 4)),
    lambda m: m.baddbmm(_F32(m, 4), _F32(m, 5, 2, 3), _F64(m, 5, 3, 4)),
    lambda m: m.baddbmm(_F32(m, 6, 2, 4), _F32(m, 5, 2, 3), _F32(m, 5, 3, 4)),
    lambda m: m.baddbmm(_F32(m, 4).bool(), _F32(m, 5, 2, 3).bool(), _F32(m, 5, 3, 4).bool()),
    lambda m: m.addbmm(_F32(m, 4), _F32(m, 2, 3), _F32(m, 5, 3, 4)),
    lambda m: m.addbmm(_F32(m, 4), _F32(m, 5, 2, 3), _F32(m, 4, 3, 4)),
    lambda m: m.addbmm(_F32(m, 4), _F32(m, 5, 2, 3), _F32(m, 5, 2, 4)),
    lambda m: m.addbmm(_F64(m, 4), _F32(m, 5, 2, 3), _F32(m, 5, 3, 4)),
    lambda m: m.addbmm(_F32(m, 3, 4), _F32(m, 5, 2, 3), _F32(m, 5, 3, 4)),
    lambda m: m.addbmm(_F32(m, 4).bool(), _F32(m, 5, 2, 3).bool(), _F32(m, 5, 3, 4).bool()),
    lambda m: m.addmm(_F32(m, 1, 2, 4), _F32(m, 2, 3), _F32(m, 3, 4)),
    lambda m: m.addr(_F64(m, 1, 2, 3), _F64(m, 2), _F64(m, 3)),
    *(lambda m, op=op, n1=n1, n2=n2: getattr(m, op)(_F32(m, 2), _F32(m, *[2] * n1), _F32(m, *[2] * n2))
      for op in ("baddbmm", "addbmm") for n1 in (1, 2, 3, 4) for n2 in (1, 2, 3, 4) if (n1, n2) != (3, 3)),
]


@pytest.mark.parametrize("k", range(len(FUSED_ERRORS)))
def test_fused_products_refuse_as_pytorch(k):
    _same_error(FUSED_ERRORS[k])


# ---------------------------------------------------------------- kron, vander, dist


def test_kron_as_pytorch():
    # (PyTorch 2.13's kron refuses a transposed operand with a view error; strided reads it: see kron's doc)
    for layout, dtype in (("contiguous", "float32"), ("sliced", "float64"), ("expanded", "float32")):
        for sa, sb in (((2, 3), (2, 2)), ((3,), (2, 2)), ((2, 1, 2), (3,)), ((0, 2), (2, 3)), ((), (2,))):
            a, b = _pair(_values(*sa), layout, dtype), _pair(_values(*sb), "contiguous", dtype)
            _same(st.kron(a[0], b[0]), torch.kron(a[1], b[1]), exact=True, where=f"{layout} {sa} {sb}")
    i, f = _pair(RNG.integers(0, 5, (2, 2)), dtype="int64"), _pair(_values(2), dtype="float32")
    _same(i[0].kron(f[0]), i[1].kron(f[1]), exact=True)
    x, y = _values(3, 2), _values(2, 2)  # (the transposed operand PyTorch refuses)
    np.testing.assert_array_equal(st.kron(st.tensor(x).t(), st.tensor(y)).numpy(), np.kron(x.T, y))
    xs = [st.tensor(_values(2, 1), requires_grad=True), st.tensor(_values(1, 2), requires_grad=True)]
    assert st.autograd.gradgradcheck(st.kron, xs)
    _same_error(lambda m: m.kron(m.ones(2), [1.0]))


def test_vander_as_pytorch():
    for data, dtype in (([1, 2, 3], "int64"), ([0.5, -2.0, 3.0], "float32"), ([0.5, 1.5], "float64"),
                        ([], "float32"), ([1, 0, 1], "bool"), ([1, 2], "int8")):
        x = _pair(np.array(data), dtype=dtype)
        for n in (None, 0, 1, 4):
            for inc in (False, True):
                _same(st.vander(x[0], n, inc), torch.vander(x[1], n, inc), where=f"{data} {n} {inc}")
    s = _pair(_values(6), "sliced")
    _same(st.vander(s[0], 3), torch.vander(s[1], 3))
    xs = [st.tensor(_values(3), requires_grad=True)]
    assert st.autograd.gradgradcheck(lambda t: st.vander(t, 4), xs)
    _same_error(lambda m: m.vander(m.ones(2, 2)))
    _same_error(lambda m: m.vander(m.ones(2), -1))


def test_dist_as_pytorch():
    for layout in LAYOUTS:
        for dtype in ("float32", "float64"):
            a, b = _pair(_values(2, 3), layout, dtype), _pair(_values(3), "contiguous", dtype)
            for p in (0, 1, 2, 3, 0.5, float("inf"), -float("inf"), -1):
                _same(st.dist(a[0], b[0], p), torch.dist(a[1], b[1], p), where=f"{layout} {dtype} {p}")
    f32, f64 = _pair(_values(3), dtype="float32"), _pair(_values(3))
    _same(st.dist(f32[0], f64[0]), torch.dist(f32[1], f64[1]))
    _same(st.dist(st.ones(0), st.ones(0)), torch.dist(torch.ones(0), torch.ones(0)))
    for p in (2, 1, 3):  # the gradient at zero distance is 0 (the norm's subgradient), and elsewhere the norm's
        grads = []
        for m in (st, torch):
            x = m.tensor([1.0, 2.0, 3.0], dtype=m.float64, requires_grad=True)
            grads.append(m.autograd.grad(m.dist(x, m.tensor([1.0, 2.0, 3.0], dtype=m.float64), p), x)[0]
                         + m.autograd.grad(m.dist(x, m.zeros(3, dtype=m.float64), p), x)[0])
        _same(*grads)
    _same_error(lambda m: m.dist(m.ones(3, dtype=m.int64), m.zeros(3, dtype=m.int64)))
    _same_error(lambda m: m.dist(m.ones(3), m.zeros(2)))
    _same_error(lambda m: m.dist(m.ones(3), m.zeros(3), 1j))


# ---------------------------------------------------------------- trapezoid, cov, logcumsumexp


@pytest.mark.parametrize("dtype", ("float32", "float64", "int64"))
def test_trapezoid_and_cumulative_as_pytorch(dtype):
    for layout in LAYOUTS[::2] if dtype == "int64" else LAYOUTS[dtype == "float64"::2]:
        y = _pair(RNG.integers(-4, 5, (3, 4)) if dtype == "int64" else _values(3, 4), layout, dtype)
        x1 = _pair(np.cumsum(RNG.random(4)), dtype="float32" if dtype != "float64" else "float64")
        x2 = _pair(np.cumsum(RNG.random((3, 4)), 0), layout, "float32" if dtype != "float64" else "float64")
        for name in ("trapezoid", "trapz", "cumulative_trapezoid"):
            cases = [((), {}), ((), {"dx": 0.5}), ((), {"dim": 0}), ((), {"dx": 2, "dim": 0}), ((x1,), {}),
                     ((x2,), {"dim": 0}), ((x1,), {"dim": -1})]
            for xs, kw in cases:
                ours = getattr(st, name)(y[0], *(x[0] for x in xs), **kw)
                theirs = getattr(torch, name)(y[1], *(x[1] for x in xs), **kw)
                _same(ours, theirs, where=f"{name} {layout} {dtype} {kw}")

def test_trapezoid_zero_size_and_second_derivatives():
    for name in ("trapezoid", "cumulative_trapezoid"):
        for shape in ((2, 0), (0, 3), (2, 1)):
            y = _pair(np.ones(shape), dtype="float32")
            _same(getattr(st, name)(y[0]), getattr(torch, name)(y[1]), where=f"{name} {shape}")
        ys = [st.tensor(_values(2, 4), requires_grad=True), st.tensor(np.cumsum(RNG.random(4)), requires_grad=True)]
        assert st.autograd.gradgradcheck(getattr(st, name), ys)
    _same(st.trapezoid(st.ones(2, 0, dtype=st.int64)), torch.trapezoid(torch.ones(2, 0, dtype=torch.int64)))


TRAPEZOID_ERRORS = [
    lambda m: m.trapezoid(m.ones(2, 3), m.tensor([0.0, 1.0])),
    lambda m: m.trapezoid(m.ones(2, 3).bool()),
    lambda m: m.trapezoid(m.ones(2, 3), dx=1j),
    lambda m: m.trapezoid(m.ones(2, 3), dx=True),
    lambda m: m.trapezoid(m.ones(2, 3), dim=2),
    lambda m: m.trapezoid(m.tensor(1.0)),
    lambda m: m.trapezoid(m.ones(2, 3), 2.0),
    lambda m: m.trapezoid(m.ones(2, 3), m.ones(3), dx=2),
    lambda m: m.cumulative_trapezoid(m.ones(2, 3), m.tensor([0.0, 1.0])),
    lambda m: m.cumulative_trapezoid(m.ones(2, 3).bool()),
    lambda m: m.cumulative_trapezoid(m.ones(2, 3), dx=1j),
]


@pytest.mark.parametrize("k", range(len(TRAPEZOID_ERRORS)))
def test_trapezoid_refuses_as_pytorch(k):
    _same_error(TRAPEZOID_ERRORS[k])


@pytest.mark.filterwarnings("ignore:cov..:UserWarning")  # (the degrees-of-freedom warning, in both)
def test_cov_as_pytorch():
    for layout in LAYOUTS:
        for dtype in ("float32", "float64"):
            x = _pair(_values(3, 5), layout, dtype)
            fw = _pair(RNG.integers(0, 4, 5), dtype="int64")
            aw = _pair(RNG.random(5), dtype=dtype)
            for kw in ({}, {"correction": 0}, {"correction": 2}):
                for weights in ({}, {"fweights": fw}, {"aweights": aw}, {"fweights": fw, "aweights": aw}):
                    ours = st.cov(x[0], **kw, **{k: v[0] for k, v in weights.items()})
                    theirs = torch.cov(x[1], **kw, **{k: v[1] for k, v in weights.items()})
                    _same(ours, theirs, where=f"{layout} {dtype} {kw} {sorted(weights)}")
    for data, dtype in ((RNG.integers(0, 9, (2, 4)), "int64"), (_values(4), "float32"), (_values(1, 1), "float64"),
                        (_values(2, 0), "float64"), (np.float64(2.0), "float64")):
        x = _pair(data, dtype=dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the degrees-of-freedom warning, in both)
            _same(st.cov(x[0]), torch.cov(x[1]), where=f"{np.shape(data)} {dtype}")
    one = _pair(_values(2, 1))
    for weights in ({"fweights": (st.tensor([2]), torch.tensor([2]))},
                    {"aweights": (st.tensor([0.5]), torch.tensor([0.5]))}):
        before = one[0].clone()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _same(st.cov(one[0].clone(), **{k: v[0] for k, v in weights.items()}),
                  torch.cov(one[1].clone(), **{k: v[1] for k, v in weights.items()}))
        assert (one[0] == before).all()
    c = _pair(_values(2, 3) + 1j * _values(2, 3), dtype="complex128")
    _same(st.cov(c[0]), torch.cov(c[1]))
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        st.cov(st.ones(2, 1))
    xs = [st.tensor(_values(2, 4), requires_grad=True)]
    assert st.autograd.gradgradcheck(lambda t: st.cov(t, aweights=st.tensor([0.5, 1.0, 2.0, 1.5],
                                                                           dtype=st.float64)), xs)


COV_ERRORS = [
    lambda m: m.cov(m.ones(2, 2, 2)),
    lambda m: m.cov(m.ones(2, 2).bool()),
    lambda m: m.cov(m.ones(2, 3), fweights=m.ones(3, 1).long()),
    lambda m: m.cov(m.ones(2, 3), fweights=m.ones(3)),
    lambda m: m.cov(m.ones(2, 3), fweights=m.ones(2).long()),
    lambda m: m.cov(m.ones(2, 3), fweights=-m.ones(3).long()),
    lambda m: m.cov(m.ones(2, 3), aweights=m.ones(3).long()),
    lambda m: m.cov(m.ones(2, 3), aweights=m.ones(4)),
    lambda m: m.cov(m.ones(2, 3), aweights=-m.ones(3)),
    lambda m: m.cov(m.ones(2, 3), aweights=m.zeros(3)),
]


@pytest.mark.parametrize("k", range(len(COV_ERRORS)))
def test_cov_refuses_as_pytorch(k):
    _same_error(COV_ERRORS[k])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_logcumsumexp_as_pytorch(layout):
    for dtype in ("float32", "float64"):
        x = _pair(_values(3, 4) * 30, layout, dtype)
        for dim in (0, 1, -1):
            _same(st.logcumsumexp(x[0], dim), torch.logcumsumexp(x[1], dim), where=f"{layout} {dtype} {dim}")
    special = _pair(np.array([-np.inf, -np.inf, 0.0, np.inf, np.nan, 1.0, -1e30]))
    _same(special[0].logcumsumexp(0), special[1].logcumsumexp(0))
    for shape in ((0, 3), (3, 0), ()):
        z = _pair(np.ones(shape), dtype="float32")
        _same(z[0].logcumsumexp(0), z[1].logcumsumexp(0))
    h = (st.tensor([0.5, 1.0, -2.0], dtype=st.float16), torch.tensor([0.5, 1.0, -2.0], dtype=torch.float16))
    _same(h[0].logcumsumexp(0), h[1].logcumsumexp(0), exact=True)
    grads = []
    g, arr = _values(3, 4), _values(3, 4)
    for m in (st, torch):
        t = m.tensor(arr, requires_grad=True)
        grads.append(m.autograd.grad(t.logcumsumexp(1), t, m.tensor(g))[0])
    _same(*grads)
    assert st.autograd.gradgradcheck(lambda t: t.logcumsumexp(0), [st.tensor(arr, requires_grad=True)])
    o = (st.empty(3), torch.empty(3))
    _same(st.logcumsumexp(st.ones(3), 0, out=o[0]), torch.logcumsumexp(torch.ones(3), 0, out=o[1]))
    _same_error(lambda m: m.logcumsumexp(m.ones(3), 0, out=m.empty(3, dtype=m.float64)))
    _same_error(lambda m: m.logcumsumexp(m.arange(3), 0))
    _same_error(lambda m: m.logcumsumexp(m.ones(3).bool(), 0))
    _same_error(lambda m: m.logcumsumexp(m.ones(2, 3), 2))


# ---------------------------------------------------------------- inference_mode


def test_inference_mode_as_pytorch():
    def story(m):
        with m.inference_mode():
            x = m.ones(2) * 3
            v = x[:1]
            inside = (m.is_inference_mode_enabled(), m.is_grad_enabled())
            with m.inference_mode(False):
                normal = m.ones(2) * 2
                nested = (m.is_inference_mode_enabled(), m.is_grad_enabled())
        kept = m.ones(2)
        with m.inference_mode():
            view_of_normal = kept[:1]
            kept.add_(1)
            made = kept * 2

        @m.inference_mode()
        def decorated(t):
            return t + 1

        w = m.ones(2, requires_grad=True)
        flags = (x.is_inference(), v.is_inference(), x.requires_grad, normal.is_inference(),
                 view_of_normal.is_inference(), kept.is_inference(), made.is_inference(),
                 decorated(kept).is_inference(), x.clone().is_inference(), (w + x).requires_grad,
                 m.is_inference_mode_enabled(), m.is_grad_enabled())
        return flags, inside, nested, x

    ours, theirs = story(st), story(torch)
    assert ours[:3] == theirs[:3]
    xs = (ours[3], theirs[3])
    w = (st.ones(2, requires_grad=True), torch.ones(2, requires_grad=True))
    _same_error(lambda m: w[m is torch] * xs[m is torch])
    _same_error(lambda m: xs[m is torch].add_(1))
    _same_error(lambda m: xs[m is torch].requires_grad_())
    assert (xs[0] == 3).all()  # (the refused in-place write wrote nothing)


def test_inference_mode_is_context_local():
    """A block belongs to its thread: another thread sees no inference mode and makes normal tensors."""
    import threading

    seen = {}

    def other():
        seen["mode"] = st.is_inference_mode_enabled()
        seen["tensor"] = (st.ones(2) * 2).is_inference()
        seen["grad"] = st.is_grad_enabled()

    with st.inference_mode():
        worker = threading.Thread(target=other)
        worker.start()
        worker.join()
        assert st.is_inference_mode_enabled()
    assert seen == {"mode": False, "tensor": False, "grad": True}


# ---------------------------------------------------------------- the generator's state


def test_rng_state_round_trip_and_bad_states():
    st.manual_seed(3)
    state = st.get_rng_state()
    assert state.dtype is st.uint8 and state.ndim == 1
    first = (st.rand(3), st.randn(2), st.randint(0, 9, (4,)))
    st.set_rng_state(state)
    again = (st.rand(3), st.randn(2), st.randint(0, 9, (4,)))
    assert all((a == b).all() for a, b in zip(first, again))
    assert not (st.rand(3) == first[0]).all()  # (the stream moved on)
    state[0] = 7  # (the state is a copy: writing it changes nothing)
    st.set_rng_state(st.get_rng_state())
    with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
        st.set_rng_state(st.zeros(45))
    with pytest.raises(TypeError, match="expected a torch.ByteTensor, but got list"):
        st.set_rng_state([0] * 45)
    with pytest.raises(RuntimeError, match="size 45, but got 3 bytes"):
        st.set_rng_state(state[:3])
    with pytest.raises(RuntimeError, match="Invalid generator state"):
        st.set_rng_state(st.zeros(45, dtype=st.uint8))
    _same_error(lambda m: m.set_rng_state(m.zeros(4)))
    st.manual_seed(0)


# ---------------------------------------------------------------- Size


def test_size_as_torch_size():
    def story(m):
        s = m.Size([2, 3])
        return (repr(s).split(".", 1)[1], s.numel(), m.Size().numel(), s == (2, 3), s == [2, 3], hash(s) == hash((2, 3)),
                repr(s[1:]).split(".", 1)[1], s[0], repr(s + (4,)).split(".", 1)[1],
                repr((4,) + s).split(".", 1)[1], repr(s * 2).split(".", 1)[1],
                repr(m.Size([True, np.int64(4), m.tensor(5)])).split(".", 1)[1], m.Size([-1])[0],
                tuple(m.zeros(s).shape), tuple(m.ones(6).reshape(m.Size([3, 2])).shape),
                tuple(m.ones(1, 3).expand(m.Size([2, 3])).shape), tuple(m.empty(2).new_zeros(s).shape),
                type(pickle.loads(pickle.dumps(s))).__name__)

    assert story(st) == story(torch)
    for bad in ((2.5,), (1, None), "ab"):
        _same_error(lambda m, bad=bad: m.Size(bad))
    _same_error(lambda m: m.Size(3))
    _same_error(lambda m: m.Size([2]) + [3])
