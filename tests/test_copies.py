"""Copies, writes and the inspection API, compared with PyTorch on hypothesis layouts.

Every layout is laid over an ``arange`` storage in both libraries (tests/layouts.py);
after a write the *whole* storage is compared, so a write that lands in the wrong
place, or a failed write that changed something, shows up.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import Spec, build_strided, build_torch, specs
from oracle_helpers import builtin_class, outcome, same_error, stable_id
from strided.creation import borrow_array  # (any strides: from_numpy refuses negative ones, as PyTorch)
from strided.layout import Layout

SETTINGS = settings(max_examples=150, deadline=None)
OVERLAP_FIRST_LINE = (
    "unsupported operation: more than one element of the written-to tensor refers to a single memory "
    "location. Please clone() the tensor before performing the operation."
)
PARTIAL_FIRST_LINE = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
    "single memory location. Please clone() the tensor before performing the operation."
)


def pair(spec: Spec) -> tuple[torch.Tensor, st.Tensor]:
    return build_torch(spec), build_strided(spec)


def root_t(t: torch.Tensor) -> list:
    """The whole storage under a torch tensor, as a list."""
    n = t.untyped_storage().nbytes() // t.element_size()
    return t.as_strided((n,), (1,), 0).tolist()


def root_s(s: st.Tensor) -> list:
    return s.untyped_storage().array.tolist()


def assert_same_layout(s: st.Tensor, t: torch.Tensor) -> None:
    assert s.shape == tuple(t.shape)
    assert s.stride() == t.stride()
    assert s.storage_offset() == t.storage_offset()
    assert s.tolist() == t.tolist()


def aliased(spec: Spec) -> bool:
    """PyTorch's definite overlap: a dim of size > 1 with stride 0 (and not empty)."""
    return 0 not in spec.shape and any(n > 1 and s == 0 for n, s in zip(spec.shape, spec.strides))


def overlapping(spec: Spec) -> bool:
    """Any two elements at one address (stride 0, or e.g. two dims with one stride).

    PyTorch lets writes into the second kind through ("too hard" to judge); which
    write lands last then depends on the loop order, so such layouts are not compared.
    """
    a = np.ndarray(spec.shape, np.int64, buffer=np.arange(max(spec.storage_size, 1)),
                   offset=spec.offset * 8 if 0 not in spec.shape else 0, strides=[x * 8 for x in spec.strides])
    return np.unique(a).size != a.size


@hs.composite
def broadcastable_shape(draw, target: tuple[int, ...], extra_leading: bool = True) -> tuple[int, ...]:
    """A shape that broadcasts to ``target``: some dims set to 1, some leading dims dropped,
    and (if ``extra_leading``) extra leading size-1 dims."""
    shape = [draw(hs.sampled_from([n, n, 1])) for n in target]
    shape = shape[draw(hs.integers(0, len(shape))):]
    if extra_leading:
        shape = [1] * draw(hs.sampled_from([0, 0, 1, 2])) + shape
    return tuple(shape)


# ---------------------------------------------------------------- inspection API


@given(specs())
@SETTINGS
def test_inspection_matches_torch(spec):
    t, s = pair(spec)
    assert s.shape == tuple(t.shape) and isinstance(s.shape, tuple)
    assert s.ndim == t.ndim and s.dim() == t.dim()
    assert s.dtype.name == "int64" == str(t.dtype).removeprefix("torch.")
    assert s.numel() == t.numel()
    assert s.element_size() == t.element_size()
    assert s.nbytes == t.nbytes
    assert s.stride() == t.stride()
    for d in range(-s.ndim, s.ndim):
        assert s.stride(d) == t.stride(d)
        assert s.size(d) == t.size(d)
    assert s.storage_offset() == t.storage_offset()
    storage_s, storage_t = s.untyped_storage(), t.untyped_storage()
    assert storage_s.nbytes() == storage_t.nbytes()
    assert storage_s.resizable() is True
    if s.numel():
        assert s.data_ptr() - storage_s.data_ptr() == t.data_ptr() - storage_t.data_ptr()
    else:
        assert s.data_ptr() == t.data_ptr() == 0  # an empty tensor has no first element
    assert s.is_contiguous() == t.is_contiguous()
    assert s.is_contiguous(memory_format=st.channels_last) == t.is_contiguous(memory_format=torch.channels_last)
    assert s.is_contiguous(st.contiguous_format) == t.is_contiguous(memory_format=torch.contiguous_format)


@given(specs(min_dims=4, max_dims=4))
@SETTINGS
def test_channels_last_contiguity_4d(spec):
    t, s = pair(spec)
    assert s.is_contiguous(memory_format=st.channels_last) == t.is_contiguous(memory_format=torch.channels_last)


@pytest.mark.parametrize("ndim", [0, 1, 3])
def test_stride_dim_out_of_range(ndim):
    t = torch.zeros((2,) * ndim)
    s = st.zeros((2,) * ndim)
    for d in (ndim, -ndim - 1):
        if ndim == 0:
            continue
        same_error(lambda d=d: t.stride(d), lambda d=d: s.stride(d))


