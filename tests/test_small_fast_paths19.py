"""Session 19's small-op fast paths without a compiled pass of their own: nan_to_num's default
bounds (straight to ``unary_exact``), conj's inlined row-major path, type_as's own dtype: the
general paths' bits and layouts, torch's values."""

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native

_SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -2.5, 1e30, 1e-40])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (), (0, 2)])
@pytest.mark.parametrize("nan", [0.0, -0.0, 7.5, float("nan")])
def test_nan_to_num(dtype, shape, nan):
    rng = np.random.default_rng(2)
    a = np.asarray(rng.choice(_SPECIALS, shape), dtype)
    x = st.tensor(a)
    got = st.nan_to_num(x, nan)
    with native.disabled():
        slow = st.nan_to_num(x, nan)
    assert got.numpy().tobytes() == slow.numpy().tobytes() and got.stride() == slow.stride()
    want = torch.nan_to_num(torch.tensor(a), nan)
    assert got.numpy().tobytes() == want.numpy().tobytes()
    view = st.tensor(np.asarray(rng.choice(_SPECIALS, (4, 6)), dtype))[1:3]  # (an offset row-major run)
    assert st.nan_to_num(view, nan).numpy().tobytes() == torch.nan_to_num(torch.tensor(view.numpy()), nan).numpy().tobytes()


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_conj(dtype):
    a = (np.arange(24).reshape(4, 6) - 1j * np.arange(24).reshape(4, 6) ** 2).astype(dtype)
    a[0, 0] = complex(np.nan, -0.0)
    base = st.tensor(a)
    for x, t in ((base, torch.tensor(a)), (base[1:3], torch.tensor(a)[1:3]), (base.t(), torch.tensor(a).t())):
        got = x.conj()
        want = t.conj().resolve_conj()
        assert got.numpy().tobytes() == want.numpy().tobytes() and got.stride() == want.stride()
        assert got.data_ptr() != x.data_ptr()
    real = st.tensor([1.0, 2.0])
    assert real.conj() is real


def test_type_as():
    x = st.tensor([1.0, 2.0])
    assert x.type_as(st.zeros(1)) is x
    y = x.type_as(st.zeros(1, dtype=st.float64))
    assert y.dtype == st.float64 and y.tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="must be Tensor"):
        x.type_as(1.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (), (0, 2)])
def test_where_select_runs(dtype, shape):
    rng = np.random.default_rng(4)
    m = np.asarray(rng.random(shape) > 0.5)
    a = np.asarray(rng.choice(_SPECIALS, shape), dtype)
    b = np.asarray(rng.choice(_SPECIALS, shape), dtype)
    if a.size:  # (a NaN payload: a selection moves the bits)
        a.reshape(-1).view(np.uint32 if dtype == np.float32 else np.uint64)[0] = 0x7F800123 if dtype == np.float32 \
            else 0x7FF0000000000123
    got = st.where(st.tensor(m), st.tensor(a), st.tensor(b))
    with native.disabled():
        slow = st.where(st.tensor(m), st.tensor(a), st.tensor(b))
    assert got.numpy().tobytes() == slow.numpy().tobytes() and got.stride() == slow.stride()
    want = torch.where(torch.tensor(m), torch.tensor(a), torch.tensor(b))
    assert got.numpy().tobytes() == want.numpy().tobytes() and got.stride() == want.stride()
    base, mask = st.tensor(rng.standard_normal((4, 6)).astype(dtype)), st.tensor(rng.random((4, 6)) > 0.5)
    got = st.where(mask[1:3], base[1:3], base[:2])  # (offset runs)
    assert got.tolist() == np.where(mask.numpy()[1:3], base.numpy()[1:3], base.numpy()[:2]).tolist()


def test_isreal_of_a_real_tensor():
    for x in (st.rand(3, 4), st.rand(4, 3).t(), st.zeros(0, 2), st.tensor(1.5), st.arange(6)[1:5]):
        got = st.isreal(x)
        want = torch.isreal(torch.tensor(x.numpy()) if x.ndim < 2 else torch.tensor(x.numpy().T).T)
        assert got.dtype == st.bool and got.tolist() == want.tolist() and got.stride() == want.stride()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 12, 256, 1000])
def test_xlogy_finish(dtype, n):
    rng = np.random.default_rng(n)
    ut = np.uint32 if dtype == np.float32 else np.uint64
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-40, 1e30])
    x, y = rng.choice(specials, n).astype(dtype), rng.choice(specials, n).astype(dtype)
    # (NaN payloads, a signalling one in x: where x and log(y) are both NaN the kernel declines)
    x.view(ut)[::5] = 0x7F800123 if dtype == np.float32 else 0x7FF0000000000123
    y.view(ut)[::7] = 0xFFC00456 if dtype == np.float32 else 0xFFF8000000000456
    for a, b in ((x, y), (np.abs(x) + 1, y), (x, np.abs(y) + 1)):
        got = st.xlogy(st.tensor(a), st.tensor(b))
        with native.disabled():
            slow = st.xlogy(st.tensor(a), st.tensor(b))
        assert got.numpy().tobytes() == slow.numpy().tobytes()
        want = torch.xlogy(torch.tensor(a), torch.tensor(b))
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-6 if dtype == np.float32 else 1e-14)
