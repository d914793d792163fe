"""Differential tests (vs PyTorch 2.13) of small divergences fixed by fix34: std/var into a complex
out= of a real input, clamp(x, number, out=x) of an integer x, prelu's zero-size strides,
Tensor.logsumexp(out=), logsumexp of a complex input into a real out=."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided

pytest.importorskip("torch")


def _outcome(call):
    """("ok", value) or (the exception's class name family, its first line)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = call()
        except Exception as e:  # noqa: BLE001 (the outcome is compared, whatever it is)
            kind = next(k for k in (NotImplementedError, TypeError, IndexError, ValueError, RuntimeError)
                        if isinstance(e, k))
            return kind.__name__, str(e).splitlines()[0], None
    return "ok", value, [str(w.message).split(" (Triggered")[0] for w in caught]


# --- 1. std / var(out=<complex>) of a real input --------------------------------------------------

_VAR_CASES = [((3, 4), 1, False), ((3, 4), 1, True), ((1, 4), 1, False), ((4, 1), 0, False), ((3, 4), (0, 1), False),
              ((3, 4), None, False), ((0, 4), 0, False), ((0, 4), 1, False), ((3, 0), 1, False), ((3, 0), 0, False),
              ((), None, False), ((3, 1), 1, False), ((2, 3, 4), (0, 2), True), ((2, 3, 4), -1, False)]


@pytest.mark.parametrize("op", ["std", "var"])
@pytest.mark.parametrize("in_dtype, out_dtype", [("float32", "complex64"), ("float64", "complex128"),
                                                 ("float32", "complex128"), ("float64", "complex64"),
                                                 ("float16", "complex64"), ("bfloat16", "complex128"),
                                                 ("complex64", "complex64"), ("float32", "float64")])
@pytest.mark.parametrize("shape, dim, keepdim", _VAR_CASES)
def test_std_var_out_of_another_kind(op, in_dtype, out_dtype, shape, dim, keepdim) -> None:
    a = np.resize((np.arange(24.0) ** 1.5), shape) if shape else np.array(2.5)
    kw = {} if dim is None else {"dim": dim, "keepdim": keepdim}
    ot = torch.empty(0, dtype=getattr(torch, out_dtype))
    os_ = strided.empty(0, dtype=getattr(strided, out_dtype))
    want = _outcome(lambda: getattr(torch, op)(torch.from_numpy(a).to(getattr(torch, in_dtype)), **kw, out=ot))
    got = _outcome(lambda: getattr(strided, op)(strided.from_numpy(a).to(getattr(strided, in_dtype)), **kw, out=os_))
    assert got[0] == want[0]
    if want[0] != "ok":
        assert got[1] == want[1]
        return
    assert got[1] is os_ and os_.shape == tuple(ot.shape) and os_.stride() == ot.stride()
    np.testing.assert_allclose(os_.to(strided.complex128).numpy(), ot.to(torch.complex128).numpy(), rtol=1e-6)


def test_std_var_complex_out_refusal_names_the_out_dtype() -> None:
    for op in ("std", "var"):
        for dt in ("complex64", "complex128"):
            with pytest.raises(NotImplementedError) as want:
                getattr(torch, op)(torch.ones(3, 4), 1, out=torch.empty(0, dtype=getattr(torch, dt)))
            with pytest.raises(NotImplementedError) as got:
                getattr(strided, op)(strided.ones(3, 4), 1, out=strided.empty(0, dtype=getattr(strided, dt)))
            assert str(got.value).splitlines()[0] == str(want.value)


# --- 2. clamp(x, number, out=x) of an integer x: PyTorch's in-place refusal ----------------------

_CLAMP_CALLS = {
    "clamp": lambda L, t, o: L.clamp(t, 0.5, out=o),
    "clamp_int_bounds": lambda L, t, o: L.clamp(t, 0, 2, out=o),
    "clamp_max_kw": lambda L, t, o: L.clamp(t, max=0.5, out=o),
    "clamp_min": lambda L, t, o: L.clamp_min(t, 0.5, out=o),
    "clamp_max": lambda L, t, o: L.clamp_max(t, -0.5, out=o),
    "clamp_min_int": lambda L, t, o: L.clamp_min(t, 0, out=o),
    "clip": lambda L, t, o: L.clip(t, -0.5, 2.5, out=o),
    "complex_bound": lambda L, t, o: L.clamp(t, 0.5j, out=o),
    "big_bound": lambda L, t, o: L.clamp(t, 300, out=o),
    "tensor_bound": lambda L, t, o: L.clamp(t, L.tensor(0.5), out=o),
}


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64", "bool", "uint16", "float16", "float64"])
@pytest.mark.parametrize("call", sorted(_CLAMP_CALLS))
@pytest.mark.parametrize("alias", ["itself", "view", "other"])
def test_clamp_out_of_an_integer_input(dtype, call, alias) -> None:
    f = _CLAMP_CALLS[call]
    a = np.array([[3, 0], [1, 2]]).astype(dtype)
    outs = {"itself": lambda t: t, "view": lambda t: t[:], "other": lambda t: t.clone()}
    t = torch.from_numpy(a.copy()).t()
    s = strided.from_numpy(a.copy()).t()
    want = _outcome(lambda: f(torch, t, outs[alias](t)))
    got = _outcome(lambda: f(strided, s, outs[alias](s)))
    assert got[0] == want[0]
    if want[0] != "ok":
        assert got[1] == want[1]
    assert s.tolist() == t.tolist()  # (nothing written on a refusal; the same values otherwise)
    if want[0] == "ok":
        assert got[1].tolist() == want[1].tolist() and got[1].stride() == want[1].stride()


# --- 3. F.prelu of a zero-size input keeps its strides (PyTorch's empty_like) ---------------------

@pytest.mark.parametrize("shape, stride", [((0, 3), (0, 0)), ((0, 3), (5, 7)), ((0, 3), (1, 0)), ((2, 0), (0, 1)),
                                           ((0, 3, 4), (0, 1, 3)), ((0, 3, 4), (1, 4, 12)), ((0,), (1,)),
                                           ((2, 3, 0), (0, 0, 0)), ((0, 3), (3, 1))])
@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_prelu_zero_size_keeps_the_input_strides(shape, stride, n, dtype) -> None:
    import torch.nn.functional as TF

    import strided.nn.functional as F

    def run(M, FF):
        x = M.empty_strided(shape, stride, dtype=getattr(M, dtype)).requires_grad_()
        w = M.full((n,), 0.25, dtype=getattr(M, dtype), requires_grad=True)
        r = FF.prelu(x, w)
        gx, gw = M.autograd.grad(r, (x, w), M.ones_like(r))
        return tuple(r.shape), r.stride(), r.grad_fn.name(), tuple(gx.shape), tuple(gw.shape), gw.tolist()

    want = _outcome(lambda: run(torch, TF))
    got = _outcome(lambda: run(strided, F))
    assert got[:2] == want[:2]


def test_prelu_zero_size_from_an_array() -> None:
    import torch.nn.functional as TF

    import strided.nn.functional as F
    a = np.zeros((0, 3))
    r = F.prelu(strided.tensor(a), strided.tensor([0.25], dtype=strided.float64))
    t = TF.prelu(torch.from_numpy(a), torch.tensor([0.25], dtype=torch.float64))
    assert r.stride() == t.stride() == (0, 0) and r.shape == tuple(t.shape)


# --- 4. Tensor.logsumexp has no out= -----------------------------------------------------------

_LSE_METHOD_CALLS = [
    lambda L, x: x.logsumexp(1, out=L.empty(0)),
    lambda L, x: x.logsumexp(dim=(0, 1), keepdim=True, out=L.empty(0)),
    lambda L, x: x.logsumexp(),
    lambda L, x: x.logsumexp(1, foo=1),
    lambda L, x: x.logsumexp(-1, True),
    lambda L, x: x.logsumexp(dim=0),
]


@pytest.mark.parametrize("k", range(len(_LSE_METHOD_CALLS)))
def test_tensor_logsumexp_method_has_no_out(k) -> None:
    call = _LSE_METHOD_CALLS[k]
    a = np.array([[1.0, -2.5, 3.0], [np.inf, 0.5, -np.inf]], np.float32)
    want = _outcome(lambda: call(torch, torch.from_numpy(a.copy())))
    got = _outcome(lambda: call(strided, strided.from_numpy(a.copy())))
    assert got[0] == want[0]
    if want[0] != "ok":
        assert got[1] == want[1]
        return
    assert got[1].numpy().tobytes() == want[1].numpy().tobytes() and got[1].stride() == want[1].stride()


def test_tensor_logsumexp_method_records_the_graph() -> None:
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]])
    grads = []
    for M in (torch, strided):
        x = M.tensor(a, requires_grad=True)
        r = x.logsumexp(1)
        assert r.grad_fn.name() == "LogsumexpBackward0"
        r.sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-15)
    assert strided.logsumexp(strided.tensor(a), 1, out=strided.empty(0, dtype=strided.float64)).shape == (2,)


