"""Red-team findings on the indexsort fast paths and their neighbours, each against PyTorch.

- isin compares in the operands' result type, as PyTorch does (a float32 tensor meets the number
  0.1 as float32(0.1); int64 meets float32 in float32; a number beyond an int dtype wraps), and
  refuses complex with PyTorch's error.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st


def _pair(x):
    """The same operand for strided and PyTorch (a list: a tensor; a number: itself)."""
    if isinstance(x, tuple):
        values, name = x
        return st.tensor(values, dtype=getattr(st, name)), torch.tensor(values, dtype=getattr(torch, name))
    return x, x


ISIN_CASES = [
    (([0.1, 0.2], "float32"), 0.1),  # the number meets the tensor as float32(0.1)
    (0.1, ([0.1, 0.2], "float32")),
    (([16777217], "int64"), ([16777216.0], "float32")),  # compared in float32: equal
    (([0.1, 0.2], "float16"), ([0.1], "float32")),
    (([44, 2], "int8"), 300),  # 300 wraps to 44 in int8
    (([255, 2], "uint8"), -1),
    (([44, 2], "int8"), ([300], "int64")),  # tensor operands promote: int64, no wrap
    (([-56, 3], "int8"), ([200, 3], "uint8")),
    (([1, 2], "int64"), 2.5),
]


@pytest.mark.parametrize("elements, test_elements", ISIN_CASES)
@pytest.mark.parametrize("invert", [False, True])
def test_isin_compares_in_the_result_type(elements, test_elements, invert: bool) -> None:
    (se, te), (st_, tt) = _pair(elements), _pair(test_elements)
    got = st.isin(se, st_, invert=invert)
    want = torch.isin(te, tt, invert=invert)
    assert got.tolist() == want.tolist() and tuple(got.shape) == tuple(want.shape)


def test_isin_refuses_complex_as_pytorch_does() -> None:
    for a, b in [(([1.0], "float32"), ([1j], "complex128")), (([1j], "complex64"), ([1.0], "float32"))]:
        (sa, ta), (sb, tb) = _pair(a), _pair(b)
        with pytest.raises(RuntimeError) as want:
            torch.isin(ta, tb)
        with pytest.raises(st.StridedRuntimeError) as got:
            st.isin(sa, sb)
        assert str(want.value) == str(got.value).splitlines()[0]


def test_topk_picks_and_orders_ties_as_pytorch() -> None:
    # PyTorch's CPU topk: libstdc++'s nth_element (k * 64 > n) or partial_sort (k * 64 <= n) of
    # (value, position) pairs, unstable; strided used to give the first positions ([4, 0] here)
    x, t = st.tensor([2.0, 2.0, 2.0, 2.0, 1.0]), torch.tensor([2.0, 2.0, 2.0, 2.0, 1.0])
    assert x.topk(2, largest=False).indices.tolist() == t.topk(2, largest=False).indices.tolist() == [4, 2]
    r = np.random.default_rng(0)
    for i in range(60):
        n = int(r.integers(2, 200))
        k = int(r.integers(1, 4)) if i % 2 else int(r.integers(1, n + 1))  # (both of PyTorch's paths)
        a = r.integers(0, 3, (2, n)).astype(np.float64)
        if i % 3 == 0:
            a[r.random(a.shape) < 0.2] = np.nan
        a[:, 0] = -0.0 if i % 4 == 0 else a[:, 0]
        largest = bool(i % 2)
        dt = ("float32", "float64", "int64", "float16")[i % 4]
        if dt == "int64":
            a = np.nan_to_num(a)
        s, w = st.tensor(a).to(getattr(st, dt)), torch.tensor(a).to(getattr(torch, dt))
        if i % 5 == 0:
            s, w = s.t(), w.t()
        d = 0 if i % 5 == 0 else 1
        got, want = s.topk(k, d, largest), w.topk(k, d, largest)
        assert got.indices.tolist() == want.indices.tolist(), (a.tolist(), k, largest)
        gv, wv = got.values.double().numpy(), want.values.double().numpy()
        np.testing.assert_array_equal(gv, wv)  # (NaN meets NaN; -0.0 and 0.0 told apart below)
        assert np.array_equal(np.signbit(gv[~np.isnan(gv)]), np.signbit(wv[~np.isnan(wv)]))
        assert got.values.stride() == want.values.stride()


def test_topk_tie_gradient_reaches_pytorchs_positions() -> None:
    rows = [[1.0, 2.0, 2.0, 0.0, 0.0], [2.0, 2.0, 2.0, 1.0, 1.0]]
    xs, xt = st.tensor(rows, requires_grad=True), torch.tensor(rows, requires_grad=True)
    (xs.topk(2, largest=False).values * st.tensor([1.0, 2.0])).sum().backward()
    (xt.topk(2, largest=False).values * torch.tensor([1.0, 2.0])).sum().backward()
    assert xs.grad.tolist() == xt.grad.tolist()


def test_mode_index_and_nan_as_pytorch() -> None:
    # PyTorch's CPU mode: std::sort of (value, position) pairs by value (an insertion sort, stable,
    # only up to 16 elements), then the last pair of the first longest run of == values; NaN compare
    # false both ways, so [nan, nan, 1] keeps its order and its mode is the first NaN
    nan = float("nan")
    for row, want in (([nan, nan, 1.0], (nan, 0)), ([1.0, nan, nan, 1.0], (1.0, 0))):
        v, i = st.tensor(row).mode()
        t = torch.tensor(row).mode()
        assert (i.item(), t.indices.item()) == (want[1], want[1])
        assert np.array_equal(np.array([v.item(), t.values.item()]), np.array([want[0]] * 2), equal_nan=True)
    r = np.random.default_rng(1)
    for i in range(16):
        shape = (2, int(r.integers(10, 60)))
        a = r.integers(0, 4, shape).astype(np.float64)
        if i % 3 == 0:
            a[r.random(shape) < 0.2] = np.nan
        dt = ("float32", "int64", "float64", "uint8")[i % 4]
        if dt in ("int64", "uint8"):
            a = np.nan_to_num(a)
        s, t = st.tensor(a).to(getattr(st, dt)), torch.tensor(a).to(getattr(torch, dt))
        d = i % 2
        if d == 0:
            s, t = s.t(), t.t()
        got, want = s.mode(d), t.mode(d)
        assert got.indices.tolist() == want.indices.tolist()
        np.testing.assert_array_equal(got.values.double().numpy(), want.values.double().numpy())


def test_mode_gradient_reaches_pytorchs_position() -> None:
    a = np.random.default_rng(3).integers(0, 3, (2, 40)).astype(np.float64)
    xs, xt = st.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    (xs.mode(1).values * st.tensor([1.0, 2.0])).sum().backward()
    (xt.mode(1).values * torch.tensor([1.0, 2.0])).sum().backward()
    assert xs.grad.tolist() == xt.grad.tolist()


def test_median_of_all_elements_has_pytorchs_bits() -> None:
    # PyTorch: std::nth_element on the values (which of -0.0 and 0.0 lands in the middle), and its
    # own quiet NaN for median() of elements with a NaN (not the input's NaN)
    r = np.random.default_rng(2)
    for i in range(40):
        a = r.integers(-1, 2, int(r.integers(2, 60))).astype(np.float64)
        a[a == 0] *= np.where(r.random(int((a == 0).sum())) < 0.5, -1.0, 1.0)
        if i % 3 == 0:
            a[r.random(a.size) < 0.2] = np.nan
        dt = ("float32", "float64")[i % 2]
        for f in ("median", "nanmedian"):
            got = getattr(st, f)(st.tensor(a).to(getattr(st, dt))).numpy()
            want = getattr(torch, f)(torch.tensor(a).to(getattr(torch, dt))).numpy()
            assert got.tobytes() == want.tobytes(), (f, dt, a.tolist())
    x = np.array([1.0, 2.0], np.float32)
    x.view(np.uint32)[1] = 0xFFC00001  # (a negative NaN with a payload)
    assert st.median(st.tensor(x)).numpy().tobytes() == torch.median(torch.from_numpy(x)).numpy().tobytes()
