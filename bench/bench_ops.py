"""Every op, automatically: each op of the registry timed against PyTorch and NumPy, printed as ratios.

Run from the repository root:

    .venv/bin/python bench/bench_ops.py               # a few minutes
    .venv/bin/python bench/bench_ops.py --quick       # fewer repeats, noisier
    .venv/bin/python bench/bench_ops.py --only sum    # one op (repeatable: --only sum --only mean)

How it works
------------
NumPy is a peer only where its op computes the same result as a new array (``numpy.flipud``, a view,
is not). Sorting rows compare values and indices exactly (strided follows PyTorch's order of
ties). The LAPACK-backed ops compare what PyTorch specifies: ``SPECIFIED`` for the ops with
several results (cholesky_ex's info, and its factor where info is 0; eigh/svd values, vectors up
to sign and the rebuilt matrix; lstsq's rank and a solution within cond(A) * eps, or at a rank below
full its residual within 10% of torch's: :func:`_truncated_lstsq_differs`), and
``_linalg_differs`` for the others (values to a float32 LAPACK's accuracy relative to their
magnitude: inverse, solve, pinv of an ill-conditioned random 1024 x 1024 matrix).

The script walks the op registry (``strided.opdef.OPDEFS``, one entry per op object) and, for
each op, makes its arguments generically: an op listed in ``MAKERS`` (below) gets its own
argument maker; any other op is tried on one float tensor, then on two, and the first call that
runs in both strided and PyTorch is kept. Reductions (``REDUCTIONS``) get a row per dim besides the
full reduction. The op is called as ``strided.<name>`` (or the Tensor method) and
``torch.<name>`` (or the Tensor method), and as ``numpy.<name>`` (or the name in ``NUMPY``) where
NumPy has the op with the same arguments (``dim`` passed as ``axis``). Before anything is timed,
strided's result is compared with PyTorch's; a row whose results differ is reported (with the
difference) and not timed: a timing of different work means nothing.

Each op runs on (3, 4) and (16, 16) float32 tensors (small: the per-op overhead) and on
(1024, 1024) ones (large, 2^20 elements), contiguous and permuted (the transpose of a contiguous
array, in all three libraries). Ops that cannot run on generated inputs are skipped, and the
skipped list is printed with each reason.

Targets (issue 23): small sizes strided/torch <= 1.0; large sizes strided over the faster of
NumPy and PyTorch <= 1.0. PyTorch runs on one thread, NumPy's BLAS on one thread. Nothing here is
a test: timings vary with the machine and its load. A large row that misses says ``call cost``
where the run shows why: strided is slower than the faster peer by no more than strided's own
per-call cost over that peer, timed on the small (3, 4) input in the same run, each call made
after 8 MB were copied: a large row's kernel streams its megabytes through the caches, and the
next call's Python code runs cold (strided's isnan on (3, 4): 2.5 us warm, 7 us cold; NumPy's
0.4 and 1.6). The kernel keeps the peer's pace; the gap is the fixed cost of a call.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before NumPy/PyTorch load their BLAS: every library on one thread

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import strided  # noqa: E402
import strided.nn.functional  # noqa: E402,F401  (lazy in strided: its F.<name> ops join the registry walk)
from harness import fmt_time, measure, print_header  # noqa: E402
from strided.opdef import OPDEFS  # noqa: E402

torch.set_num_threads(1)
warnings.filterwarnings("ignore")


class Skip(Exception):
    """An argument maker's refusal: the op cannot run on this configuration (the message says why)."""


@dataclass(frozen=True)
class Config:
    """One input configuration: a label, the 2-D shape of the generated tensors, whether they are
    the transpose of a contiguous array, and whether it is a large one (the target differs)."""

    label: str
    shape: tuple[int, int]
    permuted: bool = False
    large: bool = False


SMALL = (Config("(3,4)", (3, 4)), Config("(16,16)", (16, 16)))
LARGE = (Config("1M", (1024, 1024), large=True), Config("1M perm", (1024, 1024), True, large=True))

_rng = np.random.default_rng(0)


def arr(cfg: Config, shape: tuple[int, ...] | None = None, kind: str = "float") -> np.ndarray:
    """A generated NumPy array of ``shape`` (default ``cfg.shape``): floats in (0.1, 0.9) (every
    domain-limited op is defined there), ``"int"`` int32 in [0, 8), ``"bool"``, ``"complex"``;
    the transpose of a contiguous array when ``cfg.permuted`` (for 2-D and more)."""
    shape = cfg.shape if shape is None else shape
    make = shape[::-1] if cfg.permuted and len(shape) >= 2 else shape
    if kind == "int":
        a = _rng.integers(0, 8, make, dtype=np.int32)
    elif kind == "bool":
        a = _rng.random(make) > 0.5
    elif kind == "complex":
        a = (_rng.uniform(0.1, 0.9, make) + 1j * _rng.uniform(0.1, 0.9, make)).astype(np.complex64)
    else:
        a = _rng.uniform(0.1, 0.9, make).astype(np.float32)
    return a.T if cfg.permuted and len(shape) >= 2 else a


def index(cfg: Config, n: int, size: tuple[int, ...]) -> np.ndarray:
    """int64 indices in [0, n) of ``size`` (contiguous)."""
    return _rng.integers(0, n, size, dtype=np.int64)


Args = tuple[tuple[Any, ...], dict[str, Any]]


def _x(cfg: Config) -> np.ndarray:
    return arr(cfg)


def _xy(cfg: Config) -> tuple[np.ndarray, np.ndarray]:
    return arr(cfg), arr(cfg)


def _mixed(cfg: Config) -> np.ndarray:
    """:func:`arr`'s floats spread over (-3.1, 3.3), both signs (its layout): the branch an
    activation takes for x <= 0 (elu's expm1, silu's and softplus's other side), which (0.1, 0.9)
    never reaches."""
    return arr(cfg) * np.float32(8.0) - np.float32(3.9)


def _vec(cfg: Config) -> np.ndarray:
    """A 1-D float vector with as many elements as the configuration's tensors."""
    return _rng.uniform(0.1, 0.9, cfg.shape[0] * cfg.shape[1]).astype(np.float32)


def _mask(cfg: Config) -> np.ndarray:
    return arr(cfg, kind="bool")


def _small_only(cfg: Config, why: str) -> None:
    if cfg.large:
        raise Skip(why)


def _rows(cfg: Config) -> int:
    return cfg.shape[0]


def _cols(cfg: Config) -> int:
    return cfg.shape[1]


def _diag_embed(cfg: Config) -> Args:
    _small_only(cfg, "output has n^3 elements at the large size")
    return (_x(cfg),), {}


def _diagflat(cfg: Config) -> Args:
    _small_only(cfg, "output has n^2 elements of a 1M input at the large size")
    return (_x(cfg),), {}


def _outer(cfg: Config) -> Args:
    n = 1024 if cfg.large else cfg.shape[0] * cfg.shape[1]
    return (_rng.uniform(0.1, 0.9, n).astype(np.float32), _rng.uniform(0.1, 0.9, n).astype(np.float32)), {}


def _cartesian(cfg: Config) -> Args:
    n = 1024 if cfg.large else cfg.shape[1]
    return (_rng.uniform(0.1, 0.9, n).astype(np.float32), _rng.uniform(0.1, 0.9, n).astype(np.float32)), {}


def _meshgrid(cfg: Config) -> Args:
    a, b = _cartesian(cfg)[0]
    return (a, b), {"indexing": "ij"}


