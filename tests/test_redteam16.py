"""Red team, session 16: differential checks of session 15's fast paths against PyTorch 2.13
(each test failed before its fix)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st


def _torch(a: np.ndarray, dtype: str) -> torch.Tensor:
    t = torch.from_numpy(a.view(np.int16) if dtype == "bfloat16" else a)
    return t.view(torch.bfloat16) if dtype == "bfloat16" else t


def _bits(t) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        t = t.contiguous()
        return (t.view(torch.int16) if t.dtype in (torch.bfloat16, torch.float16) else t).numpy().reshape(-1).view(np.uint8)
    return np.ascontiguousarray(t.numpy()).reshape(-1).view(np.uint8)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_alpha_out_follows_outs_loop(dtype):
    """float16/bfloat16 add/sub with alpha= and out=: PyTorch's loop walks out's layout (or, for an
    out of another dtype, its row-major temporary), so which elements its scalar loop rounds twice
    is out's, not the fresh result's (was: the fresh result's split, 20-35 of 135 elements off)."""
    import ml_dtypes
    nd = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(np.float16)
    rng = np.random.default_rng(16)
    for shape, x_order, out_order, y_shape in [((15, 9), "F", "C", (15, 9)), ((15, 9), "C", "F", (15, 9)),
                                               ((33, 16, 17), "C", "F", (16, 17)), ((129, 9), "F", "F", (1, 1))]:
        x = np.asarray((rng.standard_normal(shape) * 10).astype(np.float32).astype(nd), order=x_order)
        y = np.asarray((rng.standard_normal(y_shape) * 10).astype(np.float32).astype(nd), order=x_order)
        for out_dtype in (nd, np.dtype(np.float32)):
            o = np.zeros(shape, out_dtype, order=out_order)
            for name, alpha in (("add", 0.1), ("sub", 3.0)):
                so = st.from_numpy(o.copy(order="K"))
                to = _torch(o.copy(order="K"), out_dtype.name)
                getattr(st, name)(st.from_numpy(x), st.from_numpy(y), alpha=alpha, out=so)
                getattr(torch, name)(_torch(x, dtype), _torch(y, dtype), alpha=alpha, out=to)
                assert so.stride() == to.stride()
                np.testing.assert_array_equal(_bits(so), _bits(to), err_msg=f"{name} {shape} {out_dtype}")


def test_uniform_span_beyond_dtype_refused():
    """uniform_(from, to) whose span to - from (in double) exceeds the dtype's largest value is
    PyTorch's RuntimeError (was: float16 (-60000, 60000) drew finite numbers, float64
    (-1.7e308, 1.7e308) filled inf, float32 (-3e38, 3e38) a NumPy overflow warning); an empty
    complex target skips the bounds checks, as PyTorch's does."""
    for dt, lo, hi in [("float16", -60000.0, 60000.0), ("float16", -32753.0, 32752.0), ("bfloat16", -3e38, 3e38),
                       ("float32", -3e38, 3e38), ("float64", -1.7e308, 1.7e308), ("complex64", -3e38, 3e38)]:
        for n in (0, 3):
            if dt == "complex64" and n == 0:
                continue
            with pytest.raises(RuntimeError) as want:
                torch.empty(n, dtype=getattr(torch, dt)).uniform_(lo, hi)
            with pytest.raises(RuntimeError) as got:
                st.empty(n, dtype=getattr(st, dt)).uniform_(lo, hi)
            assert str(got.value).splitlines()[0] == str(want.value)
    assert st.empty(3, dtype=st.float16).uniform_(-32752.0, 32752.0).dtype is st.float16  # (65504: the limit itself)
    for lo, hi in [(float("nan"), 1.0), (3.0, -2.0), (-3e38, 3e38)]:
        torch.empty(0, dtype=torch.complex64).uniform_(lo, hi)
        assert st.empty(0, dtype=st.complex64).uniform_(lo, hi).shape == (0,)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_nll_loss_1d_none_negative_zero_is_positive(dtype):
    """nll_loss / cross_entropy of a 1-D (C,) input with reduction='none': PyTorch runs its
    reducing branch (a sum from +0), so a -0 loss (a zero weight, a +0 log-probability, a logit that
    takes all the probability) is +0 (was -0)."""
    import torch.nn.functional as TF

    import strided.nn.functional as SF
    for L, F, out in ((torch, TF, []), (st, SF, [])):
        d = getattr(L, dtype)
        for xv, w in (([0.5, -1.5, 2.0], [0.0, 0.0, 0.0]), ([0.0, -1.5, 2.0], None), ([-0.0, 1.0, 2.0], None)):
            weight = None if w is None else L.tensor(w, dtype=d)
            out.append(F.nll_loss(L.tensor(xv, dtype=d), L.tensor(0), weight=weight, reduction="none").item())
        for rg in (False, True):
            x = L.tensor([100.0, -100.0, -100.0], dtype=d).requires_grad_(rg)
            out.append(F.cross_entropy(x, L.tensor(0), reduction="none").item())
            out.append(F.cross_entropy(x, L.tensor(0), reduction="none", weight=L.tensor([0.0, 1.0, 1.0], dtype=d)).item())
        if L is torch:
            want = out
        else:
            assert [np.copysign(1.0, v) for v in out] == [np.copysign(1.0, v) for v in want] and out == want


def test_tensor_of_numpy_scalar_into_integer_dtype():
    """tensor(a NumPy scalar, dtype=an integer or bool dtype): PyTorch reads the scalar as a number
    through __index__, so a NumPy float other than float64 (and a NumPy bool into an integer dtype)
    is its TypeError, as inside a list (was: truncated, tensor(np.float32(1.5), dtype=int64) == 1)."""
    for v in (np.float32(1.5), np.float16(1.5), np.bool_(True), np.int8(3), np.float64(2.5), np.uint64(3)):
        for name in ("int64", "bool", "uint8", "float32"):
            try:
                want = torch.tensor(v, dtype=getattr(torch, name)).tolist()
            except TypeError:
                with pytest.raises(TypeError):
                    st.tensor(v, dtype=getattr(st, name))
            else:
                got = st.tensor(v, dtype=getattr(st, name))
                assert got.dtype is getattr(st, name) and got.tolist() == want


def test_addcmul_addcdiv_general_path_layout_of_three():
    """addcmul/addcdiv's general path: the fresh result's strides are TensorIterator's for the three
    operands at once (was: the pairwise ops' layout, (7, 1, 1) where PyTorch gives (7, 1, 7) for a
    row-major input and tensor1 with a column-major tensor2 of a size-1 trailing dim)."""
    for dt in (np.int64, np.float64, np.float32, np.float16):
        f = np.asfortranarray(np.arange(49, dtype=dt).reshape(7, 7, 1) % 5 + 1)
        c = np.ascontiguousarray(f) + 1
        for trip in ((c, c, f), (c, f, c), (f, c, c), (c[:, :1], f, c)):
            for name in ("addcmul", "addcdiv"):
                if dt == np.int64 and name == "addcdiv":
                    continue
                want = getattr(torch, name)(*[torch.from_numpy(v) for v in trip], value=2)
                got = getattr(st, name)(*[st.from_numpy(v) for v in trip], value=2)
                assert got.stride() == want.stride() and np.array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_var_mean_mean_at_float32_ties_is_welfords(dtype):
    """var_mean/std_mean's mean where the exact mean is (near) a tie between two float32 values:
    PyTorch's Welford mean in double decides the rounding (the float64 mean rounded to even went the
    other way: 15% of rows of 1 + 1e-3 * N data, every layout; float16/bfloat16 through float32
    first). Rows along the last dim (the compiled kernel), outer dims and column-major (NumPy)."""
    import ml_dtypes
    nd = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    rng = np.random.default_rng(16)
    for shape, dim, order in [((16, 16), 1, "C"), ((16, 16), 0, "C"), ((3, 16, 100), -1, "C"), ((33, 10, 7), 0, "F"),
                              ((2, 8, 100), 1, "C"), ((8, 17), None, "C")]:
        for _ in range(20):
            base = rng.standard_normal(shape) * (1e-3 if dtype == "float32" else 1e-1) + (1 if dtype != "bfloat16" else 8)
            a = np.asarray(base.astype(np.float32).astype(nd), order=order)
            for name in ("var_mean", "std_mean"):
                got = getattr(st, name)(st.from_numpy(a), dim)
                want = getattr(torch, name)(_torch(a, dtype), dim)
                np.testing.assert_array_equal(_bits(got[1]), _bits(want[1]), err_msg=f"{name} {shape} {dim} {order}")
