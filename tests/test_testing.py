"""strided.testing.assert_close against torch.testing.assert_close: the same verdict, exception
class and message text (numbers to the last digit) for a table of cases, with the tensors'
names for shapes and dtypes the one difference (strided's shape is a tuple)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

import strided

NAN, INF = float("nan"), float("inf")

CASES = {
    "close": lambda m: ((m.tensor([1.0, 2.0]), m.tensor([1.0, 2.000001])), {}),
    "not_close": lambda m: ((m.tensor([1.0, 2.0, 3.0]), m.tensor([1.0, 2.5, 3.0])), {}),
    "ints_not_equal": lambda m: ((m.tensor([1, 2]), m.tensor([1, 3])), {}),
    "bool_not_equal": lambda m: ((m.tensor([True, False]), m.tensor([True, True])), {}),
    "zero_d": lambda m: ((m.tensor(1.5), m.tensor(1.0)), {}),
    "expected_zero": lambda m: ((m.tensor([1.0, 0.0]), m.tensor([1.0, 1e-3])), {}),
    "float64": lambda m: ((m.tensor([1.0, 2.0], dtype=m.float64), m.tensor([1.0, 2.0000001], dtype=m.float64)), {}),
    "float16": lambda m: ((m.tensor([1.0, 2.0], dtype=m.float16), m.tensor([1.0, 2.01], dtype=m.float16)), {}),
    "complex": lambda m: ((m.tensor([1 + 1j, 2j]), m.tensor([1 + 1j, 2.5j])), {}),
    "transposed_2d": lambda m: ((m.tensor([[1.0, 2.0], [3.0, 4.0]]).t(), m.tensor([[1.0, 3.0], [2.0, 5.0]])), {}),
    "expanded": lambda m: ((m.tensor([1.0, 2.0]).expand(3, 2), m.tensor([[1.0, 2.0]] * 2 + [[1.0, 2.1]])), {}),
    "empty": lambda m: ((m.zeros(0, 3), m.zeros(0, 3)), {}),
    "nan_unequal": lambda m: ((m.tensor([NAN, 1.0]), m.tensor([NAN, 2.0])), {}),
    "nan_equal": lambda m: ((m.tensor([NAN, 1.0]), m.tensor([NAN, 1.0])), {"equal_nan": True}),
    "inf": lambda m: ((m.tensor([INF, 1.0]), m.tensor([INF, 1.0])), {}),
    "inf_sign": lambda m: ((m.tensor([INF, 1.0]), m.tensor([-INF, 1.0])), {}),
    "own_tolerances": lambda m: ((m.tensor([1.0, 2.0]), m.tensor([1.0, 2.1])), {"rtol": 0.0, "atol": 0.2}),
    "own_tolerances_fail": lambda m: ((m.tensor([1.0, 2.0]), m.tensor([1.0, 2.1])), {"rtol": 0.01, "atol": 0.0}),
    "only_rtol": lambda m: ((m.tensor([1.0]), m.tensor([1.0])), {"rtol": 0.0}),
    "mixed_dtypes_unchecked": lambda m: ((m.tensor([1, 2], dtype=m.int32), m.tensor([1.0, 2.5])), {"check_dtype": False}),
    "mixed_dtypes_close": lambda m: ((m.tensor([1, 2], dtype=m.int32), m.tensor([1.0, 2.0])), {"check_dtype": False}),
    "stride_checked_ok": lambda m: ((m.zeros(2, 3), m.zeros(2, 3)), {"check_stride": True}),
    "msg_str": lambda m: ((m.tensor([1.0]), m.tensor([2.0])), {"msg": "custom"}),
    "msg_callable": lambda m: ((m.tensor([1.0]), m.tensor([2.0])), {"msg": lambda s: "X" + s[:12]}),
    "numbers_close": lambda m: ((1.0, 1.0 + 1e-9), {}),
    "numbers_not_close": lambda m: ((1.5, 1.0), {}),
    "ints": lambda m: ((1, 2), {}),
    "int_vs_float": lambda m: ((1, 1.0), {}),
    "int_vs_float_unchecked": lambda m: ((1, 1.0), {"check_dtype": False}),
    "bools": lambda m: ((True, False), {}),
    "none": lambda m: ((None, 1), {}),
    "sequence": lambda m: (([m.tensor([1.0]), 2], [m.tensor([2.0]), 2]), {}),
    "sequence_length": lambda m: (([1, 2], [1]), {}),
    "nested_mapping": lambda m: (({"a": [1, m.tensor([1.0])]}, {"a": [1, m.tensor([1.5])]}), {}),
    "mapping_keys": lambda m: (({"a": 1}, {"b": 1}), {}),
    "tensor_vs_number": lambda m: ((m.tensor([1.0]), 1.0), {}),
    "strings": lambda m: (("a", "b"), {}),
    "numpy_arrays": lambda m: ((np.array([1.0, 2.0]), np.array([1.0, 2.5])), {}),
    "numpy_arrays_close": lambda m: ((np.array([1, 2], dtype=np.int32), np.array([1, 2], dtype=np.int32)), {}),
    "numpy_vs_tensor": lambda m: ((np.array([1.0]), m.tensor([1.0])), {}),
}



def _builtin(cls: type) -> str:
    return next(c.__name__ for c in cls.__mro__ if c.__module__ == "builtins")


@pytest.mark.parametrize("case", sorted(CASES))
def test_assert_close_as_torchs(case):
    outcomes = []
    for m in (strided, torch):
        (actual, expected), options = CASES[case](m)
        try:
            m.testing.assert_close(actual, expected, **options)
            outcomes.append(None)
        except Exception as e:  # noqa: BLE001 - the class is compared
            outcomes.append((_builtin(type(e)), str(e).replace("torch.Tensor", "strided.tensor.Tensor")))
    assert outcomes[0] == outcomes[1]


def test_attribute_mismatches_name_the_attribute():
    cases = [((strided.zeros(1), strided.zeros(2)), {}, "The values for attribute 'shape' do not match: (1,) != (2,)."),
             ((strided.zeros(1), strided.zeros(1, dtype=strided.float64)), {},
              "The values for attribute 'dtype' do not match: strided.float32 != strided.float64."),
             ((strided.zeros(2, 3).t(), strided.zeros(3, 2)), {"check_stride": True},
              "The values for attribute 'stride()' do not match: (1, 3) != (2, 1).")]
    for (actual, expected), options, text in cases:
        with pytest.raises(AssertionError) as caught:
            strided.testing.assert_close(actual, expected, **options)
        assert str(caught.value) == text
        theirs = (torch.tensor(actual.numpy()).as_strided(actual.shape, actual.stride()),
                  torch.tensor(expected.numpy()).as_strided(expected.shape, expected.stride()))
        with pytest.raises(AssertionError, match="^The values for attribute"):
            torch.testing.assert_close(*theirs, **options)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_default_tolerances_are_torchs_at_the_boundary(dtype):
    """Just inside and just outside the default tolerance of each dtype: the same verdicts."""
    rtol, atol = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}[dtype]
    base = np.array([1.0, 100.0, 0.0, -3.0])
    for factor in (0.5, 2.0):
        shifted = base + factor * (atol + rtol * np.abs(base))
        verdicts = []
        for m in (strided, torch):
            try:
                m.testing.assert_close(m.tensor(shifted, dtype=getattr(m, dtype)), m.tensor(base, dtype=getattr(m, dtype)))
                verdicts.append("close")
            except AssertionError as e:
                verdicts.append(str(e))
        assert verdicts[0] == verdicts[1]


def test_python_m_strided_runs_the_command_line():
    run = subprocess.run([sys.executable, "-m", "strided", "--version"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.startswith("strided ")
