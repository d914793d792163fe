"""Red-team regressions of session 18's merge (atan2 through float32, sampler fast paths)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native
from strided.kernels.torch_loops import torch_threads

_SLEEF = native.sleef()
_AVX512 = _SLEEF is not None and _SLEEF.capability() == 16


@pytest.fixture(autouse=True)
def _threads_as_assumed():
    old = torch.get_num_threads()
    torch.set_num_threads(torch_threads())
    yield
    torch.set_num_threads(old)


@pytest.mark.skipif(not _AVX512, reason="PyTorch's bits are pinned for the AVX-512 kernels")
@pytest.mark.parametrize("n", [33, 40, 64, 100])
@pytest.mark.parametrize("case", ["both", "one", "one_float", "column"])
def test_atan2_expanded_integer_operands_bits(n: int, case: str) -> None:
    """An integer operand that is itself an expand (0 strides): PyTorch casts it to float32 with
    ``.to()``, whose copy is laid out dense (empty_like's strides: row-major here, not NumPy's
    astype order, which puts the 0-stride dim innermost), and its loop's SLEEF/scalar split
    follows that layout. (Was off in some elements of each case.)"""
    g = torch.Generator().manual_seed(n)
    a = torch.randint(-100, 100, (n,), generator=g, dtype=torch.int32)
    b = torch.randint(-100, 100, (2, n), generator=g, dtype=torch.int32)
    c = torch.randint(-100, 100, (2,), generator=g, dtype=torch.int32)

    def operands(m, a, b, c):  # (the same views in either library)
        return {"both": (a.expand(2, n), a.flip(0).expand(2, n)), "one": (a.expand(2, n), b),
                "one_float": (a.expand(2, n), b.float()), "column": (c[:, None].expand(2, n), b)}[case]

    y, x = operands(torch, a, b, c)
    sy, sx = operands(strided, *(strided.from_numpy(v.numpy().copy()) for v in (a, b, c)))
    assert sy.stride() == y.stride() and sx.stride() == x.stride()
    r, s = torch.atan2(y, x), strided.atan2(sy, sx)
    assert np.asarray(s.numpy()).tobytes() == r.numpy().tobytes()


@pytest.mark.parametrize("op", ["all", "any"])
@pytest.mark.parametrize("out_dtype", ["bool", "uint8", "int64", "int32", "float32"])
@pytest.mark.parametrize("dim", [None, 0])
@pytest.mark.parametrize("grad", [False, True])
def test_all_any_out_dtype_and_grad(op: str, out_dtype: str, dim: int | None, grad: bool) -> None:
    """PyTorch's all/any write only a bool or uint8 out= ("all only supports bool tensor for
    result, got: Long"; strided wrote any dtype), and, their result having no gradient, write it
    whatever requires grad (strided refused an input that requires grad). (Whole numbers: PyTorch
    casts a float input to a uint8 out= first, so its all(0.5) is 0 there, a quirk not followed.)"""
    a = torch.tensor([[3.0, 0.0], [1.0, 2.0]], requires_grad=grad)
    s = strided.tensor([[3.0, 0.0], [1.0, 2.0]], requires_grad=grad)
    args = () if dim is None else (dim,)
    o = torch.zeros((), dtype=getattr(torch, out_dtype)) if dim is None else torch.zeros(2, dtype=getattr(torch, out_dtype))
    so = strided.zeros(tuple(o.shape), dtype=getattr(strided, "bool_" if out_dtype == "bool" else out_dtype))
    try:
        getattr(torch, op)(a, *args, out=o)
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as got:
            getattr(strided, op)(s, *args, out=so)
        assert str(e).splitlines()[0] == str(got.value).splitlines()[0]
        assert not so.numpy().any()
        return
    getattr(strided, op)(s, *args, out=so)
    assert so.numpy().tolist() == o.numpy().tolist()
