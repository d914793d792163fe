"""The small-tensor fast paths of issue 23 give exactly the results of the general paths:
gather/scatter's one-block positions (cached grids) over offset, transposed and negative-step
inputs, flip through slices, and the byte strides numpy_view remembers, against PyTorch and NumPy."""

import numpy as np
import pytest
import torch

import strided

_RNG = np.random.default_rng(23)


def _views(base: np.ndarray):
    """(name, strided tensor, numpy array) over ``base``: contiguous, offset slice, transposed,
    negative step (NumPy's, no PyTorch peer), all sharing one storage."""
    t = strided.from_numpy(base.copy())
    a = t.numpy()
    return [
        ("contiguous", t, a),
        ("offset", t[1:, 2:], a[1:, 2:]),
        ("transposed", t.t(), a.T),
        ("negative", t[::-1], a[::-1]),
    ]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("dim", [0, 1])
def test_gather_scatter_small_views_match_numpy(dtype, dim):
    for name, t, a in _views(_RNG.standard_normal((5, 6)).astype(dtype)):
        n = a.shape[dim]
        idx = _RNG.integers(0, n, a.shape)
        got = strided.gather(t, dim, strided.tensor(idx))
        np.testing.assert_array_equal(got.numpy(), np.take_along_axis(a, idx, dim), err_msg=name)
        # scatter without repeats along dim: a permutation of each line
        perm = np.argsort(_RNG.random(a.shape), axis=dim)
        src = _RNG.standard_normal(a.shape).astype(dtype)
        want = a.copy()
        np.put_along_axis(want, perm, src, dim)
        out = strided.scatter(t, dim, strided.tensor(perm), strided.tensor(src))
        np.testing.assert_array_equal(out.numpy(), want, err_msg=name)
        # in place through the view (no repeats: each position gets one value added)
        want_add = a.copy()
        np.put_along_axis(want_add, perm, np.take_along_axis(want_add, perm, dim) + src, dim)
        t.scatter_add_(dim, strided.tensor(perm), strided.tensor(src))
        np.testing.assert_array_equal(t.numpy(), want_add, err_msg=name)


def test_gather_scatter_against_torch_repeated_calls():
    # the same call twice (the second takes the cached grid) and a transposed index
    x = _RNG.standard_normal((4, 7)).astype(np.float32)
    idx = _RNG.integers(0, 4, (7, 4)).T.copy()
    for _ in range(2):
        for index in (strided.tensor(idx), strided.tensor(idx.T.copy()).t()):
            got = strided.gather(strided.tensor(x), 0, index)
            want = torch.gather(torch.tensor(x), 0, torch.tensor(idx))
            np.testing.assert_array_equal(got.numpy(), want.numpy())
            assert got.stride() == tuple(want.stride())
            got = strided.scatter_add(strided.zeros(4, 7), 0, index, strided.tensor(x))
            want = torch.zeros(4, 7).scatter_add(0, torch.tensor(idx), torch.tensor(x))
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


@pytest.mark.parametrize("dims", [(0,), (1,), (0, 1), (-1, 0), ()])
def test_flip_matches_torch(dims):
    x = _RNG.standard_normal((3, 4)).astype(np.float32)
    for t, tt in ((strided.tensor(x), torch.tensor(x)), (strided.tensor(x).t(), torch.tensor(x).t()),
                  (strided.tensor(x)[:, 1:], torch.tensor(x)[:, 1:])):
        got, want = strided.flip(t, dims), torch.flip(tt, dims)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert got.stride() == tuple(want.stride())


def test_numpy_view_byte_strides_per_itemsize():
    # one element-stride tuple seen with several itemsizes: each view gets its own byte strides
    for dt in (strided.int8, strided.float16, strided.float32, strided.float64, strided.complex128):
        t = strided.zeros(3, 4, dtype=dt).t()
        assert t.numpy().strides == tuple(s * t.element_size() for s in t.stride())


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_stack_matches_torch(dim):
    x = _RNG.standard_normal((3, 4)).astype(np.float32)
    y = _RNG.standard_normal((4, 3)).astype(np.float64)
    cases = [
        ((strided.tensor(x), strided.tensor(x[::-1].copy())), (torch.tensor(x), torch.tensor(x[::-1].copy()))),
        ((strided.tensor(x), strided.tensor(y).t()), (torch.tensor(x), torch.tensor(y).t())),  # promoted, transposed
        ((strided.tensor(y).t()[:, 1:],) * 3, (torch.tensor(y).t()[:, 1:],) * 3),  # sliced, one input thrice
        ((strided.zeros(3, 0),) * 2, (torch.zeros(3, 0),) * 2),
    ]
    for ours, theirs in cases:
        got, want = strided.stack(ours, dim), torch.stack(theirs, dim)
        assert got.shape == tuple(want.shape) and got.stride() == tuple(want.stride())
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_stack_channels_last_matches_torch():
    x = torch.randn(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)
    s = strided.tensor(x.contiguous().numpy()).contiguous(memory_format=strided.channels_last)
    for dim in range(5):
        got, want = strided.stack([s, s], dim), torch.stack([x, x], dim)
        assert got.stride() == tuple(want.stride())
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("k", [-5, 0, 2])
def test_triangles_match_torch_twice(k):
    # twice: the second call takes the cached (read-only) mask, which must stay unchanged
    x = _RNG.standard_normal((2, 3, 5)).astype(np.float64)
    for rep in range(2):
        for op in ("triu", "tril"):
            for t, tt in ((strided.tensor(x), torch.tensor(x)),
                          (strided.tensor(x).transpose(1, 2), torch.tensor(x).transpose(1, 2))):
                got, want = getattr(strided, op)(t, k), getattr(torch, op)(tt, k)
                assert got.stride() == tuple(want.stride())
                np.testing.assert_array_equal(got.numpy(), want.numpy())
                if rep:  # (in place once: PyTorch's in-place triangle of a transposed tensor is slow)
                    continue
                inplace, want_ = t.clone(), tt.clone()
                getattr(inplace, op + "_")(k)
                getattr(want_, op + "_")(k)
                np.testing.assert_array_equal(inplace.numpy(), want_.numpy())


