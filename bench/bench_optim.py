"""Optimizer step benchmark: one ``step()`` of strided.optim's SGD (momentum), Adam and RMSprop side
by side with torch.optim's single-tensor implementation (``foreach=False``, one thread) and a
NumPy update written by hand (the same formulas, in place, unfused), printed as ratios.

Run from the repository root:

    .venv/bin/python bench/bench_optim.py          # under a minute
    .venv/bin/python bench/bench_optim.py --quick  # fewer repeats, noisier

strided computes PyTorch's fused multiply-adds (``add(alpha=)``, ``lerp``, ``addcmul``) through
float64 for float32 parameters, so that its numbers equal PyTorch's to the bit
(``strided/optim/_fused.py``); that costs temporaries NumPy's unfused arithmetic does not make.
Nothing here is a test: timings vary with the machine.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before NumPy/PyTorch load their BLAS: every library on one thread

import sys  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import strided  # noqa: E402
from harness import Row, Section, run  # noqa: E402
from strided import optim  # noqa: E402

torch.set_num_threads(1)

SIZES = {"one (1000, 1000)": [(1000, 1000)], "an MLP's 4 (784x256 ... 10)": [(256, 784), (256,), (10, 256), (10,)]}
CONFIGS = {"SGD momentum": ("SGD", {"lr": 0.01, "momentum": 0.9}), "Adam": ("Adam", {"lr": 1e-3}),
           "RMSprop": ("RMSprop", {"lr": 1e-3})}


def _numpy_step(name: str, params: list[np.ndarray], grads: list[np.ndarray], state: list[dict]) -> None:
    for p, g, s in zip(params, grads, state):
        if name == "SGD":
            buf = s.setdefault("buf", g.copy())
            buf *= 0.9
            buf += g
            p -= 0.01 * buf
        elif name == "Adam":
            s["step"] = s.get("step", 0) + 1
            m, v = s.setdefault("m", np.zeros_like(p)), s.setdefault("v", np.zeros_like(p))
            m += (g - m) * np.float32(0.1)
            v *= 0.999
            v += 0.001 * g * g
            denom = np.sqrt(v) / (1 - 0.999 ** s["step"]) ** 0.5 + 1e-8
            p -= (1e-3 / (1 - 0.9 ** s["step"])) * m / denom
        else:
            v = s.setdefault("v", np.zeros_like(p))
            v *= 0.99
            v += 0.01 * g * g
            p -= 1e-3 * g / (np.sqrt(v) + 1e-8)


def rows() -> list[Row]:
    rng = np.random.default_rng(0)
    out = []
    for label, shapes in SIZES.items():
        for cname, (name, kw) in CONFIGS.items():
            arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
            grads = [rng.standard_normal(s).astype(np.float32) * 1e-3 for s in shapes]
            sp = [strided.tensor(a, requires_grad=True) for a in arrays]
            tp = [torch.tensor(a, requires_grad=True) for a in arrays]
            for p, g in zip(sp, grads):
                p.grad = strided.tensor(g)
            for p, g in zip(tp, grads):
                p.grad = torch.tensor(g)
            so, to = getattr(optim, name)(sp, **kw), getattr(torch.optim, name)(tp, foreach=False, **kw)
            so.step()
            to.step()  # the results must agree, or the timings mean nothing
            for a, b in zip(sp, tp):
                np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-7)
            npp, nstate = [a.copy() for a in arrays], [{} for _ in arrays]
            out.append(Row(f"{cname}, {label}", so.step,
                           lambda name=name, npp=npp, grads=grads, nstate=nstate: _numpy_step(name, npp, grads, nstate),
                           to.step, target_vs="torch", target=3.0))
    return out


SECTIONS = [Section("optimizer step (float32, min over repeats)", rows, 9)]


def main(argv: list[str] | None = None) -> int:
    return run(__doc__.splitlines()[0], SECTIONS, argv)


if __name__ == "__main__":
    sys.exit(main())
