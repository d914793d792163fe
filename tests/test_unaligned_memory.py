"""Tensors over memory at an odd address (``from_numpy`` of a buffer at a byte offset that is no
multiple of the element size; PyTorch takes such arrays too): every op below gives the bits,
shape and strides it gives over an aligned copy of the same values, and raises nothing. The
compiled kernels refuse such buffers (NumPy exports them with the format "=f"), so their callers
read an aligned copy; before, some fast paths raised the kernel's ValueError (sigmoid, F.silu,
F.gelu, softmax along dim 0, atan2, sort, topk, kthvalue, vector_norm, float64 lerp) and others
fell back to the NumPy formulas, whose last bits differ (digamma, i0, i1, i0e, i1e, sinc, softmax)."""

from __future__ import annotations

import numpy as np
import pytest

import strided as st
import strided.nn.functional as F

UNARY = ["sigmoid", "exp", "tanh", "erf", "erfc", "erfinv", "sin", "log", "sqrt", "abs", "lgamma", "digamma", "expm1",
         "log1p", "rsqrt", "sign", "frac", "asinh", "i0", "special.i1", "special.i0e", "special.i1e", "logit", "sinc",
         "exp2", "log10", "softmax", "log_softmax", "F.silu", "F.softplus", "F.gelu", "F.elu", "F.relu", "polygamma2",
         "sgn", "trunc", "reciprocal"]
BINARY = {"add": lambda p, q: p + q, "div": lambda p, q: p / q, "atan2": st.atan2, "hypot": st.hypot, "pow": st.pow,
          "fmod": st.fmod, "maximum": st.maximum, "logaddexp": st.logaddexp, "lerp": lambda p, q: st.lerp(p, q, 0.3),
          "where": lambda p, q: st.where(p > 0, p, q), "copysign": st.copysign, "sum": lambda p, q: p.sum(),
          "sum1": lambda p, q: p.reshape(6, 8).sum(1), "amax": lambda p, q: p.amax(),
          "amin0": lambda p, q: p.reshape(6, 8).amin(0), "cumsum": lambda p, q: p.cumsum(0),
          "sort": lambda p, q: p.sort()[0], "topk": lambda p, q: p.topk(5)[1],
          "argmax0": lambda p, q: p.reshape(6, 8).argmax(0), "matmul": lambda p, q: p.reshape(6, 8) @ q.reshape(8, 6),
          "norm": lambda p, q: st.linalg.vector_norm(p), "mean": lambda p, q: p.mean(),
          "softmax1": lambda p, q: p.reshape(6, 8).softmax(1), "clamp": lambda p, q: p.clamp(-1, 1),
          "exp_": lambda p, q: p.clone().exp_(), "cdist": lambda p, q: st.cdist(p.reshape(6, 8), q.reshape(6, 8)),
          "kthvalue": lambda p, q: p.kthvalue(3)[1], "var": lambda p, q: p.var(), "logsumexp": lambda p, q: p.logsumexp(0),
          "prod": lambda p, q: p.prod(), "dot": st.dot}


def _unaligned(values: np.ndarray, skew: int) -> np.ndarray:
    """``values`` copied into a buffer at byte offset ``skew`` (not a multiple of the itemsize)."""
    buf = np.zeros(values.nbytes + 16, np.uint8)
    buf[skew: skew + values.nbytes] = values.view(np.uint8)
    a = np.frombuffer(buf.data, dtype=values.dtype, count=values.size, offset=skew)
    assert not a.flags.aligned
    return a


def _unary(name):
    if name.startswith("F."):
        return getattr(F, name[2:])
    if name.startswith("special."):
        return getattr(st.special, name[8:])
    if name == "polygamma2":
        return lambda t: st.polygamma(2, t)
    if name in ("softmax", "log_softmax"):
        return lambda t: getattr(st, name)(t, 0)
    return getattr(st, name)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", UNARY)
