"""``strided.lerp(..., out=)`` (PyTorch's ``torch.lerp(input, end, weight, *, out=None)``): the
values, dtype rules, resize of an empty ``out``, and the refusals, side by side with torch."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided


def _pair(a: np.ndarray) -> tuple[strided.Tensor, torch.Tensor]:
    return strided.tensor(a), torch.from_numpy(a.copy())


@pytest.mark.parametrize("weight", [0.3, 0.7, "tensor"])
def test_lerp_out_matches_torch(weight: object) -> None:
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal((4, 5)).astype(np.float32) for _ in range(2))
    (sa, ta), (sb, tb) = _pair(a), _pair(b)
    if weight == "tensor":
        w = rng.uniform(0, 1, (4, 5)).astype(np.float32)
        sw, tw = _pair(w)
    else:
        sw = tw = weight
    for shape in ((4, 5), (0,)):  # (an empty out is resized, as PyTorch's)
        so, to = strided.empty(*shape), torch.empty(*shape)
        got = strided.lerp(sa, sb, sw, out=so)
        want = torch.lerp(ta, tb, tw, out=to)
        assert got is so and got.shape == tuple(want.shape) and got.stride() == want.stride()
        assert so.numpy().tobytes() == to.numpy().tobytes()


def test_lerp_out_refusals_match_torch() -> None:
    sa, ta = _pair(np.ones((2, 3), np.float32))
    # an integer out cannot hold the float result
    with pytest.raises(RuntimeError) as theirs:
        torch.lerp(ta, ta, 0.5, out=torch.empty(2, 3, dtype=torch.int64))
    with pytest.raises(RuntimeError) as ours:
        strided.lerp(sa, sa, 0.5, out=strided.empty(2, 3, dtype=strided.int64))
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]
    # out= with an input that requires grad
    sg, tg = strided.ones(2, 3, requires_grad=True), torch.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError) as theirs:
        torch.lerp(tg, ta, 0.5, out=torch.empty(2, 3))
    with pytest.raises(RuntimeError) as ours:
        strided.lerp(sg, sa, 0.5, out=strided.empty(2, 3))
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]
