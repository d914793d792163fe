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

Rows and targets (issue 13; issue 23 set every row's target to strided/torch <= 1.0):

- reference rows without a target (issue 23): recording one op (``w * b``), and a 10-node
  graph's forward, then forward + backward: the pieces of the chain's per-op cost;

- a chain of 100 elementwise ops (multiply, add, tanh, sin in turn) on a (16, 16) float32
  tensor that requires grad, then ``.sum().backward()``: a measure of the per-op cost of
  recording a node and running its rule: strided/torch <= 1.0;
- one SGD step of an MLP, batch 256, 784 -> 512 -> 10, float32, relu, cross_entropy: forward,
  backward, and ``p -= lr * p.grad`` under no_grad for the four parameters:
  strided/torch <= 1.0;
- a small MLP trained with Adam: 64 -> 128 -> 10, batch 128, float32, relu,
  cross_entropy, Adam written by hand in each library (first and second moments ``m``, ``v``
  with ``mul_``/``add_``/``addcmul_``, bias correction, ``sqrt``, the update with ``addcdiv_``,
  all under no_grad: the ops of PyTorch's single-tensor Adam), 5 steps per call:
  strided/torch <= 1.0. Its tensors are small, so it measures the per-op overhead of a training
  loop (recording, backward, the optimizer's in-place ops) more than the kernels;
- the same MLP as a user of issue 25's surface writes it: ``nn.Sequential(nn.Linear, nn.ReLU,
  nn.Linear)``, ``nn.CrossEntropyLoss``, ``optim.Adam`` (PyTorch's single-tensor path,
  ``foreach=False``; strided's rounds its fused multiply-adds once as PyTorch's kernels do),
  ``zero_grad``/``backward``/``step``, 5 steps per call: strided/torch <= 1.0.

Nothing here is a test: timings vary with the machine and its load.
"""

from __future__ import annotations

import math
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before NumPy/PyTorch load their BLAS: every library on one thread

import sys  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as TF  # noqa: E402

import strided  # noqa: E402
import strided.autograd as ag  # noqa: E402
import strided.nn as snn  # noqa: E402
import strided.nn.functional as SF  # noqa: E402
import strided.optim as soptim  # noqa: E402
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
    return [Row("100-op chain (16,16) fwd+bwd", s_step, lambda: _numpy_chain(a), t_step, "torch", 1.0, number=20)]


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
                "torch", 1.0, number=3)]


# ---------------------------------------------------------------- the Adam training loop

ADAM_STEPS = 5  # steps per timed call
B1, B2, EPS, ADAM_LR = 0.9, 0.999, 1e-8, 1e-3


def _small_init(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"w1": (rng.standard_normal((128, 64)) / 8).astype(np.float32), "b1": np.zeros(128, np.float32),
            "w2": (rng.standard_normal((10, 128)) / 11.3).astype(np.float32), "b2": np.zeros(10, np.float32)}


def _adam_loop(F, p: dict, state: dict, x, y, no_grad, steps: int = ADAM_STEPS):
    """``steps`` Adam steps: forward, backward, then per parameter PyTorch's single-tensor Adam
    (``torch.optim.Adam``'s default path, written out) under no_grad."""
    for _ in range(steps):
        h = F.relu(F.linear(x, p["w1"], p["b1"]))
        loss = F.cross_entropy(F.linear(h, p["w2"], p["b2"]), y)
        loss.backward()
        state["t"] += 1
        t = state["t"]
        bc1, bc2 = 1 - B1 ** t, 1 - B2 ** t
        with no_grad():
            for k, w in p.items():
                g, m, v = w.grad, state["m"][k], state["v"][k]
                m.mul_(B1).add_(g, alpha=1 - B1)
                v.mul_(B2).addcmul_(g, g, value=1 - B2)
                denom = (v.sqrt() / math.sqrt(bc2)).add_(EPS)
                w.addcdiv_(m, denom, value=-ADAM_LR / bc1)
                w.grad = None
    return loss


def _numpy_adam_loop(p: dict, state: dict, x: np.ndarray, y: np.ndarray, steps: int = ADAM_STEPS) -> float:
    """The same steps by hand: the MLP's forward and backward (as in :func:`_numpy_mlp_step`), then Adam."""
    n = x.shape[0]
    rows = np.arange(n)
    for _ in range(steps):
        a1 = x @ p["w1"].T
        a1 += p["b1"]
        h = np.maximum(a1, 0)
        z = h @ p["w2"].T
        z += p["b2"]
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        prob = e / e.sum(axis=1, keepdims=True)
        loss = -np.log(prob[rows, y]).mean()
        gz = prob
        gz[rows, y] -= 1
        gz /= n
        gh = gz @ p["w2"]
        gh *= a1 > 0
        grads = {"w1": gh.T @ x, "b1": gh.sum(0), "w2": gz.T @ h, "b2": gz.sum(0)}
        state["t"] += 1
        t = state["t"]
        bc1, bc2 = 1 - B1 ** t, 1 - B2 ** t
        for k, g in grads.items():
            m, v = state["m"][k], state["v"][k]
            m *= B1
            m += (1 - B1) * g
            v *= B2
            v += (1 - B2) * g * g
            denom = np.sqrt(v) / np.float32(math.sqrt(bc2))
            denom += EPS
            p[k] += np.float32(-ADAM_LR / bc1) * (m / denom)
    return float(loss)


def adam_rows() -> list[Row]:
    rng = np.random.default_rng(1)
    init = _small_init(rng)
    x = rng.standard_normal((128, 64)).astype(np.float32)
    y = rng.integers(0, 10, 128)
    ps = {k: strided.tensor(v, requires_grad=True) for k, v in init.items()}
    pt = {k: torch.tensor(v, requires_grad=True) for k, v in init.items()}
    pn = {k: v.copy() for k, v in init.items()}
    ss = {"t": 0, "m": {k: strided.zeros(v.shape) for k, v in init.items()},
          "v": {k: strided.zeros(v.shape) for k, v in init.items()}}
    st = {"t": 0, "m": {k: torch.zeros(v.shape) for k, v in init.items()},
          "v": {k: torch.zeros(v.shape) for k, v in init.items()}}
    sn = {"t": 0, "m": {k: np.zeros_like(v) for k, v in init.items()},
          "v": {k: np.zeros_like(v) for k, v in init.items()}}
    sx, sy, tx, ty = strided.tensor(x), strided.tensor(y), torch.tensor(x), torch.tensor(y)
    # the first calls agree (same weights, same data): a check that the rows time the same work
    ls = _adam_loop(SF, ps, ss, sx, sy, ag.no_grad).item()
    lt = _adam_loop(TF, pt, st, tx, ty, torch.no_grad).item()
    ln = _numpy_adam_loop(pn, sn, x, y)
    assert abs(ls - lt) < 1e-4 and abs(ln - lt) < 1e-4, (ls, lt, ln)
    for k in init:
        np.testing.assert_allclose(ps[k].detach().numpy(), pt[k].detach().numpy(), rtol=1e-4, atol=1e-5)
    return [Row(f"Adam x{ADAM_STEPS} 128x64->128->10", lambda: _adam_loop(SF, ps, ss, sx, sy, ag.no_grad),
                lambda: _numpy_adam_loop(pn, sn, x, y), lambda: _adam_loop(TF, pt, st, tx, ty, torch.no_grad),
                "torch", 1.0, number=2)]


def _module_loop(model, loss_fn, opt, x, y, steps: int = ADAM_STEPS):
    """``steps`` training steps as a PyTorch user writes them."""
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    return loss


def module_adam_rows() -> list[Row]:
    rng = np.random.default_rng(2)
    init = _small_init(rng)
    x = rng.standard_normal((128, 64)).astype(np.float32)
    y = rng.integers(0, 10, 128)

    def build(nn, optim, tensor, **extra):
        model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
        model.load_state_dict({"0.weight": tensor(init["w1"]), "0.bias": tensor(init["b1"]),
                               "2.weight": tensor(init["w2"]), "2.bias": tensor(init["b2"])})
        return model, nn.CrossEntropyLoss(), optim.Adam(model.parameters(), lr=ADAM_LR, **extra)

    sm, sl, so = build(snn, soptim, strided.tensor)
    tm, tl, to = build(torch.nn, torch.optim, torch.tensor, foreach=False)
    sx, sy, tx, ty = strided.tensor(x), strided.tensor(y), torch.tensor(x), torch.tensor(y)
    ls = _module_loop(sm, sl, so, sx, sy).item()
    lt = _module_loop(tm, tl, to, tx, ty).item()
    assert abs(ls - lt) < 1e-4, (ls, lt)
    pn = {k: v.copy() for k, v in init.items()}  # (the NumPy column: the same steps by hand)
    sn = {"t": 0, "m": {k: np.zeros_like(v) for k, v in init.items()},
          "v": {k: np.zeros_like(v) for k, v in init.items()}}
    return [Row(f"nn + optim.Adam x{ADAM_STEPS} 128x64->128->10", lambda: _module_loop(sm, sl, so, sx, sy),
                lambda: _numpy_adam_loop(pn, sn, x, y), lambda: _module_loop(tm, tl, to, tx, ty), "torch", 1.0, number=2)]


# ---------------------------------------------------------------- the pieces of the chain (issue 23)


def micro_rows() -> list[Row]:
    """Reference rows (no target): the pieces the chain's per-op cost is made of. ``w * b`` with
    ``w`` requiring grad records one MulBackward0 node (its AccumulateGrad is made again each call,
    as in PyTorch: the leaf holds it weakly); the 10-node graph is ``((w * 1.01) * ... ).sum()``,
    built once per call, then its backward alone is the difference of the two rows below it."""
    rng = np.random.default_rng(0)
    a, c = rng.standard_normal((16, 16)).astype(np.float32), rng.standard_normal((16, 16)).astype(np.float32)
    sw, sb = strided.from_numpy(a.copy()).requires_grad_(), strided.from_numpy(c.copy())
    tw, tb = torch.from_numpy(a.copy()).requires_grad_(), torch.from_numpy(c.copy())

    def graph10(w):
        y = w
        for _ in range(9):
            y = y * 1.01
        return y.sum()

    return [Row("record one op: w * b (16,16)", lambda: sw * sb, lambda: a * c, lambda: tw * tb, "-", number=200),
            Row("10-node graph, forward", lambda: graph10(sw), lambda: (a * 1.01**9).sum(), lambda: graph10(tw), "-",
                number=50),
            Row("10-node graph, forward + backward", lambda: graph10(sw).backward(), lambda: (a * 1.01**9).sum(),
                lambda: graph10(tw).backward(), "-", number=50)]


SECTIONS = [
    Section("Recording and backward, the pieces (reference, no target)", micro_rows, 15),
    Section("Elementwise chain: 100 ops forward + backward (per step)", chain_rows, 15),
    Section("MLP training step, float32 (forward, backward, SGD update)", mlp_rows, 15),
    Section(f"MLP trained with Adam, float32 ({ADAM_STEPS} steps per call)", adam_rows, 15),
    Section(f"nn.Module + optim.Adam, float32 ({ADAM_STEPS} steps per call)", module_adam_rows, 15),
]


def main(argv: list[str] | None = None) -> int:
    return run(__doc__.splitlines()[0], SECTIONS, argv,
               libraries=f"torch {torch.__version__} (threads {torch.get_num_threads()}) | "
                         f"numpy {np.__version__} (BLAS on one thread; its column: the backward by hand)")


if __name__ == "__main__":
    sys.exit(main())
