"""out= dtype rules that differ by op, against PyTorch side by side: the unary ops that keep
their input's dtype (abs, neg, sign, floor, ...) refuse an ``out`` of another dtype before any
other check, where most ops cast into it; tensordot (and inner, its tensordot) wants the
result's dtype exactly and warns when it resizes an ``out`` that had elements. Also tensordot's
full contractions and 0-d operands (dims spelt as empty tuples)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided as st

SAME_DTYPE = ["abs", "absolute", "neg", "negative", "sign", "sgn", "floor", "ceil", "trunc", "fix", "round",
              "frac", "bitwise_not"]
INPUTS = {"float32": [0.5, -1.5, 2.0], "int32": [1, -2, 3], "bool": [True, False, True],
          "complex64": [1 + 1j, -2j, 0.5]}
OUTS = ["float16", "float32", "float64", "int64", "int32", "bool", "complex64", "complex128"]


def _outcome(fn, *args, **kw) -> str:
    try:
        fn(*args, **kw)
    except Exception as e:  # noqa: BLE001 (the class and first line are compared)
        return f"{type(e).__name__.removeprefix('Strided')}: {str(e).splitlines()[0]}"
    return "ok"


@pytest.mark.parametrize("name", SAME_DTYPE)
@pytest.mark.parametrize("dtype", list(INPUTS))
@pytest.mark.parametrize("out_dtype", OUTS)
def test_unary_ops_that_keep_the_dtype_refuse_another_out_dtype_as_torch(name: str, dtype: str, out_dtype: str) -> None:
    values = INPUTS[dtype]
    t_out = torch.full((3,), 7, dtype=getattr(torch, out_dtype))
    s_out = st.tensor(t_out.numpy())
    want = _outcome(getattr(torch, name), torch.tensor(values, dtype=getattr(torch, dtype)), out=t_out)
    got = _outcome(getattr(st, name), st.tensor(values, dtype=getattr(st, dtype)), out=s_out)
    assert got == want
    if want != "ok":  # (refused before anything runs: out is untouched)
        assert s_out.tolist() == t_out.tolist()
    else:
        np.testing.assert_allclose(s_out.numpy(), t_out.numpy(), rtol=1e-6)  # (complex abs: hypot's ulps)
        assert s_out.dtype.name == str(t_out.dtype).removeprefix("torch.")


@pytest.mark.parametrize("fn", ["tensordot", "inner"])
@pytest.mark.parametrize("out_dtype", ["float32", "float64", "float16", "int64"])
def test_tensordot_and_inner_want_the_exact_out_dtype(fn: str, out_dtype: str) -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.ones((2, 3), np.float32) if fn == "inner" else np.ones((3, 2), np.float32)
    args = (1,) if fn == "tensordot" else ()
    t_out = torch.empty(0, dtype=getattr(torch, out_dtype))
    s_out = st.empty(0, dtype=getattr(st, out_dtype))
    want = _outcome(getattr(torch, fn), torch.tensor(a), torch.tensor(b), *args, out=t_out)
    got = _outcome(getattr(st, fn), st.tensor(a), st.tensor(b), *args, out=s_out)
    assert got == want
    if want == "ok":
        assert s_out.shape == tuple(t_out.shape) and np.array_equal(s_out.numpy(), t_out.numpy())
    else:
        assert s_out.shape == (0,)


def test_tensordot_out_of_another_shape_warns_as_torch_and_a_list_is_a_type_error() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        o = st.zeros(5)
        st.tensordot(st.ones(2, 3), st.ones(3, 2), 1, out=o)
    assert o.shape == (2, 2) and o.tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert any("was resized since it had shape [5]" in str(w.message) for w in caught)
    with pytest.raises(TypeError, match="argument 'out' must be Tensor, not list"):
        st.tensordot(st.ones(2, 3), st.ones(3, 2), 1, out=[1])


@pytest.mark.parametrize("sa,sb,dims", [
    ((2, 3), (2, 3), 2), ((3,), (3,), 1), ((3,), (3,), 0), ((), (), 0), ((), (3,), 0), ((2, 3), (4,), 0),
    ((2, 3, 4), (3, 4, 5), 2), ((2, 3), (3, 2), ([0, 1], [1, 0])), ((0, 3), (3, 0), 1), ((2, 0), (2, 0), 2),
    ((2, 3, 4), (4, 3, 2), ([1, 2], [1, 0])),
])
def test_tensordot_full_contractions_and_0d_operands_match_torch(sa, sb, dims) -> None:
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    want = torch.tensordot(torch.from_numpy(a), torch.from_numpy(b), dims)
    got = st.tensordot(st.tensor(a), st.tensor(b), dims)
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("sa,sb,dims", [((4, 0), (0, 4), 1), ((4, 0), (0,), 1), ((2, 0, 3), (0, 3), 2), ((0,), (0,), 1)])
def test_tensordot_of_an_empty_contraction_is_zeros_as_torch(sa, sb, dims) -> None:
    want = torch.tensordot(torch.ones(sa), torch.ones(sb), dims)
    got = st.tensordot(st.ones(sa), st.ones(sb), dims)
    assert got.shape == tuple(want.shape) and got.tolist() == want.tolist()


@pytest.mark.parametrize("name,args,kw", [
    ("leaky_relu_", (0.1,), {}), ("elu_", (1.0,), {}), ("hardtanh_", (), {}), ("relu_", (), {}),
    ("silu", (), {"inplace": True}), ("elu", (), {"inplace": True}), ("leaky_relu", (), {"inplace": True}),
    ("hardtanh", (), {"inplace": True}), ("relu", (), {"inplace": True}),
])
def test_functional_in_place_activations_refuse_an_inference_tensor_as_torch(name, args, kw) -> None:
    """F.<act>_ / F.<act>(inplace=True) on a tensor made in inference mode, outside it: PyTorch's
    RuntimeError, with the tensor untouched (PyTorch's own check comes after its kernel for some of
    these, which leaves the values written: strided refuses before anything is written); inside
    the mode it is written as PyTorch writes it."""
    import torch.nn.functional as TF

    import strided.nn.functional as SF

    with torch.inference_mode():
        t = torch.full((3, 4), -0.5)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        getattr(TF, name)(t, *args, **kw)
    with st.inference_mode():
        s = st.full((3, 4), -0.5)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        getattr(SF, name)(s, *args, **kw)
    assert s.tolist() == [[-0.5] * 4] * 3
    with torch.inference_mode():
        t = torch.full((3, 4), -0.5)
    with st.inference_mode():
        getattr(SF, name)(s, *args, **kw)
    with torch.inference_mode():
        getattr(TF, name)(t, *args, **kw)
    assert np.array_equal(s.numpy(), t.numpy())


_PAIRS = {
    "max": lambda L, x, out: L.max(x, 0, out=out), "min": lambda L, x, out: L.min(x, 0, out=out),
    "median": lambda L, x, out: L.median(x, 0, out=out), "nanmedian": lambda L, x, out: L.nanmedian(x, 0, out=out),
    "mode": lambda L, x, out: L.mode(x, 0, out=out), "kthvalue": lambda L, x, out: L.kthvalue(x, 2, 0, out=out),
    "topk": lambda L, x, out: L.topk(x, 2, 0, out=out), "sort": lambda L, x, out: L.sort(x, 0, out=out),
    "cummax": lambda L, x, out: L.cummax(x, 0, out=out), "cummin": lambda L, x, out: L.cummin(x, 0, out=out),
    "aminmax": lambda L, x, out: L.aminmax(x, dim=0, out=out),
}


@pytest.mark.parametrize("name", list(_PAIRS))
@pytest.mark.parametrize("case", ["partial", "full", "fresh"])
def test_pair_outs_overlapping_the_input_as_torch(name: str, case: str) -> None:
    """(values, indices) ops with out= laid across their input (a row of it, resized), being it
    (keepdim over a size-1 dim: out is the input), or fresh: PyTorch refuses a partial overlap for
    max/min/median/mode/topk/aminmax/kthvalue, the full one for kthvalue only, neither for
    sort/cummax/cummin; the values written where it accepts."""
    import warnings as w

    def run(L):
        if case == "full":
            x = L.tensor([[3.0], [1.0], [2.0]])
            call = {"max": lambda: L.max(x, 1, keepdim=True, out=(x, L.empty(0, dtype=L.int64))),
                    "kthvalue": lambda: L.kthvalue(x, 1, 1, keepdim=True, out=(x, L.empty(0, dtype=L.int64))),
                    "median": lambda: L.median(x, 1, keepdim=True, out=(x, L.empty(0, dtype=L.int64)))}.get(name)
            if call is None:
                return "skip", None
        else:
            base = L.tensor(np.arange(12.0).reshape(3, 4) % 5)
            x = base.t()
            first = base[0] if case == "partial" else L.empty(0)
            second = L.empty(0) if name == "aminmax" else L.empty(0, dtype=L.int64)
            call = lambda: _PAIRS[name](L, x, (first, second))  # noqa: E731
        try:
            with w.catch_warnings():
                w.simplefilter("ignore")
                call()
        except Exception as e:  # noqa: BLE001 (the class is compared: strided's are subclasses of PyTorch's)
            return ("RuntimeError" if isinstance(e, RuntimeError) else type(e).__name__), None
        return "ok", (x if case == "full" else first).numpy().copy()

    want, wv = run(torch)
    got, gv = run(st)
    assert got == want
    if want == "ok" and case != "partial":  # (an accepted partial overlap: PyTorch reads what it wrote)
        assert np.array_equal(gv, wv)
