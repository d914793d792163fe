"""Red-team review of the session's in-place scalar paths, against PyTorch bit for bit.

* ``x.add_/sub_/mul_/div_(v)`` of a float32/float64 tensor by a Python float (the compiled
  ``scalar_inplace`` loop, commit 6fd179a1): signed zeros, infinities, subnormals, numbers float32
  cannot hold, ints and bools as the number, offsets, transposes, 0-d and empty tensors, an odd
  address; a leaf that requires grad refuses, a non-leaf records.
* ``add``/``sub`` (and ``add_``/``sub_``, ``out=``) with ``alpha=`` and a scalar ``other`` (a
  number, a 0-d tensor, a one-element tensor) in float32/float64: PyTorch's vector loop rounds
  once (``fmadd``), but its scalar tail rounds ``self + alpha * other`` twice at some places
  (binary._unfused_places); strided rounded once everywhere (1930 of 4704 cases differed).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels.torch_loops import torch_vector_bytes

_OPS = ("add_", "sub_", "mul_", "div_")
_NUMBERS = (0.9, -0.999, 1e-8, 3.0, -0.0, 0.0, 1e-45, 1e-46, 7e-46, 1e-310, 3e38, 3.4e38, 3.4028234e38, 3.5e38,
            1e39, -1e300, float("inf"), float("-inf"), 2.0**-149, 2.0**-150, 1.5 * 2.0**-149, 2.0**-1074,
            0.1 + 2**-30, 1, 0, -1, 2**53 - 1, 2**60, True, False)


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.itemsize == 4 else np.uint64)


def _operands(dtype: type) -> np.ndarray:
    """Random bit patterns (NaN payloads, subnormals, infinities), edge values, plain values."""
    rng = np.random.default_rng(27)
    width = np.uint32 if dtype == np.float32 else np.uint64
    pats = rng.integers(0, np.iinfo(width).max, 200, dtype=np.uint64).astype(width).view(dtype)
    edges = np.array([0.0, -0.0, 1.0, -2.0, 1e-45, 1e-39, 3e38, np.inf, -np.inf, np.nan, -np.nan], dtype)
    return np.concatenate([pats, edges, rng.uniform(-2, 2, 200).astype(dtype)])


def _layout(lib, arr: np.ndarray, form: str):
    t = lib.from_numpy(arr.copy())
    return {"c": t, "off": t[1:], "T": t[: len(arr) // 7 * 7].reshape(7, -1).T, "0d": t[0], "empty": t[:0]}[form]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", _OPS)
@pytest.mark.parametrize("form", ["c", "off", "T", "0d", "empty"])
def test_inplace_by_a_number_is_pytorchs_bits(dtype: type, op: str, form: str) -> None:
    x = _operands(dtype)
    for v in _NUMBERS:
        s, t = _layout(strided, x, form), _layout(torch, x, form)
        if op == "sub_" and type(v) is bool:  # (both refuse: PyTorch's message)
            with pytest.raises(RuntimeError) as theirs:
                t.sub_(v)
            with pytest.raises(RuntimeError, match=str(theirs.value).splitlines()[0].replace("`", ".")[:40]):
                s.sub_(v)
            continue
        assert getattr(s, op)(v) is s
        getattr(t, op)(v)
        assert s.dtype.name == str(t.dtype).split(".")[-1] and s.stride() == t.stride()
        np.testing.assert_array_equal(_bits(s.numpy()), _bits(t.numpy()), err_msg=f"{op}({v!r})")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", _OPS)
def test_inplace_by_a_number_at_an_odd_address(dtype: type, op: str) -> None:
    raw = np.zeros(8 * 9 + 1, np.uint8)
    arr = raw[1:].view(dtype)  # (an address no float is aligned to: NumPy's call takes it)
    arr[:] = np.linspace(-3, 3, len(arr))
    ref = torch.from_numpy(arr.copy())
    getattr(strided.from_numpy(arr), op)(0.3)
    getattr(ref, op)(0.3)
    np.testing.assert_array_equal(_bits(arr), _bits(ref.numpy()))


@pytest.mark.parametrize("op", _OPS)
def test_inplace_by_a_number_refuses_a_leaf_and_records_a_non_leaf(op: str) -> None:
    for lib, err in ((strided, RuntimeError), (torch, RuntimeError)):
        with pytest.raises(err, match="a leaf Variable that requires grad"):
            getattr(lib.ones(3, requires_grad=True), op)(0.5)
    grads = []
    for lib in (strided, torch):
        a = lib.tensor([1.5, -2.0, 3.0, 0.25], requires_grad=True)
        b = a * 2.0
        r = getattr(b, op)(0.7)
        assert r is b and r.grad_fn is not None
        (r * lib.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        grads.append((r.detach().numpy().copy(), a.grad.numpy().copy()))
    for s, t in zip(*grads):
        np.testing.assert_array_equal(_bits(s), _bits(t))


_AVX512 = pytest.mark.skipif(torch_vector_bytes() != 64 or torch.backends.cpu.get_cpu_capability() != "AVX512",
                             reason="PyTorch's scalar-tail roundings are known for its AVX512 kernels only")


def _alpha_case(lib, x: np.ndarray, form: str, layout: str, v: float, alpha: float):
    t = lib.from_numpy(x.copy())
    n = len(x)
    t = {"c": t, "off": t[3:], "2d": t[: n // 7 * 7].reshape(7, -1), "T": t[: n // 7 * 7].reshape(7, -1).T,
         "rows": t[: n // 8 * 8].reshape(-1, 8)[:, :7], "step": t[::2]}[layout]
    other = {"num": v, "int": 3, "0d": lib.tensor(v, dtype=lib.float64), "0d32": lib.tensor(v, dtype=lib.float32),
             "one": lib.tensor([v], dtype=t.dtype)}[form[1]]
    name = form[0]
    if name == "out":
        out = lib.empty(tuple(t.shape), dtype=t.dtype)
        lib.add(t, other, alpha=alpha, out=out)
        return out
    r = getattr(t, name)(other, alpha=alpha)
    if name.endswith("_"):
        assert r is t
    return r


_FORMS = [(name, other) for name in ("add", "sub", "add_", "sub_") for other in ("num", "0d", "one")] + [
    ("add", "int"), ("sub", "0d32"), ("out", "num")]


@_AVX512
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["c", "off", "2d", "T", "rows", "step"])
def test_alpha_with_a_scalar_other_rounds_as_pytorchs_tail(dtype: type, layout: str) -> None:
    rng = np.random.default_rng(11)
    for n in list(range(1, 41)) + [71, 100, 1001]:
        for form in _FORMS:
            x = rng.standard_normal(n + 8).astype(dtype)
            v, alpha = float(rng.standard_normal()), float(rng.standard_normal())
            s, t = _alpha_case(strided, x, form, layout, v, alpha), _alpha_case(torch, x, form, layout, v, alpha)
            assert s.stride() == t.stride()
            np.testing.assert_array_equal(_bits(s.contiguous().numpy()), _bits(t.contiguous().numpy()),
                                          err_msg=f"n={n} {form} {layout}")


@_AVX512
@pytest.mark.parametrize("n", [32767, 40000, 70001])
def test_alpha_with_a_scalar_other_past_the_grain(n: int, torch_threads_as_assumed: None) -> None:
    rng = np.random.default_rng(n)
    for dtype in (np.float32, np.float64):
        for form in (("add_", "num"), ("sub", "num"), ("add", "0d")):
            x = rng.standard_normal(n + 8).astype(dtype)
            s, t = _alpha_case(strided, x, form, "c", 0.3, 0.7), _alpha_case(torch, x, form, "c", 0.3, 0.7)
            np.testing.assert_array_equal(_bits(s.numpy()), _bits(t.numpy()), err_msg=f"{form}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("loss", ["cross_entropy", "nll_log_softmax", "cross_entropy_sum"])
def test_log_softmax_backward_of_a_classification_loss_is_pytorchs_bits(dtype: str, loss: str) -> None:
    """log_softmax's backward along a row-major last dim: SLEEF's exp at every element and one fused
    multiply-add (``x - y.exp() * sum``), as PyTorch's vector kernel; cross_entropy's gradient (one
    value per row, so the row sum is exact) was an ulp off in ~9% of elements before."""
    rng = np.random.default_rng(3)
    for n, c in [(1, 1), (7, 3), (7, 10), (128, 10), (200, 17), (33, 40), (5, 1000)]:
        x = (rng.standard_normal((n, c)) * 3).astype(dtype)
        target = rng.integers(0, c, n)
        grads = []
        for lib in (strided, torch):
            xi = lib.tensor(x, requires_grad=True)
            F = lib.nn.functional
            t = lib.tensor(target)
            if loss == "nll_log_softmax":
                F.nll_loss(F.log_softmax(xi, 1), t).backward()
            else:
                F.cross_entropy(xi, t, reduction="sum" if loss.endswith("sum") else "mean").backward()
            assert xi.grad.stride() == (c, 1)
            grads.append(xi.grad.numpy().copy())
        np.testing.assert_array_equal(_bits(grads[0]), _bits(grads[1]), err_msg=f"{(n, c)}")


def test_log_softmax_double_backward_still_records() -> None:
    grads = []
    for lib in (strided, torch):
        x = lib.tensor([[0.5, -1.0, 2.0], [0.0, 0.25, -3.0]], dtype=lib.float64, requires_grad=True)
        y = lib.nn.functional.log_softmax(x, 1)
        (g,) = lib.autograd.grad((y * lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=lib.float64)).sum(), x,
                                 create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        grads.append((g.detach().numpy().copy(), gg.numpy().copy()))
    for s, t in zip(*grads):
        np.testing.assert_allclose(s, t, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_softmax_backward_along_the_last_dim_sums_as_pytorch(dtype: str) -> None:
    """Any gradient: the row sum in vec::reduce_all's order (whole vectors lane-wise, the tail into
    the first lanes, then the lanes: float32 by halvings, float64 left to right)."""
    rng = np.random.default_rng(4)
    for shape in [(4, 1), (4, 3), (7, 10), (3, 16), (3, 17), (2, 3, 33), (5, 100), (2, 1000), (0, 4)]:
        x = (rng.standard_normal(shape) * 2).astype(dtype)
        g = rng.standard_normal(shape).astype(dtype)
        grads = []
        for lib in (strided, torch):
            xi = lib.tensor(x, requires_grad=True)
            lib.nn.functional.log_softmax(xi, -1).backward(lib.tensor(g))
            grads.append(xi.grad.numpy().copy())
        np.testing.assert_array_equal(_bits(grads[0]), _bits(grads[1]), err_msg=f"{shape}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_softmax_backward_nans_are_pytorchs(dtype: str) -> None:
    """A NaN gradient: PyTorch's NaN, sign included (the fused form would negate the row sum's).
    (A NaN logit's row is not checked: its NaN payloads differ before this backward.)"""
    x = np.random.default_rng(5).standard_normal((4, 3)).astype(dtype)
    for logits, scale in ((x, float("nan")), (x, float("inf")), (x, -0.0)):
        grads = []
        for lib in (strided, torch):
            xi = lib.tensor(logits, requires_grad=True)
            lib.nn.functional.cross_entropy(xi, lib.tensor([0, 1, 2, 0])).backward(lib.tensor(scale, dtype=xi.dtype))
            grads.append(xi.grad.numpy().copy())
        np.testing.assert_array_equal(_bits(grads[0]), _bits(grads[1]), err_msg=f"{scale}")


@_AVX512
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_alpha_with_a_scalar_other_nans_and_infinities(dtype: type) -> None:
    """The twice-rounded tail places give the product's NaN where both are NaN, as PyTorch's
    ``self + alpha * other`` compiled (and the fused places the fused kernel's)."""
    for n in (5, 13, 21, 100):
        x = np.linspace(-2, 2, n).astype(dtype)
        x[1::3], x[2::5], x[3::7], x[4::9] = np.nan, -np.nan, np.inf, -0.0
        for v in (float("nan"), -float("nan"), float("inf"), 1e38, 0.5, -0.0):
            for alpha in (0.3, float("nan"), float("inf"), -0.0, 1e30):
                for name in ("add", "sub_"):
                    s = getattr(strided.from_numpy(x.copy()), name)(v, alpha=alpha)
                    t = getattr(torch.from_numpy(x.copy()), name)(v, alpha=alpha)
                    np.testing.assert_array_equal(_bits(s.numpy()), _bits(t.numpy()), err_msg=f"{n} {v} {alpha} {name}")


def _broadcast_alpha_case(lib, x: np.ndarray, y: np.ndarray, how: str, transposed: bool):
    """``x (op) y`` with alpha=, ``y`` broadcast along the loop's rows (stride 0 there)."""
    t, other = lib.from_numpy(x.copy()), lib.from_numpy(y.copy())
    if transposed:  # (rows along dim 0: x and the result column-major, y a row)
        t = lib.from_numpy(np.ascontiguousarray(x.T).copy()).T
    shape = tuple(np.broadcast_shapes(x.shape, y.shape))
    if how == "out":
        out = lib.empty(shape[::-1], dtype=t.dtype).T if transposed else lib.empty(shape, dtype=t.dtype)
        lib.add(t, other, alpha=-0.1, out=out)
        return out
    return getattr(t, how)(other, alpha=0.3 if how.startswith("sub") else -0.1)


@_AVX512
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("how", ["add", "sub", "add_", "sub_", "out"])
@pytest.mark.parametrize("rows, n", [(64, 44), (64, 5), (3, 23), (7, 16), (2, 33), (300, 13), (4, 9000)])
def test_alpha_with_an_other_broadcast_along_the_rows_rounds_as_pytorchs_tail(dtype, how, rows, n,
                                                                              torch_threads_as_assumed) -> None:
    """``x.add(y, alpha=)`` with ``y`` of shape (R, 1) (or a row under a column-major ``x``):
    PyTorch's vector loop takes ``y`` as its stride-0 scalar, and its tail rounds twice at the
    places a number ``other`` does (81a0f8e4's note); strided fused there (1 ulp, in ~1 of 4
    such calls), and a (1, 1) ``other`` beside a (3, 100) ``x`` raised a TypeError."""
    rng = np.random.default_rng(rows * n)
    x = rng.standard_normal((rows, n)).astype(dtype)
    for y, transposed in ((rng.standard_normal((rows, 1)).astype(dtype), False),
                          (rng.standard_normal((n,)).astype(dtype), True),
                          (rng.standard_normal((1, 1)).astype(dtype), False)):
        if how.endswith("_") and transposed:
            continue
        s, t = (_broadcast_alpha_case(lib, x, y, how, transposed) for lib in (strided, torch))
        np.testing.assert_array_equal(_bits(s.contiguous().numpy()), _bits(t.contiguous().numpy()),
                                      err_msg=f"{y.shape} {transposed}")


@_AVX512
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_alpha_with_a_broadcast_self_or_dense_operands_is_fused(dtype) -> None:
    """A stride-0 ``self`` (x (R, 1) + y (R, n)) or two dense operands: one rounding everywhere."""
    rng = np.random.default_rng(5)
    for n in (5, 23, 44):
        for xs, ys in (((64, 1), (64, n)), ((64, n), (64, n))):
            x, y = rng.standard_normal(xs).astype(dtype), rng.standard_normal(ys).astype(dtype)
            s = strided.from_numpy(x).add(strided.from_numpy(y), alpha=-0.1)
            t = torch.from_numpy(x).add(torch.from_numpy(y), alpha=-0.1)
            np.testing.assert_array_equal(_bits(s.numpy()), _bits(t.numpy()))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "complex64", "int32"])
