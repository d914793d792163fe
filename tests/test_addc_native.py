"""addcmul / addcdiv out of place on any one dense layout (row-major, or permuted with PyTorch's
output taking the same strides): the flat-run fast path (the binary ops' plan, so a transposed
call no longer computes the product and sum only to overwrite them), and addcdiv's three ufuncs as
one pass of the compiled ``addcdiv_runs``. The same bits as the general path (``out=``) and as
NumPy's ufuncs (``native.disabled()``), NaN payloads included (two NaN operands in one operation:
NumPy's loop), PyTorch's strides and values; in place; under autograd; the kernel's refusals.
addcdiv's kernel in place (out is x) and addcmul's (``addcmul_runs``: its product and fma in one
pass) against the steps they replace.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import strided
from oracle_helpers import case
from strided.kernels import native

_KERNEL = native.special()
pytestmark = pytest.mark.skipif(_KERNEL is None or not hasattr(_KERNEL, "addcdiv_runs"),
                                reason="the compiled special functions are not built")


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint32 if a.dtype == np.float32 else np.uint64)


def _numpy(x: np.ndarray, y1: np.ndarray, y2: np.ndarray, value: float | int) -> np.ndarray:
    with np.errstate(all="ignore"):
        scaled = np.multiply(y1, value) if value != 1 else y1
        q = np.true_divide(scaled, y2)
        # (a NaN quotient's word, x's NaN or not: PyTorch's kernel, test_attack42)
        return np.where(np.isnan(q), q, np.add(x, q))


def _operand_sets(rng: np.random.Generator, dtype: type) -> list[list[np.ndarray]]:
    """Three (x, y1, y2) sets: random bit patterns (NaN payloads, subnormals, infinities), an
    edge grid (every triple of nine edge values), plain values."""
    width = np.uint32 if dtype == np.float32 else np.uint64
    pats = [rng.integers(0, np.iinfo(width).max, 3000, dtype=np.uint64).astype(width).view(dtype) for _ in range(3)]
    v = np.array([0.0, -0.0, 1.0, -2.0, 1e-45, 3e38, np.inf, -np.inf, np.nan], dtype)
    grid = [g.ravel() for g in np.meshgrid(v, v, v)]
    return [pats, grid, [rng.uniform(-2, 2, 1001).astype(dtype) for _ in range(3)]]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("value", [1, 0.5, -3, 1e-30, 3e38, 7])
def test_the_kernel_gives_the_ufuncs_bits(dtype: type, value: float | int) -> None:
    rng = np.random.default_rng(4)
    for x, y1, y2 in _operand_sets(rng, dtype):
        out = np.empty_like(x)
        with np.errstate(all="ignore"):
            taken = _KERNEL.addcdiv_runs(x, y1, y2, float(value) if value != 1 else None, out)
        ref = _numpy(x, y1, y2, value)
        if taken:  # (declined: an operation met two NaN operands somewhere)
            np.testing.assert_array_equal(_bits(out), _bits(ref))
        for lo in range(0, len(x), 7):  # (short runs: most take the kernel, NaN payloads included)
            part = np.empty(len(x[lo:lo + 7]), x.dtype)
            with np.errstate(all="ignore"):
                if _KERNEL.addcdiv_runs(x[lo:lo + 7], y1[lo:lo + 7], y2[lo:lo + 7], float(value) if value != 1 else None,
                                        part):
                    np.testing.assert_array_equal(_bits(part), _bits(ref[lo:lo + 7]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_two_nans_leave_it_to_numpy(dtype: type) -> None:
    """NaN payloads in two operands of the division: the kernel declines, the op gives NumPy's bits.
    A NaN x and a NaN quotient: the kernel takes it, the quotient's word (PyTorch's)."""
    width = np.uint32 if dtype == np.float32 else np.uint64
    nan1, nan2 = (np.array(v, width).view(dtype) for v in ((0x7FC12345, 0xFFC54321) if dtype == np.float32 else
                                                           (0x7FF8000000012345, 0xFFF8000000054321)))
    x, y1, y2 = (np.linspace(1, 2, 40).astype(dtype) for _ in range(3))
    y1[3], y2[3] = nan1, nan2
    assert not _KERNEL.addcdiv_runs(x, y1, y2, None, np.empty_like(x))
    s = [strided.from_numpy(a) for a in (x, y1, y2)]
    np.testing.assert_array_equal(_bits(strided.addcdiv(*s).numpy()), _bits(_numpy(x, y1, y2, 1)))
    y2[3] = 1.0
    x[3] = nan2
    out = np.empty_like(x)
    assert _KERNEL.addcdiv_runs(x, y1, y2, None, out)
    assert _bits(out)[3] == _bits(y1)[3]
    t = torch.addcdiv(torch.from_numpy(x), torch.from_numpy(y1), torch.from_numpy(y2))
    np.testing.assert_array_equal(_bits(out), _bits(t.numpy()))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("value", [1, 0.5, -3, 1e-30, 7])
def test_in_place_the_kernel_gives_the_ufuncs_bits_or_declines_on_a_nan(dtype: type, value: float | int) -> None:
    """In place (out is x) the kernel cannot leave a run half written for NumPy to redo: an operand
    holding a NaN anywhere (or a NaN value) declines before anything is written; otherwise no
    operation meets two NaNs and the bits are the ufuncs', infinities, zeros and inf * 0 included."""
    rng = np.random.default_rng(6)
    v = np.array([0.0, -0.0, 1.0, -2.0, 1e-45, 3e38, np.inf, -np.inf], dtype)
    grid = [g.ravel() for g in np.meshgrid(v, v, v)]
    for x, y1, y2 in (grid, [rng.uniform(-2, 2, 1001).astype(dtype) for _ in range(3)]):
        ref = _numpy(x, y1, y2, value)
        z = x.copy()
        with np.errstate(all="ignore"):
            assert _KERNEL.addcdiv_runs(z, y1, y2, float(value) if value != 1 else None, z)
        np.testing.assert_array_equal(_bits(z), _bits(ref))
        for arr in (0, 1, 2):
            ops = [x.copy(), y1.copy(), y2.copy()]
            ops[arr][len(x) // 2] = np.nan
            before = ops[0].copy()
            with np.errstate(all="ignore"):
                assert not _KERNEL.addcdiv_runs(ops[0], ops[1], ops[2], float(value) if value != 1 else None, ops[0])
            assert ops[0].tobytes() == before.tobytes()
        z = x.copy()
        assert not _KERNEL.addcdiv_runs(z, y1, y2, float("nan"), z)
        assert z.tobytes() == x.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_in_place_a_nan_anywhere_in_any_operand_declines(dtype: type) -> None:
    """The in-place kernel tests its three operands for a NaN in one pass: a NaN (either sign, a
    payload) at any place of any one operand, in runs as short as one element and past every
    vector width's tail, declines with nothing written; without one the bits are the ufuncs'."""
    rng = np.random.default_rng(30)
    width = np.uint32 if dtype == np.float32 else np.uint64
    nans = [np.array([np.nan], dtype)[0], -np.array([np.nan], dtype)[0],
            np.array([np.nan], dtype).view(width)[0] | width(1)]
    nans[2] = np.array([nans[2]], width).view(dtype)[0]  # (a quiet NaN with a payload)
    for n in [*range(1, 41), 63, 64, 65, 8192]:
        x, y1 = (rng.uniform(-2, 2, n).astype(dtype) for _ in range(2))
        y2 = rng.uniform(0.5, 2, n).astype(dtype)
        z = x.copy()
        assert _KERNEL.addcdiv_runs(z, y1, y2, -1e-3, z)
        np.testing.assert_array_equal(_bits(z), _bits(_numpy(x, y1, y2, -1e-3)))
        places = range(n) if n <= 65 else (0, 1, 15, 16, 17, n // 2, n - 17, n - 2, n - 1)
        for arr, at in itertools.product((0, 1, 2), places):
            ops = [x.copy(), y1.copy(), y2.copy()]
            ops[arr][at] = nans[(arr + at) % 3]
            before = ops[0].tobytes()
            assert not _KERNEL.addcdiv_runs(ops[0], ops[1], ops[2], -1e-3, ops[0]), (n, arr, at)
            assert ops[0].tobytes() == before


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
def test_in_place_addcdiv_with_a_nan_matches_pytorch(dtype: strided.DType) -> None:
    """``w.addcdiv_(m, d, value=)`` (an Adam update) with a NaN in one operand: the kernel declines
    and NumPy's loop writes PyTorch's values (the NaN where it is, every other element exact)."""
    rng = np.random.default_rng(31)
    npd = np.float32 if dtype is strided.float32 else np.float64
    for shape, arr, at in [((128, 64), 0, (0, 0)), ((128, 64), 1, (127, 63)), ((10,), 2, (9,)), ((3, 5), 1, (1, 2))]:
        ops = [rng.uniform(-2, 2, shape).astype(npd), rng.uniform(-2, 2, shape).astype(npd),
               rng.uniform(0.5, 2, shape).astype(npd)]
        ops[arr][at] = np.nan
        s = [strided.tensor(a) for a in ops]
        t = [torch.tensor(a) for a in ops]
        s[0].addcdiv_(s[1], s[2], value=-1e-3)
        t[0].addcdiv_(t[1], t[2], value=-1e-3)
        np.testing.assert_array_equal(s[0].numpy(), t[0].numpy())
        assert s[0].stride() == t[0].stride()


def _addcmul_steps(x: np.ndarray, y1: np.ndarray, y2: np.ndarray, value: float | int) -> np.ndarray:
    """addcmul's steps before ``addcmul_runs``: NumPy's product, then ``fma_into``'s kernel."""
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        scaled = np.multiply(y1, value) if value != 1 else y1
        assert (_KERNEL.fma32 if x.dtype == np.float32 else _KERNEL.fma64)(scaled, y2, x, out)
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("value", [1, 0.5, -3, 1e-30, 3e38, 7, float("inf")])
def test_addcmul_runs_gives_the_steps_bits(dtype: type, value: float | int) -> None:
    """addcmul_runs is the product and fma_into's kernel in one pass: their bits on random bit
    patterns (NaN payloads, subnormals, infinities), an edge grid and plain values, lengths around
    its blocks, out being x, y1 or y2 itself."""
    rng = np.random.default_rng(8)
    for x, y1, y2 in _operand_sets(rng, dtype):
        for n in (len(x), 1, 7, 255, 256, 257, 600):
            ops = [a[:n] for a in (x, y1, y2)]
            ref = _addcmul_steps(*ops, value)
            for into in (None, 0, 1, 2):
                mine = [a.copy() for a in ops]
                out = np.empty_like(ops[0]) if into is None else mine[into]
                with np.errstate(all="ignore"):
                    assert _KERNEL.addcmul_runs(*mine, float(value) if value != 1 else None, out)
                np.testing.assert_array_equal(_bits(out), _bits(ref))


def test_addcmul_runs_declines_a_nan_value_and_partial_overlaps() -> None:
    x, y1, y2 = (np.linspace(1, 2, 50, dtype=np.float32) + k for k in range(3))
    z = x.copy()
    assert not _KERNEL.addcmul_runs(z, y1, y2, float("nan"), z)  # (NumPy's multiply picks the NaN)
    assert z.tobytes() == x.tobytes()
    buf = np.zeros(51, np.float32)
    buf[1:] = x
    assert not _KERNEL.addcmul_runs(buf[1:], y1, y2, 0.5, buf[:50])
    assert not _KERNEL.addcmul_runs(x, y1, y2.astype(np.float64), None, np.empty_like(x))
    with pytest.raises((BufferError, ValueError)):
        _KERNEL.addcmul_runs(x[::2], y1[::2], y2[::2], None, np.empty(25, np.float32))
    with pytest.raises(TypeError):
        _KERNEL.addcmul_runs(x, y1, y2, "v", np.empty_like(x))
    with pytest.raises(TypeError, match="4 or 5 arguments"):
        _KERNEL.addcmul_runs(x, y1, y2)
    with pytest.raises(TypeError):  # (four arguments: (x, y1, y2, out), and None is no buffer)
        _KERNEL.addcmul_runs(x, y1, y2, None)


def test_aliasing_and_refusals() -> None:
    x, y1, y2 = (np.linspace(1, 2, 50, dtype=np.float32) + k for k in range(3))
    ref = _numpy(x, y1, y2, 0.5)
    z = x.copy()
    assert _KERNEL.addcdiv_runs(z, y1, y2, 0.5, z)  # (out is x: in place)
    np.testing.assert_array_equal(_bits(z), _bits(ref))
    out = np.empty_like(x)
    assert _KERNEL.addcdiv_runs(x, y1, y2, 0.5, out)
    np.testing.assert_array_equal(_bits(out), _bits(ref))
    buf = np.zeros(51, np.float32)
    buf[1:] = x
    assert not _KERNEL.addcdiv_runs(buf[1:], y1, y2, 0.5, buf[:50])  # (a partial overlap)
    z = y1.copy()
    assert not _KERNEL.addcdiv_runs(x, z, y2, 0.5, z)  # (in place on y1, not x: declined)
    assert not _KERNEL.addcdiv_runs(z, z, y2, 0.5, z)  # (in place, y1 being x: declined too)
    assert z.tobytes() == y1.tobytes()
    assert not _KERNEL.addcdiv_runs(x, y1, y2.astype(np.float64), None, np.empty_like(x))
    assert not _KERNEL.addcdiv_runs(x[::2], y1[::2], y2[::2], None, np.empty(25, np.float32))
    with pytest.raises(TypeError):
        _KERNEL.addcdiv_runs(x, y1, y2, "v", np.empty_like(x))


_VIEWS = {
    "row-major": lambda t: t,
    "transposed": lambda t: t.transpose(0, 2),
    "permuted": lambda t: t.permute(1, 2, 0),
    "stepped": lambda t: t[:, ::2],
}


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_ops_on_every_layout(name, dtype):
    for view, value in itertools.product(
            list(_VIEWS),
            [1, 0.25, -2]):
        with case(view=view, value=value):
            _the_ops_on_every_layout(view, name, value, dtype)


def _the_ops_on_every_layout(view: str, name: str, value: float | int, dtype: str) -> None:
    rng = np.random.default_rng(9)
    arrays = [rng.uniform(0.5, 2, (6, 8, 10)).astype(dtype) for _ in range(3)]
    s = [_VIEWS[view](strided.from_numpy(a)) for a in arrays]
    t = [_VIEWS[view](torch.from_numpy(a)) for a in arrays]
    got = getattr(strided, name)(*s, value=value)
    want = getattr(torch, name)(*t, value=value)
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    general = strided.empty_like(got)
    getattr(strided, name)(*s, value=value, out=general)  # (the general path)
    np.testing.assert_array_equal(_bits(got.numpy()), _bits(general.numpy()))
    with native.disabled():
        np.testing.assert_array_equal(_bits(getattr(strided, name)(*s, value=value).numpy()), _bits(got.numpy()))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6 if dtype == "float32" else 1e-14)
    inplace = _VIEWS[view](strided.from_numpy(arrays[0].copy()))
    getattr(inplace, name + "_")(s[1], s[2], value=value)
    np.testing.assert_array_equal(_bits(inplace.numpy()), _bits(got.numpy()))
    leaf = strided.from_numpy(arrays[0].copy()).requires_grad_()
    graph = getattr(strided, name)(_VIEWS[view](leaf), s[1], s[2], value=value)
    np.testing.assert_array_equal(_bits(graph.detach().numpy()), _bits(got.numpy()))
    assert graph.stride() == want.stride()


@pytest.mark.parametrize("value", [1, 0.5])
def test_addcmul_runs_keeps_pytorchs_nans_in_place_and_out_of_place(value: float) -> None:
    """NaN payloads in two or three operands and inf * 0, every lane and the tail: PyTorch's bits
    (the first NaN operand: t1's before t2's before input's), with the kernel and without."""
    nans = np.array([0x7FC00001, 0xFFC00002, 0x7FC12345, 0xFFD00000], np.uint32).view(np.float32)
    rng = np.random.default_rng(12)
    for n in (1, 7, 9, 31, 257, 1000):
        x, y1, y2 = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
        for arr in (x, y1, y2):
            at = rng.random(n) < 0.5
            arr[at] = rng.choice(nans, int(at.sum()))
        y1[::5], y2[::5] = np.inf, 0.0
        want = torch.tensor(x).addcmul_(torch.tensor(y1), torch.tensor(y2), value=value).numpy()
        for on in (True, False):
            with (native.disabled() if not on else np.errstate(all="ignore")), np.errstate(all="ignore"):
                fresh = strided.addcmul(*(strided.tensor(a) for a in (x, y1, y2)), value=value)
                inplace = strided.tensor(x).addcmul_(strided.tensor(y1), strided.tensor(y2), value=value)
            assert _bits(fresh.numpy()).tolist() == _bits(want).tolist()
            assert _bits(inplace.numpy()).tolist() == _bits(want).tolist()
