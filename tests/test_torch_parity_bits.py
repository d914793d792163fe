"""Differential checks against PyTorch of places where strided once differed from it (bits,
error classes and messages): reduced-float gelu, ``F.elu_``/``F.leaky_relu_``, the number
arguments of the activations, and the others below, each side by side with ``torch``."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as SF
from strided.kernels import native
from strided.kernels.torch_loops import torch_threads

_SLEEF = native.sleef()
_AVX512 = _SLEEF is not None and _SLEEF.capability() == 16
_AVX2 = _SLEEF is not None and _SLEEF.capability() == 8  # (an AVX2 CPU without AVX-512)
_SPECIALS = [float("inf"), -float("inf"), float("nan"), 0.0, -0.0, 65504.0, -65504.0, 1e-8, -30.0, 30.0, -5.9375]


@pytest.fixture(autouse=True)
def _threads_as_assumed():
    """PyTorch's thread count set to the one strided assumes (its parallel chunks cut the loops'
    scalar tails): another test in the same worker may have changed it."""
    old = torch.get_num_threads()
    torch.set_num_threads(torch_threads())
    yield
    torch.set_num_threads(old)


def _pair(x: torch.Tensor) -> strided.Tensor:
    """``x``'s values as a strided tensor of its dtype (bfloat16 through float32: exact)."""
    if x.dtype == torch.float64:
        return strided.from_numpy(x.numpy().copy())
    return strided.from_numpy(x.float().numpy().copy()).to(getattr(strided, str(x.dtype)[6:]))


def _same_bits(r: torch.Tensor, s: strided.Tensor) -> None:
    rn, sn = r.double().numpy(), np.asarray(s.to(strided.float64).numpy())
    assert r.shape == tuple(s.shape)
    both_nan = np.isnan(rn) & np.isnan(sn)
    bad = ~((rn == sn) & (np.signbit(rn) == np.signbit(sn)) | both_nan)
    assert not bad.any(), (rn[bad][:5], sn[bad][:5])


# ---------------------------------------------------------------- 1. gelu through float32

@pytest.mark.skipif(not _AVX512, reason="PyTorch's bits are pinned for the AVX-512 kernels")
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("n", [1, 2, 7, 33, 100, 20011, 70001])
def test_gelu_exact_form_bits(dtype: torch.dtype, n: int) -> None:
    torch.manual_seed(n)
    x = torch.cat([torch.randn(n) * 4, torch.tensor(_SPECIALS)]).to(dtype)[:max(n, 1) if n < 3 else None]
    _same_bits(TF.gelu(x), SF.gelu(_pair(x)))


@pytest.mark.skipif(not _AVX512, reason="PyTorch's bits are pinned for the AVX-512 kernels")
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("layout", ["t", "step2", "column", "rows"])
def test_gelu_reduced_float_layouts(dtype: torch.dtype, layout: str) -> None:
    torch.manual_seed(1)
    x = (torch.randn(37, 53) * 4).to(dtype)
    s = _pair(x)
    pick = {"t": lambda a: a.t(), "step2": lambda a: a[:, ::2], "column": lambda a: a[:, :1],
            "rows": lambda a: a[::3]}[layout]
    _same_bits(TF.gelu(pick(x)), SF.gelu(pick(s)))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_infinities(dtype: torch.dtype, approximate: str) -> None:
    # (PyTorch: gelu(-inf) is NaN (-inf * 0) in every dtype; gelu(inf) is inf but NaN for a
    # contiguous float32/bfloat16 input of more than one element, oneDNN's kernel)
    for x in (torch.tensor([float("inf")], dtype=dtype), torch.tensor([-float("inf")], dtype=dtype),
              torch.tensor([float("inf"), -float("inf"), 1.0], dtype=dtype)):
        r = TF.gelu(x, approximate=approximate)
        # (oneDNN's float32 gelu_erf is modelled on AVX512 and AVX2 CPUs; its bfloat16 one on AVX512 alone)
        onednn = _AVX512 or (dtype is torch.float32 and _AVX2)
        if not onednn and r.numel() > 1 and dtype in (torch.float32, torch.bfloat16) and approximate == "none":
            continue
        _same_bits(r, SF.gelu(_pair(x), approximate=approximate))


# ---------------------------------------------------------------- 2. F.elu_ (and F.leaky_relu_)

