"""Differential tests of ``strided.ops.linalg.einsum`` against ``numpy.einsum`` and ``torch.einsum``.

Hypothesis draws an equation (1-4 operands, implicit or explicit output, ``...``, repeated
indices, sums, traces, outer products, 0-d operands, size-1 and zero-size indices) and lays each
operand over a valued storage with a hard layout (permuted, stepped, expanded with stride 0,
size-1 dims with odd strides, negative steps) built the same way in strided and NumPy
(``tests/layouts.py``). The values are checked against a float64 reference computed by PyTorch
(PyTorch is the oracle where the two libraries disagree, e.g. ``...ij->ij`` sums the ellipsis,
where NumPy refuses) and against NumPy wherever NumPy accepts the equation; every ``optimize``
mode (False, "greedy", "optimal", "auto", an explicit path) must give the same values.
The plan's totals are checked against a brute-force count, and bad equations against PyTorch's
error class.

The file skips, with the reason, only while the engine module ``strided.ops.linalg.einsum`` is absent.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import Spec, build_valued, specs, valued_storage

try:
    from strided.ops.linalg.einsum import einsum, einsum_plan
except ModuleNotFoundError as exc:  # only the engine's own absence skips; anything else it needs fails
    if exc.name not in ("strided.ops.linalg.einsum", "strided.ops"):
        raise
    pytest.skip("strided.ops.linalg.einsum is not written yet (issue 11's engine): nothing to test against",
                allow_module_level=True)

DTYPES = ("float32", "float64", "int64")
# rtol for the result against a float64 reference, relative to the sum of |terms| (see close_to)
RTOL = {"float32": 2e-5, "float64": 1e-12}
LETTERS = "ijklmn" + "IJ"  # a few upper-case letters: implicit output puts them before the lower case
OPTIMIZE = (False, "greedy", "optimal", "auto")


@dataclass(frozen=True)
class Case:
    """One drawn einsum: its equation, and per operand its index letters (``.`` marks the place of
    ``...``) and layout."""

    equation: str
    subscripts: tuple[str, ...]
    specs: tuple[Spec, ...]
    dtype: str
    seed: int


@hs.composite
def cases(draw, max_ops: int = 4, dtypes: tuple[str, ...] = DTYPES, ellipsis: bool = True,
          negative: bool = True, broadcast: bool = True) -> Case:
    """An equation and operands whose layouts favour the hard cases; with ``broadcast``, now and
    then an operand's dim has size 1 where its index is larger elsewhere (PyTorch and NumPy
    broadcast it)."""
    n_ops = draw(hs.integers(1, max_ops))
    letters = draw(hs.lists(hs.sampled_from(LETTERS), min_size=draw(hs.sampled_from([0, 1, 1, 2])), max_size=5,
                            unique=True))
    # sizes: mostly 2-4, often 1 (a size-1 index), now and then 0 (a zero-size index)
    size_of = {c: draw(hs.sampled_from([1, 2, 2, 3, 3, 4, 1, 0] if n_ops < 4 else [1, 2, 2, 3, 1, 0]))
               for c in letters}
    ell_shape = tuple(draw(hs.lists(hs.sampled_from([1, 2, 3]), max_size=2))) if ellipsis else ()
    subs: list[str] = []
    shapes: list[tuple[int, ...]] = []
    for _ in range(n_ops):
        # repeats allowed: a repeated letter in one operand is a diagonal
        mine = draw(hs.lists(hs.sampled_from(letters), min_size=draw(hs.sampled_from([0, 1, 1, 2])),
                             max_size=4)) if letters else []
        shape = [1 if broadcast and mine.count(c) == 1 and draw(hs.integers(0, 7)) == 0 else size_of[c]
                 for c in mine]
        if ellipsis and draw(hs.sampled_from([False, False, True])):
            # this operand's ellipsis covers the trailing dims of the broadcast shape, some
            # of them size 1 (broadcast against the others)
            k = draw(hs.integers(0, len(ell_shape)))
            ell = [draw(hs.sampled_from([n, n, 1])) for n in ell_shape[len(ell_shape) - k:]]
            at = draw(hs.integers(0, len(mine)))
            mine = mine[:at] + ["."] + mine[at:]
            shape = shape[:at] + ell + shape[at:]
        subs.append("".join(mine))
        shapes.append(tuple(shape))
    used = sorted({c for s in subs for c in s if c != "."})
    has_ell = any("." in s for s in subs)
    inputs = ",".join(s.replace(".", "...") for s in subs)
    if draw(hs.booleans()):
        equation = inputs  # implicit output
    else:
        out = draw(hs.permutations(used))
        out = out[:draw(hs.integers(0, len(out)))]
        if has_ell and draw(hs.sampled_from([True, True, False])):
            # Note: without '...' in the output, PyTorch sums the ellipsis dims (NumPy refuses)
            at = draw(hs.integers(0, len(out)))
            out = [*out[:at], "...", *out[at:]]
        equation = inputs + "->" + "".join(out)
    dtype = draw(hs.sampled_from(dtypes))
    layouts = tuple(draw(specs(shape=shape, negative=negative)) for shape in shapes)
    return Case(equation, tuple(subs), layouts, dtype, draw(hs.integers(0, 2**16)))


def operands(case: Case) -> tuple[list[np.ndarray], list[st.Tensor]]:
    """The case's operands as NumPy arrays and strided tensors over the same values and layouts."""
    arrays, tensors = [], []
    for k, spec in enumerate(case.specs):
        _, arr, s = build_valued(spec, valued_storage(spec, case.dtype, case.seed + k))
        arrays.append(arr)
        tensors.append(s)
    return arrays, tensors


