"""The bandit-policy interface the `cash` benchmark drives, plus shared helpers.

A policy chooses which model class (arm) gets the next hyper-parameter optimisation step:

    policy = SomePolicy(n_arms)
    for t in range(1, T + 1):
        arm = policy.select(t)        # t is the 1-indexed round
        policy.update(arm, reward)    # reward: the validation score of that step

Policies are plain Python objects usable outside the platform; method plugins only wrap them
(`make_policy(n_arms, horizon, rng)`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


def minmax_rescale(values: np.ndarray, low: float = 0.0, high: float = 1.0) -> np.ndarray:
    """Min-max rescale `values` (all observations so far) into [low, high].

    Matches scikit-learn's MinMaxScaler(feature_range=(low, high)): when every value is equal
    the range is treated as 1, so all values map to `low`.
    """
    if not low < high:
        raise ValueError(f"rescale range: low ({low}) must be below high ({high})")
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return values.copy()
    vmin, vmax = float(values.min()), float(values.max())
    span = vmax - vmin if vmax > vmin else 1.0
    return low + (values - vmin) * (high - low) / span


def argmax_random_tie(scores: np.ndarray, rng: np.random.Generator | None) -> int:
    """Index of the largest score; ties broken uniformly with `rng`, or lowest index without one."""
    scores = np.asarray(scores, dtype=float)
    best = np.flatnonzero(scores == scores.max())
    if rng is None or best.size == 1:
        return int(best[0])
    return int(rng.choice(best))


class BanditPolicy(ABC):
    """Base class: keeps the history of (arm, raw reward) and the pull counts n_i."""

    def __init__(self, n_arms: int, rng: np.random.Generator | None = None) -> None:
        if isinstance(n_arms, bool) or not isinstance(n_arms, (int, np.integer)) or n_arms < 1:
            raise ValueError(f"n_arms must be a positive integer, got {n_arms!r}")
        self.n_arms = int(n_arms)
        self.rng = rng
        self.arms: list[int] = []
        self.rewards: list[float] = []
        self.counts = np.zeros(self.n_arms, dtype=int)

    @property
    def round(self) -> int:
        """The 1-indexed round of the next selection (number of updates + 1)."""
        return len(self.arms) + 1

    def select(self, t: int | None = None) -> int:
        """Arm to pull in round `t` (1-indexed; defaults to the policy's own round counter)."""
        if t is None:
            t = self.round
        elif t != self.round:
            raise ValueError(
                f"t={t} but the policy has seen {len(self.arms)} rewards, so the round is "
                f"{self.round} (t is 1-indexed and must advance by one per update)"
            )
        arm = self._select(t)
        if not 0 <= arm < self.n_arms:  # pragma: no cover - guards subclasses
            raise RuntimeError(
                f"{type(self).__name__} selected arm {arm} outside [0, {self.n_arms})"
            )
        return arm

    def update(self, arm: int, reward: float) -> None:
        """Record the raw (unscaled) `reward` observed after pulling `arm`."""
        if (
            isinstance(arm, bool)
            or not isinstance(arm, (int, np.integer))
            or not 0 <= arm < self.n_arms
        ):
            raise ValueError(f"arm must be an integer in [0, {self.n_arms}), got {arm!r}")
        reward = float(reward)
        if not np.isfinite(reward):
            raise ValueError(f"reward must be finite, got {reward}")
        self.arms.append(int(arm))
        self.rewards.append(reward)
        self.counts[arm] += 1

    def unpulled_arm(self, min_pulls: int = 1) -> int | None:
        """Round-robin initialisation: the next arm (in index order) with fewer than `min_pulls`."""
        lacking = np.flatnonzero(self.counts < min_pulls)
        return int(lacking[0]) if lacking.size else None

    def arm_rewards(self, values: np.ndarray, arm: int) -> np.ndarray:
        """The entries of `values` (aligned with the history) that came from `arm`."""
        return np.asarray(values)[np.asarray(self.arms) == arm]

    @abstractmethod
    def _select(self, t: int) -> int: ...