# --- 5. logsumexp of a complex input into a real out= (PyTorch's sum_out casts: the real parts) ---

@pytest.mark.parametrize("cdtype", ["complex64", "complex128"])
@pytest.mark.parametrize("out_dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("shape, dim, keepdim", [((2, 3), 1, False), ((4, 5), 0, True), ((3, 4, 6), (0, 2), False),
                                                 ((7, 33), 1, False), ((5,), 0, False), ((5,), 0, True), ((), 0, False),
                                                 ((0, 3), 1, False), ((3, 0), 1, True), ((2, 3), (0, 1), False)])
def test_logsumexp_complex_into_a_real_out(cdtype, out_dtype, shape, dim, keepdim) -> None:
    rng = np.random.default_rng(len(shape) * 10 + (dim if isinstance(dim, int) else 7))
    a = np.asarray(rng.standard_normal(shape) * 3 + 1j * rng.standard_normal(shape) * 2)
    if a.size > 2:
        a.ravel()[1] = complex(np.inf, 0.5)
    ot = torch.empty(0, dtype=getattr(torch, out_dtype))
    os_ = strided.empty(0, dtype=getattr(strided, out_dtype))
    want = _outcome(lambda: torch.logsumexp(torch.from_numpy(a).to(getattr(torch, cdtype)), dim, keepdim, out=ot))
    got = _outcome(lambda: strided.logsumexp(strided.from_numpy(a).to(getattr(strided, cdtype)), dim, keepdim, out=os_))
    assert got[0] == want[0] == "ok" and got[1] is os_
    assert os_.shape == tuple(ot.shape) and os_.stride() == ot.stride()
    if a.size:
        assert any("discards the imaginary part" in w for w in got[2])
    A, B = os_.to(strided.float64).numpy(), ot.double().numpy()
    # (values: PyTorch's bits where the logs agree -- NumPy's float32 log and PyTorch's can differ by
    # an ulp; NaN where the real parts sum below 0, positive as PyTorch's in float32 / float64 outs)
    ulp = {"float32": 2.0**-23, "float64": 2.0**-52, "float16": 2.0**-10, "bfloat16": 2.0**-7}[out_dtype]
    np.testing.assert_allclose(A, B, rtol=2 * ulp, atol=0)
    if out_dtype in ("float32", "float64"):
        assert (np.signbit(A) == np.signbit(B)).all()


