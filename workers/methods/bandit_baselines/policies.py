"""Classic arm-selection baselines for the CASH bandit: round-robin, uniform random and UCB1."""

from __future__ import annotations

import numpy as np

from workers.benchmarks.cash.policy import BanditPolicy, argmax_random_tie, minmax_rescale


class RoundRobin(BanditPolicy):
    """Uniform allocation: arm (t - 1) mod K in round t, so every model class gets ~T/K steps."""

    def _select(self, t: int) -> int:
        return (t - 1) % self.n_arms


class RandomArm(BanditPolicy):
    """Pick an arm uniformly at random every round."""

    def __init__(self, n_arms: int, rng: np.random.Generator | None = None) -> None:
        super().__init__(n_arms, rng if rng is not None else np.random.default_rng())

    def _select(self, t: int) -> int:
        return int(self.rng.integers(self.n_arms))


class UCB1(BanditPolicy):
    """UCB1 (Auer, Cesa-Bianchi, Fischer 2002): mean reward + sqrt(c ln t / n_i), c = 2.

    It targets the arm with the best *mean* score, not the best maximum, which is why it is the
    classic-bandit baseline in the CASH paper. UCB1 assumes rewards in [0, 1], so by default the
    rewards are min-max rescaled over all observations to [0, 1], as in the paper's code.
    """

    def __init__(
        self,
        n_arms: int,
        c: float = 2.0,
        rescale: bool = True,
        rng: np.random.Generator | None = None,
    ) -> None:
        super().__init__(n_arms, rng)
        if not np.isfinite(c) or c < 0:
            raise ValueError(f"c must be a finite number >= 0, got {c!r}")
        self.c = float(c)
        self.rescale = bool(rescale)

    def scores(self, t: int) -> np.ndarray:
        if np.any(self.counts == 0):
            raise ValueError("UCB1 scores need every arm pulled at least once")
        values = np.asarray(self.rewards)
        if self.rescale:
            values = minmax_rescale(values, 0.0, 1.0)
        means = np.array([self.arm_rewards(values, i).mean() for i in range(self.n_arms)])
        return means + np.sqrt(self.c * np.log(t) / self.counts)

    def _select(self, t: int) -> int:
        first = self.unpulled_arm()
        if first is not None:
            return first
        return argmax_random_tie(self.scores(t), self.rng)
