"""Seed aggregation: mean with a 95% confidence interval (Student t)."""

from __future__ import annotations

import math
from functools import lru_cache

from scipy import stats


@lru_cache(maxsize=4096)
def t_quantile(q: float, dof: int) -> float:
    """Student t quantile, cached: a leaderboard asks for the same few (level, n) pairs once per
    cell, and scipy's ppf costs tens of microseconds a call (seconds for 10,000 rows)."""
    return float(stats.t.ppf(q, dof))


def t_halfwidth(sd: float | None, n: int, level: float = 0.95) -> float | None:
    """Half-width of the `level` CI of a mean from n samples with sample s.d. `sd`."""
    if n < 2 or sd is None or math.isnan(sd):
        return None
    return t_quantile(0.5 + level / 2, n - 1) * sd / math.sqrt(n)


def sample_sd(mean: float | None, mean_sq: float | None, n: int) -> float | None:
    """Sample standard deviation from E[x] and E[x^2] (what SQL can aggregate portably:
    SQLite's STDDEV fails on a single value)."""
    if n < 2 or mean is None or mean_sq is None:
        return None
    return math.sqrt(max(mean_sq - mean * mean, 0.0) * n / (n - 1))


def ci95_from_moments(mean: float | None, mean_sq: float | None, n: int) -> float | None:
    """95% CI half-width of a mean from the SQL aggregates E[x], E[x^2] and n."""
    return t_halfwidth(sample_sd(mean, mean_sq, n), n)
