"""Joining and splitting against PyTorch 2.13: cat (concat, concatenate), stack, hstack, vstack,
dstack, column_stack (copies, reported to the copy ledger), tensor_split, hsplit, vsplit, dsplit,
broadcast_tensors and atleast_1d/2d/3d (views sharing the input's storage, strides as PyTorch's).

Inputs are hypothesis-drawn hard layouts (permuted, stepped, expanded, zero-size, 0-d) of the
same values in both libraries; errors are compared by class and first line.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from join_oracle import DTYPES, agree, pair
from layouts import specs
from strided.ops.shape.joining import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    broadcast_tensors,
    cat,
    column_stack,
    concat,
    concatenate,
    dsplit,
    dstack,
    hsplit,
    hstack,
    row_stack,
    stack,
    tensor_split,
    vsplit,
    vstack,
)

SETTINGS = settings(max_examples=40, deadline=None)


@hs.composite
def joinable(draw, min_dims: int = 1, max_dims: int = 4, same: bool = False):
    """2 or 3 tensors (torch, strided pairs) of one shape except along a drawn dim, in drawn dtypes."""
    ndim = draw(hs.integers(min_dims, max_dims))
    shape = tuple(draw(hs.integers(0, 3)) for _ in range(ndim))
    dim = draw(hs.integers(-ndim, ndim - 1)) if ndim else 0
    n = draw(hs.integers(1, 3))
    pairs = []
    for i in range(n):
        sh = list(shape)
        if ndim and not same:
            sh[dim] = draw(hs.integers(0, 3))
        spec = draw(specs(shape=tuple(sh)))
        dtype = draw(hs.sampled_from(DTYPES))
        pairs.append(pair(spec, dtype, seed=i))
    return pairs, dim


@SETTINGS
@given(joinable())
def test_cat_matches_torch(case):
    pairs, dim = case
    ts, ss = [p[0] for p in pairs], [p[1] for p in pairs]
    agree(lambda: torch.cat(ts, dim), lambda: cat(ss, dim), view=False)


@SETTINGS
@given(joinable(min_dims=0, max_dims=3, same=True), hs.integers(-4, 3))
def test_stack_matches_torch(case, dim):
    pairs, _ = case
    ts, ss = [p[0] for p in pairs], [p[1] for p in pairs]
    agree(lambda: torch.stack(ts, dim), lambda: stack(ss, dim), view=False)


@SETTINGS
@given(joinable(min_dims=0, max_dims=3, same=True), hs.sampled_from(["hstack", "vstack", "dstack", "column_stack"]))
def test_hstack_family_matches_torch(case, name):
    pairs, _ = case
    ts, ss = [p[0] for p in pairs], [p[1] for p in pairs]
    mine = {"hstack": hstack, "vstack": vstack, "dstack": dstack, "column_stack": column_stack}[name]
    agree(lambda: getattr(torch, name)(ts), lambda: mine(ss), view=False)


def test_cat_rules_and_errors():
    a, b = torch.arange(6.).reshape(2, 3), torch.zeros(2, 4, dtype=torch.float64)
    sa, sb = st.arange(6.).reshape(2, 3), st.zeros(2, 4, dtype=st.float64)
    e, se = torch.zeros(0, dtype=torch.int64), st.zeros(0, dtype=st.int64)
    z, sz = torch.tensor(1.), st.tensor(1.)
    agree(lambda: torch.cat([a, b], 1), lambda: cat([sa, sb], 1))  # float32 + float64 -> float64
    agree(lambda: torch.cat([a, e], 1), lambda: cat([sa, se], 1))  # legacy: (0,) skipped, dim 1 fine
    agree(lambda: torch.cat([e, a, e], -1), lambda: cat([se, sa, se], -1))
    agree(lambda: torch.cat([e, e.float()]), lambda: cat([se, se.to(st.float32)]))
    agree(lambda: torch.cat((a.t(), a.t()), 1), lambda: cat((sa.t(), sa.t()), 1))
    # the aliases are cat / vstack under their own names (reported as such: test_everyday_boundary)
    assert concat([sa, sa]).tolist() == concatenate([sa, sa]).tolist() == cat([sa, sa]).tolist()
    assert row_stack([sa[0], sa[1]]).tolist() == vstack([sa[0], sa[1]]).tolist()
    text = str(agree(lambda: torch.cat([a, b], 0), lambda: cat([sa, sb], 0)))
    assert "tensor 1 has shape (2, 4)" in text
    agree(lambda: torch.cat([a, z]), lambda: cat([sa, sz]))
    agree(lambda: torch.cat([a, torch.zeros(2, 3, 1)]), lambda: cat([sa, st.zeros(2, 3, 1)]))
    agree(lambda: torch.cat([e, a], 5), lambda: cat([se, sa], 5))
    agree(lambda: torch.cat(a), lambda: cat(sa))
    agree(lambda: torch.cat([a, 1]), lambda: cat([sa, 1]))
    agree(lambda: torch.cat([a], dim=None), lambda: cat([sa], dim=None))
    with pytest.raises(ValueError, match=r"expected a non-empty list of Tensors"):
        cat([])
    agree(lambda: torch.stack([]), lambda: stack([]))
    agree(lambda: torch.stack([a, a.t()]), lambda: stack([sa, sa.t()]))
    agree(lambda: torch.stack([a, a], 3), lambda: stack([sa, sa], 3))
    agree(lambda: torch.hstack([]), lambda: hstack([]))


def test_cat_and_stack_keep_channels_last():
    x = torch.arange(120.).reshape(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)
    sx = st.arange(120.).reshape(2, 3, 4, 5).contiguous(st.channels_last)
    for dim in range(4):
        agree(lambda d=dim: torch.cat([x, x], d), lambda d=dim: cat([sx, sx], d))
    for dim in range(5):
        agree(lambda d=dim: torch.stack([x, x], d), lambda d=dim: stack([sx, sx], d))
    plain = torch.zeros(2, 3, 4, 5)
    agree(lambda: torch.cat([x, plain], 1), lambda: cat([sx, st.zeros(2, 3, 4, 5)], 1))  # mixed: row-major
    agree(lambda: torch.cat([x, torch.zeros(0)], 1), lambda: cat([sx, st.zeros(0)], 1))  # a skipped one counts


def test_joins_are_reported_copies():
    a = st.arange(6.).reshape(2, 3)
    with st.record_copies() as copies:
        cat([a, a.t().t()], 1)
        stack([a, a])
        vstack([a, a])
    assert [c.reason for c in copies] == [
        "cat: 2 tensors joined along dim 1 into new memory",
        "stack: 2 tensors stacked along dim 0 into new memory",
        "vstack: 2 tensors joined along dim 0 into new memory",
    ]
    assert [c.nbytes for c in copies] == [48, 48, 48]


@SETTINGS
@given(specs(min_dims=1, max_dims=3), hs.data())
def test_tensor_split_views_match_torch(spec, data):
    t, s = pair(spec)
    dim = data.draw(hs.integers(-spec.shape.__len__(), len(spec.shape) - 1))
    how = data.draw(hs.one_of(hs.integers(-1, 5), hs.lists(hs.integers(-6, 6), max_size=4)))
    parts = agree(lambda: torch.tensor_split(t, how, dim), lambda: tensor_split(s, how, dim), view=True)
    if isinstance(parts, tuple):
        assert all(p.untyped_storage() is s.untyped_storage() for p in parts)
    if isinstance(how, list):
        agree(lambda: t.tensor_split(torch.tensor(how, dtype=torch.int64), dim),
              lambda: s.tensor_split(st.tensor(how, dtype=st.int64), dim), view=True)


def test_split_errors_and_directional_splits():
    t, s = torch.zeros(6, 4, 2), st.zeros(6, 4, 2)
    for name, fn in (("hsplit", hsplit), ("vsplit", vsplit), ("dsplit", dsplit)):
        for how in (2, 3, [1, 3], 0):
            agree(lambda n=name, h=how: getattr(torch, n)(t, h), lambda f=fn, h=how: f(s, h), view=True)
        agree(lambda n=name: getattr(torch, n)(t[0, 0], 2), lambda n=name: getattr(s[0, 0], n)(2))
    agree(lambda: torch.hsplit(t[0, 0], 2), lambda: s[0, 0].hsplit(2), view=True)  # 1-D: dim 0
    agree(lambda: torch.tensor_split(torch.tensor(1.), 2), lambda: tensor_split(st.tensor(1.), 2))
    agree(lambda: t.tensor_split(torch.tensor([[1]])), lambda: s.tensor_split(st.tensor([[1]])))
    agree(lambda: t.tensor_split(torch.tensor([1.0])), lambda: s.tensor_split(st.tensor([1.0])))
    agree(lambda: t.tensor_split(torch.tensor(4)), lambda: s.tensor_split(st.tensor(4)), view=True)
    with pytest.raises(TypeError, match="tensor_split"):
        s.tensor_split(2.5)


@SETTINGS
@given(specs(max_dims=3, max_size=3), specs(max_dims=3, max_size=3))
def test_broadcast_tensors_are_expanded_views(spec_a, spec_b):
    (ta, sa), (tb, sb) = pair(spec_a), pair(spec_b, "int64")
    out = agree(lambda: torch.broadcast_tensors(ta, tb), lambda: broadcast_tensors(sa, sb), view=True)
    if isinstance(out, tuple):
        assert out[0].untyped_storage() is sa.untyped_storage()


@SETTINGS
@given(specs(max_dims=4, max_size=3))
def test_atleast_views_match_torch(spec):
    t, s = pair(spec)
    for fn in (atleast_1d, atleast_2d, atleast_3d):
        tfn = getattr(torch, fn.__name__)
        r = agree(lambda f=tfn: f(t), lambda f=fn: f(s))
        if r is not s:
            assert r.is_view() and r.untyped_storage() is s.untyped_storage()
            assert r.storage_offset() == s.storage_offset()
        else:
            assert s.ndim >= int(fn.__name__[-2])
        agree(lambda f=tfn: f(t, t), lambda f=fn: f(s, s))
        agree(lambda f=tfn: f([t]), lambda f=fn: f([s]))
    assert atleast_1d() == ()


def test_views_report_views_and_joins_report_copies():
    seen = []
    a = st.arange(6.).reshape(2, 3)
    with st.dispatch.listen(seen.append):
        tensor_split(a, 2, 1)
        atleast_3d(a)
        broadcast_tensors(a, st.zeros(1, 3))
        hstack([a, a])
    kinds = [(r.name, r.kind) for r in seen]
    assert kinds[0] == ("tensor_split", "view") and kinds[1] != ("tensor_split", "view")  # (one op, one record)
    assert ("atleast_3d", "view") in kinds and ("broadcast_tensors", "view") in kinds
    assert kinds[-1] == ("hstack", "copy")
    assert not any(k == "copy" for n, k in kinds[:-1] if n != "zeros")


def test_cat_values_from_expanded_and_permuted_inputs():
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    s = st.tensor(base)
    got = cat([s.t(), s[0].unsqueeze(1).expand(4, 3)], 0)
    np.testing.assert_array_equal(got.numpy(), np.concatenate([base.T, np.broadcast_to(base[0][:, None], (4, 3))], 0))
