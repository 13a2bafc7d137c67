"""FastSVERL (Beechey & Simsek, NeurIPS 2025): amortised Shapley explanations of RL agents.

Two networks are learned from the agent's experience instead of enumerating 2^d coalitions:

1. a characteristic model g(s, C) ~ v(C)(s), trained to predict the explained quantity f(s)
   (policy, value) from the partially observed state s_C with coalitions C drawn uniformly
   (mean-squared error; its minimiser is E[f(s') | s'_C = s_C] under the state distribution);
   off-policy, each sample (s, a) from a behaviour policy mu is weighted by
   rho = pi(a|s) / mu(a|s), self-normalised over the batch and clipped (FastSVERL sec. 4);
2. a Shapley model phi(s) in R^{d x out}, trained FastSHAP-style (Jethani et al., ICLR 2022):
   C ~ p(C) with |C| = k drawn with probability proportional to (d-1)/(k(d-k)) (the Shapley
   kernel), loss || v(C)(s) - v(empty)(s) - sum_{i in C} phi_i(s) ||^2, and the additive
   efficiency correction phi_i += (v(F)(s) - v(empty)(s) - sum_j phi_j(s)) / d.

The masked input is [s * C, C] (zeroed features plus the mask), which keeps "unknown" distinct
from any real feature value.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

CharFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]  # (states, masks) -> (N, out)


class ShapleySampler:
    """Coalitions from the Shapley kernel's size distribution, or uniformly at random."""

    def __init__(self, d: int, generator: torch.Generator | None = None) -> None:
        if d < 2:
            raise ValueError(f"Shapley sampling needs d >= 2 features, got {d}")
        k = torch.arange(1, d)
        w = (d - 1) / (k * (d - k))
        self.size_probs = w / w.sum()
        self.d, self.gen = d, generator

    def kernel(self, n: int) -> torch.Tensor:
        sizes = 1 + torch.multinomial(self.size_probs, n, replacement=True, generator=self.gen)
        ranks = torch.rand(n, self.d, generator=self.gen).argsort(1).argsort(1)
        return ranks < sizes[:, None]

    def uniform(self, n: int) -> torch.Tensor:
        return torch.rand(n, self.d, generator=self.gen) < 0.5


def mlp(d_in: int, d_out: int, hidden: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Linear(d_in, hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
        nn.Linear(hidden, d_out),
    )


class CharacteristicModel(nn.Module):
    """g(s, C): predicts the explained quantity from the features in C."""

    def __init__(self, d: int, out_dim: int, hidden: int = 128) -> None:
        super().__init__()
        self.net = mlp(2 * d, out_dim, hidden)

    def forward(self, states: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        m = masks.float()
        return self.net(torch.cat([states * m, m], -1))


class ShapleyModel(nn.Module):
    """phi(s): one value per feature and output, before the efficiency correction."""

    def __init__(self, d: int, out_dim: int, hidden: int = 128) -> None:
        super().__init__()
        self.d, self.out_dim = d, out_dim
        self.net = mlp(d, d * out_dim, hidden)

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        return self.net(states).view(-1, self.d, self.out_dim)


def efficient(phi: torch.Tensor, grand: torch.Tensor, null: torch.Tensor) -> torch.Tensor:
    """Additive efficient normalisation: afterwards sum_i phi_i = v(F) - v(empty) exactly."""
    gap = grand - null - phi.sum(1)
    return phi + gap[:, None, :] / phi.shape[1]


def importance_weights(
    target_logp: torch.Tensor, behaviour_logp: torch.Tensor, clip: float
) -> torch.Tensor:
    """rho = pi/mu, self-normalised to mean 1 over the batch, clipped to [1 - clip, 1 + clip]."""
    rho = (target_logp - behaviour_logp).exp()
    rho = rho / rho.mean()
    return rho.clamp(max(0.0, 1 - clip), 1 + clip)


def _batches(n: int, batch: int, updates: int, gen: torch.Generator):
    for _ in range(updates):
        yield torch.randint(n, (batch,), generator=gen)


def train_characteristic(
    model: CharacteristicModel,
    states: torch.Tensor,
    targets: torch.Tensor,
    updates: int,
    batch: int = 128,
    lr: float = 1e-3,
    weights: torch.Tensor | None = None,
    gen: torch.Generator | None = None,
    callback: Callable[[int, float], None] | None = None,
) -> CharacteristicModel:
    """Fit g by weighted MSE to f(s) under uniformly sampled coalitions (the grand and empty
    coalitions are included with probability 2^-d each, as in the paper's uniform sampler)."""
    gen = gen or torch.Generator().manual_seed(0)
    sampler = ShapleySampler(states.shape[1], gen)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for step, idx in enumerate(_batches(len(states), batch, updates, gen)):
        pred = model(states[idx], sampler.uniform(len(idx)))
        err = ((pred - targets[idx]) ** 2).sum(-1)
        loss = (err * weights[idx]).mean() if weights is not None else err.mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if callback:
            callback(step, float(loss.detach()))
    return model


class FastSVERL:
    """Amortised Shapley explainer. `fit(states, char)` trains the Shapley model on a
    characteristic function `char(states, masks)` (a trained CharacteristicModel, or exact
    values); `shapley(states)` returns efficient (N, d, out) explanations in one forward pass."""

    def __init__(
        self,
        d: int,
        out_dim: int,
        hidden: int = 128,
        updates: int = 2000,
        batch: int = 128,
        lr: float = 1e-3,
        paired: bool = True,
        seed: int = 0,
    ) -> None:
        if updates < 1 or batch < 2:
            raise ValueError("updates must be >= 1 and batch >= 2")
        self.d, self.out_dim, self.updates, self.batch, self.lr, self.paired = (
            d,
            out_dim,
            updates,
            batch,
            lr,
            paired,
        )
        self.gen = torch.Generator().manual_seed(seed)
        torch.manual_seed(seed)
        self.model = ShapleyModel(d, out_dim, hidden)
        self.char: CharFn | None = None

    def _grand_null(self, states: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        ones = torch.ones(states.shape, dtype=torch.bool)
        return self.char(states, ones), self.char(states, ~ones)

    def fit(
        self,
        states: torch.Tensor,
        char: CharFn,
        weights: torch.Tensor | None = None,
        callback: Callable[[int, float], None] | None = None,
    ) -> FastSVERL:
        self.char = char
        sampler = ShapleySampler(self.d, self.gen)
        opt = torch.optim.Adam(self.model.parameters(), lr=self.lr)
        for step, idx in enumerate(_batches(len(states), self.batch, self.updates, self.gen)):
            s = states[idx]
            C = sampler.kernel(len(idx))
            if self.paired:  # paired sampling (FastSHAP): C and its complement halve the variance
                C[1::2] = ~C[0::2][: len(C[1::2])]
            with torch.no_grad():
                grand, null = self._grand_null(s)
                target = char(s, C) - null
            phi = efficient(self.model(s), grand, null)
            err = ((phi * C[:, :, None]).sum(1) - target).pow(2).sum(-1)
            loss = (err * weights[idx]).mean() if weights is not None else err.mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            if callback:
                callback(step, float(loss.detach()))
        return self

    @torch.no_grad()
    def shapley(self, states: torch.Tensor) -> torch.Tensor:
        if self.char is None:
            raise RuntimeError("FastSVERL.shapley called before fit")
        grand, null = self._grand_null(states)
        return efficient(self.model(states), grand, null)
