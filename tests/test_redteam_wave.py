"""Red team of the wave that landed NumPy's axis=/keepdims= aliases, detach() as its own root,
the legacy tensor classes and remainder's sign of zero: each test is a finding, differential
against PyTorch (signs of zero compared bit for bit)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st

# dividends and divisors whose remainders are zeros of either sign, and nonzero ones
_VALS = [0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 2.5, -2.5, 6.0, -6.0, float("inf"), float("nan")]


def _bits(t: torch.Tensor) -> tuple[list, list]:
    """Values and sign bits of a tensor read through float32 (a NaN as None: its sign bit is no
    part of either library's contract)."""
    a = t.detach().float().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.float().tolist(), np.float32)
    a = a.ravel()
    return ([None if np.isnan(v) else float(v) for v in a],
            [None if np.isnan(v) else bool(np.signbit(v)) for v in a])


def _pair(dtype: str) -> tuple[tuple[torch.Tensor, torch.Tensor], tuple[st.Tensor, st.Tensor]]:
    a, b = np.meshgrid(np.array(_VALS), np.array(_VALS))
    td, sd = getattr(torch, dtype), getattr(st, dtype)
    return ((torch.tensor(a).to(td), torch.tensor(b).to(td)),
            (st.tensor(a.tolist()).to(sd), st.tensor(b.tolist()).to(sd)))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32", "float64"])
def test_remainder_zero_sign_every_float_dtype(dtype: str) -> None:
    """Finding: the zero-sign mend tested ``dtype.kind == "f"``, which bfloat16 (ml_dtypes, kind
    'V') is not, so bfloat16 kept NumPy's sign (``remainder(3, -1)`` was -0.0, PyTorch 0.0)."""
    (ta, tb), (sa, sb) = _pair(dtype)
    assert _bits(sa % sb) == _bits(ta % tb)
    assert _bits(st.remainder(sa.t(), sb.t())) == _bits(torch.remainder(ta.t(), tb.t()))
    assert _bits(sa % -2.0) == _bits(ta % -2.0)
    assert _bits(3 % sb) == _bits(3 % tb)
    out_t, out_s = torch.empty_like(ta), st.empty_like(sa)
    torch.remainder(ta, tb, out=out_t)
    st.remainder(sa, sb, out=out_s)
    assert _bits(out_s) == _bits(out_t)
    ti, si = ta.clone(), sa.clone()
    ti.remainder_(tb[:1])
    si.remainder_(sb[:1])
    assert _bits(si) == _bits(ti)


def test_remainder_zero_sign_bfloat16_tiled() -> None:
    """The same on a transposed input large enough for the tiled path."""
    rs = np.random.RandomState(1)
    a = np.round(rs.randn(96, 80) * 4)
    a[::3] = -0.0
    b = np.where(rs.rand(96, 80) < 0.5, -1.0, 2.0)
    ta, tb = torch.tensor(a).to(torch.bfloat16).t(), torch.tensor(b).to(torch.bfloat16).t()
    sa, sb = st.tensor(a.tolist()).to(st.bfloat16).t(), st.tensor(b.tolist()).to(st.bfloat16).t()
    assert _bits(sa % sb) == _bits(ta % tb)


_COPY_FORMS = [
    ("slice_copy", (), {"axis": 1, "start": 1}), ("squeeze_copy", (), {"axis": 0}),
    ("unbind_copy", (), {"axis": 2}), ("unsqueeze_copy", (), {"axis": -1}),
    ("select_copy", (), {"axis": 1, "index": 2}), ("narrow_copy", (), {"axis": 2, "start": 1, "length": 2}),
    ("split_copy", (2,), {"axis": 1}), ("split_with_sizes_copy", ([1, 3],), {"axis": 2}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), _COPY_FORMS, ids=[c[0] for c in _COPY_FORMS])
