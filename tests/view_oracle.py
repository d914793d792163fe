"""Differential oracle for view ops: run one op in PyTorch and in strided, compare everything.

Used by ``test_views_torch.py`` and ``test_view_fuzz.py``. A *pair* is a torch
tensor and a strided tensor that should be the same tensor (same layout, same
values, same view-vs-copy history). :class:`Chain` keeps every pair seen so far,
so that ``_base`` (torch) and ``base`` (strided) can be checked to name the
*corresponding* root, not just "some tensor".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from hypothesis import strategies as hs

import strided as st
from oracle_helpers import builtin_class, outcome
from strided.layout import product


def call(fn: Callable[[Any], Any], x: Any) -> tuple[Any, BaseException | None]:
    """``fn(x)`` through the shared oracle: ``(result, None)`` or ``(None, the exception)``."""
    return outcome(lambda: fn(x))


class Chain:
    """The torch/strided pairs of one test: roots, copies and views, in creation order."""

    def __init__(self, t: torch.Tensor, s: st.Tensor) -> None:
        self.pairs: list[tuple[Any, Any]] = []
        self.add(t, s)
        self.add(t._base if t._base is not None else t, s.base if s.base is not None else s)

    def add(self, t: Any, s: Any) -> None:
        if isinstance(t, torch.Tensor):
            self.pairs.append((t, s))

    def strided_of(self, t: torch.Tensor) -> Any:
        for tt, ss in self.pairs:
            if tt is t:
                return ss
        raise AssertionError(f"torch tensor {tuple(t.shape)} is not part of this chain")

    def apply(self, what: str, fn_t: Callable, fn_s: Callable, t: Any, s: Any) -> tuple[Any, Any] | None:
        """Apply an op to a pair; compare results or errors. Returns the new pair, or None on error."""
        before = (s.shape, s.stride(), s.storage_offset(), s.tolist())
        tr, te = call(fn_t, t)
        sr, se = call(fn_s, s)
        if te is not None:
            assert se is not None, f"{what}: torch raised {te!r}, strided returned {sr!r}"
            assert builtin_class(se) is builtin_class(te), (
                f"{what}: torch raised {type(te).__name__}({te}), strided {type(se).__name__}({se})"
            )
            assert isinstance(se, st.StridedError), f"{what}: not a StridedError: {se!r}"
            after = (s.shape, s.stride(), s.storage_offset(), s.tolist())
            assert after == before, f"{what}: failed op changed the tensor"
            return None
        assert se is None, f"{what}: strided raised {type(se).__name__}: {se}\n torch gave {tr!r}"
        self.compare(what, tr, sr, t, s)
        return tr, sr

    def compare(self, what: str, tr: Any, sr: Any, t: Any, s: Any) -> None:
        if isinstance(tr, (tuple, list)):
            assert isinstance(sr, tuple), f"{what}: torch gives a sequence, strided {type(sr)}"
            assert len(tr) == len(sr), f"{what}: {len(tr)} pieces vs {len(sr)}"
            for i, (a, b) in enumerate(zip(tr, sr)):
                self.compare(f"{what}[{i}]", a, b, t, s)
            return
        assert isinstance(sr, st.Tensor), f"{what}: strided gave {type(sr)}"
        msg = f"{what}: input {tuple(t.shape)}/{t.stride()}+{t.storage_offset()}"
        assert tuple(tr.shape) == sr.shape, f"{msg}: shape {tuple(tr.shape)} vs {sr.shape}"
        assert tr.stride() == sr.stride(), f"{msg}: strides {tr.stride()} vs {sr.stride()} (shape {sr.shape})"
        assert tr.storage_offset() == sr.storage_offset(), (
            f"{msg}: offset {tr.storage_offset()} vs {sr.storage_offset()}"
        )
        assert tr.tolist() == sr.tolist(), f"{msg}: values differ"
        assert tr.is_contiguous() == sr.is_contiguous(), f"{msg}: is_contiguous differs"
        if tr.numel():
            assert sr.data_ptr() - sr.untyped_storage().data_ptr() == sr.storage_offset() * sr.element_size()
        else:  # torch gives 0 for an empty tensor
            assert sr.data_ptr() == tr.data_ptr() == 0, f"{msg}: data_ptr of an empty tensor"
        if tr.dim() == 4:
            assert tr.is_contiguous(memory_format=torch.channels_last) == sr.is_contiguous(
                memory_format=st.channels_last), f"{msg}: channels_last contiguity differs"
        assert (tr is t) == (sr is s), f"{msg}: returns-self differs (torch {tr is t})"
        t_shares = tr.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
        s_shares = sr.untyped_storage() is s.untyped_storage()
        if t.untyped_storage().nbytes() and tr.untyped_storage().nbytes():  # empty storages all sit at 0
            assert t_shares == s_shares, f"{msg}: shares storage: torch {t_shares}, strided {s_shares}"
        assert sr._is_view() == tr._is_view(), f"{msg}: _is_view() differs (torch {tr._is_view()})"
        if tr._base is None:
            assert sr.base is None, f"{msg}: torch result owns its memory, strided is a view"
            assert not sr.is_view()
        else:
            assert sr.base is self.strided_of(tr._base), f"{msg}: base is not the matching root"
            assert sr.is_view()
        if tr is not t:
            self.add(tr, sr)


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


@hs.composite
def new_shapes(draw: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    """Target shapes for view/reshape: regroupings of ``shape`` (often views), factorizations
    of its numel, or random sizes (mostly invalid); sometimes with one or two -1."""
    numel = product(shape)
    kind = draw(hs.sampled_from(["regroup", "regroup", "factor", "random"]))
    if kind == "regroup":
        dims = [s for s in shape if s != 1 or draw(hs.booleans())]
        merged = []
        i = 0
        while i < len(dims):
            j = draw(hs.integers(i + 1, len(dims)))
            merged.append(product(dims[i:j]))
            i = j
        out: list[int] = []
        for s in merged:
            if s > 1 and draw(hs.integers(0, 2)) == 0:
                d = draw(hs.sampled_from(_divisors(s)))
                out += [d, s // d]
            else:
                out.append(s)
            if draw(hs.integers(0, 5)) == 0:
                out.append(1)
    elif kind == "factor":
        k = draw(hs.integers(0, 4))
        out = []
        rest = numel
        for _ in range(max(k - 1, 0)):
            d = draw(hs.sampled_from(_divisors(rest))) if rest else draw(hs.integers(0, 3))
            out.append(d)
            rest = rest // d if d else rest
        if k or rest != 1:
            out.append(rest)
    else:
        out = draw(hs.lists(hs.integers(-2, 6), max_size=4))
    if out and draw(hs.integers(0, 3)) == 0:
        out[draw(hs.integers(0, len(out) - 1))] = -1
    if out and draw(hs.integers(0, 15)) == 0:
        out[draw(hs.integers(0, len(out) - 1))] = -1
    return tuple(out)


def dims_for(ndim: int, extra: int = 1) -> hs.SearchStrategy[int]:
    """A dim index: mostly valid for ``ndim`` dims (either sign), sometimes out of range."""
    span = max(ndim, 1)
    return hs.one_of(hs.integers(-span, span - 1), hs.integers(-span - extra, span - 1 + extra))


@hs.composite
def basic_keys(
    draw: Any, shape: tuple[int, ...], negative: bool = False, max_items: int = 5, many_ellipses: bool = False
) -> Any:
    """A basic index: ints, slices (steps), None and Ellipsis; in and out of range.

    # Note: PyTorch 2.13 accepts several Ellipses in one index, each standing for
    # all the unindexed dims (``t[..., 0, ...]`` selects the *last* dim; ``t[..., ..., 0]``
    # raises about a nonexistent dim). strided follows NumPy and refuses a second
    # Ellipsis with IndexError, so keys for the torch oracle hold at most one.
    """
    n = draw(hs.integers(0, max_items))
    items: list[Any] = []
    have_ellipsis = False
    bound = max(shape, default=1) + 2
    for _ in range(n):
        kind = draw(hs.sampled_from(["int", "slice", "slice", "slice", "none", "ellipsis"]))
        if kind == "int":
            i = draw(hs.integers(-bound, bound))
            # NumPy integer scalars index like ints (they have a .shape, which once tripped strided)
            items.append(draw(hs.sampled_from([i, i, i, np.int64(i), np.int32(i)])))
        elif kind == "slice":
            bound_or_none = hs.one_of(hs.none(), hs.integers(-bound, bound))
            steps = hs.integers(-3, 4).filter(bool) if negative else hs.integers(1, 4)
            items.append(slice(draw(bound_or_none), draw(bound_or_none), draw(hs.one_of(hs.none(), steps))))
        elif kind == "none":
            items.append(None)
        elif not have_ellipsis or (many_ellipses and draw(hs.integers(0, 10)) == 0):
            have_ellipsis = True
            items.append(Ellipsis)
    if len(items) == 1 and draw(hs.booleans()):
        return items[0]
    return tuple(items)
