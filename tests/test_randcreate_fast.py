"""The small-op fast paths of the random fills, creation ops and small BLAS (issue 23): each one
against its general path (forced by turning the fast path's precondition off) bit for bit, with
the same random stream after it, and against PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided
from strided.ops.creation import random as R
from strided.ops.linalg import fused as F
from strided.ops.linalg import matkernel as MK
from strided.ops.linalg import matmul as M
from strided.ops.linalg import products as P

RNG = np.random.default_rng(23)


def _bits(t: strided.Tensor) -> tuple:
    """Everything a fast path must reproduce: dtype, layout, and the exact bytes of the elements."""
    arr = t.numpy()
    return t.dtype, t.shape, t.stride(), t.storage_offset(), arr.tobytes()


def _targets(dtype: strided.dtypes.DType) -> list[strided.Tensor]:
    """Row-major targets (fast path): plain, offset > 0, size-1 dims, 0-d, zero-size; and a
    transposed one (general path either way)."""
    base = strided.zeros(40, dtype=dtype)
    return [strided.zeros(3, 4, dtype=dtype), base[5:17].view(3, 4), strided.zeros(1, 4, 1, dtype=dtype),
            strided.zeros((), dtype=dtype), strided.zeros(0, 3, dtype=dtype), strided.zeros(4, 3, dtype=dtype).t()]


SAMPLERS = [
    ("uniform_", (), (strided.float32, strided.float64)),
    ("uniform_", (-2.0, 3.0), (strided.float32, strided.float64)),
    ("normal_", (1.0, 2.0), (strided.float32, strided.float64)),
    ("normal_", (), (strided.float32, strided.float64)),
    ("normal_", (-0.0, 3.0), (strided.float32, strided.float64)),
    ("random_", (), (strided.float32, strided.int64, strided.int32)),
    ("random_", (3, 9), (strided.float64, strided.int64)),
    ("bernoulli_", (0.3,), (strided.float32, strided.int64)),
    ("exponential_", (2.0,), (strided.float32, strided.float64)),
    ("geometric_", (0.4,), (strided.float32, strided.int64)),
    ("log_normal_", (40.0, 2.0), (strided.float32,)),  # (overflows float32: the cast is quiet on both paths)
    ("cauchy_", (0.5, 2.0), (strided.float64,)),
]


def _fill_all(name: str, args: tuple, dtype: strided.dtypes.DType, seed: int) -> list[tuple]:
    strided.manual_seed(seed)
    out = []
    for t in _targets(dtype):
        returned = getattr(t, name)(*args)
        assert returned is t
        out.append(_bits(t))
    out.append(_bits(strided.rand(5)))  # the stream after the fills
    return out


@pytest.mark.parametrize("name, args, dtypes", SAMPLERS)
def test_inplace_samplers_fast_path_is_the_general_path(name, args, dtypes, monkeypatch):
    """Same seed: the same elements, bit for bit, and the same stream afterwards, fast or general."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (neither path warns, log_normal_'s overflowing cast included)
        for dtype in dtypes:
            taken, run, native_fill = [], R.flat_run, R._native_fill

            def counted(t, info, taken=taken, run=run):
                flat = run(t, info)
                taken.append(flat is not None)
                return flat

            def compiled(t, *a, taken=taken, native_fill=native_fill):
                done = native_fill(t, *a)
                taken.append(done)
                return done

            with monkeypatch.context() as m:  # (a fast path is taken: the row-major targets' runs are written)
                m.setattr(R, "flat_run", counted)
                m.setattr(R, "_native_fill", compiled)
                fast = _fill_all(name, args, dtype, 7)
            # (a fast path taken for several targets: the compiled fill's and the flat path's; how many
            # depends on the in-place entry front, which draws plain row-major targets in C before any
            # tensor of the process has required grad, as when this file runs alone: those calls never
            # reach the Python paths counted here)
            assert sum(taken) >= 2, taken
            with monkeypatch.context() as m:
                m.setattr(R, "flat_run", lambda t, info: None)
                m.setattr(R, "_native_fill", lambda t, *a: False)
                general = _fill_all(name, args, dtype, 7)
            assert fast == general, (name, args, dtype)


