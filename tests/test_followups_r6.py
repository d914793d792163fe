"""Round-6 correctness follow-ups, each against torch 2.13 (values, dtypes, strides, error
classes and first lines): NumPy scalar operands, true_divide's keywords, sort/argsort's two
signatures, flip/roll arguments, as_strided's texts, arange (bools, ``out=``, complex),
normal draws of empty integer tensors, polar/complex gradients, fmax/fmin NaN bits, addmm's
alpha == 0, native.disabled() reaching the kernels, and ``_version`` before autograd's first use.
"""

from __future__ import annotations

# ruff: noqa: B023 - each lambda is called at once, inside its own loop iteration
import contextlib
import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import strided
from oracle_helpers import case
from strided.kernels import native


def outcome(f: Callable[[], Any]) -> tuple[Any, BaseException | None]:
    try:
        return f(), None
    except Exception as e:  # noqa: BLE001 - the error is the answer being compared
        return None, e


def same_error(te: BaseException | None, se: BaseException | None) -> None:
    """Both raised, strided's class a subclass of PyTorch's builtin, the same first line."""
    assert te is not None and se is not None, (te, se)
    base = next(c for c in type(te).__mro__ if c.__module__ == "builtins")
    assert isinstance(se, base), (te, se)
    assert str(se).splitlines()[0] == str(te).splitlines()[0]


