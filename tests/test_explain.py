"""Tests of ``explain``: its misuse errors, that it never touches or allocates, the elementwise
predictions against real PyTorch / NumPy / strided runs, ``explain(x)`` layout descriptions,
and snapshots of the printed reports."""

from __future__ import annotations

import importlib.util
import random
import time
import warnings
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from explain_cases import random_spec
from layouts import build_numpy, build_strided, build_torch, specs
from strided.diagnose.explain import explain
from strided.diagnose.explain_broadcast import ELEMENTWISE_OPS
from strided.diagnose.explain_layout import LayoutExplanation, chunks_of
from strided.diagnose.explain_torch import TORCH_OPS
from strided.diagnose.report import Explanation
from strided.dispatch import listen
from strided.layout import numpy_elementwise_output_strides as numpy_output_strides

HAS_NUMPY_EXPLAIN = importlib.util.find_spec("strided.diagnose.explain_numpy") is not None


# ---------------------------------------------------------------- misuse


@pytest.mark.parametrize("x", [5, [1, 2], "abc", None, (2, 3)])
def test_x_must_be_an_array(x: Any) -> None:
    with pytest.raises(TypeError, match=r"x must be a strided Tensor, a numpy.ndarray or a torch.Tensor, not "):
        explain(x, "view", 3)


@pytest.mark.parametrize("x", [torch.zeros(3), st.zeros(3)])
def test_unknown_op_lists_the_accepted_ones(x: Any) -> None:
    with pytest.raises(ValueError, match=r"unknown op 'frobnicate'") as info:
        explain(x, "frobnicate", 1)
    text = str(info.value)
    assert all(op in text for op in TORCH_OPS)
    assert "elementwise ops: add, sub" in text
    assert ("a PyTorch tensor" if isinstance(x, torch.Tensor) else "a strided Tensor") in text


def test_numpy_layout_ops_go_to_explain_numpy() -> None:
    if HAS_NUMPY_EXPLAIN:
        with pytest.raises(ValueError, match=r"unknown op 'view' for a numpy.ndarray"):
            explain(np.zeros(3), "view", 3)  # NumPy has no view(shape)
    else:
        with pytest.raises(NotImplementedError, match=r"strided.diagnose.explain_numpy"):
            explain(np.zeros(3), "reshape", 3)


def test_op_must_be_a_name() -> None:
    with pytest.raises(TypeError, match=r"op must be an op name \(a string\), not int"):
        explain(torch.zeros(3), 3)


def test_no_op_takes_no_arguments() -> None:
    with pytest.raises(TypeError, match=r"name the op first"):
        explain(torch.zeros(3), None, 3)


@pytest.mark.parametrize("args", [(), (1, 2)])
def test_elementwise_takes_one_operand(args: tuple) -> None:
    with pytest.raises(TypeError, match=r"takes exactly one second operand"):
        explain(torch.zeros(3), "add", *args)


@pytest.mark.parametrize("other", ["3", {"a": 1}, (2, "x"), object()])
def test_elementwise_operand_kinds(other: Any) -> None:
    with pytest.raises(TypeError, match=r"must be a strided Tensor, a numpy.ndarray, a torch.Tensor, "
                                        r"a Python number or a shape tuple of ints, not"):
        explain(np.zeros(3), "add", other)


def test_a_call_the_library_refuses_is_a_prediction_not_a_raise() -> None:
    r = explain(torch.zeros(2, 3), "permute", 0)
    assert r.outcome == "error" and r.error_class == "RuntimeError"
    r = explain(torch.zeros(2, 3), "view", "a")
    assert r.outcome == "error" and r.error_class == "TypeError"


# ---------------------------------------------------------------- never touches, never allocates


def test_huge_expanded_reshape_is_explained_without_memory() -> None:
    """A (10**6, 10**6) expanded tensor: its transpose's flatten would copy 4 TB."""
    x = torch.zeros(10**6, 1).expand(10**6, 10**6).t()  # strides (0, 1): no view merges them
    start = time.perf_counter()
    r = explain(x, "reshape", -1)
    assert r.outcome == "copy" and r.bytes_copied == 4 * 10**12 and r.shape == (10**12,)
    r = explain(x, "contiguous")
    assert r.outcome == "copy" and r.strides == (10**6, 1)
    s = st.zeros(10**6, 1).expand(10**6, 10**6).t()
    r = explain(s, "flatten")
    assert r.outcome == "copy" and r.bytes_copied == 4 * 10**12
    assert time.perf_counter() - start < 5  # (generous: a real copy could not finish at all)


