"""Percentile bootstrap confidence intervals, plain and paired (for degradation vs a reference
condition on the same items)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Statistic = Callable[[Sequence[Any]], float]


def mean_stat(values: Sequence[Any]) -> float:
    vals = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    return float(np.mean(vals)) if vals else math.nan


def bootstrap_ci(
    data: Sequence[Any],
    stat: Statistic = mean_stat,
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> tuple[float, float, float]:
    """(estimate, low, high): percentile bootstrap over items (Efron & Tibshirani 1993, ch. 13).
    Resamples whose statistic is NaN are skipped."""
    if n_boot < 1 or not 0 < level < 1:
        raise ValueError("n_boot must be >= 1 and level in (0, 1)")
    est = stat(data)
    if not len(data):
        return math.nan, math.nan, math.nan
    rng = np.random.default_rng(seed)
    n = len(data)
    reps = []
    for _ in range(n_boot):
        idx = rng.integers(0, n, n)
        value = stat([data[i] for i in idx])
        if not math.isnan(value):
            reps.append(value)
    if not reps:
        return est, math.nan, math.nan
    alpha = (1 - level) / 2
    return est, float(np.quantile(reps, alpha)), float(np.quantile(reps, 1 - alpha))


def paired_bootstrap_delta(
    ref: Sequence[Any],
    other: Sequence[Any],
    stat: Statistic = mean_stat,
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> tuple[float, float, float]:
    """CI of stat(other) - stat(ref) when both lists are answers to the same items in the same
    order: each resample draws the same item indices for both (paired)."""
    if len(ref) != len(other):
        raise ValueError(f"paired samples differ in length: {len(ref)} vs {len(other)}")
    pairs = list(zip(ref, other, strict=True))

    def delta(sample: Sequence[tuple[Any, Any]]) -> float:
        return stat([p[1] for p in sample]) - stat([p[0] for p in sample])

    return bootstrap_ci(pairs, delta, n_boot, level, seed)
