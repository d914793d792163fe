"""torch.softmax / torch.log_softmax with out=: the result's dtype exactly (PyTorch's message
otherwise), a wrong-shaped out resized (PyTorch's warning), an out of other strides kept; against
PyTorch. (An input that requires grad: PyTorch records through out=, strided refuses as for every
out= op; not compared here.)"""

from __future__ import annotations

import warnings

import pytest
import torch

import strided as st


def outcome(lib, make):
    x = lib.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 1.0]])
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = make(lib, x)
        return ("ok", str(r.dtype).split(".")[1], tuple(r.shape), r.stride(), [round(v, 6) for v in r.flatten().tolist()],
                len(caught))
    except RuntimeError as e:
        return "RuntimeError", str(e).splitlines()[0]


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("case", ["same", "float64 out", "dtype and out", "resized", "transposed", "into x"])
def test_out_like_pytorch(name, case):
    def make(lib, x):
        f = getattr(lib, name)
        if case == "same":
            return f(x, 1, out=lib.empty(2, 3))
        if case == "float64 out":
            return f(x, 1, out=lib.empty(2, 3, dtype=lib.float64))
        if case == "dtype and out":
            return f(x, 0, dtype=lib.float64, out=lib.empty(2, 3, dtype=lib.float64))
        if case == "resized":
            return f(x, 1, out=lib.empty(5))
        if case == "transposed":
            return f(x, 1, out=lib.empty(3, 2).t())
        return f(x, 1, out=x)

    assert outcome(st, make) == outcome(torch, make)


def test_the_out_is_returned_and_written():
    x = st.tensor([[1.0, 2.0], [3.0, 5.0]])
    o = st.empty(2, 2)
    assert st.softmax(x, 1, out=o) is o
    assert o.tolist() == st.softmax(x, 1).tolist()
