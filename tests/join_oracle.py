"""Helpers of the joining / reordering tests: the same hard layout with the same values in PyTorch and
strided, and one comparison of what the two returned (tensors, tuples of tensors, or errors)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

import strided as st
from layout_strategies import Spec
from layouts import build_valued, valued_storage
from oracle_helpers import assert_same_tensor, errors_agree, outcome

DTYPES = ("float32", "float64", "int64", "int32", "uint8", "bool", "float16")


def pair(spec: Spec, dtype: str = "float32", seed: int = 0) -> tuple[torch.Tensor, st.Tensor]:
    """``spec``'s layout over one buffer of values (nonnegative strides only), in torch and strided."""
    data = valued_storage(spec, dtype, seed)
    t, _, s = build_valued(spec, data)
    assert t is not None
    return t, s


def same_tensor(tr: torch.Tensor, sr: st.Tensor, view: bool | None = None) -> None:
    """Shape, dtype, strides, values (and, when ``view`` is given, storage offset and view-ness) agree."""
    assert_same_tensor(sr, tr, {}, exact=True)
    if view is not None:
        assert sr.is_view() is view
        if view:
            assert sr.storage_offset() == tr.storage_offset()


def agree(fn_t: Callable[[], Any], fn_s: Callable[[], Any], view: bool | None = None) -> Any:
    """Both calls raise (same builtin class and first line, and strided adds a detail line), or
    both return a tensor / a tuple of tensors that agree (:func:`same_tensor`). Returns strided's."""
    tr, te = outcome(fn_t)
    sr, se = outcome(fn_s)
    if errors_agree(te, se):
        return se
    if isinstance(tr, torch.Tensor):
        same_tensor(tr, sr, view)
    else:
        assert isinstance(sr, tuple) and len(sr) == len(tr)
        for a, b in zip(tr, sr):
            same_tensor(a, b, view)
    return sr
