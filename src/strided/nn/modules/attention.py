"""``nn.MultiheadAttention``: PyTorch's parameters (a packed ``in_proj_weight`` (3E, E) when
query, key and value share ``embed_dim``, else ``q_proj_weight`` / ``k_proj_weight`` /
``v_proj_weight``), its initialization (xavier_uniform_ projections, zero biases) and its
forward, which calls ``F.multi_head_attention_forward`` with PyTorch's arguments
(``batch_first`` inputs are transposed to sequence-first around it, as PyTorch does).

>>> import strided.nn as nn
>>> mha = nn.MultiheadAttention(8, 2, batch_first=True)
>>> [name for name, _ in mha.named_parameters()]
['in_proj_weight', 'in_proj_bias', 'out_proj.weight', 'out_proj.bias']
"""

from __future__ import annotations

from typing import Any

from ...errors import StridedValueError
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ._factory import new_parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["MultiheadAttention"]


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of ``embed_dim // num_heads`` features each."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: Any = None, dtype: Any = None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise StridedValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} "
                                    f"and num_heads={num_heads} instead")
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        assert self.head_dim * num_heads == self.embed_dim, "embed_dim must be divisible by num_heads"
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = new_parameter(embed_dim, embed_dim, **kw)
            self.k_proj_weight = new_parameter(embed_dim, self.kdim, **kw)
            self.v_proj_weight = new_parameter(embed_dim, self.vdim, **kw)
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = new_parameter(3 * embed_dim, embed_dim, **kw)
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = new_parameter(3 * embed_dim, **kw)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = new_parameter(1, 1, embed_dim, **kw)
            self.bias_v = new_parameter(1, 1, embed_dim, **kw)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
                need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        """``(attn_output, attn_weights)``: weights averaged over the heads when
        ``average_attn_weights``, None unless ``need_weights``."""
        is_batched = query.dim() == 3
        if self.batch_first and is_batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = {} if self._qkv_same_embed_dim else {
            "use_separate_proj_weight": True, "q_proj_weight": self.q_proj_weight,
            "k_proj_weight": self.k_proj_weight, "v_proj_weight": self.v_proj_weight}
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, average_attn_weights=average_attn_weights, is_causal=is_causal, **separate)
        if self.batch_first and is_batched:
            return out.transpose(1, 0), weights
        return out, weights
