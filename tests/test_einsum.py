"""einsum and einsum_plan: values against numpy.einsum and torch.einsum, the plan's numbers,
the copies watch sees, and every error's class and text."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
from oracle_helpers import case
from strided.ops.linalg.einsum import EinsumPlan, einsum, einsum_plan

RNG = np.random.default_rng(11)

OPTIMIZE = ("auto", False, "greedy", "optimal")


def make(*shape: int, dtype=np.float64) -> tuple[strided.Tensor, np.ndarray]:
    a = RNG.standard_normal(shape).astype(dtype)
    return strided.from_numpy(a.copy()), a


def check(eq: str, arrays: list[np.ndarray], tensors: list[strided.Tensor], optimize="auto",
          expected: np.ndarray | None = None) -> strided.Tensor:
    got = einsum(eq, *tensors, optimize=optimize)
    want_t = torch.einsum(eq, *[torch.from_numpy(np.array(a, copy=True)) for a in arrays]).numpy()
    if expected is None:
        expected = np.einsum(eq, *arrays)
    assert got.shape == want_t.shape == expected.shape
    assert got.dtype.name == str(want_t.dtype)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got.numpy(), want_t, rtol=1e-10, atol=1e-10)
    return got


CASES = [
    ("bij,bjk->bik", [(3, 4, 5), (3, 5, 6)]),
    ("bhtd,bhsd->bhts", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("ij,jk->ki", [(3, 4), (4, 5)]),
    ("ii", [(4, 4)]),
    ("ii->i", [(4, 4)]),
    ("bii->b", [(3, 4, 4)]),
    ("iij,jk->ki", [(3, 3, 4), (4, 2)]),
    ("iji->j", [(3, 2, 3)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i", [(5,), (5,)]),
    ("i,i->i", [(5,), (5,)]),
    ("ij->", [(3, 4)]),
    ("ij->ji", [(3, 4)]),
    ("ij", [(3, 4)]),
    ("ji", [(3, 4)]),
    ("...ij,...jk", [(2, 3, 4), (4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("i...,i...->...", [(3, 2, 4), (3, 2, 4)]),
    ("bi,ij,bj->b", [(3, 4), (4, 5), (3, 5)]),
    ("ij,jk,kl,lm->im", [(2, 3), (3, 4), (4, 5), (5, 6)]),
    ("ab,bc,cd,de,ef,fa->", [(2, 3), (3, 4), (4, 2), (2, 3), (3, 2), (2, 2)]),
    ("ij,kj", [(1, 3), (4, 3)]),   # size-1 i broadcasts nothing: only one operand has it
    ("ij,ij->ij", [(1, 3), (4, 3)]),  # size 1 broadcasts against 4 (PyTorch's rule)
    (",->", [(), ()]),
    ("i,->i", [(3,), ()]),
    ("->", [()]),
    ("ij,jk", [(0, 3), (3, 2)]),
    ("ij,jk", [(2, 0), (0, 2)]),
    ("ab,cd->abcd", [(2, 3), (2, 2)]),
    ("abc,cba->", [(2, 3, 4), (4, 3, 2)]),
    ("Ab,bA->A", [(3, 2), (2, 3)]),
]


@pytest.mark.parametrize(("eq", "shapes"), CASES, ids=[c[0] for c in CASES])
def test_values_against_numpy_and_torch(eq, shapes):
    for optimize in OPTIMIZE:
        with case(optimize=optimize):
            _values_against_numpy_and_torch(eq, shapes, optimize)


def _values_against_numpy_and_torch(eq: str, shapes: list[tuple[int, ...]], optimize) -> None:
    pairs = [make(*s) for s in shapes]
    expected = None
    if eq == "ij,ij->ij":
        expected = np.broadcast_to(pairs[0][1], (4, 3)) * pairs[1][1]  # NumPy broadcasts it too
    check(eq, [p[1] for p in pairs], [p[0] for p in pairs], optimize, expected)


def test_ellipsis_summed_when_missing_from_output_as_pytorch() -> None:
    t, a = make(2, 3, 4)
    got = einsum("...ij->ij", t)
    np.testing.assert_allclose(got.numpy(), a.sum(0))
    np.testing.assert_allclose(got.numpy(), torch.einsum("...ij->ij", torch.from_numpy(a)).numpy())
    with pytest.raises(ValueError):  # the difference the Note marks
        np.einsum("...ij->ij", a)


def test_operand_list_form() -> None:
    (x, a), (y, b) = make(2, 3), make(3, 4)
    np.testing.assert_allclose(einsum("ij,jk", [x, y]).numpy(), a @ b)


# ---------------------------------------------------------------- non-contiguous operands


def _views(t: strided.Tensor, a: np.ndarray) -> list[tuple[strided.Tensor, np.ndarray]]:
    """The same non-contiguous views in strided and NumPy."""
    return [
        (t.mT, a.swapaxes(-1, -2)),
        (t[::2], a[::2]),
        (t[:, 1:], a[:, 1:]),
    ]


@pytest.mark.parametrize("eq", ["ij,jk->ik", "ij,kj->ik", "ji,jk->ki", "ij,jk->"])
def test_non_contiguous_operands(eq: str) -> None:
    big, a = make(6, 6)
    for x, xa in _views(big, a):
        for y, ya in _views(big, a):
            ok = True
            try:
                want = np.einsum(eq, xa, ya)
            except ValueError:
                ok = False
            if ok:
                np.testing.assert_allclose(einsum(eq, x, y).numpy(), want, rtol=1e-10)


def test_expanded_operands() -> None:
    t, a = make(4)
    x = t.reshape(1, 4).expand(3, 4)            # stride 0
    y, b = make(4, 5)
    check("ij,jk->ik", [np.broadcast_to(a, (3, 4)), b], [x, y])
    check("bij,bjk->bik", [np.broadcast_to(a, (2, 3, 4)), np.broadcast_to(b, (2, 4, 5))],
          [t.expand(2, 3, 4), y.expand(2, 4, 5)])


def test_float32_tolerance() -> None:
    (x, a), (y, b) = make(8, 16, dtype=np.float32), make(16, 4, dtype=np.float32)
    got = einsum("ij,jk->ik", x, y)
    assert got.dtype is strided.float32
    np.testing.assert_allclose(got.numpy(), a @ b, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- views


def test_diagonal_is_a_view() -> None:
    x = strided.arange(9.0).reshape(3, 3)
    d = einsum("ii->i", x)
    assert d.tolist() == [0.0, 4.0, 8.0]
    assert strided.shares_memory(d, x) and d.stride() == (4,)
    assert strided.shares_memory(einsum("ij->ji", x), x)
    plan = einsum_plan("ii->i", x)
    assert [s.kind for s in plan.steps] == ["diagonal"] and plan.bytes_copied == 0


def test_batched_trace_reads_a_diagonal_view() -> None:
    x, a = make(3, 4, 4)
    plan = einsum_plan("bii->b", x)
    assert [s.kind for s in plan.steps] == ["diagonal", "sum"]
    with strided.watch() as w:
        einsum("bii->b", x)
    assert w.bytes_copied == 0


def test_result_layout_like_torch() -> None:
    for eq, shapes in [("ij,jk->ki", [(3, 4), (4, 5)]), ("bhtd,bhsd->bhts", [(2, 3, 4, 5), (2, 3, 6, 5)]),
                       ("bij,bjk->bik", [(3, 4, 5), (3, 5, 6)])]:
        pairs = [make(*s) for s in shapes]
        got = einsum(eq, *[p[0] for p in pairs])
        want = torch.einsum(eq, *[torch.from_numpy(p[1]) for p in pairs])
        assert got.stride() == want.stride()


# ---------------------------------------------------------------- the plan


def test_seed_example_numbers() -> None:
    plan = einsum_plan("bij,bjk->bik", (32, 128, 64), (32, 64, 128))
    assert isinstance(plan, EinsumPlan)
    (step,) = plan.steps
    assert step.kind == "contract" and step.operands == (0, 1) and step.equation == "bij,bjk->bik"
    assert step.madds == 33_554_432 == 32 * 128 * 64 * 128
    assert step.shape == (32, 128, 128) and step.nbytes == 32 * 128 * 128 * 4
    assert [r.kind for r in step.routes] == ["view", "view"]
    assert plan.naive_madds == plan.planned_madds == 33_554_432
    assert plan.speedup == 1.0
    assert plan.largest_intermediate_bytes == 2_097_152
    assert plan.bytes_copied == 0
    text = str(plan)
    assert "33,554,432" in text and "bij,bjk->bik" in text and "speed-up 1x" in text
    assert "bytes copied:          0" in text


def test_plan_of_tensors_equals_plan_of_shapes_when_contiguous() -> None:
    a, b = strided.ones(32, 128, 64), strided.ones(32, 64, 128)
    assert einsum_plan("bij,bjk->bik", a, b) == einsum_plan("bij,bjk->bik", (32, 128, 64), (32, 64, 128))


def _brute_madds(eq: str, sizes: dict[str, int]) -> int:
    """Count the multiply-adds of one einsum step by enumerating its index space."""
    labels = sorted(set(c for c in eq if c.isalpha()))
    return sum(1 for _ in itertools.product(*[range(sizes[c]) for c in labels]))


@pytest.mark.parametrize("optimize", ["greedy", "optimal", False])
@pytest.mark.parametrize(("eq", "shapes"), [
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("bi,ij,bj->b", [(3, 4), (4, 5), (3, 5)]),
    ("ab,bc,cd,da->", [(2, 3), (3, 2), (2, 4), (4, 2)]),
    ("ij,jk->ik", [(3, 4), (4, 5)]),
])
def test_plan_totals_against_brute_force(eq: str, shapes, optimize) -> None:
    plan = einsum_plan(eq, *shapes, optimize=optimize)
    sizes = {c: n for term, s in zip(eq.split("->")[0].split(","), shapes, strict=True)
             for c, n in zip(term, s, strict=True)}
    every = list(itertools.product(*[range(n) for n in sizes.values()]))
    assert plan.naive_madds == (len(shapes) - 1) * len(every)
    for s in plan.steps:
        assert s.madds == (_brute_madds(s.equation, sizes) if s.kind in ("contract", "sum") else 0)
        assert s.nbytes == math.prod(s.shape) * 4
    assert plan.planned_madds == sum(s.madds for s in plan.steps)
    assert plan.speedup == pytest.approx(plan.naive_madds / plan.planned_madds)
    assert plan.largest_intermediate_bytes == max(s.nbytes for s in plan.steps if s.kind != "permute")
    assert len([s for s in plan.steps if s.kind == "contract"]) == len(shapes) - 1


def test_chain_planned_cheaper_than_naive() -> None:
    plan = einsum_plan("ij,jk,kl,lm->im", (20, 30), (30, 40), (40, 5), (5, 60))
    assert plan.planned_madds < plan.naive_madds and plan.speedup > 100
    left = einsum_plan("ij,jk,kl,lm->im", (20, 30), (30, 40), (40, 5), (5, 60), optimize=False)
    assert left.path == ((0, 1), (0, 2), (0, 1)) and left.planned_madds >= plan.planned_madds


def test_explicit_paths_as_numpy() -> None:
    shapes = [(2, 3), (3, 4), (4, 5)]
    pairs = [make(*s) for s in shapes]
    arrays = [p[1] for p in pairs]
    np_path, _ = np.einsum_path("ij,jk,kl->il", *arrays, optimize="optimal")
    for path in (np_path, [(1, 2), (0, 1)], [(0, 1, 2)], [(0, 2), (0, 1)]):
        got = einsum("ij,jk,kl->il", *[p[0] for p in pairs], optimize=path)
        np.testing.assert_allclose(got.numpy(), arrays[0] @ arrays[1] @ arrays[2], rtol=1e-10)
    assert einsum_plan("ij,jk,kl->il", *shapes, optimize=[(1, 2), (0, 1)]).path == ((1, 2), (0, 1))


def test_copy_named_in_plan_and_seen_by_watch() -> None:
    base, a = make(4, 3, 5)
    w_op = base[:, ::2]                        # (4, 2, 5) strides (15, 10, 1): a, b cannot merge
    y, b = make(5, 6)
    plan = einsum_plan("abk,kc->abc", w_op, y)
    (step,) = plan.steps
    r0, r1 = step.routes
    assert (r0.operand, r0.kind, r0.nbytes) == (0, "copy", 4 * 2 * 5 * 8) and r1.kind == "view"
    assert isinstance(r0.why, strided.ReshapeRefusal)
    assert "but stride[0] is 15" in str(plan) and plan.bytes_copied == 320
    with strided.watch() as w:
        got = einsum("abk,kc->abc", w_op, y)
    assert w.bytes_copied == plan.bytes_copied == 320
    np.testing.assert_allclose(got.numpy(), np.einsum("abk,kc->abc", a[:, ::2], b), rtol=1e-10)


def test_contiguous_operands_copy_nothing() -> None:
    (q, _), (k, _) = make(2, 3, 4, 5), make(2, 3, 6, 5)
    assert einsum_plan("bhtd,bhsd->bhts", q, k).bytes_copied == 0
    with strided.watch() as w:
        einsum("bhtd,bhsd->bhts", q, k)
    assert w.bytes_copied == 0


def test_transposed_operand_needs_no_copy() -> None:
    (x, _), (y, _) = make(5, 4), make(5, 6)
    plan = einsum_plan("ij,jk->ik", x.mT, y)   # the contracted dim is x's rows: matmul reads .mT
    assert plan.bytes_copied == 0


# ---------------------------------------------------------------- dtypes


def test_mixed_dtypes_refused_as_torch() -> None:
    a = strided.ones(2, 3)
    b = strided.ones(3, dtype=strided.float64)
    with pytest.raises(RuntimeError) as e:
        einsum("ij,j->i", a, b)
    with pytest.raises(RuntimeError) as te:
        torch.einsum("ij,j->i", torch.ones(2, 3), torch.ones(3, dtype=torch.float64))
    assert str(e.value).splitlines()[0] == str(te.value).splitlines()[0] == "expected scalar type Float but found Double"
    assert "operand 1 is float64" in str(e.value)


@pytest.mark.parametrize("eq", ["ij->i", "ij,k->k", "ij,j->i", "ij->ji"])
def test_integer_dtypes_as_torch(eq: str) -> None:
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    b = np.arange(3, dtype=np.int32)
    arrays = [a, b] if "," in eq else [a]
    got = einsum(eq, *[strided.from_numpy(x.copy()) for x in arrays])
    want = torch.einsum(eq, *[torch.from_numpy(x) for x in arrays])
    assert got.dtype.name == str(want.dtype).removeprefix("torch.")
    assert got.tolist() == want.tolist()


# ---------------------------------------------------------------- errors


def _torch_first_line(eq: str, *shapes) -> str:
    with pytest.raises(RuntimeError) as e:
        torch.einsum(eq, *[torch.ones(s) for s in shapes])
    return str(e.value).splitlines()[0]


ERRORS = [
    ("ij,jk->ik", [(2, 3), (4, 5)], "subscript j has size 4 for operand 1 which does not broadcast with "
     "previously seen size 3"),
    ("ij,jk->ii", [(2, 3), (3, 5)], "output subscript i appears more than once in the output"),
    ("ij,jk->iq", [(2, 3), (3, 5)], "output subscript q does not appear in the equation for any input operand"),
    ("ij", [(2, 3), (3, 5)], "more operands were provided than specified in the equation"),
    ("ij,j->i", [(2, 3)], "fewer operands were provided than specified in the equation"),
    ("i$", [(2,)], "invalid subscript given at index 1 in the equation string, subscripts must be in [a-zA-Z]"),
    ("i->i->i", [(2,)], "invalid subscript given at index 4 in the equation string, subscripts must be in [a-zA-Z]"),
    ("ij..k", [(2, 3)], "found '.' for operand 0 that is not part of any ellipsis"),
    ("i...j...", [(2, 3, 4)], "found '.' for operand 0 for which an ellipsis was already found"),
    ("iij->j", [(2, 3, 4)], "subscript i is repeated for operand 0 but the sizes don't match, 3 != 2"),
    ("ijk", [(2, 3)], "the number of subscripts in the equation (3) does not match the number of dimensions (2) "
     "for operand 0 and no ellipsis was given"),
    ("ijk...", [(2, 3)], "the number of subscripts in the equation (3) is more than the number of dimensions (2) "
     "for operand 0"),
    ("...i,...i", [(2, 3), (4, 3)], "dimension 0 covered by ellipsis in operand 1 has size 4 which does not "
     "broadcast with previously seen ellipsis with size 2 for the respective dimension"),
]


@pytest.mark.parametrize(("eq", "shapes", "first"), ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(eq: str, shapes, first: str) -> None:
    ops = [strided.ones(*s) for s in shapes]
    before = [t.tolist() for t in ops]
    with pytest.raises(strided.StridedRuntimeError) as e:
        einsum(eq, *ops)
    assert isinstance(e.value, RuntimeError)
    assert str(e.value).splitlines()[0] == "einsum(): " + first
    assert [t.tolist() for t in ops] == before
    if "ellipsis in operand" not in first:  # (PyTorch's own text lacks a space there: "1has")
        assert _torch_first_line(eq, *shapes) == "einsum(): " + first
    with pytest.raises(strided.StridedRuntimeError) as p:  # the plan refuses the same way
        einsum_plan(eq, *shapes)
    assert str(p.value).splitlines()[0] == "einsum(): " + first


def test_error_details_name_the_operand_and_sizes() -> None:
    with pytest.raises(RuntimeError) as e:
        einsum("ij,jk->ik", strided.ones(2, 3), strided.ones(4, 5))
    assert "operand 1 has shape (4, 5); every dim named j must have size 3 (or 1)" in str(e.value)


def test_argument_kinds() -> None:
    with pytest.raises(TypeError, match="operand 1 must be a strided.Tensor, but got list"):
        einsum("i,i", strided.ones(2), [1, 2])
    with pytest.raises(TypeError, match="equation must be a str"):
        einsum(3, strided.ones(2))
    with pytest.raises(TypeError, match="a strided.Tensor or a shape tuple"):
        einsum_plan("i", "x")
    with pytest.raises(ValueError, match="must specify the equation string and at least one operand"):
        einsum("i")  # PyTorch's ValueError (its other equation errors are RuntimeErrors)
    with pytest.raises(ValueError, match="optimize must be False, True, 'greedy', 'optimal', 'auto'"):
        einsum("i,i", strided.ones(2), strided.ones(2), optimize="fastest")
    with pytest.raises(ValueError, match=r"invalid contraction \(0, 5\) in the path"):
        einsum("i,i", strided.ones(2), strided.ones(2), optimize=[(0, 5)])


def test_import_strided_stays_light() -> None:
    code = "import strided, sys; assert 'opt_einsum' not in sys.modules and 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_plans_are_remembered_per_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    from strided.ops._support.memo import Memo
    from strided.ops.linalg import einsum as mod

    # A memo of this test's own: the module's is shared by the whole process and, once full
    # (limit entries: test_einsum_diff.py run first fills it), remembers no new plan.
    monkeypatch.setattr(mod, "_plans", Memo(limit=mod._plans.limit))
    (x, _), (y, _) = make(3, 4), make(4, 5)
    einsum("ij,jk->ik", x, y)
    key = ("ij,jk->ik", "auto", (x._layout, y._layout), (x._dtype, y._dtype))
    plan = mod._plans.get(key)
    assert plan is not None and plan.steps[0].equation == "ij,jk->ik"
    einsum("ij,jk->ik", x.mT.mT, y)  # the same layouts: the same plan object runs
    assert mod._plans.get(key) is plan


@pytest.mark.parametrize(("eq", "shapes"), [("i,j->ij", [(2,), (3,)]), ("i,i->i", [(3,), (3,)]),
                                            ("i,i", [(0,), (0,)]), ("ij,jk", [(0, 2), (2, 3)])])
def test_bool_as_torch(eq: str, shapes) -> None:
    """Products that contract nothing multiply elementwise (bool works); empty ones skip the kernel."""
    got = einsum(eq, *[strided.ones(*s, dtype=strided.bool_) for s in shapes])
    want = torch.einsum(eq, *[torch.ones(s, dtype=torch.bool) for s in shapes])
    assert got.dtype is strided.bool_ and got.tolist() == want.tolist()


def test_bool_contraction_refused_as_torch() -> None:
    with pytest.raises(NotImplementedError) as e:
        einsum("i,i", strided.ones(2, dtype=strided.bool_), strided.ones(2, dtype=strided.bool_))
    assert str(e.value).splitlines()[0] == "\"bmm\" not implemented for 'Bool'"


def test_outer_product_of_permuted_operands_copies_nothing() -> None:
    """The elementwise product keeps its inputs' dim order; the plan follows it, so the next
    step's view-or-copy verdict is about the layout that really comes out."""
    base, a = make(4, 3)
    c, ca = make(4, 3, 5)
    plan = einsum_plan("ij,kl,jim->klm", base.mT, base, c, optimize=False)
    assert [s.equation for s in plan.steps] == ["kl,ij->klji", "klji,jim->klm"]
    with strided.watch() as w:
        got = einsum("ij,kl,jim->klm", base.mT, base, c, optimize=False)
    assert w.bytes_copied == plan.bytes_copied == 0
    np.testing.assert_allclose(got.numpy(), np.einsum("ij,kl,jim->klm", a.T, a, ca), rtol=1e-10)


