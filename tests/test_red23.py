"""Red-team checks of day 23: lerp's scalar tail and NaN order, softmax/logaddexp NaN bits, the
argument parsing of cdist's p and bincount's minlength, NumPy scalar arguments, from_numpy's
corner arrays and ops on memory at an odd address, each against PyTorch 2.13 side by side."""


import numpy as np
import pytest

import strided as S

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _bits(x):
    a = x.numpy() if hasattr(x, "numpy") else x
    return a.dtype.str, a.shape, a.tobytes()


def _same(g, t):
    if t.dtype == torch.bfloat16:
        return g.dtype is S.bfloat16 and _bits(g.view(S.int16)) == _bits(t.view(torch.int16))
    return _bits(g) == _bits(t)


def _both(a, dtype=None):
    """A NumPy array as a torch tensor and a strided tensor of (optionally) ``dtype``'s name."""
    a = np.array(a, copy=True, order="C")
    t = torch.from_numpy(a)
    s = S.tensor(a)
    if dtype is not None:
        t, s = t.to(getattr(torch, dtype)), s.to(getattr(S, dtype))
    return t, s


# ---------------------------------------------------------------- lerp: scalar tail and NaN order

LENGTHS = [1, 3, 8, 15, 16, 17, 31, 33, 1000]
LERP_VALUES = [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, 2.5, -3.25]


def _lerp_inputs(n, seed):
    rng = np.random.default_rng(seed)
    a = rng.choice(LERP_VALUES, n)
    b = rng.choice(LERP_VALUES, n)
    b[rng.random(n) < 0.3] = -0.0  # (the end value whose zero sign the loops disagree on)
    return a, b


@pytest.mark.parametrize("dt", ["float16", "float32", "float64"])
@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("w", [1.0, np.nan, -np.nan, 0.25, 0.75])
def test_lerp_number_weight_every_length(dt, n, w):
    a, b = _lerp_inputs(n, n)
    (ta, sa), (tb, sb) = _both(a, dt), _both(b, dt)
    t = torch.lerp(ta, tb, w)
    assert _same(S.lerp(sa, sb, w), t)
    with S.kernels.native.disabled():
        assert _same(S.lerp(sa, sb, w), t)
    # in place, and through the method
    ta2, sa2 = ta.clone(), sa.clone()
    ta2.lerp_(tb, w)
    sa2.lerp_(sb, w)
    assert _same(sa2, ta2)


@pytest.mark.parametrize("dt", ["float16", "float32", "float64"])
@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("kind", ["0-d", "tensor"])
def test_lerp_tensor_weight_every_length(dt, n, kind):
    a, b = _lerp_inputs(n, 100 + n)
    (ta, sa), (tb, sb) = _both(a, dt), _both(b, dt)
    rng = np.random.default_rng(n)
    for w in (1.0, np.nan, -np.nan):
        if kind == "0-d":
            tw, sw = _both(np.array(w) if n % 2 else np.array([w]), dt)  # (0-d, or one element broadcast)
        else:
            wv = rng.choice([w, w, 0.25, 0.75, 1.0], n)
            tw, sw = _both(wv, dt)
        t = torch.lerp(ta, tb, tw)
        assert _same(S.lerp(sa, sb, sw), t)
        with S.kernels.native.disabled():
            assert _same(S.lerp(sa, sb, sw), t)


def test_lerp_zero_signs_small_tensor():
    # (was test_red22's strict xfail: -0.0 everywhere, PyTorch's scalar tail gives 0.0)
    g = S.lerp(S.zeros(3), -S.zeros(3), 1.0)
    t = torch.lerp(torch.zeros(3), -torch.zeros(3), 1.0)
    assert _same(g, t)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape,perm", [((5, 19), (1, 0)), ((3, 7, 9), (2, 0, 1)), ((20, 3), (0, 1)),
                                        ((17, 1), (1, 0))])