def test_inplace_sampler_fast_path_keeps_checks_and_errors():
    """A read-only target, a bad generator and bad arguments raise as before and write nothing."""
    arr = np.zeros((2, 3), np.float32)
    arr.flags.writeable = False
    with pytest.raises(RuntimeError, match="read-only"):
        strided.from_numpy(arr).uniform_()
    t = strided.zeros(2, 3)
    with pytest.raises(TypeError, match="argument 'generator' must be torch.Generator"):
        t.uniform_(generator=3)
    with pytest.raises(RuntimeError, match=r"from=2 > to=1"):
        t.uniform_(2.0, 1.0)
    assert not t.numpy().any()
    with pytest.raises(RuntimeError, match="expects to return a"):
        torch.zeros(2, 3).uniform_(2.0, 1.0)
    g = strided.Generator().manual_seed(3)
    a = strided.zeros(2, 3).uniform_(generator=g)
    b = strided.zeros(2, 3).uniform_(generator=strided.Generator().manual_seed(3))
    assert a.numpy().tobytes() == b.numpy().tobytes()
    assert ((a.numpy() >= 0) & (a.numpy() < 1)).all()


def test_inplace_sampler_of_a_view_writes_its_base():
    base = strided.zeros(4, 4)
    base[1].uniform_(5.0, 6.0)
    values = base.numpy()
    assert (values[1] >= 5).all() and not values[[0, 2, 3]].any()


# ---------------------------------------------------------------- the small BLAS


def _values(shape, dtype, special=False):
    v = RNG.standard_normal(shape).astype(dtype)
    if special and v.size >= 3:
        v.reshape(-1)[:3] = [np.inf, np.nan, -0.0]
    return v


def _calls():
    """(op, input shape, factor shapes) for addmm, addmv, addr, baddbmm."""
    return [("addmm", (4, 5), ((4, 3), (3, 5))), ("addmm", (1, 5), ((1, 3), (3, 5))),
            ("addmm", (4, 2), ((4, 1), (1, 2))), ("addmv", (4,), ((4, 3), (3,))), ("addmv", (1,), ((1, 1), (1,))),
            ("addr", (4, 5), ((4,), (5,))), ("addr", (2, 2), ((2,), (2,))),
            ("baddbmm", (2, 4, 5), ((2, 4, 3), (2, 3, 5))), ("baddbmm", (1, 1, 1), ((1, 1, 1), (1, 1, 1)))]


def _general(monkeypatch):
    m = monkeypatch.context()
    ctx = m.__enter__()
    ctx.setattr(F, "fast_product", lambda a, b: None)
    ctx.setattr(F, "_rowmajor", lambda t, shape: None)
    ctx.setattr(F, "_plus_input", lambda *a: None)  # (addmv's inlined row-major test: its last step)
    ctx.setattr(F, "fast_bmm", lambda a, b: None)
    MK.switch_off(ctx.setattr)  # (the compiled products and scaling)
    return m


def _offset(arr: np.ndarray, lib) -> object:
    """The same values at storage offset 3 (a slice of a bigger 1-D tensor, viewed to the shape)."""
    flat = np.concatenate([np.zeros(3, arr.dtype), arr.reshape(-1)])
    t = lib.tensor(flat) if lib is torch else strided.tensor(flat)
    return t[3:].view(arr.shape)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("special", [False, True])
def test_blas_fast_paths_are_the_general_path_and_torchs(dtype, special, monkeypatch):
    taken = []
    plus = F._plus_input
    monkeypatch.setattr(F, "_plus_input", lambda *a: taken.append(1) or plus(*a))  # (the fast paths ran)
    MK.ready()
    scale_add = MK.scale_add  # (or their compiled last step)
    monkeypatch.setattr(MK, "scale_add", lambda *a: (r := scale_add(*a)) is not None and taken.append(1) or r)
    addr = MK.addr  # (addr's in one call)
    monkeypatch.setattr(MK, "addr", lambda *a: (r := addr(*a)) is not None and taken.append(1) or r)
    for name, ishape, (s1, s2) in _calls():
        iv, av, bv = _values(ishape, dtype, special), _values(s1, dtype, special), _values(s2, dtype)
        for offset in (False, True):
            make = (lambda v, lib: _offset(v, lib)) if offset else (lambda v, lib: lib.tensor(v))
            ours = getattr(strided, name)(make(iv, strided), make(av, strided), make(bv, strided))
            m = _general(monkeypatch)
            try:
                general = getattr(strided, name)(make(iv, strided), make(av, strided), make(bv, strided))
            finally:
                m.__exit__(None, None, None)
            assert _bits(ours) == _bits(general), (name, ishape, offset)
            theirs = getattr(torch, name)(make(iv, torch), make(av, torch), make(bv, torch))
            assert ours.shape == tuple(theirs.shape) and ours.stride() == theirs.stride()
            tol = 1e-5 if dtype == np.float32 else 1e-12
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=tol, atol=tol)
    if special:  # (addr's compiled call leaves a NaN result to the general path: PyTorch's NaN bits)
        assert len(taken) >= 2 * sum(1 for c in _calls() if c[0] != "addr")
    else:
        assert len(taken) == 2 * len(_calls())  # (every call, plain and at an offset)


