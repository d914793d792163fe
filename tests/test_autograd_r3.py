"""Regression tests for the autograd findings of reliability review 3 (R3-09, R3-11, R3-12,
R3-22) and issue 22's first-order hole (``strided.broadcast_to``), each compared with PyTorch 2.13.

- R3-11 no reference cycles: a node that saves its own output holds an alias of it without its
  history (PyTorch's SavedVariable rule), so a graph dropped without backward dies at ``del``
  with the cyclic GC off; a generated sweep over every op with a rule;
- R3-09 views made under no_grad, and outputs of multi-output view ops, written in place;
- R3-12 NaN and edge gradients (max/min with NaN, 0 ** 0, atan2(0, 0), maximum at NaN, ...);
- R3-22 complex abs / sgn / angle backward;
- module functions against their method twins (``broadcast_to``).
"""

from __future__ import annotations

import gc
import math
import tracemalloc
import warnings
import weakref

import pytest
import torch

import strided as st
import strided.nn.functional as F
from strided.gradients import BACKWARD


@pytest.fixture
def no_gc():
    """The cyclic GC off for the test: what dies must die by reference counting alone.

    No ``gc.collect()`` first: with the collector off, an object kept by a cycle stays alive
    whatever garbage is left from earlier tests, so a collection here would not change any
    outcome, and late in the suite each one walks every object alive (~0.1 s, per case)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


# ============================================================ R3-11 reference cycles


def _del_inputs():
    # fixed values (not draws): the signature found at collection must fit at run time too
    # (binary_cross_entropy takes x only within [0, 1])
    x = st.linspace(0.55, 0.95, 6, dtype=st.float64).reshape(2, 3).requires_grad_()
    return x, st.linspace(0.2, 0.7, 6, dtype=st.float64).reshape(2, 3)


def _del_signature(call):
    """The first of (no args, a dim, another tensor) that ``call(x, *args)`` takes, or None."""
    x, other = _del_inputs()
    for args in [(), (0,), ("other",)]:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                call(x, *(other if a == "other" else a for a in args))
        except Exception:  # noqa: BLE001 - the sweep tries signatures until one fits
            continue
        return args
    return None


def _del_cases(names, call_of):
    """(name, args) for each op one of the sweep's signatures fits, decided at collection: an op
    none fits (as_strided needs its sizes, addcmul two tensors, ...) is not a case of this sweep."""
    found = ((n, _del_signature(call_of(n))) for n in names)
    return [pytest.param(n, args, id=n) for n, args in found if args is not None]


def _sweep_del(call, args, what: str) -> None:
    """``call(x, *args)``: each tensor it returns must die at ``del`` (reference counting alone:
    no cycle through its node)."""
    x, other = _del_inputs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = call(x, *(other if a == "other" else a for a in args))
    outs = out if isinstance(out, tuple) else (out,)
    refs = [weakref.ref(o) for o in outs if isinstance(o, st.Tensor) and o is not x]
    del out, outs
    assert all(r() is None for r in refs), f"{what}{args}: its result outlives del (a reference cycle)"


def _method(name):
    return lambda x, *a: getattr(x, name)(*a)


def _functional(name):
    return lambda x, *a: getattr(F, name[2:])(x, *a)


@pytest.mark.parametrize("name, args", _del_cases(sorted(n for n in BACKWARD if not n.startswith("F.")
                                                         and callable(getattr(st.Tensor, n, None))), _method))
def test_r3_11_no_method_with_a_rule_keeps_its_result_alive_after_del(name, args, no_gc):
    _sweep_del(_method(name), args, f"Tensor.{name}")


@pytest.mark.parametrize("name, args", _del_cases(sorted(n for n in BACKWARD if n.startswith("F.")
                                                         and callable(getattr(F, n[2:], None))), _functional))
def test_r3_11_no_functional_with_a_rule_keeps_its_result_alive_after_del(name, args, no_gc):
    _sweep_del(_functional(name), args, name)


def test_r3_11_an_eval_loop_without_no_grad_keeps_memory_bounded(no_gc):
    x = st.ones(1_000_000, requires_grad=True)  # 4 MB of float32
    tracemalloc.start()
    try:
        y = x.exp(); z = y.tanh(); w = z.sigmoid()  # noqa: E702 - one warm-up step
        del y, z, w
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(50):
            y = x.exp(); z = y.tanh(); w = z.sigmoid(); s = w.softmax(0)  # noqa: E702
            del y, z, w, s
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 4_000_000, f"{grown} bytes kept by 50 dropped graphs (a leak would keep 800 MB)"


def test_r3_11_in_place_ops_that_save_their_result_are_cycle_free(no_gc):
    x = st.ones(3, requires_grad=True)
    y = x * 1
    y.exp_()
    r = weakref.ref(y)
    del y
    assert r() is None


def _exp_then_add(lib):
    y = lib.tensor([1.0, 2.0], requires_grad=True).exp()
    y.add_(1)
    return y


def _exp_in_place_then_mul(lib):
    y = lib.tensor([1.0, 2.0], requires_grad=True) * 1
    y.exp_()
    y.mul_(2)
    return y


@pytest.mark.parametrize("steps", [_exp_then_add, _exp_in_place_then_mul])
def test_r3_11_a_saved_output_still_reports_in_place_writes_as_torch(steps):
    firsts = []
    for lib in (torch, st):
        y = steps(lib)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        firsts.append(str(e.value).splitlines()[0])
    assert firsts[1] == firsts[0]


@pytest.mark.parametrize("op", ["exp", "tanh", "sigmoid", "sqrt", "rsqrt", "reciprocal"])
def test_r3_11_saved_outputs_still_give_second_and_third_derivatives_as_torch(op):
    got = []
    for lib in (torch, st):
        x = lib.tensor([0.3, 1.7], dtype=lib.float64, requires_grad=True)
        y = getattr(x, op)().sum()
        g1, = lib.autograd.grad(y, x, create_graph=True)
        g2, = lib.autograd.grad(g1.sum(), x, create_graph=True)
        g3, = lib.autograd.grad(g2.sum(), x)
        got.append([g.tolist() for g in (g1, g2, g3)])
    for mine, theirs in zip(got[1], got[0]):
        assert mine == pytest.approx(theirs, rel=1e-12)


def test_r3_11_softmax_saved_output_double_backward_as_torch():
    got = []
    for lib in (torch, st):
        x = lib.tensor([0.3, 1.7, -0.4], dtype=lib.float64, requires_grad=True)
        y = (x.softmax(0) * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum()
        g1, = lib.autograd.grad(y, x, create_graph=True)
        g2, = lib.autograd.grad((g1 * g1).sum(), x)
        got.append((g1.tolist(), g2.tolist()))
    assert got[1][0] == pytest.approx(got[0][0], rel=1e-12)
    assert got[1][1] == pytest.approx(got[0][1], rel=1e-12)


# ============================================================ R3-12 NaN and edge gradients

NAN, INF = math.nan, math.inf


def _same(a, b) -> bool:
    """Equal lists of floats, NaN equal to NaN, the sign of a zero compared too."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(p, q) for p, q in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == pytest.approx(b, rel=1e-12) and math.copysign(1, a) == math.copysign(1, b)
    return a == b


