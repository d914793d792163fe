"""Fuzz: random chains of view ops, then view / reshape / flatten, compared with PyTorch at every step.

Each step draws an op and arguments that fit the current shape (mostly valid,
sometimes not), applies it in torch and in strided, and compares layout,
values, view-vs-copy, ``base`` and error class (:class:`view_oracle.Chain`).
A step that fails in both libraries leaves the chain where it was.

Failures the fuzz found are pinned below as ``test_regression_*``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import Spec, build_numpy, build_strided, build_torch, specs
from view_oracle import Chain, basic_keys, dims_for, new_shapes


@hs.composite
def starts(draw: Any) -> Spec:
    """Hard layouts from ``specs``, or a plain contiguous tensor (where chains start in practice)."""
    if draw(hs.booleans()):
        return draw(specs(max_dims=4, max_size=4))
    shape = tuple(draw(hs.lists(hs.integers(1, 4), min_size=1, max_size=4)))
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return Spec(math.prod(shape), shape, tuple(strides), 0)


@hs.composite
def step(draw: Any, shape: tuple[int, ...], storage_size: int = 0) -> tuple[str, Any]:
    """One op of the chain with arguments drawn for ``shape``: (label, function of a tensor)."""
    nd = len(shape)
    op = draw(hs.sampled_from([
        "permute", "transpose", "slice", "expand", "unsqueeze", "squeeze", "squeeze_dim", "select",
        "diagonal", "unfold", "narrow", "movedim", "mT", "T", "split", "chunk", "unflatten", "view",
        "reshape", "flatten", "as_strided", "split_list", "unbind", "t", "expand_as", "view_as",
        "contiguous", "clone",
    ]))
    if op in ("contiguous", "clone"):  # copies mid-chain: later views must name the copy as base
        return f"{op}()", lambda t: getattr(t, op)()
    if op == "as_strided":
        k = draw(hs.integers(0, 3))
        size = tuple(draw(hs.lists(hs.integers(0, 3), min_size=k, max_size=k)))
        stride = tuple(draw(hs.lists(hs.integers(0, 4), min_size=k, max_size=k)))
        offset = draw(hs.one_of(hs.none(), hs.integers(0, storage_size + 1)))
        return f"as_strided({size}, {stride}, {offset})", lambda t: t.as_strided(size, stride, offset)
    if op == "split_list":
        d = draw(dims_for(nd, 0))
        n = shape[d] if nd else 1
        cut = draw(hs.integers(0, n))
        pick = draw(hs.integers(0, 1))
        return f"split([{cut}, {n - cut}], {d})[{pick}]", lambda t: t.split([cut, n - cut], d)[pick]
    if op == "unbind":
        d = draw(dims_for(nd, 0))
        pick = draw(hs.integers(0, 3))
        return f"unbind({d})[{pick}]", lambda t: _piece(t.unbind(d) or (t,), pick)
    if op == "t":
        return "t()", lambda t: t.t()
    if op in ("expand_as", "view_as"):
        target = draw(new_shapes(shape)) if op == "view_as" else tuple(
            draw(hs.integers(0, 3)) if n == 1 else n for n in shape)
        target = tuple(max(n, 0) for n in target)
        return f"{op}({target})", lambda t: getattr(t, op)(_lib(t).zeros(target))
    if op == "permute":
        perm = tuple(draw(hs.permutations(range(nd))))
        return f"permute{perm}", lambda t: t.permute(perm)
    if op == "transpose":
        a, b = draw(dims_for(nd, 0)), draw(dims_for(nd, 0))
        return f"transpose({a}, {b})", lambda t: t.transpose(a, b)
    if op == "slice":
        key = draw(basic_keys(shape, max_items=3))
        return f"[{key!r}]", lambda t: t[key]
    if op == "expand":
        sizes = [draw(hs.integers(0, 3)) if n == 1 and draw(hs.booleans()) else
                 (-1 if draw(hs.booleans()) else n) for n in shape]
        lead = draw(hs.lists(hs.integers(0, 3), max_size=2)) if nd else draw(hs.lists(hs.integers(0, 3), max_size=2))
        sizes = tuple(lead + sizes)
        return f"expand{sizes}", lambda t: t.expand(sizes)
    if op == "unsqueeze":
        d = draw(dims_for(nd + 1, 0))
        return f"unsqueeze({d})", lambda t: t.unsqueeze(d)
    if op == "squeeze":
        return "squeeze()", lambda t: t.squeeze()
    if op == "squeeze_dim":
        dims = tuple(sorted(set(draw(hs.lists(dims_for(nd, 0), max_size=2)))))
        return f"squeeze({dims})", lambda t: t.squeeze(dims)
    if op == "select":
        d = draw(dims_for(nd, 0))
        i = draw(hs.integers(-4, 4))
        return f"select({d}, {i})", lambda t: t.select(d, i)
    if op == "diagonal":
        off = draw(hs.integers(-3, 3))
        a, b = draw(dims_for(nd, 0)), draw(dims_for(nd, 0))
        return f"diagonal({off}, {a}, {b})", lambda t: t.diagonal(off, a, b)
    if op == "unfold":
        d = draw(dims_for(nd, 0))
        size, stp = draw(hs.integers(0, 3)), draw(hs.integers(1, 3))
        return f"unfold({d}, {size}, {stp})", lambda t: t.unfold(d, size, stp)
    if op == "narrow":
        d = draw(dims_for(nd, 0))
        start, length = draw(hs.integers(-3, 3)), draw(hs.integers(0, 3))
        return f"narrow({d}, {start}, {length})", lambda t: t.narrow(d, start, length)
    if op == "movedim":
        a, b = draw(dims_for(nd, 0)), draw(dims_for(nd, 0))
        return f"movedim({a}, {b})", lambda t: t.movedim(a, b)
    if op == "mT":
        return "mT", lambda t: t.mT
    if op == "T":
        return "T", lambda t: t.T
    if op in ("split", "chunk"):
        d = draw(dims_for(nd, 0))
        n = draw(hs.integers(1, 3))
        pick = draw(hs.integers(0, 3))
        name = f"{op}({n}, {d})[{pick}]"
        return name, lambda t: _piece(getattr(t, op)(n, d), pick)
    if op == "unflatten":
        d = draw(dims_for(nd, 0))
        sizes = draw(new_shapes((shape[d],))) if nd else (1,)
        return f"unflatten({d}, {sizes})", lambda t: t.unflatten(d, sizes)
    if op == "flatten":
        a, b = draw(dims_for(nd, 0)), draw(dims_for(nd, 0))
        return f"flatten({a}, {b})", lambda t: t.flatten(a, b)
    shape2 = draw(new_shapes(shape))
    return f"{op}{shape2}", lambda t: getattr(t, op)(shape2)


def _lib(t: Any) -> Any:
    return torch if isinstance(t, torch.Tensor) else st


def _piece(pieces: tuple[Any, ...], pick: int) -> Any:
    return pieces[pick % len(pieces)]


@hs.composite
def finish(draw: Any, shape: tuple[int, ...]) -> tuple[str, Any]:
    """The chain's last op: a view, a reshape or a flatten."""
    op = draw(hs.sampled_from(["view", "reshape", "flatten", "flatten_range", "view_minus1"]))
    if op == "flatten":
        return "flatten()", lambda t: t.flatten()
    if op == "view_minus1":
        return "view(-1)", lambda t: t.view(-1)
    if op == "flatten_range":
        a, b = draw(dims_for(len(shape), 0)), draw(dims_for(len(shape), 0))
        return f"flatten({a}, {b})", lambda t: t.flatten(a, b)
    target = draw(new_shapes(shape))
    return f"{op}{target}", lambda t: getattr(t, op)(target)


