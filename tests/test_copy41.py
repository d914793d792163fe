"""copy41: roll's general path through the blocked copy, fast paths for flip of permuted dense tensors and repeat.

``roll`` of a tensor that is not row-major (a transpose, a negative-stride or expanded view) copies
its pieces with :func:`strided.kernels.blocked.copy_into` (a permuted input's through the compiled
transpose) instead of ``np.copyto``, and a flattened roll (``dims=None``) reads a row-major copy
made by :func:`strided.kernels.blocked.row_major`; ``flip`` / ``fliplr`` / ``flipud`` of a permuted
dense tensor (every dim of size >= 2, strides a permutation of row-major ones) take a fast path that
copies its storage run, reversed, into memory laid out with its strides; ``repeat`` of a
row-major tensor with plain int counts skips the general path's parsing. Checked here against
PyTorch (values as bytes, shape, strides, dtype) on hypothesis layouts (negative strides,
expanded, sliced, 0-d, zero-size, dims of 1, element sizes 1/2/4/8/16), on large transposes that
reach the compiled kernel (under each of its block sets, in fresh processes), and against the
general path itself: the same bytes, strides and copy-ledger records with someone listening.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import fresh_runs
import strided
from strided.kernels import native
from strided.ops.shape import reorder

DTYPES = ["i1", "u1", "?", "f2", "i2", "f4", "i4", "f8", "i8", "c8", "c16"]


def _raw(rng: np.random.Generator, shape: tuple[int, ...], dt: str) -> np.ndarray:
    """Random bytes viewed as ``dt`` (NaN payloads and all; bools 0 or 1)."""
    n = int(np.prod(shape))
    if dt == "?":
        return rng.integers(0, 2, n, dtype=np.uint8).view(np.bool_).reshape(shape)
    return rng.integers(0, 256, n * np.dtype(dt).itemsize, dtype=np.uint8).view(dt).reshape(shape)


def _same(got: strided.Tensor, want: torch.Tensor) -> None:
    """A strided result equal to PyTorch's: shape, strides, dtype and bytes."""
    assert tuple(got.shape) == tuple(want.shape)
    assert tuple(got.stride()) == tuple(want.stride()), (got.stride(), want.stride())
    g, w = got.numpy(), want.numpy()
    assert g.dtype == w.dtype
    assert np.ascontiguousarray(g).tobytes() == np.ascontiguousarray(w).tobytes()


@hs.composite
def layouts(draw: hs.DrawFn) -> tuple[np.ndarray, list]:
    """Random bytes (a contiguous NumPy array) and the view steps that lay them out in a layout
    strided and PyTorch both take: 0-d to 4-d, dims of 0, 1 and more, sliced with steps, reversed
    (strided's negative strides; PyTorch's flip, a copy), permuted, expanded (stride 0)."""
    dt = draw(hs.sampled_from(DTYPES))
    nd = draw(hs.integers(0, 4))
    shape = tuple(draw(hs.lists(hs.sampled_from([0, 1, 2, 3, 5, 8, 17]), min_size=nd, max_size=nd)))
    rng = np.random.default_rng(draw(hs.integers(0, 2**16)))
    steps = tuple(draw(hs.sampled_from([1, 1, 2])) for _ in shape)
    base = _raw(rng, tuple(max(n, 1) * s + 1 for n, s in zip(shape, steps)), dt)
    ops: list = [("slice", tuple(slice(1, 1 + n * s, s) for n, s in zip(shape, steps)))]
    for d in range(nd):
        if draw(hs.integers(0, 3)) == 0:
            ops.append(("reverse", d))
    if nd >= 2:
        ops.append(("permute", tuple(draw(hs.permutations(range(nd))))))
    if nd and draw(hs.integers(0, 4)) == 0:  # a dim of 1 expanded (stride 0)
        d = draw(hs.integers(0, nd - 1))
        ops.append(("expand", d, draw(hs.sampled_from([1, 3]))))
    return base, ops