# ---------------------------------------------------------------- a differential fuzz


@st.composite
def _problems(draw):
    letters = "abcd"
    sizes = {c: draw(st.sampled_from([0, 1, 2, 3])) for c in letters}
    terms = [draw(st.text(letters, max_size=3)) for _ in range(draw(st.integers(1, 3)))]
    arrays, tensors = [], []
    for t in terms:
        shape = tuple(sizes[c] for c in t)
        a = np.asarray(np.arange(math.prod(shape), dtype=np.float64).reshape(shape) % 7 - 3)
        kind = draw(st.sampled_from(["contiguous", "transposed", "stepped", "expanded"])) if t else "contiguous"
        x = strided.from_numpy(a.copy())
        if kind == "transposed":
            x = strided.from_numpy(np.ascontiguousarray(a.T)).permute(tuple(reversed(range(a.ndim))))
        elif kind == "stepped":
            x = strided.from_numpy(np.repeat(a, 2, axis=0).copy())[::2]
        elif kind == "expanded" and 1 in shape:
            x = strided.from_numpy(a.copy()).expand(shape)
        arrays.append(a)
        tensors.append(x)
    used = sorted(set("".join(terms)))
    out = draw(st.one_of(st.none(), st.permutations(used).flatmap(
        lambda p: st.integers(0, len(p)).map(lambda k: "".join(p[:k])))))
    eq = ",".join(terms) + ("" if out is None else "->" + out)
    return eq, arrays, tensors


