"""Python protocols and bad input, compared live with PyTorch (and NumPy for ``__array__``).

One regression test per finding of the reliability review (R2-11, R2-19 .. R2-24), then, for
each class of bug, a hypothesis test that would have found it:

* repr of random layouts (expanded, huge stride-0, permuted, 0-size, 0-d, many dims) is
  PyTorch's text and allocates only about what it shows (tracemalloc);
* ``format``, ``in`` and ``np.asarray(copy=...)`` against PyTorch / NumPy for random values;
* var/std ``correction=`` and arange bounds against PyTorch for random numbers;
* every argument that takes a size, a dim or an index, swept with bool-likes and 1-element
  tensors, raising PyTorch's error class (or the deliberate differences listed below).
"""

from __future__ import annotations

import decimal
import fractions
import math
import re
import tracemalloc
import warnings
from collections.abc import Callable
from typing import Any
from unittest import mock

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import Spec, specs, valued_storage
from oracle_helpers import builtin_class, case, outcome, stable_id
from strided.layout import Layout

SETTINGS = settings(max_examples=60, deadline=None)


def _same_class(se: BaseException | None, te: BaseException | None) -> None:
    """Both succeeded, or both failed with strided's error an instance of torch's builtin class."""
    assert (se is None) == (te is None), f"strided: {se!r}\ntorch: {te!r}"
    if te is not None:
        assert isinstance(se, st.StridedError), se
        assert isinstance(se, builtin_class(te)), f"strided: {se!r}\ntorch: {te!r}"


# =========================================================================== R2-11 repr


def same_repr(ours: str, theirs: str) -> bool:
    """Equal up to the dtype's name (as tests/test_copies.py compares reprs): "strided.float64"
    is 2 characters longer than "torch.float64", which can move a suffix onto its own line."""

    def norm(text: str) -> str:
        return re.sub(r",\s*\n\s*(dtype|size)=", r", \1=", text)

    return norm(ours) == norm(theirs.replace("torch.", "strided."))


def _peak_bytes(fn: Callable[[], Any]) -> int:
    """The peak of memory traced while ``fn`` runs (after one warm-up call)."""
    fn()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _shown_count(shape: tuple[int, ...]) -> int:
    """How many elements PyTorch's repr shows for ``shape`` (edge items when summarized)."""
    if math.prod(shape) <= 1000:
        return math.prod(shape)
    return math.prod(min(n, 6) for n in shape)


def _repr_budget(shape: tuple[int, ...]) -> int:
    """Bytes a repr may allocate: a constant plus a generous share per shown element and dim
    (the text itself, the Python floats and strings); far below one row of a huge tensor."""
    return 64_000 + 600 * _shown_count(shape) * max(1, len(shape))


@pytest.mark.parametrize("make", [
    lambda m: m.zeros(1, 1).expand(7, 2**40),
    lambda m: m.zeros(1, 1).expand(7, 10**7),
    lambda m: m.ones(3).expand(2**61, 3),
    lambda m: m.arange(6.).reshape(2, 3)[:, :1].expand(2, 10**9),
], ids=["7x2**40", "7x10**7", "2**61x3", "2x10**9"])
def test_r2_11_repr_of_huge_expanded_tensor_reads_only_the_shown_elements(make):
    ours = make(st)
    assert same_repr(repr(ours), repr(make(torch)))
    assert _peak_bytes(lambda: repr(ours)) < _repr_budget(ours.shape)


def test_r2_11_repr_of_layouts_numpy_cannot_view():
    # a size-1 dim with a stride beyond int64 bytes, and NumPy's full 64 dims (a 65th is refused
    # when the layout is made: tests/test_layout_invariants.py)
    assert repr(st.arange(10)[::2**62]) == "tensor([0])"
    deep_s, deep_t = st.ones(1), torch.ones(1)
    for _ in range(63):
        deep_s, deep_t = deep_s.unsqueeze(0), deep_t.unsqueeze(0)
    assert deep_s.ndim == 64
    assert repr(deep_s) == repr(deep_t)


_REPR_DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"]


