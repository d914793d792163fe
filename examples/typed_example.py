"""A small typed program: ``mypy --strict examples/typed_example.py`` passes.

Every Tensor method used here is installed at import time by strided's ops layer; type checkers
see them through the generated stub ``strided/tensor.pyi`` (tools/gen_stubs.py), so ``x @ w``,
``t + t`` and ``t.sum(dim=0)`` are typed ``Tensor``, not ``Any``.

Run:  python examples/typed_example.py
"""

from __future__ import annotations

import strided
from strided import Tensor


def layer(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
    """A linear layer with a ReLU: matmul, broadcasting addition, an elementwise op."""
    return (x @ w + b).relu()


def normalise(t: Tensor, dim: int) -> Tensor:
    """Zero mean, unit variance along ``dim`` (reductions with keepdim, arithmetic with scalars)."""
    mean = t.mean(dim=dim, keepdim=True)
    centred = t - mean
    std = (centred * centred).mean(dim=dim, keepdim=True).sqrt()
    return centred / (std + 1e-6)


def describe_views(t: Tensor) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Views share memory and cost no copy: their shapes and strides."""
    views: list[Tensor] = [t.view(-1), t.t(), t.transpose(0, 1)[::2], t.unsqueeze(0).expand(3, -1, -1), t[1:, :2]]
    return [(v.shape, v.stride()) for v in views]


def main() -> None:
    x = strided.arange(12, dtype=strided.float32).reshape(3, 4)
    w = strided.ones(4, 2)
    b = strided.zeros(2)
    y: Tensor = layer(x, w, b)
    total: float = float(y.sum())
    n = normalise(x, dim=1)
    biggest: float = n.abs().amax().item()
    same: bool = strided.shares_memory(x, x.t())
    ok = bool((x.t().contiguous() == x.t()).all())
    print(y.shape, total, round(biggest, 3), same, ok)
    for shape, strides in describe_views(x):
        print(shape, strides)


if __name__ == "__main__":
    main()
