"""attack38: merge38's changes attacked side by side with PyTorch (one thread).

Passing tests pin behaviour found right: the VML route under partial / full aliasing of out=, out=
of another dtype, transposed / negative / huge strides, 0-d and empty inputs, integer and bool inputs,
gradients, inference_mode, six threads calling exp at once (GIL released), the route off (MKL
absent, STRIDED_BLAS=openblas, STRIDED_NATIVE=0: within rounding of PyTorch); the AVX2 SLEEF forms
at lengths 0..40 and around 64/128 with misaligned starts, NaN payloads and specials; the
split_with_sizes layout cache under differing offsets / strides / dims, as_strided and resize_;
third derivatives and retain_graph of the grad38 activations (within rounding); conv1d's
one-channel path with NaN/zero bias/groups/dilation/padding modes.

Strict xfails record divergences found on this AMD EPYC (AVX2) machine that were not fixed here
(see each reason).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as F

VML_OPS = ["exp", "log", "log10", "sqrt", "sin", "cos", "tan", "tanh", "erf", "erfc", "erfinv", "acos", "asin", "atan"]
DTYPES = [np.float32, np.float64]


def _avx2_only() -> bool:
    return torch.backends.cpu.get_cpu_capability() == "AVX2"


_MEASURED_ON_AVX2 = pytest.mark.skipif(not _avx2_only(), reason="measured on an AVX2 CPU only (AMD EPYC)")


def _same(s: strided.Tensor, t: torch.Tensor) -> None:
    """Exactly PyTorch's result: shape, strides, dtype and every bit."""
    a, b = np.ascontiguousarray(s.detach().numpy()), np.ascontiguousarray(t.detach().numpy())
    assert a.shape == b.shape and a.dtype == b.dtype
    assert s.stride() == t.stride()
    assert a.reshape(-1).view(np.uint8).tobytes() == b.reshape(-1).view(np.uint8).tobytes()


def _inputs(dt: type, n: int) -> np.ndarray:
    return np.random.default_rng(n).uniform(0.05, 0.9, n).astype(dt)


@pytest.mark.parametrize("n", [5, 20000, 40000])
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", VML_OPS)
def test_vml_out_partially_overlapping_input(op: str, dt: type, n: int) -> None:
    """out=x[1:] of x[:-1] (and the other way): PyTorch refuses both; so does strided, unwritten."""
    for src, dst in ((slice(None, -1), slice(1, None)), (slice(1, None), slice(None, -1))):
        base = _inputs(dt, n)
        a = strided.tensor(base.copy())
        t = torch.from_numpy(base.copy())
        with pytest.raises(RuntimeError):
            getattr(torch, op)(t[src], out=t[dst])
        with pytest.raises(RuntimeError):
            getattr(strided, op)(a[src], out=a[dst])
        _same(a, t)  # (nothing written)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", VML_OPS)
def test_vml_in_place_through_a_transposed_view(op: str, dt: type) -> None:
    m = _inputs(dt, 40000).reshape(200, 200)
    a, t = strided.tensor(m.copy()), torch.from_numpy(m.copy())
    getattr(a.T, op + "_")()
    getattr(t.T, op + "_")()
    _same(a, t)
    a, t = strided.tensor(m.copy()), torch.from_numpy(m.copy())
    getattr(strided, op)(a.T, out=a.T)
    getattr(torch, op)(t.T, out=t.T)
    _same(a, t)
    a, t = strided.tensor(m.copy()), torch.from_numpy(m.copy())
    with pytest.raises(RuntimeError):  # (out a transposed alias of the input: PyTorch refuses)
        getattr(torch, op)(t, out=t.T)
    with pytest.raises(RuntimeError):
        getattr(strided, op)(a, out=a.T)
    _same(a, t)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", VML_OPS)
def test_vml_out_of_another_dtype(op: str, dt: type) -> None:
    x = _inputs(dt, 30000)
    other = torch.float64 if dt is np.float32 else torch.float32
    for odt in (other, torch.complex64, torch.int64):
        so = strided.empty(30000, dtype=getattr(strided, str(odt).split(".")[1]))
        to = torch.empty(30000, dtype=odt)
        try:
            getattr(torch, op)(torch.from_numpy(x.copy()), out=to)
        except RuntimeError:
            with pytest.raises(RuntimeError):
                getattr(strided, op)(strided.tensor(x), out=so)
            continue
        getattr(strided, op)(strided.tensor(x), out=so)
        _same(so, to)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", VML_OPS)
