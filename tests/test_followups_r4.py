"""Round-4 follow-ups, each against torch 2.13: ``requires_grad=`` flags that are not bools,
``arange`` into an integer dtype with float numbers, the index_* ops' index checks, ``out=`` of
cat/stack and of the (values, indices) reductions, ``div``'s rounding modes, ``clamp`` of -0.0 and
NaN. Each case failed before its fix (see the branch's commits)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from oracle_helpers import case


def outcome(fn, mod):
    """``fn(mod)``'s value (list, dtype name) or its error (class family, first line)."""
    try:
        r = fn(mod)
    except Exception as e:  # (the class family: strided's errors subclass the builtin ones)
        for cls in (ValueError, TypeError, IndexError, RuntimeError, ZeroDivisionError):
            if isinstance(e, cls):
                return cls.__name__, str(e).splitlines()[0]
        raise
    return r.tolist(), str(r.dtype).split(".")[-1]


def agree(fn) -> None:
    assert outcome(fn, st) == outcome(fn, torch)


# ---------------------------------------------------------------- a. requires_grad must be a bool

@pytest.mark.parametrize("call", [
    lambda m: m.zeros(2, requires_grad=1),
    lambda m: m.ones(2, requires_grad=0),
    lambda m: m.empty(2, requires_grad=1.0),
    lambda m: m.full((2,), 1.0, requires_grad=np.bool_(True)),
    lambda m: m.tensor([1.0], requires_grad=1),
    lambda m: m.zeros_like(m.zeros(2), requires_grad=1),
    lambda m: m.full_like(m.zeros(2), 3, requires_grad=1),
    lambda m: m.zeros(2).new_zeros(2, requires_grad=1),
    lambda m: m.zeros(2).new_tensor([1.0], requires_grad=1),
    lambda m: m.zeros(2).requires_grad_(1),
    lambda m: m.zeros(2).requires_grad_(None),
    lambda m: m.zeros(2, requires_grad=None),
    lambda m: m.nn.Parameter(m.zeros(2), requires_grad=1),
])
def test_requires_grad_flag(call) -> None:
    agree(call)


def test_requires_grad_setter_and_overloaded_factories() -> None:
    for m in (st, torch):
        t = m.zeros(2)
        with pytest.raises(RuntimeError, match="requires_grad must be a bool"):
            t.requires_grad = 1
        assert not t.requires_grad
        for f in (lambda m: m.randn(2, requires_grad=1), lambda m: m.arange(3.0, requires_grad=1),
                  lambda m: m.eye(2, requires_grad=1), lambda m: m.linspace(0, 1, 3, requires_grad=1)):
            with pytest.raises(TypeError, match="requires_grad"):  # (PyTorch: its overload list)
                f(m)
    st.manual_seed(3)
    with pytest.raises(TypeError):
        st.rand(2, requires_grad=1)
    after_refusal = st.rand(2)
    st.manual_seed(3)
    assert after_refusal.tolist() == st.rand(2).tolist()  # (the refusal drew nothing)


# ---------------------------------------------------------------- b. arange: float numbers, integer dtype

@pytest.mark.parametrize("args,dtype", [
    ((0, 2.5, 0.5), "int64"), ((0.5, 3), "int32"), ((0.5, 3.7, 0.6), "int64"), ((-0.5, 3), "int64"),
    ((2.5,), "int64"), ((0, 1, 0.3), "uint8"), ((0, -2.5, -0.5), "int16"), ((0, 2, 0.5), "int8"),
    ((1e10, 1e10 + 3), "int32"), ((-0.5, -0.2), "int64"), ((-0.5, -0.2), "int32"),
    ((0.9, 3.9, 1.9), "int64"), ((0.9, 3.9, 1.9), "int32"), ((-3.9, 0.9, 1.9), "int64"),
    ((5, 0.5, -1.5), "int64"), ((5, 0.5, -1.5), "uint8"), ((0, 5, 1.5), "int32"),
    ((0, 1e30, 1e29), "int64"), ((0, 1e30, 1e29), "int32"), ((0.5, 1e19, 1e18), "int64"),
    ((0, 2, float("nan")), "int64"), ((0, float("inf")), "int64"), ((2, 0.5), "int64"),
])
def test_arange_integer_dtype_float_numbers(args, dtype) -> None:
    agree(lambda m: m.arange(*args, dtype=getattr(m, dtype)))


