"""Red-team checks of the compiled copy kernel (kernels/_copykernel.c, kernels/native.py).

Each test here failed on the kernel as it first landed and pins the fix:

- ``complex64`` is 8 bytes with a 4-byte alignment, so NumPy calls an array at an address 4 past
  a multiple of 8 aligned and :func:`strided.kernels.native.takes` sends it to the kernel, whose
  element loops read and wrote it as ``uint64_t``: undefined behaviour in C (a compiler may
  use instructions that require the alignment). Caught by building the kernel with UBSan; the
  loops now move each element with a fixed-size ``memcpy`` (the same single move on x86-64).
- the compiled entry point's argument errors: a non-sequence said only ``TypeError: src_strides``;
  a sequence whose ``len()`` disagrees with its items was reported with the wrong count; a
  negative size after a zero one was accepted (the zero returned first); a negative address
  was read as one near 2**64 and 0 as NULL, without a word (the copy then crashes).

The sanitizer build needs a C compiler, Python's headers and the compiler's UBSan runtime (GCC's libubsan):
where one is missing the test is not collected (it could not run; the kernel itself is then
not built either, see tests/test_native_copies.py).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import struct
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import numpy as np
import pytest

from strided.kernels import native

_SOURCE = Path(__file__).resolve().parents[1] / "src" / "strided" / "kernels" / "_copykernel.c"
_CC = shutil.which("gcc") or shutil.which("cc")
_INCLUDE = sysconfig.get_paths()["include"]


def _has_ubsan(cc: str | None) -> bool:
    """Whether ``cc`` ships UBSan's runtime (GCC's libubsan; clang may lack its compiler-rt)."""
    if cc is None:
        return False
    found = subprocess.run([cc, "-print-file-name=libubsan.so"], capture_output=True, text=True).stdout.strip()
    return os.path.isabs(found) and os.path.exists(found)


_CAN_BUILD = _SOURCE.exists() and (Path(_INCLUDE) / "Python.h").exists() and _has_ubsan(_CC)

# Run in a fresh process against the UBSan build: misaligned complex64 layouts through every
# element loop of the kernel (the SSE plane with its edge lines, the plain plane, one line), each
# compared with np.copyto over the whole destination buffer.
_PROBE = r"""
import importlib.util, sys
import numpy as np
spec = importlib.util.spec_from_file_location("_copykernel", sys.argv[1])
k = importlib.util.module_from_spec(spec)
spec.loader.exec_module(k)

def at4(n):  # n complex64 at an address 4 past a multiple of 8 (NumPy: aligned)
    raw = np.zeros(8 * n + 16, np.uint8)
    off = (8 - raw.ctypes.data % 8) % 8 + 4
    a = raw[off:off + 8 * n].view(np.complex64)
    assert a.ctypes.data % 8 == 4 and a.flags.aligned
    a[...] = np.arange(n) * (1 + 2j)
    return raw, a

def addr(a):
    return a.__array_interface__["data"][0]

checked = 0
for rows, cols, step in ((9, 7, 1), (5, 3, 2), (1, 11, 1)):
    _, src = at4(rows * cols * step)
    s = src[::step].reshape(rows, cols).T  # (cols, rows), read across
    draw, d = at4(cols * rows)
    d = d.reshape(cols, rows)
    want = draw.copy()
    np.copyto(want[addr(d) - addr(draw):].view(np.uint8)[:d.nbytes].view(np.complex64).reshape(cols, rows), s)
    shape, dst, sst = [cols, rows], list(d.strides), list(s.strides)
    if rows == 1:  # one line along the destination
        shape, dst, sst = [cols], [d.strides[0]], [s.strides[0]]
    k.copy(addr(d), addr(s), 8, shape, dst, sst)
    assert draw.tobytes() == want.tobytes(), (rows, cols, step)
    checked += 1
print("checked", checked)
"""


_UBSAN_FLAGS = ["-shared", "-fPIC", "-O1", "-std=c99", "-fsanitize=undefined", "-fno-sanitize-recover=all",
                "-DSTRIDED_NO_AVX512_BLOCKS", f"-I{_INCLUDE}"]


def _build_cache() -> Path:
    """This user's folder of compiled test builds in the temp dir, made private (0700) and checked to
    be this user's own and writable by no one else: a build found there is loaded and run."""
    folder = Path(tempfile.gettempdir()) / f"strided-test-builds-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        raise RuntimeError(f"{folder} is not a private folder of this user's: remove it")
    return folder


