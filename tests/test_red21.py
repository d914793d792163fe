"""Red-team checks of the compiled fronts, entry fronts, user_site warnings, direct LAPACK calls and
the sinc/histc/special fast paths (branch red21). xfail(strict=True) tests are confirmed bugs."""

import contextlib
import copy
import pickle
import warnings

import numpy as np
import pytest
import torch

import strided as s
from strided.ops._support.front import fallback_of

F = s.nn.functional


def _warned(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [(m.filename, m.lineno) for m in w]


def _canon(r):
    if isinstance(r, s.Tensor):
        d = r.detach()
        a = d.float().numpy() if d.dtype == s.bfloat16 else d.numpy()
        return (str(r.dtype), tuple(r.shape), tuple(r.stride()), r.requires_grad, a.tobytes(), type(r).__name__)
    if isinstance(r, (tuple, list)):
        return tuple(_canon(x) for x in r)
    return repr(r)


def _outcome(f, *args):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = _canon(f(*args))
        except Exception as e:  # noqa: BLE001
            r = ("E", type(e).__name__, str(e))
    return r, [str(m.message) for m in w]


# ---------------------------------------------------------------- bugs (xfail strict)


# (fixed: adjoint and mH warn at callsite.user_site(); red21 found them at fixed stacklevels)
def test_adjoint_0d_warning_points_at_user_line_when_tracked():
    x = s.tensor(0.3, requires_grad=True)
    sites = _warned(lambda: s.adjoint(x))
    assert sites == [(__file__, sites[0][1])], sites


def test_adjoint_0d_warning_points_at_user_line_when_listened():
    x = s.tensor(0.3)
    with s.dispatch.listen(lambda r: None):
        sites = _warned(lambda: x.adjoint())
    assert [f for f, _ in sites] == [__file__], sites


def test_logit_nan_sign_matches_torch():
    # (fixed on day 25: PyTorch's contiguous logit is MKL's vsLn of the quotient, +NaN where it is
    # negative; NumPy's log gave -NaN)
    w = np.array([-0.1, 1.1], np.float32)
    got = s.logit(s.tensor(w)).numpy().view(np.uint32)
    want = torch.logit(torch.tensor(w)).numpy().view(np.uint32)
    assert got.tolist() == want.tolist()


_LOGIT_VALUES = [-0.1, 1.1, float("nan"), -float("nan"), 2.0, -3.0, float("inf"), -float("inf"), 1.0, 0.0, -0.0,
                 0.5, 1e-40, 3e38]
_LOGIT_CASES = {
    "contiguous": lambda m, v: m.logit(v.repeat(5)),
    "stepped": lambda m, v: m.logit(v.repeat(6)[::2]),  # (PyTorch's scalar loop: float32 logf's -NaN)
    "transposed": lambda m, v: m.logit(v.repeat(5).reshape(-1, 5).t()),
    "permuted": lambda m, v: m.logit(v.repeat(12).reshape(3, 4, -1).permute(2, 0, 1)),
    "expanded short": lambda m, v: m.logit(v[:1].expand(7)),
    "out transposed": lambda m, v: m.logit(v.repeat(5).reshape(-1, 5), out=m.empty(5, 17, dtype=v.dtype).t()),
    "out alike": lambda m, v: m.logit(v.repeat(5).reshape(-1, 5), out=m.empty(17, 5, dtype=v.dtype)),
    "out of a stepped input": lambda m, v: m.logit(v.repeat(10)[::2], out=m.empty(85, dtype=v.dtype)),
    "in place": lambda m, v: v.repeat(10).logit_(),
    "in place stepped": lambda m, v: v.repeat(10)[::2].logit_(),
    "eps 2": lambda m, v: m.logit(v.repeat(5), eps=2.0),
    "eps 0.01 stepped": lambda m, v: m.logit(v.repeat(6)[::2], eps=0.01),
    "negative eps": lambda m, v: m.logit(v.repeat(5), eps=-0.5),  # (PyTorch: no clamp at all)
    "33x17": lambda m, v: m.logit(v.repeat(33).reshape(33, 17)),
    "0-d": lambda m, v: m.logit(v[3]),
    "int input, out transposed": lambda m, v: m.logit(m.arange(-40, 45).reshape(-1, 5), out=m.empty(5, 17).t()),
    "int input": lambda m, v: m.logit(m.arange(-40, 45).reshape(-1, 5)[::2]),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(_LOGIT_CASES))
@pytest.mark.parametrize("compiled", [True, False])
def test_logit_nan_bits_every_layout(dtype, case, compiled):
    """PyTorch's logit NaN bits: a NaN quotient's own (NumPy's float32 log canonicalizes them), and
    where the quotient is negative +NaN on its contiguous (MKL) path and its float64 scalar loop,
    -NaN in its float32 scalar loop (a stepped input, an out= of another layout)."""
    payloads = np.array([0x7FC00123, 0xFFC00456, 0x7F800001], np.uint32).view(np.float32).tolist()
    values = _LOGIT_VALUES + payloads  # (17)
    tv, sv = torch.tensor(values, dtype=getattr(torch, dtype)), s.tensor(values, dtype=getattr(s, dtype))
    want = _LOGIT_CASES[case](torch, tv)
    with contextlib.nullcontext() if compiled else s.kernels.native.disabled():
        got = _LOGIT_CASES[case](s, sv)
    assert got.stride() == tuple(want.stride())
    assert got.numpy().tobytes() == want.numpy().tobytes()


# ---------------------------------------------------------------- verified properties


def _inputs():
    base = [[0.5, -0.0, float("nan")], [float("inf"), 1e-40, -2.5]]
    out = []
    for dt in (s.float32, s.float64, s.float16, s.bfloat16, s.complex64):
        out.append(s.tensor(base).to(dt))
    out += [s.tensor([[1, 0, 3], [0, -1, 1]]).to(s.int32), s.tensor([[True, False, True]] * 2),
            s.tensor(0.3), s.zeros(0, 3), s.ones(4, 6)[:, ::2], s.ones(3, 4).t(), s.ones(1, 3).expand(4, 3),
            s.arange(12.).reshape(3, 4)[1:], s.nn.Parameter(s.ones(2, 3)), s.ones(2, 3, requires_grad=True),
            s.ones(2, 3, dtype=s.float64).view(s.int64)]
    return out


@pytest.mark.parametrize("name", ["exp", "neg", "abs", "sqrt", "sinc", "logit", "sigmoid", "relu", "add", "mul",
                                  "sub", "div", "maximum", "pow", "atan2", "eq"])
def test_front_matches_fallback(name):
    f = getattr(s, name)
    fb = fallback_of(f)
    assert fb is not f
    for x in _inputs():
        for args in ((x,), (x, x), (x, 2.0), (x, 2), (x, s.ones(3)), (x, x, x)):
            assert _outcome(f, *args) == _outcome(fb, *args), (name, x.dtype, tuple(x.shape), len(args))


def test_typed_alias_same_itemsize_matches_torch():
    x = s.tensor([1.5, -2.0, 0.0])
    tx = torch.tensor([1.5, -2.0, 0.0])
    y, ty = x.view(s.int32), tx.view(torch.int32)
    assert s.neg(y).tolist() == torch.neg(ty).tolist()
    assert (y + y).tolist() == (ty + ty).tolist()
    assert s.bitwise_not(y).tolist() == torch.bitwise_not(ty).tolist()
    assert (y + 2.0).tolist() == (ty + 2.0).tolist()


def test_front_quiet_inside_numpy_raise_state():
    x = s.tensor([1000.0, -1.0, 0.0, float("nan")])
    with np.errstate(all="raise"):
        for n in ("exp", "log", "sqrt", "reciprocal", "sinc"):
            assert _outcome(getattr(s, n), x) == _outcome(fallback_of(getattr(s, n)), x)
        assert _outcome(s.div, x, 0.0) == _outcome(fallback_of(s.div), x, 0.0)
    assert np.geterr()["divide"] == "warn"


def test_front_object_protocols():
    assert pickle.loads(pickle.dumps(s.exp)) is s.exp
    assert pickle.loads(pickle.dumps(s.add)) is s.add
    assert copy.deepcopy(s.exp) is s.exp
    assert s.exp.__name__ == "exp" and s.exp.__doc__ == fallback_of(s.exp).__doc__
    x = s.ones(2, 2)
    assert x.exp().tolist() == s.exp(x).tolist()


def test_inplace_no_grad_counts_version_and_saved_tensor_error():
    a = s.ones(3, requires_grad=True)
    b = s.ones(3) * 2
    y = (a * b).sum()
    with s.no_grad():
        b.add_(1)
    assert b._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
    w = s.ones(4, requires_grad=True)
    with s.no_grad():
        w[:2].mul_(3)
        w.add_(1)
    assert w.tolist() == [4.0, 4.0, 2.0, 2.0] and w._version == 2


def test_inplace_inference_tensor_refused():
    with s.inference_mode():
        it = s.ones(3)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        it.add_(1)


@pytest.mark.parametrize("grad", [False, True])
def test_warnings_point_at_user_line(grad):
    x0 = s.tensor(0.3, requires_grad=grad)
    x2 = s.ones(2, 3, requires_grad=grad)
    c = s.ones(2, 3, dtype=s.complex64)
    for fn in (lambda: x0.T, lambda: x0.mT, lambda: x0.mH, lambda: F.softmax(x2), lambda: F.log_softmax(x2),
               lambda: c.float(), lambda: c.to(s.float32), lambda: s.ones(2, 3).copy_(c)):
        sites = _warned(fn)
        assert sites and all(f == __file__ for f, _ in sites), sites


def test_sinc_matches_torch_bits():
    v = np.array([0, -0.0, 1e-45, 1e-20, 0.5, 1, 2.5, 1e8, np.inf, -np.inf, np.nan, 3.3, -7.1, 1e-8, 1e30], np.float32)
    for dt in (np.float32, np.float64):
        a, t = s.tensor(v.astype(dt)), torch.tensor(v.astype(dt))
        assert s.sinc(a).numpy().tobytes() == torch.sinc(t).numpy().tobytes()
        assert s.sinc(a[::2]).numpy().tobytes() == torch.sinc(t[::2]).numpy().tobytes()


def test_histc_matches_torch():
    h = np.array([0, 1, 2, 3, np.nan, np.inf, -1, 5, 2.9999999, 1.0000001, 0.25])
    for dt in (np.float32, np.float64):
        for args in ((4, 0, 3), (10, 0, 0), (3, 1, 1), (5, -1, 4)):
            fin = h[np.isfinite(h)].astype(dt)
            assert s.histc(s.tensor(fin), *args).tolist() == torch.histc(torch.tensor(fin), *args).tolist()
        assert s.histc(s.tensor(h.astype(dt)), 4, 0, 3).tolist() == torch.histc(torch.tensor(h.astype(dt)), 4, 0, 3).tolist()


def _bits(r):
    if isinstance(r, tuple):
        return tuple(_bits(x) for x in r)
    return (str(r.dtype), tuple(r.shape), r.numpy().tobytes())


_LAPACK = {
    "cholesky": s.linalg.cholesky, "cholesky_ex": s.linalg.cholesky_ex, "eigh": s.linalg.eigh,
    "eigvalsh": s.linalg.eigvalsh, "qr": s.linalg.qr, "qr_c": lambda A: s.linalg.qr(A, mode="complete"),
    "svd": s.linalg.svd, "svd_thin": lambda A: s.linalg.svd(A, full_matrices=False), "svdvals": s.linalg.svdvals,
    "pinv": s.linalg.pinv, "chol_up": lambda A: s.linalg.cholesky(A, upper=True),
}


def test_direct_lapack_matches_batched_path_bitwise():
    rng = np.random.default_rng(0)
    mats = []
    for dt in (np.float32, np.float64):
        for n in (1, 5, 64, 65):
            m = rng.standard_normal((n, n)).astype(dt)
            mats += [m, (m @ m.T + n * np.eye(n)).astype(dt)]
        mats += [np.zeros((3, 3), dt), np.eye(3, dtype=dt) * 1e30, rng.standard_normal((5, 3)).astype(dt),
                 rng.standard_normal((3, 5)).astype(dt)]
    for m in mats:
        for A in (s.tensor(m), s.tensor(m).t(), s.tensor(m).flip(0)):
            for name, f in _LAPACK.items():
                try:
                    one = _bits(f(A))
                except Exception:  # noqa: BLE001 (errors differ only by the batch prefix)
                    continue
                batched = f(A.unsqueeze(0))
                batched = tuple(x[0] for x in batched) if isinstance(batched, tuple) else batched[0]
                assert one == _bits(batched), (name, m.shape, m.dtype)


def test_version_counts_first_inplace_write_in_fresh_process():
    import os
    import subprocess
    import sys
    code = "import strided as s\nx = s.ones(3)\nx.add_(2.0)\nprint(x._version)\n"
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "1"


def test_dunders_match_fallback():
    for dn in ("__add__", "__sub__", "__mul__", "__truediv__", "__pow__", "__lt__", "__radd__", "__rtruediv__"):
        meth = getattr(s.Tensor, dn)
        fb = fallback_of(meth)
        for dt in (s.float32, s.float64, s.float16, s.int32, s.bool, s.complex64):
            x = s.tensor([[1.0, -2.0], [0.5, 0.0]]).to(dt)
            for o in (2.0, -0.0, float("nan"), x, 3, True, np.float64(2.5)):
                assert _outcome(meth, x, o) == _outcome(fb, x, o), (dn, dt, o)


def _inplace_outcome(f, x, args):
    try:
        r = f(x, *args)
        return (r is x, x.numpy().tobytes(), str(x.dtype), x._version)
    except Exception as e:  # noqa: BLE001
        return ("E", type(e).__name__, str(e))


@pytest.mark.parametrize("grad_off", [False, True])
def test_inplace_front_matches_fallback(grad_off):
    s.ones(1, requires_grad=True)  # autograd in use: the counted (no_grad) path of mode 4
    import contextlib

    def mk(kind, dt):
        base = s.tensor([[1.0, -2.0, 3.0], [0.5, 0.0, 4.0]]).to(dt)
        return {"plain": base, "view": base[:, 1], "t": base.t(),
                "exp": s.tensor([1.0, 2.0, 3.0]).to(dt).expand(2, 3), "0d": s.tensor(2.0).to(dt)}[kind]

    for name in ("add_", "mul_", "div_", "copy_", "fill_", "__iadd__", "clamp_", "exp_"):
        meth = getattr(s.Tensor, name)
        fb = fallback_of(meth)
        for dt in (s.float32, s.int32, s.bool, s.complex64):
            for kind in ("plain", "view", "exp", "0d"):
                for other in (2.0, 3, "same"):
                    got = []
                    for f in (meth, fb):
                        x = mk(kind, dt)
                        o = s.ones(tuple(x.shape)).to(dt) if other == "same" else other
                        args = () if name == "exp_" else ((o, None) if name == "clamp_" else (o,))
                        with s.no_grad() if grad_off else contextlib.nullcontext():
                            got.append(_inplace_outcome(f, x, args))
                    assert got[0] == got[1], (name, dt, kind, other)


def test_front_results_inside_inference_mode_are_inference_tensors():
    x = s.ones(2, 3)
    for f in (s.exp, lambda t: t + t, lambda t: s.add(t, 2.0), lambda t: t.exp(), s.sinc, s.special.i1,
              lambda t: s.polygamma(1, t), s.logit):
        with s.inference_mode():
            y = f(x)
        assert y.is_inference()
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
            y.add_(1)


def test_sinc_and_histc_random_match_torch():
    rng = np.random.default_rng(0)
    v = np.concatenate([rng.standard_normal(4000) * 10, rng.standard_normal(500) * 1e-3, [1e-310, 5e-324]])
    for sd, td in ((s.float32, torch.float32), (s.float64, torch.float64), (s.float16, torch.float16)):
        assert s.sinc(s.tensor(v).to(sd)).numpy().tobytes() == torch.sinc(torch.tensor(v).to(td)).numpy().tobytes()
    for trial in range(60):
        dt = (np.float32, np.float64)[trial % 2]
        w = (rng.standard_normal(int(rng.integers(0, 100))) * 3).astype(dt)
        bins = int(rng.choice([1, 3, 7, 100]))
        lo, hi = ((0, 0), (-1.0, 1.0), (float(dt(0.1)), float(dt(0.3))))[trial % 3]
        assert (s.histc(s.tensor(w), bins, lo, hi).numpy().tobytes()
                == torch.histc(torch.tensor(w), bins, lo, hi).numpy().tobytes())


def test_direct_lapack_strides_match_torch_and_input_untouched():
    rng = np.random.default_rng(0)
    m = rng.standard_normal((4, 4))
    p = m @ m.T + 4 * np.eye(4)
    ro = p.copy()
    ro.flags.writeable = False
    for name in ("cholesky", "cholesky_ex", "eigh", "eigvalsh", "qr", "svd", "svdvals", "pinv"):
        for A in (s.tensor(p), s.tensor(np.ascontiguousarray(p.T)).t(), s.from_numpy(ro)):
            before = A.clone()
            got = getattr(s.linalg, name)(A)
            want = getattr(torch.linalg, name)(torch.tensor(p))
            got = got if isinstance(got, tuple) else (got,)
            want = want if isinstance(want, tuple) else (want,)
            assert [g.stride() for g in got] == [tuple(w.stride()) for w in want], name
            assert A.numpy().tobytes() == before.numpy().tobytes(), name