def test_blas_fast_paths_leave_other_calls_to_the_general_path():
    """Non-unit beta/alpha, broadcast inputs, out=, transposed factors and mixed dtypes: the
    general path's values and errors, as PyTorch's."""
    a, b = RNG.standard_normal((3, 2)), RNG.standard_normal((2, 3))
    i = RNG.standard_normal((3,))
    for kw in ({"beta": 0.5}, {"alpha": 2}, {"beta": True}, {}):
        ours = strided.addmm(strided.tensor(i), strided.tensor(a), strided.tensor(b).t().contiguous().t(), **kw)
        theirs = torch.addmm(torch.tensor(i), torch.tensor(a), torch.tensor(b), **kw)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    out = strided.empty(3, 3, dtype=strided.float64)
    assert strided.addmm(strided.tensor(np.ones((3, 3))), strided.tensor(a), strided.tensor(b), out=out) is out
    with pytest.raises(RuntimeError) as ours:
        strided.addmm(strided.ones(3, 3), strided.tensor(a), strided.tensor(b))
    with pytest.raises(RuntimeError) as theirs:
        torch.addmm(torch.ones(3, 3), torch.tensor(a), torch.tensor(b))
    assert str(ours.value).splitlines()[0] == str(theirs.value)
    with pytest.raises(RuntimeError) as ours:
        strided.addmm(strided.ones(2, 2), strided.ones(2, 3), strided.ones(2, 2))
    with pytest.raises(RuntimeError) as theirs:
        torch.addmm(torch.ones(2, 2), torch.ones(2, 3), torch.ones(2, 2))
    assert str(ours.value).splitlines()[0] == str(theirs.value)


