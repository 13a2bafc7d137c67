"""Snapshot localization from range, bearing, range+bearing, proximity and time-of-arrival sensors.

All estimators are nonlinear least squares (scipy.optimize.least_squares) started from a
closed-form guess; they are the classical baselines of STARK (Quan et al., 2025, Sec. 3.1).
Bearings are in degrees, counter-clockwise from +x, as in STARK's prompts.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import least_squares
from shapely.geometry import Point, box
from shapely.ops import unary_union

AREA = (0.0, 0.0, 10.0, 10.0)  # STARK's 10 x 10 region


def _as_sensors(
    sensors: np.ndarray, values: np.ndarray, name: str
) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(sensors, dtype=float)
    v = np.asarray(values, dtype=float)
    if s.ndim != 2 or s.shape[1] != 2:
        raise ValueError(f"sensors: expected shape (n, 2), got {s.shape}")
    if len(v) != len(s):
        raise ValueError(f"{name}: expected {len(s)} readings, got {len(v)}")
    keep = ~np.isnan(v).reshape(len(v), -1).any(axis=1)
    return s[keep], v[keep]


def wrap_deg(angle: np.ndarray) -> np.ndarray:
    """Map angles to (-180, 180]."""
    return (np.asarray(angle) + 180.0) % 360.0 - 180.0


def multilaterate(
    sensors: np.ndarray,
    ranges: np.ndarray,
    x0: np.ndarray | None = None,
    relative_noise: bool = True,
) -> np.ndarray:
    """argmin_x sum_k w_k (|x - s_k| - r_k)^2 (NLLS multilateration).

    STARK's range noise is multiplicative (r = d (1 + u), u ~ U(-sigma, sigma)), so residuals are
    divided by r_k when `relative_noise`. The start is the linearised least-squares solution
    (differences of squared ranges), or the sensor centroid with fewer than 3 readings.
    """
    s, r = _as_sensors(sensors, ranges, "ranges")
    if len(s) == 0:
        return np.array(x0 if x0 is not None else [5.0, 5.0], dtype=float)
    if x0 is None:
        x0 = s.mean(axis=0)
        if len(s) >= 3:  # |x|^2 - 2 s_k.x + |s_k|^2 = r_k^2, minus the first equation
            A = 2 * (s[1:] - s[0])
            b = (r[0] ** 2 - r[1:] ** 2) + (s[1:] ** 2).sum(1) - (s[0] ** 2).sum()
            x0 = np.linalg.lstsq(A, b, rcond=None)[0]
    w = 1.0 / np.maximum(r, 1e-3) if relative_noise else np.ones_like(r)
    fit = least_squares(lambda x: w * (np.linalg.norm(x - s, axis=1) - r), np.asarray(x0, float))
    return fit.x


def triangulate(
    sensors: np.ndarray, bearings_deg: np.ndarray, x0: np.ndarray | None = None
) -> np.ndarray:
    """Bearing-only triangulation: NLLS on wrapped angle residuals, started from the least-squares
    intersection of the bearing lines (n_k . x = n_k . s_k with n_k normal to the bearing)."""
    s, b = _as_sensors(sensors, bearings_deg, "bearings")
    if len(s) == 0:
        return np.array(x0 if x0 is not None else [5.0, 5.0], dtype=float)
    theta = np.radians(b)
    if x0 is None:
        if len(s) >= 2:
            n = np.stack([-np.sin(theta), np.cos(theta)], axis=1)
            x0 = np.linalg.lstsq(n, (n * s).sum(1), rcond=None)[0]
        else:
            x0 = s[0] + np.array([np.cos(theta[0]), np.sin(theta[0])])

    def residual(x: np.ndarray) -> np.ndarray:
        pred = np.degrees(np.arctan2(x[1] - s[:, 1], x[0] - s[:, 0]))
        return wrap_deg(pred - b)

    return least_squares(residual, np.asarray(x0, float)).x


def range_bearing_fix(
    sensors: np.ndarray,
    readings: np.ndarray,
    sigma_range: float = 0.01,
    sigma_bearing_deg: float = 3.6,
) -> np.ndarray:
    """Joint range+bearing NLLS. Each sensor alone gives s + r (cos b, sin b); the joint fit
    weights range residuals by sigma_range * r and bearing residuals (as arc length r * db)."""
    s, rb = _as_sensors(sensors, readings, "readings")
    if len(s) == 0:
        return np.array([5.0, 5.0])
    r, b = rb[:, 0], np.radians(rb[:, 1])
    points = s + r[:, None] * np.stack([np.cos(b), np.sin(b)], axis=1)
    x0 = points.mean(axis=0)

    def residual(x: np.ndarray) -> np.ndarray:
        d = np.linalg.norm(x - s, axis=1)
        ang = np.degrees(np.arctan2(x[1] - s[:, 1], x[0] - s[:, 0]))
        res_r = (d - r) / (sigma_range * np.maximum(r, 1e-3))
        res_b = wrap_deg(ang - rb[:, 1]) / sigma_bearing_deg
        return np.concatenate([res_r, res_b])

    return least_squares(residual, x0).x


def region_intersection(
    sensors: np.ndarray, inside: np.ndarray, radius: float, area=AREA, prior=None
) -> np.ndarray:
    """Proximity sensors: the centroid of {x in area : |x - s_k| <= R iff reading_k = 1}.

    `prior` (a shapely geometry) further restricts the region (used by the tracker). If the
    constraints are inconsistent (noise), the constraint set is relaxed to the "inside" disks,
    then to the area.
    """
    s, v = _as_sensors(sensors, inside, "inside")
    region = box(*area)
    disks_in = [Point(p).buffer(radius, 64) for p, flag in zip(s, v, strict=True) if flag >= 0.5]
    disks_out = [Point(p).buffer(radius, 64) for p, flag in zip(s, v, strict=True) if flag < 0.5]
    candidates = []
    feasible = region
    for disk in disks_in:
        feasible = feasible.intersection(disk)
    if disks_out:
        candidates.append(feasible.difference(unary_union(disks_out)))
    candidates.append(feasible)
    candidates.append(region)
    for cand in candidates:
        if prior is not None and not cand.is_empty and cand.intersection(prior).area > 1e-9:
            cand = cand.intersection(prior)
        if not cand.is_empty and cand.area > 1e-12:
            c = cand.centroid
            return np.array([c.x, c.y])
    c = region.centroid
    return np.array([c.x, c.y])


def toa_locate(
    sensors: np.ndarray, arrivals: np.ndarray, speed: float, x0: np.ndarray | None = None, area=AREA
) -> tuple[np.ndarray, float]:
    """Time-of-arrival event localization: arrivals a_k = t0 + |x - s_k| / v + noise.

    Solves for (x, y, t0) by NLLS (3 unknowns, >= 3 arrivals; with fewer, t0 is fitted with x
    fixed at the start point). Returns (position, t0).
    """
    s, a = _as_sensors(sensors, arrivals, "arrivals")
    if len(s) == 0:
        return np.array([5.0, 5.0]), float("nan")
    p0 = np.asarray(x0 if x0 is not None else s.mean(axis=0), float)
    if len(s) < 3:
        t_fit = float(np.mean(a - np.linalg.norm(p0 - s, axis=1) / speed))
        return p0, t_fit
    best = None
    starts = [np.clip(p0, 0, 10)] + [np.array([x, y]) for x in (2.5, 7.5) for y in (2.5, 7.5)]
    lower, upper = [area[0], area[1], -np.inf], [area[2], area[3], np.inf]
    for start in starts:  # TOA cost is non-convex; a few starts avoid the mirror minimum
        t_start = float(np.mean(a - np.linalg.norm(start - s, axis=1) / speed))
        # the prompts state the event is inside the 10 x 10 km area: far-away minima are excluded
        fit = least_squares(
            lambda z: z[2] + np.linalg.norm(z[:2] - s, axis=1) / speed - a,
            np.r_[start, t_start],
            bounds=(lower, upper),
        )
        if best is None or fit.cost < best.cost:
            best = fit
    return best.x[:2], float(best.x[2])
