"""Mismatches with PyTorch found by session 24's sweep of every registry op on odd shapes and
layouts (bits, strides, dtypes and error classes against PyTorch's), each pinned here."""

from __future__ import annotations

import numpy as np
import pytest

import strided as S

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("rcond", ["1", None, 1j, "list", "tensor1d"])
def test_pinverse_rcond_is_a_double(rcond: object) -> None:
    """torch.pinverse's rcond is a double: a tensor with dims, a string, None or a complex is a
    TypeError (strided broadcast a 1-d tensor as linalg.pinv's batch of cut-offs)."""
    a = np.random.default_rng(0).random((3, 4), dtype=np.float32)
    args = {"tensor1d": (S.from_numpy(np.array([0.1, 0.2])), torch.tensor([0.1, 0.2])),
            "list": ([0.1], [0.1])}.get(rcond, (rcond, rcond))  # type: ignore[call-overload]
    with pytest.raises(TypeError) as t_err:
        torch.pinverse(torch.from_numpy(a), rcond=args[1])
    with pytest.raises(TypeError) as s_err:
        S.pinverse(S.from_numpy(a), rcond=args[0])
    assert str(s_err.value).splitlines()[0] == str(t_err.value).splitlines()[0]
    with pytest.raises(TypeError):
        S.from_numpy(a).pinverse(args[0])


@pytest.mark.parametrize("rcond", [True, 1, np.float32(0.3), np.int64(1), 0.05, "tensor0d"])
def test_pinverse_rcond_numbers_as_pytorch(rcond: object) -> None:
    """Every number PyTorch takes for rcond gives its cut-off (a 0-d tensor: its value)."""
    a = np.random.default_rng(1).random((4, 3)).astype(np.float32)
    a[:, 2] = a[:, 0] * 0.9 + 1e-3 * a[:, 1]  # (a small singular value the cut-offs tell apart)
    s_r, t_r = (S.tensor(0.2), torch.tensor(0.2)) if rcond == "tensor0d" else (rcond, rcond)
    got = S.pinverse(S.from_numpy(a), s_r).numpy()
    want = torch.pinverse(torch.from_numpy(a), t_r).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def _signed_specials(n: int, dtype: type, seed: int) -> np.ndarray:
    """``n`` normal values with a few -0.0 / 0.0 / NaN / -NaN among them."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n).astype(dtype)
    where = rng.choice(n, min(n, int(rng.integers(2, 6))), replace=False)
    a[where] = rng.choice(np.array([0.0, -0.0, np.nan, -np.nan], dtype), where.size)
    return a


@pytest.mark.parametrize("n", [2, 5, 17, 33, 561, 5000, 20000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["flat", "column", "flipped"])
@pytest.mark.parametrize("flags", [{}, {"return_counts": True}, {"return_inverse": True}, {"sorted": False}])
def test_unique_keeps_pytorchs_zero_and_nan_bits(n: int, dtype: type, layout: str, flags: dict) -> None:
    """Of -0.0 and 0.0 unique keeps the first of PyTorch's (unstable) sort, and each NaN keeps
    its sign: strided kept NumPy's sort's first zero, and NumPy's SIMD sort writes NaN back
    canonical (the sign lost). Values bit for bit; counts equal; inverse numbers the NaN in its
    own documented order, so only its non-NaN entries are compared."""
    for seed in range(12):
        a = _signed_specials(n, dtype, seed + 100 * n)
        if layout == "flipped":  # (a negative-stride view in strided, the same order in torch)
            t, s = torch.from_numpy(a[::-1].copy()), S.from_numpy(a.copy()).flip(0)
        else:
            b = a.reshape(-1, 1) if layout == "column" else a
            t, s = torch.from_numpy(b), S.from_numpy(b)
        want, got = torch.unique(t, **flags), S.unique(s, **flags)
        want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
        assert got[0].numpy().tobytes() == want[0].numpy().tobytes(), (seed, got[0], want[0])
        if "return_counts" in flags:
            np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
        if "return_inverse" in flags:
            finite = ~np.isnan(t.numpy())
            np.testing.assert_array_equal(got[1].numpy()[finite], want[1].numpy()[finite])


@pytest.mark.parametrize("n", [2, 17, 5000])
def test_sort_values_keep_a_nans_sign(n: int) -> None:
    """msort / sort values of a row holding one -NaN keep its sign (msort went through NumPy's
    sort, which writes NaN back canonical)."""
    a = np.random.default_rng(n).random(n).astype(np.float32)
    a[n // 2] = -np.nan
    t = torch.from_numpy(a)
    for got, want in ((S.msort(S.from_numpy(a)), torch.msort(t)), (S.sort(S.from_numpy(a))[0], torch.sort(t)[0])):
        assert got.numpy().tobytes() == want.numpy().tobytes()


@pytest.mark.parametrize("dtypes", [("int64", "int64"), ("bool", "bool"), ("int32", "int32"), ("int64", "float32"),
                                    ("float32", "int64"), ("uint8", "uint8")])
def test_linalg_vecdot_refuses_integers_as_pytorch(dtypes: tuple[str, str]) -> None:
    """linalg.vecdot takes floating and complex tensors only (strided summed integer products);
    PyTorch checks x's kind, then that the dtypes agree: the same error, the same first line."""
    a, b = np.arange(12).reshape(3, 4), np.arange(12).reshape(3, 4) + 1
    pair = [(torch.from_numpy(v).to(getattr(torch, d)), S.from_numpy(v).to(getattr(S, d))) for v, d in zip((a, b), dtypes)]
    with pytest.raises(RuntimeError) as t_err:
        torch.linalg.vecdot(pair[0][0], pair[1][0])
    with pytest.raises(RuntimeError) as s_err:
        S.linalg.vecdot(pair[0][1], pair[1][1])
    assert str(s_err.value).splitlines()[0] == str(t_err.value).splitlines()[0]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "complex64"])
