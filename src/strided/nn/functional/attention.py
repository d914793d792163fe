"""Attention: ``F.scaled_dot_product_attention`` and ``F.multi_head_attention_forward`` (the function
``nn.MultiheadAttention`` calls), with PyTorch 2.13's signatures, shapes and errors (class and
first line).

Both are compositions of strided's recording ops (matmul, softmax, where, dropout, linear), as
PyTorch's CPU math path is: the gradients (and their gradients) are those ops' rules, and
``strided.watch()`` shows each step and each copy. The scores matrix (..., L, S) is the one
intermediate of attention's size, as in PyTorch's math path.

# Note: PyTorch's CPU math path is composite too (its last node is UnsafeViewBackward0 for a
# 4-D query); strided's last node is the last matmul's.

>>> q = strided.ones(1, 2, 3, 4)
>>> F.scaled_dot_product_attention(q, q, q, is_causal=True).shape
(1, 2, 3, 4)
"""

from __future__ import annotations

import math
from typing import Any

from ...dtypes import CPP_NAME, TORCH_NAME, bool_
from ...errors import StridedRuntimeError, join_lines
from ...ops.elementwise.unary import where
from ...tensor import Tensor, tensor_arg
from .activations import softmax
from .layers import dropout, linear

__all__ = ["multi_head_attention_forward", "scaled_dot_product_attention"]


def _float_mask(mask: Tensor, dtype: Any) -> Tensor:
    """A boolean mask (True: take part) as the additive mask PyTorch's math path makes: 0 or -inf."""
    from ...creation import full, zeros

    return where(mask, zeros((), dtype=dtype), full((), float("-inf"), dtype=dtype))


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(query @ key^T * scale + mask) @ value`` over the last two dims (batch dims
    broadcast): query (..., L, E), key (..., S, E), value (..., S, Ev) give (..., L, Ev).
    ``scale`` defaults to ``1 / sqrt(E)``; ``attn_mask`` is boolean (True: take part) or added;
    ``is_causal`` masks the upper triangle; a row with every key masked gives zeros (PyTorch's
    safe softmax); ``enable_gqa`` repeats each key/value head for a group of query heads.

    >>> q = strided.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    >>> F.scaled_dot_product_attention(q, q, strided.tensor([[[1.0], [3.0]]])).shape
    (1, 2, 1)
    """
    for t, name, pos in ((query, "query", 1), (key, "key", 2), (value, "value", 3)):
        tensor_arg(t, "scaled_dot_product_attention", name, pos)
    if not (query._dtype is key._dtype is value._dtype):
        raise StridedRuntimeError(join_lines(
            f"Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{TORCH_NAME[query._dtype.name].lower()} key.dtype: {TORCH_NAME[key._dtype.name].lower()} and "
            f"value.dtype: {TORCH_NAME[value._dtype.name].lower()} instead.",
            "fix: convert them to one dtype: key.to(query.dtype)"))
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise StridedRuntimeError(join_lines(
            f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: {query.ndim} "
            f"key.dim: {key.ndim} and value.dim: {value.ndim} instead.",
            "attention reads (..., L, E) queries against (..., S, E) keys"))
    if is_causal and attn_mask is not None:
        raise StridedRuntimeError(join_lines(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True",
            "is_causal is the lower-triangular mask; fold it into attn_mask, or drop attn_mask"))
    d = query._dtype
    L, S = query.shape[-2], key.shape[-2]
    if enable_gqa and query.ndim >= 3 and key.ndim >= 3:
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hq % hk or hq % hv:
            raise StridedRuntimeError(join_lines(
                "Number of heads in key and value must divide the number of heads in ",
                f"the query has {hq} heads, the key {hk} and the value {hv}"))
        key, value = _repeat_heads(key, hq // hk), _repeat_heads(value, hq // hv)
    mask = attn_mask
    if mask is not None:
        tensor_arg(mask, "scaled_dot_product_attention", "attn_mask", 4)
        if mask._dtype is not bool_ and mask._dtype is not d:
            raise StridedRuntimeError(join_lines(
                f"Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
                f"{CPP_NAME[mask._dtype.name]} and  query.dtype: {CPP_NAME[d.name]} instead.",
                "a boolean mask says which keys take part; any other mask is added to the scores in their dtype",
                f"fix: attn_mask.to(strided.{d.name}), or a boolean mask"))
    s = 1 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    if s >= 0:
        # PyTorch's math path scales the query and the key by sqrt(scale) each (the same rounding)
        factor = math.sqrt(s)
        scores = (query * factor).matmul(key.transpose(-2, -1) * factor)
    else:  # (no real square root: the scores themselves are scaled, as PyTorch's kernels do)
        scores = query.matmul(key.transpose(-2, -1)) * s
    if is_causal:
        from ...creation import ones

        mask = ones((L, S), dtype=bool_).tril()
    if mask is not None:
        scores = scores + (_float_mask(mask, d) if mask._dtype is bool_ else mask)
    # PyTorch's safe softmax: a row whose every score is -inf (every key masked, by a boolean or a
    # float mask, or -inf in the inputs) gives zeros and a zero gradient, not NaN
    dead = (scores == float("-inf")).all(-1, keepdim=True)
    if dead.any():
        weights = where(dead, 0.0, softmax(where(dead, 0.0, scores), -1))
    else:  # (the common case: no row to mend, no two more passes over the scores)
        weights = softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p)
    return weights.matmul(value)


def _repeat_heads(t: Tensor, n: int) -> Tensor:
    """``t.repeat_interleave(n, -3)`` (each head ``n`` times in a row) as an expand and a reshape."""
    if n == 1:
        return t
    shape = t.shape
    return t.unsqueeze(-3).expand(*shape[:-2], n, *shape[-2:]).reshape(*shape[:-3], shape[-3] * n, *shape[-2:])


def _mha_mask(mask: Tensor | None, dtype: Any, name: str) -> Tensor | None:
    """PyTorch's _canonical_mask: a boolean mask (True: masked out) as -inf/0; a float mask as is."""
    if mask is None:
        return None
    tensor_arg(mask, "multi_head_attention_forward", name)
    if mask._dtype is bool_:
        return _float_mask(mask.logical_not(), dtype)
    if not mask._dtype.is_floating_point:
        raise StridedRuntimeError(join_lines(
            f"only bool and floating types of {name} are supported",
            f"{name} is {mask._dtype.name}: True (or -inf) masks a position out"))
    return mask


