"""The NaN words PyTorch's CPU conversion writes into bfloat16 from float32 and float64.

Measured on torch 2.13 x86-64 (AVX512 capability) and read in its ``copy_kernel``
(``aten/src/ATen/native/cpu/CopyKernel.cpp``). A number's bits are the same on every path
(round to nearest even, overflow to inf, subnormals kept; float64 rounded to float32 first, see
:func:`strided.kernels.memory.reduced_cast_source`); only a NaN's word depends on the path, and
never keeps the NaN's sign or payload (NumPy's ml_dtypes writes sign | 0x7FC0):

- the vector conversion (``cvtfp32_bf16``: an ordered-compare mask blended in) writes 0xFFFF;
- the scalar one (``c10::BFloat16(float)``, ``round_to_nearest_even``) writes 0x7FC0.

Which one runs, for ``copy_`` (and so ``to``, ``type``, ``bfloat16()``, ``tensor(array,
dtype=)``, ``t[...] = tensor``, an ``out=`` cast), by TensorIterator's rows (its dims ordered by
the operands' strides and merged where contiguous together; a row is the first merged dim):

- float32: ``reduced_float_copy_kernel`` takes rows along which the output's stride is one
  element and the source's one (every element, a row's tail too, through the vector
  conversion, partial vectors included: 0xFFFF) or zero (one scalar conversion broadcast:
  0x7FC0); any other row goes through ``cpu_kernel``'s scalar loop (0x7FC0). A copy of one
  element between two tensors of one shape (not 0-d) is a contiguous row (TensorIterator's
  fast setup): 0xFFFF; from a 0-d or broadcast source: 0x7FC0.
- float64: rows along which both strides are one element (``has_contiguous_first_dim``) go
  through ``at::vec::convert``: steps of :data:`F64_STEP` elements convert as vectors
  (0xFFFF), the row's last ``len % 16`` elements as scalars (0x7FC0), each row cut where
  ``at::parallel_for``'s chunks start (:mod:`strided.kernels.torch_loops`); any other row
  (strided, broadcast) is scalar throughout: 0x7FC0.

An ``out=`` cast of a TensorIterator op copies from a contiguous temporary of the result's
dtype; a join (cat, stack, hstack, ...) copies each part from its own contiguous temporary into
its slice; a bfloat16 ``mean`` converts its float32 copy of the result (preserve format) back.

float16 and complex sources (their real parts) go through the scalar conversion on every path
(measured: 0x7FC0 at any size and layout).

A Python number written into bfloat16 (``fill_``, ``full``, ``t[...] = nan``, ``tensor(list)``)
goes through the scalar conversion: 0x7FC0.
"""

from __future__ import annotations

import numpy as np

from . import native, torch_loops
from .fpstate import quiet
from .reduced_nans import _nan_words, _put, has_nan

__all__ = ["F64_STEP", "cast_as_copied", "copy_nans", "copy_nans_as", "is_bf16", "is_float_source", "narrow_into", "number_nans"]

# at::vec::convert(const double *, BFloat16 *, n)'s step, Vectorized<BFloat16>::size() as the
# copy kernel is compiled: measured 16 elements under the AVX512 capability (its AVX2 build's)
F64_STEP = 16

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def is_bf16(dtype: np.dtype) -> bool:
    """Whether the NumPy dtype is ml_dtypes' bfloat16 (NumPy's kind 'V', 2 bytes)."""
    return dtype.kind == "V" and dtype.itemsize == 2 and dtype.name == "bfloat16"


def is_float_source(source: object) -> bool:
    """Whether ``source`` is a NumPy array or scalar of a float (float16, float32, float64) or
    complex dtype: the sources whose NaN words this module decides (bfloat16 ones are copied
    word for word)."""
    dtype = getattr(source, "dtype", None)
    return dtype is not None and dtype.kind in "fc"


