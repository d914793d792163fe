"""A differential sweep of the everyday ops (``ops.table._MORE``) over every dtype and layout.

Each :data:`CASES` row is ``(name, call)``: ``call(m, x, a)`` runs the op in library ``m``
(``torch`` or ``strided``) on ``x`` with helper tensors from ``a`` (:class:`Aux`), built the same
way in both. :func:`run_case` returns None when both libraries agree (same result dtype, shape and
values, or the same error class and first line) and a one-line description of the difference
otherwise. ``python tests/everyday_sweep.py`` prints every difference.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import strided as st
from strided.dtypes import ALL_DTYPES

BUILTINS = (IndexError, NotImplementedError, TypeError, ValueError, RuntimeError)
LAYOUTS = ("contig", "noncontig", "expanded", "0d", "empty")


def np_dtype(dtype: str) -> np.dtype:
    """The NumPy dtype of a dtype name: bfloat16 is ml_dtypes' (NumPy has none)."""
    if dtype == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(dtype)


def from_numpy(m: Any, a: np.ndarray) -> Any:
    """``m.from_numpy(a)``; torch takes a bfloat16 array as its bits (torch.from_numpy refuses ml_dtypes')."""
    if m is torch and a.dtype.name == "bfloat16":
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return m.from_numpy(a)


def to_numpy(t: Any) -> np.ndarray:
    """A torch tensor's values as a NumPy array (bfloat16 as an ml_dtypes array, bit for bit)."""
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np_dtype("bfloat16"))
    return t.numpy()


def values(dtype: str, n: int, seed: int = 0) -> np.ndarray:
    """``n`` values of ``dtype``: small ints (0..5 unsigned, -5..5 signed), bools, floats with
    one NaN-free spread (x3), complex with both parts drawn (a fresh array each call)."""
    return _values(dtype, n, seed).copy()


