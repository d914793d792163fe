"""clamp's and round's arguments as PyTorch reads them: clamp with number bounds writes out= of
exactly the result's dtype ("Found dtype Double but expected Float"; tensor bounds cast), two
number bounds one of which is NaN fill NaN before the other's conversion (float32.clamp(nan,
1e300) is NaN, not an overflow), and round's decimals= is an int, never a float, bool or None."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st

NAN = float("nan")


def _both(fn):
    out = []
    for lib in (st, torch):
        try:
            r = fn(lib)
            out.append(("ok", str(r.dtype).split(".")[-1], np.asarray(r.detach() if lib is torch else r).tobytes()))
        except (RuntimeError, TypeError) as e:
            out.append(("error", RuntimeError if isinstance(e, RuntimeError) else TypeError, str(e).splitlines()[0]))
    return out


CLAMP_OUT = {
    "int, float bounds, out float64": lambda lib: lib.clamp(lib.tensor([1, 2]), 0.5, 1.5, out=lib.empty(2, dtype=lib.float64)),
    "int, float bounds, out float32": lambda lib: lib.clamp(lib.tensor([1, 2]), 0.5, 1.5, out=lib.empty(2, dtype=lib.float32)),
    "float32, out float64": lambda lib: lib.clamp(lib.tensor([1.0, 2.0]), 0.0, 1.0, out=lib.empty(2, dtype=lib.float64)),
    "float32, min only, out float64": lambda lib: lib.clamp(lib.tensor([1.0, 2.0]), min=0.0, out=lib.empty(2, dtype=lib.float64)),
    "int, int bounds, out float32": lambda lib: lib.clamp(lib.tensor([1, 2]), 0, 1, out=lib.empty(2, dtype=lib.float32)),
    "tensor bounds, out float64": lambda lib: lib.clamp(lib.tensor([1.0, 2.0]), lib.tensor(0.0), lib.tensor(1.0),
                                                        out=lib.empty(2, dtype=lib.float64)),
}
NAN_BOUNDS = {
    "nan, 1e300": lambda lib: lib.tensor([1.0, 2.0]).clamp(NAN, 1e300),
    "-1e300, nan": lambda lib: lib.tensor([1.0, 2.0]).clamp(-1e300, NAN),
    "int input": lambda lib: lib.tensor([1, 2]).clamp(NAN, 1e300),
    "float16": lambda lib: lib.tensor([1.0, 2.0], dtype=lib.float16).clamp(NAN, 1e10),
    "in place": lambda lib: lib.tensor([1.0, 2.0]).clamp_(NAN, 1e300),
    "no NaN: still the overflow": lambda lib: lib.tensor([1.0, 2.0]).clamp(0.0, 1e300),
}
def _round_with(decimals):
    return lambda lib: lib.tensor([1.25, 2.5]).round(decimals=decimals)


ROUND = {name: _round_with(d)
         for name, d in [("0.0", 0.0), ("None", None), ("True", True), ("1.0", 1.0), ("np.int64", np.int64(1)), ("1", 1)]}
ROUND["round_ 1.0"] = lambda lib: lib.tensor([1.25]).round_(decimals=1.0)


@pytest.mark.parametrize("case", list(CLAMP_OUT) + list(NAN_BOUNDS) + list(ROUND))
def test_as_pytorch(case):
    fn = {**CLAMP_OUT, **NAN_BOUNDS, **ROUND}[case]
    ours, theirs = _both(fn)
    assert ours == theirs


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_compiled_clamp_of_number_bounds_is_torchs(dtype: str) -> None:
    """clamp / clamp_min / clamp_max of a row-major float tensor by number bounds (the compiled
    clamp_scalar pass): PyTorch's bits (a NaN input kept, a -0.0/0.0 tie keeping the input's zero,
    lo > hi giving hi, infinities), an offset slice; the kernels-off NumPy path gives the same
    values, and a NaN bound (refused by the kernel) NaN everywhere, as there."""
    from strided.kernels import native

    r = np.random.default_rng(3)
    big = r.choice([-2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, np.inf, -np.inf, np.nan], (2, 37, 41)).astype(dtype)
    bounds = [(0.0, None), (-0.0, None), (None, 0.0), (None, -0.0), (-1.0, 1.0), (0.0, 0.0), (1.0, -1.0),
              (0.5, None), (None, 2), (-np.inf, np.inf), (float("nan"), None), (None, float("nan")), (1e300, None),
              (0.1, 1 / 3), (-1 / 3, 0.7), (1e-45, None), (None, -3e-39), (-3.4028234663852886e38, 3.4028234663852886e38)]
    for arr in (big[0], big[1]):
        for lo, hi in bounds:
            if dtype == "float32" and lo == 1e300:
                continue  # (a float32 overflow: refused by the general path, tested elsewhere)
            s, t = st.tensor(big)[1] if arr is big[1] else st.tensor(arr), torch.from_numpy(arr.copy())
            calls = [(lambda L, x: L.clamp(x, lo, hi))]  # noqa: B023 - (called at once)
            if hi is None:
                calls.append(lambda L, x: L.clamp_min(x, lo))  # noqa: B023
            if lo is None:
                calls.append(lambda L, x: L.clamp_max(x, hi))  # noqa: B023
            for call in calls:
                got, want = call(st, s), call(torch, t)
                assert got.stride() == want.stride() and got.dtype.name == dtype
                assert got.numpy().tobytes() == want.numpy().tobytes()
                with native.disabled():
                    off = call(st, s).numpy()
                g = got.numpy()
                assert np.array_equal(np.isnan(g), np.isnan(off))
                assert np.where(np.isnan(g), 0, g).tobytes() == np.where(np.isnan(off), 0, off).tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_compiled_clamp_of_permuted_dense_inputs_is_torchs(dtype: str) -> None:
    """clamp of a permuted dense tensor by number bounds (the compiled pass over its storage in
    memory order): PyTorch's bits and strides, for a transpose, a 3-d permutation, one at a storage
    offset, and layouts the general path keeps (a size-1 dim, a stepped view)."""
    r = np.random.default_rng(4)
    base = r.choice([-2.5, -0.0, 0.0, 0.5, 1.0, np.inf, np.nan], (2, 6, 5, 4)).astype(dtype)
    sb, tb = st.tensor(base), torch.from_numpy(base.copy())
    views = [lambda b: b[0, :, :, 0].t(), lambda b: b[0].permute(2, 0, 1), lambda b: b[1].permute(1, 2, 0),
             lambda b: b[0, :, :1].permute(2, 1, 0), lambda b: b[0, ::2].permute(2, 1, 0)]
    for view in views:
        s, t = view(sb), view(tb)
        for lo, hi in [(0.0, None), (None, -0.0), (-1.0, 0.5), (float("nan"), None)]:
            got, want = st.clamp(s, lo, hi), torch.clamp(t, lo, hi)
            assert got.stride() == want.stride() and got.storage_offset() == 0
            assert got.numpy().tobytes() == want.numpy().tobytes()
