"""Session 42, large rows slower than PyTorch (issue 23): the float32 fmod / remainder /
floor_divide lanes (``_specialkernel.c``'s ``fmod_family_avx512``: sixteen lanes of the C loops'
fast form where the CPU has AVX-512F).

Differential against PyTorch (bit for bit; a NaN against a NaN) on the layouts the kernels meet:
contiguous, transposed, sliced, stepped, expanded, zero-size and 0-d, with values that reach every
select of the fast form (signs, zero results, quotients near 2^23 and 2^27, the 0.5 test) and the
elements the C library redoes (zeros, subnormals, infinities, NaNs, exponents far apart). The ISA
test runs the AVX-512 lanes and the C loops (``STRIDED_NATIVE_SPECIAL_ISA=base``) in fresh
processes: NumPy's bits in each (asserted in the script) and one digest for both.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import fresh_runs
import strided

_OPS = ("floor_divide", "remainder", "fmod")

# values that reach the fast form's selects and the C library's elements
_SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 3.0, -3.0, 7.5, 2.0**23, -(2.0**23) - 2, 2.0**26 + 8,
                     3.0e38, -3.0e38, 1e-40, -1e-40, 1.2e-38, np.inf, -np.inf, np.nan, 1e-30, 1e30],
                    np.float32)


def _values(rng: np.random.Generator, n: int, kind: int) -> np.ndarray:
    """``n`` float32 values: 0 normal of several scales, 1 raw bit patterns, 2 exponents near each
    other (mostly the fast form), 3 small integers (exact quotients, zero remainders)."""
    if kind == 0:
        x = (rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 3)).astype(np.float32)
    elif kind == 1:
        x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    elif kind == 2:
        bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
        x = ((bits & np.uint32(0x87FFFFFF)) | np.uint32(0x38000000)).view(np.float32)
    else:
        x = rng.integers(-9, 10, n).astype(np.float32)
    if n:
        x[rng.integers(0, n, min(n, 6))] = rng.choice(_SPECIAL, min(n, 6))
    return x


@hs.composite
def _case(draw: hs.DrawFn):
    """An op, the two operands' base shapes, and how each is viewed."""
    op = draw(hs.sampled_from(_OPS))
    shape = draw(hs.sampled_from([(), (0,), (3, 0), (1,), (17,), (33, 5), (64, 40), (130, 70), (5, 300)]))
    view = draw(hs.sampled_from(["plain", "t", "slice", "step", "expand", "t_step"]))
    other = draw(hs.sampled_from(["same", "t", "scalar_tensor", "expand"]))
    kinds = (draw(hs.integers(0, 3)), draw(hs.integers(0, 3)))
    return op, shape, view, other, kinds, draw(hs.integers(0, 2**32 - 1))


def _view(base: np.ndarray, how: str) -> tuple[strided.Tensor, torch.Tensor]:
    s, t = strided.tensor(base), torch.tensor(base)
    if base.ndim < 2 or how == "plain":
        return s, t
    if how == "t":
        return s.t(), t.t()
    if how == "slice":
        return s[1:, 1:], t[1:, 1:]
    if how == "step":
        return s[::2, 1::3], t[::2, 1::3]
    if how == "expand":
        return s[:1].expand(base.shape[0], base.shape[1]), t[:1].expand(base.shape[0], base.shape[1])
    return s.t()[1:, ::2], t.t()[1:, ::2]  # ("t_step": a transposed, stepped view)


