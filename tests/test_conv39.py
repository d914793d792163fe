"""conv39: the permuted inputs of F.conv1d / F.conv2d / F.layer_norm / eval F.batch_norm / F.max_pool1d
on their fast paths (a transposed input read through the blocked row-major copy; max pooling's
channels-last loop by masks, its result staged channels-last where its own channels are not
unit-stride; the max tap's AVX2 lanes).

Each fast result is compared bit for bit (values, NaN words, signed zeros), with its shape and
strides, against the general path of the same call (the fast paths off, or a listener open) and,
where strided follows PyTorch's bits (layer_norm, max pooling), against torch; the strides against
torch always. Layouts: the benchmark's (the transpose of a contiguous array of the reversed
shape) and other permutations, steps and offsets."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
import strided.nn.functional as F
import strided.nn.functional.conv as C
import strided.nn.functional.pooling as P
from strided.kernels import rows as R

torch.set_num_threads(1)
# (layer_norm's PyTorch bits come from the compiled rows; without them its NumPy steps give PyTorch's values)
needs_ln = pytest.mark.skipif(R.ln_rows() is None, reason="the compiled row kernel is not built")


class _Eps(float):
    """A float that is not exactly ``float``: eval batch_norm's fresh path declines it (the general path)."""


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).view(f"u{a.itemsize}").tobytes()


def _same(got: st.Tensor, want: st.Tensor) -> None:
    """The same shape, strides, dtype and bits."""
    assert got.shape == want.shape and got.stride() == want.stride() and got.dtype == want.dtype
    assert _bits(got.numpy()) == _bits(want.numpy())


def _laid(a: np.ndarray, perm: tuple[int, ...], step: bool = False) -> tuple[st.Tensor, torch.Tensor]:
    """``a``'s values laid out with memory order ``perm`` (dim perm[-1] closest), optionally every other
    element of a twice-longer last memory dim: a strided tensor and a torch one with the same strides."""
    inv = np.argsort(perm)
    base = np.ascontiguousarray(a.transpose(perm))
    if step:
        base = np.repeat(base, 2, axis=-1)[..., ::2]
    view = base.transpose(inv)
    return st.from_numpy(view), torch.from_numpy(view)


def _values(rng: np.random.Generator, shape: tuple[int, ...], dtype, specials: bool) -> np.ndarray:
    a = (rng.standard_normal(shape) * 4).round(1).astype(dtype)
    if specials:
        at = rng.random(shape) < 0.05
        a[at] = rng.choice(np.array([np.nan, -np.inf, np.inf, -0.0, 0.0]), int(at.sum()))
    return a


def _conv_general(fn, *args, **kw):
    C._FAST_CONV = False
    try:
        return fn(*args, **kw)
    finally:
        C._FAST_CONV = True


# ---------------------------------------------------------------- conv


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv1d_bench_layout_is_the_general_paths_bits(dtype):
    """The benchmark's conv1d perm: (m, 1, n) the transpose of a contiguous (n, 1, m); one input channel,
    two outputs, a width-3 kernel, a bias."""
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, (300, 1, 200)).astype(dtype)
    x, tx = _laid(a, (2, 1, 0))
    w = rng.uniform(0.1, 0.9, (2, 1, 3)).astype(dtype)
    b = rng.uniform(0.1, 0.9, 2).astype(dtype)
    got = F.conv1d(x, st.from_numpy(w), st.from_numpy(b))
    _same(got, _conv_general(F.conv1d, x, st.from_numpy(w), st.from_numpy(b)))
    want = TF.conv1d(tx, torch.from_numpy(w), torch.from_numpy(b))
    assert got.stride() == want.stride()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("padding", [0, 1])
