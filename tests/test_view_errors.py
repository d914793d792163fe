"""Errors of view ops: the builtin class PyTorch raises, PyTorch's first line, then our explanation.

Every case is run in torch and in strided on the same tensor. Where strided's
first line is meant to read exactly like PyTorch's, it is compared verbatim; the
lines after it must explain the failure in the tensor's own numbers. A failed op
must leave the tensor (layout, values, base) exactly as it was.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import Spec, build_strided, build_torch, specs
from view_oracle import new_shapes


def _pair(shape: tuple[int, ...], dtype: str = "float32") -> tuple[torch.Tensor, st.Tensor]:
    n = math.prod(shape)
    return torch.arange(n, dtype=getattr(torch, dtype)).view(shape), st.arange(n, dtype=dtype).view(shape)


def _raises(fn: Callable[[Any], Any], x: Any) -> BaseException:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(x)
        except Exception as exc:  # noqa: BLE001
            return exc
    raise AssertionError(f"no error from {x!r}")


def _snapshot(s: st.Tensor) -> tuple[Any, ...]:
    return (s.shape, s.stride(), s.storage_offset(), s.base, s.tolist(), s.untyped_storage())


# (input shape, op) -> both libraries raise; strided's first line equals torch's first line.
SAME_FIRST_LINE: dict[str, tuple[tuple[int, ...], Callable[[Any], Any]]] = {
    "view after permute": ((3, 4), lambda x: x.permute(1, 0).view(12)),
    "view after transpose of 3-d": ((2, 3, 4), lambda x: x.transpose(0, 1).view(24)),
    "view of expanded": ((3, 1), lambda x: x.expand(3, 4).view(12)),
    "view wrong numel": ((3, 4), lambda x: x.view(5)),
    "view two -1": ((3, 4), lambda x: x.view(-1, -1)),
    "view -2": ((3, 4), lambda x: x.view(-2, 6)),
    "view -1 not dividing": ((3, 4), lambda x: x.view(5, -1)),
    "view empty ambiguous -1": ((0, 4), lambda x: x.view(-1, 0)),
    "view empty ambiguous -1 late": ((0, 4), lambda x: x.view(3, 0, -1, 0)),
    "view_as wrong numel": ((6, 4), lambda x: x.view_as(x[0])),
    "reshape wrong numel": ((3, 4), lambda x: x.reshape(5)),
    "reshape 0-d to 2": ((), lambda x: x.reshape(2)),
    "reshape empty to 1": ((0,), lambda x: x.reshape(1)),
    "transpose dim too big": ((3, 4), lambda x: x.transpose(2, 0)),
    "transpose dim too small": ((3, 4), lambda x: x.transpose(0, -3)),
    "transpose on 0-d": ((), lambda x: x.transpose(0, 1)),
    "swapaxes dim": ((3, 4), lambda x: x.swapaxes(0, 5)),
    "permute too few": ((3, 4), lambda x: x.permute(0)),
    "permute too many": ((3, 4), lambda x: x.permute(0, 1, 2)),
    "permute duplicate": ((3, 4), lambda x: x.permute(0, 0)),
    "permute duplicate after wrap": ((3, 4), lambda x: x.permute(1, -1)),
    "permute out of range": ((3, 4), lambda x: x.permute(0, 2)),
    "flatten start after end": ((2, 3, 4), lambda x: x.flatten(2, 0)),
    "flatten start after end (negative)": ((2, 3, 4), lambda x: x.flatten(-1, 1)),
    "flatten out of range": ((2, 3, 4), lambda x: x.flatten(5, 10)),
    "unflatten bad sizes": ((6, 4), lambda x: x.unflatten(0, (4, 2))),
    "unflatten empty sizes": ((6, 4), lambda x: x.unflatten(0, ())),
    "expand mismatch": ((3, 1), lambda x: x.expand(2, 4)),
    "expand fewer sizes": ((3, 1), lambda x: x.expand(4)),
    "expand leading -1": ((3,), lambda x: x.expand(-1, 3)),
    "expand_as mismatch": ((3,), lambda x: x.expand_as(x.unsqueeze(0).expand(2, 3)[:, :2])),
    "broadcast_to mismatch": ((3,), lambda x: x.broadcast_to((2, 4))),
    "select out of range": ((3, 4), lambda x: x.select(1, 4)),
    "select negative out of range": ((3, 4), lambda x: x.select(0, -4)),
    "select on 0-d": ((), lambda x: x.select(0, 0)),
    "select on empty dim": ((0, 2), lambda x: x.select(0, 0)),
    "index out of range": ((3, 4), lambda x: x[3]),
    "index out of range in 2nd dim": ((3, 4), lambda x: x[0, -5]),
    "index after ellipsis": ((3, 4), lambda x: x[..., 4]),
    "too many indices": ((3, 4), lambda x: x[0, 0, 0]),
    "int index of 0-d": ((), lambda x: x[0]),
    "slice step zero": ((3, 4), lambda x: x[::0]),
    "float index": ((3, 4), lambda x: x[1.5]),
    "slice float": ((3, 4), lambda x: x[0.5:]),
    "narrow past the end": ((3, 4), lambda x: x.narrow(1, 2, 3)),
    "narrow start out of range": ((3, 4), lambda x: x.narrow(1, 5, 0)),
    "narrow negative length": ((3, 4), lambda x: x.narrow(1, 0, -1)),
    "narrow on 0-d": ((), lambda x: x.narrow(0, 0, 1)),
    "split sizes sum": ((3, 4), lambda x: x.split([1, 1], 0)),
    "split negative size": ((3, 4), lambda x: x.split([4, -1], 0)),
    "split size zero": ((3, 4), lambda x: x.split(0)),
    "split size negative": ((3, 4), lambda x: x.split(-1)),
    "split 0-d": ((), lambda x: x.split(1)),
    "chunk zero": ((3, 4), lambda x: x.chunk(0)),
    "chunk negative": ((3, 4), lambda x: x.chunk(-2)),
    "unbind 0-d": ((), lambda x: x.unbind()),
    "unbind dim": ((3, 4), lambda x: x.unbind(2)),
    "diagonal same dims": ((3, 4), lambda x: x.diagonal(0, 1, 1)),
    "diagonal same dims after wrap": ((3, 4), lambda x: x.diagonal(0, 1, -1)),
    "diagonal of 1-d": ((3,), lambda x: x.diagonal()),
    "unfold too big": ((3, 4), lambda x: x.unfold(1, 5, 1)),
    "unfold step zero": ((3, 4), lambda x: x.unfold(1, 2, 0)),
    "unfold negative size": ((3, 4), lambda x: x.unfold(1, -1, 1)),
    "as_strided out of bounds": ((3, 4), lambda x: x.as_strided((3, 4), (4, 2))),
    "as_strided offset out of bounds": ((3, 4), lambda x: x.as_strided((2,), (1,), 11)),
    "as_strided negative stride": ((3, 4), lambda x: x.as_strided((3,), (-1,))),
    "as_strided negative offset": ((3, 4), lambda x: x.as_strided((1,), (1,), -1)),
    "t of 3-d": ((2, 3, 4), lambda x: x.t()),
    "mT of 1-d": ((3,), lambda x: x.mT),
    "squeeze out of range": ((3, 1), lambda x: x.squeeze(2)),
    "squeeze repeated": ((3, 1), lambda x: x.squeeze((1, -1))),
    "unsqueeze out of range": ((3, 1), lambda x: x.unsqueeze(3)),
    "unsqueeze out of range (negative)": ((3, 1), lambda x: x.unsqueeze(-4)),
    "movedim out of range": ((3, 1), lambda x: x.movedim(2, 0)),
    "movedim lengths": ((3, 1), lambda x: x.movedim((0, 1), (0,))),
    "movedim repeated source": ((3, 1, 2), lambda x: x.movedim((0, 0), (1, 2))),
    "movedim repeated destination": ((3, 1, 2), lambda x: x.movedim((0, 1), (2, -1))),
    "permute missing": ((3,), lambda x: x.permute()),
    "reshape missing": ((3,), lambda x: x.reshape()),
    "expand missing": ((3,), lambda x: x.expand()),
    "select float index": ((3, 4), lambda x: x.select(0, 1.0)),
    "select bool index": ((3, 4), lambda x: x.select(0, True)),
    "unfold float size": ((3, 4), lambda x: x.unfold(0, 1.0, 1)),
    "diagonal float offset": ((3, 4), lambda x: x.diagonal(0.5)),
    "chunk float": ((3, 4), lambda x: x.chunk(1.5)),
    "chunk bool": ((3, 4), lambda x: x.chunk(True)),
}

# Same builtin class, but PyTorch's first line comes from its argument parser or an
# internal check with no useful text; strided's own first line is clearer.
SAME_CLASS_ONLY: dict[str, tuple[tuple[int, ...], Callable[[Any], Any]]] = {
    "view float size": ((3, 4), lambda x: x.view(2.0, 6)),
    "view bool size": ((3, 4), lambda x: x.view(True, 12)),
    "view list and list": ((3, 4), lambda x: x.view([1], [1])),
    "view missing": ((3,), lambda x: x.view()),
    "transpose float dim": ((3, 4), lambda x: x.transpose(0.0, 1)),
    "narrow float start": ((3, 4), lambda x: x.narrow(0, 1.0, 1)),
    "split float": ((3, 4), lambda x: x.split(1.5)),
    "squeeze float": ((3, 1), lambda x: x.squeeze(1.0)),
    "unsqueeze float": ((3, 1), lambda x: x.unsqueeze(1.0)),
    "permute float": ((3, 1), lambda x: x.permute(0.0, 1)),
    "flatten float": ((3, 4), lambda x: x.flatten(0.0)),
    "flatten bool": ((3, 4), lambda x: x.flatten(False)),
    "movedim float": ((3, 4), lambda x: x.movedim(0.0, 1)),
    "string index": ((3, 4), lambda x: x["a"]),
    "numpy float index": ((3, 4), lambda x: x[np.float64(1.0)]),
    "as_strided length mismatch": ((3, 4), lambda x: x.as_strided((3, 4), (4,))),
    "as_strided negative size": ((3, 4), lambda x: x.as_strided((-1,), (1,))),
    "unflatten two -1": ((6, 4), lambda x: x.unflatten(0, (-1, -1))),
    "unflatten of 0-d": ((), lambda x: x.unflatten(0, (1,))),
}


def _check_class(name: str, shape: tuple[int, ...], fn: Callable[[Any], Any]) -> tuple[BaseException, BaseException]:
    t, s = _pair(shape)
    s_view = s[...]  # a view, so that "unchanged" also covers base
    before = _snapshot(s_view)
    te = _raises(fn, t)
    se = _raises(fn, s_view)
    for cls in (IndexError, ValueError, TypeError, RuntimeError):
        if isinstance(te, cls):
            assert isinstance(se, cls), f"{name}: torch {type(te).__name__}: {te}\nstrided {type(se).__name__}: {se}"
            break
    assert isinstance(se, st.StridedError), f"{name}: {type(se).__name__} is not a StridedError: {se}"
    assert _snapshot(s_view) == before, f"{name}: the failed op changed the tensor"
    return te, se


@pytest.mark.parametrize("name", sorted(SAME_FIRST_LINE))
def test_error_class_and_first_line_match_torch(name: str) -> None:
    shape, fn = SAME_FIRST_LINE[name]
    te, se = _check_class(name, shape, fn)
    torch_first = str(te).splitlines()[0].replace("torch.FloatTensor", "Tensor")
    assert str(se).splitlines()[0] == torch_first


@pytest.mark.parametrize("name", sorted(SAME_CLASS_ONLY))
def test_error_class_matches_torch(name: str) -> None:
    shape, fn = SAME_CLASS_ONLY[name]
    _check_class(name, shape, fn)


# ---------------------------------------------------------------- the view refusal, in full


def test_view_after_permute_explains_dims_equation_and_copy_bytes() -> None:
    x = st.arange(12, dtype="float32").view(3, 4)
    y = x.permute(1, 0)
    with pytest.raises(RuntimeError) as info:
        y.view(12)
    err = info.value
    assert isinstance(err, st.ViewError) and isinstance(err, st.StridedError)
    lines = str(err).splitlines()
    assert lines[0] == (
        "view size is not compatible with input tensor's size and stride (at least one dimension "
        "spans across two contiguous subspaces). Use .reshape(...) instead."
    )
    text = "\n".join(lines[1:])
    assert "shape (4, 3), strides (1, 4)" in text
    assert "merge dims 0 and 1" in text
    assert "stride[0] == size[1] * stride[1] = 3 * 4 = 12, but stride[0] is 1" in text
    assert "reshape(12) copies 48 bytes" in text
    assert ".contiguous().view(12)" in text
    # the refusal object behind the message says the same thing
    r = err.refusal
    assert isinstance(r, st.ReshapeRefusal)
    assert (r.outer, r.inner, r.needed_stride) == (0, 1, 12)
    assert r.old_shape == (4, 3) and r.old_strides == (1, 4) and r.new_shape == (12,)
    # and the fixes it names work, copying exactly the bytes it announced
    with st.record_copies() as copies:
        flat = y.reshape(12)
    assert [c.nbytes for c in copies] == [48]
    assert flat.tolist() == torch.arange(12.0).view(3, 4).permute(1, 0).reshape(12).tolist()
    assert y.contiguous().view(12).tolist() == flat.tolist()
    assert y.shape == (4, 3) and y.stride() == (1, 4) and y.base is x.base


@pytest.mark.parametrize(
    ("make", "request_", "dims", "equation", "words"),
    [
        # an expanded inner dim: the merged run would repeat memory
        (lambda: st.arange(4).view(4, 1).expand(4, 3), (12,), (0, 1),
         "stride[0] == size[1] * stride[1] = 3 * 0 = 0, but stride[0] is 1", "dim 1 is expanded"),
        # an expanded outer dim
        (lambda: st.arange(3).expand(4, 3), (12,), (0, 1),
         "stride[0] == size[1] * stride[1] = 3 * 1 = 3, but stride[0] is 0", "dim 0 is expanded"),
        # a slice leaves a gap between rows
        (lambda: st.arange(48).view(2, 6, 4)[:, :3, :], (24,), (0, 1),
         "stride[0] == size[1] * stride[1] = 3 * 4 = 12, but stride[0] is 24", "gap"),
        # a size-1 dim with an odd stride inside the block: the equation spans it
        (lambda: st.arange(16).as_strided((2, 1, 4), (8, 99, 1)), (8,), (0, 1),
         "stride[0] == size[1] * size[2] * stride[2] = 1 * 4 * 1 = 4, but stride[0] is 8", "gap"),
        # merging only the last two dims of a permuted 3-d tensor
        (lambda: st.arange(24).view(2, 3, 4).permute(0, 2, 1), (2, 12), (1, 2),
         "stride[1] == size[2] * stride[2] = 3 * 4 = 12, but stride[1] is 1", "jumps back"),
    ],
)
def test_view_refusal_texts(make: Any, request_: tuple[int, ...], dims: tuple[int, int], equation: str,
                            words: str) -> None:
    x = make()
    with pytest.raises(st.ViewError) as info:
        x.view(request_)
    text = str(info.value)
    assert f"merge dims {dims[0]} and {dims[1]}" in text
    assert equation in text
    assert words in text
    nbytes = x.numel() * x.element_size()
    assert f"copies {nbytes} bytes" in text
    # the torch oracle agrees that this is not a view
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        torch.arange(x.untyped_storage().size()).as_strided(x.shape, x.stride(), x.storage_offset()).view(request_)


# ---------------------------------------------------------------- detail lines in our own numbers


def test_dim_out_of_range_text() -> None:
    x = st.zeros(2, 3, 4)
    with pytest.raises(IndexError) as info:
        x.transpose(3, 0)
    lines = str(info.value).splitlines()
    assert lines[0] == "Dimension out of range (expected to be in range of [-3, 2], but got 3)"
    assert "3 dims" in lines[1] and "-3 to -1" in lines[1]
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-1, 0\], but got -2\)"):
        st.tensor(1.0).unsqueeze(-3 + 1)


def test_expand_mismatch_text() -> None:
    x = st.zeros(3, 1)
    with pytest.raises(RuntimeError) as info:
        x.expand(2, 4)
    first, *rest = str(info.value).splitlines()
    assert first == (
        "The expanded size of the tensor (2) must match the existing size (3) at non-singleton "
        "dimension 0.  Target sizes: [2, 4].  Tensor sizes: [3, 1]"
    )
    assert "only size-1 dims can be expanded" in rest[0]
    assert "tensor dim 0 (target dim 0) has size 3, not 1" in rest[0]
    assert "repeat-style" not in str(info.value)
    assert ".unsqueeze(0)" in rest[1]


def test_expand_mismatch_names_both_numberings_and_a_working_fix() -> None:
    """A (3,) tensor expanded to (2, 6): tensor dim 0 is target dim 1; the fix it prints must run."""
    x = st.arange(3, dtype="float32")
    with pytest.raises(RuntimeError) as info:
        x.expand(2, 6)
    first, *rest = str(info.value).splitlines()
    assert first.endswith("at non-singleton dimension 1.  Target sizes: [2, 6].  Tensor sizes: [3]")
    assert "tensor dim 0 (target dim 1) has size 3" in rest[0]
    m = re.search(r"(\.unsqueeze\(0\)\.expand\(2, 3\)\.reshape\(6\)) \(reshape copies\), then (\.expand\(2, 6\))",
                  rest[1])
    assert m, rest[1]
    fixed = eval("x" + m.group(1) + m.group(2))  # noqa: S307 - the message's own code, run on the tensor
    tiled = torch.arange(3, dtype=torch.float32).repeat(2).expand(2, 6)
    assert fixed.shape == tuple(tiled.shape) and fixed.tolist() == tiled.tolist()


def test_expand_negative_sizes_refused() -> None:
    # Note: torch 2.13 gives "numel: integer multiplication overflow" for expand(3, -2), and for a
    # size-1 dim of an empty tensor (or a 0-d tensor with a leading -1) returns a tensor with a
    # negative size. strided refuses all of them with a RuntimeError that names the size.
    for x, sizes in [(st.zeros(3, 1), (3, -2)), (st.zeros(1, 0, 1), (1, 0, -2)), (st.tensor(1.0), (-1, 0))]:
        with pytest.raises(RuntimeError, match=r"-2|-1"):
            x.expand(sizes)


def test_select_and_index_out_of_range_texts() -> None:
    x = st.zeros(3, 4)
    with pytest.raises(IndexError) as info:
        x.select(1, -5)
    assert str(info.value).splitlines()[1].strip() == "dim 1 has size 4: valid indices are -4..3"
    with pytest.raises(IndexError) as info:
        x[1, 4]
    lines = str(info.value).splitlines()
    assert lines[0] == "index 4 is out of bounds for dimension 1 with size 4"
    assert "-4..3" in lines[1]
    with pytest.raises(IndexError, match="that dim is empty"):
        st.zeros(2, 0)[0, 0]


def test_permute_texts() -> None:
    x = st.zeros(2, 3, 4)
    with pytest.raises(RuntimeError) as info:
        x.permute(0, 1)
    text = str(info.value)
    assert "input.dim() = 3 is not equal to len(dims) = 2" in text.splitlines()[0]
    assert "shape (2, 3, 4)" in text and "(0, 1, 2)" in text
    with pytest.raises(RuntimeError) as info:
        x.permute(0, 2, -1)
    first, *rest = str(info.value).splitlines()
    assert first == "permute(): duplicate dims are not allowed."
    assert "(0, 2, -1)" in rest[0] and "(0, 2, 2)" in rest[0]


def test_flatten_start_after_end_text() -> None:
    x = st.zeros(2, 3, 4)
    with pytest.raises(RuntimeError) as info:
        x.flatten(-1, 1)
    first, second = str(info.value).splitlines()
    assert first == "flatten() has invalid args: start_dim cannot come after end_dim"
    assert "start_dim=-1 is dim 2" in second and "end_dim=1 is dim 1" in second


def test_narrow_and_split_texts() -> None:
    x = st.zeros(3, 4)
    with pytest.raises(RuntimeError) as info:
        x.narrow(1, 2, 3)
    assert "the largest length from start 2 is 2" in str(info.value)
    with pytest.raises(RuntimeError, match=r"^split_with_sizes expects split_sizes to sum exactly to 3"):
        x.split([1, 1])


def test_as_strided_out_of_bounds_text() -> None:
    x = st.zeros(3, 4)
    with pytest.raises(RuntimeError) as info:
        x.as_strided((3, 4), (4, 2))
    first, second = str(info.value).splitlines()
    assert first == (
        "setStorage: sizes [3, 4], strides [4, 2], storage offset 0, and itemsize 4 requiring a "
        "storage size of 60 are out of bounds for storage of size 48"
    )
    assert "index 14 of a storage of 12 elements" in second


def test_advanced_index_kinds_are_copies() -> None:
    # lists, bools, arrays and tensors are advanced indexing, as in torch and NumPy: a copy
    # (tests/test_advanced_indexing.py tests them against torch)
    x = st.zeros(3, 4)
    for key in ([0, 1], True, np.array([0]), (0, [1])):
        assert x[key].base is None
    # a second Ellipsis: torch 2.13 accepts it (each moves past the dims the others leave) and
    # strided follows it for Tensor indexing (tests/test_two_ellipses.py); NumPy refuses
    assert x[..., 0, ...].shape == (3,)
    with pytest.raises(IndexError):
        np.zeros((3, 4))[..., 0, ...]


def test_failed_ops_leave_every_tensor_unchanged() -> None:
    root = st.arange(24, dtype="float32")
    x = root.view(2, 3, 4).permute(2, 0, 1)[1:, :, ::2]
    other = x.diagonal(0, 1, 2)
    snap = [_snapshot(t) for t in (root, x, other)]
    bad = [
        lambda: x.view(-1), lambda: x.view(5, 5), lambda: x.expand(9, 9, 9), lambda: x.permute(0, 0, 1),
        lambda: x.select(0, 7), lambda: x[0, 0, 0, 0], lambda: x.narrow(2, 1, 5), lambda: x.unfold(0, 9, 1),
        lambda: x.as_strided((100,), (1,)), lambda: x.flatten(2, 0), lambda: x.squeeze((0, 0)),
        lambda: x.split([1, 1]), lambda: x.movedim((0, 0), (1, 2)), lambda: x.unflatten(1, (4, 4)),
    ]
    for fn in bad:
        with pytest.raises(st.StridedError):
            fn()
    assert [_snapshot(t) for t in (root, x, other)] == snap


@pytest.mark.parametrize("name", sorted(SAME_FIRST_LINE) + sorted(SAME_CLASS_ONLY))
def test_every_view_error_explains_itself(name: str) -> None:
    """After the peer's first line comes at least one indented line in the tensor's own terms,
    and every method it names as a fix exists on strided.Tensor (nothing torch-only)."""
    shape, fn = {**SAME_FIRST_LINE, **SAME_CLASS_ONLY}[name]
    _t, s = _pair(shape)
    err = _raises(fn, s)
    first, *rest = str(err).splitlines()
    assert rest and all(line.startswith("  ") for line in rest), f"{name}: no detail line: {err}"
    for method in re.findall(r"(?<!strided)(?<!numpy)(?<!np)\.([a-z_]\w*)\(", "\n".join(rest)):
        assert hasattr(st.Tensor, method), f"{name}: advises .{method}(), which strided lacks: {err}"
    for fn_name in re.findall(r"strided\.([a-z_]+)\(", "\n".join(rest)):
        assert hasattr(st, fn_name), f"{name}: advises strided.{fn_name}(), which strided lacks: {err}"


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda: st.zeros(3, 4).view(-2, 6), ["sizes must be 0 or more, or -1", "12 elements"]),
        (lambda: st.zeros(0, 4).view(-1, 0), ["write the size you mean instead of -1, e.g. [0, 0]"]),
        (lambda: st.tensor(1.0).select(0, 0), ["0-d (shape ())", ".item()"]),
        (lambda: st.tensor(1.0).narrow(0, 0, 1), ["0-d (shape ())", ".unsqueeze(0)"]),
        (lambda: st.zeros(3, 4).narrow(1, 0, -1), ["length -1", "shape (3, 4)"]),
        (lambda: st.zeros(3, 4).narrow(1, 5, 0), ["dim 1 of shape (3, 4) has size 4", "-4..4"]),
        (lambda: st.zeros(3, 4).diagonal(0, 1, -1), ["dim1=1 and dim2=-1 both name dim 1", "diagonal(0, 1, 0)"]),
        (lambda: st.zeros(3, 4).unfold(1, 5, 1), ["window of 5", "shape (3, 4)", "unfold(1, 4, step)"]),
        (lambda: st.zeros(3, 4).unfold(1, 2, 0), ["along dim 1", "step=2"]),
        (lambda: st.zeros(3, 4).unfold(1, -1, 1), ["window length along dim 1", "0..4"]),
        (lambda: st.zeros(3, 1).movedim((0, 1), (0,)), ["source names 2 dim(s) and destination 1"]),
        (lambda: st.zeros(3).expand(-1, 3), ["shape (3,)", "target dim 0 an explicit size"]),
        (lambda: st.zeros(6, 4).unflatten(0, (4, 2)), ["multiply to 8", "has 6 entries", "unflatten(0, (2, -1))"]),
        (lambda: st.zeros(6, 4).unflatten(0, (4, -1)), ["other than -1 multiply to 4, which does not divide 6"]),
        (lambda: st.zeros(6, 4).unflatten(0, ()), ["dim 0 of shape (6, 4)"]),
        (lambda: st.zeros(3, 4).split([1, 1]), ["sum to 2", "split([1, 1, 1], 0)"]),
        (lambda: st.zeros(3, 4).split([4, -1]), ["summing to 3"]),
        (lambda: st.zeros(3, 4).split(0), ["3 entries of dim 0", "split(3, 0)"]),
        (lambda: st.zeros(3, 4).split(-1), ["shape (3, 4)"]),
        (lambda: st.zeros(3, 4).chunk(0), ["shape (3, 4)", "chunk(1)"]),
        (lambda: st.tensor(1.0).unbind(), ["0-d", ".unsqueeze(0).unbind()"]),
        (lambda: st.zeros(3)[1.5:], ["dim 0 (size 3)", "int(...)"]),
        (lambda: st.zeros(3, 4)[:, ::0], ["dim 1 (size 4)"]),
        (lambda: st.zeros(3).mT, ["shape (3,)", ".unsqueeze(0).mT"]),
    ],
)
def test_view_error_detail_lines(make: Callable[[], Any], expected: list[str]) -> None:
    with pytest.raises(st.StridedError) as info:
        make()
    _first, *rest = str(info.value).splitlines()
    detail = "\n".join(rest)
    for text in expected:
        assert text in detail, f"{text!r} not in:\n{info.value}"


def test_first_line_survives_a_web_search() -> None:
    """The first line never carries our extra detail: only PyTorch's words (regex-safe check)."""
    for shape, fn in SAME_FIRST_LINE.values():
        _t, s = _pair(shape)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn(s)
        except st.StridedError as err:
            first = str(err).splitlines()[0]
            assert not first.startswith(" ") and not re.search(r"\bfix:", first)


