"""Reductions over big, odd layouts give PyTorch's bytes: row-major, reversed dims, a stepped last
dim, an expanded (stride-0) first dim and a storage offset, sizes past the fast paths' thresholds
(4,097 elements, 33 x 129, 3 x 100 x 5), float32/float64/int64/int32/bool with NaN and -0.0, every
dim and keepdim. (A hostile sweep of session 23; it found nansum/nanmean's NumPy bits.)

Not here, because PyTorch's answer is not reproduced or not an answer: logsumexp (PyTorch's
float32 exp is MKL's), std/var/norm/prod over an expanded dim (TensorIterator's order for a
stride-0 dim), median/nanmedian of an expanded tensor (PyTorch 2.13 returns wrong values there:
an all-equal column's median is not its value). NaNs are compared as NaN, not by their bits."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as S
from strided.layout import Layout


def _cstrides(shape: tuple[int, ...]) -> tuple[int, ...]:
    out, acc = [], 1
    for s in reversed(shape):
        out.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(out))


def _layouts(shape: tuple[int, ...]) -> list[tuple[str, int, tuple[int, ...], int]]:
    n = int(np.prod(shape))
    rev = _cstrides(tuple(reversed(shape)))[::-1]
    step = list(_cstrides(shape[:-1] + (shape[-1] * 2,)))
    step[-1] = 2
    out = [("rowmajor", n, _cstrides(shape), 0), ("reversed", n, rev, 0), ("stepped", 2 * n + 2, tuple(step), 0),
           ("offset", n + 3, _cstrides(shape), 3)]
    if len(shape) >= 2:
        out.append(("expanded", n, (0,) + _cstrides(shape)[1:], 0))
    return out


def _data(size: int, dtype: str, rng: np.random.Generator) -> np.ndarray:
    if dtype == "bool":
        return rng.integers(0, 2, size).astype(bool)
    if dtype.startswith("int"):
        return rng.integers(-50, 50, size).astype(dtype)
    d = (rng.standard_normal(size) * 3).astype(dtype)
    d[rng.random(size) < 0.01] = np.nan
    d[rng.random(size) < 0.01] = -0.0
    return d


def _bytes(x: object) -> tuple:
    if isinstance(x, (tuple, list)):
        return tuple(_bytes(v) for v in x)
    a = x.numpy() if isinstance(x, S.Tensor) else x.detach().numpy()
    if a.dtype.kind == "f":  # (a NaN's payload and sign are not compared: PyTorch's vector max sets every bit)
        a = np.where(np.isnan(a), a.dtype.type(np.nan), a)
    return a.shape, a.dtype.str, a.tobytes()


def _dim_op(name: str):
    def f(x, d, k):
        m = getattr(x, name)
        r = m(d, keepdim=k) if d is not None else m()
        return tuple(r) if isinstance(r, tuple) else r
    return f


def _scan(name: str):
    def f(x, d, k):
        r = getattr(x, name)(d if d is not None else 0)
        return tuple(r) if isinstance(r, tuple) else r
    return f


OPS = {name: _dim_op(name) for name in ("sum", "mean", "amax", "amin", "argmax", "argmin", "max", "min", "prod",
                                        "nansum", "nanmean", "all", "any")}
OPS.update({name: _scan(name) for name in ("cumsum", "cumprod", "cummax", "cummin")})
OPS["count_nonzero"] = lambda x, d, k: x.count_nonzero(d)
FLOAT_ONLY = {"mean", "nansum", "nanmean"}
EXPANDED_ORDER = {"prod"}  # (TensorIterator's order over a stride-0 dim: see the module doc)


@pytest.mark.parametrize("shape", [(4097,), (33, 129), (3, 100, 5)], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
def test_reductions_on_odd_layouts_are_pytorchs_bytes(shape: tuple[int, ...], dtype: str) -> None:
    rng = np.random.default_rng(sum(shape) + len(dtype))
    for layout, size, strides, offset in _layouts(shape):
        buf = _data(size, dtype, rng)
        t = torch.from_numpy(buf).as_strided(shape, strides, offset)
        s = S.from_numpy(buf)._view(Layout(shape, strides, offset))
        for name, op in OPS.items():
            if (name in FLOAT_ONLY and not dtype.startswith("float")) or (layout == "expanded" and name in EXPANDED_ORDER):
                continue
            for dim in [None, *range(len(shape)), -1]:
                for keepdim in (False, True):
                    if dim is None and keepdim:
                        continue
                    try:
                        want = _bytes(op(t, dim, keepdim))
                    except (RuntimeError, TypeError, IndexError) as e:
                        with pytest.raises(type(e)):
                            op(s, dim, keepdim)
                        continue
                    assert _bytes(op(s, dim, keepdim)) == want, (name, layout, dim, keepdim)