@functools.cache
def _values(dtype: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == "bfloat16":  # (bfloat16's kind is NumPy's 'V'; drawn as float32, rounded once)
        return (rng.standard_normal(n) * 2).astype(np.float32).astype(np_dtype(dtype))
    kind = np.dtype(dtype).kind
    if kind == "b":
        return rng.integers(0, 2, n).astype(np.bool_)
    if kind in "iu":
        return rng.integers(0 if kind == "u" else -5, 6, n).astype(dtype)
    if kind == "c":
        return (rng.standard_normal(n) * 2 + 1j * rng.standard_normal(n) * 2).astype(dtype)
    return (rng.standard_normal(n) * 2).astype(dtype)


def build(m: Any, dtype: str, layout: str, seed: int = 0) -> Any:
    """The same tensor in torch or strided: ``layout`` one of :data:`LAYOUTS` (3x4 unless 0-d/empty)."""
    if layout == "0d":
        base = values(dtype, 1, seed).reshape(())
    elif layout == "empty":
        base = values(dtype, 0, seed).reshape(0, 4)
    elif layout == "expanded":
        base = values(dtype, 4, seed).reshape(1, 4)
    elif layout == "noncontig":
        base = values(dtype, 4 * 6, seed).reshape(4, 6)
    else:
        base = values(dtype, 12, seed).reshape(3, 4)
    t = from_numpy(m, base.copy())
    if layout == "expanded":
        return t.expand(3, 4)
    if layout == "noncontig":
        return t[:, ::2].T if m is torch else t[:, ::2].T
    return t


class Aux:
    """Helper tensors of one library, shaped for ``x``."""

    def __init__(self, m: Any, x: Any) -> None:
        self.m = m
        self.x = x
        self.shape = tuple(x.shape)

    def t(self, data: Any, dtype: str = "int64") -> Any:
        return from_numpy(self.m, np.array(data, dtype=np_dtype(dtype)))

    def same(self, seed: int = 1, dtype: str | None = None) -> Any:
        """Another tensor of x's shape (contiguous) and dtype (or ``dtype``)."""
        name = dtype or str(self.x.dtype).removeprefix("torch.").removeprefix("strided.")
        n = math.prod(self.shape)
        return from_numpy(self.m, values(name, n, seed).reshape(self.shape))

    def index(self) -> Any:
        """Indices in range along dim 0 of x, of x's shape (gather/scatter)."""
        d0 = self.shape[0] if self.shape else 1
        n = math.prod(self.shape)
        return self.t((np.arange(n) % max(d0, 1)).reshape(self.shape))

    def mask(self) -> Any:
        n = math.prod(self.shape)
        return self.t((np.arange(n) % 3 == 0).reshape(self.shape), "bool")

    def sorted_seq(self) -> Any:
        name = str(self.x.dtype).removeprefix("torch.").removeprefix("strided.")
        return from_numpy(self.m, np.sort(values(name, 5, 3)))

    def dtype(self, name: str) -> Any:
        return getattr(self.m, name)


def _d0(x: Any) -> int:
    return 1 if x.dim() else 0


Call = Callable[[Any, Any, Aux], Any]

_U = ("isnan isinf isfinite isposinf isneginf signbit logical_not floor ceil trunc fix frac sign sgn square "
      "log1p expm1 log2 log10 exp2 rsqrt reciprocal erf erfc erfinv tan asin arcsin acos arccos atan arctan "
      "sinh cosh asinh arcsinh acosh arccosh atanh arctanh deg2rad rad2deg round nan_to_num").split()
_B = "hypot atan2 arctan2 copysign fmod logical_and logical_or logical_xor".split()


def _fn(name: str) -> Call:
    return lambda m, x, a: getattr(m, name)(x)


def _bin(name: str) -> Call:
    return lambda m, x, a: getattr(m, name)(x, a.same())


CASES: list[tuple[str, Call]] = [
    # joining
    ("atleast_1d", _fn("atleast_1d")), ("atleast_2d", _fn("atleast_2d")), ("atleast_3d", _fn("atleast_3d")),
    ("broadcast_tensors", lambda m, x, a: m.broadcast_tensors(x, a.same())),
    ("tensor_split", lambda m, x, a: m.tensor_split(x, 2)),
    ("hsplit", lambda m, x, a: m.hsplit(x, 2)), ("vsplit", lambda m, x, a: m.vsplit(x, [1])),
    ("dsplit", lambda m, x, a: m.dsplit(x, 2)),
    ("cat", lambda m, x, a: m.cat([x, a.same()])),
    ("cat.mixed", lambda m, x, a: m.cat([x, a.same(dtype="float32")])),
    ("cat.mixed_int", lambda m, x, a: m.cat([x, a.same(dtype="int8")])),
    ("concat", lambda m, x, a: m.concat([x, x])), ("concatenate", lambda m, x, a: m.concatenate([x, x])),
    ("stack", lambda m, x, a: m.stack([x, a.same()])),
    ("stack.mixed", lambda m, x, a: m.stack([x, a.same(dtype="uint8")])),
    ("hstack", lambda m, x, a: m.hstack([x, x])), ("vstack", lambda m, x, a: m.vstack([x, x])),
    ("row_stack", lambda m, x, a: m.row_stack([x, x])), ("dstack", lambda m, x, a: m.dstack([x, x])),
    ("column_stack", lambda m, x, a: m.column_stack([x, x])),
    # triangles
    ("meshgrid", lambda m, x, a: m.meshgrid(x.flatten(), x.flatten(), indexing="ij")),
    ("tril", lambda m, x, a: m.tril(x)), ("triu", lambda m, x, a: m.triu(x, 1)),
    ("tril_", lambda m, x, a: x.clone().tril_()), ("triu_", lambda m, x, a: x.clone().triu_(-1)),
    ("diag", lambda m, x, a: m.diag(x)), ("diag.1d", lambda m, x, a: m.diag(x.flatten(), 1)),
    ("diag_embed", lambda m, x, a: m.diag_embed(x)), ("diagflat", lambda m, x, a: m.diagflat(x)),
    ("block_diag", lambda m, x, a: m.block_diag(x, a.same(dtype="int32"))),
    ("cartesian_prod", lambda m, x, a: m.cartesian_prod(x.flatten(), x.flatten())),
    # reorder
    ("flip", lambda m, x, a: m.flip(x, [0])), ("fliplr", _fn("fliplr")), ("flipud", _fn("flipud")),
    ("roll", lambda m, x, a: m.roll(x, 1)), ("roll.dim", lambda m, x, a: m.roll(x, -1, 0)),
    ("rot90", lambda m, x, a: m.rot90(x)), ("tile", lambda m, x, a: m.tile(x, (2,))),
    ("repeat_interleave", lambda m, x, a: m.repeat_interleave(x, 2, dim=0)),
    ("repeat_interleave.flat", lambda m, x, a: m.repeat_interleave(x, 2)),
    # sorting
    ("sort", lambda m, x, a: m.sort(x)), ("sort.stable", lambda m, x, a: m.sort(x, dim=0, descending=True,
                                                                                  stable=True)),
    ("argsort", lambda m, x, a: m.argsort(x)), ("msort", _fn("msort")),
    # (topk's indices of tied values are unspecified: its values, and the indices of distinct values)
    ("topk", lambda m, x, a: m.topk(x, 1).values), ("topk.distinct", lambda m, x, a: m.topk(x.flatten().unique(), 2)),
    ("kthvalue", lambda m, x, a: m.kthvalue(x, 1)),
    # scans
    ("cumsum", lambda m, x, a: m.cumsum(x, 0)), ("cumprod", lambda m, x, a: m.cumprod(x, 0)),
    ("cumsum.dtype", lambda m, x, a: m.cumsum(x, 0, dtype=a.dtype("float64"))),
    ("cumsum_", lambda m, x, a: x.clone().cumsum_(0)), ("cumprod_", lambda m, x, a: x.clone().cumprod_(0)),
    ("cummax", lambda m, x, a: m.cummax(x, 0)), ("cummin", lambda m, x, a: m.cummin(x, 0)),
    ("diff", lambda m, x, a: m.diff(x)), ("diff.prepend", lambda m, x, a: m.diff(x, dim=0, prepend=x)),
    # sets
    ("unique", lambda m, x, a: m.unique(x, return_inverse=True, return_counts=True)),
    ("unique.dim", lambda m, x, a: m.unique(x, dim=0)),
    ("unique_consecutive", lambda m, x, a: m.unique_consecutive(x, return_counts=True)),
    # searching
    ("searchsorted", lambda m, x, a: m.searchsorted(a.sorted_seq(), x)),
    ("searchsorted.right", lambda m, x, a: m.searchsorted(a.sorted_seq(), x, right=True)),
    ("bucketize", lambda m, x, a: m.bucketize(x, a.sorted_seq())),
    # gather / scatter
    ("gather", lambda m, x, a: m.gather(x, 0, a.index())),
    ("take", lambda m, x, a: m.take(x, a.t([0, -1]))),
    ("take_along_dim", lambda m, x, a: m.take_along_dim(x, a.index(), dim=0)),
    ("take_along_dim.flat", lambda m, x, a: m.take_along_dim(x, a.t([0]))),
    ("scatter", lambda m, x, a: m.scatter(x, 0, a.index(), a.same())),
    ("scatter.value", lambda m, x, a: m.scatter(x, 0, a.index(), 2)),
    ("scatter_", lambda m, x, a: x.clone().scatter_(0, a.index(), a.same())),
    ("scatter_add", lambda m, x, a: m.scatter_add(x, 0, a.index(), a.same())),
    ("scatter_add_", lambda m, x, a: x.clone().scatter_add_(0, a.index(), a.same())),
    ("scatter_reduce.sum", lambda m, x, a: m.scatter_reduce(x, 0, a.index(), a.same(), "sum")),
    ("scatter_reduce.prod", lambda m, x, a: m.scatter_reduce(x, 0, a.index(), a.same(), "prod")),
    ("scatter_reduce.mean", lambda m, x, a: m.scatter_reduce(x, 0, a.index(), a.same(), "mean")),
    ("scatter_reduce.amax", lambda m, x, a: m.scatter_reduce(x, 0, a.index(), a.same(), "amax")),
    ("scatter_reduce.amin", lambda m, x, a: m.scatter_reduce(x, 0, a.index(), a.same(), "amin",
                                                             include_self=False)),
    # index ops
    ("index_select", lambda m, x, a: m.index_select(x, _d0(x), a.t([0, 0]))),
    ("index_add", lambda m, x, a: m.index_add(x, 0, a.t([0, 1, 0][: x.shape[0]] if x.dim() else [0]), a.same())),
    ("index_add.alpha", lambda m, x, a: m.index_add(x, 0, a.t(list(range(x.shape[0])) if x.dim() else [0]),
                                                     a.same(), alpha=2)),
    ("index_add_", lambda m, x, a: x.clone().index_add_(0, a.t(list(range(x.shape[0])) if x.dim() else [0]),
                                                        a.same())),
    ("index_copy", lambda m, x, a: m.index_copy(x, 0, a.t(list(range(x.shape[0]))[::-1] if x.dim() else [0]),
                                                 a.same())),
    ("index_copy_", lambda m, x, a: x.clone().index_copy_(0, a.t(list(range(x.shape[0]))
                                                                   if x.dim() else [0]), a.same())),
    ("index_fill", lambda m, x, a: m.index_fill(x, _d0(x), a.t([0]), 1)),
    ("index_fill.float", lambda m, x, a: m.index_fill(x, _d0(x), a.t([0]), 1.5)),
    ("index_fill_", lambda m, x, a: x.clone().index_fill_(_d0(x), a.t([0]), -1)),
    # masked
    ("masked_select", lambda m, x, a: m.masked_select(x, a.mask())),
    ("nonzero", _fn("nonzero")), ("nonzero.tuple", lambda m, x, a: m.nonzero(x, as_tuple=True)),
    ("argwhere", _fn("argwhere")),
    ("masked_fill", lambda m, x, a: m.masked_fill(x, a.mask(), 3)),
    ("masked_fill.float", lambda m, x, a: m.masked_fill(x, a.mask(), 0.5)),
    ("masked_fill.neg", lambda m, x, a: m.masked_fill(x, a.mask(), -1)),
    ("masked_fill_", lambda m, x, a: x.clone().masked_fill_(a.mask(), True)),
    ("masked_scatter", lambda m, x, a: m.masked_scatter(x, a.mask(), a.same())),
    ("masked_scatter_", lambda m, x, a: x.clone().masked_scatter_(a.mask(), a.same())),
    # copies
    ("alias_copy", _fn("alias_copy")), ("detach_copy", _fn("detach_copy")),
    ("as_strided_copy", lambda m, x, a: m.as_strided_copy(x, (2,), (1,))),
    ("diagonal_copy", _fn("diagonal_copy")),
    ("expand_copy", lambda m, x, a: m.expand_copy(x, (2, *x.shape))),
    ("narrow_copy", lambda m, x, a: m.narrow_copy(x, 0, 0, 1)),
    ("permute_copy", lambda m, x, a: m.permute_copy(x, list(range(x.dim()))[::-1])),
    ("select_copy", lambda m, x, a: m.select_copy(x, 0, 0)),
    ("slice_copy", lambda m, x, a: m.slice_copy(x, 0, 0, 2)),
    ("split_copy", lambda m, x, a: m.split_copy(x, 2)),
    ("split_with_sizes_copy", lambda m, x, a: m.split_with_sizes_copy(x, [1, x.shape[0] - 1] if x.dim() else [1])),
    ("squeeze_copy", _fn("squeeze_copy")), ("t_copy", _fn("t_copy")),
    ("transpose_copy", lambda m, x, a: m.transpose_copy(x, 0, -1)),
    ("unbind_copy", _fn("unbind_copy")), ("unfold_copy", lambda m, x, a: m.unfold_copy(x, 0, 1, 1)),
    ("unsqueeze_copy", lambda m, x, a: m.unsqueeze_copy(x, 0)),
    ("view_copy", lambda m, x, a: m.view_copy(x, (-1,))),
    # complex
    ("real", _fn("real")), ("imag", _fn("imag")), ("view_as_real", _fn("view_as_real")),
    ("view_as_complex", lambda m, x, a: m.view_as_complex(m.stack([x, x], -1))),
    ("resolve_conj", _fn("resolve_conj")), ("adjoint", _fn("adjoint")), ("conj", _fn("conj")),
    ("conj_physical", _fn("conj_physical")), ("angle", _fn("angle")),
    ("polar", lambda m, x, a: m.polar(x, a.same())), ("complex", lambda m, x, a: m.complex(x, a.same())),
    # unary
    *[(n, _fn(n)) for n in _U],
    ("round.decimals", lambda m, x, a: m.round(x, decimals=1)),
    ("nan_to_num.args", lambda m, x, a: m.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0)),
    # binary
    *[(n, _bin(n)) for n in _B],
    ("fmod.scalar", lambda m, x, a: m.fmod(x, 2)), ("fmod.zero", lambda m, x, a: m.fmod(x, 0)),
    ("fmod.float", lambda m, x, a: m.fmod(x, 1.5)),
    ("copysign.scalar", lambda m, x, a: m.copysign(x, -1)),
    ("hypot.int", lambda m, x, a: m.hypot(x, a.same(dtype="int64"))),
    ("atan2.f", lambda m, x, a: m.atan2(x, a.same(dtype="float32"))),
    ("logical_and.f", lambda m, x, a: m.logical_and(x, a.same(dtype="float64"))),
    ("lerp", lambda m, x, a: m.lerp(x, a.same(), 0.5)),
    ("lerp.tensor", lambda m, x, a: m.lerp(x, a.same(), a.same(2))),
    ("isclose", lambda m, x, a: m.isclose(x, a.same())),
    ("isclose.self", lambda m, x, a: m.isclose(x, x)),
    ("isclose.f", lambda m, x, a: m.isclose(x, a.same(dtype="float32"))),
    # nan reductions
    ("amax", _fn("amax")), ("amin", lambda m, x, a: m.amin(x, 0)), ("aminmax", _fn("aminmax")),
    ("aminmax.dim", lambda m, x, a: m.aminmax(x, dim=0)),
    ("nansum", _fn("nansum")), ("nansum.dim", lambda m, x, a: m.nansum(x, 0)),
    ("nanmean", _fn("nanmean")), ("logsumexp", lambda m, x, a: m.logsumexp(x, 0)),
    ("count_nonzero", _fn("count_nonzero")), ("count_nonzero.dim", lambda m, x, a: m.count_nonzero(x, 0)),
    ("norm", _fn("norm")), ("norm.1", lambda m, x, a: m.norm(x, 1)), ("norm.inf", lambda m, x, a: m.norm(x, float("inf"))),
    ("norm.fro", lambda m, x, a: m.norm(x, "fro")), ("norm.dim", lambda m, x, a: m.norm(x, dim=0)),
    # distance
    ("cdist", lambda m, x, a: m.cdist(x, a.same())), ("cdist.1", lambda m, x, a: m.cdist(x, a.same(), p=1)),
]