def test_data_ptr_is_first_element():
    s = st.arange(10, dtype="float32")
    v = s[3:]
    assert v.data_ptr() == s.data_ptr() + 3 * 4
    assert v.untyped_storage() is s.untyped_storage()
    assert v.untyped_storage().data_ptr() == s.data_ptr()
    # a negative-step view starts at the last element of the storage
    r = s[::-1]
    assert r.data_ptr() == s.data_ptr() + 9 * 4
    assert r.numpy().__array_interface__["data"][0] == r.data_ptr()


def test_base_and_is_view_like_torch():
    t = torch.arange(12).reshape(3, 4)
    s = st.arange(12).reshape(3, 4)
    t0, s0 = torch.arange(12), st.arange(12)
    assert s0.base is None and not s0.is_view() and t0._base is None
    v_t, v_s = t0.view(3, 4).t()[1:], s0.view(3, 4).t()[1:]
    assert v_t._base is t0 and v_s.base is s0 and v_s.is_view() and v_t._is_view()
    for op in (lambda x: x.clone(), lambda x: x.t().contiguous(), lambda x: x.t().reshape(-1),
               lambda x: x.to(torch.float32 if isinstance(x, torch.Tensor) else st.float32)):
        assert op(t)._base is None
        c = op(s)
        assert c.base is None and not c.is_view()
    # contiguous() of a contiguous view returns the view itself, base unchanged
    assert s[1:].contiguous() is not None and s[1:].contiguous().base is s.base


# ---------------------------------------------------------------- contiguous / clone / to


@given(specs(negative=False))
@SETTINGS
def test_contiguous_matches_torch(spec):
    t, s = pair(spec)
    tc, sc = t.contiguous(), s.contiguous()
    assert (tc is t) == (sc is s)
    assert_same_layout(sc, tc)
    assert sc.is_contiguous()
    if sc is not s:
        assert sc.base is None
        assert not st.shares_memory(sc, s) or s.numel() == 0
        assert sc.untyped_storage().nbytes() == tc.untyped_storage().nbytes()


@given(specs(min_dims=4, max_dims=4))
@SETTINGS
def test_contiguous_channels_last_matches_torch(spec):
    t, s = pair(spec)
    tc = t.contiguous(memory_format=torch.channels_last)
    sc = s.contiguous(memory_format=st.channels_last)
    assert (tc is t) == (sc is s)
    assert_same_layout(sc, tc)
    assert sc.is_contiguous(memory_format=st.channels_last)


def test_channels_last_needs_4d():
    same_error(lambda: torch.zeros(2, 3).contiguous(memory_format=torch.channels_last),
               lambda: st.zeros(2, 3).contiguous(memory_format=st.channels_last), first_line=False)


@given(specs(negative=False))
@SETTINGS
def test_clone_matches_torch(spec):
    t, s = pair(spec)
    for fmt in ("preserve_format", "contiguous_format"):
        tc = t.clone(memory_format=getattr(torch, fmt))
        sc = s.clone(memory_format=getattr(st, fmt))
        assert_same_layout(sc, tc)
        assert sc.base is None and sc is not s
        assert sc.untyped_storage() is not s.untyped_storage()
        assert sc.untyped_storage().nbytes() == tc.untyped_storage().nbytes()


@given(specs(min_dims=4, max_dims=4))
@settings(max_examples=60, deadline=None)
def test_clone_channels_last_matches_torch(spec):
    t, s = pair(spec)
    assert_same_layout(s.clone(memory_format=st.channels_last), t.clone(memory_format=torch.channels_last))


@given(specs(negative=True))
@settings(max_examples=80, deadline=None)
def test_clone_negative_strides_is_dense_copy(spec):
    s = build_strided(spec)
    c = s.clone()
    assert c.tolist() == s.tolist()
    if c.numel():
        assert all(x >= 0 for n, x in zip(c.shape, c.stride()) if n > 1)
    assert c.untyped_storage().size() == s.numel()


@given(specs(), hs.sampled_from(["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
                                 "float64"]))
@SETTINGS
def test_to_matches_torch(spec, name):
    t, s = pair(spec)
    tc = t.to(getattr(torch, name))
    sc = s.to(name)
    assert (tc is t) == (sc is s)
    assert sc.dtype.name == name
    assert_same_layout(sc, tc)
    assert s.to(getattr(st, name), copy=True) is not s


def test_to_bad_dtype():
    with pytest.raises(TypeError, match="unsupported dtype"):
        st.zeros(2).to("complex256")
    assert st.zeros(2).to("complex64").dtype is st.dtypes.complex64  # supported since issue 12


# ---------------------------------------------------------------- ravel / numpy / tolist / item


@given(specs(negative=False))
@SETTINGS
def test_ravel_matches_torch(spec):
    t, s = pair(spec)
    tr, sr = t.ravel(), s.ravel()
    assert_same_layout(sr, tr)
    assert (tr.data_ptr() == t.data_ptr() and t.numel() > 0) == (
        sr.untyped_storage() is s.untyped_storage() and s.numel() > 0
    )


