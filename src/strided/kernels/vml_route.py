"""PyTorch's CPU float32/float64 ``exp log log10 sqrt sin cos tan tanh erf erfc erfinv acos asin atan log2``
bit for bit: MKL's VML, called as PyTorch calls it.

PyTorch's CPU wheel computes these ops (``UnaryOpsKernel.cpp``'s ``IMPLEMENT_FLOAT_KERNEL`` /
``IMPLEMENT_ITERATOR_LAMBDA``, ``ATen/cpu/vml.h``'s ``IMPLEMENT_VML_MKL``) with the MKL it bundles:
``vms<Op>`` / ``vmd<Op>`` with mode ``VML_HA | VML_FTZDAZ_OFF | VML_ERRMODE_IGNORE``, a contiguous
row straight, any other row gathered into an 8 KB buffer first. The same functions of pip
``mkl==2024.2.0``'s ``libmkl_rt`` (loaded by :mod:`strided.kernels.blas_route`, its :func:`lib`:
lazily, RTLD_LOCAL) give PyTorch's bits for every element (measured: 1M random elements per op
and dtype; lengths 0..100, misaligned runs, NaN payloads, +-inf, -0.0, subnormals, huge sin/cos/tan
arguments, erfinv(+-1): tests/test_vml38.py), and are 1.2-4x faster than the C library's / NumPy's
loops on large inputs. VML's results are elementwise (no dependence on the place in the run), so
the gathering of a strided row does not change a bit.

The route is off (every function answers False / None and the callers run their previous
kernels: NumPy's ufuncs and :mod:`strided.kernels.special`, within an ulp or so of PyTorch's)
without MKL, with ``STRIDED_BLAS=openblas``, with ``STRIDED_NATIVE=0`` or without the compiled
``_matkernel`` (whose ``_vml_calls.h`` makes the calls: ~0.1 us, where ctypes' took ~10 us), and
for any dtype but float32/float64 (PyTorch's float16/bfloat16 and complex kernels are not VML's).
:func:`strided.kernels.native.disabled` does not switch it off (as the MKL gemm route of
:mod:`strided.kernels.blas_route`): the general and fast paths of an op give the same bits in and out of it.

``log2`` is ``vml.h``'s ``IMPLEMENT_VML_MKL(log2, Log2)`` (under ``INTEL_MKL_VERSION >= 20180406``, true of
the MKL PyTorch bundles): ``vmsLog2`` / ``vmdLog2``, equal to ``torch.log2`` at every one of 1M random
elements, contiguous and strided, on the AMD EPYC (AVX2) of session 39 (``np.log2``: 99.94% / 99.98%).

Not routed (PyTorch does not call VML for them): log1p, expm1, sinh, cosh, atanh, sigmoid, lgamma
(:mod:`strided.kernels.sleef`, :mod:`strided.kernels.special`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import blas_route, native

# the routed ops, in the order of _vml_calls.h's table (op code = index), with VML's names
OPS: tuple[str, ...] = ("exp", "log", "log10", "sqrt", "sin", "cos", "tan", "tanh", "erf", "erfc", "erfinv",
                        "acos", "asin", "atan", "log2")
_VML_NAMES = ("Exp", "Ln", "Log10", "Sqrt", "Sin", "Cos", "Tan", "Tanh", "Erf", "Erfc", "ErfInv", "Acos", "Asin",
              "Atan", "Log2")
CODE = {name: i for i, name in enumerate(OPS)}
# ATen/cpu/vml.h: VML_HA | VML_FTZDAZ_OFF | VML_ERRMODE_IGNORE (mkl_vml_defines.h)
MODE = 0x2 | 0x00140000 | 0x100
_F32_F64 = (np.dtype(np.float32), np.dtype(np.float64))

_state: list = []  # [] undecided; [None] off; [the compiled _matkernel, set up]
_addresses: list = []  # [VML's entries handed to vml_setup], once loaded (switched_off sets them back)


def _kernel_module():
    """The compiled ``_matkernel`` with VML's entries set up (loading MKL at the first call), or None."""
    if _state:
        return _state[0]
    k = native._compiled("_matkernel")
    mkl = blas_route.lib() if k is not None and hasattr(k, "vml_setup") else None
    if mkl is None:
        _state.append(None)
        return None
    import ctypes  # (here: ``import strided`` stays without it)

    try:
        addrs = tuple(ctypes.cast(getattr(mkl.cdll, f"vm{t}{name}_64"), ctypes.c_void_p).value or 0
                      for name in _VML_NAMES for t in "sd")
    except AttributeError:  # (an MKL without the ILP64 entries: the previous kernels)
        _state.append(None)
        return None
    k.vml_setup(addrs, MODE)
    _addresses.append(addrs)
    _state.append(k)
    return k


