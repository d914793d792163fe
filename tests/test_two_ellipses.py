"""Keys with several ``...``: PyTorch 2.13 takes them (each moves its cursor past the dims the
other indices leave), for getitem and setitem, basic and advanced; differential against torch:
shape, strides, offset and values, or the IndexError class where torch raises."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided

E = Ellipsis


def _keys(mod):
    return [
        (E, E), (0, E, E), (E, None, E), (E, 0, E), (E, 0, E, 1), (E, E, E), (0, E, 1, E), (E, E, 0), (1, E, E, 2),
        (0, 0, 0, E, E), (0, 0, 0, 0, E, E), (E, 0, 0, E, 0), (True, E, E), (E, slice(1, None), E), (E, None, E, None),
        (E, -1, E), (False, E, E),
        (E, mod.tensor([0, 1]), E), (E, mod.tensor([[True, False, True, True]] * 3), E),
        (E, [0, 2], E), (mod.tensor(1), E, E), (E, mod.tensor([1, 0]), E, mod.tensor([1, 0])),
    ]


def _outcome(t, key):
    try:
        r = t[key]
    except IndexError:
        return "IndexError"
    return tuple(r.shape), tuple(r.stride()), np.asarray(r.tolist()).tolist()


@pytest.mark.parametrize("shape", [(2, 3, 4), (3,), (), (0, 4), (2, 1, 3, 4)])
@pytest.mark.parametrize("i", range(len(_keys(torch))))
def test_getitem(shape, i):
    kt, ks = _keys(torch)[i], _keys(strided)[i]
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    want = _outcome(torch.from_numpy(a.copy()), kt)
    got = _outcome(strided.from_numpy(a.copy()), ks)
    assert got == want


@pytest.mark.parametrize("shape", [(2, 3, 4), (3,), ()])
@pytest.mark.parametrize("i", range(len(_keys(torch))))
def test_setitem(shape, i):
    kt, ks = _keys(torch)[i], _keys(strided)[i]
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    res = []
    for mod, key in ((torch, kt), (strided, ks)):
        t = mod.from_numpy(a.copy())
        try:
            t[key] = -1.0
        except IndexError:
            res.append("IndexError")
            continue
        res.append(np.asarray(t.tolist()).tolist())
    assert res[1] == res[0]


def test_torch_2_13_accepts_them():
    # (strided follows PyTorch's reading; this fails first if a later PyTorch refuses them)
    t = torch.arange(24.0).reshape(2, 3, 4)
    assert t[E, 0, E].shape == (2, 3) and t[True, E, E].shape == (1, 2, 3, 4)


def test_negative_step_with_two_ellipses_is_numpy_reversal():
    # (PyTorch has no negative steps; strided reads the key as PyTorch does, the first ... moving
    # past two dims, then takes NumPy's reversal of the last)
    a = np.arange(24.0).reshape(2, 3, 4)
    got = strided.from_numpy(a.copy())[E, slice(None, None, -1), E]
    assert got.tolist() == a[:, :, ::-1].tolist() and got.stride() == (12, 4, -1)
    assert torch.arange(24.0).reshape(2, 3, 4)[E, 1:, E].shape == (2, 3, 3)


def test_view_offset_matches():
    t, s = torch.arange(24.0).reshape(2, 3, 4), strided.arange(24.0).reshape(2, 3, 4)
    for key in [(0, E, 1, E), (E, 2, E), (1, E, E, 3)]:
        try:
            rt = t[key]
        except IndexError:
            continue
        rs = s[key]
        assert rs.storage_offset() == rt.storage_offset() and rs.stride() == rt.stride()
        assert rs.untyped_storage().data_ptr() == s.untyped_storage().data_ptr()  # (a view, as torch's)