@given(specs(negative=True))
@SETTINGS
def test_numpy_is_zero_copy_and_writable(spec):
    s = build_strided(spec)
    a = s.numpy()
    assert a.shape == s.shape
    assert a.strides == tuple(x * 8 for x in s.stride())
    assert a.flags.writeable
    if s.numel():
        assert a.__array_interface__["data"][0] == s.data_ptr()
        assert np.shares_memory(a, s.untyped_storage().array)
    if not spec.has_negative:
        np.testing.assert_array_equal(a, build_torch(spec).numpy())
    if s.numel() and not aliased(spec):
        idx = tuple(n - 1 for n in s.shape)
        a[idx] = -5
        assert s[idx].item() == -5


@given(specs())
@SETTINGS
def test_tolist_matches_torch(spec):
    t, s = pair(spec)
    assert s.tolist() == t.tolist()
    assert type(s.tolist()) is type(t.tolist())


def test_tolist_python_types():
    for name in ("bool", "int32", "float16", "float64"):
        t = torch.tensor([[1, 0]], dtype=getattr(torch, name))
        s = st.tensor([[1, 0]], dtype=name)
        assert s.tolist() == t.tolist()
        assert [type(x) for x in s.tolist()[0]] == [type(x) for x in t.tolist()[0]]
        assert type(s[0, 0].item()) is type(t[0, 0].item())


@pytest.mark.parametrize("shape", [(2, 3), (0,), (2,), (1, 0)])
def test_item_needs_one_element(shape):
    text = same_error(lambda: torch.zeros(shape).item(), lambda: st.zeros(shape).item())
    assert str(shape) in text


@pytest.mark.parametrize("shape", [(), (1,), (1, 1, 1)])
def test_item_one_element(shape):
    t = torch.full(shape, 7)
    s = st.full(shape, 7)
    assert s.item() == t.item() and type(s.item()) is type(t.item())
    e = st.arange(5)[2:3].expand(1, 1)
    assert e.item() == 2


# ---------------------------------------------------------------- fill_ / zero_


@given(specs(), hs.sampled_from([0, 1, -3, 2.7, True]))
@SETTINGS
def test_fill_and_zero_match_torch(spec, value):
    # PyTorch lets a number fill aliased (expanded) elements: they all get the one value
    t, s = pair(spec)
    assert t.fill_(value) is t
    assert s.fill_(value) is s
    assert root_s(s) == root_t(t)
    t, s = pair(spec)
    t.zero_()
    s.zero_()
    assert root_s(s) == root_t(t)


@given(specs())
@SETTINGS
def test_fill_with_0d_tensor(spec):
    t, s = pair(spec)
    if aliased(spec):
        text = same_error(lambda: t.fill_(torch.tensor(5)), lambda: s.fill_(st.tensor(5)))
        assert "stride 0" in text and "clone()" in text
    else:
        t.fill_(torch.tensor(5))
        s.fill_(st.tensor(5))
    assert root_s(s) == root_t(t)


def _setitem(t, key, value):
    t[key] = value


@pytest.mark.parametrize(
    "peer,ours,details",
    [
        (lambda: len(torch.tensor(1.0)), lambda: len(st.tensor(1.0)), ["shape ()", ".item()"]),
        (lambda: iter(torch.tensor(1.0)), lambda: iter(st.tensor(1.0)), ["shape ()", ".unsqueeze(0)"]),
        (lambda: bool(torch.zeros(2, 3)), lambda: bool(st.zeros(2, 3)), ["shape (2, 3) (6 elements)", ".any()", ".all()"]),
        (lambda: [0, 1][torch.tensor(1.5)], lambda: [0, 1][st.tensor(1.5)], ["float32", ".to(strided.int64)"]),
        (lambda: torch.zeros(3).fill_(torch.ones(3)), lambda: st.zeros(3).fill_(st.ones(3)), ["shape (3,)", "t.copy_(value)"]),
        (lambda: torch.zeros(3).resize_(2, -1), lambda: st.zeros(3).resize_(2, -1), ["size[1] is -1"]),
        (lambda: torch.zeros(3, 4).contiguous(memory_format=torch.channels_last),
         lambda: st.zeros(3, 4).contiguous(memory_format=st.channels_last), ["has 2 dims", ".reshape(...)"]),
        (lambda: _setitem(torch.zeros(2, 2), ..., [[1, 2], [3]]), lambda: _setitem(st.zeros(2, 2), ..., [[1, 2], [3]]),
         ["lengths [2, 1]", "t[i] = row"]),
    ],
)
def test_errors_of_copies_explain_themselves(peer, ours, details):
    """The peer's builtin class, then detail lines with this tensor's numbers and a fix that exists."""
    _, te = outcome(peer)
    _, se = outcome(ours)
    assert te is not None and isinstance(se, st.StridedError), (te, se)
    assert isinstance(se, builtin_class(te)), (te, se)
    first, *rest = str(se).splitlines()
    detail = "\n".join(rest)
    for text in details:
        assert text in detail, f"{text!r} not in:\n{se}"


def test_fill_with_an_element_of_itself_like_torch():
    """fill_(t[1]) reads the value before writing, as PyTorch does (no overlap error)."""
    t, s = torch.arange(5.0), st.arange(5.0)
    t.fill_(t[1])
    s.fill_(s[1])
    assert s.tolist() == t.tolist()


