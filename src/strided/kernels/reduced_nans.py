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

import numpy as np

from . import torch_loops

__all__ = ["LOOP_SPLIT", "VML_ALL_ONES", "all_ones_nans", "flat_loop_nans", "has_nan", "loop_nans"]

# The unary ops whose bfloat16 NaNs are all 0xFFFF in PyTorch (measured: sizes 1 to 70,
# contiguous and strided inputs, NaNs of every sign and payload and NaNs they make)
VML_ALL_ONES = frozenset((
    "acos", "asin", "atan", "ceil", "cos", "erf", "erfc", "erfinv", "exp", "expm1", "floor", "i0",
    "lgamma", "log", "log10", "log1p", "log2", "round", "sin", "sqrt", "tan", "tanh", "trunc",
))

_BF16_ALL_ONES = np.uint16(0xFFFF)
_BF16_SCALAR_NAN = np.uint16(0x7FC0)


def _nan_words(out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``out`` (bfloat16, any strides) as uint16 words and the mask of its NaNs."""
    words = out.view(np.uint16)  # (same itemsize: a view of any layout)
    return words, (words & np.uint16(0x7FFF)) > np.uint16(0x7F80)


def all_ones_nans(out: np.ndarray) -> None:
    """Give every NaN of the bfloat16 array ``out`` PyTorch's vectorized bits, 0xFFFF (in place)."""
    words, nan = _nan_words(out)
    if nan.any():
        words[nan] = _BF16_ALL_ONES


def loop_nans(out: np.ndarray, scalar: np.ndarray | None) -> None:
    """Give the NaNs of the bfloat16 array ``out`` the bits of the PyTorch loop that computed each:
    0x7FC0 where ``scalar`` (a bool array of ``out``'s shape,
    :func:`strided.kernels.torch_loops.scalar_loop_mask`; None: no element) is set, else 0xFFFF."""
    words, nan = _nan_words(out)
    if not nan.any():
        return
    if scalar is None:
        words[nan] = _BF16_ALL_ONES
        return
    words[nan & scalar] = _BF16_SCALAR_NAN
    words[nan & ~scalar] = _BF16_ALL_ONES


# The binary ops whose bfloat16 kernel is ``cpu_kernel_vec`` over float32 math (vector loop:
# 0xFFFF NaNs; scalar loop: 0x7FC0), measured for every pair of special values, contiguous,
# strided and broadcast operands, in-place and a Python-number operand
LOOP_SPLIT = frozenset(("add", "sub", "mul", "div"))


def has_nan(out: np.ndarray) -> bool:
    """Whether the bfloat16 array ``out`` holds a NaN (a test on its words: no float conversion)."""
    return bool(_nan_words(out)[1].any())


def flat_loop_nans(_x: object, _y: object, res: np.ndarray) -> None:
    """:func:`loop_nans` of a binary op's fresh flat bfloat16 ``res`` computed from two flat runs
    in memory order (or a run and a number): one TensorIterator row (the fast paths' ``fix``)."""
    words, nan = _nan_words(res)
    if not nan.any():
        return
    n = res.shape[0]
    scalar = torch_loops.scalar_loop_mask((n,), (1,), True, [((n,), (1,)), ((n,), (1,))])
    words[nan] = _BF16_ALL_ONES
    if scalar is not None:
        words[nan & scalar] = _BF16_SCALAR_NAN