@pytest.mark.parametrize("in_dtype, out_dtype", [("float32", "bfloat16"), ("float32", "float16"), ("float64", "bfloat16"),
                                                 ("complex64", "bfloat16"), ("bfloat16", "float16")])
def test_logsumexp_full_reduction_into_a_narrower_out_adds_in_the_promoted_dtype(in_dtype, out_dtype) -> None:
    """A 0-d result's add_ of the 0-d max: both 0-d tensors, so PyTorch promotes (float32 with a
    bfloat16 out): the sum rounded once (strided added in the out's dtype: an ulp off in 1 of 4)."""
    rng = np.random.default_rng(3)
    for _ in range(40):
        a = (rng.standard_normal(5) * 3).astype(np.float32) + (1j * rng.standard_normal(5) if in_dtype[0] == "c" else 0)
        ot, os_ = torch.empty(0, dtype=getattr(torch, out_dtype)), strided.empty(0, dtype=getattr(strided, out_dtype))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.logsumexp(torch.from_numpy(a).to(getattr(torch, in_dtype)), 0, out=ot)
            strided.logsumexp(strided.from_numpy(a).to(getattr(strided, in_dtype)), 0, out=os_)
        got, want = os_.to(strided.float64).item(), ot.double().item()
        assert got == want or (got != got and want != want)  # (NaN: the real parts summed below 0)