def test_fill_with_nd_tensor_refused():
    same_error(lambda: torch.zeros(2).fill_(torch.ones(2)), lambda: st.zeros(2).fill_(st.ones(2)))


# ---------------------------------------------------------------- copy_


@given(specs(), hs.data())
@SETTINGS
def test_copy_broadcast_matches_torch(spec, data):
    assume(not overlapping(spec) or aliased(spec))
    t, s = pair(spec)
    src_shape = data.draw(broadcastable_shape(spec.shape))
    src_t = -1 - torch.arange(int(np.prod(src_shape, dtype=np.int64))).reshape(src_shape)
    src_s = st.tensor(src_t.numpy())
    before = root_s(s)
    try:
        t.copy_(src_t)
    except RuntimeError as err:
        with pytest.raises(RuntimeError) as info:
            s.copy_(src_s)
        assert str(info.value).splitlines()[0] == str(err).splitlines()[0]
        assert root_s(s) == before
        return
    assert s.copy_(src_s) is s
    assert root_s(s) == root_t(t)


@given(specs(), hs.data())
@SETTINGS
def test_copy_from_a_strided_source_and_other_dtype(spec, data):
    """The source is read in place whatever its layout, and cast (float -> int truncates)."""
    dst_spec = data.draw(specs(max_dims=3))
    assume(not overlapping(dst_spec))
    t, s = pair(dst_spec)
    src_t, src_s = pair(spec)
    src_t = src_t.to(torch.float64) * 0.75
    src_s = st.tensor(src_t.numpy())
    try:
        t.copy_(src_t)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            s.copy_(src_s)
        return
    s.copy_(src_s)
    assert root_s(s) == root_t(t)


@given(specs(max_dims=3), hs.data())
@SETTINGS
def test_copy_between_two_views_of_one_storage(dst_spec, data):
    """PyTorch refuses a dense source that partly overlaps a dense destination; a non-dense
    overlap it does not judge. strided then reads the source as it was before the copy."""
    src_shape = data.draw(broadcastable_shape(dst_spec.shape, extra_leading=False))
    src_spec = data.draw(specs(shape=src_shape))
    size = max(dst_spec.storage_size, src_spec.storage_size, 1)
    root_torch, root_st = torch.arange(size), st.arange(size)
    t_dst = root_torch.as_strided(dst_spec.shape, dst_spec.strides, dst_spec.offset)
    t_src = root_torch.as_strided(src_spec.shape, src_spec.strides, src_spec.offset)
    s_dst = root_st._view(Layout(dst_spec.shape, dst_spec.strides, dst_spec.offset))
    s_src = root_st._view(Layout(src_spec.shape, src_spec.strides, src_spec.offset))
    snapshot = np.broadcast_to(s_src.numpy(), s_dst.shape).copy()
    try:
        t_dst.copy_(t_src)
    except RuntimeError as err:
        with pytest.raises(RuntimeError) as info:
            s_dst.copy_(s_src)
        assert str(info.value).splitlines()[0] == str(err).splitlines()[0]
        assert root_st.tolist() == list(range(size))
        return
    try:
        s_dst.copy_(s_src)
    except st.OverlapWriteError as err:  # (a read PyTorch's loop makes after writing there: refused)
        # (or, into a destination whose elements share memory, any source in the same storage
        # that PyTorch calls too hard to check: its loop's reads after its own writes there are
        # not modelled, so strided refuses rather than guess)
        shared_target = overlapping(dst_spec) and "more than one element of the written-to tensor" in str(err)
        assert ("which it writes at position" in str(err) or shared_target) and st.shares_memory(s_dst, s_src)
        assert root_st.tolist() == list(range(size))
        return
    if overlapping(dst_spec) and not aliased(dst_spec):
        return  # which aliased write lands last is the loop order's choice
    np.testing.assert_array_equal(s_dst.numpy(), snapshot)
    if not overlapping(dst_spec):  # (every element read before PyTorch's loop writes it: its number too)
        assert root_st.tolist() == root_torch.tolist()


@given(specs(negative=True), hs.data())
@SETTINGS
def test_writes_through_negative_strides_match_numpy(spec, data):
    """PyTorch has no negative strides; NumPy is the oracle for writes through them."""
    assume(not overlapping(spec))
    base = np.arange(max(spec.storage_size, 1))
    a = np.ndarray(spec.shape, np.int64, buffer=base, offset=spec.offset * 8 if 0 not in spec.shape else 0,
                   strides=[x * 8 for x in spec.strides])
    s = st.arange(max(spec.storage_size, 1))._view(Layout(spec.shape, spec.strides, spec.offset))
    src_shape = data.draw(broadcastable_shape(spec.shape, extra_leading=False))
    src = -1 - np.arange(int(np.prod(src_shape, dtype=np.int64))).reshape(src_shape)
    a[...] = src
    s.copy_(st.tensor(src))
    assert root_s(s)[: base.size] == base.tolist()
    for op in (lambda x: x.contiguous(), lambda x: x.clone(), lambda x: x.to("float64"), lambda x: x.ravel()):
        np.testing.assert_array_equal(op(s).numpy(), op(borrow_array(a, "from_numpy")).numpy())
        np.testing.assert_array_equal(op(s).numpy().reshape(a.shape), a)
    s.fill_(7)
    a.fill(7)
    assert root_s(s)[: base.size] == base.tolist()


