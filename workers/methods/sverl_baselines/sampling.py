"""Per-state Shapley estimators that query a characteristic function directly (no amortisation).

`permutation_shapley` is the Monte Carlo permutation estimator (Castro, Gomez, Tejada 2009),
the sampling approach SVERL used before FastSVERL; `enumeration_shapley` evaluates all 2^d
coalitions (exact for the given characteristic, exponential in d).
"""

from __future__ import annotations

import numpy as np
import torch

from workers.benchmarks.sverl_explain.exact import coalitions, shapley_from_table
from workers.methods.sverl_fastsverl.fastsverl import CharFn


def permutation_shapley(
    char, states: torch.Tensor, permutations: int, gen: torch.Generator
) -> torch.Tensor:
    """Average marginal contributions along `permutations` random feature orders per state."""
    if permutations < 1:
        raise ValueError(f"permutations must be >= 1, got {permutations}")
    n, d = states.shape
    phi = None
    for _ in range(permutations):
        order = torch.rand(n, d, generator=gen).argsort(1)
        mask = torch.zeros(n, d, dtype=torch.bool)
        prev = char(states, mask)
        contrib = torch.zeros(n, d, prev.shape[1])
        for k in range(d):
            mask = mask.clone()
            mask[torch.arange(n), order[:, k]] = True
            cur = char(states, mask)
            contrib[torch.arange(n), order[:, k]] = cur - prev
            prev = cur
        phi = contrib if phi is None else phi + contrib
    return phi / permutations


def enumeration_shapley(char: CharFn, states: torch.Tensor) -> torch.Tensor:
    masks = torch.as_tensor(coalitions(states.shape[1]))
    table = np.stack([char(states, m.expand(len(states), -1)).numpy() for m in masks])
    return torch.as_tensor(shapley_from_table(table), dtype=torch.float32)
