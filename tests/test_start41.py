"""The binary ops' forwards made in one scope per op (issue 23, session 41).

:func:`strided.ops.elementwise.binary._fast_binary` makes an op's function, its guard-entry twin
(comparisons, bitwise and integer-only ops) and its forward dunder by one ``variant()`` each,
inside one scope: the per-op constants their fast paths read are cells that the two or three
forwards share, not ~20 cells per forward (tracked objects the collector walks at every full
collection and at the interpreter's exit). Checked here: the sharing itself (each forward owns
only the cells that differ between them), the names, reprs and attributes the entries had, and
the values, dtypes, shapes and strides of the function, the method, the dunder and the reflected
dunder against PyTorch on hard layouts (the general path and every fast path behind each)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as S
from layout_strategies import specs
from strided.ops.elementwise import binary as B

torch = pytest.importorskip("torch")

from layouts import build_valued, valued_storage  # noqa: E402  (imports torch)

# (op, dunder, reflected dunder, operator symbol, dtypes) of the ops made by _make_binary
_OPS = [
    ("add", "__add__", "__radd__", "float32 float64 int64 int32 uint8"),
    ("sub", "__sub__", "__rsub__", "float32 float64 int64 int16"),
    ("mul", "__mul__", "__rmul__", "float32 float64 int64 int8"),
    ("div", "__truediv__", "__rtruediv__", "float32 float64"),
    ("remainder", "__mod__", "__rmod__", "float32 float64"),
    ("pow", "__pow__", "__rpow__", "float32 float64"),
    ("bitwise_and", "__and__", "__rand__", "int64 int32 uint8 bool"),
    ("bitwise_xor", "__xor__", "__rxor__", "int64 bool"),
    ("eq", "__eq__", None, "float32 float64 int64 bool"),
    ("lt", "__lt__", None, "float32 int64"),
    ("ge", "__ge__", None, "float64 int32"),
    ("maximum", None, None, "float32 float64 int64"),
]
_GUARDED = ("eq", "ne", "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor")


def _forward(entry):
    """The Python forward behind a compiled front (the entry itself where it has none)."""
    return getattr(entry, "__front_fallback__", entry)


def _cells(fn) -> dict[str, object]:
    return dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "floor_divide", "pow", "eq", "lt", "bitwise_and", "bitwise_or"])
def test_function_and_dunder_share_the_ops_cells(name: str) -> None:
    fn = _forward(getattr(B, name))
    dunder = _forward(getattr(B, f"_{name}_d"))
    a, b = _cells(fn), _cells(dunder)
    assert set(a) == set(b)
    own = {k for k in a if a[k] is not b[k]}
    # what differs between the forwards: their general path, guard, self and broadcast tuple
    assert own <= {"slow", "guarded", "fn", "broadcast"}, own
    assert {"ufunc", "fast", "native", "op", "name"} <= set(a) - own
    assert a["slow"].cell_contents is not b["slow"].cell_contents
    assert "rule" not in a  # (recorded under ``name``: one cell for both)


@pytest.mark.parametrize("name", _GUARDED)
def test_guard_entry_twin_shares_the_cells_too(name: str) -> None:
    fn = _forward(getattr(B, name))
    assert fn.__self_guards__ == name
    guarded = _cells(fn)["guarded"].cell_contents
    assert guarded is not None
    dunder = _cells(_forward(getattr(B, f"_{name}_d")))
    assert _cells(fn)["ufunc"] is dunder["ufunc"] and _cells(fn)["op"] is dunder["op"]
    assert dunder["guarded"].cell_contents is None  # (the dunder guards nothing: as before)


def test_fewer_cells_per_op() -> None:
    # ~16 shared cells per op plus 4 per forward, ~12 a forward (was ~20 per forward): a revert
    # to one scope per forward fails this. (A fresh interpreter: every forward the import made.)
    code = """
import gc, types, strided
forwards = [f for f in gc.get_objects() if isinstance(f, types.FunctionType)
            and f.__code__.co_qualname == "_fast_binary.<locals>.variant.<locals>.fn"]
print(len(forwards), len({id(c) for f in forwards for c in f.__closure__}))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    forwards, cells = map(int, done.stdout.split())
    assert forwards >= 70
    assert cells <= 13 * forwards, (cells, forwards)


