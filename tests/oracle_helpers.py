"""Shared oracle helpers: run a call in the peer library (PyTorch or NumPy) and in strided,
and compare what came back, or what was raised.

- :func:`outcome` runs a call and returns ``(result, None)`` or ``(None, exception)``.
- :func:`builtin_class` names the builtin class an error is (the class the peers raise).
- :func:`errors_agree` checks two outcomes' exceptions: both raised alike, or neither raised.
- :func:`assert_same_tensor` checks a strided result against PyTorch's: shape, dtype, strides, values.
- :func:`assert_same_bits` checks a float32 / float64 strided result against PyTorch's: shape, dtype,
  strides and every bit (NaN payloads and signs included).
- :func:`compare` checks a torch call and a strided call side by side: the same error (class,
  first line, and a detail line after it) or the same shape, dtype, strides and values.
- :func:`same_error` asserts that both calls raise, with the same class and first line.
- :func:`case` names the case of a loop a failure (or an unexpected error) came from.
"""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
import pytest

import strided as st

BUILTINS = (IndexError, NotImplementedError, TypeError, ValueError, RuntimeError)


def builtin_class(exc: BaseException) -> type:
    """The first of :data:`BUILTINS` that ``exc`` is an instance of (the most specific first),
    or ``exc``'s own class when it is none of them."""
    return next((c for c in BUILTINS if isinstance(exc, c)), type(exc))


def outcome(fn: Callable[[], Any]) -> tuple[Any, BaseException | None]:
    """``(fn(), None)``, or ``(None, the exception)``; warnings are silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(), None
        except Exception as exc:  # noqa: BLE001 - the oracle compares whatever is raised
            return None, exc


def errors_agree(t_exc: BaseException | None, s_exc: BaseException | None, *, type_error_line: bool = True,
                 detail: bool = True) -> bool:
    """Neither raised (returns False), or both did (returns True) with the same builtin class,
    strided's a StridedError, the same first line (``type_error_line=False``: not compared for a
    TypeError, whose first line PyTorch's argument parser writes) and, with ``detail``, a detail
    line after it."""
    assert (t_exc is None) == (s_exc is None), f"torch: {t_exc!r}\nstrided: {s_exc!r}"
    if t_exc is None:
        return False
    assert builtin_class(s_exc) is builtin_class(t_exc), f"torch: {t_exc!r}\nstrided: {s_exc!r}"
    assert isinstance(s_exc, st.StridedError)
    if type_error_line or not isinstance(t_exc, TypeError):
        assert str(s_exc).splitlines()[0] == str(t_exc).splitlines()[0]
    if detail:
        assert len(str(s_exc).splitlines()) >= 2, f"a detail line follows the first: {s_exc}"
    return True


def compare(fn_t: Callable[[], Any], fn_s: Callable[[], Any], tol: Mapping[str, tuple[float, float]]) -> None:
    """torch and strided agree: both raise (same builtin class, same first line, and strided adds
    a detail line), or both return tensors of one shape, dtype and strides whose values agree
    within ``tol[dtype] = (rtol, atol)`` for floats and exactly otherwise."""
    tr, te = outcome(fn_t)
    sr, se = outcome(fn_s)
    if errors_agree(te, se):
        return
    assert_same_tensor(sr, tr, tol)


def assert_same_tensor(s: Any, t: Any, tol: Mapping[str, tuple[float, float]], *, strides: bool = True,
                exact: bool = False, scale: float = 1.0) -> None:
    """``s`` is a strided tensor of ``t``'s shape, dtype, strides (unless ``strides=False``) and
    values: floats within ``tol[dtype] = (rtol, atol)`` times ``scale`` (unless ``exact``), NaN
    equal to NaN; other dtypes exactly."""
    assert isinstance(s, st.Tensor), s
    assert s.shape == tuple(t.shape)
    assert s.dtype.name == str(t.dtype).removeprefix("torch.")
    if strides:
        assert s.stride() == t.stride(), (s.stride(), t.stride(), s.shape)
    # a complex result is compared as floats of its parts' dtype (PyTorch's vectorised complex
    # division, e.g. sgn's z / |z|, rounds the last bit differently from NumPy's, and differently
    # for short and long inputs)
    real = {"complex64": "float32", "complex128": "float64"}.get(s.dtype.name, s.dtype.name)
    if (s.dtype.is_floating_point or real in tol) and not exact:
        rtol, atol = tol[real]
        np.testing.assert_allclose(s.numpy(), t.numpy(), rtol=rtol * scale, atol=atol * scale, equal_nan=True)
    else:
        np.testing.assert_array_equal(s.numpy(), t.numpy())


def float_bits(a: np.ndarray) -> np.ndarray:
    """A float32 / float64 array's words (uint32 / uint64), C-contiguous."""
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def assert_same_bits(got: Any, want: Any) -> None:
    """Shape, strides, dtype and every bit (NaN payloads and signs included) of a float32 / float64
    strided tensor ``got`` equal to torch's ``want``."""
    g, w = got.numpy(), want.numpy()
    assert g.dtype == w.dtype and g.shape == w.shape
    assert tuple(got.stride()) == tuple(want.stride())
    bad = float_bits(g) != float_bits(w)
    assert not bad.any(), (np.ascontiguousarray(g)[bad][:4], np.ascontiguousarray(w)[bad][:4])


def same_error(peer_call: Callable[[], Any], strided_call: Callable[[], Any], first_line: bool = True) -> str:
    """Both calls fail; strided's error is a StridedError of the peer's class (and, with
    ``first_line``, has the peer's first line). Returns strided's text."""
    with pytest.raises(Exception) as p_info:
        peer_call()
    with pytest.raises(Exception) as s_info:
        strided_call()
    assert isinstance(s_info.value, st.StridedError), s_info.value
    assert isinstance(s_info.value, type(p_info.value)), (s_info.value, p_info.value)
    text = str(s_info.value)
    if first_line:
        assert text.splitlines()[0] == str(p_info.value).splitlines()[0]
    return text


def stable_id(value: object) -> str:
    """A parametrize id that is the same in every process (``repr`` of a plain ``object()`` holds
    its address, which would make parallel workers collect different test names)."""
    return re.sub(r" at 0x[0-9a-f]+", "", repr(value))


@contextlib.contextmanager
def op_records() -> Iterator[list]:
    """The op records (:class:`strided.dispatch.OpRecord`) the block's ops report, in order."""
    records: list = []
    with st.dispatch.listen(records.append):
        yield records


@contextlib.contextmanager
def case(*what: object, **named: object) -> Iterator[None]:
    """Name the loop case a failure in the block came from: an exception leaving the block (a failed
    assert, an unexpected error) gets the note ``case: ...`` with ``what`` and ``named`` (their
    reprs), which pytest prints under the error. For tests that loop over cases that were once
    parametrized one test each (the per-test overhead of ~26,000 tests was a third of the suite's
    time): the loop stops at the first failing case and says which it is.

    Example::

        for dtype in DTYPES:
            with case(op, dtype=dtype):
                assert f(dtype) == g(dtype)
    """
    try:
        yield
    except BaseException as e:
        parts = [repr(w) for w in what] + [f"{k}={v!r}" for k, v in named.items()]
        e.add_note("case: " + ", ".join(parts))
        raise
