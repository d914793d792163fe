"""``Tensor.__array_interface__`` (issue 14, zero-copy exchange): NumPy's interface dict of the
tensor's own memory, read by ``np.asarray(t)`` before ``__array__``.

Shared memory is checked by writing through one side and reading the other, on every hard layout
(permuted, stepped, negative steps, expanded, zero-size, 0-d); a read-only tensor gives a
read-only array; reading the interface pins the storage as ``numpy()`` does.
"""

from __future__ import annotations

import ctypes
import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layout_strategies import specs
from layouts import build_strided
from strided.interop.array_interface import _LENT


@given(spec=specs(max_dims=4, negative=True), dtype=hs.sampled_from(["float32", "int16", "complex64", "bool"]))
@settings(max_examples=60, deadline=None)
def test_interface_is_numpys_view_of_the_layout(spec, dtype):
    """The dict is what NumPy gives for the same layout; np.asarray(t) shares memory both ways."""
    t = st.from_numpy(np.zeros(spec.storage_size, dtype))._view(build_strided(spec)._layout)
    memory = np.zeros(spec.storage_size, dtype)
    ref = np.lib.stride_tricks.as_strided(memory[spec.offset:], spec.shape,
                                          tuple(s * memory.itemsize for s in spec.strides))
    got = t.__array_interface__
    want = ref.__array_interface__
    assert {k: got[k] for k in ("shape", "typestr", "descr", "version")} == \
        {k: want[k] for k in ("shape", "typestr", "descr", "version")}
    own = tuple(s * ref.itemsize for s in spec.strides)
    assert got["strides"] == (None if ref.flags.c_contiguous else own)
    assert got["version"] == 3 and got["data"][1] is False
    a = np.asarray(t)
    assert a.shape == t.shape and (a.strides == own or ref.flags.c_contiguous)
    assert a.base is t  # NumPy's array keeps the tensor (and so its memory) alive
    if t.numel():
        assert got["data"][0] == t.data_ptr()
        index = tuple(n - 1 for n in t.shape)
        value = np.ones((), dtype).item()
        a[index] = value  # write through NumPy, read through strided
        assert t[index].item() == value
        t[index] = 0  # and back
        assert a[index] == 0
    assert not t.untyped_storage().resizable()


def test_layouts_named_in_the_issue_share_memory():
    base = st.arange(24.0, dtype=st.float64)
    cases = {
        "non-contiguous": base.view(2, 3, 4).permute(2, 0, 1)[:, ::2],
        "negative-stride": base.view(4, 6)._view(base.view(4, 6)._layout.__class__((4, 3), (-6, 2), 18)),
        "expanded": st.arange(3.0, dtype=st.float64).expand(4, 3),
        "zero-size": base.view(4, 6)[:, 2:2],
        "0-d": base[5],
    }
    for name, t in cases.items():
        a = np.asarray(t)
        assert np.shares_memory(a, t.numpy()) or t.numel() == 0, name
        assert a.tolist() == t.tolist(), name
        assert a.strides == tuple(s * 8 for s in t.stride()) or a.flags.c_contiguous, name
    neg = cases["negative-stride"]
    np.asarray(neg)[0, 0] = -1.0
    assert base[18].item() == -1.0 and neg.stride() == (-6, 2)
    exp = np.asarray(cases["expanded"])
    assert exp.strides == (0, 8) and exp.flags.writeable  # NumPy keeps stride 0, as t.numpy() does
    zero = cases["0-d"].__array_interface__
    assert zero["shape"] == () and zero["strides"] is None and zero["data"][0] == base.data_ptr() + 40


def test_read_only_tensor_gives_a_read_only_array():
    source = np.arange(6.0)
    source.flags.writeable = False
    t = st.from_numpy(source).view(2, 3).t()
    assert t.__array_interface__["data"][1] is True
    a = np.asarray(t)
    assert not a.flags.writeable and np.shares_memory(a, source)
    with pytest.raises(ValueError, match="read-only"):
        a[0, 0] = 1.0


def test_dtype_conversion_is_numpys_copy_and_copy_false_is_numpys_error():
    t = st.arange(6.0, dtype=st.float32)[::2]
    with st.record_copies() as copies:
        b = np.asarray(t, dtype=np.float64)
        c = np.array(t)
    assert copies == []  # NumPy's own copies: the ledger sees strided's copies only
    assert b.dtype == np.float64 and not np.shares_memory(b, t.numpy()) and not np.shares_memory(c, t.numpy())
    with pytest.raises(ValueError, match="Unable to avoid copy while creating an array as requested"):
        np.asarray(t, dtype=np.float64, copy=False)
    same = np.asarray(t, dtype=np.float32, copy=False)
    assert np.shares_memory(same, t.numpy())


def test_reading_the_interface_pins_the_storage_and_set_keeps_it_alive():
    t = st.arange(1000.0)
    assert t.__array_interface__["version"] == 3
    with pytest.raises(st.StridedError, match="Tensor.__array_interface__"):
        t.resize_(2000)
    t.resize_(10)  # within the buffer: allowed
    t = st.arange(1000.0)
    a = np.asarray(t)
    t.set_(st.ones(3))  # the array still points at the first storage: it must outlive set_
    gc.collect()
    filler = [st.full((1000,), 7.0) for _ in range(8)]
    assert a[:3].tolist() == [0.0, 1.0, 2.0] and a[-1] == 999.0 and len(filler) == 8
    key = id(t)
    np.asarray(t), np.asarray(t)
    assert len(_LENT[key]) == 2  # the first storage and the one set_ gave, each held once
    del a, t
    gc.collect()
    assert key not in _LENT


def test_a_raw_reader_finds_every_element_at_its_address():
    """What a reader without NumPy does (numba, a C extension): element i sits at data[0] +
    sum(i[d] * strides[d]) bytes (C strides when strides is None); read it there with ctypes."""
    base = st.arange(24.0, dtype=st.float64)
    grid = base.view(4, 6)
    cases = [grid.t()[::2, 1:], grid._view(grid._layout.__class__((4, 3), (-6, 2), 18)),
             st.arange(3.0, dtype=st.float64).expand(2, 3), base[7], grid]
    for t in cases:
        face = t.__array_interface__
        assert face["typestr"] == "<f8"
        strides = face["strides"] or tuple(8 * int(np.prod(t.shape[d + 1:])) for d in range(t.ndim))
        for index in np.ndindex(*t.shape):
            address = face["data"][0] + sum(i * s for i, s in zip(index, strides))
            assert ctypes.c_double.from_address(address).value == t[index].item(), (t.stride(), index)