@settings(max_examples=150, deadline=None)
@given(_problems(), st.sampled_from(["auto", False, "greedy"]))
def test_fuzz_against_numpy(problem, optimize) -> None:
    eq, arrays, tensors = problem
    plan = einsum_plan(eq, *tensors, optimize=optimize)
    with strided.watch() as w:
        got = einsum(eq, *tensors, optimize=optimize)
    np.testing.assert_allclose(got.numpy(), np.einsum(eq, *arrays), rtol=1e-10, atol=1e-10)
    assert w.bytes_copied == plan.bytes_copied


def test_nothing_to_do_returns_a_new_view() -> None:
    x = strided.ones(2, 3)
    r = einsum("ij->ij", x)
    assert r is not x and strided.shares_memory(r, x) and r.stride() == x.stride()
    assert einsum_plan("ij", x).steps == ()


def test_plan_shapes_must_be_sizes() -> None:
    with pytest.raises(ValueError, match=r"operand 1's shape \(2, -1\) has a negative size"):
        einsum_plan("i,ij", (2,), (2, -1))


def test_ellipsis_letters_in_step_equations() -> None:
    plan = einsum_plan("...ij,...jk->...ik", (5, 2, 3), (5, 3, 4))
    assert plan.steps[0].equation == "Aij,Ajk->Aik"


