"""Session 34, xfa34: divergences from PyTorch fixed, each checked bit for bit against torch.

1. hardsigmoid / hardswish NaN words: PyTorch's vector lanes write the all-ones NaN word
   (``Vectorized`` maximum's), its scalar tail and strided rows keep the input's NaN.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as F

_WORDS = {2: (torch.int16, strided.int16), 4: (torch.int32, strided.int32), 8: (torch.int64, strided.int64)}
_TDT = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16, "bfloat16": torch.bfloat16}


def _words_t(t: torch.Tensor) -> np.ndarray:
    return t.contiguous().view(_WORDS[t.element_size()][0]).numpy()


def _words_s(s: strided.Tensor) -> np.ndarray:
    return np.asarray(s.contiguous().view(_WORDS[s.element_size()][1]).numpy())


def _nan_input(n: int, dtype: str, seed: int) -> tuple[torch.Tensor, strided.Tensor]:
    """``n`` values of ``dtype``, about half NaNs with a payload bit (not the default NaN)."""
    rng = np.random.default_rng(seed)
    t = torch.tensor(rng.standard_normal(n) * 4, dtype=torch.float32).to(_TDT[dtype])
    t[torch.from_numpy(rng.random(n) < 0.5)] = float("nan")
    w = t.view(_WORDS[t.element_size()][0])
    w[torch.isnan(t)] |= 1
    s = strided.from_numpy(w.numpy().copy()).view(getattr(strided, dtype))
    return t, s


def _apply(F_, name: str, x, layout: str, n: int):
    f = getattr(F_, name)
    if layout == "flat":
        return f(x)
    if layout == "slice":
        return f(x[::2])
    if layout == "T":
        return f(x.reshape(2, n // 2).T)
    if layout == "expand0d":
        return f(x[0])
    c = x.clone() if layout == "inplace" else x.clone().reshape(2, n // 2).T
    r = f(c, inplace=True)
    assert r is c
    return c


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("name", ["hardsigmoid", "hardswish"])
@pytest.mark.parametrize("layout", ["flat", "slice", "T", "inplace", "inplaceT", "expand0d"])
def test_hard_activation_nan_words(name: str, dtype: str, layout: str) -> None:
    for n in [2, 8, 16, 18, 32, 34, 48, 64, 66, 96, 130, 258]:
        t, s = _nan_input(n, dtype, n)
        want, got = _apply(TF, name, t, layout, n), _apply(F, name, s, layout, n)
        assert tuple(want.shape) == tuple(got.shape) and want.stride() == got.stride()
        np.testing.assert_array_equal(_words_s(got), _words_t(want), err_msg=f"{name} {dtype} {layout} {n}")


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["hardsigmoid", "hardswish"])
def test_hard_activation_nan_words_beyond_the_grain(name: str, dtype: str) -> None:
    """Past PyTorch's parallel grain (32768): the NumPy forward and the lanes by loop positions."""
    t, s = _nan_input(40003, dtype, 7)
    np.testing.assert_array_equal(_words_s(getattr(F, name)(s)), _words_t(getattr(TF, name)(t)))
    np.testing.assert_array_equal(_words_s(getattr(F, name)(s[:-3].reshape(-1, 8)[:, :5])),
                                  _words_t(getattr(TF, name)(t[:-3].reshape(-1, 8)[:, :5])))


def test_hard_activation_nan_words_in_autograd() -> None:
    """The recording entry (an input that requires grad) gives the same words as torch's."""
    t, s = _nan_input(48, "float32", 3)
    for name in ("hardsigmoid", "hardswish"):
        want = getattr(TF, name)(t.clone().requires_grad_())
        got = getattr(F, name)(s.clone().requires_grad_())
        np.testing.assert_array_equal(_words_s(got.detach()), _words_t(want.detach()))


# --- 3, 4. prelu: the second derivative's masks (input >= 0), and the weight's ViewBackward0 ------------------

def _graph(fn) -> object:
    if fn is None:
        return None
    return (fn.name(), tuple(_graph(f) for f, _ in fn.next_functions))


_PRELU_SHAPES = [((2, 3, 4), (3,)), ((2, 3, 4), (1,)), ((2, 3), (3,)), ((5,), (1,)), ((), (1,)), ((2, 3, 4), ()),
                 ((5,), ()), ((2, 1), (1,)), ((0, 3), (3,))]


