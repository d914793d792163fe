"""Autograd benchmark: forward + backward in strided side by side with PyTorch (and hand-written NumPy), as ratios.

Run from the repository root:

    .venv/bin/python bench/bench_autograd.py          # about half a minute
    .venv/bin/python bench/bench_autograd.py --quick  # fewer repeats, noisier

How to read it
--------------
Each row times the same training work in the three libraries, round-robin, and prints the
minimum per-call time over the repeats and the ratios (above 1: strided is slower). The NumPy
column is the same computation with its backward written out by hand (no graph, no
bookkeeping): the floor an autograd on NumPy's kernels could reach. PyTorch runs on one thread
(``torch.set_num_threads(1)``), NumPy's BLAS too.

Rows and targets (issue 13):

- a chain of 100 elementwise ops (multiply, add, tanh, sin in turn) on a (16, 16) float32
  tensor that requires grad, then ``.sum().backward()``: a measure of the per-op cost of
  recording a node and running its rule (reference row: no target; PyTorch's per-op
  overhead is C++);
- one SGD step of an MLP, batch 256, 784 -> 512 -> 10, float32, relu, cross_entropy: forward,
  backward, and ``p -= lr * p.grad`` under no_grad for the four parameters:
  strided/torch <= 2.0.

Nothing here is a test: timings vary with the machine and its load.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before NumPy/PyTorch load their BLAS: every library on one thread

import sys  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as TF  # noqa: E402

import strided  # noqa: E402
import strided.autograd as ag  # noqa: E402
import strided.nn.functional as SF  # noqa: E402
from harness import Row, Section, run  # noqa: E402

torch.set_num_threads(1)

LR = 0.01


# ---------------------------------------------------------------- the elementwise chain


def _chain(x, lib_sin, lib_tanh):
    y = x
    for _ in range(25):  # 4 ops a round: 100 ops
        y = lib_tanh(lib_sin(y * 1.01 + 0.1))
    return y


def _numpy_chain(a: np.ndarray) -> np.ndarray:
    """The chain's forward and its hand-written backward: the gradient of sum(chain(a))."""
    saved = []
    y = a
    for _ in range(25):
        u = y * np.float32(1.01) + np.float32(0.1)
        s = np.sin(u)
        t = np.tanh(s)
        saved.append((u, t))
        y = t
    g = np.ones_like(a)
    for u, t in reversed(saved):
        g = g * (1 - t * t) * np.cos(u) * np.float32(1.01)
    return g


def chain_rows() -> list[Row]:
    a = np.random.default_rng(0).standard_normal((16, 16)).astype(np.float32) * 0.5
    sx = strided.tensor(a, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)

    def s_step():
        _chain(sx, strided.sin, strided.tanh).sum().backward()
        sx.grad = None

    def t_step():
        _chain(tx, torch.sin, torch.tanh).sum().backward()
        tx.grad = None

    s_step()
    t_step()
    _chain(sx, strided.sin, strided.tanh).sum().backward()
    _chain(tx, torch.sin, torch.tanh).sum().backward()
    np.testing.assert_allclose(sx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(_numpy_chain(a), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    sx.grad = tx.grad = None
    return [Row("100-op chain (16,16) fwd+bwd", s_step, lambda: _numpy_chain(a), t_step, "-", 0, number=20)]


# ---------------------------------------------------------------- the MLP step


def _init(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"w1": (rng.standard_normal((512, 784)) / 28).astype(np.float32), "b1": np.zeros(512, np.float32),
            "w2": (rng.standard_normal((10, 512)) / 22.6).astype(np.float32), "b2": np.zeros(10, np.float32)}


def _mlp_step(lib, F, p: dict, x, y, no_grad):
    h = F.relu(F.linear(x, p["w1"], p["b1"]))
    loss = F.cross_entropy(F.linear(h, p["w2"], p["b2"]), y)
    loss.backward()
    with no_grad():
        for t in p.values():
            t -= LR * t.grad
            t.grad = None
    return loss


def _numpy_mlp_step(p: dict, x: np.ndarray, y: np.ndarray) -> float:
    """The same step by hand: forward, softmax-cross-entropy's gradient, the two layers' backward, SGD."""
    n = x.shape[0]
    a1 = x @ p["w1"].T
    a1 += p["b1"]
    h = np.maximum(a1, 0)
    z = h @ p["w2"].T
    z += p["b2"]
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    prob = e / e.sum(axis=1, keepdims=True)
    loss = -np.log(prob[np.arange(n), y]).mean()
    gz = prob
    gz[np.arange(n), y] -= 1
    gz /= n
    gw2, gb2 = gz.T @ h, gz.sum(0)
    gh = gz @ p["w2"]
    gh *= a1 > 0
    gw1, gb1 = gh.T @ x, gh.sum(0)
    for k, g in (("w1", gw1), ("b1", gb1), ("w2", gw2), ("b2", gb2)):
        p[k] -= LR * g
    return float(loss)


def mlp_rows() -> list[Row]:
    rng = np.random.default_rng(0)
    init = _init(rng)
    x = rng.standard_normal((256, 784)).astype(np.float32)
    y = rng.integers(0, 10, 256)
    ps = {k: strided.tensor(v, requires_grad=True) for k, v in init.items()}
    pt = {k: torch.tensor(v, requires_grad=True) for k, v in init.items()}
    pn = {k: v.copy() for k, v in init.items()}
    sx, sy, tx, ty = strided.tensor(x), strided.tensor(y), torch.tensor(x), torch.tensor(y)
    # the first steps agree (same weights, same data): a check that the rows time the same work
    ls = _mlp_step(strided, SF, ps, sx, sy, ag.no_grad).item()
    lt = _mlp_step(torch, TF, pt, tx, ty, torch.no_grad).item()
    ln = _numpy_mlp_step(pn, x, y)
    assert abs(ls - lt) < 1e-4 and abs(ln - lt) < 1e-4, (ls, lt, ln)
    return [Row("MLP step 256x784->512->10", lambda: _mlp_step(strided, SF, ps, sx, sy, ag.no_grad),
                lambda: _numpy_mlp_step(pn, x, y), lambda: _mlp_step(torch, TF, pt, tx, ty, torch.no_grad),
                "torch", 2.0, number=3)]


SECTIONS = [
    Section("Elementwise chain: 100 ops forward + backward (per step)", chain_rows, 15),
    Section("MLP training step, float32 (forward, backward, SGD update)", mlp_rows, 15),
]


def main(argv: list[str] | None = None) -> int:
    return run(__doc__.splitlines()[0], SECTIONS, argv,
               libraries=f"torch {torch.__version__} (threads {torch.get_num_threads()}) | "
                         f"numpy {np.__version__} (BLAS on one thread; its column: the backward by hand)")


if __name__ == "__main__":
    sys.exit(main())