def _build(base: np.ndarray, ops: list) -> tuple[strided.Tensor, torch.Tensor, bool]:
    """The layout in both libraries, and whether strided's has a negative stride (PyTorch's is
    then a copy, its layout not strided's)."""
    s, t = strided.from_numpy(base), torch.from_numpy(base.copy())
    negative = False
    for op in ops:
        if op[0] == "slice":
            s, t = s[op[1]], t[op[1]]
        elif op[0] == "reverse":
            key = (slice(None),) * op[1] + (slice(None, None, -1),)
            s, t = s[key], torch.flip(t, (op[1],))
            negative = True
        elif op[0] == "permute":
            s, t = s.permute(op[1]), t.permute(op[1])
        elif s.shape[op[1]]:  # (expand: a zero-size dim stays as it is)
            _, d, n = op
            key = (slice(None),) * d + (slice(0, 1),)
            size = list(s.shape)
            size[d] = n
            s, t = s[key].expand(*size), t[key].expand(*size)
    assert np.array_equal(np.ascontiguousarray(s.numpy()).view(np.uint8), np.ascontiguousarray(t.numpy()).view(np.uint8))
    return s, t, negative


def _check(got: strided.Tensor, want: torch.Tensor, strides: bool = True) -> None:
    if strides:
        _same(got, want)
    else:
        assert tuple(got.shape) == tuple(want.shape) and got.numpy().dtype == want.numpy().dtype
        assert np.ascontiguousarray(got.numpy()).tobytes() == np.ascontiguousarray(want.numpy()).tobytes()


