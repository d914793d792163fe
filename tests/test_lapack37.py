"""The MKL LAPACK route (strided.ops.linalg.mkl_lapack) against PyTorch: inv, inv_ex, solve,
solve_ex, det, cholesky, cholesky_ex of large float32/float64 matrices.

Where the loaded MKL is the version PyTorch bundles, the results are PyTorch's bits; with another
MKL (the pinned pip ``mkl``), within a tight tolerance of PyTorch's on well-conditioned matrices.
Layouts, info codes, errors and the STRIDED_BLAS=openblas switch (a subprocess) are exact."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import strided
from strided.ops.linalg import mkl_lapack as M

torch = pytest.importorskip("torch")

needs_mkl = pytest.mark.skipif(M.mkl_library() is None, reason="no MKL (pip mkl) installed, or switched off")


def _same_mkl_as_torch() -> bool:
    """Whether the loaded MKL is the version PyTorch's wheel bundles (then the bits agree)."""
    mine = M.version() or ""
    pattern = r"Math Kernel Library Version ([\d.]+)-Product Build (\d+)"
    theirs, ours = re.search(pattern, torch.__config__.show()), re.search(pattern, mine)
    return bool(theirs and ours) and theirs.groups() == ours.groups()


SAME = M.mkl_library() is not None and _same_mkl_as_torch()
# Whether MKL runs its AVX-512 code path here (an Intel AVX-512 CPU): not on an AVX2-only CPU, and not
# on an AMD EPYC Zen 4 either, AVX-512 and PyTorch's capability "AVX512" notwithstanding
MKL_AVX512 = "AVX-512" in (M.code_path() or "")