@pytest.mark.parametrize("name,arg", [("elu_", 0.5), ("leaky_relu_", 0.2)])
def test_functional_inplace_forms(name: str, arg: float) -> None:
    for lib, F in ((torch, TF), (strided, SF)):
        x = lib.tensor([-1.0, 2.0, -0.5])
        v0 = x._version
        r = getattr(F, name)(x, arg)
        assert r is x and x._version == v0 + 1
    assert strided.tensor([-1.0, 2.0, -0.5]).tolist() != x.tolist()
    ref = getattr(TF, name)(torch.tensor([-1.0, 2.0, -0.5]), arg)
    assert x.tolist() == ref.tolist()
    for lib, F, err in ((torch, TF, RuntimeError), (strided, SF, RuntimeError)):
        leaf = lib.tensor([-1.0, 2.0], requires_grad=True)
        with pytest.raises(err, match="a leaf Variable that requires grad is being used in an in-place operation"):
            getattr(F, name)(leaf, arg)
        with pytest.raises(NotImplementedError, match=f"\"{name[:-1]}_cpu\" not implemented for 'Long'"
                           if name == "elu_" else "not implemented for 'Long'"):
            getattr(F, name)(lib.tensor([1, 2]), arg)
    grads = []
    for lib, F in ((torch, TF), (strided, SF)):
        a = lib.tensor([-1.0, 2.0], requires_grad=True)
        b = a * 1
        getattr(F, name)(b, arg)
        b.sum().backward()
        grads.append(a.grad.tolist())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)


# ---------------------------------------------------------------- 3. number arguments

_BAD = ["a", None, [1.0], 1 + 2j, 2 + 0j, np.float32(0.5), np.int64(2), True, 2, 10 ** 40, "T", "T1"]


def _outcome(fn, *args, **kwargs):
    try:
        return "ok", fn(*args, **kwargs).tolist()
    except Exception as e:  # noqa: BLE001 - the class is the thing compared
        return e, str(e).splitlines()[0]


@pytest.mark.parametrize("name,prefix", [("elu", ()), ("leaky_relu", ()), ("softplus", ()), ("softplus", (1.0,)),
                                         ("hardtanh", ()), ("hardtanh", (-2.0,)), ("elu_", ()), ("leaky_relu_", ())])
@pytest.mark.parametrize("value", _BAD, ids=repr)
def test_activation_number_arguments(name: str, prefix: tuple, value: object) -> None:
    res = []
    for lib, F in ((torch, TF), (strided, SF)):
        v = lib.tensor(0.5) if value == "T" else lib.tensor([0.5]) if value == "T1" else value
        x = lib.tensor([-1.0, 0.5, 2.0])
        res.append(_outcome(getattr(F, name), x, *prefix, v))
    if res[0][0] == "ok" and res[1][0] == "ok":
        if name != "softplus":  # (softplus's values: see its own tests)
            assert res[0] == res[1]
    else:
        assert res[0][0] != "ok" and res[1][0] != "ok", res
        assert isinstance(res[1][0], type(res[0][0])) and res[0][1] == res[1][1], res


# ---------------------------------------------------------------- 4. clamp's mixed bounds

@pytest.mark.parametrize("op", ["clamp", "clip"])
@pytest.mark.parametrize("form", ["fn", "method", "method_", "out"])
@pytest.mark.parametrize("bounds", [("T", 0.5), (0.1, "T"), ("T", None), (None, "T"), ("T", "T"), (0.1, 0.5),
                                    ("T0", 0.5), (0.1, "T0"), ("T", "T0"), (None, 0.5)], ids=repr)
def test_clamp_mixed_tensor_and_number_bounds(op: str, form: str, bounds: tuple) -> None:
    res = []
    for lib in (torch, strided):
        x = lib.tensor([0.0, 0.3, 1.0])
        tb = {"T": lib.tensor([0.2, 0.2, 0.2]), "T0": lib.tensor(0.2)}
        lo, hi = (tb.get(b, b) if isinstance(b, str) else b for b in bounds)
        if form == "fn":
            res.append(_outcome(getattr(lib, op), x, min=lo, max=hi))
        elif form == "out":
            res.append(_outcome(getattr(lib, op), x, min=lo, max=hi, out=lib.empty(3)))
        else:
            res.append(_outcome(getattr(x, op + "_" if form == "method_" else op), min=lo, max=hi))
    if res[0][0] == "ok":
        assert res[1] == res[0]
    else:
        assert isinstance(res[1][0], TypeError) and type(res[0][0]) is TypeError
        # (the op's name: strided's clip is clamp itself, and says clamp)
        assert res[1][1].split("(")[0].endswith(res[0][1].split("(")[0].replace("clip", "clamp"))
        assert "received an invalid combination of arguments" in res[1][1]


