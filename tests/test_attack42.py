"""attack42: hostile differential tests of session 41's fast paths against PyTorch (and NumPy).

Found (fixed on this branch): addcdiv's sum of a NaN ``input`` and a NaN quotient kept the input's
NaN word (NumPy's add, the compiled pass's AVX2 lanes, strided's add on the general path) where
PyTorch's float32 / float64 kernel keeps the quotient's in its vector and scalar loops alike
(AVX512, AVX2 and default capabilities, torch 2.13): ``addcdiv(-nan, 2, nan)`` was -nan, PyTorch's
+nan. RepeatBackward0 summed every dim at once where PyTorch sums the added leading dims one at a
time first (last-bit gradients). An integer division by a 0-d int64 divisor that wraps to 0 in the
tensor's dtype (int32 ``t // tensor(2**32)``) returned zeros where PyTorch refuses it; an integer
power by a 0-d exponent that wraps negative raised NumPy's bare ValueError. diff of complex values
subtracted with NumPy (1-infj where PyTorch's complex sub gives nan-infj). Found (not fixed):
addcmul's NaN word where ``tensor2`` is broadcast along the inner dim
(stride 0) and both products' operands are NaN: PyTorch's vector lanes keep tensor2's there, its
scalar tail tensor1's (a strict xfail below). Held: roll / flip / fliplr / flipud / repeat / tile,
round / diff / conj_physical / tensor / new_tensor of transposed, sliced, stepped and expanded
inputs; the new_* methods' dtype / requires_grad / size spellings; logsumexp's last-dim rows of
infinities and NaNs; max_pool1d's modes; clamp's tensor and NaN bounds, out= and aliasing;
sinh / cosh / atanh float32 / float64 bits.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import strided
import strided.nn.functional as F

_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_U = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_DT = {"float32": (np.float32, torch.float32, strided.float32),
       "float64": (np.float64, torch.float64, strided.float64)}


def _bits(t) -> np.ndarray:
    a = np.ascontiguousarray(t.detach().numpy())
    return a.view(_U[a.itemsize])


def _nan(dt: str, word: int):
    """The float of ``dt`` with the NaN ``word``'s payload (float32 words; float64 widened)."""
    if dt == "float32":
        return np.array([word], np.uint32).view(np.float32)[0]
    return np.array([(word & 0x80000000) << 32 | 0x7FF8000000000000 | (word & 0xFF)], np.uint64).view(np.float64)[0]


_WORDS = [0xFFC00001, 0x7FC00002, 0x7FC00003, 0xFFC00000, 0x7FC00000]
_PLAIN = [1.0, -0.0, 2.0, np.inf, -np.inf, 0.0, 3.0]


@hs.composite
def _addc_case(draw):
    dt = draw(hs.sampled_from(sorted(_DT)))
    n = draw(hs.sampled_from([1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65, 100]))
    pick = hs.one_of(hs.sampled_from(_WORDS).map(lambda w: ("nan", w)), hs.sampled_from(_PLAIN).map(lambda v: ("v", v)))
    vals = []
    for _ in range(3):
        k = draw(hs.lists(pick, min_size=1, max_size=4))
        arr = np.array([_nan(dt, x) if kind == "nan" else x for kind, x in k], _DT[dt][0])
        vals.append(np.resize(arr, 2 * n))
    layout = draw(hs.sampled_from(["flat", "rows", "step", "input_bc", "t1_bc", "zero_d_input", "transposed"]))
    value = draw(hs.sampled_from([1, 2.0, -1.0, 0.5, 0]))
    return dt, n, vals, layout, value


