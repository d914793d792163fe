"""The sample inputs of the double-backward sweep (``test_autograd_double.py``): one call per op of
the registry that has a backward rule, written once for both libraries (``L`` is ``strided`` or
``torch``; ``F`` its ``nn.functional``), like PyTorch's OpInfo sample inputs but our own.

A :class:`Sample` names the op (its registry name, :attr:`strided.opdef.OpDef.name`), the shapes of
its differentiable float64 inputs, the domain their values are drawn from, and ``call(L, F, *xs)``
giving the op's output(s). The sweep builds the inputs in each layout (contiguous, permuted,
sliced, expanded) and differentiates the call twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Sample:
    """One op's sample: ``call(L, F, *xs)`` on float64 inputs of ``shapes`` drawn from ``domain``
    ("any": |x| in [0.3, 1.2], either sign, away from the kinks at 0; "pos": [0.5, 1.5]; "unit":
    (-0.8, 0.8); "gt1": [1.2, 2])."""

    op: str
    shapes: tuple[tuple[int, ...], ...]
    call: Callable[..., Any]
    domain: str = "any"
    label: str = ""
    layouts: tuple[str, ...] = ("contiguous", "permuted", "sliced", "expanded")
    diverges: str = ""  # why strided's first derivative knowingly differs from PyTorch's (documented)


def i64(L: Any, data: Any) -> Any:
    """An int64 index tensor of ``data`` in library ``L``."""
    return L.tensor(data, dtype=L.int64)


def mask(L: Any, data: Any) -> Any:
    """A bool tensor of ``data`` in library ``L``."""
    return L.tensor(data, dtype=L.bool)


M = (2, 3)  # the default matrix shape
V = (4,)  # the default vector shape

_UNARY = {  # op -> domain, for the elementwise ops that take only self
    "abs": "any", "acos": "unit", "acosh": "gt1", "asin": "unit", "asinh": "any", "atan": "any", "atanh": "unit",
    "ceil": "any", "cos": "any", "cosh": "any", "deg2rad": "any", "erf": "any", "erfc": "any", "erfinv": "unit",
    "exp": "any", "exp2": "any", "expm1": "any", "floor": "any", "frac": "any", "log": "pos", "log10": "pos",
    "log1p": "pos", "log2": "pos", "neg": "any", "rad2deg": "any", "reciprocal": "pos", "relu": "any",
    "round": "any", "rsqrt": "pos", "sgn": "any", "sigmoid": "any", "sign": "any", "sin": "any", "sinh": "any",
    "sqrt": "pos", "square": "any", "tan": "unit", "tanh": "any", "trunc": "any", "nan_to_num": "any",
    "angle": "any", "conj": "any", "conj_physical": "any", "contiguous": "any",
    "sinc": "any", "lgamma": "any",
}

_BINARY = {  # op -> domain, for the elementwise methods of two same-shape tensors
    "add": "any", "sub": "any", "mul": "any", "div": "pos", "pow": "pos", "remainder": "pos", "fmod": "pos",
    "atan2": "any", "copysign": "any", "hypot": "any", "maximum": "any", "minimum": "any",
    "fmax": "any", "fmin": "any", "xlogy": "pos", "logaddexp": "any", "logaddexp2": "any", "ldexp": "any",
    "float_power": "pos",
}

_REDUCE = {  # op -> the call on a (2, 3) input
    "sum": lambda L, F, x: x.sum(1), "mean": lambda L, F, x: x.mean(0), "prod": lambda L, F, x: x.prod(1),
    "trace": lambda L, F, x: x.trace(),
    "std": lambda L, F, x: x.std(1), "var": lambda L, F, x: x.var(0), "amax": lambda L, F, x: x.amax(1),
    "amin": lambda L, F, x: x.amin(0), "aminmax": lambda L, F, x: x.aminmax(dim=1),
    "max": lambda L, F, x: x.max(1), "min": lambda L, F, x: x.min(0),
    "logsumexp": lambda L, F, x: x.logsumexp(1), "nansum": lambda L, F, x: x.nansum(1),
    "nanmean": lambda L, F, x: x.nanmean(0), "norm": lambda L, F, x: x.norm(dim=1),
    "vector_norm": lambda L, F, x: L.linalg.vector_norm(x, 3, dim=1),
    "matrix_norm": lambda L, F, x: L.linalg.matrix_norm(x),
    "kthvalue": lambda L, F, x: x.kthvalue(2, 1), "cummax": lambda L, F, x: x.cummax(1),
    "cummin": lambda L, F, x: x.cummin(0), "cumsum": lambda L, F, x: x.cumsum(1),
    "cumprod": lambda L, F, x: x.cumprod(1), "msort": lambda L, F, x: x.msort(),
    "sort": lambda L, F, x: x.sort(1), "topk": lambda L, F, x: x.topk(2, 1),
    "softmax": lambda L, F, x: x.softmax(1), "log_softmax": lambda L, F, x: x.log_softmax(0),
    "diff": lambda L, F, x: x.diff(dim=1), "logcumsumexp": lambda L, F, x: x.logcumsumexp(1),
}

_VIEWS = {  # op -> the call on a (2, 3) input
    "T": lambda L, F, x: x.T, "mT": lambda L, F, x: x.mT,
    "__getitem__": lambda L, F, x: x[1:, ::2],
    "as_strided": lambda L, F, x: x.as_strided((2, 2), (1, 2)),
    "as_strided_copy": lambda L, F, x: L.as_strided_copy(x, (2, 2), (1, 1)),
    "diagonal": lambda L, F, x: x.diagonal(), "diagonal_copy": lambda L, F, x: L.diagonal_copy(x, 1),
    "expand": lambda L, F, x: x.unsqueeze(0).expand(2, 2, 3),
    "expand_copy": lambda L, F, x: L.expand_copy(x, (3, 2, 3)),
    "movedim": lambda L, F, x: x.movedim(0, 1), "narrow": lambda L, F, x: x.narrow(1, 1, 2),
    "narrow_copy": lambda L, F, x: x.narrow_copy(1, 0, 2), "permute": lambda L, F, x: x.permute(1, 0),
    "permute_copy": lambda L, F, x: L.permute_copy(x, (1, 0)), "reshape": lambda L, F, x: x.reshape(3, 2),
    "select": lambda L, F, x: x.select(1, 2), "select_copy": lambda L, F, x: L.select_copy(x, 0, 1),
    "slice_copy": lambda L, F, x: L.slice_copy(x, 1, 0, 3, 2),
    "split": lambda L, F, x: x.split([1, 2], 1), "split_copy": lambda L, F, x: L.split_copy(x, 2, 1),
    "split_with_sizes_copy": lambda L, F, x: L.split_with_sizes_copy(x, [2, 1], 1),
    "squeeze": lambda L, F, x: x.unsqueeze(1).squeeze(1), "squeeze_copy": lambda L, F, x: L.squeeze_copy(x[:1]),
    "t": lambda L, F, x: x.t(), "t_copy": lambda L, F, x: L.t_copy(x),
    "transpose": lambda L, F, x: x.transpose(0, 1), "transpose_copy": lambda L, F, x: L.transpose_copy(x, 0, 1),
    "unbind": lambda L, F, x: x.unbind(1), "unbind_copy": lambda L, F, x: L.unbind_copy(x, 0),
    "unflatten": lambda L, F, x: x.unflatten(1, (3, 1)), "unfold": lambda L, F, x: x.unfold(1, 2, 1),
    "unfold_copy": lambda L, F, x: L.unfold_copy(x, 1, 2, 1), "unsqueeze": lambda L, F, x: x.unsqueeze(2),
    "unsqueeze_copy": lambda L, F, x: L.unsqueeze_copy(x, 0), "view": lambda L, F, x: x.reshape(-1).view(3, 2),
    "view_copy": lambda L, F, x: L.view_copy(x.reshape(-1), (3, 2)),
    "to": lambda L, F, x: (x.to(L.complex128) * (1 + 1j)).imag,
    "alias_copy": lambda L, F, x: L.alias_copy(x),
    "gelu": lambda L, F, x: F.gelu(x),
    "flip": lambda L, F, x: x.flip(1), "fliplr": lambda L, F, x: x.fliplr(), "flipud": lambda L, F, x: x.flipud(),
    "repeat": lambda L, F, x: x.repeat(2, 1), "repeat_interleave": lambda L, F, x: x.repeat_interleave(2, 1),
    "roll": lambda L, F, x: x.roll(1, 1), "rot90": lambda L, F, x: x.rot90(1, (0, 1)),
    "tile": lambda L, F, x: x.tile((1, 2)), "tril": lambda L, F, x: x.tril(), "triu": lambda L, F, x: x.triu(1),
    "diag": lambda L, F, x: x.diag(), "diag_embed": lambda L, F, x: x.diag_embed(),
    "diagflat": lambda L, F, x: x.diagflat(), "dsplit": lambda L, F, x: x.unsqueeze(0).dsplit([1]),
    "hsplit": lambda L, F, x: x.hsplit([1]), "vsplit": lambda L, F, x: x.vsplit(2),
    "tensor_split": lambda L, F, x: x.tensor_split(2, 1),
    "atleast_1d": lambda L, F, x: L.atleast_3d(x),
    "getitem": lambda L, F, x: x[i64(L, [1, 0, 1])],
    "index_select": lambda L, F, x: x.index_select(1, i64(L, [2, 0, 2])),
    "gather": lambda L, F, x: x.gather(1, i64(L, [[0, 2, 0], [1, 1, 2]])),
    "take": lambda L, F, x: x.take(i64(L, [0, 5, 5, 2])),
    "masked_select": lambda L, F, x: x.masked_select(mask(L, [[True, False, True], [False, True, True]])),
    "masked_fill": lambda L, F, x: x.masked_fill(mask(L, [[True, False, True], [False, True, False]]), 2.0),
    "index_fill": lambda L, F, x: x.index_fill(1, i64(L, [0, 2]), -1.0),
    "clamp": lambda L, F, x: x.clamp(-0.5, 0.6),
    "clamp_min": lambda L, F, x: x.clamp_min(-0.2) * x,
    "clamp_max": lambda L, F, x: x.clamp_max(L.full_like(x, 0.3)) * x,
    "real": lambda L, F, x: (x * (1 + 2j)).exp().real,
    "imag": lambda L, F, x: (x * (1 + 2j)).exp().imag,
    "view_as_real": lambda L, F, x: L.view_as_real((x * (1 + 2j)).exp()),
    "view_as_complex": lambda L, F, x: (L.view_as_complex(L.stack([x, x * x], -1)) ** 2).real,
}

_TWO = {  # op -> (shapes, call)
    "split_with_sizes": ((M,), lambda L, F, x: [p * p for p in x.split_with_sizes([1, 2], 1)]),
    "slice_scatter": ((M, (2, 1)), lambda L, F, a, s: L.slice_scatter(a, s, 1, 1, 2) ** 2),
    "select_scatter": ((M, (3,)), lambda L, F, a, s: L.select_scatter(a, s, 0, 1) ** 2),
    "diagonal_scatter": ((M, (2,)), lambda L, F, a, s: a.diagonal_scatter(s, 1) ** 2),
    # (src's derivatives only: PyTorch 2.13's input gradient of as_strided_scatter is the window's
    # instead of its complement; test_view_scatters.py checks strided's against finite differences)
    "as_strided_scatter": (((2,),), lambda L, F, s: L.as_strided_scatter(
        L.zeros(2, 3, dtype=L.float64), s, (2,), (2,), 1) ** 2),
    "polar": ((M, M), lambda L, F, a, b: (L.polar(a * a + 0.5, b) ** 2).imag),  # (abs > 0: PyTorch's rule uses sgn(result))
    "complex": ((M, M), lambda L, F, a, b: (L.complex(a, b) ** 3).real),
    "digamma": (((M),), lambda L, F, x: x.digamma()), "i0": (((M),), lambda L, F, x: x.i0()),
    "polygamma": (((M),), lambda L, F, x: L.polygamma(2, x)),
    "special_i1": (((M),), lambda L, F, x: L.special.i1(x)),
    "special_i0e": (((M),), lambda L, F, x: L.special.i0e(x)),
    "special_i1e": (((M),), lambda L, F, x: L.special.i1e(x)),
    "logit": (((M),), lambda L, F, x: x.sigmoid().logit()),  # (inside (0, 1), where logit is smooth)
    "__rsub__": (((M),), lambda L, F, x: 2.0 - x), "__rtruediv__": (((M),), lambda L, F, x: 2.0 / x),
    "__rpow__": (((M),), lambda L, F, x: 1.5 ** x), "__rmatmul__": (((3, 2), (2, 3)), lambda L, F, x, y: x.__rmatmul__(y)),
    "bmm": (((2, 2, 3), (2, 3, 2)), lambda L, F, a, b: a.bmm(b)), "dot": ((V, V), lambda L, F, a, b: a.dot(b)),
    "matmul": (((2, 3), (3,)), lambda L, F, a, b: a.matmul(b)), "mm": (((2, 3), (3, 2)), lambda L, F, a, b: a.mm(b)),
    "einsum": (((2, 3), (3, 2)), lambda L, F, a, b: L.einsum("ij,jk->ik", a, b)),
    "cdist": (((3, 2), (2, 2)), lambda L, F, a, b: L.cdist(a, b)),
    "lerp": ((M, M, M), lambda L, F, a, b, w: a.lerp(b, w)),
    "rsub": ((M, M), lambda L, F, a, b: L.rsub(a, b, alpha=1.5)),
    "addcmul": ((M, M, M), lambda L, F, a, b, c: a.addcmul(b, c, value=0.5)),
    "addmm": (((3,), (2, 4), (4, 3)), lambda L, F, i, a, b: L.addmm(i, a, b, beta=0.5, alpha=2.0)),
    "addmv": (((2,), M, (3,)), lambda L, F, i, a, v: L.addmv(i, a, v, beta=2.0, alpha=0.5)),
    "addr": (((2, 3), (2,), (3,)), lambda L, F, i, a, b: L.addr(i, a, b, beta=0.5, alpha=-1.5)),
    "baddbmm": (((2, 1, 2), (2, 2, 3), (2, 3, 2)), lambda L, F, i, a, b: L.baddbmm(i, a, b, beta=1.5, alpha=0.5)),
    "addbmm": (((2, 2), (3, 2, 3), (3, 3, 2)), lambda L, F, i, a, b: L.addbmm(i, a, b, alpha=2.0)),
    "addcdiv": ((M, M, M), lambda L, F, a, b, c: a.addcdiv(b, c.exp(), value=0.5)),
    "where": ((M, M), lambda L, F, a, b: L.where(mask(L, [[True, False, True], [False, True, False]]), a, b)),
    "masked_scatter": ((M, (6,)), lambda L, F, a, s: a.masked_scatter(mask(L, [[True, False, True], [False, True, True]]), s)),
    "index_add": ((M, (2, 2)), lambda L, F, a, s: a.index_add(1, i64(L, [2, 2]), s, alpha=2.0)),
    "index_copy": ((M, (2, 2)), lambda L, F, a, s: a.index_copy(1, i64(L, [2, 0]), s)),
    "index_reduce": ((M, (2, 2)), lambda L, F, a, s: a.index_reduce(1, i64(L, [2, 2]), s, "prod")),
    "index_put": ((M, (2,)), lambda L, F, a, s: a.index_put((i64(L, [1, 0]), i64(L, [2, 2])), s, accumulate=True)),
    "put": ((M, (3,)), lambda L, F, a, s: a.put(i64(L, [4, 0, 4]), s, accumulate=True)),
    "scatter": ((M, (2, 2)), lambda L, F, a, s: a.scatter(1, i64(L, [[2, 0], [1, 0]]), s)),
    "scatter_add": ((M, M), lambda L, F, a, s: a.scatter_add(1, i64(L, [[2, 2, 0], [1, 0, 1]]), s)),
    "scatter_reduce": ((M, M), lambda L, F, a, s: a.scatter_reduce(1, i64(L, [[2, 2, 0], [1, 0, 1]]), s, "sum")),
    "take_along_dim": ((M,), lambda L, F, a: a.take_along_dim(i64(L, [[2, 0], [1, 1]]), 1)),
    "cat": ((M, (1, 3)), lambda L, F, a, b: L.cat([a, b], 0)),
    "stack": ((M, M), lambda L, F, a, b: L.stack([a, b], 1)),
    "hstack": ((M, M), lambda L, F, a, b: L.hstack([a, b])),
    "vstack": ((M, M), lambda L, F, a, b: L.vstack([a, b])),
    "row_stack": ((M, M), lambda L, F, a, b: L.row_stack([a, b])),
    "dstack": ((M, M), lambda L, F, a, b: L.dstack([a, b])),
    "column_stack": ((M, (2,)), lambda L, F, a, b: L.column_stack([a, b])),
    "block_diag": ((M, (2, 2)), lambda L, F, a, b: L.block_diag(a, b)),
    "cartesian_prod": (((2,), (3,)), lambda L, F, a, b: L.cartesian_prod(a, b)),
    "meshgrid": (((2,), (3,)), lambda L, F, a, b: L.meshgrid(a, b, indexing="ij")),
    "broadcast_tensors": ((M, (3,)), lambda L, F, a, b: L.broadcast_tensors(a, b)),
    "F.binary_cross_entropy": ((M,), lambda L, F, a: F.binary_cross_entropy(
        a.sigmoid(), L.tensor([[0.2, 1.0, 0.0], [0.5, 0.7, 0.1]], dtype=L.float64))),
    "F.binary_cross_entropy_with_logits": ((M, M), lambda L, F, a, t: F.binary_cross_entropy_with_logits(
        a, t.sigmoid())),
    "F.avg_pool1d": (((2, 2, 5),), lambda L, F, a: F.avg_pool1d(a, 2, ceil_mode=True)),
    "F.avg_pool2d": (((1, 2, 4, 4),), lambda L, F, a: F.avg_pool2d(a, 3, 1, 1, count_include_pad=False)),
    "F.batch_norm": (((4, 3), (3,), (3,)), lambda L, F, a, w, b: F.batch_norm(a, None, None, w, b, training=True)),
    "F.conv1d": (((2, 2, 5), (3, 2, 2), (3,)), lambda L, F, a, w, b: F.conv1d(a, w, b, stride=2, padding=1)),
    "F.conv2d": (((1, 2, 4, 4), (2, 1, 2, 2), (2,)), lambda L, F, a, w, b: F.conv2d(a, w, b, padding=1, groups=2)),
    "F.elu": ((M,), lambda L, F, a: F.elu(a, 0.7)),
    "F.embedding": (((4, 3),), lambda L, F, w: F.embedding(i64(L, [[0, 2], [2, 3]]), w)),
    "F.glu": (((2, 4),), lambda L, F, a: F.glu(a, -1)),
    "F.hardtanh": ((M,), lambda L, F, a: F.hardtanh(a, -0.9, 1.0)),
    "selu": ((M,), lambda L, F, a: F.selu(a)),
    "F.hardsigmoid": ((M,), lambda L, F, a: F.hardsigmoid(a * 2)),
    "celu": ((M,), lambda L, F, a: F.celu(a, 0.7)),
    "F.hardswish": ((M,), lambda L, F, a: F.hardswish(a * 2)),
    "hardshrink": ((M,), lambda L, F, a: F.hardshrink(a, 0.3)),
    "F.softshrink": ((M,), lambda L, F, a: F.softshrink(a, 0.3)),
    "threshold": ((M,), lambda L, F, a: F.threshold(a, 0.1, 2.0)),
    "F.mish": ((M,), lambda L, F, a: F.mish(a)),
    "F.logsigmoid": ((M,), lambda L, F, a: F.logsigmoid(a)),
    "rrelu": ((M,), lambda L, F, a: F.rrelu(a, 0.1, 0.3)),
    "F.huber_loss": ((M, M), lambda L, F, a, b: F.huber_loss(a, b, delta=0.5)),
    "F.layer_norm": ((M, (3,), (3,)), lambda L, F, a, w, b: F.layer_norm(a, (3,), w, b)),
    "F.leaky_relu": ((M,), lambda L, F, a: F.leaky_relu(a, 0.1)),
    "F.linear": (((2, 3), (4, 3), (4,)), lambda L, F, a, w, b: F.linear(a, w, b)),
    "F.max_pool1d": (((2, 2, 5),), lambda L, F, a: F.max_pool1d(a, 2)),
    "F.max_pool2d": (((1, 2, 4, 4),), lambda L, F, a: F.max_pool2d(a, 2, stride=1, padding=1)),
    "F.mse_loss": ((M, M), lambda L, F, a, b: F.mse_loss(a, b)),
    "F.nll_loss": ((M,), lambda L, F, a: F.nll_loss(a.log_softmax(1), i64(L, [2, 0]))),
    "F.normalize": ((M,), lambda L, F, a: F.normalize(a, dim=1)),
    "F.prelu": (((2, 3, 2), (3,)), lambda L, F, a, w: F.prelu(a, w)),
    "F.silu": ((M,), lambda L, F, a: F.silu(a)),
    "F.smooth_l1_loss": ((M, M), lambda L, F, a, b: F.smooth_l1_loss(a, b, beta=0.5)),
    "F.soft_margin_loss": ((M,), lambda L, F, a: F.soft_margin_loss(a, a.detach().sign())),
    "F.softplus": ((M,), lambda L, F, a: F.softplus(a, beta=2.0)),
    # linear algebra: square inputs shifted by 3 I (well conditioned); the factors unique only up to
    # sign (singular vectors, Q, eigenvectors) enter through sign-invariant |.|
    "inverse": (((3, 3),), lambda L, F, a: L.linalg.inv(a + _eye(L))),
    "linalg_inv_ex": (((3, 3),), lambda L, F, a: L.linalg.inv_ex(a + _eye(L)).inverse),
    "det": (((3, 3),), lambda L, F, a: L.linalg.det(a + _eye(L))),
    "linalg_slogdet": (((3, 3),), lambda L, F, a: L.linalg.slogdet(a + _eye(L)).logabsdet),
    "slogdet": (((3, 3),), lambda L, F, a: L.slogdet(a + _eye(L))[1]),
    "linalg_solve": (((3, 3), (3, 2)), lambda L, F, a, b: L.linalg.solve(a + _eye(L), b)),
    "linalg_solve_ex": (((3, 3), (3, 2)), lambda L, F, a, b: L.linalg.solve_ex(a + _eye(L), b).result),
    "linalg_svd": (((3, 2),), lambda L, F, a: _abs_factors(L.linalg.svd(a, full_matrices=False))),
    "linalg_svdvals": (((2, 3),), lambda L, F, a: L.linalg.svdvals(a)),
    "linalg_qr": (((3, 2),), lambda L, F, a: _abs_factors(L.linalg.qr(a))),
    "linalg_eigh": (((3, 3),), lambda L, F, a: _abs_factors(L.linalg.eigh(a + a.mT))),
    "linalg_eigvalsh": (((3, 3),), lambda L, F, a: L.linalg.eigvalsh(a + a.mT)),
    "linalg_cholesky": (((3, 3),), lambda L, F, a: L.linalg.cholesky(a.matmul(a.mT) + _eye(L))),
    "linalg_cholesky_ex": (((3, 3),), lambda L, F, a: L.linalg.cholesky_ex(a.matmul(a.mT) + _eye(L)).L),
    "linalg_pinv": (((2, 3),), lambda L, F, a: L.linalg.pinv(a)),
    "linalg_lstsq": (((3, 2), (3, 2)), lambda L, F, a, b: L.linalg.lstsq(a, b).solution),
    "cross": (((2, 3), (2, 3)), lambda L, F, a, b: L.linalg.cross(a, b)),
    "median": ((M,), lambda L, F, a: a.median(1).values),
    "nanmedian": ((M,), lambda L, F, a: a.nanmedian()),
    "mode": ((M,), lambda L, F, a: a.mode(0).values),
}


# an expanded (stride-0) input repeats its rows: a rank-1 matrix, whose singular vectors and Q
# are not differentiable (equal or zero singular values), nor are svdvals twice (its second
# derivative divides by their differences: rounding picks NaN or a huge finite value, and
# PyTorch gives one on some CPUs, the other on others)
_DISTINCT_ROWS = {"linalg_svd": ("contiguous", "permuted", "sliced"), "linalg_qr": ("contiguous", "permuted", "sliced"),
                  "linalg_svdvals": ("contiguous", "permuted", "sliced")}


def _eye(L: Any) -> Any:
    return 3 * L.eye(3, dtype=L.float64)


def _abs_factors(out: Any) -> tuple:
    """A factorization's outputs with the sign-ambiguous ones (all but a 1-d eigen/singular value
    tensor) as |.|."""
    return tuple(t if t.ndim == 1 else t.abs() for t in out)


# as_strided reads the storage itself: an expanded input's storage holds one row only
_STORAGE_RELATIVE = {"as_strided": ("contiguous", "permuted", "sliced"),
                     "as_strided_copy": ("contiguous", "permuted", "sliced")}


def _method(name: str) -> Callable[..., Any]:
    return lambda L, F, *xs: getattr(xs[0], name)(*xs[1:])


def _samples() -> list[Sample]:
    out = [Sample(op, (M,), _method(op), dom) for op, dom in _UNARY.items()]
    out += [Sample(op, (M, M), _method(op), dom) for op, dom in _BINARY.items()]
    out += [Sample(op, (M,), call, layouts=_STORAGE_RELATIVE.get(op, Sample.layouts))
            for op, call in {**_REDUCE, **_VIEWS}.items()]
    out += [Sample(op, tuple(shapes), call, layouts=_DISTINCT_ROWS.get(op, Sample.layouts))
            for op, (shapes, call) in _TWO.items()]
    # a second sample where one call leaves a class of paths out: a basic index with an int and
    # a step, an advanced index mixed with a slice, a full reduction
    out += [Sample("__getitem__", (M,), lambda L, F, x: x[1, 1:],
                   label="int"),
            Sample("getitem", (M,), lambda L, F, x: x[:, i64(L, [2, 2, 0])], label="slice+index"),
            Sample("prod", (M,), lambda L, F, x: x.prod(), label="all"),
            Sample("max", (M,), lambda L, F, x: x.max(), label="all"),
            Sample("sum", (M,), lambda L, F, x: x.sum(), label="all"),
            Sample("polygamma", (M,), lambda L, F, x: x.polygamma(1), label="method"),
            Sample("matrix_norm", (M,), lambda L, F, x: L.linalg.matrix_norm(x, "nuc"), label="nuc",
                   layouts=("contiguous", "permuted", "sliced")),
            Sample("matrix_norm", (M,), lambda L, F, x: L.linalg.matrix_norm(x, 2), label="2",
                   layouts=("contiguous", "permuted", "sliced")),
            Sample("index_reduce", (M, (2, 2)), lambda L, F, a, s: a.index_reduce(
                1, i64(L, [0, 2]), s, "mean", include_self=False), label="mean"),
            Sample("index_reduce", (M, (2, 2)), lambda L, F, a, s: a.index_reduce(
                1, i64(L, [2, 2]), s, "amax"), label="amax"),
            Sample("detach_copy", (M,), lambda L, F, x: L.detach_copy(x),
                   diverges="PyTorch 2.13 gives detach_copy's result a NotImplemented node; strided's is "
                            "detached, as detach()'s (strided.ops.copies)")]
    return out


SAMPLES: list[Sample] = _samples()