def test_blas_fast_paths_record_gradients_as_torch():
    av, bv, iv = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2)), RNG.standard_normal((3, 2))
    grads = []
    for lib in (strided, torch):
        i, a, b = (lib.tensor(v, requires_grad=True) for v in (iv, av, bv))
        lib.addmm(i, a, b).sum().backward()
        v1, v2 = lib.tensor(av[:, 0], requires_grad=True), lib.tensor(bv[:, 0], requires_grad=True)
        j = lib.tensor(np.repeat(iv[:, :1], 4, axis=1), requires_grad=True)
        lib.addr(j, v1, v2).pow(2).sum().backward()
        grads.append([t.grad.numpy() for t in (i, a, b, j, v1, v2)])
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_blas_fast_paths_report_as_the_general_path(monkeypatch):
    a, b, i = strided.ones(2, 3), strided.ones(3, 2), strided.ones(2, 2)

    def names():
        with strided.watch() as w:
            strided.addmm(i, a, b)
            strided.mm(a, b)
            strided.addr(i, strided.ones(2), strided.ones(2))
        return [s.name for s in w.steps]

    fast = names()
    m = _general(monkeypatch)
    try:
        monkeypatch.setattr(M, "fast_product", lambda a, b: None)
        general = names()
    finally:
        m.__exit__(None, None, None)
    assert fast == general and fast[:2] == ["addmm", "mm"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mm_fast_path_is_the_general_path(dtype, monkeypatch):
    for sa, sb in (((3, 4), (4, 5)), ((1, 4), (4, 3)), ((3, 1), (1, 3))):
        av, bv = _values(sa, dtype, True), _values(sb, dtype, True)
        fast = strided.mm(_offset(av, strided), strided.tensor(bv))
        monkeypatch.setattr(M, "fast_product", lambda a, b: None)
        general = strided.mm(_offset(av, strided), strided.tensor(bv))
        monkeypatch.undo()
        assert _bits(fast) == _bits(general)
        theirs = torch.mm(torch.tensor(av), torch.tensor(bv))
        np.testing.assert_allclose(fast.numpy(), theirs.numpy(), rtol=1e-5)


# ---------------------------------------------------------------- linspace / logspace memo


SPACES = [("linspace", (0.0, 1.0, 12), {}), ("linspace", (-0.0, 1.0, 5), {}), ("linspace", (0, 1, 5), {}),
          ("linspace", (True, 3, 4), {"dtype": "int64"}), ("linspace", (-3.5, 7.25, 9), {"dtype": "float64"}),
          ("logspace", (0.0, 1.0, 256), {}), ("logspace", (-2, 3, 7), {"base": 2.0, "dtype": "float64"}),
          ("logspace", (0.0, 5.0, 6), {"dtype": "int32"})]


def test_space_memo_gives_the_computed_values_and_torchs():
    from strided import creation as C

    for name, args, kw in SPACES:
        C._SPACE_VALUES.clear()
        dt = {k: getattr(strided, v) for k, v in kw.items() if k == "dtype"}
        rest = {k: v for k, v in kw.items() if k != "dtype"}
        first = getattr(strided, name)(*args, **rest, **dt)  # (computed, then kept)
        again = getattr(strided, name)(*args, **rest, **dt)  # (from the memo)
        assert _bits(first) == _bits(again), (name, args)
        assert not np.shares_memory(first.numpy(), again.numpy())
        again.add_(1)  # (a fresh, writable result: the memo is only copied from)
        assert _bits(getattr(strided, name)(*args, **rest, **dt)) == _bits(first)
        theirs = getattr(torch, name)(*args, **rest, **{k: getattr(torch, v) for k, v in kw.items() if k == "dtype"})
        assert first.numpy().tobytes() == theirs.numpy().tobytes(), (name, args)
    # the sign of a zero bound is part of the key
    f32 = strided.float32
    assert C._space_key("linspace", 0.0, 1, 3, 0, f32) != C._space_key("linspace", -0.0, 1, 3, 0, f32)
    assert C._space_key("linspace", 1, 2, 3, 0, f32) != C._space_key("linspace", True, 2, 3, 0, f32)
    for lo, hi in ((0.0, -0.0), (-0.0, -0.0), (-0.0, 0.0)):
        for _ in range(2):
            assert strided.linspace(lo, hi, 3).numpy().tobytes() == torch.linspace(lo, hi, 3).numpy().tobytes()
    assert len(C._SPACE_VALUES) <= C._SPACE_LIMIT


def test_space_memo_keeps_errors_and_bounds():
    from strided import creation as C

    for _ in range(2):  # (an overflowing bound raises every time: nothing was kept for it)
        with pytest.raises(RuntimeError, match="overflow"):
            strided.linspace(0, 300, 3, dtype=strided.uint8)
    n = len(C._SPACE_VALUES)
    strided.linspace(0.0, 1.0, C._SPACE_STEPS + 1)
    strided.linspace(float("nan"), 1.0, 3)
    assert len(C._SPACE_VALUES) == n  # (long ramps and NaN bounds are not kept)


# ---------------------------------------------------------------- norms


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_norm_fast_paths_are_the_general_path_and_torchs(dtype, monkeypatch):
    from strided.ops.linalg import norms as N

    cases = [(3, 4), (1, 5), (2, 3, 4), (1, 1)]
    for shape in cases:
        v = _values(shape, dtype, special=shape == (2, 3, 4))
        huge = v.copy()
        huge.reshape(-1)[-1] = 1e30 if dtype == np.float32 else 1e300  # (its square overflows, quietly)
        for fn in ("matrix_norm", "vector_norm"):
            for values in (v, huge):
                fast = getattr(strided.linalg, fn)(_offset(values, strided))
                with monkeypatch.context() as m:
                    m.setattr(N, "flat_run", lambda t, info: None)
                    general = getattr(strided.linalg, fn)(_offset(values, strided))
                assert _bits(fast) == _bits(general), (fn, shape)
            # (not the huge values: PyTorch scales them and gets 1e30 where both our paths get inf)
            theirs = getattr(torch.linalg, fn)(torch.tensor(v))
            np.testing.assert_allclose(fast.numpy() if values is v else getattr(strided.linalg, fn)(
                strided.tensor(v)).numpy(), theirs.numpy(), rtol=1e-6)
    x = strided.tensor(_values((3, 4), dtype), requires_grad=True)
    xt = torch.tensor(x.detach().numpy(), requires_grad=True)
    strided.linalg.matrix_norm(x).backward()
    torch.linalg.matrix_norm(xt).backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        strided.linalg.matrix_norm(strided.ones(3))


# ---------------------------------------------------------------- creation


def _likes(seed: int) -> list[tuple]:
    strided.manual_seed(seed)
    out = []
    for dtype in (strided.float32, strided.float64, strided.float16, strided.int64):
        for t in _targets(dtype):
            if dtype.is_floating_point:
                out += [_bits(strided.rand_like(t)), _bits(strided.randn_like(t))]
            out.append(_bits(strided.randint_like(t, 3, 9)))
    out.append(_bits(strided.rand(4)))  # (the stream after them)
    return out


def test_like_samplers_fast_paths_are_the_general_path(monkeypatch):
    fast = _likes(11)
    monkeypatch.setattr(R, "_draws_in_place", lambda *a: False)
    monkeypatch.setattr(R, "_like_strides", lambda t, dtype, fmt: R.like_strides(t, fmt))
    assert fast == _likes(11)
    with pytest.raises(RuntimeError) as ours:  # (errors unchanged: checked before any draw)
        strided.rand_like(strided.zeros(2, dtype=strided.int64))
    with pytest.raises(RuntimeError) as theirs:
        torch.rand_like(torch.zeros(2, dtype=torch.int64))
    assert str(ours.value).splitlines()[0] == str(theirs.value)


def test_like_factories_and_arange_match_torch_layouts():
    import torch as T

    for make in (lambda lib: lib.zeros(3, 4), lambda lib: lib.zeros(4, 3).t(), lambda lib: lib.zeros(1, 4, 1),
                 lambda lib: lib.zeros(2, 3, 4).permute(2, 0, 1), lambda lib: lib.zeros(0, 3), lambda lib: lib.zeros(40)[3:15]):
        ours, theirs = make(strided), make(T)
        for name, args in (("empty_like", ()), ("zeros_like", ()), ("ones_like", ()), ("full_like", (2.5,)),
                           ("rand_like", ()), ("randn_like", ()), ("randint_like", (5,))):
            o, t = getattr(strided, name)(ours, *args), getattr(T, name)(theirs, *args)
            assert (o.shape, o.stride(), o.storage_offset()) == (tuple(t.shape), t.stride(), t.storage_offset()), name
            if name in ("zeros_like", "ones_like", "full_like"):
                assert o.numpy().tobytes() == t.numpy().tobytes()
    for n in (0, 1, 12, 1000):
        fast, general = strided.arange(n), strided.arange(n, dtype=strided.int64)
        assert _bits(fast) == _bits(general) and fast.numpy().tobytes() == T.arange(n).numpy().tobytes()
        assert fast.stride() == T.arange(n).stride()
    with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent with step sign"):
        strided.arange(-1)
    with pytest.raises(RuntimeError) as ours:
        strided.arange(3, requires_grad=True)
    with pytest.raises(RuntimeError) as theirs:
        T.arange(3, requires_grad=True)
    # (as before the fast path: leaf()'s text is requires_grad_()'s, "only ...", where torch.arange capitalizes)
    assert str(ours.value).splitlines()[0].lower() == str(theirs.value).lower()


def test_new_tensor_copies_once_and_warns_as_torch():
    x = strided.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        y = x.t().new_tensor(x.t())
    assert y.tolist() == [[1.0, 3.0], [2.0, 4.0]] and y.stride() == (1, 2) and not y.requires_grad  # (torch's: x.t()'s order)
    assert not np.shares_memory(y.numpy(), x.detach().numpy())
    with pytest.warns(UserWarning):
        z = x.new_tensor(x, dtype=strided.float64, requires_grad=True)
    assert z.dtype == strided.float64 and z.requires_grad and z.grad_fn is None


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bmm_and_dot_fast_paths_are_the_general_path(dtype, monkeypatch):
    pairs = [(_values(sa, dtype, True), _values(sb, dtype, True))
             for sa, sb in (((2, 3, 4), (2, 4, 5)), ((1, 1, 3), (1, 3, 1)), ((3, 2, 2), (3, 2, 2)))]
    vectors = [(_values((n,), dtype, n > 3), _values((n,), dtype)) for n in (1, 5, 64)]

    def run():
        out = []
        for av, bv in pairs:
            ours = strided.bmm(_offset(av, strided), strided.tensor(bv))
            theirs = torch.bmm(torch.tensor(av), torch.tensor(bv))
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5)
            assert ours.stride() == theirs.stride()
            out.append(_bits(ours))
        for av, bv in vectors:
            ours = strided.dot(_offset(av, strided), strided.tensor(bv))
            theirs = torch.dot(torch.tensor(av), torch.tensor(bv))
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5)
            out.append(_bits(ours))
            out.append(_bits(strided.vdot(strided.tensor(bv), _offset(av, strided))))
            out.append(_bits(strided.dot(strided.tensor(av)[::2], strided.tensor(bv)[::2])))  # (strided: general path)
        with pytest.raises(RuntimeError) as ours:
            strided.dot(strided.ones(3), strided.ones(3, dtype=strided.float64))
        with pytest.raises(RuntimeError) as theirs:
            torch.dot(torch.ones(3), torch.ones(3, dtype=torch.float64))
        assert str(ours.value).splitlines()[0] == str(theirs.value)
        return out

    fast = run()
    monkeypatch.setattr(M, "fast_bmm", lambda a, b: None)
    monkeypatch.setattr(M, "_rowmajor_float", lambda t, shape, dtype: None)
    MK.switch_off(monkeypatch.setattr)
    monkeypatch.setattr(M, "fast_dot", lambda a, b: None)  # (dot's and vdot's np.dot of the flat runs)
    monkeypatch.setattr(P, "fast_dot", lambda a, b: None)
    assert fast == run()