def test_conv2d_bench_layout_is_the_general_paths_bits(dtype, padding):
    """The benchmark's conv2d perm: one (m, n) column-major image, a 3 x 3 kernel, a bias."""
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, (1, 1, 190, 230)).astype(dtype)
    x, tx = _laid(a, (3, 2, 1, 0))
    w = rng.uniform(0.1, 0.9, (1, 1, 3, 3)).astype(dtype)
    b = rng.uniform(0.1, 0.9, 1).astype(dtype)
    got = F.conv2d(x, st.from_numpy(w), st.from_numpy(b), padding=padding)
    _same(got, _conv_general(F.conv2d, x, st.from_numpy(w), st.from_numpy(b), padding=padding))
    want = TF.conv2d(tx, torch.from_numpy(w), torch.from_numpy(b), padding=padding)
    assert got.stride() == want.stride()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_conv2d_zero_sums_keep_the_general_paths_sign():
    """Without a bias (or with a zero in it) the copied column-major plane is left to the general
    path, whose products start from +0.0: a window of -0.0 products stays +0.0, as before."""
    x = st.from_numpy(np.full((40, 30), -0.0, np.float32).T.reshape(1, 1, 30, 40))
    w = st.ones(1, 1, 2, 2)
    for bias in (None, st.zeros(1)):
        got = F.conv2d(x, w, bias)
        _same(got, _conv_general(F.conv2d, x, w, bias))
        assert not np.signbit(got.numpy()).any()


@settings(max_examples=30, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), nsp=hs.sampled_from([1, 2]), depthwise=hs.booleans(),
       bias=hs.sampled_from(["none", "nonzero", "with_zero"]), step=hs.booleans(), padding=hs.integers(0, 2),
       dilation=hs.integers(1, 2), specials=hs.booleans(), dtype=hs.sampled_from([np.float32, np.float64]))
def test_conv_permuted_inputs_are_the_general_paths_bits(seed, nsp, depthwise, bias, step, padding, dilation,
                                                         specials, dtype):
    """Every memory order of a batched input (conv1d one-channel / depthwise, conv2d depthwise), stepped or
    not, padding, dilation, bias none / nonzero / with a zero, NaN / inf / signed zeros: the fast path's
    result is the general path's, bits, shape and strides."""
    rng = np.random.default_rng(seed)
    c = int(rng.integers(2, 4)) if depthwise else 1
    o = c if depthwise else (2 if nsp == 1 else 1)
    spatial = tuple(int(s) for s in rng.integers(6, 40, nsp))
    shape = (int(rng.integers(1, 80 if nsp == 1 else 4)), c, *spatial)
    a = _values(rng, shape, dtype, specials)
    perm = tuple(int(p) for p in rng.permutation(len(shape)))
    x, _ = _laid(a, perm, step)
    w = rng.uniform(-1, 1, (o, 1, *([3] * nsp))).astype(dtype)
    b = None if bias == "none" else rng.uniform(0.1, 0.9, o).astype(dtype)
    if bias == "with_zero":
        b[0] = 0
    sb = None if b is None else st.from_numpy(b)
    op = F.conv1d if nsp == 1 else F.conv2d
    kw = dict(padding=padding, dilation=dilation, groups=c)
    got = op(x, st.from_numpy(w), sb, **kw)
    _same(got, _conv_general(op, x, st.from_numpy(w), sb, **kw))
    with st.record_copies():  # (a listener: the general path, its steps seen)
        _same(got, op(x, st.from_numpy(w), sb, **kw))
    # (the strides against torch's: the bench layouts above and test_conv2d_ambiguous_batch_strides)


# ---------------------------------------------------------------- layer_norm


@needs_ln
@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("affine", [False, True])
def test_layer_norm_bench_layout_is_torchs_bits(dtype, affine):
    """The benchmark's layer_norm perm (the transpose of a contiguous (n, m)), 2^18 elements: torch's bits
    and strides, and the general path's (a listener open)."""
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (512, 512)).astype(dtype)
    x, tx = _laid(a, (1, 0))
    w = rng.uniform(0.1, 0.9, 512).astype(dtype) if affine else None
    b = rng.uniform(0.1, 0.9, 512).astype(dtype) if affine else None
    sw, sb = (None, None) if w is None else (st.from_numpy(w), st.from_numpy(b))
    got = F.layer_norm(x, (512,), sw, sb)
    want = TF.layer_norm(tx, (512,), None if w is None else torch.from_numpy(w), None if b is None else torch.from_numpy(b))
    assert got.stride() == want.stride()
    assert _bits(got.numpy()) == _bits(want.numpy())
    with st.record_copies():
        _same(got, F.layer_norm(x, (512,), sw, sb))


