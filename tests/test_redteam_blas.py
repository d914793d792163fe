"""Red-team findings on the blas6 merge (addmm family beta/alpha, cross, inner), each against
PyTorch 2.13: the numbers it gives (bits where it has them) and the errors it raises."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native

RNG = np.random.default_rng(2026)
INF, NAN = float("inf"), float("nan")


def _same(ours: strided.Tensor, theirs: torch.Tensor) -> None:
    """Same dtype, shape, strides and values (NaN where PyTorch has NaN, zeros' signs included)."""
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert ours.shape == tuple(theirs.shape) and ours.stride() == theirs.stride()
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy(), strict=True)
    assert (np.signbit(ours.numpy()) == np.signbit(theirs.numpy()))[~np.isnan(theirs.numpy())].all()


def _both(fn):
    return fn(strided), fn(torch)


# ---------------------------------------------------------------- addmm family: alpha == 0, empty k


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("m", "k", "n"), [(7, 8, 7), (7, 8, 8), (19, 1, 21), (20, 1, 20)])
def test_baddbmm_alpha_zero_small_multiplies_the_product_as_torchs_kernel(dtype, m, k, n):
    """Below 400 multiply-adds a matrix PyTorch's baddbmm runs its own loop, alpha * acc even
    for alpha == 0 (an inf in the product gives NaN, a negative one -0.0); from 400 on BLAS skips
    the product. We gave BLAS's answer for both."""
    def call(lib, beta):
        a = lib.ones(2, m, k, dtype=getattr(lib, dtype))
        a[0, 0, 0] = INF
        return lib.baddbmm(lib.zeros(2, m, n, dtype=a.dtype), a, -lib.ones(2, k, n, dtype=a.dtype),
                           beta=beta, alpha=0)
    for beta in (0, 1, 2.5):
        _same(*_both(lambda lib, b=beta: call(lib, b)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_empty_contraction_never_reads_alpha(dtype):
    """k == 0 (or addbmm's batch of 0): PyTorch returns beta * input (zeros for beta == 0) and
    never multiplies the empty product by alpha: an inf or NaN alpha gave NaN here."""
    calls = [lambda lib, d, be, al: lib.addmm(lib.full((2, 3), 1.5, dtype=d), lib.ones(2, 0, dtype=d),
                                              lib.ones(0, 3, dtype=d), beta=be, alpha=al),
             lambda lib, d, be, al: lib.addmv(lib.full((3,), 1.5, dtype=d), lib.ones(3, 0, dtype=d),
                                              lib.ones(0, dtype=d), beta=be, alpha=al),
             lambda lib, d, be, al: lib.baddbmm(lib.full((1, 2, 3), 1.5, dtype=d), lib.ones(1, 2, 0, dtype=d),
                                                lib.ones(1, 0, 3, dtype=d), beta=be, alpha=al),
             lambda lib, d, be, al: lib.addbmm(lib.full((2, 3), 1.5, dtype=d), lib.ones(2, 2, 0, dtype=d),
                                               lib.ones(2, 0, 3, dtype=d), beta=be, alpha=al),
             lambda lib, d, be, al: lib.addbmm(lib.full((2, 3), 1.5, dtype=d), lib.ones(0, 2, 4, dtype=d),
                                               lib.ones(0, 4, 3, dtype=d), beta=be, alpha=al)]
    for call in calls:
        for beta, alpha in ((1, INF), (0, NAN), (2, NAN), (0, -INF)):
            _same(*_both(lambda lib, c=call, b=beta, a=alpha: c(lib, getattr(lib, dtype), b, a)))


# ---------------------------------------------------------------- addmm family: beta/alpha PyTorch cannot hold


def _outcome(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 (the class and first line are what we compare)
        return type(e).__name__.replace("Strided", ""), str(e).splitlines()[0]
    return "ok", (r.numpy() if r.is_complex() else r.float().numpy()).tolist()


@pytest.mark.parametrize("op", ["addmm", "addr", "baddbmm"])
def test_out_of_range_beta_alpha_are_torchs_errors_not_inf(op):
    """A float32 beta of 1e39 was inf (a warning at most); PyTorch refuses it (the BLAS ops read
    float16/bfloat16 scalars as float, addr as the dtype itself), and refuses ints beyond
    int64/uint64 for every dtype, and numbers beyond a signed integer dtype; uint8 wraps -1..-255."""
    def call(lib, dtype, **kw):
        d = getattr(lib, dtype)
        if op == "addr":
            return lib.addr(lib.ones(2, 2, dtype=d), lib.ones(2, dtype=d), lib.ones(2, dtype=d), **kw)
        if op == "baddbmm":
            return lib.baddbmm(lib.ones(1, 2, 2, dtype=d), lib.ones(1, 2, 2, dtype=d), lib.ones(1, 2, 2, dtype=d), **kw)
        return lib.addmm(lib.ones(2, 2, dtype=d), lib.ones(2, 2, dtype=d), lib.ones(2, 2, dtype=d), **kw)

    cases = {"float32": (1e39, -1e300, 3.5e38, 2**70, -2**63 - 1, 2**64 - 1, INF, 1e38),
             "float64": (2**64, -2**63 - 1, 1e300),
             "float16": (70000, 65504.5, 1e39, 2**64),
             "bfloat16": (3.39e38, 1e39, 3.38e38),
             "int32": (2**31, -2**31, 3e9, 2.5, NAN, 2**70),
             "int8": (128, -128, 127.9, -0.9),
             "uint8": (-1, -255, -256, 255, 256, -0.9, 127.9),
             "complex64": (1e39, complex(1, 1e39), complex(-1e39, 0), 3e38),
             "complex128": (1e300, complex(1, 1e300), 2**70)}
    for dtype, values in cases.items():
        for value in values:
            for name in ("beta", "alpha"):
                ours = _outcome(lambda d=dtype, kw={name: value}: call(strided, d, **kw))
                theirs = _outcome(lambda d=dtype, kw={name: value}: call(torch, d, **kw))
                assert ours == theirs, (dtype, name, value)


def test_fast_path_leaves_huge_scalars_to_the_checks():
    """The float32 fast path (row-major, out=None) must not turn 1e39 into inf either."""
    a = strided.ones(2, 2)
    with pytest.raises(RuntimeError, match="value cannot be converted to type float without overflow"):
        strided.addmm(a, a, a, alpha=1e39)
    with pytest.raises(OverflowError, match="int too big to convert"):
        strided.addmm(a.double(), a.double(), a.double(), beta=2**70)
    np.testing.assert_array_equal(strided.addmm(a, a, a, alpha=-1e38).numpy(),
                                  torch.addmm(*(torch.ones(2, 2),) * 3, alpha=-1e38).numpy())


# ---------------------------------------------------------------- inner


@pytest.mark.parametrize(("sa", "sb"), [((3, 0), (2, 0)), ((0,), (0,)), ((2, 1, 0), (0,)), ((0, 0), (4, 0))])
def test_inner_of_an_empty_contraction_is_zeros(sa, sb):
    """k == 0: PyTorch's zeros of the outer shape (our reshape(-1, 0) raised)."""
    for dtype in ("float32", "int64"):
        _same(*_both(lambda lib, d=dtype: lib.inner(lib.ones(*sa, dtype=getattr(lib, d)),
                                                     lib.ones(*sb, dtype=getattr(lib, d)))))
    _same(*_both(lambda lib: lib.inner(lib.ones(3, 5).t()[:, :0], lib.ones(2, 0))))


def test_inner_of_bool_vectors_is_dots_error():
    for n in (0, 4):
        for lib, cls in ((strided, NotImplementedError), (torch, NotImplementedError)):
            with pytest.raises(cls, match="\"dot\" not implemented for 'Bool'"):
                lib.inner(lib.ones(n, dtype=lib.bool), lib.ones(n, dtype=lib.bool))


# ---------------------------------------------------------------- cross: PyTorch's fused bits


def _wide(n: int, dtype) -> np.ndarray:
    """Random values across the whole range: normal, huge, tiny, subnormal, short (cancelling)."""
    fi = np.finfo(dtype)
    kind = RNG.integers(0, 4, n)
    v = RNG.standard_normal(n) * np.exp(RNG.uniform(-3, 3, n))
    wide = np.ldexp(RNG.uniform(0.5, 1, n) * RNG.choice([-1.0, 1.0], n),
                    RNG.integers(fi.minexp - fi.nmant, fi.maxexp, n))
    v = np.where(kind == 0, wide, np.where(kind == 1, np.round(v * 8) / 8, v))
    return v.astype(dtype)


# float64 needs a true fma: the compiled fma64 (native.special()). Without it (STRIDED_NATIVE=0,
# no compiler) kernels.fused.fma's NumPy emulation is inexact for ties and for huge * tiny
# products (reported), so the float64 case is collected only where the compiled kernel runs.
_CROSS_DTYPES = [(np.float32, np.uint32)] + ([(np.float64, np.uint64)] if native.special() is not None else [])


@pytest.mark.parametrize(("dtype", "bits"), _CROSS_DTYPES)
def test_cross_is_torchs_fused_kernel_bit_for_bit_on_100k_vectors(dtype, bits):
    """PyTorch's CPU cross is fma(a1, b2, -(a2*b1)) per component; np.cross rounds both products
    (about a quarter of float32 elements 1 ulp off). 100k vectors of all magnitudes (subnormal
    results and overflow to inf among them), a quarter nearly parallel (cancellation), and for
    float32 the double-rounding trap of a float64 sum: 97 * 172961 = 2**24 + 1 exactly, a tie
    between two float32s, plus or minus 2**-40 (fma: 2**24 + 2 or 2**24; a float64 sum: 2**24).
    Operands transposed too (dim=0); NaN-free inputs, so the bits compare exactly."""
    n = 100_000
    a, b = _wide(3 * n, dtype).reshape(n, 3), _wide(3 * n, dtype).reshape(n, 3)
    q = n // 4
    b[:q] = a[:q] * dtype(1.5)
    b[:q, 0] = np.nextafter(b[:q, 0], dtype(np.inf))
    if dtype is np.float32:
        k = 1000
        a[-k:], b[-k:] = [0, 97, 0], [0, 0, 172961]
        a[-k:, 2] = np.float32(2.0**-20) * RNG.choice([-1, 1], k).astype(np.float32)
        b[-k:, 1] = np.float32(2.0**-20)
    for make, dim in ((lambda x, lib: lib.tensor(x), -1),
                      (lambda x, lib: lib.tensor(np.ascontiguousarray(x.T)), 0)):
        ours = strided.linalg.cross(make(a, strided), make(b, strided), dim=dim).numpy()
        theirs = torch.linalg.cross(make(a, torch), make(b, torch), dim=dim).numpy()
        assert not np.isnan(theirs).any()
        assert (ours.view(bits) == theirs.view(bits)).all()
    tiny = np.abs(theirs)
    assert np.isinf(theirs).any() and ((tiny > 0) & (tiny < np.finfo(dtype).tiny)).any()
    if dtype is np.float32:
        assert set(theirs[0, -1000:].tolist()) == {2.0**24, 2.0**24 + 2}


# ---------------------------------------------------------------- vander's arguments


@pytest.mark.parametrize(("n", "increasing"), [(3.5, False), (2.0, True), (True, False), (np.True_, False),
                                               (2, 1), (2, None), (2, np.True_)])
def test_vander_argument_types_are_torchs_type_errors(n, increasing):
    """int(3.5) gave a silently narrower matrix and increasing=1 passed: PyTorch's parser refuses
    both (a float or bool N, a non-bool increasing), on the fast path's float input too."""
    for dtype in ("float32", "int64"):
        with pytest.raises(TypeError) as theirs:
            torch.vander(torch.ones(3, dtype=getattr(torch, dtype)), n, increasing)
        with pytest.raises(TypeError) as ours:
            strided.vander(strided.ones(3, dtype=getattr(strided, dtype)), n, increasing)
        assert str(ours.value).splitlines()[0] == str(theirs.value)
    _same(*_both(lambda lib: lib.vander(lib.tensor([1.0, 2.0, 3.0]), np.int64(2), True)))


# ---------------------------------------------------------------- trace


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "complex64", "complex128", "int8",
                                   "int32"])
def test_trace_is_torchs_running_sum_bit_for_bit(dtype):
    """PyTorch's trace_cpu adds the diagonal in order in its accumulator type (double for
    float32, float for float16/bfloat16) and rounds once; the diagonal's pairwise sum (ours, before
    and after blas6's fast path) differed in the last bits of most float32 and float64 traces.
    Square, wide, tall, transposed, empty; a diagonal of -0.0 is +0.0 (the sum starts at 0)."""
    def bits(t):
        return (t.float() if t.dtype in (torch.bfloat16, strided.bfloat16) else t).numpy().tobytes()

    for n, m in ((1, 1), (7, 7), (300, 300), (40, 13), (13, 40), (0, 3), (3, 0)):
        v = RNG.standard_normal((n, m)) * RNG.uniform(0.1, 1e3, (n, m))
        if dtype.startswith("complex"):
            v = v + 1j * RNG.standard_normal((n, m))
        theirs = torch.tensor(v).to(getattr(torch, dtype))
        ours = strided.tensor((theirs.float() if dtype == "bfloat16" else theirs).numpy()).to(getattr(strided, dtype))
        for o, t in ((ours, theirs), (ours.t(), theirs.t())):
            r, w = strided.trace(o), torch.trace(t)
            assert str(r.dtype).split(".")[-1] == str(w.dtype).split(".")[-1] and bits(r) == bits(w), (n, m)
    if not dtype.startswith("int"):
        z = np.diag(np.full(3, -0.0))
        r, w = strided.tensor(z).to(getattr(strided, dtype)).trace(), torch.tensor(z).to(getattr(torch, dtype)).trace()
        assert bits(r) == bits(w)


def test_trace_of_bool_names_the_dtype_before_the_dims():
    for shape in ((3,), (2, 2), (2, 2, 2)):
        with pytest.raises(NotImplementedError) as theirs:
            torch.trace(torch.ones(shape, dtype=torch.bool))
        with pytest.raises(NotImplementedError) as ours:
            strided.trace(strided.ones(shape, dtype=strided.bool))
        assert str(ours.value).splitlines()[0] == str(theirs.value)


# ---------------------------------------------------------------- lstsq's shapes


@pytest.mark.parametrize(("sa", "sb"), [((1, 4, 3), (5, 4, 2)), ((1, 1, 4, 3), (2, 3, 4, 2)), ((5, 4, 3), (1, 4, 2)),
                                        ((2, 4, 3), (2, 4)), ((4, 3), (4,)), ((1, 4, 3), (5, 4)),
                                        ((4, 3), (2, 4, 1)), ((2, 4, 3), (3, 2, 4, 1)), ((2, 4, 3), (4,))])
def test_lstsq_vector_case_dims_and_broadcast_rank_as_torch(sa, sb):
    """PyTorch's rank and singular values keep A's batch shape when B's batch broadcasts it (we
    gave the broadcast shape); B is a vector batch only when it is A.shape[:-1] (a (5, 4) B
    against a (1, 4, 3) A is matrices: its error, not a (5, 3) solution); B of more dims than A
    is its dim error (we solved it)."""
    a, b = RNG.standard_normal(sa), RNG.standard_normal(sb)
    for driver in ("gelsd", "gelsy"):
        try:
            theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
        except RuntimeError as e:
            with pytest.raises(RuntimeError) as ours:
                strided.linalg.lstsq(strided.tensor(a), strided.tensor(b), driver=driver)
            assert str(ours.value).splitlines()[0] == str(e).splitlines()[0]
            continue
        ours = strided.linalg.lstsq(strided.tensor(a), strided.tensor(b), driver=driver)
        for o, t in zip(ours, theirs, strict=True):
            assert o.shape == tuple(t.shape) and o.stride() == t.stride() and str(o.dtype)[8:] == str(t.dtype)[6:]
            np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------- random: the trimmed argument work


@pytest.mark.parametrize("call", [lambda lib: lib.randint(-2**63, 2**63, (3,)), lambda lib: lib.randint(0, 2**63, (2,)),
                                  lambda lib: lib.randint_like(lib.zeros(2), 2**63),
                                  lambda lib: lib.randint_like(lib.zeros(2, dtype=lib.int64), 2**63),
                                  lambda lib: lib.randint_like(lib.zeros(2, dtype=lib.float64), 2**64)])
def test_randint_high_beyond_int64_is_the_parsers_error_and_draws_nothing(call):
    """high = 2**63 does not fit PyTorch's int64 argument: its ValueError. The plain-argument fast
    paths let it through (randint drew from [-2**63, 2**63); randint_like on float32 warned and
    drew, on int64 drew), skipping the general path's parse."""
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        call(torch)
    strided.manual_seed(11)
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        call(strided)
    after = strided.rand(2)
    strided.manual_seed(11)
    assert strided.rand(2).tolist() == after.tolist()  # (no draw before the error)


# ---------------------------------------------------------------- float16/bfloat16: PyTorch's opmath


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_reduced_float_addmm_baddbmm_round_once_from_float32(dtype):
    """PyTorch computes ``alpha * acc + beta * input`` in float32 and rounds once; we rounded the
    product to float16 first and scaled and summed in float16 (a third to a half of the elements
    1 ulp or more off). Bits now, for sizes where the float32 sums agree (the accumulation order
    of a 9-term dot rarely matters to a float16 rounding: these draws have no such tie)."""
    rng = np.random.default_rng(7)
    calls = [("addmm", ((9, 7), (9, 9), (9, 7))), ("addmm", ((7,), (9, 9), (9, 7))),
             ("baddbmm", ((2, 4, 5), (2, 4, 3), (2, 3, 5))), ("baddbmm", ((2, 9, 9), (2, 9, 9), (2, 9, 9)))]
    for name, shapes in calls:
        vals = [torch.tensor(rng.standard_normal(s) * 3).to(getattr(torch, dtype)) for s in shapes]
        for beta, alpha in ((1, 1), (0.5, 0.3), (0, -1.7), (2, 0)):
            theirs = getattr(torch, name)(*vals, beta=beta, alpha=alpha)
            ours = getattr(strided, name)(*(strided.tensor(v.float().numpy()).to(getattr(strided, dtype)) for v in vals),
                                          beta=beta, alpha=alpha)
            assert ours.float().numpy().tobytes() == theirs.float().numpy().tobytes(), (name, beta, alpha)
    one = strided.ones(2, 2, dtype=strided.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (70000 * 2 overflows float16 in the one rounding: inf, quietly)
        assert strided.addmm(one, one, one, alpha=70000).float().tolist() == [[INF, INF]] * 2


# ---------------------------------------------------------------- addbmm: one addmm per batch


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_addbmm_adds_batch_by_batch_as_torch(dtype):
    """PyTorch's addbmm is ``result.addmm_(batch1[b], batch2[b], beta, alpha)`` per batch (beta for
    the first, then 1): ``alpha * P_b + result`` rounded each time. Summing the products first
    (ours) matched only ~40% of float32/float64 elements; bits now, fast (row-major) and general
    (transposed operand) paths alike."""
    rng = np.random.default_rng(3)
    c, a, b = rng.standard_normal((6, 7)) * 3, rng.standard_normal((4, 6, 5)) * 3, rng.standard_normal((4, 5, 7)) * 3
    theirs_in = [torch.tensor(x).to(getattr(torch, dtype)) for x in (c, a, b)]
    ours_in = [strided.tensor(x.double().numpy()).to(getattr(strided, dtype)) for x in theirs_in]
    transposed = ours_in[1].transpose(1, 2).contiguous().transpose(1, 2)
    # The bits can be PyTorch's only where its BLAS and strided's (NumPy's) round each batch's
    # product alike: float64 and the half types here, but float32 products differ between MKL's
    # and OpenBLAS's AVX-512 kernels (then only close values are required).
    same_products = all(
        torch.mm(theirs_in[1][k], theirs_in[2][k]).float().numpy().tobytes()
        == (ours_in[1][k] @ ours_in[2][k]).float().numpy().tobytes() for k in range(a.shape[0]))
    for beta, alpha in ((1, 1), (0.5, 0.3), (0, 2)):
        want = torch.addbmm(*theirs_in, beta=beta, alpha=alpha).float().numpy()
        for x in (ours_in[1], transposed):
            got = strided.addbmm(ours_in[0], x, ours_in[2], beta=beta, alpha=alpha).float().numpy()
            if same_products:
                assert got.tobytes() == want.tobytes(), (beta, alpha)
            else:
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_small_baddbmm_is_torchs_running_sum_bit_for_bit(dtype):
    """Below 400 multiply-adds a matrix PyTorch's baddbmm adds ``x[k] * y[k]`` in order (each
    product and sum rounded; float32 for float16), not BLAS's blocked sum: NumPy's matmul gave
    other last bits in a quarter to a half of the elements. Fast (row-major) and general
    (transposed operand) paths; (1, 399, 1) is still the loop, (2, 9, 9, 9) too."""
    rng = np.random.default_rng(5)
    for bs, n, k, p in ((2, 4, 3, 5), (3, 5, 7, 6), (1, 1, 399, 1), (2, 9, 9, 4)):
        theirs_in = [torch.tensor(rng.standard_normal(s)).to(getattr(torch, dtype))
                     for s in ((bs, n, p), (bs, n, k), (bs, k, p))]
        ours_in = [strided.tensor(x.double().numpy()).to(getattr(strided, dtype)) for x in theirs_in]
        transposed = ours_in[1].transpose(1, 2).contiguous().transpose(1, 2)
        for beta, alpha in ((1, 1), (0.5, 0.3), (0, 1)):
            want = torch.baddbmm(*theirs_in, beta=beta, alpha=alpha).float().numpy().tobytes()
            for x in (ours_in[1], transposed):
                got = strided.baddbmm(ours_in[0], x, ours_in[2], beta=beta, alpha=alpha)
                assert got.float().numpy().tobytes() == want, ((bs, n, k, p), beta, alpha)
