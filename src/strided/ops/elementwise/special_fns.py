"""The derivatives of digamma and i0 as ops of their own, so that every order of their gradients
exists (PyTorch's derivatives.yaml): ``polygamma(n, x)`` (``torch.polygamma``, ``Tensor.polygamma``,
``Tensor.polygamma_``) and the modified Bessel functions ``special_i1``, ``special_i0e``,
``special_i1e`` (PyTorch's native names; ``torch.special.i1`` ... in PyTorch, which strided has no
namespace for yet), each with its backward rule:

- ``polygamma(n, x)' = polygamma(n + 1, x)`` (digamma's is ``polygamma(1, x)``);
- ``i0' = i1``; ``i1' = i0 - i1 / x`` (0.5 where |x| <= eps, PyTorch's i1_backward);
- ``i0e' = i1e - sgn(x) i0e``; ``i1e' = i0e - i1e (sgn(x) + 1 / x)`` (0.5 near 0).

The values are :mod:`strided.kernels.special`'s, PyTorch's to float64 rounding (polygamma for
n >= 2 through the Hurwitz zeta, step for step as PyTorch's Cephes port). The elementwise
machinery (dtype rule, output layout, ``out=``, in-place checks) is
:func:`strided.ops.elementwise.unary_more.run_unary`'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...args import is_dim_int
from ...dtypes import float32, float64
from ...errors import StridedRuntimeError, StridedTypeError, join_lines
from ...grad_mode import SUBCLASSES
from ...gradients import seal
from ...kernels import native, special
from ...kernels.fpstate import quietly
from ...opdef import Kind, declare
from ...tensor import Tensor
from .._support import support
from .._support.front import compiled_front, kernel_entry
from .._support.overlap_updates import UpdatesInOrder, updates_in_order
from ..registry import backward, method
from .unary_more import MoreUnary, _fresh_fast, _special_fresh, run_unary
from .unary_more import i0 as _i0


def _kernel(fn: Any) -> Any:
    name = fn.__name__

    def run(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: Any, *args: Any) -> None:
        if not special.into(name, x, out):  # (the compiled kernel writes out directly)
            np.copyto(out, fn(np.asarray(x, dtype=np.float64), *args), casting="unsafe")

    return run


def _polygamma_kernel(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: Any, n: int) -> None:
    if not special.polygamma_into(n, x, out):
        np.copyto(out, special.polygamma(n, np.asarray(x, dtype=np.float64)), casting="unsafe")


def _polygamma_which(n: int) -> tuple[int, int]:
    """The compiled ``torch_special``'s (which, order) for ``polygamma(n, .)``."""
    return (special.TORCH_KERNELS["trigamma" if n else "digamma"], 0) if n < 2 else (special._POLYGAMMA, n)


def _polygamma_fresh(n: int) -> Any:
    """The small-op fast path's form of ``polygamma(n, .)`` (:func:`.unary_more._fresh_fast`): a
    fresh array of the flat run's dtype by :func:`_polygamma_kernel`'s steps. Called directly, not
    through ``quiet_call`` (whose shared context would hide
    :func:`strided.kernels.native.disabled`): the compiled kernel raises no floating-point
    warnings, and the NumPy formulas run quietly."""

    which, order = _polygamma_which(n)

    def run(x: np.ndarray) -> np.ndarray:
        out = np.empty(x.shape, x.dtype)
        k = native.special()
        if k is not None and k.torch_special(x if x.flags.aligned else x.copy(), out, which, order):
            return out  # (polygamma_into's first step; unaligned memory: an aligned copy, the kernel's bits)
        if not special.polygamma_into(n, x, out):
            quietly(_polygamma_formulas, n, x, out)
        return out

    return run


def _order_front(n: int) -> Any:
    """``polygamma(n, .)`` without ``out`` as a function of the tensor: a compiled front
    (:mod:`.._support.front`) whose common call (a plain row-major float32 / float64 tensor outside
    autograd) makes :func:`_polygamma_fresh`'s kernel call in C, before :func:`_polygamma_of`, the
    Python path, which takes every other call. Kept per order for the first few orders."""
    front = _ORDER_FRONTS.get(n)
    if front is None:
        fresh = _polygamma_fresh(n)
        which, order = _polygamma_which(n)
        k = native._compiled("_specialkernel")  # (the module itself: the front reads the switch per call)
        table = {d: (fresh, True, None, None if k is None else kernel_entry(k.torch_special, (which, order), d.numpy))
                 for d in (float32, float64)}
        front = compiled_front(_polygamma_of(n, fresh), 1, table)
        if n < 8:  # (the orders met in practice: a bounded cache)
            _ORDER_FRONTS[n] = front
    return front