def test_vml_strides_and_shapes(op: str, dt: type) -> None:
    x = _inputs(dt, 40000)
    s, t = strided.tensor(x), torch.from_numpy(x.copy())
    _same(getattr(strided, op)(s.flip(0)), getattr(torch, op)(t.flip(0)))
    _same(getattr(strided, op)(s[::7]), getattr(torch, op)(t[::7]))
    _same(getattr(strided, op)(s.flip(0)[3::3]), getattr(torch, op)(t.flip(0)[3::3]))
    for shape in ((), (0,), (0, 3)):
        v = np.full(shape, 0.5, dt)
        _same(getattr(strided, op)(strided.tensor(v)), getattr(torch, op)(torch.from_numpy(v)))


@pytest.mark.parametrize("op", VML_OPS)
def test_vml_integer_and_bool_inputs(op: str) -> None:
    for idt in (np.int32, np.int64, np.bool_, np.uint8, np.int16):
        v = (np.arange(30000) % 3).astype(idt)
        _same(getattr(strided, op)(strided.tensor(v)), getattr(torch, op)(torch.from_numpy(v)))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", ["exp", "log", "sqrt", "sin", "erf", "erfinv", "asin", "atan"])
def test_vml_gradients_and_inference_mode(op: str, dt: type) -> None:
    rng = np.random.default_rng(1)
    xv = rng.uniform(0.1, 0.9, (300, 200)).astype(dt)
    g = rng.standard_normal((200, 300)).astype(dt)
    a, t = strided.tensor(xv, requires_grad=True), torch.tensor(xv, requires_grad=True)
    ra, rt = getattr(strided, op)(a.T), getattr(torch, op)(t.T)
    ra.backward(strided.tensor(g))
    rt.backward(torch.tensor(g))
    _same(ra, rt)
    _same(a.grad, t.grad)
    with strided.inference_mode():
        r = getattr(strided, op)(strided.tensor(xv))
    _same(r, getattr(torch, op)(torch.tensor(xv)))


