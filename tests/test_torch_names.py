"""The closed list of everyday ``torch.*`` names (tools/torch_names.py): each exists as
``strided.<name>`` and gives PyTorch's result on a sample call (values, dtype, shape, strides),
so a name dropped or broken later fails here. The samples read a transposed (non-contiguous)
float32 input; the new names of this list get their own differential tests below."""

from __future__ import annotations

import functools
import importlib.util
import math
import pathlib

import numpy as np
import pytest
import torch

import strided

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("torch_names", ROOT / "tools" / "torch_names.py")
torch_names = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(torch_names)  # type: ignore[union-attr]

RNG = np.random.default_rng(25)
A = (RNG.random((3, 2)) + 0.5).astype(np.float32)  # read transposed: a (2, 3) with strides (1, 2)
B = (RNG.random((2, 3)) + 0.5).astype(np.float32)
IDX = np.array([[3, 1, 2], [0, 2, 1]], dtype=np.int64)
MASK = np.array([[True, False, True], [False, True, True]])


def _inputs(m):
    return m.tensor(A).t(), m.tensor(B), m.tensor(IDX), m.tensor(MASK)


def _calls(names: str, args) -> dict:
    """Samples that call ``m.<name>(*args(a, b, i, k))`` for each of ``names`` (space-separated)."""
    return {n: functools.partial(_call, n, args) for n in names.split()}


def _call(name, args, m, a, b, i, k):
    return getattr(m, name)(*args(a, b, i, k))


def _seeded(m, f):
    """A random draw's layout and dtype, and that a reseed repeats it (strided's generator is its
    own: the same distributions as PyTorch's, not the same stream)."""
    m.manual_seed(0)
    first = f()
    m.manual_seed(0)
    again = f()
    return tuple(first.shape), str(first.dtype).split(".")[-1], first.stride(), bool((first == again).all())


