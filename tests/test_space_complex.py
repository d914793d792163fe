"""linspace / logspace with complex numbers, differential against PyTorch 2.13: complex bounds
(Python's, NumPy's, 0-d tensors) and dtypes, the dtype PyTorch infers from them and its refusal
of a real dtype, the ``out=`` form (bounds read as out's elements), one and zero steps, base
forms; values bit for bit (NaN equal to NaN, zeros by sign), dtypes, shapes, errors (class and
first line) and warnings (their categories: NumPy's ComplexWarning where PyTorch lets it out)."""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from typing import Any

import hypothesis.strategies as hs
import numpy as np
import pytest
import torch
from hypothesis import given, settings

import strided as st
from strided.kernels import complex_space, native

_SPECIAL = [math.inf, -math.inf, math.nan, 0.0, -0.0]
_part = hs.one_of(hs.floats(-8, 8, allow_nan=False).map(lambda v: round(v, 3)), hs.integers(-6, 6),
                  hs.sampled_from(_SPECIAL))
_complex = hs.builds(complex, _part, _part)
# a bound as the caller writes it: a real or complex Python number, NumPy scalars (complex64 and
# clongdouble: read as floats by PyTorch, with NumPy's ComplexWarning), or a 0-d tensor ("t")
_bound = hs.one_of(
    _part, _complex,
    _complex.map(np.complex128), _complex.filter(lambda z: abs(z) < 1e30).map(np.complex64),
    hs.tuples(hs.just("t"), _complex), hs.tuples(hs.just("t"), _part),
)
_steps = hs.one_of(hs.integers(0, 300), hs.sampled_from([1000, 4097, 40000]))
_DTYPES = [None, "complex64", "complex128", "float32", "float64", "float16", "bfloat16", "int64", "int8",
           "uint8", "bool"]
_BASES = [10.0, 2.0, 0.5, 3.7, 1.0, 0.0, -0.0, -2.0, -0.5, math.inf, math.nan, True]


def _outcome(call: Callable[[], Any]) -> tuple[Any, BaseException | None, list[str]]:
    """(result, error, warning categories) of ``call``."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            result, error = call(), None
        except Exception as exc:  # noqa: BLE001 - the oracle compares what is raised
            result, error = None, exc
    return result, error, sorted({w.category.__name__ for w in seen if w.category is not UserWarning})


def _bits(a: np.ndarray) -> np.ndarray:
    """A float view of ``a``'s parts (complex: real and imaginary side by side)."""
    if a.dtype.kind == "c":
        return a.view(np.float32 if a.dtype.itemsize == 8 else np.float64)
    return a


def _same(torch_call: Callable[[], Any], strided_call: Callable[[], Any]) -> None:
    """The same values (bit for bit, NaN as NaN, zeros by sign), dtype and shape, or the same error
    class and first line; the same warning categories either way."""
    (t, te, tw), (s, se, sw) = _outcome(torch_call), _outcome(strided_call)
    assert tw == sw, (tw, sw, te, se)
    if te is not None or se is not None:
        assert te is not None and se is not None, (te, se)
        assert isinstance(se, st.StridedError) and isinstance(se, type(te)), (te, se)
        assert str(se).splitlines()[0] == str(te).splitlines()[0]
        return
    assert str(t.dtype).removeprefix("torch.") == s.dtype.name and tuple(t.shape) == s.shape
    assert t.requires_grad == s.requires_grad
    if t.dtype is torch.bfloat16:
        t, s = t.float(), s.float()
    a, b = _bits(t.detach().numpy()), _bits(s.detach().numpy())
    if a.dtype.kind == "f":
        assert np.array_equal(np.isnan(a), np.isnan(b)), (a, b)
        keep = ~np.isnan(a)
        assert np.array_equal(a[keep], b[keep]) and np.array_equal(np.signbit(a[keep]), np.signbit(b[keep])), (a, b)
    else:
        assert np.array_equal(a, b), (a, b)


def _make(bound: Any, lib: Any) -> Any:
    """``bound`` for ``lib`` (torch or strided): a ("t", value) pair as a 0-d tensor of it."""
    if isinstance(bound, tuple):
        return lib.tensor(bound[1])
    return bound


def _dtype(name: str | None, lib: Any) -> Any:
    """The dtype called ``name`` in ``lib`` (None: None)."""
    if name is None:
        return None
    return getattr(lib, ("bool" if lib is torch else "bool_") if name == "bool" else name)


def _call(lib: Any, op: str, *args: Any, dtype: str | None = None, out: tuple | None = None,
          **kwargs: Any) -> Callable[[], Any]:
    """``lib.op(*args, **kwargs)`` to run later: ("t", v) bounds as 0-d tensors, ``dtype`` by
    name, ``out=(shape, dtype name)`` a fresh empty tensor."""
    if dtype is not None:
        kwargs["dtype"] = _dtype(dtype, lib)
    if out is not None:
        kwargs["out"] = lib.empty(out[0], dtype=_dtype(out[1], lib))
    return functools.partial(getattr(lib, op), *(_make(a, lib) for a in args), **kwargs)


