"""histc's compiled count (kernels/_rowkernel.c histc, rows.histc_count) and its data range
(rows.extreme_all): PyTorch's bits, and the NumPy path's (native.disabled) on every input."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native, rows

NATIVE = rows.histc_count() is not None
if not NATIVE and os.environ.get("STRIDED_REQUIRE_NATIVE") == "1":
    raise RuntimeError("STRIDED_REQUIRE_NATIVE=1 but the row kernel has no histc")

SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, 3.0, -3.0, 1e-40, -1e-45, 5e-324, 0.1, 0.3, 1.0 / 3, 2.0 / 3]


def _inputs(dtype):
    rng = np.random.default_rng(11)
    with np.errstate(all="ignore"):
        yield np.array(SPECIAL, dtype=dtype).reshape(2, 7)
        yield rng.normal(size=(16, 16)).astype(dtype)
        yield rng.integers(-4, 5, size=(3, 4)).astype(dtype)  # (values on the edges)
        yield np.full((3, 4), 7.25, dtype=dtype)  # (one value: the range widened by 1)
        yield np.array([[1.0, np.nan, np.inf, -np.inf, 2.0, 0.5]], dtype=dtype)
        yield np.zeros((0, 3), dtype=dtype)


def _both(fn):
    """fn() with the compiled paths and without (the result, or the error's type and text)."""
    out = []
    for ctx in (None, native.disabled):
        try:
            if ctx is None:
                r = fn()
            else:
                with ctx():
                    r = fn()
            out.append((r.dtype, r._np().tobytes()))
        except Exception as e:  # noqa: BLE001 (compared, never swallowed)
            out.append((type(e).__name__, str(e)))
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_histc_torch_bits_and_fallback(dtype):
    for v in _inputs(dtype):
        for bins, lo, hi in ((100, 0, 0), (7, 0, 0), (5, -2, 2), (3, 0.1, 0.3), (4, 1.0 / 3, 2.0 / 3), (1, -1, 1),
                             (10, -1e-30, 1e-30), (6, 2.5, 2.5)):
            for view in (lambda t: t, lambda t: t.T, lambda t: t.flatten()[::2]):
                tv = view(torch.from_numpy(v.copy()))
                sv = view(st.tensor(v))
                try:
                    want = torch.histc(tv, bins=bins, min=lo, max=hi)
                except RuntimeError:
                    want = None
                got = _both(lambda sv=sv, bins=bins, lo=lo, hi=hi: st.histc(sv, bins=bins, min=lo, max=hi))
                assert got[0] == got[1], (v, bins, lo, hi)
                if want is None:
                    assert got[0][0] == "StridedRuntimeError"
                else:
                    assert got[0] == (sv.dtype, want.numpy().tobytes()), (v, bins, lo, hi)
    assert _both(lambda: st.tensor(v).histc(4)) == _both(lambda: st.histc(st.tensor(v), 4))


def test_histc_kernel_refuses_what_it_cannot_count():
    k = rows.histc_count()
    if k is None:
        pytest.skip("no compiled histc")
    out = np.full(3, -1.0, np.float32)
    assert not k(np.zeros(4, np.float64), out, 0.0, 1.0)  # (two dtypes)
    assert not k(np.array([-3e38, 3e38], np.float32), out, -3e38, 3e38)  # (hi - lo overflows float32)
    assert (out == -1.0).all()
    assert k(np.array([0.0, 0.5, 1.0, 2.0, np.nan], np.float32), out, 0.0, 1.0)
    assert out.tolist() == [1.0, 1.0, 1.0]
    big = np.array([-3e38, 3e38], np.float32)  # (the NumPy path's own answer where the kernel refuses)
    with np.errstate(all="ignore"):
        assert _both(lambda: st.histc(st.tensor(big), bins=4, min=-3e38, max=3e38))[0] == \
            _both(lambda: st.histc(st.tensor(big), bins=4, min=-3e38, max=3e38))[1]


def test_histc_bins_is_an_int_as_pytorch_parses_it():
    x = np.array([[0.25, 0.5], [1.0, 2.0]], dtype=np.float32)
    for bins in (5, np.int64(5), torch.tensor(5)):
        sb = st.tensor(5) if isinstance(bins, torch.Tensor) else bins
        assert st.histc(st.tensor(x), sb).tolist() == torch.histc(torch.from_numpy(x), bins).tolist()
    for bins, sb in ((torch.rand(1, 1), st.rand(1, 1)), (5.0, 5.0), (True, True), (torch.tensor([[5]]), st.tensor([[5]]))):
        with pytest.raises(TypeError) as want:
            torch.histc(torch.from_numpy(x), bins)
        with pytest.raises(TypeError) as got:
            st.histc(st.tensor(x), sb)
        assert str(got.value).splitlines()[0] == str(want.value)
