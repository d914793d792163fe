"""float16/bfloat16 add/sub with alpha= against torch, bit for bit, at every length and layout.

PyTorch's CPU kernel fmadds in float32 over whole 32-element steps of a row and computes its
scalar loop (a row's last len % 32 elements; every element of a row that is neither contiguous
nor contiguous-but-one-broadcast) as self + alpha * other with the product rounded to the
reduced type first (strided.kernels.torch_loops). Before, strided followed the vector rule
everywhere: about 4% of elements of random lengths were an ulp off."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels.torch_loops import torch_threads

DTYPES = ["float16", "bfloat16"]


def _pair(values, dt):
    t = torch.tensor(values, dtype=torch.float32).to(getattr(torch, dt))
    return t, strided.tensor(values, dtype=strided.float32).to(getattr(strided, dt))


def _bits(t):
    return (t.float().numpy() if isinstance(t, torch.Tensor) else t.to(strided.float32).numpy()).view(np.uint32)


def _check(tt, st):
    assert tuple(tt.shape) == st.shape and tt.stride() == st.stride()
    np.testing.assert_array_equal(_bits(tt), _bits(st))


@pytest.mark.parametrize("dt", DTYPES)
def test_every_length_matches_torch(dt):
    rng = np.random.default_rng(0)
    for n in list(range(1, 100)) + [127, 128, 129, 1000, 4097]:
        a, sa = _pair(rng.standard_normal(n), dt)
        b, sb = _pair(rng.standard_normal(n), dt)
        for alpha in (0.3, -1.7, 3):
            _check(torch.add(a, b, alpha=alpha), strided.add(sa, sb, alpha=alpha))
            _check(torch.sub(a, b, alpha=alpha), strided.sub(sa, sb, alpha=alpha))
            _check(a.clone().add_(b, alpha=alpha), sa.clone().add_(sb, alpha=alpha))


LAYOUTS = [
    ("rows", lambda x, y: (x, y)),
    ("broadcast row", lambda x, y: (x, y[0])),
    ("broadcast column", lambda x, y: (x, y[:, :1])),
    ("number", lambda x, y: (x, 1.37)),
    ("0-d", lambda x, y: (x, y[0, 0])),
    ("transposed", lambda x, y: (x.t(), y.t())),
    ("one transposed", lambda x, y: (x.t(), y.t().contiguous())),
    ("every other", lambda x, y: (x[:, ::2], y[:, ::2])),
    ("column slice", lambda x, y: (x[:, 1:], y[:, 1:])),
    ("broadcast first", lambda x, y: (x[:1], y)),
    ("3-d", lambda x, y: (x.reshape(3, 2, -1), y.reshape(3, 2, -1)[:, :1])),
]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name,make", LAYOUTS, ids=[n for n, _ in LAYOUTS])
def test_layouts_match_torch(dt, name, make):
    rng = np.random.default_rng(1)
    for cols in (40, 70):
        x, sx = _pair(rng.standard_normal((6, cols)), dt)
        y, sy = _pair(rng.standard_normal((6, cols)), dt)
        ta, tb = make(x, y)
        sa, sb = make(sx, sy)
        for alpha in (0.3, -1.7):
            _check(torch.add(ta, tb, alpha=alpha), strided.add(sa, sb, alpha=alpha))
            _check(torch.sub(ta, tb, alpha=alpha), strided.sub(sa, sb, alpha=alpha))
            if tuple(ta.shape) == tuple(torch.broadcast_shapes(ta.shape, getattr(tb, "shape", ()))):
                _check(ta.clone().add_(tb, alpha=alpha), sa.clone().add_(sb, alpha=alpha))
                tc, sc = ta.mT.clone().mT, sa.mT.clone().mT  # a column-major target
                _check(tc.add_(tb, alpha=alpha), sc.add_(sb, alpha=alpha))


@pytest.mark.parametrize("dt", DTYPES)
def test_parallel_chunks_match_torch(dt):
    """At 32768 elements or more PyTorch splits the range among its threads; each chunk has its
    own scalar tail (strided assumes torch_threads() threads: the comparison runs torch with that)."""
    before = torch.get_num_threads()
    torch.set_num_threads(torch_threads())
    try:
        rng = np.random.default_rng(2)
        for n in (32768, 33000, 65606, 100003):
            a, sa = _pair(rng.standard_normal(n), dt)
            b, sb = _pair(rng.standard_normal(n), dt)
            _check(torch.add(a, b, alpha=0.3), strided.add(sa, sb, alpha=0.3))
    finally:
        torch.set_num_threads(before)


def _mask_by_element(numel: int, row: int, chunks: int, step: int = 32) -> np.ndarray:
    """The scalar loop's elements by the definition, element by element: each piece (a row cut
    at the chunks' starts) ends in its last ``length % step`` elements."""
    flat = np.arange(numel, dtype=np.int64)
    chunk = -(-numel // chunks)
    c0 = flat - flat % chunk
    start = np.maximum(flat - flat % row, c0)
    end = np.minimum(flat - flat % row + row, np.minimum(c0 + chunk, numel))
    return flat >= end - (end - start) % step


@pytest.mark.parametrize("threads", [2, 3, 5, 8])
def test_the_piecewise_mask_is_the_definition(threads):
    """scalar_loop_mask finds the pieces' tails per piece (a per-element computation took ~30 ms
    for 1M elements): the same mask as the definition, rows long and short, chunks cutting rows."""
    from strided.kernels.torch_loops import scalar_loop_mask

    # (shape, an input's strides (rows spaced apart stay rows; contiguous ones merge), the row)
    for shape, strides, row in (((1024, 1024), (1024, 1), 1 << 20), ((1000, 77), (80, 1), 77),
                                ((40000, 3), (4, 1), 3), ((3, 40000), (40001, 1), 40000),
                                ((70001,), (1,), 70001), ((33, 1025), (1030, 1), 1025)):
        numel = int(np.prod(shape))
        got = scalar_loop_mask(shape, strides, True, [(shape, strides)], threads=threads)
        chunks = min(threads, -(-numel // 32768)) if numel >= 32768 else 1
        want = _mask_by_element(numel, row, chunks)
        assert np.array_equal(np.zeros(numel, bool) if got is None else got.reshape(-1), want), (shape, threads)
