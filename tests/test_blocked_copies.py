"""Blocked copies (kernels/blocked.py): a copy between two memory orders, made in strips, must
leave exactly what one ``np.copyto`` leaves (values, casts, the bytes around the destination),
and the copy ops that use it must report exactly the same copies to the ledger.

The strips only run above ``MIN_BYTES``; these tests lower it to 0 and cut the strips to a few
elements (``STRIP``), so that small random layouts straddle strip edges in every dim.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided
from copy_layouts import dest_views
from strided.kernels import blocked, tiles

DTYPES = [np.bool_, np.int8, np.int16, np.float16, np.float32, np.int32, np.float64, np.int64,
          np.complex64, np.complex128]


@pytest.fixture(autouse=True)
def _small_strips(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blocked, "MIN_BYTES", 0)
    monkeypatch.setattr(blocked, "STRIP", 4)
    monkeypatch.setattr(blocked, "MIN_CALL", 16)  # (a short source dim widens the strips)
    monkeypatch.setattr(tiles, "MIN_NUMEL", 0)  # (elementwise ops take their blocked walks)


@hs.composite
def _source(draw: hs.DrawFn, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A view of a random array with ``shape``: permuted, stepped (maybe backwards), expanded."""
    ndim = len(shape)
    perm = draw(hs.permutations(range(ndim)))
    steps = [draw(hs.sampled_from([1, 1, 2, -1, -2])) for _ in range(ndim)]
    expanded = [draw(hs.booleans()) and shape[d] > 0 and draw(hs.integers(0, 3)) == 0 for d in range(ndim)]
    base_shape = [1 if expanded[d] else shape[d] * abs(steps[d]) for d in range(ndim)]
    rng = np.random.default_rng(draw(hs.integers(0, 2**31)))
    data = (rng.standard_normal([base_shape[d] for d in perm]) * 50)
    if dtype.kind == "c":
        data = data + 1j * rng.standard_normal(data.shape)
    base = data.astype(dtype).transpose(np.argsort(perm))  # base_shape, in a permuted memory order
    view = base[tuple(slice(None, None, s) if not expanded[d] else slice(None)
                      for d, s in enumerate(steps)) + (Ellipsis,)]  # (...: a 0-d view, not a scalar)
    return np.broadcast_to(view, shape) if any(expanded) else view


@settings(max_examples=300, deadline=None)
@given(shape=hs.lists(hs.sampled_from([0, 1, 2, 3, 4, 5, 7, 9]), min_size=0, max_size=4).map(tuple),
       dtypes=hs.tuples(hs.sampled_from(DTYPES), hs.sampled_from(DTYPES)), data=hs.data())
def test_blocked_copy_equals_numpy_copyto(shape: tuple[int, ...], dtypes: tuple, data: hs.DataObject) -> None:
    src_dtype, dest_dtype = np.dtype(dtypes[0]), np.dtype(dtypes[1])
    source = data.draw(_source(shape, src_dtype))
    if dest_dtype.kind not in "cb" and src_dtype.kind == "c":
        source = source.real  # (the kernels' caller takes the real part, with PyTorch's warning)
    buffer, view = data.draw(dest_views(shape, dest_dtype))
    expected_buffer = buffer.copy()
    dest, twin = view(buffer), view(expected_buffer)
    with np.errstate(all="ignore"):
        np.copyto(twin, source, casting="unsafe")
        blocked.copy_into(dest, source)
    assert buffer.tobytes() == expected_buffer.tobytes()


def test_the_strips_run_where_the_orders_disagree() -> None:
    """The plan is made (not the plain call) for a transpose and a 3-d permute, and not for a copy
    along one order or a repeated value."""
    a = np.zeros((6, 10), np.float32)
    assert blocked._strips(np.empty((10, 6), np.float32), a.T, 0) is not None
    b = np.zeros((3, 4, 5))
    d_view, s_view, chunks = blocked._strips(np.empty((5, 3, 4)), b.transpose(2, 0, 1), 0)
    assert d_view.shape == s_view.shape == (5, 12) and chunks == [5, 4]  # (3, 4) merged: a 2-d transpose
    assert blocked._strips(np.empty((6, 10)), a, 0) is None
    assert blocked._strips(np.empty((6, 10)), np.broadcast_to(np.float32(1), (6, 10)), 0) is None
    assert blocked._strips(np.empty((6, 10)), a.T.T[:, ::2].repeat(2, 1), 0) is None


def test_a_short_source_dim_widens_the_strips() -> None:
    """(4, n) from an (n, 4).T: the strips widen to MIN_CALL // 4 elements, and copy the same."""
    a = np.arange(4 * 37, dtype=np.float32).reshape(37, 4)
    d_view, s_view, chunks = blocked._strips(np.empty((4, 37), np.float32), a.T, 0)
    assert chunks == [4, 4]
    dest = np.empty((4, 37), np.float32)
    blocked.copy_into(dest, a.T)
    assert (dest == a.T).all()


def test_sources_numpy_would_take_as_they_are() -> None:
    """A source with extra leading 1s is copied (np.copyto drops them); one that does not
    broadcast fails with np.copyto's own error."""
    dest = np.empty((3, 5))
    blocked.copy_into(dest, np.arange(15.0).reshape(1, 5, 3).transpose(0, 2, 1))
    assert (dest == np.arange(15.0).reshape(5, 3).T).all()
    with pytest.raises(ValueError, match="could not broadcast"):
        blocked.copy_into(dest, np.zeros((5, 3)))


