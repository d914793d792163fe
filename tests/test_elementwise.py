"""Elementwise ops, differential against PyTorch 2.13.

For every op, on hypothesis operands with mutually broadcastable shapes laid out permuted,
stepped, expanded (stride 0), with odd-stride size-1 dims and zero-size dims: the result dtype,
shape, strides (PyTorch's TensorIterator keeps the inputs' dim order) and values must match, or
both libraries must raise the same class. Value tolerances per result dtype are in
``elementwise_oracle.TOLERANCES`` (exact for integers and bool; float16 2e-3; float32 ~1e-6;
transcendental float32 1e-5; float64 1e-12).
"""

from __future__ import annotations

import itertools
import operator

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as hs
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import strided as st
from elementwise_oracle import (
    DTYPE_NAMES,
    TOLERANCES,
    TRANSCENDENTAL_TOLERANCES,
    aliases_without_stride0,
    assert_like_torch,
    assert_same_outcome,
    assert_values,
    build_pair,
    run_both,
)
from layouts import build_numpy, build_strided, specs
from oracle_helpers import case

torch.set_num_threads(1)

BINARY = {
    "add": (operator.add, torch.add),
    "sub": (operator.sub, torch.sub),
    "mul": (operator.mul, torch.mul),
    "truediv": (operator.truediv, torch.true_divide),
    "floordiv": (operator.floordiv, torch.floor_divide),
    "mod": (operator.mod, torch.remainder),
    "pow": (operator.pow, torch.pow),
    "and": (operator.and_, torch.bitwise_and),
    "or": (operator.or_, torch.bitwise_or),
    "xor": (operator.xor, torch.bitwise_xor),
    "eq": (operator.eq, torch.eq),
    "ne": (operator.ne, torch.ne),
    "lt": (operator.lt, torch.lt),
    "le": (operator.le, torch.le),
    "gt": (operator.gt, torch.gt),
    "ge": (operator.ge, torch.ge),
}
MODULE_BINARY = {
    "add": st.add, "sub": st.sub, "mul": st.mul, "truediv": st.div, "floordiv": st.floor_divide,
    "mod": st.remainder, "pow": st.pow, "and": st.bitwise_and, "or": st.bitwise_or,
    "xor": st.bitwise_xor, "eq": st.eq, "ne": st.ne, "lt": st.lt, "le": st.le, "gt": st.gt,
    "ge": st.ge, "maximum": st.maximum, "minimum": st.minimum,
}
TORCH_MODULE = {"maximum": torch.maximum, "minimum": torch.minimum}

UNARY = {
    "neg": (st.neg, torch.neg), "abs": (st.abs, torch.abs), "exp": (st.exp, torch.exp),
    "log": (st.log, torch.log), "sqrt": (st.sqrt, torch.sqrt), "sin": (st.sin, torch.sin),
    "cos": (st.cos, torch.cos), "tanh": (st.tanh, torch.tanh), "sigmoid": (st.sigmoid, torch.sigmoid),
    "relu": (st.relu, torch.relu), "bitwise_not": (st.bitwise_not, torch.bitwise_not),
}


@hs.composite
def two_operands(draw, allow_expand: bool = True):
    shapes, _ = draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, min_side=0, max_side=4))
    return [draw(specs(shape=tuple(s), expand=allow_expand)) for s in shapes]


dtypes = hs.sampled_from(DTYPE_NAMES)
seeds = hs.integers(0, 2**16)


@settings(max_examples=150, deadline=None)
@given(two_operands(), hs.sampled_from(sorted(MODULE_BINARY)), dtypes, dtypes, seeds)
def test_binary_tensor_tensor(specs, op, da, db, seed):
    sa, ta = build_pair(specs[0], da, seed)
    sb, tb = build_pair(specs[1], db, seed + 1)
    if op in BINARY:
        py, tfn = BINARY[op]
        rs, rt = run_both(lambda: py(sa, sb), lambda: py(ta, tb))
        assert_same_outcome(rs, rt)
    else:
        tfn = TORCH_MODULE[op]
    rs, rt = run_both(lambda: MODULE_BINARY[op](sa, sb), lambda: tfn(ta, tb))
    assert_same_outcome(rs, rt)


scalars = hs.one_of(hs.booleans(), hs.integers(-5, 5), hs.sampled_from([0.0, 2.5, -1.5, 0.1, 1e5]))


