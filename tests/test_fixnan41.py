"""angle's NaN words under each CPU capability (fixnan41).

PyTorch's real ``angle`` keeps a NaN's own word in its scalar function and writes ``quiet_NaN()`` in
its vectorized one; its kernel has no AVX512 build (``REGISTER_DISPATCH``), so under the AVX512
capability too a step is two 32-byte vectors (16 float32, 8 float64, 32 float16 elements), and under
``ATEN_CPU_CAPABILITY=default`` every element keeps its word. strided had taken the AVX512 width on
an AVX-512 machine (32 float32 / 16 float64 elements a step: the payloads of a row of 16..31 float32
kept where PyTorch quiets them). Each capability is a fresh process (PyTorch reads the variable once).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from capability_runs import no_bad_under

_U = {2: np.uint16, 4: np.uint32, 8: np.uint64}
_WORDS = {np.float32: 0x7FC12345, np.float64: 0x7FF8000000012345, np.float16: 0x7D01}


def _words(t) -> np.ndarray:
    a = np.ascontiguousarray(t.numpy())
    return a.view(_U[a.itemsize])


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16])
def test_angle_nan_rows_around_each_step(dt: type) -> None:
    """Rows of NaNs (one payload word) of every length 1..70, flat and as the rows of a 2-d tensor:
    each element's word (kept or quieted) is PyTorch's on this machine."""
    for n in range(1, 71):
        x = np.zeros(3 * n, dt)
        x.view(_U[x.itemsize])[::2] = _WORDS[dt]
        for s, t in ((strided.from_numpy(x[:n].copy()), torch.from_numpy(x[:n].copy())),
                     (strided.from_numpy(x.reshape(3, n).copy()), torch.from_numpy(x.reshape(3, n).copy())),
                     (strided.from_numpy(x.reshape(3, n).copy())[:, 1:], torch.from_numpy(x.reshape(3, n).copy())[:, 1:])):
            assert np.array_equal(_words(s.angle()), _words(t.angle())), (dt, n)


def test_angle_row_of_16_float32_is_quieted() -> None:
    """The case strided got wrong on AVX-512: one whole step of 16 float32 NaNs is vector lanes
    (quiet_NaN()) under AVX2 and AVX512 alike; a 17th element is the scalar tail (its word kept)."""
    x = np.full(17, 0x7FC12345, np.uint32).view(np.float32)
    want = torch.from_numpy(x.copy()).angle()
    got = strided.from_numpy(x.copy()).angle()
    assert np.array_equal(_words(got), _words(want))
    if torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512"):
        assert (_words(want)[:16] == 0x7FC00000).all() and _words(want)[16] == 0x7FC12345


_SCRIPT = """\
import numpy as np, torch, strided
U = {2: np.uint16, 4: np.uint32, 8: np.uint64}
W = {np.float32: 0x7FC12345, np.float64: 0x7FF8000000012345, np.float16: 0x7D01}
bad = 0
for dt in (np.float32, np.float64, np.float16):
    for n in range(1, 70):
        x = np.zeros(2 * n, dt)
        x.view(U[x.itemsize])[::3] = W[dt]
        a = np.ascontiguousarray(strided.from_numpy(x[:n].copy()).angle().numpy())
        b = np.ascontiguousarray(torch.from_numpy(x[:n].copy()).angle().numpy())
        bad += int((a.view(U[a.itemsize]) != b.view(U[b.itemsize])).sum())
print("BAD", bad, torch.backends.cpu.get_cpu_capability())
"""


@pytest.mark.parametrize("capability", ["avx2", "default"])
def test_angle_nan_words_under_capability(capability: str) -> None:
    """The AVX2 step and no vector lanes (ATEN_CPU_CAPABILITY=default), each in its own process."""
    no_bad_under(capability, _SCRIPT)
