"""clamp41: the clamp family's and addcmul / addcdiv's large rows (issue 23) against PyTorch.

``addcmul_runs`` and ``addcdiv_runs`` write a fresh result (out apart from every operand) with a
direct AVX2 + FMA copy of their loops where the CPU has it (8 float32 / 4 float64 lanes, each result
stored straight into out; only the results tested for NaN, the exact NaN rules run again where one
came out). These tests hold that copy to the loops it stands beside (the AVX2 block loops and the C
loops under ``STRIDED_NATIVE_ROWS_ISA=base``, the SSE2 ones under ``STRIDED_NATIVE_NO_FMA3`` too: the
same words for random bit patterns, specials and every length around the vector blocks, each run in a
fresh process), and the public ops to PyTorch's bits on hard layouts and on
large inputs (past the parallel grain). The clamp rows (clamp, clamp_min / clamp_max by numbers and
by tensors, hardtanh, hardsigmoid, hardswish) are held to PyTorch on the same layouts: NaN, signed
zeros, min > max, integer dtypes, promotion, ``out=`` and in place.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided
import strided.nn.functional as F
from layouts import build_valued, specs, valued_storage
from strided.kernels import native

K = native.special()
needs_kernel = pytest.mark.skipif(K is None, reason="the compiled special kernel is not built")

_U = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}
_S = {np.dtype(np.float32): strided.float32, np.dtype(np.float64): strided.float64}


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(_U[a.dtype])


def _words(n: int, dtype: type, seed: int, nan: float = 0.02) -> np.ndarray:
    """``n`` values: normal draws (both signs, some near zero), a few infinities, signed zeros and
    NaNs with payloads and signs (rate ``nan``)."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 3).astype(dtype)
    u = _U[np.dtype(dtype)]
    w = x.view(u)
    pick = rng.random(n)
    if np.dtype(dtype).itemsize == 4:
        specials = np.array([0x7FC00000, 0xFFC00000, 0x7FA00001, 0xFF812345, 0x7F800000, 0xFF800000, 0, 0x80000000],
                            np.uint32)
    else:
        specials = np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF4000000000001, 0xFFF0000000012345,
                             0x7FF0000000000000, 0xFFF0000000000000, 0, 0x8000000000000000], np.uint64)
    where = pick < nan
    w[where] = specials[rng.integers(0, len(specials), int(where.sum()))]
    return x


def _assert_same(s: strided.Tensor, t: torch.Tensor) -> None:
    """strided's result is PyTorch's: shape, strides, dtype and every word (NaNs included)."""
    assert tuple(s.shape) == tuple(t.shape)
    assert s._dtype.name == str(t.dtype).split(".")[1]
    if t.numel() > 1:
        assert tuple(s.stride()) == tuple(t.stride())
    sa, ta = s.numpy(), t.numpy()
    if sa.dtype.kind == "f":
        np.testing.assert_array_equal(_bits(sa), _bits(ta))
    else:
        np.testing.assert_array_equal(sa, ta)


def _same_values(s: strided.Tensor, t: torch.Tensor) -> None:
    """As :func:`_assert_same`, NaNs compared as NaNs (any word): where the NaN's word is NumPy's
    choice (an operation meeting two NaN operands), not a layout's."""
    assert tuple(s.shape) == tuple(t.shape)
    assert s._dtype.name == str(t.dtype).split(".")[1]
    if t.numel() > 1:
        assert tuple(s.stride()) == tuple(t.stride())
    sa, ta = s.numpy(), t.numpy()
    nan = np.isnan(ta)
    np.testing.assert_array_equal(np.isnan(sa), nan)
    np.testing.assert_array_equal(_bits(np.where(nan, 0, sa).astype(sa.dtype)), _bits(np.where(nan, 0, ta).astype(ta.dtype)))


# --- the direct copy beside the block and C loops ----------------------------------------------

