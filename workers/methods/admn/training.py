"""ADMN's two training stages (Sec. 3.2 and 3.3) and batched inference.

Stage 1, multimodal LayerDrop: backbones and fusion head are trained with every block of every
modality dropped independently per sample with probability p (p = 0 trains the static
full-depth network). Stage 2: backbones and head are frozen; the controller is trained end to
end through the Gumbel top-L straight-through mask with the task loss plus the corruption-aware
loss (MSE of the predicted per-modality corruption level).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn

from workers.methods.admn.network import ADMN

Callback = Callable[[str, int, float], None]  # (stage, epoch, mean loss); may raise to cancel


def _batches(n: int, batch_size: int, g: torch.Generator) -> list[torch.Tensor]:
    return list(torch.randperm(n, generator=g).split(batch_size))


def _check(views: Sequence[torch.Tensor], y: torch.Tensor) -> None:
    if any(v.shape[0] != y.shape[0] for v in views):
        raise ValueError("views: every modality needs one row per label in y")


def train_backbones(
    net: ADMN,
    views: Sequence[torch.Tensor],
    y: torch.Tensor,
    *,
    epochs: int = 30,
    lr: float = 3e-3,
    batch_size: int = 64,
    layerdrop_p: float = 0.5,
    seed: int = 0,
    callback: Callback | None = None,
) -> list[float]:
    """Stage 1: cross-entropy with per-sample LayerDrop masks Bernoulli(1 - p)."""
    if not 0.0 <= layerdrop_p < 1.0:
        raise ValueError(f"layerdrop_p: must lie in [0, 1), got {layerdrop_p}")
    _check(views, y)
    g = torch.Generator().manual_seed(seed)
    params = [p for n, p in net.named_parameters() if not n.startswith("controller.")]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=1e-4)
    n_layers = sum(net.layers)
    net.train()
    history = []
    for epoch in range(epochs):
        total = 0.0
        for idx in _batches(len(y), batch_size, g):
            keep = (torch.rand(len(idx), n_layers, generator=g) >= layerdrop_p).float().to(y.device)
            loss = nn.functional.cross_entropy(net.fuse([v[idx] for v in views], keep), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        history.append(total / len(y))
        if callback:
            callback("layerdrop", epoch, history[-1])
    return history


def train_controller(
    net: ADMN,
    views: Sequence[torch.Tensor],
    y: torch.Tensor,
    corruption: torch.Tensor | None = None,
    *,
    epochs: int = 30,
    lr: float = 3e-3,
    batch_size: int = 64,
    aux_weight: float = 1.0,
    seed: int = 0,
    callback: Callback | None = None,
) -> list[float]:
    """Stage 2: train only the controller (frozen backbones) through Gumbel top-L (ST).

    corruption: (N, M) per-sample corruption level of each modality, for the auxiliary loss
    (skipped when None or aux_weight == 0).
    """
    _check(views, y)
    g = torch.Generator().manual_seed(seed)
    for name, p in net.named_parameters():
        p.requires_grad_(name.startswith("controller."))
    opt = torch.optim.AdamW(net.controller.parameters(), lr=lr, weight_decay=1e-4)
    history = []
    try:
        for epoch in range(epochs):
            # Backbones stay in training mode (dense, mask-weighted residuals) so that the
            # straight-through gradient reaches the mask; they have no dropout or batch norm.
            net.train()
            total = 0.0
            for idx in _batches(len(y), batch_size, g):
                logits, _, noise = net([v[idx] for v in views])
                loss = nn.functional.cross_entropy(logits, y[idx])
                if corruption is not None and aux_weight > 0:
                    loss = loss + aux_weight * nn.functional.mse_loss(noise, corruption[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += float(loss.detach()) * len(idx)
            history.append(total / len(y))
            if callback:
                callback("controller", epoch, history[-1])
    finally:
        for p in net.parameters():
            p.requires_grad_(True)
    return history


@torch.no_grad()
def predict(
    net: ADMN,
    views: Sequence[torch.Tensor],
    mask: torch.Tensor | None = None,
    batch_size: int = 512,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Eval-mode predictions (sparse execution) and the layer masks used. `mask` None lets the
    controller choose; otherwise a fixed (N, sum L_m) mask (the static baselines)."""
    net.eval()
    preds, masks = [], []
    for start in range(0, views[0].shape[0], batch_size):
        sl = slice(start, start + batch_size)
        logits, m, _ = net([v[sl] for v in views], None if mask is None else mask[sl])
        preds.append(logits.argmax(-1))
        masks.append(m)
    return torch.cat(preds), torch.cat(masks)
