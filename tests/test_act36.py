"""act36: in-place activations (relu_, rrelu_, threshold_, selu_, celu_) on any non-overlapping and
dense layout -- a permutation of a row-major one at offset 0 over exactly its storage -- are one flat
run over the storage, in the entry front's C write (kernels/_front.h, dense_inplace_run) and in
relu_'s Python forward (kernels/elementwise.relu_kernel). Differential against torch and against
the Python forward itself: bits (NaN payloads, -0.0), the returned object, strides, versions; the
layouts that are not one run (offsets into a larger storage, steps, expanded dims) keep the
forward's path and its answers."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
import strided.nn.functional as F

sys.path.insert(0, str(Path(__file__).parent))
from test_inplace35 import _bits, _values  # noqa: E402

# name -> (strided call, torch call, the Python forward behind the front)
_OPS = {
    "relu_": (lambda x: x.relu_(), lambda t: t.relu_(), lambda x: st.relu_.__front_fallback__(x)),
    "F.relu": (lambda x: F.relu(x, inplace=True), lambda t: TF.relu(t, inplace=True),
               lambda x: st.relu_.__front_fallback__(x)),
    "rrelu_": (lambda x: st.rrelu_(x, 0.1, 0.3), lambda t: torch.rrelu_(t, 0.1, 0.3),
               lambda x: st.rrelu_.__front_fallback__(x, 0.1, 0.3)),
    "threshold_": (lambda x: st.threshold_(x, 0.25, -1.5), lambda t: torch.threshold_(t, 0.25, -1.5),
                   lambda x: st.threshold_.__front_fallback__(x, 0.25, -1.5)),
    "selu_": (lambda x: st.selu_(x), lambda t: torch.selu_(t), lambda x: st.selu_.__front_fallback__(x)),
    "celu_": (lambda x: st.celu_(x), lambda t: torch.celu_(t), lambda x: st.celu_.__front_fallback__(x)),
}

# (shape of the storage's row-major array, the permutation that makes the dense view)
_DENSE = [((4, 5), (1, 0)), ((30, 70), (1, 0)), ((2, 3, 4), (2, 0, 1)), ((3, 1, 5), (2, 1, 0)),
          ((5, 4, 3, 2), (3, 1, 0, 2)), ((1, 7), (1, 0)), ((200, 90), (1, 0)), ((0, 3), (1, 0)),
          ((6, 200), (1, 0))]


def _check_torch(name: str, dtype: type, ours: np.ndarray, theirs: np.ndarray) -> None:
    if name in ("selu_", "celu_") and dtype == np.float32:
        # (float32 NaN payloads: torch's vectorized expm1 path; the values as test_inplace35 checks them)
        assert np.allclose(ours, theirs, rtol=2e-7, atol=0, equal_nan=True)
    else:
        assert _bits(ours) == _bits(theirs), name


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,perm", _DENSE)
@pytest.mark.parametrize("name", list(_OPS))
def test_dense_permuted_write_is_the_forward_s_and_torch_s(name, dtype, shape, perm):
    call, tcall, forward = _OPS[name]
    a = _values(dtype, shape, hash((name, shape)) % 1000)
    base_x, base_y = st.tensor(a), st.tensor(a)
    x, y = base_x.permute(*perm), base_y.permute(*perm)
    v0 = x._version
    assert call(x) is x
    assert forward(y) is y
    assert x.stride() == y.stride() and x.shape == y.shape
    assert _bits(base_x.numpy()) == _bits(base_y.numpy()), name
    assert x._version == y._version == base_x._version == v0 + 1
    tb = torch.tensor(a)
    t = tb.permute(*perm)
    assert tcall(t) is t
    assert x.stride() == t.stride()
    _check_torch(name, dtype, base_x.numpy(), tb.numpy())


@settings(max_examples=80, deadline=None)
@given(hs.sampled_from(list(_OPS)), hs.sampled_from([np.float32, np.float64]),
       hs.lists(hs.integers(1, 6), min_size=2, max_size=4), hs.randoms(use_true_random=False),
       hs.integers(0, 10_000))
def test_dense_permuted_fuzz(name, dtype, shape, rnd, seed):
    call, tcall, forward = _OPS[name]
    perm = list(range(len(shape)))
    rnd.shuffle(perm)
    a = _values(dtype, tuple(shape), seed)
    bx, by, tb = st.tensor(a), st.tensor(a), torch.tensor(a)
    x, y, t = bx.permute(*perm), by.permute(*perm), tb.permute(*perm)
    call(x)
    forward(y)
    tcall(t)
    assert _bits(bx.numpy()) == _bits(by.numpy())
    assert x._version == y._version == t._version == 1
    _check_torch(name, dtype, bx.numpy(), tb.numpy())


@pytest.mark.parametrize("name", list(_OPS))
@pytest.mark.parametrize("view", ["offset", "stepped", "column", "transposed slice", "offset transposed"])
def test_layouts_that_are_not_one_run_keep_the_forward(name, view):
    """Offsets, steps and slices (their storage holds more than their elements) are the forward's:
    only the view's elements written, torch's values, one version."""
    views = {"offset": lambda t: t[1:], "stepped": lambda t: t[:, ::2].t(), "column": lambda t: t[:, 1],
             "transposed slice": lambda t: t[:, 1:].t(), "offset transposed": lambda t: t[2:].t()}
    call, tcall, _ = _OPS[name]
    a = _values(np.float64, (6, 8), 3)
    x, t = st.tensor(a), torch.tensor(a)
    vx, vt = views[view](x), views[view](t)
    assert call(vx) is vx
    tcall(vt)
    assert _bits(x.numpy()) == _bits(t.numpy())
    assert x._version == t._version == 1


@pytest.mark.parametrize("name", list(_OPS))
def test_expanded_is_torch_s_answer(name):
    """An expanded (stride 0) transpose is no run: torch's refusal (relu_, selu_, ...) or, where
    torch writes it (threshold_), torch's values."""
    call, tcall, _ = _OPS[name]
    a = np.array([[-1.0, 2.0, -3.0]])
    bx, tb = st.tensor(a), torch.tensor(a)
    x, t = bx.expand(2, 3).t(), tb.expand(2, 3).t()
    try:
        tcall(t)
    except RuntimeError as theirs:
        with pytest.raises(RuntimeError) as ours:
            call(x)
        assert str(ours.value).splitlines()[0] == str(theirs).splitlines()[0]
        assert x._version == 0
    else:
        assert call(x) is x
        assert _bits(bx.numpy()) == _bits(tb.numpy())
        assert x._version == t._version


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_nan_words_and_signed_zeros_on_a_transpose(dtype):
    words = (np.array([0x7FC00000, 0xFFC00001, 0x7FA00001, 0xFF800123, 0x80000000, 0, 0xBF800000, 0x3F800000],
                      np.uint32).view(np.float32) if dtype == np.float32 else
             np.array([0x7FF8000000000001, 0xFFF0000000000123, 0x7FF4000000000000, 0x8000000000000000, 0,
                       0xBFF0000000000000, 0x3FF0000000000000, 0xFFF8000000000000], np.uint64).view(np.float64))
    a = np.tile(words, 8).reshape(8, 8)
    for run in (lambda x: x.relu_(), lambda x: st.relu_.__front_fallback__(x)):
        bx, tb = st.tensor(a), torch.tensor(a)
        run(bx.t())
        tb.t().relu_()
        assert _bits(bx.numpy()) == _bits(tb.numpy())