_INPLACE_UNARY = ("floor ceil trunc fix frac sign sgn square log1p expm1 log2 log10 exp2 rsqrt reciprocal erf erfc "
                  "erfinv tan asin arcsin acos arccos atan arctan sinh cosh asinh arcsinh acosh arccosh atanh "
                  "arctanh deg2rad rad2deg round nan_to_num logical_not").split()


def _inplace(name: str, binary: bool = False) -> Call:
    def call(m: Any, x: Any, a: Aux) -> Any:
        return getattr(x.clone(), name + "_")(*((a.same(),) if binary else ()))

    return call


CASES += [(n + "_", _inplace(n)) for n in _INPLACE_UNARY]
CASES += [(n + "_", _inplace(n, True)) for n in _B]
CASES += [("lerp_", lambda m, x, a: x.clone().lerp_(a.same(), 0.25)),
          ("flip.method", lambda m, x, a: x.flip(0)), ("sort.method", lambda m, x, a: x.sort(0)),
          ("amax.method", lambda m, x, a: x.amax()), ("cumsum.method", lambda m, x, a: x.cumsum(0)),
          ("norm.method", lambda m, x, a: x.norm()), ("nan_to_num.method", lambda m, x, a: x.nan_to_num()),
          ("isclose.method", lambda m, x, a: x.isclose(x))]


