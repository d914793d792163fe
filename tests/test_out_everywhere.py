"""``out=`` on the ops whose PyTorch form takes it, side by side with PyTorch: each op called with
out tensors of the right shape, of none (``empty(0)``: resized), transposed, strided, and of other
dtypes, comparing the error (class and first line) or the out tensor's shape, strides and values,
and that a refused out is left as it was. (Found by a registry-wide out= sweep: these ops raised
TypeError for ``out=`` where PyTorch writes.)"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided

RNG = np.random.default_rng(7)
X = RNG.standard_normal((5, 7)).astype(np.float32)
SQ = RNG.standard_normal((5, 5)).astype(np.float32)
SPD = (SQ @ SQ.T + 5 * np.eye(5)).astype(np.float32)
IDX = np.array([[0, 2, 1, 4, 3, 0, 1]] * 2, dtype=np.int64)
MASK = X > 0


def _t(lib, a):
    return lib.tensor(a.copy())


def _linalg(lib):
    return lib.linalg


# name -> call(lib, out)
CALLS = {
    "argmax": lambda lib, o: lib.argmax(_t(lib, X), 1, out=o),
    "argmin": lambda lib, o: lib.argmin(_t(lib, X), 0, out=o),
    "gather": lambda lib, o: lib.gather(_t(lib, X), 0, _t(lib, IDX % 5), out=o),
    "scatter": lambda lib, o: lib.scatter(_t(lib, X), 0, _t(lib, IDX % 5), _t(lib, X), out=o),
    "scatter_add": lambda lib, o: lib.scatter_add(_t(lib, X), 0, _t(lib, IDX % 5), _t(lib, X), out=o),
    "scatter_reduce": lambda lib, o: lib.scatter_reduce(_t(lib, X), 0, _t(lib, IDX % 5), _t(lib, X), "amax", out=o),
    "take_along_dim": lambda lib, o: lib.take_along_dim(_t(lib, X), _t(lib, IDX[:1]), 1, out=o),
    "take": lambda lib, o: lib.take(_t(lib, X), _t(lib, IDX), out=o),
    "index_add": lambda lib, o: lib.index_add(_t(lib, X), 1, _t(lib, IDX[0, :3]), _t(lib, X[:, :3]), out=o),
    "index_copy": lambda lib, o: lib.index_copy(_t(lib, X), 1, _t(lib, np.array([0, 2])), _t(lib, X[:, :2]), out=o),
    "index_reduce": lambda lib, o: lib.index_reduce(_t(lib, X), 1, _t(lib, IDX[0, :3]), _t(lib, X[:, :3]), "prod",
                                                    out=o),
    "index_select": lambda lib, o: lib.index_select(_t(lib, X), 1, _t(lib, IDX[0]), out=o),
    "masked_select": lambda lib, o: lib.masked_select(_t(lib, X), _t(lib, MASK), out=o),
    "msort": lambda lib, o: lib.msort(_t(lib, X), out=o),
    "slice_scatter": lambda lib, o: lib.slice_scatter(_t(lib, X), _t(lib, X[:, :2]), 1, 0, 4, 2, out=o),
    "tril": lambda lib, o: lib.tril(_t(lib, X), 1, out=o),
    "triu": lambda lib, o: lib.triu(_t(lib, X), -1, out=o),
    "vector_norm": lambda lib, o: lib.linalg.vector_norm(_t(lib, X), 3, 1, out=o),
    "matrix_norm": lambda lib, o: lib.linalg.matrix_norm(_t(lib, X), out=o),
    "linalg.norm": lambda lib, o: lib.linalg.norm(_t(lib, X), out=o),
    "isin": lambda lib, o: lib.isin(_t(lib, IDX), _t(lib, np.array([1, 4])), out=o),
    "conj_physical": lambda lib, o: lib.conj_physical(_t(lib, X.astype(np.complex64)), out=o),
    "complex": lambda lib, o: lib.complex(_t(lib, X), _t(lib, X), out=o),
    "polar": lambda lib, o: lib.polar(_t(lib, np.abs(X)), _t(lib, X), out=o),
    "dot": lambda lib, o: lib.dot(_t(lib, X[0]), _t(lib, X[1]), out=o),
    "vdot": lambda lib, o: lib.vdot(_t(lib, X[0]), _t(lib, X[1]), out=o),
    "quantile": lambda lib, o: lib.quantile(_t(lib, X), 0.25, 1, out=o),
    "nanquantile": lambda lib, o: lib.nanquantile(_t(lib, X), 0.75, 0, out=o),
    "histc": lambda lib, o: lib.histc(_t(lib, X), 4, -1, 1, out=o),
    "matrix_power": lambda lib, o: lib.matrix_power(_t(lib, SQ), 3, out=o),
    "inverse": lambda lib, o: lib.inverse(_t(lib, SPD), out=o),
    "linalg.solve": lambda lib, o: lib.linalg.solve(_t(lib, SPD), _t(lib, X), out=o),
    "linalg.svdvals": lambda lib, o: lib.linalg.svdvals(_t(lib, X), out=o),
    "linalg.eigvalsh": lambda lib, o: lib.linalg.eigvalsh(_t(lib, SPD), out=o),
    "linalg.cholesky": lambda lib, o: lib.linalg.cholesky(_t(lib, SPD), out=o),
    "linalg.vecdot": lambda lib, o: lib.linalg.vecdot(_t(lib, X), _t(lib, X), out=o),
    "linalg.pinv": lambda lib, o: lib.linalg.pinv(_t(lib, X), out=o),
    "linalg.matrix_rank": lambda lib, o: lib.linalg.matrix_rank(_t(lib, X), out=o),
    "F.softplus": lambda lib, o: lib.nn.functional.softplus(_t(lib, X), 2.0, 1.0, out=o),
    # (factories: the values made in out's dtype; dtype= must be out's)
    "zeros": lambda lib, o: lib.zeros(2, 3, out=o),
    "ones": lambda lib, o: lib.ones((3, 2), out=o),
    "full": lambda lib, o: lib.full((2, 3), 2.5, out=o),
    "full with dtype": lambda lib, o: lib.full((2, 3), 2, dtype=lib.float32, out=o),
    "eye": lambda lib, o: lib.eye(3, 4, out=o),
    "linspace": lambda lib, o: lib.linspace(-2, 3, 6, out=o),
    "logspace": lambda lib, o: lib.logspace(-1, 1, 5, 3, out=o),
    # (these cast into any dtype the result can be cast to)
    "angle": lambda lib, o: lib.angle(_t(lib, X), out=o),
    "angle of complex": lambda lib, o: lib.angle(_t(lib, (X + 1j * X[::-1]).astype(np.complex64)), out=o),
    "diff": lambda lib, o: lib.diff(_t(lib, X), 2, 0, out=o),
    "outer": lambda lib, o: lib.outer(_t(lib, X[0]), _t(lib, X[1]), out=o),
    "outer of ints": lambda lib, o: lib.outer(_t(lib, IDX[0]), _t(lib, IDX[1]), out=o),
    "clamp_min of a tensor": lambda lib, o: lib.clamp_min(_t(lib, X), _t(lib, X[0]), out=o),
    "clamp_max of a tensor": lambda lib, o: lib.clamp_max(_t(lib, X), _t(lib, X[:, :1]), out=o),
    # (a number bound: only the result's dtype)
    "clamp_min": lambda lib, o: lib.clamp_min(_t(lib, X), 0.25, out=o),
    "clamp_max": lambda lib, o: lib.clamp_max(_t(lib, X), -1, out=o),
    # (computed in out's dtype, the input converted first; dtype= must be out's)
    "cumsum": lambda lib, o: lib.cumsum(_t(lib, 3 * X), 1, out=o),
    "cumprod": lambda lib, o: lib.cumprod(_t(lib, 2 * X), 0, out=o),
    "cumsum of ints": lambda lib, o: lib.cumsum(_t(lib, IDX), 1, out=o),
    "cumsum with dtype": lambda lib, o: lib.cumsum(_t(lib, X), 1, dtype=lib.float64, out=o),
    "searchsorted": lambda lib, o: lib.searchsorted(_t(lib, np.sort(X, 1)), _t(lib, X), out=o),
    "searchsorted int32": lambda lib, o: lib.searchsorted(_t(lib, np.sort(X, 1)), _t(lib, X), out_int32=True, out=o),
    "bucketize": lambda lib, o: lib.bucketize(_t(lib, X), _t(lib, np.sort(X[0])), right=True, out=o),
    "bucketize int32": lambda lib, o: lib.bucketize(_t(lib, X), _t(lib, np.sort(X[0])), out_int32=True, out=o),
}

KINDS = ["plain", "empty", "wrong shape", "transposed", "stepped", "float64", "float16", "int64", "int32", "bool",
         "complex64"]


def _out(lib, ref: torch.Tensor, kind: str):
    dtype = kind if kind in ("float64", "float16", "int64", "int32", "bool", "complex64") else \
        str(ref.dtype).removeprefix("torch.")
    if kind in ("float64", "complex64") and dtype == str(ref.dtype).removeprefix("torch."):
        dtype = "float32"
    dt = getattr(lib, dtype)
    shape = tuple(ref.shape)
    if kind == "empty":
        return lib.zeros(0, dtype=dt)
    if kind == "wrong shape":
        return lib.zeros(2, 1, 5, dtype=dt)
    if kind == "transposed" and len(shape) >= 2:
        return lib.zeros(shape[:-2] + shape[:-3:-1], dtype=dt).transpose(-1, -2)
    if kind == "stepped" and len(shape) >= 1:
        return lib.zeros(shape[:-1] + (2 * shape[-1],), dtype=dt)[..., ::2]
    return lib.zeros(shape, dtype=dt)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", sorted(CALLS))
def test_out_as_torch(name: str, kind: str) -> None:
    call = CALLS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = call(torch, None)
    outs = {lib: _out(lib, ref, kind) for lib in (torch, strided)}
    before = {lib: (tuple(o.shape), o.clone()) for lib, o in outs.items()}
    errors, results, resized = {}, {}, {}
    for lib in (torch, strided):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            try:
                results[lib] = call(lib, outs[lib])
            except Exception as e:  # noqa: BLE001 - compared below
                errors[lib] = e
        resized[lib] = any("resized" in str(w.message) for w in seen)
    if torch in errors:
        assert strided in errors, f"PyTorch refuses ({errors[torch]}); strided wrote {outs[strided]}"
        assert isinstance(errors[strided], type(errors[torch])), (errors[strided], errors[torch])
        assert str(errors[strided]).splitlines()[0] == str(errors[torch]).splitlines()[0]
        shape, values = before[strided]
        assert tuple(outs[strided].shape) == shape and outs[strided].tolist() == values.tolist()  # (untouched)
        return
    assert strided not in errors, errors.get(strided)
    assert resized[strided] == resized[torch]  # (PyTorch's warning for an out with elements resized)
    s, t = outs[strided], outs[torch]
    assert results[strided] is s
    assert tuple(s.shape) == tuple(t.shape) and s.dtype.name == str(t.dtype).removeprefix("torch.")
    if t.numel() > 1:
        assert s.stride() == t.stride()
    np.testing.assert_allclose(s.numpy(), t.resolve_conj().numpy(), rtol=2e-6, atol=1e-6)


def test_a_recorded_input_refuses_out_as_torch() -> None:
    x, o = strided.ones(3, 3, requires_grad=True), strided.empty(0)
    with pytest.raises(RuntimeError, match=r"tril\(\): functions with out=\.\.\. arguments don't support automatic"):
        strided.tril(x, out=o)
    with strided.no_grad():
        assert strided.tril(x, out=o) is o and o.tolist() == [[1, 0, 0], [1, 1, 0], [1, 1, 1]]


@pytest.mark.parametrize("name", ["gelu", "narrow_copy"])
def test_a_transposed_out_gets_the_values_where_torch_loses_them(name: str) -> None:
    """PyTorch 2.13's ``F.gelu(x, out=o)`` leaves a transposed ``o`` as it was and ``narrow_copy``
    writes one as if it were row-major: both silently wrong; strided writes the fresh result's values
    through ``o``'s strides (the deliberate difference, compared with PyTorch's fresh result)."""
    x = X[:, :5]
    if name == "gelu":
        fresh = torch.nn.functional.gelu(torch.tensor(x))
        run = lambda lib, o: (torch._C._nn.gelu if lib is torch else strided.nn.functional.gelu)(  # noqa: E731
            _t(lib, x), out=o)
    else:
        fresh = torch.narrow_copy(torch.tensor(x), 0, 1, 3)
        run = lambda lib, o: lib.narrow_copy(_t(lib, x), 0, 1, 3, out=o)  # noqa: E731
    t_out, s_out = torch.zeros(fresh.shape[::-1]).T, strided.zeros(tuple(fresh.shape)[::-1]).T
    run(torch, t_out)
    assert run(strided, s_out) is s_out and s_out.stride() == t_out.stride()
    np.testing.assert_allclose(s_out.numpy(), fresh.numpy(), rtol=2e-6, atol=1e-6)
    assert not np.allclose(t_out.numpy(), fresh.numpy())  # (PyTorch's own, still wrong in 2.13)


# name -> call(lib, out) for the ops returning a named tuple: out= takes one tensor per part
TUPLE_CALLS = {
    "linalg.svd": lambda lib, o: lib.linalg.svd(_t(lib, X), full_matrices=False, out=o),
    "linalg.qr": lambda lib, o: lib.linalg.qr(_t(lib, X.T), out=o),
    "linalg.eigh": lambda lib, o: lib.linalg.eigh(_t(lib, SPD), out=o),
    "linalg.cholesky_ex": lambda lib, o: lib.linalg.cholesky_ex(_t(lib, SPD), out=o),
    "linalg.inv_ex": lambda lib, o: lib.linalg.inv_ex(_t(lib, SPD), out=o),
    "linalg.solve_ex": lambda lib, o: lib.linalg.solve_ex(_t(lib, SPD), _t(lib, X), out=o),
    "linalg.slogdet": lambda lib, o: lib.linalg.slogdet(_t(lib, SQ), out=o),
    "slogdet": lambda lib, o: lib.slogdet(_t(lib, SQ), out=o),
}


def _gauge_free(name: str, parts: list) -> list:
    """The parts compared by value: singular/eigen vectors only up to each column's sign (LAPACK's
    choice differs between OpenBLAS and MKL), so their absolute values."""
    if name in ("linalg.svd", "linalg.eigh", "linalg.qr"):
        return [np.abs(p) for p in parts]
    return parts


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", sorted(TUPLE_CALLS))
def test_tuple_out_as_torch(name: str, kind: str) -> None:
    call = TUPLE_CALLS[name]
    refs = call(torch, None)
    for part in range(len(refs)):
        outs = {lib: tuple(_out(lib, r, kind if k == part else "plain") for k, r in enumerate(refs))
                for lib in (torch, strided)}
        errors, results = {}, {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for lib in (torch, strided):
                try:
                    results[lib] = call(lib, outs[lib])
                except Exception as e:  # noqa: BLE001 - compared below
                    errors[lib] = e
        if torch in errors:
            assert strided in errors, f"PyTorch refuses ({errors[torch]}); strided wrote"
            assert isinstance(errors[strided], type(errors[torch])), (errors[strided], errors[torch])
            assert str(errors[strided]).splitlines()[0] == str(errors[torch]).splitlines()[0]
            assert all(not o.numel() or not o.any() for o in outs[strided])  # (no part written)
            continue
        assert strided not in errors, errors.get(strided)
        assert all(a is b for a, b in zip(results[strided], outs[strided]))
        for s, t in zip(outs[strided], outs[torch]):
            assert tuple(s.shape) == tuple(t.shape) and s.dtype.name == str(t.dtype).removeprefix("torch.")
            if t.numel() > 1:
                assert s.stride() == t.stride()
        mine = _gauge_free(name, [o.numpy() for o in outs[strided]])
        theirs = _gauge_free(name, [o.numpy() for o in outs[torch]])
        for a, b in zip(mine, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("out", [strided.empty(0), [strided.empty(0)], (strided.empty(0), 3),
                                 (strided.empty(0),) * 3])
def test_tuple_out_of_the_wrong_kind_is_torchs_type_error(out) -> None:
    theirs = {id(out): out}
    t_out = torch.empty(0) if isinstance(out, strided.Tensor) else type(out)(
        torch.empty(0) if isinstance(o, strided.Tensor) else o for o in out)
    with pytest.raises(TypeError) as t_err:
        torch.linalg.eigh(torch.eye(2), out=t_out)
    with pytest.raises(TypeError) as s_err:
        strided.linalg.eigh(strided.eye(2), out=theirs[id(out)])
    first = str(s_err.value).splitlines()[0]
    assert first == str(t_err.value).replace("argument 2", "argument 'out'")