@settings(max_examples=150, deadline=None)
@given(two_operands(), hs.sampled_from(sorted(BINARY)), dtypes, scalars, hs.booleans(), seeds)
def test_binary_tensor_scalar(specs, op, dtype, scalar, reflected, seed):
    s, t = build_pair(specs[0], dtype, seed)
    py, _ = BINARY[op]
    if reflected:
        rs, rt = run_both(lambda: py(scalar, s), lambda: py(scalar, t))
    else:
        rs, rt = run_both(lambda: py(s, scalar), lambda: py(t, scalar))
    assert_same_outcome(rs, rt)


@settings(max_examples=100, deadline=None)
@given(hs.sampled_from(sorted(BINARY)), dtypes, dtypes, seeds, hs.booleans())
def test_zero_dim_tensors(op, da, db, seed, first_is_0d):
    """A 0-d tensor has lower promotion priority than a tensor with dims."""
    sa, ta = build_pair((3, (3,), (1,), 0), da, seed)
    sb, tb = build_pair((1, (), (), 0), db, seed + 1)
    py, _ = BINARY[op]
    if first_is_0d:
        rs, rt = run_both(lambda: py(sb, sa), lambda: py(tb, ta))
    else:
        rs, rt = run_both(lambda: py(sa, sb), lambda: py(ta, tb))
    assert_same_outcome(rs, rt)


@hs.composite
def one_operand(draw):
    ndim = draw(hs.integers(0, 4))
    shape = tuple(draw(hs.sampled_from([0, 1, 2, 3, 4])) for _ in range(ndim))
    return draw(specs(shape=shape))


@settings(max_examples=150, deadline=None)
@given(one_operand(), hs.sampled_from(sorted(UNARY)), dtypes, seeds)
def test_unary(spec, op, dtype, seed):
    s, t = build_pair(spec, dtype, seed)
    fs, ft = UNARY[op]
    rs, rt = run_both(lambda: fs(s), lambda: ft(t))
    assert_same_outcome(rs, rt, TRANSCENDENTAL_TOLERANCES)
    rs2, _ = run_both(lambda: getattr(s, op)(), lambda: None)
    if not isinstance(rt, Exception):
        assert_like_torch(rs2, rt, TRANSCENDENTAL_TOLERANCES)


@settings(max_examples=100, deadline=None)
@given(one_operand(), dtypes, hs.sampled_from([None, -1, 0, 1.5, True]), hs.sampled_from([None, 2, 0.5, -2]), seeds)
def test_clamp_scalars(spec, dtype, lo, hi, seed):
    s, t = build_pair(spec, dtype, seed)
    rs, rt = run_both(lambda: s.clamp(lo, hi), lambda: t.clamp(lo, hi))
    assert_same_outcome(rs, rt)


@hs.composite
def three_operands(draw):
    shapes, _ = draw(mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, min_side=0, max_side=3))
    return [draw(specs(shape=tuple(s))) for s in shapes]


@settings(max_examples=100, deadline=None)
@given(three_operands(), dtypes, dtypes, seeds)
def test_clamp_tensors(specs, dtype, bound_dtype, seed):
    s, t = build_pair(specs[0], dtype, seed)
    slo, tlo = build_pair(specs[1], bound_dtype, seed + 1)
    shi, thi = build_pair(specs[2], bound_dtype, seed + 2)
    rs, rt = run_both(lambda: st.clamp(s, slo, shi), lambda: torch.clamp(t, tlo, thi))
    assert_same_outcome(rs, rt)


@settings(max_examples=100, deadline=None)
@given(three_operands(), dtypes, dtypes, seeds, hs.sampled_from(["tt", "ts", "st", "ss"]))
def test_where(specs, da, db, seed, kinds):
    sc, tc = build_pair(specs[0], "bool", seed)
    sa, ta = build_pair(specs[1], da, seed + 1)
    sb, tb = build_pair(specs[2], db, seed + 2)
    if kinds[0] == "s":
        sa = ta = 2.5 if da.startswith("float") else 3
    if kinds[1] == "s":
        sb = tb = -1
    rs, rt = run_both(lambda: st.where(sc, sa, sb), lambda: torch.where(tc, ta, tb))
    assert_same_outcome(rs, rt)