def test_explain_never_mutates_x_nor_reports_to_listeners() -> None:
    t = torch.arange(12.0).reshape(3, 4).t()
    s = st.arange(12.0).reshape(3, 4).t()
    a = np.arange(12.0).reshape(3, 4).T
    version = t._version
    seen: list = []
    with listen(seen.append), st.record_copies() as ledger:
        for op, args in (("reshape", (12,)), ("contiguous", ()), ("to", (torch.float64,)), ("clone", ()),
                         ("view", (12,)), ("ravel", ()), ("transpose", (0, 1))):
            explain(t, op, *args)
            explain(s, op, *(st.float64 if a is torch.float64 else a for a in args))
        explain(t, "add", t)
        explain(s, "sub", (4, 1))
        explain(a, "add", 1.0)
        explain(t)
        explain(s)
        explain(a)
    assert seen == [] and list(ledger) == []
    assert t._version == version and t.stride() == (1, 4) and t.tolist() == torch.arange(12.0).reshape(3, 4).t().tolist()
    assert s.stride() == (1, 4) and s.tolist() == t.tolist()
    assert a.strides == (8, 32) and a.tolist() == t.tolist()


# ---------------------------------------------------------------- elementwise vs the libraries

_TORCH_FN = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "truediv": torch.true_divide,
             "eq": torch.eq, "lt": torch.lt, "maximum": torch.maximum, "pow": torch.pow}
_NP_FN = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
          "eq": np.equal, "lt": np.less, "maximum": np.maximum, "pow": np.power}


def _other_shape(rng: random.Random, shape: tuple[int, ...]) -> tuple[int, ...]:
    out = [n if rng.random() < 0.6 else 1 for n in shape]
    if out and rng.random() < 0.3:
        out = out[rng.randint(0, len(out)):]
    if rng.random() < 0.2:
        out = [rng.randint(1, 3), *out]
    if out and rng.random() < 0.1:
        out[rng.randrange(len(out))] = rng.randint(0, 4)  # often a mismatch
    return tuple(out)


def _stretched(shape: tuple[int, ...], result: tuple[int, ...]) -> tuple[int, ...]:
    if not shape:
        return ()  # a 0-d operand is a scalar: never counted as stretched (flow.broadcast_of)
    lead = len(result) - len(shape)
    return tuple(d for d in range(len(result)) if result[d] > 1 and (d < lead or shape[d - lead] == 1))


def _check_broadcast(rep: Explanation, xs: tuple, os: tuple | None) -> None:
    if os is None:
        assert rep.broadcast is None or rep.broadcast.stretched[1] == ()
        return
    sx, so = _stretched(xs, rep.shape), _stretched(os, rep.shape)
    if not sx and not so:
        assert rep.broadcast is None
    else:
        assert rep.broadcast.stretched == (sx, so)
        assert rep.broadcast.bilateral == bool(sx and so)


def _operands(rng: random.Random, negative: bool) -> tuple[Any, Any]:
    sx = random_spec(rng, negative=negative)
    r = rng.random()
    if r < 0.15:
        return sx, rng.choice([2, 1.5, 3])
    so = random_spec(rng, negative=negative, shape=_other_shape(rng, sx.shape))
    return sx, so if r < 0.9 else so.shape


def test_elementwise_matches_torch() -> None:
    rng = random.Random(11)
    for _ in range(3000):
        sx, o = _operands(rng, negative=False)
        op = rng.choice(list(_TORCH_FN))
        x = torch.zeros(sx.storage_size, dtype=rng.choice([torch.float32, torch.float64, torch.int64])) \
            .as_strided(sx.shape, sx.strides, sx.offset)
        if hasattr(o, "storage_size"):
            other = torch.zeros(o.storage_size, dtype=rng.choice([torch.float32, torch.int64])) \
                .as_strided(o.shape, o.strides, o.offset)
        else:
            other = o
        real_other = torch.zeros(other, dtype=x.dtype) if isinstance(other, tuple) else other
        rep = explain(x, op, other)
        try:
            r = _TORCH_FN[op](x, real_other)
        except RuntimeError as exc:
            assert rep.outcome == "error" and rep.error_class == "RuntimeError", (rep, exc)
            assert rep.error.split(": ", 1)[1] == str(exc).split("\n")[0]
            continue
        except TypeError:
            assert rep.outcome == "error" and rep.error_class == "TypeError"
            continue
        what = (sx, o, op, x.dtype, getattr(other, "dtype", other), str(rep))
        assert rep.outcome == "compute", what
        assert (rep.shape, rep.strides) == (tuple(r.shape), r.stride()), what
        _check_broadcast(rep, tuple(x.shape), None if isinstance(o, (int, float)) else tuple(real_other.shape))