# name -> sample(m, a, b, i, mask): the same call on torch and strided
SAMPLES = {
    # creation
    "tensor": lambda m, a, b, i, k: m.tensor([[1.5, 2], [3, 4]]),
    "as_tensor": lambda m, a, b, i, k: m.as_tensor([1, 2]),
    "asarray": lambda m, a, b, i, k: m.asarray([1.0, 2.0]),
    "from_numpy": lambda m, a, b, i, k: m.from_numpy(np.arange(6).reshape(2, 3)[:, ::2]),
    "zeros": lambda m, a, b, i, k: m.zeros(2, 3), "ones": lambda m, a, b, i, k: m.ones((2, 1), dtype=m.int32),
    "empty": lambda m, a, b, i, k: m.empty(2, 3).fill_(1), "full": lambda m, a, b, i, k: m.full((2,), 2.5),
    "zeros_like": lambda m, a, b, i, k: m.zeros_like(a), "ones_like": lambda m, a, b, i, k: m.ones_like(i),
    "empty_like": lambda m, a, b, i, k: m.empty_like(a).fill_(0), "full_like": lambda m, a, b, i, k: m.full_like(a, 7),
    "rand": lambda m, a, b, i, k: _seeded(m, lambda: m.rand(2, 3)),
    "randn": lambda m, a, b, i, k: _seeded(m, lambda: m.randn(4)),
    "randint": lambda m, a, b, i, k: _seeded(m, lambda: m.randint(0, 10, (5,))),
    "randperm": lambda m, a, b, i, k: _seeded(m, lambda: m.randperm(6)),
    "rand_like": lambda m, a, b, i, k: _seeded(m, lambda: m.rand_like(a)),
    "randn_like": lambda m, a, b, i, k: _seeded(m, lambda: m.randn_like(a)),
    "randint_like": lambda m, a, b, i, k: _seeded(m, lambda: m.randint_like(i, 5)),
    "arange": lambda m, a, b, i, k: m.arange(1, 7, 2), "linspace": lambda m, a, b, i, k: m.linspace(0, 1, 5),
    "logspace": lambda m, a, b, i, k: m.logspace(0, 2, 3), "eye": lambda m, a, b, i, k: m.eye(2, 3),
    "empty_strided": lambda m, a, b, i, k: m.empty_strided((2, 3), (1, 2)).fill_(3),
    "manual_seed": lambda m, a, b, i, k: _seeded(m, lambda: m.rand(2)),
    "seed": lambda m, a, b, i, k: isinstance(m.seed(), int),
    "initial_seed": lambda m, a, b, i, k: (m.manual_seed(5), m.initial_seed())[1],
    "normal": lambda m, a, b, i, k: _seeded(m, lambda: m.normal(a, 1.0)),
    "bernoulli": lambda m, a, b, i, k: _seeded(m, lambda: m.bernoulli(a / 2)),
    "multinomial": lambda m, a, b, i, k: _seeded(m, lambda: m.multinomial(b, 2)),
    "tril_indices": lambda m, a, b, i, k: (m.tril_indices(3, 4), m.tril_indices(4, 3, -1, dtype=m.int32)),
    "triu_indices": lambda m, a, b, i, k: (m.triu_indices(3, 3, 1), m.triu_indices(0, 2), m.triu_indices(2, 5, -9)),
    # shape
    "reshape": lambda m, a, b, i, k: m.reshape(b, (3, 2)), "transpose": lambda m, a, b, i, k: m.transpose(b, 0, 1),
    "permute": lambda m, a, b, i, k: m.permute(b, (1, 0)), "squeeze": lambda m, a, b, i, k: m.squeeze(b[None], 0),
    "unsqueeze": lambda m, a, b, i, k: m.unsqueeze(a, 1), "flatten": lambda m, a, b, i, k: m.flatten(a),
    "unflatten": lambda m, a, b, i, k: m.unflatten(b, 1, (3, 1)), "split": lambda m, a, b, i, k: m.split(b, 2, 1),
    "chunk": lambda m, a, b, i, k: m.chunk(b, 2, 1), "tensor_split": lambda m, a, b, i, k: m.tensor_split(b, 3, 1),
    "narrow": lambda m, a, b, i, k: m.narrow(a, 1, 1, 2), "t": lambda m, a, b, i, k: m.t(b),
    "clone": lambda m, a, b, i, k: m.clone(a), "diagonal": lambda m, a, b, i, k: m.diagonal(b, 1),
    "movedim": lambda m, a, b, i, k: m.movedim(b[None], 0, 2), "moveaxis": lambda m, a, b, i, k: m.moveaxis(b[None], 0, -1),
    "swapaxes": lambda m, a, b, i, k: m.swapaxes(b[None], 0, 2),
    "swapdims": lambda m, a, b, i, k: m.swapdims(b[None], dim0=1, dim1=2),
    "unbind": lambda m, a, b, i, k: m.unbind(a, 1), "select": lambda m, a, b, i, k: m.select(a, 1, 2),
    "cat": lambda m, a, b, i, k: m.cat([a, b], 1), "concat": lambda m, a, b, i, k: m.concat([a, b]),
    "concatenate": lambda m, a, b, i, k: m.concatenate([a, b], 1), "stack": lambda m, a, b, i, k: m.stack([a, b], 1),
    "hstack": lambda m, a, b, i, k: m.hstack([a, b]), "vstack": lambda m, a, b, i, k: m.vstack([a, b]),
    "dstack": lambda m, a, b, i, k: m.dstack([a, b]), "column_stack": lambda m, a, b, i, k: m.column_stack([a, b]),
    "flip": lambda m, a, b, i, k: m.flip(a, (0, 1)), "fliplr": lambda m, a, b, i, k: m.fliplr(a),
    "flipud": lambda m, a, b, i, k: m.flipud(a), "roll": lambda m, a, b, i, k: m.roll(a, 1, 1),
    "rot90": lambda m, a, b, i, k: m.rot90(a), "tile": lambda m, a, b, i, k: m.tile(a, (2, 1)),
    "repeat_interleave": lambda m, a, b, i, k: m.repeat_interleave(a, 2, 0),
    "broadcast_to": lambda m, a, b, i, k: m.broadcast_to(b[:1], (2, 3)),
    "broadcast_tensors": lambda m, a, b, i, k: m.broadcast_tensors(a, b[:1]),
    "as_strided": lambda m, a, b, i, k: m.as_strided(b, (2, 2), (1, 2)), "ravel": lambda m, a, b, i, k: m.ravel(a),
    "atleast_1d": lambda m, a, b, i, k: m.atleast_1d(a[0, 0]), "atleast_2d": lambda m, a, b, i, k: m.atleast_2d(a[0]),
    "atleast_3d": lambda m, a, b, i, k: m.atleast_3d(a), "hsplit": lambda m, a, b, i, k: m.hsplit(a, 3),
    "vsplit": lambda m, a, b, i, k: m.vsplit(a, 2), "dsplit": lambda m, a, b, i, k: m.dsplit(a[None], 3),
    "tril": lambda m, a, b, i, k: m.tril(a), "triu": lambda m, a, b, i, k: m.triu(a, 1),
    "diag": lambda m, a, b, i, k: m.diag(a[0]), "diag_embed": lambda m, a, b, i, k: m.diag_embed(a),
    "diagflat": lambda m, a, b, i, k: m.diagflat(a[0]),
    "meshgrid": lambda m, a, b, i, k: m.meshgrid(a[0], b[1], indexing="ij"),
    "cartesian_prod": lambda m, a, b, i, k: m.cartesian_prod(a[0], b[1]),
    # indexing
    "gather": lambda m, a, b, i, k: m.gather(a, 1, i.clamp(max=2)),
    "scatter": lambda m, a, b, i, k: m.scatter(m.zeros(2, 4), 1, i, b),
    "scatter_add": lambda m, a, b, i, k: m.scatter_add(m.zeros(2, 4), 1, i, b),
    "index_select": lambda m, a, b, i, k: m.index_select(a, 1, i[0].clamp(max=2)),
    "masked_select": lambda m, a, b, i, k: m.masked_select(a, k), "masked_fill": lambda m, a, b, i, k: m.masked_fill(a, k, 0.5),
    "take": lambda m, a, b, i, k: m.take(a, i), "take_along_dim": lambda m, a, b, i, k: m.take_along_dim(a, i.clamp(max=2), 1),
    "where": lambda m, a, b, i, k: m.where(k, a, b), "nonzero": lambda m, a, b, i, k: m.nonzero(k),
    "argwhere": lambda m, a, b, i, k: m.argwhere(k),
    # math (unary)
    **_calls((
        "abs absolute neg negative exp exp2 expm1 log log2 log10 log1p sqrt rsqrt square sin cos tan atan "
        "sinh cosh tanh asinh sigmoid erf erfc floor ceil round trunc frac sign sgn signbit reciprocal "
        "deg2rad rad2deg isnan isinf isfinite isposinf isneginf nan_to_num real conj"
    ), lambda a, b, i, k: (a,)),
    **_calls("asin acos atanh erfinv", lambda a, b, i, k: (a - 1,)),
    "isreal": lambda m, a, b, i, k: (m.isreal(a), m.isreal(m.complex(a, b * 0).t()), m.isreal(m.complex(a, b))),
    "acosh": lambda m, a, b, i, k: m.acosh(a + 1), "imag": lambda m, a, b, i, k: m.imag(m.complex(a, b)),
    # math (binary)
    **_calls((
        "atan2 arctan2 pow add sub subtract mul multiply div divide true_divide floor_divide remainder "
        "fmod maximum minimum hypot isclose allclose equal eq ne not_equal lt less le less_equal gt "
        "greater ge greater_equal logical_and logical_or logical_xor complex polar"
    ), lambda a, b, i, k: (a, b)),
    **_calls("bitwise_and bitwise_or bitwise_xor", lambda a, b, i, k: (i, i.flip(1))),
    "bitwise_not": lambda m, a, b, i, k: m.bitwise_not(i), "logical_not": lambda m, a, b, i, k: m.logical_not(k),
    "clamp_min": lambda m, a, b, i, k: (m.clamp_min(a, 0.9), m.clamp_min(i, 1.5)),
    "clamp_max": lambda m, a, b, i, k: (m.clamp_max(a, b), i.clamp_max(2)),
    "var_mean": lambda m, a, b, i, k: (m.var_mean(a, 1), m.var_mean(a, dim=0, correction=0, keepdim=True)),
    "std_mean": lambda m, a, b, i, k: (m.std_mean(a), m.std_mean(a, (0, 1), keepdim=True)),
    "clamp": lambda m, a, b, i, k: m.clamp(a, 0.8, 1.2), "clip": lambda m, a, b, i, k: m.clip(a, max=1.0),
    "lerp": lambda m, a, b, i, k: m.lerp(a, b, 0.3), "addcmul": lambda m, a, b, i, k: m.addcmul(a, a, b, value=0.5),
    "addcdiv": lambda m, a, b, i, k: m.addcdiv(a, a, b, value=2),
    **_calls("fmax fmin xlogy logaddexp logaddexp2 float_power", lambda a, b, i, k: (a, b)),
    **_calls("sinc lgamma", lambda a, b, i, k: (a - 1,)),
    **_calls("gcd lcm", lambda a, b, i, k: (i - 1, i.flip(1) * 2)),
    "heaviside": lambda m, a, b, i, k: (m.heaviside(a - 1, b), m.heaviside(i - 1, i.flip(1))),
    "ldexp": lambda m, a, b, i, k: (m.ldexp(a, i - 2), m.ldexp(i, a)),
    "view_as_real": lambda m, a, b, i, k: m.view_as_real(m.complex(a, b)),
    "view_as_complex": lambda m, a, b, i, k: m.view_as_complex(m.stack([a, b], -1)),
    "softmax": lambda m, a, b, i, k: m.softmax(a, 1), "log_softmax": lambda m, a, b, i, k: m.log_softmax(a, 0),
    # reductions
    **_calls((
        "sum mean prod amax amin max min argmax argmin std var logsumexp cumsum cumprod cummax cummin "
        "nansum nanmean count_nonzero sort argsort"
    ), lambda a, b, i, k: (a, 1)),
    "all": lambda m, a, b, i, k: m.all(k, 1), "any": lambda m, a, b, i, k: m.any(k),
    "norm": lambda m, a, b, i, k: m.norm(a), "diff": lambda m, a, b, i, k: m.diff(a, dim=1),
    "msort": lambda m, a, b, i, k: m.msort(a), "topk": lambda m, a, b, i, k: m.topk(a, 2),
    "unique": lambda m, a, b, i, k: m.unique(i, return_counts=True),
    "unique_consecutive": lambda m, a, b, i, k: m.unique_consecutive(m.tensor([1, 1, 2, 2, 1])),
    "searchsorted": lambda m, a, b, i, k: m.searchsorted(m.tensor([0.6, 0.9, 1.2]), a),
    "logcumsumexp": lambda m, a, b, i, k: (m.logcumsumexp(a, 1), a.logcumsumexp(0)),
    "cov": lambda m, a, b, i, k: (m.cov(a), m.cov(a, correction=0, fweights=i[0], aweights=b[0]), m.cov(a[0])),
    "trapezoid": lambda m, a, b, i, k: (m.trapezoid(a), m.trapezoid(a, b[0], dim=1), m.trapezoid(i, dx=0.5, dim=0)),
    "trapz": lambda m, a, b, i, k: m.trapz(a, dim=0),
    "cumulative_trapezoid": lambda m, a, b, i, k: (m.cumulative_trapezoid(a), m.cumulative_trapezoid(a, b[1])),
    "bucketize": lambda m, a, b, i, k: m.bucketize(a, m.tensor([0.6, 0.9, 1.2])),
    # linear algebra
    "matmul": lambda m, a, b, i, k: m.matmul(a, b.t()), "mm": lambda m, a, b, i, k: m.mm(a.t(), b),
    "bmm": lambda m, a, b, i, k: m.bmm(a[None], b.t()[None]), "dot": lambda m, a, b, i, k: m.dot(a[0], b[1]),
    "mv": lambda m, a, b, i, k: (m.mv(a, b[0]), a.t().mv(b[1, :2])),
    "vdot": lambda m, a, b, i, k: (m.vdot(a[0], b[1]), m.vdot(m.complex(a[0], b[0]), m.complex(b[1], a[1]))),
    "inner": lambda m, a, b, i, k: (m.inner(a, b), m.inner(a[0], b[1]), m.inner(m.tensor(2), a), m.inner(a[None], b)),
    "outer": lambda m, a, b, i, k: m.outer(a[0], b[1]), "einsum": lambda m, a, b, i, k: m.einsum("ij,kj->ik", a, b),
    "cdist": lambda m, a, b, i, k: m.cdist(a, b), "trace": lambda m, a, b, i, k: m.trace(a),
    "kron": lambda m, a, b, i, k: (m.kron(b, b[:1]), m.kron(i, b[0]), b[:, ::2].kron(b[None]), m.kron(a[0], b)),
    "addmm": lambda m, a, b, i, k: (m.addmm(b[0, :2], a, b.t(), beta=0.5, alpha=2), m.ones(3, 3).addmm(a.t(), a, beta=0)),
    "addmv": lambda m, a, b, i, k: (m.addmv(b[0, :2], a, b[1]), m.addmv(b[0, :2], a, b[1], alpha=-1)),
    "addr": lambda m, a, b, i, k: (m.addr(a, b[0, :2], a[0]), m.addr(i[:, :2], i[0, :2], i[1, :2], beta=2)),
    "baddbmm": lambda m, a, b, i, k: m.baddbmm(b[:, :2], a[None], b.t()[None], alpha=0.5),
    "addbmm": lambda m, a, b, i, k: m.addbmm(b[:, :2], m.stack([a, a]), m.stack([b.t(), b.t()]), beta=0.5),
    "dist": lambda m, a, b, i, k: (m.dist(a, b), m.dist(a, b[0], 1), a.dist(b, float("inf"))),
    "vander": lambda m, a, b, i, k: (m.vander(a[0]), m.vander(i[0], 2, increasing=True)),
    # queries
    "numel": lambda m, a, b, i, k: m.numel(a), "is_tensor": lambda m, a, b, i, k: (m.is_tensor(a), m.is_tensor([1])),
    "is_floating_point": lambda m, a, b, i, k: (m.is_floating_point(a), m.is_floating_point(i)),
    "is_complex": lambda m, a, b, i, k: m.is_complex(a),
    "is_nonzero": lambda m, a, b, i, k: (m.is_nonzero(a[:1, 0]), m.is_nonzero(i[1, :1])),
    "result_type": lambda m, a, b, i, k: str(m.result_type(i, 2.5)).split(".")[-1],
    "promote_types": lambda m, a, b, i, k: str(m.promote_types(m.int32, m.float16)).split(".")[-1],
    # settings
    "set_default_dtype": lambda m, a, b, i, k: _with_default(m, lambda: (m.tensor([1.5]), m.tensor([1, 2]) * 2.5)),
    "get_default_dtype": lambda m, a, b, i, k: str(m.get_default_dtype()).split(".")[-1],
    "set_printoptions": lambda m, a, b, i, k: _printed(m, lambda: repr(a * 1000), precision=2, sci_mode=False),
    "no_grad": lambda m, a, b, i, k: _grad_of(m, a, m.no_grad),
    "enable_grad": lambda m, a, b, i, k: _grad_of(m, a, m.enable_grad),
    "set_grad_enabled": lambda m, a, b, i, k: _grad_of(m, a, lambda: m.set_grad_enabled(False)),
    "is_grad_enabled": lambda m, a, b, i, k: m.is_grad_enabled(),
    "device": lambda m, a, b, i, k: str(m.device("cpu")),
    "Generator": lambda m, a, b, i, k: _seeded(m, lambda: m.rand(3, generator=m.Generator().manual_seed(4))),
    "Tensor": lambda m, a, b, i, k: isinstance(a, m.Tensor),
    "inference_mode": lambda m, a, b, i, k: _inference(m, a),
    "is_inference_mode_enabled": lambda m, a, b, i, k: _inference(m, a)[-1],
    "get_rng_state": lambda m, a, b, i, k: _rng_state(m),
    "set_rng_state": lambda m, a, b, i, k: _rng_state(m),
    "Size": lambda m, a, b, i, k: (repr(m.Size([2, 3])).replace("torch.", "strided."), m.Size([2, 3]).numel(),
                                   m.Size((4,))[:0].numel(), m.zeros(m.Size([2, 1])).shape == (2, 1)),
}
for _name in torch_names.COMMON["dtypes"]:
    if _name not in ("finfo", "iinfo"):
        SAMPLES[_name] = (lambda n: lambda m, a, b, i, k: str(getattr(m, n)).split(".")[-1])(_name)
