"""Red-team tests for blas8's fast paths, each against PyTorch (and the general NumPy path)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided
from strided.ops.linalg import matkernel as MK
from strided.ops.reductions import sums

torch.set_num_threads(1)

_POS_NAN = np.array([0x7FF8000000000001], np.uint64).view(np.float64)[0]  # +NaN, payload 1
_NEG_NAN = np.array([0xFFF8000000000002], np.uint64).view(np.float64)[0]  # -NaN, payload 2


def _bits(a: np.ndarray) -> str:
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64).ravel().tolist().__repr__()


# trace's Python-float loop added the diagonal with Python's float +, whose NaN operand pick depends on
# the interpreter's state: the first calls in a process (the generic float add) returned the second
# NaN, later ones (the specialized add) the first -- PyTorch (and the NumPy path) return the first.
_COLD = """
import sys, numpy as np, strided
a = np.diag(np.array([np.array([0x7FF8000000000001], np.uint64).view(np.float64)[0],
                      np.array([0xFFF8000000000002], np.uint64).view(np.float64)[0]], sys.argv[1]))
out = [strided.from_numpy(a.copy()).trace().numpy() for _ in range(3)]
print([np.asarray(o).view(np.uint32 if o.dtype == np.float32 else np.uint64).item() for o in out])
"""


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_trace_nan_first_call_in_a_process_matches_torch(dtype):
    a = np.diag(np.array([_POS_NAN, _NEG_NAN], dtype))
    ref = torch.from_numpy(a.copy()).trace().numpy()
    want = np.asarray(ref).view(np.uint32 if dtype == "float32" else np.uint64).item()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    got = subprocess.run([sys.executable, "-c", _COLD, dtype], capture_output=True, text=True, env=env, check=True)
    assert got.stdout.strip() == repr([want] * 3)


@settings(max_examples=60, deadline=None)
@given(dtype=hs.sampled_from([np.float32, np.float64]),
       vals=hs.lists(hs.sampled_from([_POS_NAN, _NEG_NAN, 1.0, -0.0, np.inf, -np.inf]), min_size=1, max_size=6),
       fresh=hs.booleans())
def test_trace_nan_bits_match_numpy_path_and_torch(dtype, vals, fresh):
    a = np.diag(np.array(vals, dtype))
    t = strided.from_numpy(a.copy())
    mp = pytest.MonkeyPatch()
    if fresh:  # (a cold copy of the fast path's code: its first-call, unspecialized arithmetic)
        f = sums._trace_in_python
        cold = type(f)(f.__code__.replace(), f.__globals__, f.__name__, f.__defaults__, f.__closure__)
        with mp.context() as m:
            m.setattr(sums, "_trace_in_python", cold)
            fast = t.trace()
    else:
        fast = t.trace()
    with mp.context() as m:
        m.setattr(sums, "_trace_in_python", lambda x: None)
        MK.switch_off(m.setattr)  # (and the compiled short-diagonal sum)
        slow = t.trace()
    ref = torch.from_numpy(a.copy()).trace().numpy()
    assert _bits(fast.numpy()) == _bits(slow.numpy()) == _bits(ref)
