"""In-place view ops, set_/is_set_to, resize_/resize_as_ with memory_format, channels_last_3d and
the *_copy forms, differential against PyTorch 2.13: shape, strides, offset, values, same storage,
error classes and first lines; the target untouched after an error; the copy ledger's records."""

from __future__ import annotations

import hypothesis.strategies as hs
import numpy as np
import pytest
import torch
from hypothesis import given, settings

import strided as st
from layouts import build_strided, build_torch, specs
from oracle_helpers import same_error
from strided.memory_format import channels_last_3d
from strided.ops import copies as C

SETTINGS = settings(max_examples=60, deadline=None)


def _layout(t):
    return (tuple(t.shape), tuple(t.stride()), t.storage_offset())


def _same(s, t):
    assert _layout(s) == _layout(t)
    np.testing.assert_array_equal(s.numpy(), t.numpy())


# ---------------------------------------------------------------- in-place view ops vs torch

_OPS = [
    ("t_", lambda x: x.t_()),
    ("transpose_", lambda x: x.transpose_(0, -1)),
    ("swapdims_", lambda x: x.swapdims_(dim0=-1, dim1=0)),
    ("swapaxes_", lambda x: x.swapaxes_(0, 1)),
    ("squeeze_", lambda x: x.squeeze_()),
    ("squeeze_dim", lambda x: x.squeeze_(0)),
    ("squeeze_dims", lambda x: x.squeeze_((0, -1))),
    ("unsqueeze_", lambda x: x.unsqueeze_(-1)),
    ("unsqueeze_bad", lambda x: x.unsqueeze_(7)),
    ("as_strided_", lambda x: x.as_strided_((2, 2), (1, 2))),
    ("as_strided_offset", lambda x: x.as_strided_((2,), (3,), 1)),
]


@pytest.mark.parametrize("name, op", _OPS, ids=[n for n, _ in _OPS])
@settings(max_examples=25, deadline=None)
@given(spec=specs(max_dims=3))
def test_inplace_view_matches_torch(name, op, spec):
    s, t = build_strided(spec), build_torch(spec)
    s_view = s[...]  # a view made before: keeps its own layout
    t_before = _layout(t)
    s_before = _layout(s)
    try:
        t_out = op(t)
    except Exception as exc:  # noqa: BLE001 - the oracle compares what is raised
        with pytest.raises(Exception) as info:
            op(s)
        assert isinstance(info.value, st.StridedError)
        assert isinstance(info.value, type(exc)) or isinstance(exc, type(info.value).__mro__[1])
        assert _layout(s) == s_before  # untouched after an error
        return
    assert t_out is t
    storage = s.untyped_storage()
    assert op(s) is s
    assert s.untyped_storage() is storage  # no byte moved
    _same(s, t)
    assert _layout(s_view) == s_before and t_before == s_before


def test_inplace_view_errors_and_texts():
    same_error(lambda: torch.zeros(2, 3, 4).t_(), lambda: st.zeros(2, 3, 4).t_())
    s = st.zeros(2, 3)
    text = same_error(lambda: torch.zeros(2, 3).transpose_(0, 3), lambda: s.transpose_(0, 3))
    assert "Dimension out of range" in text and s.shape == (2, 3)
    x = st.zeros(4)
    same_error(lambda: torch.zeros(4).as_strided_((3,), (2,), 1), lambda: x.as_strided_((3,), (2,), 1))
    assert _layout(x) == ((4,), (1,), 0)


def test_inplace_views_report_views_and_no_copy():
    seen = []
    x = st.zeros(2, 3)
    with st.dispatch.listen(seen.append), st.record_copies() as copies:
        x.t_().unsqueeze_(0).squeeze_(0).swapaxes_(0, 1)
    assert [(r.name, r.kind) for r in seen] == [("t_", "view"), ("unsqueeze_", "view"), ("squeeze_", "view"),
                                               ("swapaxes_", "view")]
    assert len(copies) == 0 and x.shape == (2, 3)