@needs_ln
@settings(max_examples=25, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), ndim=hs.integers(2, 3), step=hs.booleans(),
       dtype=hs.sampled_from([np.float32, np.float64]), affine=hs.booleans())
def test_layer_norm_permuted_inputs_are_torchs_bits(seed, ndim, step, dtype, affine):
    """Every memory order of a 2-d / 3-d input of at least 4096 elements (the copied ones), stepped or
    not: torch's bits and strides; the general path's with a listener open."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 90))
    lead = tuple(int(s) for s in rng.integers(2, 30, ndim - 1))
    lead = (max(lead[0], -(-4096 // (n * int(np.prod(lead[1:]))))), *lead[1:])
    a = _values(rng, (*lead, n), dtype, False)
    x, tx = _laid(a, tuple(int(p) for p in rng.permutation(ndim)), step)
    w = rng.uniform(0.1, 0.9, n).astype(dtype) if affine else None
    b = rng.uniform(-1, 1, n).astype(dtype) if affine else None
    sw, sb = (None, None) if w is None else (st.from_numpy(w), st.from_numpy(b))
    got = F.layer_norm(x, (n,), sw, sb)
    want = TF.layer_norm(tx, (n,), None if w is None else torch.from_numpy(w), None if b is None else torch.from_numpy(b))
    assert got.stride() == want.stride()
    assert _bits(got.numpy()) == _bits(want.numpy())
    with st.record_copies():
        _same(got, F.layer_norm(x, (n,), sw, sb))


# ---------------------------------------------------------------- batch_norm (evaluation)


@settings(max_examples=25, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), step=hs.booleans(), dtype=hs.sampled_from([np.float32, np.float64]),
       affine=hs.sampled_from(["none", "weight", "bias", "both"]), specials=hs.booleans())
def test_batch_norm_eval_transposed_is_the_general_paths_bits(seed, step, dtype, affine, specials):
    """An (N, C) batch laid out transposed (the benchmark's), stepped or not, of 4096 or more elements:
    the fresh path's result is the general path's (bits, strides) and the row-major input's; its
    strides torch's."""
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(64, 200)), int(rng.integers(64, 200)))
    a = _values(rng, shape, dtype, specials)
    x, tx = _laid(a, (1, 0), step)
    c = shape[1]
    rm, rv = rng.uniform(-1, 1, c).astype(dtype), rng.uniform(0.1, 2, c).astype(dtype)
    w = rng.uniform(0.1, 0.9, c).astype(dtype) if affine in ("weight", "both") else None
    b = rng.uniform(-1, 1, c).astype(dtype) if affine in ("bias", "both") else None
    args = [st.from_numpy(rm), st.from_numpy(rv), None if w is None else st.from_numpy(w),
            None if b is None else st.from_numpy(b)]
    got = F.batch_norm(x, *args, training=False)
    _same(got, F.batch_norm(x, *args, training=False, eps=_Eps(1e-5)))
    _same(got, F.batch_norm(st.from_numpy(a), *args, training=False))
    want = TF.batch_norm(tx, torch.from_numpy(rm), torch.from_numpy(rv), None if w is None else torch.from_numpy(w),
                         None if b is None else torch.from_numpy(b), training=False)
    assert got.stride() == want.stride()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- max_pool1d


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("perm", [(0, 1, 2), (2, 1, 0), (0, 2, 1), (1, 2, 0)])
def test_max_pool1d_bench_layouts_are_torchs_bits(dtype, perm):
    """The benchmark's (1, m, n) input, contiguous and its reversed-order transpose, and two other
    orders, with NaN / inf / signed zeros: torch's bits and strides, staged or not."""
    rng = np.random.default_rng(4)
    a = _values(rng, (2, 300, 250), dtype, True)
    x, tx = _laid(a, perm)
    want = TF.max_pool1d(tx, 2)
    got = F.max_pool1d(x, 2)
    assert got.stride() == want.stride()
    assert _bits(got.numpy()) == _bits(want.numpy())
    old = P._STAGED_MIN
    P._STAGED_MIN = 1 << 62  # (the direct loop into the result's layout)
    try:
        _same(got, F.max_pool1d(x, 2))
    finally:
        P._STAGED_MIN = old


