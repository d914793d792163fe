"""The compiled fronts' kernel entries (strided.ops._support.front.kernel_entry, kernels/_front.h).

A unary front may make its fast path's compiled pass itself: ``run(x, out, *extra)`` into a fresh
``out``, before the entry's ``fn``. These tests hold it to its contract: every op behind such an
entry gives its Python forward's bits (values, dtype, strides) on every layout and special value;
the kernel is skipped (the forward runs) where the kernels are switched off, where ``x`` is not
aligned or longer than the entry's limit, and where ``run`` answers False (``fn`` runs).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

import strided as st
import strided.nn.functional as F
from strided.dtypes import float32
from strided.kernels import native
from strided.ops._support.front import compiled_front, fallback_of, kernel_entry
from strided.ops._support.operands import _cinfo

NATIVE = native.special() is not None and st.erf is not fallback_of(st.erf)
pytestmark = pytest.mark.skipif(not NATIVE and os.environ.get("STRIDED_REQUIRE_NATIVE") != "1",
                                reason="the compiled kernels are not built: no kernel entries")

OPS = {
    "erf": st.erf, "erfc": st.erfc, "erfinv": st.erfinv, "lgamma": st.lgamma, "digamma": st.digamma, "i0": st.i0,
    "rsqrt": st.rsqrt, "sign": st.sign, "frac": st.frac, "sigmoid": st.sigmoid, "exp": st.exp, "tanh": st.tanh,
    "special.i1": st.special.i1, "special.i0e": st.special.i0e, "special.i1e": st.special.i1e,
    "F.silu": F.silu, "F.softplus": F.softplus, "logit": st.logit,
}
# the ones whose fronts make a compiled pass (all of OPS: F.softplus calls NumPy's exp and log1p loops from C)
KERNEL_OPS = list(OPS)
SPECIALS = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-310, -1e-310, 1e-38, -1e-38, 3e38,
            -3e38, 1e300, -1e300, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 20.0, 20.000001, 88.8, -88.8, 100.0, -100.0,
            0.9999999, -0.9999999, 1e-8, -3.0, -2.5]


def _values(dtype: np.dtype, n: int = 300) -> np.ndarray:
    rng = np.random.default_rng(7)
    with np.errstate(all="ignore"):
        parts = [np.array(SPECIALS).astype(dtype), (rng.standard_normal(n) * 10).astype(dtype),
                 rng.uniform(-1, 1, n).astype(dtype), (rng.standard_normal(n) * 1e3).astype(dtype)]
    return np.concatenate(parts)


def _same(a: st.Tensor, b: st.Tensor) -> None:
    assert a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride()
    assert a.storage_offset() == b.storage_offset()
    assert a._np().tobytes() == b._np().tobytes()


def _tensors(dtype: np.dtype) -> dict[str, st.Tensor]:
    v = _values(dtype)
    return {
        "0-d": st.tensor(v[3]), "empty": st.tensor(v[:0].reshape(0, 4)), "1-d": st.tensor(v),
        "(3,4)": st.tensor(v[:12].reshape(3, 4)), "(16,16)": st.tensor(np.resize(v, 256).reshape(16, 16)),
        "long": st.tensor(np.resize(v, 20000)),  # (beyond sigmoid / silu's one-chunk limit: the forward)
        "transposed": st.tensor(v[:12].reshape(4, 3)).t(), "offset": st.tensor(v)[5:17].reshape(3, 4),
    }


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(OPS))
def test_kernel_fronts_give_the_forwards_bits(name: str, dtype: type) -> None:
    front = OPS[name]
    assert fallback_of(front) is not front, name
    for x in _tensors(np.dtype(dtype)).values():
        _same(front(x), fallback_of(front)(x))
        with native.disabled():  # (the kernels off in this context: the forward's own path)
            _same(front(x), fallback_of(front)(x))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_polygamma_fronts_give_the_python_paths_bits(n: int, dtype: type) -> None:
    from strided.ops.elementwise.special_fns import _order_front

    for x in _tensors(np.dtype(dtype)).values():
        want = fallback_of(_order_front(n))(x)
        _same(st.polygamma(n, x), want)
        _same(x.polygamma(n), want)
    with pytest.raises(RuntimeError, match="negative"):
        st.polygamma(-1, st.ones(3))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kernel_fronts_match_torch_where_they_port_its_code(dtype: type) -> None:
    v = _values(np.dtype(dtype))
    pairs = {"sigmoid": (st.sigmoid, torch.sigmoid), "F.silu": (F.silu, torch.nn.functional.silu),
             "digamma": (st.digamma, torch.digamma), "i0": (st.i0, torch.i0),
             "special.i1e": (st.special.i1e, torch.special.i1e)}
    for name, (ours, theirs) in pairs.items():
        for shape in ((len(v),), (3, 4), (16, 16)):
            a = np.resize(v, int(np.prod(shape))).reshape(shape)
            got, want = ours(st.tensor(a)).numpy(), theirs(torch.tensor(a)).numpy()
            np.testing.assert_array_equal(got, want, err_msg=name)
            assert np.array_equal(np.signbit(got), np.signbit(want)) or np.isnan(got).any(), name


def test_an_unaligned_run_goes_to_fn() -> None:
    raw = np.zeros(4 * 12 + 1, np.uint8)
    a = raw[1:].view(np.float32).reshape(3, 4)  # (an odd address: the kernels refuse it)
    a[...] = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    assert not a.flags.aligned
    x = st.from_numpy(a)
    for front in (st.erf, st.digamma, st.rsqrt, st.frac):
        _same(front(x), fallback_of(front)(x))


def _probe(answer: object):
    """A front over a recording forward, whose float32 entry's kernel answers ``answer``."""
    calls: list[str] = []

    def forward(x):
        calls.append("forward")
        return st.zeros(3, 4)

    def fn(run):
        calls.append("fn")
        return np.full(len(run), 2.0, np.float32)

    def run(x, out, value, *more):
        assert more == (1, 2, 3, 4)  # (five extra arguments, as sigmoid's and silu's entries pass)
        calls.append("kernel")
        out[...] = value
        return answer

    front = compiled_front(forward, 1, {float32: (fn, True, None,
                                                  kernel_entry(run, (5.0, 1, 2, 3, 4), np.float32, 100))})
    return front, calls