def _torch_view(x: np.ndarray) -> torch.Tensor:
    """``x`` (non-negative strides) as a PyTorch tensor over a copy of its memory, its strides kept
    (stride 0 included, which ``torch.from_numpy`` of a read-only view would share)."""
    if not x.size:
        return torch.from_numpy(x.copy())
    hi = sum((n - 1) * s for n, s in zip(x.shape, x.strides))
    span = np.ndarray(hi // x.itemsize + 1, x.dtype, buffer=_owner(x), offset=_offset(x))
    return torch.from_numpy(span.copy()).as_strided(x.shape, [s // x.itemsize for s in x.strides])


def _owner(x: np.ndarray) -> np.ndarray:
    while isinstance(x.base, np.ndarray):
        x = x.base
    return x


def _offset(x: np.ndarray) -> int:
    return x.__array_interface__["data"][0] - _owner(x).__array_interface__["data"][0]


def _dims(draw: hs.DrawFn, nd: int) -> tuple[int, ...]:
    return tuple(draw(hs.lists(hs.integers(-nd, nd - 1), unique_by=lambda d: d % nd, max_size=nd))) if nd else ()


@settings(max_examples=300, deadline=None)
@given(made=layouts(), data=hs.data())
def test_flips_against_torch(made: tuple, data: hs.DataObject) -> None:
    """flip (any dims), fliplr and flipud: PyTorch's values, strides and dtype (values only where
    strided's input has negative strides, which PyTorch's cannot)."""
    s, t, negative = _build(*made)
    nd = len(s.shape)
    dims = _dims(data.draw, nd)
    calls = [(lambda a: strided.flip(a, dims), lambda a: torch.flip(a, dims))]
    if nd >= 2:
        calls.append((strided.fliplr, torch.fliplr))
    if nd >= 1:
        calls.append((strided.flipud, torch.flipud))
    for sf, tf in calls:
        _check(sf(s), tf(t), not negative)


@settings(max_examples=300, deadline=None)
@given(made=layouts(), data=hs.data())
def test_roll_against_torch(made: tuple, data: hs.DataObject) -> None:
    """roll along one or more dims, and flattened (dims None): PyTorch's values, strides, dtype
    (values only where strided's input has negative strides, which PyTorch's cannot)."""
    s, t, negative = _build(*made)
    nd = len(s.shape)
    shift = data.draw(hs.integers(-20, 20))
    _check(strided.roll(s, shift), torch.roll(t, shift), not negative)
    if nd:
        dims = _dims(data.draw, nd) or (0,)
        shifts = tuple(data.draw(hs.integers(-20, 20)) for _ in dims)
        _check(strided.roll(s, shifts, dims), torch.roll(t, shifts, dims), not negative)


@settings(max_examples=300, deadline=None)
@given(made=layouts(), data=hs.data())
def test_repeat_against_torch(made: tuple, data: hs.DataObject) -> None:
    """repeat with counts as varargs, a tuple and a list (zero counts, extra leading counts):
    PyTorch's values, strides, dtype (values only where strided's input has negative strides)."""
    s, t, negative = _build(*made)
    nd = len(s.shape)
    reps = tuple(data.draw(hs.lists(hs.integers(0, 3), min_size=nd, max_size=nd + 2)))
    if not reps:
        reps = (data.draw(hs.integers(0, 3)),)
    _check(s.repeat(*reps), t.repeat(*reps), not negative)
    _check(s.repeat(reps), t.repeat(reps), not negative)
    _check(s.repeat(list(reps)), t.repeat(list(reps)), not negative)


def test_repeat_fast_path_is_taken_and_leaves_the_rest() -> None:
    """_fast_repeat answers a row-major tensor's plain counts; None for a transpose, too few
    counts, a negative count, a float or bool count, an empty result (the general path's errors
    and results)."""
    x = strided.arange(6.0).reshape(2, 3)
    got = reorder._fast_repeat(x, (2, 1, 2))
    assert got is not None and got.tolist() == torch.arange(6.0).reshape(2, 3).repeat(2, 1, 2).tolist()
    assert got.stride() == torch.ones(2, 3).repeat(2, 1, 2).stride() == (12, 6, 1)
    assert reorder._fast_repeat(x, ((3, 1),)).tolist() == torch.arange(6.0).reshape(2, 3).repeat(3, 1).tolist()
    for reps in [(2,), (2, -1), (2.0, 1), (True, 1), (0, 1)]:
        assert reorder._fast_repeat(x, reps) is None, reps
    assert reorder._fast_repeat(x.t(), (2, 1)) is None


# large transposes (past the compiled kernel's 256 KB), odd and power-of-two sizes, every element size
LARGE = [(1024, 1024), (300, 517), (64, 4099), (3, 180, 257)]


def _large(rng: np.random.Generator, shape: tuple[int, ...], dt: str) -> list[np.ndarray]:
    a = _raw(rng, shape[::-1], dt)
    return [a.T, a[..., 1:].T]  # (the second not dense: flip's general path)


@pytest.mark.parametrize("dt", ["i1", "f2", "f4", "f8", "c16"])
@pytest.mark.parametrize("shape", LARGE)
def test_large_transposes_against_torch(dt: str, shape: tuple[int, ...], torch_threads_as_assumed) -> None:
    """roll (one dim, two dims, flattened) and flip / fliplr / flipud of large transposes: the
    compiled kernel's copies, PyTorch's bytes and strides."""
    rng = np.random.default_rng(len(shape) * 1000 + shape[-1])
    for x in _large(rng, shape, dt):
        s, t = strided.from_numpy(x), _torch_view(x)
        _same(strided.roll(s, 7, 0), torch.roll(t, 7, 0))
        _same(strided.roll(s, -3, -1), torch.roll(t, -3, -1))
        _same(strided.roll(s, (5, -9), (0, 1)), torch.roll(t, (5, -9), (0, 1)))
        _same(strided.roll(s, 1001), torch.roll(t, 1001))
        _same(strided.flip(s, (0,)), torch.flip(t, (0,)))
        _same(strided.flip(s, tuple(range(x.ndim))), torch.flip(t, tuple(range(x.ndim))))
        _same(strided.fliplr(s), torch.fliplr(t))
        _same(strided.flipud(s), torch.flipud(t))


def test_dense_flip_is_taken_and_keeps_the_strides() -> None:
    """A permuted dense tensor's flip goes by _dense_flip (not the general path), its result laid
    out with the input's strides; a layout it must leave (a dim of 1, a sliced tensor, a wide
    unsigned dtype) gets None."""
    x = strided.arange(2 * 3 * 4, dtype=strided.float32).reshape(2, 3, 4).permute(2, 0, 1)
    got = reorder._dense_flip(x, (0, 2))
    assert got is not None and got.stride() == x.stride() == (1, 12, 4)
    assert got.tolist() == torch.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1).flip((0, 2)).tolist()
    assert reorder._dense_flip(strided.ones(3, 1).t(), (0,)) is None
    assert reorder._dense_flip(strided.ones(4, 6)[:, :3].t(), (0,)) is None
    assert reorder._dense_flip(strided.ones(4, 6, dtype=strided.uint32).t(), (0,)) is None


def _records(make, op) -> tuple[list, list]:
    x = make()
    with strided.record_copies() as copies:
        out = op(x)
    return ([out.numpy().tobytes(), out.shape, out.stride(), out.dtype],
            [(c.nbytes, c.reason, c.shape, c.dtype) for c in copies])


@pytest.mark.parametrize("op", [lambda t: strided.flip(t, (0,)), lambda t: strided.fliplr(t),
                                lambda t: strided.flipud(t), lambda t: strided.flip(t, (0, 1)),
                                lambda t: strided.roll(t, 3, 0), lambda t: strided.roll(t, -5),
                                lambda t: t.roll((2, 1), (1, 0)), lambda t: t.repeat(2, 1, 3)])
@pytest.mark.parametrize("make", [
    lambda: strided.arange(600 * 700, dtype=strided.float32).reshape(600, 700),
    lambda: strided.arange(600 * 700, dtype=strided.float32).reshape(600, 700).t(),
    lambda: strided.arange(40 * 50 * 60, dtype=strided.int16).reshape(40, 50, 60).permute(2, 0, 1),
    lambda: strided.arange(6.0).reshape(2, 3).t(),
])
def test_fast_paths_match_the_general_path_and_its_ledger(make, op) -> None:
    """With the ledger listening (the general path) and without (the fast paths): the same bytes,
    shape, strides and dtype; the ledger records one copy of the result's bytes."""
    x = make()
    fast = op(x)
    general, records = _records(make, op)
    assert [fast.numpy().tobytes(), fast.shape, fast.stride(), fast.dtype] == general
    assert len(records) == 1 and records[0][0] == fast.numpy().nbytes


needs_kernel = pytest.mark.skipif(native.kernel() is None, reason="the compiled copy kernel is not built")

_SCRIPT = (
    "import hashlib, numpy as np, strided\n"
    "rng = np.random.default_rng(41)\n"
    "h = hashlib.sha256()\n"
    "for dt in ['i1', 'f2', 'f4', 'f8', 'c16']:\n"
    "    for shape in [(1024, 1024), (300, 517), (3, 180, 257)]:\n"
    "        n = int(np.prod(shape)) * np.dtype(dt).itemsize\n"
    "        a = rng.integers(0, 256, n, dtype=np.uint8).view(dt).reshape(shape[::-1])\n"
    "        s = strided.from_numpy(a.T)\n"
    "        for out in (strided.roll(s, 7, 0), strided.roll(s, -3, -1), strided.roll(s, 1001),\n"
    "                    strided.flip(s, (0,)), strided.fliplr(s), strided.flip(s, tuple(range(len(shape))))):\n"
    "            h.update(out.numpy().tobytes()); h.update(str(out.stride()).encode())\n"
    "print(h.hexdigest())\n")


@needs_kernel
def test_every_block_set_gives_the_same_bytes() -> None:
    """roll and flip of large transposes in fresh processes under each of the copy kernel's block
    sets (the CPU's pick: AVX-512 on this machine; STRIDED_NATIVE_COPY_ISA=avx2 and =sse) and with
    the kernel off (STRIDED_NATIVE=0: NumPy's copies): the same bytes and strides."""
    runs = fresh_runs.outputs(_SCRIPT, {}, {"STRIDED_NATIVE_COPY_ISA": "avx2"}, {"STRIDED_NATIVE_COPY_ISA": "sse"},
                              {"STRIDED_NATIVE": "0"})
    assert runs[0] == runs[1] == runs[2] == runs[3] and len(runs[0]) == 65
