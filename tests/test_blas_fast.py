"""The small BLAS/linalg fast paths of issue 23 (addmm, addmv, addr, baddbmm with any number
``beta``/``alpha``; cross; kron) and the random draws' trimmed argument work: each fast path
against its general path (forced by monkeypatching the fast path off) bit for bit, against
PyTorch (values, layouts, gradients, errors), and the seeded random streams unchanged."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native
from strided.ops.linalg import fused as F
from strided.ops.linalg import matkernel as MK
from strided.ops.linalg import products as P

RNG = np.random.default_rng(236)


def _bits(t: strided.Tensor) -> tuple:
    """Everything a fast path must reproduce: dtype, layout, and the exact bytes of the elements."""
    return t.dtype, t.shape, t.stride(), t.storage_offset(), t.numpy().tobytes()


def _values(shape, dtype, special=False):
    v = (RNG.standard_normal(shape) * 3).astype(dtype)
    if special and v.size >= 4:
        v.reshape(-1)[:4] = [np.inf, np.nan, -0.0, 1e38]  # (1e38: overflows float32 once scaled)
    return v


def _at_offset(arr: np.ndarray, lib) -> object:
    """The same values at storage offset 3 (a slice of a bigger 1-D tensor, viewed to the shape)."""
    flat = np.concatenate([np.zeros(3, arr.dtype), arr.reshape(-1)])
    return lib.tensor(flat)[3:].view(arr.shape) if lib is torch else strided.tensor(flat)[3:].view(arr.shape)


# ---------------------------------------------------------------- addmm, addmv, addr, baddbmm

CALLS = [("addmm", (4, 5), (4, 3), (3, 5)), ("addmm", (1, 1), (1, 2), (2, 1)),
         ("addmv", (4,), (4, 3), (3,)), ("addmv", (1,), (1, 1), (1,)),
         ("addr", (4, 5), (4,), (5,)), ("addr", (2, 2), (2,), (2,)),
         ("baddbmm", (2, 4, 5), (2, 4, 3), (2, 3, 5)), ("baddbmm", (1, 1, 1), (1, 1, 1), (1, 1, 1)),
         ("addbmm", (4, 5), (3, 4, 2), (3, 2, 5)), ("addbmm", (1, 1), (1, 1, 1), (1, 1, 1))]
SCALARS = [(0.5, 2.0), (0, 2.0), (2, 1), (1, -0.5), (-1.5, 3), (0.0, 1.0), (1, 1), (0.1, 0.3)]


def _order_dependent(name, vals, alpha, dtype) -> np.ndarray:
    """The elements whose product terms, or their sum, or that sum times alpha, may pass the
    dtype's largest finite value: inf or a finite number there depends on where a BLAS applies
    alpha and in which order it sums (PyTorch's MKL gives a finite value for some of them on an
    AVX-512 CPU, inf on an AVX2 one), so they are compared with the general path only."""
    # (the finite terms only: an inf or NaN operand gives inf or NaN in any order, unless a
    # finite term overflows beside it, which the bound then shows)
    magnitudes = [torch.tensor(np.nan_to_num(np.abs(v).astype(np.float64), nan=0.0, posinf=0.0)) for v in vals]
    magnitudes[0] = torch.zeros_like(magnitudes[0])  # (the input's own term is added once: exact order)
    bound = getattr(torch, name)(*magnitudes, beta=0, alpha=1).numpy() * max(1.0, abs(float(alpha)))
    return bound > np.finfo(dtype).max


def _general(monkeypatch):
    m = monkeypatch.context()
    ctx = m.__enter__()
    ctx.setattr(F, "_plus_input", lambda *a: None)
    MK.switch_off(ctx.setattr)  # (the compiled products and scaling)
    return m


def _call(lib, name, shapes_values, make, beta, alpha):
    return getattr(lib, name)(*(make(v, lib) for v in shapes_values), beta=beta, alpha=alpha)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_fast_paths_take_any_number_beta_alpha_bit_for_bit(dtype, monkeypatch):
    """Any int/float beta and alpha: the fast path's bits are the general path's (inf, NaN, -0.0
    and an overflow included; beta=0 ignores NaN in the input), and close to PyTorch's."""
    taken, expected = [], 0
    plus = F._plus_input
    monkeypatch.setattr(F, "_plus_input", lambda *a: taken.append(1) or plus(*a))
    MK.ready()
    scale_add = MK.scale_add  # (or their compiled last step)
    monkeypatch.setattr(MK, "scale_add", lambda *a: (r := scale_add(*a)) is not None and taken.append(1) or r)
    addr = MK.addr  # (addr's in one call)
    monkeypatch.setattr(MK, "addr", lambda *a: (r := addr(*a)) is not None and taken.append(1) or r)
    addbmm = MK.addbmm  # (addbmm's in one call)
    monkeypatch.setattr(MK, "addbmm", lambda *a: (r := addbmm(*a)) is not None and taken.append(1) or r)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (neither path warns about an overflow: PyTorch's inf)
        for name, *shapes in CALLS:
            vals = [_values(s, dtype, special=True) for s in shapes]
            for beta, alpha in SCALARS:
                for make in (lambda v, lib: lib.tensor(v), _at_offset):
                    ours = _call(strided, name, vals, make, beta, alpha)
                    m = _general(monkeypatch)
                    try:
                        general = _call(strided, name, vals, make, beta, alpha)
                    finally:
                        m.__exit__(None, None, None)
                    assert _bits(ours) == _bits(general), (name, beta, alpha)
                    # (addr with an input term and a NaN result: the compiled call leaves it to the
                    # general path, PyTorch's fma forms in Python)
                    expected += not (name == "addr" and beta != 0 and np.isnan(general.numpy()).any())
                theirs = _call(torch, name, vals, lambda v, lib: lib.tensor(v), beta, alpha)
                assert ours.shape == tuple(theirs.shape) and ours.stride() == theirs.stride()
                tol = 1e-4 if dtype == np.float32 else 1e-12
                settled = ~_order_dependent(name, vals, alpha, dtype)
                np.testing.assert_allclose(ours.numpy()[settled], theirs.numpy()[settled], rtol=tol, atol=tol)
    assert len(taken) == expected


def test_fused_beta_zero_and_alpha_zero_as_torch():
    """beta=0: NaN/inf in the input never reach the result; alpha=0 (BLAS ops): the product is
    ignored (general path), addr multiplies it (inf * 0 = NaN) as PyTorch does."""
    nan_in = np.full((2, 2), np.nan, np.float32)
    a, b = np.array([[np.inf, 1], [2, 3]], np.float32), np.eye(2, dtype=np.float32)
    ours = strided.addmm(strided.tensor(nan_in), strided.tensor(a), strided.tensor(b), beta=0, alpha=2.0)
    theirs = torch.addmm(torch.tensor(nan_in), torch.tensor(a), torch.tensor(b), beta=0, alpha=2.0)
    assert ours.numpy().tobytes() == theirs.numpy().tobytes()
    ours = strided.addmm(strided.tensor(b), strided.tensor(a), strided.tensor(b), beta=0.5, alpha=0)
    theirs = torch.addmm(torch.tensor(b), torch.tensor(a), torch.tensor(b), beta=0.5, alpha=0)
    assert ours.numpy().tobytes() == theirs.numpy().tobytes()
    v = np.array([np.inf, 1.0], np.float32)
    ours = strided.addr(strided.tensor(b), strided.tensor(v), strided.tensor(v), beta=0.5, alpha=0)
    theirs = torch.addr(torch.tensor(b), torch.tensor(v), torch.tensor(v), beta=0.5, alpha=0)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_fused_integer_and_odd_scalars_stay_on_the_general_path_as_torch():
    """Integer tensors truncate float beta/alpha (BLAS ops) as PyTorch; a bool or a 0-d tensor
    beta, or out=, takes the general path with PyTorch's values."""
    i, a, b = (RNG.integers(-5, 5, s) for s in ((3, 3), (3, 2), (2, 3)))
    ours = strided.addmm(strided.tensor(i), strided.tensor(a), strided.tensor(b), beta=2.7, alpha=-1.5)
    theirs = torch.addmm(torch.tensor(i), torch.tensor(a), torch.tensor(b), beta=2.7, alpha=-1.5)
    assert ours.tolist() == theirs.tolist() and ours.dtype == strided.int64
    f = [RNG.standard_normal(s).astype(np.float32) for s in ((3, 3), (3, 2), (2, 3))]
    for kw in ({"beta": True}, {"alpha": torch.tensor(2.0)}):
        skw = {k: (strided.tensor(v.item()) if isinstance(v, torch.Tensor) else v) for k, v in kw.items()}
        ours = strided.addmm(*(strided.tensor(v) for v in f), **skw)
        theirs = torch.addmm(*(torch.tensor(v) for v in f), **kw)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)
    out = strided.empty(3, 3)
    assert strided.addmm(*(strided.tensor(v) for v in f), beta=0.5, alpha=2.0, out=out) is out
    np.testing.assert_allclose(out.numpy(), torch.addmm(*(torch.tensor(v) for v in f), beta=0.5, alpha=2.0).numpy(),
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError) as ours:
        strided.addmm(strided.ones(3, 3), strided.ones(3, 2), strided.ones(3, 3), beta=0.5, alpha=2.0)
    with pytest.raises(RuntimeError) as theirs:
        torch.addmm(torch.ones(3, 3), torch.ones(3, 2), torch.ones(3, 3), beta=0.5, alpha=2.0)
    assert str(ours.value).splitlines()[0] == str(theirs.value)


