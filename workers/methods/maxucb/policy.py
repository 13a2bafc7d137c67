"""MaxUCB (Balef, Vernade, Eggensperger 2025, Algorithm 1): a max k-armed bandit for bounded,
light-tailed rewards such as the validation scores of hyper-parameter optimisation steps.

In round t MaxUCB pulls

    argmax_i  max_{j <= n_i} r_ij  +  (alpha * ln t / n_i)^2

where r_ij are the rewards of arm i min-max rescaled over ALL observations so far to
[0.01, 0.99] and n_i is the number of pulls of arm i. Every arm is pulled once first.
The squared bonus (instead of UCB's square root) comes from the paper's assumption that the
reward density near the upper end of the support is bounded (light, bounded tails).
"""

from __future__ import annotations

import numpy as np

from workers.benchmarks.cash.policy import BanditPolicy, argmax_random_tie, minmax_rescale

RESCALE_RANGE = (0.01, 0.99)  # the official implementation's MinMaxScaler feature_range


class MaxUCB(BanditPolicy):
    """MaxUCB policy.

    Args:
        n_arms: number of arms K.
        alpha: exploration parameter (paper default 0.5).
        rng: optional generator for breaking ties between equal scores uniformly; without one
            the lowest index wins (as `np.argmax` in the official code).
    """

    def __init__(
        self, n_arms: int, alpha: float = 0.5, rng: np.random.Generator | None = None
    ) -> None:
        super().__init__(n_arms, rng)
        if not np.isfinite(alpha) or alpha < 0:
            raise ValueError(f"alpha must be a finite number >= 0, got {alpha!r}")
        self.alpha = float(alpha)

    def scaled_rewards(self) -> np.ndarray:
        """All rewards so far, min-max rescaled together to [0.01, 0.99]."""
        return minmax_rescale(np.asarray(self.rewards), *RESCALE_RANGE)

    def scores(self, t: int) -> np.ndarray:
        """Upper confidence bound of each arm's maximum in round t (needs every arm pulled once)."""
        if np.any(self.counts == 0):
            raise ValueError("MaxUCB scores need every arm pulled at least once")
        scaled = self.scaled_rewards()
        best = np.array([self.arm_rewards(scaled, i).max() for i in range(self.n_arms)])
        bonus = (self.alpha * np.log(t) / self.counts) ** 2
        return best + bonus

    def _select(self, t: int) -> int:
        first = self.unpulled_arm()
        if first is not None:
            return first
        return argmax_random_tie(self.scores(t), self.rng)
