"""copy40: the compiled copy kernel's AVX2 blocks (issue 23's transposing copies on an AVX2 CPU).

Four- and eight-byte transposes go, on a CPU with AVX2 and not AVX-512F, by 8 x 8 / 4 x 4 register
blocks in 64-byte squares (``plane4_y`` / ``plane8_y`` in kernels/_copykernel.c), the SSE plane
taking the line heads and the edges past the squares. Every copy must leave the bytes NumPy's
own copy leaves: checked here on layouts around the squares and tiles (odd sizes, one short of
and one past a square, power-of-two row strides), offset, stepped and backwards views, random
bytes (NaN payloads and all), every element size; in fresh processes under each block set
(``STRIDED_NATIVE_COPY_ISA``: the default, ``sse``, ``avx2``, so that an AVX-512 machine also runs
the AVX2 blocks); and the copy ops against PyTorch (values, dtypes, strides).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import fresh_runs
import strided
from strided.kernels import blocked, native

needs_kernel = pytest.mark.skipif(native.kernel() is None, reason="the compiled copy kernel is not built")

DTYPES = ["i1", "f2", "f4", "i4", "f8", "i8", "c8", "c16"]
# (rows, columns) of the source: around the 16 x 16 / 8 x 8 squares, the 1024 / 512-element tiles
# and the four-squares-wide tiles (a at least four times b)
SHAPES = [(16, 16), (15, 17), (17, 15), (31, 33), (32, 64), (8, 9), (64, 1024), (1024, 64), (1030, 70),
          (70, 1030), (300, 257), (128, 128), (129, 127), (16, 2049), (2049, 16), (1, 40), (40, 1)]


def _raw(rng: np.random.Generator, shape: tuple[int, ...], dt: str) -> np.ndarray:
    """Random bytes viewed as ``dt`` (NaN payloads, signalling NaNs and all)."""
    size = int(np.prod(shape)) * np.dtype(dt).itemsize
    return rng.integers(0, 256, size, dtype=np.uint8).view(dt).reshape(shape)


def _sources(base: np.ndarray, m: int, n: int) -> list[np.ndarray]:
    """Transposed (n, m) views of ``base`` ((m + 1, 2n + 1) or more): a row in, an element in
    (rows not on lines), stepped along the rows, backwards along the columns and the rows."""
    return [base[1:m + 1, :n].T, base[:m, 1:n + 1].T, base[1:m + 1, ::2][:, :n].T, base[:m, :n][::-1].T,
            base[:m, n - 1::-1][:, :n].T]


@needs_kernel
@pytest.mark.parametrize("dt", DTYPES)
def test_transposes_leave_numpy_bytes(dt: str) -> None:
    """copy_into of every transposed view (min_bytes=0: the kernel takes them all) writes the
    bytes np.ascontiguousarray writes, and nothing around the destination view."""
    rng = np.random.default_rng(40)
    for m, n in SHAPES:
        base = _raw(rng, (m + 1, 2 * n + 1), dt)
        for src in _sources(base, m, n):
            want = np.ascontiguousarray(src)
            dest = np.empty(src.shape, dt)
            blocked.copy_into(dest, src, min_bytes=0)
            assert dest.tobytes() == want.tobytes(), (dt, m, n, src.strides)
            # a destination view inside a larger buffer: rows padded by one element, offset by one
            buf = np.zeros((src.shape[0] + 1, src.shape[1] + 2), dt)
            view = buf[1:, 1:-1]
            blocked.copy_into(view, src, min_bytes=0)
            assert view.tobytes() == want.tobytes(), (dt, m, n, src.strides)
            rest = buf.copy()
            rest[1:, 1:-1] = 0
            assert not rest.view(np.uint8).any(), (dt, m, n)


@needs_kernel
@pytest.mark.parametrize("dt", ["f4", "f8"])
@pytest.mark.parametrize("m, n", [(1024, 1024), (512, 2048), (2048, 512), (1000, 1000), (1040, 1008)])
def test_large_power_of_two_transposes(dt: str, m: int, n: int) -> None:
    """The sizes the blocks were tuned on (rows 4 KB and 8 KB apart: one L1 set per column),
    from a page-aligned-plus-16 buffer (NumPy's large ones) and from a line-aligned one."""
    rng = np.random.default_rng(m + n)
    a = _raw(rng, (m, n), dt)
    for src in (a.T, a[:, ::-1].T, a[::-1].T):
        dest = np.empty(src.shape, dt)
        blocked.copy_into(dest, src)
        assert dest.tobytes() == np.ascontiguousarray(src).tobytes(), (dt, m, n, src.strides)
    raw = np.empty(m * n * a.itemsize + 64, np.uint8)
    off = (-raw.ctypes.data) % 64
    lined = raw[off:off + m * n * a.itemsize].view(dt).reshape(m, n)
    lined[...] = a
    dest = np.empty((n, m), dt)
    blocked.copy_into(dest, lined.T)
    assert dest.tobytes() == np.ascontiguousarray(a.T).tobytes()


_SCRIPT = (
    "import hashlib, numpy as np\n"
    "from strided.kernels import blocked\n"
    "rng = np.random.default_rng(40)\n"
    "h = hashlib.sha256()\n"
    "for dt in ('f4', 'i4', 'f8', 'c8', 'i8'):\n"
    "    for m, n in ((16, 16), (17, 15), (31, 33), (64, 1024), (1024, 64), (1030, 70), (256, 256), (33, 600)):\n"
    "        raw = rng.integers(0, 256, (m + 1) * (2 * n + 1) * np.dtype(dt).itemsize, dtype=np.uint8)\n"
    "        base = raw.view(dt).reshape(m + 1, 2 * n + 1)\n"
    "        for src in (base[1:, :n].T, base[:m, 1:n + 1].T, base[1:, ::2][:, :n].T, base[:m, :n][::-1].T,\n"
    "                    base[:m, n - 1::-1].T):\n"
    "            dest = np.empty(src.shape, dt)\n"
    "            blocked.copy_into(dest, src, min_bytes=0)\n"
    "            assert dest.tobytes() == np.ascontiguousarray(src).tobytes(), (dt, m, n)\n"
    "            h.update(dest.tobytes())\n"
    "    a = rng.integers(0, 256, 1024 * 1024 * np.dtype(dt).itemsize, dtype=np.uint8).view(dt).reshape(1024, 1024)\n"
    "    dest = np.empty((1024, 1024), dt)\n"
    "    blocked.copy_into(dest, a.T)\n"
    "    assert dest.tobytes() == np.ascontiguousarray(a.T).tobytes(), dt\n"
    "    h.update(dest.tobytes())\n"
    "print(h.hexdigest())\n")


@needs_kernel
def test_every_block_set_leaves_the_same_bytes() -> None:
    """The blocks picked at import (AVX-512, AVX2 or SSE by the CPU), the SSE ones
    (STRIDED_NATIVE_COPY_ISA=sse) and the AVX2 ones (=avx2; the SSE ones on a CPU without AVX2)
    each write NumPy's bytes (the script asserts it) and so the same bytes as one another."""
    runs = fresh_runs.outputs(_SCRIPT, {}, {"STRIDED_NATIVE_COPY_ISA": "sse"}, {"STRIDED_NATIVE_COPY_ISA": "avx2"})
    assert runs[0] == runs[1] == runs[2] and len(runs[0]) == 65


_TORCH = {"f4": torch.float32, "f8": torch.float64, "i4": torch.int32, "i8": torch.int64, "i1": torch.int8,
          "f2": torch.float16, "c8": torch.complex64, "c16": torch.complex128}


def _same(got: strided.Tensor, want: torch.Tensor) -> None:
    """Values (as bytes), shape, dtype and strides of a strided result equal to PyTorch's."""
    assert tuple(got.shape) == tuple(want.shape)
    assert tuple(got.stride()) == tuple(want.stride()), (got.stride(), want.stride())
    g = got.numpy()
    w = want.numpy()
    assert g.dtype == w.dtype
    assert np.ascontiguousarray(g).tobytes() == np.ascontiguousarray(w).tobytes()


@pytest.mark.parametrize("dt", ["f4", "f8", "i4", "i8", "i1", "f2", "c8"])
@pytest.mark.parametrize("shape", [(1024, 1024), (257, 129), (3, 700, 40), (0, 5), (7, 0, 3), ()])
def test_copy_ops_against_torch(dt: str, shape: tuple[int, ...]) -> None:
    """contiguous / clone / permute_copy / transpose_copy / t_copy / reshape of transposed and
    permuted tensors, and copy_ of one into existing memory: PyTorch's values and strides."""
    rng = np.random.default_rng(len(shape) * 7 + sum(shape))
    a = _raw(rng, shape, dt) if dt[0] != "f" else rng.normal(size=shape).astype(dt)
    t = torch.from_numpy(a.copy())
    s = strided.from_numpy(a.copy())
    perm = tuple(reversed(range(len(shape))))
    _same(s.permute(perm).contiguous(), t.permute(perm).contiguous())
    _same(s.permute(perm).clone(), t.permute(perm).clone())
    _same(strided.permute_copy(s, perm), torch.permute_copy(t, perm))
    _same(s.permute(perm).reshape(-1), t.permute(perm).reshape(-1))
    if len(shape) == 2:
        _same(strided.t_copy(s), torch.t_copy(t))
        _same(strided.transpose_copy(s, 0, 1), torch.transpose_copy(t, 0, 1))
        _same(s.t()[::-1].contiguous(), torch.flip(t.t(), (0,)).contiguous())
    if len(shape) == 3:
        _same(s.permute(1, 2, 0).contiguous(), t.permute(1, 2, 0).contiguous())
        _same(s.permute(2, 0, 1).contiguous(), t.permute(2, 0, 1).contiguous())
    dest_s = strided.from_numpy(np.zeros(a.shape[::-1], a.dtype))
    dest_t = torch.from_numpy(np.zeros(a.shape[::-1], a.dtype))
    dest_s.copy_(s.permute(perm))
    dest_t.copy_(t.permute(perm))
    _same(dest_s, dest_t)


@hs.composite
def _layouts(draw: hs.DrawFn) -> tuple[np.ndarray, tuple[int, ...], tuple[slice, ...], str]:
    dt = draw(hs.sampled_from(["f4", "i4", "f8", "i8", "c8", "i2", "c16"]))
    ndim = draw(hs.integers(2, 3))
    shape = tuple(draw(hs.integers(0, 70 if ndim == 2 else 20)) for _ in range(ndim))
    perm = tuple(draw(hs.permutations(range(ndim))))
    steps = tuple(slice(None, None, draw(hs.sampled_from([1, 1, 2, -1, -2]))) for _ in range(ndim))
    return np.zeros(shape, dt), perm, steps, dt


@needs_kernel
@settings(max_examples=150, deadline=None)
@given(_layouts(), hs.integers(0, 2**32 - 1))
def test_random_layouts_leave_numpy_bytes(layout: tuple, seed: int) -> None:
    """Permuted, stepped and backwards sources of random small shapes (zero-size included) into a
    fresh destination (min_bytes=0) and into a permuted one: NumPy's bytes, the strided copy op's
    values and strides PyTorch's."""
    zeros, perm, steps, dt = layout
    a = _raw(np.random.default_rng(seed), zeros.shape, dt)
    src = a[steps].transpose(perm)
    dest = np.empty(src.shape, dt)
    blocked.copy_into(dest, src, min_bytes=0)
    assert dest.tobytes() == np.ascontiguousarray(src).tobytes()
    dest2 = np.zeros(src.shape[::-1], dt).transpose(tuple(reversed(range(src.ndim))))
    blocked.copy_into(dest2, src, min_bytes=0)
    assert np.ascontiguousarray(dest2).tobytes() == dest.tobytes()
    if dt in ("f4", "f8", "i4", "i8"):
        s = strided.from_numpy(a.copy())
        t = torch.from_numpy(a.copy())
        idx = tuple(slice(None, None, st.step) if st.step > 0 else slice(None) for st in steps)
        flips = tuple(d for d, st in enumerate(steps) if st.step < 0)
        got = s[idx]
        want = t[idx]
        if flips:
            got = strided.flip(got, flips)
            want = torch.flip(want, flips)
        _same(got.permute(perm).contiguous(), want.permute(perm).contiguous())


@pytest.mark.parametrize("dt", ["f4", "f8", "i4", "i8", "c8"])
@pytest.mark.parametrize("m, n", [(1024, 1024), (257, 129), (16, 2000), (700, 24), (9, 7)])
def test_pair_joins_against_torch(dt: str, m: int, n: int) -> None:
    """dstack / stack(dim=-1) of two transposed inputs (the compiled pair join for 4- and 8-byte
    elements where the result is large: AVX-512 or AVX2 blocks, their edges past the blocks and
    the line heads; offset and stepped inputs): PyTorch's values and strides, NumPy's values."""
    rng = np.random.default_rng(m * n)
    base_a = _raw(rng, (n + 1, 2 * m + 1), dt)
    base_b = _raw(rng, (n, m), dt)
    for a, b in ((base_a[1:, :m].T, base_b.T), (base_a[:n, 1:m + 1].T, base_b.T), (base_a[1:, ::2][:, :m].T, base_b.T)):
        sa, sb = strided.from_numpy(a), strided.from_numpy(b)
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        _same(strided.dstack([sa, sb]), torch.dstack([ta, tb]))
        _same(strided.stack([sa, sb], -1), torch.stack([ta, tb], -1))
        assert strided.dstack([sa, sb]).numpy().tobytes() == np.dstack([a, b]).tobytes()


_PAIR_SCRIPT = (
    "import hashlib, numpy as np\n"
    "from strided.kernels import native\n"
    "rng = np.random.default_rng(41)\n"
    "h = hashlib.sha256()\n"
    "done_calls = 0\n"
    "for dt in ('f4', 'i8', 'c8'):\n"
    "    for m, n in ((1024, 1024), (257, 129), (33, 2000), (8, 8), (17, 9)):\n"
    "        raw = rng.integers(0, 256, 2 * (n + 1) * (m + 1) * np.dtype(dt).itemsize, dtype=np.uint8)\n"
    "        base = raw.view(dt).reshape(2 * (n + 1), m + 1)\n"
    "        a, b = base[1:n + 1, :m].T, base[n + 1:2 * n + 1, 1:].T\n"
    "        dest = np.empty((m, n, 2), dt)\n"
    "        done = native.interleave_join(dest, [a, b])\n"
    "        if done:\n"
    "            assert dest.tobytes() == np.stack([a, b], -1).tobytes(), (dt, m, n)\n"
    "        h.update(np.stack([a, b], -1).tobytes())\n"
    "        h.update(bytes([done]))\n"
    "        done_calls += done\n"
    "print(h.hexdigest(), done_calls)\n")


@needs_kernel
def test_pair_join_under_each_block_set() -> None:
    """The compiled pair join writes np.stack's bytes under the blocks picked at import and under
    the AVX2 ones (=avx2), and takes the same calls under both (any CPU with AVX2: both take all;
    with neither, none); under the SSE blocks it refuses them all, writing nothing."""
    runs = fresh_runs.outputs(_PAIR_SCRIPT, {}, {"STRIDED_NATIVE_COPY_ISA": "avx2"}, {"STRIDED_NATIVE_COPY_ISA": "sse"})
    assert runs[0] == runs[1] and len(runs[0].split()[0]) == 64
    assert runs[2].split()[1] == "0"