def _mm(cfg: Config) -> Args:
    m, n = cfg.shape
    return (arr(cfg), arr(cfg, (n, m))), {}


def _bmm(cfg: Config) -> Args:
    m, n = (512, 512) if cfg.large else cfg.shape
    return (arr(cfg, (4, m, n)), arr(cfg, (4, n, m))), {}


def _cdist(cfg: Config) -> Args:
    _small_only(cfg, "bench_cdist.py times it at size")
    return (arr(cfg), arr(cfg)), {}


def _gather(cfg: Config) -> Args:
    return (_x(cfg), 1, index(cfg, _cols(cfg), cfg.shape)), {}


def _take_along(cfg: Config) -> Args:
    return (_x(cfg), index(cfg, _cols(cfg), cfg.shape)), {"dim": 1}


def _take(cfg: Config) -> Args:
    return (_x(cfg), index(cfg, _rows(cfg) * _cols(cfg), (_rows(cfg) * _cols(cfg),))), {}


def _put(cfg: Config) -> Args:
    n = _rows(cfg)  # (a row's worth of places anywhere in the flattened input; put returns a copy)
    return (_x(cfg), index(cfg, _rows(cfg) * _cols(cfg), (n,)), arr(cfg, (n,))), {}


def _index_select(cfg: Config) -> Args:
    return (_x(cfg), 0, index(cfg, _rows(cfg), (_rows(cfg),))), {}


def _index_add(cfg: Config) -> Args:
    return (_x(cfg), 0, index(cfg, _rows(cfg), (_rows(cfg),)), arr(cfg)), {}


def _index_fill(cfg: Config) -> Args:
    return (_x(cfg), 0, index(cfg, _rows(cfg), (_rows(cfg),)), 0.5), {}


def _index_put(cfg: Config) -> Args:
    n = _rows(cfg)
    return (_x(cfg), (index(cfg, n, (n,)),), arr(cfg, (n, _cols(cfg)))), {}


def _scatter(cfg: Config) -> Args:
    return (_x(cfg), 1, index(cfg, _cols(cfg), cfg.shape), arr(cfg)), {}


def _scatter_reduce(cfg: Config) -> Args:
    return (_x(cfg), 1, index(cfg, _cols(cfg), cfg.shape), arr(cfg), "sum"), {}


def _masked_fill(cfg: Config) -> Args:
    return (_x(cfg), _mask(cfg), 0.5), {}


def _masked_scatter(cfg: Config) -> Args:
    return (_x(cfg), _mask(cfg), arr(cfg)), {}


def _masked_select(cfg: Config) -> Args:
    return (_x(cfg), _mask(cfg)), {}


def _where(cfg: Config) -> Args:
    return (_mask(cfg), _x(cfg), arr(cfg)), {}


def _searchsorted(cfg: Config) -> Args:
    return (np.sort(_vec(cfg)), _x(cfg)), {}


def _bucketize(cfg: Config) -> Args:
    return (_x(cfg), np.sort(_vec(cfg))), {}


def _ints(cfg: Config) -> Args:
    return (arr(cfg, kind="int"), arr(cfg, kind="int")), {}


def _int(cfg: Config) -> Args:
    return (arr(cfg, kind="int"),), {}


def _complex(cfg: Config) -> Args:
    return (arr(cfg, kind="complex"),), {}