def test_fused_fast_paths_record_gradients_as_torch():
    grads = []
    vals = [RNG.standard_normal(s) for s in ((3, 2), (3, 4), (4, 2), (3,), (2,), (2, 3, 2), (2, 3, 4), (2, 4, 2))]
    for lib in (strided, torch):
        ts = [lib.tensor(v, requires_grad=True) for v in vals]
        i, a, b, v1, v2, bi, b1, b2 = ts
        (lib.addmm(i, a, b, beta=0.5, alpha=2.0).pow(2).sum() + lib.addr(i, v1, v2, beta=-1.0, alpha=0.25).sum()
         + lib.addmv(v1, a, b[:, 0], beta=3, alpha=0.5).sum()
         + lib.baddbmm(bi, b1, b2, beta=0.5, alpha=-2.0).pow(2).sum()
         + lib.addbmm(bi[0], b1, b2, beta=2, alpha=0.5).pow(2).sum()).backward()
        grads.append([t.grad.numpy() for t in ts])
    for ours, theirs in zip(*grads, strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


# ---------------------------------------------------------------- cross


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.complex64])
def test_cross_bits_any_dim_broadcast_row_major(dtype):
    """The one-expression cross: PyTorch's bits for float32/float64 (its kernel's fused
    ``fma(a1, b2, -(a2*b1))``; tests/test_redteam_blas.py has the 100k-vector proof), np.cross's
    products and differences for the other dtypes; any dim, broadcast operands, row-major result."""
    for shape, other, dim in (((3, 4), (3, 4), 0), ((4, 3), (1, 3), 1), ((2, 3, 5), (2, 3, 5), 1),
                              ((3,), (3,), 0), ((1, 3, 1), (2, 3, 4), 1), ((2, 2, 3), (2, 2, 3), -1)):
        special = dtype != np.int64
        a, b = _values(shape, np.float64, special).astype(dtype), _values(other, np.float64).astype(dtype)
        ours = strided.linalg.cross(strided.tensor(a), strided.tensor(b), dim=dim)
        assert ours.is_contiguous() and ours.dtype == strided.tensor(a).dtype
        if dtype in (np.int64, np.complex64):
            with np.errstate(all="ignore"):
                want = np.ascontiguousarray(np.cross(*np.broadcast_arrays(a, b), axis=dim))
            assert ours.numpy().tobytes() == want.tobytes()
        if dtype != np.complex64:
            theirs = torch.linalg.cross(torch.tensor(a), torch.tensor(b), dim=dim)
            # (bit for bit but a NaN's sign, which PyTorch's compiled kernel sets its own way)
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy(), strict=True)
            nan = np.isnan(ours.numpy())
            assert ours.numpy()[~nan].tobytes() == theirs.numpy()[~nan].tobytes()
            assert ours.stride() == theirs.stride()


