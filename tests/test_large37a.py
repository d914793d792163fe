"""Complex sgn of a permuted dense tensor (a transpose, a 3-D permutation) takes the fast path's flat
pass over its memory run (large37a: 1M complex64 transposed ~6.9 -> ~3.9 ms, torch's ~3.9): the
same bits as the general path (scalar_loop_mask's model of PyTorch's loops, reached here through
``out=``), and as the contiguous tensor with the same memory run; PyTorch's strides; PyTorch's
values where the two libraries share the formula (finite parts, see test_sgn_native)."""

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native

SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 1e-320, 3.0, 1e30, -2.5])


def _memory(shape, dtype, seed, specials=True):
    """A contiguous complex array of ``shape`` with magnitudes over many decades (and specials)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    re = rng.standard_normal(n) * np.exp(rng.uniform(-40, 40, n))
    im = rng.standard_normal(n) * np.exp(rng.uniform(-40, 40, n))
    if specials:
        k = min(n, 64)
        pos = rng.choice(n, k, replace=False)
        re[pos], im[pos] = rng.choice(SPECIALS, k), rng.choice(SPECIALS, k)
    with np.errstate(all="ignore"):
        return (re + 1j * im).astype(dtype).reshape(shape)


CASES = [((5, 7), (1, 0)), ((300, 217), (1, 0)), ((1024, 1024), (1, 0)), ((4, 6, 5), (2, 0, 1)),
         ((3, 40, 300), (1, 2, 0))]


def _bits(t):
    return np.ascontiguousarray(t.numpy()).tobytes()  # (a bitwise copy: NaN payloads kept)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("shape,perm", CASES)
def test_sgn_permuted_same_bits_as_general_path(dtype, shape, perm):
    mem = _memory(shape, dtype, seed=sum(shape))
    x = st.tensor(mem).permute(*perm)
    got = x.sgn()
    assert got.stride() == torch.tensor(mem).permute(*perm).sgn().stride()
    general = st.empty_like(x)
    st.sgn(x, out=general)  # (out=: the general path, PyTorch's loops modelled per element)
    assert got.stride() == general.stride()
    assert _bits(got) == _bits(general)
    # the same memory run, contiguous: the same bits in the same places
    flat = st.tensor(mem).sgn()
    assert _bits(got.permute(*np.argsort(perm))) == _bits(flat)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_sgn_permuted_kernels_off(dtype):
    mem = _memory((300, 217), dtype, seed=3)
    x = st.tensor(mem).t()
    with native.disabled():
        slow = x.sgn()
        general = st.empty_like(x)
        st.sgn(x, out=general)
    assert _bits(slow) == _bits(general) == _bits(x.sgn())


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_sgn_permuted_torch_values(dtype):
    mem = _memory((64, 48), dtype, seed=5, specials=False)
    mem[0, :3] = 0
    got = st.tensor(mem).t().sgn()
    want = torch.tensor(mem).t().sgn()
    assert got.stride() == want.stride()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-7 if dtype == np.complex64 else 1e-15, atol=0)
    assert (got.numpy()[:3, 0] == 0).all()


def test_sgn_edge_layouts():
    """Shapes the flat pass must not take (or takes trivially): empty, 0-d, a size-1 dim, a slice
    (not dense), an expanded tensor: each equal to the general path, bit for bit."""
    mem = _memory((6, 8), np.complex64, seed=7)
    base = st.tensor(mem)
    for x in (st.tensor(np.zeros((0, 3), np.complex64)).t(), st.tensor(np.complex64(1 - 2j)), base[:1].t(),
              base.t()[::2], base[2].expand(5, 8).t(), base[:, 1:].t()):
        got = x.sgn()
        general = st.empty_like(x)
        st.sgn(x, out=general)
        assert got.shape == general.shape and _bits(got.contiguous()) == _bits(general.contiguous())
        want = torch.tensor(x.numpy()).sgn()
        assert got.shape == tuple(want.shape)


# ---- F.logsigmoid of a non-row-major input: the blocked transposing copy before the compiled pass

def _float_memory(shape, dtype, seed):
    """Floats of both signs over many decades, with NaN words (payloads, both signs), +-0, +-inf,
    subnormals and huge values scattered in."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    v = (rng.standard_normal(n) * np.exp(rng.uniform(-8, 8, n))).astype(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-40, 3e38, -3e38, 88.5, -104.0],
                        dtype)
    k = min(n, 200)
    v[rng.choice(n, k, replace=False)] = rng.choice(specials, k)
    bits = v.view(np.uint32 if dtype == np.float32 else np.uint64)
    nan_word = np.array([0xFFC00001, 0x7F800123], np.uint32) if dtype == np.float32 else \
        np.array([0xFFF8000000000001, 0x7FF0000000000123], np.uint64)
    bits[rng.choice(n, 4, replace=False)] = rng.choice(nan_word, 4)
    return v.reshape(shape)


LOGSIGMOID_CASES = [((96, 80), lambda t: t.t()), ((300, 217), lambda t: t.t()),
                    ((6, 40, 50), lambda t: t.permute(2, 0, 1)), ((128, 96), lambda t: t.t()[::2]),
                    ((64, 70), lambda t: t[:, 3:].t()), ((1, 5000), lambda t: t.t())]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", range(len(LOGSIGMOID_CASES)))
def test_logsigmoid_non_row_major_bits(dtype, case):
    import strided.nn.functional as F

    shape, view = LOGSIGMOID_CASES[case]
    mem = _float_memory(shape, dtype, seed=case)
    x = view(st.tensor(mem))
    got = F.logsigmoid(x)
    want = torch.nn.functional.logsigmoid(view(torch.tensor(mem)))
    assert got.stride() == want.stride()
    assert _bits(got) == np.ascontiguousarray(want.numpy()).tobytes()
    # the row-major copy of the same values: the same bits (an element's value is its own)
    assert _bits(got) == _bits(F.logsigmoid(x.contiguous()))


def test_logsigmoid_small_and_empty():
    import strided.nn.functional as F

    for arr in (np.zeros((0, 4), np.float32), np.float32(-2.5), _float_memory((7, 3), np.float32, 9)):
        x = st.tensor(arr)
        x = x.t() if x.ndim == 2 else x
        got = F.logsigmoid(x)
        want = torch.nn.functional.logsigmoid(torch.tensor(arr).t() if np.ndim(arr) == 2 else torch.tensor(arr))
        assert got.shape == tuple(want.shape)
        assert _bits(got) == np.ascontiguousarray(want.numpy()).tobytes()
