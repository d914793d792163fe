"""Gradients of the math ops (elementwise breadth, reductions, scans, sorting, einsum, cdist, norms)
against torch.autograd: values (atol 1e-10), node names, and strided.autograd.gradcheck.

Each case is an expression in ``x`` and ``y``: non-contiguous float64 leaves (transposed, stepped
views of bigger arrays) with values in (0.1, 0.9), or given data (ties, zeros) where it matters.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided
import strided.autograd as ag
import strided.nn.functional as SF

RNG = np.random.default_rng(7)


def _leaf(data: np.ndarray, lib):
    """``data`` (2-d) as a non-contiguous leaf: the transpose of a stepped slice of a bigger array."""
    big = np.zeros((data.shape[1] * 2, data.shape[0] + 1))
    big[::2, 1:] = data.T
    t = (strided.from_numpy(big.copy()) if lib is strided else torch.from_numpy(big.copy()))[::2, 1:].t()
    return t.requires_grad_()


def _data(shape=(4, 6)):
    return RNG.uniform(0.1, 0.9, shape)


def _ns(lib, x, y):
    F = SF if lib is strided else torch.nn.functional
    return {"x": x, "y": y, "torch": lib, "F": F, "inf": float("inf")}


def _np_grad(t) -> np.ndarray:
    if isinstance(t, torch.Tensor):  # (a ZeroTensor, sign's gradient, cannot go to NumPy)
        zero = t.grad is None or t.grad._is_zerotensor()
        return np.zeros(tuple(t.shape)) if zero else t.grad.detach().numpy()
    return np.zeros(t.shape) if t.grad is None else t.grad.numpy()


def _run(expr, xd, yd):
    out = {}
    for lib in (strided, torch):
        x, y = _leaf(xd, lib), _leaf(yd, lib)
        r = eval(expr, _ns(lib, x, y))
        w = np.linspace(-1.0, 1.5, int(np.prod(r.shape))).reshape(tuple(r.shape))
        weights = strided.from_numpy(w.copy()) if lib is strided else torch.from_numpy(w.copy())
        (r * weights).sum().backward()
        out[lib] = (r, _np_grad(x), _np_grad(y))
    return out


UNARY = ["log1p", "expm1", "log2", "log10", "exp2", "rsqrt", "reciprocal", "square", "sinh", "cosh", "tan",
         "asin", "arcsin", "acos", "atan", "asinh", "atanh", "erf", "erfc", "erfinv", "sign", "sgn", "trunc",
         "fix", "floor", "ceil", "round", "frac", "deg2rad", "rad2deg", "nan_to_num"]

CASES = [f"x.{name}()" for name in UNARY] + [
    "(x + 1).acosh()", "(x - 0.5).absolute()", "x.round(decimals=1)", "torch.log1p(x)", "torch.erfinv(x - 0.5)",
    # binary
    "x.atan2(y)", "x.arctan2(y[0])", "torch.atan2(x, y)", "x.hypot(y)", "x.fmod(y * 0.3)", "x.fmod(0.3)",
    "x.remainder(y * 0.3)", "x.remainder(0.3)", "x % (y * 0.3)", "(x - 0.5).copysign(y - 0.5)",
    "(x - 0.5).copysign(-2.0)", "x.lerp(y, 0.3)", "x.lerp(y, y)", "torch.lerp(x, y[0], 0.7)",
    # clamp
    "x.clamp(0.3, 0.6)", "x.clamp(min=0.3)", "x.clamp(max=0.3)", "x.clip(0.3, 0.6)", "x.clamp(y)",
    "x.clamp(y, y + 0.2)", "x.clamp(max=y)", "x.clamp(y[0], y[1])", "torch.clamp(x, 0.2, 0.7)",
    # reductions
    "x.prod()", "x.prod(1)", "x.prod(0, keepdim=True)", "x.prod(-1)", "x.var()", "x.var(1)",
    "x.var(0, keepdim=True, correction=0)", "x.var((0, 1), unbiased=False)", "x.var(-1, correction=2)",
    "x.std()", "x.std(1)", "x.std(-1, keepdim=True, correction=2)", "x.amax(1)", "x.amax()",
    "x.amin((0, 1))", "x.amin(-2, keepdim=True)", "x.aminmax()[0] + x.aminmax()[1]", "x.aminmax(dim=1)[1]",
    "x.aminmax(dim=0, keepdim=True)[0]", "x.nansum()", "x.nansum(1)", "x.nanmean()",
    "x.nanmean(0, keepdim=True)", "x.logsumexp(1)", "x.logsumexp((0, 1))", "x.logsumexp(-1, keepdim=True)",
    "x.norm()", "x.norm(dim=1)", "x.norm(p=1)", "x.norm(p=3, dim=1)", "x.norm(p=0.5)",
    "x.norm(p=1.5, dim=0, keepdim=True)", "x.norm(p=inf)", "x.norm(p=-inf, dim=1)",
    "torch.linalg.vector_norm(x)", "torch.linalg.vector_norm(x, ord=3, dim=(0, 1))",
    "torch.linalg.vector_norm(x, ord=1, dim=-1, keepdim=True)", "torch.linalg.matrix_norm(x)",
    "torch.linalg.matrix_norm(x.unsqueeze(0), keepdim=True)", "torch.linalg.matrix_norm(x, ord=1)",
    "torch.linalg.matrix_norm(x, ord=-1)", "torch.linalg.matrix_norm(x, ord=inf)",
    "torch.linalg.matrix_norm(x, ord=-inf, keepdim=True)", "torch.linalg.matrix_norm(x, ord=2)",
    "torch.linalg.matrix_norm(x, ord=-2)", "torch.linalg.matrix_norm(x, ord='nuc')", "x.norm(p='nuc')",
    "torch.linalg.matrix_norm(x.unsqueeze(0).expand(2, 4, 6), ord=1, dim=(2, 1))",
    # scans
    "x.cumsum(1)", "x.cumsum(0)", "torch.cumsum(x, -1)", "x.cumprod(1)", "x.cumprod(0)", "x.cummax(1)[0]",
    "x.cummin(0).values", "x.diff()", "x.diff(dim=0)", "x.diff(n=2)", "x.diff(n=3, dim=0)",
    "x.diff(prepend=y[:, :2])", "x.diff(n=2, dim=1, prepend=y[:, :1], append=y[:, 1:3])", "x.diff(n=9)",
    "x.diff(n=0)",
    # sorting
    "x.sort()[0]", "x.sort(0, descending=True)[0]", "x.sort(dim=1, stable=True).values", "x.topk(2)[0]",
    "x.topk(3, dim=0, largest=False)[0]", "x.kthvalue(2)[0]", "x.kthvalue(3, 0, keepdim=True)[0]",
    "x.msort()", "torch.sort(x, 0)[0]",
    # matmul family, distances, gelu
    "x[0].outer(y[1])", "torch.outer(x[:, 0], y[1])", "torch.cdist(x, y)", "torch.cdist(x, y[:3], p=1)",
    "torch.cdist(x, y, p=3)", "torch.cdist(x, y[1:], p=1.5)", "torch.cdist(x, y, p=0.5)",
    "torch.cdist(x, y, p=inf)", "torch.cdist(x.unsqueeze(0).expand(2, 4, 6), y)", "torch.cdist(x, x)",
    "F.gelu(x * 4 - 2)", "F.gelu(x * 4 - 2, approximate='tanh')",
]


@pytest.mark.parametrize("expr", CASES)
def test_gradient_and_node_match_torch(expr):
    got = _run(expr, _data(), _data())
    (rs, gxs, gys), (rt, gxt, gyt) = got[strided], got[torch]
    assert rs.grad_fn.name() == rt.grad_fn.name()
    np.testing.assert_allclose(gxs, gxt, rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(gys, gyt, rtol=1e-12, atol=1e-10)


TIES = np.array([[0.5, 0.2, 0.5, 0.1, 0.5, 0.3], [0.7, 0.7, 0.1, 0.2, 0.3, 0.4],
                 [0.2, 0.9, 0.9, 0.9, 0.1, 0.1], [0.4, 0.4, 0.4, 0.4, 0.4, 0.4]])
ZEROS = np.array([[2.0, 0.0, 3.0, 0.0, 1.5, 1.0], [1.0, 2.0, 0.0, 4.0, 0.5, 1.0],
                  [1.0, 2.0, 3.0, 4.0, 0.5, 1.5], [0.0, 2.0, 3.0, 4.0, 0.5, 2.0]])


@pytest.mark.parametrize("expr", [
    "x.amax()", "x.amax(1)", "x.amin(0)", "x.amin((0, 1), keepdim=True)", "x.aminmax(dim=1)[0]",
    "x.aminmax()[1]", "x.norm(p=inf, dim=1)", "x.norm(p=-inf)", "x.cummax(1)[0]", "x.cummin(0)[0]",
    "x.clamp(0.4, 0.5)",
])
def test_ties_share_or_route_as_torch(expr):
    got = _run(expr, TIES, TIES)
    np.testing.assert_allclose(got[strided][1], got[torch][1], rtol=0, atol=1e-12)


@pytest.mark.parametrize("expr", ["x.prod()", "x.prod(1)", "x.prod(0)", "x[1:].prod()", "x[2:].prod()",
                                  "x.cumprod(1)", "x.cumprod(0)", "x.t().cumprod(0)", "x.norm(p=0.5)"])
def test_zeros_as_torch(expr):
    got = _run(expr, ZEROS, ZEROS)
    np.testing.assert_allclose(got[strided][1], got[torch][1], rtol=1e-12, atol=1e-12)


EINSUM = [
    ("ii->i", [(3, 3)]), ("ii->", [(3, 3)]), ("ij->ji", [(3, 4)]), ("ij->j", [(3, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("i,j->ij", [(3,), (4,)]), ("ij,ij->", [(3, 4), (3, 4)]), ("iij->j", [(3, 3, 4)]),
    ("ij,kj->ik", [(3, 4), (5, 4)]), ("i,i->i", [(3,), (3,)]), ("ij,j", [(3, 4), (4,)]),
    ("bij,j->bi", [(2, 3, 4), (1,)]), ("ii,ij->j", [(3, 3), (3, 4)]), ("ij->", [(0, 3)]),
    ("...,...->...", [(2, 1, 4), (3, 1)]),
]


def _einsum_leaves(shapes):
    """Non-contiguous leaves of ``shapes`` (permuted data) in both libraries."""
    out = []
    for shape in shapes:
        a = RNG.standard_normal(tuple(reversed(shape)))
        pair = []
        for lib in (strided, torch):
            t = strided.from_numpy(a.copy()) if lib is strided else torch.from_numpy(a.copy())
            t = t.permute(*reversed(range(len(shape))))
            pair.append(t.requires_grad_())
        out.append(pair)
    return out


@pytest.mark.parametrize("eq, shapes", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum_gradients(eq, shapes):
    leaves = _einsum_leaves(shapes)
    ys = strided.einsum(eq, *[p[0] for p in leaves])
    yt = torch.einsum(eq, *[p[1] for p in leaves])
    w = RNG.standard_normal(tuple(yt.shape))
    (ys * strided.from_numpy(w.copy())).sum().backward()
    (yt * torch.from_numpy(w)).sum().backward()
    assert ys.grad_fn.name() == yt.grad_fn.name()
    for s, t in leaves:
        assert s.grad.shape == tuple(t.shape)
        np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-10)


def test_einsum_gradient_of_a_product_copies_nothing():
    """The gradients of ``ij,jk->ik`` (contiguous operands) are matrix products on views: the
    copy ledger of the backward pass stays empty."""
    a = strided.rand(3, 4, dtype=strided.float64, requires_grad=True)
    b = strided.rand(4, 5, dtype=strided.float64, requires_grad=True)
    y = strided.einsum("ij,jk->ik", a, b).sum()
    with strided.record_copies() as copies:
        y.backward()
    assert [c.reason for c in copies] == []
    np.testing.assert_allclose(a.grad.numpy(), np.ones((3, 5)) @ b.detach().numpy().T, atol=1e-12)


GRADCHECK = [
    "x.log1p()", "x.rsqrt()", "x.asin()", "x.erfinv()", "x.floor()", "x.atan2(y)", "x.hypot(y)",
    "x.fmod(y * 0.3)", "x.remainder(y * 0.3)", "x.lerp(y, y)", "x.clamp(0.3, 0.6)", "x.clamp(y, y + 0.2)",
    "(x - 0.5).copysign(y - 0.5)", "x.prod(1)", "x.var(0)", "x.std()", "x.amax(1)", "x.aminmax(dim=0)[1]",
    "x.nansum()", "x.nanmean(1)", "x.logsumexp(1)", "x.norm(p=3)", "torch.linalg.matrix_norm(x)",
    "torch.linalg.matrix_norm(x, ord=inf)", "torch.linalg.matrix_norm(x, ord=-2)", "x.norm(p='nuc')",
    "x.cumsum(0)", "x.cumprod(1)", "x.cummax(1)[0]", "x.diff(prepend=y)", "x.sort(1)[0]", "x.topk(2)[0]",
    "x.kthvalue(2, 0)[0]", "x.msort()", "torch.einsum('ij,kj->ik', x, y)", "torch.einsum('ii->i', x[:, :2])",
    "torch.cdist(x, y)", "torch.cdist(x, y, p=1.5)", "F.gelu(x)", "torch.einsum('ij,ij,kj->ik', x, y, x)",
    "torch.einsum('...j,...j->...', x, y[0])",
]


@pytest.mark.parametrize("expr", GRADCHECK)
def test_gradcheck(expr):
    x, y = _leaf(_data((2, 3)), strided), _leaf(_data((2, 3)), strided)
    assert ag.gradcheck(lambda a, b: eval(expr, _ns(strided, a, b)), (x, y))


@pytest.mark.parametrize("expr", [
    "e.cumsum(1)", "e.cumprod(0)", "e.prod(1)", "e.sort(1)[0]", "e.amax(1)", "e.clamp(0.3, 0.6)", "e.var(1)",
    "e.logsumexp(0)", "torch.einsum('ij,ij->i', e, e)", "e.diff(dim=1)", "e.topk(2)[0]", "e.norm(p=3, dim=1)",
])
def test_expanded_inputs_sum_their_gradients(expr):
    """An expanded (stride 0) input: every read of an element sends it a gradient, summed."""
    a = RNG.uniform(0.1, 0.9, (4, 1))
    grads = []
    for lib in (strided, torch):
        x = (strided.from_numpy(a.copy()) if lib is strided else torch.from_numpy(a.copy())).requires_grad_()
        r = eval(expr, {"e": x.expand(4, 5), "torch": lib})
        w = np.linspace(-1.0, 1.5, int(np.prod(r.shape))).reshape(tuple(r.shape))
        (r * (strided.from_numpy(w.copy()) if lib is strided else torch.from_numpy(w.copy()))).sum().backward()
        grads.append(_np_grad(x))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-10)


@pytest.mark.filterwarnings("ignore:.*degrees of freedom is <= 0")
@pytest.mark.parametrize("expr, shape", [
    ("x.prod()", ()), ("x.cumsum(0)", ()), ("x.cumprod(0)", ()), ("x.sort()[0]", ()), ("x.var()", (0, 3)),
    ("x.logsumexp(1)", (0, 3)), ("x.cumprod(1)", (2, 0)), ("x.amax(0)", (1, 3)), ("x.norm()", ()),
    ("x.erf()", ()), ("x.prod(1)", (0, 3)), ("x.nansum(0)", (0, 2)), ("x.topk(1)[0]", ()),
])
def test_zero_size_and_0d(expr, shape):
    a = RNG.uniform(0.1, 0.9, shape)
    grads = []
    for lib in (strided, torch):
        x = (strided.from_numpy(a.copy()) if lib is strided else torch.from_numpy(a.copy())).requires_grad_()
        r = eval(expr, _ns(lib, x, x))
        r.sum().backward()
        assert tuple(x.grad.shape) == shape
        grads.append(_np_grad(x))
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-12)


def test_nan_rules_route_around_nans():
    a = np.array([[0.5, np.nan, 0.2], [np.nan, np.nan, 0.3]])
    for expr in ("x.nansum(1)", "x.nanmean(1)", "x.nanmean()", "x.nan_to_num()"):
        grads = []
        for lib in (strided, torch):
            x = (strided.from_numpy(a.copy()) if lib is strided else torch.from_numpy(a.copy())).requires_grad_()
            eval(expr, {"x": x}).sum().backward()
            grads.append(_np_grad(x))
        np.testing.assert_allclose(grads[0], grads[1], atol=1e-12)


def test_module_functions_record_as_the_methods():
    x = strided.rand(3, 4, dtype=strided.float64, requires_grad=True)
    assert strided.log1p(x).grad_fn.name() == "Log1PBackward0"
    assert strided.cumsum(x, 1).grad_fn.name() == "CumsumBackward0"
    assert strided.linalg.vector_norm(x).grad_fn.name() == "LinalgVectorNormBackward0"
    assert strided.einsum("ij->i", x).grad_fn.name() == "SumBackward1"




def test_zero_gradients_are_stride_zero_views():
    """sign/floor/round give a zero gradient without memory per element (one zero, expanded);
    the leaf's .grad is still a dense tensor of its own."""
    x = strided.rand(3, 4, dtype=strided.float64, requires_grad=True)
    (g,) = ag.grad(x.floor().sum(), x)
    assert g.stride() == (0, 0)
    x.sign().sum().backward()
    assert x.grad.stride() == (4, 1) and not x.grad.numpy().any()


