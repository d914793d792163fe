"""Hostile checks of session 19's small-size fast paths against PyTorch (layouts, edge values).

Each case runs the op on a layout a fast path may mishandle (transposed, flipped, offset,
stepped, expanded) and asserts PyTorch's exact bits, dtype and shape.
"""

import numpy as np
import pytest
import torch

import strided as st

LAYOUTS = {
    "plain": lambda t: t,
    "T": lambda t: t.t(),
    "flip": lambda t: t.flip(-1),
    "off": lambda t: t[1:],
    "step": lambda t: t[:, ::2],
    "expand": lambda t: t[:1].expand_as(t),
}


def _pair(a, layout):
    f = LAYOUTS[layout]
    return f(torch.from_numpy(a.copy())), f(st.from_numpy(a.copy()))


def _same(want, got):
    want = want if isinstance(want, (tuple, list)) else [want]
    got = got if isinstance(got, (tuple, list)) else [got]
    assert len(want) == len(got)
    for w, g in zip(want, got):
        wn, gn = w.detach().numpy(), g.detach().numpy()
        assert wn.dtype == gn.dtype and wn.shape == gn.shape
        np.testing.assert_array_equal(gn, wn)


OPS = {
    "gather": lambda m, t: m.gather(t, 1, m.tensor([[1, 0], [2, 2], [0, 1]])),
    "index_select": lambda m, t: m.index_select(t, 1, m.tensor([2, 0, 1, 2], dtype=m.int32)),
    "index_fill_": lambda m, t: t.clone().index_fill_(1, m.tensor([-1]), 7.0),
    "masked_fill": lambda m, t: t.masked_fill(t > 0, 2.5),
    "masked_fill_bcast": lambda m, t: t.masked_fill(t[0] > 0, -1.0),
    "nonzero": lambda m, t: m.nonzero(t > 0),
    "isin": lambda m, t: m.isin(t, t[:, 0]),
    "where": lambda m, t: m.where(t > 0, t, t.flip(0)),
    "searchsorted": lambda m, t: m.searchsorted(m.sort(t.reshape(-1))[0], t, right=True),
    "argmax0": lambda m, t: m.argmax(t, 0),
    "max0": lambda m, t: tuple(m.max(t, 0)),
    "kthvalue": lambda m, t: tuple(m.kthvalue(t, 2, 0)),
    "cummax": lambda m, t: tuple(m.cummax(t, 0)),
    "unique": lambda m, t: m.unique(t),
    "roll": lambda m, t: m.roll(t, (1, -2), (0, 1)),
    "rot90": lambda m, t: m.rot90(t, 1, (0, 1)),
    "diag_embed": lambda m, t: m.diag_embed(t, 1),
    "stack": lambda m, t: m.stack([t, t.flip(0)], 1),
    "leaky_relu_": lambda m, t: m.nn.functional.leaky_relu_(t.clone(), 0.2),
    "trace": lambda m, t: m.trace(t),
}


@pytest.mark.filterwarnings("ignore:torch.searchsorted")
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("op", sorted(OPS))
def test_fast_paths_on_odd_layouts_match_torch(op, layout):
    rng = np.random.default_rng(19)
    a = rng.standard_normal((4, 6))
    a[1, 0] = -0.0
    a[2, 3] = a[0, 3]  # a tie for the selections
    t, s = _pair(a, layout)
    _same(OPS[op](torch, t), OPS[op](st, s))


def test_median_of_expanded_input_is_the_row():
    # PyTorch's own median along dim 0 of an expanded (zero-stride) tensor is wrong (2.x: it
    # reads the storage as if contiguous); strided answers as for the materialised copy.
    a = np.arange(12.0).reshape(3, 4)
    s = st.from_numpy(a)[:1].expand(3, 4)
    np.testing.assert_array_equal(st.median(s, 0).values.numpy(), a[0])


def test_random_streams_follow_the_seed_on_every_sampler():
    def draw():
        st.manual_seed(5)
        out = [st.empty(3, 4).normal_(), st.empty(16, 16, dtype=st.float64).exponential_(),
               st.empty(3, 4).geometric_(0.3), st.empty(3, 4).cauchy_(), st.empty(3, 4).log_normal_(),
               st.empty(3, 4).random_(0, 100), st.empty(3, 4).bernoulli_(0.3), st.randperm(16),
               st.randint(-5, 1000, (3, 4))]
        return [o.numpy().tobytes() for o in out]

    first = draw()
    st.randn(7)  # a draw in between must not leak into the next seeded stream
    assert draw() == first


def test_in_place_activation_refuses_leaf_and_inference_tensor():
    x = st.randn(3, 4, requires_grad=True)
    with pytest.raises(RuntimeError):
        st.nn.functional.leaky_relu_(x)
    with pytest.raises(RuntimeError):
        st.nn.functional.elu_(x)
    with st.inference_mode():
        it = st.randn(3, 4)
    with pytest.raises(RuntimeError):
        st.nn.functional.leaky_relu_(it)


def test_float64_softmax_non_last_dim_bits():
    # (fixed on day 25: _vec_softmax over Vectorized<double>, SLEEF's expd in its vector branch and
    # the C library's exp in its scalar loop, as float32's)
    a = np.random.default_rng(19).standard_normal((4, 6))
    _same(torch.softmax(torch.from_numpy(a), 0), st.softmax(st.from_numpy(a), 0))


@pytest.mark.parametrize("shape,dim", [((33, 17), 0), ((5, 129), 0), ((1, 7), 0), ((3, 40, 5), 1), ((7, 9, 20), 0),
                                       ((6, 130), 0), ((64, 33, 9), 1), ((2, 5, 7, 3), 2), ((40000, 3), 0)])
@pytest.mark.parametrize("transposed", [False, True])
def test_float64_softmax_non_last_dim_bit_for_bit(shape, dim, transposed, torch_threads_as_assumed):
    a = np.random.default_rng(19).standard_normal(shape) * 3
    a.flat[3], a.flat[5], a.flat[6] = -np.inf, 1e-310, -0.0
    if transposed and a.ndim == 2:
        s, t = st.from_numpy(np.ascontiguousarray(a.T)).t(), torch.from_numpy(np.ascontiguousarray(a.T)).t()
    else:
        s, t = st.from_numpy(a), torch.from_numpy(a)
    got, want = st.softmax(s, dim), torch.softmax(t, dim)
    assert got.stride() == want.stride()
    assert got.numpy().tobytes() == want.numpy().tobytes()