_ORDER_FRONTS: dict[int, Any] = {}


def _polygamma_of(n: int, fresh: Any) -> Any:
    """The Python path of ``polygamma(n, input)`` without ``out``: the small-op fast path of a
    row-major float32/float64 tensor (its flat run by ``fresh`` in one call; the dtype check
    refuses none of these), else the checks and the general path."""

    def run(input: Tensor) -> Tensor:
        if input.__class__ is Tensor or input.__class__ in SUBCLASSES:
            t = _fresh_fast(fresh, input, direct=True)
            if t is not None:
                return t
        _check_dtype(input, n)
        return run_unary(_POLYGAMMA, input, args=(n,))

    run.__name__ = run.__qualname__ = "polygamma"
    return run


def _polygamma_formulas(n: int, x: np.ndarray, out: np.ndarray) -> None:
    np.copyto(out, special.polygamma(n, np.asarray(x, dtype=np.float64)), casting="unsafe")


_POLYGAMMA = MoreUnary("polygamma", _polygamma_kernel, "float")
_I1 = MoreUnary("special_i1", _kernel(special.i1), "float", inplace=False)
_I0E = MoreUnary("special_i0e", _kernel(special.i0e), "float", inplace=False)
_I1E = MoreUnary("special_i1e", _kernel(special.i1e), "float", inplace=False)


def _order(n: Any, name: str, position: int) -> int:
    """``n`` checked as PyTorch's parser and kernel check it: an int, a NumPy integer or a 0-d
    integer tensor (not a bool), >= 0."""
    if n.__class__ is int and n >= 0:  # (the common call: is_dim_int's kind tests cost ~1 us)
        return n
    if not is_dim_int(n):
        raise StridedTypeError(join_lines(
            f"{name}(): argument 'n' (position {position}) must be int, not {type(n).__name__}",
            "n is the order of the derivative of digamma: 0, 1, 2, ...",
        ))
    if n < 0:
        raise StridedRuntimeError(join_lines(
            "polygamma(n, x) does not support negative n.",
            f"n = {n}: polygamma is the n-th derivative of digamma, defined for n >= 0",
            "fix: pass n >= 0 (n = 0 is digamma)",
        ))
    return int(n)


def _check_dtype(x: Any, n: int) -> None:
    """PyTorch's refusal names the kernel the order selects: digamma, trigamma or polygamma."""
    if isinstance(x, Tensor):
        support.check("digamma" if n == 0 else "trigamma" if n == 1 else "polygamma", x._dtype, (x,))


