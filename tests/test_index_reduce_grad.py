"""index_reduce / index_reduce_'s gradient (issue 26) against PyTorch 2.13's IndexReduceBackward0:
every reduction, with and without ``include_self``, out of place and in place, on transposed and
sliced inputs; zeros in ``prod`` (one and several per slice), ties in ``amax``/``amin``; the
second derivatives, and PyTorch's refusal of prod's where zeros meet; float64 gradcheck."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided as st

pytestmark = pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")

REDUCES = ("prod", "mean", "amax", "amin")

# (self, source, index, dim): zeros and ties placed where the formulas branch
CASES = {
    "one-zero": ([1.0, 0.0, 2.0, 3.0], [0.0, 2.0, 0.0, 5.0, 4.0], [0, 1, 1, 2, 0], 0),
    "two-zeros": ([1.0, 0.0, 2.0, 3.0], [0.0, 0.0, 0.0, 5.0, 4.0], [0, 0, 1, 2, 0], 0),
    "ties-rows": ([[3.0, 1.0], [2.0, 2.0], [0.5, 4.0]], [[3.0, 1.0], [3.0, 0.0], [2.0, 2.0]], [0, 0, 1], 0),
    "ties-cols": ([[3.0, 1.0, 2.0], [2.0, 2.0, -1.0]], [[3.0, 1.0], [2.0, 2.0]], [0, 2], 1),
}


def _run(lib, self_v, src_v, idx, dim, reduce, include_self, inplace, dtype="float64", layout="contiguous"):
    """(result, d/dself, d/dsource, second derivatives or the error) in ``lib``."""
    dt = getattr(lib, dtype)
    a, s = np.asarray(self_v), np.asarray(src_v)
    if layout == "transposed" and a.ndim == 2:  # self and source read through transposed views
        x = lib.tensor(a.T.tolist(), dtype=dt, requires_grad=True)
        src = lib.tensor(s.T.tolist(), dtype=dt, requires_grad=True)
        xs, ss = x.T, src.T
    elif layout == "sliced":  # every other element of a buffer twice as long along the last dim
        x = lib.tensor(np.repeat(a, 2, axis=-1).tolist(), dtype=dt, requires_grad=True)
        src = lib.tensor(np.repeat(s, 2, axis=-1).tolist(), dtype=dt, requires_grad=True)
        xs, ss = x[..., ::2], src[..., ::2]
    else:
        x = lib.tensor(a.tolist(), dtype=dt, requires_grad=True)
        src = lib.tensor(s.tolist(), dtype=dt, requires_grad=True)
        xs, ss = x, src
    i = lib.tensor(idx, dtype=lib.int64)
    y = (xs * 1).index_reduce_(dim, i, ss, reduce, include_self=include_self) if inplace else \
        xs.index_reduce(dim, i, ss, reduce, include_self=include_self)
    w = lib.tensor(np.arange(1.0, y.numel() + 1).reshape(tuple(y.shape)).tolist(), dtype=dt)
    gx, gs = lib.autograd.grad((y * w).sum(), (x, src), create_graph=True)
    try:
        second = lib.autograd.grad((gx * gx).sum() + (gs ** 3).sum(), (x, src), allow_unused=True)
        second = [np.zeros(tuple(t.shape)) if h is None else h.detach().numpy() for h, t in zip(second, (x, src))]
    except RuntimeError as e:
        second = (type(e), str(e).splitlines()[0])
    return y.detach().numpy(), gx.detach().numpy(), gs.detach().numpy(), second


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("reduce", REDUCES)
def test_gradients_as_torch(case, reduce):
    """Result, both first derivatives and the second derivatives equal PyTorch's, for both values
    of include_self, out of place and in place, in each layout (float64: the formulas'
    own arithmetic, to rounding)."""
    self_v, src_v, idx, dim = CASES[case]
    layouts = ("contiguous", "transposed", "sliced") if np.ndim(self_v) == 2 else ("contiguous", "sliced")
    for include_self in (True, False):
        for inplace in (False, True):
            for layout in layouts:
                t = _run(torch, self_v, src_v, idx, dim, reduce, include_self, inplace, layout=layout)
                s = _run(st, self_v, src_v, idx, dim, reduce, include_self, inplace, layout=layout)
                where = f"{reduce} include_self={include_self} inplace={inplace} {layout}"
                for a, b in zip(t[:3], s[:3]):
                    np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12, err_msg=where)
                if isinstance(t[3], tuple):  # PyTorch's refusal: the same class and first line
                    assert isinstance(s[3], tuple) and issubclass(s[3][0], RuntimeError), where
                    assert s[3][1] == t[3][1], where
                else:
                    assert not isinstance(s[3], tuple), (where, s[3])
                    for a, b in zip(t[3], s[3]):
                        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12, err_msg=where)


def test_prod_double_backward_refused_only_where_zeros_meet():
    """Two zeros reduced into one slice: the source's first derivative is PyTorch's (0 there), its
    derivative raises PyTorch's RuntimeError; self's own second derivative still works."""
    t = _run(torch, *CASES["two-zeros"], "prod", True, False)
    s = _run(st, *CASES["two-zeros"], "prod", True, False)
    assert s[3] == (s[3][0], "index_reduce(): Double backward is unsupported for source when >1 zeros in "
                             "source are scattered to the same position in self") and t[3][1] == s[3][1]
    x = st.tensor([1.0, 0.0, 2.0], dtype=st.float64, requires_grad=True)
    src = st.tensor([0.0, 0.0, 3.0], dtype=st.float64, requires_grad=True)
    gx, gs = st.autograd.grad(x.index_reduce(0, st.tensor([0, 0, 2]), src, "prod").sum(), (x, src),
                              create_graph=True)
    (hx,) = st.autograd.grad(gx.sum(), x)
    xt = torch.tensor([1.0, 0.0, 2.0], dtype=torch.float64, requires_grad=True)
    srct = torch.tensor([0.0, 0.0, 3.0], dtype=torch.float64, requires_grad=True)
    gxt, _ = torch.autograd.grad(xt.index_reduce(0, torch.tensor([0, 0, 2]), srct, "prod").sum(), (xt, srct),
                                 create_graph=True)
    (hxt,) = torch.autograd.grad(gxt.sum(), xt)
    np.testing.assert_array_equal(hx.numpy(), hxt.numpy())


@pytest.mark.parametrize("reduce", REDUCES)
def test_float32_and_empty(reduce):
    """float32 gradients to float32 rounding; an empty index gives self the whole gradient (its
    slices untouched) and an empty source gradient, as PyTorch."""
    t = _run(torch, *CASES["ties-cols"], reduce, False, False, dtype="float32")
    s = _run(st, *CASES["ties-cols"], reduce, False, False, dtype="float32")
    for a, b in zip(t[:3], s[:3]):
        assert b.dtype == np.float32
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-6)
    for lib in (torch, st):
        x = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        src = lib.ones(2, 0, dtype=lib.float64, requires_grad=True)
        gx, gs = lib.autograd.grad(x.index_reduce(1, lib.tensor([], dtype=lib.int64), src, reduce).sum(), (x, src))
        assert tuple(gs.shape) == (2, 0) and gx.tolist() == [[1.0] * 3] * 2


@pytest.mark.parametrize("reduce", REDUCES)
def test_gradcheck(reduce):
    """Finite differences agree with the rule (float64, values apart: no ties, no zeros)."""
    rng = np.random.default_rng(3)
    x = st.tensor(rng.uniform(0.5, 1.5, (3, 4)), dtype=st.float64, requires_grad=True)
    src = st.tensor(rng.uniform(0.5, 1.5, (3, 3)), dtype=st.float64, requires_grad=True)
    idx = st.tensor([3, 0, 3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for include_self in (True, False):
            def fn(a, b, include_self=include_self):
                return a.index_reduce(1, idx, b, reduce, include_self=include_self)
            assert st.autograd.gradcheck(fn, (x, src))
            assert st.autograd.gradgradcheck(fn, (x, src))


def test_node_name_and_one_beta_warning():
    """PyTorch's node name; the backward's own index_reduce calls add no warning of their own."""
    x = st.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = x.index_reduce(0, st.tensor([1]), st.tensor([3.0]), "prod")
        y.sum().backward(create_graph=True)
    assert y.grad_fn.name() == "IndexReduceBackward0"
    assert [str(w.message) for w in caught] == ["index_reduce() is in beta and the API may change at any time."]
    assert x.grad.tolist() == [1.0, 3.0]