def test_linalg_vecdot_floating_dtypes_still_run(dtype: str) -> None:
    a = np.random.default_rng(3).random((3, 4))
    t = torch.from_numpy(a).to(getattr(torch, dtype))
    s = S.from_numpy(a).to(getattr(S, dtype))
    want, got = torch.linalg.vecdot(t, t), S.linalg.vecdot(s, s)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(got.to(S.complex128).numpy(), want.to(torch.complex128).numpy(), rtol=1e-2)


@pytest.mark.parametrize("dtype", ["bool", "uint16", "uint32", "uint64"])
@pytest.mark.parametrize("form", ["function", "method", "inplace"])
def test_addcmul_has_no_bool_or_wide_unsigned_kernel(dtype: str, form: str) -> None:
    """PyTorch 2.13 has no addcmul kernel for bool (strided computed it) nor for uint16/32/64
    (strided named add's kernel): its NotImplementedError and text, for every form."""
    def call(lib: object) -> object:
        x = lib.ones(3, dtype=getattr(lib, dtype))
        return {"function": lambda: lib.addcmul(x, x, x), "method": lambda: x.addcmul(x, x),
                "inplace": lambda: x.addcmul_(x, x)}[form]()
    with pytest.raises(NotImplementedError) as t_err:
        call(torch)
    with pytest.raises(NotImplementedError) as s_err:
        call(S)
    assert str(s_err.value).splitlines()[0] == str(t_err.value).splitlines()[0]


