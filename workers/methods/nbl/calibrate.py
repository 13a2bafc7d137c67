"""Collect NBL's calibration statistics from a model with forward hooks, and pick layers."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

import torch
from torch import nn

from workers.methods.nbl.linear_fit import LayerStats, cca_bound, fit_lmmse
from workers.methods.nbl.modules import decoder_layers


@torch.no_grad()
def collect_layer_stats(
    model: nn.Module,
    batches: Iterable[torch.Tensor],
    layers: Sequence[int] | None = None,
    *,
    device: str | torch.device = "cpu",
) -> dict[int, LayerStats]:
    """Run `batches` of input ids through `model` and accumulate (X, Y) statistics per layer.

    X is the input of `input_layernorm` (the residual stream entering the attention block,
    before its RMSNorm), Y the output of `self_attn` (after o_proj). This is the official
    code's `layer_drop_norm=True` setting: the replacement h + W h + b then takes the place of
    norm and attention together, and needs no normalisation of its own.
    """
    all_layers = decoder_layers(model)
    layers = list(range(len(all_layers))) if layers is None else list(layers)
    d = model.config.hidden_size
    stats = {i: LayerStats(d) for i in layers}
    pending: dict[int, torch.Tensor] = {}
    handles = []
    for i in layers:
        layer = all_layers[i]

        def pre_hook(_module, args, i=i):
            pending[i] = args[0]

        def post_hook(_module, _args, output, i=i):
            y = output[0] if isinstance(output, tuple) else output
            stats[i].update(pending.pop(i), y)

        handles.append(layer.input_layernorm.register_forward_pre_hook(pre_hook))
        handles.append(layer.self_attn.register_forward_hook(post_hook))
    model.eval()
    try:
        for batch in batches:
            model(input_ids=batch.to(device), use_cache=False)
    finally:
        for h in handles:
            h.remove()
    return stats


def layer_scores(stats: dict[int, LayerStats], ridge: float = 1e-6) -> dict[int, dict]:
    """Per layer: CCA bound, MSE bound, LMMSE fit (W, b), LLM-Drop cosine similarity."""
    out = {}
    for i, s in stats.items():
        cca = cca_bound(s)
        W, b = fit_lmmse(s, ridge)
        out[i] = {
            "cca_bound": cca.bound,
            "mse_bound": cca.mse_bound,
            "rho": cca.rho,
            "W": W,
            "b": b,
            "cosine": s.mean_cosine,
        }
    return out


def select_layers(
    scores: dict[int, dict], k: int, criterion: str = "cca_bound", *, seed: int = 0
) -> list[int]:
    """The k layers to replace.

    cca_bound / mse_bound: lowest bound first (NBL). cosine: highest cos(X, X+Y) first, i.e. the
    blocks that change the residual stream least (LLM-Drop). random: a seeded random subset.
    """
    layers = sorted(scores)
    if not 0 <= k <= len(layers):
        raise ValueError(f"k: must be between 0 and {len(layers)}, got {k}")
    if criterion in ("cca_bound", "mse_bound"):
        order = sorted(layers, key=lambda i: scores[i][criterion])
    elif criterion == "cosine":
        order = sorted(layers, key=lambda i: -scores[i]["cosine"])
    elif criterion == "random":
        order = layers[:]
        random.Random(seed).shuffle(order)
    else:
        raise ValueError(f"criterion: unknown {criterion!r} (cca_bound, mse_bound, cosine, random)")
    return sorted(order[:k])
