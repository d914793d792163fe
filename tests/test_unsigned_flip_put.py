"""uint16/32/64 flip and index_put as PyTorch 2.13 (day 26; last session's "uint16 flip/index_put
permissive"): its ``"flip_cpu"`` has no kernel for them, reached or not by the layout (a flip
that leaves a contiguous inner dim in place copies rows: any dtype), and it has no
``"index_put"`` (nor ``"masked_fill"``) kernel for them, whatever the index."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import strided

torch = pytest.importorskip("torch")


def _outcome(lib, f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = f(lib)
        except Exception as e:  # noqa: BLE001 (the class and first line are compared)
            kind = next(k.__name__ for k in (NotImplementedError, IndexError, TypeError, RuntimeError, Exception)
                        if isinstance(e, k))
            return kind, str(e).splitlines()[0]
    return "ok", None if r is None else r.tolist()


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64", "int16"])
def test_flip_layouts_refuse_where_torch_reaches_its_generic_kernel(dtype):
    rng = np.random.default_rng(26)
    seen = set()
    for _ in range(400):
        nd = int(rng.integers(1, 4))
        shape = tuple(int(rng.integers(1, 4)) for _ in range(nd))
        perm = tuple(int(p) for p in rng.permutation(nd))
        step = int(rng.integers(1, 3))
        dims = tuple(sorted({int(d) for d in rng.integers(0, nd, int(rng.integers(1, nd + 1)))}))
        op = ["flip", "fliplr", "flipud", "rot90"][int(rng.integers(0, 4))]

        def case(L, shape=shape, perm=perm, step=step, dims=dims, op=op):
            n = int(np.prod(shape)) * step
            x = L.arange(n, dtype=L.int64).to(getattr(L, dtype))[::step].reshape(shape).permute(perm)
            if op == "flip":
                return x.flip(dims)
            return getattr(L, op)(x)
        want = _outcome(torch, case)
        assert _outcome(strided, case) == want, (shape, perm, step, dims, op)
        seen.add(want[0])
    assert "ok" in seen and ("NotImplementedError" in seen) == (dtype != "int16")  # (both sides reached)


_PUTS = {
    "index_put_": lambda L, x: x.index_put_((L.tensor([0, 1]),), L.tensor([7]).to(x.dtype)),
    "index_put_ accumulate": lambda L, x: x.index_put_((L.tensor([0, 1]),), L.tensor([7]).to(x.dtype), True),
    "index_put": lambda L, x: x.index_put((L.tensor([1]), L.tensor([2])), L.tensor(7).to(x.dtype)),
    "empty index": lambda L, x: x.index_put_((L.tensor([], dtype=L.int64),), L.tensor(7).to(x.dtype)),
    "setitem int": lambda L, x: x.__setitem__(L.tensor([0, 1]), L.tensor([7]).to(x.dtype)),
    "setitem number": lambda L, x: x.__setitem__((slice(None), L.tensor([0, 2])), 7),
    "setitem mask number": lambda L, x: x.__setitem__(L.tensor([[True, False, True], [False, False, True]]), 7),
    "setitem mask tensor": lambda L, x: x.__setitem__(L.tensor([[True, False, True], [False, False, True]]),
                                                      L.tensor([7, 8, 9]).to(x.dtype)),
    "setitem bool scalar": lambda L, x: x.__setitem__(True, 7),
    "getitem": lambda L, x: x[L.tensor([1, 0])],
}


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64", "uint8"])
@pytest.mark.parametrize("name", sorted(_PUTS))
def test_index_put_of_wide_unsigned_is_torchs_error(name, dtype):
    def case(L):
        x = L.arange(6, dtype=L.int64).to(getattr(L, dtype)).reshape(2, 3)
        r = _PUTS[name](L, x)
        return x if r is None else r
    assert _outcome(strided, case) == _outcome(torch, case)
