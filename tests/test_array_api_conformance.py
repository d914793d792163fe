"""What array-api-tests (tools/array_api_tests.sh) found, pinned down here: the namespace functions
follow the standard where the Tensor's operators keep PyTorch 2.13's rules.

- ``floor_divide`` with an infinite operand: the namespace function gives the standard's
  ``floor(x1 / x2)`` (``+-inf``, ``-0``), the ``//`` operator what torch computes (NaN, ``-1``).
- uint16/32/64 mixes: the namespace's ``outer``, ``cross``, ``concat``, ``where`` and ``pow``
  promote by the standard's table (NumPy's answer), while the operators the suite uses to check
  them (``x1[i] * x2[j]``, ``a - b``, ``x == y``, ``x >= 0``) refuse exactly as torch refuses.
- ``1 ** x`` on a uint16/32/64 tensor: ones, as torch's ``pow(Scalar 1, Tensor)`` shortcut.
"""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest
import torch

import strided
import strided.array_api as xp

INF = math.inf

# The suite's floor_divide special cases (array-api-tests at 55fcc60, test_special_cases.py):
# (x1, x2, the standard's result). A zero result's sign is part of the rule.
FLOOR_DIVIDE_CASES = [
    (math.nan, 2.0, math.nan), (2.0, math.nan, math.nan),
    (INF, -INF, math.nan), (-INF, INF, math.nan), (0.0, -0.0, math.nan), (-0.0, 0.0, math.nan),
    (0.0, 3.0, 0.0), (-0.0, 3.0, -0.0), (0.0, -3.0, -0.0), (-0.0, -3.0, 0.0),
    (2.0, 0.0, INF), (2.0, -0.0, -INF), (-2.0, 0.0, -INF), (-2.0, -0.0, INF),
    (INF, 3.0, INF), (INF, -3.0, -INF), (-INF, 3.0, -INF), (-INF, -3.0, INF),
    (2.0, INF, 0.0), (2.0, -INF, -0.0), (-2.0, INF, -0.0), (-2.0, -INF, 0.0),
    (7.0, 2.0, 3.0), (-7.0, -2.0, 3.0), (-7.0, 2.0, -4.0), (7.0, -2.0, -4.0),
]