@pytest.mark.parametrize("op", ["exp", "log", "sqrt", "sin", "tanh", "erf", "erfinv", "atan"])
def test_vml_out_forms(op: str) -> None:
    """out= of a requires_grad input, a stepped out, an out resized from (3,), a 0-stride input."""
    x = np.random.default_rng(9).uniform(0.1, 0.9, 30000).astype(np.float32)
    with pytest.raises(RuntimeError):
        getattr(torch, op)(torch.tensor(x, requires_grad=True), out=torch.empty(30000))
    with pytest.raises(RuntimeError):
        getattr(strided, op)(strided.tensor(x, requires_grad=True), out=strided.empty(30000))
    so, to = strided.empty(40000)[::2], torch.empty(40000)[::2]
    getattr(strided, op)(strided.tensor(x[:20000]), out=so)
    getattr(torch, op)(torch.tensor(x[:20000]), out=to)
    _same(so, to)
    so, to = strided.empty(3), torch.empty(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        getattr(strided, op)(strided.tensor(x), out=so)
        getattr(torch, op)(torch.tensor(x), out=to)
    _same(so, to)
    b, bt = strided.tensor(np.float32(0.3)).expand(20000), torch.tensor(np.float32(0.3)).expand(20000)
    _same(getattr(strided, op)(b), getattr(torch, op)(bt))
    with pytest.raises(NotImplementedError) if op in ("erf", "erfinv") else warnings.catch_warnings():
        z = np.array([0.5 + 0.25j], np.complex64)
        r, rt = getattr(strided, op)(strided.tensor(z)), getattr(torch, op)(torch.from_numpy(z))
        np.testing.assert_allclose(r.numpy(), rt.numpy(), rtol=1e-6)


@_MEASURED_ON_AVX2
@pytest.mark.parametrize("op", ["erf", "erfinv"])
@pytest.mark.xfail(strict=True, reason=(
    "float16 erf / erfinv: one float16 ulp from PyTorch at a few inputs (erf(0.5551758): 0.5673828 vs "
    "PyTorch's 0.5678711; erfinv(0.80566406): 0.91748047 vs 0.91796875) where float32's value lies near a "
    "float16 tie; pre-existing (main too), not the VML route (float16 is not routed)"))
def test_float16_erf_erfinv_bits(op: str) -> None:
    x = torch.from_numpy(np.random.default_rng(9).uniform(0.1, 0.9, 30000).astype(np.float32)).half()
    r = getattr(strided, op)(strided.tensor(x.float().numpy()).half())
    np.testing.assert_array_equal(r.float().numpy(), getattr(torch, op)(x).float().numpy())


def test_vml_threads_at_once() -> None:
    """Six threads calling exp on 1M float32 at once (the route releases the GIL): PyTorch's bits each."""
    x = np.random.default_rng(2).uniform(0.1, 0.9, 1 << 20).astype(np.float32)
    want = torch.exp(torch.from_numpy(x)).numpy()
    got: list = [None] * 6

    def work(i: int) -> None:
        for _ in range(3):
            got[i] = strided.exp(strided.tensor(x)).numpy()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for r in got:
        assert r.view(np.uint32).tobytes() == want.view(np.uint32).tobytes()


_ROUTE_OFF = r"""
import sys, numpy as np, torch, strided
OPS = sys.argv[2].split(",")
torch.set_num_threads(1)
if sys.argv[1] == "nomkl":
    from strided.kernels import blas_route
    blas_route.lib = lambda: None  # (MKL absent: the loader fails)
from strided.kernels import vml_route
rng = np.random.default_rng(3)
for op in OPS:
    for dt in (np.float32, np.float64):
        x = rng.uniform(0.05, 0.9, 40000).astype(dt)
        for v, tv in ((x, x), (x[::-3], x[::-3].copy())):
            got = getattr(strided, op)(strided.tensor(x)[::-3] if v is not x else strided.tensor(x)).numpy()
            want = getattr(torch, op)(torch.from_numpy(tv.copy())).numpy()
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=4 * np.finfo(dt).eps, atol=0)
assert vml_route._kernel_module() is None  # (the route off: the previous kernels ran)
print("ok")
"""


@pytest.mark.parametrize("how", ["nomkl", "openblas", "native0"])
def test_route_off_gives_values_within_rounding(how: str) -> None:
    env = dict(os.environ)
    if how == "openblas":
        env["STRIDED_BLAS"] = "openblas"
    if how == "native0":
        env["STRIDED_NATIVE"] = "0"
    r = subprocess.run([sys.executable, "-c", _ROUTE_OFF, how, ",".join(VML_OPS)], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr[-2000:]


# ---- AVX2 SLEEF forms: lengths around the vector steps, misaligned starts, specials, NaN payloads
_SPECIALS = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 88.8, -104, 20, -20, 1e30, -1e30])
_KERNELS = {
    "sigmoid": (torch.sigmoid, strided.sigmoid), "silu": (TF.silu, F.silu), "softplus": (TF.softplus, F.softplus),
    "elu": (TF.elu, F.elu), "selu": (TF.selu, F.selu), "celu": (TF.celu, F.celu), "expm1": (torch.expm1, strided.expm1),
    "mish": (TF.mish, F.mish), "tanh": (torch.tanh, strided.tanh), "log1p": (torch.log1p, strided.log1p),
    "exp2": (torch.exp2, strided.exp2), "gelu": (TF.gelu, F.gelu), "logsigmoid": (TF.logsigmoid, F.logsigmoid),
    "i0": (torch.i0, strided.i0), "digamma": (torch.digamma, strided.digamma)}


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", sorted(_KERNELS))
def test_avx2_forms_lengths_offsets_specials(name: str, dt: type) -> None:
    tf, sf = _KERNELS[name]
    rng = np.random.default_rng(11)
    for n in [*range(40), 63, 64, 65, 127, 128, 129]:
        for off in (0, 1, 3):
            base = rng.standard_normal(n + off + 5).astype(dt) * 5
            run = base[off:off + n]
            run[::3] = np.resize(_SPECIALS.astype(dt), run[::3].shape)
            if n > 2 and dt is np.float32:
                base.view(np.uint32)[off + 1] = 0x7FC01234  # (a NaN payload)
            with np.errstate(all="ignore"):
                _same(sf(strided.tensor(base)[off:off + n]), tf(torch.from_numpy(base.copy())[off:off + n]))


@pytest.mark.parametrize("name", ["sigmoid", "tanh", "expm1", "log1p", "exp2"])
def test_avx2_forms_in_place(name: str) -> None:
    tf, _ = _KERNELS[name]
    rng = np.random.default_rng(12)
    for dt in DTYPES:
        for n in (7, 8, 15, 16, 17, 33, 100):
            v = rng.standard_normal(n + 1).astype(dt)
            a, t = strided.tensor(v.copy())[1:], torch.from_numpy(v.copy())[1:]
            getattr(a, name + "_")()
            getattr(t, name + "_")()
            _same(a, t)


