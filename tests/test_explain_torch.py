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

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from explain_cases import random_args, random_spec
from layout_strategies import Spec
from layouts import build_strided, build_torch, specs
from oracle_helpers import builtin_class
from strided.diagnose.explain_torch import TORCH_OPS, explain_torch
from strided.layout import index_span

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


def check_torch_text(x: torch.Tensor, op: str, args: tuple) -> None:
    """The predicted error's first line is PyTorch's own."""
    rep = explain_torch(x, op, args, {})
    try:
        getattr(x, op)(*args)
    except RuntimeError as exc:
        assert rep.error == f"RuntimeError: {str(exc).splitlines()[0]}"
    else:
        raise AssertionError("expected an error")


@pytest.mark.parametrize(("make", "dtype"), [
    (lambda: torch.zeros(3, 4).t(), torch.float16),           # stride(-1) must be 1
    (lambda: torch.zeros(()), torch.float16),                 # 0-d
    (lambda: torch.zeros(4, 6)[:, 1:5], torch.float64),       # offset not divisible
    (lambda: torch.zeros(4, 5)[:, :4], torch.float64),        # stride(0) not divisible
    (lambda: torch.zeros(4, 3), torch.float64),               # size(-1) not divisible
])
def test_view_dtype_errors_read_as_torch(make: Any, dtype: torch.dtype) -> None:
    check_torch_text(make(), "view", (dtype,))


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


@pytest.mark.parametrize(("args", "kwargs"), [
    (("cpu",), {}), ((torch.device("cpu"),), {}), (("cpu",), {"copy": True}), (("meta",), {}),
    (("nonsense",), {}), ((torch.float64, False, True), {}), ((), {"dtype": torch.float16, "copy": False}),
])
def test_to_devices_and_positional_copy(args: tuple, kwargs: dict) -> None:
    check_torch(torch.zeros(3, 4).t(), "to", args, kwargs)


def test_a_device_without_index_is_the_current_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """ATen fills in the index of ``x.to("cuda")`` before it compares devices (``ensure_has_index``),
    so a tensor already on the current GPU is returned itself; seen on an H200 with
    tools/cuda_check.py. Here the current device is faked; a CPU-only torch leaves it unnamed."""
    from strided.diagnose.explain_torch import _with_index

    assert _with_index(torch, torch.device("cuda")) == torch.device("cuda")  # no CUDA in this build
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 1)
    assert _with_index(torch, torch.device("cuda")) == torch.device("cuda", 1)
    assert _with_index(torch, torch.device("cuda", 0)) == torch.device("cuda", 0)
    assert _with_index(torch, torch.device("cpu")) == torch.device("cpu")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, st.float32, "float32", np.float32])
def test_strided_to_takes_every_dtype_spelling(dtype: Any) -> None:
    """strided's ``to`` reads torch and NumPy dtypes and names too: the same dtype gives x itself."""
    x = st.zeros(3, 4).t()
    rep = explain_torch(x, "to", (dtype,), {})
    r = x.to(dtype)
    assert rep.returns_self == (r is x) and rep.outcome == ("view" if r is x else "copy")
    assert rep.bytes_copied == (0 if r is x else r.nbytes) and rep.strides == r.stride()


def test_torch_size_and_list_arguments() -> None:
    x = torch.zeros(2, 3, 4)
    check_torch(x, "view", (torch.Size([6, 4]),), {})
    check_torch(x, "reshape", ([4, 6],), {})
    check_torch(x, "expand", (torch.Size([5, 2, 3, 4]),), {})
    rep = explain_torch(x, "view", (torch.Size([6, 4]),), {})
    assert rep.call == "x.view((6, 4))"