SAMPLES["finfo"] = lambda m, a, b, i, k: [repr(m.finfo(d)) for d in (m.float16, m.float32, m.float64, m.complex64, m.bfloat16)]
SAMPLES["iinfo"] = lambda m, a, b, i, k: [repr(m.iinfo(d)) for d in (m.uint8, m.int8, m.int16, m.int32, m.int64)]


def _with_default(m, f):
    m.set_default_dtype(m.float64)
    try:
        return f()
    finally:
        m.set_default_dtype(m.float32)


def _printed(m, f, **options):
    m.set_printoptions(**options)
    try:
        return f().replace("torch.", "strided.")
    finally:
        m.set_printoptions(profile="default")


def _inference(m, a):
    """What a tensor made inside ``inference_mode`` is, and that the mode is on only inside it."""
    with m.inference_mode():
        y = a * 2
        inside = m.is_inference_mode_enabled()
    return y.is_inference(), y.requires_grad, a.is_inference(), m.is_grad_enabled(), inside, \
        m.is_inference_mode_enabled()


def _rng_state(m):
    """The default generator's state: a uint8 tensor whose restore repeats the draws after it
    (strided's state is its own 45 bytes, PyTorch's 5056: the sizes are not compared)."""
    state = m.get_rng_state()
    first = m.rand(4)
    m.set_rng_state(state)
    return str(state.dtype).split(".")[-1], state.ndim, bool((m.rand(4) == first).all())


