"""In-place elementwise updates (``add_``, ``mul_``, ``clamp_``, ``neg_``, ``addcmul_``, ...) of a
target whose elements share memory without a stride-0 dim (``unfold`` windows, an overlapping
``as_strided``): PyTorch lets it through as "too hard" and updates a shared location once per
element reaching it, in TensorIterator's order (strided.ops._support.overlap_updates), against
torch itself bit for bit: the whole storage afterwards, or the error's class and first line."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st

DTYPES = ["float32", "float64", "float16", "bfloat16", "complex64", "int32", "int64", "uint8", "bool"]
_BITS = {1: "uint8", 2: "int16", 4: "int32", 8: "int64", 16: None}

# (name, call): each call takes the library, the target and the operand tensor of the draw
OPS = {
    "add_": lambda lib, v, o: v.add_(o),
    "add_ alpha": lambda lib, v, o: v.add_(o, alpha=2),
    "add_ number": lambda lib, v, o: v.add_(1),
    "sub_ itself": lambda lib, v, o: v.sub_(v),
    "mul_": lambda lib, v, o: v.mul_(o),
    "mul_ itself": lambda lib, v, o: v.mul_(v),
    "mul_ number": lambda lib, v, o: v.mul_(1.5),
    "div_": lambda lib, v, o: v.div_(o),
    "pow_": lambda lib, v, o: v.pow_(2),
    "neg_": lambda lib, v, o: v.neg_(),
    "abs_": lambda lib, v, o: v.abs_(),
    "clamp_": lambda lib, v, o: v.clamp_(min=-1, max=2),
    "clamp_min_ tensor": lambda lib, v, o: v.clamp_min_(o),
    "addcmul_": lambda lib, v, o: v.addcmul_(o, o, value=0.5),
    "addcdiv_": lambda lib, v, o: v.addcdiv_(o, o + 3, value=2),
    "bitwise_xor_": lambda lib, v, o: v.bitwise_xor_(o),
    "iadd": lambda lib, v, o: v.__iadd__(o),
    "ldexp_": lambda lib, v, o: v.ldexp_(o.to(lib.int32) if o.dtype.is_floating_point else o),
    "float_power_": lambda lib, v, o: v.float_power_(2),
    "lerp_ scalar": lambda lib, v, o: v.lerp_(o, 0.3),
    "lerp_ tensor": lambda lib, v, o: v.lerp_(o, o),
    "heaviside_": lambda lib, v, o: v.heaviside_(o),
    "round_": lambda lib, v, o: v.round_(),
    "round_ decimals": lambda lib, v, o: v.round_(decimals=1),
    "nan_to_num_": lambda lib, v, o: v.nan_to_num_(nan=1.0),
    "polygamma_": lambda lib, v, o: v.polygamma_(1),
}


def _bits(lib, base):
    """The storage's bytes as integers (NaN payloads and -0.0 compared too)."""
    width = _BITS[base.element_size()]
    if width is None:
        return base.view(lib.float64).view(lib.int64).tolist()
    return base.view(getattr(lib, width)).tolist()


def _kind(e: Exception) -> str:
    for kind in (NotImplementedError, RuntimeError, TypeError):
        if isinstance(e, kind):
            return kind.__name__
    return type(e).__name__


def _run(lib, size, shape, strides, offset, dtype, other_shape, seed, name):
    rng = np.random.default_rng(seed)
    base = lib.tensor(rng.standard_normal(size) * 3).to(getattr(lib, dtype))
    view = base.as_strided(shape, strides, offset)
    other = lib.tensor(rng.standard_normal(other_shape) * 3).to(getattr(lib, dtype))
    return outcome(lib, lambda: OPS[name](lib, view, other), base)


def outcome(lib, call, base):
    """``base``'s bits after ``call()``, or the error's kind and (an overlap refusal's) first line."""
    try:
        call()
    except (RuntimeError, TypeError) as e:
        text = str(e).splitlines()[0]
        # (the text of the overlap refusals; other refusals' texts are their own tests' matter)
        return _kind(e), text if text.startswith("unsupported operation") else ""
    return _bits(lib, base)