def test_factories_adopt_their_draw_and_keep_the_stream():
    """randint/randperm/normal's results are NumPy's fresh draws of the seeded PCG64 stream,
    as before (the draw itself becomes the result's memory)."""
    strided.manual_seed(5)
    a = strided.randint(0, 10, (3, 4))
    b = strided.randperm(7)
    c = strided.normal(1.0, 2.0, (2, 3), dtype=strided.float64)
    d = strided.randint(3, (0, 2))
    e = strided.randint(0, 5, (4,), dtype=strided.int32)  # (another dtype: copied, cast)
    g = np.random.Generator(np.random.PCG64(5))
    assert a.numpy().tobytes() == g.integers(0, 9, size=(3, 4), dtype=np.int64, endpoint=True).tobytes()
    assert b.numpy().tobytes() == g.permutation(7).tobytes()
    assert c.numpy().tobytes() == (g.standard_normal((2, 3), dtype=np.float64) * 2.0 + 1.0).tobytes()
    g.integers(0, 2, size=(0, 2), dtype=np.int64, endpoint=True)
    assert e.numpy().tobytes() == g.integers(0, 4, size=(4,), dtype=np.int64, endpoint=True).astype(np.int32).tobytes()
    for t, shape in ((a, (3, 4)), (b, (7,)), (c, (2, 3)), (d, (0, 2)), (e, (4,))):
        assert t.shape == shape and t.is_contiguous() and t.storage_offset() == 0
        assert t.untyped_storage().nbytes() == t.numel() * t.element_size()
    a.add_(1)  # (its own writable memory)
    assert a.numpy().min() >= 1