def test_copy_forms_take_axis_with_gradients(name: str, args: tuple, kwargs: dict) -> None:
    """Finding: the ``*_copy`` forms (C++ ops in PyTorch, which take ``axis=``) refused it with
    a private name (``_slice() got an unexpected keyword argument 'axis'``), and their backward
    rule, which calls the view again with the call's keywords, refused it too."""
    t = torch.arange(12.0, dtype=torch.float64).view(1, 3, 4).requires_grad_()
    s = st.arange(12.0, dtype=st.float64).view(1, 3, 4).requires_grad_()
    r, q = getattr(torch, name)(t, *args, **kwargs), getattr(st, name)(s, *args, **kwargs)
    r, q = (r[-1], q[-1]) if isinstance(r, (tuple, list)) else (r, q)
    assert q.tolist() == r.tolist() and q.stride() == r.stride()
    (r * r).sum().backward()
    (q * q).sum().backward()
    assert s.grad.tolist() == t.grad.tolist()
    assert q.grad_fn.name() == r.grad_fn.name()


def test_copy_form_axis_and_dim_both_given() -> None:
    """Both spellings of one parameter: a TypeError naming the op (PyTorch's class)."""
    with pytest.raises(TypeError, match=r"^slice_copy\(\) got an unexpected keyword argument 'axis'"):
        st.slice_copy(st.ones(2, 3), 1, axis=1)
    with pytest.raises(TypeError):
        torch.slice_copy(torch.ones(2, 3), 1, axis=1)


@pytest.mark.parametrize("name", ["LongTensor", "IntTensor", "ByteTensor", "BoolTensor", "HalfTensor",
                                  "BFloat16Tensor", "FloatTensor", "DoubleTensor"])
def test_type_takes_a_legacy_tensor_class(name: str) -> None:
    """Finding: ``x.type(strided.LongTensor)`` (PyTorch's ``x.type(torch.LongTensor)``, the
    legacy spelling of a conversion) was refused as an unsupported dtype."""
    t, s = torch.tensor([1.5, -2.0, 0.0]), st.tensor([1.5, -2.0, 0.0])
    r, q = t.type(getattr(torch, name)), s.type(getattr(st, name))
    assert str(q.dtype).split(".")[-1] == str(r.dtype).split(".")[-1]
    assert q.float().tolist() == r.float().tolist()
    assert (q is s) == (r is t)
    assert isinstance(q, getattr(st, name)) and q.type() == r.type()


_BOTH_SPELLINGS = [
    ("mean", lambda m, x: m.mean(x, None, axis=1)),
    ("std", lambda m, x: x.std(dim=None, axis=1)),
    ("amax", lambda m, x: m.amax(x, (), axis=0)),
    ("cat", lambda m, x: m.cat([x, x], dim=0, axis=1)),
    ("logsumexp", lambda m, x: m.logsumexp(x, 0, keepdim=False, keepdims=True)),
    ("argmax", lambda m, x: x.argmax(None, axis=0)),
]


@pytest.mark.parametrize(("name", "call"), _BOTH_SPELLINGS, ids=[c[0] for c in _BOTH_SPELLINGS])
def test_alias_beside_its_parameter_at_the_default_is_refused(name: str, call) -> None:
    """Finding: an exact entry took ``axis=`` whenever ``dim`` held its default, so ``dim=0``
    written out beside ``axis=1`` (``cat([x, x], dim=0, axis=1)``) silently joined along dim 1;
    PyTorch refuses every call that names a parameter twice."""
    t, s = torch.arange(6.0).view(2, 3), st.arange(6.0).view(2, 3)
    with pytest.raises(TypeError):
        call(torch, t)
    with pytest.raises(TypeError, match=rf"^{name}\(\) got an unexpected keyword argument '(axis|keepdims)'"):
        call(st, s)


def test_alias_alone_still_fills_the_other_defaults() -> None:
    """The aliases alone, and no alias at all, keep their results (and gradients)."""
    t = torch.arange(6.0, dtype=torch.float64).view(2, 3).requires_grad_()
    s = st.arange(6.0, dtype=st.float64).view(2, 3).requires_grad_()
    for f in (lambda m, x: m.amax(x, axis=1), lambda m, x: m.logsumexp(x, axis=0, keepdims=True),
              lambda m, x: m.cat([x, x], axis=1), lambda m, x: m.mean(x), lambda m, x: x.std(1, keepdims=True)):
        r, q = f(torch, t), f(st, s)
        np.testing.assert_allclose(np.asarray(q.tolist()), r.detach().numpy(), rtol=1e-12)
        assert q.shape == tuple(r.shape)
        gt, = torch.autograd.grad(r.sum(), t)
        gs, = st.autograd.grad(q.sum(), s)
        np.testing.assert_allclose(np.asarray(gs.tolist()), gt.numpy(), rtol=1e-12)