@hs.composite
def huge_specs(draw) -> Spec:
    """Random layouts, some with many dims, and with stride-0 dims stretched to huge sizes."""
    spec = draw(specs(max_dims=draw(hs.sampled_from([4, 4, 9])), max_size=8))
    shape = list(spec.shape)
    for d, stride in enumerate(spec.strides):
        if stride == 0 and 0 not in spec.shape and draw(hs.booleans()):
            shape[d] = draw(hs.sampled_from([7, 1001, 10**6, 2**40]))
    if math.prod(shape) >= 2**62:  # PyTorch's numel must fit int64
        shape = list(spec.shape)
    return Spec(spec.storage_size, tuple(shape), spec.strides, spec.offset)


@given(spec=huge_specs(), dtype=hs.sampled_from(_REPR_DTYPES), seed=hs.integers(0, 2**16))
@SETTINGS
def test_repr_of_random_layouts_matches_torch_and_allocates_only_what_it_shows(spec, dtype, seed):
    data = valued_storage(spec, dtype, seed, nan=dtype.startswith("float"))
    ours = st.from_numpy(data)._view(Layout(spec.shape, spec.strides, spec.offset))
    theirs = torch.from_numpy(data).as_strided(spec.shape, spec.strides, spec.offset)
    assert same_repr(repr(ours), repr(theirs))
    assert _peak_bytes(lambda: repr(ours)) < _repr_budget(spec.shape)


# =========================================================================== R2-19 format


def test_r2_19_format_spec_on_0d_tensor():
    assert f"{st.tensor(1.5):.2f}" == f"{torch.tensor(1.5):.2f}" == "1.50"


@pytest.mark.parametrize("spec", ["", ".2f", ">10", "e", "+.3g", "d", "x"])
@pytest.mark.parametrize("value", [1.5, -3, True, 0.0, float("nan")], ids=stable_id)
def test_format_of_0d_tensors_matches_torch(spec, value):
    ours, ours_err = outcome(lambda: format(st.tensor(value), spec))
    theirs, theirs_err = outcome(lambda: format(torch.tensor(value), spec))
    assert ours == theirs
    assert type(ours_err) is type(theirs_err)  # float.__format__'s own ValueError, as in PyTorch


@pytest.mark.parametrize("make", [lambda m: m.tensor([1.5]), lambda m: m.zeros(2, 3), lambda m: m.zeros(0)])
def test_format_of_tensors_with_dims(make):
    assert same_repr(format(make(st), ""), format(make(torch), ""))
    with pytest.raises(TypeError):
        format(make(torch), ".2f")
    with pytest.raises(st.StridedError) as info:
        format(make(st), ".2f")
    assert isinstance(info.value, TypeError)
    text = str(info.value)
    assert "unsupported format string passed to Tensor.__format__" in text and ".item()" in text


# =========================================================================== R2-20 in


def test_r2_20_contains_on_2d_and_with_tensors():
    for m in (st, torch):
        x = m.tensor([[1, 2], [3, 4]])
        assert 3 in x and 5 not in x and m.tensor([1, 2]) in x and m.tensor([[9], [3]]) in x
    with pytest.raises(RuntimeError, match="only supports Tensor or scalar"):
        "a" in torch.tensor([[1, 2], [3, 4]])  # noqa: B015
    with pytest.raises(st.StridedError) as info:
        "a" in st.tensor([[1, 2], [3, 4]])  # noqa: B015
    assert isinstance(info.value, RuntimeError)
    assert "Tensor.__contains__ only supports Tensor or scalar" in str(info.value)
    assert "shape (2, 2)" in str(info.value)


def test_r2_20_contains_compares_once_and_never_iterates():
    z = st.zeros(10**5)
    with mock.patch.object(st.Tensor, "__iter__", side_effect=AssertionError("iterated")):
        assert 5.0 not in z and 0.0 in z


@pytest.mark.parametrize("element", ["a", None, [3], (3,), np.array(3), np.bool_(True), object()], ids=stable_id)
def test_contains_refuses_what_torch_refuses(element):
    _, te = outcome(lambda: element in torch.tensor([1, 2]))
    _, se = outcome(lambda: element in st.tensor([1, 2]))
    _same_class(se, te)
    assert "only supports Tensor or scalar" in str(se)


