"""SinkGD and SWAN: stateless matrix optimizers from gradient multi-normalisation.

Scetbon, Ma, Gong & Meeds (2025), "Gradient Multi-Normalization for Stateless and Scalable LLM
Training". Each 2-D gradient G (m x n) is normalised with respect to several norms by alternating
projections, then applied as W <- W - lr * G_hat with no optimizer state.

* SinkGD (Alg. 3, SR-Sinkhorn): L rounds of rows -> norm sqrt(n), then columns -> norm sqrt(m).
  After each round the columns hold exactly; the rows converge to sqrt(n) as L grows (the
  iteration is Sinkhorn's on the squared entries, with marginals n 1_m and m 1_n).
* SWAN (Ma et al. 2024) is the multi-normalisation with L = 1 over (i) row-wise standardisation
  (GradNorm: centre each row, scale it to norm sqrt(n)) and (ii) the spectral normalisation
  (GradWhitening: (G G^T)^{-1/2} G = U V^T, rescaled to SWAN's ||G_tilde||_F = sqrt(mn)). For
  m <= n the whitened matrix still has rows of norm sqrt(n), so one round is already a fixed
  point of both constraints. We whiten exactly by SVD (SWAN's paper uses Newton-Schulz).

Parameters that are not matrices of the network body (embeddings, norms, the output head) use
Adam inside the same optimizer, as the paper does: put them in a group with ``adam=True``
(`matrix_param_groups` builds both groups for a Llama model).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import nn

from workers.models.lm.train import optimizer_state_bytes  # noqa: F401  (re-exported)


def sr_sinkhorn(G: torch.Tensor, num_iters: int = 5, eps: float = 1e-8) -> torch.Tensor:
    """SR-Sinkhorn normalisation (Alg. 3): alternate row and column l2 normalisation.

    Rows are scaled to norm sqrt(n) and then columns to norm sqrt(m), `num_iters` times; the
    returned matrix has column norms exactly sqrt(m) and Frobenius norm sqrt(mn).
    """
    if G.ndim != 2:
        raise ValueError(f"sr_sinkhorn needs a matrix, got shape {tuple(G.shape)}")
    if num_iters < 1:
        raise ValueError(f"num_iters: must be at least 1, got {num_iters}")
    m, n = G.shape
    X = G.float()
    for _ in range(num_iters):
        X = X * (math.sqrt(n) / X.norm(dim=1, keepdim=True).clamp_min(eps))  # Q(X)^{-1}: rows
        X = X * (math.sqrt(m) / X.norm(dim=0, keepdim=True).clamp_min(eps))  # R(X)^{-1}: columns
    return X.to(G.dtype)


def swan_normalize(G: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    """SWAN's GradNorm then GradWhitening, rescaled to GradNorm's Frobenius norm sqrt(mn)."""
    if G.ndim != 2:
        raise ValueError(f"swan_normalize needs a matrix, got shape {tuple(G.shape)}")
    m, n = G.shape
    X = G.float()
    X = X - X.mean(dim=1, keepdim=True)
    X = X / X.std(dim=1, unbiased=False, keepdim=True).clamp_min(eps)  # rows: mean 0, norm sqrt(n)
    U, _, Vh = torch.linalg.svd(X, full_matrices=False)  # (X X^T)^{-1/2} X = U V^T
    return (U @ Vh * math.sqrt(m * n / min(m, n))).to(G.dtype)


class _MultiNormOptimizer(torch.optim.Optimizer):
    """Stateless normalised steps for matrices; Adam for groups flagged ``adam=True``."""

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        *,
        weight_decay: float = 0.0,
        betas=(0.9, 0.999),
        eps: float = 1e-8,
        adam: bool = False,
    ) -> None:
        if lr <= 0:
            raise ValueError(f"lr: must be positive, got {lr}")
        defaults = dict(lr=lr, weight_decay=weight_decay, betas=betas, eps=eps, adam=adam)
        super().__init__(params, defaults)
        for group in self.param_groups:
            if not group["adam"]:
                bad = [tuple(p.shape) for p in group["params"] if p.ndim != 2]
                if bad:
                    raise ValueError(
                        f"params: {type(self).__name__} normalises matrices only; shapes {bad} "
                        "belong in an adam=True group (see matrix_param_groups)"
                    )

    def normalize(self, G: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    @torch.no_grad()
    def step(self, closure: Callable | None = None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr, wd = group["lr"], group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                if wd:
                    p.mul_(1 - lr * wd)  # decoupled weight decay, as AdamW
                if group["adam"]:
                    self._adam(p, group)
                else:
                    p.add_(self.normalize(p.grad), alpha=-lr)
        return loss

    def _adam(self, p: torch.Tensor, group: dict) -> None:
        state = self.state[p]
        if not state:
            state["step"] = 0
            state["exp_avg"] = torch.zeros_like(p)
            state["exp_avg_sq"] = torch.zeros_like(p)
        b1, b2 = group["betas"]
        state["step"] += 1
        state["exp_avg"].mul_(b1).add_(p.grad, alpha=1 - b1)
        state["exp_avg_sq"].mul_(b2).addcmul_(p.grad, p.grad, value=1 - b2)
        c1, c2 = 1 - b1 ** state["step"], 1 - b2 ** state["step"]
        denom = (state["exp_avg_sq"] / c2).sqrt_().add_(group["eps"])
        p.addcdiv_(state["exp_avg"], denom, value=-group["lr"] / c1)


class SinkGD(_MultiNormOptimizer):
    """W <- W - lr * SR-Sinkhorn(G, L) for every matrix; no state (Adam groups excepted)."""

    def __init__(self, params, lr: float = 1e-3, num_iters: int = 5, **kwargs) -> None:
        if num_iters < 1:
            raise ValueError(f"num_iters: must be at least 1, got {num_iters}")
        self.num_iters = num_iters
        super().__init__(params, lr, **kwargs)

    def normalize(self, G: torch.Tensor) -> torch.Tensor:
        return sr_sinkhorn(G, self.num_iters)


class SWAN(_MultiNormOptimizer):
    """W <- W - lr * Whiten(GradNorm(G)): SWAN as the L = 1 multi-normalisation."""

    def normalize(self, G: torch.Tensor) -> torch.Tensor:
        return swan_normalize(G)


def matrix_param_groups(
    model: nn.Module, lr: float, adam_lr: float, *, weight_decay: float = 0.0
) -> list[dict]:
    """[matrices of the body, adam group]: embeddings, output head, norms and biases go to Adam."""
    special = set()
    for module in model.modules():
        if isinstance(module, nn.Embedding):
            special.update(id(p) for p in module.parameters())
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    if head is not None:
        special.update(id(p) for p in head.parameters())
    matrices, others = [], []
    for p in model.parameters():
        if not p.requires_grad:
            continue
        (matrices if p.ndim == 2 and id(p) not in special else others).append(p)
    return [
        {"params": matrices, "lr": lr, "adam": False, "weight_decay": weight_decay},
        {"params": others, "lr": adam_lr, "adam": True, "weight_decay": 0.0},
    ]
