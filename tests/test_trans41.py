"""float32 / float64 ``sinh cosh atanh`` after the AVX-512F forms of SLEEF's functions (``_sleef_hyper.h``'s
sleef_sinhcoshf16 / sleef_atanhf16, sixteen float32 lanes, and sleef_sinhcosh8 / sleef_atanh8, eight
float64 lanes: the widths of ATen's AVX512 build): every form the kernel has (plain C, AVX2 + FMA,
AVX-512F) equal to torch's bits and to each other, every tail length of the masked last vector, and the ops on permuted, expanded, sliced, 0-d and zero-size
layouts with NaN, +-inf, -0.0, huge and subnormal values (float32 and float64) against torch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided
from oracle_helpers import assert_same_bits as _same
from oracle_helpers import float_bits as _bits
from strided.kernels import native
from strided.kernels.sleef import ATANH, COSH, SINH

HYPER = {"sinh": SINH, "cosh": COSH, "atanh": ATANH}
FORMS = {0: "plain C", 1: "AVX-512F", 2: "AVX2 + FMA"}
needs_kernel = pytest.mark.skipif(native.sleef() is None, reason="the compiled SLEEF kernel is not built")


# +-0, +-inf, NaNs with payloads, subnormals, huge values, atanh's edges (+-1 and just inside / outside),
# sinh / cosh's overflow near 88.72 and their cut at 89 (float64: 710)
_EDGE = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, 1 - 2.0 ** -24, -(1 - 2.0 ** -24), 1 + 2.0 ** -23,
         -1.5, 0.5, 1e-45, -1e-45, 1e-40, -1.2e-38, 1e-8, 88.0, 88.72, 88.73, 89.0, 89.00001, -89.0, 90.0, 709.78,
         710.0, 710.0001, -710.5, 1e30, -1e30, 3.4e38, 1e300, 5e-324, -5e-324]


def _data(name: str, n: int, rng: np.random.Generator, dt: type = np.float32) -> np.ndarray:
    """Test data of ``dt``: the edge values, random words (every class, NaN payloads), the op's domain."""
    if dt == np.float32:
        words = rng.integers(0, 2 ** 32, n // 4, dtype=np.uint64).astype(np.uint32).view(np.float32)
        nans = np.array([0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFFC12345, 0x7F800001], np.uint32).view(np.float32)
    else:
        words = rng.integers(0, 2 ** 64, n // 4, dtype=np.uint64).view(np.float64)
        nans = np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000000001, 0x7FF0000000000001],
                        np.uint64).view(np.float64)
    wide = 92 if dt == np.float32 else 720
    dom = rng.uniform(-1.01, 1.01, n) if name == "atanh" else rng.uniform(-wide, wide, n)
    with np.errstate(over="ignore"):
        edge = np.array(_EDGE, dt)
    return np.concatenate([edge, nans, words, dom.astype(dt), rng.uniform(-3, 3, n // 4).astype(dt)])


def _run(x: np.ndarray, op: int, form: int) -> np.ndarray | None:
    """Every element through the vectorized function (step -1) in ``form``; None where the CPU lacks it."""
    res = np.full_like(x, 7.0)
    run = native.sleef().run if x.dtype == np.float32 else native.sleef().run_d
    return res if run(x, res, op, 0, 0, -1, form) else None


@needs_kernel
@pytest.mark.usefixtures("torch_one_thread")
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("name", list(HYPER))
def test_each_form_equals_torch_vectorized(name: str, form: int, dt: type) -> None:
    """Each form (plain C, AVX-512F, AVX2 + FMA) on a contiguous run of a multiple of 32 elements
    (no scalar tail at either ATen width) equals torch's run at one thread (one chunk: every element
    the vectorized function). The AVX-512F form must run where the CPU has it (capability 16)."""
    rng = np.random.default_rng(41)
    x = _data(name, 1 << 15, rng, dt)
    x = x[: len(x) // 32 * 32]
    res = _run(x, HYPER[name], form)
    if res is None:
        assert not (form == 1 and native.sleef().capability() == 16), "the AVX-512F form did not run"
        pytest.skip(f"this CPU lacks the {FORMS[form]} form")
    want = getattr(torch, name)(torch.from_numpy(x)).numpy()
    bad = _bits(res) != _bits(want)
    assert not bad.any(), (x[bad][:4], res[bad][:4], want[bad][:4])


@needs_kernel
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(HYPER))
def test_forms_agree_at_every_tail_length(name: str, dt: type) -> None:
    """Lengths 0..70 and 16384 + (0..70) at every offset 0..3 into a buffer: the AVX-512F form's
    masked last vector (and the AVX2 form's one-lane tail) give the plain C form's bits, writing
    nothing past the run."""
    rng = np.random.default_rng(5)
    base = _data(name, 16384, rng, dt)
    rng.shuffle(base)
    run = native.sleef().run if dt == np.float32 else native.sleef().run_d
    for n in [*range(71), *range(16384, 16384 + 71, 5)]:
        for off in range(4):
            x = base[off: off + n]
            want = _run(x, HYPER[name], 0)
            for form in (1, 2):
                buf = np.full(n + 40, 7.0, dt)
                if not run(x, buf[off: off + n], HYPER[name], 0, 0, -1, form):
                    continue
                assert (_bits(buf[off: off + n]) == _bits(want)).all(), (name, n, off, form)
                assert (buf[:off] == 7.0).all() and (buf[off + n:] == 7.0).all()


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(HYPER))
def test_benchmark_rows(name: str, dt: type) -> None:
    """The benchmark's rows: 1024 x 1024 contiguous and transposed (PyTorch's chunks and their scalar
    tails at the thread count strided assumes), fresh, out= and in place."""
    rng = np.random.default_rng(9)
    x = (rng.uniform(-0.999, 0.999, (1024, 1024)) if name == "atanh" else rng.uniform(-12, 12, (1024, 1024))).astype(dt)
    with np.errstate(over="ignore"):
        x.ravel()[::997] = np.array(_EDGE, np.float64)[rng.integers(0, len(_EDGE), x.size // 997 + 1)].astype(dt)
    S, T = strided.from_numpy(x), torch.from_numpy(x)
    _same(getattr(strided, name)(S), getattr(torch, name)(T))
    _same(getattr(strided, name)(S.t()), getattr(torch, name)(T.t()))
    o1, o2 = strided.empty((1024, 1024), dtype=S.dtype), torch.empty((1024, 1024), dtype=T.dtype)
    getattr(strided, name)(S.t(), out=o1)
    getattr(torch, name)(T.t(), out=o2)
    _same(o1, o2)
    a, b = S.clone(), T.clone()
    getattr(a, name + "_")()
    getattr(b, name + "_")()
    _same(a, b)


_VALUES = hs.one_of(hs.sampled_from(_EDGE), hs.floats(-1.2, 1.2), hs.floats(-100, 100), hs.floats(allow_nan=True))


@hs.composite
def _case(draw: hs.DrawFn) -> tuple[np.ndarray, str, tuple]:
    """A base array of 0..3 dims (0-d and zero-size included) and a view of it: permuted, sliced with
    steps (negative too), expanded (a size-1 dim broadcast), or as it is."""
    nd = draw(hs.integers(0, 3))
    shape = tuple(draw(hs.lists(hs.integers(0, 7), min_size=nd, max_size=nd)))
    dt = draw(hs.sampled_from([np.float32, np.float64]))
    n = int(np.prod(shape))
    vals = draw(hs.lists(_VALUES, min_size=n, max_size=n))
    with np.errstate(over="ignore"):
        base = np.array(vals, np.float64).astype(dt).reshape(shape)
    kind = draw(hs.sampled_from(["plain", "permute", "slice", "expand"]))
    arg: tuple = ()
    if kind == "permute" and nd:
        arg = tuple(draw(hs.permutations(range(nd))))
    elif kind == "slice" and nd:
        arg = tuple(slice(draw(hs.integers(0, 2)), None, draw(hs.sampled_from([1, 2, 3, -1, -2]))) for _ in range(nd))
    elif kind == "expand":
        arg = (draw(hs.integers(1, 5)),)
    return base, kind, arg


def _view(a, kind: str, arg: tuple):
    if kind == "permute" and arg:
        return a.permute(*arg)
    if kind == "slice" and arg:
        if any(s.step < 0 for s in arg):  # (neither library slices with a negative step: flip, then slice)
            a = a.flip([d for d, s in enumerate(arg) if s.step < 0])
            arg = tuple(slice(s.start, None, abs(s.step)) for s in arg)
        return a[arg]
    if kind == "expand":
        return a.reshape(1, *a.shape).expand(arg[0], *a.shape)
    return a


@settings(max_examples=300, deadline=None)
@given(case=_case(), name=hs.sampled_from(list(HYPER)), how=hs.sampled_from(["function", "method", "out", "inplace"]))
def test_layouts_and_values_against_torch(case: tuple, name: str, how: str) -> None:
    """Any small layout (permuted, sliced, expanded, 0-d, zero-size) of float32 / float64 values with
    NaN, +-inf, -0.0, huge and subnormal ones: torch's bits, strides and dtype, by the function, the
    method, out= (a fresh out of the view's shape) and in place (on a clone)."""
    base, kind, arg = case
    S, T = _view(strided.from_numpy(base.copy()), kind, arg), _view(torch.from_numpy(base.copy()), kind, arg)
    if how == "function":
        _same(getattr(strided, name)(S), getattr(torch, name)(T))
    elif how == "method":
        _same(getattr(S, name)(), getattr(T, name)())
    elif how == "out":
        o1, o2 = strided.empty(tuple(S.shape), dtype=S.dtype), torch.empty(tuple(T.shape), dtype=T.dtype)
        getattr(strided, name)(S, out=o1)
        getattr(torch, name)(T, out=o2)
        _same(o1, o2)
    else:
        a, b = S.clone(), T.clone()
        getattr(a, name + "_")()
        getattr(b, name + "_")()
        _same(a, b)
