"""``Tensor.sum`` / ``Tensor.mean`` add in PyTorch's CPU order, bit for bit (kernels/torch_sum.py,
kernels/_sumkernel.c), whatever the layout: contiguous, permuted, sliced, expanded, offset,
zero-size and 0-d tensors; every dim, one dim, dim tuples, keepdim; float32, float64, complex64,
complex128, float16, bfloat16; ``dtype=``. The reference is ``torch.sum`` / ``torch.mean`` on one
thread (more threads split the sum differently). The compiled kernel and the NumPy fallback
(``native.disabled()``) give the same bits. The losses whose reduction is PyTorch's mean or sum of
the per-element loss give PyTorch's bits too.
"""

from __future__ import annotations

import os
import shutil
import warnings
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as hs

import strided
import strided.nn.functional as F
from strided.kernels import native, torch_sum

_KERNEL = native.sums()
needs_kernel = pytest.mark.skipif(_KERNEL is None, reason="no C compiler here (test_the_kernel_is_built)")

_DTYPES = {
    "float32": (strided.float32, torch.float32),
    "float64": (strided.float64, torch.float64),
    "complex64": (strided.complex64, torch.complex64),
    "complex128": (strided.complex128, torch.complex128),
    "float16": (strided.float16, torch.float16),
    "bfloat16": (strided.bfloat16, torch.bfloat16),
}


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread() -> Any:
    """PyTorch on one thread: the order of adds strided follows (more threads split a sum)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_the_kernel_is_built() -> None:
    """Built wherever a C compiler is (pip compiled it), and required in CI."""
    if os.environ.get("STRIDED_REQUIRE_NATIVE") == "1" or shutil.which("cc") or shutil.which("gcc"):
        assert _KERNEL is not None, "strided.kernels._sumkernel is not built: run `pip install -e .` again"


def _bits(t: Any) -> tuple[tuple[int, ...], str, bytes]:
    """(shape, dtype name, bytes) of a strided or torch result (bfloat16 read as its 16-bit words),
    every NaN written as one NaN: PyTorch's own NaN bits vary with its conversion path (a
    bfloat16 NaN is 0x7fc0 from its scalar conversion, 0xffff from its vectorized one)."""
    if isinstance(t, torch.Tensor):
        c = t.contiguous()
        name = str(c.dtype).removeprefix("torch.")
        a = c.float().numpy() if c.dtype == torch.bfloat16 else c.numpy()
    else:
        a = np.array(t.numpy(), order="C")  # (ascontiguousarray would make a 0-d result 1-d)
        name = t.dtype.name
        if name == "bfloat16":
            a = a.astype(np.float32)
    a = a.copy()
    if a.dtype.kind in "fc":
        parts = a.reshape(-1).view(a.real.dtype) if a.dtype.kind == "c" else a.reshape(-1)
        parts[np.isnan(parts)] = np.nan
    return a.shape, name, a.tobytes()


def _pair(base: np.ndarray, name: str, shape: tuple[int, ...], strides: tuple[int, ...], offset: int
          ) -> tuple[strided.Tensor, torch.Tensor]:
    """The same values and layout in strided and in torch: ``base`` (float64 values) as ``name``,
    viewed as (shape, strides, offset)."""
    sd, td = _DTYPES[name]
    if name.startswith("complex"):
        base = base + 1j * base[::-1]
    t_base = torch.from_numpy(base).to(td)
    s_base = strided.tensor(base).to(sd)
    return s_base.as_strided(shape, strides, offset), t_base.as_strided(shape, strides, offset)


_SCALES = 10.0 ** np.arange(-3, 4)


def _view_pair(rng: np.random.Generator, name: str, layout: tuple[tuple[int, ...], tuple[int, ...], int, int],
               scaled: bool) -> tuple[strided.Tensor, torch.Tensor]:
    """Random values in ``layout`` (shape, strides, offset, storage size) as ``name``, in strided
    and in torch: standard normals (times 10**k, k uniform in -3..3, when ``scaled``) converted
    from float64 by torch, complex parts drawn apart. Only the elements the view reaches are
    drawn; every other element of the storage (the gaps of stepped dims, the offset) is NaN, so a
    sum that reads outside the view is NaN, not a plausible number. (Drawing values for the whole
    storage cost ~40 ns an element of it, ten times the fill.) strided and torch share the
    storage: a sum that wrote into its input would change the other's answer."""
    shape, strides, offset, span = layout
    td = _DTYPES[name][1]
    # the elements reached: one index per expanded (stride 0) dim, so that no element is written twice
    reached = tuple(0 if st == 0 and n else slice(None) for n, st in zip(shape, strides))
    storage = torch.full((span,), float("nan"), dtype=td)
    target = storage.as_strided(shape, strides, offset)[reached]
    parts = 2 if name.startswith("complex") else 1
    values = rng.standard_normal((parts, *target.shape))
    if scaled:
        values *= _SCALES[rng.integers(0, len(_SCALES), values.shape)]
    drawn = np.asarray(values[0] + 1j * values[1] if parts == 2 else values[0])  # (0-d: an array too)
    target.copy_(torch.from_numpy(drawn).to(td))
    s_storage = strided.from_dlpack(storage)
    return s_storage.as_strided(shape, strides, offset), storage.as_strided(shape, strides, offset)