@pytest.fixture(autouse=True)
def _torch_one_thread():
    """PyTorch on one thread (as the benchmarks run it): its MKL's threaded paths (gesdd on two
    threads) give other bits than one thread, and strided calls MKL's sequential layer."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
DTYPES = [(strided.float32, torch.float32, 2e-5), (strided.float64, torch.float64, 1e-12)]


def _check_exact(s, t, tol, exact=True):
    s_np = s.numpy()
    t_np = t.detach().numpy()
    assert s_np.shape == t_np.shape and s_np.dtype == t_np.dtype
    assert s.stride() == t.stride()
    if SAME and exact:
        assert np.ascontiguousarray(s_np).tobytes() == np.ascontiguousarray(t_np).tobytes()
    else:
        scale = max(float(np.abs(t_np).max()), 1e-30) if t_np.size else 1.0
        np.testing.assert_allclose(s_np, t_np, rtol=0, atol=tol * scale)


def _well_conditioned(rng, shape, dtype):
    n = shape[-1]
    a = rng.standard_normal(shape) / np.sqrt(n) * 0.5 + np.eye(n)
    return a.astype(dtype)


def _views(a):
    """The array as a contiguous tensor, a transposed view and a column-sliced view."""
    n = a.shape[-1]
    wide = np.zeros((*a.shape[:-1], 2 * n), a.dtype)
    wide[..., ::2] = a
    return [strided.tensor(a), strided.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2))).mT,
            strided.tensor(wide)[..., ::2]]


def _torch_view(s):
    """The torch tensor with ``s``'s strides (torch's det and solve look at contiguity)."""
    return torch.as_strided(torch.from_numpy(s._storage.array.copy()), s.shape, s.stride(), s._layout.offset)


@needs_mkl
@pytest.mark.parametrize("sd,td,tol", DTYPES)
@pytest.mark.parametrize("shape", [(65, 65), (130, 130), (2, 80, 80), (0, 70, 70)])
def test_inverse_solve_det_match_torch(sd, td, tol, shape):
    rng = np.random.default_rng(sum(shape))
    a = _well_conditioned(rng, shape, sd.numpy)
    b = rng.standard_normal((*shape[:-1], 3)).astype(sd.numpy)
    # (MKL 2024.2's sequential sgetrf blocks 65, 81, ..., 145 rows otherwise than its GNU-threaded
    # one in PyTorch: those float32 sizes agree within the tolerance only; where MKL does not take its
    # AVX-512 path (an AVX2-only AMD EPYC; an AMD EPYC Zen 4 with AVX-512: 65, 97, 113, 121, 129 rows
    # differ there by 1e-16 relative) dgetrf too at some of 65, 73, ..., 145 rows: test_fixlapack41)
    n = shape[-1]
    exact = not (n <= 145 and (sd is strided.float32 and n % 16 == 1
                               or sd is strided.float64 and not MKL_AVX512 and n % 8 == 1))

    def _check(s, t, tol):
        _check_exact(s, t, tol, exact)

    for sa in _views(a):
        ta = _torch_view(sa)
        _check(strided.linalg.inv(sa), torch.linalg.inv(ta), tol)
        s_inv, s_info = strided.linalg.inv_ex(sa)
        t_inv, t_info = torch.linalg.inv_ex(ta)
        _check(s_inv, t_inv, tol)
        assert s_info.tolist() == t_info.tolist()
        _check(strided.linalg.solve(sa, strided.tensor(b)), torch.linalg.solve(ta, torch.from_numpy(b)), tol)
        _check(strided.linalg.solve(sa, strided.tensor(b[..., 0].copy())),
               torch.linalg.solve(ta, torch.from_numpy(b[..., 0].copy())), tol)
        s_x, s_info = strided.linalg.solve_ex(sa, strided.tensor(b))
        t_x, t_info = torch.linalg.solve_ex(ta, torch.from_numpy(b))
        _check(s_x, t_x, tol)
        assert s_info.tolist() == t_info.tolist()
        _check(strided.linalg.solve(sa, strided.tensor(b.swapaxes(-1, -2).copy()), left=False),
               torch.linalg.solve(ta, torch.from_numpy(b.swapaxes(-1, -2).copy()), left=False), tol)
        _check(strided.linalg.det(sa), torch.linalg.det(ta), tol * 10)
        (s_sign, s_log), (t_sign, t_log) = strided.linalg.slogdet(sa), torch.linalg.slogdet(ta)
        _check_exact(s_sign, t_sign, 0)
        # (the logs' sum: within an ulp of PyTorch's where the factors are its bits)
        np.testing.assert_allclose(s_log.numpy(), t_log.numpy(), rtol=0, atol=tol * 10 * n)
        _check(strided.det(sa), torch.det(ta), tol * 10)


@needs_mkl
@pytest.mark.parametrize("sd,td,tol", DTYPES)
@pytest.mark.parametrize("shape", [(65, 65), (100, 100), (3, 70, 70)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_matches_torch(sd, td, tol, shape, upper):
    rng = np.random.default_rng(sum(shape))
    g = rng.standard_normal(shape)
    s = (g @ np.swapaxes(g, -1, -2) / shape[-1] + np.eye(shape[-1])).astype(sd.numpy)
    for ss in _views(s):
        ts = _torch_view(ss)
        _check_exact(strided.linalg.cholesky(ss, upper=upper), torch.linalg.cholesky(ts, upper=upper), tol)
        s_l, s_info = strided.linalg.cholesky_ex(ss, upper=upper)
        t_l, t_info = torch.linalg.cholesky_ex(ts, upper=upper)
        _check_exact(s_l, t_l, tol)
        assert s_info.tolist() == t_info.tolist()
        assert s_l.numpy()[..., 0, 1 if not upper else 0].tolist() == t_l.numpy()[..., 0, 1 if not upper else 0].tolist()


def _sign_free(s, t, tol, columns):
    """Singular/eigen vectors: bits where the MKL is PyTorch's, else equal up to each vector's sign."""
    if SAME:
        _check_exact(s, t, tol)
        return
    s_np, t_np = s.numpy(), t.numpy()
    assert s.stride() == t.stride()
    axis = -2 if columns else -1
    flip = np.sign(np.sum(s_np * t_np, axis=axis, keepdims=True))
    np.testing.assert_allclose(s_np * flip, t_np, rtol=0, atol=tol * 100)


@needs_mkl
@pytest.mark.parametrize("sd,td,tol", DTYPES)
@pytest.mark.parametrize("shape", [(70, 70), (100, 80), (80, 100), (2, 66, 66)])
def test_svd_eigh_match_torch(sd, td, tol, shape):
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal(shape).astype(sd.numpy)
    for sa in _views(a):
        ta = _torch_view(sa)
        for full in (True, False):
            su, ss, svh = strided.linalg.svd(sa, full_matrices=full)
            tu, ts, tvh = torch.linalg.svd(ta, full_matrices=full)
            _check_exact(ss, ts, tol)
            k = min(shape[-2:])  # (the full bases beyond k are any orthonormal completion: their first k vectors)
            _sign_free(su[..., :k], tu[..., :k], tol, True)
            _sign_free(svh[..., :k, :], tvh[..., :k, :], tol, False)
            assert su.stride() == tu.stride() and svh.stride() == tvh.stride()
        _check_exact(strided.linalg.svdvals(sa), torch.linalg.svdvals(ta), tol)
        assert strided.linalg.matrix_rank(sa).tolist() == torch.linalg.matrix_rank(ta).tolist()
        if shape[-1] == shape[-2]:
            sym = (a + np.swapaxes(a, -1, -2)).astype(sd.numpy)
            for ssym in _views(sym):
                tsym = _torch_view(ssym)
                for uplo in "LU":
                    sw, sv = strided.linalg.eigh(ssym, UPLO=uplo)
                    tw, tv = torch.linalg.eigh(tsym, UPLO=uplo)
                    _check_exact(sw, tw, tol * 10)
                    _sign_free(sv, tv, tol, True)
                    _check_exact(strided.linalg.eigvalsh(ssym, UPLO=uplo), torch.linalg.eigvalsh(tsym, UPLO=uplo), tol * 10)


@needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_singular_and_not_positive_definite_as_before(dtype):
    """A failed factorization leaves the route: PyTorch's info and error texts, as NumPy's path gave them."""
    n = 70
    rng = np.random.default_rng(1)
    a = _well_conditioned(rng, (2, n, n), dtype)
    a[1, :, 5] = 0  # (column 5 of matrix 1 zero: singular)
    sa, ta = strided.tensor(a), torch.from_numpy(a)
    assert strided.linalg.inv_ex(sa).info.tolist() == torch.linalg.inv_ex(ta).info.tolist() == [0, 6]
    assert strided.linalg.solve_ex(sa, strided.tensor(a[..., :2])).info.tolist() == [0, 6]
    with pytest.raises(strided.linalg.LinAlgError) as err:
        strided.linalg.inv(sa)
    with pytest.raises(torch.linalg.LinAlgError) as terr:
        torch.linalg.inv(ta)
    assert str(err.value).splitlines()[0] == str(terr.value).splitlines()[0]
    assert strided.linalg.det(sa)[1].item() == torch.linalg.det(ta)[1].item() == 0
    s = np.eye(n, dtype=dtype)
    s[40, 40] = -1
    r = strided.linalg.cholesky_ex(strided.tensor(s))
    assert r.info.item() == torch.linalg.cholesky_ex(torch.from_numpy(s)).info.item() == 41
    with pytest.raises(strided.linalg.LinAlgError) as err:
        strided.linalg.cholesky(strided.tensor(s))
    with pytest.raises(torch.linalg.LinAlgError) as terr:
        torch.linalg.cholesky(torch.from_numpy(s))
    assert str(err.value).splitlines()[0] == str(terr.value).splitlines()[0]


@needs_mkl
def test_nan_matrix_inverse_all_nan_and_det_nan():
    a = _well_conditioned(np.random.default_rng(2), (80, 80), np.float64)
    a[3, 7] = np.nan
    assert strided.linalg.inv(strided.tensor(a)).isnan().all().item()
    assert np.isnan(strided.linalg.det(strided.tensor(a)).item())


@needs_mkl
def test_gradients_match_torch():
    rng = np.random.default_rng(3)
    a = _well_conditioned(rng, (70, 70), np.float64)
    b = rng.standard_normal((70, 2))
    sa = strided.tensor(a, requires_grad=True)
    ta = torch.tensor(a, requires_grad=True)
    (strided.linalg.inv(sa).sum() + strided.linalg.det(sa) + strided.linalg.solve(sa, strided.tensor(b)).sum()).backward()
    (torch.linalg.inv(ta).sum() + torch.linalg.det(ta) + torch.linalg.solve(ta, torch.from_numpy(b)).sum()).backward()
    np.testing.assert_allclose(sa.grad.numpy(), ta.grad.numpy(), rtol=1e-9, atol=1e-11)


def test_small_matrices_and_other_dtypes_stay_off_the_route():
    a = np.eye(64)
    assert M.inv(a) is None and M.det(a, True) is None and M.cholesky(a, False) is None
    assert M.eigh(a, "L", True) is None and M.svd(np.ones((100, 64)), True, True) is None
    assert M.inv(np.eye(70, dtype=np.complex128)) is None
    assert M.inv(np.eye(70, dtype=np.float16)) is None
    assert M.solve(np.eye(70), np.ones((70, 2), np.float32)) is None


_SCRIPT = r"""
import sys, numpy as np
import strided
maps = open('/proc/self/maps').read()
assert 'libmkl_rt' not in maps, 'import strided loaded MKL'
from strided.ops.linalg import mkl_lapack as M
rng = np.random.default_rng(0)
a = (rng.standard_normal((90, 90)) / 9 + np.eye(90)).astype(np.float32)
inv = strided.linalg.inv(strided.tensor(a)).numpy()
want = np.linalg.inv(a.astype(np.float64)).astype(np.float32)
print(M.mkl_library() is None, np.array_equal(inv, want), 'libmkl_rt' in open('/proc/self/maps').read())
"""


@pytest.mark.parametrize("switch", ["openblas", ""])
def test_openblas_switch_subprocess(switch):
    """STRIDED_BLAS=openblas: no MKL loaded, NumPy's bits (today's path); import strided never loads MKL."""
    env = dict(os.environ, STRIDED_BLAS=switch)
    out = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    off, numpy_bits, loaded = out.stdout.split()
    if switch == "openblas" or M.mkl_library() is None:
        assert (off, numpy_bits, loaded) == ("True", "True", "False")
    else:
        assert (off, loaded) == ("False", "True")


def test_numpys_bits_under_openblas_switch_subprocess():
    """STRIDED_BLAS=openblas: the tests that pin NumPy's bits for large matrices pass unskipped."""
    env = dict(os.environ, STRIDED_BLAS="openblas")
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
                          "tests/test_linalg_fastpaths.py", "-k", "precast_permuted or large_inverse_strides"],
                         env=env, capture_output=True, text=True, timeout=600,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert out.returncode == 0, out.stdout[-3000:]
    progress = out.stdout.split()[0]  # (one "." a passed test, "s" a skipped one)
    assert set(progress) == {"."} and len(progress) == 13, out.stdout[-3000:]
