"""Differential tests of every view op against PyTorch (and NumPy for negative steps).

For hypothesis-drawn hard layouts (permuted, stepped, expanded, size-1 dims with
odd strides, zero-size, 0-d) each op is applied with drawn arguments, valid and
invalid, in torch and in strided. :class:`view_oracle.Chain` compares shape,
strides, storage offset, values, returns-self, storage sharing, ``base`` (the
root of the view chain, as torch's ``_base``) and, when torch raises, the
builtin class of the error (and that the failed op changed nothing).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import build_numpy, build_strided, build_torch, np_offset, specs
from strided.indexing import one_ellipsis
from view_oracle import Chain, basic_keys, dims_for, new_shapes

SETTINGS = settings(max_examples=60, deadline=None)


def _lib(t: Any) -> Any:
    return torch if isinstance(t, torch.Tensor) else st


def _empty_like_shape(t: Any, shape: tuple[int, ...]) -> Any:
    return _lib(t).zeros(shape)


def _sizes(ndim_max: int = 4, lo: int = -2, hi: int = 5) -> hs.SearchStrategy[tuple[int, ...]]:
    return hs.lists(hs.integers(lo, hi), max_size=ndim_max).map(tuple)


@hs.composite
def expand_sizes(draw: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    """Sizes for expand: the shape with size-1 dims stretched, -1 kept, new leading dims; or junk."""
    # Note: sizes below -1 are left out: torch 2.13 accepts expand(-2) on a size-1 dim of an empty
    # tensor (giving a negative size) and otherwise fails with "numel: integer multiplication
    # overflow"; strided refuses them cleanly (test_view_errors.py).
    if draw(hs.integers(0, 4)) == 0:
        return draw(_sizes(lo=-1))
    out = []
    for s in shape:
        choice = draw(hs.integers(0, 5))
        if choice == 0:
            out.append(-1)
        elif choice == 1 and s == 1:
            out.append(draw(hs.integers(0, 4)))
        elif choice == 2:
            out.append(draw(hs.integers(-1, 4)))  # often a mismatch
        else:
            out.append(s)
    lead = draw(hs.lists(hs.integers(0, 3), max_size=2))
    if lead and draw(hs.integers(0, 6)) == 0:
        lead[0] = -1
    if out and draw(hs.integers(0, 8)) == 0:
        out.pop(0)  # fewer sizes than dims
    return tuple(lead + out)


@hs.composite
def permutation_arg(draw: Any, ndim: int) -> tuple[int, ...]:
    perm = list(draw(hs.permutations(range(ndim))))
    perm = [p - ndim if draw(hs.booleans()) else p for p in perm]
    kind = draw(hs.integers(0, 6))
    if kind == 0 and perm:
        perm[draw(hs.integers(0, ndim - 1))] = perm[0]  # duplicate (or identity)
    elif kind == 1:
        perm.append(ndim)  # too many
    elif kind == 2 and perm:
        perm.pop()  # too few
    elif kind == 3 and perm:
        perm[0] = ndim + 1  # out of range
    return tuple(perm)


@hs.composite
def split_sizes(draw: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    size = shape[0] if shape else 3
    parts = []
    rest = size
    while rest > 0 and len(parts) < 4:
        p = draw(hs.integers(0, rest))
        parts.append(p)
        rest -= p
    parts.append(rest)
    if draw(hs.integers(0, 4)) == 0:
        parts[draw(hs.integers(0, len(parts) - 1))] += draw(hs.sampled_from([-1, 1]))
    return tuple(parts)


# Each op: name -> (strategy of arguments given the input shape, function(tensor, args)).
# The same function runs on a torch tensor and on a strided tensor.
OPS: dict[str, tuple[Any, Any]] = {
    "view": (lambda sh: new_shapes(sh), lambda t, a: t.view(*a) if a else t.view(())),
    "view_tuple": (lambda sh: new_shapes(sh), lambda t, a: t.view(a)),
    "view_as": (lambda sh: new_shapes(sh).filter(lambda a: -1 not in a and min(a, default=0) >= 0),
                lambda t, a: t.view_as(_empty_like_shape(t, a))),
    "reshape": (lambda sh: new_shapes(sh), lambda t, a: t.reshape(a)),
    "reshape_as": (lambda sh: new_shapes(sh).filter(lambda a: -1 not in a and min(a, default=0) >= 0),
                   lambda t, a: t.reshape_as(_empty_like_shape(t, a))),
    "flatten": (lambda sh: hs.tuples(dims_for(len(sh)), dims_for(len(sh))), lambda t, a: t.flatten(*a)),
    "flatten_default": (lambda sh: hs.just(()), lambda t, a: t.flatten()),
    "unflatten": (lambda sh: dims_for(len(sh)).flatmap(
                      lambda d: hs.tuples(hs.just(d), new_shapes((sh[d],) if -len(sh) <= d < len(sh) else (2,)))),
                  lambda t, a: t.unflatten(a[0], a[1])),
    "permute": (lambda sh: permutation_arg(len(sh)), lambda t, a: t.permute(*a)),
    "permute_tuple": (lambda sh: permutation_arg(len(sh)), lambda t, a: t.permute(a)),
    "transpose": (lambda sh: hs.tuples(dims_for(len(sh)), dims_for(len(sh))), lambda t, a: t.transpose(*a)),
    "swapaxes": (lambda sh: hs.tuples(dims_for(len(sh)), dims_for(len(sh))), lambda t, a: t.swapaxes(*a)),
    "swapdims": (lambda sh: hs.tuples(dims_for(len(sh)), dims_for(len(sh))), lambda t, a: t.swapdims(*a)),
    "t": (lambda sh: hs.just(()), lambda t, a: t.t()),
    "T": (lambda sh: hs.just(()), lambda t, a: t.T),
    "mT": (lambda sh: hs.just(()), lambda t, a: t.mT),
    "movedim_int": (lambda sh: hs.tuples(dims_for(len(sh)), dims_for(len(sh))), lambda t, a: t.movedim(*a)),
    "movedim_tuple": (
        lambda sh: hs.integers(0, 3).flatmap(
            lambda k: hs.tuples(hs.lists(dims_for(len(sh)), min_size=k, max_size=k),
                                hs.lists(dims_for(len(sh)), min_size=k, max_size=k + (k == 2)))),
        lambda t, a: t.movedim(tuple(a[0]), tuple(a[1]))),
    "moveaxis": (lambda sh: hs.tuples(dims_for(len(sh)), dims_for(len(sh))), lambda t, a: t.moveaxis(*a)),
    "expand": (lambda sh: expand_sizes(sh), lambda t, a: t.expand(*a) if a else t.expand(())),
    "expand_tuple": (lambda sh: expand_sizes(sh), lambda t, a: t.expand(a)),
    "expand_as": (lambda sh: expand_sizes(sh).filter(lambda a: min(a, default=0) >= 0),
                  lambda t, a: t.expand_as(_empty_like_shape(t, a))),
    "broadcast_to": (lambda sh: expand_sizes(sh), lambda t, a: t.broadcast_to(a)),
    "unsqueeze": (lambda sh: dims_for(len(sh) + 1), lambda t, a: t.unsqueeze(a)),
    "squeeze_none": (lambda sh: hs.just(()), lambda t, a: t.squeeze()),
    "squeeze_int": (lambda sh: dims_for(len(sh)), lambda t, a: t.squeeze(a)),
    "squeeze_tuple": (lambda sh: hs.lists(dims_for(len(sh)), max_size=3).map(tuple), lambda t, a: t.squeeze(a)),
    "narrow": (lambda sh: hs.tuples(dims_for(len(sh)), hs.integers(-6, 6), hs.integers(-1, 6)),
               lambda t, a: t.narrow(*a)),
    "select": (lambda sh: hs.tuples(dims_for(len(sh)), hs.integers(-6, 6)), lambda t, a: t.select(*a)),
    "split_int": (lambda sh: hs.tuples(hs.integers(-1, 6), dims_for(len(sh))), lambda t, a: t.split(*a)),
    "split_list": (lambda sh: split_sizes(sh), lambda t, a: t.split(list(a))),
    "split_list_dim": (lambda sh: hs.tuples(split_sizes(sh[-1:]), hs.just(-1)),
                       lambda t, a: t.split(list(a[0]), a[1])),
    "chunk": (lambda sh: hs.tuples(hs.integers(-1, 7), dims_for(len(sh))), lambda t, a: t.chunk(*a)),
    "unbind": (lambda sh: dims_for(len(sh)), lambda t, a: t.unbind(a)),
    "diagonal": (lambda sh: hs.tuples(hs.integers(-6, 6), dims_for(len(sh)), dims_for(len(sh))),
                 lambda t, a: t.diagonal(*a)),
    "diagonal_default": (lambda sh: hs.just(()), lambda t, a: t.diagonal()),
    "unfold": (lambda sh: hs.tuples(dims_for(len(sh)), hs.integers(-1, 6), hs.integers(-1, 4)),
               lambda t, a: t.unfold(*a)),
    "as_strided": (
        lambda sh: hs.integers(0, 3).flatmap(
            lambda k: hs.tuples(hs.lists(hs.integers(0, 4), min_size=k, max_size=k),
                                hs.lists(hs.integers(-1, 6), min_size=k, max_size=k),
                                hs.one_of(hs.none(), hs.integers(0, 40)))),
        lambda t, a: t.as_strided(a[0], a[1]) if a[2] is None else t.as_strided(a[0], a[1], a[2])),
    "getitem": (lambda sh: basic_keys(sh), lambda t, a: t[a]),
}


@cache
def _args_of(op: str, shape: tuple[int, ...]) -> hs.SearchStrategy[Any]:
    """``op``'s argument strategy for an input of ``shape``, built once per (op, shape) (cached): a strategy
    is an immutable value, the same draws either way, and building and validating a fresh one for
    every example was a large share of this test's time."""
    return OPS[op][0](shape)


