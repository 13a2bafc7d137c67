"""Calibration and distance metrics for predictive distributions (n, C)."""

from __future__ import annotations

import torch


def nll(p: torch.Tensor, y: torch.Tensor) -> float:
    return float(-torch.log(p[torch.arange(len(y)), y].clamp(min=1e-12)).mean())


def accuracy(p: torch.Tensor, y: torch.Tensor) -> float:
    return float((p.argmax(1) == y).double().mean())


def ece(p: torch.Tensor, y: torch.Tensor, n_bins: int = 15) -> float:
    """Expected calibration error of the top-class confidence, equal-width bins."""
    conf, pred = p.max(1)
    correct = (pred == y).double()
    bins = torch.clamp((conf * n_bins).long(), max=n_bins - 1)
    total = 0.0
    for b in range(n_bins):
        mask = bins == b
        if mask.any():
            total += float(
                mask.double().mean() * (conf[mask].double().mean() - correct[mask].mean()).abs()
            )
    return total


def mean_kl(ref: torch.Tensor, p: torch.Tensor) -> float:
    """Mean KL(ref || p) over samples."""
    ref, p = ref.clamp(min=1e-12), p.clamp(min=1e-12)
    return float((ref * (ref.log() - p.log())).sum(1).mean())
