"""Typed aliases (``view_as_real``, ``real``/``imag``, ``view(dtype)``) found by the storage's class:
a plain Storage is its own root without the weak-key look-up; aliases of aliases still resolve to
the owner, share its bytes, and report one untyped storage, as PyTorch's views do."""

from __future__ import annotations

import numpy as np
import torch

import strided
from strided.dispatch import _typed_alias, shares_storage, storage_root


def test_view_as_real_chain_shares_one_root() -> None:
    data = np.array([[1 + 2j, -3.5 - 0.25j], [0j, 7 - 1j]], dtype=np.complex64)
    c = strided.tensor(data)
    tc = torch.tensor(data)
    r = strided.view_as_real(c)
    back = strided.view_as_complex(r)
    again = strided.view_as_real(back)
    tr = torch.view_as_real(tc)
    tagain = torch.view_as_real(torch.view_as_complex(tr))
    assert r.stride() == tr.stride() and again.stride() == tagain.stride()
    assert again.numpy().tobytes() == tagain.numpy().tobytes()
    # one owner for every alias, and the aliases are the same objects per (root, dtype)
    root = storage_root(c._storage)
    assert root is c._storage
    assert storage_root(r._storage) is root and storage_root(again._storage) is root
    assert again._storage is r._storage and back._storage is c._storage
    assert _typed_alias(r._storage, strided.complex64) is root
    assert shares_storage(c, again) and shares_storage(r, back)
    assert (r.untyped_storage().data_ptr() == c.untyped_storage().data_ptr()) == (
        tr.untyped_storage().data_ptr() == tc.untyped_storage().data_ptr())
    # writes through the alias of an alias land in the owner's bytes
    again[0, 1, 0] = 9.0
    tagain[0, 1, 0] = 9.0
    assert c.numpy().tobytes() == tc.numpy().tobytes()


def test_plain_storage_is_its_own_root_and_alias_of_own_dtype() -> None:
    t = strided.arange(6, dtype=strided.float64)
    assert storage_root(t._storage) is t._storage
    assert _typed_alias(t._storage, strided.float64) is t._storage
    v = t.view(strided.int64)
    assert storage_root(v._storage) is t._storage
    assert v.view(strided.float64)._storage is t._storage
    tt = torch.arange(6, dtype=torch.float64)
    assert v.numpy().tobytes() == tt.view(torch.int64).numpy().tobytes()
