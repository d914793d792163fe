"""complex64/complex128 against PyTorch 2.13: creation, printing, promotion, arithmetic and
reductions, the parts as views (real, imag, view_as_real, view_as_complex), conjugation,
angle/polar/complex, and PyTorch's errors where it has no complex kernel."""

from __future__ import annotations

import types
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import build_valued, specs
from oracle_helpers import builtin_class, compare, outcome, same_error
from strided.dtypes import complex64, complex128
from strided.ops._support.promotion import promote_types, result_type
from strided.ops.elementwise import complex_ops as C

# strided's namespace with the dtypes this issue adds (the lead exports them as strided.complex64, ...)
S = types.SimpleNamespace(ones=st.ones, complex64=complex64, complex128=complex128, float64=st.float64,
                          int64=st.int64, int32=st.int32)

TOL = {"float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12), "complex64": (1e-5, 1e-5),
       "complex128": (1e-12, 1e-12)}


def both(values, dtype=None):
    """The same complex data in torch and strided."""
    t = torch.tensor(values) if dtype is None else torch.tensor(values, dtype=getattr(torch, dtype))
    s = st.tensor(values) if dtype is None else st.tensor(values, dtype=dtype)
    return t, s


def assert_same(s: st.Tensor, t: torch.Tensor, rtol: float = 1e-5) -> None:
    assert s.shape == tuple(t.shape)
    assert s.dtype.name == str(t.dtype).removeprefix("torch.")
    assert s.stride() == t.stride()
    np.testing.assert_allclose(s.numpy(), t.resolve_conj().numpy(), rtol=rtol, atol=1e-6)


def complex_data(spec, seed: int, dtype: str) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = spec.storage_size
    return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)


# ---------------------------------------------------------------- creation and printing


@pytest.mark.parametrize("values,dtype", [
    ([1 + 2j, 3 - 4j], None), ([[1.5 + 2j, 3j], [1, 2]], None), (1 + 2j, None), ([0j, 0j], None),
    ([1e10 + 1j, 1e-5j], None), ([float("nan") + 1j, complex(float("nan"), float("inf"))], None),
    ([1 + 2j], "complex128"), ([1, 2], "complex64"), ([[1.5 + 2.25j, -3j]], "complex128"),
])
def test_creation_and_repr_like_torch(values, dtype):
    t, s = both(values, dtype)
    assert s.dtype.name == str(t.dtype).removeprefix("torch.")
    assert repr(s) == repr(t).replace("torch.", "strided.")
    assert str(s.tolist()) == str(t.tolist())  # (NaN != NaN: compare the texts)


def test_factories_and_from_numpy():
    assert repr(st.zeros(2, dtype=complex128)) == repr(torch.zeros(2, dtype=torch.complex128)).replace("torch.", "strided.")
    assert repr(st.zeros(0, dtype="complex64")) == "tensor([], dtype=strided.complex64)"
    assert repr(st.full((2,), 1j)) == repr(torch.full((2,), 1j))
    assert st.dtypes.to_dtype("cfloat") is complex64 and st.dtypes.to_dtype("cdouble") is complex128
    a = np.array([1 + 1j, 2 - 2j], dtype=np.complex64)
    s = st.from_numpy(a)
    a[0] = 5j  # memory shared, as torch.from_numpy
    assert s.tolist() == [5j, 2 - 2j] and s.dtype is complex64
    big = np.arange(2000) * 1j
    assert repr(st.tensor(big, dtype="complex64")) == repr(torch.tensor(big, dtype=torch.complex64)).replace(
        "torch.", "strided.")


def test_item_and_fill_errors_like_torch():
    assert st.tensor(1 + 2j).item() == torch.tensor(1 + 2j).item() == 1 + 2j
    same_error(lambda: torch.zeros(2).fill_(1j), lambda: st.zeros(2).fill_(1j))
    same_error(lambda: torch.full((2,), 1j, dtype=torch.float64), lambda: st.full((2,), 1j, dtype="float64"))
    same_error(lambda: torch.full((2,), 1e40 + 0j, dtype=torch.complex64),
               lambda: st.full((2,), 1e40 + 0j, dtype="complex64"))
    z = st.zeros(2)
    same_error(lambda: torch.zeros(2).__setitem__(0, 1j), lambda: z.__setitem__(0, 1j))
    assert z.tolist() == [0.0, 0.0]  # untouched
    c = st.zeros(2, dtype="complex64")
    c[0] = 3
    c.fill_(1 + 1j) if False else None
    assert c.tolist() == [3, 0]
    same_error(lambda: torch.tensor([1 + 2j], dtype=torch.float32), lambda: st.tensor([1 + 2j], dtype="float32"))


