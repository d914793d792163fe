"""Zero-copy exchange with NumPy and PyTorch: DLPack both ways, ``as_tensor`` and ``asarray``.

Every round trip checks shared memory by writing through one side and reading the other, over
the hard layouts (permuted, stepped, expanded, size-1 dims with odd strides, zero-size, 0-d;
negative steps where the peer has them: NumPy). The error cases compare with PyTorch where it
has the same call (class and first line), else check strided's text names the fix.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import build_numpy, build_strided, build_torch, specs
from oracle_helpers import same_error
from strided.creation import borrow_array  # (any strides: from_numpy refuses negative ones, as PyTorch)
from strided.interop import as_tensor, asarray, from_dlpack
from strided.layout import Layout

SETTINGS = settings(max_examples=40, deadline=None)


def _moving(shape: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, ...]:
    """The strides of the dims that step (size > 1): the only ones a consumer must keep (PyTorch
    and NumPy give size-0/1 dims any stride); none for an empty tensor."""
    if 0 in shape:
        return ()
    return tuple(s for n, s in zip(shape, strides) if n > 1)


def _first_distinct(shape: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, ...] | None:
    """An index whose element no other index shares (a stride-0 dim held at 0 counts once),
    None when the tensor is empty."""
    if 0 in shape:
        return None
    return tuple(0 for _ in shape)


def _check_shared(ours: st.Tensor, theirs: Any, index: tuple[int, ...] | None) -> None:
    """A write through ``theirs`` shows in ``ours``, and one through ``ours`` shows in ``theirs``."""
    if index is None:
        return
    before = ours[index].item()
    theirs[index] = 1000
    assert ours[index].item() == 1000
    ours[index] = -7
    assert theirs[index].item() == -7
    ours[index] = before


# =========================================================================== export


@given(spec=specs(max_dims=4))
@SETTINGS
def test_export_shares_memory_with_torch_and_numpy(spec):
    """``torch.from_dlpack``, ``torch.as_tensor``, ``torch.asarray`` and ``np.from_dlpack`` of a
    strided tensor: same shape, values and stepping strides, and the same memory."""
    s = build_strided(spec)
    idx = _first_distinct(spec.shape, spec.strides)
    for consumer in (torch.from_dlpack, torch.as_tensor, torch.asarray):
        r = consumer(s)
        assert tuple(r.shape) == spec.shape and r.dtype == torch.int64
        assert _moving(spec.shape, r.stride()) == _moving(spec.shape, spec.strides)
        assert r.tolist() == s.tolist()
        _check_shared(s, r, idx)
    a = np.from_dlpack(s)
    assert a.shape == spec.shape and a.dtype == np.int64 and a.flags.writeable
    assert _moving(spec.shape, tuple(b // 8 for b in a.strides)) == _moving(spec.shape, spec.strides)
    _check_shared(s, a, idx)
    if idx is not None:  # the consumers hold memory strided may no longer move
        assert not s.untyped_storage().resizable()


def test_torch_tensor_of_a_strided_tensor_copies():
    """``torch.tensor(t)`` copies, as it does for a NumPy array; the others share."""
    s = st.arange(6.0).reshape(2, 3).t()
    r = torch.tensor(s)
    r[0, 0] = 50.0
    assert s[0, 0].item() == 0.0 and r.tolist() == [[50.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert torch.as_tensor(s).data_ptr() == s.data_ptr() == torch.asarray(s).data_ptr()


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
                                   "float64", "uint16", "uint32", "uint64", "complex64", "complex128"])
def test_export_every_dtype(dtype):
    s = st.zeros(3, 2, dtype=dtype).t()
    r = torch.from_dlpack(s)
    assert str(r.dtype) == "torch." + dtype and r.stride() == (1, 2) and r.data_ptr() == s.data_ptr()
    assert np.from_dlpack(s).dtype == np.dtype(dtype)


@pytest.mark.parametrize("make", [
    lambda: st.tensor(3.5),                                     # 0-d
    lambda: st.zeros(0, 3),                                     # zero-size
    lambda: st.zeros(2, 0, 4).permute(2, 0, 1),                 # zero-size, permuted
    lambda: st.arange(3.0).expand(4, 3),                        # expanded (stride 0)
    lambda: st.arange(24.0).reshape(2, 3, 4)[1:, ::2, 1::3],    # offset and steps
    lambda: st.arange(6.0).reshape(2, 3)[0].unsqueeze(0),       # size-1 dim
    lambda: st.tensor([1 + 2j, 3 + 4j]).imag,                   # a typed alias: float32 inside complex64
])
def test_export_hard_layouts(make):
    s = make()
    for r in (torch.from_dlpack(s), np.from_dlpack(s)):
        assert tuple(r.shape) == s.shape and r.tolist() == s.tolist()
    if s.numel():
        assert torch.from_dlpack(s).data_ptr() == s.data_ptr()


def test_export_negative_strides_refused_with_the_fix():
    """PyTorch 2.13 aborts the process on a negative-stride DLPack tensor: strided refuses to
    export one (BufferError naming .contiguous() and copy=True); a copy is exported on request."""
    n = borrow_array(np.arange(6.0).reshape(2, 3)[:, ::-1], "from_numpy")
    with pytest.raises(BufferError) as info:
        n.__dlpack__(max_version=(1, 0))
    text = str(info.value)
    assert isinstance(info.value, st.StridedError)
    assert text.startswith("Cannot export a tensor with negative strides through DLPack")
    assert "dim 1 (stride -1)" in text and ".contiguous()" in text and "copy=True" in text
    # (only now that export is known to refuse may torch see it: otherwise it would abort)
    for consumer in (torch.from_dlpack, torch.as_tensor, np.from_dlpack):
        with pytest.raises(BufferError, match="negative strides"):
            consumer(n)
    with st.record_copies() as copies:
        r = torch.from_dlpack(n, copy=True)
    assert r.tolist() == n.tolist() and r.data_ptr() != n.data_ptr()
    assert [(c.nbytes, c.reason) for c in copies] == [(48, "__dlpack__(copy=True): the DLPack consumer asked for a copy")]
    assert torch.from_dlpack(n.contiguous()).tolist() == [[2.0, 1.0, 0.0], [5.0, 4.0, 3.0]]


def test_export_negative_stride_on_a_dim_that_does_not_step():
    """A negative stride on a size-1 dim, or in an empty tensor, steps nowhere: exported."""
    a = np.arange(6.0).reshape(2, 3)[::-1][:1]  # shape (1, 3), strides (-3, 1)
    s = borrow_array(a, "from_numpy")
    assert s.stride()[0] < 0
    assert torch.from_dlpack(s).tolist() == [[3.0, 4.0, 5.0]]
    e = borrow_array(np.arange(6.0)[::-1][:0], "from_numpy")
    assert torch.from_dlpack(e).shape == (0,)


def test_export_read_only_only_to_dlpack_1():
    """A read-only tensor reaches a DLPack 1.0 consumer as a writable copy (R3-23: consumers may
    ignore the read-only flag; NumPy's read-only view is np.asarray's); a DLPack 0.x consumer is
    refused with NumPy's first line; copy=True exports a writable copy."""
    a = np.arange(4.0)
    a.flags.writeable = False
    s = st.from_numpy(a)
    exported = np.from_dlpack(s)
    assert exported.flags.writeable and not np.shares_memory(exported, a) and exported.tolist() == a.tolist()
    assert not np.asarray(s).flags.writeable and np.shares_memory(np.asarray(s), a)
    with pytest.raises(BufferError) as theirs:
        a.__dlpack__()
    with pytest.raises(BufferError) as ours:
        s.__dlpack__()
    assert str(ours.value).splitlines()[0] == str(theirs.value)
    assert "max_version=(1, 0)" in str(ours.value) and "t.clone()" in str(ours.value)
    assert np.from_dlpack(s, copy=True).flags.writeable


