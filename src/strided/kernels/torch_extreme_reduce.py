"""Which zero PyTorch's CPU ``amax`` / ``amin`` return (``0.0`` or ``-0.0``) where the extreme
value is a zero of both signs: the order of its reduction decides, and this module replays it.

``amax`` / ``amin`` are ``binary_kernel_reduce_vec`` (``aten/src/ATen/native/cpu/Reduce.h``):
the output starts at the identity (-inf / +inf); TensorIterator moves the reduced dims inside,
orders the rest by strides and merges contiguous dims; its 2-d loop is then

- an inner reduction (dim 0 reduced, contiguous): over whole blocks of ``4 * VS`` elements four
  vector accumulators (``vec::maximum``: a tie keeps the later block's element), combined as
  ``max(max(a0, a1), max(a2, a3))``, their ``VS`` lanes folded in order, then into the output,
  then the rest one by one (``max_impl``: a tie keeps the accumulated value, the earlier);
- an outer reduction (dim 0 reduced, dim 1 kept and contiguous): whole ``4 * VS``-column blocks
  folded down the rows by vectors (a tie keeps the later row), then ``vec::maximum(acc, out)``
  (a tie keeps the output's); the remaining columns one element at a time;
- otherwise one element at a time, in iteration order.

``VS``: 32 bytes of elements (8 float32, 4 float64), as measured on x86-64 PyTorch 2.13 (AVX2 and
AVX512 builds). The one-thread order (below 32768 elements every thread count's).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .fpstate import QUIET, quiet_reset, quiet_set
from .torch_loops import parallel_chunks, torch_threads
from .torch_sum import iterator_dims

_count_nonzero = np.count_nonzero


def has_zero(arr: np.ndarray) -> bool:
    """Whether ``arr`` holds a zero (of either sign): the results these fixes look at (one C
    pass; ``ndarray.all`` costs five times as much on a small array)."""
    return _count_nonzero(arr) != arr.size


def _better(a: np.ndarray, b: np.ndarray, largest: bool) -> np.ndarray:
    """Where ``b`` beats ``a`` strictly."""
    return b > a if largest else b < a


def _fold_first(init: np.ndarray, seq: np.ndarray, largest: bool) -> np.ndarray:
    """``out = op(out, x)`` over ``seq``'s axis -1 from ``init``, a tie keeping the earlier (the
    scalar ``max_impl``): the first of the extreme value's elements, ``init`` counted first."""
    if seq.shape[-1] == 0:
        return init
    full = np.concatenate([init[..., None], seq], axis=-1)
    best = full.max(axis=-1) if largest else full.min(axis=-1)
    idx = np.argmax(full == best[..., None], axis=-1)
    return np.take_along_axis(full, idx[..., None], axis=-1)[..., 0]


def _fold_last(seq: np.ndarray, largest: bool, axis: int) -> np.ndarray:
    """``acc = vop(acc, x)`` along ``axis``, a tie keeping the later element (``vec::maximum``)."""
    best = seq.max(axis=axis, keepdims=True) if largest else seq.min(axis=axis, keepdims=True)
    hit = np.flip(seq == best, axis=axis)
    idx = seq.shape[axis] - 1 - np.argmax(hit, axis=axis)
    return np.take_along_axis(seq, np.expand_dims(idx, axis), axis=axis).squeeze(axis)


def _vop(a: np.ndarray, b: np.ndarray, largest: bool) -> np.ndarray:
    """``vec::maximum(a, b)`` / ``minimum`` on zeros and numbers: a tie keeps ``b``."""
    return np.where(_better(b, a, largest), a, b)


def _inner(out: np.ndarray, rows: np.ndarray, largest: bool, vs: int) -> np.ndarray:
    """``vectorized_inner_reduction`` of each row of ``rows`` (..., n) into ``out`` (...)."""
    n = rows.shape[-1]
    w = 4 * vs
    count = n // w
    if count:
        blocks = rows[..., : count * w].reshape(rows.shape[:-1] + (count, w))
        acc = _fold_last(blocks, largest, -2).reshape(rows.shape[:-1] + (4, vs))
        a0 = _vop(_vop(acc[..., 0, :], acc[..., 1, :], largest), _vop(acc[..., 2, :], acc[..., 3, :], largest), largest)
        b0 = _fold_first(a0[..., 0], a0[..., 1:], largest)
        out = _fold_first(out, b0[..., None], largest)
    return _fold_first(out, rows[..., count * w:], largest)


