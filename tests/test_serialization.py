"""strided.save / strided.load: round trips of every dtype, 0-d and zero-size tensors, views that
share a storage (shared again after loading, as torch.load shares them), nested containers and an
optimizer's state dict; hostile files (a layout past its storage, a truncated archive, a pickle
or a torch.save file in disguise, malformed descriptions) refused with clear errors and without
running anything; objects save cannot describe refused before any file is written."""

from __future__ import annotations

import io
import json
import math
import pickle
import zipfile

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layout_strategies import specs
from strided import optim

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64", "float16", "float32",
          "float64", "complex64", "complex128"]


def _round(obj):
    buf = io.BytesIO()
    st.save(obj, buf)
    return st.load(io.BytesIO(buf.getvalue())), buf.getvalue()


def _same(a: st.Tensor, b: st.Tensor) -> None:
    assert a.dtype is b.dtype and tuple(a.shape) == tuple(b.shape) and a.stride() == b.stride()
    assert a.storage_offset() == b.storage_offset()
    np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_round_trips(dtype, tmp_path):
    rng = np.random.default_rng(1)
    raw = rng.standard_normal((3, 4)) * 50
    a = (raw + 1j * raw[::-1]) if dtype.startswith("complex") else raw
    t = st.tensor(a.astype(dtype))
    objs = [t, t.t(), t[1:, ::2], st.tensor(a.astype(dtype)[0, 0]), st.zeros(0, 3, dtype=getattr(st, dtype))]
    path = tmp_path / "x.strided"
    st.save(objs, path)
    back = st.load(path)
    for x, y in zip(objs, back):
        _same(x, y)


def test_views_share_one_storage_as_torch_load_does():
    base = st.arange(12.0).reshape(3, 4)
    views = {"base": base, "t": base.t(), "slice": base[1:, 1::2], "row": base[2], "expand": base[0:1].expand(5, 4),
             "flip": st.arange(6.0).flip(0)}
    back, data = _round(views)
    for k in views:
        _same(views[k], back[k])
    assert data.count(b"storages/") == 4  # (2 storages: each name once in an entry header, once in the directory)
    back["t"][0, 1] = 100.0  # a write through one view is seen through the others: one storage
    assert back["base"][1, 0].item() == 100.0 and back["row"].data_ptr() == back["base"].data_ptr() + 8 * back["base"].element_size()
    # torch.save / torch.load of the same views: the same sharing
    tb = torch.arange(12.0).reshape(3, 4)
    tbuf = io.BytesIO()
    torch.save({"base": tb, "t": tb.t(), "slice": tb[1:, 1::2]}, tbuf)
    tback = torch.load(io.BytesIO(tbuf.getvalue()), weights_only=True)
    assert tback["t"].stride() == back["t"].stride() and tback["slice"].stride() == back["slice"].stride()
    assert tback["slice"].storage_offset() == back["slice"].storage_offset()
    assert tback["t"].untyped_storage().data_ptr() == tback["base"].untyped_storage().data_ptr()


def test_nested_containers_and_numbers():
    obj = {"lr": 0.1, 3: [None, True, False, (1, "two", -0.0)], (1, "k"): {"nan": math.nan, "inf": -math.inf},
           "big": 2**100, "text": "héllo\n\x00", "empty": [], "t": ()}
    back, _ = _round(obj)
    assert list(back) == list(obj)
    assert back[3] == obj[3] and type(back[3][3]) is tuple and math.copysign(1, back[3][3][2]) == -1
    assert math.isnan(back[(1, "k")]["nan"]) and back[(1, "k")]["inf"] == -math.inf
    assert back["big"] == 2**100 and back["text"] == obj["text"] and back["t"] == ()


def test_requires_grad_comes_back_a_leaf():
    w = st.ones(2, requires_grad=True)
    y = w * 2
    back, _ = _round([w, y, w.detach()])
    assert [t.requires_grad for t in back] == [True, True, False]
    assert all(t.is_leaf and t.grad_fn is None for t in back)