def test_full_float_values_as_torch():
    """The float fill values that skip the checks convert as PyTorch's fill does (bytes equal);
    the ones past float32's range keep the general path's error."""
    f32max = float(np.finfo(np.float32).max)
    for v in (2.0, -0.0, float("nan"), float("inf"), -float("inf"), f32max, -f32max, 1e-46, 3.0000001, 1e-40):
        for dt in ("float32", "float64"):
            ours = strided.full((2, 3), v, dtype=getattr(strided, dt))
            theirs = torch.full((2, 3), v, dtype=getattr(torch, dt))
            assert ours.numpy().tobytes() == theirs.numpy().tobytes(), (v, dt)
            like = strided.full_like(strided.zeros(3, 2, dtype=getattr(strided, dt)).t(), v)
            assert like.numpy().tobytes() == torch.full_like(torch.zeros(3, 2, dtype=getattr(torch, dt)).t(), v
                                                             ).numpy().tobytes()
            assert like.stride() == (1, 2)
    for v in (1e39, -1e300):
        with pytest.raises(RuntimeError) as ours:
            strided.full((2,), v)
        with pytest.raises(RuntimeError) as theirs:
            torch.full((2,), v)
        assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_polar_and_complex_fast_paths_are_the_general_path(dtype, monkeypatch):
    from strided.ops.elementwise import complex_ops as CO

    pairs = [(_values(s, dtype, True), _values(s, dtype, True)) for s in ((3, 4), (1,), (), (0, 2))]

    def run():
        out = []
        for a, b in pairs:
            for name in ("polar", "complex"):
                ours = getattr(strided, name)(_offset(a, strided) if a.ndim else strided.tensor(a), strided.tensor(b))
                theirs = getattr(torch, name)(torch.tensor(a), torch.tensor(b))
                assert ours.stride() == theirs.stride() and ours.dtype.name == str(theirs.dtype).split(".")[1]
                if name == "complex":
                    assert ours.numpy().tobytes() == theirs.numpy().tobytes()
                else:
                    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)
                out.append(_bits(ours))
        return out

    fast = run()
    monkeypatch.setattr(CO, "_rowmajor_parts", lambda a, b: None)
    assert fast == run()