def test_single_operand_totals() -> None:
    plan = einsum_plan("bii->b", (2, 3, 3))
    assert plan.naive_madds == 0 and plan.speedup == 1.0
    assert [(s.kind, s.madds) for s in plan.steps] == [("diagonal", 0), ("sum", 6)]
    assert plan.planned_madds == 6 and plan.largest_intermediate_bytes == 8


def test_path_that_leaves_operands() -> None:
    x = strided.ones(2)
    with pytest.raises(ValueError, match=r"the contraction path \(\(0, 1\),\) leaves 2 operands uncontracted"):
        einsum("i,i,i", x, x, x, optimize=[(0, 1)])


SUBLIST_CASES = [
    ([(3, 4), (4, 5)], [[0, 1], [1, 2]], None),
    ([(3, 4), (4, 5)], [[0, 1], [1, 2]], [2, 0]),
    ([(2, 3, 4)], [[Ellipsis, 1]], [1]),
    ([(2, 3, 4), (2, 4, 5)], [[Ellipsis, 1, 2], [Ellipsis, 2, 30]], [Ellipsis, 30, 1]),
    ([(4, 4)], [[51, 51]], []),
    ([(3,), (3,), (3,)], [[7], [7], [7]], None),
]


@pytest.mark.parametrize(("shapes", "subs", "out"), SUBLIST_CASES)
def test_sublist_form_matches_torch(shapes, subs, out) -> None:
    pairs = [make(*s) for s in shapes]
    args, targs = [], []
    for (t, a), sub in zip(pairs, subs, strict=True):
        args += [t, sub]
        targs += [torch.from_numpy(a.copy()), sub]
    if out is not None:
        args.append(out)
        targs.append(out)
    got = einsum(*args)
    want = torch.einsum(*targs).numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-10)
    # the plan of the same call names the indices with letters (0 -> A, 26 -> a)
    plan = einsum_plan(*args)
    assert plan.equation.split("->")[0].split(",")[0].replace("...", "") == "".join(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[n] for n in subs[0] if n is not Ellipsis)


