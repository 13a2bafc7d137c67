"""Exact tier-2 solvers: DE-9IM predicates (shapely), Allen relations, and their combination."""

from __future__ import annotations

from workers.methods.stark_classical import allen, geometry


def solve_spatial(prompt: str, tol: float = 2e-4) -> int:
    """Answer a STARK spatial question ("Does geo1 <predicate> geo2?") with 0/1."""
    kind1, c1, predicate, kind2, c2 = geometry.parse_spatial(prompt)
    return int(geometry.spatial_holds(predicate, kind1, c1, kind2, c2, tol))


def solve_temporal(prompt: str, eps: float = 5e-5) -> int:
    iv1, name, iv2 = geometry.parse_temporal(prompt)
    return int(allen.holds(name, iv1, iv2, eps))


def solve_spatiotemporal(
    prompt: str, tol: float = 2e-4, eps: float = 5e-5, multi_run: str = "any"
) -> tuple[int, list[tuple[float, float]]]:
    """Event interval(s) of the trajectory/geometry predicate, then the Allen relation with the
    reference interval. When the event holds on several disjoint runs, `multi_run="any"` answers
    1 if some run is in the relation, `"hull"` tests the hull of all runs. No event -> 0."""
    if multi_run not in ("any", "hull"):
        raise ValueError(f"multi_run: expected 'any' or 'hull', got {multi_run!r}")
    q = geometry.parse_spatiotemporal(prompt)
    runs = geometry.event_runs(
        q["trajectory"], q["timestamps"], q["spatial"], q["kind2"], q["coords2"], tol
    )
    if not runs:
        return 0, runs
    if multi_run == "hull":
        runs = [(runs[0][0], runs[-1][1])]
    return int(any(allen.holds(q["temporal"], iv, q["interval_2"], eps) for iv in runs)), runs
