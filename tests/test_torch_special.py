"""PyTorch's own special-function code, bit for bit: i0, special.i1, special.i0e, special.i1e
(its Cephes Chebyshev expansions in the tensor's own type, float32 with its shorter float tables),
digamma, polygamma(1) (trigamma) and polygamma(n >= 2) (calc_digamma, trigamma, zeta), fused as
its AVX2/AVX-512 build fuses them (including the first Chebyshev step GCC folds into one fma).
Without the compiled kernel (STRIDED_NATIVE=0) the NumPy formulas agree to a few ulps."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import torch

import fresh_runs
import strided as st
from oracle_helpers import case
from strided.kernels import native

NAMES = ["i0", "i1", "i0e", "i1e"]
_rng = np.random.default_rng(23)
VALUES = np.concatenate([
    _rng.uniform(-10, 10, 4000), _rng.uniform(-100, 100, 2000), _rng.uniform(-1, 1, 2000),
    _rng.uniform(-720, 720, 500), np.ldexp(_rng.uniform(-1, 1, 200), _rng.integers(-150, 0, 200)),
    [0.0, -0.0, np.inf, -np.inf, np.nan, 8.0, -8.0, np.nextafter(8.0, 9), 88.0, 89.0, -89.0, 709.0, 710.0]])

pytestmark = pytest.mark.skipif(native.special() is None, reason="needs the compiled kernel (no compiler here)")


def _call(lib, name, t):
    return getattr(lib.special, name)(t)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view({4: np.uint32, 8: np.uint64, 2: np.uint16}[a.dtype.itemsize])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
def test_bits_are_pytorchs(name, dtype, layout):
    x = np.resize(VALUES.astype(dtype), (64, 159))  # (repeated to fill: every value in every layout)
    views = {"contiguous": lambda t: t, "transposed": lambda t: t.t(), "strided": lambda t: t[::2, 1::3]}
    ours = _call(st, name, views[layout](st.tensor(x)))
    theirs = _call(torch, name, views[layout](torch.from_numpy(x.copy())))
    assert ours.dtype.name == str(theirs.dtype).split(".")[1] and ours.stride() == theirs.stride()
    np.testing.assert_array_equal(_bits(np.asarray(ours)), _bits(theirs.numpy()))


@pytest.mark.parametrize("name", NAMES)
def test_integer_half_inplace_and_out_forms(name):
    ints = np.arange(-20, 21, dtype=np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(_bits(np.asarray(_call(st, name, st.tensor(ints)))),
                                      _bits(_call(torch, name, torch.from_numpy(ints)).numpy()))
    x = VALUES[:500].astype(np.float32)
    for sdt, tdt in ((st.float16, torch.float16), (st.bfloat16, torch.bfloat16)):  # (computed in float)
        if name == "i0e":
            # PyTorch's half i0e computes in float in its vectorized body but in half precision, op by
            # op, in its scalar loop (the tail of a contiguous run, every element of a strided one):
            # its bits depend on the position; strided's are the body's everywhere.
            continue
        try:
            want = _call(torch, name, torch.from_numpy(x).to(tdt)).float().numpy()
        except RuntimeError:
            continue  # (PyTorch has no half kernel for this one: strided's refusal is tested elsewhere)
        got = np.asarray(_call(st, name, st.tensor(x).to(sdt)).float())
        np.testing.assert_array_equal(_bits(got), _bits(want))
    out = st.empty(500, dtype=st.float64)
    getattr(st.special, name)(st.tensor(x.astype(np.float64)), out=out)
    np.testing.assert_array_equal(_bits(np.asarray(out)), _bits(_call(torch, name, torch.from_numpy(x.astype(np.float64))).numpy()))
    if name == "i0":
        t = st.tensor(x)
        t.i0_()  # (in place: the kernel reads and writes one buffer)
        np.testing.assert_array_equal(_bits(np.asarray(t)), _bits(torch.from_numpy(x.copy()).i0_().numpy()))
        m = x[:480].reshape(16, 30)
        t, tt = st.tensor(m).t(), torch.from_numpy(m.copy()).t()  # (column-major, in place)
        t.i0_()
        tt.i0_()
        np.testing.assert_array_equal(_bits(np.asarray(t)), _bits(tt.numpy()))


@pytest.mark.parametrize("name", NAMES)
def test_without_the_compiled_kernel_the_formulas_are_within_a_few_ulps(name):
    x = VALUES[np.isfinite(VALUES) & (np.abs(VALUES) < 80)]
    want = _call(torch, name, torch.from_numpy(x)).numpy()
    with native.disabled():
        got = np.asarray(_call(st, name, st.tensor(x)))
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-300)


def test_the_entry_refuses_what_it_cannot_compute():
    k = native.special()
    x = np.ones(4)
    assert not k.torch_special(x, np.empty(4, np.float32), 1, 0)  # (one type for both: nothing written)
    with pytest.raises(ValueError, match="which is 0..6"):
        k.torch_special(x, np.empty(4), 7, 0)
    with pytest.raises(ValueError, match="polygamma, n >= 2"):
        k.torch_special(x, np.empty(4), 6, 1)
    with pytest.raises(TypeError, match="takes 4 arguments"):
        k.torch_special(x)


GAMMA_CALLS = {
    "digamma": lambda lib, t: lib.digamma(t),
    "polygamma1": lambda lib, t: lib.polygamma(1, t),
    "polygamma2": lambda lib, t: lib.polygamma(2, t),
    "polygamma5": lambda lib, t: lib.polygamma(5, t),
    "digamma_": lambda lib, t: t.digamma_(),
    "polygamma3_": lambda lib, t: t.polygamma_(3),
}
GAMMA_VALUES = np.concatenate([
    _rng.uniform(-20, 20, 3000), _rng.uniform(0, 3, 1500), _rng.uniform(1, 1e6, 500),
    np.ldexp(_rng.uniform(-1, 1, 100), _rng.integers(-140, 0, 100)),
    [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -2.0, 1.0, 10.0, 0.5, 1e17, 1e18, -0.5, -1e-30, -2e5 - 0.3]])


@pytest.mark.parametrize("call", list(GAMMA_CALLS))
def test_digamma_polygamma_bits_are_pytorchs(call):
    for dtype, layout in itertools.product(
            ["float32", "float64"],
            ["contiguous", "transposed", "strided"]):
        with case(dtype=dtype, layout=layout):
            _digamma_polygamma_bits_are_pytorchs(call, dtype, layout)


def _digamma_polygamma_bits_are_pytorchs(call, dtype, layout):
    x = np.resize(GAMMA_VALUES.astype(dtype), (50, 103))
    views = {"contiguous": lambda t: t, "transposed": lambda t: t.t(), "strided": lambda t: t[::2, 1::3]}
    fn = GAMMA_CALLS[call]
    ours = fn(st, views[layout](st.tensor(x)))
    theirs = fn(torch, views[layout](torch.from_numpy(x.copy())))
    assert ours.stride() == theirs.stride()
    np.testing.assert_array_equal(_bits(np.asarray(ours)), _bits(theirs.numpy()))


@pytest.mark.parametrize("call", ["digamma", "polygamma1", "polygamma2"])
def test_digamma_polygamma_without_the_kernel_within_a_few_ulps(call):
    x = GAMMA_VALUES[np.isfinite(GAMMA_VALUES) & (GAMMA_VALUES > -100)]
    want = GAMMA_CALLS[call](torch, torch.from_numpy(x)).numpy()
    with native.disabled():
        got = np.asarray(GAMMA_CALLS[call](st, st.tensor(x)))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-9)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))


def test_the_c_library_fma_copy_gives_the_same_bits():
    """A CPU without FMA instructions runs the kernels' other copy (the C library's fma): the same
    bits (forced here with STRIDED_NATIVE_NO_FMA3, in a fresh process)."""

    script = (
        "import numpy as np, strided as st\n"
        "x = np.random.default_rng(4).uniform(-30, 30, 5000)\n"
        "for dt in ('float32', 'float64'):\n"
        "    t = st.tensor(x.astype(dt))\n"
        "    for r in (st.special.i1(t), st.special.i0e(t), st.special.i1e(t), st.i0(t), st.digamma(t), st.polygamma(1, t),\n"
        "              st.polygamma(3, t)):\n"
        "        print(np.asarray(r).tobytes().hex())\n")
    runs = fresh_runs.outputs(script, {}, {"STRIDED_NATIVE_NO_FMA3": "1"})
    assert runs[0] == runs[1] and len(runs[0]) > 1000