def _builtin(exc: BaseException) -> type:
    return next((c for c in BUILTINS if isinstance(exc, c)), type(exc))


def _flat(r: Any) -> list[Any]:
    if isinstance(r, (tuple, list)):
        return [y for v in r for y in _flat(v)]
    return [r]


def _compare_values(tr: Any, sr: Any) -> str | None:
    tl, sl = _flat(tr), _flat(sr)
    if len(tl) != len(sl):
        return f"{len(sl)} results, torch {len(tl)}"
    for i, (t, s) in enumerate(zip(tl, sl)):
        if not isinstance(t, torch.Tensor):
            if isinstance(s, st.Tensor) or t != s:
                return f"[{i}] {s!r} != torch {t!r}"
            continue
        if not isinstance(s, st.Tensor):
            return f"[{i}] {type(s).__name__}, torch a tensor"
        tn = str(t.dtype).removeprefix("torch.")
        if s.dtype.name != tn:
            return f"[{i}] dtype {s.dtype.name}, torch {tn}"
        if tuple(s.shape) != tuple(t.shape):
            return f"[{i}] shape {tuple(s.shape)}, torch {tuple(t.shape)}"
        tv = to_numpy(t.resolve_conj().resolve_neg())
        sv = s.numpy()
        rtol = 2e-2 if tv.dtype == np.float16 else 1e-4
        if tv.dtype.name == "bfloat16":  # compared as float32, to bfloat16's precision (8 bits)
            tv, sv, rtol = tv.astype(np.float32), sv.astype(np.float32), 1e-2
        if tv.dtype.kind in "fc":
            if sv.shape == tv.shape and np.allclose(sv, tv, rtol=rtol, atol=rtol, equal_nan=True):
                continue
        elif np.array_equal(sv, tv):
            continue
        try:  # (NumPy's report of the difference)
            np.testing.assert_allclose(sv, tv, rtol=rtol, atol=rtol, equal_nan=True)
            return f"[{i}] values differ"
        except AssertionError as e:
            lines = [ln for ln in str(e).splitlines() if ln.strip()]
            return f"[{i}] values differ: {' | '.join(lines[1:4])[:200]}"
    return None