# ---- split_with_sizes' layout cache
_VIEWS = {"plain": lambda m: m, "row-offset": lambda m: m[1:], "col-offset": lambda m: m[:, 2:],
          "t": lambda m: m.t(), "step": lambda m: m[::2], "flip": lambda m: m.flip(0)}


@pytest.mark.parametrize("view", sorted(_VIEWS))
def test_split_with_sizes_cache_layouts(view: str) -> None:
    x = np.arange(60.0).reshape(6, 10)
    s, t = _VIEWS[view](strided.tensor(x)), _VIEWS[view](torch.tensor(x))
    for dim in (0, 1, -1, -2):
        n = s.shape[dim]
        for sizes in ([1, n - 1], [n, 0], [0, n], [2, n - 2]):
            for _ in range(2):  # (the second call: the cached layout)
                for p, q in zip(s.split_with_sizes(sizes, dim), t.split_with_sizes(sizes, dim), strict=True):
                    _same(p, q)
                    assert p.storage_offset() == q.storage_offset()
                for p, q in zip(strided.split(s, sizes, dim), torch.split(t, sizes, dim), strict=True):
                    _same(p, q)
                    assert p.storage_offset() == q.storage_offset()


def test_split_with_sizes_cache_offsets_resize_errors_grads() -> None:
    s, t = strided.tensor(np.arange(100.0)), torch.arange(100.0).double()
    for off in (0, 5, 17):  # (one layout key, other storage offsets)
        for p, q in zip(s.as_strided((4, 5), (5, 1), off).split_with_sizes([1, 3]),
                        t.as_strided((4, 5), (5, 1), off).split_with_sizes([1, 3]), strict=True):
            _same(p, q)
            assert p.storage_offset() == q.storage_offset()
    s, t = strided.tensor(np.arange(12.0)).reshape(3, 4).clone(), torch.arange(12.0).double().reshape(3, 4).clone()
    s.split_with_sizes([1, 2])
    s.resize_(4, 3)
    t.resize_(4, 3)
    for p, q in zip(s.split_with_sizes([1, 3]), t.split_with_sizes([1, 3]), strict=True):
        _same(p, q)
    for sizes, dim in (([1, 1], 0), ([2, -1], 0), ([1, 2], 2), ([1, 2], -3), ([4], 0)):
        with pytest.raises(RuntimeError if dim == 0 else IndexError):
            torch.zeros(3, 4).split_with_sizes(sizes, dim)
        with pytest.raises(RuntimeError if dim == 0 else IndexError):
            strided.zeros(3, 4).split_with_sizes(sizes, dim)
    s = strided.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    t = torch.arange(12.0).double().reshape(3, 4).requires_grad_()
    ps, pt = s.split_with_sizes([1, 2]), t.split_with_sizes([1, 2])
    (ps[0].sum() * 2 + (ps[1] ** 2).sum()).backward()
    (pt[0].sum() * 2 + (pt[1] ** 2).sum()).backward()
    _same(s.grad, t.grad)


# ---- grad38: higher derivatives
_GRAD38 = {
    "elu": (lambda x: F.elu(x, 1.3), lambda x: TF.elu(x, 1.3)), "selu": (F.selu, TF.selu),
    "celu": (lambda x: F.celu(x, 0.7), lambda x: TF.celu(x, 0.7)),
    "softplus": (lambda x: F.softplus(x, 2.0, 3.0), lambda x: TF.softplus(x, 2.0, 3.0)),
    "logsigmoid": (F.logsigmoid, TF.logsigmoid),
    "layer_norm": (lambda x: F.layer_norm(x, (x.shape[-1],)), lambda x: TF.layer_norm(x, (x.shape[-1],))),
    "normalize": (lambda x: F.normalize(x, dim=1), lambda x: TF.normalize(x, dim=1))}


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", sorted(_GRAD38))
def test_grad38_third_derivatives_and_retain_graph(name: str, dt: type, transposed: bool) -> None:
    sf, tf = _GRAD38[name]
    xv = (np.random.default_rng(3).standard_normal((4, 5)) * 2).astype(dt)
    xs, xt = strided.tensor(xv, requires_grad=True), torch.tensor(xv, requires_grad=True)
    ys, yt = sf(xs.t() if transposed else xs), tf(xt.t() if transposed else xt)
    g1s, = strided.autograd.grad(ys.sum(), xs, create_graph=True)
    g1t, = torch.autograd.grad(yt.sum(), xt, create_graph=True)
    g2s, = strided.autograd.grad((g1s * g1s).sum(), xs, create_graph=True)
    g2t, = torch.autograd.grad((g1t * g1t).sum(), xt, create_graph=True)
    g3s, = strided.autograd.grad(g2s.sum(), xs, retain_graph=True)
    g3t, = torch.autograd.grad(g2t.sum(), xt, retain_graph=True)
    g3s2, = strided.autograd.grad(g2s.sum(), xs)  # (retain_graph: a second pass, the same values)
    g3t2, = torch.autograd.grad(g2t.sum(), xt)
    tol = 8 * np.finfo(dt).eps
    for a, b in ((g1s, g1t), (g2s, g2t), (g3s, g3t), (g3s2, g3t2)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)
        assert a.shape == b.shape
    np.testing.assert_array_equal(g3s.numpy(), g3s2.numpy())


