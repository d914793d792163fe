"""Red team of the wave that landed NumPy's axis=/keepdims= aliases, detach() as its own root,
the legacy tensor classes and remainder's sign of zero: each test is a finding, differential
against PyTorch (signs of zero compared bit for bit)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st

# dividends and divisors whose remainders are zeros of either sign, and nonzero ones
_VALS = [0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 2.5, -2.5, 6.0, -6.0, float("inf"), float("nan")]


def _bits(t: torch.Tensor) -> tuple[list, list]:
    """Values and sign bits of a tensor read through float32 (a NaN as None: its sign bit is no
    part of either library's contract)."""
    a = t.detach().float().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.float().tolist(), np.float32)
    a = a.ravel()
    return ([None if np.isnan(v) else float(v) for v in a],
            [None if np.isnan(v) else bool(np.signbit(v)) for v in a])


def _pair(dtype: str) -> tuple[tuple[torch.Tensor, torch.Tensor], tuple[st.Tensor, st.Tensor]]:
    a, b = np.meshgrid(np.array(_VALS), np.array(_VALS))
    td, sd = getattr(torch, dtype), getattr(st, dtype)
    return ((torch.tensor(a).to(td), torch.tensor(b).to(td)),
            (st.tensor(a.tolist()).to(sd), st.tensor(b.tolist()).to(sd)))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32", "float64"])
def test_remainder_zero_sign_every_float_dtype(dtype: str) -> None:
    """Finding: the zero-sign mend tested ``dtype.kind == "f"``, which bfloat16 (ml_dtypes, kind
    'V') is not, so bfloat16 kept NumPy's sign (``remainder(3, -1)`` was -0.0, PyTorch 0.0)."""
    (ta, tb), (sa, sb) = _pair(dtype)
    assert _bits(sa % sb) == _bits(ta % tb)
    assert _bits(st.remainder(sa.t(), sb.t())) == _bits(torch.remainder(ta.t(), tb.t()))
    assert _bits(sa % -2.0) == _bits(ta % -2.0)
    assert _bits(3 % sb) == _bits(3 % tb)
    out_t, out_s = torch.empty_like(ta), st.empty_like(sa)
    torch.remainder(ta, tb, out=out_t)
    st.remainder(sa, sb, out=out_s)
    assert _bits(out_s) == _bits(out_t)
    ti, si = ta.clone(), sa.clone()
    ti.remainder_(tb[:1])
    si.remainder_(sb[:1])
    assert _bits(si) == _bits(ti)


def test_remainder_zero_sign_bfloat16_tiled() -> None:
    """The same on a transposed input large enough for the tiled path."""
    rs = np.random.RandomState(1)
    a = np.round(rs.randn(96, 80) * 4)
    a[::3] = -0.0
    b = np.where(rs.rand(96, 80) < 0.5, -1.0, 2.0)
    ta, tb = torch.tensor(a).to(torch.bfloat16).t(), torch.tensor(b).to(torch.bfloat16).t()
    sa, sb = st.tensor(a.tolist()).to(st.bfloat16).t(), st.tensor(b.tolist()).to(st.bfloat16).t()
    assert _bits(sa % sb) == _bits(ta % tb)
