"""Max k-armed (extreme) bandit baselines from the CASH paper's comparison.

- QoMax-ETC (Baudry, Russac, Kaufmann 2022, "Efficient Algorithms for Extreme Bandits",
  Algorithm 1): explore every arm with b batches of n pulls, estimate each arm's maximum with
  the Quantile of Maxima (the q-quantile of the b batch maxima), then commit to the best arm.
- Quantile-UCB: the tau-quantile of an arm's (rescaled) rewards plus sqrt(alpha ln t / n_i),
  as configured in the CASH paper's experiments (tau = 0.95, alpha = 0.25).
"""

from __future__ import annotations

import numpy as np

from workers.benchmarks.cash.policy import BanditPolicy, argmax_random_tie, minmax_rescale


def qomax(samples: np.ndarray, batches: int, batch_size: int, q: float = 0.5) -> float:
    """Quantile of Maxima: split the first batches * batch_size samples into `batches` batches,
    take each batch's maximum and return their q-quantile (Baudry et al. 2022)."""
    samples = np.asarray(samples, dtype=float)
    need = batches * batch_size
    if samples.size < need:
        raise ValueError(f"qomax needs batches * batch_size = {need} samples, got {samples.size}")
    maxima = samples[:need].reshape(batches, batch_size).max(axis=1)
    return float(np.quantile(maxima, q))


class QoMaxETC(BanditPolicy):
    """QoMax Explore-Then-Commit.

    The exploration phase pulls arms round-robin until each has `batches * batch_size` pulls;
    then QoMax picks one arm for the rest of the horizon. If the horizon is shorter than
    K * batches * batch_size the policy never commits (it stays uniform), as in the original.
    """

    def __init__(
        self,
        n_arms: int,
        batches: int = 4,
        batch_size: int = 3,
        q: float = 0.5,
        rng: np.random.Generator | None = None,
    ) -> None:
        super().__init__(n_arms, rng)
        for name, value in (("batches", batches), ("batch_size", batch_size)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if not 0.0 <= q <= 1.0:
            raise ValueError(f"q must be in [0, 1], got {q!r}")
        self.batches, self.batch_size, self.q = int(batches), int(batch_size), float(q)
        self.committed: int | None = None

    def estimates(self) -> np.ndarray:
        """QoMax estimate of every arm's maximum from its exploration samples."""
        return np.array(
            [
                qomax(self.arm_rewards(self.rewards, i), self.batches, self.batch_size, self.q)
                for i in range(self.n_arms)
            ]
        )

    def _select(self, t: int) -> int:
        if self.committed is not None:
            return self.committed
        explore = self.unpulled_arm(self.batches * self.batch_size)
        if explore is not None:
            return explore
        self.committed = argmax_random_tie(self.estimates(), self.rng)
        return self.committed


class QuantileUCB(BanditPolicy):
    """Quantile-UCB: optimism on an upper quantile of each arm's rescaled rewards."""

    def __init__(
        self,
        n_arms: int,
        tau: float = 0.95,
        alpha: float = 0.25,
        rng: np.random.Generator | None = None,
    ) -> None:
        super().__init__(n_arms, rng)
        if not 0.0 <= tau <= 1.0:
            raise ValueError(f"tau must be in [0, 1], got {tau!r}")
        if not np.isfinite(alpha) or alpha < 0:
            raise ValueError(f"alpha must be a finite number >= 0, got {alpha!r}")
        self.tau, self.alpha = float(tau), float(alpha)

    def scores(self, t: int) -> np.ndarray:
        if np.any(self.counts == 0):
            raise ValueError("Quantile-UCB scores need every arm pulled at least once")
        values = minmax_rescale(np.asarray(self.rewards), 0.0, 1.0)
        quantiles = np.array(
            [np.quantile(self.arm_rewards(values, i), self.tau) for i in range(self.n_arms)]
        )
        return quantiles + np.sqrt(self.alpha * np.log(t) / self.counts)

    def _select(self, t: int) -> int:
        first = self.unpulled_arm()
        if first is not None:
            return first
        return argmax_random_tie(self.scores(t), self.rng)