# ---------------------------------------------------------------- c. index_* with indices out of range

@pytest.mark.parametrize("call", [
    lambda m: m.zeros(3).index_add(0, m.tensor([0, -1]), m.ones(2)),
    lambda m: m.zeros(3).index_select(0, m.tensor([0, 3])),
    lambda m: m.zeros(2, 3).index_select(1, m.tensor([0, 5])),  # (PyTorch's dim-1 path: RuntimeError)
    lambda m: m.zeros(3, 2).t().index_select(-1, m.tensor([-1], dtype=m.int32)),
    lambda m: m.zeros(2, 3, 4).index_select(2, m.tensor([4])),
    lambda m: m.zeros(1, 0).index_select(0, m.tensor([1])),  # (an empty input: RuntimeError on any dim)
    lambda m: m.zeros(2, 0, 3).index_select(2, m.tensor([3])),
    lambda m: m.zeros(2, 0, 3).index_select(1, m.tensor([0])),  # (an empty dim: "should be positive")
    lambda m: m.zeros(2, 3).index_add(1, m.tensor([0, 5]), m.ones(2, 2)),
    lambda m: m.zeros(3).index_copy(0, m.tensor([0, -1]), m.ones(2)),
    lambda m: m.zeros(3).index_fill(0, m.tensor([0, -1]), 5.0),  # (negative indices wrap here)
    lambda m: m.zeros(3).index_fill(0, m.tensor([1, -4]), 5.0),
])
def test_index_ops_out_of_range(call) -> None:
    agree(call)


def test_index_ops_refuse_before_writing() -> None:
    """PyTorch writes the in-range slices before it meets the bad index; strided writes nothing."""
    for op, args in (("index_add_", (st.ones(2),)), ("index_copy_", (st.ones(2),)), ("index_fill_", (5.0,))):
        t = st.zeros(3)
        with pytest.raises(IndexError):
            getattr(t, op)(0, st.tensor([1, 3]), *args)
        assert t.tolist() == [0.0, 0.0, 0.0]


# ---------------------------------------------------------------- d. out= of the joins

def _joined_into(m, op, out, *args):
    """``op(..., out=out)``'s value, the out's shape and strides, and whether it returned ``out``."""
    r = getattr(m, op)(*args, out=out)
    return r.tolist(), str(r.dtype).split(".")[-1], tuple(r.shape), tuple(r.stride()), r is out


@pytest.mark.parametrize("call", [
    lambda m: _joined_into(m, "cat", m.empty(5), [m.ones(2), m.zeros(3)]),
    lambda m: _joined_into(m, "cat", m.empty(0), [m.ones(2), m.zeros(3)]),
    lambda m: _joined_into(m, "cat", m.empty(3, 3).t(), [m.ones(2, 3), m.zeros(1, 3)]),  # (written through)
    lambda m: _joined_into(m, "cat", m.empty(5, dtype=m.float64), [m.ones(2), m.zeros(3)]),
    lambda m: _joined_into(m, "cat", m.empty(2, dtype=m.float64),  # (int64 cast straight to float64)
                           [m.tensor([2**53 + 1]), m.zeros(1)]),
    lambda m: _joined_into(m, "cat", m.empty(5, dtype=m.int64), [m.ones(2), m.zeros(3)]),
    lambda m: _joined_into(m, "stack", m.empty(2, 2), [m.ones(2), m.zeros(2)], 1),
    lambda m: _joined_into(m, "stack", m.empty(2, 2, dtype=m.int32), [m.ones(2), m.zeros(2)]),
    lambda m: _joined_into(m, "hstack", m.empty(0), [m.ones(2), m.zeros(3)]),
    lambda m: _joined_into(m, "vstack", m.empty(0, dtype=m.float64), [m.ones(2), m.zeros(2)]),
    lambda m: _joined_into(m, "cat", m.ones(5, requires_grad=True), [m.ones(2), m.zeros(3)]),
])
def test_join_out(call) -> None:
    assert _result(call, st) == _result(call, torch)


