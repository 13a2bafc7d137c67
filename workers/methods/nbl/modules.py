"""Swapping attention blocks of a Llama-family `transformers` model for their NBL replacement.

A decoder layer computes h <- h + Attn(Norm(h)). `LinearAttentionBlock` makes that
h <- h + W h + b (Sec. 3: X is the pre-norm residual stream, so the RMSNorm is absorbed into the
linear map and replaced by the identity), `DroppedAttentionBlock` makes it h <- h (LLM-Drop).
Neither keeps a KV cache: the layer's entry in `config.layer_types` is set to a kind
`transformers` allocates no cache for, so `DynamicCache` holds a `DummyLayer` there.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch
from torch import nn

# `transformers` maps these layer types to a DummyLayer in DynamicCache (no keys/values stored)
_NO_CACHE_LAYER_TYPE = "mlp"


class LinearAttentionBlock(nn.Module):
    """Stands in for `self_attn`: returns (W x + b, None) with x the (un-normalised) residual stream."""

    def __init__(self, W: torch.Tensor, b: torch.Tensor) -> None:
        super().__init__()
        d_out, d_in = W.shape
        if b.shape != (d_out,):
            raise ValueError(f"b must have shape ({d_out},), got {tuple(b.shape)}")
        self.linear = nn.Linear(d_in, d_out, bias=True)
        with torch.no_grad():
            self.linear.weight.copy_(W)
            self.linear.bias.copy_(b)

    def forward(self, hidden_states: torch.Tensor, *args, **kwargs) -> tuple[torch.Tensor, None]:
        return self.linear(hidden_states), None


class DroppedAttentionBlock(nn.Module):
    """Stands in for `self_attn` in LLM-Drop: the attention branch contributes nothing."""

    def forward(self, hidden_states: torch.Tensor, *args, **kwargs) -> tuple[torch.Tensor, None]:
        return torch.zeros_like(hidden_states), None


def decoder_layers(model: nn.Module) -> nn.ModuleList:
    """The decoder layers of a Llama-family causal LM (`model.model.layers`)."""
    inner = getattr(model, "model", model)
    layers = getattr(inner, "layers", None)
    if layers is None:
        raise TypeError(
            f"{type(model).__name__} has no `.model.layers`: not a Llama-family causal LM"
        )
    return layers


def _mark_no_cache(model: nn.Module, index: int) -> None:
    config = model.config
    n = config.num_hidden_layers
    types = list(getattr(config, "layer_types", None) or ["full_attention"] * n)
    types[index] = _NO_CACHE_LAYER_TYPE
    config.layer_types = types


def linearize_layers(
    model: nn.Module, fits: dict[int, tuple[torch.Tensor, torch.Tensor]]
) -> nn.Module:
    """Replace, in place, the attention of each layer in `fits` by h <- h + W h + b."""
    layers = decoder_layers(model)
    ref = next(model.parameters())
    for i, (W, b) in fits.items():
        layer = layers[i]
        layer.self_attn = LinearAttentionBlock(W.to(ref.dtype), b.to(ref.dtype)).to(ref.device)
        layer.input_layernorm = (
            nn.Identity()
        )  # X is the pre-norm stream: the norm is part of the fit
        _mark_no_cache(model, i)
    return model


def drop_attention_layers(model: nn.Module, indices: Iterable[int]) -> nn.Module:
    """Remove, in place, the attention branch of each layer in `indices` (LLM-Drop)."""
    layers = decoder_layers(model)
    for i in indices:
        layers[i].self_attn = DroppedAttentionBlock()
        layers[i].input_layernorm = nn.Identity()
        _mark_no_cache(model, i)
    return model
