"""The one metric generator both ingestion paths are driven by (no Django, no MLflow imports,
so the MLflow driver in its own virtualenv imports this same file).

A "batch" is what one client call carries: `batch` points = batch // keys steps of `keys`
metric keys each. Values are deterministic so stored rows can be checked on both sides.
"""

from __future__ import annotations

from collections.abc import Iterator


def metric_keys(keys: int) -> list[str]:
    return [f"m{i}" for i in range(keys)]


def value(step: int, key_index: int) -> float:
    return step * 0.001 + key_index


def steps_in_batches(
    points: int, keys: int, batch: int
) -> Iterator[list[tuple[int, dict[str, float]]]]:
    """Yield lists of (step, {key: value}); every list holds `batch` points (the last may hold fewer)."""
    names = metric_keys(keys)
    steps_per_batch = max(batch // keys, 1)
    total_steps = points // keys
    for first in range(0, total_steps, steps_per_batch):
        yield [
            (s, {k: value(s, i) for i, k in enumerate(names)})
            for s in range(first, min(first + steps_per_batch, total_steps))
        ]