def test_elementwise_matches_numpy() -> None:
    rng = random.Random(12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(3000):
            sx, o = _operands(rng, negative=True)
            op = rng.choice(list(_NP_FN))
            # (astype keeps the memory order of a dense layout, and densifies the others)
            x = build_numpy(sx).astype(rng.choice([np.float32, np.float64, np.int64]), copy=False)
            other = build_numpy(o) if hasattr(o, "storage_size") else o
            real_other = np.zeros(other, dtype=x.dtype) if isinstance(other, tuple) else other
            rep = explain(x, op, other)
            try:
                r = np.asarray(_NP_FN[op](x, real_other))
            except ValueError as exc:
                assert rep.outcome == "error" and rep.error == f"ValueError: {exc}", (rep, exc)
                continue
            what = (sx, o, op, x.dtype, x.strides, str(rep))
            assert rep.outcome == "compute", what
            assert (rep.shape, rep.strides) == (r.shape, tuple(s // r.itemsize for s in r.strides)), what
            _check_broadcast(rep, x.shape, None if isinstance(o, (int, float)) else np.shape(real_other))


def test_elementwise_matches_strided() -> None:
    rng = random.Random(13)
    fns = {"add": st.add, "sub": st.sub, "mul": st.mul, "truediv": st.div, "eq": st.eq, "maximum": st.maximum}
    for _ in range(1500):
        sx, o = _operands(rng, negative=False)
        op = rng.choice(list(fns))
        x = build_strided(sx)
        if rng.random() < 0.5:
            x = x.to(st.float32)
        other = build_strided(o) if hasattr(o, "storage_size") else o
        real_other = st.zeros(other, dtype=x.dtype) if isinstance(other, tuple) else other
        rep = explain(x, op, other)
        try:
            r = fns[op](x, real_other)
        except (RuntimeError, TypeError) as exc:
            assert rep.outcome == "error", (rep, exc)
            continue
        what = (sx, o, op, str(rep))
        assert (rep.shape, rep.strides) == (r.shape, r.stride()), what


@pytest.mark.parametrize(("shape", "operands", "expected"), [
    ((3, 4, 1), [((3, 4, 1), (1, 3, 12)), ((), ())], (1, 3, 12)),   # F-contiguous: the trivial loop
    ((3, 4, 1), [((3, 4, 1), (1, 3, 12)), ((1,), (1,))], (1, 3, 1)),  # the iterator: size-1 dims defer
    ((1, 3), [((1, 3), (1, 1)), ((), ())], (3, 1)),                  # C and F: C wins
    ((4, 3), [((4, 3), (1, 4)), ((3,), (1,))], (1, 4)),              # x decides; other's dim 0 is 0
    ((4, 3), [((4, 3), (1, 4)), ((4, 3), (3, 1))], (3, 1)),          # a conflict: C order wins
    ((0, 3), [((0, 3), (3, 1)), ((), ())], (0, 0)),                  # empty: all zero
])
def test_numpy_output_strides_pinned(shape: tuple, operands: list, expected: tuple) -> None:
    assert numpy_output_strides(shape, operands) == expected
    arrays = [np.lib.stride_tricks.as_strided(np.zeros(64), s, tuple(8 * k for k in st_)) for s, st_ in operands]
    r = np.add(*arrays)
    assert tuple(k // 8 for k in r.strides) == expected


def test_elementwise_accepts_every_listed_name() -> None:
    x = torch.zeros(2, 1, dtype=torch.int64)
    for op in ELEMENTWISE_OPS:
        r = explain(x, op, (3,))
        if op in ("hypot", "logaddexp", "logaddexp2"):  # float-only kernels in PyTorch: predicted as its error
            assert r.error == f"NotImplementedError: \"{op}_cpu\" not implemented for 'Long'"
            with pytest.raises(NotImplementedError, match=f"{op}_cpu"):  # (torch agrees)
                getattr(torch, op)(x, torch.tensor(3))
            r = explain(x.double(), op, (3,))
        assert r.outcome == "compute" and r.shape == (2, 3) and r.broadcast.bilateral


# ---------------------------------------------------------------- explain(x)


def _positions(shape: tuple, strides: tuple) -> list[int]:
    pos = [0]
    for n, s in zip(shape, strides):
        pos = [p + i * s for p in pos for i in range(n)]
    return pos if all(shape) else []


def test_layout_descriptions_match_the_libraries() -> None:
    rng = random.Random(14)
    for _ in range(600):
        spec = random_spec(rng)
        t = build_torch(spec)
        a = build_numpy(spec)
        s = build_strided(spec)
        for x, lib in ((t, "torch"), (a, "numpy"), (s, "strided")):
            r = explain(x)
            assert isinstance(r, LayoutExplanation) and r.library == lib
            assert (r.shape, r.strides) == (spec.shape, spec.strides)
            assert r.offset == (spec.offset if lib != "numpy" or 0 not in spec.shape else r.offset)
            pos = _positions(spec.shape, spec.strides)
            assert r.repeats == (len(set(pos)) < len(pos))
            assert r.base is not None  # every one is a view of its arange
        rt = explain(t)
        assert rt.c_contiguous == t.is_contiguous()
        assert rt.channels_last == (t.ndim == 4 and t.is_contiguous(memory_format=torch.channels_last))
        assert explain(a).c_contiguous == a.flags.c_contiguous
        assert explain(a).f_contiguous == a.flags.f_contiguous
        # chunks: merging the dims of one chunk is a view; across a boundary of two chunks it is not
        chunks = rt.chunks
        assert [d for c in chunks for d in c.dims] == list(range(t.ndim))
        if t.numel() == 0:
            continue
        for c in chunks:
            new = (*spec.shape[:c.dims[0]], -1, *spec.shape[c.dims[-1] + 1:])
            t.view(new)
        for c0, c1 in zip(chunks, chunks[1:]):
            new = (*spec.shape[:c0.dims[0]], -1, *spec.shape[c1.dims[-1] + 1:])
            with pytest.raises(RuntimeError):
                t.view(new)


def test_layout_of_owning_arrays_and_chunks() -> None:
    assert explain(torch.zeros(2, 3)).base is None
    assert explain(np.zeros((2, 3))).base is None
    assert explain(st.zeros(2, 3)).base is None
    assert chunks_of((2, 3, 4), (12, 4, 1))[0].dims == (0, 1, 2)
    assert [c.dims for c in chunks_of((2, 3, 4), (1, 8, 2))] == [(0,), (1, 2)]


# ---------------------------------------------------------------- snapshots


def test_snapshot_transpose_view_failure() -> None:
    assert str(explain(torch.zeros(3, 4).t(), "view", 12)) == """\
torch: x.view(12)
  input:  shape (4, 3), strides (1, 4), offset 0
  → error: RuntimeError: view size is not compatible with input tensor's size and stride (at least one \
dimension spans across two contiguous subspaces). Use .reshape(...) instead.
  tensor: shape (4, 3), strides (1, 4) — the transpose of a contiguous (3, 4)
  view(12) must merge dims 0 and 1 into its dim 0, which needs stride[0] == size[1] * stride[1] = 3 * 4 = 12, \
but stride[0] is 1: walking dim 0 jumps back through memory instead of past the end of dim 1.
  fix: x.reshape(12)  (copies 48 bytes; a new contiguous tensor)
  fix: x.contiguous().view(12)  (copies 48 bytes; a new contiguous tensor)
  fix: x.permute(1, 0).view(-1)  (a view, 0 bytes; the same elements in memory order, not x's order \
(fine for a sum, a norm, an elementwise op))"""


def test_snapshot_reshape_copy() -> None:
    assert str(explain(st.zeros(2, 3, 4).permute(0, 2, 1), "reshape", 2, 12)) == """\
strided: x.reshape(2, 12)
  input:  shape (2, 4, 3), strides (12, 1, 4), offset 0
  → copy (96 bytes): shape (2, 12), strides (12, 1), offset 0
  copies 96 bytes (24 elements): reshape(2, 12): dims 1 and 2 cannot merge: stride[1] == size[2] * stride[2] \
= 3 * 4 = 12, but stride[1] is 1
    (walking dim 1 jumps back through memory instead of past the end of dim 2)
  x: shape (2, 4, 3), strides (12, 1, 4), offset 0 — a permute(0, 2, 1) of a contiguous (2, 3, 4)
  dims: merges input dims 1, 2 (4, 3) into output dim 1 (12)"""


def test_snapshot_bilateral_broadcast() -> None:
    pred, target = torch.zeros(64, 1), torch.zeros(64)
    assert str(explain(pred, "sub", target)) == """\
torch: x - other
  input:  shape (64, 1), strides (1, 1), offset 0
  → compute (a new result): shape (64, 64), strides (64, 1), offset 0
  bilateral broadcast: BOTH operands stretch, so the result (64, 64) (16,384 bytes) pairs every element of x \
with every element of other — the (B, 1) - (B,) kind. If an elementwise result was meant, line the dims up:
  x (64, 1) stretches along dim 1 (1 -> 64)
  other (64,) stretches along dim 0 (missing -> 64)
  fix: x.squeeze(1) - other  (a view, 0 bytes; the result is (64,) (256 bytes))
  fix: x - other[:, None]  (a view, 0 bytes; the result is (64, 1) (256 bytes))"""


def test_snapshot_layout() -> None:
    assert str(explain(torch.zeros(2, 4, 5, 3).permute(0, 3, 1, 2))) == """\
torch: shape (2, 3, 4, 5), strides (60, 1, 15, 3), offset 0, float32 (4 bytes each)
  contiguous: channels_last — a permute(0, 3, 1, 2) of a contiguous (2, 4, 5, 3)
  3 chunks (a view can merge dims only within one):
    dim 0 (2) alone, stride 60
    dim 1 (3) alone, stride 1
    dims 2..3 (4, 5) chain into one run of 20 with stride 3
  120 elements, each at its own memory location
  view of: a torch tensor of shape (2, 4, 5, 3), strides (60, 15, 3, 1)"""
    assert "20 elements at 4 distinct locations: some are reachable twice" in str(explain(st.zeros(4, 1).expand(4, 5)))


# ---------------------------------------------------------------- reasons, mappings, fixes


def test_reshape_like_ops_carry_the_dim_mapping() -> None:
    q = torch.zeros(2, 5, 12)
    r = explain(q, "view", 2, 3, 5, 4)  # the head split done wrong: (B, T, h*d) -> (B, h, T, d)
    assert r.outcome == "view" and r.mapping.kind == "regroup"
    assert r.mapping.regroups[0].inputs == (1, 2)
    assert "dims: regroups input dims 1, 2 (5, 12) into output dims 1, 2, 3 (3, 5, 4)" in str(r)
    assert explain(q, "view", 2, 5, 3, 4).mapping.kind == "split"
    assert explain(q, "flatten", 1).mapping.kind == "merge"
    assert explain(q, "unflatten", 2, (3, 4)).mapping.kind == "split"
    assert explain(q, "permute", 0, 2, 1).mapping is None


def test_reasons_speak_in_the_arrays_numbers() -> None:
    r = explain(torch.zeros(2, 3, 4).permute(0, 2, 1), "view", 2, 12)
    assert "stride[1] == size[2] * stride[2] = 3 * 4 = 12, but stride[1] is 1" in r.reason
    assert [f.bytes_copied for f in r.fixes] == [96, 96]  # reshape and contiguous().view, no 1-D view fix
    r = explain(torch.zeros(3, 4).t(), "contiguous")
    assert "dim 1 has stride 4, C order needs 1" in r.reason
    r = explain(torch.zeros(3, 4), "to", torch.bfloat16)
    assert r.bytes_copied == 24 and "x.to(torch.bfloat16)" in r.reason
    r = explain(torch.zeros(3, 4), "contiguous")
    assert r.outcome == "view" and r.returns_self and "returns x itself" in r.reason
    r = explain(torch.zeros(3, 4), "transpose", 0, 2)
    assert r.error.startswith("IndexError: Dimension out of range") and r.error in str(r)


def test_copy_fix_offered_only_when_true() -> None:
    """The memory-order flat view is offered for a copying flatten only when it is a view."""
    x = torch.zeros(3, 4).t()
    fix = explain(x, "flatten").fixes[0]
    assert fix.call == "x.permute(1, 0).view(-1)" and fix.bytes_copied == 0
    x.permute(1, 0).view(-1)  # (really a view)
    stepped = torch.zeros(4, 7)[:, :3].t()  # rows with gaps: no reordering makes it one run
    assert explain(stepped, "flatten").fixes == ()


@settings(max_examples=120, deadline=None)
@given(sx=specs(max_dims=4), data=hs.data())
def test_elementwise_strides_hypothesis(sx: Any, data: Any) -> None:
    """Hypothesis-drawn layouts for both operands (the other's shape broadcast-compatible):
    torch's and NumPy's real result strides."""
    shape = tuple(n if data.draw(hs.booleans()) else 1 for n in sx.shape)
    shape = shape[data.draw(hs.integers(0, len(shape))):]
    so = data.draw(specs(shape=shape, negative=True))
    t_other = None if so.has_negative else build_torch(so)
    if t_other is not None:
        x = build_torch(sx)
        r = x * t_other
        rep = explain(x, "mul", t_other)
        assert (rep.shape, rep.strides) == (tuple(r.shape), r.stride())
    a = build_numpy(sx)
    r = np.asarray(a * build_numpy(so))
    rep = explain(a, "mul", build_numpy(so))
    assert (rep.shape, rep.strides) == (r.shape, tuple(s // r.itemsize for s in r.strides))