def test_the_kernel_runs_first_and_its_false_hands_over_to_fn() -> None:
    front, calls = _probe(None)
    assert front(st.ones(3, 4)).tolist() == [[5.0] * 4] * 3 and calls == ["kernel"]
    front, calls = _probe(False)
    assert front(st.ones(3, 4)).tolist() == [[2.0] * 4] * 3 and calls == ["kernel", "fn"]


def test_the_kernel_is_skipped_beyond_its_limit_and_where_the_kernels_are_off() -> None:
    front, calls = _probe(True)
    _cinfo[(200,)]  # (the fast paths' memo of the shape, which the front reads: made by the first Python call)
    front(st.tensor(np.ones(200, np.float32)))  # (over max_n = 100: fn)
    assert calls == ["fn"]
    calls.clear()
    with native.disabled():
        front(st.ones(3, 4))
    assert calls == ["forward"]
    calls.clear()
    front(st.ones(3, 4, dtype=st.float64))  # (no entry for float64: the forward)
    assert calls == ["forward"]


def test_a_kernel_error_propagates() -> None:
    def run(x, out):
        raise ValueError("boom")

    front = compiled_front(lambda x: x, 1, {float32: (None, True, None, kernel_entry(run, (), np.float32))})
    _cinfo[(3,)]
    with pytest.raises(ValueError, match="boom"):
        front(st.tensor([1.0, 2.0, 3.0]))


def test_a_malformed_kernel_entry_is_refused() -> None:
    with pytest.raises(TypeError):
        compiled_front(lambda x: x, 1, {float32: (None, True, None, ("not", "five"))})
    assert kernel_entry(None, (), np.float32) is None


BINARY = {"logaddexp": st.logaddexp, "logaddexp2": st.logaddexp2, "clamp_min": st.clamp_min, "clamp_max": st.clamp_max,
          "complex": st.complex, "polar": st.polar}


def _pairs(dtype: np.dtype) -> list[tuple[st.Tensor, object]]:
    """Operand pairs: two row-major tensors (the fronts' call: every special against every special,
    and random ones), and pairs the fronts hand over (a number, another dtype or layout, 0-d, empty)."""
    with np.errstate(over="ignore"):
        s = np.array(SPECIALS).astype(dtype)
    a, b = np.repeat(s, len(s)), np.tile(s, len(s))
    v = _values(dtype)
    w = np.random.default_rng(3).permutation(v)
    t = st.tensor
    return [
        (t(a), t(b)), (t(a.reshape(-1, len(s))), t(b.reshape(-1, len(s)))), (t(v[:12].reshape(3, 4)), t(w[:12].reshape(3, 4))),
        (t(np.resize(v, 256).reshape(16, 16)), t(np.resize(w, 256).reshape(16, 16))), (t(v[3]), t(w[3])),
        (t(v[:0]), t(w[:0])), (t(v[:12].reshape(3, 4)), 0.5), (t(v[:12].reshape(4, 3)).t(), t(w[:12].reshape(4, 3)).t()),
        (t(v[:12].reshape(3, 4)), t(w[:12].reshape(3, 4)).to(st.float16)), (t(v)[1:13], t(w)[2:14]),
    ]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_kernel_fronts_give_the_forwards_bits(name: str, dtype: type) -> None:
    front = BINARY[name]
    assert fallback_of(front) is not front, name
    for x, y in _pairs(np.dtype(dtype)):
        for _ in range(2):  # (the first logaddexp call checks its loop, the second runs it)
            _same_or_raise(front, fallback_of(front), x, y)
        with native.disabled():
            _same_or_raise(front, fallback_of(front), x, y)


