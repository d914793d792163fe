"""The copy ledger records the plan's why (a value), and the view memo never changes an answer."""

from __future__ import annotations

import pytest

import strided as st
from strided.layout import CopyRequested, NotContiguous, ReshapeRefusal


def test_a_reshape_copy_records_the_refusal_that_forced_it() -> None:
    t = st.arange(12.0).reshape(3, 4)
    with st.record_copies() as copies:
        y = t.permute(1, 0).reshape(12)
    assert y.shape == (12,) and y.stride() == (1,) and y.storage_offset() == 0
    (rec,) = copies
    assert rec.why == ReshapeRefusal((4, 3), (1, 4), (12,), 0, 1, 0, 12)
    assert rec.reason == (
        "reshape(12): dims 0 and 1 cannot merge: "
        "stride[0] == size[1] * stride[1] = 3 * 4 = 12, but stride[0] is 1")


def test_requested_copies_keep_their_reason_and_carry_their_why() -> None:
    t = st.arange(12.0).reshape(3, 4).t()
    with st.record_copies() as copies:
        t.contiguous()
        t.clone()
        t.to(st.float64)
    assert [c.reason for c in copies] == [
        "contiguous() of (4, 3) strides (1, 4): dim 1 has stride 4, row-major needs 1", "clone()", "to(float64)"]
    assert copies[0].why == NotContiguous("C", 1, 4, 1)
    assert copies[1].why == CopyRequested("clone()") and copies[2].why == CopyRequested("to()")


def test_the_view_memo_does_not_take_bools_or_floats_for_ints() -> None:
    t = st.zeros(2, 3)
    assert t.permute(1, 0).shape == (3, 2)  # remembered for plain ints
    with pytest.raises(TypeError):
        t.permute(True, 0)
    with pytest.raises(TypeError):
        t.transpose(1.0, 0)
    assert t.view(6).shape == (6,)
    with pytest.raises(TypeError):
        t.view(6.0)
    with pytest.raises(TypeError):
        t.view()  # view(()) may be remembered; view() is still an error
    assert t.reshape(-1).shape == (6,)