# ---------------------------------------------------------------- promotion


DTS = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "uint16",
       "uint32", "uint64", "complex64", "complex128"]


def test_promote_types_table_matches_torch():
    for a in DTS:
        for b in DTS:
            ta, tb = getattr(torch, a), getattr(torch, b)
            try:
                want = str(torch.promote_types(ta, tb)).removeprefix("torch.")
            except RuntimeError:
                same_error(lambda: torch.promote_types(ta, tb), lambda: promote_types(a, b))  # noqa: B023
                continue
            assert promote_types(a, b).name == want, (a, b)


@pytest.mark.parametrize("make", [
    lambda m: m.ones(2) + 1j, lambda m: m.ones(2, dtype=m.float64) * 1j, lambda m: m.ones(2, dtype=m.int64) + 1j,
    lambda m: m.ones(2, dtype=m.float64) + m.ones(2, dtype=m.complex64),
    lambda m: m.ones(2, dtype=m.complex64) * m.ones((), dtype=m.float64),
    lambda m: m.ones(2, dtype=m.complex64) + True, lambda m: m.ones(2, dtype=m.complex128) + m.ones(2),
    lambda m: m.ones((), dtype=m.complex128) + m.ones(2, dtype=m.int32),
])
def test_result_dtype_like_torch(make):
    assert make(S).dtype.name == str(make(torch).dtype).removeprefix("torch.")


def test_float16_with_complex_scalar_is_complex64():
    # Note: PyTorch gives complex32 (ComplexHalf); strided, like NumPy, has none
    assert result_type(st.ones(2, dtype="float16"), 1j) is complex64


# ---------------------------------------------------------------- arithmetic and reductions


@settings(max_examples=40, deadline=None)
@given(specs(max_dims=3), hs.integers(0, 2**16), hs.sampled_from(["complex64", "complex128"]),
       hs.sampled_from(["add", "sub", "mul", "div", "pow2", "neg", "exp", "abs", "angle", "sum", "mean", "prod0",
                        "var", "conj", "eq", "sqrt"]))