@pytest.mark.parametrize(
    "dst,src",
    [((2,), (3,)), ((2, 3), (3, 2)), ((2,), (1, 1, 2)), ((2,), (2, 1, 2)), ((2,), (3, 2)),
     ((3, 1), (3, 4)), ((0,), (2,)), ((), (2,))],
    ids=repr,
)
def test_copy_broadcast_errors_like_torch(dst, src):
    text = same_error(lambda: torch.zeros(dst).copy_(torch.ones(src)),
                      lambda: st.zeros(dst).copy_(st.ones(src)))
    assert str(tuple(src)) in text


@pytest.mark.parametrize(
    "make",
    [
        lambda x: (x[1:6], x[0:5]),
        lambda x: (x[0:5], x[4:9]),
        lambda x: (x.view(2, 5).t(), x.view(5, 2)),
        lambda x: (x[:4].view(2, 2), x[:4].view(2, 2).t()),
    ],
)
def test_copy_partial_overlap_refused_like_torch(make):
    t_dst, t_src = make(torch.arange(10))
    x = st.arange(10)
    s_dst, s_src = make(x)
    text = same_error(lambda: t_dst.copy_(t_src), lambda: s_dst.copy_(s_src))
    assert PARTIAL_FIRST_LINE == text.splitlines()[0]
    assert "fix: copy the source first: dest.copy_(src.clone())" in text
    assert x.tolist() == list(range(10))
    # through indexing too: the fix is written in the operation's own form
    text = same_error(lambda: t_dst.__setitem__(Ellipsis, t_src), lambda: s_dst.__setitem__(Ellipsis, s_src))
    assert "fix: copy the value first: t[...] = value.clone()" in text and "copy_(" not in text
    assert x.tolist() == list(range(10))


@pytest.mark.parametrize(
    "make",
    [
        lambda x: (x[0:5], x[0:5]),  # full overlap: same elements, same strides
        lambda x: (x[0:5], x[5:10]),  # disjoint
        lambda x: (x[0:6:2], x[1:7:2]),  # not dense: PyTorch does not judge, lets it through
        lambda x: (x[0:5], x[4::-1] if isinstance(x, st.Tensor) else x[0:5].flip(0)),
    ],
)
def test_copy_allowed_overlaps(make):
    t_dst, t_src = make(torch.arange(10))
    x = st.arange(10)
    s_dst, s_src = make(x)
    t_dst.copy_(t_src)
    s_dst.copy_(s_src)
    assert s_dst.tolist() == t_dst.tolist()
    assert root_s(x) == root_t(t_dst)


def test_overlapping_1d_copy_where_torch_reads_after_writing_is_refused():
    # PyTorch does not judge non-dense overlaps: its loop writes x[2] from x[1], then reads x[2]
    # for x[4] ([0, 1, 1, 3, 1]); reading the source first gave [0, 1, 1, 3, 2]: refused instead
    for write in (lambda x: x[::2].copy_(x[:3]), lambda x: x[::2].__setitem__(..., x[:3])):
        x = st.arange(5)
        with pytest.raises(st.OverlapWriteError, match=r"at position \[2\] the op reads storage element 2, "
                           r"which it writes at position \[1\] first"):
            write(x)
        assert x.tolist() == [0, 1, 2, 3, 4]
    # read before PyTorch's loop writes it (x[2] is read for x[1], then written from x[4]): PyTorch's
    # number, the source read first
    for lib in (st, torch):
        y = lib.arange(6)
        y[:3] = y[::2]
        assert y.tolist() == [0, 2, 4, 3, 4, 5]


def test_copy_self_is_noop():
    t = torch.zeros(1).expand(3)
    s = st.zeros(1).expand(3)
    assert t.copy_(t) is t
    assert s.copy_(s) is s
    # another tensor with the very same layout over the same storage: also no copy, no check
    assert t.copy_(t.expand(3)) is t
    assert s.copy_(s.expand(3)) is s
    t[...] = t.expand(3)
    s[...] = s.expand(3)


@pytest.mark.parametrize("value", [5, 2.5, True, np.float64(1.5), np.int32(3)], ids=stable_id)
def test_copy_number(value):
    t = torch.zeros(2, 3, dtype=torch.int16)
    s = st.zeros(2, 3, dtype="int16")
    t.copy_(value)
    s.copy_(value)
    assert s.tolist() == t.tolist()


def test_copy_number_wraps_unchecked_like_torch():
    t = torch.zeros(2, dtype=torch.uint8).copy_(300)
    s = st.zeros(2, dtype="uint8").copy_(300)
    assert s.tolist() == t.tolist() == [44, 44]


@pytest.mark.parametrize("value", [[1, 2], np.ones(2), "a", None], ids=stable_id)
def test_copy_needs_tensor_or_number(value):
    same_error(lambda: torch.zeros(2).copy_(value), lambda: st.zeros(2).copy_(value))


# ---------------------------------------------------------------- writes into expanded tensors


