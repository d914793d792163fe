"""Red-team checks of bfloat16 against PyTorch 2.13: bit patterns (int16 views) of casts and
kernels where strided once differed silently, and view(bfloat16) itself."""

import numpy as np
import pytest

import strided as S

torch = pytest.importorskip("torch")

# edge bit patterns: zeros, subnormals, min normal, inf, max, 1 and its neighbours, NaN
_BITS = np.array([0, 1, 0x7F, 0x80, 0x8001, 0x7F80, 0xFF80, 0x7F7F, 0x3F80, 0x3F81, 0xBF80, 0x8000],
                 dtype=np.uint16).view(np.int16)


def _pair() -> tuple:
    return torch.from_numpy(_BITS.copy()).view(torch.bfloat16), S.tensor(_BITS.copy()).view(S.bfloat16)


def _bits(t: object) -> list:
    return t.view(torch.int16).tolist() if isinstance(t, torch.Tensor) else t.view(S.int16).tolist()


def test_view_dtype_accepts_bfloat16():
    # bfloat16 is a DType subclass: view(strided.bfloat16) was read as a size and refused
    tt, st = _pair()
    assert st.dtype is S.bfloat16 and _bits(st) == _bits(tt)
    assert st.view(S.float16).view(S.int16).tolist() == tt.view(torch.float16).view(torch.int16).tolist()
    f = np.array([1.5, -2.0], np.float32)
    assert _bits(S.tensor(f).view(S.bfloat16)) == _bits(torch.from_numpy(f).view(torch.bfloat16))
    assert S.tensor(f).view(dtype=S.bfloat16).shape == (4,)


@pytest.mark.parametrize("name", ["int8", "uint8", "int16", "int32", "int64"])
def test_cast_to_int_out_of_range_matches_torch(name):
    # ml_dtypes' own bfloat16 -> int cast gave 0 for NaN, inf and out-of-range values
    data = np.array([1e10, -1e10, 300.0, -129.0, 1e30, np.nan, np.inf, -np.inf, -1.0, 2.5], np.float32)
    want = torch.from_numpy(data).bfloat16().to(getattr(torch, name))
    got = S.tensor(data).bfloat16().to(getattr(S, name))
    assert got.tolist() == want.tolist()
    into = S.zeros(10, dtype=getattr(S, name))
    into.copy_(S.tensor(data).bfloat16()[None].expand(2, 10)[1])  # the in-place path, a strided source
    assert into.tolist() == want.tolist()


def test_remainder_zero_keeps_dividend_sign():
    # PyTorch's remainder gives a zero result the dividend's sign; the mend skipped bfloat16
    tt, st = _pair()
    finite = [i for i, b in enumerate(_BITS.view(np.uint16)) if b & 0x7F80 != 0x7F80]
    tt, st = tt[finite], st[finite]
    assert _bits(st.remainder(st.flip(0))) == _bits(tt.remainder(tt.flip(0)))
    assert _bits(st.remainder(-2.0)) == _bits(tt.remainder(-2.0))
    assert _bits(st % 1) == _bits(tt % 1)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_logsumexp_rounds_each_step_as_torch(dt):
    # PyTorch's logsumexp is composite: each step rounds to the 2-byte dtype (one float32 pass
    # was an ulp off on about a third of the rows)
    x = (np.random.RandomState(0).randn(24, 64) * 5).astype(np.float32)
    x[0, 0] = np.inf
    t = torch.from_numpy(x).to(getattr(torch, dt))
    s = S.tensor(x).to(getattr(S, dt))
    for dim in (0, 1):
        assert _bits(s.logsumexp(dim).view(S.int16)) == t.logsumexp(dim).view(torch.int16).tolist()


@pytest.mark.parametrize("exponent", [0.5, -0.5])
def test_pow_half_is_sqrt_and_rsqrt_as_torch(exponent):
    # PyTorch's bfloat16 x ** 0.5 and x ** -0.5 are its sqrt and rsqrt kernels: -0.0 ** 0.5 is
    # -0.0 and (-inf) ** 0.5 NaN there, where C's pow gives 0.0 and inf
    v = np.array([-0.0, 0.0, -np.inf, np.inf, 4.0, 0.25, 1.0, -4.0], np.float32)
    t, s = torch.from_numpy(v).bfloat16(), S.tensor(v).bfloat16()
    want = t.pow(exponent).float().numpy()
    got = np.asarray(s.pow(exponent).float().numpy())
    np.testing.assert_array_equal(got, want)
    assert (np.signbit(got) == np.signbit(want))[~np.isnan(want)].all()
    s.pow_(exponent)
    np.testing.assert_array_equal(np.asarray(s.float().numpy()), want)


# just above, at and just past the float32 -> bfloat16 tie: PyTorch rounds a double to float32
# first, so 1 + 2**-8 + 2**-30 becomes the tie 1 + 2**-8 and rounds to even (1.0)
_DOUBLES = [1 + 2**-8 + 2**-52, 1 + 2**-8 + 2**-30, 1 + 3 * 2**-8 - 2**-40, -(1 + 2**-8 + 2**-30), 3.3961e38]


