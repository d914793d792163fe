"""Red-team tests for rand9 (the compiled bounded-integer draw behind random_/randint/randint_like):
the kernel path must give what NumPy's Generator.integers path gives, for every target the general
path accepts."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
from strided.kernels import native


def _unaligned_int64(shape: tuple) -> np.ndarray:
    n = int(np.prod(shape))
    arr = np.frombuffer(bytearray(8 * n + 1), dtype=np.int64, offset=1, count=n).reshape(shape)
    return arr


def _random_into_unaligned(shape: tuple, low: int, high: int, seed: int) -> tuple:
    strided.manual_seed(seed)
    arr = _unaligned_int64(shape)
    t = strided.from_numpy(arr)
    t.random_(low, high)
    return t.tolist(), arr.tolist(), strided.get_rng_state().tolist()


@settings(max_examples=40, deadline=None)
@given(shape=st.sampled_from([(0,), (0, 3), (1,), (7,), (3, 4), (2, 1, 3), (4097,)]),
       low=st.integers(-(2**62), 2**62), width=st.integers(1, 2**62 - 1), seed=st.integers(0, 2**32))
def test_random_int64_unaligned_from_numpy_target(shape: tuple, low: int, width: int, seed: int) -> None:
    # rand9: random_ of a row-major int64 target hands the target's run to the kernel, which refuses
    # an unaligned buffer (ValueError) where NumPy's copyto wrote the same draw in before
    assert _unaligned_int64(shape).ctypes.data % 8 == 1
    got = _random_into_unaligned(shape, low, low + width, seed)
    with native.disabled():
        expected = _random_into_unaligned(shape, low, low + width, seed)
    assert got == expected
    assert got[0] == got[1]
    assert all(low <= v < low + width for v in np.asarray(got[0]).reshape(-1).tolist())


def test_random_int64_unaligned_matches_numpy_draw() -> None:
    strided.manual_seed(0)
    arr = _unaligned_int64((5,))
    strided.from_numpy(arr).random_(-3, 3)
    g = np.random.Generator(np.random.PCG64(0))
    assert arr.tolist() == g.integers(-3, 2, size=5, dtype=np.int64, endpoint=True).tolist()
