"""attack41: the AVX-512 paths that ran for the first time on an AVX-512 machine in session 41.

Differential tests against PyTorch (and NumPy where PyTorch has no such layout, e.g. negative steps)
of the loops session 40 added or left untested on AVX-512: hardsigmoid / hardswish's 16- and 8-lane
AVX-512F loops and their C tails (every length around 16 / 32 / 64, NaN, infinities, signed zeros, in
place, every layout), sinc's eight-lane glibc sine (zero, infinities, NaN, huge and tiny values, the
ends of glibc's ranges) and the copy kernel's transposing blocks with their line heads (contiguous(),
clone(), copy_() between layouts of every element size 1 / 2 / 4 / 8 / 16, shapes around the 8 / 16 /
32 / 64 block edges, backwards steps, odd offsets, views of views), the copy ledger's entries included.
The copies are also run in fresh processes under each block set (STRIDED_NATIVE_COPY_ISA=avx2 / sse)
and under STRIDED_NATIVE_ROWS_ISA=avx2 / base, every run checked against NumPy and the runs' digests
compared.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import fresh_runs
import strided
import strided.nn.functional as F

_SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# lengths around the 8 / 16 lane blocks and their multiples (the vector loop's tail is the C loop)
_EDGES = sorted({0, 1, 2, *[k + d for k in (8, 16, 32, 48, 64, 128, 256) for d in (-1, 0, 1)]})
_SPECIALS = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, -3.0, 3.0, -6.0, 6.0, 1e-45, -1e-45, 1e-38,
             3.4e38, -3.4e38, 1e30, -1e30, 0.5, -0.5, 2.9999998, -2.9999998]
_FLOATS = {"float32": (np.float32, torch.float32, strided.float32),
           "float64": (np.float64, torch.float64, strided.float64),
           "float16": (np.float32, torch.float16, strided.float16),
           "bfloat16": (np.float32, torch.bfloat16, strided.bfloat16)}
_U = {2: np.uint16, 4: np.uint32, 8: np.uint64}


@hs.composite
def _values(draw: hs.DrawFn, n: int) -> np.ndarray:
    """``n`` float64 values: specials, values near the activations' bounds and arbitrary floats."""
    pick = hs.one_of(hs.sampled_from(_SPECIALS), hs.floats(-8, 8, width=32),
                     hs.floats(allow_nan=True, allow_infinity=True, width=32))
    vals = draw(hs.lists(pick, min_size=min(n, 8), max_size=min(n, 8)))
    seed = draw(hs.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    x = (rng.normal(0, 4, n) * rng.choice([1.0, 1e-3, 1e3], n))
    at = rng.permutation(n)[:len(vals)]
    x[at] = vals
    return x


def _bits(t: torch.Tensor | strided.Tensor) -> np.ndarray:
    a = np.ascontiguousarray(t.float().numpy() if t.dtype in (torch.bfloat16, strided.bfloat16) else t.numpy())
    return a.view(_U[a.itemsize])


def _no_payloads(t: torch.Tensor | strided.Tensor) -> np.ndarray:
    a = np.ascontiguousarray(t.float().numpy() if t.dtype in (torch.bfloat16, strided.bfloat16) else t.numpy())
    a = np.where(np.isnan(a), np.nan, a).astype(a.dtype)
    return a.view(_U[a.itemsize])


def _pair_layouts(x: np.ndarray, dt: str, kind: str, bases: list | None = None):
    """The strided and torch tensors of one layout of the values ``x`` (1-D, float64); ``bases``
    gets the two whole tensors the views are of."""
    np_dt, t_dt, s_dt = _FLOATS[dt]
    a = x.astype(np_dt)
    s, t = strided.tensor(a).to(s_dt), torch.from_numpy(a.copy()).to(t_dt)
    if bases is not None:
        bases[:] = [s, t]
    n = a.size
    if kind == "contiguous":
        return s, t
    if kind == "offset":  # (an odd element offset: the vector loads off their lanes' alignment)
        return s[1:], t[1:]
    if kind == "step":
        return s[::3], t[::3]
    if kind == "transposed" and n >= 6:
        r = n // 3 * 3
        return s[:r].view(3, r // 3).t(), t[:r].view(3, r // 3).t()
    if kind == "expanded":
        return s[: min(n, 37)].expand(3, min(n, 37)), t[: min(n, 37)].expand(3, min(n, 37))
    if kind == "permuted" and n >= 8:
        r = n // 4 * 4
        return (s[:r].view(2, 2, r // 4).permute(2, 0, 1)[1:], t[:r].view(2, 2, r // 4).permute(2, 0, 1)[1:])
    return s, t


_HARD = [("hardsigmoid", F.hardsigmoid, TF.hardsigmoid), ("hardswish", F.hardswish, TF.hardswish)]
_LAYOUTS = ["contiguous", "offset", "step", "transposed", "expanded", "permuted"]


@_SETTINGS
@given(n=hs.one_of(hs.sampled_from(_EDGES), hs.integers(0, 1200)), data=hs.data(),
       dt=hs.sampled_from(list(_FLOATS)), kind=hs.sampled_from(_LAYOUTS), op=hs.sampled_from(_HARD))
def test_hard_activations_match_torch(n, data, dt, kind, op):
    """F.hardsigmoid / F.hardswish: values, shape, strides and dtype as PyTorch's; the bits too
    (NaN words included) for float32 / float64 of every layout."""
    name, fn, tfn = op
    s, t = _pair_layouts(data.draw(_values(n)), dt, kind)
    got, want = fn(s), tfn(t)
    assert tuple(got.shape) == tuple(want.shape) and got.stride() == want.stride(), (name, kind)
    assert got.dtype.name == str(want.dtype).split(".")[1]
    if dt in ("float32", "float64"):
        assert _bits(got).tolist() == _bits(want).tolist(), (name, dt, kind, n)
    else:
        assert _no_payloads(got).tolist() == _no_payloads(want).tolist(), (name, dt, kind, n)


@_SETTINGS
@given(n=hs.one_of(hs.sampled_from(_EDGES), hs.integers(0, 700)), data=hs.data(),
       dt=hs.sampled_from(list(_FLOATS)), kind=hs.sampled_from(_LAYOUTS[:4] + ["permuted"]), op=hs.sampled_from(_HARD))
def test_hard_activations_in_place_match_torch(n, data, dt, kind, op):
    """inplace=True: the same tensor back, its storage (and only the view's elements) written as
    PyTorch writes its own."""
    name, fn, tfn = op
    x = data.draw(_values(n))
    bases: list = []
    s, t = _pair_layouts(x, dt, kind, bases)
    base_s, base_t = bases
    r = fn(s, inplace=True)
    tfn(t, inplace=True)
    assert r is s
    assert _no_payloads(s).tolist() == _no_payloads(t).tolist(), (name, dt, kind, n)
    assert _no_payloads(base_s).tolist() == _no_payloads(base_t).tolist(), (name, dt, kind, n)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name,fn,tfn", _HARD, ids=[h[0] for h in _HARD])
@pytest.mark.parametrize("n", [32767, 32768, 32769, 65536 + 17, 3 * 32768 - 1])
def test_hard_activations_large_match_torch(n, name, fn, tfn, dt, torch_threads_as_assumed):
    """Past the parallel grain, with specials spread over every chunk and vector block position."""
    rng = np.random.default_rng(n)
    x = rng.normal(0, 4, n)
    at = rng.integers(0, n, 400)
    x[at] = rng.choice(np.array(_SPECIALS), at.size)
    for kind in ("contiguous", "offset", "transposed"):
        s, t = _pair_layouts(x, dt, kind)
        got, want = fn(s), tfn(t)
        assert got.stride() == want.stride()
        assert _bits(got).tolist() == _bits(want).tolist(), (name, dt, n, kind)


def test_hard_activations_refuse_integers_as_torch():
    for name, fn, tfn in _HARD:
        with pytest.raises(NotImplementedError) as want:
            tfn(torch.arange(5))
        with pytest.raises(NotImplementedError) as got:
            fn(strided.arange(5))
        assert str(got.value).splitlines()[0] == str(want.value).splitlines()[0], name


# sinc: zero, signed zeros, infinities, NaN, huge (glibc's own reduction past |pi x| = 120) and tiny
# values (pi x subnormal), the ends of glibc's ranges (|pi x| around 2^-12, 0.75, 120)
_SINC_SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e30, 3.4e38, 1e-45, -1e-45, 1e-40, 1e-38,
                  120 / np.pi, -120 / np.pi, 38.197186, 38.19719, 0.75 / np.pi, 2.0**-12 / np.pi, 2.0**-14,
                  0.5, 1.0, -1.0, 2.0, 1e5, 8388608.0, 16777217.0]


@_SETTINGS
@given(n=hs.one_of(hs.sampled_from(_EDGES), hs.integers(0, 600)), data=hs.data(),
       dt=hs.sampled_from(list(_FLOATS)), kind=hs.sampled_from(_LAYOUTS))
def test_sinc_matches_torch(n, data, dt, kind):
    x = data.draw(_values(n))
    rng = np.random.default_rng(n)
    at = rng.permutation(n)[: min(n, 10)]
    x[at] = rng.choice(np.array(_SINC_SPECIALS), at.size)
    s, t = _pair_layouts(x, dt, kind)
    got, want = strided.sinc(s), torch.sinc(t)
    assert tuple(got.shape) == tuple(want.shape) and got.stride() == want.stride()
    assert _no_payloads(got).tolist() == _no_payloads(want).tolist(), (dt, kind, n)


def test_sinc_specials_at_every_lane():
    """Each special value at each of the 8 lanes and in the tail, float32 and float64."""
    for dt in ("float32", "float64"):
        for v in _SINC_SPECIALS:
            for n in (8, 9, 16, 17, 23):
                for lane in range(n):
                    x = np.linspace(-3, 3, n)
                    x[lane] = v
                    s, t = _pair_layouts(x, dt, "contiguous")
                    assert _no_payloads(strided.sinc(s)).tolist() == _no_payloads(torch.sinc(t)).tolist(), (dt, v, n)


# copies: every element size, layouts around the blocks
_COPY_DTYPES = {"int8": (np.int8, torch.int8), "float16": (np.float16, torch.float16),
                "int16": (np.int16, torch.int16), "float32": (np.float32, torch.float32),
                "int32": (np.int32, torch.int32), "float64": (np.float64, torch.float64),
                "int64": (np.int64, torch.int64), "complex64": (np.complex64, torch.complex64),
                "complex128": (np.complex128, torch.complex128)}
_BLOCK_SIZES = sorted({1, 2, 3, *[k + d for k in (8, 16, 32, 64) for d in (-1, 0, 1)], 96, 130})


def _raw(rng: np.random.Generator, shape: tuple[int, ...], dt: str) -> np.ndarray:
    """Random bytes viewed as ``dt`` (NaN payloads and all)."""
    size = int(np.prod(shape)) * np.dtype(dt).itemsize
    return rng.integers(0, 256, size, dtype=np.uint8).view(dt).reshape(shape)


@hs.composite
def _copy_case(draw: hs.DrawFn):
    """A base (m + pr, n + pc) and a view of it: a sub-block at an offset, stepped, backwards along
    either dimension, then transposed or not, and a further view of that view."""
    m, n = draw(hs.sampled_from(_BLOCK_SIZES)), draw(hs.sampled_from(_BLOCK_SIZES))
    pr, pc = draw(hs.integers(0, 3)), draw(hs.integers(0, 3))
    r0, c0 = draw(hs.integers(0, pr)), draw(hs.integers(0, pc))
    rs, cs = draw(hs.sampled_from([1, 1, 2, -1])), draw(hs.sampled_from([1, 1, 1, 2, -1]))
    tr = draw(hs.booleans())
    inner = draw(hs.sampled_from(["none", "slice", "narrow", "t", "unsqueeze"]))
    return m, n, pr, pc, r0, c0, rs, cs, tr, inner


def _apply(x, case, backwards_ok: bool):
    m, n, pr, pc, r0, c0, rs, cs, tr, inner = case
    rows = slice(r0, r0 + m, rs) if rs > 0 else slice(r0 + m - 1, (r0 - 1) if r0 else None, -1)
    cols = slice(c0, c0 + n, cs) if cs > 0 else slice(c0 + n - 1, (c0 - 1) if c0 else None, -1)
    if not backwards_ok and (rs < 0 or cs < 0):
        return None
    v = x[rows, cols]
    if tr:
        v = v.T if isinstance(v, np.ndarray) else v.t()
    if inner == "slice":
        v = v[1:, :-1] if v.shape[0] > 1 and v.shape[1] > 1 else v
    elif inner == "narrow":
        v = v[:, 1:] if v.shape[1] > 1 else v
    elif inner == "t":
        v = v.T if isinstance(v, np.ndarray) else v.t()
    elif inner == "unsqueeze":
        v = v[:, None, :]
    return v


@_SETTINGS
@given(case=_copy_case(), dt=hs.sampled_from(list(_COPY_DTYPES)), seed=hs.integers(0, 2**31))
def test_copies_between_layouts(case, dt, seed):
    """contiguous(), clone(), copy_() into a fresh tensor and into a transposed destination view,
    of a view of random bytes: NumPy's bytes, PyTorch's strides (where PyTorch has the view), and the
    ledger's entries: one copy of the view's bytes for contiguous() of a non-contiguous view and for
    clone(), none for copy_ into existing memory and for contiguous() of a contiguous one."""
    m, n, pr, pc = case[:4]
    np_dt, t_dt = _COPY_DTYPES[dt]
    base = _raw(np.random.default_rng(seed), (m + pr, n + pc), np_dt)
    want_v = _apply(base, case, True)
    want = np.ascontiguousarray(want_v)
    s = _apply(strided.tensor(base), case, True)
    assert tuple(s.shape) == want_v.shape
    with strided.record_copies() as copies:
        c = s.contiguous()
    assert c.is_contiguous() and c.numpy().tobytes() == want.tobytes()
    assert [e.nbytes for e in copies] == ([] if s.is_contiguous() else [want.nbytes])
    with strided.record_copies() as copies:
        k = s.clone()
    assert np.ascontiguousarray(k.numpy()).tobytes() == want.tobytes()
    assert [e.nbytes for e in copies] == [want.nbytes]
    dest = strided.empty(*want.shape, dtype=s.dtype)
    with strided.record_copies() as copies:
        dest.copy_(s)
    assert dest.numpy().tobytes() == want.tobytes() and copies == []
    if s.dim() == 2:  # a transposed destination: the plane the other way round
        d2 = strided.empty(want.shape[1], want.shape[0], dtype=s.dtype).t()
        d2.copy_(s)
        assert np.ascontiguousarray(d2.numpy()).tobytes() == want.tobytes()
    t = _apply(torch.from_numpy(base.copy()), case, False)
    if t is not None:
        for g, w in ((c, t.contiguous()), (k, t.clone())):
            assert tuple(g.stride()) == tuple(w.stride()), (g.stride(), w.stride())
            assert np.ascontiguousarray(g.numpy()).tobytes() == np.ascontiguousarray(w.numpy()).tobytes()


@_SETTINGS
@given(dims=hs.lists(hs.sampled_from([1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33]), min_size=3, max_size=3),
       perm=hs.permutations([0, 1, 2]), dt=hs.sampled_from(list(_COPY_DTYPES)), seed=hs.integers(0, 2**31),
       step=hs.sampled_from([1, 2]))
def test_permuted_3d_copies_match_torch(dims, perm, dt, seed, step):
    np_dt, _ = _COPY_DTYPES[dt]
    base = _raw(np.random.default_rng(seed), tuple(d * step + 1 for d in dims), np_dt)
    sl = tuple(slice(1, None, step) for _ in dims)
    a = base[sl].transpose(perm)
    s = strided.tensor(base)[sl].permute(*perm)
    t = torch.from_numpy(base.copy())[sl].permute(*perm)
    for g, w in ((s.contiguous(), t.contiguous()), (s.clone(), t.clone()),
                 (s.contiguous(memory_format=strided.channels_last) if s.dim() == 4 else s.reshape(-1),
                  t.contiguous(memory_format=torch.channels_last) if t.dim() == 4 else t.reshape(-1))):
        assert tuple(g.stride()) == tuple(w.stride())
        assert np.ascontiguousarray(g.numpy()).tobytes() == np.ascontiguousarray(w.numpy()).tobytes()
    assert s.contiguous().numpy().tobytes() == np.ascontiguousarray(a).tobytes()


_ISA_SCRIPT = (
    "import hashlib, numpy as np, strided\n"
    "import strided.nn.functional as F\n"
    "rng = np.random.default_rng(41)\n"
    "h = hashlib.sha256()\n"
    "sizes = (1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 129)\n"
    "for dt in ('i1', 'f2', 'f4', 'f8', 'c16'):\n"
    "    for m in sizes:\n"
    "        for n in sizes:\n"
    "            base = rng.integers(0, 256, (m + 3) * (n + 3) * np.dtype(dt).itemsize, dtype=np.uint8).view(dt)\n"
    "            base = base.reshape(m + 3, n + 3)\n"
    "            s = strided.tensor(base)\n"
    "            for v, a in ((s[1:m + 1, 2:n + 2].t(), base[1:m + 1, 2:n + 2].T),\n"
    "                         (s[m:0:-1, 1:n + 1].t(), base[m:0:-1, 1:n + 1].T),\n"
    "                         (s[1:m + 1, n + 1:1:-1][:, ::1].t()[1:], base[1:m + 1, n + 1:1:-1].T[1:]),\n"
    "                         (s[::2, 1:].t(), base[::2, 1:].T)):\n"
    "                with strided.record_copies() as cs:\n"
    "                    c = v.contiguous()\n"
    "                    k = v.clone()\n"
    "                want = np.ascontiguousarray(a).tobytes()\n"
    "                assert c.numpy().tobytes() == want, (dt, m, n)\n"
    "                assert np.ascontiguousarray(k.numpy()).tobytes() == want, (dt, m, n)\n"
    "                d = strided.empty(*a.shape, dtype=v.dtype)\n"
    "                d.copy_(v)\n"
    "                assert d.numpy().tobytes() == want, (dt, m, n)\n"
    "                h.update(want + repr([(e.nbytes, e.reason) for e in cs]).encode() + repr(k.stride()).encode())\n"
    "for dt in (strided.float32, strided.float64):\n"
    "    for n in (15, 16, 17, 31, 32, 33, 63, 64, 65, 1000, 40000):\n"
    "        x = rng.normal(0, 4, n)\n"
    "        x[rng.integers(0, n, 5)] = [np.nan, np.inf, -np.inf, -0.0, 0.0]\n"
    "        t = strided.tensor(x).to(dt)\n"
    "        for y in (F.hardsigmoid(t), F.hardswish(t), F.hardsigmoid(t[1:]), strided.sinc(t), strided.sinc(t[1:])):\n"
    "            h.update(np.ascontiguousarray(y.numpy()).tobytes())\n"
    "print(h.hexdigest())\n")


def test_copies_and_activations_under_each_isa():
    """The same layouts under the blocks picked at import (AVX-512 on an AVX-512 machine), the AVX2
    and SSE copy blocks, the rows kernel's AVX2 / base loops and the special kernel's AVX / C loops of
    hardsigmoid / hardswish and AVX2 / C sine lanes of sinc: NumPy's bytes in each (asserted in the
    script) and the same digest of results, strides and ledger entries in every run."""
    runs = fresh_runs.outputs(_ISA_SCRIPT, {}, {"STRIDED_NATIVE_COPY_ISA": "avx2"}, {"STRIDED_NATIVE_COPY_ISA": "sse"},
                              {"STRIDED_NATIVE_ROWS_ISA": "avx2"}, {"STRIDED_NATIVE_ROWS_ISA": "base"},
                              {"STRIDED_NATIVE_SPECIAL_ISA": "avx2"}, {"STRIDED_NATIVE_SPECIAL_ISA": "base"})
    assert len(runs[0]) == 65 and all(r == runs[0] for r in runs), runs


@hs.composite
def _pair_case(draw: hs.DrawFn):
    """Two transposed (m, n) inputs of one 4- or 8-byte dtype, each a view of its own base: offset by
    rows and columns, columns stepped or backwards (rows of any distance, multiples of 64 bytes
    included: the line heads)."""
    m, n = draw(hs.sampled_from(_BLOCK_SIZES)), draw(hs.sampled_from(_BLOCK_SIZES))
    views = [(draw(hs.integers(0, 2)), draw(hs.integers(0, 2)), draw(hs.sampled_from([1, 1, 2, -1])),
              draw(hs.sampled_from([0, 0, 16 - 1, 3]))) for _ in range(2)]
    return m, n, views


def _pair_sources(rng, dt, m, n, views):
    """The two inputs as NumPy arrays, strided tensors and (where no step is backwards) torch tensors,
    each a view of its own base."""
    out = []
    for r0, c0, step, pad in views:
        base = _raw(rng, (n * abs(step) + r0 + 1, m + c0 + pad), dt)
        rows = slice(r0, r0 + n * step, step) if step > 0 else slice(r0 + n - 1, (r0 - 1) if r0 else None, -1)
        t = torch.from_numpy(base.copy())[rows, c0:c0 + m].t() if step > 0 else None
        out.append((base[rows, c0:c0 + m].T, strided.tensor(base)[rows, c0:c0 + m].t(), t))
    return out


@_SETTINGS
@given(case=_pair_case(), dt=hs.sampled_from(["f4", "i4", "f8", "c8", "i8"]), seed=hs.integers(0, 2**31))
def test_pair_join_of_any_layouts(case, dt, seed):
    """The compiled pair join (AVX-512 blocks here, their line heads and edges) at every size around the
    blocks, min size none (the kernel called directly): np.stack's bytes and nothing around the result;
    and the public dstack / stack(dim=-1): NumPy's bytes, PyTorch's strides where PyTorch has the layout."""
    from strided.kernels import native
    m, n, views = case
    (a, sa, ta), (b, sb, tb) = _pair_sources(np.random.default_rng(seed), dt, m, n, views)
    want = np.stack([a, b], -1)
    buf = np.zeros(2 * m * n + 8, dt)
    dest = buf[3:3 + 2 * m * n].reshape(m, n, 2)
    if native.interleave_join(dest, [a, b]):
        assert dest.tobytes() == want.tobytes(), (m, n, views)
        assert not buf[:3].view(np.uint8).any() and not buf[3 + 2 * m * n:].view(np.uint8).any()
    sd, ss = strided.dstack([sa, sb]), strided.stack([sa, sb], -1)
    assert sd.numpy().tobytes() == np.dstack([a, b]).tobytes()
    assert ss.numpy().tobytes() == want.tobytes()
    if ta is not None and tb is not None:
        assert sd.stride() == torch.dstack([ta, tb]).stride() and ss.stride() == torch.stack([ta, tb], -1).stride()


_PAIR_ISA_SCRIPT = (
    "import hashlib, numpy as np\n"
    "from strided.kernels import native\n"
    "rng = np.random.default_rng(41)\n"
    "h = hashlib.sha256()\n"
    "sizes = (1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65, 130)\n"
    "for dt in ('f4', 'f8'):\n"
    "    for m in sizes:\n"
    "        for n in sizes:\n"
    "            for pad, step in ((0, 1), (16, 1), (3, -1), (1, 2)):\n"
    "                base = rng.integers(0, 256, 2 * (2 * n + 2) * (m + pad + 1) * np.dtype(dt).itemsize,\n"
    "                                    dtype=np.uint8).view(dt).reshape(2 * (2 * n + 2), m + pad + 1)\n"
    "                a = base[1:2 * n + 1:step][:n, 1:m + 1].T if step > 0 else base[n:0:-1, :m].T\n"
    "                b = base[2 * n + 2::step][:n, pad:pad + m].T\n"
    "                dest = np.empty((m, n, 2), dt)\n"
    "                done = native.interleave_join(dest, [a, b])\n"
    "                if done:\n"
    "                    assert dest.tobytes() == np.stack([a, b], -1).tobytes(), (dt, m, n, pad, step)\n"
    "                h.update(bytes([done]))\n"
    "print(h.hexdigest())\n")


def test_pair_join_under_each_isa():
    """The pair join at every size around the blocks, rows 64 bytes apart or not, backwards, stepped:
    np.stack's bytes (asserted in the script) under the AVX-512 blocks and the AVX2 ones, and the same
    calls taken under both."""
    runs = fresh_runs.outputs(_PAIR_ISA_SCRIPT, {}, {"STRIDED_NATIVE_COPY_ISA": "avx2"})
    assert runs[0] == runs[1] and len(runs[0].strip()) == 64