def _addc_operands(mod, dt, n, vals, layout):
    fdt = {"float32": (torch.float32, strided.float32), "float64": (torch.float64, strided.float64)}[dt]
    d = fdt[0] if mod is torch else fdt[1]
    a, b, c = (mod.tensor(v.copy(), dtype=d) for v in vals)
    if layout == "flat":
        return a[:n], b[:n], c[:n]
    if layout == "rows":
        return a.reshape(2, n), b.reshape(2, n), c.reshape(2, n)
    if layout == "step":
        return a[::2], b[::2], c[::2]
    if layout == "input_bc":
        return a.reshape(2, n)[:, :1], b.reshape(2, n), c.reshape(2, n)
    if layout == "t1_bc":
        return a.reshape(2, n), b.reshape(2, n)[:, :1], c.reshape(2, n)
    if layout == "zero_d_input":
        return a[0], b.reshape(2, n), c.reshape(2, n)
    return a.reshape(n, 2).t(), b.reshape(n, 2).t(), c.reshape(n, 2).t()


@_SETTINGS
@given(_addc_case())
def test_addcdiv_nan_words_vs_torch(case):
    """addcdiv's bits, NaN words included, out of place, in place and into out=, where input,
    tensor1 and tensor2 hold NaNs of distinct words (the quotient's NaN meets the input's)."""
    dt, n, vals, layout, value = case
    ts, ss = _addc_operands(torch, dt, n, vals, layout), _addc_operands(strided, dt, n, vals, layout)
    want = torch.addcdiv(*ts, value=value)
    got = strided.addcdiv(*ss, value=value)
    assert np.array_equal(_bits(got), _bits(want))
    assert tuple(got.stride()) == tuple(want.stride())
    if ts[0].shape == want.shape:
        tt, st = ts[0].clone(), ss[0].clone()
        tt.addcdiv_(ts[1], ts[2], value=value)
        st.addcdiv_(ss[1], ss[2], value=value)
        assert np.array_equal(_bits(st), _bits(tt))
    to, so = torch.empty(0, dtype=want.dtype), strided.empty(0, dtype=got.dtype)
    torch.addcdiv(*ts, value=value, out=to)
    strided.addcdiv(*ss, value=value, out=so)
    assert np.array_equal(_bits(so), _bits(to))


@pytest.mark.parametrize("dt", sorted(_DT))
@pytest.mark.parametrize("n", [1, 7, 8, 15, 16, 17, 20, 33, 70])
def test_addcdiv_nan_input_nan_quotient(dt, n):
    """The case found: a NaN input (sign bit set) plus a NaN quotient (tensor1's NaN, tensor2's,
    or 0/0's default NaN) is the quotient's word in PyTorch at every element (vector lanes and
    tail), fresh and in place, rows-major and broadcast; strided kept the input's."""
    np_dt, t_dt, s_dt = _DT[dt]
    x = _nan(dt, 0xFFC00001)
    for t1v, t2v in ((_nan(dt, 0x7FC00002), 1.0), (1.0, _nan(dt, 0x7FC00003)), (0.0, 0.0), (np.inf, np.inf),
                     (_nan(dt, 0x7FC00002), _nan(dt, 0x7FC00003))):
        a, b, c = (np.full(n, v, np_dt) for v in (x, t1v, t2v))
        for value in (1, 2.0):
            want = torch.addcdiv(torch.tensor(a), torch.tensor(b), torch.tensor(c), value=value)
            got = strided.addcdiv(strided.tensor(a), strided.tensor(b), strided.tensor(c), value=value)
            assert np.array_equal(_bits(got), _bits(want)), (t1v, t2v, value)
            tt, st = torch.tensor(a), strided.tensor(a)
            tt.addcdiv_(torch.tensor(b), torch.tensor(c), value=value)
            st.addcdiv_(strided.tensor(b), strided.tensor(c), value=value)
            assert np.array_equal(_bits(st), _bits(tt)), (t1v, t2v, value)
            # broadcast input: the general path (strided's add of the quotient)
            want = torch.addcdiv(torch.tensor(a[:1]), torch.tensor(b).reshape(1, n), torch.tensor(c[:1]), value=value)
            got = strided.addcdiv(strided.tensor(a[:1]), strided.tensor(b).reshape(1, n), strided.tensor(c[:1]),
                                  value=value)
            assert np.array_equal(_bits(got), _bits(want)), (t1v, t2v, value)


