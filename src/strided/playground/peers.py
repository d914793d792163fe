"""What NumPy and PyTorch would do for one step of a ``strided show`` chain, from ``strided.explain``.

``explain`` predicts from a layout alone, so neither library's *result* is needed: for NumPy an
array with the step input's layout (shape, strides, offset over an ``arange`` storage) is built
(NumPy is always installed); for PyTorch a tensor likewise, only when torch is importable.

The step's op is spelt in each library's terms: PyTorch takes strided's method names as they
are (``explainable``); NumPy gets its own spelling (``permute`` is ``np.transpose``, ``view`` and
``reshape`` are ``np.reshape`` to the same shape, ``expand`` is ``np.broadcast_to``, ...).
A step with no counterpart says so in words instead of guessing.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np

from ..cli.commands import explainable
from ..cli.expr import Step
from ..diagnose.explain import explain
from ..diagnose.explain_broadcast import ELEMENTWISE_OPS
from .limits import MAX_NUMEL

__all__ = ["numpy_peer", "torch_peer"]

TORCH_MISSING = "PyTorch not installed: install torch to see what PyTorch would do"


def _layout(step: Step) -> tuple[tuple[int, ...], tuple[int, ...], int, int]:
    x = step.input
    assert x is not None
    shape, strides, offset = tuple(x.shape), tuple(x.stride()), x.storage_offset()
    # the storage must hold the furthest element the layout reads (negative strides count back)
    hi = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s > 0 and n > 0)
    lo = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s < 0 and n > 0)
    return shape, strides, offset - min(lo, 0), max(hi - min(lo, 0) + 1, 1)


def _span_refusal(step: Step, library: str) -> str:
    """Why no peer array is built for ``step`` (its layout spans more storage than the playground
    allocates), or "" when it may be built. The storage a layout needs is its span, which a few
    elements with a huge stride make large: the cap is on what is allocated, not on the count."""
    size = _layout(step)[3]
    if size <= MAX_NUMEL:
        return ""
    return (f"{library}: not built: this layout spans {size:,} elements of storage; the playground allocates peer "
            f"arrays of at most {MAX_NUMEL:,} elements")


def _numpy_array(step: Step) -> np.ndarray:
    shape, strides, offset, size = _layout(step)
    dtype = np.dtype(step.input.dtype.name) if step.input is not None else np.dtype("int64")
    base = np.zeros(size, dtype=dtype)
    item = base.itemsize
    return np.lib.stride_tricks.as_strided(base[offset:], shape, tuple(s * item for s in strides))


def _numpy_spelling(step: Step) -> tuple[str, tuple[Any, ...], dict[str, Any], str] | None:
    """(NumPy op, args, kwargs, note) for the step, or None when NumPy has no counterpart."""
    call, x, out = step.call, step.input, step.output
    assert x is not None
    name, args, kwargs = call.name, call.args, call.kwargs
    if call.kind == "method" and name in ELEMENTWISE_OPS and len(args) == 1 and not kwargs:
        return name, args, {}, ""
    target = tuple(out.shape) if out is not None else None
    if name in ("view", "reshape", "flatten", "ravel", "unflatten") and target is not None:
        # Note: NumPy has no view(shape); np.reshape(..., copy=False) is the call that must not copy.
        copy = {"copy": False} if name == "view" else {}
        how = "np.reshape(x, shape, copy=False)" if name == "view" else "np.reshape(x, shape)"
        return "reshape", (target,), copy, f"x.{name}(...) spelt {how}"
    if name == "view" and target is None and args:
        shape = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
        return "reshape", (tuple(shape),), {"copy": False}, "x.view(shape) spelt np.reshape(x, shape, copy=False)"
    if name == "reshape" and target is None and args:
        shape = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
        return "reshape", (tuple(shape),), {}, "x.reshape(shape) spelt np.reshape(x, shape)"
    if name == "permute" or (name == "T" and x.ndim >= 2):
        dims = tuple(range(x.ndim - 1, -1, -1)) if name == "T" else (
            tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else tuple(args))
        return "transpose", (dims,), {}, f"spelt np.transpose(x, {dims})"
    if name in ("transpose", "swapaxes", "swapdims") and len(args) == 2:
        return "swapaxes", tuple(args), {}, f"spelt np.swapaxes(x, {args[0]}, {args[1]})"
    if name == "t" and x.ndim == 2:
        return "swapaxes", (0, 1), {}, "spelt np.swapaxes(x, 0, 1)"
    if name in ("movedim", "moveaxis") and len(args) == 2:
        return "moveaxis", tuple(args), {}, f"spelt np.moveaxis(x, {args[0]}, {args[1]})"
    if name in ("expand", "broadcast_to") and target is not None:
        return "broadcast_to", (target,), {}, f"spelt np.broadcast_to(x, {target})"
    if name == "squeeze":
        return "squeeze", tuple(args), dict(kwargs), "spelt np.squeeze"
    if name == "contiguous":
        return "ascontiguousarray", (), {}, "spelt np.ascontiguousarray(x)"
    if name == "clone":
        return "copy", (), {}, "spelt np.copy(x)"
    return None


def numpy_peer(step: Step) -> str:
    """What NumPy would do for ``step`` (the explanation text, or why there is none)."""
    if step.input is None:
        name = {"tensor": "array", "as_tensor": "asarray"}.get(step.call.name, step.call.name)
        return f"NumPy: a constructor; np.{name} builds the same contiguous array"
    spelling = _numpy_spelling(step)
    if spelling is None:
        return f"NumPy: no counterpart of {step.text} that explain predicts"
    op, args, kwargs, note = spelling
    refused = _span_refusal(step, "NumPy")
    if refused:
        return refused
    try:
        text = str(explain(_numpy_array(step), op, *args, **kwargs))
    except (TypeError, ValueError, NotImplementedError) as exc:
        return f"NumPy: explain cannot predict {op} here ({exc})"
    return f"{text}\n  ({note})" if note else text


def torch_available() -> bool:
    """Whether PyTorch can be imported (checked without importing it)."""
    return importlib.util.find_spec("torch") is not None


def torch_peer(step: Step) -> str:
    """What PyTorch would do for ``step``: strided follows PyTorch's rules, so this is explain on a
    torch tensor with the same layout (or "PyTorch not installed")."""
    if step.input is None:
        return f"PyTorch: a constructor; torch.{step.call.name} builds the same contiguous tensor"
    if not torch_available():
        return TORCH_MISSING
    spec = explainable(step)
    if spec is None:
        return f"PyTorch: no prediction by explain for {step.text}"
    refused = _span_refusal(step, "PyTorch")
    if refused:
        return refused
    import torch  # lazily: the playground works without it

    shape, strides, offset, size = _layout(step)
    dtype = getattr(torch, step.input.dtype.name, torch.int64)
    if any(s < 0 for s in strides):
        return "PyTorch: tensors cannot have negative strides (this layout is NumPy's only)"
    t = torch.as_strided(torch.zeros(size, dtype=dtype), shape, strides, offset)
    op, args, kwargs, note = spec
    try:
        text = str(explain(t, op, *args, **kwargs))
    except (TypeError, ValueError, NotImplementedError) as exc:
        return f"PyTorch: explain cannot predict {op} here ({exc})"
    return f"{text}\n  ({note})" if note else text