def torch_reference(equation: str, arrays: list[np.ndarray]) -> tuple[torch.Tensor, torch.Tensor]:
    """PyTorch's float64 result and the float64 einsum of the absolute values (the scale of the
    rounding error: the sum of |terms| behind each element)."""
    as64 = [torch.from_numpy(np.array(a, dtype=np.float64)) for a in arrays]
    return torch.einsum(equation, *as64), torch.einsum(equation, *[t.abs() for t in as64])


def close_to(got: np.ndarray, ref: np.ndarray, scale: np.ndarray, dtype: str, what: str) -> None:
    """``got`` equals ``ref`` exactly for integers, and for floats within the dtype's rtol of the
    sum of |terms| behind each element (a bound that holds whatever the summation order)."""
    assert got.shape == ref.shape, f"{what}: shape {got.shape} != {ref.shape}"
    if dtype == "int64":
        np.testing.assert_array_equal(got, ref.astype(np.int64), err_msg=what)
        return
    err = np.abs(got.astype(np.float64) - ref)
    bound = RTOL[dtype] * (scale + 1.0)
    bad = err > bound
    assert not bad.any(), f"{what}: max error {err.max()} (bound {bound[bad].min()})\n{got}\n{ref}"


def random_path(n_ops: int, draw) -> list[tuple[int, ...]]:
    """A valid explicit contraction path (numpy.einsum's format): pairs of positions in the
    shrinking operand list, the result appended at the end each time."""
    if n_ops == 1:
        return [(0,)]
    path, left = [], n_ops
    while left > 1:
        pair = tuple(sorted(draw(hs.permutations(range(left)))[:2]))
        path.append(pair)
        left -= 1
    return path


def run_strided(equation: str, tensors: list[st.Tensor], optimize) -> np.ndarray:
    out = einsum(equation, *tensors, optimize=optimize)
    assert isinstance(out, st.Tensor)
    return out


# ---------------------------------------------------------------------------------------------
# values


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), data=hs.data())
def test_values_match_torch_and_numpy_in_every_optimize_mode(case: Case, data) -> None:
    arrays, tensors = operands(case)
    before = [a.copy() for a in arrays]
    ref, scale = torch_reference(case.equation, arrays)
    ref, scale = ref.numpy(), scale.numpy()
    # the result's dtype and shape are PyTorch's, on the case's own dtype
    peer = torch.einsum(case.equation, *[torch.from_numpy(a.copy()) for a in arrays])
    try:
        expected_np = np.einsum(case.equation, *[a.astype(np.float64) for a in arrays])
    except ValueError:
        expected_np = None  # NumPy refuses (an ellipsis summed away): PyTorch is the oracle
    if expected_np is not None:
        np.testing.assert_allclose(expected_np, ref, rtol=1e-9, atol=1e-9)  # the oracles agree
    path = random_path(len(arrays), data.draw)
    modes = [*OPTIMIZE, path, ["einsum_path", *path]]
    for mode in modes:
        out = run_strided(case.equation, tensors, mode)
        what = f"einsum({case.equation!r}, optimize={mode!r})"
        assert out.shape == tuple(peer.shape), what
        assert out.dtype.name == str(peer.dtype).removeprefix("torch."), what
        close_to(out.numpy(), ref, scale, case.dtype, what)
    for a, b in zip(arrays, before):  # the operands' data untouched
        np.testing.assert_array_equal(a, b)


