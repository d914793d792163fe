"""Which ops PyTorch 2.13 refuses for the complex and the wide unsigned dtypes, and its errors.

One table per family, keyed by the op's name; the ops ask :func:`check` with their compute
dtype on their uncached (dtype-deciding) path, so a supported call pays nothing more.

- complex64/complex128: ordering (``lt``, ``max``, ``clamp``, ...), rounding division and the
  bitwise ops have no complex meaning. PyTorch's error class and text differ op by op
  (``"lt_cpu" not implemented for 'ComplexFloat'``, ``maximum not implemented for complex
  tensors.``, ``clamp is not supported for complex types``); each row holds both.
- uint16/uint32/uint64 ("barebones" unsigned types in PyTorch 2.13): creation, copies,
  ``mul``, ``div``, ``eq``/``ne``, the bitwise ops, float-valued unary ops, ``sum``/``prod``,
  ``all``/``any`` work; ``add``/``sub``, ordering, ``neg``, ``abs``, ``max``, ``matmul``, ...
  raise ``"add_stub" not implemented for 'UInt16'`` (NotImplementedError).

>>> check("lt", strided.complex64)
Traceback (most recent call last):
strided.errors.StridedNotImplementedError: "lt_cpu" not implemented for 'ComplexFloat'
...
"""

from __future__ import annotations

from typing import Any

from ...dtypes import DType
from ...errors import StridedError, StridedNotImplementedError, StridedRuntimeError, join_lines
from .promotion import TORCH_NAMES

# op -> PyTorch's kernel name in '"<kernel>" not implemented for 'UInt16'' (NotImplementedError)
UNSIGNED: dict[str, str] = {
    "add": "add_stub", "sub": "add_stub", "addcmul": "addcmul_cpu_out", "cross": "cross",
    "median": "median_cpu", "median.dim": "median_out", "mode": "mode_cpu", "floor_divide": "div_floor_cpu", "div_trunc": "div_trunc_cpu",
    "remainder": "remainder_cpu",
    "pow": "pow", "lt": "lt_cpu", "le": "le_cpu", "gt": "gt_cpu", "ge": "ge_cpu", "neg": "neg_cpu",
    "abs": "abs_cpu", "bitwise_not": "bitwise_not_cpu", "sign": "sign_cpu", "clamp": "clamp_scalar_cpu",
    "clamp_min": "clamp_min_scalar_cpu", "clamp_max": "clamp_max_scalar_cpu", "clamp.tensor": "clamp_cpu",
    "clamp_min.tensor": "maximum_cpu", "clamp_max.tensor": "minimum_cpu", "relu": "clamp_min_scalar_cpu", "maximum": "maximum_cpu",
    "minimum": "minimum_cpu", "max": "max_all", "min": "min_all", "max.dim": "max_cpu",
    "min.dim": "min_cpu", "argmax": "argmax_cpu", "argmin": "argmin_cpu",
    "softmax": "softmax_lastdim_kernel_impl", "log_softmax": "log_softmax_kernel_impl",
    "matmul": "addmm_impl_cpu_", "mm": "addmm_impl_cpu_", "dot": "addmm_impl_cpu_", "bmm": "bmm",
    "einsum": "bmm",
    # the everyday ops (issue 12); "<op>.<variant>" where PyTorch's kernel differs by argument
    "tril": "tril", "triu": "triu", "topk": "topk_cpu", "kthvalue": "kthvalue_cpu",
    "cumsum_": "cumsum_out_cpu", "cumprod_": "cumprod_out_cpu", "cummax": "cummax_cpu", "cummin": "cummin_cpu",
    "diff": "add_stub", "searchsorted": "searchsorted_out_cpu", "bucketize": "searchsorted_out_cpu",
    "gather": "scatter_gather_tensor_cpu", "take": "take_cpu", "put": "take_put_cpu", "take_along_dim": "scatter_gather_tensor_cpu",
    "scatter": "scatter_gather_tensor_cpu", "scatter.value": "scatter_gather_scalar_cpu",
    "scatter_add": "scatter_gather_tensor_cpu", "scatter_reduce": "scatter_gather_tensor_cpu",
    "scatter_reduce.mean": "scatter_gather_tensor_cpu_reduce_mean",
    "scatter_reduce.amax": "scatter_gather_tensor_cpu_reduce_amax",
    "scatter_reduce.amin": "scatter_gather_tensor_cpu_reduce_amin",
    "scatter_reduce.exclude_self": "scatter_reduce_exclude_input_init",
    "index_add": "scatter_gather_tensor_cpu", "index_add.alpha": "add_stub", "index_add.vector": "index_add_",
    "index_copy": "index_copy_cpu", "index_fill": "index_fill_cpu", "index_put": "index_put", "masked_select": "masked_select",
    "masked_fill": "masked_fill", "masked_scatter": "masked_scatter", "nonzero": "nonzero_count_cpu",
    "argwhere": "nonzero_count_cpu", "count_nonzero": "nonzero_count_cpu",
    "logical_not": "logical_not_cpu", "logical_and": "logical_and_cpu", "logical_or": "logical_or_cpu",
    "logical_xor": "logical_xor_cpu", "sgn": "sign_cpu", "square": "pow", "fmod": "fmod_cpu",
    "amax": "max_values_cpu", "amin": "min_values_cpu", "aminmax": "aminmax_cpu",
    "fmax": "maximum_cpu", "fmin": "minimum_cpu", "gcd": "gcd_cpu", "lcm": "lcm_cpu", "heaviside": "heaviside_cpu",
    "logaddexp": "logaddexp_cpu", "logaddexp2": "logaddexp2_cpu",
}

