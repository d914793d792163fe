"""Divergences from PyTorch fixed in branch xfb34, each tested against torch bit for bit:

- a 0-d tensor's norm over an explicit dim (0, -1, [0]) is PyTorch's plain formula, not |x|;
- prod of bfloat16 over an outer dim: NaN words 0xFFFF in the columns of vectorized_outer_reduction's
  whole blocks of 4 vectors (the first 64 * (m // 64) of each kept run), 0x7FC0 elsewhere;
- error texts: clamp_ with number bounds on integers ("long int"), logsumexp's integer out=,
  autograd.grad's unused input.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as F


def _np(t) -> np.ndarray:
    """A torch or strided tensor's values as NumPy (bfloat16 widened to float32, exactly)."""
    t = t.detach()
    if str(t.dtype).endswith("bfloat16"):
        t = t.float()
    return t.numpy()


def _same(s, t) -> None:
    """shape, dtype and every bit (NaN words and signs too)."""
    a, b = _np(s), _np(t)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    assert a.tobytes() == b.tobytes(), (a, b)


def _outcome(fn, args: tuple, kwargs: dict):
    """(the result, or the error's class name and first line)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 (compared, class and text, against the peer's)
        name = type(e).__name__.replace("Strided", "")
        return name, str(e).splitlines()[0]


def _both(fn_t, fn_s, t, s, *args, **kwargs) -> None:
    """``fn_t(t, *args, **kwargs)`` against ``fn_s(s, ...)``: the same bits, or the same error."""
    a, b = _outcome(fn_t, (t, *args), kwargs), _outcome(fn_s, (s, *args), kwargs)
    if isinstance(a, tuple) or isinstance(b, tuple):
        assert a == b
    else:
        _same(b, a)


def _grad_of(fn, x, *args):
    """d(fn(x, *args) * 1.5)/dx, through the tensor's own library."""
    x = x.clone().requires_grad_()
    lib = torch if isinstance(x, torch.Tensor) else strided
    return lib.autograd.grad(fn(x, *args) * 1.5, x)[0]


# --------------------------------------------------------------- 1. 0-d norm over an explicit dim

_DTYPES = ["float32", "float64", "float16", "bfloat16", "complex64", "complex128"]
_VALUES = [1e38, 1e-45, 3.0, -3.0, 0.0, -0.0, np.nan, np.inf, 1e-20, 2e19, 7.3, -1.1e-3, 65000.0, 1e300, 1e-310]
_ORDS = [2, 3, 1, 0, np.inf, -np.inf, -1, 0.5, -2, 2.5, 1.7]


def _zero_d(v: float, dt: str):
    t = torch.tensor(v, dtype=torch.float64).to(getattr(torch, dt))
    if dt.startswith("complex"):
        t = t * (1 + 0.5j)
    s = strided.tensor(_np(t)).to(getattr(strided, dt))
    return t, s


@pytest.mark.parametrize("dt", _DTYPES)
@pytest.mark.parametrize("dim", [0, -1, [0], (0,), (), None])
@pytest.mark.parametrize("keepdim", [False, True])
def test_zero_d_vector_norm(dt: str, dim, keepdim: bool) -> None:
    for v in _VALUES:
        t, s = _zero_d(v, dt)
        for p in _ORDS:
            _both(torch.linalg.vector_norm, strided.linalg.vector_norm, t, s, p, dim, keepdim)
            if dim is not None:
                _both(torch.Tensor.norm, strided.Tensor.norm, t, s, p, dim, keepdim)
                _both(torch.linalg.norm, strided.linalg.norm, t, s, p, dim, keepdim)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("p", [2, 3, 1, np.inf, -1, 0.5, 2.5])
def test_zero_d_norm_dtype_arg_normalize_and_grad(dt: str, p: float) -> None:
    for v in [1e38, 1e-45, 3.0, -3.0, 0.0, 7.3, 1e300, 1e-20]:
        t, s = _zero_d(v, dt)
        # dtype= converts first (float32 1e38 as float64: no overflow)
        _same(strided.linalg.vector_norm(s.float(), p, 0, dtype=s.dtype),
              torch.linalg.vector_norm(t.float(), p, 0, dtype=t.dtype))
        _both(TF.normalize, F.normalize, t, s, p, 0)  # (1e38 float32: x / inf = 0)
        _both(torch.norm, strided.norm, t, s, p, -1)
        _same(_grad_of(strided.linalg.vector_norm, s, p, 0), _grad_of(torch.linalg.vector_norm, t, p, 0))


