"""Differential tests of ``explain`` on PyTorch and strided tensors: predict, then really run.

For generated hard layouts (permuted, stepped, expanded, size-1 dims with odd strides,
zero-size, 0-d; torch has no negative strides) and generated arguments (valid and invalid
mixed), the prediction of ``explain_torch`` must equal what PyTorch 2.13 does when the op is
really run: outcome (view = the result shares x's storage; copy; error), shape, strides,
storage offset, bytes copied, whether x itself comes back, and the builtin error class.
Volume comes from a seeded generator loop (hypothesis drives a smaller strategy-led part).
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layout_strategies import Spec
from layouts import build_strided, build_torch, specs
from oracle_helpers import builtin_class
from strided.diagnose.explain_torch import TORCH_OPS, explain_torch
from strided.layout import contiguous_strides, index_span

TORCH_DTYPES = (torch.float32, torch.float64, torch.int64, torch.int8, torch.bfloat16, torch.complex64,
                torch.bool, torch.float16)


# ---------------------------------------------------------------- a seeded generator


def random_spec(rng: random.Random, max_dims: int = 4, max_size: int = 5) -> Spec:
    """``layout_strategies.specs`` drawn from ``rng`` instead of hypothesis (no negative steps)."""
    ndim = rng.randint(0, max_dims)
    shape = tuple(rng.choice([1, 0, rng.randint(1, max_size), rng.randint(2, max_size)]) for _ in range(ndim))
    steps = [rng.choice([1, 1, 1, 2, 3]) for _ in range(ndim)]
    pads = [rng.choice([0, 0, 1]) for _ in range(ndim)]
    parent = tuple(max(s, 1) * k + p for s, k, p in zip(shape, steps, pads))
    base = contiguous_strides(parent)
    perm = list(range(ndim))
    if rng.random() < 0.6:
        rng.shuffle(perm)
    strides = [base[perm[d]] * steps[d] for d in range(ndim)]
    for d in range(ndim):
        kind = rng.choice(["keep", "keep", "keep", "expand", "odd1"])
        if kind == "expand":
            strides[d] = 0
        elif kind == "odd1" and shape[d] == 1:
            strides[d] = rng.randint(0, 7)
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
    if op == "transpose":
        return (dim(), dim()), {}
    if op == "movedim":
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


# ---------------------------------------------------------------- the comparison


def _shares(r: torch.Tensor, x: torch.Tensor) -> bool:
    return r.untyped_storage()._cdata == x.untyped_storage()._cdata


def check_torch(x: torch.Tensor, op: str, args: tuple, kwargs: dict) -> None:
    """explain's prediction for ``x.op(*args, **kwargs)`` equals the real run."""
    before = (tuple(x.shape), x.stride(), x.storage_offset())
    rep = explain_torch(x, op, args, kwargs)
    assert (tuple(x.shape), x.stride(), x.storage_offset()) == before  # explain never touches x
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = getattr(x, op)(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001
            assert rep.outcome == "error", (op, args, kwargs, rep, exc)
            assert rep.error_class == builtin_class(exc).__name__, (op, args, kwargs, rep.error, exc)
            return
    assert rep.outcome != "error", (op, args, kwargs, rep.error, tuple(r.shape))
    what = (op, args, kwargs, str(rep))
    assert rep.shape == tuple(r.shape), what
    assert rep.strides == r.stride(), what
    assert rep.offset == r.storage_offset(), what
    assert rep.outcome == ("view" if _shares(r, x) else "copy"), what
    assert rep.returns_self == (r is x), what
    expected_bytes = 0 if rep.outcome == "view" else r.numel() * r.element_size()
    assert rep.bytes_copied == expected_bytes, what


def _torch_tensor(spec: Spec, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.zeros(spec.storage_size, dtype=dtype).as_strided(spec.shape, spec.strides, spec.offset)


def test_explain_matches_torch_generated() -> None:
    """12,000 seeded cases: every op, hard layouts, valid and invalid arguments mixed."""
    rng = random.Random(20261130)
    n = 0
    for _ in range(12_000 // len(TORCH_OPS)):
        for op in TORCH_OPS:
            spec = random_spec(rng)
            x = _torch_tensor(spec, rng.choice((torch.float32, torch.float32, torch.int64, torch.bfloat16)))
            args, kwargs = random_args(rng, op, spec.shape)
            check_torch(x, op, args, kwargs)
            n += 1
    assert n >= 10_000


@settings(max_examples=150, deadline=None)
@given(spec=specs(max_dims=4), op=hs.sampled_from(TORCH_OPS), seed=hs.integers(0, 2**32 - 1))
def test_explain_matches_torch_hypothesis(spec: Spec, op: str, seed: int) -> None:
    check_torch(build_torch(spec), op, *random_args(random.Random(seed), op, spec.shape))


# ---------------------------------------------------------------- strided tensors


def _strided_arg(v: Any) -> Any:
    if isinstance(v, torch.dtype):
        name = str(v).removeprefix("torch.")
        return getattr(st, name) if name in ("float32", "float64", "int64", "int8", "float16") else st.int16
    if isinstance(v, torch.memory_format):
        return {torch.channels_last: st.channels_last, torch.contiguous_format: st.contiguous_format,
                torch.preserve_format: st.preserve_format}[v]
    return v


def check_strided(x: st.Tensor, op: str, args: tuple, kwargs: dict) -> None:
    args = tuple(_strided_arg(a) for a in args)
    kwargs = {k: _strided_arg(v) for k, v in kwargs.items()}
    rep = explain_torch(x, op, args, kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = getattr(x, op)(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001
            assert rep.outcome == "error" and rep.error_class == builtin_class(exc).__name__, (op, args, rep, exc)
            assert rep.error.split(": ", 1)[1] == str(exc).split("\n", 1)[0]
            return
    what = (op, args, kwargs, str(rep))
    assert rep.outcome == ("view" if r.untyped_storage() is x.untyped_storage() else "copy"), what
    assert (rep.shape, rep.strides, rep.offset) == (r.shape, r.stride(), r.storage_offset()), what
    assert rep.returns_self == (r is x), what
    assert rep.bytes_copied == (0 if rep.outcome == "view" else r.nbytes), what


def test_explain_matches_strided_generated() -> None:
    rng = random.Random(7)
    for _ in range(3000 // len(TORCH_OPS)):
        for op in TORCH_OPS:
            spec = random_spec(rng)
            args, kwargs = random_args(rng, op, spec.shape)
            check_strided(build_strided(spec), op, args, kwargs)


# ---------------------------------------------------------------- pinned cases


@pytest.mark.parametrize(("shape", "strides", "op", "args", "kwargs"), [
    ((4, 3), (1, 4), "view", (12,), {}),                    # the transpose view failure
    ((4, 3), (1, 4), "reshape", (12,), {}),                 # a reshape copy
    ((2, 3), (3, 1), "contiguous", (), {}),                 # returns x itself
    ((2, 3), (3, 1), "flatten", (1, 1), {}),                # flatten(d, d): x itself
    ((), (), "flatten", (), {}),                            # a 0-d flatten: a (1,) view
    ((3,), (1,), "to", (torch.float32,), {}),               # to its own dtype: x itself
    ((3,), (1,), "to", (torch.float32,), {"copy": True}),   # ... unless copy=True
    ((2, 3), (1, 2), "to", (torch.complex64,), {}),         # a dtype strided lacks: bytes of complex64
    ((1, 3), (7, 1), "reshape", (3,), {}),                  # size-1 dim with an odd stride
    ((2, 0, 3), (0, 5, 1), "reshape", (-1,), {}),           # zero-size
    ((2, 2, 3, 3), (18, 1, 6, 2), "contiguous", (), {"memory_format": torch.channels_last}),
])
def test_pinned_torch_cases(shape: tuple, strides: tuple, op: str, args: tuple, kwargs: dict) -> None:
    lo, hi = index_span(shape, strides)
    check_torch(torch.zeros(hi + 1).as_strided(shape, strides, 0), op, args, kwargs)


def test_torch_size_and_list_arguments() -> None:
    x = torch.zeros(2, 3, 4)
    check_torch(x, "view", (torch.Size([6, 4]),), {})
    check_torch(x, "reshape", ([4, 6],), {})
    check_torch(x, "expand", (torch.Size([5, 2, 3, 4]),), {})
    rep = explain_torch(x, "view", (torch.Size([6, 4]),), {})
    assert rep.call == "x.view((6, 4))"
