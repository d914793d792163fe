"""In which order PyTorch's CPU index kernels read their source and write their target.

An index op whose source shares memory with its target in a layout PyTorch cannot judge (not
dense: ``get_overlap_status`` says "too hard", so ``assert_no_overlap`` lets it through) computes
in its loop's order: an element of the source read after the loop has written it gives the new
value, not the one strided reads first. Each function here models one kernel's loop (measured
against torch 2.13 by differential fuzzing, ``tests/test_alias_index_ops.py``) and answers where
such a read happens (strided then refuses, :func:`strided.messages.read_after_write`), or None
where every element the op reads is read before any step writes it (strided's read-first
result is PyTorch's):

- ``scatter_`` / ``scatter_add_`` / ``scatter_(reduce=)`` (``cpu_scatter_gather_base_kernel``):
  TensorIterator over the index's shape with ``dim`` squashed, its rows of ``n`` elements; per
  row the ``dim`` loop inside (``dim`` the last dim) or outside the row's elements (2.13 no
  longer asks whether ``n`` is below the index's size along ``dim``); one element at a time;
- ``index_add_`` (``index_add_cpu_out``): a 0-d/1-d target one index at a time; along the first
  or last dim with alpha 1 and an int64 index, a ``scatter_add_`` with the index expanded over the
  source; else one ``add_`` per index of the target's slice and the source's (a vectorized
  elementwise walk inside each, :func:`strided.kernels.torch_loops.read_after_write`);
- ``index_copy_`` (``index_copy_out``): TensorIterator over the target's shape with ``index.numel()``
  along ``dim`` (the target restrided with stride 0 there), one element at a time;
- ``index_put_`` / ``t[idx] = v`` (``index_put_kernel``): TensorIterator over the indexed
  result's shape (the target restrided with stride 0 over the index dims), one element at a time.

From :data:`GRAIN_SIZE` iterations (a kernel's own grain where it has one) PyTorch's threads run
chunks at once: any element read at one step and written at another then counts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .torch_loops import (
    GRAIN_SIZE,
    _loop_rows,
    _to_tensor_dims,
    parallel_chunks,
    read_after_write,
    torch_threads,
)

Lay = tuple  # (shape, strides in elements, offset in elements)


def addresses(shape: Sequence[int], strides: Sequence[int], offset: int) -> np.ndarray:
    """The storage element of each position of a layout, an int64 array of ``shape``."""
    at = np.full((), offset, np.int64)
    for n, s in zip(shape, strides):
        at = at[..., None] + np.arange(n, dtype=np.int64) * s
    return at


def _parallel(iterations: int, grain: int = GRAIN_SIZE) -> bool:
    """Whether ``at::parallel_for`` splits that many iterations into chunks run at once."""
    return iterations >= grain and parallel_chunks(iterations, torch_threads(), grain) > 1


def stale_read(w_at: np.ndarray, w_time: np.ndarray, r_at: np.ndarray, r_time: np.ndarray,
               parallel: bool = False, changes: np.ndarray | None = None) -> tuple[int, int] | None:
    """The first read (its index in ``r_at``, and the index in ``w_at`` of the write before it)
    of an element a step wrote before the step that reads it, or None. Each step reads before it
    writes (a read and a write of one time never conflict); ``parallel``: steps run at once, so
    any write at another time counts; ``changes``: which writes change their element (a copy of
    an element onto itself does not)."""
    w_at, w_time = w_at.reshape(-1), w_time.reshape(-1)
    r_at, r_time = r_at.reshape(-1), r_time.reshape(-1)
    keep = np.arange(w_at.size)
    if changes is not None:
        keep = keep[changes.reshape(-1)]
    if not keep.size or not r_at.size:
        return None
    order = keep[np.lexsort((w_time[keep], w_at[keep]))]
    at = w_at[order]
    first = np.r_[True, at[1:] != at[:-1]]
    last = np.r_[at[1:] != at[:-1], True]
    u_at, u_first, u_last = at[first], order[first], order[last]
    k = np.minimum(np.searchsorted(u_at, r_at), u_at.size - 1)
    hit = u_at[k] == r_at
    early = w_time[u_first[k]]
    stale = hit & (early < r_time)
    if parallel:
        stale |= hit & ((early != r_time) | (w_time[u_last[k]] != r_time))
    if not stale.any():
        return None
    j = int(np.argmax(stale))
    return j, int(u_first[k[j]] if early[j] != r_time[j] else u_last[k[j]])


def copies_differ(w_at: np.ndarray, r_at: np.ndarray, time: np.ndarray) -> bool:
    """Whether copies ``storage[w_at[k]] = storage[r_at[k]]`` run one at a time in ``time``'s
    order leave another storage than the same copies reading every element first: each element
    followed as the original element whose value it holds (a stale read whose value is later
    overwritten unread changes nothing: the last write of a repeated index wins either way)."""
    order = np.argsort(time.reshape(-1), kind="stable")
    dst, src = w_at.reshape(-1)[order].tolist(), r_at.reshape(-1)[order].tolist()
    now: dict[int, int] = {}
    first: dict[int, int] = {}
    for w, r in zip(dst, src):
        now[w] = now.get(r, r)
        first[w] = r
    return now != first


def picks_differ(w_at: np.ndarray, r_at: np.ndarray, time: np.ndarray, store: np.ndarray, pick: str,
                 fill_first: bool) -> bool:
    """Whether ``scatter_reduce``'s ``amax`` / ``amin`` (``pick``) run one step at a time in
    ``time``'s order over the flat ``store`` leaves other values than the same steps reading
    every source element first (a selection: whether a stale read shows depends on the values).
    PyTorch's step: ``self = isnan(src) ? src : max(self, src)`` (``std::max``: the first unless
    it is less); ``fill_first``: every indexed element starts at the identity (-inf / +inf)."""
    order = np.argsort(time.reshape(-1), kind="stable")
    dst, src = w_at.reshape(-1)[order].tolist(), r_at.reshape(-1)[order].tolist()
    seq, first = store.copy(), store.copy()
    if fill_first:
        kind = store.dtype.kind
        lo = -np.inf if kind == "f" else np.iinfo(store.dtype).min
        hi = np.inf if kind == "f" else np.iinfo(store.dtype).max
        seq[dst] = first[dst] = lo if pick == "amax" else hi
    for w, r in zip(dst, src):
        for arr, v in ((seq, seq[r]), (first, store[r])):
            a = arr[w]
            if v != v or (a < v if pick == "amax" else v < a):
                arr[w] = v
    return seq.tobytes() != first.tobytes()


def _where(hit: tuple[int, int] | None, r_shape: Sequence[int], w_shape: Sequence[int], r_at: np.ndarray) -> tuple | None:
    """:func:`stale_read`'s answer as ``(read position, storage element, written position)``."""
    if hit is None:
        return None
    r, w = hit

    def position(flat: int, shape: Sequence[int]) -> list[int]:
        return [int(i) for i in np.unravel_index(flat, tuple(shape))] if len(shape) else []

    return position(r, r_shape), int(r_at.reshape(-1)[r]), position(w, w_shape)


