"""Seeded tier-2 instances (spatial, temporal, spatio-temporal) in the release's layout.

Like STARK's sim_lib_*_v2, each instance is a balanced yes/no question: with probability 1/2 a
pair built to satisfy the relation, otherwise a pair that does not; the label is the exact
predicate on full-precision values (shapely / Allen with exact comparisons) and the prompt
prints 4 decimals. Positive pairs share exact coordinates (a point is inserted into the edge it
lies on, touching shapes share vertices), the way STARK snaps its constructions.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from workers.benchmarks.stark import prompts_tier2 as T2
from workers.benchmarks.stark.catalogue import SPATIAL_TASKS, SPATIOTEMPORAL_TASKS, TEMPORAL_TASKS
from workers.benchmarks.stark.generators.sensors import trajectory
from workers.methods.stark_classical import allen, geometry

Coords = list[tuple[float, float]]


def _polygon(rng: np.random.Generator, centre=None, radius=None) -> Coords:
    c = rng.uniform(1.5, 8.5, 2) if centre is None else np.asarray(centre, float)
    r = rng.uniform(0.5, 1.5) if radius is None else radius
    n = int(rng.integers(4, 9))
    a = rng.uniform(0, 2 * np.pi) + np.linspace(0, 2 * np.pi, n, endpoint=False)
    pts = [(float(c[0] + r * np.cos(t)), float(c[1] + r * np.sin(t))) for t in a]
    return pts + [pts[0]]


def _line(rng: np.random.Generator, n: int | None = None) -> Coords:
    n = n or int(rng.integers(2, 4))
    start = rng.uniform(1, 9, 2)
    steps = rng.normal(0, 1.0, size=(n - 1, 2))
    pts = np.vstack([start, start + np.cumsum(steps, axis=0)])
    return [(float(x), float(y)) for x, y in pts]


def _random(kind: str, rng: np.random.Generator) -> Coords:
    if kind == "Point":
        return [tuple(map(float, rng.uniform(0, 10, 2)))]
    return _line(rng) if kind == "Linestring" else _polygon(rng)


def _edge_point(coords: Coords, rng: np.random.Generator) -> tuple[Coords, tuple[float, float]]:
    """Insert a point inside a random edge of `coords`; return (new coords, point)."""
    i = int(rng.integers(0, len(coords) - 1))
    a, b = np.array(coords[i]), np.array(coords[i + 1])
    p = tuple(map(float, a + rng.uniform(0.2, 0.8) * (b - a)))
    return coords[: i + 1] + [p] + coords[i + 1 :], p


def _propose(
    kind1: str, kind2: str, rng: np.random.Generator, g1: Coords | None = None
) -> tuple[Coords, Coords]:
    """A pair (geo1, geo2) from one of several relation-inducing constructions, at random
    (geo1 is drawn unless given)."""
    g1 = _random(kind1, rng) if g1 is None else list(g1)
    mode = rng.integers(0, 7)
    if mode == 0:
        return g1, _random(kind2, rng)
    if kind2 == "Point":
        if mode in (1, 2) or kind1 == "Point":
            return g1, [g1[int(rng.integers(0, len(g1)))]]  # a shared vertex
        if mode == 3 and kind1 == "Polygon":
            c = np.mean(np.array(g1[:-1]), axis=0)
            return g1, [(float(c[0]), float(c[1]))]
        g1, p = _edge_point(g1, rng)
        return g1, [p]
    if kind1 == "Point":
        other, point = _propose(kind2, kind1, rng)
        return point, other
    if mode == 1 and kind1 == kind2:
        return g1, list(g1)  # identical
    if kind2 == "Linestring":
        if mode == 2:  # touch: start at a vertex of geo1, leave outwards
            v = np.array(g1[int(rng.integers(0, len(g1)))])
            return g1, [tuple(map(float, v)), tuple(map(float, v + rng.normal(0, 1.0, 2)))]
        if mode == 3:  # through an interior point of an edge of geo1
            g1, p = _edge_point(g1, rng)
            d = rng.normal(0, 1.0, 2)
            return g1, [tuple(map(float, np.array(p) - d)), p, tuple(map(float, np.array(p) + d))]
        if mode == 4 and kind1 == "Linestring":  # collinear sub-segment or extension of an edge
            i = int(rng.integers(0, len(g1) - 1))
            a, b = np.array(g1[i]), np.array(g1[i + 1])
            t1, t2 = sorted(rng.uniform(0.1, 1.5 if rng.random() < 0.5 else 0.9, 2))
            p1, p2 = tuple(map(float, a + t1 * (b - a))), tuple(map(float, a + t2 * (b - a)))
            new = (
                g1[: i + 1]
                + [p for p in (p1, p2) if np.dot(np.array(p) - a, b - a) < np.dot(b - a, b - a)]
                + g1[i + 1 :]
            )
            return new, [p1, p2]
        if kind1 == "Polygon":  # inside, or from inside to outside
            c = np.mean(np.array(g1[:-1]), axis=0)
            end = c + (rng.normal(0, 0.2, 2) if mode == 5 else rng.normal(0, 2.0, 2))
            return g1, [tuple(map(float, c)), tuple(map(float, end))]
        return g1, _random(kind2, rng)
    # kind2 == "Polygon"
    if kind1 == "Linestring":
        g2, g1 = _propose("Polygon", "Linestring", rng)
        return g1, g2
    c = np.mean(np.array(g1[:-1]), axis=0)
    if mode == 2:  # shares an edge, on the other side (touches)
        i = int(rng.integers(0, len(g1) - 1))
        a, b = np.array(g1[i]), np.array(g1[i + 1])
        mid = (a + b) / 2
        apex = mid + (mid - c) * rng.uniform(0.5, 1.5)
        return g1, [g1[i + 1], g1[i], tuple(map(float, apex)), g1[i + 1]]
    if mode == 3:  # scaled copy about the centre (inside or around)
        k = rng.choice([0.5, 1.5])
        pts = [tuple(map(float, c + k * (np.array(p) - c))) for p in g1[:-1]]
        return g1, pts + [pts[0]]
    shift = rng.normal(0, 0.6, 2)
    pts = [tuple(map(float, np.array(p) + shift)) for p in g1[:-1]]
    return g1, pts + [pts[0]]


def spatial_pair(
    task: str, rng: np.random.Generator, want: int, g1_fixed: Coords | None = None
) -> tuple[Coords, Coords, int]:
    kind1, kind2, predicate = task.split("_")
    for _ in range(500):
        g1, g2 = _propose(kind1, kind2, rng, g1_fixed)
        label = int(geometry.spatial_holds(predicate, kind1, g1, kind2, g2, tol=0.0))
        if label == want:
            return g1, g2, label
    return (
        g1,
        g2,
        label,
    )  # this relation cannot take this label for these types (e.g. Point contains)


def interval_pair(
    name: str, rng: np.random.Generator, want: int, iv1=None, horizon: float = 80.0
) -> tuple[tuple, tuple, int]:
    """(iv1, iv2, label) with label = `iv1 name iv2` exactly; positives share exact endpoints.
    Negatives are random intervals starting in [0, horizon] (STARK: 80 for temporal, 10 for ST)."""
    if iv1 is None:
        s = float(rng.uniform(0, horizon))
        iv1 = (s, s + float(rng.uniform(1, 20)))
    s1, e1 = iv1
    iv2, label = iv1, -1
    for _ in range(500):
        if want:
            L = float(rng.uniform(0.05, 0.25) * horizon)
            a, b = sorted(rng.uniform(0.1, 0.9, 2)) if e1 > s1 else (0.0, 0.0)
            inner = (s1 + a * (e1 - s1), s1 + b * (e1 - s1))
            iv2 = {
                "precedes": (e1 + L / 4, e1 + L),
                "is_preceded_by": (s1 - L, s1 - L / 4),
                "meets": (e1, e1 + L),
                "is_met_by": (s1 - L, s1),
                "overlaps_with": (inner[0], e1 + L),
                "is_overlapped_by": (s1 - L, inner[1]),
                "starts": (s1, e1 + L),
                "is_started_by": (s1, inner[1]),
                "during": (s1 - L, e1 + L),
                "contains": inner,
                "finishes": (s1 - L, e1),
                "finished_by": (inner[0], e1),
                "is_equal_to": (s1, e1),
            }[name]
        else:
            s = float(rng.uniform(0, horizon))
            iv2 = (s, s + float(rng.uniform(1, horizon / 4)))
        if min(iv2) < 0:
            continue
        label = int(allen.holds(name, iv1, iv2, eps=0.0))
        if label == want:
            return iv1, iv2, label
    return iv1, iv2, label


def _write_qa(path: Path, query: str, answer: int, extra: dict | None = None) -> None:
    extra = extra or {}
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Unnamed: 0", "query", "answer", *extra])
        writer.writerow([0, query, answer, *extra.values()])


def _st_instance(task: str, rng: np.random.Generator, want: int):
    spatial_task, temporal = task.split("-")
    _, kind2, predicate = spatial_task.split("_")
    for _ in range(200):
        start = float(rng.uniform(0.5, 2.0))
        path = trajectory(9, 8.0, rng) * 1.0
        traj, geo2, ok = spatial_pair(
            f"Linestring_{kind2}_{predicate}", rng, 1, g1_fixed=[tuple(map(float, p)) for p in path]
        )
        if not ok:
            continue
        times = [round(start + k * 1.0204, 4) for k in range(len(traj))]
        runs = geometry.event_runs(traj, times, predicate, kind2, geo2, tol=1e-9)
        if len(runs) != 1:
            continue
        i1, i2, label = interval_pair(temporal, rng, want, iv1=runs[0], horizon=10.0)
        if label == want:
            return traj, times, kind2, geo2, temporal, spatial_task, i1, i2, label
    return None


def write_relation_tasks(
    root: Path, tasks: list[str], per_task: int, rng: np.random.Generator
) -> None:
    for task in tasks:
        for index in range(per_task):
            want = int(rng.random() < 0.5)
            if task in SPATIAL_TASKS:
                kind1, kind2, predicate = task.split("_")
                g1, g2, label = spatial_pair(task, rng, want)
                query = T2.spatial_query(kind1, g1, predicate, kind2, g2)
                folder = root / "tier2_v2_spatial" / task
            elif task in TEMPORAL_TASKS:
                iv1, iv2, label = interval_pair(task, rng, want)
                query = T2.temporal_query(iv1, task, iv2)
                folder = root / "tier2_v2_temporal" / task
            elif task in SPATIOTEMPORAL_TASKS:
                made = _st_instance(task, rng, want)
                if made is None:
                    continue
                traj, times, kind2, geo2, temporal, spatial_task, i1, i2, label = made
                query = T2.spatiotemporal_query(
                    spatial_task.split("_")[-1], kind2, geo2, temporal, i2, traj, times
                )
                folder = root / "tier2_v2_spatial_temporal" / task
                folder.mkdir(parents=True, exist_ok=True)
                _write_qa(
                    folder / f"{index}.csv",
                    query,
                    label,
                    {"i1": f"({i1[0]:.4f}, {i1[1]:.4f})", "i2": f"({i2[0]:.4f}, {i2[1]:.4f})"},
                )
                continue
            else:
                continue
            folder.mkdir(parents=True, exist_ok=True)
            _write_qa(folder / f"{index}.csv", query, label)
