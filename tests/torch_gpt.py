"""A small GPT-style transformer written with ``torch.nn``, for the ``watch_torch`` tests and bench.

Token + position embedding, causal self-attention with the head split and merge
``(B, T, C) -> (B, h, T, d) -> (B, T, C)``, an MLP, layer norms and a cross-entropy loss. Two bugs
can be planted: a head split by ``view(B, h, T, d)`` (legal, scrambles the heads) and a
``(B, 1) - (B,)`` broadcast in the loss. The marker comments name lines the tests look up.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    def __init__(self, C: int, heads: int, T: int, planted_view: bool) -> None:
        super().__init__()
        self.heads, self.planted_view = heads, planted_view
        self.q, self.k, self.v = nn.Linear(C, C), nn.Linear(C, C), nn.Linear(C, C)
        self.proj = nn.Linear(C, C)
        self.register_buffer("mask", torch.tril(torch.ones(T, T)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        h, d = self.heads, C // self.heads
        if self.planted_view:
            q = self.q(x).view(B, h, T, d)  # MARK: planted view
        else:
            q = self.q(x).view(B, T, h, d).transpose(1, 2)  # MARK: head split
        k = self.k(x).view(B, T, h, d).transpose(1, 2)
        v = self.v(x).view(B, T, h, d).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * d ** -0.5
        att = att.masked_fill(self.mask[:T, :T] == 0, float("-inf")).softmax(dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # MARK: head merge
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, C: int, heads: int, T: int, planted_view: bool) -> None:
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(C), nn.LayerNorm(C)
        self.attn = Attention(C, heads, T, planted_view)
        self.mlp = nn.Sequential(nn.Linear(C, 4 * C), nn.GELU(), nn.Linear(4 * C, C))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab: int = 32, C: int = 16, heads: int = 4, T: int = 8, layers: int = 2,
                 planted_view: bool = False, planted_broadcast: bool = False) -> None:
        super().__init__()
        self.planted_broadcast = planted_broadcast
        self.wte, self.wpe = nn.Embedding(vocab, C), nn.Embedding(T, C)
        self.h = nn.ModuleList(Block(C, heads, T, planted_view) for _ in range(layers))
        self.ln_f = nn.LayerNorm(C)
        self.lm_head = nn.Linear(C, vocab, bias=False)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        B, T = idx.shape
        x = self.wte(idx) + self.wpe(torch.arange(T, device=idx.device))
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        loss = F.cross_entropy(logits.view(B * T, -1), targets.view(B * T))
        if self.planted_broadcast:
            score = logits.mean(dim=(1, 2)).unsqueeze(1)  # (B, 1)
            wanted = targets.float().mean(dim=1)  # (B,)
            loss = loss + 0.01 * ((score - wanted) ** 2).mean()  # MARK: planted broadcast
        return loss


def batch(model: GPT, B: int = 2, T: int = 8, vocab: int = 32, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids and targets for ``model`` (deterministic)."""
    g = torch.Generator().manual_seed(seed)
    return torch.randint(vocab, (B, T), generator=g), torch.randint(vocab, (B, T), generator=g)


def known_program() -> None:
    """A small program with every kind of step, for the exact-report and table snapshot tests."""
    a = torch.ones(1000)
    b = a * 2
    del a
    c = b.reshape(10, 100).t().contiguous()  # asked: contiguous() of a transpose
    x = torch.ones(4, 3)
    y = x.t().reshape(12)  # hidden: the reshape cannot be a view
    z = torch.cat([x, x])  # an allocation, not a copy
    e = torch.ones(3).expand(4, 3).contiguous()  # asked, and materializes an expand
    x[0] = torch.zeros(3)  # asked: copy_ into part of x
    q = torch.ones(3, 2, 4, 5).transpose(0, 1) @ torch.ones(5, 6)  # hidden: matmul folds q's batch dims
    d = (x.double() + torch.ones(4, 1)).view(2, 2, 3)  # dtype conversion; a one-sided broadcast
    del b, c, y, z, e, q, d