@given(specs(max_dims=3), hs.data())
@SETTINGS
def test_write_into_expanded_refused_like_torch(spec, data):
    assume(0 not in spec.shape)
    t, s = pair(spec)
    k = data.draw(hs.integers(0, len(spec.shape)))
    shape = list(spec.shape)
    shape.insert(k, data.draw(hs.integers(2, 4)))
    t, s = t.unsqueeze(k).expand(shape), s.unsqueeze(k).expand(shape)
    before = root_s(s)
    calls = [
        (lambda: t.copy_(torch.tensor(1)), lambda: s.copy_(st.tensor(1))),
        (lambda: t.copy_(3), lambda: s.copy_(3)),
        (lambda: t.__setitem__(Ellipsis, 1), lambda: s.__setitem__(Ellipsis, 1)),
        (lambda: t.__setitem__(Ellipsis, torch.tensor(2)), lambda: s.__setitem__(Ellipsis, st.tensor(2))),
    ]
    for torch_call, strided_call in calls:
        text = same_error(torch_call, strided_call)
        assert text.splitlines()[0] == OVERLAP_FIRST_LINE
        assert isinstance(pytest.raises(RuntimeError, strided_call).value, st.OverlapWriteError)
        assert "stride 0" in text and "fix:" in text
        assert root_s(s) == before


def test_write_into_expanded_names_the_dims():
    s = st.arange(3).unsqueeze(1).expand(3, 4)
    with pytest.raises(RuntimeError) as info:
        s.copy_(st.zeros(3, 4, dtype="int64"))
    text = str(info.value)
    assert "dim 1 (size 4, stride 0)" in text
    assert "(3, 4)" in text and "(1, 0)" in text
    assert s.tolist() == [[0] * 4, [1] * 4, [2] * 4]


def test_setitem_selecting_a_non_aliased_part_of_expanded_is_allowed():
    t = torch.zeros(2).expand(3, 2)
    s = st.zeros(2).expand(3, 2)
    t[0] = 1
    s[0] = 1
    assert s.tolist() == t.tolist() == [[1.0, 1.0]] * 3


# ---------------------------------------------------------------- t[...] = value


@hs.composite
def basic_keys(draw, shape: tuple[int, ...]):
    """An int/slice/None/Ellipsis key with non-negative steps (so PyTorch can index the same)."""
    key = []
    for n in shape[: draw(hs.integers(0, len(shape)))]:
        kind = draw(hs.sampled_from(["int", "slice", "slice", "none"]))
        if kind == "int" and n > 0:
            key.append(draw(hs.integers(-n, n - 1)))
        elif kind == "none":
            key.append(None)
            key.append(slice(None))
        else:
            start = draw(hs.one_of(hs.none(), hs.integers(-n - 1, n + 1)))
            stop = draw(hs.one_of(hs.none(), hs.integers(-n - 1, n + 1)))
            key.append(slice(start, stop, draw(hs.sampled_from([None, 1, 2, 3]))))
    if draw(hs.booleans()):
        key.insert(draw(hs.integers(0, len(key))), Ellipsis)
    return tuple(key)


@given(specs(), hs.data())
@SETTINGS
def test_setitem_writes_through_views_like_torch(spec, data):
    assume(not overlapping(spec) or aliased(spec))
    t, s = pair(spec)
    key = data.draw(basic_keys(spec.shape))
    try:
        target_shape = tuple(t[key].shape)
    except IndexError:
        with pytest.raises(IndexError):
            s[key] = 1
        return
    kind = data.draw(hs.sampled_from(["scalar", "float", "tensor", "tensor", "0d"]))
    if kind == "scalar":
        v_t = v_s = -9
    elif kind == "float":
        v_t = v_s = -2.5
    elif kind == "0d":
        v_t, v_s = torch.tensor(-4), st.tensor(-4)
    else:
        shape = data.draw(broadcastable_shape(target_shape))
        v_t = -1 - torch.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape)
        v_s = st.tensor(v_t.numpy())
    before = root_s(s)
    try:
        t[key] = v_t
    except RuntimeError as err:
        with pytest.raises(RuntimeError) as info:
            s[key] = v_s
        assert isinstance(info.value, st.StridedError)
        first = str(err).splitlines()[0].replace("torch.LongTensor", "Tensor")
        assert str(info.value).splitlines()[0] == first
        assert root_s(s) == before
        return
    s[key] = v_s
    assert root_s(s) == root_t(t)


@pytest.mark.parametrize(
    "value",
    [[1, 2, 3], [[1, 2, 3]], (4, 5, 6), np.array([7, 8, 9]), np.array([[1.5], [2.5]]), np.float64(2.0), [True]],
    ids=repr,
)
def test_setitem_sequences_and_arrays(value):
    # Note: PyTorch refuses lists and NumPy arrays here (TypeError); strided reads them as tensor(value)
    s = st.zeros(4, 3)
    view = s[1:3]
    view[...] = value
    expected = np.zeros((4, 3), dtype=np.float32)
    expected[1:3] = np.asarray(value)
    np.testing.assert_array_equal(s.numpy(), expected)
    assert view.base is s


