"""The ``*_like`` ops' preserve_format strides without the clone plan (creation.py
``like_strides``'s memo): equal to the clone plan's strides and to PyTorch 2.13's, over permuted,
sliced, expanded, size-0 and size-1 layouts, on the first call and on a memoized one."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
from strided import creation
from strided import layout as L


@st.composite
def _layouts(draw):
    """(shape, permutation, slice steps, expanded dims) of a small tensor view."""
    nd = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=nd, max_size=nd)))
    perm = draw(st.permutations(range(nd)))
    steps = tuple(draw(st.lists(st.integers(1, 2), min_size=nd, max_size=nd)))
    expand = draw(st.integers(-1, nd - 1))
    return shape, perm, steps, expand


def _view(lib, shape, perm, steps, expand):
    t = lib.zeros(*shape) if shape else lib.zeros(())
    t = t[tuple(slice(None, None, s) for s in steps)].permute(*perm)
    if expand >= 0 and t.shape[expand] == 1:
        size = list(t.shape)
        size[expand] = 3
        t = t.expand(*size)
    return t


@settings(max_examples=200, deadline=None)
@given(layout=_layouts(), op=st.sampled_from(["empty_like", "zeros_like", "ones_like", "rand_like"]))
def test_like_strides_are_the_clone_plans_and_torch(layout, op):
    s = _view(strided, *layout)
    t = _view(torch, *layout)
    for _ in range(2):  # (the first call fills the memo, the second reads it)
        ours = getattr(strided, op)(s)
        assert tuple(ours.stride()) == tuple(getattr(torch, op)(t).stride())
        plan = L.plans.clone(s._layout, "preserve_format", itemsize=4)
        assert creation.like_strides(s, strided.preserve_format) == plan.strides
        assert tuple(ours.shape) == tuple(t.shape)


def test_other_formats_still_take_the_plan():
    x = strided.zeros(2, 3, 4, 5).permute(0, 2, 3, 1)
    y = torch.zeros(2, 3, 4, 5).permute(0, 2, 3, 1)
    for fmt in ("contiguous_format", "channels_last"):
        ours = strided.empty_like(x, memory_format=getattr(strided, fmt))
        assert tuple(ours.stride()) == tuple(torch.empty_like(y, memory_format=getattr(torch, fmt)).stride())
    assert np.asarray(strided.full_like(x, 2.0)).min() == 2.0


def test_the_memo_is_bounded():
    for n in range(1, 1100):
        strided.empty_like(strided.zeros(n, 2).t())
    assert len(creation._PRESERVED) <= 1024
