"""float32 ``exp2`` / ``logaddexp2`` after session 42's AVX-512 change (align42), bit for bit.

The sixteen-lane ``xexp2f`` (``sleef_exp2f16`` in ``_sleefkernel.c``, shared by exp2 and
logaddexp2) now scales its polynomial by ``scalef(u, rint(d))`` instead of vldexp2's two integer
factors, and exp2's loop runs four unmasked vectors a step before its masked sixteen-lane tail.
Checked here: the AVX-512 form against the plain C form and the AVX2 form (``run``'s ``form``
argument: each path this CPU has) over a sweep of float32 words; every element position of the
new step (lengths around 64, specials at each place) against PyTorch; hypothesis layouts
(permuted, sliced, expanded, 0-d, zero-size) against PyTorch's values and strides; logaddexp2
likewise; the avx2 and default capabilities in subprocesses.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
from capability_runs import PRELUDE, no_bad_under
from strided.kernels import native

needs_kernel = pytest.mark.skipif(native.sleef() is None, reason="the sleef kernel is not built")


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view({4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _same(got: strided.Tensor, want: torch.Tensor) -> None:
    assert tuple(got.shape) == tuple(want.shape)
    assert tuple(got.stride()) == tuple(want.stride())
    g, w = _bits(np.asarray(got)), _bits(want.numpy())
    bad = np.nonzero(g != w)
    assert not bad[0].size, (bad[0][:5], g[bad][:5], w[bad][:5])


def _specials() -> np.ndarray:
    """NaN words (quiet, signalling, payloads, both signs), +-0, +-inf, the denormal inputs, and
    exp2's edges (128 overflow, 127.5 rounding to 128, -126 / -149 / -150 the normal, denormal and
    underflow edges, -149.5 a tie) with their float neighbours."""
    words = np.array([0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFFC12345, 0x7F800001, 0xFF812345, 0x7FBFFFFF,
                      0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x00000001, 0x80000001,
                      0x007FFFFF, 0x807FFFFF, 0x7F7FFFFF, 0xFF7FFFFF], np.uint32).view(np.float32)
    edges = np.array([128, 127.5, 127, 126.5, 64, 1, 0.5, -0.5, -1, -125.5, -126, -126.5, -127, -148.5, -149,
                      -149.5, -150, -150.5, -151, 1e30, -1e30], np.float32)
    return np.concatenate([words, edges, np.nextafter(edges, np.float32(np.inf)),
                           np.nextafter(edges, np.float32(-np.inf))]).astype(np.float32)


@needs_kernel
@pytest.mark.parametrize("form", [2, 0])
def test_avx512_form_equals_other_forms_on_a_word_sweep(form: int) -> None:
    """Every 509th float32 word (all exponents, both signs, NaN payloads) through the AVX-512 form
    and through ``form`` (2: AVX2 + FMA, 0: the plain C lanes, vldexp2's integer factors): the same
    bits. A wrong scalef (the scale, a rounding twice, a NaN's payload) shows here without PyTorch."""
    from strided.kernels.sleef import EXP2
    k = native.sleef()
    x = np.arange(3, 2**32, 509, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x = np.concatenate([x, _specials()])
    wide, other = np.empty_like(x), np.empty_like(x)
    if not k.run(x, wide, EXP2, 0, 0, 32, 1):
        pytest.skip("no AVX-512F on this CPU: the sixteen-lane form does not run")
    if not k.run(x, other, EXP2, 0, 0, 32, form):
        pytest.skip(f"form {form} does not run on this CPU")
    assert np.array_equal(_bits(wide), _bits(other))


@needs_kernel
def test_every_place_of_the_four_vector_step_bits() -> None:
    """Lengths 0..200 (the 64-element step, the masked sixteen-lane tail, PyTorch's scalar last
    len % 32), each special at every place of a 70-element row."""
    rng = np.random.default_rng(42)
    for n in range(0, 201):
        x = (rng.standard_normal(n) * 60).astype(np.float32)
        _same(strided.exp2(strided.from_numpy(x)), torch.exp2(torch.from_numpy(x)))
    sp = _specials()
    base = (rng.standard_normal(70) * 3).astype(np.float32)
    for place in range(70):
        rows = np.repeat(base[None], len(sp), 0)
        rows[:, place] = sp
        for row in rows[::7]:  # (a sample of the specials at each place; the whole set at a few)
            _same(strided.exp2(strided.from_numpy(row.copy())), torch.exp2(torch.from_numpy(row.copy())))
    for place in (0, 15, 16, 31, 47, 63):
        for v in sp:
            row = base.copy()
            row[place] = v
            _same(strided.exp2(strided.from_numpy(row)), torch.exp2(torch.from_numpy(row.copy())))


@needs_kernel
@pytest.mark.usefixtures("torch_threads_as_assumed")  # (past 32768 elements PyTorch's chunks follow its threads)
def test_large_row_and_transpose_bits() -> None:
    """The bench's rows: a (1024, 1024) float32 tensor, contiguous and transposed, at a spread that
    reaches the overflow and underflow edges."""
    x = (np.random.default_rng(1).standard_normal((1024, 1024)) * 60).astype(np.float32)
    s, t = strided.from_numpy(x), torch.from_numpy(x)
    _same(strided.exp2(s), torch.exp2(t))
    _same(strided.exp2(s.t()), torch.exp2(t.t()))
    _same(strided.logaddexp2(s, s.t()), torch.logaddexp2(t, t.t()))


_WORDS = st.one_of(
    st.integers(0, 2**32 - 1),
    st.sampled_from([int(w) for w in _specials().view(np.uint32)]),
    st.floats(-160, 140, width=32).map(lambda f: int(np.float32(f).view(np.uint32))),
)


@st.composite
def _layouts(draw: st.DrawFn) -> tuple[np.ndarray, object]:
    """(float32 data, a view function taking a strided or torch tensor): permuted, sliced, expanded,
    0-d and zero-size layouts over a small base."""
    rows, cols = draw(st.integers(0, 9)), draw(st.integers(0, 70))
    words = draw(st.lists(_WORDS, min_size=rows * cols, max_size=rows * cols))
    data = np.array(words, np.uint64).astype(np.uint32).view(np.float32).reshape(rows, cols)
    kind = draw(st.sampled_from(["same", "t", "cols2", "rows_rev", "expand", "zero_d", "empty", "slice"]))
    if kind == "zero_d" and rows and cols:
        i, j = draw(st.integers(0, rows - 1)), draw(st.integers(0, cols - 1))
        return data, lambda a: a[i, j]
    if kind == "expand" and cols:
        j, k = draw(st.integers(0, cols - 1)), draw(st.integers(0, 40))
        return data, lambda a: a[:, j:j + 1].expand(rows, k)
    views = {"same": lambda a: a, "t": lambda a: a.t(), "cols2": lambda a: a[:, ::2],
             "rows_rev": lambda a: a.flip(0), "empty": lambda a: a[:, :0], "slice": lambda a: a[1:, 3:],
             "zero_d": lambda a: a, "expand": lambda a: a}
    return data, views[kind]


@needs_kernel
@settings(max_examples=150, deadline=None)
@given(_layouts())
def test_exp2_layouts_bits(case: tuple[np.ndarray, object]) -> None:
    data, view = case
    _same(strided.exp2(view(strided.from_numpy(data.copy()))), torch.exp2(view(torch.from_numpy(data.copy()))))


@needs_kernel
@settings(max_examples=100, deadline=None)
@given(_layouts(), st.integers(0, 2**32 - 1))
def test_logaddexp2_layouts_bits(case: tuple[np.ndarray, object], seed: int) -> None:
    """logaddexp2(a, b) of a hypothesis layout and a same-shape partner (its exp2(-|a - b|) is the
    changed sixteen-lane function)."""
    data, view = case
    a_s, a_t = view(strided.from_numpy(data.copy())), view(torch.from_numpy(data.copy()))
    other = np.asarray(np.random.default_rng(seed).standard_normal(tuple(a_t.shape)) * 30, np.float32)
    _same(strided.logaddexp2(a_s, strided.from_numpy(other)), torch.logaddexp2(a_t, torch.from_numpy(other)))


_CAPABILITY_SCRIPT = PRELUDE + """
words = np.arange(5, 2**32, 65521, dtype=np.uint64).astype(np.uint32).view(np.float32)
for n in list(range(0, 70)) + [1000, 40001]:
    x = (rng.standard_normal(n) * 60).astype(np.float32)
    bad += differ(strided.exp2(strided.from_numpy(x)), torch.exp2(torch.from_numpy(x)))
bad += differ(strided.exp2(strided.from_numpy(words)), torch.exp2(torch.from_numpy(words)))
a = (rng.standard_normal(5003) * 40).astype(np.float32)
b = (rng.standard_normal(5003) * 40).astype(np.float32)
bad += differ(strided.logaddexp2(strided.from_numpy(a), strided.from_numpy(b)),
              torch.logaddexp2(torch.from_numpy(a), torch.from_numpy(b)))
print("BAD", bad, torch.backends.cpu.get_cpu_capability())
"""


@needs_kernel
@pytest.mark.parametrize("capability", ["avx2", "default"])
def test_other_capabilities_bits(capability: str) -> None:
    """Under ATEN_CPU_CAPABILITY=avx2 (strided's eight-lane form) and default (the scalar form),
    which the AVX-512 change leaves as they were."""
    no_bad_under(capability, _CAPABILITY_SCRIPT)
