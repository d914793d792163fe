"""Blocked walks (kernels/tiles.py): operands whose memory orders disagree are walked in tiles.

Only the walk changes: every value must be exactly NumPy's (one plain ufunc call), the output
keeps PyTorch's layout, inputs that overlap the output are read before they are written, and
nothing is copied. The kernel-level tests shrink the tiles and the size threshold so that small
random layouts (permuted, negative strides, stride-0, odd sizes, empty) reach every edge region.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from blas_reference import reference_matmul
from strided.creation import borrow_array  # (any strides: from_numpy refuses negative ones, as PyTorch)
from strided.kernels import record_copies, tiles


@pytest.fixture
def tiny_tiles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tiles, "MIN_NUMEL", 0)
    monkeypatch.setattr(tiles, "TILE_A", 4)
    monkeypatch.setattr(tiles, "TILE_B", 3)


def _random_view(rng: np.random.Generator, shape: tuple[int, ...], dtype: str = "float32",
                 broadcast: bool = True) -> np.ndarray:
    """A view of ``shape`` over fresh memory: permuted, maybe stepped, flipped and expanded."""
    ndim = len(shape)
    perm = rng.permutation(ndim)
    inv = np.argsort(perm)
    steps = [int(rng.choice([1, 1, 2, -1, -2])) for _ in range(ndim)]
    stored = [shape[p] for p in perm]
    expanded = [broadcast and shape[p] > 1 and rng.random() < 0.15 for p in perm]
    base_shape = [1 if e else n * abs(s) for n, s, e in zip(stored, [steps[p] for p in perm], expanded)]
    base = rng.standard_normal(base_shape).astype(dtype)
    key = tuple(slice(None, None, steps[p]) if not e else slice(None) for p, e in zip(perm, expanded))
    view = base[key]
    view = np.broadcast_to(view, stored) if any(expanded) else view
    return view.transpose(inv)


def _writable_view(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    ndim = len(shape)
    perm = rng.permutation(ndim)
    base = np.full([shape[p] * 2 for p in perm], np.nan, dtype=dtype)
    key = tuple(slice(None, None, int(rng.choice([1, 2, -1, -2]))) for _ in perm)
    view = base[key][tuple(slice(0, shape[p]) for p in perm)]
    return view.transpose(np.argsort(perm))


@pytest.mark.parametrize("seed", range(40))
def test_blocked_walk_gives_numpy_values_for_random_layouts(seed: int, tiny_tiles: None) -> None:
    rng = np.random.default_rng(seed)
    ndim = int(rng.integers(1, 5))
    shape = tuple(int(rng.choice([0, 1, 2, 5, 7, 9, 13])) if rng.random() < 0.1 else int(rng.integers(2, 14))
                  for _ in range(ndim))
    x = _random_view(rng, shape)
    y = _random_view(rng, shape[int(rng.integers(0, ndim + 1)):])  # a suffix: broadcast
    out = _writable_view(rng, shape, "float32")
    expected = np.add(x, y)
    tiles.ufunc_into(np.add, (x, y), out, {})
    np.testing.assert_array_equal(out, expected)
    # a scalar operand, a cast and a comparison take the same walk
    out64 = _writable_view(rng, shape, "float64")
    tiles.ufunc_into(np.multiply, (x, np.float64(1.5)), out64, {"dtype": np.float64, "casting": "unsafe"})
    np.testing.assert_array_equal(out64, np.multiply(x, 1.5, dtype=np.float64))
    mask = _writable_view(rng, shape, "bool")
    tiles.ufunc_into(np.less, (x, y), mask, {"signature": (np.float32, np.float32, np.bool_), "casting": "unsafe"})
    np.testing.assert_array_equal(mask, np.less(x, y))


def test_blocked_walk_reaches_every_edge_region(tiny_tiles: None) -> None:
    """Sizes not a multiple of either tile: main grid, both strips and the corner."""
    m = np.arange(11 * 10, dtype=np.float32).reshape(11, 10)
    for a, b in ((m.T, m.T.copy()), (m[::-1].T, m.T.copy()), (m.T.copy(), m[:, ::-1].T)):
        out = np.full((10, 11), np.nan, np.float32, order="F")
        assert tiles._conflict((a, b), out) is not None
        tiles.ufunc_into(np.subtract, (a, b), out, {})
        np.testing.assert_array_equal(out, a - b)


def test_inputs_that_overlap_each_other_are_fine(tiny_tiles: None) -> None:
    base = np.arange(13 * 13, dtype=np.float32).reshape(13, 13)
    x, y = base[:-1, :-1], base[1:, 1:].T  # read-only use of one buffer, two layouts
    out = np.empty((12, 12), np.float32, order="F")
    tiles.ufunc_into(np.add, (x, y), out, {})
    np.testing.assert_array_equal(out, x + y)


def test_an_output_that_is_an_input_is_read_before_written(tiny_tiles: None) -> None:
    rng = np.random.default_rng(1)
    for shape in ((9, 7), (5, 8, 6)):
        target = rng.standard_normal(shape[::-1]).astype(np.float32).T  # column-major
        other = rng.standard_normal(shape).astype(np.float32)  # row-major: the orders disagree
        expected = target + other
        assert tiles._conflict((target, other), target) is not None  # the same view: still tiled
        tiles.ufunc_into(np.add, (target, other), target, {})
        np.testing.assert_array_equal(target, expected)


def test_an_output_overlapping_an_input_otherwise_takes_one_plain_call(tiny_tiles: None) -> None:
    """out = a and an input a.T: several calls would read elements already written."""
    rng = np.random.default_rng(2)
    a = rng.standard_normal((9, 9)).astype(np.float32)
    c = rng.standard_normal((9, 9)).astype(np.float32)
    expected = a.T + c  # the values before any write
    assert tiles._conflict((a.T, c), a) is None
    tiles.ufunc_into(np.add, (a.T, c), a, {})
    np.testing.assert_array_equal(a, expected)


# ---------------------------------------------------------------- through the tensor ops, full size


@pytest.fixture
def tiled_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The (a, b) dim pairs of every blocked walk run during the test (tiled, or through the
    output: both start from the conflict found)."""
    calls: list[tuple[int, int]] = []
    real = tiles._conflict

    def spy(inputs, out):  # noqa: ANN001, ANN202
        pair = real(inputs, out)
        if pair is not None:
            calls.append(pair)
        return pair

    monkeypatch.setattr(tiles, "_conflict", spy)
    return calls