def test_grad38_in_place_on_a_view_under_create_graph() -> None:
    xv = np.random.default_rng(4).standard_normal((4, 5))
    for fs, ft in ((lambda v: F.selu(v, inplace=True), lambda v: TF.selu(v, inplace=True)),
                   (lambda v: F.celu(v, 0.5, inplace=True), lambda v: TF.celu(v, 0.5, inplace=True)),
                   (lambda v: F.elu(v, inplace=True), lambda v: TF.elu(v, inplace=True))):
        xs, xt = strided.tensor(xv, requires_grad=True), torch.tensor(xv, requires_grad=True)
        bs, bt = xs * 1, xt * 1
        fs(bs[:, 1:3])
        ft(bt[:, 1:3])
        g1s, = strided.autograd.grad((bs ** 2).sum(), xs, create_graph=True)
        g1t, = torch.autograd.grad((bt ** 2).sum(), xt, create_graph=True)
        g2s, = strided.autograd.grad(g1s.sum(), xs)
        g2t, = torch.autograd.grad(g1t.sum(), xt)
        np.testing.assert_array_equal(g1s.detach().numpy(), g1t.detach().numpy())
        np.testing.assert_array_equal(g2s.numpy(), g2t.numpy())


@pytest.mark.parametrize("create_graph", [False, True])
@_MEASURED_ON_AVX2
@pytest.mark.xfail(strict=True, reason=(
    "elu/selu float32 first-order gradient: strided's elu_backward (activations._elu_fused) takes np.exp; "
    "PyTorch's kernel takes SLEEF's expf8_u10 in its vector lanes and glibc's expf in its scalar tail, "
    "which differ from NumPy's AVX2 expf in ~35% of negative elements on this AMD EPYC; pre-existing "
    "without create_graph (main too), and grad38 made create_graph take that kernel (main's create_graph "
    "path matched PyTorch here: 0 of 20, merge38: 3 of 20)"))
def test_elu_float32_first_order_gradient_bits(create_graph: bool) -> None:
    xv = (np.random.default_rng(3).standard_normal((4, 5)) * 2).astype(np.float32)
    xs, xt = strided.tensor(xv, requires_grad=True), torch.tensor(xv, requires_grad=True)
    g1s, = strided.autograd.grad(F.elu(xs, 1.3).sum(), xs, create_graph=create_graph)
    g1t, = torch.autograd.grad(TF.elu(xt, 1.3).sum(), xt, create_graph=create_graph)
    _same(g1s, g1t)


@pytest.mark.parametrize("dt", DTYPES)
@_MEASURED_ON_AVX2
@pytest.mark.xfail(strict=True, reason=(
    "tanh's gradient: PyTorch's tanh_backward kernel on this AVX2 build computes g * (1 - y*y) with "
    "1 - y*y fused (one rounding: float32 matches g * float32(1 - double(y)^2) exactly, 0 of 50); "
    "strided's _tanh_grad_run rounds y*y first (7 of 50 float32, 7 of 50 float64 differ). Pre-existing (main too)"))
