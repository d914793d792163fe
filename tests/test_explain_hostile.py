"""Hostile inputs to ``explain``: each case is a bug found by trying to break it, pinned against
what PyTorch 2.13 / NumPy 2.4 really do (the op is run here, the prediction must match)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import strided
from oracle_helpers import case
from strided.diagnose.explain import explain

torch = pytest.importorskip("torch")


def _real_torch(x, op, args, kwargs):
    """(outcome, shape, strides, offset) of really running ``x.op(...)``, or ("error", class)."""
    try:
        r = getattr(x, op)(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the class is the answer
        return ("error", type(exc).__name__)
    same = r.untyped_storage()._cdata == x.untyped_storage()._cdata
    return ("view" if same else "copy", tuple(r.shape), r.stride(), r.storage_offset())


def _predicted(x, op, args, kwargs):
    r = explain(x, op, *args, **kwargs)
    str(r)  # never fails
    if r.outcome == "error":
        return ("error", r.error_class)
    return (r.outcome, r.shape, r.strides, r.offset)


T = torch.arange(24.0).reshape(2, 3, 4)
NC4 = torch.zeros(2, 3, 4, 5).permute(0, 2, 3, 1)
CL = torch.zeros(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)

TORCH_CASES = [
    # to(): PyTorch's own overloads (none, None, device, device+dtype, keywords, a Python type,
    # another tensor, memory_format) and its alias rule (suggest_memory_format)
    (T, "to", (), {}),
    (T, "to", (None,), {}),
    (T, "to", ("cpu", torch.float64), {}),
    (T, "to", (), {"device": "cpu"}),
    (T, "to", (), {"device": "cpu", "dtype": torch.float64}),
    (T, "to", (float,), {}),
    (T, "to", (np.float64,), {}),
    (T, "to", (torch.float64, True, True), {}),
    (T, "to", (torch.float32, False, True), {}),
    (T, "to", (torch.zeros(2, dtype=torch.float32, device="meta"),), {}),
    (T, "to", (torch.float64,), {"memory_format": torch.channels_last}),
    (T.transpose(0, 2), "to", (), {"memory_format": torch.contiguous_format}),
    (NC4, "to", (torch.float64,), {"memory_format": torch.channels_last}),
    (NC4, "to", (), {"memory_format": torch.contiguous_format}),
    (CL, "to", (), {"memory_format": torch.channels_last}),
    (CL, "to", (), {"memory_format": torch.contiguous_format}),
    (torch.zeros(3, 4, device="meta"), "to", ("cpu",), {}),
    (T, "to", ("junk",), {}),
    # PyTorch's keyword names for sizes and dims, squeeze(*dims), contiguous's keyword-only format
    (T, "view", (), {"size": (24,)}),
    (T, "view", (), {"dtype": torch.int32}),
    (T, "reshape", (), {"shape": (24,)}),
    (T.transpose(0, 1), "reshape", (), {"shape": (-1,)}),
    (T, "permute", (), {"dims": (2, 1, 0)}),
    (T, "expand", (), {"size": (2, 3, 4)}),
    (T, "expand", (2, 3, 4), {"implicit": True}),
    (T, "broadcast_to", (), {"size": (5, 2, 3, 4)}),
    (T, "squeeze", (0, 0), {}),
    (T[:1], "squeeze", (0, 1), {}),
    (T, "contiguous", (torch.contiguous_format,), {}),
    (T[:1], "squeeze", (None,), {}),
    (T[:1], "squeeze", (), {"dim": None}),
    # PyTorch's int lists type-check their first element only: a later bool is an int
    (T[:1], "view", (3, 4, True, 2), {}),
    (T, "view", ((2, 12, True),), {}),
    (T, "reshape", (3, False, -1), {}),
    (T, "permute", (2, False, 1), {}),
    (T[:1], "squeeze", (0, True), {}),
    (T, "unflatten", (1, (3, True)), {}),
    (T, "movedim", ((0, True), (1, 2)), {}),
    (T, "as_strided", ((3, True), (1, 1)), {}),
    (T, "view", (True, 24), {}),
    (T, "permute", ((True, 0, 2),), {}),
    (T, "flatten", (0, True), {}),
    # movedim's overloads: (int, int) or (tuple, tuple), never one of each
    (T, "movedim", (0, [1]), {}),
    (T, "movedim", ((0,), 1), {}),
    (T, "movedim", (torch.Size([0]), torch.Size([1])), {}),
    # repeats are found dim by dim, before a later dim's range
    (T, "permute", (-1, 2, 6), {}),
    (T, "permute", (0, 0, 5), {}),
    # a size list nested once too often
    (T, "view", (((4, 6),),), {}),
    (T, "reshape", ([[24]],), {}),
    (T, "expand", (((2, 3, 4),),), {}),
    # lazy conjugate / negative bits: no view to another dtype
    (torch.zeros(3, 4, dtype=torch.complex64).conj(), "view", (torch.float32,), {}),
    (torch.zeros(3, 4, dtype=torch.complex64).conj().imag, "view", (torch.int32,), {}),
    (torch.zeros(3, 4, dtype=torch.complex64).conj(), "view", (torch.complex64,), {}),
]


@pytest.mark.parametrize("x, op, args, kwargs", TORCH_CASES)
def test_torch_prediction_equals_the_run(x, op, args, kwargs):
    assert _predicted(x, op, args, kwargs) == _real_torch(x, op, args, kwargs)


def test_to_bytes_use_the_target_itemsize_with_a_memory_format():
    r = explain(NC4, "to", torch.float64, memory_format=torch.channels_last)
    assert r.outcome == "copy" and r.bytes_copied == 120 * 8


@pytest.mark.parametrize("make", [
    lambda: torch.zeros(3, 4).to_sparse(),
    lambda: torch.zeros(3, 4).to_sparse_csr(),
    lambda: torch.nested.nested_tensor([torch.zeros(2), torch.zeros(3)]),
])
@pytest.mark.parametrize("call", [(), ("view", -1), ("reshape", -1), ("add", 1)])
def test_tensors_without_strides_are_refused_with_type_error(make, call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = make()
    with pytest.raises(TypeError, match=r"explain: x is a (sparse_\w+|nested) tensor; explain reads strided layouts"):
        explain(x, *call)


def test_a_sparse_second_operand_is_refused_with_type_error():
    with pytest.raises(TypeError, match="the second operand is a sparse_coo tensor"):
        explain(torch.zeros(3, 4), "add", torch.zeros(3, 4).to_sparse())


def test_strided_sizes_are_unwrapped_once_as_pytorch_does():
    x = strided.zeros(24)
    for op in ("view", "reshape", "expand"):
        assert getattr(x, op)((24,)).shape == (24,)
        assert getattr(x, op)(torch.Size([24])).shape == (24,)
        for bad in (((24,),), [[24]], (24, (1,))):
            with pytest.raises(TypeError, match=rf"{op}\(\): argument 'size' must be tuple of ints"):
                getattr(x, op)(bad)
        assert explain(x, op, ((24,),)).error_class == "TypeError"


def test_strided_movedim_refuses_an_int_with_a_tuple_as_pytorch_does():
    with pytest.raises(TypeError, match=r"movedim\(\) received an invalid combination of arguments - got \(int, list\)"):
        strided.zeros(2, 3).movedim(0, [1])
    assert strided.zeros(2, 3).movedim((0,), (1,)).shape == (3, 2)


def test_numpy_reads_a_torch_tensor_shape_as_numpy_does():
    # NumPy's IntpConverter asks PySequence_Check: a torch.Tensor is no sequence to it
    x = np.zeros((2, 3, 4))
    with pytest.raises(TypeError) as real:
        np.reshape(x, torch.tensor([4, 6]))
    r = explain(x, "reshape", torch.tensor([4, 6]))
    assert r.outcome == "error" and r.error == f"TypeError: {real.value}"
    assert explain(x, "reshape", np.array([4, 6])).shape == (4, 6)


@pytest.mark.parametrize("x", [np.zeros((3, 4)), torch.zeros(3, 4), strided.zeros(3, 4)])
def test_a_list_operand_is_not_silently_read_as_a_shape(x):
    # np.zeros((3, 4)) + [1, 2, 3, 4] is (3, 4); read as the shape (1, 2, 3, 4) it was (1, 2, 3, 4)
    with pytest.raises(TypeError, match="a list as the second operand is ambiguous"):
        explain(x, "add", [1, 2, 3, 4])
    assert explain(x, "add", np.asarray([1, 2, 3, 4])).shape == (3, 4)
    assert explain(x, "add", (1, 2, 3, 4)).shape == (1, 2, 3, 4)


# ---------------------------------------------------------------- NumPy: huge ints and argument order

X3 = np.zeros((2, 3, 4))
NUMPY_AXIS_CALLS = [
    # (NumPy call, explain call): each reads an axis through another C converter
    (lambda v: np.squeeze(X3, v), lambda v: ("squeeze", v)),
    (lambda v: np.squeeze(X3, (0, v)), lambda v: ("squeeze", (0, v))),
    (lambda v: X3.squeeze(v), lambda v: ("ndarray.squeeze", v)),
    (lambda v: np.expand_dims(X3, v), lambda v: ("expand_dims", v)),
    (lambda v: np.swapaxes(X3, v, 0), lambda v: ("swapaxes", v, 0)),
    (lambda v: np.swapaxes(X3, 0, v), lambda v: ("swapaxes", 0, v)),
    (lambda v: X3.swapaxes(v, 0), lambda v: ("ndarray.swapaxes", v, 0)),
    (lambda v: np.moveaxis(X3, v, 0), lambda v: ("moveaxis", v, 0)),
    (lambda v: np.moveaxis(X3, 0, v), lambda v: ("moveaxis", 0, v)),
    (lambda v: np.transpose(X3, (v, 0, 1)), lambda v: ("transpose", (v, 0, 1))),
    (lambda v: np.transpose(X3, (2, 0, v)), lambda v: ("transpose", (2, 0, v))),
    (lambda v: X3.transpose(v, 0, 1), lambda v: ("ndarray.transpose", v, 0, 1)),
]
HUGE = [2**31, 2**31 - 1, -(2**31), -(2**31) - 1, 2**32 + 2, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**70, -4, 2]


def _real_numpy(call):
    try:
        r = call()
    except Exception as exc:  # noqa: BLE001 - the class and text are the answer
        return (type(exc).__name__, str(exc).splitlines()[0])
    return ("ok", r.shape, tuple(s // r.itemsize for s in r.strides))


def _predicted_numpy(x, call):
    r = explain(x, *call)
    str(r)
    return tuple(r.error.split(": ", 1)) if r.outcome == "error" else ("ok", r.shape, r.strides)


@pytest.mark.parametrize("real, call", NUMPY_AXIS_CALLS)
def test_numpy_huge_axes_raise_what_numpy_raises(real, call):
    for value in HUGE:
        with case(value=value):
            _numpy_huge_axes_raise_what_numpy_raises(real, call, value)


def _numpy_huge_axes_raise_what_numpy_raises(real, call, value):
    # NumPy reads axes as C ints through four converters: OverflowError (two texts), ValueError,
    # or (transpose) a silent wrap to 32 bits; explain predicted AxisError for all of them
    assert _predicted_numpy(X3, call(value)) == _real_numpy(lambda: real(value))


X0 = np.zeros(())


@pytest.mark.parametrize("x, real, call", [
    (X3, lambda: np.copy(X3, np.array([2, 1]), np.array([])), ("copy", np.array([2, 1]), np.array([]))),
    (X3, lambda: np.copy(X3, "F", np.array([1, 2])), ("copy", "F", np.array([1, 2]))),
    (X0, lambda: np.broadcast_to(X0, (4,), np.array([3, 1])), ("broadcast_to", (4,), np.array([3, 1]))),
    (X3, lambda: np.broadcast_to(X3, [-1, 3, "C", 12]), ("broadcast_to", [-1, 3, "C", 12])),
    (X3, lambda: np.broadcast_to(X3, (np.array([1, 2]), 3)), ("broadcast_to", (np.array([1, 2]), 3))),
    (X3, lambda: X3.reshape(2**70, "x"), ("ndarray.reshape", 2**70, "x")),
    (X3, lambda: X3.transpose(2**63, [4]), ("ndarray.transpose", 2**63, [4])),
    (X3, lambda: np.reshape(X3, np.array(24)), ("reshape", np.array(24))),
    (X3, lambda: X3.reshape(np.array(24)), ("ndarray.reshape", np.array(24))),
    (X3, lambda: X3.transpose(np.array(0)), ("ndarray.transpose", np.array(0))),
])
def test_numpy_argument_checks_in_numpy_order(x, real, call):
    # subok's truth value after order (np.copy) or first (broadcast_to); sizes compared with 0
    # lazily; each size range-checked before the next is parsed; a 0-d array is one integer
    assert _predicted_numpy(x, call)[0] == _real_numpy(real)[0]


def test_explain_never_touches_x():
    t = torch.arange(24.0, requires_grad=True).reshape(2, 3, 4).transpose(0, 2)
    n = np.arange(24.0).reshape(2, 3, 4)[:, ::-1].T
    n.flags.writeable = False
    s = strided.arange(24.0).view(2, 3, 4).permute(2, 0, 1)
    before = (t._version, t.stride(), t.storage_offset(), t.detach().clone(), n.flags.writeable, n.strides,
              n.copy(), s.layout, s.numpy().copy())
    calls = [("reshape", -1), ("view", -1), ("clone",), ("contiguous",), ("flatten",), ("ravel",),
             ("expand", 2, 4, 2, 3), ("add", (4, 1, 1)), ()]
    for call in calls:
        for x in (t, s):
            explain(x, *call)
    explain(t, "to", torch.float64, copy=True)
    for call in [("reshape", -1), ("ravel", "K"), ("copy",), ("ascontiguousarray",), ("add", (4, 1, 1)), ()]:
        explain(n, *call)
    after = (t._version, t.stride(), t.storage_offset(), t.detach().clone(), n.flags.writeable, n.strides,
             n.copy(), s.layout, s.numpy().copy())
    assert before[:3] == after[:3] and torch.equal(before[3], after[3])
    assert before[4:6] == after[4:6] and np.array_equal(before[6], after[6])
    assert before[7] == after[7] and np.array_equal(before[8], after[8])
    assert t.requires_grad and t.grad_fn is not None


class _MyTensor(torch.Tensor):
    pass


class _MyArray(np.ndarray):
    pass


def test_subclasses_of_torch_tensor_and_ndarray_are_explained():
    x = torch.zeros(3, 4).as_subclass(_MyTensor)
    assert explain(x.t(), "view", 12).outcome == "error"
    assert explain(x, "view", 12).outcome == "view"
    assert explain(torch.zeros(3, 4), "add", x).shape == (3, 4)
    assert explain(x).shape == (3, 4)
    a = np.zeros((3, 4)).view(_MyArray)
    assert explain(a.T, "reshape", -1).outcome == "copy"
    assert explain(np.zeros(4), "add", a).shape == (3, 4)


@pytest.mark.parametrize("call", [(), ("add", 1), ("reshape", -1)])
def test_numpy_layouts_without_element_strides_are_refused_with_value_error(call):
    # (were: a ZeroDivisionError for a zero itemsize, silently truncated strides for the layout)
    between = np.lib.stride_tricks.as_strided(np.zeros(20), (3,), (12,))
    with pytest.raises(ValueError, match=r"explain counts strides in elements: x's byte strides \(12,\)"):
        explain(between, *call)
    with pytest.raises(ValueError, match=r"explain needs a dtype with a nonzero itemsize, got \[\] for x"):
        explain(np.zeros(3, dtype=[]), *call)
    with pytest.raises(ValueError, match="the second operand's byte strides"):
        explain(np.zeros(3), "add", between)


@pytest.mark.parametrize("x, op, other", [
    (np.zeros(3, np.uint8), "sub", -1),                       # NEP 50: the int must fit the dtype
    (np.zeros((4, 3), np.int32).T, "add", 2**40),
    (np.zeros(3, bool), "sub", np.zeros(4, bool)),            # the dtype refusal wins over the shapes
    (np.zeros((3, 4)), "and_", (4,)),
    (np.zeros((3, 4), np.int8), "or_", 1.5),
    (torch.zeros(3, dtype=torch.bool), "sub", 1j),
    (torch.zeros(3, dtype=torch.bool), "sub", torch.zeros(3, dtype=torch.bool)),
    (torch.zeros(3, dtype=torch.int8), "add", 2**70),
    (torch.zeros(3), "or_", torch.zeros(3, dtype=torch.int8)),
    (torch.zeros(3, dtype=torch.int64), "hypot", torch.zeros(3, dtype=torch.int64)),
    (torch.zeros(3), "remainder", 1j),
])
def test_elementwise_dtype_refusals_are_predicted(x, op, other):
    import operator

    lib = np if isinstance(x, np.ndarray) else torch
    fn = getattr(operator, op, None) or getattr(lib, op)
    operand = np.zeros(other, x.dtype) if isinstance(other, tuple) else other
    with pytest.raises(Exception) as real:  # noqa: PT011 - the class is what is compared
        with np.errstate(all="ignore"):
            fn(x, operand)
    r = explain(x, op, other)
    str(r)
    cls = next(c.__name__ for c in type(real.value).__mro__ if c.__module__ == "builtins")
    assert r.outcome == "error" and r.error == f"{cls}: {str(real.value).splitlines()[0]}"
