"""``out=`` for ``empty``, ``rand``, ``randn``, ``randint`` and ``randint(requires_grad=)``,
differential against PyTorch: the returned tensor (``out`` itself), its shape, strides, dtype,
``requires_grad`` and ``is_leaf``, and the error class and first line where PyTorch raises.

Values: strided draws from its own stream (PyCG64, not PyTorch's numbers), so the out= form is
checked against strided's own non-out form under the same seed; the stream's position after a
refusal is checked too (a refused out moves it only where PyTorch's does: after the draw)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided

DTYPES = ["float32", "float64", "float16", "bfloat16", "complex64", "int64", "int32", "uint8", "bool"]
LAYOUTS = ["row", "transposed", "sliced", "wrong_numel", "zero_d", "empty", "expanded", "bigger"]
SHAPES = [(2, 3), (3,), (), (0,), (2, 0, 3)]


def _lib(mod):
    return {"empty": mod.empty, "rand": mod.rand, "randn": mod.randn,
            "randint": lambda s, **k: mod.randint(0, 2, s, **k)}


def _make_out(mod, layout: str, dtype: str, shape: tuple):
    """An ``out`` of the given layout kind (whose shape may differ from ``shape``)."""
    dt = getattr(mod, dtype)
    return {
        "row": lambda: mod.zeros(shape, dtype=dt),
        "transposed": lambda: mod.zeros(tuple(reversed(shape)), dtype=dt).permute(tuple(reversed(range(len(shape))))),
        "sliced": lambda: mod.zeros(tuple(2 * s for s in shape), dtype=dt)[tuple(slice(None, None, 2) for _ in shape)],
        "wrong_numel": lambda: mod.zeros(4, dtype=dt),
        "zero_d": lambda: mod.zeros((), dtype=dt),
        "empty": lambda: mod.zeros(0, dtype=dt),
        "expanded": lambda: mod.zeros((1,) * len(shape), dtype=dt).expand(shape),
        "bigger": lambda: mod.zeros(50, dtype=dt),
    }[layout]()


def _outcome(fn, *args, **kwargs):
    """(kind, facts) of ``fn(*args, **kwargs)``: the result's observable facts, or the error's
    class family and first line."""
    try:
        r = fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the class is the thing compared
        kind = "TypeError" if isinstance(e, TypeError) else "NotImplementedError" if isinstance(
            e, NotImplementedError) else "RuntimeError" if isinstance(e, RuntimeError) else type(e).__name__
        return kind, str(e).splitlines()[0]
    return "ok", (tuple(r.shape), tuple(r.stride()), str(r.dtype).split(".")[-1], r.requires_grad, r.is_leaf)


def _both(name, layout, dtype, shape, grad, requires_grad=False, no_grad=False):
    outs = []
    for mod in (torch, strided):
        o = _make_out(mod, layout, dtype, shape)
        if grad == "leaf":
            if not (o.dtype.is_floating_point or o.dtype.is_complex):
                pytest.skip("an integer out cannot require grad")
            o = o.detach().requires_grad_()
        elif grad == "nonleaf":
            if not (o.dtype.is_floating_point or o.dtype.is_complex):
                pytest.skip("an integer out cannot require grad")
            o = o.detach().requires_grad_().clone()
        kw = {"out": o}
        if requires_grad:
            kw["requires_grad"] = True
        fn = _lib(mod)[name]
        if no_grad:
            with mod.no_grad():
                got = _outcome(fn, shape, **kw)
        else:
            got = _outcome(fn, shape, **kw)
        if got[0] == "ok":
            got = (got[0], got[1], o.requires_grad, o.is_leaf)
        outs.append(got)
    return outs


@pytest.mark.parametrize("name", ["empty", "rand", "randn", "randint"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_out_matches_torch(name, layout, dtype, shape):
    t, s = _both(name, layout, dtype, shape, None)
    if t[0] in ("RuntimeError", "NotImplementedError") and s[0] == t[0]:
        return  # (texts compared in the targeted tests below; the class is what matters here)
    assert s == t


@pytest.mark.parametrize("name", ["empty", "rand", "randn", "randint"])
@pytest.mark.parametrize("grad", ["leaf", "nonleaf"])
@pytest.mark.parametrize("no_grad", [False, True])
@pytest.mark.parametrize("layout", ["row", "wrong_numel"])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_out_that_requires_grad(name, grad, no_grad, layout, requires_grad):
    t, s = _both(name, layout, "float32", (2, 3), grad, requires_grad, no_grad)
    assert s == t


@pytest.mark.parametrize("name", ["empty", "rand", "randn", "randint"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_requires_grad_true_with_out(name, dtype):
    t, s = _both(name, "row", dtype, (2, 3), None, requires_grad=True)
    assert s == t


FILLS = {
    "zeros": lambda mod, **k: mod.zeros(2, 3, **k),
    "ones": lambda mod, **k: mod.ones(2, 3, **k),
    "full": lambda mod, **k: mod.full((2, 3), 1.5, **k),
    "eye": lambda mod, **k: mod.eye(2, 3, **k),
    "linspace": lambda mod, **k: mod.linspace(0, 1, 6, **k),
    "logspace": lambda mod, **k: mod.logspace(0, 1, 6, **k),
}


@pytest.mark.parametrize("name", sorted(FILLS))
@pytest.mark.parametrize("grad", ["leaf", "nonleaf"])
@pytest.mark.parametrize("no_grad", [False, True])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_fill_factories_out_grad_rules(name, grad, no_grad, requires_grad):
    """zeros/ones/full/eye/linspace/logspace with out=: PyTorch refuses only a leaf out under grad
    mode, writes a non-leaf one, and sets the flag on a leaf after the write (False clears it)."""
    outs = []
    for mod in (torch, strided):
        o = mod.zeros(2, 3).requires_grad_()
        if grad == "nonleaf":
            o = o.clone()
        ctx = mod.no_grad() if no_grad else mod.enable_grad()
        with ctx:
            got = _outcome(FILLS[name], mod, out=o, requires_grad=requires_grad)
        outs.append((got, o.requires_grad, o.is_leaf))
    assert outs[1] == outs[0]


def test_error_texts():
    o = strided.zeros(2, 3, dtype=strided.float64)
    with pytest.raises(RuntimeError, match=r"dtype Float does not match dtype of out parameter \(Double\)"):
        strided.rand(2, 3, out=o, dtype=strided.float32)
    with pytest.raises(RuntimeError, match="'memory_format' argument is incompatible with 'out' tensor argument"):
        strided.empty(2, 3, out=o, memory_format=strided.contiguous_format)
    with pytest.raises(RuntimeError, match="^cannot resize variables that require grad"):
        strided.randn(2, 3, out=strided.zeros(2, 3, requires_grad=True))
    with pytest.raises(RuntimeError, match="^cannot resize variables that require grad"):
        strided.empty(2, 3, out=strided.zeros(2, 3, requires_grad=True))
    with pytest.raises(RuntimeError, match=r"^aten::rand\(\): functions with out=\.\.\. arguments"):
        strided.rand(2, 3, out=strided.zeros(2, 3, requires_grad=True))
    with pytest.raises(RuntimeError, match=r"^aten::randint\(\): functions with out=\.\.\. arguments"):
        strided.randint(3, (2, 3), out=strided.zeros(2, 3, requires_grad=True))
    with pytest.raises(NotImplementedError, match="\"check_uniform_bounds\" not implemented for 'Long'"):
        strided.rand(2, 3, out=strided.zeros(2, 3, dtype=strided.int64))
    with pytest.raises(NotImplementedError, match="\"normal_kernel_cpu\" not implemented for 'Bool'"):
        strided.randn(2, 3, out=strided.zeros(2, 3, dtype=strided.bool_))
    with pytest.raises(RuntimeError, match="unsupported operation: more than one element"):
        strided.randint(3, (2, 3), out=strided.zeros(1, dtype=strided.int64).expand(2, 3))
    with pytest.raises(RuntimeError, match="to - 1 is out of bounds for bool"):
        strided.randint(10, (2, 3), out=strided.zeros(2, 3, dtype=strided.bool_))
    with pytest.raises(TypeError, match=r"argument 'out' must be Tensor, not int"):
        strided.rand(2, 3, out=5)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "int8", "bool", None])
@pytest.mark.parametrize("shape", [(2, 3), (), (0,)])
def test_randint_requires_grad(dtype, shape):
    """randint(requires_grad=True): PyTorch's RuntimeError for an integer dtype (after the draw:
    the stream moves), a leaf that requires grad for a floating one."""
    got = []
    for mod in (torch, strided):
        kw = {} if dtype is None else {"dtype": getattr(mod, dtype if dtype != "bool" else "bool")}
        got.append(_outcome(mod.randint, 0, 2, shape, requires_grad=True, **kw))
    assert got[1] == got[0]
    assert got[1][0] == "RuntimeError" and got[1][1] == "Only Tensors of floating point and complex dtype can require gradients"
    strided.manual_seed(3)
    with pytest.raises(RuntimeError):
        strided.randint(0, 1000, (5,), requires_grad=True)
    after = strided.rand(4)
    strided.manual_seed(3)
    strided.randint(0, 1000, (5,))
    assert strided.equal(after, strided.rand(4))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_randint_requires_grad_float(dtype):
    for mod in (torch, strided):
        r = mod.randint(0, 5, (2, 3), dtype=getattr(mod, dtype), requires_grad=True)
        assert r.requires_grad and r.is_leaf and r.dtype == getattr(mod, dtype)
    with pytest.raises(RuntimeError, match="check_random_bounds handles only integral"):
        strided.randint(0, 5, (2,), dtype=strided.complex64)
    with pytest.raises(RuntimeError, match="check_random_bounds handles only integral"):
        torch.randint(0, 5, (2,), dtype=torch.complex64)


# (the dtypes each factory draws: randint refuses complex, rand/randn integers, tested above)
_DRAWN = [(name, dtype) for name in ("rand", "randn", "randint")
          for dtype in ("float32", "float64", "float16", "bfloat16", "complex64", "complex128", "int64", "int16")
          if not (name == "randint" and dtype.startswith("complex")) and not (name != "randint" and dtype.startswith("int"))]


@pytest.mark.parametrize("name, dtype", _DRAWN)
@pytest.mark.parametrize("layout", ["row", "transposed", "sliced", "wrong_numel", "empty"])
@pytest.mark.parametrize("shape", [(2, 3), (5,), (), (0,), (3, 1, 4)])
def test_out_values_are_the_non_out_draw(name, dtype, layout, shape):
    """Under the same seed, the out= form holds the non-out form's numbers (in ``out``'s dtype),
    and leaves the stream where the non-out form leaves it."""
    dt = getattr(strided, dtype)
    fn = _lib(strided)[name] if name != "randint" else (lambda s, **k: strided.randint(-7, 90, s, **k))
    strided.manual_seed(11)
    want = fn(shape, dtype=dt)
    next_want = strided.rand(3)
    o = _make_out(strided, layout, dtype, shape)
    strided.manual_seed(11)
    assert fn(shape, out=o) is o
    assert o.dtype is dt and tuple(o.shape) == shape
    np.testing.assert_array_equal(np.asarray(o.to(strided.float64) if dtype == "bfloat16" else o),
                                  np.asarray(want.to(strided.float64) if dtype == "bfloat16" else want))
    assert strided.equal(strided.rand(3), next_want)


def test_refused_out_does_not_move_the_stream():
    strided.manual_seed(5)
    with pytest.raises(RuntimeError):
        strided.rand(2, 3, out=strided.zeros(1).expand(2, 3))
    a = strided.rand(3)
    strided.manual_seed(5)
    assert strided.equal(a, strided.rand(3))


def test_generator_and_size_keywords():
    g = strided.Generator().manual_seed(4)
    want = strided.randn(size=(2, 2), generator=g)
    g.manual_seed(4)
    o = strided.empty(0)
    strided.randn(size=(2, 2), generator=g, out=o)
    assert strided.equal(o, want)
    e = strided.zeros(3, 2).t()
    assert strided.empty(2, 3, out=e) is e and e.stride() == (1, 2)
    assert e.tolist() == [[0.0] * 3] * 2  # (empty's out= writes nothing)


@pytest.mark.parametrize("name", ["linspace", "logspace"])
@pytest.mark.parametrize("out_shape", [(2, 3), (3, 2), (6,), (4,), (6, 1), (0,), ()])
@pytest.mark.parametrize("transposed", [False, True])
def test_space_out_keeps_a_shape_of_the_same_count(name, out_shape, transposed):
    """PyTorch's linspace/logspace out=: resized only when its element count is not ``steps``;
    else the values fill its own shape and strides in row-major order."""
    got = []
    for mod in (torch, strided):
        o = mod.zeros(tuple(reversed(out_shape)))
        o = o.permute(tuple(reversed(range(len(out_shape))))) if transposed else o.reshape(out_shape)
        r = getattr(mod, name)(0, 2, 6, out=o)
        got.append((tuple(r.shape), r.stride(), np.asarray(r.tolist()).tolist()))
    assert got[1] == got[0]
