"""Instruction-count probe of the hand-written Adam row of ``bench_autograd.py``, by phase.

Wall times on a loaded machine swing by 2-3x; instruction counts do not. Under callgrind with
instrumentation off (imports are not counted), ``--callgrind N`` runs each phase N times between
a zeroing and a dump of callgrind's counters, for strided and for PyTorch (one thread), so each
dump holds one phase of one library::

    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/cg.out \\
        python bench/train_probe.py --callgrind 10
    python bench/train_probe.py --split /tmp/cg.out 10   # per call, by shared object

The phases: ``fwd`` (linear, relu, linear, cross_entropy), ``fwdbwd`` (that and backward),
``adam`` (the Adam update of the four parameters under no_grad, as the row writes it) and
``linear1`` (the first layer's product alone, no grad: the BLAS call's floor).
``--split`` sorts each dump's instructions into the interpreter (libpython), OpenBLAS, NumPy's
ufunc module, PyTorch's libraries, libc/libm and the rest (strided's compiled kernels among them);
callgrind_annotate lists the functions that make up 99% of a dump, so the totals miss a small tail.
"""

from __future__ import annotations

import math
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before NumPy/PyTorch load their BLAS: every library on one thread

import glob  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from collections.abc import Callable  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as TF  # noqa: E402

import strided  # noqa: E402
import strided.autograd as ag  # noqa: E402
import strided.nn.functional as SF  # noqa: E402
from bench_autograd import B1, B2, EPS, _small_init  # noqa: E402

torch.set_num_threads(1)


def _phases(lib, F, no_grad) -> dict[str, Callable[[], object]]:
    """The phases of one library's Adam step, on the row's weights and data."""
    rng = np.random.default_rng(1)
    init = _small_init(rng)
    x = rng.standard_normal((128, 64)).astype(np.float32)
    y = rng.integers(0, 10, 128)
    p = {k: lib.tensor(v, requires_grad=True) for k, v in init.items()}
    m = {k: lib.zeros(v.shape) for k, v in init.items()}
    v2 = {k: lib.zeros(v.shape) for k, v in init.items()}
    xs, ys = lib.tensor(x), lib.tensor(y)

    def fwd():
        return F.cross_entropy(F.linear(F.relu(F.linear(xs, p["w1"], p["b1"])), p["w2"], p["b2"]), ys)

    def fwdbwd():
        fwd().backward()

    def adam():  # (the row's update with fixed bias corrections: the same ops, the same count)
        with no_grad():
            for k, w in p.items():
                g, mk, vk = w.grad, m[k], v2[k]
                mk.mul_(B1).add_(g, alpha=1 - B1)
                vk.mul_(B2).addcmul_(g, g, value=1 - B2)
                denom = (vk.sqrt() / math.sqrt(0.5)).add_(EPS)
                w.addcdiv_(mk, denom, value=-1e-3 / 0.5)

    def linear1():
        with no_grad():
            return F.linear(xs, p["w1"].detach(), p["b1"].detach())

    fwdbwd()  # (every parameter has a grad for adam)
    return {"fwd": fwd, "fwdbwd": fwdbwd, "adam": adam, "linear1": linear1}


PROBES = {f"{lib.__name__}_{name}": f
          for lib, F, no_grad in ((strided, SF, ag.no_grad), (torch, TF, torch.no_grad))
          for name, f in _phases(lib, F, no_grad).items()}

_GROUPS = (("python", "libpython"), ("openblas", "openblas"), ("numpy", "_multiarray_umath"),
           ("torch", "torch"), ("libc/m", "libc.so"), ("libc/m", "libm"))


def split(prefix: str, n: int) -> None:
    """Each dump's instructions per call, by shared object (callgrind_annotate's file:function lines)."""
    for path in sorted(glob.glob(prefix + ".*")):
        text = subprocess.run(["callgrind_annotate", path], check=True, capture_output=True, text=True).stdout
        name = re.search(r"probe=(\S+)", text)
        counts: dict[str, int] = {}
        for line in text.splitlines():
            hit = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+\S.*\[(.*)\]$", line)
            if hit:
                group = next((g for g, key in _GROUPS if key in hit[2]), "other")
                counts[group] = counts.get(group, 0) + int(hit[1].replace(",", ""))
        total = sum(counts.values())
        parts = "  ".join(f"{g} {c / n / 1e3:7.0f}k" for g, c in sorted(counts.items()))
        print(f"{name[1] if name else path:18s} total {total / n / 1e3:7.0f}k  {parts}")


def main() -> None:
    if sys.argv[1] == "--split":
        split(sys.argv[2], int(sys.argv[3]))
        return
    n = int(sys.argv[2])
    control = ["callgrind_control", str(os.getpid())]
    subprocess.run([*control, "-i", "on"], check=True, capture_output=True)
    for name, f in PROBES.items():
        for _ in range(3):  # (warm: plans and memos learnt)
            f()
        subprocess.run([*control, "-z"], check=True, capture_output=True)
        for _ in range(n):
            f()
        subprocess.run([*control, "-d", f"probe={name}"], check=True, capture_output=True)


if __name__ == "__main__":
    main()