@pytest.mark.parametrize("op", sorted(OPS))
@SETTINGS
@given(spec=specs(), data=hs.data())
def test_view_op_matches_torch(op: str, spec: Any, data: Any) -> None:
    fn = OPS[op][1]
    t = build_torch(spec)
    s = build_strided(spec)
    args = data.draw(_args_of(op, tuple(spec.shape)), label="args")
    if op.startswith(("expand", "broadcast")) and not spec.shape and -1 in args:
        return  # torch 2.13 bug: a 0-d tensor's expand(-1, 0) gives size (-1, 0); see test_view_errors
    chain = Chain(t, s)
    out = chain.apply(f"{op}{args!r}", lambda x: fn(x, args), lambda x: fn(x, args), t, s)
    if out is not None and op in ("view", "view_tuple", "view_as", "unflatten"):
        # a successful view never copies
        assert out[1].untyped_storage() is s.untyped_storage()


@SETTINGS
@given(spec=specs(), data=hs.data())
def test_reshape_is_view_exactly_when_view_succeeds(spec: Any, data: Any) -> None:
    """reshape copies (base None, new storage) exactly when view refuses, with contiguous strides."""
    t = build_torch(spec)
    s = build_strided(spec)
    shape = data.draw(new_shapes(spec.shape).filter(lambda a: -1 not in a and min(a, default=0) >= 0))
    if np.prod(shape, dtype=np.int64) != np.prod(spec.shape, dtype=np.int64):
        return
    try:
        v = s.view(shape)
    except st.ViewError:
        v = None
    r = s.reshape(shape)
    tr = t.reshape(shape)
    assert (v is None) == (tr._base is None)
    assert (r.base is None) == (v is None)
    if v is None:
        assert r.untyped_storage() is not s.untyped_storage()
        assert r.is_contiguous()
        assert r.untyped_storage().nbytes() == r.numel() * r.element_size()
    else:
        assert r.stride() == v.stride() == tr.stride()


