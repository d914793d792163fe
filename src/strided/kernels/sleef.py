"""PyTorch's float32 and float64 ``sigmoid`` and ``silu`` bit for bit: SLEEF's ``expf`` / ``exp`` where PyTorch's loop
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
- float64 ``sigmoid`` and ``silu`` are the same loops over ``Vectorized<double>`` (steps of 16 under AVX512):
  ``run_d``, SLEEF's ``expd`` (``_sleef_exp.h``, sleefsimddp.c's ``xexp``) in the vectorized
  function, the C library's ``exp`` in the scalar one; tested against ``torch`` alike
  (tests/test_sleef_double.py).
- ``softmax`` along a contiguous last dim (``_vec_softmax_lastdim``) maps ``(x - max).exp()`` over
  whole rows, its tail a partial vector: SLEEF's expf at every element; the float32 rows
  (``_specialkernel.softmax_rows``) take it from ``_sleef_expf.h`` too (87% -> 100% bit-equal on
  64x100 rows). ``log_softmax``'s rows sum the same exponentials but take SLEEF's ``logf`` of the
  sum, which is not ported (the C library's ``logf``: 99.9% bit-equal).
- ``exp`` and ``tanh`` are not that loop: ``exp_kernel`` calls ``at::vml::vexp``, which in PyTorch's
  MKL builds is MKL's ``vmsExp`` (``VML_HA``), for every element and layout (strided inputs are
  gathered and go through it too); ``tanh_kernel`` likewise MKL's ``vmsTanh``. Where pip MKL is
  installed, strided calls those same functions (:mod:`strided.kernels.vml_route`: PyTorch's bits,
  float32 and float64). Without it (or with ``STRIDED_BLAS=openblas``) MKL's closed, per-CPU
  kernels are not reproduced: strided's float32 ``exp`` is then the C library's ``expf``
  (:func:`exp_float32`), which equals MKL's result in 98.9% of elements spread over -100..88
  (NumPy's ``np.exp``: 63%), and its ``tanh`` is tanh rounded from double (:func:`tanh_float32`),
  equal to MKL's in 99.8-99.99% (``np.tanh``: 62-84%); all within an ulp of the exact value.

Without the compiled module (no C compiler, ``STRIDED_NATIVE=0``, :func:`strided.kernels.native.disabled`)
every function here answers None and the callers run NumPy's ufuncs as before: NumPy's bits
(``np.exp``), within a few ulps of PyTorch's, not PyTorch's.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from . import native
from .blocked import row_major
from .torch_loops import (
    GRAIN_SIZE,
    fresh_strides,
    gelu_grain,
    loop_walk,
    parallel_chunks,
    scalar_loop_mask,
    torch_threads,
)

# the kernel's op codes (EXP: SLEEF's expf alone; GELU: GeluKernelImpl's loop, GELU_ONEDNN: oneDNN's;
# EXPM1: SLEEF's expm1 in the vectorized function, the C library's in the scalar one; ELU: elu at
# alpha 1, x where x > 0 else EXPM1's expm1 of x, in one pass; SELU: selu, x * scale where x > 0 else
# EXPM1's expm1 of x * (alpha * scale), in one pass; SOFTPLUS: softplus_kernel's loop, x where
# x * beta > threshold, else log1p(exp(x * beta)) / beta, SLEEF's exp and log1p in the vectorized
# function, the C library's in the scalar one; its parameters torch_loop's ``params``; EXP_SPLIT:
# exp alone as a cpu_kernel_vec loop takes it, SLEEF's vectorized, the C library's in the scalar tail;
# MISH: mish_kernel's loop, x * tanh(log1p(exp(x))), SLEEF's exp, log1p and tanh (_sleef_tanh.h) in the
# vectorized function, the C library's in the scalar one, a NaN's word as PyTorch's lanes write it;
# MISH_T: its tanh(log1p(exp(x))) alone, split alike: mish_backward's tanh_softplus; GELU_TANH_D:
# float64 gelu's tanh form, GeluKernelImpl's loop, SLEEF's tanh vectorized, the C library's in the tail;
# GELU_TANH_PLAIN: the same under ATen's DEFAULT capability, whose build fuses no step; LOG1P:
# float32 / float64 log1p, vml's vec::map of SLEEF's log1p, every element, as EXPM1)
EXP, SIGMOID, SILU, LIBM_EXP, TANH, GELU, GELU_ONEDNN, EXPM1, ELU, SELU, SOFTPLUS, EXP_SPLIT, MISH, MISH_T, \
    GELU_TANH_D, GELU_TANH_PLAIN, LOG1P = range(17)
# float64 gelu's exact form: GeluKernelImpl's loop, SLEEF's erf (_sleef_erf.h) vectorized, the C library's
# in the scalar tail (under ATen's DEFAULT capability, step 0: the C library's throughout); float64 only
GELU_D = 17
# exp2: exp2_kernel's cpu_kernel_vec loop, SLEEF's exp2f / exp2 (xexp2f / xexp2) vectorized, the C
# library's exp2f / exp2 in the scalar tail (float32 and float64)
EXP2 = 18
# oneDNN's gelu_erf on a CPU without AVX-512 (its avx2 ISA: Abramowitz and Stegun's erf with oneDNN's
# own exp), every element alike; float32 only (GELU_ONEDNN: its AVX-512 minimax form)
GELU_ONEDNN_AS = 19
# sinh, cosh, atanh: sinh_kernel's / cosh_kernel's / atanh_kernel's cpu_kernel_vec loops, SLEEF's sinhf /
# coshf / atanhf (_sleef_hyper.h) vectorized, the C library's sinhf / coshf / atanhf in the scalar tail;
# float64 alike (run_d: SLEEF's xsinh / xcosh / xatanh, the C library's sinh / cosh / atanh)
SINH, COSH, ATANH = 20, 21, 22
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
# the ops whose float64 loop is ported too (run_d: SLEEF's expd / expm1 in the vectorized function)
_DOUBLE_OPS = frozenset((EXP, SIGMOID, SILU, EXPM1, ELU, SELU, SOFTPLUS, EXP_SPLIT, MISH, MISH_T, GELU_TANH_D, GELU_TANH_PLAIN,
                         GELU_D, EXP2, SINH, COSH, ATANH))
# the vec::map ops (SLEEF's function at every element, the C library's under the default capability):
# _elementwise's float64 ones, float32's too
_MAP_D = frozenset((EXPM1, LOG1P))
_steps: list[int] = []
# the longest flat run every op's loop runs as one chunk (GELU's grain shrinks beyond it; every
# other op's is GRAIN_SIZE)
_ONE_CHUNK = 16384


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


def _grain(op: int, n: int, threads: int | None) -> int:
    """The op's parallel grain size in PyTorch (gelu's own, else :data:`GRAIN_SIZE`); ``threads``
    None: :func:`strided.kernels.torch_loops.torch_threads`, asked only where it matters."""
    if (op == GELU or op == GELU_TANH_D or op == GELU_TANH_PLAIN or op == GELU_D) and n > 16384:
        return gelu_grain(n, torch_threads() if threads is None else threads)
    return GRAIN_SIZE


def _chunk(n: int, threads: int | None, grain: int) -> int:
    """The length of PyTorch's parallel chunks of a flat range of ``n`` (0: one chunk)."""
    if n < grain:  # (one chunk whatever the threads: not asked, a system call per op)
        return 0
    chunks = parallel_chunks(n, torch_threads() if threads is None else threads, grain)
    return 0 if chunks == 1 else -(-n // chunks)


def torch_loop(x: np.ndarray, op: int, out: np.ndarray | None = None, threads: int | None = None,
               form: int = -1, lanes: int = 1, params: tuple = ()) -> np.ndarray | None:
    """PyTorch's float32 or float64 ``sigmoid`` (``op`` :data:`SIGMOID`) or ``silu`` (:data:`SILU`)
    of ``x`` (an array of any strides: a tensor's view) as a fresh array of ``x``'s shape; None
    where the compiled kernel is not used (then the caller's NumPy formula runs) or ``x`` is
    neither float32 nor, for :data:`_DOUBLE_OPS`, float64 (float64: ``run_d``, SLEEF's expd where
    PyTorch's loop is vectorized, in steps of ``2 * Vectorized<double>::size()``) (laid out as ``x`` where ``x`` is dense: a permuted tensor's result adopts it
    as it is; ``out`` itself, written, where it is laid out as that). ``out``: the array the result goes to (an in-place target: ``x`` itself), whose
    strides order PyTorch's loop; None: a fresh output, dense in ``x``'s dim order (TensorIterator's).
    ``threads``: PyTorch's thread count assumed (default :func:`strided.kernels.torch_loops.torch_threads`);
    ``form``: the kernel's (-1 AVX-512 where the CPU has it, 0 the plain C form: the same bits);
    ``lanes``: the loop's vector width over float32's (2: a float16/bfloat16 tensor upcast to ``x``,
    whose ``Vectorized<Half>`` holds twice the elements, so its scalar tail is cut at twice the step);
    ``params``: :data:`SOFTPLUS`'s ``(beta, threshold)`` as Python floats (the kernel rounds them to
    ``x``'s type, as PyTorch's ``beta_.to<scalar_t>()``; empty: 1 and 20)."""
    k = native.sleef()
    if k is None:
        return None
    x, out = _aligned(x, out)
    dt = x.dtype
    if dt == _F32:
        run = k.run
        st = (_steps[0] if _steps else step()) * lanes
    elif dt == _F64 and op in _DOUBLE_OPS:  # (Vectorized<double> holds half float32's lanes)
        run = k.run_d
        st = (_steps[0] if _steps else step()) // 2
    else:
        return None
    # (an out laid out otherwise than x, e.g. a transposed out= of a row-major x, orders PyTorch's
    # loop by its own strides: other rows, other scalar elements; the walk below follows it)
    as_x = out is None or out.strides == x.strides
    if as_x and x.ndim == 1 and len(x) <= _ONE_CHUNK and x.flags.c_contiguous:
        # (a small flat run, the fast paths' common case: one chunk whatever the threads, no grain
        # or chunk asked; half of this function's own time on a small F.silu)
        res = np.empty(len(x), dt)
        run(x, res, op, 0, 0, st, form, *params)
        return res
    grain = _grain(op, x.size, threads)
    if as_x and x.flags.c_contiguous:  # one row, cut at the parallel chunks
        res = np.empty(x.shape, dt)
        if x.ndim == 1:  # (a flat run, the small-op fast paths': no reshapes)
            run(x, res, op, 0, _chunk(len(x), threads, grain), st, form, *params)
        else:
            run(x.reshape(-1), res.reshape(-1), op, 0, _chunk(x.size, threads, grain), st, form, *params)
        return res
    # x's dim order where x is dense (a permuted tensor is one row too), straight into out where
    # out is laid out as x (x itself in place: each element is read before it is written)
    res = out if out is not None and out.strides == x.strides and out.dtype == dt else np.empty_like(x)
    if res.strides == x.strides and (out is None or out.strides == x.strides):
        order = sorted(range(x.ndim), key=lambda d: -x.strides[d])
        xt, rt = x.transpose(order), res.transpose(order)
        if xt.flags.c_contiguous and rt.flags.c_contiguous:  # (then reshape(-1) are views)
            run(xt.reshape(-1), rt.reshape(-1), op, 0, _chunk(x.size, threads, grain), st, form, *params)
            return res
    if st == 0:
        res = np.empty(x.shape, dt)
        run(np.ascontiguousarray(x).reshape(-1), res.reshape(-1), op, 0, 0, 0, form, *params)
        return res
    return _rows_walk(x, out, run, op, st, form, threads, grain, params)


def _rows_walk(x: np.ndarray, out: np.ndarray | None, run: Callable[..., Any], op: int, st: int, form: int,
               threads: int | None, grain: int, params: tuple = ()) -> np.ndarray:
    """:func:`torch_loop`'s result for an ``x`` that is not dense (a slice with gaps, a strided
    view): ``x``'s elements copied into TensorIterator's iteration order (its dims ordered as
    :func:`strided.kernels.torch_loops.loop_rows` orders them, the fastest last) and the kernel run
    once over that flat copy, cut at the loop's rows and at the parallel chunks, each piece's last
    ``len % st`` elements the scalar function (or every element, where the vector loop takes no
    row): exactly the elements :func:`strided.kernels.torch_loops.scalar_loop_mask` marks, without
    its mask (a (3, 2) slice's sigmoid was ~40 us of index arithmetic; now one kernel call). A
    fresh C-contiguous array of ``x``'s shape."""
    strides = tuple(s // x.itemsize for s in x.strides)
    if out is None:  # the fresh output's strides: dense, x's dims fastest first
        out_strides = fresh_strides(x.shape, [(x.shape, strides)])
    else:
        out_strides = [s // out.itemsize for s in out.strides]
    perm, row, vector = loop_walk(x.shape, tuple(out_strides), out is None, [(x.shape, strides)])
    order = perm[::-1]  # (the slowest iteration dim first: C order over the iteration)
    walked = order == list(range(x.ndim))
    xs = np.ascontiguousarray(x if walked else x.transpose(order))
    res = np.empty(xs.shape, x.dtype)
    run(xs.reshape(-1), res.reshape(-1), op, row, _chunk(x.size, threads, grain), st if vector else 0, form, *params)
    if walked:
        return res
    return np.ascontiguousarray(res.transpose(np.argsort(order)))


def rows_loop(x: np.ndarray, op: int, row: int, threads: int | None = None) -> np.ndarray | None:
    """PyTorch's float32 or float64 ``op`` loop (:func:`torch_loop`'s ops) over ``x``, a
    C-contiguous array holding its iteration's elements in their flat order (a fresh output dense
    in that order), whose contiguous rows are ``row`` long (TensorIterator's first merged dim; 1:
    no row the vector loop takes): each row, cut at the parallel chunks too, the vectorized
    function but for its last ``len % step`` elements, as :func:`torch_loop` splits them. A fresh
    flat array; None where the compiled kernel is not used, ``x`` is unaligned or neither float32
    nor, for :data:`_DOUBLE_OPS`, float64 (then the caller's general path runs). For a fused
    kernel's operand whose rows the caller knows (``F.glu``'s second half of a row-major input)."""
    k = native.sleef()
    if k is None or not x.flags.aligned:
        return None
    dt = x.dtype
    if dt == _F32:
        run = k.run
        st = _steps[0] if _steps else step()
    elif dt == _F64 and op in _DOUBLE_OPS:
        run = k.run_d
        st = (_steps[0] if _steps else step()) // 2
    else:
        return None
    n = x.size
    res = np.empty(n, dt)
    run(x.reshape(-1), res, op, row, _chunk(n, threads, _grain(op, n, threads)), st, -1)
    return res


def glu_rows(x: np.ndarray, outer: int, row: int) -> np.ndarray | None:
    """PyTorch's float32 / float64 ``glu`` of a row-major input whose flat run is ``x`` (C-contiguous:
    ``outer`` blocks of two halves of ``row`` elements each, glu's dim and those inside it merged),
    as a fresh flat array of ``outer * row`` (the row-major result): the compiled ``glu_rows``, each
    row of the second half its loop's row, cut too at PyTorch's parallel chunks of the result
    (:func:`rows_loop`'s pieces: SLEEF's sigmoid but for each piece's last ``len % step`` elements,
    the C library's), times the first half, in one pass. None where the kernel is not used, ``x``
    is unaligned or of another dtype."""
    k = native.sleef()
    n = outer * row
    if k is None or not x.flags.aligned:
        return None
    dt = x.dtype
    if dt == _F32:
        st = _steps[0] if _steps else step()
    elif dt == _F64:
        st = (_steps[0] if _steps else step()) // 2
    else:
        return None
    res = np.empty(n, dt)
    chunk = _chunk(n, None, GRAIN_SIZE)  # (glu's grain: sigmoid's, PyTorch's default)
    return res if k.glu_rows(x, res, outer, row, st, -1, chunk) else None


def gelu_float32(x: np.ndarray, out: np.ndarray | None = None, threads: int | None = None,
                 form: int = -1, lanes: int = 1) -> np.ndarray | None:
    """PyTorch's float32 ``gelu`` (the exact form) of ``x`` bit for bit; ``out``, ``threads``,
    ``form`` and the answer as :func:`torch_loop`'s. Two kernels, as PyTorch's ``gelu`` picks them:

    - a contiguous input of more than one element (a bfloat16 one only on AVX-512), on a CPU with AVX-512 (F, BW, DQ, VL: oneDNN's
      ``avx512_core``): oneDNN's ``eltwise_gelu_erf`` (``Activation.cpp``'s ``use_mkldnn``, on by
      default), a piecewise minimax polynomial for ``erf(x / sqrt 2)``, the same at every element
      (checked against ``torch`` over every 97th float32 bit pattern). Where the CPU lacks
      AVX-512 but has AVX2 and FMA (oneDNN's ``avx2``), oneDNN takes its Abramowitz-Stegun form
      with its own ``exp`` (:data:`GELU_ONEDNN_AS`, checked on an AMD EPYC alike). oneDNN picks
      its form by the CPU alone: ``ATEN_CPU_CAPABILITY`` does not change it;
    - any other input: ``GeluKernelImpl``'s ``cpu_kernel_vec`` loop, ``Vectorized<float>::erf``
      (Abramowitz and Stegun's 7.1.26 with SLEEF's expf) where it is vectorized, the C library's
      ``erff`` where it is not, with its own parallel grain (:func:`strided.kernels.torch_loops.gelu_grain`).

    None where the compiled kernel is not used or ``x`` is not float32 (the caller's float64
    formula: the correctly rounded value but for rare near-ties, within ~1e-7 of PyTorch's).
    ``lanes``: as :func:`torch_loop`'s (2: a bfloat16 tensor upcast, whose loop steps twice as far)."""
    k = native.sleef()
    if k is None or x.dtype != _F32:
        return None
    x, out = _aligned(x, out)
    lanes_here = k.capability()  # (the CPU's, not ATEN_CPU_CAPABILITY's: oneDNN's own dispatch)
    # (a bfloat16 tensor, lanes 2, takes oneDNN only where the CPU has AVX-512: PyTorch's oneDNN bfloat16
    # check fails on an AVX2 CPU, whose gelu is then GeluKernelImpl's loop; measured on an AMD EPYC)
    if x.size > 1 and x.flags.c_contiguous and (lanes_here == 16 or (lanes_here == 8 and lanes == 1)):
        res = out if (out is not None and out.dtype == _F32 and out.shape == x.shape
                      and out.flags.c_contiguous) else np.empty(x.shape, _F32)
        op = GELU_ONEDNN if lanes_here == 16 else GELU_ONEDNN_AS
        if not k.run(x.reshape(-1), res.reshape(-1), op, 0, 0, -1, form):
            return None  # (form 1 asked of a CPU without AVX-512)
        return res
    return torch_loop(x, GELU, out, threads, form, lanes)


def atan2_float32(y: np.ndarray, x: np.ndarray, out: np.ndarray | None = None, threads: int | None = None,
                  form: int = -1) -> np.ndarray | None:
    """PyTorch's float32 ``atan2(y, x)`` bit for bit, as a fresh array of the broadcast shape (laid
    out as ``x`` where both are laid out alike and dense, and then ``out`` itself, written, where
    it is laid out as they are; else C-contiguous): ``atan2_kernel``'s ``cpu_kernel_vec`` loop, SLEEF's ``atan2f_u10`` (``Vectorized<float>::
    atan2``) where it is vectorized and the C library's ``atan2f`` where it is not, the elements split
    as :func:`torch_loop` splits them (both operands' strides; ``out``: the array the result goes to,
    whose strides order the loop, None: a fresh one). None where the compiled kernel is not used or
    an operand is not a float32 array (the caller's float64 ``arctan2``, rounded once: PyTorch's
    bits in about 97% of elements). ``threads``, ``form`` as :func:`torch_loop`'s."""
    return _binary_float32(y, x, out, threads, form, 0)


def logaddexp2_float32(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None, threads: int | None = None,
                       form: int = -1) -> np.ndarray | None:
    """PyTorch's float32 ``logaddexp2(a, b)`` bit for bit, laid out and split as :func:`atan2_float32`:
    ``logaddexp2_kernel``'s ``cpu_kernel_vec`` loop, ``fma(log1p(exp2(-|a - b|)), 1/ln 2, max(a, b))``
    with SLEEF's ``exp2f`` / ``log1pf`` where it is vectorized and the C library's where it is not
    (ATen's DEFAULT capability: the C library's everywhere, unfused), ``a`` where ``a == b`` is
    infinite, ``-|a - b|`` (a NaN operand's word, its sign set) where either is NaN. None where the
    compiled kernel is not used or an operand is not a float32 array."""
    return _binary_float32(a, b, out, threads, form, 1)


def _binary_float32(y: np.ndarray, x: np.ndarray, out: np.ndarray | None, threads: int | None, form: int,
                    fn: int) -> np.ndarray | None:
    """:func:`atan2_float32` (``fn`` 0) or :func:`logaddexp2_float32` (``fn`` 1): run2's op."""
    k = native.sleef()
    if k is None or not (isinstance(y, np.ndarray) and isinstance(x, np.ndarray)) or y.dtype != _F32 \
            or x.dtype != _F32:
        return None
    y, out = _aligned(y, out)
    x, out = _aligned(x, out)
    st = step()
    if y.shape == x.shape and y.strides == x.strides and y.size > 1 and (out is None or out.strides == x.strides):
        # (C-contiguous, the common case: already in memory order, no sort or transposes)
        order = None if x.flags.c_contiguous else sorted(range(x.ndim), key=lambda d: -x.strides[d])
        yt, xt = (y, x) if order is None else (y.transpose(order), x.transpose(order))
        if xt.flags.c_contiguous and yt.flags.c_contiguous:  # one dense run (a permuted one too): its pieces
            # (written into out where it is laid out as x and is neither operand: the scalar loop's
            # elements are read after the vector pass)
            into = out is not None and out.dtype == _F32 and out.shape == x.shape \
                and not np.may_share_memory(out, x) and not np.may_share_memory(out, y)
            res = out if into else np.empty_like(x)
            yf, xf, rf = yt.reshape(-1), xt.reshape(-1), (res if order is None else res.transpose(order)).reshape(-1)
            return res if _atan2_run(k, yf, xf, rf, st, threads, form, fn) else None
    fn = run2_op(fn, st)
    shape = np.broadcast_shapes(y.shape, x.shape)
    yb = np.ascontiguousarray(np.broadcast_to(y, shape)).reshape(-1)
    xb = np.ascontiguousarray(np.broadcast_to(x, shape)).reshape(-1)
    res = np.empty(shape, _F32)
    flat = res.reshape(-1)
    if not k.run2(yb, xb, flat, 1 if st else 0, form, 0, fn):
        return None  # (form 1 asked of a CPU without AVX-512)
    if not st or not res.size:
        return res
    ops = [None if a.ndim == 0 else (a.shape, tuple(v // a.itemsize for v in a.strides)) for a in (y, x)]
    if out is None:  # the fresh output's strides: dense, the inputs' dims fastest first
        out_strides = fresh_strides(shape, ops)
    else:
        out_strides = [v // out.itemsize for v in out.strides]
    mask = scalar_loop_mask(shape, tuple(out_strides), out is None, ops, step=st,
                            threads=torch_threads() if threads is None else threads)
    if mask is not None:  # the scalar loop's elements: the C library's atan2f
        m = mask.reshape(-1)
        part = np.empty(int(m.sum()), _F32)
        k.run2(yb[m], xb[m], part, 0, form, 0, fn)
        flat[m] = part
    return res


def run2_op(fn: int, st: int) -> int:
    """run2's op for ``fn`` under the capability whose step is ``st``: logaddexp2's (1) is 2 under
    ATen's DEFAULT capability (its build fuses no step), 3 under AVX2 (its vector lanes' NaN word)."""
    if fn != 1:
        return fn
    return 2 if not st else 3 if st == 16 else 1


def atan2_flat(y: np.ndarray, x: np.ndarray) -> np.ndarray | None:
    """:func:`atan2_float32` of two C-contiguous 1-D float32 arrays of one length (the binary fast
    path's flat runs; its ``native`` loop), the same bits with no layout questions: below PyTorch's
    parallel grain one row of its loop (SLEEF's over whole steps, the C library's over the last
    ``len % step``) in one call. None where the compiled kernel is not used."""
    k = native.sleef()
    return None if k is None else _binary_flat(k, y, x, 0)


def logaddexp2_flat(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """:func:`logaddexp2_float32` of two C-contiguous 1-D float32 arrays of one length, as
    :func:`atan2_flat`."""
    k = native.sleef()
    return None if k is None else _binary_flat(k, a, b, 1)


def _binary_flat(k: Any, y: np.ndarray, x: np.ndarray, fn: int) -> np.ndarray | None:
    """:func:`atan2_flat`'s call (``fn`` 0) or :func:`logaddexp2_flat`'s (1)."""
    n = x.shape[0]
    if not (x.flags.aligned and y.flags.aligned):
        y, x = _aligned(y, None)[0], _aligned(x, None)[0]
    if n >= GRAIN_SIZE:  # (PyTorch's parallel chunks: each its own row)
        return _binary_float32(y, x, None, None, -1, fn)
    res = np.empty(n, _F32)
    st = _steps[0] if _steps else step()
    return res if k.run2(y, x, res, 1 if st else 0, -1, st, run2_op(fn, st)) else None


def angle_complex64(z: np.ndarray, threads: int | None = None, form: int = -1) -> np.ndarray | None:
    """PyTorch's ``angle`` of a dense complex64 array bit for bit: a fresh float32 array of ``z``'s
    shape (``z``'s elements in memory order: the row PyTorch's ``angle_kernel`` walks; a permuted
    one too). Its ``cpu_kernel_vec`` loop takes ``Vectorized<complex<float>>
    ::angle`` (SLEEF's ``atan2f_u10`` of each element's imaginary and real parts) over whole steps of
    ``2 * Vectorized<complex<float>>::size()`` elements of each parallel chunk and ``std::arg`` (the
    C library's ``atan2f``) over the rest; the step is 8 elements under AVX2 and AVX512 alike
    (measured on PyTorch 2.13: its angle kernel has no AVX512 build, the AVX2 one runs). None where the kernel is not used
    or ``z`` is not dense (then the caller's C library ``atan2f`` everywhere, PyTorch's scalar loop
    there)."""
    k = native.sleef()
    if k is None or z.dtype != np.complex64 or not z.ndim:
        return None
    order = sorted(range(z.ndim), key=lambda d: -z.strides[d])
    zt = z.transpose(order)
    if not zt.flags.c_contiguous:
        return None
    if z.ndim > 1:  # (a dense tensor, permuted or not: one run in memory order, put back in z's dims)
        flat = angle_complex64(zt.reshape(-1), threads, form)
        return None if flat is None else flat.reshape(zt.shape).transpose(np.argsort(order))
    st = 8 if step() else 0  # (angle's kernel is AVX2's under AVX512 too: 2 * Vectorized<complex<float>>::size())
    y, x = np.ascontiguousarray(z.imag), np.ascontiguousarray(z.real)
    res = np.empty(z.shape, _F32)
    return res if _atan2_run(k, y, x, res, st, threads, form) else None


def _atan2_run(k: Any, y: np.ndarray, x: np.ndarray, res: np.ndarray, st: int, threads: int | None,
               form: int, fn: int = 0) -> bool:
    """atan2 (``fn`` 0; 1: logaddexp2, :func:`run2_op`) of one flat run into ``res`` as PyTorch's loop
    splits it: each parallel chunk's last ``len % st`` elements the C library's atan2f, the rest
    SLEEF's (``st`` 0: the C library's at every element). ``threads`` None: :func:`torch_threads`, asked only where the run is long
    enough to be split. False where ``form`` 1 is asked of a CPU without AVX-512."""
    n = res.size
    chunk = _chunk(n, threads, GRAIN_SIZE) or n
    vec = 1 if st else 0
    fn = run2_op(fn, st)
    if chunk >= n:  # (one chunk: one call, no slices)
        return bool(k.run2(y, x, res, vec, form, st, fn))
    for a in range(0, n, chunk):
        b = min(a + chunk, n)
        if not k.run2(y[a:b], x[a:b], res[a:b], vec, form, st, fn):
            return False
    return True


def exp2_loop(x: np.ndarray, out: np.ndarray | None = None, lanes: int = 1) -> np.ndarray | None:
    """PyTorch's float32 / float64 ``torch.exp2`` of ``x`` (any strides) bit for bit: ``exp2_kernel``
    is a ``cpu_kernel_vec`` loop whose vectorized function is ``Vectorized<T>::exp2()`` (SLEEF's
    ``Sleef_exp2f16_u10`` / ``Sleef_exp2d8_u10`` under AVX512, ``f8`` / ``d4`` under AVX2: ``xexp2f`` /
    ``xexp2``) and whose scalar function is ``std::exp2`` (the C library's ``exp2f`` / ``exp2``), so
    the elements take :func:`torch_loop`'s split (``out``, ``lanes`` and the answer as there;
    ``lanes`` 2: a float16 / bfloat16 tensor upcast to float32 ``x``, whose ``Vectorized`` converts to
    float, maps SLEEF's exp2f and rounds back). None where the kernel is not built or ``x`` is neither
    (the caller's ``np.exp2``: 78% of float32 randn elements equal, 92% of float64)."""
    if x.dtype != _F32 and x.dtype != _F64:
        return None
    return torch_loop(x, EXP2, out, lanes=lanes)


def hyper_loop(x: np.ndarray, op: int, out: np.ndarray | None = None) -> np.ndarray | None:
    """PyTorch's float32 / float64 ``torch.sinh`` / ``cosh`` / ``atanh`` (``op`` :data:`SINH`,
    :data:`COSH`, :data:`ATANH`) of ``x`` (any strides) bit for bit: each is a ``cpu_kernel_vec``
    loop whose vectorized function is ``Vectorized<float>::sinh()`` (...), SLEEF's
    ``Sleef_sinhf8_u10`` / ``Sleef_sinhd4_u10`` under AVX2 (``f16`` / ``d8`` under AVX512, the same
    bits), and whose scalar function is ``std::sinh`` (the C library's ``sinhf`` / ``sinh``), so the
    elements take :func:`torch_loop`'s split (``out`` and the answer as there). None where the
    kernel is not built or ``x`` is neither (the caller's NumPy ufunc: 73-82% of 1M random elements
    equal to PyTorch's). The vectorized function runs sixteen float32 lanes where the CPU has
    AVX-512F (ATen's AVX512 width: torch's time on 1M elements), eight under AVX2 + FMA; float64
    eight lanes under AVX-512F, four under AVX2 + FMA; all forms the same bits."""
    if x.dtype != _F32 and x.dtype != _F64:
        return None
    return torch_loop(x, op, out)


def exp_float32(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray | None:
    """The C library's ``expf`` of each element of the float32 array ``x`` (any strides), as a
    fresh array of ``x``'s shape, or written into ``out`` (float32, ``x``'s shape; ``x`` itself in
    place) and ``out`` returned where ``out`` is dense in some dim order (else a fresh array the
    caller copies); None where the compiled kernel is not used or ``x`` is not float32 (the caller runs
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


def expm1_map(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray | None:
    """PyTorch's float32 / float64 ``torch.expm1`` of ``x`` (any strides) bit for bit: its kernel is
    vml's ``vec::map`` of ``Vectorized<T>::expm1()`` (strided inputs gathered into a buffer first),
    so every element takes SLEEF's expm1 (``_sleef_expm1.h``; a row's tail is a partial vector, the
    same lanes), whatever the layout, but for the ``default`` capability (``step() == 0``), whose
    ``Vectorized::expm1`` is ``std::expm1`` lane by lane. ``out`` and the answer as
    :func:`exp_float32`'s; None where the compiled kernel is not used or ``x`` is neither float32
    nor float64 (the caller's ``np.expm1``: within an ulp, 90.6% of float32 randn elements equal)."""
    return _elementwise(x, out, EXPM1)


def log1p_map(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray | None:
    """PyTorch's float32 / float64 ``torch.log1p`` of ``x`` (any strides) bit for bit: vml's ``vec::map`` of
    ``Vectorized<T>::log1p()``, SLEEF's log1p (``_sleef_log1p.h``) at every element, whatever its
    position (``std::log1p`` under the ``default`` capability). float64: a NaN or ``x < -1`` gives
    the default NaN word; float32: ``x < -1`` the all-ones word, a NaN itself quieted (under AVX2
    the default NaN word); -1 -inf. ``out`` and the answer as :func:`exp_float32`'s; None where the
    kernel is not built or ``x`` is neither (the caller's ``np.log1p``: ~92% of float64 elements equal,
    69% of float32 randn ones). (float64 ``tanh`` is MKL's ``vdTanh`` in PyTorch, not SLEEF's: not
    reproduced.)"""
    return _elementwise(x, out, LOG1P)


def _map_step(op: int) -> int:
    """The step a vec::map op (:data:`_MAP_D`) runs with: -1 (every element the vectorized
    function), -2 (the same under AVX2: float32 log1p's NaN words), 0 (the ``default`` capability:
    the C library's)."""
    st = _steps[0] if _steps else step()
    return 0 if not st else (-2 if st == 16 and op == LOG1P else -1)


def _elementwise(x: np.ndarray, out: np.ndarray | None, op: int) -> np.ndarray | None:
    """``op`` (the same function at every element) of the float32 array ``x`` (float64 too for the
    :data:`_MAP_D` ops): see :func:`exp_float32`."""
    k = native.sleef()
    dt = x.dtype
    if k is None or not ((dt == _F32 and op not in (GELU_TANH_D, GELU_TANH_PLAIN, GELU_D)) or (dt == _F64 and op in _MAP_D)):
        return None
    run = k.run if dt == _F32 else k.run_d
    # (a vec::map op's vector function where ATen has one, else the C library's: the scalar function)
    st = _map_step(op) if op in _MAP_D else -1
    x, out = _aligned(x, out)
    res = out if out is not None and out.dtype == dt and out.shape == x.shape else None
    if res is not None and not res.flags.c_contiguous:
        # out dense in another dim order (a layout kept from a permuted x): both walked in out's
        # memory order, x's elements in it by the blocked copy where x is not laid out so. (The
        # same function at every element: the order changes no bit. Before, NumPy's transposing
        # copies both ways: 32 MB x.t().exp() 49x a memcpy.)
        order = sorted(range(res.ndim), key=lambda d: -abs(res.strides[d]))
        rt = res.transpose(order)
        if rt.flags.c_contiguous:
            run(_flat(x.transpose(order)), rt.reshape(-1), op, 0, 0, st, -1)
            return res
        res = None
    if res is None:
        res = np.empty(x.shape, dt)
    if x.ndim == 1 and res.ndim == 1 and x.flags.c_contiguous:  # (a flat run, the fast paths': no reshapes)
        run(x, res, op, 0, 0, st, -1)
    else:
        run(_flat(x), res.reshape(-1), op, 0, 0, st, -1)
    return res


def _aligned(x: np.ndarray, out: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """``x`` and ``out`` as the kernels take them: memory at an address that is no multiple of the
    element size (a ``from_numpy`` of such a buffer) is refused by their buffer checks, so ``x`` is
    read from an aligned copy in its own dim order and the result goes to a fresh array instead
    of ``out`` (the callers copy a result that is not ``out`` into it)."""
    if not x.flags.aligned:
        x = x.copy(order="K")
    return x, out if out is None or out.flags.aligned else None


def _flat(x: np.ndarray) -> np.ndarray:
    """``x``'s elements in row-major order as a C-contiguous 1-d array (``x``'s own memory where it
    is C-contiguous; a large copy by the blocked copy, a small one by NumPy's)."""
    return np.ascontiguousarray(row_major(x)).reshape(-1)


def _fresh(ufunc: np.ufunc, op: int) -> Callable[[np.ndarray], np.ndarray]:
    def fresh(x: np.ndarray) -> np.ndarray:
        if x.dtype == _F32:
            k = native.sleef()
            if k is not None and x.ndim == 1 and x.strides[0] == 4 and x.flags.aligned:
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


def flat_call(op: int, dtype: np.dtype, elementwise: bool = False) -> tuple[Any, tuple, int] | None:
    """The kernel call made on a small flat run (1-D, C-contiguous) of ``dtype`` as ``(run, extra,
    max_n)``: ``run(x, res, *extra)`` writes into a fresh ``res`` what :func:`torch_loop` (``op``
    SIGMOID / SILU: its one-chunk call, up to ``max_n`` elements) or, ``elementwise``, the fresh forms
    (:func:`_fresh`: float32 only) return for ``x``; None where neither runs the kernel (then the
    caller's Python path decides; :data:`EXPM1` and :data:`LOG1P`: float64 too, as :func:`expm1_map` /
    :func:`log1p_map`). For the compiled fronts, which make the call in C. The step is
    read now (:func:`step`: at the first use, as torch_loop reads it)."""
    k = native._compiled("_sleefkernel")
    dt = np.dtype(dtype)
    if k is None:
        return None
    if elementwise:  # (_elementwise's call: the vec::map ops of float64 too, step 0 under the default capability)
        if op in _MAP_D:  # (EXPM1 and LOG1P of float32 / float64)
            if not (dt == _F64 or dt == _F32):
                return None
            return k.run if dt == _F32 else k.run_d, (op, 0, 0, _map_step(op), -1), 1 << 62
        return (k.run, (op, 0, 0, -1, -1), 1 << 62) if dt == _F32 else None
    if dt == _F32:
        return k.run, (op, 0, 0, _steps[0] if _steps else step(), -1), _ONE_CHUNK
    if dt == _F64 and op in _DOUBLE_OPS:
        return k.run_d, (op, 0, 0, (_steps[0] if _steps else step()) // 2, -1), _ONE_CHUNK
    return None


exp_fresh = _fresh(np.exp, LIBM_EXP)
exp_kernel = _kernel(np.exp, LIBM_EXP)
tanh_fresh = _fresh(np.tanh, TANH)
tanh_kernel = _kernel(np.tanh, TANH)