def test_unary_ops_over_unaligned_memory(dtype, name):
    values = (np.random.default_rng(0).standard_normal(48) * 3).astype(dtype)
    x, y = st.from_numpy(_unaligned(values, 1)), st.from_numpy(values.copy())
    f = _unary(name)
    for shape, transpose in (((48,), False), ((6, 8), False), ((8, 6), True)):
        xs, ys = x.reshape(shape), y.reshape(shape)
        if transpose:
            xs, ys = xs.t(), ys.t()
        ours, aligned = f(xs), f(ys)
        assert ours.stride() == aligned.stride() and ours.numpy().tobytes() == aligned.numpy().tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_ops_and_reductions_over_unaligned_memory(dtype, name):
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal(48) * 3).astype(dtype), (rng.standard_normal(48) * 3).astype(dtype)
    x, y = st.from_numpy(_unaligned(a, 1)), st.from_numpy(_unaligned(b, 3))
    ours, aligned = BINARY[name](x, y), BINARY[name](st.from_numpy(a.copy()), st.from_numpy(b.copy()))
    assert ours.shape == aligned.shape and ours.numpy().tobytes() == aligned.numpy().tobytes()


LINALG = {"lstsq": lambda a, s, b, c: st.linalg.lstsq(a, b).solution, "solve": lambda a, s, b, c: st.linalg.solve(a, b),
          "solve_ex": lambda a, s, b, c: st.linalg.solve_ex(a, b)[0], "pinv": lambda a, s, b, c: st.linalg.pinv(a),
          "svd": lambda a, s, b, c: st.linalg.svd(a)[1], "svdvals": lambda a, s, b, c: st.linalg.svdvals(a),
          "eigh": lambda a, s, b, c: st.linalg.eigh(s)[0], "eigvalsh": lambda a, s, b, c: st.linalg.eigvalsh(s),
          "cholesky": lambda a, s, b, c: st.linalg.cholesky(s), "qr": lambda a, s, b, c: st.linalg.qr(a)[1],
          "matrix_rank": lambda a, s, b, c: st.linalg.matrix_rank(a), "addbmm": lambda a, s, b, c: st.addbmm(a, c, c),
          "outer": lambda a, s, b, c: st.outer(a.reshape(-1), a.reshape(-1)),
          "tensordot": lambda a, s, b, c: st.tensordot(a, b, dims=1), "cov": lambda a, s, b, c: st.cov(a),
          "vander": lambda a, s, b, c: st.vander(a[0]), "inv": lambda a, s, b, c: st.linalg.inv(s),
          "det": lambda a, s, b, c: st.linalg.det(s), "mm": lambda a, s, b, c: a @ b, "bmm": lambda a, s, b, c: st.bmm(c, c),
          "trace": lambda a, s, b, c: a.trace()}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(LINALG))
def test_linalg_over_unaligned_memory(dtype, name):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((6, 6)).astype(dtype), rng.standard_normal((6, 3)).astype(dtype)
    s, c = (a @ a.T + 6 * np.eye(6)).astype(dtype), rng.standard_normal((2, 6, 6)).astype(dtype)
    operands = (a, s, b, c)
    ours = LINALG[name](*(st.from_numpy(_unaligned(v.reshape(-1), 1).reshape(v.shape)) for v in operands))
    aligned = LINALG[name](*(st.from_numpy(v.copy()) for v in operands))
    assert ours.shape == aligned.shape and ours.numpy().tobytes() == aligned.numpy().tobytes()


SAMPLERS = [("normal_", ()), ("normal_", (1.0, 2.0)), ("uniform_", ()), ("exponential_", ()), ("bernoulli_", (0.5,)),
            ("random_", (0, 10)), ("geometric_", (0.3,)), ("cauchy_", ()), ("log_normal_", ())]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,args", SAMPLERS)
def test_in_place_samplers_over_unaligned_memory(dtype, name, args):
    """The same draws for the same seed as into aligned memory (NumPy's ``out=`` fills refuse
    memory at an odd address: the sample is drawn, then copied in)."""
    x = st.from_numpy(_unaligned(np.zeros(12, dtype), 1))
    y = st.from_numpy(np.zeros(12, dtype))
    st.manual_seed(3)
    getattr(x, name)(*args)
    st.manual_seed(3)
    getattr(y, name)(*args)
    assert x.numpy().tobytes() == y.numpy().tobytes()