@pytest.mark.parametrize("name, dunder, reflected, dtypes", _OPS)
def test_names_and_reprs_as_before(name: str, dunder: str | None, reflected: str | None, dtypes: str) -> None:
    fn = getattr(S, name)
    assert fn.__name__ == fn.__qualname__ == name
    assert getattr(S.Tensor, name) is fn or getattr(S.Tensor, name).__name__ == name
    assert "variant" not in repr(fn)
    if dunder is not None:
        d = getattr(S.Tensor, dunder)
        assert "variant" not in repr(d)
        assert _forward(d).__qualname__ in ("_fast_binary.<locals>.fn", dunder)


_FLOATS = {"float32", "float64"}


def _values(dtype: str, spec, seed: int):
    data = valued_storage(spec, dtype, seed)
    if dtype in _FLOATS:
        data = np.round(data, 2).astype(dtype)  # (pow, remainder: modest values)
    return build_valued(spec, data)


def _same(got, want) -> None:
    assert tuple(got.shape) == tuple(want.shape)
    assert got.stride() == want.stride()
    g, w = got.numpy(), want.numpy()
    assert g.dtype == w.dtype
    np.testing.assert_array_equal(g.view(np.uint8) if g.dtype == np.bool_ else g, w.view(np.uint8) if w.dtype == np.bool_ else w)


@settings(max_examples=60, deadline=None)
@given(op=hs.sampled_from(_OPS), spec=specs(max_dims=3), twin=hs.booleans(), seed=hs.integers(0, 2**16),
       scalar=hs.sampled_from([None, 2, -3, 0.5, 2.0, True]), data=hs.data())
def test_function_method_dunders_match_torch(op, spec, twin, seed, scalar, data) -> None:
    name, dunder, reflected, dtypes = op
    dtype = data.draw(hs.sampled_from(dtypes.split()))
    ta, _, sa = _values(dtype, spec, seed)
    if twin:  # (the same layout: the fast paths' twin form)
        tb, _, sb = _values(dtype, spec, seed + 1)
    else:  # a broadcasting partner: a trailing slice of the shape, row-major
        other = data.draw(specs(shape=spec.shape[data.draw(hs.integers(0, len(spec.shape))):], expand=False))
        tb, _, sb = _values(dtype, other, seed + 1)
    if scalar is not None and data.draw(hs.booleans()):
        tb = sb = scalar
    pairs = [(getattr(torch, name), getattr(S, name), False), (getattr(torch.Tensor, name), getattr(S.Tensor, name), False)]
    if dunder is not None:
        pairs.append((getattr(torch.Tensor, dunder), getattr(S.Tensor, dunder), False))
    if reflected is not None and not isinstance(sb, S.Tensor):
        pairs.append((getattr(torch.Tensor, reflected), getattr(S.Tensor, reflected), True))
    for t_op, s_op, _ in pairs:
        try:
            want = t_op(ta, tb)
        except Exception as e:  # (PyTorch's refusal: strided's too)
            with pytest.raises(Exception) as info:
                s_op(sa, sb)
            assert type(e).__name__ in (type(info.value).__name__, *(c.__name__ for c in type(info.value).__mro__))
            continue
        if want is NotImplemented:
            assert s_op(sa, sb) is NotImplemented
            continue
        got = s_op(sa, sb)
        if dtype in _FLOATS and name in ("pow", "remainder", "div"):
            assert got.stride() == want.stride() and tuple(got.shape) == tuple(want.shape)
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=0, equal_nan=True)
        else:
            _same(got, want)


def test_guarded_forms_match_torch() -> None:
    # the guard-entry twin's hand-offs: out= and a tensor in autograd
    a = S.tensor([[1.0, 2.0], [3.0, 4.0]]).t()
    b = S.tensor([[1.0, 5.0], [3.0, 0.0]]).t()
    ta, tb = torch.tensor([[1.0, 2.0], [3.0, 4.0]]).t(), torch.tensor([[1.0, 5.0], [3.0, 0.0]]).t()
    out = S.empty(2, 2, dtype=S.bool_)
    assert S.eq(a, b, out=out) is out
    assert out.tolist() == torch.eq(ta, tb).tolist()
    g = a.clone().requires_grad_()
    r = S.lt(g, b)
    assert r.tolist() == torch.lt(ta, tb).tolist() and r.stride() == torch.lt(ta, tb).stride()
    assert not r.requires_grad
    s = S.add(g, b)
    s.sum().backward()
    assert g.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    x = S.tensor([6, 3], dtype=S.int64)
    assert (x & 5).tolist() == S.bitwise_and(x, 5).tolist() == (torch.tensor([6, 3]) & 5).tolist()
    assert (5 & x).tolist() == (5 & torch.tensor([6, 3])).tolist()
