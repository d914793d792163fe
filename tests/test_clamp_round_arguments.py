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