def run(fn: Callable[[], Any]) -> tuple[Any, BaseException | None, list[str]]:
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = fn()
            e = None
        except Exception as exc:  # noqa: BLE001 - compared
            r, e = None, exc
    return r, e, [f"{x.category.__name__}: {x.message}" for x in w]


# Deliberate differences (``# Note:`` in the op modules): (case, dtype names, layouts)
KNOWN: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    # PyTorch flattens with view(-1): a non-contiguous or expanded input raises there
    ("take_along_dim.flat", (), ("noncontig", "expanded")),
    # (day 26: flip/fliplr/flipud/rot90 of uint16/32/64 raise where PyTorch's flip_cpu is reached:
    # no longer a difference, tests/test_unsigned_flip_put.py)
    # strided has no complex32 (NumPy has none)
    ("view_as_complex", ("float16",), ()), ("complex", ("float16",), ()),
    # PyTorch's scatter_reduce(mean) of an empty bool/uint16-64 tensor reaches a refusing kernel
    ("scatter_reduce.mean", ("bool", "uint16", "uint32", "uint64"), ("empty",)),
)


def known(name: str, dtype: str, layout: str) -> bool:
    """Whether this difference is one of :data:`KNOWN` (empty tuples match everything)."""
    return any(n == name and (not ds or dtype in ds) and (not ls or layout in ls) for n, ds, ls in KNOWN)


