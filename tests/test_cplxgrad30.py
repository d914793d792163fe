"""Complex gradients bit for bit against PyTorch, signs of zero included (session 30): the rules
that now perform PyTorch's formula for complex results (derivatives.yaml's ``.conj()``s, its
operations in its order) instead of the holomorphic rule conjugated around, whose values agree
but whose zeros came out as -0.0 (or +0.0) parts where PyTorch's are the other sign. Inputs and
gradients are drawn from small integers and signed zeros (pure real, pure imaginary and zero
values are common), in plain, transposed, stepped and expanded layouts; first order, and second
order (create_graph) where the fix covers it. (tools/complex_grad_signs.py is the sweep over
every registry op that found them.)"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided

torch = pytest.importorskip("torch")

_PARTS = (-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 2.0)
_DTYPES = (np.complex64, np.complex128)

# op -> the call, for the unary rules written as PyTorch's complex formula
_UNARY = ("exp", "log", "sqrt", "cos", "sin", "log1p", "expm1", "log2", "log10", "exp2", "rsqrt", "reciprocal",
          "square", "sinh", "cosh", "tan", "asin", "acos", "atan", "asinh", "acosh", "atanh")
# op -> call(L, x): the movement and linear rules (not conjugated around any more)
_MOVES = {
    "where": lambda L, x: L.where(L.from_numpy(np.arange(x.numel()).reshape(tuple(x.shape)) % 3 == 0), x, 0.0),
    "diff": lambda L, x: x.diff(dim=-1),
    "diff2": lambda L, x: x.diff(n=2, dim=0),
    "repeat_interleave": lambda L, x: x.repeat_interleave(2, 0),
    "diagonal_copy": lambda L, x: L.diagonal_copy(x),
    "expand_copy": lambda L, x: L.expand_copy(x.unsqueeze(0), (2, *x.shape)),
    "narrow_copy": lambda L, x: L.narrow_copy(x, 0, 0, 1),
    "unfold_copy": lambda L, x: L.unfold_copy(x, 1, 1, 1),
    "prod": lambda L, x: x.prod(0),
    "prod_all": lambda L, x: x.prod(),
}


def _values(data, shape: tuple, dtype, nonzero: bool = False) -> np.ndarray:
    parts = [p for p in _PARTS if p != 0] if nonzero else list(_PARTS)
    n = int(np.prod(shape))
    re = data.draw(hs.lists(hs.sampled_from(parts), min_size=n, max_size=n))
    im = data.draw(hs.lists(hs.sampled_from(_PARTS if not nonzero else _PARTS), min_size=n, max_size=n))
    out = np.empty(shape, dtype)
    out.real = np.array(re).reshape(shape)
    out.imag = np.array(im).reshape(shape)
    return out


def _layout(L, arr: np.ndarray, layout: str):
    """(the leaf, the op's input: the leaf seen through ``layout``)."""
    if layout == "transposed" and arr.ndim == 2:
        t = L.from_numpy(arr.T.copy()).requires_grad_(True)
        return t, t.T
    if layout == "stepped" and arr.ndim >= 1:
        big = np.repeat(arr, 2, axis=-1)
        t = L.from_numpy(big).requires_grad_(True)
        return t, t[..., ::2]
    if layout == "expanded" and arr.ndim >= 1:
        t = L.from_numpy(arr[:1].copy()).requires_grad_(True)
        return t, t.expand(*arr.shape)
    t = L.from_numpy(arr.copy()).requires_grad_(True)
    return t, t


def _bits(t) -> bytes:
    a = np.ascontiguousarray(t.detach().resolve_conj().numpy() if isinstance(t, torch.Tensor) else t.detach().numpy())
    f = a.view(a.real.dtype).copy()
    f[np.isnan(f)] = np.nan  # (NaN payloads and signs aside: the subject is the zeros' signs)
    return f.tobytes()


def _grads(L, call, arr, g_arr, layout: str, second: np.ndarray | None):
    leaf, x = _layout(L, arr, layout)
    out = call(L, x)
    g = L.from_numpy(g_arr.reshape(tuple(out.shape)).copy()).requires_grad_(second is not None)
    (gx,) = L.autograd.grad(out, leaf, g, create_graph=second is not None)
    found = [_bits(gx)]
    if second is not None and gx.requires_grad:
        w = L.from_numpy(second.reshape(tuple(gx.shape)).copy())
        found += [None if t is None else _bits(t) for t in L.autograd.grad(gx, (leaf, g), w, allow_unused=True)]
    return found


def _check(data, call, shape, layout, nonzero: bool = False, second: bool = False, dtype=None) -> None:
    dtype = dtype or data.draw(hs.sampled_from(_DTYPES))
    arr = _values(data, shape, dtype, nonzero)
    with torch.no_grad():
        n = call(torch, torch.from_numpy(arr)).numel()
    g = _values(data, (n,), dtype)
    w = _values(data, arr.shape, dtype) if second else None  # (second order: plain and transposed inputs)
    want = _grads(torch, call, arr, g, layout, w)
    got = _grads(strided, call, arr, g, layout, w)
    assert got == want, (shape, dtype, layout, arr.tolist(), g.tolist())


_LAYOUTS = hs.sampled_from(("plain", "transposed", "stepped", "expanded"))
_SHAPES = hs.sampled_from(((), (3,), (2, 3), (3, 2), (1, 4)))


@pytest.mark.parametrize("op", _UNARY)
@settings(max_examples=25, deadline=None)
@given(data=hs.data(), shape=_SHAPES, layout=_LAYOUTS)
def test_unary_complex_gradient_is_torchs_formula(op, data, shape, layout):
    """PyTorch's ``grad * f'(x).conj()`` as derivatives.yaml writes it (its order, its conj())."""
    _check(data, lambda L, x: getattr(x, op)(), shape, layout)


@pytest.mark.parametrize("op", ("exp", "sqrt", "sin", "cos", "reciprocal", "sinh", "expm1", "acos"))
@settings(max_examples=15, deadline=None)
@given(data=hs.data(), shape=_SHAPES, layout=hs.sampled_from(("plain", "transposed")))
def test_unary_complex_second_derivative_is_torchs(op, data, shape, layout):
    """create_graph: the recorded formula's own derivative (in x and in g) is PyTorch's too."""
    _check(data, lambda L, x: getattr(x, op)(), shape, layout, second=True)


@settings(max_examples=60, deadline=None)
@given(data=hs.data(), shape=_SHAPES, layout=_LAYOUTS, reflected=hs.booleans())
def test_complex_div_gradients_are_torchs(data, shape, layout, reflected):
    """div_tensor_self_backward's ``g / b.conj()`` and div_tensor_other_backward's
    ``-g * ((a / b) / b).conj()``; ``number / t`` as PyTorch's ``t.reciprocal() * number``."""
    dtype = data.draw(hs.sampled_from(_DTYPES))
    other = _values(data, shape, dtype, nonzero=True)
    number = data.draw(hs.sampled_from((2.0, -1.5, 0.5j, 1 - 2j)))

    def call(L, x):
        return number / x if reflected else x / L.from_numpy(other)

    _check(data, call, shape, layout, dtype=dtype)
    _check(data, lambda L, x: L.from_numpy(other) / x, shape, layout, nonzero=True, dtype=dtype)


@pytest.mark.parametrize("op", sorted(_MOVES))
@settings(max_examples=30, deadline=None)
@given(data=hs.data(), layout=_LAYOUTS)
def test_moving_rules_keep_torchs_zeros(op, data, layout):
    """Rules that move, negate or add g's elements (real coefficients) and prod's
    ``g * (out / x).conj()``: the same formula in PyTorch's convention, so not conjugated around."""
    shape = data.draw(hs.sampled_from(((2, 3), (3, 3), (4, 2))))
    _check(data, lambda L, x: _MOVES[op](L, x), shape, layout, nonzero=op.startswith("prod"))


@pytest.mark.parametrize("op", ("split", "unbind", "chunk", "split_copy", "unbind_copy"))
@settings(max_examples=30, deadline=None)
@given(data=hs.data(), layout=hs.sampled_from(("plain", "transposed", "stepped")), which=hs.sampled_from((None, 0, 1)))
def test_pieces_create_graph_is_torchs_cat(op, data, layout, which):
    """split/chunk/unbind under create_graph: PyTorch's split_with_sizes_backward / unbind_backward
    cat or stack the pieces' gradients (zeros for a piece without one), keeping g's -0.0 (a sum of
    placed pieces made it +0.0), and their second derivatives go back through cat/stack."""
    dtype = data.draw(hs.sampled_from(_DTYPES + (np.float64,)))
    shape = (2, 3)
    arr = _values(data, shape, np.complex128).astype(dtype) if dtype is not np.float64 else \
        _values(data, shape, np.complex128).real.copy()
    calls = {"split": lambda L, x: x.split([1, 2], 1), "unbind": lambda L, x: x.unbind(1),
             "chunk": lambda L, x: x.chunk(2, 1), "split_copy": lambda L, x: L.split_copy(x, 2, 1),
             "unbind_copy": lambda L, x: L.unbind_copy(x, 0)}
    found = []
    seed = data.draw(hs.integers(0, 99))
    for L in (torch, strided):
        leaf, x = _layout(L, arr, layout)
        pieces = calls[op](L, x)
        rng = np.random.default_rng(seed)
        gs = [L.from_numpy(np.where(rng.random(tuple(p.shape)) < 0.5, -0.0, rng.integers(-2, 3, tuple(p.shape)))
                           .astype(dtype)).requires_grad_(True) for p in pieces]
        outs = [p for k, p in enumerate(pieces) if k != which]
        grads = [g for k, g in enumerate(gs) if k != which]
        (gx,) = L.autograd.grad(outs, leaf, grads, create_graph=True)
        w = L.from_numpy(np.where(rng.random(tuple(gx.shape)) < 0.5, -0.0, 1.0).astype(dtype))
        second = L.autograd.grad(gx, grads, w)
        found.append([_bits(gx)] + [_bits(t) for t in second])
    assert found[1] == found[0], (op, layout, which, dtype)


@pytest.mark.parametrize("dtype", (np.float32, np.float64))
@pytest.mark.parametrize("n", (1, 2))
def test_real_diff_gradient_adds_the_negated_piece(dtype, n):
    """diff's gradient as PyTorch's narrow/sub: -g placed in zeros and added, so g's -0.0 next to a
    placed zero is +0.0 (hi - pad(g) kept -0.0 at the last place)."""
    found = []
    for L in (torch, strided):
        x = L.from_numpy(np.arange(8, dtype=dtype).reshape(2, 4)).requires_grad_(True)
        y = x.diff(n=n, dim=1)
        y.backward(L.from_numpy(np.full(tuple(y.shape), -0.0, dtype)))
        found.append(x.grad.numpy().tobytes())
    assert found[1] == found[0]
