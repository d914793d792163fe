"""The NaN bits of amax / amin and of max() / min() over float32 / float64 against PyTorch 2.13:
amax/amin over every element or the last dim of a row-major tensor give quiet_NaN() (0x7fc00000 /
0x7ff8000000000000) whatever NaN the input holds; max()/min() over every element the NaN whose bits
are all ones in one parallel chunk, quiet_NaN() when cut into several."""

import numpy as np
import pytest

import strided as st

torch = pytest.importorskip("torch")
from torch_threads_assumed import torch_threads_as_assumed  # noqa: E402

PAYLOADS = {np.float32: (0x7FC00001, 0xFFC00002, 0x7FA00003, 0xFFFFFFFF),
            np.float64: (0x7FF8000000000001, 0xFFF8000000000002, 0x7FF4000000000003)}
UINT = {np.float32: np.uint32, np.float64: np.uint64}


def _bits(a: np.ndarray, dtype) -> bytes:
    return np.ascontiguousarray(a).view(UINT[dtype]).tobytes()


def _input(shape, dtype, payload, every, seed):
    x = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    x.reshape(-1)[::every] = np.array(payload, UINT[dtype]).view(dtype)
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("shape", "dims"), [((4,), [None, 0]), ((7,), [None]), ((33,), [None, 0]),
                                             ((1000,), [None]), ((4, 5), [None, 1, (0, 1)]),
                                             ((7, 40), [None, 1, -1]), ((40, 7), [None, 1]), ((3, 4, 50), [2, (0, 1, 2)]),
                                             ((70000,), [None]), ((300, 200), [None])])
@pytest.mark.parametrize("every", [3, 1000])
def test_nan_bits_of_amax_amin_max_min_are_torchs(dtype, shape, dims, every):
    for i, payload in enumerate(PAYLOADS[dtype]):
        x = _input(shape, dtype, payload, every, i)
        for permuted in (False, True):
            sx, tx, these = st.tensor(x), torch.from_numpy(x), dims
            if permuted and len(shape) > 1:  # (every element: any layout)
                these = [d for d in dims if d is None or d == tuple(range(len(shape)))]
                sx, tx = st.tensor(np.ascontiguousarray(x.T)).T, torch.from_numpy(np.ascontiguousarray(x.T)).T
            with torch_threads_as_assumed():
                for dim in these:
                    for op in ("amax", "amin"):
                        s = getattr(sx, op)() if dim is None else getattr(sx, op)(dim)
                        t = getattr(tx, op)() if dim is None else getattr(tx, op)(dim)
                        assert _bits(np.asarray(s), dtype) == _bits(t.numpy(), dtype), (op, dim, hex(payload))
                for op in ("max", "min"):
                    s, t = getattr(sx, op)(), getattr(tx, op)()
                    assert _bits(np.asarray(s), dtype) == _bits(t.numpy(), dtype), (op, hex(payload))
