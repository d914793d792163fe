"""The parts of ``linalg.cholesky_ex``, ``eigh``, ``svd`` and ``lstsq`` that PyTorch specifies,
against torch 2.13 (the bench's comparisons, bench/bench_ops.py ``SPECIFIED``): cholesky_ex's
``info`` exactly (and ``L`` where it is 0; a failed matrix's L is LAPACK's partial work in
PyTorch, blocking-dependent, and NaN in strided), eigen/singular values with the vectors up to
their signs, and lstsq's four fields per driver (shapes, dtypes, rank exactly, solutions).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided


def _np(t):
    return np.asarray(t.numpy())


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cholesky_ex_info_and_successful_factors_equal_torch(seed: int, dtype: str) -> None:
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.1, 0.9, (5, 16, 16))
    a = a + np.swapaxes(a, -1, -2)
    a[:2] += 16 * np.eye(16)  # (two positive-definite matrices, three failing at some minor)
    a = a.astype(dtype)
    ls, infos = strided.linalg.cholesky_ex(strided.tensor(a))
    lt, infot = torch.linalg.cholesky_ex(torch.tensor(a))
    assert _np(infos).dtype == np.int32 and _np(infos).tolist() == infot.tolist()
    assert infot.tolist()[:2] == [0, 0] and all(k > 0 for k in infot.tolist()[2:])
    ok = infot.numpy() == 0
    np.testing.assert_allclose(_np(ls)[ok], lt.numpy()[ok], rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-6)
    assert np.isnan(_np(ls)[~ok]).all()  # (strided's choice: no number of a failed factor)


def _sign_fixed(u: np.ndarray) -> np.ndarray:
    pick = np.take_along_axis(u, np.abs(u).argmax(axis=-2)[..., None, :], axis=-2)
    return u * np.sign(pick)


@pytest.mark.parametrize("seed", range(4))
def test_eigh_and_svd_equal_torch_up_to_vector_signs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.1, 0.9, (16, 16))
    ws, vs = strided.linalg.eigh(strided.tensor(a))
    wt, vt = torch.linalg.eigh(torch.tensor(a))
    np.testing.assert_allclose(_np(ws), wt.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_sign_fixed(_np(vs)), _sign_fixed(vt.numpy()), atol=1e-10)
    us, ss, vhs = strided.linalg.svd(strided.tensor(a))
    ut, st, vht = torch.linalg.svd(torch.tensor(a))
    np.testing.assert_allclose(_np(ss), st.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose((_np(us) * _np(ss)) @ _np(vhs), (ut.numpy() * st.numpy()) @ vht.numpy(), atol=1e-12)
    np.testing.assert_allclose(_sign_fixed(_np(us)), _sign_fixed(ut.numpy()), atol=1e-10)


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("shapes", [((6, 4), (6, 2)), ((4, 6), (4, 2)), ((16, 16), (16, 16)), ((2, 6, 4), (2, 6, 1))])
def test_lstsq_fields_per_driver_equal_torch(driver: str | None, shapes: tuple) -> None:
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal(s) for s in shapes)
    kw = {} if driver is None else {"driver": driver}
    try:
        ref = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), **kw)
    except RuntimeError as e:  # (gels of a wide matrix: torch refuses; strided must too)
        with pytest.raises(type(e)):
            strided.linalg.lstsq(strided.tensor(a), strided.tensor(b), **kw)
        return
    got = strided.linalg.lstsq(strided.tensor(a), strided.tensor(b), **kw)
    for name in ("solution", "residuals", "rank", "singular_values"):
        x, y = _np(getattr(got, name)), getattr(ref, name).numpy()
        assert (x.shape, x.dtype) == (y.shape, y.dtype), name
        if name == "rank":
            assert np.array_equal(x, y)
        else:
            np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-9, err_msg=name)
