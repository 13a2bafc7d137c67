"""Seeded generators for every STARK tier-1 and tier-2 task, writing the release's layout.

`write_release(dest, seed=...)` produces a folder that `importer.load_release` reads like the
real release, so generated data goes through exactly the same loading and scoring path.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np

from workers.benchmarks.stark.catalogue import TASKS
from workers.benchmarks.stark.generators.fields import write_field_tasks
from workers.benchmarks.stark.generators.relations import write_relation_tasks
from workers.benchmarks.stark.generators.sensors import write_sensor_tasks

GENERATED_FAMILIES = ("localization", "tracking", "field", "spatial", "temporal", "spatiotemporal")


def write_release(
    dest: str | Path,
    *,
    seed: int = 0,
    per_task: int = 2,
    noise: float = 0.01,
    region_radius: float = 4.0,
    n_sensors: int = 4,
    tasks: Iterable[str] | None = None,
) -> Path:
    """Write `per_task` fresh instances of every tier-1/tier-2 task (or of `tasks`) under `dest`."""
    if per_task < 1:
        raise ValueError(f"per_task: must be >= 1, got {per_task}")
    if not 0 <= noise <= 0.5:
        raise ValueError(f"noise: expected a value in [0, 0.5], got {noise}")
    if not 3 <= n_sensors <= 8:
        raise ValueError(f"n_sensors: expected 3..8, got {n_sensors}")
    if region_radius <= 0:
        raise ValueError(f"region_radius: must be positive, got {region_radius}")
    chosen = (
        list(tasks)
        if tasks is not None
        else [t for t, i in TASKS.items() if i.family in GENERATED_FAMILIES]
    )
    if unknown := [t for t in chosen if t not in TASKS]:
        raise ValueError(f"tasks: unknown STARK task(s) {unknown}")
    if tier3 := [t for t in chosen if TASKS[t].tier == 3]:
        raise ValueError(f"tasks: tier-3 tasks cannot be generated (world knowledge): {tier3}")
    root = Path(dest)
    root.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    write_sensor_tasks(root, chosen, per_task, noise, region_radius, n_sensors, rng)
    write_field_tasks(root, chosen, per_task, rng)
    write_relation_tasks(root, chosen, per_task, rng)
    return root