@settings(max_examples=40, deadline=None)
@given(case=cases(max_ops=3, dtypes=("float32",), ellipsis=False, negative=False))
def test_values_on_torch_layouts_match_torch_einsum(case: Case) -> None:
    """The same layouts built in PyTorch (as_strided over the same storage): strided's float32
    result stays as close to the float64 truth as PyTorch's own float32 einsum allows."""
    arrays, tensors = operands(case)
    peers = []
    for k, spec in enumerate(case.specs):
        t, _, _ = build_valued(spec, valued_storage(spec, case.dtype, case.seed + k))
        peers.append(t)
    peer = torch.einsum(case.equation, *peers)
    ref, scale = torch_reference(case.equation, arrays)
    out = einsum(case.equation, *tensors)
    close_to(peer.numpy(), ref.numpy(), scale.numpy(), "float32", "torch.einsum")
    close_to(out.numpy(), ref.numpy(), scale.numpy(), "float32", "strided einsum")
    np.testing.assert_allclose(out.numpy(), peer.numpy(), rtol=1e-4,
                               atol=1e-4 * (1 + float(scale.numpy().max(initial=0))))


# Hand-picked equations that each name a feature of the language (values vs PyTorch, in float64,
# on contiguous operands: the layouts are the hypothesis tests' business).
NAMED = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),  # matmul
    ("ij,jk", [(2, 3), (3, 4)]),  # implicit output
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),  # batch matmul
    ("bhtd,bhsd->bhts", [(2, 2, 3, 4), (2, 2, 5, 4)]),  # attention scores
    ("bi,ij,bj->b", [(3, 4), (4, 5), (3, 5)]),  # bilinear form
    ("bii->b", [(3, 4, 4)]),  # batched trace
    ("ii->i", [(4, 4)]),  # diagonal
    ("ii", [(4, 4)]),  # trace, implicit
    ("iji->j", [(3, 2, 3)]),  # a diagonal across non-adjacent dims
    ("ij->", [(3, 4)]),  # full sum
    ("ij->j", [(3, 4)]),  # partial sum
    ("ij->ji", [(3, 4)]),  # transpose
    ("i,j->ij", [(3,), (4,)]),  # outer product
    ("i,j", [(3,), (4,)]),  # outer, implicit
    (",->", [(), ()]),  # two 0-d operands
    (",ij->ij", [(), (2, 3)]),  # a scalar factor
    ("i,i->", [(5,), (5,)]),  # dot
    ("ba", [(2, 3)]),  # implicit output sorts the letters: a transpose
    ("Ab,aB", [(2, 3), (4, 5)]),  # upper case sorts before lower case
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),  # ellipsis broadcasting
    ("...ij->...ji", [(2, 3, 4)]),
    ("i...->...", [(3, 2, 4)]),
    ("...ij->ij", [(2, 3, 4)]),  # Note: PyTorch sums the ellipsis dims; NumPy refuses
    ("...,...", [(2, 3), (3,)]),
    ("ij...,jk...->ik...", [(2, 3, 4), (3, 5, 4)]),
    ("ij,jk,kl,lm->im", [(2, 3), (3, 4), (4, 5), (5, 2)]),  # a chain of four
    ("ijk,jl,kl->i", [(2, 3, 4), (3, 5), (4, 5)]),
    ("ij,ij,ij->ij", [(2, 3), (2, 3), (2, 3)]),  # a three-way product (a hyperedge)
    ("ij,jk->ik", [(0, 3), (3, 4)]),  # zero-size output
    ("ij,jk->ik", [(2, 0), (0, 4)]),  # zero-size contraction: zeros
    ("ii->", [(0, 0)]),
]