def test_one_element_tensors_keep_abs() -> None:
    """Only the 0-d tensor over an explicit dim takes the formula: a (1,) or (1, 1) tensor's norm over
    its size-1 dims is |x| (1e38 stays 1e38), as is the 0-d tensor's over every dim."""
    for shape, dim in [((1,), 0), ((1,), None), ((1, 1), (0, 1)), ((1, 1), 0), ((), None), ((), ())]:
        t = torch.full(shape, 1e38)
        s = strided.full(shape, 1e38)
        _same(strided.linalg.vector_norm(s, 2, dim), torch.linalg.vector_norm(t, 2, dim))
        _same(strided.linalg.vector_norm(s, 3, dim), torch.linalg.vector_norm(t, 3, dim))


# --------------------------------------------------------------- 4. error texts

_INTS = ["int64", "int32", "int16", "int8", "uint8", "bool", "uint16", "uint32", "uint64"]


def _clamp_inplace(x, kind: str):
    return {"clamp_": lambda: x.clamp_(min=1e-6), "clamp_ max": lambda: x.clamp_(max=2.5),
            "clamp_ both": lambda: x.clamp_(0.5, 2.5), "clip_": lambda: x.clip_(0.5, 2.5),
            "clamp_min_": lambda: x.clamp_min_(1.5), "clamp_max_": lambda: x.clamp_max_(1.5),
            "clamp_ int": lambda: x.clamp_(0, 2), "clamp_min_ tensor": lambda: x.clamp_min_(type(x)([1.5])),
            }[kind]()


@pytest.mark.parametrize("dt", _INTS)
@pytest.mark.parametrize("layout", ["contiguous", "strided", "0-d", "empty"])
@pytest.mark.parametrize("kind", ["clamp_", "clamp_ max", "clamp_ both", "clip_", "clamp_min_", "clamp_max_",
                                  "clamp_ int"])
def test_clamp_inplace_integer_text(dt: str, layout: str, kind: str) -> None:
    """clamp_ / clip_ / clamp_min_ / clamp_max_ with number bounds name the target by its C++ type
    ("long int", "short unsigned int"); PyTorch's same refusal with tensor bounds says "Long"."""
    def make(M):
        base = M.ones(6).to(getattr(M, dt))
        return {"contiguous": base, "strided": base[::2], "0-d": base[0], "empty": base[:0]}[layout]
    _both(_clamp_inplace, _clamp_inplace, make(torch), make(strided), kind)


@pytest.mark.parametrize("dt", ["int64", "int16"])
def test_clamp_inplace_tensor_bound_keeps_scalar_type_name(dt: str) -> None:
    _both(lambda x: x.clamp_min_(torch.tensor([1.5])), lambda x: x.clamp_min_(strided.tensor([1.5])),
          torch.ones(3).to(getattr(torch, dt)), strided.ones(3).to(getattr(strided, dt)))
    _both(lambda x: x.clamp_(min=torch.tensor(1.5)), lambda x: x.clamp_(min=strided.tensor(1.5)),
          torch.ones(3).to(getattr(torch, dt)), strided.ones(3).to(getattr(strided, dt)))


def _lse(M, x, dim, out_dt, out_shape):
    return M.logsumexp(x, dim, out=M.empty(out_shape, dtype=getattr(M, out_dt)))


@pytest.mark.parametrize("out_dt", ["int64", "int32", "bool", "uint8", "int8"])
@pytest.mark.parametrize("in_dt", ["float32", "int64", "complex64"])
@pytest.mark.parametrize("case", [((3, 2), 1, (3,)), ((3, 2), 5, (3,)), ((0, 2), 1, (0,)), ((), 0, ()),
                                  ((3, 2), 1, (7,)), ((4, 3), 0, (3,))])