# ---------------------------------------------------------------- 5. out= of the ops without a gradient

_NO_GRAD_BINARY = ["eq", "ne", "lt", "le", "gt", "ge", "greater", "less", "greater_equal", "less_equal", "not_equal",
                   "logical_and", "logical_or", "logical_xor"]
_NO_GRAD_UNARY = ["logical_not", "signbit", "isneginf", "isposinf"]


@pytest.mark.parametrize("op", _NO_GRAD_BINARY + _NO_GRAD_UNARY + ["floor", "sign", "maximum", "copysign"])
@pytest.mark.parametrize("out_dtype", ["float32", "bool", "int64"])
@pytest.mark.parametrize("who", ["input", "out_leaf", "out_nonleaf", "nobody"])
@pytest.mark.parametrize("other", ["same", "number"])
def test_out_of_ops_without_gradient(op: str, out_dtype: str, who: str, other: str) -> None:
    if op in ("floor", "sign", "maximum", "copysign") and out_dtype != "float32":
        pytest.skip("the differentiable controls: a float out= only")
    res = []
    for lib in (torch, strided):
        a = lib.tensor([1.0, 2.0, -0.5], requires_grad=who == "input")
        o = lib.zeros(3, dtype=getattr(lib, out_dtype), requires_grad=who.startswith("out") and out_dtype == "float32")
        if who == "out_nonleaf" and out_dtype == "float32":
            o = o * 1
        b = a if other == "same" else (1.5 if op not in ("maximum", "copysign") else lib.tensor(1.5))
        args = (a,) if op in _NO_GRAD_UNARY or op in ("floor", "sign") else (a, b)
        res.append(_outcome(getattr(lib, op), *args, out=o))
        if res[-1][0] == "ok":
            res[-1] = (*res[-1], o.requires_grad, o.is_leaf, str(o.dtype).split(".")[-1])
    if res[0][0] == "ok":
        assert res[1] == res[0]
    else:
        assert isinstance(res[1][0], type(res[0][0])) and res[1][1] == res[0][1], res


# ---------------------------------------------------------------- 6. atan2 of integer and mixed operands

def _st(v):
    return strided.from_numpy(v.numpy().copy()) if isinstance(v, torch.Tensor) else strided.tensor(v)


@pytest.mark.skipif(not _AVX512, reason="PyTorch's bits are pinned for the AVX-512 kernels")
@pytest.mark.parametrize("n", [7, 100, 10000, 70001])
@pytest.mark.parametrize("case", ["int,int", "int,float", "float,int", "int32,int64", "int16,int8", "bool,int",
                                  "int,0d", "0d,int"])
def test_atan2_integer_operands_bits(n: int, case: str) -> None:
    g = torch.Generator().manual_seed(n)
    yi, xi = torch.randint(-1000, 1000, (n,), generator=g), torch.randint(-1000, 1000, (n,), generator=g)
    yf = torch.randn(n, generator=g) * 100
    y, x = {"int,int": (yi, xi), "int,float": (yi, yf), "float,int": (yf, xi), "int32,int64": (yi.int(), xi),
            "int16,int8": (yi.to(torch.int16), xi.to(torch.int8)), "bool,int": (yi > 0, xi),
            "int,0d": (yi, torch.tensor(2)), "0d,int": (torch.tensor(3.0), xi)}[case]
    r, s = torch.atan2(y, x), strided.atan2(_st(y), _st(x))
    assert str(s.dtype) == str(r.dtype).replace("torch.", "strided.")
    _same_bits(r, s)


# ---------------------------------------------------------------- 8. complex data for a real dtype

@pytest.mark.parametrize("data", [[1 + 2j], [1 + 0j], 1 + 2j, [1.5 + 2j, 3]], ids=repr)
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "float32", "float64"])
def test_tensor_of_complex_data_for_a_real_dtype(data: object, dtype: str) -> None:
    with pytest.raises(TypeError) as want:
        torch.tensor(data, dtype=getattr(torch, dtype))
    with pytest.raises(TypeError) as got:
        strided.tensor(data, dtype=getattr(strided, dtype))
    assert str(got.value).splitlines()[0] == str(want.value)
