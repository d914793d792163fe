"""PyTorch's float32 ``sigmoid`` and ``silu`` bit for bit: SLEEF's ``expf`` where PyTorch's loop
is vectorized, the C library's ``expf`` where it is not (``strided.kernels._sleefkernel``).

What PyTorch 2.13 computes on an x86-64 CPU (measured against ``torch`` on an AMD EPYC with
AVX-512, where ``torch.backends.cpu.get_cpu_capability()`` is ``"AVX512"``):

- ``sigmoid`` and ``silu`` (``UnaryOpsKernel.cpp``, ``Activation.cpp``) are ``cpu_kernel_vec``
  loops. Their vectorized function calls ``Vectorized<float>::exp()``, which is SLEEF's
  ``Sleef_expf16_u10`` under the AVX512 capability (``Sleef_expf8_u10`` under AVX2: the same
  algorithm per lane, ``sleefsimdsp.c``'s ``xexpf``, whose every ``vmla`` is a fused multiply-add in
  ``helperavx512f.h`` / ``helperavx2.h``; within an ulp, 91% correctly rounded); their scalar
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
  lane, every element the scalar function's bits; both checked against ``torch`` run with
  ``ATEN_CPU_CAPABILITY=avx2`` and ``default`` on the AVX-512 machine).
- ``softmax`` along a contiguous last dim (``_vec_softmax_lastdim``) maps ``(x - max).exp()`` over
  whole rows, its tail a partial vector: SLEEF's expf at every element; the float32 rows
  (``_specialkernel.softmax_rows``) take it from ``_sleef_expf.h`` too (87% -> 100% bit-equal on
  64x100 rows). ``log_softmax``'s rows sum the same exponentials but take SLEEF's ``logf`` of the
  sum, which is not ported (the C library's ``logf``: 99.9% bit-equal).
- ``exp`` and ``tanh`` are not that loop: ``exp_kernel`` calls ``at::vml::vexp``, which in PyTorch's
  MKL builds is MKL's ``vmsExp`` (``VML_HA``), for every element and layout (strided inputs are
  gathered and go through it too); ``tanh_kernel`` likewise MKL's ``vmsTanh``. MKL is closed and
  its kernels are picked by CPU, so its bits are not reproduced: strided's float32 ``exp`` is the
  C library's ``expf`` (:func:`exp_float32`), which equals MKL's result in 98.9% of elements
  spread over -100..88 (NumPy's ``np.exp``: 63%), and its ``tanh`` is tanh rounded from double
  (:func:`tanh_float32`), equal to MKL's in 99.8-99.99% (``np.tanh``: 62-84%); all within an ulp
  of the exact value.

Without the compiled module (no C compiler, ``STRIDED_NATIVE=0``, :func:`strided.kernels.native.disabled`)
every function here answers None and the callers run NumPy's ufuncs as before: NumPy's bits
(``np.exp``), within a few ulps of PyTorch's, not PyTorch's.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

from ..layout.order import iteration_order
from . import native
from .torch_loops import GRAIN_SIZE, scalar_loop_mask, torch_threads

EXP, SIGMOID, SILU, LIBM_EXP, TANH = 0, 1, 2, 3, 4  # the kernel's op codes (EXP: SLEEF's expf alone)
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


def exp_float32(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray | None:
    """The C library's ``expf`` of each element of the float32 array ``x`` (any strides), as a
    fresh array of ``x``'s shape, or written into ``out`` (float32, ``x``'s shape; ``x`` itself in
    place) and ``out`` returned where ``out`` is C-contiguous (else a fresh array the caller
    copies); None where the compiled kernel is not used or ``x`` is not float32 (the caller runs
    ``np.exp``: NumPy's bits). Why the C library's: PyTorch's float32 ``exp`` is MKL's ``vmsExp``
    (see the module's note), which is not reproduced; glibc's expf equals it in 98.9-99.9% of
    elements on spreads over -100..88 (``np.exp``: 60-63%), and equals the value PyTorch's own
    scalar loops give everywhere else (``std::exp``). Sixteen lanes at a time where the CPU has
    AVX-512 and a first-use check finds the form equal to this process's expf, else expf itself
    element by element (the same bits)."""
    return _elementwise(x, out, LIBM_EXP)


def tanh_float32(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray | None:
    """``tanh`` of each element of the float32 array ``x`` computed in double and rounded once to
    float (the correctly rounded tanh but within a few 1e-16 of a tie); ``out`` and the answer as
    :func:`exp_float32`'s. Why: PyTorch's float32 ``tanh`` is MKL's ``vmsTanh`` (not reproduced),
    which this equals in 99.8-99.99% of elements (``np.tanh``: 62-84%, glibc's ``tanhf`` 66-94%)."""
    return _elementwise(x, out, TANH)


def _elementwise(x: np.ndarray, out: np.ndarray | None, op: int) -> np.ndarray | None:
    """``op`` (the same function at every element) of the float32 array ``x``: see :func:`exp_float32`."""
    k = native.sleef()
    if k is None or x.dtype != _F32:
        return None
    res = out if out is not None and out.flags.c_contiguous and out.dtype == _F32 and out.shape == x.shape else None
    if res is None:
        res = np.empty(x.shape, _F32)
    k.run(np.ascontiguousarray(x).reshape(-1), res.reshape(-1), op, 0, 0, -1, -1)
    return res


def _fresh(ufunc: np.ufunc, op: int) -> Callable[[np.ndarray], np.ndarray]:
    def fresh(x: np.ndarray) -> np.ndarray:
        if x.dtype == _F32:
            k = native.sleef()
            if k is not None and x.ndim == 1 and x.strides[0] == 4:
                # a flat run (the unary fast path's operand): _elementwise's kernel call without its
                # copy and reshapes (a third of a (16, 16) tanh)
                res = np.empty(x.shape[0], _F32)
                k.run(x, res, op, 0, 0, -1, -1)
                return res
            res = _elementwise(x, None, op)
            if res is not None:
                return res
        return ufunc(x)

    fresh.__doc__ = f"``{ufunc.__name__}`` of a flat float run into a fresh array: the kernel's for float32 (op {op})."
    return fresh


def _kernel(ufunc: np.ufunc, op: int) -> Callable[[np.ndarray, np.ndarray, np.dtype], None]:
    def kernel(x: np.ndarray, out: np.ndarray, compute: np.dtype) -> None:
        if compute == _F32 and out.dtype == _F32 and x.dtype.kind in "biuf":
            xf = x if x.dtype == _F32 else (x.astype(_F32) if x.dtype.kind != "f" else None)
            res = _elementwise(xf, out, op) if xf is not None else None
            if res is not None:
                if res is not out:
                    np.copyto(out, res)
                return
        ufunc(x, out=out, dtype=compute, casting="unsafe")

    kernel.__doc__ = (f"The unary kernel of ``{ufunc.__name__}``: float32 (a float32 input, or an integer/bool one "
                      "converted first as PyTorch converts it) by the compiled kernel, else the ufunc in ``compute``.")
    return kernel


exp_fresh = _fresh(np.exp, LIBM_EXP)
exp_kernel = _kernel(np.exp, LIBM_EXP)
tanh_fresh = _fresh(np.tanh, TANH)
tanh_kernel = _kernel(np.tanh, TANH)
