"""Synthetic CASH instances: bounded, light-tailed reward distributions, cheap to sample.

The paper finds HPO validation scores to be bounded, left-skewed and light-tailed near their
upper end; these instances share that shape so large repeated experiments need no model fits.

- "skewed_max": six scaled-Beta arms shaped like model classes; the arm with the highest
  ceiling ("high_ceiling") has a lower MEAN than "steady", so mean-seeking bandits (UCB1)
  favour the wrong arm while a max-bandit should not.
- "power_xp10" / "power_xp11": the paper's toy experiments with (generalised) power-law arms
  (official code, toy_examples: xp10 = Power [3,3,3,4,4,4,5,5,5,6], xp11 = GenPower
  [[3,1.01],[4,1.01],[5,1.01],[5,1.1],[4,1]]; a GenPower(a, s) draw is U^(1/a) / s^a).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ScaledBeta:
    """low + (high - low) * Beta(a, b): support [low, high]."""

    a: float
    b: float
    low: float
    high: float

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return self.low + (self.high - self.low) * rng.beta(self.a, self.b, size)

    @property
    def upper(self) -> float:
        return self.high


@dataclass(frozen=True)
class GenPower:
    """Power(a) / s^a, where Power(a) has density a x^(a-1) on [0, 1]; support [0, s^-a]."""

    a: float
    s: float = 1.0

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return rng.power(self.a, size) / self.s**self.a

    @property
    def upper(self) -> float:
        return 1.0 / self.s**self.a


INSTANCES: dict[str, dict[str, ScaledBeta | GenPower]] = {
    "skewed_max": {
        "steady": ScaledBeta(5.0, 2.0, 0.70, 0.86),
        "high_ceiling": ScaledBeta(3.0, 1.5, 0.40, 0.92),
        "mid": ScaledBeta(4.0, 2.0, 0.50, 0.80),
        "narrow": ScaledBeta(6.0, 2.0, 0.60, 0.82),
        "wide_low": ScaledBeta(2.0, 2.0, 0.30, 0.75),
        "weak": ScaledBeta(3.0, 2.0, 0.20, 0.70),
    },
    "power_xp10": {
        f"power_a{a}_{i}": GenPower(float(a)) for i, a in enumerate([3, 3, 3, 4, 4, 4, 5, 5, 5, 6])
    },
    "power_xp11": {
        f"genpower_a{a}_s{s}": GenPower(float(a), s)
        for a, s in [(3, 1.01), (4, 1.01), (5, 1.01), (5, 1.1), (4, 1.0)]
    },
}


def synthetic_sequences(
    instance: str, horizon: int, rng: np.random.Generator
) -> tuple[tuple[str, ...], np.ndarray]:
    """Arm names and a (K, horizon) array of i.i.d. draws, one row per arm."""
    if instance not in INSTANCES:
        raise ValueError(f"instance must be one of {sorted(INSTANCES)}, got {instance!r}")
    arms = INSTANCES[instance]
    return tuple(arms), np.stack([dist.sample(rng, horizon) for dist in arms.values()])
