"""Adv-SSL (Duan et al.) and the covariance-regularised SSL objectives it is compared with.

Covariance-regularised SSL minimises alignment + lambda ||C - I||_F^2 with C the (cross-)
correlation of the two views' embeddings. On a mini-batch, ||C_hat - I||_F^2 is a biased
estimate of ||C - I||_F^2 (E||C_hat - I||^2 = ||C - I||^2 + tr Var(C_hat)), and the bias grows
as the batch shrinks. Adv-SSL writes the penalty as a maximum,

    ||C - I||_F^2 = max_G  2 <G, C - I> - ||G||_F^2     (maximiser G* = C - I),

and alternates the closed-form G step with encoder steps on a fresh batch: for a G that does
not depend on the batch, 2 <G, C_hat - I> - ||G||^2 is an unbiased estimate (linear in C_hat).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn


def scaled_normalise(z: torch.Tensor) -> torch.Tensor:
    """Rows on the sphere of radius sqrt(d), so C = Z1^T Z2 / n has unit diagonal scale."""
    return math.sqrt(z.shape[1]) * F.normalize(z, dim=1)


def cross_correlation(z1: torch.Tensor, z2: torch.Tensor) -> torch.Tensor:
    """C_hat = Z1^T Z2 / n, symmetrised (the two views play the same role)."""
    C = z1.T @ z2 / z1.shape[0]
    return 0.5 * (C + C.T)


def alignment(z1: torch.Tensor, z2: torch.Tensor) -> torch.Tensor:
    return (z1 - z2).pow(2).sum(1).mean()


def adversarial_penalty(C: torch.Tensor, G: torch.Tensor) -> torch.Tensor:
    """2 <G, C - I> - ||G||_F^2: equals ||C - I||_F^2 at G = C - I and is below it elsewhere."""
    eye = torch.eye(C.shape[0], dtype=C.dtype, device=C.device)
    return 2 * (G * (C - eye)).sum() - G.pow(2).sum()


class AdvSSLLoss(nn.Module):
    """Alignment + lambda * adversarial covariance penalty, G updated in closed form.

    Each call uses the G of the previous mini-batch (independent of the current one) and then
    sets G <- C_hat - I of the current batch for the next call (the max step).
    """

    def __init__(self, lam: float = 1.0) -> None:
        super().__init__()
        self.lam = lam
        self.G: torch.Tensor | None = None

    def forward(self, z1: torch.Tensor, z2: torch.Tensor) -> torch.Tensor:
        z1, z2 = scaled_normalise(z1), scaled_normalise(z2)
        C = cross_correlation(z1, z2)
        eye = torch.eye(C.shape[0], dtype=C.dtype, device=C.device)
        G = (C - eye).detach() if self.G is None else self.G
        loss = alignment(z1, z2) + self.lam * adversarial_penalty(C, G)
        self.G = (C - eye).detach()
        return loss


class BiasedCovarianceLoss(nn.Module):
    """The plug-in objective alignment + lambda ||C_hat - I||_F^2 (biased on mini-batches)."""

    def __init__(self, lam: float = 1.0) -> None:
        super().__init__()
        self.lam = lam

    def forward(self, z1: torch.Tensor, z2: torch.Tensor) -> torch.Tensor:
        z1, z2 = scaled_normalise(z1), scaled_normalise(z2)
        C = cross_correlation(z1, z2)
        return (
            alignment(z1, z2) + self.lam * (C - torch.eye(C.shape[0], device=C.device)).pow(2).sum()
        )


class BarlowTwinsLoss(nn.Module):
    """Zbontar et al. 2021: sum_i (1 - C_ii)^2 + lambda sum_{i != j} C_ij^2, C from standardised views."""

    def __init__(self, lam: float = 5e-3) -> None:
        super().__init__()
        self.lam = lam

    def forward(self, z1: torch.Tensor, z2: torch.Tensor) -> torch.Tensor:
        n = z1.shape[0]
        z1 = (z1 - z1.mean(0)) / (z1.std(0) + 1e-5)
        z2 = (z2 - z2.mean(0)) / (z2.std(0) + 1e-5)
        C = z1.T @ z2 / n
        on = (1 - torch.diagonal(C)).pow(2).sum()
        off = C.pow(2).sum() - torch.diagonal(C).pow(2).sum()
        return on + self.lam * off


class VICRegLoss(nn.Module):
    """Bardes et al. 2022: 25 MSE + 25 variance hinge + 1 covariance off-diagonal (their defaults)."""

    def __init__(self, sim: float = 25.0, var: float = 25.0, cov: float = 1.0) -> None:
        super().__init__()
        self.sim, self.var, self.cov = sim, var, cov

    @staticmethod
    def _var_cov(z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        n, d = z.shape
        z = z - z.mean(0)
        std = torch.sqrt(z.var(0) + 1e-4)
        C = z.T @ z / (n - 1)
        off = C.pow(2).sum() - torch.diagonal(C).pow(2).sum()
        return F.relu(1 - std).mean(), off / d

    def forward(self, z1: torch.Tensor, z2: torch.Tensor) -> torch.Tensor:
        v1, c1 = self._var_cov(z1)
        v2, c2 = self._var_cov(z2)
        return self.sim * F.mse_loss(z1, z2) + self.var * (v1 + v2) + self.cov * (c1 + c2)