def test_optimizer_state_dict_saved_and_loaded(tmp_path):
    rng = np.random.default_rng(2)
    w0 = rng.standard_normal((4, 3)).astype(np.float32)
    grads = [rng.standard_normal((4, 3)).astype(np.float32) for _ in range(6)]

    def run(split: bool):
        w = st.tensor(w0, requires_grad=True)
        opt = optim.Adam([w], lr=0.05, amsgrad=True)
        for i, g in enumerate(grads):
            if split and i == 3:
                st.save({"w": w, "opt": opt.state_dict()}, tmp_path / "ckpt")
                ck = st.load(tmp_path / "ckpt")
                w = ck["w"]
                opt = optim.Adam([w], lr=1.0)
                opt.load_state_dict(ck["opt"])
            w.grad = st.tensor(g)
            opt.step()
        return w.detach().numpy(), opt.state_dict()

    (a, sd_a), (b, sd_b) = run(False), run(True)
    np.testing.assert_array_equal(a, b)
    assert sd_a["param_groups"] == sd_b["param_groups"] and sd_b["state"][0]["step"].item() == 6.0


# ---------------------------------------------------------------- hostile files


def _forge(meta_edit=None, entries=None) -> bytes:
    """A file strided.save wrote, then altered: its JSON edited, entries replaced."""
    _, data = _round({"w": st.arange(6.0).reshape(2, 3)})
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        meta = json.loads(z.read("strided.json"))
        files = {n: z.read(n) for n in z.namelist()}
    if meta_edit:
        meta_edit(meta)
    files["strided.json"] = json.dumps(meta).encode()
    files.update(entries or {})
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for n, b in files.items():
            if b is not None:
                z.writestr(n, b)
    return out.getvalue()


def _w(meta):
    return meta["object"]["items"][0][1]


HOSTILE = {
    "past the storage": (lambda m: _w(m).update(shape=[4, 3]), "does not fit its storage",
                         "requiring a storage size of 48 are out of bounds for storage of size 24"),
    "offset past": (lambda m: _w(m).update(offset=5), "does not fit its storage", "out of bounds"),
    "negative stride before 0": (lambda m: _w(m).update(strides=[-3, 1]), "does not fit its storage",
                                 "invalid storage offset"),
    "storage index": (lambda m: _w(m).update(storage=7), "names storage 7", "the file has 1 storages"),
    "bad dtype": (lambda m: m["storages"][0].update(dtype="object"), "storage 0 is described as", "a dtype of"),
    "wrong count": (lambda m: m["storages"][0].update(numel=100), "storage 0 should hold 100 float32 elements",
                    "its entry holds 24 bytes"),
    "float shape": (lambda m: _w(m).update(shape=[2.0, 3]), "has a malformed layout", "shape"),
    "unknown tag": (lambda m: _w(m).update(t="callable"), "unknown tag 'callable'", ""),
    "version": (lambda m: m.update(version=99), "of version 99; this strided reads version 1", ""),
    "unhashable key": (lambda m: m["object"]["items"][0].__setitem__(0, {"t": "tuple", "items": [
        {"t": "list", "items": []}]}), "a key of the dict at obj is a tuple", "tuples of them"),
    "deep": (lambda m: m.update(object=_deep(300)), "the object is nested more than 200 deep", ""),
}


def _deep(n: int) -> dict:
    node: dict = {"t": "none"}
    for _ in range(n):
        node = {"t": "list", "items": [node]}
    return node


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_descriptions_are_refused(case):
    edit, first, detail = HOSTILE[case]
    with pytest.raises(st.StridedRuntimeError) as e:
        st.load(io.BytesIO(_forge(edit)))
    assert isinstance(e.value, RuntimeError) and first in str(e.value).split("\n")[0] and detail in str(e.value)


