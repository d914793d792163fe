"""addcmul and addcdiv (an Adam step's ops), each one declaration in ops/elementwise/binary_more.py, against torch:
values with broadcasting and value=, the in-place forms, out=, the errors, and the gradients."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided
from strided.opdef import OPDEFS, Kind

SHAPES = [((2, 3), (2, 3), (2, 3)), ((2, 3), (3,), (2, 1)), ((1, 3), (2, 3), (3,)), ((), (4,), (4,))]


def _three(shapes, dtype, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(0.5, 2.0, s).astype(dtype) for s in shapes]
    return [strided.from_numpy(a.copy()) for a in arrays], [torch.from_numpy(a.copy()) for a in arrays]


@settings(max_examples=40, deadline=None)
@given(hs.sampled_from(SHAPES), hs.sampled_from(["float32", "float64"]), hs.sampled_from(["addcmul", "addcdiv"]),
       hs.sampled_from([1, 0.5, -2, 3.25]), hs.integers(0, 2**16))
def test_values_match_torch(shapes, dtype, name, value, seed):
    (a, b, c), (ta, tb, tc) = _three(shapes, dtype, seed)
    got = getattr(strided, name)(a, b, c, value=value)
    want = getattr(torch, name)(ta, tb, tc, value=value)
    assert got.shape == tuple(want.shape) and got.dtype.name == str(want.dtype).removeprefix("torch.")
    tol = 1e-6 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol)
    method = getattr(a, name)(b, c, value=value)
    np.testing.assert_array_equal(method.numpy(), got.numpy())


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_in_place_and_out_match_torch(name):
    (a, b, c), (ta, tb, tc) = _three(((2, 3), (3,), (2, 1)), "float64", 1)
    col = a[:, 1]  # an in-place write through a view
    assert getattr(col, name + "_")(b[1], c[:, 0], value=0.5) is col
    getattr(ta[:, 1], name + "_")(tb[1], tc[:, 0], value=0.5)
    np.testing.assert_allclose(a.numpy(), ta.numpy(), rtol=1e-14)
    o, to = strided.empty(2, 3, dtype=strided.float64), torch.empty(2, 3, dtype=torch.float64)
    assert getattr(strided, name)(a, b, c, out=o) is o
    getattr(torch, name)(ta, tb, tc, out=to)
    np.testing.assert_allclose(o.numpy(), to.numpy(), rtol=1e-14)


def _first(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001
        return type(e), str(e).splitlines()[0]
    return None, None


@pytest.mark.parametrize("call", [
    lambda lib, i: lib.addcdiv(lib.ones(2, dtype=i), lib.ones(2, dtype=i), lib.ones(2, dtype=i)),
    lambda lib, i: lib.addcmul(1.0, lib.ones(2), lib.ones(2)),
    lambda lib, i: lib.addcmul(lib.ones(2), 2.0, lib.ones(2)),
    lambda lib, i: lib.ones(2).addcmul_(lib.ones(3), lib.ones(3)),
    lambda lib, i: lib.ones(2, dtype=i).addcmul_(lib.ones(2), lib.ones(2)),
    lambda lib, i: lib.ones(2, 3).addcdiv_(lib.ones(3), lib.ones(2, 1)).shape,
])
def test_errors_match_torch(call):
    (cs, ls), (ct, lt) = (_first(lambda lib=lib, i=i: call(lib, i))
                          for lib, i in ((strided, strided.int64), (torch, torch.int64)))
    assert (cs is None) == (ct is None)
    if ct is not None:
        assert issubclass(cs, ct) and ls == lt


def test_integer_inputs_take_an_integer_value_as_torch():
    for value in (1, 2, 1.5):
        got = strided.addcmul(strided.ones(2, dtype=strided.int64), strided.ones(2, dtype=strided.int64),
                              strided.ones(2, dtype=strided.int64), value=value)
        want = torch.addcmul(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64),
                             torch.ones(2, dtype=torch.int64), value=value)
        assert got.dtype is strided.int64 and got.tolist() == want.tolist()


@pytest.mark.parametrize("name, node", [("addcmul", "AddcmulBackward0"), ("addcdiv", "AddcdivBackward0")])
@pytest.mark.parametrize("spelling", ["function", "method", "early", "in-place"])
def test_gradients_match_torch_through_every_spelling(name, node, spelling):
    rng = np.random.default_rng(5)
    arrays = [rng.uniform(0.5, 2.0, s) for s in ((2, 3), (3,), (2, 1))]
    grads = []
    for lib in (strided, torch):
        leaves = [lib.tensor(x.tolist(), dtype=lib.float64, requires_grad=True) for x in arrays]
        a, b, c = leaves
        if spelling == "function":
            y = getattr(lib, name)(a, b, c, value=0.5)
        elif spelling == "method":
            y = getattr(a, name)(b, c, value=0.5)
        elif spelling == "early":
            y = (EARLY[name] if lib is strided else getattr(torch, name))(a, b, c, value=0.5)
        else:
            y = a * 1
            getattr(y, name + "_")(b, c, value=0.5)
        assert y.grad_fn.name() == node
        (y * y).sum().backward()
        grads.append([t.grad.numpy() for t in leaves])
    for gs, gt in zip(*grads):
        np.testing.assert_allclose(gs, gt, rtol=1e-12)


EARLY = {"addcmul": strided.addcmul, "addcdiv": strided.addcdiv}


def test_one_declaration_makes_every_spelling():
    """The @op declaration gave the op its registry entry, rule, method, in-place form and entry."""
    for name in ("addcmul", "addcdiv"):
        op = OPDEFS[name]
        assert op.kind is Kind.COMPUTE and op.backward is not None and op.module == "strided.ops.elementwise.binary_more"
        assert getattr(strided, name) is getattr(strided.Tensor, name)
        assert getattr(getattr(strided, name), "__wrapped_maker__", None) is op.backward
        assert callable(getattr(strided.Tensor, name + "_")) and name in strided.__all__


def _complex_values(shape: tuple, dtype: str, rng: np.random.Generator) -> np.ndarray:
    """Complex values over six orders of magnitude (products and quotients round differently
    by their form there)."""
    a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) * rng.choice([1e-3, 1.0, 1e3], size=shape)
    return np.asarray(a).astype(dtype)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("shapes", [((5,), (5,), (5,)), ((), (5,), (5,)), ((5,), (), (5,)), ((5,), (5,), ()), ((), (), ()),
                                    ((3, 1), (), (1, 4)), ((), (3, 4), ()), ((), (40,), ()), ((40,), (), ())], ids=str)
@pytest.mark.parametrize("value", [1, 3, 0.37, 0.37 - 1.3j])
def test_complex_with_0d_operands_has_torchs_bits(dtype: str, name: str, shapes: tuple, value: object) -> None:
    """Complex addcmul/addcdiv, 0-d operands among them, bit for bit as PyTorch's kernel: with two
    stride-0 inputs its loop is basic_loop (fused products) throughout, not the vector blocks; the
    value * t1 product is made per element in the loop's form (rounded in the vector blocks,
    fused elsewhere), not once rounded."""
    rng = np.random.default_rng(sum(map(len, shapes)) + len(name))
    for _ in range(8):
        a, b, c = (_complex_values(s, dtype, rng) for s in shapes)
        want = getattr(torch, name)(*(torch.from_numpy(v.copy()) for v in (a, b, c)), value=value).numpy()
        got = getattr(strided, name)(*(strided.from_numpy(v.copy()) for v in (a, b, c)), value=value).numpy()
        assert got.shape == want.shape and got.dtype == want.dtype
        if name == "addcdiv" and dtype == "complex64" and value == 0.37 - 1.3j and 40 not in np.broadcast_shapes(*shapes):
            # Note: complex64 addcdiv with a complex value in a scalar tail: PyTorch's compiler
            # contracts value * t1 in another form than strided's fused one for ~1 in 10 elements
            np.testing.assert_allclose(got, want, rtol=1e-6)
            continue
        np.testing.assert_array_equal(got.reshape(-1).view(f"u{got.itemsize // 2}"), want.reshape(-1).view(f"u{want.itemsize // 2}"))


@pytest.mark.parametrize("inplace", [False, True])
def test_complex64_addcmul_beside_one_element_tensor_is_torchs_bits(inplace):
    """complex64 addcmul with one one-element tensor operand (0-d or (1,): stride 0 along the
    row, vectorized_loop's scalar input; or a column broadcast along short rows) over a row
    shorter than its tail: PyTorch's compiled tail
    fuses (value * t1) * t2 in runs of 4, then a pair (an odd last element rounded), and in place
    rounds throughout; strided took the contiguous row's runs of 4 only (and fused runs of 4 in
    place): ~35% of such (3,) calls differed in the last bit (red28)."""
    import torch

    rng = np.random.default_rng(28)
    for n in (2, 3, 6, 7, 10, 14, 15, 19):
        for shapes in (((n,), (), (n,)), ((n,), (n,), (1,)), ((2, n), (), (2, n)), ((n, 4), (n, 4), (n, 1)),
                       ((n, 3), (n, 1), (1, 3))):
            for value in (3, 0.37 - 1.3j):
                vals = [np.asarray(rng.standard_normal(s) + 1j * rng.standard_normal(s), np.complex64)
                        * np.float32(np.exp(rng.uniform(-7, 7))) for s in shapes]
                got = []
                for L in (torch, strided):
                    a, b, c = (L.from_numpy(np.array(v)) for v in vals)
                    r = a.addcmul_(b, c, value=value) if inplace else L.addcmul(a, b, c, value=value)
                    got.append(np.asarray(r.tolist(), np.complex64))
                assert got[0].tobytes() == got[1].tobytes(), (n, shapes, value)