@pytest.mark.parametrize("n", [1, 7, 8, 9, 15, 16, 17, 33, 645, 40000, 70001])
@pytest.mark.parametrize("layout", ["flat", "step", "T", "inplace", "inplaceT"])
def test_complex64_sgn_follows_pytorchs_two_loops(n: int, layout: str, torch_threads_as_assumed: None) -> None:
    """complex64 sgn bit for bit: PyTorch's scalar loop (a run's last n % 16 elements under
    AVX512, each chunk's past 32768, every element of a strided run) rounds twice, z * (1/|z|);
    strided gave the vectorized loop's z / |z| everywhere (~40% of those elements an ulp off)."""
    rng = np.random.default_rng(n)
    z = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    z[rng.integers(0, n, max(1, n // 10))] = 0
    if layout == "step":
        t, s = torch.from_numpy(z)[::2], S.from_numpy(z)[::2]
    elif layout in ("T", "inplaceT"):
        m = z[: (n // 3) * 3].reshape(-1, 3) if n >= 3 else z.reshape(1, -1)
        t, s = torch.from_numpy(m.copy()).t(), S.from_numpy(m.copy()).t()
    else:
        t, s = torch.from_numpy(z.copy()), S.from_numpy(z.copy())
    if layout.startswith("inplace"):
        want, got = t.sgn_(), s.sgn_()
    else:
        want, got = t.sgn(), s.sgn()
    assert got.stride() == want.stride()
    assert np.ascontiguousarray(got.numpy()).tobytes() == np.ascontiguousarray(want.numpy()).tobytes()


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "float32", "bfloat16", "complex64", "uint16"])
def test_embedding_indices_are_long_or_int_only(dtype: str) -> None:
    """F.embedding takes int64 / int32 indices only (strided read uint8/int8/int16 ones), with
    PyTorch's text naming the tensor's type (torch.ByteTensor, CPUBoolType, ...)."""
    w = np.random.default_rng(0).random((10, 3)).astype(np.float32)
    idx = np.arange(6).reshape(2, 3)
    with pytest.raises(RuntimeError) as t_err:
        torch.nn.functional.embedding(torch.from_numpy(idx).to(getattr(torch, dtype)), torch.from_numpy(w))
    with pytest.raises(RuntimeError) as s_err:
        S.nn.functional.embedding(S.from_numpy(idx).to(getattr(S, dtype)), S.from_numpy(w))
    assert str(s_err.value).splitlines()[0] == str(t_err.value).splitlines()[0]
    for ok in ("int32", "int64"):
        got = S.nn.functional.embedding(S.from_numpy(idx).to(getattr(S, ok)), S.from_numpy(w))
        np.testing.assert_array_equal(got.numpy(), w[idx])


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64"])
def test_cross_has_no_wide_unsigned_kernel(dtype: str) -> None:
    for lib_err in ((torch, NotImplementedError), (S, NotImplementedError)):
        lib, err = lib_err
        x = lib.ones(2, 3, dtype=getattr(lib, dtype))
        with pytest.raises(err, match=f"\"cross\" not implemented for '{dtype.replace('u', 'U', 1).replace('int', 'Int')}'"):
            lib.linalg.cross(x, x)


_ORDER_FORMS = {"median": lambda x: x.median(), "median.dim": lambda x: x.median(0),
                "nanmedian": lambda x: x.nanmedian(), "nanmedian.dim": lambda x: x.nanmedian(0, keepdim=True),
                "mode": lambda x: x.mode(), "mode.dim": lambda x: x.mode(0)}


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "uint16", "uint32", "uint64", "bool"])
@pytest.mark.parametrize("form", sorted(_ORDER_FORMS))
def test_median_and_mode_refuse_as_pytorch(dtype: str, form: str) -> None:
    """median / nanmedian / mode: no complex kernel (strided ordered complex numbers somehow, a
    guess), none for uint16/32/64, and bool's error names median's kernel (median_cpu, or
    median_out along a dim) for nanmedian too: PyTorch's class and first line, or both run."""
    call = _ORDER_FORMS[form]
    outcome = []
    for lib in (torch, S):
        try:
            call(lib.ones(3, 4, dtype=getattr(lib, dtype)))
            outcome.append("ran")
        except NotImplementedError as e:
            outcome.append(str(e).splitlines()[0])
    assert outcome[1] == outcome[0]


def _pow_operands(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((5, 7)) + 1j * rng.standard_normal((5, 7))).astype(dtype)
    y = (rng.standard_normal((5, 7)) + 1j * rng.standard_normal((5, 7))).astype(dtype)
    x.reshape(-1)[:8] = [0, 0, -1e10, 1 + 1j, np.inf, np.nan, -0.0, 1e-30]
    y.reshape(-1)[:8] = [0, -2, 1, -2, 1, 2, 3, 0.5]
    return x, y


_COMPLEX_POW_CASES = {
    "tensors": lambda L, x, y: L.from_numpy(x) ** L.from_numpy(y),
    "transposed": lambda L, x, y: L.from_numpy(x).t() ** L.from_numpy(y).t(),
    "broadcast": lambda L, x, y: L.from_numpy(x) ** L.from_numpy(y[0]),
    "0-d exponent": lambda L, x, y: L.from_numpy(x) ** L.from_numpy(np.array(y[0, 1])),
    "function": lambda L, x, y: L.pow(L.from_numpy(x), L.from_numpy(y)),
    "in place": lambda L, x, y: L.from_numpy(x.copy()).pow_(L.from_numpy(y)),
    "real base": lambda L, x, y: L.from_numpy(x.real.copy()) ** L.from_numpy(y),
    "real exponent": lambda L, x, y: L.from_numpy(x) ** L.from_numpy(y.real.copy()),
    "x ** 2.5": lambda L, x, y: L.from_numpy(x) ** 2.5,
    "x ** 1j": lambda L, x, y: L.from_numpy(x) ** 1j,
    "x ** -3": lambda L, x, y: L.from_numpy(x) ** -3,
    "0 ** y": lambda L, x, y: 0 ** L.from_numpy(y),
    "(-1e10) ** y": lambda L, x, y: (-1e10) ** L.from_numpy(y),
    "(1+1j) ** y": lambda L, x, y: L.pow(1 + 1j, L.from_numpy(y)),
}


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("case", sorted(_COMPLEX_POW_CASES))
def test_complex_pow_is_pytorchs_cpow(dtype: str, case: str) -> None:
    """Complex pow is PyTorch's std::pow of complex numbers, the C library's cpow (exp(y log x)):
    strided took NumPy's power, exact for integer exponents, so 0 ** 0 was 1 (PyTorch: NaN),
    (-1e10) ** 1 had no imaginary part and (1+1j) ** -2 no real one. Bits, strides and dtype."""
    from strided.kernels import native

    if native.special() is None:
        pytest.skip("the compiled kernels are not built: NumPy's power (close, not PyTorch's bits)")
    x, y = _pow_operands(dtype)
    want, got = _COMPLEX_POW_CASES[case](torch, x, y), _COMPLEX_POW_CASES[case](S, x, y)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1] and got.stride() == want.stride()
    assert np.ascontiguousarray(got.numpy()).tobytes() == np.ascontiguousarray(want.numpy()).tobytes()


