"""Loud broadcasting: strided.broadcasting("allow" | "warn" | "raise"), globally and as a context manager.

The bug it catches: pred (B, 1) - target (B,) silently gives (B, B). Flagged: an op in which
both operands are stretched. Never flagged: a bias (D,) + (B, T, D), a Python scalar, a 0-d
tensor. ``rank_promotion=True`` flags any tensor operand that gets new leading dims too.
"""

from __future__ import annotations

import warnings

import pytest

import strided as st
from strided.ops.shape.broadcasting import get_broadcasting, stretched_dims

B = 4


@pytest.fixture(autouse=True)
def _restore_mode():
    before = get_broadcasting()
    yield
    st.broadcasting(before[0], rank_promotion=before[1])


def pred_target():
    return st.ones(B, 1), st.ones(B)


def test_default_is_allow_and_silent():
    assert get_broadcasting() == ("allow", False)
    pred, target = pred_target()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (pred - target).shape == (B, B)


def test_warn_on_the_classic_bug_names_shapes_dims_result_and_line():
    pred, target = pred_target()
    with st.broadcasting("warn"):
        with pytest.warns(st.BroadcastWarning) as record:
            line = _lineno() + 1
            loss = pred - target
    assert loss.shape == (B, B)  # warn mode still computes
    assert len(record) == 1
    w = record[0]
    assert w.filename == __file__ and w.lineno == line  # attributed to the user's line
    text = str(w.message)
    first = text.splitlines()[0]
    assert first == "sub: broadcasting stretched both operands: a (4, 1) and b (4,) give (4, 4)"
    assert "a (4, 1) is stretched along dim 1 (1 -> 4)" in text
    assert "b (4,) is stretched along dim 0 (missing -> 4)" in text
    assert f"{__file__}:{line}" in text
    assert issubclass(st.BroadcastWarning, UserWarning)


def _lineno() -> int:
    import sys

    return sys._getframe(1).f_lineno


def test_raise_mode_is_a_value_error_and_computes_nothing():
    pred, target = pred_target()
    with st.broadcasting("raise"):
        with pytest.raises(ValueError) as info:
            pred - target
    assert isinstance(info.value, st.BroadcastError)
    assert isinstance(info.value, st.StridedError)
    assert "(4, 1)" in str(info.value) and "(4, 4)" in str(info.value)


@pytest.mark.parametrize(
    "make",
    [
        lambda: st.ones(2, 3, 5) + st.ones(5),  # bias
        lambda: st.ones(5) + st.ones(2, 3, 5),  # bias on the left
        lambda: st.ones(2, 3, 5) * 2.0,  # Python scalar
        lambda: 2 - st.ones(2, 3),
        lambda: st.ones(2, 3) + st.tensor(1.0),  # 0-d tensor
        lambda: st.ones(2, 3) + st.ones(2, 3),  # no broadcasting
        lambda: st.ones(2, 1, 5) + st.ones(2, 3, 5),  # only one side stretched
        lambda: st.ones(4, 1) - st.ones(4, 1),
        lambda: st.where(st.ones(2, 3) > 0, st.ones(3), 0.0),
        lambda: st.ones(2, 3).clamp(0.0, 1.0),
        lambda: st.exp(st.ones(2, 3)),
        lambda: st.ones(1, 3) + st.ones(0, 3),  # 1 -> 0 is not growth
    ],
)
def test_ordinary_broadcasts_are_never_flagged(make):
    with st.broadcasting("raise"):
        make()


def test_inplace_ordinary_broadcast_is_not_flagged():
    x = st.zeros(3, 4)
    with st.broadcasting("raise"):
        x += st.ones(4)
        x.mul_(2.0)
    assert x.tolist() == [[2.0] * 4] * 3


def test_other_ops_are_checked_too():
    with st.broadcasting("raise"):
        for f in (lambda: st.ones(3, 1) * st.ones(1, 3), lambda: st.ones(3, 1) == st.ones(3),
                  lambda: st.maximum(st.ones(3, 1), st.ones(3)),
                  lambda: st.where(st.ones(3, 1) > 0, st.ones(3), 0.0),
                  lambda: st.ones(3, 1).clamp(st.ones(3), None)):
            with pytest.raises(st.BroadcastError):
                f()


def test_global_setting_without_with():
    st.broadcasting("raise")
    assert get_broadcasting() == ("raise", False)
    with pytest.raises(st.BroadcastError):
        st.ones(3, 1) + st.ones(3)
    st.broadcasting("allow")
    st.ones(3, 1) + st.ones(3)


def test_nested_context_managers_restore():
    st.broadcasting("warn")
    with st.broadcasting("raise"):
        with st.broadcasting("allow"):
            st.ones(3, 1) + st.ones(3)
            assert get_broadcasting()[0] == "allow"
        assert get_broadcasting()[0] == "raise"
        with pytest.raises(st.BroadcastError):
            st.ones(3, 1) + st.ones(3)
    assert get_broadcasting()[0] == "warn"
    with pytest.warns(st.BroadcastWarning):
        st.ones(3, 1) + st.ones(3)


def test_restores_after_an_exception():
    with pytest.raises(KeyError):
        with st.broadcasting("raise"):
            raise KeyError
    assert get_broadcasting() == ("allow", False)


def test_rank_promotion_mode():
    with st.broadcasting("raise", rank_promotion=True):
        with pytest.raises(st.BroadcastError) as info:
            st.ones(2, 3, 5) + st.ones(5)
        assert "new leading dim" in str(info.value)
        st.ones(2, 3, 5) + 1.0  # scalars never
        st.ones(2, 3, 5) + st.tensor(1.0)  # 0-d tensors never
        st.ones(2, 3, 5) + st.ones(1, 1, 5)  # same rank: fine
    with st.broadcasting("warn", rank_promotion=True):
        with pytest.warns(st.BroadcastWarning):
            st.ones(2, 5) * st.ones(5)
    st.ones(2, 5) * st.ones(5)  # back to allow


def test_bad_mode():
    with pytest.raises(ValueError, match="mode must be one of"):
        st.broadcasting("loud")


def test_stretched_dims():
    assert stretched_dims((4, 1), (4, 4)) == (1,)
    assert stretched_dims((4,), (4, 4)) == (0,)
    assert stretched_dims((5,), (2, 3, 5)) == (0, 1)
    assert stretched_dims((2, 3, 5), (2, 3, 5)) == ()
    assert stretched_dims((1,), (1, 1)) == ()
