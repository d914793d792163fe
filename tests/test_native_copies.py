"""The compiled copy kernel (kernels/native.py, kernels/_copykernel.c) against the NumPy path.

Every copy the kernel takes must leave exactly the bytes one ``np.copyto`` leaves (the whole
destination buffer, the bytes around the view included) and the bytes the NumPy strips leave
(``native.disabled()``), over random layouts: transposed, permuted, stepped (backwards too),
expanded sources, 0-d and zero-size, every element size (1, 2, 4, 8, 16 bytes), complex. The
copy ops that use it report the same values, strides and ledger records either way.

The kernel is built by ``pip install -e .`` where a C compiler is found (setup.py). Where it is
not built (no compiler), the comparisons of the two paths would compare the NumPy path with
itself, so they are not collected (``_KERNEL`` below); ``test_the_kernel_is_built`` then fails
if a compiler is present or ``STRIDED_REQUIRE_NATIVE=1`` (set by ``.ci/run``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import fresh_runs
import strided
from copy_layouts import dest_views
from strided.kernels import blocked, native

_KERNEL = native.kernel()

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.float16, np.float32, np.int32, np.float64, np.int64,
          np.complex64, np.complex128, np.dtype("datetime64[ns]")]


def test_the_kernel_is_built() -> None:
    """Built wherever a C compiler is (pip compiled it), and required in CI."""
    if os.environ.get("STRIDED_REQUIRE_NATIVE") == "1" or shutil.which("cc") or shutil.which("gcc"):
        assert _KERNEL is not None, "strided.kernels._copykernel is not built: run `pip install -e .` again"


@hs.composite
def _source(draw: hs.DrawFn, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A view with ``shape`` of random bytes (NaN payloads and all): permuted, stepped (maybe
    backwards), expanded (stride 0), with an offset."""
    ndim = len(shape)
    perm = draw(hs.permutations(range(ndim)))
    steps = [draw(hs.sampled_from([1, 1, 2, -1, -3])) for _ in range(ndim)]
    expanded = [shape[d] > 1 and draw(hs.integers(0, 4)) == 0 for d in range(ndim)]
    base_shape = [1 if expanded[d] else shape[d] * abs(steps[d]) for d in range(ndim)]
    rng = np.random.default_rng(draw(hs.integers(0, 2**31)))
    numel = int(np.prod(base_shape)) + 1
    raw = rng.integers(0, 256, numel * dtype.itemsize, dtype=np.uint8)
    if dtype.kind == "b":
        raw = raw & 1  # (bool: 0 or 1 bytes, the only ones NumPy makes)
    flat = raw.view(dtype)[1:]  # (an offset: the view starts one element in)
    base = flat.reshape([base_shape[d] for d in perm]).transpose(np.argsort(perm))
    view = base[tuple(slice(None) if expanded[d] else slice(None, None, s) for d, s in enumerate(steps))
                + (Ellipsis,)]  # (...: a 0-d view, not a scalar)
    return np.broadcast_to(view, shape) if any(expanded) else view


def _both_paths(dest_of: Any, buffer: np.ndarray, source: np.ndarray) -> tuple[bytes, bytes, bytes]:
    """The buffer's bytes after one np.copyto, after the NumPy path and after the kernel."""
    outs = []
    for how in ("copyto", "numpy", "native"):
        buf = buffer.copy()
        dest = dest_of(buf)
        if how == "copyto":
            np.copyto(dest, source, casting="unsafe")
        elif how == "numpy":
            with native.disabled():
                blocked.copy_into(dest, source, min_bytes=0)
        else:
            blocked.copy_into(dest, source, min_bytes=0)
        outs.append(buf.tobytes())
    return outs[0], outs[1], outs[2]


