"""The contraction planner (layout/contraction.py): view-or-copy routes of a pairwise product,
checked against the tensors the executor really builds, and PyTorch's fold rule."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.layout import Layout
from strided.layout import plans as P
from strided.layout.contraction import order_by_stride, plan_pair, should_fold

SIZES = {"b": 3, "i": 4, "j": 5, "k": 6}


def _lay(shape, strides, offset=0):
    return Layout(tuple(shape), tuple(strides), offset)


def test_batched_matmul_is_reached_by_views() -> None:
    a = _lay((3, 4, 5), (20, 5, 1))
    b = _lay((3, 5, 6), (30, 6, 1))
    p = plan_pair("bij", a, "bjk", b, keep={"b", "i", "k"}, sizes=SIZES, itemsize=4)
    assert p.labels == "bik" and not p.elementwise
    assert [type(o.route) for o in p.operands] == [P.View, P.View]
    assert [o.shape3 for o in p.operands] == [(3, 4, 5), (3, 5, 6)]
    assert p.layout == _lay((3, 4, 6), (24, 6, 1)) and p.nbytes == 0


# batch indices b, c stored b-outer in a and c-outer in b: one of the two must be copied to line
# them up; copying a (3*2*4*5 float64 = 960 B) is cheaper than copying b (1440 B)
A = _lay((3, 2, 4, 5), (40, 20, 5, 1))   # b c i j
B = _lay((2, 3, 5, 6), (90, 30, 6, 1))   # c b j k
SIZES2 = {"b": 3, "c": 2, "i": 4, "j": 5, "k": 6}


def test_the_cheaper_order_of_batch_indices_wins() -> None:
    p = plan_pair("bcij", A, "cbjk", B, keep={"b", "c", "i", "k"}, sizes=SIZES2, itemsize=8)
    left, right = p.operands
    assert isinstance(left.route, P.Copy) and isinstance(right.route, P.View)
    assert p.nbytes == left.nbytes == 960
    assert p.labels == "cbik" and left.shape3 == (6, 4, 5) and right.shape3 == (6, 5, 6)
    # the why is the reshape refusal: the stride equation that failed, in a's permuted numbers
    assert "stride" in left.route.why.equation()


def test_the_executor_makes_the_planned_copy() -> None:
    p = plan_pair("bcij", A, "cbjk", B, keep={"b", "c", "i", "k"}, sizes=SIZES2, itemsize=8)
    left = p.operands[0]
    x = strided.zeros(120, dtype=strided.float64).as_strided(A.shape, A.strides, 0)
    with strided.record_copies() as copies:
        x.permute(left.perm).reshape(left.shape3)
    assert [c.nbytes for c in copies] == [left.nbytes]
    # and einsum's plan of the same step reports that copy
    y = strided.zeros(180, dtype=strided.float64).as_strided(B.shape, B.strides, 0)
    plan = strided.einsum_plan("bcij,cbjk->bcik", x, y)
    assert plan.bytes_copied == 960


def test_order_by_stride() -> None:
    assert order_by_stride("abc", ["a", "c"], (1, 99, 7)) == ["c", "a"]
    assert order_by_stride("abc", ["a", "b"], (0, 0, 1)) == ["a", "b"]  # ties keep the operand's order


@pytest.mark.parametrize(("sa", "sb", "transpose_a"), [
    ((2, 3, 4), (4,), False), ((2, 3, 4), (4, 5), False), ((2, 3, 4), (4, 5), True),
    ((4,), (2, 4, 5), False), ((3, 4), (2, 4, 5), False), ((2, 3, 4), (2, 4, 5), False),
    ((0, 3, 4), (4, 5), True), ((5, 1, 3, 4), (4,), True),
])
def test_should_fold_matches_pytorch_route(sa, sb, transpose_a) -> None:
    # PyTorch folds exactly when the big operand's leading dims merge by the stride test; the fold
    # shows in its error text ("mat1 and mat2 shapes cannot be multiplied (6x4 ...") for a bad k
    ta = torch.zeros(sa)
    if transpose_a and len(sa) >= 3:
        ta = torch.zeros(sa[:-3] + (sa[-2], sa[-3], sa[-1])).transpose(-3, -2)
    tb = torch.zeros(sb[:-1] + (sb[-1] + 1,)) if len(sb) == 1 else torch.zeros(sb[:-2] + (sb[-2] + 1, sb[-1]))
    try:
        torch.matmul(ta, tb)
        folded_torch = None
    except RuntimeError as e:
        folded_torch = "mat1 and mat2" in str(e) or "size mismatch" in str(e)
    a = _lay(ta.shape, ta.stride(), 0)
    b = _lay(tb.shape, tb.stride(), 0)
    if folded_torch is not None and 0 not in ta.shape:
        assert should_fold(a, b) == folded_torch
    # and strided's matmul raises the same first line as PyTorch for the mismatch
    xa = strided.from_numpy(np.zeros(ta.shape, np.float32)).as_strided(tuple(ta.shape), tuple(ta.stride()), 0) \
        if ta.is_contiguous() else strided.zeros(tuple(ta.shape[:-3]) + (ta.shape[-2], ta.shape[-3], ta.shape[-1])) \
        .transpose(-3, -2)
    xb = strided.zeros(tuple(tb.shape))
    if folded_torch is not None:
        with pytest.raises(RuntimeError) as ours:
            strided.matmul(xa, xb)
        with pytest.raises(RuntimeError) as theirs:
            torch.matmul(ta, tb)
        assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]