def test_addcdiv_float16_nan_quotient():
    """float16 computes in float32 (the general path): the quotient's NaN, rounded. (bfloat16's
    NaN words differ, before and after this branch: PyTorch's result is 0x7fc0 at every NaN here,
    strided's 0xffff, its float32 -> bfloat16 rounding of a NaN: not attacked further.)"""
    for t_dt, s_dt in ((torch.float16, strided.float16),):
        a = np.array([np.nan, 1.0, np.nan, -np.inf], np.float32)
        a[0] = -a[0]
        b = np.array([np.nan, np.nan, 0.0, 1.0], np.float32)
        c = np.array([1.0, 2.0, 0.0, 0.0], np.float32)
        want = torch.addcdiv(*(torch.tensor(v).to(t_dt) for v in (a, b, c)))
        got = strided.addcdiv(*(strided.tensor(v).to(s_dt) for v in (a, b, c)))
        assert np.array_equal(_bits(got.view(strided.int16)), _bits(want.view(torch.int16)))


_ISA_SCRIPT = """
import numpy as np, strided
f = np.array([0xffc00001], np.uint32).view(np.float32)[0]
q = np.array([0x7fc00002], np.uint32).view(np.float32)[0]
for n in (3, 8, 9, 17, 40):
    a = np.full(n, f, np.float32); b = np.full(n, q, np.float32); c = np.ones(n, np.float32)
    r = strided.addcdiv(strided.tensor(a), strided.tensor(b), strided.tensor(c)).numpy().view(np.uint32)
    assert (r == 0x7fc00002).all(), [hex(x) for x in r]
    r = strided.addcdiv(strided.tensor(a.astype(np.float64)), strided.tensor(b.astype(np.float64)),
                        strided.tensor(c.astype(np.float64)), value=2.0).numpy().view(np.uint64)
    assert (r == np.float64(q).view(np.uint64)).all(), [hex(x) for x in r]
print("ok")
"""


@pytest.mark.parametrize("isa", ["base", "avx2", "avx512"])
def test_addcdiv_nan_quotient_each_rows_isa(run_with_rows_isa, isa):
    """The compiled pass under each copy of its loops (base: the C loop alone; avx2 / avx512: the
    direct AVX2 + FMA lanes first, then the C loop where a NaN came out): the quotient's NaN."""
    assert run_with_rows_isa(_ISA_SCRIPT, isa) == "ok"


@pytest.mark.xfail(strict=True, reason="addcmul's NaN word with tensor2 broadcast along the inner dim: PyTorch's "
                   "vector lanes keep tensor2's NaN, its scalar tail tensor1's (not modelled: needs its loop split)")
def test_addcmul_nan_words_broadcast_tensor2():
    a = np.full((2, 16), 1.0, np.float32)
    b = np.full((2, 16), _nan("float32", 0x7FC00002), np.float32)
    c = np.full((2, 1), _nan("float32", 0x7FC00003), np.float32)
    want = torch.addcmul(torch.tensor(a), torch.tensor(b), torch.tensor(c))
    got = strided.addcmul(strided.tensor(a), strided.tensor(b), strided.tensor(c))
    assert np.array_equal(_bits(got), _bits(want))


# ---------------------------------------------------------------- layouts of the fast view/copy ops

