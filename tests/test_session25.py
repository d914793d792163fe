"""Differences from PyTorch found by session 25's sweeps (argument checks and gradients at edge
values), each compared with PyTorch side by side."""
import pytest
import torch

import strided


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.logsumexp(x),
    lambda lib, x: x.logsumexp(),
    lambda lib, x: x.logsumexp(keepdim=True),
    lambda lib, x: lib.logsumexp(x, None),
])
def test_logsumexp_needs_its_dim_as_torch(call) -> None:
    with pytest.raises(TypeError) as theirs:
        call(torch, torch.ones(2, 3))
    with pytest.raises(TypeError) as ours:
        call(strided, strided.ones(2, 3))
    assert str(ours.value).splitlines()[0] == str(theirs.value)


def test_logsumexp_missing_dim_names_a_fix_that_works() -> None:
    x = strided.ones(2, 3)
    with pytest.raises(TypeError, match=r"fix: name the dims: strided.logsumexp\(x, dim=\(0, 1\)\)"):
        strided.logsumexp(x)
    assert strided.logsumexp(x, dim=(0, 1)).item() == pytest.approx(torch.logsumexp(torch.ones(2, 3), (0, 1)).item())
    assert strided.logsumexp(x, dim=()).item() == strided.logsumexp(x, dim=(0, 1)).item()