def test_logsumexp_out_dtype_refusal(out_dt: str, in_dt: str, case) -> None:
    """An integer or bool out= is refused first (before the dims, the shape): PyTorch's text."""
    shape, dim, out_shape = case
    t = (torch.arange(max(1, int(np.prod(shape)))).reshape(-1)[: int(np.prod(shape))].reshape(shape) * 0.25
         ).to(getattr(torch, in_dt))
    s = strided.from_numpy(t.numpy().copy())
    _both(lambda x: _lse(torch, x, dim, out_dt, out_shape), lambda x: _lse(strided, x, dim, out_dt, out_shape), t, s)


def test_grad_unused_input_text() -> None:
    """autograd.grad of an input not on the outputs' graph: PyTorch's text names its index."""
    def run(M):
        a, b = M.ones(2, requires_grad=True), M.ones(2, requires_grad=True)
        return M.autograd.grad((a * 2).sum(), [a, b])
    assert _outcome(run, (torch,), {}) == _outcome(run, (strided,), {})


# --------------------------------------------------------------- 3. bfloat16 NaN words of reductions

def _words(t) -> np.ndarray:
    t = t.contiguous()
    return (t.view(torch.int16).numpy() if isinstance(t, torch.Tensor) else t.numpy()).view(np.uint16)


_NAN_SHAPES = [(3, 5), (3, 64), (3, 70), (2, 130), (7, 129), (2, 1000), (2, 3, 70), (3, 2, 130), (2, 5, 64),
               (4, 1, 200), (2, 2, 2, 65), (64, 3), (1, 70)]
_NAN_WORDS = [0x7FC0, 0xFFC0, 0x7F81, 0xFFFF]  # (quiet, negative, signalling, all-ones)


def _nan_pair(shape: tuple, seed: int, inf_zero: bool):
    """A bfloat16 tensor of ``shape`` in torch and strided with the same words: values near 1, about
    a third NaN of four kinds; ``inf_zero``: infinities and zeros too (inf * 0 makes a NaN)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    w = torch.from_numpy(rng.uniform(0.9, 1.1, n).astype(np.float32)).bfloat16().view(torch.int16).numpy()
    w = w.view(np.uint16).copy()
    mask = rng.random(n) < 0.3
    w[mask] = rng.choice(_NAN_WORDS, int(mask.sum()))
    if inf_zero:
        w[rng.random(n) < 0.2] = 0x7F80
        w[rng.random(n) < 0.2] = 0
    t = torch.from_numpy(w.view(np.int16).copy()).view(torch.bfloat16).reshape(shape)
    s = strided.from_numpy(w.copy()).view(strided.bfloat16).reshape(shape)
    return t, s


def _layouts(t, s):
    yield "contiguous", t, s
    yield "transposed", t.transpose(0, -1), s.transpose(0, -1)
    yield "sliced", t[..., ::2], s[..., ::2]
    yield "flipped", t.flip(0), s.flip(0)
    yield "offset", t[1:], s[1:]
    yield "expanded", t.unsqueeze(0).expand(3, *t.shape), s.unsqueeze(0).expand(3, *s.shape)


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("op", ["prod", "sum", "mean", "amax", "amin", "nansum"])
@pytest.mark.parametrize("shape", _NAN_SHAPES)
def test_bf16_reduction_nan_words(op: str, shape: tuple) -> None:
    """Every word of bfloat16 reductions over each dim (keepdim both ways) and over everything."""
    for inf_zero in (False, True):
        t0, s0 = _nan_pair(shape, len(shape) * 1000 + shape[-1], inf_zero)
        for how, t, s in _layouts(t0, s0):
            for dim in [*range(t.dim()), None]:
                for kd in (False, True):
                    args, kwargs = ((), {}) if dim is None else ((dim,), {"keepdim": kd})
                    a = _outcome(getattr(t, op), args, kwargs)
                    b = _outcome(getattr(s, op), args, kwargs)
                    if isinstance(a, tuple) or isinstance(b, tuple):  # (an empty amax / amin: the refusal)
                        assert a == b
                        continue
                    assert tuple(a.shape) == tuple(b.shape)
                    wa, wb = _words(a), _words(b)
                    assert np.array_equal(wa, wb), (how, dim, kd, inf_zero, sorted(set(zip(wa[wa != wb], wb[wa != wb]))))
                    if dim is None:
                        break


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("shape", [(3, 70), (2, 3, 130), (5, 64), (2, 2, 2, 65)])
def test_bf16_prod_nan_words_out_and_dtype(shape: tuple) -> None:
    """prod(dtype=bfloat16) of float32 / float16, and out= bfloat16: the same words as torch's."""
    rng = np.random.default_rng(7)
    base = rng.uniform(0.5, 1.5, shape).astype(np.float32)
    base[rng.random(shape) < 0.3] = np.nan
    base[rng.random(shape) < 0.1] = -np.nan
    t32, s32 = torch.from_numpy(base), strided.from_numpy(base.copy())
    for dim in range(len(shape)):
        for kd in (False, True):
            pairs = [
                (t32.prod(dim, kd, dtype=torch.bfloat16), s32.prod(dim, kd, dtype=strided.bfloat16)),
                (t32.half().prod(dim, kd, dtype=torch.bfloat16),
                 s32.to(strided.float16).prod(dim, kd, dtype=strided.bfloat16)),
                (torch.prod(t32.bfloat16(), dim, kd, out=torch.empty(0, dtype=torch.bfloat16)),
                 strided.prod(s32.to(strided.bfloat16), dim, kd, out=strided.empty(0, dtype=strided.bfloat16))),
            ]
            for a, b in pairs:
                assert tuple(a.shape) == tuple(b.shape)
                assert np.array_equal(_words(a), _words(b)), (dim, kd)