def run_chain(spec: Spec, data: Any, length: int) -> None:
    t = build_torch(spec)
    s = build_strided(spec)
    chain = Chain(t, s)
    trail = [f"start {spec}"]
    for k in range(length + 1):
        shape = tuple(t.shape)
        nbytes = t.untyped_storage().nbytes() // t.element_size()
        label, fn = data.draw(step(shape, nbytes) if k < length else finish(shape), label=f"step {k}")
        trail.append(label)
        out = chain.apply(" -> ".join(trail), fn, fn, t, s)
        if out is not None:
            t, s = out


@settings(max_examples=200, deadline=None)
@given(spec=starts(), data=hs.data(), length=hs.integers(1, 6))
def test_random_view_chains_match_torch(spec: Spec, data: Any, length: int) -> None:
    run_chain(spec, data, length)


# ---------------------------------------------------------------- pinned regressions


def _pair(shape: tuple[int, ...]) -> tuple[torch.Tensor, st.Tensor]:
    n = math.prod(shape)
    return torch.arange(n).view(shape), st.arange(n).view(shape)


def _same(what: str, ft: Any, fs: Any, t: Any, s: Any) -> Any:
    return Chain(t, s).apply(what, ft, fs, t, s)


def test_regression_movedim_of_0d() -> None:
    # found by the op oracle: movedim(0, 0) on a 0-d tensor crashed with a bare IndexError
    t, s = torch.tensor(5), st.tensor(5)
    out = _same("movedim(0, 0)", lambda x: x.movedim(0, 0), lambda x: x.movedim(0, 0), t, s)
    assert out is not None and out[1].shape == () and out[1].base is s
    out = _same("movedim(-1, (0,))", lambda x: x.movedim((-1,), (0,)), lambda x: x.movedim((-1,), (0,)), t, s)
    assert out is not None


