"""strided.LongTensor and its kin against torch 2.13: construction from data, sizes, nothing, a
tensor (an alias) and NumPy arrays; isinstance by dtype; PyTorch's error classes."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st

TYPES = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor", "ShortTensor", "IntTensor",
         "LongTensor", "BoolTensor"]


@pytest.mark.parametrize("name", TYPES)
def test_construction_matches_torch(name):
    S, T = getattr(st, name), getattr(torch, name)
    for args in [([1, 0, 1],), ((1, 0),), ([[1, 2], [3, 0]],), (np.array([1, 0, 2]),)]:
        s, t = S(*args), T(*args)
        assert str(s.dtype).split(".")[1] == str(t.dtype).split(".")[1]
        assert s.tolist() == t.tolist() and s.shape == tuple(t.shape)
    for args in [(), (2, 3), (st.Size([4]),), (0,)]:
        targs = tuple(torch.Size(a) if isinstance(a, st.Size) else a for a in args)
        assert S(*args).shape == tuple(T(*targs).shape)
    assert S([1], device="cpu").tolist() == T([1], device="cpu").tolist()


@pytest.mark.parametrize("name", TYPES)
def test_isinstance_tests_the_dtype(name):
    S, T = getattr(st, name), getattr(torch, name)
    for dtype in ["float32", "float64", "int64", "uint8", "bool", "int32", "bfloat16"]:
        assert isinstance(st.zeros(2, dtype=getattr(st, dtype)), S) == isinstance(
            torch.zeros(2, dtype=getattr(torch, dtype)), T)
    assert not isinstance([1], S) and type(S([1])) is st.Tensor


def test_a_tensor_of_the_same_dtype_is_shared_another_dtype_is_refused():
    x = st.zeros(3, dtype=st.int64)
    y = st.LongTensor(x)
    y[0] = 5
    assert x[0].item() == 5 and y is not x
    with pytest.raises(TypeError, match="expected int64 .got float32."):
        st.LongTensor(st.zeros(2))
    with pytest.raises(TypeError):
        torch.LongTensor(torch.zeros(2))


@pytest.mark.parametrize("bad, error", [((1.5,), TypeError), ((-1,), RuntimeError)])
def test_bad_arguments_raise_torchs_class(bad, error):
    with pytest.raises(error):
        torch.LongTensor(*bad)
    with pytest.raises(error):
        st.LongTensor(*bad)
    with pytest.raises(TypeError):
        torch.LongTensor([1], dtype=torch.float32)
    with pytest.raises(TypeError, match="unexpected keywords"):
        st.LongTensor([1], dtype=st.float32)
