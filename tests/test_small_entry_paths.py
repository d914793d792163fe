"""The small-size fast paths of issue 23 (session 16): each answers what its general path answers
(values to the bit, dtype, shape, strides, errors, the listeners' records), and falls back where
its preconditions fail. No timings here (bench/bench_ops.py measures them)."""

from __future__ import annotations

import gc
import pickle
import weakref

import numpy as np
import pytest

import strided as st
from strided import dispatch
from strided.storage import Storage
from strided.tensor import Tensor

# ---------------------------------------------------------------- dispatch.adopted in C


def _slots(t):
    return (t._storage.array, t._storage._pinned, t._layout, t._dtype, t._base, t._ag)


def test_adopted_in_c_makes_the_python_bodys_objects():
    array = np.arange(6, dtype=np.float32)
    lay = st.zeros(2, 3)._layout
    got = dispatch.adopted(array, lay, st.float32)
    ref = dispatch._adopted_python(array, lay, st.float32)
    assert type(got) is Tensor and type(got._storage) is Storage
    assert all(x is y for x, y in zip(_slots(got), _slots(ref), strict=True))
    assert got._storage is not ref._storage
    # a usable tensor: values, weak references, pickling, resizing its own storage, garbage collection
    assert got.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and got.stride() == (3, 1)
    w = weakref.ref(got)
    assert pickle.loads(pickle.dumps(got)).tolist() == got.tolist()
    got.resize_(7)
    assert got.shape == (7,)
    del got
    gc.collect()
    assert w() is None


def test_adopted_is_the_c_function_where_the_kernel_is_built():
    if dispatch._ADOPT is None:
        pytest.skip("the copy kernel is not built (or STRIDED_NATIVE=0): the Python body runs")
    assert dispatch.adopted is dispatch._ADOPT.adopt


def test_adopt_types_refuses_a_class_without_the_slots():
    if dispatch._ADOPT is None:
        pytest.skip("the copy kernel is not built")

    class NoSlots:
        pass

    with pytest.raises(TypeError, match="not an object slot"):
        dispatch._ADOPT.adopt_types(NoSlots, Storage)
    with pytest.raises(TypeError, match="3 arguments"):
        dispatch.adopted(np.zeros(1))
    # (the refusal left the installed classes as they were)
    assert type(dispatch.adopted(np.zeros(1, np.float32), st.zeros(1)._layout, st.float32)) is Tensor


# ---------------------------------------------------------------- full max() / min()

torch = pytest.importorskip("torch")


def _same(got, want):
    """strided's tensor against torch's: dtype, shape, strides and the bits of every element."""
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    g, w = np.atleast_1d(got.numpy()), np.atleast_1d(want.numpy())
    if g.dtype.kind == "f":  # (NaN payloads: NumPy's, not PyTorch's; every other element to the bit)
        nan = np.isnan(g)
        assert (nan == np.isnan(w)).all(), (g, w)
        g, w = g[~nan], w[~nan]
    assert g.tobytes() == w.tobytes(), (g, w)


_FULL_CASES = {
    "plain": lambda: np.random.default_rng(1).standard_normal((3, 4)),
    "one": lambda: np.array([2.5]),
    "0-d": lambda: np.array(-1.5),
    "-0.0 largest": lambda: np.array([[-0.0, -1.0], [-2.0, -3.0]]),
    "0.0 and -0.0": lambda: np.array([0.0, -0.0, -0.0, 0.0]),
    "NaN": lambda: np.array([[1.0, np.nan], [3.0, 2.0]]),
    "inf": lambda: np.array([np.inf, -np.inf, 1.0]),
    "16x16": lambda: np.random.default_rng(2).standard_normal((16, 16)),
}