class switched_off:  # noqa: N801 - used as a context manager, like contextlib's
    """``with vml_route.switched_off():`` the route off within (every function here answering
    False / None, the compiled fronts' ``vml_run`` too), for tests of the kernels it goes before
    (the C library's expf, the special kernels, NumPy's sqrt); on again after. Not thread-safe:
    the switch is process-wide."""

    def __enter__(self) -> switched_off:
        k = _kernel_module()
        self._saved = list(_state)
        _state[:] = [None]
        if k is not None:
            k.vml_setup((), 0)
        return self

    def __exit__(self, *exc: object) -> None:
        _state[:] = self._saved
        if self._saved and self._saved[0] is not None:
            self._saved[0].vml_setup(_addresses[0], MODE)


def possible() -> bool:
    """Whether the environment lets the route run (``STRIDED_BLAS`` not ``openblas``,
    ``STRIDED_NATIVE`` not ``0``): read at import by the families that put :func:`runner` in their
    compiled fronts (else their previous compiled passes stay there); MKL is not loaded."""
    return blas_route.enabled_by_environment()


def runner() -> Callable[..., bool] | None:
    """The compiled ``vml_run(x, out, code)`` (a front's kernel entry: a contiguous run; it answers
    False until :func:`apply` or :func:`fresh` has set the route up), or None where not built."""
    k = native._compiled("_matkernel")
    return getattr(k, "vml_run", None) if k is not None else None


def _vml_apply(k: Any, src: np.ndarray, dst: np.ndarray, code: int) -> bool:
    """``k.vml_apply`` where memory may be unaligned (an array made from a buffer at an odd byte
    offset, which NumPy does not export to C): an unaligned ``src`` is copied first and an
    unaligned ``dst`` written through an aligned temporary -- the bits aligned memory gives (VML's
    elements do not depend on where they sit), where declining would give the fallback's."""
    if src.flags.aligned and dst.flags.aligned:
        return bool(k.vml_apply(src, dst, code))
    tmp = dst if dst.flags.aligned else np.empty(dst.shape, dst.dtype)
    if not k.vml_apply(src if src.flags.aligned else src.copy(), tmp, code):
        return False
    if tmp is not dst:
        dst[...] = tmp
    return True


def apply(op: str, src: np.ndarray, dst: np.ndarray) -> bool:
    """``dst[...] = op(src)`` by MKL VML (PyTorch's bits) for float32/float64 ``src`` and ``dst``
    of one dtype and one shape, any strides (``src`` may be expanded; ``dst`` may be ``src``);
    False (nothing written) where the route is off (see the module doc): the caller's kernel
    runs."""
    if src.dtype != dst.dtype or src.dtype not in _F32_F64 or src.shape != dst.shape:
        return False
    k = _state[0] if _state else _kernel_module()
    if k is None:
        return False
    return _vml_apply(k, src, dst, CODE[op])


def fresh(op: str, x: np.ndarray) -> np.ndarray | None:
    """``op(x)`` of a float32/float64 array as a fresh array of its shape and dtype (C order) by
    VML, or None where the route is off."""
    out = np.empty(x.shape, x.dtype)
    return out if apply(op, x, out) else None


def kernel(op: str, rest: Callable[..., None]) -> Callable[..., None]:
    """The unary kernel ``(x, out, compute, *more)`` of ``op`` with the VML route first: where the
    compute dtype is float32/float64 and ``out`` is of it, ``x`` (converted first where it is an
    integer or bool array, as PyTorch's TensorIterator converts it) goes to :func:`apply`; else, or
    where the route is off, ``rest`` runs."""
    code = CODE[op]

    def run(x: np.ndarray, out: np.ndarray, compute: np.dtype, *more: object) -> None:
        if out.dtype == compute and compute in _F32_F64 and x.dtype.kind in "biuf":
            k = _state[0] if _state else _kernel_module()
            if k is not None:
                xf = x if x.dtype == compute else (x.astype(compute) if x.dtype.kind != "f" else None)
                if xf is not None and _vml_apply(k, xf, out, code):
                    return
        rest(x, out, compute, *more)

    run.__name__ = getattr(rest, "__name__", op)
    run.__doc__ = f"{op}: MKL VML's (PyTorch's bits) for float32/float64, else {run.__name__}"
    return run


def fresh_first(op: str, rest: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """The fast path's function of a flat run (``x`` -> a fresh array) of ``op`` with the VML route
    first (:func:`fresh`); ``rest(x)`` where it does not apply."""
    code = CODE[op]

    def run(x: np.ndarray) -> np.ndarray:
        if x.dtype in _F32_F64:
            k = _state[0] if _state else _kernel_module()
            if k is not None:
                out = np.empty(x.shape, x.dtype)
                if _vml_apply(k, x, out, code):
                    return out
        return rest(x)

    run.__name__ = getattr(rest, "__name__", op)
    return run
