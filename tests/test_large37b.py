"""Session 37's large-row paths against PyTorch, bit for bit:

- ``tile`` / ``repeat`` of a source that is not row-major (a transpose, a permute, a stepped or
  expanded view) first copy it into row-major memory by the blocked copy, then broadcast it into
  the result: the values (bits, NaN payloads included), shape, strides and dtype must be PyTorch's
  for every layout, small (the plain broadcast) and large (the blocked copy first);
- ``count_nonzero`` over every element of a dense float32 / float64 tensor (any memory order)
  counts in the copy kernel's AVX-512 pass: NaN counts, -0.0 does not, whatever the element's
  place in the run (lengths around the 16- and 8-lane vectors, offsets into the storage), and a
  non-dense view (a gap, a stride-0 dim) takes the NumPy path, which must give the same count.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
from strided.kernels import native
from strided.ops.reductions.nan_reductions import _dense_count

torch.set_num_threads(1)


def both(arr: np.ndarray) -> tuple[strided.Tensor, torch.Tensor]:
    """The same memory (a NumPy array, any layout) as a strided and a PyTorch tensor."""
    return strided.from_numpy(arr), torch.from_numpy(arr)


def same(s: strided.Tensor, t: torch.Tensor) -> None:
    """strided's result is PyTorch's: shape, strides, dtype name and every element's bits."""
    assert tuple(s.shape) == tuple(t.shape)
    assert tuple(s.stride()) == tuple(t.stride())
    sn, tn = np.asarray(s.numpy()), t.numpy()
    assert sn.dtype == tn.dtype
    assert sn.tobytes() == np.ascontiguousarray(tn).tobytes() or np.ascontiguousarray(sn).tobytes() == \
        np.ascontiguousarray(tn).tobytes()


def _noisy(shape: tuple[int, ...], dtype: np.dtype, seed: int = 0) -> np.ndarray:
    """Random values with NaNs (with payloads), infinities, -0.0 and subnormals sprinkled in."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape).astype(dtype)
    flat = a.reshape(-1)
    if flat.size and dtype.kind == "f":  # (specials' casts and products below warn: expected)
        k = rng.integers(0, flat.size, size=max(1, flat.size // 50))
        specials = np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, np.finfo(dtype).smallest_subnormal], dtype)
        flat[k] = specials[rng.integers(0, len(specials), size=len(k))]
        bits = flat.view(np.uint32 if dtype.itemsize == 4 else np.uint64)
        bits[k[:2]] |= 1  # (NaN payloads where a NaN landed: the copy moves bits as they are)
    return a


# ---------------------------------------------------------------- tile / repeat

LAYOUTS = {  # (views made by the same calls in both libraries)
    "contiguous": lambda a: a,
    "transposed": lambda a: a.t(),
    "stepped": lambda a: a[::2, ::3],
    "transposed stepped": lambda a: a.t()[1::2],
    "flipped transposed": lambda a: a.flip(0).t(),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int16, np.complex64, np.bool_])
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("reps", [(2, 1), (1, 3), (2, 2), (3,), (2, 1, 1), (1, 1), (0, 2)])
@pytest.mark.parametrize("n", [5, 200])
def test_tile_and_repeat_match_torch(dtype, layout, reps, n):
    base = _noisy((n, n + 3), np.dtype(np.float64), seed=n)
    with np.errstate(all="ignore"):
        if np.dtype(dtype).kind not in "fc":
            base = np.nan_to_num(base * 100, posinf=7, neginf=-7)
        base = base.astype(dtype)
    s, t = both(base)
    s, t = LAYOUTS[layout](s), LAYOUTS[layout](t)
    same(strided.tile(s, reps), torch.tile(t, reps))
    if len(reps) >= 2:
        same(s.repeat(*reps), t.repeat(*reps))


@pytest.mark.parametrize("perm", [(2, 0, 1), (1, 2, 0), (2, 1, 0)])
def test_tile_of_permuted_3d_matches_torch(perm):
    base = _noisy((16, 24, 32), np.dtype(np.float32), seed=3)
    s, t = both(base)
    s, t = s.permute(*perm), t.permute(*perm)
    for reps in [(2, 1, 1), (1, 2, 3), (2, 2)]:
        same(strided.tile(s, reps), torch.tile(t, reps))


def test_tile_of_expanded_and_odd_shapes_matches_torch():
    row = np.arange(7000, dtype=np.float32)
    s, t = both(row)
    same(strided.tile(s.expand(3, 7000), (2, 1)), torch.tile(t.expand(3, 7000), (2, 1)))
    same(strided.tile(s.expand(3, 7000).t(), (1, 2)), torch.tile(t.expand(3, 7000).t(), (1, 2)))
    zero_d = np.array(2.5, np.float32)
    same(strided.tile(strided.from_numpy(zero_d), (3, 2)), torch.tile(torch.from_numpy(zero_d), (3, 2)))
    empty = np.empty((0, 4096), np.float32)
    s, t = both(empty)
    same(strided.tile(s.t(), (2, 3)), torch.tile(t.t(), (2, 3)))


def test_tile_of_large_transpose_is_the_same_without_the_compiled_copy():
    """The blocked copy (compiled or NumPy strips) and NumPy's own copy give the same bits."""
    base = _noisy((300, 257), np.dtype(np.float32), seed=9)
    s, t = both(base)
    want = torch.tile(t.t(), (2, 2))
    same(strided.tile(s.t(), (2, 2)), want)
    with native.disabled():
        same(strided.tile(s.t(), (2, 2)), want)