def test_sublist_form_errors() -> None:
    x = strided.ones(2, 3)
    with pytest.raises(ValueError, match=r"subscript in subscript list is not within the valid range \[0, 52\)") as e:
        einsum(x, [0, 52])
    assert "holds 52" in str(e.value)
    with pytest.raises(TypeError, match="subscripts in a sublist must be ints in \\[0, 52\\) or ..., but the "
                                        "sublist of operand 0 holds 'a'"):
        einsum(x, [0, "a"])
    with pytest.raises(TypeError, match="the output sublist must be a list of ints"):
        einsum(x, [0, 1], strided.ones(3, 4))
    with pytest.raises(TypeError, match="operands and sublists alternate"):
        einsum(x, "ij")
    with pytest.raises(RuntimeError, match="subscript B has size 4 for operand 1"):
        einsum(x, [0, 1], strided.ones(4), [1])  # the equation's own checks still run


def test_einsum_reports_to_watch_as_one_step() -> None:
    x, _ = make(3, 4, 4)
    with strided.watch() as w:
        einsum("bii->b", x)
    # one step, the op the user called (its diagonal view and sum are its inside), with its result
    assert [(s.name, s.kind) for s in w.steps] == [("einsum", "compute")]
    assert w.steps[0].output.shape == (3,) and w.steps[0].inputs[0].shape == (3, 4, 4)
    assert w.steps[0].bytes_allocated == 3 * x.element_size()