def run_case(name: str, call: Call, dtype: str, layout: str) -> str | None:
    """None when torch and strided agree on ``call`` for x of ``dtype`` and ``layout``."""
    xt, xs = build(torch, dtype, layout), build(st, dtype, layout)
    tr, te, _ = run(lambda: call(torch, xt, Aux(torch, xt)))
    sr, se, sw = run(lambda: call(st, xs, Aux(st, xs)))
    if sw and any("RuntimeWarning" in w or "ComplexWarning" in w for w in sw):
        return f"warning escaped: {sw[0][:150]}"
    if se is not None and not isinstance(se, st.StridedError):
        return f"raw {type(se).__name__}: {str(se).splitlines()[0][:150] if str(se) else ''}"
    if te is not None or se is not None:
        if te is None:
            return f"strided raised {type(se).__name__}: {str(se).splitlines()[0][:150]}"
        if se is None:
            return f"torch raised {type(te).__name__}: {str(te).splitlines()[0][:150]}"
        if _builtin(se) is not _builtin(te):
            return f"class {type(se).__name__}, torch {type(te).__name__}: {str(te).splitlines()[0][:120]}"
        s1, t1 = str(se).splitlines()[0], str(te).splitlines()[0]
        if s1 != t1:
            return f"first line {s1[:90]!r} != torch {t1[:90]!r}"
        return None
    return _compare_values(tr, sr)


def main() -> None:
    n = bad = 0
    for name, call in CASES:
        for d in ALL_DTYPES:
            for lay in LAYOUTS:
                n += 1
                msg = run_case(name, call, d.name, lay)
                if msg and not known(name, d.name, lay):
                    bad += 1
                    print(f"{name:24} {d.name:10} {lay:9} {msg}")
    print(f"{bad} of {n} differ")


if __name__ == "__main__":
    main()