def test_double_to_bfloat16_rounds_through_float32():
    want = torch.tensor(_DOUBLES, dtype=torch.float64).bfloat16()
    assert _bits(S.tensor(_DOUBLES, dtype=S.float64).bfloat16()) == _bits(want)
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        assert _bits(S.tensor(_DOUBLES, dtype=S.complex128).to(S.bfloat16)) == _bits(want)
    assert _bits(S.tensor(_DOUBLES, dtype=S.bfloat16)) == _bits(want)  # Python floats
    assert _bits(S.tensor(np.array(_DOUBLES), dtype=S.bfloat16)) == _bits(want)
    into = S.zeros(5, dtype=S.bfloat16)
    into.copy_(S.tensor(_DOUBLES, dtype=S.float64))
    assert _bits(into) == _bits(want)


def test_python_scalar_to_bfloat16_rounds_through_float32():
    v = _DOUBLES[1]
    zt, zs = torch.zeros(3, dtype=torch.bfloat16), S.zeros(3, dtype=S.bfloat16)
    assert _bits(S.full((3,), v, dtype=S.bfloat16)) == _bits(torch.full((3,), v, dtype=torch.bfloat16))
    assert _bits(zs + v) == _bits(zt + v)
    assert _bits(zs.clone().fill_(v)) == _bits(zt.clone().fill_(v))
    s2 = zs.clone()
    s2[1] = v
    t2 = zt.clone()
    t2[1] = v
    assert _bits(s2) == _bits(t2)


def test_double_to_float16_rounds_through_float32_too():
    # the same two roundings for float16 (c10::Half is made from a float)
    v = [1 + 2**-11 + 2**-30, 1 + 2**-11 + 2**-52, 1 + 3 * 2**-11 - 2**-40, -(1 + 2**-11 + 2**-30)]
    want = torch.tensor(v, dtype=torch.float64).half().view(torch.int16).tolist()
    assert S.tensor(v, dtype=S.float64).half().view(S.int16).tolist() == want
    assert S.tensor(v, dtype=S.float16).view(S.int16).tolist() == want
    got = (S.zeros(4, dtype=S.float16) + v[0]).view(S.int16).tolist()
    assert got == (torch.zeros(4, dtype=torch.float16) + v[0]).view(torch.int16).tolist()


def test_complex_uniform_and_normal_in_place_as_torch():
    # PyTorch fills complex tensors: uniform_ each part on [from, to), normal_ each part with
    # std / sqrt(2) and the mean added to both parts (strided refused both)
    u = np.asarray(S.empty(4000, dtype=S.complex64).uniform_(2, 3).numpy())
    assert u.dtype == np.complex64
    assert (u.real >= 2).all() and (u.real < 3).all() and (u.imag >= 2).all() and (u.imag < 3).all()
    assert abs(u.real.mean() - 2.5) < 0.05 and abs(u.imag.mean() - 2.5) < 0.05
    n = np.asarray(S.empty(4000, dtype=S.complex128).normal_(1.0, 2.0).numpy())
    assert abs(n.real.mean() - 1) < 0.15 and abs(n.imag.mean() - 1) < 0.15
    assert abs(n.real.std() - 2**0.5) < 0.1 and abs(n.imag.std() - 2**0.5) < 0.1
    for lib, err in ((torch, RuntimeError), (S, S.errors.StridedRuntimeError)):
        with pytest.raises(err, match="to is out of bounds for float$|to is out of bounds for float\\n"):
            lib.empty(2, dtype=lib.complex64).uniform_(0, 1e39)


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16"])
def test_relu_keeps_negative_zero_as_torch(dt):
    # PyTorch's relu (clamp_min(x, 0)) keeps -0.0; NumPy's maximum gave +0.0 for some dtypes
    v = [-0.0, 0.0, -1.0, 2.0, -0.0, 3.0]
    t, s = torch.tensor(v).to(getattr(torch, dt)), S.tensor(v).to(getattr(S, dt))
    want = np.signbit(t.relu().float().numpy())
    assert (np.signbit(np.asarray(s.relu().float().numpy())) == want).all()  # the fast path
    assert (np.signbit(np.asarray(s.view(2, 3).t().relu().t().float().numpy()).ravel()) == want).all()
    assert (np.signbit(np.asarray(s.clone().relu_().float().numpy())) == want).all()


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_nanmean_is_rounded_nansum_over_count(dt):
    # PyTorch's nanmean is nansum(x) / count: the sum rounds to the 2-byte dtype before dividing
    x = (np.random.RandomState(1).randn(6, 40) * 3).astype(np.float32)
    x[0, 0] = x[2, 5] = np.nan
    t, s = torch.from_numpy(x).to(getattr(torch, dt)), S.tensor(x).to(getattr(S, dt))
    for dim in (0, 1):
        assert s.nanmean(dim).view(S.int16).tolist() == t.nanmean(dim).view(torch.int16).tolist()
