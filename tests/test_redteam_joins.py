"""Red-team checks of the joins' and views' fast paths (ops/shape/fast_join.py, the layout memos,
the small *_copy path, tril/triu, flip/roll/rot90, the join out= checks) against PyTorch 2.13.

Each test is a finding or an attack that the fast paths must survive: layouts (shape, strides,
offset), view-vs-copy and values compared bit for bit, error classes and PyTorch's first line.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided

JOINS = ["cat", "concat", "concatenate", "stack", "hstack", "vstack", "row_stack", "dstack", "column_stack"]


def _s(t):
    """The strided copy of a PyTorch tensor (same dtype, row-major)."""
    return strided.tensor(t.numpy())


def _same(r, s) -> None:
    """``s`` (strided) has ``r``'s (PyTorch's) layout, dtype and bytes."""
    assert tuple(s.shape) == tuple(r.shape)
    assert tuple(s.stride()) == tuple(r.stride())
    assert s.storage_offset() == r.storage_offset()
    assert s.dtype.name == str(r.dtype).split(".")[1]
    assert np.ascontiguousarray(np.asarray(s)).tobytes() == np.ascontiguousarray(r.numpy()).tobytes()


def _first_line(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value).split("\n")[0]


# ---------------------------------------------------------------- findings


@pytest.mark.parametrize("name", JOINS)
def test_join_out_refusal_names_torch_op(name):
    """Finding: with out= and an input requiring grad, PyTorch's joins built on cat (hstack,
    vstack, row_stack, dstack, column_stack, concat, concatenate) name ``cat()`` in the refusal;
    strided named the alias."""
    a = torch.ones(2, 3, requires_grad=True)
    sa = strided.ones(2, 3).requires_grad_()
    tcls, tline = _first_line(lambda: getattr(torch, name)([a, a], out=torch.empty(0)))
    scls, sline = _first_line(lambda: getattr(strided, name)([sa, sa], out=strided.empty(0)))
    assert issubclass(scls, tcls)
    assert sline == tline
    # out requiring grad: the same first line
    o, so = torch.empty(0, requires_grad=True), strided.empty(0).requires_grad_()
    _, tline = _first_line(lambda: getattr(torch, name)([a.detach(), a.detach()], out=o))
    _, sline = _first_line(lambda: getattr(strided, name)([sa.detach(), sa.detach()], out=so))
    assert sline == tline


@pytest.mark.parametrize("k", [-(2**63), -(2**63) + 1, 2**63 - 1])
def test_tril_triu_extreme_diagonal(k):
    """Finding: a diagonal near -2**63 (in PyTorch's int64 range) reached np.tri's arange and
    raised NumPy's OverflowError; PyTorch keeps all (triu) or nothing (tril). Fast path (row-major),
    general path (transposed) and in place."""
    t = torch.arange(12.0).reshape(3, 4)
    s = _s(t)
    for op in ("tril", "triu"):
        _same(getattr(torch, op)(t, k), getattr(strided, op)(s, k))
        _same(getattr(torch, op)(t.t(), k), getattr(strided, op)(s.t(), k))
        r, out = t.clone(), s.clone()
        getattr(r, op + "_")(k)
        getattr(out, op + "_")(k)
        _same(r, out)


# ---------------------------------------------------------------- attacks the fast paths survive


@pytest.mark.parametrize("name", ["cat", "hstack", "vstack", "dstack", "column_stack", "stack"])
def test_join_fast_path_attacks(name):
    """Mixed dtypes (torch's promotion), the same tensor twice, an offset view, an expanded input,
    a (0,) input among others, bool and bfloat16: layouts and bytes as PyTorch's."""
    t = torch.arange(12.0).reshape(3, 4)
    s = _s(t)
    cases = [
        ([t, t], [s, s]),
        ([t, t.long()], [s, s.long()]),
        ([t.bool(), t.long()], [s.bool(), s.long()]),
        ([t[1:], t[:2]], [s[1:], s[:2]]),
        ([t[:1].expand(3, 4), t], [s[:1].expand(3, 4), s]),
        ([t.to(torch.bfloat16), t.to(torch.bfloat16)], [s.to(strided.bfloat16), s.to(strided.bfloat16)]),
    ]
    if name == "cat":
        cases.append(([t, t.reshape(-1)[:0]], [s, s.reshape(-1)[:0]]))
    for tin, sin in cases:
        r, out = getattr(torch, name)(tin), getattr(strided, name)(sin)
        if r.dtype == torch.bfloat16:
            assert tuple(out.stride()) == tuple(r.stride())
            assert out.float().tolist() == r.float().tolist()
        else:
            _same(r, out)
        assert out.untyped_storage().data_ptr() != s.untyped_storage().data_ptr()


def test_join_dim_errors_match_torch():
    t, s = torch.ones(2, 3), strided.ones(2, 3)
    for dim in (2, -3, 5):
        tcls, tline = _first_line(lambda d=dim: torch.cat([t, t], dim=d))
        scls, sline = _first_line(lambda d=dim: strided.cat([s, s], dim=d))
        assert issubclass(scls, tcls) and sline == tline


def test_as_strided_memo_follows_storage_size():
    """The remembered as_strided decision is keyed on the storage's size: a storage grown by set_
    makes an earlier refusal an answer, and an error is raised again on every call."""
    s = strided.arange(6.0)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="out of bounds"):
            s.as_strided((4,), (2,))
    s.set_(strided.arange(10.0))
    assert s.as_strided((4,), (2,)).tolist() == [0.0, 2.0, 4.0, 6.0]
    off = strided.arange(10.0)[3:]
    t_off = torch.arange(10.0)[3:]
    for _ in range(2):  # (the second call reads the memo)
        _same(t_off.as_strided((2, 2), (1, 2), 1), off.as_strided((2, 2), (1, 2), 1))


def test_copy_forms_are_fresh_and_unshared():
    """The small *_copy path: a fresh row-major tensor with PyTorch's strides; unbind_copy and
    split_copy pieces each in their own memory."""
    t = torch.arange(24.0).reshape(2, 3, 4)
    s = _s(t)
    for name, args in [("t_copy", ()), ("permute_copy", ((2, 0, 1),)), ("expand_copy", ((2, 2, 3, 4),)),
                       ("diagonal_copy", (0, 1, 2)), ("unsqueeze_copy", (1,)), ("alias_copy", ())]:
        x, y = (t[0], s[0]) if name == "t_copy" else (t, s)
        r, out = getattr(torch, name)(x, *args), getattr(strided, name)(y, *args)
        _same(r, out)
        assert out.untyped_storage().data_ptr() != s.untyped_storage().data_ptr()
    for name, args in [("unbind_copy", (1,)), ("split_copy", (1, 2))]:
        pieces = getattr(strided, name)(s, *args)
        for r, out in zip(getattr(torch, name)(t, *args), pieces):
            _same(r, out)
        assert len({p.untyped_storage().data_ptr() for p in pieces}) == len(pieces)


def test_tril_triu_nan_negzero_and_diagonals():
    t = torch.full((2, 3, 4), float("nan"))
    t[0, 0, 1] = -0.0
    t[1, 2, 0] = -0.0
    s = _s(t)
    for k in (-5, -1, 0, 2, 7):
        _same(torch.tril(t, k), strided.tril(s, k))
        _same(torch.triu(t, k), strided.triu(s, k))
    b = torch.ones(3, 3, dtype=torch.bool)
    _same(torch.triu(b, 1), strided.triu(_s(b), 1))


def test_flip_roll_rot90_repeat_interleave_layouts():
    t = torch.arange(12.0).reshape(3, 4)
    s = _s(t)
    pairs = [
        (torch.roll(t, 13), strided.roll(s, 13)),
        (torch.roll(t, -5, 1), strided.roll(s, -5, 1)),
        (torch.roll(t, (1, -2), (0, 1)), strided.roll(s, (1, -2), (0, 1))),
        (torch.rot90(t, -1), strided.rot90(s, -1)),
        (torch.rot90(t, 7, (1, 0)), strided.rot90(s, 7, (1, 0))),
        (torch.flip(t, (0, -1)), strided.flip(s, (0, -1))),
        (torch.repeat_interleave(t, 0, 1), strided.repeat_interleave(s, 0, 1)),
        (torch.repeat_interleave(t, 2, output_size=24), strided.repeat_interleave(s, 2, output_size=24)),
    ]
    for r, out in pairs:
        _same(r, out)
    before = strided.rot90(s, 4).tolist()
    s.add_(1)  # (rot90 by 4 is a copy in PyTorch: the result does not follow its input)
    assert strided.rot90(s, 0).tolist() != before


def test_broadcast_and_meshgrid_layouts_and_writes():
    a, b = torch.arange(3.0), torch.arange(1.0)
    sa, sb = _s(a), _s(b)
    for ind in ("xy", "ij"):
        for r, out in zip(torch.meshgrid(a, b, a, indexing=ind), strided.meshgrid(sa, sb, sa, indexing=ind)):
            _same(r, out)
    for r, out in zip(torch.broadcast_tensors(a, b.reshape(1, 1)), strided.broadcast_tensors(sa, sb.reshape(1, 1))):
        _same(r, out)
    grid = strided.meshgrid(sa, strided.arange(2.0), indexing="ij")[0]
    tcls, tline = _first_line(lambda: torch.meshgrid(a, torch.arange(2.0), indexing="ij")[0].add_(1))
    scls, sline = _first_line(lambda: grid.add_(1))
    assert issubclass(scls, tcls) and sline == tline


class _Foo:
    """A Python class: PyTorch names it bare (``Foo``) in its argument errors."""


@pytest.mark.parametrize("name", JOINS)
def test_join_argument_errors_match_torch(name):
    """Findings: concat/concatenate named cat() in the argument TypeError; element type names
    were bare where PyTorch qualifies C types (numpy.ndarray); row_stack([]) is PyTorch's vstack."""
    t, s = torch.ones(2, 3), strided.ones(2, 3)
    cases = [
        (lambda: getattr(torch, name)(t), lambda: getattr(strided, name)(s)),
        (lambda: getattr(torch, name)(x for x in [t]), lambda: getattr(strided, name)(x for x in [s])),
        (lambda: getattr(torch, name)([t, np.ones((2, 3))]), lambda: getattr(strided, name)([s, np.ones((2, 3))])),
        (lambda: getattr(torch, name)([t, _Foo()]), lambda: getattr(strided, name)([s, _Foo()])),
        (lambda: getattr(torch, name)([]), lambda: getattr(strided, name)([])),
    ]
    for tf, sf in cases:
        tcls, tline = _first_line(tf)
        scls, sline = _first_line(sf)
        assert issubclass(scls, tcls)
        assert sline == tline