@pytest.mark.parametrize("dim", [0, 1, None])
@pytest.mark.parametrize("data", [[[0.0, 1.0, 1.0], [0.0, 0.0, 2.0]], [[0.0, 1.5, -1.0], [2.0, 0.5, 0.3]]])
def test_prod_derivatives_at_zeros_to_third_order_as_torch(dim, data):
    # (red team) prod's rule at zeros used a NumPy product of the others, a constant: under
    # create_graph the second derivative was silently missing (PyTorch: the product's Hessian)
    def run(L):
        x = L.tensor(data, dtype=L.float64, requires_grad=True)
        p = x.t().prod() if dim is None else x.t().prod(dim)
        v = L.tensor(np.linspace(0.3, 1.1, p.numel()).reshape(tuple(p.shape)), dtype=L.float64, requires_grad=True)
        (g,) = L.autograd.grad(p, x, v, create_graph=True)
        hx, hv = L.autograd.grad((g * g).sum(), (x, v), create_graph=True)
        (t3,) = L.autograd.grad((hx ** 2).sum() + (hv ** 2).sum(), x)
        return [t.detach().numpy() for t in (g, hx, hv, t3)]

    for a, b in zip(run(strided), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("case", ["tensor ** tensor", "0 ** tensor"])
def test_pow_exponent_gradient_at_a_zero_base_differentiated_as_torch(case):
    # (red team) the exponent's gradient was masked after the product with g: its derivative with
    # respect to g (the incoming gradient) was 0 * -inf = NaN where PyTorch's is 0
    def run(L):
        x = L.tensor([0.0, 1.0, 0.0], dtype=L.float64, requires_grad=True)
        e = L.tensor([2.0, 0.5, -1.0], dtype=L.float64, requires_grad=True)
        v = L.tensor([1.0, 1.0, 1.0], dtype=L.float64, requires_grad=True)
        y = x ** e if case == "tensor ** tensor" else 0.0 ** e
        (ge,) = L.autograd.grad(y, (e,), v, create_graph=True)
        return [t.detach().numpy() for t in (ge, *L.autograd.grad(ge.sum(), (e, v)))]

    for a, b in zip(run(strided), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-12, equal_nan=True)


def test_div_by_zero_second_derivative_as_torch():
    # (red team) the divisor's gradient was -g * a / (b * b): at b = 0 its derivatives were NaN
    # where PyTorch's -g * ((a / b) / b) gives inf
    def run(L):
        a = L.tensor([1.0, 1.0, -2.0], dtype=L.float64, requires_grad=True)
        b = L.tensor([0.0, 1.0, 0.0], dtype=L.float64, requires_grad=True)
        v = L.tensor([1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True)
        ga, gb = L.autograd.grad(a / b, (a, b), v, create_graph=True)
        return [t.detach().numpy() for t in (ga, gb, *L.autograd.grad((gb * gb).sum(), (a, b, v)))]

    for x, y in zip(run(strided), run(torch)):
        np.testing.assert_allclose(x, y, rtol=1e-12, equal_nan=True)


def _first_and_second_grads(lib, op: str, a: np.ndarray, d: int, g: np.ndarray, w: np.ndarray) -> list:
    """``op(x, d)``'s first gradient for the output gradient ``g`` (plain, then with create_graph),
    then the gradients of ``sum(first * w)`` with respect to x and to g (None where it does not
    depend on one), as NumPy arrays; an error as its builtin class name and first line."""
    grad = torch.autograd.grad if lib is torch else ag.grad
    x = lib.from_numpy(a.copy()).requires_grad_()
    gy = lib.from_numpy(g.copy()).requires_grad_()
    found: list = []
    try:
        for create_graph in (False, True):
            y = getattr(lib, op)(x, d)
            y = y[0] if op in ("cummax", "cummin") else y
            (first,) = grad(y, x, gy, create_graph=create_graph)
            found.append(np.asarray(first.detach().numpy()))
        second = grad((first * lib.from_numpy(w.copy())).sum(), (x, gy), allow_unused=True)
    except Exception as e:  # noqa: BLE001 - the error itself is compared
        return found + [next(c for c in type(e).__mro__ if c.__module__ == "builtins").__name__, str(e).splitlines()[0]]
    return found + [None if s is None else np.asarray(s.detach().numpy()) for s in second]


def _same_bits(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))


@pytest.mark.parametrize("op", ["cumprod", "cumsum", "cummax", "cummin"])
@pytest.mark.parametrize("shape", [(1,), (1, 3), (3, 1), (2, 1, 4), (1, 1), (0,), (0, 3), (3, 0), (2, 0, 1), (), (4,), (2, 3),
                                   (3, 9)], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("zero", [False, True])
def test_scan_second_derivatives_as_pytorch(op: str, shape: tuple, dtype: str, zero: bool) -> None:
    """First gradients (bits, with and without create_graph) and second gradients of the scans as
    PyTorch's, along every dim: cumsum/cumprod over lines of one element pass the gradient on as
    it is (no x term, so no second derivative through x, and no rounding of g * x / x); their
    reversed running sums accumulate as PyTorch's cumsum (float32 in float64); cummax/cummin of
    an empty input return the input itself (the second derivative is through x, not through g).
    cumprod's create_graph at a zero in a longer line is PyTorch's O(n^2) form."""
    rng = np.random.default_rng(len(shape) * 7 + sum(shape))
    a, g, w = (rng.standard_normal(shape).astype(dtype) for _ in range(3))
    if zero and a.size:
        a.flat[0] = 0.0
    for d in range(-max(a.ndim, 1), max(a.ndim, 1)):
        want = _first_and_second_grads(torch, op, a, d, g, w)
        got = _first_and_second_grads(strided, op, a, d, g, w)
        if op == "cumprod" and zero and a.size and a.ndim and a.shape[d] > 1:
            # Note: the gradient at the zero itself (PyTorch sums g[j] * prod x[z+1..j] in another
            # order) may be 1 ulp off PyTorch's: compared close; every other element by bits
            np.testing.assert_allclose(got[0].flat[0], want[0].flat[0], rtol=1e-6 if dtype == "float32" else 1e-15)
            got[0].flat[0] = want[0].flat[0]
            _same_bits(got[0], want[0])
            # with create_graph: PyTorch's O(n^2) differentiable form, first derivative by bits,
            # second ones close (prod's and cumprod's own rounding)
            _same_bits(got[1], want[1])
            assert len(got) == len(want) == 4, (d, got, want)
            for s, t in zip(got[2:], want[2:]):
                assert (s is None) == (t is None), (d, got, want)
                if t is not None:
                    np.testing.assert_allclose(s, t, rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-6)
            continue
        _same_bits(got[0], want[0])
        _same_bits(got[1], want[1])
        assert len(got) == len(want) == 4, (d, got, want)
        for s, t in zip(got[2:], want[2:]):
            assert (s is None) == (t is None), (d, got, want)
            if t is not None:
                assert s.shape == t.shape, d
                np.testing.assert_allclose(s, t, rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-6)


@pytest.mark.parametrize("case", ["float32", "no_grad", "expanded", "empty_from_numpy", "flipped", "plain"])
def test_gradcheck_checks_its_inputs_as_pytorch(case: str) -> None:
    """gradcheck's input checks, before fn runs, as torch.autograd.gradcheck's: a UserWarning for
    an input requiring grad that is not float64/complex128, a RuntimeError for one with stride 0
    along a dim of several elements (expanded; an empty array from NumPy), a ValueError when no
    input requires grad. (A flipped input passes in both: PyTorch's flip copies; strided's is a
    negative-stride view, which nudges one element as well.)"""
    def make(lib):
        if case == "float32":
            return lib.rand(3, dtype=lib.float32, requires_grad=True)
        if case == "no_grad":
            return lib.rand(3, dtype=lib.float64)
        if case == "expanded":
            return lib.rand(3, 1, dtype=lib.float64, requires_grad=True).expand(3, 4)
        if case == "empty_from_numpy":
            return lib.from_numpy(np.random.rand(0, 3)).requires_grad_()
        x = lib.rand(3, dtype=lib.float64, requires_grad=True)
        return x.flip(0) if case == "flipped" else x

    def outcome(lib, check):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            try:
                result = check(lambda t: t * 2, (make(lib),))
            except Exception as e:  # noqa: BLE001 - the error itself is compared
                result = e
        return result, [str(w.message) for w in seen if w.category is UserWarning]

    (want, want_warn), (got, got_warn) = outcome(torch, torch.autograd.gradcheck), outcome(strided, ag.gradcheck)
    assert got_warn == want_warn
    if isinstance(want, Exception):
        builtin = next(c for c in type(want).__mro__ if c.__module__ == "builtins")
        assert isinstance(got, strided.StridedError) and isinstance(got, builtin), (got, want)
        assert str(got).splitlines()[0] == str(want).splitlines()[0]
    else:
        assert got is want is True


def test_complex_cumsum_gradient_keeps_pytorchs_zero_signs():
    # cumsum's rule is in PyTorch's convention for complex gradients: conjugated around, the
    # running sum from +0.0 (55b9dd14) of conj(g) gave -0.0 imaginary parts where PyTorch's
    # reversed cumsum of g keeps +0.0 (a real-valued complex gradient: every element)
    import torch

    rng = np.random.default_rng(28)
    for shape, d in (((3,), 0), ((2, 3), 1), ((4, 2), 0), ((2, 1, 5), -1), ((1, 4), 1)):
        v = rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)
        for g in (rng.standard_normal(shape) + 0j, rng.standard_normal(shape) - 0j * 1j,
                  rng.standard_normal(shape) + 1j * rng.standard_normal(shape)):
            got = []
            for L in (torch, strided):
                x = L.from_numpy(v.copy()).requires_grad_(True)
                gx, = L.autograd.grad(L.cumsum(x, d), x, L.from_numpy(np.array(g)))
                got.append(np.asarray(gx.detach().tolist(), complex))
            assert got[0].tobytes() == got[1].tobytes(), (shape, d, got)