def _grads(lib, f, *values):
    xs = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (std of one element warns in both libraries)
        y = f(lib, *xs)
    (y.sum() if y.dim() else y).backward()
    return [None if x.grad is None else x.grad.tolist() for x in xs]


_EDGES = {
    "max_with_nan": (lambda lib, x: x.max(), [1.0, NAN, 2.0]),
    "min_with_nan": (lambda lib, x: x.min(), [1.0, NAN, 2.0]),
    "max_two_nans": (lambda lib, x: x.max(), [NAN, 1.0, NAN]),
    "max_ties": (lambda lib, x: x.max(), [2.0, 1.0, 2.0]),
    "amax_with_nan": (lambda lib, x: x.amax(), [NAN, 1.0, NAN]),
    "amin_ties": (lambda lib, x: x.amin(), [1.0, 1.0, 2.0]),
    "max_dim_with_nan": (lambda lib, x: x.max(0)[0], [1.0, NAN, 2.0]),
    "pow_tensor_exponent_0_at_0": (lambda lib, x, e: x ** e, [0.0, 2.0], [0.0, 0.0]),
    "pow_number_exponent_0_at_0": (lambda lib, x: x ** 0, [0.0]),
    "pow_half_at_0": (lambda lib, x: x ** 0.5, [0.0]),
    "pow_minus_1_at_0": (lambda lib, x: x ** -1.0, [0.0]),
    "number_pow_at_0": (lambda lib, x: 0.0 ** x, [0.0, 1.0]),
    "zero_base_tensor_pow": (lambda lib, b, e: b ** e, [0.0, 0.0], [1.0, -1.0]),
    "atan2_at_0_0": (lambda lib, a, b: lib.atan2(a, b), [0.0, -0.0], [0.0, -0.0]),
    "maximum_with_nan": (lambda lib, a, b: lib.maximum(a, b), [NAN, 1.0], [1.0, NAN]),
    "minimum_with_nan": (lambda lib, a, b: lib.minimum(a, b), [NAN, 1.0], [1.0, NAN]),
    "maximum_tie": (lambda lib, a, b: lib.maximum(a, b), [1.0], [1.0]),
    "div_at_0": (lambda lib, a, b: a / b, [0.0, 1.0], [0.0, 0.0]),
    "sqrt_at_0": (lambda lib, x: x.sqrt(), [0.0, -0.0]),
    "rsqrt_at_0": (lambda lib, x: x.rsqrt(), [0.0]),
    "norm_at_0": (lambda lib, x: x.norm(), [0.0, 0.0]),
    "norm_1_at_0": (lambda lib, x: x.norm(1), [0.0, 0.0]),
    "norm_inf_ties": (lambda lib, x: x.norm(INF), [1.0, -1.0]),
    "norm_3_at_0": (lambda lib, x: x.norm(3), [0.0, 0.0]),
    "hypot_at_0_0": (lambda lib, a, b: lib.hypot(a, b), [0.0], [0.0]),
    "clamp_at_bounds": (lambda lib, x: x.clamp(0.0, 1.0), [0.0, 1.0, 0.5, 2.0, NAN]),
    "relu_at_0_and_nan": (lambda lib, x: x.relu(), [0.0, NAN]),
    "abs_at_0": (lambda lib, x: x.abs(), [0.0, -0.0, NAN]),
    "prod_two_zeros_and_inf": (lambda lib, x: x.prod(), [0.0, 0.0, INF]),
    "prod_one_zero": (lambda lib, x: x.prod(), [0.0, 2.0, 3.0]),
    "prod_inf_no_zero": (lambda lib, x: x.prod(), [INF, 2.0]),
    "prod_dim_inf_no_zero": (lambda lib, x: x.prod(0), [INF, 2.0]),
    "cumprod_zero_then_inf": (lambda lib, x: x.cumprod(0), [2.0, 0.0, 3.0, 0.0, INF]),
    "remainder_of_minus_inf": (lambda lib, a, b: lib.remainder(a, b), [-INF, 1.0], [1.0, 2.0]),
    "logsumexp_all_minus_inf": (lambda lib, x: x.logsumexp(0), [-INF, -INF]),
    "std_of_one": (lambda lib, x: x.std(), [1.0]),
    "softmax_minus_inf": (lambda lib, x: x.softmax(0)[0], [-INF, 1.0]),
}


