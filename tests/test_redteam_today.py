"""Red-team findings on the day's fast paths and lazy loading (each a failing test first, then fixed)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings

import pytest
import torch

import strided
from oracle_helpers import case


def _fresh(code: str) -> str:
    """Run ``code`` in a fresh interpreter (nothing lazy loaded yet); its stdout."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_array_api_first_use_from_several_threads_sees_every_name() -> None:
    # the namespace loads on first use; a second thread's lookup while the first one loads it
    # used to find the namespace half-made: AttributeError: ... has no attribute 'asarray'
    out = _fresh("""
        import threading, strided
        barrier = threading.Barrier(8)
        errors = []
        def use():
            barrier.wait()
            try:
                xp = strided.array_api
                xp.asarray([1, 2]); xp.__array_api_version__; xp.__all__
            except Exception as e:
                errors.append(repr(e))
        threads = [threading.Thread(target=use) for _ in range(8)]
        [t.start() for t in threads]; [t.join() for t in threads]
        print(len(errors), errors[:1])
    """)
    assert out.split()[0] == "0", out


def _overlapping(lib, op: str, which: str, layout: str, dtype: str):
    """``x.<op>(a1, a2)`` where ``x`` and one or both operands are overlapping windows of one storage."""
    dt = getattr(lib, dtype)
    if layout == "flat":  # (the fast path's case: row-major float operands of one layout)
        base = lib.arange(1, 11).to(dt)
        x, o = base[0:5], base[1:6]
    else:  # (the general path: stepped windows)
        base = lib.arange(1, 21).to(dt)
        x, o = base[0:10:2], base[2:12:2]
    c = lib.full((5,), 2, dtype=dt)
    a1, a2 = {"t1": (o, c), "t2": (c, o), "both": (o, o)}[which]
    getattr(x, op)(a1, a2, value=2 if dtype == "int64" else 0.5)
    return base


# (integer addcdiv is refused for another reason, before any overlap check: not a case here)
@pytest.mark.parametrize(("op", "dtype"), [(op, dt) for op in ("addcmul_", "addcdiv_")
                                           for dt in ("float32", "float64", "int64")
                                           if not (op == "addcdiv_" and dt == "int64")])
@pytest.mark.parametrize("which", ["t1", "t2", "both"])
def test_addc_inplace_refuses_an_operand_partly_overlapping_self(op: str, which: str, dtype: str) -> None:
    # PyTorch's assert_no_partial_overlap: an operand that shares some (not all) of self's dense
    # memory is refused; strided used to compute silently (reading each operand before the write)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        _overlapping(torch, op, which, "flat", dtype)
    with pytest.raises(strided.OverlapWriteError, match="refer to a single memory location"):
        _overlapping(strided, op, which, "flat", dtype)


@pytest.mark.parametrize("op", ["addcmul_", "addcdiv_"])
@pytest.mark.parametrize("which", ["t1", "t2", "both"])
def test_addc_inplace_stepped_windows_stay_too_hard(op: str, which: str) -> None:
    # stepped (not dense) windows are "too hard" for PyTorch's overlap test: both compute, alike
    got = _overlapping(strided, op, which, "stepped", "float64")
    want = _overlapping(torch, op, which, "stepped", "float64")
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("op", ["addcmul_", "addcdiv_"])
def test_addc_inplace_full_overlap_stays_allowed(op: str) -> None:
    # the same memory with the same layout (x itself, or a view of it) is a full overlap: allowed
    for lib in (strided, torch):
        x = lib.arange(1.0, 6.0)
        getattr(x, op)(x, x.view(5), value=0.5)
        y = lib.arange(1.0, 6.0)
        getattr(y, op)(y.clone(), y.clone(), value=0.5)
        assert x.tolist() == y.tolist()


@pytest.mark.parametrize("input_shape", [(5,), (2, 5), (2, 3, 5)])
@pytest.mark.parametrize("bias_dtype", ["int64", "bool", "float64", "float16"])
def test_linear_refuses_a_bias_of_another_dtype(input_shape: tuple[int, ...], bias_dtype: str) -> None:
    # PyTorch adds the bias in addmm, which refuses a dtype other than the weight's; strided used
    # to promote (a float64 result from a float32 layer, or an int bias added silently)
    with pytest.raises(RuntimeError) as want:
        torch.nn.functional.linear(torch.ones(input_shape), torch.ones(3, 5), torch.ones(3, dtype=getattr(torch, bias_dtype)))
    with pytest.raises(strided.StridedRuntimeError) as got:
        strided.nn.functional.linear(strided.ones(input_shape), strided.ones(3, 5),
                                     strided.ones(3, dtype=getattr(strided, bias_dtype)))
    assert str(got.value).splitlines()[0] == str(want.value).splitlines()[0]


def _outcome(fn):
    try:
        r = fn()
    except RuntimeError as e:
        return "error: " + str(e).splitlines()[0]
    return r.tolist()


_ALPHA_CASES = [("float32", 1e39), ("float32", 1e300), ("float16", 70000.0), ("float16", 2**40), ("int8", 300),
                ("int32", 2**40), ("float32", 70000.0), ("float16", float("inf")), ("int8", 100), ("float64", 1e300)]


