"""Red-team findings on issue 25's new names: each test failed before its fix, against PyTorch 2.13."""

from __future__ import annotations

import math

import pytest
import torch

import strided

INF = math.inf


def _same(t: torch.Tensor, s: strided.Tensor) -> None:
    """Values (NaN-equal, signed zeros included), dtype and shape of ``s`` equal ``t``'s."""
    assert str(t.dtype).split(".")[1] == s.dtype.name
    assert tuple(t.shape) == tuple(s.shape)
    tv, sv = t.tolist(), s.tolist()
    for a, b in zip(tv, sv):
        assert (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b)), (tv, sv)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("exp_shape", [(), (1,), (2, 1)])
@pytest.mark.parametrize("fn", ["pow", "float_power"])
def test_power_with_a_broadcast_half_exponent_tensor_is_cs_pow(fn: str, exp_shape: tuple, dtype: str) -> None:
    # NumPy computes x ** 0.5 as sqrt(x) when the exponent repeats along its inner loop (a 0-d or
    # broadcast exponent): sqrt(-inf) is NaN and sqrt(-0.0) is -0.0, where PyTorch's pow of a
    # tensor exponent (C's pow) gives inf and 0.0.
    base = [[-INF, -0.0, 4.0, 0.0, INF]] * 2
    tb, sb = torch.tensor(base, dtype=getattr(torch, dtype)), strided.tensor(base, dtype=getattr(strided, dtype))
    te = torch.full(exp_shape, 0.5, dtype=getattr(torch, dtype))
    se = strided.full(exp_shape, 0.5, dtype=getattr(strided, dtype))
    t, s = getattr(torch, fn)(tb, te), getattr(strided, fn)(sb, se)
    for tr, sr in zip(t, s):
        _same(tr, sr)
    # a Python 0.5 is PyTorch's sqrt (NaN at -inf): unchanged
    _same(getattr(torch, fn)(tb[0], 0.5), getattr(strided, fn)(sb[0], 0.5))


def _modes(m) -> tuple:
    return m.is_grad_enabled(), m.is_inference_mode_enabled()


@pytest.mark.parametrize("make", ["no_grad()", "enable_grad()", "inference_mode()", "inference_mode(False)",
                                  "set_grad_enabled(False)"])
def test_a_decorated_generator_runs_each_step_in_the_mode(make: str) -> None:
    # PyTorch wraps a generator function's every step (send, throw, close); entering the block
    # once around the call left it before the first step ran (the generator saw the caller's mode)
    seen = {}
    for m in (torch, strided):
        def outside(m=m):  # noqa: ANN001, ANN202 - a fresh mode object each time: PyTorch's keep
            return m.no_grad() if "enable" in make or "False)" in make else m.enable_grad()  # one prev each

        with outside():
            before = _modes(m)

            def gen(m=m) -> object:  # noqa: ANN001
                got = [_modes(m)]
                try:
                    yield got[-1]
                except ValueError:
                    got.append(_modes(m))
                    yield got[-1]
                got.append(_modes(m))
                return got

            decorated = eval(f"m.{make}", {"m": m})(gen)
            with outside():  # (set_grad_enabled's call sets the mode itself, as PyTorch's)
                g = decorated()
                steps = [next(g), _modes(m), g.throw(ValueError()), _modes(m)]
                with pytest.raises(StopIteration) as stop:
                    next(g)
                steps.append(stop.value.value)
        seen[m.__name__] = (before, steps)
    assert seen["strided"] == seen["torch"]


@pytest.mark.parametrize("name", ["no_grad", "enable_grad", "inference_mode"])
def test_the_modes_decorate_without_the_call(name: str) -> None:
    # PyTorch: @torch.no_grad, @torch.enable_grad and @torch.inference_mode work bare
    seen = {}
    for m in (torch, strided):
        @getattr(m, name)
        def f(x: int, *, y: int = 0, m=m) -> tuple:  # noqa: ANN001
            return x + y, _modes(m)

        with m.no_grad() if name == "enable_grad" else m.enable_grad():
            seen[m.__name__] = (f(1, y=2), f.__name__, _modes(m))
    assert seen["strided"] == seen["torch"]


@pytest.mark.parametrize("name", ["gcd_", "lcm_", "ldexp_", "heaviside_", "atan2_", "hypot_"])
def test_an_inplace_method_given_a_number_names_itself_and_counts_after_self(name: str) -> None:
    dtype = "int64" if name in ("gcd_", "lcm_") else "float32"
    texts = []
    for m in (torch, strided):
        x = m.ones(3, dtype=getattr(m, dtype))
        with pytest.raises(TypeError) as err:
            getattr(x, name)(2)
        texts.append(str(err.value).splitlines()[0])
    assert texts[1] == texts[0]