if _KERNEL is not None:  # (see the module docstring: without the kernel there is one path)

    @settings(max_examples=60, deadline=None)
    @given(shape=hs.lists(hs.sampled_from([0, 1, 2, 3, 5, 8, 9, 17]), min_size=0, max_size=4).map(tuple),
           dtype=hs.sampled_from(DTYPES), data=hs.data())
    def test_the_kernel_leaves_the_bytes_numpy_leaves(shape: tuple[int, ...], dtype: Any, data: hs.DataObject) -> None:
        dt = np.dtype(dtype)
        source = data.draw(_source(shape, dt))
        buffer, view = data.draw(dest_views(shape, dt))
        plain, stripped, compiled = _both_paths(view, buffer, source)
        assert compiled == plain
        assert stripped == plain

    @pytest.mark.parametrize("dt", ["i1", "f2", "f4", "i8", "c16"])
    @pytest.mark.parametrize("step", [1, 2, -3])
    def test_tile_edges_of_transposed_and_stepped_sources(dt: str, step: int) -> None:
        """Sizes around the tiles (TILE_B_BYTES = 4 KB of the source's contiguous dim, TILE_A = 64
        destination elements) and the register blocks, for a transpose whose source is stepped
        along its contiguous dim too (``x.t()[::2]``: the gathered blocks), forwards and back."""
        rng = np.random.default_rng(abs(step))
        for nb, na in ((4096 // np.dtype(dt).itemsize + 3, 67), (5, 130), (2 * 4096 // np.dtype(dt).itemsize - 1, 64)):
            base = rng.integers(0, 256, (na, nb * abs(step) + 2) + ((np.dtype(dt).itemsize,)), dtype=np.uint8)
            source = base.view(dt)[..., 0][:, 1:1 + nb * abs(step)][:, ::step].T  # (nb, na), stepped
            assert source.shape == (nb, na)
            dest = np.empty((nb, na), dt)
            blocked.copy_into(dest, source, min_bytes=0)
            assert dest.tobytes() == np.ascontiguousarray(source).tobytes(), (dt, step, nb, na)

    def test_wide_blocks_and_sse_blocks_leave_the_same_bytes() -> None:
        """Four- and eight-byte transposes are cut into 16 x 16 / 8 x 8 AVX-512 register blocks
        where the CPU has AVX-512F, else into SSE's 4 x 4 / 2 x 2: both copies (the SSE one forced
        in a fresh process by STRIDED_NATIVE_COPY_ISA=sse) write the bytes NumPy writes, for sizes
        around the blocks and the tiles, power-of-two row strides (one L1 set per block), stepped
        and offset views, random bytes (NaN payloads and all)."""
        script = (
            "import hashlib, numpy as np\n"
            "from strided.kernels import blocked\n"
            "rng = np.random.default_rng(5)\n"
            "h = hashlib.sha256()\n"
            "for dt in ('f4', 'i4', 'f8', 'c8', 'i8'):\n"
            "    for m, n in ((16, 16), (17, 15), (31, 33), (8, 9), (64, 1024), (1024, 64), (1030, 70), (300, 257)):\n"
            "        raw = rng.integers(0, 256, (m + 1) * (2 * n + 1) * np.dtype(dt).itemsize, dtype=np.uint8)\n"
            "        base = raw.view(dt).reshape(m + 1, 2 * n + 1)\n"
            "        for src in (base[1:, :n].T, base[:m, 1:n + 1].T, base[1:, ::2][:, :n].T, base[:m, :n][::-1].T):\n"
            "            dest = np.empty(src.shape, dt)\n"
            "            blocked.copy_into(dest, src, min_bytes=0)\n"
            "            assert dest.tobytes() == np.ascontiguousarray(src).tobytes(), (dt, m, n)\n"
            "            h.update(dest.tobytes())\n"
            "print(h.hexdigest())\n")
        runs = fresh_runs.outputs(script, {}, {"STRIDED_NATIVE_COPY_ISA": "sse"})
        assert runs[0] == runs[1] and len(runs[0]) == 65

    @pytest.mark.parametrize("dt", ["i1", "f2", "f4", "i4", "f8", "c8", "c16"])
    def test_lines_read_backwards_are_reversed_in_registers(dt: str) -> None:
        """A source running backwards along the destination's own dim (a flip) goes to the kernel
        for 4- and 8-byte elements (reversed 16 bytes at a time, the tail one by one): every
        length around the register's width, whole arrays reversed (one coalesced dim), rows
        reversed, and with a step; the bytes np.copyto leaves. Other sizes keep NumPy's call."""
        rng = np.random.default_rng(21)
        for n in [*range(0, 12), 31, 1000, 4097]:
            raw = rng.integers(0, 256, 3 * n * np.dtype(dt).itemsize + 64, dtype=np.uint8)
            base = raw[: 3 * n * np.dtype(dt).itemsize].view(dt).reshape(3, n)
            for source in (base[:, ::-1], base[::-1, ::-1], base[0, ::-1], base[:, ::-1][:, ::2], base[::-1]):
                dest = np.empty(source.shape, dt)
                blocked.copy_into(dest, source, min_bytes=0)
                assert dest.tobytes() == np.ascontiguousarray(source).tobytes(), (dt, n, source.strides)
        x = strided.from_numpy(rng.standard_normal((300, 257)).astype(np.float32))
        for flipped, want in ((x.fliplr(), x.numpy()[:, ::-1]), (x.flip(0, 1), x.numpy()[::-1, ::-1]),
                              (x.t().flip(1), x.numpy().T[:, ::-1]), (x.t().flipud(), x.numpy().T[::-1])):
            assert flipped.numpy().tobytes() == np.ascontiguousarray(want).tobytes() or \
                flipped.numpy().tobytes() == np.asfortranarray(want).tobytes()
            assert np.array_equal(flipped.numpy(), want)

    def test_the_kernel_runs_where_the_orders_disagree(monkeypatch: pytest.MonkeyPatch) -> None:
        """A transpose, a 3-d permute, an expanded source and every element size go through it
        (the SSE blocks and their edges: sizes not a multiple of 8), and a cast after it is made in
        the source's order; a misaligned source or the switch off do not."""
        calls = []
        real = native.copy
        monkeypatch.setattr(native, "copy", lambda *a: calls.append(a[2]) or real(*a))
        for dt in ("i1", "i2", "f4", "f8", "c16"):
            a = np.arange(37 * 45).astype(dt).reshape(37, 45)
            dest = np.empty((45, 37), dt)
            blocked.copy_into(dest, a.T, min_bytes=0)
            assert (dest == a.T).all() and calls[-1] == [(45, 37 * a.itemsize, a.itemsize),
                                                        (37, a.itemsize, 45 * a.itemsize)]
        b = np.arange(3 * 4 * 5.0).reshape(3, 4, 5)
        dest3 = np.empty((5, 3, 4))
        blocked.copy_into(dest3, b.transpose(2, 0, 1), min_bytes=0)
        assert (dest3 == b.transpose(2, 0, 1)).all() and calls[-1] == [(5, 96, 8), (12, 8, 40)]  # (3, 4) merged
        expanded = np.broadcast_to(np.arange(35.0).reshape(5, 1, 7), (5, 3, 7)).T  # (7, 3, 5), strides (8, 0, 56)
        dest_e = np.empty((7, 3, 5))
        blocked.copy_into(dest_e, expanded, min_bytes=0)
        assert (dest_e == expanded).all() and calls[-1] == [(7, 120, 8), (3, 40, 0), (5, 8, 56)]
        n = len(calls)
        odd = np.zeros(37 * 45 * 8 + 1, np.uint8)[1:].view("f8").reshape(37, 45)  # misaligned
        blocked.copy_into(np.empty((45, 37)), odd.T, min_bytes=0)
        with native.disabled():
            blocked.copy_into(np.empty((45, 37)), a.T.real, min_bytes=0)
        assert len(calls) == n
        # a cast: made first in the source's order (blocked._cast_then_copy), then the kernel's copy
        cast_dest = np.empty((45, 37), "f8")
        blocked.copy_into(cast_dest, a.T.real.astype("f4"), min_bytes=0)
        assert len(calls) == n + 1 and (cast_dest == a.T.real).all()
        with pytest.raises(ValueError, match="could not broadcast"):  # np.copyto's own error, as before
            blocked.copy_into(np.empty((45, 37)), np.zeros((37, 45)), min_bytes=0)

    def _ops(x: strided.Tensor) -> list:
        target = strided.zeros(x.shape, dtype=x.dtype)
        return [x.contiguous(), x.clone(memory_format=strided.contiguous_format), x.clone(),
                target.copy_(x), x.to(strided.complex128), x.reshape(-1), x.permute(tuple(range(x.dim()))[::-1]) + 1]

    @pytest.mark.parametrize("make", [
        lambda: strided.arange(7 * 9 * 5, dtype=strided.float32).reshape(7, 9, 5).permute(2, 0, 1),
        lambda: strided.arange(7 * 9 * 5, dtype=strided.int16).reshape(7, 9, 5).permute(1, 2, 0)[:, ::-2],
        lambda: strided.arange(11 * 6, dtype=strided.float64).to(strided.complex128).reshape(11, 6).t(),  # (arange has no complex kernel, as in PyTorch)
        lambda: strided.arange(16 * 9 * 5, dtype=strided.float32).reshape(16, 9, 5).permute(2, 1, 0),  # RUN2
        lambda: strided.arange(8 * 9 * 7, dtype=strided.float64).reshape(8, 9, 7).permute(2, 1, 0)[::-1],
        lambda: strided.arange(11.0).reshape(11, 1).expand(11, 6).t(),
        lambda: strided.zeros(0, 6).t(),
        lambda: strided.tensor(3.5),
    ])
    def test_copy_ops_give_the_same_with_and_without_the_kernel(make, monkeypatch: pytest.MonkeyPatch) -> None:
        """contiguous, clone, copy_, to, reshape and an add against its output's order: the same
        values (bytes), strides, dtypes and ledger records with the kernel as without."""
        monkeypatch.setattr(native, "MIN_BYTES", 0)
        monkeypatch.setattr(blocked, "MIN_BYTES", 0)

        def run() -> tuple[list, list]:
            x = make()
            with strided.record_copies() as copies:
                outs = _ops(x)
            return ([(o.numpy().tobytes(), o.shape, o.stride(), o.dtype) for o in outs],
                    [(c.nbytes, c.reason, c.shape, c.dtype) for c in copies])

        compiled = run()
        with native.disabled():
            stripped = run()
        assert compiled == stripped
        assert compiled[0][0][0] == np.ascontiguousarray(make().numpy()).tobytes()

    def test_the_switch_is_per_thread() -> None:
        """native.disabled() in one thread leaves another thread's copies on the kernel."""
        seen: list[bool] = []
        with native.disabled():
            t = threading.Thread(target=lambda: seen.append(native.active()))
            t.start()
            t.join()
            assert not native.active()
        assert seen == [True] and native.active()

    def test_the_kernel_checks_its_arguments() -> None:
        """The compiled call refuses what it cannot copy, in words (the Python side never sends it)."""
        a, d = np.zeros(4), np.zeros(4)
        addr = a.__array_interface__["data"][0], d.__array_interface__["data"][0]
        with pytest.raises(ValueError, match="itemsize must be 1, 2, 4, 8 or 16, not 3"):
            _KERNEL.copy(addr[1], addr[0], 3, [4], [8], [8])
        with pytest.raises(ValueError, match="dst_strides has 2 entries, the shape 1"):
            _KERNEL.copy(addr[1], addr[0], 8, [4], [8, 8], [8])
        with pytest.raises(ValueError, match="at most 64 dims"):
            _KERNEL.copy(addr[1], addr[0], 8, [1] * 65, [8] * 65, [8] * 65)
        _KERNEL.copy(addr[1], addr[0], 8, [0, 4], [0, 8], [0, 8])  # zero-size: nothing touched

    def test_loaded_lazily_and_switched_off_by_the_environment() -> None:
        """``import strided`` does not load the kernel; with STRIDED_NATIVE=0 (read at the first
        large copy) it is never loaded and the copies take the NumPy path; without, the first large
        copy loads it. (One fresh process: the second part forgets the first load decision.)"""
        code = ("import os, sys, strided\n"
                "from strided.kernels import native\n"
                "name = 'strided.kernels._copykernel'\n"
                "seen = [name in sys.modules]\n"
                "def copy():\n"
                "    x = strided.arange(1 << 18, dtype=strided.float32).reshape(512, 512).t().contiguous()\n"
                "    seen.extend([name in sys.modules, native.active(), x[3, 5].item()])\n"
                "copy()\n"
                "os.environ['STRIDED_NATIVE'] = '1'\n"
                "native._loaded = False\n"
                "copy()\n"
                "print(*seen)\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**os.environ, "STRIDED_NATIVE": "0"}).stdout.split()
        assert out == ["False", "False", "False", "2563.0", "True", "True", "2563.0"]

    @pytest.mark.parametrize("dtype", ["bool", "int8", "float16", "float32", "float64", "complex64", "complex128"])
    def test_the_kernel_agrees_with_pytorch(dtype: str, monkeypatch: pytest.MonkeyPatch) -> None:
        """contiguous(), a permuted clone and copy_ through the kernel give PyTorch's values,
        shapes and strides, on a transpose, a 3-d permute with a step (PyTorch has no backward ones) and an expanded
        source (odd sizes: the register blocks' edges)."""
        import torch

        monkeypatch.setattr(native, "MIN_BYTES", 0)
        base = (np.random.default_rng(1).standard_normal((6, 19, 21)) * 40).astype(dtype)
        t_base, s_base = torch.from_numpy(base), strided.from_numpy(base)
        views = [lambda b: b[0].t(), lambda b: b.permute(2, 0, 1)[:, ::2], lambda b: b[:1].expand(3, 19, 21).transpose(0, 2)]
        calls = []
        real = native.copy
        monkeypatch.setattr(native, "copy", lambda *a: calls.append(1) or real(*a))
        for view in views:
            t, s = view(t_base), view(s_base)
            for tr, sr in ((t.contiguous(), s.contiguous()),
                           (t.clone(memory_format=torch.contiguous_format),
                            s.clone(memory_format=strided.contiguous_format)),
                           (torch.zeros(t.shape, dtype=t.dtype).copy_(t), strided.zeros(*s.shape, dtype=s.dtype).copy_(s))):
                assert tuple(sr.shape) == tuple(tr.shape) and sr.stride() == tr.stride()
                assert sr.numpy().tobytes() == tr.numpy().tobytes()
        assert len(calls) == 9

    @settings(max_examples=25, deadline=None)
    @given(dtype=hs.sampled_from([np.int8, np.float16, np.float32, np.float64, np.complex64]),
           nb=hs.integers(1, 19), n1=hs.integers(1, 40), blocks=hs.integers(1, 3), data=hs.data())
    def test_runs_through_two_dims_hypothesis(dtype: Any, nb: int, n1: int, blocks: int, data: hs.DataObject) -> None:
        """Random (2, 1, 0)-like layouts around the kernel's two-dim plane (RUN2 in
        _copykernel.c: the destination's last dim a multiple of the register block and under
        512 bytes, the source unit-strided along the destination's outermost dim): stepped,
        backwards and expanded sources, random destination views; np.copyto's bytes."""
        dt = np.dtype(dtype)
        n2 = blocks * max(1, 16 // dt.itemsize)
        source = data.draw(_source((nb, n1, n2), dt))
        if data.draw(hs.booleans()):  # the plain case: the source's unit stride along dim 0
            raw = np.random.default_rng(nb * n1).integers(0, 256, nb * n1 * n2 * dt.itemsize, dtype=np.uint8)
            source = raw.view(dt).reshape(n2, n1, nb).transpose(2, 1, 0)
        if data.draw(hs.booleans()):  # (a row-major destination, three elements in: the plane's case)
            buffer = np.zeros(nb * n1 * n2 + 3, dt)
            plain, stripped, compiled = _both_paths(lambda buf: buf[3:].reshape(nb, n1, n2), buffer, source)
        else:
            buffer, view = data.draw(dest_views((nb, n1, n2), dt))
            plain, stripped, compiled = _both_paths(view, buffer, source)
        assert compiled == plain and stripped == plain

    @pytest.mark.parametrize("dtype", ["int8", "float16", "float32", "float64"])
    def test_the_runs_through_two_dims_leave_the_bytes_numpy_leaves(dtype: str) -> None:
        """(2, 1, 0) permutes, whose destination's short last dim runs on through the dim outside
        it while the source runs along the destination's outermost (the kernel's two-dim plane,
        RUN2 in _copykernel.c): the bytes np.copyto leaves, with blocks' edges (b not a multiple
        of the register block, several tiles along the run), a stepped and a backwards source,
        and a source whose middle dim is expanded; PyTorch's values and strides for the
        contiguous() of the plain permute."""
        import torch

        dt = np.dtype(dtype)
        last = 64 // dt.itemsize  # (64 bytes: under RUN2, a multiple of the register block)
        rng = np.random.default_rng(7)
        base = rng.integers(0, 256, 21 * 40 * 3 * last * dt.itemsize, dtype=np.uint8).view(dt)
        base = base.reshape(last, 40, 21 * 3)
        sources = [base[:, :, :21].transpose(2, 1, 0),  # (21, 40, last): b = 21, n1 = 40
                   base[:, :, ::3].transpose(2, 1, 0),  # stepped along b
                   base[::-1, ::-1, 5:26].transpose(2, 1, 0),  # backwards along the run's two dims
                   np.broadcast_to(base[:, :1, :21], (last, 40, 21)).transpose(2, 1, 0)]  # expanded n1
        for source in sources:
            plain, stripped, compiled = _both_paths(lambda buf, shape=source.shape: buf.reshape(shape),
                                                    np.zeros(source.size, dt), source)
            assert compiled == plain and stripped == plain
        cube = base[:, :, :21].copy()  # a (2, 1, 0) permute made contiguous, against PyTorch
        t = torch.from_numpy(cube.view(np.int8) if dt.itemsize == 1 else cube).permute(2, 1, 0).contiguous()
        s = strided.from_numpy(cube).permute(2, 1, 0)
        with native.disabled():
            off = s.contiguous()
        on = strided.from_numpy(cube).permute(2, 1, 0)
        old = native.MIN_BYTES
        native.MIN_BYTES = 0
        try:
            on = on.contiguous()
        finally:
            native.MIN_BYTES = old
        assert on.stride() == off.stride() == t.stride()
        assert on.numpy().tobytes() == off.numpy().tobytes() == t.numpy().tobytes()

    def test_blocks_aligned_to_cache_lines_at_every_offset() -> None:
        """Four- and eight-byte transposes whose row strides are multiples of 64 bytes start their
        wide blocks on whole cache lines (_copykernel.c plane_z: the first source rows and the
        first destination columns up to the next line go by the SSE plane): every offset of
        source and destination within a line (NumPy's large buffers sit 16 bytes past one), sizes
        around the blocks, the heads longer than the plane (h > na, h > nb), and (2, 1, 0)
        permutes through the run-through planes whose last dim is a whole number of wide blocks;
        the bytes np.copyto leaves, with the AVX-512 blocks and (in a fresh process) the SSE ones,
        and PyTorch's contiguous() for the offset-16 cases."""
        script = (
            "import hashlib, numpy as np\n"
            "from strided.kernels import blocked\n"
            "rng = np.random.default_rng(11)\n"
            "h = hashlib.sha256()\n"
            "for dt in ('f4', 'f8', 'c8', 'i8'):\n"
            "    sz = np.dtype(dt).itemsize\n"
            "    for m, n in ((48, 64), (64, 48), (3, 64), (64, 3), (1040, 80), (80, 1040), (16, 16)):\n"
            "        for so in range(0, 64, 8 if sz == 8 else 4 * 3):\n"
            "            for do in range(0, 64, 8 if sz == 8 else 4 * 5):\n"
            "                raw = rng.integers(0, 256, m * n * sz + 128, dtype=np.uint8)\n"
            "                src = raw[so:so + m * n * sz].view(dt).reshape(m, n).T\n"
            "                out = np.zeros(n * m * sz + 128, np.uint8)\n"
            "                dest = out[do:do + n * m * sz].view(dt).reshape(n, m)\n"
            "                blocked.copy_into(dest, src, min_bytes=0)\n"
            "                ref = np.zeros_like(out)\n"
            "                np.copyto(ref[do:do + n * m * sz].view(dt).reshape(n, m), src)\n"
            "                assert out.tobytes() == ref.tobytes(), (dt, m, n, so, do)\n"
            "                h.update(out.tobytes())\n"
            "    for nb, n1, n2 in ((21, 40, 64 // sz), (35, 9, 128 // sz), (16, 33, 32 // sz)):\n"
            "        raw = rng.integers(0, 256, nb * n1 * n2 * sz + 64, dtype=np.uint8)\n"
            "        src = raw[16:16 + nb * n1 * n2 * sz].view(dt).reshape(n2, n1, nb).transpose(2, 1, 0)\n"
            "        dest = np.empty((nb, n1, n2), dt)\n"
            "        blocked.copy_into(dest, src, min_bytes=0)\n"
            "        assert dest.tobytes() == np.ascontiguousarray(src).tobytes(), (dt, nb, n1, n2)\n"
            "        h.update(dest.tobytes())\n"
            "print(h.hexdigest())\n")
        runs = fresh_runs.outputs(script, {}, {"STRIDED_NATIVE_COPY_ISA": "sse"})
        assert runs[0] == runs[1] and len(runs[0]) == 65

    @pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int32", "bool", "float16"])
    def test_offset_buffers_against_pytorch(dtype: str) -> None:
        """contiguous() of 2-d and 3-d permutes of a tensor that starts 16 bytes past a cache line
        (NumPy's large buffers), through the kernel: PyTorch's values and strides, and the bytes
        of the NumPy path."""
        import torch

        dt = np.dtype(dtype)
        rng = np.random.default_rng(3)
        for shape, perm in (((96, 80), (1, 0)), ((6, 40, 48), (2, 0, 1)), ((6, 40, 48), (2, 1, 0)),
                            ((5, 32, 48), (0, 2, 1)), ((7, 16, 33), (2, 1, 0))):
            numel = int(np.prod(shape))
            raw = rng.integers(0, 256, (numel + 64) * dt.itemsize, dtype=np.uint8)
            if dt.kind == "b":
                raw = raw & 1
            base = raw[16:16 + numel * dt.itemsize].view(dt).reshape(shape)
            t = torch.from_numpy(base.copy()).permute(*perm).contiguous()
            old = native.MIN_BYTES
            native.MIN_BYTES = 0
            try:
                on = strided.from_numpy(base).permute(*perm).contiguous()
                with native.disabled():
                    off = strided.from_numpy(base).permute(*perm).contiguous()
            finally:
                native.MIN_BYTES = old
            assert on.stride() == off.stride() == t.stride(), (shape, perm)
            assert on.numpy().tobytes() == off.numpy().tobytes() == t.numpy().tobytes(), (shape, perm)

    def test_short_shared_runs_and_short_source_runs() -> None:
        """Two layouts the kernel used to walk one short run at a time: both running along a short
        last dim (``(N, M, 3).permute(1, 0, 2)``: the run folded into one element of 3 to 64
        bytes, sizes 3/6/12/24 by fixed moves, others by memcpy), and a source whose unit-stride
        dim is short and continued by another dim while the destination runs along a third
        (``(N, M, 4).permute(2, 1, 0)``: the AVX-512 rows plane). Both ISAs (the SSE copy forced
        in a fresh process), sizes around the blocks and tiles, offsets, steps and a reversed
        dim; destination rows 64 KB and more apart (the wider tiles there): the bytes NumPy
        leaves."""
        script = (
            "import hashlib, itertools, numpy as np\n"
            "from strided.kernels import blocked\n"
            "rng = np.random.default_rng(23)\n"
            "h = hashlib.sha256()\n"
            "for dt in ('u1', 'i2', 'f4', 'f8', 'c16'):\n"
            "    sz = np.dtype(dt).itemsize\n"
            "    for shape in ((40, 37, 3), (70, 33, 4), (33, 65, 2), (17, 19, 5), (9, 130, 8), (1100, 3, 3),\n"
            "                  (5, 40, 4, 3), (12, 13, 16)):\n"
            "        n = int(np.prod(shape))\n"
            "        raw = rng.integers(0, 256, n * sz + 64, dtype=np.uint8)\n"
            "        base = raw[8:8 + n * sz].view(dt).reshape(shape)\n"
            "        for p in itertools.permutations(range(len(shape))):\n"
            "            v = base.transpose(p)\n"
            "            for src in (v, v[::-1], v[:, 1:], v[1:, ::2]):\n"
            "                dest = np.empty(src.shape, dt)\n"
            "                blocked.copy_into(dest, src, min_bytes=0)\n"
            "                assert dest.tobytes() == np.ascontiguousarray(src).tobytes(), (dt, shape, p)\n"
            "                h.update(dest.tobytes())\n"
            "for dt, m in (('f4', 16411), ('f8', 8205), ('f4', 16384), ('f8', 8192)):  # rows 64 KB+ apart: wider tiles\n"
            "    raw = rng.integers(0, 256, m * 22 * np.dtype(dt).itemsize, dtype=np.uint8)\n"
            "    base = raw.view(dt).reshape(m, 22)\n"
            "    for src in (base[:, 1:].T, base[:, :19].T, base.reshape(m // 1, 2, 11).transpose(2, 1, 0)):\n"
            "        dest = np.empty(src.shape, dt)\n"
            "        blocked.copy_into(dest, src, min_bytes=0)\n"
            "        assert dest.tobytes() == np.ascontiguousarray(src).tobytes(), (dt, m)\n"
            "        h.update(dest.tobytes())\n"
            "print(h.hexdigest())\n")
        runs = fresh_runs.outputs(script, {}, {"STRIDED_NATIVE_COPY_ISA": "sse"})
        assert runs[0] == runs[1] and len(runs[0]) == 65

    def test_image_permutes_against_pytorch() -> None:
        """contiguous() of every permute of (N, M, 3) and (N, M, 4) tensors past the kernel's
        threshold: PyTorch's values and strides, and the NumPy path's bytes."""
        import torch

        rng = np.random.default_rng(24)
        for shape, dt in (((300, 170, 3), np.float32), ((130, 257, 4), np.float32), ((600, 500, 3), np.uint8),
                          ((128, 140, 4), np.float64), ((100, 120, 3), np.float64)):
            base = (rng.standard_normal(shape) * 100).astype(dt)
            for perm in ((1, 0, 2), (2, 1, 0), (2, 0, 1), (0, 2, 1), (1, 2, 0)):
                t = torch.from_numpy(base).permute(*perm).contiguous()
                on = strided.from_numpy(base).permute(*perm).contiguous()
                with native.disabled():
                    off = strided.from_numpy(base).permute(*perm).contiguous()
                assert on.stride() == off.stride() == t.stride(), (shape, perm)
                assert on.numpy().tobytes() == off.numpy().tobytes() == t.numpy().tobytes(), (shape, perm)
