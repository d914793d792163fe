"""Reordering, repeating, triangles, diagonals and grids against PyTorch 2.13: flip, fliplr, flipud,
roll, rot90, repeat, tile, repeat_interleave, tril/triu (and tril_/triu_), diag, diag_embed,
diagflat, block_diag (copies, reported to the copy ledger), meshgrid (views) and cartesian_prod.

Inputs are hypothesis-drawn hard layouts (permuted, stepped, expanded, zero-size, 0-d); results
are compared by shape, dtype, strides and values, errors by class and first line.
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
from strided.ops.shape.reorder import flip, repeat_interleave, roll, rot90, tile
from strided.ops.shape.triangles import (
    block_diag,
    cartesian_prod,
    diag,
    diag_embed,
    diagflat,
    meshgrid,
    tril,
    triu,
)

SETTINGS = settings(max_examples=40, deadline=None)


def dims_of(ndim: int) -> hs.SearchStrategy:
    span = max(ndim, 1)
    return hs.integers(-span - 1, span)


@SETTINGS
@given(specs(max_dims=4, max_size=4), hs.sampled_from(DTYPES), hs.data())
def test_flip_roll_rot90_match_torch(spec, dtype, data):
    t, s = pair(spec, dtype)
    nd = len(spec.shape)
    dims = data.draw(hs.lists(dims_of(nd), max_size=3))
    agree(lambda: torch.flip(t, dims), lambda: flip(s, dims), view=False)
    agree(lambda: t.flip(*dims) if dims else t.flip(()), lambda: s.flip(*dims) if dims else s.flip(()))
    agree(lambda: t.fliplr(), lambda: s.fliplr())
    agree(lambda: t.flipud(), lambda: s.flipud())
    shifts = data.draw(hs.lists(hs.integers(-7, 7), min_size=1, max_size=3))
    agree(lambda: torch.roll(t, shifts, dims), lambda: roll(s, shifts, dims), view=False)
    agree(lambda: t.roll(shifts[0]), lambda: s.roll(shifts[0]), view=False)
    k = data.draw(hs.integers(-5, 5))
    plane = data.draw(hs.lists(dims_of(nd), min_size=2, max_size=2))
    agree(lambda: torch.rot90(t, k, plane), lambda: rot90(s, k, plane), view=False)
    agree(lambda: t.rot90(), lambda: s.rot90())


@SETTINGS
@given(specs(max_dims=3, max_size=3), hs.sampled_from(DTYPES), hs.data())
def test_repeat_tile_repeat_interleave_match_torch(spec, dtype, data):
    t, s = pair(spec, dtype)
    reps = data.draw(hs.lists(hs.integers(-1, 3), max_size=4))
    agree(lambda: t.repeat(*reps) if reps else t.repeat(()), lambda: s.repeat(*reps) if reps else s.repeat(()))
    agree(lambda: torch.tile(t, reps), lambda: tile(s, reps), view=False)
    n = data.draw(hs.integers(-1, 3))
    agree(lambda: t.repeat_interleave(n), lambda: s.repeat_interleave(n), view=False)
    if spec.shape:
        dim = data.draw(dims_of(len(spec.shape)))
        agree(lambda: torch.repeat_interleave(t, n, dim), lambda: repeat_interleave(s, n, dim))
        size = spec.shape[dim] if -len(spec.shape) <= dim < len(spec.shape) else 1
        counts = data.draw(hs.lists(hs.integers(0, 3), min_size=size, max_size=size))
        agree(lambda: t.repeat_interleave(torch.tensor(counts, dtype=torch.int64), dim),
              lambda: s.repeat_interleave(st.tensor(counts, dtype=st.int64), dim))


@settings(max_examples=30, deadline=None)
@given(specs(min_dims=0, max_dims=4, max_size=4), hs.sampled_from(DTYPES), hs.integers(-4, 4))
def test_triangles_and_diagonals_match_torch(spec, dtype, k):
    t, s = pair(spec, dtype)
    agree(lambda: torch.tril(t, k), lambda: tril(s, k), view=False)
    agree(lambda: t.triu(k), lambda: triu(s, k), view=False)
    agree(lambda: torch.diag(t, k), lambda: diag(s, k), view=False)
    agree(lambda: torch.diagflat(t, k), lambda: diagflat(s, k), view=False)
    agree(lambda: torch.diag_embed(t, k), lambda: diag_embed(s, k), view=False)
    agree(lambda: torch.diag_embed(t, k, 0, -1), lambda: s.diag_embed(k, 0, -1))
    # in place, on a copy: the same values; a refused call leaves the target untouched
    tc, sc = t.clone(), s.clone()
    before = sc.numpy().copy()
    agree(lambda: tc.tril_(k), lambda: sc.tril_(k))
    if len(spec.shape) < 2:
        np.testing.assert_array_equal(sc.numpy(), before)
    else:
        np.testing.assert_array_equal(sc.numpy(), tc.numpy())
        tc.triu_(-k)
        assert sc.triu_(-k) is sc
        np.testing.assert_array_equal(sc.numpy(), tc.numpy())


def test_reorder_errors_match_torch():
    a, sa = torch.arange(6.).reshape(2, 3), st.arange(6.).reshape(2, 3)
    z, sz = torch.tensor(1.), st.tensor(1.)
    v, sv = torch.arange(3), st.arange(3)
    cases = [
        (lambda: a.flip(0, 0), lambda: sa.flip(0, 0)),
        (lambda: v.fliplr(), lambda: sv.fliplr()),
        (lambda: z.flipud(), lambda: sz.flipud()),
        (lambda: a.roll(1, (0, 1)), lambda: sa.roll(1, (0, 1))),
        (lambda: a.roll((1, 2)), lambda: sa.roll((1, 2))),
        (lambda: a.roll([], []), lambda: sa.roll([], [])),
        (lambda: z.roll(1, 0), lambda: sz.roll(1, 0)),
        (lambda: a.roll(1.5), lambda: sa.roll(1.5)),
        (lambda: a.rot90(1, (0,)), lambda: sa.rot90(1, (0,))),
        (lambda: v.rot90(), lambda: sv.rot90()),
        (lambda: a.rot90(1, (0, -2)), lambda: sa.rot90(1, (0, -2))),
        (lambda: a.rot90(1.0), lambda: sa.rot90(1.0)),
        (lambda: a.repeat(2), lambda: sa.repeat(2)),
        (lambda: a.repeat(-1, 2), lambda: sa.repeat(-1, 2)),
        (lambda: a.repeat_interleave(-1), lambda: sa.repeat_interleave(-1)),
        (lambda: a.repeat_interleave(torch.tensor([1, 2]), 1), lambda: sa.repeat_interleave(st.tensor([1, 2]), 1)),
        (lambda: a.repeat_interleave(torch.tensor([[1]]), 1), lambda: sa.repeat_interleave(st.tensor([[1]]), 1)),
        (lambda: a.repeat_interleave(torch.tensor([1., 2, 3]), 1),
         lambda: sa.repeat_interleave(st.tensor([1., 2, 3]), 1)),
        (lambda: a.repeat_interleave(torch.tensor([1, -2, 3]), 1),
         lambda: sa.repeat_interleave(st.tensor([1, -2, 3]), 1)),
        (lambda: a.repeat_interleave(2, 1, output_size=5), lambda: sa.repeat_interleave(2, 1, output_size=5)),
        (lambda: a.repeat_interleave(2, 1, output_size=6), lambda: sa.repeat_interleave(2, 1, output_size=6)),
        (lambda: z.repeat_interleave(3, 0), lambda: sz.repeat_interleave(3, 0)),
        (lambda: a.repeat_interleave(2.5), lambda: sa.repeat_interleave(2.5)),
        (lambda: torch.repeat_interleave(torch.tensor([1, 0, 2])), lambda: repeat_interleave(st.tensor([1, 0, 2]))),
        (lambda: torch.tril(a, 1.0), lambda: tril(sa, 1.0)),
        (lambda: torch.diag(torch.zeros(2, 2, 2)), lambda: diag(st.zeros(2, 2, 2))),
        (lambda: torch.diag_embed(a, 0, 1, 1), lambda: diag_embed(sa, 0, 1, 1)),
        (lambda: torch.block_diag(torch.zeros(2, 2, 2)), lambda: block_diag(st.zeros(2, 2, 2))),
        (lambda: torch.block_diag(a, 3), lambda: block_diag(sa, 3)),
    ]
    for fn_t, fn_s in cases:
        agree(fn_t, fn_s)


def test_block_diag_matches_torch():
    z, v, a = torch.tensor(2.), torch.arange(3.), torch.arange(6).reshape(2, 3).t()
    sz, sv, sa = st.tensor(2.), st.arange(3.), st.arange(6).reshape(2, 3).t()
    agree(lambda: torch.block_diag(z, v, a), lambda: block_diag(sz, sv, sa), view=False)
    agree(lambda: torch.block_diag(), lambda: block_diag())
    agree(lambda: torch.block_diag(a[:0], v), lambda: block_diag(sa[:0], sv))


@SETTINGS
@given(hs.lists(specs(min_dims=0, max_dims=1, max_size=4), min_size=1, max_size=3), hs.sampled_from(["ij", "xy"]))
def test_meshgrid_views_and_cartesian_prod_match_torch(spec_list, indexing):
    pairs = [pair(sp, "int64", seed=i) for i, sp in enumerate(spec_list)]
    ts, ss = [p[0] for p in pairs], [p[1] for p in pairs]
    grids = agree(lambda: torch.meshgrid(*ts, indexing=indexing), lambda: meshgrid(*ss, indexing=indexing), view=True)
    for g, s in zip(grids, ss if indexing == "ij" or len(ss) < 2 else [ss[0], ss[1], *ss[2:]]):
        assert g.untyped_storage() is s.untyped_storage()
    agree(lambda: torch.meshgrid(ts, indexing=indexing), lambda: meshgrid(ss, indexing=indexing), view=True)
    agree(lambda: torch.cartesian_prod(*ts), lambda: cartesian_prod(*ss))


def test_grid_errors_match_torch():
    v, sv = torch.arange(3.), st.arange(3.)
    agree(lambda: torch.meshgrid(v, v.int(), indexing="ij"), lambda: meshgrid(sv, sv.to(st.int32), indexing="ij"))
    agree(lambda: torch.meshgrid(v, indexing="bad"), lambda: meshgrid(sv, indexing="bad"))
    agree(lambda: torch.meshgrid(), lambda: meshgrid())
    agree(lambda: torch.cartesian_prod(v, v.reshape(3, 1)), lambda: cartesian_prod(sv, sv.reshape(3, 1)))
    agree(lambda: torch.cartesian_prod(), lambda: cartesian_prod())
    with pytest.raises(RuntimeError, match="Expected 0D or 1D tensor") as info:
        meshgrid(sv, sv.reshape(1, 3))
    assert "shape (1, 3)" in str(info.value)
    assert cartesian_prod(sv) is sv  # as PyTorch: one tensor comes back as it is


def test_copies_are_reported_with_reasons():
    a = st.arange(6.).reshape(2, 3)
    with st.record_copies() as copies:
        a.flip(0)
        a.roll(1, 1)
        a.rot90()
        a.repeat(2, 1)
        a.tile(2)
        a.repeat_interleave(2, 0)
        a.tril()
        a.diag()
        meshgrid(a[0], a[1])  # views: not in the ledger
        cartesian_prod(a[0], a[1])
    names = [c.reason.split(":")[0] for c in copies]
    assert names == ["flip", "roll", "rot90", "repeat", "tile", "repeat_interleave", "tril", "diag", "cartesian_prod"]
    assert copies[0].reason == "flip: dims [0] reversed into new memory (PyTorch's flip copies; t[::-1] is a view)"
    assert [c.nbytes for c in copies] == [24, 24, 24, 48, 48, 48, 24, 8, 72]


def test_in_place_triangle_refuses_overlap_and_leaves_target_untouched():
    base = st.arange(3.)
    expanded = base.unsqueeze(1).expand(3, 3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        expanded.tril_()
    assert base.tolist() == [0.0, 1.0, 2.0]
    target = st.arange(9.).reshape(3, 3)
    with pytest.raises(TypeError):
        target.triu_(1.5)
    assert target.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]
    view = target.t()
    view.tril_()  # writes through the view land in the base
    assert target.tolist() == [[0.0, 1.0, 2.0], [0.0, 4.0, 5.0], [0.0, 0.0, 8.0]]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int64, np.complex64])
def test_rot90_of_large_tensors_matches_torch(dtype):
    """Past the small gather: the flipped input copied by the blocked kernel, laid out as
    PyTorch's flip().transpose(): shape, strides and bytes, every k and plane."""
    rng = np.random.default_rng(4)
    for shape in [(300, 200), (64, 3, 100), (2, 3, 4, 50)]:
        a = (rng.standard_normal(shape) * 100).astype(dtype)
        for k in (-1, 0, 1, 2, 3, 5):
            for dims in ((0, 1), (1, 0), (0, -1), (-1, -2)):
                s, t = rot90(st.from_numpy(a), k, dims), torch.rot90(torch.from_numpy(a), k, list(dims))
                assert s.shape == tuple(t.shape) and s.stride() == t.stride()
                assert s.numpy().tobytes() == t.numpy().tobytes()
