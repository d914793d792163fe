"""The plans of the layout layer, tested at the layout level: no torch, thousands of cases in seconds.

A plan (:mod:`strided.layout.plans`) says what an operation will do from shape, strides and
offset alone: ``View(layout)``, ``Copy(strides, nbytes, why, ...)`` or a refusal. These
properties hold it to what the library actually does and to NumPy:

- every plan agrees with the Tensor method / ``strided.<numpy-style function>`` it describes:
  view vs copy, the resulting layout, the bytes copied, the error class and text;
- a refusal's numbers are the layout's numbers (the dim it names has the size it says, ...);
- every View's layout keeps :func:`check_layout` over the input's storage, every Copy writes
  ``numel * itemsize`` bytes into a dense layout at offset 0;
- PyTorch's view rule agrees with NumPy's ``_attempt_nocopy_reshape`` on view-vs-copy
  (NumPy, the oracle, is asked by ``np.reshape(a, shape, copy=False)``), and the NumPy-flavour
  plans agree with NumPy's own ``reshape``/``ravel``/``broadcast_to``/``as*array``.
"""

from __future__ import annotations

import math
import random
import typing

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layout_strategies import specs
from strided import messages
from strided import refusals as R
from strided.layout import (
    MAX_DIMS,
    Copy,
    Layout,
    View,
    check_layout,
    is_channels_last_contiguous,
    is_contiguous,
    is_f_contiguous,
    is_non_overlapping_and_dense,
    layout_origin,
    plans,
)
from strided.layout.core import layout_refusal

FAST = settings(max_examples=150, deadline=None)
ITEMSIZE = 8  # the tensors below are int64 (st.arange)


# ---------------------------------------------------------------- hard layouts, torch-free


def layouts(min_dims: int = 0, max_dims: int = 4, max_size: int = 5, negative: bool = True):
    """(layout, storage size): the hard layouts of ``layout_strategies.specs`` (permuted, stepped,
    expanded, odd-stride size-1 dims, zero-size, 0-d, negative strides), torch-free."""
    return specs(min_dims, max_dims, max_size, negative).map(
        lambda spec: (Layout(spec.shape, spec.strides, spec.offset), spec.storage_size)
    )


def tensor_of(lay: Layout, storage: int) -> st.Tensor:
    """``lay`` over ``arange(storage)`` (int64)."""
    return st.arange(storage)._view(lay)


def numpy_of(lay: Layout, storage: int) -> np.ndarray:
    base = np.arange(storage, dtype=np.int64)
    return np.ndarray(lay.shape, np.int64, buffer=base, offset=lay.offset * 8 if 0 not in lay.shape else 0,
                      strides=tuple(s * 8 for s in lay.strides))


def outcome(fn):
    try:
        return fn(), None
    except st.StridedError as err:
        return None, err


def check_plan(plan, t: st.Tensor, storage: int, run) -> st.Tensor | None:
    """``plan`` agrees with ``run(t)``: the same view, the same copy, or the same error."""
    with st.record_copies() as copies:
        result, err = outcome(lambda: run(t))
    if isinstance(plan, View):
        assert err is None, (plan, err)
        assert result._storage is t._storage and copies == []
        assert result._layout == plan.layout
        check_layout(*_fields(plan.layout), storage, ITEMSIZE)  # a view stays inside the storage
        return result
    if isinstance(plan, Copy):
        assert err is None, (plan, err)
        assert result._storage is not t._storage
        assert result._layout == plan.layout and plan.layout.offset == 0
        assert plan.nbytes == math.prod(t.shape) * ITEMSIZE
        assert [c.nbytes for c in copies] == [plan.nbytes]
        assert plan.read.shape == t.shape or sorted(plan.read.shape) == sorted(t.shape)
        dense = plan.strides
        assert is_contiguous(plan.read.shape, dense) or is_non_overlapping_and_dense(plan.read.shape, dense)
        assert plan.why is not None
        return result
    assert err is not None, (plan, result)
    assert result is None
    expected = plan_error(plan, t)
    assert type(err) is type(expected) and str(err) == str(expected)
    # the error carries the refusal that explains it (flatten/unflatten in tensor.py render the
    # same text but are wired to their plans in a later step, so they carry none yet)
    assert getattr(err, "refusal", plan) == plan
    return None


def plan_error(plan, t: st.Tensor) -> st.StridedError:
    if isinstance(plan, R.ReshapeRefusal):
        return messages.view_refused(plan, layout_origin(t._layout), ITEMSIZE)
    return messages.error(plan)


