"""Session 18's copy-kernel paths (kernels/_copykernel.c): the run-through planes' blocks started on
whole cache lines (DEFINE_Z2_PLANE: per-row source pointers, unaligned head and tail blocks that
overlap their neighbours) and the streaming stores of large copies (NT_MIN_BYTES: the 3-d
permutes' far-apart destination rows, the run-through planes, apply2d's float64 outputs).

Every copy must leave exactly the bytes one ``np.copyto`` leaves (the whole buffer, the bytes
around the view included) and the bytes of the NumPy path (``native.disabled()``), at every offset
of source and destination within a line, for sizes around the blocks and tiles, backwards
sources, zero-size and 0-d layouts, with the AVX-512 blocks and (in a fresh process) the SSE ones.
The elementwise walk (apply2d) must give NumPy's bits and the kernel-off path's.
"""

from __future__ import annotations

import numpy as np
import pytest

import fresh_runs
import strided
from strided.kernels import blocked, native

_KERNEL = native.kernel()

# (a copy this large takes the streaming stores: NT_MIN_BYTES in _copykernel.c is 8 MiB)
_LARGE = 8 << 20


def _offset(shape: tuple[int, ...], dt: np.dtype, off: int, rng: np.random.Generator) -> np.ndarray:
    """Random bytes as a row-major ``shape`` array starting ``off`` bytes past a 64-byte line."""
    n = int(np.prod(shape)) * dt.itemsize
    raw = np.zeros(n + 128, np.uint8)
    k = (-raw.ctypes.data) % 64 + off
    raw[k:k + n] = rng.integers(0, 256, n, dtype=np.uint8)
    return raw[k:k + n].view(dt).reshape(shape)


def _copies(source: np.ndarray, off: int) -> tuple[bytes, bytes, bytes]:
    """The bytes of a zeroed buffer (its destination ``off`` bytes past a line, 64 bytes spare on
    both sides) after np.copyto, after the NumPy path and after the kernel."""
    dt, n = source.dtype, source.nbytes
    outs = []
    for how in ("copyto", "numpy", "native"):
        raw = np.zeros(n + 256, np.uint8)
        k = (-raw.ctypes.data) % 64 + 64 + off
        dest = raw[k:k + n].view(dt).reshape(source.shape)
        if how == "copyto":
            np.copyto(dest, source)
        elif how == "numpy":
            with native.disabled():
                blocked.copy_into(dest, source, min_bytes=0)
        else:
            blocked.copy_into(dest, source, min_bytes=0)
        outs.append(raw[k - 64:k + n + 64].tobytes())  # (the buffers' own offsets may differ)
    return outs[0], outs[1], outs[2]


