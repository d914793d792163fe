"""Differences from PyTorch found by session 25's sweeps (argument checks and gradients at edge
values), each compared with PyTorch side by side."""
import numpy as np
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
    # dim=() is every dim only with keepdim=True (or a 0-d / empty x): PyTorch 2.13's composite
    # refuses it otherwise (test_red25)
    kept = strided.logsumexp(x, dim=(), keepdim=True)
    assert kept.shape == (1, 1) and kept.item() == strided.logsumexp(x, dim=(0, 1)).item()


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


def _base(lib):
    return lib.tensor(np.arange(1.0, 26.0).reshape(5, 5) / 7)


@pytest.mark.parametrize("op", ["add_", "mul_", "sub_", "div_", "pow_", "atan2_", "hypot_", "copysign_"])
@pytest.mark.parametrize("case", ["diagonal", "column"])
def test_an_input_read_where_the_op_writes_elsewhere_is_refused(op, case) -> None:
    """PyTorch lets an in-place op whose input is a non-dense view of the target through ("too
    hard" to judge) and reads such elements before or after writing them by its loop order; strided
    refuses instead of computing from the old values (a different number), the target untouched."""
    b = _base(strided)
    before = b.tolist()
    y = b.diagonal() if case == "diagonal" else b[:, 2:3]
    with pytest.raises(strided.OverlapWriteError, match=rf"{op}: at position \[\d, \d\] the op reads storage "
                       r"element \d+, which it writes at position \[\d, \d\] first") as info:
        getattr(b, op)(y)
    assert "fix: pass a copy of the input" in str(info.value)
    assert b.tolist() == before
    t = _base(torch)
    getattr(t, op)(t.diagonal() if case == "diagonal" else t[:, 2:3])  # (PyTorch runs it)
    fixed = _base(strided)
    getattr(fixed, op)((fixed.diagonal() if case == "diagonal" else fixed[:, 2:3]).clone())  # (the fix works)


@pytest.mark.parametrize("case", ["row and column", "interleaved rows", "disjoint columns"])
def test_a_shared_but_unordered_input_runs_as_torch(case) -> None:
    results = {}
    for lib in (torch, strided):
        b = _base(lib)
        x, y = {"row and column": (b[0], b[:, 0]), "interleaved rows": (b[:4:2], b[1::2]),
                "disjoint columns": (b[:, :2], b[:, 3:])}[case]
        x.mul_(y)
        x.add_(y)
        results[lib] = b.tolist()
    assert results[strided] == results[torch]


def test_ldexp_reads_its_exponent_first_as_torch() -> None:
    results = {}
    for lib in (torch, strided):
        b = lib.tensor(np.arange(1.0, 10.0).reshape(3, 3))
        b[1:].ldexp_(b[:-1].round())  # (PyTorch: self.mul_(pow(2, other)), the exponent a temporary)
        results[lib] = b.tolist()
    assert results[strided] == results[torch]


def test_copy_and_setitem_refuse_a_read_after_write_and_run_the_rest_as_torch() -> None:
    rng = np.random.default_rng(5)
    data = rng.standard_normal((4, 4))
    results = {}
    for lib in (torch, strided):
        b = lib.tensor(data.copy())
        b[0:2][...] = b[0:2][0]  # (row 0 written from itself first: every later read sees its value)
        cols = b[:, 1:3].t()
        cols.copy_(cols[0])  # (likewise)
        results[lib] = b.tolist()
    assert results[strided] == results[torch]
    b = strided.tensor(data.copy())
    with pytest.raises(strided.OverlapWriteError, match=r"copy_: at position \[\d, \d\] the op reads storage element"):
        b[:, 1:3].t().copy_(b[1:3])  # (PyTorch's loop reads b[1, 2] after writing it)
    assert b.tolist() == data.tolist()
    t = torch.tensor(data.copy())
    t[:, 1:3].t().copy_(t[1:3])
    clean = torch.tensor(data.copy())
    clean[:, 1:3].t().copy_(clean[1:3].clone())
    assert t.tolist() != clean.tolist()  # (the number PyTorch gives depends on its loop order)


def test_the_operator_forms_refuse_as_the_methods() -> None:
    b = strided.tensor(np.arange(1.0, 10.0).reshape(3, 3))
    with pytest.raises(strided.OverlapWriteError, match="which it writes at position"):
        b += b.diagonal()
    assert b.tolist() == np.arange(1.0, 10.0).reshape(3, 3).tolist()


@pytest.mark.parametrize("p", [1, 1.5, 2, 3, 0])
def test_norms_of_empty_tensors_as_torch(p) -> None:
    for lib_a, lib_b in ((torch, strided),):
        a, b = lib_a.zeros(0, 3), lib_b.zeros(0, 3)
        assert lib_b.dist(b, b, p).item() == lib_a.dist(a, a, p).item()
        assert lib_b.linalg.vector_norm(b, p, dim=0).tolist() == lib_a.linalg.vector_norm(a, p, dim=0).tolist()
        assert lib_b.norm(b, p, dim=1).tolist() == lib_a.norm(a, p, dim=1).tolist()


def test_adam_updates_an_empty_parameter_in_one_kernel_call_too() -> None:
    import strided.optim.adam as adam_module
    calls = []
    real = adam_module._flat_update
    adam_module._flat_update = lambda *a, **k: calls.append(real(*a, **k)) or calls[-1]
    try:
        w = strided.tensor(np.zeros(0, np.float32), requires_grad=True)  # (NumPy's zero strides, as torch keeps)
        opt = strided.optim.Adam([w], lr=0.1)
        (w * 2).sum().backward()
        opt.step()
    finally:
        adam_module._flat_update = real
    assert calls == [True] and w.stride() == torch.tensor(np.zeros(0, np.float32)).stride()


def test_bucketize_of_a_number_has_no_out_as_torch() -> None:
    with pytest.raises(TypeError) as theirs:
        torch.bucketize(2.5, torch.tensor([1.0, 2.0, 3.0]), out=torch.empty(0, dtype=torch.int64))
    out = strided.zeros(2, dtype=strided.int64)
    with pytest.raises(TypeError, match="fix: pass the value as a tensor") as ours:
        strided.bucketize(2.5, strided.tensor([1.0, 2.0, 3.0]), out=out)
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]
    assert out.tolist() == [0, 0]
    assert strided.bucketize(strided.tensor(2.5), strided.tensor([1.0, 2.0, 3.0]), out=out).item() == 2