@pytest.mark.parametrize(("equation", "shapes"), NAMED, ids=[e for e, _ in NAMED])
def test_named_equations(equation: str, shapes: list[tuple[int, ...]]) -> None:
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    expected = torch.einsum(equation, *[torch.from_numpy(a) for a in arrays])
    for mode in OPTIMIZE:
        out = einsum(equation, *[st.from_numpy(a) for a in arrays], optimize=mode)
        assert out.shape == tuple(expected.shape)
        assert out.dtype.name == "float64"
        np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-12, atol=1e-12)


def test_size1_index_broadcasts_like_torch() -> None:
    """PyTorch (and NumPy) broadcast a size-1 index against the same index of another operand."""
    a = np.arange(6.0).reshape(2, 3)
    b = np.arange(4.0).reshape(1, 4)  # j has size 1 here, 3 in a
    expected = torch.einsum("ij,jk->ik", torch.from_numpy(a), torch.from_numpy(b))
    np.testing.assert_allclose(np.einsum("ij,jk->ik", a, b), expected.numpy())
    out = einsum("ij,jk->ik", st.from_numpy(a), st.from_numpy(b))
    np.testing.assert_allclose(out.numpy(), expected.numpy())


# ---------------------------------------------------------------------------------------------
# errors: PyTorch's class (RuntimeError for every bad equation), a StridedError, data untouched

A23, A43, V3 = (2, 3), (4, 3), (3,)
BAD = [
    ("ij,jk", [A23, A43], ["j", "operand 1", "3", "4"]),  # sizes disagree
    ("ij,ij", [A23, (2, 2)], ["j", "operand 1", "3", "2"]),
    ("ii", [A23], ["i", "operand 0", "2", "3"]),  # a repeated subscript with two sizes
    ("ij", [A23, V3], ["operand"]),  # too many operands
    ("ij,j", [A23], ["operand"]),  # too few
    ("i", [A23], ["operand 0"]),  # too few subscripts for the operand's dims
    ("ijk", [A23], ["operand 0"]),  # too many
    ("i$j", [A23], ["$"]),  # an invalid character
    ("ij->i->j", [A23], ["-"]),
    ("ij-", [A23], []),
    ("i0", [A23], ["0"]),
    ("ij->k", [A23], ["k"]),  # an output subscript in no input
    ("ij->ii", [A23], ["i"]),  # a repeated output subscript
    ("ij->jj", [A23], ["j"]),
    (".ij", [A23], ["."]),  # '.' outside '...'
    ("...ij...", [A23], ["..."]),  # two ellipses in one operand
    ("ij->..", [A23], ["."]),
    ("...ij,...ij", [(2, 2, 3), (3, 2, 3)], ["..."]),  # ellipsis dims that do not broadcast
]


@pytest.mark.parametrize(("equation", "shapes", "named"), BAD, ids=[e for e, _, _ in BAD])
def test_bad_equations_raise_torchs_class(equation: str, shapes, named: list[str]) -> None:
    arrays = [np.arange(math.prod(s), dtype=np.float64).reshape(s) for s in shapes]
    with pytest.raises(Exception) as peer:
        torch.einsum(equation, *[torch.from_numpy(a) for a in arrays])
    tensors = [st.from_numpy(a) for a in arrays]
    with pytest.raises(Exception) as got:
        einsum(equation, *tensors)
    assert isinstance(got.value, st.StridedError), repr(got.value)
    assert isinstance(got.value, type(peer.value)), (got.value, peer.value)
    text = str(got.value)
    for word in named:
        assert word in text, f"{word!r} not in {text!r}"
    for a, t in zip(arrays, tensors):
        np.testing.assert_array_equal(t.numpy(), a)  # data untouched


