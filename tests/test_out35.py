"""Differential tests (vs PyTorch) of out35: logsumexp's float16 NaN word of a complex input's
negative sum, std/var's zero-degrees-of-freedom warning text, Adam/AdamW's foreach=True /
fused=True taken as PyTorch's CPU optimizers take them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided  # noqa: E402


@pytest.mark.parametrize("shape,dim,keepdim", [((3, 4), 1, False), ((5, 2, 3), (0, 2), True), ((4,), 0, False),
                                               ((2, 33), 1, True), ((6,), (), False)])
@pytest.mark.parametrize("odt", ["float16", "bfloat16"])
def test_logsumexp_complex_into_half_out_nan_words(shape, dim, keepdim, odt) -> None:
    """A complex input's real parts can sum below 0: PyTorch's float16 out holds 0x7FFF there
    (was 0x7E00), bfloat16 its own words."""
    rng = np.random.default_rng(len(shape) + (1 if keepdim else 0))
    a = (rng.standard_normal(shape) * 3 + 1j * rng.standard_normal(shape) * 3).astype(np.complex64)
    if dim == ():
        dim = 0
    words = []
    for L in (torch, strided):
        o = L.empty((0,), dtype=getattr(L, odt))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            L.logsumexp(L.from_numpy(a.copy()), dim, keepdim, out=o)
        words.append((o.view(L.int16).numpy().copy(), tuple(o.shape), tuple(o.stride())))
    np.testing.assert_array_equal(words[1][0], words[0][0])
    assert words[1][1:] == words[0][1:]


def test_logsumexp_complex_negative_sum_float16_word() -> None:
    a = np.array([[1j * np.pi, 0.5 + 1j * np.pi], [0.0, 1.0]], np.complex64)  # (row 0's real parts sum < 0)
    words = []
    for L in (torch, strided):
        o = L.empty((2,), dtype=L.float16)
        with warnings.catch_warnings():  # (PyTorch's casting warning is once per process)
            warnings.simplefilter("ignore")
            L.logsumexp(L.from_numpy(a.copy()), 1, out=o)
        words.append(o.view(L.int16).numpy().view(np.uint16).copy())
    np.testing.assert_array_equal(words[1], words[0])
    assert words[0][0] == 0x7FFF


@pytest.mark.parametrize("fn", ["std", "var"])
@pytest.mark.parametrize("how", ["function", "method"])
def test_std_var_zero_dof_warns_as_torch(fn: str, how: str) -> None:
    a = np.ones((1, 3), np.float32)
    msgs = []
    for L in (torch, strided):
        x = L.from_numpy(a.copy())
        with pytest.warns(UserWarning) as rec:
            r = getattr(L, fn)(x, 0) if how == "function" else getattr(x, fn)(0)
        msgs.append(([str(w.message).split(" (Triggered")[0] for w in rec if "degrees of freedom" in str(w.message)],
                     r.numpy().tobytes()))
    assert msgs[1] == msgs[0] and msgs[0][0]


def test_adam_fused_with_foreach_refused_as_torch() -> None:
    for L in (torch, strided):
        p = L.nn.Parameter(L.ones(2))
        with pytest.raises(RuntimeError, match="^`fused` and `foreach` cannot be `True` together.$"):
            L.optim.Adam([p], foreach=True, fused=True)
        L.optim.AdamW([p], fused=True)
        L.optim.AdamW([p], foreach=True)