@SETTINGS
@given(spec=specs(), data=hs.data())
def test_getitem_positive_steps_match_numpy_too(spec: Any, data: Any) -> None:
    """Basic indexing with positive steps: torch and NumPy agree, and strided with both."""
    key = data.draw(basic_keys(spec.shape))
    t = build_torch(spec)
    s = build_strided(spec)
    chain = Chain(t, s)
    chain.apply(f"[{key!r}]", lambda x: x[key], lambda x: x[key], t, s)


def _strides_ignoring_ones(a: Any) -> tuple[int | None, ...]:
    """Element strides with size-1 dims blanked (where PyTorch and NumPy rules differ)."""
    strides = a.stride() if isinstance(a, st.Tensor) else tuple(x // a.itemsize for x in a.strides)
    return tuple(None if n == 1 else x for n, x in zip(a.shape, strides))


def _numpy_oracle(spec: Any, key: Any) -> None:
    a = build_numpy(spec)
    if a.ndim == 0:
        a = a.reshape(1)[0:1].reshape(())  # keep a 0-d *array* (a[()] of a 0-d array gives a scalar)
    base_ptr = a.base.__array_interface__["data"][0] if a.base is not None else a.__array_interface__["data"][0]
    s = build_strided(spec)
    np_key = key
    if type(key) is tuple and sum(it is Ellipsis for it in key) > 1:
        # (several '...': strided reads them as PyTorch 2.13 does, NumPy refuses; NumPy is the
        # oracle of that reading, tests/test_two_ellipses.py compares it with torch)
        np_key = one_ellipsis(key, a.ndim)
    try:
        r = a[np_key]
        err = None
    except Exception as exc:  # noqa: BLE001
        r, err = None, exc
    if err is not None:
        with pytest.raises(type(err)):
            s[key]
        return
    sr = s[key]
    if not isinstance(r, np.ndarray):
        r = np.asarray(r)  # NumPy gives a scalar for a full integer index; strided a 0-d view
        assert sr.shape == () and sr.item() == r.item()
        return
    assert sr.shape == r.shape
    assert sr.tolist() == r.tolist()
    assert sr.untyped_storage() is s.untyped_storage()
    assert sr.base is s.base
    if r.size:
        # Note: NumPy's strides and pointer for empty results are not part of its contract,
        # and for size-1 dims (e.g. from None) strided uses PyTorch's stride, NumPy 0.
        assert _strides_ignoring_ones(sr) == _strides_ignoring_ones(r)
        assert sr.storage_offset() == np_offset(r, base_ptr)
        assert sr.data_ptr() - s.untyped_storage().data_ptr() == sr.storage_offset() * 8


@SETTINGS
@given(spec=specs(negative=True), data=hs.data())
def test_getitem_negative_steps_match_numpy(spec: Any, data: Any) -> None:
    """Negative steps: PyTorch refuses them, strided follows NumPy (values, strides, offset)."""
    key = data.draw(basic_keys(spec.shape, negative=True, many_ellipses=True))
    _numpy_oracle(spec, key)


@pytest.mark.parametrize(
    "key",
    [slice(None, None, -1), (Ellipsis, slice(None, None, -2)), (slice(3, 0, -1), None, 1),
     (slice(None, None, -1), slice(None, None, -1)), (slice(10, None, -3),), (slice(-10, 2, -1),)],
)
def test_negative_step_examples(key: Any) -> None:
    memory = np.arange(60)
    base = memory.reshape(3, 4, 5)[:, 1:, ::2]
    s = st.from_numpy(memory).view(3, 4, 5)[:, 1:, ::2]
    r = base[key]
    sr = s[key]
    assert sr.shape == r.shape and sr.tolist() == r.tolist()
    if r.size:
        assert _strides_ignoring_ones(sr) == _strides_ignoring_ones(r)
        assert sr.data_ptr() == r.__array_interface__["data"][0]


def test_torch_refuses_negative_step_but_strided_allows() -> None:
    # Note: a deliberate difference from PyTorch ("step must be greater than zero").
    with pytest.raises(ValueError):
        torch.arange(5)[::-1]
    s = st.arange(5)
    r = s[::-1]
    assert r.tolist() == [4, 3, 2, 1, 0]
    assert r.stride() == (-1,) and r.storage_offset() == 4 and r.base is s


@SETTINGS
@given(spec=specs(negative=True), data=hs.data())
def test_views_of_negative_stride_layouts_match_numpy(spec: Any, data: Any) -> None:
    """transpose / expand / reshape on negative-stride layouts: values and view-vs-copy as NumPy."""
    a = build_numpy(spec)
    s = build_strided(spec)
    op = data.draw(hs.sampled_from(["T", "reshape", "broadcast", "squeeze", "diag"]))
    if op == "T":
        r, sr = a.T, s.T
    elif op == "squeeze":
        r, sr = a.squeeze(), s.squeeze()
    elif op == "diag":
        if a.ndim < 2:
            return
        r, sr = np.diagonal(a, 0, 0, 1), s.diagonal(0, 0, 1)
    elif op == "broadcast":
        shape = (2,) + tuple(2 if n == 1 else n for n in a.shape)
        r, sr = np.broadcast_to(a, shape), s.broadcast_to(shape)
    else:
        sr = s.reshape(-1)
        r = a.reshape(-1)
        assert sr.tolist() == r.tolist()
        if a.size:
            copied = not np.shares_memory(r, a)
            assert (sr.base is None) == copied
            assert (sr.untyped_storage() is s.untyped_storage()) == (not copied)
        return
    assert sr.shape == r.shape and sr.tolist() == r.tolist()
    assert sr.untyped_storage() is s.untyped_storage()
    if r.size:
        assert _strides_ignoring_ones(sr) == _strides_ignoring_ones(r)


# ---------------------------------------------------------------- corner cases
# The situations PyTorch's own view tests and computeStride care about, written as our own
# differential cases: each runs in torch and strided through the same Chain comparison.


def _arange_pair(n: int, dtype: str = "int64") -> tuple[torch.Tensor, st.Tensor]:
    return torch.arange(n, dtype=getattr(torch, dtype)), st.arange(n, dtype=dtype)


def _run(t: Any, s: Any, *steps: Any) -> tuple[Any, Any] | None:
    """Apply ``steps`` (functions of a tensor) one after another, comparing after each."""
    chain = Chain(t, s)
    out: tuple[Any, Any] | None = (t, s)
    for i, fn in enumerate(steps):
        assert out is not None, f"step {i - 1} failed, cannot continue"
        out = chain.apply(f"step {i}", fn, fn, *out)
    return out


@pytest.mark.parametrize(
    "size",
    [
        (8, 1, 3, 3, 3, 4, 1, 3, 5), (2, 4, 3, 1, 9, 2, 2, 3, 5, 1), (1, 1, 8, 1, 3, 1, 9, 1, 12, 1, 5, 1),
        (-1,), (24, 9, 6, 2, 1, 5), (8, 3, 9, 6, 10), (8, 3, 54, 2, 1, 5), (8, 27, 12, 5), (8, 3, 9, 12, 5),
    ],
)
def test_view_touching_only_mergeable_chunks(size: tuple[int, ...]) -> None:
    # a transposed 8-d tensor whose dims fall into runs that merge: views that stay inside the
    # runs succeed (with computeStride's strides), views that cross a run boundary fail
    t, s = _arange_pair(4 * 2 * 5 * 1 * 6 * 2 * 9 * 3)
    _run(t, s, lambda x: x.view(4, 2, 5, 1, 6, 2, 9, 3), lambda x: x.transpose(-1, 2),
         lambda x: x.transpose(-2, 3), lambda x: x.view(size))


@pytest.mark.parametrize("size", [(-1,), (1, -1, 1), (-1, 1), (6, 2, 1), (1, 6, 2, 1), (2, 6), (12, 1, 1)])
def test_view_of_fully_expanded_tensor(size: tuple[int, ...]) -> None:
    # every dim has stride 0, so every regrouping is one "evenly strided" run
    t, s = _arange_pair(1)
    out = _run(t, s, lambda x: x.view(1, 1), lambda x: x.expand(3, 4), lambda x: x.view(size))
    assert out is not None and set(out[1].stride()) <= {0}


@pytest.mark.parametrize(
    "size", [(0,), (0, 3, 0, 1), (-1,), (10, 3, -1), (1, 0, 6, 1, 1), (-1, 0), (3, 0, -1, 0), (0, -1), (1,)]
)
def test_view_and_reshape_of_empty(size: tuple[int, ...]) -> None:
    for op in ("view", "reshape"):
        t, s = _arange_pair(0)
        _run(t, s, lambda x: x.view(0, 6), lambda x, op=op: getattr(x, op)(size))
        # a zero-size layout with odd strides: same shape keeps the strides, others get fresh ones
        t, s = _arange_pair(4)
        _run(t, s, lambda x: x.as_strided((0, 6), (7, 2), 1), lambda x, op=op: getattr(x, op)(size))


def test_view_of_zero_size_same_shape_keeps_strides() -> None:
    s = st.arange(4).as_strided((0, 3), (7, 2), 1)
    v = s.view(0, 3)
    assert v.stride() == (7, 2) and v.storage_offset() == 1
    assert s.view(3, 0).stride() == (1, 1)


@pytest.mark.parametrize(
    "steps",
    [
        [lambda x: x.reshape(())], [lambda x: x.reshape(-1)], [lambda x: x.reshape(1, 1, 1)],
        [lambda x: x.reshape(2)], [lambda x: x.flatten()], [lambda x: x.ravel()], [lambda x: x.view(-1, 1)],
        [lambda x: x.unsqueeze(0)], [lambda x: x.unsqueeze(-1)], [lambda x: x.squeeze()], [lambda x: x.squeeze(0)],
        [lambda x: x.t()], [lambda x: x.T], [lambda x: x.transpose(0, -1)], [lambda x: x.permute(())],
        [lambda x: x.expand(2, 3)], [lambda x: x.expand(())], [lambda x: x.expand(0)], [lambda x: x[None]],
        [lambda x: x[...]], [lambda x: x[..., None, None]], [lambda x: x.unfold(0, 1, 1)],
        [lambda x: x.unfold(0, 0, 1)], [lambda x: x.flatten(0, 0)], [lambda x: x.flatten(-1, 0)],
        [lambda x: x.as_strided((2, 2), (0, 0))], [lambda x: x.as_strided((), (), 3)],
    ],
)
def test_views_of_0d(steps: list[Any]) -> None:
    t, s = _arange_pair(5)
    _run(t, s, lambda x: x[3], *steps)


@pytest.mark.parametrize(
    "steps",
    [
        [lambda x: x.flatten(0, 1)], [lambda x: x.flatten(0, 1), lambda x: x.flatten(1, 3)],
        [lambda x: x.flatten(0, 1), lambda x: x.flatten(1, 3), lambda x: x.flatten(2, 2)],
        [lambda x: x.flatten(1, 3)], [lambda x: x.flatten(2, 5)], [lambda x: x.flatten()],
        [lambda x: x.flatten(4, 5)], [lambda x: x.flatten(-2, -1)], [lambda x: x.flatten(3, 3)],
    ],
)
def test_flatten_merges_each_run_separately(steps: list[Any]) -> None:
    # three runs of mergeable dims (and a stride-0 dim at the end): flattening within a run is a
    # view; across runs it copies
    t, s = _arange_pair(720)
    _run(t, s, lambda x: x.as_strided((2, 3, 2, 3, 5, 4), (6, 2, 15, 5, 1, 0)), *steps)


def test_flatten_returns_self_only_when_nothing_merges() -> None:
    s = st.zeros(2, 3, 4)
    assert s.flatten(1, 1) is s and s.flatten(-1, 2) is s and s.flatten(-3, 0) is s
    one = st.zeros(5)
    assert one.flatten() is one
    zero_d = st.tensor(7)
    flat = zero_d.flatten()
    assert flat is not zero_d and flat.shape == (1,) and flat.base is zero_d
    transposed = st.zeros(2, 2).T
    assert transposed.flatten().base is None  # a copy
    assert transposed.flatten(1, 1) is transposed


@pytest.mark.parametrize(
    ("size", "stride", "offset"),
    [
        ((1, 2, 1, 5), (0, 5, 100, 1), 2),  # wild strides on size-1 dims
        ((3, 3, 3), (0, 1, 0), 2),  # expanded dims
        ((3, 3, 3), (0, 0, 0), 4),
        ((6, 6), (5, 1), 2),  # overlapping windows
        ((3, 2), (3, 6), 2),
        ((4, 3), (1, 4), None),  # a transpose
        ((0, 5), (100, 100), 11),  # empty: no bounds to check
        ((2, 0), (1000, 1), 0),
    ],
)
def test_as_strided_cases(size: tuple[int, ...], stride: tuple[int, ...], offset: int | None) -> None:
    t, s = _arange_pair(12)
    fn = (lambda x: x.as_strided(size, stride)) if offset is None else (lambda x: x.as_strided(size, stride, offset))
    _run(t, s, fn)


def test_as_strided_reaches_outside_the_view_it_was_called_on() -> None:
    # as_strided addresses the storage, not the view: offset 0 from a view that starts at 6
    t, s = _arange_pair(12)
    out = _run(t, s, lambda x: x.view(6, 2), lambda x: x[3:], lambda x: x.as_strided((3, 2), (2, 1), 0))
    assert out is not None and out[1].tolist() == [[0, 1], [2, 3], [4, 5]]
    # and on an expanded input, storage bounds (not the view's) decide
    t, s = _arange_pair(6)
    _run(t, s, lambda x: x.view(2, 3), lambda x: x.expand(10, 2, 3), lambda x: x.as_strided((2, 3), (3, 1), 0))
    t, s = _arange_pair(6)
    _run(t, s, lambda x: x[:2], lambda x: x.as_strided((3,), (2,), 1))


@pytest.mark.parametrize(
    "steps",
    [
        [lambda x: x.expand(4, 8, 5)], [lambda x: x.expand(4, -1, 5)], [lambda x: x.expand((4, 8, 5))],
        [lambda x: x.expand(2, 4, -1, -1, 5)], [lambda x: x.expand(1, 1, 8, 1)],
        [lambda x: x[0, :, 0], lambda x: x.expand(1, 1, 8)],  # compare with unsqueeze's strides
        [lambda x: x[0, :, 0], lambda x: x.unsqueeze(0).unsqueeze(1)],
        [lambda x: x[:, :0], lambda x: x.expand(3, 0, 2)], [lambda x: x[:, :0], lambda x: x.expand(0, 0, 0)],
        [lambda x: x.expand(1, 8, 2), lambda x: x.expand(3, 1, 8, 2)],  # double expand
        [lambda x: x.expand(2, 8, 1), lambda x: x.expand(3, 2, 8, 4)],
        [lambda x: x.expand(-1, -1)],
    ],
)
def test_expand_cases(steps: list[Any]) -> None:
    t, s = _arange_pair(8)
    _run(t, s, lambda x: x.view(1, 8, 1), *steps)


def test_expand_of_non_contiguous_and_of_0d() -> None:
    t, s = _arange_pair(30)
    _run(t, s, lambda x: x.view(5, 2, 1, 3), lambda x: x[:, 0], lambda x: x.expand(2, 5, 4, 3))
    t, s = _arange_pair(3)
    out = _run(t, s, lambda x: x[1], lambda x: x.expand(2, 3))
    assert out is not None and out[1].stride() == (0, 0) and out[1].tolist() == [[1] * 3] * 2


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.select(0, 2), lambda x: x.diagonal(), lambda x: x.diagonal(1), lambda x: x.t(), lambda x: x.T,
        lambda x: x.mT, lambda x: x.permute(1, 0), lambda x: x.transpose(0, 1), lambda x: x.swapdims(1, 0),
        lambda x: x.narrow(1, 2, 2), lambda x: x.view(25), lambda x: x.reshape(25), lambda x: x.flatten(),
        lambda x: x.unsqueeze(1), lambda x: x.movedim(0, 1), lambda x: x.moveaxis((0, 1), (1, 0)),
        lambda x: x.as_strided((25,), (1,)), lambda x: x.unfold(1, 3, 2), lambda x: x[:2, 1:], lambda x: x[None, :2, 3],
        lambda x: x[..., ::2], lambda x: x.unbind(1)[3], lambda x: x.split(2)[1], lambda x: x.chunk(3, 1)[2],
        lambda x: x.view_as(x), lambda x: x.reshape_as(x.T),
    ],
)
def test_writes_through_a_view_reach_the_base(fn: Any) -> None:
    t, s = torch.zeros(5, 5), st.zeros(5, 5)
    tv, sv = fn(t), fn(s)
    assert sv.base is s and tv._base is t
    index = (0,) * sv.ndim
    sv[index] = 7.0
    tv[index] = 7.0
    assert s.tolist() == t.tolist()
    assert sum(map(sum, s.tolist())) == 7.0  # exactly one element of the base changed
    s.fill_(0.5)  # and writes to the base show in the view
    assert sv.tolist() == (t.fill_(0.5), tv)[1].tolist()