def _overflowed(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Where PyTorch's fmod and remainder may be NaN and strided's (NumPy's: C's exact fmodf) is
    not: a finite quotient ``a / b`` that overflows float32 (PyTorch's vector loops compute
    ``a - trunc(a / b) * b`` and ``a - b * floor(a / b)``; its scalar tail C's fmod). A difference
    older than these lanes (the C loops give the same), left out of the comparison with PyTorch;
    the ISA test compares those elements between the lanes, the C loops and NumPy."""
    if op == "floor_divide":
        return np.zeros(np.broadcast(a, b).shape, bool)
    with np.errstate(all="ignore"):
        return np.isinf(np.true_divide(a, b)) & np.isfinite(a) & np.isfinite(b) & (b != 0)


def _same_bits(got: np.ndarray, want: np.ndarray, skip: np.ndarray | None = None) -> bool:
    got, want = np.ascontiguousarray(got), np.ascontiguousarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return False
    if skip is not None:
        got, want = got[~skip], want[~skip]
    nan = np.isnan(want)
    return bool(np.isnan(got[nan]).all() and np.array_equal(got.view(np.uint32)[~nan], want.view(np.uint32)[~nan]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_case())
def test_float32_fmod_family_matches_torch(case):
    """floor_divide, remainder and fmod of float32 tensors: PyTorch's values, shape and strides
    (the lanes compute the same operations as the C loops, so any select out of order shows as a
    different bit)."""
    op, shape, view, other, kinds, seed = case
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape)) if shape else 1
    a = _values(rng, n, kinds[0]).reshape(shape)
    sa, ta = _view(a, view)
    if other == "scalar_tensor":
        b = _values(rng, 1, kinds[1]).reshape(())
        sb, tb = strided.tensor(b), torch.tensor(b)
    else:
        bshape = tuple(reversed(shape)) if other == "t" and len(shape) == 2 else shape
        b = _values(rng, n, kinds[1]).reshape(bshape)
        sb, tb = strided.tensor(b), torch.tensor(b)
        if other == "t" and len(shape) == 2:
            sb, tb = sb.t(), tb.t()
        if sb.shape != sa.shape:  # (a view changed the first operand's shape: the second follows it)
            b = _values(rng, int(np.prod(sa.shape)), kinds[1]).reshape(tuple(sa.shape))
            sb, tb = strided.tensor(b), torch.tensor(b)
        if other == "expand" and len(shape) == 2 and sb.shape[0]:
            sb, tb = sb[:1].expand(*sb.shape), tb[:1].expand(*tb.shape)
    got = getattr(strided, op)(sa, sb)
    want = getattr(torch, op)(ta, tb)
    assert tuple(got.shape) == tuple(want.shape)
    assert got.stride() == want.stride(), (op, view, other, got.stride(), want.stride())
    skip = _overflowed(op, np.asarray(sa.numpy()), np.asarray(sb.numpy()))
    assert _same_bits(got.numpy(), want.numpy(), skip), (op, view, other, kinds)


@pytest.mark.parametrize("op", _OPS)
def test_float32_fmod_family_every_lane_and_tail(op):
    """Every length from 0 to 80 (whole sixteen-lane steps, and the tails the C loops finish) and
    one past a 512-element block: PyTorch's bits at each position, a special value at each lane."""
    rng = np.random.default_rng(7)
    for n in [*range(81), 511, 512, 513, 1040]:
        for kind in range(4):
            a, b = _values(rng, n, kind), _values(rng, n, (kind + 1) % 4)
            if n:
                a[rng.integers(0, n)] = rng.choice(_SPECIAL)
            got = getattr(strided, op)(strided.tensor(a), strided.tensor(b)).numpy()
            want = getattr(torch, op)(torch.from_numpy(a), torch.from_numpy(b)).numpy()
            assert _same_bits(got, want, _overflowed(op, a, b)), (op, n, kind)


_ISA_SCRIPT = (
    "import hashlib\n"
    "import numpy as np\n"
    "import strided\n"
    "rng = np.random.default_rng(3)\n"
    "h = hashlib.sha256()\n"
    "special = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -3.0, 2.0**23, 2.0**26 + 8, 3e38, 1e-40, 1.2e-38,\n"
    "                    np.inf, -np.inf, np.nan], np.float32)\n"
    "for n in [*range(0, 70), 512, 1000, 5000, 70000]:\n"
    "    for kind in range(3):\n"
    "        if kind == 0:\n"
    "            a = rng.standard_normal(n).astype(np.float32) * np.float32(50)\n"
    "            b = rng.standard_normal(n).astype(np.float32)\n"
    "        else:\n"
    "            a, b = rng.integers(0, 2**32, (2, n), dtype=np.uint64).astype(np.uint32).view(np.float32)\n"
    "            if kind == 2:\n"
    "                a = ((a.view(np.uint32) & np.uint32(0x87FFFFFF)) | np.uint32(0x38000000)).view(np.float32)\n"
    "                b = ((b.view(np.uint32) & np.uint32(0x87FFFFFF)) | np.uint32(0x38000000)).view(np.float32)\n"
    "        if n:\n"
    "            a[rng.integers(0, n, min(n, 4))] = rng.choice(special, min(n, 4))\n"
    "            b[rng.integers(0, n, min(n, 4))] = rng.choice(special, min(n, 4))\n"
    "        sa, sb = strided.tensor(a), strided.tensor(b)\n"
    "        with np.errstate(all='ignore'):\n"
    "            for op, ref in (('floor_divide', np.floor_divide), ('fmod', np.fmod), ('remainder', None)):\n"
    "                r = getattr(strided, op)(sa, sb).numpy()\n"
    "                if ref is not None:\n"
    "                    want = ref(a, b)\n"
    "                    nan = np.isnan(want)\n"
    "                    assert np.isnan(r[nan]).all(), (op, n, kind)\n"
    "                    assert np.array_equal(r.view(np.uint32)[~nan], want.view(np.uint32)[~nan]), (op, n, kind)\n"
    "                h.update(r.tobytes())\n"
    "print(h.hexdigest())\n")


def test_float32_fmod_family_under_each_isa():
    """The AVX-512 lanes (picked at import on an AVX-512 machine) and the C loops
    (STRIDED_NATIVE_SPECIAL_ISA=base; avx2 has no hand-written copy here and runs the C loops too):
    NumPy's bits for floor_divide and fmod (asserted in the script), and one digest of all three
    ops' results in every run."""
    runs = fresh_runs.outputs(_ISA_SCRIPT, {}, {"STRIDED_NATIVE_SPECIAL_ISA": "avx2"},
                              {"STRIDED_NATIVE_SPECIAL_ISA": "base"})
    assert runs[0].strip() and all(r == runs[0] for r in runs), runs


# ---------------------------------------------------------------- mode: rows of distinct keys

_MODE_DTYPES = {"float32": (np.float32, strided.float32, torch.float32),
                "float64": (np.float64, strided.float64, torch.float64),
                "int64": (np.int64, strided.int64, torch.int64),
                "int32": (np.int32, strided.int32, torch.int32),
                "float16": (np.float16, strided.float16, torch.float16)}


@hs.composite
def _mode_case(draw: hs.DrawFn):
    """A mode call of at least 16384 elements (the distinct rows' search) or just below, rows of
    17 to 2048, and what goes into the rows: all distinct, or ties / NaN / a -0.0 beside a 0.0 in
    some rows (the first one too, or not), or a tie in every row."""
    dtype = draw(hs.sampled_from(sorted(_MODE_DTYPES)))
    n = draw(hs.sampled_from([17, 64, 1000, 2048]))
    m = draw(hs.sampled_from([1, 8, 16384 // n, 16384 // n + 1, 40]))
    spoil = draw(hs.lists(hs.sampled_from(["tie", "nan", "zeros", "tie_first", "tie_all"]), max_size=3))
    layout = draw(hs.sampled_from(["rows", "t", "dim0", "keepdim", "step"]))
    return dtype, n, max(m, 1), spoil, layout, draw(hs.integers(0, 2**32 - 1))


def _mode_rows_data(rng, dtype: str, m: int, n: int, spoil: list[str]) -> np.ndarray:
    npd = _MODE_DTYPES[dtype][0]
    if np.dtype(npd).kind == "f":
        # distinct floats: a shuffled grid of well-separated values per row (float16 too)
        x = np.stack([rng.permutation(np.linspace(-2.0, 2.0, n) + 1e-3) for _ in range(m)]).astype(npd)
    else:
        x = np.stack([rng.permutation(n) * 3 - n for _ in range(m)]).astype(npd)
    if "tie_all" in spoil:  # (a tie in every row: most of the sampled rows, nothing is searched)
        x[:, 1] = x[:, 0]
    for s in spoil:
        r = 0 if s == "tie_first" else int(rng.integers(0, m))
        i, j = rng.choice(n, 2, replace=False)
        if s in ("tie", "tie_first"):
            x[r, i] = x[r, j]
        elif s == "nan" and np.dtype(npd).kind == "f":
            x[r, i] = np.nan
        elif s == "zeros" and np.dtype(npd).kind == "f":
            x[r, i], x[r, j] = -0.0, 0.0
    return x


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(_mode_case())
def test_mode_rows_of_distinct_keys_match_torch(torch_threads_as_assumed, case):
    """mode's values and indices (and their shapes and strides) are PyTorch's where the rows are
    found distinct by NumPy's sort (the smallest value at its only position) and where a row has
    a tie, a NaN, or -0.0 beside 0.0 (PyTorch's kernel's pair sort: which of equal elements it
    names), the first row included, or every row (then no row is searched)."""
    dtype, n, m, spoil, layout, seed = case
    rng = np.random.default_rng(seed)
    x = _mode_rows_data(rng, dtype, m, n, spoil)
    _, sd, td = _MODE_DTYPES[dtype]
    s, t = strided.tensor(x, dtype=sd), torch.tensor(x, dtype=td)
    dim, keepdim = -1, False
    if layout == "t":
        s, t = s.t(), t.t()
        dim = 0
    elif layout == "dim0":
        s, t = strided.tensor(np.ascontiguousarray(x.T), dtype=sd), torch.tensor(np.ascontiguousarray(x.T), dtype=td)
        dim = 0
    elif layout == "keepdim":
        keepdim = True
    elif layout == "step":
        s, t = s[:, ::2], t[:, ::2]
    got = strided.mode(s, dim, keepdim)
    want = torch.mode(t, dim, keepdim)
    assert tuple(got.values.shape) == tuple(want.values.shape)
    assert got.values.stride() == want.values.stride() and got.indices.stride() == want.indices.stride()
    gv = got.values.to(strided.float64).numpy() if dtype == "float16" else got.values.numpy()
    wv = want.values.to(torch.float64).numpy() if dtype == "float16" else want.values.numpy()
    assert np.array_equal(np.asarray(gv).view(np.uint8), np.asarray(wv).view(np.uint8)), (dtype, n, m, spoil, layout)
    assert np.array_equal(got.indices.numpy(), want.indices.numpy()), (dtype, n, m, spoil, layout)
