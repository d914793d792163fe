"""Found by the session-31 hostile probes (saved tensors modified in place before backward,
in-place ops on views of views, optimizers), each against PyTorch 2.13: autograd must raise
PyTorch's "modified by an inplace operation" error where PyTorch does, never give a gradient
computed from the modified values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided

torch = pytest.importorskip("torch")

_INPLACE = "one of the variables needed for gradient computation has been modified by an inplace operation"


def _outcome(lib, fn):
    """('ok', gradient as float64 NumPy) or ('error', first line)."""
    try:
        g = fn(lib)
    except RuntimeError as e:
        return "error", str(e).splitlines()[0]
    return "ok", g.detach().to(lib.float64).numpy()


def _layout(lib, arr: np.ndarray, layout: str):
    """(leaf, the same values seen through ``layout``)."""
    if layout == "transposed" and arr.ndim >= 2:
        leaf = lib.tensor(arr.T.copy(), dtype=lib.float64, requires_grad=True)
        return leaf, leaf.t()
    if layout == "sliced" and arr.ndim >= 1:
        leaf = lib.tensor(np.repeat(arr, 2, axis=-1), dtype=lib.float64, requires_grad=True)
        return leaf, leaf[..., ::2]
    leaf = lib.tensor(arr, dtype=lib.float64, requires_grad=True)
    return leaf, leaf


# ---------------------------------------------------------------- prod saves its result

@settings(max_examples=40, deadline=None)
@given(shape=hs.sampled_from([(), (3,), (2, 3), (1, 4), (0, 3)]),
       layout=hs.sampled_from(["contiguous", "transposed", "sliced"]),
       dim=hs.sampled_from([None, 0, -1]), keepdim=hs.booleans(), seed=hs.integers(0, 2**16))
def test_prod_result_modified_in_place_raises(shape, layout, dim, keepdim, seed):
    """PyTorch's ProdBackward0/1 save the result: modifying it in place before backward raises;
    strided read the modified result instead (``g * out / x``: a silently wrong gradient)."""
    arr = np.random.default_rng(seed).uniform(0.5, 1.5, shape)
    if dim is not None and not shape:
        dim = None

    def run(lib):
        leaf, x = _layout(lib, arr, layout)
        y = x * 1.0
        out = y.prod() if dim is None else y.prod(dim, keepdim=keepdim)
        out.mul_(2.0)
        return lib.autograd.grad((out * 3.0).sum(), leaf)[0]

    assert _outcome(strided, run)[0] == _outcome(torch, run)[0] == "error"
    assert _INPLACE in _outcome(strided, run)[1]


# ---------------------------------------------------------------- multi-output views, written through their base

def _multi_output_case(lib, split: str, piece: int, nested: bool, write: str, ask: str):
    x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = x * 1.0
    pieces = {"unbind": lambda: y.unbind(0), "split": lambda: y.split(1), "chunk": lambda: y.chunk(2),
              "split_sizes": lambda: y.split([1, 1])}[split]()
    v = pieces[piece][0] if nested else pieces[piece]
    if write == "base":
        y.add_(1.0)
    elif write == "base_no_grad":
        with lib.no_grad():
            y.add_(1.0)
    else:  # another view of the base, not one of the pieces
        y[:, 0].mul_(2.0)
    if ask == "grad_fn":
        return type(v.grad_fn).__name__
    if ask == "is_leaf":
        return v.is_leaf
    return lib.autograd.grad((v * 2.0).sum(), x)[0].tolist()


@pytest.mark.parametrize("split", ["unbind", "split", "chunk", "split_sizes"])
@pytest.mark.parametrize("nested", [False, True])
@pytest.mark.parametrize("write", ["base", "base_no_grad", "other_view"])
@pytest.mark.parametrize("ask", ["grad_fn", "is_leaf", "grad"])
def test_multi_output_view_after_base_written_raises(split, nested, write, ask):
    """PyTorch refuses an output of unbind/split (or a view of one) once its base or another view
    of the base was written in place (handle_view_on_rebase, indirect), when its history is asked
    for; strided regenerated an AsStridedBackward0 and went on."""
    outcome = {}
    for lib in (torch, strided):
        try:
            outcome[lib] = ("ok", _multi_output_case(lib, split, 1, nested, write, ask))
        except RuntimeError as e:
            outcome[lib] = ("error", str(e).splitlines()[0])
    assert outcome[torch][0] == "error"
    assert outcome[strided] == outcome[torch]


def test_multi_output_views_unwritten_still_differentiate():
    """The refusal is only for a written base: the pieces' gradients are PyTorch's otherwise."""
    for lib in (torch, strided):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        a, b = (x * 1.0).unbind(0)
        g = lib.autograd.grad((a * 3.0 + b).sum(), x)[0]
        assert g.tolist() == [[3.0, 3.0], [1.0, 1.0]]


# ---------------------------------------------------------------- inputs PyTorch saves, written before backward

def _idx(lib, data):
    return lib.tensor(data, dtype=lib.int64)


SAVED_INPUTS = {
    # name: (forward(lib, a, b) on two (2, 3) non-leaf inputs, which of them to write in place)
    "gather self": (lambda lib, a, b: a.gather(1, _idx(lib, [[2, 0], [1, 1]])), 0),
    "take self": (lambda lib, a, b: a.take(_idx(lib, [0, 4, 4])), 0),
    "take_along_dim self": (lambda lib, a, b: a.take_along_dim(_idx(lib, [[2, 0], [1, 1]]), 1), 0),
    "take_along_dim flat self": (lambda lib, a, b: a.take_along_dim(_idx(lib, [5, 0])), 0),
    "masked_select self": (lambda lib, a, b: a.masked_select(lib.tensor([True, False, True])), 0),
    "index_add source": (lambda lib, a, b: a.index_add(1, _idx(lib, [0, 2, 0]), b), 1),
    "index_copy source": (lambda lib, a, b: a.index_copy(1, _idx(lib, [2, 0, 1]), b), 1),
    "put source": (lambda lib, a, b: a.put(_idx(lib, [0, 5]), b.reshape(-1)[:2]), 1),
    "scatter_reduce sum self": (lambda lib, a, b: a.scatter_reduce(1, _idx(lib, [[2, 2, 0], [1, 0, 1]]), b, "sum"), 0),
    "scatter_reduce sum src": (lambda lib, a, b: a.scatter_reduce(1, _idx(lib, [[2, 2, 0], [1, 0, 1]]), b, "mean"), 1),
    "cummax self": (lambda lib, a, b: a.cummax(1)[0], 0),
    "cummin self": (lambda lib, a, b: a.cummin(0)[0], 0),
    "max_pool1d self": (lambda lib, a, b: lib.nn.functional.max_pool1d(a.unsqueeze(0), 2), 0),
    "avg_pool2d self": (lambda lib, a, b: lib.nn.functional.avg_pool2d(a.reshape(1, 1, 2, 3), 2, 1), 0),
    "layer_norm bias": (lambda lib, a, b: lib.nn.functional.layer_norm(a, (3,), b[0], b[1]), 1),
}


@pytest.mark.parametrize("name", sorted(SAVED_INPUTS))
@pytest.mark.parametrize("how", ["whole", "view"])
def test_saved_input_written_before_backward_raises(name, how):
    """PyTorch saves these inputs (their sizes or values) with their versions: written in place
    between forward and backward, backward raises; strided did not save them and went on (its
    gradients did not read them: the same numbers, but no error where PyTorch has one)."""
    fwd, which = SAVED_INPUTS[name]
    arrs = [np.linspace(-1.0, 1.5, 6).reshape(2, 3), np.linspace(0.5, -0.7, 6).reshape(2, 3)]
    outcome = {}
    for lib in (torch, strided):
        leaves = [lib.tensor(a, requires_grad=True) for a in arrs]
        ins = [leaf * 1.0 for leaf in leaves]
        out = fwd(lib, *ins)
        target = ins[which] if how == "whole" else ins[which][0]
        with lib.no_grad():
            target.mul_(1.5)
        try:
            gs = lib.autograd.grad((out * 2.0).sum(), leaves, allow_unused=True)
            outcome[lib] = ("ok", [None if g is None else g.tolist() for g in gs])
        except RuntimeError as e:
            outcome[lib] = ("error", str(e).splitlines()[0][:len(_INPLACE)])
    assert outcome[torch] == ("error", _INPLACE)
    assert outcome[strided] == outcome[torch]


# ---------------------------------------------------------------- factors PyTorch does not save

FACTORS = {
    # name: forward(lib, x, a, b); x always requires grad, a and b as the case says
    "addcmul": lambda lib, x, a, b: x.addcmul(a, b, value=0.5),
    "addcdiv": lambda lib, x, a, b: x.addcdiv(a, b, value=-2.0),
    "lerp": lambda lib, x, a, b: x.lerp(a, b),
    "addcmul_": lambda lib, x, a, b: (x * 1.0).addcmul_(a, b),
    "lerp_": lambda lib, x, a, b: (x * 1.0).lerp_(a, b),
}


@pytest.mark.parametrize("name", sorted(FACTORS))
@pytest.mark.parametrize("grads", ["x", "x a", "x b", "x a b"])
@pytest.mark.parametrize("written", ["a", "b"])
def test_factor_written_before_backward_as_pytorch(name, grads, written):
    """PyTorch saves addcmul's tensor2 only for tensor1's gradient (and tensor1 for tensor2's),
    addcdiv's tensor1 only for tensor2's, lerp's self and end only for weight's: a factor outside
    the graph may be written in place before backward (the gradients do not read it); strided
    saved them all and raised. Where PyTorch raises, strided raises; else the same gradients."""
    arrs = [np.linspace(-1.0, 1.0, 6).reshape(2, 3), np.linspace(0.5, 1.5, 6).reshape(2, 3),
            np.linspace(0.2, 0.9, 3)]
    outcome = {}
    for lib in (torch, strided):
        x = lib.tensor(arrs[0], requires_grad=True)
        a = lib.tensor(arrs[1], requires_grad="a" in grads.split())
        b = lib.tensor(arrs[2], requires_grad="b" in grads.split())
        ins = [x] + [t for t, n in ((a, "a"), (b, "b")) if n in grads.split()]
        a_, b_ = (a * 1.0 if a.requires_grad else a), (b * 1.0 if b.requires_grad else b)
        y = FACTORS[name](lib, x, a_, b_)
        with lib.no_grad():
            (a_ if written == "a" else b_).mul_(1.5)
        try:
            gs = lib.autograd.grad((y * 3.0).sum(), ins)
            outcome[lib] = ("ok", [g.tolist() for g in gs])
        except RuntimeError as e:
            outcome[lib] = ("error", str(e).splitlines()[0][:len(_INPLACE)])
    assert outcome[strided][0] == outcome[torch][0]
    if outcome[torch][0] == "ok":
        for mine, theirs in zip(outcome[strided][1], outcome[torch][1]):
            np.testing.assert_allclose(mine, theirs, rtol=1e-12)
    else:
        assert outcome[strided] == outcome[torch] == ("error", _INPLACE)


def _real_view(lib, piece, view: str):
    if view == "real":
        return piece.real
    if view == "imag":
        return piece.imag
    if view == "slice_real":
        return piece[::2].real
    return lib.view_as_real(piece)


@pytest.mark.parametrize("view", ["real", "imag", "slice_real", "view_as_real"])
def test_multi_output_view_through_real_parts_refuses_in_place(view):
    """A ``real``/``imag``/``view_as_real`` view of a chunk of a complex tensor inherits the
    chunk's refusal of in-place writes with grad mode on, as in PyTorch (strided lost it: those
    views read the same bytes through a typed alias of the storage)."""
    outcome = {}
    for lib in (torch, strided):
        x = lib.tensor([1 + 1j, 2 + 2j, 3 + 3j, 4 + 4j], requires_grad=True)
        piece = x.clone().chunk(2)[0]
        v = _real_view(lib, piece, view)
        try:
            v.mul_(2.0)
            outcome[lib] = "ok"
        except RuntimeError as e:
            outcome[lib] = str(e).splitlines()[0]
    assert outcome[torch] != "ok"
    assert outcome[strided] == outcome[torch]
