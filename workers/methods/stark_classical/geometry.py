"""DE-9IM spatial predicates with a numerical tolerance, and STARK's trajectory event intervals.

STARK's ground truth is shapely's exact predicate on full-precision geometries, but its prompts
print coordinates with 4 decimals, so a point built on a segment (or a shared polygon edge) is
off by up to ~1.4e-4 from the printed segment once printed (each printed coordinate moves by up to 5e-5). `align` undoes that: every vertex of one geometry that lies
within `tol` of the other is moved onto it and inserted there as a vertex, so both geometries
share exact coordinates; shapely's exact DE-9IM predicates are then evaluated.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from shapely.geometry import LineString, Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

PREDICATES = ("equals", "intersects", "contains", "within", "crosses", "touches", "overlaps")
Coords = list[tuple[float, float]]


def make(kind: str, coords: Sequence[Sequence[float]]) -> BaseGeometry:
    """Build a shapely geometry from STARK's type name (Point, Linestring, Polygon) and coordinates."""
    pts = [(float(x), float(y)) for x, y in coords]
    if kind == "Point":
        if len(pts) != 1:
            raise ValueError(f"coords: a Point needs 1 coordinate pair, got {len(pts)}")
        return Point(pts[0])
    if kind == "Linestring":
        return LineString(pts)
    if kind == "Polygon":
        return Polygon(pts)
    raise ValueError(f"kind: unknown geometry type {kind!r}")


def _vertices(kind: str, coords: Coords) -> Coords:
    return coords[:-1] if kind == "Polygon" else coords


def _rebuild(kind: str, verts: Coords) -> BaseGeometry:
    return make(kind, verts + [verts[0]] if kind == "Polygon" else verts)


def _insert_on(kind: str, verts: Coords, point: tuple[float, float]) -> Coords:
    """Insert `point` into the edge of (kind, verts) nearest to it (no-op for points/vertices)."""
    if kind == "Point" or point in verts:
        return verts
    ring = verts + [verts[0]] if kind == "Polygon" else verts
    p = np.array(point)
    best, best_d = 0, np.inf
    for i in range(len(ring) - 1):
        a, b = np.array(ring[i]), np.array(ring[i + 1])
        ab = b - a
        t = np.clip(np.dot(p - a, ab) / max(np.dot(ab, ab), 1e-300), 0.0, 1.0)
        d = np.linalg.norm(a + t * ab - p)
        if d < best_d:
            best, best_d = i, d
    return verts[: best + 1] + [point] + verts[best + 1 :]


def _snap_into(
    kind_a: str, va: Coords, kind_b: str, vb: Coords, tol: float
) -> tuple[Coords, Coords]:
    """Move each vertex of A lying within tol of B onto B, inserting it into B's edges."""
    va = list(va)
    for i, v in enumerate(va):
        geom_b = _rebuild(kind_b, vb)
        target = geom_b.exterior if kind_b == "Polygon" else geom_b
        if target.distance(Point(v)) > tol:
            continue
        # nearest vertex of B first (keeps shared vertices exactly shared), else the foot point
        dists = [np.hypot(v[0] - w[0], v[1] - w[1]) for w in vb]
        if dists and min(dists) <= tol:
            va[i] = vb[int(np.argmin(dists))]
        else:
            foot = nearest_points(target, Point(v))[0]
            va[i] = (foot.x, foot.y)
            vb = _insert_on(kind_b, vb, va[i])
    return va, vb


def align(
    kind1: str, coords1: Coords, kind2: str, coords2: Coords, tol: float = 2e-4
) -> tuple[BaseGeometry, BaseGeometry]:
    """Both geometries with near-coincident vertices made exactly coincident (see module doc)."""
    v1, v2 = (
        _vertices(kind1, list(map(tuple, coords1))),
        _vertices(kind2, list(map(tuple, coords2))),
    )
    v1, v2 = _snap_into(kind1, v1, kind2, v2, tol)
    v2, v1 = _snap_into(kind2, v2, kind1, v1, tol)
    return _rebuild(kind1, v1), _rebuild(kind2, v2)


def spatial_holds(
    predicate: str, kind1: str, coords1: Coords, kind2: str, coords2: Coords, tol: float = 2e-4
) -> bool:
    """`geo1.<predicate>(geo2)` after tolerance alignment (tol=0 gives shapely's exact answer)."""
    if predicate not in PREDICATES:
        raise ValueError(f"predicate: unknown spatial predicate {predicate!r}")
    if tol > 0:
        g1, g2 = align(kind1, coords1, kind2, coords2, tol)
    else:
        g1, g2 = make(kind1, coords1), make(kind2, coords2)
    return bool(getattr(g1, predicate)(g2))


