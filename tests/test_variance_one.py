"""The compiled float32 variance of one whole run (``variance_one``, kernels/_variance_one.h) behind
``var``/``std`` over every element of a large float32 tensor.

It fuses strided.kernels.reduce.variance_parts' NumPy steps (the float32 pairwise mean, float64
deviations squared and pairwise-summed, divided, rooted, rounded once), so its result must be
those steps' bits at every run length around NumPy's blocks and splits, in each compiled copy
(baseline and AVX2), NaN and infinities included; and strided's var/std must stay PyTorch's bits,
contiguous or transposed, kernel or not.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native, rows

_KERNEL = rows._kernel_module()
needs_kernel = pytest.mark.skipif(_KERNEL is None or not hasattr(_KERNEL, "variance_one"),
                                  reason="no C compiler here (test_native_rows.test_the_kernel_is_built)")

# (run in a subprocess per compiled copy: STRIDED_NATIVE_ROWS_ISA is read at import)
_SCRIPT = """
import warnings
import numpy as np
from strided.kernels import rows
from strided.kernels.reduce import variance_parts
warnings.simplefilter("ignore")
k = rows._kernel_module()
rng = np.random.default_rng(3)
lengths = [*range(1, 300), *range(8180, 8200), 65535, 65536, 100003, 1 << 20, (1 << 20) + 24]
checked = 0
for n in lengths:
    for kind in range(4):
        if kind == 0:
            x = (rng.standard_normal(n) * 10.0 ** rng.integers(-4, 5, n)).astype(np.float32)
        elif kind == 1:
            x = (rng.standard_normal(n) * 1e3 + 5e4).astype(np.float32)
        elif kind == 2:
            x = rng.random(n).astype(np.float32) ** 7
        else:
            x = rng.standard_normal(n).astype(np.float32)
            x[rng.integers(0, n, 2)] = rng.choice([np.nan, np.inf, -np.inf], 2)
        for root in (False, True):
            for denominator in (float(max(n - 1, 0)), float(n)):
                want, _ = variance_parts(x, None, np.dtype(np.float32), n, np.float64(denominator), root)
                got = k.variance_one(x, denominator, root)
                assert np.float32(got).tobytes() == want.reshape(-1)[0].tobytes(), (n, kind, root, got, want)
                checked += 1
print(checked)
"""


@needs_kernel
@pytest.mark.parametrize("isa", ["base", "avx2"])
def test_each_copy_gives_variance_parts_bits_at_every_length(isa: str) -> None:
    env = dict(os.environ, STRIDED_NATIVE_ROWS_ISA=isa)
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", _SCRIPT], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.strip()) > 5000


@needs_kernel
def test_what_the_kernel_does_not_take_is_none() -> None:
    k = _KERNEL.variance_one
    assert k(np.empty(0, np.float32), 1.0, False) is None
    assert k(np.ones(10, np.float64), 1.0, False) is None
    raw = np.zeros(4 * 100 + 1, np.uint8)
    odd = np.frombuffer(raw.data, np.float32, 100, offset=1)  # (an odd address: NumPy's steps)
    assert k(odd, 99.0, False) is None
    with pytest.raises(ValueError):
        k(np.ones((4, 5), np.float32).T, 19.0, False)  # (not C-contiguous: the caller never passes it)
    with pytest.raises(TypeError):
        k(np.ones(4, np.float32), 3.0)


def _unaligned(values: np.ndarray) -> np.ndarray:
    buf = np.zeros(values.nbytes + 1, np.uint8)
    a = np.frombuffer(buf.data, dtype=values.dtype, count=values.size, offset=1)
    a[...] = values
    return a


@needs_kernel
@pytest.mark.parametrize("op", ["var", "std"])
def test_whole_float32_var_std_stay_torchs_bits_and_take_the_kernel(op: str, torch_threads_as_assumed: None,
                                                                       room_in_the_dense_memo: None,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(8)
    calls = []
    real = rows.variance_one

    def counted():
        calls.append(1)
        return real()

    monkeypatch.setattr(rows, "variance_one", counted)
    for shape, perm in [((1024, 1024), None), ((1024, 1024), (1, 0)), ((300, 301), (1, 0)), ((20000,), None),
                        ((5, 40, 60), (2, 0, 1)), ((3, 4000), None)]:
        a = (rng.standard_normal(shape) * rng.choice([1, 1e3]) + rng.choice([0, 5])).astype(np.float32)
        ta, sa = torch.from_numpy(a), strided.from_numpy(a)
        if perm is not None:
            ta, sa = ta.permute(*perm), sa.permute(*perm)
        for kw in ({}, {"keepdim": True}):
            want = getattr(ta, op)(**kw)
            before = len(calls)
            got = getattr(sa, op)(**kw)
            assert len(calls) > before, (shape, perm)
            with native.disabled():
                plain = getattr(sa, op)(**kw)
            assert got.shape == tuple(want.shape) == plain.shape
            assert got.numpy().tobytes() == want.numpy().tobytes() == plain.numpy().tobytes(), (shape, perm, kw)
    # an unaligned buffer: the kernel refuses it, NumPy's steps give the same bits
    a = rng.standard_normal(50000).astype(np.float32)
    got = getattr(strided.from_numpy(_unaligned(a)), op)()
    assert got.numpy().tobytes() == getattr(torch.from_numpy(a), op)().numpy().tobytes()