@settings(max_examples=60, deadline=None)
@given(_problems(), st.sampled_from(["auto", "greedy"]), st.sampled_from([np.float64, np.float32]))
def test_direct_products_equal_the_reported_route(problem, optimize, dtype) -> None:
    # with nobody listening, a contraction of views runs as one NumPy product of the storages read
    # through the plan's layouts; with a listener, as permute, reshape and matmul (each reported):
    # the same result, layout and dtype (the values are small integers: every order sums exactly)
    eq, _, tensors = problem
    tensors = [t.to(getattr(strided, np.dtype(dtype).name)) for t in tensors] if dtype is np.float32 else tensors
    quiet = einsum(eq, *tensors, optimize=optimize)
    with strided.watch():
        loud = einsum(eq, *tensors, optimize=optimize)
    assert (quiet.shape, quiet.stride(), quiet.dtype) == (loud.shape, loud.stride(), loud.dtype)
    np.testing.assert_array_equal(quiet.numpy(), loud.numpy())


def test_direct_product_skips_the_matmul_op(monkeypatch) -> None:
    import strided.ops.linalg.einsum as E

    def refuse(*args):
        raise AssertionError("the general route ran")

    monkeypatch.setattr(E, "matmul", refuse)
    (a, na), (b, nb) = make(2, 3, 4, 5, dtype=np.float32), make(2, 3, 6, 5, dtype=np.float32)
    got = einsum("bhtd,bhsd->bhts", a, b)  # no listener: the storages' product, no matmul op
    want = torch.einsum("bhtd,bhsd->bhts", torch.from_numpy(na), torch.from_numpy(nb))
    assert got.stride() == want.stride()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    with strided.watch(), pytest.raises(AssertionError, match="general route"):
        einsum("bhtd,bhsd->bhts", a, b)  # a listener sees matmul: the general route
    x = strided.zeros(3, 0).to(strided.float32)  # an empty contraction: the general route's zeros
    with pytest.raises(AssertionError, match="general route"):
        einsum("ij,jk->ik", x, x.T)
