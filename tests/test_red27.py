"""Hostile differential review, round 27: first and second derivatives of the registry's ops against
torch.autograd (0-d, zero-size, permuted and expanded leaves, broadcast operands), type promotion,
and view + in-place chains. Each test is one mismatch found, checked against PyTorch itself.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import torch_pow


def _np(t):
    """The values of a strided or torch tensor (None stays None)."""
    if t is None:
        return None
    if isinstance(t, torch.Tensor):
        return t.detach().numpy(force=True)
    return t.detach().numpy()


def _same(a, b) -> None:
    """Same shape, dtype and values (NaN where the other has NaN), or both None."""
    assert (a is None) == (b is None)
    if a is None:
        return
    an, bn = _np(a), _np(b)
    assert an.shape == bn.shape and an.dtype == bn.dtype
    np.testing.assert_allclose(an, bn, rtol=1e-12, atol=0, equal_nan=True)


def _leaf(lib, values, shape, strides, offset=0):
    """A float64 leaf that requires grad, laid out as (shape, strides, offset) over ``values``."""
    base = lib.tensor(np.asarray(values, dtype=np.float64))
    return lib.as_strided(base, shape, strides, offset).detach().requires_grad_()


def _first_and_second(lib, f, leaves, v):
    """f(*leaves), its gradient against ``v`` (create_graph), and the gradient of the gradients'
    weighted sum (each gradient that requires grad), or the error class where one raises."""
    out = f(lib, *leaves)
    grads = lib.autograd.grad(out, leaves, lib.tensor(v), create_graph=True, allow_unused=True)
    live = [g.sum() * (i + 1.5) for i, g in enumerate(grads) if g is not None and g.requires_grad]
    if not live:
        return out, grads, "none requires grad"
    total = live[0]
    for g in live[1:]:
        total = total + g
    return out, grads, lib.autograd.grad(total, leaves, allow_unused=True)


def _check(f, layouts, v) -> None:
    """f's result, first and second derivatives are PyTorch's, on leaves of these layouts."""
    got = []
    for lib in (torch, st):
        leaves = [_leaf(lib, *lay) for lay in layouts]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got.append(_first_and_second(lib, f, leaves, v))
    (to, tg, tgg), (so, sg, sgg) = got
    _same(to, so)
    for a, b in zip(tg, sg):
        _same(a, b)
    assert isinstance(tgg, str) == isinstance(sgg, str), (tgg, sgg)
    if not isinstance(tgg, str):
        for a, b in zip(tgg, sgg):
            _same(a, b)


# ---------------------------------------------------------------- a 0-d input's dim 0 / -1

ZERO_D = [
    lambda L, x: x.mean(-1),
    lambda L, x: x.mean(0, keepdim=True),
    lambda L, x: x.mean((0,)),
    lambda L, x: x.var(0),
    lambda L, x: x.var(-1, correction=0),
    lambda L, x: x.std(-1),
    lambda L, x: x.std(0, keepdim=True, correction=0),
    lambda L, x: x.movedim(-1, 0),
    lambda L, x: x.movedim(0, -1) * x,
    lambda L, x: x.sum(-1) * x,
]


@pytest.mark.parametrize("f", ZERO_D)
def test_a_zero_d_inputs_reductions_and_movedim_over_dim_0_or_minus_1_differentiate(f):
    # the rules read shape[dim] of a 0-d input (IndexError) or wrapped dims modulo 0
    # (ZeroDivisionError); PyTorch reads dim 0 / -1 of a 0-d tensor as its one element
    _check(f, [([0.7], (), ())], 1.25)


# ---------------------------------------------------------------- diff along an empty dim


@pytest.mark.parametrize("shape, dim, n", [((0,), 0, 1), ((0,), 0, 2), ((2, 0, 3), 1, 1), ((0, 3), 0, 1),
                                           ((2, 0, 3), 0, 1), ((0, 3), -1, 1), ((2, 3), 0, 5)])
def test_diff_of_an_empty_dim_gives_its_input_an_empty_gradient(shape, dim, n):
    # PyTorch's result there is its input itself, whose gradient is the (empty) incoming one;
    # strided's rule gave the input no gradient at all (None: "appears to not have been used")
    got = []
    for lib in (torch, st):
        x = lib.ones(shape, dtype=lib.float64, requires_grad=True)
        out = x.diff(n=n, dim=dim)
        got.append(lib.autograd.grad(out, x, lib.ones(out.shape, dtype=lib.float64))[0])
    _same(*got)


def test_diff_with_an_empty_append_gives_it_an_empty_gradient():
    got = []
    for lib in (torch, st):
        x = lib.arange(6.0, dtype=lib.float64).reshape(2, 3).requires_grad_()
        tail = lib.ones((2, 0), dtype=lib.float64, requires_grad=True)
        out = x.diff(dim=1, append=tail)
        got.append(lib.autograd.grad(out, (x, tail), lib.arange(4.0, dtype=lib.float64).reshape(2, 2)))
    for a, b in zip(*got):
        _same(a, b)


# ---------------------------------------------------------------- pow with a 0-d base


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("f", [lambda L, x, y: x ** y, lambda L, x, y: L.pow(x, y),
                               lambda L, x, y: L.float_power(x, y), lambda L, x, y: x.pow(y.t())])
def test_pow_of_a_zero_d_base_and_a_permuted_exponent(f, dtype):
    # the dense kernel run transposed the 0-d base into the exponent's memory order: ValueError
    got = []
    for lib in (torch, st):
        y = lib.as_strided(lib.tensor([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], dtype=getattr(lib, dtype)), (2, 3), (1, 2), 0)
        out = f(lib, lib.tensor(1.5, dtype=getattr(lib, dtype)), y)
        got.append((out.stride(), _np(out)))
    assert got[0][0] == got[1][0]
    np.testing.assert_array_equal(got[0][1], got[1][1])


def test_pow_of_a_zero_d_base_and_a_permuted_exponent_differentiates():
    _check(lambda L, x, y: x ** y, [([1.5], (), ()), ([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], (2, 3), (1, 2))],
           np.arange(6.0).reshape(2, 3))


# ---------------------------------------------------------------- remainder's second derivative


def _contiguous(values, shape):
    """(values, shape, strides) of a row-major leaf holding the first prod(shape) values."""
    strides, acc = [], 1
    for size in reversed(shape):
        strides.insert(0, acc)
        acc *= size
    return (list(values)[:max(acc, 1)], shape, tuple(strides))


@pytest.mark.parametrize("sx, sy", [((3,), (3,)), ((2, 3), (3,)), ((), ()), ((3,), ())])
def test_remainders_divisor_gradient_is_recorded_as_pytorchs(sx, sy):
    # PyTorch's gradient of b, -g * a.div(b, rounding_mode="floor"), records the quotient (a zero
    # derivative): it requires grad, and the second derivative is zeros, not "does not require grad"
    shape = tuple(torch.broadcast_shapes(sx, sy))
    _check(lambda L, x, y: L.remainder(x, y),
           [_contiguous([2.5, -1.25, 7.0, 0.5, -3.0, 9.0], sx), _contiguous([0.7, 0.9, -1.1], sy)],
           np.linspace(-1, 1, int(np.prod(shape))).reshape(shape))


# ---------------------------------------------------------------- ldexp: PyTorch's mul(x, _pow2(x, e))

_LDEXP_DTYPES = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128", "int32", "uint8", "bool"]


def _ldexp_operand(lib, dtype: str, values: np.ndarray, dims: bool):
    v = values if dims else values[:1].reshape(())
    if dtype.startswith("complex"):
        v = v + 0.5j * v[::-1] if dims else v + 0.5j
    return lib.tensor(v).to(getattr(lib, dtype))


def _bits_of(t) -> tuple:
    """(dtype name, shape, the values as float64 / complex128 with every NaN one NaN): exact values."""
    lib = torch if isinstance(t, torch.Tensor) else st
    name = str(t.dtype).split(".")[-1]
    if t.dtype in (lib.float16, lib.bfloat16):
        t = t.to(lib.float32)
    return name, tuple(t.shape), _np(t).astype(np.complex128 if t.is_complex() else np.float64)


# strided's float32/float64 pow is PyTorch's (SLEEF's pow in its vector lanes) under the AVX512 and AVX2
# capabilities, where the compiled kernel runs (strided.kernels.torch_pow); without it, or under ATen's
# default capability, NumPy's pow runs (within an ulp)
_SLEEF_POW_AVX2 = ("PyTorch's float32/float64 pow needs strided.kernels.torch_pow's compiled kernel and ATen's "
                   "AVX512 or AVX2 capability (NumPy's pow otherwise)")


def _ldexp_cases():
    for dx in _LDEXP_DTYPES:
        for dy in _LDEXP_DTYPES:
            for xs, ys in ((True, True), (True, False), (False, True), (False, False)):
                yield dx, dy, xs, ys


@pytest.mark.parametrize("form", ["function", "out", "inplace"])
def test_ldexp_is_pytorchs_multiply_by_its_pow2_in_every_dtype_pair(form):
    if torch_pow._kernel() is None:
        pytest.skip(_SLEEF_POW_AVX2 + ": ldexp's factor 2 ** e is a float32/float64 pow")
    # strided computed 2**e in e's dtype (rounded there) and multiplied in the result dtype: PyTorch
    # takes 2**e in x's dtype promoted with e's (a float64 x, a float16 e: in float64), a complex x's
    # as a complex power, a reduced x's 0-d factor read in float32, and float32's pow with its own
    # bits (NumPy's power differed on ~19% of float32 elements): 180 of 1452 cases differed
    rng = np.random.default_rng(27)
    xv, yv = rng.standard_normal(40) * 3, np.concatenate([rng.standard_normal(36) * 4, [3.0, -2.0, 0.0, 40.0]])
    compared = 0
    for dx, dy, xs, ys in _ldexp_cases():
        got = []
        for lib in (torch, st):
            x, y = _ldexp_operand(lib, dx, xv, xs), _ldexp_operand(lib, dy, yv, ys)
            try:
                if form == "function":
                    r = lib.ldexp(x, y)
                elif form == "out":
                    r = lib.ldexp(x, y, out=lib.empty(0, dtype=lib.complex128))
                else:
                    r = x.clone().ldexp_(y)
                got.append(_bits_of(r))
            except (RuntimeError, TypeError) as e:
                got.append(type(e).__mro__[1 if lib is st else 0].__name__)
        if "float16" in (dx, dy) and (dx.startswith("complex") or dy.startswith("complex")):
            continue  # (PyTorch's complex32, which strided has not: its result, or its refusal)
        if isinstance(got[0], str) or isinstance(got[1], str):
            assert isinstance(got[0], str) and isinstance(got[1], str), (dx, dy, xs, ys, got)
            continue
        assert got[0][:2] == got[1][:2], (dx, dy, xs, ys)
        np.testing.assert_array_equal(got[0][2], got[1][2], err_msg=f"{dx} {dy} {xs} {ys}")
        compared += 1
    assert compared > 100


@pytest.mark.parametrize("n", [7, 1000, 70000])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_ldexp_of_one_float_dtype_is_pytorchs_bits(dtype, n, torch_threads_as_assumed):
    if dtype in ("float32", "float64") and n >= 8 and torch_pow._kernel() is None:  # (n = 7: no vector lane)
        pytest.skip(_SLEEF_POW_AVX2 + ": ldexp's factor 2 ** e is a float32/float64 pow")
    rng = np.random.default_rng(n)
    xv, yv = rng.standard_normal(n), rng.standard_normal(n) * 10
    got = []
    for lib in (torch, st):
        x, y = lib.tensor(xv).to(getattr(lib, dtype)), lib.tensor(yv).to(getattr(lib, dtype))
        got.append([_bits_of(r) for r in (lib.ldexp(x, y), lib.ldexp(x, y[3].clone()), x.clone().ldexp_(y),
                                          lib.ldexp(x[::2], y[::2], out=lib.empty(0, dtype=lib.float64)))])
    for a, b in zip(*got):
        assert a[:2] == b[:2]
        np.testing.assert_array_equal(a[2], b[2])


def test_ldexp_in_place_refusals_name_ldexp():
    with pytest.raises(RuntimeError, match=r"doesn't match the broadcast shape(.|\n)*ldexp_ writes"):
        st.ones(2, 1).ldexp_(st.ones(2, 3))
    with pytest.raises(RuntimeError, match=r"more than one element(.|\n)*ldexp_ would write"):
        st.ones(3).expand(2, 3).ldexp_(st.ones(3))


# ---------------------------------------------------------------- pow with a float16 / bfloat16 operand


@pytest.mark.parametrize("dx, dy", [("float16", "float32"), ("float32", "float16"), ("bfloat16", "float32"),
                                    ("float16", "float64"), ("float64", "bfloat16"), ("int32", "float16"),
                                    ("bfloat16", "float16")])
@pytest.mark.parametrize("form", ["function", "out", "inplace"])
def test_pow_with_a_reduced_float_operand_and_a_float32_or_float64_result_is_pytorchs_bits(dx, dy, form):
    if torch_pow._kernel() is None:
        pytest.skip(_SLEEF_POW_AVX2)
    # a float16/bfloat16 operand sent pow of a float32/float64 result to NumPy's power (not PyTorch's
    # loop): ~10-25% of elements differed in the last bit. NaNs compared as NaNs (their payloads of
    # reduced floats are PyTorch's lane-dependent 0xffff or 0x7fc0)
    rng = np.random.default_rng(5)
    xv, yv = np.abs(rng.standard_normal(200)) * 3, rng.standard_normal(200) * 3
    if dx.startswith("int"):
        xv = np.round(xv)
    for xs, ys in ((True, True), (True, False), (False, True)):
        if form == "inplace" and (not xs or dx.startswith("int")):
            continue  # (a 0-d target cannot take a broadcast result, an int one a float result)
        got = []
        for lib in (torch, st):
            x = lib.tensor(xv if xs else xv[0]).to(getattr(lib, dx))
            y = lib.tensor(yv if ys else yv[0]).to(getattr(lib, dy))
            if form == "function":
                r = x ** y
            elif form == "out":
                r = lib.pow(x, y, out=lib.empty(0, dtype=lib.float64))
            else:
                r = x.clone().pow_(y)
            got.append(_bits_of(r))
        assert got[0][:2] == got[1][:2], (xs, ys)
        np.testing.assert_array_equal(got[0][2], got[1][2], err_msg=f"{xs} {ys}")


# ---------------------------------------------------------------- bfloat16 kernels of NumPy-less ops


@pytest.mark.parametrize("op", ["xlogy", "logaddexp", "logaddexp2", "fmax", "fmin", "ldexp"])
@pytest.mark.parametrize("other", ["float32", "float64", "int64"])
def test_bfloat16_with_a_zero_d_operand_of_another_dtype_computes_in_bfloat16(op, other):
    # TensorIterator converts the 0-d operand to bfloat16 and runs the bfloat16 kernel; strided's
    # kernel wrappers of ops NumPy has no ufunc for ignored the bfloat16 signature and computed in
    # float32 from the unrounded operand (xlogy: every element of a bfloat16 tensor by a 0-d
    # float64 one differed by an ulp)
    rng = np.random.default_rng(7)
    xv, yv = rng.standard_normal(64) * 2, np.abs(rng.standard_normal(64)) * 3 + 0.1
    for y_first in (False, True):
        got = []
        for lib in (torch, st):
            x = lib.tensor(xv).to(lib.bfloat16)
            y = lib.tensor(yv[0] if other != "int64" else 3).to(getattr(lib, other))
            got.append(_bits_of(getattr(lib, op)(y, x) if y_first and op != "ldexp" else getattr(lib, op)(x, y)))
        assert got[0][:2] == got[1][:2]
        np.testing.assert_array_equal(got[0][2], got[1][2])


# ---------------------------------------------------------------- addcmul / addcdiv promotion


_ADDC_DTYPES = ["float16", "bfloat16", "float32", "float64", "int64", "int8", "uint8", "bool"]


def _addc_operand(lib, dtype: str, shape: tuple, rng):
    n = int(np.prod(shape))
    if dtype == "bool":
        v = rng.integers(0, 2, max(n, 1)).astype(bool)
    elif dtype in ("int64", "int8", "uint8"):
        v = rng.integers(1 if dtype == "uint8" else -5, 6, max(n, 1))
    else:
        v = rng.standard_normal(max(n, 1)) * 2
    return lib.tensor(v[:n].reshape(shape) if shape else v[0]).to(getattr(lib, dtype))


@pytest.mark.parametrize("name", ["addcmul", "addcdiv", "addcmul_value", "addcdiv_value", "addcmul_out"])
def test_addcmul_addcdiv_promote_their_three_tensors_at_once_and_convert_to_the_common_dtype(name):
    # strided promoted input with tensor1, then that dtype (as a tensor with dims) with tensor2: a 0-d
    # int64 input of a bool and an int8 tensor gave int64 where PyTorch gives int8, a 0-d float32
    # input of an int64 and a float16 tensor float32 where PyTorch gives float16; and an operand of
    # another dtype than a float16/bfloat16 result was read unrounded in float32, where
    # TensorIterator converts it to the common dtype first (35 of 1,050 random cases differed)
    rng = np.random.default_rng(sum(map(ord, name)))
    shapes = [(), (3,), (2, 3), (1, 3), (2, 1)]
    op = name.split("_")[0]
    for _ in range(150):
        dts = [_ADDC_DTYPES[i] for i in rng.integers(len(_ADDC_DTYPES), size=3)]
        shs = [shapes[i] for i in rng.integers(len(shapes), size=3)]
        value = [2, -1, 0.5, 3, 300][rng.integers(5)] if name.endswith("value") else 1
        seed = int(rng.integers(1 << 30))
        got = []
        for lib in (torch, st):
            r = np.random.default_rng(seed)
            a, b, c = (_addc_operand(lib, d, s, r) for d, s in zip(dts, shs))
            try:
                if name.endswith("out"):
                    res = getattr(lib, op)(a, b, c, out=lib.empty(0, dtype=lib.float64))
                else:
                    res = getattr(lib, op)(a, b, c, value=value)
                got.append(_bits_of(res))
            except RuntimeError as e:  # (the builtin class: strided's subclasses it)
                got.append(next(k.__name__ for k in type(e).__mro__ if k.__module__ == "builtins"))
        if isinstance(got[0], str) or isinstance(got[1], str):
            assert got[0] == got[1], (dts, shs, got)
            continue
        assert got[0][:2] == got[1][:2], (dts, shs, value)
        np.testing.assert_array_equal(got[0][2], got[1][2], err_msg=f"{dts} {shs} {value}")


# ---------------------------------------------------------------- lerp's complex Python weight


@pytest.mark.parametrize("weight", [1 + 2j, 1 + 0j, 0.25 + 0j, -3 + 0j, 1e40 + 0j])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "complex64"])
@pytest.mark.parametrize("form", ["function", "inplace", "out"])
def test_lerp_takes_a_complex_number_weight_as_pytorch(weight, dtype, form):
    # strided refused any Python complex weight with TypeError; PyTorch reads it as its Scalar: a
    # real dtype takes 1+0j as 1.0 and refuses an imaginary part ("value cannot be converted to type
    # float without overflow", RuntimeError), a complex dtype takes it (values compared below only
    # where the weight is real: complex lerp's products differ from PyTorch's in the last bit)
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(40), rng.standard_normal(40)
    got = []
    for lib in (torch, st):
        x, y = lib.tensor(a).to(getattr(lib, dtype)), lib.tensor(b).to(getattr(lib, dtype))
        try:
            if form == "function":
                r = lib.lerp(x, y, weight)
            elif form == "inplace":
                r = x.clone().lerp_(y, weight)
            else:
                r = lib.lerp(x, y, weight, out=lib.empty(0, dtype=getattr(lib, dtype)))
            got.append(_bits_of(r))
        except (RuntimeError, TypeError) as e:
            got.append((next(k.__name__ for k in type(e).__mro__ if k.__module__ == "builtins"), str(e).split("\n")[0]))
    if isinstance(got[0][0], str) and got[0][0].endswith("Error"):
        assert got[0] == got[1]
        return
    assert got[0][:2] == got[1][:2]
    if weight.imag == 0:
        np.testing.assert_array_equal(got[0][2], got[1][2])


# ---------------------------------------------------------------- advanced indexing's result layout


@pytest.mark.parametrize("shape, strides", [((2, 3, 4), (0, 2, 6)), ((2, 4, 3), (3, 6, 1)), ((2, 3, 4), (1, 2, 6)),
                                            ((2, 3, 4), (12, 1, 3)), ((2, 3, 4), (2, 8, 0)), ((3, 4), (1, 3)),
                                            ((2, 2, 3, 2), (1, 4, 8, 2)), ((3, 3, 2, 2), (12, 1, 72, 6))])
def test_advanced_indexing_lays_its_result_out_as_pytorch(shape, strides):
    # strided's t[key] was always row-major; PyTorch's index kernel (TensorIterator over the target
    # restrided and the index tensors) keeps a permuted target's memory order among the kept dims:
    # x[[0, 0]] of a (2, 3, 4) tensor of strides (12, 1, 3) is (12, 1, 3), not (12, 4, 1)
    # (172 of 3,000 random layout/key pairs differed, 13 after: all empty results)
    base = np.arange(200.0)
    keys = [lambda L, x: [0, 0], lambda L, x: (Ellipsis, [0, 1]), lambda L, x: (slice(None), [0, 1]),
            lambda L, x: L.tensor([[0], [1]]), lambda L, x: x > 50, lambda L, x: ([0, 1], slice(None), [1, 0]),
            lambda L, x: (None, [1, 0], slice(None, None, 2))]
    for key in keys:
        got = []
        for lib in (torch, st):
            x = lib.as_strided(lib.tensor(base), shape, strides, 1)
            try:
                r = x[key(lib, x)]
            except IndexError:
                got.append("IndexError")
                continue
            got.append((tuple(r.shape), [s for s, n in zip(r.stride(), r.shape) if n > 1], r.numpy().tolist()))
        assert got[0] == got[1]


# ---------------------------------------------------------------- bfloat16 x ** -0.5


@pytest.mark.parametrize("n", [1, 10, 33, 63, 64, 65, 100, 129, 1000, 40000])
def test_bfloat16_pow_minus_half_is_pytorchs_rsqrt_by_loop_position(n, torch_threads_as_assumed):
    # PyTorch's bfloat16 x ** -0.5 rounds once in its vector loop (1 / sqrt in float32) but its
    # scalar loop divides by c10's BFloat16 sqrt, the root rounded to bfloat16 first: each row's
    # last len % 64 elements (all of a short tensor) differed by an ulp on ~1 in 4
    rng = np.random.default_rng(n)
    v = np.abs(rng.standard_normal(n)) * 100 + 0.01
    got = []
    for lib in (torch, st):
        x = lib.tensor(v).to(lib.bfloat16)
        outs = [x ** -0.5, x.clone().pow_(-0.5), lib.pow(x, -0.5, out=lib.empty(n, dtype=lib.float32))]
        if n >= 6:
            m = x[: n // 2 * 2].reshape(-1, 2)
            outs += [m.t() ** -0.5, m[:, :1] ** -0.5]
        got.append([_bits_of(r) for r in outs])
    for a, b in zip(*got):
        assert a[:2] == b[:2]
        np.testing.assert_array_equal(a[2], b[2])


# ---------------------------------------------------------------- a bool where PyTorch takes a float


@pytest.mark.parametrize("f", [
    lambda L: L.tensor([1.0, float("nan"), float("inf"), -float("inf")]).nan_to_num(nan=True, posinf=False, neginf=True),
    lambda L: L.tensor([1, 0, 3], dtype=L.int32).nan_to_num(nan=True),
    lambda L: L.tensor([True, False]).nan_to_num(posinf=False),
    lambda L: L.tensor([0.2, 0.5]).logit(eps=True),
    lambda L: L.tensor([0.2, 0.5]).logit(eps=False),
    lambda L: L.logspace(0, 1, 3, base=True),
    lambda L: L.logspace(0, 1, 3, base=False),
])
def test_a_bool_is_taken_where_pytorch_takes_a_float(f):
    # PyTorch's parser reads True / False as 1.0 / 0.0 for a float argument; strided refused it
    # (TypeError) for nan_to_num's nan/posinf/neginf, logit's eps and logspace's base
    got = [_bits_of(f(lib)) for lib in (torch, st)]
    assert got[0][:2] == got[1][:2]
    np.testing.assert_array_equal(got[0][2], got[1][2])


# ---------------------------------------------------------------- shifts by a complex or float number


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int64", "bool", "float32"])
@pytest.mark.parametrize("shift", [1.5, 1 + 0j, 2j, True, 3])
@pytest.mark.parametrize("form", ["left", "right", "left_", "irshift", "function", "reflected", "zero_d", "zero_d_"])
def test_shifts_refuse_as_pytorch(dtype, shift, form):
    # a complex number reached NumPy's left_shift (its TypeError, "No loop matching ..."), and an
    # in-place shift by a float or complex number gave the kernel's NotImplementedError where
    # PyTorch's cast check refuses first ("result type Float can't be cast to the desired output
    # type Long")
    got = []
    for lib in (torch, st):
        x = lib.tensor([1, 2, 3, 100]).to(getattr(lib, dtype))
        try:
            if form == "left":
                r = x << shift
            elif form == "right":
                r = x >> shift
            elif form == "left_":
                r = x.clone().bitwise_left_shift_(shift)
            elif form == "irshift":
                r = x.clone()
                r >>= shift
            elif form == "function":
                r = lib.bitwise_left_shift(x, shift)
            elif form == "reflected":
                r = shift << x
            elif form == "zero_d":
                r = x << lib.tensor(shift)
            else:
                r = x.clone().bitwise_right_shift_(lib.tensor(shift))
            got.append(("ok", str(r.dtype).split(".")[-1], r.tolist()))
        except (RuntimeError, TypeError) as e:
            got.append((next(k.__name__ for k in type(e).__mro__ if k.__module__ == "builtins"), str(e).split("\n")[0]))
    assert got[0] == got[1]


# ---------------------------------------------------------------- one bfloat16 element filled past its range


@pytest.mark.parametrize("value", [3.4e38, 1e39, -1e39, 1e300, 3.3961e38, 3.3962e38, 3.4028236e38, float("inf")])
@pytest.mark.parametrize("fill", [
    lambda L, v: L.zeros((), dtype=L.bfloat16).fill_(v),
    lambda L, v: L.zeros(1, dtype=L.bfloat16).fill_(v),
    lambda L, v: L.full((1,), v, dtype=L.bfloat16),
    lambda L, v: (lambda x: (x.__setitem__(1, v), x)[1])(L.zeros(3, dtype=L.bfloat16)),
    lambda L, v: L.where(L.tensor([True, False]), L.zeros(2, dtype=L.bfloat16), v),
])
def test_one_bfloat16_element_filled_beyond_its_range_is_inf_as_pytorch(fill, value):
    # PyTorch checks no bfloat16 (as no float16) value it fills a single element with (a 0-d or
    # one-element fill_, full, t[i] = x, where's scalars): past bfloat16's largest it is +-inf;
    # strided refused it with the overflow RuntimeError (35 of 35 finite calls)
    got = [_bits_of(fill(lib, value)) for lib in (torch, st)]
    assert got[0][:2] == got[1][:2]
    np.testing.assert_array_equal(got[0][2], got[1][2])


def test_many_bfloat16_elements_filled_beyond_its_range_are_refused_as_pytorch():
    for lib in (torch, st):
        with pytest.raises(RuntimeError, match="without overflow"):
            lib.zeros(3, dtype=lib.bfloat16).fill_(1e39)
