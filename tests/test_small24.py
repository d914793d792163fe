"""The small-call paths of small24, compared with PyTorch's bytes and with the general paths
(``strided.kernels.native.disabled()``) over the layouts and dtypes each path can meet."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native
from strided.ops._support.front import fallback_of


def _floats(shape: tuple[int, ...], npdt: type, seed: int = 24) -> np.ndarray:
    """Random values of ``shape`` with zeros of both signs, infinities and a NaN among them."""
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)).astype(npdt)
    flat = a.reshape(-1)
    for i, v in enumerate((0.0, -0.0, np.inf, -np.inf, np.nan)):
        if 2 * i + 1 < flat.size:
            flat[2 * i + 1] = v
    return a


def _same(got: np.ndarray, want: np.ndarray) -> bool:
    """The same bytes, NaNs at the same places (a NaN's sign and payload are NumPy's loop's
    choice in the general path, as its docs say)."""
    nan = np.isnan(want)
    return bool((np.isnan(got) == nan).all() and got[~nan].tobytes() == want[~nan].tobytes())


def _misaligned(a: np.ndarray) -> np.ndarray:
    """``a``'s values in memory at an address that is no multiple of its item size."""
    raw = np.zeros(a.nbytes + 1, np.uint8)
    out = raw[1:].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


@pytest.mark.parametrize("npdt", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 3), (4, 3), (3, 4), (85, 3), (2, 3, 5), (3, 3, 3), (2, 3, 1, 3)])
def test_cross_flat_form_matches_torch(npdt: type, shape: tuple[int, ...]) -> None:
    """The fast path's flat cross3 call (1-D runs read as (outer, 3, inner) blocks) gives
    PyTorch's bytes and strides along every dim of size 3, as does the general path."""
    a, b = _floats(shape, npdt, 1), _floats(shape, npdt, 2)
    for dim in (d for d in range(-len(shape), len(shape)) if shape[d] == 3):
        want = torch.cross(torch.tensor(a), torch.tensor(b), dim=dim)
        for sa, sb in ((strided.tensor(a), strided.tensor(b)),
                       (strided.from_numpy(_misaligned(a)), strided.from_numpy(_misaligned(b)))):
            got = strided.cross(sa, sb, dim=dim)
            assert got.stride() == want.stride()
            assert _same(got.numpy(), want.numpy())
            with native.disabled():
                slow = strided.linalg.cross(sa, sb, dim=dim)
            assert _same(slow.numpy(), want.numpy())


def test_cross3_flat_refusals() -> None:
    """cross3's flat form: False (nothing written) on misaligned or overlapping memory, a
    ValueError on runs that do not fit (outer, 3, inner) blocks."""
    k = native.special()
    if k is None:
        pytest.skip("the compiled kernels are not built")
    x = np.arange(12, dtype=np.float32)
    out = np.full(12, 7.0, np.float32)
    assert k.cross3(x, x, out, 1) is True
    assert k.cross3(_misaligned(x), x, out, 1) is False
    assert k.cross3(x, out, out, 1) is False
    with pytest.raises(ValueError):
        k.cross3(x, x, out, 5)
    with pytest.raises(ValueError):
        k.cross3(x, x[:9], out, 1)
    with pytest.raises(ValueError):
        k.cross3(x, x, out, 0)


def _addc_cases(npdt: type) -> list[tuple[str, tuple, tuple]]:
    """(name, strided operands, torch operands) over the layouts and sizes the ternary front meets."""
    out = []
    for n in (1, 7, 12, 256, 600):
        a, b, c = (_floats((n,), npdt, s) for s in (3, 4, 5))
        c[::7] = np.nan  # (two NaNs meeting in one operation: the kernel's refusal, the entry's path)
        out.append((f"run {n}", tuple(strided.tensor(v) for v in (a, b, c)), tuple(torch.tensor(v) for v in (a, b, c))))
    a, b, c = (_floats((4, 6), npdt, s) for s in (6, 7, 8))
    s, t = [strided.tensor(v) for v in (a, b, c)], [torch.tensor(v) for v in (a, b, c)]
    out.append(("contiguous", tuple(s), tuple(t)))
    out.append(("transposed", tuple(v.t() for v in s), tuple(v.t() for v in t)))
    out.append(("offset", tuple(v[1:] for v in s), tuple(v[1:] for v in t)))
    out.append(("mixed", (s[0], s[1].t().contiguous().t(), s[2]), (t[0], t[1].t().contiguous().t(), t[2])))
    out.append(("broadcast", (s[0], s[1][:1], s[2]), (t[0], t[1][:1], t[2])))
    out.append(("misaligned", tuple(strided.from_numpy(_misaligned(v)) for v in (a, b, c)), tuple(t)))
    return out


