"""Conversions against PyTorch 2.13: .float() ... .bool(), .type(), to(...) in all its overloads,
detach/detach_, cpu(): dtypes, strides, values, self-vs-copy, the copy ledger's records and errors."""

from __future__ import annotations

import hypothesis.strategies as hs
import numpy as np
import pytest
import torch
from hypothesis import given, settings

import strided as st
from layouts import build_strided, build_torch, specs
from oracle_helpers import same_error
from strided.memory_format import channels_last_3d

_SHORT = ["float", "double", "half", "long", "int", "short", "char", "byte", "bool"]


def _same(s, t):
    assert s.shape == tuple(t.shape) and s.stride() == t.stride()
    assert s.dtype.name == str(t.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(s.numpy(), t.numpy())


@settings(max_examples=40, deadline=None)
@given(spec=specs(max_dims=3), name=hs.sampled_from(_SHORT), src=hs.sampled_from(["int64", "float32", "int16"]))
def test_shorthands_match_torch(spec, name, src):
    t = build_torch(spec).to(getattr(torch, src))
    s = build_strided(spec).to(src)
    with st.record_copies() as copies:
        out_s = getattr(s, name)()
    out_t = getattr(t, name)()
    _same(out_s, out_t)
    assert (out_s is s) == (out_t is t)  # same dtype: self, as PyTorch
    if out_s is not s:
        assert out_s.untyped_storage() is not s.untyped_storage()
        assert len(copies) == 1 and copies[0].reason == f"to({out_s.dtype.name})"
        seen = []
        with st.dispatch.listen(seen.append):
            getattr(s, name)()
        assert [(r.name, r.kind) for r in seen] == [(name, "copy")]
        assert copies[0].nbytes == out_s.numel() * out_s.element_size()
    else:
        assert len(copies) == 0


def test_bfloat16_converts_as_torch():
    x = st.tensor([1.37, -2.0, 3e38])
    y = x.bfloat16()
    assert y.dtype is st.bfloat16 and y.bfloat16() is y
    want = torch.tensor([1.37, -2.0, 3e38]).bfloat16()
    assert y.float().tolist() == want.float().tolist()


def test_type():
    for dt in ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]:
        assert st.zeros(2, dtype=dt).type() == torch.zeros(2, dtype=getattr(torch, dt)).type()
    x = st.zeros(2)
    assert x.type(st.float32) is x
    assert x.type("torch.DoubleTensor").dtype is st.float64 and x.type(dtype=st.int64).dtype is st.int64
    same_error(lambda: torch.zeros(2).type("torch.FooTensor"), lambda: x.type("torch.FooTensor"))
    same_error(lambda: torch.zeros(2).type(3), lambda: x.type(3))
    same_error(lambda: torch.zeros(2).type(torch.float32, 3), lambda: x.type(st.float32, 3))
    with pytest.raises(RuntimeError, match="CPU only"):
        x.type("torch.cuda.FloatTensor")


_TO_CALLS = [
    ("dtype", lambda m, x: x.to(m.float64)),
    ("same dtype", lambda m, x: x.to(m.float32)),
    ("copy", lambda m, x: x.to(m.float32, copy=True)),
    ("positional copy", lambda m, x: x.to(m.float32, False, True)),
    ("device", lambda m, x: x.to("cpu")),
    ("device obj", lambda m, x: x.to(torch.device("cpu"))),
    ("device dtype", lambda m, x: x.to("cpu", m.int32)),
    ("device dtype flags", lambda m, x: x.to("cpu", m.float64, True, True)),
    ("none dtype", lambda m, x: x.to(None, m.float64)),
    ("other", lambda m, x: x.to(m.zeros(1, dtype=m.int64))),
    ("other non_blocking", lambda m, x: x.to(m.zeros(1, dtype=m.int64), non_blocking=True)),
    ("keywords", lambda m, x: x.to(dtype=m.float64, device="cpu", copy=True)),
    ("nothing", lambda m, x: x.to()),
    ("kw none", lambda m, x: x.to(device=None, dtype=None)),
    ("channels_last", lambda m, x: x.reshape(1, 2, 3, 1).to(memory_format=m.channels_last)),
    ("channels_last dtype", lambda m, x: x.reshape(1, 2, 3, 1).to(m.float64, memory_format=m.channels_last)),
    ("contiguous of transposed", lambda m, x: x.t().to(memory_format=m.contiguous_format)),
    ("contiguous copy", lambda m, x: x.t().to(memory_format=m.contiguous_format, copy=True)),
    ("channels_last of 2-d", lambda m, x: x.to(memory_format=m.channels_last)),
    ("two dtypes", lambda m, x: x.to(m.float32, m.float64)),
    ("two devices", lambda m, x: x.to("cpu", "cpu")),
    ("unknown keyword", lambda m, x: x.to(foo=1)),
    ("too many", lambda m, x: x.to(m.float64, True, True, True)),
    ("cuda", lambda m, x: x.to("cuda")),
    ("cuda dtype", lambda m, x: x.to("cuda:0", m.float64)),
]