def test_ops_on_hard_layouts_like_torch(spec, seed, dtype, op):
    t, _, s = build_valued(spec, complex_data(spec, seed, dtype))
    fn = {
        "add": lambda x: x + (1 - 2j), "sub": lambda x: x - x, "mul": lambda x: x * x, "div": lambda x: x / (2 + 1j),
        "pow2": lambda x: x ** 2, "neg": lambda x: -x, "exp": lambda x: x.exp(), "abs": lambda x: x.abs(),
        "angle": lambda x: x.angle(), "sum": lambda x: x.sum(), "mean": lambda x: x.mean(),
        "prod0": lambda x: x.prod(0) if x.ndim else x.prod(), "var": lambda x: x.var(),
        "conj": lambda x: x.conj().resolve_conj() if isinstance(x, torch.Tensor) else x.conj(),
        "eq": lambda x: x == x, "sqrt": lambda x: x.sqrt(),
    }[op]
    if op in ("var", "mean") and 0 in spec.shape:
        return  # NaN either way
    tol = {**TOL, "complex64": (1e-4, 1e-4), "float32": (1e-4, 1e-4)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tr, sr = fn(t), fn(s)
    assert sr.shape == tuple(tr.shape) and sr.dtype.name == str(tr.dtype).removeprefix("torch.")
    if op not in ("sum", "mean", "var", "prod0"):
        assert sr.stride() == tr.stride()
    if sr.dtype.name in tol:
        rtol, atol = tol[sr.dtype.name]
        np.testing.assert_allclose(sr.numpy(), tr.numpy(), rtol=rtol, atol=atol * max(1, spec.storage_size))
    else:
        np.testing.assert_array_equal(sr.numpy(), tr.numpy())


def test_matmul_and_einsum_like_torch():
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(np.complex64)
    b = (rng.standard_normal((4, 2)) + 1j * rng.standard_normal((4, 2))).astype(np.complex64)
    ta, tb, sa, sb = torch.from_numpy(a), torch.from_numpy(b), st.tensor(a), st.tensor(b)
    assert_same(sa @ sb, ta @ tb)
    assert_same(st.einsum("ij,jk->ik", sa, sb), torch.einsum("ij,jk->ik", ta, tb))
    assert_same(sa[0].dot(sa[0]), ta[0].dot(ta[0]))
    assert_same(sa.t() @ sa, ta.t() @ ta)


def test_inplace_cannot_cast_complex_to_real():
    z = st.zeros(2)
    same_error(lambda: torch.zeros(2).add_(torch.ones(2, dtype=torch.complex64)),
               lambda: z.add_(st.ones(2, dtype="complex64")))
    same_error(lambda: torch.ones(2, dtype=torch.int64).mul_(1j), lambda: st.ones(2, dtype="int64").mul_(1j))
    assert z.tolist() == [0, 0]


@pytest.mark.parametrize("op", [
    lambda m, c: c < c, lambda m, c: c >= 1, lambda m, c: c.max(), lambda m, c: c.min(), lambda m, c: c.max(0),
    lambda m, c: c.argmax(), lambda m, c: c.argmin(0), lambda m, c: m.clamp(c, 0, 1), lambda m, c: c.clamp(min=0),
    lambda m, c: c // c, lambda m, c: c % c, lambda m, c: m.maximum(c, c), lambda m, c: m.minimum(c, c),
    lambda m, c: c.relu(), lambda m, c: c & c, lambda m, c: ~c, lambda m, c: c.softmax(0), lambda m, c: c.abs_(),
    lambda m, c: m.ones(2).add_(c[0]),
])
def test_unsupported_ops_raise_like_torch(op):
    t = torch.tensor([[1 + 2j, 3 - 4j], [0.5j, 2]])
    s = st.tensor([[1 + 2j, 3 - 4j], [0.5j, 2]])
    text = same_error(lambda: op(torch, t), lambda: op(st, s))
    assert len(text.splitlines()) >= 2
    assert s.tolist() == t.tolist()  # in-place forms left the target untouched


# ---------------------------------------------------------------- the parts are views


@settings(max_examples=60, deadline=None)
@given(specs(max_dims=3), hs.integers(0, 2**16), hs.sampled_from(["complex64", "complex128"]))
def test_real_imag_view_as_real_layouts_and_writes_like_torch(spec, seed, dtype):
    data = complex_data(spec, seed, dtype)
    t, _, s = build_valued(spec, data)
    tdata = torch.from_numpy(data.copy())
    t = tdata.as_strided(spec.shape, spec.strides, spec.offset)
    for name, fs, ft in (("real", lambda x: x.real, lambda x: x.real), ("imag", lambda x: x.imag, lambda x: x.imag),
                         ("view_as_real", C.view_as_real, torch.view_as_real)):
        sv, tv = fs(s), ft(t)
        assert (sv.shape, sv.stride(), sv.storage_offset()) == (tuple(tv.shape), tv.stride(), tv.storage_offset()), name
        assert sv.dtype.name == str(tv.dtype).removeprefix("torch.")
        np.testing.assert_array_equal(sv.numpy(), tv.numpy())
        assert sv.base is (s if s.base is None else s.base)
        assert st.shares_memory(sv, s) == (sv.numel() > 0)
    back = C.view_as_complex(C.view_as_real(s))
    assert back.layout == s.layout and back.dtype is s.dtype
    if s.numel() and 0 not in spec.strides:  # write through the imaginary view: the complex tensor changes
        s.imag.fill_(7.0)
        t.imag.fill_(7.0)
        np.testing.assert_array_equal(s.numpy(), t.numpy())


def test_parts_of_real_tensors_like_torch():
    f = st.tensor([1.0, -2.0])
    assert f.real is f and C.real(f) is f and torch.tensor([1.0]).real is not None
    text = same_error(lambda: torch.ones(2).imag, lambda: f.imag)
    assert "zeros_like" in text
    same_error(lambda: torch.view_as_real(torch.ones(2)), lambda: C.view_as_real(f))


@pytest.mark.parametrize("make", [
    lambda m: m.ones(3), lambda m: m.ones(3, 2).t(), lambda m: m.ones(2, 2).t(), lambda m: m.ones(2, 3)[:, :2],
    lambda m: m.ones(5)[1:].view(2, 2), lambda m: m.ones(()), lambda m: m.ones(2, 2, dtype=m.int64),
])
def test_view_as_complex_refusals_like_torch(make):
    same_error(lambda: torch.view_as_complex(make(torch)), lambda: C.view_as_complex(make(st)))


def test_view_as_complex_strides_like_torch():
    for make in (lambda m: m.ones(3, 2)[::2], lambda m: m.ones(2, 2).expand(3, 2, 2), lambda m: m.ones(4, 2)[1:]):
        tv, sv = torch.view_as_complex(make(torch)), C.view_as_complex(make(st))
        assert (sv.shape, sv.stride(), sv.storage_offset()) == (tuple(tv.shape), tv.stride(), tv.storage_offset())


def test_setting_parts_and_resize_of_a_viewed_storage():
    c = st.tensor([1 + 2j, 3 - 4j])
    c.real = st.tensor([10.0, 20.0])
    c.imag = 0
    assert c.tolist() == [10, 20]
    r = c.real
    assert r.untyped_storage() is c.imag.untyped_storage()  # one typed alias per (storage, dtype)
    assert r.untyped_storage().data_ptr() == c.untyped_storage().data_ptr()
    with pytest.raises(RuntimeError, match="not resizable") as info:
        c.resize_(100)
    assert "read as float32" in str(info.value)
    c.resize_(1)  # within the buffer: allowed, nothing moves
    assert c.shape == (1,)


# ---------------------------------------------------------------- conjugation, angle, polar, complex


def test_conj_is_a_recorded_copy_and_h_family_like_torch():
    t, s = both([[1 + 2j, 3 - 4j], [5j, 6]])
    with st.record_copies() as copies:
        y = s.conj()
    assert len(copies) == 1 and copies[0].reason.startswith("conj:") and copies[0].nbytes == 32
    assert_same(y, t.conj())
    assert not y.is_conj() and s.resolve_conj() is s
    assert_same(s.conj_physical(), torch.conj_physical(t))
    assert_same(s.H, t.H.resolve_conj())
    assert_same(s.mH, t.mH.resolve_conj())
    assert_same(C.adjoint(s), t.adjoint().resolve_conj())
    f = st.ones(2, 3)
    assert f.conj() is f and f.conj_physical() is f and f.H.stride() == torch.ones(2, 3).H.stride()
    assert f.H.base is f  # a view for real tensors
    same_error(lambda: torch.ones(3).H, lambda: st.ones(3).H)
    same_error(lambda: torch.ones(3).mH, lambda: st.ones(3).mH)
    same_error(lambda: torch.ones(3).adjoint(), lambda: C.adjoint(st.ones(3)))
    x = st.tensor([1 + 1j])
    assert x.conj_physical_() is x and x.tolist() == [1 - 1j]


@pytest.mark.parametrize("values,dtype", [([1, -2], "int64"), ([1.0, -2.0, float("nan")], "float64"),
                                          ([True, False], "bool"), ([1 + 1j, -2j], "complex64")])
def test_angle_like_torch(values, dtype):
    t, s = both(values, dtype)
    assert_same(s.angle(), t.angle())


def test_polar_and_complex_like_torch():
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([[0.0], [1.0], [2.0]])
    assert_same(C.polar(st.tensor([1.0, 2.0]), st.tensor([[0.0], [1.0], [2.0]])), torch.polar(a, b))
    assert_same(C.complex(st.tensor([1.0, 2.0]), st.tensor([[0.0], [1.0], [2.0]])), torch.complex(a, b))
    d = torch.ones(2, dtype=torch.float64)
    assert_same(C.complex(st.ones(2, dtype="float64"), st.ones(2, dtype="float64")), torch.complex(d, d))
    same_error(lambda: torch.polar(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64)),
               lambda: C.polar(st.ones(2, dtype="int64"), st.ones(2, dtype="int64")))
    same_error(lambda: torch.complex(torch.ones(2), d), lambda: C.complex(st.ones(2), st.ones(2, dtype="float64")))
    same_error(lambda: torch.complex(torch.ones(2), torch.ones(3)), lambda: C.complex(st.ones(2), st.ones(3)))
    same_error(lambda: torch.complex(torch.ones(2), 1.0), lambda: C.complex(st.ones(2), 1.0))