_ISA_SCRIPT = """
import hashlib, json, os, sys
if sys.argv[-1] == "sse2":
    os.environ["STRIDED_NATIVE_NO_FMA3"] = "1"  # (read at the kernel's first call: the SSE2 copies)
import numpy as np
from strided.kernels import native
k = native.special()
out = []
rng = np.random.default_rng(41)
U = {4: np.uint32, 8: np.uint64}
for dtype in (np.float32, np.float64):
    for n in list(range(0, 40)) + [63, 64, 65, 255, 256, 257, 1000, 40000]:
        for nan in (0.0, 0.03):
            x, y1, y2 = ((rng.standard_normal(n) * 3).astype(dtype) for _ in range(3))
            if nan:
                for a in (x, y1, y2):
                    w = a.view(U[a.itemsize])
                    m = rng.random(n) < nan
                    w[m] = rng.integers(0, np.iinfo(U[a.itemsize]).max, int(m.sum()), dtype=U[a.itemsize],
                                        endpoint=True) | (U[a.itemsize](0x7FF) << U[a.itemsize](52) if a.itemsize == 8
                                                          else U[a.itemsize](0xFF) << U[a.itemsize](23))
                y2[: n // 7] = 0.0  # (divisions by zero: infinities, and 0 / 0)
                y1[: n // 11] = np.inf
            for value in (None, 0.5, -3.0, float("nan"), 0.0):
                for name in ("addcdiv_runs", "addcmul_runs"):
                    o = np.full(n, 7, dtype)
                    ok = getattr(k, name)(x, y1, y2, value, o)
                    words = o.view(U[o.itemsize]).tobytes() if ok else b""
                    out.append([name, np.dtype(dtype).name, n, nan, repr(value), bool(ok),
                                hashlib.sha256(words).hexdigest()])
print(json.dumps(out))
"""


@needs_kernel
def test_the_direct_copy_gives_the_block_and_c_loops_words(run_with_rows_isa) -> None:
    """The fresh-result loops of addcdiv_runs / addcmul_runs: the same answer and the same words on
    every copy this machine runs (the direct AVX2 + FMA one by default and under
    STRIDED_NATIVE_ROWS_ISA=avx2 or avx512; the AVX2 block loops and the C loops under base; the
    SSE2 copies under base with STRIDED_NATIVE_NO_FMA3), random NaN payloads, zeros, infinities,
    every length around the 8- and 4-lane blocks."""
    direct = json.loads(run_with_rows_isa(_ISA_SCRIPT, "avx512"))
    avx2 = json.loads(run_with_rows_isa(_ISA_SCRIPT, "avx2"))
    base = json.loads(run_with_rows_isa(_ISA_SCRIPT, "base"))
    sse2 = json.loads(run_with_rows_isa(_ISA_SCRIPT.replace('sys.argv[-1] == "sse2"', "True"), "base"))
    assert len(direct) == len(avx2) == len(base) == len(sse2) > 1000
    for d, a, b, c in zip(direct, avx2, base, sse2):
        assert d == a == b == c, (d, a, b, c)


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("value", [None, 0.5, -2.0])
@pytest.mark.parametrize("n", [1, 15, 16, 17, 100, 4099])
def test_addcdiv_runs_fresh_gives_the_ufuncs_words(dtype: type, value: float | None, n: int) -> None:
    """A fresh addcdiv_runs result: NumPy's three ufuncs' words (a NaN quotient's where it is NaN),
    or False where the product or the division met two NaN operands (then NumPy's loop decides)."""
    x, y1, y2 = (_words(n, dtype, seed) for seed in (1, 2, 3))
    y2[::13] = 0.0
    o = np.empty(n, dtype)
    ok = K.addcdiv_runs(x, y1, y2, value, o)
    with np.errstate(all="ignore"):
        s = y1 if value is None else y1 * dtype(value)
        q = np.true_divide(s, y2)
        want = np.where(np.isnan(q), q, np.add(x, q))  # (a NaN quotient's word: PyTorch's, test_attack42)
        both = np.isnan(s) & np.isnan(y2)
    assert bool(ok) == (not both.any())
    if ok:
        np.testing.assert_array_equal(_bits(o), _bits(want))


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("value", [None, 0.5, -2.0])
@pytest.mark.parametrize("n", [1, 7, 8, 9, 16, 17, 100, 4099])
def test_addcmul_runs_fresh_gives_pytorchs_words(dtype: type, value: float | None, n: int) -> None:
    """A fresh addcmul_runs result: PyTorch's addcmul words, NaNs included (fmadd's first NaN
    operand, quieted; inf * 0 the default NaN)."""
    x, y1, y2 = (_words(n, dtype, seed, nan=0.05) for seed in (4, 5, 6))
    y2[::9] = 0.0
    y1[::17] = np.inf
    o = np.empty(n, dtype)
    assert K.addcmul_runs(x, y1, y2, value, o)
    t = torch.addcmul(torch.from_numpy(x), torch.from_numpy(y1), torch.from_numpy(y2), value=1 if value is None else value)
    np.testing.assert_array_equal(_bits(o), _bits(t.numpy()))


# --- the public ops on hard layouts ------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(spec=specs(max_dims=3, max_size=6), dtype=hs.sampled_from(["float32", "float64"]),
       value=hs.sampled_from([1, 0.5, -2.0, 3]), seed=hs.integers(0, 2**16), nan=hs.booleans(),
       op=hs.sampled_from(["addcmul", "addcdiv"]), perm=hs.booleans())