@pytest.mark.parametrize("form", ["add", "add_", "sub_", "add_scalar_"])
def test_alpha_outside_the_dtype_is_refused(form):
    for dtype, alpha in _ALPHA_CASES:
        with case(dtype=dtype, alpha=alpha):
            _alpha_outside_the_dtype_is_refused(dtype, alpha, form)


def _alpha_outside_the_dtype_is_refused(dtype: str, alpha: float, form: str) -> None:
    # PyTorch converts alpha to the op's dtype and refuses a value outside it; strided wrapped it
    # (int8 alpha=300: 45) or made inf/nan silently (float32 alpha=1e39)
    def run(lib):
        x = lib.ones(3, dtype=getattr(lib, dtype))
        y = lib.ones(3, dtype=getattr(lib, dtype))
        if form == "add":
            return x.add(y, alpha=alpha)
        if form == "add_scalar_":
            return x.add_(2, alpha=alpha)
        return getattr(x, form)(y, alpha=alpha)
    assert _outcome(lambda: run(strided)) == _outcome(lambda: run(torch))


_VALUE_CASES = [("float32", 1e39), ("float32", 1e300), ("float16", 1e39), ("float16", 70000.0), ("int8", 300),
                ("int32", 2**40), ("int32", float("inf")), ("int8", float("nan")), ("float64", 1e300), ("int8", 1.5)]


# (integer addcdiv is refused for another reason, before the value's conversion: not a case here)
@pytest.mark.parametrize(("dtype", "value", "form"), [
    (dtype, value, form) for dtype, value in _VALUE_CASES for form in ("addcmul", "addcmul_", "addcdiv_")
    if not (form == "addcdiv_" and not dtype.startswith("float"))])
def test_addc_value_outside_the_math_dtype_is_refused(dtype: str, value: float, form: str) -> None:
    # PyTorch converts value to the op's math type (float for float16) and refuses a value
    # outside it; strided gave [1, 1, 1] for int32 value=2**40, inf for float32 value=1e39

    def run(lib):
        x, t1, t2 = (lib.ones(3, dtype=getattr(lib, dtype)) for _ in range(3))
        if form == "addcmul":
            return lib.addcmul(x, t1, t2, value=value)
        return getattr(x, form)(t1, t2, value=value)
    assert _outcome(lambda: run(strided)) == _outcome(lambda: run(torch))


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_of_complex_with_a_float_dtype(op: str, dtype: str) -> None:
    # PyTorch converts the input to dtype= first (the imaginary parts dropped); strided crashed
    # inside NumPy (UFuncTypeError: Cannot cast ufunc 'subtract' input 0 from complex64)
    data = [[1 + 2j, 0.5 - 1j, -2 + 0j], [3 + 0j, 3 + 1j, 0 - 5j]]
    with pytest.warns(UserWarning, match="discards the imaginary part"):  # (PyTorch's warning, once per process)
        got = getattr(strided.tensor(data, dtype=strided.complex64), op)(1, dtype=getattr(strided, dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(torch.tensor(data, dtype=torch.complex64), op)(1, dtype=getattr(torch, dtype))
    assert str(got.dtype).split(".")[-1] == dtype
    assert sum(got.tolist(), []) == pytest.approx(sum(want.tolist(), []), rel=1e-6)


@pytest.mark.parametrize("source", ["float32", "float64", "complex64", "int64"])
@pytest.mark.parametrize("form", ["method", "vector_norm"])
def test_vector_norm_dtype_is_checked_as_pytorch_checks_it(source, form):
    for dtype in ["float64", "float32", "float16", "complex128", "int64", "bool"]:
        with case(dtype=dtype):
            _vector_norm_dtype_is_checked_as_pytorch_checks_it(source, dtype, form)


def _vector_norm_dtype_is_checked_as_pytorch_checks_it(source: str, dtype: str, form: str) -> None:
    # a norm in an integer or bool dtype (4, True), of an int64 tensor once dtype= was given, of a
    # complex tensor in a real dtype, or narrowed: PyTorch refuses each, strided computed them
    def run(lib):
        x = (lib.arange(6.0).reshape(2, 3) - 2).to(getattr(lib, source))
        if form == "method":
            return x.norm(dtype=getattr(lib, dtype))
        return lib.linalg.vector_norm(x, dtype=getattr(lib, dtype))

    def outcome(lib):
        try:
            r = run(lib)
        except RuntimeError as e:
            return "error: " + str(e).splitlines()[0]
        return round(float(r), 4), str(r.dtype).split(".")[-1]
    assert outcome(strided) == outcome(torch)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mean_of_complex_in_a_real_dtype_warns_as_pytorch(dtype: str) -> None:
    # sum(dtype=float) of a complex tensor warns with PyTorch's UserWarning; mean leaked NumPy's
    # ComplexWarning instead
    data = [[1 + 2j, 3 - 1j], [0.5 + 0j, -2 + 7j]]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = strided.tensor(data).mean(dtype=getattr(strided, dtype))
    assert [type(w.message) for w in seen] == [UserWarning]
    assert "discards the imaginary part" in str(seen[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.tensor(data).mean(dtype=getattr(torch, dtype))
    assert got.item() == pytest.approx(want.item())