def test_cross_transposed_zero_size_gradients_and_errors_as_torch():
    a, b = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (torch.cross without dim: deprecated in both)
        ours = strided.cross(strided.tensor(a).t(), strided.tensor(b).t())
        theirs = torch.cross(torch.tensor(a).t(), torch.tensor(b).t())
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-14)
    assert ours.stride() == theirs.stride()
    z = strided.linalg.cross(strided.zeros(0, 3), strided.zeros(0, 3))
    assert z.shape == (0, 3) and z.stride() == torch.linalg.cross(torch.zeros(0, 3), torch.zeros(0, 3)).stride()
    grads = []
    for lib in (strided, torch):
        x, y = lib.tensor(a, requires_grad=True), lib.tensor(b[:1], requires_grad=True)
        lib.linalg.cross(x, y, dim=1).pow(2).sum().backward()
        grads.append((x.grad.numpy(), y.grad.numpy()))
    for ours_g, theirs_g in zip(*grads, strict=True):
        np.testing.assert_allclose(ours_g, theirs_g, rtol=1e-12)
    with pytest.raises(RuntimeError) as ours_e:
        strided.linalg.cross(strided.ones(2, 4), strided.ones(2, 4))
    with pytest.raises(RuntimeError) as theirs_e:
        torch.linalg.cross(torch.ones(2, 4), torch.ones(2, 4))
    assert str(ours_e.value).splitlines()[0] == str(theirs_e.value)