def polygamma(n: int, input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """The ``n``-th derivative of digamma, elementwise (``torch.polygamma``): digamma for n = 0,
    trigamma for 1, ``(-1)**(n+1) n! zeta(n + 1, x)`` beyond; +-inf at the poles 0, -1, -2, ...
    Integer and bool input give float32.

    >>> round(strided.polygamma(1, strided.tensor([1.0], dtype=strided.float64)).item(), 8)  # pi**2 / 6
    1.64493407
    """
    n = _order(n, "polygamma", 1)
    if not isinstance(input, Tensor):  # (PyTorch's parser: x is the second argument here)
        raise StridedTypeError(join_lines(
            f"polygamma(): argument 'input' (position 2) must be Tensor, not {type(input).__name__}",
            "fix: pass a tensor: strided.polygamma(n, strided.tensor(x))",
        ))
    if out is None:
        return _order_front(n)(input)
    _check_dtype(input, n)
    return run_unary(_POLYGAMMA, input, args=(n,), out=out)


@method("polygamma")
def _polygamma_method(self: Tensor, n: int) -> Tensor:
    """``self.polygamma(n)``: :func:`polygamma` ``(n, self)``."""
    n = _order(n, "polygamma", 1)
    return _order_front(n)(self)  # (as polygamma's)


@method("polygamma_")
def _polygamma_inplace(self: Tensor, n: int) -> Tensor:
    """In place, ``self`` becomes ``polygamma(n, self)`` (a float tensor: an integer one cannot
    hold the result, as PyTorch refuses)."""
    n = _order(n, "polygamma_", 1)
    _check_dtype(self, n)
    try:
        return run_unary(_POLYGAMMA, self, target=self, args=(n,))
    except UpdatesInOrder as refusal:  # (a target whose elements share memory: PyTorch's updates)
        return updates_in_order(_polygamma_inplace, self, (n,), {}, refusal)


def special_i1(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """The modified Bessel function of the first kind, order 1 (``torch.special.i1``), odd in x.

    >>> round(special_i1(strided.tensor([1.0], dtype=strided.float64)).item(), 12)
    0.565159103992
    """
    return run_unary(_I1, input, out=out)


def special_i0e(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """``exp(-|x|) i0(x)`` (``torch.special.i0e``): finite where i0 overflows.

    >>> round(special_i0e(strided.tensor([1000.0], dtype=strided.float64)).item(), 8)
    0.01261724
    """
    return run_unary(_I0E, input, out=out)


def special_i1e(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """``exp(-|x|) i1(x)`` (``torch.special.i1e``).

    >>> round(special_i1e(strided.tensor([1.0], dtype=strided.float64)).item(), 10)
    0.2079104153
    """
    return run_unary(_I1E, input, out=out)


# ---------------------------------------------------------------- backward rules


@backward("polygamma", operands="any")
def polygamma_backward(out: Tensor, a: Any, b: Any, **kwargs: Any) -> Any:
    """PolygammaBackward0: ``g * polygamma(n + 1, x)``. The function is ``polygamma(n, x)``, the
    method ``x.polygamma(n)``: the tensor is whichever argument is one."""
    x, n = (a, b) if isinstance(a, Tensor) else (b, a)
    return "PolygammaBackward0", (x,), lambda g: (g * polygamma(n + 1, x),), (x,)


def _tiny_safe(x: Tensor) -> tuple[Tensor, Tensor]:
    """(|x| > eps, x with the tiny ones replaced by eps): PyTorch's i1_backward / i1e_backward
    guard, where ``1 / x`` would give NaN at 0 (the true derivative there is 0.5)."""
    eps = float(np.finfo(x._dtype.numpy).eps)
    big = x.abs() > eps
    return big, x.where(big, eps)


@backward("special_i1")
def special_i1_backward(out: Tensor, x: Tensor, **kwargs: Any) -> Any:
    """SpecialI1Backward0 (PyTorch's i1_backward): ``g * (i0(x) - i1(x) / x)``, 0.5 at |x| <= eps."""

    def grad(g: Tensor) -> tuple:
        big, safe = _tiny_safe(x)
        return (g * (_i0(safe) - out * safe.reciprocal()).where(big, 0.5),)

    return "SpecialI1Backward0", (x,), grad, (x, out)


@backward("special_i0e")
def special_i0e_backward(out: Tensor, x: Tensor, **kwargs: Any) -> Any:
    """SpecialI0EBackward0: ``g * (i1e(x) - sgn(x) i0e(x))``."""
    return "SpecialI0EBackward0", (x,), lambda g: (g * (special_i1e(x) - x.sgn() * out),), (x, out)


@backward("special_i1e")
def special_i1e_backward(out: Tensor, x: Tensor, **kwargs: Any) -> Any:
    """SpecialI1EBackward0 (PyTorch's i1e_backward): ``g * (i0e(x) - i1e(x) (sgn(x) + 1 / x))``,
    0.5 at |x| <= eps."""

    def grad(g: Tensor) -> tuple:
        big, safe = _tiny_safe(x)
        return (g * (special_i0e(safe) - out * (safe.sgn() + safe.reciprocal())).where(big, 0.5),)

    return "SpecialI1EBackward0", (x,), grad, (x, out)


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)


def _install_fronts(namespace: dict[str, Any]) -> None:
    """Put a compiled front (:mod:`.._support.front`) before the sealed entries of ``special_i1``,
    ``special_i0e`` and ``special_i1e``: their common call (a plain row-major float32 / float64
    tensor outside autograd, no ``out``) runs unary_more's fresh form of the same special function
    (:func:`.unary_more._special_fresh`: the compiled kernel PyTorch's code, else the NumPy
    formulas quietly) in C, as unary_more's fronts run digamma and i0; every other call goes to
    the entry (``run_unary``'s general path). The same bits: tests/test_special_fronts.py."""
    k = native._compiled("_specialkernel")  # (the module itself: the front reads the switch per call)
    for name, fn in (("special_i1", special.i1), ("special_i0e", special.i0e), ("special_i1e", special.i1e)):
        fresh = _special_fresh(fn)
        # (the kernel call _special_fresh makes, made in C first: compiled_call)
        kernels = {d: None if k is None else kernel_entry(*special.compiled_call(k, fn.__name__, d.numpy), d.numpy)
                   for d in (float32, float64)}
        namespace[name] = compiled_front(namespace[name], 1, {d: (fresh, True, None, kernels[d]) for d in (float32, float64)})


_install_fronts(globals())
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "polygamma special_i1 special_i0e special_i1e")
