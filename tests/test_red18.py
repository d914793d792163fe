"""Red-team regressions of session 18's merge (atan2 through float32, sampler fast paths)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native
from strided.kernels.torch_loops import torch_threads

_SLEEF = native.sleef()
_AVX512 = _SLEEF is not None and _SLEEF.capability() == 16


@pytest.fixture(autouse=True)
def _threads_as_assumed():
    old = torch.get_num_threads()
    torch.set_num_threads(torch_threads())
    yield
    torch.set_num_threads(old)


@pytest.mark.skipif(not _AVX512, reason="PyTorch's bits are pinned for the AVX-512 kernels")
@pytest.mark.parametrize("n", [33, 40, 64, 100])
@pytest.mark.parametrize("case", ["both", "one", "one_float", "column"])
def test_atan2_expanded_integer_operands_bits(n: int, case: str) -> None:
    """An integer operand that is itself an expand (0 strides): PyTorch casts it to float32 with
    ``.to()``, whose copy is laid out dense (empty_like's strides: row-major here, not NumPy's
    astype order, which puts the 0-stride dim innermost), and its loop's SLEEF/scalar split
    follows that layout. (Was off in some elements of each case.)"""
    g = torch.Generator().manual_seed(n)
    a = torch.randint(-100, 100, (n,), generator=g, dtype=torch.int32)
    b = torch.randint(-100, 100, (2, n), generator=g, dtype=torch.int32)
    c = torch.randint(-100, 100, (2,), generator=g, dtype=torch.int32)

    def operands(m, a, b, c):  # (the same views in either library)
        return {"both": (a.expand(2, n), a.flip(0).expand(2, n)), "one": (a.expand(2, n), b),
                "one_float": (a.expand(2, n), b.float()), "column": (c[:, None].expand(2, n), b)}[case]

    y, x = operands(torch, a, b, c)
    sy, sx = operands(strided, *(strided.from_numpy(v.numpy().copy()) for v in (a, b, c)))
    assert sy.stride() == y.stride() and sx.stride() == x.stride()
    r, s = torch.atan2(y, x), strided.atan2(sy, sx)
    assert np.asarray(s.numpy()).tobytes() == r.numpy().tobytes()


@pytest.mark.parametrize("op", ["all", "any"])
@pytest.mark.parametrize("out_dtype", ["bool", "uint8", "int64", "int32", "float32"])
@pytest.mark.parametrize("dim", [None, 0])
@pytest.mark.parametrize("grad", [False, True])
def test_all_any_out_dtype_and_grad(op: str, out_dtype: str, dim: int | None, grad: bool) -> None:
    """PyTorch's all/any write only a bool or uint8 out= ("all only supports bool tensor for
    result, got: Long"; strided wrote any dtype), and, their result having no gradient, write it
    whatever requires grad (strided refused an input that requires grad). (Whole numbers: PyTorch
    casts a float input to a uint8 out= first, so its all(0.5) is 0 there, a quirk not followed.)"""
    a = torch.tensor([[3.0, 0.0], [1.0, 2.0]], requires_grad=grad)
    s = strided.tensor([[3.0, 0.0], [1.0, 2.0]], requires_grad=grad)
    args = () if dim is None else (dim,)
    o = torch.zeros((), dtype=getattr(torch, out_dtype)) if dim is None else torch.zeros(2, dtype=getattr(torch, out_dtype))
    so = strided.zeros(tuple(o.shape), dtype=getattr(strided, "bool_" if out_dtype == "bool" else out_dtype))
    try:
        getattr(torch, op)(a, *args, out=o)
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as got:
            getattr(strided, op)(s, *args, out=so)
        assert str(e).splitlines()[0] == str(got.value).splitlines()[0]
        assert not so.numpy().any()
        return
    getattr(strided, op)(s, *args, out=so)
    assert so.numpy().tolist() == o.numpy().tolist()


# ---- session 18's remembered-plan fast paths: the cached call is the general path's call

_FACTORIES = [("rand", lambda **k: strided.rand(2, 3, **k)), ("randn", lambda **k: strided.randn((4,), **k)),
              ("rand_like", lambda **k: strided.rand_like(strided.zeros(3, 2, dtype=k.pop("dt")), **k)),
              ("randn_like", lambda **k: strided.randn_like(strided.zeros(5, dtype=k.pop("dt")), **k))]


@pytest.mark.parametrize("name,make", _FACTORIES, ids=[f[0] for f in _FACTORIES])
@pytest.mark.parametrize("default", ["float32", "float64"])
def test_factory_fast_path_draws_the_general_paths_stream(name: str, make, default: str) -> None:
    """rand/randn/rand_like/randn_like's first call (the general path, which remembers the plan)
    and later calls (the fast path) draw what the same calls with an equally seeded generator=
    (always the general path) draw: the same numbers, dtype, layout and stream."""
    old = strided.get_default_dtype()
    strided.set_default_dtype(getattr(strided, default))
    try:
        kw = {"dt": getattr(strided, default)} if name.endswith("_like") else {}
        strided.manual_seed(5)
        fast = [make(**dict(kw)) for _ in range(3)]
        g = strided.Generator().manual_seed(5)
        slow = [make(generator=g, **dict(kw)) for _ in range(3)]
        for a, b in zip(fast, slow):
            assert (a.dtype, a.shape, a.stride(), a.requires_grad) == (b.dtype, b.shape, b.stride(), False)
            assert a.numpy().tobytes() == b.numpy().tobytes()
    finally:
        strided.set_default_dtype(old)


_SAMPLERS = [("random_", ()), ("bernoulli_", (0.25,)), ("geometric_", (0.3,)), ("log_normal_", (0.5, 1.5)),
             ("cauchy_", (-1.0, 2.0)), ("cauchy_", (0.0, 1.0))]


@pytest.mark.parametrize("op,args", _SAMPLERS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("view", ["plain", "row"])
def test_in_place_sampler_fast_path_draws_the_general_paths_stream(op: str, args: tuple, dtype: str, view: str) -> None:
    """The in-place samplers' fast path (default generator, plain row-major float tensor, number
    arguments that pass) writes what the general path (generator=) writes, bumps the version
    once, and leaves the stream where it does."""
    def target():
        t = strided.zeros(3, 4, dtype=getattr(strided, dtype))
        return t if view == "plain" else t[1]

    strided.manual_seed(9)
    a = target()
    assert a._version == 0  # (a read switches version counting on: strided defers it until then)
    getattr(a, op)(*args)
    after_fast = strided.rand(3).numpy().tobytes()
    g = strided.Generator().manual_seed(9)
    b = target()
    getattr(b, op)(*args, generator=g)
    assert a._version == b._version == 1
    assert a.numpy().tobytes() == b.numpy().tobytes()
    assert after_fast == strided.rand(3, generator=g).numpy().tobytes()


def test_remembered_layouts_match_torch_on_every_call() -> None:
    """splits, flip with a list of dims, broadcast_tensors, empty_strided, t[i] and t[a:b] give
    PyTorch's shapes, strides and offsets on the first call and on the remembered later ones."""
    def layouts(m):
        x = m.arange(60.0).reshape(3, 4, 5)[1:].transpose(0, 2)  # (5, 4, 2), offset 20
        outs = [*m.tensor_split(x, 3, dim=1), *m.tensor_split(x, [1, 3], dim=-1), *m.hsplit(x, 2),
                *m.vsplit(x, [2]), *m.dsplit(x, 2), *m.broadcast_tensors(x, x[0, :, :1]),
                x[1], x[-1], x[1:3], x[:-1], m.flip(x, [0, -1]), m.flip(x, (1,)),
                m.empty_strided((2, 3), (1, 2)), m.empty_strided((2, 3), (0, 1))]
        # (values too, but an empty_strided's memory is uninitialized)
        return [(tuple(o.shape), o.stride(), o.storage_offset(), o.flatten().tolist() if k < len(outs) - 2 else None)
                for k, o in enumerate(outs)]

    want = layouts(torch)
    for _ in range(3):
        assert layouts(strided) == want