@pytest.fixture(scope="module")
def ubsan_kernel() -> Path:
    """The kernel built with UBSan, every report fatal (not the installed build); without the
    AVX-512 blocks (registers moved by intrinsics, no element access for UBSan to check): they
    took half of the build's ~15 s, and the probe's misaligned complex64 goes through the SSE
    plane, the plain plane and one line, as on a machine without AVX-512F.

    Built once per source: the build (~9 s of compiler time) is kept in :func:`_build_cache` under
    the hash of everything it is made from (the source, the flags, the compiler binary, the
    Python it is for), so a later run with the same inputs loads the same build."""
    assert _CC is not None
    cc = Path(_CC).resolve()
    key = hashlib.sha256(repr((_SOURCE.read_bytes(), _UBSAN_FLAGS, str(cc), cc.stat().st_size, cc.stat().st_mtime_ns,
                               sys.version, sysconfig.get_config_var("EXT_SUFFIX"))).encode()).hexdigest()[:32]
    out = _build_cache() / f"_copykernel-ubsan-{key}{sysconfig.get_config_var('EXT_SUFFIX')}"
    if not out.exists():
        part = out.with_name(f"{out.name}.{os.getpid()}.part")  # (renamed when complete: no half build is found)
        subprocess.run([_CC, *_UBSAN_FLAGS, str(_SOURCE), "-o", str(part)], check=True, capture_output=True)
        os.replace(part, out)
    return out


if _CAN_BUILD:  # (see the module docstring)

    def test_misaligned_complex64_is_copied_without_undefined_behaviour(ubsan_kernel: Path) -> None:
        run = subprocess.run([sys.executable, "-c", _PROBE, str(ubsan_kernel)], capture_output=True, text=True,
                             env={**os.environ, "UBSAN_OPTIONS": "print_stacktrace=0"})
        assert "runtime error" not in run.stderr, run.stderr[-2000:]
        assert run.returncode == 0 and run.stdout.split() == ["checked", "3"], run.stderr[-2000:]


if native.kernel() is not None:  # (without the built kernel there is no entry point to call)

    class _Liar:
        """A sequence whose len() (2) disagrees with its items (5)."""

        def __len__(self) -> int:
            return 2

        def __getitem__(self, i: int) -> int:
            if i < 5:
                return 8
            raise IndexError(i)

    @pytest.mark.parametrize("args, error, text", [
        (([4], [8], None), TypeError, "copy: src_strides must be a sequence of ints, not NoneType"),
        ((7, [8], [8]), TypeError, "copy: shape must be a sequence of ints, not int"),
        (([4], [8.0], [8]), TypeError, r"copy: dst_strides\[0\] must be an int, not float"),
        (([_Liar()[0]], _Liar(), [8]), ValueError, "copy: dst_strides has 5 entries, the shape 1"),
        (([0, -1], [8, 8], [8, 8]), ValueError, "copy: negative dim size -1 at dim 1"),
        (([-2, 0], [8, 8], [8, 8]), ValueError, "copy: negative dim size -2 at dim 0"),
    ])
    def test_the_entry_point_says_what_is_wrong(args: tuple, error: type, text: str) -> None:
        a, d = np.arange(4.0), np.zeros(4)
        kernel = native.kernel()
        assert kernel is not None
        with pytest.raises(error, match=f"^{text}$"):
            kernel.copy(d.ctypes.data, a.ctypes.data, 8, *args)
        assert not d.any()  # nothing written

    @pytest.mark.parametrize("address, error, text", [
        (-8, ValueError, r"copy: an address must be an int from 1 to 2\*\*{bits} - 1, not -8"),
        (0, ValueError, r"copy: an address must be an int from 1 to 2\*\*{bits} - 1, not 0"),
        (2**64, ValueError, r"copy: an address must be an int from 1 to 2\*\*{bits} - 1, not 18446744073709551616"),
        (1.5, TypeError, "copy: an address must be an int, not float"),
    ])
    def test_the_entry_point_refuses_an_impossible_address(address: object, error: type, text: str) -> None:
        """(A zero-size copy: the kernel as it landed returned before touching the address.)"""
        kernel = native.kernel()
        assert kernel is not None
        text = text.replace("{bits}", str(8 * struct.calcsize("P")))
        ok = np.zeros(1).ctypes.data
        with pytest.raises(error, match=f"^{text}$"):
            kernel.copy(address, ok, 8, [0], [8], [8])
        with pytest.raises(error, match=f"^{text}$"):
            kernel.copy(ok, address, 8, [0], [8], [8])