@pytest.mark.parametrize("xs,ws", _PRELU_SHAPES)
@pytest.mark.parametrize("weight_grad", [True, False])
def test_prelu_graph_and_gradients_to_the_second_order(xs: tuple, ws: tuple, weight_grad: bool) -> None:
    rng = np.random.default_rng(len(xs) * 10 + len(ws))
    xv = rng.choice([0.0, -0.0, 1.5, -2.0, 0.25, -0.75], size=xs)
    wv = rng.standard_normal(ws)
    gv = rng.standard_normal(xs)
    out = []
    for M, F_ in ((torch, TF), (strided, F)):
        x = M.tensor(xv, dtype=M.float64, requires_grad=True)
        w = M.tensor(wv, dtype=M.float64, requires_grad=weight_grad)
        g = M.tensor(gv, dtype=M.float64, requires_grad=True)
        r = F_.prelu(x, w)
        wanted = (x, w) if weight_grad else (x,)
        first = M.autograd.grad(r, wanted, g, create_graph=True)
        loss = sum((f * f * 1.5).sum() for f in first) + (first[0] * x).sum()
        second = M.autograd.grad(loss, (g, *wanted), allow_unused=True)
        out.append((_graph(r.grad_fn), [f.detach().numpy() for f in first],
                    [None if s is None else s.numpy() for s in second]))
    assert out[0][0] == out[1][0]
    for a, b in zip(out[0][1], out[1][1]):
        np.testing.assert_array_equal(b, a)
    for a, b in zip(out[0][2], out[1][2]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(b, a, rtol=1e-14, atol=0)


# --- 2. in-place elu / celu / selu on a tensor in the graph: EluBackward1 / CeluBackward1 from the result -----

_ELU_CALLS = {
    "F.elu inplace": lambda FF, v: FF.elu(v, 0.7, inplace=True),
    "F.elu_": lambda FF, v: FF.elu_(v, 1.3),
    "F.celu inplace": lambda FF, v: FF.celu(v, 0.3, inplace=True),
    "F.celu_": lambda FF, v: FF.celu_(v, 2.5),
    "F.selu inplace": lambda FF, v: FF.selu(v, inplace=True),
    "F.selu_": lambda FF, v: FF.selu_(v),
    "nn.ELU": lambda FF, v: (torch.nn if FF is TF else strided.nn).ELU(0.9, inplace=True)(v),
    "nn.CELU": lambda FF, v: (torch.nn if FF is TF else strided.nn).CELU(0.6, inplace=True)(v),
    "nn.SELU": lambda FF, v: (torch.nn if FF is TF else strided.nn).SELU(inplace=True)(v),
}


def _elu_graph(L, FF, call: str, where: str, dtype: str, xv: np.ndarray, wv: np.ndarray, order: int):
    x = L.tensor(xv, dtype=getattr(L, dtype), requires_grad=True)
    z = x * 2
    v = {"whole": z, "slice": z[1:-1], "strided": z[::2], "T": z.reshape(2, -1).T}[where]
    _ELU_CALLS[call](FF, v)
    names = (z.grad_fn.name(), v.grad_fn.name())
    loss = (z * L.tensor(wv, dtype=getattr(L, dtype))).sum()
    if order == 1:
        loss.backward()
        return names, z.detach().float().numpy(), x.grad.float().numpy(), z._version
    (gx,) = L.autograd.grad(loss, x, create_graph=True)
    (ggx,) = L.autograd.grad((gx * gx).sum(), x)
    return names, gx.detach().float().numpy(), ggx.float().numpy(), z._version


@pytest.mark.parametrize("call", list(_ELU_CALLS))
@pytest.mark.parametrize("where", ["whole", "slice", "strided", "T"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_elu_family_inplace_in_graph_gradient_bits(call: str, where: str, dtype: str) -> None:
    rng = np.random.default_rng(abs(hash((call, where, dtype))) % 2**32)
    xv = np.concatenate([[0.0, -0.0, -1e-3, 1e-3], rng.standard_normal(36) * 2])
    wv = rng.standard_normal(40)
    want = _elu_graph(torch, TF, call, where, dtype, xv, wv, 1)
    got = _elu_graph(strided, F, call, where, dtype, xv, wv, 1)
    assert got[0] == want[0]
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[2], want[2])
    assert got[3] == want[3]


@pytest.mark.parametrize("call", ["F.elu inplace", "F.celu inplace", "F.selu inplace"])
@pytest.mark.parametrize("where", ["whole", "slice"])
def test_elu_family_inplace_in_graph_second_derivative(call: str, where: str) -> None:
    rng = np.random.default_rng(5)
    xv = np.concatenate([[0.0, -0.0, -1e-3, 1e-3], rng.standard_normal(36) * 2])
    wv = rng.standard_normal(40)
    want = _elu_graph(torch, TF, call, where, "float64", xv, wv, 2)
    got = _elu_graph(strided, F, call, where, "float64", xv, wv, 2)
    assert got[0] == want[0]
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_allclose(got[2], want[2], rtol=1e-14, atol=1e-300)


def test_elu_inplace_result_modified_later_refuses_backward() -> None:
    """EluBackward1 saves the result: a later in-place write of it fails the backward, as in torch."""
    for L, FF in ((torch, TF), (strided, F)):
        x = L.tensor([1.0, -2.0, 0.5], requires_grad=True)
        z = x * 2
        FF.elu(z, inplace=True)
        z.mul_(3)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.sum().backward()


# --- 4. huber_loss's graph: PyTorch's Python broadcasts first (ExpandBackward0), weighted is Mul then reduce ----

@pytest.mark.parametrize("ys", [(3, 4), (4,), (3, 1), (1, 4), (2, 3, 4)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weight", [None, "detached", "grad"])
@pytest.mark.parametrize("needs", ["x", "y", "xy"])
def test_huber_graph_and_gradient_bits(ys: tuple, reduction: str, weight: str | None, needs: str) -> None:
    rng = np.random.default_rng(len(ys) * 7 + len(needs))
    xv, yv, wv = rng.standard_normal((3, 4)) * 2, rng.standard_normal(ys), rng.standard_normal((3, 4))
    out = []
    for M, F_ in ((torch, TF), (strided, F)):
        x = M.tensor(xv, dtype=M.float32, requires_grad="x" in needs)
        y = M.tensor(yv, dtype=M.float32, requires_grad="y" in needs)
        w = None if weight is None else M.tensor(wv, dtype=M.float32, requires_grad=weight == "grad")
        with pytest.warns(UserWarning) if ys != (3, 4) else _no_warning():
            r = F_.huber_loss(x, y, reduction=reduction, delta=0.7, weight=w)
        leaves = [t for t in (x, y, w) if t is not None and t.requires_grad]
        g = M.ones(r.shape, dtype=M.float32) * 1.3
        out.append((_graph(r.grad_fn), [a.numpy() for a in M.autograd.grad(r, leaves, g)], r.detach().numpy()))
    assert out[0][0] == out[1][0]
    np.testing.assert_array_equal(out[1][2], out[0][2])
    for a, b in zip(out[0][1], out[1][1]):
        np.testing.assert_array_equal(b, a)


class _no_warning:
    def __enter__(self):
        import warnings
        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        self._w.__exit__(*exc)


def test_huber_broadcast_second_derivative() -> None:
    rng = np.random.default_rng(11)
    xv, yv = rng.standard_normal((3, 4)) * 2, rng.standard_normal(4)
    res = []
    for M, F_ in ((torch, TF), (strided, F)):
        x = M.tensor(xv, requires_grad=True, dtype=M.float64)
        y = M.tensor(yv, requires_grad=True, dtype=M.float64)
        with pytest.warns(UserWarning):
            r = F_.huber_loss(x, y, delta=0.9)
        gx, gy = M.autograd.grad(r, (x, y), create_graph=True)
        res.append([v.numpy() for v in M.autograd.grad((gx * gx).sum() + (gy * gy * x[0]).sum(), (x, y))])
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-14)


# --- 5. PyTorch's _saved_* attributes on the nodes whose rules name their saved values ----------------------

def _saved_of(fn) -> dict:
    out = {}
    for a in dir(fn):
        if a.startswith("_saved"):
            v = getattr(fn, a)
            out[a] = ("T", tuple(v.shape), v.detach().numpy().tolist()) if hasattr(v, "shape") else v
    return out


_SAVED_CASES = {
    "huber mean": lambda M, F_, x: F_.huber_loss(x, x.detach() * 2, delta=0.5),
    "huber sum": lambda M, F_, x: F_.huber_loss(x, x.detach() * 2, reduction="sum", delta=0.3),
    "huber none broadcast": lambda M, F_, x: F_.huber_loss(x, x.detach()[0] * 2, reduction="none"),
    "glu": lambda M, F_, x: F_.glu(x, 1),
    "glu -1": lambda M, F_, x: F_.glu(x, -1),
    "prelu": lambda M, F_, x: F_.prelu(x, M.tensor([0.25], requires_grad=True)),
    "prelu channels": lambda M, F_, x: F_.prelu(x, M.tensor([0.25, -0.5, 1.5, 0.0])),
}


@pytest.mark.parametrize("case", list(_SAVED_CASES))
def test_saved_attributes_of_named_nodes(case: str) -> None:
    out = []
    for M, F_ in ((torch, TF), (strided, F)):
        x = M.tensor([[1.0, -2.0, 3.0, 0.5], [0.0, -1.0, 2.0, 4.0]], requires_grad=True)
        with pytest.warns(UserWarning) if "broadcast" in case else _no_warning():
            out.append(_saved_of(_SAVED_CASES[case](M, F_, x).grad_fn))
    assert out[1] == out[0]


@pytest.mark.parametrize("call", ["F.elu_", "F.celu_", "F.selu_"])
def test_saved_attributes_of_elu_result_nodes(call: str) -> None:
    out = []
    for M, F_ in ((torch, TF), (strided, F)):
        z = M.tensor([1.0, -2.0, 0.5], requires_grad=True) * 1
        if call == "F.elu_":
            F_.elu_(z, 0.5)
        elif call == "F.celu_":
            F_.celu_(z, 0.5)
        else:
            F_.selu_(z)
        out.append(_saved_of(z.grad_fn))
    assert out[1].keys() == out[0].keys()
    for k in out[0]:
        assert out[1][k] == out[0][k] or np.allclose(out[1][k][2], out[0][k][2]), k


def test_saved_tensor_refused_after_backward() -> None:
    for M, F_ in ((torch, TF), (strided, F)):
        x = M.ones(2, 4, requires_grad=True)
        r = F_.glu(x, 1).sum()
        fn = r.grad_fn.next_functions[0][0]
        assert fn._saved_dim == 1
        r.backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            _ = fn._saved_self
        assert fn._saved_dim == 1
        with pytest.raises(AttributeError):
            _ = fn._saved_nothing
