"""The table of ops: every computing op and view/copy method by name, with its kind and its
forward, in the op registry (:mod:`strided.opdef`), where the family modules declared their
backward rules beside their forwards.

One entry per accepted op name (the list the diagnostics and the command line will accept):
``OPS[name]`` is the :class:`~strided.opdef.OpDef` of the op spelt ``name`` (``OPS["concat"]`` is
``cat``'s). The elementwise entries keep their descriptors
(:class:`~strided.ops.elementwise.binary.BinaryOp`, :class:`~strided.ops.elementwise.unary.UnaryOp`) as ``spec``;
``backward`` is the op's rule (None for the ops autograd cannot differentiate).

>>> OPS["add"].kind.value, OPS["permute"].kind.value, OPS["sum"].kind.value
('compute', 'view', 'compute')
>>> OPS["add"] is OPDEFS["__radd__"], OPS["add"].backward is BACKWARD["__radd__"][0]
(True, True)
"""

from __future__ import annotations

from typing import Any

from ..opdef import BACKWARD, OPDEFS, Kind, OpDef, define
from ..tensor import Tensor
from . import copies
from .elementwise import binary as E
from .elementwise import binary_more, complex_ops, shifts, unary_more
from .elementwise import unary as U
from .indexing import advanced as advanced_indexing
from .indexing import gather_scatter, index_ops, masked
from .linalg import distance, einsum, matmul
from .reductions import extrema, nan_reductions, scans, softmax
from .reductions import sums as reductions
from .shape import joining, reorder, searching, sets, sorting, triangles

OpEntry = OpDef  # (the table's entries are the registry's ops)


_BINARY = [E.ADD, E.SUB, E.MUL, E.DIV, E.FLOOR_DIVIDE, E.REMAINDER, E.POW, E.BITWISE_AND,
           E.BITWISE_OR, E.BITWISE_XOR, E.EQ, E.NE, E.LT, E.LE, E.GT, E.GE, E.MAXIMUM, E.MINIMUM]
_UNARY = [U.NEG, U.ABS, U.EXP, U.LOG, U.SQRT, U.SIN, U.COS, U.TANH, U.SIGMOID, U.RELU, U.BITWISE_NOT]

# The view methods (a new layout over the same storage) and the copy methods of Tensor.
_VIEWS = ("view", "view_as", "reshape", "flatten", "unflatten", "permute", "transpose", "t", "T",
          "mT", "movedim", "expand", "expand_as", "unsqueeze", "squeeze", "narrow", "select",
          "split", "chunk", "unbind", "diagonal", "unfold", "as_strided", "__getitem__")
_COPIES = ("contiguous", "clone", "to")

# The everyday ops by module and the kind they report: "view" (new layouts over the inputs'
# storage), "copy" (new memory filled from the inputs' elements, reported with a reason:
# dispatch.copied) or "compute" (values computed, or an out-of-place write's result).
_MORE: tuple[tuple[Any, str, str], ...] = (
    (joining, "view", "atleast_1d atleast_2d atleast_3d broadcast_tensors tensor_split hsplit vsplit dsplit"),
    (joining, "copy", "cat concat concatenate stack hstack vstack row_stack dstack column_stack"),
    (triangles, "view", "meshgrid"),
    (triangles, "copy", "tril triu diag diag_embed diagflat block_diag cartesian_prod"),
    (reorder, "copy", "flip fliplr flipud roll rot90 tile repeat_interleave"),
    (sorting, "copy", "sort argsort msort topk kthvalue"),
    (scans, "copy", "cumsum cumprod cummax cummin diff"),
    (sets, "copy", "unique unique_consecutive"),
    (searching, "copy", "searchsorted bucketize"),
    (advanced_indexing, "copy", "index_put"),  # (a copy of its input, written into)
    (advanced_indexing, "compute", "index_put_"),
    (gather_scatter, "copy", "gather take take_along_dim"),
    (gather_scatter, "compute", "scatter scatter_add scatter_reduce"),
    (index_ops, "copy", "index_select"),
    (index_ops, "compute", "index_add index_copy index_fill"),
    (masked, "copy", "masked_select nonzero argwhere"),
    (masked, "compute", "masked_fill masked_scatter"),
    (copies, "copy", " ".join(copies.COPY_FORMS)),
    (complex_ops, "view", "real imag view_as_real view_as_complex resolve_conj adjoint"),
    (complex_ops, "copy", "conj conj_physical"),
    (complex_ops, "compute", "angle polar complex"),
    (unary_more, "compute", "isnan isinf isfinite isposinf isneginf signbit logical_not floor ceil trunc fix "
                            "frac sign sgn square log1p expm1 log2 log10 exp2 rsqrt reciprocal erf erfc erfinv "
                            "tan asin arcsin acos arccos atan arctan sinh cosh asinh arcsinh acosh arccosh atanh "
                            "arctanh deg2rad rad2deg round nan_to_num"),
    (binary_more, "compute", "hypot atan2 arctan2 copysign fmod logical_and logical_or logical_xor lerp isclose"),
    (nan_reductions, "compute", "amax amin aminmax nansum nanmean logsumexp count_nonzero norm"),
    (distance, "compute", "cdist"),
    (shifts, "compute", "bitwise_left_shift bitwise_right_shift"),
    (shifts, "view", "positive"),
)


def _entries() -> dict[str, OpDef]:
    ops: dict[str, OpDef] = {}

    def put(name: str, kind: str, forward: Any, spec: Any = None, home: Any = None) -> None:
        op = OPDEFS.get(name)
        if op is not None and op.kind is not None and name != op.name:
            ops[name] = op  # an alias (concat of cat): the op is defined under its own name
            return
        ops[name] = define(name, Kind(kind), forward, spec,
                           home.__name__ if home is not None else getattr(forward, "__module__", ""))

    for op in _BINARY:
        put(op.name, "compute", getattr(E, op.name), op, E)
    for op in _UNARY:
        put(op.name, "compute", getattr(U, op.name), op, U)
    for name, fn in (("clamp", U.clamp), ("where", U.where),
                     ("sum", reductions.sum), ("prod", reductions.prod), ("mean", reductions.mean),
                     ("var", reductions.var), ("std", reductions.std), ("all", reductions.all),
                     ("any", reductions.any), ("max", extrema.max), ("min", extrema.min),
                     ("argmax", extrema.argmax), ("argmin", extrema.argmin),
                     ("softmax", softmax.softmax), ("log_softmax", softmax.log_softmax),
                     ("matmul", matmul.matmul), ("mm", matmul.mm), ("bmm", matmul.bmm),
                     ("dot", matmul.dot), ("outer", matmul.outer), ("einsum", einsum.einsum)):
        put(name, "compute", fn)
    for name in _VIEWS:
        put(name, "view", getattr(Tensor, name))
    for name in _COPIES:
        put(name, "copy", getattr(Tensor, name))
    for module, kind, names in _MORE:
        for name in names.split():
            put(name, kind, getattr(module, name), home=module)
    for name, op in list(OPDEFS.items()):  # the ops declared whole in their family module (@op: addcmul)
        if op.kind is not None and name == op.name:
            ops.setdefault(name, op)
    return ops


OPS: dict[str, OpDef] = _entries()

__all__ = ["BACKWARD", "OPS", "OpEntry"]