def test_to_fast_path_is_the_general_path_and_torchs(monkeypatch):
    import warnings

    from strided.ops import conversions as CV

    names = ("float32", "float64", "int32", "int64")
    sources = {"float32": np.array([1.5, -2.5, 0.0, -0.0, 3e9, -7.9, 1e-40, 2.0**31], np.float32),
               "float64": np.array([1.5, -2.5, 1e-320, -0.0, 3e9, -7.9, 1.0 + 2**-40, 2.0**63], np.float64),
               "int32": np.array([0, -1, 2**31 - 1, -(2**31), 16777217, 7, -7, 3], np.int32),
               "int64": np.array([0, -1, 2**53 + 1, -(2**63), 2**62, 7, -7, 3], np.int64)}

    def run():
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # (neither path warns about the overflowing casts)
            for src, values in sources.items():
                for view in (lambda t: t[1:7].view(2, 3), lambda t: t[3], lambda t: t[:0]):
                    x = view(strided.tensor(values))
                    for dst in names:
                        y = x.to(getattr(strided, dst))
                        out.append(_bits(y))
                        if dst != src and not (src.startswith("float") and dst.startswith("int")):
                            # (float -> int of out-of-range values is undefined in C++: not compared)
                            t = view(torch.tensor(values)).to(getattr(torch, dst))
                            assert y.numpy().tobytes() == t.numpy().tobytes() and y.stride() == t.stride()
        return out

    fast = run()
    monkeypatch.setattr(CV, "flat_run", lambda t, info: None)
    assert fast == run()
    x = strided.tensor([1.0, 2.0], requires_grad=True)
    x.to(strided.float64).pow(2).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0] and x.grad.dtype == strided.float32
    with strided.watch() as w:  # (a watched call reports its copy: the general path)
        strided.ones(3).to(strided.float64)
    assert [(s.name, s.kind) for s in w.steps] == [("ones", "alloc"), ("to", "copy")]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cdist_fast_path_is_the_general_path_and_torchs(dtype, monkeypatch):
    from strided.ops.linalg import distance as D

    pairs = [(_values((3, 4), dtype, True), _values((5, 4), dtype)), (_values((1, 1), dtype), _values((1, 1), dtype)),
             (_values((25, 3), dtype), _values((2, 3), dtype))]

    def run():
        out = []
        for a, b in pairs:
            ours = strided.cdist(_offset(a, strided), strided.tensor(b))
            theirs = torch.cdist(torch.tensor(a), torch.tensor(b))
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)
            assert ours.stride() == theirs.stride()
            out.append(_bits(ours))
        return out

    fast = run()
    monkeypatch.setattr(D, "_small_euclidean", lambda a, b: None)
    assert fast == run()
    monkeypatch.undo()
    a, b = _values((3, 2), dtype), _values((4, 2), dtype)
    xs, xt = strided.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    strided.cdist(xs, strided.tensor(b)).sum().backward()
    torch.cdist(xt, torch.tensor(b)).sum().backward()
    # (a gradient entry is a sum of terms near 1 that may cancel: the bound is relative to the largest)
    np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-5 * float(xt.grad.abs().max()))
    with pytest.raises(RuntimeError) as ours:
        strided.cdist(strided.ones(2, 3), strided.ones(2, 4))
    with pytest.raises(RuntimeError) as theirs:
        torch.cdist(torch.ones(2, 3), torch.ones(2, 4))
    assert str(ours.value).splitlines()[0] == str(theirs.value)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_solve_of_two_matrices_is_the_batched_solve_and_torchs(dtype):
    a = (RNG.standard_normal((4, 4)) + 4 * np.eye(4)).astype(dtype)
    b = RNG.standard_normal((4, 3)).astype(dtype)
    nan = a.copy()
    nan[1, 2] = np.nan
    singular = np.ones((4, 4), dtype)
    for m in (a, nan):
        for left in (True, False):
            rhs = b if left else b.T.copy()
            two = strided.linalg.solve(strided.tensor(m), strided.tensor(rhs), left=left)
            batched = strided.linalg.solve(strided.tensor(m[None]), strided.tensor(rhs[None]), left=left)[0]
            assert two.numpy().tobytes() == batched.numpy().tobytes() and two.stride() == batched.stride()
            theirs = torch.linalg.solve(torch.tensor(m), torch.tensor(rhs), left=left)
            assert two.stride() == theirs.stride()
            np.testing.assert_allclose(two.numpy(), theirs.numpy(), rtol=1e-4)
    x, info = strided.linalg.solve_ex(strided.tensor(singular), strided.tensor(b))
    xt, infot = torch.linalg.solve_ex(torch.tensor(singular), torch.tensor(b))
    assert info.item() == infot.item() and np.isnan(x.numpy()).all()
    with pytest.raises(RuntimeError) as ours:
        strided.linalg.solve(strided.tensor(singular), strided.tensor(b))
    with pytest.raises(RuntimeError) as theirs:
        torch.linalg.solve(torch.tensor(singular), torch.tensor(b))
    assert str(ours.value).splitlines()[0] == str(theirs.value)


