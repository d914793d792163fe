"""Compiled fronts on permuted dense operands (a transpose at offset 0; kernels/_front.h's
front_dense_of, front_dense_pair): the unary fronts whose forward's fast path runs a transpose
over its storage in memory order (strided.kernels.memory.dense_run), and the binary ones whose
forward pairs a transpose with its twin or a float (binary._flat_plans), take that call in C too. Every such call must
give the forward's result to the bit, with the forward's strides; the call must really be made
in C (else nothing here is tested); every other layout still goes to the forward.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import torch

import strided as st
import strided.nn.functional as F
from strided.kernels.fpstate import quiet_call
from strided.kernels.memory import _DENSE
from strided.ops._support.front import fallback_of

NATIVE = st.Tensor.exp is not fallback_of(st.Tensor.exp)
pytestmark = pytest.mark.skipif(not NATIVE and os.environ.get("STRIDED_REQUIRE_NATIVE") != "1",
                                reason="the copy kernel is not built: no fronts")


def _unary_fronts() -> dict[str, object]:
    """Every one-argument elementwise front: Tensor methods and strided.nn.functional's."""
    found = {}
    for where, space in (("Tensor.", vars(st.Tensor)), ("F.", vars(F))):
        for name, f in space.items():
            table = getattr(f, "__front_table__", None)
            if table and all(isinstance(e, tuple) and len(e) in (3, 4) for e in table.values()) \
                    and type(f).__name__ == "Front" and _is_unary(f):
                found[where + name] = f
    return found


def _is_unary(f) -> bool:
    """Whether ``f`` is an elementwise op of one tensor (its result of a (2, 3) tensor is (2, 3))."""
    try:
        got = f(st.ones(2, 3))
    except Exception:  # noqa: BLE001 - not a one-argument call
        return False
    return isinstance(got, st.Tensor) and got.shape == (2, 3)


FRONTS = _unary_fronts()
BINARY = {n: f for n, f in vars(st.Tensor).items()
          if type(f).__name__ == "Front" and getattr(f, "__front_table__", None) and n not in FRONTS
          and all(isinstance(e, tuple) and len(e) in (6, 7) for e in f.__front_table__.values())}


