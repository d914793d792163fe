"""Differential tests of session 35's xf35 work, against PyTorch (bits where PyTorch's are reproduced).

- :mod:`strided.ops.elementwise.torch_lanes`: the one home of "where does PyTorch's elementwise
  loop run vectorized / scalar" (was activations._scalar_places / _nan_lanes and
  activations_more._vector_nans); its answers checked against torch's observable NaN split;
- ``create_graph=True`` first derivatives at NaN inputs (elu / selu / celu / hardshrink /
  softshrink): PyTorch runs its backward kernel there too, so a NaN where the kernel's loop runs
  the scalar function gets ``g * scale`` (elu family) / ``g`` (shrinks), as in the plain backward.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import strided
import strided.nn.functional as F
from strided.ops.elementwise import torch_lanes
from test_attack34 import _NAN_GRAD_OPS as _OPS

_U = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}

_LENGTHS = [*range(0, 71), 127, 128, 129, 130, 1000]


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(_U[a.dtype])


def _input(a: np.ndarray, layout: str, lib):
    """``a`` (of 2n elements) as a flat run of n, a transposed (2, n/2) view, a stepped view or 0-d."""
    t = lib.from_numpy(a.copy())
    n = a.size // 2
    if layout == "T":
        return t[: n - n % 2].reshape(2, -1).T if n >= 2 else t[:n]
    if layout == "step":
        return t[::2]
    if layout == "0d":
        return t[0]
    return t[:n]


def _grads(name: str, a: np.ndarray, layout: str, gseed: int, create_graph: bool):
    fs, ft = _OPS[name]
    s = _input(a, layout, strided).requires_grad_()
    t = _input(a, layout, torch).requires_grad_()
    g = np.asarray(np.random.default_rng(gseed).standard_normal(tuple(t.shape)) * 2, dtype=a.dtype)
    (gs,) = strided.autograd.grad(fs(s), s, strided.from_numpy(g.copy()), create_graph=create_graph)
    (gt,) = torch.autograd.grad(ft(t), t, torch.from_numpy(g.copy()), create_graph=create_graph)
    return gs.detach().numpy(), gt.detach().numpy(), np.isnan(t.detach().numpy())


@pytest.mark.parametrize("name", sorted(_OPS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["flat", "T", "step", "0d"])
def test_create_graph_first_derivative_at_nans(name, dtype, layout, torch_threads_as_assumed) -> None:
    """Every length 0..70, 127..130 and 1000: the NaN places' gradient bits (NaN words too) equal
    PyTorch's under create_graph=True, and equal strided's own plain backward's."""
    for n in _LENGTHS:
        if layout == "0d" and n != 1:
            continue
        rng = np.random.default_rng(n)
        a = (rng.standard_normal(2 * max(n, 1)) * 3).astype(dtype)
        a[rng.random(a.size) < 0.3] = np.nan
        a[rng.random(a.size) < 0.1] = -np.nan
        a[rng.random(a.size) < 0.05] = -0.0
        a[rng.random(a.size) < 0.05] = np.inf
        gs, gt, nan = _grads(name, a, layout, n, True)
        plain, _, _ = _grads(name, a, layout, n, False)
        assert np.array_equal(_bits(gs)[nan], _bits(gt)[nan]), (n, gs[nan], gt[nan])
        assert np.array_equal(_bits(gs)[nan], _bits(plain)[nan]), n
        # (elsewhere within the ulps of exp: SLEEF's in PyTorch's lanes, NumPy's in the recorded ops)
        np.testing.assert_allclose(gs, gt, rtol=1e-5, atol=0)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=hs.sampled_from(sorted(_OPS)), dtype=hs.sampled_from(["float32", "float64"]),
       n=hs.integers(1, 140), layout=hs.sampled_from(["flat", "T", "step"]), seed=hs.integers(0, 2**16))