def test_dot_vdot_addmv_fast_paths_overflow_silently_as_torch():
    """The np.dot fast paths give PyTorch's inf for an overflow, without NumPy's RuntimeWarning."""
    big = np.full(4, 1e30, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name, args in (("dot", (big, big)), ("vdot", (big, big)), ("addmv", (big[:2], big.reshape(2, 2), big[:2]))):
            ours = getattr(strided, name)(*(strided.tensor(a) for a in args))
            theirs = getattr(torch, name)(*(torch.tensor(a) for a in args))
            assert ours.tolist() == theirs.tolist() and ours.shape == tuple(theirs.shape), name


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mean, std", [(0.0, 1.0), (-0.0, 1.0), (0.0, 2.5), (-0.0, 0.5), (1.5, 1.0)])
def test_normal_fill_is_the_general_paths_arithmetic_on_signed_zeros(dtype, mean, std, monkeypatch):
    """_fill_normal's ``+ mean`` (a cached 0-d zero for +0.0) on draws that hold -0.0 and 0.0 (rare
    in a real stream): the bits of the general path's ``draw * std + mean``."""
    draws = np.array([-0.0, 0.0, 1.0, -2.5, 3e-39, -7.0], dtype)
    monkeypatch.setattr(R, "_draw_normal", lambda g, out: out.__setitem__(Ellipsis, draws))
    out = np.empty(draws.shape, dtype)
    R._fill_normal(None, out, mean, std)
    assert out.tobytes() == (draws * std + mean).astype(dtype).tobytes()


def test_bernoulli_fast_path_is_the_general_path(monkeypatch):
    """bernoulli(probs)'s compiled draw: the general path's values and dtype, bit for bit, and the
    same stream afterwards; refused probabilities draw nothing and raise PyTorch's error."""
    probs = [np.array([[0.0, 1.0, 0.5, 0.25], [0.999, 1e-7, 0.75, 0.5], [0.1, 0.9, 0.3, 0.6]], dt) for dt in
             (np.float32, np.float64)] + [RNG.random((16, 16)), RNG.random(7).astype(np.float32)]

    def run():
        strided.manual_seed(11)
        out = []
        for p in probs:
            for t in (strided.tensor(p), _offset(p, strided)):
                r = strided.bernoulli(t)
                assert r.shape == t.shape and r.stride() == strided.tensor(p).stride()
                out.append(_bits(r))
        for bad in ([0.5, 1.5], [0.5, np.nan], [-0.0, -1e-30]):
            with pytest.raises(RuntimeError) as e:
                strided.bernoulli(strided.tensor(np.array(bad, np.float32)))
            out.append(str(e.value).splitlines()[0])
        out.append(_bits(strided.rand(5)))  # the stream after
        return out

    fast = run()
    monkeypatch.setattr(R, "_fast_bernoulli", lambda t: None)
    assert fast == run()
