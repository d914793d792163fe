"""index_reduce's dtype refusals against torch, in PyTorch's order (index_reduce_func_impl).

Before, complex amax/amin, every complex or bool reduction of a 1-d tensor, include_self=False
on complex/bool, and bool mean all returned numbers where PyTorch raises NotImplementedError
(and include_self=False reported an out-of-range index with the wrong message)."""

from __future__ import annotations

import itertools
import warnings

import pytest
import torch

import strided


def _outcome(lib, dt, reduce, include_self, idx, ndim, inplace):
    shape = (3, 2) if ndim == 2 else (3,)
    x = lib.ones(*shape, dtype=getattr(lib, dt))
    src = lib.ones(len(idx), *shape[1:], dtype=getattr(lib, dt))
    index = lib.tensor(idx, dtype=lib.int64)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn = x.index_reduce_ if inplace else x.index_reduce
            return "ok", fn(0, index, src, reduce, include_self=include_self).tolist()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__.removeprefix("Strided"), str(e).splitlines()[0]


@pytest.mark.parametrize("dt", ["complex64", "complex128", "bool", "uint16", "float32", "int32"])
def test_refusals_match_torch(dt):
    for reduce, include_self, idx, ndim, inplace in itertools.product(
            ["prod", "mean", "amax", "amin"], [True, False], [[0, 2], [2, 0], [0, 5], [5, 0], [-1, 0], []],
            [1, 2], [False, True]):
        args = (dt, reduce, include_self, idx, ndim, inplace)
        assert _outcome(strided, *args) == _outcome(torch, *args), args


def test_complex_amax_is_not_implemented_error():
    x = strided.ones(3, 2, dtype=strided.complex64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(NotImplementedError, match="maximum_cpu.*ComplexFloat"):
            x.index_reduce(0, strided.tensor([0, 2]), strided.ones(2, 2, dtype=strided.complex64), "amax")
