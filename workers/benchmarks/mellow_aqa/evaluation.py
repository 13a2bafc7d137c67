"""MMAU-style multiple-choice scoring: accuracy per family, reasoning type and distribution shift,
each with a 95% Wilson score interval (exact enough for small n, unlike the normal interval)."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from workers.benchmarks.mellow_aqa.items import AQAItem

Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion k / n."""
    if n == 0:
        return math.nan, math.nan
    p = k / n
    denom = 1 + z**2 / n
    centre = (p + z**2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def predictions(scores: list[np.ndarray]) -> list[int]:
    """argmax per item; ties go to the lowest index (options are shuffled, so this is unbiased)."""
    return [int(np.argmax(s)) for s in scores]


def accuracy_rows(items: list[AQAItem], preds: list[int]) -> list[dict]:
    """One row per group: overall, each reasoning type, id/ood, each family (x split)."""
    if len(items) != len(preds):
        raise ValueError(f"{len(items)} items but {len(preds)} predictions")
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for item, p in zip(items, preds, strict=True):
        hit = int(p == item.answer_index)
        keys = [
            ("overall", "all"),
            ("reasoning", item.reasoning),
            ("split", item.split),
            ("family", item.family),
            ("family_split", f"{item.family}/{item.split}"),
            ("reasoning_split", f"{item.reasoning}/{item.split}"),
        ]
        for key in keys:
            groups[key].append(hit)
    rows = []
    for (kind, name), hits in sorted(groups.items()):
        k, n = sum(hits), len(hits)
        lo, hi = wilson(k, n)
        rows.append(
            {
                "group": kind,
                "name": name,
                "n": n,
                "correct": k,
                "accuracy": k / n,
                "ci_low": lo,
                "ci_high": hi,
            }
        )
    return rows


def chance_accuracy(items: list[AQAItem]) -> float:
    """Expected accuracy of uniform guessing: mean of 1 / (number of options)."""
    return float(np.mean([1.0 / len(i.options) for i in items])) if items else math.nan


def summary_from_rows(rows: list[dict]) -> dict[str, float]:
    """Flat leaderboard values: accuracy, accuracy_<reasoning>, accuracy_<id|ood>, family_<f>."""
    out: dict[str, float] = {}
    for r in rows:
        if r["group"] == "overall":
            out.update(
                accuracy=r["accuracy"],
                accuracy_ci_low=r["ci_low"],
                accuracy_ci_high=r["ci_high"],
                n_questions=r["n"],
            )
        elif r["group"] in ("reasoning", "split"):
            out[f"accuracy_{r['name']}"] = r["accuracy"]
        elif r["group"] == "family":
            out[f"family_{r['name']}"] = r["accuracy"]
    return out
