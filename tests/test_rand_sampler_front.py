"""The in-place samplers' compiled common call (random.compiled_sampler; kernels/_front.h,
entry_sample; each rand module's ``sample``).

``x.normal_()`` and its kin on a plain row-major float32/float64 tensor draw in C, through the
in-place entry front: every call must write what the Python forward writes (values to the bit)
and leave the generator where the forward leaves it, and every call the C path does not take
(other layouts, dtypes, arguments, an explicit generator, a listener, autograd, a disabled()
block) must still be the forward's own. strided's streams are NumPy's PCG64 (not PyTorch's
Mersenne Twister), so the reference is the forward itself, run with the compiled kernels off.
"""

from __future__ import annotations

import os
import sys
import threading

import numpy as np
import pytest

import strided as st
from strided import grad_mode
from strided.kernels import native
from strided.ops.creation import random as R

FRONTED = getattr(st.Tensor.normal_, "__sampler__", None) is not None
pytestmark = pytest.mark.skipif(not FRONTED and os.environ.get("STRIDED_REQUIRE_NATIVE") != "1",
                                reason="the compiled kernels are not built: no compiled samplers")

# (op, positional arguments, keyword arguments): calls the C path takes, and some it refuses
# (ints, out-of-range scales, a NaN, a non-default uniform range, an unknown keyword)
CALLS = [
    ("uniform_", (), {}), ("uniform_", (0.0, 1.0), {}), ("uniform_", (-1.0, 1.0), {}), ("uniform_", (0, 1), {}),
    ("normal_", (), {}), ("normal_", (2.0, 0.5), {}), ("normal_", (), {"std": 3.0}), ("normal_", (-0.0, 0.0), {}),
    ("normal_", (1e-30, 1e20), {}), ("normal_", (float("nan"),), {}), ("normal_", (0.0, -1.0), {}),
    ("normal_", (0, 1), {}), ("normal_", (), {"mean": 1.5, "std": 2.0, "generator": None}),
    ("random_", (), {}), ("random_", (5,), {}), ("random_", (), {"generator": None}),
    ("bernoulli_", (), {}), ("bernoulli_", (0.25,), {}), ("bernoulli_", (1.5,), {}), ("bernoulli_", (), {"p": 0.0}),
    ("exponential_", (), {}), ("exponential_", (2.5,), {}), ("exponential_", (1e30,), {}),
    ("exponential_", (-1.0,), {}),
    ("geometric_", (0.5,), {}), ("geometric_", (0.1,), {}), ("geometric_", (1.0,), {}), ("geometric_", (), {}),
    ("cauchy_", (), {}), ("cauchy_", (1.0, 2.0), {}), ("cauchy_", (0.0, 0.0), {}), ("cauchy_", (), {"sigma": 0.5}),
    ("log_normal_", (), {}), ("log_normal_", (0.5, 0.25), {}), ("log_normal_", (1.0, 100.0), {}),
    ("normal_", (), {"bogus": 1.0}),
]


def _targets(dtype):
    """Fresh targets of ``dtype`` in the layouts a sampler meets: the C path's (row-major) and the
    forward's (transposed, offset, stepped, 0-d, empty, read-only)."""
    base = st.zeros(6, 8, dtype=dtype)
    ro = st.from_numpy(np.zeros((3, 4), dtype=dtype.numpy))
    ro._storage.array.flags.writeable = False
    return {
        "rowmajor": st.zeros(3, 4, dtype=dtype), "big": st.zeros(64, 64, dtype=dtype),
        "over the limit": st.zeros(257, 256, dtype=dtype),  # (past R._FAST_N: the forward draws)
        "transposed": st.zeros(4, 3, dtype=dtype).t(), "offset": base[1:3], "stepped": base[::2, ::2],
        "0-d": st.zeros((), dtype=dtype), "empty": st.zeros(0, 4, dtype=dtype), "readonly": ro,
    }