# ---------------------------------------------------------------- in place


INPLACE = ["add_", "sub_", "mul_", "div_", "floor_divide_", "remainder_", "pow_",
           "bitwise_and_", "bitwise_or_", "bitwise_xor_", "clamp_"]
INPLACE_UNARY = ["neg_", "abs_", "exp_", "log_", "sqrt_", "sin_", "cos_", "tanh_", "sigmoid_", "relu_"]


@settings(max_examples=150, deadline=None)
@given(two_operands(), hs.sampled_from(INPLACE), dtypes, dtypes, seeds, hs.booleans())
def test_inplace_writes_through_views(specs, op, da, db, seed, expand_target):
    """The target is a view; afterwards the *whole storages* must agree with PyTorch's, and a
    failed op (bad cast, broadcast that would grow the target, expanded target) changes nothing."""
    assume(not aliases_without_stride0(specs[0]))
    sa, ta = build_pair(specs[0], da, seed)
    sb, tb = build_pair(specs[1], db, seed + 1)
    if op == "clamp_":
        check_inplace(sa, ta, lambda: sa.clamp_(sb, None), lambda: ta.clamp_(tb, None))
    else:
        check_inplace(sa, ta, lambda: getattr(sa, op)(sb), lambda: getattr(ta, op)(tb))


@settings(max_examples=100, deadline=None)
@given(one_operand(), hs.sampled_from(INPLACE_UNARY), dtypes, seeds)
def test_inplace_unary(spec, op, dtype, seed):
    assume(not aliases_without_stride0(spec))
    s, t = build_pair(spec, dtype, seed)
    check_inplace(s, t, lambda: getattr(s, op)(), lambda: getattr(t, op)(), TRANSCENDENTAL_TOLERANCES)


def check_inplace(s, t, fs, ft, tolerances=TOLERANCES):
    """Run the in-place op ``fs`` on strided view ``s`` and ``ft`` on torch view ``t``: the same
    outcome; on error ``s``'s storage is unchanged, else it returns ``s`` and both whole
    storages agree."""
    before = s._storage.array.copy()
    rs, rt = run_both(fs, ft)
    assert_same_outcome(rs, rt, tolerances)
    if isinstance(rt, Exception):
        np.testing.assert_array_equal(s._storage.array, before)
    else:
        assert rs is s
        assert_same_storage(s, t, tolerances)


def assert_same_storage(s, t, tolerances=TOLERANCES):
    """The whole storages agree: the in-place op wrote exactly the viewed elements."""
    n = s._storage.array.shape[0]
    whole_s = st.from_numpy(s._storage.array)
    whole_t = torch.as_strided(t, (n,), (1,), 0)
    assert_values(whole_s, whole_t, tolerances)


def test_inplace_storage_matches_torch_exactly():
    base_s = st.arange(12.0).reshape(3, 4)
    base_t = torch.arange(12.0).reshape(3, 4)
    base_s[:, 1::2].T.mul_(st.tensor([10.0, 20.0, 30.0]))
    base_t[:, 1::2].T.mul_(torch.tensor([10.0, 20.0, 30.0]))
    assert base_s.tolist() == base_t.tolist()
    v = base_s[1]
    v += 1
    assert base_s[1].tolist() == [5.0, 101.0, 7.0, 141.0]


def _inplace_dunder_chain(x, ones):
    """Every augmented assignment once, in one library's terms; returns the final name binding."""
    x += 1
    x *= 2
    x -= ones
    x //= 2
    x %= 4
    x **= 2
    x &= 7
    x |= 8
    x ^= 1
    return x


def test_inplace_dunders_keep_identity():
    x = st.arange(6).reshape(2, 3)
    t = torch.arange(6).reshape(2, 3)
    assert _inplace_dunder_chain(x, st.tensor([1, 1, 1])) is x
    assert _inplace_dunder_chain(t, torch.tensor([1, 1, 1])) is t
    assert x.tolist() == t.tolist()


# ---------------------------------------------------------------- output layout, pinned cases


