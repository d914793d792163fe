"""Red-team findings on the ``followups`` merge, each checked against PyTorch 2.13 bit for bit:
``torch.div(number, t)`` divides once (only ``number / t`` is reciprocal times number); the trunc
kernel takes a 0-d operand of another integer dtype; a non-str ``rounding_mode`` is a TypeError;
the joins' and the (values, indices) ops' out= are resized before their overlap checks (an
expanded out of another shape is written, an empty view that the result would cover is
refused); a refused pair out= leaves both tensors untouched."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided as st
from oracle_helpers import same_error

FLOATS = ["float32", "float64", "float16", "int32", "bool"]


def _bits(s: st.Tensor, t: torch.Tensor) -> None:
    """The same shape, strides, dtype and bits (a float's sign of zero included)."""
    assert s.shape == tuple(t.shape) and s.stride() == t.stride()
    assert s.dtype.name == str(t.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(s.numpy().view(np.uint8), t.numpy().view(np.uint8))


@pytest.mark.parametrize("dtype", FLOATS)
def test_div_of_a_number_by_a_tensor_divides_once(dtype):
    # torch.div(2.5, t) wraps 2.5 into a tensor: 2.5f / 3f is 0.8333333, reciprocal(3f) * 2.5f 0.8333334
    values = [3, 7, 1, 0] if dtype != "bool" else [True, False, True, True]
    t = torch.tensor(values, dtype=getattr(torch, dtype))
    s = st.tensor(values, dtype=getattr(st, dtype))
    for number in (2.5, -3, True, 0.1, np.float32(2.5), np.int64(3)):
        _bits(st.div(number, s), torch.div(number, t))
        _bits(st.true_divide(number, s), torch.true_divide(number, t))
        _bits(number / s, number / t)  # (the reflected dunder stays reciprocal(t) * number)
        _bits(st.div(number, s, out=st.empty(0, dtype=st.float64)),
              torch.div(number, t, out=torch.empty(0, dtype=torch.float64)))


def test_div_of_a_number_by_a_tensor_records_pytorchs_gradient():
    t = torch.tensor([3.0, 7.0, -0.5], requires_grad=True)
    s = st.tensor([3.0, 7.0, -0.5], requires_grad=True)
    yt, ys = torch.div(2.5, t), st.div(2.5, s)
    yt.sum().backward()
    ys.sum().backward()
    _bits(ys.detach(), yt.detach())
    _bits(s.grad, t.grad)
    assert ys.grad_fn.name() == yt.grad_fn.name() == "DivBackward0"


@pytest.mark.parametrize("mode", ["trunc", "floor"])
@pytest.mark.parametrize("other", ["int8", "int16", "int64"])
def test_div_rounded_uint8_by_a_0d_tensor_of_another_integer_dtype(mode, other):
    # the 0-d operand is cast into the compute dtype (uint8) first, as for every other kernel
    a = [200, 7, 0, 255, 9]
    for b in (-3, 3, 2):
        t = torch.div(torch.tensor(a, dtype=torch.uint8), torch.tensor(b, dtype=getattr(torch, other)), rounding_mode=mode)
        s = st.div(st.tensor(a, dtype=st.uint8), st.tensor(b, dtype=getattr(st, other)), rounding_mode=mode)
        _bits(s, t)
        x = st.tensor(a, dtype=st.uint8)
        x.div_(st.tensor(b, dtype=getattr(st, other)), rounding_mode=mode)
        _bits(x, t)


def test_div_rounding_mode_of_another_type_is_a_type_error():
    for call in (lambda L: L.div(L.ones(2), 2, rounding_mode=1), lambda L: L.ones(2).div_(2, rounding_mode=1.5)):
        with pytest.raises(TypeError):
            call(torch)
        with pytest.raises(st.StridedError) as info:
            call(st)
        assert isinstance(info.value, TypeError)
        assert "rounding_mode" in str(info.value)


JOINS = ["cat", "concat", "concatenate", "stack", "hstack", "vstack", "row_stack", "dstack", "column_stack"]


@pytest.mark.parametrize("name", JOINS)
def test_join_out_that_its_resize_lays_over_an_input_is_refused(name):
    # out: an empty view of a's memory; PyTorch resizes it over a's six elements, then refuses
    def call(L):
        a = L.tensor([[5.0, -7.0, 0.0], [-0.0, 3.0, -1.0]])
        getattr(L, name)([a[1], a[0]], out=a.reshape(-1)[:0])

    same_error(lambda: call(torch), lambda: call(st))
    a = st.tensor([[5.0, -7.0, 0.0], [-0.0, 3.0, -1.0]])
    with pytest.raises(RuntimeError):
        getattr(st, name)([a[1], a[0]], out=a.reshape(-1)[:0])
    assert a.tolist() == [[5.0, -7.0, 0.0], [-0.0, 3.0, -1.0]]  # nothing written


@pytest.mark.parametrize("name", ["stack", "hstack", "vstack", "dstack", "column_stack"])
def test_join_out_expanded_of_another_shape_is_resized_and_written(name):
    results = []
    for L in (torch, st):
        out = L.zeros((1, 3)).expand(4, 3)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = getattr(L, name)([L.tensor([[1.0, 2.0, 3.0]]), L.tensor([[4.0, 5.0, 6.0]])], out=out)
        assert r is out
        results.append((out, len(w)))
    (t, tw), (s, sw) = results
    _bits(s, t)
    assert sw == 1 <= tw  # (PyTorch warns once per resize it runs; Python's filter shows one)


@pytest.mark.parametrize("name", ["concat", "hstack", "column_stack", "stack"])
def test_join_out_autograd_refusal_names_pytorchs_op(name):
    def call(L):
        getattr(L, name)([L.ones(2, requires_grad=True)], out=L.empty(0))

    same_error(lambda: call(torch), lambda: call(st))


PAIRS = {
    "max": lambda L, x, **k: L.max(x, 1, **k),
    "median": lambda L, x, **k: L.median(x, 1, **k),
    "sort": lambda L, x, **k: L.sort(x, 1, **k),
    "topk": lambda L, x, **k: L.topk(x, 1, 1, **k),
}


@pytest.mark.parametrize("name", PAIRS)
def test_pair_out_expanded_of_another_shape_is_resized_and_written(name):
    got = []
    for L in (torch, st):
        x = L.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
        values = L.zeros((1, 5)).expand(5, 5)
        indices = L.zeros((1, 5), dtype=L.int64).expand(5, 5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            PAIRS[name](L, x, out=(values, indices))
        got.append((values, indices))
    (tv, ti), (sv, si) = got
    _bits(sv, tv)
    _bits(si, ti)


def test_refused_pair_out_leaves_both_tensors_untouched():
    # indices expanded over the result's own shape: refused (PyTorch too); values were written
    # before the refusal, now neither is (PyTorch itself reshapes values to (2, 1) here)
    x = st.tensor([[3.0, 1.0], [0.0, 5.0]])
    values = st.full((2,), 7.0)
    indices = st.zeros((1,), dtype=st.int64).expand(2)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        st.max(x, 1, out=(values, indices))
    with pytest.raises(RuntimeError):
        torch.max(torch.tensor([[3.0, 1.0], [0.0, 5.0]]), 1,
                  out=(torch.full((2,), 7.0), torch.zeros((1,), dtype=torch.int64).expand(2)))
    assert values.tolist() == [7.0, 7.0]


PAIR_TEXTS = {
    "median": lambda L, x, **k: L.median(x, 1, **k),
    "nanmedian": lambda L, x, **k: L.nanmedian(x, 1, **k),
    "kthvalue": lambda L, x, **k: L.kthvalue(x, 1, 1, **k),
    "mode": lambda L, x, **k: L.mode(x, 1, **k),
}


@pytest.mark.parametrize("name", PAIR_TEXTS)
@pytest.mark.parametrize("dtypes", [("float64", "int64"), ("float32", "int32"), ("float64", "int32"), ("bfloat16", "int64")])
def test_pair_out_dtype_refusals_in_each_ops_own_words(name, dtypes):
    def call(L):
        x = L.tensor([[3, 1], [0, 5]], dtype=L.int8 if dtypes[0] == "bfloat16" else L.float32)
        PAIR_TEXTS[name](L, x, out=(L.empty(0, dtype=getattr(L, dtypes[0])), L.empty(0, dtype=getattr(L, dtypes[1]))))

    same_error(lambda: call(torch), lambda: call(st))


def test_nanmedian_of_an_empty_dim_in_pytorchs_words():
    same_error(lambda: torch.nanmedian(torch.empty(3, 0), 1), lambda: st.nanmedian(st.empty(3, 0), 1))


def test_numpy_scalar_over_a_tensor_is_pytorchs_reflected_division():
    # NumPy 2 names true_divide "divide": np scalar / tensor ran NumPy's division (float64 for an
    # np.int64 over a float32 tensor, one rounding) instead of strided's __rtruediv__
    t, s = torch.tensor([3.0, 7.0, 1.0]), st.tensor([3.0, 7.0, 1.0])
    for number in (np.float32(2.5), np.int64(3), np.float64(0.1)):
        _bits(number / s, number / t)