def test_addc_on_hard_layouts(spec, dtype, value, seed, nan, op, perm) -> None:
    """addcmul / addcdiv of three tensors of one hard layout (or a transposed copy of it):
    PyTorch's shape, strides, dtype and values (addcmul's words exactly)."""
    if spec.has_negative:
        return
    ts, ss = [], []
    for k in range(3):
        data = valued_storage(spec, dtype, seed + k, nan=nan)
        t, _, s = build_valued(spec, data)
        if perm and len(spec.shape) >= 2:
            t, s = t.transpose(0, -1).contiguous().transpose(0, -1), s.transpose(0, -1).contiguous().transpose(0, -1)
        ts.append(t)
        ss.append(s)
    got = getattr(strided, op)(*ss, value=value)
    want = getattr(torch, op)(*ts, value=value)
    (_assert_same if op == "addcmul" else _same_values)(got, want)


@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("perm", [False, True])
@pytest.mark.parametrize("value", [1, 0.25])
def test_addc_large_rows(op, dtype, perm, value, torch_threads_as_assumed) -> None:
    """The bench's rows (past the parallel grain), contiguous and transposed, with NaNs, zeros and
    infinities sprinkled: PyTorch's values (addcmul's words exactly); also into out= and in place."""
    shape = (300, 257)
    arrays = []
    for seed in (11, 12, 13):
        a = _words(shape[0] * shape[1], dtype, seed, nan=0.001).reshape(shape[::-1] if perm else shape)
        arrays.append(a.T if perm else a)
    ss = [strided.from_numpy(a) for a in arrays]
    ts = [torch.from_numpy(a) for a in arrays]
    check = _assert_same if op == "addcmul" else _same_values
    check(getattr(strided, op)(*ss, value=value), getattr(torch, op)(*ts, value=value))
    so, to = strided.empty(shape, dtype=_S[np.dtype(dtype)]), torch.empty(shape, dtype=ts[0].dtype)
    getattr(strided, op)(*ss, value=value, out=so)
    getattr(torch, op)(*ts, value=value, out=to)
    check(so, to)
    si, ti = ss[0].clone(), ts[0].clone()
    getattr(si, op + "_")(ss[1], ss[2], value=value)
    getattr(ti, op + "_")(ts[1], ts[2], value=value)
    check(si, ti)


# --- the clamp family --------------------------------------------------------------------------

_BOUNDS = hs.sampled_from([None, 0.0, -0.0, 0.5, -1.5, 2, float("nan"), float("inf"), -3])


@settings(max_examples=120, deadline=None)
@given(spec=specs(max_dims=3, max_size=6), dtype=hs.sampled_from(["float32", "float64", "int32", "int64", "uint8"]),
       lo=_BOUNDS, hi=_BOUNDS, seed=hs.integers(0, 2**16), nan=hs.booleans())
def test_clamp_numbers_on_hard_layouts(spec, dtype, lo, hi, seed, nan) -> None:
    """clamp / clamp_min / clamp_max by numbers: PyTorch's result (dtype promotion of an integer
    tensor by a float bound, NaN bounds and inputs, signed zeros kept, min > max gives max) or
    its error class."""
    if spec.has_negative or (lo is None and hi is None):
        return
    data = valued_storage(spec, dtype, seed, nan=nan)
    t, _, s = build_valued(spec, data)
    if lo is not None and hi is not None:
        calls = [(lambda m, x: m.clamp(x, lo, hi))]
    elif lo is not None:
        calls = [(lambda m, x: m.clamp(x, min=lo)), (lambda m, x: m.clamp_min(x, lo))]
    else:
        calls = [(lambda m, x: m.clamp(x, max=hi)), (lambda m, x: m.clamp_max(x, hi))]
    for call in calls:
        try:
            want = call(torch, t)
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            with pytest.raises(type(e)):
                call(strided, s)
            continue
        _assert_same(call(strided, s), want)


@settings(max_examples=80, deadline=None)
@given(spec=specs(max_dims=3, max_size=6), dtype=hs.sampled_from(["float32", "float64"]),
       seed=hs.integers(0, 2**16), which=hs.sampled_from(["min", "max", "both"]), bound_perm=hs.booleans())