def _check(result: st.Tensor, expected_np: np.ndarray, expected_torch: torch.Tensor) -> None:
    np.testing.assert_array_equal(result.numpy(), expected_np)
    assert result.stride() == expected_torch.stride()


@pytest.mark.parametrize("shape", [(300, 257), (256, 256), (0, 70000), (70000, 1)])
def test_transposed_add_full_size(shape: tuple[int, int], tiled_calls: list) -> None:
    rng = np.random.default_rng(0)
    m = rng.standard_normal(shape[::-1]).astype(np.float32)
    n = rng.standard_normal(shape).astype(np.float32)
    sm, sn, tm, tn = st.from_numpy(m), st.from_numpy(n), torch.from_numpy(m), torch.from_numpy(n)
    with record_copies() as copies:
        r1 = sm.T + sn
        r2 = sn + sm.T
        r3 = borrow_array(m[:, ::-1], "from_numpy").T * sn  # negative strides (strided's own extension)
    assert copies == []
    _check(r1, m.T + n, tm.T + tn)
    _check(r2, n + m.T, tn + tm.T)
    assert len(tiled_calls) == (3 if 1 not in shape and 0 not in shape else 0)
    np.testing.assert_array_equal(r3.numpy(), m[:, ::-1].T * n)


def test_permuted_meets_contiguous_full_size(tiled_calls: list) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((37, 41, 53)).astype(np.float32)
    y = rng.standard_normal((53, 37, 41)).astype(np.float32)
    sx, sy, tx, ty = st.from_numpy(x), st.from_numpy(y), torch.from_numpy(x), torch.from_numpy(y)
    sy64 = sy.to(st.float64)
    with record_copies() as copies:
        r1 = sx.permute(2, 0, 1) + sy
        r2 = sy - sx.permute(2, 0, 1)
        r3 = sx.permute(2, 0, 1) > sy
        r4 = sx.permute(2, 0, 1).clamp(min=sy)
        r5 = sx.permute(2, 0, 1) + sy64  # float32 cast while read
    assert copies == []
    # each a blocked walk over the dims 0 and 2 (which of the two leads depends on the operand
    # order the op's kernel reads: clamp's tensor bound goes first in PyTorch's extreme loop)
    assert [sorted(pair) for pair in tiled_calls] == [[0, 2]] * 5
    xp = x.transpose(2, 0, 1)
    _check(r1, xp + y, tx.permute(2, 0, 1) + ty)
    _check(r2, y - xp, ty - tx.permute(2, 0, 1))
    _check(r3, xp > y, tx.permute(2, 0, 1) > ty)
    _check(r4, np.maximum(xp, y), tx.permute(2, 0, 1).clamp(min=ty))
    _check(r5, xp + y.astype(np.float64), tx.permute(2, 0, 1) + ty.double())


