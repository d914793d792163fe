"""``out=`` (strided.ops._support.out.write_out, one helper for every op) against PyTorch: resize rules and
their warning, dtype castability, partial overlap, writing through out's own strides, and the
target left untouched after a refusal."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided as st
from oracle_helpers import same_error
from strided.linalg import vector_norm
from strided.ops.elementwise import unary_more as U
from strided.ops.reductions import nan_reductions as R


def _pair(shape, dtype="float32", seed=0):
    data = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return torch.from_numpy(data.copy()), st.tensor(data)


OPS = [
    ("add", lambda m, x, o: m.add(x, x, alpha=2, out=o)),
    ("exp", lambda m, x, o: m.exp(x, out=o)),
    ("floor", lambda m, x, o: (m if m is torch else U).floor(x, out=o)),
    ("sum", lambda m, x, o: m.sum(x, 0, out=o)),
    ("mean", lambda m, x, o: m.mean(x, 1, out=o)),
    ("amax", lambda m, x, o: (m if m is torch else R).amax(x, (0, 1), out=o)),
    ("matmul", lambda m, x, o: m.matmul(x, x.T, out=o)),
    ("mm", lambda m, x, o: m.mm(x, x.T, out=o)),
]


@pytest.mark.parametrize("name,op", OPS)
def test_out_with_a_wrong_shape_is_resized_with_pytorchs_warning(name, op):
    t, s = _pair((3, 3))
    to, so = torch.empty(2, 5), st.empty(2, 5)
    with pytest.warns(UserWarning) as tw:
        rt = op(torch, t, to)
    with pytest.warns(UserWarning, match=r"An output with one or more elements was resized since it had shape \[2, 5\]") as sw:
        rs = op(st, s, so)
    assert str(tw[0].message).startswith(str(sw[0].message))  # (torch appends "Triggered internally at ...")
    assert sw[0].filename == __file__  # (the warning points at the user's line)
    assert rs is so and rs.shape == tuple(rt.shape) and rs.stride() == rt.stride()
    np.testing.assert_allclose(rs.numpy(), rt.numpy(), rtol=1e-5, atol=1e-6)


def test_an_empty_out_is_resized_silently_and_shares_its_storage():
    t, s = _pair((2, 3))
    so = st.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = st.exp(s, out=so)
    assert r is so and so.shape == (2, 3) and so.stride() == (3, 1)
    np.testing.assert_allclose(so.numpy(), torch.exp(t).numpy(), rtol=1e-6)


def test_out_is_written_through_its_own_strides():
    t, s = _pair((3, 4))
    to = torch.empty(4, 3).T
    so = st.empty(4, 3).T
    torch.add(t, 1, out=to)
    r = st.add(s, 1, out=so)
    assert r is so and so.stride() == to.stride() == (1, 3)
    np.testing.assert_array_equal(so.numpy(), to.numpy())
    base = st.zeros(3, 8)
    view = base[:, ::2]
    st.mul(s, 2, out=view)
    np.testing.assert_array_equal(base.numpy()[:, ::2], s.numpy() * 2)
    assert not base.numpy()[:, 1::2].any()  # (the gaps are not written)


def test_result_dtype_must_cast_to_out():
    t, s = _pair((2, 2))
    so = st.zeros(2, 2, dtype=st.int64)
    text = same_error(lambda: torch.add(t, t, out=torch.zeros(2, 2, dtype=torch.int64)),
                      lambda: st.add(s, s, out=so))
    assert "float32" in text and "int64" in text
    assert so.tolist() == [[0, 0], [0, 0]]
    same_error(lambda: torch.exp(t, out=torch.zeros(2, 2, dtype=torch.int64)), lambda: st.exp(s, out=so))
    # an int result into a float out is fine; the values are converted
    i = st.tensor([1, 2])
    fo = st.empty(2)
    assert st.add(i, i, out=fo).tolist() == [2.0, 4.0] and fo.dtype is st.float32


def test_matmul_and_amax_want_the_exact_dtype():
    t, s = _pair((2, 2))
    same_error(lambda: torch.matmul(t, t, out=torch.empty(2, 2, dtype=torch.float64)),
               lambda: st.matmul(s, s, out=st.empty(2, 2, dtype=st.float64)))
    same_error(lambda: torch.amax(t, 0, out=torch.empty(2, dtype=torch.float64)),
               lambda: R.amax(s, 0, out=st.empty(2, dtype=st.float64)))


def test_sum_computes_in_outs_dtype():
    x = torch.tensor([[1.5, 2.5], [3.5, 0.25]])
    s = st.tensor(x.tolist())
    for dtype in (torch.int64, torch.float64):
        to = torch.empty(2, dtype=dtype)
        so = st.empty(2, dtype=getattr(st, str(dtype).removeprefix("torch.")))
        torch.sum(x, 0, out=to)
        s.sum(0, out=so)
        assert so.tolist() == to.tolist()


def test_partial_overlap_with_an_input_is_refused_and_out_untouched():
    x = st.arange(8.0)
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor") as info:
        st.add(x[:6], 1, out=x[2:])
    assert "fix:" in str(info.value)
    assert x.tolist() == list(map(float, range(8)))
    # exactly the input: fine (PyTorch's full overlap)
    assert st.exp(x, out=x) is x and x[1].item() == pytest.approx(np.e)


def test_expanded_out_is_refused_as_torch():
    t, s = _pair((3,))
    same_error(lambda: torch.add(t, 1, out=torch.empty(1).expand(3)), lambda: st.add(s, 1, out=st.empty(1).expand(3)))


def test_out_must_be_a_tensor():
    with pytest.raises(TypeError, match="argument 'out' must be Tensor"):
        st.exp(st.ones(2), out=[0.0, 0.0])


def test_out_on_the_new_ops_and_norms():
    t, s = _pair((3, 4), seed=3)
    so = st.empty(0)
    assert U.erf(s, out=so) is so
    np.testing.assert_allclose(so.numpy(), torch.erf(t).numpy(), rtol=1e-6)
    so = st.empty(0)
    assert R.norm(s, 2, dim=1, out=so) is so
    np.testing.assert_allclose(so.numpy(), torch.norm(t, 2, dim=1).numpy(), rtol=1e-6)
    assert vector_norm(s).item() == pytest.approx(torch.linalg.vector_norm(t).item(), rel=1e-6)
    so = st.empty(0)
    R.logsumexp(s, 1, out=so)
    np.testing.assert_allclose(so.numpy(), torch.logsumexp(t, 1).numpy(), rtol=1e-6)


def test_out_on_var_all_clamp_where():
    t, s = _pair((3, 4), seed=5)
    for fn_t, fn_s in (
        (lambda o: torch.var(t, 1, out=o), lambda o: s.var(1, out=o)),
        (lambda o: torch.std(t, 0, out=o), lambda o: s.std(0, out=o)),
        (lambda o: torch.clamp(t, -0.5, 0.5, out=o), lambda o: st.clamp(s, -0.5, 0.5, out=o)),
        (lambda o: torch.where(t > 0, t, -t, out=o), lambda o: st.where(s > 0, s, -s, out=o)),
    ):
        to, so = torch.empty(0), st.empty(0)
        assert fn_s(so) is so
        fn_t(to)
        np.testing.assert_allclose(so.numpy(), to.numpy(), rtol=1e-6)
    bo = st.empty(0, dtype=st.bool_)
    assert s.all(1, out=bo) is bo and bo.tolist() == torch.all(t, 1).tolist()


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "atan2", "maximum", "pow", "floor_divide", "remainder"])
@pytest.mark.parametrize("out_shape, other_shape", [((), (2,)), ((1,), (16,)), ((1, 3), (2, 3)), ((3,), (3,)), ((0,), ())])
def test_an_operand_as_out_is_never_resized(op, out_shape, other_shape) -> None:
    """``op(x, y, out=y)``: TensorIterator marks ``y`` read-write and refuses a broadcast shape
    past it (strided resized it, with the resize warning)."""
    def run(lib):
        y = lib.ones(out_shape) * 2
        x = lib.ones(other_shape) * 3
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                getattr(lib, op)(x, y, out=y)
        except (RuntimeError, UserWarning) as err:
            return "refused", str(err).splitlines()[0]
        return y.tolist()
    assert run(st) == run(torch)
