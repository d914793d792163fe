"""Deprecation warnings that PyTorch gives for layout ops, given by strided too, side by side."""

from __future__ import annotations

import warnings

import pytest
import torch

import strided as st


@pytest.fixture(autouse=True)
def torch_warns_every_time():
    """PyTorch warns once per process by default; make each test see its warning."""
    before = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    yield
    torch.set_warn_always(before)


def _warnings_of(fn) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [w for w in caught if issubclass(w.category, UserWarning)]


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
def test_T_warns_exactly_when_torch_does(shape):
    s_caught = _warnings_of(lambda: st.zeros(shape).T)
    t_caught = _warnings_of(lambda: torch.zeros(shape).T)
    assert bool(s_caught) == bool(t_caught)
    assert st.zeros(shape).T.shape == torch.zeros(shape).T.shape
    if s_caught:
        text, torch_text = str(s_caught[0].message), str(t_caught[0].message)
        assert text[:40] == torch_text[:40]  # the first words read like PyTorch's
        if shape:
            assert str(tuple(shape)) in text and "x.mT" in text
        assert s_caught[0].filename == __file__  # attributed to the user's line