# ---------------------------------------------------------------- kron


def _kron_pairs(dtype):
    """(input, other) tensor makers: row-major (fast), offset > 0, size-1 dims, 1-D, 3-D; a
    transposed one, mixed ranks and zero-size (general path)."""
    v = lambda *s: _values(s, dtype, special=dtype != np.int64)  # noqa: E731
    return [(v(3, 4), v(3, 4), False), (v(2, 1), v(1, 3), False), (v(5), v(2), False),
            (v(2, 1, 3), v(1, 2, 2), False), (v(3, 4), v(2, 2), True), (v(2, 3), v(3), False),
            (v(0, 3), v(2, 2), False)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_kron_fast_path_is_the_general_path_and_torchs(dtype, monkeypatch):
    for x, y, transposed in _kron_pairs(dtype):
        for make in (lambda v, lib: lib.tensor(v), _at_offset):
            def both(lib, make=make, x=x, y=y, transposed=transposed):
                a = make(x, lib)
                return lib.kron(a.t().contiguous().t() if transposed else a, make(y, lib))

            ours = both(strided)
            with monkeypatch.context() as m:
                m.setattr(P, "_fast_kron", lambda a, b: None)
                general = both(strided)
            assert _bits(ours) == _bits(general), (x.shape, y.shape)
            # (PyTorch 2.13's kron refuses some transposed inputs with a view error: its values
            # are those of the contiguous copy)
            theirs = both(torch, transposed=False)
            assert ours.shape == tuple(theirs.shape) and ours.stride() == theirs.stride()
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_kron_fast_path_leaves_autograd_to_the_composition():
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((3, 2))
    grads = []
    for lib in (strided, torch):
        x, y = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        lib.kron(x, y).pow(2).sum().backward()
        grads.append((x.grad.numpy(), y.grad.numpy()))
    for ours, theirs in zip(*grads, strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


# ---------------------------------------------------------------- the random draws' argument work

from strided.ops.creation import random as R  # noqa: E402


def _seeded(fn, seed=11):
    strided.manual_seed(seed)
    out = fn()
    return _bits(out), _bits(strided.rand(4))  # (the result, and the stream after it)


def test_randint_fast_path_is_the_general_path_with_the_same_stream(monkeypatch):
    calls = [lambda: strided.randint(0, 10, (3, 4)), lambda: strided.randint(-5, 5, (2, 0, 3)),
             lambda: strided.randint(-2**63, 2**63 - 1, (5,)), lambda: strided.randint(3, 4, ()),
             lambda: strided.randint(0, 2**40, (1, 1))]
    taken = []
    plain = R._plain_randint
    monkeypatch.setattr(R, "_plain_randint", lambda *a: taken.append(1) or plain(*a))
    fast = [_seeded(c) for c in calls]
    assert all(f[0][0] == strided.int64 for f in fast) and len(taken) == len(calls)
    monkeypatch.setattr(R, "_plain_randint", lambda *a: None)
    assert [_seeded(c) for c in calls] == fast
    g1, g2 = strided.Generator().manual_seed(5), strided.Generator().manual_seed(5)
    a = strided.randint(0, 7, (6,), generator=g1)
    monkeypatch.setattr(R, "_plain_randint", plain)
    assert _bits(strided.randint(0, 7, (6,), generator=g2)) == _bits(a)


def test_randint_fast_path_leaves_bad_calls_to_the_general_path(monkeypatch):
    """An empty range, a bound out of int64, a negative size, a float bound and a bool size:
    the general path's error (class and text, with or without the fast path; PyTorch's class),
    raised before anything is drawn."""
    strided.manual_seed(3)
    before = strided.get_rng_state().numpy().tobytes()
    for args in ((5, 5, (2,)), (0, 2**63 + 1, (2,)), (0, 10, (2, -1)), (0.5, 10, (2,)), (0, 10, (True,))):
        with pytest.raises(Exception) as theirs:
            torch.randint(*args)
        with pytest.raises(type(theirs.value)) as ours:
            strided.randint(*args)
        with monkeypatch.context() as m:
            m.setattr(R, "_plain_randint", lambda *a: None)
            with pytest.raises(type(ours.value)) as general:
                strided.randint(*args)
        assert str(ours.value) == str(general.value), args
    assert strided.get_rng_state().numpy().tobytes() == before


def test_randint_like_fast_path_is_the_general_path_with_the_same_stream(monkeypatch):
    """randint_like(t, high): the same draw, dtype, strides and stream after it as the general
    path (forced by taking float32 out of the fast path's dtypes), for row-major, transposed,
    offset, zero-size and 0-d inputs; a float32 bound past 2**24 warns as before."""
    base = strided.zeros(30)
    inputs = [strided.zeros(3, 4), strided.zeros(4, 3).t(), base[5:17].view(3, 4), strided.zeros(0, 2),
              strided.zeros(()), strided.zeros(2, 3, dtype=strided.int32)]

    def draws():
        return [_seeded(lambda t=t: strided.randint_like(t, 7)) for t in inputs]

    fast = draws()
    monkeypatch.setattr(R, "_PLAIN_INT_LIKE", frozenset())
    assert draws() == fast
    for t, (bits, _) in zip(inputs, fast, strict=True):
        theirs = torch.randint_like(torch.zeros(t.shape, dtype=getattr(torch, t.dtype.name)).as_strided(
            t.shape, t.stride()), 7)
        assert bits[:3] == (t.dtype, tuple(theirs.shape), theirs.stride())
    monkeypatch.undo()
    with pytest.warns(UserWarning, match="out of bounds") as record:
        strided.randint_like(strided.zeros(2), 2**25)
    assert record[0].filename == __file__
    with pytest.raises(RuntimeError) as ours:
        strided.randint_like(strided.zeros(2, dtype=strided.int8), 300)
    with pytest.raises(RuntimeError) as theirs:
        torch.randint_like(torch.zeros(2, dtype=torch.int8), 300)
    assert str(ours.value).splitlines()[0] == str(theirs.value)


def test_int_bounds_memo_gives_the_computed_bounds_and_random_streams_unchanged():
    # (bfloat16 left out: its finfo costs a second on first use, the same code as float16's)
    for dt in (strided.bool, strided.uint8, strided.int8, strided.int16, strided.int32, strided.int64,
               strided.float16, strided.float32, strided.float64):
        assert R._int_bounds(dt) == R._int_bounds_of(dt) == R._int_bounds(dt)
    # random_ on each dtype: the integers [0, top] of the generator's NumPy stream, as before
    for dt, np_dt, top in ((strided.float32, np.float32, 2**24), (strided.int32, np.int32, 2**31 - 1),
                           (strided.int64, np.int64, 2**63 - 1), (strided.bool, np.bool_, 1)):
        got = strided.zeros(3, 4, dtype=dt).random_(generator=strided.Generator().manual_seed(9)).numpy()
        want = strided.Generator().manual_seed(9)._np.integers(0, top, size=(3, 4), dtype=np.int64, endpoint=True)
        np.testing.assert_array_equal(got, want.astype(np_dt))
    with pytest.warns(UserWarning, match="out of bounds"):
        strided.zeros(2).random_(0, 2**25)
    with pytest.raises(RuntimeError, match="to - 1 is out of bounds for int"):
        strided.zeros(2, dtype=strided.int32).random_(0, 2**32)


def test_bernoulli_probability_check_as_torch():
    for bad in ([0.5, np.nan], [0.5, 1.5], [-0.1, 0.2]):
        with pytest.raises(RuntimeError) as ours:
            strided.bernoulli(strided.tensor(bad))
        with pytest.raises(RuntimeError) as theirs:
            torch.bernoulli(torch.tensor(bad))
        assert str(ours.value).splitlines()[0] == str(theirs.value)
    strided.manual_seed(4)
    a = strided.bernoulli(strided.tensor([0.0, 1.0, 0.5, 0.25]))
    strided.manual_seed(4)
    probs = np.array([0.0, 1.0, 0.5, 0.25], np.float32)
    assert a.numpy()[:2].tolist() == [0.0, 1.0] and strided.bernoulli(strided.tensor(probs)).tolist() == a.tolist()
    assert strided.bernoulli(strided.zeros(0)).shape == (0,)


def test_fast_paths_report_as_the_general_paths(monkeypatch):
    """watch() sees the same steps and table with the fast paths off (vander's watched call takes
    the general path: its steps inside show)."""
    a, b, i, c = strided.ones(2, 3), strided.ones(3, 2), strided.ones(2, 2), strided.ones(3, 2)
    v = strided.ones(3)

    def steps():
        with strided.watch() as w:
            strided.addmm(i, a, b, beta=0.5, alpha=2.0)
            strided.kron(a, b)
            strided.linalg.cross(c, c, dim=0)
            strided.randint(0, 3, (2, 2))
            strided.vander(v)
        return [s.name for s in w.steps], w.table()

    fast = steps()
    assert fast[0] == ["addmm", "kron", "linalg_cross", "randint", "cumprod", "cat", "vander"]
    monkeypatch.setattr(F, "_plus_input", lambda *a: None)
    MK.switch_off(monkeypatch.setattr)
    monkeypatch.setattr(P, "_fast_kron", lambda a, b: None)
    monkeypatch.setattr(R, "_plain_randint", lambda *a: None)
    monkeypatch.setattr(P, "_fast_vander", lambda *a: None)
    assert steps() == fast


# ---------------------------------------------------------------- vander


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vander_fast_path_is_the_general_path_and_torchs(dtype, monkeypatch):
    for n, N, increasing, offset in ((12, None, False, False), (5, 3, True, True), (2, 2, False, True),
                                     (4, 7, True, False), (1, None, False, False), (3, 1, False, False),
                                     (0, 3, False, False), (256, None, False, False), (300, 40, True, True)):
        v = _values((n,), dtype, special=4 <= n != 256)  # (256: no NaN, so the compiled scan answers)
        make = _at_offset if offset else (lambda v, lib: lib.tensor(v))
        ours = strided.vander(make(v, strided), N, increasing)
        with monkeypatch.context() as m:
            m.setattr(P, "_fast_vander", lambda *a: None)
            general = strided.vander(make(v, strided), N, increasing)
        with native.disabled():  # (the fast path's NumPy scan of the rows, not the compiled one)
            numpy_scan = strided.vander(make(v, strided), N, increasing)
        assert _bits(ours) == _bits(general) == _bits(numpy_scan), (n, N, increasing)
        theirs = torch.vander(make(v, torch), N, increasing)
        assert ours.shape == tuple(theirs.shape) and ours.stride() == theirs.stride()
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6 if dtype == np.float32 else 1e-14)
    # gradients (requires_grad: the composition records; PyTorch 2.13's own vander backward
    # fails here with an in-place version error, so the reference is d/dx sum_j x^(2j) by hand)
    xv = np.array([0.5, -1.5, 2.0])
    x = strided.tensor(xv, requires_grad=True)
    strided.vander(x, 4).pow(2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), sum(2 * j * xv ** (2 * j - 1) for j in range(1, 4)), rtol=1e-12)