def _result(call, m):
    try:
        return call(m)
    except (TypeError, RuntimeError) as e:
        return ("TypeError" if isinstance(e, TypeError) else "RuntimeError"), str(e).splitlines()[0]


@pytest.mark.parametrize("alias", [False, True])
def test_join_out_resizes_with_warning_and_refuses_aliases(alias) -> None:
    for m in (st, torch):
        a = m.ones(5)
        if alias:  # (even an out that is exactly an input: the join would read what it wrote)
            with pytest.raises(RuntimeError, match="refer to a single memory location"):
                m.cat([a[:2], m.zeros(3)], out=a)
            assert a.tolist() == [1.0] * 5
            continue
        o = m.empty(2, 3)
        with pytest.warns(UserWarning, match=r"resized since it had shape \[2, 3\]"):
            m.cat([a[:2], m.zeros(3)], out=o)
        assert (tuple(o.shape), tuple(o.stride()), o.tolist()) == ((5,), (1,), [1.0, 1.0, 0.0, 0.0, 0.0])


# ---------------------------------------------------------------- e. div's rounding modes

_FLOATS = [-7.5, -0.0, 0.0, 3.0, -3.0, np.inf, -np.inf, np.nan, 1e-310, -1e308, 2.5, 1e300, 0.1, -0.1]
_GRIDS = {"int64": [-7, -6, -1, 1, 6, 7, 2**62, -(2**62), 2**63 - 1], "int8": [-127, -7, -1, 1, 7, 127],
          "uint8": [1, 7, 128, 255], "float16": _FLOATS, "float32": _FLOATS, "float64": _FLOATS}


def _bits(r) -> tuple:
    a = np.array(r.tolist(), dtype=np.float64 if r.dtype.is_floating_point else np.int64)
    return a.view(np.int64).tolist() if a.dtype.kind == "f" and not np.isnan(a).any() else \
        [("nan" if x != x else float(x).hex() if a.dtype.kind == "f" else int(x)) for x in a.tolist()]


@pytest.mark.parametrize("mode", ["floor", "trunc"])
@pytest.mark.parametrize("dtype", sorted(_GRIDS))
def test_div_rounding_modes_bit_for_bit(dtype, mode) -> None:
    vals = _GRIDS[dtype]
    a = [x for x in vals for _ in vals]
    b = [y for _ in vals for y in vals]
    results = []
    for m in (st, torch):
        x, y = m.tensor(a, dtype=getattr(m, dtype)), m.tensor(b, dtype=getattr(m, dtype))
        r, r_scalar = m.div(x, y, rounding_mode=mode), x.t().div(vals[1], rounding_mode=mode)
        results.append((_bits(r), str(r.dtype).split(".")[-1], _bits(r_scalar), str(r_scalar.dtype).split(".")[-1]))
    assert results[0] == results[1]


@pytest.mark.parametrize("call", [
    lambda m: m.div(m.tensor([5]), 0, rounding_mode="trunc"),
    lambda m: m.div(m.tensor([5, 1], dtype=m.uint8), m.tensor([1, 0], dtype=m.uint8), rounding_mode="floor"),
    lambda m: m.div(m.tensor([True]), m.tensor([True]), rounding_mode="trunc"),
    lambda m: m.div(m.tensor([1 + 1j]), 2, rounding_mode="trunc"),
    lambda m: m.div(m.tensor([1.0]), 2, rounding_mode="round"),
    lambda m: m.tensor([1.0]).add(2, rounding_mode="floor"),
    lambda m: m.div(m.tensor([7, -7]), m.tensor([2.5, 2.5]), rounding_mode="trunc"),
    lambda m: m.div(5, m.tensor([2, -2]), rounding_mode="floor"),
    lambda m: m.tensor([7, -7]).div_(2, rounding_mode="trunc"),
    lambda m: m.tensor([7, -7]).div_(2.5, rounding_mode="floor"),
    lambda m: m.div(m.tensor([7, -7]), 2, rounding_mode="trunc", out=m.empty(2)),
])
def test_div_rounding_mode_errors_and_forms(call) -> None:
    agree(call)