def _pairs(cfg: Config) -> Args:
    return (arr(cfg, (cfg.shape[0] * cfg.shape[1] // 2, 2)),), {}


def _join(cfg: Config) -> Args:
    return ([_x(cfg), arr(cfg)],), {}


def _three(cfg: Config) -> Args:
    return (_x(cfg), arr(cfg), arr(cfg)), {}


def _with(*extra: Any, **kw: Any) -> Callable[[Config], Args]:
    """A maker: one float tensor, then ``extra`` positional arguments and ``kw``."""
    return lambda cfg: ((_x(cfg), *extra), kw)


def _with2(*extra: Any, **kw: Any) -> Callable[[Config], Args]:
    """A maker: two float tensors, then ``extra`` and ``kw``."""
    return lambda cfg: ((_x(cfg), arr(cfg), *extra), kw)


def _shape_arg(cfg: Config) -> Args:
    return (_x(cfg), cfg.shape), {}


def _as_strided(cfg: Config) -> Args:
    m, n = cfg.shape
    return (_x(cfg), (m // 2, n), (2 * n, 1)), {}


def _dsplit(cfg: Config) -> Args:
    m, n = cfg.shape
    return (arr(cfg, (m, n, 2)), 2), {}


def _unflatten(cfg: Config) -> Args:
    return (_x(cfg), 1, (2, _cols(cfg) // 2)), {}


def _fused(cfg: Config) -> Args:
    """addmm's (input, mat1, mat2): an (m, m) result of an (m, n) @ (n, m) product."""
    m, n = cfg.shape
    return (arr(cfg, (m, m)), arr(cfg), arr(cfg, (n, m))), {"beta": 0.5, "alpha": 2.0}


def _fused_batched(cfg: Config, summed: bool) -> Args:
    m, n = (512, 512) if cfg.large else cfg.shape
    return (arr(cfg, (m, m) if summed else (4, m, m)), arr(cfg, (4, m, n)), arr(cfg, (4, n, m))), {"beta": 0.5}


def _addmv(cfg: Config) -> Args:
    m, n = cfg.shape
    return (arr(cfg, (m,)), arr(cfg), arr(cfg, (n,))), {"alpha": 2.0}


def _addr(cfg: Config) -> Args:
    m, n = cfg.shape
    return (arr(cfg), arr(cfg, (m,)), arr(cfg, (n,))), {"beta": 0.5}


def _square(cfg: Config) -> np.ndarray:
    """An (m, m) float matrix, m the configuration's first dim (a (3, 4) configuration gives 3 x 3)."""
    m = cfg.shape[0]
    return arr(cfg, (m, m))


def _spd(cfg: Config) -> np.ndarray:
    """A symmetric positive-definite (m, m) matrix (cholesky's input: its factorization succeeds)."""
    a = _square(cfg)
    spd = (a @ a.T + a.shape[0] * np.eye(a.shape[0], dtype=np.float32)).astype(np.float32)
    return spd.T.copy().T if cfg.permuted else spd  # (symmetric: the permuted one is its column-major copy)


def _symmetric(cfg: Config) -> np.ndarray:
    a = _square(cfg)
    sym = ((a + a.T) / 2).astype(np.float32)
    return sym.T.copy().T if cfg.permuted else sym


def _cross(cfg: Config) -> Args:
    k = max(1, cfg.shape[0] * cfg.shape[1] // 3)
    return (arr(cfg, (k, 3)), arr(cfg, (k, 3))), {"dim": 1}


def _index_reduce(cfg: Config) -> Args:
    m, _ = cfg.shape
    return (_x(cfg), 0, index(cfg, m, (m,)), arr(cfg), "prod"), {}


def _tensordot(cfg: Config) -> Args:
    m, n = cfg.shape
    return (arr(cfg), arr(cfg, (n, m))), {"dims": 1}


def _new_size(extra: tuple = ()) -> Callable[[Config], Args]:
    """A maker for ``t.new_*(size, *extra)``: a float tensor and the configuration's shape."""
    return lambda cfg: ((_x(cfg), cfg.shape, *extra), {})


def _index_pair(cfg: Config) -> Args:
    """tril_indices/triu_indices(row, col): the configuration's shape."""
    return cfg.shape, {}


def _unravel(cfg: Config) -> Args:
    n = cfg.shape[0] * cfg.shape[1]
    return (index(cfg, n, (n,)), cfg.shape), {}


# Ops whose arguments the generic tries (one tensor, two) would not find, or find wrongly.
MAKERS: dict[str, Callable[[Config], Args]] = {
    "clamp": _with(min=0.3, max=0.6), "where": _where,
    "softmax": _with(dim=-1), "log_softmax": _with(dim=-1), "logsumexp": _with(dim=-1),
    "matmul": _mm, "mm": _mm, "bmm": _bmm, "dot": lambda cfg: ((_vec(cfg), _vec(cfg)), {}),
    "addmm": _fused, "addmv": _addmv, "addr": _addr, "baddbmm": lambda cfg: _fused_batched(cfg, False),
    "addbmm": lambda cfg: _fused_batched(cfg, True), "vander": lambda cfg: ((_vec(cfg),), {}),
    "logcumsumexp": _with(1),
    "outer": _outer, "einsum": lambda cfg: (("ij,jk->ik", *_mm(cfg)[0]), {}), "cdist": _cdist,
    "bitwise_and": _ints, "bitwise_or": _ints, "bitwise_xor": _ints, "bitwise_not": _int,
    "bitwise_left_shift": _ints, "bitwise_right_shift": _ints, "gcd": _ints, "lcm": _ints,
    "lerp": _with2(0.5), "addcmul": _three, "addcdiv": _three,
    "gather": _gather, "take": _take, "put": _put, "take_along_dim": _take_along, "index_select": _index_select,
    "index_add": _index_add, "index_copy": _index_add, "index_fill": _index_fill, "index_put": _index_put,
    "index_put_": _index_put, "scatter": _scatter, "scatter_add": _scatter, "scatter_reduce": _scatter_reduce,
    "masked_fill": _masked_fill, "masked_scatter": _masked_scatter, "masked_select": _masked_select,
    "searchsorted": _searchsorted, "bucketize": _bucketize,
    "bincount": lambda cfg: ((index(cfg, 16, (cfg.shape[0] * cfg.shape[1],)),), {}), "cross": _cross,
    "det": lambda cfg: ((_square(cfg),), {}), "logdet": lambda cfg: ((_spd(cfg),), {}),
    "slogdet": lambda cfg: ((_square(cfg),), {}), "linalg_slogdet": lambda cfg: ((_square(cfg),), {}),
    "inverse": lambda cfg: ((_spd(cfg),), {}), "linalg_inv_ex": lambda cfg: ((_spd(cfg),), {}),
    "linalg_cholesky": lambda cfg: ((_spd(cfg),), {}), "linalg_cholesky_ex": lambda cfg: ((_spd(cfg),), {}),
    "linalg_eigh": lambda cfg: ((_symmetric(cfg),), {}), "linalg_eigvalsh": lambda cfg: ((_symmetric(cfg),), {}),
    "linalg_solve": lambda cfg: ((_spd(cfg), arr(cfg, (cfg.shape[0], 2))), {}),
    "linalg_solve_ex": lambda cfg: ((_spd(cfg), arr(cfg, (cfg.shape[0], 2))), {}),
    "matrix_power": lambda cfg: ((_square(cfg), 3), {}),
    "mv": lambda cfg: ((_x(cfg), arr(cfg, (cfg.shape[1],))), {}),
    "vdot": lambda cfg: ((_vec(cfg), _vec(cfg)), {}),
    "index_reduce": _index_reduce, "tensordot": _tensordot,
    "quantile": _with(0.3, dim=1), "nanquantile": _with(0.3, dim=1),
    "new_empty": _new_size(), "new_zeros": _new_size(), "new_ones": _new_size(), "new_full": _new_size((2.0,)),
    "polygamma": lambda cfg: ((1, _x(cfg)), {}),
    "tril_indices": _index_pair, "triu_indices": _index_pair, "unravel_index": _unravel,
    "cat": _join, "stack": _join, "hstack": _join, "vstack": _join, "row_stack": _join, "dstack": _join,
    "column_stack": _join, "block_diag": _with2(), "cartesian_prod": _cartesian, "meshgrid": _meshgrid,
    "broadcast_tensors": _with2(), "diag_embed": _diag_embed, "diagflat": _diagflat,
    "repeat_interleave": _with(2), "tile": _with((2, 1)), "roll": _with(1, 0), "rot90": _with(),
    "flip": _with((0,)), "topk": _with(2), "kthvalue": _with(2), "cumsum": _with(1), "cumprod": _with(1),
    "cummax": _with(1), "cummin": _with(1),
    "view": _with(-1), "reshape": _with((-1,)), "view_copy": _with((-1,)), "permute": _with((1, 0)),
    "permute_copy": _with((1, 0)), "transpose": _with(0, 1), "transpose_copy": _with(0, 1),
    "movedim": _with(0, 1), "expand": _shape_arg, "expand_copy": _shape_arg, "unsqueeze": _with(0),
    "unsqueeze_copy": _with(0), "narrow": _with(0, 0, 2), "narrow_copy": _with(0, 0, 2),
    "select": _with(0, 1), "select_copy": _with(0, 1), "slice_copy": _with(0, 0, 2), "split": _with(2),
    "split_copy": _with(2), "split_with_sizes_copy": lambda cfg: ((_x(cfg), [1, cfg.shape[0] - 1]), {}),
    "chunk": _with(2), "unfold": _with(0, 2, 1), "unfold_copy": _with(0, 2, 1), "as_strided": _as_strided,
    "as_strided_copy": _as_strided, "tensor_split": _with(2), "hsplit": _with(2), "vsplit": _with([1]),
    "dsplit": _dsplit, "unflatten": _unflatten, "view_as": _with2(), "expand_as": _with2(),
    "to": _with(torch.float64), "real": _complex, "imag": _complex, "view_as_real": _complex,
    "view_as_complex": _pairs, "conj": _complex, "conj_physical": _complex, "resolve_conj": _complex,
    "angle": _complex, "sgn": _complex, "__getitem__": _with(slice(1, None)),
    "getitem": _with(slice(1, None)),
    "slice_scatter": lambda cfg: ((_x(cfg), arr(cfg, (cfg.shape[0], (cfg.shape[1] + 1) // 2))),
                                  {"dim": 1, "start": 0, "end": None, "step": 2}),
    "select_scatter": lambda cfg: ((_x(cfg), arr(cfg, (cfg.shape[0],))), {"dim": 1, "index": 0}),
    "diagonal_scatter": lambda cfg: ((_x(cfg), arr(cfg, (min(cfg.shape),))), {}),
    "as_strided_scatter": lambda cfg: ((_x(cfg), arr(cfg, (min(cfg.shape),))),
                                       {"size": (min(cfg.shape),), "stride": (cfg.shape[1] + 1,)}),
}

# nn.functional's composed ops whose extra argument the generic tries do not give
MAKERS.update({
    "F.gaussian_nll_loss": lambda cfg: ((_x(cfg), _x(cfg), np.abs(arr(cfg)) + 0.1), {}),
    "F.prelu": lambda cfg: ((_x(cfg), np.full((1,), 0.25, np.float32)), {}),
    "threshold": lambda cfg: ((_mixed(cfg), 0.25, -1.0), {}),  # (its threshold and value: both required)
})


@dataclass(frozen=True)
class Raw:
    """An argument passed as it is to all three libraries (:func:`_convert` leaves it unconverted):
    from_numpy's NumPy array."""

    value: Any


def _param(*shape: int) -> np.ndarray:
    """A contiguous float32 parameter (a weight, a bias, running statistics) in (0.1, 0.9): a layer's
    own tensors are contiguous whatever the layout of its input."""
    return _rng.uniform(0.1, 0.9, shape).astype(np.float32)


def _conv1d(cfg: Config) -> Args:
    """A batch of m one-channel signals of length n, two output channels, a width-3 kernel, a bias."""
    m, n = cfg.shape
    return (arr(cfg, (m, 1, n)), _param(2, 1, 3), _param(2)), {}


def _conv2d(cfg: Config) -> Args:
    """One (m, n) one-channel image, a 3 x 3 kernel, a bias."""
    m, n = cfg.shape
    return (arr(cfg, (1, 1, m, n)), _param(1, 1, 3, 3), _param(1)), {}


def _pool(spatial: int) -> Callable[[Config], Args]:
    """A maker for the pooling ops: the (m, n) tensor as (1, m, n) (1-d: m channels of length n) or
    (1, 1, m, n) (2-d: one image), a window of 2 (its stride too)."""
    return lambda cfg: ((arr(cfg, (1,) * spatial + cfg.shape), 2), {})


def _batch_norm(cfg: Config) -> Args:
    """Inference batch norm of an (N, C) = (m, n) batch: running mean and variance, weight, bias."""
    n = _cols(cfg)
    return (_x(cfg), _param(n), _param(n), _param(n), _param(n)), {"training": False}


def _layer_norm(cfg: Config) -> Args:
    """Layer norm over the last dim (n), with weight and bias."""
    n = _cols(cfg)
    return (_x(cfg), (n,), _param(n), _param(n)), {}


def _embedding(cfg: Config) -> Args:
    """m int64 indices into the (m, n) table (vocabulary m, width n): an (m, n) result."""
    m = _rows(cfg)
    return (index(cfg, m, (m,)), _x(cfg)), {}


def _nll_loss(cfg: Config) -> Args:
    """Mean NLL of an (N, C) = (m, n) batch of log-probabilities (negative) and int64 class targets."""
    m, n = cfg.shape
    return (-_x(cfg), index(cfg, n, (m,))), {}


# nn.functional's layers and losses: their weights, windows, running statistics, targets (the
# shapes that make the op what a model calls, not a generic tensor)
MAKERS.update({
    "F.conv1d": _conv1d, "F.conv2d": _conv2d, "F.avg_pool1d": _pool(1), "F.max_pool1d": _pool(1),
    "F.avg_pool2d": _pool(2), "F.max_pool2d": _pool(2), "F.batch_norm": _batch_norm,
    "F.layer_norm": _layer_norm, "F.embedding": _embedding, "F.nll_loss": _nll_loss,
    "threshold_": MAKERS["threshold"],  # (threshold's arguments: its threshold and value)
    "split_with_sizes": lambda cfg: ((_x(cfg), [1, _rows(cfg) - 1]), {}),
    "from_numpy": lambda cfg: ((Raw(_x(cfg)),), {}),  # (the array itself: strided.from_numpy vs torch.from_numpy)
})

# The ops whose values no peer can share: random draws (strided's PCG64 streams are not PyTorch's)
# and uninitialized memory; their rows compare shapes and dtypes only.
UNSEEDED = {"rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like", "normal",
            "bernoulli", "multinomial", "empty", "empty_like", "empty_strided", "uniform_", "normal_",
            "geometric_", "exponential_", "cauchy_", "log_normal_", "random_", "bernoulli_", "F.dropout", "new_empty"}


def _n(cfg: Config) -> int:
    return cfg.shape[0] * cfg.shape[1]


# The factories: sizes (and values) from the configuration, no tensor argument.
MAKERS.update({
    "zeros": lambda cfg: ((cfg.shape,), {}), "ones": lambda cfg: ((cfg.shape,), {}),
    "empty": lambda cfg: ((cfg.shape,), {}), "rand": lambda cfg: ((cfg.shape,), {}),
    "randn": lambda cfg: ((cfg.shape,), {}), "full": lambda cfg: ((cfg.shape, 2.0), {}),
    "arange": lambda cfg: ((_n(cfg),), {}), "linspace": lambda cfg: ((0.0, 1.0, _n(cfg)), {}),
    "logspace": lambda cfg: ((0.0, 1.0, _n(cfg)), {}), "eye": lambda cfg: (cfg.shape, {}),
    "randint": lambda cfg: ((0, 10, cfg.shape), {}), "randperm": lambda cfg: ((_n(cfg),), {}),
    "empty_strided": lambda cfg: ((cfg.shape, (1, cfg.shape[0])), {}), "full_like": _with(2.0),
    "randint_like": _with(10), "geometric_": _with(0.5), "repeat": _with(2, 1),
    "multinomial": lambda cfg: ((np.abs(arr(cfg)) + 0.1, 2), {}),
})

# The reductions: besides the full reduction (where the op allows it), a row per dim.
REDUCTIONS = {"sum", "prod", "mean", "var", "std", "amax", "amin", "max", "min", "argmax", "argmin",
              "all", "any", "nansum", "nanmean", "logsumexp", "count_nonzero", "norm", "aminmax"}
NEEDS_DIM = {"logsumexp"}

# NumPy's name for an op where it differs (None: NumPy has no op of the same arguments).
NUMPY: dict[str, str | None] = {
    "mul": "multiply", "div": "divide", "sub": "subtract", "pow": "power", "neg": "negative",
    "eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
    "asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh",
    "atanh": "arctanh", "atan2": "arctan2", "clamp": "clip", "mm": "matmul", "bmm": "matmul",
    "remainder": "remainder", "bitwise_not": "invert", "bitwise_left_shift": "left_shift",
    "bitwise_right_shift": "right_shift", "sgn": None, "round": "round", "fix": "fix",
    "conj_physical": "conj", "flip": None, "roll": None, "tile": None, "sort": None, "topk": None,
    "std": None, "var": None, "max": None, "min": None, "norm": None, "diff": None, "cumsum": None,
    "cumprod": None, "argsort": None, "take": None, "put": None, "where": None, "take_along_dim": None,
    "repeat_interleave": None, "unique": None, "count_nonzero": None, "expand": None, "view": None,
    "reshape": None, "transpose": None, "permute": None, "squeeze": None, "stack": None, "cat": None,
    "split": None, "diagonal": None, "trace": None, "all": None, "any": None, "nonzero": None,
    "searchsorted": None, "diag": None, "tril": None, "triu": None, "dot": None, "outer": "outer",
    "unfold": None, "select": None, "narrow": None, "chunk": None, "unbind": None, "block_diag": None,
    "hsplit": None, "vsplit": None, "dsplit": None, "tensor_split": None, "meshgrid": None,
    "broadcast_tensors": None, "as_strided": None, "real": None, "imag": None, "angle": None,
    "isclose": None, "mean": "mean", "sum": "sum", "prod": "prod", "amax": "amax", "amin": "amin",
    "argmax": "argmax", "argmin": "argmin", "nansum": "nansum", "nanmean": "nanmean",
    "cummax": None, "cummin": None, "kthvalue": None, "msort": None, "logsumexp": None,
    "round_": None, "fliplr": "fliplr", "flipud": "flipud", "rot90": "rot90",
}

# NumPy's own call of the same computation where it lives elsewhere (its LAPACK wrappers: the
# floor under strided's linalg rows, which call the same OpenBLAS routines). Timed as the NumPy
# peer; a result of several arrays is a peer where each part has PyTorch's shape.
NUMPY_CALLS: dict[str, Callable[..., Any]] = {
    "linalg_cholesky": np.linalg.cholesky, "linalg_eigh": np.linalg.eigh, "linalg_eigvalsh": np.linalg.eigvalsh,
    "linalg_qr": np.linalg.qr, "linalg_inv": np.linalg.inv, "inverse": np.linalg.inv, "det": np.linalg.det,
    "linalg_det": np.linalg.det, "slogdet": np.linalg.slogdet, "linalg_slogdet": np.linalg.slogdet,
    "linalg_solve": np.linalg.solve, "pinverse": np.linalg.pinv, "linalg_pinv": np.linalg.pinv,
    "linalg_matrix_rank": np.linalg.matrix_rank, "linalg_svd": np.linalg.svd,
    "linalg_svdvals": lambda a: np.linalg.svd(a, compute_uv=False),
}


def _shapes(value: Any) -> Any:
    """The shape of an array, or the list of the shapes of a list of arrays."""
    return [np.shape(v) for v in value] if isinstance(value, list) else np.shape(value)


def _resolve(lib: Any, name: str, tensor_type: type) -> tuple[Callable[..., Any] | None, bool]:
    """The library's op ``name``: its module function, else the Tensor method (the second value:
    whether it is a property, called by attribute access)."""
    if name.startswith("F."):  # (an nn.functional op of the registry: F.gelu, F.silu, ...)
        fn = getattr(lib.nn.functional, name[2:], None)
        return (fn, False) if callable(fn) else (None, False)
    if not name.startswith("_"):
        fn = getattr(lib, name, None)
        if callable(fn) and not isinstance(fn, type):
            return fn, False
        # (an op of the linalg namespace: vector_norm, or linalg_inv as linalg.inv)
        fn = getattr(lib.linalg, name, None) or getattr(lib.linalg, name.removeprefix("linalg_"), None)
        if callable(fn) and not isinstance(fn, type):
            return fn, False
    if name.startswith("special_") and callable(getattr(lib.special, name[8:], None)):
        return getattr(lib.special, name[8:]), False  # (special_i1: torch.special.i1, strided.special.i1)
    if name == "gelu":  # (gelu is only nn.functional's, in both libraries)
        return lib.nn.functional.gelu, False
    if name == "getitem":  # (t[index]: the registry's name for Tensor.__getitem__)
        name = "__getitem__"
    attr = None
    for klass in tensor_type.__mro__:
        if name in klass.__dict__:
            attr = klass.__dict__[name]
            break
    if attr is None:
        return None, False
    if isinstance(attr, property) or type(attr).__name__ == "getset_descriptor":
        return (lambda t: getattr(t, name)), True
    return (lambda t, *a, **k: getattr(t, name)(*a, **k)), False


def _convert(value: Any, lib: str) -> Any:
    """A generated argument in ``lib``'s form: arrays become strided / PyTorch tensors sharing
    the array's memory and strides (a permuted array stays permuted); lists and tuples convert
    element by element; PyTorch dtypes become strided's; a :class:`Raw` argument is passed as it is."""
    if isinstance(value, Raw):
        return value.value
    if isinstance(value, np.ndarray):
        if lib == "strided":
            return strided.from_numpy(value)
        if lib == "torch":
            return torch.from_numpy(value)
        return value
    if isinstance(value, list):
        return [_convert(v, lib) for v in value]
    if isinstance(value, tuple):
        return tuple(_convert(v, lib) for v in value)
    if isinstance(value, torch.dtype):
        return {"strided": getattr(strided, str(value).split(".")[1]), "numpy": value}.get(lib, value)
    return value


def _numpy_kwargs(kw: dict[str, Any]) -> dict[str, Any]:
    renamed = {"dim": "axis", "keepdim": "keepdims"}
    return {renamed.get(k, k): v for k, v in kw.items()}


def _as_numpy(value: Any) -> Any:
    """A result as NumPy arrays (tuples element by element), for the comparison."""
    if isinstance(value, (strided.Tensor, torch.Tensor)):
        if isinstance(value, torch.Tensor):
            value = value.resolve_conj().resolve_neg()
        return np.asarray(value.numpy())
    if isinstance(value, (tuple, list)):
        return [_as_numpy(v) for v in value]
    if isinstance(value, np.ndarray | np.generic):
        return np.asarray(value)
    return np.asarray(value)


def _differs(a: Any, b: Any, values: bool = True) -> str:
    """Why ``a`` (strided's result, as NumPy) and ``b`` (PyTorch's) differ, or "" (``values``
    False: shapes and dtypes only, for draws and uninitialized memory)."""
    if isinstance(a, list) or isinstance(b, list):
        if not (isinstance(a, list) and isinstance(b, list)) or len(a) != len(b):
            return "results of different structure"
        return next((d for d in (_differs(p, q, values) for p, q in zip(a, b)) if d), "")
    if a.shape != b.shape:
        return f"shape {a.shape} vs torch {b.shape}"
    if a.dtype != b.dtype:
        return f"dtype {a.dtype} vs torch {b.dtype}"
    if not values:
        return ""
    if a.dtype.kind in "fc" and not np.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True):
        return "values differ"
    if a.dtype.kind not in "fc" and not np.array_equal(a, b):
        return "values differ"
    return ""


_LINALG = ("linalg_", "inverse", "pinverse", "det", "logdet", "slogdet", "cholesky", "qr", "svd", "lstsq")
# results whose signs LAPACK leaves free: an eigenvector or singular vector times -1 is one too
_SIGN_FREE = ("linalg_eigh", "linalg_svd", "linalg_qr", "svd", "qr")
# the ops whose vectors are free within an eigenspace: the index of the values compared
_VECTORS_FREE = {"linalg_eigh": 0, "linalg_svd": 1, "svd": 1}


def _is_linalg(name: str) -> bool:
    return name.startswith(_LINALG)


def _linalg_differs(name: str, a: Any, b: Any) -> str:
    """:func:`_differs` for the LAPACK-backed ops, comparing what PyTorch specifies: values to a
    float32 LAPACK's accuracy on a random (ill-conditioned at 1024 x 1024) matrix, relative to the
    result's magnitude; eigen- and singular vectors up to sign; cholesky_ex's factor only where its
    ``info`` says it completed (otherwise LAPACK leaves unspecified memory in it)."""
    if name in _VECTORS_FREE and isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        # eigen- and singular vectors of close eigenvalues are any basis of their space (a random
        # 1024 x 1024 matrix has such pairs): the values, and the vectors' shapes and dtypes
        keep = _VECTORS_FREE[name]
        return next((d for d in (_linalg_differs("", p, q) if i == keep else _differs(p, q, values=False)
                                 for i, (p, q) in enumerate(zip(a, b))) if d), "")
    if name == "linalg_lstsq":  # (an ill-conditioned system's solution is any of many: shapes and dtypes)
        return _differs(a, b, values=False)
    if name == "linalg_cholesky_ex" and isinstance(a, list) and len(a) == 2:
        if not np.array_equal(a[1], b[1]):
            return f"info {a[1]} vs torch {b[1]}"
        if np.any(b[1] != 0):
            return ""
    if isinstance(a, list) or isinstance(b, list):
        if not (isinstance(a, list) and isinstance(b, list)) or len(a) != len(b):
            return "results of different structure"
        return next((d for d in (_linalg_differs(name, p, q) for p, q in zip(a, b)) if d), "")
    base = _differs(a, b, values=False)
    if base or a.dtype.kind not in "fc":
        return base or ("" if np.array_equal(a, b) else "values differ")
    if name.startswith(_SIGN_FREE):
        a, b = np.abs(a), np.abs(b)
    scale = float(np.nanmax(np.abs(b))) if b.size else 0.0
    if not np.allclose(a, b, rtol=2e-3, atol=2e-3 * scale, equal_nan=True):
        return "values differ (beyond float32 LAPACK's accuracy)"
    return ""

def _phase_fixed(u: np.ndarray, v: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Columns of ``u`` (and the matching rows of ``v``) scaled by the conjugate phase (the sign,
    real) of each column's largest-magnitude entry: the vectors' one free choice, fixed."""
    pick = np.take_along_axis(u, np.abs(u).argmax(axis=-2)[..., None, :], axis=-2)
    phase = np.where(pick == 0, 1, pick / np.where(pick == 0, 1, np.abs(pick)))
    return u / phase, (None if v is None else v * phase.conj().swapaxes(-1, -2))


def _close(a: np.ndarray, b: np.ndarray, atol: float = 1e-5) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and np.allclose(a, b, rtol=1e-4, atol=atol, equal_nan=True)


def _cholesky_ex_differs(s: list, t: list, args: tuple) -> str:
    """``info`` exactly; ``L`` only where the factorization succeeded (PyTorch leaves LAPACK's
    partial work in a failed matrix, which depends on its blocking; strided writes NaN there)."""
    (ls, infos), (lt, infot) = s, t
    if why := _differs(infos, infot):
        return f"info: {why}"
    ok = infot == 0
    if ls.shape != lt.shape or ls.dtype != lt.dtype:
        return _differs(ls, lt, values=False)
    # (two float32 Cholesky factorizations of an n x n matrix agree to about n * eps * max|L|, not
    # to 1e-4 of each small entry: at 1024 x 1024 torch's blocked float32 potrf is off by ~2e-5
    # where strided's factor, computed in float64 and rounded once, is exact to float32)
    scale = float(np.abs(lt[ok]).max(initial=0))
    return "" if _close(ls[ok], lt[ok], atol=1e-5 + 1e-6 * ls.shape[-1] ** 0.5 * scale) else "L differs where info == 0"


def _eigh_differs(s: list, t: list, args: tuple) -> str:
    """Eigenvalues; eigenvectors up to each one's sign (phase), and ``V diag(w) V^H``."""
    (ws, vs), (wt, vt) = s, t
    if not _close(ws, wt):
        return _differs(ws, wt) or "eigenvalues differ"
    rebuild = lambda w, v: (v * w[..., None, :]) @ v.conj().swapaxes(-1, -2)  # noqa: E731
    if not _close(rebuild(ws, vs), rebuild(wt, vt), atol=1e-4):
        return "V diag(w) V^H differs"
    # (eigenvectors of close eigenvalues are any basis of their space, as a random 1024 x 1024
    # matrix has: compared one by one only where the rebuilt matrix is not already the check)
    if ws.shape[-1] <= 64 and not _close(_phase_fixed(vs)[0], _phase_fixed(vt)[0], atol=1e-4):
        return "eigenvectors differ beyond their signs"
    return ""


def _svd_differs(s: list, t: list, args: tuple) -> str:
    """Singular values; ``U diag(S) Vh``; U and Vh up to the pairs' signs (phases)."""
    (us, ss, vhs), (ut, st, vht) = s, t
    # (a float32 LAPACK's singular values are accurate to eps * the largest: the small ones of an
    # ill-conditioned matrix are not to 1e-4 of themselves)
    if not _close(ss, st, atol=1e-5 + 1e-5 * float(np.abs(st).max(initial=0))):
        return _differs(ss, st) or "singular values differ"
    k = ss.shape[-1]
    rebuild = lambda u, sv, vh: (u[..., :, :k] * sv[..., None, :]) @ vh[..., :k, :]  # noqa: E731
    # (each rebuilt matrix is within about eps * sqrt(n) * the largest singular value of the input,
    # elementwise, for a backward-stable SVD: MKL's float32 one of a random 1024 x 1024 matrix is
    # 1.7e-5 off, which a fixed 1e-4 caught in some runs)
    slack = 8 * np.finfo(ss.dtype).eps * np.sqrt(max(k, 1)) * float(np.abs(st).max(initial=0))
    if not _close(rebuild(us, ss, vhs), rebuild(ut, st, vht), atol=max(1e-4, slack)):
        return "U diag(S) Vh differs"
    if k > 64:  # (singular vectors of close singular values are free too: the rebuilt matrix is the check)
        return ""
    (pus, pvs), (put, pvt) = _phase_fixed(us[..., :, :k], vhs[..., :k, :]), _phase_fixed(ut[..., :, :k], vht[..., :k, :])
    return "" if _close(pus, put, atol=1e-4) and _close(pvs, pvt, atol=1e-4) else "U, Vh differ beyond their signs"


def _fixed_gelsy(args: tuple) -> tuple | None:
    """``(solution, rank)`` of PyTorch's own LAPACK (the MKL in libtorch_cpu) called as PyTorch
    calls gelsy with its pivot array zeroed: torch 2.13 leaves that array uninitialised
    (pytorch issue 187411, fixed upstream), so its own gelsy rank of an ill-conditioned matrix
    changes from call to call (1022, 1023, 1024 for the 1M matrix). None where torch exports no
    ILP64 LAPACK symbols or NumPy bundles no LAPACK (strided then keeps its SVD)."""
    from strided.ops.linalg import _lapack
    if _lapack.library() is None or len(args) != 2:
        return None
    try:
        mkl = _lapack.Lapack(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so"), "{}_64_")
    except (OSError, AttributeError):
        return None
    a, b = (np.asarray(x) for x in args)
    vector = b.ndim == a.ndim - 1
    bm = b[..., None] if vector else b
    x, rank, _, _ = _lapack.solve(mkl, a, bm, float(np.finfo(a.dtype).eps) * max(a.shape[-2:]), "gelsy")
    x = x[..., : a.shape[-1], :]
    return (x[..., 0] if vector else x), rank


def _lstsq_differs(s: list, t: list, args: tuple) -> str:
    """PyTorch's CPU driver is 'gelsy': ``rank`` exactly, ``residuals`` and ``singular_values``
    (empty for gelsy) by shape and dtype, the solution within what A's conditioning allows
    (two algorithms' float32 solutions differ by about cond(A) * eps * |x|). The solution and
    rank compared are those of PyTorch's LAPACK called as PyTorch >= 2.14 calls it
    (:func:`_fixed_gelsy`) where it can be called, torch 2.13's own otherwise."""
    fixed = _fixed_gelsy(args)
    if fixed is not None:
        t = [fixed[0].astype(t[0].dtype), t[1], np.asarray(fixed[1], t[2].dtype), t[3]]
    names = ("solution", "residuals", "rank", "singular_values")
    for name, a, b in zip(names, s, t):
        if why := _differs(a, b, values=name == "rank"):
            # (rank of an ill-conditioned matrix on the threshold's edge: MKL's rounding against
            # OpenBLAS's, or torch 2.13's uninitialised pivots where the fixed call is not at hand)
            return f"{name}: {why} (strided {a.tolist()}, torch {b.tolist()})" if name == "rank" else f"{name}: {why}"
    x_s, x_t = s[0], t[0]
    A = np.asarray(args[0], np.float64)  # noqa: N806
    if np.any(np.asarray(t[2]) < min(A.shape[-2:])):
        return _truncated_lstsq_differs(A, np.asarray(args[1], np.float64), x_s, x_t)
    tol = 10 * np.linalg.cond(A) * np.finfo(x_t.dtype).eps * max(1.0, float(np.abs(x_t).max(initial=0)))
    return "" if np.allclose(x_s, x_t, rtol=0, atol=tol) else f"solution differs beyond cond(A) * eps ({tol:.2g})"


def _truncated_lstsq_differs(A: np.ndarray, b: np.ndarray, x_s: np.ndarray, x_t: np.ndarray) -> str:  # noqa: N803
    """Two gelsy solutions of one rank r below A's size: each the least-norm solution of the system
    restricted to the r columns its pivoted QR keeps, and which columns (which nearly-null
    direction is dropped) is decided among near-ties by rounding, so two LAPACKs' solutions may
    differ by O(|x|) (a random float32 1024 x 1024 matrix, rank 1022 in both: |x_s - x_t| 2.1 for
    |x| 5, while each is ~0.91 away from the float64 full-rank solution); cond(A) * eps bounds only
    a full-rank solution. What both must give is a least-squares fit of that rank: their residuals
    ||A x - b|| (over all columns) within 10% of each other (an operand mix-up or a transposed-input bug
    gives a residual near ||b||, ~100x the truncated fit's)."""
    vector = x_s.ndim == A.ndim - 1
    xs, xt, bm = (np.asarray(v, np.float64)[..., None] if vector else np.asarray(v, np.float64) for v in (x_s, x_t, b))
    r_s, r_t = (float(np.linalg.norm(A @ x - bm)) for x in (xs, xt))  # (all columns: one column's fit can be near 0)
    tol = 0.1 * r_t + 10 * float(np.finfo(np.float32).eps * np.linalg.norm(bm))
    return "" if abs(r_s - r_t) <= tol else (f"rank-deficient solution: residual ||Ax - b|| {r_s:.3g} against torch's {r_t:.3g} "
                                           "(beyond 10%)")


# Ops whose results PyTorch specifies only in part (vector signs, a failed factor, the
# algorithm-dependent digits of a least-squares solution): their rows compare what it specifies.
SPECIFIED: dict[str, Callable[[list, list, tuple], str]] = {
    "linalg_cholesky_ex": _cholesky_ex_differs, "linalg_eigh": _eigh_differs, "linalg_svd": _svd_differs,
    "linalg_lstsq": _lstsq_differs,
}


@dataclass
class Case:
    """One timed row: the op, the configuration, the variant (the dim of a reduction) and the three calls."""

    op: str
    cfg: Config
    variant: str
    strided: Callable[[], object]
    torch: Callable[[], object]
    numpy: Callable[[], object] | None


def _bind(fn: Callable[..., Any], prop: bool, args: tuple, kw: dict) -> Callable[[], object]:
    if prop:
        t = args[0]
        return lambda: fn(t)
    return lambda: fn(*args, **kw)


def _attempts(name: str, cfg: Config) -> list[tuple[str, Args]]:
    """The argument sets to try for op ``name`` on ``cfg``, each with its variant label."""
    if name in MAKERS:
        return [("", MAKERS[name](cfg))]
    if name in REDUCTIONS:
        dims = (0, 1) if cfg.large else (1,)
        out = [] if name in NEEDS_DIM else [("full", ((_x(cfg),), {}))]
        return out + [(f"dim={d}", ((_x(cfg),), {"dim": d})) for d in dims]
    if name in MIXED_SIGN:  # (the usual row, then one over both signs)
        return [("", ((_x(cfg),), {})), ("mixed", ((_mixed(cfg),), {}))]
    return [("", ((_x(cfg),), {})), ("", (_xy(cfg), {}))]


# The unary ops whose kernels branch on the sign: a second row, "mixed", over inputs of both signs.
MIXED_SIGN = {"F.elu", "F.silu", "F.softplus", "F.gelu", "gelu", "F.leaky_relu", "expm1", "sigmoid", "tanh",
              "selu", "celu", "hardshrink", "F.softshrink", "F.hardswish", "F.hardsigmoid", "F.mish", "F.logsigmoid",
              "rrelu"}


def cases(name: str, cfg: Config, skipped: dict[str, str], differ: dict[str, str]) -> list[Case]:
    """The timed rows of op ``name`` on ``cfg`` (recording why, when there are none)."""
    s_fn, s_prop = _resolve(strided, name, strided.Tensor)
    t_fn, t_prop = _resolve(torch, name, torch.Tensor)
    if s_fn is None:
        skipped[name] = "no strided function or Tensor method of this name"
        return []
    if t_fn is None:
        skipped[name] = "PyTorch has no op of this name"
        return []
    np_name = NUMPY.get(name, name)
    n_fn = NUMPY_CALLS.get(name) or (getattr(np, np_name, None) if np_name else None)
    found: list[Case] = []
    try:
        attempts = _attempts(name, cfg)
    except Skip as why:
        skipped[f"{name} {cfg.label}"] = str(why)
        return []
    errors = []
    for variant, (args, kw) in attempts:
        sa, ta = _convert(args, "strided"), _convert(args, "torch")
        skw = {k: _convert(v, "strided") for k, v in kw.items()}
        tkw = {k: _convert(v, "torch") for k, v in kw.items()}
        s_call, t_call = _bind(s_fn, s_prop, sa, skw), _bind(t_fn, t_prop, ta, tkw)
        try:
            t_out = _as_numpy(t_call())
        except Exception as e:  # noqa: BLE001 (a failed try: the next argument set is tried)
            errors.append(f"torch: {type(e).__name__}: {str(e).splitlines()[0][:80]}")
            continue
        try:
            s_out = _as_numpy(s_call())
        except Exception as e:  # noqa: BLE001
            errors.append(f"strided: {type(e).__name__}: {str(e).splitlines()[0][:80]}")
            continue
        if name in SPECIFIED and isinstance(s_out, list) and isinstance(t_out, list) and len(s_out) == len(t_out):
            why = SPECIFIED[name](s_out, t_out, args)
        elif _is_linalg(name):
            why = _linalg_differs(name, s_out, t_out)
        else:
            why = _differs(s_out, t_out, values=name not in UNSEEDED)
        if why:
            differ[f"{name} {cfg.label} {variant}".rstrip()] = why
            break
        n_call = None
        if n_fn is not None and callable(n_fn):
            na = _convert(args, "numpy")
            nkw = {k: _convert(v, "numpy") for k, v in _numpy_kwargs(kw).items()}
            try:
                n_out = n_fn(*na, **nkw)
                n_out = [np.asarray(v) for v in n_out] if isinstance(n_out, tuple) else np.asarray(n_out)
                # a NumPy view (flipud, fliplr) is no peer of a copy: its time is not the same work
                is_view = any(isinstance(a, np.ndarray) and np.shares_memory(a, v) for a in na
                              for v in (n_out if isinstance(n_out, list) else [n_out]))
                if _shapes(n_out) == _shapes(t_out) and not is_view:
                    n_call = _bind(n_fn, False, na, nkw)
            except Exception:  # noqa: BLE001 (NumPy's op of that name takes other arguments)
                pass
        found.append(Case(name, cfg, variant, s_call, t_call, n_call))
        if not variant and name not in MIXED_SIGN:  # generic tries: the first that runs is the op's row
            break
    if not found and name not in differ and not any(k.startswith(name + " ") for k in differ):
        skipped[f"{name} {cfg.label}"] = "; ".join(errors[-2:]) or "no argument set ran"
    return found


def time_case(case: Case, quick: bool) -> tuple[float, float | None, float]:
    """Minimum per-call times (strided, numpy or None, torch), round-robin (harness.measure)."""
    stmts = [case.strided, case.torch] + ([case.numpy] if case.numpy else [])
    if case.cfg.large:  # (one call per sample for the slow ops; more for those a timer call rivals)
        number, repeat, sample = 1, (2 if quick else 3), (0.002 if quick else 0.005)
    else:
        (number, repeat), sample = (50, 3) if quick else (200, 5), None
    times = [min(s) for s in measure(stmts, number, repeat, sample)]
    return times[0], (times[2] if case.numpy else None), times[1]


_FLUSH = (np.ones(1 << 21, np.float32), np.empty(1 << 21, np.float32))  # 8 MB: more than L2 holds


def cold_time(call: Callable[[], object], times: int = 101) -> float:
    """The median time of ``call`` (seconds) made right after 8 MB were copied (the caches as a
    large row's kernel leaves them for the next call's Python code)."""
    taken = []
    for _ in range(times):
        np.copyto(_FLUSH[1], _FLUSH[0])
        start = time.perf_counter()
        call()
        taken.append(time.perf_counter() - start)
    return sorted(taken)[times // 2]


def call_cost(name: str, variant: str, permuted: bool, peer: str, memo: dict) -> float | None:
    """Strided's per-call cost over ``peer`` ("numpy" or "torch"), in seconds, as a large row pays
    it: the op's strided time minus the peer's on the small (3, 4) input, laid out as the large
    row's (``permuted``: a transpose; the same variant where it has one), each call made with cold caches (:func:`cold_time`), timed now, in this run. None
    where the op has no small row or the peer none there."""
    if (name, variant, permuted) not in memo:
        found = cases(name, Config("(3,4)", (3, 4), permuted), {}, {})
        case = next((c for c in found if c.variant == variant), found[0] if found else None)
        memo[name, variant, permuted] = None if case is None else (
            cold_time(case.strided), None if case.numpy is None else cold_time(case.numpy), cold_time(case.torch))
    times = memo[name, variant, permuted]
    if times is None or (peer == "numpy" and times[1] is None):
        return None
    return times[0] - (times[1] if peer == "numpy" else times[2])


def why_missed(name: str, variant: str, permuted: bool, ts: float, tn: float | None, tt: float,
               memo: dict) -> str:
    """Why a large row misses, where the run itself shows it: ``call cost`` when strided is slower
    than the faster peer by no more than strided's per-call cost over that peer measured on the
    small input in the same run, with caches as cold as a large kernel leaves them (its kernel at
    the peer's speed or faster; what is left is the fixed cost of a call); ``NumPy's floor`` when
    PyTorch is the faster peer and strided is no slower than NumPy's own call of the same
    computation (its LAPACK, its loop) but for that call cost or 3%: the floor measured underneath is
    NumPy's kernel, which PyTorch's outruns (MKL's LAPACK, SLEEF). "" otherwise: a slower kernel,
    or a floor the note must name."""
    peer, tp = ("numpy", tn) if tn is not None and tn < tt else ("torch", tt)
    cost = call_cost(name, variant, permuted, peer, memo)
    if cost is not None and ts - tp <= cost:
        return f"call cost: +{(ts - tp) * 1e6:.1f}us, per call +{cost * 1e6:.1f}us over {peer}"
    if peer == "torch" and tn is not None:
        cost = call_cost(name, variant, permuted, "numpy", memo)
        if ts <= 1.03 * tn or (cost is not None and ts - tn <= cost):  # (3%: one slow call's sample noise)
            return f"NumPy's floor: its own call {fmt_time(tn).strip()}"
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats: faster, noisier")
    parser.add_argument("--only", action="append", metavar="NAME", help="time only this op (repeatable)")
    parser.add_argument("--small", action="store_true", help="only the small sizes")
    parser.add_argument("--large", action="store_true", help="only the large sizes")
    args = parser.parse_args(argv)
    print_header(f"torch {torch.__version__} (threads {torch.get_num_threads()}) | numpy {np.__version__}")
    ops = {id(op): op for op in OPDEFS.values()}
    names = sorted(op.name for op in ops.values())
    skipped: dict[str, str] = {}
    differ: dict[str, str] = {}
    for op in ops.values():
        if op.kind is None or op.forward is None:
            skipped[op.name] = "not in the op table (no kind or forward: the F.* and linalg entries of autograd)"
    if args.only:
        unknown = [n for n in args.only if n not in OPDEFS]
        if unknown:
            parser.error(f"no op named {', '.join(unknown)}")
        names = [OPDEFS[n].name for n in args.only]
    configs = (SMALL if not args.large else ()) + (LARGE if not args.small else ())
    rows: list[tuple[str, str, float, float | None, float, float, bool, str]] = []
    costs: dict = {}  # (op, variant) -> its small row's times, for why_missed
    head = f"   {'op':<34} {'strided':>9} {'numpy':>9} {'torch':>9} {'s/torch':>8} {'s/best':>7}  target"
    print(head)
    print("   " + "-" * (len(head) - 3))
    for name in names:
        if name in skipped and not args.only:
            continue
        for cfg in configs:
            for case in cases(name, cfg, skipped, differ):
                ts, tn, tt = time_case(case, args.quick)
                best = min(tt, tn) if tn is not None else tt
                ratio = ts / best if cfg.large else ts / tt
                ok = ratio <= 1.0
                why = "" if ok or not cfg.large else why_missed(name, case.variant, cfg.permuted, ts, tn, tt, costs)
                label = f"{name} {case.variant} {cfg.label}".replace("  ", " ")
                rows.append((label, "best" if cfg.large else "torch", ts, tn, tt, ratio, ok, why))
                tn_text = fmt_time(tn) if tn is not None else f"{'-':>9}"
                print(f"   {label:<34} {fmt_time(ts)} {tn_text} {fmt_time(tt)} {ts / tt:>7.2f}x "
                      f"{ts / best:>6.2f}x  {'pass' if ok else 'FAIL'}{'  ' + why if why else ''}", flush=True)
    print()
    print("The 20 worst rows (ratio against the row's target: small vs torch, large vs the faster peer)")
    for label, vs, _ts, _tn, _tt, ratio, _ok, why in sorted(rows, key=lambda r: -r[5])[:20]:
        print(f"   {label:<34} {ratio:>6.2f}x {vs}{'  ' + why if why else ''}")
    small = [r for r in rows if r[1] == "torch"]
    large = [r for r in rows if r[1] == "best"]
    print(f"\nsmall sizes <= 1.0x torch: {sum(r[6] for r in small)} of {len(small)} rows")
    print(f"large sizes <= 1.0x the faster peer: {sum(r[6] for r in large)} of {len(large)} rows")
    if large:
        by_cost = sum(r[7].startswith("call cost") for r in large)
        by_numpy = sum(r[7].startswith("NumPy's floor") for r in large)
        print(f"   missed by no more than strided's per-call cost over that peer (its kernel at the "
              f"peer's speed): {by_cost}; at NumPy's floor (its own call; PyTorch's kernel faster): "
              f"{by_numpy}; missed otherwise: {len(large) - sum(r[6] for r in large) - by_cost - by_numpy}")
    if differ:
        print(f"\nResults differing from PyTorch (not timed): {len(differ)}")
        for key, why in sorted(differ.items()):
            print(f"   {key}: {why}")
    shown = {k: v for k, v in skipped.items() if not args.only or k.split()[0] in names}
    print(f"\nSkipped: {len(shown)}")
    for key, why in sorted(shown.items()):
        print(f"   {key}: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