@pytest.mark.parametrize("npdt", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addc_ternary_front_matches_entry_and_torch(npdt: type, name: str) -> None:
    """The ternary front's compiled call gives the entry's bytes (the Python path behind it) and
    PyTorch's values, function and method, with the kernels on and off."""
    front = getattr(strided, name)
    assert getattr(strided.Tensor, name) is front
    entry = fallback_of(front)
    for case, s, t in _addc_cases(npdt):
        want = getattr(torch, name)(*t).numpy()
        for got in (front(*s), getattr(s[0], name)(*s[1:]), entry(*s)):
            assert got.stride() == tuple(want.strides[i] // want.itemsize for i in range(want.ndim)), case
            assert _same(got.numpy(), want), case
            assert got.numpy().tobytes() == entry(*s).numpy().tobytes(), case
        with native.disabled():
            assert front(*s).numpy().tobytes() == entry(*s).numpy().tobytes(), case
        scaled = front(*s, value=0.5)
        assert _same(scaled.numpy(), getattr(torch, name)(*t, value=0.5).numpy()), case


def test_addc_ternary_front_leaves_autograd_and_listeners_to_the_entry() -> None:
    """A tensor requiring grad, and a listening block, take the entry (recorded, reported)."""
    x, y, z = (strided.tensor([1.0, 2.0, 3.0]) for _ in range(3))
    w = strided.tensor([1.0, 2.0, 3.0], requires_grad=True)
    r = strided.addcmul(w, y, z)
    assert r.grad_fn is not None and r.grad_fn.name() == "AddcmulBackward0"
    r = strided.addcdiv(x, w, z)
    assert r.grad_fn is not None and r.grad_fn.name() == "AddcdivBackward0"
    with strided.watch() as w:
        strided.addcmul(x, y, z)
        x.addcdiv(y, z)
    assert [s.name for s in w.steps] == ["addcmul", "addcdiv"]


@pytest.mark.parametrize("npdt", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_fast_path_without_kernel_run_matches_torch(npdt: type, largest: bool) -> None:
    """topk's fast path hands the storage run to stl_topk as it is: misaligned memory (refused
    there) takes the general path; every answer is PyTorch's (values, indices, strides)."""
    rng = np.random.default_rng(11)
    for shape in ((3, 4), (16, 16), (2, 3, 5), (7,)):
        a = rng.permutation(np.arange(int(np.prod(shape)))).reshape(shape).astype(npdt)
        tied = a.copy()
        tied.reshape(-1)[::3] = 0
        for arr in (a, _misaligned(a), tied, _misaligned(tied)):
            for k in (1, 2, shape[-1] - 1):
                want = torch.from_numpy(arr.copy()).topk(k, largest=largest)
                got = strided.from_numpy(arr).topk(k, largest=largest)
                assert got.values.numpy().tobytes() == want.values.numpy().tobytes()
                assert got.indices.numpy().tobytes() == want.indices.numpy().tobytes()
                assert got.values.stride() == want.values.stride()
    k = native.special()
    if k is not None:
        x = _misaligned(np.arange(12, dtype=np.float32))
        assert k.stl_topk(x, np.empty(6, np.int64), np.empty(6, np.float32), 4, 2, 1) is False


@pytest.mark.parametrize("npdt", [np.float32, np.float64])
def test_vector_norm_whole_run_matches_torch(npdt: type) -> None:
    """The whole 2-norm of a row-major tensor (torch_norm2_rows on its storage run, straight; a
    misaligned or offset run too) gives PyTorch's bytes, as the NumPy loop does."""
    for n in (2, 3, 7, 8, 12, 31, 256, 1000):
        a = _floats((n,), npdt, n)
        a[1::2] = np.abs(a[1::2])  # (finite values too: the sum of squares is not all inf/NaN)
        a = np.where(np.isfinite(a), a, 1.5).astype(npdt)
        want = torch.linalg.vector_norm(torch.tensor(a)).numpy().tobytes()
        for s in (strided.tensor(a), strided.from_numpy(_misaligned(a)), strided.tensor(np.r_[a[:1], a])[1:],
                  strided.tensor(a).reshape(1, n)):
            assert strided.linalg.vector_norm(s).numpy().tobytes() == want, n
            with native.disabled():
                assert strided.linalg.vector_norm(s).numpy().tobytes() == want, n
    k = native.special()
    if k is not None:
        x = np.arange(12, dtype=np.float32)
        assert k.torch_norm2_rows(_misaligned(x), np.empty(1, np.float32), 12) is False
        assert k.torch_norm2_rows(np.arange(24, dtype=np.float32)[::2], np.empty(1, np.float32), 12) is False


@pytest.mark.parametrize("name", ["max", "min"])
def test_full_extreme_front_matches_entry_and_torch(name: str) -> None:
    """max()/min()'s compiled front (extreme_one into a fresh 0-d result) gives the entry's bytes
    and PyTorch's, function and method; zeros, NaNs, 0-d, empty, other layouts and dtypes, the
    kernels off, autograd and listeners go to the entry as before."""
    front = getattr(strided, name)
    assert getattr(strided.Tensor, name) is front
    entry = fallback_of(front)
    cases = []
    for npdt in (np.float32, np.float64):
        for n in (1, 2, 12, 256, 1000):
            a = _floats((n,), npdt, n)
            cases += [a, np.where(np.isnan(a), 1.0, a).astype(npdt), np.abs(a) + 1, -np.abs(a) - 1]
        cases += [np.array([0.0, -0.0, -1.0], npdt), np.array([-0.0, 0.0, 1.0], npdt), np.array(2.5, npdt),
                  np.arange(12, dtype=npdt).reshape(3, 4)]
    cases += [np.arange(12, dtype=np.int64).reshape(3, 4), np.array([3, 1, 2], np.int32)]
    for a in cases:
        want = getattr(torch, name)(torch.from_numpy(a.copy())).numpy()
        for s in (strided.from_numpy(a.copy()), strided.from_numpy(_misaligned(a)) if a.ndim else strided.tensor(a)):
            for got in (front(s), getattr(s, name)(), entry(s)):
                assert got.shape == () and got.dtype == s.dtype
                assert _same(got.numpy(), want) if a.dtype.kind == "f" else got.numpy().tobytes() == want.tobytes()
                assert got.numpy().tobytes() == entry(s).numpy().tobytes()
            with native.disabled():
                assert front(s).numpy().tobytes() == entry(s).numpy().tobytes()
    m = strided.tensor([[1.0, 5.0], [7.0, 2.0]])
    assert getattr(m.t(), name)().item() == (7.0 if name == "max" else 1.0)
    assert getattr(m[1:], name)().item() == (7.0 if name == "max" else 2.0)
    assert getattr(m, name)(1).values.tolist() == getattr(torch.tensor([[1.0, 5.0], [7.0, 2.0]]), name)(1).values.tolist()
    with pytest.raises(RuntimeError):
        front(strided.ones(0))
    w = strided.tensor([1.0, 3.0, 2.0], requires_grad=True)
    r = front(w)
    assert r.grad_fn is not None
    r.backward()
    assert w.grad.tolist() == ([0.0, 1.0, 0.0] if name == "max" else [1.0, 0.0, 0.0])
    with strided.watch() as seen:
        front(m)
    assert [s.name for s in seen.steps] == [name]


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan_front_matches_entry_and_torch(name: str) -> None:
    """cumsum/cumprod's compiled front (scan along the last dim, strict: a line ending in NaN goes
    to the entry) gives the entry's bytes and PyTorch's values; other dims, dtypes, dtype=, 0-d,
    empty, misaligned and strided layouts, the kernels off, autograd and listeners take the entry."""
    front = getattr(strided, name)
    assert getattr(strided.Tensor, name) is front
    entry = fallback_of(front)
    arrays = []
    for npdt in (np.float32, np.float64):
        for shape in ((1,), (5,), (3, 4), (16, 16), (2, 3, 5), (4, 1)):
            a = _floats(shape, npdt, sum(shape))
            arrays += [a, np.where(np.isfinite(a), a, 0.5).astype(npdt) / 4, np.full(shape, -0.0, npdt)]
    arrays += [np.arange(12, dtype=np.int64).reshape(3, 4), np.array(2.5, np.float32)]
    for a in arrays:
        dims = [d for d in range(-a.ndim, a.ndim)] or [0]
        for dim in dims:
            want = getattr(torch, name)(torch.from_numpy(a.copy()), dim).numpy()
            sources = [strided.from_numpy(a.copy())] + ([strided.from_numpy(_misaligned(a))] if a.ndim else [])
            for s in sources:
                for got in (front(s, dim), getattr(s, name)(dim), front(s, dim=dim)):
                    assert got.stride() == tuple(want.strides[i] // want.itemsize for i in range(want.ndim))
                    assert got.numpy().tobytes() == entry(s, dim).numpy().tobytes()
                    assert _same(got.numpy(), want) if a.dtype.kind == "f" else got.numpy().tobytes() == want.tobytes()
                with native.disabled():
                    assert front(s, dim).numpy().tobytes() == entry(s, dim).numpy().tobytes()
    m = strided.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert front(m.t(), 1).tolist() == getattr(torch, name)(torch.tensor([[1.0, 2.0], [3.0, 4.0]]).t(), 1).tolist()
    assert front(m, 1, dtype=strided.float64).dtype == strided.float64
    assert front(strided.ones(0, 3), 1).shape == (0, 3)
    w = strided.tensor([1.0, 3.0, 2.0], requires_grad=True)
    front(w, 0).sum().backward()
    assert w.grad is not None
    with strided.watch() as seen:
        front(m, 1)
    assert [s.name for s in seen.steps] == [name]


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cum_extreme_without_kernel_run_matches_torch(name: str) -> None:
    """cummax/cummin's fast path hands its storage run to running_extreme as it is: misaligned
    memory (refused there) takes the aligned copy; values and indices are PyTorch's."""
    for npdt in (np.float32, np.float64, np.int32, np.int64):
        for shape in ((5,), (3, 4), (2, 3, 5)):
            a = _floats(shape, np.float64, 9) if np.dtype(npdt).kind == "f" else np.arange(np.prod(shape)) % 3
            a = a.astype(npdt).reshape(shape)
            for dim in range(-len(shape), len(shape)):
                want = getattr(torch, name)(torch.from_numpy(a.copy()), dim)
                for s in (strided.from_numpy(a.copy()), strided.from_numpy(_misaligned(a))):
                    got = getattr(strided, name)(s, dim)
                    assert _same(got.values.numpy(), want.values.numpy()) if a.dtype.kind == "f" else \
                        got.values.numpy().tobytes() == want.values.numpy().tobytes()
                    assert got.indices.numpy().tobytes() == want.indices.numpy().tobytes()
    k = native.special()
    if k is not None:
        x = _misaligned(np.arange(12, dtype=np.float32))
        assert k.running_extreme(x, np.empty(12, np.float32), np.empty(12, np.int64), 4, 1, True) is False


@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_flat_median_front_matches_entry_and_torch(name: str) -> None:
    """median()/nanmedian()'s compiled front (flat_median: the lower middle value where no element
    is NaN and it is no zero) gives the entry's bytes and PyTorch's; NaN, zeros of both signs,
    ties, 0-d, empty, more than 1024 elements, misaligned and strided layouts, ints, the kernels
    off, autograd and listeners take the entry as before."""
    front = getattr(strided, name)
    assert getattr(strided.Tensor, name) is front
    entry = fallback_of(front)
    rng = np.random.default_rng(3)
    arrays = []
    for npdt in (np.float32, np.float64):
        for n in (1, 2, 3, 12, 64, 65, 256, 1024, 1025):
            a = rng.standard_normal(n).astype(npdt)
            arrays += [a, np.round(a).astype(npdt), _floats((n,), npdt, n)]
            b = a.copy()
            b[: n // 2 + 1] = 0.0
            b[:2] = -0.0
            arrays.append(b)
        arrays += [np.array([-0.0, 0.0, 0.0], npdt), np.array(1.5, npdt), np.arange(16, dtype=npdt).reshape(4, 4)]
    arrays += [np.arange(12, dtype=np.int64).reshape(3, 4)]
    for a in arrays:
        want = getattr(torch, name)(torch.from_numpy(a.copy())).numpy()
        for s in (strided.from_numpy(a.copy()),) + ((strided.from_numpy(_misaligned(a)),) if a.ndim else ()):
            got = front(s)
            assert got.shape == () and got.dtype == s.dtype
            assert got.numpy().tobytes() == entry(s).numpy().tobytes()
            assert getattr(s, name)().numpy().tobytes() == entry(s).numpy().tobytes()
            assert got.numpy().tobytes() == want.tobytes() or (np.isnan(want) and np.isnan(got.numpy()))
            with native.disabled():
                assert front(s).numpy().tobytes() == entry(s).numpy().tobytes()
    m = strided.tensor([[1.0, 5.0], [7.0, 2.0], [3.0, 4.0]])
    tm = torch.tensor([[1.0, 5.0], [7.0, 2.0], [3.0, 4.0]])
    assert front(m.t()).item() == getattr(torch, name)(tm.t()).item()
    assert front(m, 1).values.tolist() == getattr(torch, name)(tm, 1).values.tolist()
    assert np.isnan(front(strided.ones(0)).item())
    w = strided.tensor([1.0, 3.0, 2.0], requires_grad=True)
    front(w).backward()
    assert w.grad.tolist() == [0.0, 0.0, 1.0]
    with strided.watch() as seen:
        front(m)
    assert [s.name for s in seen.steps] == [name]


def test_prod_front_matches_entry_and_torch() -> None:
    """prod()'s compiled front (torch_prod_rows over every element, strict: a NaN product goes to
    the entry) gives the entry's bytes and PyTorch's; other calls take the entry as before."""
    front = strided.prod
    assert strided.Tensor.prod is front
    entry = fallback_of(front)
    rng = np.random.default_rng(8)
    arrays = []
    for npdt in (np.float32, np.float64):
        for n in (1, 2, 7, 12, 15, 16, 31, 32, 33, 100, 256, 1000):
            arrays += [(rng.uniform(0.5, 1.5, n)).astype(npdt), _floats((n,), npdt, n),
                       rng.uniform(-3, 3, n).astype(npdt) * 1e10]
        arrays += [np.array([0.0, -1.0], npdt), np.array([np.inf, 0.0], npdt), np.array(3.5, npdt),
                   np.arange(1, 13, dtype=npdt).reshape(3, 4)]
    arrays += [np.arange(1, 13, dtype=np.int64).reshape(3, 4)]
    for a in arrays:
        want = torch.prod(torch.from_numpy(a.copy())).numpy()
        for s in (strided.from_numpy(a.copy()),) + ((strided.from_numpy(_misaligned(a)),) if a.ndim else ()):
            got = front(s)
            assert got.shape == () and got.dtype == s.dtype
            assert got.numpy().tobytes() == entry(s).numpy().tobytes()
            assert s.prod().numpy().tobytes() == entry(s).numpy().tobytes()
            assert _same(got.numpy(), want) if a.dtype.kind == "f" else got.numpy().tobytes() == want.tobytes()
            with native.disabled():
                assert front(s).numpy().tobytes() == entry(s).numpy().tobytes()
    assert front(strided.ones(0)).item() == 1.0
    m = strided.tensor([[1.0, 5.0], [7.0, 2.0]])
    assert front(m, 1).tolist() == [5.0, 14.0] and front(m.t()).item() == 70.0
    w = strided.tensor([1.0, 3.0, 2.0], requires_grad=True)
    front(w).backward()
    assert w.grad.tolist() == [6.0, 2.0, 3.0]
    with strided.watch() as seen:
        front(m)
    assert [s.name for s in seen.steps] == ["prod"]


def test_aminmax_front_matches_entry_and_torch() -> None:
    """aminmax()'s compiled front (extreme_pair into two fresh 0-d results, the named tuple) gives
    the entry's results and PyTorch's; zeros, NaN, large, 0-d, other calls take the entry."""
    front = strided.aminmax
    assert strided.Tensor.aminmax is front
    entry = fallback_of(front)
    arrays = []
    for npdt in (np.float32, np.float64):
        for n in (1, 2, 12, 256, 5000, 70000):
            a = _floats((n,), npdt, n)
            arrays += [a, np.where(np.isfinite(a), a, 1.0).astype(npdt) + 0.5]
        arrays += [np.array([0.0, -0.0, 1.0], npdt), np.array(2.5, npdt), np.arange(12, dtype=npdt).reshape(3, 4)]
    arrays += [np.arange(12, dtype=np.int64).reshape(3, 4)]
    for a in arrays:
        want = torch.aminmax(torch.from_numpy(a.copy()))
        for s in (strided.from_numpy(a.copy()),) + ((strided.from_numpy(_misaligned(a)),) if a.ndim else ()):
            got, ref = front(s), entry(s)
            assert type(got) is type(ref) and got._fields == ("min", "max")
            for g, r, w in zip(got, ref, (want.min, want.max)):
                assert g.shape == () and g.numpy().tobytes() == r.numpy().tobytes()
                assert _same(g.numpy(), w.numpy()) if a.dtype.kind == "f" else g.numpy().tobytes() == w.numpy().tobytes()
            assert [v.item() for v in s.aminmax()] == [v.item() for v in ref] or np.isnan(ref.max.item())
            with native.disabled():
                assert [v.numpy().tobytes() for v in front(s)] == [v.numpy().tobytes() for v in ref]
    m = strided.tensor([[1.0, 5.0], [7.0, 2.0]])
    assert front(m, dim=1).max.tolist() == [5.0, 7.0] and front(m.t()).max.item() == 7.0
    with strided.watch() as seen:
        front(m)
    assert [s.name for s in seen.steps] == ["aminmax"]


def test_as_strided_copy_fast_path_matches_general_and_torch() -> None:
    """as_strided_copy's fast path (the as_strided memo's layout gathered from the storage) gives
    the general path's bytes and strides and PyTorch's; refusals raise as before, on every call."""
    a = np.arange(24, dtype=np.float32)
    calls = [((2, 3), (3, 1)), ([2, 3], [1, 2]), ((2, 2), (1, 2), 1), ((3, 4), (0, 1)), ((4, 3), (1, 1), 5),
             ((1, 4), (8, 1)), ((0, 3), (3, 1)), ((), ()), ((2, 2), (2, 1), None)]
    for base in (lambda lib, x: x, lambda lib, x: x[2:], lambda lib, x: x.reshape(4, 6).t()):
        s, t = base(strided, strided.tensor(a)), base(torch, torch.tensor(a))
        for args in calls:
            for _ in range(2):  # (the second call finds the memo's answer)
                got = strided.as_strided_copy(s, *args)
                want = torch.as_strided_copy(t, *args)
                assert got.shape == tuple(want.shape) and got.stride() == want.stride()
                assert got.numpy().tobytes() == want.numpy().tobytes()
                with native.disabled():
                    assert strided.as_strided_copy(s, *args).numpy().tobytes() == got.numpy().tobytes()
    s = strided.tensor(a)
    for bad in (((5, 5), (5, 1)), ((2, 2), (-1, 1)), ((2.0, 2), (2, 1))):
        for _ in range(2):
            with pytest.raises((RuntimeError, TypeError)):
                strided.as_strided_copy(s, *bad)
    w = strided.tensor([1.0, 2.0, 3.0], requires_grad=True)
    r = strided.as_strided_copy(w, (2,), (1,))
    r.sum().backward()
    assert w.grad.tolist() == [1.0, 1.0, 0.0]
    with strided.watch() as seen:
        strided.as_strided_copy(s, (2, 3), (3, 1))
    assert [x.name for x in seen.steps] == ["as_strided_copy"]


def test_elu_front_matches_wrapper_and_torch() -> None:
    """F.elu's compiled front (greater_copy_into: x itself where every element is > 0) gives the
    wrapper's bytes and PyTorch's; any other input and call takes the wrapper."""
    import torch.nn.functional as TF

    import strided.nn.functional as F

    front = F.elu
    wrapper = fallback_of(front)
    assert front is not wrapper
    for npdt in (np.float32, np.float64):
        for n in (1, 7, 12, 256, 3000):
            a = _floats((n,), npdt, n)
            for v in (np.abs(a) + 0.5, a, np.where(np.isnan(a), 1.0, np.abs(a)).astype(npdt), np.zeros(n, npdt)):
                v = v.astype(npdt)
                want = TF.elu(torch.from_numpy(v.copy())).numpy()
                for s in (strided.from_numpy(v.copy()), strided.from_numpy(_misaligned(v))):
                    got = front(s)
                    assert got.numpy().tobytes() == wrapper(s).numpy().tobytes()
                    # (elu's expm1 of a negative x: PyTorch's split of SLEEF's and the C library's)
                    assert _same(got.numpy(), want) or native.sleef() is None
                    with native.disabled():  # (NumPy's expm1 there: within an ulp)
                        np.testing.assert_allclose(front(s).numpy(), got.numpy(), rtol=3e-7, atol=0)
    x = strided.tensor([0.5, 2.0])
    assert front(x, 0.5).tolist() == [0.5, 2.0] and front(-x, alpha=2.0).tolist() == TF.elu(torch.tensor([-0.5, -2.0]), 2.0).tolist()
    y = strided.tensor([1.0, -1.0])
    assert front(y, inplace=True) is y
    w = strided.tensor([1.0, 2.0], requires_grad=True)
    front(w).sum().backward()
    assert w.grad.tolist() == [1.0, 1.0]


def test_hardtanh_front_matches_wrapper_and_torch() -> None:
    """F.hardtanh's compiled front (clamp_scalar to [-1, 1]) gives the wrapper's bytes (np.clip's)
    and PyTorch's; bounds given, inplace, autograd and other layouts take the wrapper."""
    import torch.nn.functional as TF

    import strided.nn.functional as F

    front = F.hardtanh
    wrapper = fallback_of(front)
    assert front is not wrapper
    for npdt in (np.float32, np.float64):
        for shape in ((1,), (12,), (3, 4), (16, 16), (3, 1), (2, 1, 3), (3000,)):
            a = _floats(shape, npdt, sum(shape))
            a.reshape(-1)[:4] = np.array([-1.0, 1.0, -0.0, 0.0], npdt)[: a.size]
            want = TF.hardtanh(torch.from_numpy(a.copy())).numpy()
            for s in (strided.from_numpy(a.copy()), strided.from_numpy(_misaligned(a))):
                got = front(s)
                assert got.stride() == wrapper(s).stride()
                assert got.numpy().tobytes() == wrapper(s).numpy().tobytes()
                assert _same(got.numpy(), want)
                with native.disabled():
                    assert front(s).numpy().tobytes() == got.numpy().tobytes()
    x = strided.tensor([-3.0, 0.5, 7.0])
    assert front(x, 0.0, 6.0).tolist() == [0.0, 0.5, 6.0] and front(x.flip(0)).tolist() == [1.0, 0.5, -1.0]
    y = strided.tensor([5.0, -5.0])
    assert front(y, inplace=True) is y and y.tolist() == [1.0, -1.0]
    w = strided.tensor([0.5, 2.0], requires_grad=True)
    front(w).sum().backward()
    assert w.grad.tolist() == [1.0, 0.0]


@pytest.mark.parametrize("name", ["atan2", "arctan2"])
def test_atan2_front_entry_matches_python_path_and_torch(name: str) -> None:
    """atan2's float32 kernel entry (SLEEF's row from C, atan2_flat's own call below the grain)
    gives the Python path's bytes and PyTorch's, at every length around the step and the grain."""
    front = getattr(strided, name)
    entry = fallback_of(front)
    for n in (1, 7, 15, 16, 17, 31, 32, 33, 100, 1000, 32767, 32768, 40000):
        y, x = _floats((n,), np.float32, n), _floats((n,), np.float32, n + 1)
        if n > 20:
            y[-10:], x[-10:] = [0.0, -0.0, 0.0, -0.0, np.inf, -np.inf, np.inf, 1.0, -1.0, np.nan], \
                [0.0, 0.0, -0.0, -0.0, np.inf, np.inf, -np.inf, 0.0, -0.0, 1.0]
        want = torch.atan2(torch.from_numpy(y.copy()), torch.from_numpy(x.copy())).numpy()
        for sy, sx in ((strided.from_numpy(y.copy()), strided.from_numpy(x.copy())),
                       (strided.from_numpy(_misaligned(y)), strided.from_numpy(_misaligned(x)))):
            got = front(sy, sx)
            assert got.numpy().tobytes() == entry(sy, sx).numpy().tobytes(), n
            assert got.numpy().tobytes() == getattr(sy, name)(sx).numpy().tobytes(), n
            assert _same(got.numpy(), want), n
            with native.disabled():  # (NumPy's arctan2 then: the entry's bits, not always PyTorch's)
                assert front(sy, sx).numpy().tobytes() == entry(sy, sx).numpy().tobytes(), n


def test_heaviside_front_matches_entry_and_torch() -> None:
    """heaviside's compiled front (binary_exact code 2 from C) gives the entry's bytes and
    PyTorch's (NaN payloads included); other dtypes, layouts, out= and refusals take the entry."""
    front = strided.heaviside
    assert strided.Tensor.heaviside is front
    entry = fallback_of(front)
    for npdt in (np.float32, np.float64):
        for n in (1, 12, 256, 3000):
            x, v = _floats((n,), npdt, n), _floats((n,), npdt, n + 7)
            x[::5] = 0.0
            x[1::7] = -0.0
            want = torch.heaviside(torch.from_numpy(x.copy()), torch.from_numpy(v.copy())).numpy()
            for sx, sv in ((strided.from_numpy(x.copy()), strided.from_numpy(v.copy())),
                           (strided.from_numpy(_misaligned(x)), strided.from_numpy(_misaligned(v)))):
                got = front(sx, sv)
                assert got.numpy().tobytes() == entry(sx, sv).numpy().tobytes() == want.tobytes()
                assert sx.heaviside(sv).numpy().tobytes() == want.tobytes()
                with native.disabled():
                    assert front(sx, sv).numpy().tobytes() == entry(sx, sv).numpy().tobytes()
    i = strided.tensor([-1, 0, 2])
    assert front(i, strided.tensor([5, 5, 5])).tolist() == [0, 5, 1]
    with pytest.raises(TypeError):
        front(strided.tensor([1.0]), 0.5)
    with pytest.raises(RuntimeError):
        front(strided.tensor([1.0]), strided.tensor([1.0], dtype=strided.float64))
    m = strided.tensor([[0.0, -1.0], [2.0, 0.0]])
    assert front(m.t(), m).tolist() == torch.heaviside(torch.tensor([[0.0, -1.0], [2.0, 0.0]]).t(),
                                                          torch.tensor([[0.0, -1.0], [2.0, 0.0]])).tolist()