def test_clamp_tensor_bounds_on_hard_layouts(spec, dtype, seed, which, bound_perm) -> None:
    """clamp by tensor bounds (clamp_min / clamp_max: PyTorch's maximum / minimum), NaNs and signed
    zeros in input and bounds (their words are the loop's: vector lanes all-ones, scalar canonical),
    the bounds in the input's layout or a transposed one."""
    if spec.has_negative:
        return
    data = valued_storage(spec, dtype, seed, nan=True)
    data[::5] = 0.0
    data[1::7] = -0.0
    t, _, s = build_valued(spec, data)
    bounds = []
    for k in (1, 2):
        b = valued_storage(spec, dtype, seed + k, nan=True)
        b[::3] = -0.0
        tb, _, sb = build_valued(spec, b)
        if bound_perm and len(spec.shape) >= 2:
            tb, sb = tb.transpose(0, -1).contiguous().transpose(0, -1), sb.transpose(0, -1).contiguous().transpose(0, -1)
        bounds.append((tb, sb))
    (tl, sl), (th, sh) = bounds
    if which == "min":
        _assert_same(strided.clamp_min(s, sl), torch.clamp_min(t, tl))
        _assert_same(strided.clamp(s, min=sl), torch.clamp(t, min=tl))
    elif which == "max":
        _assert_same(strided.clamp_max(s, sh), torch.clamp_max(t, th))
        _assert_same(strided.clamp(s, max=sh), torch.clamp(t, max=th))
    else:
        _assert_same(strided.clamp(s, sl, sh), torch.clamp(t, tl, th))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("perm", [False, True])
def test_clamp_family_large_rows(dtype, perm, torch_threads_as_assumed) -> None:
    """The bench's clamp rows past the parallel grain, contiguous and transposed, inputs of both
    signs with NaNs and signed zeros: clamp by numbers, clamp_min / clamp_max by a tensor of the
    same layout, hardtanh, hardsigmoid, hardswish (fresh, out=, in place): PyTorch's words."""
    shape = (300, 257)
    def make(seed: int) -> np.ndarray:
        a = _words(shape[0] * shape[1], dtype, seed, nan=0.002).reshape(shape[::-1] if perm else shape)
        return a.T if perm else a
    x, b = make(21), make(22)
    sx, tx, sb, tb = strided.from_numpy(x), torch.from_numpy(x), strided.from_numpy(b), torch.from_numpy(b)
    _assert_same(strided.clamp(sx, min=-0.5, max=0.75), torch.clamp(tx, min=-0.5, max=0.75))
    _assert_same(strided.clamp(sx, min=0.75, max=-0.5), torch.clamp(tx, min=0.75, max=-0.5))
    _assert_same(strided.clamp_min(sx, sb), torch.clamp_min(tx, tb))
    _assert_same(strided.clamp_max(sx, sb), torch.clamp_max(tx, tb))
    _assert_same(strided.clamp_min(sx, 0.0), torch.clamp_min(tx, 0.0))
    _assert_same(strided.clamp_max(sx, -0.0), torch.clamp_max(tx, -0.0))
    _assert_same(F.hardtanh(sx), TF.hardtanh(tx))
    _assert_same(F.hardtanh(sx, -0.25, 2.0), TF.hardtanh(tx, -0.25, 2.0))
    _assert_same(F.hardsigmoid(sx), TF.hardsigmoid(tx))
    _assert_same(F.hardswish(sx), TF.hardswish(tx))
    so, to = strided.empty(shape, dtype=_S[np.dtype(dtype)]), torch.empty(shape, dtype=tx.dtype)
    strided.clamp_min(sx, sb, out=so)
    torch.clamp_min(tx, tb, out=to)
    _assert_same(so, to)
    si, ti = sx.clone(), tx.clone()
    si.clamp_(-1.0, 1.0)
    ti.clamp_(-1.0, 1.0)
    _assert_same(si, ti)
    si, ti = sx.clone(), tx.clone()
    F.hardsigmoid(si, inplace=True)
    TF.hardsigmoid(ti, inplace=True)
    _assert_same(si, ti)


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "int8"])
def test_clamp_integers_and_promotion(dtype) -> None:
    """Integer clamps keep the dtype with integer bounds, promote to float with a float bound;
    hardtanh of integers truncates its limits (PyTorch's toLong)."""
    x = np.arange(-6, 7, dtype=np.int64).astype(dtype).reshape(13, 1)
    s, t = strided.from_numpy(x), torch.from_numpy(x)
    for lo, hi in ((-2, 3), (1, 0), (0.5, 3), (None, 2), (-1, None)):
        _assert_same(strided.clamp(s, lo, hi), torch.clamp(t, lo, hi))
    if dtype != "uint8":
        _assert_same(F.hardtanh(s, -2.5, 2.7), TF.hardtanh(t, -2.5, 2.7))
