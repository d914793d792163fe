"""cdist against torch.cdist (every p, every compute_mode, batched and broadcast, empty), its
errors, and its memory: the (P, R, M) broadcast of the differences is never built."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
import torch

import strided as st
from oracle_helpers import compare, same_error
from strided.ops.linalg.distance import CHUNK_BYTES, cdist

MODES = ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"]
TOL = {"float32": (1e-4, 1e-4), "float64": (1e-9, 1e-9)}


@pytest.mark.parametrize("p", [0, 1, 2, 3.5, 0.5, math.inf])
@pytest.mark.parametrize("shapes", [((7, 3), (9, 3)), ((40, 5), (30, 5)), ((2, 1, 6, 4), (3, 8, 4)),
                                    ((0, 3), (4, 3)), ((4, 0), (5, 0))])
def test_cdist_matches_torch(p, shapes):
    rng = np.random.default_rng(len(shapes[0]))
    a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    a[..., :1] = np.round(a[..., :1])  # (equal coordinates, so p=0 counts something)
    b[..., :1] = np.round(b[..., :1])
    for mode in MODES:
        compare(lambda: torch.cdist(torch.from_numpy(a), torch.from_numpy(b), p, mode),  # noqa: B023
                lambda: cdist(st.tensor(a), st.tensor(b), p, mode), TOL)  # noqa: B023


def test_cdist_reads_non_contiguous_and_expanded_inputs_in_place():
    x = torch.randn(6, 5)
    y = torch.randn(1, 5).expand(4, 5)
    sx, sy = st.tensor(x.numpy()), st.tensor(y[:1].numpy()).expand(4, 5)
    compare(lambda: torch.cdist(x.T[:, ::2].T.contiguous(), y), lambda: cdist(sx.T[:, ::2].T, sy), TOL)
    compare(lambda: torch.cdist(x.float()[::2], y.float(), 1.0), lambda: cdist(sx[::2], sy, 1.0), TOL)
    with st.record_copies() as copies:
        cdist(sx.T[:, ::2].T, sy, 3.0)
    assert list(copies) == []


def test_cdist_errors():
    a, b = torch.ones(4, 3), torch.ones(5, 3)
    sa, sb = st.ones(4, 3), st.ones(5, 3)
    same_error(lambda: torch.cdist(a, b.double()), lambda: cdist(sa, sb.to(st.float64)))
    same_error(lambda: torch.cdist(a.long(), b.long()), lambda: cdist(sa.to(st.int64), sb.to(st.int64)))
    same_error(lambda: torch.cdist(a, torch.ones(5, 4)), lambda: cdist(sa, st.ones(5, 4)))
    same_error(lambda: torch.cdist(a, b, p=-1), lambda: cdist(sa, sb, p=-1))
    same_error(lambda: torch.cdist(torch.ones(3), b), lambda: cdist(st.ones(3), sb))
    same_error(lambda: torch.cdist(a, b, compute_mode="foo"), lambda: cdist(sa, sb, compute_mode="foo"))
    same_error(lambda: torch.cdist(a.half(), b.half()), lambda: cdist(sa.to(st.float16), sb.to(st.float16)))


@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist_if_necessary", "donot_use_mm_for_euclid_dist"])
def test_cdist_peak_memory_stays_far_below_the_broadcast(mode):
    """(2000, 2) x (2000, 2) float64: the output is 32 MB (30.5 MiB) and the textbook broadcast
    formula's (2000, 2000, 2) difference 64 MB; strided's extra memory must stay under 16 MB."""
    rng = np.random.default_rng(0)
    a, b = st.tensor(rng.standard_normal((2000, 2))), st.tensor(rng.standard_normal((2000, 2)))
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        out = cdist(a, b, compute_mode=mode)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    extra = peak - out.nbytes
    assert out.nbytes == 2000 * 2000 * 8
    assert extra < 16 * 10**6, f"{extra / 1e6:.1f} MB beyond the output"
    assert extra <= CHUNK_BYTES + 10**6  # (one block of differences at a time)
    rows = a.numpy()[::97]  # (a sample of rows, against the broadcast formula)
    want = np.sqrt(((rows[:, None] - b.numpy()[None]) ** 2).sum(-1))
    np.testing.assert_allclose(out.numpy()[::97], want, atol=1e-9)
    print(f"cdist {mode}: {extra / 2**20:.2f} MiB beyond the {out.nbytes / 2**20:.1f} MiB output")