def _element_strides(a: np.ndarray) -> tuple[int, ...] | None:
    """``a``'s strides in elements, None where one is negative or not a multiple of the itemsize
    (no tensor has such a layout: the caller then takes the scalar rule)."""
    size = a.itemsize
    out = []
    for s in a.strides:
        if s < 0 or s % size:
            return None
        out.append(s // size)
    return tuple(out)


def _vector_elements(shape: tuple[int, ...], out_strides: tuple[int, ...] | None, src_shape: tuple[int, ...],
                     src_strides: tuple[int, ...] | None, src_dtype: np.dtype) -> bool | np.ndarray:
    """Which elements of a bfloat16 output (``shape``, ``out_strides`` in elements) PyTorch's copy
    from a source of ``src_dtype`` laid out as (``src_shape``, ``src_strides``; in elements,
    broadcastable to ``shape``) converts as vectors: True (all), False (none) or a bool array of
    ``shape``."""
    if out_strides is None or src_strides is None or (src_dtype != _F32 and src_dtype != _F64):
        return False  # (float16 and complex sources: c10::convert, the scalar conversion, everywhere)
    numel = 1
    for n in shape:
        numel *= n
    if numel == 1:
        # (one element: TensorIterator's fast setup makes two tensors of one shape a contiguous
        # row; a 0-d or broadcast source keeps stride 0)
        return src_dtype == _F32 and len(shape) > 0 and tuple(src_shape) == tuple(shape)
    perm, row, contiguous, scalar = torch_loops._loop_rows(shape, out_strides, False, [(tuple(src_shape), src_strides)])
    if not contiguous or scalar is not None:
        return False  # (a strided row, or a stride-0 source: the scalar conversion)
    if src_dtype == _F32:
        return True
    mask = torch_loops.scalar_loop_mask(shape, out_strides, False, [(tuple(src_shape), src_strides)], step=F64_STEP)
    return True if mask is None else ~mask


def copy_nans(dest: np.ndarray, source: np.ndarray, src_strides: tuple[int, ...] | None = None) -> None:
    """Give the NaN words of the bfloat16 array ``dest``, just written from the float32 or
    float64 array ``source`` (broadcastable to it), the bits of PyTorch's ``dest.copy_(source)``
    (the module's rules), in place. ``src_strides``: the layout PyTorch's copy reads instead of
    ``source``'s own (in elements, over ``source.shape``; an ``out=`` cast's contiguous
    temporary)."""
    copy_nans_as(dest, tuple(source.shape), _element_strides(source) if src_strides is None else src_strides,
                 source.dtype)


def copy_nans_as(dest: np.ndarray, src_shape: tuple[int, ...], src_strides: tuple[int, ...] | None,
                 src_dtype: np.dtype) -> None:
    """:func:`copy_nans` for a source described, not given: its shape, its strides in elements
    (None: a layout no tensor has, the scalar rule) and its dtype (float32 or float64)."""
    vector = _vector_elements(dest.shape, _element_strides(dest), src_shape, src_strides, np.dtype(src_dtype))
    if vector is not True and vector is not False:
        if has_nan(dest):
            words, nan = _nan_words(dest)
            _put(words, nan, 0x7FC0)
            _put(words, nan & vector, 0xFFFF)
        return
    _all_nans(dest, 0xFFFF if vector else 0x7FC0)


def cast_as_copied(source: np.ndarray, dest_strides: tuple[int, ...], src_strides: tuple[int, ...]) -> np.ndarray:
    """The float32 or float64 array ``source`` converted to a fresh C-contiguous bfloat16 array of
    its shape, each NaN word the one PyTorch's copy of ``source`` (laid out with ``src_strides``, in
    elements) writes into a destination of ``dest_strides`` (in elements; its elements may share
    memory: the caller writes each location's last write, :mod:`.torch_overlap_writes`)."""
    from ml_dtypes import bfloat16

    from .memory import reduced_cast_source  # (memory imports this module)

    with quiet():
        made = np.ascontiguousarray(reduced_cast_source(np.dtype(bfloat16), source).astype(bfloat16))
    if has_nan(made):
        vector = _vector_elements(made.shape, tuple(dest_strides), made.shape, tuple(src_strides), source.dtype)
        flat = made.reshape(-1)
        words, nan = _nan_words(flat)
        _put(words, nan, 0x7FC0)
        if vector is True:
            _put(words, nan, 0xFFFF)
        elif vector is not False:
            _put(words, nan & np.asarray(vector).reshape(-1), 0xFFFF)
    return made


def _all_nans(dest: np.ndarray, word: int) -> None:
    """Every NaN word of the bfloat16 array ``dest`` made ``word``, in place: one compiled pass
    over a C-contiguous ``dest``, else a check and NumPy's passes where it holds a NaN."""
    k = native.half()
    if k is not None and dest.flags.c_contiguous and dest.flags.writeable:
        k.nan_ones(dest, word)
    elif has_nan(dest):
        words, nan = _nan_words(dest)
        _put(words, nan, word)


def number_nans(dest: np.ndarray) -> None:
    """Give every NaN word of the bfloat16 array ``dest`` the scalar conversion's bits, 0x7FC0
    (a Python number written into it), in place."""
    _all_nans(dest, 0x7FC0)


def narrow_into(dest: np.ndarray, source: np.ndarray) -> bool:
    """``dest[...] = source`` for a bfloat16 ``dest`` and a float32 or float64 ``source`` of its
    shape, both C-contiguous or both F-contiguous (one run in memory order, one row of PyTorch's
    copy), by the compiled conversion (:func:`strided.kernels.reduced_arith.three_passes`'s
    narrowing: nearest even, every NaN 0xFFFF), with PyTorch's NaN words (float64: the tails of
    its 16-element steps 0x7FC0). False (nothing written) for any other pair, fewer than two
    elements, or where the compiled kernel is off."""
    if dest.shape != source.shape or dest.size < 2 or not dest.flags.writeable:
        return False
    if dest.flags.c_contiguous and source.flags.c_contiguous:
        d, s = dest.reshape(-1), source.reshape(-1)
    elif dest.flags.f_contiguous and source.flags.f_contiguous:
        d, s = dest.T.reshape(-1), source.T.reshape(-1)
    else:
        return False
    k = native.half()
    if k is None:
        return False
    if s.dtype == _F64:
        with quiet():  # (beyond float32's range: inf, silently, as PyTorch)
            s = s.astype(np.float32)  # (PyTorch's _mm256_cvtpd_ps: nearest even, as NumPy's cast)
    elif s.dtype != _F32:
        return False
    if not k.bf16_narrow(s, d):
        return False
    if source.dtype == _F64:
        n = d.shape[0]
        piece = torch_loops.piece_length(n)
        words = d.view(np.uint16)
        for start in range(0, n, piece):
            end = min(start + piece, n)
            tail = (end - start) % F64_STEP
            if tail:
                w = words[end - tail : end]
                w[(w & 0x7FFF) > 0x7F80] = 0x7FC0
    return True