@pytest.mark.skipif(native.special() is None, reason="the compiled kernels are not built here")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vander_rows_are_the_compiled_scans_bits(dtype):
    """vander's one-pass kernel: the bits of the route it replaces (the compiled scan down x
    repeated, its columns transposed and a column of ones), over overflow to inf, underflow to
    0 and subnormals, -0.0, inf, both orders and row counts around its lanes; a NaN or a bad
    buffer is refused."""
    from strided.ops.reductions.scans import compiled_scan

    k = native.special()
    big = 1e30 if dtype == np.float32 else 1e200
    for rows in (1, 2, 7, 8, 9, 17, 64):
        for n in (2, 3, 9, 40):
            x = (RNG.standard_normal(rows) * RNG.choice([1e-30, 1e-3, 1.0, 3.0, big], rows)).astype(dtype)
            x[RNG.random(rows) < 0.15] = -0.0
            x[RNG.random(rows) < 0.1] = -np.inf
            repeated = np.empty((n - 1, rows), dtype)
            repeated[...] = x
            powers = compiled_scan(repeated, 0, True).T
            for increasing in (False, True):
                want = np.empty((rows, n), dtype)
                if increasing:
                    want[:, 0], want[:, 1:] = 1, powers
                else:
                    want[:, -1], want[:, :-1] = 1, powers[:, ::-1]
                out = np.full((rows, n), 7, dtype)
                assert k.vander_rows(x, out, n, increasing) is True
                assert out.tobytes() == want.tobytes(), (rows, n, increasing)
    x = np.array([1.0, np.nan, 2.0], dtype)
    assert k.vander_rows(x, np.empty((3, 4), dtype), 4, False) is False
    with pytest.raises(ValueError):
        k.vander_rows(x, np.empty((3, 4), np.float32 if dtype == np.float64 else np.float64), 4, False)
    with pytest.raises(ValueError):
        k.vander_rows(x, np.empty((3, 1), dtype), 1, False)


