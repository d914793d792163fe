"""The NumPy-style module functions, compared with NumPy on hypothesis layouts (negative strides included).

Each layout is built twice over one ``arange`` storage (NumPy and strided) and the
same call is made on both. Compared: shape, values, view-or-copy (does the result
share memory with the input's storage?), strides, error class and first line.

Strides may differ in exactly two places, both invisible to element addressing:
  * size-1 dims: NumPy's ``_attempt_nocopy_reshape`` gives trailing size-1 dims a
    "last stride" and fresh arrays dense ones; neither is ever multiplied by an index > 0;
  * zero-size arrays: NumPy 2 gives fresh empty arrays all-zero strides; nothing is addressed.
``assert_same_strides`` below is where that exception is written down.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import Spec, build_numpy, build_strided, specs
from oracle_helpers import same_error
from strided.layout import Layout

SETTINGS = settings(max_examples=150, deadline=None)


def pair(spec: Spec) -> tuple[np.ndarray, st.Tensor]:
    return build_numpy(spec), build_strided(spec)


def element_strides(a: np.ndarray) -> tuple[int, ...]:
    return tuple(s // a.itemsize for s in a.strides)


def assert_same_strides(s: st.Tensor, a: np.ndarray) -> None:
    """Equal strides, except for size-1 dims and zero-size arrays (see the module docstring)."""
    assert s.shape == a.shape
    if a.size == 0:
        return
    for n, got, want in zip(a.shape, s.stride(), element_strides(a)):
        if n != 1:
            assert got == want, (s.stride(), element_strides(a), a.shape)


def assert_same_result(s: st.Tensor, a: np.ndarray, s_in: st.Tensor, a_in: np.ndarray) -> None:
    """Same shape, values, strides (modulo the exception) and view-or-copy decision."""
    assert s.shape == a.shape
    np.testing.assert_array_equal(s.numpy(), a)
    assert_same_strides(s, a)
    np_view = np.shares_memory(a, a_in)
    st_view = s.untyped_storage() is s_in.untyped_storage()
    if a.size and a_in.size:
        assert st_view == np_view, ("view" if np_view else "copy", "expected")
        assert st.shares_memory(s, s_in) == np_view
        if np_view:  # a view starts at the same element
            base = a_in.base if a_in.base is not None else a_in
            start = (a.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // a.itemsize
            assert s.storage_offset() == start
            assert s.base is (s_in.base if s_in.base is not None else s_in)
        else:
            assert s.base is None
            assert s.storage_offset() == 0


@hs.composite
def new_shapes(draw, numel: int) -> tuple[int, ...]:
    """A shape with ``numel`` elements (sometimes with one -1, sometimes with size-1 dims), or
    occasionally a wrong one."""
    if draw(hs.integers(0, 9)) == 0:
        return tuple(draw(hs.lists(hs.integers(0, 6), max_size=3)))
    factors = []
    n = numel
    for p in (2, 3, 5, 7):
        while n % p == 0 and n > 1:
            factors.append(p)
            n //= p
    if n > 1:
        factors.append(n)
    factors = draw(hs.permutations(factors))
    shape: list[int] = []
    for f in factors:
        if shape and draw(hs.booleans()):
            shape[-1] *= f
        else:
            shape.append(f)
    if numel == 0:
        shape = [0] + draw(hs.lists(hs.sampled_from([1, 2, 3]), max_size=2))
        shape = draw(hs.permutations(shape))
    for _ in range(draw(hs.integers(0, 2))):
        shape.insert(draw(hs.integers(0, len(shape))), 1)
    if shape and numel and draw(hs.booleans()):
        shape[draw(hs.integers(0, len(shape) - 1))] = -1
    return tuple(shape)


# ---------------------------------------------------------------- reshape


@given(specs(negative=True), hs.data(), hs.sampled_from(["C", "F", "A"]), hs.sampled_from([None, True, False]))
@SETTINGS
def test_reshape_matches_numpy(spec, data, order, copy):
    a, s = pair(spec)
    shape = data.draw(new_shapes(a.size))
    try:
        expected = np.reshape(a, shape, order=order, copy=copy)
    except ValueError as err:
        with pytest.raises(ValueError) as info:
            st.reshape(s, shape, order=order, copy=copy)
        assert isinstance(info.value, st.StridedError)
        assert str(info.value).splitlines()[0] == str(err).splitlines()[0]
        return
    got = st.reshape(s, shape, order=order, copy=copy)
    assert_same_result(got, expected, s, a)
    if copy is True:
        assert got.base is None and not st.shares_memory(got, s)


@given(specs(negative=True), hs.sampled_from(["C", "F", "A"]))
@SETTINGS
def test_reshape_copy_false_refuses_exactly_when_numpy_does(spec, order):
    a, s = pair(spec)
    for shape in ((-1,), (a.size, 1), tuple(reversed(a.shape)), (1,) + a.shape):
        try:
            np.reshape(a, shape, order=order, copy=False)
        except ValueError as err:
            text = same_error(lambda sh=shape: np.reshape(a, sh, order=order, copy=False),
                              lambda sh=shape: st.reshape(s, sh, order=order, copy=False))
            assert str(err) in text
            assert "copy=None" in text and "ascontiguousarray" in text
            assert str(s.shape) in text and str(s.stride()) in text
            continue
        got = st.reshape(s, shape, order=order, copy=False)
        assert got.untyped_storage() is s.untyped_storage()


def _same_view(perm, key, shape):
    """The same view of arange(24) in NumPy and strided: reshape, permute, index."""
    a = np.arange(24).reshape(shape).transpose(perm)[key]
    s = st.arange(24).reshape(shape).permute(perm)[key]
    return a, s


RESHAPE_CASES = [
    # (parent shape, permutation, index, new shape, order)
    ((2, 3, 4), (1, 0, 2), (), (3, 8), "C"),  # merges the last two dims: view
    ((2, 3, 4), (1, 0, 2), (), (6, 4), "C"),  # would merge swapped dims: copy
    ((2, 3, 4), (2, 1, 0), (), (24,), "F"),  # F-contiguous: view
    ((2, 3, 4), (2, 1, 0), (), (24,), "A"),  # A picks F for an F-only array
    ((2, 3, 4), (2, 1, 0), (), (4, 6), "C"),
    ((4, 6), (0, 1), (slice(None), slice(None, None, 2)), (12,), "C"),
    ((4, 6), (0, 1), (slice(None, None, -1),), (2, 12), "C"),  # reversed rows: copy
    ((4, 6), (0, 1), (slice(None), slice(None, None, -1)), (4, 2, 3), "C"),  # reversed in rows: view
    ((4, 6), (0, 1), (slice(None, None, -1), slice(None, None, -1)), (24,), "C"),
    ((4, 6), (0, 1), (slice(None, None, -1), slice(None, None, -1)), (6, 4), "F"),
    ((4, 1, 6), (0, 1, 2), (Ellipsis, slice(1, 4)), (2, 2, 3), "C"),
    ((4, 6), (1, 0), (), (3, 2, 4), "F"),
    ((24,), (0,), (slice(0, 1),), (), "C"),
    ((24,), (0,), (slice(3, 4),), (1, 1, 1), "F"),
    ((24,), (0,), (slice(0, 0),), (0, 5), "C"),
    ((24,), (0,), (slice(0, 0),), (5, -1), "F"),
    ((2, 3, 4), (0, 1, 2), (slice(None), slice(0, 1)), (2, 4), "C"),  # size-1 dim dropped: view
    ((2, 3, 4), (0, 1, 2), (slice(None), slice(0, 1)), (2, 1, 1, 4, 1), "F"),
    ((2, 3, 4), (2, 0, 1), (slice(None, None, -2),), (2, 6), "A"),
]


@pytest.mark.parametrize("case", RESHAPE_CASES, ids=repr)
def test_reshape_named_cases(case):
    parent, perm, key, shape, order = case
    a, s = _same_view(perm, key, parent)
    for copy in (None, True):
        got = st.reshape(s, shape, order=order, copy=copy)
        assert_same_result(got, np.reshape(a, shape, order=order, copy=copy), s, a)


def test_reshape_size1_strides_follow_numpy_not_torch():
    # transposed (3, 1) -> (3,): NumPy keeps the real stride; trailing size-1 dims get the last stride
    a = np.arange(12).reshape(3, 4)[:, :1]
    s = st.arange(12).reshape(3, 4)[:, :1]
    for shape in ((3,), (3, 1), (1, 3, 1)):
        got, want = st.reshape(s, shape), np.reshape(a, shape)
        assert got.stride() == element_strides(want)


@pytest.mark.parametrize(
    "shape",
    [(4,), (-1, -1), (-1, 4), (0, -1), (2, 4), (7,), (), (3, 0), (-1, 5)],
    ids=repr,
)
def test_reshape_bad_shapes_like_numpy(shape):
    a, s = np.arange(6), st.arange(6)
    text = same_error(lambda: np.reshape(a, shape), lambda: st.reshape(s, shape))
    assert "(6,)" in text or "unknown" in text


def test_reshape_zero_size_bad_shapes_like_numpy():
    a, s = np.zeros((0, 3)), st.zeros(0, 3, dtype="float64")
    for shape in ((-1, 0), (0, -1)):
        same_error(lambda sh=shape: np.reshape(a, sh), lambda sh=shape: st.reshape(s, sh))
    assert st.reshape(s, (2, -1)).shape == np.reshape(a, (2, -1)).shape == (2, 0)


def test_reshape_any_negative_is_unknown_like_numpy():
    a, s = np.arange(6), st.arange(6)
    assert st.reshape(s, (-2, 3)).shape == np.reshape(a, (-2, 3)).shape == (2, 3)


@pytest.mark.parametrize("bad", [(2.5,), (2, "3"), (2, None)], ids=repr)
def test_reshape_bad_types_like_numpy(bad):
    a, s = np.arange(6), st.arange(6)
    same_error(lambda: np.reshape(a, bad), lambda: st.reshape(s, bad), first_line=False)


def test_reshape_bad_order_like_numpy():
    a, s = np.arange(6), st.arange(6)
    for order in ("K", "X", 3):
        same_error(lambda o=order: np.reshape(a, 6, order=o), lambda o=order: st.reshape(s, 6, order=o),
                   first_line=False)


def test_reshape_copy_argument_like_numpy():
    a, s = np.arange(6)[::2], st.arange(6)[::2]
    same_error(lambda: np.reshape(a, (3, 1), copy="x"), lambda: st.reshape(s, (3, 1), copy="x"))
    for copy in (1, 0, np.bool_(True), np.bool_(False)):
        got = st.reshape(s, (3, 1), copy=copy)
        expected = np.reshape(a, (3, 1), copy=copy)
        assert (got.untyped_storage() is s.untyped_storage()) == np.shares_memory(expected, a)


def test_reshape_int_and_list_shapes():
    a, s = np.arange(6), st.arange(6)
    assert st.reshape(s, 6).shape == np.reshape(a, 6).shape
    assert st.reshape(s, [2, np.int64(3)]).shape == (2, 3)


# ---------------------------------------------------------------- ravel


@given(specs(negative=True), hs.sampled_from(["C", "F", "A", "K"]))
@SETTINGS
def test_ravel_matches_numpy(spec, order):
    a, s = pair(spec)
    expected = np.ravel(a, order=order)
    got = st.ravel(s, order=order)
    assert got.ndim == 1
    assert_same_result(got, expected, s, a)


def test_ravel_named_cases():
    base = np.arange(24).reshape(2, 3, 4)
    x = st.arange(24).reshape(2, 3, 4)
    for key in [
        (slice(None, None, -1),),
        (Ellipsis, slice(None, None, -1)),
        (slice(None), slice(None, None, -1), slice(None, None, 2)),
        (0,),
        (slice(None), 1),
    ]:
        for perm in [(0, 1, 2), (2, 1, 0), (1, 2, 0)]:
            a = base.transpose(perm)[key]
            s = x.permute(perm)[key]
            for order in "CFAK":
                assert_same_result(st.ravel(s, order=order), np.ravel(a, order=order), s, a)


def test_ravel_bad_order():
    same_error(lambda: np.ravel(np.arange(3), order="X"), lambda: st.ravel(st.arange(3), order="X"))


# ---------------------------------------------------------------- broadcast_to / broadcast_shapes


@given(specs(negative=True), hs.data())
@SETTINGS
def test_broadcast_to_matches_numpy(spec, data):
    a, s = pair(spec)
    target = [data.draw(hs.sampled_from([n, n, 1, 2, 3, 0])) for n in spec.shape]
    target = [data.draw(hs.integers(0, 3)) for _ in range(data.draw(hs.integers(0, 2)))] + target
    if target and data.draw(hs.integers(0, 9)) == 0:
        target = target[1:]
    if target and data.draw(hs.integers(0, 19)) == 0:
        target[0] = -1
    target = tuple(target)
    try:
        expected = np.broadcast_to(a, target)
    except ValueError as err:
        with pytest.raises(ValueError) as info:
            st.broadcast_to(s, target)
        assert isinstance(info.value, st.StridedError)
        assert str(info.value).splitlines()[0] == str(err).splitlines()[0]
        return
    got = st.broadcast_to(s, target)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.numpy(), expected)
    assert_same_strides(got, expected)
    assert got.untyped_storage() is s.untyped_storage()


@pytest.mark.parametrize(
    "shape,target",
    [((3,), (2, 3)), ((3,), (3, 1)), ((2, 1), (2,)), ((3,), (-1, 3)), ((1,), ()), ((2,), (0,)),
     ((1, 3), (0, 3)), ((), (4, 2))],
    ids=repr,
)
def test_broadcast_to_cases(shape, target):
    a = np.arange(int(np.prod(shape))).reshape(shape)
    s = st.arange(int(np.prod(shape))).reshape(shape)
    try:
        expected = np.broadcast_to(a, target)
    except ValueError:
        same_error(lambda: np.broadcast_to(a, target), lambda: st.broadcast_to(s, target))
        return
    got = st.broadcast_to(s, target)
    assert got.shape == expected.shape
    assert_same_strides(got, expected)


@given(hs.lists(hs.lists(hs.sampled_from([0, 1, 1, 2, 3]), max_size=3), max_size=4))
@SETTINGS
def test_broadcast_shapes_matches_numpy(shapes):
    shapes = [tuple(s) for s in shapes]
    try:
        expected = np.broadcast_shapes(*shapes)
    except ValueError as err:
        with pytest.raises(ValueError) as info:
            st.broadcast_shapes(*shapes)
        assert isinstance(info.value, st.StridedError)
        # PyTorch's first line (tests/test_peer_suites.py); NumPy's words follow it
        assert str(err).split(".")[0] in str(info.value)
        return
    assert st.broadcast_shapes(*shapes) == expected


def test_broadcast_shapes_cases():
    assert st.broadcast_shapes(3, (2, 1)) == np.broadcast_shapes(3, (2, 1))
    assert st.broadcast_shapes() == np.broadcast_shapes() == ()
    for shapes in (((2, -1),), ((2, 3), (1,), (5, 1, 1), (4,))):
        with pytest.raises(ValueError) as info:
            np.broadcast_shapes(*shapes)
        with pytest.raises(ValueError) as ours:
            st.broadcast_shapes(*shapes)
        assert str(info.value).split(".")[0] in str(ours.value)  # (its first line is PyTorch's)


# ---------------------------------------------------------------- shares_memory / may_share_memory


@given(specs(negative=True), specs(negative=True))
@SETTINGS
def test_shares_memory_matches_numpy_on_one_storage(spec_a, spec_b):
    size = max(spec_a.storage_size, spec_b.storage_size, 1)
    base = np.arange(size)
    root = st.arange(size)

    def np_view(spec):
        return np.ndarray(spec.shape, np.int64, buffer=base, offset=spec.offset * 8 if 0 not in spec.shape else 0,
                          strides=[x * 8 for x in spec.strides])

    a, b = np_view(spec_a), np_view(spec_b)
    s, t = root._view(Layout(spec_a.shape, spec_a.strides, spec_a.offset)), root._view(
        Layout(spec_b.shape, spec_b.strides, spec_b.offset))
    assert st.shares_memory(s, t) == np.shares_memory(a, b)
    assert st.may_share_memory(s, t) == np.may_share_memory(a, b)
    assert st.shares_memory(s, s) == np.shares_memory(a, a)
    # different storages never share memory
    other = st.arange(size)._view(Layout(spec_b.shape, spec_b.strides, spec_b.offset))
    assert not st.shares_memory(s, other) and not st.may_share_memory(s, other)


def test_shares_memory_exact_vs_bounds():
    x = st.arange(10)
    evens, odds = x[::2], x[1::2]
    assert not st.shares_memory(evens, odds)
    assert st.may_share_memory(evens, odds)
    assert st.shares_memory(x[2:5], x[4:8]) and not st.shares_memory(x[:4], x[4:])


def test_shares_memory_with_from_numpy():
    a = np.arange(12.0)
    s1 = st.from_numpy(a[::2])
    s2 = st.from_numpy(a[1::3])
    s3 = st.from_numpy(a[1::2])
    assert st.shares_memory(s1, s2) == np.shares_memory(a[::2], a[1::3])
    assert st.shares_memory(s1, s3) == np.shares_memory(a[::2], a[1::2]) is False
    assert st.may_share_memory(s1, s3)


def test_shares_memory_needs_tensors():
    with pytest.raises(TypeError):
        st.shares_memory(st.arange(3), np.arange(3))


# ---------------------------------------------------------------- ascontiguousarray / asfortranarray


@given(specs(negative=True))
@SETTINGS
def test_ascontiguousarray_and_asfortranarray_match_numpy(spec):
    a, s = pair(spec)
    for np_fn, st_fn in ((np.ascontiguousarray, st.ascontiguousarray), (np.asfortranarray, st.asfortranarray)):
        expected = np_fn(a)
        got = st_fn(s)
        assert_same_result(got, expected, s, a)
        if np_fn is np.ascontiguousarray:
            assert got.is_contiguous()
        if expected is a:
            assert got is s


def test_as_arrays_of_0d():
    for np_fn, st_fn in ((np.ascontiguousarray, st.ascontiguousarray), (np.asfortranarray, st.asfortranarray)):
        a = np.array(7)
        s = st.tensor(7)
        got = st_fn(s)
        assert got.shape == np_fn(a).shape == (1,)
        assert got.untyped_storage() is s.untyped_storage()


def test_regression_ravel_K_size1_dim_stride_counts_as_zero():
    # NumPy's iterator zeroes the stride of a size-1 dim before ordering the dims for 'K'
    base = np.arange(2, dtype=np.int64)
    a = np.ndarray((2, 2, 1), np.int64, buffer=base, strides=(8, 0, 16))
    s = st.from_numpy(base).as_strided((2, 2, 1), (1, 0, 2))
    np.testing.assert_array_equal(st.ravel(s, order="K").numpy(), a.ravel("K"))
