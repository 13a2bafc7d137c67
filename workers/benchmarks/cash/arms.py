"""Arm sets: K reward sequences, one per model class, that a bandit policy pulls from.

Pulling arm i for the n-th time returns `sequences[i, n]`, the n-th step of that arm's
hyper-parameter optimisation, exactly like the paper's protocol (official code: the reward of
a pull is data[arm, trial, pulls[arm]]). Building every sequence up front (length T) means the
best achievable score y* and the worst one are known, so the regret is exact, and the same
seed gives every method the same instance (common random numbers).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class ArmSet:
    names: tuple[str, ...]
    sequences: np.ndarray  # shape (K, T): sequences[i, n] = reward of the (n+1)-th pull of arm i
    counts: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.sequences = np.asarray(self.sequences, dtype=float)
        if self.sequences.ndim != 2 or self.sequences.shape[0] != len(self.names):
            raise ValueError(
                f"sequences must have shape (n_arms={len(self.names)}, T), "
                f"got {self.sequences.shape}"
            )
        if not np.all(np.isfinite(self.sequences)):
            raise ValueError("sequences must be finite")
        self.counts = np.zeros(len(self.names), dtype=int)

    @property
    def n_arms(self) -> int:
        return len(self.names)

    @property
    def horizon(self) -> int:
        return self.sequences.shape[1]

    @property
    def y_star(self) -> float:
        """Best achievable score: the best reward any sequence of pulls could reach within T."""
        return float(self.sequences.max())

    @property
    def y_min(self) -> float:
        """Worst score in the instance (the regret's normaliser)."""
        return float(self.sequences.min())

    def best_arms(self) -> np.ndarray:
        """Indices of the arms whose sequences contain y*."""
        return np.flatnonzero(self.sequences.max(axis=1) == self.y_star)

    def pull(self, arm: int) -> float:
        if not 0 <= arm < self.n_arms:
            raise ValueError(f"arm must be in [0, {self.n_arms}), got {arm}")
        n = self.counts[arm]
        if n >= self.horizon:
            raise RuntimeError(f"arm {self.names[arm]} was pulled more than T={self.horizon} times")
        self.counts[arm] += 1
        return float(self.sequences[arm, n])


def sequences_from_traces(
    scores: list[np.ndarray], horizon: int, rng: np.random.Generator
) -> np.ndarray:
    """Per-run pull order of each arm's trace: a seeded permutation of its N configurations,
    followed by fresh permutations when an arm is pulled more than N times (random search
    sampling the finite pool again)."""
    out = np.empty((len(scores), horizon))
    for i, trace in enumerate(scores):
        trace = np.asarray(trace, dtype=float)
        if trace.size == 0:
            raise ValueError("every trace needs at least one configuration")
        reps = -(-horizon // trace.size)
        out[i] = np.concatenate([rng.permutation(trace) for _ in range(reps)])[:horizon]
    return out