def _pad_last(t: Tensor | None) -> Tensor | None:
    """``t`` with one more position on its last dim (0: attended): ``F.pad(t, (0, 1))``."""
    from ...ops.shape.padding import pad

    return None if t is None else pad(t, (0, 1))


def multi_head_attention_forward(
        query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
        in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None, bias_v: Tensor | None,
        add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Tensor | None,
        training: bool = True, key_padding_mask: Tensor | None = None, need_weights: bool = True,
        attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False, q_proj_weight: Tensor | None = None,
        k_proj_weight: Tensor | None = None, v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
        static_v: Tensor | None = None, average_attn_weights: bool = True, is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention as ``torch.nn.functional.multi_head_attention_forward``: query (L, N, E)
    (or unbatched (L, E)), key and value (S, N, E); returns the output (L, N, E) and, with
    ``need_weights``, the attention weights (N, L, S) averaged over heads (or (N, H, L, S)).

    >>> x = strided.ones(3, 1, 4)
    >>> out, w = F.multi_head_attention_forward(x, x, x, 4, 2, strided.ones(12, 4), None, None, None, False,
    ...                                         0.0, strided.ones(4, 4), None)
    >>> out.shape, w.shape
    ((3, 1, 4), (1, 3, 3))
    """
    from ...ops.shape.joining import cat

    batched = query.ndim == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    if embed_dim != embed_dim_to_check:
        raise StridedRuntimeError(join_lines(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}",
            f"the query's last dim is its embedding: shape {query.shape}"))
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise StridedRuntimeError(join_lines(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}",
                                             "each head takes embed_dim / num_heads features"))
    if is_causal and attn_mask is None:
        raise StridedRuntimeError(join_lines(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask.", "pass the causal mask as attn_mask"))
    d = query._dtype
    key_padding_mask = _mha_mask(key_padding_mask, d, "key_padding_mask")
    attn_mask = _mha_mask(attn_mask, d, "attn_mask")
    bq = bk = bv = None
    if in_proj_bias is not None:
        bq, bk, bv = in_proj_bias.chunk(3)
    if not use_separate_proj_weight:
        assert in_proj_weight is not None
        wq, wk, wv = in_proj_weight.chunk(3)
    else:
        wq, wk, wv = q_proj_weight, k_proj_weight, v_proj_weight
    q, k, v = linear(query, wq, bq), linear(key, wk, bk), linear(value, wv, bv)
    if attn_mask is not None and attn_mask.ndim == 2:
        attn_mask = attn_mask.unsqueeze(0)
    if bias_k is not None and bias_v is not None:
        k = cat([k, bias_k.expand(1, bsz, embed_dim)])
        v = cat([v, bias_v.expand(1, bsz, embed_dim)])
        attn_mask, key_padding_mask = _pad_last(attn_mask), _pad_last(key_padding_mask)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = (k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_k is None else static_k)
    v = (v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_v is None else static_v)
    if add_zero_attn:
        from ...creation import zeros

        k = cat([k, zeros((bsz * num_heads, 1, head_dim), dtype=d)], 1)
        v = cat([v, zeros((bsz * num_heads, 1, head_dim), dtype=d)], 1)
        attn_mask, key_padding_mask = _pad_last(attn_mask), _pad_last(key_padding_mask)
    src_len = k.shape[1]
    if key_padding_mask is not None:
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
        kpm = kpm.reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    if need_weights:
        scores = (q * math.sqrt(1.0 / head_dim)).matmul(k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = softmax(scores, -1)
        if dropout_p > 0.0:
            weights = dropout(weights, dropout_p)
        out = weights.matmul(v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        attn_mask = attn_mask.reshape(bsz, num_heads, -1, src_len) if attn_mask.shape[0] != 1 else \
            attn_mask.unsqueeze(0)
    q4 = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k4 = k.reshape(bsz, num_heads, src_len, head_dim)
    v4 = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q4, k4, v4, attn_mask, dropout_p, is_causal=False)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
    return (out if batched else out.squeeze(1)), None