def test_swap_keywords():
    s, t = st.zeros(2, 3, 4), torch.zeros(2, 3, 4)
    assert s.swapaxes(axis0=0, axis1=2).stride() == t.swapaxes(axis0=0, axis1=2).stride()
    assert s.swapdims(dim0=1, dim1=2).stride() == t.swapdims(dim0=1, dim1=2).stride()


def test_narrow_tensor_start():
    s, t = st.arange(10), torch.arange(10)
    _same(s.narrow(0, st.tensor(2), 3), t.narrow(0, torch.tensor(2), 3))
    for bad_s, bad_t in ((st.tensor([2]), torch.tensor([2])), (st.tensor(2.0), torch.tensor(2.0))):
        same_error(lambda bad_t=bad_t: t.narrow(0, bad_t, 3), lambda bad_s=bad_s: s.narrow(0, bad_s, 3))


# ---------------------------------------------------------------- resize_, resize_as_, memory formats


@pytest.mark.parametrize("size, fmt", [
    ((2, 3, 4, 5), "channels_last"), ((3, 3, 4, 5), "channels_last"), ((2, 3, 4, 5, 6), "channels_last_3d"),
    ((2, 3), "contiguous_format"), ((2, 3), "channels_last"), ((2, 3, 4, 5), "channels_last_3d"),
    ((2, 3), "preserve_format"),
])
def test_resize_memory_format(size, fmt):
    t = torch.zeros(3, 2).t()
    s = st.zeros(3, 2).t()
    tf, sf = getattr(torch, fmt), getattr(st, fmt, None) or channels_last_3d
    try:
        t.resize_(*size, memory_format=tf)
    except RuntimeError as exc:
        with pytest.raises(RuntimeError) as info:
            s.resize_(*size, memory_format=sf)
        assert str(info.value).splitlines()[0].startswith(str(exc).splitlines()[0])
        assert _layout(s) == ((2, 3), (1, 2), 0)
        return
    s.resize_(*size, memory_format=sf)
    assert _layout(s) == _layout(t)


def test_resize_as_():
    s, t = st.zeros(3, 2).t(), torch.zeros(3, 2).t()
    assert s.resize_as_(st.zeros(3, 2).t()) is s  # same shape: the strides stay
    assert _layout(s) == _layout(t.resize_as_(torch.zeros(3, 2).t()))
    tmpl_t = torch.zeros(2, 3, 4, 5).to(memory_format=torch.channels_last)
    tmpl_s = st.zeros(2, 3, 4, 5).contiguous(st.channels_last)
    assert _layout(s.resize_as_(tmpl_s)) == _layout(t.resize_as_(tmpl_t))  # the template's strides are not taken
    s2, t2 = st.zeros(2), torch.zeros(2)
    assert _layout(s2.resize_as_(tmpl_s, memory_format=st.channels_last)) == \
        _layout(t2.resize_as_(tmpl_t, memory_format=torch.channels_last))
    same_error(lambda: torch.zeros(2).resize_as_(3), lambda: st.zeros(2).resize_as_(3))