@pytest.mark.parametrize("value", [[1, 2], np.ones((3, 2)), [[1, 2, 3], [4, 5, 6], [7, 8, 9]]], ids=stable_id)
def test_setitem_bad_broadcast(value):
    s = st.zeros(4, 3)
    with pytest.raises(RuntimeError) as info:
        s[1:3] = value
    assert isinstance(info.value, st.StridedError)
    assert "expand" in str(info.value)
    assert s.tolist() == [[0.0] * 3] * 4


@pytest.mark.parametrize("value", ["abc", None, object(), [[1, 2], [3]]], ids=stable_id)
def test_setitem_bad_value_type(value):
    s = st.zeros(2, 2)
    with pytest.raises(TypeError) as info:
        s[0] = value
    assert isinstance(info.value, st.StridedError)
    assert s.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_setitem_scalar_overflow_like_torch():
    t = torch.zeros(3, dtype=torch.int8)
    s = st.zeros(3, dtype="int8")
    same_error(lambda: t.__setitem__(0, 200), lambda: s.__setitem__(0, 200))
    same_error(lambda: t.__setitem__(slice(None), 200), lambda: s.__setitem__(slice(None), 200))
    assert s.tolist() == [0, 0, 0]


def test_read_only_numpy_memory_refuses_every_write():
    a = np.arange(4.0)
    a.flags.writeable = False
    s = st.from_numpy(a)
    for call in (lambda: s.fill_(1), lambda: s.zero_(), lambda: s.copy_(st.ones(4, dtype="float64")),
                 lambda: s.__setitem__(0, 1)):
        with pytest.raises(RuntimeError, match="read-only"):
            call()
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]


# ---------------------------------------------------------------- resize_


@given(specs(), hs.lists(hs.integers(0, 5), max_size=4))
@SETTINGS
def test_resize_matches_torch(spec, new_shape):
    t, s = pair(spec)
    new_shape = tuple(new_shape)
    nbytes_before = s.untyped_storage().nbytes()
    ptr_before = s.untyped_storage().data_ptr()
    before = root_s(s)
    assert t.resize_(new_shape) is t
    assert s.resize_(new_shape) is s
    assert s.shape == tuple(t.shape)
    assert s.stride() == t.stride()
    assert s.storage_offset() == t.storage_offset()
    storage = s.untyped_storage()
    assert storage.nbytes() == t.untyped_storage().nbytes()
    n_old = nbytes_before // 8
    assert root_s(s)[:n_old] == before  # old elements kept, grown or not
    if storage.nbytes() == nbytes_before:
        assert storage.data_ptr() == ptr_before  # no reallocation
    if new_shape == spec.shape:
        assert s.stride() == spec.strides


def test_resize_same_sizes_keeps_strides():
    t = torch.arange(6).view(2, 3).t()
    s = st.arange(6).view(2, 3).t()
    t.resize_(3, 2)
    s.resize_(3, 2)
    assert s.stride() == t.stride() == (1, 3)


def test_resize_shrink_keeps_storage_and_bytes():
    s = st.arange(10)
    ptr, nbytes = s.untyped_storage().data_ptr(), s.untyped_storage().nbytes()
    s.resize_(2, 2)
    assert s.untyped_storage().data_ptr() == ptr and s.untyped_storage().nbytes() == nbytes
    assert s.tolist() == [[0, 1], [2, 3]]
    s.resize_(10)
    assert s.tolist() == list(range(10))  # the bytes were still there


def test_resize_grow_is_seen_by_every_view():
    t = torch.arange(6)
    s = st.arange(6)
    tv, sv = t[2:4], s[2:4]
    t.resize_(4, 5)
    s.resize_(4, 5)
    assert s.untyped_storage() is sv.untyped_storage()
    assert s.untyped_storage().nbytes() == t.untyped_storage().nbytes() == 160
    assert sv.data_ptr() - s.data_ptr() == tv.data_ptr() - t.data_ptr()
    assert sv.tolist() == tv.tolist() == [2, 3]
    assert s.reshape(-1)[:6].tolist() == list(range(6))
    sv.fill_(-1)
    assert s[0, 2].item() == -1
    s2 = st.arange(3)
    base = s2.reshape(3)
    view = s2[1:]
    view.resize_(10)
    assert view.storage_offset() == 1 and view.untyped_storage().size() == 11
    assert base.untyped_storage() is view.untyped_storage()
    assert base.tolist() == [0, 1, 2]


def test_resize_refused_for_numpy_memory():
    a = np.arange(4.0)
    s = st.from_numpy(a)
    view = s[1:]
    text = same_error(lambda: torch.from_numpy(np.arange(4.0)).resize_(10), lambda: s.resize_(10))
    assert "from_numpy" in text and "clone()" in text
    assert s.shape == (4,) and view.tolist() == [1.0, 2.0, 3.0]
    assert s.untyped_storage().nbytes() == 32


@pytest.mark.parametrize("bad", [(-1,), (2, -3)], ids=stable_id)
def test_resize_negative(bad):
    s = st.arange(4)
    same_error(lambda: torch.arange(4).resize_(*bad), lambda: s.resize_(*bad), first_line=False)
    assert s.shape == (4,)