def scatter_walk(target: Lay, src: Lay, index: Lay, idx: np.ndarray,
                 dim: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool] | None:
    """``cpu_scatter_gather_base_kernel``'s walk (arguments as :func:`scatter_stale`'s): ``(time,
    written, read, parallel)``, each an int64 array of the index's shape (0-d as 1-d): the step
    at which the position is written, the storage element it writes in ``target`` and reads in
    ``src``; ``parallel``: whether PyTorch's threads run chunks of it at once. None: no element."""
    shape = tuple(idx.shape) or (1,)
    idx = idx.reshape(shape)
    ndim = len(shape)
    k = shape[dim]
    if not idx.size:
        return None
    it_shape = tuple(1 if e == dim else n for e, n in enumerate(shape))
    t_shape, t_strides, t_off = target
    s_strides, i_strides = tuple(src[1]) or (1,), tuple(index[1]) or (1,)
    t_strides = tuple(t_strides) or (1,)
    perm, row, _, _ = _loop_rows(it_shape, t_strides, False, [(it_shape, s_strides), (it_shape, i_strides)])
    numel = idx.size // k
    flat = _to_tensor_dims(np.arange(numel, dtype=np.int64), it_shape, perm)
    i = np.arange(k, dtype=np.int64).reshape([k if e == dim else 1 for e in range(ndim)])
    outer, nelem = flat // row, flat % row
    if dim == ndim - 1:
        time = outer * (row * k) + nelem * k + i
    else:
        time = outer * (row * k) + i * row + nelem
    time = np.broadcast_to(time, shape)
    lead = [n if e != dim else 1 for e, n in enumerate(shape)]
    base = addresses(lead, [0 if e == dim else s for e, s in enumerate(t_strides)], t_off)
    w_at = base + idx * t_strides[dim]
    r_at = addresses(shape, s_strides, src[2])
    return time, w_at, r_at, _parallel(numel, max(1, GRAIN_SIZE // k))


def scatter_stale(target: Lay, src: Lay, index: Lay, idx: np.ndarray, dim: int, add: bool,
                  fill_first: bool = False, pick: str | None = None, store: np.ndarray | None = None) -> tuple | None:
    """``cpu_scatter_gather_base_kernel``'s reads of ``src`` after its writes into ``target``
    (layouts over the index's rank; ``idx``: the index values, of the index's shape): positions
    in ``src`` and ``target``'s index grid, or None. ``add``: every write changes its element
    (else a copy: an element written from itself does not); ``fill_first``: every indexed
    element is written (filled) before the loop (``scatter_reduce(include_self=False)``);
    ``pick``: ``"amax"`` / ``"amin"``, whose writes change their element only where the values
    say so: with ``store`` (the flat storage, a NumPy dtype that orders as the tensor's) the steps
    are replayed on the values (:func:`picks_differ`), and a stale read that changes nothing is
    let through."""
    walk = scatter_walk(target, src, index, idx, dim)
    if walk is None:
        return None
    time, w_at, r_at, parallel = walk
    shape = w_at.shape
    changes = None if add else w_at != r_at
    if fill_first:
        w_at = np.concatenate([w_at.reshape(-1), w_at.reshape(-1)])
        time = np.concatenate([np.full(idx.size, -1, np.int64), time.reshape(-1)])
        changes = None
    hit = stale_read(w_at, time, r_at, time.reshape(-1)[-idx.size:], parallel, changes)
    if hit is not None and not add and not parallel and not copies_differ(w_at, r_at, time):
        return None
    if hit is not None and pick is not None and store is not None and not parallel and not picks_differ(
            w_at[-idx.size:] if fill_first else w_at, r_at, time.reshape(-1)[-idx.size:], store, pick, fill_first):
        return None
    if hit is not None:
        hit = hit[0], hit[1] % idx.size
    return _where(hit, shape, shape, r_at)


def index_add_stale(target: Lay, source: Lay, idx: np.ndarray, dim: int, scatter_path: bool,
                    itemsize: int) -> tuple | None:
    """``index_add_cpu_out``'s reads of ``source`` after its writes into ``target``: positions in
    ``source`` and ``target``, or None. ``scatter_path``: PyTorch's ``scatter_add_`` (a 2-d+
    target along its first or last dim, alpha 1, an int64 index, the shapes equal but along
    ``dim``)."""
    t_shape, t_strides, t_off = target
    s_shape, s_strides, s_off = source
    k = idx.size
    if not k:
        return None
    if len(t_shape) <= 1:  # (one element per index, in the index's order)
        w_at = t_off + idx.astype(np.int64) * (t_strides[0] if t_shape else 0)
        r_at = s_off + np.arange(k, dtype=np.int64) * (s_strides[0] if s_shape else 0)
        time = np.arange(k, dtype=np.int64)
        hit = stale_read(w_at, time, r_at, time)
        return None if hit is None else ([hit[0]], int(r_at[hit[0]]), [int(idx[hit[1]])])
    if scatter_path:
        shape = tuple(s_shape)
        expanded = np.broadcast_to(idx.reshape([k if e == dim else 1 for e in range(len(shape))]), shape)
        i_strides = tuple(1 if e == dim else 0 for e in range(len(shape)))
        where = scatter_stale(target, source, (shape, i_strides, 0), expanded, dim, True)
        if where is not None:
            read_at, element, written_at = where
            written_at[dim] = int(expanded[tuple(written_at)])
            return read_at, element, written_at
        return None
    # one add_ per index: slice i of the target at idx[i], of the source at i
    t_rest = [(n, s) for e, (n, s) in enumerate(zip(t_shape, t_strides)) if e != dim]
    s_rest = [(n, s) for e, (n, s) in enumerate(zip(s_shape, s_strides)) if e != dim]
    shape = tuple(n for n, _ in t_rest)
    ts, ss = tuple(s for _, s in t_rest), tuple(s for _, s in s_rest)
    s_sub = tuple(n for n, _ in s_rest)
    t_slice = addresses(shape, ts, 0)
    s_slice = np.broadcast_to(addresses(s_sub, ss, 0), shape) if s_sub != shape else addresses(shape, ss, 0)
    steps = np.arange(k, dtype=np.int64)
    w_at = (t_off + idx.astype(np.int64) * t_strides[dim])[:, None] + t_slice.reshape(1, -1)
    r_at = (s_off + steps * s_strides[dim])[:, None] + s_slice.reshape(1, -1)
    time = np.broadcast_to(steps[:, None], w_at.shape)
    hit = stale_read(w_at, time, r_at, time)
    if hit is not None:
        (r, w) = hit
        rs, rp = divmod(r, max(1, t_slice.size))
        ws, wp = divmod(w, max(1, t_slice.size))
        pos = [int(v) for v in np.unravel_index(rp, shape)] if shape else []
        wpos = [int(v) for v in np.unravel_index(wp, shape)] if shape else []
        return pos[:dim] + [int(rs)] + pos[dim:], int(r_at.reshape(-1)[r]), wpos[:dim] + [int(idx[ws])] + wpos[dim:]
    # within one add_: its elementwise walk (vector blocks read before they are written)
    for i in range(k):
        w_off, r_off = int(w_at[i, 0] - t_slice.reshape(-1)[0]), int(r_at[i, 0] - s_slice.reshape(-1)[0])
        if not np.intersect1d(w_at[i], r_at[i]).size:
            continue
        where = read_after_write((shape, ts, w_off, itemsize), (s_sub, ss, r_off, itemsize))
        if where is not None:
            read_at, element, written_at = where
            return (read_at[:dim] + [i] + read_at[dim:], element,
                    None if written_at is None else written_at[:dim] + [int(idx[i])] + written_at[dim:])
    return None


def index_copy_walk(target: Lay, source: Lay, idx: np.ndarray, index_stride: int,
                    dim: int) -> tuple[tuple[int, ...], list[int], np.ndarray, np.ndarray] | None:
    """``index_copy_out``'s TensorIterator walk (0-d layouts as 1-d): ``(shape, perm, written,
    read)``, the iteration's shape (``target``'s with ``len(idx)`` along ``dim``), its order
    (``perm[k]``: the dim at iteration dim k, 0 the fastest) and the storage element each
    position writes in ``target`` and reads in ``source`` (int64 arrays of ``shape``); None for
    no element."""
    t_shape, t_strides, t_off = target
    if not t_shape:
        t_shape, t_strides = (1,), (1,)
    k = idx.size
    shape = tuple(k if e == dim else n for e, n in enumerate(t_shape))
    if not k or 0 in shape:
        return None
    s_shape, s_strides, s_off = source
    if not s_shape:
        s_shape, s_strides = (1,), (1,)
    out_strides = tuple(0 if e == dim else s for e, s in enumerate(t_strides))
    i_shape = tuple(k if e == dim else 1 for e in range(len(shape)))
    i_strides = tuple(index_stride if e == dim else 0 for e in range(len(shape)))
    perm, _, _, _ = _loop_rows(shape, out_strides, False, [(i_shape, i_strides), (tuple(s_shape), tuple(s_strides))])
    w_at = addresses(shape, out_strides, t_off) + idx.astype(np.int64).reshape(i_shape) * t_strides[dim]
    r_at = np.broadcast_to(addresses(s_shape, s_strides, s_off), shape)
    return shape, perm, w_at, r_at


def index_copy_stale(target: Lay, source: Lay, idx: np.ndarray, index_stride: int, dim: int) -> tuple | None:
    """``index_copy_out``'s reads of ``source`` after its writes into ``target`` (0-d layouts as
    1-d): positions in the iteration (``target``'s shape with ``len(idx)`` along ``dim``), or None."""
    walk = index_copy_walk(target, source, idx, index_stride, dim)
    if walk is None:
        return None
    shape, perm, w_at, r_at = walk
    numel = w_at.size
    time = _to_tensor_dims(np.arange(numel, dtype=np.int64), shape, perm)
    parallel = _parallel(numel)
    hit = stale_read(w_at, time, r_at, time, parallel, w_at != r_at)
    if hit is not None and not parallel and not copies_differ(w_at, np.broadcast_to(r_at, shape), time):
        return None
    return _where(hit, shape, shape, r_at)


def index_put_order(shape: tuple[int, ...], out_strides: Sequence[int], read_strides: Sequence[int],
                    index_strides: Sequence[Sequence[int]]) -> list[int]:
    """``index_put_kernel``'s walk of the indexed result's ``shape``: TensorIterator's order of
    its dims (``perm[k]``: the dim at iteration dim k, 0 the fastest) from the target restrided
    (``out_strides``: 0 over the index dims), the value's strides and each index's over ``shape``."""
    perm, _, _, _ = _loop_rows(shape, tuple(out_strides), False,
                               [(shape, tuple(read_strides))] + [(shape, tuple(s)) for s in index_strides])
    return perm


def index_put_stale(written: np.ndarray, out_strides: Sequence[int], read: np.ndarray,
                    read_strides: Sequence[int], index_strides: Sequence[Sequence[int]],
                    accumulate: bool, atomic: bool = False) -> tuple | None:
    """``index_put_kernel``'s reads of the value after its writes into the target: ``written``
    and ``read`` the storage elements of each position of the indexed result (an int64 array of
    its shape; the value broadcast to it), with the operands' strides over that shape that order
    TensorIterator's walk (the target restrided: 0 over the index dims; the value's, 0 where it
    broadcasts; each index's). ``atomic``: an accumulating float32 call, which PyTorch runs in
    parallel chunks with atomic adds (``cpu_atomic_add_float``; other dtypes accumulate in one
    serial walk). Positions in the result, or None."""
    shape = written.shape
    if not written.size:
        return None
    perm = index_put_order(shape, out_strides, read_strides, index_strides)
    time = _to_tensor_dims(np.arange(written.size, dtype=np.int64), shape, perm)
    parallel = (not accumulate or atomic) and _parallel(written.size)
    hit = stale_read(written, time, read, time, parallel, None if accumulate else written != read)
    if hit is not None and not accumulate and not parallel and not copies_differ(written, read, time):
        return None
    return _where(hit, shape, shape, read)


def filled_stale(target: Lay, src: Lay, idx: np.ndarray, dim: int) -> tuple | None:
    """``scatter_reduce_(include_self=False)`` of a float16/bfloat16 target: PyTorch fills every
    indexed element of the target with the reduction's identity in place, then runs its loop on
    a float32 copy (the source read before anything else is written back; measured, torch
    2.13): a source element that the fill wrote is read as the identity. Positions in ``src`` and
    the index's grid of the first such read, or None (strided's read-first values are PyTorch's)."""
    shape = tuple(idx.shape) or (1,)
    idx = idx.reshape(shape)
    if not idx.size:
        return None
    t_strides = tuple(target[1]) or (1,)
    s_strides = tuple(src[1]) or (1,)
    lead = [n if e != dim else 1 for e, n in enumerate(shape)]
    w_at = addresses(lead, [0 if e == dim else s for e, s in enumerate(t_strides)], target[2]) + idx * t_strides[dim]
    r_at = addresses(shape, s_strides, src[2])
    filled = np.isin(r_at.reshape(-1), w_at.reshape(-1))
    if not filled.any():
        return None
    r = int(np.argmax(filled))
    w = int(np.argmax(w_at.reshape(-1) == r_at.reshape(-1)[r]))
    return _where((r, w), shape, shape, r_at)