# ---------------------------------------------------------------- every refusal tells the truth


@settings(max_examples=150, deadline=None)
@given(spec=specs(), data=hs.data())
def test_view_refusal_numbers_are_true(spec: Spec, data: Any) -> None:
    """Whenever view refuses (exactly when torch does), the dims, the equation and the byte count
    in the message are the layout's own, and reshape copies exactly the bytes announced."""
    shape = data.draw(new_shapes(spec.shape).filter(lambda a: -1 not in a and min(a, default=0) >= 0))
    if math.prod(shape) != math.prod(spec.shape):
        return
    s = build_strided(spec)
    t = build_torch(spec)
    try:
        t.view(shape)
        torch_refuses = False
    except RuntimeError:
        torch_refuses = True
    try:
        s.view(shape)
    except st.ViewError as err:
        assert torch_refuses
        r = err.refusal
        assert r.inner == r.outer + 1 and spec.shape[r.outer] != 1
        assert spec.strides[r.outer] != r.needed_stride
        text = str(err)
        assert f"merge dims {r.outer} and {r.inner}" in text
        m = re.search(r"needs stride\[(\d+)\] == (.*?) = ([\d ,*-]+) = (-?\d+), but stride\[\d+\] is (-?\d+)", text)
        assert m, text
        assert int(m.group(1)) == r.outer and int(m.group(4)) == r.needed_stride
        assert math.prod(int(v) for v in m.group(3).split(" * ")) == r.needed_stride
        assert int(m.group(5)) == spec.strides[r.outer]
        nbytes = s.numel() * s.element_size()
        assert f"copies {nbytes} bytes" in text
        with st.record_copies() as copies:
            s.reshape(shape)
        assert sum(c.nbytes for c in copies) == nbytes
    else:
        assert not torch_refuses