@pytest.mark.parametrize("alpha", [0, -0.0, 0.0])
def test_sub_by_an_integral_zero_alpha_adds_positive_zero(dtype, alpha) -> None:
    """PyTorch negates ``alpha`` as its c10::Scalar before converting it: ``sub(alpha=0)`` adds
    ``+0.0 * other`` (int 0 negates to 0), so -0.0 - 0 * y is +0.0; ``alpha=0.0`` negates to -0.0
    and keeps -0.0. strided negated the converted float (-0.0 either way) on every path."""
    if dtype == "int32" and isinstance(alpha, float):
        pytest.skip("an int tensor takes an int alpha")
    def run(lib):
        d = getattr(lib, dtype)
        x, y = lib.tensor([-0.0, 1.0, -0.0]).to(d), lib.tensor([1.0, 2.0, -3.0]).to(d)
        got = [x.sub(y, alpha=alpha), x.sub(1.0 if dtype != "int32" else 1, alpha=alpha), x.sub(y[:1], alpha=alpha),
               x.clone().sub_(y, alpha=alpha), x.clone().sub_(2, alpha=alpha), lib.sub(x, y, alpha=alpha, out=lib.empty(3, dtype=d)),
               x.reshape(3, 1).sub(y.reshape(1, 3), alpha=alpha)]
        return [np.signbit(np.array(g.float().tolist() if dtype == "bfloat16" else g.tolist()).real).tolist() for g in got]
    assert run(strided) == run(torch)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("op", ["add", "sub"])