# ---------------------------------------------------------------- lstsq


def _lstsq_reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The solution as the general path computes it (every operand broadcast to the common
    batch first): the bits the trimmed path must keep. Its LAPACK gelsy where NumPy bundles
    one (strided.ops.linalg._lapack), else the SVD's minimum-norm solution."""
    from strided.ops.linalg import _lapack
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a, b = np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:])
    if _lapack.library() is not None:
        return _lapack.solve(_lapack.library(), a, b, float(np.finfo(a.dtype).eps) * max(a.shape[-2:]), "gelsy")[0]
    with np.errstate(all="ignore"):
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        keep = s > (float(np.finfo(a.dtype).eps) * max(a.shape[-2:])) * s[..., :1]
        sinv = np.where(keep, 1 / np.where(keep, s, 1), 0).astype(s.dtype)
        return np.conj(np.swapaxes(vh, -1, -2)) @ (sinv[..., None] * (np.conj(np.swapaxes(u, -1, -2)) @ b))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_lstsq_trimmed_path_keeps_its_bits_and_torchs_values(dtype):
    for sa, sb in (((3, 4), (3, 4)), ((5, 2), (5, 3)), ((2, 4, 3), (2, 4, 2)), ((2, 4, 3), (1, 4, 2)),
                   ((1, 3, 3), (2, 3, 1))):
        a = RNG.standard_normal(sa).astype(dtype)
        b = RNG.standard_normal(sb).astype(dtype)
        if dtype == np.complex128:
            a = a + 1j * RNG.standard_normal(sa)
        ours = strided.linalg.lstsq(strided.tensor(a), strided.tensor(b)).solution
        want = _lstsq_reference(a, b)
        assert ours.numpy().tobytes() == np.ascontiguousarray(want[..., :a.shape[-1], :]).tobytes(), (sa, sb)
        theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b)).solution
        assert ours.shape == tuple(theirs.shape) and ours.stride() == theirs.stride()
        tol = 1e-3 if dtype == np.float32 else 1e-9
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=tol, atol=tol)