def _cmul_cases(n: int, dtype: str) -> dict:
    rng = np.random.default_rng(n)
    z, w = ((rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype) for _ in range(2))
    m, m2 = ((rng.standard_normal((3, n)) + 1j * rng.standard_normal((3, n))).astype(dtype) for _ in range(2))
    col = (rng.standard_normal((3, 1)) + 1j * rng.standard_normal((3, 1))).astype(dtype)
    k = min(3, n)
    z[:k], w[:k] = [0, complex(0, -0.0), np.inf][:k], [complex(-0.0, 0), 1e-30, 0][:k]

    def out(L: object, shape: tuple, t: bool = False) -> object:
        return L.empty(*shape[::-1], dtype=getattr(L, dtype)).t() if t else L.empty(*shape, dtype=getattr(L, dtype))

    return {
        "tensors": lambda L: L.from_numpy(z) * L.from_numpy(w),
        "strided rows": lambda L: L.from_numpy(m)[:, ::2] * L.from_numpy(m2)[:, ::2],
        "transposed": lambda L: L.from_numpy(m).t() * L.from_numpy(m2).t(),
        "row broadcast": lambda L: L.from_numpy(m) * L.from_numpy(w),
        "column broadcast": lambda L: L.from_numpy(m) * L.from_numpy(col),
        "number": lambda L: L.from_numpy(z) * (0.3 - 0.7j),
        "number first": lambda L: (0.3 - 0.7j) * L.from_numpy(z),
        "0-d": lambda L: L.from_numpy(z) * L.from_numpy(np.array(w[-1])),
        "real tensor": lambda L: L.from_numpy(z.real.copy()) * L.from_numpy(w),
        "in place": lambda L: L.from_numpy(z.copy()).mul_(L.from_numpy(w)),
        "in place strided": lambda L: L.from_numpy(m.copy())[:, ::2].mul_(L.from_numpy(m2)[:, ::2]),
        "in place number": lambda L: L.from_numpy(z.copy()).mul_(0.3 - 0.7j),
        "in place strided number": lambda L: L.from_numpy(m.copy())[:, ::2].mul_(0.3 - 0.7j),
        "out": lambda L: L.mul(L.from_numpy(z), L.from_numpy(w), out=out(L, (n,))),
        "out transposed": lambda L: L.mul(L.from_numpy(m), L.from_numpy(m2), out=out(L, (3, n), True)),
    }


@pytest.mark.parametrize("n", [1, 7, 9, 15, 16, 17, 20, 33, 40001])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_mul_is_pytorchs_bits(n: int, dtype: str, torch_threads_as_assumed: None) -> None:
    """Complex multiplication bit for bit as PyTorch 2.13 (NumPy's contracts to fma: ~40% of
    complex64 products differed): its vector blocks round every product, the compiler's tails and
    strided rows fuse (per the measured rules of binary._complex_mul_fma_mask), for every form."""
    for name, make in _cmul_cases(n, dtype).items():
        want, got = make(torch), make(S)
        assert got.stride() == want.stride(), name
        w, g = np.ascontiguousarray(want.numpy()), np.ascontiguousarray(got.numpy())
        same = (w.view(np.uint8) == g.view(np.uint8)).reshape(w.size, -1).all(1) | (np.isnan(w) & np.isnan(g)).ravel()
        assert same.all(), (name, np.flatnonzero(~same)[:5])