def test_channels_last_3d_everywhere():
    t = torch.arange(720.0).reshape(2, 3, 4, 5, 6)
    s = st.arange(720.0).reshape(2, 3, 4, 5, 6)
    c3, tc3 = channels_last_3d, torch.channels_last_3d
    _same(s.contiguous(c3), t.contiguous(memory_format=tc3))
    _same(s.clone(memory_format=c3), t.clone(memory_format=tc3))
    assert s.contiguous(c3).is_contiguous(c3) and not s.is_contiguous(c3)
    assert s.contiguous(c3).contiguous(c3) is not None
    y = s.contiguous(c3)
    assert y.contiguous(c3) is y
    _same(s.to(memory_format=c3), t.to(memory_format=tc3))
    assert st.empty_like(s, memory_format=c3).stride() == torch.empty_like(t, memory_format=tc3).stride()
    assert st.empty_like(y).stride() == torch.empty_like(t.contiguous(memory_format=tc3)).stride()
    from strided.creation import empty
    assert empty(2, 3, 0, 5, 6, memory_format=c3).stride() == \
        torch.empty(2, 3, 0, 5, 6, memory_format=tc3).stride()
    for shape in ((2, 3, 4), (2, 3, 4, 5)):
        same_error(lambda shape=shape: torch.zeros(shape).contiguous(memory_format=tc3),
                   lambda shape=shape: st.zeros(shape).contiguous(c3), first_line=False)
        same_error(lambda shape=shape: torch.zeros(shape).clone(memory_format=tc3),
                   lambda shape=shape: st.zeros(shape).clone(memory_format=c3), first_line=False)
        text = same_error(lambda shape=shape: torch.empty(shape, memory_format=tc3),
                          lambda shape=shape: empty(shape, memory_format=c3), first_line=False)
        assert text.startswith("required rank 5 tensor to use channels_last_3d format")
    assert not st.zeros(2, 3).is_contiguous(c3) and not torch.zeros(2, 3).is_contiguous(memory_format=tc3)
    with st.record_copies() as copies:
        s.contiguous(c3)
    assert copies[0].reason == "contiguous(channels_last_3d)" and copies[0].nbytes == 720 * 4


# ---------------------------------------------------------------- set_ and is_set_to


def test_set_forms_match_torch():
    ta, sa = torch.arange(12.0).reshape(3, 4)[:, 1:], st.arange(12.0).reshape(3, 4)[:, 1:]
    tb, sb = torch.zeros(2), st.zeros(2)
    earlier = sb[:1]
    assert sb.set_(sa) is sb
    tb.set_(ta)
    _same(sb, tb)
    assert sb.untyped_storage() is sa.untyped_storage() and sb.is_set_to(sa) and sa.is_set_to(sb)
    assert sb.base is None and tb._base is None  # a tensor made by set_ is no view, as in PyTorch
    assert earlier.shape == (1,) and earlier.untyped_storage() is not sa.untyped_storage()
    sa[0, 0] = 100.0
    assert sb[0, 0].item() == 100.0  # the same memory
    tc, sc = torch.arange(6.0), st.arange(6.0)
    _same(st.zeros(1).set_(sc, 1, (2, 2)), torch.zeros(1).set_(tc, 1, (2, 2)))
    _same(st.zeros(1).set_(sc.untyped_storage(), 1, (2,), (2,)),
          torch.zeros(1).set_(tc.untyped_storage(), 1, (2,), (2,)))
    whole = st.zeros(1).set_(sc.untyped_storage())
    assert _layout(whole) == ((6,), (1,), 0)
    assert _layout(st.zeros(3).set_()) == _layout(torch.zeros(3).set_()) == ((0,), (1,), 0)
    assert not st.zeros(1).set_(sc, 1, (2, 2)).is_set_to(sc)


def test_set_grows_a_resizable_storage_and_refuses_a_pinned_one():
    s = st.zeros(4)
    s.set_(s.untyped_storage(), 0, (10,))
    assert s.shape == (10,) and s.untyped_storage().size() == 10
    pinned = st.zeros(4)
    pinned.numpy()
    target = st.zeros(1)
    with pytest.raises(RuntimeError, match="not resizable"):
        target.set_(pinned.untyped_storage(), 0, (10,))
    assert target.shape == (1,)


def test_set_errors():
    ta, sa = torch.arange(12.0), st.arange(12.0)
    same_error(lambda: torch.zeros(4, dtype=torch.float64).set_(ta), lambda: st.zeros(4, dtype=st.float64).set_(sa))
    same_error(lambda: torch.zeros(4).set_(ta.view(3, 4).t(), 0, (2,)),
               lambda: st.zeros(4).set_(sa.view(3, 4).t(), 0, (2,)))
    target = st.zeros(3)
    with pytest.raises(RuntimeError):
        target.set_(sa, -1, (2,))
    with pytest.raises(TypeError):
        target.set_(3)
    assert _layout(target) == ((3,), (1,), 0)