def _data(dtype: st.dtype, n: int, rng: np.random.Generator) -> np.ndarray:
    """n values: normal ones and every special (NaN, infinities, signed zeros, tiny, huge)."""
    values = rng.standard_normal(n) * 3
    specials = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-40, 1e30, -1e30, 0.5, -0.5, 1.0,
                         -1.0, 88.5, -104.0, 710.0, 1e-310])
    values[rng.integers(0, n, n // 4)] = rng.choice(specials, n // 4)
    return values.astype(dtype.numpy) if dtype not in (st.bfloat16,) else values


def _layouts(dtype: st.dtype) -> dict[str, st.Tensor]:
    """Permuted dense operands (the C path) and permuted ones that are not at offset 0 or not dense."""
    rng = np.random.default_rng(7)
    base = st.tensor(_data(dtype, 64 * 67 + 40, rng)).to(dtype)
    return {
        "transpose": base[: 5 * 7].reshape(5, 7).t(),
        "large transpose": base[: 64 * 67].reshape(64, 67).t(),  # (vector blocks and a tail)
        "3-d permute": base[: 3 * 4 * 5].reshape(3, 4, 5).permute(2, 0, 1),
        "3-d permute 2": base[: 6 * 2 * 9].reshape(6, 2, 9).permute(1, 2, 0),
        "offset transpose": base[3 : 3 + 35].reshape(5, 7).t(),
        "stepped transpose": base[: 70 : 2].reshape(5, 7).t(),
        "size-1 dim": base[:7].reshape(1, 7).t(),
    }


def _same(a, b):
    if isinstance(a, BaseException) or isinstance(b, BaseException):
        assert type(a) is type(b) and str(a) == str(b), (a, b)
        return
    assert (a.dtype, a.shape, a.stride(), a.storage_offset()) == (b.dtype, b.shape, b.stride(), b.storage_offset())
    assert a._np().tobytes() == b._np().tobytes()


def _run(f, x):
    try:
        return f(x)
    except Exception as e:  # noqa: BLE001 - compared with the forward's own
        return e


def test_the_unary_fronts_are_found():
    for name in ("Tensor.exp", "Tensor.isnan", "Tensor.ceil", "Tensor.sigmoid", "Tensor.relu", "F.silu", "F.elu"):
        assert name in FRONTS, name


@pytest.mark.parametrize("dtype", [st.float32, st.float64, st.float16, st.bfloat16, st.int64, st.bool], ids=str)
def test_a_permuted_operand_gives_the_forwards_result(dtype):
    for name, front in FRONTS.items():
        forward = fallback_of(front)
        for where, x in _layouts(dtype).items():
            want = _run(forward, x)
            for _ in range(2):  # (the first call of a layout fills the memo; the second is made in C)
                try:
                    _same(_run(front, x), want)
                except AssertionError as e:
                    raise AssertionError(f"{name} on a {where} {dtype}: {e}") from None


@pytest.mark.parametrize("dtype", [st.float32, st.float64, st.float16, st.int64, st.int32, st.bool], ids=str)
def test_a_permuted_pair_gives_the_forwards_result(dtype):
    rng = np.random.default_rng(11)
    lays = _layouts(dtype)
    twins = {where: st.tensor(_data(dtype, x.numel(), rng)).to(dtype).reshape(x.shape[::-1]).t()
             if x.dim() == 2 else None for where, x in lays.items()}
    for name, front in BINARY.items():
        forward = fallback_of(front)
        for where, x in lays.items():
            others = [x, 2.5, -0.0, float("nan"), 3, x.contiguous()]
            if twins[where] is not None and twins[where].stride() == x.stride():
                others.append(twins[where])
            for y in others:
                want = _run2(forward, x, y)
                for _ in range(2):  # (the first call of a layout fills the plan memo; the second is made in C)
                    try:
                        _same(_run2(front, x, y), want)
                    except AssertionError as e:
                        raise AssertionError(f"{name} on a {where} {dtype} with {type(y).__name__}: {e}") from None


def test_the_binary_fronts_are_found():
    for name in ("add", "mul", "sub", "__truediv__", "eq", "lt", "maximum", "bitwise_and"):
        assert name in BINARY, name


def _run2(f, x, y):
    try:
        return f(x, y)
    except Exception as e:  # noqa: BLE001 - compared with the forward's own
        return e


def _python_entered(front, x, *more) -> set[str]:
    """The strided functions (by name) whose Python code runs when ``front(x)`` is called."""
    seen = set()

    def hook(frame, event, arg):
        if event == "call" and "strided" in frame.f_code.co_filename:
            seen.add(frame.f_code.co_name)

    sys.setprofile(hook)
    try:
        front(x, *more)
    finally:
        sys.setprofile(None)
    return seen


@pytest.mark.parametrize("name", ["Tensor.exp", "Tensor.isnan", "Tensor.ceil", "Tensor.sin", "Tensor.relu", "F.silu"])
def test_a_transpose_is_taken_in_c_once_its_layout_is_known(name, room_in_the_dense_memo):
    front = FRONTS[name]
    x = st.tensor(np.arange(1.0, 13.0, dtype=np.float32).reshape(3, 4)).t()
    front(x)  # (the forward's dense_run records the layout)
    assert (x.shape, x.stride()) in _DENSE
    assert "dense_run" not in _python_entered(front, x), name
    y = st.tensor(np.arange(1.0, 16.0, dtype=np.float32))[1:13].reshape(3, 4).t()  # (offset 1: the forward)
    assert "dense_run" in _python_entered(front, y), name


@pytest.mark.parametrize("name", ["add", "mul", "lt", "maximum"])
def test_a_transposed_pair_is_taken_in_c_once_its_plan_is_known(name, room_in_the_dense_memo):
    front = BINARY[name]
    x = st.tensor(np.arange(1.0, 13.0, dtype=np.float32).reshape(3, 4)).t()
    y = st.tensor(np.arange(5.0, 17.0, dtype=np.float32).reshape(3, 4)).t()
    front(x, y)  # (the forward's plan memo)
    assert not _python_entered(front, x, y) & {"fn", "_flat_plan"}, name
    if name != "maximum":  # (maximum takes no number)
        front(x, 2.5)
        assert not _python_entered(front, x, 2.5) & {"fn", "_flat_plan"}, name
    z = st.tensor(np.arange(5.0, 17.0, dtype=np.float32)).reshape(4, 3)  # (a row-major partner: the forward)
    assert "fn" in _python_entered(front, x, z)


def test_the_c_path_matches_torch_on_a_transpose():
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((33, 70)) * 3).astype(np.float32)
    x, tx = st.tensor(a).t(), torch.tensor(a).t()
    # (exp, sin: PyTorch's float32 bits differ from strided's in some elements, row-major too: known)
    for name in ("neg", "abs", "floor", "ceil", "isnan", "sigmoid", "relu", "square", "trunc"):
        for _ in range(2):
            got, want = getattr(st, name)(x), getattr(torch, name)(tx)
            assert got.stride() == want.stride(), name
            np.testing.assert_array_equal(got._np(), want.numpy())
    b = (rng.standard_normal((33, 70)) * 3).astype(np.float32)
    y, ty = st.tensor(b).t(), torch.tensor(b).t()
    for name in ("add", "sub", "mul", "div", "eq", "lt", "maximum", "minimum", "fmod"):
        for other, tother in ((y, ty), (2.5, 2.5)) if name not in ("maximum", "minimum") else ((y, ty),):
            for _ in range(2):
                got, want = getattr(st, name)(x, other), getattr(torch, name)(tx, tother)
                assert got.stride() == want.stride(), name
                np.testing.assert_array_equal(got._np(), want.numpy())


def test_the_front_refuses_dense_on_a_ternary_front():
    from strided.kernels import _copykernel as k
    from strided.kernels.listeners import OPEN
    from strided.ops._support.operands import _cinfo

    with pytest.raises(TypeError, match="dense is a dict"):
        k.front(len, 3, {}, _cinfo, OPEN, quiet_call, np.empty, None, None, _DENSE, frozenset((st.float32,)))
    with pytest.raises(TypeError, match="dense is a dict"):
        k.front(len, 1, {st.float32: (np.exp, False, None)}, _cinfo, OPEN, quiet_call, np.empty, None, None, _DENSE,
                (st.float32,))


WHOLE = ("amax", "amin", "max", "min")


@pytest.mark.parametrize("dtype", [st.float32, st.float64, st.float16, st.int64], ids=str)
def test_whole_extremes_give_the_forwards_result(dtype):
    """amax() / amin() / max() / min() of every element: the fronts' sure kernel answer (row-major or
    a transpose) against the forward, on plain values and on zeros of both signs and NaN."""
    rng = np.random.default_rng(5)
    plain = st.tensor(rng.uniform(0.1, 9.0, 64 * 67 + 40)).to(dtype)
    lays = {**_layouts(dtype),
            "plain rows": plain[: 64 * 67].reshape(64, 67), "plain transpose": plain[: 64 * 67].reshape(67, 64).t(),
            "plain 3-d permute": plain[:60].reshape(3, 4, 5).permute(2, 0, 1), "0-d": plain[3], "empty": plain[:0],
            "zeros": st.tensor([[0.0, -0.0], [-0.0, 0.0]]).to(dtype).t()}
    for name in WHOLE:
        front = getattr(st.Tensor, name)
        forward = fallback_of(front)
        for where, x in lays.items():
            want = _run(forward, x)
            for _ in range(2):
                try:
                    _same(_run(front, x), want)
                except AssertionError as e:
                    raise AssertionError(f"{name} of a {where} {dtype}: {e}") from None


@pytest.mark.parametrize("name", WHOLE)
def test_whole_extremes_of_a_transpose_are_taken_in_c(name, room_in_the_dense_memo):
    front = getattr(st.Tensor, name)
    x = st.tensor(np.arange(1.0, 13.0, dtype=np.float32).reshape(3, 4)).t()
    st.exp(x)  # (the dense memo learns the layout)
    assert not _python_entered(front, x) & {name, "sure_extreme", "_full_extreme"}, name
    assert front(x).item() == (12.0 if name in ("amax", "max") else 1.0)


def test_whole_extremes_match_torch():
    rng = np.random.default_rng(9)
    for dtype in (np.float32, np.float64):
        for a in (rng.standard_normal((40, 33)).astype(dtype), np.array([[0.0, -0.0], [1.0, -1.0]], dtype),
                  np.array([[-0.0, -0.0]], dtype), np.array([[np.nan, 1.0]], dtype)):
            for x, tx in ((st.tensor(a), torch.tensor(a)), (st.tensor(a).t(), torch.tensor(a).t())):
                for name in WHOLE:
                    got, want = getattr(x, name)(), getattr(tx, name)()
                    assert got.shape == tuple(want.shape)
                    assert got._np().tobytes() == want.numpy().tobytes(), (name, a)