@pytest.mark.parametrize("case", sorted(_FULL_CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int32"])
@pytest.mark.parametrize("op", ["max", "min"])
def test_full_extreme_against_torch(case, dtype, op):
    data = _FULL_CASES[case]()
    tt = torch.tensor(data).to(getattr(torch, dtype))
    x = st.from_numpy(tt.float().numpy().copy()).to(getattr(st, dtype)) if dtype == "bfloat16" else \
        st.tensor(tt.numpy())
    if dtype == "int32" and case in ("NaN", "inf"):
        return
    _same(getattr(x, op)().float() if dtype == "bfloat16" else getattr(x, op)(),
          getattr(tt, op)().float() if dtype == "bfloat16" else getattr(tt, op)())
    _same(getattr(st, op)(x) if dtype != "bfloat16" else getattr(st, op)(x).float(),
          getattr(torch, op)(tt) if dtype != "bfloat16" else getattr(torch, op)(tt).float())


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("make", [
    lambda t: t.T,  # not row-major
    lambda t: t[1:],  # an offset into the storage
    lambda t: t[:, ::2],  # strided
    lambda t: t.reshape(-1)[:5],  # a shorter run than the storage
    lambda t: t.expand(2, 4, 6)  # broadcast (stride 0)
])
def test_full_extreme_falls_back_on_other_layouts(op, make):
    data = np.random.default_rng(3).standard_normal((4, 6)).astype(np.float32)
    data[2, 3] = -0.0
    got = getattr(make(st.tensor(data)), op)()
    want = getattr(make(torch.tensor(data)), op)()
    _same(got, want)


def test_full_extreme_of_an_empty_tensor_is_torchs_error():
    with pytest.raises(RuntimeError, match="numel\\(\\) == 0"):
        st.zeros(0, 3).max()
    with pytest.raises(RuntimeError, match="numel\\(\\) == 0"):
        st.zeros(0).min()


def test_full_extreme_reports_to_listeners_and_records_autograd():
    x = st.tensor([[1.0, 5.0], [2.0, 3.0]])
    with st.record_copies() as copies:
        pass
    records = []
    with dispatch.listen(records.append):
        y = x.max()
    assert [(r.name, r.kind) for r in records] == [("max", "compute")] and records[0].output is y
    w = st.tensor([[1.0, 5.0], [2.0, 5.0]], requires_grad=True)
    w.max().backward()
    assert w.grad.tolist() == [[0.0, 0.5], [0.0, 0.5]] and not copies


def test_full_extreme_with_the_kernels_off_gives_the_same_bits():
    from strided.kernels.native import disabled

    data = np.random.default_rng(4).standard_normal((5, 7))
    x = st.tensor(data)
    with disabled():
        off = (x.max().item(), x.min().item())
    assert off == (x.max().item(), x.min().item()) == (data.max(), data.min())


def test_extreme_all_kernel_answers():
    from strided.kernels import rows

    k = rows.extreme_all()
    if k is None:
        pytest.skip("the row kernel is not built")
    out = np.empty(1, np.float32)
    for n in (1, 7, 8, 9, 33, 1000):
        x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
        assert k(x, out, 1) == 0 and out[0] == x.max()
        assert k(x, out, 0) == 0 and out[0] == x.min()
    assert k(np.array([0.0, -1.0], np.float32), out, 1) == 1  # a zero: recompute
    assert k(np.array([np.nan, 1.0], np.float32), out, 0) == 1  # NaN: recompute
    assert k(np.zeros(0, np.float32), out, 1) == -1  # empty
    assert k(np.zeros(3, np.float64), out, 1) == -1  # out of another type
    assert k(np.zeros(3, np.int32), np.zeros(1, np.int32), 1) == -1  # not a float
    assert k(np.ones(3, ">f4"), out, 1) == -1  # not native
    unaligned = np.zeros(13, np.float32).view(np.uint8)[1:49].view(np.float32)
    assert k(unaligned, out, 1) == -1
    both = np.empty(2, np.float32)  # (mode 2: the smallest, then the largest)
    x = np.random.default_rng(5).standard_normal(9).astype(np.float32)
    assert k(x, both, 2) == 0 and both[0] == x.min() and both[1] == x.max()
    with pytest.raises(ValueError, match="mode"):
        k(np.ones(3, np.float32), out, 3)


# ---------------------------------------------------------------- F.linear's fresh path before below_autograd


@pytest.mark.parametrize("how", ["positional", "keyword", "no bias", "float16", "transposed", "grad"])
def test_linear_fresh_first_matches_the_general_path(monkeypatch, how):
    from strided.nn.functional import layers

    rng = np.random.default_rng(5)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((3, 4), (5, 4), (5,)))
    x[0, 0], x[1, 2] = -0.0, np.nan

    def run():
        X, W, B = st.tensor(x), st.tensor(w, requires_grad=how == "grad"), st.tensor(b)
        if how == "float16":
            X, W, B = X.half(), W.half(), B.half()
        if how == "transposed":
            X = st.tensor(np.ascontiguousarray(x.T)).T
        out = (st.nn.functional.linear(X, W, bias=B) if how == "keyword" else
               st.nn.functional.linear(X, W) if how == "no bias" else st.nn.functional.linear(X, W, B))
        fn = None if out.grad_fn is None else out.grad_fn.name()
        return out.detach().numpy().tobytes(), out.stride(), out.dtype, out._version, fn

    fast = run()
    monkeypatch.setattr(layers, "_FAST_LINEAR", False)
    assert run() == fast


# ---------------------------------------------------------------- normal_'s + 0.0 in C


def test_add_zero_is_numpys_add_of_a_zero():
    from strided.kernels import native

    k = native.rand()
    if k is None:
        pytest.skip("the random kernel is not built")
    for dt in (np.float32, np.float64):
        x = np.array([-0.0, 0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 1e-45, -1e-45, -np.nan], dt)
        want = np.add(x, np.zeros((), dt))
        got = x.copy()
        assert k.add_zero(got) is True
        assert got.tobytes() == want.tobytes()
    assert k.add_zero(np.zeros(3, np.int32)) is False  # (not a float: nothing written)
    assert k.add_zero(np.zeros(3, np.float16)) is False
    unaligned = np.zeros(13, np.float32).view(np.uint8)[1:49].view(np.float32)
    assert k.add_zero(unaligned) is False
    with pytest.raises(ValueError, match="not C-contiguous"):
        k.add_zero(np.zeros(4, np.float32)[::2])  # (not C-contiguous: the buffer refuses)


@pytest.mark.parametrize("args", [(), (0.0, 1.0), (-0.0, 1.0), (1.5, 2.0), (0.0, 0.0), (0.0, 3.0)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_fast_fill_draws_the_general_paths_numbers(args, dtype):
    from strided.kernels.native import disabled

    def draw(off):
        st.manual_seed(11)
        t = st.empty(4, 6, dtype=getattr(st, dtype))
        if off:
            with disabled():
                return t.normal_(*args).numpy().tobytes()
        return t.normal_(*args).numpy().tobytes()

    assert draw(False) == draw(True)


def test_normal_fast_fill_falls_back_where_it_must():
    from strided.kernels.native import disabled

    def transposed(off):
        st.manual_seed(3)
        t = st.empty(4, 6).T  # (not row-major: the general path)
        if off:
            with disabled():
                return t.normal_().numpy().tobytes()
        return t.normal_().numpy().tobytes()

    assert transposed(False) == transposed(True)
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0"):
        st.empty(3).normal_(0.0, -1.0)
    h = st.empty(3, dtype=st.float16).normal_()  # (half: the general path)
    assert h.dtype == st.float16 and bool(h.isfinite().all())
    z = st.empty(0, 3).normal_()
    assert z.shape == (0, 3)
    records, w = [], st.empty(2, 2)
    with dispatch.listen(records.append):
        assert w.normal_() is w
    assert [(r.name, r.output is w) for r in records] == [("normal_", True)]


# ---------------------------------------------------------------- cat / stack: the compiled join


def _join_cases():
    rng = np.random.default_rng(9)

    def t(shape, dtype=np.float32):
        return st.tensor(rng.standard_normal(shape).astype(dtype) if np.dtype(dtype).kind == "f"
                         else rng.integers(-5, 5, shape).astype(dtype))

    base = t((3, 4))
    return {
        "two": ([base, t((3, 4))], 0), "dim1": ([base, t((3, 2))], 1), "dim -1": ([base, t((3, 1))], -1),
        "three 3-d": ([t((2, 3, 4)), t((2, 1, 4)), t((2, 2, 4))], 1), "1-d": ([t((5,)), t((2,))], 0),
        "one": ([base], 0), "tuple": ((base, base), 0), "int64": ([t((2, 2), np.int64), t((1, 2), np.int64)], 0),
        "float16": ([t((2, 2), np.float16)] * 2, 1), "bool": ([st.tensor([[True, False]])] * 3, 0),
        "-0.0 NaN": ([st.tensor([[-0.0, np.nan]]), st.tensor([[np.inf, 0.0]])], 0),
        "offset": ([t((4, 4))[1:], base], 1), "narrow run": ([t((4, 4))[:2], t((2, 4))], 0),
        "transposed": ([t((4, 3)).T, base], 0), "sliced": ([t((3, 8))[:, ::2], base], 0),
        "expanded": ([t((1, 4)).expand(3, 4), base], 0), "mixed dtypes": ([base, base.double()], 0),
        "empty": ([t((0, 4)), base], 0), "empty 1-d": ([t((0,)), base], 0), "4-d": ([t((1, 2, 1, 2))] * 2, 0),
        "shape mismatch": ([base, t((2, 3))], 0), "0-d": ([st.tensor(1.5), st.tensor(2.5)], 0),
        "big": ([t((64, 129)), t((64, 129))], 0), "dim 5": ([base, base], 5), "dim -4": ([base, base], -4),
        "dim -2": ([base, t((1, 4))], -2), "dim -3": ([base, base], -3), "dim bool": ([base, base], True), "size-1 dims": ([t((3, 1)), t((3, 1))], 1),
    }


@pytest.mark.parametrize("case", sorted(_join_cases()))
@pytest.mark.parametrize("op", ["cat", "stack"])
def test_compiled_join_answers_as_the_python_join(monkeypatch, case, op):
    from strided.ops.shape import fast_join

    tensors, dim = _join_cases()[case]

    def run():
        try:
            out = getattr(st, op)(tensors, dim)
        except Exception as e:  # noqa: BLE001 - the error is part of the answer
            return type(e), str(e)
        return out.numpy().tobytes(), out.shape, out.stride(), out.dtype, out.storage_offset(), out._base

    got = run()
    monkeypatch.setattr(fast_join, "_JOIN_C", None)
    assert run() == got
    ref = getattr(torch, op)([torch.from_numpy(x.numpy().copy()) for x in tensors], dim) \
        if not isinstance(got[0], type) else None
    if ref is not None:
        assert got[1] == tuple(ref.shape) and got[2] == ref.stride()


def test_compiled_join_refusals_leave_flat_join_to_decide():
    from strided.ops.shape import fast_join

    if fast_join._JOIN_C is None:
        pytest.skip("the copy kernel is not built")
    k = fast_join._JOIN_C
    a = st.ones(2, 3)
    assert k([a, np.ones((2, 3))], 0, False) is None  # (not a tensor)
    assert k([], 0, False) is None and k(iter([a]), 0, False) is None
    assert k([a, a], 2, False) is None and k([a, a], -3, False) is None  # (a dim outside: the general path's error)
    assert k([a, a], -3, True).shape == (2, 2, 3)  # (counted from the end of the result's dims)
    assert k([a] * 65, 0, False) is None  # (more inputs than the C loop takes)
    out = k([a, a], 2, True)
    assert out.shape == (2, 3, 2) and out.stride() == (6, 2, 1)
    with pytest.raises(TypeError):
        k([a], 0)


def test_cat_under_a_listener_and_autograd_keeps_its_records():
    a, b = st.ones(2, 2), st.zeros(1, 2)
    with st.record_copies() as copies:
        y = st.cat([a, b])
    assert [(c.nbytes, c.shape, c.reason) for c in copies] == [
        (y.numel() * 4, (3, 2), "cat: 2 tensors joined along dim 0 into new memory")]
    w = st.ones(2, 2, requires_grad=True)
    z = st.cat([w, b])
    assert z.grad_fn.name() == "CatBackward0"
    z.sum().backward()
    assert w.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]


# ---------------------------------------------------------------- softmax / log_softmax called straight


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("case", ["rows", "offset", "dim0", "transposed", "0-d", "empty", "float16", "float64",
                                  "NaN -0.0 inf", "dtype=", "out="])
def test_softmax_straight_call_matches_the_general_path(monkeypatch, op, case):
    from strided.ops.reductions import softmax as module

    rng = np.random.default_rng(13)
    data = rng.standard_normal((4, 5)).astype(np.float32)
    if case == "NaN -0.0 inf":
        data[0, 1], data[1, 2], data[2, 3], data[3, :] = np.nan, -0.0, np.inf, -np.inf
    dim, kwargs = -1, {}

    def build(lib):
        x = lib.tensor(data)
        if case == "offset":
            return x[1:]
        if case == "transposed":
            return x.T
        if case == "0-d":
            return x[0, 0]
        if case == "empty":
            return x[:0]
        if case == "float16":
            return x.half()
        if case == "float64":
            return x.double()
        return x

    if case == "dim0":
        dim = 0
    if case == "dtype=":
        kwargs = {"dtype": st.float64}
    got = build(st)
    if case == "out=":
        kwargs = {"out": st.empty(4, 5)}
    ours = getattr(got, op)(dim, **kwargs)
    # (not compared with the kernels off: the compiled rows' exp and NumPy's differ in the last
    # bit, on main too; the general path below takes the same kernel)
    monkeypatch.setattr(module, "_fast_softmax", lambda *a: None)
    general = getattr(build(st), op)(dim, **({"out": st.empty(4, 5)} if case == "out=" else kwargs))
    assert ours.numpy().tobytes() == general.numpy().tobytes()
    assert ours.shape == general.shape and ours.stride() == general.stride() and ours.dtype == general.dtype
    tkw = {"dtype": torch.float64} if case == "dtype=" else {}
    theirs = getattr(build(torch), op)(dim, **tkw)
    assert ours.stride() == theirs.stride() and ours.shape == tuple(theirs.shape)
    np.testing.assert_allclose(ours.float().numpy(), theirs.float().numpy(), rtol=2e-3, atol=1e-6)


# ---------------------------------------------------------------- clone of a row-major tensor


@pytest.mark.parametrize("case", ["rows", "1-d", "0-d", "offset", "narrow", "transposed", "size-1 odd strides",
                                  "empty", "float16", "bool", "-0.0 NaN", "big", "typed alias"])
def test_clone_fast_path_matches_the_listened_path(case):
    rng = np.random.default_rng(17)
    base = st.tensor(rng.standard_normal((4, 6)).astype(np.float32))
    x = {"rows": base, "1-d": base.reshape(-1), "0-d": base[1, 2], "offset": base[1:], "narrow": base[:2],
         "transposed": base.T, "size-1 odd strides": base[:1].as_strided((1, 6), (7, 1)),
         "empty": base[:0], "float16": base.half(), "bool": base > 0,
         "-0.0 NaN": st.tensor([[-0.0, np.nan], [np.inf, 0.0]]),
         "big": st.zeros(600, 600), "typed alias": st.zeros(3, dtype=st.complex64).real}[case]
    fast = x.clone()
    with st.record_copies() as copies:
        watched = x.clone()
    assert fast.numpy().tobytes() == watched.numpy().tobytes() == x.numpy().tobytes()
    assert fast.shape == watched.shape and fast.stride() == watched.stride() and fast.dtype == watched.dtype
    assert fast.storage_offset() == 0 and not st.shares_memory(fast, x) if x.numel() else True
    assert [c.reason for c in copies][-1:] == ["clone()"]
    t = torch.from_numpy(x.numpy().copy()) if x.numel() else None
    if case in ("rows", "1-d", "0-d", "offset", "narrow"):
        assert fast.stride() == t.clone().stride()


# ---------------------------------------------------------------- topk's fast path: run read inline, tuple made directly


@pytest.mark.parametrize("case", ["rows", "offset", "narrow", "transposed", "ties", "NaN", "-0.0", "int32", "float16"])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_fast_path_matches_torch(case, largest):
    rng = np.random.default_rng(19)
    data = rng.standard_normal((5, 6)).astype(np.float32)
    if case == "ties":
        data[1, :3] = 2.0
    if case == "NaN":
        data[2, 4] = np.nan
    if case == "-0.0":
        data[3, :2] = (-0.0, 0.0)

    def build(lib):
        x = lib.tensor(data)
        return {"offset": x[1:], "narrow": x[:2], "transposed": x.T, "int32": (x * 10).to(lib.int32),
                "float16": x.half()}.get(case, x)

    got = build(st).topk(2, largest=largest)
    want = build(torch).topk(2, largest=largest)
    assert type(got).__name__ == "topk" and got._fields == ("values", "indices")
    assert got.values.stride() == want.values.stride() and got.indices.dtype == st.int64
    assert got.indices.tolist() == want.indices.tolist()
    np.testing.assert_array_equal(got.values.float().numpy(), want.values.float().numpy())