@pytest.mark.parametrize("case", sorted(_EDGES))
def test_r3_12_edge_gradients_as_torch(case):
    f, *values = _EDGES[case]
    theirs, mine = _grads(torch, f, *values), _grads(st, f, *values)
    assert _same(mine, theirs), f"{case}: torch {theirs}, strided {mine}"


_E = [0.0, -0.0, 1.0, -1.0, INF, -INF, NAN, 0.5, 2.0, 2.0]  # zeros, infinities, NaN, a tie
_O = [0.0, 0.0, 1.0, 2.0, INF, 1.0, 1.0, NAN, -0.0, 2.0]


def _edge_grad(lib, name, args):
    x = lib.tensor(_E, dtype=lib.float64, requires_grad=True)
    o = lib.tensor(_O, dtype=lib.float64, requires_grad=True)
    y = getattr(x, name)(*(o if a == "o" else a for a in args))
    y = y[0] if isinstance(y, tuple) else y
    inputs = [x, o] if "o" in args else [x]
    return [None if t is None else t.tolist()
            for t in lib.autograd.grad(y.sum() if y.dim() else y, inputs, allow_unused=True)]


_TORCH_METHODS_WITH_RULES = sorted(n for n in BACKWARD if not n.startswith("F.")
                                   and hasattr(torch.Tensor, n) and n != "__getitem__")


