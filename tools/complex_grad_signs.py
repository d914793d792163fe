"""Complex gradients bit for bit against PyTorch, signs of zero included: every sample of
``tests/double_samples.py`` (one call per differentiable registry op) with complex64/complex128
inputs whose parts are small integers and signed zeros (pure real, pure imaginary and zero values
are common), plain and permuted layouts, first order and second order (create_graph). Not a test:
a probe that prints, per op, how many of its cases differ (NaNs compared as NaN, payloads aside).

    PYTHONPATH=src python tools/complex_grad_signs.py [--seeds N] [op ...]
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path.cwd() / "tests"))

import double_samples as D  # noqa: E402
import strided as st  # noqa: E402

_PARTS = np.array([-2.0, -1.0, -0.0, 0.0, 0.0, 1.0, 2.0, 0.5])
_LIBS = ((torch, torch.nn.functional), (st, st.nn.functional))


def _draw(rng: np.random.Generator, shape: tuple, dtype: type) -> np.ndarray:
    """Small-integer parts with signed zeros; a third of the values pure real or imaginary."""
    re, im = rng.choice(_PARTS, shape), rng.choice(_PARTS, shape)
    kind = rng.integers(0, 3, shape)
    re = np.where(kind == 1, 0.0 * re, re)
    im = np.where(kind == 2, 0.0 * im, im)
    out = np.empty(shape, dtype)
    if np.issubdtype(dtype, np.complexfloating):
        out.real, out.imag = re, im
    else:
        out[...] = re
    return out


def _leaf(L, arr: np.ndarray, permuted: bool):
    if permuted and arr.ndim >= 2:
        order = tuple(reversed(range(arr.ndim)))
        t = L.from_numpy(arr.transpose(order).copy()).requires_grad_(True)
        return t, t.permute(*order)
    t = L.from_numpy(arr.copy()).requires_grad_(True)
    return t, t


def _np(t, shape, dtype):
    if t is None or (isinstance(t, torch.Tensor) and t._is_zerotensor()):
        return np.zeros(shape, dtype)
    return np.ascontiguousarray(t.detach().resolve_conj().numpy() if isinstance(t, torch.Tensor)
                                else t.detach().numpy())


def _canon(a: np.ndarray) -> bytes:
    """The bits of ``a`` with every NaN part made one NaN (payloads and NaN signs aside)."""
    a = np.ascontiguousarray(a)
    if a.dtype.kind == "c":
        f = a.view(a.real.dtype).copy()
    elif a.dtype.kind == "f":
        f = a.copy()
    else:
        return a.tobytes()
    f[np.isnan(f)] = np.nan
    return f.tobytes()


def _run(L, F, sample, dtype, permuted: bool, seed: int):
    """(first derivatives, second derivatives) as byte strings, or the error's class name."""
    rng = np.random.default_rng([seed, sum(map(ord, sample.op + sample.label))])
    arrs = [_draw(rng, s, dtype) for s in sample.shapes]
    leaves, views = zip(*(_leaf(L, a, permuted) for a in arrs))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = sample.call(L, F, *views)
            outs = out if isinstance(out, (tuple, list)) else (out,)
            outs = [o for o in outs if (o.dtype.is_floating_point or o.dtype.is_complex) and o.requires_grad]
            if not outs:
                return "no-grad"
            gs = [L.from_numpy(_draw(rng, tuple(o.shape), _npdtype(o.dtype))).requires_grad_(True) for o in outs]
            first = L.autograd.grad(outs, leaves, gs, create_graph=True, allow_unused=True)
            got1 = [_canon(_np(g, tuple(t.shape), dtype)) for g, t in zip(first, leaves)]
            pairs = [(g, L.from_numpy(_draw(rng, tuple(g.shape), dtype))) for g in first
                     if g is not None and g.requires_grad]
            if not pairs:
                return got1, None
            wrt = (*leaves, *gs)
            try:
                second = L.autograd.grad([p[0] for p in pairs], wrt, [p[1] for p in pairs], allow_unused=True)
            except Exception as e:  # noqa: BLE001 - the refusal is compared
                return got1, _builtin(e)
            got2 = [_canon(_np(g, tuple(w.shape), _npdtype(w.dtype))) for g, w in zip(second, wrt)]
            return got1, got2
    except Exception as e:  # noqa: BLE001
        return _builtin(e)


def _builtin(e: Exception) -> str:
    """The name of the first builtin class of ``e`` (strided's errors subclass PyTorch's builtins)."""
    return next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")


def _npdtype(dt):
    return {"complex64": np.complex64, "complex128": np.complex128, "float32": np.float32,
            "float64": np.float64}[str(dt).split(".")[-1]]


def main(argv: list[str]) -> None:
    seeds = 3
    if argv[:1] == ["--seeds"]:
        seeds, argv = int(argv[1]), argv[2:]
    totals = {"first": 0, "second": 0, "error": 0, "cases": 0}
    for sample in D.SAMPLES:
        if argv and sample.op not in argv:
            continue
        bad1 = bad2 = err = n = 0
        notes = []
        for dtype in (np.complex64, np.complex128):
            for permuted in (False, True):
                if permuted and not any(len(s) >= 2 for s in sample.shapes):
                    continue
                for seed in range(seeds):
                    want = _run(torch, torch.nn.functional, sample, dtype, permuted, seed)
                    if isinstance(want, str):
                        continue  # torch refuses (or nothing differentiable): not this probe's subject
                    n += 1
                    got = _run(st, st.nn.functional, sample, dtype, permuted, seed)
                    if isinstance(got, str):
                        err += 1
                        notes.append(f"strided {got}")
                        continue
                    if got[0] != want[0]:
                        bad1 += 1
                    elif got[1] != want[1]:
                        bad2 += 1
        totals["cases"] += n
        totals["first"] += bad1
        totals["second"] += bad2
        totals["error"] += err
        if bad1 or bad2 or err:
            print(f"{sample.op}{'-' + sample.label if sample.label else ''}: {n} cases, first {bad1}, "
                  f"second {bad2}, error {err} {sorted(set(notes))[:2]}", flush=True)
    print("TOTAL", totals)


if __name__ == "__main__":
    main(sys.argv[1:])
