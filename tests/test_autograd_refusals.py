"""PyTorch's refusals around autograd (R3-05, R3-10), compared with torch 2.13: NumPy's protocols
on a tensor that requires grad, ``out=`` with an argument that requires grad, and ``out=`` writes
counted by the version counter so a saved tensor overwritten through ``out=`` fails at backward."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided

NUMPY_FIRST = "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
DLPACK_FIRST = "Can't export tensors that require gradient, use tensor.detach()"


def _first_line(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the class is compared by the caller
        return type(e), str(e).splitlines()[0]
    return None, None


def _leaves(lib, requires_grad=True):
    return lib.tensor([1.0, 2.0, 3.0], requires_grad=requires_grad)


# ---------------------------------------------------------------- NumPy's protocols (R3-10)

NUMPY_CALLS = {
    "t.numpy()": lambda t: t.numpy(),
    "np.asarray": lambda t: np.asarray(t),
    "np.array": lambda t: np.array(t),
    "__array__": lambda t: t.__array__(),
    "np.exp (ufunc)": lambda t: np.exp(t),
    "np.add(t, 1)": lambda t: np.add(t, 1),
    "np.add(ndarray, t, out=ndarray)": lambda t: np.add(np.ones(3), t, out=np.empty(3)),
    "np.concatenate": lambda t: np.concatenate([t, t]),
}


@pytest.mark.parametrize("how", list(NUMPY_CALLS))
@pytest.mark.parametrize("leaf", [True, False])
def test_numpy_protocols_refuse_a_tensor_that_requires_grad(how, leaf):
    call = NUMPY_CALLS[how]
    got = []
    for lib in (strided, torch):
        x = _leaves(lib)
        t = x if leaf else x * 2
        got.append(_first_line(lambda t=t: call(t)))
    (cls_s, line_s), (cls_t, line_t) = got
    assert cls_t is RuntimeError and line_t == NUMPY_FIRST
    assert issubclass(cls_s, RuntimeError) and line_s == NUMPY_FIRST


def test_the_refusal_explains_in_the_tensors_numbers_and_holds_under_no_grad():
    x = strided.ones(2, 3, requires_grad=True)
    with strided.no_grad(), pytest.raises(RuntimeError) as info:
        x.numpy()  # PyTorch refuses under no_grad too: the flag, not the mode
    lines = str(info.value).splitlines()
    assert lines[0] == NUMPY_FIRST
    assert "shape (2, 3), float32" in lines[1] and "version counter" in lines[1]
    assert "t.detach().numpy()" in lines[2]
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        torch.ones(2, requires_grad=True).numpy()


def test_array_interface_refuses_and_detach_passes():
    x = strided.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        x.__array_interface__  # noqa: B018
    a = np.asarray(x.detach())
    a[0] = 5.0  # the detached view shares memory, as in PyTorch
    assert x.tolist() == [5.0, 2.0]
    assert np.exp(x.detach()).tolist() == pytest.approx([np.exp(5.0), np.exp(2.0)])
    assert strided.ones(2).numpy().tolist() == [1.0, 1.0]  # no grad: no refusal


def test_dlpack_export_refuses_as_pytorch():
    got = []
    for lib in (strided, torch):
        x = _leaves(lib)
        got.append((_first_line(lambda x=x: x.__dlpack__()), _first_line(lambda x=x: np.from_dlpack(x))))
    for (cls_a, line_a), (cls_b, line_b) in got:
        assert issubclass(cls_a, BufferError) and issubclass(cls_b, BufferError)
        assert line_a == line_b == DLPACK_FIRST
    assert np.from_dlpack(strided.ones(2, requires_grad=True).detach()).tolist() == [1.0, 1.0]


def test_ndarray_operand_of_a_tensor_that_requires_grad_is_refused_as_pytorch():
    """``tensor * ndarray``: PyTorch hands the ndarray to NumPy, which asks for the tensor's memory
    (refused: it requires grad); strided says the same, in either order. A tensor made from the
    array records, as in PyTorch."""
    xs = strided.tensor([1.0, 2.0], dtype=strided.float64, requires_grad=True)
    xt = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    a = np.array([3.0, 4.0])
    with pytest.raises(RuntimeError, match="Can't call numpy") as want:
        xt * a
    for call in (lambda: xs * a, lambda: a * xs, lambda: xs / a, lambda: a / xs):
        with pytest.raises(RuntimeError) as got:
            call()
        assert str(got.value).splitlines()[0] == str(want.value)
    (strided.from_numpy(a) * xs).sum().backward()
    (torch.from_numpy(a) * xt).sum().backward()
    assert xs.grad.tolist() == xt.grad.tolist() == [3.0, 4.0]


# ---------------------------------------------------------------- out= (R3-05)

OUT_CALLS = {
    "add": lambda lib, x, o: lib.add(x, 1, out=o),
    "mul": lambda lib, x, o: lib.mul(x, x, out=o),
    "exp": lambda lib, x, o: lib.exp(x, out=o),
    "clamp": lambda lib, x, o: lib.clamp(x, 0.5, 2.5, out=o),
    "sum": lambda lib, x, o: lib.sum(x, 0, out=o[0]),
    "matmul": lambda lib, x, o: lib.matmul(x, x, out=o[0]),
}


@pytest.mark.parametrize("op", list(OUT_CALLS))
def test_out_with_an_input_that_requires_grad_is_refused(op):
    got = []
    for lib in (strided, torch):
        x = _leaves(lib)
        o = lib.empty(3)
        got.append((_first_line(lambda lib=lib, x=x, o=o: OUT_CALLS[op](lib, x, o)), o))
    (cls_s, line_s), _ = got[0]
    (cls_t, line_t), _ = got[1]
    assert cls_t is RuntimeError and "functions with out=... arguments don't support automatic differentiation" in line_t
    assert issubclass(cls_s, RuntimeError) and line_s == line_t


def test_out_that_requires_grad_is_refused_and_allowed_under_no_grad():
    for lib in (strided, torch):
        leaf = _leaves(lib)
        with pytest.raises(RuntimeError, match=r"^add\(\): functions with out=\.\.\. arguments don't support"):
            lib.add(lib.ones(3), 1, out=leaf)
        assert leaf.tolist() == [1.0, 2.0, 3.0]  # nothing written
        with lib.no_grad():
            lib.add(lib.ones(3), 1, out=leaf)
        assert leaf.tolist() == [2.0, 2.0, 2.0] and leaf._version == 1


def test_out_with_no_grad_input_is_fine_and_counts_a_version():
    for lib in (strided, torch):
        o = lib.zeros(3)
        lib.add(lib.ones(3), 1, out=o)
        assert o.tolist() == [2.0, 2.0, 2.0]


OVERWRITES = {
    "strided add(out=)": lambda lib, y: lib.add(lib.ones(4), lib.ones(4), out=y),
    "exp(out=)": lambda lib, y: lib.exp(lib.ones(4), out=y),
    "sum(dim, out=)": lambda lib, y: lib.sum(lib.ones(4, 4), 0, out=y),
}


@pytest.mark.parametrize("how", list(OVERWRITES))
def test_a_saved_tensor_overwritten_through_out_fails_at_backward(how):
    """R3-05's repro: before, x.grad was silently [0, 8, 16, 24] (the overwritten values)."""
    errors = []
    for lib in (strided, torch):
        x = lib.arange(4.0).requires_grad_()
        y = x * x
        z = (y * y).sum()
        with lib.no_grad():
            OVERWRITES[how](lib, y)
        assert y._version == 1
        errors.append(_first_line(z.backward))
    (cls_s, line_s), (cls_t, line_t) = errors
    assert cls_t is RuntimeError and issubclass(cls_s, RuntimeError)
    assert line_s.split(":")[0] == line_t.split(":")[0] == (
        "one of the variables needed for gradient computation has been modified by an inplace operation")
    assert "is at version 1; expected version 0 instead" in line_s and "is at version 1; expected version 0" in line_t


