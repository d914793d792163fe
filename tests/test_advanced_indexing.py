"""Advanced indexing against PyTorch: ``t[key]`` reads (a copy, contiguous, in the ledger),
``t[key] = value`` and ``index_put_`` writes (every check before the write), on hard layouts.

Keys are drawn as templates (ints, slices, None, ``...``, index arrays as lists / NumPy arrays /
tensors, bool masks, bool scalars), then built alike for torch and strided.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import build_valued, specs
from oracle_helpers import builtin_class, outcome
from strided.ops.indexing.advanced import index_put, index_put_, plan_index

# ---------------------------------------------------------------- drawing keys


@hs.composite
def keys(draw, shape: tuple[int, ...], tensors_only: bool = False) -> list[tuple[str, Any]]:
    """A key template for a tensor of ``shape``: a list of (kind, data), at least one advanced item.

    Kinds: "int", "slice", "none", "ellipsis", "index" (data: (int array, how it is passed)),
    "mask" (data: (bool array, how)), "bool" (a Python bool). Indices are in range but for about
    one key in ten; masks fit but for about one in ten.
    """
    ndim = len(shape)
    kinds = []
    budget = ndim
    n_items = draw(hs.integers(1, min(ndim + 2, 5)))
    for _ in range(n_items):
        options = ["index", "mask", "bool"] if tensors_only else ["int", "slice", "none", "index", "index", "mask", "bool"]
        if not tensors_only and "ellipsis" not in kinds:
            options.append("ellipsis")
        kind = draw(hs.sampled_from(options))
        consumes = {"int": 1, "slice": 1, "index": 1, "mask": 1}.get(kind, 0)
        if consumes > budget:
            kind = draw(hs.sampled_from(["none", "bool"])) if not tensors_only else "bool"
            consumes = 0
        budget -= consumes
        kinds.append(kind)
    if not any(k in ("index", "mask", "bool") for k in kinds):
        kinds.append("bool")
    # masks may take more than one dim when the budget allows
    mask_dims = {}
    for i, k in enumerate(kinds):
        if k == "mask" and budget and draw(hs.booleans()):
            extra = draw(hs.integers(1, budget))
            mask_dims[i] = 1 + extra
            budget -= extra
        elif k == "mask":
            mask_dims[i] = 1
    consumed = sum(mask_dims.get(i, 1) for i, k in enumerate(kinds) if k in ("int", "slice", "index", "mask"))
    skip = ndim - consumed
    bad = draw(hs.integers(0, 9)) == 0
    index_shape = draw(hs.sampled_from([(2,), (3,), (1,), (0,), (2, 1), (1, 3), (2, 3)]))
    hows = ["tensor"] if tensors_only else ["list", "np", "tensor"]
    out: list[tuple[str, Any]] = []
    dim = 0
    for i, kind in enumerate(kinds):
        size = shape[dim] if dim < ndim else 0
        if kind == "int":
            if size == 0:
                out.append(("slice", slice(None)))
            else:
                out.append(("int", draw(hs.integers(-size, size - 1))))
            dim += 1
        elif kind == "slice":
            out.append(("slice", slice(draw(hs.sampled_from([None, 0, 1])), None, draw(hs.sampled_from([None, 1, 2])))))
            dim += 1
        elif kind == "none":
            out.append(("none", None))
        elif kind == "ellipsis":
            out.append(("ellipsis", Ellipsis))
            dim += skip
        elif kind == "bool":
            out.append(("bool", draw(hs.booleans())))
        elif kind == "index":
            ishape = draw(hs.sampled_from([index_shape, index_shape[-1:], (1,)]))  # shapes that broadcast
            n = int(np.prod(ishape))
            high = size + 2 if bad else size
            if high == 0:
                values = [0] * n if bad else []
                ishape = ishape if bad else (0,)
            else:
                values = draw(hs.lists(hs.integers(-high, high - 1), min_size=n, max_size=n))
            # (an empty list: torch 2.13 reads [] after a mask and ... oddly; an empty tensor it reads as we do)
            how = draw(hs.sampled_from(hows)) if values else "tensor"
            out.append(("index", (np.array(values, dtype=np.int64).reshape(ishape), how)))
            dim += 1
        else:
            k = mask_dims[i]
            mshape = list(shape[dim:dim + k])
            if bad and mshape:
                mshape[-1] += 1
            bits = draw(hs.lists(hs.booleans(), min_size=int(np.prod(mshape)), max_size=int(np.prod(mshape))))
            how = draw(hs.sampled_from(hows if len(mshape) else ["tensor"]))
            out.append(("mask", (np.array(bits, dtype=bool).reshape(mshape), how)))
            dim += k
    return out


def build_key(template: list[tuple[str, Any]], lib: Any) -> tuple:
    """The key for ``lib`` (torch or strided); lists and NumPy arrays are passed as such to both."""
    key = []
    for kind, data in template:
        if kind in ("index", "mask"):
            arr, how = data
            if how == "list":
                key.append(arr.tolist())
            elif how == "np":
                key.append(arr.copy())
            else:
                key.append(lib.tensor(arr.tolist(), dtype=lib.bool if kind == "mask" else lib.int64)
                           if arr.ndim else lib.tensor(arr.item(), dtype=lib.bool if kind == "mask" else lib.int64))
        else:
            key.append(data)
    return tuple(key)


def _torch_miscounts(template: list[tuple[str, Any]]) -> bool:
    """A mask of several dims, given as a list or a NumPy array, with ``...`` in the key: PyTorch 2.13
    counts it as one dim when it expands ``...`` (odd shapes, or errors); strided counts all of its
    dims, as NumPy does and as torch does for a mask tensor (test_a_mask_counts_all_its_dims...)."""
    return any(k == "ellipsis" for k, _ in template) and any(
        k == "mask" and d[0].ndim != 1 and d[1] != "tensor" for k, d in template)


def _pair(spec, dtype: str = "float32", seed: int = 0):
    """The spec's layout over one buffer each for torch and strided (writes must not meet), and
    torch's buffer (strided's is ``s._storage.array``)."""
    data = np.random.default_rng(seed).standard_normal(spec.storage_size).astype(dtype)
    buffer = data.copy()
    t, _, _ = build_valued(spec, buffer)
    _, _, s = build_valued(spec, data.copy())
    return t, s, buffer


_BOUNDS = re.compile(r"^index -?\d+ is out of bounds for dimension \d+ with size \d+$|^index is out of bounds")


def _same_failure(te: BaseException, se: BaseException, empty: bool = False) -> None:
    """Both failed alike: the builtin class, and the first line (out-of-range: its pattern, since
    PyTorch names the dim among its index tensors where strided names the indexed tensor's).
    ``empty``: the indexed tensor is empty, where torch checks in another order (a key can be
    wrong twice there), so only the class is compared."""
    assert builtin_class(se) is builtin_class(te), f"torch: {te!r}\nstrided: {se!r}"
    assert isinstance(se, st.StridedError)
    if empty:
        return
    first_t, first_s = str(te).splitlines()[0], str(se).splitlines()[0]
    if _BOUNDS.match(first_t):
        assert _BOUNDS.match(first_s), first_s
    elif first_t.startswith("Dimension out of range") and first_s.startswith("The shape of the mask"):
        pass  # torch 2.13 trips over a too-large mask after ... and None; strided names the mask
    else:
        assert first_s == first_t, (first_s, first_t)
    assert len(str(se).splitlines()) >= 2, "a detail line follows the first"


# ---------------------------------------------------------------- reading


@settings(max_examples=150, deadline=None)
@given(hs.data())
def test_read_matches_torch(data) -> None:
    spec = data.draw(specs(min_dims=1, max_dims=4))
    template = data.draw(keys(spec.shape))
    assume(not _torch_miscounts(template))
    t, s, _ = _pair(spec)
    tr, te = outcome(lambda: t[build_key(template, torch)])
    skey = build_key(template, st)  # (building index tensors records copies of their lists)
    with st.record_copies() as copies:
        sr, se = outcome(lambda: s[skey])
    if te is not None or se is not None:
        assert te is not None and se is not None, f"torch: {te!r}\nstrided: {se!r}\n{template}"
        _same_failure(te, se, empty=0 in spec.shape)
        return
    assert sr.shape == tuple(tr.shape), template
    assert sr.dtype is st.float32
    np.testing.assert_array_equal(sr.numpy(), tr.numpy())
    assert sr.base is None  # a copy, laid out as PyTorch's: every stride (size-1 and empty dims too)
    assert (sr.stride(), sr.storage_offset()) == (tr.stride(), tr.storage_offset()), template
    assert len(copies) == 1 and copies[0].nbytes == sr.numel() * 4
    assert "advanced indexing with" in copies[0].reason


@settings(max_examples=300, deadline=None)
@given(hs.data())
def test_read_with_bool_scalars_and_empty_results_has_torchs_layout(data) -> None:
    """Keys holding a Python bool (``t[True]``, ``t[..., False]``, mixed with index tensors) and
    keys with an empty result: shape, every stride, offset and values as PyTorch's. A bool is an
    unsqueeze indexed by [0] or [] (an index tensor of its own), and the result's strides are the
    index kernel's TensorIterator output (its fast set-up where the index tensors have the
    result's shape; a zero-size dim zeroes the strides outside it in its order)."""
    spec = data.draw(specs(min_dims=1, max_dims=4))
    template = data.draw(keys(spec.shape))
    if data.draw(hs.booleans()):  # (a bool scalar somewhere in half the keys)
        at = data.draw(hs.integers(0, len(template)))
        template = template[:at] + [("bool", data.draw(hs.booleans()))] + template[at:]
    assume(not _torch_miscounts(template))
    t, s, _ = _pair(spec)
    tr, te = outcome(lambda: t[build_key(template, torch)])
    sr, se = outcome(lambda: s[build_key(template, st)])
    if te is not None or se is not None:
        assert te is not None and se is not None, f"torch: {te!r}\nstrided: {se!r}\n{template}"
        _same_failure(te, se, empty=0 in spec.shape)
        return
    assert (sr.shape, sr.stride(), sr.storage_offset()) == (tuple(tr.shape), tr.stride(), tr.storage_offset()), template
    np.testing.assert_array_equal(sr.numpy(), tr.numpy())


@pytest.mark.parametrize("shape", [(3, 1), (1, 1), (2, 3), (0, 3), (1, 0, 1), (2, 1, 4)], ids=str)
@pytest.mark.parametrize("key", [(True,), (False,), (Ellipsis, True), (Ellipsis, False), (slice(None), True, slice(None, None, 2)),
                                 (slice(None), False, Ellipsis), (0, False), (True, [0]), (False, [0]), (None, True),
                                 (True, None, False), (slice(0, 0), True)], ids=str)
def test_bool_scalar_keys_as_torch(shape: tuple, key: tuple) -> None:
    """The bool-scalar keys the earlier sweeps found laid out row-major where PyTorch's strides
    differ (size-1 and empty dims): each as PyTorch's."""
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    tr, te = outcome(lambda: torch.from_numpy(a.copy())[key])
    sr, se = outcome(lambda: st.from_numpy(a.copy())[key])
    if te is not None or se is not None:
        assert te is not None and se is not None, (te, se)
        _same_failure(te, se, empty=0 in shape)
        return
    assert (sr.shape, sr.stride(), sr.storage_offset()) == (tuple(tr.shape), tr.stride(), tr.storage_offset())
    np.testing.assert_array_equal(sr.numpy(), tr.numpy())


@settings(max_examples=60, deadline=None)
@given(hs.data())
def test_write_matches_torch(data) -> None:
    spec = data.draw(specs(min_dims=1, max_dims=3))
    template = data.draw(keys(spec.shape))
    assume(not _torch_miscounts(template))
    # a target whose elements share memory through non-zero strides (shape (3, 2), strides (1, 2)):
    # which write lands last is each library's loop order, which neither promises
    live = [(n, d) for n, d in zip(spec.shape, spec.strides) if d != 0]
    assume(not st.layout.overlaps(tuple(n for n, _ in live), tuple(d for _, d in live)))
    t, s, torch_buffer = _pair(spec)
    before = s._storage.array.copy()
    number = data.draw(hs.sampled_from([None, 5.0, -1]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tr, te = outcome(lambda: t[build_key(template, torch)])
    if te is None:
        value_shape = data.draw(hs.sampled_from([tuple(tr.shape), tuple(tr.shape[1:]), (1,) + tuple(tr.shape)]))
        # distinct values, so a repeated index shows which write won (torch's CPU kernel writes
        # in index order too, though it does not promise to)
        value = np.arange(int(np.prod(value_shape)), dtype=np.float32).reshape(value_shape) + 100
    else:
        value = np.float32(1)

    def write(lib, target):
        target[build_key(template, lib)] = number if number is not None else lib.tensor(value)

    _, te = outcome(lambda: write(torch, t))
    _, se = outcome(lambda: write(st, s))
    overlapping = 0 not in spec.shape and any(n > 1 for n, d in zip(spec.shape, spec.strides) if d == 0)
    if overlapping and isinstance(se, st.errors.OverlapWriteError):
        # Note: strided refuses a write into an expanded (stride-0) target; PyTorch warns and writes
        assert "single memory location" in str(se)
        np.testing.assert_array_equal(s._storage.array, before)
        return
    if te is not None or se is not None:
        assert te is not None and se is not None, f"torch: {te!r}\nstrided: {se!r}\n{template}"
        _same_failure(te, se, empty=0 in spec.shape)
        np.testing.assert_array_equal(s._storage.array, before)  # stricter than torch: untouched
        return
    # the whole storage: writes through the view landed in the same places
    np.testing.assert_array_equal(s._storage.array, torch_buffer)


@settings(max_examples=60, deadline=None)
@given(hs.data())
def test_index_put_accumulate_matches_torch(data) -> None:
    spec = data.draw(specs(min_dims=1, max_dims=3))
    template = data.draw(keys(spec.shape, tensors_only=True))
    accumulate = data.draw(hs.booleans())
    t, s, torch_buffer = _pair(spec, "float64")
    before = s._storage.array.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, te = outcome(lambda: t[build_key(template, torch)])
        shape = tuple(t[build_key(template, torch)].shape) if te is None else (1,)
    vshape = data.draw(hs.sampled_from([shape, shape[1:], ()]))
    value = np.arange(int(np.prod(vshape)), dtype=np.float64).reshape(vshape) + 0.5

    _, te = outcome(lambda: t.index_put_(build_key(template, torch), torch.tensor(value), accumulate))
    sr, se = outcome(lambda: s.index_put_(build_key(template, st), st.tensor(value), accumulate))
    if isinstance(se, st.errors.OverlapWriteError) and 0 not in spec.shape:
        # Note: strided refuses to write into a target whose elements share memory (expanded;
        # with accumulate, any overlap: the sum would depend on the order); PyTorch writes
        np.testing.assert_array_equal(s._storage.array, before)
        return
    if te is not None or se is not None:
        assert te is not None and se is not None, f"torch: {te!r}\nstrided: {se!r}\n{template}"
        _same_failure(te, se, empty=0 in spec.shape)
        np.testing.assert_array_equal(s._storage.array, before)
        return
    assert sr is s
    np.testing.assert_allclose(s._storage.array, torch_buffer, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- PyTorch's rules, pinned


def test_a_plain_int_is_a_basic_index_as_in_pytorch() -> None:
    x = st.arange(120).view(2, 3, 4, 5)
    # Note: NumPy gives (2, 3, 5): its int and list are two advanced indices split by a slice
    assert x[0, :, [0, 1]].shape == (3, 2, 5) == tuple(torch.arange(120).view(2, 3, 4, 5)[0, :, [0, 1]].shape)
    assert np.arange(120).reshape(2, 3, 4, 5)[0, :, [0, 1]].shape == (2, 3, 5)
    assert x[[0, 1], :, [0, 1]].shape == (2, 3, 5)  # apart: the index dims go first
    assert x[:, [0, 1], [0, 1]].shape == (2, 2, 5)  # adjacent: in place
    assert x[[0, 1], 0, [0, 1]].shape == (2, 5)  # the int is applied first: still adjacent
    assert plan_index(x._layout, (0, slice(None), [0, 1])).shape == (3, 2, 5)


def test_a_mask_counts_all_its_dims_for_the_ellipsis() -> None:
    # Note: PyTorch 2.13 counts a mask given as a list or a NumPy array as one dim when it expands
    # `...` (x[..., mask2d] on a 3-d x fails); strided counts all its dims, as NumPy does and as
    # PyTorch does for a bool tensor
    a = np.arange(24).reshape(2, 3, 4)
    mask = a[0] % 3 == 0
    x = st.tensor(a)
    for m in (mask, mask.tolist(), st.tensor(mask)):
        assert x[..., m].tolist() == a[..., mask].tolist() == torch.tensor(a)[..., torch.tensor(mask)].tolist()
    with pytest.raises(IndexError):
        torch.tensor(a)[..., mask]


def test_bool_scalars_masks_and_lists() -> None:
    x = st.arange(12).view(3, 4)
    tx = torch.arange(12).view(3, 4)
    for key in [True, False, (0, True), (st.tensor(True),), (np.array(False),), [True, False, True],
                (slice(None), [True, False, True, False]), [[0, 1], [2, 0]], (np.array([[0], [2]]), [1, 3])]:
        tkey = key
        if isinstance(key, tuple):
            tkey = tuple(torch.tensor(True) if isinstance(k, st.Tensor) else k for k in key)
        with warnings.catch_warnings():  # (a nested list is a tuple of indices in both, with a deprecation warning)
            warnings.simplefilter("ignore")
            assert x[key].tolist() == tx[tkey].tolist(), key
    assert x[x > 5].tolist() == [6, 7, 8, 9, 10, 11]


def test_0d_and_empty() -> None:
    z = st.tensor(3.0)
    assert z[True].shape == (1,) and z[False].shape == (0,)
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 0"):
        z[[0]]
    e = st.zeros(0, 3)
    assert e[[]].shape == (0, 3) and e[:, [0, 2]].shape == (0, 2)
    with pytest.raises(IndexError, match="^index is out of bounds for dimension with size 0"):
        e[[0]]


def test_error_texts() -> None:
    x = st.zeros(3, 4)
    cases = {
        "index 5 is out of bounds for dimension 0 with size 3": lambda: x[[0, 5]],
        "index -4 is out of bounds for dimension 0 with size 3": lambda: x[[-4]],
        "index 4 is out of bounds for dimension 1 with size 4": lambda: x[:, [4]],
        "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]":
            lambda: x[[0, 1], [0, 1, 2]],
        "The shape of the mask [4] at index 0 does not match the shape of the indexed tensor [3, 4] at index 0":
            lambda: x[st.ones(4, dtype=st.bool)],
        "tensors used as indices must be long, int, byte or bool tensors": lambda: x[st.tensor([0.0, 1.0])],
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
        "(got float)": lambda: x[1.5],
        "too many indices for tensor of dimension 2": lambda: x[[0], [0], [0]],
    }
    for first, call in cases.items():
        with pytest.raises(IndexError) as info:
            call()
        assert isinstance(info.value, st.StridedError)
        assert str(info.value).splitlines()[0] == first
        assert len(str(info.value).splitlines()) >= 2
    # Note: PyTorch truncates a float list to int64; strided refuses it as a float index
    with pytest.raises(IndexError, match="must be long, int, byte or bool"):
        x[[0.5, 1.7]]
    with pytest.raises(IndexError, match="valid indices"):
        x[np.True_]  # as torch: a NumPy bool scalar is no index
    with pytest.raises(TypeError, match="invalid data type"):
        x["a"]
    with pytest.raises(IndexError, match="must be long, int, byte or bool"):
        x[st.tensor([0, 1], dtype=st.int8)]
    with pytest.warns(UserWarning, match="uint8 is now deprecated") as caught:
        assert x[st.tensor([1, 0, 1], dtype=st.uint8)].shape == (2, 4)  # a uint8 index is a mask, as torch
        x[np.array([0, 1, 0], dtype=np.uint8)] = 1.0
    assert [w.filename for w in caught] == [__file__] * 2  # at the user's line


def test_basic_indexing_stays_a_view() -> None:
    x = st.arange(12).view(3, 4)
    keys = (1, slice(1, 3), (Ellipsis, None), (0, 1), (slice(None), 2), st.tensor(1), np.int64(2))
    with st.record_copies() as copies:
        for key in keys:
            assert x[key]._storage is x._storage
    assert not copies


def test_ledger_names_the_index_kind_and_count() -> None:
    x = st.arange(12.0).view(3, 4)
    with st.record_copies() as copies:
        x[[2, 0]]
        x[x > 5]
        x[True]
    assert len(copies) == 3
    assert copies[0].reason == "t[...]: advanced indexing with an int index of shape (2,) gathers 8 elements into new memory"
    assert copies[0].nbytes == 32
    assert "a bool mask of shape (3, 4) (6 True)" in copies[1].reason and "6 elements" in copies[1].reason
    assert "a bool scalar (True)" in copies[2].reason


# ---------------------------------------------------------------- writing


def test_writes_every_value_kind_through_views_into_the_base() -> None:
    base = st.zeros(4, 6)
    view = base[1:, ::2]  # (3, 3), strides (6, 2), offset 6
    view[[0, 2]] = 1
    view[[0, 2], [1, 1]] = st.tensor([2.0, 3.0])
    view[view == 0] = np.float64(4)
    view[:, [True, False, True]] = [[5], [6], [7]]
    view[[1]] = np.array([[8.0, 9.0, 10.0]])
    expect = np.zeros((4, 6), np.float32)
    ev = expect[1:, ::2]
    ev[[0, 2]] = 1
    ev[[0, 2], [1, 1]] = [2, 3]
    ev[ev == 0] = 4
    ev[:, [True, False, True]] = [[5], [6], [7]]
    ev[[1]] = [8, 9, 10]
    np.testing.assert_array_equal(base.numpy(), expect)


def test_repeated_index_last_write_wins_and_accumulate_sums() -> None:
    x = st.zeros(3)
    x[[0, 0, 0]] = st.tensor([1.0, 2.0, 3.0])  # Note: PyTorch leaves this undefined; NumPy's order
    assert x.tolist() == [3.0, 0.0, 0.0]
    x.index_put_((st.tensor([0, 0, 2]),), st.tensor([1.0, 2.0, 3.0]), accumulate=True)
    assert x.tolist() == [6.0, 0.0, 3.0]
    m = st.zeros(3, 4)
    m.index_put_((st.tensor([0, 0, 2]), st.tensor([1, 1, -1])), st.tensor(1.5), accumulate=True)
    assert m.tolist() == [[0, 3.0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1.5]]
    m.index_put_((st.tensor([[True, False, False, False]] * 3),), st.tensor(1.0), accumulate=True)
    assert m[:, 0].tolist() == [1.0, 1.0, 1.0]


def test_index_put_is_out_of_place_and_a_ledgered_copy() -> None:
    x = st.zeros(3)
    indices, values = (st.tensor([1]),), st.tensor(7.0)
    with st.record_copies() as copies:
        y = index_put(x, indices, values)
    assert x.tolist() == [0.0, 0.0, 0.0] and y.tolist() == [0.0, 7.0, 0.0]
    assert len(copies) == 1 and copies[0].reason == "clone()"
    assert index_put_(x, (st.tensor([2]),), st.tensor(1.0)) is x and x.tolist() == [0.0, 0.0, 1.0]
    assert x.index_put((st.tensor([0]),), st.tensor(2.0)).tolist() == [2.0, 0.0, 1.0]


def _untouched_after(target: st.Tensor, call) -> BaseException:
    before = target._storage.array.copy()
    with pytest.raises(st.StridedError) as info:
        call()
    np.testing.assert_array_equal(target._storage.array, before)
    return info.value


def test_failed_writes_change_nothing_with_torchs_errors() -> None:
    big = 10**5
    x = st.zeros(big)
    idx = np.arange(big)
    idx[-1] = big + 5  # the bad index last: NumPy checks every index before it writes one
    err = _untouched_after(x, lambda: x.__setitem__(idx, 1.0))
    assert str(err).startswith(f"index {big + 5} is out of bounds for dimension 0 with size {big}")
    _untouched_after(x, lambda: x.index_put_((st.tensor(idx),), st.tensor(1.0), accumulate=True))
    m = st.zeros(300, 300)
    rows = st.tensor(np.arange(1000) % 300)
    cols = st.tensor(np.r_[np.arange(999) % 300, 400])
    for accumulate in (False, True):
        err = _untouched_after(m, lambda a=accumulate: m.index_put_((rows, cols), st.tensor(1.0), a))
        assert str(err).startswith("index 400 is out of bounds for dimension 1 with size 300")
    _untouched_after(m, lambda: m.__setitem__((slice(None), cols[-300:]), st.ones(300, 300)))
    _untouched_after(m, lambda: m.__setitem__((st.ones(300, dtype=st.bool), cols[-300:]), 1.0))

    z = st.zeros(3, 4)
    texts = {
        "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2, 4]":
            lambda: z.__setitem__([0, 2], st.tensor([1.0, 2.0, 3.0])),
        "shape mismatch: value tensor of shape [1, 1, 1] cannot be broadcast to indexing result of shape [2, 4]":
            lambda: z.index_put_((st.tensor([0, 1]),), st.tensor([[[1.0]]])),  # index_put_ keeps leading 1s
        "Index put requires the source and destination dtypes match, got Float for the destination and Long "
        "for the source.": lambda: z.__setitem__([0], st.tensor(1)),
        "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
        "memory location. Please clone() the tensor before performing the operation.":
            lambda: z.__setitem__([0, 1], z[1:3]),
        "value cannot be converted to type float without overflow": lambda: z.__setitem__([0], 1e300),
    }
    for first, call in texts.items():
        err = _untouched_after(z, call)
        assert isinstance(err, RuntimeError) and str(err).splitlines()[0] == first
    z[[0, 1]] = st.ones(1, 1, 2, 4)  # t[idx] = v drops the value's leading size-1 dims, as torch
    assert z.sum().item() == 8
    for bad in (lambda: z.index_put_([None], st.tensor(1.0)), lambda: z.index_put_((st.tensor([0]),), 1.0),
                lambda: z.index_put_(st.tensor([0]), st.tensor(1.0)), lambda: z.__setitem__([0], "a")):
        assert isinstance(_untouched_after(z, bad), TypeError)
    # the write path's checks hold: expanded and read-only targets are refused before any write
    e = st.zeros(1, 4).expand(3, 4)
    assert "single memory location" in str(_untouched_after(e, lambda: e.__setitem__([0], 1.0)))
    ro = np.zeros(4, np.float32)
    ro.flags.writeable = False
    r = st.from_numpy(ro)
    assert "read-only" in str(_untouched_after(r, lambda: r.__setitem__([0], 1.0)))


def test_an_index_or_value_in_the_written_memory_is_read_before_the_write() -> None:
    x = st.tensor([2, 0, 1, 0])
    x[x] = st.tensor([7, 8, 9, 5])  # the index is x itself
    expect = np.array([2, 0, 1, 0])
    expect[expect.copy()] = [7, 8, 9, 5]
    assert x.tolist() == expect.tolist()
    b = st.tensor([True, False, True])
    b[b] = False
    assert b.tolist() == [False, False, False]
    y = st.arange(8.0)
    y[[1, 3, 5, 7]] = y[::2]  # strided, not dense: torch lets it through ("too hard" to judge); read first
    assert y.tolist() == [0.0, 0.0, 2.0, 2.0, 4.0, 4.0, 6.0, 6.0]
    z = st.zeros(4, dtype=st.int64)
    z.index_put_((z,), st.tensor([1, 1, 1, 1]), accumulate=True)  # all four at index 0
    assert z.tolist() == [4, 0, 0, 0]


def test_setitem_reports_a_write() -> None:
    x = st.zeros(4)
    seen = []
    with st.dispatch.listen(seen.append):
        x[[1, 2]] = 3.0
    assert [(r.name, r.kind) for r in seen] == [("setitem", "compute")] and seen[0].output is x


@pytest.mark.parametrize("key", [
    [[0, 0], [0, 1]], [(0, 0), (0, 1)], [[0, 1], (1, 0)], [slice(None), [0]], [0, [1]], [None, [0]], [Ellipsis, 0],
    [slice(None), 0], "tensors", "0-d", [0, 1], [True, False, True],
])
def test_a_short_list_holding_sequences_is_a_tuple_of_indices_as_in_pytorch_2_13(key) -> None:
    """PyTorch 2.13 still reads a list key shorter than 32 that holds a sequence, tensor, slice, None
    or ... as a tuple of indices (with a deprecation warning); strided read it as one index tensor,
    a silently different result (found by PyTorch's own test_indexing.py)."""
    x, tx = st.arange(6.0).reshape(3, 2), torch.arange(6.0).reshape(3, 2)
    if key == "tensors":
        skey, tkey = [st.tensor([0, 1]), st.tensor([1, 0])], [torch.tensor([0, 1]), torch.tensor([1, 0])]
    elif key == "0-d":
        skey, tkey = [st.tensor(0), 1], [torch.tensor(0), 1]
    else:
        skey = tkey = key
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        with warnings.catch_warnings(record=True) as tgot:
            warnings.simplefilter("always")
            expected = tx[tkey]
        result = x[skey]
    assert result.shape == tuple(expected.shape) and result.tolist() == expected.tolist()
    warned = any("non-tuple sequence" in str(w.message) for w in tgot)
    assert warned == any("non-tuple sequence" in str(w.message) for w in got)
    y, ty = x.clone().requires_grad_(), tx.clone().requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z, tz = y.clone(), ty.clone()
        z[skey] = -1.0
        tz[tkey] = -1.0
        assert z.tolist() == tz.tolist()
        (z * y).sum().backward()
        (tz * ty).sum().backward()
    assert y.grad.tolist() == ty.grad.tolist()


def test_a_list_of_32_or_more_is_one_index_even_holding_a_sequence() -> None:
    key = [0, 1] * 16 + [[0]]  # (PyTorch's heuristic stops at 32 items: one ragged index, a TypeError)
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        torch.arange(6.0).reshape(3, 2)[key]
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        st.arange(6.0).reshape(3, 2)[key]