@settings(max_examples=40, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), nsp=hs.sampled_from([1, 2]), kernel=hs.integers(1, 3),
       stride=hs.integers(1, 3), padding=hs.integers(0, 1), step=hs.booleans(),
       dtype=hs.sampled_from([np.float32, np.float64]))
def test_max_pool_permuted_inputs_are_torchs_bits(seed, nsp, kernel, stride, padding, step, dtype):
    """max_pool1d / 2d over every memory order (channels closest included: the masked channels-last tap,
    the staged result), window sizes and strides (the AVX2 rows' 1 and 2, others), padding: torch's
    bits and strides (PyTorch's memory-format rule, 2-d too), and the general path's bits and strides."""
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(1, 3)), int(rng.integers(1, 70)), *(int(s) for s in rng.integers(3, 60, nsp)))
    if 2 * padding > kernel:
        padding = 0
    a = _values(rng, shape, dtype, True)
    x, tx = _laid(a, tuple(int(p) for p in rng.permutation(len(shape))), step)
    op, top = (F.max_pool1d, TF.max_pool1d) if nsp == 1 else (F.max_pool2d, TF.max_pool2d)
    got, want = op(x, kernel, stride, padding), top(tx, kernel, stride, padding)
    assert got.stride() == want.stride()
    assert _bits(got.numpy()) == _bits(want.contiguous().numpy() if nsp == 2 else want.numpy())
    with st.record_copies():
        _same(got, op(x, kernel, stride, padding))


def test_max_tap_rows_every_length_and_alignment():
    """The max rows (pool_windows' row loop, AVX2 eight lanes then SSE2 four then one) at every output
    length 1..40 and window stride 1 / 2 from every start offset, NaN and ties: torch's bits."""
    rng = np.random.default_rng(5)
    for n, off, s in itertools.product(range(2, 82), range(3), (1, 2)):
        base = _values(rng, (3, n + off), np.float32, True)
        a = base[:, off:]
        got = F.max_pool1d(st.from_numpy(a), 2, s).numpy()
        want = TF.max_pool1d(torch.from_numpy(a), 2, s).numpy()
        assert _bits(got) == _bits(want), (n, off, s)


def test_max_pool2d_stepped_channels_last_strides():
    """Found by conv39's hypothesis test, on main too (not changed here): a channels-last input whose
    channels are every other element gives PyTorch a channels-last result, strided a contiguous one."""
    a = np.random.default_rng(6).random((2, 30, 35, 67)).astype(np.float32)
    x, tx = _laid(a, (0, 2, 3, 1), step=True)
    assert F.max_pool2d(x, 1).stride() == TF.max_pool2d(tx, 1).stride()


def test_conv2d_ambiguous_batch_strides():
    """Found by conv39's hypothesis test: input (1, 3, 14, 9) with strides (27, 1, 27, 3)."""
    a = np.random.default_rng(7).random((1, 3, 14, 9)).astype(np.float32)
    x, tx = _laid(a, (2, 0, 3, 1))
    w = np.ones((3, 1, 3, 3), np.float32)
    assert F.conv2d(x, st.from_numpy(w), groups=3).stride() == TF.conv2d(tx, torch.from_numpy(w), groups=3).stride()


def test_max_pool2d_unit_batch_strides():
    """Found by conv39's hypothesis test: input (1, 42, 12, 33) with strides (1, 1, 1386, 42)."""
    a = np.random.default_rng(8).random((1, 42, 12, 33)).astype(np.float32)
    x, tx = _laid(a, (2, 3, 1, 0))
    assert F.max_pool2d(x, 1).stride() == TF.max_pool2d(tx, 1).stride()
