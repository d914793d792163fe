"""The MKL VML route (strided.kernels.vml_route): float32/float64 ``exp log log10 sqrt sin cos tan
tanh erf erfc erfinv acos asin atan`` with PyTorch's bits (PyTorch's CPU wheel calls the same VML
functions in VML_HA mode), for every layout, size and entry (function, method, out=, in place);
off (``STRIDED_BLAS=openblas``): the previous kernels; ``import strided`` loads no MKL."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided
from strided.kernels import vml_route

pytestmark = pytest.mark.skipif(vml_route.fresh("exp", np.ones(1)) is None,
                                reason="no MKL VML route here (pip mkl not installed, or switched off)")

OPS = vml_route.OPS
DTYPES = [np.float32, np.float64]
_UNIT = ("erfinv", "acos", "asin")  # (domain [-1, 1])
_POSITIVE = ("log", "log10", "sqrt")


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def _same(got: strided.Tensor, want: torch.Tensor) -> None:
    """Shape, strides, dtype and every bit (NaN payloads and signs included) equal."""
    g, w = got.numpy(), want.numpy()
    assert g.dtype == w.dtype and g.shape == w.shape
    assert tuple(got.stride()) == tuple(want.stride())
    bad = _bits(g) != _bits(w)
    assert not bad.any(), (np.ascontiguousarray(g)[bad][:4], np.ascontiguousarray(w)[bad][:4])


def _values(op: str, n: int | tuple, dt: type, rng: np.random.Generator) -> np.ndarray:
    if op in _UNIT:
        return rng.uniform(-1, 1, n).astype(dt)
    if op in _POSITIVE:
        return (10.0 ** rng.uniform(-5, 5, n)).astype(dt)
    return (rng.standard_normal(n) * 10.0 ** rng.uniform(-2, 1.5, n)).astype(dt)


def _specials(dt: type) -> np.ndarray:
    """+-0, +-inf, NaNs with payloads and signs, subnormals, the float extremes, the domain edges,
    huge trig arguments, overflow and underflow of exp."""
    fi = np.finfo(dt)
    big = [1e5, -1e5, 1e8, 1e15, 1e30, -1e30, fi.max, -fi.max]
    edge = [0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 1 - fi.eps, -1 + fi.eps / 2, 1.5, -2.0, 0.5,
            fi.tiny, -fi.tiny, fi.tiny / 4, fi.smallest_subnormal, -fi.smallest_subnormal,
            88.7, 89.0, -103.0, -110.0, 709.7, 710.0, -745.0, -746.0, 26.0, -6.0, 9.0]
    nans = (np.array([0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFFC12345, 0x7F800001], np.uint32).view(np.float32)
            if dt == np.float32 else
            np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000000001, 0xFFF8000000001234,
                      0x7FF0000000000001], np.uint64).view(np.float64))
    return np.concatenate([np.array(big + edge, dt), nans])


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_specials_and_random_bits_equal_torch(op: str, dt: type) -> None:
    """NaN payloads and signs, +-inf, -0.0, subnormal inputs and results, huge arguments, domain
    edges (erfinv(+-1), sqrt/log of negatives, log(0)) and random bit patterns: PyTorch's bits."""
    rng = np.random.default_rng(38)
    it = np.uint32 if dt == np.float32 else np.uint64
    noise = rng.integers(0, np.iinfo(it).max, 4000, dtype=np.uint64).astype(it).view(dt)
    x = np.concatenate([_specials(dt), -_specials(dt), noise, _values(op, 4000, dt, rng)])
    _same(getattr(strided, op)(strided.from_numpy(x.copy())), getattr(torch, op)(torch.from_numpy(x.copy())))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_every_length_and_misaligned_start(op: str, dt: type) -> None:
    """Lengths 0..100 (VML's vector bodies and tails) at offsets 0, 1, 3 of a storage: the same
    elements' bits whatever their place (VML is elementwise)."""
    rng = np.random.default_rng(7)
    base = _values(op, 110, dt, rng)
    for n in range(101):
        for off in (0, 1, 3):
            s = strided.from_numpy(base.copy())[off:off + n]
            t = torch.from_numpy(base.copy())[off:off + n]
            _same(getattr(strided, op)(s), getattr(torch, op)(t))


_LAYOUTS = {
    "contiguous": lambda a: a,
    "transposed": lambda a: a.t(),
    "sliced": lambda a: a[1:, 2:-1],
    "stepped": lambda a: a[::2, 1::3],
    "expanded": lambda a: a[:1].expand(a.shape[0], a.shape[1]),
    "zero_d": lambda a: a[1, 2],
    "empty": lambda a: a[:0],
}