def test_a_truncated_file_is_refused():
    data = _forge()
    for cut in (len(data) // 2, len(data) - 10, 3):
        with pytest.raises(st.StridedRuntimeError, match="is not a valid strided.save file"):
            st.load(io.BytesIO(data[:cut]))
    with pytest.raises(st.StridedRuntimeError, match="storage 0 should hold 6 float32 elements"):
        st.load(io.BytesIO(_forge(entries={"storages/0": b"\0" * 7})))
    forged = bytearray(_forge())  # a stored entry whose directory record claims 4 GiB: refused unread
    at = next(i for i in range(len(forged)) if forged[i:i + 4] == b"PK\x01\x02"
              and forged[i + 46:i + 56] == b"storages/0")
    forged[at + 20:at + 28] = (2**32 - 2).to_bytes(4, "little") * 2  # (compressed and uncompressed sizes)
    with pytest.raises(st.StridedRuntimeError, match="compressed or larger than the file"):
        st.load(io.BytesIO(bytes(forged)))
    with pytest.raises(st.StridedRuntimeError, match="has no entry 'storages/0'"):
        st.load(io.BytesIO(_forge(entries={"storages/0": None})))


class _Boom:
    """A pickle that would run code: writes into a list when unpickled."""

    ran: list[int] = []

    def __reduce__(self):
        return (_Boom.ran.append, (1,))


def test_a_pickle_is_never_unpickled(tmp_path):
    path = tmp_path / "model.pt"
    path.write_bytes(pickle.dumps({"w": _Boom()}))
    with pytest.raises(st.StridedRuntimeError, match="is a pickle, which strided.load never reads"):
        st.load(path)
    torch.save({"w": torch.ones(2)}, tmp_path / "torch.pt")
    with pytest.raises(st.StridedRuntimeError, match="is a torch.save file .* never unpickles"):
        st.load(tmp_path / "torch.pt")
    inner = io.BytesIO()  # a pickle inside a ZIP named like ours
    with zipfile.ZipFile(inner, "w") as z:
        z.writestr("strided.json", b"{}")
        z.writestr("x/data.pkl", pickle.dumps(_Boom()))
    with pytest.raises(st.StridedRuntimeError, match="never unpickles"):
        st.load(io.BytesIO(inner.getvalue()))
    assert _Boom.ran == []
    with pytest.raises(st.StridedRuntimeError, match="it is not a ZIP archive"):
        st.load(io.BytesIO(b"hello world"))


@pytest.mark.parametrize("bad,where,fix", [
    (np.zeros(2), "obj['a'][1]", "strided.from_numpy"), ({1, 2}, "obj['a'][1]", "sorted(s)"),
    (lambda: 0, "obj['a'][1]", "convert it"), (torch.ones(1), "obj['a'][1]", "convert torch tensors"),
])
def test_save_refuses_what_it_cannot_describe(bad, where, fix, tmp_path):
    path = tmp_path / "never"
    with pytest.raises(st.StridedTypeError) as e:
        st.save({"a": [1, bad]}, path)
    assert isinstance(e.value, TypeError) and where in str(e.value) and fix in str(e.value)
    assert not path.exists()  # (checked before the file is opened: nothing written)
    loop: list = []
    loop.append(loop)
    with pytest.raises(st.StridedTypeError, match="contains itself"):
        st.save(loop, path)
    with pytest.raises(st.StridedTypeError, match="dict key of type frozenset"):
        st.save({"a": {frozenset({1}): 1}}, path)


@settings(max_examples=20, deadline=None)
@given(hs.lists(specs(max_dims=3), min_size=1, max_size=3), hs.sampled_from(["float32", "int16", "complex64"]))
def test_hard_layouts_over_one_storage_round_trip(layouts, dtype):
    """Permuted, stepped, expanded, size-1-with-odd-stride, zero-size and 0-d views of one storage
    come back with their layouts over one shared storage."""
    size = max(spec.storage_size for spec in layouts)
    flat = st.arange(size).to(getattr(st, dtype))
    views = [flat.as_strided(spec.shape, spec.strides, spec.offset) for spec in layouts]
    back, _ = _round([flat, *views])
    for x, y in zip([flat, *views], back):
        _same(x, y)
        assert y.untyped_storage().data_ptr() == back[0].untyped_storage().data_ptr()
