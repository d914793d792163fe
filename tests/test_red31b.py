"""Session-31 hostile-probe leftovers (``tools/grad_probe.py --versions``): each rule saves what
PyTorch 2.13's ``derivatives.yaml`` node saves, so writing an input or the result in place before
backward raises "modified by an inplace operation" exactly where PyTorch raises, and the
gradients are unchanged where neither raises."""

from __future__ import annotations

import numpy as np
import pytest

import strided

torch = pytest.importorskip("torch")


def _outcome(lib, op, arrs, dtype: str, what: str, k: int):
    """Write input/output ``k`` of ``op`` (on clones of leaves) in place, then differentiate a
    loss linear in the outputs: ('error', first line) or ('ok', the gradients as NumPy)."""
    leaves = [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True) for a in arrs]
    ins = [leaf.clone() for leaf in leaves]
    out = op(lib, *ins)
    if what is not None:
        with lib.no_grad():
            (ins if what == "in" else [out])[k].mul_(1.5)
    w = lib.tensor(np.linspace(-1, 2, out.numel()).reshape(tuple(out.shape)), dtype=out.dtype)
    loss = (out * w).sum()
    loss = loss.real if loss.dtype.is_complex else loss
    try:
        grads = lib.autograd.grad(loss, leaves)
    except RuntimeError as e:
        return "error", str(e).splitlines()[0]
    return "ok", [_numpy(g.detach()) for g in grads]


def _numpy(g) -> np.ndarray:
    """A gradient's values (PyTorch's sgn of a real tensor gives a ZeroTensor, no storage)."""
    if getattr(g, "_is_zerotensor", lambda: False)():
        return np.zeros(tuple(g.shape))
    return np.asarray(g.tolist())


_CASES = {
    "erfinv": (lambda L, x: x.erfinv(), [np.array([0.1, -0.5, 0.7, 0.0])], ["float32", "float64"]),
    "sgn": (lambda L, x: x.sgn(), [np.array([1 + 2j, -3j, 0j, 2.5])], ["complex64", "complex128"]),
    "sgn_real": (lambda L, x: x.sgn(), [np.array([1.0, -2.0, 0.0, 3.0])], ["float32", "float64"]),
    "ldexp": (lambda L, x, e: L.ldexp(x, e), [np.array([0.5, -1.5, 3.0]), np.array([1.0, -2.0, 3.0])],
              ["float32", "float64"]),
    "complex": (lambda L, a, b: L.complex(a, b), [np.array([0.5, -1.5, 3.0]), np.array([1.0, -2.0, 0.0])],
                ["float32", "float64"]),
}


@pytest.mark.parametrize("name", sorted(_CASES))
@pytest.mark.parametrize("what,k", [("in", 0), ("in", 1), ("out", 0)])
def test_saved_set_as_pytorch(name, what, k):
    op, arrs, dtypes = _CASES[name]
    if what == "in" and k >= len(arrs):
        pytest.skip("no such input")
    for dtype in dtypes:
        theirs = _outcome(torch, op, arrs, dtype, what, k)
        mine = _outcome(strided, op, arrs, dtype, what, k)
        assert theirs[0] == mine[0], (dtype, theirs, mine)
        if theirs[0] == "error":
            assert "modified by an inplace operation" in mine[1]


@pytest.mark.parametrize("name", sorted(_CASES))
def test_gradients_unchanged_without_writes(name):
    """Saving other tensors must not move the gradient: PyTorch's values (to a float32 ulp or two)."""
    op, arrs, dtypes = _CASES[name]
    for dtype in dtypes:
        theirs = _outcome(torch, op, arrs, dtype, None, 0)[1]
        mine = _outcome(strided, op, arrs, dtype, None, 0)[1]
        for t, m in zip(theirs, mine):
            np.testing.assert_allclose(m, t, rtol=2e-6 if dtype in ("float32", "complex64") else 1e-13)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("layout", ["contiguous", "permuted"])
def test_angle_of_real_first_derivative_as_pytorch(dtype, layout):
    """PyTorch's angle_backward gives ``zeros_like(self)`` for a real self: +0 even where the
    incoming gradient is NaN or negative, strides preserved, and no history under create_graph
    (strided gave ``g * 0``: -0, NaN, and a first derivative that required grad)."""
    def run(lib):
        leaf = lib.tensor(np.arange(-3.0, 3.0).reshape(2, 3), dtype=getattr(lib, dtype), requires_grad=True)
        x = leaf.t() if layout == "permuted" else leaf * 1
        w = lib.tensor(np.array([[-1.0, np.nan], [2.0, -0.5], [np.inf, 1.0]])[: x.shape[0], : x.shape[1]]
                       if layout == "permuted" else np.array([[-1.0, np.nan, 2.0], [-0.5, np.inf, 1.0]]),
                       dtype=getattr(lib, dtype))
        (g,) = lib.autograd.grad((x.angle() * w).sum(), leaf, create_graph=True)
        return g.requires_grad, g.grad_fn is None, tuple(g.stride()), np.asarray(g.detach().to(lib.float64).tolist())

    t, m = run(torch), run(strided)
    assert t[:3] == m[:3]
    np.testing.assert_array_equal(np.signbit(m[3]), np.signbit(t[3]))
    np.testing.assert_array_equal(m[3], t[3])
