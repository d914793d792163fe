"""Session 34, xfa34: divergences from PyTorch fixed, each checked bit for bit against torch.

1. hardsigmoid / hardswish NaN words: PyTorch's vector lanes write the all-ones NaN word
   (``Vectorized`` maximum's), its scalar tail and strided rows keep the input's NaN.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as F

_WORDS = {2: (torch.int16, strided.int16), 4: (torch.int32, strided.int32), 8: (torch.int64, strided.int64)}
_TDT = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16, "bfloat16": torch.bfloat16}


def _words_t(t: torch.Tensor) -> np.ndarray:
    return t.contiguous().view(_WORDS[t.element_size()][0]).numpy()


def _words_s(s: strided.Tensor) -> np.ndarray:
    return np.asarray(s.contiguous().view(_WORDS[s.element_size()][1]).numpy())


def _nan_input(n: int, dtype: str, seed: int) -> tuple[torch.Tensor, strided.Tensor]:
    """``n`` values of ``dtype``, about half NaNs with a payload bit (not the default NaN)."""
    rng = np.random.default_rng(seed)
    t = torch.tensor(rng.standard_normal(n) * 4, dtype=torch.float32).to(_TDT[dtype])
    t[torch.from_numpy(rng.random(n) < 0.5)] = float("nan")
    w = t.view(_WORDS[t.element_size()][0])
    w[torch.isnan(t)] |= 1
    s = strided.from_numpy(w.numpy().copy()).view(getattr(strided, dtype))
    return t, s


def _apply(F_, name: str, x, layout: str, n: int):
    f = getattr(F_, name)
    if layout == "flat":
        return f(x)
    if layout == "slice":
        return f(x[::2])
    if layout == "T":
        return f(x.reshape(2, n // 2).T)
    if layout == "expand0d":
        return f(x[0])
    c = x.clone() if layout == "inplace" else x.clone().reshape(2, n // 2).T
    r = f(c, inplace=True)
    assert r is c
    return c


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("name", ["hardsigmoid", "hardswish"])
@pytest.mark.parametrize("layout", ["flat", "slice", "T", "inplace", "inplaceT", "expand0d"])
def test_hard_activation_nan_words(name: str, dtype: str, layout: str) -> None:
    for n in [2, 8, 16, 18, 32, 34, 48, 64, 66, 96, 130, 258]:
        t, s = _nan_input(n, dtype, n)
        want, got = _apply(TF, name, t, layout, n), _apply(F, name, s, layout, n)
        assert tuple(want.shape) == tuple(got.shape) and want.stride() == got.stride()
        np.testing.assert_array_equal(_words_s(got), _words_t(want), err_msg=f"{name} {dtype} {layout} {n}")


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["hardsigmoid", "hardswish"])
def test_hard_activation_nan_words_beyond_the_grain(name: str, dtype: str) -> None:
    """Past PyTorch's parallel grain (32768): the NumPy forward and the lanes by loop positions."""
    t, s = _nan_input(40003, dtype, 7)
    np.testing.assert_array_equal(_words_s(getattr(F, name)(s)), _words_t(getattr(TF, name)(t)))
    np.testing.assert_array_equal(_words_s(getattr(F, name)(s[:-3].reshape(-1, 8)[:, :5])),
                                  _words_t(getattr(TF, name)(t[:-3].reshape(-1, 8)[:, :5])))


def test_hard_activation_nan_words_in_autograd() -> None:
    """The recording entry (an input that requires grad) gives the same words as torch's."""
    t, s = _nan_input(48, "float32", 3)
    for name in ("hardsigmoid", "hardswish"):
        want = getattr(TF, name)(t.clone().requires_grad_())
        got = getattr(F, name)(s.clone().requires_grad_())
        np.testing.assert_array_equal(_words_s(got.detach()), _words_t(want.detach()))