_CLAMP = "clamp is not supported for complex types"
# op -> (error class, first line; "{T}" is PyTorch's dtype name)
COMPLEX: dict[str, tuple[type[StridedError], str]] = {
    # median / nanmedian of all elements, along a dim, and mode (no order: PyTorch has no kernel)
    "median": (StridedNotImplementedError, '"median_cpu" not implemented for \'{T}\''),
    "median.dim": (StridedNotImplementedError, '"median_out" not implemented for \'{T}\''),
    "mode": (StridedNotImplementedError, '"mode_cpu" not implemented for \'{T}\''),
    **{op: (StridedNotImplementedError, f'"{op}_cpu" not implemented for \'{{T}}\'') for op in ("lt", "le", "gt", "ge")},
    "floor_divide": (StridedNotImplementedError, '"div_floor_cpu" not implemented for \'{T}\''),
    "div_trunc": (StridedNotImplementedError, '"div_trunc_cpu" not implemented for \'{T}\''),
    "remainder": (StridedNotImplementedError, '"remainder_cpu" not implemented for \'{T}\''),
    **{op: (StridedNotImplementedError, f'"{op}_cpu" not implemented for \'{{T}}\'')
       for op in ("bitwise_and", "bitwise_or", "bitwise_xor")},
    # (the ~ operator raises PyTorch's TypeError before reaching here: ops.unary._invert)
    "bitwise_not": (StridedNotImplementedError, '"bitwise_not_cpu" not implemented for \'{T}\''),
    "maximum": (StridedRuntimeError, "maximum not implemented for complex tensors."),
    "minimum": (StridedRuntimeError, "minimum not implemented for complex tensors."),
    "fmax": (StridedRuntimeError, "fmax not implemented for complex tensors."),
    "fmin": (StridedRuntimeError, "fmin not implemented for complex tensors."),
    "max": (StridedNotImplementedError, '"max_all" not implemented for \'{T}\''),
    "min": (StridedNotImplementedError, '"min_all" not implemented for \'{T}\''),
    "max.dim": (StridedRuntimeError, "max(): does not support complex input"),
    "min.dim": (StridedRuntimeError, "min(): does not support complex input"),
    "argmax": (StridedRuntimeError, "argmax(): does not support complex input"),
    "argmin": (StridedRuntimeError, "argmin(): does not support complex input"),
    **{op: (StridedNotImplementedError, _CLAMP) for op in ("clamp", "clamp_min", "clamp_max", "clamp.tensor",
                                                           "clamp_min.tensor", "clamp_max.tensor")},
    "relu": (StridedNotImplementedError, _CLAMP),
    # (clamp_min / clamp_max called with a tensor bound: PyTorch's maximum / minimum kernels)
    "clamp_min.tensor.alone": (StridedNotImplementedError, '"maximum_cpu" not implemented for \'{T}\''),
    "clamp_max.tensor.alone": (StridedNotImplementedError, '"minimum_cpu" not implemented for \'{T}\''),
    "sign": (StridedNotImplementedError, "Unlike NumPy, torch.sign is not intended to support complex numbers. "
             "Please use torch.sgn instead."),
    "softmax": (StridedNotImplementedError, '"softmax_lastdim_kernel_impl" not implemented for \'{T}\''),
    "log_softmax": (StridedNotImplementedError, '"log_softmax_kernel_impl" not implemented for \'{T}\''),
    # the everyday ops (issue 12)
    **{op: (StridedNotImplementedError, f'"{kernel}" not implemented for \'{{T}}\'') for op, kernel in (
        ("round", "round_vml_cpu"), ("erf", "erf_vml_cpu"), ("erfc", "erfc_vml_cpu"), ("erfinv", "erfinv_vml_cpu"),
        ("digamma", "digamma"), ("i0", "i0_vml_cpu"), ("logit", "logit_cpu"), ("lgamma", "lgamma_vml_cpu"),
        ("gcd", "gcd_cpu"), ("lcm", "lcm_cpu"), ("xlogy", "xlogy_cpu"), ("logaddexp2", "logaddexp2_cpu"),
        ("trigamma", "trigamma"), ("polygamma", "polygamma"), ("special_i1", "i1_cpu"),
        ("special_i0e", "i0e_cpu"), ("special_i1e", "i1e_cpu"),
        ("atan2", "atan2_cpu"), ("arctan2", "atan2_cpu"), ("copysign", "copysign_cpu"), ("fmod", "fmod_cpu"), ("kthvalue", "kthvalue_cpu"),
        ("cummax", "cummax_cpu"), ("cummin", "cummin_cpu"), ("unique", "unique"), ("unique.dim", "unique_dim"),
        ("searchsorted", "searchsorted_out_cpu"), ("bucketize", "searchsorted_out_cpu"),
        ("amax", "max_values_cpu"), ("amin", "min_values_cpu"), ("aminmax", "aminmax_cpu"),
        ("scatter_reduce.amax", "scatter_gather_tensor_cpu_reduce_amax"),
        ("scatter_reduce.amin", "scatter_gather_tensor_cpu_reduce_amin"))},
    **{op: (StridedNotImplementedError, f"{op} is not supported for complex inputs") for op in ("floor", "ceil", "trunc")},
    **{op: (StridedRuntimeError, f"{op} does not support complex inputs.") for op in ("isposinf", "isneginf")},
    "signbit": (StridedNotImplementedError, "signbit is not implemented for complex tensors."),
    **{op: (StridedRuntimeError, f"{op} is not supported for complex tensors.") for op in ("deg2rad", "rad2deg")},
    # (PyTorch's first line starts with a space)
    **{op: (StridedRuntimeError, " Sort does not support complex dtypes on CPU") for op in ("sort", "argsort", "msort")},
    "topk": (StridedRuntimeError, " topk does not support complex dtypes on CPU"),
    **{op: (StridedRuntimeError, "nansum on CPU does not support complex inputs") for op in ("nansum", "nanmean")},
}
# (op, dtype name) -> PyTorch's kernel for the other refusals of one dtype: '"<kernel>" not implemented for 'Bool''
BY_DTYPE: dict[tuple[str, str], str] = {
    ("searchsorted", "bool"): "searchsorted_out_cpu", ("bucketize", "bool"): "searchsorted_out_cpu",
    ("polar", "float16"): "polar_cpu", ("scatter_reduce.mean", "bool"): "scatter_gather_tensor_cpu_reduce_mean",
    ("addcmul", "bool"): "addcmul_cpu_out", ("median", "bool"): "median_cpu", ("median.dim", "bool"): "median_out",
}