@pytest.mark.parametrize("alpha", [None, 1, 2, 0.5, 0, -0.0, 1 + 2j, 0.3j, float("nan")])
def test_alpha_gradients_are_pytorchs_bits(dtype, op, alpha) -> None:
    """``other``'s gradient is derivatives.yaml's ``maybe_multiply(grad, alpha.conj())`` (sub:
    ``-grad`` scaled): in PyTorch's convention for complex gradients (strided's conjugated-around
    rule gave 2-0j where PyTorch gives 2+0j) and negated before it is scaled (-(g * alpha)
    differs in signed zeros and NaN signs)."""
    if isinstance(alpha, complex) and not dtype.startswith("complex"):
        pytest.skip("a complex alpha needs complex tensors")
    if alpha != alpha and dtype.startswith("complex"):
        pytest.skip("a complex product with NaN: its NaNs' signs are complex mul's own matter")
    rng = np.random.default_rng(3)
    xv, yv = rng.standard_normal(7), rng.standard_normal(7)
    gv = np.array([1.0, -1.0, -0.0, 0.0, 2.5, -3.0, 1e-3])
    kw = {} if alpha is None else {"alpha": alpha}

    def run(lib):
        d = getattr(lib, dtype)
        x, y = lib.tensor(xv).to(d).requires_grad_(), lib.tensor(yv).to(d).requires_grad_()
        r = getattr(x, op)(y, **kw)
        r.backward(lib.tensor(gv).to(d))
        return [np.ascontiguousarray(t.detach().numpy()).tobytes() for t in (r, x.grad, y.grad)]
    assert run(strided) == run(torch)