def _same_or_raise(f, g, *args) -> None:
    """``f(*args)`` and ``g(*args)`` the same result, or the same error (and warnings)."""
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            want = g(*args)
        except Exception as e:  # noqa: BLE001 - compared with the front's own
            with pytest.raises(type(e)) as got:
                f(*args)
            assert str(got.value) == str(e)
            return
        theirs = [str(w.message) for w in seen]
        seen.clear()
        _same(f(*args), want)
        assert [str(w.message) for w in seen] == theirs


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_complex_and_polar_match_torch(dtype: type) -> None:
    for x, y in _pairs(np.dtype(dtype))[2:4]:  # (finite values: torch's polar uses other cos/sin)
        tx, ty = torch.from_numpy(x.numpy()), torch.from_numpy(y.numpy())
        assert st.complex(x, y).numpy().tobytes() == torch.complex(tx, ty).numpy().tobytes()
        np.testing.assert_allclose(st.polar(x, y).numpy(), torch.polar(tx, ty).numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_clamp_by_a_tensor_bound_matches_torch(dtype: type) -> None:
    for x, y in _pairs(np.dtype(dtype))[:4]:
        tx, ty = torch.from_numpy(x.numpy()), torch.from_numpy(y.numpy())
        for ours, theirs in ((st.clamp_min, torch.clamp_min), (st.clamp_max, torch.clamp_max)):
            got, want = ours(x, y).numpy(), theirs(tx, ty).numpy()
            np.testing.assert_array_equal(got, want)
            assert np.array_equal(np.signbit(got[~np.isnan(got)]), np.signbit(want[~np.isnan(want)]))  # (the zeros)


def _complex_values(dtype: type, n: int) -> np.ndarray:
    rng = np.random.default_rng(11)
    s = np.array(SPECIALS)
    with np.errstate(over="ignore"):
        parts = np.concatenate([np.repeat(s, len(s)), rng.standard_normal(n) * 10]).astype(np.float32).astype(np.float64), \
            np.concatenate([np.tile(s, len(s)), rng.standard_normal(n) * 10]).astype(np.float32).astype(np.float64)
    z = np.empty(len(parts[0]), dtype)  # (parts set one by one: inf * 1j would make NaN real parts)
    z.real, z.imag = parts
    return z


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("n", [0, 1, 7, 8, 13, 255, 256, 257, 1000, 40000])
def test_angle_front_gives_the_forwards_bits_and_torchs(dtype: type, n: int) -> None:
    z = _complex_values(dtype, 1000)
    z = np.resize(z, n) if n else z[:0]
    for x in (st.tensor(z), st.tensor(z.reshape(-1, 1)), st.tensor(z)[1:] if n else st.tensor(z)):
        _same(st.angle(x), fallback_of(st.angle)(x))
        _same(x.angle(), fallback_of(st.angle)(x))
        with native.disabled():
            _same(st.angle(x), fallback_of(st.angle)(x))
    if dtype is np.complex64 and n:  # (complex64: PyTorch's own split of SLEEF's and the C library's atan2f)
        got, want = st.angle(st.tensor(z)).numpy(), torch.angle(torch.from_numpy(z)).numpy()
        assert got.tobytes() == want.tobytes() or np.array_equal(got, want, equal_nan=True)


def test_angle_run_refuses_what_it_does_not_take() -> None:
    k = native._compiled("_sleefkernel")
    z = np.ones(4, np.complex64)
    assert k.angle_run(z, np.empty(4, np.float64), 1, -1, 8) is False  # (out not float32)
    assert k.angle_run(z.astype(np.complex128), np.empty(4, np.float32), 1, -1, 8) is False
    assert k.angle_run(z, np.empty(3, np.float32), 1, -1, 8) is False  # (lengths differ)
    with pytest.raises(ValueError):
        k.angle_run(z, np.empty(4, np.float32), 2, -1, 8)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_last_dim_fronts_give_the_entrys_bits(name: str, dtype: type) -> None:
    front = getattr(st, name)
    assert fallback_of(front) is not front and getattr(st.Tensor, name) is front
    v = _values(np.dtype(dtype))
    shapes = [(12,), (3, 4), (16, 16), (2, 3, 5), (1, 7), (7, 1), (0, 4), (4, 0), ()]
    for shape in shapes:
        n = int(np.prod(shape))
        x = st.tensor(np.resize(v, n).reshape(shape) if n else np.zeros(shape, dtype))
        for args, kwargs in (((-1,), {}), ((len(shape) - 1,), {}), ((), {"dim": -1}), ((0,), {}), ((-2,), {}),
                             ((True,), {}), ((5,), {}), ((-1,), {"dtype": st.float64}), ((), {"dim": len(shape) - 1})):
            def ours(x=x, args=args, kwargs=kwargs):
                return front(x, *args, **kwargs)

            def method(x=x, args=args, kwargs=kwargs):
                return getattr(x, name)(*args, **kwargs)

            def theirs(x=x, args=args, kwargs=kwargs):
                return fallback_of(front)(x, *args, **kwargs)

            _same_or_raise(ours, theirs)
            _same_or_raise(method, theirs)
            with native.disabled():
                _same_or_raise(ours, theirs)
    t = st.tensor(v[:12].reshape(3, 4)).t()  # (not row-major: the entry)
    _same(front(t, -1), fallback_of(front)(t, -1))


LERP_WEIGHTS = [0.5, 0.25, 0.75, 0.1, 1 / 3, 0.49999999, 0.5000000001, -0.0, 0.0, 1.0, -1.0, 2.5, 1e-46, -1e-46,
                1e-300, 3.4e38, -3.4e38, float("inf"), float("nan")]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lerp_fresh_path_gives_lerp_intos_bits(dtype: type) -> None:
    """lerp(a, b, w) of two row-major tensors and a float: the compiled pass is called with the
    Python float itself (the kernel's cast rounds it for float32, as lerp_into's compute.type(w)
    did): the bits of lerp_into's call on the flat runs, and of torch's lerp."""
    from strided.kernels.fpstate import quietly
    from strided.kernels.fused import lerp_into

    v = _values(np.dtype(dtype))
    w_ = np.random.default_rng(5).permutation(v)
    for shape in ((len(v),), (3, 4), (16, 16)):
        n = int(np.prod(shape))
        a, b = np.resize(v, n).reshape(shape), np.resize(w_, n).reshape(shape)
        for w in LERP_WEIGHTS:
            if dtype is np.float32 and 3.4028234663852886e38 < abs(w) < float("inf"):
                continue  # (refused by the general path, as PyTorch does)
            got = st.lerp(st.tensor(a), st.tensor(b), w)
            if w == 1.0 or w != w:  # (PyTorch's scalar tail and NaN order differ from lerp_into there: day 23)
                theirs = torch.lerp(torch.from_numpy(a), torch.from_numpy(b), w).numpy()
                assert got.numpy().tobytes() == theirs.tobytes(), w
                continue
            want = np.empty(n, dtype)
            quietly(lerp_into, a.reshape(-1), b.reshape(-1), np.dtype(dtype).type(w), want)
            assert got.numpy().tobytes() == want.reshape(shape).tobytes(), w
            assert got.stride() == st.tensor(a).stride()
            theirs = torch.lerp(torch.from_numpy(a), torch.from_numpy(b), w).numpy()
            np.testing.assert_array_equal(got.numpy(), theirs)
            with native.disabled():  # (lerp_into's NumPy steps: the same bits)
                assert st.lerp(st.tensor(a), st.tensor(b), w).numpy().tobytes() == got.numpy().tobytes()
            if len(shape) == 2:  # (a shared transposed layout: its storage runs, the result laid out so)
                pa = st.tensor(np.ascontiguousarray(a.T)).t()
                pb = st.tensor(np.ascontiguousarray(b.T)).t()
                tp = torch.lerp(torch.from_numpy(np.ascontiguousarray(a.T)).t(),
                                torch.from_numpy(np.ascontiguousarray(b.T)).t(), w)
                permuted = st.lerp(pa, pb, w)
                assert permuted.stride() == tp.stride()
                assert permuted.numpy().tobytes() == got.numpy().tobytes()
