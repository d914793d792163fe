"""Red-team findings on the shapeops fast paths (issue 23), each against PyTorch.

int32/int64 -> bfloat16: PyTorch converts through float32 (c10::BFloat16 is made from a float),
so an int beyond 2**24 rounds twice; ml_dtypes rounds once. The central cast (to, copy_) missed it
before this branch; cat and stack write with np.concatenate/np.copyto, outside the central cast,
so they need the same care."""

import pytest
import torch

import strided

# 2**24 + 2**16 + 1: float32 rounds it to 2**24 + 2**16 (a bfloat16 tie, to even: 2**24);
# rounded once it is 2**24 + 2**17. Its neighbours and a negative one for good measure.
_INTS = [0, 1, -3, 300, 2**24 + 1, 2**24 + 2**16 + 1, -(2**24 + 2**16 + 1), 2**31 - 1, 2**40 + 2**32 + 1]


def _bf16_values(t) -> list[float]:
    return t.to(strided.float32).tolist() if isinstance(t, strided.Tensor) else t.float().tolist()


@pytest.mark.parametrize("int_dtype", ["int32", "int64"])
def test_int_to_bfloat16_rounds_through_float32(int_dtype):
    vals = [v for v in _INTS if int_dtype == "int64" or -(2**31) <= v < 2**31]
    s = strided.tensor(vals, dtype=getattr(strided, int_dtype))
    t = torch.tensor(vals, dtype=getattr(torch, int_dtype))
    bs, bt = strided.ones(len(vals), dtype=strided.bfloat16), torch.ones(len(vals), dtype=torch.bfloat16)
    want = _bf16_values(t.to(torch.bfloat16))
    assert want[5] == 2.0**24  # (the double rounding this test is about)
    assert _bf16_values(s.to(strided.bfloat16)) == want
    dest = strided.empty(len(vals), dtype=strided.bfloat16)
    assert _bf16_values(dest.copy_(s)) == want
    # cat (np.concatenate into the result), stack along an inner dim (the cat it is) and along a
    # new last dim (one copy per input), a transposed input and a single part
    assert _bf16_values(strided.cat([s, bs])) == _bf16_values(torch.cat([t, bt]))
    for d in (0, 1, -1):
        assert _bf16_values(strided.stack([s, bs], d)) == _bf16_values(torch.stack([t, bt], d))
    s2, t2 = s.reshape(1, -1).expand(2, -1).t(), t.reshape(1, -1).expand(2, -1).t()
    b2, bt2 = bs.reshape(-1, 1).expand(-1, 2), bt.reshape(-1, 1).expand(-1, 2)
    for d in (0, 1, 2):
        got = strided.stack([s2, b2], d)
        want2 = torch.stack([t2, bt2], d)
        assert _bf16_values(got) == _bf16_values(want2)
        assert got.stride() == want2.stride()
    assert _bf16_values(strided.cat([s2, b2], 1)) == _bf16_values(torch.cat([t2, bt2], 1))


@pytest.mark.parametrize("op", ["add", "mul", "maximum", "eq", "add_", "where"])
def test_binary_ops_round_int_and_float64_operands_through_float32(op):
    # an int64 tensor with a bfloat16 one (bfloat16 result), and a 0-d float64 tensor with a
    # float16/bfloat16 one (the 2-byte result): PyTorch converts the operand through float32
    # (the float64 ones sit on the 2-byte float's tie after that: 1 + 2**-11 for float16)
    cases = [("int64", [2**24 + 2**16 + 1, -(2**24 + 2**16 + 1), 3], "bfloat16"),
             ("float64", 1 + 2**-11 + 2**-40, "float16"),
             ("float64", 1 + 2**-8 + 2**-40, "bfloat16")]
    for a_dtype, a_vals, b_dtype in cases:
        got = want = None
        for lib in (strided, torch):
            a = lib.tensor(a_vals, dtype=getattr(lib, a_dtype))
            b = lib.ones(3, dtype=getattr(lib, b_dtype))
            if op == "add_":
                r = (b * 0).add_(a)
            elif op == "where":
                r = lib.where(lib.tensor([True, False, True]), a, b)
            elif op == "mul":
                r = a * b[:1]  # (a one-element operand: PyTorch's float32 "opmath" scalar path)
            else:
                r = getattr(lib, op)(a, b)
            vals = (r.to(strided.float64) if lib is strided else r.double()).tolist()
            got, want = (vals, want) if lib is strided else (got, vals)
        assert got == want, (a_dtype, b_dtype)


def _outcome(fn):
    try:
        return fn().tolist()
    except Exception as e:  # noqa: BLE001 (the class and first line are compared)
        return type(e), str(e).splitlines()[0]


@pytest.mark.parametrize("op", ["masked_fill", "index_fill", "scatter"])
def test_fill_values_are_checked_as_pytorch_checks_them(op):
    # a 0-d tensor value is read with .item() (PyTorch): the number's overflow checks apply, so
    # an out-of-range or complex value is refused instead of wrapped or cut; a Python int beyond
    # int64/uint64 is PyTorch's OverflowError
    cases = [("int8", "int64", 300), ("float16", "float64", 1e6), ("float32", "complex64", 1 + 1j),
             ("int64", "complex64", 1 + 1j), ("float32", "complex64", 2 + 0j), ("int8", "float32", -3.75),
             ("float32", None, 2**64), ("float32", None, -(2**63) - 1), ("float32", None, 2**64 - 1)]
    for target, vdtype, v in cases:
        if op == "scatter" and vdtype is not None:
            continue  # (scatter's tensor argument is src, not a value)
        results = []
        for lib in (strided, torch):
            value = v if vdtype is None else lib.tensor(v, dtype=getattr(lib, vdtype))
            x = lib.zeros(3, dtype=getattr(lib, target))
            if op == "masked_fill":
                fn = lambda: x.masked_fill(lib.tensor([True, False, True]), value)  # noqa: E731,B023
            elif op == "index_fill":
                fn = lambda: x.index_fill(0, lib.tensor([0, 2]), value)  # noqa: E731,B023
            else:
                fn = lambda: x.scatter(0, lib.tensor([0, 2]), value)  # noqa: E731,B023
            results.append(_outcome(fn))
        got, want = results
        if isinstance(want, tuple):  # (strided's error classes derive from PyTorch's builtin ones)
            assert isinstance(got, tuple) and issubclass(got[0], want[0]) and got[1] == want[1], (got, want)
        else:
            assert got == want, (target, vdtype, v)


@pytest.mark.parametrize("shape", [(2, 3), (0, 3)])
def test_cross_of_bool_tensors_is_pytorchs_not_implemented_error(shape):
    # (it raised NumPy's "boolean subtract is not supported" TypeError from inside np.cross)
    a, ta = strided.ones(*shape, dtype=strided.bool), torch.ones(*shape, dtype=torch.bool)
    with pytest.raises(NotImplementedError) as theirs:
        torch.linalg.cross(ta, ta)
    for call in (lambda: strided.linalg.cross(a, a), lambda: strided.cross(a, a, dim=1)):
        with pytest.raises(NotImplementedError) as ours:
            call()
        assert str(ours.value).splitlines()[0] == str(theirs.value)