def _torch_signature(name, grad_of):
    """The first of (no args, the other operand, dim 0) that torch accepts for ``name``, or None."""
    for args in [(), ("o",), (0,)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return args, grad_of(torch, name, args)
            except Exception:  # noqa: BLE001 - the sweep tries signatures until torch takes one
                continue
    return None


def _swept(grad_of):
    """(name, args, torch's gradient) for every method with a rule that one of the sweep's
    signatures fits, decided when the tests are collected: a method none fits (view needs its
    sizes, where its condition, ...) is not a case of this sweep (the per-op tests cover it)."""
    cases = []
    for name in _TORCH_METHODS_WITH_RULES:
        found = _torch_signature(name, grad_of)
        if found is not None:
            cases.append(pytest.param(name, found[0], found[1], id=name))
    return cases


def _against_torch(name, args, theirs, grad_of, equal, refusals=()):
    """strided's ``grad_of(st, name, args)`` must be ``equal`` to torch's, or raise one of ``refusals``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            mine = grad_of(st, name, args)
        except refusals:
            return  # a clear refusal
    assert equal(mine, theirs), f"{name}{args}: torch {theirs}, strided {mine}"


@pytest.mark.parametrize("name, args, theirs", _swept(_edge_grad))
def test_r3_12_every_method_with_a_rule_at_edge_values_as_torch(name, args, theirs):
    """Generated: each method with a rule, on zeros of both signs, infinities, NaN and a tie."""
    _against_torch(name, args, theirs, _edge_grad, _same)


# ============================================================ R3-22 complex gradients

_Z = [1 + 2j, -3 + 0.5j, 0.25 - 1j, 2j]
_W = [0.5 - 1j, 2 + 0j, -1 + 1j, 1 + 0.5j]  # the other operand, and the gradient of the result


def _complex_grad(lib, name, args):
    x = lib.tensor(_Z, dtype=lib.complex128, requires_grad=True)
    o = lib.tensor(_W, dtype=lib.complex128, requires_grad=True)
    y = getattr(x, name)(*(o if a == "o" else a for a in args))
    y = y[0] if isinstance(y, tuple) else y
    w = lib.tensor((_W * 4)[: y.numel()], dtype=y.dtype if y.dtype.is_complex else lib.complex128).reshape(y.shape)
    if not y.dtype.is_complex:
        w = w.real
    inputs = [x, o] if "o" in args else [x]
    return [None if t is None else t.tolist() for t in lib.autograd.grad(y, inputs, w, allow_unused=True)]


def _close(a, b) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(p, q) for p, q in zip(a, b))
    if isinstance(a, complex) or isinstance(b, complex):
        a, b = complex(a), complex(b)
        return _same([a.real, a.imag], [b.real, b.imag]) or abs(a - b) < 1e-12
    return a == b


@pytest.mark.parametrize("name, args, theirs", _swept(_complex_grad))
def test_r3_22_every_method_with_a_rule_on_complex_matches_torch_or_refuses(name, args, theirs):
    """Generated: on complex128 inputs (PyTorch's conjugate convention for complex gradients),
    each method with a rule gives PyTorch's gradient, or raises strided's own error: never a
    silently different number."""
    _against_torch(name, args, theirs, _complex_grad, _close, (st.errors.StridedNotImplementedError,
                                                 st.errors.StridedRuntimeError, st.errors.StridedTypeError))


@pytest.mark.parametrize("op", ["abs", "sgn", "angle", "real", "imag", "conj"])
def test_r3_22_complex_abs_sgn_angle_and_parts_as_torch(op):
    got = []
    for lib in (torch, st):
        x = lib.tensor([1 + 2j, -3 + 0.5j, 0j], dtype=lib.complex128, requires_grad=True)
        y = getattr(x, op)
        y = y() if callable(y) else y
        w = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64)
        y.backward(w.to(y.dtype) * (1 - 1j) if y.dtype.is_complex else w)
        got.append((y.grad_fn.name(), x.grad.tolist()))
    assert got[1][0] == got[0][0]
    assert _close(got[1][1], got[0][1]), got


def test_r3_22_a_complex_graph_mixing_parts_and_functions_as_torch():
    got = []
    for lib in (torch, st):
        x = lib.tensor([1 + 2j, -3 + 0.5j], dtype=lib.complex128, requires_grad=True)
        y = (x.exp() * x).sum()
        loss = y.real + 2 * y.imag + (x.abs() ** 2).sum() + x.angle().sum()
        loss.backward()
        got.append(x.grad.tolist())
    assert _close(got[1], got[0]), got


# ============================================================ R3-09 views that may not be written in place


def _first_error(lib, steps):
    try:
        steps(lib)
    except RuntimeError as e:  # (strided's errors subclass the builtin class PyTorch raises)
        return str(e).splitlines()[0]
    return None


def _no_grad_view_times_operand(lib):
    x = lib.arange(4.0).requires_grad_()
    y = x * x
    with lib.no_grad():
        v = y[1:3]
    v.mul_(lib.ones(2, requires_grad=True))


def _no_grad_view_of_a_leaf(lib):
    x = lib.arange(4.0).requires_grad_()
    with lib.no_grad():
        v = x[1:3]
    v.mul_(2)


def _no_grad_view_written_under_no_grad(lib):
    x = lib.arange(4.0).requires_grad_()
    y = x * x
    with lib.no_grad():
        v = y[1:3]
        v.mul_(2)


def _no_grad_view_of_a_plain_tensor(lib):
    x = lib.arange(4.0)
    with lib.no_grad():
        v = x[1:3]
    v.mul_(2)


def _unbind_output(lib):
    (lib.arange(6.0).requires_grad_() * 1).unbind(0)[3].mul_(2)


def _view_of_an_unbind_output(lib):
    (lib.arange(6.0).requires_grad_() * 1).unbind(0)[3][...].mul_(2)


def _split_with_sizes_output(lib):
    (lib.arange(6.0).requires_grad_() * 1).split([2, 4])[1].mul_(2)


def _split_output(lib):
    (lib.arange(6.0).requires_grad_() * 1).split(2)[1].zero_()


def _chunk_output(lib):
    (lib.arange(6.0).requires_grad_() * 1).chunk(2)[1].add_(1)


def _tensor_split_output(lib):  # (PyTorch makes each piece its own view: allowed)
    (lib.arange(6.0).requires_grad_() * 1).tensor_split(3)[1].add_(1)


def _unbind_output_under_no_grad(lib):
    o = (lib.arange(6.0).requires_grad_() * 1).unbind(0)[3]
    with lib.no_grad():
        o.mul_(2)


def _unbind_of_a_plain_tensor(lib):
    lib.arange(6.0).unbind(0)[3].mul_(2)


@pytest.mark.parametrize("steps", [
    _no_grad_view_times_operand, _no_grad_view_of_a_leaf, _no_grad_view_written_under_no_grad,
    _no_grad_view_of_a_plain_tensor, _unbind_output, _view_of_an_unbind_output, _split_with_sizes_output,
    _split_output, _chunk_output, _tensor_split_output, _unbind_output_under_no_grad, _unbind_of_a_plain_tensor,
], ids=lambda f: f.__name__.strip("_"))
def test_r3_09_views_written_in_place_raise_as_torch(steps):
    assert _first_error(st, steps) == _first_error(torch, steps)


def test_r3_09_the_reviews_case_no_longer_gives_a_wrong_gradient():
    x = st.arange(4.0).requires_grad_()
    y = x * x
    with st.no_grad():
        v = y[1:3]
    w = st.tensor([2.0, 3.0], requires_grad=True)
    with pytest.raises(st.errors.StridedRuntimeError, match="^A view was created in no_grad mode"):
        v.mul_(w)
    (y.sum() * 3).backward()  # the write was refused: the gradient is the untouched graph's
    assert x.grad.tolist() == [0.0, 6.0, 12.0, 18.0]


def test_r3_09_a_multi_output_view_error_names_the_node_as_torch():
    y = st.arange(6.0).requires_grad_() * 1
    with pytest.raises(RuntimeError) as e:
        y.unbind(0)[2].add_(1)
    assert str(e.value).splitlines()[0].startswith("Output 2 of Unbind is a view and is being modified inplace.")
    assert [p.grad_fn.name() for p in (y.split([2, 4])[0], y.split(3)[0], y.chunk(3)[0])] == [
        "SplitWithSizesBackward0", "SplitBackward0", "SplitBackward0"]


# ============================================================ module functions against their method twins

_TWIN_CALLS = [(), (0,), ("o",), ((2, 2, 3),), ((3, 2),), (1, 0), (-1,)]
# (the functions whose method takes the ints the function takes only as a tuple: torch.flip(x, 0)
# is PyTorch's TypeError, x.flip(0) is not)
_TWIN_CALLS_OF = {"flip": [((0,),)]}


def _twin_result(f, args, method):
    st.manual_seed(0)
    x = (st.rand(2, 3, dtype=st.float64) + 0.5).requires_grad_()
    o = st.rand(2, 3, dtype=st.float64) + 0.5
    a = tuple(o if v == "o" else v for v in args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # (torch.polygamma(n, input): the function takes the order first, the method x.polygamma(n))
        y = getattr(x, f)(*a) if method else f(*a, x) if f is st.polygamma else f(x, *a)
    y = y[0] if isinstance(y, (tuple, list)) else y
    name = None if y.grad_fn is None else y.grad_fn.name()
    if name is not None:
        y.sum().backward()
    return name, y.tolist(), None if x.grad is None else x.grad.tolist()


def _twin_cases():
    """(name, args, the method's node, values and gradient) for each public function of
    ``strided`` whose Tensor method of the same name has a rule, with the first of a few argument
    lists the method records with, decided at collection (a method none fits — matmul needs
    another shape, gather an index — is not a case of this sweep)."""
    cases = []
    for name in sorted(n for n in dir(st) if not n.startswith("_") and n in BACKWARD
                       and callable(getattr(st, n)) and not isinstance(getattr(st, n), type)
                       and callable(getattr(st.Tensor, n, None))):
        for args in _TWIN_CALLS_OF.get(name, _TWIN_CALLS):
            try:
                method = _twin_result(name, args, True)
            except Exception:  # noqa: BLE001 - the sweep tries argument lists until the method takes one
                continue
            if method[0] is not None:
                cases.append(pytest.param(name, args, method, id=name))
                break
    return cases


@pytest.mark.parametrize("name, args, method", _twin_cases())
def test_every_module_function_records_as_its_method_twin(name, args, method):
    """Generated: each public function of ``strided`` whose Tensor method of the same name has a
    rule, called as the first of a few argument lists that the method records with, gives the
    method's node name, values and gradient (issue 22: ``strided.broadcast_to`` recorded nothing)."""
    function = _twin_result(getattr(st, name), args, False)
    assert function[0] == method[0], f"strided.{name}{args} records {function[0]}, the method {method[0]}"
    assert _same(list(function[1:]), list(method[1:])), f"strided.{name}{args}"


@pytest.mark.parametrize("lib_call", ["broadcast_to", "reshape"])
def test_numpy_style_broadcast_to_and_reshape_record_as_torch(lib_call):
    got = []
    for lib in (torch, st):
        x = lib.tensor([[1.0, 2.0, 3.0]], dtype=lib.float64, requires_grad=True)
        y = getattr(lib, lib_call)(x, (2, 3) if lib_call == "broadcast_to" else (3, 1))
        (y * lib.tensor(2.0, dtype=lib.float64)).sum().backward()
        got.append((y.grad_fn.name(), x.grad.tolist()))
    assert got[1] == got[0]


def test_numpy_reshape_in_fortran_order_refuses_under_autograd():
    x = st.ones(2, 3, requires_grad=True)
    with pytest.raises(st.errors.StridedNotImplementedError, match="reshape"):
        st.reshape(x, (3, 2), order="F")
    assert st.reshape(x.detach(), (3, 2), order="F").shape == (3, 2)
