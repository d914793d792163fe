"""Hostile checks of nansum / nanmean against PyTorch (red23b): dtype= and out= combinations
PyTorch refuses, and the 2-byte float results (the input converted to dtype= first, the loads
zeroing each NaN, the count promoted to the 2-byte dtype unless it is a 0-d CPU scalar)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as S

torch.set_num_threads(1)

_T = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
      "float64": torch.float64, "int64": torch.int64, "int32": torch.int32, "bool": torch.bool,
      "complex64": torch.complex64, "complex128": torch.complex128}


def _bits(t: torch.Tensor) -> bytes:
    t = t.detach()
    return (t.float() if t.dtype == torch.bfloat16 else t).numpy().tobytes()


def _sbits(s: S.Tensor) -> bytes:
    return (s.to(S.float32) if s.dtype == S.bfloat16 else s).numpy().tobytes()


def _pair(a: np.ndarray, dt: str) -> tuple[S.Tensor, torch.Tensor]:
    t = torch.from_numpy(a).to(_T[dt])
    return S.from_numpy(a).to(getattr(S, dt)), t


@pytest.mark.parametrize("op", ["nansum", "nanmean"])
@pytest.mark.parametrize("src", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("dt", ["complex64", "complex128", "int64", "int32", "bool"])
def test_dtype_refusals_and_results_as_pytorch(op: str, src: str, dt: str) -> None:
    a = np.array([[1.5, np.nan, 2.25], [3.0, 4.0, -0.0]])
    s, t = _pair(a, src)
    for dim in ((), (1,)):
        try:
            want = getattr(torch, op)(t, *dim, dtype=_T[dt])
        except (RuntimeError, NotImplementedError) as e:
            with pytest.raises(type(e)) as got:
                getattr(S, op)(s, *dim, dtype=getattr(S, dt))
            assert str(e).splitlines()[0] == str(got.value).splitlines()[0]
            continue
        res = getattr(S, op)(s, *dim, dtype=getattr(S, dt))
        assert str(res.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        assert _sbits(res) == _bits(want)


@pytest.mark.parametrize("op", ["nansum", "nanmean"])
@pytest.mark.parametrize("src,dt", [("float64", "float16"), ("float64", "bfloat16"), ("float32", "float16"),
                                    ("float32", "bfloat16"), ("float16", "bfloat16"), ("float16", None),
                                    ("bfloat16", None)])
@pytest.mark.parametrize("shape,dim", [((40, 7), 0), ((40, 7), 1), ((3000,), None), ((300, 200), None),
                                       ((64, 64), 1), ((500, 7, 3), (0, 2))])
def test_two_byte_results_are_pytorchs(op: str, src: str, dt: str | None, shape: tuple, dim: object) -> None:
    rng = np.random.default_rng(len(shape) * 100 + shape[0])
    a = rng.standard_normal(shape) * 40
    a[rng.random(shape) < 0.05] = np.nan
    s, t = _pair(a, src)
    args = () if dim is None else (dim,)
    kw, skw = ({}, {}) if dt is None else ({"dtype": _T[dt]}, {"dtype": getattr(S, dt)})
    if len(shape) == 3:  # (a transposed view: dims (0, 2) not coalesced into one, no acc buffer)
        s, t = s.transpose(0, 1), t.transpose(0, 1)
    want = getattr(t, op)(*args, **kw)
    got = getattr(s, op)(*args, **skw)
    assert _sbits(got) == _bits(want)


@pytest.mark.parametrize("op", ["nansum", "nanmean"])
@pytest.mark.parametrize("od,dt", [("float64", None), ("float16", None), ("bfloat16", None), ("int64", None),
                                   ("bool", None), ("complex64", None), ("float64", "float32"),
                                   ("float32", "float64"), ("int64", "int64"), ("float64", "float64")])
@pytest.mark.parametrize("dim", [(), (1,)])
def test_out_dtype_as_pytorch(op: str, od: str, dt: str | None, dim: tuple) -> None:
    """out= decides the dtype a floating input's nansum computes in (PyTorch's
    get_dtype_from_result): was computed in the input's dtype and then cast into out."""
    a = np.array([[0.1, np.nan, 0.7], [0.3, 0.2, 0.9]], np.float32)
    s, t = S.from_numpy(a), torch.from_numpy(a)
    to, so = torch.empty(0, dtype=_T[od]), S.empty(0, dtype=getattr(S, od))
    kw, skw = ({}, {}) if dt is None else ({"dtype": _T[dt]}, {"dtype": getattr(S, dt)})
    try:
        getattr(torch, op)(t, *dim, out=to, **kw)
    except (RuntimeError, NotImplementedError) as e:
        with pytest.raises(type(e)) as got:
            getattr(S, op)(s, *dim, out=so, **skw)
        assert str(e).splitlines()[0] == str(got.value).splitlines()[0]
        return
    getattr(S, op)(s, *dim, out=so, **skw)
    assert so.shape == tuple(to.shape) and _sbits(so) == _bits(to)


