"""Projections from audio-encoder tokens to the decoder's embedding space (the paper ablates them).

* ``linear``: one affine map, as LLaVA-1 and Pengi-style prefixes.
* ``mlp``: Mellow's projection: h1 = W1 x; h2 = Dropout(W2 GELU(h1)); out = LayerNorm(h1 + h2)
  (two bias-free linear maps with a residual and layer norm).

`downsample` then keeps the clip latent and average-pools the time tokens by `pool`, as Mellow
does before building the prefix (the paper pools HTSAT's tokens by 8).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class LinearProjection(nn.Module):
    def __init__(self, d_in: int, d_out: int) -> None:
        super().__init__()
        self.linear = nn.Linear(d_in, d_out)
        nn.init.xavier_uniform_(self.linear.weight)
        nn.init.zeros_(self.linear.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x)


class MLPProjection(nn.Module):
    def __init__(self, d_in: int, d_out: int, dropout: float = 0.5) -> None:
        super().__init__()
        self.linear1 = nn.Linear(d_in, d_out, bias=False)
        self.linear2 = nn.Linear(d_out, d_out, bias=False)
        self.drop = nn.Dropout(dropout)
        self.layer_norm = nn.LayerNorm(d_out)
        nn.init.xavier_uniform_(self.linear1.weight)
        nn.init.xavier_uniform_(self.linear2.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h1 = self.linear1(x)
        return self.layer_norm(h1 + self.drop(self.linear2(F.gelu(h1))))


def build_projection(kind: str, d_in: int, d_out: int, dropout: float = 0.5) -> nn.Module:
    if kind == "linear":
        return LinearProjection(d_in, d_out)
    if kind == "mlp":
        return MLPProjection(d_in, d_out, dropout)
    raise ValueError(f"projection must be 'linear' or 'mlp', got {kind!r}")


def downsample(tokens: torch.Tensor, pool: int) -> torch.Tensor:
    """(B, 1 + T, d) -> (B, 1 + ceil(T / pool), d): clip latent kept, time tokens averaged."""
    if pool <= 1:
        return tokens
    clip, rest = tokens[:, :1], tokens[:, 1:]
    pooled = F.avg_pool1d(rest.transpose(1, 2), pool, pool, ceil_mode=True).transpose(1, 2)
    return torch.cat([clip, pooled], dim=1)