def test_regression_movedim_repeated_dims_message() -> None:
    s = st.zeros(2, 3, 4)
    with pytest.raises(RuntimeError, match=r"movedim: repeated dim in `source` \(\[0, -3\]\)"):
        s.movedim((0, -3), (1, 2))
    with pytest.raises(RuntimeError, match=r"movedim: repeated dim in `destination`"):
        s.movedim((0, 1), (2, 2))


def test_regression_squeeze_duplicate_dims() -> None:
    # torch refuses squeeze((0, 0)) and squeeze((0, -3)); strided used to accept them
    for dims in [(0, 0), (0, -3), (1, -2, 0)]:
        t, s = _pair((1, 2, 1))
        assert _same(f"squeeze{dims}", lambda x, d=dims: x.squeeze(d), lambda x, d=dims: x.squeeze(d), t, s) is None
    # the check is made dim by dim, before later dims are range-checked (as PyTorch)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times"):
        st.tensor(1).squeeze((0, 0, 5))


def test_regression_mT_of_0d_is_identity() -> None:
    # torch 2.13: mT of a 0-d tensor is the tensor itself (deprecated, with a warning)
    s = st.tensor(3)
    with pytest.warns(UserWarning, match="deprecated on 0-D"):
        assert s.mT is s
    with pytest.raises(RuntimeError, match="Got 1-D tensor"):
        _ = st.zeros(3).mT


def test_regression_argument_check_order() -> None:
    # torch checks narrow's length and split's size before the dim; unflatten's sizes before the dim
    t, s = _pair((2, 3))
    cases = {
        "narrow(5, 0, -1)": lambda x: x.narrow(5, 0, -1),
        "split(-1, 7)": lambda x: x.split(-1, 7),
        "unflatten(9, ())": lambda x: x.unflatten(9, ()),
    }
    for what, fn in cases.items():
        assert _same(what, fn, fn, t, s) is None
    with pytest.raises(RuntimeError, match="length must be non-negative"):
        s.narrow(5, 0, -1)
    with pytest.raises(RuntimeError, match="split_size be non-negative"):
        s.split(-1, 7)


def test_regression_unflatten_of_0d() -> None:
    # strided used to crash with a bare "tuple index out of range"
    t, s = torch.tensor(1), st.tensor(1)
    assert _same("unflatten(0, (1,))", lambda x: x.unflatten(0, (1,)), lambda x: x.unflatten(0, (1,)), t, s) is None
    with pytest.raises(RuntimeError, match="Dimension specified as 0 but tensor has no dimensions"):
        s.unflatten(0, (1,))


