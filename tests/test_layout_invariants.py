"""Layout invariants: one validation (check_layout), kept by every view op, read back correctly.

Regression tests for R2-03, R2-12, R2-13, R2-14, R2-25 and R2-26 (compared live with torch
where torch can run them), a pure-layout property test of the validation itself, and a fuzz
of random view chains that checks the invariants after each step and reads the values back.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided import layout as L
from strided.errors import StridedError, StridedRuntimeError, StridedTypeError
from strided.layout import INT64_MAX, MAX_DIMS, Layout, check_layout

# ---------------------------------------------------------------- helpers


def expected_values(storage: np.ndarray, lay: Layout) -> np.ndarray:
    """The values a layout addresses, computed as offset + sum(i * stride) (no NumPy views)."""
    idx = np.full(lay.shape, lay.offset, dtype=object)
    for d, (n, s) in enumerate(zip(lay.shape, lay.strides)):
        shape = [1] * len(lay.shape)
        shape[d] = n
        idx = idx + (np.arange(n, dtype=object) * s).reshape(shape)
    flat = storage.reshape(-1)
    return np.vectorize(lambda i: flat[i], otypes=[storage.dtype])(idx) if idx.size else \
        np.zeros(lay.shape, storage.dtype)


def assert_reads(t: st.Tensor) -> None:
    """tolist, + 1.0 and sum read exactly the elements the layout addresses."""
    t.layout.check(t.untyped_storage().size())
    want = expected_values(t.untyped_storage().array, t.layout)
    # (NaN-aware: a resize_ grows storage with uninitialized bytes, which may read as NaN)
    np.testing.assert_array_equal(np.array(t.tolist()).reshape(want.shape), want)
    np.testing.assert_array_equal(np.array((t + 1.0).tolist()).reshape(want.shape), want + 1.0)
    np.testing.assert_array_equal(float(t.sum()), float(want.sum()))


def raises(exc: type, *words: str):
    """pytest.raises for a strided error of builtin class ``exc`` whose text names ``words``."""
    class _Check:
        def __enter__(self):
            self.cm = pytest.raises(exc)
            self.info = self.cm.__enter__()
            return self.info

        def __exit__(self, *a):
            out = self.cm.__exit__(*a)
            assert isinstance(self.info.value, StridedError), type(self.info.value)
            for w in words:
                assert w in str(self.info.value), (w, str(self.info.value))
            return out

    return _Check()


# ---------------------------------------------------------------- R2-03 negative offsets


def test_r2_03_empty_slice_of_reversed_view_keeps_offset_non_negative():
    e = st.arange(10.)[::-1][10:]
    assert e.storage_offset() >= 0 and e.shape == (0,)
    assert st.arange(10.)[::-1].narrow(0, 10, 0).storage_offset() >= 0
    m = st.arange(50.).view(5, 10)[::-1]
    e = m[5:]
    assert e.storage_offset() == 40  # kept: the reversed view's own offset
    e.resize_(5)
    # e now addresses storage elements 40..44, exactly what it reads
    assert e.tolist() == [40.0, 41.0, 42.0, 43.0, 44.0]
    assert (e + 1.0).tolist() == [41.0, 42.0, 43.0, 44.0, 45.0]
    assert e.data_ptr() - e.untyped_storage().data_ptr() == 40 * 4


def test_r2_03_fuzz_repro_reads_what_it_addresses():
    w = st.arange(60.).view(3, 4, 5)[:, -1:0:-2, :][:, 2:2, :]
    assert w.storage_offset() >= 0
    w = w.unsqueeze(0)
    w.resize_(3)
    assert_reads(w)


def test_r2_03_positive_strides_still_move_the_offset_like_torch():
    for key in (slice(10, None), slice(4, 4), slice(7, 3)):
        assert st.arange(10.)[key].storage_offset() == torch.arange(10.)[key].storage_offset()
    assert st.arange(10.).narrow(0, 10, 0).storage_offset() == torch.arange(10.).narrow(0, 10, 0).storage_offset()


def test_r2_03_empty_unfold_windows_of_reversed_view_stay_in_storage():
    x = st.arange(10.)[::-1].unfold(0, 0, 1)
    assert x.shape == tuple(torch.arange(10.).unfold(0, 0, 1).shape)
    x.layout.check()
    y = x.select(0, 10)
    assert y.storage_offset() >= 0
    y.resize_(2)
    assert_reads(y)


def test_r2_03_resize_refuses_a_layout_reaching_before_storage_and_changes_nothing():
    t = st.arange(6.)
    with raises(RuntimeError, "invalid storage offset", "fix"):
        Layout((3,), (-2,), 1)
    with raises(RuntimeError, "numel: integer multiplication overflow"):
        t.resize_(2**62, 2**62)
    with pytest.raises(RuntimeError) as torch_err:
        torch.ones(1).resize_(2**62, 2**62)
    assert "numel: integer multiplication overflow" in str(torch_err.value)
    with raises(RuntimeError, "Storage size calculation overflowed"):
        t.resize_(2**62)
    assert t.shape == (6,) and t.untyped_storage().size() == 6 and t.tolist() == [0, 1, 2, 3, 4, 5]


# ---------------------------------------------------------------- R2-12 strides NumPy cannot hold


def test_r2_12_one_element_views_with_huge_strides_read_like_torch():
    assert st.arange(10)[::2**62].tolist() == torch.arange(10)[::2**62].tolist() == [0]
    assert st.arange(10)[::2**62].stride() == torch.arange(10)[::2**62].stride()
    s = st.ones(1, dtype=st.float64).as_strided((1,), (2**62,))
    tt = torch.ones(1, dtype=torch.float64).as_strided((1,), (2**62,))
    assert float(s.sum()) == float(tt.sum()) == 1.0
    assert st.arange(10.).unfold(0, 1, 2**62).tolist() == torch.arange(10.).unfold(0, 1, 2**62).tolist()
    # Note: torch gives [] for a step beyond int64 (it clamps the step, then miscounts); NumPy
    # and strided clamp it and keep the one element.
    big = st.arange(10)[::2**100]
    assert big.tolist() == np.arange(10)[::2**100].tolist() == [0]
    assert big.stride() == (INT64_MAX,)
    assert st.arange(10)[::-(2**100)].tolist() == [9]


def test_r2_12_empty_layout_with_huge_strides_reads_as_empty():
    e = st.ones(1).as_strided((0, 10), (1, 2**62))
    assert e.tolist() == torch.ones(1).as_strided((0, 10), (1, 2**62)).tolist() == []
    assert float(e.sum()) == 0.0


# ---------------------------------------------------------------- R2-13 int64 overflow


def test_r2_13_expand_past_int64_elements_is_refused_like_torch():
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        torch.ones(1, 1).expand(2**62, 2**62)
    with raises(RuntimeError, "numel: integer multiplication overflow", "elements", "fix"):
        st.ones(1, 1).expand(2**62, 2**62)
    with raises(RuntimeError, "numel: integer multiplication overflow"):
        st.ones(1).as_strided((2**62, 2**62), (0, 0))
    assert st.ones(1, 1).expand(0, 2**62).shape == tuple(torch.ones(1, 1).expand(0, 2**62).shape)


def test_r2_13_sizes_beyond_int64_refused_with_torch_class():
    with pytest.raises(TypeError):
        torch.ones(1).as_strided((2**70,), (0,))
    with raises(TypeError, "Overflow when unpacking long long"):
        st.ones(1).as_strided((2**70,), (0,))
    with raises(TypeError, "Overflow when unpacking long long"):
        st.ones(1).as_strided((1,), (2**70,))
    with pytest.raises(ValueError):
        torch.ones(1).as_strided((1,), (1,), 2**70)
    with raises(ValueError, "Overflow when unpacking long long"):
        st.ones(1).as_strided((1,), (1,), 2**70)
    with raises(RuntimeError, "Storage size calculation overflowed"):
        st.ones(1).as_strided((2,), (INT64_MAX,))


def test_r2_13_huge_expanded_tensor_fills_and_explains_what_numpy_cannot_hold():
    z = st.ones(3).expand(2**61, 3)
    tz = torch.ones(3).expand(2**61, 3)
    assert z.shape == tuple(tz.shape) and z.stride() == tz.stride()
    z.fill_(2.0)
    assert z[0].tolist() == z[2**61 - 1].tolist() == [2.0, 2.0, 2.0]
    z.zero_()
    assert z.untyped_storage().array.tolist() == [0.0, 0.0, 0.0]
    for read in (lambda: z.sum(), lambda: z.max(0), lambda: z.clone()):
        with raises(RuntimeError, "cannot be computed with NumPy", "fix"):
            read()


def test_fill_of_empty_expanded_tensor_writes_nothing():
    t = st.zeros(3)
    t.expand(0, 3).fill_(5.0)
    t[:0].expand(4, 0).fill_(5.0)
    assert t.tolist() == [0.0, 0.0, 0.0]


# ---------------------------------------------------------------- R2-14 more than 64 dims


def test_r2_14_more_than_64_dims_refused_where_the_layout_is_made():
    t = st.ones(1)
    for _ in range(MAX_DIMS - 1):
        t = t.unsqueeze(0)
    assert t.ndim == MAX_DIMS and float(t.sum()) == 1.0 and t.clone().ndim == MAX_DIMS
    makers = [
        lambda: t.unsqueeze(0),
        lambda: t[None],
        lambda: t.expand((1,) * (MAX_DIMS + 1)),
        lambda: t.view((1,) * (MAX_DIMS + 1)),
        lambda: t.reshape((1,) * (MAX_DIMS + 1)),
        lambda: t.unfold(0, 1, 1),
        lambda: st.ones(1).as_strided((1,) * 65, (1,) * 65),
        lambda: st.ones(1).resize_((1,) * 65),
    ]
    for make in makers:
        with raises(RuntimeError, "maximum supported dimension", "64", "fix", ".reshape"):
            make()
    assert t.ndim == MAX_DIMS  # unchanged by the failed calls


# ---------------------------------------------------------------- R2-25 immutable layouts


def test_r2_25_layout_fields_cannot_be_assigned():
    t = st.arange(6.)
    for view in (t.t(), t.squeeze(), t.transpose(0, 0), st.reshape(t, t.shape)):
        for field, value in (("offset", 3), ("shape", (100,)), ("strides", (2,))):
            with pytest.raises(AttributeError, match="immutable"):
                setattr(view.layout, field, value)
        with pytest.raises(AttributeError, match="immutable"):
            del view.layout.offset
    assert t.storage_offset() == 0 and t.shape == (6,) and (t + 1.0).shape == (6,)


def test_layout_pickles_and_copies_as_a_value():
    lay = st.arange(12.).view(3, 4)[::-1, 1:].layout
    for other in (pickle.loads(pickle.dumps(lay)), copy.copy(lay), copy.deepcopy(lay)):
        assert other == lay and type(other) is Layout
        with pytest.raises(AttributeError):
            other.offset = 0


# ---------------------------------------------------------------- R2-26 describe words


def test_r2_26_overlapping_windows_are_called_overlapping():
    text = st.ones(10).unfold(0, 3, 1).describe()
    assert "overlapping" in text and "gaps" not in text
    assert "gaps" in st.ones(10)[::2].describe()
    assert "overlapping" not in st.ones(12).unfold(0, 3, 3).describe()
    assert L.overlaps((8, 3), (1, 1)) is True
    assert L.overlaps((2, 2), (3, 2)) is False  # not nested, yet no two elements share memory
    assert L.overlaps((3, 4), (4, 1)) is False


# ---------------------------------------------------------------- the validation itself (pure)

_INT = hs.one_of(hs.integers(-5, 12), hs.sampled_from([2**62, INT64_MAX, 2**63, -(2**63), 2**70]))


@settings(max_examples=400, deadline=None)
@given(
    shape=hs.lists(_INT, max_size=4),
    strides=hs.lists(_INT, max_size=4),
    offset=_INT,
    storage=hs.one_of(hs.none(), hs.integers(0, 40)),
)
def test_check_layout_accepts_exactly_the_valid_layouts(shape, strides, offset, storage):
    """check_layout agrees with a brute-force statement of the invariants."""
    shape, strides = tuple(shape), tuple(strides)
    numel = 1
    for n in shape:
        numel *= n
    ok = (
        len(shape) == len(strides)
        and all(0 <= n <= INT64_MAX for n in shape)
        and all(-(2**63) <= s <= INT64_MAX for s in strides)
        and 0 <= offset <= INT64_MAX
        and numel <= INT64_MAX
    )
    if ok:
        frame = [offset + sum(i * s for i, s in zip(idx, strides))
                 for idx in _corners([max(n, 1) for n in shape])]
        ok = min(frame) >= 0
        if ok and numel:
            high = max(offset + sum(i * s for i, s in zip(idx, strides)) for idx in _corners(shape))
            ok = high + 1 <= INT64_MAX and (storage is None or high < storage)
    try:
        check_layout(shape, strides, offset, storage)
    except (StridedRuntimeError, StridedTypeError, ValueError) as err:
        assert isinstance(err, StridedError)
        assert not ok, err
    else:
        assert ok


def _corners(shape):
    """Every corner index of a box (enough for extremes of a linear function)."""
    out = [()]
    for n in shape:
        out = [c + (i,) for c in out for i in {0, n - 1}]
    return out


def test_layout_constructor_validates_and_normalizes():
    assert Layout([2, np.int64(3)], (3, 1), np.int32(1)) == Layout((2, 3), (3, 1), 1)
    assert type(Layout([2], [1]).shape) is tuple
    with raises(TypeError, "must be tuple of ints"):
        Layout(3, (1,))
    with raises(RuntimeError, "mismatch in length"):
        Layout((2, 3), (1,))
    with raises(RuntimeError, "negative dimension"):
        Layout((-1,), (1,))
    with raises(RuntimeError, "invalid storage offset -1"):
        Layout((1,), (1,), -1)
    with raises(RuntimeError, "maximum supported dimension"):
        Layout((1,) * 65, (1,) * 65)
    with raises(RuntimeError, "out of bounds for storage"):
        Layout((3,), (2,), 1).check(5)
    assert Layout((3,), (2,), 0).check(5).numel == 3


# ---------------------------------------------------------------- fuzz of view chains


def _step(draw, t: st.Tensor) -> st.Tensor:
    """One random view op on ``t`` (resize_ included), drawn to be valid or skipped."""
    op = draw(hs.sampled_from(
        ["slice", "narrow", "expand", "permute", "unsqueeze", "diagonal", "unfold", "as_strided",
         "resize_", "select", "huge_step"]))
    nd, shape = t.ndim, t.shape
    if op == "slice" and nd:
        d = draw(hs.integers(0, nd - 1))
        key = [slice(None)] * nd
        n = shape[d]
        key[d] = slice(draw(hs.integers(-n - 2, n + 2)), draw(hs.integers(-n - 2, n + 2)),
                       draw(hs.sampled_from([1, 2, 3, -1, -2, -3])))
        return t[tuple(key)]
    if op == "huge_step" and nd:
        d = draw(hs.integers(0, nd - 1))
        key = [slice(None)] * nd
        key[d] = slice(None, None, draw(hs.sampled_from([2**62, -(2**62), 2**100])))
        return t[tuple(key)]
    if op == "narrow" and nd:
        d = draw(hs.integers(0, nd - 1))
        start = draw(hs.integers(0, shape[d]))
        return t.narrow(d, start, draw(hs.integers(0, shape[d] - start)))
    if op == "select" and nd and 0 not in shape[:1]:
        return t.select(0, draw(hs.integers(0, shape[0] - 1)))
    if op == "expand" and nd < 5:
        sizes = [draw(hs.sampled_from([n, 3, 0])) if n == 1 else n for n in shape]
        return t.expand(*([draw(hs.integers(0, 2))] + sizes))
    if op == "permute" and nd:
        return t.permute(*draw(hs.permutations(range(nd))))
    if op == "unsqueeze" and nd < 5:
        return t.unsqueeze(draw(hs.integers(0, nd)))
    if op == "diagonal" and nd >= 2:
        return t.diagonal(draw(hs.integers(-3, 3)), 0, 1)
    if op == "unfold" and nd and nd < 5:
        d = draw(hs.integers(0, nd - 1))
        return t.unfold(d, draw(hs.integers(0, shape[d])), draw(hs.integers(1, 3)))
    if op == "as_strided":
        size = tuple(draw(hs.lists(hs.integers(0, 3), max_size=3)))
        stride = tuple(draw(hs.integers(0, 3)) for _ in size)
        offset = draw(hs.integers(0, 4))
        try:
            return t.as_strided(size, stride, offset)
        except RuntimeError as err:  # out of this storage: refused, and said so
            assert "out of bounds" in str(err)
            return t
    if op == "resize_":
        old_n, before = t.untyped_storage().size(), t.layout
        try:
            t = t.resize_(*draw(hs.lists(hs.integers(0, 4), max_size=3)))
        except RuntimeError as err:
            # an offset moved far by an empty view of a huge step: torch refuses the same way
            assert "Storage size calculation overflowed" in str(err)
            assert t.layout == before and t.untyped_storage().size() == old_n
            return t
        grown = t.untyped_storage().array
        grown[old_n:] = np.arange(old_n, grown.shape[0])  # new memory is uninitialized: keep arange
        return t
    return t


@settings(max_examples=200, deadline=None)
@given(data=hs.data())
def test_random_view_chains_keep_the_invariants_and_read_their_own_elements(data):
    t = st.arange(60.).view(3, 4, 5)
    for _ in range(data.draw(hs.integers(1, 8))):
        t = _step(data.draw, t)
        lay = t.layout
        lay.check(t.untyped_storage().size())
        assert lay.offset >= 0 and lay.ndim <= MAX_DIMS
        if t.numel() <= 2000:
            assert_reads(t)


def test_resize_of_an_offset_moved_past_int64_bytes_is_refused_like_torch():
    # found by the chain fuzz: an empty narrow after a 2**62 step moves the offset to 2**62
    s, t = st.arange(4.0), torch.arange(4.0)
    s.resize_(1)
    t.resize_(1)
    s, t = s[:: 2**62].narrow(0, 1, 0), t[:: 2**62].narrow(0, 1, 0)
    assert s.storage_offset() == t.storage_offset() == 2**62
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed") as peer:
        t.resize_(())
    with pytest.raises(st.StridedRuntimeError) as ours:
        s.resize_(())
    assert str(ours.value).splitlines()[0].startswith(str(peer.value).splitlines()[0])
    assert s.shape == (0,) and s.storage_offset() == 2**62