_ELEMENTS = hs.one_of(
    hs.integers(-3, 3), hs.sampled_from([0.5, -0.0, float("nan"), float("inf"), True, False, np.int64(2),
                                         np.float32(1.0)]),
)


@given(
    dtype=hs.sampled_from(["float32", "float64", "int64", "int8", "uint8", "bool"]),
    shape=hs.sampled_from([(), (0,), (3,), (2, 3), (2, 1, 2)]),
    element=_ELEMENTS, as_tensor=hs.sampled_from([None, (), (1,), (3,), (2, 1)]),
    seed=hs.integers(0, 2**16),
)
@SETTINGS
def test_contains_matches_torch(dtype, shape, element, as_tensor, seed):
    rng = np.random.default_rng(seed)
    data = rng.integers(-3, 4, shape).astype(dtype)
    if as_tensor is not None:  # the element as a tensor of its own shape (broadcast, or refused)
        values = np.full(as_tensor, element, dtype=np.asarray(element).dtype)
        s_el, t_el = st.tensor(values), torch.from_numpy(values)
    else:
        s_el = t_el = element
    ours, se = outcome(lambda: s_el in st.tensor(data))
    theirs, te = outcome(lambda: t_el in torch.from_numpy(data))
    _same_class(se, te)
    assert ours == theirs


# =========================================================================== R2-21 __array__

_COPIES = [None, True, False]


def _array_outcome(source: Any, dtype: Any, copy: Any) -> tuple[np.ndarray | None, BaseException | None]:
    return outcome(lambda: np.asarray(source, dtype=dtype, copy=copy))


def test_r2_21_asarray_copy_false_refuses_a_conversion():
    t = st.arange(6.)
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        np.asarray(torch.arange(6.), dtype=np.float64, copy=False)
    # NumPy reads __array_interface__ first, so the refusal is NumPy's own, as for an ndarray
    with pytest.raises(ValueError, match="Unable to avoid copy while creating an array as requested"):
        np.asarray(t, dtype=np.float64, copy=False)
    # a caller of the protocol method itself gets strided's explanation
    with pytest.raises(st.StridedError) as info:
        t.__array__(np.float64, copy=False)
    assert isinstance(info.value, ValueError)
    assert "Unable to avoid copy while creating an array as requested" in str(info.value)
    assert "float32" in str(info.value) and "float64" in str(info.value)


@given(spec=specs(max_dims=3), dtype=hs.sampled_from(["float32", "int64", "bool", "uint8"]),
       ask=hs.sampled_from([None, "own", "other", "swapped"]), copy=hs.sampled_from(_COPIES))
@SETTINGS
def test_array_protocol_follows_ndarray(spec, dtype, ask, copy):
    """``np.asarray(t, dtype, copy)`` does what it does on the ndarray ``t.numpy()``: a view when
    allowed, a copy when asked, ValueError for copy=False when a conversion is needed."""
    s = st.from_numpy(np.zeros(spec.storage_size, dtype))._view(Layout(spec.shape, spec.strides, spec.offset))
    own = np.dtype(dtype)
    want = {None: None, "own": own, "other": np.dtype("float64"), "swapped": own.newbyteorder()}[ask]
    ref, ref_err = _array_outcome(s.numpy(), want, copy)
    got, err = _array_outcome(s, want, copy)
    assert type(err) is type(ref_err) or (isinstance(err, st.StridedError) and isinstance(err, type(ref_err)))
    if ref is not None:
        assert got.dtype == ref.dtype and got.shape == ref.shape
        assert np.shares_memory(got, s.numpy()) == np.shares_memory(ref, s.numpy())
    if copy is not False:  # PyTorch's __array__ has no copy=, so only these compare with it
        theirs, theirs_err = _array_outcome(torch.zeros(spec.shape, dtype=getattr(torch, dtype)), want, copy)
        assert (theirs_err is None) == (err is None)


# =========================================================================== R2-22 correction