@pytest.mark.parametrize("dtype", ["int64", "float32", "complex64", "bool", "uint16", "uint32", "uint64"])
@pytest.mark.parametrize(("beta", "alpha"), [(True, 1), (1, True), (False, 2), (2, False), (1, 1)])
def test_addr_refuses_a_bool_beta_or_alpha_for_a_result_that_is_not_bool(dtype: str, beta: object,
                                                                       alpha: object) -> None:
    # (it computed, reading True as 1: PyTorch refuses it; and it computed uint16/32/64, which
    # PyTorch's addr_cpu has no loop for)
    got = []
    for m in (torch, strided):
        d = getattr(m, dtype)
        args = (m.ones(2, 3, dtype=d), m.ones(2, dtype=d), m.ones(3, dtype=d))
        try:
            got.append(m.addr(*args, beta=beta, alpha=alpha).tolist())
        except RuntimeError as e:  # (NotImplementedError included)
            got.append(str(e).splitlines()[0])
    assert got[1] == got[0]


@pytest.mark.parametrize("name", ["no_grad", "enable_grad", "inference_mode"])
def test_one_mode_object_entered_by_two_threads_at_once(name: str) -> None:
    # a module-level NO_GRAD = no_grad() used by worker threads: each thread's block is its own
    # (PyTorch's guards are thread-local); one shared token list made both exits raise ValueError
    import threading

    ctx = getattr(strided, name)()
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen: dict = {}

    def worker(who: str, first: threading.Event, then: threading.Event, done: threading.Event | None) -> None:
        try:
            if who == "B":
                a_in.wait(5)
            with ctx:
                inside = _modes(strided)
                first.set()
                then.wait(5)
            seen[who] = (inside, _modes(strided))
        except Exception as e:  # (reported by the assertion below)
            seen[who] = repr(e)
        if done is not None:
            done.set()

    threads = [threading.Thread(target=worker, args=("A", a_in, b_in, a_out)),
               threading.Thread(target=worker, args=("B", b_in, a_out, None))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    inside = (name != "no_grad", name == "inference_mode") if name != "inference_mode" else (False, True)
    assert seen == {"A": (inside, (True, False)), "B": (inside, (True, False))}


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64"])
def test_a_running_sum_of_negative_zeros_is_positive_zero(dtype: str) -> None:
    # PyTorch's running sum starts from +0.0; NumPy's cumsum kept a leading -0.0 (and so did
    # cumulative_trapezoid over equal x: 0 * negative y)
    def signs(t: object) -> list:
        return [math.copysign(1, complex(v).real) for v in t.flatten().tolist()]

    got = []
    for m in (torch, strided):
        d = getattr(m, dtype)
        x = m.tensor([[-0.0, -0.0, -1.0], [-0.0, 2.0, -0.0]], dtype=d)
        runs = [x.cumsum(1), x.t().cumsum(0), x.clone().cumsum_(1), x.cumsum(1, dtype=m.complex128 if x.is_complex() else m.float64)]
        if not x.is_complex():
            runs.append(m.cumulative_trapezoid(m.tensor([-1.0, -2.0, -3.0], dtype=d), m.zeros(3, dtype=d)))
        got.append([(signs(r), r.tolist()) for r in runs])
    assert got[1] == got[0]


@pytest.mark.parametrize("call", ["add(m.ones(3), 1, out=x)", "xlogy(m.ones(3), 2.0, out=x)",
                                  "matmul(m.ones(3, 3), m.ones(3), out=x)",
                                  "logaddexp(m.ones(3), m.ones(3), out=x)"])
def test_out_into_an_inference_tensor_outside_the_block_is_refused(call: str) -> None:
    # an out= write is an in-place update: PyTorch refuses it outside inference mode (it was
    # written). (PyTorch 2.13 raises after its kernel wrote out; strided refuses before writing.)
    got = []
    for m in (torch, strided):
        with m.inference_mode():
            x = m.zeros(3)
        with pytest.raises(RuntimeError) as err:
            eval(f"m.{call}", {"m": m, "x": x})
        got.append(str(err.value).splitlines()[0])
        with m.inference_mode():  # (inside a block it is allowed)
            eval(f"m.{call}", {"m": m, "x": x})
    assert got[1] == got[0]
    with strided.inference_mode():
        x = strided.zeros(3)
    with pytest.raises(RuntimeError):
        eval(f"m.{call}", {"m": strided, "x": x})
    assert x.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("x_dtype", ["int16", "uint8", "bool", "uint16", "float32", "float16"])
@pytest.mark.parametrize("e_dtype", ["uint16", "uint32", "uint64"])
def test_ldexp_with_a_wide_unsigned_exponent(x_dtype: str, e_dtype: str) -> None:
    # integer input: PyTorch's mul(x, pow(2.0, e)) in the default float (strided refused the
    # integer promotion); float input: PyTorch's exact kernel has no uint16/32/64 loop (strided
    # computed)
    got = []
    for m in (torch, strided):
        x = m.tensor([1, 0, 3], dtype=getattr(m, x_dtype))
        e = m.tensor([2, 1, 40], dtype=getattr(m, e_dtype))
        try:
            y = m.ldexp(x, e)
            got.append((str(y.dtype).split(".")[1], y.tolist()))
        except NotImplementedError as err:
            got.append(str(err).splitlines()[0])
    assert got[1] == got[0]