@_AVX512
@pytest.mark.parametrize("src, other", [("float16", "one32"), ("uint8", "full32"), ("int64", "full32"),
                                        ("float16", "full32"), ("bfloat16", "full16"), ("uint8", "fullbf16")])
def test_alpha_with_a_strided_self_of_another_dtype_walks_its_converted_copy(src, other) -> None:
    """TensorIterator converts an input of another dtype into a copy first (row-major where the
    input is not dense: ``x[::2]``), so PyTorch's loop takes its rows as vectors and their
    tails (twice-rounded places, float16/bfloat16 scalar loops); strided read the strided
    layout (every element fused): 11 of 366 such cases differed (x.half()[::2] + y32[:1] with
    alpha= at 5 lengths below 32), uint8 + bfloat16 by up to 3 ulps."""
    rng = np.random.default_rng(4)
    for n in [*range(1, 40), 100, 1000]:
        xv = rng.integers(0, 200, 2 * n).astype(np.float64) if src in ("uint8", "int64") else rng.standard_normal(2 * n)
        yv = rng.standard_normal(n)

        def run(lib, xv=xv, yv=yv):
            x = lib.tensor(xv).to(getattr(lib, src))[::2]
            y = lib.tensor(yv[:1] if other == "one32" else yv).to(
                {"one32": lib.float32, "full32": lib.float32, "full16": lib.float16, "fullbf16": lib.bfloat16}[other])
            return np.array(x.add(y, alpha=-0.1).float().tolist(), np.float32)
        np.testing.assert_array_equal(_bits(run(strided)), _bits(run(torch)), err_msg=f"n={n}")