_CORRECTIONS = [
    1, 0, 2, 1.5, -1.5, 2**70, -(2**70), 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, float("nan"), float("inf"),
    -float("inf"), "a", True, decimal.Decimal(1), fractions.Fraction(1, 2), np.float64(1.5), np.int64(1),
    np.bool_(True), np.array(1.0), 1 + 0j, 1 + 1j, "tensor(1.)", "tensor(1)", "tensor(True)", "tensor([1.])", 6, 7,
]


def _correction_in(lib: Any, c: Any) -> Any:
    if isinstance(c, str) and c.startswith("tensor("):
        return lib.tensor(eval(c[len("tensor("):-1]))  # noqa: S307 - a literal from the list above
    return c


def _var_outcome(lib: Any, op: str, c: Any, dim: Any) -> tuple[Any, BaseException | None, list[str]]:
    x = lib.arange(6.).reshape(2, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = getattr(x, op)(dim, correction=_correction_in(lib, c))
            return r.tolist(), None, [str(w.message).split(".")[0] for w in caught]
        except Exception as e:  # noqa: BLE001
            return None, e, []


def _check_correction(c: Any, op: str, dim: Any) -> BaseException | None:
    ours, se, our_warnings = _var_outcome(st, op, c, dim)
    theirs, te, their_warnings = _var_outcome(torch, op, c, dim)
    _same_class(se, te)
    if te is None:
        # (atol: a huge negative correction gives subnormal float32 results, rounded differently)
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-15, equal_nan=True)
        assert [w.split(":")[0] for w in our_warnings] == [w.split(":")[0] for w in their_warnings]
    return se


@pytest.mark.parametrize("op", ["var", "std"])
def test_r2_22_correction_is_read_as_torch_reads_it(op):
    for c in _CORRECTIONS:
        with case(c=c):
            _r2_22_correction_is_read_as_torch_reads_it(c, op)


def _r2_22_correction_is_read_as_torch_reads_it(c, op):
    se = _check_correction(c, op, None)
    if se is not None:
        assert "correction" in str(se)


def test_r2_22_correction_error_texts():
    x = st.arange(6.)
    with pytest.raises(TypeError, match=r"received an invalid combination of arguments - got \(correction=str"):
        x.var(correction="a")
    with pytest.raises(OverflowError, match="int too big to convert"):
        x.var(correction=2**70)
    with pytest.raises(RuntimeError, match="cannot be converted to type double"):
        x.std(correction=1j)


@given(c=hs.one_of(hs.floats(allow_nan=True, allow_infinity=True), hs.integers(-(2**66), 2**66)),
       op=hs.sampled_from(["var", "std"]), dim=hs.sampled_from([None, 0, 1]))
@SETTINGS
def test_correction_matches_torch_for_random_numbers(c, op, dim):
    _check_correction(c, op, dim)


# =========================================================================== R2-23 arange

_ARANGE_CASES = [
    (0, 1, 1e-320), (0, 1e308, 1e-10), (0, 1e30, 1e10), (1e308, -1e308, -1e292), (-(2**62), 2**62, 1),
    (0, math.inf, 1), (0, math.nan, 1), (math.nan, 1, 1), (0, -math.inf, -1), (0, 10, 0), (0, 10, -0.0),
    (0, 10, math.nan), (0, 10, math.inf), (0, 1, -math.inf), (0, 10, -1), (10, 0, 1), (5, 5, 1),
    (0.5, 0.5, 0.1), (0, 3, 2**62), (0, 1e-300, 1e300),
]


def _arange_outcome(lib: Any, args: tuple) -> tuple[Any, BaseException | None]:
    return outcome(lambda: lib.arange(*args))


@pytest.mark.parametrize("args", _ARANGE_CASES, ids=repr)
def test_r2_23_arange_edges_match_torch(args):
    ours, se = _arange_outcome(st, args)
    theirs, te = _arange_outcome(torch, args)
    _same_class(se, te)
    if te is not None:
        assert str(se).splitlines()[0] == str(te).splitlines()[0]
        assert len(str(se).splitlines()) >= 2  # and then why, in this call's numbers
    else:
        assert ours.tolist() == theirs.tolist() and ours.dtype.name == str(theirs.dtype)[6:]