if _KERNEL is not None:

    def test_run_through_planes_at_every_line_offset() -> None:
        """(2, 1, 0) permutes through the run-through planes (the destination's last dim a whole
        number of wide blocks, under 512 bytes): source and destination at offsets across a line,
        b (the blocks' rows) below, at and past the block and not a multiple of it, the run
        (n1 x n2) crossing the last dim's boundaries inside a block once the columns start on a
        line; the bytes np.copyto leaves, both ISAs."""
        script = (
            "import hashlib, numpy as np\n"
            "from strided.kernels import blocked\n"
            "rng = np.random.default_rng(5)\n"
            "h = hashlib.sha256()\n"
            "for dt in ('f4', 'f8', 'i4', 'c8'):\n"
            "    sz = np.dtype(dt).itemsize\n"
            "    for nb, n1, n2 in ((7, 40, 64 // sz), (15, 9, 64 // sz), (16, 8, 128 // sz), (17, 33, 64 // sz),\n"
            "                       (33, 5, 192 // sz), (40, 64, 64 // sz), (1, 50, 64 // sz)):\n"
            "        n = nb * n1 * n2 * sz\n"
            "        for so in range(0, 64, 4 * 3 if sz == 4 else 8):\n"
            "            for do in (0, 4 * (sz == 4), 16, 24, 56):\n"
            "                raw = np.zeros(n + 128, np.uint8)\n"
            "                k = (-raw.ctypes.data) % 64 + so\n"
            "                raw[k:k + n] = rng.integers(0, 256, n, dtype=np.uint8)\n"
            "                src = raw[k:k + n].view(dt).reshape(n2, n1, nb).transpose(2, 1, 0)\n"
            "                out = np.zeros(n + 256, np.uint8)\n"
            "                j = (-out.ctypes.data) % 64 + 64 + do\n"
            "                blocked.copy_into(out[j:j + n].view(dt).reshape(nb, n1, n2), src, min_bytes=0)\n"
            "                ref = np.zeros_like(out)\n"
            "                np.copyto(ref[j:j + n].view(dt).reshape(nb, n1, n2), src)\n"
            "                assert out.tobytes() == ref.tobytes(), (dt, nb, n1, n2, so, do)\n"
            "                h.update(out[j:j + n].tobytes())\n"
            "print(h.hexdigest())\n")
        runs = fresh_runs.outputs(script, {}, {"STRIDED_NATIVE_COPY_ISA": "sse"})
        assert runs[0] == runs[1] and len(runs[0]) == 65

    @pytest.mark.parametrize("dtype", ["float32", "float64"])
    @pytest.mark.parametrize("perm", [(2, 1, 0), (2, 0, 1)])
    @pytest.mark.parametrize("so, do", [(16, 16), (0, 0), (4, 40)])
    def test_large_permutes_with_streaming_stores(dtype: str, perm: tuple[int, ...], so: int, do: int) -> None:
        """Copies past NT_MIN_BYTES, whose destination rows are 64 KB or more apart or run through
        two dims, with sizes that are no multiple of the tiles or blocks, at three offsets of each
        side within a line (4: not even on the elements' own alignment for float64, then no
        kernel), and a backwards source: the bytes np.copyto and the NumPy path leave."""
        dt = np.dtype(dtype)
        rng = np.random.default_rng(17)
        last = 64 // dt.itemsize  # (64 bytes: the run-through planes' case for (2, 1, 0))
        shape = (last, 1027, _LARGE // (1027 * last * dt.itemsize) + 3) if perm == (2, 1, 0) else \
            (33, 211, _LARGE // (33 * 211 * dt.itemsize) + 5)
        base = _offset(shape, dt, so, rng)
        for source in (base.transpose(perm), base[::-1].transpose(perm)):
            assert source.nbytes >= _LARGE
            plain, stripped, compiled = _copies(source, do)
            assert compiled == plain
            assert stripped == plain

    def test_large_permutes_against_pytorch() -> None:
        """contiguous() of 3-d permutes past NT_MIN_BYTES of a tensor 16 bytes past a line (NumPy's
        large buffers): PyTorch's values and strides, and the NumPy path's bytes."""
        import torch

        rng = np.random.default_rng(23)
        for dtype, shape in (("float32", (64, 130, 272)), ("float64", (32, 130, 264))):
            base = _offset(shape, np.dtype(dtype), 16, rng)
            for perm in ((2, 0, 1), (2, 1, 0), (1, 2, 0)):
                t = torch.from_numpy(base.copy()).permute(*perm).contiguous()
                on = strided.from_numpy(base).permute(*perm).contiguous()
                with native.disabled():
                    off = strided.from_numpy(base).permute(*perm).contiguous()
                assert on.stride() == off.stride() == t.stride(), (dtype, perm)
                assert on.numpy().tobytes() == off.numpy().tobytes() == t.numpy().tobytes(), (dtype, perm)

    def test_streaming_size_edges_zero_size_and_0d() -> None:
        """Layouts just below and at NT_MIN_BYTES (the same bytes either side of the switch), a
        zero-size layout of the large shape's other dims and a 0-d copy: np.copyto's bytes."""
        rng = np.random.default_rng(29)
        dt = np.dtype("float32")
        for below in (1, 0):
            base = _offset((4096, _LARGE // (4 * 4096) - below), dt, 16, rng)
            plain, stripped, compiled = _copies(base.T, 16)
            assert compiled == plain == stripped
            cube = _offset((64, 256, _LARGE // (4 * 64 * 256) - below), dt, 16, rng)  # (rows 64 KB apart)
            plain, stripped, compiled = _copies(cube.transpose(2, 0, 1), 0)
            assert compiled == plain == stripped
        for source in (np.zeros((0, 512, 8192), dt).transpose(2, 0, 1), np.float32(3.5).reshape(())):
            plain, stripped, compiled = _copies(np.asarray(source), 16)
            assert compiled == plain == stripped

    @pytest.mark.parametrize("widen", [True, False])
    def test_apply2d_float64_streaming_stores(widen: bool) -> None:
        """The elementwise walk's float64 outputs past NT_MIN_BYTES (streaming stores): x.t() + y
        and x.t() / y with x float32 (read widened) or float64, into new memory and into an ``out=``
        16 bytes past a line, sizes no multiple of the blocks: NumPy's bits and the kernel-off
        path's; NaN payloads and signed zeros included."""
        rng = np.random.default_rng(31)
        n, m = 1031, 1029  # (8.1 MB of float64 output)
        x = rng.standard_normal((m, n)).astype("float32" if widen else "float64")
        x[3, :7] = np.nan
        x[5, 9] = -0.0
        y = rng.standard_normal((n, m))
        y[:4, 11] = np.nan
        sx, sy = strided.from_numpy(x), strided.from_numpy(y)
        for op, ref in ((strided.add, np.add), (strided.div, np.divide)):
            want = ref(x.T.astype("float64"), y)
            got = op(sx.t(), sy).numpy()
            with native.disabled():
                off = op(sx.t(), sy).numpy()
            assert got.tobytes() == want.tobytes() == off.tobytes()
            out = _offset((n, m), np.dtype("float64"), 16, rng)
            op(sx.t(), sy, out=strided.from_numpy(out))
            assert out.tobytes() == want.tobytes()
