"""Area-delay Pareto fronts and 2-D hypervolume (both objectives minimised)."""

from __future__ import annotations

import numpy as np


def pareto_front(points: np.ndarray) -> np.ndarray:
    """Indices of non-dominated points (minimisation in every column), sorted by the first objective."""
    pts = np.asarray(points, dtype=float)
    if pts.ndim != 2 or pts.shape[1] != 2:
        raise ValueError(f"points must be an (n, 2) array, got shape {pts.shape}")
    keep = []
    for i, p in enumerate(pts):
        dominated = np.any(np.all(pts <= p, axis=1) & np.any(pts < p, axis=1))
        duplicate_before = any(np.array_equal(pts[k], p) for k in keep)
        if not dominated and not duplicate_before:
            keep.append(i)
    return np.array(sorted(keep, key=lambda i: (pts[i, 0], pts[i, 1])), dtype=int)


def hypervolume_2d(points: np.ndarray, ref: tuple[float, float]) -> float:
    """Area dominated by `points` and bounded by the reference point `ref` (points beyond it add nothing)."""
    pts = np.asarray(points, dtype=float)
    if len(pts) == 0:
        return 0.0
    pts = pts[np.all(pts < np.asarray(ref), axis=1)]
    if len(pts) == 0:
        return 0.0
    front = pts[pareto_front(pts)]
    hv, prev_y = 0.0, ref[1]
    for x, y in front:  # x ascending, y descending along a front
        hv += (ref[0] - x) * (prev_y - y)
        prev_y = y
    return float(hv)