def _same_bits(got: list[float], want: list[float]) -> bool:
    """Equal values, NaN equal to NaN, and the sign of each zero (and NaN) kept."""
    return all((math.isnan(g) and math.isnan(w)) or (g == w and math.copysign(1, g) == math.copysign(1, w))
               for g, w in zip(got, want, strict=True))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_floor_divide_function_follows_the_standard_and_the_operator_torch(dtype):
    x1 = [c[0] for c in FLOOR_DIVIDE_CASES]
    x2 = [c[1] for c in FLOOR_DIVIDE_CASES]
    want = [c[2] for c in FLOOR_DIVIDE_CASES]
    a, b = strided.tensor(x1, dtype=getattr(strided, dtype)), strided.tensor(x2, dtype=getattr(strided, dtype))
    got = xp.floor_divide(a, b)
    assert got.dtype == a.dtype and _same_bits(got.tolist(), want)
    # a transposed, stepped operand and a Python scalar divisor go the same way
    pairs = strided.stack([a, b]).t()[::-1]
    assert _same_bits(xp.floor_divide(pairs[:, 0], pairs[:, 1]).tolist(), want[::-1])
    assert _same_bits(xp.floor_divide(a[14:18], 3.0).tolist(), [INF, INF, -INF, -INF])
    # the operator keeps torch's numbers: NaN for an infinite dividend, -1 for 2 // -inf
    ta, tb = torch.tensor(x1, dtype=getattr(torch, dtype)), torch.tensor(x2, dtype=getattr(torch, dtype))
    assert _same_bits((a // b).tolist(), (ta // tb).tolist())
    c = a.clone()
    c //= b
    assert _same_bits(c.tolist(), (ta // tb).tolist())
    assert not _same_bits((a // b).tolist(), want)  # (the difference the skip list names)


def _refusal(f):
    with pytest.raises(Exception) as info:
        f()
    builtin = next(c for c in type(info.value).__mro__ if c.__module__ == "builtins")
    return builtin, str(info.value).splitlines()[0]


def _both(fn, *values_dtypes):
    s = [strided.tensor(v, dtype=getattr(strided, d)) for v, d in values_dtypes]
    t = [torch.tensor(v, dtype=getattr(torch, d)) for v, d in values_dtypes]
    return fn(*s), fn(*t)


@pytest.mark.parametrize(("d1", "d2"), [("uint8", "uint16"), ("uint16", "uint64"), ("int8", "uint32"),
                                        ("uint16", "uint16")])
def test_namespace_functions_promote_unsigned_mixes_by_the_standard(d1, d2):
    v1, v2 = [1, 2, 3], [4, 0, 6]
    s1, s2 = xp.asarray(v1, dtype=getattr(xp, d1)), xp.asarray(v2, dtype=getattr(xp, d2))
    n1, n2 = np.asarray(v1, dtype=d1), np.asarray(v2, dtype=d2)
    checks = [
        (xp.linalg.outer(s1, s2), np.outer(n1, n2)),
        (xp.linalg.cross(s1, s2), np.cross(n1, n2)),
        (xp.concat([s1, s2[::-1]]), np.concatenate([n1, n2[::-1]])),
        (xp.where(xp.asarray([True, False, True]), s1, s2), np.where([True, False, True], n1, n2)),
        (xp.pow(s1, s2), np.power(n1, n2)),
        (xp.greater_equal(s2, 0), np.greater_equal(n2, 0)),
        (xp.diff(s2[::-1]), np.diff(n2[::-1])),
        (xp.stack([s1, s2], axis=1), np.stack([n1, n2], axis=1)),
    ]
    for got, want in checks:
        assert got.dtype.numpy == want.dtype
        np.testing.assert_array_equal(got.numpy(), want)
    # ... while the operators the suite checks them with keep torch's refusals (its class and text)
    for op in (operator.mul, operator.sub, operator.eq, operator.ge):
        if (d1, d2) == ("uint16", "uint16") and op in (operator.mul, operator.eq):
            continue  # torch has these two kernels for uint16
        s_err = _refusal(lambda op=op: op(*_both(lambda *x: x, (v1, d1), (v2, d2))[0]))
        t_err = _refusal(lambda op=op: op(*_both(lambda *x: x, (v1, d1), (v2, d2))[1]))
        assert s_err == t_err, op


@pytest.mark.parametrize("dt", ["uint16", "uint32", "uint64"])
def test_one_to_the_power_of_a_wide_unsigned_tensor(dt):
    """torch.pow(1, x) fills ones without a pow kernel (uint16/32/64 have none): ``1 ** x`` and
    ``1.0 ** x`` compute there, ``2 ** x`` and ``True ** x`` are refused as torch refuses them."""
    x = strided.tensor([[3, 0, 5]], dtype=getattr(strided, dt)).t()
    tx = torch.tensor([[3, 0, 5]], dtype=getattr(torch, dt)).t()
    for base in (1, 1.0):
        got, want = base ** x, base ** tx
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        assert got.tolist() == want.tolist() and got.shape == tuple(want.shape)
        assert strided.pow(base, x).tolist() == torch.pow(base, tx).tolist()
    for base in (2, True):
        assert _refusal(lambda b=base: b ** x) == _refusal(lambda b=base: b ** tx)


def test_a_mask_with_a_zero_size_dim_is_refused_as_torch_refuses_it():
    """array-api-tests accepts a bool mask whose dim is 0 over a nonzero dim (NumPy selects
    nothing); the Tensor's indexing keeps torch's IndexError and its text."""
    for shape, mask in (((1,), (0,)), ((2, 3), (2, 0))):
        got = _refusal(lambda s=shape, m=mask: strided.zeros(*s)[strided.ones(*m, dtype=strided.bool)])
        want = _refusal(lambda s=shape, m=mask: torch.zeros(*s)[torch.ones(*m, dtype=torch.bool)])
        assert got == want and got[0] is IndexError


def test_remainder_zero_takes_the_dividends_sign_as_torchs_and_the_standards_in_the_namespace():
    """(found by the suite's run) NumPy gives a zero remainder the divisor's sign, PyTorch the
    dividend's (fmod's): ``3.0 % -1.0`` is 0.0 in torch. The Tensor op is PyTorch's; the
    namespace's ``remainder`` keeps the standard's (Python's, NumPy's) rule."""
    a = [3.0, -3.0, 3.0, -3.0, 0.0, -0.0, 5.5, float("inf"), 2.0, -2.0, 7.25, -4.0]
    b = [-1.0, 1.0, 1.0, -1.0, -2.0, 2.0, 0.0, 2.0, float("inf"), float("inf"), -2.0, 0.5]

    def same(t, s):
        t, s = np.asarray(t.tolist()), np.asarray(s.tolist())
        numbers = ~np.isnan(t)  # (a NaN's sign bit is no part of its value)
        assert np.array_equal(np.signbit(t[numbers]), np.signbit(s[numbers])) and np.allclose(t, s, equal_nan=True)

    for dt in ("float32", "float64", "float16"):
        ta, tb = torch.tensor(a, dtype=getattr(torch, dt)), torch.tensor(b, dtype=getattr(torch, dt))
        sa, sb = strided.tensor(a, dtype=getattr(strided, dt)), strided.tensor(b, dtype=getattr(strided, dt))
        same(torch.remainder(ta, tb), strided.remainder(sa, sb))
        same(ta[::2] % -1.0, sa[::2] % -1.0)
        same(-2.0 % tb, -2.0 % sb)
        x = sa.clone()
        x %= -1.0
        same(ta % -1.0, x)
    same(torch.tensor([3, -3]) % torch.tensor(-1.0), strided.tensor([3, -3]) % strided.tensor(-1.0))
    r = xp.remainder(xp.asarray([3.0, -3.0]), xp.asarray([-1.0, 1.0]))
    assert np.signbit(np.asarray(r.tolist())).tolist() == [True, False]  # the standard: the divisor's sign
