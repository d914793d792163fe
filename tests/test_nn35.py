"""nn35's fast paths: the convolution's window views without ``as_strided``'s wrapper
(:class:`conv._Viewer`) and the average pool's single divisor where every window lies inside
the input. Each checked bit for bit against the path it replaces, and against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from numpy.lib.stride_tricks import as_strided

import strided
import strided.nn.functional as F
from strided.nn.functional import conv as conv_mod
from strided.nn.functional import pooling

torch.set_num_threads(1)
_rng = np.random.default_rng(35)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(f"u{a.dtype.itemsize}") if a.dtype.kind not in "iub" else a


def _same_bits(a: strided.Tensor, b: strided.Tensor) -> None:
    assert a.shape == b.shape and a.dtype == b.dtype
    assert np.array_equal(_bits(a.numpy()), _bits(b.numpy()))


def _layout(a: np.ndarray, kind: str) -> strided.Tensor:
    """``a`` as a strided tensor laid out as ``kind``: contiguous, channels_last, or a view
    (every other element of a twice-as-wide buffer, so nothing has unit stride)."""
    if kind == "contiguous":
        return strided.tensor(a)
    if kind == "channels_last":
        return strided.tensor(a).contiguous(memory_format=strided.channels_last)
    wide = np.zeros((*a.shape[:-1], 2 * a.shape[-1]), dtype=a.dtype)
    wide[..., ::2] = a
    return strided.tensor(wide)[..., ::2]


# ---------------------------------------------------------------- _Viewer


class _AsStrided:
    """The views the convolution made before nn35: ``as_strided`` of ``a`` shifted by ``at`` bytes."""

    def __init__(self, a: np.ndarray) -> None:
        self.a = a

    def __call__(self, at: int, shape: tuple, strides: tuple) -> np.ndarray:
        isz = self.a.itemsize
        assert at % isz == 0
        run = as_strided(self.a, (at // isz + 1,), (isz,), writeable=False)  # (a's memory from its first element)
        return as_strided(run[at // isz:], shape, strides, writeable=False)


@pytest.mark.parametrize("owner", ["owned", "slice", "bytes"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_viewer_reads_the_same_memory_as_as_strided(owner: str, dtype: str) -> None:
    np_dtype = strided.tensor([0.0], dtype=getattr(strided, dtype)).numpy().dtype
    buf = _rng.standard_normal(64).astype(np.float32).view(np.uint16)[::2].copy().view(np_dtype) \
        if dtype == "bfloat16" else _rng.standard_normal(64).astype(np.float32)
    if owner == "owned":
        a = buf
    elif owner == "slice":  # a view: its owner is contiguous, the view starts past the owner's start
        a = buf[5:]
    else:  # memory NumPy does not own: no ndarray owner, the interface path
        a = np.frombuffer(buf.tobytes(), dtype=buf.dtype)
    v = conv_mod._Viewer(a)
    isz = a.itemsize
    for at, shape, strides in ((0, (3, 4), (4, 1)), (2, (2, 2, 3), (10, 1, 2)), (1, (5,), (0,)), (0, (0, 3), (1, 1))):
        at, strides = at * isz, tuple(s * isz for s in strides)
        got = v(at, shape, strides)
        want = as_strided(a[at // isz:], shape, strides, writeable=False)
        assert got.shape == want.shape and got.strides == want.strides and got.dtype == a.dtype
        assert np.array_equal(got.view(f"u{isz}"), want.view(f"u{isz}"))
        assert not got.flags.writeable
        if got.size:
            assert np.shares_memory(got, a)


CONV_CASES = [
    # (input shape, weight shape, kwargs)
    ((1, 1, 16, 16), (1, 1, 3, 3), {}),
    ((2, 3, 9, 11), (4, 3, 3, 2), {"padding": 1}),
    ((2, 4, 10, 10), (4, 1, 3, 3), {"groups": 4, "dilation": 2}),
    ((1, 2, 7, 8), (6, 1, 2, 3), {"groups": 2, "padding": (1, 0)}),
    ((0, 2, 5, 5), (3, 2, 3, 3), {}),
    ((3, 6, 6), (2, 3, 3, 3), {"padding": "same"}),
    ((1, 1, 12, 9), (1, 1, 3, 3), {"stride": (2, 1)}),
]


@pytest.mark.parametrize("case", CONV_CASES)
@pytest.mark.parametrize("kind", ["contiguous", "channels_last", "view"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d_bits_of_the_as_strided_path_and_torch(case, kind, dtype, monkeypatch) -> None:
    xs, ws, kw = case
    if kind == "channels_last" and len(xs) != 4:
        kind = "contiguous"
    x_np = _rng.standard_normal(xs).astype(dtype)
    if x_np.size:
        x_np.reshape(-1)[0] = -0.0
    w_np = _rng.standard_normal(ws).astype(dtype)
    b_np = _rng.standard_normal(ws[0]).astype(dtype)
    x, w, b = _layout(x_np, kind), strided.tensor(w_np), strided.tensor(b_np)
    got = F.conv2d(x, w, b, **kw)
    monkeypatch.setattr(conv_mod, "_Viewer", _AsStrided)
    _same_bits(got, F.conv2d(x, w, b, **kw))
    want = TF.conv2d(torch.from_numpy(x_np), torch.from_numpy(w_np), torch.from_numpy(b_np), **kw)
    assert got.shape == tuple(want.shape)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol)


def test_conv2d_nan_and_inf_propagate_as_torch() -> None:
    x_np = _rng.standard_normal((1, 1, 6, 6)).astype(np.float32)
    x_np[0, 0, 2, 3] = np.nan
    x_np[0, 0, 5, 0] = np.inf
    w_np = np.ones((1, 1, 3, 3), np.float32)
    got = F.conv2d(strided.tensor(x_np), strided.tensor(w_np)).numpy()
    want = TF.conv2d(torch.from_numpy(x_np), torch.from_numpy(w_np)).numpy()
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(np.isinf(got), np.isinf(want))


def test_conv2d_gradient_still_flows() -> None:
    x_np = _rng.standard_normal((1, 2, 6, 5)).astype(np.float32)
    w_np = _rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    x, w = strided.tensor(x_np, requires_grad=True), strided.tensor(w_np, requires_grad=True)
    F.conv2d(x, w, padding=1).sum().backward()
    tx, tw = torch.from_numpy(x_np).requires_grad_(), torch.from_numpy(w_np).requires_grad_()
    TF.conv2d(tx, tw, padding=1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- avg_pool's divisor


def _grid_divisors(pool, count_include_pad, divisor_override):
    """The divisors before nn35: always the full (out) grid, each window's clipped size."""
    if divisor_override is not None:
        return np.full(pool.out, int(divisor_override), dtype=np.int64)
    per_dim = []
    for o, s, p, k, n in zip(pool.out, pool.stride, pool.padding, pool.kernel, pool.spatial):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        if not count_include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, n)
        per_dim.append(end - start)
    div = per_dim[0]
    for more in per_dim[1:]:
        div = div[..., None] * more
    return div


