"""``Tensor.view(dtype)`` against PyTorch 2.13: the layout rule (shape, strides, offset) on hard
layouts, the refusals (class and first line), writes through either side, shared memory, and
explain's prediction, which reads the same rule (strided.layout.dtype_view)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import build_valued, specs
from oracle_helpers import same_error
from strided.diagnose.explain import explain
from strided.layout import Layout
from strided.layout.dtype_view import DtypeViewRefusal, view_dtype_layout

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "uint16",
          "uint32", "uint64", "complex64", "complex128"]


def sdt(name: str) -> st.dtypes.DType:
    return st.dtypes.to_dtype(name)


@settings(max_examples=80, deadline=None)
@given(specs(max_dims=3, max_size=4), hs.sampled_from(["int16", "float32", "int64", "complex64", "uint8"]),
       hs.sampled_from(DTYPES))
def test_view_dtype_layout_values_and_errors_like_torch(spec, src, dst):
    data = np.arange(spec.storage_size * 16, dtype=np.uint8).view(src)[: spec.storage_size].copy()
    t, _, s = build_valued(spec, data)
    try:
        tv = t.view(getattr(torch, dst))
    except RuntimeError as err:
        with pytest.raises(RuntimeError) as info:
            s.view(sdt(dst))
        assert isinstance(info.value, st.StridedError)
        assert str(info.value).splitlines()[0] == str(err).splitlines()[0]
        assert "fix:" in str(info.value)
        assert explain(t, "view", getattr(torch, dst)).outcome == "error"
        return
    sv = s.view(sdt(dst))
    assert (sv.shape, sv.stride(), sv.storage_offset()) == (tuple(tv.shape), tv.stride(), tv.storage_offset())
    assert sv.dtype.name == dst
    if sv.numel():
        assert sv.numpy().tobytes() == tv.numpy().tobytes()
    assert sv.base is (s if s.base is None else s.base)
    # explain predicts this very layout, from the same rule
    e = explain(t, "view", getattr(torch, dst))
    assert (e.outcome, e.shape, e.strides, e.offset) == ("view", sv.shape, sv.stride(), sv.storage_offset())


def test_writes_go_through_both_ways_and_memory_is_shared():
    x = st.tensor([1.0, 2.0, 3.0, 4.0])
    b = x.view(sdt("int32"))
    b[0] = 0
    assert x.tolist()[0] == 0.0
    x[1] = 0.0
    assert b.tolist()[1] == 0
    assert st.shares_memory(b, x) and b.base is x
    assert b.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    d = x.view(sdt("float64"))
    t = torch.tensor([0.0, 0.0, 3.0, 4.0]).view(torch.float64)
    assert d.shape == (2,) and d.tolist() == t.tolist()
    assert x.view(sdt("float32")).layout == x.layout  # same size: any layout, unchanged


def test_same_itemsize_keeps_any_layout():
    x = st.arange(12, dtype="int32").view(3, 4).t()[::2]
    v = x.view(sdt("float32"))
    assert v.layout == x.layout and v.dtype.name == "float32"
    tv = torch.arange(12, dtype=torch.int32).view(3, 4).t()[::2].view(torch.float32)
    assert v.stride() == tv.stride() and v.tolist() == tv.tolist()


@pytest.mark.parametrize("make,dst", [
    (lambda m: m.ones(3, 4).t(), "int16"), (lambda m: m.ones(3, 3), "float64"), (lambda m: m.ones(()), "int16"),
    (lambda m: m.ones(5)[1:], "float64"), (lambda m: m.ones(3, 4)[:, ::2], "int8"),
    (lambda m: m.ones(3, 6)[:, :4].t().contiguous().t(), "float64"),
])
def test_refusals_like_torch(make, dst):
    x = make(st)
    text = same_error(lambda: make(torch).view(getattr(torch, dst)), lambda: x.view(sdt(dst)))
    assert f"strides {x.stride()}" in text and "fix:" in text


def test_view_dtype_keyword_and_bad_calls():
    x = st.ones(4)
    assert x.view(dtype=sdt("int32")).shape == torch.ones(4).view(dtype=torch.int32).shape
    with pytest.raises(TypeError):
        x.view(sdt("int32"), 2)
    with pytest.raises(TypeError):
        x.view(2, dtype=sdt("int32"))


def test_rule_is_pure_and_returns_a_refusal():
    lay = Layout((2, 4), (4, 1), 0)
    assert view_dtype_layout(lay, 4, 8, "Float", "Double") == Layout((2, 2), (2, 1), 0)
    assert view_dtype_layout(lay, 4, 1, "Float", "Byte") == Layout((2, 16), (16, 1), 0)
    refusal = view_dtype_layout(Layout((2, 4), (1, 2), 0), 4, 2, "Float", "Short")
    assert isinstance(refusal, DtypeViewRefusal)
    assert refusal.first.startswith("self.stride(-1) must be 1 to view Float as Short")


def test_view_dtype_is_a_view_in_the_ledger_and_explain():
    x = st.ones(2, 4)
    seen = []
    with st.dispatch.listen(seen.append):
        x.view(sdt("int16"))
    assert [(r.name, r.kind) for r in seen] == [("view", "view")]
    e = explain(x, "view", sdt("float64"))
    assert (e.outcome, e.shape, e.strides) == ("view", (2, 2), (2, 1))
    assert explain(x.t(), "view", sdt("int16")).outcome == "error"


def test_resize_of_a_reinterpreted_storage_is_refused_with_the_reason():
    x = st.zeros(4)
    v = x.view(sdt("int32"))
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable") as info:
        x.resize_(100)
    assert "read as int32" in str(info.value)
    with pytest.raises(RuntimeError, match="not resizable"):
        v.resize_(100)
    assert x.shape == (4,) and v.shape == (4,)


@pytest.mark.parametrize("dst", ["float32", "float16", "float64", "complex64", "int32"])
@pytest.mark.parametrize("leaf", [True, False])
def test_view_dtype_is_outside_autograd_as_in_torch(dst, leaf):
    # PyTorch 2.13: view(dtype) never requires grad, same dtype or not (no gradient flows through
    # reinterpreted bits); a torch.dtype argument is read by name, positional or keyword.
    t, s = torch.ones(2, 4, requires_grad=True), st.ones(2, 4, requires_grad=True)
    if not leaf:
        t, s = t * 2, s * 2
    for tv, sv in ((t.view(getattr(torch, dst)), s.view(sdt(dst))),
                   (t.view(dtype=getattr(torch, dst)), s.view(getattr(torch, dst)))):
        assert sv.requires_grad is tv.requires_grad is False
        assert (sv.shape, sv.stride(), sv.dtype.name) == (tuple(tv.shape), tv.stride(), dst)
        assert np.array_equal(np.asarray(sv), tv.numpy())
    assert s.view(4, 2).requires_grad  # a shape view stays recorded