@hs.composite
def _layouts(draw: Any) -> tuple[tuple[int, ...], tuple[int, ...], int, int]:
    """(shape, strides, offset, storage size): a permuted, stepped, expanded, offset view."""
    ndim = draw(hs.integers(0, 4))
    shape = tuple(draw(hs.lists(hs.integers(0, 9) | hs.sampled_from([1, 17, 40, 67]), min_size=ndim,
                                max_size=ndim)))
    steps = [draw(hs.sampled_from([1, 1, 1, 2, 3, 0])) for _ in shape]  # (0: an expanded dim)
    order = draw(hs.permutations(range(ndim)))
    strides = [0] * ndim
    run = 1
    for d in reversed(order):
        strides[d] = run * steps[d]
        run *= max(shape[d], 1) * max(steps[d], 1)
    offset = draw(hs.integers(0, 3))
    span = offset + 1 + sum((n - 1) * s for n, s in zip(shape, strides) if n)
    # At most 2**25 elements of storage (a 4-d view of 67s and 40s with steps of 3 reaches 1.6e9:
    # 26 GB as complex128, and one such example took a minute): ~0.2% of the draws, each with large
    # sizes in three or four stepped dims; every size, step, order and ndim is still drawn, the
    # dense 4-d (67, 67, 67, 67) view included (2.0e7 elements).
    assume(span <= 1 << 25)
    return shape, tuple(strides), offset, span


@hs.composite
def _dims(draw: Any, ndim: int) -> Any:
    if not ndim:
        return draw(hs.sampled_from([None, 0, -1, (), (0,)]))
    return draw(hs.sampled_from([None, ()]) | hs.integers(-ndim, ndim - 1)
                | hs.lists(hs.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True).map(tuple))


def _call(t: Any, op: str, dim: Any, keepdim: bool, **kw: Any) -> Any:
    f = getattr(t, op)
    return f(**kw) if dim is None and not keepdim else f(dim, keepdim, **kw)


@settings(max_examples=400, deadline=None)
@given(hs.data(), _layouts(), hs.sampled_from(sorted(_DTYPES)), hs.booleans(), hs.sampled_from(["sum", "mean"]))
def test_sum_and_mean_are_torchs_bits(data: Any, layout: Any, name: str, keepdim: bool, op: str) -> None:
    rng = np.random.default_rng(data.draw(hs.integers(0, 2**32 - 1)))
    s, t = _view_pair(rng, name, layout, scaled=True)
    dim = data.draw(_dims(s.ndim))
    assert _bits(_call(s, op, dim, keepdim)) == _bits(_call(t, op, dim, keepdim))
    with native.disabled():  # (the NumPy steps: the same bits)
        assert _bits(_call(s, op, dim, keepdim)) == _bits(_call(t, op, dim, keepdim))


@settings(max_examples=120, deadline=None)
@given(hs.data(), _layouts(), hs.sampled_from([("float32", "float64"), ("float16", "float32"),
                                               ("bfloat16", "float32"), ("float64", "float32"),
                                               ("float32", "complex64")]))
def test_dtype_argument_converts_as_torch(data: Any, layout: Any, names: tuple[str, str]) -> None:
    """``dtype=``: PyTorch sums ``self.to(dtype)`` (dense inputs keep their strides, others become
    row-major), and mean sums it the same way before dividing."""
    rng = np.random.default_rng(data.draw(hs.integers(0, 2**32 - 1)))
    s, t = _view_pair(rng, names[0], layout, scaled=False)
    dim = data.draw(_dims(s.ndim))
    sd, td = _DTYPES[names[1]]
    for op in ("sum", "mean"):
        assert _bits(_call(s, op, dim, False, dtype=sd)) == _bits(_call(t, op, dim, False, dtype=td))


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_large_sums_every_path(name: str) -> None:
    """Long rows reach the cascade's upper levels; each 2-d loop PyTorch picks is taken: the
    contiguous inner sum (full and last dim), the outer sum of contiguous columns (dim 0, in
    groups of four vectors, one vector, single columns), the scalar inner sum (a stepped row) and
    the scalar outer sum (a stepped column block)."""
    rng = np.random.default_rng(7)
    base = rng.standard_normal(1 << 21) * 10.0 ** rng.integers(-3, 4, 1 << 21)
    n = 1 << 21
    cases = [((n,), (1,)), ((2048, 1024), (1024, 1)), ((1024, 2048), (1, 1024)), ((4099, 37), (37, 1)),
             ((1000, 500), (1000, 2)), ((500, 1000), (2, 1000)), ((64, 64, 511), (1, 64, 4096))]
    for shape, strides in cases:
        s, t = _pair(base, name, shape, strides, 0)
        for dim in [None] + list(range(len(shape))):
            for op in ("sum", "mean"):
                assert _bits(_call(s, op, dim, False)) == _bits(_call(t, op, dim, False)), (shape, strides, dim, op)