def _fields(lay: Layout):
    return lay.shape, lay.strides, lay.offset


def check_numbers(plan, lay: Layout) -> None:
    """A refusal's numbers are the layout's numbers."""
    shape = lay.shape
    if isinstance(plan, R.DimOutOfRange):
        assert plan.ndim in (len(shape), len(shape) + 1)  # unsqueeze counts the new dim
        span = max(plan.ndim, 1)
        assert not -span <= plan.dim < span
    elif isinstance(plan, R.IndexOutOfRange):
        assert plan.shape == shape and plan.size == shape[plan.dim]
        assert not -plan.size <= plan.index < plan.size
    elif isinstance(plan, R.ExpandRefusal):
        assert plan.shape == shape and plan.size == shape[plan.tensor_dim] != 1
        assert plan.target == plan.sizes[plan.dim] or plan.sizes[plan.dim] == -1
        assert plan.dim - plan.tensor_dim == len(plan.sizes) - len(shape)
    elif isinstance(plan, R.ReshapeRefusal):
        assert (plan.old_shape, plan.old_strides) == (shape, lay.strides)
        o, i = plan.outer, plan.inner
        assert i == o + 1 and shape[o] != 1 and lay.strides[o] != plan.needed_stride
        assert math.prod(plan.new_shape) == math.prod(shape)
    elif isinstance(plan, R.NarrowRefusal):
        assert plan.shape == shape
    elif isinstance(plan, R.UnfoldRefusal):
        assert plan.shape == shape and plan.max_size == (shape[plan.dim] if shape else 1)


# ---------------------------------------------------------------- PyTorch's flavour: movement


MOVEMENT_OPS = ("permute", "transpose", "squeeze", "unsqueeze", "select", "narrow", "diagonal",
                "unfold", "expand", "movedim", "index")
PER_LAYOUT = 8  # cases drawn from one hypothesis example by a seeded generator: cheap cases


def _dim(rng: random.Random, ndim: int) -> int:
    """A dim, sometimes out of range."""
    span = max(ndim, 1)
    return rng.randint(-span - 1, span)


def movement_args(rng: random.Random, lay: Layout, op: str) -> tuple:
    """Arguments for ``op`` on ``lay``: mostly valid, sometimes out of range or malformed."""
    ndim = len(lay.shape)
    if op == "permute":
        perm = list(range(ndim))
        rng.shuffle(perm)
        if perm and rng.random() < 0.3:
            perm[rng.randrange(ndim)] = _dim(rng, ndim)
        if rng.random() < 0.15:
            perm = perm[:-1] if perm else [0]
        return (tuple(perm),)
    if op == "transpose":
        return (_dim(rng, ndim), _dim(rng, ndim))
    if op == "squeeze":
        return (None if rng.random() < 0.3 else tuple(_dim(rng, ndim) for _ in range(rng.randint(0, 3))),)
    if op == "unsqueeze":
        return (_dim(rng, ndim + 1),)
    if op == "select":
        return (_dim(rng, ndim), rng.randint(-6, 6))
    if op == "narrow":
        return (_dim(rng, ndim), rng.randint(-6, 6), rng.randint(-1, 6))
    if op == "diagonal":
        return (rng.randint(-4, 4), _dim(rng, ndim), _dim(rng, ndim))
    if op == "unfold":
        return (_dim(rng, ndim), rng.randint(-1, 6), rng.randint(-1, 3))
    if op == "expand":
        sizes = [rng.choice([-1, 1, 2, 3, n, n]) for n in lay.shape]
        extra = rng.randint(-1, 2)
        sizes = [rng.choice([1, 2, -1]) for _ in range(max(extra, 0))] + sizes
        if extra < 0 and sizes:
            sizes = sizes[1:]
        return (tuple(sizes),)
    if op == "movedim":
        k = rng.randint(0, min(ndim, 3))
        src = tuple(_dim(rng, ndim) for _ in range(k))
        dst = tuple(_dim(rng, ndim) for _ in range(k + (rng.random() < 0.2)))
        return (src, dst)
    key: list[object] = []
    for n in lay.shape:
        kind = rng.choice(["all", "int", "slice", "none"])
        if kind == "int" and n:
            key.append(rng.randint(-n, n - 1))
        elif kind == "slice":
            key.append(slice(rng.choice([None, rng.randint(-6, 6)]), rng.choice([None, rng.randint(-6, 6)]),
                             rng.choice([None, 1, 2, 3, -1, -2])))
        elif kind == "none":
            key.extend([None, slice(None)])
        else:
            key.append(slice(None))
    return (tuple(key),)