@hs.composite
def _layout_pair(draw, dtypes=("float32", "float64", "int32", "int8", "bool", "float16")):
    dt = draw(hs.sampled_from(dtypes))
    shape = tuple(draw(hs.lists(hs.sampled_from([0, 1, 2, 3, 5, 8, 17]), min_size=0, max_size=3)))
    seed = draw(hs.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    full = tuple(s * 2 + 1 for s in shape)
    a = (rng.standard_normal(full) * 4).astype(dt)
    s, t = strided.tensor(a), torch.tensor(a)
    kind = draw(hs.sampled_from(["contiguous", "offset_step", "transposed", "expanded"]))
    idx = tuple(slice(1, 1 + n) for n in shape) if kind != "offset_step" else tuple(slice(1, None, 2) for _ in shape)
    s, t = s[idx], t[idx]
    if kind == "transposed" and len(shape) >= 2:
        s, t = s.transpose(0, -1), t.transpose(0, -1)
    if kind == "expanded" and len(shape) >= 1:
        s, t = s[..., :1].expand(*s.shape), t[..., :1].expand(*t.shape)
    return s, t


def _same(got, want):
    assert tuple(got.shape) == tuple(want.shape)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert np.array_equal(_bits(got.view(strided.uint8) if got.dtype == strided.bool else got),
                          _bits(want.view(torch.uint8) if want.dtype == torch.bool else want))
    if got.numel() > 1:
        assert tuple(got.stride()) == tuple(want.stride())


@_SETTINGS
@given(_layout_pair(), hs.sampled_from([(2,), (1, 1), (2, 3), (3, 1, 2), (0, 2), (1,)]), hs.integers(-20, 20))
def test_roll_flip_repeat_tile_layouts(pair, reps, shift):
    s, t = pair
    _same(s.roll(shift), t.roll(shift))
    if s.dim():
        _same(s.roll(shift, -1), t.roll(shift, -1))
        _same(s.flip(-1), t.flip(-1))
        _same(strided.flipud(s), torch.flipud(t))
    if s.dim() >= 2:
        _same(strided.fliplr(s), torch.fliplr(t))
        _same(s.flip((0, 1)), t.flip((0, 1)))
        _same(s.roll((shift, 1), (0, 1)), t.roll((shift, 1), (0, 1)))
    if len(reps) >= s.dim():
        _same(s.repeat(*reps), t.repeat(*reps))
    _same(s.tile(reps), t.tile(reps))


@_SETTINGS
@given(_layout_pair())
def test_round_diff_conj_tensor_of_layouts(pair):
    s, t = pair
    _same(s.conj_physical(), t.conj_physical())
    _same(strided.tensor(s), torch.tensor(t))
    _same(s.new_tensor(s), t.new_tensor(t))
    if s.dtype != strided.bool:
        _same(s.round(), t.round())
    if s.dtype.is_floating_point:
        _same(s.round(decimals=2), t.round(decimals=2))
    if s.dim():
        _same(s.diff(), t.diff())
    for f in ("isinf", "isposinf", "isneginf", "isfinite", "isnan"):
        if s.dtype != strided.bool or f in ("isinf", "isfinite", "isnan"):
            _same(getattr(strided, f)(s), getattr(torch, f)(t))


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_logsumexp_last_dim_special_rows(dt, torch_threads_as_assumed):
    rows = [[-np.inf] * 5, [np.inf, 1, 2], [np.nan, 1, 2], [np.inf, -np.inf], [np.inf, np.inf], [-np.inf, 0],
            [1e38, 1e38, 1e38], [-0.0], [3.0, np.nan, np.inf], [-np.inf, np.nan], [np.inf, np.nan]]
    for r in rows:
        for n in (len(r), 16, 17, 33, 65):
            a = np.resize(np.array(r, _DT[dt][0]), n)
            a = np.stack([a, a[::-1]])
            for keep in (False, True):
                _same(strided.logsumexp(strided.tensor(a), -1, keepdim=keep),
                      torch.logsumexp(torch.tensor(a), -1, keepdim=keep))
            _same(strided.logsumexp(strided.tensor(a).t(), 0), torch.logsumexp(torch.tensor(a).t(), 0))


@pytest.mark.parametrize("L", [1, 2, 3, 7, 8, 16, 17, 32, 33, 64, 65])
def test_max_pool1d_modes_nan(L):
    rng = np.random.default_rng(L)
    a = rng.standard_normal((2, 3, L)).astype(np.float32)
    a[0, 0, min(1, L - 1)] = np.nan
    if L > 4:
        a[1, 2, 3], a[1, 0, 2], a[0, 2, L - 2] = np.inf, -np.inf, -0.0
    for k, st, p, d, cm in [(2, 2, 0, 1, False), (2, 2, 0, 1, True), (2, 2, 1, 1, True), (3, 2, 1, 1, False),
                            (2, 1, 0, 1, False), (2, 2, 0, 2, False), (3, 3, 1, 2, True), (2, None, 0, 1, False)]:
        if L + 2 * p < d * (k - 1) + 1:
            continue
        for ri in (False, True):
            got = F.max_pool1d(strided.tensor(a), k, st, p, d, ceil_mode=cm, return_indices=ri)
            want = TF.max_pool1d(torch.tensor(a), k, st, p, d, ceil_mode=cm, return_indices=ri)
            for g, w in zip(got, want) if ri else ((got, want),):
                _same(g, w)


@pytest.mark.parametrize("dt", ["float32", "float64", "int32", "uint8"])
def test_clamp_tensor_and_nan_bounds_out_alias(dt):
    rng = np.random.default_rng(7)
    for n in (1, 8, 16, 17, 33, 65):
        a, lo, hi = ((rng.standard_normal(n) * 3).astype(dt) for _ in range(3))
        if a.dtype.kind == "f":
            a[0], lo[-1], hi[n // 2] = np.nan, np.nan, np.nan
        _same(strided.clamp(strided.tensor(a), strided.tensor(lo), strided.tensor(hi)),
              torch.clamp(torch.tensor(a), torch.tensor(lo), torch.tensor(hi)))
        bounds = [(-1, 1), (1, -1), (None, 0.5), (0.5, None)]
        if a.dtype.kind == "f":
            bounds += [(np.nan, 1.0), (-1.0, np.nan), (-0.0, 0.0)]
        for lo_, hi_ in bounds:
            _same(strided.clamp(strided.tensor(a), lo_, hi_), torch.clamp(torch.tensor(a), lo_, hi_))
        x, y = strided.tensor(lo), torch.tensor(lo)
        strided.clamp(strided.tensor(a), x, strided.tensor(hi), out=x)
        torch.clamp(torch.tensor(a), y, torch.tensor(hi), out=y)
        _same(x, y)


# ---------------------------------------------------------------- repeat / tile backward bits

@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape,reps", [((4, 5), (2, 1, 3)), ((4, 5), (2, 3)), ((3,), (3, 1, 2, 1)),
                                        ((), (2, 3)), ((2, 3, 4), (5, 1, 3, 2)), ((1, 7), (1, 2)),
                                        ((0, 3), (2, 2)), ((4, 5), (0, 2)), ((70, 300), (3, 1, 2, 1)),
                                        ((70, 300), (2, 2))])
