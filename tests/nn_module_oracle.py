"""Helpers of the strided.nn module tests: the same module in torch and strided, loaded from one
state dict, and their outputs and gradients compared."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import strided as st
import strided.nn as nn

TOL = {"float32": (2e-5, 2e-6), "float64": (1e-12, 1e-12)}
DTYPES = {"float32": (torch.float32, st.float32), "float64": (torch.float64, st.float64)}
_RNG = [np.random.default_rng(0)]  # (the inputs' generator, renewed by ``seeded`` for each test)


@pytest.fixture(autouse=True)
def seeded() -> None:
    """Every test draws the same weights (torch's), samples (strided's) and inputs on every run,
    whatever ran before it (a test module imports this fixture to use it)."""
    torch.manual_seed(0)
    st.manual_seed(0)
    _RNG[0] = np.random.default_rng(0)


def rng() -> np.random.Generator:
    return _RNG[0]


def floats(*shape: int, dtype: str = "float32", transposed: bool = False) -> np.ndarray:
    """Normal draws of ``shape``; ``transposed``: the same shape over a buffer laid out in the
    reverse order (a non-contiguous array)."""
    if transposed:
        return rng().standard_normal(shape[::-1]).astype(dtype).T
    return rng().standard_normal(shape).astype(dtype)


def both(name: str, *args: Any, dtype: str = "float32", **kwargs: Any) -> tuple[torch.nn.Module, Any]:
    """``torch.nn.<name>(*args)`` and ``strided.nn.<name>(*args)`` in ``dtype``, the strided one
    loaded from the torch one's state dict; their reprs agree."""
    t = getattr(torch.nn, name)(*args, **kwargs).to(DTYPES[dtype][0])
    s = getattr(nn, name)(*args, **kwargs).to(DTYPES[dtype][1])
    assert repr(s) == repr(t)
    load_from(s, t)
    return t, s


def to_st(t: torch.Tensor) -> st.Tensor:
    """A strided copy of a torch tensor (its values, dtype and shape)."""
    return st.from_numpy(t.detach().numpy().copy())


def load_from(smod: Any, tmod: torch.nn.Module) -> None:
    """Give the strided module the torch module's state dict (after checking the names, order and
    shapes agree)."""
    tsd, ssd = tmod.state_dict(), smod.state_dict()
    assert list(ssd) == list(tsd)
    for k in tsd:
        assert ssd[k].shape == tuple(tsd[k].shape), k
        assert ssd[k].dtype.name == str(tsd[k].dtype).removeprefix("torch."), k
    assert repr(smod.load_state_dict({k: to_st(v) for k, v in tsd.items()})) == "<All keys matched successfully>"


def close(s: Any, t: Any, dtype: str) -> None:
    assert isinstance(s, st.Tensor), s
    assert s.shape == tuple(t.shape) and s.dtype.name == str(t.dtype).removeprefix("torch.")
    rtol, atol = TOL.get(dtype, (0, 0))
    np.testing.assert_allclose(s.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


def forward_backward(smod: Any, tmod: torch.nn.Module, inputs: list[np.ndarray], dtype: str,
                     grad_inputs: bool = True) -> None:
    """Forward both modules on the same inputs (floats need grad when ``grad_inputs``), compare the
    outputs, backpropagate the same random output gradient, compare every parameter's gradient
    and the inputs' gradients."""
    tins = [torch.from_numpy(a.copy()) for a in inputs]
    sins = [st.from_numpy(a.copy()) for a in inputs]
    for t, s in zip(tins, sins):
        if grad_inputs and t.is_floating_point():
            t.requires_grad_()
            s.requires_grad_()
    tout, sout = tmod(*tins), smod(*sins)
    if isinstance(tout, tuple):
        tout, sout = tout[0], sout[0]
    close(sout, tout, dtype)
    if not tout.requires_grad:
        return
    g = np.random.default_rng(0).standard_normal(tuple(tout.shape)).astype(str(tout.dtype).removeprefix("torch."))
    (tout * torch.from_numpy(g)).sum().backward()
    (sout * st.from_numpy(g)).sum().backward()
    sparams = dict(smod.named_parameters())
    for name, tp in tmod.named_parameters():
        if tp.grad is None:
            assert sparams[name].grad is None, name
        else:
            close(sparams[name].grad, tp.grad, dtype)
    for t, s in zip(tins, sins):
        if t.requires_grad:
            close(s.grad, t.grad, dtype)