def test_read_only_transpose_is_the_forward_s_error():
    a = np.linspace(-2, 2, 12).reshape(3, 4)
    a.flags.writeable = False
    x = st.from_numpy(a) if hasattr(st, "from_numpy") else None
    if x is None:
        pytest.skip("no from_numpy")
    with pytest.warns(UserWarning):
        t = torch.from_numpy(a)
    for name, (call, _tcall, forward) in _OPS.items():
        for run in (call, forward):
            try:
                run(x.t())
            except Exception as e:  # (the forward's refusal, whatever the path)
                err = type(e)
            else:
                err = None
            assert err is not None, name
            assert np.array_equal(a, np.linspace(-2, 2, 12).reshape(3, 4))
    del t


def test_in_graph_and_grad_leaf_transposes_keep_the_forward():
    a = np.linspace(-2, 2, 12).reshape(3, 4)
    x = st.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    with pytest.raises(RuntimeError):
        torch.relu_(t.t())
    with pytest.raises(RuntimeError):
        st.relu_(x.t())
    y = (x * 1.0).t()
    y.relu_()
    (y * 2).sum().backward()
    ty = (t * 1.0).t()
    ty.relu_()
    (ty * 2).sum().backward()
    assert np.array_equal(x.grad.numpy(), t.grad.numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 7, 15, 16, 17, 33, 255, 256, 257, 1000, 16384, 40_003])
