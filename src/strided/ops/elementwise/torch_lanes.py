"""Where PyTorch's elementwise loop runs its vectorized function and where its scalar one.

Some PyTorch kernels give a NaN input (or a zero) a different answer in their ``Vectorized``
lanes than in their scalar function (a blend that keeps ``g`` only where ``x > 0``, a
``Vectorized`` maximum writing the all-ones NaN word, softshrink's ``+0`` against ``x * 0``).
Which element lands where is the loop's doing (``cpu_kernel_vec``: whole vector steps over each
contiguous piece of a row, the piece's tail and every strided row to the scalar function;
:mod:`strided.kernels.torch_loops` models the rows, the parallel pieces and the strides). This
module is the one place the activations ask it, in two shapes of the same question:

- :func:`scalar_places` / :func:`vector_nans` / :func:`scalar_nans` / :func:`nan_lanes`: a loop
  stepping ``vectors`` Vectorized at a time over a fresh output laid out as ``x`` (and a
  backward's incoming gradient): the step is :func:`lanes` of the dtype times ``vectors``;
- :func:`block_nans`: the NaN inputs in whole blocks of ``unit`` elements of each piece (a
  kernel whose vector width is not the capability's: hardsigmoid's AVX2 build), optionally only
  the first half of each block's lanes (hardswish's product).

The compiled passes in ``kernels/_specialkernel.c`` (``unary_exact``'s lanes / unit arguments)
reproduce the same splits for flat runs below the grain; the tests that guard the bits are
tests/test_attack34.py, test_xfa34.py, test_actfast33.py and test_xf35.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...kernels.sleef import step
from ...kernels.torch_loops import GRAIN_SIZE, fresh_strides, loop_positions, scalar_loop_mask

__all__ = ["AVX2_PAIR", "block_nans", "lanes", "nan_lanes", "scalar_nans", "scalar_places", "vector_nans"]


# ``vectors`` for a kernel PyTorch runs in its AVX2 build under AVX512 too, two Vectorized of 8
# float32 / 4 float64 lanes per step (the shrinks' forward and backward: measured, a row of 17
# float32 leaves its last element to the scalar function under ATEN_CPU_CAPABILITY avx512 and avx2 alike)
AVX2_PAIR = 0


def lanes(dtype: np.dtype, vectors: int = 1) -> int:
    """The elements PyTorch's loop over ``dtype`` (float32 or float64) takes per vector step,
    ``vectors`` Vectorized at a time: 16 float32 / 8 float64 lanes each under AVX512, 8 / 4 under
    AVX2 (:data:`AVX2_PAIR`: 16 / 8 under either); 0 where PyTorch runs no vectorized kernel
    (:func:`strided.kernels.sleef.step` 0: ``ATEN_CPU_CAPABILITY=default``)."""
    if vectors == AVX2_PAIR:
        s = min(step(), 16)
        return s if dtype == np.float32 else s // 2
    return (step() // 2 if dtype == np.float32 else step() // 4) * vectors


def scalar_places(x: np.ndarray, vectors: int = 1, grad: np.ndarray | None = None) -> np.ndarray | slice | bool | None:
    """Where PyTorch's elementwise loop (softshrink's, a backward's) over a float32 / float64 input laid out as ``x``
    (a fresh output) runs its scalar function: a bool array of ``x``'s shape, True for a 0-d ``x``
    (or no vector kernel), None where it runs none (or ``x`` is of another dtype: float16's values
    are upcast copies); a slice of a flat run's scalar tail where ``x`` is one contiguous row in one
    parallel chunk. ``vectors``: the Vectorized values the loop takes per step (:func:`lanes`;
    :data:`AVX2_PAIR` for softshrink and the shrinks' backward, 2 for elu's and hardswish's
    backward: measured on rows of 9, 17 and 33 float64 elements). ``grad``: a backward's incoming gradient, its loop's first input
    (``grad_output``, then ``x``): laid out otherwise than ``x`` (a transposed ``x``, a row-major
    gradient), the loop's order and contiguity are both operands'."""
    if x.dtype != np.float32 and x.dtype != np.float64:
        return None
    if x.ndim == 0:
        return True
    st = lanes(x.dtype, vectors)
    if st == 0:
        return True
    n = x.size
    flat = grad is None or (grad.ndim == 1 and grad.strides[0] == grad.itemsize)
    if x.ndim == 1 and x.strides[0] == x.itemsize and flat and n < GRAIN_SIZE:  # (a flat run in one chunk: its tail)
        return slice(n - n % st, n) if n % st else None
    operands = [(x.shape, tuple(s // x.itemsize for s in x.strides))]
    if grad is not None:
        operands.insert(0, (grad.shape, tuple(s // grad.itemsize for s in grad.strides)))
    return scalar_loop_mask(x.shape, tuple(fresh_strides(x.shape, operands)), True, operands, step=st)


def _split_nans(x: np.ndarray, vectors: int, grad: np.ndarray | None) -> tuple[np.ndarray, np.ndarray] | None:
    """(x's NaNs in the vector lanes, x's NaNs at the scalar places) per :func:`scalar_places`;
    None where ``x`` holds no NaN."""
    nan = np.isnan(x)
    if not nan.any():
        return None
    places = scalar_places(x, vectors, grad)
    if places.__class__ is slice:
        vector = nan.copy()
        vector[places] = False
    else:
        vector = nan if places is None else nan & ~np.broadcast_to(places, nan.shape)
    return vector, nan & ~vector


def vector_nans(x: np.ndarray, vectors: int = 1, grad: np.ndarray | None = None) -> np.ndarray | None:
    """The NaN elements of ``x`` PyTorch's loop (as :func:`scalar_places`) takes in its vector
    lanes: a bool array of ``x``'s shape, or None where ``x`` holds no NaN."""
    split = _split_nans(x, vectors, grad)
    return None if split is None else split[0]