def same(tf: Callable[[], Any], sf: Callable[[], Any]) -> None:
    """Values (bits for floats: signed zeros and NaN kept), dtype, shape and strides; or the same error."""
    (t, te), (s, se) = outcome(tf), outcome(sf)
    if te is not None or se is not None:
        same_error(te, se)
        return
    assert str(s.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert s.shape == tuple(t.shape) and s.stride() == t.stride()
    tn, sn = t.detach().numpy(), s.detach().numpy()
    assert np.array_equal(tn, sn, equal_nan=tn.dtype.kind in "fc"), (tn, sn)
    if tn.dtype.kind == "f":  # (signed zeros too; NaN bits are compared where they are the point: fmax)
        assert np.array_equal(np.signbit(tn[tn == 0]), np.signbit(sn[sn == 0])), (tn, sn)


def _pair(m: Any, data: Any, dtype: str) -> Any:
    return m.tensor(data).to(getattr(m, dtype))


# ---------------------------------------------------------------- a. NumPy scalar operands

_NP_SCALARS = [np.True_, np.bool_(False), np.float32(2.5), np.float64(2.5), np.float16(2.5), np.int64(3),
               np.int8(-3), np.uint8(3), np.complex64(1 + 2j), np.complex128(1 + 2j)]
_OPS: list[Callable[[Any, Any], Any]] = [
    lambda a, b: a + b, lambda a, b: b + a, lambda a, b: b - a, lambda a, b: a * b, lambda a, b: a / b,
    lambda a, b: b / a, lambda a, b: a < b, lambda a, b: b < a, lambda a, b: b == a, lambda a, b: b >= a,
]


@pytest.mark.parametrize("tdtype", ["int64", "float32", "uint8", "bool"])
def test_numpy_scalars_are_read_as_pytorch_reads_them(tdtype: str) -> None:
    """np.True_ is a float (int tensor + np.True_ is float32), np.complex64 loses its imaginary
    part (NumPy's ComplexWarning), np.complex128 is complex; reflected comparisons too (NumPy
    hands the scalar over as a 0-d array there)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for sc in _NP_SCALARS:
            for f in _OPS:
                same(lambda: f(_pair(torch, [1, 2], tdtype), sc), lambda: f(_pair(strided, [1, 2], tdtype), sc))
            for name in ("add", "mul", "sub"):
                same(lambda: getattr(torch, name)(_pair(torch, [1, 2], tdtype), sc),
                     lambda: getattr(strided, name)(_pair(strided, [1, 2], tdtype), sc))
            same(lambda: _pair(torch, [1, 2], tdtype).add_(sc), lambda: _pair(strided, [1, 2], tdtype).add_(sc))
            same(lambda: torch.where(torch.tensor([True, False]), _pair(torch, [1, 2], tdtype), sc),
                 lambda: strided.where(strided.tensor([True, False]), _pair(strided, [1, 2], tdtype), sc))


def test_a_numpy_scalar_on_the_left_of_a_comparison_computes_in_the_tensors_dtype() -> None:
    """float32 rounds 16777217 and 16777216.5 to one value: PyTorch says not less."""
    for m in (torch, strided):
        t = m.tensor([16777217])
        assert (np.float64(16777216.5) < t).tolist() == [False]
        assert (np.float64(16777216.5) != t).tolist() == [False]


@pytest.mark.parametrize("sc", [np.True_, np.float32(2.5), np.float64(1.5), np.int8(3), np.complex128(1 + 2j)])
def test_numpy_scalars_as_fill_values_alpha_and_setitem(sc: Any) -> None:
    """full/fill_/alpha= read a NumPy scalar as their Scalar argument (full((2,), np.True_) is
    float32); ``t[i] = v`` takes NumPy ints, float64 and complex128 only (PyTorch's TypeError
    "can't assign a numpy.float32 to a torch.LongTensor" for the rest)."""
    calls: list[Callable[[Any], Any]] = [
        lambda m: m.full((2,), sc), lambda m: m.zeros(2, dtype=m.int64).fill_(sc),
        lambda m: m.add(m.tensor([1.0, 2.0]), m.tensor([1.0, 1.0]), alpha=sc),
        lambda m: (lambda t: (t.__setitem__(0, sc), t)[1])(m.zeros(2, dtype=m.int64)),
        lambda m: (lambda t: (t.__setitem__(0, sc), t)[1])(m.zeros(2)),
        lambda m: (lambda t: (t.__setitem__(0, sc), t)[1])(m.zeros(2, dtype=m.complex64)),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for call in calls:
            same(lambda: call(torch), lambda: call(strided))


# ---------------------------------------------------------------- b. kthvalue's index among ties


def test_kthvalue_ties_take_pytorchs_quickselect_place() -> None:
    """Small integers (many ties), NaN and -0.0/0.0, float and int dtypes, along any dim of
    transposed inputs: PyTorch's indices exactly (NumPy's argpartition picks other places)."""
    rng = np.random.default_rng(2)
    for trial in range(120):
        shape = tuple(int(v) for v in rng.integers(1, 9, int(rng.integers(1, 4))))
        dtype = ("float32", "float64", "int64", "float16")[trial % 4]
        a = rng.integers(-1, 2, shape).astype(np.float64)
        if dtype.startswith("float"):
            a[rng.random(shape) < 0.15] = np.nan
            a[(a == 0) & (rng.random(shape) < 0.5)] = -0.0
        t, s = torch.tensor(a).to(getattr(torch, dtype)), strided.tensor(a).to(getattr(strided, dtype))
        if trial % 3 == 0:
            t, s = t.transpose(0, -1), s.transpose(0, -1)
        d = int(rng.integers(0, len(shape)))
        k = int(rng.integers(1, t.shape[d] + 1))
        want, got = t.kthvalue(k, d, keepdim=bool(trial % 2)), s.kthvalue(k, d, keepdim=bool(trial % 2))
        assert got.indices.tolist() == want.indices.tolist(), (a.tolist(), k, d)
        same(lambda: want.values, lambda: got.values)
    row = [1.0, 1.0, 0.0, 1.0]
    assert strided.tensor(row).kthvalue(3).indices.item() == torch.tensor(row).kthvalue(3).indices.item() == 0


# ---------------------------------------------------------------- c. true_divide takes no rounding_mode


def test_true_divide_refuses_rounding_mode() -> None:
    a, b = [5.0, -7.0], [2.0, 2.0]
    for kw in ({"rounding_mode": "floor"}, {"rounding_mode": None}):
        same(lambda: torch.true_divide(torch.tensor(a), torch.tensor(b), **kw),
             lambda: strided.true_divide(strided.tensor(a), strided.tensor(b), **kw))
        same(lambda: torch.tensor(a).true_divide(torch.tensor(b), **kw),
             lambda: strided.tensor(a).true_divide(strided.tensor(b), **kw))
        same(lambda: torch.tensor(a).true_divide_(2, **kw), lambda: strided.tensor(a).true_divide_(2, **kw))
    same(lambda: torch.tensor(a).true_divide(torch.tensor(b)), lambda: strided.tensor(a).true_divide(strided.tensor(b)))
    same(lambda: torch.true_divide(torch.tensor([3, 4]), 2), lambda: strided.true_divide(strided.tensor([3, 4]), 2))
    same(lambda: torch.tensor(a).true_divide_(2), lambda: strided.tensor(a).true_divide_(2))
    same(lambda: torch.tensor(a).divide(torch.tensor(b), rounding_mode="floor"),
         lambda: strided.tensor(a).divide(strided.tensor(b), rounding_mode="floor"))
    x = strided.tensor(a, requires_grad=True)
    strided.true_divide(x, 2.0).sum().backward()
    assert x.grad.tolist() == [0.5, 0.5]


# ---------------------------------------------------------------- d. sort / argsort signatures

_X = [[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]


@pytest.mark.parametrize("call", [
    lambda t: t.sort(0, True), lambda t: t.sort(True), lambda t: t.sort(True, stable=True),
    lambda t: t.sort(stable=True, dim=0, descending=True), lambda t: t.sort(dim=0, stable=True),
    lambda t: t.sort(stable=None), lambda t: t.sort(-1, False), lambda t: t.argsort(0, True),
    lambda t: t.argsort(True), lambda t: t.argsort(stable=True, descending=True), lambda t: t.argsort(dim=0, stable=True),
])
def test_sort_and_argsort_take_pytorchs_signatures(call: Callable[[Any], Any]) -> None:
    (t, te), (s, se) = outcome(lambda: call(torch.tensor(_X))), outcome(lambda: call(strided.tensor(_X)))
    if te is not None or se is not None:
        same_error(te, se)
        return
    for tt, ss in zip(t if isinstance(t, tuple) else (t,), s if isinstance(s, tuple) else (s,)):
        assert ss.tolist() == tt.tolist()


def test_stable_is_keyword_only() -> None:
    """argsort's stable is keyword-only, as sort's (PyTorch's TypeError for a third positional);
    with ``stable=`` PyTorch's signature takes ``dim`` and ``descending`` by name only, so
    ``t.sort(0, stable=True)`` is its TypeError (fix27: strided took it as dim 0, stable)."""
    for call in (lambda m: m.tensor(_X).argsort(0, True, True), lambda m: m.tensor(_X).sort(0, True, True),
                 lambda m: m.tensor(_X).sort(0, stable=True), lambda m: m.sort(m.tensor(_X), 0, stable=True),
                 lambda m: m.argsort(m.tensor(_X), 0, stable=False), lambda m: m.tensor(_X).sort(0, True, stable=True)):
        with pytest.raises(TypeError):
            call(torch)
        with pytest.raises(TypeError):
            call(strided)
    assert strided.tensor(_X).sort(dim=0, stable=True).indices.tolist() == torch.tensor(_X).sort(dim=0, stable=True).indices.tolist()
    assert strided.tensor(_X).argsort(axis=0).tolist() == strided.tensor(_X).sort(axis=0).indices.tolist() == [[1, 0, 0], [0, 1, 1]]


# ---------------------------------------------------------------- e. flip and roll arguments


@pytest.mark.parametrize("call", [
    lambda m, t: m.flip(t, 0), lambda m, t: m.flip(t, (0,)), lambda m, t: m.flip(t, [0, 1]), lambda m, t: t.flip(0),
    lambda m, t: t.flip(0, 1), lambda m, t: m.flip(t, True), lambda m, t: m.roll(t, 1),
    lambda m, t: m.roll(t, m.tensor(1)), lambda m, t: m.roll(t, m.tensor([2]), 1), lambda m, t: m.roll(t, m.tensor(1), 0),
    lambda m, t: m.roll(t, (m.tensor(1), 1), (0, 1)), lambda m, t: m.roll(t, 1, m.tensor(0)), lambda m, t: t.roll(-4),
    lambda m, t: t.t().roll(1), lambda m, t: m.roll(m.empty(0, 3), 1),
])
def test_flip_and_roll_arguments(call: Callable[[Any, Any], Any]) -> None:
    same(lambda: call(torch, torch.tensor(_X)), lambda: call(strided, strided.tensor(_X)))


def test_roll_refuses_a_float_or_many_element_tensor_shift() -> None:
    for bad in (lambda m: m.tensor([1, 2]), lambda m: m.tensor(1.0), lambda m: 1.5):
        with pytest.raises(TypeError, match=r"^roll\(\): argument 'shifts' \(position \d\) must be tuple of ints"):
            strided.roll(strided.tensor(_X), bad(strided), 0)
        with pytest.raises(TypeError):
            torch.roll(torch.tensor(_X), bad(torch), 0)


# ---------------------------------------------------------------- f. as_strided's texts


@pytest.mark.parametrize("args", [((2, -1), (1, 1)), ((-1,), (1,)), ((2, 2), (1,)), ((2, 2), (1, -1)),
                                  ((3, 3), (3, 1)), ((2, 2), (1, 1), -1), ((2, 2), (4, 1), 3), ((6,), (0,), 5)])
def test_as_strided_errors(args: tuple) -> None:
    x = [[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]
    same(lambda: torch.tensor(x).as_strided(*args), lambda: strided.tensor(x).as_strided(*args))


# ---------------------------------------------------------------- g. arange, randn of empty int tensors


@pytest.mark.parametrize("call", [
    lambda m: m.arange(True), lambda m: m.arange(False), lambda m: m.arange(True, 5), lambda m: m.arange(0, 5, True),
    lambda m: m.arange(np.True_), lambda m: m.arange(m.tensor(True)), lambda m: m.arange(3, dtype=m.complex64),
    lambda m: m.arange(0, dtype=m.complex128), lambda m: m.arange(np.int64(3)),
])
def test_arange_numbers(call: Callable[[Any], Any]) -> None:
    same(lambda: call(torch), lambda: call(strided))


@pytest.mark.parametrize("make_out,args", [
    (lambda m, d: m.zeros(4, dtype=d), (4,)), (lambda m, d: m.zeros(4, dtype=d), (5,)),
    (lambda m, d: m.zeros(4, dtype=d), (0,)), (lambda m, d: m.zeros(6, dtype=d)[::2], (3,)),
    (lambda m, d: m.zeros(6, dtype=d)[::2], (4,)), (lambda m, d: m.zeros(2, 3, dtype=d).t(), (6,)),
    (lambda m, d: m.zeros(3, dtype=d).expand(2, 3), (3,)), (lambda m, d: m.zeros(4, dtype=d), (0.5, 3)),
])
def test_arange_out(make_out, args):
    """out's dtype; its layout kept when the count matches, else resized to (n,) with a UserWarning."""
    for dtype in ["float32", "int64", "uint8", "bool", "float16"]:
        with case(dtype=dtype):
            _arange_out(dtype, make_out, args)


def _arange_out(dtype: str, make_out: Callable, args: tuple) -> None:
    outs = []

    def run(m: Any) -> Any:
        o = make_out(m, getattr(m, dtype))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = m.arange(*args, out=o)
        outs.append((r is o, len(w)))
        return r

    same(lambda: run(torch), lambda: run(strided))
    if len(outs) == 2:
        assert outs[0] == outs[1]


def test_arange_out_refusals() -> None:
    same(lambda: torch.arange(5, out=torch.zeros(5, dtype=torch.int64), dtype=torch.float32),
         lambda: strided.arange(5, out=strided.zeros(5, dtype=strided.int64), dtype=strided.float32))
    same(lambda: torch.arange(3, out=torch.zeros(3, requires_grad=True)),
         lambda: strided.arange(3, out=strided.zeros(3, requires_grad=True)))
    same(lambda: torch.arange(3, out=torch.zeros(3, dtype=torch.complex64)),
         lambda: strided.arange(3, out=strided.zeros(3, dtype=strided.complex64)))
    o = strided.zeros(5)
    v = o[1:3]
    with pytest.warns(UserWarning, match="will be resized to a tensor of shape"):
        strided.arange(4, out=v)  # (the view grows over its storage, as PyTorch's resize_)
    assert o.tolist() == [0.0, 0.0, 1.0, 2.0, 3.0] and v.storage_offset() == 1


@pytest.mark.parametrize("dtype", ["int64", "bool", "uint8"])
@pytest.mark.parametrize("shape", [(0,), (2, 0)])
def test_normal_draws_of_empty_integer_tensors(dtype: str, shape: tuple) -> None:
    """PyTorch runs the normal kernel (and its dtype check) only on elements."""
    calls: list[Callable[[Any], Any]] = [
        lambda m: m.randn(*shape, dtype=getattr(m, dtype)), lambda m: m.randn_like(m.zeros(shape, dtype=getattr(m, dtype))),
        lambda m: m.normal(0.0, 1.0, shape, dtype=getattr(m, dtype)), lambda m: m.zeros(shape, dtype=getattr(m, dtype)).normal_(),
        lambda m: m.randn_like(m.zeros((3, 0), dtype=getattr(m, dtype)).t()),
    ]
    for call in calls:
        same(lambda: call(torch), lambda: call(strided))
    same(lambda: torch.randn(2, dtype=getattr(torch, dtype)), lambda: strided.randn(2, dtype=getattr(strided, dtype)))


# ---------------------------------------------------------------- h. polar and complex gradients


@pytest.mark.parametrize("fn", ["polar", "complex"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((0,), (0,))])
def test_polar_and_complex_gradients_match_pytorch(fn: str, dtype: str, shapes: tuple) -> None:
    rng = np.random.default_rng(3)
    a0, b0 = rng.uniform(-2, 2, shapes[0]), rng.uniform(-3, 3, shapes[1])
    a0.flat[:1] = 0.0  # (polar at abs == 0: sgn(0) is 0)
    got = []
    for m in (torch, strided):
        a = m.tensor(a0, dtype=getattr(m, dtype), requires_grad=True)
        b = m.tensor(b0, dtype=getattr(m, dtype), requires_grad=True)
        z = getattr(m, fn)(a, b)
        ((z * z.conj() * 0.3 + z * (1 + 2j)).real.sum() + (z * 1.5j).imag.sum() + z.abs().sum()).backward()
        got.append((a.grad.numpy(), b.grad.numpy(), type(z.grad_fn).__name__ if m is torch else z.grad_fn.name()))
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == "float32" else {"rtol": 1e-12, "atol": 1e-13}
    np.testing.assert_allclose(got[1][0], got[0][0], **tol)
    np.testing.assert_allclose(got[1][1], got[0][1], **tol)
    assert got[1][2] == got[0][2]


def test_polar_and_complex_gradcheck() -> None:
    a = strided.tensor([1.5, 2.0, 0.7], dtype=strided.float64, requires_grad=True)
    b = strided.tensor([0.3, -1.0, 2.5], dtype=strided.float64, requires_grad=True)
    for fn in (strided.polar, strided.complex):
        assert strided.autograd.gradcheck(lambda x, y, fn=fn: strided.view_as_real(fn(x, y)), (a, b))
    assert strided.autograd.gradgradcheck(lambda x, y: strided.view_as_real(strided.polar(x, y)), (a, b))


def test_polar_saves_its_result() -> None:
    a = strided.tensor([1.0, 2.0], requires_grad=True)
    z = strided.polar(a, strided.tensor([0.5, 1.0]))
    z.mul_(2)  # (z has no view history: mul_ rewrites it; PyTorch checks the saved result instead)
    same_error(outcome(lambda: _torch_polar_modified())[1], outcome(lambda: z.abs().sum().backward())[1])


def _torch_polar_modified() -> None:
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    z = torch.polar(a, torch.tensor([0.5, 1.0]))
    z.mul_(2)
    z.abs().sum().backward()


# ---------------------------------------------------------------- i. fmax / fmin NaN bits

_NANS = {"float32": (np.uint32, 0x7FC00001, 0xFFC00002), "float64": (np.uint64, 0x7FF8000000000001, 0xFFF8000000000002),
         "float16": (np.uint16, 0x7E01, 0xFE02)}


@pytest.mark.parametrize("dtype", list(_NANS))
@pytest.mark.parametrize("op", ["fmax", "fmin"])
def test_fmax_fmin_return_the_second_nan_bit_for_bit(dtype: str, op: str) -> None:
    ui, n1, n2 = _NANS[dtype]
    left, right = np.array([n1, n2, n1, 0, 1] * 7, ui), np.array([n2, n1, 0, n2, n1] * 7, ui)
    fdt = np.dtype(dtype)
    want = getattr(torch, op)(torch.from_numpy(left.view(fdt)), torch.from_numpy(right.view(fdt))).numpy().view(ui)
    got = getattr(strided, op)(strided.from_numpy(left.view(fdt)), strided.from_numpy(right.view(fdt))).numpy().view(ui)
    assert got.tolist() == want.tolist()
    t = strided.from_numpy(left.view(fdt)).reshape(5, 7).t()  # (a transposed operand: the general path)
    u = torch.from_numpy(left.view(fdt)).reshape(5, 7).t()
    r = torch.from_numpy(right.view(fdt)).reshape(7, 5)
    assert getattr(strided, op)(t, strided.from_numpy(r.numpy())).numpy().view(ui).tolist() == \
        getattr(torch, op)(u, r).numpy().view(ui).tolist()


# ---------------------------------------------------------------- j. addmm with alpha == 0


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("beta,alpha", [(0, 0), (1, 0), (2, 0), (0, 1)])
def test_addmm_alpha_zero(dtype: str, beta: float, alpha: float) -> None:
    """BLAS's C = beta * C when alpha == 0 (a -0.0 input stays -0.0); float16/bfloat16 multiply the
    product by 0 (inf in it gives NaN), as PyTorch's own kernel does."""
    for inp in (-0.0, 1.0, float("nan")):
        for bv in (0.0, float("inf")):
            def run(m: Any) -> Any:
                d = getattr(m, dtype)
                return m.addmm(m.full((2, 2), inp, dtype=d), m.full((2, 3), -1.0, dtype=d), m.full((3, 2), bv, dtype=d),
                               beta=beta, alpha=alpha).float()
            same(lambda: run(torch), lambda: run(strided))


# ---------------------------------------------------------------- k. native.disabled() reaches the kernels


# (where the kernel is not built there is nothing to switch off: not collected; test_native_special's
# test_the_kernel_is_built fails then if a compiler is present)
if native.special() is not None:

    def test_native_disabled_reaches_the_special_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
        """test_native_special's forced-off run takes the NumPy formulas: no kernel call at all,
        on the small-op fast path, the general path and out=; with the switch on, every op calls it."""
        kernel, calls = native.special(), []

        class Spy:
            def __getattr__(self, name: str) -> Any:
                calls.append(name)
                return getattr(kernel, name)

        monkeypatch.setattr(native, "_special", Spy())
        base = strided.tensor(np.random.default_rng(5).uniform(-4.5, 4.5, (6, 5)), dtype=strided.float32)
        ops = [strided.erf, strided.erfc, strided.erfinv, strided.digamma, strided.lgamma, strided.i0,
               strided.special.i1, strided.special.i0e, strided.special.i1e]
        for off in (False, True):
            calls.clear()
            with native.disabled() if off else contextlib.nullcontext():
                for op in ops:
                    for view in (base, base.t(), base[:, ::2], base[1:2].expand(3, 5)):
                        op(view)
                    op(base.t(), out=strided.empty(5, 6))
            assert (calls == []) if off else len(calls) >= len(ops)


# ---------------------------------------------------------------- l. _version before autograd's first use


def test_version_counts_from_its_first_read_and_saved_tensors_are_checked() -> None:
    """In a fresh process (autograd unused): writes before the first _version read are not counted
    (no saved tensor can exist yet); from that read on they are, as in PyTorch; and a tensor written
    before autograd's first use, then saved, then written, fails at backward."""
    code = (
        "import strided as s\n"
        "t = s.zeros(3); t.add_(1)\n"
        "v = t._version; t[0] = 5; t[1:].mul_(2); o = s.zeros(3); s.add(t, 1, out=o)\n"
        "print(t._version - v, o._version)\n"
        "x = s.ones(3); x.add_(1); w = s.ones(3, requires_grad=True); y = w * x; x.mul_(3)\n"
        "try:\n"
        "    y.sum().backward(); print('no error')\n"
        "except RuntimeError as e:\n"
        "    print(str(e).split(':')[0])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out == ["2 1", "one of the variables needed for gradient computation has been modified by an inplace operation"]
