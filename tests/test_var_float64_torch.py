"""float64 (and complex128) var / std / var_mean / std_mean give PyTorch's bits: its one-result
all-reduce (``std_var_all_cpu``: its own mean, squared deviations summed in its iterator's order
by slab) and its Welford updates elsewhere and always for var_mean (kernels/torch_variance.py).
NumPy's two-pass formula matched only 5-46% of PyTorch's float64 results; every case here is
compared bit for bit, on layouts that favour permuted, stepped, expanded and size-1 dims, with
the compiled kernel and with the NumPy fallback."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import build_valued, specs
from strided.kernels import native, torch_variance

torch.set_num_threads(1)  # (PyTorch's reference: one thread; more split the sums differently)

_OPS = ("var", "std", "var_mean", "std_mean")
_KEYWORDS = ({}, {"correction": 0}, {"correction": 2.5}, {"unbiased": False})


def _same(ours: st.Tensor, theirs: torch.Tensor) -> bool:
    a, b = ours.detach().numpy(), theirs.detach().numpy()
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    return np.array_equal(a, b, equal_nan=True) if np.isnan(b).any() else a.tobytes() == b.tobytes()


def _compare(t: torch.Tensor, s: st.Tensor, dims: list) -> list[str]:
    """Each op x correction x dims x keepdim on both; the cases whose results differ."""
    wrong = []
    for name in _OPS:
        for kw in _KEYWORDS:
            for dim in dims:
                for keepdim in ((False,) if dim is None else (False, True)):
                    args = {} if dim is None else {"dim": dim, "keepdim": keepdim}
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        want = getattr(torch, name)(t, **args, **kw)
                        got = getattr(st, name)(s, **args, **kw)
                    pairs = zip(got, want) if isinstance(want, tuple) else [(got, want)]
                    if not all(_same(g, w) for g, w in pairs):
                        wrong.append(f"{name}({args}, {kw})")
    return wrong


@settings(max_examples=25, deadline=None)
@given(spec=specs(min_dims=1, max_dims=4, max_size=6), seed=hs.integers(0, 2**31), data=hs.data())
def test_float64_moments_are_torchs_bits(spec, seed, data):
    if 0 in spec.shape:
        return  # (no element: NaN, the general path's, compared in test_reductions)
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(spec.storage_size) * rng.uniform(0.1, 100) + rng.uniform(-50, 50)
    t, _, s = build_valued(spec, values)
    nd = len(spec.shape)
    dims = [None, data.draw(hs.integers(-nd, nd - 1)),
            tuple(sorted(data.draw(hs.sets(hs.integers(0, nd - 1), min_size=1, max_size=nd))))]
    assert _compare(t, s, dims) == []


def test_float64_moments_with_infinities_and_nan_are_torchs():
    rng = np.random.default_rng(5)
    for trial in range(40):
        x = rng.standard_normal((3, 5)) * 10
        for _ in range(trial % 3 + 1):
            x[rng.integers(3), rng.integers(5)] = rng.choice([np.inf, -np.inf, np.nan])
        assert _compare(torch.from_numpy(x), st.from_numpy(x), [None, 0, 1]) == [], x


def test_complex128_var_and_means_are_torchs():
    # (complex std is left out: PyTorch takes the square root of var(real) + var(imag) with its
    # vectorised sqrt (MKL's here), an ulp off the correctly rounded one in ~1% of results)
    rng = np.random.default_rng(6)
    for shape, dim in [((4, 5), None), ((4, 5), 0), ((4, 5), 1), ((3, 1, 6), (0, 2)), ((7,), 0)]:
        z = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) * 30
        t, s = torch.from_numpy(z), st.from_numpy(z)
        assert _same(s.var(dim), t.var(dim))
        for a, b in zip(st.var_mean(s, dim), torch.var_mean(t, dim)):
            assert _same(a, b), (shape, dim)


def test_larger_rows_columns_and_one_result_are_torchs():
    """Past the small kernels: a reduced leading dim (the column loop), last-dim rows, a permuted
    3-d tensor and one result (the all-reduce's slabs), against torch and the fallback."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((40, 300)) * 7 + 3
    cube = rng.standard_normal((6, 7, 8)).transpose(2, 0, 1)[:, ::2]
    cases = [(x, 0), (x, 1), (x, None), (x.T, 0), (cube, None), (cube, (0, 2)), (cube, 1)]
    for a, dim in cases:
        t, s = torch.from_numpy(a), st.from_numpy(a)
        for name in _OPS:
            want = getattr(torch, name)(t, dim)
            got = getattr(st, name)(s, dim)
            with native.disabled():
                fallback = getattr(st, name)(s, dim)
            for g, f, w in (zip(got, fallback, want) if isinstance(want, tuple) else [(got, fallback, want)]):
                assert _same(g, w) and _same(f, w), (a.shape, a.strides, dim, name)


def test_gradients_of_float64_moments_are_unchanged():
    """The values are PyTorch's; the gradients stay var's and mean's (recorded as before)."""
    x = np.random.default_rng(8).standard_normal((4, 6))
    for name in _OPS:
        for kw in ({}, {"correction": 0}):
            s = st.tensor(x, requires_grad=True)
            t = torch.tensor(x, requires_grad=True)
            got, want = getattr(st, name)(s, 1, **kw), getattr(torch, name)(t, 1, **kw)
            got = got if isinstance(got, tuple) else (got,)
            want = want if isinstance(want, tuple) else (want,)
            sum(g.sum() for g in got).backward()
            sum(w.sum() for w in want).backward()
            np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=1e-13, atol=1e-15)


def test_kernel_arguments_are_checked():
    k = native.special()
    if k is None:
        pytest.skip("the compiled kernels are not built here")  # (CI builds them: this runs there)
    x = np.zeros(6)
    with pytest.raises(ValueError, match="multiple of n"):
        k.torch_welford_rows(x, np.empty(2), np.empty(2), 4, 3.0, False)
    with pytest.raises(ValueError, match="one format"):
        k.torch_welford_rows(x, np.empty(2, np.float32), np.empty(2), 3, 2.0, False)
    with pytest.raises(ValueError, match="multiple of slab"):
        k.torch_squared_deviations(x, 4, 0.0)
    assert k.torch_welford_rows(x, x[:2], np.empty(2), 3, 2.0, False) is False  # (an overlap: nothing done)


def test_the_module_functions_on_their_own():
    x = np.array([[1.0, 2.0, 4.0], [0.5, 0.25, 8.0]])
    var, mean = torch_variance.welford(x, (1,), 2.0, True)
    want = torch.std_mean(torch.from_numpy(x), 1, keepdim=True)
    assert np.array_equal(var, want[0].numpy()) and np.array_equal(mean, want[1].numpy())
    v, m = torch_variance.all_reduce(x, 5.0, False)
    assert v == torch.from_numpy(x).var().item() and m == torch.from_numpy(x).mean().item()