_WHY_COMPLEX = "complex numbers have no order (and no rounding division or bits): this op has no complex kernel"
_FIX_COMPLEX = ("fix: apply it to a real tensor: x.abs(), x.real or x.imag (views), "
                "or strided.view_as_real(x)")
_WHY_UNSIGNED = ("PyTorch 2.13 gives uint16/uint32/uint64 only a few kernels (creation, copies, mul, div, "
                 "==, bitwise ops, sum)")
_FIX_UNSIGNED = "fix: convert first, e.g. x.to(strided.int64) (or x.to(strided.float64))"


def check(op: str, dtype: DType, operands: tuple[Any, ...] = ()) -> None:
    """Raise PyTorch's error when ``op`` has no kernel for its compute ``dtype`` (see the module)."""
    if dtype.is_complex:
        row = COMPLEX.get(op)
        if row is not None:
            cls, first = row
            raise cls(join_lines(first.replace("{T}", TORCH_NAMES[dtype]),
                                 f"{op} {_described(dtype, operands)}; {_WHY_COMPLEX}", _FIX_COMPLEX))
    kernel = UNSIGNED.get(op) if dtype.kind == "u" and dtype.itemsize > 1 else BY_DTYPE.get((op, dtype.name))
    if kernel is not None:
        why = _WHY_UNSIGNED if dtype.kind == "u" else f"PyTorch 2.13 has no {dtype.name} kernel for {op}"
        fix = _FIX_UNSIGNED if dtype.kind == "u" else "fix: convert first, e.g. x.to(strided.float32)"
        raise StridedNotImplementedError(
            join_lines(f'"{kernel}" not implemented for \'{TORCH_NAMES[dtype]}\'',
                       f"{op} {_described(dtype, operands)}; {why}", fix))


def refused(op: str, dtype: DType) -> bool:
    """Whether :func:`check` would raise for ``op`` on ``dtype`` (for the fast paths' dtype sets)."""
    if dtype.is_complex:
        return op in COMPLEX
    if dtype.kind == "u" and dtype.itemsize > 1:
        return op in UNSIGNED
    return (op, dtype.name) in BY_DTYPE


def _described(dtype: DType, operands: tuple[Any, ...]) -> str:
    shapes = [f"{x._dtype.name} {tuple(x._layout.shape)}" for x in operands if hasattr(x, "_layout")]
    if shapes:
        return f"computes in {dtype.name} here (operands: {', '.join(shapes)})"
    return f"computes in {dtype.name} here"