def test_regression_calls_without_sizes_are_type_errors() -> None:
    # torch: view() / reshape() / expand() / permute() without arguments raise TypeError;
    # strided used to read them as the empty shape
    t, s = torch.tensor(1), st.tensor(1)
    for name in ["view", "reshape", "expand", "permute", "broadcast_to"]:
        assert _same(f"{name}()", lambda x, n=name: getattr(x, n)(), lambda x, n=name: getattr(x, n)(), t, s) is None
    assert s.view(()).shape == () and s.reshape(()).shape == () and s.expand(()).shape == ()


# ---------------------------------------------------------------- negative strides: NumPy is the oracle
# Note: PyTorch cannot hold negative strides, so chains that start from (or create) them are
# compared with NumPy: shape, values, strides (size-1 dims excepted: PyTorch's rule there),
# the address of the first element, and view-vs-copy for reshape.


@hs.composite
def np_step(draw: Any, shape: tuple[int, ...]) -> tuple[str, Any, Any]:
    """(label, numpy function, strided function) for one op valid on ``shape``."""
    nd = len(shape)
    ops = ["slice", "reshape", "view", "flatten", "unsqueeze", "squeeze", "expand"]
    if nd:
        ops += ["permute", "transpose", "select", "movedim", "narrow", "unfold", "T"]
    if nd >= 2:
        ops += ["diagonal"]
    op = draw(hs.sampled_from(ops))
    if op == "slice":
        key = draw(basic_keys(shape, negative=True, max_items=3))
        return f"[{key!r}]", lambda a: a[_keep_array(key)], lambda t: t[key]
    if op in ("reshape", "view"):
        # Note: NumPy reads any negative size as "infer"; PyTorch (and the Tensor methods) only -1
        target = draw(new_shapes(shape).filter(lambda sh: min(sh, default=0) >= -1))
        np_fn = (lambda a: a.reshape(target)) if op == "reshape" else (lambda a: np.reshape(a, target, copy=False))
        return f"{op}{target}", np_fn, lambda t: getattr(t, op)(target)
    if op == "flatten":
        return "flatten()", lambda a: a.reshape(-1), lambda t: t.flatten()
    if op == "unsqueeze":
        d = draw(hs.integers(-nd - 1, nd))
        return f"unsqueeze({d})", lambda a: np.expand_dims(a, d), lambda t: t.unsqueeze(d)
    if op == "squeeze":
        return "squeeze()", lambda a: a.squeeze(), lambda t: t.squeeze()
    if op == "expand":
        sizes = tuple(draw(hs.lists(hs.integers(0, 2), max_size=1))) + tuple(
            draw(hs.integers(0, 3)) if n == 1 else n for n in shape)
        return f"expand{sizes}", lambda a: np.broadcast_to(a, sizes), lambda t: t.expand(sizes)
    if op == "permute":
        perm = tuple(draw(hs.permutations(range(nd))))
        return f"permute{perm}", lambda a: a.transpose(perm), lambda t: t.permute(perm)
    if op == "T":
        return "T", lambda a: a.T, lambda t: t.T
    if op == "transpose":
        a_, b_ = draw(hs.integers(-nd, nd - 1)), draw(hs.integers(-nd, nd - 1))
        return f"transpose({a_}, {b_})", lambda a: np.swapaxes(a, a_, b_), lambda t: t.transpose(a_, b_)
    if op == "movedim":
        a_, b_ = draw(hs.integers(-nd, nd - 1)), draw(hs.integers(-nd, nd - 1))
        return f"movedim({a_}, {b_})", lambda a: np.moveaxis(a, a_, b_), lambda t: t.movedim(a_, b_)
    d = draw(hs.integers(0, nd - 1))
    if op == "select":
        i = draw(hs.integers(-shape[d], shape[d] - 1)) if shape[d] else 0
        key = (slice(None),) * d + (i, Ellipsis)
        return f"select({d}, {i})", lambda a: a[key], lambda t: t.select(d, i)
    if op == "narrow":
        start = draw(hs.integers(0, shape[d]))
        length = draw(hs.integers(0, shape[d] - start))
        key = (slice(None),) * d + (slice(start, start + length),)
        return f"narrow({d}, {start}, {length})", lambda a: a[key], lambda t: t.narrow(d, start, length)
    if op == "unfold":
        size, step_ = draw(hs.integers(0, shape[d])), draw(hs.integers(1, 3))
        key = (slice(None),) * d + (slice(None, None, step_),)
        return (f"unfold({d}, {size}, {step_})",
                lambda a: np.lib.stride_tricks.sliding_window_view(a, size, axis=d)[key],
                lambda t: t.unfold(d, size, step_))
    off = draw(hs.integers(-3, 3))
    d1, d2 = draw(hs.permutations(range(nd)))[:2]
    return f"diagonal({off}, {d1}, {d2})", lambda a: np.diagonal(a, off, d1, d2), lambda t: t.diagonal(off, d1, d2)