@pytest.mark.parametrize("w", [1.0, np.nan])
def test_lerp_tail_layouts(dt, shape, perm, w):
    # rows of a permuted (dense) layout, a broadcast end, and out=: each row's own tail
    n = int(np.prod(shape))
    a, b = _lerp_inputs(n, 7)
    (ta, sa), (tb, sb) = _both(a.reshape(shape), dt), _both(b.reshape(shape), dt)
    ta, sa, tb, sb = ta.permute(*perm), sa.permute(*perm), tb.permute(*perm), sb.permute(*perm)
    t = torch.lerp(ta, tb, w)
    g = S.lerp(sa, sb, w)
    assert g.stride() == t.stride() and _same(g, t)
    # end broadcast along the first dim of the permuted view
    t = torch.lerp(ta, tb[:1], w)
    assert _same(S.lerp(sa, sb[:1], w), t)
    # a tensor weight broadcast over the rows
    tw, sw = _both(np.full(ta.shape[-1], w), dt)
    assert _same(S.lerp(sa, sb, sw), torch.lerp(ta, tb, tw))
    # out= of a fresh contiguous tensor
    to = torch.empty(ta.shape, dtype=ta.dtype)
    so = S.empty(*sa.shape, dtype=sa.dtype)
    torch.lerp(ta, tb, w, out=to)
    S.lerp(sa, sb, w, out=so)
    assert _same(so, to)


# ---------------------------------------------------------------- logaddexp: NaN signs


def _nan_pairs(dt, n, seed):
    bits = {"float32": (np.uint32, [0x7FC00000, 0xFFC00000, 0x7FC12345, 0x7F800001, 0xFFA00002]),
            "float16": (np.uint16, [0x7E00, 0xFE00, 0x7E45, 0x7C01, 0xFD02])}[dt]
    nans = np.array(bits[1], bits[0]).view(dt)
    v = np.concatenate([np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf], dt), nans])
    rng = np.random.default_rng(seed)
    return rng.choice(v, n), rng.choice(v, n)


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
@pytest.mark.parametrize("dt", ["float16", "float32"])
@pytest.mark.parametrize("n", [1, 3, 8, 17, 33, 1000])
def test_logaddexp_nan_signs(name, dt, n):
    x, y = _nan_pairs(dt, n, n)
    nan = np.isnan(x) | np.isnan(y)
    t = getattr(torch, name)(torch.from_numpy(x), torch.from_numpy(y))
    sx, sy = S.from_numpy(x), S.from_numpy(y)
    tn = t.numpy()[nan]
    for off in (False, True):
        if off:
            with S.kernels.native.disabled():
                g = getattr(S, name)(sx, sy)
        else:
            g = getattr(S, name)(sx, sy)
        # (the NaNs bit for bit; the numbers are NumPy's formula, not always PyTorch's: see the report)
        assert g.numpy()[nan].tobytes() == tn.tobytes()
    # a permuted layout and out=
    if n == 1000:
        tx, ty = torch.from_numpy(x).view(20, 50).t(), torch.from_numpy(y).view(20, 50).t()
        gx, gy = sx.view(20, 50).t(), sy.view(20, 50).t()
        t2 = getattr(torch, name)(tx, ty)
        m = (tx.isnan() | ty.isnan()).numpy()
        assert getattr(S, name)(gx, gy).numpy()[m].tobytes() == t2.numpy()[m].tobytes()
        so = S.empty(50, 20, dtype=getattr(S, dt))
        getattr(S, name)(gx, gy, out=so)
        assert so.numpy()[m].tobytes() == t2.numpy()[m].tobytes()


def test_logaddexp_nan_sign_scalar_float32():
    # (was test_red22's strict xfail: +NaN 0x7fc00000, torch 0xffc00000)
    a, b = S.tensor([np.nan], dtype=S.float32), S.tensor([1.0], dtype=S.float32)
    assert S.logaddexp(a, b).numpy().view(np.uint32)[0] == 0xFFC00000
    assert _same(S.logaddexp(a, b), torch.logaddexp(torch.tensor([np.nan]), torch.tensor([1.0])))
