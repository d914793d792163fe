"""Complex ``abs`` against torch.abs bit for bit, and every ``|z|`` strided compares against another
(the norms' tie masks, isclose) taken the same way.

PyTorch's CPU abs of a complex tensor is ``std::abs``, the C library's hypot, in its scalar loop
(non-contiguous inputs, a contiguous run shorter than two vectors, a run's last elements) and
Sleef's ``hypot_u05`` in its vectorized loop; the two differ in a few elements per thousand (not
correctly rounded: 0.6% of complex128 parts near 1, results whose low part is subnormal). strided
is the C library's hypot everywhere (``strided.kernels.elementwise.complex_abs``): torch's
reference here is its scalar loop, a strided view of the same values. NumPy's ``np.absolute`` of
complex, which strided took before, is 1 ulp off it in about 35% of elements with parts near 1."""
import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from complex_parts import PAIR_DTYPES as DTYPES
from complex_parts import scaled_pairs


def _parts(fl):
    fi = np.finfo(fl)
    return np.array([0.0, -0.0, fi.smallest_subnormal, -fi.smallest_subnormal, fi.smallest_normal / 3,
                     fi.tiny, fi.tiny * 1.7, 1.0, -2.5, 1 / 3, fi.max, -fi.max, fi.max / 2, np.inf, -np.inf,
                     np.nan, 1e-20], fl)


def _random(n, dt, fl, seed):
    """Parts of every magnitude: normal ones over 60 decades, a tenth subnormal-range, a tenth
    near the largest, a tenth zeros / infinities / NaN."""
    rng = np.random.default_rng(seed)
    fi = np.finfo(fl)
    z = np.empty(n, dt)
    for part in (z.real, z.imag):
        kind = rng.integers(0, 10, n)
        x = (rng.standard_normal(n) * 10.0 ** rng.uniform(-30, 30, n)).astype(fl)
        x = np.where(kind == 0, (fi.tiny * rng.uniform(-1, 1, n)).astype(fl), x)
        x = np.where(kind == 1, (fi.max * rng.uniform(-1, 1, n)).astype(fl), x)
        x = np.where(kind == 2, np.array([0.0, -0.0, np.inf, -np.inf, np.nan], fl)[rng.integers(0, 5, n)], x)
        part[...] = x
    return z


def _torch_scalar(z: np.ndarray) -> np.ndarray:
    """torch.abs of ``z`` through PyTorch's scalar loop: a stride-2 view of it."""
    return torch.abs(torch.tensor(np.stack([z, z], -1)).reshape(-1)[::2]).numpy()


def _assert_bits(s: np.ndarray, t: np.ndarray) -> None:
    assert s.dtype == t.dtype and s.shape == t.shape
    iv = np.int32 if s.dtype == np.float32 else np.int64
    ok = (s.view(iv) == t.view(iv)) | (np.isnan(s) & np.isnan(t))
    assert ok.all(), (np.flatnonzero(~ok)[:4], s[~ok][:4], t[~ok][:4])


@pytest.mark.parametrize("how", ["plain", "strided", "transposed", "out"])
@pytest.mark.parametrize("dt,fl", DTYPES)
def test_abs_special_parts(dt, fl, how):
    parts = _parts(fl)
    z = np.empty(len(parts) ** 2, dt)
    z.real, z.imag = np.repeat(parts, len(parts)), np.tile(parts, len(parts))  # (exact parts, -0.0 kept)
    want = _torch_scalar(z)
    if how == "plain":
        got = st.abs(st.tensor(z)).numpy()
    elif how == "strided":
        got = st.tensor(np.stack([z, z], -1)).reshape(-1)[::2].abs().numpy()
    elif how == "transposed":
        got = st.abs(st.tensor(z.reshape(len(parts), -1).T.copy()).mT).numpy().reshape(-1)
    else:
        got = st.empty(len(z), dtype=st.float32 if fl == np.float32 else st.float64)
        st.abs(st.tensor(z), out=got)
        got = got.numpy()
    _assert_bits(got, want)
    with np.errstate(over="ignore"):
        _assert_bits(got, np.hypot(z.real, z.imag))


@pytest.mark.parametrize("dt,fl", DTYPES)
def test_abs_random_magnitudes(dt, fl):
    """Every element equals torch's scalar loop; torch's own contiguous (vectorized) result
    differs from it in a few per thousand, and in those strided is the scalar loop's."""
    z = _random(20011, dt, fl, 1)
    got = st.abs(st.tensor(z)).numpy()
    _assert_bits(got, _torch_scalar(z))
    vectorized = torch.abs(torch.tensor(z)).numpy()
    same = (got == vectorized) | (np.isnan(got) & np.isnan(vectorized))
    assert same.mean() > 0.99  # (0.945-0.972 with np.absolute over these magnitudes)
    # a run shorter than two vectors of any width is the scalar loop in torch too
    for n in (1, 2, 3):
        _assert_bits(st.abs(st.tensor(z[:n])).numpy(), torch.abs(torch.tensor(z[:n])).numpy())


@settings(max_examples=200, deadline=None)
@given(hs.sampled_from(DTYPES),
       hs.lists(hs.tuples(hs.floats(allow_nan=True, width=32), hs.floats(allow_nan=True, width=32)),
                min_size=1, max_size=40),
       hs.integers(-300, 300))