def test_create_graph_nans_random(name, dtype, n, layout, seed, torch_threads_as_assumed) -> None:
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(2 * n) * 3).astype(dtype)
    a[rng.random(2 * n) < rng.random()] = np.nan
    gs, gt, nan = _grads(name, a, layout, seed, True)
    assert np.array_equal(_bits(gs)[nan], _bits(gt)[nan])


def test_second_derivative_through_nan_fix_runs() -> None:
    """The fixed first derivative stays differentiable (a where over the recorded value): the
    second derivative at the finite elements is PyTorch's."""
    a = np.array([np.nan, -1.0, 2.0, -0.5])
    s = strided.from_numpy(a.copy()).requires_grad_()
    t = torch.from_numpy(a.copy()).requires_grad_()
    (gs,) = strided.autograd.grad(F.elu(s, 0.5).sum(), s, create_graph=True)
    (gt,) = torch.autograd.grad(TF.elu(t, 0.5).sum(), t, create_graph=True)
    (hs_,) = strided.autograd.grad(gs[1:].sum(), s)
    (ht,) = torch.autograd.grad(gt[1:].sum(), t)
    np.testing.assert_allclose(hs_.numpy()[1:], ht.numpy()[1:], rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("vectors", [1, 2])
def test_vector_and_scalar_nans_partition_the_nans(dtype, vectors) -> None:
    """torch_lanes' two answers split x's NaNs: every NaN in exactly one of them, nothing else."""
    for n in _LENGTHS:
        x = np.full(n, np.nan, dtype)
        x[::5] = 1.0
        for view in (x, x[::2], x.reshape(-1, 1)[: n - n % 2].reshape(2, -1).T if n > 1 else x):
            v = torch_lanes.vector_nans(view, vectors)
            sc = torch_lanes.scalar_nans(view, vectors)
            v = np.zeros(view.shape, bool) if v is None else v
            sc = np.zeros(view.shape, bool) if sc is None else sc
            assert not (v & sc).any()
            assert np.array_equal(v | sc, np.isnan(view))


# ---------------------------------------------------------------- float16 / bfloat16 glu, soft_margin_loss


def _reduced(t: torch.Tensor):
    return strided.from_numpy(np.asarray(t.detach().float().numpy())).to(getattr(strided, str(t.dtype)[6:]))


def _bits16(t) -> np.ndarray:
    a = np.ascontiguousarray(t.detach().float().numpy())
    return a.view(np.uint32)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", [((6, 40), -1, False), ((6, 40), 0, False), ((3, 200), -1, False),
                                  ((40, 6), 0, True), ((2,), 0, False), ((0, 4), 1, False), ((5, 260), 1, False),
                                  ((2, 140), 1, True), ((4, 66), -1, False)])
def test_reduced_glu_values_and_layout(dt, case, torch_threads_as_assumed) -> None:
    """glu's forward and both halves' gradient, bit for bit on values without NaN (+-inf and
    -0 included), the result's strides torch's (a transposed input: column-major)."""
    shape, dim, transposed = case
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal(shape) * 3
    a[rng.random(shape) < 0.05] = np.inf
    a[rng.random(shape) < 0.05] = -np.inf
    a[rng.random(shape) < 0.05] = -0.0
    xt = torch.tensor(a).to(getattr(torch, dt))
    xs = _reduced(xt)
    if transposed:
        xt, xs = xt.T, xs.T
    xt.requires_grad_()
    xs.requires_grad_()
    yt, ys = TF.glu(xt, dim), F.glu(xs, dim)
    assert tuple(yt.stride()) == tuple(ys.stride())
    ok = ~np.isnan(yt.detach().float().numpy())
    assert np.array_equal(_bits16(yt)[ok], _bits16(ys)[ok])
    g = torch.tensor(rng.standard_normal(tuple(yt.shape))).to(xt.dtype)
    (gt,) = torch.autograd.grad(yt, xt, g)
    (gs,) = strided.autograd.grad(ys, xs, _reduced(g))
    ok = ~np.isnan(gt.float().numpy())
    assert np.array_equal(_bits16(gt)[ok], _bits16(gs)[ok])


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(6, 40), (3,), (0,), (), (7, 130), (1000,)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_reduced_soft_margin_loss_gradient(dt, shape, reduction) -> None:
    rng = np.random.default_rng(len(shape))
    xt = torch.tensor(np.asarray(rng.standard_normal(shape) * 3)).to(getattr(torch, dt)).requires_grad_()
    yt = torch.tensor(np.asarray(rng.standard_normal(shape))).sign().to(xt.dtype)
    xs, ys = _reduced(xt).requires_grad_(), _reduced(yt)
    lt, ls = TF.soft_margin_loss(xt, yt, reduction=reduction), F.soft_margin_loss(xs, ys, reduction=reduction)
    # (an empty mean's NaN word is not this test's subject: its value is)
    assert np.array_equal(lt.detach().float().numpy(), ls.detach().float().numpy(), equal_nan=True)
    (gt,) = torch.autograd.grad(lt.sum(), xt)
    (gs,) = strided.autograd.grad(ls.sum(), xs)
    assert np.array_equal(_bits16(gt), _bits16(gs))