def test_a_numpy_ufunc_writing_out_bumps_the_version():
    """NumPy writing into a tensor through ``out=`` is an in-place write: counted (strided is stricter
    than PyTorch here, whose NumPy interop never sees such a write: torch's detached .numpy() view
    is written behind autograd's back and the gradient comes out silently wrong)."""
    x = strided.arange(4.0).requires_grad_()
    y = x * x
    z = (y * y).sum()
    target = y.detach()
    np.add(target, 1, out=target)
    assert y._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()
    w = strided.zeros(3)
    before = w._version
    np.copyto(w, np.ones(3))
    assert w._version == before + 1 and w.tolist() == [1.0, 1.0, 1.0]


def test_floor_divide_out_with_an_input_that_requires_grad_is_accepted_as_torch():
    """floor_divide has no derivative in PyTorch 2.13, so its out= variant is not refused: ``out``
    takes a NotImplemented node whose backward raises; ``out`` requiring grad is refused."""
    got = []
    for lib in (strided, torch):
        x = _leaves(lib)
        o = lib.empty(3)
        r = lib.floor_divide(x, 1.0, out=o)
        seen = (r is o, o.requires_grad, type(o.grad_fn).__name__ if lib is torch else o.grad_fn.name(),
                o._version, o.detach().tolist(), _first_line(lambda o=o: o.sum().backward()))
        view = lib.zeros(6)[::2]
        lib.floor_divide(x, 1.0, out=view)
        seen += (view.requires_grad, lib.zeros(6).tolist() != view._base.tolist())
        with lib.no_grad():
            seen += (lib.floor_divide(x, 1.0, out=lib.empty(3)).requires_grad,)
        seen += (_first_line(lambda lib=lib: lib.floor_divide(lib.ones(3), 1.0,
                                                              out=lib.empty(3, requires_grad=True))),)
        got.append(seen)
    s, t = got
    assert s[:5] == t[:5] and s[6:9] == t[6:9]
    for a, b in ((s[5], t[5]), (s[9], t[9])):
        assert issubclass(a[0], RuntimeError) and issubclass(b[0], RuntimeError) and a[1] == b[1]


@pytest.mark.parametrize("out_dtype, grad_dtype", [("float32", "complex64"), ("complex64", "float32"),
                                                   ("float64", "complex128")])
def test_complex_and_real_gradients_do_not_mix(out_dtype, grad_dtype):
    """A complex gradient for a real output (or the reverse) is PyTorch's RuntimeError, with its
    text, for backward() and autograd.grad alike — never a silently dropped imaginary part."""
    texts = []
    for lib in (strided, torch):
        x = lib.tensor([1.0, -2.0], dtype=getattr(lib, out_dtype), requires_grad=True)
        y = x * 2
        g = lib.tensor([1.0, 2.0], dtype=getattr(lib, grad_dtype))
        with pytest.raises(RuntimeError) as info:
            y.backward(g, retain_graph=True)
        texts.append(str(info.value).splitlines()[0])
        with pytest.raises(RuntimeError) as info:
            lib.autograd.grad(y, x, g)
        texts.append(str(info.value).splitlines()[0])
    assert texts[:2] == texts[2:]
    assert "For complex Tensors, both grad_output and output are required to have the same dtype" in texts[0]
