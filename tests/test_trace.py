"""``trace``: the op added to show that an op is one declaration (``ops/reductions/sums.py``),
compared with PyTorch: values on hard layouts and dtypes, the errors, the gradient to second
order, every spelling, and ``watch`` seeing it as one step."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from oracle_helpers import errors_agree, outcome

LAYOUTS = {
    "contiguous": lambda t: t,
    "transposed": lambda t: t.t(),
    "sliced": lambda t: t[::2, 1:],
    "expanded": lambda t: t[:1].expand(4, t.shape[1]),
    "empty": lambda t: t[:0],
}
DTYPES = ["float32", "float64", "int32", "uint8", "int64", "float16", "complex64"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_trace_values_and_dtype_as_torch(layout, dtype):
    data = (np.arange(20).reshape(4, 5) * 7 % 11).astype(np.float64)
    mine = LAYOUTS[layout](st.tensor(data, dtype=getattr(st, dtype))).trace()
    theirs = LAYOUTS[layout](torch.tensor(data, dtype=getattr(torch, dtype))).trace()
    assert mine.shape == tuple(theirs.shape) == ()
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert mine.item() == theirs.item()


@pytest.mark.parametrize("shape", [(3,), (2, 2, 2), ()])
def test_trace_of_no_matrix_raises_torchs_error(shape):
    assert errors_agree(outcome(lambda: torch.ones(shape).trace())[1], outcome(lambda: st.ones(shape).trace())[1])


def test_trace_of_bool_raises_torchs_error():
    assert errors_agree(outcome(lambda: torch.ones(2, 2, dtype=torch.bool).trace())[1],
                        outcome(lambda: st.ones(2, 2, dtype=st.bool).trace())[1])


@pytest.mark.parametrize("spell", ["method", "function", "imported"])
def test_trace_gradients_to_second_order_as_torch(spell):
    from strided import trace as imported  # bound before any requires_grad: still records

    calls = {"method": lambda lib, x: x.trace(), "function": lambda lib, x: lib.trace(x),
             "imported": lambda lib, x: (imported if lib is st else torch.trace)(x)}
    data = np.arange(12.0).reshape(3, 4) / 7
    out = []
    for lib in (st, torch):
        x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        y = calls[spell](lib, x.t() * x.t())  # a permuted input inside the graph
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        out.append((type(y.grad_fn).__name__ if lib is torch else y.grad_fn.name(), g.tolist(), gg.tolist()))
    assert out[0][1:] == out[1][1:]
    assert out[0][0] == "TraceBackward0"


def test_trace_is_one_step_in_watch():
    x = st.arange(9.0).reshape(3, 3)
    with st.watch() as w:
        x.trace()
    assert [(s.name, s.kind, s.bytes_allocated) for s in w.steps] == [("trace", "compute", 4)]
