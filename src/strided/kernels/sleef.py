"""PyTorch's float32 ``sigmoid`` and ``silu`` bit for bit: SLEEF's ``expf`` where PyTorch's loop
is vectorized, the C library's ``expf`` where it is not (``strided.kernels._sleefkernel``).

What PyTorch 2.13 computes on an x86-64 CPU (measured against ``torch`` on an AMD EPYC with
AVX-512, where ``torch.backends.cpu.get_cpu_capability()`` is ``"AVX512"``):

- ``sigmoid`` and ``silu`` (``UnaryOpsKernel.cpp``, ``Activation.cpp``) are ``cpu_kernel_vec``
  loops. Their vectorized function calls ``Vectorized<float>::exp()``, which is SLEEF's
  ``Sleef_expf16_u10`` under the AVX512 capability (``Sleef_expf8_u10`` under AVX2: the same
  algorithm per lane, with fused multiply-adds; within an ulp, 91% correctly rounded); their scalar
  function calls ``std::exp``, the C library's ``expf`` (glibc's: correctly rounded in all but
  rare cases). Which elements take which (:mod:`strided.kernels.torch_loops`): a contiguous inner
  row in steps of ``2 * Vectorized<float>::size()`` elements (32 under AVX512, 16 under AVX2),
  its last ``len % step`` elements and every element of a non-contiguous row the scalar function;
  at 32768 elements or more PyTorch's threads cut the flat range into chunks, each a row of its
  own (:func:`strided.kernels.torch_loops.torch_threads` threads assumed, as there). So an
  element's bits depend on its place, and this module reproduces the places: 1-D runs of every
  length 0..70, permuted, sliced and expanded inputs, NaN (sigmoid flips its sign, as PyTorch),
  +-inf, -0.0, results in the subnormals and the cut-offs at -104 and 100 are tested against
  ``torch`` (tests/test_sleef_loops.py). ``ATEN_CPU_CAPABILITY`` (``default``, ``avx2``) lowers
  the step as it lowers PyTorch's (``default``: ``Vectorized<float>::exp`` is ``std::exp`` lane by
  lane, every element the scalar function's bits).
- ``exp`` itself is not that loop: ``exp_kernel`` calls ``at::vml::vexp``, which in PyTorch's
  MKL builds is MKL's ``vmsExp`` (``VML_HA``), for every element and layout (strided inputs are
  gathered and go through it too). MKL is closed and its kernels are picked by CPU, so its bits
  are not reproduced: strided's float32 ``exp`` is the C library's ``expf``
  (:func:`exp_float32`), which equals MKL's result in 98.9% of elements spread over -100..88
  (NumPy's ``np.exp``: 63%); both are within an ulp of the exact value.

Without the compiled module (no C compiler, ``STRIDED_NATIVE=0``, :func:`strided.kernels.native.disabled`)
every function here answers None and the callers run NumPy's ufuncs as before: NumPy's bits
(``np.exp``), within a few ulps of PyTorch's, not PyTorch's.
"""

from __future__ import annotations

import os

import numpy as np

from ..layout.order import iteration_order
from . import native
from .torch_loops import GRAIN_SIZE, scalar_loop_mask, torch_threads

EXP, SIGMOID, SILU = 0, 1, 2  # the kernel's op codes
_F32 = np.dtype(np.float32)
_steps: list[int] = []


def step() -> int:
    """``2 * Vectorized<float>::size()`` under the capability PyTorch picks here: 32 (AVX512), 16
    (AVX2), or 0 (neither, or ``ATEN_CPU_CAPABILITY=default``: every element the scalar function's
    bits); ``ATEN_CPU_CAPABILITY=avx2`` caps it at 16, as it caps PyTorch. Read once."""
    if not _steps:
        k = native.sleef()
        lanes = k.capability() if k is not None else 0
        cap = os.environ.get("ATEN_CPU_CAPABILITY", "").strip().lower()
        if cap == "default":
            lanes = 0
        elif cap == "avx2":
            lanes = min(lanes, 8)
        _steps.append(2 * lanes)
    return _steps[0]


def _chunk(n: int, threads: int | None) -> int:
    """The length of PyTorch's parallel chunks of a flat range of ``n`` (0: one chunk)."""
    t = torch_threads() if threads is None else threads
    chunks = 1 if n < GRAIN_SIZE or t <= 1 else min(t, -(-n // GRAIN_SIZE))
    return 0 if chunks == 1 else -(-n // chunks)


def torch_loop(x: np.ndarray, op: int, out: np.ndarray | None = None, threads: int | None = None,
               form: int = -1) -> np.ndarray | None:
    """PyTorch's float32 ``sigmoid`` (``op`` :data:`SIGMOID`) or ``silu`` (:data:`SILU`) of ``x``
    (a float32 array of any strides: a tensor's view) as a fresh array of ``x``'s shape;
    None where the compiled kernel is not used (then the caller's NumPy formula runs) or ``x`` is
    not float32 (laid out as ``x`` where ``x`` is dense: a permuted tensor's result adopts it
    as it is; ``out`` itself, written, where it is laid out as that). ``out``: the array the result goes to (an in-place target: ``x`` itself), whose
    strides order PyTorch's loop; None: a fresh output, dense in ``x``'s dim order (TensorIterator's).
    ``threads``: PyTorch's thread count assumed (default :func:`strided.kernels.torch_loops.torch_threads`);
    ``form``: the kernel's (-1 AVX-512 where the CPU has it, 0 the plain C form: the same bits)."""
    k = native.sleef()
    if k is None or x.dtype != _F32:
        return None
    st = step()
    if x.flags.c_contiguous:  # one row, cut at the parallel chunks
        res = np.empty(x.shape, _F32)
        k.run(x.reshape(-1), res.reshape(-1), op, 0, _chunk(x.size, threads), st, form)
        return res
    # x's dim order where x is dense (a permuted tensor is one row too), straight into out where
    # out is laid out as x (x itself in place: each element is read before it is written)
    res = out if out is not None and out.strides == x.strides and out.dtype == _F32 else np.empty_like(x)
    if res.strides == x.strides and (out is None or out.strides == x.strides):
        order = sorted(range(x.ndim), key=lambda d: -x.strides[d])
        xt, rt = x.transpose(order), res.transpose(order)
        if xt.flags.c_contiguous and rt.flags.c_contiguous:  # (then reshape(-1) are views)
            k.run(xt.reshape(-1), rt.reshape(-1), op, 0, _chunk(x.size, threads), st, form)
            return res
    res = np.empty(x.shape, _F32)
    xs = np.ascontiguousarray(x)
    if st == 0:
        k.run(xs.reshape(-1), res.reshape(-1), op, 0, 0, 0, form)
        return res
    strides = tuple(s // x.itemsize for s in x.strides)
    if out is None:  # the fresh output's strides: dense, x's dims fastest first
        out_strides, size = [0] * x.ndim, 1
        for d in iteration_order(x.shape, [strides]):
            out_strides[d], size = size, size * x.shape[d]
    else:
        out_strides = [s // out.itemsize for s in out.strides]
    mask = scalar_loop_mask(x.shape, tuple(out_strides), out is None, [(x.shape, strides)], step=st,
                            threads=torch_threads() if threads is None else threads)
    k.run(xs.reshape(-1), res.reshape(-1), op, 0, 0, -1, form)  # the vectorized function throughout
    if mask is not None:  # then the scalar loop's elements
        part = xs[mask]
        k.run(part, part, op, 0, 0, 0, form)
        res[mask] = part
    return res
