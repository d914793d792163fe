"""Matrix products against PyTorch 2.13 (and NumPy for negative strides).

Operands of every rank 0..4 with hard layouts (``layouts.specs(shape=...)``):
permuted, stepped, stride-0 expanded, odd-stride size-1 and zero-size. Shapes
are drawn to be compatible most of the time and to mismatch in the contracted
dim, the batch dims or the dtype otherwise, so that every route of PyTorch's
matmul (dot, mv, mm, folded mm/mv, bmm) is hit with good and bad operands.

Compared: shape, dtype, strides, values, and for errors the builtin class and
PyTorch's first line. Tolerances (relative, absolute): float64 1e-10/1e-10,
float32 1e-5/1e-5, float16 1e-2/5e-2 (|values| <= ~45); integers exact
(both wrap on overflow).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import build_valued, specs, valued_storage
from oracle_helpers import compare as oracle_compare

TOL = {"float64": (1e-10, 1e-10), "float32": (1e-5, 1e-5), "float16": (1e-2, 5e-2)}
DTYPES = ["float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool"]


def compare(fn_t: Any, fn_s: Any) -> None:
    """torch and strided agree (see ``oracle_helpers.compare``), with this file's tolerances."""
    oracle_compare(fn_t, fn_s, TOL)


def size() -> hs.SearchStrategy[int]:
    return hs.one_of(hs.integers(1, 4), hs.just(0), hs.just(1))