@settings(max_examples=400, deadline=None)
@given(
    dims=hs.lists(hs.tuples(hs.integers(1, 5), hs.integers(1, 4), hs.booleans()), min_size=1, max_size=3),
    offset=hs.integers(0, 3),
    dtype=hs.sampled_from(DTYPES),
    seed=hs.integers(0, 2**16),
    name=hs.sampled_from(sorted(OPS)),
)
def test_an_update_of_overlapping_elements_is_torchs(dims, offset, dtype, seed, name):
    shape = [n for n, _, _ in dims]
    strides = [s for _, s, _ in dims]
    other_shape = [1 if squeeze else n for n, _, squeeze in dims]
    size = offset + sum((n - 1) * s for n, s in zip(shape, strides)) + 1
    args = (size, shape, strides, offset, dtype, other_shape, seed, name)
    got, want = _run(st, *args), _run(torch, *args)
    assert got == want or (dtype.startswith("complex") and same_but_nan_words(got, want, dtype))


def same_but_nan_words(got, want, dtype: str) -> bool:
    """Whether two storages' words (:func:`_bits`) of a complex dtype are the same but for the
    sign and payload of NaN parts: strided does not model the NaN words of PyTorch's complex
    arithmetic (see ``test_complex_mul_is_pytorchs_bits``; the repeated squares of ``mul_
    itself`` overflow to inf, then NaN), so a NaN part only has to be a NaN there."""
    if not (isinstance(got, list) and isinstance(want, list)) or len(got) != len(want):
        return False
    part = np.float32 if dtype == "complex64" else np.float64
    g, w = (np.asarray(v, np.int64).view(part) for v in (got, want))
    return bool(((g.view(np.uint8).reshape(g.size, -1) == w.view(np.uint8).reshape(w.size, -1)).all(1)
                 | (np.isnan(g) & np.isnan(w))).all())


@settings(max_examples=100, deadline=None)
@given(dims=hs.lists(hs.tuples(hs.integers(1, 5), hs.integers(1, 4)), min_size=1, max_size=3),
       offset=hs.integers(0, 3), seed=hs.integers(0, 2**16), eps=hs.sampled_from([None, 0.25]))
def test_logit_of_overlapping_elements_is_torchs(dims, offset, seed, eps):
    """``logit_`` into an overlapping float64 target, values in (0, 1): each shared location
    takes logit as many times as elements reach it. Compared to 1e-12 (not bit for bit): strided's
    logit differs from PyTorch's in the last ulp on plain layouts too (float32/float16/bfloat16
    NaN bits as well), which is not this test's matter."""
    shape = [n for n, _ in dims]
    strides = [s for _, s in dims]
    size = offset + sum((n - 1) * s for n, s in zip(shape, strides)) + 1
    values = np.random.default_rng(seed).uniform(0.05, 0.95, size)

    def run(lib):
        base = lib.tensor(values)
        base.as_strided(shape, strides, offset).logit_(eps)
        return np.array(base.tolist())

    np.testing.assert_allclose(run(st), run(torch), rtol=1e-12, atol=1e-12)


def test_an_operand_in_the_targets_memory_in_another_layout_stays_refused():
    """Read at its own time in the walk (after some of its elements were updated): refused, as
    before, and nothing written."""
    b = st.arange(10.0)
    with pytest.raises(st.OverlapWriteError):
        b[:9].unfold(0, 2, 1).add_(b[1:].unfold(0, 2, 1))
    assert b.tolist() == list(range(10))


def test_a_target_in_autograds_graph_stays_refused():
    w = st.arange(10.0, requires_grad=True)
    b = w * 1
    with pytest.raises(st.OverlapWriteError, match="single memory location"):
        b.unfold(0, 2, 1).add_(1)
    assert b.tolist() == list(range(10))