def test_div_rounding_mode_gradient_is_zero() -> None:
    for m in (st, torch):
        a = m.tensor([7.0, -7.0], requires_grad=True)
        b = m.tensor([2.0, 2.0], requires_grad=True)
        r = a.div(b, rounding_mode="floor") + a.div(2, rounding_mode="trunc")
        r.sum().backward()
        assert (r.tolist(), a.grad.tolist(), b.grad.tolist()) == ([6.0, -7.0], [0.0, 0.0], [0.0, 0.0])


# ---------------------------------------------------------------- f. clamp of -0.0 and NaN

_EDGES = [-0.0, 0.0, -1.0, 1.0, float("nan"), float("-inf"), float("inf"), -1e-45, 5e-324]


def _hex(r) -> list:
    return [float(v).hex() if v == v else "nan" for v in r.float().tolist()] if r.dtype.is_floating_point \
        else r.tolist()


@pytest.mark.parametrize("call", [
    lambda m, x: m.clamp(x, min=0), lambda m, x: m.clamp(x, min=-0.0), lambda m, x: m.clamp(x, max=0),
    lambda m, x: m.clamp(x, max=-0.0), lambda m, x: x.clamp_min(0), lambda m, x: x.clamp_max(-0.0),
    lambda m, x: m.clamp(x, 0, 0), lambda m, x: m.clamp(x, -0.0, 0.0), lambda m, x: m.clamp(x, 1, 0),
    lambda m, x: m.clamp(x, 0, -1), lambda m, x: m.clamp(x, min=float("nan")), lambda m, x: m.clip(x, 0),
    lambda m, x: x.clone().clamp_(0), lambda m, x: x.t().clamp_(max=0), lambda m, x: m.relu(x),
])
def test_clamp_keeps_tied_zeros_and_nan(call):
    for dtype in ["float32", "float64", "float16", "bfloat16"]:
        with case(dtype=dtype):
            _clamp_keeps_tied_zeros_and_nan(dtype, call)


def _clamp_keeps_tied_zeros_and_nan(dtype, call) -> None:
    got = []
    for m in (st, torch):
        x = m.tensor(_EDGES * 12, dtype=getattr(m, dtype))  # (108 elements: PyTorch's SIMD lanes and its tail)
        got.append(_hex(call(m, x)))
    assert got[0] == got[1]


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_clamp_integers(dtype) -> None:
    for call in (lambda m, x: m.clamp(x, min=0), lambda m, x: m.clamp(x, min=-0.0), lambda m, x: m.clamp(x, max=0.5),
                 lambda m, x: x.clamp_min(-1.5), lambda m, x: m.relu(x)):
        agree(lambda m, call=call: call(m, m.tensor([0, 1, 2, 200] if dtype == "uint8" else [-3, -1, 0, 2],
                                                    dtype=getattr(m, dtype))))


# ---------------------------------------------------------------- g. out=(values, indices)