def scalar_nans(x: np.ndarray, vectors: int = 1, grad: np.ndarray | None = None) -> np.ndarray | None:
    """The NaN elements of ``x`` PyTorch's loop (as :func:`scalar_places`) gives its scalar
    function: a bool array of ``x``'s shape, or None where there are none."""
    split = _split_nans(x, vectors, grad)
    return None if split is None or not split[1].any() else split[1]


def nan_lanes(x: np.ndarray, y: np.ndarray, lanes: Any, vectors: int = 1, grad: np.ndarray | None = None) -> np.ndarray:
    """``y`` (a backward's values, its scalar function's for a NaN ``x``) with ``lanes`` (or
    ``lanes()``, made only when ``x`` holds a NaN) where ``x`` is NaN and PyTorch's loop over
    ``x`` (and ``grad``: :func:`scalar_places`) takes the vectorized function (its selections
    treat a NaN otherwise: measured, a NaN's gradient depends on its place there)."""
    vector = vector_nans(x, vectors, grad)
    if vector is None:
        return y
    if callable(lanes):  # (made only here: most inputs hold no NaN)
        lanes = lanes()
    return np.where(vector, lanes, y)


def block_nans(values: np.ndarray, shape: tuple[int, ...], strides: tuple[int, ...], unit: int,
               half: bool = False) -> np.ndarray | None:
    """The NaN ``values`` (laid out as ``shape`` / ``strides`` in elements) PyTorch's loop takes in
    whole blocks of ``unit`` elements of each piece of a row (the rest of a piece, its scalar tail,
    and strided rows run the scalar function); ``half``: only the first half of each block's
    lanes. None where there are none (``unit`` 0: no vector lanes)."""
    if not unit or values.size < (unit >> 1 if half else unit):
        return None
    nan = np.isnan(values)
    if not nan.any():
        return None
    at = loop_positions(shape, fresh_strides(shape, [(shape, strides)]), True, [(shape, strides)])
    if at is None:  # (a strided row: the scalar function throughout)
        return None
    pos, length = at[0], at[1]
    vector = pos < length - length % unit
    if half:
        vector &= pos % unit < unit >> 1
    return nan & vector
