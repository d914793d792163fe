"""``clamp`` with complex bounds against torch 2.13: a floating tensor reads a Python complex
bound as a double (``1+0j`` clamps at 1.0, in the tensor's dtype; ``1j`` is torch's RuntimeError
"value cannot be converted to type double without overflow"); ``clamp_min``/``clamp_max`` and
every non-floating input refuse a complex bound (NotImplementedError), but an in-place clamp of
a non-floating tensor first refuses the promotion itself (RuntimeError, not the
NotImplementedError subclass). ``fill_`` with a complex value: torch's value or error per dtype.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from oracle_helpers import case

_DTYPES = ["float32", "float64", "float16", "int64", "uint8", "bool"]

_CALLS = {
    "clamp(1+0j)": lambda x: x.clamp(1 + 0j),
    "clamp(1j)": lambda x: x.clamp(1j),
    "clamp(max=2+0j)": lambda x: x.clamp(max=2 + 0j),
    "clamp(0.5, 2+0j)": lambda x: x.clamp(0.5, 2 + 0j),
    "clamp(np.complex128(1))": lambda x: x.clamp(np.complex128(1)),
    "clamp(-0j, 1-2j)": lambda x: x.clamp(-0j, 1 - 2j),
    "clip(1+0j)": lambda x: x.clip(1 + 0j),
    "clamp_(1+0j)": lambda x: x.clone().clamp_(1 + 0j),
    "clamp_(1j)": lambda x: x.clone().clamp_(1j),
    "clip_(max=2+0j)": lambda x: x.clone().clip_(max=2 + 0j),
    "clamp_min(1+0j)": lambda x: x.clamp_min(1 + 0j),
    "clamp_max(1+0j)": lambda x: x.clamp_max(1 + 0j),
    "fill_(1+2j)": lambda x: x.clone().fill_(1 + 2j),
    "fill_(1+0j)": lambda x: x.clone().fill_(1 + 0j),
    "fill_(-0j)": lambda x: x.clone().fill_(-0.0 + 0j),
}

def _outcome(fn, x):
    try:
        return fn(x)
    except (RuntimeError, TypeError) as e:
        return e


@pytest.mark.parametrize("call", list(_CALLS))
def test_complex_bounds_and_fills_as_torch(call):
    for dtype in _DTYPES:
        with case(dtype=dtype):
            _complex_bounds_and_fills_as_torch(dtype, call)


def _complex_bounds_and_fills_as_torch(dtype: str, call: str) -> None:
    a = np.array([-0.0, 0.0, 1.0, 3.0, np.nan] if dtype.startswith("float") else [0, 1, 3]).astype(dtype)
    fn = _CALLS[call]
    ref = _outcome(fn, torch.tensor(a))
    got = _outcome(fn, strided.tensor(a))
    if isinstance(ref, Exception):
        assert isinstance(got, Exception), got
        # the same class, and NotImplementedError exactly where torch's is (it subclasses RuntimeError)
        assert isinstance(got, type(ref)), (got, ref)
        assert isinstance(got, NotImplementedError) == isinstance(ref, NotImplementedError), (got, ref)
        assert str(ref).split("\n")[0].split(" type ")[0] in str(got)
        return
    assert not isinstance(got, Exception), got
    assert str(got.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    assert got.shape == tuple(ref.shape)
    assert got.numpy().tobytes() == ref.numpy().tobytes()