_X = [[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]


def _pair_out(call, m):
    """The values, dtypes and strides ``call`` leaves in its out tensors, and whether it returned them."""
    try:
        vals, idx = (m.empty(0), m.empty(0, dtype=m.int64)) if call[1] is None else call[1](m)
        r = call[0](m, m.tensor(_X), (vals, idx))
        return [(o.tolist(), str(o.dtype).split(".")[-1], tuple(o.stride())) for o in (vals, idx)], \
            r[0] is vals and r[1] is idx
    except (TypeError, RuntimeError) as e:
        return ("TypeError" if isinstance(e, TypeError) else "RuntimeError"), str(e).splitlines()[0]


@pytest.mark.parametrize("call", [
    (lambda m, x, o: m.max(x, 1, out=o), None),
    (lambda m, x, o: m.min(x, dim=0, keepdim=True, out=o), None),
    (lambda m, x, o: m.median(x, 1, out=o), None),
    (lambda m, x, o: m.nanmedian(x, 1, out=o), None),
    (lambda m, x, o: m.mode(x, 1, out=o), None),
    (lambda m, x, o: m.kthvalue(x, 2, 1, out=o), None),
    (lambda m, x, o: m.sort(x, 1, out=o), lambda m: (m.empty(3, 2).t(), m.empty(3, 2, dtype=m.int64).t())),
    (lambda m, x, o: m.topk(x, 2, 1, out=o), lambda m: (m.empty(5), m.empty(2, 2, dtype=m.int64))),
    (lambda m, x, o: m.max(x, 1, out=o), lambda m: (m.empty(2), m.empty(2, dtype=m.int32))),
    (lambda m, x, o: m.max(x, 1, out=o), lambda m: (m.empty(2, dtype=m.float64), m.empty(2, dtype=m.int64))),
    (lambda m, x, o: m.max(x, 1, out=list(o) + [o[0]]), None),
    (lambda m, x, o: m.sort(x.requires_grad_(), 1, out=o), None),
    (lambda m, x, o: m.cummax(x, 1, out=o), None),
    (lambda m, x, o: m.cummin(x, 0, out=o), lambda m: (m.empty(2, 3), m.empty(2, 3, dtype=m.int32))),
    (lambda m, x, o: m.aminmax(x, dim=1, out=o), lambda m: (m.empty(2), m.empty(2))),
    (lambda m, x, o: m.aminmax(x, out=o), lambda m: (m.empty(0), m.empty(0, dtype=m.float64))),
])
@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
def test_values_indices_out(call) -> None:
    assert _pair_out(call, st) == _pair_out(call, torch)


def test_values_indices_out_refusals_write_nothing() -> None:
    v, i = st.full((2,), 7.0), st.full((2,), 7, dtype=st.int32)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype long int, but got int instead"):
        st.max(st.tensor(_X), 1, out=(v, i))
    assert (v.tolist(), i.tolist()) == ([7.0, 7.0], [7, 7])
    with pytest.raises(TypeError, match="must be tuple of Tensors"):
        st.max(st.tensor(_X), 1, out=v)
    assert st.max(st.tensor(_X), out=st.empty(0, dtype=st.float64)).tolist() == 5.0  # (all elements: one tensor)


# ---------------------------------------------------------------- erfinv against torch (MKL's vdErfInv)

def _ulps(a: np.ndarray, b: np.ndarray) -> int:
    """Largest distance in units of the last place between finite ``a`` and ``b`` (same dtype)."""
    i = np.int64 if a.dtype == np.float64 else np.int32
    ia, ib = a.view(i).astype(np.int64), b.view(i).astype(np.int64)
    lo = np.iinfo(i).min
    ia, ib = np.where(ia < 0, lo - ia, ia), np.where(ib < 0, lo - ib, ib)
    fin = np.isfinite(a) & np.isfinite(b)
    return int(np.abs(ia - ib)[fin].max())


@pytest.mark.parametrize("dtype,limit", [("float64", 4), ("float32", 1)])
def test_erfinv_against_torch(dtype, limit) -> None:
    """PyTorch 2.13's x86 CPU wheels compute erfinv with MKL (vdErfInv/vsErfInv, VML_HA), not
    ATen's calc_erfinv (rational start + two Newton steps: 1e-4 relative off near +-1, where
    erf(x) - y cancels); strided stays within a few ulps of it in both of its paths."""
    from strided.kernels import native

    rng = np.random.default_rng(23)
    eps = np.finfo(dtype).eps
    edges = [1, -1, 0, -0.0, np.nan, 1.5, -2, np.inf, -np.inf, 1e-300, -5e-324, 1 - eps, -(1 - eps), 1 - eps / 2, 0.7]
    tail = 1 - 10.0 ** -rng.uniform(0, 15, 300)
    y = np.concatenate([edges, rng.uniform(-1, 1, 600), tail, -tail, 10.0 ** -rng.uniform(0, 300, 200)]).astype(dtype)
    ref = torch.erfinv(torch.from_numpy(y)).numpy()
    compiled = st.erfinv(st.from_numpy(y)).numpy()
    with native.disabled():
        formulas = st.erfinv(st.from_numpy(y)).numpy()
    for got in (compiled, formulas):
        assert np.array_equal(np.isnan(got), np.isnan(ref))
        num = ~np.isnan(ref)  # (a NaN's sign bit is no value: MKL's -nan for y < -1 is left out)
        assert np.array_equal(np.signbit(got[num]), np.signbit(ref[num]))  # (-0.0 -> -0.0, -1 -> -inf)
        assert np.array_equal(got[np.isinf(ref)], ref[np.isinf(ref)])
        assert _ulps(got, ref) <= limit
