"""addmv against torch: the signs of zero results (PyTorch's BLAS gemv starts from beta * input
and adds alpha-scaled products; NumPy's dot scaled and added after gave other signs: 173 of 672
mixed-zero cases differed, beta=0/alpha=-1 the most) and the empty-matrix shortcut, whose result
takes the input's own shape (mat (17, 0), input (1,): shape (1,), with PyTorch's resize warning)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st


def _mat(values, layout):
    """torch and strided views of ``values`` (n, k): "r" row-major, "c" column-major, "s" every
    other column of a wider matrix."""
    if layout == "c":
        f = np.asfortranarray(values)
        return torch.from_numpy(f), st.tensor(values).t().contiguous().t()
    if layout == "s":
        wide = np.repeat(values, 2, axis=1)
        return torch.from_numpy(wide)[:, ::2], st.tensor(wide)[:, ::2]
    return torch.from_numpy(values), st.tensor(values)


@settings(max_examples=300, deadline=None)
@given(dt=hs.sampled_from(["float32", "float64"]), nk=hs.sampled_from([(3, 4), (1, 3), (5, 1), (7, 9), (40, 33)]),
       ishape=hs.sampled_from(["n", "1", "0d"]), layout=hs.sampled_from("rcs"),
       beta=hs.sampled_from([0, 1, -1, 2, 0.0]), alpha=hs.sampled_from([1, -1, 0, -0.5, 2]),
       nonzero=hs.booleans(), seed=hs.integers(0, 2**32 - 1), use_out=hs.booleans())
def test_addmv_bits_match_torch(dt, nk, ishape, layout, beta, alpha, nonzero, seed, use_out):
    rng = np.random.default_rng(seed)
    n, k = nk
    vals = np.array([0.0, -0.0, 1.0, -1.0] if nonzero else [0.0, -0.0], dt)
    shape = {"n": (n,), "1": (1,), "0d": ()}[ishape]
    inp, mat, vec = rng.choice(vals, shape), rng.choice(vals, (n, k)), rng.choice(vals, (k,))
    tm, sm = _mat(mat, layout)
    want = torch.addmv(torch.from_numpy(inp), tm, torch.from_numpy(vec), beta=beta, alpha=alpha)
    if use_out:
        got = st.empty(n, dtype=getattr(st, dt))
        st.addmv(st.tensor(inp), sm, st.tensor(vec), beta=beta, alpha=alpha, out=got)
    else:
        got = st.addmv(st.tensor(inp), sm, st.tensor(vec), beta=beta, alpha=alpha)
    w = want.numpy()
    g = np.asarray(got.numpy())
    np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(np.signbit(g), np.signbit(w))


@pytest.mark.parametrize("n", [17, 1, 0])
@pytest.mark.parametrize("ishape", ["n", "1", "0d"])
@pytest.mark.parametrize("beta", [1, 0, 2])
def test_empty_matrix_takes_the_input_shape(n, ishape, beta):
    shape = {"n": (n,), "1": (1,), "0d": ()}[ishape]
    results = []
    for m in (torch, st):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = m.addmv(m.full(shape, -0.0) if n else m.full(shape, 3.0), m.ones(n, 0), m.ones(0), beta=beta)
        results.append((tuple(r.shape), np.asarray(r.numpy()).tolist(), np.signbit(np.asarray(r.numpy())).tolist(),
                        [str(c.message).split(" (Triggered")[0] for c in caught if c.category is UserWarning]))
    assert results[1] == results[0]


# --- MKL's code path: PyTorch's gemv is MKL's, whose kernel (so the signs of zero results) depends
# on the CPU's vendor and instruction sets and on MKL_ENABLE_INSTRUCTIONS / MKL_CBWR, read when
# torch loads. strided follows the path strided.kernels.mkl_path names; the sweeps below rerun in
# subprocesses with the variables set, so every modelled Intel path is checked on an Intel machine
# that has its instructions (on another vendor the variables change neither library's path).

_SWEEP = r'''
import numpy as np, torch, strided as st
rng = np.random.default_rng(0); bad = 0; total = 0
for dt in ("float32", "float64"):
    for n, k in ((1, 1), (1, 3), (3, 4), (5, 1), (4, 2), (7, 9), (8, 5), (9, 12), (40, 33)):
        for layout in "rcs":
            for beta in (0, 1, -1):
                for alpha in (1, -1, 0, 2):
                    for trial in range(4):
                        vals = np.array([0.0, -0.0, 1.0, -1.0] if trial % 2 else [0.0, -0.0], dt)
                        inp, mat, vec = rng.choice(vals, (n,)), rng.choice(vals, (n, k)), rng.choice(vals, (k,))
                        if layout == "c":
                            tm, sm = torch.from_numpy(np.asfortranarray(mat)), st.tensor(mat).t().contiguous().t()
                        elif layout == "s":
                            wide = np.repeat(mat, 2, axis=1)
                            tm, sm = torch.from_numpy(wide)[:, ::2], st.tensor(wide)[:, ::2]
                        else:
                            tm, sm = torch.from_numpy(mat), st.tensor(mat)
                        w = torch.addmv(torch.from_numpy(inp), tm, torch.from_numpy(vec), beta=beta, alpha=alpha).numpy()
                        g = np.asarray(st.addmv(st.tensor(inp), sm, st.tensor(vec), beta=beta, alpha=alpha).numpy())
                        total += 1
                        bad += not (np.array_equal(g, w) and np.array_equal(np.signbit(g), np.signbit(w)))
print(st.kernels.mkl_path.mkl_path(), bad, total)
'''


def _run_sweep(env: dict) -> tuple[str, int, int]:
    """The sweep above in a fresh interpreter with ``env`` added: (path, mismatches, cases)."""
    import os
    import subprocess
    import sys

    src = os.path.dirname(os.path.dirname(st.__file__))
    full = {k: v for k, v in os.environ.items() if k not in ("MKL_ENABLE_INSTRUCTIONS", "MKL_CBWR")}
    full.update(env, PYTHONPATH=src + os.pathsep + full.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", "import strided.kernels.mkl_path\n" + _SWEEP],
                          env=full, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    path, bad, total = done.stdout.split()[-3:]
    return path, int(bad), int(total)


def _intel_flags() -> frozenset:
    from strided.kernels import mkl_path as mp
    vendor, flags = mp.cpuinfo()
    return flags if vendor == "GenuineIntel" else frozenset()


@pytest.mark.parametrize("env,path,needs", [
    ({"MKL_ENABLE_INSTRUCTIONS": "AVX2"}, "avx2", {"avx2", "fma"}),
    ({"MKL_CBWR": "AVX2"}, "avx2", {"avx2", "fma"}),
    ({"MKL_CBWR": "COMPATIBLE"}, "cbwr_compat", {"sse4_2"}),
    ({"MKL_ENABLE_INSTRUCTIONS": "SSE4_2"}, "sse42", {"sse4_2"}),
    ({"MKL_CBWR": "SSE4_2"}, "cbwr_sse42", {"sse4_2"}),
    ({"MKL_ENABLE_INSTRUCTIONS": "AVX512"}, "avx512", {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"}),
])
def test_addmv_signs_follow_each_mkl_path(env, path, needs):
    flags = _intel_flags()
    if not flags:
        # (not Intel: MKL's generic path whatever the variables say; the main sweep covers it)
        got_path, bad, total = _run_sweep(env)
        assert (got_path, bad) == ("generic", 0), f"{bad} of {total} differ on path {got_path}"
        return
    if not needs <= flags:
        pytest.skip(f"this Intel CPU lacks {sorted(needs - flags)}: MKL cannot take the {path} path here")
    got_path, bad, total = _run_sweep(env)
    assert (got_path, bad) == (path, 0), f"{bad} of {total} addmv results differ from torch on path {got_path}"


@pytest.mark.parametrize("vendor,flags,enable,cbwr,want", [
    ("AuthenticAMD", {"avx2", "fma", "sse4_2", "avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"}, "", "",
     "generic"),
    ("AuthenticAMD", {"avx2", "fma", "sse4_2"}, "SSE4_2", "COMPATIBLE", "generic"),
    ("GenuineIntel", {"avx2", "fma", "sse4_2", "avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"}, "", "",
     "avx512"),
    ("GenuineIntel", {"avx2", "fma", "sse4_2", "avx512f"}, "", "", "avx2"),
    ("GenuineIntel", {"avx2", "fma", "sse4_2"}, "", "", "avx2"),
    ("GenuineIntel", {"avx2", "fma", "sse4_2"}, "AVX512", "", "avx2"),
    ("GenuineIntel", {"avx2", "fma", "sse4_2"}, "AVX", "", "sse42"),
    ("GenuineIntel", {"avx2", "fma", "sse4_2"}, "bogus", "", "avx2"),
    ("GenuineIntel", {"sse4_2"}, "", "", "sse42"),
    ("GenuineIntel", {"sse2"}, "", "", "generic"),
    ("GenuineIntel", {"avx2", "fma", "sse4_2"}, "AVX2", "COMPATIBLE,STRICT", "cbwr_compat"),
    ("GenuineIntel", {"avx2", "fma", "sse4_2"}, "", "SSE4_2", "cbwr_sse42"),
    ("GenuineIntel", {"avx2", "fma", "sse4_2"}, "SSE4_2", "AUTO", "sse42"),
    ("", set(), "", "", "generic"),
])
def test_mkl_path_choice(vendor, flags, enable, cbwr, want):
    from strided.kernels.mkl_path import path_for
    assert path_for(vendor, frozenset(flags), enable, cbwr) == want
