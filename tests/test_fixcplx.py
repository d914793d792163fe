"""PyTorch's bits where its loops' vector blocks and scalar elements differ, whatever the CPU's
capability (AVX2 here, AVX512 elsewhere): complex64 ``y ** 3`` (the compiled scalar loops fuse
both products in runs of 2 in the AVX2 build, 4 in the AVX512 one) and logit's gradient at
x = -0.0 (the scalar function gives ``g * inf``, the vector lambda ``g / -0.0``). Each case runs
on this CPU's capability and, in a subprocess, under ``ATEN_CPU_CAPABILITY=avx2`` (the AVX2 build
on an AVX-512 CPU)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import strided as st

LENGTHS = [1, 2, 3, 5, 6, 7, 8, 9, 10, 13, 16, 17, 18, 19, 22, 31, 33, 37, 40]


def _bits(a: object) -> np.ndarray:
    """Every byte of ``a`` (each element's bits)."""
    return np.ascontiguousarray(np.asarray(a)).view(np.uint8)


def _cube_forms(lib, z: np.ndarray) -> dict[str, object]:
    """z ** 3 as a contiguous run, a stepped view, a stepped view in place, and into a transposed out."""
    n = z.size
    wide = np.repeat(z, 2)
    stepped = lib.tensor(wide.copy())[::2]
    inplace = lib.tensor(wide.copy())[::2]
    inplace.pow_(3)
    out = lib.empty(n, 3, dtype=lib.tensor(z).dtype).t()[0]
    lib.pow(lib.tensor(z.copy()), 3, out=out)
    contiguous = lib.tensor(z.copy())
    return {"contiguous": contiguous ** 3, "stepped": stepped ** 3, "in place": inplace, "out": out,
            "contiguous in place": contiguous.pow_(3)}


def check_complex64_cube() -> None:
    """complex64 and complex128 ``z ** 3`` of normal values (no special parts: every element's fused
    form shows) at the lengths that put elements in the vector blocks and the tails."""
    rng = np.random.default_rng(7)
    for dtype in (np.complex64, np.complex128):
        for n in LENGTHS:
            for _ in range(4):
                z = ((rng.standard_normal(n) + 1j * rng.standard_normal(n)) * 3).astype(dtype)
                want, got = _cube_forms(torch, z), _cube_forms(st, z)
                for form in want:
                    w = want[form].numpy()
                    g = np.asarray(got[form])
                    assert g.dtype == w.dtype and np.array_equal(_bits(g), _bits(w)), (dtype, n, form, g, w)


def _logit_grad(lib, base: np.ndarray, dtype: str, form: str, eps: float | None) -> np.ndarray:
    """logit's gradient over ``base`` as a run, a transposed view or a stepped view."""
    if form == "transposed":
        x = lib.tensor(np.stack([base, base[::-1]]).T.copy(), dtype=getattr(lib, dtype)).t()
    elif form == "stepped":
        x = lib.tensor(np.repeat(base, 2), dtype=getattr(lib, dtype))[::2]
    else:
        x = lib.tensor(base, dtype=getattr(lib, dtype))
    x.requires_grad_(True)
    y = lib.logit(x, eps)
    if form == "sum":
        (gx,) = lib.autograd.grad(y.sum(), x)  # (an expanded gradient: stride 0)
    else:
        (gx,) = lib.autograd.grad(y, x, lib.full(y.shape, -1.5, dtype=getattr(lib, dtype)))
    return np.asarray(gx.detach().numpy() if lib is torch else gx.detach())


def check_logit_grad_at_signed_zeros() -> None:
    """logit's gradient at -0.0, +0.0, 1 (and values inside and outside [0, 1]), eps None or 0."""
    for dtype in ("float64", "float32"):
        for eps in (None, 0.0):
            for n in LENGTHS:
                base = np.array([-0.0, 0.0, 1.0, 0.5, -1.0, 2.0, 0.75, 0.25, -0.0] * 5)[:n]
                for form in ("run", "sum", "transposed", "stepped"):
                    want = _logit_grad(torch, base, dtype, form, eps)
                    got = _logit_grad(st, base, dtype, form, eps)
                    assert np.array_equal(np.signbit(got), np.signbit(want)) and np.array_equal(
                        got, want, equal_nan=True), (dtype, eps, n, form, got.tolist(), want.tolist())


@pytest.fixture
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_complex_cube_is_pytorchs_on_this_cpu(one_thread):
    check_complex64_cube()


def test_logit_gradient_at_signed_zeros_is_pytorchs_on_this_cpu(one_thread):
    check_logit_grad_at_signed_zeros()


def test_logit_gradient_at_minus_zero_takes_the_vector_blocks_quotient(one_thread):
    # (the vector blocks' -inf is there whatever the capability: 2 * 8 float32 lanes at most)
    x = st.full((32,), -0.0, dtype=st.float32, requires_grad=True)
    (g,) = st.autograd.grad(st.logit(x).sum(), x)
    assert np.isneginf(np.asarray(g)[:16]).all()
    assert not st.full((1,), -0.0).logit().isnan().any()


@pytest.mark.parametrize("check", ["check_complex64_cube", "check_logit_grad_at_signed_zeros"])
def test_under_aten_cpu_capability_avx2(check):
    """The same checks with PyTorch's AVX2 build chosen by its variable (on an AVX-512 CPU: the
    AVX2 model against the AVX2 build; on an AVX2 CPU: as above)."""
    env = dict(os.environ, ATEN_CPU_CAPABILITY="avx2", OMP_NUM_THREADS="1")
    code = f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); import test_fixcplx as t; t.{check}()"
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