@pytest.mark.parametrize("layout", sorted(_LAYOUTS))
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_layouts_entries_and_small_shapes(op: str, dt: type, layout: str) -> None:
    """Function, method, out= (row-major and transposed out), in place (a copy of the input):
    PyTorch's bits and strides, for each layout of a (3, 4), (16, 16) and (67, 61) input."""
    view = _LAYOUTS[layout]
    rng = np.random.default_rng(len(op) * 7 + len(layout))
    for shape in ((3, 4), (16, 16), (67, 61)):
        base = _values(op, shape, dt, rng)
        s, t = view(strided.from_numpy(base.copy())), view(torch.from_numpy(base.copy()))
        want = getattr(torch, op)(t)
        _same(getattr(strided, op)(s), want)
        _same(getattr(s, op)(), want)
        o = strided.empty(tuple(t.shape), dtype=strided.float32 if dt == np.float32 else strided.float64)
        r = getattr(strided, op)(s, out=o)
        assert r is o
        np.testing.assert_array_equal(_bits(o.numpy()), _bits(want.numpy()))
        if len(t.shape) == 2:  # (an out= laid out column-major)
            o = strided.empty(tuple(t.shape)[::-1], dtype=o.dtype).t()
            getattr(strided, op)(s, out=o)
            np.testing.assert_array_equal(_bits(o.numpy()), _bits(want.numpy()))
        if layout != "expanded":  # (in place on an expanded tensor is PyTorch's refusal)
            s2, t2 = view(strided.from_numpy(base.copy())), view(torch.from_numpy(base.copy()))
            assert getattr(s2, op + "_")() is s2
            getattr(t2, op + "_")()
            np.testing.assert_array_equal(_bits(s2.numpy()), _bits(t2.numpy()))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_a_buffer_and_a_half_and_integer_input(op: str, dt: type) -> None:
    """4096 + 3 elements (a strided row gathered in more than one 8 KB buffer), permuted; an
    integer tensor (converted to float32 first, as PyTorch's TensorIterator does)."""
    rng = np.random.default_rng(3)
    base = _values(op, (3, 4099), dt, rng)
    s, t = strided.from_numpy(base.copy()).t(), torch.from_numpy(base.copy()).t()
    _same(getattr(strided, op)(s), getattr(torch, op)(t))
    _same(getattr(strided, op)(s[::2]), getattr(torch, op)(t[::2]))
    ints = rng.integers(-3 if op not in _POSITIVE + _UNIT else 0, 2 if op in _UNIT else 40, (5, 7))
    _same(getattr(strided, op)(strided.from_numpy(ints)), getattr(torch, op)(torch.from_numpy(ints)))


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", ["exp", "tanh", "erf", "erfinv", "sqrt", "sin", "log10", "atan"])
def test_past_the_parallel_grain(op: str, dt: type) -> None:
    """100k elements, contiguous and transposed (PyTorch's threads split the range; VML is
    elementwise, so every chunk gives the same bits)."""
    base = _values(op, (400, 250), dt, np.random.default_rng(11))
    for view in (lambda a: a, lambda a: a.t()):
        s, t = view(strided.from_numpy(base.copy())), view(torch.from_numpy(base.copy()))
        _same(getattr(strided, op)(s), getattr(torch, op)(t))


@settings(max_examples=40, deadline=None)
@given(op=hs.sampled_from(OPS), f64=hs.booleans(), rows=hs.integers(0, 9), cols=hs.integers(0, 40),
       step=hs.integers(1, 3), flip=hs.booleans(), transpose=hs.booleans(), seed=hs.integers(0, 2**16))
def test_hypothesis_layouts(op: str, f64: bool, rows: int, cols: int, step: int, flip: bool, transpose: bool,
                            seed: int) -> None:
    dt = np.float64 if f64 else np.float32
    base = _values(op, (rows, cols * step + 1), dt, np.random.default_rng(seed))
    s, t = strided.from_numpy(base.copy()), torch.from_numpy(base.copy())
    s, t = s[:, 1::step], t[:, 1::step]
    if flip:
        s, t = s.flip(0), t.flip(0)
    if transpose:
        s, t = s.t(), t.t()
    _same(getattr(strided, op)(s), getattr(torch, op)(t))


def test_the_tracked_path_and_gradients_of_erf_and_exp() -> None:
    """An input in autograd: the forward is the route's; erf's backward (``2/sqrt(pi) exp(-x^2)``,
    PyTorch's at::exp) and exp's (``g * result``) give PyTorch's bits."""
    x = np.random.default_rng(5).standard_normal((13, 17)).astype(np.float32)
    for op in ("erf", "exp", "sin", "atan"):
        s = strided.from_numpy(x.copy()).requires_grad_()
        t = torch.from_numpy(x.copy()).requires_grad_()
        rs, rt = getattr(strided, op)(s), getattr(torch, op)(t)
        _same(rs.detach(), rt.detach())
        rs.sum().backward()
        rt.sum().backward()
        _same(s.grad, t.grad)