def _both(op: str, *args: Any, **kwargs: Any) -> None:
    """:func:`_same` of ``op`` with these arguments in PyTorch and strided (:func:`_call`'s forms)."""
    _same(_call(torch, op, *args, **kwargs), _call(st, op, *args, **kwargs))


@settings(max_examples=400, deadline=None)
@given(op=hs.sampled_from(["linspace", "logspace"]), start=_bound, end=_bound, steps=_steps,
       dtype=hs.sampled_from(_DTYPES), base=hs.sampled_from(_BASES), form=hs.sampled_from(["call", "out"]))
def test_spaces_match_torch(op: str, start: Any, end: Any, steps: int, dtype: str | None, base: Any,
                            form: str) -> None:
    """Every bound form, dtype and step count, the call and its out= form."""
    extra = {"base": base} if op == "logspace" else {}
    if form == "out":
        _both(op, start, end, steps, out=(3, dtype or "complex64"), **extra)
    else:
        _both(op, start, end, steps, dtype=dtype, **extra)


@pytest.mark.parametrize("op", ["linspace", "logspace"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_bounds_all_special_pairs(op: str, dtype: str) -> None:
    """Every pair of special parts, at 2, 5 and 33 steps (both halves of the two-sided ramp)."""
    parts = [math.inf, -math.inf, math.nan, 0.0, -0.0, 1.5, -2.25]
    values = [complex(a, b) for a in parts for b in parts]
    for start in values[::3]:
        for end in values[1::4]:
            for steps in (2, 5, 33):
                _both(op, start, end, steps, dtype=dtype)


@pytest.mark.parametrize("op", ["linspace", "logspace"])
def test_complex_dtype_inference_and_refusals(op: str) -> None:
    """Complex bounds make the default complex dtype; a real dtype is refused (not in the out=
    form, which reads them as out's elements: an imaginary part refused, a zero one dropped)."""
    c = 1 + 2j
    for dt in ("float32", "float64", "int64", "bool", "bfloat16", "complex128"):
        _both(op, 0, c, 4, dtype=dt)
    _both(op, c, 0, -1, dtype="float32")
    _both(op, ("t", c), 1, 5)
    _both(op, 0, c, 3, requires_grad=True)
    for bound in (1 + 0j, c):
        _both(op, 0, bound, 3, out=(2, "float32"))
        _both(op, bound, 0, 1, out=(2, "int64"))
    torch.set_default_dtype(torch.float64)
    st.set_default_dtype(st.float64)
    try:
        _both(op, 0, c, 5)
        _both(op, 0, c, 5, dtype="float32")
    finally:
        torch.set_default_dtype(torch.float32)
        st.set_default_dtype(st.float32)


@pytest.mark.parametrize("base", [np.complex128(2 + 1j), np.complex64(3), 2, -2.0, 0.0, math.nan])
@pytest.mark.parametrize("steps", [1, 4])
def test_logspace_bases(base: Any, steps: int) -> None:
    """A real base of each sign with complex exponents; NumPy's complex scalars read as floats
    (with NumPy's ComplexWarning, as PyTorch lets it out)."""
    _both("logspace", 0.5 - 1j, 2 + 3j, steps, base=base)
    _both("logspace", 0.5, 3, steps, base=base, dtype="complex64")


def test_a_python_complex_base_is_a_type_error() -> None:
    """PyTorch's float argument refuses a Python complex base (its words: an invalid combination
    of arguments; strided names the argument)."""
    with pytest.raises(TypeError):
        torch.logspace(0, 1, 3, base=1j)
    with pytest.raises(st.StridedError) as info:
        st.logspace(0, 1, 3, base=1j)
    assert isinstance(info.value, TypeError) and "'base' must be float, not complex" in str(info.value)


def test_real_bounds_into_complex_logspace_warn_nothing() -> None:
    """A complex logspace of real bounds computes in complex arithmetic: no NumPy ComplexWarning
    (or any other) escapes; neither does an infinite bound's NaN from linspace."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = st.logspace(0, 1, 5, dtype=st.complex64)
        st.linspace(math.inf, 0, 5)
        st.linspace(complex(math.inf, 1), 0, 5)
    want = torch.logspace(0, 1, 5, dtype=torch.complex64).numpy()
    assert got.numpy().tobytes() == want.tobytes()


@pytest.mark.parametrize("steps", [0, 1, 2])
@pytest.mark.parametrize("op", ["linspace", "logspace"])
def test_bool_spaces_of_at_most_one_step(op: str, steps: int) -> None:
    """PyTorch's kernel (which refuses bool) runs from two steps on: 0 makes nothing, 1 fills."""
    for start in (0, 2.5, -1):
        _both(op, start, 1, steps, dtype="bool")
    for start in (1 + 0j, 3j, 0j):
        _both(op, start, 1, steps, out=(0, "bool"))


def _fill(lib: Any, n: int, dtype: str) -> Any:
    return lib.zeros(n, dtype=_dtype(dtype, lib)).fill_(1 + 2j)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("n", [1, 3])
def test_single_element_half_fill_refuses_an_imaginary_part_as_a_double(dtype: str, n: int) -> None:
    """PyTorch's one-element fill of float16/bfloat16 reads the value as a double first."""
    _same(functools.partial(_fill, torch, n, dtype), functools.partial(_fill, st, n, dtype))
    _both("linspace", 1 + 2j, 0, 1, out=(n, dtype))


def test_complex_logspace_without_the_kernel_is_close(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the compiled ``complex_pow`` NumPy's exp(y * log(x)) stands in for glibc's cpow:
    the same exponents, powers within a few ulps (finite values)."""
    want = {dt: torch.logspace(-1 + 2j, 2.5 - 1j, 57, base=3.0, dtype=getattr(torch, dt)).numpy()
            for dt in ("complex64", "complex128")}
    one = torch.logspace(-1 + 2j, 0, 1, base=-2.0, dtype=torch.complex128).numpy()
    monkeypatch.setattr(native, "special", lambda: None)
    for dt, tol in (("complex64", 1e-5), ("complex128", 1e-13)):
        got = st.logspace(-1 + 2j, 2.5 - 1j, 57, base=3.0, dtype=getattr(st, dt)).numpy()
        np.testing.assert_allclose(got, want[dt], rtol=tol)
    np.testing.assert_allclose(st.logspace(-1 + 2j, 0, 1, base=-2.0, dtype=st.complex128).numpy(), one, rtol=1e-13)
    assert complex_space.logspace_one(1 + 2j, 2.0) == complex(
        torch.logspace(1 + 2j, 0, 1, base=2.0, dtype=torch.complex128).item())


@pytest.mark.parametrize("op", ["linspace", "logspace"])
@pytest.mark.parametrize("transposed", [False, True])
def test_complex_out_forms_resize_and_strides(op: str, transposed: bool) -> None:
    """The out= form into a transposed complex out of the same count (filled in row-major order)
    and into one of another count (resized)."""
    t_out = torch.zeros((2, 3), dtype=torch.complex128).t() if transposed else torch.zeros(4, dtype=torch.complex128)
    s_out = st.zeros((2, 3), dtype=st.complex128).t() if transposed else st.zeros(4, dtype=st.complex128)
    t = getattr(torch, op)(1 - 1j, 2 + 3j, 6, out=t_out)
    s = getattr(st, op)(1 - 1j, 2 + 3j, 6, out=s_out)
    assert s is s_out and s.shape == tuple(t.shape) and s.stride() == t.stride()
    assert s.numpy().tobytes() == t.numpy().tobytes()


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8"])
def test_integer_logspace_takes_a_double_base(dtype: str) -> None:
    """PyTorch's integer logspace raises the double base (not a float32 one): 3.7 ** 15.9375 is
    1136880918 (low byte 22 in uint8), where a float32 base made 1136881152."""
    _both("logspace", 0, 255, 17, base=3.7, dtype=dtype)
    _both("logspace", 0.0, -1, 17, base=3.7, dtype=dtype)
    for base in (3.7, 1.1, 7.3, 10.0):
        _both("logspace", -3.25, 28.5, 33, base=base, dtype=dtype)


@pytest.mark.parametrize("dtype", ["float64", "complex128", "int64", "int32"])
@pytest.mark.parametrize("steps", [4097, 40000, 100001])
def test_double_ramps_are_fused_exactly_at_any_length(dtype: str, steps: int) -> None:
    """PyTorch's double ramp is one fused multiply-add an element: a long-double stand-in was
    not exact past ~2**11 steps (15 of 40,000 float64 values off by an ulp)."""
    for start, end in ((0, 1), (-3.3, 1e3), (12.5, -7.25), (1 - 2j, -3 + 0.1j)):
        if isinstance(start, complex) and dtype != "complex128":
            continue
        _both("linspace", start, end, steps, dtype=dtype)


def test_double_ramps_without_the_kernel_are_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the compiled fma64, fma_into's NumPy emulation gives the same exact fused ramp."""
    want = {dt: torch.linspace(-3.3, 1e3, 40000, dtype=getattr(torch, dt)).numpy() for dt in ("float64", "int64")}
    want_c = torch.linspace(1 - 2j, -3 + 0.1j, 4097, dtype=torch.complex128).numpy()
    monkeypatch.setattr(native, "special", lambda: None)
    for dt, values in want.items():
        assert st.linspace(-3.3, 1e3, 40000, dtype=getattr(st, dt)).numpy().tobytes() == values.tobytes()
    assert st.linspace(1 - 2j, -3 + 0.1j, 4097, dtype=st.complex128).numpy().tobytes() == want_c.tobytes()