@settings(max_examples=60, deadline=None)
@given(case=cases(max_ops=3, dtypes=("float64",), negative=False), data=hs.data())
def test_a_size_that_does_not_broadcast_raises_like_torch(case: Case, data) -> None:
    """A drawn case with one operand dim resized (to a size no other operand's index agrees
    with): both PyTorch and strided refuse it with the same class, or both accept it."""
    k = data.draw(hs.integers(0, len(case.specs) - 1))
    shape = list(case.specs[k].shape)
    if not shape:
        return
    d = data.draw(hs.integers(0, len(shape) - 1))
    shape[d] = 5 if shape[d] != 5 else 6
    arrays, _ = operands(case)
    arrays[k] = np.ones(shape)
    try:
        # Note: with three or more operands PyTorch asks opt_einsum for a path before its own
        # checks, and opt_einsum's ValueError escapes; einsum proper (opt_einsum off) raises
        # RuntimeError, as it does for two operands: that is the class strided follows
        with torch.backends.opt_einsum.flags(enabled=False):
            torch.einsum(case.equation, *[torch.from_numpy(a) for a in arrays])
    except RuntimeError as exc:
        with pytest.raises(RuntimeError) as got:
            einsum(case.equation, *[st.from_numpy(a) for a in arrays])
        assert isinstance(got.value, st.StridedError)
        first = str(got.value).splitlines()[0]
        assert first, exc
    else:  # the resized dim met only size-1 partners (broadcast) or stood alone: a value
        ref = torch.einsum(case.equation, *[torch.from_numpy(a) for a in arrays]).numpy()
        out = einsum(case.equation, *[st.from_numpy(a) for a in arrays])
        np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("optimize", ["fastest", 3, [(0, 5)], [(0, 1)], ["einsum_path", (0, 1)], [(0, 0), (0, 1)]])
def test_bad_optimize_is_refused(optimize) -> None:
    """An unknown mode, a position past the operands, an unfinished or repeated path: refused
    (NumPy raises KeyError, TypeError or RuntimeError here; strided a StridedError) before any work."""
    ops = [st.from_numpy(np.ones(s)) for s in ((2, 3), (3, 4), (4, 2))]
    with pytest.raises((TypeError, ValueError, RuntimeError)) as got:
        einsum("ij,jk,kl->il", *ops, optimize=optimize)
    assert isinstance(got.value, st.StridedError), repr(got.value)


# ---------------------------------------------------------------------------------------------
# the plan's accounting against a brute-force count


def brute_count(letters, size_of: dict[str, int]) -> int:
    """The number of index tuples over ``letters``, counted one by one (the cases are small)."""
    return sum(1 for _ in itertools.product(*(range(size_of[c]) for c in sorted(set(letters)))))


def implicit_output(subs: tuple[str, ...]) -> str:
    joined = "".join(subs)
    return "".join(sorted(c for c in set(joined) if joined.count(c) == 1))


def simulate(subs: tuple[str, ...], out: str, path, size_of: dict[str, int]) -> tuple[list[int], list[int]]:
    """Price ``path`` by hand: first each operand's diagonals (views, free) and the indices only
    it holds summed away (one add per element it holds), then each pair contracted: one
    multiply-add per index tuple over the pair's indices, the result keeping the indices still
    needed. Returns (the costs of the single-operand sums, the costs of the contractions)."""
    live = ["".join(dict.fromkeys(s)) for s in subs]  # a repeated letter is a diagonal: one index
    sums = []
    for k, s in enumerate(live):
        elsewhere = set(out).union(*(set(x) for j, x in enumerate(live) if j != k))
        kept = "".join(c for c in s if c in elsewhere)
        if kept != s:
            sums.append(brute_count(s, size_of))
            live[k] = kept
    contractions = []
    for pair in path:
        i, j = sorted(pair)
        a, b = live[i], live[j]
        rest = [x for k, x in enumerate(live) if k not in (i, j)]
        needed = set(out).union(*(set(x) for x in rest))
        contractions.append(brute_count(a + b, size_of))
        live = [*rest, "".join(c for c in dict.fromkeys(a + b) if c in needed)]
    return sums, contractions


def all_paths(n: int):
    """Every pairwise contraction path over ``n`` operands (numpy.einsum's position format)."""
    if n < 2:
        yield []
        return
    for pair in itertools.combinations(range(n), 2):
        for rest in all_paths(n - 1):
            yield [pair, *rest]


plan_cases = cases(max_ops=4, dtypes=("float32",), ellipsis=False, negative=False, broadcast=False)


