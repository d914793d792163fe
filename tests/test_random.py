"""Random numbers: seeding and generators, the factories and in-place samplers against PyTorch's
shapes, dtypes, strides and errors, and their distributions against the theoretical moments
(seeded, so deterministic; tolerances of five standard errors of the sample size)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch
from hypothesis import given, settings

import strided as st
from layout_strategies import specs
from oracle_helpers import case, errors_agree, outcome
from strided import dispatch
from strided.layout import Layout
from strided.ops.creation import random as R
from strided.ops.creation.generator import (
    DEFAULT_SEED,
    Generator,
    default_generator,
    initial_seed,
    manual_seed,
    seed,
)

N = 20_000


def z_ok(mean: float, expected: float, sd: float, n: int = N) -> bool:
    """``mean`` of ``n`` samples is within 5 standard errors of ``expected``."""
    return abs(mean - expected) <= 5 * sd / np.sqrt(n)


# ---------------------------------------------------------------- seeding and generators


def test_manual_seed_returns_the_default_generator_and_repeats_streams():
    g = manual_seed(7)
    assert g is default_generator and initial_seed() == 7
    draws = [R.rand(3), R.randn(2, 2), R.randint(0, 9, (4,)), R.randperm(6), R.normal(1.0, 2.0, (3,)),
             R.bernoulli(st.full((5,), 0.5)), R.multinomial(st.tensor([1.0, 2.0, 3.0]), 2),
             st.zeros(4).uniform_(-1, 1), st.zeros(4).exponential_()]
    manual_seed(7)
    again = [R.rand(3), R.randn(2, 2), R.randint(0, 9, (4,)), R.randperm(6), R.normal(1.0, 2.0, (3,)),
             R.bernoulli(st.full((5,), 0.5)), R.multinomial(st.tensor([1.0, 2.0, 3.0]), 2),
             st.zeros(4).uniform_(-1, 1), st.zeros(4).exponential_()]
    for a, b in zip(draws, again):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(R.rand(3).numpy(), draws[0].numpy())  # the stream moved on


def test_seeds_as_torch_reads_them():
    assert Generator().initial_seed() == DEFAULT_SEED == torch.Generator().initial_seed()
    assert manual_seed(-1).initial_seed() == torch.Generator().manual_seed(-1).initial_seed() == 2**64 - 1
    assert manual_seed(3.9).initial_seed() == 3
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        manual_seed(2**64)
    s = seed()
    assert initial_seed() == s and 0 <= s < 2**64
    with pytest.raises(RuntimeError, match="Cannot get CUDA generator"):
        Generator(device="cuda")


def test_device_argument_is_read_as_the_factories_read_it():
    # the shared parse_device: cpu in any spelling, anything else refused before a draw
    for device in ("cpu", "cpu:0", torch.device("cpu"), st.device("cpu")):
        assert R.rand(2, device=device).shape == (2,) and R.randperm(3, device=device).shape == (3,)
    for device in ("cuda", torch.device("meta"), 0):
        with pytest.raises(RuntimeError, match="CPU only"):
            R.randn(2, device=device)
    with pytest.raises(TypeError, match="argument 'device' must be torch.device"):
        R.rand_like(st.zeros(2), device=[0])


def test_generators_are_independent_and_generator_leaves_the_default_alone():
    manual_seed(1)
    expected = R.rand(5).numpy()
    manual_seed(1)
    g1, g2 = Generator().manual_seed(5), Generator().manual_seed(5)
    a = R.randn(4, generator=g1)
    R.rand(100, generator=g1)  # g1 moves on; g2 does not follow
    b = R.randn(4, generator=g2)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    st.zeros(3).normal_(generator=g1)
    np.testing.assert_array_equal(R.rand(5).numpy(), expected)  # the default stream was untouched
    with pytest.raises(TypeError, match="must be torch.Generator"):
        R.rand(2, generator=3)


def test_get_state_set_state_round_trip():
    g = Generator().manual_seed(11)
    R.rand(3, generator=g)
    state = g.get_state()
    assert state.dtype is st.uint8 and state.shape == (45,)
    a = R.randn(6, generator=g).numpy()
    g.set_state(state)
    np.testing.assert_array_equal(R.randn(6, generator=g).numpy(), a)
    other = Generator().set_state(bytes(state.numpy()))
    assert other.initial_seed() == 11
    np.testing.assert_array_equal(R.randn(6, generator=other).numpy(), a)
    with pytest.raises(TypeError, match="expected a torch.ByteTensor"):
        g.set_state(st.zeros(45))
    with pytest.raises(RuntimeError, match="state of size 45"):
        g.set_state(bytes(5056))


def test_threads_never_corrupt_the_default_generator():
    """Each draw takes the generator's lock: the chunks drawn by 4 threads are exactly the
    chunks one thread draws in sequence, in some order."""
    manual_seed(99)
    sequential = sorted(tuple(R.rand(50).numpy()) for _ in range(80))
    manual_seed(99)
    chunks: list[tuple] = []

    def work():
        for _ in range(20):
            chunks.append(tuple(R.rand(50).numpy()))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(chunks) == sequential


# ---------------------------------------------------------------- distributions


def test_continuous_distributions_have_their_moments():
    manual_seed(2024)
    u = R.rand(N, dtype=st.float64).numpy()
    assert u.min() >= 0 and u.max() < 1
    assert z_ok(u.mean(), 0.5, np.sqrt(1 / 12)) and abs(u.var() - 1 / 12) < 0.005
    n = R.randn(N, dtype=st.float64).numpy()
    assert z_ok(n.mean(), 0, 1) and abs(n.var() - 1) < 0.05
    x = R.normal(3.0, 2.0, (N,)).numpy()
    assert z_ok(x.mean(), 3, 2) and abs(x.std() - 2) < 0.05
    m = R.normal(st.full((N,), -1.0), st.full((N,), 0.5)).numpy()
    assert z_ok(m.mean(), -1, 0.5)
    e = st.zeros(N, dtype=st.float64).exponential_(4.0).numpy()
    assert e.min() >= 0 and z_ok(e.mean(), 0.25, 0.25)
    w = st.zeros(N, dtype=st.float64).uniform_(-3, 5).numpy()
    assert w.min() >= -3 and w.max() < 5 and z_ok(w.mean(), 1, 8 / np.sqrt(12))
    ln = st.zeros(N, dtype=st.float64).log_normal_(0.5, 0.25).numpy()
    assert z_ok(np.log(ln).mean(), 0.5, 0.25)
    c = st.zeros(N, dtype=st.float64).cauchy_(2.0, 1.0).numpy()
    assert abs(np.median(c) - 2.0) < 0.05
    h = R.rand(N, dtype=st.float16).numpy()
    assert h.max() < 1 and z_ok(h.astype(float).mean(), 0.5, np.sqrt(1 / 12))
    v = st.zeros(N).normal_(1.0, 3.0).numpy()
    assert z_ok(v.mean(), 1, 3)


def test_complex_rand_and_randn_draw_each_part_as_torch_does():
    # PyTorch: rand's parts are each uniform on [0, 1); randn's each normal with variance 1/2
    # (the complex number has variance 1). Five standard errors of N draws.
    manual_seed(3)
    for dtype, part in ((st.complex64, np.float32), (st.complex128, np.float64)):
        u = R.rand(N, dtype=dtype).numpy()
        n = R.randn_like(st.zeros(N, dtype=dtype)).numpy()
        assert u.dtype == dtype.numpy and u.real.dtype == part
        for parts in (u.real, u.imag):
            assert parts.min() >= 0 and parts.max() < 1 and abs(parts.mean() - 0.5) < 5 * (1 / 12 / N) ** 0.5
        for parts in (n.real, n.imag):
            assert abs(parts.mean()) < 5 * (0.5 / N) ** 0.5 and abs(parts.var() - 0.5) < 5 * 0.5 * (2 / N) ** 0.5
        assert abs(np.corrcoef(n.real, n.imag)[0, 1]) < 5 / N**0.5


def test_discrete_distributions_have_their_moments():
    manual_seed(5)
    k = R.randint(-2, 3, (N,)).numpy()
    assert set(np.unique(k)) == {-2, -1, 0, 1, 2}
    assert z_ok(k.mean(), 0, np.sqrt(2))
    p = R.randperm(1000).numpy()
    assert sorted(p.tolist()) == list(range(1000)) and not (p == np.arange(1000)).all()
    b = R.bernoulli(st.full((N,), 0.3)).numpy()
    assert set(np.unique(b)) == {0.0, 1.0} and z_ok(b.mean(), 0.3, np.sqrt(0.21))
    b2 = R.bernoulli(st.zeros(N, dtype=st.int64), 0.8).numpy()
    assert z_ok(b2.mean(), 0.8, 0.4)
    g = st.zeros(N, dtype=st.int64).geometric_(0.25).numpy()
    assert g.min() >= 1 and z_ok(g.mean(), 4, np.sqrt(0.75) / 0.25)
    r = st.zeros(N, dtype=st.uint8).random_().numpy()
    assert r.max() > 250 and z_ok(r.mean(), 127.5, np.sqrt((256**2 - 1) / 12))
    f = st.zeros(N, dtype=st.float16).random_().numpy()
    assert f.min() >= 0 and f.max() <= 2048
    bern = st.zeros(N).bernoulli_(0.1).numpy()
    assert z_ok(bern.mean(), 0.1, 0.3)
    probs = np.tile([0.1, 0.9], N // 2)
    per = st.zeros(N).bernoulli_(st.tensor(probs)).numpy()
    assert z_ok(per[::2].mean(), 0.1, 0.3, N // 2) and z_ok(per[1::2].mean(), 0.9, 0.3, N // 2)


def test_multinomial_frequencies_and_without_replacement():
    manual_seed(8)
    probs = np.array([0.1, 0.0, 0.6, 0.3])
    draws = R.multinomial(st.tensor(probs * 5), N, replacement=True).numpy()
    counts = np.bincount(draws, minlength=4) / N
    assert counts[1] == 0
    for c, q in zip(counts, probs):
        assert z_ok(c, q, np.sqrt(q * (1 - q)))
    rows = R.multinomial(st.tensor([[1.0, 1, 1, 1, 1], [0, 0, 5, 0, 1]]), 5)
    assert rows.shape == (2, 5) and rows.dtype is st.int64
    for row in rows.numpy():
        assert sorted(row.tolist()) == [0, 1, 2, 3, 4]
    firsts = R.multinomial(st.tensor([[0.0, 0, 5, 0, 1]]).expand(2000, 5), 2).numpy()
    assert set(map(tuple, firsts)) <= {(2, 4), (4, 2)}
    assert z_ok((firsts[:, 0] == 2).mean(), 5 / 6, np.sqrt(5 / 36), 2000)


# ---------------------------------------------------------------- shapes, dtypes, strides and errors vs torch


def agree(torch_call, strided_call) -> None:
    """Both raise (same builtin class, same first line, a detail line after it), or both return
    tensors of the same shape, dtype and strides (values differ: the streams differ)."""
    tr, te = outcome(torch_call)
    sr, se = outcome(strided_call)
    if errors_agree(te, se):
        return
    assert sr.shape == tuple(tr.shape) and sr.stride() == tr.stride()
    assert sr.dtype.name == str(tr.dtype).removeprefix("torch.")


def _pairs():
    """(torch call, strided call) for factories, with valid and invalid arguments."""
    Z = {"t": torch.zeros, "s": st.zeros}

    def z(lib, *shape, dtype="float32"):
        return Z[lib](*shape, dtype=getattr(torch if lib == "t" else st, dtype))

    def T(lib, data):
        return torch.tensor(data) if lib == "t" else st.tensor(data)

    def calls(lib):
        m = torch if lib == "t" else R
        d = torch if lib == "t" else st

        def tz(*a, **k):
            return z(lib, *a, **k)

        def tt(x):
            return T(lib, x)

        return [
            lambda: m.rand(2, 3), lambda: m.rand((2, 3), dtype=d.float64), lambda: m.rand(2, dtype=d.float16),
            lambda: m.rand(3, dtype=d.int64), lambda: m.rand(3, dtype=d.bool), lambda: m.rand(-1), lambda: m.rand(()),
            lambda: m.randn(3, dtype=d.int64), lambda: m.randn(0, 4),
            lambda: m.randint(5, (3,)), lambda: m.randint(3, 5, (3, 2)), lambda: m.randint(5, 5, (3,)),
            lambda: m.randint(6, 5, (3,)), lambda: m.randint(0, 300, (3,), dtype=d.uint8),
            lambda: m.randint(-1, 3, (3,), dtype=d.uint8), lambda: m.randint(0, 2, (3,), dtype=d.bool),
            lambda: m.randint(0, 3, (3,), dtype=d.bool), lambda: m.randint(0, 3, (3,), dtype=d.float32),
            lambda: m.randint(0, 2**25, (3,), dtype=d.float16), lambda: m.randint(5, size=(3,)),
            lambda: m.randint(low=2, high=5, size=(3,)), lambda: m.randint(5, 3),
            lambda: m.randperm(5), lambda: m.randperm(5, dtype=d.float32), lambda: m.randperm(-1),
            lambda: m.randperm(257, dtype=d.uint8), lambda: m.randperm(256, dtype=d.uint8),
            lambda: m.randperm(3, dtype=d.bool), lambda: m.randperm(3000, dtype=d.float16),
            lambda: m.normal(tz(2, 3), tz(3) + 1), lambda: m.normal(tz(2, 3), tz(4) + 1),
            lambda: m.normal(tz(2, 3).t(), 2.0), lambda: m.normal(0.0, tz(2) + 1), lambda: m.normal(0.0, 1.0, (2, 2)),
            lambda: m.normal(0.0, 1.0, size=(2,), dtype=d.float64), lambda: m.normal(0.0, -1.0, (2, 2)),
            lambda: m.normal(tz(2), -1.0), lambda: m.normal(tz(2), tt([1.0, -1.0])),
            lambda: m.normal(0.0, tt([1.0, -1.0])), lambda: m.normal(tz(2, dtype="int64"), 1.0),
            lambda: m.normal(tz(2, dtype="float64"), tz(2) + 1), lambda: m.normal(tz(2), tz(2, dtype="float64") + 1),
            lambda: m.normal(0.0, 1.0),
            lambda: m.bernoulli(tz(3, 2).t() + 0.5), lambda: m.bernoulli(tz(3) + 0.5, 0.2),
            lambda: m.bernoulli(tz(3) + 1.5), lambda: m.bernoulli(tz(3) - 0.5), lambda: m.bernoulli(tz(3) + 0.5, 1.5),
            lambda: m.bernoulli(tz(3, dtype="int64")), lambda: m.bernoulli(tz(3, dtype="int64"), 0.5),
            lambda: m.bernoulli(tz(3, dtype="float16")), lambda: m.bernoulli(tz(0, 2)),
            lambda: m.multinomial(tt([1.0, 2, 3]), 2), lambda: m.multinomial(tt([1.0, 2, 3]), 4),
            lambda: m.multinomial(tt([1.0, 2, 3]), 4, True), lambda: m.multinomial(tt([[1.0, 2, 3], [1, 1, 1]]), 2),
            lambda: m.multinomial(tt([1.0, -2, 3]), 2), lambda: m.multinomial(tt([0.0, 0, 0]), 2),
            lambda: m.multinomial(tt([1.0, 2, 3]), 0), lambda: m.multinomial(tz(2, 2, 2), 1),
            lambda: m.multinomial(tt(1.0), 1), lambda: m.multinomial(tt([1, 2]), 1),
            lambda: m.multinomial(tt([1.0, float("inf")]), 1), lambda: m.multinomial(tt([1.0, float("nan")]), 1),
            lambda: m.multinomial(tz(0), 1), lambda: m.multinomial(tz(0, 3) + 1, 1),
            lambda: m.rand_like(tz(3, 2).t()), lambda: m.rand_like(tz(2, dtype="int64")),
            lambda: m.randn_like(tz(2, dtype="int64")), lambda: m.randn_like(tz(2, 3)[:, ::2]),
            lambda: m.randint_like(tz(2), 5), lambda: m.randint_like(tz(4, 2).t(), 3, 5),
            lambda: m.randint_like(tz(2, dtype="uint8"), 300),
            # complex: real and imaginary parts drawn, as PyTorch's rand/randn draw them
            lambda: m.rand(2, 3, dtype=d.complex64), lambda: m.randn(2, dtype=d.complex128),
            lambda: m.randn(0, 2, dtype=d.cfloat), lambda: m.randn((), dtype=d.cdouble),
            lambda: m.rand_like(tz(3, 2, dtype="complex64").t()),
            lambda: m.randn_like(tz(2, 3, dtype="complex128")[:, ::2]),
        ]

    return list(zip(calls("t"), calls("s")))


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_factories_follow_torch_shapes_dtypes_strides_and_errors():
    for torch_call, strided_call in _pairs():
        agree(torch_call, strided_call)


def _inplace_pairs():
    def calls(d):
        def z(*shape, dtype="float32"):
            return d.zeros(*shape, dtype=getattr(d, dtype))

        return [
            lambda: z(3).uniform_(2, 1), lambda: z(3).uniform_(0, float("inf")), lambda: z(3, dtype="int64").uniform_(),
            lambda: z(3).uniform_(0, 1e39), lambda: z(3, dtype="float16").uniform_(0, 1e6),
            lambda: z(3).normal_(0, -1), lambda: z(3, dtype="int64").normal_(),
            lambda: z(3).random_(5, 3), lambda: z(3).random_(5, 5), lambda: z(3, dtype="uint8").random_(0, 300),
            lambda: z(3, dtype="uint8").random_(-1, 3), lambda: z(3, dtype="uint8").random_(300),
            lambda: z(3, dtype="int8").random_(), lambda: z(3, dtype="bool").random_(),
            lambda: z(3, dtype="float16").random_(2**20), lambda: z(3).random_(-2), lambda: z(3).random_(0),
            lambda: z(3, dtype="int64").random_(5, None),
            lambda: z(3).exponential_(-1), lambda: z(3).exponential_(0), lambda: z(3, dtype="int64").exponential_(),
            lambda: z(3).geometric_(0), lambda: z(3).geometric_(1.5), lambda: z(3).geometric_(1),
            lambda: z(3, dtype="int64").geometric_(0.5), lambda: z(3).log_normal_(0, -1), lambda: z(3).log_normal_(0, 0),
            lambda: z(3).cauchy_(0, -1), lambda: z(3, dtype="int64").cauchy_(),
            lambda: z(3).expand(2, 3).uniform_(), lambda: z(3).expand(2, 3).normal_(),
            lambda: z(3).bernoulli_(), lambda: z(3, dtype="int64").bernoulli_(0.5), lambda: z(3).bernoulli_(2.0),
            lambda: z(3).bernoulli_(z(3) + 2), lambda: z(3).bernoulli_(z(2) + 0.5), lambda: z(3).bernoulli_(z(1) + 0.5),
            lambda: z(2, 3).t().exponential_(), lambda: z(2, 4)[:, ::2].random_(3),
        ]

    return list(zip(calls(torch), calls(st)))


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_inplace_samplers_follow_torch_errors():
    for torch_call, strided_call in _inplace_pairs():
        agree(torch_call, strided_call)


def test_float_random_beyond_exact_integers_warns_as_torch():
    with pytest.warns(UserWarning, match=r"to - 1 is out of bounds \[-\(2\^24\), 2\^24\]"):
        R.randint(0, 2**25, (3,), dtype=st.float32)


# ---------------------------------------------------------------- writes through views, failures, reports


@pytest.mark.parametrize("op", [
    lambda t: t.uniform_(), lambda t: t.normal_(), lambda t: t.random_(1, 9), lambda t: t.bernoulli_(0.5),
    lambda t: t.exponential_(), lambda t: t.geometric_(0.5), lambda t: t.log_normal_(), lambda t: t.cauchy_(),
])
def test_inplace_samplers_write_through_views_into_the_base(op):
    base = st.full((4, 6), -7.0)
    view = base.T[::2]  # (3, 4): every other column of base, transposed
    out = op(view)
    assert out is view
    arr = base.numpy()
    assert (arr[:, 1::2] == -7).all()  # the other columns are untouched
    assert not (arr[:, ::2] == -7).any()  # every element of the view was written


def test_a_failed_sampler_leaves_the_target_untouched():
    t = st.tensor([1, 2, 3], dtype=st.uint8)
    for call in (lambda: t.random_(0, 300), lambda: t.uniform_(), lambda: t.exponential_(), lambda: t.bernoulli_(2.0)):
        with pytest.raises(RuntimeError):
            call()
        assert t.tolist() == [1, 2, 3]
    e = st.tensor([1.0, 2.0]).expand(3, 2)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        e.normal_()
    assert e.tolist() == [[1.0, 2.0]] * 3


def test_factories_report_alloc_and_samplers_compute():
    seen = []
    t = st.zeros(2, 2)
    with dispatch.listen(seen.append):
        R.rand(2)
        R.randint_like(t, 4)
        R.multinomial(st.ones(3), 1)
        t.uniform_()
        t.T.bernoulli_()
    kinds = [(r.name, r.kind) for r in seen if r.kind != "view" and r.name != "ones"]
    assert kinds == [("rand", "alloc"), ("randint_like", "alloc"), ("multinomial", "alloc"),
                     ("uniform_", "compute"), ("bernoulli_", "compute")]
    assert seen[-1].output._storage is t._storage


@settings(max_examples=60, deadline=None)
@given(specs(max_dims=3, negative=True))
def test_uniform_on_any_layout_writes_exactly_its_elements_or_refuses_as_torch(spec):
    root = st.full((spec.storage_size,), -7.0, dtype=st.float64)
    view = root._view(Layout(spec.shape, spec.strides, spec.offset))
    grid = np.indices(spec.shape).reshape(len(spec.shape), -1) if spec.shape else np.zeros((0, 1), dtype=int)
    addresses = spec.offset + (np.array(spec.strides, dtype=int)[:, None] * grid).sum(axis=0)
    _, error = outcome(lambda: view.uniform_(2, 3))
    if not spec.has_negative:  # PyTorch refuses the same layouts (stride-0 dims: elements sharing memory)
        peer = torch.full((spec.storage_size,), -7.0, dtype=torch.float64)
        _, torch_error = outcome(lambda: peer.as_strided(spec.shape, spec.strides, spec.offset).uniform_())
        assert (torch_error is None) == (error is None)
    arr = root.numpy()
    if error is not None:
        assert "more than one element of the written-to tensor" in str(error)
        assert (arr == -7).all()  # a refused write changes nothing
        return
    touched = np.zeros(spec.storage_size, dtype=bool)
    if 0 not in spec.shape:
        touched[addresses] = True
    assert ((arr[touched] >= 2) & (arr[touched] < 3)).all()  # every element of the view was written
    assert (arr[~touched] == -7).all()  # and nothing else


@pytest.mark.parametrize("method, args", [
    ("normal_", ()), ("normal_", (2.0, 0.5)), ("uniform_", ()), ("exponential_", (3.0,)), ("bernoulli_", ()),
    ("bernoulli_", (0.2,)), ("cauchy_", ()), ("cauchy_", (0.0, 4.0)), ("cauchy_", (1.0, 2.0)), ("log_normal_", ()),
    ("random_", ()),
])
def test_in_place_draws_are_the_general_paths(method, args):
    """The in-place samplers' plain calls (a row-major target, the default generator: the early
    float32/float64 fills, the fills written straight into the target's run) give the numbers of
    their general path (the same draw written through ``write`` into a transposed target; an
    explicit generator) and leave the stream where it leaves it."""
    for dtype in ["float32", "float64", "int64", "bool"]:
        with case(dtype=dtype):
            _in_place_draws_are_the_general_paths(method, args, dtype)


def _in_place_draws_are_the_general_paths(method, args, dtype):
    outcomes = []
    for how in ("plain", "transposed", "generator"):
        st.manual_seed(5)
        t = st.zeros(4, 3, dtype=getattr(st, dtype)).t() if how == "transposed" else st.zeros(3, 4, dtype=getattr(st, dtype))
        kw = {"generator": default_generator} if how == "generator" else {}
        try:
            out = getattr(t, method)(*args, **kw)
        except Exception as e:  # (a dtype the sampler refuses: refused alike on every path)
            outcomes.append((type(e), str(e)))
            continue
        assert out is t
        outcomes.append((np.asarray(t).tobytes(), st.rand(2).tolist()))
    assert outcomes[0] == outcomes[1] == outcomes[2]


def test_multinomial_picks_are_the_stable_sorts_first():
    """Without replacement, multinomial's picks are the first n of a stable argsort of
    -(weights / Exp(1)); the compiled scan that finds them for few picks answers only where that
    order is the one answer: the same picks as the sort on every row, ties (zero weights, -inf),
    NaN and many picks included, and the same draws for the same seed."""
    from strided.ops.creation.random import _first_of_stable_order

    rng = np.random.default_rng(3)
    for trial in range(200):
        rows, cats = int(rng.integers(1, 40)), int(rng.integers(2, 200))
        keys = -(rng.uniform(0, 1, (rows, cats)) / rng.standard_exponential((rows, cats)))
        if trial % 3 == 0:
            keys[rng.random(keys.shape) < 0.3] = -0.0
        if trial % 5 == 0:
            keys[rng.random(keys.shape) < 0.05] = -np.inf
        if trial % 7 == 0:
            keys[rng.random(keys.shape) < 0.05] = np.nan
        n = int(rng.integers(1, min(cats, 20) + 1))
        assert np.array_equal(_first_of_stable_order(keys.copy(), n), np.argsort(keys, axis=1, kind="stable")[:, :n])
    w = st.tensor(rng.uniform(0.1, 1, (64, 500)))
    st.manual_seed(5)
    a = st.multinomial(w, 3)
    st.manual_seed(5)
    assert st.multinomial(w, 3).tolist() == a.tolist()
    assert all(len(set(row)) == 3 for row in a.tolist())