@given(rows=st.integers(0, 70), cols=st.integers(1, 90), r0=st.integers(0, 3), r1=st.integers(0, 3),
       transpose=st.booleans(), step=st.integers(1, 3))
@settings(max_examples=60, deadline=None)
def test_tile_hypothesis(rows, cols, r0, r1, transpose, step):
    base = _noisy((rows, cols), np.dtype(np.float32), seed=rows * 100 + cols)
    view = base[::step]
    if transpose:
        view = view.T
    s, t = both(view)
    same(strided.tile(s, (r0, r1)), torch.tile(t, (r0, r1)))


# ---------------------------------------------------------------- count_nonzero


def _count_same(s: strided.Tensor, t: torch.Tensor) -> None:
    got, want = strided.count_nonzero(s), torch.count_nonzero(t)
    assert got.dtype == strided.int64 and tuple(got.shape) == () == tuple(want.shape)
    assert int(got.item()) == int(want.item())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [4097, 4111, 4112, 4113, 8191, 70001])
def test_count_nonzero_flat_lengths_and_offsets(dtype, n):
    a = _noisy((n + 5,), np.dtype(dtype), seed=n)
    a[::7] = 0.0
    a[3::11] = -0.0
    a[5::13] = np.nan
    for off in range(5):  # (runs starting at each offset into the storage: unaligned vector loads)
        s, t = both(a)
        _count_same(s[off : off + n], t[off : off + n])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_count_nonzero_specials_each_lane(dtype):
    """Each special value alone in a zero run, at every lane of a vector and in the tail."""
    n = 4096 + 37
    for value, counted in [(np.nan, 1), (-0.0, 0), (0.0, 0), (np.inf, 1), (-np.inf, 1),
                           (np.finfo(dtype).smallest_subnormal, 1), (-np.finfo(dtype).smallest_subnormal, 1)]:
        for pos in list(range(20)) + [n - 1, n - 2, n - 20]:
            a = np.zeros(n, dtype)
            a[pos] = value
            s, t = both(a)
            _count_same(s, t)
            assert int(strided.count_nonzero(s).item()) == counted


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_count_nonzero_layouts(dtype):
    a = _noisy((130, 97), np.dtype(dtype), seed=1)
    a[a > 1] = 0
    s, t = both(a)
    views = [
        (s, t), (s.t(), t.t()), (s[::2], t[::2]), (s[:, 1:], t[:, 1:]), (s.flip(0), t.flip(0)),
        (s[5:], t[5:]), (s.t()[3:], t.t()[3:]),
        (s[0].expand(200, 97), t[0].expand(200, 97)),
        (s.reshape(2, 65, 97).permute(2, 0, 1), t.reshape(2, 65, 97).permute(2, 0, 1)),
    ]
    for sv, tv in views:
        _count_same(sv, tv)
    if native.active():  # (the dense views take the kernel's count; the others the NumPy path)
        assert _dense_count(s.t()) == int(torch.count_nonzero(t).item())
        assert _dense_count(s.reshape(2, 65, 97).permute(2, 0, 1)) == int(torch.count_nonzero(t).item())
        assert _dense_count(s[::2]) == -1 and _dense_count(s[0].expand(200, 97)) == -1
    for dim in (0, 1, -1, -2):
        got, want = strided.count_nonzero(s.t(), dim), torch.count_nonzero(t.t(), dim)
        assert np.array_equal(got.numpy(), want.numpy())


def test_count_nonzero_small_empty_and_0d_unchanged():
    for arr in [np.zeros((0, 5000), np.float32), np.array(0.0, np.float32), np.array(np.nan),
                np.array([0.0, -0.0, 1.0], np.float32)]:
        _count_same(*both(arr))


def test_count_nonzero_without_the_kernel():
    a = _noisy((300, 300), np.dtype(np.float32), seed=4)
    s, t = both(a)
    want = int(torch.count_nonzero(t.t()).item())
    assert int(strided.count_nonzero(s.t()).item()) == want
    with native.disabled():
        assert int(strided.count_nonzero(s.t()).item()) == want


@given(n=st.integers(4097, 9000), zeros=st.floats(0, 1), nans=st.floats(0, 0.2), f64=st.booleans())
@settings(max_examples=40, deadline=None)
def test_count_nonzero_hypothesis(n, zeros, nans, f64):
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n).astype(np.float64 if f64 else np.float32)
    a[rng.random(n) < zeros] = rng.choice(np.array([0.0, -0.0], a.dtype))
    a[rng.random(n) < nans] = np.nan
    _count_same(*both(a))
