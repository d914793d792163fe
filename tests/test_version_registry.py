"""``_version`` of every registry op's results and inputs against PyTorch's (tools/version_probe.py):
each op called as named, in place, with ``out=`` (sized and resized), then each input written once
(a view's counter is its base's). Plus the ops whose PyTorch kernel writes its result in place,
over the arguments that change how many writes it makes."""

from __future__ import annotations

import importlib.util
import pathlib
import warnings

import numpy as np
import pytest
import torch

import strided as st

ROOT = pathlib.Path(__file__).resolve().parents[1]

# The differences kept on purpose, each with the kind of line it may differ in:
# - conj: strided's conj() of a complex tensor writes the conjugates (it has no lazy conjugate
#   bit: complex_ops' module note), so its result has a counter of its own; PyTorch's is a view
#   sharing its input's.
# - kron: PyTorch's kron(out=) writes through ``_unsafe_view(out)``, a tensor with a counter of
#   its own, so ``out._version`` stays 0 (a write autograd's saved-tensor check never sees: an
#   accident); strided counts the write, as every out= write.
EXPECTED = {"conj": "shared after a write", "kron": "out"}


def _probe():
    spec = importlib.util.spec_from_file_location("version_probe", ROOT / "tools" / "version_probe.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_registry_op_counts_as_pytorch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found, compared = _probe().probe()
    assert compared > 4000  # (the walk ran: ~4,800 calls compared in both libraries)
    unexpected = {k: v for k, v in found.items() if k[1] not in EXPECTED}
    assert not unexpected, "\n".join(f"{k}: strided {s}, torch {t}" for k, (s, t) in sorted(unexpected.items()))
    for (_, name, how, what), _ in found.items():
        assert EXPECTED[name] in (what if name == "conj" else how), (name, how, what)
    assert {k[1] for k in found} == set(EXPECTED)  # (a list entry that no longer differs goes)


def test_every_registry_op_counts_as_pytorch_under_autograd():
    """The same walk with every float input requiring grad (recorded calls; in place and out=
    refused in both), on (3, 4) and a transpose: only conj's copy differs."""
    module = _probe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found, compared = module.probe(grad=True, configs=(module.CONFIGS[0], module.CONFIGS[2]))
    assert compared > 800
    assert {k[1] for k in found} == {"conj"}, sorted(found.items())
    assert all(EXPECTED["conj"] in k[3] for k in found)


def _both(make):
    """``make(lib)`` in strided and in torch (each its own library's tensors)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make(st), make(torch)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "bool", "complex64"])
@pytest.mark.parametrize("equal_nan", [False, True])
@pytest.mark.parametrize("tols", [(1e-5, 1e-8), (0.0, 0.0), (0.0, 1e-8), (1e-5, 0.0)])
def test_isclose_writes(dtype, equal_nan, tols):
    def make(lib):
        x = lib.ones(3, dtype=getattr(lib, dtype))
        return lib.isclose(x, x, *tols, equal_nan=equal_nan)._version

    s, t = _both(make)
    assert s == t


@pytest.mark.parametrize("op", ["quantile", "nanquantile"])
@pytest.mark.parametrize("q", ["number", "0-d", "1-d"])
@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "nearest", "midpoint"])
@pytest.mark.parametrize("dim", [None, 1])
def test_quantile_writes(op, q, interpolation, dim):
    a = np.random.default_rng(0).random((3, 5))

    def make(lib):
        qq = 0.3 if q == "number" else lib.tensor(0.3 if q == "0-d" else [0.2, 0.7], dtype=lib.float64)
        r = getattr(lib, op)(lib.tensor(a), qq, dim=dim, interpolation=interpolation)
        o = lib.empty(0, dtype=lib.float64)
        getattr(lib, op)(lib.tensor(a), qq, dim=dim, interpolation=interpolation, out=o)
        return r._version, o._version

    s, t = _both(make)
    assert s == t


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 3), (0, 4)])
@pytest.mark.parametrize("kw", [{}, {"hermitian": True}, {"atol": 0.1}, {"rtol": 0.1}])
def test_matrix_rank_writes(shape, kw):
    a = np.random.default_rng(1).random(shape, np.float32)
    if kw.get("hermitian"):
        a = a[..., : shape[-1], :] if shape[-2] >= shape[-1] else a[..., :, : shape[-2]]
        a = a + np.swapaxes(a, -1, -2)

    def make(lib):
        r = lib.linalg.matrix_rank(lib.tensor(a), **kw)
        o = lib.empty(0, dtype=lib.int64)
        lib.linalg.matrix_rank(lib.tensor(a), **kw, out=o)
        return r._version, o._version

    s, t = _both(make)
    assert s == t


@pytest.mark.parametrize("size", [(0,), (2, 3), (3, 4), ()])
def test_out_writes(size):
    """The out= forms that PyTorch composes of writes its _version counts one by one: nanmean
    (nansum then div_), randn (resize_ then normal_), empty (resize_), the copies' resize_ then copy_."""
    a = np.random.default_rng(2).random((3, 4), np.float32)

    def make(lib):
        x = lib.tensor(a)
        seen = []
        for call in (lambda o: lib.nanmean(x, out=o), lambda o: lib.nanmean(x, 1, out=o),
                     lambda o: lib.randn(3, 4, out=o), lambda o: lib.rand(3, 4, out=o),
                     lambda o: lib.empty(3, 4, out=o), lambda o: lib.zeros(3, 4, out=o)):
            o = lib.empty(size)
            call(o)
            seen.append(o._version)
        for call, n in ((lambda o: lib.unbind_copy(x, out=o), 3),
                        (lambda o: lib.split_with_sizes_copy(x, [1, 2], out=o), 2)):
            outs = [lib.empty(size) for _ in range(n)]
            call(outs)
            seen.append([o._version for o in outs])
        return seen

    s, t = _both(make)
    assert s == t


def test_conj_physical_inplace_counts_once():
    def make(lib):
        c = lib.tensor([1 + 2j, 3 - 1j])
        view = c[1:]
        c.conj_physical_()
        r = lib.ones(2)
        r.conj_physical_()
        return c._version, view._version, r._version, c.tolist()

    s, t = _both(make)
    assert s == t


def test_from_numpy_counters():
    """from_numpy (a view op without a tensor input): each call a counter of its own, as PyTorch's."""
    def make(lib):
        a = np.ones((3, 4), np.float32)
        x, y, z = lib.from_numpy(a), lib.from_numpy(a), lib.from_numpy(a[1:])
        x.add_(1)
        return x._version, y._version, z._version, z[0]._version

    s, t = _both(make)
    assert s == t


_RESIZES = """
import warnings, torch, strided as st
warnings.simplefilter("ignore")
def seen(lib):
    out = []
    for shape in ((5,), (3,), (2, 2)):
        x = lib.ones(3)
        x.resize_(shape)
        out.append(x._version)
    x = lib.ones(3)
    x.resize_as_(lib.ones(2, 2))
    out.append(x._version)
    for make in (lambda o: lib.zeros(3, 4, out=o), lambda o: lib.arange(5.0, out=o), lambda o: lib.randn(3, 4, out=o),
                 lambda o: lib.empty(3, 4, out=o), lambda o: lib.tensordot(lib.ones(2, 2), lib.ones(2, 2), 1, out=o),
                 lambda o: lib.bernoulli(lib.full((3, 4), 0.5), out=o)):
        o = lib.empty(0)
        make(o)
        out.append(o._version)
    return out
print(seen(st) == seen(torch), seen(st), seen(torch))
"""


@pytest.mark.parametrize("used", [False, True])
def test_resize_counts_where_sizes_change(used):
    """Tensor.resize_ counts a write where the sizes change (PyTorch's dispatcher resize_), before
    autograd is used too (a fresh process); the resizes inside an op's out= kernel (ATen's
    resize_output) do not, but for randn's and empty's, which call resize_."""
    import subprocess
    import sys

    code = ("import strided as st; (st.ones(2, requires_grad=True) * 2).sum()\n" if used else "") + _RESIZES
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.stdout.startswith("True"), run.stdout + run.stderr