def test_repeat_tile_backward_bits(dt, shape, reps, torch_threads_as_assumed):
    """RepeatBackward0's bits: PyTorch sums the added leading dims one at a time, then the repeated
    dims at once (``repeat_backward``); strided's one sum over every dim differed in the last bits
    (repeat(2, 1, 3) of a (4, 5) float64: 8.9e-16)."""
    rng = np.random.default_rng(len(shape) * 7 + len(reps))
    np_dt = _DT[dt][0]
    a = rng.standard_normal(shape).astype(np_dt)
    for fs, ft in ((lambda x: x.repeat(*reps), lambda x: x.repeat(*reps)),
                   (lambda x: strided.tile(x, reps), lambda x: torch.tile(x, reps))):
        s, t = strided.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        yt = ft(t)
        w = rng.standard_normal(tuple(yt.shape)).astype(np_dt)
        (fs(s) * strided.tensor(w)).sum().backward()
        (yt * torch.tensor(w)).sum().backward()
        assert tuple(s.grad.shape) == tuple(t.grad.shape)
        assert np.array_equal(_bits(s.grad).reshape(-1), _bits(t.grad).reshape(-1))


# ---------------------------------------------------------------- integer division by a wrapped 0-d divisor

@pytest.mark.parametrize("name", ["floor_divide", "remainder", "fmod", "trunc", "floor"])
@pytest.mark.parametrize("dt,z", [("int32", 2**32), ("int32", 2**40), ("uint8", 256), ("int8", 512), ("int16", 2**16),
                                  ("int32", 2**32 + 3), ("uint8", 257)])