def _run_movement(t: st.Tensor, op: str, args: tuple):
    if op == "index":
        return t[args[0]]
    if op == "permute":
        return t.permute(*args[0]) if args[0] else t.permute(args[0])
    if op == "expand":
        return t.expand(*args[0]) if args[0] else t.expand(args[0])
    if op == "squeeze":
        return t.squeeze() if args[0] is None else t.squeeze(args[0])
    return getattr(t, op)(*args)


@FAST
@given(layouts(), hs.randoms(use_true_random=False))
def test_movement_plans_agree_with_the_tensor_methods(case, rng) -> None:
    lay, storage = case
    t = tensor_of(lay, storage)
    for op in MOVEMENT_OPS:
        args = movement_args(rng, lay, op)
        plan = getattr(plans, op)(lay, *args)
        check_numbers(plan, lay)
        check_plan(plan, t, storage, lambda t, op=op, args=args: _run_movement(t, op, args))
        if isinstance(plan, View) and op == "expand":  # PyTorch's broadcast_to is expand
            assert plans.broadcast_to(lay, args[0]) == plan


# ---------------------------------------------------------------- PyTorch's flavour: reshapes


def reshape_shape(rng: random.Random, lay: Layout) -> tuple[int, ...]:
    """A shape with ``lay``'s elements (regrouped sizes, 1s, maybe one -1); now and then a wrong one."""
    n = math.prod(lay.shape)
    factors = [f for s in lay.shape for f in _factors(s)]
    if rng.random() < 0.5:
        rng.shuffle(factors)
    groups: list[int] = []
    for f in factors:
        if groups and rng.random() < 0.5:
            groups[-1] *= f
        else:
            groups.append(f)
    for _ in range(rng.randint(0, 2)):
        groups.insert(rng.randint(0, len(groups)), 1)
    if groups and rng.random() < 0.25:
        groups[rng.randrange(len(groups))] = -1
    if rng.random() < 0.1:
        groups = rng.choice([groups + [2], [n + 1], [-1, -1], [-2, max(n, 1)], [0, -1]])
    if not groups and n != 1:
        groups = [n]
    return tuple(groups)


def _factors(n: int) -> list[int]:
    out, p = [], 2
    while p * p <= n:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    if n > 1 or not out:
        out.append(n)
    return out


@FAST
@given(layouts(max_size=4), hs.randoms(use_true_random=False))
def test_view_and_reshape_plans_agree_with_the_tensor_methods(case, rng) -> None:
    lay, storage = case
    t = tensor_of(lay, storage)
    for _ in range(PER_LAYOUT):
        check_view_and_reshape(lay, storage, t, reshape_shape(rng, lay))


def check_view_and_reshape(lay: Layout, storage: int, t: st.Tensor, shape: tuple[int, ...]) -> None:
    v = plans.view(lay, shape)
    check_numbers(v, lay)
    check_plan(v, t, storage, lambda t: t.view(shape))
    if isinstance(v, R.ReshapeRefusal):
        with pytest.raises(st.ViewError) as info:
            t.view(shape)
        assert info.value.refusal == v
    r = plans.reshape(lay, shape, itemsize=ITEMSIZE)
    check_plan(r, t, storage, lambda t: t.reshape(shape))
    # reshape copies exactly when view refuses, and says why with the same refusal
    assert isinstance(r, Copy) == isinstance(v, R.ReshapeRefusal)
    if isinstance(r, Copy):
        assert r.why == v
    elif isinstance(r, View):
        assert r == v