def test_is_complex():
    assert st.tensor([1j]).is_complex() and not st.ones(2).is_complex()
    assert not st.tensor([1j]).is_floating_point() and C.is_complex(st.tensor([1j]))


def test_compare_helper_on_a_complex_op():
    compare(lambda: torch.tensor([1 + 1j]) * 2, lambda: st.tensor([1 + 1j]) * 2, TOL)


def test_scalar_conversions_like_torch():
    for make in (lambda m: float(m.tensor(1 + 0j)), lambda m: int(m.tensor(2 + 0j)), lambda m: complex(m.tensor(2)),
                 lambda m: bool(m.tensor(1j)), lambda m: m.tensor(1 + 2j).item()):
        assert make(st) == make(torch)
    same_error(lambda: int(torch.tensor(2 + 1j)), lambda: int(st.tensor(2 + 1j)))
    same_error(lambda: float(torch.tensor(2 + 1j)), lambda: float(st.tensor(2 + 1j)))
    same_error(lambda: [1, 2][torch.tensor(1 + 0j)], lambda: [1, 2][st.tensor(1 + 0j)])


def test_complex_to_real_warns_like_torch_and_keeps_real_parts():
    t, s = both([1 + 2j, 1j])
    for convert in (lambda m, x: x.to(m.float32), lambda m, x: m.zeros(2).copy_(x), lambda m, x: x.sum(dtype=m.float32)):
        with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary part"):
            got = convert(st, s)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert got.tolist() == convert(torch, t).tolist()
    assert s.to(st.bool).tolist() == t.to(torch.bool).tolist() == [True, True]  # nonzero, either part


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float32", "float64", "complex64", "complex128"])
def test_arithmetic_with_every_scalar_kind_like_torch(dtype):
    # tensors with dims, 0-d tensors and Python numbers (bool, int, float, complex) in both orders
    t = torch.tensor([[1, 0], [2, 3]], dtype=getattr(torch, dtype))
    s = st.tensor([[1, 0], [2, 3]], dtype=dtype)
    t0, s0 = torch.tensor(2 + 1j), st.tensor(2 + 1j)
    for other_t, other_s in ((True, True), (2, 2), (1.5, 1.5), (1j, 1j), (0.5 - 2j, 0.5 - 2j), (t0, s0)):
        for op in (lambda a, b: a + b, lambda a, b: b * a, lambda a, b: a * b - a):
            tr, te = outcome(lambda: op(t, other_t))  # noqa: B023
            sr, se = outcome(lambda: op(s, other_s))  # noqa: B023
            if te is not None:  # (bool - bool)
                assert isinstance(se, builtin_class(te)) and str(se).splitlines()[0] == str(te).splitlines()[0]
                continue
            assert sr.dtype.name == str(tr.dtype).removeprefix("torch."), (dtype, other_s)
            np.testing.assert_allclose(sr.numpy(), tr.numpy(), rtol=1e-6)