POOL_CASES = [
    # (spatial dims, input shape, kwargs)
    (2, (1, 1, 16, 16), {"kernel_size": 2}),
    (2, (2, 3, 7, 9), {"kernel_size": (3, 2), "stride": (2, 3)}),
    (2, (2, 3, 7, 9), {"kernel_size": 3, "stride": 2, "ceil_mode": True}),
    (2, (1, 2, 6, 6), {"kernel_size": 3, "stride": 1, "padding": 1}),
    (2, (1, 2, 6, 6), {"kernel_size": 3, "padding": 1, "count_include_pad": False}),
    (2, (1, 2, 6, 6), {"kernel_size": 2, "divisor_override": 3}),
    (2, (1, 2, 6, 7), {"kernel_size": 3, "padding": 1, "ceil_mode": True, "divisor_override": 5}),
    (2, (3, 5, 5), {"kernel_size": 2, "stride": 1}),
    (2, (0, 2, 4, 4), {"kernel_size": 2}),
    (1, (1, 16, 16), {"kernel_size": 2}),
    (1, (2, 3, 11), {"kernel_size": 3, "stride": 2, "ceil_mode": True}),
    (1, (2, 3, 11), {"kernel_size": 4, "stride": 3, "padding": 2, "count_include_pad": False}),
    (1, (4, 9), {"kernel_size": 3}),
]


@pytest.mark.parametrize("case", POOL_CASES)
@pytest.mark.parametrize("kind", ["contiguous", "channels_last", "view"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64"])
def test_avg_pool_bits_of_the_grid_divisors_and_torch(case, kind, dtype, monkeypatch) -> None:
    nsp, shape, kw = case
    if nsp == 1 and "divisor_override" in kw:
        return
    if kind == "channels_last" and len(shape) != 4:
        kind = "contiguous"
    if dtype == "int64":
        x_np = _rng.integers(-50, 50, shape)
    else:
        x_np = _rng.standard_normal(shape).astype(np.float64)
        if x_np.size:
            x_np.reshape(-1)[:3] = [np.nan, -0.0, np.inf]
    src = _layout(x_np, kind)
    x = src.to(getattr(strided, dtype))
    fn, tfn = (F.avg_pool2d, TF.avg_pool2d) if nsp == 2 else (F.avg_pool1d, TF.avg_pool1d)
    got = fn(x, **kw)
    monkeypatch.setattr(pooling, "_divisors", _grid_divisors)
    _same_bits(got, fn(x, **kw))
    tx = torch.from_numpy(x.numpy() if dtype != "bfloat16" else x.float().numpy())
    if dtype == "bfloat16":
        tx = tx.to(torch.bfloat16)
    elif dtype == "int64" and nsp == 1:
        return  # (PyTorch's avg_pool1d has no int64 kernel; strided's refusal is tested elsewhere)
    want = tfn(tx, **kw)
    assert got.shape == tuple(want.shape)
    g = got.float().numpy().astype(np.float64)
    t = want.float().numpy().astype(np.float64)
    tol = {"float32": 1e-6, "float64": 1e-12, "float16": 2e-3, "bfloat16": 1e-2, "int64": 0}[dtype]
    np.testing.assert_allclose(g, t, rtol=tol, atol=tol)


def test_avg_pool_single_divisor_gradient_matches_torch() -> None:
    x_np = _rng.standard_normal((2, 3, 6, 8)).astype(np.float32)
    for kw in ({"kernel_size": 2}, {"kernel_size": 3, "stride": 1, "divisor_override": 4},
               {"kernel_size": 3, "padding": 1, "divisor_override": 7}):
        x = strided.tensor(x_np, requires_grad=True)
        out = F.avg_pool2d(x, **kw)
        g_np = _rng.standard_normal(out.shape).astype(np.float32)
        out.backward(strided.tensor(g_np))
        tx = torch.from_numpy(x_np).requires_grad_()
        TF.avg_pool2d(tx, **kw).backward(torch.from_numpy(g_np))
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-6)
