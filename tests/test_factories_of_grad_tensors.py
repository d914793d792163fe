"""Factories given tensors, as PyTorch's parser and autograd read them: ``tensor(t)`` and
``tensor([t, ...])`` of tensors that require grad copy their values (no history, PyTorch's
warning for a tensor), ``linspace``/``logspace`` take 0-d bounds that require grad (no history),
a 0-d tensor without grad is a Number (``full``'s fill value: its dtype rules), and a tensor that
requires grad is not (``arange``, ``full``: TypeError)."""

from __future__ import annotations

import warnings

import pytest
import torch

import strided as st

CASES = {
    "tensor(t)": lambda lib: lib.tensor(lib.tensor([1.0, 2.0], requires_grad=True)),
    "tensor([t, u])": lambda lib: lib.tensor([lib.tensor(1.0, requires_grad=True), lib.tensor(2.0)]),
    "tensor([[t], [3.]])": lambda lib: lib.tensor([[lib.tensor(1.5, requires_grad=True)], [3.0]]),
    "linspace(0, t, 3)": lambda lib: lib.linspace(0, lib.tensor(1.0, requires_grad=True), 3),
    "logspace(t, 2, 3)": lambda lib: lib.logspace(lib.tensor(0.5, requires_grad=True), 2, 3),
    "full(int 0-d)": lambda lib: lib.full((2,), lib.tensor(3)),
    "full(bool 0-d)": lambda lib: lib.full((2,), lib.tensor(True)),
    "full(float64 0-d)": lambda lib: lib.full((2,), lib.tensor(1.5, dtype=lib.float64)),
    "new_full(0-d)": lambda lib: lib.ones(2, dtype=lib.int32).new_full((3,), lib.tensor(2)),
    "arange(0-d)": lambda lib: lib.arange(lib.tensor(3)),
}
REFUSED = {
    "arange(0, t)": lambda lib: lib.arange(0, lib.tensor(3.0, requires_grad=True)),
    "full(t)": lambda lib: lib.full((2,), lib.tensor(1.0, requires_grad=True)),
    "full(1-d)": lambda lib: lib.full((2,), lib.tensor([1.0])),
}


@pytest.mark.parametrize("case", list(CASES))
def test_factory_reads_the_values_as_pytorch(case):
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        got = CASES[case](st)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        want = CASES[case](torch)
    assert got.tolist() == want.tolist() and got.dtype.name == str(want.dtype).split(".")[1]
    assert got.requires_grad is want.requires_grad is False and got.grad_fn is None
    copy_warned = [any("To copy construct from a tensor" in str(w.message) for w in ws) for ws in (ours, theirs)]
    assert copy_warned[0] == copy_warned[1]


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_tensor_is_not_a_number_where_pytorch_refuses_it(case):
    with pytest.raises(TypeError):
        REFUSED[case](torch)
    with pytest.raises(TypeError, match="must be Number, not Tensor"):
        REFUSED[case](st)


def test_samplers_that_pytorch_differentiates_still_refuse():
    """bernoulli(p) of a p that requires grad has PyTorch's (zero) gradient, which strided lacks:
    refused, not a result without history."""
    with pytest.raises(NotImplementedError, match="not differentiable yet"):
        st.bernoulli(st.full((3,), 0.5, requires_grad=True))
    assert st.opdef.OPDEFS["tensor"].no_history and not st.opdef.OPDEFS["bernoulli"].no_history


def test_tensor_of_a_tensor_or_array_keeps_its_memory_order_as_pytorch():
    """tensor(x.t()), tensor(F-ordered array), new_tensor(x.t()): PyTorch's copy keeps the source's
    memory order (clone's preserve_format); a non-dense source is dense in its dims' order."""
    import numpy as np

    base = np.arange(120.0).reshape(4, 5, 6)
    sources = [base.transpose(2, 0, 1), np.asfortranarray(base), base[:, ::2], base.transpose(1, 2, 0)[::2], base[0].T]
    for a in sources:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for ours, theirs in [(st.tensor(a), torch.tensor(a)),
                                 (st.tensor(st.from_numpy(a)), torch.tensor(torch.from_numpy(a))),
                                 (st.ones(1).new_tensor(st.from_numpy(a)), torch.ones(1).new_tensor(torch.from_numpy(a))),
                                 (st.tensor(a, dtype=st.float32), torch.tensor(a, dtype=torch.float32))]:
                assert ours.stride() == theirs.stride() and ours.tolist() == theirs.tolist()
    with pytest.warns(UserWarning) as caught:
        st.ones(1).new_tensor(st.ones(2))
    assert len(caught) == 1  # (new_tensor's own warning, not tensor()'s as well)
