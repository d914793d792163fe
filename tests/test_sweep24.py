"""Mismatches with PyTorch found by session 24's sweep of every registry op on odd shapes and
layouts (bits, strides, dtypes and error classes against PyTorch's), each pinned here."""

from __future__ import annotations

import numpy as np
import pytest

import strided as S

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("rcond", ["1", None, 1j, "list", "tensor1d"])
def test_pinverse_rcond_is_a_double(rcond: object) -> None:
    """torch.pinverse's rcond is a double: a tensor with dims, a string, None or a complex is a
    TypeError (strided broadcast a 1-d tensor as linalg.pinv's batch of cut-offs)."""
    a = np.random.default_rng(0).random((3, 4), dtype=np.float32)
    args = {"tensor1d": (S.from_numpy(np.array([0.1, 0.2])), torch.tensor([0.1, 0.2])),
            "list": ([0.1], [0.1])}.get(rcond, (rcond, rcond))  # type: ignore[call-overload]
    with pytest.raises(TypeError) as t_err:
        torch.pinverse(torch.from_numpy(a), rcond=args[1])
    with pytest.raises(TypeError) as s_err:
        S.pinverse(S.from_numpy(a), rcond=args[0])
    assert str(s_err.value).splitlines()[0] == str(t_err.value).splitlines()[0]
    with pytest.raises(TypeError):
        S.from_numpy(a).pinverse(args[0])


@pytest.mark.parametrize("rcond", [True, 1, np.float32(0.3), np.int64(1), 0.05, "tensor0d"])
def test_pinverse_rcond_numbers_as_pytorch(rcond: object) -> None:
    """Every number PyTorch takes for rcond gives its cut-off (a 0-d tensor: its value)."""
    a = np.random.default_rng(1).random((4, 3)).astype(np.float32)
    a[:, 2] = a[:, 0] * 0.9 + 1e-3 * a[:, 1]  # (a small singular value the cut-offs tell apart)
    s_r, t_r = (S.tensor(0.2), torch.tensor(0.2)) if rcond == "tensor0d" else (rcond, rcond)
    got = S.pinverse(S.from_numpy(a), s_r).numpy()
    want = torch.pinverse(torch.from_numpy(a), t_r).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