@FAST
@given(layouts(), hs.randoms(use_true_random=False))
def test_flatten_and_unflatten_plans_agree_with_the_tensor_methods(case, rng) -> None:
    lay, storage = case
    ndim = len(lay.shape)
    t = tensor_of(lay, storage)
    for _ in range(PER_LAYOUT // 2):
        start, end = _dim(rng, ndim), _dim(rng, ndim)
        plan = plans.flatten(lay, start, end, itemsize=ITEMSIZE)
        check_numbers(plan, lay)
        check_plan(plan, t, storage, lambda t, a=(start, end): t.flatten(*a))
        dim = _dim(rng, ndim)
        sizes = tuple(rng.choice([-1, 1, 2, 3, 0, *lay.shape]) for _ in range(rng.randint(0, 3)))
        plan = plans.unflatten(lay, dim, sizes)
        assert not isinstance(plan, Copy)  # unflatten never copies
        check_plan(plan, t, storage, lambda t, a=(dim, sizes): t.unflatten(*a))


@FAST
@given(layouts(negative=False, min_dims=0, max_dims=4))
def test_contiguous_and_clone_plans_agree_with_the_tensor_methods(case) -> None:
    lay, storage = case
    t = tensor_of(lay, storage)
    for fmt in ("contiguous_format", "channels_last", "preserve_format"):
        check_contiguous_and_clone(lay, storage, t, fmt)


def check_contiguous_and_clone(lay: Layout, storage: int, t: st.Tensor, fmt: str) -> None:
    form = getattr(st, fmt)
    if fmt != "preserve_format":
        plan = plans.contiguous(lay, fmt, itemsize=ITEMSIZE)
        result = check_plan(plan, t, storage, lambda t: t.contiguous(memory_format=form))
        if isinstance(plan, View):
            assert result is t  # contiguous() of a contiguous tensor is the tensor
        elif isinstance(plan, Copy):
            assert isinstance(plan.why, R.NotContiguous)
    plan = plans.clone(lay, fmt, itemsize=ITEMSIZE)
    assert not isinstance(plan, View)
    check_plan(plan, t, storage, lambda t: t.clone(memory_format=form))


@FAST
@given(layouts())
def test_contiguity_break_is_the_contiguity_predicate(case) -> None:
    lay, _ = case
    shape, strides = lay.shape, lay.strides
    assert (plans.contiguity_break(shape, strides) is None) == is_contiguous(shape, strides)
    assert (plans.contiguity_break(shape, strides, "F") is None) == is_f_contiguous(shape, strides)
    assert (plans.contiguity_break(shape, strides, "channels_last") is None) == (
        is_channels_last_contiguous(shape, strides))
    why = plans.contiguity_break(shape, strides)
    if why is not None:
        assert strides[why.dim] == why.stride != why.expected and shape[why.dim] != 1


# ---------------------------------------------------------------- PyTorch's rule against NumPy's


@FAST
@given(layouts(max_size=4), hs.randoms(use_true_random=False))
def test_torch_view_rule_agrees_with_numpys_nocopy_reshape(case, rng) -> None:
    lay, storage = case
    for _ in range(PER_LAYOUT):
        check_torch_rule_against_numpy(lay, storage, reshape_shape(rng, lay))


def check_torch_rule_against_numpy(lay: Layout, storage: int, shape: tuple[int, ...]) -> None:
    plan = plans.view(lay, shape)
    if not isinstance(plan, (View, R.ReshapeRefusal)):
        return  # a bad shape: nothing to compare
    new_shape = plan.layout.shape if isinstance(plan, View) else plan.new_shape
    arr = numpy_of(lay, storage)
    try:
        np.reshape(arr, new_shape, copy=False)
        numpy_views = True
    except ValueError:
        numpy_views = False
    if 0 in lay.shape:
        assert isinstance(plan, View)  # both peers view empty tensors
        return
    assert isinstance(plan, View) == numpy_views, (lay, new_shape)


# ---------------------------------------------------------------- NumPy's flavour against NumPy


def _np_elements(a: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return a.shape, tuple(s // a.itemsize for s in a.strides)


def check_numpy_plan(plan, arr: np.ndarray, run_np, t: st.Tensor, run_st) -> None:
    """``plan`` agrees with NumPy (``run_np(arr)``) on view-vs-copy-vs-error and the view's
    strides, and with strided's own function (``run_st(t)``) on everything."""
    try:
        expected = run_np(arr)
        np_err = None
    except ValueError as err:
        expected, np_err = None, err
    if isinstance(plan, (View, Copy)):
        assert np_err is None, (plan, np_err)
        views = np.shares_memory(expected, arr) if arr.size and expected.size else None
        if views is not None:
            assert isinstance(plan, View) == views, plan
        if isinstance(plan, View) and expected.size:
            # NumPy's strides for size-1 dims differ between its own code paths; compare the others
            shape, strides = _np_elements(expected)
            assert plan.layout.shape == shape
            assert [s for n, s in zip(shape, plan.layout.strides) if n != 1] == [
                s for n, s in zip(shape, strides) if n != 1]
    else:
        assert np_err is not None, plan
    result, err = outcome(lambda: run_st(t))
    if isinstance(plan, (View, Copy)):
        assert err is None and result._layout == plan.layout
        assert (result._storage is t._storage) == isinstance(plan, View)
        if isinstance(plan, View):
            check_layout(*_fields(plan.layout), t._storage.size(), ITEMSIZE)
        if isinstance(plan, Copy):
            assert plan.nbytes == t.numel() * ITEMSIZE
    else:
        expected_err = messages.error(plan)
        assert type(err) is type(expected_err) and str(err) == str(expected_err)


@FAST
@given(layouts(max_size=4), hs.randoms(use_true_random=False))
def test_numpy_reshape_plan_agrees_with_numpy(case, rng) -> None:
    lay, storage = case
    for _ in range(PER_LAYOUT):
        shape = reshape_shape(rng, lay)
        check_numpy_reshape(lay, storage, shape, rng.choice("CFA"), rng.choice([None, None, False, True]))


def check_numpy_reshape(lay: Layout, storage: int, shape: tuple[int, ...], order: str, copy) -> None:
    plan = plans.numpy_reshape(lay, shape, order, copy, itemsize=ITEMSIZE)
    if isinstance(plan, Copy):
        assert plan.layout.offset == 0 and plan.nbytes == math.prod(lay.shape) * ITEMSIZE
    check_numpy_plan(plan, numpy_of(lay, storage), lambda a: np.reshape(a, shape, order=order, copy=copy),
                     tensor_of(lay, storage), lambda t: st.reshape(t, shape, order=order, copy=copy))


@FAST
@given(layouts())
def test_numpy_ravel_plan_agrees_with_numpy(case) -> None:
    lay, storage = case
    arr = numpy_of(lay, storage)
    t = tensor_of(lay, storage)
    for order in "CFAK":
        plan = plans.numpy_ravel(lay, order, itemsize=ITEMSIZE)
        check_numpy_plan(plan, arr, lambda a, o=order: np.ravel(a, order=o), t,
                         lambda t, o=order: st.ravel(t, order=o))
        if isinstance(plan, Copy):  # and the copy holds NumPy's elements, in NumPy's order
            assert st.ravel(t, order=order).tolist() == np.ravel(arr, order=order).tolist()


@FAST
@given(layouts())
def test_as_array_plans_agree_with_numpy(case) -> None:
    lay, storage = case
    t = tensor_of(lay, storage)
    for name in ("ascontiguousarray", "asfortranarray"):
        plan = getattr(plans, name)(lay, itemsize=ITEMSIZE)
        check_numpy_plan(plan, numpy_of(lay, storage), getattr(np, name), t, getattr(st, name))
        if isinstance(plan, View) and lay.shape:
            assert getattr(st, name)(t) is t


@FAST
@given(layouts(max_dims=3), hs.randoms(use_true_random=False))
def test_numpy_broadcast_to_plan_agrees_with_numpy(case, rng) -> None:
    lay, storage = case
    arr, t = numpy_of(lay, storage), tensor_of(lay, storage)
    for _ in range(PER_LAYOUT // 2):
        lead = [rng.choice([1, 2, 3]) for _ in range(rng.randint(0, 2))]
        target = tuple(lead + [rng.choice([n, n, 1, 2, 3]) for n in lay.shape])
        if rng.random() < 0.15:
            target = rng.choice([(), target[1:], target + (-1,)])
        plan = plans.numpy_broadcast_to(lay, target)
        check_numpy_plan(plan, arr, lambda a, s=target: np.broadcast_to(a, s), t,
                         lambda t, s=target: st.broadcast_to(t, s))


# ---------------------------------------------------------------- pinned cases


def test_a_refused_view_is_a_priced_copy_for_reshape() -> None:
    lay = Layout((4, 3), (1, 4))  # the transpose of a contiguous (3, 4)
    refusal = plans.view(lay, (12,))
    assert isinstance(refusal, R.ReshapeRefusal)
    assert refusal.equation() == "stride[0] == size[1] * stride[1] = 3 * 4 = 12, but stride[0] is 1"
    copy = plans.reshape(lay, (12,), itemsize=4)
    assert copy == Copy((3, 1), 48, refusal, Layout((12,), (1,)), lay)
    assert messages.copy_why(copy.why) == (
        "dims 0 and 1 cannot merge: stride[0] == size[1] * stride[1] = 3 * 4 = 12, but stride[0] is 1")


def test_expand_refusal_names_the_dim_and_renders_pytorchs_text() -> None:
    plan = plans.expand(Layout((2, 3), (3, 1)), (4, 3))
    assert plan == R.ExpandRefusal((2, 3), (4, 3), 0, 0, 2, 4)
    assert str(messages.error(plan)).splitlines()[0] == (
        "The expanded size of the tensor (4) must match the existing size (2) at non-singleton "
        "dimension 0.  Target sizes: [4, 3].  Tensor sizes: [2, 3]")


def test_plans_are_values() -> None:
    lay = Layout((3, 4), (4, 1))
    assert plans.permute(lay, (1, 0)) == View(Layout((4, 3), (1, 4)))
    assert hash(plans.permute(lay, (1, 0))) == hash(View(Layout((4, 3), (1, 4))))
    with pytest.raises(AttributeError):
        plans.permute(lay, (1, 0)).layout = lay  # type: ignore[misc]
    assert plans.transpose(lay, 0, 2) == R.DimOutOfRange(2, 2)
    assert plans.select(lay, 1, 4) == R.IndexOutOfRange((3, 4), 1, 4, 4)


def test_overlap_status_is_an_enum() -> None:
    a = Layout((4,), (1,))
    assert st.layout.overlap_status(a, a) is R.OverlapStatus.FULL
    assert st.layout.overlap_status(a, Layout((4,), (1,), 2)) is R.OverlapStatus.PARTIAL
    assert st.layout.overlap_status(a, Layout((4,), (1,), 4)) is R.OverlapStatus.NONE
    assert st.layout.overlap_status(a, Layout((4,), (0,))) is R.OverlapStatus.TOO_HARD
    assert st.layout.internal_overlap((2, 3, 1), (0, 1, 0)) == R.InternalOverlap((0,))
    assert R.OverlapStatus.PARTIAL == "partial"  # callers written against the old strings still work


# The refusals whose text needs more than the refusal itself (the tensor's story and itemsize, the
# two shapes, the op): each has its own renderer (view_refused, the broadcast and write errors).
_RENDERED_IN_CONTEXT = {R.ReshapeRefusal, R.BroadcastMismatch, R.InternalOverlap}


def test_the_renderer_dispatches_on_every_refusal_type() -> None:
    """messages.error finds each refusal's text by the refusal's type (no name table to forget)."""
    refusals = set(typing.get_args(R.Refusal)) | {R.LayoutRefusal}
    assert set(messages._RENDER) == refusals - _RENDERED_IN_CONTEXT
    err = messages.error(R.TooManyDims(MAX_DIMS + 1, "unsqueeze"))
    assert err.refusal == R.TooManyDims(MAX_DIMS + 1, "unsqueeze") and str(MAX_DIMS) in str(err)


@FAST
@given(
    hs.integers(1, 12),
    hs.lists(hs.tuples(hs.integers(0, 4), hs.integers(-2, 5)), max_size=3),
    hs.integers(-1, 8),
    hs.booleans(),
)
def test_as_strided_plan_agrees_with_the_tensor_method(storage, dims, offset, length_mismatch) -> None:
    """plans.as_strided decides as Tensor.as_strided does: the same view, or the same error
    carrying the plan's refusal (negative stride, negative offset, past the storage, ...)."""
    size = tuple(n for n, _ in dims)
    stride = tuple(s for _, s in dims) + ((1,) if length_mismatch else ())
    t = st.arange(storage)
    plan = plans.as_strided(size, stride, offset, storage_size=storage, itemsize=ITEMSIZE)
    check_plan(plan, t, storage, lambda x: x.as_strided(size, stride, offset))
    if not isinstance(plan, View):
        assert isinstance(plan, (R.LayoutRefusal, R.TooManyDims, R.NumelOverflow))
        if isinstance(plan, R.LayoutRefusal) and plan.rule == "storage":
            assert plan.high >= storage and plan.storage_size == storage


def test_layout_refusals_name_the_broken_invariant() -> None:
    assert layout_refusal((3,), (2,), 0, storage_size=5) is None
    assert layout_refusal((3,), (2,), 0, storage_size=4).rule == "storage"
    assert layout_refusal((2,), (-1,), 0).rule == "reach"
    assert layout_refusal((2,), (1,), -1).rule == "offset"
    assert layout_refusal((2, 3), (1,), 0).rule == "length"
    assert layout_refusal((-1,), (1,), 0).rule == "size"
    assert layout_refusal((2**62, 4), (0, 0), 0).__class__ is R.NumelOverflow
    assert layout_refusal((2,), (2**62,), 0, itemsize=8).rule == "bytes"