def test_same_dtype_copy_of_int_and_float_matches_torch():
    # the uncast copy skips the warnings guard: values (NaN, inf, extremes) come through unchanged
    for dt, tdt, vals in ((strided.float32, torch.float32, [np.nan, np.inf, -0.0, 3.4e38]),
                          (strided.int64, torch.int64, [-2**63, 2**63 - 1, 0, 5])):
        t, tt = strided.tensor(vals, dtype=dt), torch.tensor(vals, dtype=tdt)
        got, want = t.expand(2, 4).t().contiguous(), tt.expand(2, 4).t().contiguous()
        assert got.stride() == tuple(want.stride())
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("k", [-1, 0, 1, 2, 3, 5])
@pytest.mark.parametrize("dims", [(0, 1), (1, 0), (-1, 0), (0, 2)])
def test_rot90_matches_torch(k, dims):
    x = _RNG.standard_normal((2, 3, 4)).astype(np.float32)
    for t, tt in ((strided.tensor(x), torch.tensor(x)), (strided.tensor(x).transpose(0, 2), torch.tensor(x).transpose(0, 2))):
        got, want = strided.rot90(t, k, dims), torch.rot90(tt, k, dims)
        assert got.stride() == tuple(want.stride())
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_empty_strided_storage_and_errors_match_torch_twice():
    # twice: the second call takes the cached extent; a refused layout is refused every time
    for _ in range(2):
        for size, stride in (((2, 3), (1, 2)), ((2, 3), (4, 1)), ((3, 0), (5, 1)), ((4, 2), (0, 1))):
            got, want = strided.empty_strided(size, stride), torch.empty_strided(size, stride)
            assert got.stride() == tuple(want.stride())
            assert got.untyped_storage().nbytes() == want.untyped_storage().nbytes()
        for size, stride in (((2, 3), (-1, 1)), ((2, -3), (1, 1)), ((2**31, 2**31), (2**62, 1))):
            with pytest.raises(RuntimeError) as ours:
                strided.empty_strided(size, stride)
            with pytest.raises(RuntimeError) as theirs:
                torch.empty_strided(size, stride)
            assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce_views_match_torch(reduce):
    x = _RNG.standard_normal((4, 6)).astype(np.float64)
    src = _RNG.standard_normal((4, 6)).astype(np.float64)
    idx = _RNG.integers(0, 3, (4, 6))  # repeats: every reduction accumulates
    for include_self in (True, False):
        for view, tview in ((lambda t: t, lambda t: t), (lambda t: t[1:, 2:], lambda t: t[1:, 2:]),
                            (lambda t: t.t(), lambda t: t.t())):
            base, tbase = strided.tensor(x), torch.tensor(x)
            v, tv = view(base), tview(tbase)
            i = idx[: v.shape[0], : v.shape[1]]
            sv = strided.tensor(src[: v.shape[0], : v.shape[1]].copy())
            tsv = torch.tensor(src[: v.shape[0], : v.shape[1]].copy())
            got = v.scatter_reduce(1, strided.tensor(i), sv, reduce, include_self=include_self)
            want = tv.scatter_reduce(1, torch.tensor(i), tsv, reduce, include_self=include_self)
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=0)
            v.scatter_reduce_(1, strided.tensor(i), sv, reduce, include_self=include_self)
            tv.scatter_reduce_(1, torch.tensor(i), tsv, reduce, include_self=include_self)
            np.testing.assert_allclose(base.numpy(), tbase.numpy(), rtol=1e-12, atol=0)


def test_take_along_dim_views_match_torch():
    x = _RNG.standard_normal((5, 6)).astype(np.float32)
    idx = _RNG.integers(-6, 6, (5, 3))  # negative indices count from the end
    for t, tt in ((strided.tensor(x), torch.tensor(x)), (strided.tensor(x)[1:, 1:], torch.tensor(x)[1:, 1:])):
        i = idx[: t.shape[0]] % t.shape[1] - t.shape[1] * (idx[: t.shape[0]] < 0)
        for _ in range(2):
            got = strided.take_along_dim(t, strided.tensor(i), 1)
            want = torch.take_along_dim(tt, torch.tensor(i), 1)
            np.testing.assert_array_equal(got.numpy(), want.numpy())