def _call(method, x, args, kwargs, generator=None):
    """``method(x, *args, **kwargs)``: what it returned (or raised), x's bytes and the generator's
    state afterwards, from a fresh seed."""
    g = st.default_generator if generator is None else generator
    g.manual_seed(7)
    try:
        got = method(x, *args, **kwargs) if generator is None else method(x, *args, generator=g, **kwargs)
        got = "self" if got is x else got
    except Exception as e:  # noqa: BLE001 (the two paths must raise the same)
        got = (type(e), str(e).splitlines()[0])
    return got, x._np().tobytes(), bytes(g.get_state()._np())


def _reference(name, make, args, kwargs, generator=None):
    """The forward itself with the compiled kernels off (NumPy's calls)."""
    with native.disabled():
        return _call(getattr(R, name), make(), args, kwargs, generator)


@pytest.fixture
def before_autograd(monkeypatch):
    """As before any tensor required grad: the entry front's plain call."""
    monkeypatch.setitem(grad_mode.STATE, "used", False)


def test_every_in_place_sampler_is_marked():
    assert FRONTED, "STRIDED_REQUIRE_NATIVE=1 but the samplers have no compiled draw"
    for name in ("uniform_", "normal_", "random_", "bernoulli_", "exponential_", "geometric_", "cauchy_",
                 "log_normal_"):
        spec = getattr(getattr(st.Tensor, name), "__sampler__", None)
        assert spec is not None, name
    assert st.Tensor.normal_.__sampler__[2:4] == (("mean", "std"), (0.0, 1.0))
    assert st.Tensor.geometric_.__sampler__[2:4] == (("p",), (None,))
    assert st.Tensor.random_.__sampler__[2:4] == ((), ())


@pytest.mark.parametrize("dtype", [st.float32, st.float64, st.float16, st.int64, st.int32])
def test_the_front_writes_what_the_forward_writes(dtype, before_autograd):
    for layout in _targets(dtype):
        for name, args, kwargs in CALLS:
            def make(layout=layout):
                return _targets(dtype)[layout]
            got = _call(getattr(st.Tensor, name), make(), args, kwargs)
            want = _reference(name, make, args, kwargs)
            assert got == want, (name, args, kwargs, layout, dtype)


def test_the_front_takes_the_common_call_without_the_forward(before_autograd):
    """The row-major float call runs no Python frame of the forward; a transposed one does."""
    for name, args in (("normal_", ()), ("uniform_", ()), ("random_", ()), ("bernoulli_", (0.5,)),
                       ("exponential_", ()), ("geometric_", (0.5,)), ("cauchy_", ()), ("log_normal_", ())):
        for x, taken in ((st.zeros(3, 4), True), (st.zeros(4, 3, dtype=st.float64).t(), False)):
            getattr(x, name)(*args)  # (the memo of its shape made)
            frames = []

            def profile(frame, event, arg, frames=frames, name=name):
                if event == "call" and frame.f_code.co_name == name:
                    frames.append(name)
            sys.setprofile(profile)
            try:
                getattr(x, name)(*args)
            finally:
                sys.setprofile(None)
            assert (not frames) == taken, (name, taken)


def test_explicit_generators_and_disabled_blocks_take_the_forward(before_autograd):
    for name, args, kwargs in CALLS[:20]:
        g = st.Generator()
        got = _call(getattr(st.Tensor, name), st.zeros(3, 4), args, kwargs, g)
        assert got == _reference(name, lambda: st.zeros(3, 4), args, kwargs, st.Generator()), name
        with native.disabled():
            inside = _call(getattr(st.Tensor, name), st.zeros(3, 4), args, kwargs)
        assert inside == _reference(name, lambda: st.zeros(3, 4), args, kwargs), name


def test_a_fresh_seed_and_a_restored_state_are_followed(before_autograd):
    """The stream's capsule is read under the lock at each call: manual_seed (no NumPy generator
    yet) and set_state (a new one) are both followed."""
    x = st.zeros(3, 4)
    st.manual_seed(3)
    x.normal_()
    first = x._np().copy()
    state = st.get_rng_state()
    x.normal_()
    second = x._np().copy()
    st.set_rng_state(state)
    x.normal_()
    assert np.array_equal(x._np(), second)
    st.manual_seed(3)
    x.normal_()
    assert np.array_equal(x._np(), first)