def test_r2_23_arange_takes_0d_tensors_as_torch():
    assert st.arange(st.tensor(3)).tolist() == torch.arange(torch.tensor(3)).tolist() == [0, 1, 2]
    assert st.arange(st.tensor(0.5), 2).tolist() == torch.arange(torch.tensor(0.5), 2).tolist()
    with pytest.raises(TypeError, match="must be a number"):
        st.arange(st.tensor([3]))


_BOUNDS = hs.one_of(hs.integers(-50, 50), hs.floats(-1e3, 1e3), hs.sampled_from([math.inf, -math.inf, math.nan,
                                                                                  1e308, -1e308]))
_STEPS = hs.one_of(hs.integers(-7, 7), hs.floats(allow_nan=True, allow_infinity=True),
                   hs.sampled_from([1e-320, -1e-320, 0.0, -0.0]))


@given(start=_BOUNDS, end=_BOUNDS, step=_STEPS)
@SETTINGS
def test_arange_matches_torch_for_random_bounds(start, end, step):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            count = (float(end) - float(start)) / float(step)
        except ZeroDivisionError:
            count = math.nan
    # keep the runs small: a finite count of more than 10**5 elements would really be allocated
    assume(not (math.isfinite(count) and 10**5 < count < 2**63))
    ours, se = _arange_outcome(st, (start, end, step))
    theirs, te = _arange_outcome(torch, (start, end, step))
    _same_class(se, te)
    if te is not None:
        assert str(se).splitlines()[0] == str(te).splitlines()[0]
    else:
        assert ours.shape == tuple(theirs.shape)


# =========================================================================== R2-24 bool-likes


def _bool_likes(lib: Any) -> dict[str, Any]:
    """Bool-likes and one-element tensors, built for ``lib`` (torch or strided)."""
    return {
        "bool": True, "np.bool_": np.bool_(True), "0-d bool tensor": lib.tensor(True),
        "0-d bool ndarray": np.array(True), "1-elem bool tensor": lib.tensor([True]),
        "1-elem int tensor": lib.tensor([1]), "0-d int tensor": lib.tensor(1),
        "0-d int ndarray": np.array(1), "1-elem int ndarray": np.array([1]), "0-d float tensor": lib.tensor(1.0),
    }


# Every argument that takes a size, a dim or an index: (name, call(lib, value)).
_SWEEP: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("zeros(v, 2)", lambda m, v: m.zeros(v, 2)),
    ("zeros((v, 2))", lambda m, v: m.zeros((v, 2))),
    ("ones(v)", lambda m, v: m.ones(v)),
    ("empty(v)", lambda m, v: m.empty(v)),
    ("full((v,), 1.)", lambda m, v: m.full((v,), 1.0)),
    ("view(v, 20)", lambda m, v: m.zeros(20).view(v, 20)),
    ("reshape(v, -1)", lambda m, v: m.zeros(4, 5).reshape(v, -1)),
    ("expand(v, 5)", lambda m, v: m.zeros(1, 5).expand(v, 5)),
    ("resize_(v)", lambda m, v: m.zeros(4).resize_(v)),
    ("as_strided((v,), (1,))", lambda m, v: m.zeros(4, 5).as_strided((v,), (1,))),
    ("as_strided((2,), (v,))", lambda m, v: m.zeros(4, 5).as_strided((2,), (v,))),
    ("select(0, v)", lambda m, v: m.zeros(4, 5).select(0, v)),
    ("select(v, 0)", lambda m, v: m.zeros(4, 5).select(v, 0)),
    ("narrow(0, 0, v)", lambda m, v: m.zeros(4, 5).narrow(0, 0, v)),
    ("narrow(v, 0, 1)", lambda m, v: m.zeros(4, 5).narrow(v, 0, 1)),
    ("transpose(v, 0)", lambda m, v: m.zeros(4, 5).transpose(v, 0)),
    ("unsqueeze(v)", lambda m, v: m.zeros(4, 5).unsqueeze(v)),
    ("chunk(v)", lambda m, v: m.zeros(4, 5).chunk(v)),
    ("unfold(0, v, 1)", lambda m, v: m.zeros(4, 5).unfold(0, v, 1)),
    ("unfold(0, 1, v)", lambda m, v: m.zeros(4, 5).unfold(0, 1, v)),
    ("diagonal(v)", lambda m, v: m.zeros(4, 5).diagonal(v)),
    ("flatten(v)", lambda m, v: m.zeros(4, 5).flatten(v)),
    ("movedim(v, 0)", lambda m, v: m.zeros(4, 5).movedim(v, 0)),
    ("size(v)", lambda m, v: m.zeros(4, 5).size(v)),
    ("stride(v)", lambda m, v: m.zeros(4, 5).stride(v)),
    ("t[v:]", lambda m, v: m.zeros(4, 5)[v:]),
    ("t[v]", lambda m, v: m.zeros(4, 5)[v]),
    ("sum(v)", lambda m, v: m.zeros(4, 5).sum(v)),
    ("permute(0, v)", lambda m, v: m.zeros(4, 5).permute(0, v)),
    ("squeeze(v)", lambda m, v: m.zeros(4, 1).squeeze(v)),
    ("split(v)", lambda m, v: m.zeros(4, 5).split(v)),
]

