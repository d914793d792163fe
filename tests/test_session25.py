"""Differences from PyTorch found by session 25's sweeps (argument checks and gradients at edge
values), each compared with PyTorch side by side."""
import pytest
import torch

import strided


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.logsumexp(x),
    lambda lib, x: x.logsumexp(),
    lambda lib, x: x.logsumexp(keepdim=True),
    lambda lib, x: lib.logsumexp(x, None),
])
def test_logsumexp_needs_its_dim_as_torch(call) -> None:
    with pytest.raises(TypeError) as theirs:
        call(torch, torch.ones(2, 3))
    with pytest.raises(TypeError) as ours:
        call(strided, strided.ones(2, 3))
    assert str(ours.value).splitlines()[0] == str(theirs.value)


def test_logsumexp_missing_dim_names_a_fix_that_works() -> None:
    x = strided.ones(2, 3)
    with pytest.raises(TypeError, match=r"fix: name the dims: strided.logsumexp\(x, dim=\(0, 1\)\)"):
        strided.logsumexp(x)
    assert strided.logsumexp(x, dim=(0, 1)).item() == pytest.approx(torch.logsumexp(torch.ones(2, 3), (0, 1)).item())
    assert strided.logsumexp(x, dim=()).item() == strided.logsumexp(x, dim=(0, 1)).item()


def _first_line(e: BaseException) -> str:
    return str(e).splitlines()[0]


@pytest.mark.parametrize("dtype", ["float64", "int64", "float16", "bool", "complex64"])
def test_where_writes_only_its_own_dtype_into_out_as_torch(dtype) -> None:
    got = {}
    for lib in (torch, strided):
        out = lib.zeros(2, dtype=getattr(lib, dtype))
        with pytest.raises(RuntimeError) as info:
            lib.where(lib.tensor([True, False]), lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0]), out=out)
        got[lib] = _first_line(info.value)
        assert out.tolist() == [0, 0]  # (refused before anything is written)
    assert got[strided] == got[torch]


@pytest.mark.parametrize("p", ["fro", 2, 1, 3.0, float("inf"), "nuc"])
@pytest.mark.parametrize("dtype", ["float64", "int64", "float16"])
def test_norm_writes_only_its_own_dtype_into_out_as_torch(p, dtype) -> None:
    got = {}
    for lib in (torch, strided):
        with pytest.raises(RuntimeError) as info:
            lib.norm(lib.ones(3, 4), p, out=lib.empty(0, dtype=getattr(lib, dtype)))
        got[lib] = _first_line(info.value)
    assert got[strided] == got[torch]
    o = strided.empty(0)
    assert strided.norm(strided.ones(3, 4), p, out=o) is o
    assert o.item() == pytest.approx(torch.norm(torch.ones(3, 4), p).item())


def test_kron_resizes_an_empty_out_row_major_as_torch() -> None:
    outs = {}
    for lib in (torch, strided):
        a, b = lib.arange(35.0).reshape(7, 5).T, lib.arange(6.0).reshape(3, 2).T
        fresh = lib.kron(a, b)
        outs[lib] = (lib.empty(0), fresh.stride())
        assert lib.kron(a, b, out=outs[lib][0]) is outs[lib][0]
    assert outs[strided][1] == outs[torch][1]  # (the fresh product keeps mul's layout in both)
    assert outs[strided][0].stride() == outs[torch][0].stride() == (21, 1)
    assert outs[strided][0].tolist() == outs[torch][0].tolist()
