"""F.scaled_dot_product_attention and F.multi_head_attention_forward against torch.nn.functional:
values and gradients (masks bool and float, causal, scale, grouped heads, fully masked rows),
double backward, error classes and first lines."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided as st
import strided.nn.functional as F
from oracle_helpers import assert_same_tensor, same_error

TOL = {"float32": (2e-5, 2e-5), "float64": (1e-10, 1e-10)}
RNG = np.random.default_rng(28)


def pair(a: np.ndarray, grad: bool = True) -> tuple[torch.Tensor, st.Tensor]:
    t, s = torch.from_numpy(a.copy()), st.from_numpy(a.copy())
    return (t.requires_grad_(True), s.requires_grad_(True)) if grad else (t, s)


def rand(*shape: int, dtype: str = "float64") -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def masks(kind: str, L: int, S: int) -> tuple:
    if kind == "bool":
        m = RNG.random((L, S)) > 0.3
        m[1] = False  # a row with nothing to attend to: zeros, as PyTorch's safe softmax
        return pair(m, False)
    if kind == "float":
        return pair(rand(L, S), False)
    return None, None


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mask,causal,scale,gqa", [("none", False, None, False), ("bool", False, 0.3, False),
                                                  ("float", False, None, True), ("none", True, None, False)])
def test_sdpa_values_and_gradients(mask, causal, scale, gqa, dtype):
    L, S = 4, (4 if causal else 5)
    (tq, sq), (tk, sk), (tv, sv) = pair(rand(2, 4, L, 3, dtype=dtype)), *(
        pair(rand(2, 2 if gqa else 4, S, 3, dtype=dtype)) for _ in range(2))
    tm, sm = masks(mask, L, S)
    if tm is not None and tm.dtype != torch.bool:
        tm, sm = tm.to(tq.dtype), sm.to(sq.dtype)
    kw = {"is_causal": causal, "scale": scale, "enable_gqa": gqa}
    ty = TF.scaled_dot_product_attention(tq, tk.transpose(-1, -2).contiguous().transpose(-1, -2), tv,
                                         attn_mask=tm, **kw)
    sy = F.scaled_dot_product_attention(sq, sk.transpose(-1, -2).contiguous().transpose(-1, -2), sv,
                                        attn_mask=sm, **kw)
    assert_same_tensor(sy.detach(), ty.detach(), TOL, strides=False)
    g = rand(*ty.shape, dtype=dtype)
    tg = torch.autograd.grad(ty, (tq, tk, tv), torch.from_numpy(g), create_graph=True)
    sg = st.autograd.grad(sy, (sq, sk, sv), st.from_numpy(g), create_graph=True)
    for s_, t_ in zip(sg, tg):
        assert_same_tensor(s_.detach(), t_.detach(), TOL, strides=False)
    t2 = torch.autograd.grad((tg[0] ** 2).sum(), (tk,))
    s2 = st.autograd.grad((sg[0] ** 2).sum(), (sk,))
    assert_same_tensor(s2[0], t2[0], {"float32": (1e-4, 1e-4), "float64": (1e-9, 1e-9)}, strides=False)


def test_sdpa_dropout_one_and_errors():
    (tq, sq) = pair(rand(2, 3, 4), False)
    assert not F.scaled_dot_product_attention(sq, sq, sq, dropout_p=1.0).numpy().any()
    tk, sk = pair(rand(2, 5, 3), False)
    same_error(lambda: TF.scaled_dot_product_attention(tq, tk, tk), lambda: F.scaled_dot_product_attention(sq, sk, sk))
    same_error(lambda: TF.scaled_dot_product_attention(tq, tq.float(), tq),
               lambda: F.scaled_dot_product_attention(sq, sq.float(), sq))
    t1, s1 = pair(rand(4), False)
    same_error(lambda: TF.scaled_dot_product_attention(t1, t1, t1), lambda: F.scaled_dot_product_attention(s1, s1, s1))
    tm, sm = pair(np.ones((3, 3), bool), False)
    same_error(lambda: TF.scaled_dot_product_attention(tq, tq, tq, attn_mask=tm, is_causal=True),
               lambda: F.scaled_dot_product_attention(sq, sq, sq, attn_mask=sm, is_causal=True))


@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("batched,extras", [(True, False), (False, False), (True, True)])
def test_multi_head_attention_forward(need_weights, average, batched, extras):
    E, H, L, S, N = 6, 2, 3, 4, 2
    lead = (N,) if batched else ()
    (tq, sq) = pair(rand(L, *lead, E))
    (tk, sk), (tv, sv) = pair(rand(S, *lead, E)), pair(rand(S, *lead, E))
    (tw, sw), (tb, sb) = pair(rand(3 * E, E)), pair(rand(3 * E))
    (tow, sow), (tob, sob) = pair(rand(E, E)), pair(rand(E))
    kw_t: dict = {"need_weights": need_weights, "average_attn_weights": average, "training": False}
    kw_s = dict(kw_t)
    bias_t = bias_s = (None, None)
    if extras:  # bias_k/bias_v, a zero attention slot, a key padding mask and a bool attn_mask
        (tbk, sbk), (tbv, sbv) = pair(rand(1, 1, E)), pair(rand(1, 1, E))
        bias_t, bias_s = (tbk, tbv), (sbk, sbv)
        kpm = RNG.random((N, S)) > 0.7
        kpm[:, 0] = False
        am = RNG.random((L, S)) > 0.8
        am[:, 0] = False
        kw_t.update(key_padding_mask=torch.from_numpy(kpm), attn_mask=torch.from_numpy(am))
        kw_s.update(key_padding_mask=st.from_numpy(kpm), attn_mask=st.from_numpy(am))
    to, tw_ = TF.multi_head_attention_forward(tq, tk, tv, E, H, tw, tb, *bias_t, extras, 0.0, tow, tob, **kw_t)
    so, sw_ = F.multi_head_attention_forward(sq, sk, sv, E, H, sw, sb, *bias_s, extras, 0.0, sow, sob, **kw_s)
    assert_same_tensor(so.detach(), to.detach(), TOL, strides=False)
    if need_weights:
        assert_same_tensor(sw_.detach(), tw_.detach(), TOL, strides=False)
    else:
        assert sw_ is None and tw_ is None
    wrt_t, wrt_s = [tq, tk, tv, tw, tb, tow, tob], [sq, sk, sv, sw, sb, sow, sob]
    g = rand(*to.shape)
    tg = torch.autograd.grad(to, wrt_t, torch.from_numpy(g))
    sg = st.autograd.grad(so, wrt_s, st.from_numpy(g))
    for s_, t_ in zip(sg, tg):
        assert_same_tensor(s_, t_, TOL, strides=False)
