"""Making tensors, compared with PyTorch (and NumPy for from_numpy).

tensor(data) copies; from_numpy shares memory; arange/zeros/ones/empty/full
follow PyTorch's dtype defaults; *_like keep the input's dense stride order
(PyTorch's preserve_format).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import build_numpy, build_strided, build_torch, specs
from oracle_helpers import builtin_class, outcome, same_error, stable_id
from strided.creation import borrow_array  # (any strides: from_numpy refuses negative ones, as PyTorch)

DTYPE_NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64"]


def torch_dtype_name(t: torch.Tensor) -> str:
    return str(t.dtype).removeprefix("torch.")


def assert_same(s: st.Tensor, t: torch.Tensor) -> None:
    """Same shape, dtype, strides, offset and values as a torch tensor."""
    assert s.shape == tuple(t.shape)
    assert s.dtype.name == torch_dtype_name(t)
    assert s.stride() == t.stride()
    assert s.storage_offset() == t.storage_offset()
    assert s.tolist() == t.tolist()


# ---------------------------------------------------------------- tensor(data)

DATA = [
    0,
    7,
    -3,
    2.5,
    True,
    False,
    [],
    [1, 2, 3],
    [1.0, 2, 3],
    [True, False],
    [True, 2],
    [True, 2.5],
    [[1, 2], [3, 4]],
    [[1.5], [2.5], [3.5]],
    [[[1, 2, 3]], [[4, 5, 6]]],
    [[], []],
    [[[]]],
    (1, 2),
    ((1.0, 2.0), (3.0, 4.0)),
    [2**40, -(2**40)],
]


@pytest.mark.parametrize("data", DATA, ids=repr)
def test_tensor_from_python_matches_torch(data):
    assert_same(st.tensor(data), torch.tensor(data))


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("data", [[[0, 1, 2], [3, 4, 5]], [1.0, 0.0], 3, [True, False]], ids=stable_id)
def test_tensor_with_dtype_matches_torch(name, data):
    expected = torch.tensor(data, dtype=getattr(torch, name))
    for spelling in (getattr(st, name), name, np.dtype(name)):
        assert_same(st.tensor(data, dtype=spelling), expected)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_tensor_from_numpy_array_keeps_dtype_and_copies(name):
    a = (np.arange(6).reshape(2, 3) % 2).astype(name)
    s = st.tensor(a)
    assert_same(s, torch.tensor(a))
    assert s.base is None and not s.is_view()
    assert not np.shares_memory(s.numpy(), a)
    a[0, 0] = 1 - a[0, 0] if name == "bool" else a[0, 0] + 1
    assert s.tolist()[0][0] != a.tolist()[0][0]


def test_tensor_from_numpy_scalars_and_0d():
    assert_same(st.tensor(np.float64(1.5)), torch.tensor(np.float64(1.5)))
    assert_same(st.tensor(np.array(3, dtype=np.int16)), torch.tensor(np.array(3, dtype=np.int16)))


@given(specs(negative=True))
@settings(max_examples=60, deadline=None)
def test_tensor_from_strided_numpy_copies_in_pytorchs_memory_order(spec):
    """tensor(array) is a dense copy in the array's memory order, PyTorch's strides (its copy
    is from_numpy's clone); an array with a negative stride PyTorch's ValueError, its text."""
    a = build_numpy(spec)
    if any(x < 0 for x in a.strides):
        with pytest.raises(ValueError) as theirs:
            torch.tensor(a)
        with pytest.raises(ValueError) as ours:
            st.tensor(a)
        assert str(ours.value).splitlines()[0] == str(theirs.value)
        return
    s = st.tensor(a)
    assert s.shape == a.shape
    assert s.storage_offset() == 0
    np.testing.assert_array_equal(s.numpy(), a)
    assert not np.shares_memory(s.numpy(), a)
    if all(x >= 0 for x in a.strides) and a.size:  # (an empty one: row-major, see creation._tensor)
        assert s.stride() == torch.tensor(a).stride()


def test_tensor_from_tensor_copies():
    x = st.arange(6).reshape(2, 3)
    y = st.tensor(x.t())
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        expected = torch.tensor(torch.arange(6).reshape(2, 3).t())  # clone().detach(): the memory order kept
    assert y.tolist() == expected.tolist()
    assert y.stride() == expected.stride() == (1, 3) and y.dtype.name == str(expected.dtype).removeprefix("torch.")
    assert not st.shares_memory(x, y)


@pytest.mark.parametrize(
    "data,where",
    [
        ([[1, 2], [3]], "data[1] has length 1, but data[0] has length 2"),
        ([[1], [2, 3]], "data[1] has length 2, but data[0] has length 1"),
        ([1, [2, 3]], "data[1] is a sequence, but data[0] is a number"),
        ([[1, 2], 3], "data[1] is a number, but data[0] is a sequence of length 2"),
        ([[[1]], [2]], "data[1][0] is a number, but data[0][0] is a sequence of length 1"),
        ([[[1, 2], [3, 4]], [[5, 6], [7]]], "data[1][1] has length 1, but data[0][0] has length 2"),
    ],
    ids=repr,
)
def test_tensor_ragged_like_torch(data, where):
    """PyTorch: ValueError for a row of another length, TypeError where a number meets a sequence."""
    text = same_error(lambda: torch.tensor(data), lambda: st.tensor(data))
    assert where in text
    assert "rectangular" in text


@pytest.mark.parametrize("data", ["abc", ["a", "b"], [None], None, [1, None], {"a": 1}, [object()], [b"a"],
                                  [None, "a"], ["a", None], [1.5, "a", None], ["", 1], [[1], ["a"]], [["a"]],
                                  [[1], [None]], [np.str_("a")], [b"a", None]], ids=stable_id)
def test_tensor_non_numeric_errors_as_torchs(data):
    # PyTorch raises TypeError, ValueError ("too many dimensions 'str'": a string as the first leaf)
    # or RuntimeError ("Could not infer dtype of NoneType") by the first item that is not a
    # number; strided's error is of
    # PyTorch's class and also a TypeError (its older class), with its own text naming the dtypes
    with pytest.raises((TypeError, ValueError, RuntimeError)) as peer:
        torch.tensor(data)
    with pytest.raises(TypeError) as info:
        st.tensor(data)
    assert isinstance(info.value, st.StridedError)
    assert isinstance(info.value, type(peer.value)), (info.value, peer.value)
    assert "invalid data type" in str(info.value)
    assert "float32" in str(info.value)


@pytest.mark.parametrize(
    "data,dtype",
    [(300, "uint8"), ([1, 2, -129], "int8"), ([0.5, float("nan")], "int32"), ([2.0**40], "int32"),
     ([-256], "uint8")],
    ids=repr,
)
def test_tensor_out_of_range_for_int_dtype(data, dtype):
    text = same_error(lambda: torch.tensor(data, dtype=getattr(torch, dtype)),
                      lambda: st.tensor(data, dtype=dtype))
    assert dtype in text.splitlines()[1]


@pytest.mark.parametrize("data,dtype", [([-1, 255], "uint8"), ([1e300], "float32"), ([1e6], "float16"),
                                        ([-2.5, 3.9], "int8")], ids=stable_id)
def test_tensor_in_range_or_float_overflow_like_torch(data, dtype):
    assert_same(st.tensor(data, dtype=dtype), torch.tensor(data, dtype=getattr(torch, dtype)))


def test_tensor_complex_infers_like_torch():
    # complex is supported since issue 12: Python complex -> complex64, NumPy keeps its dtype
    assert st.tensor([1 + 2j]).dtype is st.dtypes.complex64
    assert st.tensor(np.array([1 + 2j])).dtype is st.dtypes.complex128
    assert torch.tensor([1 + 2j]).dtype is torch.complex64


@pytest.mark.parametrize("dtype", ["float128", "complex256", "int128", "str", object, 5])
def test_unknown_dtype_is_type_error_naming_supported(dtype):
    with pytest.raises(TypeError) as info:
        st.zeros(2, dtype=dtype)
    assert "float32" in str(info.value) and "int64" in str(info.value)


# ---------------------------------------------------------------- from_numpy


@given(specs(negative=True))
@settings(max_examples=150, deadline=None)
def test_from_numpy_zero_copy_any_strides(spec):
    a = build_numpy(spec)
    if any(x < 0 for x in a.strides):  # (PyTorch's ValueError; strided's own wrap takes them)
        with pytest.raises(ValueError, match="negative"):
            st.from_numpy(a)
    s = borrow_array(a, "from_numpy")
    assert s.shape == a.shape
    assert s.stride() == tuple(x // a.itemsize for x in a.strides)
    assert s.dtype is st.int64
    np.testing.assert_array_equal(s.numpy(), a)
    if a.size:
        assert s.data_ptr() == a.__array_interface__["data"][0]
        assert np.shares_memory(s.numpy(), a)
        assert s.untyped_storage().nbytes() <= a.base.nbytes
    assert s.untyped_storage().resizable() is False
    assert s.base is None


@given(specs(negative=True))
@settings(max_examples=80, deadline=None)
def test_from_numpy_writes_show_both_ways(spec):
    a = build_numpy(spec)
    if a.size == 0 or any(n > 1 and x == 0 for n, x in zip(a.shape, a.strides)):
        return
    s = borrow_array(a, "from_numpy")  # (negative strides too: strided's own wrap)
    idx = tuple(n - 1 for n in a.shape)
    a[idx] = -100
    assert s.numpy()[idx] == -100
    assert s[idx].item() == -100
    s[idx] = -200
    assert a[idx] == -200
    s.fill_(-7)
    assert (a == -7).all()


def test_from_numpy_torch_agrees_for_positive_strides():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4).transpose(2, 0, 1)[1:, :, ::2]
    s = st.from_numpy(a)
    t = torch.from_numpy(a)
    assert s.stride() == t.stride()
    assert s.data_ptr() == t.data_ptr()
    assert s.tolist() == t.tolist()


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_from_numpy_every_dtype(name):
    a = np.zeros((2, 3), dtype=name)
    s = st.from_numpy(a)
    assert s.dtype.name == torch_dtype_name(torch.from_numpy(a)) == name
    assert s.element_size() == a.itemsize
    s[1, 2] = 1
    assert a[1, 2] == 1


def test_from_numpy_zero_size_and_0d():
    for a in (np.zeros((0, 3)), np.zeros((3, 0))[::-1], np.array(5.0)):
        s = st.from_numpy(a)
        t = torch.from_numpy(a.copy())
        assert s.shape == tuple(t.shape)
        assert s.tolist() == t.tolist()
        assert not s.untyped_storage().resizable()
    a = np.array(5.0)
    s = st.from_numpy(a)
    s.fill_(6)
    assert a == 6.0


@pytest.mark.parametrize("dtype", [np.clongdouble, np.float128, np.int8(0).dtype.newbyteorder("S").str[:1] + "U3", "U3",
                                   object])
def test_from_numpy_unsupported_dtype_is_type_error(dtype):
    a = np.zeros(3, dtype=dtype)
    with pytest.raises(TypeError) as info:
        st.from_numpy(a)
    assert isinstance(info.value, st.StridedError)
    assert "can't convert np.ndarray of type" in str(info.value)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.uint16, np.uint32, np.uint64])
def test_from_numpy_complex_and_wide_unsigned_like_torch(dtype):
    # supported since issue 12, as torch.from_numpy takes them: memory shared, dtype kept
    a = np.arange(3).astype(dtype)
    t = st.from_numpy(a)
    ref = torch.from_numpy(a)
    assert t.dtype.name == str(ref.dtype).removeprefix("torch.")
    a[1] = 7
    assert t.tolist() == ref.tolist() == a.tolist()


def test_from_numpy_strides_not_multiple_of_itemsize():
    a = np.lib.stride_tricks.as_strided(np.zeros(10, np.int16), shape=(3,), strides=(3,))
    text = same_error(lambda: torch.from_numpy(a), lambda: st.from_numpy(a))
    assert "strided.tensor(array)" in text


@pytest.mark.parametrize("dtype", [torch.float64, torch.int16, torch.bool])
def test_tensor_from_array_like_keeps_dtype(dtype):
    src = torch.tensor([[1, 0], [0, 1]], dtype=dtype).t()
    s = st.tensor(src)
    assert s.dtype.name == str(dtype).removeprefix("torch.")
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        want = torch.tensor(src)
    assert s.tolist() == src.tolist() and s.stride() == want.stride() == (1, 2)


def test_from_numpy_needs_an_array():
    with pytest.raises(TypeError, match="expected np.ndarray"):
        torch.from_numpy([1, 2])
    with pytest.raises(TypeError, match="expected np.ndarray"):
        st.from_numpy([1, 2])


def test_from_numpy_read_only_refuses_writes():
    a = np.arange(4.0)
    a.flags.writeable = False
    before = a.copy()
    s = st.from_numpy(a)
    with pytest.raises(RuntimeError, match="read-only"):
        s.fill_(1)
    np.testing.assert_array_equal(a, before)


def test_from_numpy_storage_not_resizable():
    a = np.arange(4.0)
    s = st.from_numpy(a)
    t0 = torch.from_numpy(np.arange(4.0))
    assert s.untyped_storage().resizable() == torch.from_numpy(a).untyped_storage().resizable() is False
    assert st.zeros(2).untyped_storage().resizable() == torch.zeros(2).untyped_storage().resizable() is True
    with pytest.raises(RuntimeError) as t_info:
        t0.resize_(10)
    with pytest.raises(RuntimeError) as info:
        s.resize_(10)
    assert str(info.value).splitlines()[0] == str(t_info.value).splitlines()[0]
    assert str(info.value).startswith("Trying to resize storage that is not resizable")
    # Note: torch 2.13 sets the new sizes before its storage check fails (t0.shape is now (10,));
    # strided leaves the tensor as it was: still the NumPy array's own view.
    assert s.shape == a.shape and s.tolist() == a.tolist()
    # shrinking needs no reallocation, so PyTorch allows it even for borrowed memory
    t = torch.from_numpy(np.arange(4.0))
    t.resize_(2)
    s.resize_(2)
    assert s.shape == tuple(t.shape) and s.tolist() == t.tolist()


# ---------------------------------------------------------------- arange

ARANGE_ARGS = [
    (5,),
    (0,),
    (1.5,),
    (2, 9),
    (2, 9, 3),
    (9, 2, -3),
    (9, 2, -1),
    (0, 1, 0.1),
    (1, 2.5, 0.5),
    (-3, 3, 0.7),
    (10, 0, -2.5),
    (3, 3),
    (3, 3, -1),
    (0.0, 1.0, 0.3),
    (-5, -1),
    (0, 10, 4),
    (1e3, 1e3 + 5),
]


@pytest.mark.parametrize("args", ARANGE_ARGS, ids=repr)
def test_arange_matches_torch(args):
    t = torch.arange(*args)
    s = st.arange(*args)
    assert s.dtype.name == torch_dtype_name(t)
    assert s.shape == tuple(t.shape)
    np.testing.assert_allclose(s.numpy(), t.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", [n for n in DTYPE_NAMES if n != "bool"])
def test_arange_dtype(name):
    t = torch.arange(0, 10, 3, dtype=getattr(torch, name))
    s = st.arange(0, 10, 3, dtype=name)
    assert_same(s, t)


@given(
    hs.integers(-20, 20),
    hs.integers(-20, 20),
    hs.integers(-7, 7).filter(bool),
)
@settings(max_examples=150, deadline=None)
def test_arange_ints_fuzz(start, end, step):
    t = torch_arange_or_same_refusal(start, end, step)
    if t is not None:
        assert_same(st.arange(start, end, step), t)


def torch_arange_or_same_refusal(start, end, step):
    """torch.arange(start, end, step), or None after checking that strided refuses it too."""
    try:
        return torch.arange(start, end, step)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            st.arange(start, end, step)
        return None


@given(
    hs.floats(-10, 10, allow_nan=False).map(lambda x: round(x, 2)),
    hs.floats(-10, 10, allow_nan=False).map(lambda x: round(x, 2)),
    hs.sampled_from([0.25, 0.5, 1.0, 1.5, -0.25, -0.5, -1.0, -2.0, 0.3, -0.7]),
)
@settings(max_examples=150, deadline=None)
def test_arange_floats_fuzz(start, end, step):
    t = torch_arange_or_same_refusal(start, end, step)
    if t is None:
        return
    s = st.arange(start, end, step)
    assert s.dtype is st.float32
    assert s.shape == tuple(t.shape)
    np.testing.assert_allclose(s.numpy(), t.numpy(), rtol=1e-5, atol=1e-5)


def test_arange_step_zero():
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        torch.arange(0, 5, 0)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        st.arange(0, 5, 0)


@pytest.mark.parametrize("args", [(0, 5, -1), (5, 0, 1), (0.0, -1.0, 0.5), (-1,)], ids=stable_id)
def test_arange_wrong_sign(args):
    text = same_error(lambda: torch.arange(*args), lambda: st.arange(*args))
    assert "flip the sign" in text


@pytest.mark.parametrize("args", [(math.inf,), (0, math.nan), (0, math.inf, 1)], ids=stable_id)
def test_arange_non_finite(args):
    with pytest.raises(RuntimeError):
        torch.arange(*args)
    with pytest.raises(RuntimeError):
        st.arange(*args)


def test_arange_bool_not_implemented():
    same_error(lambda: torch.arange(5, dtype=torch.bool), lambda: st.arange(5, dtype="bool"))


@pytest.mark.parametrize("args", [("3",), (None,), (0, [5])], ids=stable_id)
def test_arange_non_number_is_type_error(args):
    with pytest.raises(TypeError):
        torch.arange(*args)
    with pytest.raises(TypeError):
        st.arange(*args)


# ---------------------------------------------------------------- zeros / ones / empty / full

SIZES = [(), (0,), (3,), (2, 3), (2, 0, 4), (1, 1, 1), (2, 3, 4, 5)]


@pytest.mark.parametrize("shape", SIZES, ids=repr)
@pytest.mark.parametrize("op", ["zeros", "ones", "empty"])
def test_factories_sizes_as_ints_or_tuple(op, shape):
    t = getattr(torch, op)(shape)
    calls = [getattr(st, op)(shape), getattr(st, op)(list(shape))] + ([getattr(st, op)(*shape)] if shape else [])
    for s in calls:
        assert s.shape == tuple(t.shape)
        assert s.stride() == t.stride()
        assert s.dtype is st.float32
        assert s.is_contiguous()
        assert s.untyped_storage().nbytes() == t.untyped_storage().nbytes()
        if op != "empty":
            assert s.tolist() == t.tolist()


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", ["zeros", "ones", "empty"])
def test_factories_dtype_spellings(op, name):
    t = getattr(torch, op)(2, 3, dtype=getattr(torch, name))
    for spelling in (getattr(st, name), name, np.dtype(name), np.dtype(name).type):
        s = getattr(st, op)(2, 3, dtype=spelling)
        assert s.dtype is getattr(st, name)
        assert s.element_size() == t.element_size()
        assert s.nbytes == t.nbytes
        if op != "empty":
            assert s.tolist() == t.tolist()


def test_bool_alias():
    assert st.bool is st.bool_
    for py in (bool, float, int):
        assert st.zeros(2, dtype=py).dtype.name == torch_dtype_name(torch.zeros(2, dtype=py))


@pytest.mark.parametrize(
    "value,dtype",
    [(3, None), (2.5, None), (True, None), (False, None), (7, "float64"), (1.5, "int32"), (1, "bool"),
     (300, "uint8"), (-1, "uint8"), (0.1, "float16")],
    ids=repr,
)
def test_full_matches_torch(value, dtype):
    kw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    try:
        t = torch.full((2, 3), value, **kw)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            st.full((2, 3), value, dtype=dtype)
        return
    s = st.full((2, 3), value, dtype=dtype)
    assert_same(s, t)
    assert_same(st.full([4], value, dtype=dtype), torch.full([4], value, **kw))
    assert_same(st.full((), value, dtype=dtype), torch.full((), value, **kw))


@pytest.mark.parametrize("op", ["zeros", "ones", "empty"])
def test_factories_negative_size(op):
    # torch.zeros says "zeros: Dimension size must be non-negative."; torch.empty names the dim
    same_error(lambda: getattr(torch, op)(2, -1), lambda: getattr(st, op)(2, -1), first_line=False)
    with pytest.raises(RuntimeError, match="Trying to create tensor with negative dimension -1"):
        getattr(st, op)(2, -1)


@pytest.mark.parametrize(
    "peer,ours,details",
    [
        (lambda: torch.zeros(2, -1), lambda: st.zeros(2, -1), ["size[1] is -1", "0 or more"]),
        (lambda: torch.arange(0, 5, -1), lambda: st.arange(0, 5, -1), ["arange(0, 5, 1)"]),
        (lambda: torch.arange(0, math.inf), lambda: st.arange(0, math.inf), ["finite"]),
        (lambda: torch.arange("3"), lambda: st.arange("3"), ["end='3'", "strided.arange(0, 10, 2)"]),
        (lambda: torch.full((2,), "x"), lambda: st.full((2,), "x"), ["'x'", "t.item()"]),
        (lambda: torch.full_like(torch.zeros(2), None), lambda: st.full_like(st.zeros(2), None), ["full_like writes one number"]),
        (lambda: torch.from_numpy([1, 2]), lambda: st.from_numpy([1, 2]), ["strided.tensor(data)"]),
        (lambda: torch.tensor([1 + 2j], dtype=torch.float32), lambda: st.tensor([1 + 2j], dtype="float32"), ["complex128", "a.real"]),
    ],
)
def test_creation_errors_explain_themselves(peer, ours, details):
    """The peer's class, then detail lines with the caller's own numbers and a fix that exists."""
    _, te = outcome(peer)
    _, se = outcome(ours)
    assert te is not None and isinstance(se, st.StridedError) and isinstance(se, builtin_class(te)), (te, se)
    first, *rest = str(se).splitlines()
    detail = "\n".join(rest)
    for text in details:
        assert text in detail, f"{text!r} not in:\n{se}"


@pytest.mark.parametrize("op", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("bad", [(2.5,), ("3",), (2, None), ((2, 3), 4)], ids=stable_id)
def test_factories_bad_size_type(op, bad):
    with pytest.raises(TypeError):
        getattr(torch, op)(*bad)
    with pytest.raises(TypeError) as info:
        getattr(st, op)(*bad)
    assert "size" in str(info.value)


@pytest.mark.parametrize("value", ["x", None, [1]], ids=stable_id)
def test_full_bad_fill_value_is_type_error(value):
    same_error(lambda: torch.full((2,), value), lambda: st.full((2,), value), first_line=False)
    same_error(lambda: torch.full((2,), value, dtype=torch.float64),
               lambda: st.full((2,), value, dtype="float64"), first_line=False)


@pytest.mark.parametrize("size", [0, 3, 2.0, st.tensor(2)], ids=stable_id)
def test_full_size_is_a_sequence_as_torchs(size):
    """full() takes no varargs sizes: PyTorch's TypeError for a bare int, with the tuple fix."""
    peer_size = torch.tensor(2) if isinstance(size, st.Tensor) else size
    text = same_error(lambda: torch.full(peer_size, 1.0), lambda: st.full(size, 1.0), first_line=False)
    assert text.startswith("full(): argument 'size' (position 1) must be tuple of ints, not ")
    assert "fix: pass the size as a tuple, full((" in text
    assert st.full([2], 1.0).shape == st.full(st.Size([2]), 1.0).shape == (2,)


FILL_VALUES = [-1, -255, -256, 255, 256, -1.0, -0.5, 255.9, 127.5, -128.9, 1e10, 2**31, 2**63 - 1, -(2**63),
               1e20, math.inf, -math.inf, math.nan, 3.4e38, 3.5e38, 1e300, 65520.0, True, False, 0.9999]


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_fill_value_overflow_like_torch(name):
    """PyTorch's c10::overflows: which Python numbers each dtype refuses in full() / fill_()."""
    for value in FILL_VALUES:
        try:
            expected = torch.full((2,), value, dtype=getattr(torch, name))
        except RuntimeError:
            text = same_error(lambda v=value: torch.full((2,), v, dtype=getattr(torch, name)),
                              lambda v=value: st.full((2,), v, dtype=name))
            assert "fix:" in text
            s = st.zeros(2, dtype=name)
            same_error(lambda v=value: torch.zeros(2, dtype=getattr(torch, name)).fill_(v),
                       lambda v=value, s=s: s.fill_(v))
            assert s.tolist() == [0, 0]
            continue
        got = st.full((2,), value, dtype=name)
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
        np.testing.assert_array_equal(st.zeros(2, dtype=name).fill_(value).numpy(), expected.numpy())


# ---------------------------------------------------------------- *_like


@given(specs(min_dims=0, max_dims=4))
@settings(max_examples=150, deadline=None)
def test_like_follow_preserve_format(spec):
    t = build_torch(spec)
    s = build_strided(spec)
    for op in ("empty_like", "zeros_like", "ones_like"):
        tl = getattr(torch, op)(t)
        sl = getattr(st, op)(s)
        assert sl.shape == tuple(tl.shape)
        assert sl.stride() == tl.stride(), (op, spec)
        assert sl.dtype is s.dtype
        assert sl.storage_offset() == 0
        assert sl.base is None
        assert not st.shares_memory(sl, s) or s.numel() == 0
        assert sl.untyped_storage().nbytes() == tl.untyped_storage().nbytes()
        if op != "empty_like":
            assert sl.tolist() == tl.tolist()
    with pytest.raises(TypeError, match="full_like"):
        st.full_like(s, "x")
    assert st.full_like(s, 3).stride() == torch.full_like(t, 3).stride()
    assert st.full_like(s, 3).tolist() == torch.full_like(t, 3).tolist()


@pytest.mark.parametrize(
    "make",
    [
        lambda x: x.permute(2, 0, 1),
        lambda x: x.transpose(0, 2),
        lambda x: x[:, :, ::2],
        lambda x: x[:, :1].expand(2, 3, 4),
        lambda x: x.permute(1, 2, 0)[::2],
        lambda x: x.unsqueeze(1).expand(2, 5, 3, 4),
        lambda x: x.unsqueeze(0).permute(3, 1, 0, 2),
    ],
)
@pytest.mark.parametrize("fmt", ["preserve_format", "contiguous_format"])
def test_like_named_cases(make, fmt):
    t = make(torch.arange(24).reshape(2, 3, 4))
    s = make(st.arange(24).reshape(2, 3, 4))
    tl = torch.empty_like(t, memory_format=getattr(torch, fmt))
    sl = st.empty_like(s, memory_format=getattr(st, fmt))
    assert sl.stride() == tl.stride()
    tl = torch.zeros_like(t, dtype=torch.float16, memory_format=getattr(torch, fmt))
    sl = st.zeros_like(s, dtype="float16", memory_format=getattr(st, fmt))
    assert sl.stride() == tl.stride()
    assert sl.dtype is st.float16


def test_like_channels_last():
    t = torch.zeros(2, 3, 4, 5)
    s = st.zeros(2, 3, 4, 5)
    assert (
        st.empty_like(s, memory_format=st.channels_last).stride()
        == torch.empty_like(t, memory_format=torch.channels_last).stride()
    )


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_like_dtype(name):
    s = st.ones_like(st.zeros(2, 2), dtype=name)
    t = torch.ones_like(torch.zeros(2, 2), dtype=getattr(torch, name))
    assert_same(s, t)


@pytest.mark.parametrize(
    "data",
    [[1, 2**63], 2**63, [2**64], [1, -(2**63) - 1], [[1.5, 2**70]], [2**70, 1.5], [[1, 2], [3, 2**63]]],
)
def test_regression_python_ints_beyond_int64_like_torch(data):
    # NumPy silently widens such data to float64 (or objects); PyTorch refuses all-integer data
    # with ValueError and reads the ints as floats when a float is present.
    try:
        expected = torch.tensor(data)
    except Exception as err:  # noqa: BLE001 - the class is what we compare
        with pytest.raises(type(err)) as info:
            st.tensor(data)
        assert isinstance(info.value, st.StridedError)
        assert str(info.value).splitlines()[0] == str(err).splitlines()[0]
        return
    got = st.tensor(data)
    assert got.dtype.name == str(expected.dtype).removeprefix("torch.")
    assert got.tolist() == expected.tolist()


# ---------------------------------------------------------------------- tensor() of sequences holding NumPy scalars and tensors

_NP_LEAVES = (np.float64, np.float32, np.float16, np.int64, np.int32, np.int8, np.uint8, np.bool_, np.complex128)
_TORCH_LEAF_DTYPES = (torch.float64, torch.float32, torch.int32, torch.int64, torch.bool, torch.bfloat16)
_KINDS = ["py-float", "py-int", "py-bool"] + [f"np-{i}" for i in range(len(_NP_LEAVES))] + \
    [f"t-{i}" for i in range(len(_TORCH_LEAF_DTYPES))]


def _leaf(kind: str, value: int, shape: tuple) -> tuple:
    """One leaf for each library: (torch's, strided's); a tensor leaf of ``shape`` (one element)."""
    if kind == "py-float":
        return value + 0.5, value + 0.5
    if kind == "py-int":
        return value, value
    if kind == "py-bool":
        return bool(value % 2), bool(value % 2)
    if kind.startswith("np-"):
        make = _NP_LEAVES[int(kind[3:])]
        x = make(value % 2) if make is np.bool_ else make(value)
        return x, x
    dtype = _TORCH_LEAF_DTYPES[int(kind[2:])]
    t = torch.tensor(value % 2 if dtype is torch.bool else value, dtype=dtype).reshape(shape)
    return t, st.tensor(t)


def _same_result(ours: object, theirs: object, case: object) -> None:
    (got, s_exc), (want, t_exc) = outcome(ours), outcome(theirs)  # type: ignore[arg-type]
    if t_exc is not None or s_exc is not None:
        assert t_exc is not None and s_exc is not None, (case, s_exc, t_exc)
        assert isinstance(s_exc, type(t_exc)) and str(s_exc).splitlines()[0] == str(t_exc), (case, s_exc, t_exc)
        return
    assert got.dtype.name == str(want.dtype).removeprefix("torch."), (case, got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape), (case, got.shape, want.shape)
    assert got.tolist() == want.tolist(), case


@settings(max_examples=60, deadline=None)
@given(hs.lists(hs.tuples(hs.sampled_from(_KINDS), hs.integers(0, 5), hs.sampled_from([(), (1,), (1, 1)])),
                min_size=1, max_size=4), hs.booleans())
def test_tensor_of_mixed_leaves_infers_pytorchs_dtype_and_shape(leaves: list, nested: bool) -> None:
    """PyTorch's rule for a sequence: each Python float counts as the default float dtype, int as
    int64, bool as bool; a NumPy scalar and a tensor as their own dtype; all promoted together
    (``tensor([np.float64(1.5), 2])`` is float64, not float32); a tensor inside a sequence is read
    as its one number, whatever its dims (``tensor([tensor([2.5]), tensor([1.])])`` is (2,))."""
    pairs = [_leaf(*x) for x in leaves]
    theirs, ours = [a for a, _ in pairs], [b for _, b in pairs]
    if nested:
        theirs, ours = [theirs, theirs], [ours, ours]
    _same_result(lambda: st.tensor(ours), lambda: torch.tensor(theirs), leaves)


@pytest.mark.parametrize("case", range(9))
def test_tensor_of_pinned_mixed_sequences(case: int) -> None:
    def make(lib: object, f64: object) -> object:
        T = lib.tensor  # type: ignore[attr-defined]
        return [[np.float64(1.5), 2], [1.5, np.float64(2)], [[1, np.int8(2)]], (np.float32(1), 2.5),
                [np.float16(1.5)], [T([2.5]), T([1.0])], [T([[2.5]]), T(1.0, dtype=f64)],
                [T([2.5, 1.0]), T([1.0, 3.0])], [np.array([1.5]), np.array([2.0])]][case]

    _same_result(lambda: st.tensor(make(st, st.float64)), lambda: torch.tensor(make(torch, torch.float64)), case)


@pytest.mark.parametrize("data", [[True, 1], [True, False], [[True], [False]], [True, 1.5], [True, -1, 2**63],
                                  [True, 2**63], [[1, 2], [True, False]], [False, 2**62], [1, True, 2.5], [],
                                  (1.5, 2.5), (1, 2), (True, False), (), ([1.0, 2.0], [3.0, 4.0]),
                                  ((1.0, 2.0), (3.0, 4.0)), ([],), (1, 2.5), (2**63,), (1.5, 2**70), ([1, 2], [3])])
def test_tensor_of_python_bools_among_numbers(data: list) -> None:
    """The fast path takes bools alone (bool) and bools first among ints (int64), from a list or a
    top-level tuple; everything else goes the general way: each as PyTorch reads it."""
    _same_result(lambda: st.tensor(data), lambda: torch.tensor(data), data)


def test_a_tensor_of_many_elements_inside_a_sequence_is_refused_with_a_fix() -> None:
    text = same_error(lambda: torch.tensor([torch.ones(2), torch.ones(2)]), lambda: st.tensor([st.ones(2), st.ones(2)]))
    assert "shape (2,) inside a list" in text and "fix: stack them" in text


_NO_SIZE_CALLS = [  # (the call's positional arguments and keywords, torch's names standing for both libraries')
    ("zeros", (), {}), ("ones", (), {}), ("empty", (), {}), ("rand", (), {}), ("randn", (), {}),
    ("zeros", (), {"dtype": "int64"}), ("ones", (), {"requires_grad": True}), ("empty", (), {"dtype": "float64"}),
    ("zeros", (), {"out": "out"}), ("ones", (), {"out": "out"}),
    ("full", (), {}), ("full", (2.0,), {}), ("full", (2,), {}), ("full", ((2,),), {}), ("full", ((),), {}),
    ("full", ([],), {}), ("full", (), {"size": (2,)}), ("full", (), {"fill_value": 1}),
    ("full", ((2,),), {"out": "out"}), ("full", (), {"size": (), "fill_value": 2.5}),
    ("full", ((),), {"fill_value": 3}), ("full", ([], 2.0), {}),
] + [(name, args, kw) for name in ("zeros", "ones", "empty", "rand", "randn")
     for args, kw in ((((),), {}), (([],), {}), ((), {"size": ()}), ((), {"size": []}), (((),), {"dtype": "float64"}))]


@pytest.mark.parametrize(("factory", "args", "kwargs"), _NO_SIZE_CALLS, ids=stable_id)
def test_factories_with_no_size_or_an_empty_one_as_pytorch(factory: str, args: tuple, kwargs: dict) -> None:
    """zeros()/ones()/empty()/rand()/randn() with no sizes at all are PyTorch's TypeError (no longer
    a 0-d tensor: that is zeros(()), zeros([]) or zeros(size=())); full's missing size or fill value
    are its TypeErrors with its texts, in its order. An empty size is a 0-d tensor in all of them."""
    def call(lib: Any) -> Any:
        kw = {k: (lib.empty(0) if v == "out" else getattr(lib, v) if k == "dtype" else v) for k, v in kwargs.items()}
        return getattr(lib, factory)(*args, **kw)

    try:
        want = call(torch)
    except TypeError:
        text = same_error(lambda: call(torch), lambda: call(st))
        assert len(text.splitlines()) > 1  # (a line saying how to fix the call)
        return
    got = call(st)
    assert (got.shape, got.stride(), str(got.dtype).split(".")[-1]) == (tuple(want.shape), want.stride(), str(want.dtype).split(".")[-1])
    if factory not in ("empty", "rand", "randn"):
        assert got.tolist() == want.tolist()


@pytest.mark.parametrize("method", ["new_zeros", "new_ones", "new_empty"])
def test_new_factories_with_no_sizes_as_pytorch(method: str) -> None:
    """t.new_zeros() with no sizes is PyTorch's TypeError too; t.new_zeros(()) a 0-d tensor."""
    same_error(lambda: getattr(torch.ones(2), method)(), lambda: getattr(st.ones(2), method)())
    assert getattr(st.ones(2), method)(()).shape == () == tuple(getattr(torch.ones(2), method)(()).shape)
