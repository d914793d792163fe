"""F.silu / F.elu / F.leaky_relu's direct fast path (``activations.plain_fresh`` and the rows'
compiled pass, skipping the recording entry for a plain tensor outside autograd): the recording
path's bits, torch's bits, and a tensor in autograd still recorded."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided as st
import strided.nn.functional as F

_VALUES = np.array([0.0, -0.0, 0.5, -0.5, 3.0, -3.0, 1e-30, -1e-30, 80.0, -80.0, np.inf, -np.inf, np.nan], np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (5,)])
@pytest.mark.parametrize("name,args", [("silu", ()), ("elu", ()), ("elu", (0.5,)), ("leaky_relu", ()),
                                       ("leaky_relu", (0.2,))])
def test_plain_fresh_bits(dtype, shape, name, args):
    rng = np.random.default_rng(3)
    for positive in (False, True):  # (all positive: elu's copy pass)
        a = rng.choice(_VALUES, shape).astype(dtype)
        if positive:
            a = np.abs(a) + 0.25
        got = getattr(F, name)(st.from_numpy(a.copy()), *args).numpy()
        # the recording path's result (a tensor in autograd never takes the direct path)
        slow = getattr(F, name)(st.from_numpy(a.copy()).requires_grad_(), *args).detach().numpy()
        assert got.dtype == slow.dtype and got.shape == slow.shape and got.tobytes() == slow.tobytes()
        if name == "elu" and dtype == np.float32 and not positive:
            continue  # (elu's float32 expm1 of a negative x: a separate difference from torch, on main too)
        torch.set_num_threads(1)
        want = getattr(TF, name)(torch.from_numpy(a.copy()), *args).numpy()
        assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("name", ["silu", "elu", "leaky_relu"])
def test_a_tensor_in_autograd_is_still_recorded(name):
    x = st.tensor([[-1.0, 2.0], [0.5, -0.25]], requires_grad=True)
    tx = torch.tensor([[-1.0, 2.0], [0.5, -0.25]], requires_grad=True)
    y = getattr(F, name)(x)
    ty = getattr(TF, name)(tx)
    assert y.grad_fn is not None
    y.sum().backward()
    ty.sum().backward()
    assert np.allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=0)  # (the backward: not bit-pinned here)
