"""Normalised regret of the best score found so far (the benchmark's primary metric).

    regret_t = (y* - max_{s<=t} y_s) / (y* - y_min)

y_s is the validation score observed at iteration s, y* the best score achievable in the
instance (the best of all arms' reward sequences) and y_min the worst. It is the paper's
normalised loss of the incumbent, with the oracle best as the zero point (their y*: the best
loss seen on the instance) and the instance's full range as the unit, which keeps it in [0, 1]
and non-increasing in t (their unit, the median of the K initial pulls, can exceed 1 early).
"""

from __future__ import annotations

import numpy as np


def normalized_regret(rewards: np.ndarray, y_star: float, y_min: float) -> np.ndarray:
    """regret_t for t = 1..len(rewards); all zeros when the instance is constant (y* = y_min)."""
    rewards = np.asarray(rewards, dtype=float)
    if y_star < y_min:
        raise ValueError(f"y_star ({y_star}) must be >= y_min ({y_min})")
    if rewards.size and (rewards.max() > y_star + 1e-12 or rewards.min() < y_min - 1e-12):
        raise ValueError("rewards must lie in [y_min, y_star]")
    if rewards.size == 0:
        return rewards.copy()
    incumbent = np.maximum.accumulate(rewards)
    if y_star == y_min:
        return np.zeros_like(incumbent)
    return np.clip((y_star - incumbent) / (y_star - y_min), 0.0, 1.0)


def paper_normalized_loss(
    rewards: np.ndarray, y_star: float, first_pulls: np.ndarray
) -> np.ndarray:
    """The paper's normalised loss of the incumbent (official analysis code, get_error with
    normalize=True), written for scores: (y* - max_{s<=t} y_s) / (y* - median of the K first-pull
    scores). It is 0 at the best achievable score and 1 at the typical first configuration; it
    exceeds 1 while the incumbent is worse than that median."""
    rewards = np.asarray(rewards, dtype=float)
    if rewards.size == 0:
        return rewards.copy()
    incumbent = np.maximum.accumulate(rewards)
    unit = max(1e-5, y_star - float(np.median(first_pulls)))  # the official code's floor
    return (y_star - incumbent) / unit