def test_part_views_are_reported_as_views():
    c = st.tensor([1 + 2j, 3 - 4j])
    seen = []
    with st.dispatch.listen(seen.append):
        _ = c.real
        _ = c.imag
        C.view_as_complex(C.view_as_real(c))
    assert [(r.name, r.kind) for r in seen] == [("real", "view"), ("imag", "view"), ("view_as_real", "view"),
                                                ("view_as_complex", "view")]
    assert seen[1].plan == c.imag.layout


# ---------------------------------------------------------------- the support matrix, op by op

_UNARY = {
    "neg": lambda m, x: x.neg(), "neg_": lambda m, x: x.clone().neg_(), "abs": lambda m, x: x.abs(),
    "exp": lambda m, x: x.exp(), "exp_": lambda m, x: x.clone().exp_(), "log": lambda m, x: x.log(),
    "sqrt": lambda m, x: x.sqrt(), "sin": lambda m, x: x.sin(), "cos": lambda m, x: x.cos(), "tanh": lambda m, x: x.tanh(),
    "sigmoid": lambda m, x: x.sigmoid(), "relu": lambda m, x: x.relu(), "relu_": lambda m, x: x.clone().relu_(),
    "bitwise_not": lambda m, x: x.bitwise_not(), "invert": lambda m, x: ~x, "clamp": lambda m, x: x.clamp(0, 1),
    "clamp_": lambda m, x: x.clone().clamp_(max=1), "where": lambda m, x: m.where(m.ones(2, 2, dtype=m.bool), x, 0),
    "sum": lambda m, x: x.sum(), "sum1": lambda m, x: x.sum(1), "prod": lambda m, x: x.prod(), "mean": lambda m, x: x.mean(),
    "var": lambda m, x: x.var(0), "std": lambda m, x: x.std(), "all": lambda m, x: x.all(), "any": lambda m, x: x.any(1),
    "max": lambda m, x: x.max(), "min1": lambda m, x: x.min(1), "argmax": lambda m, x: x.argmax(),
    "argmin": lambda m, x: x.argmin(1), "softmax1": lambda m, x: x.softmax(1), "log_softmax0": lambda m, x: x.log_softmax(0),
    "matmul": lambda m, x: x @ x, "mm": lambda m, x: x.mm(x), "bmm": lambda m, x: x[None].bmm(x[None]),
    "dot": lambda m, x: x[0].dot(x[0]), "outer": lambda m, x: x[0].outer(x[1]), "einsum": lambda m, x: m.einsum("ij,jk", x, x),
    "max_other": lambda m, x: x.max(x), "iadd": lambda m, x: x.clone().add_(x), "imul": lambda m, x: x.clone().mul_(2),
    "idiv": lambda m, x: x.clone().div_(2), "to64": lambda m, x: x.to(m.float64), "reshape": lambda m, x: x.t().reshape(4),
}
_BINARY = {
    "add": lambda a, b: a + b, "rsub": lambda a, b: b - a, "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
    "lt": lambda a, b: a < b, "eq": lambda a, b: a == b, "pow": lambda a, b: a ** b, "maximum": lambda a, b: a.maximum(b),
    "fdiv": lambda a, b: a // b, "where": lambda a, b: a.where(a == a, b),
}