def test_set_reports_a_view():
    seen = []
    a = st.arange(6.0)
    with st.dispatch.listen(seen.append):
        st.zeros(1).set_(a)
    assert [(r.name, r.kind) for r in seen][-1] == ("set_", "view")


# ---------------------------------------------------------------- *_copy forms

_COPIES = [
    ("narrow_copy", (2, 1, 2)), ("permute_copy", ((2, 0, 1),)), ("transpose_copy", (0, 2)),
    ("t_copy", None), ("expand_copy", None), ("unsqueeze_copy", (1,)), ("squeeze_copy", ()),
    ("select_copy", (1, -1)), ("diagonal_copy", (0, 1, 2)), ("unfold_copy", (2, 2, 1)),
    ("as_strided_copy", ((2, 2), (1, 2), 1)), ("alias_copy", ()), ("detach_copy", ()),
    ("slice_copy", (2, 0, 3, 2)), ("view_copy", ((4, 6),)), ("split_copy", (2, 2)),
    ("split_with_sizes_copy", ([1, 3], 2)), ("unbind_copy", (1,)),
]


@pytest.mark.parametrize("name, args", _COPIES, ids=[n for n, _ in _COPIES])
def test_copy_forms_match_torch(name, args):
    t = torch.arange(24.0).reshape(2, 3, 4).transpose(0, 1)  # non-contiguous input
    s = st.arange(24.0).reshape(2, 3, 4).transpose(0, 1)
    if name == "t_copy":
        t, s, args = t[0], s[0], ()
    if name == "expand_copy":
        t, s, args = t[:, :1], s[:, :1], ((3, 5, 4),)
    out_t = getattr(torch, name)(t, *args)
    with st.record_copies() as copies:
        out_s = getattr(C, name)(s, *args)
    pieces_t = out_t if isinstance(out_t, (tuple, list)) else (out_t,)
    pieces_s = out_s if isinstance(out_s, tuple) else (out_s,)
    assert len(pieces_s) == len(pieces_t) == len(copies)
    for ps, pt, rec in zip(pieces_s, pieces_t, copies):
        _same(ps, pt)
        assert ps.untyped_storage() is not s.untyped_storage() and ps.base is None
        assert rec.reason.startswith(f"{name}: ") and rec.nbytes == ps.numel() * 4


def test_copy_form_errors_and_method():
    t, s = torch.arange(6.0).reshape(2, 3), st.arange(6.0).reshape(2, 3)
    _same(s.narrow_copy(1, 1, 2), t.narrow_copy(1, 1, 2))
    same_error(lambda: torch.narrow_copy(t, 0, 5, 1), lambda: C.narrow_copy(s, 0, 5, 1), first_line=False)
    same_error(lambda: torch.permute_copy(t, (0, 0)), lambda: C.permute_copy(s, (0, 0)))
    with pytest.raises(TypeError):
        C.narrow_copy([1, 2], 0, 0, 1)


@SETTINGS
@given(spec=specs(min_dims=1, max_dims=3), dim=hs.integers(-1, 0))
def test_copy_forms_on_hard_layouts(spec, dim):
    s, t = build_strided(spec), build_torch(spec)
    for name, args in (("unbind_copy", (dim,)), ("t_copy", ()), ("alias_copy", ())):
        if name == "t_copy" and t.dim() > 2:
            continue
        out_t = getattr(torch, name)(t, *args)
        out_s = getattr(C, name)(s, *args)
        for ps, pt in zip(out_s if isinstance(out_s, tuple) else (out_s,),
                          out_t if isinstance(out_t, (tuple, list)) else (out_t,)):
            _same(ps, pt)


@settings(max_examples=40, deadline=None)
@given(spec=specs(max_dims=3), offset=hs.integers(0, 3))
def test_set_storage_layouts_match_torch(spec, offset):
    """set_(storage, offset, size, stride) over the hard layouts: the same layout and elements."""
    source_t, source_s = torch.arange(float(spec.storage_size + 4)), st.arange(float(spec.storage_size + 4))
    t = torch.zeros(1).set_(source_t.untyped_storage(), offset, spec.shape, spec.strides)
    s = st.zeros(1).set_(source_s.untyped_storage(), offset, spec.shape, spec.strides)
    _same(s, t)
    assert s.untyped_storage() is source_s.untyped_storage()


