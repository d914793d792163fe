"""quantile's selection path (inputs of _SELECT_MIN elements or more, nothing recorded): the
values np.partition selects, gathered and interpolated, are PyTorch's (its sort, then the same
gathers and lerp) bit for bit, for every interpolation, dim, keepdim, q form and layout; inputs
where the sort's order matters (a zero read: 0.0 and -0.0 tie; a NaN) fall back to the sort."""

import numpy as np
import pytest
import torch

import strided
import strided.ops.reductions.order_stats as order_stats

RNG = np.random.default_rng(5)


def _check(a: np.ndarray, q, permuted: bool, **kw) -> None:
    t, s = torch.from_numpy(a), strided.tensor(a)
    if permuted:
        t, s = t.t(), s.t()
    if isinstance(q, list):
        tq, sq = torch.tensor(q, dtype=t.dtype), strided.tensor(np.array(q, a.dtype))
    else:
        tq = sq = q
    expected = torch.quantile(t, tq, **kw)
    got = strided.quantile(s, sq, **kw)
    assert got.shape == tuple(expected.shape) and got.stride() == expected.stride()
    assert got.numpy().tobytes() == expected.numpy().tobytes(), (a.shape, q, kw, permuted)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_selection_is_the_sorts_values(dtype, interpolation):
    a = RNG.standard_normal((64, 100)).astype(dtype)
    for q in (0.3, 0.0, 1.0, 0.5, [0.1, 0.5, 0.99], [0.25]):
        for dim in (None, 0, -1):
            for keepdim in (False, True):
                for permuted in (False, True):
                    _check(a, q, permuted, dim=dim, keepdim=keepdim, interpolation=interpolation)
    b = RNG.standard_normal((3, 40, 50)).astype(dtype)
    _check(b, 0.7, False, dim=1)
    _check(np.round(b * 3), [0.2, 0.5], False, dim=2, interpolation=interpolation)  # (many equal values)


def test_selection_runs_and_falls_back(monkeypatch):
    taken, current = [], [""]
    select = order_stats._quantile_selected

    def counted(*args):
        found = select(*args)
        taken.append((current[0], found is not None))
        return found

    monkeypatch.setattr(order_stats, "_quantile_selected", counted)
    a = RNG.standard_normal((64, 100)).astype(np.float32)
    zeros = a.copy()
    zeros[:, ::3] = 0.0
    zeros[:, 1::3] = -0.0  # (the values read are zeros: their order is the sort's)
    nan = a.copy()
    nan[7, 9] = np.nan
    for kind, x in (("plain", a), ("zeros", zeros), ("nan", nan)):
        current[0] = kind
        for permuted in (False, True):
            _check(x, 0.3, permuted, dim=1)
            _check(x, 0.5, permuted)
    # (the row-major dim=1 call of a plain input takes the small rows' sort before the selection)
    plain = [found for kind, found in taken if kind == "plain"]
    assert len(plain) >= 2 and all(plain)
    others = [found for kind, found in taken if kind != "plain"]
    assert len(others) == 8 and not any(others)
