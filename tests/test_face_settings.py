"""The settings and small names of the face, differential against PyTorch: repr (autograd
suffixes, dtype suffixes, print options), the dtype aliases, finfo/iinfo, the default dtype,
new_*/type_as, the comparison and axis aliases, and the queries (numel, is_nonzero, ...)."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import strided

DATA = np.array([[0.5, -1.25, 3.0], [2.0, 1e-3, 7.5]], dtype=np.float32)


def _both(f):
    """f(module) on torch and on strided; the torch result's text in strided's words."""
    return f(strided), f(torch)


def _text(r: str) -> str:
    return r.replace("torch.", "strided.")


def _refuses_as_torch(f, cls: type[Exception]) -> None:
    """f(torch) and f(strided) raise ``cls``; strided's first line is PyTorch's message."""
    with pytest.raises(cls) as theirs:
        f(torch)
    with pytest.raises(cls) as ours:
        f(strided)
    assert str(ours.value).splitlines()[0] == str(theirs.value)


# ------------------------------------------------------------------------------- repr

REPR_CASES = {
    "leaf": lambda m: m.tensor([1.0, 2.0], requires_grad=True),
    "sum": lambda m: m.tensor([1.0, 2.0], requires_grad=True).sum(),
    "mean": lambda m: m.tensor(DATA, requires_grad=True).mean(1),
    "mul": lambda m: m.tensor(DATA, requires_grad=True) * 2,
    "add": lambda m: m.tensor(DATA, requires_grad=True) + m.tensor(DATA),
    "sub": lambda m: m.tensor(DATA, requires_grad=True) - 1,
    "div": lambda m: m.tensor(DATA, requires_grad=True) / 3,
    "exp": lambda m: m.tensor(DATA, requires_grad=True).exp(),
    "pow": lambda m: m.tensor(DATA, requires_grad=True) ** 2,
    "neg": lambda m: -m.tensor(DATA, requires_grad=True),
    "relu": lambda m: m.tensor(DATA, requires_grad=True).relu(),
    "sigmoid": lambda m: m.tensor(DATA, requires_grad=True).sigmoid(),
    "tanh": lambda m: m.tensor(DATA, requires_grad=True).tanh(),
    "matmul": lambda m: m.tensor(DATA, requires_grad=True) @ m.tensor(DATA).t(),
    "t": lambda m: m.tensor(DATA, requires_grad=True).t(),
    "view": lambda m: m.tensor(DATA, requires_grad=True).view(3, 2),
    "reshape_copy": lambda m: m.tensor(DATA, requires_grad=True).t().reshape(6),
    "unsqueeze": lambda m: m.tensor(DATA, requires_grad=True).unsqueeze(0),
    "select": lambda m: m.tensor(DATA, requires_grad=True)[1],
    "slice": lambda m: m.tensor(DATA, requires_grad=True)[:, 1:],
    "cat": lambda m: m.cat([m.tensor(DATA, requires_grad=True), m.tensor(DATA)]),
    "softmax": lambda m: m.tensor(DATA, requires_grad=True).softmax(1),
    "clone": lambda m: m.tensor(DATA, requires_grad=True).clone(),
    "to64": lambda m: m.tensor(DATA, requires_grad=True).to(m.float64),
    "abs": lambda m: m.tensor(DATA, requires_grad=True).abs(),
    "max": lambda m: m.tensor(DATA, requires_grad=True).max(),
    "float64_leaf": lambda m: m.tensor([1.5, 2.0], dtype=m.float64, requires_grad=True),
    "detached": lambda m: (m.tensor(DATA, requires_grad=True) * 2).detach(),
    "no_grad": lambda m: _no_grad(m),
    "int": lambda m: m.tensor([1, 2, 3]),
    "int32": lambda m: m.tensor([1, 2], dtype=m.int32),
    "bool": lambda m: m.tensor([True, False]),
    "empty_int": lambda m: m.tensor([], dtype=m.int64),
    "empty_2d_f64": lambda m: m.zeros(0, 3, dtype=m.float64),
    "complex": lambda m: m.tensor([1 + 2j, -0.5j]),
    "complex128": lambda m: m.tensor([1 + 2j], dtype=m.complex128),
    "sci": lambda m: m.tensor([1e-5, 1.0, 3e5]),
    "int_mode": lambda m: m.tensor([1.0, -20.0, 300.0]),
    "zero_d": lambda m: m.tensor(3.25),
    "big": lambda m: m.arange(2000.0).view(40, 50),
    "nonfinite": lambda m: m.tensor([float("nan"), float("inf"), 1.5]),
}


def _no_grad(m):
    x = m.tensor(DATA, requires_grad=True)
    with m.no_grad():
        return x * 2


@pytest.mark.parametrize("case", sorted(REPR_CASES))
def test_repr_as_torch_prints_it(case):
    ours, theirs = _both(REPR_CASES[case])
    assert repr(ours) == _text(repr(theirs))
    assert str(ours) == _text(str(theirs))


PRINT_OPTIONS = [
    {"precision": 2}, {"precision": 6}, {"threshold": 5}, {"edgeitems": 1, "threshold": 5},
    {"linewidth": 30}, {"sci_mode": True}, {"sci_mode": False}, {"profile": "short"},
    {"profile": "full"}, {"profile": "short", "precision": 5}, {"edgeitems": 0, "threshold": 3},
]


@pytest.mark.parametrize("options", PRINT_OPTIONS, ids=str)
def test_set_printoptions_changes_repr_as_torchs(options):
    values = [np.array([1.123456, -2.5, 3e-3, 40.0], dtype=np.float32),
              np.arange(24, dtype=np.float32).reshape(4, 6) * 1.5,
              np.arange(2000, dtype=np.int64), np.array([1e-6, 5.0], dtype=np.float64)]
    for m in (strided, torch):
        m.set_printoptions(**options)
    try:
        for v in values:
            ours, theirs = strided.tensor(v), torch.tensor(v)
            assert repr(ours) == _text(repr(theirs)), v
    finally:
        for m in (strided, torch):
            m.set_printoptions(profile="default")
    assert repr(strided.tensor([1.123456])) == "tensor([1.1235])"


def test_printoptions_bad_profile_is_refused():
    with pytest.raises(RuntimeError, match="unknown profile 'tiny'"):
        strided.set_printoptions(profile="tiny")
    assert strided.formatting.get_printoptions()["precision"] == 4


# ------------------------------------------------------------------------------- dtypes


@pytest.mark.parametrize("name", ["float", "double", "half", "long", "int", "short", "bool", "uint8", "cfloat",
                                  "cdouble", "int8", "int16", "complex64"])
def test_dtype_aliases_are_torchs(name):
    ours, theirs = getattr(strided, name), getattr(torch, name)
    assert isinstance(ours, strided.DType)
    assert str(ours).removeprefix("strided.") == str(theirs).removeprefix("torch.")
    assert strided.zeros(2, dtype=ours).dtype is ours


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "complex64", "complex128"])
def test_finfo_fields_and_repr_as_torchs(name):
    ours, theirs = strided.finfo(getattr(strided, name)), torch.finfo(getattr(torch, name))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        got, want = getattr(ours, field), getattr(theirs, field)
        assert got == want and type(got) is type(want), field
    assert repr(ours) == repr(theirs)
    with pytest.raises(AttributeError):
        ours.eps = 1.0


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"])
def test_iinfo_fields_and_repr_as_torchs(name):
    ours, theirs = strided.iinfo(getattr(strided, name)), torch.iinfo(getattr(torch, name))
    assert (ours.bits, ours.max, ours.min, ours.dtype) == (theirs.bits, theirs.max, theirs.min, theirs.dtype)
    assert repr(ours) == repr(theirs)


def test_finfo_iinfo_errors_and_defaults_as_torchs():
    cases = [(lambda m: m.finfo(m.int32)), (lambda m: m.iinfo(m.float32)), (lambda m: m.iinfo(m.complex64)),
             (lambda m: m.iinfo(m.bool)), (lambda m: m.finfo("float32"))]
    for f in cases:
        _refuses_as_torch(f, TypeError)
    assert strided.finfo() == strided.finfo(strided.float32) and strided.finfo().eps == torch.finfo().eps
    assert strided.iinfo(strided.int32) == strided.iinfo(strided.int32) != strided.iinfo(strided.int64)


DEFAULT_CASES = {
    "tensor_float": lambda m: m.tensor([1.5, 2.0]),
    "tensor_scalar": lambda m: m.tensor(2.5),
    "tensor_int": lambda m: m.tensor([1, 2]),
    "tensor_complex": lambda m: m.tensor([1j]),
    "numpy_float32": lambda m: m.tensor(np.array([1.5], dtype=np.float32)),
    "zeros": lambda m: m.zeros(2), "ones": lambda m: m.ones(1, 2), "empty": lambda m: m.empty(2).fill_(0),
    "full_float": lambda m: m.full((2,), 2.5), "full_int": lambda m: m.full((2,), 2),
    "arange_float": lambda m: m.arange(0.0, 2), "arange_int": lambda m: m.arange(3),
    "linspace": lambda m: m.linspace(0, 1, 3), "logspace": lambda m: m.logspace(0, 1, 2), "eye": lambda m: m.eye(2),
    "int_times_float": lambda m: m.tensor([1, 2]) * 2.5,
    "int_true_div": lambda m: m.tensor([1, 2]) / 2,
    "int_sqrt": lambda m: m.sqrt(m.tensor([4, 9])),
    "int_times_complex": lambda m: m.tensor([1, 2]) * 1j,
    "float32_times_float": lambda m: m.tensor([1.0], dtype=m.float32) * 2.5,
    "bool_times_float": lambda m: m.tensor([True]) * 1.5, "int_pow_float": lambda m: m.tensor([1, 4]) ** 0.5,
    "zero_d_int_times_float": lambda m: m.tensor(2) * 1.5, "int_atan2": lambda m: m.atan2(m.tensor([1]), m.tensor([2])),
    "int_where_float": lambda m: m.where(m.tensor([True, False]), m.tensor([1, 2]), 0.5),
    "int_remainder_float": lambda m: m.remainder(m.tensor([3, 4]), 1.5),
    "rand": lambda m: m.rand(2) * 0, "randn": lambda m: m.randn(2) * 0,
    "empty_strided": lambda m: m.empty_strided((2,), (1,)).fill_(1),
    "float_method": lambda m: m.tensor([1, 2]).float(),
    "repr64": lambda m: repr(m.tensor([1.5])), "repr32": lambda m: repr(m.tensor([1.5], dtype=m.float32)),
    "repr_c128": lambda m: repr(m.tensor([1j])), "repr_empty": lambda m: repr(m.tensor([])),
    "finfo": lambda m: m.finfo().bits,
}


@pytest.mark.parametrize("case", sorted(DEFAULT_CASES))
def test_set_default_dtype_float64_as_torchs(case):
    got = {}
    for m in (strided, torch):
        DEFAULT_CASES[case](m)  # (first under float32: a cache filled then must not answer after the change)
        before = m.get_default_dtype()
        m.set_default_dtype(m.float64)
        try:
            got[m] = DEFAULT_CASES[case](m)
        finally:
            m.set_default_dtype(before)
    ours, theirs = got[strided], got[torch]
    if isinstance(theirs, str):
        assert ours == _text(theirs)
    elif isinstance(theirs, int):
        assert ours == theirs
    else:
        assert str(ours.dtype) == _text(str(theirs.dtype))
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert strided.get_default_dtype() is strided.float32 and strided.tensor([1.5]).dtype is strided.float32


def test_set_default_dtype_refusals():
    for bad, cls in ((strided.int64, TypeError), ("float64", TypeError), (strided.complex64, TypeError)):
        with pytest.raises(cls):
            strided.set_default_dtype(bad)
    _refuses_as_torch(lambda m: m.set_default_dtype(m.int64), TypeError)
    # float16: PyTorch's complex counterpart (complex32) is no strided dtype
    with pytest.raises(NotImplementedError, match="complex32"):
        strided.set_default_dtype(strided.float16)
    assert strided.get_default_dtype() is strided.float32


# ------------------------------------------------------------------------------- new_*, type_as, queries

NEW_CASES = {
    "new_zeros_ints": lambda m, x: x.new_zeros(2, 3),
    "new_zeros_tuple": lambda m, x: x.new_zeros((2,), dtype=m.int32),
    "new_zeros_size_kw": lambda m, x: x.new_zeros(size=(1, 2)),
    "new_ones": lambda m, x: x.new_ones((2, 1)),
    "new_ones_grad": lambda m, x: x.new_ones(2, requires_grad=True),
    "new_empty": lambda m, x: x.new_empty(0, 3),
    "new_full": lambda m, x: x.new_full((2, 2), 3),
    "new_full_dtype": lambda m, x: x.new_full([2], 1.5, dtype=m.float32),
    "new_tensor": lambda m, x: x.new_tensor([1, 2]),
    "new_tensor_dtype": lambda m, x: x.new_tensor([[1, 2]], dtype=m.int16),
    "type_as": lambda m, x: m.tensor([1, 2]).type_as(x),
    "type_as_same": lambda m, x: x.type_as(x),
}


@pytest.mark.parametrize("case", sorted(NEW_CASES))
def test_new_tensors_take_selfs_dtype_as_torchs(case):
    ours = NEW_CASES[case](strided, strided.tensor(DATA, dtype=strided.float64).t())
    theirs = NEW_CASES[case](torch, torch.tensor(DATA, dtype=torch.float64).t())
    assert (str(ours.dtype), ours.shape, ours.stride(), ours.requires_grad) == (
        _text(str(theirs.dtype)), tuple(theirs.shape), theirs.stride(), theirs.requires_grad)
    if case != "new_empty":
        np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())


def test_new_tensor_copies_and_type_as_keeps_self():
    x = strided.tensor([1.0, 2.0])
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        y = x.new_tensor(x)
    y[0] = 5
    assert x.tolist() == [1.0, 2.0] and not strided.shares_memory(x, y)
    assert x.type_as(strided.zeros(1)) is x  # (as torch: .to of the same dtype is self)
    with pytest.raises(TypeError, match=r"^new_full\(\): argument 'size' \(position 1\) must be tuple of ints, not int"):
        x.new_full(2, 3.0)
    with pytest.raises(TypeError, match=r"^type_as\(\): argument 'other' \(position 1\) must be Tensor, not int"):
        x.type_as(3)


def test_queries_as_torchs():
    for f in (lambda m: m.numel(m.zeros(2, 3)), lambda m: m.is_tensor(m.zeros(1)), lambda m: m.is_tensor(3),
              lambda m: m.is_floating_point(m.zeros(1, dtype=m.float16)), lambda m: m.is_nonzero(m.tensor([0.0])),
              lambda m: m.is_nonzero(m.tensor(2)), lambda m: m.tensor([[True]]).is_nonzero()):
        ours, theirs = _both(f)
        assert ours == theirs
    for f, cls in ((lambda m: m.is_nonzero(m.tensor([1, 2])), RuntimeError), (lambda m: m.is_nonzero(m.tensor([])), RuntimeError),
                   (lambda m: m.is_nonzero(3), TypeError), (lambda m: m.numel([1]), TypeError),
                   (lambda m: m.is_floating_point(1.0), TypeError)):
        _refuses_as_torch(f, cls)


def test_triangle_indices_errors_as_torchs():
    for f, cls in ((lambda m: m.tril_indices(-1, 3), RuntimeError), (lambda m: m.triu_indices(3, -2), RuntimeError),
                   (lambda m: m.tril_indices(3, 3, dtype=m.float32), NotImplementedError),
                   (lambda m: m.triu_indices(3, 3, dtype=m.int16), NotImplementedError)):
        _refuses_as_torch(f, cls)


# ------------------------------------------------------------------------------- aliases

ALIAS_CASES = {
    "moveaxis": lambda m, x: m.moveaxis(x, (0, 1), (2, 0)),
    "swapaxes": lambda m, x: m.swapaxes(x, axis0=0, axis1=2),
    "swapdims": lambda m, x: m.swapdims(x, 1, -1),
    "method_swapaxes": lambda m, x: x.swapaxes(0, 1),
    "absolute": lambda m, x: m.absolute(x),
    "greater": lambda m, x: m.greater(x, 0.5), "greater_equal": lambda m, x: m.greater_equal(x, x.flip(0)),
    "less": lambda m, x: m.less(x, 0.5), "less_equal": lambda m, x: m.less_equal(x, 0.5),
    "not_equal": lambda m, x: m.not_equal(x, x.flip(2)), "method_not_equal": lambda m, x: x.not_equal(0.5),
}


@pytest.mark.parametrize("case", sorted(ALIAS_CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_aliases_as_torchs(case, dtype):
    data = np.random.default_rng(1).random((3, 2, 4))
    x_ours = strided.tensor(data, dtype=getattr(strided, dtype)).transpose(0, 2)
    x_theirs = torch.tensor(data, dtype=getattr(torch, dtype)).transpose(0, 2)
    ours, theirs = ALIAS_CASES[case](strided, x_ours), ALIAS_CASES[case](torch, x_theirs)
    assert (str(ours.dtype), ours.shape, ours.stride()) == (_text(str(theirs.dtype)), tuple(theirs.shape), theirs.stride())
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert strided.shares_memory(ours, x_ours) == (theirs.untyped_storage().data_ptr() == x_theirs.untyped_storage().data_ptr())


@pytest.mark.parametrize("name", ["moveaxis", "swapaxes", "swapdims", "absolute"])
def test_alias_gradients_as_torchs(name):
    args = {"moveaxis": (0, 2), "swapaxes": (0, 1), "swapdims": (2, 0), "absolute": ()}[name]
    data = np.random.default_rng(2).standard_normal((2, 3, 4))
    grads = []
    for m in (strided, torch):
        x = m.tensor(data, requires_grad=True)
        y = getattr(m, name)(x, *args)
        (y * m.arange(24.0, dtype=m.float64).view(y.shape)).sum().backward()
        grads.append((x.grad.numpy(), type(y.grad_fn).__name__ if m is torch else y.grad_fn.name()))
    np.testing.assert_array_equal(grads[0][0], grads[1][0])
    assert grads[0][1] == grads[1][1]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=3, max_side=5),
                         elements=st.floats(-1e6, 1e6, allow_subnormal=False) | st.sampled_from([0.0, 1e-7, 2.0, 0.5])),
       dtype=st.sampled_from(["float32", "float64", "int64"]), precision=st.integers(0, 8),
       sci_mode=st.sampled_from([None, True, False]), linewidth=st.integers(20, 100), edgeitems=st.integers(0, 3),
       threshold=st.sampled_from([4, 1000]))
def test_repr_under_any_print_options_is_torchs(values, dtype, precision, sci_mode, linewidth, edgeitems, threshold):
    for m in (strided, torch):
        m.set_printoptions(precision=precision, sci_mode=sci_mode, linewidth=linewidth, edgeitems=edgeitems,
                           threshold=threshold)
    try:
        ours = strided.tensor(values).to(getattr(strided, dtype))
        theirs = torch.tensor(values).to(getattr(torch, dtype))
        # (the suffixes wrap at the same width, but "strided.float64" is two characters longer than
        # "torch.float64": a suffix near the line's end may wrap in one and not the other)
        assert _unwrapped(repr(ours)) == _unwrapped(_text(repr(theirs)))
    finally:
        for m in (strided, torch):
            m.set_printoptions(profile="default")


def _unwrapped(text: str) -> str:
    return re.sub(r",\n *(dtype=|size=)", r", \1", text)


GRAD_CASES = {
    "clamp_min": lambda m, x: m.clamp_min(x, 0.1), "clamp_max": lambda m, x: x.clamp_max(0.2),
    "mv": lambda m, x: m.mv(x, x[0] * 2), "inner": lambda m, x: m.inner(x, x * 3),
    "inner_0d": lambda m, x: m.inner(x[0, 0], x), "vdot": lambda m, x: m.vdot(x[0], x[1]),
    "var_mean": lambda m, x: m.var_mean(x, 1), "var_mean_all": lambda m, x: m.var_mean(x, correction=0),
    "std_mean": lambda m, x: m.std_mean(x, dim=0, keepdim=True),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_composite_names_values_and_gradients_as_torchs(case, dtype):
    """clamp_min/clamp_max (clamp's rule), var_mean/std_mean (var's/std's and mean's), mv, inner
    and vdot (matmul's, dot's): values and gradients of a transposed input as PyTorch's."""
    data = np.random.default_rng(3).standard_normal((4, 3))
    results = []
    for m in (strided, torch):
        x = m.tensor(data, dtype=getattr(m, dtype)).t().requires_grad_()
        out = GRAD_CASES[case](m, x)
        outs = out if isinstance(out, tuple) else (out,)
        sum(((o * (j + 2)).sum() for j, o in enumerate(outs)), m.tensor(0.0, dtype=getattr(m, dtype))).backward()
        results.append(([o.detach().numpy() for o in outs], x.grad.numpy(), type(out).__name__))
    tol = {"float32": 2e-6, "float64": 1e-12}[dtype]
    for got, want in zip(results[0][0], results[1][0]):
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=tol, atol=tol)
    assert results[0][2] == results[1][2]


def test_named_products_refuse_as_torchs():
    cases = [lambda m: m.mv(m.ones(2, 3), m.ones(2, 3)), lambda m: m.mv(m.ones(2, 3), m.ones(4)),
             lambda m: m.mv(m.ones(2, 3), m.ones(3, dtype=m.float64)), lambda m: m.inner(m.ones(2, 3), m.ones(4)),
             lambda m: m.inner(m.ones(2, 3), m.ones(3, dtype=m.float64)), lambda m: m.vdot(m.ones(2, 2), m.ones(2, 2)),
             lambda m: m.vdot(m.ones(3), m.ones(4)), lambda m: m.vdot(m.ones(3), m.ones(3, dtype=m.float64))]
    for f in cases:
        _refuses_as_torch(f, RuntimeError)