LAYOUT_CASES = [
    # (shape, strides) of a and b, where the output stride order is the point
    (((3, 4), (1, 3)), ((3, 4), (1, 3))),  # both transposed: fast set-up keeps their strides
    (((3, 4), (1, 3)), ((3, 4), (4, 1))),  # disagreeing orders: the first operand decides
    (((3, 4), (4, 1)), ((3, 4), (1, 3))),
    (((2, 3, 4), (1, 8, 2)), ((4,), (1,))),  # permuted + bias
    (((4,), (1,)), ((2, 3, 4), (1, 8, 2))),  # bias first: ambiguous dims defer to the next operand
    (((2, 1, 3), (1, 99, 2)), ((2, 1, 3), (1, 99, 2))),  # odd stride on a size-1 dim, kept
    (((3, 1), (1, 1)), ((1, 4), (4, 1))),  # outer product of two stretched operands
    (((2, 3, 4, 5), (60, 1, 15, 3)), ((2, 3, 4, 5), (60, 1, 15, 3))),  # channels-last
    (((2, 0, 3), (1, 2, 0)), ((3,), (1,))),  # zero-size
    (((3, 4), (0, 1)), ((3, 4), (1, 0))),  # both expanded
]


@pytest.mark.parametrize("a,b", LAYOUT_CASES)
def test_output_strides_pinned(a, b):
    sa = st.zeros(1000).as_strided(a[0], a[1], 0)
    sb = st.zeros(1000).as_strided(b[0], b[1], 0)
    ta = torch.zeros(1000).as_strided(a[0], a[1])
    tb = torch.zeros(1000).as_strided(b[0], b[1])
    assert (sa + sb).stride() == (ta + tb).stride()
    assert (sa * 2).stride() == (ta * 2).stride()
    assert st.exp(sa).stride() == torch.exp(ta).stride()


def test_inputs_read_in_place_no_copies():
    """Permuted, stepped and expanded inputs are handed to NumPy as views: no copy is recorded."""
    a = st.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)[::2]
    b = st.arange(3.0).reshape(1, 1, 3).expand(2, 2, 3)
    with st.record_copies() as copies:
        a + b
        st.exp(a)
        st.where(a > 3, a, b)
        a.clamp(1, 5)
    assert copies == []


# ---------------------------------------------------------------- errors


def test_shape_mismatch_message():
    with pytest.raises(RuntimeError) as info:
        st.ones(3) + st.ones(5)
    lines = str(info.value).splitlines()
    assert lines[0] == "The size of tensor a (3) must match the size of tensor b (5) at non-singleton dimension 0"
    assert isinstance(info.value, st.StridedRuntimeError)
    with pytest.raises(RuntimeError) as info:
        st.ones(2, 3) + st.ones(4, 1, 5)
    text = str(info.value)
    assert text.splitlines()[0] == (
        "The size of tensor a (3) must match the size of tensor b (5) at non-singleton dimension 2"
    )
    assert "(2, 3)" in text and "(4, 1, 5)" in text and "^ dim 2: 3 vs 5" in text
    # the marker sits under the offending column
    rows = [ln for ln in text.splitlines() if ln.strip().startswith("tensor a") or ln.strip().startswith("tensor b")]
    marker = next(ln for ln in text.splitlines() if "^" in ln)
    assert rows[0].rindex("3") == marker.index("^")
    assert rows[1].rindex("5") == marker.index("^")