@hs.composite
def operand_shapes(draw: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two shapes for ``a @ b``: usually compatible, sometimes not (contracted or batch dims)."""
    da, db = draw(hs.integers(0, 4)), draw(hs.integers(0, 4))
    n, k, p = draw(size()), draw(size()), draw(size())
    k2 = draw(hs.one_of(hs.just(k), hs.just(k), hs.just(k), size()))
    batch = tuple(draw(size()) for _ in range(max(da, db) - 2)) if max(da, db) > 2 else ()

    def batch_of(nd: int) -> tuple[int, ...]:
        own = batch[len(batch) - max(nd - 2, 0):]
        return tuple(draw(hs.sampled_from([s, s, s, 1, s + 1])) for s in own)

    a = {0: (), 1: (k,), 2: (n, k)}.get(da) or batch_of(da) + (n, k)
    b = {0: (), 1: (k2,), 2: (k2, p)}.get(db) or batch_of(db) + (k2, p)
    return a, b


@hs.composite
def operands(draw: Any, shapes: Any, negative: bool = False, same_dtype: float = 0.85) -> tuple[Any, Any, str, str]:
    sa, sb = draw(shapes)
    dta = draw(hs.sampled_from(DTYPES))
    dtb = dta if same_dtype >= 1 or draw(hs.floats(0, 1)) < same_dtype else draw(hs.sampled_from(DTYPES))
    spec_a = draw(specs(shape=sa, negative=negative))
    spec_b = draw(specs(shape=sb, negative=negative))
    seed = draw(hs.integers(0, 2**16))
    return (build_valued(spec_a, valued_storage(spec_a, dta, seed)),
            build_valued(spec_b, valued_storage(spec_b, dtb, seed + 1)), dta, dtb)


@settings(max_examples=100, deadline=None)
@given(ops=operands(operand_shapes()))
def test_matmul_against_torch(ops: Any) -> None:
    (ta, _, sa), (tb, _, sb), _, _ = ops
    compare(lambda: ta @ tb, lambda: sa @ sb)


@settings(max_examples=100, deadline=None)
@given(ops=operands(operand_shapes()))
def test_matmul_function_and_rmatmul(ops: Any) -> None:
    (ta, _, sa), (tb, _, sb), _, _ = ops
    compare(lambda: torch.matmul(ta, tb), lambda: st.matmul(sa, sb))
    compare(lambda: tb.__rmatmul__(ta), lambda: sb.__rmatmul__(sa))


@hs.composite
def fixed_rank_shapes(draw: Any, ranks: tuple[int, int], op: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Shapes for mm/bmm/dot/outer, mostly of the right ranks and sizes."""
    ra = ranks[0] if draw(hs.floats(0, 1)) < 0.9 else draw(hs.integers(0, 4))
    rb = ranks[1] if draw(hs.floats(0, 1)) < 0.9 else draw(hs.integers(0, 4))
    a = tuple(draw(size()) for _ in range(ra))
    if op == "outer":
        b = tuple(draw(size()) for _ in range(rb))
    elif op == "dot":
        b = (a[0],) * rb if a and draw(hs.floats(0, 1)) < 0.8 else tuple(draw(size()) for _ in range(rb))
    elif op == "mm":
        b = ((a[-1],) + tuple(draw(size()) for _ in range(rb - 1))) if a and rb and draw(hs.floats(0, 1)) < 0.8 \
            else tuple(draw(size()) for _ in range(rb))
    else:  # bmm: (B, n, k) @ (B, k, p)
        b = tuple(draw(size()) for _ in range(rb))
        if len(a) == 3 and rb == 3 and draw(hs.floats(0, 1)) < 0.8:
            b = (a[0], a[2], b[2])
    return a, b


@settings(max_examples=100, deadline=None)
@given(data=hs.data(), op=hs.sampled_from(["mm", "bmm", "dot", "outer"]))
def test_mm_bmm_dot_outer_against_torch(data: Any, op: str) -> None:
    ranks = {"mm": (2, 2), "bmm": (3, 3), "dot": (1, 1), "outer": (1, 1)}[op]
    (ta, _, sa), (tb, _, sb), _, _ = data.draw(operands(fixed_rank_shapes(ranks, op)))
    compare(lambda: getattr(torch, op)(ta, tb), lambda: getattr(st, op)(sa, sb))
    compare(lambda: getattr(ta, op)(tb), lambda: getattr(sa, op)(sb))


@settings(max_examples=100, deadline=None)
@given(ops=operands(operand_shapes(), negative=True, same_dtype=1.0))
def test_negative_strides_against_numpy(ops: Any) -> None:
    (_, a, sa), (_, b, sb), dtype, _ = ops
    if a.ndim == 0 or b.ndim == 0 or dtype == "bool":
        return
    try:
        expected = np.matmul(a, b)
    except ValueError:
        with pytest.raises(RuntimeError):
            sa @ sb
        return
    result = sa @ sb
    assert result.shape == expected.shape and result.is_contiguous()
    rtol, atol = TOL.get(dtype, (0, 0))
    np.testing.assert_allclose(result.numpy(), expected, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- pinned cases


def test_error_texts_name_the_operands_and_a_fix() -> None:
    a, b = st.ones(3, 4), st.ones(5, 6)
    with pytest.raises(RuntimeError) as info:
        a @ b
    text = str(info.value)
    assert text.splitlines()[0] == "mat1 and mat2 shapes cannot be multiplied (3x4 and 5x6)"
    assert "a: shape (3, 4), strides (4, 1), float32; b: shape (5, 6)" in text and "fix:" in text
    with pytest.raises(RuntimeError, match=r"^expected m1 and m2 to have the same dtype, but got: float != double"):
        a @ st.ones(4, 2, dtype=st.float64)
    with pytest.raises(RuntimeError, match="both arguments to matmul need to be at least 1D, but they are 0D and 1D"):
        st.tensor(1.0) @ st.ones(3)
    with pytest.raises(NotImplementedError, match="\"addmm_impl_cpu_\" not implemented for 'Bool'"):
        st.ones(2, 2, dtype=st.bool) @ st.ones(2, 2, dtype=st.bool)
    with pytest.raises(TypeError, match="unsupported operand type"):
        st.ones(3) @ 2
    with pytest.raises(TypeError, match="must be Tensor"):
        st.matmul(st.ones(3), 2)


def test_matmul_rules_by_rank() -> None:
    """1-D @ 1-D, 2-D @ 1-D, 1-D @ 2-D, batch broadcasting and outer's promotion, each beside torch."""
    v, m = st.arange(3.0), st.arange(6.0).reshape(2, 3)
    tv, tm = torch.arange(3.0), torch.arange(6.0).reshape(2, 3)
    compare(lambda: tv @ tv, lambda: v @ v)
    assert (v @ v).shape == ()
    compare(lambda: tm @ tv, lambda: m @ v)
    compare(lambda: tv @ tm.t(), lambda: v @ m.t())
    compare(lambda: torch.arange(24.0).reshape(2, 1, 3, 4) @ torch.ones(5, 4, 2),
            lambda: st.arange(24.0).reshape(2, 1, 3, 4) @ st.ones(5, 4, 2))
    compare(lambda: torch.outer(torch.arange(2), torch.ones(3)),  # promotes like *
            lambda: st.outer(st.arange(2), st.ones(3)))


def test_operands_are_read_in_place() -> None:
    """Transposed and expanded operands are never copied by strided (the copy ledger stays empty)."""
    a = st.arange(12.0).reshape(4, 3).t().expand(2, 3, 4)
    b = st.arange(20.0).reshape(4, 5)[:, ::2]
    with st.record_copies() as copies:
        a @ b, st.mm(a[0], b), st.bmm(a, b.expand(2, 4, 3)), st.dot(a[0, 0], b[:, 0]), st.outer(a[0, 0], b[0])
    assert copies == []


def test_message_follows_pytorchs_route() -> None:
    """PyTorch folds a batch into one mv when its leading dims are contiguous, else runs bmm;
    the first line of the error follows the route, and the detail says why the sizes look odd."""
    with pytest.raises(RuntimeError) as folded:
        st.ones(2, 3, 4) @ st.ones(5)
    assert str(folded.value).splitlines()[0] == "size mismatch, got input (6), mat (6x4), vec (5)"
    assert "folds a's other dims (2, 3) into the 6 rows" in str(folded.value)
    with pytest.raises(RuntimeError) as batched:
        st.ones(2, 3, 4).transpose(0, 1) @ st.ones(5)
    assert str(batched.value).splitlines()[0] == (
        "Expected size for first two dimensions of batch2 tensor to be: [3, 4] but got: [3, 5].")
    assert "contracts a's last dim (size 4) with b's only dim (size 5)" in str(batched.value)


def test_empty_products() -> None:
    """k == 0 gives zeros; empty results; and PyTorch's bmm quirk: no work, no dtype check."""
    compare(lambda: torch.ones(2, 0) @ torch.ones(0, 3), lambda: st.ones(2, 0) @ st.ones(0, 3))
    compare(lambda: torch.bmm(torch.ones(2, 2, 0), torch.ones(2, 0, 2, dtype=torch.float64)),
            lambda: st.bmm(st.ones(2, 2, 0), st.ones(2, 0, 2, dtype=st.float64)))
    compare(lambda: torch.ones(0, 2, dtype=torch.bool) @ torch.ones(2, 3, dtype=torch.bool),
            lambda: st.ones(0, 2, dtype=st.bool) @ st.ones(2, 3, dtype=st.bool))
    with pytest.raises(NotImplementedError):
        st.dot(st.ones(0, dtype=st.bool), st.ones(0, dtype=st.bool))
