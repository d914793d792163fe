"""The bits of the NaNs PyTorch's CPU kernels give bfloat16 results (measured on torch 2.13, x86-64).

PyTorch computes bfloat16 elementwise ops in float32 and rounds back in one of two ways, which
differ only on NaN:

- ``c10::BFloat16``'s scalar conversion (``round_to_nearest_even``): every NaN is 0x7FC0,
  whatever its sign and payload (the scalar loop: a row's tail, a strided row);
- the vectorized conversion (``cvtfp32_bf16``): every NaN is 0xFFFF, the all-ones pattern
  its ordered-compare mask blends in (the vector loop).

The VML-style unary kernels (``IMPLEMENT_FLOAT_KERNEL``: ``at::vml::v<op>`` over contiguous
buffers, a strided input copied into one first, the tail by a partial vector) take every element
through the vector conversion: their NaNs are all 0xFFFF, in any layout and at any size.
NumPy (ml_dtypes) keeps the NaN's sign instead (sign | 0x7FC0): these functions rewrite it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import native, torch_loops

__all__ = ["LOOP_SPLIT", "VML_ALL_ONES", "all_ones_nans", "flat_fix", "has_nan", "loop_nans", "loop_step", "scalar_mask"]

# The unary ops whose bfloat16 NaNs are all 0xFFFF in PyTorch (measured: sizes 1 to 70,
# contiguous and strided inputs, NaNs of every sign and payload and NaNs they make)
VML_ALL_ONES = frozenset((
    "acos", "asin", "atan", "ceil", "cos", "erf", "erfc", "erfinv", "exp", "expm1", "floor", "i0",
    "lgamma", "log", "log10", "log1p", "log2", "round", "sin", "sqrt", "tan", "tanh", "trunc",
))



def _nan_words(out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``out`` (bfloat16, any strides) as uint16 words and the mask of its NaNs."""
    words = out.view(np.uint16)  # (same itemsize: a view of any layout)
    return words, (words & 0x7FFF) > 0x7F80


def _put(words: np.ndarray, where: np.ndarray, value: int) -> None:
    """``words[where] = value`` by whole-array bit operations (no branch per element: a masked
    copy or a boolean-index store of 1M elements, NaNs scattered among numbers, took 4-8 ms)."""
    ones = np.negative(where.view(np.uint8), dtype=np.uint16)  # (0 or 0xFFFF per element)
    if value != 0xFFFF:
        np.bitwise_and(words, ~ones, out=words)
        ones &= value
    np.bitwise_or(words, ones, out=words)


def has_nan(out: np.ndarray) -> bool:
    """Whether the bfloat16 array ``out`` holds a NaN: the largest magnitude word past the
    infinity's (one masking pass and a max: a 1M-element any() of the NaN mask took 2.4x as long)."""
    return out.size > 0 and int((out.view(np.uint16) & 0x7FFF).max()) > 0x7F80


def all_ones_nans(out: np.ndarray) -> None:
    """Give every NaN of the bfloat16 array ``out`` PyTorch's vectorized bits, 0xFFFF (in place)."""
    k = native.half()
    if k is not None and out.flags.c_contiguous and out.flags.writeable:
        k.nan_ones(out)  # (one pass over the words, no temporaries)
        return
    if has_nan(out):
        words, nan = _nan_words(out)
        _put(words, nan, 0xFFFF)


def loop_nans(out: np.ndarray, scalar: np.ndarray | None) -> None:
    """Give the NaNs of the bfloat16 array ``out`` the bits of the PyTorch loop that computed each:
    0x7FC0 where ``scalar`` (a bool array of ``out``'s shape,
    :func:`strided.kernels.torch_loops.scalar_loop_mask`; None: no element) is set, else 0xFFFF."""
    if not has_nan(out):
        return
    words, nan = _nan_words(out)
    _put(words, nan, 0xFFFF)
    if scalar is not None:
        _put(words, nan & scalar, 0x7FC0)



# The binary ops whose bfloat16 NaNs follow PyTorch's loop split (vector loop: 0xFFFF; scalar
# loop: 0x7FC0), each with its vector loop's step in elements (0: no vector loop, every NaN
# 0x7FC0), measured for every pair of special values at 289 elements, contiguous and strided,
# and (add/sub/mul/div) broadcast, in-place, out= and number operands; -1: 2 * Vectorized<BFloat16>::size()
# under the CPU capability, torch_loops.torch_vector_bytes() elements (64 under AVX512, 32 under AVX2:
# measured on an AMD EPYC without AVX-512; add..floor_divide step 32 under both)
LOOP_SPLIT: dict[str, int] = {
    "add": 32, "sub": 32, "mul": 32, "div": 32, "fmod": 32, "remainder": 32, "floor_divide": 32,
    "atan2": -1, "hypot": -1, "logaddexp": -1, "logaddexp2": -1, "xlogy": 0,
}


def loop_step(name: str) -> int:
    """The vector loop's step in elements of op ``name`` (of :data:`LOOP_SPLIT`) on this CPU's
    capability; 0: no vector loop."""
    step = LOOP_SPLIT[name]
    return torch_loops.torch_vector_bytes() if step < 0 else step


def scalar_mask(name: str, shape: tuple[int, ...], strides: tuple[int, ...], fresh: bool,
                inputs: list) -> np.ndarray | None:
    """The elements op ``name`` (of :data:`LOOP_SPLIT`) computes in PyTorch's scalar loop
    (arguments as :func:`strided.kernels.torch_loops.scalar_loop_mask`'s)."""
    step = loop_step(name)
    if not step:
        return np.ones(shape, bool)
    return torch_loops.scalar_loop_mask(shape, strides, fresh, inputs, step=step)


def flat_fix(name: str) -> Callable[[object, object, np.ndarray], None]:
    """The fast paths' ``fix(x, y, res)`` of op ``name``: :func:`loop_nans` of its fresh flat
    bfloat16 ``res`` computed from two flat runs in memory order (one TensorIterator row)."""

    def fix(_x: object, _y: object, res: np.ndarray) -> None:
        if not has_nan(res):
            return
        step = loop_step(name)  # (the capability read at the first NaN, not at import)
        words, nan = _nan_words(res)
        if not step:
            _put(words, nan, 0x7FC0)
            return
        _put(words, nan, 0xFFFF)
        # each parallel chunk's last len % step elements (scalar_loop_mask's pieces of one row, by
        # slices: its masks over a 1M-element run cost more than the op)
        n = res.shape[0]
        chunks = 1 if n < torch_loops.GRAIN_SIZE else torch_loops.parallel_chunks(n, torch_loops.torch_threads())
        size = -(-n // chunks)
        for start in range(0, n, size):
            end = min(start + size, n)
            tail = (end - start) % step
            if tail:
                _put(words[end - tail : end], nan[end - tail : end], 0x7FC0)

    return fix