def test_resize_bad_type():
    same_error(lambda: torch.zeros(2).resize_(2.5), lambda: st.zeros(2).resize_(2.5), first_line=False)


# ---------------------------------------------------------------- repr and describe

REPR_CASES = [
    lambda m: m.tensor(3),
    lambda m: m.tensor(-7),
    lambda m: m.tensor([1, 2, 3]),
    lambda m: m.tensor([[1, -2], [30, 4]]),
    lambda m: m.tensor([[1.5, 2], [3, 4]]),
    lambda m: m.tensor([True, False]),
    lambda m: m.tensor(True),
    lambda m: m.zeros(2, 0),
    lambda m: m.zeros(0),
    lambda m: m.zeros(1, 1, 0),
    lambda m: m.tensor(2.5),
    lambda m: m.tensor([1e-5, 1.0]),
    lambda m: m.tensor([1e9, 1.0]),
    lambda m: m.tensor([1.0, 2.0]),
    lambda m: m.tensor([-1.0, 100.0]),
    lambda m: m.tensor([[1.12345, -2.5]]),
    lambda m: m.tensor([float("nan"), 1.0, float("inf")]),
    lambda m: m.tensor([0.1, 0.25, -0.5]),
    lambda m: m.tensor([123.456, 7.0]),
    lambda m: m.arange(2000),
    lambda m: m.arange(12).reshape(3, 4),
    lambda m: m.arange(24).reshape(2, 3, 4),
    lambda m: m.tensor([1, 2], dtype=m.int32),
    lambda m: m.tensor([1, 2], dtype=m.uint8),
    lambda m: m.tensor([1.5], dtype=m.float64),
    lambda m: m.tensor([1.5, 2.0], dtype=m.float16),
    lambda m: m.zeros(2, dtype=m.int16),
    lambda m: m.tensor([]),
    lambda m: m.arange(6).reshape(2, 3).t(),
    lambda m: m.tensor((np.arange(10.0) / 3).tolist()),
    lambda m: m.tensor((np.arange(40.0) / 7 - 2).tolist()),
    lambda m: m.arange(3000).reshape(50, 60),
    lambda m: m.arange(2400).reshape(4, 3, 200),
    lambda m: m.tensor([[1e-5, 2.0], [3.0, float("-inf")]], dtype=m.float64),
    lambda m: m.tensor([1.0, float("nan"), 2e8]),
    lambda m: m.tensor([float("nan")]),
    lambda m: m.tensor([0.0, -0.0]),
    lambda m: m.tensor([[True], [False]]),
    lambda m: m.zeros(0, dtype=m.int64),
    lambda m: m.zeros(2, 0, dtype=m.bool),
    lambda m: m.tensor([-(2**40), 5]),
    lambda m: m.tensor([1, 200], dtype=m.uint8),
    lambda m: m.tensor(0.001),
    lambda m: m.tensor([65504.0, -1.5], dtype=m.float16),
    lambda m: m.arange(1200.0),
]


def same_repr(ours: str, theirs: str) -> bool:
    """Equal up to the dtype's name: "strided.float64" is 2 characters longer than
    "torch.float64", which can move the dtype suffix onto its own line (PyTorch wraps at 80)."""

    def norm(text: str) -> str:
        return re.sub(r",\s*\n\s*(dtype|size)=", r", \1=", text)

    return norm(ours) == norm(theirs.replace("torch.", "strided."))


@pytest.mark.parametrize("case", range(len(REPR_CASES)))
def test_repr_matches_torch(case):
    make = REPR_CASES[case]
    assert same_repr(repr(make(st)), repr(make(torch)))


def test_describe():
    x = st.arange(12).reshape(3, 4)
    text = x.t().describe()
    assert "shape (4, 3)" in text and "strides (1, 4)" in text and "storage offset 0" in text
    assert "contiguous: no" in text and "transpose" in text
    assert "view of a tensor with shape (12,)" in text
    assert "owns its storage" in st.zeros(2).describe()
    e = x[:, :1].expand(3, 5).describe()
    assert "expanded" in e and "stride 0" in e
    assert "contiguous: yes" in x.describe()


@given(
    hs.sampled_from(["float32", "float64", "float16", "int64", "int32", "uint8", "bool"]),
    hs.lists(hs.integers(0, 4), min_size=0, max_size=3),
    hs.data(),
)
@SETTINGS
def test_repr_fuzz_matches_torch(name, shape, data):
    shape = tuple(shape)
    n = int(np.prod(shape, dtype=np.int64))
    if name.startswith("float"):
        pool = [0.0, 1.0, -2.0, 0.5, 3.25, 1e-5, 123456.0, 1e9, -0.001, float("nan"), float("inf"), 7.0]
    elif name == "bool":
        pool = [True, False]
    else:
        pool = [0, 1, 7, 42, 255] + ([-3, -100000] if name != "uint8" else [])
    values = data.draw(hs.lists(hs.sampled_from(pool), min_size=n, max_size=n))
    with np.errstate(over="ignore"):  # 1e9 is inf in float16, in both libraries
        array = np.array(values, dtype=name).reshape(shape)
    assert same_repr(repr(st.tensor(array)), repr(torch.from_numpy(array.copy())))