def test_listeners_autograd_and_versions_are_the_entrys():
    x = st.zeros(3, 4)
    with st.watch() as w:
        x.normal_()
        x.geometric_(0.5)
    assert [s.name for s in w.steps] == ["normal_", "geometric_"]
    leaf = st.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        leaf.uniform_()
    with st.no_grad():  # (an initializer: counted in the version, as the entry counts it)
        v = leaf._version
        leaf.normal_()
        assert leaf._version == v + 1
    y = st.zeros(3)
    v = y._version
    y.exponential_()
    assert y._version == v + 1


def test_threads_draw_whole_calls_from_one_stream(before_autograd):
    """Threads sharing the default generator: each call's draws stay together (its lock), so the
    values drawn are the serial run's, in some order of calls, and the stream ends where it does."""
    calls, threads = 300, 4
    st.manual_seed(11)
    serial = []
    for _ in range(calls * threads):
        serial.append(st.zeros(2, 3).normal_()._np().tobytes())
    end = bytes(st.get_rng_state()._np())
    st.manual_seed(11)
    seen: list[bytes] = []

    def work():
        mine = []
        for _ in range(calls):
            mine.append(st.zeros(2, 3).normal_()._np().tobytes())
        seen.extend(mine)
    pool = [threading.Thread(target=work) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert sorted(seen) == sorted(serial)
    assert bytes(st.get_rng_state()._np()) == end


def test_the_scale_bounds_are_the_forwards():
    """The C samplers take the scales random.py's fast paths take (their SCALE_LO/SCALE_HI):
    just inside is drawn in C, just outside goes to the forward, with the same values both ways."""
    lo, hi = R._SCALE_LO, R._SCALE_HI
    for value in (lo, hi, np.nextafter(lo, 0), np.nextafter(hi, np.inf)):
        for name, args in (("exponential_", (float(value),)), ("normal_", (0.0, float(value))),
                           ("cauchy_", (float(value), 1.0))):
            assert _call(getattr(st.Tensor, name), st.zeros(3, 4), args, {}) == \
                _reference(name, lambda: st.zeros(3, 4), args, {}), (name, value)


@pytest.mark.parametrize("dtype", [st.float32, st.float64])
def test_normal_of_a_mean_tensor_draws_the_forwards_numbers(dtype):
    """normal(mean, std)'s compiled draw (_randkernel's normal_tensor_fill: the ziggurat with
    PCG64's step inlined) against NumPy's calls: values and the stream after, over the layouts
    and stds its fast path takes and refuses."""
    base = st.rand(6, 8, dtype=dtype)
    for mean in (st.rand(3, 4, dtype=dtype), st.rand(16, 16, dtype=dtype), st.rand((), dtype=dtype),
                 st.rand(0, 3, dtype=dtype), base.t(), base[1:3], base[::2]):
        for std in (1.0, 0.5, 0.0, 3e14, 1e16):
            runs = []
            for off in (False, True):
                st.manual_seed(5)
                if off:
                    with native.disabled():
                        a, b = st.normal(mean, std), st.normal(mean, std)
                else:
                    a, b = st.normal(mean, std), st.normal(mean, std)
                runs.append((a._np().tobytes(), b._np().tobytes(), a.stride(), bytes(st.get_rng_state()._np())))
            assert runs[0] == runs[1], (mean.shape, mean.stride(), std)


def _numpy_pair(seed):
    """Two NumPy generators on one stream, a buffered 32-bit half left in each (as strided's
    stream has after an odd number of 32-bit draws)."""
    pair = [np.random.Generator(np.random.PCG64(seed)) for _ in range(2)]
    for g in pair:
        g.integers(0, 5)
    return pair


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_geometric_search_table_draws_numpys_numbers(dtype):
    """_randdist's geometric fill for p >= 1/3 (its table of the search loop's sums, counted
    without branches, then the loop for long draws) against Generator.geometric: the same numbers
    and stream, at the threshold, in the tails and below it (NumPy's inversion)."""
    kernel = native.randdist()
    if kernel is None:
        pytest.skip("no _randdist")
    third = 0.333333333333333333333333
    for p in (third, np.nextafter(third, 1.0), np.nextafter(third, 0.0), 0.34, 0.5, 0.75, 0.999, 1 - 1e-12, 0.1):
        for seed in range(4):
            mine, numpy_g = _numpy_pair(seed)
            out = np.empty(2000, dtype)
            assert kernel.geometric_fill(mine.bit_generator.capsule, out, float(p))
            assert np.array_equal(out, numpy_g.geometric(float(p), 2000).astype(dtype)), (p, seed)
            assert mine.bit_generator.state == numpy_g.bit_generator.state
    st.manual_seed(0)
    x = st.zeros(50, 40).geometric_(0.34)
    assert float(x.max()) > 10  # (draws past the table were made)


def test_randperm_draws_numpys_permutation():
    """_randkernel's randperm_fill (the shuffle with PCG64's step inlined, or the bit generator's
    functions before the layout check) against Generator.permutation: numbers and stream."""
    kernel = native.rand()
    if kernel is None:
        pytest.skip("no _randkernel")
    for n in (0, 1, 2, 3, 17, 256, 1000, 5000):
        for seed in range(3):
            mine, numpy_g = _numpy_pair(seed)
            out = np.empty(n, np.int64)
            assert kernel.randperm_fill(mine.bit_generator.capsule, out)
            assert np.array_equal(out, numpy_g.permutation(n)), (n, seed)
            assert mine.bit_generator.state == numpy_g.bit_generator.state
    for n in (0, 5, 256):
        runs = []
        for off in (False, True):
            st.manual_seed(2)
            if off:
                with native.disabled():
                    runs.append((st.randperm(n).tolist(), bytes(st.get_rng_state()._np())))
            else:
                runs.append((st.randperm(n).tolist(), bytes(st.get_rng_state()._np())))
        assert runs[0] == runs[1]
    assert not kernel.randperm_fill(mine.bit_generator.capsule, np.empty(4, np.int32))


@pytest.mark.parametrize("dtype", [st.float32, st.float64])
def test_the_factories_compiled_draws_follow_the_stream(dtype):
    """rand/randn and their _like forms (random._drawn: the kernels on the stream's capsule)
    against the kernels-off path: right after a seed (no NumPy generator yet), then again."""
    for shape in ((3, 4), (16, 16), (), (0, 2)):
        like = st.zeros(shape, dtype=dtype)
        for make in (lambda like=like: st.rand_like(like), lambda like=like: st.randn_like(like),
                     lambda shape=shape: st.rand(shape, dtype=dtype), lambda shape=shape: st.randn(shape, dtype=dtype)):
            runs = []
            for off in (False, True):
                st.manual_seed(9)
                if off:
                    with native.disabled():
                        a, b = make(), make()
                else:
                    a, b = make(), make()
                runs.append((a._np().tobytes(), b._np().tobytes(), a.dtype, a.stride(),
                             bytes(st.get_rng_state()._np())))
            assert runs[0] == runs[1], shape
    old = st.get_default_dtype()
    st.set_default_dtype(dtype)
    try:
        for make in (lambda: st.randn(5, 3), lambda: st.rand(5, 3)):  # (the default dtype: _drawn's call)
            st.manual_seed(4)
            a, a2 = make(), make()
            with native.disabled():
                st.manual_seed(4)
                b, b2 = make(), make()
            assert a._np().tobytes() == b._np().tobytes() and a2._np().tobytes() == b2._np().tobytes()
    finally:
        st.set_default_dtype(old)


def test_a_refused_or_failed_call_leaves_the_lock_free(before_autograd):
    """After refusals (a bad p, an int argument) and errors raised by the forward, the default
    generator's lock is free and the next compiled draw runs."""
    x = st.zeros(3, 4)
    for bad in (lambda: x.bernoulli_(1.5), lambda: x.geometric_(2.0), lambda: x.normal_(0.0, -1.0)):
        with pytest.raises(RuntimeError):
            bad()
        assert not st.default_generator._lock.locked()
    x.normal_(0, 1)
    x.normal_()
    assert not st.default_generator._lock.locked()