def test_tanh_gradient_bits(dt: type) -> None:
    rng = np.random.default_rng(1)
    xv, g = rng.uniform(0.1, 0.9, 50).astype(dt), rng.standard_normal(50).astype(dt)
    a, t = strided.tensor(xv, requires_grad=True), torch.tensor(xv, requires_grad=True)
    strided.tanh(a).backward(strided.tensor(g))
    torch.tanh(t).backward(torch.tensor(g))
    _same(a.grad, t.grad)


# ---- conv1d's one-channel path
@pytest.mark.parametrize("spec", ["plain", "nan_weight", "zero_bias", "nan_input", "no_bias"])
@pytest.mark.parametrize("cog", [(1, 1, 1), (1, 4, 1), (3, 3, 3), (2, 6, 2)])
def test_conv1d_one_channel_path(cog: tuple, spec: str) -> None:
    c, o, groups = cog
    rng = np.random.default_rng(7)
    for pad in (0, 2, "same", "valid"):
        for dil in (1, 3):
            x = rng.standard_normal((2, c, 5000)).astype(np.float32)
            w = rng.standard_normal((o, c // groups, 5)).astype(np.float32)
            b = rng.standard_normal(o).astype(np.float32)
            if spec == "nan_weight":
                w[0, 0, 2] = np.nan
            if spec == "zero_bias":
                b[:] = 0
                b[0] = -0.0
            if spec == "nan_input":
                x[0, 0, 100] = np.nan
            bias = None if spec == "no_bias" else b
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = F.conv1d(strided.tensor(x), strided.tensor(w), None if bias is None else strided.tensor(bias),
                             1, pad, dil, groups)
            rt = TF.conv1d(torch.tensor(x), torch.tensor(w), None if bias is None else torch.tensor(bias),
                           1, pad, dil, groups)
            a, t = r.numpy(), rt.numpy()
            assert a.shape == t.shape and r.stride() == rt.stride()
            np.testing.assert_allclose(a, t, rtol=1e-4, atol=1e-4)
            np.testing.assert_array_equal(np.signbit(a[a == 0]), np.signbit(t[a == 0]))


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "zeros"])
def test_conv1d_padding_modes(mode: str) -> None:
    m = torch.nn.Conv1d(1, 4, 5, padding=2, padding_mode=mode, dilation=2)
    ms = strided.nn.Conv1d(1, 4, 5, padding=2, padding_mode=mode, dilation=2)
    with strided.no_grad():
        ms.weight.copy_(strided.tensor(m.weight.detach().numpy()))
        ms.bias.copy_(strided.tensor(m.bias.detach().numpy()))
    x = np.random.default_rng(8).standard_normal((3, 1, 3000)).astype(np.float32)
    np.testing.assert_allclose(ms(strided.tensor(x)).detach().numpy(), m(torch.tensor(x)).detach().numpy(),
                               rtol=1e-4, atol=1e-4)


@pytest.mark.xfail(strict=True, reason=(
    "conv1d with an infinite weight and zero padding: PyTorch's CPU convolution does not multiply the "
    "padding (output 0 finite: 0.6497086), strided's padded product gives inf * 0 = NaN there; "
    "pre-existing (main too), not the avx2b one-channel path (also at L = 50)"))
def test_conv1d_inf_weight_with_padding() -> None:
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 1, 50)).astype(np.float32)
    w = rng.standard_normal((1, 1, 5)).astype(np.float32)
    w[0, 0, 1] = np.inf
    b = rng.standard_normal(1).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = F.conv1d(strided.tensor(x), strided.tensor(w), strided.tensor(b), 1, 2).numpy()
    t = TF.conv1d(torch.tensor(x), torch.tensor(w), torch.tensor(b), 1, 2).numpy()
    np.testing.assert_array_equal(np.isnan(a), np.isnan(t))


# ---- small38's matrix_power / nll_loss / hinge fast paths
def _both(fs: object, ft: object, *arrays: np.ndarray, t: bool = False, **kw: object) -> None:
    """``fs`` on strided tensors of ``arrays`` (transposed first with ``t``) gives ``ft``'s result on
    torch's exactly, or both raise (the same class)."""
    sa = [strided.tensor(a) for a in arrays]
    ta = [torch.tensor(a) for a in arrays]
    if t:
        sa[0], ta[0] = sa[0].t(), ta[0].t()
    try:
        want = ft(*ta, **kw)
    except (RuntimeError, IndexError, ValueError, TypeError) as e:
        with pytest.raises(RuntimeError if isinstance(e, RuntimeError) else type(e)):
            fs(*sa, **kw)
        return
    _same(fs(*sa, **kw), want)