# --------------------------------------------------------------- 2. .data writes under normalize / layer_norm

def _data_write_grads(M, fn, dt: str, layout: str, write) -> list:
    """The gradients of ``fn`` (sum of its result times a fixed weight) after ``write`` changed the
    input's values through ``.data`` between the forward and backward()."""
    rng = np.random.default_rng(3)
    base = rng.standard_normal((4, 6)) + 0.5
    leaf = M.tensor(base, dtype=getattr(M, dt), requires_grad=True)
    w = M.tensor(rng.uniform(0.5, 1.5, 6), dtype=getattr(M, dt), requires_grad=True)
    b = M.tensor(rng.uniform(-1, 1, 6), dtype=getattr(M, dt), requires_grad=True)
    x = leaf * 1.0
    if layout == "transposed":
        x = x.t().contiguous().t()
    out = fn(M, x, w, b)
    write(x.data)
    weight = M.tensor(rng.uniform(-1, 1, tuple(out.shape)), dtype=getattr(M, dt))
    (out * weight).sum().backward()
    return [t.grad.numpy().copy() if t.grad is not None else None for t in (leaf, w, b)]


_DATA_WRITES = {"mul_ 3": lambda d: d.mul_(3.0), "add_ 0.5": lambda d: d.add_(0.5), "row 0": lambda d: d[0].fill_(2.0)}
_NORMALIZING = {
    "normalize p2 dim1": lambda M, x, w, b: M.nn.functional.normalize(x),
    "normalize p1 dim0": lambda M, x, w, b: M.nn.functional.normalize(x, 1.0, 0),
    "normalize p3 dim-1": lambda M, x, w, b: M.nn.functional.normalize(x, 3.0, -1),
    "normalize inf": lambda M, x, w, b: M.nn.functional.normalize(x, float("inf"), 1),
    "layer_norm": lambda M, x, w, b: M.nn.functional.layer_norm(x, (6,)),
    "layer_norm affine": lambda M, x, w, b: M.nn.functional.layer_norm(x, (6,), w, b),
    "layer_norm 2 dims": lambda M, x, w, b: M.nn.functional.layer_norm(x.reshape(2, 2, 6), (2, 6)),
}


@pytest.mark.parametrize("name", list(_NORMALIZING))
@pytest.mark.parametrize("write", list(_DATA_WRITES))
@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_data_write_before_backward(name: str, write: str, dt: str, layout: str) -> None:
    """PyTorch's nodes keep the forward's norms (mean, rstd) and read the input as it is at backward."""
    fn, wr = _NORMALIZING[name], _DATA_WRITES[write]
    got = _data_write_grads(strided, fn, dt, layout, wr)
    want = _data_write_grads(torch, fn, dt, layout, wr)
    tol = 1e-10 if dt == "float64" else 2e-4
    for g, w in zip(got, want, strict=True):
        assert (g is None) == (w is None)
        if g is not None:
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol)