@pytest.mark.parametrize("name, call", _TO_CALLS, ids=[n for n, _ in _TO_CALLS])
def test_to_overloads(name, call):
    t = torch.arange(6.0).reshape(2, 3)
    s = st.arange(6.0).reshape(2, 3)
    try:
        out_t = call(torch, t)
    except (TypeError, RuntimeError, AssertionError) as exc:
        with pytest.raises(Exception) as info:
            call(st, s)
        assert isinstance(info.value, st.StridedError)
        if isinstance(exc, AssertionError):  # torch without CUDA; strided says it is CPU-only
            assert isinstance(info.value, RuntimeError) and "CPU only" in str(info.value)
        else:
            assert isinstance(info.value, type(exc))
            assert str(info.value).splitlines()[0].startswith(str(exc).splitlines()[0][:40])
        return
    out_s = call(st, s)
    _same(out_s, out_t)
    base_t = t if name not in ("contiguous of transposed", "contiguous copy") else None
    if base_t is not None:
        assert (out_s is s) == (out_t is t)


def test_to_returns_self_like_torch_for_formats():
    t = torch.arange(6.0).reshape(2, 3).t()
    s = st.arange(6.0).reshape(2, 3).t()
    # PyTorch's to_will_alias: the format the strides suggest is asked: self, even not contiguous
    assert (s.to(memory_format=st.contiguous_format) is s) == (t.to(memory_format=torch.contiguous_format) is t)
    y = st.zeros(2, 3, 4, 5, 6).contiguous(channels_last_3d)
    assert y.to(memory_format=channels_last_3d) is y
    with st.record_copies() as copies:
        z = st.zeros(2, 3, 4, 5).to(memory_format=st.channels_last)
    assert z.stride() == (60, 1, 15, 3) and copies[0].reason == "to(float32, memory_format=channels_last)"


def test_to_string_dtype_and_bad_names():
    x = st.zeros(2)
    assert x.to("float64").dtype is st.float64  # strided's dtype names still work
    with pytest.raises(TypeError, match="unsupported dtype"):
        x.to("complex256")
    with pytest.raises(TypeError):
        x.to(None)
    with pytest.raises(TypeError):
        x.to(3.0)


def test_detach():
    x = st.arange(6.0).reshape(2, 3)
    seen = []
    with st.dispatch.listen(seen.append), st.record_copies() as copies:
        d = x.detach()
    assert d is not x and d.untyped_storage() is x.untyped_storage() and d.layout == x.layout
    assert [(r.name, r.kind) for r in seen] == [("detach", "view")] and len(copies) == 0
    d[0, 0] = 5.0
    assert x[0, 0].item() == 5.0
    own = st.arange(3.0)
    assert own.detach_() is own and torch.arange(3.0).detach_() is not None
    text = same_error(lambda: torch.arange(3.0)[1:].detach_(), lambda: st.arange(3.0)[1:].detach_(), first_line=False)
    assert text.startswith("Can't detach views in-place. Use detach() instead.")  # PyTorch's first sentences


def test_cpu_and_device():
    x = st.arange(3)
    assert x.cpu() is x and x.is_cpu and str(x.device) == "cpu"
    assert x.cpu(memory_format=st.contiguous_format) is x