def test_export_device_and_stream_errors():
    s = st.zeros(3)
    assert s.__dlpack_device__() == np.zeros(3).__dlpack_device__() == (1, 0)
    with pytest.raises(BufferError, match="unsupported device requested") as info:
        s.__dlpack__(dl_device=(2, 0))
    assert "(1, 0)" in str(info.value)
    assert s.__dlpack__(dl_device=(1, 0), max_version=(1, 0)) is not None
    with pytest.raises(RuntimeError, match="only supports stream=None") as info:
        s.__dlpack__(stream=5)
    assert isinstance(info.value, st.StridedError)
    assert s.__dlpack__(stream=-1) is not None


# =========================================================================== import


@given(spec=specs(max_dims=4))
@SETTINGS
def test_import_from_torch_shares_memory(spec):
    """``from_dlpack`` of a torch tensor: its shape, stepping strides, offset and memory."""
    x = build_torch(spec)
    s = from_dlpack(x)
    assert s.shape == tuple(x.shape) and s.dtype is st.int64 and s.tolist() == x.tolist()
    assert _moving(spec.shape, s.stride()) == _moving(spec.shape, x.stride())
    if x.numel():
        assert s.data_ptr() == x.data_ptr()
    _check_shared(s, x, _first_distinct(spec.shape, spec.strides))
    # and back: strided -> torch -> strided is the same memory
    if x.numel():
        assert from_dlpack(torch.from_dlpack(s)).data_ptr() == s.data_ptr()