@pytest.mark.parametrize(
    "fs,first",
    [
        (lambda: st.ones(3) & st.ones(3), "\"bitwise_and_cpu\" not implemented for 'Float'"),
        (lambda: st.ones(3) | 1, "\"bitwise_or_cpu\" not implemented for 'Float'"),
        (lambda: ~st.ones(3), "~ (operator.invert) is only implemented on integer and Boolean-type tensors"),
        (lambda: st.arange(3).add_(1.5), "result type Float can't be cast to the desired output type Long"),
        (lambda: st.arange(3).div_(2), "result type Float can't be cast to the desired output type Long"),
        (lambda: st.tensor([True]).add_(1), "result type Long can't be cast to the desired output type Bool"),
        (lambda: st.arange(3).add_(st.ones(2, 3, dtype=st.int64)), "output with shape [3] doesn't match the broadcast shape [2, 3]"),
        (lambda: st.arange(3) // 0, "ZeroDivisionError"),
        (lambda: st.arange(3) % st.tensor([1, 0, 1]), "ZeroDivisionError"),
        (lambda: st.arange(3) ** -1, "Integers to negative integer powers are not allowed."),
        (lambda: st.tensor([True]) - st.tensor([False]), "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead."),
        (lambda: -st.tensor([True]), "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."),
        (lambda: st.where(st.arange(3), 1, 2), "where expected condition to be a boolean tensor, but got a tensor with dtype Long"),
        (lambda: st.ones(3).clamp(), "torch.clamp: At least one of 'min' or 'max' must not be None"),
        (lambda: st.ones(1).expand(3).add_(1), "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation."),
    ],
)
def test_error_first_lines(fs, first):
    with pytest.raises(st.StridedError) as info:
        fs()
    assert str(info.value).splitlines()[0] == first


@pytest.mark.parametrize(
    "fs,details",
    [
        (lambda: st.tensor([True]) - st.tensor([False]),
         ["bool tensor of shape (1,)", "a ^ b", "a != b", "strided has no logical_xor()", ".to(strided.int64)"]),
        (lambda: st.tensor([True, False]) - 1, ["shape (2,)", "~mask", "strided has no logical_not()"]),
        (lambda: -st.tensor([True]), ["bool tensor of shape (1,)", "~mask", "-mask.to(strided.int64)"]),
        (lambda: st.relu(st.tensor([True])), ["bool tensor of shape (1,)", "x.to(strided.float32).relu()"]),
        (lambda: st.ones(2, 3).clamp(), ["float32 tensor of shape (2, 3)", "x.clamp(min=0)"]),
        (lambda: st.ones(2, 3).clamp_(), ["x.clamp_(min=0)"]),
        (lambda: st.maximum(st.ones(3), 2), ["x.clamp(min=2)", "strided.tensor(2)"]),
        (lambda: st.minimum(st.ones(3), 2), ["x.clamp(max=2)"]),
        (lambda: (lambda x: x[1:].add_(x[:-1]))(st.arange(6.0)), ["x.add_(y.clone())"]),
        (lambda: (lambda x: x[1:].mul_(x[:-1]))(st.arange(6.0)), ["x.mul_(y.clone())"]),
    ],
)
def test_error_detail_lines(fs, details):
    """The first line stays PyTorch's (advice included); the detail lines name what strided has."""
    with pytest.raises(st.StridedError) as info:
        fs()
    rest = "\n".join(str(info.value).splitlines()[1:])
    for text in details:
        assert text in rest, f"{text!r} not in:\n{info.value}"
    for method in ("relu", "clamp", "clone", "to"):
        assert hasattr(st.Tensor, method)


def test_error_classes_match_torch():
    with pytest.raises(NotImplementedError):
        st.ones(3) & st.ones(3)
    with pytest.raises(RuntimeError):
        st.ones(3) & st.ones(3)
    with pytest.raises(TypeError):
        ~st.ones(3)
    with pytest.raises(TypeError):
        st.ones(3) + "a"
    with pytest.raises(TypeError):
        st.maximum(st.ones(3), 2)


def test_inplace_error_details_name_dtypes_and_fix():
    text = str(pytest.raises(RuntimeError, lambda: st.arange(3).add_(1.5)).value)
    assert "float32" in text and "int64" in text and "fix:" in text


def test_failed_inplace_leaves_target_unchanged():
    x = st.arange(6).reshape(2, 3)
    for bad in (lambda: x.add_(0.5), lambda: x.add_(st.ones(4, 2, 3, dtype=st.int64)),
                lambda: x.floor_divide_(st.tensor([1, 0, 1])), lambda: x.pow_(-1)):
        with pytest.raises(RuntimeError):
            bad()
        assert x.tolist() == [[0, 1, 2], [3, 4, 5]]


# ---------------------------------------------------------------- protocol details


def test_hashable_by_identity_and_eq_is_elementwise():
    a = st.ones(2)
    b = st.ones(2)
    assert len({a, b, a}) == 2
    assert (a == b).dtype is st.bool_
    assert (a == b).tolist() == [True, True]
    assert (a == None) is False  # noqa: E711 - Python's fallback, as torch gives False


def test_numpy_array_on_the_left_defers_to_tensor():
    r = np.arange(3.0) + st.tensor([1.0, 2.0, 3.0])
    assert isinstance(r, st.Tensor)
    assert r.dtype is st.float64 and r.tolist() == [1.0, 3.0, 5.0]
    r = np.float32(2) * st.tensor([1, 2])
    assert isinstance(r, st.Tensor)


def test_method_forms():
    x = st.tensor([[-1.5, 2.0], [0.5, -3.0]])
    t = torch.tensor([[-1.5, 2.0], [0.5, -3.0]])
    for name in ("neg", "abs", "exp", "sigmoid", "relu", "tanh"):
        assert_like_torch(getattr(x, name)(), getattr(t, name)(), TRANSCENDENTAL_TOLERANCES)
    assert_like_torch(x.where(x > 0, 0.0), t.where(t > 0, 0.0))
    assert_like_torch(x.maximum(x.T), t.maximum(t.T))
    assert_like_torch(x.clip(-1, 1), t.clip(-1, 1))
    assert_like_torch(abs(x), abs(t))
    assert_like_torch(x.sub(1).mul(2).div(3).pow(2), t.sub(1).mul(2).div(3).pow(2))


def test_nan_and_inf_silent():
    import warnings

    x = st.tensor([0.0, -1.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_like_torch(x / 0, torch.tensor([0.0, -1.0, 1.0]) / 0)
        assert_like_torch(st.log(x), torch.log(torch.tensor([0.0, -1.0, 1.0])))
        assert_like_torch(st.sqrt(x), torch.sqrt(torch.tensor([0.0, -1.0, 1.0])))
        assert_like_torch(x.to(st.float16) * 1e5, torch.tensor([0.0, -1.0, 1.0], dtype=torch.float16) * 1e5)


def test_integer_powers_with_negative_tensor_exponents():
    base = st.tensor([-2, -1, 0, 1, 2, 3])
    exps = st.tensor([-1, -3, -2, -5, -1, 2])
    t = torch.pow(torch.tensor([-2, -1, 0, 1, 2, 3]), torch.tensor([-1, -3, -2, -5, -1, 2]))
    assert_like_torch(base ** exps, t)
    assert_like_torch(2 ** exps, 2 ** torch.tensor([-1, -3, -2, -5, -1, 2]))


def test_integer_wraparound_like_torch():
    x8 = st.tensor([100, -100], dtype=st.int8)
    t8 = torch.tensor([100, -100], dtype=torch.int8)
    assert_like_torch(x8 + 1000, t8 + 1000)
    assert_like_torch(x8 * 3, t8 * 3)
    u = st.tensor([1, 2], dtype=st.uint8)
    tu = torch.tensor([1, 2], dtype=torch.uint8)
    assert_like_torch(u - 3, tu - 3)
    assert_like_torch(-u, -tu)


@pytest.mark.parametrize(
    "make,refused",
    [
        (lambda x: x[1:].add_(x[:-1]), True),
        (lambda x: x.view(3, 3).add_(x.view(3, 3).T), True),
        (lambda x: x[:4].add_(x[5:]), False),
        (lambda x: x.add_(x), False),
        (lambda x: x[:8:2].add_(x[1::2]), False),  # not dense: "too hard", allowed as in PyTorch
        (lambda x: x[1:].clamp_(x[:-1], None), True),
    ],
)
def test_inplace_partial_overlap_like_torch(make, refused):
    s, t = st.arange(9.0), torch.arange(9.0)
    rs, rt = run_both(lambda: make(s), lambda: make(t))
    assert isinstance(rt, Exception) == refused
    assert_same_outcome(rs, rt)
    assert s.tolist() == t.tolist()


@pytest.mark.parametrize("dtype,step", [("float64", 8), ("int64", 8), ("float32", 4), ("int32", 4)])
def test_inplace_neg_on_strided_view_regression(dtype, step):
    """NumPy 2.4's in-place np.negative misreads views whose byte stride is itemsize**2."""
    s = st.arange(40).to(dtype)
    t = torch.arange(40).to(getattr(torch, dtype))
    s[::step].neg_()
    t[::step].neg_()
    assert s.tolist() == t.tolist()


def test_inplace_sigmoid_on_strided_view_regression():
    s = st.arange(40).to("float64")
    t = torch.arange(40).to(torch.float64)
    s[::8].sigmoid_()
    t[::8].sigmoid_()
    np.testing.assert_allclose(s.numpy(), t.numpy(), rtol=1e-12)


@settings(max_examples=100, deadline=None)
@given(one_operand(), hs.sampled_from(INPLACE), dtypes, scalars, seeds)
def test_inplace_with_python_scalars(spec, op, dtype, scalar, seed):
    assume(not aliases_without_stride0(spec))
    s, t = build_pair(spec, dtype, seed)
    if op == "clamp_":
        check_inplace(s, t, lambda: s.clamp_(None, scalar), lambda: t.clamp_(None, scalar))
    else:
        check_inplace(s, t, lambda: getattr(s, op)(scalar), lambda: getattr(t, op)(scalar))


# ---------------------------------------------------------------- negative strides (PyTorch has none)


@settings(max_examples=100, deadline=None)
@given(specs(negative=True), hs.sampled_from(["add", "mul", "exp", "neg", "lt", "where"]))
def test_negative_strides_against_numpy(spec, op):
    """Negative-step views are read in place; values match NumPy on the same view, and the
    output is dense with non-negative strides (ordered by absolute stride)."""
    s = build_strided(spec)  # int64 over arange, negative strides included
    a = build_numpy(spec)
    reverse = tuple(slice(None, None, -1) for _ in a.shape)
    rev_s, rev_a = s[reverse], a[reverse]
    fs, fa = {
        "add": (lambda: s + rev_s, lambda: a + rev_a),
        "mul": (lambda: s * 0.5, lambda: a * 0.5),
        # (float32, as strided computes it: in float64 a large storage's exp would not overflow)
        "exp": (lambda: st.exp(s * 0.01), lambda: np.exp((a * 0.01).astype(np.float32))),
        "neg": (lambda: -s, lambda: -a),
        "lt": (lambda: s < rev_s, lambda: a < rev_a),
        "where": (lambda: st.where(s < 3, s, rev_s), lambda: np.where(a < 3, a, rev_a)),
    }[op]
    got, want = fs(), fa()
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)  # float32 results; NumPy's SIMD and strided loops may differ by a few ulp
    assert all(x >= 0 for x in got.stride())


def test_regression_float16_floor_divide_by_python_scalar_computes_in_float32():
    # PyTorch's CPU floor_divide of float16 by a scalar computes in float32 ("opmath");
    # in float16, -20 // 0.1 would be -201 instead of PyTorch's -200.
    values = np.arange(-20, 20, 0.25, dtype=np.float16)
    expected = (torch.tensor(values) // 0.1).numpy()
    np.testing.assert_array_equal((st.tensor(values) // 0.1).numpy(), expected)
    inplace = st.tensor(values)
    inplace //= 0.1
    np.testing.assert_array_equal(inplace.numpy(), expected)


@pytest.mark.parametrize("op", [operator.mul, operator.truediv, operator.floordiv])
def test_float16_opmath_with_a_scalar_like_torch(op):
    """A float16 tensor and a scalar: PyTorch computes mul/div in float32 reading only the SECOND
    operand exactly (``1e5 * t`` is ``mul(t, 1e5)``: 0 * 1e5 is 0, not 0 * inf = nan); a first
    operand of another dtype (a number in ``1e5 // t``, a 0-d float32 tensor) is rounded to
    float16 first — also when the float16 operand has one element and so counts as the scalar."""
    for value, shape, scalar in itertools.product(
            [0.0, -0.0, 6e-8, 1e-5, -1e-6, 3.0],
            [(), (1,), (3,), (2, 1)],
            [1e5, 1e-7, -3]):
        with case(value=value, shape=shape, scalar=scalar):
            _float16_opmath_with_a_scalar_like_torch(value, shape, op, scalar)


def _float16_opmath_with_a_scalar_like_torch(value, shape, op, scalar):
    t = torch.full(shape, value, dtype=torch.float16)
    s = st.full(shape, value, dtype=st.float16)
    pairs = [(op(t, scalar), op(s, scalar)), (op(scalar, t), op(scalar, s)),
             (op(torch.tensor(scalar, dtype=torch.float32), t), op(st.tensor(scalar, dtype=st.float32), s)),
             (op(t, torch.tensor(scalar, dtype=torch.float32)), op(s, st.tensor(scalar, dtype=st.float32)))]
    for expected, got in pairs:
        assert got.dtype.name == str(expected.dtype).removeprefix("torch.") and got.shape == tuple(expected.shape)
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
