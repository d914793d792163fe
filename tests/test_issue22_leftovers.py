"""Issue 22's leftovers, each compared with PyTorch 2.13: complex inputs under create_graph
(view_as_real / view_as_complex), norm(p=0)'s gradient, the std()/var() warning's line under
autograd, pickling and deep-copying tensors that require grad, and a crafted pickle naming a dtype
strided does not have.
"""

from __future__ import annotations

import copy
import pickle
import sys
import warnings

import numpy as np
import pytest
import torch

import strided as st
from strided.dispatch import _alias_from

# ---------------------------------------------------------------- complex inputs, create_graph


_COMPLEX = {
    "view_as_real": lambda L, z: (L.view_as_real(z) ** 3).sum(),
    "view_as_real_mixed": lambda L, z: (L.view_as_real(z * z)[:, 0] * L.view_as_real(z)[:, 1]).sum(),
    "view_as_complex": lambda L, z: (L.view_as_complex(L.view_as_real(z) * 2.0) ** 2).real.sum(),
    "abs_squared": lambda L, z: (z * z.conj()).real.sum() ** 2,
    "abs": lambda L, z: (z.abs() ** 3).sum(),
    "exp_real": lambda L, z: z.exp().real.sum(),
    "sin_imag": lambda L, z: (z.sin().imag ** 2).sum(),
    "angle": lambda L, z: (z.angle() ** 2).sum(),
}


def _complex_derivatives(L, f):
    z = L.tensor([1 + 2j, 3 - 1j, -0.5 + 0.25j], dtype=L.complex128, requires_grad=True)
    g, = L.autograd.grad(f(L, z), z, create_graph=True)
    h, = L.autograd.grad((g.real ** 2 + g.imag).sum(), z)
    return g.detach().numpy(), h.detach().numpy()


@pytest.mark.parametrize("name", sorted(_COMPLEX))
def test_second_derivatives_of_complex_inputs_as_torch(name):
    for mine, theirs in zip(_complex_derivatives(st, _COMPLEX[name]), _complex_derivatives(torch, _COMPLEX[name])):
        assert np.allclose(mine, theirs, rtol=1e-12, atol=1e-12), (mine, theirs)


def test_view_as_real_and_view_as_complex_record_torchs_nodes():
    z = st.tensor([1 + 2j], requires_grad=True)
    x = st.tensor([[1.0, 2.0]], requires_grad=True)
    assert st.view_as_real(z).grad_fn.name() == "ViewAsRealBackward0"
    assert st.view_as_complex(x).grad_fn.name() == "ViewAsComplexBackward0"


# ---------------------------------------------------------------- norm(p=0)


@pytest.mark.parametrize("call", [lambda L, x: x.norm(p=0), lambda L, x: L.linalg.vector_norm(x, 0),
                                  lambda L, x: L.linalg.vector_norm(x.reshape(1, 3), 0, dim=1).sum()],
                         ids=["norm", "vector_norm", "vector_norm_dim"])
def test_the_zero_norm_gives_no_gradient_as_torch(call):
    """PyTorch's norm_backward returns an undefined gradient for p=0: the input gets none."""
    for L in (st, torch):
        x = L.tensor([0.0, 1.5, -2.0], requires_grad=True)
        assert L.autograd.grad(call(L, x), x, allow_unused=True) == (None,)
        call(L, x).backward()
        assert x.grad is None
        assert L.autograd.grad(call(L, x) + x.sum(), x)[0].tolist() == [1.0, 1.0, 1.0]


# ---------------------------------------------------------------- std()'s warning


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("op", ["std", "var"])
def test_a_zero_dof_warning_points_at_the_users_line(op, requires_grad):
    x = st.tensor([1.0], requires_grad=requires_grad)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(x, op)(); line = sys._getframe().f_lineno  # noqa: E702 - one line: the warning must point here
    assert [(w.filename, w.lineno) for w in caught] == [(__file__, line)]
    assert str(caught[0].message).startswith(f"{op}(): degrees of freedom is <= 0")


# ---------------------------------------------------------------- pickle and deepcopy


def _round_trip(L, make):
    x = L.tensor([0.5, 1.5], requires_grad=True)
    t = make(x)
    t.sum().backward() if t is x else None
    back = pickle.loads(pickle.dumps(t))
    return back.requires_grad, back.is_leaf, back.grad_fn is None, back.grad is None, back.tolist()


@pytest.mark.parametrize("make", [lambda x: x, lambda x: x * 2, lambda x: x[1:]], ids=["leaf", "result", "view"])
def test_pickling_a_tensor_that_requires_grad_as_torch(make):
    """A result comes back a leaf that requires grad; a leaf used in a graph pickles (its grad
    does not travel), as PyTorch."""
    assert _round_trip(st, make) == _round_trip(torch, make)


def test_an_unpickled_leaf_is_a_working_leaf():
    x = st.tensor([0.5, 1.5], requires_grad=True)
    back = pickle.loads(pickle.dumps(x * 3))
    (back * back).sum().backward()
    assert back.grad.tolist() == [3.0, 9.0]


def test_deepcopy_as_torch():
    """A leaf's requires_grad and grad are copied; a result with a history is refused."""
    for L in (st, torch):
        x = L.tensor([0.5, 1.5], requires_grad=True)
        (x * 2).sum().backward()
        y = copy.deepcopy(x)
        assert y.requires_grad and y.is_leaf and y.grad.tolist() == [2.0, 2.0] and y.grad is not x.grad
    with pytest.raises(RuntimeError) as mine:
        copy.deepcopy(st.tensor([1.0], requires_grad=True) * 2)
    with pytest.raises(RuntimeError) as theirs:
        copy.deepcopy(torch.tensor([1.0], requires_grad=True) * 2)
    assert str(mine.value).splitlines()[0] == str(theirs.value).splitlines()[0]


class _Crafted:
    """A pickle naming a typed alias of a storage read as ``dtype``."""

    def __init__(self, dtype: str) -> None:
        self.dtype = dtype

    def __reduce__(self):
        return (_alias_from, (st.tensor([1.0, 2.0])._storage, self.dtype))


@pytest.mark.parametrize("dtype", ["<U4", "O", "not a dtype", "V8"])
def test_a_crafted_pickle_naming_an_unsupported_dtype_is_refused_clearly(dtype):
    with pytest.raises(st.errors.StridedTypeError, match="not a strided dtype"):
        pickle.loads(pickle.dumps(_Crafted(dtype)))