@pytest.mark.parametrize("op", ["sum", "mean", "prod", "nansum"])
@pytest.mark.parametrize("src", ["float32", "int64", "float16"])
@pytest.mark.parametrize("od,dt", [("float64", "float32"), ("float64", None), ("float32", "float64"),
                                   ("int32", "int64"), ("float64", "float64")])
def test_dtype_against_out_as_pytorch(op: str, src: str, od: str, dt: str | None) -> None:
    """A dtype= that out='s dtype disagrees with is refused ('Expected out tensor to have dtype
    float, but got double instead'; mean's own dtype checks first): was computed and cast."""
    a = np.array([[1, 2, 3], [4, 5, 6]], np.float64)
    s, t = _pair(a, src)
    to, so = torch.empty(0, dtype=_T[od]), S.empty(0, dtype=getattr(S, od))
    kw, skw = ({}, {}) if dt is None else ({"dtype": _T[dt]}, {"dtype": getattr(S, dt)})
    try:
        getattr(torch, op)(t, 1, out=to, **kw)
    except (RuntimeError, NotImplementedError) as e:
        with pytest.raises(type(e)) as got:
            getattr(S, op)(s, 1, out=so, **skw)
        assert str(e).splitlines()[0] == str(got.value).splitlines()[0]
        return
    getattr(S, op)(s, 1, out=so, **skw)
    assert _sbits(so) == _bits(to)


@pytest.mark.parametrize("op", ["nansum", "nanmean"])
@pytest.mark.parametrize("src", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (0, False), (1, False), (1, True), ((0, 1), True)])
@pytest.mark.parametrize("upstream", [1.0, float("inf")])
def test_backward_as_pytorch(op: str, src: str, dim: object, keepdim: bool, upstream: float) -> None:
    """PyTorch's nansum backward multiplies g by the not-NaN mask and nanmean's divides by the count
    first: an all-NaN slice (count 0) or an inf g gives NaN where x is NaN (strided gave 0)."""
    a = np.array([[1.5, np.nan, 2.25, 7.0], [np.nan] * 4, [3.0, 4.0, -0.0, np.inf]] + [[0.5] * 4] * 300)
    s, t = _pair(a, src)
    s.requires_grad_()
    t.requires_grad_()
    args, kw = ((), {}) if dim is None else ((dim,), {"keepdim": keepdim})
    tr, sr = getattr(torch, op)(t, *args, **kw), getattr(S, op)(s, *args, **kw)
    gt, = torch.autograd.grad(tr, t, torch.full_like(tr, upstream), create_graph=True)
    gs, = S.autograd.grad(sr, s, S.full_like(sr, upstream), create_graph=True)
    assert str(gs.dtype).split(".")[-1] == str(gt.dtype).split(".")[-1]
    a, b = gs.detach().to(S.float64).numpy(), gt.detach().double().numpy()
    assert (np.isnan(a) == np.isnan(b)).all()  # (NaN payloads aside)
    assert np.where(np.isnan(a), 0, a).tobytes() == np.where(np.isnan(b), 0, b).tobytes()