def test_abs_hypothesis(dtfl, pairs, exp):
    z, _ = scaled_pairs(dtfl, pairs, exp)
    _assert_bits(st.abs(st.tensor(z)).numpy(), _torch_scalar(z))


@pytest.mark.parametrize("o", [1, -1, float("inf"), -float("inf")])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_matrix_norm_ties_use_the_same_abs(dtype, o):
    """matrix_norm's gradient for ord +-1 / +-inf finds the winning column / row by comparing
    A.abs().sum() against the forward's result: an |z| taken another way in one of them (1 ulp
    off in a fifth of elements) leaves no tie, and the gradient was 0 / 0 = NaN."""
    rng = np.random.default_rng(11)
    a = (rng.standard_normal((6, 30, 20)) + 1j * rng.standard_normal((6, 30, 20))).astype(dtype)
    tt = torch.tensor(a, requires_grad=True)
    torch.linalg.matrix_norm(tt, ord=o).sum().backward()
    ss = st.tensor(a, requires_grad=True)
    value = st.linalg.matrix_norm(ss, ord=o)
    value.sum().backward()
    got = ss.grad.numpy()
    assert not np.isnan(got).any()
    tol = 1e-5 if dtype == "complex64" else 1e-12
    np.testing.assert_allclose(got, tt.grad.numpy(), rtol=tol, atol=tol)
    sums = st.tensor(a).abs().sum(1 if abs(o) == 1 else 2).numpy()  # (|a| summed as the backward does)
    pick = np.max if o > 0 else np.min
    np.testing.assert_array_equal(value.detach().numpy(), pick(sums, axis=-1))


@pytest.mark.parametrize("o", [float("inf"), -float("inf")])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_vector_norm_inf_is_the_abs_extreme(dtype, o):
    """vector_norm(inf) of complex is the largest |z| of strided.abs, and its gradient's tie mask
    (x.abs() == norm) finds it in every row."""
    rng = np.random.default_rng(12)
    a = (rng.standard_normal((200, 50)) + 1j * rng.standard_normal((200, 50))).astype(dtype)
    x = st.tensor(a, requires_grad=True)
    n = st.linalg.vector_norm(x, o, dim=1)
    pick = np.max if o > 0 else np.min
    np.testing.assert_array_equal(n.detach().numpy(), pick(st.abs(st.tensor(a)).numpy(), axis=1))
    n.sum().backward()
    assert (np.count_nonzero(x.grad.numpy(), axis=1) == 1).all()  # (one winner per row, no NaN)
    assert not np.isnan(x.grad.numpy()).any()


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_isclose_complex_at_the_boundary(dt):
    """PyTorch's isclose: |x - y| <= atol + |rtol * y| (the parts scaled, then |z|), |z| its abs:
    pairs placed on the boundary all answer as torch's."""
    rng = np.random.default_rng(13)
    n, rtol = 100000, 1e-3
    y = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    turn = np.exp(1j * rng.uniform(0, 2 * np.pi, n))
    x = (y + rtol * np.abs(y) * turn * rng.uniform(0.999, 1.001, n)).astype(dt)
    for atol in (0.0, 1e-6):
        want = torch.isclose(torch.tensor(x), torch.tensor(y), rtol=rtol, atol=atol).numpy()
        got = st.isclose(st.tensor(x), st.tensor(y), rtol=rtol, atol=atol).numpy()
        assert 0.2 < want.mean() < 0.95  # (the boundary is crossed both ways)
        np.testing.assert_array_equal(got, want)


def test_every_parts_pair_of_one_row():
    """sgn's zero test and its divisor, abs and vector_norm of one element agree on |z|."""
    parts = _parts(np.float64)
    z = np.array([complex(r, i) for r, i in itertools.product(parts[:10], parts[:10])], np.complex128)
    x = st.tensor(z)
    size = st.abs(x).numpy()
    _assert_bits(st.linalg.vector_norm(x.reshape(-1, 1), dim=1).numpy(), size)
    assert ((st.sgn(x).numpy() == 0) == (size == 0)).all()


def test_long_complex64_runs_are_hypotf_bit_for_bit():
    """A row-major complex64 run of 64 or more takes the compiled complex64_abs (four elements at
    a time, a group with a non-finite part by hypotf itself): the C library's hypotf bits on
    random bit patterns (every exponent, subnormals, NaN payloads, infinities), kernels on and off,
    through abs and with out=."""
    import strided as st
    from strided.kernels import native
    from strided.kernels.elementwise import complex_abs

    rng = np.random.default_rng(31)
    bits = rng.integers(0, 2**32, 2 * 4099, dtype=np.uint64).astype(np.uint32)
    z = bits.view(np.float32).view(np.complex64).copy()
    z[:6] = [complex(np.inf, np.nan), complex(np.nan, -np.inf), complex(0, -0.0), complex(1e-45, 1e-45),
             complex(3e38, 3e38), complex(-np.inf, 0)]
    with np.errstate(all="ignore"):
        want = np.hypot(z.real, z.imag)
        got = complex_abs(z)
        out = np.empty(z.shape, np.float32)
        complex_abs(z, out)
        with native.disabled():
            slow = complex_abs(z)
    for res in (got, out, slow, st.tensor(z).abs().numpy()):
        assert res.dtype == np.float32 and res.view(np.uint32).tolist() == want.view(np.uint32).tolist()