def test_expanded_operand_full_size() -> None:
    rng = np.random.default_rng(0)
    col = rng.standard_normal((300, 1)).astype(np.float32)
    m = rng.standard_normal((300, 300)).astype(np.float32)
    sc, sm = st.from_numpy(col), st.from_numpy(m)
    with record_copies() as copies:
        r = sm.T + sc.expand(300, 300)
        s = sc.expand(300, 300) + sm.T
    assert copies == []
    np.testing.assert_array_equal(r.numpy(), m.T + col)
    np.testing.assert_array_equal(s.numpy(), col + m.T)


def test_inplace_add_with_the_target_in_another_order_full_size(tiled_calls: list) -> None:
    rng = np.random.default_rng(0)
    m = rng.standard_normal((300, 257)).astype(np.float32)
    n = rng.standard_normal((257, 300)).astype(np.float32)
    target = st.from_numpy(m.copy()).T  # column-major (257, 300)
    expected = m.T + n
    with record_copies() as copies:
        target.add_(st.from_numpy(n))
        target.mul_(borrow_array(n[:, ::-1], "from_numpy"))
    assert copies == []
    assert len(tiled_calls) == 2
    np.testing.assert_array_equal(target.numpy(), expected * n[:, ::-1])


def test_inplace_with_an_overlapping_non_dense_input_is_refused(tiled_calls: list) -> None:
    """A target and an input over one storage with other strides, both not dense (PyTorch's
    "too hard" overlap, which it lets through and computes in its loop order, threads included):
    refused before anything is written (reading everything first gave another number than
    PyTorch's); with the input copied, the values of reading everything first."""
    base = np.arange(2 * 300 * 300, dtype=np.float32)
    t_storage = st.from_numpy(base.copy())
    target = t_storage[::2].view(300, 300)  # every other element
    source = t_storage[: 2 * 300 * 300 : 2].view(300, 300).T  # the same elements, transposed
    expected = base[::2].reshape(300, 300) + base[::2].reshape(300, 300).T
    with pytest.raises(RuntimeError, match="add_: at position .* which it writes at position"):
        target.add_(source)
    np.testing.assert_array_equal(target.numpy(), base[::2].reshape(300, 300))
    assert tiled_calls == []
    target.add_(source.clone())
    np.testing.assert_array_equal(target.numpy(), expected)


# ---------------------------------------------------------------- small-op fast paths


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(), (0,), (3, 4), (8193,), (7, 9, 11)])
def test_fast_sum_gives_torchs_values(shape: tuple[int, ...], dtype: str) -> None:
    """Tensor.sum adds in PyTorch's order (kernels/torch_sum.py): torch.sum's bits (one thread),
    at a zero and a nonzero offset."""
    rng = np.random.default_rng(0)
    data = np.asarray((rng.standard_normal(shape) * 1e3).astype(dtype))
    padded = np.concatenate([np.zeros(3, dtype), data.reshape(-1)])  # a nonzero offset
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        want = torch.from_numpy(data).sum().item()
    finally:
        torch.set_num_threads(threads)
    for t in (st.from_numpy(data), st.from_numpy(padded)[3:].view(shape)):
        got = t.sum()
        assert got.shape == () and got.dtype == getattr(st, dtype)
        assert got.item() == want


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nkp", [(3, 4, 3), (1, 5, 1), (9, 1, 4), (65, 33, 17)])
def test_fast_matmul_gives_numpy_values(nkp: tuple[int, int, int], dtype: str) -> None:
    n, k, p = nkp
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, k)).astype(dtype)
    b = rng.standard_normal((k, p)).astype(dtype)
    sb = st.from_numpy(np.concatenate([np.zeros(2, dtype), b.reshape(-1)]))[2:].view(k, p)
    for r in (st.from_numpy(a) @ sb, st.from_numpy(a).matmul(sb)):
        assert r.stride() == (p, 1)
        np.testing.assert_array_equal(r.numpy(), reference_matmul(a, b))  # (PyTorch's bits on the MKL route)


def test_fast_path_results_own_resizable_memory() -> None:
    """A fresh result's storage is strided's own: resize_ may move it (as PyTorch's may)."""
    a = st.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    for r in (a + a, a * 2.0, st.exp(a), a + a[0], a.sum(), a @ a.T):
        before = r.tolist()
        r.resize_(40)
        assert r[: len(np.ravel(before))].tolist() == np.ravel(before).tolist()