def _keep_array(key: Any) -> Any:
    """The same index with an Ellipsis, so NumPy gives a 0-d view rather than a scalar copy."""
    items = key if isinstance(key, tuple) else (key,)
    return items if any(it is Ellipsis for it in items) else items + (Ellipsis,)


def _strides_ignoring_ones(shape: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int | None, ...]:
    return tuple(None if n == 1 else x for n, x in zip(shape, strides))


@settings(max_examples=250, deadline=None)
@given(spec=specs(negative=True, max_size=4), data=hs.data(), length=hs.integers(1, 6))
def test_random_negative_stride_chains_match_numpy(spec: Spec, data: Any, length: int) -> None:
    a = build_numpy(spec)
    s = build_strided(spec)
    memory = a.base if a.base is not None else a
    start_ptr = memory.__array_interface__["data"][0]
    trail = [f"start {spec}"]
    for k in range(length):
        label, np_fn, st_fn = data.draw(np_step(a.shape), label=f"step {k}")
        trail.append(label)
        what = " -> ".join(trail)
        try:
            r = np_fn(a)
        except Exception:  # noqa: BLE001 - NumPy refuses: strided must refuse too
            with pytest.raises(st.StridedError):
                st_fn(s)
            continue
        sr = st_fn(s)
        assert sr.shape == r.shape, what
        assert sr.tolist() == r.tolist(), what
        if r.size:
            item = r.itemsize
            assert _strides_ignoring_ones(sr.shape, sr.stride()) == _strides_ignoring_ones(
                r.shape, tuple(x // item for x in r.strides)), what
            numpy_shares = np.shares_memory(r, memory)
            assert (sr.untyped_storage() is s.untyped_storage()) == numpy_shares, what
            if numpy_shares:
                assert sr.storage_offset() == (r.__array_interface__["data"][0] - start_ptr) // item, what
            else:
                assert sr.base is None, what
        a, s = r, sr
        if not np.shares_memory(a, memory) and a.size:
            memory = a.base if a.base is not None else a
            start_ptr = memory.__array_interface__["data"][0]


def test_regression_numpy_integer_and_0d_tensor_indices() -> None:
    # strided refused t[np.int64(1)] as "advanced indexing" because NumPy scalars have a .shape;
    # PyTorch (and NumPy) read NumPy integers and 0-d integer tensors/arrays as plain ints
    t, s = _pair((2, 3, 4))
    for key in [np.int64(1), (np.int32(1), -1), (slice(np.int64(1), None), np.int64(2)), (..., np.int16(0))]:
        assert _same(f"[{key!r}]", lambda x, k=key: x[k], lambda x, k=key: x[k], t, s) is not None
    assert s[st.tensor(1)].base is s.base and s[st.tensor(1)].shape == (3, 4)
    assert s[np.array(1)].shape == (3, 4)
    assert s.view(st.tensor(24)).shape == (24,)
    # masks and index arrays are advanced indexing (a copy, as in PyTorch); a NumPy bool scalar is no index
    with pytest.raises(IndexError):
        s[np.True_]
    for key in (st.tensor(True), np.array([1]), st.tensor([1])):
        assert s[key].base is None and s[key].shape == t[torch.tensor(np.asarray(key))].shape