def test_integer_division_by_a_0d_divisor_that_wraps_to_zero(name, dt, z):
    """An int64 0-d divisor joins an int32 (uint8, ...) tensor's dtype, as PyTorch converts it: 2**32
    is an int32 0, a division by zero PyTorch refuses; strided tested the int64 value (nonzero) and
    returned zeros silently. A divisor that wraps to a nonzero value computes as PyTorch does."""
    def call(mod, x, y):
        if name in ("trunc", "floor"):
            return x.div(y, rounding_mode=name)
        return getattr(x, name)(y)

    a = np.array([1, 2, 100], dt)
    st, tt = strided.tensor(a), torch.tensor(a)
    try:
        want = call(torch, tt, torch.tensor(z))
    except RuntimeError:
        with pytest.raises(strided.errors.StridedRuntimeError, match="ZeroDivisionError"):
            call(strided, st, strided.tensor(z))
        with pytest.raises(strided.errors.StridedRuntimeError, match="ZeroDivisionError"):
            getattr(st.clone(), "remainder_" if name == "remainder" else "floor_divide_")(strided.tensor(z))
        return
    _same(call(strided, st, strided.tensor(z)), want)


@pytest.mark.parametrize("dt", ["int8", "int16", "int32", "int64", "uint8"])
@pytest.mark.parametrize("e", [2**31, 2**31 + 1, 255, 256, 257, -1, 2**40 + 3, 2**63 - 1, -2**63, 128, 0])
def test_integer_pow_of_a_0d_exponent_of_a_wider_dtype(dt, e):
    """A 0-d int64 exponent is converted to the base's dtype first (TensorIterator): int8
    ``t ** tensor(255)`` is ``t ** -1`` (powi: 1, 0, -1, 0), where NumPy's power raised a bare
    ValueError on the wrapped negative exponent. Both ways round (a 0-d base, a tensor exponent)."""
    base = [1, 2, -1, 3, 0, -2]
    for f in (lambda m: m.tensor(base, dtype=getattr(m, dt)) ** m.tensor(e),
              lambda m: m.tensor(e) ** m.tensor(base, dtype=getattr(m, dt)),
              lambda m: m.tensor(base, dtype=getattr(m, dt)).pow_(m.tensor(e))):
        try:
            want = f(torch)
        except RuntimeError:
            with pytest.raises(strided.errors.StridedRuntimeError):
                f(strided)
            continue
        _same(f(strided), want)


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_complex_diff_with_infinite_parts(dt):
    """diff of complex values is PyTorch's complex sub, x + (-1+0j) * y: an infinite part of the
    subtrahend makes its partner NaN (diff of [inf+1j, 1+infj] is nan-infj; strided's np.subtract
    gave 1-infj), on the general path (complex has no fast one): n=1, n=2, prepend, dim=0."""
    vals = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.0]
    rng = np.random.default_rng(42)
    for _ in range(60):
        shape = (int(rng.integers(1, 5)), int(rng.integers(1, 6)))
        a = (rng.choice(vals, shape) + 1j * rng.choice(vals, shape)).astype(dt)
        s, t = strided.tensor(a), torch.tensor(a)
        for kw in ({}, {"n": 2}, {"dim": 0}, {"prepend": "first"}, {"n": 3, "dim": 1}):
            ks = {k: (s[:, :1] if k == "prepend" else v) for k, v in kw.items()}
            kt = {k: (t[:, :1] if k == "prepend" else v) for k, v in kw.items()}
            want = t.diff(**kt)
            got = s.diff(**ks)
            x, y = np.ascontiguousarray(got.numpy()), np.ascontiguousarray(want.numpy())
            assert x.shape == y.shape
            assert np.array_equal(np.isnan(x.real), np.isnan(y.real)) and np.array_equal(np.isnan(x.imag), np.isnan(y.imag))
            xn, yn = np.nan_to_num(x), np.nan_to_num(y)
            assert np.array_equal(xn, yn)
            assert np.array_equal(np.signbit(xn.real), np.signbit(yn.real))
            assert np.array_equal(np.signbit(xn.imag), np.signbit(yn.imag))