def test_elu_fused_lanes_are_the_plain_lanes(dtype, n):
    """elu / selu's one-pass AVX-512 lanes (elu_fused16 / elu_fused8: expm1 only for a vector with
    an x not > 0) give the plain C form's bits (form 0: the stack-block pass), on special words,
    mixed signs, all-positive vectors and partial tails; float64 also torch's own bits."""
    from strided.kernels import sleef

    a = _values(dtype, (n,), n)
    a[: n // 3] = np.abs(a[: n // 3])  # (a run of all-positive vectors: the skipped exponentials)
    for op in (sleef.ELU, sleef.SELU):
        wide, plain = sleef.torch_loop(a, op, form=-1), sleef.torch_loop(a, op, form=0)
        if wide is None:
            pytest.skip("no compiled sleef kernel")
        assert _bits(wide) == _bits(plain), op
    if dtype == np.float64:
        for ours, theirs in ((F.elu, TF.elu), (F.selu, TF.selu), (F.celu, TF.celu)):
            assert _bits(ours(st.tensor(a)).numpy()) == _bits(theirs(torch.tensor(a)).numpy())
        x, t = st.tensor(a.reshape(-1, 1).repeat(3, 1)).t(), torch.tensor(a.reshape(-1, 1).repeat(3, 1)).t()
        st.selu_(x)
        torch.selu_(t)
        assert _bits(x.numpy()) == _bits(t.numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [16_385, 40_000, 100_003, 1 << 20])
def test_long_elu_runs_are_the_expm1_then_select_bits(dtype, n):
    """selu / celu(alpha 1) of a run longer than one chunk, fresh and in place (one compiled pass
    cut at PyTorch's parallel chunks): the bits of the two-pass form it replaced (torch_loop's expm1
    cut at the same chunks, then _elu_compiled's selection), on special words and mixed signs."""
    from strided.ops.elementwise import activations_more as am

    a = _values(dtype, (n,), n % 97)
    for alpha, scale, fresh, inplace in ((am.SELU_ALPHA, am.SELU_SCALE, F.selu, st.selu_), (1.0, 1.0, F.celu, st.celu_)):
        two_pass = am._elu_compiled(a, alpha, scale, 1.0)
        assert two_pass is not None
        assert _bits(fresh(st.tensor(a)).numpy()) == _bits(two_pass)
        x = st.tensor(a)
        assert inplace(x) is x and x._version == 1
        assert _bits(x.numpy()) == _bits(two_pass)
        # (a permuted dense tensor: its storage, np.repeat(a, 2), is the run, cut at its own chunks)
        base = st.tensor(a.reshape(-1, 1).repeat(2, 1))
        assert inplace(base.t()) is not None and base._version == 1
        assert _bits(base.numpy()) == _bits(am._elu_compiled(np.repeat(a, 2), alpha, scale, 1.0))