# ---------------------------------------------------------------- trace


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_trace_fast_path_is_torchs_running_sum(dtype):
    """trace's bits are PyTorch's (its running sum in double, rounded once: not the diagonal's
    pairwise sum; tests/test_redteam_blas.py has every dtype), also transposed, at an offset,
    with NaN/inf, empty, and long enough for NumPy's pairwise summation to differ."""
    for shape, transposed, offset in (((3, 4), False, False), ((16, 16), False, True), ((4, 3), True, False),
                                      ((1, 5), False, True), ((0, 3), False, False), ((300, 300), False, False)):
        v = _values(shape, dtype, special=shape == (3, 4))
        make = _at_offset if offset else (lambda v, lib: lib.tensor(v))

        def matrix(lib, make=make, v=v, transposed=transposed):
            return make(v.T.copy(), lib).t() if transposed else make(v, lib)

        ours = matrix(strided).trace()
        theirs = matrix(torch).trace()
        assert ours.shape == tuple(theirs.shape) and ours.dtype == strided.tensor(v).dtype
        assert ours.numpy().tobytes() == theirs.numpy().tobytes(), shape
    grads = []
    for lib in (strided, torch):
        x = lib.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
        (x.trace() * 2).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


# ---------------------------------------------------------------- inner


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_inner_fast_path_is_the_general_path_and_torchs(dtype, monkeypatch):
    for sa, sb, offset in (((3, 4), (3, 4), False), ((2, 3, 4), (5, 4), True), ((4,), (4,), False),
                           ((4,), (2, 4), True), ((1, 1), (1, 1), False), ((16, 16), (16, 16), True),
                           ((0, 4), (3, 4), False)):
        v, w = _values(sa, dtype, special=True), _values(sb, dtype, special=True)
        make = _at_offset if offset else (lambda v, lib: lib.tensor(v))
        ours = strided.inner(make(v, strided), make(w, strided))
        with monkeypatch.context() as m:
            m.setattr(P, "_fast_inner", lambda x, y: None)
            general = strided.inner(make(v, strided), make(w, strided))
        assert _bits(ours) == _bits(general), (sa, sb)
        theirs = torch.inner(make(v, torch), make(w, torch))
        assert ours.shape == tuple(theirs.shape) and ours.stride() == theirs.stride()
        tol = 1e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=tol, atol=tol)
    t = strided.tensor(_values((3, 4), dtype)).t()  # (transposed: the general path's values)
    np.testing.assert_allclose(strided.inner(t, t).numpy(), torch.inner(torch.tensor(t.numpy()),
                               torch.tensor(t.numpy())).numpy(), rtol=1e-5)
    with pytest.raises(RuntimeError) as ours_e:
        strided.inner(strided.ones(2, 3), strided.ones(2, 4))
    with pytest.raises(RuntimeError) as theirs_e:
        torch.inner(torch.ones(2, 3), torch.ones(2, 4))
    assert str(ours_e.value).splitlines()[0] == str(theirs_e.value)
    grads, xv, yv = [], RNG.standard_normal((2, 3)), RNG.standard_normal((4, 3))
    for lib in (strided, torch):
        x, y = lib.tensor(xv, requires_grad=True), lib.tensor(yv, requires_grad=True)
        lib.inner(x, y).pow(2).sum().backward()
        grads.append((x.grad.numpy(), y.grad.numpy()))
    for ours_g, theirs_g in zip(*grads, strict=True):
        np.testing.assert_allclose(ours_g, theirs_g, rtol=1e-12)