@settings(max_examples=100, deadline=None)
@given(case=plan_cases, data=hs.data())
def test_plan_totals_match_a_brute_force_count(case: Case, data) -> None:
    _, tensors = operands(case)
    subs = case.subscripts
    size_of = {c: n for s, spec in zip(subs, case.specs) for c, n in zip(s, spec.shape)}
    out = case.equation.split("->")[1] if "->" in case.equation else implicit_output(subs)
    every = brute_count(size_of, size_of)
    path = random_path(len(subs), data.draw)
    for mode in [*OPTIMIZE, path]:
        plan = einsum_plan(case.equation, *tensors, optimize=mode)
        what = f"einsum_plan({case.equation!r}, optimize={mode!r})\n{plan}"
        # naive: all operands in one step, (n - 1) multiplications per index tuple
        assert plan.naive_madds == (len(subs) - 1) * every, what
        if isinstance(mode, list) and len(subs) > 1:
            assert [tuple(p) for p in plan.path] == path, what
        if mode is False and len(subs) > 1:
            assert len(plan.path) == len(subs) - 1 and tuple(plan.path[0]) == (0, 1), what
        sums, contractions = simulate(subs, out, plan.path, size_of)
        assert plan.planned_madds == sum(sums) + sum(contractions), what
        assert plan.planned_madds == sum(s.madds for s in plan.steps), what
        assert [s.madds for s in plan.steps if s.kind == "contract"] == contractions, what
        assert sorted(s.madds for s in plan.steps if s.kind == "sum") == sorted(sums), what
        assert all(s.madds == 0 for s in plan.steps if s.kind not in ("sum", "contract")), what
        # the speed-up where both counts are positive (one operand makes naive 0 by the formula,
        # and so does a zero-size index, while scalar steps still cost 1: no ratio to speak of)
        if plan.planned_madds and plan.naive_madds:
            assert plan.speedup == pytest.approx(plan.naive_madds / plan.planned_madds), what
        made = [s.nbytes for s in plan.steps if s.kind in ("sum", "contract")]
        assert plan.largest_intermediate_bytes == max(made, default=0), what
        for s in plan.steps:
            assert s.nbytes == math.prod(s.shape) * 4, what
        copies = [r for s in plan.steps for r in s.routes if r.kind == "copy"]
        assert plan.bytes_copied == sum(r.nbytes for r in copies), what
        assert all(r.nbytes > 0 and r.why is not None for r in copies if math.prod(size_of.values())), what
        result = einsum(case.equation, *tensors, optimize=mode)
        assert (plan.steps[-1].shape if plan.steps else tensors[0].shape) == result.shape, what
        if mode == "optimal" and len(subs) > 1:
            # opt_einsum's cost of a pair is ours or twice ours (when an index is summed), so its
            # optimum is within a factor 2 of the cheapest path by our count
            best = min(sum(simulate(subs, out, p, size_of)[1]) for p in all_paths(len(subs)))
            assert sum(contractions) <= 2 * best, what


@settings(max_examples=40, deadline=None)
@given(case=plan_cases)
def test_a_plan_from_shapes_is_the_plan_of_contiguous_operands(case: Case) -> None:
    shapes = [spec.shape for spec in case.specs]
    from_shapes = einsum_plan(case.equation, *shapes)
    contiguous = [st.zeros(s) for s in shapes]  # float32, strided's own contiguous strides
    from_tensors = einsum_plan(case.equation, *contiguous)

    def key(plan):
        steps = [(s.kind, s.operands, s.result, s.equation, s.madds, s.shape, s.nbytes) for s in plan.steps]
        return (plan.path, steps, plan.naive_madds, plan.planned_madds, plan.largest_intermediate_bytes,
                plan.bytes_copied)

    assert key(from_shapes) == key(from_tensors)
    assert str(from_shapes) == str(from_tensors)


def test_the_seed_example_plan() -> None:
    """The issue's example: bij,bjk->bik at B=32 I=128 J=64 K=128 is one matrix product of
    33,554,432 multiply-adds, naive and planned alike, on views (nothing copied)."""
    plan = einsum_plan("bij,bjk->bik", (32, 128, 64), (32, 64, 128))
    assert plan.naive_madds == plan.planned_madds == 32 * 128 * 64 * 128 == 33_554_432
    assert plan.speedup == 1.0
    assert plan.bytes_copied == 0
    assert plan.largest_intermediate_bytes == 32 * 128 * 128 * 4
    text = str(plan)
    assert "33,554,432" in text and "bij,bjk->bik" in text