def event_runs(
    trajectory: Coords,
    timestamps: Sequence[float],
    predicate: str,
    kind2: str,
    coords2: Coords,
    tol: float = 2e-4,
) -> list[tuple[float, float]]:
    """The intervals during which `trajectory <predicate> geo2` holds, per STARK's prompt rules.

    Segment predicates (intersects, crosses, contains, overlaps, equals): each contiguous run of
    satisfying segments i..j gives [t_i, t_{j+1}]. Vertex predicates (touches, within): each
    contiguous run of satisfying vertices gives [t_first, t_last] (an instant for one vertex).
    """
    traj, g2 = align("Linestring", trajectory, kind2, coords2, tol)
    pts = list(traj.coords)
    # alignment may insert vertices into the trajectory; map every vertex back to a time
    times = _retime(list(map(tuple, trajectory)), list(timestamps), pts, 2 * tol)
    if predicate in ("touches", "within"):
        target = g2.boundary if kind2 == "Polygon" and predicate == "touches" else g2
        if predicate == "touches":
            hits = [i for i, p in enumerate(pts) if target.distance(Point(p)) <= tol]
        else:
            hits = [i for i, p in enumerate(pts) if g2.contains(Point(p))]
        return [(times[a], times[b]) for a, b in _runs(hits)]
    hits = []
    for i in range(len(pts) - 1):
        seg = LineString([pts[i], pts[i + 1]])
        if predicate in ("contains", "overlaps", "equals"):
            ok = seg.intersection(g2).length > tol
        elif predicate == "crosses" and kind2 == "Polygon":
            ok = seg.crosses(g2)
        else:
            ok = seg.intersects(g2)
        if ok:
            hits.append(i)
    return [(times[a], times[b + 1]) for a, b in _runs(hits)]


def _runs(indices: list[int]) -> list[tuple[int, int]]:
    """[1, 2, 3, 7, 8] -> [(1, 3), (7, 8)]"""
    runs: list[tuple[int, int]] = []
    for i in indices:
        if runs and i == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    return runs


def event_interval(
    trajectory: Coords,
    timestamps: Sequence[float],
    predicate: str,
    kind2: str,
    coords2: Coords,
    tol: float = 2e-4,
) -> tuple[float, float] | None:
    """The hull of `event_runs` (STARK's "union" read as one interval); None if never satisfied."""
    runs = event_runs(trajectory, timestamps, predicate, kind2, coords2, tol)
    return (runs[0][0], runs[-1][1]) if runs else None


def _retime(original: Coords, timestamps: list[float], aligned: Coords, tol: float) -> list[float]:
    """Timestamps for the aligned trajectory: original vertices keep theirs; an inserted vertex
    gets the time of its segment's end vertex, which is what STARK's labels use."""
    times, k = [], 0
    for p in aligned:
        if k < len(original) and np.hypot(p[0] - original[k][0], p[1] - original[k][1]) <= tol:
            times.append(timestamps[k])
            k += 1
        else:
            times.append(timestamps[min(k, len(timestamps) - 1)])
    return times


# ---- reading the tier-2 prompts ---------------------------------------------------------------

_COORDS = r"\[\((?:[^\]]*)\)\]"
_SPATIAL_Q = re.compile(
    rf"Determine whether the (Point|Linestring|Polygon) ({_COORDS}) has the spatial "
    rf"relationship \*\*(\w+)\*\* with the (Point|Linestring|Polygon) ({_COORDS})\?"
)
_TEMPORAL_Q = re.compile(
    r"Determine whether the time interval \(([^)]*)\) has the temporal relationship "
    r"\*\*([\w ]+?)\*\* with the time interval \(([^)]*)\)\?"
)
_ST_Q = re.compile(
    rf"temporal relationship \*\*(\w+)\*\* with the reference interval \(([^)]*)\)\?\s*"
    rf"EVENT: the following object trajectory has the spatial relationship \*\*(\w+)\*\* "
    rf"with (Point|Linestring|Polygon) ({_COORDS}).*?Object trajectory: ({_COORDS})\s*"
    rf"Timestamp: \[([^\]]*)\]",
    re.DOTALL,
)


def parse_coords(text: str) -> Coords:
    pairs = re.findall(r"\(\s*([-\d.eE+]+)\s*,\s*([-\d.eE+]+)\s*\)", text)
    if not pairs:
        raise ValueError(f"text: no coordinate pairs in {text[:60]!r}")
    return [(float(x), float(y)) for x, y in pairs]


def parse_spatial(prompt: str) -> tuple[str, Coords, str, str, Coords]:
    m = _SPATIAL_Q.search(prompt)
    if not m:
        raise ValueError("prompt: not a STARK spatial-relation question")
    return m.group(1), parse_coords(m.group(2)), m.group(3), m.group(4), parse_coords(m.group(5))


def parse_temporal(prompt: str) -> tuple[tuple[float, float], str, tuple[float, float]]:
    m = _TEMPORAL_Q.search(prompt)
    if not m:
        raise ValueError("prompt: not a STARK temporal-relation question")
    iv = [tuple(float(v) for v in g.split(",")) for g in (m.group(1), m.group(3))]
    return iv[0], m.group(2).replace(" ", "_"), iv[1]  # type: ignore[return-value]


def parse_spatiotemporal(prompt: str) -> dict:
    m = _ST_Q.search(prompt)
    if not m:
        raise ValueError("prompt: not a STARK spatio-temporal question")
    return {
        "temporal": m.group(1),
        "interval_2": tuple(float(v) for v in m.group(2).split(",")),
        "spatial": m.group(3),
        "kind2": m.group(4),
        "coords2": parse_coords(m.group(5)),
        "trajectory": parse_coords(m.group(6)),
        "timestamps": [float(v) for v in m.group(7).split(",")],
    }
