"""What NumPy hands back to strided's protocols, as strided's: views in another dtype
(``np.real``/``np.imag`` of complex tensors), the fallback's fresh results reported to the
ledger, its documented return types, and NumPy's in-place functions behind strided's write checks.

Oracles: PyTorch's ``real``/``imag`` on the same layout (strides, offset), NumPy on the same
memory (values, dtype), and strided's own ``Tensor.real``/``imag`` (the same typed alias).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import build_valued, specs
from oracle_helpers import op_records
from strided.interop.numpy_results import Results, view_in


def _complex_storage(n: int, dtype: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)


@settings(max_examples=60, deadline=None)
@given(spec=specs(negative=True), dtype=hs.sampled_from(["complex64", "complex128"]),
       part=hs.sampled_from(["real", "imag"]), seed=hs.integers(0, 9))
def test_real_imag_of_complex_are_strided_views_like_pytorchs(spec, dtype, part, seed):
    tt, a, s = build_valued(spec, _complex_storage(spec.storage_size, dtype, seed))
    fn = getattr(np, part)
    with op_records() as records, st.record_copies() as copies:
        got = fn(s)
    want = fn(a)
    assert isinstance(got, st.Tensor)
    assert got.shape == want.shape and got.numpy().dtype == want.dtype
    np.testing.assert_array_equal(got.numpy(), want)
    assert st.dispatch.shares_storage(got, s) and got.base is s.base
    assert not copies and [(r.name, r.kind) for r in records] == [(f"np.{part}", "view")]
    if a.size:  # the same layout as Tensor.real/imag, and PyTorch's
        own = getattr(s, part)
        assert (got.stride(), got.storage_offset()) == (own.stride(), own.storage_offset())
        assert got._storage is own._storage  # one typed alias per (storage, dtype)
        if tt is not None:
            ref = getattr(torch, part)(tt)
            assert (got.stride(), got.storage_offset()) == (ref.stride(), ref.storage_offset())


@pytest.mark.parametrize("dtype", [st.complex64, st.complex128])
def test_writes_through_np_imag_land_in_the_complex_tensor(dtype):
    c = st.tensor([[1 + 2j, 3 - 4j, 5 + 6j], [7 + 8j, 9 - 1j, 2 + 3j]], dtype=dtype).T[::2]  # non-contiguous
    im = np.imag(c)
    im.fill_(0.5)
    np.testing.assert_array_equal(c.numpy().imag, np.full((2, 2), 0.5))
    np.testing.assert_array_equal(c.numpy().real, [[1, 7], [5, 2]])
    z = st.tensor(1 - 3j, dtype=dtype)  # 0-d
    r = np.real(z)
    assert r.shape == () and r.storage_offset() == 0 and r.item() == 1.0
    assert np.imag(z).storage_offset() == 1 and np.imag(z).item() == -3.0


def test_zero_size_views_are_views():
    e = st.zeros(2, 0, dtype=st.complex128)
    im = np.imag(e)
    assert im.shape == (2, 0) and im.dtype == st.float64
    assert st.dispatch.shares_storage(im, e) and im.storage_offset() == 1
    # NumPy's may_share_memory says False for empty arrays; the base chain says whose they are
    with st.record_copies() as copies:
        v = np.transpose(st.zeros(0, 3))
    assert not copies and v.shape == (3, 0) and v.base is not None


def test_real_of_a_real_tensor_is_a_view_and_imag_new_zeros():
    t = st.arange(6.0).reshape(2, 3)[:, ::2]
    r = np.real(t)
    assert st.dispatch.shares_storage(r, t) and r.stride() == t.stride()
    with op_records() as records:
        i = np.imag(t)
    assert not st.dispatch.shares_storage(i, t) and i.numpy().tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert [(r.name, r.kind) for r in records] == [("np.imag", "compute")]
    i[0, 0] = 1.0  # NumPy's zeros are read-only; the tensor's are its own


def test_a_view_strided_cannot_express_stays_numpys_and_pins_the_storage():
    t = st.zeros(4, dtype=st.int32)
    odd = t._np().view(np.uint8)[1:5].view(np.int32)  # starts one byte in: not a whole int32
    assert view_in(odd, t, "np.x") is None
    made = Results([t], "np.x", "copy")
    assert made.convert(odd) is odd
    assert t._storage._pinned is None
    made.pin_leaks(odd, "np.x(...)")
    assert t._storage._pinned is not None
    with pytest.raises(st.errors.StridedError, match="np.x"):
        t.resize_(100)
    u = st.zeros(3)
    Results([u], "np.y", "copy").pin_leaks((1, True, np.float64(2.0), "s"), "np.y(...)")
    assert u._storage._pinned is None  # numbers and strings read no memory


def test_fallback_returns_tensors_and_reports_each_new_buffer():
    t = st.tensor([[3.0, 1.0, 2.0], [0.5, 9.0, -1.0]]).T  # non-contiguous
    a = t.numpy()
    with st.record_copies() as copies, op_records() as records:
        got = np.sort(t, axis=0)
    assert isinstance(got, st.Tensor) and got.dtype == st.float32
    np.testing.assert_array_equal(got.numpy(), np.sort(a, axis=0))
    assert len(copies) == 1 and copies[0].nbytes == 24
    assert copies[0].reason.startswith("np.sort: NumPy's result is new memory") and "24 bytes" in copies[0].reason
    assert [(r.name, r.kind) for r in records] == [("np.sort", "copy")]
    u = st.tensor([3, 1, 3, 3])
    with st.record_copies() as copies:  # several new arrays: one record, all their bytes
        vals, counts = np.unique(u, return_counts=True)
    assert vals.tolist() == [1, 3] and counts.tolist() == [1, 3]
    assert len(copies) == 1 and copies[0].nbytes == 32


def test_linalg_fallback_is_compute_and_keeps_named_tuples():
    m = st.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=st.float64)
    with st.record_copies() as copies, op_records() as records:
        inv = np.linalg.inv(m)
        u, s, vh = svd = np.linalg.svd(m)
    assert not copies
    assert [r.name for r in records] == ["np.linalg.inv"] + ["np.linalg.svd"] * 3
    assert {r.kind for r in records} == {"compute"}
    np.testing.assert_allclose(inv.numpy(), np.linalg.inv(m.numpy()))
    assert type(svd).__name__ == "SVDResult" and svd.S is s and isinstance(svd.U, st.Tensor)
    np.testing.assert_allclose((u * s @ vh).numpy(), m.numpy())
    det = np.linalg.det(m)
    assert isinstance(det, st.Tensor) and det.shape == () and det.item() == pytest.approx(5.0)


def test_answers_that_are_not_arrays_stay_numpys():
    t = st.arange(4.0)
    assert np.allclose(t, t) is True and np.array_equal(t, t) is True
    assert np.shape(t) == (4,) and np.ndim(t) == 1 and np.iscomplexobj(t) is False
    assert np.result_type(t, np.float64) == np.float64
    dt = np.array(["2026-01-01"], dtype="datetime64[D]")
    got = np.concatenate([dt, dt])  # no tensor argument: NumPy's own
    assert type(got) is np.ndarray


def test_numpy_writers_go_through_strideds_checks():
    ex = st.zeros(1).expand(3)
    with pytest.raises(st.errors.StridedRuntimeError, match="np.copyto"):
        np.copyto(ex, np.arange(3.0, dtype=np.float32))
    assert ex.tolist() == [0.0, 0.0, 0.0]
    base = np.zeros(3)
    base.flags.writeable = False
    ro = st.from_numpy(base)
    with pytest.raises(st.errors.StridedRuntimeError, match="read-only"):
        np.put(ro, [0], [5.0])
    assert base.tolist() == [0.0, 0.0, 0.0]
    x = st.zeros(2, 3)[:, ::2]
    with op_records() as records:
        assert np.put(x, [0, 3], [5.0, 6.0]) is None
    assert x.tolist() == [[5.0, 0.0], [0.0, 6.0]]
    assert [(r.name, r.kind) for r in records] == [("np.put", "compute")]
    y = st.zeros(3, 3)
    np.fill_diagonal(y, 2.0)
    assert y.numpy().trace() == 6.0


def test_views_of_a_typed_alias_read_the_one_buffer():
    f = st.arange(8.0)
    c = st.view_as_complex(f.reshape(4, 2))  # complex64 alias of f's float32 storage
    r = np.real(c)[::2]
    assert r.dtype == st.float32 and r._storage is f._storage  # back to the owner, no third storage
    assert r.tolist() == [0.0, 4.0] and r.stride() == (4,)
    im = np.imag(c)
    im.fill_(-1.0)
    assert f.tolist() == [0.0, -1.0, 2.0, -1.0, 4.0, -1.0, 6.0, -1.0]


def test_watch_shows_the_fallbacks_and_np_views():
    from strided.diagnose.watch import watch

    t = st.tensor([[3.0, 1.0], [2.0, 0.0]]).T
    c = st.tensor([1 + 2j, 3j])
    with watch() as w:
        np.sort(t, axis=0)
        np.imag(c)
    text = str(w)
    assert "np.sort" in text and "np.imag" in text
    assert "total: 1 copies, 16 bytes copied" in text


def test_ufunc_at_checks_its_target():
    ex = st.zeros(1).expand(3)
    with pytest.raises(st.errors.StridedRuntimeError, match=r"np\.add\.at"):
        np.add.at(ex, [0, 1], 1.0)
    assert ex.tolist() == [0.0, 0.0, 0.0]
    x = st.zeros(3)
    np.add.at(x, [0, 0, 2], 1.0)
    assert x.tolist() == [2.0, 0.0, 1.0]


_FALLBACKS = {
    "sort": lambda x: np.sort(x, axis=-1),
    "real": np.real,
    "unique": np.unique,
    "diff": lambda x: np.diff(x, axis=-1),
    "norm": np.linalg.norm,
    "broadcast_arrays": lambda x: np.broadcast_arrays(x, np.zeros((1,) * x.ndim, np.int64))[0],
}


@settings(max_examples=60, deadline=None)
@given(spec=specs(negative=True, max_dims=3), name=hs.sampled_from(sorted(_FALLBACKS)))
def test_fallback_results_on_any_layout_follow_numpy_and_the_ledger(spec, name):
    """Functions strided does not handle, on hard layouts: NumPy's values and dtype; a strided view
    exactly where NumPy's result views the input (same strides); else new memory, in the ledger
    (a copy with the result's bytes) unless the function computes."""
    if spec.shape == () and name in ("sort", "diff"):
        return  # NumPy refuses a 0-d array there, as PyTorch's sort would not
    data = np.arange(spec.storage_size, dtype=np.int64) * 3 % 7
    _, a, s = build_valued(spec, data)
    fn = _FALLBACKS[name]
    want = fn(a)
    with st.record_copies() as copies:
        got = fn(s)
    assert isinstance(got, st.Tensor)
    assert got.shape == np.shape(want) and got.numpy().dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got.numpy(), want)
    is_view = isinstance(want, np.ndarray) and (np.shares_memory(want, data) if want.size else want.base is not None)
    assert st.dispatch.shares_storage(got, s) == is_view
    if is_view and want.size:
        assert got.stride() == tuple(x // 8 for x in want.strides)
    computes = name in ("diff", "norm")
    if is_view or computes:
        assert not copies
    else:
        assert len(copies) == 1 and copies[0].nbytes == got.numel() * 8
        assert copies[0].reason.startswith(f"np.{name}: NumPy's result is new memory")