@pytest.mark.parametrize("op", ["exp_", "sigmoid_", "tanh_", "sqrt_"])
@pytest.mark.parametrize("view", ["diagonal", "row", "slice"])
def test_double_backward_through_result_saving_inplace_on_a_view_as_torch(op, view):
    # (red team) exp_ on a view saves its result, whose history reaches the op's node directly
    # and through CopySlices: the second backward ran the node twice and raised "backward
    # through the graph a second time"; PyTorch gives the second derivative
    def second(L):
        x = L.tensor([0.5, 0.7, 0.9, 0.2], dtype=L.float64, requires_grad=True)
        y = x * 1.5
        v = {"diagonal": lambda: y.view(2, 2).diagonal(), "row": lambda: y.view(2, 2)[1],
             "slice": lambda: y[1:]}[view]()
        getattr(v, op)()
        (g,) = L.autograd.grad((y ** 3).sum(), x, create_graph=True)
        (g2,) = L.autograd.grad((g * L.tensor([1.0, 2.0, 3.0, 4.0], dtype=L.float64)).sum(), x)
        return g.detach().numpy(), g2.numpy()

    for a, b in zip(second(st), second(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


_COMPLEX_VIEW_WRITES = {
    "real.mul_": lambda L, y: y.real.mul_(3),
    "imag.mul_": lambda L, y: y.imag.mul_(y.real * 2),
    "view_as_real.sub_": lambda L, y: L.view_as_real(y).sub_(1),
    "view_as_real[:, 1].exp_": lambda L, y: L.view_as_real(y)[:, 1].exp_(),
    "real setitem": lambda L, y: y.real.__setitem__(0, 5.0),
    "view_as_real of t pow_": lambda L, y: L.view_as_real(y.view(3, 1).t())[0, :, 0].pow_(2),
    "imag fill_": lambda L, y: y.imag.fill_(0.5),
    "real[::2] zero_": lambda L, y: y.real[::2].zero_(),
}


@pytest.mark.parametrize("write", sorted(_COMPLEX_VIEW_WRITES))
def test_inplace_on_a_real_view_of_a_complex_result_differentiable_twice_as_torch(write):
    # (red team) the view's layout counts the base's reals: CopySlices read it over the complex
    # storage (an out-of-bounds error at backward, or, for setitem, a silently zero gradient)
    def run(L):
        x = L.tensor(np.array([1 + 2j, 0.5 - 1j, -0.3 + 0.2j]), requires_grad=True)
        y = x * 1
        _COMPLEX_VIEW_WRITES[write](L, y)
        (g,) = L.autograd.grad((y * y.conj() * y).real.sum(), x, create_graph=True)
        (h,) = L.autograd.grad((g.real ** 2 + g.imag).sum(), x)
        return g.detach().numpy(), h.numpy()

    for a, b in zip(run(st), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


_COMPLEX_OF_REAL_WRITES = {
    "mul_": lambda L, y: L.view_as_complex(y).mul_(0.5 + 1j),
    "[1:].exp_": lambda L, y: L.view_as_complex(y)[1:].exp_(),
    "of a flat view": lambda L, y: L.view_as_complex(y.reshape(-1)[2:].view(2, 2)).mul_(
        L.view_as_complex(y[:2].detach().clone())),
    "setitem": lambda L, y: L.view_as_complex(y).__setitem__(1, 2 + 1j),
    "[::2].sin_": lambda L, y: L.view_as_complex(y)[::2].sin_(),
}


@pytest.mark.parametrize("write", sorted(_COMPLEX_OF_REAL_WRITES))
def test_inplace_on_view_as_complex_of_a_real_result_differentiable_twice_as_torch(write):
    # (red team) the view's complex layout was read over the real base's gradient: the
    # gradient's imaginary parts were dropped (a ComplexWarning and a silently wrong gradient)
    def run(L):
        x = L.tensor(np.array([[1.0, 2.0], [0.5, -1.0], [-0.3, 0.2]]), requires_grad=True)
        y = x * 1
        _COMPLEX_OF_REAL_WRITES[write](L, y)
        (g,) = L.autograd.grad((y ** 3).sum(), x, create_graph=True)
        (h,) = L.autograd.grad((g ** 2).sum(), x)
        return g.detach().numpy(), h.numpy()

    for a, b in zip(run(st), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.filterwarnings("ignore::UserWarning")  # storage() warns in both libraries: TypedStorage is deprecated
def test_set_takes_a_typed_storage_as_torch_does():
    # Tensor.storage()'s TypedStorage is a storage to set_ (PyTorch's own view tests re-stride a
    # tensor over x.storage()), with a list stride; a dtype mismatch is PyTorch's error.
    tx, sx = torch.arange(80.0).view(1, 16, 5), st.arange(80.0).view(1, 16, 5)
    tx.set_(tx.storage(), 2, (1, 4, 5), [20, 5, 1])
    sx.set_(sx.storage(), 2, (1, 4, 5), [20, 5, 1])
    _same(sx, tx)
    assert sx.is_contiguous() and sx.base is None
    same_error(lambda: torch.zeros(3, dtype=torch.int64).set_(torch.arange(4.0).storage()),
               lambda: st.zeros(3, dtype=st.int64).set_(st.arange(4.0).storage()))
    same_error(lambda: torch.zeros(3).set_(torch.arange(4.0).view(torch.int32).storage(), 0, (2,)),
               lambda: st.zeros(3).set_(st.arange(4.0).view(st.int32).storage(), 0, (2,)))


@pytest.mark.parametrize("call", [
    lambda m, a, o: m.split_copy(a, 2, out=o), lambda m, a, o: m.split_copy(a, 2, dim=0, out=o),
    lambda m, a, o: m.split_with_sizes_copy(a, [1, 3], out=o), lambda m, a, o: m.unbind_copy(a.view(2, 2), out=o),
])
@pytest.mark.filterwarnings("ignore::UserWarning")  # both libraries warn when a non-empty out is resized
def test_copy_forms_with_several_results_write_a_tuple_of_outs_as_torch(call):
    # PyTorch: one out per piece, the result None; split_copy writes out.copy_(piece) (broadcast and
    # cast, never resized), split_with_sizes_copy and unbind_copy resize each out and want its dtype.
    ta, sa = torch.arange(4.0), st.arange(4.0)
    pieces = call(torch, ta, None)
    for make in (lambda m, p: m.zeros(tuple(p.shape)),                      # exact
                 lambda m, p: m.zeros(*p.shape, 3).transpose(0, -1),          # a strided out, broadcast or resized
                 lambda m, p: m.zeros(5),                                     # wrong size
                 lambda m, p: m.zeros(tuple(p.shape), dtype=m.float64)):      # cast, or refused
        touts = [make(torch, p) for p in pieces]
        souts = [make(st, p) for p in pieces]
        try:
            assert call(torch, ta, touts) is None
        except RuntimeError:
            before = [o.tolist() for o in souts]
            same_error(lambda make=make: call(torch, ta, [make(torch, p) for p in pieces]),
                       lambda souts=souts: call(st, sa, souts))
            assert [o.tolist() for o in souts] == before  # refused before any write
            continue
        assert call(st, sa, tuple(souts)) is None
        for so, to in zip(souts, touts):
            _same(so, to)
    for bad in (lambda m: [m.zeros(2)], lambda m: [m.zeros(2)] * (len(pieces) + 1), lambda m: m.zeros(2),
                lambda m: [m.zeros(2), 3]):
        same_error(lambda bad=bad: call(torch, ta, bad(torch)), lambda bad=bad: call(st, sa, bad(st)))