@pytest.mark.parametrize("dt", DTYPES)
def test_small38_nll_loss_and_hinge_edges(dt: type) -> None:
    rng = np.random.default_rng(2)
    for n, c in ((0, 5), (1, 3), (7, 4), (3, 1)):
        x, tgt, w = rng.standard_normal((n, c)).astype(dt), rng.integers(0, c, n), rng.random(c).astype(dt)
        for red in ("mean", "sum", "none"):
            for ii in (-100, 0, 1):
                _both(F.nll_loss, TF.nll_loss, x, tgt, reduction=red, ignore_index=ii)
            _both(F.nll_loss, TF.nll_loss, x, tgt, w, reduction=red)
    x = rng.standard_normal((3, 4)).astype(dt)
    for tgt in ([0, 4, 1], [0, -1, 1], [-100] * 3):
        _both(F.nll_loss, TF.nll_loss, x, np.array(tgt))
    _both(F.nll_loss, TF.nll_loss, x, np.array([0, 1, 2, 0]), t=True)
    y = np.sign(rng.standard_normal((3, 4))).astype(dt)
    for margin in (1.0, 0.0, -0.0, 2):
        _both(F.hinge_embedding_loss, TF.hinge_embedding_loss, x, y, margin=margin)
    _both(F.hinge_embedding_loss, TF.hinge_embedding_loss, x, y[0])


def test_small38_matrix_power_errors_and_exact_powers() -> None:
    m = np.random.default_rng(2).standard_normal((4, 4))
    for bad in (m[:3], m[0]):
        _both(strided.linalg.matrix_power, torch.linalg.matrix_power, bad, n=2)
    for n in (0, 1):
        _both(strided.linalg.matrix_power, torch.linalg.matrix_power, m, t=True, n=n)
    _both(strided.linalg.matrix_power, torch.linalg.matrix_power, np.arange(4).reshape(2, 2), n=3)


@_MEASURED_ON_AVX2
@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.xfail(strict=True, reason=(
    "small square products (2x2, 4x4; 8x8 and 16x16 agree) differ from PyTorch's in the last bit on this "
    "AMD EPYC (AVX2): matmul and so matrix_power (float32 4x4: 7 of 16 elements); pre-existing (main too, "
    "test_small_op_paths' small-matmul tests fail on main here), merge38's fixmkl does not cover it"))
def test_small_square_products_bits(dt: type, n: int) -> None:
    m = np.random.default_rng(2).standard_normal((16, 16)).astype(dt)
    found = False
    for k in range(8):  # (a few matrices: the divergence shows in at least one)
        a = m[k:k + n, k:k + n].copy()
        p = strided.linalg.matrix_power(strided.tensor(a), 2).numpy()
        found |= p.tobytes() != torch.linalg.matrix_power(torch.tensor(a), 2).numpy().tobytes()
    assert not found


@pytest.mark.parametrize("n", [0, 1, -1, -2, 2])
@pytest.mark.parametrize("view", ["mT", "plain", "mT-sliced", "t"])
def test_matrix_power_layout_and_node(view: str, n: int) -> None:
    """Fixed here: PyTorch's n == 1 is a row-major clone whatever A's layout (was: A's layout kept,
    (1, 4) for a transposed A) and n == -1 is linalg_inv itself (its column-major layout, its
    LinalgInvExBackward0 node; was a CloneBackward0 over it)."""
    pick = {"mT": lambda a: a.mT, "plain": lambda a: a, "mT-sliced": lambda a: a.mT[..., 1:, 1:],
            "t": lambda a: a[0].t()}[view]
    m = np.random.default_rng(2).standard_normal((2, 4, 4))
    xs, xt = strided.tensor(m, requires_grad=True), torch.tensor(m, requires_grad=True)
    s, t = strided.linalg.matrix_power(pick(xs), n), torch.linalg.matrix_power(pick(xt), n)
    assert s.shape == t.shape and s.stride() == t.stride()
    np.testing.assert_allclose(s.detach().numpy(), t.detach().numpy(), rtol=1e-12, atol=1e-12)
    if n in (0, 1, -1):
        assert s.grad_fn.name() == t.grad_fn.name()
        s.sum().backward()
        t.sum().backward()
        np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-12)
    s2, t2 = strided.matrix_power(pick(strided.tensor(m)), n), torch.matrix_power(pick(torch.tensor(m)), n)
    assert s2.stride() == t2.stride()
