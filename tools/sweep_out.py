"""Sweep every registry op's ``out=`` against PyTorch's, side by side, and print where they part.

For each op of the registry that is a module function in both libraries, the first argument set
of ``bench/bench_ops.py`` that PyTorch runs is called again with ``out=`` an empty tensor of the
result's dtype and of other dtypes (float16, int64, bool, complex64, ...), in PyTorch and in
strided. A line is printed where one accepts and the other refuses, where the error classes
differ, or where both accept and the values written differ (ops whose values no peer shares,
random draws and uninitialized memory, compare only acceptance). Values of the ops PyTorch
computes with MKL (its VML transcendental functions, its BLAS) may differ by an ulp: those rows
are the known MKL gap (see ``strided.kernels.sleef``), not an out= problem.

Not a test: a finder of work. Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/sweep_out.py            # every op
    PYTHONPATH=src .venv/bin/python tools/sweep_out.py cumsum abs  # these ops only
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import bench_ops as B  # noqa: E402
import strided  # noqa: E402
from strided.opdef import OPDEFS  # noqa: E402

OUT_DTYPES = ("float16", "float32", "float64", "int64", "int16", "bool", "complex64")


def _outcome(fn: Any, args: tuple, kw: dict, out: Any) -> tuple[str, np.ndarray | None]:
    """("ok", the values written) or (the error's class, its first line)."""
    try:
        fn(*args, **kw, out=out)
    except Exception as e:  # noqa: BLE001 (the class is what is compared)
        return f"{type(e).__name__.removeprefix('Strided')}: {str(e).splitlines()[0][:70]}", None
    try:
        return "ok", np.asarray(out.numpy() if isinstance(out, torch.Tensor) else out).copy()
    except TypeError:  # (bfloat16: NumPy has no such dtype)
        return "ok", None


def sweep(names: list[str]) -> list[str]:
    """The lines of disagreement for ``names`` (ops of the registry)."""
    cfg = B.SMALL[0]
    lines = []
    for name in names:
        s_fn, s_prop = B._resolve(strided, name, strided.Tensor)
        t_fn = getattr(torch, name, None) or getattr(torch.linalg, name.removeprefix("linalg_"), None)
        if s_fn is None or s_prop or not callable(t_fn) or name.endswith("_"):
            continue
        try:
            attempts = B._attempts(name, cfg)
        except B.Skip:
            continue
        for variant, (args, kw) in attempts:
            ta, tkw = B._convert(args, "torch"), {k: B._convert(v, "torch") for k, v in kw.items()}
            try:
                result = t_fn(*ta, **tkw)
            except Exception:  # noqa: BLE001 (this argument set is not one PyTorch takes)
                continue
            if not isinstance(result, torch.Tensor):
                break
            sa, skw = B._convert(args, "strided"), {k: B._convert(v, "strided") for k, v in kw.items()}
            for odt in OUT_DTYPES:
                t_said, t_vals = _outcome(t_fn, ta, tkw, torch.empty(0, dtype=getattr(torch, odt)))
                s_said, s_vals = _outcome(s_fn, sa, skw, strided.empty(0, dtype=getattr(strided, odt)))
                label = f"{name} {variant} out={odt}".replace("  ", " ")
                if t_said.split(":")[0] != s_said.split(":")[0]:
                    lines.append(f"{label}: torch {t_said} | strided {s_said}")
                elif (t_said == "ok" and t_vals is not None and s_vals is not None and name not in B.UNSEEDED
                      and (t_vals.shape != s_vals.shape or not np.array_equal(t_vals, s_vals, equal_nan=True))):
                    lines.append(f"{label}: values differ (shapes {t_vals.shape} / {s_vals.shape})")
            break
    return lines


def main(argv: list[str]) -> int:
    warnings.filterwarnings("ignore")
    names = argv or sorted({op.name for op in OPDEFS.values()})
    lines = sweep(names)
    print("\n".join(lines))
    print(f"{len(lines)} disagreements")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