def _grad_of(m, a, mode):
    x = a.clone().requires_grad_()
    with mode():
        y = x * 2
    return y.requires_grad


def _same(ours, theirs, where="result"):
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, strided.Tensor), where
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], where
        assert tuple(ours.shape) == tuple(theirs.shape), where
        assert ours.stride() == theirs.stride(), where
        got, want = ours.detach().numpy(), theirs.detach().numpy()
        if want.dtype.kind in "fc":
            np.testing.assert_allclose(got, want, rtol=1.3e-6, atol=1e-6, err_msg=where)
        else:
            np.testing.assert_array_equal(got, want, err_msg=where)
    elif isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs), where
        for j, (o, t) in enumerate(zip(ours, theirs)):
            _same(o, t, f"{where}[{j}]")
    elif isinstance(theirs, float) and math.isnan(theirs):
        assert math.isnan(ours), where
    else:
        assert ours == theirs, where


def test_the_list_is_closed_and_torchs():
    names = torch_names.common_names()
    assert len(names) == len(set(names)) >= 130
    assert [n for n in names if not hasattr(torch, n)] == []
    assert torch_names.lacking(strided, names) == []
    assert sorted(SAMPLES) == sorted(names), "every name on the list has a sample call below"
    # the other lists name what is still missing: a name that arrives moves to COMMON (and a sample)
    assert set(torch_names.ELSEWHERE).isdisjoint(names) and set(torch_names.NOT_YET).isdisjoint(names)


@pytest.mark.parametrize("name", torch_names.common_names())
def test_each_name_behaves_as_torchs(name):
    theirs = SAMPLES[name](torch, *_inputs(torch))
    ours = SAMPLES[name](strided, *_inputs(strided))
    _same(ours, theirs, name)