# Where strided deliberately raises where PyTorch does not (or another class): (call, value kinds).
_DELIBERATE = {
    # strided refuses bools of every kind as a dim; PyTorch's dim lists read True (or a bool tensor) as 1
    **{(c, k): "bool as a dim" for c in ("sum(v)", "permute(0, v)", "squeeze(v)")
       for k in ("bool", "0-d bool tensor", "1-elem bool tensor")},
    # PyTorch's dim lists also take 1-element tensors and 0-d NumPy arrays; strided a dim is 0-d
    **{(c, k): "1-element dims" for c in ("sum(v)", "permute(0, v)", "squeeze(v)")
       for k in ("1-elem int tensor", "0-d int ndarray")},
    # PyTorch's split reads split_size with int(): bool and float tensors become sizes; NumPy
    # integers go to split_with_sizes and fail there
    **{("split(v)", k): "split reads int()" for k in ("0-d bool tensor", "1-elem bool tensor", "0-d float tensor",
                                                       "0-d int ndarray")},
}


@pytest.mark.parametrize("name,call", _SWEEP, ids=[n for n, _ in _SWEEP])
def test_size_dim_index_arguments_with_bool_likes(name, call):
    """Each call with every bool-like argument (a bool, a bool tensor, a NumPy bool, ...)."""
    for kind in _bool_likes(torch):
        with case(kind=kind):
            _size_dim_index_argument_with_a_bool_like(name, call, kind)


def _size_dim_index_argument_with_a_bool_like(name, call, kind):
    _, te = outcome(lambda: call(torch, _bool_likes(torch)[kind]))
    _, se = outcome(lambda: call(st, _bool_likes(st)[kind]))
    if (name, kind) in _DELIBERATE:
        assert se is None or isinstance(se, st.StridedError)
        if "bool" in kind and name != "split(v)":
            assert isinstance(se, TypeError), se
        return
    _same_class(se, te)
    if se is not None and "bool" in kind and name not in _OTHER_TEXTS:
        assert "bool" in str(se), se  # the message says what was wrong with the argument


# Calls whose refusal is phrased elsewhere (movedim/permute's dim lists, slicing, reduction dims).
# (split: PyTorch's Tensor.split sends anything but an int to split_with_sizes, whose text names
# the argument's type, "must be tuple of ints, not numpy.ndarray", not bool)
_OTHER_TEXTS = {"movedim(v, 0)", "permute(0, v)", "t[v:]", "sum(v)", "split(v)"}