def test_vml_apply_contract() -> None:
    """vml_route.apply: False for other dtypes and mismatched shapes (nothing written); a stride-0
    source and a source that is its own destination work."""
    out = np.zeros(4, np.float16)
    assert not vml_route.apply("exp", np.ones(4, np.float16), out) and not out.any()
    out64 = np.zeros(4)
    assert not vml_route.apply("exp", np.ones(4, np.float32), out64) and not out64.any()
    assert not vml_route.apply("exp", np.ones(3), out64) and not out64.any()
    a = np.linspace(-1, 1, 12).reshape(3, 4)
    want = torch.exp(torch.from_numpy(a)).numpy()
    assert vml_route.apply("exp", a, a)
    np.testing.assert_array_equal(_bits(a), _bits(want))
    row = np.broadcast_to(np.linspace(0, 1, 5, dtype=np.float32), (4, 5))
    out = np.empty((4, 5), np.float32)
    assert vml_route.apply("sqrt", row, out)
    np.testing.assert_array_equal(_bits(out), _bits(torch.sqrt(torch.from_numpy(row.copy())).numpy()))


def test_switched_off_gives_the_previous_kernels() -> None:
    """Within switched_off, strided.exp is the C library's expf (kernels.sleef) and sqrt NumPy's."""
    x = np.linspace(-20, 20, 1001, dtype=np.float32)
    with vml_route.switched_off():
        assert vml_route.fresh("exp", x) is None
        np.testing.assert_array_equal(_bits(strided.sqrt(strided.from_numpy(np.abs(x))).numpy()), _bits(np.sqrt(np.abs(x))))
    assert vml_route.fresh("exp", x) is not None


_SUBPROCESS = r"""
import sys, numpy as np, strided, torch
assert "torch" in sys.modules  # (imported by this script, not by strided)
x = np.random.default_rng(1).uniform(0.01, 3, 5000).astype(np.float32)
from strided.kernels import sleef
for op in ("exp", "sqrt", "sin", "erf", "tanh"):
    got = getattr(strided, op)(strided.from_numpy(x.copy())).numpy()
    if op == "exp":
        ref = sleef.exp_float32(x)
    elif op == "tanh":
        ref = sleef.tanh_float32(x)
    elif op == "erf":
        from strided.kernels import native
        ref = np.empty_like(x)
        native.special().erf_float32(x, ref)
    else:
        ref = getattr(np, op)(x)
    assert np.array_equal(got.view(np.uint32), ref.view(np.uint32)), op
from strided.kernels import vml_route
assert vml_route.fresh("exp", x) is None
print("ok")
"""


def test_openblas_switch_gives_the_previous_kernels() -> None:
    """STRIDED_BLAS=openblas: the route off; exp the C library's expf, tanh from double, erf the
    special kernel, sqrt and sin NumPy's (the previous bits)."""
    env = dict(os.environ, STRIDED_BLAS="openblas")
    r = subprocess.run([sys.executable, "-c", _SUBPROCESS], env=env, capture_output=True, text=True, timeout=240)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


def test_import_loads_no_mkl_and_the_first_call_does() -> None:
    code = ("import sys, strided, numpy as np\n"
            "from strided.kernels import blas_route, vml_route\n"
            "assert not blas_route._state and not vml_route._state, 'loaded at import'\n"
            "assert 'libmkl_rt' not in open('/proc/self/maps').read()\n"
            "strided.exp(strided.ones(3))\n"
            "print(vml_route._state[0] is not None)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240)
    assert r.returncode == 0 and r.stdout.strip() == "True", r.stderr[-2000:]


@pytest.mark.parametrize("dt", DTYPES)
def test_gaussian_nll_loss_takes_torchs_log(dt: type) -> None:
    """F.gaussian_nll_loss's ``log(var)`` is PyTorch's at::log (VML): the whole loss is PyTorch's bits
    (4 of 18 cases were an ulp off with NumPy's log)."""
    rng = np.random.default_rng(0)
    for red in ("none", "mean", "sum"):
        for shape in ((3, 4), (17, 9), (64, 33)):
            a, b = rng.standard_normal(shape).astype(dt), rng.standard_normal(shape).astype(dt)
            v = rng.uniform(0.1, 3, shape).astype(dt)
            got = strided.nn.functional.gaussian_nll_loss(strided.tensor(a), strided.tensor(b), strided.tensor(v),
                                                          reduction=red)
            want = torch.nn.functional.gaussian_nll_loss(torch.tensor(a), torch.tensor(b), torch.tensor(v),
                                                         reduction=red)
            np.testing.assert_array_equal(_bits(got.numpy()), _bits(want.numpy()))
