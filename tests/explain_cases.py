"""Seeded generators for the explain tests: hard layouts and op arguments, valid and invalid mixed.

``random_spec`` draws what ``layout_strategies.specs`` draws (permuted, stepped, expanded, size-1
dims with odd strides, zero-size, 0-d; negative steps on request) from a ``random.Random``, for
loops of thousands of cases that hypothesis would run too slowly.
"""

from __future__ import annotations

import random

import torch

from layout_strategies import Spec
from strided.layout import contiguous_strides, index_span

TORCH_DTYPES = (torch.float32, torch.float64, torch.int64, torch.int8, torch.bfloat16, torch.complex64,
                torch.bool, torch.float16)


def random_spec(rng: random.Random, max_dims: int = 4, max_size: int = 5, negative: bool = False,
                shape: tuple[int, ...] | None = None) -> Spec:
    """``layout_strategies.specs`` drawn from ``rng`` instead of hypothesis (negative steps only
    when ``negative``); ``shape`` fixes the shape."""
    if shape is None:
        ndim = rng.randint(0, max_dims)
        shape = tuple(rng.choice([1, 0, rng.randint(1, max_size), rng.randint(2, max_size)]) for _ in range(ndim))
    ndim = len(shape)
    steps = [rng.choice([1, 1, 1, 2, 3]) for _ in range(ndim)]
    pads = [rng.choice([0, 0, 1]) for _ in range(ndim)]
    parent = tuple(max(s, 1) * k + p for s, k, p in zip(shape, steps, pads))
    base = contiguous_strides(parent)
    perm = list(range(ndim))
    if rng.random() < 0.6:
        rng.shuffle(perm)
    strides = [base[perm[d]] * steps[d] for d in range(ndim)]
    for d in range(ndim):
        kind = rng.choice(["keep", "keep", "keep", "expand", "odd1", "neg"])
        if kind == "expand":
            strides[d] = 0
        elif kind == "odd1" and shape[d] == 1:
            strides[d] = rng.randint(0, 7)
        elif kind == "neg" and negative:
            strides[d] = -strides[d]
    lo, _ = index_span([max(n, 1) for n in shape], strides)
    _, hi = index_span(shape, strides)
    offset = -lo + rng.randint(0, 3)
    return Spec(hi + offset + rng.randint(0, 2), shape, tuple(strides), offset)


def _divisor_shape(rng: random.Random, numel: int) -> list[int]:
    out = []
    left = numel
    for _ in range(rng.randint(0, 4)):
        if left == 0:
            out.append(rng.choice([0, 1, 2, 3]))
            continue
        ds = [d for d in range(1, left + 1) if left % d == 0]
        d = rng.choice(ds)
        out.append(d)
        left //= d
    if left != 1 or not out:
        out.append(left)
    rng.shuffle(out)
    if out and rng.random() < 0.3:
        out[rng.randrange(len(out))] = -1
    if rng.random() < 0.1:
        out.append(rng.choice([2, -1, 5]))  # usually wrong
    return out


def random_args(rng: random.Random, op: str, shape: tuple[int, ...]) -> tuple[tuple, dict]:
    """Arguments for ``op`` on a tensor of ``shape``: mostly valid, some out of range or junk."""
    nd = len(shape)
    numel = 1
    for n in shape:
        numel *= n

    def dim(extra: int = 1) -> int:
        return rng.randint(-nd - extra, max(nd - 1 + extra, 0))

    if op == "view" and rng.random() < 0.1:
        return (rng.choice(TORCH_DTYPES),), {}
    if op in ("view", "reshape"):
        sizes = _divisor_shape(rng, numel)
        return (tuple(sizes),) if rng.random() < 0.3 else tuple(sizes), {}
    if op == "flatten":
        return ((dim(), dim()) if rng.random() < 0.8 else ()), {}
    if op == "unflatten":
        d = dim()
        n = shape[d] if -nd <= d < nd else 4
        return (d, tuple(_divisor_shape(rng, n))), {}
    if op in ("ravel",):
        return (), {}
    if op == "contiguous":
        r = rng.random()
        return (), ({} if r < 0.6 else {"memory_format": torch.channels_last} if r < 0.9
                    else {"memory_format": torch.preserve_format})
    if op == "clone":
        r = rng.random()
        return (), ({} if r < 0.4 else {"memory_format": rng.choice(
            [torch.channels_last, torch.contiguous_format, torch.preserve_format])})
    if op == "permute":
        p = list(range(nd))
        rng.shuffle(p)
        if rng.random() < 0.15:
            p = p[:-1] if p else [0]
        if p and rng.random() < 0.3:
            p[0] -= nd
        return tuple(p), {}
    if op in ("transpose", "swapaxes", "swapdims"):
        return (dim(), dim()), {}
    if op == "t":
        return (), {}
    if op in ("movedim", "moveaxis"):
        if rng.random() < 0.5:
            return (dim(), dim()), {}
        k = rng.randint(0, nd)
        return (rng.sample(range(nd), k), rng.sample(range(nd), k if rng.random() < 0.9 else max(k - 1, 0))), {}
    if op in ("expand", "broadcast_to"):
        sizes = []
        for n in shape:
            c = rng.random()
            sizes.append(-1 if c < 0.2 else rng.randint(0, 4) if (n == 1 and c < 0.6) else
                         rng.randint(-1, 4) if c < 0.7 else n)
        lead = [rng.randint(0, 3) for _ in range(rng.choice([0, 0, 1, 2]))]
        return tuple(lead + sizes), {}
    if op == "squeeze":
        r = rng.random()
        if r < 0.3:
            return (), {}
        if r < 0.8:
            return (dim(),), {}
        return (tuple(rng.sample(range(nd), rng.randint(0, nd))),), {}
    if op == "unsqueeze":
        return (rng.randint(-nd - 2, nd + 1),), {}
    if op == "narrow":
        d = dim()
        n = shape[d] if -nd <= d < nd else 3
        start = rng.randint(-n - 1, n + 1)
        return (d, start, rng.randint(-1, n + 1)), {}
    if op == "select":
        d = dim()
        n = shape[d] if -nd <= d < nd else 3
        return (d, rng.randint(-n - 1, n)), {}
    if op == "diagonal":
        return (rng.randint(-3, 3), dim(), dim()), {}
    if op == "unfold":
        d = dim()
        n = shape[d] if -nd <= d < nd else 3
        return (d, rng.randint(-1, n + 1), rng.randint(0, 3)), {}
    if op == "as_strided":
        k = rng.randint(0, 3)
        size = [rng.randint(0, 3) for _ in range(k)]
        stride = [rng.randint(0, 4) for _ in range(k if rng.random() < 0.95 else k + 1)]
        if rng.random() < 0.5:
            return (size, stride), {}
        return (size, stride, rng.randint(0, 6)), {}
    if op == "to":
        dt = rng.choice(TORCH_DTYPES)
        r = rng.random()
        if r < 0.6:
            return (dt,), {}
        if r < 0.8:
            return (dt,), {"copy": rng.random() < 0.5}
        return (), {"dtype": dt}
    raise AssertionError(op)