def test_copies_do_not_write_back() -> None:
    s = st.ones(5, 5)
    for nv in (s.t().contiguous(), s.t().reshape(25), s.T.flatten(), s.t().ravel()):
        # (ravel is contiguous().view(-1): its base is the fresh copy, as in torch)
        assert nv.base is not s and nv.untyped_storage() is not s.untyped_storage()
        nv[(0,) * nv.ndim] = 0.0
        assert s.tolist() == [[1.0] * 5] * 5
    assert s.contiguous() is s


def test_reshape_view_semantics() -> None:
    s = st.zeros(15, 4)
    v = s.reshape(20, 3)
    assert v.base is s and v.untyped_storage() is s.untyped_storage() and v.data_ptr() == s.data_ptr()
    c = s.transpose(0, 1).reshape(20, 3)
    assert c.base is None and c.untyped_storage() is not s.untyped_storage()
    y = st.zeros(4, 4, 4)[:, 0, :]
    assert y.reshape(-1).data_ptr() != y.data_ptr()
    assert y.reshape(2, 2, 4).data_ptr() == y.data_ptr()
    z = st.tensor(3.0)
    assert z.reshape(()).data_ptr() == z.data_ptr() and z.reshape(-1).shape == (1,)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.split(3, 0), lambda x: x.split([2, 2, 3], 0), lambda x: x.split([1, 0, 3], 1),
        lambda x: x.split(5, 1), lambda x: x.split(0, 0), lambda x: x.chunk(3, 1), lambda x: x.chunk(10, 0),
        lambda x: x.chunk(4, 0), lambda x: x.chunk(3, -1), lambda x: x.unbind(-1), lambda x: x.unbind(0),
    ],
)
def test_split_chunk_unbind(fn: Any) -> None:
    t, s = _arange_pair(28)
    _run(t, s, lambda x: x.view(7, 4), fn)
    t, s = _arange_pair(0)
    _run(t, s, lambda x: x.view(0, 4), fn)