def values_reduce(x: np.ndarray, dims: tuple[int, ...], largest: bool) -> np.ndarray:
    """``amax`` (``largest``) / ``amin`` of ``x`` over ``dims`` in PyTorch's order (see the
    module), without keepdim, as float64; exact for zeros' signs and numbers (a NaN result is left
    to the caller). ``x``'s strides are its layout's (a NumPy view of the tensor)."""
    es = x.itemsize
    shape = x.shape
    kept = [n for d, n in enumerate(shape) if d not in dims]
    buf = np.full(int(np.prod(kept)), -np.inf if largest else np.inf)
    if x.ndim == 0:
        return x.astype(np.float64)
    sizes, ins, outs = iterator_dims(shape, tuple(s // es for s in x.strides), tuple(d in dims for d in range(x.ndim)), False)
    sizes, ins, outs = list(sizes), list(ins), list(outs)
    if len(sizes) == 1:  # (one merged dim: a 2-d loop of one column)
        sizes, ins, outs = sizes + [1], ins + [0], outs + [0]
    # the input and the output, slowest dim first (the output through stride 0 where reduced)
    xs = as_strided(x, sizes[::-1], [s * es for s in ins[::-1]]).astype(np.float64)
    out = as_strided(buf, sizes[::-1], [s * 8 for s in outs[::-1]])
    red0, red1 = outs[0] == 0, outs[1] == 0
    vs = 32 // es
    for idx in np.ndindex(*sizes[:1:-1]):  # (the outer dims, dim 2 fastest: TensorIterator's order)
        blk, o = xs[idx], out[idx]  # (size1, size0)
        if red0 and ins[0] == 1:  # inner reduction
            if red1:
                for j in range(sizes[1]):
                    o[0, 0] = _inner(o[0, :1], blk[j][None], largest, vs)[0]
            else:
                o[:, 0] = _inner(o[:, 0], blk, largest, vs)
        elif red0 and not red1 and outs[1] == 1 and ins[1] == 1:  # outer reduction
            nb = sizes[1] // (4 * vs) * (4 * vs)
            if nb:
                o[:nb, 0] = _vop(_fold_last(blk[:nb, :], largest, -1), o[:nb, 0], largest)
            o[nb:, 0] = _fold_first(o[nb:, 0], blk[nb:, :], largest)
        elif red0:  # one element at a time: down dim 0 for each of dim 1
            if red1:
                o[0, 0] = _fold_first(o[0, :1], blk.reshape(1, -1), largest)[0]
            else:
                o[:, 0] = _fold_first(o[:, 0], blk, largest)
        elif red1:  # dim 0 kept: each of its elements its own output, over dim 1 in order
            o[0, :] = _fold_first(o[0, :], blk.T, largest)
        else:
            o[...] = _fold_first(np.array(o), blk[..., None], largest)
    return buf.reshape(kept)


def _rewrite_zeros(res: np.ndarray, keepdim: bool, wanted: Callable[[], np.ndarray]) -> None:
    """Write ``wanted()`` (float64, the reduced shape without keepdim) over the zeros of ``res``
    (a float result of that shape, or with keepdim's size-1 dims); nothing where it has none."""
    if res.size == 0 or not (res.dtype.kind == "f" or res.dtype.name == "bfloat16"):
        return
    token = quiet_set(QUIET)
    try:
        zero = np.asarray(res == 0)
        if not zero.any():
            return
        want = np.asarray(wanted()).reshape(res.shape).astype(res.dtype)
        if res.ndim == 0:
            res[()] = want
        else:
            res[zero] = want[zero]
    finally:
        quiet_reset(token)


def fix(x: np.ndarray, dims: tuple[int, ...], keepdim: bool, res: np.ndarray, largest: bool) -> None:
    """Rewrite the zeros of ``res`` (``amax``/``amin`` of ``x`` over ``dims``, NumPy's) with the
    signs PyTorch's order gives (:func:`values_reduce`); one pass over ``res`` where it has none."""
    _rewrite_zeros(res, keepdim, lambda: values_reduce(x, tuple(sorted(dims)), largest))


# ---------------------------------------------------------------- max() / min() / aminmax()
# PyTorch's ``max()`` / ``min()`` / ``aminmax()`` of every element (``max_all``, ``aminmax_allreduce``)
# read the input in row-major order (``input.contiguous()``) with ``vec::reduce_all`` /
# ``reduce2_all`` (``aten/src/ATen/cpu/vec/functional_base.h``, 32-byte vectors): a vector
# accumulator over whole vectors (``vec::maximum``: a tie keeps the later element), the rest
# merged into its first lanes, then its lanes folded -- float32 by the AVX2 shuffle tree
# (``max(max(max(l0, l4), max(l2, l6)), max(max(l1, l5), max(l3, l7)))``), float64 in lane order;
# a run shorter than one vector is folded in order (a tie keeps the later). float16 / bfloat16
# take 16 elements at a time as two float32 vectors, merged before the tree.


def _tree8(acc: np.ndarray, largest: bool) -> np.ndarray:
    while acc.shape[-1] > 1:
        h = acc.shape[-1] // 2
        acc = _vop(acc[..., :h], acc[..., h:], largest)
    return acc[..., 0]


def _merge_tail(acc: np.ndarray, tail: np.ndarray, largest: bool) -> np.ndarray:
    """``Vec::set(acc, vop(acc, tail), len(tail))``: the first lanes take the tail's merge."""
    acc = acc.copy()
    r = len(tail)
    acc[:r] = _vop(acc[:r], tail, largest)
    return acc


def _plain_all(x: np.ndarray, vs: int, largest: bool, tree: bool) -> np.ndarray:
    n = len(x)
    if n < vs:
        return _fold_last(x, largest, 0)
    nb = n // vs
    acc = _fold_last(x[: nb * vs].reshape(nb, vs), largest, 0)
    acc = _merge_tail(acc, x[nb * vs:], largest)
    return _tree8(acc, largest) if tree else _fold_last(acc, largest, 0)


def _reduced_all(x: np.ndarray, largest: bool) -> np.ndarray:
    n = len(x)
    if n < 16:
        if n > 8:
            return _fold_last(_merge_tail(x[:8], x[8:], largest), largest, 0)
        return _fold_last(x, largest, 0)
    nb = n // 16
    blocks = x[: nb * 16].reshape(nb, 16)
    a0, a1 = _fold_last(blocks[:, :8], largest, 0), _fold_last(blocks[:, 8:], largest, 0)
    tail = x[nb * 16:]
    if len(tail) > 8:
        a0 = _vop(a0, tail[:8], largest)
        a1 = _merge_tail(a1, tail[8:], largest)
    else:
        a0 = _merge_tail(a0, tail, largest)
    return _tree8(_vop(a0, a1, largest), largest)


def all_reduce(x: np.ndarray, largest: bool) -> np.ndarray:
    """``max()`` (``largest``) / ``min()`` of every element of ``x`` in PyTorch's order (see
    above; exact for zeros' signs and numbers, not NaN bits), as float64."""
    flat = np.ravel(x).astype(np.float64)
    if x.dtype.itemsize == 2:
        return _reduced_all(flat, largest)
    return _plain_all(flat, 32 // x.dtype.itemsize, largest, x.dtype.itemsize == 4)


def fix_all(x: np.ndarray, res: np.ndarray, largest: bool) -> None:
    """Rewrite ``res`` (one element: ``max()`` / ``min()`` / ``aminmax()`` of ``x``, NumPy's) with
    the zero's sign PyTorch's order gives, where it is a zero."""
    if res.size != 1 or not (res.dtype.kind == "f" or res.dtype.name == "bfloat16") or res.reshape(-1)[0] != 0:
        return
    token = quiet_set(QUIET)
    try:
        res.reshape(-1)[0] = np.asarray(all_reduce(x, largest)).astype(res.dtype)
    finally:
        quiet_reset(token)


def fix_first_along(x: np.ndarray, dim: int, keepdim: bool, res: np.ndarray, largest: bool) -> None:
    """Rewrite the zeros of ``res`` (``aminmax(dim)``'s min or max of ``x``, NumPy's) with the
    first extreme element's sign along ``dim``: PyTorch's ``aminmax`` kernel along a dim replaces
    its running min / max only on a strictly smaller / larger element."""
    def first() -> np.ndarray:
        xm = np.moveaxis(x, dim, -1).astype(np.float64)
        best = xm.max(axis=-1) if largest else xm.min(axis=-1)
        return np.take_along_axis(xm, np.argmax(xm == best[..., None], axis=-1)[..., None], axis=-1)[..., 0]

    _rewrite_zeros(res, keepdim, first)


def whole_nan(r: np.ndarray, n: int) -> None:
    """The NaN bits of PyTorch's max() / min() (and of each of aminmax()'s pair) of every element
    of a float tensor of ``n`` elements holding a NaN, written into the one-element result ``r``
    (which holds a NaN).

    PyTorch reduces in float32/float64 (float16 and bfloat16 in float32, converted back): one
    element is that element (a float32 one quieted); more, in one parallel chunk, the NaN whose
    bits are all ones (its vector NaN mask); cut into chunks, quiet_NaN() (the chunks' results
    combined by the scalar max_impl); measured 2 to 1e6. float16 keeps the float NaN's sign
    (c10::Half: 0x7e00 or 0xfe00), bfloat16 drops it (c10::BFloat16: 0x7fc0 always)."""
    bits = r.view(np.uint16 if r.itemsize == 2 else np.uint32 if r.itemsize == 4 else np.uint64)
    if r.dtype.char == "e":  # float16
        negative = bool(bits[0] >> 15) if n == 1 else parallel_chunks(n, torch_threads()) == 1
        bits[...] = 0xFE00 if negative else 0x7E00
    elif r.itemsize == 2:  # bfloat16
        bits[...] = 0x7FC0
    elif n == 1:  # (the element's own NaN; float32's quieted, float64's as it is: measured)
        if r.itemsize == 4:
            bits[...] |= 1 << 22
    elif parallel_chunks(n, torch_threads()) > 1:
        r[0] = np.nan
    else:
        bits[...] = 2 ** (8 * r.itemsize) - 1