@pytest.mark.parametrize("call", [
    lambda m, v: m.zeros(v, 2), lambda m, v: m.zeros(4, 5).select(0, v), lambda m, v: m.zeros(1, 5).expand(v, 5),
    lambda m, v: m.zeros(4, 5).narrow(0, v, 1), lambda m, v: m.zeros(4, 5).view(v, -1),
    lambda m, v: m.zeros(4, 5).as_strided((v,), (1,)),
])
def test_r2_24_zero_d_bool_tensor_is_no_size(call):
    with pytest.raises(RuntimeError):
        call(torch, torch.tensor(True))
    with pytest.raises(st.StridedError) as info:
        call(st, st.tensor(True))
    assert isinstance(info.value, RuntimeError)
    text = str(info.value)
    assert "isIntegral" in text and "bool tensor" in text and "int(t)" in text


@pytest.mark.parametrize("call", [
    lambda m, v: m.zeros(4, 5).transpose(v, 0), lambda m, v: m.zeros(4, 5).unsqueeze(v),
    lambda m, v: m.zeros(4, 5).chunk(v), lambda m, v: m.zeros(4, 5).unfold(0, v, 1),
    lambda m, v: m.zeros(4, 5).diagonal(v),
])
def test_r2_24_bool_tensor_is_no_int_argument(call):
    for v in (torch.tensor(True), torch.tensor([1])):
        with pytest.raises(TypeError):
            call(torch, v)
    for v in (st.tensor(True), st.tensor([1])):
        with pytest.raises(st.StridedError) as info:
            call(st, v)
        assert isinstance(info.value, TypeError)
        assert "must be int, not Tensor" in str(info.value)


def test_r2_24_one_element_tensors_are_sizes_as_in_torch():
    for m in (st, torch):
        assert tuple(m.zeros(m.tensor([2]), 3).shape) == (2, 3)
        assert m.zeros(4, 5).select(0, m.tensor([2])).shape[0] == 5
        assert tuple(m.zeros(1, 5).expand(m.tensor(3), 5).shape) == (3, 5)


def test_r2_24_failed_calls_leave_the_tensor_unchanged():
    x = st.arange(20.).view(4, 5)
    before = (x.shape, x.stride(), x.storage_offset(), x.tolist())
    for call in (lambda: x.resize_(st.tensor(True)), lambda: x.select(0, st.tensor(True)),
                 lambda: x.transpose(st.tensor(True), 0)):
        with pytest.raises(st.StridedError):
            call()
        assert (x.shape, x.stride(), x.storage_offset(), x.tolist()) == before


# ---------------------------------------------------------------- found by the second hostile pass


@pytest.mark.parametrize(
    "make",
    [
        lambda m, t: m.tensor([2**63], dtype=t.float32),
        lambda m, t: m.tensor([2**64], dtype=t.float64),
        lambda m, t: m.tensor(2**70, dtype=t.float64),
        lambda m, t: m.tensor([-(2**63) - 1, 1], dtype=t.float32),
        lambda m, t: m.tensor([True, 2**63], dtype=t.float32),
        lambda m, t: m.arange(0, 2**63, 2**60, dtype=t.float32),
    ],
)
def test_ints_beyond_int64_are_read_as_floats_for_a_float_dtype_like_torch(make):
    ours, peer = make(st, st), make(torch, torch)
    assert ours.dtype.name == str(peer.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(ours.numpy(), peer.numpy())


@pytest.mark.parametrize("make", [lambda m: m.tensor([2**63]), lambda m: m.tensor([2**63], dtype=m.int64)])
def test_ints_beyond_int64_are_still_refused_for_integer_data(make):
    with pytest.raises(Exception):  # noqa: B017 - torch's class here is ValueError
        make(torch)
    with pytest.raises(st.StridedError, match="Overflow when unpacking long long"):
        make(st)


@pytest.mark.parametrize(
    "call",
    [lambda: st.zeros(np.float32), lambda: st.ones(3).view(np.int64), lambda: st.ones(3).narrow(0, np.int64, 1),
     lambda: st.ones(3).resize_(np.float32), lambda: st.full(np.int8, 1.0)],
)
def test_a_numpy_scalar_class_as_a_size_is_a_clear_type_error(call):
    with pytest.raises(st.StridedTypeError) as info:
        call()
    assert "not type" in str(info.value) and "the class numpy." in str(info.value)