_CAPABILITY_SCRIPT = """
import numpy as np, torch, strided
import torch.nn.functional as TF, strided.nn.functional as F
torch.set_num_threads(1)
bad = []
for name, fs, ft in (("elu", lambda x: F.elu(x, 0.5), lambda x: TF.elu(x, 0.5)),
                     ("softshrink", F.softshrink, TF.softshrink), ("selu", F.selu, TF.selu)):
    for dtype in ("float32", "float64"):
        for n in range(1, 71):
            a = np.full(n, np.nan, dtype)
            a[::7] = -1.5
            s = strided.from_numpy(a.copy()).requires_grad_()
            t = torch.from_numpy(a.copy()).requires_grad_()
            u = np.uint32 if dtype == "float32" else np.uint64
            nan = np.isnan(a)
            for cg in (False, True):
                (gs,) = strided.autograd.grad(fs(s), s, strided.ones(n, dtype=s.dtype), create_graph=cg)
                (gt,) = torch.autograd.grad(ft(t), t, torch.ones(n, dtype=t.dtype), create_graph=cg)
                if not np.array_equal(gs.detach().numpy().view(u)[nan], gt.detach().numpy().view(u)[nan]):
                    bad.append((name, dtype, n, cg))
            z = np.full(n, -0.1, dtype)  # (softshrink's zero band: +0 in the vector lanes, -0 in the scalar ones)
            if not np.array_equal(F.softshrink(strided.from_numpy(z)).numpy().view(u),
                                  TF.softshrink(torch.from_numpy(z)).numpy().view(u)):
                bad.append(("softshrink forward", dtype, n))
print("BAD", bad[:5])
"""


@pytest.mark.parametrize("capability", [
    "avx2",
    pytest.param("default", marks=pytest.mark.xfail(strict=True, reason=(
        "ATEN_CPU_CAPABILITY=default: strided takes every element as the scalar function's "
        "(kernels.sleef.step() 0, right for exp's bits), but PyTorch's DEFAULT build still runs its "
        "Vectorized blends over 8-float / 4-double arrays: the NaN / -0 split of elu / selu / the "
        "shrinks differs (measured: rows from 16 float32 / 8 float64 elements on)"))),
])
def test_nan_split_follows_capability(capability) -> None:
    """ATEN_CPU_CAPABILITY moves PyTorch's vector / scalar split (AVX2's narrower lanes; the shrinks'
    AVX2 build under either); strided reads it as PyTorch does (a fresh process each): the plain and
    create_graph gradients at NaN inputs and softshrink's zero band signs."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, ATEN_CPU_CAPABILITY=capability, OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", _CAPABILITY_SCRIPT], env=env, capture_output=True, text=True,
                         timeout=600, check=True).stdout
    assert "BAD []" in out, out