def test_narrow_with_tensor_start() -> None:
    s = st.arange(9).view(3, 3)
    assert s.narrow(0, st.tensor(1), 1).tolist() == [[3, 4, 5]]
    assert s.narrow(-1, np.int64(-1), 1).tolist() == [[2], [5], [8]]
    with pytest.raises(RuntimeError, match="start must be an 0-dim integral Tensor"):  # PyTorch's class and text
        s.narrow(0, st.tensor(0.0), 1)


def test_unsqueeze_of_non_contiguous() -> None:
    t, s = _arange_pair(24)
    for d in range(-3, 3):
        _run(t, s, lambda x: x.view(2, 3, 4), lambda x: x[:, 1], lambda x, d=d: x.unsqueeze(d))


def test_contiguity_ignores_size1_strides() -> None:
    s = st.zeros(1 * 16 * 5 * 5 + 20).as_strided((1, 16, 5, 5), (20, 25, 5, 1))
    t = torch.zeros(1 * 16 * 5 * 5 + 20).as_strided((1, 16, 5, 5), (20, 25, 5, 1))
    assert s.is_contiguous() == t.is_contiguous() is True
    assert s.contiguous() is s
    assert s.view(-1).stride() == t.view(-1).stride()


@pytest.mark.parametrize("dims", [(0, 0), (-1, 1), (2, -1), (0, 2)])
def test_transpose_swapaxes_swapdims(dims: tuple[int, int]) -> None:
    for name in ("transpose", "swapaxes", "swapdims"):
        t, s = _arange_pair(24)
        _run(t, s, lambda x: x.view(2, 3, 4), lambda x, n=name: getattr(x, n)(*dims))
