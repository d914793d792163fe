"""When PyTorch's ``amax`` / ``amin`` with ``out=`` over its own input give the read-first numbers.

PyTorch builds a reduction's iterator without the overlap check, so ``amax(x, 1, out=x[:, 0])``
runs: ``binary_kernel_reduce_vec`` (``aten/src/ATen/native/cpu/Reduce.h``) first fills ``out``
with the identity (-inf / +inf; an integer type's lowest / highest), then folds each output's
inputs into it in its loop's order (vector accumulators, an outer or inner walk, per-thread
buffers from 32768 elements), reading an input element that is also an output element at
whatever that output holds at the time. Which it holds depends on the loop order *and* on the
values (a max that does not change is invisible), so strided does not replay the loop: it proves,
order-free, where the result must be the read-first one (strided's), and refuses elsewhere.

The proof (any loop order, any thread split): every value an output element ever holds is the
identity or the extreme of some of its inputs as read at their times. Let ``A(o)`` be the extreme
of output ``o``'s inputs that are not output elements (never written: read as they were). The
least fixpoint ``U(o) = extreme(A(o), U(owner(r)) for each written input r of o)`` bounds what any
written input of ``o`` can hold when read. Where ``U(o) == A(o)`` PyTorch's result is ``A(o)``;
where also every written input's original value is no better than ``A(o)``, strided's read-first
result is ``A(o)`` too. A NaN anywhere, or a zero as ``A(o)`` beside a written input (the sign of a
tie follows the order), is not proven.
"""

from __future__ import annotations

import numpy as np


def _identity(dtype: np.dtype, largest: bool) -> np.generic:
    """The value ``binary_kernel_reduce_vec`` fills the output with (``lower_bound`` /
    ``upper_bound``)."""
    if dtype.kind == "b":
        return dtype.type(not largest)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return dtype.type(info.min if largest else info.max)
    return dtype.type(-np.inf if largest else np.inf)


def extreme_unproven(values: np.ndarray, read_at: np.ndarray, written_at: np.ndarray,
                     largest: bool) -> tuple[int, int] | None:
    """Whether ``amax`` (``largest``) / ``amin`` over its own memory may differ from the read-first
    result: None where PyTorch's aliased result is proven to equal it (module docstring), else
    ``(o, k)``: an output and the position in its row of an input it also writes, unproven.

    ``values``: the input's elements as ``(outputs, reduced)`` rows (the output's row-major order);
    ``read_at``: their storage byte offsets, same shape; ``written_at``: each output's byte offset
    (one element size for both, one storage)."""
    n_out = written_at.size
    order = np.argsort(written_at, kind="stable")
    ranked = written_at[order]
    k = np.minimum(np.searchsorted(ranked, read_at), max(n_out - 1, 0))
    shared = ranked[k] == read_at if n_out else np.zeros(read_at.shape, bool)
    if not shared.any():
        return None
    owner = order[k]
    better = np.maximum if largest else np.minimum
    ident = _identity(values.dtype, largest)
    if values.dtype.kind in "fc" and np.isnan(values).any():
        return _first(shared, shared.any(axis=1))
    alone = better.reduce(values, axis=1, where=~shared, initial=ident)
    bound = alone.copy()
    for _ in range(n_out + 1):  # (monotone over at most n_out values: converges within n_out steps)
        seen = better.reduce(np.where(shared, bound[owner], ident), axis=1, initial=ident)
        grown = better(alone, seen)
        if np.array_equal(grown, bound):
            break
        bound = grown
    first = better.reduce(values, axis=1, where=shared, initial=ident)
    unproven = (bound != alone) | (better(first, alone) != alone)
    if values.dtype.kind == "f":
        unproven |= (alone == 0) & shared.any(axis=1)
    return _first(shared, unproven) if unproven.any() else None


def _first(shared: np.ndarray, rows: np.ndarray) -> tuple[int, int]:
    """The first output of ``rows`` and the first written input in its row."""
    o = int(np.argmax(rows))
    return o, int(np.argmax(shared[o]))