@given(spec=specs(max_dims=4, negative=True))
@SETTINGS
def test_import_from_numpy_any_strides(spec):
    """``from_dlpack``, ``as_tensor`` and ``asarray`` of a NumPy array, negative steps included:
    its layout and memory (as_tensor and asarray refuse a negative stride, as PyTorch's: ValueError)."""
    a = build_numpy(spec)
    for make in (from_dlpack, as_tensor, asarray):
        if make is not from_dlpack and any(x < 0 for x in a.strides):
            with pytest.raises(ValueError, match="negative"):
                make(a)
            continue
        s = make(a)
        assert s.shape == a.shape and s.dtype is st.int64 and s.tolist() == a.tolist()
        assert _moving(spec.shape, s.stride()) == _moving(spec.shape, tuple(b // 8 for b in a.strides))
        _check_shared(s, a, _first_distinct(spec.shape, spec.strides))


def test_import_read_only_numpy_refuses_writes():
    a = np.arange(4.0)
    a.flags.writeable = False
    for make in (from_dlpack, as_tensor, asarray, lambda x: asarray(x, copy=False)):
        s = make(a)
        assert np.shares_memory(s.numpy(), a)
        for write, args in ((s.__setitem__, (0, 5.0)), (s.add_, (1,)), (s.fill_, (0,))):
            with pytest.raises(RuntimeError, match="read-only") as info:
                write(*args)
            assert "t.clone()" in str(info.value)
        assert a.tolist() == [0.0, 1.0, 2.0, 3.0]
    c = asarray(a, copy=True)
    c[0] = 9.0
    assert a[0] == 0.0 and c[0].item() == 9.0


def test_import_unsupported_dtype():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (torch: "ComplexHalf support is experimental")
        x = torch.zeros(3, dtype=torch.complex32)
    with pytest.raises(TypeError) as info:
        from_dlpack(x)
    text = str(info.value)
    assert isinstance(info.value, st.StridedError)
    assert "torch.complex32" in text and "x.float()" in text and "complex32" in text
    with pytest.raises(TypeError, match="complex32"):
        as_tensor(x)


class _OnDevice:
    """A DLPack producer on a device the CPU cannot read (what a CUDA tensor reports)."""

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, 1)

    def __dlpack__(self, **kwargs: Any) -> Any:
        raise AssertionError("strided must refuse before asking for the capsule")


def test_import_non_cpu_device():
    with pytest.raises(BufferError) as info:
        from_dlpack(_OnDevice())
    text = str(info.value)
    assert "(2, 1) (CUDA)" in text and ".cpu()" in text and isinstance(info.value, st.StridedError)
    with pytest.raises(RuntimeError, match="cuda"):
        from_dlpack(torch.zeros(2), device="cuda")
    with pytest.raises(TypeError, match="__dlpack__"):
        from_dlpack([1, 2])


def test_import_passes_the_producers_own_refusal():
    with pytest.raises(BufferError, match="detach"):
        from_dlpack(torch.zeros(2, requires_grad=True))


def test_from_dlpack_copy_and_strided_input():
    x = torch.arange(6.0).reshape(2, 3).t()
    with st.record_copies() as copies:
        c = from_dlpack(x, copy=True)
    assert c.tolist() == x.tolist() and c.stride() == (1, 3) and c.data_ptr() != x.data_ptr()
    assert [r.nbytes for r in copies] == [24] and copies[0].reason.startswith("from_dlpack(copy=True)")
    s = st.arange(4.0)
    v = from_dlpack(s)
    assert v is not s and v.data_ptr() == s.data_ptr() and st.shares_memory(v, s)
    assert from_dlpack(s, copy=True).data_ptr() != s.data_ptr()


# =========================================================================== as_tensor / asarray vs torch

_SOURCES = {
    "ndarray": lambda lib: np.arange(6.0).reshape(2, 3)[:, ::2],
    "tensor": lambda lib: (torch if lib is torch else st).arange(6.0).reshape(2, 3).t(),
    "torch tensor": lambda lib: torch.arange(6.0).reshape(3, 2)[1:],
    "list": lambda lib: [[1.0, 2.0], [3.0, 4.0]],
    "int": lambda lib: 3,
    "np scalar": lambda lib: np.float64(2.5),
    "bytearray": lambda lib: bytearray(range(8)),
    "memoryview": lambda lib: memoryview(bytearray(range(8))),
}


# Note: torch.asarray(np.float64(2.5), dtype=torch.float32, copy=True) raises "can't alias tensor
# with dtype 'Double' into dtype 'Float'." though copy=True asks for new memory (and copy=None
# converts); strided converts, as for every other source.
_TORCH_QUIRKS = {("np scalar", dtype, True) for dtype in ("float32", "uint8")}


def _memory(x: Any) -> int | None:
    """The address of ``x``'s first element, or None for data without memory of its own."""
    if isinstance(x, (torch.Tensor, st.Tensor)):
        return x.data_ptr()
    if isinstance(x, np.ndarray):
        return x.__array_interface__["data"][0]
    if isinstance(x, (bytearray, memoryview)):
        return np.frombuffer(x, np.uint8).__array_interface__["data"][0]
    return None


def _outcome(lib: Any, fn: str, source: str, dtype: Any, copy: Any) -> tuple[Any, Any]:
    data = _SOURCES[source](lib)
    kwargs: dict[str, Any] = {} if dtype is None else {"dtype": getattr(lib, dtype)}
    if fn == "asarray":
        kwargs["copy"] = copy
    call = {torch: getattr(torch, fn), st: {"as_tensor": as_tensor, "asarray": asarray}[fn]}[lib]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = call(data, **kwargs)
    except Exception as err:  # noqa: BLE001 - the outcome is compared
        return None, err
    return (r, _memory(data)), None


@pytest.mark.parametrize("fn", ["as_tensor", "asarray"])
@pytest.mark.parametrize("source", list(_SOURCES))
def test_as_tensor_and_asarray_share_as_torch_does(fn, source):
    """Same dtype, shape, strides, values, and the same answer to "does it share memory?" (or the
    same error class and first line) as torch.as_tensor / torch.asarray, over every dtype and
    copy argument."""
    copies = [None, True, False] if fn == "asarray" else [None]
    for dtype in (None, "float64", "float32", "uint8"):
        for copy in copies:
            theirs, t_err = _outcome(torch, fn, source, dtype, copy)
            ours, s_err = _outcome(st, fn, source, dtype, copy)
            where = (fn, source, dtype, copy)
            if where[1:] in _TORCH_QUIRKS:
                assert s_err is None and t_err is not None, where
                continue
            if t_err is not None:
                assert s_err is not None, (where, t_err)
                assert isinstance(s_err, st.StridedError) and isinstance(s_err, type(t_err)), (where, s_err)
                assert str(s_err).splitlines()[0] == str(t_err).splitlines()[0].rstrip(), where
                continue
            assert s_err is None, (where, s_err)
            (t, t_mem), (s, s_mem) = theirs, ours
            assert str(t.dtype).removeprefix("torch.") == s.dtype.name, where
            assert tuple(t.shape) == s.shape and t.tolist() == s.tolist(), where
            assert _moving(s.shape, t.stride()) == _moving(s.shape, s.stride()), where
            t_shares = t_mem is not None and t.numel() > 0 and t.data_ptr() == t_mem
            s_shares = s_mem is not None and s.numel() > 0 and s.data_ptr() == s_mem
            assert s_shares == t_shares, where


def test_as_tensor_returns_the_tensor_itself():
    s = st.arange(3.0)
    assert as_tensor(s) is s and asarray(s) is s and as_tensor(s, st.float32) is s
    assert asarray(s, dtype="float32", copy=False) is s


def test_conversions_and_copies_are_in_the_ledger():
    a = np.arange(6.0).reshape(2, 3).T  # float64, column-major
    with st.record_copies() as copies:
        f = asarray(a, dtype=st.float32)
        c = asarray(a, copy=True)
        g = as_tensor(a, dtype=st.float32)
    assert [r.reason for r in copies] == [
        "asarray: float64 data asked for as dtype=float32",
        "asarray(copy=True): asked for a copy",
        "as_tensor: float64 data asked for as dtype=float32",
    ]
    assert [r.nbytes for r in copies] == [24, 48, 24]
    assert f.stride() == c.stride() == g.stride() == (1, 3)  # preserve format, as torch's .to()
    assert f.tolist() == a.tolist() and c.data_ptr() != _memory(a)


def test_asarray_copy_false_errors_name_the_fix():
    text = same_error(lambda: torch.asarray(np.arange(3.0), dtype=torch.float32, copy=False),
                      lambda: asarray(np.arange(3.0), dtype=st.float32, copy=False))
    assert "asarray(x, dtype=float32)" in text
    text = same_error(lambda: torch.asarray([1, 2], copy=False), lambda: asarray([1, 2], copy=False))
    assert "copy=None" in text
    with pytest.raises(RuntimeError) as theirs:
        torch.asarray(np.int64(1), copy=False)
    with pytest.raises(RuntimeError) as ours:
        asarray(np.int64(1), copy=False)
    assert str(ours.value).splitlines()[0] == str(theirs.value).rstrip()  # (PyTorch's ends in a space)
    text = same_error(lambda: torch.asarray(bytearray(7)), lambda: asarray(bytearray(7)))
    assert "dtype=strided.uint8" in text


def test_asarray_buffers_share_and_bytes_are_read_only():
    buf = bytearray(8)
    t = asarray(buf, dtype=st.int32)
    t[1] = -1
    assert buf[4:] == b"\xff\xff\xff\xff"
    r = asarray(b"\x01\x00\x00\x00", dtype=st.int32)
    assert r.tolist() == [1]
    with pytest.raises(RuntimeError, match="read-only"):
        r[0] = 2


def test_byte_swapped_and_device():
    """A byte-swapped array is converted into a new tensor (# Note: PyTorch refuses it); only
    copy=False, which cannot convert, gets PyTorch's error."""
    a = np.arange(3, dtype=">f8")
    for got in (as_tensor(a), asarray(a), asarray(a, copy=True), asarray(a, dtype=st.float32)):
        assert got.tolist() == [0.0, 1.0, 2.0] and got.data_ptr() != _memory(a)
    assert as_tensor(a).dtype is st.float64
    same_error(lambda: torch.asarray(a, copy=False), lambda: asarray(a, copy=False))
    with pytest.raises(RuntimeError, match="cuda"):
        asarray(np.arange(3.0), device="cuda")
    assert asarray(np.arange(3.0), device="cpu").dtype is st.float64


def test_numpy_asarray_copy_false_refuses_a_conversion():
    t = st.arange(4.0)
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        np.asarray(t, dtype=np.float64, copy=False)
    assert np.shares_memory(np.asarray(t, copy=False), t.numpy())


def test_layout_built_view_exports_its_offset():
    """A view built straight from a Layout (offset 5 into the storage) exports from that element."""
    root = st.arange(20)
    v = root._view(Layout((2, 3), (6, 2), 5))
    r = torch.from_dlpack(v)
    assert r.tolist() == [[5, 7, 9], [11, 13, 15]] and r.data_ptr() == root.data_ptr() + 5 * 8


@given(hs.sampled_from(["float32", "int16", "complex64", "bool"]))
@settings(max_examples=8, deadline=None)
def test_round_trip_dtypes(dtype):
    s = st.ones(2, 3, dtype=dtype)[:, 1:]
    back = from_dlpack(torch.from_dlpack(s))
    assert back.dtype is s.dtype and back.data_ptr() == s.data_ptr() and back.stride() == s.stride()


class _ArrayLike:
    """An object NumPy reads through ``__array__`` only (as pandas and xarray objects)."""

    def __init__(self, base: np.ndarray) -> None:
        self.base = base

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.base


def test_array_protocol_objects_are_shared():
    """# Note: PyTorch cannot read these ("Could not infer dtype"); strided shares NumPy's view."""
    base = np.arange(4.0)
    for make in (as_tensor, asarray):
        t = make(_ArrayLike(base))
        t[0] = 8.0
        assert base[0] == 8.0
    with pytest.raises(RuntimeError, match="Could not infer dtype"):
        torch.as_tensor(_ArrayLike(base))


def test_shared_memory_outlives_the_producer():
    """The import keeps the producer's memory alive (the capsule's owner), and so does the export."""
    s = from_dlpack(torch.arange(1000.0)[::3])
    torch.ones(1000)  # (memory a freed producer would hand out again)
    assert s[-1].item() == 999.0
    t = st.arange(1000.0)[::7]
    r = torch.from_dlpack(t)
    del t
    st.ones(1000)
    assert r[-1].item() == 994.0
