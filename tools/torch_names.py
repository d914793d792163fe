"""The ``torch.*`` names a training or scripting user reaches for, and which of them strided lacks.

``COMMON`` is the closed list: every name on it exists as ``strided.<name>`` and behaves as
``torch.<name>`` on a sample input (``tests/test_torch_names.py`` holds the samples and fails when
a name is dropped). ``ELSEWHERE`` are everyday names that other work owns (linear algebra,
statistics, special functions: issues 25 and 26); ``NOT_YET`` the rest of the everyday names
strided does not have yet. Run the script to see which names of the three lists strided lacks::

    PYTHONPATH=src python tools/torch_names.py

The lists are hand-picked from ``dir(torch)`` (2.13): tensor functions, creation, math, shape
ops, dtypes and settings; internal, CUDA, quantization, sparse, distributed and JIT names are
left out, as is what lives under ``torch.nn``/``torch.linalg``/``torch.fft``.
"""

from __future__ import annotations

import sys

COMMON: dict[str, tuple[str, ...]] = {
    "creation": (
        "tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "empty", "full", "zeros_like",
        "ones_like", "empty_like", "full_like", "rand", "randn", "randint", "randperm", "rand_like",
        "randn_like", "randint_like", "arange", "linspace", "logspace", "eye", "empty_strided",
        "manual_seed", "seed", "initial_seed", "normal", "bernoulli", "multinomial", "tril_indices",
        "triu_indices",
    ),
    "shape": (
        "reshape", "transpose", "permute", "squeeze", "unsqueeze", "flatten", "unflatten", "split", "chunk",
        "tensor_split", "narrow", "t", "clone", "diagonal", "movedim", "moveaxis", "swapaxes", "swapdims",
        "unbind", "select", "cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack",
        "column_stack", "flip", "fliplr", "flipud", "roll", "rot90", "tile", "repeat_interleave",
        "broadcast_to", "broadcast_tensors", "as_strided", "ravel", "atleast_1d", "atleast_2d",
        "atleast_3d", "hsplit", "vsplit", "dsplit", "tril", "triu", "diag", "diag_embed", "diagflat",
        "meshgrid", "cartesian_prod",
    ),
    "indexing": (
        "gather", "scatter", "scatter_add", "index_select", "masked_select", "masked_fill", "take",
        "take_along_dim", "where", "nonzero", "argwhere",
    ),
    "math": (
        "abs", "absolute", "neg", "negative", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt",
        "rsqrt", "square", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "arctan2", "sinh", "cosh",
        "tanh", "asinh", "acosh", "atanh", "sigmoid", "erf", "erfc", "erfinv", "floor", "ceil", "round",
        "trunc", "frac", "sign", "sgn", "signbit", "reciprocal", "pow", "clamp", "clamp_min", "clamp_max",
        "clip", "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
        "remainder", "fmod", "maximum", "minimum", "hypot", "lerp", "addcmul", "addcdiv", "nan_to_num",
        "deg2rad", "rad2deg", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal", "isclose",
        "allclose", "equal", "eq", "ne", "not_equal", "lt", "less", "le", "less_equal", "gt", "greater", "ge",
        "greater_equal", "logical_and", "logical_or", "logical_not", "logical_xor", "bitwise_and",
        "bitwise_or", "bitwise_xor", "bitwise_not", "real", "imag", "conj", "complex", "polar",
        "view_as_real", "view_as_complex", "softmax", "log_softmax", "fmax", "fmin", "gcd", "lcm", "heaviside",
        "xlogy", "logaddexp", "logaddexp2", "sinc", "ldexp", "lgamma", "float_power",
    ),
    "reductions": (
        "sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "all", "any", "std", "var",
        "var_mean", "std_mean", "logsumexp", "norm", "cumsum", "cumprod", "cummax", "cummin", "nansum",
        "nanmean", "count_nonzero", "diff", "sort", "argsort", "msort", "topk", "unique",
        "unique_consecutive", "searchsorted", "bucketize", "logcumsumexp", "cov", "trapezoid", "trapz",
        "cumulative_trapezoid",
    ),
    "linear algebra": ("matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "einsum", "cdist", "trace",
                       "kron", "addmm", "addmv", "addr", "baddbmm", "addbmm", "dist", "vander"),
    "queries": ("numel", "is_tensor", "is_floating_point", "is_complex", "is_nonzero", "result_type",
                "promote_types"),
    "dtypes": (
        "float", "double", "half", "long", "int", "short", "bool", "uint8", "int8", "int16", "int32", "int64",
        "float16", "float32", "float64", "complex64", "complex128", "cfloat", "cdouble", "finfo", "iinfo",
        "bfloat16",
    ),
    "settings": ("set_default_dtype", "get_default_dtype", "set_printoptions", "no_grad", "enable_grad",
                 "set_grad_enabled", "is_grad_enabled", "device", "Generator", "Tensor", "inference_mode",
                 "is_inference_mode_enabled", "get_rng_state", "set_rng_state", "Size"),
}

# everyday names other branches add (linear algebra, statistics, special functions)
ELSEWHERE: tuple[str, ...] = ("median", "nanmedian", "quantile", "mode", "bincount", "histc", "isin", "det",
                              "logdet", "svd", "tensordot", "cross", "digamma", "i0", "logit")

# everyday names strided does not have yet
NOT_YET: tuple[str, ...] = ()


def common_names() -> list[str]:
    """Every name of :data:`COMMON`, in its order."""
    return [name for names in COMMON.values() for name in names]


def lacking(module: object, names: list[str] | tuple[str, ...]) -> list[str]:
    """The names of ``names`` that ``module`` has no attribute for."""
    return [n for n in names if not hasattr(module, n)]


def main() -> int:
    import strided

    for title, names in (("common", common_names()), ("elsewhere", list(ELSEWHERE)), ("not yet", list(NOT_YET))):
        missing = lacking(strided, names)
        print(f"{title}: {len(names) - len(missing)} of {len(names)} present; lacking: {' '.join(missing) or '-'}")
    return 1 if lacking(strided, common_names()) else 0


if __name__ == "__main__":
    sys.exit(main())
