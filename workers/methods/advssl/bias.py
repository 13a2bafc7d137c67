"""How biased are mini-batch gradients of the covariance penalty? (the point of Adv-SSL)

For a fixed encoder and fixed augmented pairs, the population penalty is ||C - I||_F^2 with C
the cross-correlation over all n pairs. A mini-batch of B pairs gives C_B with E[C_B] = C, so

    plug-in      grad ||C_B - I||^2                      is biased: E = grad ||C - I||^2 + grad tr Var(C_B)
    adversarial  grad (2 <G, C_B - I> - ||G||^2),  G = C_B' - I from an independent batch B',
                 is unbiased: E = 2 <E[G], grad C> = 2 <C - I, grad C> = grad ||C - I||^2.

`penalty_gradient_bias` estimates both expectations by averaging over `n_batches` random
batches and reports || mean gradient - population gradient || / || population gradient ||,
with the Monte Carlo noise floor of that average (a bias below the floor is not resolved).
The encoder runs in eval mode, so each embedding depends on its own input only (batch norm
uses its running statistics) and C_B is an average of per-pair terms.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from workers.methods.advssl.losses import adversarial_penalty, cross_correlation, scaled_normalise
from workers.methods.advssl.train import augment


@dataclass
class GradientBias:
    batch_size: int
    plugin: float  # relative bias of the plug-in gradient
    adversarial: float  # relative bias of the adversarial (Adv-SSL) gradient
    noise_floor_plugin: float  # relative standard error of the plug-in average
    noise_floor_adversarial: float


def _flat_grad(loss: torch.Tensor, params: list[torch.Tensor]) -> torch.Tensor:
    return torch.cat([g.reshape(-1) for g in torch.autograd.grad(loss, params)])


def penalty_gradient_bias(
    model: nn.Module,
    X: np.ndarray,
    batch_size: int,
    *,
    n_batches: int = 200,
    side: int = 8,
    seed: int = 0,
    device: str = "cpu",
    exhaustive: bool = False,
) -> GradientBias:
    """Relative bias of the plug-in and adversarial mini-batch penalty gradients (see module).

    exhaustive=True averages over every one of the C(n, B) batches instead of `n_batches`
    random ones, with the adversarial G at its expectation E[C_B'] - I = C - I (the gradient is
    linear in G): exact expectations, noise floor 0. Only for a handful of pairs.
    """
    if not 2 <= batch_size <= len(X):
        raise ValueError(f"batch_size must lie in [2, {len(X)}], got {batch_size}")
    if n_batches < 2:
        raise ValueError(f"n_batches must be >= 2, got {n_batches}")
    g = torch.Generator().manual_seed(seed)
    was_training = model.training
    model.eval()
    params = [p for p in model.parameters() if p.requires_grad]
    Xt = torch.as_tensor(X, dtype=torch.float32, device=device)
    V1, V2 = augment(Xt, side, g), augment(Xt, side, g)  # one fixed pair per image

    def corr(idx) -> torch.Tensor:
        return cross_correlation(scaled_normalise(model(V1[idx])), scaled_normalise(model(V2[idx])))

    n = len(Xt)
    C = corr(slice(None))
    eye = torch.eye(C.shape[0], device=C.device)
    full = _flat_grad((C - eye).pow(2).sum(), params)
    plug, adv = [], []
    if exhaustive:
        if math.comb(n, batch_size) > 5000:
            raise ValueError(f"exhaustive: C({n}, {batch_size}) batches is too many (> 5000)")
        batches = [
            torch.tensor(b, device=device) for b in itertools.combinations(range(n), batch_size)
        ]
    else:
        batches = [torch.randperm(n, generator=g)[:batch_size].to(device) for _ in range(n_batches)]
    for idx in batches:
        Cb = corr(idx)
        plug.append(_flat_grad((Cb - eye).pow(2).sum(), params))
        with torch.no_grad():
            if exhaustive:
                G = C.detach() - eye
            else:  # an independent batch: E[G] = C - I
                G = corr(torch.randperm(n, generator=g)[:batch_size].to(device)) - eye
        adv.append(_flat_grad(adversarial_penalty(corr(idx), G), params))
    model.train(was_training)
    scale = float(full.norm())

    def stats(grads: list[torch.Tensor]) -> tuple[float, float]:
        G_ = torch.stack(grads)
        bias = float((G_.mean(0) - full).norm()) / scale
        floor = 0.0 if exhaustive else float(G_.var(0).sum().div(len(grads)).sqrt()) / scale
        return bias, floor

    (pb, pf), (ab, af) = stats(plug), stats(adv)
    return GradientBias(batch_size, pb, ab, pf, af)