def test_overlapping_windows_past_overlaps_listing_limit_are_torchs(monkeypatch):
    """70000 windows (past the 65536 elements ``overlaps`` lists): one thread, PyTorch's updates
    (strided added 1 once per location before, NumPy's); two threads, refused (a race)."""
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    s, t = st.arange(70001.0), torch.arange(70001.0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        t.unfold(0, 2, 1).mul_(1.5)
    finally:
        torch.set_num_threads(threads)
    s.unfold(0, 2, 1).mul_(1.5)
    assert s.tolist() == t.tolist()
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    with pytest.raises(st.OverlapWriteError, match="single memory location"):
        s.unfold(0, 2, 1).mul_(1.5)


def _index_put_accumulate(lib, size, shape, strides, offset, dtype, count, seed, form):
    rng = np.random.default_rng(seed)
    base = lib.tensor(rng.standard_normal(size) * 3).to(getattr(lib, dtype))
    view = base.as_strided(shape, strides, offset)
    idx = lib.tensor(rng.integers(-shape[0], shape[0], size=count))
    value_shape = (count, *shape[1:])
    value = lib.tensor(rng.standard_normal(value_shape) * 3).to(getattr(lib, dtype))
    if form == "expanded":
        value = value[:1].expand(*value_shape)
    elif form == "permuted":
        value = value.permute(*range(value.dim() - 1, -1, -1)).contiguous().permute(*range(value.dim() - 1, -1, -1))
    return outcome(lib, lambda: view.index_put_((idx,), value, accumulate=True), base)


# (each dim's size and stride, up to three dims: overlapping layouts in about half the draws)
_DIMS = hs.lists(hs.tuples(hs.integers(1, 5), hs.integers(1, 4)), min_size=1, max_size=3)


@settings(max_examples=300, deadline=None)
@given(dims=_DIMS, offset=hs.integers(0, 3), dtype=hs.sampled_from(DTYPES), count=hs.integers(1, 6),
       seed=hs.integers(0, 2**16), form=hs.sampled_from(["plain", "expanded", "permuted"]))
def test_index_put_accumulate_into_overlapping_elements_is_torchs(dims, offset, dtype, count, seed, form):
    """``index_put_(..., accumulate=True)`` into an overlapping target: ``index_put_kernel``'s
    serial walk adds each value to its location in turn (a shared location once per element
    reaching it), in the target's dtype."""
    shape = [n for n, _ in dims]
    strides = [s for _, s in dims]
    size = offset + sum((n - 1) * s for n, s in zip(shape, strides)) + 1
    args = (size, shape, strides, offset, dtype, count, seed, form)
    assert _index_put_accumulate(st, *args) == _index_put_accumulate(torch, *args)


def test_index_put_accumulate_past_the_grain(monkeypatch):
    """float32 from the grain on several threads: PyTorch's atomic adds in its threads' order
    (refused, nothing written); other dtypes stay serial (PyTorch's one walk)."""
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    idx = st.arange(40000)
    b = st.zeros(40001)
    with pytest.raises(st.OverlapWriteError, match="single memory location"):
        b.unfold(0, 2, 1).index_put_((idx,), st.ones(40000, 2), accumulate=True)
    assert b.sum().item() == 0
    s, t = st.zeros(40001, dtype=st.float64), torch.zeros(40001, dtype=torch.float64)
    s.unfold(0, 2, 1).index_put_((idx,), st.arange(80000.0, dtype=st.float64).reshape(40000, 2) / 7, accumulate=True)
    t.unfold(0, 2, 1).index_put_((torch.arange(40000),), torch.arange(80000.0, dtype=torch.float64).reshape(40000, 2) / 7,
                                 accumulate=True)
    assert s.tolist() == t.tolist()


def _scatter_add(lib, size, shape, strides, offset, dim, dtype, seed, index_shape, reduce=None):
    rng = np.random.default_rng(seed)
    base = lib.tensor(rng.standard_normal(size) * 3).to(getattr(lib, dtype))
    view = base.as_strided(shape, strides, offset)
    index = lib.tensor(rng.integers(0, shape[dim], size=index_shape))
    src = lib.tensor(rng.standard_normal(index_shape) * 3).to(getattr(lib, dtype))
    if reduce in ("sum", "prod"):
        return outcome(lib, lambda: view.scatter_reduce_(dim, index, src, reduce), base)
    if reduce is not None:
        return outcome(lib, lambda: view.scatter_(dim, index, src, reduce=reduce), base)
    return outcome(lib, lambda: view.scatter_add_(dim, index, src), base)


@settings(max_examples=300, deadline=None)
@given(dims=_DIMS, offset=hs.integers(0, 3), where=hs.integers(0, 2), seed=hs.integers(0, 2**16),
       dtype=hs.sampled_from([d for d in DTYPES if d != "bool"]), smaller=hs.booleans())
def test_scatter_add_into_overlapping_elements_is_torchs(dims, offset, where, seed, dtype, smaller):
    """``scatter_add_`` into an overlapping ``self``: ``cpu_scatter_gather_base_kernel``'s walk adds
    each value to its location in turn (float16/bfloat16 into its float32 copy, copied back)."""
    shape = [n for n, _ in dims]
    strides = [s for _, s in dims]
    size = offset + sum((n - 1) * s for n, s in zip(shape, strides)) + 1
    index_shape = [max(1, n - 1) if smaller else n for n in shape]
    args = (size, shape, strides, offset, where % len(shape), dtype, seed, index_shape)
    assert _scatter_add(st, *args) == _scatter_add(torch, *args)


@settings(max_examples=300, deadline=None)
@given(dims=_DIMS, offset=hs.integers(0, 3), where=hs.integers(0, 2), seed=hs.integers(0, 2**16),
       dtype=hs.sampled_from(DTYPES), smaller=hs.booleans(),
       reduce=hs.sampled_from(["add", "multiply", "sum", "prod"]))
@pytest.mark.filterwarnings("ignore:The reduce argument")
def test_scatter_reduce_legacy_into_overlapping_elements_is_torchs(dims, offset, where, seed, dtype, smaller, reduce):
    """``scatter_(dim, index, src, reduce=...)`` and ``scatter_reduce_`` "sum" / "prod" (include_self)
    into an overlapping ``self``: the same kernel's walk as ``scatter_add_``, multiplying for
    "multiply" / "prod"."""
    shape = [n for n, _ in dims]
    strides = [s for _, s in dims]
    size = offset + sum((n - 1) * s for n, s in zip(shape, strides)) + 1
    index_shape = [max(1, n - 1) if smaller else n for n in shape]
    args = (size, shape, strides, offset, where % len(shape), dtype, seed, index_shape, reduce)
    assert _scatter_add(st, *args) == _scatter_add(torch, *args)


def test_scatter_add_race_is_refused(monkeypatch):
    """Past scatter's grain on several threads PyTorch's threads add into shared locations at
    once: refused, nothing written."""
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    b = st.zeros(40001)
    index = st.zeros(40000, 1, dtype=st.int64)
    with pytest.raises(st.OverlapWriteError, match="single memory location"):
        b.unfold(0, 2, 1).scatter_add_(1, index, st.ones(40000, 1))
    assert b.sum().item() == 0


def _index_add(lib, size, shape, strides, offset, dim, dtype, seed, count, alpha):
    rng = np.random.default_rng(seed)
    base = lib.tensor(rng.standard_normal(size) * 3).to(getattr(lib, dtype))
    view = base.as_strided(shape, strides, offset)
    idx = lib.tensor(rng.integers(0, shape[dim], size=count))
    source = lib.tensor(rng.standard_normal([count if e == dim else n for e, n in enumerate(shape)]) * 3)
    source = source.to(getattr(lib, dtype))
    return outcome(lib, lambda: view.index_add_(dim, idx, source, alpha=alpha), base)


@settings(max_examples=300, deadline=None)
@given(dims=_DIMS, offset=hs.integers(0, 3), where=hs.integers(0, 2), seed=hs.integers(0, 2**16),
       dtype=hs.sampled_from([d for d in DTYPES if d != "bool"]), count=hs.integers(1, 5), alpha=hs.sampled_from([1, 2, -1]))
def test_index_add_into_overlapping_elements_is_torchs(dims, offset, where, seed, dtype, count, alpha):
    """``index_add_`` into an overlapping ``self``: off PyTorch's scatter_add path its loop adds
    ``alpha * source``'s slices into the indexed slices in turn (each slice's add in its own loop's
    order); on it (dim 0 or the last, alpha 1) ``scatter_add_``'s walk with the index expanded."""
    shape = [n for n, _ in dims]
    strides = [s for _, s in dims]
    size = offset + sum((n - 1) * s for n, s in zip(shape, strides)) + 1
    args = (size, shape, strides, offset, where % len(shape), dtype, seed, count, alpha)
    assert _index_add(st, *args) == _index_add(torch, *args)


def test_index_add_on_the_scatter_path_past_the_grain_is_refused(monkeypatch):
    """Where ``index_add_``'s scatter_add path splits its walk between threads (they race on the
    shared locations), the refusal stays: nothing written; below the grain it computes."""
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    b = st.zeros(40001)
    with pytest.raises(st.OverlapWriteError, match="single memory location"):
        b.unfold(0, 2, 1).index_add_(1, st.tensor([1, 0]), st.ones(40000, 2))
    assert b.sum().item() == 0
    b.unfold(0, 2, 1).index_add_(0, st.tensor([0, 0]), st.ones(2, 2))  # (2 walk positions: one thread)
    assert b[:3].tolist() == [2.0, 2.0, 0.0]


def _scan(lib, size, shape, strides, offset, dim, dtype, seed, name):
    rng = np.random.default_rng(seed)
    base = lib.tensor(rng.standard_normal(size) * 2).to(getattr(lib, dtype))
    view = base.as_strided(shape, strides, offset)
    return outcome(lib, lambda: getattr(view, name)(dim), base)


@settings(max_examples=300, deadline=None)
@given(dims=_DIMS, offset=hs.integers(0, 3), where=hs.integers(0, 2), seed=hs.integers(0, 2**16),
       dtype=hs.sampled_from(DTYPES + ["int8", "complex128"]), name=hs.sampled_from(["cumsum_", "cumprod_"]))
def test_a_scan_of_overlapping_elements_is_torchs(dims, offset, where, seed, dtype, name):
    """``cumsum_`` / ``cumprod_`` into an overlapping ``self``: ``cpu_cum_base_kernel``'s lines in
    TensorIterator's order, each element read as memory holds it then, the running value in
    ``acc_type`` written back cast."""
    shape = [n for n, _ in dims]
    strides = [s for _, s in dims]
    size = offset + sum((n - 1) * s for n, s in zip(shape, strides)) + 1
    args = (size, shape, strides, offset, where % len(shape), dtype, seed, name)
    assert _scan(st, *args) == _scan(torch, *args)


def test_a_scan_split_between_threads_is_refused(monkeypatch):
    """Past ``for_each``'s grain (``GRAIN_SIZE`` / the line's length) on several threads the
    lines race: refused, nothing written; one long line (grain 0) too, unless it is the only one."""
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    b = st.ones(40001)
    for dim in (1, 0):
        with pytest.raises(st.OverlapWriteError, match="single memory location"):
            b.unfold(0, 2, 1).cumsum_(dim)
        assert b.sum().item() == 40001
    s, t = st.ones(40001), torch.ones(40001)
    s.as_strided((40000, 1), (1, 1)).cumsum_(0)
    t.as_strided((40000, 1), (1, 1)).cumsum_(0)
    assert s.tolist() == t.tolist()


def _arange(lib, size, shape, strides, offset, dtype, start, step):
    base = lib.zeros(size, dtype=getattr(lib, dtype))
    view = base.as_strided(shape, strides, offset)
    n = int(np.prod(shape))
    return outcome(lib, lambda: lib.arange(start, start + step * n - step / 2, step, out=view), base)


@settings(max_examples=200, deadline=None)
@given(dims=hs.lists(hs.tuples(hs.integers(1, 5), hs.integers(0, 3)), min_size=1, max_size=3),
       offset=hs.integers(0, 3), dtype=hs.sampled_from(["float32", "float64", "float16", "bfloat16", "int32", "int64"]),
       start=hs.integers(-3, 3), which=hs.integers(0, 2))
def test_arange_into_an_overlapping_out_is_torchs(dims, offset, dtype, start, which):
    """``arange(out=)`` into an ``out`` whose elements share memory: PyTorch makes the range in a
    contiguous temporary and ``copy_``'s it in (each location keeps its last write); a stride-0
    ``out`` stays refused as PyTorch refuses it."""
    shape = [n for n, _ in dims]
    strides = [s for _, s in dims]
    size = offset + sum((n - 1) * s for n, s in zip(shape, strides)) + 1
    step = ([1, 0.5, -1.25] if dtype.startswith(("float", "bfloat")) else [1, 2, -1])[which]
    args = (size, shape, strides, offset, dtype, float(start), step)
    assert _arange(st, *args) == _arange(torch, *args)


@pytest.mark.parametrize("shape, s1, o1, s2, o2, dtype", [
    ([4, 3], [1, 3], 1, [2, 3], 1, "int64"),
    ([4, 2], [1, 1], 3, [0, 3], 1, "float32"),
    ([2, 2], [2, 2], 3, [2, 3], 2, "float32"),
])
def test_copy_from_the_storage_of_a_target_whose_elements_share_memory_is_refused(shape, s1, o1, s2, o2, dtype):
    """``copy_`` into a target whose elements share memory from a source in the same storage:
    PyTorch's loop reads the source after its own writes in ways strided does not follow (these
    three gave other numbers than torch's): refused, nothing written."""
    base = st.arange(14.0).to(getattr(st, dtype))
    before = base.tolist()
    with pytest.raises(st.OverlapWriteError, match="single memory location"):
        base.as_strided(shape, s1, o1).copy_(base.as_strided(shape, s2, o2))
    assert base.tolist() == before