@pytest.mark.parametrize("make", [lambda x: x.flip(0), lambda x: x.flip(1).T, lambda x: x.T.flip(0)[::2]],
                         ids=["flip(0)", "flip(1).T", "T.flip(0)[::2]"])
def test_flipped_tensors_sum_as_torchs(make: Any) -> None:
    """PyTorch's flip is a row-major copy (strided's may be a view with negative strides): the
    sum of a flipped tensor is that copy's, views of it included."""
    a = np.random.default_rng(3).standard_normal((40, 70)).astype(np.float32)
    s, t = make(strided.tensor(a)), make(torch.from_numpy(a))
    for dim in (None, 0, 1):
        for op in ("sum", "mean"):
            assert _bits(_call(s, op, dim, False)) == _bits(_call(t, op, dim, False))


def test_integer_and_bool_sums_stay_exact_and_int64() -> None:
    x = strided.tensor([[1, 2, 3], [4, 5, 6]], dtype=strided.int32)
    assert x.sum().dtype == strided.int64 and x.sum().item() == 21
    assert strided.tensor([True, False, True]).sum().item() == 2
    t = torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=torch.int32)
    assert _bits(x.sum(1, dtype=strided.float32)) == _bits(t.sum(1, dtype=torch.float32))
    assert _bits(x.mean(dtype=strided.float64)) == _bits(t.mean(dtype=torch.float64))


def test_mean_of_integers_is_refused_as_torch() -> None:
    with pytest.raises(RuntimeError, match="could not infer output dtype"):
        strided.tensor([1, 2, 3]).mean()
    with pytest.raises(RuntimeError, match="could not infer output dtype"):
        torch.tensor([1, 2, 3]).mean()


def test_complex_to_real_dtype_warns_and_sums_real_parts() -> None:
    z = np.random.default_rng(4).standard_normal((30, 20)) * (1 + 1j)
    s, t = strided.tensor(z), torch.from_numpy(z)
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        got = s.sum(0, dtype=strided.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = t.sum(0, dtype=torch.float64)
    assert _bits(got) == _bits(want)


def test_autograd_of_sum_and_mean_unchanged() -> None:
    x = strided.tensor(np.random.default_rng(6).standard_normal((5, 40)).astype(np.float32), requires_grad=True)
    (x.sum(1).sum() + x.mean(0).sum() + x.mean()).backward()
    want = 1.0 + 1.0 / 5 + 1.0 / 200
    assert np.allclose(x.grad.numpy(), np.float32(want))


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "binary_cross_entropy"])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_losses_reduce_as_torch(name: str, reduction: str, dtype: type) -> None:
    """PyTorch reduces these losses by ``mean()`` / ``sum()`` of the per-element loss tensor."""
    rng = np.random.default_rng(8)
    a, b = rng.random((300, 700)).astype(dtype), rng.random((300, 700)).astype(dtype)
    got = getattr(F, name)(strided.tensor(a), strided.tensor(b), reduction=reduction)
    want = getattr(torch.nn.functional, name)(torch.from_numpy(a), torch.from_numpy(b), reduction=reduction)
    assert _bits(got) == _bits(want)


def test_sum_array_fallback_matches_kernel_on_every_loop() -> None:
    """The NumPy steps and the compiled kernel, side by side on the four 2-d loops and the
    gathering of partials (the first two dims reduced), complex and 2-byte floats included."""
    rng = np.random.default_rng(9)
    for dtype in (np.float32, np.float64, np.complex64, np.complex128, np.float16):
        base = (rng.standard_normal(20000) * 10.0 ** rng.integers(-3, 4, 20000)).astype(dtype)
        views = [base[:19000].reshape(190, 100), base[:19000].reshape(190, 100).T, base[:19000:2].reshape(95, 100),
                 base[:19000].reshape(19, 10, 100)[:, ::3, ::2], np.broadcast_to(base[:100], (30, 100)),
                 np.broadcast_to(base[:30, None], (30, 100))]
        for x in views:
            for axes in (None, (0,), (1,), (0, 1)):
                for keepdim in (False, True):
                    compiled = torch_sum.sum_array(x, axes, keepdim)
                    with native.disabled():
                        steps = torch_sum.sum_array(x, axes, keepdim)
                    assert compiled.dtype == steps.dtype and compiled.tobytes() == steps.tobytes()