@pytest.mark.parametrize("src,dt", [("float16", None), ("bfloat16", None), ("float64", "float16"),
                                    ("float32", "bfloat16"), ("float32", "float64")])
def test_numpy_loops_give_the_kernels_bytes(src: str, dt: str | None) -> None:
    """native.disabled(): the NumPy loops of the NaN-zeroed copy give the compiled kernel's bytes."""
    from strided.kernels import native
    rng = np.random.default_rng(0)
    for shape, dim in (((40, 7), 0), ((3000,), None), ((300, 200), 1), ((500, 7, 3), (0, 2))):
        a = rng.standard_normal(shape) * 40
        a[rng.random(shape) < 0.05] = np.nan
        s = S.from_numpy(a).to(getattr(S, src))
        kw = {} if dt is None else {"dtype": getattr(S, dt)}
        args = () if dim is None else (dim,)
        for op in ("nansum", "nanmean"):
            r1 = getattr(s, op)(*args, **kw)
            with native.disabled():
                r2 = getattr(s, op)(*args, **kw)
            assert _sbits(r1) == _sbits(r2)


def test_two_byte_nansum_over_two_uncoalesced_dims() -> None:
    # (fixed on day 25: nansum_out has no float32 acc buffer, so each partial sum over the innermost
    # reduced dim is rounded to the 2-byte type and added into the 2-byte output, in order)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((50, 30, 40)) * 40
    a[rng.random(a.shape) < 0.05] = np.nan
    s, t = _pair(a, "float16")
    assert _sbits(s.nansum((0, 2))) == _bits(t.nansum((0, 2)))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape,dims", [((5, 6, 7), (0, 2)), ((33, 17, 5), (0, 2)), ((4, 5, 6, 7), (0, 2)),
                                        ((4, 5, 6, 7), (0, 1, 3)), ((4, 5, 6, 7), (1, 3)), ((9, 3, 70), (0, 2)),
                                        ((70, 3, 9), (0, 2))])
@pytest.mark.parametrize("permuted", [False, True])
def test_two_byte_nansum_nanmean_uncoalesced_dims(dtype, shape, dims, permuted, torch_threads_as_assumed) -> None:
    rng = np.random.default_rng(2)
    a = rng.standard_normal(shape) * 40
    a[rng.random(shape) < 0.05] = np.nan
    s, t = _pair(a, dtype)
    if permuted:
        s, t = s.permute(*reversed(range(len(shape)))), t.permute(*reversed(range(len(shape))))
    for op in ("nansum", "nanmean"):
        g, w = getattr(s, op)(dims), getattr(t, op)(dims)
        assert g.stride() == tuple(w.stride()) and _sbits(g) == _bits(w), op


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("order", ["row", "column"])
def test_addr_numpy_scalar_alpha_with_beta_zero(dtype: type, order: str) -> None:
    """addr(beta=np.float64(0), alpha=np.float64(3.25)) scales vec1 first as PyTorch does (its
    Scalars take NumPy's numbers): the NumPy-scalar path kept (x*y)*alpha (other last bits)."""
    rng = np.random.default_rng(0)
    rows = rng.standard_normal((33, 17)).astype(dtype)
    v1, v2 = rng.standard_normal(17).astype(dtype), rng.standard_normal(33).astype(dtype)
    s_in, t_in = (S.tensor(rows).t(), torch.from_numpy(rows).t()) if order == "column" else \
        (S.tensor(rows.T.copy()), torch.from_numpy(rows.T.copy()))
    for beta, alpha in ((np.float64(0), np.float64(3.25)), (np.int64(0), np.float32(-1.7)), (0.0, np.float64(0.3))):
        got = S.addr(s_in, S.tensor(v1), S.tensor(v2), beta=beta, alpha=alpha)
        want = torch.addr(t_in, torch.from_numpy(v1), torch.from_numpy(v2), beta=beta, alpha=alpha)
        assert got.stride() == want.stride()
        assert _sbits(got) == _bits(want)
