"""Shared oracle helpers: run a call in the peer library (PyTorch or NumPy) and in strided,
and compare what came back, or what was raised.

- :func:`outcome` runs a call and returns ``(result, None)`` or ``(None, exception)``.
- :func:`builtin_class` names the builtin class an error is (the class the peers raise).
- :func:`compare` checks a torch call and a strided call side by side: the same error (class,
  first line, and a detail line after it) or the same shape, dtype, strides and values.
- :func:`same_error` asserts that both calls raise, with the same class and first line.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
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


def compare(fn_t: Callable[[], Any], fn_s: Callable[[], Any], tol: Mapping[str, tuple[float, float]]) -> None:
    """torch and strided agree: both raise (same builtin class, same first line, and strided adds
    a detail line), or both return tensors of one shape, dtype and strides whose values agree
    within ``tol[dtype] = (rtol, atol)`` for floats and exactly otherwise."""
    tr, te = outcome(fn_t)
    sr, se = outcome(fn_s)
    assert (te is None) == (se is None), f"torch: {te!r}\nstrided: {se!r}"
    if te is not None:
        assert builtin_class(se) is builtin_class(te), f"torch: {te!r}\nstrided: {se!r}"
        assert isinstance(se, st.StridedError)
        assert str(se).splitlines()[0] == str(te).splitlines()[0]
        assert len(str(se).splitlines()) >= 2, "a detail line follows the first"
        return
    assert sr.shape == tuple(tr.shape)
    assert sr.dtype.name == str(tr.dtype).removeprefix("torch.")
    assert sr.stride() == tr.stride()
    if sr.dtype.is_floating_point:
        rtol, atol = tol[sr.dtype.name]
        np.testing.assert_allclose(sr.numpy(), tr.numpy(), rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(sr.numpy(), tr.numpy())


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