def test_an_overlapping_destination_takes_the_plain_call() -> None:
    """A destination that writes one location twice (here through a broadcast-looking stride) is
    never cut into strips, so the write that wins stays NumPy's."""
    buf = np.zeros(40)
    dest = np.lib.stride_tricks.as_strided(buf, (4, 10), (8, 8))  # rows overlap
    assert blocked._strips(dest, np.zeros((10, 4)).T, 0) is None


def _ops(x: strided.Tensor) -> list:
    target = strided.zeros(*x.shape)
    return [x.contiguous(), x.clone(memory_format=strided.contiguous_format), x.clone(),
            target.copy_(x), x.to(strided.float64), x.reshape(-1)]


@pytest.mark.parametrize("make", [
    lambda: strided.arange(7 * 9 * 5, dtype=strided.float32).reshape(7, 9, 5).permute(2, 0, 1),
    lambda: strided.arange(7 * 9 * 5, dtype=strided.float32).reshape(7, 9, 5).permute(1, 2, 0)[:, ::2],
    lambda: strided.arange(11 * 6, dtype=strided.float32).reshape(11, 6).t(),
])
def test_copy_ops_through_the_strips(make, monkeypatch: pytest.MonkeyPatch) -> None:
    """contiguous, clone, copy_, to and reshape give the same values, strides and ledger records
    with the strips as with the plain call."""
    def run() -> tuple[list, list]:
        x = make()
        with strided.record_copies() as copies:
            outs = _ops(x)
        return [(o.tolist(), o.stride(), o.dtype) for o in outs], [(c.nbytes, c.reason, c.shape, c.dtype)
                                                                   for c in copies]

    stripped = run()
    monkeypatch.setattr(blocked, "MIN_BYTES", 1 << 62)
    plain = run()
    assert stripped == plain
    expected = make().numpy() if hasattr(make(), "numpy") else None
    if expected is not None:
        assert stripped[0][0][0] == np.ascontiguousarray(expected).tolist()


# ---------------------------------------------------------------- elementwise ops through the output


@settings(max_examples=200, deadline=None)
@given(shape=hs.lists(hs.sampled_from([1, 2, 3, 5, 7, 9]), min_size=2, max_size=4).map(tuple),
       dtype=hs.sampled_from([np.float32, np.float64, np.int16, np.complex64, np.bool_]),
       ufunc=hs.sampled_from([np.add, np.subtract, np.multiply, np.maximum, np.logical_xor]),
       swap=hs.booleans(), data=hs.data())
def test_a_ufunc_through_the_output_equals_one_plain_call(shape: tuple[int, ...], dtype: type, ufunc: np.ufunc,
                                                         swap: bool, data: hs.DataObject) -> None:
    """``ufunc(x, y)`` into an output of x's order, y copied into the output first: the same bits
    as one plain call (NaN payloads, integer wrap-around, bool), whichever input runs against it."""
    dt = np.dtype(dtype)
    x = data.draw(_source(shape, dt))
    y = data.draw(_source(shape, dt))
    buffer, view = data.draw(dest_views(shape, dt))
    out, twin = view(buffer), view(buffer.copy())
    if data.draw(hs.booleans()):  # x in the output's order (the case that goes through the output)
        rng = np.random.default_rng(data.draw(hs.integers(0, 2**31)))
        x = view((rng.standard_normal(buffer.shape) * 50).astype(dt))
    inputs = (y, x) if swap else (x, y)
    if dt.kind == "b" and ufunc is np.subtract:
        ufunc = np.logical_xor  # (NumPy has no bool subtract)
    elif ufunc is np.logical_xor and dt.kind != "b":
        ufunc = np.bitwise_xor if dt.kind == "i" else np.add
    with np.errstate(all="ignore"):
        ufunc(*inputs, out=twin)
        tiles.ufunc_into(ufunc, inputs, out, {})
    assert out.tobytes() == twin.tobytes()


def test_which_calls_go_through_the_output() -> None:
    """Only a copy that changes no value and overwrites nothing still to be read."""
    m = np.arange(30.0).reshape(5, 6)
    n = np.arange(30.0).reshape(6, 5) * 3
    out = np.empty((5, 6), order="F")  # x = n.T's order
    assert tiles._through_out(np.add, (n.T, m), out, {})
    np.testing.assert_array_equal(out, n.T + m)
    # a cast into the output's own dtype, the input against the output already of it: taken
    # (tests/test_copies_blocked.py); a cast into another dtype: not
    assert tiles._through_out(np.add, (n.T.astype(np.float32), m), out, {"dtype": np.float64, "casting": "unsafe"})
    np.testing.assert_array_equal(out, n.T + m)
    assert not tiles._through_out(np.add, (n.T, m), out, {"dtype": np.float32, "casting": "unsafe"})
    assert not tiles._through_out(np.add, (n.T, m.astype(np.float32)), out, {})  # another dtype
    inplace = n.T.copy(order="F")
    assert not tiles._through_out(np.add, (inplace, m), inplace, {})  # out is x: y's copy would overwrite it
    tiles.ufunc_into(np.add, (inplace, m), inplace, {})
    np.testing.assert_array_equal(inplace, n.T + m)
    c = np.empty((5, 6), order="F")
    assert not tiles._through_out(np.add, (m, m[::-1]), c, {})  # both run against the output


def test_column_major_pair_is_one_copy() -> None:
    """Two column-major arrays of one shape and dtype (a transpose's clone, past the blocked
    sizes) are copied whole, in one call: every element in its place, unaligned sizes included."""
    from strided.kernels.blocked import copy_into

    for shape in ((1024, 1024), (999, 1531)):
        src = np.arange(np.prod(shape), dtype=np.float32).reshape(shape[::-1]).T
        dest = np.empty(shape[::-1], np.float32).T
        copy_into(dest, src)
        assert dest.tobytes("A") == src.tobytes("A") and np.array_equal(dest, src)
