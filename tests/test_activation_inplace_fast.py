"""F.leaky_relu_ / F.elu_'s in-place fast path (``activations._inplace_fast``: the compiled
``activation_inplace`` on a plain row-major float tensor outside autograd): the out-of-place
op's bits written where the elements lie (and nowhere else), torch's bits, the write counted,
and every case the general path must take still taking it (its errors, autograd's rules)."""

import contextlib

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided as st
import strided.nn.functional as F
from strided.kernels import native
from strided.kernels.torch_loops import torch_vector_bytes

_VALUES = np.array([0.0, -0.0, 0.5, -0.5, 3.0, -3.0, 1e-30, -1e-30, 80.0, -80.0, np.inf, -np.inf, np.nan], np.float32)
_CASES = [("leaky_relu_", ()), ("leaky_relu_", (0.2,)), ("leaky_relu_", (-1.5,)), ("elu_", ()), ("elu_", (0.5,))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (5,), (), (0, 3)])
@pytest.mark.parametrize("name,args", _CASES)
def test_inplace_bits(dtype, shape, name, args):
    rng = np.random.default_rng(5)
    torch.set_num_threads(1)
    for positive in (False, True):  # (all positive: elu's nothing-to-write answer)
        a = np.asarray(rng.choice(_VALUES, shape), dtype)  # (a 0-d array for shape ())
        if positive:
            a = np.abs(a) + 0.25
        x = st.tensor(a)
        assert getattr(F, name)(x, *args) is x
        fresh = getattr(F, name[:-1])(st.tensor(a), *args).numpy()
        assert x.numpy().tobytes() == fresh.tobytes() and x.dtype == st.tensor(a).dtype
        if name == "elu_" and dtype == np.float32 and not positive:
            continue  # (elu's float32 expm1 of a negative x: NumPy's, a known difference from torch)
        t = torch.tensor(a)
        getattr(TF, name)(t, *args)
        assert x.numpy().tobytes() == t.numpy().tobytes()


@pytest.mark.parametrize("name,args", _CASES)
def test_a_row_major_view_writes_its_elements_only(name, args):
    base = st.tensor(np.linspace(-3, 3, 48, dtype=np.float32).reshape(4, 12))
    before = base.numpy().copy()
    view = base[1:3]  # (row-major at offset 12)
    getattr(F, name)(view, *args)
    want = before.copy()
    want[1:3] = getattr(F, name[:-1])(st.tensor(before[1:3]), *args).numpy()
    assert base.numpy().tobytes() == want.tobytes()


@pytest.mark.parametrize("name,args", _CASES)
def test_general_layouts_match_the_fast_path(name, args, request):
    if name == "elu_" and torch_vector_bytes() == 32:
        request.applymarker(pytest.mark.xfail(strict=True, reason=(
            "an AVX2 CPU: elu_ of a transposed / stepped view is an ulp off PyTorch's at some elements (its AVX2 loop's split between SLEEF's expm1 lanes and the C library's tail at 16-element steps, not yet modelled for views)")))
    a = np.linspace(-3, 3, 48).reshape(4, 12)
    for view in (lambda t: t.t(), lambda t: t[:, ::2]):
        x = st.tensor(a)
        getattr(F, name)(view(x), *args)
        t = torch.tensor(a)
        getattr(TF, name)(view(t), *args)
        if name == "leaky_relu_":
            assert x.numpy().tobytes() == t.numpy().tobytes()
        else:  # (NumPy's expm1 against torch's: an ulp apart in places, on the general path too)
            assert np.allclose(x.numpy(), t.numpy(), rtol=1e-15, atol=0)
        with native.disabled():  # (the fast path needs the compiled kernel: without it, the general path's bits)
            y = st.tensor(a)
            getattr(F, name)(y, *args)
        z = st.tensor(a)
        getattr(F, name)(z, *args)
        assert y.numpy().tobytes() == z.numpy().tobytes()


@pytest.mark.parametrize("name,args", _CASES)
def test_read_only_memory_is_refused(name, args):
    a = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    a.flags.writeable = False
    x = st.from_numpy(a)
    with pytest.raises(RuntimeError, match="read-only"):
        getattr(F, name)(x, *args)
    assert np.array_equal(a, np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))


@pytest.mark.parametrize("name", ["leaky_relu_", "elu_"])
def test_a_parameter_beyond_float32_is_refused(name):
    x = st.tensor([[-1.0, 2.0]])
    t = torch.tensor([[-1.0, 2.0]])
    with pytest.raises(RuntimeError) as theirs:
        getattr(TF, name)(t, 1e39)
    with pytest.raises(RuntimeError) as ours:
        getattr(F, name)(x, 1e39)
    assert str(theirs.value).splitlines()[0] in str(ours.value)
    assert x.tolist() == [[-1.0, 2.0]]


@pytest.mark.parametrize("name", ["leaky_relu_", "elu_"])
def test_the_write_is_counted(name):
    w = st.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = st.tensor([-1.0, 0.5, 2.0])
    y = w * x  # (saves x)
    v = x._version
    getattr(F, name)(x)
    assert x._version == v + 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("name", ["leaky_relu_", "elu_"])
def test_autograd_rules_still_apply(name):
    leaf = st.tensor([-1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        getattr(F, name)(leaf)
    with pytest.raises(RuntimeError):
        getattr(F, name)(leaf[:1])  # (a view of a leaf that requires grad)
    x = st.tensor([-1.0, 2.0], requires_grad=True)
    tx = torch.tensor([-1.0, 2.0], requires_grad=True)
    y = getattr(F, name)(x * 1.0)
    ty = getattr(TF, name)(tx * 1.0)
    assert y.grad_fn is not None
    y.sum().backward()
    ty.sum().backward()
    assert np.allclose(x.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,args", _CASES)
def test_dense_permuted_layouts_take_the_run(dtype, name, args):
    """A transpose (and a 3-d permutation, and a dense block at an offset of a larger storage) is
    one run of storage in another order: the fast path writes that run; the bits are torch's and,
    for leaky_relu and elu's positive inputs, the general path's (native off: NumPy's expm1 for
    elu's others); the storage outside the view is untouched."""
    rng = np.random.default_rng(11)
    for positive in (False, True):
        a = rng.choice(_VALUES, (2, 60)).astype(dtype)
        if positive:
            a = np.abs(a) + 0.25
        for view in (lambda t: t[1].reshape(5, 12).t(), lambda t: t[1].reshape(3, 4, 5).permute(2, 0, 1),
                     lambda t: t[1].reshape(6, 10).t()[:, None]):
            results = []
            for disabled in (False, True):
                x = st.tensor(a)
                with native.disabled() if disabled else contextlib.nullcontext():
                    assert getattr(F, name)(view(x), *args)._layout.strides == view(x)._layout.strides
                results.append(x.numpy().tobytes())
            if name != "elu_" or positive:  # (elu_'s negatives: PyTorch's expm1 split, not NumPy's expm1)
                assert results[0] == results[1]
            assert np.frombuffer(results[0], dtype).reshape(2, 60)[0].tobytes() == a[0].tobytes()
            if name in ("leaky_relu_", "elu_") or positive:
                t = torch.tensor(a)
                getattr(TF, name)(view(t), *args)
                assert results[0] == t.numpy().tobytes()

