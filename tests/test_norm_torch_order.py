"""2-norms bit for bit with PyTorch's CPU kernels (strided.kernels.torch_sum.norm2_rows: its
last-dim kernel's lanes, lane sum and tail; its generic kernel's sequential sum along one strided
dim). NumPy's pairwise sums (the previous computation) matched 50-90% of these results."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st

CALLS = {
    "full": ((None,), lambda L, x: L.linalg.vector_norm(x)),
    "full 2-d": ((4, None), lambda L, x: L.linalg.vector_norm(x)),
    "dim -1": ((5, None), lambda L, x: L.linalg.vector_norm(x, dim=-1)),
    "dim -1 keepdim": ((5, None), lambda L, x: L.linalg.vector_norm(x, dim=-1, keepdim=True)),
    "dim 0": ((None, 5), lambda L, x: L.linalg.vector_norm(x, dim=0)),
    "transposed dim -1": ((None, 5), lambda L, x: L.linalg.vector_norm(x.mT, dim=-1)),
    "dims (0, 1)": ((3, None, 2), lambda L, x: L.linalg.vector_norm(x, dim=(0, 1))),
    "fro": ((3, None, 4), lambda L, x: L.linalg.matrix_norm(x)),
    "fro transposed": ((None, 4), lambda L, x: L.linalg.matrix_norm(x.mT)),
    "fro keepdim": ((2, None, 3), lambda L, x: L.linalg.matrix_norm(x, keepdim=True)),
    "Tensor.norm": ((4, None), lambda L, x: x.norm()),
    "norm dim": ((4, None), lambda L, x: L.norm(x, dim=1)),
    "dist": ((None,), lambda L, x: L.dist(x, x.flip(0) * 0.5)),
}


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name", list(CALLS))
def test_two_norm_bits_match_torch(dt, name):
    rng = np.random.default_rng(11)
    shape_of, call = CALLS[name]
    for n in (2, 3, 5, 8, 13, 16, 31, 64, 100, 257, 1000, 4097):
        shape = tuple(n if s is None else s for s in shape_of)
        x = (rng.standard_normal(shape) * rng.choice([1, 1e3, 1e-3])).astype(dt)
        want = call(torch, torch.tensor(x)).numpy()
        got = call(st, st.tensor(x)).numpy()
        assert got.shape == want.shape
        np.testing.assert_array_equal(np.atleast_1d(got).view(np.uint8), np.atleast_1d(want).view(np.uint8), err_msg=f"{name} {shape}")


def test_nan_and_inf_rows_match_torch():
    for dt in (np.float32, np.float64):
        for vals in ([np.nan, 1.0, -2.0], [-np.nan, 1.0], [np.inf, -np.inf, 1.0], [1e30, 1e30, 3.0]):
            a = np.array([vals] * 3, dt)
            for dim in (None, 0, 1):
                want = torch.linalg.vector_norm(torch.tensor(a), dim=dim).numpy()
                got = st.linalg.vector_norm(st.tensor(a), dim=dim).numpy()
                np.testing.assert_array_equal(np.atleast_1d(got).view(np.uint8), np.atleast_1d(want).view(np.uint8), err_msg=f"{vals} {dim}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matrix_norm_of_a_transpose_is_the_memory_order_run(dtype: type) -> None:
    """The Frobenius norm of a transposed matrix (its storage run taken straight, in memory
    order): PyTorch's bits, and the general path's (_torch_norm2 over the tensor's own view)."""
    from strided.kernels.memory import numpy_view
    from strided.ops.linalg.norms import _torch_norm2

    gen = np.random.default_rng(11)
    for shape in ((3, 4), (2, 2), (37, 300), (300, 37), (2, 1000)):
        a = (gen.standard_normal(shape) * gen.choice([1e-3, 1.0, 1e20], shape)).astype(dtype)
        s = st.from_numpy(a).T
        got = st.linalg.matrix_norm(s)
        want = torch.linalg.matrix_norm(torch.from_numpy(a).T)
        assert got.shape == () and got.numpy().tobytes() == want.numpy().tobytes()
        general = _torch_norm2(numpy_view(s._storage, s._layout), (-2, -1))
        assert got.numpy().tobytes() == np.asarray(general, dtype).tobytes()