# ---------------------------------------------------------------- LAPACK-strided results


def test_colmajor_adopts_the_transposed_copy_with_lapacks_strides():
    """LA.colmajor's adopted copy: the elements bit for bit and the strides of the zero-filled
    result it replaced (each matrix column-major, the batch row-major), as PyTorch's factors."""
    from strided.ops.linalg import _batched as LA

    for shape in ((3, 4), (4, 3), (2, 3, 4), (2, 1, 3, 2), (1, 1), (5, 1), (0, 3)):
        for dtype in (np.float32, np.complex128):
            arr = RNG.standard_normal(shape).astype(dtype)
            if arr.size:
                arr.reshape(-1)[0] = np.nan
            t = LA.colmajor(arr, strided.tensor(arr).dtype)
            m, n = shape[-2:]
            assert t.stride() == (*(m * n * int(np.prod(shape[i + 1:-2])) for i in range(len(shape) - 2)),
                                  1, max(m, 1))
            assert t.numpy().tobytes() == arr.tobytes() and t.storage_offset() == 0
    a = RNG.standard_normal((4, 3)).astype(np.float32)
    q, r = strided.linalg.qr(strided.tensor(a))
    tq, tr = torch.linalg.qr(torch.tensor(a))
    assert (q.stride(), r.stride()) == (tq.stride(), tr.stride())
    np.testing.assert_allclose(np.abs(q.numpy()), np.abs(tq.numpy()), rtol=1e-4, atol=1e-5)
