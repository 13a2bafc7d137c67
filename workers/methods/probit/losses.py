"""Training losses matching each link (drop-in replacements for nn.CrossEntropyLoss).

Deterministic logits f: -log( g(f_y) / sum_c g(f_c) ) with g = Phi (normCDF) or sigma.
Gaussian logits (mu, var) from a heteroscedastic head: the negative log of the closed-form
predictive, -log p_y with p = g-predictive(mu, var); for softmax the usual Monte Carlo
estimate -log mean_s softmax(z_s)_y (Collier et al.'s heteroscedastic classifier).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.special import log_ndtr

from workers.methods.probit.predictives import LAMBDA0


def log_normed_link(f: torch.Tensor, link: str) -> torch.Tensor:
    """log( g(f_c) / sum_j g(f_j) ), stable in log space."""
    if link == "softmax":
        return F.log_softmax(f, dim=1)
    log_g = log_ndtr(f) if link == "normcdf" else F.logsigmoid(f) if link == "sigmoid" else None
    if log_g is None:
        raise ValueError(f"link must be softmax, normcdf or sigmoid; got {link!r}")
    return log_g - torch.logsumexp(log_g, dim=1, keepdim=True)


class NormedLinkNLLLoss(nn.Module):
    """Mean NLL of the normalised element-wise link."""

    def __init__(self, link: str = "normcdf") -> None:
        super().__init__()
        self.link = link

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.nll_loss(log_normed_link(logits, self.link), target)


class GaussianLogitNLLLoss(nn.Module):
    """NLL of the predictive of Gaussian logits (mu, var) under the chosen link."""

    def __init__(self, link: str = "normcdf", mc_samples: int = 10) -> None:
        super().__init__()
        self.link, self.mc_samples = link, mc_samples

    def forward(self, mu: torch.Tensor, var: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        if self.link == "normcdf":
            return F.nll_loss(log_normed_link(mu / torch.sqrt(1 + var), "normcdf"), target)
        if self.link == "sigmoid":
            return F.nll_loss(
                log_normed_link(mu / torch.sqrt(1 + LAMBDA0 * var), "sigmoid"), target
            )
        z = mu.unsqueeze(0) + var.sqrt().unsqueeze(0) * torch.randn(
            (self.mc_samples,) + tuple(mu.shape), device=mu.device, dtype=mu.dtype
        )
        log_p = torch.logsumexp(F.log_softmax(z, dim=-1), dim=0) - math.log(self.mc_samples)
        return F.nll_loss(log_p, target)
