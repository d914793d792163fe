"""Red-team findings on the scatter6 small-call fast paths and the general paths beside them,
each checked against PyTorch 2.13:

* searchsorted / bucketize in a sequence that is not sorted: PyTorch's bisection gives one answer
  per value; NumPy's search (both paths used it) gives another, which depends on the values
  searched before it (it reuses the previous bounds): silently different numbers.
* index_add with alpha != 1 and an index out of range: PyTorch's slice loop (IndexError "index
  out of range in self"), not its scatter_add path (RuntimeError "index 4 is out of bounds ...").
* index_add with an index of another dtype: PyTorch's text names the dtype ("but got: Byte").
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
import torch

import strided as st

pytestmark = pytest.mark.filterwarnings("ignore:torch.searchsorted:UserWarning")

_UNSORTED = [  # (sequence, values): values repeat and go up and down, so NumPy reuses its bounds
    ([0, 1, -9], [-9, 0, 0]),
    ([5, 1, 4, 2, 3], [3, 0, 6, 2, 2, 5, 1]),
    ([2.0, -0.0, 7.5, 0.0, 1.0, 3.0], [0.0, -0.0, 2.0, 8.0, 1.0, 0.5]),
    ([9, 8, 7, 6, 5, 4, 3], [6, 9, 3, 5]),
]


def _search_both(seq: list, vals: list, dt: st.DType, **kw: object) -> tuple[list, list]:
    tdt = getattr(torch, dt.name)
    got = st.searchsorted(st.tensor(seq).to(dt), st.tensor(vals).to(dt), **kw)
    want = torch.searchsorted(torch.tensor(seq).to(tdt), torch.tensor(vals).to(tdt), **kw)
    assert got.dtype.name == str(want.dtype).removeprefix("torch.")
    return got.tolist(), want.tolist()


@pytest.mark.parametrize("dt", [st.float32, st.float64, st.int32, st.int64], ids=lambda d: d.name)
def test_searchsorted_unsorted_sequence_is_pytorchs_bisection(dt: st.DType) -> None:
    for seq, vals in _UNSORTED:
        for right in (False, True):
            got, want = _search_both(seq, vals, dt, right=right)  # (row-major: the fast path's operands)
            assert got == want, (seq, vals, right)
            got, want = _search_both(seq, vals, dt, right=right, out_int32=True)  # (the general path)
            assert got == want, (seq, vals, right)
            tdt = getattr(torch, dt.name)
            b = st.bucketize(st.tensor(vals).to(dt), st.tensor(seq).to(dt), right=right)
            assert b.tolist() == torch.bucketize(torch.tensor(vals).to(tdt), torch.tensor(seq).to(tdt),
                                                 right=right).tolist()


def test_searchsorted_unsorted_batched_transposed_and_through_a_sorter() -> None:
    seq, vals = _UNSORTED[1]
    rows, vrows = np.array([seq, seq[::-1]], np.float64), np.array([vals, vals[::-1]], np.float64)
    for right in (False, True):
        got = st.searchsorted(st.tensor(rows), st.tensor(vrows), right=right)  # (one search per row)
        assert got.tolist() == torch.searchsorted(torch.tensor(rows), torch.tensor(vrows), right=right).tolist()
        got = st.searchsorted(st.tensor(rows[0]), st.tensor(vrows).t(), right=right)  # (non-contiguous values)
        want = torch.searchsorted(torch.tensor(rows[0]), torch.tensor(vrows).t(), right=right)
        assert got.tolist() == want.tolist()
    # a sorter that does not sort the sequence: read through it, bisected as PyTorch does
    sorter = [1, 0, 2, 4, 3]
    got = st.searchsorted(st.tensor(seq), st.tensor(vals), sorter=st.tensor(sorter))
    assert got.tolist() == torch.searchsorted(torch.tensor(seq), torch.tensor(vals),
                                              sorter=torch.tensor(sorter)).tolist()


def test_searchsorted_sorted_sequences_are_unchanged() -> None:
    seq, vals = [1.0, 2.0, 2.0, 3.0, float("nan")], [2.0, float("nan"), -0.0, 3.0, 9.0]
    for right in (False, True):
        got, want = _search_both(seq, vals, st.float64, right=right)
        assert got == want
        got, want = _search_both(seq[:-1], vals[:1] + vals[2:], st.int64, right=right)
        assert got == want


def _raised(call) -> tuple[type, str]:  # noqa: ANN001
    with pytest.raises(Exception) as info:  # noqa: PT011 (the class is compared below)
        call()
    return info.type, str(info.value).split("\n")[0]


@pytest.mark.parametrize("alpha", [1, 1.0, 2, True])
def test_index_add_out_of_range_error_follows_pytorchs_path_for_alpha(alpha: object) -> None:
    for d, i, shape in ((1, 4, (3, 1)), (0, 3, (1, 4)), (1, -1, (3, 1))):
        x, tx = st.zeros(3, 4), torch.zeros(3, 4)
        cls, text = _raised(partial(x.index_add, d, st.tensor([i]), st.ones(*shape), alpha=alpha))
        tcls, ttext = _raised(partial(tx.index_add, d, torch.tensor([i]), torch.ones(*shape), alpha=alpha))
        assert issubclass(cls, tcls) and text == ttext, (d, i, alpha)
        assert x.tolist() == [[0.0] * 4] * 3  # (no partial write)


@pytest.mark.parametrize("name", ["uint8", "bool", "int16"])
def test_index_add_index_dtype_error_names_the_dtype(name: str) -> None:
    cls, text = _raised(lambda: st.zeros(3, 4).index_add(1, st.tensor([0]).to(getattr(st, name)), st.ones(3, 1)))
    tcls, ttext = _raised(lambda: torch.zeros(3, 4).index_add(1, torch.tensor([0]).to(getattr(torch, name)),
                                                              torch.ones(3, 1)))
    assert issubclass(cls, tcls) and text == ttext


def test_searchsorted_compares_in_the_operands_result_type() -> None:
    # an int64 sequence meets float32 values in float32 (16777217 is 16777216 there), a number
    # and a 0-d tensor rank below the sequence, and an int8 sequence meets an int number as int8
    seq = [16777216, 16777217, 16777218]
    for sdt in ("int32", "int64"):
        for vals in ([16777217.0, 16777216.0], 16777217.0, 2**40, -129):
            for vdt in ("float32", "float64", "int64") + (() if isinstance(vals, list) else (None,)):
                for right in (False, True):
                    s, t = st.tensor(seq).to(getattr(st, sdt)), torch.tensor(seq).to(getattr(torch, sdt))
                    if vdt is None:
                        sv, tv = vals, vals
                    else:
                        sv, tv = st.tensor(vals).to(getattr(st, vdt)), torch.tensor(vals).to(getattr(torch, vdt))
                    got = st.searchsorted(s, sv, right=right).tolist()
                    assert got == torch.searchsorted(t, tv, right=right).tolist(), (sdt, vals, vdt, right)
    small = [-3, 0, 1, 2, 100]
    for num in (1.5, 300, -1):
        for sdt in ("int8", "uint8", "bool"):
            got = st.searchsorted(st.tensor(small).to(getattr(st, sdt)), num)
            assert got.item() == torch.searchsorted(torch.tensor(small).to(getattr(torch, sdt)), num).item()


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # (NaN: NumPy's warning, a known leak)
def test_scatter_reduce_amax_amin_keep_the_first_signed_zero_as_pytorch() -> None:
    # PyTorch's kernel keeps the running value on a tie (std::max(acc, x)): a zero result has the
    # sign of the first zero met (self's when included), where NumPy's maximum.at took a later one
    rng = np.random.default_rng(9)
    for trial in range(24):
        x = rng.choice([0.0, -0.0, -1.0, 1.0, np.nan], size=(3, 4), p=[0.35, 0.35, 0.1, 0.1, 0.1])
        idx = rng.integers(0, 4, size=(3, 5))
        src = rng.choice([0.0, -0.0, -1.0, 1.0, np.nan], size=(3, 5), p=[0.35, 0.35, 0.1, 0.1, 0.1])
        red, inc = ("amax", "amin")[trial % 2], bool(trial // 2 % 2)
        dt = (st.float32, st.float64)[trial // 4 % 2]
        tdt = getattr(torch, dt.name)
        want = torch.scatter_reduce(torch.tensor(x).to(tdt), 1, torch.tensor(idx), torch.tensor(src).to(tdt), red,
                                    include_self=inc).numpy()
        xs, si, ss = st.tensor(x).to(dt), st.tensor(idx), st.tensor(src).to(dt)
        for got in (st.scatter_reduce(xs, 1, si, ss, red, include_self=inc),  # (the fast path)
                    st.scatter_reduce(xs.t().contiguous().t(), 1, si, ss, red, include_self=inc),  # (general)
                    xs.clone().scatter_reduce_(1, si, ss, red, include_self=inc)):
            assert got.numpy().tobytes() == want.tobytes(), (x, idx, src, red, inc)


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.filterwarnings("ignore:index_reduce:UserWarning")
def test_index_reduce_amax_amin_keep_the_first_signed_zero_as_pytorch() -> None:
    # (along the last dim, and 1-d: PyTorch's scalar steps; along dim 0 of a tensor whose slices
    # fill its SIMD vectors, its vectorized minimum/maximum decides the sign, machine by machine)
    rng = np.random.default_rng(19)
    for trial in range(24):
        shape, d = ((3, 4), 1) if trial % 3 else ((5,), 0)
        x = rng.choice([0.0, -0.0, -1.0, 1.0, np.nan], size=shape, p=[0.35, 0.35, 0.1, 0.1, 0.1])
        idx = rng.integers(0, shape[d], size=5)
        src = rng.choice([0.0, -0.0, -1.0, 1.0, np.nan], size=shape[:d] + (5,), p=[0.35, 0.35, 0.1, 0.1, 0.1])
        red, inc = ("amax", "amin")[trial % 2], bool(trial // 2 % 2)
        want = torch.tensor(x).index_reduce(d, torch.tensor(idx), torch.tensor(src), red, include_self=inc)
        got = st.tensor(x).index_reduce(d, st.tensor(idx), st.tensor(src), red, include_self=inc)
        assert got.numpy().tobytes() == want.numpy().tobytes(), (x, idx, src, red, inc)


def test_index_fill_checks_the_value_before_the_index_bounds_as_pytorch() -> None:
    # PyTorch's kernel converts the value first, then meets an index out of range
    for dt in ("float32", "int32", "bool", "complex64"):
        for idx in ([5], [-6], [0]):
            for value in (3e9, 1e40, 1 + 2j, 2.5):
                x, tx = st.zeros(2, 5).to(getattr(st, dt)), torch.zeros(2, 5).to(getattr(torch, dt))
                got = _outcome(partial(x.index_fill, 1, st.tensor(idx), value))
                want = _outcome(partial(tx.index_fill, 1, torch.tensor(idx), value))
                assert got == want, (dt, idx, value)


def _outcome(call) -> tuple:  # noqa: ANN001
    try:
        out = call()
    except Exception as err:  # noqa: BLE001 (the class family and first line are compared)
        family = next(c for c in (IndexError, TypeError, ValueError, RuntimeError) if isinstance(err, c))
        return family.__name__, str(err).split("\n")[0]
    return "ok", out.tolist()