MISUSE = [
    ("float32 with float64", lambda lib: (lib.ones(2), lib.ones(2, dtype=lib.float64)), "i,i"),
    ("int64 with float32", lambda lib: (lib.ones(2, dtype=lib.int64), lib.ones(2)), "i,i"),
    ("a NumPy array", lambda lib: (np.ones(2),), "i"),
    ("no operand", lambda lib: (), "i"),
    ("an int equation", lambda lib: (lib.ones(2),), 3),
]


@pytest.mark.parametrize(("what", "make", "equation"), MISUSE, ids=[m[0] for m in MISUSE])
def test_misuse_raises_torchs_class(what: str, make, equation) -> None:
    """Operands of two dtypes (PyTorch's einsum does not promote: RuntimeError with its first
    line), an operand that is not a tensor or an equation that is not a str (TypeError), no
    operand at all (ValueError)."""
    with pytest.raises(Exception) as peer:
        torch.einsum(equation, *make(torch))
    with pytest.raises(Exception) as got:
        einsum(equation, *make(st))
    assert isinstance(got.value, st.StridedError), repr(got.value)
    assert isinstance(got.value, type(peer.value)), (got.value, peer.value)
    if isinstance(peer.value, RuntimeError):
        assert str(got.value).splitlines()[0] == str(peer.value).splitlines()[0]


@hs.composite
def view_cases(draw) -> Case:
    """One operand, every index kept (a permutation, diagonals, '...'): nothing to sum."""
    case = draw(cases(max_ops=1, negative=False, broadcast=False))
    (sub,) = case.subscripts
    letters = list(dict.fromkeys(c for c in sub if c != "."))
    out = draw(hs.permutations(letters))
    if "." in sub:
        at = draw(hs.integers(0, len(out)))
        out = [*out[:at], "...", *out[at:]]
    equation = sub.replace(".", "...") + "->" + "".join(out)
    return Case(equation, case.subscripts, case.specs, case.dtype, case.seed)


@settings(max_examples=60, deadline=None)
@given(case=view_cases())
def test_one_operand_with_nothing_to_sum_is_a_view_as_in_torch(case: Case) -> None:
    """``ij->ji``, ``ii->i``, ``...ij->j...i``: PyTorch returns a view of the operand (same
    storage, its strides and offset); so does strided, with the same layout."""
    (spec,) = case.specs
    t, _, s = build_valued(spec, valued_storage(spec, case.dtype, case.seed))
    expected = torch.einsum(case.equation, t)
    assert expected.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()  # the premise
    out = einsum(case.equation, s)
    assert out._storage is s._storage, f"{case.equation}: a copy, where PyTorch returns a view"
    assert out.shape == tuple(expected.shape)
    if out.numel():  # the same addresses: strides of the dims that have more than one index
        # Note: a size-1 dim's stride addresses nothing; strided may give it another value than PyTorch
        big = [d for d, n in enumerate(out.shape) if n > 1]
        assert [out.stride()[d] for d in big] == [expected.stride()[d] for d in big], case.equation
        assert out.storage_offset() == expected.storage_offset(), case.equation
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


@pytest.mark.parametrize("eq,shape", [("ii->", (2, 2)), ("ii->i", (2, 2)), ("iij->j", (2, 2, 3)),
                                      ("ii,ii->", (2, 2)), ("iji->ij", (2, 3, 2))])
def test_repeated_label_gradient_differentiable_to_third_order_as_torch(eq, shape):
    # (red team) a repeated label's gradient was written into fresh zeros with NumPy: under
    # create_graph it carried no graph, so the second derivative was silently missing
    def run(L):
        a = L.tensor(np.linspace(0.2, 1.3, int(np.prod(shape))).reshape(shape), dtype=L.float64, requires_grad=True)
        t = L.einsum(eq, *([a, a] if "," in eq else [a]))
        v = L.tensor(np.linspace(0.5, 1.0, t.numel()).reshape(tuple(t.shape)), dtype=L.float64, requires_grad=True)
        (g,) = L.autograd.grad(t ** 2, a, v, create_graph=True)
        h = L.autograd.grad((g[..., :1] ** 2).sum() + g.sum(), (a, v), create_graph=True)
        (t3,) = L.autograd.grad(sum((q ** 2).sum() for q in h) + h[0].sum(), a)
        return [q.detach().numpy() for q in (g, *h, t3)]

    for x, y in zip(run(st), run(torch)):
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-14)