def _kind(fn):
    """("ok", result dtype) or ("error", builtin class, first line)."""
    r, e = outcome(fn)
    if e is not None:
        return "error", builtin_class(e).__name__, str(e).splitlines()[0]
    return "ok", str(r.dtype).removeprefix("torch.").removeprefix("strided.")


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "uint16", "uint32", "uint64"])
def test_every_op_supports_or_refuses_like_torch(dtype):
    t = torch.tensor([[1, 2], [3, 4]], dtype=getattr(torch, dtype))
    s = st.tensor([[1, 2], [3, 4]], dtype=dtype)
    for name, fn in _UNARY.items():
        assert _kind(lambda: fn(st, s)) == _kind(lambda: fn(torch, t)), (dtype, name)  # noqa: B023


@pytest.mark.parametrize("d1", ["bool", "uint8", "int64", "float16", "float32", "float64", "complex64",
                                "complex128", "uint16", "uint32", "uint64"])
def test_mixed_dtype_binary_ops_like_torch(d1):
    for d2 in ["bool", "uint8", "int64", "float32", "float64", "complex64", "complex128", "uint16", "uint32", "uint64"]:
        if d1 == "float16" and d2.startswith("complex"):
            continue  # Note: PyTorch gives complex32 there, which strided lacks (complex64 instead)
        for shape in ((2, 2), ()):
            ta, sa = torch.ones(2, 2, dtype=getattr(torch, d1)), st.ones(2, 2, dtype=d1)
            tb, sb = torch.ones(shape, dtype=getattr(torch, d2)), st.ones(shape, dtype=d2)
            for name, fn in _BINARY.items():
                assert _kind(lambda: fn(sa, sb)) == _kind(lambda: fn(ta, tb)), (d1, d2, shape, name)  # noqa: B023


def test_pickle_and_deepcopy_keep_the_parts_sharing_memory():
    import copy
    import pickle

    # as strided pickles every view (and as torch deep-copies): one buffer under both after the trip
    # (Note: torch's pickle does not keep it, for slices neither)
    c = st.tensor([1 + 2j, 3j])
    for c2, r2 in (pickle.loads(pickle.dumps((c, c.real))), copy.deepcopy((c, c.real))):
        r2[0] = 100.0
        assert c2.tolist() == [100 + 2j, 3j] and r2.base is c2
    assert c.tolist() == [1 + 2j, 3j]
    t = torch.tensor([1 + 2j, 3j])
    t2, tr2 = copy.deepcopy((t, t.real))
    tr2[0] = 100.0
    assert t2.tolist() == [100 + 2j, 3j]
