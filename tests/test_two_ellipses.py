"""Keys with more than one ``...``: strided refuses them with IndexError "an index can only have
a single ellipsis ('...')" for getitem and setitem, basic and advanced keys alike, writing
nothing. (PyTorch 2.13 accepts them, each ``...`` moving its dim cursor past the dims the other
indices leave, ``t[..., 0, ...]`` on a 3-d ``t`` being ``t[:, :, 0]``; NumPy refuses; strided's
choice is NumPy's, see tests/test_view_errors.py. The first check below fails if PyTorch changes.)"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided

E = Ellipsis


def test_torch_2_13_accepts_them():
    t = torch.arange(24.0).reshape(2, 3, 4)
    assert t[E, 0, E].shape == (2, 3) and t[True, E, E].shape == (1, 2, 3, 4)


def _keys(mod):
    return [(E, E), (0, E, E), (E, None, E), (E, 0, E), (E, E, E), (True, E, E), (E, slice(1, None), E),
            (E, mod.tensor([0, 1]), E), (E, [0, 2], E), (mod.tensor(1), E, E), (E, np.array([0]), E),
            (E, mod.tensor([[True, False, True, True]] * 3), E)]


@pytest.mark.parametrize("shape", [(2, 3, 4), (3,), (), (0, 4)])
@pytest.mark.parametrize("i", range(len(_keys(strided))))
def test_refused_for_getitem_and_setitem(shape, i):
    key = _keys(strided)[i]
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    t = strided.from_numpy(a.copy())
    with pytest.raises(IndexError, match=r"an index can only have a single ellipsis \('\.\.\.'\)"):
        t[key]
    with pytest.raises(IndexError, match=r"an index can only have a single ellipsis \('\.\.\.'\)"):
        t[key] = -1.0
    assert t.tolist() == a.tolist()  # (nothing written)
